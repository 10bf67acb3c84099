//! timerfd: a timer as a file. Reads return how many times it expired
//! since the last read (blocking until at least once); poll reports it
//! readable then.
//!
//! Expirations are computed from the clock when the file is looked at, so
//! counts are exact whatever the tick resolution; a list of armed timers
//! checked from `timer::run_expired` only wakes the readers and pollers
//! (at the tick's resolution).

use alloc::sync::{Arc, Weak};
use alloc::vec::Vec;
use core::sync::atomic::{AtomicU64, Ordering};

use kevlar_platform::sync::SpinLock;
use kevlar_platform::time;

use super::file::{FileOps, OpenFile, PollEvents, POLLIN};
use crate::error::{Errno, Result};
use crate::process::wait_queue::WaitQueue;

/// Counts clock_settime calls: a TFD_TIMER_CANCEL_ON_SET timer armed
/// before the count moved is cancelled.
static CLOCK_SETS: AtomicU64 = AtomicU64::new(0);

/// Notes that the realtime clock was set (clock_settime).
pub fn clock_was_set() {
    CLOCK_SETS.fetch_add(1, Ordering::SeqCst);
    // Armed timers may be cancelled now (TFD_TIMER_CANCEL_ON_SET).
    let armed: Vec<Arc<Inner>> = ARMED.lock().iter().filter_map(|(_, t, _)| t.upgrade()).collect();
    for timer in armed {
        timer.queue.notify(0);
    }
    super::file::notify_pollers();
}

struct State {
    /// Monotonic time of the next expiration, while armed.
    next: Option<u64>,
    /// Period in ns (0: one-shot).
    interval: u64,
    /// Expirations not read yet.
    ticks: u64,
    /// Expirations ever (the wake-up count edge-triggered epoll sees).
    expired_total: u64,
    /// Bumped by every settime: stale wake-up entries are ignored.
    generation: u64,
    /// TFD_TIMER_CANCEL_ON_SET: the CLOCK_SETS value when armed.
    cancel_on_set: Option<u64>,
}

impl State {
    /// Counts the expirations up to `now`.
    fn advance(&mut self, now: u64) {
        let Some(next) = self.next else { return };
        if now < next {
            return;
        }
        let count = if self.interval == 0 { 1 } else { 1 + (now - next) / self.interval };
        self.ticks += count;
        self.expired_total += count;
        self.next = (self.interval != 0).then(|| next + count * self.interval);
    }

    fn cancelled(&self) -> bool {
        self.cancel_on_set.is_some_and(|at| at != CLOCK_SETS.load(Ordering::SeqCst))
    }
}

/// A timerfd.
pub struct TimerFd {
    inner: Arc<Inner>,
}

/// The timer itself, which the wake-up list refers to weakly.
struct Inner {
    realtime: bool,
    state: SpinLock<State>,
    waiters: WaitQueue,
    /// Pollers and epoll entries.
    queue: super::poll_queue::PollQueue,
}

/// Armed timers to wake at their deadlines: (monotonic deadline, timer,
/// generation).
static ARMED: SpinLock<Vec<(u64, Weak<Inner>, u64)>> = SpinLock::new(Vec::new());
/// The earliest deadline in ARMED, so the check costs no lock when none
/// is due.
static EARLIEST: AtomicU64 = AtomicU64::new(u64::MAX);

fn arm_wakeup(deadline: u64, timer: &Arc<Inner>, generation: u64) {
    let mut armed = ARMED.lock();
    armed.push((deadline, Arc::downgrade(timer), generation));
    EARLIEST.fetch_min(deadline, Ordering::AcqRel);
}

/// Wakes the readers and pollers of timers whose deadline passed, and
/// schedules the next wake-up of periodic ones (from the timer check).
pub fn run_expired(now: u64) {
    if now < EARLIEST.load(Ordering::Acquire) {
        return;
    }
    let due: Vec<(Weak<Inner>, u64)> = {
        let mut armed = ARMED.lock();
        let (due, rest): (Vec<_>, Vec<_>) = armed.drain(..).partition(|(d, _, _)| *d <= now);
        *armed = rest;
        EARLIEST.store(armed.iter().map(|(d, _, _)| *d).min().unwrap_or(u64::MAX), Ordering::Release);
        due.into_iter().map(|(_, t, g)| (t, g)).collect()
    };
    for (timer, generation) in due {
        let Some(timer) = timer.upgrade() else { continue };
        let next = {
            let mut state = timer.state.lock();
            if state.generation != generation {
                continue;
            }
            state.advance(now);
            state.next
        };
        if let Some(next) = next {
            arm_wakeup(next, &timer, generation);
        }
        timer.waiters.wake_all();
        timer.queue.notify(linux_raw_sys::general::EPOLLIN);
    }
}

/// A timer setting as the calls exchange it: (time to the next
/// expiration, period), in ns.
pub type Setting = (u64, u64);

impl TimerFd {
    /// Creates a disarmed timer on CLOCK_REALTIME (`realtime`) or the
    /// monotonic clock.
    pub fn new(realtime: bool) -> Arc<TimerFd> {
        let state = State { next: None, interval: 0, ticks: 0, expired_total: 0, generation: 0, cancel_on_set: None };
        Arc::new(TimerFd { inner: Arc::new(Inner { realtime, state: SpinLock::new(state), waiters: WaitQueue::new(), queue: super::poll_queue::PollQueue::new() }) })
    }

    /// Returns the current setting (timerfd_gettime).
    pub fn get(&self) -> Setting {
        let now = time::monotonic_ns();
        let mut state = self.inner.state.lock();
        state.advance(now);
        (state.next.map_or(0, |n| n.saturating_sub(now)), state.interval)
    }

    /// Arms (a `value` of 0 disarms) the timer and returns the old
    /// setting. `absolute`: `value` is a time on the timer's clock;
    /// `cancel_on_set`: a realtime absolute timer ends with ECANCELED when
    /// the clock is set.
    pub fn set(&self, value: u64, interval: u64, absolute: bool, cancel_on_set: bool) -> Setting {
        let old = self.get();
        let now = time::monotonic_ns();
        let deadline = if value == 0 {
            None
        } else if !absolute {
            Some(now.saturating_add(value))
        } else if self.inner.realtime {
            Some(now.saturating_add(value.saturating_sub(time::realtime_ns())))
        } else {
            Some(value)
        };
        let generation = {
            let mut state = self.inner.state.lock();
            state.generation += 1;
            state.next = deadline;
            state.interval = if deadline.is_some() { interval } else { 0 };
            state.ticks = 0;
            state.cancel_on_set = (cancel_on_set && absolute && self.inner.realtime && deadline.is_some()).then(|| CLOCK_SETS.load(Ordering::SeqCst));
            state.generation
        };
        if let Some(deadline) = deadline {
            arm_wakeup(deadline, &self.inner, generation);
        }
        self.inner.queue.notify(0);
        old
    }
}

impl FileOps for TimerFd {
    super::anon::anon_inode_ops!();

    fn read(&self, file: &OpenFile, _offset: u64, buf: &mut [u8]) -> Result<usize> {
        if buf.len() < 8 {
            return Err(Errno::EINVAL);
        }
        let ticks = self.inner.waiters.wait_until(|| {
            let mut state = self.inner.state.lock();
            if state.cancelled() {
                state.cancel_on_set = None;
                state.ticks = 0;
                return Err(Errno::ECANCELED);
            }
            state.advance(time::monotonic_ns());
            if state.ticks == 0 {
                return if file.nonblocking() { Err(Errno::EAGAIN) } else { Ok(None) };
            }
            Ok(Some(core::mem::take(&mut state.ticks)))
        })?;
        buf[..8].copy_from_slice(&ticks.to_le_bytes());
        Ok(8)
    }

    fn write(&self, _file: &OpenFile, _offset: u64, _buf: &[u8]) -> Result<usize> {
        Err(Errno::EINVAL)
    }

    fn poll(&self) -> PollEvents {
        let mut state = self.inner.state.lock();
        state.advance(time::monotonic_ns());
        if state.ticks > 0 || state.cancelled() { POLLIN } else { 0 }
    }

    fn poll_queue(&self) -> Option<&super::poll_queue::PollQueue> {
        Some(&self.inner.queue)
    }

    fn poll_counts(&self) -> (u64, u64) {
        let mut state = self.inner.state.lock();
        state.advance(time::monotonic_ns());
        (state.expired_total, 0)
    }

    fn as_timerfd(&self) -> Option<&TimerFd> {
        Some(self)
    }
}
