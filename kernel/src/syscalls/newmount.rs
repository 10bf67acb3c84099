//! The new mount API (Linux 5.2+, as 6.1 has it): open_tree, move_mount,
//! fsopen, fspick, fsconfig, fsmount and mount_setattr. This file decodes and
//! checks the arguments in Linux's order; the mounts themselves are
//! `fs::newmount`'s and `fs::mount`'s.

use alloc::sync::Arc;
use alloc::vec::Vec;

use kevlar_vfs::{FileType, Inode, MountId, WalkFlags};
use linux_raw_sys::general as abi;

use super::{read_path, read_user_cstr};
use crate::error::{Errno, Result};
use crate::fs::newmount::{self, FsContextFile};
use crate::fs::FsContext;
use crate::process::Thread;
use crate::uaccess::copy_from_user;

const AT_FDCWD: i32 = abi::AT_FDCWD;

/// MOVE_MOUNT_* flags of Linux 6.1 (MOVE_MOUNT_BENEATH came in 6.5).
const MOVE_MOUNT_MASK: u32 = abi::MOVE_MOUNT_F_SYMLINKS
    | abi::MOVE_MOUNT_F_AUTOMOUNTS
    | abi::MOVE_MOUNT_F_EMPTY_PATH
    | abi::MOVE_MOUNT_T_SYMLINKS
    | abi::MOVE_MOUNT_T_AUTOMOUNTS
    | abi::MOVE_MOUNT_T_EMPTY_PATH
    | abi::MOVE_MOUNT_SET_GROUP;

/// The MOUNT_ATTR_* flags fsmount takes (Linux's FSMOUNT_VALID_FLAGS).
const FSMOUNT_VALID: u32 = abi::MOUNT_ATTR_RDONLY
    | abi::MOUNT_ATTR_NOSUID
    | abi::MOUNT_ATTR_NODEV
    | abi::MOUNT_ATTR_NOEXEC
    | abi::MOUNT_ATTR__ATIME
    | abi::MOUNT_ATTR_NODIRATIME
    | abi::MOUNT_ATTR_NOSYMFOLLOW;

/// The ones mount_setattr takes (MOUNT_SETATTR_VALID_FLAGS).
const SETATTR_VALID: u32 = FSMOUNT_VALID | abi::MOUNT_ATTR_IDMAP;

/// struct mount_attr's size (MOUNT_ATTR_SIZE_VER0).
const MOUNT_ATTR_SIZE: usize = abi::MOUNT_ATTR_SIZE_VER0 as usize;

fn may_mount(thread: &Thread) -> Result<()> {
    let inum = thread.process.fs.lock().mnt.inum;
    if crate::ns::user::capable_over(&thread.process, inum, abi::CAP_SYS_ADMIN) { Ok(()) } else { Err(Errno::EPERM) }
}

/// A string argument copied as Linux's strndup_user(s, 256): EFAULT for
/// a bad pointer, EINVAL past 255 bytes.
fn read_param(addr: usize) -> Result<Vec<u8>> {
    read_user_cstr(addr, 255).map_err(|e| if e == Errno::ENAMETOOLONG { Errno::EINVAL } else { e })
}

/// A path argument resolved from `dfd` as the *at calls do: the node, the
/// mount it was reached through and its absolute path.
struct Resolved {
    node: Arc<dyn Inode>,
    mnt: MountId,
    path: Vec<u8>,
}

fn resolve(thread: &Thread, dfd: i32, path_addr: usize, follow: bool, empty: bool) -> Result<Resolved> {
    let path = read_path(path_addr)?;
    let fs = thread.process.fs.lock().clone();
    let cred = super::fs::fs_cred(thread);
    let walk = if follow { WalkFlags::EMPTY } else { WalkFlags::NOFOLLOW };
    if path.is_empty() {
        if !empty {
            return Err(Errno::ENOENT);
        }
        if dfd == AT_FDCWD {
            let (node, mnt) = fs.lookup_mnt(&cred, None, b".", walk)?;
            return Ok(Resolved { node, mnt, path: fs.cwd_path.to_vec() });
        }
        let file = thread.process.files.lock().lock().get(dfd)?;
        let node = file.ops.inode().ok_or(Errno::EINVAL)?;
        return Ok(Resolved { node, mnt: file.mount_id(), path: file.path.clone() });
    }
    let (start, base) = if path.starts_with(b"/") || dfd == AT_FDCWD {
        (None, fs.cwd_path.to_vec())
    } else {
        let file = thread.process.files.lock().lock().get(dfd)?;
        let node = file.ops.inode().ok_or(Errno::ENOTDIR)?;
        if node.file_type() != FileType::Directory {
            return Err(Errno::ENOTDIR);
        }
        (Some((node, file.mount_id())), file.path.clone())
    };
    let (node, mnt) = fs.lookup_mnt(&cred, start.as_ref().map(|(n, m)| (n, *m)), &path, walk)?;
    // The path as written (a directory bound elsewhere too has several;
    // this is the one the caller went through).
    Ok(Resolved { node, mnt, path: FsContext::absolute(&base, &path) })
}

fn install(thread: &Thread, file: Arc<crate::fs::file::OpenFile>, cloexec: bool) -> Result<isize> {
    let fd = thread.process.files.lock().lock().insert(file, cloexec)?;
    Ok(fd as isize)
}

/// open_tree(2).
pub fn open_tree(thread: &Thread, dfd: i32, path: usize, flags: u32) -> Result<isize> {
    let valid = abi::AT_EMPTY_PATH | abi::AT_NO_AUTOMOUNT | abi::AT_RECURSIVE | abi::AT_SYMLINK_NOFOLLOW | abi::OPEN_TREE_CLONE | abi::OPEN_TREE_CLOEXEC;
    if flags & !valid != 0 {
        return Err(Errno::EINVAL);
    }
    if flags & (abi::AT_RECURSIVE | abi::OPEN_TREE_CLONE) == abi::AT_RECURSIVE {
        return Err(Errno::EINVAL);
    }
    let clone = flags & abi::OPEN_TREE_CLONE != 0;
    if clone {
        may_mount(thread)?;
    }
    let at = resolve(thread, dfd, path, flags & abi::AT_SYMLINK_NOFOLLOW == 0, flags & abi::AT_EMPTY_PATH != 0)?;
    let cloexec = flags & abi::OPEN_TREE_CLOEXEC != 0;
    if !clone {
        // The path itself, as open(O_PATH).
        let fs = thread.process.fs.lock().clone();
        let file = crate::fs::open_node_at(&fs, &super::fs::fs_cred(thread), at.node, at.mnt, abi::O_PATH, false, at.path)?;
        return install(thread, file, cloexec);
    }
    let tree = newmount::clone_tree(at.mnt, &at.node, flags & abi::AT_RECURSIVE != 0)?;
    install(thread, newmount::tree_file(tree, at.path)?, cloexec)
}

/// move_mount(2).
pub fn move_mount(thread: &Thread, from_dfd: i32, from_path: usize, to_dfd: i32, to_path: usize, flags: u32) -> Result<isize> {
    crate::fs::mount::finish_orphans();
    may_mount(thread)?;
    if flags & !MOVE_MOUNT_MASK != 0 {
        return Err(Errno::EINVAL);
    }
    let from = resolve(thread, from_dfd, from_path, flags & abi::MOVE_MOUNT_F_SYMLINKS != 0, flags & abi::MOVE_MOUNT_F_EMPTY_PATH != 0)?;
    let to = resolve(thread, to_dfd, to_path, flags & abi::MOVE_MOUNT_T_SYMLINKS != 0, flags & abi::MOVE_MOUNT_T_EMPTY_PATH != 0)?;
    if flags & abi::MOVE_MOUNT_SET_GROUP != 0 {
        // Sharing a peer group between two existing mounts: not here.
        return Err(Errno::EINVAL);
    }
    newmount::move_mount(from.mnt, &from.node, to.mnt, to.node, to.path)?;
    Ok(0)
}

/// fsopen(2).
pub fn fsopen(thread: &Thread, name: usize, flags: u32) -> Result<isize> {
    may_mount(thread)?;
    if flags & !abi::FSOPEN_CLOEXEC != 0 {
        return Err(Errno::EINVAL);
    }
    let name = read_user_cstr(name, 4095).map_err(|e| if e == Errno::ENAMETOOLONG { Errno::EINVAL } else { e })?;
    let context = FsContextFile::open(&name)?;
    let file = crate::fs::file::OpenFile::new(context, abi::O_RDWR, b"anon_inode:[fscontext]".to_vec());
    install(thread, file, flags & abi::FSOPEN_CLOEXEC != 0)
}

/// fspick(2): a context on the file system mounted at the path (which
/// must be a mount's root: EINVAL), for FSCONFIG_CMD_RECONFIGURE.
pub fn fspick(thread: &Thread, dfd: i32, path: usize, flags: u32) -> Result<isize> {
    may_mount(thread)?;
    let valid = abi::FSPICK_CLOEXEC | abi::FSPICK_SYMLINK_NOFOLLOW | abi::FSPICK_NO_AUTOMOUNT | abi::FSPICK_EMPTY_PATH;
    if flags & !valid != 0 {
        return Err(Errno::EINVAL);
    }
    // Nothing automounts here: FSPICK_NO_AUTOMOUNT changes no walk.
    let at = resolve(thread, dfd, path, flags & abi::FSPICK_SYMLINK_NOFOLLOW == 0, flags & abi::FSPICK_EMPTY_PATH != 0)?;
    let context = FsContextFile::pick(at.mnt, &at.node)?;
    let file = crate::fs::file::OpenFile::new(context, abi::O_RDWR, b"anon_inode:[fscontext]".to_vec());
    install(thread, file, flags & abi::FSPICK_CLOEXEC != 0)
}

/// The types whose contexts Linux 6.1 makes the legacy way (their
/// mount function takes the data string): fsconfig refuses binary, path
/// and fd values for them with EOPNOTSUPP.
fn legacy(fstype: &str) -> bool {
    matches!(fstype, "ext2" | "devpts" | "devtmpfs")
}

/// fsconfig(2).
pub fn fsconfig(thread: &Thread, fd: i32, cmd: u32, key: usize, value: usize, aux: i32) -> Result<isize> {
    use abi::fsconfig_command as C;
    if fd < 0 {
        return Err(Errno::EINVAL);
    }
    let bad = match cmd {
        c if c == C::FSCONFIG_SET_FLAG as u32 => key == 0 || value != 0 || aux != 0,
        c if c == C::FSCONFIG_SET_STRING as u32 => key == 0 || value == 0 || aux != 0,
        c if c == C::FSCONFIG_SET_BINARY as u32 => key == 0 || value == 0 || aux <= 0 || aux > 1024 * 1024,
        c if c == C::FSCONFIG_SET_PATH as u32 || c == C::FSCONFIG_SET_PATH_EMPTY as u32 => key == 0 || value == 0 || (aux != AT_FDCWD && aux < 0),
        c if c == C::FSCONFIG_SET_FD as u32 => key == 0 || value != 0 || aux < 0,
        c if c == C::FSCONFIG_CMD_CREATE as u32 || c == C::FSCONFIG_CMD_RECONFIGURE as u32 => key != 0 || value != 0 || aux != 0,
        // FSCONFIG_CMD_CREATE_EXCL came after 6.1.
        _ => return Err(Errno::EOPNOTSUPP),
    };
    if bad {
        return Err(Errno::EINVAL);
    }
    let file = thread.process.files.lock().lock().get(fd)?;
    let context = file.ops.as_fs_context().ok_or(Errno::EINVAL)?;
    let binary_like = [C::FSCONFIG_SET_BINARY as u32, C::FSCONFIG_SET_PATH as u32, C::FSCONFIG_SET_PATH_EMPTY as u32, C::FSCONFIG_SET_FD as u32];
    if binary_like.contains(&cmd) && legacy(context.fstype()) {
        return Err(Errno::EOPNOTSUPP);
    }
    let key = if key != 0 { Some(read_param(key)?) } else { None };
    match cmd {
        c if c == C::FSCONFIG_SET_FLAG as u32 => context.set_flag(&key.unwrap_or_default())?,
        c if c == C::FSCONFIG_SET_STRING as u32 => {
            let value = read_param(value)?;
            context.set_string(&key.unwrap_or_default(), &value)?;
        }
        c if c == C::FSCONFIG_CMD_CREATE as u32 => {
            may_mount(thread)?;
            let disk = match crate::fs::mount::disk_fs_type(context.fstype().as_bytes()) {
                Some(_) => Some(source_device(thread, context)?),
                None => None,
            };
            context.create(disk)?;
        }
        // fspick's contexts reconfigure; fsopen's give EBUSY.
        c if c == C::FSCONFIG_CMD_RECONFIGURE as u32 => {
            may_mount(thread)?;
            context.reconfigure()?;
        }
        // Binary, path and fd values: no parameter of the types here
        // takes one (Linux: the parser's EINVAL).
        _ => return Err(Errno::EINVAL),
    }
    Ok(0)
}

/// The device number of the block device a disk file system's "source"
/// names (EINVAL without one, ENOTBLK for another kind of file).
fn source_device(thread: &Thread, context: &FsContextFile) -> Result<u64> {
    let source = context.source().ok_or(Errno::EINVAL)?;
    let fs = thread.process.fs.lock().clone();
    let node = fs.lookup(&super::fs::fs_cred(thread), None, &source, WalkFlags::EMPTY)?;
    if node.file_type() != FileType::BlockDevice {
        return Err(Errno::ENOTBLK);
    }
    Ok(node.stat()?.rdev)
}

/// MOUNT_ATTR_* flags (without the atime field) as the mount's MS_* ones.
fn ms_flags(attr: u32) -> u32 {
    let mut out = 0;
    for (a, m) in [
        (abi::MOUNT_ATTR_RDONLY, abi::MS_RDONLY),
        (abi::MOUNT_ATTR_NOSUID, abi::MS_NOSUID),
        (abi::MOUNT_ATTR_NODEV, abi::MS_NODEV),
        (abi::MOUNT_ATTR_NOEXEC, abi::MS_NOEXEC),
        (abi::MOUNT_ATTR_NODIRATIME, abi::MS_NODIRATIME),
        (abi::MOUNT_ATTR_NOSYMFOLLOW, abi::MS_NOSYMFOLLOW),
    ] {
        if attr & a != 0 {
            out |= m;
        }
    }
    out
}

/// The MS_* flag of an atime setting (MOUNT_ATTR_RELATIME, the default,
/// is none); EINVAL for a combination.
fn atime_flag(attr: u32) -> Result<u32> {
    match attr & abi::MOUNT_ATTR__ATIME {
        abi::MOUNT_ATTR_RELATIME => Ok(0),
        abi::MOUNT_ATTR_NOATIME => Ok(abi::MS_NOATIME),
        abi::MOUNT_ATTR_STRICTATIME => Ok(abi::MS_STRICTATIME),
        _ => Err(Errno::EINVAL),
    }
}

/// fsmount(2).
pub fn fsmount(thread: &Thread, fd: i32, flags: u32, attr: u32) -> Result<isize> {
    may_mount(thread)?;
    if flags & !abi::FSMOUNT_CLOEXEC != 0 || attr & !FSMOUNT_VALID != 0 {
        return Err(Errno::EINVAL);
    }
    let ms = ms_flags(attr) | atime_flag(attr)?;
    let file = thread.process.files.lock().lock().get(fd)?;
    let context = file.ops.as_fs_context().ok_or(Errno::EINVAL)?;
    let tree = context.mount(ms)?;
    install(thread, newmount::tree_file(tree, b"/".to_vec())?, flags & abi::FSMOUNT_CLOEXEC != 0)
}

/// mount_setattr(2).
pub fn mount_setattr(thread: &Thread, dfd: i32, path: usize, flags: u32, uattr: usize, size: usize) -> Result<isize> {
    if flags & !(abi::AT_EMPTY_PATH | abi::AT_RECURSIVE | abi::AT_SYMLINK_NOFOLLOW | abi::AT_NO_AUTOMOUNT) != 0 {
        return Err(Errno::EINVAL);
    }
    if size > 4096 {
        return Err(Errno::E2BIG);
    }
    if size < MOUNT_ATTR_SIZE {
        return Err(Errno::EINVAL);
    }
    may_mount(thread)?;
    // copy_struct_from_user: a larger struct's tail must be zeros.
    let mut raw = [0u8; MOUNT_ATTR_SIZE];
    copy_from_user(&mut raw, uattr)?;
    if size > MOUNT_ATTR_SIZE {
        let mut tail = alloc::vec![0u8; size - MOUNT_ATTR_SIZE];
        copy_from_user(&mut tail, uattr.checked_add(MOUNT_ATTR_SIZE).ok_or(Errno::EFAULT)?)?;
        if tail.iter().any(|&b| b != 0) {
            return Err(Errno::E2BIG);
        }
    }
    let word = |i: usize| u64::from_le_bytes(raw[i * 8..i * 8 + 8].try_into().unwrap_or([0; 8]));
    let (attr_set, attr_clr, propagation, userns_fd) = (word(0), word(1), word(2), word(3));
    if attr_set == 0 && attr_clr == 0 && propagation == 0 {
        return Ok(0);
    }
    let propagation = match propagation {
        0 => 0,
        p if [abi::MS_UNBINDABLE, abi::MS_PRIVATE, abi::MS_SLAVE, abi::MS_SHARED].contains(&(p as u32)) && p >> 32 == 0 => p as u32,
        _ => return Err(Errno::EINVAL),
    };
    if attr_set >> 32 != 0 || attr_set as u32 & !SETATTR_VALID != 0 || attr_clr >> 32 != 0 || attr_clr as u32 & !SETATTR_VALID != 0 {
        return Err(Errno::EINVAL);
    }
    let (attr_set, attr_clr) = (attr_set as u32, attr_clr as u32);
    let mut set = ms_flags(attr_set);
    let mut clear = ms_flags(attr_clr);
    if attr_clr & abi::MOUNT_ATTR__ATIME != 0 {
        if attr_clr & abi::MOUNT_ATTR__ATIME != abi::MOUNT_ATTR__ATIME {
            return Err(Errno::EINVAL);
        }
        clear |= abi::MS_NOATIME | abi::MS_RELATIME | abi::MS_STRICTATIME;
        set |= atime_flag(attr_set)?;
    } else if attr_set & abi::MOUNT_ATTR__ATIME != 0 {
        return Err(Errno::EINVAL);
    }
    if (attr_set | attr_clr) & abi::MOUNT_ATTR_IDMAP != 0 {
        // Idmapped mounts need a user namespace other than the initial
        // one, which Kevlar does not have: Linux's errors for each fd.
        if attr_clr & abi::MOUNT_ATTR_IDMAP != 0 || userns_fd > i32::MAX as u64 {
            return Err(Errno::EINVAL);
        }
        let file = thread.process.files.lock().lock().get(userns_fd as i32)?;
        let ns = file.ops.inode().and_then(|n| crate::ns::nsfs::of_node(&n)).ok_or(Errno::EINVAL)?;
        if ns.kind() != crate::ns::Kind::User {
            return Err(Errno::EINVAL);
        }
        // The initial user namespace cannot idmap a mount.
        return Err(Errno::EPERM);
    }
    let at = resolve(thread, dfd, path, flags & abi::AT_SYMLINK_NOFOLLOW == 0, flags & abi::AT_EMPTY_PATH != 0)?;
    newmount::set_attr(at.mnt, &at.node, set, clear, propagation, flags & abi::AT_RECURSIVE != 0)?;
    Ok(0)
}
