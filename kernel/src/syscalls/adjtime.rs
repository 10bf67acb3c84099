//! adjtimex and clock_adjtime: `struct timex` decoded and encoded here; the
//! NTP state lives in ntp.rs.

use linux_raw_sys::general as abi;

use super::read_bytes;
use crate::error::{Errno, Result};
use crate::ntp::{self, Timex};
use crate::process::Thread;
use crate::uaccess::copy_to_user;

/// sizeof(struct __kernel_timex) on x86_64.
const TIMEX_SIZE: usize = 208;

fn i64_at(raw: &[u8], at: usize) -> i64 {
    i64::from_le_bytes(raw[at..at + 8].try_into().unwrap())
}

fn i32_at(raw: &[u8], at: usize) -> i32 {
    i32::from_le_bytes(raw[at..at + 4].try_into().unwrap())
}

fn decode(raw: &[u8; TIMEX_SIZE]) -> Timex {
    Timex {
        modes: i32_at(raw, 0) as u32,
        offset: i64_at(raw, 8),
        freq: i64_at(raw, 16),
        maxerror: i64_at(raw, 24),
        esterror: i64_at(raw, 32),
        status: i32_at(raw, 40),
        time_sec: i64_at(raw, 72),
        time_usec: i64_at(raw, 80),
        constant: i64_at(raw, 48),
        precision: i64_at(raw, 56),
        tolerance: i64_at(raw, 64),
        tick: i64_at(raw, 88),
        tai: i32_at(raw, 160),
    }
}

/// Writes the reported fields back over what was read (the PPS fields
/// report 0: no PPS source).
fn encode(raw: &mut [u8; TIMEX_SIZE], tx: &Timex) {
    let mut put64 = |at: usize, v: i64| raw[at..at + 8].copy_from_slice(&v.to_le_bytes());
    put64(8, tx.offset);
    put64(16, tx.freq);
    put64(24, tx.maxerror);
    put64(32, tx.esterror);
    put64(48, tx.constant);
    put64(56, tx.precision);
    put64(64, tx.tolerance);
    put64(72, tx.time_sec);
    put64(80, tx.time_usec);
    put64(88, tx.tick);
    for at in [96, 104, 120, 128, 136, 144, 152] {
        put64(at, 0); // ppsfreq, jitter, stabil, jitcnt, calcnt, errcnt, stbcnt
    }
    raw[40..44].copy_from_slice(&tx.status.to_le_bytes());
    raw[112..116].copy_from_slice(&0i32.to_le_bytes()); // shift
    raw[160..164].copy_from_slice(&tx.tai.to_le_bytes());
}

fn adjust(thread: &Thread, addr: usize) -> Result<isize> {
    let mut raw = read_bytes::<TIMEX_SIZE>(addr)?;
    let mut tx = decode(&raw);
    let may_set = crate::process::access::capable(&thread.process, abi::CAP_SYS_TIME);
    let state = ntp::adjtimex(&mut tx, may_set)?;
    encode(&mut raw, &tx);
    copy_to_user(addr, &raw)?;
    Ok(state as isize)
}

pub fn adjtimex(thread: &Thread, addr: usize) -> Result<isize> {
    adjust(thread, addr)
}

/// clock_adjtime: the struct is read first (EFAULT), then the clock: only
/// CLOCK_REALTIME adjusts (EOPNOTSUPP for the other clocks, EINVAL for
/// ids that name none).
pub fn clock_adjtime(thread: &Thread, clock: u32, addr: usize) -> Result<isize> {
    read_bytes::<TIMEX_SIZE>(addr)?;
    if (clock as i32) < 0 {
        return Err(Errno::EOPNOTSUPP);
    }
    match clock {
        abi::CLOCK_REALTIME => adjust(thread, addr),
        abi::CLOCK_MONOTONIC | abi::CLOCK_PROCESS_CPUTIME_ID | abi::CLOCK_THREAD_CPUTIME_ID | abi::CLOCK_MONOTONIC_RAW
        | abi::CLOCK_REALTIME_COARSE | abi::CLOCK_MONOTONIC_COARSE | abi::CLOCK_BOOTTIME | abi::CLOCK_REALTIME_ALARM
        | abi::CLOCK_BOOTTIME_ALARM | abi::CLOCK_TAI => Err(Errno::EOPNOTSUPP),
        _ => Err(Errno::EINVAL),
    }
}
