//! Mounting and file system information: mount, umount2, statfs, fstatfs.

use alloc::vec::Vec;

use kevlar_vfs::{FileType, WalkFlags};
use linux_raw_sys::general as abi;

use super::{read_path, read_user_cstr};
use crate::error::{Errno, Result};
use crate::fs::mount;
use crate::process::Thread;
use crate::uaccess::copy_to_user;

/// Propagation flags: they change how mounts spread between mounts and
/// namespaces (`fs::propagation`).
const PROPAGATION: u32 = abi::MS_SHARED | abi::MS_PRIVATE | abi::MS_SLAVE | abi::MS_UNBINDABLE;

/// Flags a new mount may have; the rest of MS_* is refused.
const NEW_MOUNT_FLAGS: u32 = abi::MS_RDONLY
    | abi::MS_NOSUID
    | abi::MS_NODEV
    | abi::MS_NOEXEC
    | abi::MS_NOATIME
    | abi::MS_NODIRATIME
    | abi::MS_RELATIME
    | abi::MS_STRICTATIME
    | abi::MS_SILENT
    | abi::MS_LAZYTIME;

/// CAP_SYS_ADMIN in the user namespace owning the caller's mount
/// namespace (Linux's may_mount).
fn is_root(thread: &Thread) -> bool {
    let inum = thread.process.fs.lock().mnt.inum;
    crate::ns::user::capable_over(&thread.process, inum, abi::CAP_SYS_ADMIN)
}

/// Reads an optional string argument (a null pointer gives `None`).
fn optional_string(addr: usize, max: usize) -> Result<Option<Vec<u8>>> {
    if addr == 0 { Ok(None) } else { read_user_cstr(addr, max).map(Some) }
}

pub fn mount(thread: &Thread, source: usize, target: usize, fstype: usize, flags: u64, data: usize) -> Result<isize> {
    mount::finish_orphans();
    if !is_root(thread) {
        return Err(Errno::EPERM);
    }
    let mut flags = flags as u32;
    // The old magic number in the high half is ignored, as Linux does.
    if flags & abi::MS_MGC_MSK == abi::MS_MGC_VAL {
        flags &= !abi::MS_MGC_MSK;
    }
    let target_path = read_path(target)?;
    let fs = thread.process.fs.lock().clone();
    let cred = super::fs::fs_cred(thread);
    let (on, on_mnt) = fs.lookup_mnt(&cred, None, &target_path, WalkFlags::EMPTY)?;
    if flags & abi::MS_REMOUNT != 0 {
        if flags & !(NEW_MOUNT_FLAGS | abi::MS_REMOUNT | abi::MS_BIND) != 0 {
            return Err(Errno::EINVAL);
        }
        if flags & abi::MS_BIND == 0 {
            mount::remount_superblock(on_mnt, &on, flags)?;
        }
        mount::remount_at(on_mnt, &on, flags)?;
        return Ok(0);
    }
    if flags & PROPAGATION != 0 {
        let kind = flags & PROPAGATION;
        if kind.count_ones() != 1 || flags & !(PROPAGATION | abi::MS_REC | abi::MS_SILENT) != 0 || !crate::fs::propagation::is_mount_root(&fs.mnt, &on) {
            return Err(Errno::EINVAL);
        }
        crate::fs::propagation::set_propagation_at(&fs.mnt, on_mnt, &on, kind, flags & abi::MS_REC != 0)?;
        return Ok(0);
    }
    if on.file_type() != FileType::Directory && flags & abi::MS_BIND == 0 {
        return Err(Errno::ENOTDIR);
    }
    let mount_point = mount::mount_point_path(&fs, &on, &target_path);
    if flags & abi::MS_MOVE != 0 {
        if flags & !(abi::MS_MOVE | abi::MS_SILENT) != 0 {
            return Err(Errno::EINVAL);
        }
        let (from, from_mnt) = fs.lookup_mnt(&cred, None, &read_path(source)?, WalkFlags::EMPTY)?;
        mount::move_mount_at(from_mnt, &from, on_mnt, on, mount_point)?;
        return Ok(0);
    }
    if flags & abi::MS_BIND != 0 {
        if flags & !(NEW_MOUNT_FLAGS | abi::MS_BIND | abi::MS_REC) != 0 {
            return Err(Errno::EINVAL);
        }
        let (from, from_mnt) = fs.lookup_mnt(&cred, None, &read_path(source)?, WalkFlags::EMPTY)?;
        if from.file_type().is_dir() != on.file_type().is_dir() {
            return Err(if on.file_type().is_dir() { Errno::ENOTDIR } else { Errno::EISDIR });
        }
        mount::mount_bind_at(from_mnt, from, on_mnt, on, mount_point, flags, flags & abi::MS_REC != 0)?;
        return Ok(0);
    }
    if flags & !NEW_MOUNT_FLAGS != 0 {
        return Err(Errno::EINVAL);
    }
    let fstype = optional_string(fstype, 4095)?.ok_or(Errno::EINVAL)?;
    let source = optional_string(source, 4095)?.unwrap_or_else(|| b"none".to_vec());
    // The options are one page of text at most.
    let data = optional_string(data, 4095)?.unwrap_or_default();
    if let Some(disk_fs) = mount::disk_fs_type(&fstype) {
        if !crate::process::access::capable(&thread.process, abi::CAP_SYS_ADMIN) {
            return Err(Errno::EPERM);
        }
        // A disk file system: the source names a block-device node.
        let node = fs.lookup(&cred, None, &source, WalkFlags::EMPTY)?;
        if node.file_type() != FileType::BlockDevice {
            return Err(Errno::ENOTBLK);
        }
        let rdev = node.stat()?.rdev;
        mount::mount_ext2_at(on_mnt, on, mount_point, source, rdev, flags, &data, disk_fs)?;
        return Ok(0);
    }
    // Outside the initial user namespace, only the file systems Linux
    // marks FS_USERNS_MOUNT (mount_capable).
    if !crate::process::access::capable(&thread.process, abi::CAP_SYS_ADMIN) && !crate::ns::user::userns_mountable(&fstype) {
        return Err(Errno::EPERM);
    }
    mount::mount_new_at(on_mnt, on, mount_point, source, &fstype, flags, &data)?;
    Ok(0)
}

pub fn umount2(thread: &Thread, target: usize, flags: u32) -> Result<isize> {
    mount::finish_orphans();
    if flags & !(abi::MNT_FORCE | abi::MNT_DETACH | abi::MNT_EXPIRE | abi::UMOUNT_NOFOLLOW) != 0 {
        return Err(Errno::EINVAL);
    }
    if flags & abi::MNT_EXPIRE != 0 && flags & (abi::MNT_FORCE | abi::MNT_DETACH) != 0 {
        return Err(Errno::EINVAL);
    }
    if !is_root(thread) {
        return Err(Errno::EPERM);
    }
    let path = read_path(target)?;
    let walk = if flags & abi::UMOUNT_NOFOLLOW != 0 { WalkFlags::NOFOLLOW } else { WalkFlags::EMPTY };
    let fs = thread.process.fs.lock().clone();
    let (root, mnt) = fs.lookup_mnt(&super::fs::fs_cred(thread), None, &path, walk)?;
    if flags & abi::MNT_EXPIRE != 0 {
        // Expiry marks a mount on the first call and unmounts on the
        // second if unused in between; nothing here tracks use.
        return Err(Errno::EAGAIN);
    }
    mount::unmount_at(mnt, &root, flags & abi::MNT_DETACH != 0)?;
    Ok(0)
}

/// Encodes `struct statfs` (x86_64): type, bsize, blocks, bfree, bavail,
/// files, ffree, fsid (two ints), namelen, frsize, flags, 4 spare words.
fn encode_statfs(st: &mount::StatFs) -> [u8; 120] {
    let words = [st.fs_type, st.block_size, st.blocks, st.blocks_free, st.blocks_avail.unwrap_or(st.blocks_free), st.files, st.files_free, st.fsid, st.name_max, st.block_size, st.flags, 0, 0, 0, 0];
    let mut out = [0u8; 120];
    for (i, w) in words.iter().enumerate() {
        out[i * 8..i * 8 + 8].copy_from_slice(&w.to_le_bytes());
    }
    out
}

pub fn statfs(thread: &Thread, path: usize, buf: usize) -> Result<isize> {
    let path = read_path(path)?;
    let fs = thread.process.fs.lock().clone();
    let (node, mnt) = fs.lookup_mnt(&super::fs::fs_cred(thread), None, &path, WalkFlags::EMPTY)?;
    copy_to_user(buf, &encode_statfs(&mount::statfs_at(mnt, &*node)))?;
    Ok(0)
}

pub fn fstatfs(thread: &Thread, fd: i32, buf: usize) -> Result<isize> {
    let file = thread.process.files.lock().lock().get(fd)?;
    let st = match file.ops.inode() {
        Some(node) => mount::statfs_at(file.mount_id(), &*node),
        // Pipes live on Linux's pipefs.
        None if file.ops.pipe().is_some() => mount::StatFs { fs_type: PIPEFS_MAGIC, block_size: 4096, name_max: 255, flags: 0x20, ..Default::default() },
        None => {
            let stat = file.ops.stat()?;
            match crate::fs::mount::mounts().into_iter().find(|m| m.root.fs_id() == stat.dev) {
                Some(m) => mount::statfs(&*m.root),
                None => mount::StatFs { fs_type: abi::TMPFS_MAGIC as u64, block_size: 4096, name_max: 255, flags: 0x20, ..Default::default() },
            }
        }
    };
    copy_to_user(buf, &encode_statfs(&st))?;
    Ok(0)
}

/// PIPEFS_MAGIC (include/uapi/linux/magic.h).
const PIPEFS_MAGIC: u64 = abi::PIPEFS_MAGIC as u64;

/// sysfs(2), the old way to list file system types: 1 gives the index of
/// the type named by the string at `arg1`, 2 copies the name of type
/// `arg1` to `arg2`, 3 counts the types; the order and the list are
/// /proc/filesystems'. EINVAL for another option or an unknown name or
/// index.
pub fn sysfs_call(option: u32, arg1: usize, arg2: usize) -> Result<isize> {
    let types = || mount::FILESYSTEMS.iter().map(|(name, _)| *name).filter(|name| *name != "rootfs");
    match option {
        1 => {
            let name = read_path(arg1)?;
            types().position(|t| t.as_bytes() == name.as_slice()).map(|i| i as isize).ok_or(Errno::EINVAL)
        }
        2 => {
            let name = types().nth(arg1 as u32 as usize).ok_or(Errno::EINVAL)?;
            let mut bytes = Vec::with_capacity(name.len() + 1);
            bytes.extend_from_slice(name.as_bytes());
            bytes.push(0);
            copy_to_user(arg2, &bytes)?;
            Ok(0)
        }
        3 => Ok(types().count() as isize),
        _ => Err(Errno::EINVAL),
    }
}

/// pivot_root(2): CAP_SYS_ADMIN (EPERM), two directories (ENOTDIR), and
/// the mount rules `fs::pivot` checks.
pub fn pivot_root(thread: &Thread, new_root: usize, put_old: usize) -> Result<isize> {
    if !is_root(thread) {
        return Err(Errno::EPERM);
    }
    let fs = thread.process.fs.lock().clone();
    let cred = super::fs::fs_cred(thread);
    let new = fs.lookup(&cred, None, &read_path(new_root)?, WalkFlags::EMPTY)?;
    if !new.file_type().is_dir() {
        return Err(Errno::ENOTDIR);
    }
    let old = fs.lookup(&cred, None, &read_path(put_old)?, WalkFlags::EMPTY)?;
    if !old.file_type().is_dir() {
        return Err(Errno::ENOTDIR);
    }
    crate::fs::pivot::pivot_root(&fs, new, old)?;
    Ok(0)
}
