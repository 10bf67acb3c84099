//! fallocate(2): the checks every file system shares (Linux's
//! vfs_fallocate, in its order), then the file's own operation: the
//! node's file system for a regular file, the device for a block device.

use kevlar_vfs::FileType;
use linux_raw_sys::general as abi;

use crate::error::{Errno, Result};
use crate::process::Thread;

/// The modes vfs_fallocate knows (FALLOC_FL_SUPPORTED_MASK); others are
/// EOPNOTSUPP before anything else is looked at.
const SUPPORTED: u32 = abi::FALLOC_FL_KEEP_SIZE
    | abi::FALLOC_FL_PUNCH_HOLE
    | abi::FALLOC_FL_COLLAPSE_RANGE
    | abi::FALLOC_FL_ZERO_RANGE
    | abi::FALLOC_FL_INSERT_RANGE
    | abi::FALLOC_FL_UNSHARE_RANGE;

/// Checks `mode`'s combinations as vfs_fallocate does.
fn check_mode(mode: u32) -> Result<()> {
    if mode & !SUPPORTED != 0 {
        return Err(Errno::EOPNOTSUPP);
    }
    let punch_zero = abi::FALLOC_FL_PUNCH_HOLE | abi::FALLOC_FL_ZERO_RANGE;
    if mode & punch_zero == punch_zero {
        return Err(Errno::EOPNOTSUPP);
    }
    if mode & abi::FALLOC_FL_PUNCH_HOLE != 0 && mode & abi::FALLOC_FL_KEEP_SIZE == 0 {
        return Err(Errno::EOPNOTSUPP);
    }
    for exclusive in [abi::FALLOC_FL_COLLAPSE_RANGE, abi::FALLOC_FL_INSERT_RANGE] {
        if mode & exclusive != 0 && mode & !exclusive != 0 {
            return Err(Errno::EINVAL);
        }
    }
    if mode & abi::FALLOC_FL_UNSHARE_RANGE != 0 && mode & !(abi::FALLOC_FL_UNSHARE_RANGE | abi::FALLOC_FL_KEEP_SIZE) != 0 {
        return Err(Errno::EINVAL);
    }
    Ok(())
}

pub fn fallocate(thread: &Thread, fd: i32, mode: u32, offset: i64, len: i64) -> Result<isize> {
    let f = thread.process.files.lock().lock().get(fd)?;
    if offset < 0 || len <= 0 {
        return Err(Errno::EINVAL);
    }
    check_mode(mode)?;
    if !f.writable() {
        return Err(Errno::EBADF);
    }
    let node = f.ops.inode();
    let file_type = match &node {
        Some(node) => node.file_type(),
        None if f.ops.pipe().is_some() => FileType::Fifo,
        // Sockets and anonymous files (eventfd, epoll...): no type bits.
        None => return Err(Errno::ENODEV),
    };
    match file_type {
        FileType::Fifo => return Err(Errno::ESPIPE),
        FileType::Directory => return Err(Errno::EISDIR),
        FileType::Regular | FileType::BlockDevice => {}
        _ => return Err(Errno::ENODEV),
    }
    // offset + len wrapping past the largest loff_t.
    let end = offset.checked_add(len).ok_or(Errno::EFBIG)? as u64;
    let (offset, len) = (offset as u64, len as u64);
    if let Some(result) = f.ops.fallocate(&f, mode, offset, len) {
        result?;
        return Ok(0);
    }
    let node = node.ok_or(Errno::ENODEV)?;
    if file_type != FileType::Regular {
        return Err(Errno::ENODEV);
    }
    // memfd seals (shmem's checks, for the modes shmem has).
    let limit = crate::fs::file::file_size_limit();
    if mode & !(abi::FALLOC_FL_KEEP_SIZE | abi::FALLOC_FL_PUNCH_HOLE) == 0 {
        let punch = mode & abi::FALLOC_FL_PUNCH_HOLE != 0;
        // shmem checks RLIMIT_FSIZE (inode_newsize_ok) before the seals.
        let tmpfs = node.as_any().downcast_ref::<kevlar_tmpfs::TmpInode>().is_some();
        if tmpfs && !punch && end > limit && end > node.stat()?.size {
            return Err(crate::fs::file::signal_file_too_big());
        }
        crate::fs::memfd::check_fallocate(&*node, punch, end)?;
    }
    match node.fallocate(mode, offset, len, limit) {
        Ok(()) => {}
        // Growing past RLIMIT_FSIZE: SIGXFSZ first, as inode_newsize_ok.
        Err(Errno::EFBIG) if limit != u64::MAX && end > limit => return Err(crate::fs::file::signal_file_too_big()),
        Err(e) => return Err(e),
    }
    crate::fs::notify::modified(&f, &*node);
    Ok(0)
}
