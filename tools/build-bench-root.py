#!/usr/bin/env python3
"""The benchmark's Debian root: the Debian suite's root (tools/build-debian-root.py)
with the programs the application benchmarks run (gcc, make, git, python3,
sqlite3, redis, nginx, dropbear, xz, fio), as an ext2 image (docs/benchmarks.md,
"Application benchmarks").

    build-bench-root.py root     resolve, download and unpack into build/bench-root/root
    build-bench-root.py image    also write build/bench-root/disk.img

It reuses build-debian-root.py's machinery unchanged (resolution with apt on
an empty system, `apt-get download`, unpacking into a merged-/usr tree,
dpkg's database, deterministic `mke2fs -d`): a second instance of that module
is loaded with its paths, package list and image size pointed here, so the
Debian suite's image (and the Linux oracle's cache keyed by its bytes) is
never touched. Both the tree and the image are cached: the tree is unpacked
again only when the resolved package set changes, the image is packed again
only when the tree, this file, build-debian-root.py or an extra file changes.

What the packages' maintainer scripts would have done and the benchmarks
need is done by `configure()`: nginx's default site enabled with Debian's
default page, its log and state directories, /etc/shells for dropbear's
login check, loopback names in /etc/hosts.
"""

import argparse
import hashlib
import importlib.util
import os
import shutil
import subprocess
import sys

TOOLS_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(TOOLS_DIR)
OUT = os.path.join(REPO_ROOT, "build", "bench-root")
# On top of the Debian suite's packages. libc6-dev: headers and libc.a for
# `gcc -static`. nginx-light is Debian's small nginx build; dropbear-bin has
# both the server and dbclient. fio: the disk rows (app_fio_*).
BENCH_PACKAGES = ["gcc", "libc6-dev", "make", "git", "python3", "sqlite3", "redis-server",
                  "redis-tools", "nginx-light", "dropbear-bin", "xz-utils", "iproute2", "fio"]
# Sparse: only the blocks in use take room on the host. The benchmarks write
# their work files on this disk (a QEMU snapshot overlay keeps the image
# itself unchanged).
IMAGE_SIZE = 3 << 30


def _debian_root():
    """A private instance of build-debian-root.py, redirected to OUT."""
    spec = importlib.util.spec_from_file_location("bench_debian_root",
                                                  os.path.join(TOOLS_DIR, "build-debian-root.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    mod.OUT = OUT
    mod.DEBS = os.path.join(OUT, "debs")
    mod.ROOT = os.path.join(OUT, "root")
    mod.IMAGE = os.path.join(OUT, "disk.img")
    mod.RESOLVED = os.path.join(OUT, "packages.txt")
    mod.STAMP = os.path.join(OUT, "root.stamp")
    mod.PACKAGES = list(mod.PACKAGES) + BENCH_PACKAGES
    mod.IMAGE_SIZE = IMAGE_SIZE
    base_configure = mod._configure

    def configure(root: str) -> None:
        base_configure(root)
        _configure_bench(root)
    mod._configure = configure
    return mod


def _write(path: str, text: str, mode: int = 0o644) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, mode)


def _configure_bench(root: str) -> None:
    """What the benchmark packages' maintainer scripts would have done."""
    # nginx-common's postinst: the default site and Debian's welcome page.
    avail = os.path.join(root, "etc", "nginx", "sites-available", "default")
    enabled = os.path.join(root, "etc", "nginx", "sites-enabled", "default")
    if os.path.isfile(avail) and not os.path.lexists(enabled):
        os.makedirs(os.path.dirname(enabled), exist_ok=True)
        os.symlink("/etc/nginx/sites-available/default", enabled)
    page = os.path.join(root, "usr", "share", "nginx", "html", "index.html")
    www = os.path.join(root, "var", "www", "html")
    os.makedirs(www, exist_ok=True)
    if os.path.isfile(page):
        with open(page) as f:
            _write(os.path.join(www, "index.nginx-debian.html"), f.read())
    for d in ("var/log/nginx", "var/lib/nginx", "var/lib/redis", "var/log/redis",
              "etc/dropbear", "root/.ssh"):
        os.makedirs(os.path.join(root, d), exist_ok=True)
    os.chmod(os.path.join(root, "root", ".ssh"), 0o700)
    # debianutils' add-shell, as the postinsts of bash and dash run it.
    _write(os.path.join(root, "etc", "shells"),
           "# /etc/shells: valid login shells\n/bin/sh\n/usr/bin/sh\n/bin/bash\n/usr/bin/bash\n"
           "/bin/dash\n/usr/bin/dash\n")
    _write(os.path.join(root, "etc", "hosts"), "127.0.0.1\tlocalhost\n::1\tlocalhost\n")
    _compile_python(root)


def _compile_python(root: str, fixed_time: int = 1_600_000_000) -> None:
    """py3compile's work (python3-minimal's postinst): the standard library's
    .pyc files, so that a Python start reads them as on an installed system
    instead of compiling (and writing) them on its first run. The sources
    get the image's fixed time first, so the time stamps the .pyc files
    record still match once the image is packed. Compiled by the root's own
    interpreter (chroot: needs root, as the rest of this tool's mke2fs
    ownership does); without it the image has no .pyc files and says so."""
    lib = os.path.join(root, "usr", "lib", "python3.11")
    if not os.path.isdir(lib):
        return
    for dirpath, _, filenames in os.walk(lib):
        for name in filenames:
            if name.endswith(".py"):
                os.utime(os.path.join(dirpath, name), (fixed_time, fixed_time))
    r = subprocess.run(["chroot", root, "/usr/bin/python3", "-m", "compileall", "-q",
                        "-x", "lib2to3/tests|test/|idlelib", "/usr/lib/python3.11"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        print(f"build-bench-root: no .pyc files (chroot python3 compileall: status "
              f"{r.returncode}: {r.stderr.strip()[-300:]})", file=sys.stderr)


def build_root() -> str:
    return _debian_root().build_root()


def build_image(extra: list) -> str:
    """The image with `extra` [(guest path, host file, mode)] added; cached
    by content (build-debian-root.py's key, plus this file)."""
    mod = _debian_root()
    # Files of an earlier build that are no longer in `extra` must not stay.
    shutil.rmtree(os.path.join(mod.ROOT, "bench"), ignore_errors=True)
    # The key build-debian-root.py computes covers its own source; this
    # file's goes in through an extra entry naming it.
    stamp = os.path.join(OUT, "bench-root.src")
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.abspath(__file__), "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    with open(stamp, "w") as f:
        f.write(digest + "\n")
    return mod.build_image(list(extra) + [("/bench/root-source", stamp, 0o644)],
                           out=mod.IMAGE)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("what", choices=("root", "image"))
    ns = p.parse_args(argv)
    print(build_root() if ns.what == "root" else build_image([]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
