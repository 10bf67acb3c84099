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

/// The size of `struct fiemap` (the header before the extents).
const FIEMAP_HEADER: usize = 32;
/// The size of `struct fiemap_extent`.
const FIEMAP_EXTENT: usize = 56;

/// FS_IOC_FIEMAP (on any file) and FIBMAP (on a regular file); `None`
/// for anything else (the file's own ioctl then answers).
pub fn map_ioctl(thread: &Thread, f: &crate::fs::file::OpenFile, request: u32, arg: usize) -> Option<Result<isize>> {
    use linux_raw_sys::ioctl as io;
    if request != io::FS_IOC_FIEMAP && request != io::FIBMAP {
        return None;
    }
    if request == io::FS_IOC_FIEMAP {
        // Every file reaches ioctl_fiemap (do_vfs_ioctl); only regular
        // files of file systems with fiemap get past its first check.
        return Some(match f.ops.inode().filter(|n| n.file_type() == FileType::Regular) {
            Some(node) => fiemap(&*node, arg),
            None => Err(Errno::EOPNOTSUPP),
        });
    }
    // FIBMAP is file_ioctl's: regular files only.
    let node = f.ops.inode().filter(|n| n.file_type() == FileType::Regular)?;
    Some(fibmap(thread, &*node, arg))
}

/// ioctl_fiemap: the header in, the file system's runs out as
/// `fiemap_extent`s (counted only when `fm_extent_count` is 0; the last
/// run flagged FIEMAP_EXTENT_LAST), the header back with the reply's flags
/// and count, even when the file system refused.
fn fiemap(node: &dyn kevlar_vfs::Inode, arg: usize) -> Result<isize> {
    use linux_raw_sys::ioctl as io;
    // A file system without fiemap refuses before the header is read.
    if node.fiemap(0, 0, &mut 0) == Err(Errno::EOPNOTSUPP) {
        return Err(Errno::EOPNOTSUPP);
    }
    let mut header = [0u8; FIEMAP_HEADER];
    crate::uaccess::copy_from_user(&mut header, arg)?;
    let le64 = |o: usize| u64::from_ne_bytes(header[o..o + 8].try_into().expect("8 bytes"));
    let le32 = |o: usize| u32::from_ne_bytes(header[o..o + 4].try_into().expect("4 bytes"));
    let (start, len, mut flags, count) = (le64(0), le64(8), le32(16), le32(24));
    if count as usize > u32::MAX as usize / FIEMAP_EXTENT {
        return Err(Errno::EINVAL);
    }
    let result = node.fiemap(start, len, &mut flags);
    let mut mapped = 0u32;
    let mut error = None;
    if let Ok(runs) = &result {
        for (i, run) in runs.iter().enumerate() {
            if count == 0 {
                mapped += 1;
                continue;
            }
            if mapped >= count {
                break;
            }
            let mut e = [0u8; FIEMAP_EXTENT];
            e[0..8].copy_from_slice(&run.logical.to_ne_bytes());
            e[8..16].copy_from_slice(&run.physical.to_ne_bytes());
            e[16..24].copy_from_slice(&run.length.to_ne_bytes());
            let mut fe_flags = if run.unwritten { io::FIEMAP_EXTENT_UNWRITTEN } else { 0 };
            if i + 1 == runs.len() {
                fe_flags |= io::FIEMAP_EXTENT_LAST;
            }
            e[40..44].copy_from_slice(&fe_flags.to_ne_bytes());
            let to = arg
                .checked_add(FIEMAP_HEADER + FIEMAP_EXTENT * mapped as usize)
                .ok_or(Errno::EFAULT)?;
            if let Err(e) = crate::uaccess::copy_to_user(to, &e) {
                error = Some(Errno::from(e));
                break;
            }
            mapped += 1;
        }
    }
    header[16..20].copy_from_slice(&flags.to_ne_bytes());
    header[20..24].copy_from_slice(&mapped.to_ne_bytes());
    crate::uaccess::copy_to_user(arg, &header)?;
    if let Some(e) = error {
        return Err(e);
    }
    result.map(|_| 0)
}

/// ioctl_fibmap: CAP_SYS_RAWIO, a non-negative block number in, the disk
/// block out (0 for a hole); EINVAL where the file system has no bmap.
fn fibmap(thread: &Thread, node: &dyn kevlar_vfs::Inode, arg: usize) -> Result<isize> {
    if !crate::process::access::capable(&thread.process, abi::CAP_SYS_RAWIO) {
        return Err(Errno::EPERM);
    }
    let raw = super::read_bytes::<4>(arg).map(i32::from_ne_bytes)?;
    if raw < 0 {
        return Err(Errno::EINVAL);
    }
    let (value, result) = match node.bmap(raw as u64) {
        Ok(b) if b > i32::MAX as u64 => (0, Err(Errno::ERANGE)),
        Ok(b) => (b as i32, Ok(0)),
        Err(e) => (0, Err(e)),
    };
    crate::uaccess::copy_to_user(arg, &value.to_ne_bytes())?;
    result
}
