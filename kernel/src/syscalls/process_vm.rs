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

use alloc::vec::Vec;

use super::read_bytes;
use crate::error::{Errno, Result};
use crate::process::access::{self, PtraceCreds, PtraceMode};
use crate::process::{find_process, find_thread, Thread};
use crate::uaccess::{copy_from_user, copy_to_user};
use kevlar_platform::mm::PAGE_SIZE;

/// Linux's UIO_MAXIOV.
const UIO_MAXIOV: usize = 1024;
/// Linux's MAX_RW_COUNT: the most one call transfers.
const MAX_RW_COUNT: usize = 0x7fff_f000;
/// The end of user space (access_ok's bound).
const USER_END: usize = 0x0000_8000_0000_0000;
/// Pages copied between checks for SIGKILL and yielding the CPU.
const PAGES_PER_BREATH: usize = 64;

/// Reads `count` iovecs at `addr` (EINVAL beyond UIO_MAXIOV or for a
/// length that is negative as an ssize_t; EFAULT for the array).
fn read_iovecs(addr: usize, count: usize) -> Result<Vec<(usize, usize)>> {
    if count > UIO_MAXIOV {
        return Err(Errno::EINVAL);
    }
    let mut vecs = Vec::with_capacity(count);
    for i in 0..count {
        let raw = read_bytes::<16>(addr + i * 16)?;
        let base = u64::from_le_bytes(raw[..8].try_into().unwrap()) as usize;
        let len = u64::from_le_bytes(raw[8..].try_into().unwrap()) as usize;
        if len > isize::MAX as usize {
            return Err(Errno::EINVAL);
        }
        vecs.push((base, len));
    }
    Ok(vecs)
}

/// The local iovecs as Linux's import_iovec leaves them: each buffer
/// inside user space (EFAULT), the total cut at MAX_RW_COUNT.
fn import_local(addr: usize, count: usize) -> Result<Vec<(usize, usize)>> {
    let mut vecs = read_iovecs(addr, count)?;
    let mut total = 0usize;
    for v in vecs.iter_mut() {
        if v.0.checked_add(v.1).is_none_or(|end| end > USER_END) {
            return Err(Errno::EFAULT);
        }
        v.1 = v.1.min(MAX_RW_COUNT - total);
        total += v.1;
    }
    Ok(vecs)
}

pub fn process_vm_rw(thread: &Thread, pid: i32, local: usize, local_count: usize, remote: usize, remote_count: usize, flags: u64, write: bool) -> Result<isize> {
    if flags != 0 {
        return Err(Errno::EINVAL);
    }
    let local = import_local(local, local_count)?;
    if local.iter().all(|v| v.1 == 0) {
        return Ok(0);
    }
    let remote = read_iovecs(remote, remote_count)?;
    if remote.iter().all(|v| v.1 == 0) {
        return Ok(0);
    }
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
    'remote: for &(rbase, rlen) in &remote {
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
