//! process_madvise(2): advice about another process's memory, as Linux
//! 6.1's mm/madvise.c. The order of its checks: flags (EINVAL), the
//! iovecs (more than UIO_MAXIOV or a negative length: EINVAL; unreadable,
//! or a range outside user space: EFAULT), the pidfd (EBADF; ESRCH once
//! reaped), the advice (only MADV_COLD, MADV_PAGEOUT, MADV_WILLNEED and
//! MADV_COLLAPSE: EINVAL), the target's memory (ESRCH for a zombie) and
//! the right to read it (ptrace read access with the file-system ids:
//! EACCES), CAP_SYS_NICE (EPERM). Each range is then advised in turn as
//! madvise would (an unaligned start or a wrapping length EINVAL, a hole
//! ENOMEM); the bytes of the ranges done are returned, or the first
//! range's error. The advice is only a hint: with every page in memory
//! and no swap, COLD, PAGEOUT and WILLNEED change nothing; no mapping can
//! hold a huge page, so MADV_COLLAPSE is EINVAL.

use alloc::vec::Vec;

use linux_raw_sys::general::{CAP_SYS_NICE, MADV_COLD, MADV_COLLAPSE, MADV_PAGEOUT, MADV_WILLNEED};

use super::read_bytes;
use crate::error::{Errno, Result};
use crate::mm::Vm;
use crate::process::access::{self, PtraceCreds, PtraceMode};
use crate::process::Thread;
use kevlar_platform::mm::PAGE_SIZE;

const UIO_MAXIOV: usize = 1024;
const MAX_RW_COUNT: usize = 0x7fff_f000;
const USER_END: usize = 0x0000_8000_0000_0000;

/// The iovecs as Linux's import_iovec leaves them.
fn import_iovecs(addr: usize, count: usize) -> Result<Vec<(usize, usize)>> {
    if count > UIO_MAXIOV {
        return Err(Errno::EINVAL);
    }
    let mut vecs = Vec::with_capacity(count);
    let mut total = 0usize;
    for i in 0..count {
        let raw = read_bytes::<16>(addr.checked_add(i * 16).ok_or(Errno::EFAULT)?)?;
        let base = u64::from_le_bytes(raw[..8].try_into().unwrap()) as usize;
        let mut len = u64::from_le_bytes(raw[8..].try_into().unwrap()) as usize;
        if len > isize::MAX as usize {
            return Err(Errno::EINVAL);
        }
        if base.checked_add(len).is_none_or(|end| end > USER_END) {
            return Err(Errno::EFAULT);
        }
        len = len.min(MAX_RW_COUNT - total);
        total += len;
        vecs.push((base, len));
    }
    Ok(vecs)
}

/// One range, as do_madvise checks it against `vm`.
fn advise_range(vm: &Vm, start: usize, len: usize, advice: u32) -> Result<()> {
    if start % PAGE_SIZE != 0 {
        return Err(Errno::EINVAL);
    }
    let len_up = len.wrapping_add(PAGE_SIZE - 1) & !(PAGE_SIZE - 1);
    if len != 0 && len_up == 0 {
        return Err(Errno::EINVAL);
    }
    let end = start.checked_add(len_up).ok_or(Errno::EINVAL)?;
    if end == start {
        return Ok(());
    }
    // Holes: the mapped parts are advised, then ENOMEM.
    let mut at = start;
    let mut hole = false;
    for vma in vm.vmas() {
        if vma.end <= start || vma.start >= end {
            continue;
        }
        if vma.start > at {
            hole = true;
        }
        if advice == MADV_COLLAPSE {
            return Err(Errno::EINVAL);
        }
        at = vma.end;
    }
    if hole || at < end {
        return Err(Errno::ENOMEM);
    }
    Ok(())
}

pub fn process_madvise(thread: &Thread, pidfd: i32, iov: usize, count: usize, advice: i32, flags: u32) -> Result<isize> {
    if flags != 0 {
        return Err(Errno::EINVAL);
    }
    let vecs = import_iovecs(iov, count)?;
    let target = super::process::pidfd_process(thread, pidfd)?;
    if target.is_reaped() {
        return Err(Errno::ESRCH);
    }
    let advice = advice as u32;
    if !matches!(advice, MADV_COLD | MADV_PAGEOUT | MADV_WILLNEED | MADV_COLLAPSE) {
        return Err(Errno::EINVAL);
    }
    if target.exit_status().is_some() {
        return Err(Errno::ESRCH);
    }
    if !access::ptrace_may_access(&thread.process, &target, PtraceMode::Read, PtraceCreds::Fs) {
        return Err(Errno::EACCES);
    }
    if !access::capable(&thread.process, CAP_SYS_NICE) {
        return Err(Errno::EPERM);
    }
    let vm = target.vm.lock().clone();
    let vm = vm.lock();
    let mut done = 0usize;
    for (base, len) in vecs {
        if let Err(e) = advise_range(&vm, base, len, advice) {
            if done == 0 {
                return Err(e);
            }
            break;
        }
        done += len;
    }
    Ok(done as isize)
}
