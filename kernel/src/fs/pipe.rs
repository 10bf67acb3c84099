//! Pipes and FIFOs: a bounded byte queue with Linux's semantics (atomic
//! writes up to PIPE_BUF, EPIPE with SIGPIPE when no reader is left, end of
//! file when no writer is left, O_NONBLOCK).

use alloc::collections::{BTreeMap, VecDeque};
use alloc::sync::Arc;

use kevlar_platform::sync::SpinLock;
use kevlar_vfs::{FileType, Stat};

use super::file::{FileOps, OpenFile, PollEvents, POLLERR, POLLHUP, POLLIN, POLLOUT, POLLRDNORM, POLLWRNORM};
use crate::error::{Errno, Result};
use super::poll_queue::PollQueue;
use crate::process::wait_queue::WaitQueue;
use linux_raw_sys::general as abi;

/// Writes up to this size are atomic.
pub const PIPE_BUF: usize = 4096;
/// Default capacity (16 pages, as Linux).
pub const DEFAULT_CAPACITY: usize = 65536;
/// Pages of a pipe made by a user over the soft limit (PIPE_MIN_DEF_BUFFERS).
const MIN_DEF_PAGES: usize = 2;
const PAGE: usize = 4096;

/// Pipe pages accounted to each user (real uid), as Linux's
/// user_struct.pipe_bufs.
static USER_PAGES: SpinLock<BTreeMap<u32, usize>> = SpinLock::new(BTreeMap::new());

/// Moves `uid`'s account from `old` to `new` pages; returns the new total.
fn account(uid: u32, old: usize, new: usize) -> usize {
    let mut users = USER_PAGES.lock();
    let pages = users.entry(uid).or_insert(0);
    *pages = (*pages + new).saturating_sub(old);
    let total = *pages;
    if total == 0 {
        users.remove(&uid);
    }
    total
}

/// The current user's real uid, and whether it is exempt from the limit
/// (CAP_SYS_RESOURCE or CAP_SYS_ADMIN, Linux's pipe_is_unprivileged_user).
fn current_user() -> (u32, bool) {
    match crate::process::current() {
        Some(t) => {
            let creds = t.process.creds.lock();
            let privileged = creds.has_cap(linux_raw_sys::general::CAP_SYS_RESOURCE)
                || creds.has_cap(linux_raw_sys::general::CAP_SYS_ADMIN);
            (creds.uid, privileged)
        }
        None => (0, true),
    }
}

/// Whether the calling process has capability `cap`.
fn current_has_cap(cap: u32) -> bool {
    crate::process::current().is_none_or(|t| t.process.creds.lock().has_cap(cap))
}

struct State {
    data: VecDeque<u8>,
    capacity: usize,
    /// Pages accounted to the pipe's user (its capacity, in pages).
    accounted: usize,
    readers: usize,
    writers: usize,
    /// Opens of each side so far (FIFO opens wait for the other's count to
    /// move).
    reader_opens: u64,
    writer_opens: u64,
    /// Wake-ups of readers and of writers so far (edge-triggered epoll):
    /// every write, as Linux wakes epoll readers on each write; reads that
    /// make room in a pipe that had too little; opens and closes.
    read_events: u64,
    write_events: u64,
}

/// The shared part of a pipe.
pub struct Pipe {
    state: SpinLock<State>,
    /// Readers and writers sleep here.
    pub waiters: WaitQueue,
    /// Pollers and epoll entries of both ends register here.
    queue: PollQueue,
    ino: u64,
    /// The user the pipe's pages are accounted to (its creator).
    user: u32,
    /// The FIFO inode this pipe serves, held while any end is open (as
    /// Linux's open files hold their inode): an unlinked FIFO is freed at
    /// its last close.
    fifo: SpinLock<Option<Arc<dyn kevlar_vfs::Inode>>>,
}

impl Drop for Pipe {
    fn drop(&mut self) {
        account(self.user, self.state.lock().accounted, 0);
    }
}

static NEXT_PIPE_INO: core::sync::atomic::AtomicU64 = core::sync::atomic::AtomicU64::new(1);

impl Pipe {
    /// Creates a pipe with no ends open yet.
    /// Its pages are accounted to the calling user; one over
    /// pipe-user-pages-soft gets a pipe of two pages (Linux's
    /// alloc_pipe_info).
    pub fn new() -> Arc<Pipe> {
        Self::make().0
    }

    /// Creates a pipe as [`Pipe::new`] does, failing with ENFILE when its
    /// pages put an unprivileged user over /proc/sys/fs/pipe-user-pages-hard
    /// (Linux's alloc_pipe_info, which pipe(2) reports so).
    pub fn try_new() -> Result<Arc<Pipe>> {
        match Self::make() {
            (_, true) => Err(Errno::ENFILE),
            (pipe, false) => Ok(pipe),
        }
    }

    /// The pipe, and whether it is over the hard limit (then not kept
    /// accounted: it is dropped at once).
    fn make() -> (Arc<Pipe>, bool) {
        let (user, privileged) = current_user();
        let mut pages = DEFAULT_CAPACITY / PAGE;
        let mut total = account(user, 0, pages);
        if crate::fs::sysctl::too_many_pipe_pages(total).1 && !privileged {
            total = account(user, pages, MIN_DEF_PAGES);
            pages = MIN_DEF_PAGES;
        }
        let over_hard = crate::fs::sysctl::too_many_pipe_pages(total).0 && !privileged;
        let pipe = Arc::new(Pipe {
            state: SpinLock::new(State { data: VecDeque::new(), capacity: pages * PAGE, accounted: pages, readers: 0, writers: 0, reader_opens: 0, writer_opens: 0, read_events: 0, write_events: 0 }),
            waiters: WaitQueue::new(),
            queue: PollQueue::new(),
            ino: NEXT_PIPE_INO.fetch_add(1, core::sync::atomic::Ordering::Relaxed),
            user,
            fifo: SpinLock::new(None),
        });
        (pipe, over_hard)
    }

    /// Creates the pipe behind FIFO `node`, which it holds until its
    /// last end closes.
    pub fn for_fifo(node: Arc<dyn kevlar_vfs::Inode>) -> Arc<Pipe> {
        let pipe = Pipe::new();
        *pipe.fifo.lock() = Some(node);
        pipe
    }

    /// Tells whether this is the pipe behind FIFO `node`.
    pub fn serves(&self, node: &dyn kevlar_vfs::Inode) -> bool {
        self.fifo.lock().as_ref().is_some_and(|n| kevlar_vfs::same_inode(&**n, node))
    }

    /// Returns an end: the read side or the write side.
    pub fn open_end(self: &Arc<Self>, write: bool) -> Arc<PipeEnd> {
        self.open_end_observing(write).0
    }

    /// Opens an end and returns, read atomically with the open, whether
    /// the other side is open now and how often it has been opened: a FIFO
    /// opener waits only if no peer is open at that instant, and then
    /// until the peer's open count moves.
    pub fn open_end_observing(self: &Arc<Self>, write: bool) -> (Arc<PipeEnd>, bool, u64) {
        let (peer_present, peer_opens) = {
            let mut state = self.state.lock();
            state.read_events += 1;
            state.write_events += 1;
            if write {
                state.writers += 1;
                state.writer_opens += 1;
                (state.readers > 0, state.reader_opens)
            } else {
                state.readers += 1;
                state.reader_opens += 1;
                (state.writers > 0, state.writer_opens)
            }
        };
        self.waiters.wake_all();
        self.queue.notify(0);
        (Arc::new(PipeEnd { pipe: self.clone(), write, read: !write }), peer_present, peer_opens)
    }

    /// Returns an end that reads and writes (a FIFO opened O_RDWR).
    pub fn open_both(self: &Arc<Self>) -> Arc<PipeEnd> {
        {
            let mut state = self.state.lock();
            state.readers += 1;
            state.writers += 1;
            state.reader_opens += 1;
            state.writer_opens += 1;
            state.read_events += 1;
            state.write_events += 1;
        }
        self.waiters.wake_all();
        self.queue.notify(0);
        Arc::new(PipeEnd { pipe: self.clone(), write: true, read: true })
    }

    /// Returns whether a reader (or a writer) is connected.
    pub fn has_peer(&self, want_writer: bool) -> bool {
        let state = self.state.lock();
        if want_writer { state.writers > 0 } else { state.readers > 0 }
    }

    /// Returns how many times the write side (or the read side) was opened.
    pub fn open_count(&self, writers: bool) -> u64 {
        let state = self.state.lock();
        if writers { state.writer_opens } else { state.reader_opens }
    }

    /// Returns the pipe's inode number (`pipe:[INO]` in /proc/PID/fd).
    pub fn ino(&self) -> u64 {
        self.ino
    }

    /// Returns the heap bytes the pipe's buffer holds (what the OOM killer
    /// charges to the processes that have it open).
    pub fn held_bytes(&self) -> usize {
        self.state.lock().data.capacity()
    }

    /// Returns the capacity (F_GETPIPE_SZ).
    pub fn capacity(&self) -> usize {
        self.state.lock().capacity
    }

    /// Changes the capacity (F_SETPIPE_SZ): rounded up to a power of two
    /// pages, at least the data held.
    pub fn set_capacity(&self, size: usize) -> Result<usize> {
        let size = crate::fs::sysctl::round_pipe_size(size as u64) as usize;
        if size == 0 {
            return Err(Errno::EINVAL);
        }
        let pages = size / PAGE;
        let (_, privileged) = current_user();
        let mut state = self.state.lock();
        // Growing past pipe-max-size needs CAP_SYS_RESOURCE (EPERM).
        if size > state.capacity && size > crate::fs::sysctl::pipe_max_size() && !current_has_cap(linux_raw_sys::general::CAP_SYS_RESOURCE) {
            return Err(Errno::EPERM);
        }
        // Growing past what is accounted needs the user to be under
        // pipe-user-pages-hard and -soft afterwards, unless privileged
        // (EPERM).
        let total = account(self.user, state.accounted, pages);
        let (hard, soft) = crate::fs::sysctl::too_many_pipe_pages(total);
        if pages > state.accounted && (hard || soft) && !privileged {
            account(self.user, pages, state.accounted);
            return Err(Errno::EPERM);
        }
        if size < state.data.len() {
            account(self.user, pages, state.accounted);
            return Err(Errno::EBUSY);
        }
        state.capacity = size;
        state.accounted = pages;
        Ok(size)
    }
}

/// One end of a pipe, as an open file.
pub struct PipeEnd {
    pipe: Arc<Pipe>,
    write: bool,
    read: bool,
}

impl FileOps for PipeEnd {
    fn read(&self, file: &OpenFile, _offset: u64, buf: &mut [u8]) -> Result<usize> {
        if !self.read {
            return Err(Errno::EBADF);
        }
        if buf.is_empty() {
            return Ok(0);
        }
        let n = self.pipe.waiters.wait_until(|| {
            let mut state = self.pipe.state.lock();
            if state.data.is_empty() {
                if state.writers == 0 {
                    return Ok(Some((0, false)));
                }
                if file.nonblocking() {
                    return Err(Errno::EAGAIN);
                }
                return Ok(None);
            }
            let n = buf.len().min(state.data.len());
            // Writers hear of it only when there was too little room.
            let was_full = state.capacity - state.data.len() < PIPE_BUF.min(state.capacity);
            if was_full {
                state.write_events += 1;
            }
            for (dst, src) in buf.iter_mut().zip(state.data.drain(..n)) {
                *dst = src;
            }
            Ok(Some((n, was_full)))
        })?;
        let (n, was_full) = n;
        self.pipe.waiters.wake_all();
        if was_full {
            self.pipe.queue.notify(abi::EPOLLOUT | abi::EPOLLWRNORM);
        }
        Ok(n)
    }

    fn write(&self, file: &OpenFile, _offset: u64, buf: &[u8]) -> Result<usize> {
        if !self.write {
            return Err(Errno::EBADF);
        }
        let mut written = 0;
        while written < buf.len() || buf.is_empty() {
            let rest = &buf[written..];
            let result = self.pipe.waiters.wait_until(|| {
                let mut state = self.pipe.state.lock();
                if state.readers == 0 {
                    return Err(Errno::EPIPE);
                }
                let room = state.capacity - state.data.len();
                // Up to PIPE_BUF bytes go in one piece or not at all.
                let needed = if rest.len() <= PIPE_BUF { rest.len() } else { 1 };
                if room < needed.max(1) && !rest.is_empty() {
                    if file.nonblocking() {
                        return Err(Errno::EAGAIN);
                    }
                    return Ok(None);
                }
                let n = rest.len().min(room);
                // Pipe data is heap memory a user chooses the size of.
                crate::mm::kbuf::reserve_deque(&mut state.data, n)?;
                state.data.extend(&rest[..n]);
                state.read_events += 1;
                Ok(Some(n))
            });
            match result {
                Ok(n) => {
                    written += n;
                    self.pipe.waiters.wake_all();
                    self.pipe.queue.notify(abi::EPOLLIN | abi::EPOLLRDNORM);
                    if buf.is_empty() {
                        break;
                    }
                }
                Err(Errno::EPIPE) => {
                    if let Some(thread) = crate::process::current() {
                        crate::process::signal::send_signal_to_current(&thread, crate::process::signal::SIGPIPE);
                    }
                    return Err(Errno::EPIPE);
                }
                Err(err) if written > 0 && matches!(err, Errno::EAGAIN | Errno::EINTR | Errno::ENOMEM) => return Ok(written),
                Err(err) => return Err(err),
            }
        }
        Ok(written)
    }

    fn stat(&self) -> Result<Stat> {
        Ok(super::anon::pseudo_stat(0x0c, self.pipe.ino, FileType::Fifo.mode_bits() | 0o600, 0, 0))
    }

    fn is_seekable(&self) -> bool {
        false
    }

    fn poll(&self) -> PollEvents {
        let state = self.pipe.state.lock();
        let mut events = 0;
        if self.write {
            if state.readers == 0 {
                events |= POLLERR | POLLOUT;
            } else if state.capacity - state.data.len() >= PIPE_BUF.min(state.capacity) {
                events |= POLLOUT | POLLWRNORM;
            }
        }
        if self.read {
            if !state.data.is_empty() {
                events |= POLLIN | POLLRDNORM;
            }
            if state.writers == 0 {
                events |= POLLHUP;
            }
        }
        events
    }

    fn release(&self, _file: &OpenFile) {
        {
            let mut state = self.pipe.state.lock();
            state.read_events += 1;
            state.write_events += 1;
            if self.write {
                state.writers -= 1;
            }
            if self.read {
                state.readers -= 1;
            }
        }
        self.pipe.waiters.wake_all();
        self.pipe.queue.notify(0);
    }


    fn pipe(&self) -> Option<Arc<Pipe>> {
        Some(self.pipe.clone())
    }

    fn is_pollable(&self) -> bool {
        true
    }

    fn poll_queue(&self) -> Option<&PollQueue> {
        Some(&self.pipe.queue)
    }

    fn poll_counts(&self) -> (u64, u64) {
        let state = self.pipe.state.lock();
        (state.read_events, state.write_events)
    }

    fn ioctl(&self, _file: &OpenFile, request: u32, arg: usize) -> Result<isize> {
        if request == linux_raw_sys::ioctl::FIONREAD {
            let queued = self.pipe.state.lock().data.len() as i32;
            crate::uaccess::copy_to_user(arg, &queued.to_le_bytes())?;
            return Ok(0);
        }
        Err(Errno::ENOTTY)
    }
}

// --- splice, tee and vmsplice -------------------------------------------------

impl Pipe {
    /// Waits until the pipe holds data (Ok(true)) or is empty with no
    /// writer left (Ok(false), end of file); EAGAIN instead of waiting when
    /// `nonblock` (Linux's ipipe_prep and splice_from_pipe_next).
    pub fn wait_readable(&self, nonblock: bool) -> Result<bool> {
        self.waiters.wait_until(|| {
            let state = self.state.lock();
            if !state.data.is_empty() {
                return Ok(Some(true));
            }
            if state.writers == 0 {
                return Ok(Some(false));
            }
            if nonblock {
                return Err(Errno::EAGAIN);
            }
            Ok(None)
        })
    }

    /// Waits until the pipe has room; EPIPE (with SIGPIPE) when no reader
    /// is left, EAGAIN instead of waiting when `nonblock` (Linux's
    /// wait_for_space and opipe_prep).
    pub fn wait_writable(&self, nonblock: bool) -> Result<()> {
        let result = self.waiters.wait_until(|| {
            let state = self.state.lock();
            if state.readers == 0 {
                return Err(Errno::EPIPE);
            }
            if state.data.len() < state.capacity {
                return Ok(Some(()));
            }
            if nonblock {
                return Err(Errno::EAGAIN);
            }
            Ok(None)
        });
        if result == Err(Errno::EPIPE) {
            raise_sigpipe();
        }
        result
    }

    /// Free bytes now.
    pub fn room(&self) -> usize {
        let state = self.state.lock();
        state.capacity - state.data.len()
    }

    /// Appends as much of `bytes` as fits now, without waiting; returns the
    /// count (EPIPE with SIGPIPE when no reader is left).
    pub fn push(&self, bytes: &[u8]) -> Result<usize> {
        let n = {
            let mut state = self.state.lock();
            if state.readers == 0 {
                drop(state);
                raise_sigpipe();
                return Err(Errno::EPIPE);
            }
            let n = bytes.len().min(state.capacity - state.data.len());
            state.data.extend(&bytes[..n]);
            if n > 0 {
                state.read_events += 1;
            }
            n
        };
        if n > 0 {
            self.waiters.wake_all();
            super::file::notify_pollers();
        }
        Ok(n)
    }

    /// Puts back at the front bytes a reader took but could not copy to
    /// its buffer: Linux's pipe_read leaves a buffer it fails to copy in
    /// the pipe, and the call is EFAULT. (A reader that came in between
    /// has taken later bytes first; none is lost or doubled.)
    pub fn unread(&self, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        {
            let mut state = self.state.lock();
            let rest = core::mem::take(&mut state.data);
            state.data.extend(bytes);
            state.data.extend(rest);
            state.read_events += 1;
        }
        self.waiters.wake_all();
        super::file::notify_pollers();
    }

    /// Copies up to `max` bytes from the front without consuming them.
    pub fn peek(&self, max: usize) -> alloc::vec::Vec<u8> {
        let state = self.state.lock();
        let n = max.min(state.data.len());
        state.data.iter().take(n).copied().collect()
    }

    /// Drops `n` bytes from the front (after a peek whose bytes went
    /// elsewhere).
    pub fn consume(&self, n: usize) {
        {
            let mut state = self.state.lock();
            let n = n.min(state.data.len());
            if n > 0 && state.capacity - state.data.len() < PIPE_BUF.min(state.capacity) {
                state.write_events += 1;
            }
            state.data.drain(..n);
        }
        self.waiters.wake_all();
        super::file::notify_pollers();
    }

    /// Moves (or, for tee, copies) up to `len` bytes from this pipe into
    /// `to` with both locked, so no other reader or writer comes between;
    /// returns the count (EPIPE with SIGPIPE when `to` has no reader).
    pub fn transfer(&self, to: &Pipe, len: usize, consume: bool) -> Result<usize> {
        let n = {
            // Lock in address order: two CPUs moving between the same pair
            // of pipes in opposite directions must not wait on each other.
            let from_first = (self as *const Pipe as usize) < (to as *const Pipe as usize);
            let (mut a, mut b) = if from_first {
                let a = self.state.lock();
                (a, to.state.lock())
            } else {
                let b = to.state.lock();
                (self.state.lock(), b)
            };
            if b.readers == 0 {
                drop(a);
                drop(b);
                raise_sigpipe();
                return Err(Errno::EPIPE);
            }
            let n = len.min(a.data.len()).min(b.capacity - b.data.len());
            if consume {
                if n > 0 && a.capacity - a.data.len() < PIPE_BUF.min(a.capacity) {
                    a.write_events += 1;
                }
                b.data.extend(a.data.drain(..n));
            } else {
                b.data.extend(a.data.iter().take(n));
            }
            if n > 0 {
                b.read_events += 1;
            }
            n
        };
        if n > 0 {
            self.waiters.wake_all();
            to.waiters.wake_all();
            super::file::notify_pollers();
        }
        Ok(n)
    }
}

fn raise_sigpipe() {
    if let Some(thread) = crate::process::current() {
        crate::process::signal::send_signal_to_current(&thread, crate::process::signal::SIGPIPE);
    }
}
