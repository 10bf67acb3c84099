//! kcmp(2): decoding and the checks, in Linux's order: both tasks exist
//! in the caller's PID namespace (ESRCH), the caller may read both
//! (ptrace read access with the real ids: EPERM), the type is known
//! (EINVAL); then the comparison (`process::kcmp`).

use super::read_bytes;
use crate::error::{Errno, Result};
use crate::process::access::{self, PtraceCreds, PtraceMode};
use crate::process::kcmp::{self, Resource, Task};
use crate::process::{find_process, find_thread, Thread};

// include/uapi/linux/kcmp.h (linux-raw-sys has none of these).
const KCMP_FILE: u32 = 0;
const KCMP_VM: u32 = 1;
const KCMP_FILES: u32 = 2;
const KCMP_FS: u32 = 3;
const KCMP_SIGHAND: u32 = 4;
const KCMP_IO: u32 = 5;
const KCMP_SYSVSEM: u32 = 6;
const KCMP_EPOLL_TFD: u32 = 7;

/// The task with id `pid` as the caller numbers it (a zombie too, as
/// Linux's find_task_by_vpid).
fn task(pid: i32) -> Result<Task> {
    if pid <= 0 {
        return Err(Errno::ESRCH);
    }
    let global = crate::ns::pid::global(pid);
    if let Some(thread) = find_thread(global) {
        return Ok(Task { process: thread.process.clone(), tid: global });
    }
    let process = find_process(global).ok_or(Errno::ESRCH)?;
    Ok(Task { process, tid: global })
}

/// An fd as Linux's get_file_raw_ptr takes it (an unsigned int).
fn fd_of(idx: u64) -> i32 {
    idx as u32 as i32
}

pub fn kcmp(thread: &Thread, pid1: i32, pid2: i32, kind: u32, idx1: u64, idx2: u64) -> Result<isize> {
    let a = task(pid1)?;
    let b = task(pid2)?;
    for t in [&a, &b] {
        if !access::ptrace_may_access(&thread.process, &t.process, PtraceMode::Read, PtraceCreds::Real) {
            return Err(Errno::EPERM);
        }
    }
    let what = match kind {
        KCMP_FILE => Resource::File(fd_of(idx1), fd_of(idx2)),
        KCMP_VM => Resource::Vm,
        KCMP_FILES => Resource::Files,
        KCMP_FS => Resource::Fs,
        KCMP_SIGHAND => Resource::Sighand,
        KCMP_IO => Resource::Io,
        KCMP_SYSVSEM => Resource::Sysvsem,
        KCMP_EPOLL_TFD => {
            // struct kcmp_epoll_slot { __u32 efd, tfd, toff; }
            let slot = read_bytes::<12>(idx2 as usize)?;
            let word = |i: usize| u32::from_le_bytes(slot[i * 4..i * 4 + 4].try_into().unwrap());
            Resource::EpollTarget { file: fd_of(idx1), efd: word(0) as i32, tfd: word(1) as i32, nth: word(2) as usize }
        }
        _ => return Err(Errno::EINVAL),
    };
    kcmp::compare(&a, &b, what)
}
