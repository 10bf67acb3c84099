#!/usr/bin/env python3
"""The Debian boot test (`make test-debian-boot`, the `debian-boot` layer of
`make test`; docs/debian-boot.md).

Boots the bootable Debian image (tools/debian-boot.py) under Kevlar, waits
for getty's login prompt on the serial console, logs in as root and checks,
each an outcome named `debian-boot:<check>[smpN]`:

    login        getty's prompt, root logs in with the password
    running      `systemctl is-system-running --wait` prints `running`
    no-failed    `systemctl --failed` lists no unit
    journal      `journalctl -b` shows this boot (systemd reaching
                 multi-user.target, sshd starting)
    restart-ssh  `systemctl restart ssh`: ssh.service active again under a
                 new main process
    ssh          `ssh -p PORT root@127.0.0.1 uname -a` from the host (the key
                 made at build time) prints Kevlar's uname
    poweroff     `poweroff` ends the VM through systemd (QEMU exits by itself)
    units        the state of every unit (`systemctl list-units --all`) is
                 the state it has under Linux 6.1 booting the same image
    warnings     every warning of the boot (`journalctl -b -p warning`) is
                 one Linux 6.1's boot of the image logs too, or is in
                 ALLOWED_WARNINGS (with why it cannot go yet)

Only `units` and `warnings` need an oracle: the same image booted under Debian's Linux 6.1
the same way (its login, its list of units), cached in
build/oracle/debian-boot-<key>.json, keyed by the image, Linux's kernel and
initramfs and the guest commands. Without a cache Linux is booted first;
if it cannot finish within --linux-timeout (a host too busy for a TCG boot
of Linux), `units` fails saying so and the cache stays empty.

Nothing waits a fixed time: every step waits for its text on the console,
under generous limits of host time that only catch a hang. A host too busy
to run QEMU must not fail a unit either: both kernels boot with
`systemd.default_timeout_start_sec=600` (systemd's own 90 s job time-out,
which a device's start has too, fired for Linux's dev-ttyS0.device at a
host load of 20).

    debian-boot-test.py [--smp N] [--timeout S] [--elf build/kevlar.elf]
                        [--no-linux] [--linux-timeout S] [--log FILE]
"""

import argparse
import codecs
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
# getty's prompt ("kevlar-debian login: "), not login's own messages.
PROMPT = r"[\w-]+ login: "
# root's shell prompt: Debian's (root@host:~#) or bash's default.
SHELL = r"(root@[^\n]*|-bash-[0-9.]+)# "
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
# Host time limits: they only catch a hang (a boot takes 1-2 minutes on a
# loaded host; Linux's several).
KEVLAR_TIMEOUT = 900.0
LINUX_TIMEOUT = 1800.0
POWEROFF_GRACE = 180.0

# What root runs on the console, in order: (key, command). Each command's
# output is collected between markers; its exit status is kept too. The
# Linux reference runs the same list (its text is part of the cache key).
PROBE = [
    ("state", "systemctl is-system-running --wait"),
    ("failed", "systemctl --failed --no-legend --plain --full"),
    # systemd-fsckd is socket-activated by the root's fsck and exits after
    # 30 s without a client: its state depends on how soon the list is
    # taken (Kevlar's login came before the 30 s, Linux's after), so both
    # wait for it to go first (a daemon that never exits still fails).
    ("fsckd-idle", "timeout 90 sh -c 'while systemctl -q is-active systemd-fsckd.service; do sleep 1; done'; "
                   "systemctl is-active systemd-fsckd.service"),
    ("units", "systemctl list-units --all --no-legend --plain --full"),
    ("journal", "journalctl -b --no-pager -o cat | grep -E "
                "'^(Reached target multi-user.target|Started ssh.service)' | sort -u"),
    # Every message of this boot at priority warning or worse, with its
    # sender (journalctl's short form; warning_key() drops the date,
    # host, pid and numbers before the lists are compared).
    ("warnings", "journalctl -b --no-pager -o short -p warning"),
    ("ssh-pid", "systemctl show -p MainPID --value ssh.service"),
    ("restart", "systemctl restart ssh.service && systemctl is-active ssh.service"),
    ("ssh-pid-after", "systemctl show -p MainPID --value ssh.service"),
]
PROBE_VERSION = "1"
# Kernel command-line words both kernels get here (see above).
TEST_APPEND = "systemd.default_timeout_start_sec=600"

# Units whose state is not the kernel's to decide, left out of `units`:
# devices are named by their sysfs paths (each kernel's own hardware
# model), the login session's scope and user manager are numbered by the
# session; the units that tie the boot to Linux's initramfs and module
# loading have nothing to do on a kernel without modules.
IGNORED_UNITS = [r".*\.device", r"session-\d+\.scope", r"user@\d+\.service", r"user-runtime-dir@\d+\.service",
                 r"user-\d+\.slice"]


# Units in another state than under Linux for want of a kernel feature
# Kevlar does not have yet: each is reported, not failed; any other
# difference fails `units`. The list only shrinks (docs/debian-boot.md,
# "What is left"): when a feature lands, its units leave it.
MISSING_FEATURES: dict = {}
# Warnings only Kevlar's boot logs that it cannot lose yet: (regex over
# the normalised line (warning_key), why). Any other warning Linux's boot
# does not log fails `warnings`. The list only shrinks.
ALLOWED_WARNINGS = [
    (r"systemd: [\w@.-]+: unit configures an IP firewall, but the local system does not support "
     r"BPF/cgroup firewalling\.",
     "no bpf(2): systemd's IPAddressDeny= firewalls (journald, udevd, logind) need eBPF programs "
     "attached to cgroups, which Kevlar does not run (Linux built without CONFIG_BPF_SYSCALL logs it too)"),
    (r"systemd: \(This warning is only shown for the first unit using IP firewalling\.\)",
     "the second line of the same message"),
]
# journalctl's short form: "Nov 27 06:28:23 HOST IDENT[PID]: MESSAGE".
_JOURNAL_PREFIX = re.compile(r"^[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \S+ ([^\s:\[]+)(?:\[\d+\])?: ")


def warning_key(line: str) -> str:
    """A warning line as both kernels' boots can agree on it: no date,
    host name or pid, and every number (pids, sequence numbers, line
    numbers of generated files, durations) as N."""
    m = _JOURNAL_PREFIX.match(line)
    if m:
        line = f"{m.group(1)}: {line[m.end():]}"
    return re.sub(r"\d+", "N", line.strip())


def warning_keys(lines: list) -> list:
    """The distinct normalised warnings, in the order first logged."""
    keys = []
    for line in lines:
        key = warning_key(line)
        if key and not key.startswith("-- ") and key not in keys:
            keys.append(key)
    return keys


# How QEMU ends when the guest powers off: 0 after Linux's ACPI S5, 1
# after Kevlar's isa-debug-exit with the success code (docs/testing.md).
POWEROFF_STATUS = {"linux": 0, "kevlar": 1}


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
        self.raw = ""
        self.text = ""
        self.pos = 0
        self.log = log
        self.decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")

    def _read(self, wait: float) -> bool:
        """Reads what QEMU printed within `wait` seconds; False at its end."""
        if self.sel.select(timeout=wait):
            data = os.read(self.proc.stdout.fileno(), 65536)
            if not data:
                return False
            self.log.write(data)
            self.log.flush()
            # Cleaned as a whole: a chunk can end inside "\r\n", an escape
            # sequence or a character.
            self.raw += self.decoder.decode(data)
            self.text = ANSI.sub("", self.raw).replace("\r", "")
        return True

    def expect(self, pattern: str, deadline: float, what: str = "") -> str:
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
                gone = "QEMU exited" if self.proc.poll() is not None else "time limit"
                raise TimeoutError(f"{gone}: no {what or repr(pattern)} on the console")
            if not self._read(min(left, 1.0)):
                self.proc.wait()

    def send(self, line: str) -> None:
        self.proc.stdin.write(line.encode() + b"\n")
        self.proc.stdin.flush()

    def run(self, command: str, deadline: float, n: int) -> tuple:
        """Runs one shell command; returns (its output lines, its status).
        The end marker is printed by `echo` with its pieces joined by the
        shell, so the echo of the command line never matches it."""
        self.send(f"{command} 2>&1; echo \"@@EN\"\"D-{n} $?\"")
        out = self.expect(r"@@END-" + str(n) + r" (\d+)\n", deadline, f"end of `{command}`")
        body, _, tail = out.rpartition("@@END-")
        status = int(tail.split()[1])
        self.expect(SHELL, deadline, "shell prompt")
        return [l.rstrip() for l in body.splitlines() if l.strip()], status

    def wait_exit(self, grace: float) -> bool:
        """Waits for QEMU to end (reading the console meanwhile); kills it
        after `grace` seconds. Returns whether it ended by itself."""
        deadline = time.monotonic() + grace
        while self.proc.poll() is None and time.monotonic() < deadline:
            if not self._read(1.0):
                break
        try:
            self.proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            return True
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            return False


def parse_units(lines: list) -> dict:
    """{unit: "ACTIVE/SUB"} from `systemctl list-units --plain --no-legend`."""
    units = {}
    for line in lines:
        parts = line.split()
        # UNIT LOAD ACTIVE SUB DESCRIPTION...; a leading "●" marks trouble.
        if parts and parts[0] in ("●", "*"):
            parts = parts[1:]
        if len(parts) >= 4 and "." in parts[0] and parts[1] in ("loaded", "not-found", "masked", "error",
                                                               "bad-setting", "stub", "merged"):
            units[parts[0]] = f"{parts[2]}/{parts[3]}"
    return units


def compared_units(units: dict) -> dict:
    rx = re.compile("|".join(f"(?:{p})" for p in IGNORED_UNITS))
    return {u: s for u, s in units.items() if not rx.fullmatch(u)}


def _ssh_uname(port: int, deadline: float) -> str:
    """`uname -a` through the guest's sshd from the host, or why it failed."""
    r = subprocess.run(["ssh", "-p", str(port), "-i", boot.client_key(),
                        "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
                        "-o", "BatchMode=yes", "-o", "ConnectTimeout=120", "-o", "LogLevel=ERROR",
                        "root@127.0.0.1", "uname", "-a"], capture_output=True, text=True,
                       stdin=subprocess.DEVNULL, timeout=max(30.0, deadline - time.monotonic()))
    return r.stdout.strip() if r.returncode == 0 else f"failed (status {r.returncode}): {r.stderr.strip()[-300:]}"


def run_boot(kernel: str, elf: str, smp: int, timeout: float, log_path: str, probe: list = PROBE,
             ssh: bool = True, machine: dict | None = None) -> dict:
    """Boots `kernel` and runs `probe` as root (then ssh from the host, if
    `ssh`, and poweroff); returns what it saw. `machine`: more keywords
    for debian-boot.py's command() (the benchmark's CPU, icount, clock)."""
    port = _free_port()
    cmd = boot.command(kernel, elf, port, smp, append=TEST_APPEND, **(machine or {}))
    result = {"kernel": kernel, "smp": smp, "login": False, "probe": {}, "ssh": None, "poweroff": None,
              "command": cmd}
    start = time.monotonic()
    deadline = start + timeout
    os.makedirs(os.path.dirname(log_path), exist_ok=True)
    with open(log_path, "wb") as log:
        con = Console(cmd, log)
        try:
            con.expect(PROMPT, deadline, "login prompt")
            result["boot_s"] = round(time.monotonic() - start, 1)
            # A login can be cut short while the boot goes on (Linux's
            # getty was restarted under it once, "PAM Failure, aborting"):
            # at the next prompt it is tried again.
            for _ in range(3):
                con.send("root")
                if "Password: " not in con.expect(r"Password: |" + PROMPT, deadline, "password prompt"):
                    continue
                con.send(PASSWORD)
                if re.search(SHELL, con.expect(SHELL + "|" + PROMPT, deadline, "shell prompt")):
                    result["login"] = True
                    break
            if not result["login"]:
                raise TimeoutError("root could not log in")
            # No echo of what is typed; commands' output is not cut at the
            # terminal's width and goes through no pager.
            con.send("stty -echo; export SYSTEMD_PAGER= SYSTEMD_COLORS=0 COLUMNS=500")
            con.expect(SHELL, deadline, "shell prompt")
            for n, (key, command) in enumerate(probe):
                lines, status = con.run(command, deadline, n)
                result["probe"][key] = {"out": lines, "status": status}
            result["probe_s"] = round(time.monotonic() - start, 1)
            if ssh:
                result["ssh"] = _ssh_uname(port, deadline)
            con.send("poweroff")
            ended = con.wait_exit(min(POWEROFF_GRACE, max(10.0, deadline - time.monotonic())))
            result["poweroff"] = {"ended": ended, "status": con.proc.returncode}
        except (TimeoutError, subprocess.TimeoutExpired) as e:
            result["error"] = str(e)
            con.wait_exit(0)
    result["elapsed_s"] = round(time.monotonic() - start, 1)
    return result


def _out(res: dict, key: str) -> list:
    return res.get("probe", {}).get(key, {}).get("out", [])


def judge(res: dict, linux: dict | None, linux_note: str, suffix: str) -> list:
    """(name, passed, detail) for each check of a Kevlar run."""
    err = res.get("error") or "not reached"
    probe = res.get("probe", {})
    out = []

    def add(check, ok, detail):
        out.append((f"debian-boot:{check}{suffix}", bool(ok), detail))

    add("login", res["login"], f"prompt after {res.get('boot_s')} s" if res["login"] else err)
    if "state" in probe:
        state = " ".join(_out(res, "state")).strip()
        add("running", state == "running", f"is-system-running: {state!r}")
    else:
        add("running", False, err)
    if "failed" in probe:
        failed = sorted(l.split()[1] if l.split()[0] in ("●", "*") else l.split()[0]
                        for l in _out(res, "failed") if l.split())
        add("no-failed", not failed and probe["failed"]["status"] == 0,
            "none" if not failed else "failed units: " + " ".join(failed))
    else:
        add("no-failed", False, err)
    if "journal" in probe:
        seen = set(_out(res, "journal"))
        want = {"Reached target multi-user.target - Multi-User System.",
                "Started ssh.service - OpenBSD Secure Shell server."}
        add("journal", want <= seen, "the boot is in the journal" if want <= seen
            else f"journalctl -b lacks: {sorted(want - seen)}")
    else:
        add("journal", False, err)
    if "ssh-pid-after" in probe:
        before, after = " ".join(_out(res, "ssh-pid")), " ".join(_out(res, "ssh-pid-after"))
        restarted = probe["restart"]["status"] == 0 and _out(res, "restart")[-1:] == ["active"]
        ok = restarted and before.isdigit() and after.isdigit() and before != after and after != "0"
        add("restart-ssh", ok, f"sshd {before} -> {after}, {' '.join(_out(res, 'restart'))!r}")
    else:
        add("restart-ssh", False, err)
    ssh = res.get("ssh")
    add("ssh", ssh is not None and "kevlar" in ssh, ssh or err)
    po = res.get("poweroff")
    want = POWEROFF_STATUS[res["kernel"]]
    add("poweroff", po is not None and po["ended"] and po["status"] == want,
        f"QEMU exited with status {po['status']} (want {want})" if po and po["ended"]
        else ("QEMU still running after poweroff" if po else err))
    if linux is None:
        add("units", False, linux_note)
    elif "units" not in probe:
        add("units", False, err)
    else:
        mine = compared_units(parse_units(_out(res, "units")))
        ref = compared_units(parse_units(_out(linux, "units")))
        diff = [u for u in sorted(set(mine) | set(ref)) if mine.get(u) != ref.get(u)]
        shown = lambda u: f"{u}: {mine.get(u, 'absent')} (Linux: {ref.get(u, 'absent')})"
        unexplained = [shown(u) for u in diff if u not in MISSING_FEATURES]
        known = [f"{u} ({MISSING_FEATURES[u]})" for u in diff if u in MISSING_FEATURES]
        detail = (f"{len(ref) - len(diff)} of {len(ref)} units as under Linux"
                  + (f"; for want of a feature: {', '.join(known)}" if known else ""))
        add("units", not unexplained, detail if not unexplained else "; ".join(unexplained))
    if linux is None:
        add("warnings", False, linux_note)
    elif "warnings" not in probe:
        add("warnings", False, err)
    else:
        mine, ref = warning_keys(_out(res, "warnings")), set(warning_keys(_out(linux, "warnings")))
        only_mine = [k for k in mine if k not in ref]
        allowed = [(k, why) for k in only_mine for rx, why in ALLOWED_WARNINGS if re.fullmatch(rx, k)]
        unexplained = [k for k in only_mine if k not in {a for a, _ in allowed}]
        detail = (f"no warning Linux's boot has not: {len(mine)} distinct warnings, Linux {len(ref)}"
                  + (f"; allowed: {'; '.join(f'{k!r} ({why})' for k, why in allowed)}" if allowed else ""))
        add("warnings", not unexplained, detail if not unexplained else
            f"{len(unexplained)} warnings only Kevlar's boot logs: " + " | ".join(unexplained))
    return out


def linux_cache_path(smp: int) -> str:
    """The cache file of Linux's run: keyed by the image, Linux's kernel
    and initramfs, the guest commands and the boot command line."""
    oracle = _load("linux_oracle", "linux-oracle.py")
    h = hashlib.sha256()
    for path in (boot.image() + ".key", oracle.fetch(quiet=True), boot.linux_initramfs()):
        with open(path, "rb") as f:
            h.update(hashlib.sha256(f.read()).digest())
    h.update(json.dumps([PROBE_VERSION, PROBE, boot.COMMON_APPEND, boot.LINUX_APPEND, TEST_APPEND, smp]).encode())
    return os.path.join(CACHE_DIR, f"debian-boot-{h.hexdigest()[:32]}.json")


def linux_result(smp: int, timeout: float, log_dir: str) -> tuple:
    """(Linux's run or None, a note saying why there is none)."""
    cache = linux_cache_path(smp)
    if os.path.isfile(cache):
        with open(cache) as f:
            return json.load(f), f"cached in {os.path.relpath(cache, REPO_ROOT)}"
    print(f"debian-boot-test: no cached Linux reference ({os.path.relpath(cache, REPO_ROOT)}): "
          f"booting Linux 6.1 (up to {timeout:g} s)", flush=True)
    log = os.path.join(log_dir, f"debian-boot-linux-smp{smp}.log")
    res = run_boot("linux", "", smp, timeout, log)
    units = parse_units(_out(res, "units"))
    if res["login"] and units and res.get("poweroff"):
        os.makedirs(CACHE_DIR, exist_ok=True)
        with open(cache + ".tmp", "w") as f:
            json.dump(res, f, indent=1)
        os.replace(cache + ".tmp", cache)
        return res, f"Linux booted in {res['elapsed_s']} s"
    return None, (f"no Linux reference: Linux 6.1's boot of the same image did not finish within "
                  f"{timeout:g} s ({res.get('error')}; log {os.path.relpath(log, REPO_ROOT)}): a host too "
                  f"busy for a TCG boot of Linux? Its result is cached in build/oracle/ once a run finishes "
                  f"(`make test-debian-boot`, or --linux-timeout)")


def run(kernel: str, initrd: str = "", smp: int = 1, timeout: float = KEVLAR_TIMEOUT, log: str | None = None,
        echo: bool = False, suffix: str = "", qemu: str | None = None, linux: bool = True,
        linux_timeout: float = LINUX_TIMEOUT) -> list:
    """The run-tests.py driver: one Kevlar boot (and Linux's, if not
    cached); returns (name, passed, detail) tuples."""
    log = log or os.path.join(boot.OUT, f"kevlar-smp{smp}.log")
    log_dir = os.path.dirname(log)
    ref, note = linux_result(1, linux_timeout, log_dir) if linux else (None, "--no-linux: no comparison")
    res = run_boot("kevlar", kernel, smp, timeout, log)
    results = judge(res, ref, note, suffix or f"[smp{smp}]")
    if not linux:
        results = [r for r in results if not r[0].startswith(("debian-boot:units", "debian-boot:warnings"))]
    with open(os.path.splitext(log)[0] + ".json", "w") as f:
        json.dump(res, f, indent=1)
    return results


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--smp", type=int, default=1)
    p.add_argument("--timeout", type=float, default=KEVLAR_TIMEOUT, help="Kevlar's run, host seconds")
    p.add_argument("--linux-timeout", type=float, default=LINUX_TIMEOUT, help="Linux's run, if not cached")
    p.add_argument("--elf", default=boot.DEFAULT_KERNEL)
    p.add_argument("--log", help="Kevlar's console log (default build/debian-systemd/kevlar-smpN.log)")
    p.add_argument("--no-linux", action="store_true", help="skip the comparison with Linux")
    ns = p.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(124))
    results = run(ns.elf, smp=ns.smp, timeout=ns.timeout, log=ns.log, linux=not ns.no_linux,
                  linux_timeout=ns.linux_timeout)
    for name, ok, detail in results:
        print(f"{'PASS' if ok else 'FAIL'} {name}: {detail}")
    ok = all(r[1] for r in results)
    print(f"debian-boot-test: {'PASS' if ok else 'FAIL'} (smp {ns.smp})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
