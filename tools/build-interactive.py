#!/usr/bin/env python3
"""Build build/interactive.cpio, the image `make run` boots: a small C init
(userland/init/interactive-init.c) that mounts the usual filesystems and keeps
a BusyBox shell on the console, BusyBox with a link per applet, and the files
under userland/interactive/ (/etc/profile, passwd, group, hostname).

    tools/build-interactive.py [--out build/interactive.cpio] [-q]

The init is recompiled only when its source is newer than the binary; the
archive is deterministic (tools/build-initramfs.py), so the same inputs give
the same bytes.
"""

import argparse
import importlib.util
import os
import subprocess
import sys

TOOLS_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(TOOLS_DIR)
INIT_SRC = os.path.join(REPO_ROOT, "userland", "init", "interactive-init.c")
ROOTFS_DIR = os.path.join(REPO_ROOT, "userland", "interactive")
BUILD_DIR = os.path.join(REPO_ROOT, "build", "interactive")
INIT_BIN = os.path.join(BUILD_DIR, "init")
DEFAULT_OUT = os.path.join(REPO_ROOT, "build", "interactive.cpio")
CC = "musl-gcc"


def _load_initramfs():
    spec = importlib.util.spec_from_file_location("build_initramfs", os.path.join(TOOLS_DIR, "build-initramfs.py"))
    mod = importlib.util.module_from_spec(spec)
    sys.modules["build_initramfs"] = mod
    spec.loader.exec_module(mod)
    return mod


def compile_init(quiet: bool) -> None:
    if os.path.exists(INIT_BIN) and os.path.getmtime(INIT_BIN) >= os.path.getmtime(INIT_SRC):
        return
    os.makedirs(BUILD_DIR, exist_ok=True)
    cmd = [CC, "-static", "-O2", "-Wall", "-Werror", "-o", INIT_BIN, INIT_SRC]
    if not quiet:
        print(" ".join(cmd))
    subprocess.run(cmd, check=True)


def rootfs_files(bi) -> list:
    """Every file under userland/interactive/, at the same path in the image
    (mode 644)."""
    entries = []
    for top, _, names in os.walk(ROOTFS_DIR):
        for name in sorted(names):
            src = os.path.join(top, name)
            dest = "/" + os.path.relpath(src, ROOTFS_DIR)
            entries.append(bi.File(dest, src, 0o644))
    return entries


def build(out: str = DEFAULT_OUT, quiet: bool = False) -> str:
    bi = _load_initramfs()
    if not os.path.isfile(bi.DEFAULT_BUSYBOX):
        sys.exit(f"build-interactive: {bi.DEFAULT_BUSYBOX} not found (apt-get install busybox-static)")
    compile_init(quiet)
    entries = [bi.File("/init", INIT_BIN, 0o755)]
    entries += bi.busybox_entries()
    entries += rootfs_files(bi)
    for path, mode in (("/root", 0o700), ("/tmp", 0o1777), ("/proc", 0o555), ("/sys", 0o555),
                       ("/dev", 0o755), ("/run", 0o755), ("/home", 0o755), ("/mnt", 0o755)):
        entries.append(bi.Dir(path, mode))
    bi.build(entries, out)
    if not quiet:
        print(f"build-interactive: {os.path.relpath(out, REPO_ROOT)} ({os.path.getsize(out) // 1024} KiB)")
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default=DEFAULT_OUT, help="archive to write (default build/interactive.cpio)")
    p.add_argument("-q", "--quiet", action="store_true")
    args = p.parse_args()
    build(args.out, args.quiet)
    return 0


if __name__ == "__main__":
    sys.exit(main())
