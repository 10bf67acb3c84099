//! The address-space layout facts prctl(PR_SET_MM) may change: where the
//! code, data, heap, stack, arguments and environment are said to be
//! (Linux's `mm_struct` fields that /proc/PID/stat, cmdline and environ
//! report, and the program break brk() starts from), the saved auxiliary
//! vector and the executable file. Checked as Linux 6.1's
//! `validate_prctl_map_addr`; the syscall layer decodes the options.

use alloc::sync::Arc;
use alloc::vec::Vec;

use super::{ProgramInfo, Vm, MMAP_MIN_ADDR};
use crate::error::{Errno, Result};

/// Linux's TASK_SIZE on x86_64 (4-level paging): every address given must
/// be below it.
pub const TASK_SIZE: usize = (1 << 47) - 4096;

/// Linux's saved auxiliary vector size in words on x86_64 (AT_VECTOR_SIZE
/// with the ia32 emulation Debian enables: 2 * (3 + 20 + 1)).
pub const AUXV_WORDS: usize = 48;

/// Where exec placed a program's parts: the addresses Linux keeps in its
/// `mm_struct` for /proc/PID/stat, cmdline and environ (PR_SET_MM may
/// change them). `ProgramInfo` holds them; `Layout` adds the heap.
#[derive(Clone, Copy, Debug, Default)]
pub struct ProgramAreas {
    pub start_code: usize,
    pub end_code: usize,
    pub start_data: usize,
    pub end_data: usize,
    pub start_stack: usize,
    pub arg_start: usize,
    pub arg_end: usize,
    pub env_start: usize,
    pub env_end: usize,
}

/// The addresses of Linux's `struct prctl_mm_map`: the program's areas
/// and the heap's bounds (which the address space keeps itself, for brk).
#[derive(Clone, Copy, Debug, Default)]
pub struct Layout {
    pub areas: ProgramAreas,
    pub start_brk: usize,
    pub brk: usize,
}

impl Layout {
    /// Linux's validate_prctl_map_addr: every address in
    /// [mmap_min_addr, TASK_SIZE), the pairs ordered, and the heap plus
    /// data within RLIMIT_DATA (`data_limit`). EINVAL otherwise.
    pub fn validate(&self, data_limit: u64) -> Result<()> {
        let all = [
            self.areas.start_code, self.areas.end_code, self.areas.start_data, self.areas.end_data, self.start_brk, self.brk,
            self.areas.start_stack, self.areas.arg_start, self.areas.arg_end, self.areas.env_start, self.areas.env_end,
        ];
        if all.iter().any(|&a| !(MMAP_MIN_ADDR..TASK_SIZE).contains(&a)) {
            return Err(Errno::EINVAL);
        }
        if self.areas.start_code >= self.areas.end_code
            || self.areas.start_data > self.areas.end_data
            || self.start_brk > self.brk
            || self.areas.arg_start > self.areas.arg_end
            || self.areas.env_start > self.areas.env_end
        {
            return Err(Errno::EINVAL);
        }
        // check_data_rlimit (its ENOSPC is turned into EINVAL by the caller).
        let used = (self.brk - self.start_brk) as u64 + (self.areas.end_data - self.areas.start_data) as u64;
        if data_limit != u64::MAX && used > data_limit {
            return Err(Errno::EINVAL);
        }
        Ok(())
    }
}

impl Vm {
    /// The layout as it stands (zeros without a program).
    pub fn layout(&self) -> Layout {
        let areas = self.program.as_ref().map_or_else(ProgramAreas::default, |p| p.areas);
        Layout { areas, start_brk: self.brk_start, brk: self.brk }
    }

    /// Whether some mapping covers `addr` or lies above it (Linux's
    /// `find_vma` finding one).
    pub fn has_vma_at_or_above(&self, addr: usize) -> bool {
        self.vmas().any(|v| v.end > addr)
    }

    /// Installs a (validated) layout, and with `auxv` a new saved
    /// auxiliary vector. ESRCH when the address space runs no program.
    pub fn set_layout(&mut self, l: &Layout, auxv: Option<Vec<u8>>) -> Result<()> {
        let old = self.program.as_ref().ok_or(Errno::ESRCH)?;
        let mut p: ProgramInfo = (**old).clone();
        p.areas = l.areas;
        if let Some(auxv) = auxv {
            p.auxv = auxv;
        }
        self.program = Some(Arc::new(p));
        self.brk_start = l.start_brk;
        self.brk = l.brk;
        Ok(())
    }

    /// PR_SET_MM_AUXV: the first `bytes.len()` bytes of the saved vector
    /// (AUXV_WORDS words, the last pair always AT_NULL) are replaced, the
    /// rest kept, as Linux's memcpy into `saved_auxv`.
    pub fn patch_auxv(&mut self, bytes: &[u8]) -> Result<()> {
        let old = self.program.as_ref().ok_or(Errno::ESRCH)?;
        let mut saved = old.auxv.clone();
        saved.resize(AUXV_WORDS * 8, 0);
        let len = bytes.len().min(saved.len());
        saved[..len].copy_from_slice(&bytes[..len]);
        let null_pair = (AUXV_WORDS - 2) * 8;
        saved[null_pair..].fill(0);
        let l = self.layout();
        self.set_layout(&l, Some(saved))
    }

    /// PR_SET_MM_EXE_FILE and PR_SET_MM_MAP's exe_fd: EBUSY while a
    /// mapping still shows the old executable (Linux 6.1's
    /// replace_mm_exe_file), then the new file refuses writers.
    pub fn replace_exe(&mut self, node: Arc<dyn kevlar_vfs::Inode>, path: Vec<u8>) -> Result<()> {
        let old = self.program.as_ref().ok_or(Errno::ESRCH)?;
        let old_id = (old.exe.fs_id(), old.exe.ino());
        let mapped = self.vmas().any(|v| match &v.backing {
            super::Backing::File { file, .. } => {
                let (dev, ino, _) = file.identity();
                (dev, ino) == old_id
            }
            _ => false,
        });
        if mapped {
            return Err(Errno::EBUSY);
        }
        let deny = crate::fs::writecount::deny_write_access(&node).map_err(|_| Errno::EACCES)?;
        let mut p: ProgramInfo = (**old).clone();
        p.exe = node;
        p.exe_path = path;
        p.exe_text = Default::default();
        p._deny_write = Arc::new(deny);
        self.program = Some(Arc::new(p));
        Ok(())
    }
}
