//! seccomp(2), the seccomp and no_new_privs prctl options, and the check
//! every system call of a thread with filters goes through (`check`).
//! The filters and their rules live in `process::seccomp`; the programs are
//! checked and run by `kevlar_bpf`.

use alloc::sync::Arc;
use alloc::vec::Vec;

use kevlar_bpf::{Filter, SockFilter};
use kevlar_platform::x86::trap::TrapFrame;
use linux_raw_sys::general::{SIGKILL, SIGSYS};
use linux_raw_sys::prctl as pr;
use linux_raw_sys::ptrace as abi;

use super::Args;
use crate::error::{Errno, Result};
use crate::process::seccomp::{self as sc, Install, Verdict};
use crate::process::signal::{force_signal_to_thread, SigInfo};
use crate::process::{ptrace, Thread};
use crate::uaccess::{copy_from_user, copy_to_user};

/// The filter flags Linux 6.1 knows.
const KNOWN_FLAGS: u32 = abi::SECCOMP_FILTER_FLAG_TSYNC
    | abi::SECCOMP_FILTER_FLAG_LOG
    | abi::SECCOMP_FILTER_FLAG_SPEC_ALLOW
    | abi::SECCOMP_FILTER_FLAG_NEW_LISTENER
    | abi::SECCOMP_FILTER_FLAG_TSYNC_ESRCH
    | abi::SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV;

/// The flags that need a listener: user notification is not offered, so
/// they are refused as a kernel without it refuses them (EINVAL), and
/// SECCOMP_GET_ACTION_AVAIL says SECCOMP_RET_USER_NOTIF is unavailable.
const LISTENER_FLAGS: u32 = abi::SECCOMP_FILTER_FLAG_NEW_LISTENER | abi::SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV;

fn errno_rax(e: u32) -> u64 {
    (-(i64::from(e))) as u64
}

/// seccomp(op, flags, uargs).
pub fn seccomp(thread: &Arc<Thread>, op: u32, flags: u32, uargs: usize) -> Result<isize> {
    match op {
        abi::SECCOMP_SET_MODE_STRICT => {
            if flags != 0 || uargs != 0 {
                return Err(Errno::EINVAL);
            }
            sc::set_strict(thread).map(|_| 0)
        }
        abi::SECCOMP_SET_MODE_FILTER => set_mode_filter(thread, flags, uargs),
        abi::SECCOMP_GET_ACTION_AVAIL => {
            if flags != 0 {
                return Err(Errno::EINVAL);
            }
            let mut raw = [0u8; 4];
            copy_from_user(&mut raw, uargs)?;
            match u32::from_le_bytes(raw) {
                abi::SECCOMP_RET_KILL_PROCESS
                | abi::SECCOMP_RET_KILL_THREAD
                | abi::SECCOMP_RET_TRAP
                | abi::SECCOMP_RET_ERRNO
                | abi::SECCOMP_RET_TRACE
                | abi::SECCOMP_RET_LOG
                | abi::SECCOMP_RET_ALLOW => Ok(0),
                _ => Err(Errno::EOPNOTSUPP),
            }
        }
        abi::SECCOMP_GET_NOTIF_SIZES => {
            if flags != 0 {
                return Err(Errno::EINVAL);
            }
            let sizes = [
                core::mem::size_of::<abi::seccomp_notif>() as u16,
                core::mem::size_of::<abi::seccomp_notif_resp>() as u16,
                core::mem::size_of::<abi::seccomp_data>() as u16,
            ];
            let mut raw = [0u8; 6];
            for (i, s) in sizes.iter().enumerate() {
                raw[i * 2..i * 2 + 2].copy_from_slice(&s.to_le_bytes());
            }
            copy_to_user(uargs, &raw)?;
            Ok(0)
        }
        _ => Err(Errno::EINVAL),
    }
}

/// Reads and checks a `struct sock_fprog` at `uargs` in Linux's order:
/// EFAULT for the header, EINVAL for the length, EACCES without
/// no_new_privs or CAP_SYS_ADMIN, EINVAL for a null program, EFAULT for
/// the program, EINVAL (ENOMEM) from the checks.
fn load_filter(thread: &Thread, uargs: usize) -> Result<Filter> {
    let mut head = [0u8; 16];
    copy_from_user(&mut head, uargs)?;
    let len = usize::from(u16::from_le_bytes([head[0], head[1]]));
    let ptr = u64::from_le_bytes(head[8..16].try_into().unwrap()) as usize;
    if len == 0 || len > kevlar_bpf::MAX_INSNS {
        return Err(Errno::EINVAL);
    }
    sc::may_install(thread)?;
    if ptr == 0 {
        return Err(Errno::EINVAL);
    }
    let bytes = len * SockFilter::SIZE; // at most 32 KiB: no overflow
    let mut raw = Vec::new();
    raw.try_reserve_exact(bytes).map_err(|_| Errno::ENOMEM)?;
    raw.resize(bytes, 0u8);
    copy_from_user(&mut raw, ptr)?;
    let prog: Vec<SockFilter> = raw.chunks_exact(SockFilter::SIZE).map(|c| SockFilter::from_bytes(c.try_into().unwrap())).collect();
    Filter::load(&prog).map_err(|e| match e {
        kevlar_bpf::Error::Invalid => Errno::EINVAL,
        kevlar_bpf::Error::NoMemory => Errno::ENOMEM,
    })
}

fn set_mode_filter(thread: &Arc<Thread>, flags: u32, uargs: usize) -> Result<isize> {
    if flags & !KNOWN_FLAGS != 0 || flags & LISTENER_FLAGS != 0 {
        return Err(Errno::EINVAL);
    }
    let filter = load_filter(thread, uargs)?;
    let tsync = flags & abi::SECCOMP_FILTER_FLAG_TSYNC != 0;
    match sc::install(thread, filter, flags & abi::SECCOMP_FILTER_FLAG_LOG != 0, tsync)? {
        Install::Done => Ok(0),
        Install::Blocked(_) if flags & abi::SECCOMP_FILTER_FLAG_TSYNC_ESRCH != 0 => Err(Errno::ESRCH),
        Install::Blocked(tid) => Ok(tid as isize),
    }
}

/// Whether prctl option `option` is one of this file's.
pub fn is_prctl(option: u32) -> bool {
    matches!(option, pr::PR_SET_NO_NEW_PRIVS | pr::PR_GET_NO_NEW_PRIVS | pr::PR_SET_SECCOMP | pr::PR_GET_SECCOMP)
}

/// prctl's PR_SET/GET_NO_NEW_PRIVS and PR_SET/GET_SECCOMP.
pub fn prctl(thread: &Arc<Thread>, a: Args) -> Result<isize> {
    let rest = a.0[2] | a.0[3] | a.0[4];
    match a.u32(0) {
        pr::PR_SET_NO_NEW_PRIVS => {
            if a.0[1] != 1 || rest != 0 {
                return Err(Errno::EINVAL);
            }
            thread.seccomp.set_no_new_privs();
            Ok(0)
        }
        pr::PR_GET_NO_NEW_PRIVS => {
            if a.0[1] != 0 || rest != 0 {
                return Err(Errno::EINVAL);
            }
            Ok(isize::from(thread.seccomp.no_new_privs()))
        }
        pr::PR_GET_SECCOMP => Ok(isize::from(thread.seccomp.mode())),
        pr::PR_SET_SECCOMP => match a.0[1] {
            // Strict mode through prctl ignores the third argument.
            m if m == u64::from(abi::SECCOMP_MODE_STRICT) => seccomp(thread, abi::SECCOMP_SET_MODE_STRICT, 0, 0),
            m if m == u64::from(abi::SECCOMP_MODE_FILTER) => seccomp(thread, abi::SECCOMP_SET_MODE_FILTER, 0, a.usize(2)),
            _ => Err(Errno::EINVAL),
        },
        _ => Err(Errno::EINVAL),
    }
}

/// The check before system call `number` of a thread in strict or filter
/// mode (after the ptrace syscall-entry stop, as on Linux). Returns the
/// number to run (a tracer may change it at PTRACE_EVENT_SECCOMP), or None
/// when the call must not run: its result is in `frame.rax` already, or
/// a signal or the thread's end is under way.
#[inline(never)]
pub fn check(thread: &Arc<Thread>, frame: &mut TrapFrame, number: usize) -> Option<usize> {
    judge(thread, frame, number, false)
}

fn judge(thread: &Arc<Thread>, frame: &mut TrapFrame, number: usize, after_trace: bool) -> Option<usize> {
    // seccomp_data.nr is an int: only the low 32 bits of rax count, as for
    // the call itself.
    let nr = number as u32 as i32;
    let args = [frame.rdi, frame.rsi, frame.rdx, frame.r10, frame.r8, frame.r9];
    let data = kevlar_bpf::seccomp_data(nr, abi::AUDIT_ARCH_X86_64, frame.rip, args);
    match sc::evaluate(thread, nr, &data) {
        Verdict::Allow | Verdict::Log => Some(number),
        Verdict::Errno(e) => {
            frame.rax = errno_rax(e);
            None
        }
        Verdict::Trap(data) => {
            // The handler sees the registers of the call: rax its number.
            frame.rax = number as u64;
            force_signal_to_thread(thread, SigInfo::seccomp(frame.rip, nr, abi::AUDIT_ARCH_X86_64, data));
            None
        }
        Verdict::Trace(_) if after_trace => Some(number),
        Verdict::Trace(data) => match ptrace::seccomp_event(thread, frame, u64::from(data)) {
            None => {
                frame.rax = errno_rax(linux_raw_sys::errno::ENOSYS);
                None
            }
            // The tracer skipped the call (its result is what it left
            // in rax), or the process is being killed.
            Some(n) if (n as u32 as i32) < 0 => None,
            // The tracer may have changed the call: judged again, with
            // TRACE now meaning allow.
            Some(n) => judge(thread, frame, n as usize, true),
        },
        Verdict::UserNotif => {
            frame.rax = errno_rax(linux_raw_sys::errno::ENOSYS);
            None
        }
        Verdict::KillThread => {
            sc::kill(thread, SIGSYS, false);
            None
        }
        Verdict::KillProcess => {
            sc::kill(thread, SIGSYS, true);
            None
        }
        Verdict::StrictKill => {
            sc::kill(thread, SIGKILL, false);
            None
        }
    }
}
