//! pidfd_getfd(2): a duplicate of another process's file descriptor,
//! taken through a pidfd, as Linux's kernel/pid.c.
//!
//! The order of Linux's checks: flags (EINVAL: none are defined), the
//! pidfd (EBADF when it is not open or not a pidfd), the process (ESRCH
//! once reaped), the caller's right to it (ptrace attach access with the
//! real ids: EPERM), the descriptor (EBADF when it is not open; ESRCH for
//! a zombie, whose files are gone). The new descriptor is always
//! close-on-exec.

use crate::error::{Errno, Result};
use crate::process::access::{self, PtraceCreds, PtraceMode};
use crate::process::Thread;

pub fn pidfd_getfd(thread: &Thread, pidfd: i32, fd: i32, flags: u32) -> Result<isize> {
    if flags != 0 {
        return Err(Errno::EINVAL);
    }
    let target = super::process::pidfd_process(thread, pidfd)?;
    if target.is_reaped() {
        return Err(Errno::ESRCH);
    }
    if !access::ptrace_may_access(&thread.process, &target, PtraceMode::Attach, PtraceCreds::Real) {
        return Err(Errno::EPERM);
    }
    // An exiting process has let its files go: ESRCH (Linux 6.1's stable
    // kernels say so rather than EBADF).
    if target.exit_status().is_some() {
        return Err(Errno::ESRCH);
    }
    let files = target.files.lock().clone();
    let file = files.lock().get(fd)?;
    let table = thread.process.files.lock().clone();
    let new = table.lock().insert(file, true)?;
    Ok(new as isize)
}

/// process_mrelease(2): frees the memory of a process that is being
/// killed, as Linux's mm/oom_kill.c. Linux's order: flags (EINVAL), the
/// pidfd (EBADF), the process (ESRCH once reaped, or when its memory is
/// already gone: a zombie), a process that is not dying (EINVAL). A dying
/// process's memory is released by its own exit, which is already under
/// way: nothing is left to do early.
pub fn process_mrelease(thread: &Thread, pidfd: i32, flags: u32) -> Result<isize> {
    if flags != 0 {
        return Err(Errno::EINVAL);
    }
    let target = super::process::pidfd_process(thread, pidfd)?;
    if target.is_reaped() || target.exit_status().is_some() {
        return Err(Errno::ESRCH);
    }
    if !target.signals.lock().fatal_pending(target.pid) {
        return Err(Errno::EINVAL);
    }
    Ok(0)
}
