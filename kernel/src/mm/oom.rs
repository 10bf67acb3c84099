//! Memory exhaustion: the OOM killer and each process's OOM settings.
//!
//! Memory is split by who may take it (`kevlar_platform::mm::pmm`): user
//! pages, page tables and kernel stacks stop short of a reserve that only
//! the kernel heap may use, so the task that runs out can always still be
//! signalled and exit. When a user allocation fails (a page fault, a fork)
//! or the heap dipped into the reserve, [`out_of_memory`] picks the process
//! with the highest badness (Linux's `oom_badness`: resident pages plus
//! page-table pages, moved by `oom_score_adj` in thousandths of RAM),
//! never init while another candidate exists, never one with
//! `oom_score_adj` -1000, kills it with SIGKILL, and logs it as Linux
//! does. While a victim is still dying no other is picked (its memory is
//! about to come back); the faulting task waits for it and retries.

use alloc::sync::{Arc, Weak};
use core::sync::atomic::{AtomicBool, AtomicI32, Ordering};

use kevlar_platform::sync::SpinLock;

use crate::error::{Errno, Result};
use crate::process::{signal, Process, Thread};

/// The lowest `oom_score_adj`: never killed.
pub const OOM_SCORE_ADJ_MIN: i32 = -1000;
/// The highest `oom_score_adj`.
pub const OOM_SCORE_ADJ_MAX: i32 = 1000;
/// The legacy `oom_adj` range and its "disable" value (-17).
const OOM_ADJUST_MIN: i32 = -17;
const OOM_ADJUST_MAX: i32 = 15;
/// How long a victim may take to die before another is picked.
const VICTIM_GRACE_NS: u64 = 2_000_000_000;

/// A process's OOM settings (Linux keeps them in `signal_struct`): shared
/// by its threads, inherited across fork, kept across exec.
pub struct OomSettings {
    /// oom_score_adj (-1000..=1000).
    adj: AtomicI32,
    /// The lowest value an unprivileged writer may set (Linux's
    /// oom_score_adj_min: what a writer with CAP_SYS_RESOURCE last set).
    adj_min: AtomicI32,
}

impl OomSettings {
    /// Settings of init: 0 and 0.
    pub const fn new() -> Self {
        OomSettings { adj: AtomicI32::new(0), adj_min: AtomicI32::new(0) }
    }

    /// A child's copy.
    pub fn fork_copy(&self) -> Self {
        OomSettings { adj: AtomicI32::new(self.adj()), adj_min: AtomicI32::new(self.adj_min.load(Ordering::Relaxed)) }
    }

    /// Returns oom_score_adj.
    pub fn adj(&self) -> i32 {
        self.adj.load(Ordering::Relaxed)
    }
}

impl Default for OomSettings {
    fn default() -> Self {
        Self::new()
    }
}

/// How much of a write the oom files look at (and say they took).
const SETTING_BYTES: usize = 12;

/// Parses a /proc oom file write as Linux does: at most 12 bytes, blanks
/// around, an integer in C notation (0x hex, leading 0 octal, a sign).
fn parse_setting(buf: &[u8]) -> Result<i32> {
    let buf = &buf[..buf.len().min(SETTING_BYTES)];
    let text = core::str::from_utf8(buf).map_err(|_| Errno::EINVAL)?;
    let text = text.trim_matches(|c: char| c.is_ascii_whitespace() || c == '\0');
    let (negative, digits) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let (radix, digits) = if let Some(hex) = digits.strip_prefix("0x").or_else(|| digits.strip_prefix("0X")) {
        (16, hex)
    } else if digits.len() > 1 && digits.starts_with('0') {
        (8, &digits[1..])
    } else {
        (10, digits)
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return Err(Errno::EINVAL);
    }
    let magnitude = u64::from_str_radix(digits, radix).map_err(|_| Errno::ERANGE)?;
    let value = if negative { -(magnitude as i128) } else { magnitude as i128 };
    i32::try_from(value).map_err(|_| Errno::ERANGE)
}

/// Whether the writer has CAP_SYS_RESOURCE.
fn writer_has_sys_resource() -> bool {
    crate::process::current().is_some_and(|t| t.process.creds.lock().has_cap(linux_raw_sys::general::CAP_SYS_RESOURCE))
}

/// A write to /proc/PID/oom_score_adj.
pub fn write_score_adj(target: &Process, buf: &[u8]) -> Result<usize> {
    let value = parse_setting(buf)?;
    if !(OOM_SCORE_ADJ_MIN..=OOM_SCORE_ADJ_MAX).contains(&value) {
        return Err(Errno::EINVAL);
    }
    let privileged = writer_has_sys_resource();
    if value < target.oom.adj_min.load(Ordering::Relaxed) && !privileged {
        return Err(Errno::EACCES);
    }
    target.oom.adj.store(value, Ordering::Relaxed);
    if privileged {
        target.oom.adj_min.store(value, Ordering::Relaxed);
    }
    Ok(buf.len().min(SETTING_BYTES))
}

/// A write to /proc/PID/oom_adj (the legacy scale -17..15; lowering it
/// needs CAP_SYS_RESOURCE).
pub fn write_legacy_adj(target: &Process, buf: &[u8]) -> Result<usize> {
    let value = parse_setting(buf)?;
    if !(OOM_ADJUST_MIN..=OOM_ADJUST_MAX).contains(&value) {
        return Err(Errno::EINVAL);
    }
    let adj = if value == OOM_ADJUST_MAX { OOM_SCORE_ADJ_MAX } else { value * OOM_SCORE_ADJ_MAX / -OOM_ADJUST_MIN };
    if adj < target.oom.adj() && !writer_has_sys_resource() {
        return Err(Errno::EACCES);
    }
    static WARNED: AtomicBool = AtomicBool::new(false);
    if !WARNED.swap(true, Ordering::Relaxed) {
        if let Some(me) = crate::process::current() {
            let comm = me.process.comm.lock().clone();
            log::warn!("{} ({}): /proc/{}/oom_adj is deprecated, please use /proc/{}/oom_score_adj instead.", comm, me.process.pid, target.pid, target.pid);
        }
    }
    target.oom.adj.store(adj, Ordering::Relaxed);
    Ok(buf.len().min(SETTING_BYTES))
}

/// The text of /proc/PID/oom_adj.
pub fn legacy_adj_text(target: &Process) -> alloc::string::String {
    let adj = target.oom.adj();
    let legacy = if adj == OOM_SCORE_ADJ_MAX { OOM_ADJUST_MAX } else { adj * -OOM_ADJUST_MIN / OOM_SCORE_ADJ_MAX };
    alloc::format!("{}\n", legacy)
}

/// RAM in pages (Linux's totalram_pages; no swap).
fn total_pages() -> u64 {
    (kevlar_platform::mm::pmm::stats().total_bytes / kevlar_platform::mm::PAGE_SIZE) as u64
}

/// What the OOM killer weighs and logs of an address space, in pages.
#[derive(Clone, Copy, Default)]
struct Footprint {
    total_vm: u64,
    anon: u64,
    file: u64,
    shmem: u64,
    tables: u64,
    /// Kernel memory the process holds through its descriptors (pipe
    /// buffers): not in Linux's RSS, but charged here so that a process
    /// filling pipes is the one the killer picks, not init.
    held: u64,
}

/// Pages of kernel memory held through `p`'s open files: each pipe's
/// buffer, counted for every process that has one of its ends open.
fn held_pages(p: &Process) -> u64 {
    let files = p.files.lock().clone();
    let table = files.lock();
    let bytes: usize = table.iter().filter_map(|(_, f, _)| f.ops.pipe()).map(|pipe| pipe.held_bytes()).sum();
    bytes.div_ceil(kevlar_platform::mm::PAGE_SIZE) as u64
}

fn footprint(p: &Process) -> Footprint {
    let vm = p.vm.lock().clone();
    let vm = vm.lock();
    let usage = vm.usage();
    Footprint {
        total_vm: usage.size / kevlar_platform::mm::PAGE_SIZE as u64,
        anon: usage.resident_anon,
        file: usage.resident_file,
        shmem: usage.resident_shared,
        tables: vm.table_pages() as u64,
        held: held_pages(p),
    }
}

/// Linux's oom_badness: None for a process that is never killed (init,
/// an exited one, oom_score_adj -1000), else its resident and page-table
/// pages (and the pipe buffers it holds) plus oom_score_adj thousandths
/// of RAM.
fn badness(p: &Process, total: u64, allow_init: bool) -> Option<(i64, Footprint)> {
    if (p.pid == 1 && !allow_init) || p.exit_status().is_some() || p.thread_count() == 0 {
        return None;
    }
    let adj = p.oom.adj();
    if adj == OOM_SCORE_ADJ_MIN {
        return None;
    }
    let f = footprint(p);
    let points = (f.anon + f.file + f.shmem + f.tables + f.held) as i64;
    Some((points + adj as i64 * (total / 1000) as i64, f))
}

/// The text of /proc/PID/oom_score: the badness scaled to 0..2000 as
/// Linux exports it (0 for a process that is never killed).
pub fn score_text(p: &Process) -> alloc::string::String {
    let total = total_pages().max(1);
    let points = match badness(p, total, false) {
        Some((badness, _)) => ((1000 + badness * 1000 / total as i64) * 2 / 3).max(0),
        None => 0,
    };
    alloc::format!("{}\n", points)
}

/// The last victim and when it was picked (monotonic ns).
static VICTIM: SpinLock<Option<(Weak<Process>, u64)>> = SpinLock::new(None);
/// Set by contexts that cannot run the killer (a usercopy fault, perhaps
/// under a lock); the next return to user mode runs it.
static REQUESTED: kevlar_platform::attention::Flag = kevlar_platform::attention::Flag::new(kevlar_platform::attention::OOM_REQUESTED);
/// Serialises the choice (a second CPU out of memory waits for the first
/// one's victim instead of picking another).
static CHOOSING: SpinLock<()> = SpinLock::new(());

/// Returns the victim still dying, if any (within its grace time).
fn dying_victim() -> Option<Arc<Process>> {
    let victim = VICTIM.lock();
    let (weak, since) = victim.as_ref()?;
    let process = weak.upgrade()?;
    let fresh = kevlar_platform::time::monotonic_ns().saturating_sub(*since) < VICTIM_GRACE_NS;
    (process.exit_status().is_none() && fresh).then_some(process)
}

/// Frees memory by killing the process with the highest badness, unless a
/// victim is already dying. Call from process context with no lock held.
/// `trigger` is the process whose allocation failed (for the log).
pub fn out_of_memory(trigger: Option<&Arc<Thread>>) {
    let Some(_choosing) = CHOOSING.try_lock() else { return };
    if dying_victim().is_some() {
        return;
    }
    // Clean page-cache pages go before any process does.
    if crate::fs::pagecache::reclaim() && !kevlar_platform::mm::pmm::below_reserve() {
        return;
    }
    let total = total_pages().max(1);
    let processes = crate::process::all_processes();
    let mut best: Option<(i64, Arc<Process>, Footprint)> = None;
    for allow_init in [false, true] {
        for p in &processes {
            if p.pid == 1 && !allow_init {
                continue;
            }
            if let Some((points, f)) = badness(p, total, allow_init) {
                if best.as_ref().is_none_or(|(b, _, _)| points > *b) {
                    best = Some((points, p.clone(), f));
                }
            }
        }
        if best.is_some() {
            break;
        }
    }
    if let Some(t) = trigger {
        let comm = t.process.comm.lock().clone();
        log::warn!("{} invoked oom-killer: order=0, oom_score_adj={}", comm, t.process.oom.adj());
    }
    let Some((_, victim, f)) = best else {
        log::error!("Out of memory and no killable processes...");
        return;
    };
    let comm = victim.comm.lock().clone();
    let uid = victim.creds.lock().uid;
    let kb = |pages: u64| pages * (kevlar_platform::mm::PAGE_SIZE as u64 / 1024);
    log::info!(
        "oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0,global_oom,task_memcg=/,task={},pid={},uid={}",
        comm, victim.pid, uid
    );
    log::error!(
        "Out of memory: Killed process {} ({}) total-vm:{}kB, anon-rss:{}kB, file-rss:{}kB, shmem-rss:{}kB, UID:{} pgtables:{}kB oom_score_adj:{}",
        victim.pid, comm, kb(f.total_vm), kb(f.anon), kb(f.file), kb(f.shmem), uid, kb(f.tables), victim.oom.adj()
    );
    *VICTIM.lock() = Some((Arc::downgrade(&victim), kevlar_platform::time::monotonic_ns()));
    signal::send_signal(&victim, signal::SIGKILL);
    super::vmstat::count(super::vmstat::Event::OomKill, 1);
}

/// Whether `thread` is being killed (SIGKILL pending, or its process is
/// ending): it must not wait for memory but go and die.
fn is_dying(thread: &Thread) -> bool {
    let signals = thread.process.signals.lock();
    signals.group_exit().is_some() || signals.pending(thread.tid()) & (1 << (signal::SIGKILL - 1)) != 0
}

/// After [`out_of_memory`]: lets the victim run and die, for up to a
/// fifth of a second, unless `thread` is dying itself or memory is back.
/// The caller then retries its allocation (a page fault simply faults
/// again).
pub fn wait_for_victim(thread: &Arc<Thread>) {
    for _ in 0..20 {
        if is_dying(thread) || dying_victim().is_none() || !kevlar_platform::mm::pmm::below_reserve() {
            return;
        }
        let deadline = kevlar_platform::time::monotonic_ns() + 10_000_000;
        if crate::timer::sleep_until(deadline).is_err() {
            return; // a signal to handle first; the fault comes back
        }
    }
}

/// Asks the next return to user mode to run the killer (for a context
/// that may hold locks).
pub fn request() {
    REQUESTED.set();
}

/// On the way back to user mode: runs the killer when asked to, or when a
/// kernel allocation dipped into the reserve and memory is still short;
/// frees what waits to be freed (kernel stacks beyond the cache).
#[inline]
pub fn needs_attention() -> bool {
    kevlar_platform::mm::stacks::has_excess() || REQUESTED.get() || kevlar_platform::mm::pmm::has_pressure()
}

/// On the way back to user mode (see [`before_user_return_slow`]).
#[inline]
pub fn before_user_return(thread: &Arc<Thread>) {
    if needs_attention() {
        before_user_return_slow(thread);
    }
}

#[cold]
#[inline(never)]
fn before_user_return_slow(thread: &Arc<Thread>) {
    if kevlar_platform::mm::stacks::has_excess() {
        // A burst of tasks ended: their stacks and heap pages go back.
        kevlar_platform::mm::stacks::release_excess();
        kevlar_platform::mm::heap::shrink_all();
    }
    let requested = REQUESTED.take();
    let pressure = kevlar_platform::mm::pmm::take_pressure();
    if (requested || pressure) && kevlar_platform::mm::pmm::below_reserve() {
        out_of_memory(Some(thread));
    }
}

/// Runs `op` (a fork, an exec: a system call's whole operation, with no
/// lock held), and when it fails for lack of memory runs the killer, waits
/// for the victim and tries again, a few times, as Linux's allocator
/// does. The caller gets ENOMEM in the end, or dies as the victim.
pub fn retry_on_oom<T>(thread: &Arc<Thread>, mut op: impl FnMut() -> Result<T>) -> Result<T> {
    let mut tries = 0;
    loop {
        match op() {
            Err(Errno::ENOMEM) if tries < 3 && kevlar_platform::mm::pmm::below_reserve() => {
                tries += 1;
                out_of_memory(Some(thread));
                wait_for_victim(thread);
                if is_dying(thread) {
                    return Err(Errno::ENOMEM);
                }
            }
            other => return other,
        }
    }
}
