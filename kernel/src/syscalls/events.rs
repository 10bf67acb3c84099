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
use crate::process::signal::UNBLOCKABLE;
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
        let result = crate::fs::file::POLLERS.wait_until(|| {
            let ready = epoll.collect(max);
            if !ready.is_empty() || deadline.is_some_and(|d| time::monotonic_ns() >= d) {
                return Ok(Some(ready));
            }
            Ok(None)
        });
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

/// Runs `f` with the signal mask at `sigmask` (if given). When `f` is
/// interrupted, the temporary mask stays for the handler and the old one
/// comes back after it (as Linux's restore_saved_sigmask_unless).
fn with_sigmask(thread: &Arc<Thread>, sigmask: usize, sigsetsize: usize, f: impl FnOnce() -> Result<isize>) -> Result<isize> {
    if sigmask == 0 {
        return f();
    }
    if sigsetsize != 8 {
        return Err(Errno::EINVAL);
    }
    let mask = read_u64(sigmask)? & !UNBLOCKABLE;
    let saved = core::mem::replace(&mut thread.process.signals.lock().blocked, mask);
    let result = f();
    if result == Err(Errno::EINTR) {
        thread.set_saved_sigmask(Some(saved));
    } else {
        thread.process.signals.lock().blocked = saved;
    }
    result
}

pub fn epoll_wait(thread: &Arc<Thread>, epfd: i32, events: usize, max: i32, timeout_ms: i32) -> Result<isize> {
    let timeout = (timeout_ms >= 0).then(|| timeout_ms as u64 * 1_000_000);
    epoll_wait_ns(thread, epfd, events, max, timeout)
}

pub fn epoll_pwait(thread: &Arc<Thread>, epfd: i32, events: usize, max: i32, timeout_ms: i32, sigmask: usize, sigsetsize: usize) -> Result<isize> {
    with_sigmask(thread, sigmask, sigsetsize, || epoll_wait(thread, epfd, events, max, timeout_ms))
}

pub fn epoll_pwait2(thread: &Arc<Thread>, epfd: i32, events: usize, max: i32, timeout: usize, sigmask: usize, sigsetsize: usize) -> Result<isize> {
    let timeout_ns = if timeout == 0 { None } else { Some(super::time::read_timespec(timeout)?) };
    with_sigmask(thread, sigmask, sigsetsize, || epoll_wait_ns(thread, epfd, events, max, timeout_ns))
}
