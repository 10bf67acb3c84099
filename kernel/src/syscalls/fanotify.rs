//! fanotify_init and fanotify_mark: the checks Linux 6.1 makes, in its
//! order; groups, marks and events live in `fs/notify/fanotify`.

use alloc::sync::Arc;

use kevlar_vfs::{FileType, WalkFlags};
use linux_raw_sys::general as abi;

use super::read_path;
use crate::error::{Errno, Result};
use crate::fs::file::OpenFile;
use crate::fs::notify::fanotify::{self, MarkOn};
use crate::fs::notify::fanotify_abi::*;
use crate::process::access::capable;
use crate::process::Thread;

/// The open flags a listener's event descriptors may be opened with.
const EVENT_F_FLAGS: u32 = abi::O_ACCMODE | abi::O_APPEND | abi::O_NONBLOCK | abi::O_SYNC | abi::O_DSYNC | abi::O_CLOEXEC | abi::O_LARGEFILE | abi::O_NOATIME;

pub fn fanotify_init(thread: &Thread, flags: u32, event_f_flags: u32) -> Result<isize> {
    let fid_mode = flags & FID_BITS;
    let class = flags & CLASS_BITS;
    let admin = capable(&thread.process, abi::CAP_SYS_ADMIN);
    // Without CAP_SYS_ADMIN: notification groups reporting file handles,
    // with limited queue and marks.
    if !admin && (flags & ADMIN_INIT_FLAGS != 0 || fid_mode == 0) {
        return Err(Errno::EPERM);
    }
    if flags & !INIT_FLAGS != 0 {
        return Err(Errno::EINVAL);
    }
    if flags & FAN_REPORT_PIDFD != 0 && flags & FAN_REPORT_TID != 0 {
        return Err(Errno::EINVAL);
    }
    if event_f_flags & !EVENT_F_FLAGS != 0 || event_f_flags & abi::O_ACCMODE == abi::O_ACCMODE {
        return Err(Errno::EINVAL);
    }
    if fid_mode != 0 && class != FAN_CLASS_NOTIF {
        return Err(Errno::EINVAL);
    }
    if fid_mode & FAN_REPORT_NAME != 0 && fid_mode & FAN_REPORT_DIR_FID == 0 {
        return Err(Errno::EINVAL);
    }
    if fid_mode & FAN_REPORT_TARGET_FID != 0 && (fid_mode & FAN_REPORT_NAME == 0 || fid_mode & FAN_REPORT_FID == 0) {
        return Err(Errno::EINVAL);
    }
    let euid = thread.process.creds.lock().euid;
    let group = fanotify::new_group(flags, event_f_flags, euid, !admin)?;
    // The rest is checked with the group made (and dropped on failure).
    let fail = |err| {
        fanotify::discard_group(&group);
        Err(err)
    };
    if class == CLASS_BITS {
        return fail(Errno::EINVAL);
    }
    if flags & (FAN_UNLIMITED_QUEUE | FAN_UNLIMITED_MARKS) != 0 && !admin {
        return fail(Errno::EPERM);
    }
    if flags & FAN_ENABLE_AUDIT != 0 && !capable(&thread.process, abi::CAP_AUDIT_WRITE) {
        return fail(Errno::EPERM);
    }
    let status = abi::O_RDWR | if flags & FAN_NONBLOCK != 0 { abi::O_NONBLOCK } else { 0 };
    let file = OpenFile::new(group.clone(), status, b"anon_inode:[fanotify]".to_vec());
    let table = thread.process.files.lock().clone();
    let fd = table.lock().insert(file, flags & FAN_CLOEXEC != 0)?;
    Ok(fd as isize)
}

pub fn fanotify_mark(thread: &Thread, fanotify_fd: i32, flags: u32, mask: u64, dirfd: i32, pathname: usize) -> Result<isize> {
    if mask >> 32 != 0 {
        return Err(Errno::EINVAL);
    }
    let mut mask = mask as u32;
    if flags & !MARK_FLAGS != 0 {
        return Err(Errno::EINVAL);
    }
    let mark_type = flags & MARK_TYPE_BITS;
    if !matches!(mark_type, FAN_MARK_INODE | FAN_MARK_MOUNT | FAN_MARK_FILESYSTEM) {
        return Err(Errno::EINVAL);
    }
    let cmd = flags & MARK_CMD_BITS;
    match cmd {
        FAN_MARK_ADD | FAN_MARK_REMOVE if mask == 0 => return Err(Errno::EINVAL),
        FAN_MARK_ADD | FAN_MARK_REMOVE => {}
        FAN_MARK_FLUSH if flags & !(MARK_TYPE_BITS | FAN_MARK_FLUSH) != 0 => return Err(Errno::EINVAL),
        FAN_MARK_FLUSH => {}
        _ => return Err(Errno::EINVAL),
    }
    if mask & !(EVENTS | EVENT_FLAGS | PERM_EVENTS) != 0 {
        return Err(Errno::EINVAL);
    }
    let ignore = flags & MARK_IGNORE_BITS;
    if ignore == MARK_IGNORE_BITS {
        return Err(Errno::EINVAL);
    }
    let mut umask = 0;
    if ignore == FAN_MARK_IGNORED_MASK {
        // The event flags mean nothing in the old ignore mask.
        mask &= !EVENT_FLAGS;
        umask = EVENT_FLAGS;
    }
    let file = thread.process.files.lock().lock().get(fanotify_fd)?;
    let group = file.ops.as_fanotify().ok_or(Errno::EINVAL)?;
    if mark_type != FAN_MARK_INODE && (group.unprivileged || !capable(&thread.process, abi::CAP_SYS_ADMIN)) {
        return Err(Errno::EPERM);
    }
    if mask & PERM_EVENTS != 0 && group.flags & CLASS_BITS == FAN_CLASS_NOTIF {
        return Err(Errno::EINVAL);
    }
    if mask & FAN_FS_ERROR != 0 && mark_type != FAN_MARK_FILESYSTEM {
        return Err(Errno::EINVAL);
    }
    if flags & FAN_MARK_EVICTABLE != 0 && mark_type != FAN_MARK_INODE {
        return Err(Errno::EINVAL);
    }
    let fid_mode = group.flags & FID_BITS;
    // Events that carry no path need file handles, and mean nothing to a
    // mount mark.
    if mask & !(FD_EVENTS | EVENT_FLAGS) != 0 && (fid_mode == 0 || mark_type == FAN_MARK_MOUNT) {
        return Err(Errno::EINVAL);
    }
    if mask & FAN_RENAME != 0 && fid_mode & FAN_REPORT_NAME == 0 {
        return Err(Errno::EINVAL);
    }
    if cmd == FAN_MARK_FLUSH {
        fanotify::flush_marks(group, mark_type);
        return Ok(0);
    }

    // The object: `dirfd`'s file without a path, else the path from it.
    let cred = super::fs::fs_cred(thread);
    let (node, mnt, path) = if pathname == 0 {
        let f = thread.process.files.lock().lock().get(dirfd)?;
        let node = f.ops.inode().ok_or(Errno::EINVAL)?;
        if flags & FAN_MARK_ONLYDIR != 0 && node.file_type() != FileType::Directory {
            return Err(Errno::ENOTDIR);
        }
        (node, f.mount_id(), f.path.clone())
    } else {
        let path = read_path(pathname)?;
        let mut walk = WalkFlags::EMPTY;
        if flags & FAN_MARK_DONT_FOLLOW != 0 {
            walk = walk | WalkFlags::NOFOLLOW;
        }
        if flags & FAN_MARK_ONLYDIR != 0 {
            walk = walk | WalkFlags::DIRECTORY;
        }
        let (node, mnt) = super::fs::lookup_at(thread, &cred, dirfd, &path, walk)?;
        let base = if path.starts_with(b"/") || dirfd == abi::AT_FDCWD {
            thread.process.fs.lock().cwd_path.to_vec()
        } else {
            thread.process.files.lock().lock().get(dirfd)?.path.clone()
        };
        (node, mnt, crate::fs::FsContext::absolute(&base, &path))
    };
    // Only what the caller may read can be watched.
    kevlar_vfs::check_access(&node.stat()?, &cred, kevlar_vfs::Access::READ)?;
    let mount = crate::fs::mount::mount_at(mnt, &*node).ok_or(Errno::EINVAL)?;
    let is_dir = node.file_type() == FileType::Directory;
    if cmd == FAN_MARK_ADD {
        if mask & PERM_EVENTS != 0 && !fanotify::perm_allowed_on(&mount) {
            return Err(Errno::EINVAL);
        }
        let strict = group.flags & FAN_REPORT_TARGET_FID != 0 || mask & FAN_RENAME != 0 || flags & FAN_MARK_IGNORE != 0;
        if strict && mark_type == FAN_MARK_INODE && !is_dir && mask & DIRONLY_EVENT_BITS != 0 {
            return Err(Errno::ENOTDIR);
        }
    }
    if fid_mode != 0 {
        // Linux 6.1 reports file handles only on file systems with a
        // non-zero fsid: not procfs, sysfs, devpts, cgroup2 or mqueue
        // (ENODEV).
        if !fanotify::fid_supported(&mount) {
            return Err(Errno::ENODEV);
        }
    }
    let on_mount = mark_type != FAN_MARK_INODE;
    if cmd == FAN_MARK_ADD && ignore == FAN_MARK_IGNORE && (on_mount || is_dir) && flags & FAN_MARK_IGNORED_SURV_MODIFY == 0 {
        return Err(if on_mount { Errno::EINVAL } else { Errno::EISDIR });
    }
    if on_mount || !is_dir {
        mask &= !FAN_EVENT_ON_CHILD;
        umask = FAN_EVENT_ON_CHILD;
        if fid_mode & FAN_REPORT_DIR_FID != 0 && cmd == FAN_MARK_ADD && ignore == 0 {
            mask |= FAN_EVENT_ON_CHILD;
        }
    }
    let on = match mark_type {
        FAN_MARK_MOUNT => MarkOn::Mount(&mount),
        FAN_MARK_FILESYSTEM => MarkOn::Fs(&mount),
        _ => MarkOn::Inode(&node, &path),
    };
    let group_arc: Arc<fanotify::Group> = fanotify::group_arc(group).ok_or(Errno::EBADF)?;
    match cmd {
        FAN_MARK_ADD => {
            // An ignore mask that a write would clear is not added to an
            // inode open for writing.
            if mark_type == FAN_MARK_INODE && ignore != 0 && flags & FAN_MARK_IGNORED_SURV_MODIFY == 0 && fanotify::open_for_write(&*node) {
                return Ok(0);
            }
            fanotify::add_mark(&group_arc, on, mask, flags)?
        }
        _ => fanotify::remove_mark(group, on, mask, flags, umask)?,
    }
    Ok(0)
}
