//! poll, ppoll, select, pselect6.
//!
//! A poller registers one waiter on the readiness queue of each of its
//! files (`fs::poll_queue`; the global fallback queue for files without
//! one), sleeps until one of them is notified, then rescans its fds.

use alloc::vec::Vec;

use kevlar_platform::time;
use crate::uaccess::copy_to_user;

use super::{read_bytes, read_u64};
use crate::error::{Errno, Result};
use crate::fs::file::{POLLERR, POLLHUP, POLLIN, POLLNVAL, POLLOUT};
use crate::process::Thread;

fn scan(thread: &Thread, fds: &mut [(i32, u16, u16)]) -> usize {
    let table = thread.process.files.lock().clone();
    let table = table.lock();
    let mut ready = 0;
    for (fd, events, revents) in fds.iter_mut() {
        *revents = 0;
        if *fd < 0 {
            continue;
        }
        *revents = match table.get(*fd) {
            Ok(file) => file.ops.poll() & (*events | POLLERR | POLLHUP),
            Err(_) => POLLNVAL,
        };
        if *revents != 0 {
            ready += 1;
        }
    }
    ready
}

/// Waits until `check` finds something ready, the timeout passes (None:
/// forever) or a signal arrives; the files open at `fds` are the ones
/// whose queues wake the thread.
fn wait_ready(thread: &alloc::sync::Arc<Thread>, fds: &[(i32, u16, u16)], timeout_ns: Option<u64>, mut check: impl FnMut() -> usize) -> Result<usize> {
    let files: Vec<_> = {
        let table = thread.process.files.lock().clone();
        let table = table.lock();
        fds.iter().filter(|(fd, _, _)| *fd >= 0).filter_map(|(fd, _, _)| table.get(*fd).ok()).collect()
    };
    let registration = crate::fs::poll_queue::PollRegistration::new(files);
    let deadline = timeout_ns.map(|t| time::monotonic_ns().saturating_add(t));
    if let Some(d) = deadline {
        crate::timer::arm(d, thread.clone());
    }
    let result = registration.queue().wait_until(|| {
        let n = check();
        if n > 0 || deadline.is_some_and(|d| time::monotonic_ns() >= d) {
            return Ok(Some(n));
        }
        Ok(None)
    });
    if deadline.is_some() {
        crate::timer::disarm(thread);
    }
    result
}

pub fn poll(thread: &alloc::sync::Arc<Thread>, fds_ptr: usize, nfds: usize, timeout_ns: i64) -> Result<isize> {
    // Linux refuses more entries than the process may have fds.
    if nfds as u64 > thread.process.limits.lock()[linux_raw_sys::general::RLIMIT_NOFILE as usize][0] {
        return Err(Errno::EINVAL);
    }
    let mut fds = crate::mm::kbuf::with_capacity(nfds)?;
    for i in 0..nfds {
        let raw = read_bytes::<8>(fds_ptr + i * 8)?;
        fds.push((i32::from_le_bytes(raw[..4].try_into().unwrap()), u16::from_le_bytes(raw[4..6].try_into().unwrap()), 0u16));
    }
    let timeout = (timeout_ns >= 0).then_some(timeout_ns as u64);
    let ready = if timeout == Some(0) { scan(thread, &mut fds) } else { {
        let snapshot = fds.clone();
        wait_ready(thread, &snapshot, timeout, || scan(thread, &mut fds))?
    } };
    for (i, (_, _, revents)) in fds.iter().enumerate() {
        copy_to_user(fds_ptr + i * 8 + 6, &revents.to_le_bytes())?;
    }
    Ok(ready as isize)
}

pub fn ppoll(thread: &alloc::sync::Arc<Thread>, fds: usize, nfds: usize, timeout: usize, sigmask: usize, sigsetsize: usize) -> Result<isize> {
    let timeout_ns = if timeout == 0 { -1 } else { super::time::read_timespec(timeout)? as i64 };
    super::signal::with_sigmask(thread, sigmask, sigsetsize, || poll(thread, fds, nfds, timeout_ns))
}

/// pselect6's sixth argument: the address of `{ const sigset_t *ss;
/// size_t ss_len; }` (two words, since a system call has only six
/// arguments), or 0.
pub fn pselect6(thread: &alloc::sync::Arc<Thread>, nfds: i32, sets: [usize; 3], timeout: usize, sigmask_arg: usize) -> Result<isize> {
    let (sigmask, sigsetsize) = if sigmask_arg == 0 {
        (0, 0)
    } else {
        (read_u64(sigmask_arg)? as usize, read_u64(sigmask_arg + 8)? as usize)
    };
    super::signal::with_sigmask(thread, sigmask, sigsetsize, || select(thread, nfds, sets, timeout, true))
}

pub fn select(thread: &alloc::sync::Arc<Thread>, nfds: i32, sets: [usize; 3], timeout: usize, is_pselect: bool) -> Result<isize> {
    if !(0..=1024).contains(&nfds) {
        return Err(Errno::EINVAL);
    }
    let nfds = nfds as usize;
    let words = nfds.div_ceil(64);
    let mut input = [[0u64; 16]; 3];
    for (k, &ptr) in sets.iter().enumerate() {
        if ptr != 0 {
            for w in 0..words {
                input[k][w] = read_u64(ptr + w * 8)?;
            }
        }
    }
    let timeout_ns = if timeout == 0 {
        None
    } else if is_pselect {
        Some(super::time::read_timespec(timeout)?)
    } else {
        let raw = read_bytes::<16>(timeout)?;
        let sec = i64::from_le_bytes(raw[..8].try_into().unwrap());
        let usec = i64::from_le_bytes(raw[8..].try_into().unwrap());
        // Linux folds whole seconds of tv_usec into tv_sec; only negative
        // values are invalid.
        if sec < 0 || usec < 0 {
            return Err(Errno::EINVAL);
        }
        Some((sec as u64).saturating_mul(1_000_000_000).saturating_add((usec as u64).saturating_mul(1000)))
    };
    let mut fds: Vec<(i32, u16, u16)> = Vec::new();
    for fd in 0..nfds {
        let bit = |k: usize| input[k][fd / 64] & (1 << (fd % 64)) != 0;
        let mut events = 0;
        if bit(0) {
            events |= POLLIN | POLLHUP;
        }
        if bit(1) {
            events |= POLLOUT;
        }
        if bit(2) {
            events |= POLLERR;
        }
        if events != 0 {
            fds.push((fd as i32, events, 0));
        }
    }
    let run = |fds: &mut Vec<(i32, u16, u16)>| -> Result<usize> {
        let ready = if timeout_ns == Some(0) { scan(thread, fds) } else { {
            let snapshot = fds.clone();
            wait_ready(thread, &snapshot, timeout_ns, || scan(thread, fds))?
        } };
        Ok(ready)
    };
    let started = time::monotonic_ns();
    let result = run(&mut fds);
    if let Some(total) = timeout_ns {
        // Linux writes the time left back into the timeout argument.
        let left = total.saturating_sub(time::monotonic_ns() - started);
        let mut raw = [0u8; 16];
        raw[..8].copy_from_slice(&((left / 1_000_000_000) as i64).to_le_bytes());
        let frac = if is_pselect { left % 1_000_000_000 } else { (left % 1_000_000_000) / 1000 };
        raw[8..].copy_from_slice(&(frac as i64).to_le_bytes());
        copy_to_user(timeout, &raw)?;
    }
    result?;
    let mut output = [[0u64; 16]; 3];
    let mut count = 0;
    for (fd, events, revents) in &fds {
        if *revents & POLLNVAL != 0 {
            return Err(Errno::EBADF);
        }
        let fd = *fd as usize;
        let mut mark = |k: usize| {
            output[k][fd / 64] |= 1 << (fd % 64);
            count += 1;
        };
        if events & POLLIN != 0 && revents & (POLLIN | POLLHUP | POLLERR) != 0 {
            mark(0);
        }
        if events & POLLOUT != 0 && revents & (POLLOUT | POLLERR) != 0 {
            mark(1);
        }
        if events & POLLERR != 0 && revents & POLLERR != 0 {
            mark(2);
        }
    }
    for (k, &ptr) in sets.iter().enumerate() {
        if ptr != 0 {
            for w in 0..words {
                copy_to_user(ptr + w * 8, &output[k][w].to_le_bytes())?;
            }
        }
    }
    Ok(count as isize)
}
