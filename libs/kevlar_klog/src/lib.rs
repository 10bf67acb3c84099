//! The kernel log: a fixed-size ring of messages with sequence numbers,
//! and the text formats Linux gives them in `syslog(2)` (`dmesg`) and in
//! `/dev/kmsg`.
//!
//! The ring never allocates when a message is recorded (messages come
//! from interrupt handlers too): records are packed into a byte array and
//! the oldest are dropped when a new one does not fit. Every record gets
//! the next sequence number, so readers that keep a position can tell
//! which records they missed. Reading copies records out into `Vec`s.

#![cfg_attr(not(test), no_std)]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

extern crate alloc;

use alloc::vec::Vec;
use core::fmt::{self, Write};

/// The longest message text kept; longer ones are cut (Linux cuts at
/// 1024 bytes, prefix included).
pub const MAX_TEXT: usize = 1000;

/// Bytes of a record's header in the ring: text length (2), syslog
/// prefix (1), time in ns (8).
const HEADER: usize = 11;

/// The facility user-space messages get when they name none or the
/// kernel's (LOG_USER).
pub const FACILITY_USER: u8 = 1;

/// The level of a message written to /dev/kmsg without one (Linux's
/// default_message_loglevel, LOG_WARNING).
pub const LEVEL_DEFAULT: u8 = 4;

/// One message, copied out of the ring.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// Its sequence number.
    pub seq: u64,
    /// facility * 8 + level, as the `<N>` of syslog's text.
    pub prefix: u8,
    /// Monotonic time of the message in ns.
    pub ns: u64,
    /// The text, without a newline.
    pub text: Vec<u8>,
}

/// A ring of `N` bytes of records.
pub struct LogRing<const N: usize> {
    bytes: [u8; N],
    head: usize,
    used: usize,
    first_seq: u64,
    next_seq: u64,
    /// First record a "read all" returns (moved forward by a clear).
    pub clear_seq: u64,
    /// Next record the destructive syslog read returns.
    pub read_seq: u64,
}

impl<const N: usize> LogRing<N> {
    /// Creates an empty ring (usable in a `static`).
    pub const fn new() -> Self {
        LogRing {
            bytes: [0; N],
            head: 0,
            used: 0,
            first_seq: 0,
            next_seq: 0,
            clear_seq: 0,
            read_seq: 0,
        }
    }

    /// Returns the ring's size in bytes (syslog's SIZE_BUFFER).
    pub const fn capacity(&self) -> usize {
        N
    }

    /// Returns the sequence number of the oldest record kept.
    pub fn first_seq(&self) -> u64 {
        self.first_seq
    }

    /// Returns the sequence number the next record will get.
    pub fn next_seq(&self) -> u64 {
        self.next_seq
    }

    fn byte(&self, at: usize) -> u8 {
        self.bytes[(self.head + at) % N]
    }

    fn record_len(&self, at: usize) -> usize {
        HEADER + u16::from_le_bytes([self.byte(at), self.byte(at + 1)]) as usize
    }

    fn drop_oldest(&mut self) {
        let len = self.record_len(0);
        self.head = (self.head + len) % N;
        self.used -= len;
        self.first_seq += 1;
        self.clear_seq = self.clear_seq.max(self.first_seq);
        self.read_seq = self.read_seq.max(self.first_seq);
    }

    /// Records a message, cut to [`MAX_TEXT`] bytes (and to what the ring
    /// can hold), dropping the oldest records to make room.
    pub fn push(&mut self, prefix: u8, ns: u64, text: &[u8]) {
        let text = &text[..text.len().min(MAX_TEXT).min(N.saturating_sub(HEADER))];
        let len = HEADER + text.len();
        if len > N {
            return;
        }
        while self.used + len > N {
            self.drop_oldest();
        }
        let mut at = (self.head + self.used) % N;
        let header = (text.len() as u16).to_le_bytes();
        let ns = ns.to_le_bytes();
        for &b in header
            .iter()
            .chain(core::iter::once(&prefix))
            .chain(ns.iter())
            .chain(text.iter())
        {
            self.bytes[at] = b;
            at = (at + 1) % N;
        }
        self.used += len;
        self.next_seq += 1;
    }

    /// Copies out the records from sequence number `from` on, oldest first.
    pub fn records_from(&self, from: u64) -> Vec<Record> {
        let mut out = Vec::new();
        let mut at = 0;
        let mut seq = self.first_seq;
        while at < self.used {
            let len = self.record_len(at);
            if seq >= from {
                let ns = u64::from_le_bytes(core::array::from_fn(|i| self.byte(at + 3 + i)));
                let text = (HEADER..len).map(|i| self.byte(at + i)).collect();
                out.push(Record {
                    seq,
                    prefix: self.byte(at + 2),
                    ns,
                    text,
                });
            }
            at += len;
            seq += 1;
        }
        out
    }

    /// Moves the "read all" start past every record (SYSLOG_ACTION_CLEAR).
    pub fn clear(&mut self) {
        self.clear_seq = self.next_seq;
    }
}

impl<const N: usize> Default for LogRing<N> {
    fn default() -> Self {
        Self::new()
    }
}

struct VecWriter<'a>(&'a mut Vec<u8>);

impl Write for VecWriter<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.0.extend_from_slice(s.as_bytes());
        Ok(())
    }
}

/// Appends a record as syslog(2) gives it: `<6>[    1.234567] text\n`.
pub fn format_syslog(record: &Record, out: &mut Vec<u8>) {
    let _ = write!(
        VecWriter(out),
        "<{}>[{:5}.{:06}] ",
        record.prefix,
        record.ns / 1_000_000_000,
        (record.ns / 1000) % 1_000_000
    );
    out.extend_from_slice(&record.text);
    out.push(b'\n');
}

/// Returns the text of the newest `records` that fit in `len` bytes, in
/// order, as syslog's "read all" returns them.
pub fn newest_that_fit(records: &[Record], len: usize) -> Vec<u8> {
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
    while first > 0 && total + texts[first - 1].len() <= len {
        first -= 1;
        total += texts[first].len();
    }
    texts[first..].concat()
}

/// Appends a record as a read of /dev/kmsg gives it:
/// `prefix,seq,usec,-;text\n`, with control bytes, bytes above 126 and
/// backslashes written as `\xNN`.
pub fn format_kmsg(record: &Record, out: &mut Vec<u8>) {
    let mut w = VecWriter(out);
    let _ = write!(
        w,
        "{},{},{},-;",
        record.prefix,
        record.seq,
        record.ns / 1000
    );
    for &b in &record.text {
        if b < b' ' || b >= 127 || b == b'\\' {
            let _ = write!(w, "\\x{:02x}", b);
        } else {
            w.0.push(b);
        }
    }
    w.0.push(b'\n');
}

/// Splits what a program writes to /dev/kmsg into its syslog prefix and
/// text: an optional `<N>` gives facility and level (facility 0, the
/// kernel's, becomes LOG_USER; the default is LOG_USER | LOG_WARNING);
/// a final newline is dropped.
pub fn parse_kmsg_write(buf: &[u8]) -> (u8, &[u8]) {
    let mut prefix = FACILITY_USER * 8 + LEVEL_DEFAULT;
    let mut text = buf;
    if let Some(rest) = buf.strip_prefix(b"<") {
        if let Some(end) = rest.iter().position(|&b| b == b'>') {
            let digits = &rest[..end];
            if !digits.is_empty() && digits.len() <= 9 && digits.iter().all(u8::is_ascii_digit) {
                let n: u32 = digits.iter().fold(0, |n, d| n * 10 + u32::from(d - b'0'));
                let facility = if n >> 3 == 0 {
                    u32::from(FACILITY_USER)
                } else {
                    (n >> 3).min(23)
                };
                prefix = (facility * 8 + (n & 7)) as u8;
                text = &rest[end + 1..];
            }
        }
    }
    (prefix, text.strip_suffix(b"\n").unwrap_or(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(records: &[Record]) -> Vec<&[u8]> {
        records.iter().map(|r| r.text.as_slice()).collect()
    }

    #[test]
    fn records_keep_order_and_numbers() {
        let mut ring: LogRing<256> = LogRing::new();
        ring.push(6, 1_500_000_000, b"first");
        ring.push(3, 2_000_001_000, b"second");
        let all = ring.records_from(0);
        assert_eq!(texts(&all), vec![&b"first"[..], b"second"]);
        assert_eq!(
            all[1],
            Record {
                seq: 1,
                prefix: 3,
                ns: 2_000_001_000,
                text: b"second".to_vec()
            }
        );
        assert_eq!(texts(&ring.records_from(1)), vec![&b"second"[..]]);
        assert!(ring.records_from(2).is_empty());
        assert_eq!((ring.first_seq(), ring.next_seq()), (0, 2));
    }

    #[test]
    fn full_ring_drops_the_oldest_and_wraps() {
        let mut ring: LogRing<64> = LogRing::new();
        for i in 0..20u8 {
            ring.push(6, u64::from(i), &[b'a' + i; 10]);
        }
        // Each record takes 21 bytes: three fit.
        let kept = ring.records_from(0);
        assert_eq!(kept.len(), 3);
        assert_eq!(
            kept.iter().map(|r| r.seq).collect::<Vec<_>>(),
            vec![17, 18, 19]
        );
        assert_eq!(kept[2].text, vec![b'a' + 19; 10]);
        assert_eq!(kept[0].ns, 17);
        assert_eq!(ring.first_seq(), 17);
        // Positions behind the oldest record move up with it.
        assert_eq!(ring.clear_seq, 17);
        assert_eq!(ring.read_seq, 17);
    }

    #[test]
    fn long_messages_are_cut() {
        let mut ring: LogRing<4096> = LogRing::new();
        ring.push(6, 0, &[b'x'; 3000]);
        assert_eq!(ring.records_from(0)[0].text.len(), MAX_TEXT);
        let mut tiny: LogRing<16> = LogRing::new();
        tiny.push(6, 0, b"0123456789");
        assert_eq!(tiny.records_from(0)[0].text, b"01234");
    }

    #[test]
    fn clear_moves_the_read_all_start() {
        let mut ring: LogRing<256> = LogRing::new();
        ring.push(6, 0, b"before");
        ring.clear();
        ring.push(6, 0, b"after");
        assert_eq!(
            texts(&ring.records_from(ring.clear_seq)),
            vec![&b"after"[..]]
        );
    }

    #[test]
    fn syslog_format() {
        let record = Record {
            seq: 0,
            prefix: 6,
            ns: 12_345_678_901,
            text: b"hello".to_vec(),
        };
        let mut out = Vec::new();
        format_syslog(&record, &mut out);
        assert_eq!(out, b"<6>[   12.345678] hello\n");
        let early = Record {
            seq: 1,
            prefix: 13,
            ns: 1_000,
            text: b"x".to_vec(),
        };
        out.clear();
        format_syslog(&early, &mut out);
        assert_eq!(out, b"<13>[    0.000001] x\n");
    }

    #[test]
    fn read_all_returns_the_newest_that_fit() {
        let records: Vec<Record> = (0..3)
            .map(|i| Record {
                seq: i,
                prefix: 6,
                ns: 0,
                text: vec![b'a' + i as u8; 3],
            })
            .collect();
        // Each line is "<6>[    0.000000] aaa\n": 22 bytes.
        assert_eq!(newest_that_fit(&records, 1000).len(), 66);
        assert_eq!(
            newest_that_fit(&records, 50),
            b"<6>[    0.000000] bbb\n<6>[    0.000000] ccc\n"
        );
        assert!(newest_that_fit(&records, 21).is_empty());
    }

    #[test]
    fn kmsg_format_escapes() {
        let record = Record {
            seq: 42,
            prefix: 12,
            ns: 7_000_123,
            text: b"a\\b\tc\x7f".to_vec(),
        };
        let mut out = Vec::new();
        format_kmsg(&record, &mut out);
        assert_eq!(out, b"12,42,7000,-;a\\x5cb\\x09c\\x7f\n");
    }

    #[test]
    fn kmsg_writes() {
        assert_eq!(parse_kmsg_write(b"plain\n"), (12, &b"plain"[..]));
        assert_eq!(parse_kmsg_write(b"<5>level five"), (13, &b"level five"[..]));
        assert_eq!(
            parse_kmsg_write(b"<30>daemon info\n"),
            (30, &b"daemon info"[..])
        );
        assert_eq!(parse_kmsg_write(b"<999>big"), (23 * 8 + 7, &b"big"[..]));
        assert_eq!(
            parse_kmsg_write(b"<x>not a level"),
            (12, &b"<x>not a level"[..])
        );
        assert_eq!(parse_kmsg_write(b"<5"), (12, &b"<5"[..]));
    }
}
