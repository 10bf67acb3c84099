//! Signal system calls.

use alloc::sync::Arc;
use core::sync::atomic::Ordering;

use kevlar_platform::x86::trap::TrapFrame;
use crate::uaccess::copy_to_user;
use linux_raw_sys::general as abi;

use super::{read_bytes, read_u64, write_u64};
use crate::error::{Errno, Result};
use crate::process::signal::{self, SigAction, NSIG, SIGKILL, SIGSTOP};
use crate::process::{all_processes, find_process, Thread};

const UNBLOCKABLE: u64 = (1 << (SIGKILL - 1)) | (1 << (SIGSTOP - 1));

pub fn rt_sigaction(thread: &Thread, sig: u32, act: usize, oldact: usize, sigsetsize: usize) -> Result<isize> {
    if sigsetsize != 8 || sig == 0 || sig as usize > NSIG {
        return Err(Errno::EINVAL);
    }
    if act != 0 && (sig == SIGKILL || sig == SIGSTOP) {
        return Err(Errno::EINVAL);
    }
    let new = if act != 0 {
        let raw = read_bytes::<32>(act)?;
        let word = |i: usize| u64::from_le_bytes(raw[i * 8..i * 8 + 8].try_into().unwrap());
        Some(SigAction { handler: word(0), flags: word(1), restorer: word(2), mask: word(3) & !UNBLOCKABLE })
    } else {
        None
    };
    let old = {
        let mut signals = thread.process.signals.lock();
        let old = signals.actions[sig as usize - 1];
        if let Some(new) = new {
            signals.actions[sig as usize - 1] = new;
            // Setting SIG_IGN (or SIG_DFL for a default-ignored signal)
            // discards a pending instance, as POSIX says.
            let ignored = new.handler == 1 || (new.handler == 0 && signal::default_action(sig) == signal::DefaultAction::Ignore);
            if ignored {
                signals.pending &= !(1 << (sig - 1));
            }
        }
        old
    };
    if oldact != 0 {
        let mut raw = [0u8; 32];
        for (i, v) in [old.handler, old.flags, old.restorer, old.mask].iter().enumerate() {
            raw[i * 8..i * 8 + 8].copy_from_slice(&v.to_le_bytes());
        }
        copy_to_user(oldact, &raw)?;
    }
    Ok(0)
}

pub fn rt_sigprocmask(thread: &Thread, how: u32, set: usize, oldset: usize, sigsetsize: usize) -> Result<isize> {
    if sigsetsize != 8 {
        return Err(Errno::EINVAL);
    }
    let new = if set != 0 { Some(read_u64(set)?) } else { None };
    let old = {
        let mut signals = thread.process.signals.lock();
        let old = signals.blocked;
        if let Some(new) = new {
            signals.blocked = match how {
                abi::SIG_BLOCK => old | new,
                abi::SIG_UNBLOCK => old & !new,
                abi::SIG_SETMASK => new,
                _ => return Err(Errno::EINVAL),
            } & !UNBLOCKABLE;
        }
        old
    };
    if oldset != 0 {
        write_u64(oldset, old)?;
    }
    Ok(0)
}

pub fn rt_sigreturn(thread: &Thread, frame: &mut TrapFrame) -> Result<isize> {
    let process = thread.process.clone();
    if signal::sigreturn(&process, frame).is_err() {
        crate::process::exit_current(crate::process::ExitStatus::Signaled(signal::SIGSEGV as u8, true));
    }
    Ok(frame.rax as isize)
}

pub fn rt_sigpending(thread: &Thread, set: usize, sigsetsize: usize) -> Result<isize> {
    if sigsetsize != 8 {
        return Err(Errno::EINVAL);
    }
    let signals = thread.process.signals.lock();
    let pending = signals.pending & signals.blocked;
    drop(signals);
    write_u64(set, pending)?;
    Ok(0)
}

pub fn rt_sigsuspend(thread: &Arc<Thread>, mask: usize, sigsetsize: usize) -> Result<isize> {
    if sigsetsize != 8 {
        return Err(Errno::EINVAL);
    }
    let mask = read_u64(mask)? & !UNBLOCKABLE;
    let saved = {
        let mut signals = thread.process.signals.lock();
        let saved = signals.blocked;
        signals.blocked = mask;
        saved
    };
    // The handler runs with the temporary mask; the old one comes back
    // after it returns (restored through the signal frame's saved mask).
    thread.set_saved_sigmask(Some(saved));
    let queue = crate::process::wait_queue::WaitQueue::new();
    let _ = queue.wait_until::<()>(|| Ok(None));
    Err(Errno::EINTR)
}

pub fn pause(_thread: &Arc<Thread>) -> Result<isize> {
    let queue = crate::process::wait_queue::WaitQueue::new();
    let _ = queue.wait_until::<()>(|| Ok(None));
    Err(Errno::EINTR)
}

pub fn rt_sigtimedwait(thread: &Arc<Thread>, set: usize, info: usize, timeout: usize, sigsetsize: usize) -> Result<isize> {
    if sigsetsize != 8 {
        return Err(Errno::EINVAL);
    }
    let wanted = read_u64(set)? & !UNBLOCKABLE;
    let deadline = if timeout != 0 {
        let ts = super::time::read_timespec(timeout)?;
        Some(kevlar_platform::time::monotonic_ns() + ts)
    } else {
        None
    };
    let queue = crate::process::wait_queue::WaitQueue::new();
    if let Some(deadline) = deadline {
        crate::timer::arm(deadline, thread.clone());
    }
    let taken = queue.wait_until(|| {
        let mut signals = thread.process.signals.lock();
        let ready = signals.pending & wanted;
        if ready != 0 {
            let sig = ready.trailing_zeros() + 1;
            signals.pending &= !(1 << (sig - 1));
            return Ok(Some(sig));
        }
        if deadline.is_some_and(|d| kevlar_platform::time::monotonic_ns() >= d) {
            return Err(Errno::EAGAIN);
        }
        Ok(None)
    });
    crate::timer::disarm(thread);
    let sig = taken?;
    if info != 0 {
        let mut raw = [0u8; 128];
        raw[0..4].copy_from_slice(&(sig as i32).to_le_bytes());
        copy_to_user(info, &raw)?;
    }
    Ok(sig as isize)
}

pub fn sigaltstack(thread: &Thread, ss: usize, old: usize) -> Result<isize> {
    const SS_ONSTACK: i32 = 1;
    const SS_DISABLE: i32 = 2;
    let current = thread.process.signals.lock().alt_stack;
    if old != 0 {
        let mut raw = [0u8; 24];
        raw[0..8].copy_from_slice(&current.0.to_le_bytes());
        raw[8..12].copy_from_slice(&current.2.to_le_bytes());
        raw[16..24].copy_from_slice(&current.1.to_le_bytes());
        copy_to_user(old, &raw)?;
    }
    if ss != 0 {
        let raw = read_bytes::<24>(ss)?;
        let sp = u64::from_le_bytes(raw[0..8].try_into().unwrap());
        let flags = i32::from_le_bytes(raw[8..12].try_into().unwrap());
        let size = u64::from_le_bytes(raw[16..24].try_into().unwrap());
        if flags & !(SS_DISABLE | SS_ONSTACK | (1 << 31)) != 0 {
            return Err(Errno::EINVAL);
        }
        let new = if flags & SS_DISABLE != 0 {
            (0, 0, SS_DISABLE)
        } else {
            if size < 2048 {
                return Err(Errno::ENOMEM);
            }
            (sp, size, 0)
        };
        thread.process.signals.lock().alt_stack = new;
    }
    Ok(0)
}

pub fn kill(thread: &Thread, pid: i32, sig: u32) -> Result<isize> {
    if sig as usize > NSIG {
        return Err(Errno::EINVAL);
    }
    let me = &thread.process;
    let targets: alloc::vec::Vec<_> = match pid {
        // A zombie can still be signalled (nothing happens), as on Linux.
        p if p > 0 => alloc::vec![find_process(p).ok_or(Errno::ESRCH)?],
        0 => {
            let pgid = me.pgid.load(Ordering::Relaxed);
            all_processes().into_iter().filter(|p| p.pgid.load(Ordering::Relaxed) == pgid && p.exit_status().is_none()).collect()
        }
        -1 => all_processes().into_iter().filter(|p| p.pid != 1 && p.pid != me.pid && p.exit_status().is_none()).collect(),
        p => all_processes().into_iter().filter(|q| q.pgid.load(Ordering::Relaxed) == -p && q.exit_status().is_none()).collect(),
    };
    if targets.is_empty() {
        return Err(Errno::ESRCH);
    }
    for target in targets {
        signal::send_signal(&target, sig);
    }
    Ok(0)
}

pub fn tkill(thread: &Thread, tid: i32, sig: u32) -> Result<isize> {
    if tid <= 0 {
        return Err(Errno::EINVAL);
    }
    kill(thread, tid, sig)
}
