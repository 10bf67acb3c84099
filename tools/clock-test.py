#!/usr/bin/env python3
"""The clock test: Kevlar's clocks must keep real time while the host is
busy (Kevlar only: the check is against the host's clock, not Linux).

It loads the host first (stress-ng --cpu, or busy-looping processes when
stress-ng is missing), so the guest boots and calibrates its clock on a
host that deschedules it; then boots `init=/clock` from the kernel-tests
image (userland/kernel-tests/clock.c) and asks for the guest's clocks twice,
SPAN seconds of host time apart. Each answer is timed on the host by the
midpoint of the request and the reply. Outcomes, each `clock:<what><suffix>`:

    monotonic  CLOCK_MONOTONIC advanced as much as the host's clock, within 1%
               (through the vDSO and through the system call)
    realtime   CLOCK_REALTIME likewise, and the vDSO and the system call agree
    steady     no reading of CLOCK_MONOTONIC was ever below the one before it
               (the guest reads it in a loop the whole time, on every CPU)

The load ends with the run (it is started with a time limit as well).

Usage:
    tools/clock-test.py [--kernel build/kevlar.elf] [--initrd build/kernel-tests.cpio]
                        [--smp 1] [--span 20] [--load N] [--log FILE] [-v]

tools/run-tests.py imports it and calls `run()`.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import time
from typing import Optional

TOOLS_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(TOOLS_DIR)
DEFAULT_INITRD = os.path.join(REPO_ROOT, "build", "kernel-tests.cpio")
DEFAULT_TIMEOUT = 180.0
# Seconds of host time between the two readings, and the tolerance.
SPAN = 20.0
TOLERANCE = 0.01
# Busy processes per host CPU: enough that QEMU's threads are descheduled
# often, as on a shared CI machine.
LOAD_PER_CPU = 2
# A reply slower than this does not time the guest's reading well enough
# (the midpoint is up to half of it off; two such readings could use half
# of the tolerance): ask again, up to TRIES times.
MAX_ROUND_TRIP = 0.1
TRIES = 10
CLOCK_RE = rb"CLOCK (-?\d+) (-?\d+) (-?\d+) (-?\d+)\r?\n"


if TOOLS_DIR not in sys.path:
    sys.path.insert(0, TOOLS_DIR)
from toolload import load as _load  # noqa: E402 (after the path)


def start_load(workers: int, seconds: float) -> list:
    """Starts `workers` CPU-bound processes for at most `seconds`; returns
    them (stop them with stop_load)."""
    limit = max(1, int(seconds))
    if shutil.which("stress-ng"):
        cmd = ["stress-ng", "--cpu", str(workers), "--timeout", f"{limit}s", "--quiet"]
        return [subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                 start_new_session=True)]
    spin = f"import time\nend = time.monotonic() + {limit}\nwhile time.monotonic() < end: pass\n"
    return [subprocess.Popen([sys.executable, "-c", spin], start_new_session=True)
            for _ in range(workers)]


def stop_load(procs: list) -> None:
    for p in procs:
        if p.poll() is None:
            try:
                os.killpg(p.pid, 9)  # stress-ng's workers are in its group
            except ProcessLookupError:
                pass
        p.wait()


def _reading(c) -> tuple:
    """Asks the guest for its clocks; returns (host time of the reading,
    round trip, [mono vDSO, mono syscall, real vDSO, real syscall] in ns)."""
    for _ in range(TRIES):
        c.skip_to_end()
        sent = time.monotonic()
        c.type(b"s\n", delay=0)
        m = c.expect(CLOCK_RE)
        got = time.monotonic()
        if got - sent <= MAX_ROUND_TRIP:
            return (sent + got) / 2, got - sent, [int(x) for x in m.groups()]
    return (sent + got) / 2, got - sent, [int(x) for x in m.groups()]


def judge(host_s: float, before: list, after: list) -> list:
    """(what, passed, detail) for the monotonic and realtime clocks, from
    the host's elapsed seconds and two guest readings. Pure, for tests."""
    out = []
    for what, idx in (("monotonic", (0, 1)), ("realtime", (2, 3))):
        problems, shown = [], []
        for i, how in zip(idx, ("vDSO", "syscall")):
            guest_s = (after[i] - before[i]) / 1e9
            ratio = guest_s / host_s if host_s > 0 else 0.0
            shown.append(f"{how} {guest_s:.3f}s")
            if abs(ratio - 1) > TOLERANCE:
                problems.append(f"{how} advanced {guest_s:.3f}s in {host_s:.3f}s of host time "
                                f"({ratio:.4f}x)")
        for reading in (before, after):
            # The vDSO and the system call read the same clock a few
            # microseconds apart.
            if abs(reading[idx[1]] - reading[idx[0]]) > 50_000_000:
                problems.append(f"vDSO and syscall differ by {(reading[idx[1]] - reading[idx[0]]) / 1e6:.1f} ms")
        detail = "; ".join(problems) if problems else f"{', '.join(shown)} in {host_s:.3f}s of host time"
        out.append((what, not problems, detail))
    return out


def run(kernel: str, initrd: str = DEFAULT_INITRD, smp: int = 1, timeout: float = DEFAULT_TIMEOUT,
        log: Optional[str] = None, echo: bool = False, suffix: str = "", qemu: Optional[str] = None,
        span: float = SPAN, load: Optional[int] = None) -> list:
    """One boot under host load; returns (name, passed, detail) tuples named
    `clock:<what><suffix>`."""
    run_qemu = _load("run_qemu", "run-qemu.py")
    console_mod = _load("interactive_test", "interactive-test.py")
    fields = dict(kernel=kernel, initrd=initrd, smp=smp, append="init=/clock", echo=False)
    if qemu:
        fields["qemu"] = qemu
    opts = run_qemu.Options(**fields)
    names = ["monotonic", "realtime", "steady"]
    workers = load if load is not None else LOAD_PER_CPU * (os.cpu_count() or 1)
    procs = start_load(workers, timeout) if workers > 0 else []
    results = []
    console = None
    try:
        started = time.monotonic()
        console = console_mod.Console(opts, started + timeout, echo, log)
        try:
            console.expect(rb"CLOCK-READY\r?\n", timeout)
            t0, rt0, before = _reading(console)
            time.sleep(max(0.0, t0 + span - time.monotonic()))
            t1, rt1, after = _reading(console)
            for what, ok, detail in judge(t1 - t0, before, after):
                results.append((f"clock:{what}{suffix}", ok,
                                f"{detail} (round trips {rt0 * 1000:.0f}/{rt1 * 1000:.0f} ms, load {workers})"))
            console.skip_to_end()
            console.type(b"q\n", delay=0)
            m = console.expect(rb"CLOCK-STEADY ([^\r\n]*)\r?\n")
            back = re.search(rb"CLOCK-BACKWARDS[^\r\n]*", console.out)
            steady = m.group(1) == b"ok" and back is None
            why = (back.group(0) if back else m.group(0)).decode(errors="replace").strip()
            results.append((f"clock:steady{suffix}", steady, "never went back" if steady else why))
            status = console.wait_exit(30)
            if status != 1:
                results.append((f"clock:poweroff{suffix}", False, f"QEMU status {status} after the test"))
        except console_mod.Timeout as e:
            done = {r[0] for r in results}
            for what in names:
                if f"clock:{what}{suffix}" not in done:
                    results.append((f"clock:{what}{suffix}", False, str(e)))
    finally:
        if console:
            console.close()
        stop_load(procs)
    return results


def main() -> int:
    run_qemu = _load("run_qemu", "run-qemu.py")
    p = argparse.ArgumentParser(description="Kevlar's clocks against the host's, on a loaded host.")
    p.add_argument("--kernel", default=run_qemu.DEFAULT_KERNEL)
    p.add_argument("--initrd", default=DEFAULT_INITRD)
    p.add_argument("--smp", type=int, default=1)
    p.add_argument("--span", type=float, default=SPAN, help="seconds between the readings")
    p.add_argument("--load", type=int, help=f"busy host processes (default {LOAD_PER_CPU} per CPU; 0: none)")
    p.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT)
    p.add_argument("--log", help="write the serial output here")
    p.add_argument("-v", "--verbose", action="store_true", help="echo the serial output")
    args = p.parse_args()
    for path in (args.kernel, args.initrd):
        if not os.path.isfile(path):
            print(f"clock-test: {path} not found (make kernel build/kernel-tests.cpio)", file=sys.stderr)
            return 1
    results = run(args.kernel, args.initrd, args.smp, args.timeout, args.log, args.verbose,
                  span=args.span, load=args.load)
    failed = 0
    for name, ok, detail in results:
        print(f"{'PASS' if ok else 'FAIL'} {name}: {detail}")
        failed += not ok
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
