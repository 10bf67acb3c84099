//! preadv2(2) and pwritev2(2): preadv and pwritev with per-call RWF_*
//! flags, and offset -1 for the file position, as Linux's fs/read_write.c.
//!
//! The order of Linux's checks: a negative offset other than -1 (EINVAL),
//! the descriptor (EBADF), a positioned call on a file that has no
//! position (ESPIPE), the iovecs (EINVAL, EFAULT), the access mode (EBADF),
//! nothing to move (0, whatever the flags), then the flags: unknown ones
//! are EOPNOTSUPP, and so is RWF_NOWAIT on a file that cannot do it
//! (Linux 6.1's pipes, tmpfs, ramfs and ext2 files cannot; Kevlar's files
//! all answer so). RWF_HIPRI only matters for direct I/O (none here); RWF_DSYNC
//! and RWF_SYNC write the file's data through after the write; RWF_APPEND
//! writes at the end of the file (leaving the position alone unless the
//! offset was -1).

use alloc::sync::Arc;

use crate::error::{Errno, Result};
use crate::fs::file::OpenFile;
use crate::process::Thread;
use super::iovec::IoVecs;
use kevlar_vfs::FileType;
use linux_raw_sys::general::{RWF_APPEND, RWF_DSYNC, RWF_HIPRI, RWF_NOWAIT, RWF_SYNC};

const RWF_SUPPORTED: u32 = RWF_HIPRI | RWF_DSYNC | RWF_SYNC | RWF_NOWAIT | RWF_APPEND;

/// The checks both calls share, up to the flags; Ok(None): nothing to
/// move (the call returns 0).
fn prepare(thread: &Thread, fd: i32, iov: usize, count: usize, pos: i64, write: bool, flags: u32) -> Result<Option<(Arc<OpenFile>, IoVecs)>> {
    if pos < -1 {
        return Err(Errno::EINVAL);
    }
    let Some(prepared) = super::fs::prepare_vectored(thread, fd, iov, count, (pos != -1).then_some(pos), write)? else {
        return Ok(None);
    };
    if flags & !RWF_SUPPORTED != 0 {
        return Err(Errno::EOPNOTSUPP);
    }
    if flags & RWF_NOWAIT != 0 {
        return Err(Errno::EOPNOTSUPP);
    }
    Ok(Some(prepared))
}

pub fn preadv2(thread: &Thread, fd: i32, iov: usize, count: usize, pos: i64, flags: u32) -> Result<isize> {
    let Some((f, vecs)) = prepare(thread, fd, iov, count, pos, false, flags)? else {
        return Ok(0);
    };
    super::fs::read_vectored(thread, &f, &vecs, (pos != -1).then_some(pos))
}

pub fn pwritev2(thread: &Thread, fd: i32, iov: usize, count: usize, pos: i64, flags: u32) -> Result<isize> {
    let Some((f, vecs)) = prepare(thread, fd, iov, count, pos, true, flags)? else {
        return Ok(0);
    };
    let n = if flags & RWF_APPEND != 0 && f.ops.is_seekable() {
        let end = f.ops.size()? as i64;
        let n = super::fs::write_vectored(thread, &f, &vecs, Some(end))?;
        if pos == -1 {
            *f.offset.lock() = (end + n as i64) as u64;
        }
        n
    } else {
        super::fs::write_vectored(thread, &f, &vecs, (pos != -1).then_some(pos))?
    };
    if flags & (RWF_DSYNC | RWF_SYNC) != 0 {
        if let Some(inode) = f.ops.inode().filter(|i| i.file_type() == FileType::Regular) {
            crate::fs::mount::sync_node(&*inode)?;
        }
    }
    Ok(n)
}
