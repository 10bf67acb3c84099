//! Memory system calls: brk, mmap, munmap, mprotect, mremap, madvise.

use alloc::sync::Arc;

use kevlar_platform::mm::PAGE_SIZE;
use linux_raw_sys::general as abi;

use crate::error::{Errno, Result};
use crate::mm::{overcommit, Backing, Prot, SharedPages, Vma, MMAP_MIN_ADDR};
use crate::process::Thread;

fn page_up(len: usize) -> Option<usize> {
    len.checked_add(PAGE_SIZE - 1).map(|v| v & !(PAGE_SIZE - 1))
}

pub fn brk(thread: &Thread, addr: usize) -> Result<isize> {
    let vm = thread.process.vm.lock().clone();
    let (current, growth, total_vm) = {
        let vm = vm.lock();
        let old_end = vm.brk.next_multiple_of(PAGE_SIZE);
        let growth = addr.checked_next_multiple_of(PAGE_SIZE).map_or(0, |end| end.saturating_sub(old_end));
        (vm.brk, growth, strict_total_vm(&vm))
    };
    if addr == 0 {
        return Ok(current as isize);
    }
    // Growth the overcommit policy refuses leaves the break where it is,
    // as Linux's brk does.
    if growth > 0 && overcommit::enough_memory((growth / PAGE_SIZE) as u64, total_vm, false).is_err() {
        return Ok(current as isize);
    }
    let new = vm.lock().set_brk(addr);
    Ok(new as isize)
}

/// The pages `vm` maps (Linux's total_vm), which only strict overcommit
/// weighs (0 otherwise: not worth the walk).
fn strict_total_vm(vm: &crate::mm::Vm) -> u64 {
    if overcommit::mode() != overcommit::NEVER {
        return 0;
    }
    vm.vmas().map(|v| ((v.end - v.start) / PAGE_SIZE) as u64).sum()
}

pub fn mmap(thread: &Thread, addr: usize, len: usize, prot: u32, flags: u32, fd: i32, offset: u64) -> Result<isize> {
    let prot = Prot::from_bits(prot)?;
    let known = abi::MAP_SHARED | abi::MAP_PRIVATE | abi::MAP_SHARED_VALIDATE | abi::MAP_FIXED | abi::MAP_ANONYMOUS
        | abi::MAP_FIXED_NOREPLACE | abi::MAP_NORESERVE | abi::MAP_POPULATE | abi::MAP_STACK | abi::MAP_GROWSDOWN
        | abi::MAP_DENYWRITE | abi::MAP_EXECUTABLE | abi::MAP_LOCKED | abi::MAP_NONBLOCK;
    let kind = flags & (abi::MAP_SHARED | abi::MAP_PRIVATE | abi::MAP_SHARED_VALIDATE);
    if len == 0 || (kind != abi::MAP_SHARED && kind != abi::MAP_PRIVATE && kind != abi::MAP_SHARED_VALIDATE) {
        return Err(Errno::EINVAL);
    }
    if kind == abi::MAP_SHARED_VALIDATE && flags & !known != 0 {
        return Err(Errno::EOPNOTSUPP);
    }
    if offset % PAGE_SIZE as u64 != 0 {
        return Err(Errno::EINVAL);
    }
    let len = page_up(len).ok_or(Errno::ENOMEM)?;
    let shared = kind != abi::MAP_PRIVATE;
    let file = if flags & abi::MAP_ANONYMOUS != 0 { None } else { Some(thread.process.files.lock().lock().get(fd)?) };
    let anonymous = || if shared { Backing::Shared(Arc::new(SharedPages::default())) } else { Backing::Anonymous };
    // A shared mapping of a file opened without write access (or sealed
    // against writes) can never be made writable: Linux clears VM_MAYWRITE
    // and mprotect(PROT_WRITE) fails with EACCES.
    let mut write_denied = false;
    let mut exec_denied = false;
    let backing = match file {
        None => anonymous(),
        Some(file) if file.ops.maps_as_anonymous() => {
            if !file.readable() || (shared && prot.write && !file.writable()) {
                return Err(Errno::EACCES);
            }
            write_denied = shared && !file.writable();
            anonymous()
        }
        Some(file) => {
            let inode = file.ops.inode().ok_or(Errno::ENODEV)?;
            // A message queue's node is a regular file without mmap.
            if inode.file_type() != kevlar_vfs::FileType::Regular || file.ops.as_mqueue().is_some() {
                return Err(Errno::ENODEV);
            }
            if !file.readable() || (shared && prot.write && !file.writable()) {
                return Err(Errno::EACCES);
            }
            // A file of a noexec mount (the one it was opened through) is
            // never mapped executable (Linux's path_noexec in do_mmap).
            // mprotect may not add PROT_EXEC later (VM_MAYEXEC cleared: EACCES).
            if crate::fs::mount::has_flag_at(file.mount_id(), &*inode, abi::MS_NOEXEC) {
                if prot.exec {
                    return Err(Errno::EPERM);
                }
                exec_denied = true;
            }
            crate::fs::memfd::check_mmap(&*inode, shared, prot.write)?;
            write_denied = shared && (!file.writable() || crate::fs::memfd::denies_shared_write(&*inode));
            if shared && !crate::fs::pages::can_map_shared(&*inode) {
                // The file's data is not in frames (generated files): there
                // is nothing a shared mapping could write to.
                return Err(Errno::ENODEV);
            }
            Backing::File { file: crate::fs::inode_backing::inode_backing(inode, file.path.clone()), offset, file_len: len, shared }
        }
    };
    let vm = thread.process.vm.lock().clone();
    // Private writable and shared anonymous memory is committed: the
    // overcommit policy may refuse it (before the address space is locked:
    // strict mode adds up every address space).
    let accountable = match backing {
        Backing::Shared(_) => true,
        _ => !shared && prot.write,
    };
    if accountable {
        let total_vm = strict_total_vm(&vm.lock());
        overcommit::enough_memory((len / PAGE_SIZE) as u64, total_vm, flags & abi::MAP_NORESERVE != 0)?;
    }
    let mut vm = vm.lock();
    let map_locked = flags & abi::MAP_LOCKED != 0;
    super::mlock::check_locked_mmap(thread, &vm, len, map_locked)?;
    let start = if flags & (abi::MAP_FIXED | abi::MAP_FIXED_NOREPLACE) != 0 {
        if addr % PAGE_SIZE != 0 {
            return Err(Errno::EINVAL);
        }
        let end = addr.checked_add(len).ok_or(Errno::ENOMEM)?;
        if addr < MMAP_MIN_ADDR || end > crate::mm::Vm::user_end() {
            return Err(if addr < MMAP_MIN_ADDR { Errno::EPERM } else { Errno::ENOMEM });
        }
        if flags & abi::MAP_FIXED_NOREPLACE != 0 && !vm.is_free(addr, end) {
            return Err(Errno::EEXIST);
        }
        addr
    } else {
        let hint = addr & !(PAGE_SIZE - 1);
        if hint >= MMAP_MIN_ADDR && hint.checked_add(len).is_some_and(|e| e <= crate::mm::MMAP_TOP) && vm.is_free(hint, hint + len) {
            hint
        } else {
            vm.find_free(len).ok_or(Errno::ENOMEM)?
        }
    };
    // Execute-only memory gets the address space's execute-only key.
    let prot = if prot.is_exec_only() { Prot { key: vm.exec_only_key().unwrap_or(0), ..prot } } else { prot };
    vm.map(Vma { start, end: start + len, prot, backing, shared_page_base: 0, write_denied, exec_denied });
    // A locked mapping (MAP_LOCKED, MCL_FUTURE) is made present, as on
    // Linux (MAP_POPULATE is not).
    if map_locked {
        vm.lock_new_mapping(start, start + len);
    }
    let populate = map_locked || vm.future_locks().1;
    drop(vm);
    if populate {
        super::mlock::populate(thread, start, start + len);
    }
    Ok(start as isize)
}

pub fn munmap(thread: &Thread, addr: usize, len: usize) -> Result<isize> {
    if addr % PAGE_SIZE != 0 || len == 0 {
        return Err(Errno::EINVAL);
    }
    let len = page_up(len).ok_or(Errno::EINVAL)?;
    let end = addr.checked_add(len).ok_or(Errno::EINVAL)?;
    if end > crate::mm::Vm::user_end() {
        return Err(Errno::EINVAL);
    }
    let vm = thread.process.vm.lock().clone();
    vm.lock().unmap(addr, end);
    Ok(0)
}

pub fn mprotect(thread: &Thread, addr: usize, len: usize, prot: u32) -> Result<isize> {
    let prot = Prot::from_bits(prot & !(abi::PROT_GROWSDOWN | abi::PROT_GROWSUP))?;
    if addr % PAGE_SIZE != 0 {
        return Err(Errno::EINVAL);
    }
    let len = page_up(len).ok_or(Errno::ENOMEM)?;
    if len == 0 {
        return Ok(0);
    }
    let end = addr.checked_add(len).ok_or(Errno::ENOMEM)?;
    let vm = thread.process.vm.lock().clone();
    vm.lock().protect(addr, end, prot)?;
    Ok(0)
}

/// Linux's PAGE_ALIGN for mremap's lengths: it wraps, so a length within
/// a page of the top becomes 0 (and then EINVAL).
fn page_align_wrapping(len: usize) -> usize {
    len.wrapping_add(PAGE_SIZE - 1) & !(PAGE_SIZE - 1)
}

/// `[start, start + len)` when it lies in the user half (munmap's check).
fn user_range(start: usize, len: usize) -> Option<(usize, usize)> {
    start.checked_add(len).filter(|&end| end <= crate::mm::Vm::user_end()).map(|end| (start, end))
}

/// mremap in Linux 6.1's order of checks: the source must be mapped
/// (EFAULT), a shrink is an munmap of the tail (EINVAL when that range
/// leaves the user half), growing needs the whole source inside one
/// mapping (EFAULT), moving needs MREMAP_MAYMOVE.
pub fn mremap(thread: &Thread, old: usize, old_len: usize, new_len: usize, flags: u32, new_addr: usize) -> Result<isize> {
    let (may_move, fixed, dont_unmap) =
        (flags & abi::MREMAP_MAYMOVE != 0, flags & abi::MREMAP_FIXED != 0, flags & abi::MREMAP_DONTUNMAP != 0);
    if flags & !(abi::MREMAP_MAYMOVE | abi::MREMAP_FIXED | abi::MREMAP_DONTUNMAP) != 0 || old % PAGE_SIZE != 0 {
        return Err(Errno::EINVAL);
    }
    if (fixed && !may_move) || (dont_unmap && (!may_move || old_len != new_len)) {
        return Err(Errno::EINVAL);
    }
    let old_len = page_align_wrapping(old_len);
    let new_len = page_align_wrapping(new_len);
    if new_len == 0 || dont_unmap {
        return Err(Errno::EINVAL); // MREMAP_DONTUNMAP: not supported yet
    }
    let vm = thread.process.vm.lock().clone();
    let mut vm = vm.lock();
    // Linux 6.1 looks the source up first: nothing mapped there is EFAULT,
    // even for a shrink.
    vm.find(old).ok_or(Errno::EFAULT)?;
    if fixed {
        let (target, target_end) = user_range(new_addr, new_len).filter(|_| new_addr % PAGE_SIZE == 0).ok_or(Errno::EINVAL)?;
        if new_addr < MMAP_MIN_ADDR {
            return Err(Errno::EINVAL);
        }
        // Overlap as Linux computes it (a wrapping source end overlaps nothing).
        if old.wrapping_add(old_len) > new_addr && target_end > old {
            return Err(Errno::EINVAL);
        }
        vm.unmap(target, target_end);
        let mut old_len = old_len;
        if old_len > new_len {
            let (tail, tail_end) = old.checked_add(new_len).and_then(|t| user_range(t, old_len - new_len)).ok_or(Errno::EINVAL)?;
            vm.unmap(tail, tail_end);
            old_len = new_len;
        }
        let vma = vm.find(old).cloned().ok_or(Errno::EFAULT)?;
        if old_len > vma.end - old {
            return Err(Errno::EFAULT);
        }
        vm.move_range(old, old_len, target, new_len)?;
        return Ok(target as isize);
    }
    if old_len >= new_len {
        match old.checked_add(new_len).and_then(|t| user_range(t, old_len - new_len)) {
            Some((tail, tail_end)) => vm.unmap(tail, tail_end),
            None if old_len != new_len => return Err(Errno::EINVAL),
            None => {}
        }
        return Ok(old as isize);
    }
    let vma = vm.find(old).cloned().ok_or(Errno::EFAULT)?;
    if old_len > vma.end - old {
        return Err(Errno::EFAULT);
    }
    // An old length of 0 asks Linux to duplicate a shared mapping; it
    // refuses that for private ones. Duplicating is not supported here.
    if old_len == 0 {
        return Err(Errno::EINVAL);
    }
    // Grow in place when the following range is free.
    let grown_end = old.checked_add(new_len).filter(|&end| end <= crate::mm::MMAP_TOP);
    if let Some(grown_end) = grown_end.filter(|&end| vma.end == old + old_len && vm.is_free(vma.end, end)) {
        vm.extend_vma(vma.start, grown_end);
        return Ok(old as isize);
    }
    if !may_move {
        return Err(Errno::ENOMEM);
    }
    let target = vm.find_free(new_len).ok_or(Errno::ENOMEM)?;
    vm.move_range(old, old_len, target, new_len)?;
    Ok(target as isize)
}

pub fn madvise(thread: &Thread, addr: usize, len: usize, advice: u32) -> Result<isize> {
    if addr % PAGE_SIZE != 0 {
        return Err(Errno::EINVAL);
    }
    let len = page_up(len).ok_or(Errno::EINVAL)?;
    match advice {
        abi::MADV_DONTNEED => {
            let vm = thread.process.vm.lock().clone();
            vm.lock().discard_pages(addr, addr + len)?;
            Ok(0)
        }
        abi::MADV_NORMAL | abi::MADV_RANDOM | abi::MADV_SEQUENTIAL | abi::MADV_WILLNEED | abi::MADV_FREE
        | abi::MADV_DONTFORK | abi::MADV_DOFORK | abi::MADV_HUGEPAGE | abi::MADV_NOHUGEPAGE | abi::MADV_DONTDUMP | abi::MADV_DODUMP => Ok(0),
        _ => Err(Errno::EINVAL),
    }
}

/// msync: file data lives in page-cache frames that `read` and `write`
/// use too, so only MS_SYNC has work: writing the shared file mappings of
/// the range to their disk. The call checks its arguments and that the
/// range is mapped, as Linux does (ENOMEM for a gap).
pub fn msync(thread: &Thread, addr: usize, len: usize, flags: u32) -> Result<isize> {
    if addr % PAGE_SIZE != 0
        || flags & !(abi::MS_ASYNC | abi::MS_SYNC | abi::MS_INVALIDATE) != 0
        || flags & (abi::MS_ASYNC | abi::MS_SYNC) == (abi::MS_ASYNC | abi::MS_SYNC)
    {
        return Err(Errno::EINVAL);
    }
    let len = page_up(len).ok_or(Errno::ENOMEM)?;
    let end = addr.checked_add(len).ok_or(Errno::ENOMEM)?;
    let vm = thread.process.vm.lock().clone();
    let vm = vm.lock();
    let mut cursor = addr;
    let mut files: alloc::vec::Vec<Arc<dyn crate::mm::FileBacking>> = alloc::vec::Vec::new();
    while cursor < end {
        let vma = vm.find(cursor).ok_or(Errno::ENOMEM)?;
        if let Backing::File { file, shared: true, .. } = &vma.backing {
            if flags & abi::MS_SYNC != 0 && !files.iter().any(|f| Arc::ptr_eq(f, file)) {
                files.push(file.clone());
            }
        }
        cursor = vma.end;
    }
    drop(vm);
    for file in files {
        file.sync()?;
    }
    Ok(0)
}
