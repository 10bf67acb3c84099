#!/usr/bin/env python3
"""Boot the Kevlar kernel in QEMU and report how the guest ended.

This is the one place that builds QEMU command lines: `make run`, `make test`
(through tools/run-tests.py) and people debugging by hand all go through it,
so a flag change here reaches every caller.

Use it as a CLI (see --help) or import it:

    spec = importlib.util.spec_from_file_location("run_qemu", "tools/run-qemu.py")
    ...
    result = run_qemu.run(run_qemu.Options(append="test=all", smp=2, echo=False))

How the guest reports its outcome: QEMU is started with an isa-debug-exit
device at port 0xf4. A guest write of value V makes QEMU exit with status
(V << 1) | 1, so the kernel writes 0 for success (status 1) and 1 for failure
or panic (status 3). Every other status -- 0 (QEMU quit by itself, e.g. a
triple fault with -no-reboot), a signal, a QEMU error -- is a failure.
"""

import argparse
import dataclasses
import os
import selectors
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from typing import Optional

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import qemu_monitor  # noqa: E402

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_KERNEL = os.path.join(REPO_ROOT, "build", "kevlar.elf")
DEFAULT_QEMU = "/usr/bin/qemu-system-x86_64"
DEFAULT_TIMEOUT = 120.0

# isa-debug-exit turns the guest's byte V into QEMU status (V << 1) | 1.
STATUS_GUEST_SUCCESS = 1
STATUS_GUEST_FAILURE = 3
# Same convention as coreutils `timeout`, so shell scripts can recognise it.
STATUS_TIMEOUT = 124
# Seconds a silent guest gets to print the state dump Ctrl-] asks for.
DUMP_GRACE_S = 20.0


@dataclasses.dataclass
class Options:
    """Everything that shapes one QEMU run. Field names match the CLI flags."""

    kernel: str = DEFAULT_KERNEL
    initrd: Optional[str] = None
    append: Optional[str] = None
    smp: int = 1
    mem: str = "512M"
    accel: str = "tcg"
    cpu: Optional[str] = None  # None: `max` under TCG, `host` under KVM
    machine: str = "q35"
    icount: bool = False
    # None means "the default for this mode": DEFAULT_TIMEOUT, or no limit
    # for --interactive / --gdb where a human sets the pace. 0 also means none.
    timeout: Optional[float] = None
    # Kill QEMU after this many seconds without serial output (None: no
    # such limit). Long runs that print as they go (the suites) use it to
    # tell a hang from a slow host quickly, with a generous overall timeout.
    quiet_timeout: Optional[float] = None
    # On a quiet timeout, first type Ctrl-] on the serial line (Kevlar's
    # state dump: every process, its state and system call, the run
    # queues) and give the guest DUMP_GRACE_S more seconds to print it, so
    # that a hang seen once in CI leaves evidence in the log.
    dump_on_hang: bool = False
    # QEMU's human monitor on this unix socket instead of none (run() sets
    # it for dump_on_hang: if the guest stays silent after Ctrl-], where
    # each vCPU is comes from the monitor, tools/qemu_monitor.py).
    monitor_socket: Optional[str] = None
    log: Optional[str] = None
    gdb: bool = False
    interactive: bool = False
    expect: str = "success"
    qemu: str = DEFAULT_QEMU
    net: str = "none"
    # Raw disk images attached as virtio-blk PCI devices, in order (the
    # guest sees them as vda, vdb...).
    disks: list = dataclasses.field(default_factory=list)
    # A virtio network card on QEMU's user networking (restricted: nothing
    # leaves QEMU), with these guestfwd rules.
    virtio_net: bool = False
    guestfwd: list = dataclasses.field(default_factory=list)
    # (marker, text) pairs, handled in order: once the serial output contains
    # the marker (after the point where the previous text was sent), send text.
    # A None marker means "send at once".
    inputs: list = dataclasses.field(default_factory=list)
    extra: list = dataclasses.field(default_factory=list)
    # Copy the serial output to our stdout as it arrives. Test runners that
    # only want the Result turn this off.
    echo: bool = True


@dataclasses.dataclass
class Result:
    exit_status: int  # QEMU's status; STATUS_TIMEOUT if we killed it; -N for signal N
    guest_success: bool  # the guest itself reported success through isa-debug-exit
    timed_out: bool
    output: str  # serial output, decoded, with CR LF folded to LF
    elapsed_s: float
    stderr: str = ""  # QEMU's own diagnostics, kept apart from the guest's output
    command: list = dataclasses.field(default_factory=list)
    expected: bool = False  # the outcome matched Options.expect

    @property
    def guest_failure(self) -> bool:
        """The guest itself reported failure (or panicked) through isa-debug-exit."""
        return self.exit_status == STATUS_GUEST_FAILURE and not self.timed_out

    def describe(self) -> str:
        """A short human explanation of the exit status, for reports."""
        if self.timed_out:
            return f"timed out after {self.elapsed_s:.1f}s"
        if self.guest_success:
            return "guest reported success (QEMU status 1)"
        if self.exit_status == STATUS_GUEST_SUCCESS:
            return "QEMU failed to start (status 1, error on stderr, no guest output)"
        if self.exit_status == STATUS_GUEST_FAILURE:
            return "guest reported failure (QEMU status 3)"
        if self.exit_status == 0:
            return "QEMU exited with status 0 (guest reset or shut down without isa-debug-exit)"
        if self.exit_status < 0:
            return f"QEMU killed by signal {-self.exit_status}"
        return f"QEMU exited with unexpected status {self.exit_status}"


def _coerce(opts) -> Options:
    """Accept an Options, a dict or an argparse Namespace, so callers need not
    care which one they built."""
    if isinstance(opts, Options):
        return opts
    if isinstance(opts, dict):
        return Options(**opts)
    return Options(**vars(opts))


def effective_timeout(opts: Options) -> Optional[float]:
    if opts.timeout is None:
        # A human at the keyboard or in gdb must not be cut off mid-session.
        return None if (opts.interactive or opts.gdb) else DEFAULT_TIMEOUT
    return opts.timeout if opts.timeout > 0 else None


def build_command(opts) -> list[str]:
    """The QEMU argv for these options. Pure: touches no files."""
    opts = _coerce(opts)
    if opts.accel not in ("tcg", "kvm"):
        raise ValueError(f"accel must be tcg or kvm, not {opts.accel!r}")
    if opts.icount and opts.accel != "tcg":
        # QEMU rejects -icount under KVM; say so before it does, more clearly.
        raise ValueError("--icount needs the TCG accelerator")
    cpu = opts.cpu or ("host" if opts.accel == "kvm" else "max")

    cmd = [
        opts.qemu,
        "-machine", opts.machine,
        "-accel", opts.accel,
        "-cpu", cpu,
        "-smp", str(opts.smp),
        "-m", str(opts.mem),
        "-display", "none",
        "-vga", "none",
        # A triple fault must end the run, not silently reboot into a loop.
        "-no-reboot",
        "-device", "isa-debug-exit,iobase=0xf4,iosize=0x04",
    ]
    if opts.interactive:
        # mon: multiplexes the QEMU monitor onto the terminal, so Ctrl-A X
        # quits and Ctrl-A C reaches the monitor; giving a monitor here also
        # stops QEMU from creating its default one.
        cmd += ["-serial", "mon:stdio"]
    else:
        # The serial port is the only thing on our stdout, so what we read
        # there is exactly the guest's console.
        monitor = f"unix:{opts.monitor_socket},server,nowait" if opts.monitor_socket else "none"
        cmd += ["-serial", "stdio", "-monitor", monitor]
    if opts.virtio_net:
        netdev = "user,id=n0,restrict=on" + "".join(f",guestfwd={rule}" for rule in opts.guestfwd)
        cmd += ["-netdev", netdev, "-device", "virtio-net-pci,netdev=n0"]
    else:
        cmd += ["-nic", "none"] if opts.net == "none" else ["-nic", opts.net]
    for i, disk in enumerate(opts.disks):
        # discard=unmap: the guest's discards and unmapping write-zeroes
        # deallocate the image's blocks (QEMU's default ignores them).
        cmd += ["-drive", f"file={disk},if=none,id=d{i},format=raw,discard=unmap",
                "-device", f"virtio-blk-pci,drive=d{i}"]
    cmd += ["-kernel", opts.kernel]
    if opts.initrd:
        cmd += ["-initrd", opts.initrd]
    if opts.append is not None:
        cmd += ["-append", opts.append]
    if opts.icount:
        # shift=0: one instruction = 1 ns of guest time; sleep=off: guest time
        # does not wait for the host clock. Together: repeatable timings.
        cmd += ["-icount", "shift=0,sleep=off"]
    if opts.gdb:
        cmd += ["-s", "-S"]
    cmd += list(opts.extra)
    return cmd


def _looks_like_qemu_error(stderr: str) -> bool:
    """QEMU exits with status 1 on its own errors (bad option, unloadable
    kernel), which is the same status as guest success. Its errors go to
    stderr and are not warnings."""
    for line in stderr.splitlines():
        line = line.strip()
        if line and "warning:" not in line:
            return True
    return False


def _decode_escapes(text: str) -> str:
    r"""Let `--input 'root\n'` mean a newline, as people expect on a CLI."""
    # unicode_escape reads bytes as latin-1; escaping non-latin-1 characters
    # first keeps e.g. "é" intact through the round trip.
    return text.encode("latin-1", "backslashreplace").decode("unicode_escape")


class _Sink:
    """Where serial bytes go as they arrive: our stdout and/or a log file."""

    def __init__(self, echo: bool, log_path: Optional[str]):
        self.echo = echo
        self.log = open(log_path, "wb") if log_path else None
        self.last_byte = b"\n"

    def write(self, data: bytes) -> None:
        if not data:
            return
        self.last_byte = data[-1:]
        if self.echo:
            sys.stdout.buffer.write(data)
            sys.stdout.buffer.flush()
        if self.log:
            self.log.write(data)
            self.log.flush()

    def note(self, line: str) -> None:
        """A line of our own (e.g. TIMEOUT), started on a fresh line so it
        cannot be mistaken for part of a guest line."""
        prefix = b"" if self.last_byte == b"\n" else b"\n"
        data = prefix + line.encode() + b"\n"
        if self.echo:
            sys.stdout.flush()
            sys.stdout.buffer.write(data)
            sys.stdout.buffer.flush()
        if self.log:
            self.log.write(data)
            self.log.flush()
        self.last_byte = b"\n"

    def close(self) -> None:
        if self.log:
            self.log.close()


def _outcome(status: int, timed_out: bool, output: bytes, stderr: str,
             captured: bool) -> bool:
    if timed_out or status != STATUS_GUEST_SUCCESS:
        return False
    # Status 1 with no guest output but an error on stderr was QEMU failing
    # to start, not the guest passing. (Without capture we cannot tell.)
    if captured and not output and _looks_like_qemu_error(stderr):
        return False
    return True


def _matches_expect(opts: Options, result: Result) -> bool:
    if result.timed_out:
        return False
    if opts.expect == "failure":
        # A deliberate fault must be reported by the kernel itself (status 3);
        # a QEMU crash or triple fault is not the failure we were testing for.
        return result.exit_status == STATUS_GUEST_FAILURE
    return result.guest_success


def run(opts) -> Result:
    """Boot QEMU, stream its serial output, and return how it ended."""
    opts = _coerce(opts)
    if opts.expect not in ("success", "failure"):
        raise ValueError(f"expect must be success or failure, not {opts.expect!r}")
    monitor_dir = None
    if opts.dump_on_hang and not opts.interactive and not opts.monitor_socket:
        monitor_dir = tempfile.mkdtemp(prefix="kevlar-qemu-")
        opts = dataclasses.replace(opts, monitor_socket=os.path.join(monitor_dir, "monitor"))
    cmd = build_command(opts)
    timeout = effective_timeout(opts)
    inputs = [(m, _decode_escapes(t).encode("utf-8")) for m, t in opts.inputs]

    # Interactive runs without a log hand the terminal straight to QEMU:
    # nothing to capture, and no latency or tty quirks added by a relay.
    capture = not opts.interactive or bool(opts.log)
    if opts.interactive:
        stdin = None  # the user's keyboard
    elif inputs or opts.dump_on_hang:
        stdin = subprocess.PIPE
    else:
        # A test run must never read (or put into raw mode) the user's terminal.
        stdin = subprocess.DEVNULL

    sink = _Sink(opts.echo, opts.log)
    out = bytearray()
    err = bytearray()
    timed_out = False
    start = time.monotonic()
    try:
        proc = subprocess.Popen(
            cmd,
            stdin=stdin,
            stdout=subprocess.PIPE if capture else None,
            stderr=subprocess.PIPE if capture else None,
        )
    except OSError:
        sink.close()
        raise
    try:
        if capture:
            timed_out = _pump(proc, sink, out, err, inputs, opts.echo, start, timeout,
                              opts.quiet_timeout, opts.dump_on_hang)
        else:
            try:
                proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                timed_out = True
        if timed_out == "quiet" and opts.monitor_socket and proc.poll() is None:
            # The state dump did not come: ask QEMU where each CPU is.
            for line in qemu_monitor.vcpu_report(opts.monitor_socket, opts.kernel):
                sink.note(line)
        if timed_out:
            proc.kill()
        status = proc.wait()
    finally:
        # Ctrl-C or an exception in here must not leave a QEMU behind.
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for pipe in (proc.stdin, proc.stdout, proc.stderr):
            if pipe:
                try:
                    pipe.close()
                except OSError:
                    pass  # e.g. EPIPE flushing stdin to a dead QEMU
        elapsed = time.monotonic() - start
        if monitor_dir:
            shutil.rmtree(monitor_dir, ignore_errors=True)
        if timed_out == "quiet":
            sink.note(f"TIMEOUT: QEMU killed after {elapsed:.1f}s: no output for "
                      f"{opts.quiet_timeout:g}s; the guest did not exit")
        elif timed_out:
            sink.note(f"TIMEOUT: QEMU killed after {elapsed:.1f}s "
                      f"(limit {timeout:g}s); the guest did not exit")
        sink.close()

    stderr_text = err.decode("utf-8", "replace")
    timed_out = bool(timed_out)
    if timed_out:
        status = STATUS_TIMEOUT
    result = Result(
        exit_status=status,
        guest_success=_outcome(status, timed_out, bytes(out), stderr_text, capture),
        timed_out=timed_out,
        output=out.decode("utf-8", "replace").replace("\r\n", "\n").replace("\r", "\n"),
        elapsed_s=elapsed,
        stderr=stderr_text,
        command=cmd,
    )
    result.expected = _matches_expect(opts, result)
    return result


def _pump(proc, sink, out, err, inputs, echo, start, timeout, quiet=None, dump=False):
    """Relay QEMU's stdout/stderr until both close, feeding serial input when
    its marker shows up. Returns "deadline" if the deadline passed first,
    "quiet" if the serial output stayed silent for `quiet` seconds, else
    None. One thread and a selector: no races between readers and the
    timeout."""
    deadline = None if timeout is None else start + timeout
    last_output = start
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ, "out")
    sel.register(proc.stderr, selectors.EVENT_READ, "err")
    search_from = 0
    pending = list(inputs)

    def feed():
        nonlocal search_from
        while pending:
            marker, text = pending[0]
            if marker is not None:
                idx = out.find(marker.encode("utf-8"), search_from)
                if idx < 0:
                    return
                search_from = idx + len(marker)
            pending.pop(0)
            try:
                proc.stdin.write(text)
                proc.stdin.flush()
            except (BrokenPipeError, OSError):
                pending.clear()  # QEMU is gone; its exit status will tell why
                return

    feed()
    open_streams = 2
    while open_streams:
        wait = None
        now = time.monotonic()
        if deadline is not None:
            wait = deadline - now
            if wait <= 0:
                return "deadline"
        if quiet:
            left = last_output + quiet - now
            if left <= 0 and dump:
                # Once: ask for the state dump, then wait for it.
                dump = False
                sink.note(f"QUIET: no output for {quiet:g}s; typing Ctrl-] for a state dump")
                try:
                    proc.stdin.write(b"\x1d")
                    proc.stdin.flush()
                except (BrokenPipeError, OSError):
                    pass
                quiet = DUMP_GRACE_S
                last_output = now
                left = quiet
            if left <= 0:
                return "quiet"
            wait = left if wait is None else min(wait, left)
        for key, _ in sel.select(wait):
            data = os.read(key.fileobj.fileno(), 65536)
            if not data:
                sel.unregister(key.fileobj)
                open_streams -= 1
                continue
            if key.data == "out":
                out += data
                last_output = time.monotonic()
                sink.write(data)
                if pending:
                    feed()
            else:
                err += data
                if echo:
                    sys.stderr.buffer.write(data)
                    sys.stderr.buffer.flush()
    # Streams closed: QEMU is exiting. Give it until the deadline to do so.
    try:
        proc.wait(timeout=None if deadline is None else max(0.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        return "deadline"
    return None


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="run-qemu.py",
        description="Boot the Kevlar kernel in QEMU. Exit status: 0 if the run "
        "matched --expect, 1 if not, 124 on timeout.",
        epilog="Everything after --extra is passed to QEMU verbatim, so put it last.",
    )
    p.add_argument("--kernel", default=DEFAULT_KERNEL, help="kernel ELF (default: build/kevlar.elf)")
    p.add_argument("--initrd", help="initramfs image")
    p.add_argument("--append", help="kernel command line")
    p.add_argument("--smp", type=int, default=1, help="CPU count (default 1)")
    p.add_argument("--mem", default="512M", help="guest RAM (default 512M)")
    p.add_argument("--accel", choices=("tcg", "kvm"), default="tcg",
                   help="accelerator (default tcg: this host's KVM kills guests)")
    p.add_argument("--kvm", dest="accel", action="store_const", const="kvm",
                   help="shorthand for --accel kvm")
    p.add_argument("--cpu", help="CPU model (default: max under TCG, host under KVM)")
    p.add_argument("--machine", default="q35", help="machine type (default q35)")
    p.add_argument("--icount", action="store_true",
                   help="deterministic guest time (-icount shift=0,sleep=off), for measurements")
    p.add_argument("--timeout", type=float, metavar="SECONDS",
                   help=f"kill QEMU after this long (default {DEFAULT_TIMEOUT:g}; "
                   "none with --interactive/--gdb; 0 = none)")
    p.add_argument("--quiet-timeout", type=float, metavar="SECONDS",
                   help="kill QEMU after this long without serial output")
    p.add_argument("--dump-on-hang", action="store_true",
                   help="before a quiet timeout kills QEMU, type Ctrl-] for Kevlar's state dump")
    p.add_argument("--log", metavar="FILE", help="also write the serial output to FILE")
    p.add_argument("--gdb", action="store_true",
                   help="wait for gdb on localhost:1234 before starting (-s -S)")
    p.add_argument("--interactive", action="store_true",
                   help="serial console on this terminal (Ctrl-A X quits)")
    p.add_argument("--expect", choices=("success", "failure"), default="success",
                   help="the outcome that counts as passing (default success)")
    p.add_argument("--print-cmd", action="store_true",
                   help="print the QEMU command line and exit without running it")
    p.add_argument("-v", "--verbose", action="store_true",
                   help="print the QEMU command line to stderr, then run it")
    p.add_argument("-q", "--quiet", action="store_true",
                   help="do not echo the serial output (still logged with --log)")
    p.add_argument("--qemu", default=DEFAULT_QEMU, help=f"QEMU binary (default {DEFAULT_QEMU})")
    p.add_argument("--net", default="none", metavar="SPEC",
                   help="`none` (default) or a -nic spec such as user,model=virtio-net-pci")
    p.add_argument("--disk", action="append", default=[], metavar="IMAGE",
                   help="attach a raw disk image as a virtio-blk PCI device (repeatable; vda, vdb...)")
    p.add_argument("--virtio-net", action="store_true",
                   help="add a virtio-net-pci card on restricted user networking (10.0.2.15/24 in the guest)")
    p.add_argument("--guestfwd", action="append", default=[], metavar="RULE",
                   help="with --virtio-net: a guestfwd rule, e.g. tcp:10.0.2.100:7-cmd:cat")
    p.add_argument("--input-after", action="append", default=[], metavar="MARKER",
                   help="send the next --input once the serial output contains MARKER")
    p.add_argument("--input", action="append", default=[], metavar="TEXT",
                   help="text for the guest's serial input (\\n etc. are decoded); "
                   "paired in order with --input-after, unpaired ones are sent at once")
    p.add_argument("--extra", nargs=argparse.REMAINDER, default=[], metavar="ARGS",
                   help="extra QEMU arguments, appended verbatim")
    return p


def parse_args(argv=None) -> tuple[Options, argparse.Namespace]:
    p = _parser()
    ns = p.parse_args(argv)
    if len(ns.input_after) > len(ns.input):
        p.error("each --input-after needs an --input")
    if ns.icount and ns.accel != "tcg":
        p.error("--icount needs --accel tcg")
    if ns.interactive and ns.input:
        p.error("--input makes no sense with --interactive: type it yourself")
    if ns.smp < 1:
        p.error("--smp must be at least 1")
    # Pair markers with texts in order; texts beyond the markers go at once,
    # ahead of the marker-triggered ones since they have nothing to wait for.
    paired = list(zip(ns.input_after, ns.input))
    unpaired = [(None, t) for t in ns.input[len(ns.input_after):]]
    opts = Options(
        kernel=ns.kernel, initrd=ns.initrd, append=ns.append, smp=ns.smp,
        mem=ns.mem, accel=ns.accel, cpu=ns.cpu, machine=ns.machine,
        icount=ns.icount, timeout=ns.timeout, quiet_timeout=ns.quiet_timeout, dump_on_hang=ns.dump_on_hang, log=ns.log, gdb=ns.gdb,
        interactive=ns.interactive, expect=ns.expect, qemu=ns.qemu,
        net=ns.net, disks=ns.disk, virtio_net=ns.virtio_net, guestfwd=ns.guestfwd,
        inputs=unpaired + paired, extra=ns.extra,
        echo=not ns.quiet,
    )
    return opts, ns


def main(argv=None) -> int:
    opts, ns = parse_args(argv)
    cmd = build_command(opts)
    if ns.print_cmd:
        print(shlex.join(cmd))
        return 0
    for path, what in ((opts.kernel, "kernel"), (opts.initrd, "initrd")):
        if path and not os.path.isfile(path):
            print(f"run-qemu: {what} not found: {path}", file=sys.stderr)
            return 1
    if ns.verbose:
        print("run-qemu: " + shlex.join(cmd), file=sys.stderr)
    if opts.gdb:
        print("run-qemu: QEMU is waiting for gdb: target remote :1234", file=sys.stderr)
    try:
        result = run(opts)
    except FileNotFoundError as e:
        print(f"run-qemu: cannot start QEMU: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    if result.timed_out:
        return STATUS_TIMEOUT
    if opts.interactive and result.exit_status == 0:
        # Ctrl-A X ends QEMU with status 0; quitting by hand is not an error
        # for `make run`. A triple fault looks the same, hence the wording.
        print("run-qemu: QEMU quit without a guest exit (Ctrl-A X, or a triple fault)",
              file=sys.stderr)
        return 0
    if not result.expected:
        print(f"run-qemu: expected {opts.expect}, but {result.describe()}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
