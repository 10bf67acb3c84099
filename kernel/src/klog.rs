//! The kernel log: every kernel message (log records and console lines)
//! kept in a ring (`kevlar_klog`), read through syslog(2) (`dmesg`) and
//! `/dev/kmsg`, as Linux's printk buffer.
//!
//! Messages arrive from any context, interrupt handlers included, so the
//! ring is a fixed array behind an interrupt-disabling lock and recording
//! never allocates; readers are woken later, from process context.

use alloc::sync::Arc;
use alloc::vec::Vec;
use core::fmt::{self, Write};

use kevlar_klog::{format_kmsg, format_syslog, newest_that_fit, parse_kmsg_write, LogRing, MAX_TEXT};
use kevlar_platform::sync::IrqSpinLock;
use kevlar_vfs::Stat;

use crate::error::{Errno, Result};
use crate::fs::file::{FileOps, OpenFile, PollEvents, POLLIN};
use crate::process::wait_queue::WaitQueue;

/// Bytes of record storage (Linux's default `log_buf_len` on x86_64 is
/// 128 KiB or more).
pub const LOG_BUF_LEN: usize = 128 * 1024;

static RING: IrqSpinLock<LogRing<LOG_BUF_LEN>> = IrqSpinLock::new(LogRing::new());

/// console_loglevel before SYSLOG_ACTION_CONSOLE_OFF.
static SAVED_CONSOLE_LEVEL: kevlar_platform::sync::SpinLock<Option<log::LevelFilter>> = kevlar_platform::sync::SpinLock::new(None);

/// Woken when a record arrives (blocking syslog reads and /dev/kmsg).
static READERS: WaitQueue = WaitQueue::new();

/// Collects formatted text into a fixed buffer, cutting what does not fit.
struct TextBuffer {
    bytes: [u8; MAX_TEXT],
    len: usize,
}

impl Write for TextBuffer {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let n = s.len().min(MAX_TEXT - self.len);
        self.bytes[self.len..self.len + n].copy_from_slice(&s.as_bytes()[..n]);
        self.len += n;
        Ok(())
    }
}

/// Records one kernel message (the platform's message sink).
fn record_message(level: u8, ns: u64, args: fmt::Arguments<'_>) {
    let mut text = TextBuffer { bytes: [0; MAX_TEXT], len: 0 };
    let _ = text.write_fmt(args);
    RING.lock().push(level & 7, ns, &text.bytes[..text.len]);
    // Messages come from anywhere, the scheduler's locked sections and
    // interrupt handlers included, where waking a thread could deadlock:
    // readers are woken from process context instead.
    NEW_RECORDS.store(true, core::sync::atomic::Ordering::Release);
    crate::timer::request_housekeeping();
}

/// Set when a message arrived and readers have not been woken yet.
static NEW_RECORDS: core::sync::atomic::AtomicBool = core::sync::atomic::AtomicBool::new(false);

/// Wakes readers waiting for messages if any arrived; called from process
/// context with no lock held (the timer module's housekeeping, on the way
/// to user mode and in the idle loop).
pub fn wake_readers() {
    if NEW_RECORDS.swap(false, core::sync::atomic::Ordering::AcqRel) {
        READERS.wake_all();
        crate::fs::file::notify_pollers();
    }
}

/// Starts recording kernel messages; call before anything is printed.
pub fn init() {
    kevlar_platform::console::set_message_sink(record_message);
}

// The SYSLOG_ACTION_* commands (include/linux/syslog.h, not part of the
// user-space headers linux-raw-sys is made from).
const SYSLOG_ACTION_CLOSE: i32 = 0;
const SYSLOG_ACTION_OPEN: i32 = 1;
const SYSLOG_ACTION_READ: i32 = 2;
const SYSLOG_ACTION_READ_ALL: i32 = 3;
const SYSLOG_ACTION_READ_CLEAR: i32 = 4;
const SYSLOG_ACTION_CLEAR: i32 = 5;
const SYSLOG_ACTION_CONSOLE_OFF: i32 = 6;
const SYSLOG_ACTION_CONSOLE_ON: i32 = 7;
const SYSLOG_ACTION_CONSOLE_LEVEL: i32 = 8;
const SYSLOG_ACTION_SIZE_UNREAD: i32 = 9;
const SYSLOG_ACTION_SIZE_BUFFER: i32 = 10;

/// console_loglevel N prints messages of level below N; the log crate's
/// filters are the nearest match.
fn console_filter(level: i32) -> log::LevelFilter {
    match level {
        ..=3 => log::LevelFilter::Off,
        4 => log::LevelFilter::Error,
        5..=6 => log::LevelFilter::Warn,
        7 => log::LevelFilter::Info,
        _ => log::LevelFilter::Trace,
    }
}

/// syslog(2): reads or clears the kernel log, or sets the console level.
/// `copy_out(bytes)` copies the text to the caller's buffer.
pub fn syslog(is_root: bool, action: i32, has_buffer: bool, len: i32, copy_out: &mut dyn FnMut(&[u8]) -> Result<()>, interrupted: &dyn Fn() -> bool) -> Result<isize> {
    // Debian builds Linux with dmesg_restrict on: every action takes
    // CAP_SYSLOG, checked before the action itself.
    if !is_root {
        return Err(Errno::EPERM);
    }
    if action == SYSLOG_ACTION_CLOSE || action == SYSLOG_ACTION_OPEN {
        return Ok(0);
    }
    if !(SYSLOG_ACTION_READ..=SYSLOG_ACTION_SIZE_BUFFER).contains(&action) {
        return Err(Errno::EINVAL);
    }
    if matches!(action, SYSLOG_ACTION_READ | SYSLOG_ACTION_READ_ALL | SYSLOG_ACTION_READ_CLEAR) && (!has_buffer || len < 0) {
        return Err(Errno::EINVAL);
    }
    match action {
        SYSLOG_ACTION_READ => {
            if len < 0 {
                return Err(Errno::EINVAL);
            }
            if len == 0 {
                return Ok(0);
            }
            READERS.wait_until(|| {
                if interrupted() {
                    return Err(Errno::EINTR);
                }
                let ring = RING.lock();
                Ok((ring.read_seq < ring.next_seq()).then_some(()))
            })?;
            let mut out = Vec::new();
            let mut consumed = 0;
            let records = {
                let ring = RING.lock();
                ring.records_from(ring.read_seq)
            };
            for record in &records {
                let mut text = Vec::new();
                format_syslog(record, &mut text);
                if out.len() + text.len() > len as usize {
                    break;
                }
                out.extend_from_slice(&text);
                consumed = record.seq + 1;
            }
            if consumed != 0 {
                let mut ring = RING.lock();
                ring.read_seq = ring.read_seq.max(consumed);
            }
            copy_out(&out)?;
            Ok(out.len() as isize)
        }
        SYSLOG_ACTION_READ_ALL | SYSLOG_ACTION_READ_CLEAR => {
            let (records, next) = {
                let ring = RING.lock();
                (ring.records_from(ring.clear_seq), ring.next_seq())
            };
            let out = newest_that_fit(&records, len as usize);
            copy_out(&out)?;
            if action == SYSLOG_ACTION_READ_CLEAR {
                let mut ring = RING.lock();
                ring.clear_seq = ring.clear_seq.max(next);
            }
            Ok(out.len() as isize)
        }
        SYSLOG_ACTION_CLEAR => {
            RING.lock().clear();
            Ok(0)
        }
        SYSLOG_ACTION_CONSOLE_OFF => {
            let mut saved = SAVED_CONSOLE_LEVEL.lock();
            if saved.is_none() {
                *saved = Some(kevlar_platform::console::level());
            }
            // minimum_console_loglevel is 1: nothing but emergencies.
            kevlar_platform::console::set_level(console_filter(1));
            Ok(0)
        }
        SYSLOG_ACTION_CONSOLE_ON => {
            if let Some(level) = SAVED_CONSOLE_LEVEL.lock().take() {
                kevlar_platform::console::set_level(level);
            }
            Ok(0)
        }
        SYSLOG_ACTION_CONSOLE_LEVEL => {
            if !(1..=8).contains(&len) {
                return Err(Errno::EINVAL);
            }
            *SAVED_CONSOLE_LEVEL.lock() = None;
            kevlar_platform::console::set_level(console_filter(len));
            Ok(0)
        }
        SYSLOG_ACTION_SIZE_UNREAD => {
            let records = {
                let ring = RING.lock();
                ring.records_from(ring.read_seq)
            };
            let mut size = 0;
            for record in &records {
                let mut text = Vec::new();
                format_syslog(record, &mut text);
                size += text.len();
            }
            Ok(size as isize)
        }
        _ => Ok(RING.lock().capacity() as isize), // SYSLOG_ACTION_SIZE_BUFFER
    }
}

/// Opens /dev/kmsg: each read returns one record from the oldest kept.
pub fn open_kmsg(stat: Stat) -> Arc<dyn FileOps> {
    let first = RING.lock().first_seq();
    Arc::new(Kmsg { stat, next: kevlar_platform::sync::SpinLock::new(first) })
}

/// An open /dev/kmsg: its own position in the record sequence.
struct Kmsg {
    stat: Stat,
    next: kevlar_platform::sync::SpinLock<u64>,
}

impl FileOps for Kmsg {
    fn read(&self, file: &OpenFile, _offset: u64, buf: &mut [u8]) -> Result<usize> {
        let thread = crate::process::current();
        let record = READERS.wait_until(|| {
            let ring = RING.lock();
            let mut next = self.next.lock();
            if *next < ring.first_seq() {
                // Records were overwritten since the last read: say so
                // once and go on from the oldest kept.
                *next = ring.first_seq();
                return Err(Errno::EPIPE);
            }
            if *next >= ring.next_seq() {
                if file.nonblocking() {
                    return Err(Errno::EAGAIN);
                }
                if thread.as_ref().is_some_and(|t| t.has_pending_signal()) {
                    return Err(Errno::EINTR);
                }
                return Ok(None);
            }
            Ok(ring.records_from(*next).into_iter().next())
        })?;
        let mut text = Vec::new();
        format_kmsg(&record, &mut text);
        if text.len() > buf.len() {
            return Err(Errno::EINVAL);
        }
        buf[..text.len()].copy_from_slice(&text);
        *self.next.lock() = record.seq + 1;
        Ok(text.len())
    }

    fn write(&self, _file: &OpenFile, _offset: u64, buf: &[u8]) -> Result<usize> {
        let (prefix, text) = parse_kmsg_write(buf);
        RING.lock().push(prefix, kevlar_platform::time::monotonic_ns(), text);
        READERS.wake_all();
        crate::fs::file::notify_pollers();
        Ok(buf.len())
    }

    fn stat(&self) -> Result<Stat> {
        Ok(self.stat)
    }

    fn is_seekable(&self) -> bool {
        false
    }

    fn seek(&self, _file: &OpenFile, offset: i64, whence: u32) -> Option<Result<u64>> {
        // Only the ends can be sought: SEEK_SET 0 goes back to the oldest
        // record, SEEK_DATA to the first after the last clear, SEEK_END
        // past the newest.
        use linux_raw_sys::general::{SEEK_DATA, SEEK_END, SEEK_SET};
        if offset != 0 {
            return Some(Err(Errno::ESPIPE));
        }
        let ring = RING.lock();
        let next = match whence {
            SEEK_SET => ring.first_seq(),
            SEEK_DATA => ring.clear_seq,
            SEEK_END => ring.next_seq(),
            _ => return Some(Err(Errno::EINVAL)),
        };
        *self.next.lock() = next;
        Some(Ok(0))
    }

    fn is_pollable(&self) -> bool {
        true
    }

    /// As Linux's devkmsg_poll: readable while a record is waiting, and
    /// POLLERR | POLLPRI too when records were overwritten since the last
    /// read (the next read says EPIPE).
    fn poll(&self) -> PollEvents {
        use crate::fs::file::{POLLERR, POLLRDNORM};
        const POLLPRI: PollEvents = linux_raw_sys::general::POLLPRI as PollEvents;
        let ring = RING.lock();
        let next = *self.next.lock();
        if next < ring.first_seq() {
            POLLIN | POLLRDNORM | POLLERR | POLLPRI
        } else if next < ring.next_seq() {
            POLLIN | POLLRDNORM
        } else {
            0
        }
    }

    fn poll_counts(&self) -> (u64, u64) {
        (RING.lock().next_seq(), 0)
    }
}
