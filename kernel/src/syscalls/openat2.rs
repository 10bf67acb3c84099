//! openat2(2): openat with a `struct open_how` whose every field is
//! checked, and RESOLVE_* restrictions on the path walk, as Linux's
//! fs/open.c (build_open_flags) and fs/namei.c.
//!
//! The order of Linux's checks: the size (below OPEN_HOW_SIZE_VER0:
//! EINVAL), bytes past the known struct (nonzero: E2BIG), the struct
//! (EFAULT), unknown open flags or resolve flags (EINVAL), BENEATH with
//! IN_ROOT (EINVAL), a mode without O_CREAT or O_TMPFILE or with bits
//! past 07777 (EINVAL), O_TMPFILE without O_DIRECTORY or write access
//! (EINVAL), O_PATH with flags other than O_DIRECTORY, O_NOFOLLOW and
//! O_CLOEXEC (EINVAL), RESOLVE_CACHED with O_CREAT, O_TRUNC or O_TMPFILE
//! (EAGAIN); then the open as openat's. Every node of Kevlar's file
//! systems is in memory once looked up, so RESOLVE_CACHED otherwise
//! walks as usual.

use kevlar_vfs::{FileType, WalkFlags};
use linux_raw_sys::general::{
    AT_FDCWD, FASYNC, O_ACCMODE, O_APPEND, O_CLOEXEC, O_CREAT, O_DIRECT, O_DIRECTORY, O_DSYNC, O_EXCL, O_LARGEFILE,
    O_NOATIME, O_NOCTTY, O_NOFOLLOW, O_NONBLOCK, O_PATH, O_RDONLY, O_TRUNC, RESOLVE_BENEATH, RESOLVE_CACHED, RESOLVE_IN_ROOT,
    RESOLVE_NO_MAGICLINKS, RESOLVE_NO_SYMLINKS, RESOLVE_NO_XDEV, __O_SYNC, __O_TMPFILE,
};

use crate::error::{Errno, Result};
use crate::process::Thread;
use crate::uaccess::copy_from_user;

/// Linux's VALID_OPEN_FLAGS.
const VALID_OPEN_FLAGS: u64 = (O_ACCMODE | O_CREAT | O_EXCL | O_NOCTTY | O_TRUNC | O_APPEND | O_NONBLOCK | __O_SYNC | O_DSYNC | FASYNC | O_DIRECT
    | O_LARGEFILE | O_DIRECTORY | O_NOFOLLOW | O_NOATIME | O_CLOEXEC | O_PATH | __O_TMPFILE) as u64;
/// Linux's VALID_RESOLVE_FLAGS.
const VALID_RESOLVE_FLAGS: u64 = (RESOLVE_NO_XDEV | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH | RESOLVE_IN_ROOT | RESOLVE_CACHED) as u64;
/// The flags O_PATH may come with (O_CLOEXEC is taken off before).
const O_PATH_FLAGS: u64 = (O_DIRECTORY | O_NOFOLLOW | O_PATH) as u64;
/// The size of the struct this kernel knows (Linux 6.1's: flags, mode,
/// resolve), which is also the first version's (OPEN_HOW_SIZE_VER0).
const OPEN_HOW_SIZE: usize = core::mem::size_of::<linux_raw_sys::general::open_how>();
const OPEN_HOW_SIZE_VER0: usize = OPEN_HOW_SIZE;
/// Bytes past the known struct are checked in pieces of this size.
const ZERO_CHECK_CHUNK: usize = 256;

/// Reads `struct open_how` of `size` bytes: the fields this kernel knows,
/// and zeros in any bytes past them (Linux's copy_struct_from_user).
fn read_how(addr: usize, size: usize) -> Result<(u64, u64, u64)> {
    if size < OPEN_HOW_SIZE_VER0 {
        return Err(Errno::EINVAL);
    }
    if size > OPEN_HOW_SIZE {
        let mut at = addr.checked_add(OPEN_HOW_SIZE).ok_or(Errno::EFAULT)?;
        let end = addr.checked_add(size).ok_or(Errno::EFAULT)?;
        let mut chunk = [0u8; ZERO_CHECK_CHUNK];
        while at < end {
            let n = (end - at).min(ZERO_CHECK_CHUNK);
            copy_from_user(&mut chunk[..n], at)?;
            if chunk[..n].iter().any(|&b| b != 0) {
                return Err(Errno::E2BIG);
            }
            at += n;
        }
    }
    let raw = super::read_bytes::<OPEN_HOW_SIZE>(addr)?;
    let field = |i: usize| u64::from_le_bytes(raw[i * 8..i * 8 + 8].try_into().unwrap());
    Ok((field(0), field(1), field(2)))
}

/// Checks the open flags, mode and resolve flags as build_open_flags;
/// returns the walk restrictions.
fn check_how(flags: u64, mode: u64, resolve: u64) -> Result<WalkFlags> {
    let flags = flags & !(O_CLOEXEC as u64);
    if flags & !VALID_OPEN_FLAGS != 0 || resolve & !VALID_RESOLVE_FLAGS != 0 {
        return Err(Errno::EINVAL);
    }
    let (beneath, in_root) = (RESOLVE_BENEATH as u64, RESOLVE_IN_ROOT as u64);
    if resolve & beneath != 0 && resolve & in_root != 0 {
        return Err(Errno::EINVAL);
    }
    let will_create = flags & (O_CREAT | __O_TMPFILE) as u64 != 0;
    if (will_create && mode & !0o7777 != 0) || (!will_create && mode != 0) {
        return Err(Errno::EINVAL);
    }
    if flags & __O_TMPFILE as u64 != 0 {
        let mask = (__O_TMPFILE | O_DIRECTORY | O_CREAT) as u64;
        if flags & mask != (__O_TMPFILE | O_DIRECTORY) as u64 || flags & O_ACCMODE as u64 == O_RDONLY as u64 {
            return Err(Errno::EINVAL);
        }
    }
    if flags & O_PATH as u64 != 0 && flags & !O_PATH_FLAGS != 0 {
        return Err(Errno::EINVAL);
    }
    if resolve & RESOLVE_CACHED as u64 != 0 && flags & (O_TRUNC | O_CREAT | __O_TMPFILE) as u64 != 0 {
        return Err(Errno::EAGAIN);
    }
    let mut walk = WalkFlags::EMPTY;
    for (bit, flag) in [
        (RESOLVE_NO_XDEV, WalkFlags::NO_XDEV),
        (RESOLVE_NO_MAGICLINKS, WalkFlags::NO_MAGICLINKS),
        (RESOLVE_NO_SYMLINKS, WalkFlags::NO_SYMLINKS),
        (RESOLVE_BENEATH, WalkFlags::BENEATH),
        (RESOLVE_IN_ROOT, WalkFlags::IN_ROOT),
    ] {
        if resolve & bit as u64 != 0 {
            walk = walk | flag;
        }
    }
    Ok(walk)
}

pub fn openat2(thread: &Thread, dirfd: i32, path: usize, how: usize, size: usize) -> Result<isize> {
    let (flags, mode, resolve) = read_how(how, size)?;
    let walk = check_how(flags, mode, resolve)?;
    let path = super::read_path(path)?;
    if path.is_empty() {
        return Err(Errno::ENOENT);
    }
    // The walk starts at `dirfd` for a relative path, and for an absolute
    // one too when it is the root (IN_ROOT).
    let start = if dirfd == AT_FDCWD || (path.starts_with(b"/") && !walk.contains(WalkFlags::IN_ROOT)) {
        None
    } else {
        let f = thread.process.files.lock().lock().get(dirfd)?;
        let inode = f.ops.inode().ok_or(Errno::ENOTDIR)?;
        if inode.file_type() != FileType::Directory {
            return Err(Errno::ENOTDIR);
        }
        Some((inode, f.mount_id()))
    };
    let flags = flags as u32;
    let ctx = super::fs::fs_ctx(thread);
    let cred = super::fs::fs_cred(thread);
    let file = crate::fs::open_path_resolve(&ctx, &cred, start.as_ref().map(|(n, m)| (n, *m)), &path, flags, mode as u32, walk)?;
    let fd = thread.process.files.lock().lock().insert(file, flags & O_CLOEXEC != 0)?;
    Ok(fd as isize)
}
