//! splice, tee, vmsplice and copy_file_range: the arguments checked in
//! Linux 6.1's order (fs/splice.c, fs/read_write.c); the moving is done by
//! `fs/splice.rs`.

use alloc::sync::Arc;
use alloc::vec::Vec;

use kevlar_vfs::FileType;
use linux_raw_sys::general as abi;

use super::{read_u64, write_u64};
use crate::error::{Errno, Result};
use crate::fs::file::OpenFile;
use crate::fs::splice::{self as mech, pipe_of, MAX_RW_COUNT};
use crate::process::Thread;
use crate::uaccess::{copy_from_user, copy_to_user};

const SPLICE_F_ALL: u32 = abi::SPLICE_F_MOVE | abi::SPLICE_F_NONBLOCK | abi::SPLICE_F_MORE | abi::SPLICE_F_GIFT;

fn file(thread: &Thread, fd: i32) -> Result<Arc<OpenFile>> {
    thread.process.files.lock().lock().get(fd)
}

fn nonblocking(file: &OpenFile) -> bool {
    file.flags() & abi::O_NONBLOCK != 0
}

/// Linux's rw_verify_area: a count that is negative as a ssize_t, a
/// negative offset or one the count takes past the largest offset: EINVAL.
fn verify_area(offset: i64, count: usize) -> Result<()> {
    if (count as isize) < 0 || offset < 0 || offset.checked_add(count as i64).is_none() {
        return Err(Errno::EINVAL);
    }
    Ok(())
}

/// The file's type from its metadata.
fn type_of(file: &OpenFile) -> Option<FileType> {
    FileType::from_mode(file.ops.stat().ok()?.mode)
}

/// Whether a pipe's data may be spliced into `file` (Linux's files with a
/// splice_write method).
fn can_splice_write(file: &OpenFile) -> bool {
    file.ops.as_socket().is_some() || matches!(type_of(file), Some(FileType::Regular | FileType::BlockDevice | FileType::CharDevice))
}

/// The position to use: the one at `ptr` (read from user memory) or the
/// file's own.
fn read_offset(ptr: usize) -> Result<Option<i64>> {
    if ptr == 0 { Ok(None) } else { Ok(Some(read_u64(ptr)? as i64)) }
}

pub fn splice(thread: &Thread, fd_in: i32, off_in: usize, fd_out: i32, off_out: usize, len: usize, flags: u32) -> Result<isize> {
    if len == 0 {
        return Ok(0);
    }
    if flags & !SPLICE_F_ALL != 0 {
        return Err(Errno::EINVAL);
    }
    let input = file(thread, fd_in)?;
    let output = file(thread, fd_out)?;
    let (ipipe, opipe) = (pipe_of(&input), pipe_of(&output));
    if (ipipe.is_some() && off_in != 0) || (opipe.is_some() && off_out != 0) {
        return Err(Errno::ESPIPE);
    }
    let offset_out = read_offset(off_out)?;
    let offset_in = read_offset(off_in)?;
    if !input.readable() || !output.writable() {
        return Err(Errno::EBADF);
    }
    let mut nonblock = flags & abi::SPLICE_F_NONBLOCK != 0;
    match (ipipe, opipe) {
        (Some(ipipe), Some(opipe)) => {
            if Arc::ptr_eq(&ipipe, &opipe) {
                return Err(Errno::EINVAL);
            }
            nonblock |= nonblocking(&input) || nonblocking(&output);
            Ok(mech::pipe_to_pipe(&ipipe, &opipe, len, nonblock, true)? as isize)
        }
        (Some(ipipe), None) => {
            if offset_out.is_some() && !output.ops.is_seekable() {
                return Err(Errno::EINVAL);
            }
            let start = match offset_out {
                Some(off) => off,
                None => *output.offset.lock() as i64,
            };
            if output.flags() & abi::O_APPEND != 0 {
                return Err(Errno::EINVAL);
            }
            verify_area(start, len)?;
            if !can_splice_write(&output) {
                return Err(Errno::EINVAL);
            }
            nonblock |= nonblocking(&input);
            let n = mech::pipe_to_file(&ipipe, &output, offset_out.map(|o| o as u64), len, nonblock)?;
            if let Some(off) = offset_out {
                write_u64(off_out, off as u64 + n as u64)?;
            }
            Ok(n as isize)
        }
        (None, Some(opipe)) => {
            if offset_in.is_some() && !input.ops.is_seekable() {
                return Err(Errno::EINVAL);
            }
            let start = match offset_in {
                Some(off) => off,
                None => *input.offset.lock() as i64,
            };
            verify_area(start, len)?;
            nonblock |= nonblocking(&output);
            let n = mech::file_to_pipe(&input, offset_in.map(|o| o as u64), &opipe, len, nonblock)?;
            if let Some(off) = offset_in {
                write_u64(off_in, off as u64 + n as u64)?;
            }
            Ok(n as isize)
        }
        (None, None) => Err(Errno::EINVAL),
    }
}

pub fn tee(thread: &Thread, fd_in: i32, fd_out: i32, len: usize, flags: u32) -> Result<isize> {
    if flags & !SPLICE_F_ALL != 0 {
        return Err(Errno::EINVAL);
    }
    if len == 0 {
        return Ok(0);
    }
    let input = file(thread, fd_in)?;
    let output = file(thread, fd_out)?;
    if !input.readable() || !output.writable() {
        return Err(Errno::EBADF);
    }
    match (pipe_of(&input), pipe_of(&output)) {
        (Some(ipipe), Some(opipe)) if !Arc::ptr_eq(&ipipe, &opipe) => {
            let nonblock = flags & abi::SPLICE_F_NONBLOCK != 0 || nonblocking(&input) || nonblocking(&output);
            Ok(mech::pipe_to_pipe(&ipipe, &opipe, len, nonblock, false)? as isize)
        }
        _ => Err(Errno::EINVAL),
    }
}

pub fn vmsplice(thread: &Thread, fd: i32, iov: usize, nr_segs: usize, flags: u32) -> Result<isize> {
    if flags & !SPLICE_F_ALL != 0 {
        return Err(Errno::EINVAL);
    }
    let f = file(thread, fd)?;
    let to_pipe = if f.writable() {
        true
    } else if f.readable() {
        false
    } else {
        return Err(Errno::EBADF);
    };
    let vecs = super::fs::read_iovecs(iov, nr_segs)?;
    let total = vecs.iter().map(|v| v.1).sum::<usize>().min(MAX_RW_COUNT);
    if total == 0 {
        return Ok(0);
    }
    let pipe = pipe_of(&f).ok_or(Errno::EBADF)?;
    let nonblock = flags & abi::SPLICE_F_NONBLOCK != 0;
    if to_pipe {
        pipe.wait_writable(nonblock || nonblocking(&f))?;
        // Gather no more than fits now.
        let want = total.min(pipe.room());
        let mut data: Vec<u8> = Vec::with_capacity(want);
        for &(base, len) in &vecs {
            if data.len() == want {
                break;
            }
            let take = len.min(want - data.len());
            let at = data.len();
            data.resize(at + take, 0);
            if let Err(e) = copy_from_user(&mut data[at..], base) {
                data.truncate(at);
                if at == 0 {
                    return Err(e);
                }
                break;
            }
        }
        Ok(pipe.push(&data)? as isize)
    } else {
        if !pipe.wait_readable(nonblock)? {
            return Ok(0);
        }
        let data = pipe.peek(total);
        let mut done = 0;
        for &(base, len) in &vecs {
            if done == data.len() {
                break;
            }
            let take = len.min(data.len() - done);
            if let Err(e) = copy_to_user(base, &data[done..done + take]) {
                if done == 0 {
                    return Err(e.into());
                }
                break;
            }
            done += take;
        }
        pipe.consume(done);
        Ok(done as isize)
    }
}

pub fn copy_file_range(thread: &Thread, fd_in: i32, off_in: usize, fd_out: i32, off_out: usize, len: usize, flags: u32) -> Result<isize> {
    let input = file(thread, fd_in)?;
    let output = file(thread, fd_out)?;
    let pos_in = match read_offset(off_in)? {
        Some(off) => off,
        None => *input.offset.lock() as i64,
    };
    let pos_out = match read_offset(off_out)? {
        Some(off) => off,
        None => *output.offset.lock() as i64,
    };
    if flags != 0 {
        return Err(Errno::EINVAL);
    }
    // generic_file_rw_checks
    let (tin, tout) = (type_of(&input), type_of(&output));
    if tin == Some(FileType::Directory) || tout == Some(FileType::Directory) {
        return Err(Errno::EISDIR);
    }
    if tin != Some(FileType::Regular) || tout != Some(FileType::Regular) {
        return Err(Errno::EINVAL);
    }
    if !input.readable() || !output.writable() || output.flags() & abi::O_APPEND != 0 {
        return Err(Errno::EBADF);
    }
    let (Some(inode_in), Some(inode_out)) = (input.ops.inode(), output.ops.inode()) else {
        return Err(Errno::EINVAL);
    };
    // No file system here has its own copy_file_range: Linux 6.1 copies
    // only within one.
    if inode_in.fs_id() != inode_out.fs_id() {
        return Err(Errno::EXDEV);
    }
    let mut count = len as u64;
    if (pos_in as u64).checked_add(count).is_none() || (pos_out as u64).checked_add(count).is_none() {
        return Err(Errno::EOVERFLOW);
    }
    let size_in = inode_in.stat()?.size as i64;
    count = if pos_in >= size_in { 0 } else { count.min(size_in.wrapping_sub(pos_in) as u64) };
    if count > 0 {
        count = crate::fs::file::clamp_to_file_size_limit(pos_out as u64, count.min(usize::MAX as u64) as usize)? as u64;
    }
    let same = kevlar_vfs::same_inode(&*inode_in, &*inode_out);
    if same && (pos_out as u64).wrapping_add(count) > pos_in as u64 && (pos_out as u64) < (pos_in as u64).wrapping_add(count) {
        return Err(Errno::EINVAL);
    }
    let count = count as usize;
    verify_area(pos_in, count)?;
    verify_area(pos_out, count)?;
    if count == 0 {
        return Ok(0);
    }
    let n = mech::copy_range(&input, pos_in as u64, &output, pos_out as u64, count.min(MAX_RW_COUNT), || thread.checkpoint())?;
    if n > 0 {
        match off_in {
            0 => *input.offset.lock() = pos_in as u64 + n as u64,
            ptr => write_u64(ptr, pos_in as u64 + n as u64)?,
        }
        match off_out {
            0 => *output.offset.lock() = pos_out as u64 + n as u64,
            ptr => write_u64(ptr, pos_out as u64 + n as u64)?,
        }
    }
    Ok(n as isize)
}
