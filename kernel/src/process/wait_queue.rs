//! Wait queues: threads sleep until a condition holds.

use alloc::collections::VecDeque;
use alloc::sync::Arc;

use kevlar_platform::sync::SpinLock;

use super::scheduler::{self, current};
use super::{Thread, ThreadState};
use crate::error::{Errno, Result};

/// Threads waiting for something.
pub struct WaitQueue {
    waiters: SpinLock<VecDeque<Arc<Thread>>>,
}

impl WaitQueue {
    /// Creates an empty queue.
    pub const fn new() -> Self {
        Self { waiters: SpinLock::new(VecDeque::new()) }
    }

    /// Sleeps until `condition` returns `Some`, and returns its value.
    /// Fails with EINTR when a signal is pending (the caller restarts or
    /// returns it). Wake-ups can be spurious: the condition is rechecked.
    pub fn wait_until<T>(&self, mut condition: impl FnMut() -> Result<Option<T>>) -> Result<T> {
        let thread = current().expect("wait_until outside a thread");
        loop {
            // Mark ourselves asleep and visible to wakers *before* checking,
            // so a wake-up between the check and the switch is not lost.
            thread.set_state(ThreadState::Sleeping);
            self.waiters.lock().push_back(thread.clone());
            let outcome = match condition() {
                Ok(Some(value)) => Some(Ok(value)),
                Ok(None) if thread.has_pending_signal() => Some(Err(Errno::EINTR)),
                Ok(None) => None,
                Err(err) => Some(Err(err)),
            };
            if let Some(outcome) = outcome {
                thread.set_state(ThreadState::Runnable);
                self.remove(&thread);
                return outcome;
            }
            scheduler::schedule();
            self.remove(&thread);
        }
    }

    /// Sleeps until `condition` returns `Some`, whatever signals arrive: for
    /// states that only specific events end (a job-control stop ends with
    /// SIGCONT or SIGKILL, which the condition checks itself).
    pub fn wait_until_uninterruptible<T>(&self, mut condition: impl FnMut() -> Option<T>) -> T {
        let thread = current().expect("wait_until_uninterruptible outside a thread");
        loop {
            thread.set_state(ThreadState::Sleeping);
            self.waiters.lock().push_back(thread.clone());
            if let Some(value) = condition() {
                thread.set_state(ThreadState::Runnable);
                self.remove(&thread);
                return value;
            }
            scheduler::schedule();
            self.remove(&thread);
        }
    }

    fn remove(&self, thread: &Arc<Thread>) {
        self.waiters.lock().retain(|t| !Arc::ptr_eq(t, thread));
    }

    /// Wakes the longest-waiting thread only (an exclusive wake-up);
    /// returns whether there was one.
    pub fn wake_one(&self) -> bool {
        let thread = self.waiters.lock().pop_front();
        match thread {
            Some(thread) => {
                thread.wake();
                true
            }
            None => false,
        }
    }

    /// Wakes every waiter.
    pub fn wake_all(&self) {
        let waiters: VecDeque<Arc<Thread>> = core::mem::take(&mut *self.waiters.lock());
        if !waiters.is_empty() {
            log::trace!("wake_all {:p}: {:?}", self, waiters.iter().map(|t| (t.tid(), t.state())).collect::<alloc::vec::Vec<_>>());
        }
        for thread in waiters {
            thread.wake();
        }
    }
}

impl Default for WaitQueue {
    fn default() -> Self {
        Self::new()
    }
}
