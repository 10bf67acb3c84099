#!/usr/bin/env python3
"""Kevlar's benchmark instrument: the same guest programs under Debian's
Linux 6.1 and under Kevlar, with the same QEMU flags, and a report that puts
them side by side (docs/benchmarks.md).

    tools/bench.py                 # full run: both modes (icount, then wall-clock with
                                   # 5 alternating boots per kernel), both suites (micro:
                                   # initramfs; apps: Debian programs on a disk), Linux on
                                   # -cpu max,-erms,-fsrm (headline) and -cpu max, Kevlar
                                   # -> build/bench/{report.*,wallclock/,summary.tsv}
    tools/bench.py --mode icount   # one mode (or wallclock; --icount, --wallclock)
    tools/bench.py --suite micro   # one suite (or apps, or boot: Debian with systemd
                                   # booted to its login prompt)
    tools/bench.py --smp 1         # one CPU count only
    tools/bench.py --runs 2        # boots per kernel (wall-clock default 5, icount 1)
    tools/bench.py --quick         # Kevlar only, tiny counts, micro suite (make test);
                                   # exit status 1 if the benchmark crashed or printed
                                   # no BENCH lines
    tools/bench.py --kvm           # KVM -> build/bench/kvm/
    tools/bench.py --build-only    # compile and write the images, nothing else

Under icount (`-icount shift=0,sleep=off`) guest time advances 1 ns per
executed instruction and skips idle time, so figures are deterministic;
wall-clock figures follow the host's clock (medians of alternating boots,
with their spread). Modes never share a report: each writes its own
directory and says which mode it is in; build/bench/summary.tsv has one
line per benchmark, mode and baseline.

The micro image (build/bench/bench.cpio): /init is bench-init (userland/
bench/bench-init.c), which records when it started, runs /bench/bench with
the words of /bench/args and powers off; /bench/nop is what the exec
benchmarks start; BusyBox and its applet links provide the workloads. The
apps image (build/bench/apps/apps.cpio) starts bench-init in disk mode: it
mounts the Debian root (tools/build-bench-root.py) from the virtio disk and
runs userland/bench/apps/apps.sh there. The boot suite boots the Debian
image with systemd (build/debian-systemd, tools/debian-boot-test.py's
machine and login) and reads, after root's login, the guest's own
monotonic timestamps of the boot (systemd's and getty's): see BOOT_PROBE.

Output lines parsed from the guest (everything else is ignored):
    BENCH <name> <ns>  |  BENCH <name> unsupported <why>
    BENCH-DETAIL <name> k=v ...     BOOT <key> <value>     BENCH-KERNEL <uname>
    BENCH-VULN <name>: <text>       BENCH-EXIT exit N      BENCH-END ran=N unsupported=M
    BENCH-WHY <name> <text>         BENCH-NOTE <text>      (the apps suite)
    boot: banner at X ms            (Kevlar's own boot timeline)
"""

import argparse
import dataclasses
import datetime
import hashlib
import json
import math
import os
import platform
import re
import shlex
import shutil
import subprocess
import sys
import time
from typing import Optional

TOOLS_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(TOOLS_DIR)
SRC_DIR = os.path.join(REPO_ROOT, "userland", "bench")
OUT_DIR = os.path.join(REPO_ROOT, "build", "bench")
BIN_DIR = os.path.join(OUT_DIR, "bin")
LOG_DIR = os.path.join(OUT_DIR, "logs")
DEFAULT_KERNEL = os.path.join(REPO_ROOT, "build", "kevlar.elf")
MEM = "512M"
MEM_KIB = 512 * 1024
DEFAULT_TIMEOUT = 1800.0
QUICK_TIMEOUT = 300.0
CC = ["musl-gcc", "-static", "-O2", "-Wall", "-Werror"]
PROGRAMS = {"bench": "bench.c", "nop": "nop.c", "bench-init": "bench-init.c",
            "timeit": "timeit.c", "httpload": "httpload.c"}
APPS_DIR = os.path.join(SRC_DIR, "apps")
APPS_OUT = os.path.join(OUT_DIR, "apps")
# The application benchmarks' machine has more memory: gcc, git gc and a
# 50 MiB tar on both kernels. Same for both kernels.
APPS_MEM = "1024M"
APPS_TIMEOUT = 3600.0
# A TCG boot of Debian with systemd to its login prompt: Linux's took
# 9 minutes of host time at a load of 20 (docs/debian-boot.md).
DEBIAN_BOOT_TIMEOUT = 3600.0
# Baselines: the virtual CPU Linux is compared on. Under icount a `rep
# movsb`/`rep stosb` iteration counts as one instruction per byte; with ERMS
# and FSRM (`-cpu max`) Linux copies and clears memory that way, Kevlar
# with `rep movsq`/`rep stosq` (one per 8 bytes). Without them Linux uses
# 8-byte copies too: that is the headline comparison (erms-off). Kevlar
# runs on the same virtual CPU.
BASELINES = {"erms-off": ",-erms,-fsrm", "cpu-max": ""}
HEADLINE = "erms-off"
SUMMARY = os.path.join(OUT_DIR, "summary.tsv")
DEFAULT_RUNS_WALLCLOCK = 5

# Verdict thresholds on the Kevlar/Linux ratio (lower is better everywhere).
FASTER_BELOW = 0.95
SLOWER_ABOVE = 1.05
# Two runs of the same image under icount must agree within this.
REPEAT_TOLERANCE = 0.01
# Debian's Linux 6.1 never finishes bringing up a second CPU under QEMU 7.2's
# icount (single-threaded round-robin vCPUs): it stops after "x86: Booting
# SMP configuration:" with both vCPUs spinning in delay loops (tried for
# 5 minutes, also with lpj=, tsc=reliable, cpu_init_udelay=0, nokaslr).
# Such runs are skipped, with this reason, unless --linux-smp-icount.
LINUX_ICOUNT_SMP_NOTE = ("Linux 6.1 does not boot at -smp 2 or more under QEMU 7.2's icount "
                         "mode (it hangs bringing up the second CPU); not run. "
                         "The wall-clock mode (--wallclock) compares -smp 2.")


if TOOLS_DIR not in sys.path:
    sys.path.insert(0, TOOLS_DIR)
from toolload import load as _load  # noqa: E402 (after the path)


run_qemu = _load("run_qemu", "run-qemu.py")
debian_boot_test = _load("debian_boot_test", "debian-boot-test.py")
build_initramfs = _load("build_initramfs", "build-initramfs.py")
linux_oracle = _load("linux_oracle", "linux-oracle.py")


class BenchError(Exception):
    pass


def say(*args) -> None:
    print("bench:", *args, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------
# Building the programs and the image
# ---------------------------------------------------------------------------

def compile_programs() -> dict:
    """Compile the static programs; return name -> path."""
    if not shutil.which(CC[0]):
        raise BenchError("musl-gcc not found: run tools/setup.sh (package musl-tools)")
    os.makedirs(BIN_DIR, exist_ok=True)
    paths = {}
    for name, src in PROGRAMS.items():
        src_path = os.path.join(SRC_DIR, src)
        out = os.path.join(BIN_DIR, name)
        # A program is stale when its source or a shared header is newer.
        inputs = [src_path] + [os.path.join(SRC_DIR, h) for h in os.listdir(SRC_DIR) if h.endswith(".h")]
        if not (os.path.isfile(out) and os.path.getmtime(out) >= max(map(os.path.getmtime, inputs))):
            r = subprocess.run(CC + ["-o", out + ".tmp", src_path], capture_output=True, text=True)
            if r.returncode != 0:
                raise BenchError(f"compiling {src} failed:\n{r.stderr}")
            os.replace(out + ".tmp", out)
        paths[name] = out
    return paths


def build_image(programs: dict, bench_args: list, out: str) -> str:
    """The benchmark initramfs: BusyBox, /init, /bench/{bench,nop,args}."""
    args_file = out + ".args"
    with open(args_file, "w") as f:
        f.write(" ".join(bench_args) + "\n")
    entries = build_initramfs.busybox_entries()
    entries += [
        build_initramfs.Dir("/dev"), build_initramfs.Dir("/proc", 0o555),
        build_initramfs.Dir("/sys", 0o555), build_initramfs.Dir("/tmp", 0o1777),
        build_initramfs.File("/init", programs["bench-init"], 0o755),
        build_initramfs.File("/bench/bench", programs["bench"], 0o755),
        build_initramfs.File("/bench/nop", programs["nop"], 0o755),
        build_initramfs.File("/bench/args", args_file, 0o644),
    ]
    return build_initramfs.build(entries, out)


GCC_PROJECT_FILES = 8
GCC_PROJECT_FUNCS = 8


def write_gcc_project(out: str) -> list:
    """The multi-file C project of app_gcc_make, generated (the same bytes
    every time): GCC_PROJECT_FILES modules of GCC_PROJECT_FUNCS small
    functions each (loops, a switch, a struct), a header, a main that calls
    them all and a Makefile (-O2, one object per module, then the link).
    Returns [(relative path, host path)]."""
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    files = []

    def put(name, text):
        path = os.path.join(out, name)
        with open(path, "w") as f:
            f.write(text)
        files.append((name, path))

    decls = []
    for m in range(GCC_PROJECT_FILES):
        body = [f'#include "proj.h"\n\nstruct acc{m} {{ long sum; unsigned hash; int n; }};\n']
        for k in range(GCC_PROJECT_FUNCS):
            fn = f"m{m}_f{k}"
            decls.append(f"long {fn}(long x);")
            body.append(f"""
long {fn}(long x)
{{
    struct acc{m} a = {{0, {2166136261 + k}u, 0}};
    for (long i = 0; i < x + {k % 7 + 3}; i++) {{
        switch ((i + {m}) % 4) {{
        case 0: a.sum += i * {k + 1}; break;
        case 1: a.sum ^= (a.sum << 3) + i; break;
        case 2: a.hash = (a.hash ^ (unsigned)i) * 16777619u; break;
        default: a.n++;
        }}
    }}
    return a.sum + (long)a.hash + a.n;
}}
""")
        put(f"mod{m}.c", "".join(body))
    put("proj.h", "#ifndef PROJ_H\n#define PROJ_H\n" + "\n".join(decls) + "\n#endif\n")
    calls = "\n".join(f"    total += {d.split()[1].split('(')[0]}(argc);" for d in decls)
    put("main.c", f'#include <stdio.h>\n#include "proj.h"\n\nint main(int argc, char **argv)\n'
        f'{{\n    (void)argv;\n    long total = 0;\n{calls}\n    printf("%ld\\n", total);\n'
        f'    return 0;\n}}\n')
    objs = " ".join(f"mod{m}.o" for m in range(GCC_PROJECT_FILES)) + " main.o"
    put("Makefile", f"CC = gcc\nCFLAGS = -O2 -Wall\n\nproj: {objs}\n\t$(CC) -o $@ $^\n\n"
        f"%.o: %.c proj.h\n\t$(CC) $(CFLAGS) -c -o $@ $<\n")
    return files


def build_apps_disk(programs: dict) -> str:
    """The application benchmarks' disk: the benchmark Debian root
    (tools/build-bench-root.py) with /bench/{apps.sh,timeit,httpload,
    script.py,proj/}. Cached by content."""
    bench_root = _load("build_bench_root", "build-bench-root.py")
    extra = [("/bench/apps.sh", os.path.join(APPS_DIR, "apps.sh"), 0o755),
             ("/bench/script.py", os.path.join(APPS_DIR, "script.py"), 0o644),
             ("/bench/timeit", programs["timeit"], 0o755),
             ("/bench/httpload", programs["httpload"], 0o755)]
    extra += [(f"/bench/proj/{name}", path, 0o644)
              for name, path in write_gcc_project(os.path.join(APPS_OUT, "proj"))]
    try:
        return bench_root.build_image(extra)
    except SystemExit as e:
        raise BenchError(f"building the benchmark root failed: {e}")


def build_apps_initrd(programs: dict, bench_args: list, out: str) -> str:
    """The initramfs that boots into the disk: bench-init in disk mode
    (/bench/disk), the arguments, and the Linux oracle's virtio and ext4
    modules with /modules.list (Kevlar ignores them)."""
    os.makedirs(os.path.dirname(out), exist_ok=True)
    args_file = out + ".args"
    with open(args_file, "w") as f:
        f.write(" ".join(bench_args) + "\n")
    marker = os.path.join(APPS_OUT, "disk-mode")
    open(marker, "w").close()
    try:
        modules = linux_oracle.disk_modules()
    except Exception as e:  # no Linux: Kevlar still runs
        say(f"no Linux modules for the disk ({e})")
        modules = []
    guest = [f"/lib/modules/oracle/{os.path.basename(m)}" for m in modules]
    mod_list = os.path.join(APPS_OUT, "modules.list")
    with open(mod_list, "w") as f:
        f.write("".join(g + "\n" for g in guest))
    bi = build_initramfs
    entries = [bi.Dir("/dev"), bi.Dir("/proc", 0o555), bi.Dir("/sys", 0o555),
               bi.Dir("/tmp", 0o1777), bi.Dir("/root", 0o700), bi.Dir("/lib/modules/oracle"),
               bi.File("/init", programs["bench-init"], 0o755),
               bi.File("/bench/disk", marker, 0o644),
               bi.File("/bench/args", args_file, 0o644),
               bi.File("/modules.list", mod_list, 0o644)]
    entries += [bi.File(g, m, 0o644) for g, m in zip(guest, modules)]
    return bi.build(entries, out)


def sha256(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


# ---------------------------------------------------------------------------
# Parsing a guest's output
# ---------------------------------------------------------------------------

BENCH_RE = re.compile(r"^BENCH (\S+) (?:(unsupported) (\S+)|(-?\d+(?:\.\d+)?))\s*$")
DETAIL_RE = re.compile(r"^BENCH-DETAIL (\S+) (.*)$")
BOOT_RE = re.compile(r"^BOOT (\S+) (\S+)\s*$")
BANNER_RE = re.compile(r"^boot: banner at (\d+(?:\.\d+)?) ms\s*$")


@dataclasses.dataclass
class Parsed:
    figures: dict  # name -> {"value": ns} | {"unsupported": why}, in output order
    details: dict
    boot: dict  # raw BOOT values
    banner_ms: Optional[float]
    uname: Optional[str]
    cmdline: Optional[str]
    vulnerabilities: dict
    exit: Optional[str]  # "exit 0", "signal 11", ...
    ended: bool  # BENCH-END seen
    problems: list  # kernel panics/exceptions seen in the log
    why: dict = dataclasses.field(default_factory=dict)  # BENCH-WHY: name -> text
    notes: list = dataclasses.field(default_factory=list)  # BENCH-NOTE lines


def parse_output(text: str) -> Parsed:
    p = Parsed({}, {}, {}, None, None, None, {}, None, False, [])
    for raw in text.splitlines():
        line = raw.rstrip()
        m = BENCH_RE.match(line)
        if m:
            name = m.group(1)
            p.figures[name] = ({"unsupported": m.group(3)} if m.group(2)
                               else {"value": float(m.group(4))})
            continue
        m = DETAIL_RE.match(line)
        if m:
            p.details[m.group(1)] = dict(kv.split("=", 1) for kv in m.group(2).split() if "=" in kv)
            continue
        m = BOOT_RE.match(line)
        if m:
            try:
                p.boot[m.group(1)] = float(m.group(2))
            except ValueError:
                pass
            continue
        m = BANNER_RE.match(line)
        if m:
            p.banner_ms = float(m.group(1))
            continue
        if line.startswith("BENCH-KERNEL "):
            p.uname = line[len("BENCH-KERNEL "):]
        elif line.startswith("BENCH-CMDLINE "):
            p.cmdline = line[len("BENCH-CMDLINE "):]
        elif line.startswith("BENCH-VULN "):
            k, _, v = line[len("BENCH-VULN "):].partition(": ")
            p.vulnerabilities[k] = v
        elif line.startswith("BENCH-WHY "):
            k, _, v = line[len("BENCH-WHY "):].partition(" ")
            p.why[k] = v.strip()
        elif line.startswith("BENCH-NOTE "):
            p.notes.append(line[len("BENCH-NOTE "):].strip())
        elif line.startswith("BENCH-EXIT "):
            p.exit = line[len("BENCH-EXIT "):]
        elif line.startswith("BENCH-END") or line == "BENCH-END apps":
            p.ended = True
        elif re.search(r"\b(PANIC|EXCEPTION|Kernel panic|BUG:|Oops)\b", line):
            p.problems.append(line.strip())
    return p


def boot_figures(p: Parsed) -> dict:
    """Derived boot and memory figures, in the report's units (ms, MiB)."""
    out = {}
    b = p.boot
    if "tsc" in b:
        rate = b.get("tsc_per_ns") or 1.0
        out["boot_reset_to_init_ms"] = b["tsc"] / rate / 1e6
    if "boottime_ns" in b:
        out["boot_kernel_clock_at_init_ms"] = b["boottime_ns"] / 1e6
    if p.banner_ms is not None:
        out["boot_entry_to_banner_ms"] = p.banner_ms
    if "totalram_kib" in b and "freeram_kib" in b:
        out["mem_used_at_init_mib"] = (b["totalram_kib"] - b["freeram_kib"]) / 1024
        out["mem_not_free_at_init_mib"] = (MEM_KIB - b["freeram_kib"]) / 1024
    return out


# ---------------------------------------------------------------------------
# Kernels and runs
# ---------------------------------------------------------------------------

@dataclasses.dataclass
class KernelConfig:
    key: str  # linux | linux-nomitig | kevlar
    label: str
    kernel: str
    append: Optional[str]
    is_linux: bool
    baseline: str = HEADLINE  # the virtual CPU: a key of BASELINES


def kernel_configs(wanted: list, kevlar_elf: str) -> list:
    configs = []
    vmlinuz = None
    if any(k.startswith("linux") for k in wanted):
        try:
            vmlinuz = linux_oracle.fetch(quiet=False)
        except linux_oracle.OracleError as e:
            raise BenchError(str(e))
    for key in wanted:
        if key == "linux":
            configs.append(KernelConfig(key, "Linux", vmlinuz, linux_oracle.full_append(""), True))
        elif key == "linux-cpumax":
            configs.append(KernelConfig(key, "Linux -cpu max", vmlinuz,
                                        linux_oracle.full_append(""), True, "cpu-max"))
        elif key == "linux-nomitig":
            configs.append(KernelConfig(key, "Linux mitigations=off", vmlinuz,
                                        linux_oracle.full_append("mitigations=off"), True))
        elif key in ("kevlar", "kevlar-cpumax"):
            if not os.path.isfile(kevlar_elf):
                raise BenchError(f"{kevlar_elf} not found: run `make kernel` first")
            configs.append(KernelConfig(key, "Kevlar" if key == "kevlar" else "Kevlar -cpu max",
                                        kevlar_elf, None, False,
                                        HEADLINE if key == "kevlar" else "cpu-max"))
        else:
            raise BenchError(f"unknown kernel {key!r} "
                             "(linux, linux-cpumax, linux-nomitig, kevlar, kevlar-cpumax)")
    return configs


@dataclasses.dataclass
class Mode:
    name: str  # icount | wallclock | kvm
    accel: str
    icount: bool
    out_dir: str
    describe: str


MODES = {
    "icount": Mode("icount", "tcg", True, OUT_DIR,
                   "TCG, -icount shift=0,sleep=off: guest time = executed instructions "
                   "(1 ns each), deterministic"),
    "wallclock": Mode("wallclock", "tcg", False, os.path.join(OUT_DIR, "wallclock"),
                      "TCG without icount: guest time follows the host clock; noisy, "
                      "not comparable with icount figures"),
    "kvm": Mode("kvm", "kvm", False, os.path.join(OUT_DIR, "kvm"),
                "KVM (hardware virtualisation): real CPU timings; not comparable with "
                "TCG figures"),
}


# What makes the machine deterministic under icount, for every kernel alike:
# without them Linux's figures move by up to 30% from boot to boot (KASLR,
# ASLR, hash seeds, slab freelist order all come from its random pool).
#  - no RDRAND/RDSEED: under TCG they return the host's random bytes;
#  - an RTC that starts at a fixed date and follows the virtual clock, so
#    the wall-clock time the kernel reads (and mixes into its pool) is the
#    same on every boot.
CPU_FEATURES = ",-rdrand,-rdseed"
RTC_FLAGS = ["-rtc", "base=2026-01-01T00:00:00,clock=vm"]


def cpu_flags(mode: "Mode", baseline: str) -> str:
    if mode.accel == "kvm":
        return "host" + CPU_FEATURES
    return "max" + CPU_FEATURES + BASELINES[baseline]


def run_one(cfg: KernelConfig, smp: int, mode: Mode, image: str, timeout: float,
            log: str, disk: Optional[str] = None) -> dict:
    extra = list(RTC_FLAGS)
    if disk:
        # snapshot=on: the guest's writes go to a temporary overlay, so
        # every boot starts from the same image and the image never changes.
        extra += ["-drive", f"file={disk},if=none,id=benchdisk,format=raw,snapshot=on",
                  "-device", "virtio-blk-pci,drive=benchdisk"]
    opts = run_qemu.Options(kernel=cfg.kernel, initrd=image, append=cfg.append, smp=smp,
                            mem=APPS_MEM if disk else MEM, accel=mode.accel,
                            icount=mode.icount, timeout=timeout, log=log, echo=False,
                            cpu=cpu_flags(mode, cfg.baseline), extra=extra)
    result = run_qemu.run(opts)
    parsed = parse_output(result.output)
    # Linux powers off (QEMU status 0); Kevlar's power-off goes through
    # isa-debug-exit (status 1).
    powered_off = (result.exit_status == 0) if cfg.is_linux else result.guest_success
    problems = list(parsed.problems)
    if result.timed_out:
        problems.append(f"timed out after {result.elapsed_s:.0f}s")
    elif not powered_off:
        problems.append(result.describe())
        err = [l for l in result.stderr.splitlines() if l.strip()]
        if err:
            problems.append("QEMU: " + err[-1].strip()[:300])
    if parsed.exit != "exit 0":
        problems.append(f"benchmark program ended with {parsed.exit or 'no BENCH-EXIT line'}")
    if not parsed.figures:
        problems.append("no BENCH lines")
    return {
        "config": cfg.key,
        "label": cfg.label,
        "baseline": cfg.baseline,
        "suite": "apps" if disk else "micro",
        "smp": smp,
        "command": result.command,
        "command_line": shlex.join(result.command),
        "wall_s": round(result.elapsed_s, 2),
        "exit_status": result.exit_status,
        "ok": not problems,
        "problems": problems,
        "figures": parsed.figures,
        "details": parsed.details,
        "why": parsed.why,
        "notes": parsed.notes,
        "boot_raw": parsed.boot,
        "boot": boot_figures(parsed),
        "uname": parsed.uname,
        "cmdline": parsed.cmdline,
        "vulnerabilities": parsed.vulnerabilities,
        "log": os.path.relpath(log, REPO_ROOT),
    }


def boot_clock_command() -> str:
    """A shell command that writes userland/bench/boot-clock.c's program to
    /tmp and runs it: compiled without libc (a few hundred bytes once
    gzipped), so that it fits in one line typed on the console."""
    import base64
    import gzip
    os.makedirs(BIN_DIR, exist_ok=True)
    out = os.path.join(BIN_DIR, "boot-clock")
    cmd = ["musl-gcc", "-static", "-Os", "-Wall", "-Werror", "-nostdlib", "-ffreestanding", "-fno-builtin",
           "-fno-tree-loop-distribute-patterns", "-fno-stack-protector", "-fno-asynchronous-unwind-tables",
           "-Wl,--build-id=none", "-s", "-o", out, BOOT_CLOCK_SRC]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise BenchError(f"boot-clock failed to build:\n{r.stderr}")
    with open(out, "rb") as f:
        packed = base64.b64encode(gzip.compress(f.read(), 9, mtime=0)).decode()
    return f"echo {packed} | base64 -d | gunzip > /tmp/boot-clock && chmod +x /tmp/boot-clock && /tmp/boot-clock"


def boot_probe_figures(res: dict) -> tuple:
    """(figures in ms, problems) from a boot suite run's BOOT_PROBE output."""
    stamps = {}
    for key in ("times", "getty"):
        for line in res.get("probe", {}).get(key, {}).get("out", []):
            name, _, value = line.partition("=")
            if value.strip().isdigit():
                stamps[name.strip()] = int(value)
    figs, problems = {}, []
    start, finish = stamps.get("UserspaceTimestampMonotonic"), stamps.get("FinishTimestampMonotonic")
    getty = stamps.get("ExecMainStartTimestampMonotonic")
    clock = [l.split()[1:] for l in res.get("probe", {}).get("clock", {}).get("out", [])
             if l.startswith("BOOT-CLOCK ")]
    zero_ns = None
    if clock and len(clock[0]) == 4 and all(v.isdigit() for v in clock[0]):
        t1, m1, t2, m2 = map(int, clock[0])
        if t2 > t1 and m2 > m1:
            # TSC ticks per ns (1 under icount); the TSC at the clock's zero.
            rate = (t2 - t1) / (m2 - m1)
            zero_ns = t1 / rate - m1
            figs["boot_debian_clock_zero_ms"] = zero_ns / 1e6
    if zero_ns is None:
        problems.append(f"boot-clock printed no usable BOOT-CLOCK line: {clock}")
    if getty and zero_ns is not None:
        figs["boot_debian_login_ms"] = (getty * 1000 + zero_ns) / 1e6
    elif not getty:
        problems.append("no start time of serial-getty@ttyS0.service")
    if start and finish and finish > start:
        figs["boot_systemd_kernel_ms"] = start / 1000
        figs["boot_systemd_userspace_ms"] = (finish - start) / 1000
    else:
        problems.append(f"systemd's timestamps missing: {stamps}")
    return figs, problems


def run_debian_boot(cfg: KernelConfig, smp: int, mode: Mode, timeout: float, log: str) -> dict:
    """One boot of the Debian image with systemd to root's login (the boot
    suite), on the benchmark's machine: its CPU, icount, fixed RTC."""
    kernel = "linux" if cfg.is_linux else "kevlar"
    machine = {"cpu": cpu_flags(mode, cfg.baseline), "icount": mode.icount, "accel": mode.accel,
               "extra": tuple(RTC_FLAGS)}
    probe = [(k, c.format(boot_clock=boot_clock_command())) for k, c in BOOT_PROBE]
    res = debian_boot_test.run_boot(kernel, cfg.kernel, smp, timeout, log, probe=probe, ssh=False,
                                    machine=machine)
    figs, problems = boot_probe_figures(res)
    if res.get("error"):
        problems.insert(0, res["error"])
    state = " ".join(res.get("probe", {}).get("state", {}).get("out", []))
    if res.get("login") and state != "running":
        problems.append(f"is-system-running: {state!r}")
    po = res.get("poweroff") or {}
    if not po.get("ended"):
        problems.append("QEMU did not end after poweroff")
    analyze = res.get("probe", {}).get("analyze", {}).get("out", [])
    return {
        "config": cfg.key, "label": cfg.label, "baseline": cfg.baseline, "suite": "boot", "smp": smp,
        "command": res["command"], "command_line": shlex.join(res["command"]),
        "wall_s": res.get("elapsed_s", 0.0), "exit_status": po.get("status"), "ok": not problems,
        "problems": problems, "figures": {}, "details": {}, "why": {},
        "notes": [f"{cfg.label} systemd-analyze: {analyze[0]}"] if analyze else [],
        "boot_raw": {"host_s_to_login_prompt": res.get("boot_s")}, "boot": figs,
        "uname": None, "cmdline": None, "vulnerabilities": {}, "log": os.path.relpath(log, REPO_ROOT),
    }


def skipped_run(cfg: KernelConfig, smp: int, reason: str) -> dict:
    return {"config": cfg.key, "label": cfg.label, "smp": smp, "repeat": 0, "skipped": reason,
            "command": [], "command_line": "", "wall_s": 0.0, "exit_status": None, "ok": True,
            "problems": [], "figures": {}, "details": {}, "boot_raw": {}, "boot": {},
            "uname": None, "cmdline": None, "vulnerabilities": {}, "log": ""}


# ---------------------------------------------------------------------------
# The report
# ---------------------------------------------------------------------------

BOOT_ROWS = [
    ("boot_reset_to_init_ms", "boot: reset → /init, ms (TSC)", "ms"),
    ("boot_entry_to_init_ms", "boot: kernel entry → /init, ms", "ms"),
    ("boot_kernel_clock_at_init_ms", "boot: kernel's CLOCK_BOOTTIME at /init, ms", "ms"),
    ("boot_entry_to_banner_ms", "boot: kernel entry → banner, ms (Kevlar)", "ms"),
    ("mem_used_at_init_mib", "memory used at /init, MiB (totalram − freeram)", "MiB"),
    ("mem_not_free_at_init_mib", "memory not free at /init, MiB (512 MiB − freeram)", "MiB"),
    ("boot_debian_login_ms", "Debian boot: power-on → login prompt (serial getty starts), ms", "ms"),
    ("boot_debian_clock_zero_ms", "Debian boot: power-on → the kernel's CLOCK_MONOTONIC zero, ms", "ms"),
    ("boot_systemd_kernel_ms", "Debian boot: systemd-analyze's \"kernel\" (clock zero → systemd), ms", "ms"),
    ("boot_systemd_userspace_ms", "Debian boot: systemd-analyze's \"userspace\" (→ boot finished), ms", "ms"),
]

# The boot suite: what root runs after logging in. Guest time cannot be read
# from the host under icount, and the time a login takes depends on the
# host (idle guest time is skipped), so every figure is a timestamp the
# guest took itself, on its CLOCK_MONOTONIC, during the boot: systemd
# records when it started and when the boot's jobs finished, and when it
# started serial-getty@ttyS0 (agetty, which prints the login prompt next).
# The kernels' monotonic clocks start at different points of their boots
# (Linux's after the firmware and its decompressor), so boot-clock (typed
# in by boot_clock_command()) reads the TSC, which counts from the
# machine's reset, against CLOCK_MONOTONIC: where the clock's zero lies
# after power-on.
BOOT_CLOCK_SRC = os.path.join(SRC_DIR, "boot-clock.c")
BOOT_PROBE = [
    ("state", "systemctl is-system-running --wait"),
    ("clock", "{boot_clock}"),
    ("times", "systemctl show -p UserspaceTimestampMonotonic -p FinishTimestampMonotonic"),
    ("getty", "systemctl show -p ExecMainStartTimestampMonotonic serial-getty@ttyS0.service"),
    # Its own summary, for the log: the same two figures, as a user reads them.
    ("analyze", "systemd-analyze"),
]


def derive_entry_to_init(runs: list) -> None:
    """Kernel entry → /init. For Kevlar it is its CLOCK_BOOTTIME at /init
    (its clock starts at its first instruction). Linux's clock starts later
    (after decompression), so for Linux it is estimated as reset → /init
    minus the firmware time measured in Kevlar's run at the same CPU count
    (same QEMU, same firmware; Kevlar's reset → entry = TSC − its clock)."""
    firmware = {}
    for r in runs:
        b = r["boot"]
        if r["config"] == "kevlar" and "boot_reset_to_init_ms" in b and \
                "boot_kernel_clock_at_init_ms" in b:
            b["boot_entry_to_init_ms"] = b["boot_kernel_clock_at_init_ms"]
            firmware.setdefault(r["smp"], b["boot_reset_to_init_ms"] - b["boot_kernel_clock_at_init_ms"])
    for r in runs:
        b = r["boot"]
        if r["config"] != "kevlar" and r["smp"] in firmware and "boot_reset_to_init_ms" in b:
            b["boot_entry_to_init_ms"] = b["boot_reset_to_init_ms"] - firmware[r["smp"]]
            b["boot_entry_to_init_estimated"] = True
    for smp, fw in firmware.items():
        for r in runs:
            if r["smp"] == smp:
                r["boot"]["firmware_ms_measured_on_kevlar"] = fw


def value_of(run: Optional[dict], name: str):
    """A figure in report units: number, ("unsupported", why), or None."""
    if run is None or not run.get("figures") and not run.get("boot"):
        return None
    if name in run["boot"]:
        return run["boot"][name]
    f = run["figures"].get(name)
    if f is None:
        return None
    if "unsupported" in f:
        return ("unsupported", f["unsupported"])
    v = f["value"]
    return v / 1e6 if name.startswith(("bb_", "app_")) else v  # workloads in ms


def fmt_value(v, unit: str) -> str:
    if v is None:
        return "—"
    if isinstance(v, tuple):
        return f"unsupported ({v[1]})"
    if unit == "ns":
        return f"{v:,.1f}" if v < 1000 else f"{v:,.0f}"
    if unit == "ms":
        return f"{v:,.3f}" if v < 100 else f"{v:,.1f}"
    if unit == "rate":
        return f"{v:,.0f}"
    return f"{v:,.1f}"


def verdict(ratio: float) -> str:
    if ratio < FASTER_BELOW:
        return "**faster**"
    if ratio > SLOWER_ABOVE:
        return "slower"
    return "parity"


def ratio_of(vals: dict, linux: str = "linux", kevlar: str = "kevlar") -> Optional[float]:
    """Kevlar time / Linux time. For a rate (requests/s) this is also
    Linux rate / Kevlar rate: below 1 is always Kevlar faster."""
    lin, kev = vals.get(linux), vals.get(kevlar)
    if isinstance(lin, float) and isinstance(kev, float) and lin > 0:
        return kev / lin
    return None


def rows_for(runs_by_key: dict, names: list) -> list:
    """[(name, label, unit, {config: value}, ratio)] for one CPU count; the
    ratio is against the headline Linux (erms-off)."""
    rows = []
    for name, label, unit in names:
        vals = {k: value_of(r, name) for k, r in runs_by_key.items()}
        rows.append((name, label, unit, vals, ratio_of(vals)))
    return rows


def ops_of(runs_by_key: dict, name: str) -> Optional[int]:
    """Requests in a rate row (BENCH-DETAIL ops=N), else None."""
    for r in runs_by_key.values():
        d = r.get("details", {}).get(name, {})
        if "ops" in d and name.startswith("app_"):
            try:
                return int(d["ops"])
            except ValueError:
                pass
    return None


def display(v, unit: str, ops: Optional[int]):
    """A value for the tables: ms, or requests/s for a rate row."""
    if ops and isinstance(v, float) and v > 0:
        return ops / (v / 1000.0)
    return v


def sections(runs_by_key: dict) -> list:
    """(title, rows) for boot, microbenchmarks and workloads, in output order."""
    names = []
    for r in runs_by_key.values():
        for n in r["figures"]:
            if n not in names:
                names.append(n)
    micro = [(n, n, "ns") for n in names if not n.startswith(("bb_", "app_"))]
    work = [(n, n, "ms") for n in names if n.startswith("bb_")]
    apps = [(n, n, "ms") for n in names if n.startswith("app_")]
    boot = [row for row in BOOT_ROWS
            if any(row[0] in r["boot"] for r in runs_by_key.values())]
    return [("Boot and memory", rows_for(runs_by_key, boot)),
            ("Microbenchmarks (ns per operation)", rows_for(runs_by_key, micro)),
            ("BusyBox workloads (ms per run)", rows_for(runs_by_key, work)),
            ("Application benchmarks (ms per run; requests/s for redis and nginx)",
             rows_for(runs_by_key, apps))]


def geomean(xs: list) -> Optional[float]:
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def repeat_check(runs: list) -> dict:
    """Largest relative difference between repeats of the same (config, smp)."""
    groups = {}
    for r in runs:
        groups.setdefault((r["config"], r["smp"]), []).append(r)
    worst = {"max_rel_diff": 0.0, "where": None, "figures_compared": 0, "groups": 0}
    for (cfg, smp), rs in groups.items():
        if len(rs) < 2:
            continue
        worst["groups"] += 1
        keys = set()
        for r in rs:
            keys |= {k for k, v in r["figures"].items() if "value" in v}
            keys |= {k for k in r["boot"] if isinstance(r["boot"][k], float)}
        for k in sorted(keys):
            vals = []
            for r in rs:
                if k in r["boot"]:
                    vals.append(r["boot"][k])
                elif "value" in r["figures"].get(k, {}):
                    vals.append(r["figures"][k]["value"])
            if len(vals) < 2:
                continue
            worst["figures_compared"] += 1
            lo, hi = min(vals), max(vals)
            d = (hi - lo) / lo if lo > 0 else (0.0 if hi == lo else math.inf)
            if d > worst["max_rel_diff"]:
                worst.update(max_rel_diff=d, where=f"{k} ({cfg}, smp{smp})")
    return worst


def _median(xs: list) -> float:
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def aggregate(runs: list) -> list:
    """One run-like record per (kernel, CPU count): every suite's figures
    merged, each the median over the repeated boots, with its spread
    (min, max) when there were several. A benchmark that failed in any
    boot is reported as failed (with how many and why), never averaged
    away."""
    groups = {}
    for r in runs:
        if r.get("skipped"):
            continue
        groups.setdefault((r["config"], r["smp"]), []).append(r)
    out = []
    for (cfg, smp), rs in groups.items():
        first = rs[0]
        agg = {k: first[k] for k in ("config", "label", "smp", "uname", "cmdline",
                                     "vulnerabilities") if k in first}
        agg.update(baseline=first.get("baseline", HEADLINE), figures={}, details={}, why={},
                   spread={}, boot={}, runs=len(rs), problems=[], ok=all(r["ok"] for r in rs),
                   notes=sorted({n for r in rs for n in r.get("notes", [])}))
        for r in rs:
            agg["problems"] += [f"{r.get('suite', 'micro')} run {r.get('repeat', 0) + 1}: {p}"
                                for p in r["problems"]]
        names = []
        for r in rs:
            names += [n for n in r["figures"] if n not in names]
        for n in names:
            have = [r for r in rs if n in r["figures"]]
            bad = [r for r in have if "unsupported" in r["figures"][n]]
            if bad:
                why = bad[0]["figures"][n]["unsupported"]
                if len(bad) < len(have):
                    why += f"-in-{len(bad)}-of-{len(have)}-boots"
                agg["figures"][n] = {"unsupported": why}
                text = bad[0].get("why", {}).get(n)
                if text:
                    agg["why"][n] = text
                continue
            vals = [r["figures"][n]["value"] for r in have]
            agg["figures"][n] = {"value": _median(vals)}
            if len(vals) > 1:
                agg["spread"][n] = [min(vals), max(vals), len(vals)]
            for r in have:
                if n in r["details"]:
                    agg["details"][n] = r["details"][n]
                    break
        keys = {k for r in rs for k, v in r["boot"].items() if isinstance(v, (int, float))
                and not isinstance(v, bool)}
        for k in keys:
            vals = [r["boot"][k] for r in rs if k in r["boot"]]
            agg["boot"][k] = _median(vals)
        out.append(agg)
    return out


def spread_text(agg_run: Optional[dict], name: str) -> str:
    """`±x%` of the median (half the min-max range), with the boot count."""
    if not agg_run or name not in agg_run.get("spread", {}):
        return ""
    lo, hi, n = agg_run["spread"][name]
    med = agg_run["figures"][name]["value"]
    return f"±{(hi - lo) / 2 / med * 100:.1f}% (n={n})" if med > 0 else ""


def failure_text(agg_run: Optional[dict], name: str) -> str:
    f = (agg_run or {}).get("figures", {}).get(name, {})
    if "unsupported" not in f:
        return ""
    why = agg_run.get("why", {}).get(name)
    return f"failed: {f['unsupported']}" + (f" ({why})" if why else "")


def cpumax_ratio(runs_by_key: dict, vals: dict) -> Optional[float]:
    """Kevlar / Linux -cpu max. Kevlar's figure is from its own -cpu max
    run when there is one, else from its erms-off run (Kevlar uses no
    ERMS/FSRM string instructions, so its code is the same on both CPUs)."""
    kev = "kevlar-cpumax" if "kevlar-cpumax" in runs_by_key else "kevlar"
    return ratio_of(vals, "linux-cpumax", kev)


def write_markdown(report: dict, path: str) -> None:
    mode = MODES[report["mode"]]
    L = []
    L.append(f"# Kevlar benchmarks ({report['mode']})")
    L.append("")
    L.append(f"Generated by `tools/bench.py` on {report['date']}. Mode: {mode.describe}.")
    L.append(f"QEMU {report['qemu']['version']}, `-machine q35 -cpu {'host' if report['mode'] == 'kvm' else 'max'}{CPU_FEATURES}"
             f"{BASELINES[HEADLINE]} -m {MEM} {' '.join(RTC_FLAGS)}` for Linux and Kevlar "
             f"(baseline {HEADLINE}); `-cpu max{CPU_FEATURES}` for Linux -cpu max (baseline "
             f"cpu-max); the application benchmarks with -m {APPS_MEM} and the Debian disk. "
             "Command lines at the end.")
    for k in report["kernels"].values():
        L.append(f"- **{k['label']}**: {k['description']}")
    L.append("")
    runs_note = (f"every figure is the median of {report['repeat']} boots, alternating the "
                 "kernels; spread = half the min-max range" if report["repeat"] > 1 else
                 "one boot per kernel")
    L.append(f"Ratio = Kevlar / Linux ({HEADLINE}, default mitigations); lower is better "
             f"everywhere (for rates: Linux rate / Kevlar rate). **faster** < {FASTER_BELOW}, "
             f"parity {FASTER_BELOW}–{SLOWER_ABOVE}, slower > {SLOWER_ABOVE}. Microbenchmarks: "
             "median of 5 rounds of ~3 ms; BusyBox workloads: median of 3 runs; application "
             f"benchmarks: one run per boot; {runs_note}." if not report["quick"] else
             "QUICK mode: one short round per benchmark; figures are for smoke-testing only.")
    rc = report.get("repeatability")
    if rc and rc["groups"] and report["mode"] == "icount":
        ok = rc["max_rel_diff"] <= REPEAT_TOLERANCE
        L.append("")
        L.append(f"Repeatability: every boot was run {report['repeat']} times; over "
                 f"{rc['figures_compared']} figures the largest difference between runs was "
                 f"{rc['max_rel_diff'] * 100:.3f}%"
                 + (f" ({rc['where']})" if rc["where"] else "")
                 + (" — within 1%." if ok else " — MORE THAN 1%: investigate."))
    aggregated = report.get("aggregated") or aggregate(report["runs"])
    for smp in report["smp"]:
        runs_by_key = {r["config"]: r for r in aggregated if r["smp"] == smp}
        skipped = [r for r in report["runs"] if r["smp"] == smp and r.get("skipped")]
        if not runs_by_key and not skipped:
            continue
        labels = [(k, report["kernels"][k]["label"]) for k in report["kernel_order"] if k in runs_by_key]
        L.append("")
        L.append(f"## -smp {smp}")
        for reason in sorted({r["skipped"] for r in skipped}):
            who = ", ".join(sorted({r["label"] for r in skipped if r["skipped"] == reason}))
            L.append("")
            L.append(f"Not run: {who}. {reason}")
        for r in runs_by_key.values():
            if not r["ok"]:
                L.append("")
                L.append(f"**{r['label']} had problems**: {'; '.join(r['problems'])}")
        for title, rows in sections(runs_by_key):
            if not rows:
                continue
            L.append("")
            L.append(f"### {title}")
            L.append("")
            head = ["benchmark"] + [lab for _, lab in labels]
            have_ratio = "linux" in runs_by_key and "kevlar" in runs_by_key
            have_cpumax = "linux-cpumax" in runs_by_key and "kevlar" in runs_by_key
            if have_ratio:
                head += ["Kevlar/Linux", "verdict"]
            if have_cpumax:
                head += ["Kevlar/Linux -cpu max"]
            if report["repeat"] > 1:
                head += ["spread (Linux; Kevlar)"]
            L.append("| " + " | ".join(head) + " |")
            L.append("|" + "---|" * len(head))
            ratios = []
            for name, label, unit, vals, ratio in rows:
                ops = ops_of(runs_by_key, name)
                cells = [f"`{label}`" + (" (req/s)" if ops else "")
                         if not name.startswith(("boot_", "mem_")) else label]
                for k, _ in labels:
                    v = vals.get(k)
                    if isinstance(v, tuple):
                        cells.append(failure_text(runs_by_key.get(k), name) or f"failed ({v[1]})")
                        continue
                    s_ = fmt_value(display(v, unit, ops), unit if not ops else "rate")
                    if name == "boot_entry_to_init_ms" and k != "kevlar" and isinstance(v, float):
                        s_ = "≈ " + s_
                    cells.append(s_)
                if have_ratio:
                    if ratio is not None:
                        cells += [f"{ratio:.2f}" if ratio >= 0.1 else f"{ratio:.4f}", verdict(ratio)]
                        if not name.startswith(("boot_", "mem_")):
                            ratios.append(ratio)
                    else:
                        cells += ["—", "failed on " + " and ".join(
                            lab for k, lab in labels if k in ("linux", "kevlar")
                            and isinstance(vals.get(k), tuple)) if any(
                            isinstance(vals.get(k), tuple) for k in ("linux", "kevlar")) else ""]
                if have_cpumax:
                    r2 = cpumax_ratio(runs_by_key, vals)
                    cells.append(f"{r2:.2f}" if r2 is not None and r2 >= 0.1 else
                                 f"{r2:.4f}" if r2 is not None else "—")
                if report["repeat"] > 1:
                    cells.append("; ".join(x for x in (spread_text(runs_by_key.get("linux"), name),
                                                       spread_text(runs_by_key.get("kevlar"), name)) if x))
                L.append("| " + " | ".join(cells) + " |")
            if ratios:
                g = geomean(ratios)
                n_f = sum(r < FASTER_BELOW for r in ratios)
                n_s = sum(r > SLOWER_ABOVE for r in ratios)
                L.append("")
                L.append(f"Geometric mean of the ratios: **{g:.2f}** "
                         f"({n_f} faster, {len(ratios) - n_f - n_s} parity, {n_s} slower).")
        notes = sorted({n for r in runs_by_key.values() for n in r.get("notes", [])})
        if notes:
            L.append("")
            L.append("Notes from the guests: " + "; ".join(f"`{n}`" for n in notes) + ".")
    # Linux's view of the CPU's vulnerabilities: what "mitigations" means here.
    vul = {}
    for r in report["runs"]:
        if r["vulnerabilities"] and r.get("repeat", 0) == 0:
            vul.setdefault(r["label"], {k: v for k, v in r["vulnerabilities"].items()
                                        if not v.startswith("Not affected")})
    if vul:
        L.append("")
        L.append("## Mitigations Linux applies on this virtual CPU")
        L.append("")
        L.append("From `/sys/devices/system/cpu/vulnerabilities` (entries other than "
                 "\"Not affected\"):")
        for label, d in vul.items():
            L.append("")
            L.append(f"- {label}: " + ("; ".join(f"{k}: {v}" for k, v in sorted(d.items())) or "none"))
    L.append("")
    L.append("## Runs")
    L.append("")
    L.append("| kernel | suite | smp | boot | wall time | outcome | log |")
    L.append("|---|---|---|---|---|---|---|")
    for r in report["runs"]:
        if r.get("skipped"):
            L.append(f"| {r['label']} | {r.get('suite', 'micro')} | {r['smp']} | — | — | "
                     "not run (see above) | |")
            continue
        L.append(f"| {r['label']} | {r.get('suite', 'micro')} | {r['smp']} | {r.get('repeat', 0) + 1} | {r['wall_s']:.1f} s | "
                 f"{'ok' if r['ok'] else '; '.join(r['problems'])} | `{r['log']}` |")
    L.append("")
    L.append("QEMU command lines:")
    L.append("")
    seen = set()
    for r in report["runs"]:
        if (r["config"], r["smp"], r.get("suite")) in seen or r.get("skipped"):
            continue
        seen.add((r["config"], r["smp"], r.get("suite")))
        L.append("```")
        L.append(r["command_line"].replace(REPO_ROOT + "/", ""))
        L.append("```")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(L) + "\n")


def summary_rows(report: dict) -> list:
    """(name, mode, baseline, linux, kevlar, ratio) for every benchmark at
    -smp 1 and both baselines. Values in the report's units (ns per op for
    microbenchmarks, ms per run for workloads and applications, requests/s
    for rates); a failed figure is `failed:<why>`; ratio = Kevlar time /
    Linux time (= Linux rate / Kevlar rate), `-` when either failed."""
    aggregated = report.get("aggregated") or aggregate(report["runs"])
    runs_by_key = {r["config"]: r for r in aggregated if r["smp"] == 1}
    out = []
    for baseline, linux_key in ((HEADLINE, "linux"), ("cpu-max", "linux-cpumax")):
        kev_key = "kevlar-cpumax" if baseline == "cpu-max" and "kevlar-cpumax" in runs_by_key \
            else "kevlar"
        if linux_key not in runs_by_key or kev_key not in runs_by_key:
            continue
        for title, rows in sections({k: runs_by_key[k] for k in (linux_key, kev_key)}):
            if title.startswith("Boot"):
                # The Debian boot's rows are benchmarks; the initramfs
                # boot's are context for the others.
                rows = [row for row in rows if row[0].startswith(("boot_debian_login", "boot_systemd"))]
            for name, _, unit, vals, _ in rows:
                ops = ops_of(runs_by_key, name)
                cells = []
                for k in (linux_key, kev_key):
                    v = vals.get(k)
                    if isinstance(v, tuple):
                        why = runs_by_key[k].get("why", {}).get(name, "")
                        text = f"failed:{v[1]}" + (f": {why}" if why else "")
                        cells.append(re.sub(r"\s+", " ", text)[:200])
                    elif v is None:
                        cells.append("failed:not-run")
                    else:
                        d = display(v, unit, ops)
                        cells.append(f"{d:.1f}" if ops or d >= 100 else f"{d:.4g}")
                r = ratio_of(vals, linux_key, kev_key)
                out.append((name, report["mode"], baseline, cells[0], cells[1],
                            f"{r:.3f}" if r is not None else "-"))
    return out


def write_summary(report: dict, path: str = SUMMARY) -> None:
    """build/bench/summary.tsv: the rows of this run replace the rows with
    the same (name, mode, baseline); rows of other modes stay."""
    rows = summary_rows(report)
    if not rows:
        return
    keep = []
    if os.path.isfile(path):
        with open(path, encoding="utf-8") as f:
            for line in f.read().splitlines()[1:]:
                parts = line.split("\t")
                if len(parts) == 6 and not any(tuple(parts[:3]) == r[:3] for r in rows):
                    keep.append(tuple(parts))
    mode_order = {"icount": 0, "wallclock": 1, "kvm": 2}
    order = {}
    for r in keep + rows:
        order.setdefault(r[0], len(order))
    allrows = sorted(keep + rows, key=lambda r: (mode_order.get(r[1], 9), r[2] != HEADLINE,
                                                  order[r[0]]))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        f.write("name\tmode\tbaseline\tlinux\tkevlar\tratio\n")
        f.writelines("\t".join(r) + "\n" for r in allrows)
    os.replace(path + ".tmp", path)


SYSTEM_PYTHON = "/usr/bin/python3"


def _chart_elsewhere(report: dict, path: str) -> Optional[str]:
    """This Python has no matplotlib (e.g. a pyenv interpreter first on
    PATH): draw the chart with Debian's Python, where python3-matplotlib
    installs it, from the JSON report already written next to `path`."""
    missing = "matplotlib is not installed (Debian package python3-matplotlib): no chart"
    if not os.path.exists(SYSTEM_PYTHON) or \
            os.path.realpath(SYSTEM_PYTHON) == os.path.realpath(sys.executable):
        return missing
    json_path = os.path.join(os.path.dirname(path), "report.json")
    r = subprocess.run([SYSTEM_PYTHON, os.path.abspath(__file__), "--chart", json_path],
                       capture_output=True, text=True)
    if r.returncode != 0 or not os.path.isfile(path):
        return missing + (f" ({SYSTEM_PYTHON}: {r.stderr.strip()[-300:]})" if r.stderr else "")
    return None


def write_chart(report: dict, path: str) -> Optional[str]:
    """Bar chart of the Kevlar/Linux ratios (log scale), one panel per CPU count."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return _chart_elsewhere(report, path)
    panels = []
    for smp in report["smp"]:
        runs_by_key = {r["config"]: r for r in (report.get("aggregated") or aggregate(report["runs"]))
                       if r["smp"] == smp}
        if "linux" not in runs_by_key or "kevlar" not in runs_by_key:
            continue
        bars = []
        for _, rows in sections(runs_by_key):
            for name, label, unit, vals, ratio in rows:
                if name in ("boot_kernel_clock_at_init_ms", "boot_entry_to_banner_ms",
                            "mem_not_free_at_init_mib"):
                    continue
                bars.append((label if not name.startswith(("boot_", "mem_")) else name, ratio,
                             vals.get("kevlar")))
        panels.append((smp, bars))
    if not panels:
        return "no run with both Linux and Kevlar: no chart"
    height = max(6.0, 0.22 * max(len(b) for _, b in panels) + 1.5)
    fig, axes = plt.subplots(1, len(panels), figsize=(6.5 * len(panels), height), squeeze=False)
    for ax, (smp, bars) in zip(axes[0], panels):
        names = [b[0] for b in bars][::-1]
        ratios = [b[1] for b in bars][::-1]
        kev = [b[2] for b in bars][::-1]
        ys = range(len(names))
        colors, widths = [], []
        for r, k in zip(ratios, kev):
            if r is None:
                colors.append("#bbbbbb")
                widths.append(1.0)
            else:
                colors.append("#2a9d4b" if r < FASTER_BELOW else "#d1495b" if r > SLOWER_ABOVE
                              else "#8d99ae")
                widths.append(r)
        ax.barh(list(ys), [w - 1.0 for w in widths], left=1.0,
                color=colors, height=0.7)
        for y, r, k in zip(ys, ratios, kev):
            if r is None:
                why = k[1] if isinstance(k, tuple) else "n/a"
                ax.text(1.02, y, f"unsupported ({why})" if isinstance(k, tuple) else why,
                        va="center", fontsize=7, color="#555555")
            else:
                # The value at the bar's outer end (right of 1, or left of it).
                ax.text(r * 1.04 if r >= 1 else r / 1.04, y,
                        f"{r:.2f}" if r >= 0.1 else f"{r:.3g}",
                        va="center", ha="left" if r >= 1 else "right", fontsize=6)
        ax.set_xscale("log")
        ax.axvline(1.0, color="black", linewidth=0.8)
        ax.axvspan(FASTER_BELOW, SLOWER_ABOVE, color="#dddddd", alpha=0.6, zorder=0)
        ax.set_yticks(list(ys))
        ax.set_yticklabels(names, fontsize=7)
        ax.set_ylim(-0.6, len(names) - 0.4)
        finite = [r for r in ratios if r]
        lo = min(finite + [0.5]) / 4.0
        hi = max(finite + [2.0]) * 1.6
        ax.set_xlim(lo, hi)
        ax.set_xlabel("Kevlar / Linux (log scale; < 1: Kevlar faster)")
        ax.set_title(f"-smp {smp}, {report['mode']}")
        ax.grid(axis="x", which="both", linewidth=0.3, alpha=0.5)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return None


# ---------------------------------------------------------------------------
# Main
# ---------------------------------------------------------------------------

def qemu_version(qemu: str) -> str:
    try:
        r = subprocess.run([qemu, "--version"], capture_output=True, text=True, timeout=30)
        return r.stdout.splitlines()[0].strip() if r.stdout else "unknown"
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"


def git_describe() -> str:
    r = subprocess.run(["git", "-C", REPO_ROOT, "describe", "--always", "--dirty", "--abbrev=12"],
                       capture_output=True, text=True)
    return r.stdout.strip() or "unknown"


def kernel_info(configs: list, runs: list) -> dict:
    info = {}
    for c in configs:
        unames = sorted({r["uname"] for r in runs if r["config"] == c.key and r["uname"]})
        d = {"label": c.label, "image": os.path.relpath(c.kernel, REPO_ROOT),
             "sha256": sha256(c.kernel), "append": c.append, "uname": unames}
        if c.is_linux:
            debs = sorted(os.path.basename(p) for p in
                          os.listdir(linux_oracle.LINUX_DIR) if p.endswith(".deb"))
            d["package"] = debs[-1] if debs else None
            d["description"] = (f"Debian {os.path.basename(c.kernel)} "
                                f"({d['package'] or 'package unknown'}), "
                                f"command line `{c.append}`")
        else:
            d["git"] = git_describe()
            d["description"] = f"`{d['image']}` built from {d['git']}"
        info[c.key] = d
    return info


def parse_args(argv=None):
    p = argparse.ArgumentParser(prog="bench.py", description=__doc__.split("\n\n")[0])
    m = p.add_mutually_exclusive_group()
    m.add_argument("--mode", choices=("icount", "wallclock", "both"), default=None,
                   help="icount (figure of record), wallclock (plain TCG, host time) or both "
                   "(default: both; quick: icount)")
    m.add_argument("--icount", action="store_true", help="same as --mode icount")
    m.add_argument("--wallclock", action="store_true", help="same as --mode wallclock")
    m.add_argument("--kvm", action="store_true", help="KVM; separate report")
    p.add_argument("--quick", action="store_true",
                   help="Kevlar only, one short round per benchmark, no application "
                   "benchmarks (make test)")
    p.add_argument("--suite", default=None,
                   help="comma-separated: micro (microbenchmarks and BusyBox workloads, "
                   "initramfs), apps (Debian programs on the disk), boot (Debian with systemd to "
                   "its login prompt); default all three, quick: micro")
    p.add_argument("--smp", type=int, action="append",
                   help="CPU count (repeatable; default 1 and 2 for micro, 1 for apps; quick: 1)")
    p.add_argument("--kernels", default=None,
                   help="comma-separated subset of linux,linux-cpumax,linux-nomitig,kevlar,"
                   "kevlar-cpumax (default linux,linux-cpumax,kevlar; quick: kevlar)")
    p.add_argument("--kernel", default=DEFAULT_KERNEL, help="Kevlar ELF (default build/kevlar.elf)")
    p.add_argument("--runs", "--repeat", dest="runs", type=int, default=None,
                   help="boots per kernel, alternating the kernels; figures are medians "
                   f"with their spread (default: {DEFAULT_RUNS_WALLCLOCK} in wallclock mode, "
                   "1 under icount, which is deterministic)")
    p.add_argument("--linux-smp-icount", action="store_true",
                   help="boot Linux at -smp 2+ under icount anyway (it hangs with QEMU 7.2)")
    p.add_argument("--only", nargs="+", metavar="NAME", default=[],
                   help="run only these benchmarks (names as printed; app_* select the "
                   "application suite)")
    p.add_argument("--timeout", type=float,
                   help=f"seconds per boot (default {DEFAULT_TIMEOUT:.0f}, apps "
                   f"{APPS_TIMEOUT:.0f}; quick {QUICK_TIMEOUT:.0f})")
    p.add_argument("--out", help="report directory (default depends on the mode)")
    p.add_argument("--no-summary", action="store_true",
                   help="do not update build/bench/summary.tsv")
    p.add_argument("--build-only", action="store_true",
                   help="compile the programs and write the images, nothing else")
    p.add_argument("--chart", metavar="REPORT_JSON",
                   help="only redraw report.png, report.md and the report's lines of "
                   "summary.tsv from an existing report.json")
    return p.parse_args(argv)


def run_mode(mode: Mode, ns, configs: list, images: dict, disk: Optional[str]) -> tuple:
    """Every boot of one mode; returns (report, exit status)."""
    runs_n = ns.runs or (DEFAULT_RUNS_WALLCLOCK if mode.name == "wallclock" and not ns.quick else 1)
    suites = [s for s in ("micro", "apps", "boot") if s in images]
    smps_of = {"micro": ns.smp or ([1] if ns.quick else [1, 2]), "apps": ns.smp or [1],
               "boot": ns.smp or [1]}
    smps = sorted({n for s in suites for n in smps_of[s]})
    out_dir = ns.out or (os.path.join(mode.out_dir, "quick") if ns.quick else mode.out_dir)
    os.makedirs(out_dir, exist_ok=True)
    os.makedirs(LOG_DIR, exist_ok=True)
    runs = []
    plan = [(smp, rep, cfg, suite) for smp in smps for rep in range(runs_n)
            for suite in suites if smp in smps_of[suite] for cfg in configs]
    started = time.monotonic()
    for step, (smp, rep, cfg, suite) in enumerate(plan, 1):
        where = f"[{mode.name} {step}/{len(plan)}] {cfg.label}, {suite}, -smp {smp}" + \
            (f", boot {rep + 1}/{runs_n}" if runs_n > 1 else "")
        if mode.icount and cfg.is_linux and smp > 1 and not ns.linux_smp_icount:
            if rep == 0:
                say(f"{where}: skipped ({LINUX_ICOUNT_SMP_NOTE})")
                r = skipped_run(cfg, smp, LINUX_ICOUNT_SMP_NOTE)
                r["suite"] = suite
                runs.append(r)
            continue
        tag = f"{mode.name}{'-quick' if ns.quick else ''}-{suite}-{cfg.key}-smp{smp}" + \
              (f"-r{rep + 1}" if runs_n > 1 else "")
        log = os.path.join(LOG_DIR, tag + ".log")
        say(f"{where} ...")
        timeout = ns.timeout or (QUICK_TIMEOUT if ns.quick else APPS_TIMEOUT if suite == "apps" else
                                 DEBIAN_BOOT_TIMEOUT if suite == "boot" else DEFAULT_TIMEOUT)
        if suite == "boot":
            r = run_debian_boot(cfg, smp, mode, timeout, log)
        else:
            r = run_one(cfg, smp, mode, images[suite], timeout, log,
                        disk=disk if suite == "apps" else None)
        r["repeat"] = rep
        runs.append(r)
        n_ok = sum("value" in f for f in r["figures"].values())
        n_un = sum("unsupported" in f for f in r["figures"].values())
        say(f"    {r['wall_s']:.1f} s, {n_ok} figures, {n_un} failed/unsupported"
            + ("" if r["ok"] else f"; PROBLEM: {'; '.join(r['problems'])} (log {r['log']})"))
    derive_entry_to_init([r for r in runs if r.get("suite") == "micro"])
    image_info = {s: {"path": os.path.relpath(images[s], REPO_ROOT), "sha256": sha256(images[s]),
                      "bench_args": open(images[s] + ".args").read().split()} for s in suites
                  if s != "boot"}
    if "boot" in suites:
        image_info["boot"] = {"path": os.path.relpath(images["boot"], REPO_ROOT),
                              "probe": [c for _, c in BOOT_PROBE]}
    if disk and "apps" in suites:
        image_info["apps-disk"] = {"path": os.path.relpath(disk, REPO_ROOT)}
    report = {
        "schema": 2,
        "mode": mode.name,
        "mode_description": mode.describe,
        "quick": ns.quick,
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "host": {"machine": platform.machine(), "cpus": os.cpu_count(),
                 "python": platform.python_version(), "node": platform.node(),
                 "loadavg_at_end": list(os.getloadavg())},
        "qemu": {"binary": run_qemu.DEFAULT_QEMU, "version": qemu_version(run_qemu.DEFAULT_QEMU)},
        "memory": MEM,
        "baselines": {k: "max" + CPU_FEATURES + v for k, v in BASELINES.items()},
        "image": image_info,
        "suites": suites,
        "smp": smps,
        "repeat": runs_n,
        "kernel_order": [c.key for c in configs],
        "kernels": kernel_info(configs, runs),
        "total_wall_s": round(time.monotonic() - started, 1),
        "runs": runs,
    }
    report["repeatability"] = repeat_check([r for r in runs if not r.get("skipped")])
    report["aggregated"] = aggregate(runs)
    json_path = os.path.join(out_dir, "report.json")
    md_path = os.path.join(out_dir, "report.md")
    png_path = os.path.join(out_dir, "report.png")
    with open(json_path, "w", encoding="utf-8") as f:
        json.dump(report, f, indent=1)
    write_markdown(report, md_path)
    chart_note = None if ns.quick else write_chart(report, png_path)
    say(f"report: {os.path.relpath(md_path, REPO_ROOT)}, {os.path.relpath(json_path, REPO_ROOT)}"
        + ("" if ns.quick or chart_note else f", {os.path.relpath(png_path, REPO_ROOT)}")
        + f" ({report['total_wall_s']:.0f} s)")
    if chart_note:
        say(chart_note)
    if not ns.quick and not ns.no_summary and mode.name in ("icount", "wallclock"):
        write_summary(report)
        say(f"summary: {os.path.relpath(SUMMARY, REPO_ROOT)}")
    rc = report["repeatability"]
    if rc["groups"]:
        say(f"repeatability: largest difference {rc['max_rel_diff'] * 100:.3f}% over "
            f"{rc['figures_compared']} figures" + (f" ({rc['where']})" if rc["where"] else ""))
    bad = [r for r in runs if not r["ok"]]
    if ns.quick:
        for r in runs:
            unsup = sorted(n for n, f in r["figures"].items() if "unsupported" in f)
            n_ok = sum("value" in f for f in r["figures"].values())
            print(f"bench-quick {r['label']} {r.get('suite', 'micro')} smp{r['smp']}: "
                  f"{'ok' if r['ok'] else 'FAILED'}: {n_ok} figures"
                  + (f", unsupported: {', '.join(unsup)}" if unsup else "")
                  + ("" if r["ok"] else f"; {'; '.join(r['problems'])} (log {r['log']})"))
    for r in bad:
        say(f"FAILED: {r['label']} {r.get('suite', 'micro')} -smp {r['smp']}: "
            f"{'; '.join(r['problems'])} (log {r['log']})")
    return report, (1 if bad else 0)


def main(argv=None) -> int:
    ns = parse_args(argv)
    if ns.chart:
        with open(ns.chart, encoding="utf-8") as f:
            report = json.load(f)
        out = os.path.dirname(os.path.abspath(ns.chart))
        write_markdown(report, os.path.join(out, "report.md"))
        if not report.get("quick") and report.get("mode") in ("icount", "wallclock"):
            write_summary(report)
        note = write_chart(report, os.path.join(out, "report.png"))
        if note:
            say(note)
        return 1 if note else 0
    if ns.kvm:
        modes = [MODES["kvm"]]
    else:
        which = ("icount" if ns.icount else "wallclock" if ns.wallclock else
                 ns.mode or ("icount" if ns.quick else "both"))
        modes = [MODES[m] for m in (("icount", "wallclock") if which == "both" else (which,))]
    if ns.out and len(modes) > 1:
        say("--out needs one mode (--mode icount or wallclock)")
        return 2
    suites = (ns.suite.split(",") if ns.suite else ["micro"] if ns.quick else ["micro", "apps", "boot"])
    if any(s not in ("micro", "apps", "boot") for s in suites):
        say(f"unknown suite in {ns.suite!r} (micro, apps, boot)")
        return 2
    boot_rows = {row[0] for row in BOOT_ROWS if row[0].startswith(("boot_debian", "boot_systemd"))}
    only_boot = [n for n in ns.only if n in boot_rows]
    only_apps = [n for n in ns.only if n.startswith("app_")]
    only_micro = [n for n in ns.only if not n.startswith("app_") and n not in boot_rows]
    if ns.only:
        if not ns.suite:
            suites = ["micro", "apps", "boot"]
        suites = [s for s in suites if (s == "apps" and only_apps) or (s == "micro" and only_micro)
                  or (s == "boot" and only_boot)]
        if not suites:
            say("--only names no benchmark of the chosen suites")
            return 2
    images, disk = {}, None
    try:
        programs = compile_programs()
        full_image = build_image(programs, [], os.path.join(OUT_DIR, "bench.cpio"))
        quick_image = build_image(programs, ["quick"], os.path.join(OUT_DIR, "bench-quick.cpio"))
        if "micro" in suites:
            if only_micro:
                images["micro"] = build_image(programs, (["quick"] if ns.quick else []) + only_micro,
                                              os.path.join(OUT_DIR, "bench-only.cpio"))
            else:
                images["micro"] = quick_image if ns.quick else full_image
        if "apps" in suites or ns.build_only:
            disk = build_apps_disk(programs)
            images_apps = build_apps_initrd(programs, (["quick"] if ns.quick else []) + only_apps,
                                            os.path.join(APPS_OUT, "apps.cpio"))
            if "apps" in suites:
                images["apps"] = images_apps
        if "boot" in suites and (ns.quick or ns.kvm):
            if ns.suite or ns.only:
                say("the boot suite runs in the icount and wallclock modes, not with --quick or --kvm")
                return 2
            suites.remove("boot")
        if "boot" in suites:
            images["boot"] = debian_boot_test.boot.image()
        if ns.build_only:
            for path in [full_image, quick_image] + list(images.values()) + [disk]:
                print(path)
            return 0
        wanted = (ns.kernels.split(",") if ns.kernels else
                  ["kevlar"] if ns.quick else ["linux", "linux-cpumax", "kevlar"])
        configs = kernel_configs(wanted, ns.kernel)
    except BenchError as e:
        say(e)
        return 1
    status = 0
    for mode in modes:
        try:
            _, rc = run_mode(mode, ns, configs, images, disk)
        except OSError as e:
            say(f"cannot start QEMU: {e}")
            return 1
        status = max(status, rc)
    return status


if __name__ == "__main__":
    sys.exit(main())
