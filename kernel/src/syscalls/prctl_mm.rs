//! prctl(PR_SET_MM, ...): CRIU's and setproctitle's way to say where the
//! arguments, environment, heap... of the address space are (Linux 6.1's
//! prctl_set_mm and prctl_set_mm_map, with CONFIG_CHECKPOINT_RESTORE).
//! The single-field options need CAP_SYS_RESOURCE; PR_SET_MM_MAP needs
//! no capability unless it changes the executable (CAP_SYS_ADMIN or
//! CAP_CHECKPOINT_RESTORE). The checks and the layout live in `mm::layout`.

use alloc::sync::Arc;
use alloc::vec::Vec;

use linux_raw_sys::general as abi;
use linux_raw_sys::prctl as pr;

use super::Args;
use crate::error::{Errno, Result};
use crate::mm::layout::{Layout, ProgramAreas, AUXV_WORDS, TASK_SIZE};
use crate::mm::MMAP_MIN_ADDR;
use crate::process::access::capable;
use crate::process::Thread;
use crate::uaccess::{copy_from_user, copy_to_user};

/// sizeof(struct prctl_mm_map): eleven addresses, the auxv pointer, its
/// size and the exe fd.
const MM_MAP_SIZE: usize = 104;

/// Whether `option` is handled here.
pub fn is_prctl(option: u32) -> bool {
    option == pr::PR_SET_MM
}

pub fn prctl(thread: &Thread, a: &Args) -> Result<isize> {
    // Linux takes the sub-option as an int.
    let (opt, addr, arg4, arg5) = (a.u32(1), a.usize(2), a.usize(3), a.usize(4));
    if arg5 != 0 || (arg4 != 0 && !matches!(opt, pr::PR_SET_MM_AUXV | pr::PR_SET_MM_MAP | pr::PR_SET_MM_MAP_SIZE)) {
        return Err(Errno::EINVAL);
    }
    match opt {
        pr::PR_SET_MM_MAP_SIZE => {
            copy_to_user(addr, &(MM_MAP_SIZE as u32).to_le_bytes())?;
            return Ok(0);
        }
        pr::PR_SET_MM_MAP => return set_map(thread, addr, arg4),
        _ => {}
    }
    if !capable(&thread.process, abi::CAP_SYS_RESOURCE) {
        return Err(Errno::EPERM);
    }
    match opt {
        pr::PR_SET_MM_EXE_FILE => return set_exe(thread, addr as u32 as i32),
        pr::PR_SET_MM_AUXV => {
            if arg4 > AUXV_WORDS * 8 {
                return Err(Errno::EINVAL);
            }
            let mut bytes = alloc::vec![0u8; arg4];
            copy_from_user(&mut bytes, addr)?;
            let vm = thread.process.vm.lock().clone();
            vm.lock().patch_auxv(&bytes)?;
            return Ok(0);
        }
        _ => {}
    }
    if !(MMAP_MIN_ADDR..TASK_SIZE).contains(&addr) {
        return Err(Errno::EINVAL);
    }
    let vm = thread.process.vm.lock().clone();
    let mut vm = vm.lock();
    let mut l = vm.layout();
    let field = match opt {
        pr::PR_SET_MM_START_CODE => &mut l.areas.start_code,
        pr::PR_SET_MM_END_CODE => &mut l.areas.end_code,
        pr::PR_SET_MM_START_DATA => &mut l.areas.start_data,
        pr::PR_SET_MM_END_DATA => &mut l.areas.end_data,
        pr::PR_SET_MM_START_STACK => &mut l.areas.start_stack,
        pr::PR_SET_MM_START_BRK => &mut l.start_brk,
        pr::PR_SET_MM_BRK => &mut l.brk,
        pr::PR_SET_MM_ARG_START => &mut l.areas.arg_start,
        pr::PR_SET_MM_ARG_END => &mut l.areas.arg_end,
        pr::PR_SET_MM_ENV_START => &mut l.areas.env_start,
        pr::PR_SET_MM_ENV_END => &mut l.areas.env_end,
        _ => return Err(Errno::EINVAL),
    };
    *field = addr;
    l.validate(data_limit(thread))?;
    // The strings and the stack must lie in (or below) some mapping.
    if matches!(opt, pr::PR_SET_MM_START_STACK | pr::PR_SET_MM_ARG_START | pr::PR_SET_MM_ARG_END
        | pr::PR_SET_MM_ENV_START | pr::PR_SET_MM_ENV_END) && !vm.has_vma_at_or_above(addr)
    {
        return Err(Errno::EFAULT);
    }
    vm.set_layout(&l, None)?;
    Ok(0)
}

fn data_limit(thread: &Thread) -> u64 {
    thread.process.limits.lock()[abi::RLIMIT_DATA as usize][0]
}

/// PR_SET_MM_MAP: a whole `struct prctl_mm_map` at `addr` of `size`
/// bytes.
fn set_map(thread: &Thread, addr: usize, size: usize) -> Result<isize> {
    if size != MM_MAP_SIZE {
        return Err(Errno::EINVAL);
    }
    let mut raw = [0u8; MM_MAP_SIZE];
    copy_from_user(&mut raw, addr)?;
    let word = |i: usize| u64::from_le_bytes(raw[i * 8..i * 8 + 8].try_into().unwrap()) as usize;
    // struct prctl_mm_map's first eleven words, in its order.
    let l = Layout {
        areas: ProgramAreas {
            start_code: word(0),
            end_code: word(1),
            start_data: word(2),
            end_data: word(3),
            start_stack: word(6),
            arg_start: word(7),
            arg_end: word(8),
            env_start: word(9),
            env_end: word(10),
        },
        start_brk: word(4),
        brk: word(5),
    };
    let auxv_ptr = word(11);
    let auxv_size = u32::from_le_bytes(raw[96..100].try_into().unwrap()) as usize;
    let exe_fd = u32::from_le_bytes(raw[100..104].try_into().unwrap());
    l.validate(data_limit(thread))?;
    let auxv = if auxv_size != 0 {
        if auxv_ptr == 0 || auxv_size > AUXV_WORDS * 8 {
            return Err(Errno::EINVAL);
        }
        let mut saved = alloc::vec![0u8; AUXV_WORDS * 8];
        copy_from_user(&mut saved[..auxv_size], auxv_ptr)?;
        let null_pair = (AUXV_WORDS - 2) * 8;
        saved[null_pair..].fill(0);
        Some(saved)
    } else {
        None
    };
    if exe_fd != u32::MAX {
        if !capable(&thread.process, abi::CAP_SYS_ADMIN) && !capable(&thread.process, abi::CAP_CHECKPOINT_RESTORE) {
            return Err(Errno::EPERM);
        }
        set_exe(thread, exe_fd as i32)?;
    }
    let vm = thread.process.vm.lock().clone();
    vm.lock().set_layout(&l, auxv)?;
    Ok(0)
}

/// PR_SET_MM_EXE_FILE: /proc/PID/exe becomes the file open as `fd`, which
/// must be a regular file the caller may execute, on a mount without
/// noexec (EACCES); EBUSY while the old executable is still mapped.
fn set_exe(thread: &Thread, fd: i32) -> Result<isize> {
    let file = {
        let table = thread.process.files.lock().clone();
        let file = table.lock().get(fd).map_err(|_| Errno::EBADF)?;
        file
    };
    let node = file.ops.inode().ok_or(Errno::EACCES)?;
    if node.file_type() != kevlar_vfs::FileType::Regular || crate::fs::mount::has_flag(&*node, abi::MS_NOEXEC) {
        return Err(Errno::EACCES);
    }
    let stat = node.stat()?;
    let cred = thread.process.creds.lock().fs_cred();
    kevlar_vfs::check_access(&stat, &cred, kevlar_vfs::Access::EXEC).map_err(|_| Errno::EACCES)?;
    if stat.mode & 0o111 == 0 {
        return Err(Errno::EACCES);
    }
    let path: Vec<u8> = file.path.clone();
    let vm = thread.process.vm.lock().clone();
    let node: Arc<dyn kevlar_vfs::Inode> = node;
    vm.lock().replace_exe(node, path)?;
    Ok(0)
}
