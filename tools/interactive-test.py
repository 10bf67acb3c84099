#!/usr/bin/env python3
"""Interactive tests: boot the interactive image (build/interactive.cpio) and
use its BusyBox shell on the serial console as a person would.

The driver types one key at a time, waits for the shell's prompt, sends
control keys (Ctrl-C, Ctrl-Z, arrows, Escape), and checks what the screen
shows. Each check is one test:

    boot          the shell's prompt appears
    command       a command runs and prints its result
    ctrl-c        Ctrl-C ends a foreground `sleep 100` (status 130)
    ctrl-c-busy   Ctrl-C stops a shell loop that never makes a system call
                  (console input is taken on every return to user mode)
    ctrl-z-fg     Ctrl-Z stops a `sleep 100`, `jobs` lists it, `fg` resumes
                  it, Ctrl-C ends it
    background-read  a background job reading the terminal stops (SIGTTIN)
    backspace     a typo erased with Backspace before Enter (the shell's
                  own line editing)
    canonical-read  `read` takes a line the terminal edited: Backspace and
                  Ctrl-U handled by the kernel's line discipline
    history       Up-arrow brings the last command back
    winsize       `stty size` shows the terminal size, and follows `stty rows`
    vi            vi: insert text, :wq, then cat shows it
    respawn       `exit` ends the shell; init starts a new one with a
                  working terminal (the console hung up and was taken again)
    poweroff      `poweroff` ends the machine cleanly (QEMU's success status)

Usage:
    tools/interactive-test.py [--kernel build/kevlar.elf] [--initrd build/interactive.cpio]
                              [--smp 1] [--timeout 300] [--log FILE] [-v]

Prints `PASS interactive:<check>` or `FAIL interactive:<check>: why` per
check and exits 0 when all passed. tools/run-tests.py imports it and calls
`run()`. Every wait has a deadline and the whole run has a timeout: a hang
fails the checks it reached and kills QEMU.
"""

import argparse
import os
import re
import selectors
import subprocess
import sys
import time
from typing import Optional

TOOLS_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(TOOLS_DIR)
DEFAULT_INITRD = os.path.join(REPO_ROOT, "build", "interactive.cpio")
DEFAULT_TIMEOUT = 600.0
# Per wait: TCG is slow and the machine is shared, so generous. No check
# waits a fixed time for the guest to be ready: each key goes in once the
# screen shows that the program meant to receive it is reading (a loaded
# host can hold the guest back for seconds).
STEP_TIMEOUT = 120.0
# Seconds between keys: a fast typist, not a paste.
KEY_DELAY = 0.01
PROMPT_RE = rb"kevlar:[^\r\n]*# "

CHECKS = ["boot", "command", "ctrl-c", "ctrl-c-busy", "ctrl-z-fg", "background-read", "backspace",
          "canonical-read", "history", "winsize", "vi", "respawn", "system", "poweroff"]


if TOOLS_DIR not in sys.path:
    sys.path.insert(0, TOOLS_DIR)
from toolload import load as _load  # noqa: E402 (after the path)


class Timeout(Exception):
    pass


class Console:
    """QEMU with the guest's serial console on a pipe."""

    def __init__(self, opts, deadline: float, echo: bool, log: Optional[str]):
        run_qemu = _load("run_qemu", "run-qemu.py")
        self.cmd = run_qemu.build_command(opts)
        self.proc = subprocess.Popen(self.cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE)
        self.sel = selectors.DefaultSelector()
        self.sel.register(self.proc.stdout, selectors.EVENT_READ, "out")
        self.sel.register(self.proc.stderr, selectors.EVENT_READ, "err")
        self.out = bytearray()
        self.err = bytearray()
        self.mark = 0  # searches start here
        self.deadline = deadline
        self.echo = echo
        self.log = open(log, "wb") if log else None
        self.open_streams = 2

    def _pump(self, wait: float) -> None:
        if self.open_streams == 0:
            time.sleep(min(wait, 0.05))
            return
        for key, _ in self.sel.select(max(0.0, wait)):
            data = os.read(key.fileobj.fileno(), 65536)
            if not data:
                self.sel.unregister(key.fileobj)
                self.open_streams -= 1
                continue
            if key.data == "out":
                self.out += data
                if self.echo:
                    sys.stdout.buffer.write(data)
                    sys.stdout.buffer.flush()
                if self.log:
                    self.log.write(data)
                    self.log.flush()
            else:
                self.err += data

    def expect(self, pattern: bytes, timeout: float = STEP_TIMEOUT) -> re.Match:
        """Waits until `pattern` matches output after the mark; moves the
        mark past the match."""
        regex = re.compile(pattern)
        end = min(time.monotonic() + timeout, self.deadline)
        while True:
            m = regex.search(self.out, self.mark)
            if m:
                self.mark = m.end()
                return m
            if self.proc.poll() is not None and self.open_streams == 0:
                raise Timeout(f"QEMU exited (status {self.proc.returncode}) before {pattern!r} appeared")
            left = end - time.monotonic()
            if left <= 0:
                tail = bytes(self.out[self.mark:])[-300:]
                raise Timeout(f"no {pattern!r} within {timeout:g}s; screen since last step ends {tail!r}")
            self._pump(min(left, 0.2))

    def settle(self, seconds: float) -> None:
        """Keeps reading for `seconds` (for screens that redraw)."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self._pump(end - time.monotonic())

    def type(self, text: bytes, delay: float = KEY_DELAY) -> None:
        for i in range(len(text)):
            self.proc.stdin.write(text[i:i + 1])
            self.proc.stdin.flush()
            self._pump(delay)

    def skip_to_end(self) -> None:
        self.mark = len(self.out)

    def close(self) -> int:
        if self.proc.poll() is None:
            self.proc.kill()
        status = self.proc.wait()
        for pipe in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                pipe.close()
            except OSError:
                pass
        if self.log:
            self.log.close()
        return status

    def wait_exit(self, timeout: float) -> Optional[int]:
        end = min(time.monotonic() + timeout, self.deadline)
        while time.monotonic() < end:
            if self.proc.poll() is not None:
                while self.open_streams:
                    self._pump(0.1)
                return self.proc.returncode
            self._pump(0.1)
        return None


def _line(text: bytes) -> bytes:
    """A pattern for `text` alone on an output line."""
    # The newline before it may be part of the previous match.
    return rb"(?<=\n)" + re.escape(text) + rb"\r?\n"


def _prompt(c: Console) -> None:
    c.expect(PROMPT_RE)


def _run(c: Console, command: bytes) -> None:
    """Types a command and Enter; the mark stays before its output."""
    c.skip_to_end()
    c.type(command + b"\r")


def _step(c: Console, command: bytes, *patterns: bytes) -> None:
    """Runs `command`, expects each pattern in turn, then the prompt."""
    _run(c, command)
    for pattern in patterns:
        c.expect(pattern)
    _prompt(c)


# Each check gets the console at a fresh prompt and leaves it at one.

def check_boot(c: Console) -> None:
    _prompt(c)
    c.settle(0.5)


def check_command(c: Console) -> None:
    _step(c, b"echo $((6*7)) $(uname -s)", _line(b"42 Linux"))


# A foreground job that says it has the terminal: the job's own process
# prints `started` (the shell made it the foreground process group before
# it ran), then becomes `sleep 100`, so a key typed after that line reaches
# the job, never the shell's line editor.
SLEEPER = b"sh -c 'echo started; exec sleep 100'"


def _start_job(c: Console, command: bytes) -> None:
    """Runs `command` (which prints `started` once it holds the terminal)
    and returns when that line is out."""
    _run(c, command)
    c.expect(_line(b"started"))


def check_ctrl_c(c: Console) -> None:
    _start_job(c, SLEEPER)
    c.type(b"\x03")
    c.expect(rb"\^C")
    _prompt(c)
    _step(c, b"echo status=$?", _line(b"status=130"))


def check_ctrl_c_busy(c: Console) -> None:
    # The loop runs in a child shell, not the interactive one: BusyBox ash
    # (1.35) leaves its SIGINT handler by longjmp, so a Ctrl-C that lands
    # inside malloc or a variable update can deadlock it on malloc's lock or
    # leave `i` empty; both happen on Linux too (each about 1 in 100 Ctrl-Cs
    # under a Linux 6.18 host). The child has SIGINT's default action, so the kernel itself has
    # to stop a task that makes no system call. `looping` comes out once the
    # loop has counted to 1000; after that it makes none.
    _run(c, b"sh -c 'i=0; while :; do i=$((i+1)); [ $i = 1000 ] && echo looping; done'")
    c.expect(_line(b"looping"))
    c.type(b"\x03")
    c.expect(rb"\^C")
    _prompt(c)
    _step(c, b"echo status=$?", _line(b"status=130"))


def check_ctrl_z_fg(c: Console) -> None:
    # The job says `resumed` when SIGCONT reaches it, which `fg` sends after
    # giving it the terminal back (the trap runs when its `sleep 1` ends).
    job = b"sh -c 'trap \"echo resumed\" CONT; echo started; while :; do sleep 1; done'"
    _start_job(c, job)
    c.type(b"\x1a")
    c.expect(rb"Stopped\s+sh -c")
    _prompt(c)
    _step(c, b"jobs", rb"\[1\]\+\s+Stopped\s+sh -c")
    _run(c, b"fg")
    c.expect(_line(b"resumed"))
    c.type(b"\x03")
    _prompt(c)
    _step(c, b"echo status=$? jobs=$(jobs | wc -l)", _line(b"status=130 jobs=0"))


def check_background_read(c: Console) -> None:
    _run(c, b"cat &")
    _prompt(c)
    # `jobs` until the shell has seen cat stop: cat must first run and read.
    end = time.monotonic() + STEP_TIMEOUT
    while True:
        _run(c, b"jobs")
        m = c.expect(rb"\[1\]\+\s+(Stopped \(tty input\)|Running)\s+cat")
        _prompt(c)
        if m.group(1).startswith(b"Stopped"):
            break
        if time.monotonic() > end:
            raise Timeout(f"cat still running after {STEP_TIMEOUT:g}s (no SIGTTIN stop)")
        c.settle(0.5)
    _step(c, b"kill -9 %1; wait; echo done", _line(b"done"))


def check_backspace(c: Console) -> None:
    _step(c, b"echo abx\x7fc-ok\x7f\x7fok", _line(b"abc-ok"))


def check_canonical_read(c: Console) -> None:
    # `ready` is out once the shell has put the terminal back in canonical
    # mode (its line editor is done): the kernel edits what comes next.
    _run(c, b"echo ready; read line; echo \"[$line]\"")
    c.expect(_line(b"ready"))
    c.type(b"junk\x15abz\x7fc d\r")
    c.expect(_line(b"[abc d]"))
    _prompt(c)


def check_history(c: Console) -> None:
    _step(c, b"echo hist-$((40+2))", _line(b"hist-42"))
    c.skip_to_end()
    c.type(b"\x1b[A")
    c.expect(re.escape(b"echo hist-$((40+2))"))  # the editor shows the line again
    c.type(b"\r")
    c.expect(_line(b"hist-42"))
    _prompt(c)


def check_winsize(c: Console) -> None:
    _step(c, b"stty size", _line(b"24 80"))
    _step(c, b"stty rows 30 cols 100; stty size; stty rows 24 cols 80", _line(b"30 100"))


def check_vi(c: Console) -> None:
    _run(c, b"vi /tmp/vi-test.txt")
    c.expect(rb"~\x1b\[")  # vi draws its empty-line markers
    c.expect(rb"vi-test\.txt")  # then its status line
    c.settle(1.0)
    c.type(b"iHello from vi")
    c.type(b"\rsecond line\x1b")
    c.settle(1.0)  # vi waits a moment after Escape for a key sequence
    c.type(b":wq\r")
    _prompt(c)
    _step(c, b"cat /tmp/vi-test.txt; wc -l < /tmp/vi-test.txt", _line(b"Hello from vi"), _line(b"second line"), _line(b"2"))


def check_respawn(c: Console) -> None:
    _step(c, b"exit", rb"BusyBox v[0-9.]+")
    _run(c, b"echo again; tty; jobs; " + SLEEPER)
    c.expect(_line(b"again"))
    c.expect(_line(b"/dev/ttyS0"))
    c.expect(_line(b"started"))
    c.type(b"\x03")
    _prompt(c)


def check_system(c: Console) -> None:
    """The /proc-, /sys- and syslog-based applets a person tries first."""
    _step(c, b"ps -o pid,comm | grep -q \" $$ sh$\" && echo shell-listed", _line(b"shell-listed"))
    _step(c, b"free | head -1", rb"total\s+used\s+free")
    _step(c, b"mount | grep -c -E ' on /(proc|sys|dev|dev/pts|tmp|run) type '", _line(b"6"))
    _step(c, b"df /tmp | tail -1", rb"tmpfs\s+\d+\s+\d+\s+\d+\s+\d+% /tmp")
    _step(c, b"dmesg | grep -c -i kevlar", rb"\n[1-9][0-9]*\r?\n")
    _step(c, b"hostname; uptime | grep -c 'load average'", _line(b"kevlar"), _line(b"1"))


def check_poweroff(c: Console) -> None:
    _run(c, b"poweroff")
    status = c.wait_exit(STEP_TIMEOUT)
    if status is None:
        raise Timeout(f"QEMU still running {STEP_TIMEOUT:g}s after poweroff")
    if status != 1:
        raise Timeout(f"QEMU exited with status {status}, not 1 (the guest's success exit)")
    if b"kevlar: power off" not in c.out:
        raise Timeout("no `kevlar: power off` line")


CHECK_FUNCS = {
    "boot": check_boot, "command": check_command, "ctrl-c": check_ctrl_c, "system": check_system,
    "ctrl-c-busy": check_ctrl_c_busy,
    "ctrl-z-fg": check_ctrl_z_fg, "background-read": check_background_read,
    "backspace": check_backspace, "canonical-read": check_canonical_read,
    "history": check_history, "winsize": check_winsize, "vi": check_vi,
    "respawn": check_respawn, "poweroff": check_poweroff,
}


def run(kernel: str, initrd: str = DEFAULT_INITRD, smp: int = 1, timeout: float = DEFAULT_TIMEOUT,
        log: Optional[str] = None, echo: bool = False, suffix: str = "", qemu: Optional[str] = None,
        append: str = "") -> list:
    """Runs every check in one boot; returns (name, passed, detail) tuples
    named `interactive:<check><suffix>`. After a failed check the rest are
    still tried (a failure in one often leaves a usable prompt); once QEMU is
    gone they fail with the reason."""
    run_qemu = _load("run_qemu", "run-qemu.py")
    fields = dict(kernel=kernel, initrd=initrd, smp=smp, append=append or None, echo=False)
    if qemu:
        fields["qemu"] = qemu
    opts = run_qemu.Options(**fields)
    results = []
    started = time.monotonic()
    console = Console(opts, started + timeout, echo, log)
    try:
        for name in CHECKS:
            full = f"interactive:{name}{suffix}"
            if console.proc.poll() is not None and name != "poweroff":
                results.append((full, False, f"QEMU exited (status {console.proc.returncode}) before this check"))
                continue
            t0 = time.monotonic()
            try:
                CHECK_FUNCS[name](console)
                results.append((full, True, f"{time.monotonic() - t0:.1f}s"))
            except Timeout as e:
                results.append((full, False, str(e)))
                # Get back to a prompt for the next check: interrupt, then
                # a fresh line.
                if console.proc.poll() is None:
                    try:
                        console.type(b"\x1b\x03\r")
                        console.skip_to_end()
                        console.expect(PROMPT_RE, 10)
                    except (Timeout, OSError):
                        pass
            except OSError as e:
                results.append((full, False, f"console I/O failed: {e}"))
    finally:
        console.close()
    return results


def main() -> int:
    run_qemu = _load("run_qemu", "run-qemu.py")
    p = argparse.ArgumentParser(description="Interactive tests of the BusyBox shell on Kevlar's console.")
    p.add_argument("--kernel", default=run_qemu.DEFAULT_KERNEL)
    p.add_argument("--initrd", default=DEFAULT_INITRD)
    p.add_argument("--smp", type=int, default=1)
    p.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, help="seconds for the whole run")
    p.add_argument("--append", default="", help="kernel command line")
    p.add_argument("--log", help="write the serial output here")
    p.add_argument("-v", "--verbose", action="store_true", help="echo the serial output")
    args = p.parse_args()
    for path in (args.kernel, args.initrd):
        if not os.path.isfile(path):
            print(f"interactive-test: {path} not found (make kernel; tools/build-interactive.py)", file=sys.stderr)
            return 1
    results = run(args.kernel, args.initrd, args.smp, args.timeout, args.log, args.verbose, append=args.append)
    failed = 0
    for name, ok, detail in results:
        print(f"{'PASS' if ok else 'FAIL'} {name}: {detail}")
        failed += not ok
    print(f"{len(results) - failed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
