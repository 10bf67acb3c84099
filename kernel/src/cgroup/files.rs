//! The files of a cgroup directory: which exist where, their text, what
//! writing them does (Linux's cgroup_base_files and the controllers'
//! files, with their parsing and errors), and the freezer.

use alloc::format;
use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::fmt::Write;
use core::sync::atomic::Ordering;

use kevlar_vfs::Credentials;

use super::{Cgroup, Notifier, CONTROLLERS, CPU, INT_MAX, LOCK, MEMORY, PAGE_COUNTER_MAX, PIDS, PIDS_MAX, QUOTA_MAX};
use crate::error::{Errno, Result};

/// What a file is.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum F {
    Controllers,
    Procs,
    Threads,
    SubtreeControl,
    Events,
    Type,
    MaxDescendants,
    MaxDepth,
    Stat,
    Kill,
    Freeze,
    CpuStat,
    CpuWeight,
    CpuMax,
    CpuMaxBurst,
    CpuIdle,
    MemCurrent,
    MemMin,
    MemLow,
    MemHigh,
    MemMax,
    MemEvents,
    MemEventsLocal,
    MemStat,
    MemOomGroup,
    MemPeak,
    MemSwapCurrent,
    MemSwapMax,
    MemSwapHigh,
    MemSwapEvents,
    PidsCurrent,
    PidsMax,
    PidsEvents,
}

/// Where a file exists.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Where {
    /// Every cgroup.
    All,
    /// Every cgroup but the root (Linux's CFTYPE_NOT_ON_ROOT).
    NotRoot,
}

/// One file: name, kind, permission bits, where, the controller it
/// belongs to (0: the core).
pub struct Def {
    pub name: &'static [u8],
    pub file: F,
    pub mode: u32,
    place: Where,
    controller: u8,
}

const fn def(name: &'static [u8], file: F, mode: u32, place: Where, controller: u8) -> Def {
    Def { name, file, mode, place, controller }
}

/// Every file, in listing order; the inode number of file i of a cgroup
/// is the directory's plus i + 1.
pub static FILES: [Def; 33] = [
    def(b"cgroup.controllers", F::Controllers, 0o444, Where::All, 0),
    def(b"cgroup.events", F::Events, 0o444, Where::NotRoot, 0),
    def(b"cgroup.freeze", F::Freeze, 0o644, Where::NotRoot, 0),
    def(b"cgroup.kill", F::Kill, 0o200, Where::NotRoot, 0),
    def(b"cgroup.max.depth", F::MaxDepth, 0o644, Where::All, 0),
    def(b"cgroup.max.descendants", F::MaxDescendants, 0o644, Where::All, 0),
    def(b"cgroup.procs", F::Procs, 0o644, Where::All, 0),
    def(b"cgroup.stat", F::Stat, 0o444, Where::All, 0),
    def(b"cgroup.subtree_control", F::SubtreeControl, 0o644, Where::All, 0),
    def(b"cgroup.threads", F::Threads, 0o644, Where::All, 0),
    def(b"cgroup.type", F::Type, 0o644, Where::NotRoot, 0),
    def(b"cpu.stat", F::CpuStat, 0o444, Where::All, 0),
    def(b"cpu.idle", F::CpuIdle, 0o644, Where::NotRoot, CPU),
    def(b"cpu.max", F::CpuMax, 0o644, Where::NotRoot, CPU),
    def(b"cpu.max.burst", F::CpuMaxBurst, 0o644, Where::NotRoot, CPU),
    def(b"cpu.weight", F::CpuWeight, 0o644, Where::NotRoot, CPU),
    def(b"memory.current", F::MemCurrent, 0o444, Where::NotRoot, MEMORY),
    def(b"memory.events", F::MemEvents, 0o444, Where::NotRoot, MEMORY),
    def(b"memory.events.local", F::MemEventsLocal, 0o444, Where::NotRoot, MEMORY),
    def(b"memory.high", F::MemHigh, 0o644, Where::NotRoot, MEMORY),
    def(b"memory.low", F::MemLow, 0o644, Where::NotRoot, MEMORY),
    def(b"memory.max", F::MemMax, 0o644, Where::NotRoot, MEMORY),
    def(b"memory.min", F::MemMin, 0o644, Where::NotRoot, MEMORY),
    def(b"memory.oom.group", F::MemOomGroup, 0o644, Where::NotRoot, MEMORY),
    def(b"memory.peak", F::MemPeak, 0o444, Where::NotRoot, MEMORY),
    def(b"memory.stat", F::MemStat, 0o444, Where::All, MEMORY),
    def(b"memory.swap.current", F::MemSwapCurrent, 0o444, Where::NotRoot, MEMORY),
    def(b"memory.swap.events", F::MemSwapEvents, 0o444, Where::NotRoot, MEMORY),
    def(b"memory.swap.high", F::MemSwapHigh, 0o644, Where::NotRoot, MEMORY),
    def(b"memory.swap.max", F::MemSwapMax, 0o644, Where::NotRoot, MEMORY),
    def(b"pids.current", F::PidsCurrent, 0o444, Where::NotRoot, PIDS),
    def(b"pids.events", F::PidsEvents, 0o444, Where::NotRoot, PIDS),
    def(b"pids.max", F::PidsMax, 0o644, Where::NotRoot, PIDS),
];

/// Whether file `d` exists in `cg`: core files by place; a controller's
/// when the parent enables the controller (at the root: the files Linux
/// puts there).
pub fn exists(cg: &Cgroup, d: &Def) -> bool {
    if cg.is_root() {
        return d.place == Where::All;
    }
    d.controller == 0 || cg.available() & d.controller != 0
}

/// The index of the file `name` that exists in `cg`.
pub fn find(cg: &Cgroup, name: &[u8]) -> Option<usize> {
    FILES.iter().position(|d| d.name == name && exists(cg, d))
}

/// Whether `name` is one of `cg`'s files.
pub fn is_file_name(cg: &Cgroup, name: &[u8]) -> bool {
    find(cg, name).is_some()
}

/// The notifying file kind of `f`, if it is one.
pub fn notifier(f: F) -> Option<Notifier> {
    match f {
        F::Events => Some(Notifier::Events),
        F::PidsEvents => Some(Notifier::Pids),
        F::MemEvents | F::MemEventsLocal => Some(Notifier::Memory),
        _ => None,
    }
}

/// The index in FILES of the file that `which` notifies.
pub fn notifier_index(which: Notifier) -> usize {
    let f = match which {
        Notifier::Events => F::Events,
        Notifier::Pids => F::PidsEvents,
        Notifier::Memory => F::MemEvents,
    };
    FILES.iter().position(|d| d.file == f).unwrap_or(0)
}

fn mask_text(mask: u8) -> String {
    let mut out = String::new();
    for (bit, name) in CONTROLLERS {
        if mask & bit != 0 {
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(name);
        }
    }
    if !out.is_empty() {
        out.push('\n');
    }
    out
}

fn limit_text(value: u64, max: u64) -> String {
    if value == max { String::from("max\n") } else { format!("{}\n", value) }
}

fn pages_text(pages: u64) -> String {
    if pages == PAGE_COUNTER_MAX { String::from("max\n") } else { format!("{}\n", pages * 4096) }
}

/// The file's text now.
pub fn read(cg: &Arc<Cgroup>, f: F) -> Result<Vec<u8>> {
    let text = match f {
        F::Controllers => mask_text(cg.available()),
        F::SubtreeControl => mask_text(cg.state.lock().subtree_control),
        F::Procs => {
            let mut out = String::new();
            for p in super::members(cg, false) {
                // As the reader's PID namespace numbers it (0 outside).
                let _ = writeln!(out, "{}", crate::ns::pid::local(p.pid));
            }
            out
        }
        F::Threads => {
            let mut out = String::new();
            for p in super::members(cg, false) {
                let mut tids: Vec<i32> = p.threads().iter().map(|t| crate::ns::pid::local(t.tid())).collect();
                tids.sort_unstable();
                for tid in tids {
                    let _ = writeln!(out, "{}", tid);
                }
            }
            out
        }
        F::Events => {
            let st = cg.state.lock();
            format!("populated {}\nfrozen {}\n", (st.subtree_procs > 0) as u8, st.frozen as u8)
        }
        F::Type => String::from(if !super::is_valid_domain(cg) {
            "domain invalid\n"
        } else if super::is_thread_root(cg) {
            "domain threaded\n"
        } else {
            "domain\n"
        }),
        F::MaxDescendants => limit_text(cg.state.lock().max_descendants, INT_MAX),
        F::MaxDepth => limit_text(cg.state.lock().max_depth, INT_MAX),
        F::Stat => format!("nr_descendants {}\nnr_dying_descendants 0\n", cg.state.lock().nr_descendants),
        F::Kill => return Err(Errno::EINVAL),
        F::Freeze => format!("{}\n", cg.state.lock().freeze as u8),
        F::CpuStat => {
            let usec = super::usage_ns(cg) / 1000;
            let mut out = format!("usage_usec {}\nuser_usec {}\nsystem_usec 0\n", usec, usec);
            if !cg.is_root() && cg.available() & CPU != 0 {
                out.push_str("nr_periods 0\nnr_throttled 0\nthrottled_usec 0\nnr_bursts 0\nburst_usec 0\n");
            }
            out
        }
        F::CpuWeight => format!("{}\n", cg.state.lock().cpu_weight),
        F::CpuMax => {
            let (quota, period) = cg.state.lock().cpu_max;
            if quota == QUOTA_MAX { format!("max {}\n", period) } else { format!("{} {}\n", quota, period) }
        }
        F::CpuMaxBurst => format!("{}\n", cg.state.lock().cpu_burst),
        F::CpuIdle => format!("{}\n", cg.state.lock().cpu_idle as u8),
        F::MemCurrent => {
            let pages = super::resident_pages(cg);
            let mut st = cg.state.lock();
            st.memory.peak = st.memory.peak.max(pages);
            format!("{}\n", pages * 4096)
        }
        F::MemPeak => {
            let pages = super::resident_pages(cg);
            let mut st = cg.state.lock();
            st.memory.peak = st.memory.peak.max(pages);
            format!("{}\n", st.memory.peak * 4096)
        }
        F::MemMin => pages_text(cg.state.lock().memory.min),
        F::MemLow => pages_text(cg.state.lock().memory.low),
        F::MemHigh => pages_text(cg.state.lock().memory.high),
        F::MemMax => pages_text(cg.state.lock().memory.max),
        F::MemSwapMax => pages_text(cg.state.lock().memory.swap_max),
        F::MemSwapHigh => pages_text(cg.state.lock().memory.swap_high),
        F::MemSwapCurrent => String::from("0\n"),
        F::MemSwapEvents => String::from("high 0\nmax 0\nfail 0\n"),
        F::MemOomGroup => format!("{}\n", cg.state.lock().memory.oom_group as u8),
        F::MemEvents | F::MemEventsLocal => {
            let mut e = cg.state.lock().memory.events;
            if f == F::MemEvents {
                // Hierarchical: the descendants' events count here too.
                let mut stack: Vec<Arc<Cgroup>> = cg.state.lock().children.clone();
                while let Some(c) = stack.pop() {
                    let st = c.state.lock();
                    for (total, n) in e.iter_mut().zip(st.memory.events.iter()) {
                        *total += n;
                    }
                    stack.extend(st.children.iter().cloned());
                }
            }
            format!("low {}\nhigh {}\nmax {}\noom {}\noom_kill {}\noom_group_kill {}\n", e[0], e[1], e[2], e[3], e[4], e[5])
        }
        F::MemStat => memory_stat(cg),
        F::PidsCurrent => format!("{}\n", cg.state.lock().subtree_tasks),
        F::PidsMax => limit_text(cg.state.lock().pids_max, PIDS_MAX),
        F::PidsEvents => format!("max {}\n", cg.state.lock().pids_events_max),
    };
    Ok(text.into_bytes())
}

/// memory.stat: the fields Linux 6.1 shows, in its order; anonymous and
/// file-backed resident memory of the members are counted, the rest is
/// memory Kevlar does not charge to cgroups.
fn memory_stat(cg: &Arc<Cgroup>) -> String {
    let (mut anon, mut file, mut shmem, mut tables) = (0u64, 0u64, 0u64, 0u64);
    let mut seen: Vec<usize> = Vec::new();
    let members = if cg.is_root() { crate::process::all_processes() } else { super::members(cg, true) };
    for p in members {
        let vm = p.vm.lock().clone();
        let key = Arc::as_ptr(&vm) as usize;
        if seen.contains(&key) {
            continue;
        }
        seen.push(key);
        let vm = vm.lock();
        let usage = vm.usage();
        anon += usage.resident_anon * 4096;
        file += usage.resident_file * 4096;
        shmem += usage.resident_shared * 4096;
        tables += vm.table_pages() as u64 * 4096;
    }
    let fields: [(&str, u64); 47] = [
        ("anon", anon),
        ("file", file + shmem),
        ("kernel", tables),
        ("kernel_stack", 0),
        ("pagetables", tables),
        ("percpu", 0),
        ("sock", 0),
        ("vmalloc", 0),
        ("shmem", shmem),
        ("zswap", 0),
        ("zswapped", 0),
        ("file_mapped", file + shmem),
        ("file_dirty", 0),
        ("file_writeback", 0),
        ("swapcached", 0),
        ("anon_thp", 0),
        ("file_thp", 0),
        ("shmem_thp", 0),
        ("inactive_anon", shmem),
        ("active_anon", anon),
        ("inactive_file", 0),
        ("active_file", file),
        ("unevictable", 0),
        ("slab_reclaimable", 0),
        ("slab_unreclaimable", 0),
        ("slab", 0),
        ("workingset_refault_anon", 0),
        ("workingset_refault_file", 0),
        ("workingset_activate_anon", 0),
        ("workingset_activate_file", 0),
        ("workingset_restore_anon", 0),
        ("workingset_restore_file", 0),
        ("workingset_nodereclaim", 0),
        ("pgscan", 0),
        ("pgsteal", 0),
        ("pgscan_kswapd", 0),
        ("pgscan_direct", 0),
        ("pgsteal_kswapd", 0),
        ("pgsteal_direct", 0),
        ("pgfault", 0),
        ("pgmajfault", 0),
        ("pgrefill", 0),
        ("pgactivate", 0),
        ("pgdeactivate", 0),
        ("pglazyfree", 0),
        ("pglazyfreed", 0),
        ("thp_fault_alloc", 0),
    ];
    let mut out = String::new();
    for (name, value) in fields {
        let _ = writeln!(out, "{} {}", name, value);
    }
    out.push_str("thp_collapse_alloc 0\n");
    out
}

// --- parsing as the kernel's kstrto* and memparse do ------------------------------

/// Strips leading and trailing white space (Linux's strstrip).
fn strip(buf: &[u8]) -> &[u8] {
    let start = buf.iter().position(|b| !b.is_ascii_whitespace()).unwrap_or(buf.len());
    let end = buf.iter().rposition(|b| !b.is_ascii_whitespace()).map_or(start, |e| e + 1);
    &buf[start..end.max(start)]
}

/// Parses digits in `base` (0: by prefix: 0x hex, 0 octal, else
/// decimal) as `_parse_integer` does; returns the value and the bytes
/// used; ERANGE on overflow.
fn parse_digits(s: &[u8], base: u32) -> Result<(u64, usize)> {
    let (base, skip) = match base {
        0 if s.len() > 1 && s[0] == b'0' && (s[1] | 0x20) == b'x' && s.get(2).is_some_and(|c| c.is_ascii_hexdigit()) => (16, 2),
        0 if s.first() == Some(&b'0') => (8, 1),
        0 => (10, 0),
        b => (b, 0),
    };
    let mut value: u64 = 0;
    let mut used = skip;
    let mut overflow = false;
    for &c in &s[skip..] {
        let Some(d) = (c as char).to_digit(base) else { break };
        match value.checked_mul(u64::from(base)).and_then(|v| v.checked_add(u64::from(d))) {
            Some(v) => value = v,
            None => overflow = true,
        }
        used += 1;
    }
    if used == 0 && skip == 0 {
        return Err(Errno::EINVAL);
    }
    if overflow {
        return Err(Errno::ERANGE);
    }
    Ok((value, used))
}

/// kstrtoull(buf, 0): the whole buffer (one trailing newline allowed).
fn kstrtoull(buf: &[u8]) -> Result<u64> {
    let buf = buf.strip_suffix(b"\n").unwrap_or(buf);
    let buf = buf.strip_prefix(b"+").unwrap_or(buf);
    let (value, used) = parse_digits(buf, 0)?;
    if used != buf.len() {
        return Err(Errno::EINVAL);
    }
    Ok(value)
}

/// kstrtoll(buf, 0) within i64.
fn kstrtoll(buf: &[u8]) -> Result<i64> {
    let trimmed = buf.strip_suffix(b"\n").unwrap_or(buf);
    if let Some(rest) = trimmed.strip_prefix(b"-") {
        let v = kstrtoull(rest)?;
        if v > i64::MAX as u64 + 1 {
            return Err(Errno::ERANGE);
        }
        return Ok((v as i64).wrapping_neg());
    }
    let v = kstrtoull(trimmed)?;
    i64::try_from(v).map_err(|_| Errno::ERANGE)
}

/// kstrtoint(buf, 0).
fn kstrtoint(buf: &[u8]) -> Result<i64> {
    let v = kstrtoll(buf)?;
    if v < i64::from(i32::MIN) || v > i64::from(i32::MAX) {
        return Err(Errno::ERANGE);
    }
    Ok(v)
}

/// page_counter_memparse: "max" or a size with an optional K/M/G/T/P/E
/// suffix, in pages (rounded down), at most PAGE_COUNTER_MAX.
fn memparse_pages(buf: &[u8]) -> Result<u64> {
    let buf = strip(buf);
    if buf == b"max" {
        return Ok(PAGE_COUNTER_MAX);
    }
    let (value, used) = parse_digits(buf, 0).map_err(|_| Errno::EINVAL)?;
    let shift = match &buf[used..] {
        b"" => 0,
        [b'k' | b'K'] => 10,
        [b'm' | b'M'] => 20,
        [b'g' | b'G'] => 30,
        [b't' | b'T'] => 40,
        [b'p' | b'P'] => 50,
        [b'e' | b'E'] => 60,
        _ => return Err(Errno::EINVAL),
    };
    let bytes = value.checked_shl(shift).filter(|v| v >> shift == value).unwrap_or(u64::MAX);
    Ok((bytes / 4096).min(PAGE_COUNTER_MAX))
}

// --- writing ---------------------------------------------------------------------

/// Handles a write of `buf` to file `f` of `cg` by a file opened with
/// `cred` (the opener's, as Linux's delegation checks use).
pub fn write(cg: &Arc<Cgroup>, f: F, buf: &[u8], cred: &Credentials) -> Result<()> {
    match f {
        F::Procs | F::Threads => write_procs(cg, buf, cred, f == F::Procs),
        F::SubtreeControl => write_subtree_control(cg, buf),
        F::MaxDescendants | F::MaxDepth => {
            let text = strip(buf);
            let value = if text == b"max" { INT_MAX as i64 } else { kstrtoint(text)? };
            if value < 0 {
                return Err(Errno::ERANGE);
            }
            let mut st = live(cg)?;
            if f == F::MaxDescendants {
                st.max_descendants = value as u64;
            } else {
                st.max_depth = value as u64;
            }
            Ok(())
        }
        F::Kill => {
            if kstrtoint(strip(buf))? != 1 {
                return Err(Errno::ERANGE);
            }
            if cg.is_removed() {
                return Err(Errno::ENOENT);
            }
            super::kill(cg);
            Ok(())
        }
        F::Freeze => {
            let value = kstrtoint(strip(buf))?;
            if !(0..=1).contains(&value) {
                return Err(Errno::ERANGE);
            }
            if cg.is_removed() {
                return Err(Errno::ENOENT);
            }
            super::freezer::set_freeze(cg, value == 1);
            Ok(())
        }
        F::Type => {
            if strip(buf) != b"threaded" {
                return Err(Errno::EINVAL);
            }
            // Threaded subtrees are not implemented.
            Err(Errno::EOPNOTSUPP)
        }
        F::CpuWeight => {
            let v = kstrtoull(buf)?;
            if !(1..=10000).contains(&v) {
                return Err(Errno::ERANGE);
            }
            live(cg)?.cpu_weight = v;
            Ok(())
        }
        F::CpuIdle => {
            let v = kstrtoll(buf)?;
            if !(0..=1).contains(&v) {
                return Err(Errno::EINVAL);
            }
            live(cg)?.cpu_idle = v == 1;
            Ok(())
        }
        F::CpuMax => {
            let (quota, period) = parse_cpu_max(buf, cg.state.lock().cpu_max.1)?;
            let burst = cg.state.lock().cpu_burst;
            check_bandwidth(quota, period, burst)?;
            live(cg)?.cpu_max = (quota, period);
            Ok(())
        }
        F::CpuMaxBurst => {
            let burst = kstrtoull(buf)?;
            let (quota, period) = cg.state.lock().cpu_max;
            check_bandwidth(quota, period, burst)?;
            live(cg)?.cpu_burst = burst;
            Ok(())
        }
        F::MemMin | F::MemLow | F::MemHigh | F::MemSwapMax | F::MemSwapHigh => {
            let pages = memparse_pages(buf)?;
            let mut st = live(cg)?;
            match f {
                F::MemMin => st.memory.min = pages,
                F::MemLow => st.memory.low = pages,
                F::MemHigh => st.memory.high = pages,
                F::MemSwapMax => st.memory.swap_max = pages,
                _ => st.memory.swap_high = pages,
            }
            Ok(())
        }
        F::MemMax => {
            let pages = memparse_pages(buf)?;
            let old = core::mem::replace(&mut live(cg)?.memory.max, pages);
            match (old == PAGE_COUNTER_MAX, pages == PAGE_COUNTER_MAX) {
                (true, false) => super::memory::LIMITED.fetch_add(1, Ordering::Relaxed),
                (false, true) => super::memory::LIMITED.fetch_sub(1, Ordering::Relaxed),
                _ => 0,
            };
            super::memory::enforce_memory_max(cg);
            Ok(())
        }
        F::MemOomGroup => {
            let v = kstrtoint(strip(buf))?;
            if v != 0 && v != 1 {
                return Err(Errno::EINVAL);
            }
            live(cg)?.memory.oom_group = v == 1;
            Ok(())
        }
        F::PidsMax => {
            let text = strip(buf);
            let limit = if text == b"max" {
                PIDS_MAX
            } else {
                let v = kstrtoll(text)?;
                if v < 0 || v as u64 >= PIDS_MAX {
                    return Err(Errno::EINVAL);
                }
                v as u64
            };
            live(cg)?.pids_max = limit;
            Ok(())
        }
        _ => Err(Errno::EINVAL),
    }
}

/// The state of a cgroup that still exists (ENODEV after rmdir, as a
/// write to a removed cgroup's file).
fn live(cg: &Cgroup) -> Result<kevlar_platform::sync::SpinLockGuard<'_, super::State>> {
    let st = cg.state.lock();
    if st.removed {
        return Err(Errno::ENODEV);
    }
    Ok(st)
}

/// cpu.max: "QUOTA|max [PERIOD]" in µs (Linux's cpu_period_quota_parse).
fn parse_cpu_max(buf: &[u8], period: u64) -> Result<(u64, u64)> {
    let mut words = buf.split(|b| b.is_ascii_whitespace()).filter(|w| !w.is_empty());
    let quota_word = words.next().ok_or(Errno::EINVAL)?;
    let period = match words.next() {
        Some(w) => {
            let (v, used) = parse_digits(w, 10).map_err(|_| Errno::EINVAL)?;
            if used == 0 {
                return Err(Errno::EINVAL);
            }
            v
        }
        None => period,
    };
    let quota = if quota_word == b"max" {
        QUOTA_MAX
    } else {
        match parse_digits(quota_word, 10) {
            Ok((v, used)) if used > 0 => v,
            _ => return Err(Errno::EINVAL),
        }
    };
    Ok((quota, period))
}

/// Linux's tg_set_cfs_bandwidth limits (µs): a period of 1 ms to 1 s, a
/// quota of at least 1 ms and at most 2^44 µs... (max_cfs_runtime), a
/// burst no larger than the quota.
fn check_bandwidth(quota: u64, period: u64, burst: u64) -> Result<()> {
    const MIN: u64 = 1000;
    const MAX_PERIOD: u64 = 1_000_000;
    const MAX_RUNTIME: u64 = (1 << 44) - 1;
    if period < MIN || period > MAX_PERIOD {
        return Err(Errno::EINVAL);
    }
    if quota != QUOTA_MAX && (quota < MIN || quota > MAX_RUNTIME) {
        return Err(Errno::EINVAL);
    }
    if quota != QUOTA_MAX && burst > quota || burst > MAX_RUNTIME {
        return Err(Errno::EINVAL);
    }
    Ok(())
}

/// cgroup.subtree_control: "+name" enables, "-name" disables, for the
/// children; Linux's checks and errors in its order.
fn write_subtree_control(cg: &Arc<Cgroup>, buf: &[u8]) -> Result<()> {
    let (mut enable, mut disable) = (0u8, 0u8);
    for token in strip(buf).split(|&b| b == b' ').filter(|t| !t.is_empty()) {
        let (sign, name) = (token[0], &token[1..]);
        let Some((bit, _)) = CONTROLLERS.iter().find(|(_, n)| n.as_bytes() == name) else {
            return Err(Errno::EINVAL);
        };
        match sign {
            b'+' => {
                enable |= bit;
                disable &= !bit;
            }
            b'-' => {
                disable |= bit;
                enable &= !bit;
            }
            _ => return Err(Errno::EINVAL),
        }
    }
    let _tree = LOCK.lock();
    if cg.is_removed() {
        return Err(Errno::ENODEV);
    }
    let available = cg.available();
    let (current, children) = {
        let st = cg.state.lock();
        (st.subtree_control, st.children.clone())
    };
    for (bit, _) in CONTROLLERS {
        if enable & bit != 0 {
            if current & bit != 0 {
                enable &= !bit;
                continue;
            }
            if available & bit == 0 {
                return Err(Errno::ENOENT);
            }
        } else if disable & bit != 0 {
            if current & bit == 0 {
                disable &= !bit;
                continue;
            }
            if children.iter().any(|c| c.state.lock().subtree_control & bit != 0) {
                return Err(Errno::EBUSY);
            }
        }
    }
    if enable == 0 && disable == 0 {
        return Ok(());
    }
    // Linux's cgroup_vet_subtree_control_enable: no domain controller
    // inside a thread subtree, nor for the children of a cgroup with
    // processes of its own ("no internal processes"); threaded ones
    // (cpu, pids) may compete with them.
    if enable != 0 {
        if !super::is_valid_domain(cg) {
            return Err(Errno::EOPNOTSUPP);
        }
        if !cg.is_root() && enable & !super::THREADED != 0 {
            if super::is_thread_root(cg) {
                return Err(Errno::EOPNOTSUPP);
            }
            if cg.state.lock().procs > 0 {
                return Err(Errno::EBUSY);
            }
        }
    }
    cg.state.lock().subtree_control = (current | enable) & !disable;
    // A controller taken away loses its settings in the children, as
    // Linux frees the controller's state.
    for child in &children {
        let mut st = child.state.lock();
        if disable & PIDS != 0 {
            st.pids_max = PIDS_MAX;
        }
        if disable & MEMORY != 0 {
            let events = st.memory.events;
            st.memory = super::MemorySettings::new();
            st.memory.events = events;
        }
        if disable & CPU != 0 {
            st.cpu_weight = 100;
            st.cpu_max = (QUOTA_MAX, 100_000);
            st.cpu_burst = 0;
            st.cpu_idle = false;
        }
    }
    Ok(())
}

/// cgroup.procs (`whole`) and cgroup.threads: moves the process (or
/// thread) a pid names (0: the writer) into `dst`.
fn write_procs(dst: &Arc<Cgroup>, buf: &[u8], cred: &Credentials, whole: bool) -> Result<()> {
    if dst.is_removed() {
        return Err(Errno::ENODEV);
    }
    let pid = kstrtoint(strip(buf))?;
    let thread = if pid == 0 {
        crate::process::current().ok_or(Errno::ESRCH)?
    } else if pid < 0 {
        return Err(Errno::EINVAL);
    } else {
        crate::process::find_thread(crate::ns::pid::global(pid as i32)).ok_or(Errno::ESRCH)?
    };
    let process = thread.process.clone();
    let src = process.cgroup.cgroup();
    check_attach_permission(&src, dst, cred)?;
    super::vet_destination(dst)?;
    if !whole && !Arc::ptr_eq(&src, dst) {
        // A thread may only move within its domain: without threaded
        // subtrees, within its own cgroup.
        return Err(Errno::EOPNOTSUPP);
    }
    super::migrate(&process, dst)
}

/// Linux's cgroup_procs_write_permission: the writer must be able to
/// write cgroup.procs of the closest common ancestor of the source and
/// the destination.
pub fn check_attach_permission(src: &Arc<Cgroup>, dst: &Arc<Cgroup>, cred: &Credentials) -> Result<()> {
    let mut common = dst.clone();
    while !src.is_within(&common) {
        match common.parent() {
            Some(p) => common = p.clone(),
            None => break,
        }
    }
    let index = FILES.iter().position(|d| d.file == F::Procs).unwrap_or(0);
    let stat = super::fs::file_stat(&common, index);
    kevlar_vfs::check_access(&stat, cred, kevlar_vfs::Access::WRITE).map_err(|_| Errno::EACCES)
}
