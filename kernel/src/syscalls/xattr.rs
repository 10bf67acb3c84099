//! Extended attributes: the getxattr/setxattr/listxattr/removexattr family.
//!
//! No Kevlar file system stores extended attributes, so these calls behave
//! as Linux's do on a file system without xattr support: the file is looked
//! up (or the fd checked) and the name validated exactly as Linux does,
//! then getting, setting or removing an attribute fails with EOPNOTSUPP and
//! listing gives an empty list. Programs such as coreutils' `ls -l` (which
//! asks for ACLs and SELinux labels) need the calls to exist: ENOSYS is
//! reported as an error where EOPNOTSUPP means "none here".

use alloc::sync::Arc;

use kevlar_vfs::{Inode, WalkFlags};
use linux_raw_sys::general as abi;

use super::{read_path, read_user_cstr};
use crate::error::{Errno, Result};
use crate::process::Thread;

/// Whether a path call follows a final symlink (getxattr) or not (lgetxattr).
#[derive(Clone, Copy)]
pub enum Follow {
    Yes,
    No,
}

/// Looks the file up the way the path variants do.
fn lookup(thread: &Thread, path: usize, follow: Follow) -> Result<Arc<dyn Inode>> {
    Ok(lookup_mnt(thread, path, follow)?.0)
}

/// [`lookup`], also returning the mount the file was reached through.
fn lookup_mnt(thread: &Thread, path: usize, follow: Follow) -> Result<(Arc<dyn Inode>, kevlar_vfs::MountId)> {
    let path = read_path(path)?;
    if path.is_empty() {
        return Err(Errno::ENOENT);
    }
    let fs = thread.process.fs.lock().clone();
    let cred = super::fs::fs_cred(thread);
    let flags = match follow {
        Follow::Yes => WalkFlags::EMPTY,
        Follow::No => WalkFlags::NOFOLLOW,
    };
    fs.lookup_mnt(&cred, None, &path, flags)
}

/// Checks that `fd` is open (the f* variants; O_PATH files are refused
/// with EBADF, as on Linux).
fn check_fd(thread: &Thread, fd: i32) -> Result<()> {
    let f = thread.process.files.lock().lock().get(fd)?;
    if f.flags() & abi::O_PATH != 0 {
        return Err(Errno::EBADF);
    }
    Ok(())
}

/// Checks `fd` as [`check_fd`] does and that its mount is writable (the
/// changing f* variants: Linux's mnt_want_write_file, before the name).
fn check_fd_writable(thread: &Thread, fd: i32) -> Result<()> {
    check_fd(thread, fd)?;
    let f = thread.process.files.lock().lock().get(fd)?;
    match f.ops.inode() {
        Some(node) => crate::fs::mount::check_writable_at(f.mount_id(), &*node),
        None => Ok(()),
    }
}

/// Reads and validates an attribute name: 1 to XATTR_NAME_MAX bytes, else
/// ERANGE (Linux's check after copying at most XATTR_NAME_MAX + 1 bytes).
fn read_name(addr: usize) -> Result<()> {
    match read_user_cstr(addr, abi::XATTR_NAME_MAX as usize) {
        Ok(name) if name.is_empty() => Err(Errno::ERANGE),
        Ok(_) => Ok(()),
        Err(Errno::ENAMETOOLONG) => Err(Errno::ERANGE),
        Err(e) => Err(e),
    }
}

/// getxattr(2)/lgetxattr(2): no attribute can be read here.
pub fn getxattr(thread: &Thread, path: usize, name: usize, follow: Follow) -> Result<isize> {
    lookup(thread, path, follow)?;
    read_name(name)?;
    Err(Errno::EOPNOTSUPP)
}

/// fgetxattr(2).
pub fn fgetxattr(thread: &Thread, fd: i32, name: usize) -> Result<isize> {
    check_fd(thread, fd)?;
    read_name(name)?;
    Err(Errno::EOPNOTSUPP)
}

/// Linux checks setxattr's flags and size before anything else it does
/// with the attribute.
fn check_set_args(size: usize, flags: u32) -> Result<()> {
    if flags & !(abi::XATTR_CREATE | abi::XATTR_REPLACE) != 0 {
        return Err(Errno::EINVAL);
    }
    if size > abi::XATTR_SIZE_MAX as usize {
        return Err(Errno::E2BIG);
    }
    Ok(())
}

/// setxattr(2)/lsetxattr(2): attributes cannot be stored.
pub fn setxattr(thread: &Thread, path: usize, name: usize, size: usize, flags: u32, follow: Follow) -> Result<isize> {
    // A read-only mount refuses before the arguments are looked at.
    let (node, mnt) = lookup_mnt(thread, path, follow)?;
    crate::fs::mount::check_writable_at(mnt, &*node)?;
    read_name(name)?;
    check_set_args(size, flags)?;
    Err(Errno::EOPNOTSUPP)
}

/// fsetxattr(2).
pub fn fsetxattr(thread: &Thread, fd: i32, name: usize, size: usize, flags: u32) -> Result<isize> {
    check_fd_writable(thread, fd)?;
    read_name(name)?;
    check_set_args(size, flags)?;
    Err(Errno::EOPNOTSUPP)
}

/// listxattr(2)/llistxattr(2): the list is empty (0 bytes, whatever the
/// buffer size).
pub fn listxattr(thread: &Thread, path: usize, follow: Follow) -> Result<isize> {
    lookup(thread, path, follow)?;
    Ok(0)
}

/// flistxattr(2).
pub fn flistxattr(thread: &Thread, fd: i32) -> Result<isize> {
    check_fd(thread, fd)?;
    Ok(0)
}

/// removexattr(2)/lremovexattr(2).
pub fn removexattr(thread: &Thread, path: usize, name: usize, follow: Follow) -> Result<isize> {
    let (node, mnt) = lookup_mnt(thread, path, follow)?;
    crate::fs::mount::check_writable_at(mnt, &*node)?;
    read_name(name)?;
    Err(Errno::EOPNOTSUPP)
}

/// fremovexattr(2).
pub fn fremovexattr(thread: &Thread, fd: i32, name: usize) -> Result<isize> {
    check_fd_writable(thread, fd)?;
    read_name(name)?;
    Err(Errno::EOPNOTSUPP)
}
