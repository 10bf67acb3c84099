//! POSIX timers: timer_create, timer_settime, timer_gettime,
//! timer_getoverrun, timer_delete. The ABI is decoded here; the timers
//! live in process/posix_timer.rs.

use alloc::sync::Arc;

use linux_raw_sys::general as abi;

use super::read_bytes;
use crate::error::{Errno, Result};
use crate::process::posix_timer::{self, Notify, Setting, TimerClock};
use crate::process::Thread;
use crate::uaccess::copy_to_user;

const NS_PER_SEC: u64 = 1_000_000_000;
/// The highest signal number (SIGRTMAX).
const SIGRTMAX: i32 = 64;

/// The first check of a clock id, before anything else (Linux's
/// clockid_to_kclock): EINVAL for no such clock, EOPNOTSUPP for a clock
/// that has no timers.
fn check_clock(clock: u32) -> Result<()> {
    if (clock as i32) < 0 {
        // Ids with the low bits 3 name a clock by file descriptor: no timers.
        return if clock & 7 == 3 { Err(Errno::EOPNOTSUPP) } else { Ok(()) };
    }
    match clock {
        abi::CLOCK_REALTIME | abi::CLOCK_MONOTONIC | abi::CLOCK_PROCESS_CPUTIME_ID | abi::CLOCK_THREAD_CPUTIME_ID
        | abi::CLOCK_BOOTTIME | abi::CLOCK_REALTIME_ALARM | abi::CLOCK_BOOTTIME_ALARM | abi::CLOCK_TAI => Ok(()),
        abi::CLOCK_MONOTONIC_RAW | abi::CLOCK_REALTIME_COARSE | abi::CLOCK_MONOTONIC_COARSE => Err(Errno::EOPNOTSUPP),
        _ => Err(Errno::EINVAL),
    }
}

/// The clock a timer measures (its own checks: the task of a CPU-time
/// clock, EINVAL; CAP_WAKE_ALARM for the alarm clocks, EPERM).
fn timer_clock(thread: &Arc<Thread>, clock: u32) -> Result<TimerClock> {
    if (clock as i32) < 0 {
        let pid = !((clock as i32) >> 3);
        if clock & 3 == 3 {
            return Err(Errno::EINVAL);
        }
        if clock & 4 != 0 {
            // A thread's clock: a thread of this process.
            let target = if pid == 0 { Some(thread.clone()) } else { crate::process::find_thread(crate::ns::pid::global(pid)) };
            return match target {
                Some(t) if Arc::ptr_eq(&t.process, &thread.process) => Ok(TimerClock::ThreadCpu(Arc::downgrade(&t))),
                _ => Err(Errno::EINVAL),
            };
        }
        let target = if pid == 0 { Some(thread.process.clone()) } else { crate::process::find_process(crate::ns::pid::global(pid)) };
        return match target {
            Some(p) if p.exit_status().is_none() => Ok(TimerClock::ProcessCpu(Arc::downgrade(&p))),
            _ => Err(Errno::EINVAL),
        };
    }
    match clock {
        abi::CLOCK_REALTIME | abi::CLOCK_TAI => Ok(TimerClock::Realtime),
        abi::CLOCK_MONOTONIC | abi::CLOCK_BOOTTIME => Ok(TimerClock::Monotonic),
        abi::CLOCK_PROCESS_CPUTIME_ID => Ok(TimerClock::ProcessCpu(Arc::downgrade(&thread.process))),
        abi::CLOCK_THREAD_CPUTIME_ID => Ok(TimerClock::ThreadCpu(Arc::downgrade(thread))),
        abi::CLOCK_REALTIME_ALARM | abi::CLOCK_BOOTTIME_ALARM => {
            crate::process::access::require(&thread.process, abi::CAP_WAKE_ALARM)?;
            Ok(if clock == abi::CLOCK_REALTIME_ALARM { TimerClock::Realtime } else { TimerClock::Monotonic })
        }
        _ => Err(Errno::EINVAL),
    }
}

/// Decodes a `struct sigevent` (64 bytes): the notification and si_value,
/// or EINVAL as Linux's good_sigevent.
fn decode_sigevent(raw: &[u8; 64]) -> Result<(Notify, u64)> {
    let value = u64::from_le_bytes(raw[0..8].try_into().unwrap());
    let signo = i32::from_le_bytes(raw[8..12].try_into().unwrap());
    let notify = i32::from_le_bytes(raw[12..16].try_into().unwrap());
    let tid = i32::from_le_bytes(raw[16..20].try_into().unwrap());
    let good_signo = (1..=SIGRTMAX).contains(&signo);
    let notify = match notify as u32 {
        abi::SIGEV_NONE => Notify::None,
        // SIGEV_THREAD is the C library's: the kernel sends a signal.
        abi::SIGEV_SIGNAL | abi::SIGEV_THREAD if good_signo => Notify::Process(signo as u32),
        abi::SIGEV_THREAD_ID if good_signo => {
            let target = crate::process::find_thread(crate::ns::pid::global(tid)).ok_or(Errno::EINVAL)?;
            Notify::Thread(signo as u32, Arc::downgrade(&target))
        }
        _ => return Err(Errno::EINVAL),
    };
    Ok((notify, value))
}

pub fn timer_create(thread: &Arc<Thread>, clock: u32, sevp: usize, id_addr: usize) -> Result<isize> {
    let event = if sevp != 0 { Some(read_bytes::<64>(sevp)?) } else { None };
    check_clock(clock)?;
    crate::mm::kbuf::check_object()?;
    let process = &thread.process;
    let notify = match event {
        Some(raw) => match decode_sigevent(&raw) {
            Ok(n) => Some(n),
            Err(e) => {
                // Linux has taken the id by then.
                let _ = posix_timer::create(process, Some((Notify::None, 0)), |_| Err(e), || Err(e));
                return Err(e);
            }
        },
        None => None,
    };
    posix_timer::create(process, notify, |id| copy_to_user(id_addr, &id.to_le_bytes()), || timer_clock(thread, clock))?;
    Ok(0)
}

/// Reads a timespec's fields (EINVAL unless 0 <= sec and 0 <= nsec < 1e9).
fn timespec_ns(raw: &[u8]) -> Result<u64> {
    let sec = i64::from_le_bytes(raw[0..8].try_into().unwrap());
    let nsec = i64::from_le_bytes(raw[8..16].try_into().unwrap());
    if sec < 0 || !(0..NS_PER_SEC as i64).contains(&nsec) {
        return Err(Errno::EINVAL);
    }
    Ok((sec as u64).saturating_mul(NS_PER_SEC).saturating_add(nsec as u64))
}

/// Writes a `struct itimerspec` (it_interval, then it_value).
fn write_itimerspec(addr: usize, (value, interval): Setting) -> Result<()> {
    let mut raw = [0u8; 32];
    for (at, ns) in [(0, interval), (16, value)] {
        raw[at..at + 8].copy_from_slice(&((ns / NS_PER_SEC) as i64).to_le_bytes());
        raw[at + 8..at + 16].copy_from_slice(&((ns % NS_PER_SEC) as i64).to_le_bytes());
    }
    copy_to_user(addr, &raw)
}

pub fn timer_settime(thread: &Thread, id: i32, flags: u32, new: usize, old: usize) -> Result<isize> {
    if new == 0 {
        return Err(Errno::EINVAL);
    }
    let raw = read_bytes::<32>(new)?;
    let interval = timespec_ns(&raw[0..16])?;
    let value = timespec_ns(&raw[16..32])?;
    // Other flag bits are ignored, as on Linux.
    let previous = posix_timer::set(&thread.process, id, value, interval, flags & abi::TIMER_ABSTIME != 0)?;
    if old != 0 {
        write_itimerspec(old, previous)?;
    }
    Ok(0)
}

pub fn timer_gettime(thread: &Thread, id: i32, current: usize) -> Result<isize> {
    let setting = posix_timer::get(&thread.process, id)?;
    write_itimerspec(current, setting)?;
    Ok(0)
}

pub fn timer_getoverrun(thread: &Thread, id: i32) -> Result<isize> {
    Ok(posix_timer::overrun(&thread.process, id)? as isize)
}

pub fn timer_delete(thread: &Thread, id: i32) -> Result<isize> {
    posix_timer::delete(&thread.process, id)?;
    Ok(0)
}
