#!/usr/bin/env python3
"""Where does the guest spend its time? Samples the instruction pointer of
a Kevlar boot running some microbenchmarks, through QEMU's monitor.

    python3 tools/profile.py readlink                  # one benchmark
    python3 tools/profile.py --quick getpid uname      # the quick counts
    python3 tools/profile.py --top 40 --callers proc_ps_100

The image is the benchmark initramfs of tools/bench.py with only the named
benchmarks (`bench profile [micro] NAME ...`: rounds of 0.3 s of guest
time; `bench quick ...` with --quick), on the benchmark machine (icount,
-cpu max,-erms,-fsrm). While it runs, `info registers` is asked of the
monitor every --interval seconds of host time; each sample's RIP is mapped
to the kernel symbol that contains it (from the ELF's symbol table), or
counted as user mode. Under icount the guest advances by instructions, so
host-time samples are spread over guest instructions as TCG executes
them: a rough but unbiased picture; a hot spot of a few percent is real,
small differences are noise. With --callers the return address at the
stack pointer is sampled as well (only meaningful in leaf functions
without a frame, so treat it as a hint).

An application row (`app_...`, tools/bench.py's apps suite) boots the apps
image with the Debian disk instead, and only the samples taken while a row
runs count (from timeit's `BENCH-BEGIN NAME` line on the console to its
`BENCH NAME` line): `python3 tools/profile.py app_nginx_v4`. The time
spent with the CPU halted is not seen (under `sleep=off` QEMU skips it),
so the split between `[user]` and kernel symbols is of executed
instructions.

Only Kevlar: Linux's symbols are not in its bzImage.
"""
import argparse
import collections
import os
import re
import subprocess
import sys
import tempfile
import time

TOOLS_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(TOOLS_DIR)
sys.path.insert(0, TOOLS_DIR)

from qemu_monitor import Monitor, lookup, symbols  # noqa: E402


def load_bench():
    import importlib.util
    spec = importlib.util.spec_from_file_location("bench", os.path.join(TOOLS_DIR, "bench.py"))
    mod = importlib.util.module_from_spec(spec)
    sys.modules["bench"] = mod
    spec.loader.exec_module(mod)
    return mod


class Window:
    """Follows the console log: open between a `BENCH-BEGIN NAME` line and
    the `BENCH NAME ...` line that ends it."""

    def __init__(self, path: str):
        self.path = path
        self.pos = 0
        self.running = None
        self.partial = ""

    def open(self) -> bool:
        try:
            with open(self.path, errors="replace") as f:
                f.seek(self.pos)
                text = f.read()
                self.pos = f.tell()
        except OSError:
            return False
        text = self.partial + text
        lines = text.split("\n")
        self.partial = lines.pop()
        for line in lines:
            if line.startswith("BENCH-BEGIN "):
                self.running = line.split()[1]
            elif self.running and line.startswith(f"BENCH {self.running} "):
                self.running = None
        return self.running is not None


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("names", nargs="+", help="benchmarks (names as printed by bench)")
    p.add_argument("--kernel", default=os.path.join(REPO_ROOT, "build", "kevlar.elf"))
    p.add_argument("--quick", action="store_true", help="the quick counts (one short round) instead of "
                   "the profile mode's long rounds")
    p.add_argument("--smp", type=int, default=1)
    p.add_argument("--interval", type=float, default=0.002, help="host seconds between samples")
    p.add_argument("--top", type=int, default=30)
    p.add_argument("--callers", action="store_true", help="also sample the word at RSP (return address)")
    p.add_argument("--timeout", type=float, default=600)
    p.add_argument("--by-cr3", action="store_true", help="also split the samples by address space "
                   "(CR3): which process the time went to, kernel and user mode")
    ns = p.parse_args()

    bench = load_bench()
    programs = bench.compile_programs()
    out_dir = os.path.join(REPO_ROOT, "build", "profile")
    os.makedirs(out_dir, exist_ok=True)
    apps = [n for n in ns.names if n.startswith("app_")]
    if apps and len(apps) != len(ns.names):
        raise SystemExit("profile: application rows and microbenchmarks in separate runs")
    disk_args = []
    mem = "512M"
    if apps:
        disk = bench.build_apps_disk(programs)
        image = bench.build_apps_initrd(programs, (["quick"] if ns.quick else []) + apps,
                                        os.path.join(out_dir, "profile-apps.cpio"))
        disk_args = ["-drive", f"file={disk},if=none,id=benchdisk,format=raw,snapshot=on",
                     "-device", "virtio-blk-pci,drive=benchdisk"]
        mem = bench.APPS_MEM
    else:
        # `micro` skips the workloads' input files (user-mode set-up) unless a
        # workload is asked for.
        words = (["quick"] if ns.quick else ["profile"]) + ([] if any(n.startswith("bb_") for n in ns.names) else ["micro"])
        image = bench.build_image(programs, words + ns.names,
                                  os.path.join(out_dir, "profile.cpio"))
    syms = symbols(ns.kernel)
    addrs = [s[0] for s in syms]

    sock_path = os.path.join(tempfile.mkdtemp(prefix="kevlar-profile-"), "monitor")
    log_path = os.path.join(out_dir, "serial.log")
    cmd = ["qemu-system-x86_64", "-machine", "q35", "-accel", "tcg",
           "-cpu", "max,-rdrand,-rdseed,-erms,-fsrm", "-smp", str(ns.smp), "-m", mem,
           "-display", "none", "-vga", "none", "-no-reboot",
           "-device", "isa-debug-exit,iobase=0xf4,iosize=0x04",
           "-serial", f"file:{log_path}", "-monitor", f"unix:{sock_path},server,nowait", "-nic", "none",
           "-kernel", ns.kernel, "-initrd", image,
           "-icount", "shift=0,sleep=off", "-rtc", "base=2026-01-01T00:00:00,clock=vm"] + disk_args
    qemu = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    counts = collections.Counter()
    callers = collections.Counter()
    spaces = collections.Counter()
    total = 0
    deadline = time.monotonic() + ns.timeout
    # An application row: samples count only while a row runs (timeit's
    # BENCH-BEGIN to its BENCH line on the console).
    window = Window(log_path) if apps else None
    try:
        try:
            mon = Monitor(sock_path)
        except ConnectionError as e:
            raise SystemExit(f"profile: {e}")
        while qemu.poll() is None and time.monotonic() < deadline:
            if window and not window.open():
                time.sleep(0.05)
                continue
            try:
                regs = mon.ask("info registers")
            except (EOFError, OSError):
                break
            m = re.search(r"RIP=([0-9a-f]+)", regs)
            if m:
                rip = int(m.group(1), 16)
                where = lookup(syms, addrs, rip) if rip >= 0xffff800000000000 else "[user]"
                counts[where] += 1
                total += 1
                if ns.by_cr3:
                    c = re.search(r"CR3=([0-9a-f]+)", regs)
                    spaces[(c.group(1) if c else "?", where == "[user]")] += 1
                if ns.callers and rip >= 0xffff800000000000:
                    r = re.search(r"RSP=([0-9a-f]+)", regs)
                    if r:
                        word = mon.ask(f"xp /1gx {int(r.group(1), 16)}")
                        w = re.search(r":\s*0x([0-9a-f]+)", word)
                        if w and int(w.group(1), 16) >= 0xffff800000000000:
                            callers[(where, lookup(syms, addrs, int(w.group(1), 16)))] += 1
            time.sleep(ns.interval)
    finally:
        if qemu.poll() is None:
            qemu.kill()
        qemu.wait()
    print(f"profile: {total} samples of {' '.join(ns.names)} ({ns.kernel}); serial output in "
          f"{os.path.relpath(log_path, REPO_ROOT)}")
    for line in open(log_path, errors="replace"):
        if line.startswith("BENCH "):
            print("  " + line.rstrip())
    for name, n in counts.most_common(ns.top):
        print(f"{100.0 * n / max(total, 1):6.2f}% {n:7d}  {name}")
    if ns.by_cr3:
        print("by address space (CR3, user or kernel mode):")
        for (cr3, user), n in spaces.most_common(ns.top):
            print(f"{100.0 * n / max(total, 1):6.2f}% {n:7d}  {cr3} {'user' if user else 'kernel'}")
    if ns.callers:
        print("callers (function <- return address at RSP):")
        for (f, c), n in callers.most_common(ns.top):
            print(f"{n:7d}  {f}  <-  {c}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
