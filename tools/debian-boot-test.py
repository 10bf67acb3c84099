#!/usr/bin/env python3
"""The Debian boot test (`make test-debian-boot`, docs/debian-boot.md).

Boots the bootable Debian image (tools/debian-boot.py) under Kevlar, waits
for getty's login prompt on the serial console, logs in as root, runs
`systemctl is-system-running` and `systemctl --failed`, runs
`ssh -p PORT root@127.0.0.1 uname -a` from the host (the key made at build
time, host key checking off) and powers the guest off with `poweroff`.
The same image is booted under Debian's Linux 6.1 the same way, and its
set of failed units is cached in build/oracle/ (keyed by the image, the
kernel and this file). The test passes when Kevlar gives a login prompt,
root logs in, ssh prints Kevlar's uname, and no unit fails on Kevlar that
does not fail on Linux.

    debian-boot-test.py [--smp N] [--timeout S] [--elf build/kevlar.elf] [--no-linux]
"""

import argparse
import hashlib
import json
import os
import re
import selectors
import signal
import socket
import subprocess
import sys
import time

TOOLS_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(TOOLS_DIR)
CACHE_DIR = os.path.join(REPO_ROOT, "build", "oracle")
PASSWORD = "kevlar"
MARK = "KEVLAR-BOOT-TEST-END"
# getty's prompt ("kevlar-debian login: "), not login's own messages.
PROMPT = r"[\w-]+ login: "
# root's shell prompt: Debian's (root@host:~#) or bash's default.
SHELL = r"(root@[^\n]*|-bash-[0-9.]+)# "
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


if TOOLS_DIR not in sys.path:
    sys.path.insert(0, TOOLS_DIR)
from toolload import load as _load  # noqa: E402 (after the path)


boot = _load("debian_boot", "debian-boot.py")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Console:
    """The guest's serial console: what it printed, and keys sent to it."""

    def __init__(self, cmd: list, log):
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.sel = selectors.DefaultSelector()
        self.sel.register(self.proc.stdout, selectors.EVENT_READ)
        self.text = ""
        self.pos = 0
        self.log = log

    def expect(self, pattern: str, deadline: float) -> str:
        """Waits until `pattern` (a regex) shows after what was matched
        before; returns the text up to its end. TimeoutError at the deadline."""
        rx = re.compile(pattern)
        while True:
            m = rx.search(self.text, self.pos)
            if m:
                seen = self.text[self.pos:m.end()]
                self.pos = m.end()
                return seen
            left = deadline - time.monotonic()
            if left <= 0 or self.proc.poll() is not None:
                raise TimeoutError(f"no {pattern!r} on the console")
            if self.sel.select(timeout=min(left, 1.0)):
                data = os.read(self.proc.stdout.fileno(), 65536)
                if not data:
                    continue
                self.log.write(data)
                self.log.flush()
                self.text += ANSI.sub("", data.decode(errors="replace").replace("\r\n", "\n"))

    def send(self, line: str) -> None:
        self.proc.stdin.write(line.encode() + b"\n")
        self.proc.stdin.flush()

    def stop(self, grace: float = 60.0) -> bool:
        """Waits for the guest to end; kills QEMU after `grace` seconds.
        Returns whether it ended by itself."""
        try:
            self.proc.wait(timeout=grace)
            return True
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            return False


def run_boot(kernel: str, elf: str, smp: int, timeout: float, log_path: str) -> dict:
    port = _free_port()
    cmd = boot.command(kernel, elf, port, smp)
    result = {"kernel": kernel, "login": False, "state": None, "failed": [], "ssh": None, "poweroff": False}
    start = time.monotonic()
    deadline = start + timeout
    with open(log_path, "wb") as log:
        con = Console(cmd, log)
        try:
            con.expect(PROMPT, deadline)
            result["boot_s"] = round(time.monotonic() - start, 1)
            # A login can be cut short while the boot goes on (Linux's
            # getty was restarted under it once, "PAM Failure, aborting"):
            # at the next prompt it is tried again.
            for _ in range(3):
                con.send("root")
                if "Password: " not in con.expect(r"Password: |" + PROMPT, deadline):
                    continue
                con.send(PASSWORD)
                if re.search(SHELL, con.expect(SHELL + "|" + PROMPT, deadline)):
                    result["login"] = True
                    break
            if not result["login"]:
                raise TimeoutError("root could not log in")
            con.send(f"systemctl is-system-running; systemctl --failed --no-legend --plain | "
                     f"sed 's/^/FAILED-UNIT /'; echo {MARK}")
            # The output's line, not the echo of the command line.
            out = con.expect(r"\n" + MARK + r"\r?\n", deadline)
            lines = [l.strip() for l in out.splitlines()]
            states = [l for l in lines if l in ("running", "degraded", "starting", "initializing",
                                                 "maintenance", "stopping", "offline", "unknown")]
            result["state"] = states[-1] if states else None
            result["failed"] = sorted({l.split()[1] for l in lines if l.startswith("FAILED-UNIT ")
                                       and len(l.split()) > 1})
            con.expect(SHELL, deadline)
            ssh = subprocess.run(["ssh", "-p", str(port), "-i", boot.client_key(),
                                  "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
                                  "-o", "BatchMode=yes", "-o", "ConnectTimeout=60", "root@127.0.0.1",
                                  "uname", "-a"], capture_output=True, text=True,
                                 timeout=max(30.0, deadline - time.monotonic()))
            result["ssh"] = ssh.stdout.strip() if ssh.returncode == 0 else f"failed: {ssh.stderr.strip()[-300:]}"
            con.send("poweroff")
            result["poweroff"] = con.stop(min(120.0, max(10.0, deadline - time.monotonic())))
        except (TimeoutError, subprocess.TimeoutExpired) as e:
            result["error"] = str(e)
            con.stop(0)
    result["elapsed_s"] = round(time.monotonic() - start, 1)
    return result


def linux_result(smp: int, timeout: float) -> dict:
    """Linux's run, cached by the image, the kernel, the initramfs and this file."""
    oracle = _load("linux_oracle", "linux-oracle.py")
    h = hashlib.sha256()
    for path in (boot.image() + ".key", oracle.fetch(quiet=True), boot.linux_initramfs(),
                 os.path.abspath(__file__), os.path.join(TOOLS_DIR, "debian-boot.py")):
        with open(path, "rb") as f:
            h.update(hashlib.sha256(f.read()).digest())
    h.update(f"smp={smp}".encode())
    cache = os.path.join(CACHE_DIR, f"debian-boot-{h.hexdigest()[:32]}.json")
    if os.path.isfile(cache):
        with open(cache) as f:
            return json.load(f)
    res = run_boot("linux", "", smp, timeout, os.path.join(boot.OUT, f"linux-smp{smp}.log"))
    if res["login"]:
        os.makedirs(CACHE_DIR, exist_ok=True)
        with open(cache, "w") as f:
            json.dump(res, f, indent=1)
    return res


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--smp", type=int, default=1)
    p.add_argument("--timeout", type=float, default=900.0)
    p.add_argument("--elf", default=boot.DEFAULT_KERNEL)
    p.add_argument("--no-linux", action="store_true", help="skip the comparison with Linux")
    ns = p.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(124))
    kevlar = run_boot("kevlar", ns.elf, ns.smp, ns.timeout, os.path.join(boot.OUT, f"kevlar-smp{ns.smp}.log"))
    print(json.dumps(kevlar, indent=1))
    # Kevlar's uname: "Linux <host> 6.1.0-kevlar ...".
    ok = kevlar["login"] and "kevlar" in (kevlar["ssh"] or "")
    if not ns.no_linux:
        linux = linux_result(ns.smp, ns.timeout)
        print(json.dumps(linux, indent=1))
        extra = sorted(set(kevlar["failed"]) - set(linux["failed"]))
        if extra:
            print(f"debian-boot-test: failed on Kevlar only: {' '.join(extra)}")
            ok = False
    if not kevlar["login"]:
        print(f"debian-boot-test: no login on Kevlar ({kevlar.get('error')})")
    if "kevlar" not in (kevlar["ssh"] or ""):
        print(f"debian-boot-test: ssh: {kevlar['ssh']}")
        ok = False
    print(f"debian-boot-test: {'PASS' if ok else 'FAIL'} (smp {ns.smp})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
