//! The checks /proc/sys/fs/protected_{hardlinks,fifos,regular} turn on
//! (Linux's may_linkat and may_create_in_sticky in fs/namei.c);
//! protected_symlinks is checked by the path walk itself
//! (`MountTable::protected_symlinks`).

use core::sync::atomic::Ordering;

use kevlar_vfs::{check_access, Access, Credentials, FileType, Inode, Stat};
use linux_raw_sys::general as abi;

use super::sysctl::{PROTECTED_FIFOS, PROTECTED_HARDLINKS, PROTECTED_REGULAR};
use crate::error::{Errno, Result};

/// protected_hardlinks: a hard link to a file needs the caller to own it
/// (or CAP_FOWNER over it), or the file to be a safe source: a regular
/// file, not set-user-id, not set-group-id and group-executable, that the
/// caller may read and write (EPERM otherwise).
pub fn may_link(cred: &Credentials, target: &dyn Inode) -> Result<()> {
    if PROTECTED_HARDLINKS.load(Ordering::Relaxed) == 0 {
        return Ok(());
    }
    let stat = target.access_stat()?;
    if stat.uid == cred.uid || cred.has_cap_over(abi::CAP_FOWNER, &stat) || safe_source(cred, &stat) {
        return Ok(());
    }
    Err(Errno::EPERM)
}

fn safe_source(cred: &Credentials, stat: &Stat) -> bool {
    let mode = stat.mode;
    if stat.file_type() != Some(FileType::Regular) || mode & abi::S_ISUID != 0 {
        return false;
    }
    if mode & (abi::S_ISGID | abi::S_IXGRP) == abi::S_ISGID | abi::S_IXGRP {
        return false;
    }
    check_access(stat, cred, Access::READ).is_ok() && check_access(stat, cred, Access::WRITE).is_ok()
}

/// Whether protected_fifos or protected_regular is on.
pub fn sticky_checks_on() -> bool {
    PROTECTED_FIFOS.load(Ordering::Relaxed) != 0 || PROTECTED_REGULAR.load(Ordering::Relaxed) != 0
}

/// protected_fifos and protected_regular: an O_CREAT open of an existing
/// FIFO or regular file in a sticky directory that neither the caller nor
/// the directory's owner owns fails with EACCES when the directory is
/// world-writable (level 1), or group-writable too (level 2). Root is
/// not exempt.
pub fn may_create_in_sticky(cred: &Credentials, dir: &dyn Inode, file: &dyn Inode) -> Result<()> {
    let (fifos, regular) = (PROTECTED_FIFOS.load(Ordering::Relaxed), PROTECTED_REGULAR.load(Ordering::Relaxed));
    if fifos == 0 && regular == 0 {
        return Ok(());
    }
    let stat = file.access_stat()?;
    let level = match stat.file_type() {
        Some(FileType::Fifo) => fifos,
        Some(FileType::Regular) => regular,
        _ => return Ok(()),
    };
    if level == 0 {
        return Ok(());
    }
    let dir = dir.access_stat()?;
    if dir.mode & abi::S_ISVTX == 0 || stat.uid == dir.uid || stat.uid == cred.uid {
        return Ok(());
    }
    if dir.mode & 0o002 != 0 || (dir.mode & 0o020 != 0 && level >= 2) {
        return Err(Errno::EACCES);
    }
    Ok(())
}
