#!/usr/bin/env python3
"""Build a deterministic initramfs: a newc ("070701") cpio archive, optionally gzipped.

The archive depends only on the manifest and the contents of the files it
names: entries are sorted by path, every mtime is 0, every owner is root,
inode numbers are assigned in order, and the gzip header carries no name or
time. So the same inputs always give the same bytes, and the Linux oracle can
cache its outputs by the archive's hash.

CLI:

    build-initramfs.py --out build/X.cpio [--gzip]
        [--file DEST=SRC[:MODE]]... [--dir DEST[:MODE]]...
        [--symlink DEST=TARGET]... [--busybox [/bin/busybox]]

`--busybox` installs the host's static BusyBox at /bin/busybox plus one
symlink per applet it lists (`busybox --list-full`). Parent directories of
every entry are created (mode 0755) when the manifest does not name them.

As a module (the file name has a dash, so load it by path):

    spec = importlib.util.spec_from_file_location("build_initramfs", "tools/build-initramfs.py")
    mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)
    mod.build([mod.File("/init", "build/init", 0o755), mod.Dir("/tmp"),
               mod.Symlink("/bin/sh", "busybox")], "build/x.cpio", gzip_output=False)
"""

import argparse
import dataclasses
import gzip
import io
import os
import stat
import subprocess
import sys
from typing import Iterable, Optional, Union

DEFAULT_BUSYBOX = "/bin/busybox"

S_IFREG = 0o100000
S_IFDIR = 0o040000
S_IFLNK = 0o120000


@dataclasses.dataclass(frozen=True)
class File:
    dest: str  # path inside the archive, absolute or not ("/init" == "init")
    src: str  # host file whose contents are copied
    mode: Optional[int] = None  # permission bits; None: the host file's, masked to 0o7777


@dataclasses.dataclass(frozen=True)
class Dir:
    dest: str
    mode: int = 0o755


@dataclasses.dataclass(frozen=True)
class Symlink:
    dest: str
    target: str


Entry = Union[File, Dir, Symlink]


def _norm(path: str) -> str:
    """Archive paths are relative ("bin/sh"), without "." or ".." parts."""
    parts = []
    for p in path.split("/"):
        if p in ("", "."):
            continue
        if p == "..":
            raise ValueError(f"'..' is not allowed in an archive path: {path!r}")
        parts.append(p)
    if not parts:
        raise ValueError(f"empty archive path: {path!r}")
    return "/".join(parts)


def _header(name: bytes, ino: int, mode: int, nlink: int, size: int) -> bytes:
    fields = [
        ino, mode, 0, 0,  # ino, mode, uid, gid
        nlink, 0, size,  # nlink, mtime, filesize
        0, 0, 0, 0,  # devmajor, devminor, rdevmajor, rdevminor
        len(name) + 1, 0,  # namesize (with NUL), check
    ]
    return b"070701" + b"".join(b"%08X" % f for f in fields)


def _pad4(n: int) -> bytes:
    return b"\0" * ((4 - n % 4) % 4)


def _member(name: str, ino: int, mode: int, nlink: int, data: bytes) -> bytes:
    bname = name.encode("utf-8")
    hdr = _header(bname, ino, mode, nlink, len(data))
    head = hdr + bname + b"\0"
    return head + _pad4(len(head)) + data + _pad4(len(data))


def resolve(entries: Iterable[Entry]) -> dict:
    """Path -> entry, with missing parent directories added. A later entry for
    the same path replaces an earlier one, except that an explicit Dir is not
    replaced by an implied parent."""
    table: dict = {}
    for e in entries:
        table[_norm(e.dest)] = e
    for path in list(table):
        parts = path.split("/")
        for i in range(1, len(parts)):
            parent = "/".join(parts[:i])
            existing = table.get(parent)
            if existing is None:
                table[parent] = Dir(parent)
            elif not isinstance(existing, Dir):
                raise ValueError(f"{parent!r} is both a parent directory and a "
                                 f"{type(existing).__name__.lower()}")
    return table


def archive_bytes(entries: Iterable[Entry]) -> bytes:
    """The uncompressed newc archive for these entries."""
    table = resolve(entries)
    out = io.BytesIO()
    ino = 1
    for path in sorted(table):
        e = table[path]
        if isinstance(e, Dir):
            out.write(_member(path, ino, S_IFDIR | (e.mode & 0o7777), 2, b""))
        elif isinstance(e, Symlink):
            out.write(_member(path, ino, S_IFLNK | 0o777, 1, e.target.encode("utf-8")))
        elif isinstance(e, File):
            with open(e.src, "rb") as f:
                data = f.read()
            mode = e.mode if e.mode is not None else stat.S_IMODE(os.stat(e.src).st_mode)
            out.write(_member(path, ino, S_IFREG | (mode & 0o7777), 1, data))
        else:
            raise TypeError(f"not an initramfs entry: {e!r}")
        ino += 1
    out.write(_member("TRAILER!!!", 0, 0, 1, b""))
    data = out.getvalue()
    # Conventional padding to a 512-byte block, as cpio(1) does.
    return data + b"\0" * ((512 - len(data) % 512) % 512)


def busybox_entries(busybox: str = DEFAULT_BUSYBOX) -> list:
    """/bin/busybox plus a symlink per applet, from `busybox --list-full`."""
    listing = subprocess.run([busybox, "--list-full"], check=True,
                             capture_output=True, text=True).stdout
    entries: list = [File("/bin/busybox", busybox, 0o755)]
    for line in sorted(set(listing.split())):
        path = "/" + _norm(line)
        if path == "/bin/busybox":
            continue
        entries.append(Symlink(path, "/bin/busybox"))
    return entries


def build(entries: Iterable[Entry], out: str, gzip_output: bool = False) -> str:
    """Write the archive to `out` (atomically) and return `out`."""
    data = archive_bytes(entries)
    if gzip_output:
        buf = io.BytesIO()
        # mtime=0 and no file name: the compressed bytes are reproducible too.
        with gzip.GzipFile(filename="", mode="wb", fileobj=buf, mtime=0, compresslevel=9) as g:
            g.write(data)
        data = buf.getvalue()
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    tmp = out + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, out)
    return out


def _parse_file(spec: str) -> File:
    dest, sep, rest = spec.partition("=")
    if not sep or not dest or not rest:
        raise argparse.ArgumentTypeError(f"--file wants DEST=SRC[:MODE], not {spec!r}")
    src, mode = rest, None
    head, colon, tail = rest.rpartition(":")
    if colon and tail and all(c in "01234567" for c in tail):
        src, mode = head, int(tail, 8)
    return File(dest, src, mode)


def _parse_dir(spec: str) -> Dir:
    head, colon, tail = spec.rpartition(":")
    if colon and tail and all(c in "01234567" for c in tail):
        return Dir(head, int(tail, 8))
    return Dir(spec)


def _parse_symlink(spec: str) -> Symlink:
    dest, sep, target = spec.partition("=")
    if not sep or not dest or not target:
        raise argparse.ArgumentTypeError(f"--symlink wants DEST=TARGET, not {spec!r}")
    return Symlink(dest, target)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="build-initramfs.py",
                                description="Build a deterministic newc cpio initramfs.")
    p.add_argument("--out", required=True, help="archive to write")
    p.add_argument("--gzip", action="store_true", help="gzip the archive")
    p.add_argument("--file", action="append", default=[], type=_parse_file,
                   metavar="DEST=SRC[:MODE]", help="copy a host file (MODE in octal)")
    p.add_argument("--dir", action="append", default=[], type=_parse_dir,
                   metavar="DEST[:MODE]", help="a directory (default mode 755)")
    p.add_argument("--symlink", action="append", default=[], type=_parse_symlink,
                   metavar="DEST=TARGET", help="a symbolic link")
    p.add_argument("--busybox", nargs="?", const=DEFAULT_BUSYBOX, metavar="PATH",
                   help=f"add a static BusyBox and its applet links (default {DEFAULT_BUSYBOX})")
    ns = p.parse_args(argv)
    entries: list = []
    if ns.busybox:
        entries += busybox_entries(ns.busybox)
    # Explicit entries come last so they win over BusyBox applet links.
    entries += ns.dir + ns.symlink + ns.file
    for e in ns.file:
        if not os.path.isfile(e.src):
            p.error(f"no such file: {e.src}")
    try:
        build(entries, ns.out, ns.gzip)
    except (ValueError, OSError, subprocess.CalledProcessError) as e:
        print(f"build-initramfs: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
