//! An inotify instance: its watch descriptors and its queue of events, as
//! an open file (read, poll, FIONREAD).

use alloc::collections::{BTreeMap, VecDeque};
use alloc::vec::Vec;
use core::sync::atomic::{AtomicU32, Ordering};

use kevlar_platform::sync::SpinLock;
use linux_raw_sys::general as abi;

use crate::error::{Errno, Result};
use crate::fs::file::{FileOps, OpenFile, PollEvents, POLLIN};
use crate::process::wait_queue::WaitQueue;

/// Bytes of `struct inotify_event` before the name.
pub const EVENT_HEADER: usize = core::mem::size_of::<abi::inotify_event>();

/// /proc/sys/fs/inotify/max_queued_events: the queue length of instances
/// made from now on.
pub static MAX_QUEUED_EVENTS: AtomicU32 = AtomicU32::new(16384);
/// /proc/sys/fs/inotify/max_user_instances.
pub static MAX_USER_INSTANCES: AtomicU32 = AtomicU32::new(128);
/// /proc/sys/fs/inotify/max_user_watches (Linux's floor; its formula gives
/// it for 512 MiB of RAM).
pub static MAX_USER_WATCHES: AtomicU32 = AtomicU32::new(8192);

/// One queued event.
#[derive(Clone, PartialEq, Eq)]
pub struct Event {
    pub wd: i32,
    pub mask: u32,
    pub cookie: u32,
    pub name: Vec<u8>,
}

impl Event {
    /// The name's length in the record: NUL-terminated and padded to a
    /// multiple of the header size, 0 without a name.
    fn name_len(&self) -> usize {
        if self.name.is_empty() { 0 } else { (self.name.len() + 1).next_multiple_of(EVENT_HEADER) }
    }

    fn size(&self) -> usize {
        EVENT_HEADER + self.name_len()
    }

    fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.wd.to_le_bytes());
        out.extend_from_slice(&self.mask.to_le_bytes());
        out.extend_from_slice(&self.cookie.to_le_bytes());
        out.extend_from_slice(&(self.name_len() as u32).to_le_bytes());
        let start = out.len();
        out.extend_from_slice(&self.name);
        out.resize(start + self.name_len(), 0);
    }
}

pub(super) struct State {
    queue: VecDeque<Event>,
    bytes: usize,
    /// The Q_OVERFLOW event is in the queue (events are dropped until it
    /// is read).
    overflow_queued: bool,
    /// The last watch descriptor handed out (they grow, as Linux's cyclic
    /// allocator).
    last_wd: i32,
    /// Watch descriptor -> the watched inode's (fs id, inode number).
    pub(super) wds: BTreeMap<i32, (u64, u64)>,
    /// Events queued so far (edge-triggered epoll).
    queued: u64,
}

/// An inotify instance.
pub struct Inotify {
    pub(super) state: SpinLock<State>,
    waiters: WaitQueue,
    max_events: usize,
    /// The real uid that made it (the per-user limits).
    pub(super) uid: u32,
}

impl Inotify {
    pub(super) fn new(uid: u32) -> Inotify {
        Inotify {
            state: SpinLock::new(State { queue: VecDeque::new(), bytes: 0, overflow_queued: false, last_wd: 0, wds: BTreeMap::new(), queued: 0 }),
            waiters: WaitQueue::new(),
            max_events: MAX_QUEUED_EVENTS.load(Ordering::Relaxed) as usize,
            uid,
        }
    }

    /// The next watch descriptor.
    pub(super) fn alloc_wd(state: &mut State) -> i32 {
        loop {
            state.last_wd = if state.last_wd == i32::MAX { 1 } else { state.last_wd + 1 };
            if !state.wds.contains_key(&state.last_wd) {
                return state.last_wd;
            }
        }
    }

    /// Queues an event: merged into the last one when identical, dropped
    /// (after one IN_Q_OVERFLOW) when the queue is full.
    pub(super) fn queue(&self, event: Event) {
        {
            let mut state = self.state.lock();
            if state.queue.len() >= self.max_events {
                if state.overflow_queued {
                    return;
                }
                state.overflow_queued = true;
                let overflow = Event { wd: -1, mask: abi::IN_Q_OVERFLOW, cookie: 0, name: Vec::new() };
                state.bytes += overflow.size();
                state.queue.push_back(overflow);
            } else {
                if event.mask & abi::IN_IGNORED == 0 && state.queue.back() == Some(&event) {
                    return;
                }
                state.bytes += event.size();
                state.queue.push_back(event);
            }
            state.queued += 1;
        }
        self.waiters.wake_all();
        crate::fs::file::notify_pollers();
    }
}

impl FileOps for Inotify {
    // An anonymous inode like the event files, but a read returns what is
    // queued and never loops for more (not a "fixed position" file that
    // fills the buffer); lseek is Linux's noop_llseek.
    fn stat(&self) -> Result<kevlar_vfs::Stat> {
        Ok(crate::fs::anon::anon_stat())
    }

    fn is_seekable(&self) -> bool {
        false
    }

    fn seek(&self, _file: &OpenFile, _offset: i64, _whence: u32) -> Option<Result<u64>> {
        Some(Ok(0))
    }

    fn is_pollable(&self) -> bool {
        true
    }

    fn read(&self, file: &OpenFile, _offset: u64, buf: &mut [u8]) -> Result<usize> {
        let out = self.waiters.wait_until(|| {
            let mut state = self.state.lock();
            if state.queue.is_empty() {
                return if file.nonblocking() { Err(Errno::EAGAIN) } else { Ok(None) };
            }
            let mut out = Vec::new();
            while let Some(event) = state.queue.front() {
                if out.len() + event.size() > buf.len() {
                    if out.is_empty() {
                        return Err(Errno::EINVAL);
                    }
                    break;
                }
                let event = state.queue.pop_front().unwrap();
                state.bytes -= event.size();
                if event.mask == abi::IN_Q_OVERFLOW && event.wd == -1 {
                    state.overflow_queued = false;
                }
                event.encode(&mut out);
            }
            Ok(Some(out))
        })?;
        buf[..out.len()].copy_from_slice(&out);
        Ok(out.len())
    }

    fn write(&self, _file: &OpenFile, _offset: u64, _buf: &[u8]) -> Result<usize> {
        Err(Errno::EINVAL)
    }

    fn poll(&self) -> PollEvents {
        // Linux's inotify_poll reports EPOLLIN alone.
        if self.state.lock().queue.is_empty() { 0 } else { POLLIN }
    }

    fn poll_counts(&self) -> (u64, u64) {
        (self.state.lock().queued, 0)
    }

    fn ioctl(&self, _file: &OpenFile, request: u32, arg: usize) -> Result<isize> {
        if request == linux_raw_sys::ioctl::FIONREAD {
            let bytes = self.state.lock().bytes as i32;
            crate::uaccess::copy_to_user(arg, &bytes.to_le_bytes())?;
            return Ok(0);
        }
        Err(Errno::ENOTTY)
    }

    fn release(&self, _file: &OpenFile) {
        super::instance_closed(self);
    }

    fn as_inotify(&self) -> Option<&Inotify> {
        Some(self)
    }
}
