//! What belongs to a file system rather than to one mount of it (Linux's
//! superblock flags): read-only. `mount -o remount,ro` (MS_REMOUNT
//! without MS_BIND) makes the file system read-only, so every mount of it
//! refuses writes (EROFS) whatever its own flags, statfs reports
//! ST_RDONLY and /proc/PID/mounts `ro` for each, and mountinfo's super
//! options column says `ro`; the remount is EBUSY while a regular file of
//! it is open for writing (Linux's sb_prepare_remount_readonly), as a
//! remount of one mount read-only is while a file is open for writing
//! through that mount.
//! A file system mounted read-only from the start is read-only too.

use alloc::vec::Vec;
use core::sync::atomic::{AtomicBool, Ordering};

use kevlar_platform::sync::SpinLock;
use linux_raw_sys::general as abi;

/// The file systems (by device number) that are read-only.
static READ_ONLY: SpinLock<Vec<u64>> = SpinLock::new(Vec::new());
/// Whether any is (every permission check asks: no lock when none is).
static ANY: AtomicBool = AtomicBool::new(false);

/// Tells whether some file system is read-only.
pub fn any() -> bool {
    ANY.load(Ordering::Acquire)
}

/// Tells whether file system `fs_id` is read-only.
pub fn is_read_only(fs_id: u64) -> bool {
    any() && READ_ONLY.lock().contains(&fs_id)
}

/// The MS_* flags file system `fs_id` adds to each of its mounts.
pub fn flags(fs_id: u64) -> u32 {
    if is_read_only(fs_id) { abi::MS_RDONLY } else { 0 }
}

/// Makes file system `fs_id` read-only or writable.
pub fn set_read_only(fs_id: u64, read_only: bool) {
    let mut list = READ_ONLY.lock();
    list.retain(|&f| f != fs_id);
    if read_only {
        list.push(fs_id);
    }
    ANY.store(!list.is_empty(), Ordering::Release);
}

/// File system `fs_id` is mounted nowhere any more: its state goes (a
/// later mount of the same disk starts afresh).
pub fn forget(fs_id: u64) {
    super::fsid::forget(fs_id);
    if any() {
        set_read_only(fs_id, false);
    }
}

/// Tells whether a regular file of file system `fs_id` is open for
/// writing in any process (what makes a remount read-only EBUSY).
pub fn open_for_writing(fs_id: u64) -> bool {
    crate::process::all_processes().iter().any(|p| {
        let files = p.files.lock().clone();
        let table = files.lock();
        let busy = table.iter().any(|(_, file, _)| file.writable() && file.ops.inode().is_some_and(|i| i.fs_id() == fs_id && i.file_type() == kevlar_vfs::FileType::Regular));
        busy
    })
}

/// Tells whether a regular file is open for writing through mount `id`
/// in any process (what makes a bind remount read-only EBUSY: Linux's
/// mnt_make_readonly with the mount's writers).
pub fn open_for_writing_through(id: u32) -> bool {
    crate::process::all_processes().iter().any(|p| {
        let files = p.files.lock().clone();
        let table = files.lock();
        let busy = table.iter().any(|(_, file, _)| file.writable() && file.mount_id() == id && file.ops.inode().is_some_and(|i| i.file_type() == kevlar_vfs::FileType::Regular));
        busy
    })
}
