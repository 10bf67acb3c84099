//! Moving data between files in the kernel: splice, tee, vmsplice,
//! copy_file_range and sendfile's pairs (Linux's fs/splice.c and
//! fs/read_write.c). The system calls (`syscalls/splice.rs`) check the
//! arguments in Linux's order and call these.
//!
//! Pipes hold bytes (not pages), so a splice into a pipe copies the file's
//! bytes into it and a splice out of one copies them to the file; what
//! user space sees (counts, positions, blocking, errors) is Linux's.

use alloc::vec;
use alloc::sync::Arc;

use kevlar_vfs::FileType;

use super::file::OpenFile;
use super::pipe::Pipe;
use crate::error::{Errno, Result};

/// The most one call moves (Linux's MAX_RW_COUNT).
pub const MAX_RW_COUNT: usize = 0x7fff_f000;
/// Bytes copied per step of a long copy (between steps the caller may
/// yield or stop for a fatal signal).
const STEP: usize = 64 * 1024;

/// The pipe behind a pipe end or FIFO (Linux's get_pipe_info).
pub fn pipe_of(file: &OpenFile) -> Option<Arc<Pipe>> {
    file.ops.pipe()
}

fn file_type(file: &OpenFile) -> Option<FileType> {
    let mode = file.ops.stat().ok()?.mode;
    FileType::from_mode(mode)
}

/// Whether data can be spliced out of `file` into a pipe (Linux's files
/// with a splice_read method: regular files, block devices, sockets).
pub fn can_splice_read(file: &OpenFile) -> bool {
    file.ops.as_socket().is_some() || matches!(file_type(file), Some(FileType::Regular | FileType::BlockDevice))
}

/// Whether data can be spliced into `file` (Linux's files with a
/// splice_write method): pipes, sockets, regular files, block and
/// character devices; not the anonymous-inode files (eventfd, timerfd,
/// signalfd, epoll, inotify, pidfd), which have none (EINVAL).
pub fn can_splice_write(file: &OpenFile) -> bool {
    pipe_of(file).is_some()
        || file.ops.as_socket().is_some()
        || matches!(file_type(file), Some(FileType::Regular | FileType::BlockDevice | FileType::CharDevice))
}

/// Whether `file` may be sendfile's input when the output is not a pipe
/// (Linux's splice_direct_to_actor: a regular file or a block device).
pub fn can_send_directly(file: &OpenFile) -> bool {
    matches!(file_type(file), Some(FileType::Regular | FileType::BlockDevice))
}

/// Reads into `buf` at `offset`, or at the file position when `None`
/// (which the caller moves by what it used).
fn read_from(file: &OpenFile, offset: Option<u64>, buf: &mut [u8]) -> Result<usize> {
    match offset {
        Some(off) => file.ops.read(file, off, buf),
        None if file.ops.is_seekable() => {
            let pos = *file.offset.lock();
            file.ops.read(file, pos, buf)
        }
        None => file.ops.read(file, 0, buf),
    }
}

fn write_to(file: &OpenFile, offset: Option<u64>, buf: &[u8]) -> Result<usize> {
    match offset {
        Some(off) => file.ops.write(file, off, buf),
        None if file.ops.is_seekable() => {
            let pos = *file.offset.lock();
            file.ops.write(file, pos, buf)
        }
        None => file.ops.write(file, 0, buf),
    }
}

fn advance_position(file: &OpenFile, offset: Option<u64>, n: usize) {
    if offset.is_none() && file.ops.is_seekable() {
        *file.offset.lock() += n as u64;
    }
}

/// splice from a file into a pipe: waits for room (EAGAIN when
/// `nonblock`, EPIPE without readers), then reads at most what fits from
/// `offset` (the file position when `None`, which then moves).
pub fn file_to_pipe(input: &OpenFile, offset: Option<u64>, pipe: &Pipe, len: usize, nonblock: bool) -> Result<usize> {
    if !can_splice_read(input) {
        return Err(Errno::EINVAL);
    }
    pipe.wait_writable(nonblock)?;
    let want = len.min(pipe.room()).min(MAX_RW_COUNT);
    if want == 0 {
        return Ok(0);
    }
    let mut buf = vec![0u8; want];
    let n = read_from(input, offset, &mut buf)?;
    let pushed = pipe.push(&buf[..n])?;
    advance_position(input, offset, pushed);
    Ok(pushed)
}

/// splice from a pipe into a file: waits for data (0 when the pipe is
/// empty with no writer, EAGAIN when `nonblock`), then writes what the
/// pipe holds, up to `len`, at `offset` (or the file position).
pub fn pipe_to_file(pipe: &Pipe, output: &OpenFile, offset: Option<u64>, len: usize, nonblock: bool) -> Result<usize> {
    if !pipe.wait_readable(nonblock)? {
        return Ok(0);
    }
    let data = pipe.peek(len.min(MAX_RW_COUNT));
    let written = write_to(output, offset, &data)?;
    pipe.consume(written);
    advance_position(output, offset, written);
    Ok(written)
}

/// splice between two pipes (`consume`), or tee (not `consume`): waits
/// for data in `input` and room in `output` as Linux's ipipe_prep and
/// opipe_prep, then moves or copies up to `len` bytes.
pub fn pipe_to_pipe(input: &Pipe, output: &Pipe, len: usize, nonblock: bool, consume: bool) -> Result<usize> {
    loop {
        let readable = input.wait_readable(nonblock)?;
        output.wait_writable(nonblock)?;
        if !readable {
            return Ok(0);
        }
        let n = input.transfer(output, len, consume)?;
        if n > 0 {
            return Ok(n);
        }
        // Another reader or writer got there first: wait again.
    }
}

/// copy_file_range's copy, after its checks: `len` bytes (already cut to
/// the input's end and MAX_RW_COUNT) from `pos_in` to `pos_out`, in steps
/// between which `keep_going` may yield and ends the copy early (a fatal
/// signal). Returns the count copied; an error only when nothing was.
pub fn copy_range(input: &OpenFile, pos_in: u64, output: &OpenFile, pos_out: u64, len: usize, mut keep_going: impl FnMut() -> bool) -> Result<usize> {
    let mut buf = vec![0u8; len.min(STEP)];
    let mut done = 0usize;
    while done < len {
        if done > 0 && !keep_going() {
            break;
        }
        let want = (len - done).min(buf.len());
        let result = input.ops.read(input, pos_in + done as u64, &mut buf[..want]).and_then(|n| {
            if n == 0 {
                return Ok((0, 0));
            }
            Ok((n, output.ops.write(output, pos_out + done as u64, &buf[..n])?))
        });
        match result {
            Ok((0, _)) => break,
            Ok((n, written)) => {
                done += written;
                if written < n {
                    break;
                }
            }
            Err(e) if done == 0 => return Err(e),
            Err(_) => break,
        }
    }
    Ok(done)
}
