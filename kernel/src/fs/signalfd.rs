//! signalfd: reading pending signals as `struct signalfd_siginfo` records
//! instead of running handlers. The signals are the reading process's
//! (whoever holds the fd), among those in the file's mask; they are
//! usually blocked, so they stay pending until read.

use kevlar_platform::sync::SpinLock;
use linux_raw_sys::general as abi;

use super::file::{FileOps, OpenFile, PollEvents, POLLIN};
use crate::error::{Errno, Result};
use crate::process::signal::{SigInfo, UNBLOCKABLE};
use crate::process::wait_queue::WaitQueue;

/// Size of `struct signalfd_siginfo` (linux/signalfd.h; linux-raw-sys
/// lacks it).
pub const RECORD_SIZE: usize = 128;

/// A signalfd.
pub struct SignalFd {
    mask: SpinLock<u64>,
    /// Records read so far: with the pending set, what edge-triggered
    /// epoll compares (a signal sent again after a read is a new edge).
    reads: core::sync::atomic::AtomicU64,
}

impl SignalFd {
    /// Creates a signalfd for the signals in `mask` (SIGKILL and SIGSTOP
    /// are never read).
    pub fn new(mask: u64) -> alloc::sync::Arc<SignalFd> {
        alloc::sync::Arc::new(SignalFd { mask: SpinLock::new(mask & !UNBLOCKABLE), reads: core::sync::atomic::AtomicU64::new(0) })
    }

    /// Replaces the mask (signalfd on an existing signalfd).
    pub fn set_mask(&self, mask: u64) {
        *self.mask.lock() = mask & !UNBLOCKABLE;
        super::file::notify_pollers();
    }

    fn pending(&self) -> u64 {
        let Some(thread) = crate::process::current() else { return 0 };
        let pending = thread.process.signals.lock().pending(thread.tid());
        pending & *self.mask.lock()
    }

    fn take(&self) -> Option<SigInfo> {
        let thread = crate::process::current()?;
        let mask = *self.mask.lock();
        let info = thread.process.signals.lock().dequeue(thread.tid(), mask);
        if info.is_some() {
            self.reads.fetch_add(1, core::sync::atomic::Ordering::Relaxed);
        }
        info
    }
}

/// Which union member a siginfo carries (Linux's siginfo_layout).
#[derive(PartialEq)]
enum Layout {
    Kill,
    Timer,
    Poll,
    Fault,
    Child,
    Realtime,
    Sys,
}

fn layout(signo: u32, code: i32) -> Layout {
    const SI_TIMER: i32 = -2;
    const SI_SIGIO: i32 = -5;
    if code > 0 && code < abi::SI_KERNEL as i32 {
        // Codes specific to a signal, each up to that signal's count.
        let specific = match signo {
            abi::SIGILL => Some((abi::NSIGILL, Layout::Fault)),
            abi::SIGFPE => Some((abi::NSIGFPE, Layout::Fault)),
            abi::SIGSEGV => Some((abi::NSIGSEGV, Layout::Fault)),
            abi::SIGBUS => Some((abi::NSIGBUS, Layout::Fault)),
            abi::SIGTRAP => Some((abi::NSIGTRAP, Layout::Fault)),
            abi::SIGCHLD => Some((abi::NSIGCHLD, Layout::Child)),
            abi::SIGIO => Some((abi::NSIGPOLL, Layout::Poll)),
            abi::SIGSYS => Some((abi::NSIGSYS, Layout::Sys)),
            _ => None,
        };
        match specific {
            Some((limit, layout)) if code <= limit as i32 => layout,
            _ if code <= abi::NSIGPOLL as i32 => Layout::Poll,
            _ => Layout::Kill,
        }
    } else if code == SI_TIMER {
        Layout::Timer
    } else if code == SI_SIGIO {
        Layout::Poll
    } else if code < 0 {
        Layout::Realtime
    } else {
        Layout::Kill
    }
}

/// Encodes `info` as a `struct signalfd_siginfo`.
fn encode(info: &SigInfo) -> [u8; RECORD_SIZE] {
    let mut out = [0u8; RECORD_SIZE];
    let u = info.union_bytes();
    let mut put = |at: usize, bytes: &[u8]| out[at..at + bytes.len()].copy_from_slice(bytes);
    // Offsets of signalfd_siginfo: signo 0, errno 4, code 8, pid 12,
    // uid 16, fd 20, tid 24, band 28, overrun 32, trapno 36, status 40,
    // int 44, ptr 48, utime 56, stime 64, addr 72, addr_lsb 80,
    // syscall 84, call_addr 88, arch 96.
    put(0, &info.signo.to_le_bytes());
    put(4, &info.errno.to_le_bytes());
    put(8, &info.code.to_le_bytes());
    match layout(info.signo, info.code) {
        Layout::Kill => {
            put(12, &u[0..4]);
            put(16, &u[4..8]);
        }
        Layout::Timer => {
            put(24, &u[0..4]);
            put(32, &u[4..8]);
            put(48, &u[8..16]);
            put(44, &u[8..12]);
        }
        Layout::Poll => {
            put(28, &u[0..4]);
            put(20, &u[8..12]);
        }
        Layout::Fault => put(72, &u[0..8]),
        Layout::Child => {
            put(12, &u[0..4]);
            put(16, &u[4..8]);
            put(40, &u[8..12]);
            put(56, &u[16..24]);
            put(64, &u[24..32]);
        }
        Layout::Realtime => {
            put(12, &u[0..4]);
            put(16, &u[4..8]);
            put(48, &u[8..16]);
            put(44, &u[8..12]);
        }
        Layout::Sys => {
            put(88, &u[0..8]);
            put(84, &u[8..12]);
            put(96, &u[12..16]);
        }
    }
    out
}

impl FileOps for SignalFd {
    super::anon::anon_inode_ops!();

    fn read(&self, file: &OpenFile, _offset: u64, buf: &mut [u8]) -> Result<usize> {
        let count = buf.len() / RECORD_SIZE;
        if count == 0 {
            return Err(Errno::EINVAL);
        }
        // The first record may wait; the others are taken only if there.
        let queue = WaitQueue::new();
        let first = queue.wait_until(|| match self.take() {
            Some(info) => Ok(Some(info)),
            None if file.nonblocking() => Err(Errno::EAGAIN),
            None => Ok(None),
        })?;
        buf[..RECORD_SIZE].copy_from_slice(&encode(&first));
        let mut done = 1;
        while done < count {
            let Some(info) = self.take() else { break };
            buf[done * RECORD_SIZE..(done + 1) * RECORD_SIZE].copy_from_slice(&encode(&info));
            done += 1;
        }
        Ok(done * RECORD_SIZE)
    }

    fn write(&self, _file: &OpenFile, _offset: u64, _buf: &[u8]) -> Result<usize> {
        Err(Errno::EINVAL)
    }

    fn poll(&self) -> PollEvents {
        if self.pending() != 0 { POLLIN } else { 0 }
    }

    fn poll_counts(&self) -> (u64, u64) {
        (self.reads.load(core::sync::atomic::Ordering::Relaxed).rotate_left(40) ^ self.pending(), 0)
    }

    fn as_signalfd(&self) -> Option<&SignalFd> {
        Some(self)
    }
}
