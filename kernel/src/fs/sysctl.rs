//! The file-system limits and switches of /proc/sys/fs (Linux's
//! fs/file_table.c, fs/file.c, fs/pipe.c, fs/namei.c and fs/exec.c
//! settings), read where they are enforced: the count of open file
//! descriptions against `file-max` (ENFILE for a user without
//! CAP_SYS_ADMIN), `nr_open` (the largest RLIMIT_NOFILE and fd number),
//! `pipe-max-size` and the per-user pipe page limits, and the
//! `protected_*` checks of path walks, links and O_CREAT opens.

use core::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering};

/// Linux's NR_FILE: file-max is never set below it at boot.
const NR_FILE: u64 = 8192;

/// file-max (0: not computed yet).
static FILE_MAX: AtomicU64 = AtomicU64::new(0);
/// Open file descriptions now (file-nr's first number).
static NR_FILES: AtomicUsize = AtomicUsize::new(0);
/// nr_open.
static NR_OPEN: AtomicUsize = AtomicUsize::new(super::fdtable::NR_OPEN);
/// pipe-max-size.
static PIPE_MAX_SIZE: AtomicU32 = AtomicU32::new(1 << 20);
/// pipe-user-pages-hard (0: no limit) and -soft.
static PIPE_USER_PAGES_HARD: AtomicU64 = AtomicU64::new(0);
static PIPE_USER_PAGES_SOFT: AtomicU64 = AtomicU64::new(16384);
/// protected_symlinks, protected_hardlinks, protected_fifos,
/// protected_regular. Upstream Linux starts with all four off; Debian's
/// kernel (the oracle) starts with the first two on, as most distributions
/// do, and that is what programs on a Linux system meet.
pub static PROTECTED_SYMLINKS: AtomicU32 = AtomicU32::new(1);
pub static PROTECTED_HARDLINKS: AtomicU32 = AtomicU32::new(1);
pub static PROTECTED_FIFOS: AtomicU32 = AtomicU32::new(0);
pub static PROTECTED_REGULAR: AtomicU32 = AtomicU32::new(0);

/// nr_open's bounds (Linux's sysctl_nr_open_min and _max: BITS_PER_LONG
/// and INT_MAX rounded down to a multiple of it).
pub const NR_OPEN_MIN: u64 = 64;
pub const NR_OPEN_MAX: u64 = (i32::MAX as u64) & !63;

/// file-max: at boot a tenth of the memory in KiB, at least NR_FILE
/// (Linux's files_maxfiles_init).
pub fn file_max() -> u64 {
    let max = FILE_MAX.load(Ordering::Relaxed);
    if max != 0 {
        return max;
    }
    let kib = kevlar_platform::mm::pmm::stats().total_bytes as u64 / 1024;
    let max = (kib / 10).max(NR_FILE);
    let _ = FILE_MAX.compare_exchange(0, max, Ordering::Relaxed, Ordering::Relaxed);
    FILE_MAX.load(Ordering::Relaxed)
}

/// Sets file-max (0..=LONG_MAX, checked by the caller).
pub fn set_file_max(max: u64) {
    // 0 is a real setting on Linux; keep "not computed" apart from it.
    file_max();
    FILE_MAX.store(max, Ordering::Relaxed);
}

/// The open file descriptions now.
pub fn nr_files() -> usize {
    NR_FILES.load(Ordering::Relaxed)
}

/// Whether a new open file description (already counted) is one too many
/// for a caller without CAP_SYS_ADMIN (Linux's alloc_empty_file: ENFILE).
pub fn over_file_max() -> bool {
    let max = file_max();
    // The new description is counted: it fails if the count before it
    // was at the limit already.
    (nr_files() as u64).saturating_sub(1) >= max
}

/// Counts an open file description while it lives.
pub struct FileCount(());

impl FileCount {
    pub fn new() -> FileCount {
        NR_FILES.fetch_add(1, Ordering::Relaxed);
        FileCount(())
    }
}

impl Default for FileCount {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for FileCount {
    fn drop(&mut self) {
        NR_FILES.fetch_sub(1, Ordering::Relaxed);
    }
}

/// nr_open: the largest fd number + 1 and RLIMIT_NOFILE.
pub fn nr_open() -> usize {
    NR_OPEN.load(Ordering::Relaxed)
}

/// Sets nr_open (checked against NR_OPEN_MIN..=NR_OPEN_MAX by the caller).
pub fn set_nr_open(n: usize) {
    NR_OPEN.store(n, Ordering::Relaxed);
}

/// pipe-max-size: the largest capacity F_SETPIPE_SZ gives a caller
/// without CAP_SYS_RESOURCE.
pub fn pipe_max_size() -> usize {
    PIPE_MAX_SIZE.load(Ordering::Relaxed) as usize
}

/// A pipe size as Linux's round_pipe_size: a page at least, else the next
/// power of two; 0 (invalid) past 2 GiB.
pub fn round_pipe_size(size: u64) -> u64 {
    if size > 1 << 31 {
        0
    } else if size < 4096 {
        4096
    } else {
        size.next_power_of_two()
    }
}

/// Sets pipe-max-size from a written value (rounded; EINVAL past 2 GiB).
pub fn set_pipe_max_size(size: u64) -> crate::error::Result<()> {
    match round_pipe_size(size) {
        0 => Err(crate::error::Errno::EINVAL),
        n => {
            PIPE_MAX_SIZE.store(n as u32, Ordering::Relaxed);
            Ok(())
        }
    }
}

/// pipe-user-pages-hard (0: none).
pub fn pipe_user_pages_hard() -> u64 {
    PIPE_USER_PAGES_HARD.load(Ordering::Relaxed)
}

/// pipe-user-pages-soft (0: none).
pub fn pipe_user_pages_soft() -> u64 {
    PIPE_USER_PAGES_SOFT.load(Ordering::Relaxed)
}

pub fn set_pipe_user_pages(hard: bool, pages: u64) {
    if hard { &PIPE_USER_PAGES_HARD } else { &PIPE_USER_PAGES_SOFT }.store(pages, Ordering::Relaxed);
}

/// Whether `pages` pipe pages of one user are over the hard limit, and
/// over the soft one (Linux's too_many_pipe_buffers_hard and _soft).
pub fn too_many_pipe_pages(pages: usize) -> (bool, bool) {
    let (hard, soft) = (pipe_user_pages_hard(), pipe_user_pages_soft());
    (hard != 0 && pages as u64 > hard, soft != 0 && pages as u64 > soft)
}
