//! The kernel log: a ring buffer of every kernel message (log records and
//! console lines), read by syslog(2) (`dmesg`), `/dev/kmsg` and
//! /proc/kmsg's readers, as Linux's printk buffer.
//!
//! Messages arrive from any context, interrupt handlers included, so the
//! ring is a fixed array behind an interrupt-disabling lock and recording
//! never allocates. Records are kept whole: when the ring is full the
//! oldest ones are dropped, and every record has a sequence number so that
//! readers can tell what they missed.

use alloc::sync::Arc;
use alloc::vec::Vec;
use core::fmt::{self, Write};

use kevlar_platform::sync::IrqSpinLock;
use kevlar_vfs::Stat;

use crate::error::{Errno, Result};
use crate::fs::file::{FileOps, OpenFile, PollEvents, POLLIN};
use crate::process::wait_queue::WaitQueue;

/// Bytes of record storage (Linux's default `log_buf_len` on x86_64 is
/// 128 KiB or more).
pub const LOG_BUF_LEN: usize = 128 * 1024;

/// The longest message text kept (longer ones are cut, as Linux cuts at
/// 1024 bytes).
const MAX_TEXT: usize = 1000;

/// Size of a record's header in the ring: text length (2 bytes), syslog
/// prefix (facility * 8 + level, 1 byte), time in ns (8 bytes).
const HEADER: usize = 11;

/// Facility of messages written to /dev/kmsg without a prefix (LOG_USER).
const FACILITY_USER: u8 = 1;

/// The level of messages written to /dev/kmsg without one: Linux's
/// default_message_loglevel (LOG_WARNING).
const LEVEL_DEFAULT: u8 = 4;

struct Ring {
    bytes: [u8; LOG_BUF_LEN],
    /// Offset of the oldest record.
    head: usize,
    /// Bytes in use.
    used: usize,
    /// Sequence number of the oldest record kept.
    first_seq: u64,
    /// Sequence number the next record gets.
    next_seq: u64,
    /// First record SYSLOG_ACTION_READ_ALL returns (moved by CLEAR).
    clear_seq: u64,
    /// Next record the destructive SYSLOG_ACTION_READ returns.
    syslog_seq: u64,
    /// console_loglevel before SYSLOG_ACTION_CONSOLE_OFF.
    saved_console_level: Option<log::LevelFilter>,
}

/// One record, copied out of the ring.
#[derive(Clone)]
pub struct Record {
    /// Its sequence number.
    pub seq: u64,
    /// facility * 8 + level.
    pub prefix: u8,
    /// Monotonic time of the message in ns.
    pub ns: u64,
    /// The text, without a newline.
    pub text: Vec<u8>,
}

impl Ring {
    const fn new() -> Ring {
        Ring { bytes: [0; LOG_BUF_LEN], head: 0, used: 0, first_seq: 0, next_seq: 0, clear_seq: 0, syslog_seq: 0, saved_console_level: None }
    }

    fn byte(&self, at: usize) -> u8 {
        self.bytes[(self.head + at) % LOG_BUF_LEN]
    }

    fn record_len(&self, at: usize) -> usize {
        HEADER + u16::from_le_bytes([self.byte(at), self.byte(at + 1)]) as usize
    }

    fn drop_oldest(&mut self) {
        let len = self.record_len(0);
        self.head = (self.head + len) % LOG_BUF_LEN;
        self.used -= len;
        self.first_seq += 1;
        self.clear_seq = self.clear_seq.max(self.first_seq);
        self.syslog_seq = self.syslog_seq.max(self.first_seq);
    }

    fn push(&mut self, prefix: u8, ns: u64, text: &[u8]) {
        let text = &text[..text.len().min(MAX_TEXT)];
        let len = HEADER + text.len();
        while self.used + len > LOG_BUF_LEN {
            self.drop_oldest();
        }
        let mut at = (self.head + self.used) % LOG_BUF_LEN;
        let header_len = (text.len() as u16).to_le_bytes();
        let ns_bytes = ns.to_le_bytes();
        for &b in header_len.iter().chain(core::iter::once(&prefix)).chain(ns_bytes.iter()).chain(text.iter()) {
            self.bytes[at] = b;
            at = (at + 1) % LOG_BUF_LEN;
        }
        self.used += len;
        self.next_seq += 1;
    }

    /// Copies out the records from sequence number `from` on.
    fn records_from(&self, from: u64) -> Vec<Record> {
        let mut out = Vec::new();
        let mut at = 0;
        let mut seq = self.first_seq;
        while at < self.used {
            let len = self.record_len(at);
            if seq >= from {
                let ns = u64::from_le_bytes(core::array::from_fn(|i| self.byte(at + 3 + i)));
                let text = (HEADER..len).map(|i| self.byte(at + i)).collect();
                out.push(Record { seq, prefix: self.byte(at + 2), ns, text });
            }
            at += len;
            seq += 1;
        }
        out
    }
}

static RING: IrqSpinLock<Ring> = IrqSpinLock::new(Ring::new());

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
}

/// Set when a message arrived and readers have not been woken yet.
static NEW_RECORDS: core::sync::atomic::AtomicBool = core::sync::atomic::AtomicBool::new(false);

/// Wakes readers waiting for messages if any arrived; called from process
/// context with no lock held (the timer check on the way to user mode and
/// in the idle loop).
pub fn wake_readers() {
    if NEW_RECORDS.load(core::sync::atomic::Ordering::Relaxed) && NEW_RECORDS.swap(false, core::sync::atomic::Ordering::AcqRel) {
        READERS.wake_all();
        crate::fs::file::notify_pollers();
    }
}

/// Starts recording kernel messages; call before anything is printed.
pub fn init() {
    kevlar_platform::console::set_message_sink(record_message);
}

/// Formats a record as syslog(2) returns it: `<6>[    1.234567] text\n`.
fn format_syslog(record: &Record, out: &mut Vec<u8>) {
    struct VecWriter<'a>(&'a mut Vec<u8>);
    impl Write for VecWriter<'_> {
        fn write_str(&mut self, s: &str) -> fmt::Result {
            self.0.extend_from_slice(s.as_bytes());
            Ok(())
        }
    }
    let _ = write!(VecWriter(out), "<{}>[{:5}.{:06}] ", record.prefix, record.ns / 1_000_000_000, (record.ns / 1000) % 1_000_000);
    out.extend_from_slice(&record.text);
    out.push(b'\n');
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
                Ok((ring.syslog_seq < ring.next_seq).then_some(()))
            })?;
            let mut out = Vec::new();
            let mut consumed = 0;
            let records = {
                let ring = RING.lock();
                ring.records_from(ring.syslog_seq)
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
                ring.syslog_seq = ring.syslog_seq.max(consumed);
            }
            copy_out(&out)?;
            Ok(out.len() as isize)
        }
        SYSLOG_ACTION_READ_ALL | SYSLOG_ACTION_READ_CLEAR => {
            if len < 0 {
                return Err(Errno::EINVAL);
            }
            let (records, next) = {
                let ring = RING.lock();
                (ring.records_from(ring.clear_seq), ring.next_seq)
            };
            // The newest records that fit, as Linux returns.
            let texts: Vec<Vec<u8>> = records
                .iter()
                .map(|r| {
                    let mut t = Vec::new();
                    format_syslog(r, &mut t);
                    t
                })
                .collect();
            let mut total = 0;
            let mut first = texts.len();
            while first > 0 && total + texts[first - 1].len() <= len as usize {
                first -= 1;
                total += texts[first].len();
            }
            let out: Vec<u8> = texts[first..].concat();
            copy_out(&out)?;
            if action == SYSLOG_ACTION_READ_CLEAR {
                let mut ring = RING.lock();
                ring.clear_seq = ring.clear_seq.max(next);
            }
            Ok(out.len() as isize)
        }
        SYSLOG_ACTION_CLEAR => {
            let mut ring = RING.lock();
            ring.clear_seq = ring.next_seq;
            Ok(0)
        }
        SYSLOG_ACTION_CONSOLE_OFF => {
            let mut ring = RING.lock();
            if ring.saved_console_level.is_none() {
                ring.saved_console_level = Some(kevlar_platform::console::level());
            }
            // minimum_console_loglevel is 1: nothing but emergencies.
            kevlar_platform::console::set_level(console_filter(1));
            Ok(0)
        }
        SYSLOG_ACTION_CONSOLE_ON => {
            if let Some(level) = RING.lock().saved_console_level.take() {
                kevlar_platform::console::set_level(level);
            }
            Ok(0)
        }
        SYSLOG_ACTION_CONSOLE_LEVEL => {
            if !(1..=8).contains(&len) {
                return Err(Errno::EINVAL);
            }
            RING.lock().saved_console_level = None;
            kevlar_platform::console::set_level(console_filter(len));
            Ok(0)
        }
        SYSLOG_ACTION_SIZE_UNREAD => {
            let records = {
                let ring = RING.lock();
                ring.records_from(ring.syslog_seq)
            };
            let mut size = 0;
            for record in &records {
                let mut text = Vec::new();
                format_syslog(record, &mut text);
                size += text.len();
            }
            Ok(size as isize)
        }
        _ => Ok(LOG_BUF_LEN as isize), // SYSLOG_ACTION_SIZE_BUFFER
    }
}

/// Opens /dev/kmsg: each read returns one record from the oldest kept.
pub fn open_kmsg(stat: Stat) -> Arc<dyn FileOps> {
    let first = RING.lock().first_seq;
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
            if *next < ring.first_seq {
                // Records were overwritten since the last read: say so
                // once and go on from the oldest kept.
                *next = ring.first_seq;
                return Err(Errno::EPIPE);
            }
            if *next >= ring.next_seq {
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
        // "prefix,seq,usec,-;text\n", non-printable bytes as \xNN.
        let mut text = Vec::new();
        {
            struct VecWriter<'a>(&'a mut Vec<u8>);
            impl Write for VecWriter<'_> {
                fn write_str(&mut self, s: &str) -> fmt::Result {
                    self.0.extend_from_slice(s.as_bytes());
                    Ok(())
                }
            }
            let mut w = VecWriter(&mut text);
            let _ = write!(w, "{},{},{},-;", record.prefix, record.seq, record.ns / 1000);
            for &b in &record.text {
                if b < b' ' || b >= 127 || b == b'\\' {
                    let _ = write!(w, "\\x{:02x}", b);
                } else {
                    w.0.push(b);
                }
            }
            w.0.push(b'\n');
        }
        if text.len() > buf.len() {
            return Err(Errno::EINVAL);
        }
        buf[..text.len()].copy_from_slice(&text);
        *self.next.lock() = record.seq + 1;
        Ok(text.len())
    }

    fn write(&self, _file: &OpenFile, _offset: u64, buf: &[u8]) -> Result<usize> {
        // An optional "<N>" prefix gives facility and level; the default
        // is LOG_USER | LOG_WARNING, and user space may not claim facility
        // 0 (the kernel's).
        let mut prefix = FACILITY_USER * 8 + LEVEL_DEFAULT;
        let mut text = buf;
        if let Some(rest) = buf.strip_prefix(b"<") {
            if let Some(end) = rest.iter().position(|&b| b == b'>') {
                if let Some(n) = core::str::from_utf8(&rest[..end]).ok().and_then(|s| s.parse::<u32>().ok()) {
                    let facility = if n >> 3 == 0 { FACILITY_USER as u32 } else { (n >> 3).min(23) };
                    prefix = (facility * 8 + (n & 7)) as u8;
                    text = &rest[end + 1..];
                }
            }
        }
        let text = text.strip_suffix(b"\n").unwrap_or(text);
        RING.lock().push(prefix, kevlar_platform::time::monotonic_ns(), text);
        READERS.wake_all();
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
            SEEK_SET => ring.first_seq,
            SEEK_DATA => ring.clear_seq,
            SEEK_END => ring.next_seq,
            _ => return Some(Err(Errno::EINVAL)),
        };
        *self.next.lock() = next;
        Some(Ok(0))
    }

    fn poll(&self) -> PollEvents {
        let ring = RING.lock();
        if *self.next.lock() < ring.next_seq { POLLIN } else { 0 }
    }
}
