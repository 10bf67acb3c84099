#!/usr/bin/env python3
"""Kevlar's benchmark instrument: the same benchmark initramfs under Debian's
Linux 6.1 and under Kevlar, with the same QEMU flags, and a report that puts
them side by side (docs/benchmarks.md).

    tools/bench.py                 # full run: Linux, Linux mitigations=off, Kevlar
                                   # at -smp 1 and 2 under -icount -> build/bench/report.*
    tools/bench.py --smp 1         # one CPU count only
    tools/bench.py --repeat 2      # every boot twice; the report states the largest
                                   # difference between the two (icount: none expected)
    tools/bench.py --quick         # Kevlar only, tiny iteration counts (make test);
                                   # exit status 1 if the benchmark crashed or printed
                                   # no BENCH lines
    tools/bench.py --wallclock     # TCG without icount -> build/bench/wallclock/
    tools/bench.py --kvm           # KVM                -> build/bench/kvm/
    tools/bench.py --build-only    # compile and write the initramfs images, nothing else

The figure of record is taken under `-icount shift=0,sleep=off`: guest time
then advances 1 ns per executed instruction and skips idle time, so figures
are deterministic. Wall-clock and KVM figures are never mixed with them:
they go to their own directories and say which mode they are in.

The image (build/bench/bench.cpio): /init is bench-init (userland/bench/
bench-init.c), which records when it started, runs /bench/bench with the
words of /bench/args and powers off; /bench/nop is what the exec benchmarks
start; BusyBox and its applet links provide the workloads.

Output lines parsed from the guest (everything else is ignored):
    BENCH <name> <ns>  |  BENCH <name> unsupported <why>
    BENCH-DETAIL <name> k=v ...     BOOT <key> <value>     BENCH-KERNEL <uname>
    BENCH-VULN <name>: <text>       BENCH-EXIT exit N      BENCH-END ran=N unsupported=M
    boot: banner at X ms            (Kevlar's own boot timeline)
"""

import argparse
import dataclasses
import datetime
import hashlib
import importlib.util
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
PROGRAMS = {"bench": "bench.c", "nop": "nop.c", "bench-init": "bench-init.c"}

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


def _load(name: str, filename: str):
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, os.path.join(TOOLS_DIR, filename))
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod  # dataclasses look their module up here
    spec.loader.exec_module(mod)
    return mod


run_qemu = _load("run_qemu", "run-qemu.py")
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
    """Compile the three static programs; return name -> path."""
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
        elif line.startswith("BENCH-EXIT "):
            p.exit = line[len("BENCH-EXIT "):]
        elif line.startswith("BENCH-END"):
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
        elif key == "linux-nomitig":
            configs.append(KernelConfig(key, "Linux mitigations=off", vmlinuz,
                                        linux_oracle.full_append("mitigations=off"), True))
        elif key == "kevlar":
            if not os.path.isfile(kevlar_elf):
                raise BenchError(f"{kevlar_elf} not found: run `make kernel` first")
            configs.append(KernelConfig(key, "Kevlar", kevlar_elf, None, False))
        else:
            raise BenchError(f"unknown kernel {key!r} (linux, linux-nomitig, kevlar)")
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


def run_one(cfg: KernelConfig, smp: int, mode: Mode, image: str, timeout: float,
            log: str) -> dict:
    cpu = ("host" if mode.accel == "kvm" else "max") + CPU_FEATURES
    opts = run_qemu.Options(kernel=cfg.kernel, initrd=image, append=cfg.append, smp=smp,
                            mem=MEM, accel=mode.accel, icount=mode.icount, timeout=timeout,
                            log=log, echo=False, cpu=cpu, extra=list(RTC_FLAGS))
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
        "smp": smp,
        "command": result.command,
        "command_line": shlex.join(result.command),
        "wall_s": round(result.elapsed_s, 2),
        "exit_status": result.exit_status,
        "ok": not problems,
        "problems": problems,
        "figures": parsed.figures,
        "details": parsed.details,
        "boot_raw": parsed.boot,
        "boot": boot_figures(parsed),
        "uname": parsed.uname,
        "cmdline": parsed.cmdline,
        "vulnerabilities": parsed.vulnerabilities,
        "log": os.path.relpath(log, REPO_ROOT),
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
    return v / 1e6 if name.startswith("bb_") else v  # workloads in ms


def fmt_value(v, unit: str) -> str:
    if v is None:
        return "—"
    if isinstance(v, tuple):
        return f"unsupported ({v[1]})"
    if unit == "ns":
        return f"{v:,.1f}" if v < 1000 else f"{v:,.0f}"
    if unit == "ms":
        return f"{v:,.3f}" if v < 100 else f"{v:,.1f}"
    return f"{v:,.1f}"


def verdict(ratio: float) -> str:
    if ratio < FASTER_BELOW:
        return "**faster**"
    if ratio > SLOWER_ABOVE:
        return "slower"
    return "parity"


def rows_for(runs_by_key: dict, names: list) -> list:
    """[(name, label, unit, {config: value}, ratio)] for one CPU count."""
    rows = []
    for name, label, unit in names:
        vals = {k: value_of(r, name) for k, r in runs_by_key.items()}
        lin, kev = vals.get("linux"), vals.get("kevlar")
        ratio = None
        if isinstance(lin, float) and isinstance(kev, float) and lin > 0:
            ratio = kev / lin
        rows.append((name, label, unit, vals, ratio))
    return rows


def sections(runs_by_key: dict) -> list:
    """(title, rows) for boot, microbenchmarks and workloads, in output order."""
    names = []
    for r in runs_by_key.values():
        for n in r["figures"]:
            if n not in names:
                names.append(n)
    micro = [(n, n, "ns") for n in names if not n.startswith("bb_")]
    work = [(n, n, "ms") for n in names if n.startswith("bb_")]
    boot = [row for row in BOOT_ROWS
            if any(row[0] in r["boot"] for r in runs_by_key.values())]
    return [("Boot and memory", rows_for(runs_by_key, boot)),
            ("Microbenchmarks (ns per operation)", rows_for(runs_by_key, micro)),
            ("BusyBox workloads (ms per run)", rows_for(runs_by_key, work))]


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


def write_markdown(report: dict, path: str) -> None:
    mode = MODES[report["mode"]]
    L = []
    L.append(f"# Kevlar benchmarks ({report['mode']})")
    L.append("")
    L.append(f"Generated by `tools/bench.py` on {report['date']}. Mode: {mode.describe}.")
    L.append(f"QEMU {report['qemu']['version']}, `-machine q35 -cpu {'host' if report['mode'] == 'kvm' else 'max'}{CPU_FEATURES} -m {MEM} "
             f"{' '.join(RTC_FLAGS)}`, identical flags for every kernel apart from `-kernel` "
             "and `-append` (command lines at the end).")
    for k in report["kernels"].values():
        L.append(f"- **{k['label']}**: {k['description']}")
    L.append("")
    L.append(f"Ratio = Kevlar / Linux (default mitigations); lower is better everywhere. "
             f"**faster** < {FASTER_BELOW}, parity {FASTER_BELOW}–{SLOWER_ABOVE}, "
             f"slower > {SLOWER_ABOVE}. Microbenchmarks: median of 5 rounds of ~3 ms; "
             "workloads: median of 3 runs." if not report["quick"] else
             "QUICK mode: one short round per benchmark; figures are for smoke-testing only.")
    rc = report.get("repeatability")
    if rc and rc["groups"]:
        ok = rc["max_rel_diff"] <= REPEAT_TOLERANCE
        L.append("")
        L.append(f"Repeatability: every boot was run {report['repeat']} times; over "
                 f"{rc['figures_compared']} figures the largest difference between runs was "
                 f"{rc['max_rel_diff'] * 100:.3f}%"
                 + (f" ({rc['where']})" if rc["where"] else "")
                 + (" — within 1%." if ok else " — MORE THAN 1%: investigate."))
    for smp in report["smp"]:
        runs_by_key = {r["config"]: r for r in report["runs"]
                       if r["smp"] == smp and r.get("repeat", 0) == 0 and not r.get("skipped")}
        skipped = [r for r in report["runs"] if r["smp"] == smp and r.get("skipped")]
        if not runs_by_key and not skipped:
            continue
        labels = [(k, report["kernels"][k]["label"]) for k in report["kernel_order"] if k in runs_by_key]
        L.append("")
        L.append(f"## -smp {smp}")
        for reason in sorted({r["skipped"] for r in skipped}):
            who = ", ".join(r["label"] for r in skipped if r["skipped"] == reason)
            L.append("")
            L.append(f"Not run: {who}. {reason}")
        failed = [r for r in runs_by_key.values() if not r["ok"]]
        for r in failed:
            L.append("")
            L.append(f"**{r['label']} run had problems**: {'; '.join(r['problems'])} "
                     f"(log: `{r['log']}`)")
        summary = []
        for title, rows in sections(runs_by_key):
            if not rows:
                continue
            L.append("")
            L.append(f"### {title}")
            L.append("")
            head = ["benchmark"] + [lab for _, lab in labels]
            have_ratio = "linux" in runs_by_key and "kevlar" in runs_by_key
            if have_ratio:
                head += ["Kevlar/Linux", "verdict"]
            L.append("| " + " | ".join(head) + " |")
            L.append("|" + "---|" * len(head))
            ratios = []
            for name, label, unit, vals, ratio in rows:
                cells = [f"`{label}`" if not name.startswith(("boot_", "mem_")) else label]
                for k, _ in labels:
                    v = vals.get(k)
                    s = fmt_value(v, unit)
                    if name == "boot_entry_to_init_ms" and k != "kevlar" and isinstance(v, float):
                        s = "≈ " + s
                    cells.append(s)
                if have_ratio:
                    kev = vals.get("kevlar")
                    if ratio is not None:
                        cells += [f"{ratio:.2f}" if ratio >= 0.1 else f"{ratio:.4f}", verdict(ratio)]
                        if not name.startswith(("boot_", "mem_")):
                            ratios.append(ratio)
                    elif isinstance(kev, tuple):
                        cells += ["—", f"unsupported on Kevlar ({kev[1]})"]
                    else:
                        cells += ["—", ""]
                L.append("| " + " | ".join(cells) + " |")
            if ratios:
                g = geomean(ratios)
                n_f = sum(r < FASTER_BELOW for r in ratios)
                n_s = sum(r > SLOWER_ABOVE for r in ratios)
                L.append("")
                L.append(f"Geometric mean of the ratios: **{g:.2f}** "
                         f"({n_f} faster, {len(ratios) - n_f - n_s} parity, {n_s} slower).")
                summary.append((title, g))
        unsupported = sorted(n for n, f in runs_by_key.get("kevlar", {}).get("figures", {}).items()
                             if "unsupported" in f)
        if unsupported:
            L.append("")
            L.append("Unsupported on Kevlar: " + ", ".join(
                f"`{n}` ({runs_by_key['kevlar']['figures'][n]['unsupported']})" for n in unsupported) + ".")
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
    L.append("| kernel | smp | repeat | wall time | outcome | log |")
    L.append("|---|---|---|---|---|---|")
    for r in report["runs"]:
        if r.get("skipped"):
            L.append(f"| {r['label']} | {r['smp']} | — | — | not run (see above) | |")
            continue
        L.append(f"| {r['label']} | {r['smp']} | {r.get('repeat', 0) + 1} | {r['wall_s']:.1f} s | "
                 f"{'ok' if r['ok'] else '; '.join(r['problems'])} | `{r['log']}` |")
    L.append("")
    L.append("QEMU command lines:")
    L.append("")
    seen = set()
    for r in report["runs"]:
        if (r["config"], r["smp"]) in seen or r.get("skipped"):
            continue
        seen.add((r["config"], r["smp"]))
        L.append("```")
        L.append(r["command_line"].replace(REPO_ROOT + "/", ""))
        L.append("```")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(L) + "\n")


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
        runs_by_key = {r["config"]: r for r in report["runs"]
                       if r["smp"] == smp and r.get("repeat", 0) == 0 and not r.get("skipped")}
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
    m.add_argument("--wallclock", action="store_true",
                   help="TCG without -icount (host-clock guest time); separate report")
    m.add_argument("--kvm", action="store_true", help="KVM; separate report")
    p.add_argument("--quick", action="store_true",
                   help="Kevlar only, one short round per benchmark (make test)")
    p.add_argument("--smp", type=int, action="append",
                   help="CPU count (repeatable; default 1 and 2, quick: 1)")
    p.add_argument("--kernels", default=None,
                   help="comma-separated subset of linux,linux-nomitig,kevlar "
                   "(default all three; quick: kevlar)")
    p.add_argument("--kernel", default=DEFAULT_KERNEL, help="Kevlar ELF (default build/kevlar.elf)")
    p.add_argument("--repeat", type=int, default=1,
                   help="boot every configuration this many times and report the spread")
    p.add_argument("--linux-smp-icount", action="store_true",
                   help="boot Linux at -smp 2+ under icount anyway (it hangs with QEMU 7.2)")
    p.add_argument("--only", nargs="+", metavar="NAME", default=[],
                   help="run only these benchmarks (names as printed)")
    p.add_argument("--timeout", type=float, help="seconds per boot (default 1800; quick 300)")
    p.add_argument("--out", help="report directory (default depends on the mode)")
    p.add_argument("--build-only", action="store_true",
                   help="compile the programs and write build/bench/bench{,-quick}.cpio")
    p.add_argument("--chart", metavar="REPORT_JSON",
                   help="only redraw report.png (and report.md) from an existing report.json")
    return p.parse_args(argv)


def main(argv=None) -> int:
    ns = parse_args(argv)
    if ns.chart:
        with open(ns.chart, encoding="utf-8") as f:
            report = json.load(f)
        out = os.path.dirname(os.path.abspath(ns.chart))
        write_markdown(report, os.path.join(out, "report.md"))
        note = write_chart(report, os.path.join(out, "report.png"))
        if note:
            say(note)
        return 1 if note else 0
    mode = MODES["kvm" if ns.kvm else "wallclock" if ns.wallclock else "icount"]
    try:
        programs = compile_programs()
        full_image = build_image(programs, [], os.path.join(OUT_DIR, "bench.cpio"))
        quick_image = build_image(programs, ["quick"], os.path.join(OUT_DIR, "bench-quick.cpio"))
        if ns.build_only:
            print(full_image)
            print(quick_image)
            return 0
        if ns.only:
            image = build_image(programs, (["quick"] if ns.quick else []) + ns.only,
                                os.path.join(OUT_DIR, "bench-only.cpio"))
        else:
            image = quick_image if ns.quick else full_image
        wanted = (ns.kernels.split(",") if ns.kernels else
                  ["kevlar"] if ns.quick else ["linux", "linux-nomitig", "kevlar"])
        configs = kernel_configs(wanted, ns.kernel)
    except BenchError as e:
        say(e)
        return 1
    smps = ns.smp or ([1] if ns.quick else [1, 2])
    out_dir = ns.out or (os.path.join(OUT_DIR, "quick") if ns.quick and mode.name == "icount"
                         else os.path.join(mode.out_dir, "quick") if ns.quick else mode.out_dir)
    os.makedirs(out_dir, exist_ok=True)
    os.makedirs(LOG_DIR, exist_ok=True)
    timeout = ns.timeout or (QUICK_TIMEOUT if ns.quick else DEFAULT_TIMEOUT)

    runs = []
    total = len(smps) * len(configs) * ns.repeat
    started = time.monotonic()
    step = 0
    for smp in smps:
        for cfg in configs:
            for rep in range(ns.repeat):
                step += 1
                if mode.icount and cfg.is_linux and smp > 1 and not ns.linux_smp_icount:
                    if rep == 0:
                        say(f"[{step}/{total}] {cfg.label}, -smp {smp}: skipped ({LINUX_ICOUNT_SMP_NOTE})")
                        runs.append(skipped_run(cfg, smp, LINUX_ICOUNT_SMP_NOTE))
                    continue
                tag = f"{mode.name}{'-quick' if ns.quick else ''}-{cfg.key}-smp{smp}" + \
                      (f"-r{rep + 1}" if ns.repeat > 1 else "")
                log = os.path.join(LOG_DIR, tag + ".log")
                say(f"[{step}/{total}] {cfg.label}, -smp {smp}"
                    + (f", run {rep + 1}" if ns.repeat > 1 else "") + " ...")
                try:
                    r = run_one(cfg, smp, mode, image, timeout, log)
                except OSError as e:
                    say(f"cannot start QEMU: {e}")
                    return 1
                r["repeat"] = rep
                runs.append(r)
                n_ok = sum("value" in f for f in r["figures"].values())
                n_un = sum("unsupported" in f for f in r["figures"].values())
                say(f"    {r['wall_s']:.1f} s, {n_ok} figures, {n_un} unsupported"
                    + ("" if r["ok"] else f"; PROBLEM: {'; '.join(r['problems'])} (log {r['log']})"))
    derive_entry_to_init(runs)

    report = {
        "schema": 1,
        "mode": mode.name,
        "mode_description": mode.describe,
        "quick": ns.quick,
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "host": {"machine": platform.machine(), "cpus": os.cpu_count(),
                 "python": platform.python_version(), "node": platform.node()},
        "qemu": {"binary": run_qemu.DEFAULT_QEMU, "version": qemu_version(run_qemu.DEFAULT_QEMU)},
        "memory": MEM,
        "image": {"path": os.path.relpath(image, REPO_ROOT), "sha256": sha256(image),
                  "bench_args": open(image + ".args").read().split()},
        "smp": smps,
        "repeat": ns.repeat,
        "kernel_order": [c.key for c in configs],
        "kernels": kernel_info(configs, runs),
        "total_wall_s": round(time.monotonic() - started, 1),
        "runs": runs,
    }
    report["repeatability"] = repeat_check(runs)
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
    rc = report["repeatability"]
    if rc["groups"]:
        say(f"repeatability: largest difference {rc['max_rel_diff'] * 100:.3f}% over "
            f"{rc['figures_compared']} figures" + (f" ({rc['where']})" if rc["where"] else ""))

    bad = [r for r in runs if not r["ok"]]
    if ns.quick:
        for r in runs:
            unsup = sorted(n for n, f in r["figures"].items() if "unsupported" in f)
            n_ok = sum("value" in f for f in r["figures"].values())
            print(f"bench-quick {r['label']} smp{r['smp']}: {'ok' if r['ok'] else 'FAILED'}: "
                  f"{n_ok} figures" + (f", unsupported: {', '.join(unsup)}" if unsup else "")
                  + ("" if r["ok"] else f"; {'; '.join(r['problems'])} (log {r['log']})"))
    for r in bad:
        say(f"FAILED: {r['label']} -smp {r['smp']}: {'; '.join(r['problems'])} (log {r['log']})")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
