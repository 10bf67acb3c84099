#!/usr/bin/env python3
"""Contract tests: small static programs whose output under Linux defines
what Kevlar must print. See docs/contracts.md.

    contracts.py build                       compile everything, write build/contracts.cpio
    contracts.py linux [--smp N]             run under Linux (cached), print the outputs
    contracts.py compare --kernel K [--smp N]
                                             run under Kevlar and Linux, PASS/FAIL per test
    contracts.py validate                    Linux at -smp 1 and 2: every test completes
                                             with exit 0, prints something, and agrees
    contracts.py host                        quick run under the host kernel in a private
                                             pid+mount namespace (a developer aid, not the oracle)

Every command takes `--suite contracts|busybox` (default `contracts`, the C
tests above). `--suite busybox` is the BusyBox script suite: the same init,
BusyBox with its applet links, and the scripts userland/busybox/<name>.sh at
/contracts/busybox/<name>, in build/busybox-suite.cpio.

Every command except `build` builds first (incremental). Parsing is importable:

    parse_blocks(text) -> Run(blocks={name: Block}, order=[...], all_done=bool)
    compare_runs(linux_run, kevlar_run) -> [(name, passed, reason)]
    compare_outputs(linux_text, kevlar_text) -> [(name, passed, reason)]
    judge_kevlar_output(kevlar_text, smp, append) -> [("contract:<area>/<name>[smpN]", passed, reason)]
    run_compare(kernel, smp, append) -> the same, running Kevlar itself

Both take `suite=` ("contracts" or "busybox"); judge_kevlar_output also takes
`initrd=` (the image Kevlar booted) and picks the suite from it.

so tools/run-tests.py can run Kevlar its own way and turn the results of
judge_kevlar_output into its PASS/FAIL lines.
"""

import argparse
import concurrent.futures
import dataclasses
import hashlib
import os
import re
import shutil
import subprocess
import sys
import time
from typing import Optional

TOOLS_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(TOOLS_DIR)
SRC_DIR = os.path.join(REPO_ROOT, "userland", "contracts")
INIT_SRC = os.path.join(REPO_ROOT, "userland", "init", "contract-init.c")
OUT_DIR = os.path.join(REPO_ROOT, "build", "contracts")
CPIO = os.path.join(REPO_ROOT, "build", "contracts.cpio")
LOG_DIR = os.path.join(REPO_ROOT, "build", "test-logs")
CC = "/usr/bin/musl-gcc"
CFLAGS = ["-static", "-O2", "-Wall"]
# The BusyBox script suite (docs/contracts.md, "The BusyBox suite").
BUSYBOX_SRC_DIR = os.path.join(REPO_ROOT, "userland", "busybox")
BUSYBOX_OUT_DIR = os.path.join(REPO_ROOT, "build", "busybox-suite")
BUSYBOX_CPIO = os.path.join(REPO_ROOT, "build", "busybox-suite.cpio")
BUSYBOX_AREA = "busybox"
# The ext2 disk the BusyBox suite's runs get (a fresh copy each run; see
# build_disk and fresh_disks).
DISK_SRC_DIR = os.path.join(REPO_ROOT, "userland", "busybox-disk")
DISK_IMAGE = os.path.join(REPO_ROOT, "build", "busybox-suite", "disk.img")
DISK_SIZE = 8 << 20
# The same files on ext4 with Debian's default features (a second disk,
# /dev/vdb, for ext4-disk.sh).
DISK4_IMAGE = os.path.join(REPO_ROOT, "build", "busybox-suite", "disk4.img")
DISK4_SIZE = 16 << 20
# The Debian suite (docs/contracts.md, "The Debian suite"): bash scripts run
# by Debian's own userland, chrooted into an ext2 root on a virtio disk
# (tools/build-debian-root.py); the initramfs only holds debian-init and
# the Linux oracle's modules.
DEBIAN_SRC_DIR = os.path.join(REPO_ROOT, "userland", "debian")
DEBIAN_OUT_DIR = os.path.join(REPO_ROOT, "build", "debian-suite")
DEBIAN_CPIO = os.path.join(REPO_ROOT, "build", "debian-suite.cpio")
DEBIAN_INIT_SRC = os.path.join(REPO_ROOT, "userland", "init", "debian-init.c")
DEBIAN_AREA = "debian"
SUITES = ("contracts", "busybox", "debian")
# Areas in the order they run; a new directory is appended after these.
AREAS = ["process", "memory", "sched", "time", "fs", "sys", "pipe", "signal", "errors", "tty"]
NOT_AREAS = {"helpers"}
# The glibc area (docs/contracts.md, "The glibc area"): its tests are linked
# dynamically against the host's glibc (Debian's, like the oracle's
# userland) with gcc, or g++ for `.cc` files, instead of musl-gcc -static.
# lib/*.c become shared libraries in /contracts/glibc/lib (the tests' rpath);
# image/ is copied into the image's root (/etc/passwd ...); runtime-libs
# names what is loaded with dlopen (so in no DT_NEEDED). The loader and
# every library the programs need go into the image at the paths `ldd`
# finds them at on the host (glibc_image_entries).
GLIBC_AREA = "glibc"
GLIBC_SRC = os.path.join(SRC_DIR, GLIBC_AREA)
GLIBC_LIB_OUT = os.path.join(OUT_DIR, GLIBC_AREA, "lib")
GLIBC_LIB_GUEST = f"/contracts/{GLIBC_AREA}/lib"
GLIBC_CFLAGS = ["-O2", "-Wall", "-pthread"]
GUEST_ROOT = "/contracts"
# Whole-run time limits (seconds). Per test the init kills after 300 s of
# guest time. A suite takes one to three minutes on an idle host; a loaded
# shared host can make that ten times longer, which must not fail it. A
# hang is caught sooner by silence: every test prints its block when it
# ends, so no output for longer than the per-test limit means a stuck
# kernel (or init).
RUN_TIMEOUT = 3600.0
KEVLAR_TIMEOUT = 3600.0
QUIET_TIMEOUT = 420.0

BEGIN_RE = re.compile(r"^=== CONTRACT (\S+)\s*$")
END_RE = re.compile(r"^=== END (\S+) status=(.+?)\s*$")
DONE_RE = re.compile(r"^=== ALL DONE\s*$")
# Linux kernel log lines (printk with timestamps) that may land on the
# console between or inside blocks; they are not part of any test's output.
KLOG_RE = re.compile(r"^\[\s*\d+\.\d+\] ")


if TOOLS_DIR not in sys.path:
    sys.path.insert(0, TOOLS_DIR)
from toolload import load as _load  # noqa: E402 (after the path)


# ---------------------------------------------------------------------------
# Parsing and comparison (pure functions of text)
# ---------------------------------------------------------------------------

@dataclasses.dataclass
class Block:
    name: str  # "<area>/<name>"
    lines: list  # output lines, without the markers
    status: Optional[str]  # "exit 0", "signal SIGSEGV"; None if the END line is missing

    @property
    def complete(self) -> bool:
        return self.status is not None

    def text(self) -> str:
        return "\n".join(self.lines + [f"status={self.status}"])


@dataclasses.dataclass
class Run:
    blocks: dict  # name -> Block
    order: list  # names in output order
    all_done: bool


def parse_blocks(text: str) -> Run:
    """Split a console log into per-test blocks. Lines outside blocks are
    ignored; a block cut off by a crash has status None."""
    blocks, order = {}, []
    cur: Optional[Block] = None
    all_done = False
    for raw in text.splitlines():
        line = raw.rstrip("\r")
        m = BEGIN_RE.match(line)
        if m:
            cur = Block(m.group(1), [], None)
            blocks[cur.name] = cur
            if cur.name not in order:
                order.append(cur.name)
            continue
        m = END_RE.match(line)
        if m and cur is not None and m.group(1) == cur.name:
            cur.status = m.group(2)
            cur = None
            continue
        if DONE_RE.match(line):
            all_done = True
            cur = None
            continue
        if cur is not None and not KLOG_RE.match(line):
            cur.lines.append(line)
    return Run(blocks, order, all_done)


def first_difference(a: Block, b: Block) -> Optional[str]:
    """None if equal, else a description of the first differing line
    (a = linux, b = kevlar)."""
    la = a.lines + [f"status={a.status}"]
    lb = b.lines + [f"status={b.status}"] if b.complete else b.lines
    for i in range(max(len(la), len(lb))):
        x = la[i] if i < len(la) else "<no line>"
        y = lb[i] if i < len(lb) else "<no line>"
        if x != y:
            if not b.complete and i >= len(lb):
                return (f"line {i + 1}: linux={x!r} kevlar=<output ends: the test did not "
                        f"finish (kernel crashed or hung)>")
            return f"line {i + 1}: linux={x!r} kevlar={y!r}"
    return None


def compare_runs(linux: Run, kevlar: Run, kevlar_note: str = "") -> list:
    """[(name, passed, reason)] for every test in the Linux run, in order."""
    results = []
    note = f" ({kevlar_note})" if kevlar_note else ""
    for name in linux.order:
        lb = linux.blocks[name]
        kb = kevlar.blocks.get(name)
        if kb is None:
            if not kevlar.order:
                why = "no contract output from Kevlar at all: it did not run the init" + note
            else:
                why = "no block from Kevlar: the run ended before this test" + note
            results.append((name, False, why))
            continue
        diff = first_difference(lb, kb)
        results.append((name, diff is None, diff or ""))
    return results


def compare_outputs(linux_text: str, kevlar_text: str, kevlar_note: str = "") -> list:
    return compare_runs(parse_blocks(linux_text), parse_blocks(kevlar_text), kevlar_note)


# ---------------------------------------------------------------------------
# Building
# ---------------------------------------------------------------------------

@dataclasses.dataclass
class Test:
    area: str
    name: str
    src: str
    out: Optional[str] = None  # what goes in the image; None: the compiled program

    @property
    def id(self) -> str:
        return f"{self.area}/{self.name}"

    @property
    def exe(self) -> str:
        return self.out or os.path.join(OUT_DIR, self.area, self.name)

    @property
    def guest(self) -> str:
        return f"{GUEST_ROOT}/{self.area}/{self.name}"


# Set by `--only`: the areas or area/name ids a run is limited to (all when empty).
ONLY: list = []


def selected(tests: list) -> list:
    """The tests `--only` names (all of them without it). A subset makes a
    smaller image, so Linux's output for it is cached under its own key."""
    if not ONLY:
        return tests
    return [t for t in tests if t.area in ONLY or t.id in ONLY]


def discover() -> list:
    """Every userland/contracts/<area>/<name>.c, areas in AREAS order."""
    found = []
    dirs = sorted(d for d in os.listdir(SRC_DIR)
                  if os.path.isdir(os.path.join(SRC_DIR, d)) and d not in NOT_AREAS)
    ordered = [a for a in AREAS if a in dirs] + [d for d in dirs if d not in AREAS]
    for area in ordered:
        for f in sorted(os.listdir(os.path.join(SRC_DIR, area))):
            if f.endswith(".c") or (area == GLIBC_AREA and f.endswith(".cc")):
                found.append(Test(area, f.rsplit(".", 1)[0], os.path.join(SRC_DIR, area, f)))
    return selected(found)


def helper_sources() -> list:
    """(kind, src, out path, guest path) for every helper: C programs are
    compiled, anything else (scripts) is copied as an executable file."""
    hdir = os.path.join(SRC_DIR, "helpers")
    items = []
    if not os.path.isdir(hdir):
        return items
    for f in sorted(os.listdir(hdir)):
        src = os.path.join(hdir, f)
        if not os.path.isfile(src) or f.startswith(".") or f.endswith((".h", ".md")):
            continue
        if f.endswith(".c"):
            items.append(("c", src, os.path.join(OUT_DIR, "helpers", f[:-2]),
                          f"{GUEST_ROOT}/helpers/{f[:-2]}"))
        else:
            items.append(("copy", src, os.path.join(OUT_DIR, "helpers", f),
                          f"{GUEST_ROOT}/helpers/{f}"))
    return items


def _stale(out: str, deps: list) -> bool:
    if not os.path.exists(out):
        return True
    t = os.path.getmtime(out)
    return any(os.path.getmtime(d) > t for d in deps)


def _compile_cmd(src: str, out: str) -> list:
    """musl-gcc -static, except for the glibc area (dynamic, host gcc/g++)."""
    if os.path.dirname(src) == os.path.join(GLIBC_SRC, "lib"):
        return ["/usr/bin/gcc"] + GLIBC_CFLAGS + ["-shared", "-fPIC",
                                                  f"-Wl,-soname,{os.path.basename(out)}",
                                                  "-o", out, src]
    if os.path.dirname(src) == GLIBC_SRC:
        cc = "/usr/bin/g++" if src.endswith(".cc") else "/usr/bin/gcc"
        return [cc] + GLIBC_CFLAGS + ["-I", SRC_DIR, "-o", out, src, "-L", GLIBC_LIB_OUT,
                                      f"-Wl,-rpath,{GLIBC_LIB_GUEST}", "-Wl,--as-needed"] \
            + [f"-l{n[3:-3]}" for n in glibc_libs()] + ["-ldl"]
    return [CC] + CFLAGS + ["-I", SRC_DIR, "-o", out, src]


def glibc_libs() -> list:
    """The glibc area's own shared libraries: lib/libX.c -> libX.so."""
    d = os.path.join(GLIBC_SRC, "lib")
    if not os.path.isdir(d):
        return []
    return sorted(f[:-2] + ".so" for f in os.listdir(d) if f.startswith("lib") and f.endswith(".c"))


def _ldd(path: str) -> list:
    """The host paths of the loader and libraries `path` needs (ldd)."""
    env = dict(os.environ, LD_LIBRARY_PATH=GLIBC_LIB_OUT)
    r = subprocess.run(["ldd", path], capture_output=True, text=True, env=env)
    if r.returncode != 0:
        sys.exit(f"contracts: ldd {path} failed: {r.stdout}{r.stderr}")
    found = []
    for line in r.stdout.splitlines():
        if "not found" in line:
            sys.exit(f"contracts: ldd {path}: {line.strip()}")
        m = re.search(r"=> (/\S+)", line) or re.match(r"\s*(/\S+) \(", line)
        if m:
            found.append(m.group(1))
    return found


def glibc_image_entries(bi, programs: list) -> list:
    """Image entries for the glibc area: the loader and the libraries the
    `programs` (host paths) need, transitively, at the paths ldd gives on
    the host (a symlink stays a symlink when its target is shipped too: the
    loader's /lib64 link); the libraries named in runtime-libs (a soname,
    looked up next to the others, or an absolute host path, file or
    directory, copied to the same path); and the tree under image/."""
    extra = []
    rt = os.path.join(GLIBC_SRC, "runtime-libs")
    if os.path.isfile(rt):
        with open(rt) as f:
            extra = [l.split("#")[0].strip() for l in f if l.split("#")[0].strip()]
    paths: set = set()

    def close_over(todo: list) -> None:
        while todo:
            for p in _ldd(todo.pop()):
                if not p.startswith(OUT_DIR) and p not in paths:
                    paths.add(p)
                    todo.append(p)

    close_over(list(programs))
    dirs = sorted({os.path.dirname(p) for p in paths})
    for name in (n for n in extra if not n.startswith("/")):
        hits = [os.path.join(d, name) for d in dirs if os.path.exists(os.path.join(d, name))]
        if not hits:
            sys.exit(f"contracts: runtime library {name} not found in {dirs}")
        if hits[0] not in paths:
            paths.add(hits[0])
            close_over([hits[0]])
    # A symlinked loader (/lib64 -> the multiarch directory): ship its target too.
    for p in list(paths):
        if os.path.islink(p):
            t = os.path.normpath(os.path.join(os.path.dirname(p), os.readlink(p)))
            if re.match(r".*/ld-linux[^/]*\.so", p):
                paths.add(t)
    entries = []
    for p in sorted(paths):
        t = os.path.normpath(os.path.join(os.path.dirname(p), os.readlink(p))) \
            if os.path.islink(p) else None
        if t in paths:
            entries.append(bi.Symlink(p, os.readlink(p)))
        else:
            entries.append(bi.File(p, os.path.realpath(p), 0o755))
    for name in extra:
        if not name.startswith("/"):
            continue
        if os.path.isdir(name):
            for dirpath, dirnames, filenames in os.walk(name):
                entries.append(bi.Dir(dirpath))
                entries += [bi.File(os.path.join(dirpath, f), os.path.join(dirpath, f), 0o644)
                            for f in sorted(filenames)]
        else:
            entries.append(bi.File(name, name, 0o644))
    tree = os.path.join(GLIBC_SRC, "image")
    for dirpath, dirnames, filenames in os.walk(tree):
        rel = "/" + os.path.relpath(dirpath, tree)
        if rel != "/.":
            entries.append(bi.Dir(rel))
        for f in sorted(filenames):
            entries.append(bi.File(os.path.normpath(os.path.join(rel, f)),
                                   os.path.join(dirpath, f), 0o644))
    for lib in glibc_libs():
        entries.append(bi.File(f"{GLIBC_LIB_GUEST}/{lib}", os.path.join(GLIBC_LIB_OUT, lib), 0o755))
    return entries


def _local_includes(src: str, seen: Optional[set] = None) -> list:
    """The headers `src` includes with `#include "..."`, transitively,
    looked up beside the including file and then in SRC_DIR (the -I the
    compile uses): a test is rebuilt when a header it uses changed."""
    seen = set() if seen is None else seen
    try:
        with open(src, errors="replace") as f:
            text = f.read()
    except OSError:
        return []
    for name in re.findall(r'^\s*#\s*include\s+"([^"]+)"', text, re.M):
        for d in (os.path.dirname(src), SRC_DIR):
            h = os.path.normpath(os.path.join(d, name))
            if os.path.isfile(h):
                if h not in seen:
                    seen.add(h)
                    _local_includes(h, seen)
                break
    return sorted(seen)


def _compile(src: str, out: str, extra_deps: list) -> Optional[str]:
    """Compile one program if stale; returns an error text or None."""
    deps = [src] + _local_includes(src) + extra_deps + [os.path.abspath(__file__)]
    if not _stale(out, deps):
        return None
    os.makedirs(os.path.dirname(out), exist_ok=True)
    cmd = _compile_cmd(src, out)
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        return f"{os.path.relpath(src, REPO_ROOT)}:\n{r.stderr}"
    if r.stderr.strip():
        # Warnings fail the build: -Wall hygiene keeps tests honest.
        try:
            os.unlink(out)
        except OSError:
            pass
        return f"{os.path.relpath(src, REPO_ROOT)} (warnings are errors):\n{r.stderr}"
    return None


def suite_cpio(suite: str = "contracts") -> str:
    return {"busybox": BUSYBOX_CPIO, "debian": DEBIAN_CPIO}.get(suite, CPIO)


def suite_of_initrd(initrd: Optional[str]) -> Optional[str]:
    """The suite whose image `initrd` is, or None if it is neither."""
    if not initrd:
        return None
    path = os.path.realpath(initrd)
    for suite in SUITES:
        if path == os.path.realpath(suite_cpio(suite)):
            return suite
    return None


def _log_name(suite: str, who: str, smp: int) -> str:
    prefix = suite if suite in ("busybox", "debian") else "contracts"
    return os.path.join(LOG_DIR, f"{prefix}-{who}-smp{smp}.log")


def discover_busybox() -> list:
    """Every userland/busybox/<name>.sh, by name; in the image at
    /contracts/busybox/<name>."""
    found = []
    if not os.path.isdir(BUSYBOX_SRC_DIR):
        return found
    for f in sorted(os.listdir(BUSYBOX_SRC_DIR)):
        if f.endswith(".sh") and not f.startswith("."):
            found.append(Test(BUSYBOX_AREA, f[:-3], os.path.join(BUSYBOX_SRC_DIR, f),
                              out=os.path.join(BUSYBOX_SRC_DIR, f)))
    return selected(found)


def _tool_path(name: str) -> str:
    for d in ("/sbin", "/usr/sbin", "/usr/bin", "/bin"):
        if os.path.exists(os.path.join(d, name)):
            return os.path.join(d, name)
    return name


def build_disk() -> str:
    """The BusyBox suite's ext2 image, made by `mke2fs -d` from
    userland/busybox-disk/ plus a generated 300 KiB big.bin (into the
    indirect blocks with 1 KiB blocks). Times, UUID and hash seed are fixed,
    so the same sources give the same file system; but mke2fs -d copies each
    file's ctime, which the host cannot set, so the bytes differ on every
    pack. The images are therefore made again only when their sources or
    this code changed (the Linux oracle's cache key includes their bytes)."""
    key = _disk_sources_key()
    key_file = DISK_IMAGE + ".key"
    if os.path.isfile(DISK_IMAGE) and os.path.isfile(DISK4_IMAGE) and os.path.isfile(key_file):
        with open(key_file) as f:
            if f.read() == key:
                return DISK_IMAGE
    stage = DISK_IMAGE + ".src"
    shutil.rmtree(stage, ignore_errors=True)
    shutil.copytree(DISK_SRC_DIR, stage, symlinks=True, ignore=shutil.ignore_patterns("README"))
    x = 12345
    big = bytearray()
    for _ in range(300 * 1024):
        x = (x * 1103515245 + 12345) & 0x7fffffff
        big.append((x >> 16) & 0xff)
    with open(os.path.join(stage, "big.bin"), "wb") as f:
        f.write(big)
    fixed = 1_600_000_000
    for dirpath, dirnames, filenames in os.walk(stage):
        for name in dirnames + filenames:
            os.utime(os.path.join(dirpath, name), (fixed, fixed), follow_symlinks=False)
    os.utime(stage, (fixed, fixed))
    tmp = DISK_IMAGE + ".tmp"
    with open(tmp, "wb") as f:
        f.truncate(DISK_SIZE)
    env = dict(os.environ, E2FSPROGS_FAKE_TIME=str(fixed))
    r = subprocess.run([_tool_path("mke2fs"), "-q", "-F", "-t", "ext2", "-b", "1024",
                        "-U", "6b6576c1-6172-4578-b432-000000000001",
                        "-E", "root_owner=0:0,hash_seed=6b6576c1-6172-4578-b432-000000000002",
                        "-d", stage, tmp], capture_output=True, text=True, env=env)
    if r.returncode == 0:
        tmp4 = DISK4_IMAGE + ".tmp"
        with open(tmp4, "wb") as f:
            f.truncate(DISK4_SIZE)
        r = subprocess.run([_tool_path("mke2fs"), "-q", "-F", "-t", "ext4",
                            "-U", "6b6576c1-6172-4578-b432-000000000003",
                            "-E", "root_owner=0:0,hash_seed=6b6576c1-6172-4578-b432-000000000004",
                            "-d", stage, tmp4], capture_output=True, text=True, env=env)
        if r.returncode == 0:
            r = journal_pending_write(tmp4, stage, env)
        if r.returncode == 0:
            os.replace(tmp4, DISK4_IMAGE)
    shutil.rmtree(stage, ignore_errors=True)
    if r.returncode != 0:
        sys.exit(f"contracts: mke2fs failed (apt-get install e2fsprogs): {r.stderr}")
    os.replace(tmp, DISK_IMAGE)
    with open(key_file, "w") as f:
        f.write(key)
    return DISK_IMAGE


def _disk_sources_key() -> str:
    """What the BusyBox suite's disk images are made from: every file under
    DISK_SRC_DIR (path, mode, bytes or link target) and the code that packs
    them."""
    import inspect
    h = hashlib.sha256()
    for fn in (build_disk, journal_pending_write):
        h.update(inspect.getsource(fn).encode())
    h.update(f"{DISK_SIZE} {DISK4_SIZE}".encode())
    for dirpath, dirnames, filenames in os.walk(DISK_SRC_DIR):
        dirnames.sort()
        for name in sorted(filenames):
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, DISK_SRC_DIR)
            st = os.lstat(path)
            h.update(f"{rel} {st.st_mode:o}\0".encode())
            if os.path.islink(path):
                h.update(os.readlink(path).encode())
            else:
                with open(path, "rb") as f:
                    h.update(hashlib.sha256(f.read()).digest())
    return h.hexdigest()


def journal_pending_write(image: str, stage: str, env: dict):
    """Leaves a committed transaction in the ext4 image's journal, as a
    crash would (debugfs's journal_open/write/close, with checksums): new
    bytes for hello.txt's block, so the first mount must replay it
    (ext4-disk.sh reads them)."""
    def run(*args):
        return subprocess.run([_tool_path(args[0]), *args[1:]], capture_output=True, text=True, env=env)
    r = run("dumpe2fs", "-h", image)
    if r.returncode != 0:
        return r
    block_size = int(re.search(r"^Block size:\s+(\d+)", r.stdout, re.M).group(1))
    r = run("debugfs", "-R", "bmap hello.txt 0", image)
    if r.returncode != 0:
        return r
    block = int(r.stdout.split()[-1])
    data = os.path.join(stage, ".journal-block")
    with open(data, "wb") as f:
        f.write(b"HELLO FROM THE LOG!\n".ljust(block_size, b"\0"))
    cmds = os.path.join(stage, ".journal-commands")
    with open(cmds, "w") as f:
        f.write(f"jo -c\njw -b {block} {data}\njc\n")
    return run("debugfs", "-w", "-f", cmds, image)


def fresh_disks(suite: str, who: str, smp: int) -> list:
    """The disk images a run of `suite` gets: for the BusyBox suite a fresh
    copy of its ext2 image per kernel and CPU count (the run writes to it),
    kept after the run for `disk_checks`; none for the C contracts."""
    if suite == DEBIAN_AREA:
        return [debian_disk_copy(who, smp), scratch_copy(who, smp), debian_blank_disk(who, smp)]
    if suite != "busybox":
        return []
    if not os.path.isfile(DISK_IMAGE) or not os.path.isfile(DISK4_IMAGE):
        build_disk()
    copy = os.path.join(BUSYBOX_OUT_DIR, f"disk-{who}-smp{smp}.img")
    shutil.copyfile(DISK_IMAGE, copy)
    copy4 = os.path.join(BUSYBOX_OUT_DIR, f"disk4-{who}-smp{smp}.img")
    shutil.copyfile(DISK4_IMAGE, copy4)
    return [copy, copy4]


def disk_checks(suite: str, smp: int) -> list:
    """After Kevlar's run of `suite`: `e2fsck -fn` on the disk it wrote, as
    one more outcome: contract:busybox/ext2-e2fsck[smpN] and
    ext4-e2fsck[smpN] for the BusyBox suite's two disks,
    contract:debian/scratch-e2fsck[smpN] for the Debian suite's scratch
    disk."""
    if suite == DEBIAN_AREA:
        checks = [(f"contract:{DEBIAN_AREA}/scratch-e2fsck[smp{smp}]",
                   os.path.join(DEBIAN_OUT_DIR, f"scratch-kevlar-smp{smp}.img"))]
    elif suite == "busybox":
        checks = [(f"contract:{BUSYBOX_AREA}/{kind}-e2fsck[smp{smp}]",
                   os.path.join(BUSYBOX_OUT_DIR, f"{prefix}-kevlar-smp{smp}.img"))
                  for kind, prefix in (("ext2", "disk"), ("ext4", "disk4"))]
    else:
        return []
    out = []
    for name, disk in checks:
        if not os.path.isfile(disk):
            out.append((name, False, f"no disk from Kevlar's run at {os.path.relpath(disk, REPO_ROOT)}"))
            continue
        r = subprocess.run([_tool_path("e2fsck"), "-fn", disk], capture_output=True, text=True)
        if r.returncode != 0:
            lines = [l for l in (r.stdout + r.stderr).splitlines() if l.strip()]
            out.append((name, False, f"e2fsck -fn status {r.returncode}: " + " | ".join(lines[:6])))
        else:
            out.append((name, True, "clean"))
    return out


def build_busybox(quiet: bool = False) -> list:
    """The BusyBox suite's image: contract-init as /init, BusyBox and its
    applet links, the scripts (mode 755) and the list. Returns the tests."""
    if not os.path.exists(CC):
        sys.exit(f"contracts: {CC} not found (apt-get install musl-tools)")
    bi = _load("build_initramfs", "build-initramfs.py")
    if not os.path.exists(bi.DEFAULT_BUSYBOX):
        sys.exit(f"contracts: {bi.DEFAULT_BUSYBOX} not found (apt-get install busybox-static)")
    tests = discover_busybox()
    bad = []
    for t in tests:
        with open(t.src, "rb") as f:
            if f.readline().rstrip(b"\n") != b"#!/bin/sh":
                bad.append(os.path.relpath(t.src, REPO_ROOT))
    if bad:
        sys.exit(f"contracts: scripts must start with `#!/bin/sh`: {', '.join(bad)}")
    init_exe = os.path.join(BUSYBOX_OUT_DIR, "init")
    err = _compile(INIT_SRC, init_exe, [])
    if err:
        sys.stderr.write(err)
        sys.exit("contracts: the init failed to build")
    list_file = os.path.join(BUSYBOX_OUT_DIR, "list")
    with open(list_file, "w") as f:
        for t in tests:
            f.write(t.guest + "\n")
    entries = [bi.File("/init", init_exe, 0o755), bi.File(f"{GUEST_ROOT}/list", list_file, 0o644),
               bi.Dir("/dev"), bi.Dir("/proc", 0o555), bi.Dir("/tmp", 0o1777),
               bi.Dir("/bin"), bi.Dir("/root", 0o700)]
    entries += bi.busybox_entries()
    for t in tests:
        entries.append(bi.File(t.guest, t.exe, 0o755))
    # C programs for what BusyBox has no applet for (mmap):
    # userland/busybox/helpers/<name>.c -> /bin/<name>.
    helper_dir = os.path.join(BUSYBOX_SRC_DIR, "helpers")
    for f in sorted(os.listdir(helper_dir)) if os.path.isdir(helper_dir) else []:
        if f.endswith(".c"):
            exe = os.path.join(BUSYBOX_OUT_DIR, "helpers", f[:-2])
            os.makedirs(os.path.dirname(exe), exist_ok=True)
            err = _compile(os.path.join(helper_dir, f), exe, [])
            if err:
                sys.stderr.write(err)
                sys.exit(f"contracts: busybox helper {f} failed to build")
            entries.append(bi.File(f"/bin/{f[:-2]}", exe, 0o755))
    # The modules Linux needs for ext2-disk.sh (Kevlar has it built in).
    # Without the kernel package (no apt) the image is built without them:
    # Linux's ext2-disk.sh then fails, and says why in its output.
    entries += [bi.Dir("/lib"), bi.Dir("/lib/modules"), bi.Dir("/lib/modules/oracle")]
    try:
        modules = oracle().disk_modules()
    except Exception as e:
        print(f"contracts: no Linux modules for the ext2 disk test: {e}", file=sys.stderr)
        modules = []
    for path in modules:
        entries.append(bi.File(f"/lib/modules/oracle/{os.path.basename(path)}", path, 0o644))
    build_disk()
    bi.build(entries, BUSYBOX_CPIO)
    if not quiet:
        print(f"contracts: busybox suite, {len(tests)} scripts -> "
              f"{os.path.relpath(BUSYBOX_CPIO, REPO_ROOT)}")
    return tests


def discover_debian() -> list:
    """Every userland/debian/<name>.sh, by name; in the Debian image at
    /contracts/debian/<name>."""
    if not os.path.isdir(DEBIAN_SRC_DIR):
        return []
    return selected([Test(DEBIAN_AREA, f[:-3], os.path.join(DEBIAN_SRC_DIR, f),
                          out=os.path.join(DEBIAN_SRC_DIR, f))
                     for f in sorted(os.listdir(DEBIAN_SRC_DIR))
                     if f.endswith(".sh") and not f.startswith(".")])


def debian_disk() -> str:
    return _load("build_debian_root", "build-debian-root.py").IMAGE


def debian_disk_copy(who: str, smp: int) -> str:
    """A fresh (sparse) copy of the Debian image for one run: the root is
    mounted read-only, but a run must never change the bytes the oracle's
    cache is keyed by."""
    if not os.path.isfile(debian_disk()):
        build_debian(quiet=True)
    copy = os.path.join(DEBIAN_OUT_DIR, f"disk-{who}-smp{smp}.img")
    subprocess.run(["cp", "--sparse=always", debian_disk(), copy], check=True)
    return copy


# The Debian suite's second disk: an empty ext4 file system debian-init
# mounts read-write on /mnt, where scripts write through the page cache
# to a disk (sqlite3, git). Fixed UUID, hash seed and time: the same bytes
# every build (the oracle's cache key includes them).
SCRATCH_IMAGE = os.path.join(DEBIAN_OUT_DIR, "scratch.img")
SCRATCH_SIZE = 128 << 20


def build_scratch() -> str:
    os.makedirs(DEBIAN_OUT_DIR, exist_ok=True)
    tmp = SCRATCH_IMAGE + ".tmp"
    with open(tmp, "wb") as f:
        f.truncate(SCRATCH_SIZE)
    fixed = 1_600_000_000
    env = dict(os.environ, E2FSPROGS_FAKE_TIME=str(fixed))
    r = subprocess.run([_tool_path("mke2fs"), "-q", "-F", "-t", "ext4", "-L", "scratch",
                        "-U", "6b6576c1-6172-4578-b432-0000000000e1",
                        "-E", "root_owner=0:0,hash_seed=6b6576c1-6172-4578-b432-0000000000e2",
                        tmp], capture_output=True, text=True, env=env)
    if r.returncode != 0:
        sys.exit(f"contracts: mke2fs failed (apt-get install e2fsprogs): {r.stderr}")
    os.replace(tmp, SCRATCH_IMAGE)
    return SCRATCH_IMAGE


def scratch_copy(who: str, smp: int) -> str:
    """A fresh copy of the empty scratch disk for one run, kept after it
    for `disk_checks`."""
    if not os.path.isfile(SCRATCH_IMAGE):
        build_scratch()
    copy = os.path.join(DEBIAN_OUT_DIR, f"scratch-{who}-smp{smp}.img")
    subprocess.run(["cp", "--sparse=always", SCRATCH_IMAGE, copy], check=True)
    return copy


def build_debian_progs() -> list:
    """userland/debian/progs/*.c, the programs the Debian scripts debug:
    built with the host's gcc (Debian's, as the root's) with debug
    information naming their sources where the image has them,
    /contracts/debian-progs/. Returns the image entries (programs and
    sources)."""
    src_dir = os.path.join(DEBIAN_SRC_DIR, "progs")
    if not os.path.isdir(src_dir):
        return []
    guest_dir = f"{GUEST_ROOT}/debian-progs"
    entries = []
    for f in sorted(os.listdir(src_dir)):
        if not f.endswith(".c"):
            continue
        src, out = os.path.join(src_dir, f), os.path.join(DEBIAN_OUT_DIR, "progs", f[:-2])
        if _stale(out, [src, os.path.abspath(__file__)]):
            os.makedirs(os.path.dirname(out), exist_ok=True)
            r = subprocess.run(["/usr/bin/gcc", "-g", "-O0", "-Wall", "-pthread",
                                f"-fdebug-prefix-map={src_dir}={guest_dir}", "-o", out, src],
                               capture_output=True, text=True, cwd=src_dir)
            if r.returncode != 0 or r.stderr.strip():
                sys.exit(f"contracts: {os.path.relpath(src, REPO_ROOT)} failed to build:\n{r.stderr}")
        entries += [(f"{guest_dir}/{f[:-2]}", out, 0o755), (f"{guest_dir}/{f}", src, 0o644)]
    return entries


# A blank third disk (vdc) for the Debian suite's block-device scripts
# (partition tables, mkfs, mount): zeros, fresh for every run.
DEBIAN_BLANK_SIZE = 64 << 20


def debian_blank_disk(who: str, smp: int) -> str:
    os.makedirs(DEBIAN_OUT_DIR, exist_ok=True)
    path = os.path.join(DEBIAN_OUT_DIR, f"blank-{who}-smp{smp}.img")
    if os.path.exists(path):
        os.remove(path)
    with open(path, "wb") as f:
        f.truncate(DEBIAN_BLANK_SIZE)
    return path


def build_debian(quiet: bool = False) -> list:
    """The Debian suite: the ext2 root (Debian packages, contract-init at
    /contracts/init, the scripts and their list) and the initramfs that
    boots into it (debian-init, the oracle's modules, /modules.list)."""
    if not os.path.exists(CC):
        sys.exit(f"contracts: {CC} not found (apt-get install musl-tools)")
    tests = discover_debian()
    bad = []
    for t in tests:
        with open(t.src, "rb") as f:
            if f.readline().rstrip(b"\n") != b"#!/bin/bash":
                bad.append(os.path.relpath(t.src, REPO_ROOT))
    if bad:
        sys.exit(f"contracts: Debian scripts must start with `#!/bin/bash`: {', '.join(bad)}")
    inits = {"contract-init": INIT_SRC, "debian-init": DEBIAN_INIT_SRC}
    for name, src in inits.items():
        err = _compile(src, os.path.join(DEBIAN_OUT_DIR, name), [])
        if err:
            sys.stderr.write(err)
            sys.exit(f"contracts: {name} failed to build")
    list_file = os.path.join(DEBIAN_OUT_DIR, "list")
    with open(list_file, "w") as f:
        for t in tests:
            f.write(t.guest + "\n")
    extra = [(f"{GUEST_ROOT}/init", os.path.join(DEBIAN_OUT_DIR, "contract-init"), 0o755),
             (f"{GUEST_ROOT}/list", list_file, 0o644)]
    extra += [(t.guest, t.exe, 0o755) for t in tests]
    extra += build_debian_progs()
    _load("build_debian_root", "build-debian-root.py").build_image(extra)
    bi = _load("build_initramfs", "build-initramfs.py")
    entries = [bi.File("/init", os.path.join(DEBIAN_OUT_DIR, "debian-init"), 0o755),
               bi.Dir("/dev"), bi.Dir("/root", 0o700), bi.Dir("/lib/modules/oracle")]
    try:
        # The Debian suite boots with a network card (eth0, for `ip`), and
        # sock_diag's handlers (for `ss`, which Kevlar answers over them).
        modules = oracle().disk_modules(with_net=True) + oracle().modules(oracle().DIAG_MODULES)
    except Exception as e:
        print(f"contracts: no Linux modules for the Debian disk: {e}", file=sys.stderr)
        modules = []
    guest_modules = [f"/lib/modules/oracle/{os.path.basename(p)}" for p in modules]
    mod_list = os.path.join(DEBIAN_OUT_DIR, "modules.list")
    with open(mod_list, "w") as f:
        f.write("".join(g + "\n" for g in guest_modules))
    entries.append(bi.File("/modules.list", mod_list, 0o644))
    entries += [bi.File(g, p, 0o644) for g, p in zip(guest_modules, modules)]
    bi.build(entries, DEBIAN_CPIO)
    if not quiet:
        print(f"contracts: Debian suite, {len(tests)} scripts -> "
              f"{os.path.relpath(DEBIAN_CPIO, REPO_ROOT)} + "
              f"{os.path.relpath(debian_disk(), REPO_ROOT)}")
    return tests


# The sock_diag tests load Linux's diag modules from /lib/modules/oracle
# (sockdiag/sockdiag.h); only an image with them carries the modules.
SOCKDIAG_AREA = "sockdiag"


def sockdiag_modules(bi) -> list:
    """Image entries for the oracle's sock_diag handler modules (none
    without the kernel package: Linux's answers then say ENOENT)."""
    entries = [bi.Dir("/lib"), bi.Dir("/lib/modules"), bi.Dir("/lib/modules/oracle")]
    try:
        paths = oracle().modules(oracle().DIAG_MODULES)
    except Exception as e:
        print(f"contracts: no Linux modules for the sockdiag tests: {e}", file=sys.stderr)
        paths = []
    return entries + [bi.File(f"/lib/modules/oracle/{os.path.basename(p)}", p, 0o644) for p in paths]


def build(quiet: bool = False, include_busybox: bool = False, suite: str = "contracts") -> list:
    """Compile all tests, helpers and the init; write the list and the cpio.
    Returns the tests. Raises SystemExit on a compile error. With
    suite="busybox", build the BusyBox suite's image instead."""
    if suite == "busybox":
        return build_busybox(quiet)
    if suite == DEBIAN_AREA:
        return build_debian(quiet)
    if not os.path.exists(CC):
        sys.exit(f"contracts: {CC} not found (apt-get install musl-tools)")
    tests = discover()
    for cc, pkg in (("/usr/bin/gcc", "gcc"), ("/usr/bin/g++", "g++")):
        if any(t.area == GLIBC_AREA for t in tests) and not os.path.exists(cc):
            sys.exit(f"contracts: {cc} not found (apt-get install {pkg})")
    common = [os.path.join(SRC_DIR, "common.h")]
    jobs = [(t.src, t.exe) for t in tests]
    helpers = helper_sources()
    jobs += [(src, out) for kind, src, out, _ in helpers if kind == "c"]
    init_exe = os.path.join(OUT_DIR, "init")
    jobs.append((INIT_SRC, init_exe))
    # The glibc area's shared libraries first: its tests link with them.
    errors = [e for e in (_compile(os.path.join(GLIBC_SRC, "lib", lib[:-3] + ".c"),
                                   os.path.join(GLIBC_LIB_OUT, lib), []) for lib in glibc_libs()) if e]
    glibc_deps = [os.path.join(GLIBC_LIB_OUT, lib) for lib in glibc_libs()]
    jobs = [(s, o, glibc_deps if os.path.dirname(s) == GLIBC_SRC else []) for s, o in jobs]
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as ex:
        for err in ex.map(lambda j: _compile(j[0], j[1], common + j[2]), jobs):
            if err:
                errors.append(err)
    if errors:
        sys.stderr.write("\n".join(errors))
        sys.exit(f"contracts: {len(errors)} program(s) failed to build")
    for kind, src, out, _ in helpers:
        if kind == "copy":
            os.makedirs(os.path.dirname(out), exist_ok=True)
            shutil.copyfile(src, out)
            os.chmod(out, 0o755)

    list_file = os.path.join(OUT_DIR, "list")
    with open(list_file, "w") as f:
        for t in tests:
            f.write(t.guest + "\n")

    bi = _load("build_initramfs", "build-initramfs.py")
    entries = [bi.File("/init", init_exe, 0o755), bi.File(f"{GUEST_ROOT}/list", list_file, 0o644),
               bi.Dir("/dev"), bi.Dir("/proc", 0o555), bi.Dir("/tmp", 0o1777),
               bi.Dir("/bin"), bi.Dir("/root", 0o700)]
    for t in tests:
        entries.append(bi.File(t.guest, t.exe, 0o755))
    for _, _, out, guest in helpers:
        # setuid-* helpers are set-user-id and set-group-id root (perm/setuid-exec).
        mode = 0o6755 if os.path.basename(guest).startswith("setuid-") else 0o755
        entries.append(bi.File(guest, out, mode))
    glibc_tests = [t.exe for t in tests if t.area == GLIBC_AREA]
    if glibc_tests:
        entries += glibc_image_entries(bi, glibc_tests)
    if any(t.area == SOCKDIAG_AREA for t in tests):
        entries += sockdiag_modules(bi)
    if include_busybox:
        entries += bi.busybox_entries()
    bi.build(entries, CPIO)
    if not quiet:
        counts = area_counts(tests)
        print(f"contracts: {len(tests)} tests ({', '.join(f'{a} {n}' for a, n in counts.items())}), "
              f"{len(helpers)} helpers -> {os.path.relpath(CPIO, REPO_ROOT)}")
    return tests


def area_counts(tests: list) -> dict:
    counts: dict = {}
    for t in tests:
        counts[t.area] = counts.get(t.area, 0) + 1
    return counts


# ---------------------------------------------------------------------------
# Running
# ---------------------------------------------------------------------------

def oracle():
    return _load("linux_oracle", "linux-oracle.py")


# contract-init's note that a test ran past its limit and was killed.
KILLED_MARKER = "(contract-init: killed after"
LINUX_ATTEMPTS = 3


def run_linux(smp: int = 1, append: str = "", use_cache: bool = True, echo: bool = False,
              suite: str = "contracts"):
    """Linux's output for the suite's current image (cached).

    A run in which contract-init had to kill a test is booted again (up to
    LINUX_ATTEMPTS runs in all): on a busy host, or with a test whose
    outcome depends on timing, one Linux run can hang where the next does
    not, and a hung oracle is no answer to compare Kevlar with (such runs
    are never cached, so a clean clone's CI would meet them)."""
    lo = oracle()
    os.makedirs(LOG_DIR, exist_ok=True)
    res = None
    for _ in range(LINUX_ATTEMPTS):
        res = lo.run_initramfs(suite_cpio(suite), smp=smp, append=append, timeout=RUN_TIMEOUT,
                               use_cache=use_cache, echo=echo, log=_log_name(suite, "linux", smp),
                               disks=tuple(fresh_disks(suite, "linux", smp)),
                               quiet_timeout=QUIET_TIMEOUT, require="=== ALL DONE",
                               virtio_net=suite == DEBIAN_AREA)
        if KILLED_MARKER not in res.output:
            break
        print(f"contracts: Linux's {suite} run at smp{smp} killed a test; booting it again",
              file=sys.stderr)
    return res


def run_kevlar(kernel: str, smp: int = 1, append: str = "", echo: bool = False,
               timeout: float = KEVLAR_TIMEOUT, suite: str = "contracts"):
    rq = _load("run_qemu", "run-qemu.py")
    os.makedirs(LOG_DIR, exist_ok=True)
    opts = rq.Options(kernel=kernel, initrd=suite_cpio(suite), append=append, smp=smp,
                      timeout=timeout, quiet_timeout=QUIET_TIMEOUT, echo=echo,
                      log=_log_name(suite, "kevlar", smp),
                      disks=fresh_disks(suite, "kevlar", smp), virtio_net=suite == DEBIAN_AREA,
                      dump_on_hang=True)
    return rq.run(opts)


def _guess_suite(kevlar_output: str) -> str:
    """Without an initrd to go by: the BusyBox suite if every block Kevlar
    printed is one of its scripts, else the C contracts."""
    order = parse_blocks(kevlar_output).order
    for suite, area in (("busybox", BUSYBOX_AREA), ("debian", DEBIAN_AREA)):
        if order and all(n.startswith(area + "/") for n in order):
            return suite
    return "contracts"


def judge_kevlar_output(kevlar_output: str, smp: int = 1, append: str = "",
                        kevlar_note: str = "", suite: Optional[str] = None,
                        initrd: Optional[str] = None) -> list:
    """Compare a Kevlar serial log of a suite's image (build/contracts.cpio,
    or build/busybox-suite.cpio) with Linux's output for the same image, CPU
    count and extra command line (Linux is booted only if its output is not
    cached). Returns [(name, passed, reason)] with names like
    `contract:fs/open-creat-excl[smp1]` or `contract:busybox/sh-pipeline[smp1]`.
    This is what tools/run-tests.py calls with the Result of its own Kevlar
    run; `kevlar_note` (e.g. Result.describe()) explains missing blocks.
    The suite is `suite`, else the one `initrd` is the image of, else guessed
    from the block names in the log (C contracts when there are none)."""
    suite = suite or suite_of_initrd(initrd) or _guess_suite(kevlar_output)
    try:
        lin = run_linux(smp, append, suite=suite)
    except Exception as e:  # no apt, no network: one clear failure, not a traceback
        return [(f"contract:linux-oracle[smp{smp}]", False, f"cannot run the Linux oracle: {e}")]
    if not lin.ok:
        return [(f"contract:linux-oracle[smp{smp}]", False,
                 f"Linux run failed (QEMU status {lin.exit_status}); "
                 f"see {os.path.relpath(_log_name(suite, 'linux', smp), REPO_ROOT)}")]
    if not parse_blocks(kevlar_output).all_done and not kevlar_note:
        kevlar_note = "Kevlar's run ended without `=== ALL DONE`"
    return [(f"contract:{name}[smp{smp}]", ok, reason)
            for name, ok, reason in compare_outputs(lin.output, kevlar_output, kevlar_note)] \
        + disk_checks(suite, smp)


def run_compare(kernel: str, smp: int = 1, append: str = "", echo: bool = False,
                timeout: float = KEVLAR_TIMEOUT, suite: str = "contracts") -> list:
    """Build, run under Kevlar and Linux (cached), and compare.
    Returns [(test name like `contract:fs/open-creat-excl[smp1]`, passed, reason)]."""
    build(quiet=True, suite=suite)
    kev = run_kevlar(kernel, smp, append, echo, timeout, suite)
    note = "" if parse_blocks(kev.output).all_done else kev.describe()
    return judge_kevlar_output(kev.output, smp, append, note, suite=suite)


def _print_run(run: Run, tests: list) -> tuple:
    ok = 0
    for name in run.order:
        b = run.blocks[name]
        print(f"=== {name}")
        for line in b.lines:
            print(f"    {line}")
        print(f"    status={b.status if b.complete else '<missing: run ended>'}")
        if b.status == "exit 0":
            ok += 1
    missing = [t.id for t in tests if t.id not in run.blocks]
    return ok, missing


def cmd_linux(ns) -> int:
    tests = build(suite=ns.suite)
    res = run_linux(ns.smp, ns.append, not ns.no_cache, ns.verbose, ns.suite)
    run = parse_blocks(res.output)
    ok, missing = _print_run(run, tests)
    how = "cached" if res.cached else f"booted in {res.elapsed_s:.1f}s"
    print(f"linux (smp{ns.smp}, {how}): {len(run.order)} tests ran, {ok} exited 0"
          + (f"; missing: {', '.join(missing)}" if missing else "")
          + ("" if run.all_done else "; no `=== ALL DONE`"))
    return 0 if res.ok and ok == len(tests) and not missing else 1


def cmd_compare(ns) -> int:
    if not os.path.isfile(ns.kernel):
        print(f"contracts: kernel not found: {ns.kernel}", file=sys.stderr)
        return 1
    passed = failed = 0
    for smp in ns.smp:
        for name, ok, reason in run_compare(ns.kernel, smp, ns.append, ns.verbose, ns.timeout,
                                            ns.suite):
            if ok:
                passed += 1
                print(f"PASS {name}")
            else:
                failed += 1
                print(f"FAIL {name}: {reason}")
            sys.stdout.flush()
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


def validate_runs(runs: dict, tests: list) -> list:
    """Problems found in Linux runs {smp: Run}: incomplete, non-zero, empty,
    or differing between CPU counts."""
    problems = []
    base_smp = min(runs)
    for t in tests:
        blocks = {smp: r.blocks.get(t.id) for smp, r in runs.items()}
        for smp, b in blocks.items():
            if b is None or not b.complete:
                problems.append(f"{t.id}: did not complete under Linux smp{smp}")
            elif b.status != "exit 0":
                problems.append(f"{t.id}: status={b.status} under Linux smp{smp}")
            elif not [x for x in b.lines if x.strip()]:
                problems.append(f"{t.id}: printed nothing under Linux smp{smp}")
        base = blocks[base_smp]
        for smp, b in blocks.items():
            if smp == base_smp or base is None or b is None:
                continue
            diff = first_difference(base, b)
            if diff:
                problems.append(f"{t.id}: smp{base_smp} vs smp{smp} differ: {diff}")
    return problems


def cmd_validate(ns) -> int:
    tests = build(suite=ns.suite)
    runs = {}
    for smp in ns.smp:
        res = run_linux(smp, ns.append, not ns.no_cache, ns.verbose, ns.suite)
        how = "cached" if res.cached else f"{res.elapsed_s:.1f}s"
        print(f"linux smp{smp}: QEMU status {res.exit_status} ({how})")
        runs[smp] = parse_blocks(res.output)
    problems = validate_runs(runs, tests)
    for p in problems:
        print(f"PROBLEM {p}")
    print(f"{len(tests)} tests, {len(problems)} problem(s)")
    return 0 if not problems else 1


def cmd_host(ns) -> int:
    """Unpack the image into a directory and run its init as PID 1 of a new
    pid + mount namespace under the host kernel. Fast feedback while writing
    tests; the Linux VM remains the reference."""
    tests = build(suite=ns.suite)
    if ns.suite == DEBIAN_AREA:
        return _host_debian(ns, tests)
    root = os.path.join(REPO_ROOT, "build",
                        "busybox-suite-root" if ns.suite == "busybox" else "contracts-root")
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(root)
    with open(suite_cpio(ns.suite), "rb") as img:
        subprocess.run(["cpio", "-idm", "--quiet"], cwd=root, stdin=img, check=True)
    if ns.only:
        with open(os.path.join(root, "contracts", "list"), "w") as f:
            for t in tests:
                if any(t.id == o or t.id.startswith(o.rstrip("/") + "/")
                       or (ns.suite == "busybox" and t.name == o) for o in ns.only):
                    f.write(t.guest + "\n")
    start = time.monotonic()
    r = subprocess.run(["unshare", "--mount", "--pid", "--uts", "--ipc", "--fork", "--mount-proc",
                        "chroot", root, "/init"], capture_output=True, text=True,
                       timeout=RUN_TIMEOUT)
    run = parse_blocks(r.stdout)
    ok, _ = _print_run(run, tests)
    if r.stderr.strip():
        print(r.stderr)
    print(f"host: {len(run.order)} tests ran, {ok} exited 0, {time.monotonic() - start:.1f}s")
    return 0


def _host_debian(ns, tests: list) -> int:
    """The Debian suite on the host kernel: its unpacked root (where the
    build left the scripts) chrooted in new namespaces, sysfs mounted as
    debian-init would."""
    root = _load("build_debian_root", "build-debian-root.py").ROOT
    names = [t for t in tests if not ns.only or t.name in ns.only or t.id in ns.only]
    with open(os.path.join(root, "contracts", "list"), "w") as f:
        f.write("".join(t.guest + "\n" for t in names))
    start = time.monotonic()
    r = subprocess.run(["unshare", "--mount", "--pid", "--uts", "--ipc", "--fork", "--mount-proc",
                        "sh", "-c", f"mount -t sysfs sysfs {root}/sys; exec chroot {root} /contracts/init"],
                       capture_output=True, text=True, timeout=RUN_TIMEOUT)
    with open(os.path.join(root, "contracts", "list"), "w") as f:
        f.write("".join(t.guest + "\n" for t in tests))
    run = parse_blocks(r.stdout)
    ok, _ = _print_run(run, names)
    if r.stderr.strip():
        print(r.stderr)
    print(f"host: {len(run.order)} tests ran, {ok} exited 0, {time.monotonic() - start:.1f}s")
    return 0


def self_test() -> int:
    """Check the parser and comparison on canned logs (no QEMU needed)."""
    linux = ("[    0.5] noise\n=== CONTRACT a/x\none\ntwo\n=== END a/x status=exit 0\n"
             "=== CONTRACT a/y\n[    1.000000] klog inside a block\nfoo\n=== END a/y status=signal SIGSEGV\n"
             "=== CONTRACT b/z\nz\n=== END b/z status=exit 0\n=== ALL DONE\n")
    kevlar = ("boot noise\n=== CONTRACT a/x\none\nTWO\n=== END a/x status=exit 0\n"
              "=== CONTRACT a/y\nfoo\n")
    problems = []
    run = parse_blocks(linux)
    if run.order != ["a/x", "a/y", "b/z"] or not run.all_done:
        problems.append(f"parse order/all_done: {run.order} {run.all_done}")
    if run.blocks["a/y"].lines != ["foo"] or run.blocks["a/y"].status != "signal SIGSEGV":
        problems.append(f"kernel log line not dropped or status wrong: {run.blocks['a/y']}")
    res = compare_outputs(linux, kevlar, "timed out")
    want = [("a/x", False, "line 2: linux='two' kevlar='TWO'"),
            ("a/y", False, "line 2: linux='status=signal SIGSEGV' kevlar=<output ends: the test "
                           "did not finish (kernel crashed or hung)>"),
            ("b/z", False, "no block from Kevlar: the run ended before this test (timed out)")]
    if res != want:
        problems.append(f"compare: {res!r}")
    same = compare_outputs(linux, linux)
    if not all(ok for _, ok, _ in same) or len(same) != 3:
        problems.append(f"identical logs do not pass: {same!r}")
    if _guess_suite("=== CONTRACT busybox/sh-x\n") != "busybox" or _guess_suite("") != "contracts" \
            or _guess_suite(kevlar) != "contracts":
        problems.append("suite guess from block names")
    if suite_of_initrd(BUSYBOX_CPIO) != "busybox" or suite_of_initrd(CPIO) != "contracts" \
            or suite_of_initrd("/nonexistent.cpio") is not None:
        problems.append("suite from initrd path")
    empty = compare_outputs(linux, "")
    if not empty or "did not run the init" not in empty[0][2]:
        problems.append(f"empty Kevlar log: {empty!r}")
    for p in problems:
        print("SELF-TEST FAIL", p)
    print(f"contracts self-test: {'ok' if not problems else f'{len(problems)} problem(s)'}")
    return 0 if not problems else 1


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="contracts.py", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    suite_help = ("contracts: the C tests, build/contracts.cpio (default); "
                  "busybox: the BusyBox scripts, build/busybox-suite.cpio; "
                  "debian: bash scripts in a Debian root on a disk, build/debian-suite.cpio")
    b = sub.add_parser("build", help="compile the tests and write build/contracts.cpio")
    b.add_argument("--busybox", action="store_true", help="also put BusyBox in the image")
    b.add_argument("--suite", choices=SUITES, default="contracts", help=suite_help)
    for name, hlp in (("linux", "run under Linux and print the outputs"),
                      ("compare", "run under Kevlar and Linux, PASS/FAIL per test"),
                      ("validate", "check every test on Linux at -smp 1 and 2")):
        s = sub.add_parser(name, help=hlp)
        s.add_argument("--suite", choices=SUITES, default="contracts", help=suite_help)
        s.add_argument("--append", default="", help="extra kernel command-line words (both kernels)")
        s.add_argument("-v", "--verbose", action="store_true", help="echo the serial output")
        s.add_argument("--only", action="append", default=[], metavar="AREA[/NAME]",
                       help="run only these tests (repeatable); a quick check, not a suite run")
        if name == "linux":
            s.add_argument("--smp", type=int, default=1)
            s.add_argument("--no-cache", action="store_true")
        elif name == "compare":
            s.add_argument("--kernel", default=os.path.join(REPO_ROOT, "build", "kevlar.elf"))
            s.add_argument("--smp", type=int, action="append",
                           help="CPU count; repeat for several (default 1)")
            s.add_argument("--timeout", type=float, default=KEVLAR_TIMEOUT,
                           help=f"seconds for Kevlar's whole run (default {KEVLAR_TIMEOUT:g})")
        else:
            s.add_argument("--smp", type=int, action="append",
                           help="CPU counts (default 1 and 2)")
            s.add_argument("--no-cache", action="store_true")
    sub.add_parser("self-test", help="test the log parser and comparison (no QEMU)")
    h = sub.add_parser("host", help="quick run under the host kernel (namespaces)")
    h.add_argument("--suite", choices=SUITES, default="contracts", help=suite_help)
    h.add_argument("only", nargs="*", help="areas or area/name to run (default all)")
    ns = p.parse_args(argv)
    ONLY[:] = getattr(ns, "only", []) if ns.cmd != "host" else []
    if ns.cmd == "build":
        build(include_busybox=ns.busybox, suite=ns.suite)
        return 0
    if ns.cmd == "compare":
        ns.smp = ns.smp or [1]
        return cmd_compare(ns)
    if ns.cmd == "validate":
        ns.smp = ns.smp or [1, 2]
        return cmd_validate(ns)
    if ns.cmd == "linux":
        return cmd_linux(ns)
    if ns.cmd == "host":
        return cmd_host(ns)
    if ns.cmd == "self-test":
        return self_test()
    return 1


if __name__ == "__main__":
    sys.exit(main())
