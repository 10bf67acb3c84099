//! Memory locking and residency: mlock, mlock2, munlock, mlockall,
//! munlockall, mincore; membarrier; the advice calls posix_fadvise
//! (fadvise64) and readahead. The ranges live in mm/mlock.rs.

use alloc::vec;

use kevlar_platform::mm::PAGE_SIZE;
use linux_raw_sys::general as abi;

use kevlar_vfs::FileType;

use crate::error::{Errno, Result};
use crate::mm::Vm;
use crate::process::access::capable;
use crate::process::Thread;
use crate::uaccess::copy_to_user;

const PAGE_MASK: usize = !(PAGE_SIZE - 1);

/// Linux's range rounding: the length grows by the start's offset in its
/// page and is rounded up to pages (wrapping as Linux's PAGE_ALIGN does);
/// the start is rounded down.
fn page_range(start: usize, len: usize) -> (usize, usize) {
    let len = len.wrapping_add(start & !PAGE_MASK).wrapping_add(PAGE_SIZE - 1) & PAGE_MASK;
    (start & PAGE_MASK, len)
}

/// RLIMIT_MEMLOCK in pages (soft limit).
fn lock_limit_pages(thread: &Thread) -> u64 {
    thread.process.limits.lock()[abi::RLIMIT_MEMLOCK as usize][0] / PAGE_SIZE as u64
}

/// Linux's can_do_mlock: a non-zero RLIMIT_MEMLOCK or CAP_IPC_LOCK (EPERM).
fn can_mlock(thread: &Thread) -> Result<()> {
    if thread.process.limits.lock()[abi::RLIMIT_MEMLOCK as usize][0] != 0 || capable(&thread.process, abi::CAP_IPC_LOCK) {
        Ok(())
    } else {
        Err(Errno::EPERM)
    }
}

fn do_mlock(thread: &Thread, start: usize, len: usize, onfault: bool) -> Result<isize> {
    can_mlock(thread)?;
    let (start, len) = page_range(start, len);
    let privileged = capable(&thread.process, abi::CAP_IPC_LOCK);
    let limit = lock_limit_pages(thread);
    let vm = thread.process.vm.lock().clone();
    let mut vm = vm.lock();
    let mut locked = (len / PAGE_SIZE) as u64 + (vm.locked_bytes() / PAGE_SIZE) as u64;
    let end = start.checked_add(len);
    if locked > limit && !privileged {
        // Pages already locked in the range do not count twice.
        if let Some(end) = end {
            locked -= ((end - start - vm.lock_growth(start, end.min(Vm::user_end().max(start)))) / PAGE_SIZE) as u64;
        }
    }
    if locked > limit && !privileged {
        return Err(Errno::ENOMEM);
    }
    let end = end.ok_or(Errno::EINVAL)?;
    if end == start {
        return Ok(0);
    }
    vm.lock_range(start, end, onfault)?;
    drop(vm);
    if !onfault {
        populate(thread, start, end);
    }
    Ok(0)
}

/// Makes the pages of `[start, end)` present, a bounded step at a time
/// with the address space unlocked in between; stops for a fatal signal.
pub fn populate(thread: &Thread, start: usize, end: usize) {
    let vm = thread.process.vm.lock().clone();
    let mut va = start;
    while va < end && !thread.fatal_signal_pending() {
        va = vm.lock().populate_step(va, end);
        crate::process::scheduler::cond_resched();
    }
}

/// mmap of a mapping that will be locked (MAP_LOCKED, or MCL_FUTURE in
/// force): RLIMIT_MEMLOCK counts it (EAGAIN past it without
/// CAP_IPC_LOCK, as Linux's mlock_future_check).
pub fn check_locked_mmap(thread: &Thread, vm: &Vm, len: usize, map_locked: bool) -> Result<()> {
    if !map_locked && !vm.future_locks().0 {
        return Ok(());
    }
    let pages = ((len + vm.locked_bytes()) / PAGE_SIZE) as u64;
    if pages > lock_limit_pages(thread) && !capable(&thread.process, abi::CAP_IPC_LOCK) {
        return Err(Errno::EAGAIN);
    }
    Ok(())
}

pub fn mlock(thread: &Thread, start: usize, len: usize) -> Result<isize> {
    do_mlock(thread, start, len, false)
}

pub fn mlock2(thread: &Thread, start: usize, len: usize, flags: u32) -> Result<isize> {
    if flags & !abi::MLOCK_ONFAULT != 0 {
        return Err(Errno::EINVAL);
    }
    do_mlock(thread, start, len, flags & abi::MLOCK_ONFAULT != 0)
}

pub fn munlock(thread: &Thread, start: usize, len: usize) -> Result<isize> {
    let (start, len) = page_range(start, len);
    let end = start.checked_add(len).ok_or(Errno::EINVAL)?;
    if end == start {
        return Ok(0);
    }
    let vm = thread.process.vm.lock().clone();
    vm.lock().unlock_range(start, end)?;
    Ok(0)
}

pub fn mlockall(thread: &Thread, flags: u32) -> Result<isize> {
    let known = abi::MCL_CURRENT | abi::MCL_FUTURE | abi::MCL_ONFAULT;
    if flags == 0 || flags & !known != 0 || flags == abi::MCL_ONFAULT {
        return Err(Errno::EINVAL);
    }
    can_mlock(thread)?;
    let current = flags & abi::MCL_CURRENT != 0;
    let limit = lock_limit_pages(thread);
    let privileged = capable(&thread.process, abi::CAP_IPC_LOCK);
    let vm = thread.process.vm.lock().clone();
    let mut vm = vm.lock();
    if current && (vm.mapped_bytes() / PAGE_SIZE) as u64 > limit && !privileged {
        return Err(Errno::ENOMEM);
    }
    let onfault = flags & abi::MCL_ONFAULT != 0;
    vm.lock_all(current, flags & abi::MCL_FUTURE != 0, onfault);
    let ranges = if current && !onfault { vm.mapped_ranges() } else { alloc::vec::Vec::new() };
    drop(vm);
    for (start, end) in ranges {
        populate(thread, start, end);
    }
    Ok(0)
}

pub fn munlockall(thread: &Thread) -> Result<isize> {
    let vm = thread.process.vm.lock().clone();
    vm.lock().unlock_all();
    Ok(0)
}

/// mincore in Linux's order: an unaligned start (EINVAL), a range past
/// user space (ENOMEM), a vector past it (EFAULT), then page by page: an
/// unmapped page (ENOMEM), an unwritable vector (EFAULT).
pub fn mincore(thread: &Thread, start: usize, len: usize, vec_addr: usize) -> Result<isize> {
    if start & !PAGE_MASK != 0 {
        return Err(Errno::EINVAL);
    }
    let user_end = Vm::user_end();
    if start.checked_add(len).is_none_or(|end| end > user_end) {
        return Err(Errno::ENOMEM);
    }
    let mut pages = len / PAGE_SIZE + usize::from(len % PAGE_SIZE != 0);
    if vec_addr.checked_add(pages).is_none_or(|end| end > user_end) {
        return Err(Errno::EFAULT);
    }
    let vm = thread.process.vm.lock().clone();
    let (mut start, mut vec_addr) = (start, vec_addr);
    let mut chunk = vec![0u8; pages.min(PAGE_SIZE)];
    while pages > 0 {
        if thread.fatal_signal_pending() {
            return Err(Errno::EINTR);
        }
        let n = pages.min(PAGE_SIZE);
        vm.lock().residency(start, &mut chunk[..n])?;
        copy_to_user(vec_addr, &chunk[..n])?;
        pages -= n;
        vec_addr += n;
        start += n * PAGE_SIZE;
        crate::process::scheduler::cond_resched();
    }
    Ok(0)
}

// membarrier commands (enum membarrier_cmd in linux-raw-sys).
const CMD_QUERY: i32 = 0;
const CMD_GLOBAL: i32 = 1;
const CMD_GLOBAL_EXPEDITED: i32 = 2;
const CMD_REGISTER_GLOBAL_EXPEDITED: i32 = 4;
const CMD_PRIVATE_EXPEDITED: i32 = 8;
const CMD_REGISTER_PRIVATE_EXPEDITED: i32 = 16;
const CMD_PRIVATE_EXPEDITED_SYNC_CORE: i32 = 32;
const CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE: i32 = 64;
const CMD_PRIVATE_EXPEDITED_RSEQ: i32 = 128;
const CMD_REGISTER_PRIVATE_EXPEDITED_RSEQ: i32 = 256;
const CMD_FLAG_CPU: u32 = 1;
/// What MEMBARRIER_CMD_QUERY reports in Linux 6.1 (every command up to
/// the RSEQ ones; GET_REGISTRATIONS came in 6.3).
const SUPPORTED: i32 = 511;

/// A full barrier on every CPU: a fence here, and an interrupt (which
/// serializes) to every other online CPU.
fn barrier_everywhere() {
    core::sync::atomic::fence(core::sync::atomic::Ordering::SeqCst);
    let me = kevlar_platform::smp::cpu_index();
    for cpu in 0..kevlar_platform::smp::cpu_count() {
        if cpu != me {
            kevlar_platform::smp::wake_cpu(cpu);
        }
    }
}

pub fn membarrier(thread: &Thread, cmd: i32, flags: u32, _cpu_id: i32) -> Result<isize> {
    if cmd == CMD_PRIVATE_EXPEDITED_RSEQ {
        if flags != 0 && flags != CMD_FLAG_CPU {
            return Err(Errno::EINVAL);
        }
    } else if flags != 0 {
        return Err(Errno::EINVAL);
    }
    let vm = thread.process.vm.lock().clone();
    let registered = |bit: i32| vm.lock().membarrier & bit as u32 != 0;
    let register = |bit: i32| {
        vm.lock().membarrier |= bit as u32;
        Ok(0)
    };
    match cmd {
        CMD_QUERY => Ok(SUPPORTED as isize),
        CMD_GLOBAL | CMD_GLOBAL_EXPEDITED => {
            barrier_everywhere();
            Ok(0)
        }
        CMD_REGISTER_GLOBAL_EXPEDITED
        | CMD_REGISTER_PRIVATE_EXPEDITED
        | CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE
        | CMD_REGISTER_PRIVATE_EXPEDITED_RSEQ => register(cmd),
        CMD_PRIVATE_EXPEDITED | CMD_PRIVATE_EXPEDITED_SYNC_CORE | CMD_PRIVATE_EXPEDITED_RSEQ => {
            // Each needs its registration (the REGISTER_ command is the
            // command's bit shifted left once).
            if !registered(cmd << 1) {
                return Err(Errno::EPERM);
            }
            barrier_everywhere();
            Ok(0)
        }
        _ => Err(Errno::EINVAL),
    }
}

/// posix_fadvise as Linux's generic_fadvise judges it for files whose data
/// stays in memory: EBADF, ESPIPE for pipes and FIFOs, EINVAL for a
/// negative length or an unknown advice; otherwise the advice is taken
/// (and has nothing to do).
pub fn fadvise64(thread: &Thread, fd: i32, _offset: i64, len: i64, advice: i32) -> Result<isize> {
    let file = thread.process.files.lock().lock().get(fd)?;
    let is_pipe = file.ops.pipe().is_some() || file.ops.inode().is_some_and(|i| i.file_type() == FileType::Fifo);
    if is_pipe {
        return Err(Errno::ESPIPE);
    }
    if len < 0 {
        return Err(Errno::EINVAL);
    }
    match advice as u32 {
        abi::POSIX_FADV_NORMAL
        | abi::POSIX_FADV_RANDOM
        | abi::POSIX_FADV_SEQUENTIAL
        | abi::POSIX_FADV_WILLNEED
        | abi::POSIX_FADV_DONTNEED
        | abi::POSIX_FADV_NOREUSE => Ok(0),
        _ => Err(Errno::EINVAL),
    }
}

/// readahead: a file open for reading (EBADF), a regular file (EINVAL),
/// then posix_fadvise(WILLNEED) of the range.
pub fn readahead(thread: &Thread, fd: i32, offset: i64, count: usize) -> Result<isize> {
    let file = thread.process.files.lock().lock().get(fd).map_err(|_| Errno::EBADF)?;
    if !file.readable() {
        return Err(Errno::EBADF);
    }
    if file.ops.inode().is_none_or(|i| i.file_type() != FileType::Regular) {
        return Err(Errno::EINVAL);
    }
    fadvise64(thread, fd, offset, count as i64, abi::POSIX_FADV_WILLNEED as i32)
}
