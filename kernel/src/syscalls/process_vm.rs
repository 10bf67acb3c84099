//! process_vm_readv(2) and process_vm_writev(2): copying between the
//! caller's memory and another process's, as Linux's mm/process_vm_access.c.
//!
//! The order of Linux's checks: flags (EINVAL), the local iovecs (at most
//! UIO_MAXIOV, no negative length: EINVAL; unreadable array or a buffer
//! outside user space: EFAULT), nothing to copy (0), the remote iovecs
//! (the same limits; no access check: an unmapped remote address is
//! found while copying), nothing to copy remotely (0), the target (ESRCH,
//! also for a zombie), the caller's right to it (ptrace attach access
//! with the real ids: EPERM). Copying stops at the first remote address
//! the target could not access as its own program (no forced access) or
//! the first local fault; the count copied so far is returned, or EFAULT
//! if nothing was.

use super::iovec::IoVecs;
use crate::error::{Errno, Result};
use crate::process::access::{self, PtraceCreds, PtraceMode};
use crate::process::{find_process, find_thread, Thread};
use crate::uaccess::{copy_from_user, copy_to_user};
use kevlar_platform::mm::PAGE_SIZE;

/// Pages copied between checks for SIGKILL and yielding the CPU.
const PAGES_PER_BREATH: usize = 64;

pub fn process_vm_rw(thread: &Thread, pid: i32, local: usize, local_count: usize, remote: usize, remote_count: usize, flags: u64, write: bool) -> Result<isize> {
    if flags != 0 {
        return Err(Errno::EINVAL);
    }
    let local = IoVecs::read(local, local_count)?;
    if local.total() == 0 {
        return Ok(0);
    }
    let remote = IoVecs::read_remote(remote, remote_count)?;
    if remote.total() == 0 {
        return Ok(0);
    }
    let (local, remote) = (local.as_slice(), remote.as_slice());
    let global = crate::ns::pid::global(pid);
    let target = find_process(global).or_else(|| find_thread(global).map(|t| t.process.clone())).ok_or(Errno::ESRCH)?;
    if pid <= 0 || target.exit_status().is_some() {
        return Err(Errno::ESRCH);
    }
    if !access::ptrace_may_access(&thread.process, &target, PtraceMode::Attach, PtraceCreds::Real) {
        return Err(Errno::EPERM);
    }
    let target_vm = target.vm.lock().clone();
    let mut done = 0usize;
    let mut buf = [0u8; PAGE_SIZE];
    let (mut li, mut loff) = (0usize, 0usize);
    let mut pages = 0usize;
    'remote: for &(rbase, rlen) in remote {
        let mut roff = 0usize;
        while roff < rlen {
            while li < local.len() && loff == local[li].1 {
                li += 1;
                loff = 0;
            }
            if li == local.len() {
                break 'remote;
            }
            let Some(raddr) = rbase.checked_add(roff) else { break 'remote };
            let laddr = local[li].0 + loff;
            let to_page_end = PAGE_SIZE - raddr % PAGE_SIZE;
            let len = to_page_end.min(rlen - roff).min(local[li].1 - loff);
            let chunk = &mut buf[..len];
            // No lock is held across a user copy: the target may be the
            // caller itself.
            if write {
                if copy_from_user(chunk, laddr).is_err() || !target_vm.lock().write_page_part(raddr, chunk) {
                    break 'remote;
                }
            } else if !target_vm.lock().read_page_part(raddr, chunk) || copy_to_user(laddr, chunk).is_err() {
                break 'remote;
            }
            done += len;
            roff += len;
            loff += len;
            pages += 1;
            if pages % PAGES_PER_BREATH == 0 {
                let killed = {
                    let signals = thread.process.signals.lock();
                    signals.group_exit().is_some() || signals.pending(thread.tid()) & (1 << (linux_raw_sys::general::SIGKILL - 1)) != 0
                };
                if killed {
                    break 'remote;
                }
                crate::process::scheduler::schedule();
            }
        }
    }
    if done == 0 {
        return Err(Errno::EFAULT);
    }
    Ok(done as isize)
}
