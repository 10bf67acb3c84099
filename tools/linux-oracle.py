#!/usr/bin/env python3
"""Boot an initramfs under Debian's Linux 6.1 with Kevlar's QEMU flags and
return the serial output: the reference ("oracle") that Kevlar's output is
compared with.

The kernel: Debian 12's unsigned `linux-image-6.1.0-N-amd64-unsigned`
package, fetched with `apt-get download` into build/linux/ and unpacked there
with `dpkg-deb -x` (never installed). Its /boot/vmlinuz-* goes to QEMU's
`-kernel`. The package pinned in KERNEL_PACKAGE is used while Debian still
serves it; otherwise the one that `linux-image-amd64` currently depends on.

The QEMU command line comes from tools/run-qemu.py's build_command, so Linux
and Kevlar run on the same machine (q35, -cpu max, TCG, -m 512M, -no-reboot,
isa-debug-exit, serial on stdio). Linux gets `console=ttyS0 quiet panic=-1`
plus the same extra command-line words Kevlar gets. Linux ends a run by
powering off, which makes QEMU exit with status 0: that is success here.

Outputs are cached in build/oracle/<sha256>.txt, keyed by the initramfs
bytes, the kernel image, the extra command line and the CPU count, so the
slow TCG boot happens only when one of those changed.

CLI:
    linux-oracle.py fetch                       # download + unpack; prints the vmlinuz path
    linux-oracle.py run --initrd X.cpio [--smp N] [--append WORDS] [--no-cache] [--timeout S]
    linux-oracle.py boot-time                   # time a boot to a trivial init

As a module: load by path (dash in the name), then `run_initramfs(path,
smp=1, append="")` -> OracleResult(output, exit_status, elapsed_s, cached, ...).
"""

import argparse
import dataclasses
import glob
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from typing import Optional

TOOLS_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(TOOLS_DIR)
LINUX_DIR = os.path.join(REPO_ROOT, "build", "linux")
CACHE_DIR = os.path.join(REPO_ROOT, "build", "oracle")
# Pinned so the oracle does not drift under us; when Debian stops serving it,
# fetch() falls back to whatever linux-image-amd64 depends on now.
KERNEL_PACKAGE = "linux-image-6.1.0-56-amd64-unsigned"
# What Linux always gets; the caller's extra words follow.
# no_timer_check: Linux's boot-time check that the PIT's interrupt reaches
# the IO-APIC waits a few jiffies of busy loop; on a loaded host QEMU may
# not deliver the interrupt in that time, and Linux then panics ("IO-APIC +
# timer doesn't work!"). Virtual machines skip the check (KVM guests do by
# themselves).
BASE_APPEND = "console=ttyS0 quiet panic=-1 no_timer_check"
DEFAULT_TIMEOUT = 600.0
# Output that must not be cached: contract-init's note that it killed a test
# (a host too busy for the limit), and a Linux panic.
UNCACHEABLE_MARKERS = ("(contract-init: killed after", "Kernel panic - not syncing")
# Bump when the way outputs are produced changes, to invalidate old caches.
CACHE_VERSION = "1"


if TOOLS_DIR not in sys.path:
    sys.path.insert(0, TOOLS_DIR)
from toolload import load as _load  # noqa: E402 (after the path)


run_qemu = _load("run_qemu", "run-qemu.py")


class OracleError(Exception):
    pass


# ---------------------------------------------------------------------------
# Getting the kernel
# ---------------------------------------------------------------------------

def _apt(args: list, cwd: Optional[str] = None) -> subprocess.CompletedProcess:
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL)


def _candidate(package: str) -> Optional[str]:
    """The version apt would download for `package`, or None if unknown."""
    r = _apt(["apt-cache", "policy", package])
    m = re.search(r"^\s*Candidate:\s*(\S+)", r.stdout, re.M)
    if not m or m.group(1) == "(none)":
        return None
    return m.group(1)


def current_package() -> Optional[str]:
    """The unsigned image behind Debian 12's `linux-image-amd64` metapackage."""
    r = _apt(["apt-cache", "depends", "linux-image-amd64"])
    m = re.search(r"Depends:\s*(linux-image-6\.1\.\S+-amd64)\b", r.stdout)
    if not m:
        return None
    return m.group(1) + "-unsigned"


def installed_kernel() -> Optional[str]:
    """Path of an already unpacked vmlinuz under build/linux/, newest first."""
    found = sorted(glob.glob(os.path.join(LINUX_DIR, "root", "boot", "vmlinuz-*")))
    return found[-1] if found else None


def fetch(package: Optional[str] = None, quiet: bool = False) -> str:
    """Make sure build/linux/ holds an unpacked kernel; return its vmlinuz.
    Idempotent: does nothing if one is there (and `package` is not forced)."""
    have = installed_kernel()
    if have and package is None:
        return have
    say = (lambda *a: None) if quiet else (lambda *a: print("linux-oracle:", *a, file=sys.stderr))
    for tool in ("apt-get", "apt-cache", "dpkg-deb"):
        if not shutil.which(tool):
            raise OracleError(f"{tool} not found: the oracle needs Debian's package tools")
    wanted = [package] if package else [KERNEL_PACKAGE]
    if _candidate(wanted[0]) is None:
        say("package lists do not know", wanted[0], "- running apt-get update")
        upd = _apt(["apt-get", "update"])
        if upd.returncode != 0:
            raise OracleError("apt-get update failed:\n" + upd.stderr[-2000:])
    if package is None and _candidate(wanted[0]) is None:
        cur = current_package()
        if cur and _candidate(cur):
            say(f"{KERNEL_PACKAGE} is gone from the archive; using {cur}")
            wanted = [cur]
    pkg = wanted[0]
    if _candidate(pkg) is None:
        raise OracleError(f"apt does not know {pkg}; try `apt-cache search linux-image-6.1`")
    os.makedirs(LINUX_DIR, exist_ok=True)
    debs = glob.glob(os.path.join(LINUX_DIR, f"{pkg}_*.deb"))
    if not debs:
        say("downloading", pkg)
        # apt drops privileges to _apt for downloads; a directory that user
        # cannot write only costs a warning, so download in a temp dir it can.
        tmp = tempfile.mkdtemp(prefix="kdl-", dir=LINUX_DIR)
        try:
            os.chmod(tmp, 0o777)
            r = _apt(["apt-get", "download", pkg], cwd=tmp)
            got = glob.glob(os.path.join(tmp, "*.deb"))
            if r.returncode != 0 or not got:
                raise OracleError(f"apt-get download {pkg} failed:\n{r.stderr[-2000:]}")
            for g in got:
                shutil.move(g, os.path.join(LINUX_DIR, os.path.basename(g)))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        debs = glob.glob(os.path.join(LINUX_DIR, f"{pkg}_*.deb"))
    root = os.path.join(LINUX_DIR, "root")
    staging = root + ".new"
    shutil.rmtree(staging, ignore_errors=True)
    say("unpacking", os.path.basename(debs[0]))
    r = subprocess.run(["dpkg-deb", "-x", debs[0], staging], capture_output=True, text=True)
    if r.returncode != 0:
        raise OracleError(f"dpkg-deb -x failed: {r.stderr}")
    # Keep only what the oracle needs: the image and its config (modules are
    # never loaded: the initramfs has none).
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(os.path.join(root, "boot"))
    for f in glob.glob(os.path.join(staging, "boot", "*")):
        if os.path.basename(f).startswith(("vmlinuz-", "config-")):
            shutil.move(f, os.path.join(root, "boot", os.path.basename(f)))
    shutil.rmtree(staging, ignore_errors=True)
    kernel = installed_kernel()
    if not kernel:
        raise OracleError(f"{debs[0]} has no boot/vmlinuz-*")
    return kernel


# Modules the oracle loads to mount an ext2 disk (virtio-blk over PCI, and
# ext4, which mounts ext2 in Debian's kernel), in an order where each comes
# after what it depends on (their `depends=` .modinfo entries). Debian
# ships them uncompressed (CONFIG_MODULE_COMPRESS_NONE).
DISK_MODULES = [
    "drivers/virtio/virtio_ring.ko",
    "drivers/virtio/virtio.ko",
    "drivers/virtio/virtio_pci_legacy_dev.ko",
    "drivers/virtio/virtio_pci_modern_dev.ko",
    "drivers/virtio/virtio_pci.ko",
    "drivers/block/virtio_blk.ko",
    "lib/crc16.ko",
    "crypto/crc32c_generic.ko",
    "fs/mbcache.ko",
    "fs/jbd2/jbd2.ko",
    "fs/ext4/ext4.ko",
]


# Modules for a virtio network card (eth0), after DISK_MODULES: the suites
# that boot with one (the Debian suite, for `ip`) load them too.
NET_MODULES = [
    "net/core/failover.ko",
    "drivers/net/net_failover.ko",
    "drivers/net/virtio_net.ko",
]


# sock_diag's handlers, modules in Debian's kernel (sock_diag itself is
# built in): the sockdiag contract tests load them under Linux (Kevlar has
# them built in).
DIAG_MODULES = [
    "net/ipv4/inet_diag.ko",
    "net/ipv4/tcp_diag.ko",
    "net/ipv4/udp_diag.ko",
    "net/unix/unix_diag.ko",
]


def disk_modules(quiet: bool = True, with_net: bool = False) -> list:
    """Paths of DISK_MODULES (and NET_MODULES with `with_net`) unpacked
    under build/linux/modules/ from the kernel package (extracted on first
    use), in load order."""
    return modules(DISK_MODULES + (NET_MODULES if with_net else []), quiet)


def modules(wanted: list, quiet: bool = True) -> list:
    """Paths of the kernel package's modules `wanted` (paths under its
    kernel/ directory), unpacked under build/linux/modules/ on first use,
    in the order given."""
    kernel = fetch(quiet=quiet)
    release = os.path.basename(kernel)[len("vmlinuz-"):]
    out_dir = os.path.join(LINUX_DIR, "modules", release)
    paths = [os.path.join(out_dir, os.path.basename(m)) for m in wanted]
    if all(os.path.isfile(p) for p in paths):
        return paths
    debs = sorted(glob.glob(os.path.join(LINUX_DIR, f"linux-image-{release}*.deb")))
    if not debs:
        raise OracleError(f"no package for {release} in {LINUX_DIR} to take modules from")
    staging = out_dir + ".new"
    shutil.rmtree(staging, ignore_errors=True)
    os.makedirs(staging)
    r = subprocess.run(["dpkg-deb", "-x", debs[-1], staging], capture_output=True, text=True)
    if r.returncode != 0:
        raise OracleError(f"dpkg-deb -x failed: {r.stderr}")
    os.makedirs(out_dir, exist_ok=True)
    for m, p in zip(wanted, paths):
        src = os.path.join(staging, "lib", "modules", release, "kernel", m)
        if not os.path.isfile(src):
            raise OracleError(f"{debs[-1]} has no {m}")
        shutil.copyfile(src, p)
    shutil.rmtree(staging, ignore_errors=True)
    return paths


# ---------------------------------------------------------------------------
# Running
# ---------------------------------------------------------------------------

@dataclasses.dataclass
class OracleResult:
    output: str  # serial output, CR LF folded to LF
    exit_status: int  # QEMU's status (0 = Linux powered off); 124 = timed out
    elapsed_s: float  # wall time of the boot (of the original run if cached)
    cached: bool
    kernel: str
    command: list
    cache_file: str

    @property
    def ok(self) -> bool:
        return self.exit_status == 0


def full_append(append: str = "") -> str:
    return f"{BASE_APPEND} {append}".strip()


def cache_key(initrd: str, kernel: str, append: str, smp: int, disks: tuple = (),
              virtio_net: bool = False) -> str:
    h = hashlib.sha256()
    h.update(f"kevlar-oracle-v{CACHE_VERSION}\0".encode())
    for path in (initrd, kernel, *disks):
        with open(path, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
        h.update(b"\0")
    h.update(full_append(append).encode() + b"\0")
    h.update(str(smp).encode())
    if virtio_net:
        h.update(b"\0virtio-net")
    return h.hexdigest()


def qemu_options(initrd: str, kernel: str, smp: int = 1, append: str = "",
                 timeout: float = DEFAULT_TIMEOUT, mem: str = "512M", log: Optional[str] = None,
                 echo: bool = False, disks: tuple = (), quiet_timeout: Optional[float] = None,
                 virtio_net: bool = False):
    return run_qemu.Options(kernel=kernel, initrd=initrd, append=full_append(append),
                            smp=smp, mem=mem, timeout=timeout, quiet_timeout=quiet_timeout,
                            log=log, echo=echo, disks=list(disks), virtio_net=virtio_net)


def run_initramfs(initrd: str, smp: int = 1, append: str = "", timeout: float = DEFAULT_TIMEOUT,
                  use_cache: bool = True, kernel: Optional[str] = None,
                  echo: bool = False, log: Optional[str] = None,
                  disks: tuple = (), quiet_timeout: Optional[float] = None,
                  require: Optional[str] = None, virtio_net: bool = False) -> OracleResult:
    """Boot `initrd` under Linux and return its serial output (cached).
    `disks` are raw images attached as virtio-blk devices; their contents
    before the run are part of the cache key. `virtio_net` adds a virtio
    network card on QEMU's restricted user network."""
    kernel = kernel or fetch(quiet=not echo)
    key = cache_key(initrd, kernel, append, smp, tuple(disks), virtio_net)
    cache_file = os.path.join(CACHE_DIR, key + ".txt")
    meta_file = os.path.join(CACHE_DIR, key + ".json")
    opts = qemu_options(initrd, kernel, smp, append, timeout, log=log, echo=echo, disks=disks,
                        quiet_timeout=quiet_timeout, virtio_net=virtio_net)
    cmd = run_qemu.build_command(opts)
    if use_cache and os.path.isfile(cache_file) and os.path.isfile(meta_file):
        with open(cache_file, encoding="utf-8") as f:
            output = f.read()
        with open(meta_file, encoding="utf-8") as f:
            meta = json.load(f)
        return OracleResult(output, meta.get("exit_status", 0), meta.get("elapsed_s", 0.0),
                            True, kernel, cmd, cache_file)
    result = run_qemu.run(opts)
    res = OracleResult(result.output, result.exit_status, result.elapsed_s, False, kernel,
                       result.command, cache_file)
    # Only a clean power-off is worth remembering; a timeout or crash is
    # retried, and so is a run in which the test init had to kill a test
    # (on a host too busy for its limit, that is not Linux's answer).
    # A run without the `require` line did not finish either.
    if (res.ok and not any(marker in res.output for marker in UNCACHEABLE_MARKERS)
            and (require is None or require in res.output)):
        os.makedirs(CACHE_DIR, exist_ok=True)
        for path, text in ((cache_file, res.output),
                           (meta_file, json.dumps({"exit_status": res.exit_status,
                                                   "elapsed_s": round(res.elapsed_s, 2),
                                                   "kernel": os.path.basename(kernel),
                                                   "append": full_append(append),
                                                   "smp": smp,
                                                   "initrd": os.path.relpath(initrd, REPO_ROOT)},
                                                  indent=1))):
            with open(path + ".tmp", "w", encoding="utf-8") as f:
                f.write(text)
            os.replace(path + ".tmp", path)
    return res


# ---------------------------------------------------------------------------
# Boot time: a trivial static init that prints a marker and powers off.
# ---------------------------------------------------------------------------

_TRIVIAL_INIT = r"""
#include <stdio.h>
#include <unistd.h>
#include <sys/reboot.h>
int main(void) {
    printf("ORACLE-INIT-REACHED\n");
    fflush(stdout);
    reboot(RB_POWER_OFF);
    return 0;
}
"""


def boot_time(smp: int = 1, runs: int = 1) -> list:
    """Wall seconds from QEMU start to our init's first line, and to QEMU's exit."""
    bi = _load("build_initramfs", "build-initramfs.py")
    kernel = fetch()
    work = os.path.join(REPO_ROOT, "build", "oracle-boot")
    os.makedirs(work, exist_ok=True)
    src = os.path.join(work, "init.c")
    exe = os.path.join(work, "init")
    with open(src, "w") as f:
        f.write(_TRIVIAL_INIT)
    subprocess.run(["musl-gcc", "-static", "-O2", "-o", exe, src], check=True)
    cpio = bi.build([bi.File("/init", exe, 0o755)], os.path.join(work, "boot.cpio"))
    times = []
    for _ in range(runs):
        opts = qemu_options(cpio, kernel, smp)
        cmd = run_qemu.build_command(opts)
        start = time.monotonic()
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                stdin=subprocess.DEVNULL)
        reached = None
        buf = b""
        for chunk in iter(lambda: proc.stdout.read1(4096), b""):
            buf += chunk
            if reached is None and b"ORACLE-INIT-REACHED" in buf:
                reached = time.monotonic() - start
        proc.wait()
        times.append((reached, time.monotonic() - start, proc.returncode))
    return times


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="linux-oracle.py", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    f = sub.add_parser("fetch", help="download and unpack the Linux kernel (idempotent)")
    f.add_argument("--package", help=f"Debian package (default {KERNEL_PACKAGE})")
    r = sub.add_parser("run", help="boot an initramfs under Linux and print its serial output")
    r.add_argument("--initrd", required=True)
    r.add_argument("--smp", type=int, default=1)
    r.add_argument("--append", default="", help="extra kernel command-line words")
    r.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT)
    r.add_argument("--no-cache", action="store_true", help="boot even if a cached output exists")
    b = sub.add_parser("boot-time", help="time Linux booting to a trivial init under TCG")
    b.add_argument("--smp", type=int, default=1)
    b.add_argument("--runs", type=int, default=1)
    ns = p.parse_args(argv)
    try:
        if ns.cmd == "fetch":
            print(fetch(ns.package))
            return 0
        if ns.cmd == "run":
            res = run_initramfs(ns.initrd, ns.smp, ns.append, ns.timeout, not ns.no_cache)
            sys.stdout.write(res.output)
            how = "cached" if res.cached else f"{res.elapsed_s:.1f}s"
            print(f"linux-oracle: QEMU status {res.exit_status} ({how}); {res.cache_file}",
                  file=sys.stderr)
            return 0 if res.ok else 1
        if ns.cmd == "boot-time":
            for reached, total, status in boot_time(ns.smp, ns.runs):
                r = "never" if reached is None else f"{reached:.2f}s"
                print(f"init reached after {r}; QEMU exited after {total:.2f}s with status {status}")
            return 0
    except OracleError as e:
        print(f"linux-oracle: {e}", file=sys.stderr)
        return 1
    return 1


if __name__ == "__main__":
    sys.exit(main())
