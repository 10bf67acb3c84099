//! File system calls: open/read/write and friends, metadata, directories,
//! links, permissions, pipes and fd manipulation.

use alloc::sync::Arc;
use alloc::vec;
use alloc::vec::Vec;

use crate::uaccess::{copy_from_user, copy_to_user};
use kevlar_vfs::WalkFlags;
use kevlar_vfs::{Access, FileType, Inode, RenameFlags, SetAttr, Stat, Timespec};
use linux_raw_sys::general as abi;

use super::read_path;
use crate::error::{Errno, Result};
use crate::fs::fasync::{self, OwnerKind};
use crate::fs::file::OpenFile;
use crate::fs::pipe::Pipe;
use crate::fs::userio;
use crate::fs::FsContext;
use crate::mm::kbuf;
use crate::ns;
use crate::process::Thread;
use super::iovec::IoVecs;

/// The "current directory" dirfd.
pub const AT_FDCWD: i32 = abi::AT_FDCWD;

// From include/uapi/linux/close_range.h (not in linux-raw-sys 0.12).
const CLOSE_RANGE_UNSHARE: u32 = 1 << 1;
const CLOSE_RANGE_CLOEXEC: u32 = 1 << 2;

/// The credentials file-system checks use (the file-system ids).
pub fn fs_cred(thread: &Thread) -> kevlar_vfs::Credentials {
    thread.process.creds.lock().fs_cred()
}

/// An owner id F_SETOWN/F_SETOWN_EX got, as a global id (0 stays 0: no
/// owner).
fn global_id(id: i32) -> i32 {
    if id == 0 { 0 } else { ns::pid::global(id) }
}

fn file(thread: &Thread, fd: i32) -> Result<Arc<OpenFile>> {
    thread.process.files.lock().lock().get(fd)
}

pub(super) fn fs_ctx(thread: &Thread) -> FsContext {
    thread.process.fs.lock().clone()
}

/// Returns the directory a *at() call starts from (None: the cwd).
fn dir_start(thread: &Thread, dirfd: i32, path: &[u8]) -> Result<Option<Arc<dyn Inode>>> {
    if path.starts_with(b"/") || dirfd == AT_FDCWD {
        return Ok(None);
    }
    let f = file(thread, dirfd)?;
    let inode = f.ops.inode().ok_or(Errno::ENOTDIR)?;
    if inode.file_type() != FileType::Directory && !path.is_empty() {
        return Err(Errno::ENOTDIR);
    }
    Ok(Some(inode))
}

/// [`dir_start`] with the mount the directory descriptor was opened
/// through (what a walk from it starts in).
fn dir_start_mnt(thread: &Thread, dirfd: i32, path: &[u8]) -> Result<Option<(Arc<dyn Inode>, kevlar_vfs::MountId)>> {
    if path.starts_with(b"/") || dirfd == AT_FDCWD {
        return Ok(None);
    }
    let f = file(thread, dirfd)?;
    let inode = f.ops.inode().ok_or(Errno::ENOTDIR)?;
    if inode.file_type() != FileType::Directory && !path.is_empty() {
        return Err(Errno::ENOTDIR);
    }
    Ok(Some((inode, f.mount_id())))
}

/// Resolves `path` from `dirfd` as a *at() call does; returns the node
/// and the mount it was reached through.
pub(super) fn lookup_at(thread: &Thread, cred: &kevlar_vfs::Credentials, dirfd: i32, path: &[u8], walk: WalkFlags) -> Result<(Arc<dyn Inode>, kevlar_vfs::MountId)> {
    let start = dir_start_mnt(thread, dirfd, path)?;
    fs_ctx(thread).lookup_mnt(cred, start.as_ref().map(|(n, m)| (n, *m)), path, walk)
}

/// Bytes moved in one kernel buffer per step of read/write.
const CHUNK: usize = 64 * 1024;
/// The most one read, write or sendfile moves (Linux's MAX_RW_COUNT,
/// INT_MAX rounded down to a page); larger requests are cut to it.
const MAX_RW_COUNT: usize = 0x7fff_f000;
/// Reads and writes up to this size bounce through the stack, not the
/// heap: the allocation was most of a small request's cost.
const SMALL_IO: usize = 128;

/// Runs `f` on a zeroed kernel buffer of `len` bytes: on the stack when
/// small, on the heap otherwise.
fn with_bounce<R>(len: usize, f: impl FnOnce(&mut [u8]) -> Result<R>) -> Result<R> {
    if len <= SMALL_IO {
        let mut small = [0u8; SMALL_IO];
        f(&mut small[..len])
    } else {
        f(&mut kbuf::zeroed(len)?)
    }
}

/// A write by a process without CAP_FSETID clears set-user-id (and
/// set-group-id with group execute) on the file, as Linux does.
fn drop_privileges_on_write(thread: &Thread, f: &OpenFile) {
    if crate::process::access::capable(&thread.process, abi::CAP_FSETID) {
        return;
    }
    let Some(inode) = f.ops.inode() else { return };
    // The in-memory mode, as Linux's file_remove_privs: no full stat (on
    // ext4 a lock and an inode record) on every write.
    let Ok(mode) = inode.mode() else { return };
    let mut mode = mode & !abi::S_IFMT;
    if mode & abi::S_ISUID != 0 || (mode & abi::S_ISGID != 0 && mode & abi::S_IXGRP != 0) {
        mode &= !abi::S_ISUID;
        if mode & abi::S_IXGRP != 0 {
            mode &= !abi::S_ISGID;
        }
        let _ = inode.set_attr(&SetAttr { mode: Some(mode), ..SetAttr::default() });
    }
}

/// Fails with EFAULT before any side effect when a user buffer is not in
/// the user half (Linux's access_ok), so a read with a bad buffer cannot
/// consume data or block first.
fn check_user_buffer(addr: usize, len: usize) -> Result<()> {
    if kevlar_platform::x86::user::is_user_range(addr, len) { Ok(()) } else { Err(Errno::EFAULT) }
}

pub fn read(thread: &Thread, fd: i32, buf: usize, len: usize) -> Result<isize> {
    read_file(thread, &file(thread, fd)?, buf, len)
}

/// read(2) of an open file (also an aio request's, on the file it was
/// submitted with).
pub(super) fn read_file(thread: &Thread, f: &Arc<OpenFile>, buf: usize, len: usize) -> Result<isize> {
    check_user_buffer(buf, len)?;
    if super::socket::is_socket(&f) {
        return super::socket::read_socket(&f, vec![(buf, len)]);
    }
    // An O_PATH descriptor does no I/O: EBADF before anything about the
    // file (a directory's EISDIR) is looked at, as Linux's fdget_pos.
    if f.flags() & abi::O_PATH != 0 {
        return Err(Errno::EBADF);
    }
    if f.ops.inode().is_some_and(|i| i.file_type() == FileType::Directory) {
        return Err(Errno::EISDIR);
    }
    if len == 0 && (f.ops.as_inotify().is_some() || f.ops.as_fanotify().is_some()) {
        // inotify looks at its queue even for an empty buffer (EAGAIN,
        // EINVAL for a queued event, or a wait).
        return Ok(f.read(&mut [])? as isize);
    }
    // Files and devices fill the whole request (a 1 MiB read of /dev/zero
    // returns 1 MiB); pipes and terminals return what is there.
    let fill = f.ops.is_seekable() || f.ops.fixed_position();
    let len = len.min(MAX_RW_COUNT);
    if len > 0 {
        // Files kept in pages: one copy, page to user.
        if let Some(result) = userio::read(thread, &f, userio::At::Position, buf, len) {
            return Ok(result? as isize);
        }
    }
    with_bounce(len.min(CHUNK), |kbuf| {
        let mut done = 0;
        while done < len {
            if done > 0 && !thread.checkpoint() {
                break;
            }
            let want = (len - done).min(kbuf.len());
            let n = match f.read(&mut kbuf[..want]) {
                Ok(n) => n,
                Err(_) if done > 0 => break,
                Err(e) => return Err(e),
            };
            if let Err(e) = copy_to_user(buf + done, &kbuf[..n]) {
                give_back(f, &kbuf[..n]);
                return Err(e);
            }
            done += n;
            if n < want || !fill {
                break;
            }
        }
        Ok(done as isize)
    })
}

pub fn write(thread: &Thread, fd: i32, buf: usize, len: usize) -> Result<isize> {
    write_file(thread, &file(thread, fd)?, buf, len)
}

/// write(2) of an open file.
pub(super) fn write_file(thread: &Thread, f: &Arc<OpenFile>, buf: usize, len: usize) -> Result<isize> {
    check_user_buffer(buf, len)?;
    if super::socket::is_socket(&f) {
        return super::socket::write_socket(&f, vec![(buf, len)]);
    }
    drop_privileges_on_write(thread, &f);
    if len > 0 {
        if let Some(result) = userio::write(thread, &f, userio::At::Position, buf, len.min(MAX_RW_COUNT)) {
            return Ok(result? as isize);
        }
    }
    if len <= SMALL_IO {
        return with_bounce(len, |kbuf| {
            copy_from_user(kbuf, buf)?;
            Ok(f.write(kbuf)? as isize)
        });
    }
    let len = len.min(MAX_RW_COUNT);
    let mut done = 0;
    while done < len {
        if done > 0 && !thread.checkpoint() {
            break;
        }
        let step = (len - done).min(CHUNK);
        let mut kbuf = match kbuf::zeroed(step) {
            Ok(b) => b,
            Err(_) if done > 0 => break,
            Err(e) => return Err(e),
        };
        copy_from_user(&mut kbuf, buf + done)?;
        let n = match f.write(&kbuf) {
            Ok(n) => n,
            Err(e) if done > 0 => {
                let _ = e;
                break;
            }
            Err(e) => return Err(e),
        };
        done += n;
        if n < step {
            break;
        }
    }
    if len == 0 {
        f.write(&[])?;
    }
    Ok(done as isize)
}

/// The vector array of vmsplice and friends, checked as readv's is.
pub(super) fn read_iovecs(iov: usize, count: usize) -> Result<Vec<(usize, usize)>> {
    Ok(IoVecs::read(iov, count)?.to_vec())
}

/// What readv, writev and their positioned forms check before moving
/// anything, in Linux's order: a negative offset (EINVAL), the descriptor
/// (EBADF, an O_PATH one too), a position on a file without one (ESPIPE),
/// the vectors (EINVAL, EFAULT), the access mode (EBADF). Ok(None): the
/// vectors hold nothing, and the call returns 0 without touching the
/// file (a datagram socket sends nothing).
pub(super) fn prepare_vectored(thread: &Thread, fd: i32, iov: usize, count: usize, offset: Option<i64>, write: bool) -> Result<Option<(Arc<OpenFile>, IoVecs)>> {
    if offset.is_some_and(|p| p < 0) {
        return Err(Errno::EINVAL);
    }
    let f = file(thread, fd)?;
    if f.flags() & abi::O_PATH != 0 {
        return Err(Errno::EBADF);
    }
    if offset.is_some() && !f.ops.is_seekable() {
        return Err(Errno::ESPIPE);
    }
    let vecs = IoVecs::read(iov, count)?;
    if !(if write { f.writable() } else { f.readable() }) {
        return Err(Errno::EBADF);
    }
    if vecs.total() == 0 {
        return Ok(None);
    }
    Ok(Some((f, vecs)))
}

pub fn readv(thread: &Thread, fd: i32, iov: usize, count: usize, offset: Option<i64>) -> Result<isize> {
    match prepare_vectored(thread, fd, iov, count, offset, false)? {
        Some((f, vecs)) => read_vectored(thread, &f, &vecs, offset),
        None => Ok(0),
    }
}

/// readv's transfer, after [`prepare_vectored`]: `vecs` hold something.
pub(super) fn read_vectored(thread: &Thread, f: &Arc<OpenFile>, vecs: &IoVecs, offset: Option<i64>) -> Result<isize> {
    if offset.is_none() && super::socket::is_socket(f) {
        // One receive for all segments (a datagram is not split across calls).
        return super::socket::read_socket(f, vecs.to_vec());
    }
    if let Some(result) = rw_pages(thread, f, vecs, offset, false) {
        return result;
    }
    let wanted = vecs.total();
    // A pipe's data is taken in one go, whatever the vectors add up to:
    // Linux's pipe_read returns what is there, never waiting on a later
    // vector once it has some.
    let once = match f.ops.pipe() {
        Some(pipe) => Some(wanted.min(pipe.capacity().max(CHUNK))),
        None => (wanted <= CHUNK).then_some(wanted),
    };
    if let Some(size) = once {
        return readv_once(f, vecs.as_slice(), size, offset);
    }
    let mut total = 0isize;
    let mut pos = offset;
    for &(base, len) in vecs.as_slice() {
        if len == 0 {
            continue;
        }
        let n = match pos {
            Some(p) => pread_file(thread, f, base, len, p)?,
            None => read_file(thread, f, base, len)?,
        };
        total += n;
        if let Some(p) = pos.as_mut() {
            *p += n as i64;
        }
        if (n as usize) < len {
            break;
        }
    }
    Ok(total)
}

/// readv(2) of an open file with its vectors at `iov` (an AIO request
/// holds the file it was submitted with).
pub(super) fn readv_file(thread: &Thread, f: &Arc<OpenFile>, iov: usize, count: usize, offset: Option<i64>) -> Result<isize> {
    let vecs = IoVecs::read(iov, count)?;
    if vecs.total() == 0 {
        return Ok(0);
    }
    read_vectored(thread, f, &vecs, offset)
}

/// writev(2) of an open file, as [`readv_file`].
pub(super) fn writev_file(thread: &Thread, f: &Arc<OpenFile>, iov: usize, count: usize, offset: Option<i64>) -> Result<isize> {
    let vecs = IoVecs::read(iov, count)?;
    if vecs.total() == 0 {
        return Ok(0);
    }
    write_vectored(thread, f, &vecs, offset)
}

/// readv/writev (and their p- forms) of a file kept in pages: each vector
/// straight between the user buffer and the pages. `None`: the file has
/// no pages, or the call fails before moving anything in a way the
/// generic path reports (a bad offset, a bad buffer).
fn rw_pages(thread: &Thread, f: &OpenFile, vecs: &IoVecs, offset: Option<i64>, write: bool) -> Option<Result<isize>> {
    if let Some(p) = offset {
        if check_range_end(p, vecs.total()).is_err() {
            return None;
        }
    }
    if write && f.ops.inode().is_some_and(|i| i.file_type() == FileType::Regular) {
        drop_privileges_on_write(thread, f);
    }
    // One pass over the pages for every vector (their lengths are cut
    // to MAX_RW_COUNT together already).
    let at = match offset {
        Some(p) => userio::At::Offset(p as u64),
        None => userio::At::Position,
    };
    let moved = if write {
        userio::write_vectored(thread, f, at, vecs.as_slice(), vecs.total())
    } else {
        userio::read_vectored(thread, f, at, vecs.as_slice(), vecs.total())
    };
    Some(moved?.map(|n| n as isize))
}

/// readv as one read of up to `size` bytes into a kernel buffer,
/// scattered to the vectors (one file lookup, one operation: a pipe's data
/// is taken at once, as Linux does).
fn readv_once(f: &Arc<OpenFile>, vecs: &[(usize, usize)], size: usize, offset: Option<i64>) -> Result<isize> {
    if f.ops.inode().is_some_and(|i| i.file_type() == FileType::Directory) {
        return Err(Errno::EISDIR);
    }
    with_bounce(size, |kbuf| {
        let n = match offset {
            Some(p) => f.ops.read(f, p as u64, kbuf)?,
            None => f.read(kbuf)?,
        };
        let mut at = 0;
        for &(base, len) in vecs {
            if at == n {
                break;
            }
            let part = len.min(n - at);
            if let Err(e) = copy_to_user(base, &kbuf[at..at + part]) {
                give_back(f, &kbuf[..n]);
                return Err(e);
            }
            at += part;
        }
        Ok(n as isize)
    })
}

/// After a copy to the reader failed: a pipe keeps the bytes (see
/// [`Pipe::unread`](crate::fs::pipe::Pipe::unread)); other files have
/// nothing to give back.
fn give_back(f: &OpenFile, taken: &[u8]) {
    if let Some(pipe) = f.ops.pipe() {
        pipe.unread(taken);
    }
}

pub fn writev(thread: &Thread, fd: i32, iov: usize, count: usize, offset: Option<i64>) -> Result<isize> {
    match prepare_vectored(thread, fd, iov, count, offset, true)? {
        Some((f, vecs)) => write_vectored(thread, &f, &vecs, offset),
        None => Ok(0),
    }
}

/// writev's transfer, after [`prepare_vectored`]: `vecs` hold something.
pub(super) fn write_vectored(thread: &Thread, f: &Arc<OpenFile>, vecs: &IoVecs, offset: Option<i64>) -> Result<isize> {
    if offset.is_none() && super::socket::is_socket(f) {
        return super::socket::write_socket(f, vecs.to_vec());
    }
    if let Some(result) = rw_pages(thread, f, vecs, offset, true) {
        return result;
    }
    // Gather into one buffer so the write is one operation (atomic for
    // pipes up to PIPE_BUF, as Linux).
    let total = vecs.total();
    if total <= CHUNK {
        return with_bounce(total, |kbuf| {
            let mut at = 0;
            for &(base, len) in vecs.as_slice() {
                copy_from_user(&mut kbuf[at..at + len], base)?;
                at += len;
            }
            let n = match offset {
                Some(p) => f.ops.write(f, p as u64, kbuf)?,
                None => f.write(kbuf)?,
            };
            Ok(n as isize)
        });
    }
    let mut done = 0isize;
    let mut pos = offset;
    for &(base, len) in vecs.as_slice() {
        if len == 0 {
            continue;
        }
        let n = match pos {
            Some(p) => pwrite_file(thread, f, base, len, p)?,
            None => write_file(thread, f, base, len)?,
        };
        done += n;
        if let Some(p) = pos.as_mut() {
            *p += n as i64;
        }
        if (n as usize) < len {
            break;
        }
    }
    Ok(done)
}

/// An offset plus length past the largest file offset is EINVAL (Linux's
/// rw_verify_area), before anything moves.
fn check_range_end(offset: i64, len: usize) -> Result<()> {
    match offset.checked_add_unsigned(len as u64) {
        Some(_) => Ok(()),
        None => Err(Errno::EINVAL),
    }
}

pub fn pread(thread: &Thread, fd: i32, buf: usize, len: usize, offset: i64) -> Result<isize> {
    pread_file(thread, &file(thread, fd)?, buf, len, offset)
}

/// pread64(2) of an open file.
pub(super) fn pread_file(thread: &Thread, f: &Arc<OpenFile>, buf: usize, len: usize, offset: i64) -> Result<isize> {
    if offset < 0 {
        return Err(Errno::EINVAL);
    }
    if !f.ops.is_seekable() {
        return Err(Errno::ESPIPE);
    }
    if !f.readable() {
        return Err(Errno::EBADF);
    }
    check_user_buffer(buf, len)?;
    check_range_end(offset, len)?;
    if f.ops.inode().is_some_and(|i| i.file_type() == FileType::Directory) {
        return Err(Errno::EISDIR);
    }
    let len = len.min(MAX_RW_COUNT);
    if len > 0 {
        if let Some(result) = userio::read(thread, &f, userio::At::Offset(offset as u64), buf, len) {
            return Ok(result? as isize);
        }
    }
    // The whole request in CHUNK steps, as read: Linux's pread fills
    // the buffer (a 1 MiB pread of a file returns 1 MiB).
    with_bounce(len.min(CHUNK), |kbuf| {
        let mut done = 0;
        while done < len {
            if done > 0 && !thread.checkpoint() {
                break;
            }
            let want = (len - done).min(kbuf.len());
            let n = match f.ops.read(&f, offset as u64 + done as u64, &mut kbuf[..want]) {
                Ok(n) => n,
                Err(_) if done > 0 => break,
                Err(e) => return Err(e),
            };
            copy_to_user(buf + done, &kbuf[..n])?;
            done += n;
            if n < want {
                break;
            }
        }
        Ok(done as isize)
    })
}

pub fn pwrite(thread: &Thread, fd: i32, buf: usize, len: usize, offset: i64) -> Result<isize> {
    pwrite_file(thread, &file(thread, fd)?, buf, len, offset)
}

/// pwrite64(2) of an open file.
pub(super) fn pwrite_file(thread: &Thread, f: &Arc<OpenFile>, buf: usize, len: usize, offset: i64) -> Result<isize> {
    if offset < 0 {
        return Err(Errno::EINVAL);
    }
    if !f.ops.is_seekable() {
        return Err(Errno::ESPIPE);
    }
    if !f.writable() {
        return Err(Errno::EBADF);
    }
    check_user_buffer(buf, len)?;
    check_range_end(offset, len)?;
    drop_privileges_on_write(thread, &f);
    let len = len.min(MAX_RW_COUNT);
    if len > 0 {
        if let Some(result) = userio::write(thread, &f, userio::At::Offset(offset as u64), buf, len) {
            return Ok(result? as isize);
        }
    }
    with_bounce(len.min(CHUNK), |kbuf| {
        let mut done = 0;
        loop {
            if done > 0 && !thread.checkpoint() {
                break;
            }
            let step = (len - done).min(kbuf.len());
            if let Err(e) = copy_from_user(&mut kbuf[..step], buf + done) {
                if done > 0 {
                    break;
                }
                return Err(e);
            }
            // Linux quirk kept for compatibility: pwrite on an O_APPEND
            // file appends, whatever the offset.
            let at = if f.flags() & abi::O_APPEND != 0 {
                f.ops.size()?
            } else {
                offset as u64 + done as u64
            };
            let n = match f.ops.write(&f, at, &kbuf[..step]) {
                Ok(n) => n,
                Err(_) if done > 0 => break,
                Err(e) => return Err(e),
            };
            done += n;
            if n < step || done >= len {
                break;
            }
        }
        Ok(done as isize)
    })
}

pub fn lseek(thread: &Thread, fd: i32, offset: i64, whence: u32) -> Result<isize> {
    let f = file(thread, fd)?;
    if let Some(result) = f.ops.seek(&f, offset, whence) {
        return Ok(result? as isize);
    }
    // Checked before seekability: the event files are streams whose lseek
    // still succeeds (Linux's noop_llseek).
    if f.ops.fixed_position() {
        return if whence <= abi::SEEK_END { Ok(0) } else { Err(Errno::EINVAL) };
    }
    if !f.ops.is_seekable() {
        return Err(Errno::ESPIPE);
    }
    let mut pos = f.offset.lock();
    let base: i64 = match whence {
        abi::SEEK_SET => 0,
        abi::SEEK_CUR => *pos as i64,
        abi::SEEK_END => f.ops.size()? as i64,
        abi::SEEK_DATA | abi::SEEK_HOLE => {
            if offset < 0 {
                return Err(Errno::ENXIO);
            }
            // A regular file's own map of data and holes; anything else
            // is data to its end.
            let new = match f.ops.inode().filter(|n| n.file_type() == FileType::Regular) {
                Some(node) => node.seek_data_hole(offset as u64, whence == abi::SEEK_DATA)?,
                None => {
                    let size = f.ops.size()?;
                    if offset as u64 >= size {
                        return Err(Errno::ENXIO);
                    }
                    if whence == abi::SEEK_DATA { offset as u64 } else { size }
                }
            };
            *pos = new;
            return Ok(new as isize);
        }
        _ => return Err(Errno::EINVAL),
    };
    let new = base.checked_add(offset).ok_or(Errno::EOVERFLOW)?;
    if new < 0 {
        return Err(Errno::EINVAL);
    }
    *pos = new as u64;
    Ok(new as isize)
}

pub fn openat(thread: &Thread, dirfd: i32, path: usize, flags: u32, mode: u32) -> Result<isize> {
    let path = read_path(path)?;
    if path.is_empty() {
        return Err(Errno::ENOENT);
    }
    let start = dir_start_mnt(thread, dirfd, &path)?;
    let ctx = fs_ctx(thread);
    let cred = fs_cred(thread);
    let file = crate::fs::open_path_at(&ctx, &cred, start.as_ref().map(|(n, m)| (n, *m)), &path, flags, mode)?;
    let fd = thread.process.files.lock().lock().insert(file, flags & abi::O_CLOEXEC != 0)?;
    Ok(fd as isize)
}

pub fn close(thread: &Thread, fd: i32) -> Result<isize> {
    let file = thread.process.files.lock().lock().close(fd)?;
    // POSIX: closing any fd of a file drops the process's record locks on it.
    if let Ok(key) = file_key(&file) {
        crate::fs::locks::release_records(thread.process.pid, Some(key));
    }
    drop(file);
    Ok(0)
}

pub fn close_range(thread: &Thread, first: u32, last: u32, flags: u32) -> Result<isize> {
    if flags & !(CLOSE_RANGE_CLOEXEC | CLOSE_RANGE_UNSHARE) != 0 || first > last {
        return Err(Errno::EINVAL);
    }
    thread.process.files.lock().lock().close_range(first as usize, last as usize, flags & CLOSE_RANGE_CLOEXEC != 0);
    Ok(0)
}

pub fn dup(thread: &Thread, fd: i32) -> Result<isize> {
    let files = thread.process.files.lock().clone();
    let mut table = files.lock();
    let f = table.get(fd)?;
    Ok(table.insert(f, false)? as isize)
}

pub fn dup3(thread: &Thread, old: i32, new: i32, flags: u32, is_dup2: bool) -> Result<isize> {
    if flags & !abi::O_CLOEXEC != 0 {
        return Err(Errno::EINVAL);
    }
    let files = thread.process.files.lock().clone();
    let mut table = files.lock();
    let f = table.get(old)?;
    if old == new {
        return if is_dup2 { Ok(new as isize) } else { Err(Errno::EINVAL) };
    }
    if new < 0 || new as usize >= table.limit() {
        return Err(Errno::EBADF);
    }
    table.grow(new as usize)?;
    let replaced = table.put(new as usize, f, flags & abi::O_CLOEXEC != 0);
    drop(table);
    drop(replaced);
    Ok(new as isize)
}

pub fn fcntl(thread: &Thread, fd: i32, cmd: u32, arg: usize) -> Result<isize> {
    let files = thread.process.files.lock().clone();
    let mut table = files.lock();
    let f = table.get(fd)?;
    match cmd {
        abi::F_DUPFD | abi::F_DUPFD_CLOEXEC => {
            // Linux: a start at or past RLIMIT_NOFILE is EINVAL.
            if arg >= table.limit() {
                return Err(Errno::EINVAL);
            }
            Ok(table.insert_from(arg, f, cmd == abi::F_DUPFD_CLOEXEC)? as isize)
        }
        abi::F_GETFD => Ok(if table.cloexec(fd)? { abi::FD_CLOEXEC as isize } else { 0 }),
        abi::F_SETFD => {
            table.set_cloexec(fd, arg as u32 & abi::FD_CLOEXEC != 0)?;
            Ok(0)
        }
        abi::F_GETFL => Ok(f.flags() as isize),
        abi::F_SETFL => {
            drop(table);
            f.set_status_flags(fd, arg as u32);
            Ok(0)
        }
        // Owners are kept as global ids and shown as the caller's PID
        // namespace numbers them.
        abi::F_GETOWN => Ok(match f.async_state().owner.filter(fasync::owner_alive) {
            Some(o) if o.kind == OwnerKind::Group => -ns::pid::local(o.id) as isize,
            Some(o) => ns::pid::local(o.id) as isize,
            None => 0,
        }),
        abi::F_SETOWN => {
            drop(table);
            let id = arg as i32;
            let owner = if id < 0 {
                fasync::owner(OwnerKind::Group, global_id(id.checked_neg().ok_or(Errno::ESRCH)?), &thread.process)?
            } else {
                fasync::owner(OwnerKind::Process, global_id(id), &thread.process)?
            };
            f.update_async_state(|s| s.owner = owner);
            Ok(0)
        }
        abi::F_GETOWN_EX => {
            let (kind, id) = match f.async_state().owner {
                Some(o) => {
                    let id = if fasync::owner_alive(&o) { ns::pid::local(o.id) } else { 0 };
                    (match o.kind { OwnerKind::Thread => abi::F_OWNER_TID, OwnerKind::Process => abi::F_OWNER_PID, OwnerKind::Group => abi::F_OWNER_PGRP }, id)
                }
                // Linux reports an unset owner as a process owner 0.
                None => (abi::F_OWNER_PID, 0),
            };
            let mut raw = [0u8; 8];
            raw[..4].copy_from_slice(&kind.to_le_bytes());
            raw[4..].copy_from_slice(&id.to_le_bytes());
            copy_to_user(arg, &raw)?;
            Ok(0)
        }
        abi::F_SETOWN_EX => {
            drop(table);
            let raw = super::read_bytes::<8>(arg)?;
            let kind = match u32::from_le_bytes(raw[..4].try_into().unwrap()) {
                abi::F_OWNER_TID => OwnerKind::Thread,
                abi::F_OWNER_PID => OwnerKind::Process,
                abi::F_OWNER_PGRP => OwnerKind::Group,
                _ => return Err(Errno::EINVAL),
            };
            let owner = fasync::owner(kind, global_id(i32::from_le_bytes(raw[4..].try_into().unwrap())), &thread.process)?;
            f.update_async_state(|s| s.owner = owner);
            Ok(0)
        }
        abi::F_GETSIG => Ok(f.async_state().signal as isize),
        abi::F_SETSIG => {
            if arg > crate::process::signal::NSIG {
                return Err(Errno::EINVAL);
            }
            f.update_async_state(|s| s.signal = arg as u32);
            Ok(0)
        }
        abi::F_ADD_SEALS => {
            drop(table);
            crate::fs::memfd::add_seals(&f, arg as u64)
        }
        abi::F_GET_SEALS => {
            drop(table);
            crate::fs::memfd::get_seals(&f)
        }
        abi::F_GETPIPE_SZ | abi::F_SETPIPE_SZ => {
            drop(table);
            let ops = f.ops.clone();
            let end = pipe_of(&ops).ok_or(Errno::EBADF)?;
            if cmd == abi::F_GETPIPE_SZ {
                Ok(end.capacity() as isize)
            } else {
                Ok(end.set_capacity(arg)? as isize)
            }
        }
        abi::F_GETLK | abi::F_SETLK | abi::F_SETLKW | abi::F_OFD_GETLK | abi::F_OFD_SETLK | abi::F_OFD_SETLKW => {
            drop(table);
            record_lock(thread, &f, cmd, arg)
        }
        _ => Err(Errno::EINVAL),
    }
}

fn pipe_of(ops: &Arc<dyn crate::fs::file::FileOps>) -> Option<Arc<Pipe>> {
    ops.pipe()
}

pub fn ioctl(thread: &Thread, fd: i32, request: u32, arg: usize) -> Result<isize> {
    let f = file(thread, fd)?;
    match request {
        linux_raw_sys::ioctl::FIOCLEX => {
            thread.process.files.lock().lock().set_cloexec(fd, true)?;
            Ok(0)
        }
        linux_raw_sys::ioctl::FIONCLEX => {
            thread.process.files.lock().lock().set_cloexec(fd, false)?;
            Ok(0)
        }
        linux_raw_sys::ioctl::FIONBIO | linux_raw_sys::ioctl::FIOASYNC => {
            let bit = if request == linux_raw_sys::ioctl::FIONBIO { abi::O_NONBLOCK } else { abi::FASYNC };
            let on = super::read_bytes::<4>(arg).map(i32::from_le_bytes)? != 0;
            let flags = if on { f.flags() | bit } else { f.flags() & !bit };
            f.set_status_flags(fd, flags);
            Ok(0)
        }
        _ => match super::falloc::map_ioctl(thread, &f, request, arg).or_else(|| super::ns::ns_ioctl(thread, &f, request, arg)).or_else(|| super::trim::fitrim(thread, &f, request, arg)) {
            Some(result) => result,
            None => f.ops.ioctl(&f, request, arg),
        },
    }
}

pub fn pipe2(thread: &Thread, fds: usize, flags: u32) -> Result<isize> {
    if flags & !(abi::O_CLOEXEC | abi::O_NONBLOCK | abi::O_DIRECT) != 0 {
        return Err(Errno::EINVAL);
    }
    let pipe = Pipe::try_new()?;
    let status = flags & abi::O_NONBLOCK;
    let reader = OpenFile::new(pipe.open_end(false), abi::O_RDONLY | status, b"pipe:".to_vec());
    let writer = OpenFile::new(pipe.open_end(true), abi::O_WRONLY | status, b"pipe:".to_vec());
    let cloexec = flags & abi::O_CLOEXEC != 0;
    let files = thread.process.files.lock().clone();
    let mut table = files.lock();
    let rfd = table.insert(reader, cloexec)?;
    let wfd = match table.insert(writer, cloexec) {
        Ok(fd) => fd,
        Err(e) => {
            let _ = table.close(rfd);
            return Err(e);
        }
    };
    drop(table);
    let mut out = [0u8; 8];
    out[..4].copy_from_slice(&rfd.to_le_bytes());
    out[4..].copy_from_slice(&wfd.to_le_bytes());
    if let Err(e) = copy_to_user(fds, &out) {
        let mut table = files.lock();
        let _ = table.close(rfd);
        let _ = table.close(wfd);
        return Err(e.into());
    }
    Ok(0)
}

// --- metadata ---------------------------------------------------------------

fn encode_stat(st: &Stat) -> [u8; 144] {
    // struct stat (x86_64): dev, ino, nlink (u64), mode, uid, gid (u32),
    // pad, rdev, size, blksize, blocks (i64), atime, mtime, ctime (sec,
    // nsec), 3 reserved.
    let mut b = [0u8; 144];
    let mut put = |off: usize, v: u64, len: usize| b[off..off + len].copy_from_slice(&v.to_le_bytes()[..len]);
    put(0, st.dev, 8);
    put(8, st.ino, 8);
    put(16, st.nlink as u64, 8);
    put(24, st.mode as u64, 4);
    put(28, st.uid as u64, 4);
    put(32, st.gid as u64, 4);
    put(40, st.rdev, 8);
    put(48, st.size, 8);
    put(56, st.blksize as u64, 8);
    put(64, st.blocks, 8);
    put(72, st.atime.sec as u64, 8);
    put(80, st.atime.nsec as u64, 8);
    put(88, st.mtime.sec as u64, 8);
    put(96, st.mtime.nsec as u64, 8);
    put(104, st.ctime.sec as u64, 8);
    put(112, st.ctime.nsec as u64, 8);
    b
}

pub fn fstat(thread: &Thread, fd: i32, buf: usize) -> Result<isize> {
    let f = file(thread, fd)?;
    let mut st = f.ops.stat()?;
    if f.ops.inode().is_none() && matches!(st.file_type(), Some(FileType::CharDevice | FileType::BlockDevice)) {
        // A device's mode and owner are its node's now (a terminal
        // login has chowned), not what they were at the open.
        if let Some(now) = attr_node(thread, fd)?.and_then(|n| n.stat().ok()) {
            st.mode = now.mode;
            st.uid = now.uid;
            st.gid = now.gid;
        }
    }
    seen_owner(thread, &mut st);
    copy_to_user(buf, &encode_stat(&st))?;
    Ok(0)
}

/// The owner and group of `st` as the caller's user namespace shows them.
fn seen_owner(thread: &Thread, st: &mut Stat) {
    let ns = thread.process.creds.lock().user_ns.clone();
    if !ns.is_init() {
        st.uid = ns.uid_shown(st.uid);
        st.gid = ns.gid_shown(st.gid);
    }
}

fn stat_at(thread: &Thread, dirfd: i32, path_ptr: usize, flags: u32) -> Result<Stat> {
    if flags & !(abi::AT_SYMLINK_NOFOLLOW | abi::AT_EMPTY_PATH | abi::AT_NO_AUTOMOUNT | abi::AT_STATX_SYNC_TYPE) != 0 {
        return Err(Errno::EINVAL);
    }
    let path = read_path(path_ptr)?;
    if path.is_empty() {
        if flags & abi::AT_EMPTY_PATH == 0 {
            return Err(Errno::ENOENT);
        }
        if dirfd == AT_FDCWD {
            return Ok(fs_ctx(thread).cwd.stat()?);
        }
        return file(thread, dirfd)?.ops.stat();
    }
    let start = dir_start(thread, dirfd, &path)?;
    let walk = if flags & abi::AT_SYMLINK_NOFOLLOW != 0 { WalkFlags::NOFOLLOW } else { WalkFlags::EMPTY };
    let node = fs_ctx(thread).lookup(&fs_cred(thread), start.as_ref(), &path, walk)?;
    Ok(node.stat()?)
}

pub fn fstatat(thread: &Thread, dirfd: i32, path: usize, buf: usize, flags: u32) -> Result<isize> {
    let mut st = stat_at(thread, dirfd, path, flags)?;
    seen_owner(thread, &mut st);
    copy_to_user(buf, &encode_stat(&st))?;
    Ok(0)
}

pub fn statx(thread: &Thread, dirfd: i32, path: usize, flags: u32, mask: u32, buf: usize) -> Result<isize> {
    if mask & abi::STATX__RESERVED != 0 {
        return Err(Errno::EINVAL);
    }
    let mut st = stat_at(thread, dirfd, path, flags & !abi::AT_STATX_SYNC_TYPE)?;
    seen_owner(thread, &mut st);
    let mut b = [0u8; 256];
    let mut put = |off: usize, v: u64, len: usize| b[off..off + len].copy_from_slice(&v.to_le_bytes()[..len]);
    put(0, abi::STATX_BASIC_STATS as u64, 4); // stx_mask
    put(4, st.blksize as u64, 4);
    put(16, st.nlink as u64, 4);
    put(20, st.uid as u64, 4);
    put(24, st.gid as u64, 4);
    put(28, st.mode as u64, 2);
    put(32, st.ino, 8);
    put(40, st.size, 8);
    put(48, st.blocks, 8);
    let ts = |b: &mut [u8; 256], off: usize, t: Timespec| {
        b[off..off + 8].copy_from_slice(&t.sec.to_le_bytes());
        b[off + 8..off + 12].copy_from_slice(&t.nsec.to_le_bytes());
    };
    ts(&mut b, 64, st.atime);
    ts(&mut b, 80, st.ctime); // btime: creation is not tracked; report ctime
    ts(&mut b, 96, st.ctime);
    ts(&mut b, 112, st.mtime);
    let mut put2 = |off: usize, v: u64| b[off..off + 4].copy_from_slice(&(v as u32).to_le_bytes());
    put2(128, (st.rdev >> 8) & 0xfff);
    put2(132, (st.rdev & 0xff) | ((st.rdev >> 12) & 0xfff00));
    put2(136, (st.dev >> 8) & 0xfff);
    put2(140, st.dev & 0xff);
    copy_to_user(buf, &b)?;
    Ok(0)
}

pub fn getdents64(thread: &Thread, fd: i32, buf: usize, len: usize) -> Result<isize> {
    read_dirents(thread, fd, buf, len, false)
}

/// getdents(2): the old record (struct linux_dirent), whose type is the
/// record's last byte, after the name's NUL and padding.
pub fn getdents(thread: &Thread, fd: i32, buf: usize, len: usize) -> Result<isize> {
    read_dirents(thread, fd, buf, len, true)
}

/// Fills `buf` with directory records from the file position: struct
/// linux_dirent64, or the old struct linux_dirent when `old`.
fn read_dirents(thread: &Thread, fd: i32, buf: usize, len: usize, old: bool) -> Result<isize> {
    let f = file(thread, fd)?;
    let inode = f.ops.inode().ok_or(Errno::ENOTDIR)?;
    if inode.file_type() != FileType::Directory {
        return Err(Errno::ENOTDIR);
    }
    let mut out: Vec<u8> = kbuf::with_capacity(len.min(64 * 1024))?;
    let mut pos = f.offset.lock();
    let mut nomem = false;
    let next_pos = inode.read_dir_with(*pos as usize, &mut |entry, next| {
        let name = entry.name;
        // d_ino, d_off, d_reclen, then the name and its NUL; the old
        // record keeps one more byte for d_type at its end.
        let reclen = (18 + name.len() + 2).next_multiple_of(8);
        if out.len() + reclen > len {
            return false;
        }
        let start = out.len();
        if kbuf::reserve(&mut out, reclen).is_err() {
            nomem = true; // what fits is returned; ENOMEM if nothing does
            return false;
        }
        out.resize(start + reclen, 0);
        let record = &mut out[start..];
        record[..8].copy_from_slice(&entry.ino.to_le_bytes());
        record[8..16].copy_from_slice(&(next as u64).to_le_bytes());
        record[16..18].copy_from_slice(&(reclen as u16).to_le_bytes());
        if old {
            record[18..18 + name.len()].copy_from_slice(name);
            record[reclen - 1] = entry.file_type.dirent_type();
        } else {
            record[18] = entry.file_type.dirent_type();
            record[19..19 + name.len()].copy_from_slice(name);
        }
        true
    })?;
    if out.is_empty() && nomem {
        return Err(Errno::ENOMEM);
    }
    // EINVAL when the buffer cannot hold even one entry.
    let result = if out.is_empty() && inode.read_dir(next_pos)?.is_some() {
        Err(Errno::EINVAL)
    } else {
        match copy_to_user(buf, &out) {
            Ok(()) => {
                *pos = next_pos as u64;
                Ok(out.len() as isize)
            }
            Err(e) => Err(e.into()),
        }
    };
    drop(pos);
    // Linux's iterate_dir reports every reading of a directory.
    crate::fs::notify::accessed(&f, &*inode);
    result
}

// --- the working directory ----------------------------------------------------

pub fn getcwd(thread: &Thread, buf: usize, size: usize) -> Result<isize> {
    let path = crate::fs::real_path(&fs_ctx(thread))?;
    if path.len() + 1 > size {
        return Err(Errno::ERANGE);
    }
    let mut out = path;
    out.push(0);
    copy_to_user(buf, &out)?;
    Ok(out.len() as isize)
}

/// The directory a chdir or chroot names: looked up, and searchable by
/// the caller. Returns the path as given, the directory and the caller's
/// credentials.
fn searchable_dir(thread: &Thread, path: usize) -> Result<(Vec<u8>, Arc<dyn Inode>, kevlar_vfs::MountId)> {
    let path = read_path(path)?;
    if path.is_empty() {
        return Err(Errno::ENOENT);
    }
    let cred = fs_cred(thread);
    let (node, mnt) = fs_ctx(thread).lookup_mnt(&cred, None, &path, WalkFlags::DIRECTORY)?;
    if node.file_type() != FileType::Directory {
        return Err(Errno::ENOTDIR);
    }
    kevlar_vfs::check_access(&node.stat()?, &cred, Access::EXEC)?;
    Ok((path, node, mnt))
}

pub fn chdir(thread: &Thread, path: usize) -> Result<isize> {
    let (path, node, mnt) = searchable_dir(thread, path)?;
    let mut fs = thread.process.fs.lock();
    fs.cwd_path = FsContext::absolute(&fs.cwd_path, &path).into();
    fs.cwd = node;
    fs.cwd_mnt = mnt;
    Ok(0)
}

pub fn fchdir(thread: &Thread, fd: i32) -> Result<isize> {
    let f = file(thread, fd)?;
    let node = f.ops.inode().ok_or(Errno::ENOTDIR)?;
    if node.file_type() != FileType::Directory {
        return Err(Errno::ENOTDIR);
    }
    kevlar_vfs::check_access(&node.stat()?, &fs_cred(thread), Access::EXEC)?;
    let mut fs = thread.process.fs.lock();
    fs.cwd_path = f.path.as_slice().into();
    fs.cwd = node;
    fs.cwd_mnt = f.mount_id();
    Ok(0)
}

/// chroot(2): makes `path` the process root, where absolute paths start
/// and `..` stops. Like Linux, the lookup and the search-permission check
/// come before the privilege check (CAP_SYS_CHROOT),
/// and the working directory is left where it is (callers chdir("/") after).
/// Its recorded path is recomputed against the new root; a working
/// directory outside the new root keeps its old path text, since no path
/// from the new root reaches it (Linux's getcwd says "(unreachable)").
pub fn chroot(thread: &Thread, path: usize) -> Result<isize> {
    let (_, node, mnt) = searchable_dir(thread, path)?;
    // CAP_SYS_CHROOT in the caller's own user namespace.
    if !thread.process.creds.lock().has_cap(abi::CAP_SYS_CHROOT) {
        return Err(Errno::EPERM);
    }
    let mut fs = thread.process.fs.lock();
    fs.root = node;
    fs.root_mnt = mnt;
    if let Ok(p) = crate::fs::dir_path(&fs, fs.cwd.clone()) {
        fs.cwd_path = p.into();
    }
    Ok(0)
}

pub fn umask(thread: &Thread, mask: u32) -> Result<isize> {
    let mut fs = thread.process.fs.lock();
    let old = fs.umask;
    fs.umask = mask & 0o777;
    Ok(old as isize)
}

// --- creating and removing ----------------------------------------------------

fn parent_of(thread: &Thread, dirfd: i32, path_ptr: usize) -> Result<(kevlar_vfs::ParentLookup, kevlar_vfs::Credentials)> {
    let path = read_path(path_ptr)?;
    if path.is_empty() {
        return Err(Errno::ENOENT);
    }
    let start = dir_start_mnt(thread, dirfd, &path)?;
    let cred = fs_cred(thread);
    let parent = fs_ctx(thread).lookup_parent_mnt(&cred, start.as_ref().map(|(n, m)| (n, *m)), &path)?;
    Ok((parent, cred))
}

fn check_dir_write(dir: &Arc<dyn Inode>, mnt: kevlar_vfs::MountId, cred: &kevlar_vfs::Credentials) -> Result<()> {
    // A read-only mount refuses changes before permissions are looked at.
    crate::fs::mount::check_writable_at(mnt, &**dir)?;
    Ok(kevlar_vfs::check_access(&dir.stat()?, cred, Access::WRITE | Access::EXEC)?)
}

pub fn mkdirat(thread: &Thread, dirfd: i32, path: usize, mode: u32) -> Result<isize> {
    let (parent, cred) = parent_of(thread, dirfd, path)?;
    let name = parent.name_for_mkdir()?;
    // As Linux's filename_create: a name that exists is EEXIST before the
    // mount's writability and the directory's permissions are looked at
    // (systemd makes its root cgroup with mkdir("/sys/fs/cgroup/")).
    if parent.dir.lookup(name).is_ok() {
        return Err(Errno::EEXIST);
    }
    check_dir_write(&parent.dir, parent.mnt, &cred)?;
    let umask = thread.process.fs.lock().umask;
    // mkdir keeps only the sticky bit of the special bits (setgid comes
    // from the parent directory, not from the mode).
    let mut perms = mode & 0o1777 & !umask;
    if parent.dir.stat()?.mode & abi::S_ISGID != 0 {
        perms |= abi::S_ISGID;
    }
    parent.dir.create(name, FileType::Directory, perms, cred.uid, cred.gid, 0)?;
    crate::fs::notify::created(&parent.dir, name, true);
    Ok(0)
}

pub fn mknodat(thread: &Thread, dirfd: i32, path: usize, mode: u32, dev: u64) -> Result<isize> {
    let (parent, cred) = parent_of(thread, dirfd, path)?;
    let name = parent.name_for_create()?;
    let ty = match mode & abi::S_IFMT {
        0 | abi::S_IFREG => FileType::Regular,
        abi::S_IFIFO => FileType::Fifo,
        abi::S_IFSOCK => FileType::Socket,
        abi::S_IFCHR => FileType::CharDevice,
        abi::S_IFBLK => FileType::BlockDevice,
        abi::S_IFDIR => return Err(Errno::EPERM),
        _ => return Err(Errno::EINVAL),
    };
    check_dir_write(&parent.dir, parent.mnt, &cred)?;
    // Linux's vfs_mknod: device nodes need CAP_MKNOD, after the directory
    // check; a whiteout (character device 0:0) does not.
    let whiteout = ty == FileType::CharDevice && dev == 0;
    if matches!(ty, FileType::CharDevice | FileType::BlockDevice) && !whiteout {
        crate::process::access::require(&thread.process, abi::CAP_MKNOD)?;
    }
    let umask = thread.process.fs.lock().umask;
    parent.dir.create(name, ty, mode & 0o7777 & !umask, cred.uid, cred.gid, dev)?;
    crate::fs::notify::created(&parent.dir, name, false);
    Ok(0)
}

pub fn unlinkat(thread: &Thread, dirfd: i32, path: usize, flags: u32) -> Result<isize> {
    if flags & !abi::AT_REMOVEDIR != 0 {
        return Err(Errno::EINVAL);
    }
    let (parent, cred) = parent_of(thread, dirfd, path)?;
    if flags & abi::AT_REMOVEDIR != 0 {
        let name = parent.name_for_rmdir()?;
        check_dir_write(&parent.dir, parent.mnt, &cred)?;
        check_sticky(&parent.dir, name, &cred)?;
        let victim = crate::fs::notify::victim(&*parent.dir, name);
        parent.dir.rmdir(name)?;
        crate::fs::path_memo::names_changed();
        crate::fs::notify::removed(&parent.dir, name, victim);
    } else {
        let name = parent.name_for_unlink()?;
        check_dir_write(&parent.dir, parent.mnt, &cred)?;
        check_sticky(&parent.dir, name, &cred)?;
        let victim = crate::fs::notify::victim(&*parent.dir, name);
        parent.dir.unlink(name)?;
        crate::fs::path_memo::names_changed();
        crate::fs::notify::removed(&parent.dir, name, victim);
    }
    Ok(0)
}

fn check_sticky(dir: &Arc<dyn Inode>, name: &[u8], cred: &kevlar_vfs::Credentials) -> Result<()> {
    let dir_stat = dir.stat()?;
    if dir_stat.mode & abi::S_ISVTX != 0 {
        let victim = dir.lookup(name)?.stat()?;
        kevlar_vfs::check_sticky(&dir_stat, &victim, cred)?;
    }
    Ok(())
}

pub fn renameat2(thread: &Thread, olddirfd: i32, oldpath: usize, newdirfd: i32, newpath: usize, flags: u32) -> Result<isize> {
    let flags = RenameFlags::from_bits(flags)?;
    let (old, cred) = parent_of(thread, olddirfd, oldpath)?;
    let (new, _) = parent_of(thread, newdirfd, newpath)?;
    let old_name = old.name_for_rename()?;
    let new_name = new.name_for_rename()?;
    let source = old.dir.lookup(old_name)?;
    kevlar_vfs::ParentLookup::check_rename_slashes(&old, &new, source.file_type() == FileType::Directory)?;
    check_dir_write(&old.dir, old.mnt, &cred)?;
    check_dir_write(&new.dir, new.mnt, &cred)?;
    check_sticky(&old.dir, old_name, &cred)?;
    if new.dir.lookup(new_name).is_ok() {
        check_sticky(&new.dir, new_name, &cred)?;
    }
    // Across file systems, or across two mounts of one (Linux compares
    // the mounts).
    if old.dir.fs_id() != new.dir.fs_id() || (old.mnt != kevlar_vfs::NO_MOUNT && new.mnt != kevlar_vfs::NO_MOUNT && old.mnt != new.mnt) {
        return Err(Errno::EXDEV);
    }
    let moving = crate::fs::notify::victim(&*old.dir, old_name);
    let replaced = crate::fs::notify::victim(&*new.dir, new_name);
    let exchanged = if flags.contains(RenameFlags::EXCHANGE) { new.dir.lookup(new_name).ok() } else { None };
    old.dir.rename(old_name, &new.dir, new_name, flags)?;
    crate::fs::path_memo::names_changed();
    crate::fs::path_memo::moved(&source, &new.dir, new_name);
    if let Some(other) = exchanged {
        crate::fs::path_memo::moved(&other, &old.dir, old_name);
    }
    crate::fs::notify::moved(&old.dir, old_name, &new.dir, new_name, moving, replaced);
    Ok(0)
}

pub fn linkat(thread: &Thread, olddirfd: i32, oldpath: usize, newdirfd: i32, newpath: usize, flags: u32) -> Result<isize> {
    if flags & !(abi::AT_SYMLINK_FOLLOW | abi::AT_EMPTY_PATH) != 0 {
        return Err(Errno::EINVAL);
    }
    let path = read_path(oldpath)?;
    let cred = fs_cred(thread);
    let walk = if flags & abi::AT_SYMLINK_FOLLOW != 0 { WalkFlags::EMPTY } else { WalkFlags::NOFOLLOW };
    let (target, target_mnt) = lookup_at(thread, &cred, olddirfd, &path, walk)?;
    if target.file_type() == FileType::Directory {
        return Err(Errno::EPERM);
    }
    let (new, _) = parent_of(thread, newdirfd, newpath)?;
    let name = new.name_for_create()?;
    // An existing name is EEXIST before the protected_hardlinks check
    // (Linux's filename_create comes first).
    if new.dir.lookup(name).is_ok() {
        return Err(Errno::EEXIST);
    }
    crate::fs::protected::may_link(&cred, &*target)?;
    check_dir_write(&new.dir, new.mnt, &cred)?;
    if new.dir.fs_id() != target.fs_id() || (target_mnt != kevlar_vfs::NO_MOUNT && new.mnt != kevlar_vfs::NO_MOUNT && target_mnt != new.mnt) {
        return Err(Errno::EXDEV);
    }
    new.dir.link(name, &target)?;
    crate::fs::notify::linked(&new.dir, name, &target);
    Ok(0)
}

pub fn symlinkat(thread: &Thread, target: usize, newdirfd: i32, linkpath: usize) -> Result<isize> {
    let target = read_path(target)?;
    if target.is_empty() {
        return Err(Errno::ENOENT);
    }
    let (parent, cred) = parent_of(thread, newdirfd, linkpath)?;
    let name = parent.name_for_create()?;
    check_dir_write(&parent.dir, parent.mnt, &cred)?;
    parent.dir.symlink(name, &target, cred.uid, cred.gid)?;
    crate::fs::notify::created(&parent.dir, name, false);
    Ok(0)
}

pub fn readlinkat(thread: &Thread, dirfd: i32, path: usize, buf: usize, size: usize) -> Result<isize> {
    if size as isize <= 0 {
        return Err(Errno::EINVAL);
    }
    let path = read_path(path)?;
    let node = if path.is_empty() {
        // Linux's LOOKUP_EMPTY: an empty path names the symlink `dirfd`
        // refers to (opened with O_PATH|O_NOFOLLOW, as systemd-tmpfiles
        // reads links); anything else is ENOENT, not EINVAL.
        let node = if dirfd == AT_FDCWD { None } else { file(thread, dirfd)?.ops.inode() };
        node.filter(|n| n.file_type() == FileType::Symlink).ok_or(Errno::ENOENT)?
    } else {
        let start = dir_start(thread, dirfd, &path)?;
        let node = fs_ctx(thread).lookup(&fs_cred(thread), start.as_ref(), &path, WalkFlags::NOFOLLOW)?;
        if node.file_type() != FileType::Symlink {
            return Err(Errno::EINVAL);
        }
        node
    };
    let target = node.read_link()?;
    let n = target.len().min(size);
    copy_to_user(buf, &target[..n])?;
    Ok(n as isize)
}

pub fn faccessat(thread: &Thread, dirfd: i32, path: usize, mode: u32, flags: u32) -> Result<isize> {
    if mode & !(abi::R_OK | abi::W_OK | abi::X_OK) != 0 || flags & !(abi::AT_EACCESS | abi::AT_SYMLINK_NOFOLLOW | abi::AT_EMPTY_PATH) != 0 {
        return Err(Errno::EINVAL);
    }
    let st = stat_at(thread, dirfd, path, flags & !abi::AT_EACCESS)?;
    // access() checks with the real ids unless AT_EACCESS.
    let cred = if flags & abi::AT_EACCESS != 0 {
        fs_cred(thread)
    } else {
        // Linux's access() also drops the capabilities a non-root real
        // uid would not have (all of them, for a non-root caller).
        let c = thread.process.creds.lock();
        let caps = if Some(c.uid) == crate::ns::user::root_uid(&c.user_ns) { c.cap_permitted } else { 0 };
        kevlar_vfs::Credentials { uid: c.uid, gid: c.gid, groups: c.groups.clone(), caps, scope: c.user_ns.scope() }
    };
    kevlar_vfs::check_access(&st, &cred, Access::from_bits(mode)?)?;
    Ok(0)
}

fn set_attr_checked(node: &Arc<dyn Inode>, mnt: kevlar_vfs::MountId, cred: &kevlar_vfs::Credentials, attr: SetAttr) -> Result<()> {
    crate::fs::mount::check_writable_at(mnt, &**node)?;
    let st = node.stat()?;
    if attr.mode.is_some() {
        kevlar_vfs::check_owner(&st, cred)?;
    }
    // Linux's chown_ok and chgrp_ok: without CAP_CHOWN only the owner may
    // name an owner (its own) or a group (the file's, or one of its own);
    // naming the current ones is a change like any other for a non-owner.
    let chown_cap = cred.has_cap_over(abi::CAP_CHOWN, &st);
    let owner = cred.uid == st.uid;
    if attr.uid.is_some_and(|u| !(owner && u == st.uid)) && !chown_cap {
        return Err(Errno::EPERM);
    }
    if attr.gid.is_some_and(|g| !(owner && (g == st.gid || cred.in_group(g)))) && !chown_cap {
        return Err(Errno::EPERM);
    }
    let mut attr = attr;
    if (attr.uid.is_some() || attr.gid.is_some()) && attr.mode.is_none() && st.file_type() != Some(FileType::Directory) {
        // chown clears set-user-id, and set-group-id when group execute is
        // set (otherwise the bit means mandatory locking and stays).
        let mut mode = st.perm() & !abi::S_ISUID;
        if mode & abi::S_IXGRP != 0 {
            mode &= !abi::S_ISGID;
        }
        if mode != st.perm() {
            attr.mode = Some(mode);
        }
    }
    node.set_attr(&attr)?;
    crate::fs::notify::attributes_changed(&**node);
    Ok(())
}

pub fn fchmodat(thread: &Thread, dirfd: i32, path: usize, mode: u32) -> Result<isize> {
    let path = read_path(path)?;
    let cred = fs_cred(thread);
    let (node, mnt) = lookup_at(thread, &cred, dirfd, &path, WalkFlags::EMPTY)?;
    set_attr_checked(&node, mnt, &cred, SetAttr { mode: Some(mode & 0o7777), ..SetAttr::default() })?;
    Ok(0)
}

/// The node whose attributes descriptor `fd`'s chmod, chown and stat
/// act on: the file's own, or for a device (a terminal: login's fchown
/// and fchmod of its stdin) the node it was opened by, found again by its
/// path and checked to be the same one.
fn attr_node(thread: &Thread, fd: i32) -> Result<Option<Arc<dyn kevlar_vfs::Inode>>> {
    let f = file(thread, fd)?;
    if let Some(node) = f.ops.inode() {
        return Ok(Some(node));
    }
    let Ok(st) = f.ops.stat() else { return Ok(None) };
    if !matches!(st.file_type(), Some(FileType::CharDevice | FileType::BlockDevice)) || !f.path.starts_with(b"/") {
        return Ok(None);
    }
    let found = fs_ctx(thread).lookup(&kevlar_vfs::Credentials::root(), None, &f.path, WalkFlags::NOFOLLOW).ok();
    Ok(found.filter(|n| n.stat().is_ok_and(|now| now.dev == st.dev && now.ino == st.ino && now.rdev == st.rdev)))
}

pub fn fchmod(thread: &Thread, fd: i32, mode: u32) -> Result<isize> {
    let f = file(thread, fd)?;
    let node = attr_node(thread, fd)?.ok_or(Errno::EINVAL)?;
    set_attr_checked(&node, f.mount_id(), &fs_cred(thread), SetAttr { mode: Some(mode & 0o7777), ..SetAttr::default() })?;
    Ok(0)
}

/// The change chown asks for, in kernel ids (EINVAL for an id the
/// caller's user namespace does not map).
fn chown_attr(thread: &Thread, uid: u32, gid: u32) -> Result<SetAttr> {
    let ns = thread.process.creds.lock().user_ns.clone();
    let uid = if uid == u32::MAX { None } else { Some(ns.uid_down(uid).ok_or(Errno::EINVAL)?) };
    let gid = if gid == u32::MAX { None } else { Some(ns.gid_down(gid).ok_or(Errno::EINVAL)?) };
    Ok(SetAttr { uid, gid, ..SetAttr::default() })
}

pub fn fchownat(thread: &Thread, dirfd: i32, path: usize, uid: u32, gid: u32, flags: u32) -> Result<isize> {
    if flags & !(abi::AT_SYMLINK_NOFOLLOW | abi::AT_EMPTY_PATH) != 0 {
        return Err(Errno::EINVAL);
    }
    let path = read_path(path)?;
    let cred = fs_cred(thread);
    let (node, mnt) = if path.is_empty() && flags & abi::AT_EMPTY_PATH != 0 {
        let f = file(thread, dirfd)?;
        (attr_node(thread, dirfd)?.ok_or(Errno::EINVAL)?, f.mount_id())
    } else {
        let walk = if flags & abi::AT_SYMLINK_NOFOLLOW != 0 { WalkFlags::NOFOLLOW } else { WalkFlags::EMPTY };
        lookup_at(thread, &cred, dirfd, &path, walk)?
    };
    set_attr_checked(&node, mnt, &cred, chown_attr(thread, uid, gid)?)?;
    Ok(0)
}

pub fn fchown(thread: &Thread, fd: i32, uid: u32, gid: u32) -> Result<isize> {
    let f = file(thread, fd)?;
    let node = attr_node(thread, fd)?.ok_or(Errno::EINVAL)?;
    set_attr_checked(&node, f.mount_id(), &fs_cred(thread), chown_attr(thread, uid, gid)?)?;
    Ok(0)
}

pub fn truncate(thread: &Thread, path: usize, len: i64) -> Result<isize> {
    if len < 0 {
        return Err(Errno::EINVAL);
    }
    let path = read_path(path)?;
    let cred = fs_cred(thread);
    let (node, mnt) = fs_ctx(thread).lookup_mnt(&cred, None, &path, WalkFlags::EMPTY)?;
    if node.file_type() == FileType::Directory {
        return Err(Errno::EISDIR);
    }
    crate::fs::mount::check_writable_at(mnt, &*node)?;
    let stat = node.stat()?;
    kevlar_vfs::check_access(&stat, &cred, Access::WRITE)?;
    let _access = crate::fs::writecount::get_write_access(&node)?;
    crate::fs::file::check_truncate_size_limit(stat.size, len as u64)?;
    crate::fs::truncate_file(&node, len as u64)?;
    crate::fs::notify::truncated(&*node);
    Ok(0)
}

pub fn ftruncate(thread: &Thread, fd: i32, len: i64) -> Result<isize> {
    if len < 0 {
        return Err(Errno::EINVAL);
    }
    let f = file(thread, fd)?;
    let node = f.ops.inode().ok_or(Errno::EINVAL)?;
    if node.file_type() != FileType::Regular || !f.writable() {
        return Err(Errno::EINVAL);
    }
    crate::fs::file::check_truncate_size_limit(node.stat()?.size, len as u64)?;
    crate::fs::truncate_file(&node, len as u64)?;
    crate::fs::notify::truncated(&*node);
    Ok(0)
}

pub fn utimensat(thread: &Thread, dirfd: i32, path: usize, times: usize, flags: u32) -> Result<isize> {
    if flags & !(abi::AT_SYMLINK_NOFOLLOW | abi::AT_EMPTY_PATH) != 0 {
        return Err(Errno::EINVAL);
    }
    let now = crate::clock::now();
    let (atime, mtime) = if times == 0 {
        (Some(now), Some(now))
    } else {
        let raw = super::read_bytes::<32>(times)?;
        let decode = |off: usize| -> Result<Option<Timespec>> {
            let sec = i64::from_le_bytes(raw[off..off + 8].try_into().unwrap());
            let nsec = i64::from_le_bytes(raw[off + 8..off + 16].try_into().unwrap());
            match nsec {
                n if n == abi::UTIME_NOW as i64 => Ok(Some(now)),
                n if n == abi::UTIME_OMIT as i64 => Ok(None),
                n if (0..1_000_000_000).contains(&n) => Ok(Some(Timespec::new(sec, n as u32))),
                _ => Err(Errno::EINVAL),
            }
        };
        (decode(0)?, decode(16)?)
    };
    set_times(thread, dirfd, path, atime, mtime, times != 0, flags)
}

/// Sets the access and modification times (None: left as they are) of
/// `path` from `dirfd` (of `dirfd` itself when `path` is 0), as utimensat
/// and the older utime, utimes and futimesat do; `explicit`: times were
/// given (only the owner or CAP_FOWNER may), not just "now" (write access
/// is enough).
pub(super) fn set_times(thread: &Thread, dirfd: i32, path: usize, atime: Option<Timespec>, mtime: Option<Timespec>, explicit: bool, flags: u32) -> Result<isize> {
    let cred = fs_cred(thread);
    let of_fd = |fd: i32| -> Result<(Arc<dyn Inode>, kevlar_vfs::MountId)> {
        let f = file(thread, fd)?;
        Ok((f.ops.inode().ok_or(Errno::EINVAL)?, f.mount_id()))
    };
    let (node, mnt) = if path == 0 {
        of_fd(dirfd)?
    } else {
        let p = read_path(path)?;
        if p.is_empty() && flags & abi::AT_EMPTY_PATH != 0 {
            of_fd(dirfd)?
        } else {
            let walk = if flags & abi::AT_SYMLINK_NOFOLLOW != 0 { WalkFlags::NOFOLLOW } else { WalkFlags::EMPTY };
            lookup_at(thread, &cred, dirfd, &p, walk)?
        }
    };
    // A read-only mount refuses before ownership counts (mnt_want_write
    // first, as Linux's vfs_utimes).
    crate::fs::mount::check_writable_at(mnt, &*node)?;
    let st = node.stat()?;
    if !cred.has_cap(abi::CAP_FOWNER) && cred.uid != st.uid {
        if explicit {
            return Err(Errno::EPERM);
        }
        kevlar_vfs::check_access(&st, &cred, Access::WRITE)?;
    }
    node.set_attr(&SetAttr { atime, mtime, ..SetAttr::default() })?;
    crate::fs::notify::attributes_changed(&*node);
    Ok(0)
}

pub fn fsync(thread: &Thread, fd: i32) -> Result<isize> {
    let f = file(thread, fd)?;
    fsync_file(&f)
}

/// fsync(2) of an open file.
pub(super) fn fsync_file(f: &OpenFile) -> Result<isize> {
    // Pipes, sockets and terminals cannot be synced.
    if !f.ops.is_seekable() {
        return Err(Errno::EINVAL);
    }
    if let Some(result) = f.ops.sync() {
        result?;
        return Ok(0);
    }
    let inode = f.ops.inode().ok_or(Errno::EINVAL)?;
    crate::fs::mount::sync_node(&*inode)?;
    Ok(0)
}

fn file_key(f: &OpenFile) -> Result<crate::fs::locks::FileKey> {
    let inode = f.ops.inode().ok_or(Errno::EBADF)?;
    Ok((inode.fs_id(), inode.ino()))
}

pub fn flock(thread: &Thread, fd: i32, operation: u32) -> Result<isize> {
    let f = file(thread, fd)?;
    let key = file_key(&f)?;
    crate::fs::locks::flock(key, Arc::as_ptr(&f) as usize, operation)?;
    Ok(0)
}

/// fcntl's record-lock commands.
pub fn record_lock(thread: &Thread, f: &Arc<OpenFile>, cmd: u32, arg: usize) -> Result<isize> {
    use crate::fs::locks::{self, Record};
    let raw = super::read_bytes::<32>(arg)?;
    let kind = i16::from_le_bytes([raw[0], raw[1]]) as u32;
    let whence = i16::from_le_bytes([raw[2], raw[3]]) as u32;
    let start = i64::from_le_bytes(raw[8..16].try_into().unwrap());
    let len = i64::from_le_bytes(raw[16..24].try_into().unwrap());
    if kind != abi::F_RDLCK && kind != abi::F_WRLCK && kind != abi::F_UNLCK {
        return Err(Errno::EINVAL);
    }
    let base: i64 = match whence {
        abi::SEEK_SET => 0,
        abi::SEEK_CUR => *f.offset.lock() as i64,
        abi::SEEK_END => f.ops.size()? as i64,
        _ => return Err(Errno::EINVAL),
    };
    let mut first = base.checked_add(start).ok_or(Errno::EOVERFLOW)?;
    let mut last = if len == 0 { i64::MAX } else { first.checked_add(len).ok_or(Errno::EOVERFLOW)? - 1 };
    if len < 0 {
        // A negative length covers the bytes before `start`.
        last = first - 1;
        first += len;
    }
    if first < 0 {
        return Err(Errno::EINVAL);
    }
    let key = file_key(f)?;
    let request = Record { kind, start: first as u64, end: last as u64, pid: thread.process.pid };
    let pid = thread.process.pid;
    match cmd {
        abi::F_GETLK | abi::F_OFD_GETLK => {
            let answer = locks::test(key, pid, request);
            let mut out = raw;
            out[0..2].copy_from_slice(&(answer.kind as i16).to_le_bytes());
            if answer.kind != abi::F_UNLCK {
                out[2..4].copy_from_slice(&(abi::SEEK_SET as i16).to_le_bytes());
                out[8..16].copy_from_slice(&(answer.start as i64).to_le_bytes());
                let length = if answer.end == i64::MAX as u64 { 0 } else { (answer.end - answer.start + 1) as i64 };
                out[16..24].copy_from_slice(&length.to_le_bytes());
                out[24..28].copy_from_slice(&answer.pid.to_le_bytes());
            }
            copy_to_user(arg, &out)?;
            Ok(0)
        }
        _ => {
            if (kind == abi::F_WRLCK && !f.writable()) || (kind == abi::F_RDLCK && !f.readable()) {
                return Err(Errno::EBADF);
            }
            let wait = cmd == abi::F_SETLKW || cmd == abi::F_OFD_SETLKW;
            locks::set(key, pid, request, wait)?;
            Ok(0)
        }
    }
}

/// sync_file_range in Linux's order: the fd (EBADF), the flags and the
/// range (EINVAL: unknown flags, a negative offset or end, an end that
/// wraps), then the file type (ESPIPE unless a regular file, directory,
/// symbolic link or block device).
pub fn sync_file_range(thread: &Thread, fd: i32, offset: i64, nbytes: i64, flags: u32) -> Result<isize> {
    let f = file(thread, fd)?;
    if flags & !abi::SYNC_FILE_RANGE_WRITE_AND_WAIT != 0 || offset < 0 {
        return Err(Errno::EINVAL);
    }
    let end = (offset as u64).wrapping_add(nbytes as u64);
    if (end as i64) < 0 || end < offset as u64 {
        return Err(Errno::EINVAL);
    }
    let allowed = [FileType::Regular, FileType::Directory, FileType::Symlink, FileType::BlockDevice];
    if f.ops.inode().is_none_or(|i| !allowed.contains(&i.file_type())) {
        return Err(Errno::ESPIPE);
    }
    // tmpfs data is in memory: there is nothing to write back.
    Ok(0)
}

/// sendfile in Linux's order of checks (the input, then the count as
/// rw_verify_area sees it, then the output). The copy stops early, with
/// what it moved so far, when a fatal signal comes, and yields the CPU between
/// chunks: a count of ~0 from /dev/zero is EINVAL, and 2 GiB from it is
/// still interruptible.
pub fn sendfile(thread: &Thread, out_fd: i32, in_fd: i32, offset_ptr: usize, count: usize) -> Result<isize> {
    // With an offset pointer, read from there and leave the file position
    // alone; otherwise read at (and advance) the position.
    let mut offset = if offset_ptr != 0 { Some(super::read_u64(offset_ptr)? as i64) } else { None };
    let input = file(thread, in_fd)?;
    if !input.readable() {
        return Err(Errno::EBADF);
    }
    if offset.is_some() && !input.ops.is_seekable() {
        return Err(Errno::ESPIPE);
    }
    if (count as isize) < 0 || offset.is_some_and(|off| off < 0 || off.checked_add(count as i64).is_none()) {
        return Err(Errno::EINVAL);
    }
    let count = count.min(MAX_RW_COUNT);
    let output = file(thread, out_fd)?;
    if !output.writable() {
        return Err(Errno::EBADF);
    }
    if output.flags() & abi::O_APPEND != 0 {
        return Err(Errno::EINVAL);
    }
    // Linux 6.1 splices: into a pipe from a file with splice_read, else
    // only from a regular file or block device (EINVAL).
    let pair_ok = match crate::fs::splice::pipe_of(&output) {
        Some(_) => crate::fs::splice::can_splice_read(&input),
        None => crate::fs::splice::can_send_directly(&input),
    };
    if !pair_ok {
        return Err(Errno::EINVAL);
    }
    if count > 0 && crate::fs::splice::pipe_of(&output).is_none() && !crate::fs::splice::can_splice_write(&output) {
        // An output that takes no spliced data (an eventfd) fails when
        // Linux first has data for it: at the end of a regular input the
        // call returns 0.
        let pos = offset.map_or_else(|| *input.offset.lock(), |off| off as u64);
        let at_end = input.ops.stat().is_ok_and(|st| st.file_type() == Some(kevlar_vfs::FileType::Regular) && pos >= st.size);
        return if at_end { Ok(0) } else { Err(Errno::EINVAL) };
    }
    let mut buf = kbuf::zeroed(count.min(CHUNK))?;
    let mut done = 0usize;
    let mut failure = None;
    while done < count {
        if done > 0 && !thread.checkpoint() {
            break;
        }
        let want = (count - done).min(buf.len());
        let read = match offset {
            Some(off) => input.ops.read(&input, off as u64, &mut buf[..want]),
            None => input.read(&mut buf[..want]),
        };
        let n = match read {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) => {
                failure = Some(e);
                break;
            }
        };
        let written = match output.write(&buf[..n]) {
            Ok(w) => w,
            Err(e) => {
                failure = Some(e);
                break;
            }
        };
        done += written;
        if let Some(off) = offset.as_mut() {
            *off += written as i64;
        }
        if written < n {
            break;
        }
    }
    if let Some(off) = offset {
        super::write_u64(offset_ptr, off as u64)?;
    }
    match failure {
        Some(e) if done == 0 => Err(e),
        _ => Ok(done as isize),
    }
}
