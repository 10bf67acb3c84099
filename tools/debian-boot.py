#!/usr/bin/env python3
"""Boot Debian 12 with systemd as PID 1 (docs/debian-boot.md).

    debian-boot.py run  [--kernel kevlar|linux] [--port N] [--smp N] [--append WORDS]
        build the image if needed and boot it interactively (serial console on
        the terminal; Ctrl-A X quits). root's password is `kevlar`; the host's
        127.0.0.1:PORT (default 2222) is forwarded to the guest's port 22.
    debian-boot.py boot [--kernel ...] [--timeout S] [--log FILE]
        the same, not interactive: the console goes to stdout (and FILE) until
        the guest ends or the time limit.
    debian-boot.py test [--smp N] [--timeout S]
        the boot test (`make test-debian-boot`): see tools/debian-boot-test.py.

The image is tools/build-debian-root.py's bootable system
(build/debian-systemd/disk.img, built once and cached). Every run boots it
with QEMU's `snapshot=on`, so a run's writes never reach the image and each
boot starts from the same bytes. Kevlar mounts the disk itself
(`root=/dev/vda`, its drivers are built in) and runs /sbin/init; Debian's
Linux 6.1 gets a small initramfs (userland/init/debian-boot-init.c and the
modules of tools/linux-oracle.py's disk_modules) that mounts the disk and
executes the same /sbin/init.
"""

import argparse
import os
import signal
import subprocess
import sys

TOOLS_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(TOOLS_DIR)
OUT = os.path.join(REPO_ROOT, "build", "debian-systemd")
INIT_SRC = os.path.join(REPO_ROOT, "userland", "init", "debian-boot-init.c")
LINUX_CPIO = os.path.join(OUT, "linux-initramfs.cpio")
DEFAULT_KERNEL = os.path.join(REPO_ROOT, "build", "kevlar.elf")
DEFAULT_PORT = 2222
MEM = "1G"
# The same for both kernels: the disk, the serial console, and the
# interface named eth0 under Linux too (no predictable names from udev).
COMMON_APPEND = "root=/dev/vda console=ttyS0 net.ifnames=0"
KEVLAR_APPEND = "rootfstype=ext4"
# Linux's: the Linux oracle's (tools/linux-oracle.py) but `quiet`, so both
# consoles show systemd's status lines.
LINUX_APPEND = "panic=-1 no_timer_check"


if TOOLS_DIR not in sys.path:
    sys.path.insert(0, TOOLS_DIR)
from toolload import load as _load  # noqa: E402 (after the path)


def image() -> str:
    """build/debian-systemd/disk.img, made once."""
    root = _load("build_debian_root_systemd", "build-debian-root.py")
    root.use_systemd()
    return root.build_image([], out=root.IMAGE)


def client_key() -> str:
    root = _load("build_debian_root_systemd", "build-debian-root.py")
    return root.client_key()


def linux_initramfs() -> str:
    """The initramfs Debian's kernel boots with: debian-boot-init and the
    disk and network modules."""
    oracle = _load("linux_oracle", "linux-oracle.py")
    bi = _load("build_initramfs", "build-initramfs.py")
    os.makedirs(OUT, exist_ok=True)
    init = os.path.join(OUT, "debian-boot-init")
    if not os.path.isfile(init) or os.path.getmtime(init) < os.path.getmtime(INIT_SRC):
        r = subprocess.run(["musl-gcc", "-static", "-O2", "-Wall", "-o", init, INIT_SRC],
                           capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"debian-boot: debian-boot-init failed to build:\n{r.stderr}")
    modules = oracle.disk_modules(with_net=True)
    guest = [f"/lib/modules/boot/{os.path.basename(p)}" for p in modules]
    mod_list = os.path.join(OUT, "modules.list")
    with open(mod_list, "w") as f:
        f.write("".join(g + "\n" for g in guest))
    entries = [bi.File("/init", init, 0o755), bi.Dir("/dev"), bi.Dir("/root", 0o700),
               bi.Dir("/lib/modules/boot"), bi.File("/modules.list", mod_list, 0o644)]
    entries += [bi.File(g, p, 0o644) for g, p in zip(guest, modules)]
    bi.build(entries, LINUX_CPIO)
    return LINUX_CPIO


def command(kernel: str = "kevlar", kevlar_elf: str = DEFAULT_KERNEL, port: int = DEFAULT_PORT,
            smp: int = 1, append: str = "", interactive: bool = False, cpu: str | None = None,
            icount: bool = False, accel: str = "tcg", extra: tuple = ()) -> list:
    """The QEMU argv booting the image under `kernel` (kevlar or linux).
    `cpu`, `icount` and `extra` (more QEMU arguments) are the benchmark's
    machine (tools/bench.py's boot suite): the test keeps QEMU's defaults."""
    run_qemu = _load("run_qemu", "run-qemu.py")
    disk = image()
    words = COMMON_APPEND
    if kernel == "linux":
        oracle = _load("linux_oracle", "linux-oracle.py")
        vmlinuz, initrd = oracle.fetch(quiet=True), linux_initramfs()
        words += " " + LINUX_APPEND
    elif kernel == "kevlar":
        vmlinuz, initrd = kevlar_elf, None
        words += " " + KEVLAR_APPEND
    else:
        sys.exit(f"debian-boot: --kernel is kevlar or linux, not {kernel}")
    if append:
        words += " " + append
    opts = run_qemu.Options(kernel=vmlinuz, initrd=initrd, append=words, smp=smp, mem=MEM,
                            interactive=interactive, net="none", cpu=cpu, icount=icount, accel=accel,
                            extra=list(extra))
    cmd = run_qemu.build_command(opts)
    cmd += ["-drive", f"file={disk},if=none,id=d0,format=raw,snapshot=on",
            "-device", "virtio-blk-pci,drive=d0",
            "-netdev", f"user,id=n0,hostfwd=tcp:127.0.0.1:{port}-:22",
            "-device", "virtio-net-pci,netdev=n0"]
    return cmd


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("what", choices=("run", "boot", "test"))
    p.add_argument("--kernel", default="kevlar", help="kevlar (default) or linux")
    p.add_argument("--elf", default=DEFAULT_KERNEL, help="Kevlar's image")
    p.add_argument("--port", type=int, default=DEFAULT_PORT)
    p.add_argument("--smp", type=int, default=1)
    p.add_argument("--append", default="")
    p.add_argument("--timeout", type=float, default=600.0)
    p.add_argument("--log")
    p.add_argument("--until", help="boot: stop once the console shows this text")
    ns, rest = p.parse_known_args(argv)
    if ns.what == "test":
        test = _load("debian_boot_test", "debian-boot-test.py")
        return test.main(["--smp", str(ns.smp), "--timeout", str(ns.timeout), "--elf", ns.elf] + rest)
    cmd = command(ns.kernel, ns.elf, ns.port, ns.smp, ns.append, interactive=ns.what == "run")
    if ns.what == "run":
        print(f"debian-boot: {ns.kernel}; root's password is `kevlar`; "
              f"ssh -p {ns.port} -i {os.path.relpath(client_key(), REPO_ROOT)} root@127.0.0.1; "
              "Ctrl-A X quits", file=sys.stderr)
        return subprocess.call(cmd)
    log = open(ns.log, "wb") if ns.log else None
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(124))
    seen = b""
    try:
        import selectors
        import time
        sel = selectors.DefaultSelector()
        sel.register(proc.stdout, selectors.EVENT_READ)
        deadline = time.monotonic() + ns.timeout
        while time.monotonic() < deadline:
            if not sel.select(timeout=1.0):
                if proc.poll() is not None:
                    break
                continue
            data = os.read(proc.stdout.fileno(), 65536)
            if not data:
                break
            sys.stdout.buffer.write(data)
            sys.stdout.buffer.flush()
            if log:
                log.write(data)
                log.flush()
            seen = (seen + data)[-4096:]
            if ns.until and ns.until.encode() in seen:
                break
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
