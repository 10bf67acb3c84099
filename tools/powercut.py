#!/usr/bin/env python3
"""Power cuts on ext4: Kevlar must leave a disk that mounts, holds every
fsync'd file byte for byte, and that e2fsck finds clean.

For each cut point: a fresh ext4 image (mkfs.ext4 with Debian's defaults:
journal, extents, 64bit, flex_bg, metadata_csum...) is attached as vda and
Kevlar boots userland/powercut/workload.c (`run`), which writes, appends,
renames, unlinks, keeps an unlinked file open, and fsyncs a new file per
round, printing `PC-SYNCED N` after each fsync. QEMU is killed (SIGKILL, no
shutdown) after the point's marker, plus a delay that differs per point, so
the cuts land in different phases (data, the log, the commit block, the
checkpoint). Then:

  1. `e2fsck -fn` on the cut disk must not find damage beyond what a
     journal replay fixes (it is run on a copy: -n does not replay);
  2. Kevlar boots the workload's `check N` on the cut disk: its mount
     replays the journal and frees the orphans, data-0..data-N (every file
     whose fsync returned before the cut) must be intact, and a few more
     rounds run before a clean unmount;
  3. `e2fsck -fn` on the disk must then be clean.

Also a copy of each cut disk is given to `e2fsck -fy` (e2fsprogs' own
journal replay of what Kevlar wrote) and must come out clean. With
`--linux-points` (2 by default from the command line, none in make test),
after some cuts Debian's Linux 6.1 (the oracle's kernel, its virtio and
ext4 modules loaded by the workload) mounts the disk instead of Kevlar:
its jbd2 replays Kevlar's journal, then the same check and e2fsck -fn.

The sqlite3 variant (`--sqlite-points`, 4 by default from the command
line, none in make test) attaches the Debian suite's root (read-only, with
sqlite3) as vda and the ext4 image as vdb: each round one sqlite3 process
commits a row (rollback journal, synchronous=FULL) and churns another
table; the check wants `PRAGMA integrity_check` ok and every row committed
before the cut.

    tools/powercut.py [--kernel build/kevlar.elf] [--points 12] [--sqlite-points 4] [--smp 1]

As a run-tests.py driver (layer `powercut`): run(kernel, initrd, smp, ...)
returns one outcome per point (a bounded number of points).
"""

import argparse
import os
import selectors
import shutil
import subprocess
import sys
import tempfile
import time

TOOLS_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(TOOLS_DIR)
BUILD = os.path.join(REPO_ROOT, "build", "powercut")
DEFAULT_INITRD = os.path.join(REPO_ROOT, "build", "powercut.cpio")
SOURCE = os.path.join(REPO_ROOT, "userland", "powercut", "workload.c")
# Points make test runs (each is two boots).
BOUNDED_POINTS = 3
ROUNDS = 80
# The Debian root with sqlite3 (tools/build-debian-root.py).
DEBIAN_ROOT = os.path.join(REPO_ROOT, "build", "debian", "disk.img")
IMAGE_MB = 64


if TOOLS_DIR not in sys.path:
    sys.path.insert(0, TOOLS_DIR)
from toolload import load as _load  # noqa: E402 (after the path)


run_qemu = _load("run_qemu", "run-qemu.py")
build_initramfs = _load("build_initramfs", "build-initramfs.py")


def tool(name: str) -> str:
    for d in ("/sbin", "/usr/sbin", "/usr/bin", "/bin"):
        p = os.path.join(d, name)
        if os.path.exists(p):
            return p
    return name


def build_initrd(initrd: str = DEFAULT_INITRD) -> str:
    """Builds the workload and its initramfs when the source is newer."""
    binary = os.path.join(BUILD, "workload")
    os.makedirs(BUILD, exist_ok=True)
    if not os.path.exists(binary) or os.path.getmtime(binary) < os.path.getmtime(SOURCE):
        subprocess.run(["musl-gcc", "-static", "-O2", "-Wall", "-o", binary, SOURCE], check=True)
    if not os.path.exists(initrd) or os.path.getmtime(initrd) < os.path.getmtime(binary):
        build_initramfs.build([build_initramfs.File("/workload", binary, 0o755),
                               build_initramfs.Dir("/dev"), build_initramfs.Dir("/mnt"),
                               build_initramfs.Dir("/proc"), build_initramfs.Dir("/root")], initrd, gzip_output=False)
    return initrd


def build_linux_initrd(workdir: str) -> tuple:
    """The workload with Linux's virtio and ext4 modules (from the
    oracle's kernel package); returns (vmlinuz, initrd)."""
    oracle = _load("linux_oracle", "linux-oracle.py")
    kernel = oracle.fetch(quiet=True)
    modules = oracle.disk_modules()
    listing = os.path.join(workdir, "modules.list")
    with open(listing, "w") as f:
        f.write("".join(f"/modules/{os.path.basename(m)}\n" for m in modules))
    entries = [build_initramfs.File("/workload", os.path.join(BUILD, "workload"), 0o755),
               build_initramfs.File("/modules.list", listing, 0o644),
               build_initramfs.Dir("/dev"), build_initramfs.Dir("/mnt"), build_initramfs.Dir("/proc")]
    entries += [build_initramfs.File(f"/modules/{os.path.basename(m)}", m, 0o644) for m in modules]
    initrd = os.path.join(workdir, "powercut-linux.cpio")
    build_initramfs.build(entries, initrd, gzip_output=False)
    return kernel, initrd, oracle.BASE_APPEND


def make_image(path: str) -> None:
    with open(path, "wb") as f:
        f.truncate(IMAGE_MB << 20)
    # Debian 12's mkfs.ext4 defaults (what /etc/mke2fs.conf gives ext4).
    subprocess.run([tool("mke2fs"), "-q", "-F", "-t", "ext4", "-E", "root_owner=0:0", path],
                   check=True, stdout=subprocess.DEVNULL)


def e2fsck(path: str, args: list) -> tuple:
    p = subprocess.run([tool("e2fsck")] + args + [path], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    return p.returncode, p.stdout.decode("utf-8", "replace")


def cut_run(kernel: str, initrd: str, disks: list, mode: str, smp: int, marker: int, delay: float,
            timeout: float, qemu: str, log) -> tuple:
    """Boots the workload and kills QEMU `delay` s after `PC-SYNCED marker`.
    Returns (last synced round seen, how it ended)."""
    opts = run_qemu.Options(kernel=kernel, initrd=initrd, smp=smp, disks=disks, qemu=qemu,
                            append=f"init=/workload -- {mode}run {ROUNDS}", echo=False)
    cmd = run_qemu.build_command(opts)
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out = b""
    synced = -1
    kill_at = None
    start = time.monotonic()
    how = "finished"
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    try:
        while True:
            now = time.monotonic()
            if kill_at is not None and now >= kill_at:
                how = "cut"
                break
            if now - start > timeout:
                how = "timeout"
                break
            wait = 0.5 if kill_at is None else max(0.0, kill_at - now)
            if sel.select(timeout=wait):
                chunk = os.read(proc.stdout.fileno(), 65536)
                if not chunk:
                    break
                out += chunk
                if log:
                    log.write(chunk.decode("utf-8", "replace"))
                # Whole lines only: a marker may arrive in pieces.
                whole = out[:out.rfind(b"\n") + 1].decode("utf-8", "replace")
                for line in whole.splitlines():
                    parts = line.split()
                    if len(parts) == 2 and parts[0] == "PC-SYNCED" and parts[1].isdigit():
                        synced = max(synced, int(parts[1]))
                if kill_at is None and synced >= marker:
                    kill_at = time.monotonic() + delay
    finally:
        proc.kill()  # the power cut: no shutdown, nothing more written
        proc.wait()
    # Output read after the decision is not counted: the kill came first.
    return synced, how, out.decode("utf-8", "replace")


def one_point(kernel: str, initrd: str, smp: int, index: int, timeout: float,
              qemu: str, workdir: str, log, root: str = None, linux: tuple = None) -> tuple:
    """Runs cut point `index` (with `root`, the Debian root: the sqlite3
    workload; with `linux` (vmlinuz, initrd, command line), Linux mounts
    the cut disk and replays Kevlar's journal); returns (ok, detail)."""
    image = os.path.join(workdir, f"cut-{index}.img")
    make_image(image)
    # Spread the markers over the rounds; vary the delay after the marker
    # so the cut falls in the churn, the next file's data, its commit...
    marker = 1 + (index * 11) % (ROUNDS // 2)
    delay = [0.0, 0.05, 0.15, 0.3, 0.6][index % 5]
    mode, disks = ("sqlite-", [root, image]) if root else ("", [image])
    synced, how, _ = cut_run(kernel, initrd, disks, mode, smp, marker, delay, timeout, qemu, log)
    if how == "timeout" or synced < 0:
        return False, f"the workload did not reach PC-SYNCED {marker} ({how})"
    if linux:
        # Linux must have a journal to replay.
        stats = subprocess.run([tool("debugfs"), "-R", "stats", image], capture_output=True, text=True).stdout
        if "needs_recovery" not in stats:
            return False, "the cut disk has no journal to replay (needs_recovery not set)"
    # e2fsprogs' replay of Kevlar's journal.
    copy = image + ".e2fsck"
    shutil.copyfile(image, copy)
    status, out = e2fsck(copy, ["-fy"])
    if status > 1 or "Fix? yes" in out or "Clear? yes" in out:
        return False, f"e2fsck -fy on the cut disk (status {status}):\n{out}"
    os.unlink(copy)
    # Kevlar's replay, the check and more rounds.
    if linux:
        vmlinuz, linux_initrd, base = linux
        opts = run_qemu.Options(kernel=vmlinuz, initrd=linux_initrd, smp=smp, disks=disks, qemu=qemu,
                                append=f"{base} rdinit=/workload -- check {synced}", echo=False, timeout=timeout)
    else:
        opts = run_qemu.Options(kernel=kernel, initrd=initrd, smp=smp, disks=disks, qemu=qemu,
                                append=f"init=/workload -- {mode}check {synced}", echo=False, timeout=timeout)
    result = run_qemu.run(opts)
    if log:
        log.write(result.output)
    if "PC-DONE check failures=0" not in result.output:
        tail = "\n".join(result.output.splitlines()[-15:])
        who = "Linux's" if linux else "the"
        return False, f"{who} check after a cut at PC-SYNCED {synced}+{delay}s failed:\n{tail}"
    status, out = e2fsck(image, ["-fn"])
    if status != 0:
        return False, f"e2fsck -fn after Kevlar's recovery (status {status}):\n{out}"
    os.unlink(image)
    what = "committed sqlite rows" if root else "synced files"
    after = " after Linux's replay" if linux else ""
    return True, f"killed {delay}s after PC-SYNCED {marker} ({how}); {synced + 1} {what} intact{after}"


def run(kernel: str, initrd: str = DEFAULT_INITRD, smp: int = 1, timeout: float = 180.0,
        log=None, echo: bool = False, suffix: str = "", qemu: str = run_qemu.DEFAULT_QEMU,
        points: int = BOUNDED_POINTS, first: int = 0, sqlite_points: int = 0,
        linux_points: int = 0) -> list:
    """The driver run-tests.py calls: one outcome per cut point."""
    initrd = build_initrd(initrd)
    results = []
    workdir = tempfile.mkdtemp(prefix="powercut-", dir=os.path.join(REPO_ROOT, "build"))
    logf = open(log, "w") if log else None
    try:
        for i in range(first, first + points):
            name = f"powercut/ext4-cut-{i}{suffix}"
            ok, detail = one_point(kernel, initrd, smp, i, timeout, qemu, workdir, logf)
            if echo or not ok:
                print(f"   {name}: {detail}")
            results.append((name, ok, detail))
        root = None
        if sqlite_points and os.path.exists(DEBIAN_ROOT):
            # Read-only in the guest; a copy so no other run's QEMU holds it.
            root = os.path.join(workdir, "debian-root.img")
            shutil.copyfile(DEBIAN_ROOT, root)
        for i in range(first, first + sqlite_points):
            name = f"powercut/sqlite-cut-{i}{suffix}"
            if root is None:
                ok, detail = False, f"no Debian root at {DEBIAN_ROOT}: python3 tools/build-debian-root.py makes it"
            else:
                ok, detail = one_point(kernel, initrd, smp, i, timeout, qemu, workdir, logf, root)
            if echo or not ok:
                print(f"   {name}: {detail}")
            results.append((name, ok, detail))
        linux = build_linux_initrd(workdir) if linux_points else None
        for i in range(first, first + linux_points):
            name = f"powercut/linux-replay-{i}{suffix}"
            ok, detail = one_point(kernel, initrd, smp, i, timeout, qemu, workdir, logf, linux=linux)
            if echo or not ok:
                print(f"   {name}: {detail}")
            results.append((name, ok, detail))
    finally:
        if logf:
            logf.close()
        shutil.rmtree(workdir, ignore_errors=True)
    return results


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--kernel", default=run_qemu.DEFAULT_KERNEL)
    p.add_argument("--points", type=int, default=12)
    p.add_argument("--first", type=int, default=0, help="index of the first cut point")
    p.add_argument("--sqlite-points", type=int, default=4,
                   help="cut points of the sqlite3 workload (needs the Debian root)")
    p.add_argument("--linux-points", type=int, default=2,
                   help="cut points after which Linux 6.1 (the oracle's kernel) mounts the disk")
    p.add_argument("--smp", type=int, default=1)
    p.add_argument("--timeout", type=float, default=240.0, help="seconds per boot")
    p.add_argument("--log", default=os.path.join(REPO_ROOT, "build", "test-logs", "powercut.log"))
    p.add_argument("--build", action="store_true", help="only build the workload's initramfs (make test's prerequisite)")
    ns = p.parse_args()
    if ns.build:
        build_initrd()
        return 0
    os.makedirs(os.path.dirname(ns.log), exist_ok=True)
    results = run(ns.kernel, smp=ns.smp, timeout=ns.timeout, log=ns.log, echo=True,
                  suffix=f"[smp{ns.smp}]", points=ns.points, first=ns.first,
                  sqlite_points=ns.sqlite_points, linux_points=ns.linux_points)
    failed = 0
    for name, ok, detail in results:
        print(f"{'PASS' if ok else 'FAIL'} {name}")
        failed += not ok
    print(f"{len(results) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
