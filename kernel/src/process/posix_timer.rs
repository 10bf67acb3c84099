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
//! The registry keeps timers by (owner pid, id), and the armed ones that
//! can fire in queues ordered by expiry, one per wall clock (the monotonic
//! and the real-time one: a real-time timer's expiry moves with
//! clock_settime, so its queue is compared with the real-time clock), plus
//! the set of armed CPU-time timers. The check on every tick reads two
//! atomics (the queues' earliest expiries) and takes the lock only when
//! one is due; it then takes the due timers off the queue's front: the
//! cost is O(expired), not O(timers), and creating, setting and deleting a
//! timer is O(log n).
//!
//! Lock order: a process's signal lock, then TIMERS, then a process's
//! thread list (the CPU-time clocks). Signals are sent with TIMERS released.

use alloc::collections::{BTreeMap, BTreeSet};
use alloc::sync::{Arc, Weak};
use alloc::vec::Vec;
use core::sync::atomic::{AtomicU64, Ordering};

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
    /// The thread its signal goes to, or the task its CPU clock measures,
    /// is gone: it never fires again until it is set again.
    orphan: bool,
    /// SIGEV_NONE: the expiry of the last setting, which Linux's
    /// timer_gettime still reports after the timer is disarmed.
    stale_deadline: u64,
}

impl Timer {
    fn is_of(&self, process: &Process) -> bool {
        core::ptr::eq(self.owner.as_ptr(), process as *const Process)
    }

    /// Whether it may fire: armed, not waiting for its signal to be taken,
    /// with a signal to send and someone to send it to.
    fn can_fire(&self) -> bool {
        self.deadline != 0 && !self.waiting && !self.orphan && !matches!(self.notify, Notify::None)
    }
}

type Key = (Pid, i32);

/// The timers of one process: its next id and how many it has.
struct Owner {
    process: Weak<Process>,
    next_id: i32,
    count: u64,
}

struct Registry {
    timers: BTreeMap<Key, Timer>,
    /// By owner pid (an entry of a process that is gone is replaced when
    /// a new process with its pid makes a timer, and dropped by sweeps).
    owners: BTreeMap<Pid, Owner>,
    /// The size of `owners` at which the next sweep runs.
    owners_sweep_at: usize,
    /// The monotonic-clock timers that can fire, by expiry.
    monotonic: BTreeSet<(u64, Key)>,
    /// The real-time-clock timers that can fire, by expiry.
    realtime: BTreeSet<(u64, Key)>,
    /// The CPU-time timers that can fire.
    cpu: BTreeSet<Key>,
}

static TIMERS: SpinLock<Registry> = SpinLock::new(Registry {
    timers: BTreeMap::new(),
    owners: BTreeMap::new(),
    owners_sweep_at: 64,
    monotonic: BTreeSet::new(),
    realtime: BTreeSet::new(),
    cpu: BTreeSet::new(),
});
/// The earliest expiry in the monotonic queue (u64::MAX: none): the tick's
/// check reads it without the lock.
static NEXT_MONOTONIC: AtomicU64 = AtomicU64::new(u64::MAX);
/// The earliest expiry in the real-time queue.
static NEXT_REALTIME: AtomicU64 = AtomicU64::new(u64::MAX);

impl Registry {
    /// Takes `timer` (under `key`) out of the queue it is in, if any.
    fn unqueue(&mut self, key: Key, timer: &Timer) {
        if !timer.can_fire() {
            return;
        }
        match timer.clock {
            TimerClock::Monotonic => {
                self.monotonic.remove(&(timer.deadline, key));
            }
            TimerClock::Realtime => {
                self.realtime.remove(&(timer.deadline, key));
            }
            TimerClock::ProcessCpu(_) | TimerClock::ThreadCpu(_) => {
                self.cpu.remove(&key);
            }
        }
    }

    /// Puts `timer` into its queue if it can fire.
    fn enqueue(&mut self, key: Key, timer: &Timer) {
        if !timer.can_fire() {
            return;
        }
        match timer.clock {
            TimerClock::Monotonic => {
                self.monotonic.insert((timer.deadline, key));
            }
            TimerClock::Realtime => {
                self.realtime.insert((timer.deadline, key));
            }
            TimerClock::ProcessCpu(_) | TimerClock::ThreadCpu(_) => {
                self.cpu.insert(key);
            }
        }
    }

    /// Publishes the queues' earliest expiries and the CPU-time count.
    fn publish(&self) {
        NEXT_MONOTONIC.store(self.monotonic.first().map_or(u64::MAX, |(d, _)| *d), Ordering::Release);
        NEXT_REALTIME.store(self.realtime.first().map_or(u64::MAX, |(d, _)| *d), Ordering::Release);
        super::cputimer::set_posix_armed(self.cpu.len());
    }

    /// Runs `f` on the timer under `key` (of `process` when given), keeping
    /// the queues in step with what it changes.
    fn update<R>(&mut self, key: Key, process: Option<&Process>, f: impl FnOnce(&mut Timer) -> R) -> Option<R> {
        let mut timer = self.timers.remove(&key)?;
        if process.is_some_and(|p| !timer.is_of(p)) {
            self.timers.insert(key, timer);
            return None;
        }
        self.unqueue(key, &timer);
        let result = f(&mut timer);
        self.enqueue(key, &timer);
        self.timers.insert(key, timer);
        self.publish();
        Some(result)
    }

    /// Removes the timer under `key`.
    fn remove(&mut self, key: Key) -> Option<Timer> {
        let timer = self.timers.remove(&key)?;
        self.unqueue(key, &timer);
        if let Some(owner) = self.owners.get_mut(&key.0) {
            owner.count = owner.count.saturating_sub(1);
        }
        Some(timer)
    }

    /// The owner entry of `process`, made fresh when absent or left by an
    /// earlier process with the same pid.
    fn owner_of(&mut self, process: &Arc<Process>) -> &mut Owner {
        if self.owners.len() >= self.owners_sweep_at {
            self.owners.retain(|_, o| o.process.strong_count() > 0);
            self.owners_sweep_at = (self.owners.len() * 2).max(64);
        }
        let entry = self.owners.entry(process.pid).or_insert_with(|| Owner { process: Arc::downgrade(process), next_id: 0, count: 0 });
        if !core::ptr::eq(entry.process.as_ptr(), Arc::as_ptr(process)) {
            *entry = Owner { process: Arc::downgrade(process), next_id: 0, count: 0 };
        }
        entry
    }
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
        // The owner entry and, later, the timer's node: ENOMEM as Linux's
        // timer_create when memory is out.
        crate::mm::kbuf::check_object()?;
        let owner = registry.owner_of(process);
        if owner.count >= limit {
            return Err(Errno::EAGAIN);
        }
        let id = owner.next_id;
        owner.next_id = if id == i32::MAX { 0 } else { id + 1 };
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
        orphan: false,
        stale_deadline: 0,
    };
    let mut registry = TIMERS.lock();
    crate::mm::kbuf::check_object()?;
    let owner = registry.owner_of(process);
    if owner.count >= limit {
        // Others made timers meanwhile (threads of the process).
        return Err(Errno::EAGAIN);
    }
    owner.count += 1;
    registry.timers.insert((process.pid, id), timer);
    Ok(id)
}

/// The setting of `timer` now.
fn current_setting(timer: &Timer) -> Setting {
    match timer.clock.now() {
        Some(now) => setting_at(timer, now),
        None => (0, timer.interval),
    }
}

/// The setting of `timer` at `now` (its clock's time, read once by the
/// caller so that everything derived from one call agrees).
fn setting_at(timer: &Timer, now: u64) -> Setting {
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
    TIMERS.lock().update((process.pid, id), Some(process), f).ok_or(Errno::EINVAL)
}

/// timer_gettime.
pub fn get(process: &Process, id: i32) -> Result<Setting> {
    let registry = TIMERS.lock();
    let timer = registry.timers.get(&(process.pid, id)).filter(|t| t.is_of(process)).ok_or(Errno::EINVAL)?;
    Ok(current_setting(timer))
}

/// timer_getoverrun.
pub fn overrun(process: &Process, id: i32) -> Result<i32> {
    let registry = TIMERS.lock();
    let timer = registry.timers.get(&(process.pid, id)).filter(|t| t.is_of(process)).ok_or(Errno::EINVAL)?;
    Ok(timer.overrun_last)
}

/// timer_settime: arms timer `id` to expire at `value` (absolute in the
/// timer's clock with `absolute`, else relative), then every `interval`;
/// a zero value disarms. Returns the old setting.
pub fn set(process: &Process, id: i32, value: u64, interval: u64, absolute: bool) -> Result<Setting> {
    with_timer(process, id, |timer| {
        // One reading of the clock for the old setting and the expiry a
        // disarmed SIGEV_NONE timer keeps reporting: read twice, a period
        // boundary between the reads made the kept expiry a period later
        // than the old value said.
        let now = timer.clock.now();
        let old = match now {
            Some(now) => setting_at(timer, now),
            None => (0, timer.interval),
        };
        timer.overrun_last = 0;
        if matches!(timer.notify, Notify::None) && timer.deadline != 0 {
            timer.stale_deadline = match now {
                Some(now) if old.0 > 0 => now.saturating_add(old.0),
                _ => timer.deadline,
            };
        }
        timer.deadline = 0;
        timer.interval = 0;
        timer.waiting = false;
        timer.orphan = false;
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
    let key = (process.pid, id);
    if !registry.timers.get(&key).is_some_and(|t| t.is_of(process)) {
        return Err(Errno::EINVAL);
    }
    registry.remove(key);
    registry.publish();
    Ok(())
}

/// Deletes every timer of `process` (exec and exit; ids go on from where
/// they were, as Linux's per-process counter does).
pub fn delete_all(process: &Process) {
    let mut registry = TIMERS.lock();
    let keys: Vec<Key> = registry
        .timers
        .range((process.pid, i32::MIN)..=(process.pid, i32::MAX))
        .filter(|(_, t)| t.is_of(process))
        .map(|(k, _)| *k)
        .collect();
    if keys.is_empty() {
        return;
    }
    for key in keys {
        registry.remove(key);
    }
    registry.publish();
}

/// A signal a timer owes: (owner, target thread, siginfo).
type Due = (Arc<Process>, Option<Arc<Thread>>, SigInfo);

/// Fires the timer under `key` if its clock has reached its expiry: the
/// signal it owes goes to `due`. A one-shot timer is done, a periodic one
/// waits for its signal to be taken (or found ignored, `send_all`).
fn fire(registry: &mut Registry, key: Key, due: &mut Vec<(Due, Key)>) {
    let mut fired = None;
    let mut gone = false;
    registry.update(key, None, |timer| {
        if !timer.can_fire() {
            return;
        }
        let Some(now) = timer.clock.now() else {
            timer.orphan = true; // the clock's task is gone
            return;
        };
        if now < timer.deadline {
            return;
        }
        let Some(owner) = timer.owner.upgrade() else {
            gone = true;
            return;
        };
        let (signo, target) = match &timer.notify {
            Notify::None => return,
            Notify::Process(signo) => (*signo, None),
            Notify::Thread(signo, thread) => match thread.upgrade() {
                Some(thread) => (*signo, Some(thread)),
                None => {
                    // The thread is gone: the signal is lost.
                    timer.orphan = true;
                    return;
                }
            },
        };
        let info = signal::timer_info(signo, timer.id, timer.value, timer.owner_pid, timer.generation);
        fired = Some((owner, target, info));
        if timer.interval == 0 {
            timer.deadline = 0;
        } else {
            timer.waiting = true;
        }
    });
    if gone {
        registry.remove(key);
        registry.publish();
    }
    if let Some(d) = fired {
        due.push((d, key));
    }
}

fn send_all(due: Vec<(Due, Key)>) {
    for ((process, target, info), key) in due {
        if !signal::send_timer_signal(&process, target.as_ref(), info) {
            // Not queued (ignored, or the old one still is): a periodic
            // timer runs on, counting the periods it skips.
            TIMERS.lock().update(key, Some(&process), |timer| {
                if timer.waiting {
                    timer.waiting = false;
                    forward(timer);
                }
            });
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

/// The timer check for wall-clock timers (process context, every tick):
/// two loads unless a timer is due, then the due ones off the queues'
/// fronts.
pub fn run_wall_timers() {
    let next_mono = NEXT_MONOTONIC.load(Ordering::Acquire);
    let next_real = NEXT_REALTIME.load(Ordering::Acquire);
    let mono_due = next_mono != u64::MAX && time::monotonic_ns() >= next_mono;
    let real_due = next_real != u64::MAX && time::realtime_ns() >= next_real;
    if !mono_due && !real_due {
        return;
    }
    let mut due = Vec::new();
    {
        let mut registry = TIMERS.lock();
        for realtime in [false, true] {
            let now = if realtime { time::realtime_ns() } else { time::monotonic_ns() };
            loop {
                let queue = if realtime { &registry.realtime } else { &registry.monotonic };
                let Some(&(deadline, key)) = queue.first() else { break };
                if deadline > now {
                    break;
                }
                fire(&mut registry, key, &mut due);
                // The entry left the front (fired, orphaned or removed),
                // unless its clock is not there yet after all (the real-time
                // clock was set back): then nothing behind it is due either.
                let queue = if realtime { &registry.realtime } else { &registry.monotonic };
                if queue.first() == Some(&(deadline, key)) {
                    break;
                }
            }
        }
        registry.publish();
    }
    send_all(due);
}

/// The check for CPU-time timers on the clocks of `thread` and its process
/// (after a tick charged it).
pub fn run_cpu_timers(thread: &Arc<Thread>) {
    let mut due = Vec::new();
    {
        let mut registry = TIMERS.lock();
        let keys: Vec<Key> = registry
            .cpu
            .iter()
            .filter(|key| {
                registry.timers.get(key).is_some_and(|t| match &t.clock {
                    TimerClock::ProcessCpu(p) => core::ptr::eq(p.as_ptr(), Arc::as_ptr(&thread.process)),
                    TimerClock::ThreadCpu(th) => core::ptr::eq(th.as_ptr(), Arc::as_ptr(thread)),
                    _ => false,
                })
            })
            .copied()
            .collect();
        for key in keys {
            fire(&mut registry, key, &mut due);
        }
    }
    send_all(due);
}

/// A timer's signal was taken, carrying `overrun` and the setting
/// `generation` it was sent for: a periodic timer of that setting moves on
/// past now, and the periods it skipped are the signal's si_overrun and
/// what timer_getoverrun reports from now on. Returns the si_overrun to
/// deliver. Called with the owner's signal lock held.
pub fn delivered(owner_pid: Pid, id: i32, generation: i32, overrun: i32) -> i32 {
    let mut registry = TIMERS.lock();
    let key = (owner_pid, id);
    let Some(timer) = registry.timers.get(&key).filter(|t| t.owner.strong_count() > 0) else {
        return overrun;
    };
    if timer.generation != generation || timer.interval == 0 || !timer.waiting {
        return overrun;
    }
    registry
        .update(key, None, |timer| {
            timer.waiting = false;
            let skipped = forward(timer);
            let total = (overrun as u64).saturating_add(skipped).min(i32::MAX as u64) as i32;
            timer.overrun_last = total;
            total
        })
        .unwrap_or(overrun)
}
