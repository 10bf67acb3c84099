//! Sleeping until a time: the timer list, checked from process context (the
//! idle loop and every return to user mode) because interrupt handlers take
//! no sleeping locks. Resolution is the tick (10 ms).

use alloc::sync::{Arc, Weak};
use alloc::vec::Vec;
use core::sync::atomic::{AtomicU64, Ordering};

use kevlar_platform::sync::SpinLock;
use kevlar_platform::time;

use crate::error::Result;
use crate::process::wait_queue::WaitQueue;
use crate::process::signal::{self, SigInfo};
use crate::process::{scheduler, Process, Thread};

static TIMERS: SpinLock<Vec<(u64, Arc<Thread>)>> = SpinLock::new(Vec::new());
/// The earliest deadline in TIMERS (u64::MAX: none): the check on every
/// return to user mode reads this instead of taking the lock.
static EARLIEST_TIMER: AtomicU64 = AtomicU64::new(u64::MAX);

fn add_timer(deadline_ns: u64, thread: Arc<Thread>) {
    let mut timers = TIMERS.lock();
    timers.push((deadline_ns, thread));
    EARLIEST_TIMER.fetch_min(deadline_ns, Ordering::AcqRel);
}
static SLEEPERS: WaitQueue = WaitQueue::new();

/// The check on every return to user mode: [`run_expired`], but only when
/// this CPU took a timer tick or console input arrived since the last
/// look (deadlines have the tick's resolution anyway).
pub fn run_expired_if_due() {
    let ticked = scheduler::take_tick();
    if ticked {
        crate::process::cputimer::charge_tick();
    }
    if ticked || kevlar_platform::arch::serial::events_pending() {
        run_expired();
    }
}

/// When periodic work is next due (monotonic ns): the load average every
/// 5 s, and kernel-log readers as soon as a message arrives (at the next
/// tick: the return-to-user check looks only then).
/// EARLIEST_TIMER never exceeds it, so the one compare on the way to user
/// mode stands for timers and this work.
static NEXT_HOUSEKEEPING_NS: AtomicU64 = AtomicU64::new(0);

/// Asks for the periodic work to run at the next check (a kernel message
/// arrived: its readers are waiting). Safe from any context: atomics only.
pub fn request_housekeeping() {
    NEXT_HOUSEKEEPING_NS.store(0, Ordering::Release);
    EARLIEST_TIMER.fetch_min(0, Ordering::AcqRel);
}

#[inline(never)]
fn housekeeping(now: u64) {
    NEXT_HOUSEKEEPING_NS.store(now + crate::fs::procfs::LOAD_INTERVAL_NS, Ordering::Relaxed);
    crate::klog::wake_readers();
    crate::fs::procfs::sample_load(now);
    crate::fs::pagecache::flush_if_due(now);
}

/// Wakes threads whose deadline passed, and feeds console input to its
/// line discipline.
pub fn run_expired() {
    if kevlar_platform::arch::serial::take_dump_request() || periodic_dump_due() {
        crate::process::dump_state();
        kevlar_platform::x86::stall::dump_done();
    }
    if kevlar_platform::arch::serial::take_input_notification() {
        crate::tty::console::pump();
    }
    crate::fs::fasync::run_pending();
    let now = time::monotonic_ns();
    fire_real_timers(now);
    crate::process::posix_timer::run_wall_timers();
    crate::ntp::run(now);
    crate::fs::timerfd::run_expired(now);
    crate::net::inet::stack::run_timers(now);
    if now < EARLIEST_TIMER.load(Ordering::Acquire) {
        return;
    }
    if now >= NEXT_HOUSEKEEPING_NS.load(Ordering::Acquire) {
        housekeeping(now);
    }
    let expired: Vec<Arc<Thread>> = {
        let mut timers = TIMERS.lock();
        let (due, rest): (Vec<_>, Vec<_>) = timers.drain(..).partition(|(d, _)| *d <= now);
        *timers = rest;
        // Recomputed under the lock; add_timer lowers it under the lock too.
        let earliest = timers.iter().map(|(d, _)| *d).min().unwrap_or(u64::MAX);
        EARLIEST_TIMER.store(earliest.min(NEXT_HOUSEKEEPING_NS.load(Ordering::Acquire)), Ordering::Release);
        // A request that came in meanwhile must not be lost.
        EARLIEST_TIMER.fetch_min(NEXT_HOUSEKEEPING_NS.load(Ordering::Acquire), Ordering::AcqRel);
        due.into_iter().map(|(_, t)| t).collect()
    };
    for thread in expired {
        thread.wake();
    }
}

/// Wakes `thread` at `deadline_ns` (a timeout for any wait).
pub fn arm(deadline_ns: u64, thread: Arc<Thread>) {
    add_timer(deadline_ns, thread);
}

/// Cancels the timeouts of `thread`.
pub fn disarm(thread: &Arc<Thread>) {
    TIMERS.lock().retain(|(_, t)| !Arc::ptr_eq(t, thread));
}

/// Sleeps until the monotonic clock reaches `deadline_ns`. Returns EINTR if
/// a signal arrives first.
pub fn sleep_until(deadline_ns: u64) -> Result<()> {
    let thread = crate::process::current().expect("sleep outside a thread");
    add_timer(deadline_ns, thread.clone());
    let result = SLEEPERS.wait_until(|| Ok((time::monotonic_ns() >= deadline_ns).then_some(())));
    TIMERS.lock().retain(|(_, t)| !Arc::ptr_eq(t, &thread));
    result
}

/// A process's ITIMER_REAL: SIGALRM at `deadline` (monotonic ns), then
/// every `interval` ns unless that is 0.
struct RealTimer {
    process: Weak<Process>,
    deadline: u64,
    interval: u64,
}

static REAL_TIMERS: SpinLock<Vec<RealTimer>> = SpinLock::new(Vec::new());
/// The earliest deadline in REAL_TIMERS (u64::MAX: none), so the check on
/// every return to user mode takes no lock.
static NEXT_REAL: AtomicU64 = AtomicU64::new(u64::MAX);

fn update_next_real(timers: &[RealTimer]) {
    NEXT_REAL.store(timers.iter().map(|t| t.deadline).min().unwrap_or(u64::MAX), Ordering::Release);
}

fn is_timer_of(timer: &RealTimer, process: &Arc<Process>) -> bool {
    core::ptr::eq(timer.process.as_ptr(), Arc::as_ptr(process))
}

/// Sends SIGALRM for the interval timers that expired and re-arms the
/// periodic ones. Timers of processes that ended go away here.
fn fire_real_timers(now: u64) {
    if now < NEXT_REAL.load(Ordering::Acquire) {
        return;
    }
    let mut due = Vec::new();
    {
        let mut timers = REAL_TIMERS.lock();
        timers.retain_mut(|timer| {
            let Some(process) = timer.process.upgrade().filter(|p| p.exit_status().is_none()) else {
                return false;
            };
            if timer.deadline > now {
                return true;
            }
            due.push(process);
            if timer.interval == 0 {
                return false;
            }
            // Periods missed between checks (the tick is 10 ms) give one
            // signal: a pending SIGALRM would absorb the others anyway.
            let missed = (now - timer.deadline) / timer.interval + 1;
            timer.deadline += missed * timer.interval;
            true
        });
        update_next_real(&timers);
    }
    for process in due {
        let _ = signal::send_signal_info(&process, SigInfo::new(signal::SIGALRM, signal::SI_KERNEL));
    }
}

/// Remaining time of a real timer as getitimer shows it: one that is due
/// but has not fired yet reads as 1 µs left, never as disarmed (as Linux).
fn remaining(deadline: u64, now: u64) -> u64 {
    deadline.saturating_sub(now).max(1000)
}

/// Returns the ITIMER_REAL of `process`: (time left, interval) in ns.
pub fn real_timer(process: &Arc<Process>) -> (u64, u64) {
    let now = time::monotonic_ns();
    REAL_TIMERS
        .lock()
        .iter()
        .find(|t| is_timer_of(t, process))
        .map_or((0, 0), |t| (remaining(t.deadline, now), t.interval))
}

/// Sets the ITIMER_REAL of `process` to expire in `value` ns, then every
/// `interval` ns (a `value` of 0 disarms it); returns the old setting as
/// `real_timer` does.
pub fn set_real_timer(process: &Arc<Process>, value: u64, interval: u64) -> (u64, u64) {
    let now = time::monotonic_ns();
    let mut timers = REAL_TIMERS.lock();
    let old = match timers.iter().position(|t| is_timer_of(t, process)) {
        Some(index) => {
            let timer = timers.swap_remove(index);
            (remaining(timer.deadline, now), timer.interval)
        }
        None => (0, 0),
    };
    if value != 0 {
        timers.push(RealTimer { process: Arc::downgrade(process), deadline: now.saturating_add(value), interval });
    }
    update_next_real(&timers);
    old
}

/// `dumpevery=SECONDS` on the command line: print the state dump that often
/// (for hangs that no one is idle enough to notice).
pub static DUMP_EVERY_NS: core::sync::atomic::AtomicU64 = core::sync::atomic::AtomicU64::new(0);
static NEXT_DUMP_NS: core::sync::atomic::AtomicU64 = core::sync::atomic::AtomicU64::new(0);

fn periodic_dump_due() -> bool {
    use core::sync::atomic::Ordering;
    let every = DUMP_EVERY_NS.load(Ordering::Relaxed);
    if every == 0 {
        return false;
    }
    let now = time::monotonic_ns();
    let next = NEXT_DUMP_NS.load(Ordering::Relaxed);
    if now < next {
        return false;
    }
    NEXT_DUMP_NS.compare_exchange(next, now + every, Ordering::AcqRel, Ordering::Relaxed).is_ok() && next != 0
}
