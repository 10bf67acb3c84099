//! eventfd: a 64-bit counter as a file. Writes add to it; reads take it
//! whole (or one unit in semaphore mode); each side blocks while it
//! cannot proceed (a zero counter, an addition that would overflow).

use alloc::sync::Arc;

use kevlar_platform::sync::SpinLock;

use super::file::{FileOps, OpenFile, PollEvents, POLLERR, POLLIN, POLLOUT};
use crate::error::{Errno, Result};
use crate::process::wait_queue::WaitQueue;

/// The largest value the counter may hold (one less than u64::MAX, which
/// marks an overflow).
const MAX_COUNT: u64 = u64::MAX - 1;

struct State {
    count: u64,
    /// Wake-ups of readers (writes) and of writers (reads) so far.
    read_events: u64,
    write_events: u64,
}

/// An eventfd counter.
pub struct EventFd {
    state: SpinLock<State>,
    semaphore: bool,
    waiters: WaitQueue,
    /// Pollers and epoll entries.
    queue: super::poll_queue::PollQueue,
}

impl EventFd {
    /// Creates a counter holding `initial`; `semaphore` makes reads take one
    /// unit at a time (EFD_SEMAPHORE).
    pub fn new(initial: u64, semaphore: bool) -> Arc<EventFd> {
        Arc::new(EventFd { state: SpinLock::new(State { count: initial, read_events: 0, write_events: 0 }), semaphore, waiters: WaitQueue::new(), queue: super::poll_queue::PollQueue::new() })
    }

    /// Wakes blocked readers and writers, and the pollers of the side
    /// `events` names.
    fn notify(&self, events: u32) {
        self.waiters.wake_all();
        self.queue.notify(events);
    }

    /// Adds `n` to the counter from inside the kernel, without blocking:
    /// what would overflow is cut at the limit (Linux's eventfd_signal).
    pub fn signal(&self, n: u64) {
        {
            let mut state = self.state.lock();
            state.count += n.min(u64::MAX - state.count);
            state.read_events += 1;
        }
        self.notify(linux_raw_sys::general::EPOLLIN);
    }
}

impl FileOps for EventFd {
    super::anon::anon_inode_ops!();

    fn as_eventfd(&self) -> Option<&EventFd> {
        Some(self)
    }

    fn read(&self, file: &OpenFile, _offset: u64, buf: &mut [u8]) -> Result<usize> {
        if buf.len() < 8 {
            return Err(Errno::EINVAL);
        }
        let value = self.waiters.wait_until(|| {
            let mut state = self.state.lock();
            if state.count == 0 {
                return if file.nonblocking() { Err(Errno::EAGAIN) } else { Ok(None) };
            }
            let taken = if self.semaphore { 1 } else { state.count };
            state.count -= taken;
            state.write_events += 1;
            Ok(Some(taken))
        })?;
        buf[..8].copy_from_slice(&value.to_le_bytes());
        self.notify(linux_raw_sys::general::EPOLLOUT);
        Ok(8)
    }

    fn write(&self, file: &OpenFile, _offset: u64, buf: &[u8]) -> Result<usize> {
        if buf.len() < 8 {
            return Err(Errno::EINVAL);
        }
        let value = u64::from_le_bytes(buf[..8].try_into().unwrap());
        if value == u64::MAX {
            return Err(Errno::EINVAL);
        }
        self.waiters.wait_until(|| {
            let mut state = self.state.lock();
            if MAX_COUNT - state.count < value {
                return if file.nonblocking() { Err(Errno::EAGAIN) } else { Ok(None) };
            }
            state.count += value;
            // Linux wakes readers (an EPOLLIN edge) even for a zero write.
            state.read_events += 1;
            Ok(Some(()))
        })?;
        self.notify(linux_raw_sys::general::EPOLLIN);
        Ok(8)
    }

    fn poll(&self) -> PollEvents {
        let count = self.state.lock().count;
        let mut events = 0;
        if count > 0 {
            events |= POLLIN;
        }
        if count == u64::MAX {
            events |= POLLERR;
        }
        if count < MAX_COUNT {
            events |= POLLOUT;
        }
        events
    }

    fn poll_queue(&self) -> Option<&super::poll_queue::PollQueue> {
        Some(&self.queue)
    }

    fn poll_counts(&self) -> (u64, u64) {
        let state = self.state.lock();
        (state.read_events, state.write_events)
    }
}
