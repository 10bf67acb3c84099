//! Interval timers: alarm, setitimer, getitimer.
//!
//! ITIMER_REAL counts wall-clock time and sends SIGALRM (the timer list in
//! timer.rs fires it). ITIMER_VIRTUAL and ITIMER_PROF count the process's
//! user and CPU time and send SIGVTALRM and SIGPROF (process/cputimer.rs).

use alloc::sync::Arc;

use linux_raw_sys::general as abi;

use super::read_bytes;
use crate::error::{Errno, Result};
use crate::process::{Process, Thread};
use crate::uaccess::copy_to_user;

const NS_PER_SEC: u64 = 1_000_000_000;
const NS_PER_USEC: u64 = 1_000;

/// A timer's setting: (value, interval) in ns.
type Setting = (u64, u64);

/// Reads a `struct timeval` as ns: EINVAL unless 0 <= tv_sec and
/// 0 <= tv_usec < 1 000 000.
fn timeval_ns(raw: &[u8]) -> Result<u64> {
    let sec = i64::from_le_bytes(raw[0..8].try_into().unwrap());
    let usec = i64::from_le_bytes(raw[8..16].try_into().unwrap());
    if sec < 0 || !(0..1_000_000).contains(&usec) {
        return Err(Errno::EINVAL);
    }
    Ok((sec as u64).saturating_mul(NS_PER_SEC).saturating_add(usec as u64 * NS_PER_USEC))
}

/// Writes ns as a `struct timeval` (microseconds truncated, as Linux).
fn put_timeval(raw: &mut [u8], ns: u64) {
    raw[0..8].copy_from_slice(&((ns / NS_PER_SEC) as i64).to_le_bytes());
    raw[8..16].copy_from_slice(&(((ns % NS_PER_SEC) / NS_PER_USEC) as i64).to_le_bytes());
}

/// Writes a `struct itimerval` (it_interval, then it_value).
fn write_itimerval(addr: usize, (value, interval): Setting) -> Result<()> {
    let mut raw = [0u8; 32];
    put_timeval(&mut raw[0..16], interval);
    put_timeval(&mut raw[16..32], value);
    copy_to_user(addr, &raw)
}

/// Reads timer `which` of `process` and, with `new`, replaces it.
fn exchange(process: &Arc<Process>, which: u32, new: Option<Setting>) -> Result<Setting> {
    match which {
        abi::ITIMER_REAL => Ok(match new {
            // Linux keeps no interval for a disarmed timer.
            Some((value, interval)) => crate::timer::set_real_timer(process, value, if value == 0 { 0 } else { interval }),
            None => crate::timer::real_timer(process),
        }),
        abi::ITIMER_VIRTUAL | abi::ITIMER_PROF => Ok(crate::process::cputimer::exchange(process, which, new)),
        _ => Err(Errno::EINVAL),
    }
}

pub fn setitimer(thread: &Thread, which: u32, new: usize, old: usize) -> Result<isize> {
    // A null new value disarms, as Linux still accepts.
    let setting = if new != 0 {
        let raw = read_bytes::<32>(new)?;
        let interval = timeval_ns(&raw[0..16])?;
        let value = timeval_ns(&raw[16..32])?;
        (value, interval)
    } else {
        (0, 0)
    };
    let previous = exchange(&thread.process, which, Some(setting))?;
    if old != 0 {
        write_itimerval(old, previous)?;
    }
    Ok(0)
}

pub fn getitimer(thread: &Thread, which: u32, current: usize) -> Result<isize> {
    let setting = exchange(&thread.process, which, None)?;
    write_itimerval(current, setting)?;
    Ok(0)
}

pub fn alarm(thread: &Thread, seconds: u32) -> Result<isize> {
    let (left, _) = crate::timer::set_real_timer(&thread.process, seconds as u64 * NS_PER_SEC, 0);
    // The old alarm's time left, rounded to the nearest second; a pending
    // alarm never reads as 0 (which would mean none), as on Linux.
    let (secs, usecs) = (left / NS_PER_SEC, (left % NS_PER_SEC) / NS_PER_USEC);
    let rounded = if (secs == 0 && usecs != 0) || usecs >= 500_000 { secs + 1 } else { secs };
    Ok(rounded as isize)
}
