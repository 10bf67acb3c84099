"""QEMU's human monitor (HMP) over a unix socket, and what the tools ask
of it: the vCPUs' registers and, for a hung guest, where each CPU is.

tools/profile.py samples the instruction pointer through it; run-qemu.py
asks it where every CPU is when a silent guest did not print the state
dump Ctrl-] asked for. That happens when the kernel cannot take the
serial interrupt (a CPU spinning with interrupts masked, both CPUs
waiting on each other), so the evidence has to come from outside: the
registers of each vCPU and a walk of its frame-pointer chain (the kernel
is built with frame pointers), symbolized with the ELF's symbol table.
"""
import bisect
import re
import socket
import subprocess
import time

# Kernel addresses are in the top half; a frame pointer outside it ends a walk.
KERNEL_BASE = 0xffff_8000_0000_0000
MAX_FRAMES = 24


def symbols(elf: str):
    """Sorted (address, size, name) of the ELF's text symbols."""
    out = subprocess.run(["nm", "-C", "-S", "--defined-only", elf], capture_output=True, text=True,
                         check=True).stdout
    syms = []
    for line in out.splitlines():
        parts = line.split(" ", 3)
        if len(parts) == 4 and parts[2].lower() in ("t", "w"):
            syms.append((int(parts[0], 16), int(parts[1], 16), parts[3]))
    syms.sort()
    return syms


def lookup(syms, addrs, rip: int) -> str:
    i = bisect.bisect_right(addrs, rip) - 1
    if i >= 0:
        start, size, name = syms[i]
        if rip < start + max(size, 1) or size == 0:
            return name
    return f"?{rip:#x}"


class Monitor:
    def __init__(self, path: str, attempts: int = 200):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        for _ in range(attempts):
            try:
                self.sock.connect(path)
                break
            except OSError:
                time.sleep(0.05)
        else:
            raise ConnectionError(f"cannot connect to QEMU's monitor at {path}")
        self.sock.settimeout(5)
        self.buf = b""
        self.read_prompt()

    def read_prompt(self) -> str:
        while b"(qemu) " not in self.buf:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError
            self.buf += chunk
        text, _, self.buf = self.buf.partition(b"(qemu) ")
        return text.decode(errors="replace")

    def ask(self, command: str) -> str:
        self.sock.sendall(command.encode() + b"\n")
        return self.read_prompt()

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


_REG = re.compile(r"\b(RIP|RSP|RBP|RFL|CPL|HLT)=([0-9a-fA-F]+)")


def parse_registers(text: str) -> dict:
    """RIP, RSP, RBP, RFL (ints) and CPL, HLT of one `info registers`."""
    regs = {}
    for name, value in _REG.findall(text):
        regs.setdefault(name, int(value, 16))
    return regs


def read_u64_pair(mon: Monitor, addr: int):
    """Two 64-bit words at a virtual address of the selected CPU, or None."""
    text = mon.ask(f"x /2gx {addr:#x}")
    words = re.findall(r"0x([0-9a-fA-F]{16})", text.split(":", 1)[-1])
    if len(words) < 2 or "Cannot access" in text:
        return None
    return int(words[0], 16), int(words[1], 16)


def describe_cpu(mon: Monitor, cpu: int, syms, addrs) -> list[str]:
    """Lines telling where `cpu` is: mode, interrupt flag, halted, RIP's
    symbol and the frame-pointer chain."""
    mon.ask(f"cpu {cpu}")
    regs = parse_registers(mon.ask("info registers"))
    if "RIP" not in regs:
        return [f"cpu{cpu}: no registers"]
    rip, rfl = regs["RIP"], regs.get("RFL", 0)
    flags = f"IF={(rfl >> 9) & 1} CPL={regs.get('CPL', '?')} HLT={regs.get('HLT', '?')}"
    if regs.get("CPL") == 3:
        return [f"cpu{cpu}: user mode rip={rip:#x} {flags}"]
    lines = [f"cpu{cpu}: rip={rip:#x} {lookup(syms, addrs, rip)} {flags}"]
    rbp = regs.get("RBP", 0)
    for depth in range(MAX_FRAMES):
        if rbp < KERNEL_BASE or rbp % 8:
            break
        pair = read_u64_pair(mon, rbp)
        if pair is None:
            break
        saved_rbp, ret = pair
        if ret < KERNEL_BASE:
            break
        lines.append(f"  #{depth} {ret:#x} {lookup(syms, addrs, ret)}")
        if saved_rbp <= rbp:
            break
        rbp = saved_rbp
    return lines


def vcpu_report(sock_path: str, elf: str, samples: int = 3, interval: float = 1.0) -> list[str]:
    """Where every vCPU is, `samples` times `interval` seconds apart (a CPU
    whose RIP never moves is halted or stuck on one instruction; one that
    moves within a function is spinning). Never raises: a failure becomes
    a line of the report."""
    try:
        syms = symbols(elf)
    except (OSError, subprocess.CalledProcessError) as e:
        return [f"vcpu report: no symbols from {elf}: {e}"]
    addrs = [s[0] for s in syms]
    lines = []
    try:
        mon = Monitor(sock_path, attempts=20)
    except (OSError, EOFError) as e:
        return [f"vcpu report: {e}"]
    try:
        cpus = re.findall(r"CPU #(\d+)", mon.ask("info cpus")) or ["0"]
        for sample in range(samples):
            if sample:
                time.sleep(interval)
            lines.append(f"vcpu report, sample {sample + 1} of {samples}:")
            for cpu in cpus:
                lines += describe_cpu(mon, int(cpu), syms, addrs)
    except (OSError, EOFError) as e:
        lines.append(f"vcpu report: monitor failed: {e}")
    finally:
        mon.close()
    return lines
