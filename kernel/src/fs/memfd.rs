//! memfd_create's files and file seals (Linux's mm/memfd.c).
//!
//! A memfd is a regular file of a kernel-internal tmpfs, unlinked as soon
//! as it is made, so its data lives in page-cache frames like any tmpfs
//! file (read/write, MAP_SHARED) and goes away with its last reference.
//! Seals are kept per memfd inode; other tmpfs regular files report
//! F_SEAL_SEAL as Linux's shmem files do, and files of other file systems
//! have no seals (EINVAL).

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::sync::{Arc, Weak};
use alloc::vec::Vec;
use core::sync::atomic::{AtomicU64, Ordering};

use kevlar_platform::sync::SpinLock;
use kevlar_tmpfs::{TmpFs, TmpFsOptions};
use kevlar_vfs::{FileType, Inode};
use linux_raw_sys::general as abi;

use super::file::{InodeFile, OpenFile};
use crate::error::{Errno, Result};

/// Every seal Linux 6.1 knows (F_SEAL_EXEC came in 6.3).
pub const ALL_SEALS: u32 = abi::F_SEAL_SEAL | abi::F_SEAL_SHRINK | abi::F_SEAL_GROW | abi::F_SEAL_WRITE | abi::F_SEAL_FUTURE_WRITE;

/// The longest name (NAME_MAX less the "memfd:" prefix).
pub const NAME_MAX: usize = 255 - 6;

const PAGE_SIZE: u64 = 4096;

/// The internal tmpfs the memfds live in.
static FS: SpinLock<Option<Arc<TmpFs>>> = SpinLock::new(None);
/// Its file-system id (u64::MAX until the first memfd): the write path
/// compares an inode's id with it before looking anything up.
static FS_ID: AtomicU64 = AtomicU64::new(u64::MAX);
/// Names the memfds get in the internal tmpfs while they are made.
static NEXT_NAME: AtomicU64 = AtomicU64::new(0);

/// The seals of each live memfd, by inode number. Entries of memfds that
/// are gone are dropped when the table has doubled since the last sweep.
struct SealTable {
    seals: BTreeMap<u64, (Weak<dyn Inode>, u32)>,
    sweep_at: usize,
}

static SEALS: SpinLock<SealTable> = SpinLock::new(SealTable { seals: BTreeMap::new(), sweep_at: 64 });

fn internal_fs() -> Arc<TmpFs> {
    let mut fs = FS.lock();
    if let Some(fs) = fs.as_ref() {
        return fs.clone();
    }
    let made = super::pages::new_tmpfs(TmpFsOptions::default());
    FS_ID.store(made.root().fs_id(), Ordering::Release);
    *fs = Some(made.clone());
    made
}

/// Makes a memfd named `name` (without the prefix), owned by `uid`/`gid`;
/// without `allow_sealing` it starts sealed with F_SEAL_SEAL.
pub fn create(name: &[u8], allow_sealing: bool, uid: u32, gid: u32) -> Result<Arc<OpenFile>> {
    let fs = internal_fs();
    let root = fs.root();
    let tmp_name = format!("memfd-{}", NEXT_NAME.fetch_add(1, Ordering::Relaxed)).into_bytes();
    let inode = root.create(&tmp_name, FileType::Regular, 0o777, uid, gid, 0)?;
    root.unlink(&tmp_name)?;
    {
        let mut table = SEALS.lock();
        if table.seals.len() >= table.sweep_at {
            table.seals.retain(|_, (node, _)| node.strong_count() > 0);
            table.sweep_at = (table.seals.len() * 2).max(64);
        }
        let initial = if allow_sealing { 0 } else { abi::F_SEAL_SEAL };
        table.seals.insert(inode.ino(), (Arc::downgrade(&inode), initial));
    }
    let mut path: Vec<u8> = b"/memfd:".to_vec();
    path.extend_from_slice(name);
    Ok(OpenFile::new(InodeFile::new(inode), abi::O_RDWR | abi::O_LARGEFILE, path))
}

/// The seals of `inode`: its own for a memfd, F_SEAL_SEAL for another
/// tmpfs regular file, None (EINVAL for the fcntl) for anything else.
fn seals_of(inode: &Arc<dyn Inode>) -> Option<u32> {
    if inode.fs_id() == FS_ID.load(Ordering::Acquire) {
        return SEALS.lock().seals.get(&inode.ino()).map(|(_, s)| *s);
    }
    let tmpfs_file = inode.file_type() == FileType::Regular && inode.as_any().downcast_ref::<kevlar_tmpfs::TmpInode>().is_some();
    tmpfs_file.then_some(abi::F_SEAL_SEAL)
}

/// The seals that restrict `inode` (0 at once for anything but a memfd:
/// this runs on every write and truncation).
fn active_seals(inode: &dyn Inode) -> u32 {
    if inode.fs_id() != FS_ID.load(Ordering::Acquire) {
        return 0;
    }
    SEALS.lock().seals.get(&inode.ino()).map_or(0, |(_, s)| *s)
}

/// F_GET_SEALS.
pub fn get_seals(file: &OpenFile) -> Result<isize> {
    let inode = file.ops.inode().ok_or(Errno::EINVAL)?;
    seals_of(&inode).map(|s| s as isize).ok_or(Errno::EINVAL)
}

/// F_ADD_SEALS, checked in Linux's order (memfd_add_seals): the fd must
/// be open for writing (EPERM), the bits known (EINVAL), the file sealable
/// (EINVAL) and not sealed against sealing (EPERM); F_SEAL_WRITE waits for
/// no shared mapping (EBUSY).
pub fn add_seals(file: &OpenFile, arg: u64) -> Result<isize> {
    if arg > u32::MAX as u64 {
        return Err(Errno::EINVAL);
    }
    let seals = arg as u32;
    if !file.writable() {
        return Err(Errno::EPERM);
    }
    if seals & !ALL_SEALS != 0 {
        return Err(Errno::EINVAL);
    }
    let inode = file.ops.inode().ok_or(Errno::EINVAL)?;
    let current = seals_of(&inode).ok_or(Errno::EINVAL)?;
    if current & abi::F_SEAL_SEAL != 0 {
        return Err(Errno::EPERM);
    }
    // The mapping scan takes address-space locks: do it before the table's.
    if seals & abi::F_SEAL_WRITE != 0 && current & abi::F_SEAL_WRITE == 0 && crate::mm::file_mapped_shared((inode.fs_id(), inode.ino())) {
        return Err(Errno::EBUSY);
    }
    let mut table = SEALS.lock();
    let entry = table.seals.get_mut(&inode.ino()).ok_or(Errno::EINVAL)?;
    if entry.1 & abi::F_SEAL_SEAL != 0 {
        return Err(Errno::EPERM);
    }
    entry.1 |= seals;
    Ok(0)
}

/// How much of a write of `len` bytes at `offset` the seals allow: none
/// with F_SEAL_WRITE or F_SEAL_FUTURE_WRITE (EPERM); with F_SEAL_GROW the
/// page-sized steps of the copy that stay within the file (EPERM when the
/// first does not), as shmem_write_begin refuses page by page.
pub fn check_write(inode: &dyn Inode, offset: u64, len: usize) -> Result<usize> {
    let seals = active_seals(inode);
    if seals == 0 || len == 0 {
        return Ok(len);
    }
    if seals & (abi::F_SEAL_WRITE | abi::F_SEAL_FUTURE_WRITE) != 0 {
        return Err(Errno::EPERM);
    }
    if seals & abi::F_SEAL_GROW == 0 {
        return Ok(len);
    }
    let size = inode.stat()?.size;
    let end = offset.saturating_add(len as u64);
    let mut pos = offset;
    while pos < end {
        let step_end = end.min((pos / PAGE_SIZE + 1) * PAGE_SIZE);
        if step_end > size {
            break;
        }
        pos = step_end;
    }
    if pos == offset {
        return Err(Errno::EPERM);
    }
    Ok((pos - offset) as usize)
}

/// Refuses a size change the seals forbid (EPERM): shrinking under
/// F_SEAL_SHRINK, growing under F_SEAL_GROW.
pub fn check_resize(inode: &dyn Inode, old: u64, new: u64) -> Result<()> {
    let seals = active_seals(inode);
    if (new < old && seals & abi::F_SEAL_SHRINK != 0) || (new > old && seals & abi::F_SEAL_GROW != 0) {
        return Err(Errno::EPERM);
    }
    Ok(())
}

/// Whether a shared mapping of `inode` may never become writable (Linux
/// clears VM_MAYWRITE under F_SEAL_WRITE and F_SEAL_FUTURE_WRITE, so
/// mprotect adding PROT_WRITE fails with EACCES).
pub fn denies_shared_write(inode: &dyn Inode) -> bool {
    active_seals(inode) & (abi::F_SEAL_WRITE | abi::F_SEAL_FUTURE_WRITE) != 0
}

/// Refuses a mapping the seals forbid (EPERM): a shared writable one
/// under F_SEAL_WRITE or F_SEAL_FUTURE_WRITE (shared read-only and private
/// mappings stay allowed, as in Linux 6.1).
pub fn check_mmap(inode: &dyn Inode, shared: bool, prot_write: bool) -> Result<()> {
    let seals = active_seals(inode);
    if seals & (abi::F_SEAL_WRITE | abi::F_SEAL_FUTURE_WRITE) != 0 && shared && prot_write {
        return Err(Errno::EPERM);
    }
    Ok(())
}

/// What the seals forbid of fallocate (shmem_fallocate): punching a hole
/// under F_SEAL_WRITE or F_SEAL_FUTURE_WRITE, allocating past the end
/// under F_SEAL_GROW (EPERM).
pub fn check_fallocate(inode: &dyn Inode, punch: bool, end: u64) -> Result<()> {
    let seals = active_seals(inode);
    if seals == 0 {
        return Ok(());
    }
    if punch && seals & (abi::F_SEAL_WRITE | abi::F_SEAL_FUTURE_WRITE) != 0 {
        return Err(Errno::EPERM);
    }
    if !punch && seals & abi::F_SEAL_GROW != 0 && end > inode.stat()?.size {
        return Err(Errno::EPERM);
    }
    Ok(())
}
