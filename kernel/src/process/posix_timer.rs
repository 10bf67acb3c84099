//! POSIX per-process timers (timer_create and friends): the mechanism.
//!
//! A timer belongs to a process, has an id unique in it (0, 1, 2... never
//! reused, as Linux 6.1 hands them out), measures one clock and, when it
//! expires, sends a signal to the process or to one of its threads
//! (SIGEV_SIGNAL, SIGEV_THREAD_ID) or does nothing (SIGEV_NONE: it is only
//! read back).
//!
//! Wall-clock timers (REALTIME, MONOTONIC, BOOTTIME, TAI and the _ALARM
//! ones) are checked from the timer list's check (`crate::timer`), CPU-time
//! timers from the tick accounting of the process or thread whose clock they
//! measure (`cputimer`): a CPU-time clock only moves while that runs. Both
//! run at the tick's resolution.
//!
//! Overruns as Linux 6.1 counts them: a periodic timer whose signal was
//! queued stops until the signal is taken; then (`delivered`) it moves on
//! past now, and the periods it skipped are the signal's si_overrun and
//! what timer_getoverrun reports. A timer set again meanwhile (its
//! generation changed) is not moved on by the old signal, whose si_overrun
//! then counts the expirations that found it still queued
//! (`signal::send_timer_signal`). A timer whose signal is ignored keeps
//! running. A timer's signal stays queued when the timer is deleted.
//!
//! Lock order: a process's signal lock, then TIMERS, then a process's
//! thread list (the CPU-time clocks). Signals are sent with TIMERS released.

use alloc::sync::{Arc, Weak};
use alloc::vec::Vec;
use core::sync::atomic::{AtomicUsize, Ordering};

use kevlar_platform::sync::SpinLock;
use kevlar_platform::time;
use linux_raw_sys::general as abi;

use super::signal::{self, SigInfo};
use super::{Pid, Process, Thread};
use crate::error::{Errno, Result};

/// What a timer measures.
#[derive(Clone)]
pub enum TimerClock {
    /// The wall clock (CLOCK_REALTIME, CLOCK_TAI, CLOCK_REALTIME_ALARM).
    Realtime,
    /// The monotonic clock (CLOCK_MONOTONIC, CLOCK_BOOTTIME and
    /// CLOCK_BOOTTIME_ALARM: the machine never suspends).
    Monotonic,
    /// A process's CPU time (all its threads).
    ProcessCpu(Weak<Process>),
    /// One thread's CPU time.
    ThreadCpu(Weak<Thread>),
}

impl TimerClock {
    /// The clock's reading now; None for the CPU clock of a task that is
    /// gone (its timers never fire again).
    fn now(&self) -> Option<u64> {
        match self {
            TimerClock::Realtime => Some(time::realtime_ns()),
            TimerClock::Monotonic => Some(time::monotonic_ns()),
            TimerClock::ProcessCpu(p) => p.upgrade().filter(|p| p.exit_status().is_none()).map(|p| p.cpu_ns()),
            TimerClock::ThreadCpu(t) => t.upgrade().map(|t| t.cpu_ns()),
        }
    }

    fn is_cpu(&self) -> bool {
        matches!(self, TimerClock::ProcessCpu(_) | TimerClock::ThreadCpu(_))
    }
}

/// What an expiry does.
#[derive(Clone)]
pub enum Notify {
    /// Nothing (SIGEV_NONE).
    None,
    /// Signal `signo` to the process (SIGEV_SIGNAL, SIGEV_THREAD).
    Process(u32),
    /// Signal `signo` to one thread of it (SIGEV_THREAD_ID).
    Thread(u32, Weak<Thread>),
}

struct Timer {
    owner: Weak<Process>,
    owner_pid: Pid,
    id: i32,
    clock: TimerClock,
    notify: Notify,
    /// si_value.
    value: u64,
    /// The next expiry in the clock's ns; 0 when disarmed.
    deadline: u64,
    /// The period (0: one-shot).
    interval: u64,
    /// What timer_getoverrun reports: the overrun count of the last signal
    /// taken.
    overrun_last: i32,
    /// Counts timer_settime calls: a queued signal of an older setting
    /// does not restart the timer.
    generation: i32,
    /// A periodic timer whose signal is queued: stopped until it is taken.
    waiting: bool,
    /// SIGEV_NONE: the expiry of the last setting, which Linux's
    /// timer_gettime still reports after the timer is disarmed.
    stale_deadline: u64,
}

impl Timer {
    fn is_of(&self, process: &Process) -> bool {
        core::ptr::eq(self.owner.as_ptr(), process as *const Process)
    }
}

struct Registry {
    timers: Vec<Timer>,
    /// The next id of each process that has made a timer.
    next_ids: Vec<(Weak<Process>, i32)>,
}

static TIMERS: SpinLock<Registry> = SpinLock::new(Registry { timers: Vec::new(), next_ids: Vec::new() });
/// Armed wall-clock timers that signal: the timer check skips the lock when
/// there are none.
static ARMED_WALL: AtomicUsize = AtomicUsize::new(0);

fn update_counts(timers: &[Timer]) {
    let armed = |cpu: bool| {
        timers.iter().filter(|t| t.deadline != 0 && t.clock.is_cpu() == cpu && !matches!(t.notify, Notify::None)).count()
    };
    ARMED_WALL.store(armed(false), Ordering::Release);
    super::cputimer::set_posix_armed(armed(true));
}

/// A timer's setting as timer_gettime reports it: (value, interval) in ns.
pub type Setting = (u64, u64);

/// Creates a timer of `process`; returns its id. `id_ok` is called with
/// the id before the timer exists (Linux writes it to user memory then: a
/// failure, EFAULT, undoes the creation but the id stays used), then
/// `clock` gives its clock (or the clock's error). Fails with EAGAIN past
/// RLIMIT_SIGPENDING timers.
pub fn create(
    process: &Arc<Process>,
    notify: Option<(Notify, u64)>,
    id_ok: impl FnOnce(i32) -> Result<()>,
    clock: impl FnOnce() -> Result<TimerClock>,
) -> Result<i32> {
    let limit = process.limits.lock()[abi::RLIMIT_SIGPENDING as usize][0];
    let id = {
        let mut registry = TIMERS.lock();
        registry.next_ids.retain(|(p, _)| p.strong_count() > 0);
        registry.timers.retain(|t| t.owner.strong_count() > 0);
        if registry.timers.iter().filter(|t| t.is_of(process)).count() as u64 >= limit {
            return Err(Errno::EAGAIN);
        }
        let slot = match registry.next_ids.iter().position(|(p, _)| core::ptr::eq(p.as_ptr(), Arc::as_ptr(process))) {
            Some(index) => index,
            None => {
                registry.next_ids.push((Arc::downgrade(process), 0));
                registry.next_ids.len() - 1
            }
        };
        let id = registry.next_ids[slot].1;
        registry.next_ids[slot].1 = if id == i32::MAX { 0 } else { id + 1 };
        id
    };
    // A bad sigevent is judged after the id is taken, as on Linux.
    let (notify, value) = match notify {
        Some(n) => n,
        None => (Notify::Process(signal::SIGALRM), id as u32 as u64),
    };
    if let Notify::Thread(_, thread) = &notify {
        if !thread.upgrade().is_some_and(|t| Arc::ptr_eq(&t.process, process)) {
            return Err(Errno::EINVAL);
        }
    }
    id_ok(id)?;
    // The clock's own checks (a CPU-time clock's task, CAP_WAKE_ALARM)
    // come last, as Linux's timer_create of the clock does.
    let clock = clock()?;
    let timer = Timer {
        owner: Arc::downgrade(process),
        owner_pid: process.pid,
        id,
        clock,
        notify,
        value,
        deadline: 0,
        interval: 0,
        overrun_last: 0,
        generation: 0,
        waiting: false,
        stale_deadline: 0,
    };
    // One list holds every process's timers: its growth (a copy of all of
    // them) is fallible, ENOMEM as Linux's timer_create when memory is out.
    let mut registry = TIMERS.lock();
    crate::mm::kbuf::reserve(&mut registry.timers, 1)?;
    registry.timers.push(timer);
    Ok(id)
}

/// The setting of `timer` at `now`.
fn current_setting(timer: &Timer) -> Setting {
    let Some(now) = timer.clock.now() else {
        return (0, timer.interval);
    };
    if timer.deadline == 0 {
        if matches!(timer.notify, Notify::None) && timer.stale_deadline > now {
            return (timer.stale_deadline - now, timer.interval);
        }
        return (0, timer.interval);
    }
    if timer.deadline > now {
        return (timer.deadline - now, timer.interval);
    }
    // Due but not yet seen by the check (or never, for SIGEV_NONE).
    if timer.interval != 0 {
        let periods = (now - timer.deadline) / timer.interval + 1;
        let next = timer.deadline.saturating_add(periods.saturating_mul(timer.interval));
        return (next.saturating_sub(now).max(1), timer.interval);
    }
    // An expired one-shot timer: 1 ns while its signal is on its way,
    // 0 for SIGEV_NONE (Linux's answers).
    (if matches!(timer.notify, Notify::None) { 0 } else { 1 }, 0)
}

fn with_timer<R>(process: &Process, id: i32, f: impl FnOnce(&mut Timer) -> R) -> Result<R> {
    let mut registry = TIMERS.lock();
    let timer = registry.timers.iter_mut().find(|t| t.id == id && t.is_of(process)).ok_or(Errno::EINVAL)?;
    let result = f(timer);
    update_counts(&registry.timers);
    Ok(result)
}

/// timer_gettime.
pub fn get(process: &Process, id: i32) -> Result<Setting> {
    with_timer(process, id, |t| current_setting(t))
}

/// timer_getoverrun.
pub fn overrun(process: &Process, id: i32) -> Result<i32> {
    with_timer(process, id, |t| t.overrun_last)
}

/// timer_settime: arms timer `id` to expire at `value` (absolute in the
/// timer's clock with `absolute`, else relative), then every `interval`;
/// a zero value disarms. Returns the old setting.
pub fn set(process: &Process, id: i32, value: u64, interval: u64, absolute: bool) -> Result<Setting> {
    with_timer(process, id, |timer| {
        let old = current_setting(timer);
        timer.overrun_last = 0;
        if matches!(timer.notify, Notify::None) && timer.deadline != 0 {
            timer.stale_deadline = timer.deadline;
            if timer.interval != 0 {
                if let Some(now) = timer.clock.now().filter(|now| *now >= timer.deadline) {
                    let periods = (now - timer.deadline) / timer.interval + 1;
                    timer.stale_deadline = timer.deadline.saturating_add(periods.saturating_mul(timer.interval));
                }
            }
        }
        timer.deadline = 0;
        timer.interval = 0;
        timer.waiting = false;
        timer.generation = timer.generation.wrapping_add(1);
        if value == 0 {
            return old;
        }
        let Some(now) = timer.clock.now() else {
            return old;
        };
        timer.interval = interval;
        // An absolute time already past expires at once (never 0: that
        // means disarmed).
        timer.deadline = if absolute { value.max(1) } else { now.saturating_add(value) };
        old
    })
}

/// timer_delete. A signal already queued stays.
pub fn delete(process: &Process, id: i32) -> Result<()> {
    let mut registry = TIMERS.lock();
    let index = registry.timers.iter().position(|t| t.id == id && t.is_of(process)).ok_or(Errno::EINVAL)?;
    registry.timers.swap_remove(index);
    update_counts(&registry.timers);
    Ok(())
}

/// Deletes every timer of `process` (exec and exit; ids go on from where
/// they were, as Linux's per-process counter does).
pub fn delete_all(process: &Process) {
    let mut registry = TIMERS.lock();
    if registry.timers.iter().any(|t| t.is_of(process)) {
        registry.timers.retain(|t| !t.is_of(process));
        update_counts(&registry.timers);
    }
}

/// A signal a timer owes: (owner, target thread, siginfo).
type Due = (Arc<Process>, Option<Arc<Thread>>, SigInfo);

/// Checks the timers `pick` selects against their clocks and collects the
/// signals of the expired ones; re-arms periodic ones past now.
fn collect_due(registry: &mut Registry, pick: impl Fn(&Timer) -> bool) -> Vec<(Due, i32)> {
    let mut due = Vec::new();
    for timer in registry.timers.iter_mut() {
        if timer.deadline == 0 || timer.waiting || matches!(timer.notify, Notify::None) || !pick(timer) {
            continue;
        }
        let Some(now) = timer.clock.now() else { continue };
        if now < timer.deadline {
            continue;
        }
        let Some(owner) = timer.owner.upgrade() else { continue };
        let (signo, target) = match &timer.notify {
            Notify::None => continue,
            Notify::Process(signo) => (*signo, None),
            Notify::Thread(signo, thread) => match thread.upgrade() {
                Some(thread) => (*signo, Some(thread)),
                None => continue, // the thread is gone: the signal is lost
            },
        };
        let info = signal::timer_info(signo, timer.id, timer.value, timer.owner_pid, timer.generation);
        due.push(((owner, target, info), timer.id));
        // A periodic timer waits for its signal to be taken (or found
        // ignored, below); a one-shot one is done.
        if timer.interval == 0 {
            timer.deadline = 0;
        } else {
            timer.waiting = true;
        }
    }
    update_counts(&registry.timers);
    due
}

fn send_all(due: Vec<(Due, i32)>) {
    for ((process, target, info), id) in due {
        if !signal::send_timer_signal(&process, target.as_ref(), info) {
            // Not queued (ignored, or the old one still is): a periodic
            // timer runs on, counting the periods it skips.
            let mut registry = TIMERS.lock();
            if let Some(timer) = registry.timers.iter_mut().find(|t| t.id == id && t.is_of(&process)) {
                if timer.waiting {
                    timer.waiting = false;
                    forward(timer);
                }
            }
        }
    }
}

/// Moves a periodic timer's expiry past now; returns the periods skipped
/// after the first (Linux's overrun).
fn forward(timer: &mut Timer) -> u64 {
    let Some(now) = timer.clock.now() else { return 0 };
    if timer.interval == 0 || now < timer.deadline {
        return 0;
    }
    let periods = (now - timer.deadline) / timer.interval + 1;
    timer.deadline = timer.deadline.saturating_add(periods.saturating_mul(timer.interval));
    periods - 1
}

/// The timer check for wall-clock timers (process context, every tick).
pub fn run_wall_timers() {
    if ARMED_WALL.load(Ordering::Acquire) == 0 {
        return;
    }
    let due = {
        let mut registry = TIMERS.lock();
        registry.timers.retain(|t| t.owner.upgrade().is_some_and(|p| p.exit_status().is_none()));
        collect_due(&mut registry, |t| !t.clock.is_cpu())
    };
    send_all(due);
}

/// The check for CPU-time timers on the clocks of `thread` and its process
/// (after a tick charged it).
pub fn run_cpu_timers(thread: &Arc<Thread>) {
    let due = {
        let mut registry = TIMERS.lock();
        collect_due(&mut registry, |t| match &t.clock {
            TimerClock::ProcessCpu(p) => core::ptr::eq(p.as_ptr(), Arc::as_ptr(&thread.process)),
            TimerClock::ThreadCpu(th) => core::ptr::eq(th.as_ptr(), Arc::as_ptr(thread)),
            _ => false,
        })
    };
    send_all(due);
}

/// A timer's signal was taken, carrying `overrun` and the setting
/// `generation` it was sent for: a periodic timer of that setting moves on
/// past now, and the periods it skipped are the signal's si_overrun and
/// what timer_getoverrun reports from now on. Returns the si_overrun to
/// deliver. Called with the owner's signal lock held.
pub fn delivered(owner_pid: Pid, id: i32, generation: i32, overrun: i32) -> i32 {
    let mut registry = TIMERS.lock();
    let Some(timer) = registry.timers.iter_mut().find(|t| t.id == id && t.owner_pid == owner_pid && t.owner.strong_count() > 0) else {
        return overrun;
    };
    if timer.generation != generation || timer.interval == 0 || !timer.waiting {
        return overrun;
    }
    timer.waiting = false;
    let skipped = forward(timer);
    let total = (overrun as u64).saturating_add(skipped).min(i32::MAX as u64) as i32;
    timer.overrun_last = total;
    update_counts(&registry.timers);
    total
}
