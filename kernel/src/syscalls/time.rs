//! Time system calls.

use kevlar_platform::time;
use crate::uaccess::copy_to_user;
use linux_raw_sys::general as abi;

use super::read_bytes;
use crate::error::{Errno, Result};
use crate::process::Thread;

/// Reads a `struct timespec` as nanoseconds (EINVAL if malformed).
pub use crate::uaccess::read_timespec;

fn write_timespec(addr: usize, ns: u64) -> Result<()> {
    let mut raw = [0u8; 16];
    raw[..8].copy_from_slice(&((ns / 1_000_000_000) as i64).to_le_bytes());
    raw[8..].copy_from_slice(&((ns % 1_000_000_000) as i64).to_le_bytes());
    Ok(copy_to_user(addr, &raw)?)
}

fn clock_now(clock: u32) -> Result<u64> {
    // Negative ids are CPU-time clocks of a process or thread
    // (clock_getcpuclockid): ~pid << 3 | kind, kind 2 = scheduler time, bit
    // 2 set for a thread.
    if (clock as i32) < 0 {
        let pid = !((clock as i32) >> 3);
        if clock & 3 == 3 {
            return Err(Errno::EINVAL);
        }
        if clock & 4 != 0 {
            // A thread's clock (pthread_getcpuclockid).
            let thread = if pid == 0 { crate::process::current() } else { crate::process::find_thread(crate::ns::pid::global(pid)) };
            return thread.map(|t| t.cpu_ns()).ok_or(Errno::EINVAL);
        }
        let process = if pid == 0 {
            crate::process::current().map(|t| t.process.clone())
        } else {
            crate::process::find_process(crate::ns::pid::global(pid))
        };
        return process.map(|p| p.cpu_ns()).ok_or(Errno::EINVAL);
    }
    match clock {
        abi::CLOCK_REALTIME | abi::CLOCK_REALTIME_COARSE | abi::CLOCK_TAI => Ok(time::realtime_ns()),
        // Seen through the caller's time namespace's offsets.
        abi::CLOCK_MONOTONIC | abi::CLOCK_MONOTONIC_RAW | abi::CLOCK_MONOTONIC_COARSE | abi::CLOCK_BOOTTIME => Ok(crate::ns::time::shown(clock, time::monotonic_ns())),
        abi::CLOCK_PROCESS_CPUTIME_ID => Ok(crate::process::current().map_or(0, |t| t.process.cpu_ns())),
        abi::CLOCK_THREAD_CPUTIME_ID => Ok(crate::process::current().map_or(0, |t| t.cpu_ns())),
        _ => Err(Errno::EINVAL),
    }
}

pub fn clock_gettime(clock: u32, tp: usize) -> Result<isize> {
    let now = clock_now(clock)?;
    write_timespec(tp, now)?;
    Ok(0)
}

pub fn clock_getres(clock: u32, tp: usize) -> Result<isize> {
    clock_now(clock)?;
    if tp != 0 {
        write_timespec(tp, 1)?;
    }
    Ok(0)
}

/// gettimeofday: the time, and the kernel's time zone (`struct timezone`,
/// two ints; zero, as Linux keeps it unless settimeofday sets one) when
/// `tz` is given. A bad pointer for either is EFAULT.
pub fn gettimeofday(tv: usize, tz: usize) -> Result<isize> {
    if tv != 0 {
        let ns = time::realtime_ns();
        let mut raw = [0u8; 16];
        raw[..8].copy_from_slice(&((ns / 1_000_000_000) as i64).to_le_bytes());
        raw[8..].copy_from_slice(&(((ns / 1000) % 1_000_000) as i64).to_le_bytes());
        copy_to_user(tv, &raw)?;
    }
    if tz != 0 {
        copy_to_user(tz, &[0u8; 8])?;
    }
    Ok(0)
}

pub fn time(t: usize) -> Result<isize> {
    let secs = (time::realtime_ns() / 1_000_000_000) as i64;
    if t != 0 {
        copy_to_user(t, &secs.to_le_bytes())?;
    }
    Ok(secs as isize)
}

fn sleep_for(ns: u64, remaining: usize) -> Result<isize> {
    let start = time::monotonic_ns();
    match crate::timer::sleep_until(start + ns) {
        Ok(()) => Ok(0),
        Err(e) => {
            if remaining != 0 {
                let left = (start + ns).saturating_sub(time::monotonic_ns());
                write_timespec(remaining, left)?;
            }
            Err(e)
        }
    }
}

pub fn nanosleep(req: usize, rem: usize) -> Result<isize> {
    let ns = read_timespec(req)?;
    sleep_for(ns, rem)
}

pub fn clock_nanosleep(clock: u32, flags: u32, req: usize, rem: usize) -> Result<isize> {
    // Linux ignores flag bits other than TIMER_ABSTIME.
    let now = clock_now(clock)?;
    let ns = read_timespec(req)?;
    if flags & abi::TIMER_ABSTIME != 0 {
        let delta = ns.saturating_sub(now);
        return match crate::timer::sleep_until(time::monotonic_ns() + delta) {
            Ok(()) => Ok(0),
            Err(e) => Err(e),
        };
    }
    sleep_for(ns, rem)
}

/// clock_settime: only CLOCK_REALTIME can be set: other clocks without a
/// setter (CLOCK_PROCESS_CPUTIME_ID and CLOCK_THREAD_CPUTIME_ID among them)
/// are EINVAL before the time is read; a CPU-time clock by id
/// (clock_getcpuclockid) reads the time (EFAULT), checks its task (EINVAL)
/// and refuses (EPERM), as Linux 6.1. For CLOCK_REALTIME: a valid time
/// (EINVAL), then CAP_SYS_TIME (EPERM).
pub fn clock_settime(thread: &Thread, clock: u32, tp: usize) -> Result<isize> {
    if (clock as i32) < 0 && clock & 7 != 3 {
        read_bytes::<16>(tp)?;
        clock_now(clock)?;
        return Err(Errno::EPERM);
    }
    if clock != abi::CLOCK_REALTIME {
        return Err(Errno::EINVAL);
    }
    let ns = read_timespec(tp)?;
    set_realtime(thread, ns)
}

/// Sets the wall clock, for a caller with CAP_SYS_TIME (EPERM).
fn set_realtime(thread: &Thread, ns: u64) -> Result<isize> {
    crate::process::access::require(&thread.process, abi::CAP_SYS_TIME)?;
    time::set_realtime_ns(ns);
    crate::fs::timerfd::clock_was_set();
    Ok(0)
}

/// settimeofday(2) in Linux's order: the time is read and its
/// microseconds checked (EFAULT, EINVAL), the time zone read (EFAULT),
/// the time validated (EINVAL), then CAP_SYS_TIME (EPERM) and the time
/// zone's range (EINVAL, beyond 15 hours). The time zone is not kept
/// (gettimeofday reports none).
pub fn settimeofday(thread: &Thread, tv: usize, tz: usize) -> Result<isize> {
    let time = if tv != 0 {
        let raw = read_bytes::<16>(tv)?;
        let sec = i64::from_le_bytes(raw[..8].try_into().unwrap());
        let usec = i64::from_le_bytes(raw[8..].try_into().unwrap());
        if !(0..=1_000_000).contains(&usec) {
            return Err(Errno::EINVAL);
        }
        Some((sec, usec))
    } else {
        None
    };
    let zone = if tz != 0 { Some(i32::from_le_bytes(read_bytes::<8>(tz)?[..4].try_into().unwrap())) } else { None };
    if time.is_some_and(|(sec, usec)| sec < 0 || usec >= 1_000_000) {
        return Err(Errno::EINVAL);
    }
    crate::process::access::require(&thread.process, abi::CAP_SYS_TIME)?;
    if zone.is_some_and(|minutes_west| !(-15 * 60..=15 * 60).contains(&minutes_west)) {
        return Err(Errno::EINVAL);
    }
    match time {
        Some((sec, usec)) => set_realtime(thread, (sec as u64).saturating_mul(1_000_000_000).saturating_add(usec as u64 * 1000)),
        None => Ok(0),
    }
}

/// Builds a `struct rusage` with the given CPU time as user time.
pub fn encode_rusage(cpu_ns: u64) -> [u8; 144] {
    let mut raw = [0u8; 144];
    raw[0..8].copy_from_slice(&((cpu_ns / 1_000_000_000) as i64).to_le_bytes());
    raw[8..16].copy_from_slice(&(((cpu_ns / 1000) % 1_000_000) as i64).to_le_bytes());
    raw[32..40].copy_from_slice(&1024i64.to_le_bytes()); // ru_maxrss, KiB
    raw
}

pub fn times(thread: &Thread, buf: usize) -> Result<isize> {
    // Clock ticks at USER_HZ = 100. All CPU time counts as user time: the
    // kernel does not split user and system time yet.
    let tick = |ns: u64| (ns / 10_000_000) as i64;
    let me = &thread.process;
    if buf != 0 {
        let mut raw = [0u8; 32];
        raw[0..8].copy_from_slice(&tick(me.cpu_ns()).to_le_bytes());
        raw[16..24].copy_from_slice(&tick(me.children_cpu_ns.load(core::sync::atomic::Ordering::Relaxed)).to_le_bytes());
        copy_to_user(buf, &raw)?;
    }
    Ok(tick(time::monotonic_ns()) as isize)
}

pub fn getrusage(thread: &Thread, who: i32, buf: usize) -> Result<isize> {
    let cpu = match who {
        w if w == abi::RUSAGE_SELF as i32 => thread.process.cpu_ns(),
        w if w == abi::RUSAGE_THREAD as i32 => thread.cpu_ns(),
        w if w == abi::RUSAGE_CHILDREN => thread.process.children_cpu_ns.load(core::sync::atomic::Ordering::Relaxed),
        _ => return Err(Errno::EINVAL),
    };
    copy_to_user(buf, &encode_rusage(cpu))?;
    Ok(0)
}
