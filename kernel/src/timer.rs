//! Sleeping until a time: the timer list, checked from process context (the
//! idle loop and every return to user mode) because interrupt handlers take
//! no sleeping locks. Resolution is the tick (10 ms).

use alloc::sync::Arc;
use alloc::vec::Vec;

use kevlar_platform::sync::SpinLock;
use kevlar_platform::time;

use crate::error::Result;
use crate::process::wait_queue::WaitQueue;
use crate::process::Thread;

static TIMERS: SpinLock<Vec<(u64, Arc<Thread>)>> = SpinLock::new(Vec::new());
static SLEEPERS: WaitQueue = WaitQueue::new();

/// Wakes threads whose deadline passed (and console readers with input).
pub fn run_expired() {
    if kevlar_platform::arch::serial::take_input_notification() {
        crate::fs::devices::CONSOLE_INPUT.wake_all();
        crate::fs::file::notify_pollers();
    }
    let now = time::monotonic_ns();
    let expired: Vec<Arc<Thread>> = {
        let mut timers = TIMERS.lock();
        if timers.is_empty() || timers.iter().all(|(d, _)| *d > now) {
            return;
        }
        let (due, rest): (Vec<_>, Vec<_>) = timers.drain(..).partition(|(d, _)| *d <= now);
        *timers = rest;
        due.into_iter().map(|(_, t)| t).collect()
    };
    for thread in expired {
        thread.wake();
    }
}

/// Wakes `thread` at `deadline_ns` (a timeout for any wait).
pub fn arm(deadline_ns: u64, thread: Arc<Thread>) {
    TIMERS.lock().push((deadline_ns, thread));
}

/// Cancels the timeouts of `thread`.
pub fn disarm(thread: &Arc<Thread>) {
    TIMERS.lock().retain(|(_, t)| !Arc::ptr_eq(t, thread));
}

/// Sleeps until the monotonic clock reaches `deadline_ns`. Returns EINTR if
/// a signal arrives first.
pub fn sleep_until(deadline_ns: u64) -> Result<()> {
    let thread = crate::process::current().expect("sleep outside a thread");
    TIMERS.lock().push((deadline_ns, thread.clone()));
    let result = SLEEPERS.wait_until(|| Ok((time::monotonic_ns() >= deadline_ns).then_some(())));
    TIMERS.lock().retain(|(_, t)| !Arc::ptr_eq(t, &thread));
    result
}

/// Returns the thread's sleepers queue (woken by `run_expired`).
pub fn wake_sleepers() {
    SLEEPERS.wake_all();
}
