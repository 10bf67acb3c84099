//! The event file descriptors: eventfd/eventfd2, epoll_create/_create1,
//! epoll_ctl, epoll_wait/_pwait/_pwait2, timerfd_create/_settime/_gettime
//! and signalfd/signalfd4. The files themselves live in `fs/`.

use alloc::sync::Arc;
use alloc::vec::Vec;

use kevlar_platform::time;
use linux_raw_sys::general as abi;

use super::{read_bytes, read_u64};
use crate::error::{Errno, Result};
use crate::fs::epoll::Epoll;
use crate::fs::eventfd::EventFd;
use crate::fs::file::{FileOps, OpenFile};
use crate::fs::signalfd::SignalFd;
use crate::fs::timerfd::TimerFd;
use crate::process::Thread;
use crate::uaccess::copy_to_user;

/// Size of `struct epoll_event` (packed on x86_64: u32 events, u64 data).
const EPOLL_EVENT_SIZE: usize = core::mem::size_of::<abi::epoll_event>();
/// The most events one epoll_wait may ask for (Linux's EP_MAX_EVENTS).
const MAX_EVENTS: usize = i32::MAX as usize / EPOLL_EVENT_SIZE;

fn get_file(thread: &Thread, fd: i32) -> Result<Arc<OpenFile>> {
    let table = thread.process.files.lock().clone();
    let file = table.lock().get(fd)?;
    Ok(file)
}

fn install(thread: &Thread, ops: Arc<dyn FileOps>, flags: u32, name: &[u8]) -> Result<isize> {
    let status = abi::O_RDWR | (flags & abi::O_NONBLOCK);
    let file = OpenFile::new(ops, status, name.to_vec());
    let table = thread.process.files.lock().clone();
    let fd = table.lock().insert(file, flags & abi::O_CLOEXEC != 0)?;
    Ok(fd as isize)
}

// --- eventfd ----------------------------------------------------------------

pub fn eventfd2(thread: &Thread, initial: u32, flags: u32) -> Result<isize> {
    if flags & !(abi::EFD_CLOEXEC | abi::EFD_NONBLOCK | abi::EFD_SEMAPHORE) != 0 {
        return Err(Errno::EINVAL);
    }
    let ops = EventFd::new(initial as u64, flags & abi::EFD_SEMAPHORE != 0);
    install(thread, ops, flags, b"anon_inode:[eventfd]")
}

// --- epoll ------------------------------------------------------------------

pub fn epoll_create(thread: &Thread, size: i32) -> Result<isize> {
    if size <= 0 {
        return Err(Errno::EINVAL);
    }
    epoll_create1(thread, 0)
}

pub fn epoll_create1(thread: &Thread, flags: u32) -> Result<isize> {
    if flags & !abi::EPOLL_CLOEXEC != 0 {
        return Err(Errno::EINVAL);
    }
    install(thread, Epoll::new(), flags & abi::O_CLOEXEC, b"anon_inode:[eventpoll]")
}

pub fn epoll_ctl(thread: &Thread, epfd: i32, op: u32, fd: i32, event: usize) -> Result<isize> {
    // Linux reads the event first (not for DEL), then looks the fds up.
    let parsed = if op != abi::EPOLL_CTL_DEL {
        let raw = read_bytes::<EPOLL_EVENT_SIZE>(event)?;
        Some((u32::from_le_bytes(raw[..4].try_into().unwrap()), u64::from_le_bytes(raw[4..12].try_into().unwrap())))
    } else {
        None
    };
    let epoll_file = get_file(thread, epfd)?;
    let target = get_file(thread, fd)?;
    // The order of Linux's checks: poll support (EPERM) before the kind of
    // the epoll fd and self-addition (EINVAL).
    if !target.ops.is_pollable() {
        return Err(Errno::EPERM);
    }
    let epoll = epoll_file.ops.as_epoll().ok_or(Errno::EINVAL)?;
    epoll.control(&epoll_file, op, fd, &target, parsed)?;
    Ok(0)
}

/// The shared part of the epoll_wait family; `timeout_ns` None: forever.
fn epoll_wait_ns(thread: &Arc<Thread>, epfd: i32, events: usize, max: i32, timeout_ns: Option<u64>) -> Result<isize> {
    if max <= 0 || max as usize > MAX_EVENTS {
        return Err(Errno::EINVAL);
    }
    let max = max as usize;
    if !kevlar_platform::x86::user::is_user_range(events, max * EPOLL_EVENT_SIZE) {
        return Err(Errno::EFAULT);
    }
    let file = get_file(thread, epfd)?;
    let epoll = file.ops.as_epoll().ok_or(Errno::EINVAL)?;
    let ready: Vec<_> = if timeout_ns == Some(0) {
        epoll.collect(max)
    } else {
        let deadline = timeout_ns.map(|t| time::monotonic_ns().saturating_add(t));
        if let Some(d) = deadline {
            crate::timer::arm(d, thread.clone());
        }
        let result = epoll.wait(max, deadline);
        if deadline.is_some() {
            crate::timer::disarm(thread);
        }
        result?
    };
    let mut raw = Vec::with_capacity(ready.len() * EPOLL_EVENT_SIZE);
    for event in &ready {
        raw.extend_from_slice(&event.events.to_le_bytes());
        raw.extend_from_slice(&event.data.to_le_bytes());
    }
    copy_to_user(events, &raw)?;
    Ok(ready.len() as isize)
}

pub fn epoll_wait(thread: &Arc<Thread>, epfd: i32, events: usize, max: i32, timeout_ms: i32) -> Result<isize> {
    let timeout = (timeout_ms >= 0).then(|| timeout_ms as u64 * 1_000_000);
    epoll_wait_ns(thread, epfd, events, max, timeout)
}

pub fn epoll_pwait(thread: &Arc<Thread>, epfd: i32, events: usize, max: i32, timeout_ms: i32, sigmask: usize, sigsetsize: usize) -> Result<isize> {
    super::signal::with_sigmask(thread, sigmask, sigsetsize, || epoll_wait(thread, epfd, events, max, timeout_ms))
}

pub fn epoll_pwait2(thread: &Arc<Thread>, epfd: i32, events: usize, max: i32, timeout: usize, sigmask: usize, sigsetsize: usize) -> Result<isize> {
    let timeout_ns = if timeout == 0 { None } else { Some(super::time::read_timespec(timeout)?) };
    super::signal::with_sigmask(thread, sigmask, sigsetsize, || epoll_wait_ns(thread, epfd, events, max, timeout_ns))
}

// --- timerfd ----------------------------------------------------------------

pub fn timerfd_create(thread: &Thread, clock: u32, flags: u32) -> Result<isize> {
    if flags & !(abi::TFD_CLOEXEC | abi::TFD_NONBLOCK) != 0 {
        return Err(Errno::EINVAL);
    }
    // The alarm clocks differ only in waking a suspended system, which
    // never happens here; they need CAP_WAKE_ALARM.
    let realtime = match clock {
        abi::CLOCK_REALTIME | abi::CLOCK_REALTIME_ALARM => true,
        abi::CLOCK_MONOTONIC | abi::CLOCK_BOOTTIME | abi::CLOCK_BOOTTIME_ALARM => false,
        _ => return Err(Errno::EINVAL),
    };
    if matches!(clock, abi::CLOCK_REALTIME_ALARM | abi::CLOCK_BOOTTIME_ALARM) && !crate::process::access::capable(&thread.process, abi::CAP_WAKE_ALARM) {
        return Err(Errno::EPERM);
    }
    install(thread, TimerFd::new(realtime), flags, b"anon_inode:[timerfd]")
}

/// Reads a `struct itimerspec` as (interval, value) in ns; None when a
/// field is out of range.
fn read_itimerspec(addr: usize) -> Result<Option<(u64, u64)>> {
    let raw = read_bytes::<32>(addr)?;
    let field = |at: usize| i64::from_le_bytes(raw[at..at + 8].try_into().unwrap());
    let ns = |sec: i64, nsec: i64| -> Option<u64> {
        (sec >= 0 && (0..1_000_000_000).contains(&nsec)).then(|| (sec as u64).saturating_mul(1_000_000_000).saturating_add(nsec as u64))
    };
    Ok(ns(field(0), field(8)).zip(ns(field(16), field(24))))
}

fn write_itimerspec(addr: usize, (value, interval): (u64, u64)) -> Result<()> {
    let mut raw = [0u8; 32];
    for (at, ns) in [(0, interval), (16, value)] {
        raw[at..at + 8].copy_from_slice(&((ns / 1_000_000_000) as i64).to_le_bytes());
        raw[at + 8..at + 16].copy_from_slice(&((ns % 1_000_000_000) as i64).to_le_bytes());
    }
    copy_to_user(addr, &raw)?;
    Ok(())
}

fn timerfd_of(thread: &Thread, fd: i32) -> Result<Arc<OpenFile>> {
    let file = get_file(thread, fd)?;
    file.ops.as_timerfd().ok_or(Errno::EINVAL)?;
    Ok(file)
}

pub fn timerfd_settime(thread: &Thread, fd: i32, flags: u32, new: usize, old: usize) -> Result<isize> {
    let setting = read_itimerspec(new)?;
    if flags & !(abi::TFD_TIMER_ABSTIME | abi::TFD_TIMER_CANCEL_ON_SET) != 0 {
        return Err(Errno::EINVAL);
    }
    let (interval, value) = setting.ok_or(Errno::EINVAL)?;
    let file = timerfd_of(thread, fd)?;
    let previous = file.ops.as_timerfd().unwrap().set(value, interval, flags & abi::TFD_TIMER_ABSTIME != 0, flags & abi::TFD_TIMER_CANCEL_ON_SET != 0);
    if old != 0 {
        write_itimerspec(old, previous)?;
    }
    Ok(0)
}

pub fn timerfd_gettime(thread: &Thread, fd: i32, current: usize) -> Result<isize> {
    let file = timerfd_of(thread, fd)?;
    write_itimerspec(current, file.ops.as_timerfd().unwrap().get())?;
    Ok(0)
}

// --- signalfd ---------------------------------------------------------------

/// signalfd4 (signalfd is it with no flags): a new signalfd for `fd` -1,
/// else a new mask for the signalfd at `fd`. SFD_CLOEXEC and SFD_NONBLOCK
/// are O_CLOEXEC and O_NONBLOCK (linux-raw-sys has no SFD_ names).
pub fn signalfd4(thread: &Thread, fd: i32, mask: usize, size: usize, flags: u32) -> Result<isize> {
    if size != 8 {
        return Err(Errno::EINVAL);
    }
    let mask = read_u64(mask)?;
    if flags & !(abi::O_CLOEXEC | abi::O_NONBLOCK) != 0 {
        return Err(Errno::EINVAL);
    }
    if fd == -1 {
        return install(thread, SignalFd::new(mask), flags, b"anon_inode:[signalfd]");
    }
    let file = get_file(thread, fd)?;
    file.ops.as_signalfd().ok_or(Errno::EINVAL)?.set_mask(mask);
    Ok(fd as isize)
}
