//! inotify_init, inotify_init1, inotify_add_watch and inotify_rm_watch;
//! the instances, watches and events live in `fs/notify/`.

use linux_raw_sys::general as abi;

use super::read_path;
use crate::error::{Errno, Result};
use crate::fs::file::OpenFile;
use crate::process::Thread;

pub fn inotify_init1(thread: &Thread, flags: u32) -> Result<isize> {
    if flags & !(abi::IN_CLOEXEC | abi::IN_NONBLOCK) != 0 {
        return Err(Errno::EINVAL);
    }
    let uid = thread.process.creds.lock().uid;
    let instance = crate::fs::notify::new_instance(uid)?;
    let file = OpenFile::new(instance, abi::O_RDONLY | (flags & abi::O_NONBLOCK), b"anon_inode:inotify".to_vec());
    let table = thread.process.files.lock().clone();
    let fd = table.lock().insert(file, flags & abi::IN_CLOEXEC != 0)?;
    Ok(fd as isize)
}

pub fn inotify_add_watch(thread: &Thread, fd: i32, path: usize, mask: u32) -> Result<isize> {
    crate::fs::notify::check_mask(mask)?;
    let file = thread.process.files.lock().lock().get(fd)?;
    let group = file.ops.as_inotify().ok_or(Errno::EINVAL)?;
    let path = read_path(path)?;
    let mut walk = kevlar_vfs::WalkFlags::EMPTY;
    if mask & abi::IN_DONT_FOLLOW != 0 {
        walk = walk | kevlar_vfs::WalkFlags::NOFOLLOW;
    }
    if mask & abi::IN_ONLYDIR != 0 {
        walk = walk | kevlar_vfs::WalkFlags::DIRECTORY;
    }
    let cred = super::fs::fs_cred(thread);
    let fs = thread.process.fs.lock().clone();
    let node = fs.lookup(&cred, None, &path, walk)?;
    // Linux asks for read permission on what is watched.
    kevlar_vfs::check_access(&node.stat()?, &cred, kevlar_vfs::Access::READ)?;
    Ok(crate::fs::notify::add_watch(group, &node, mask)? as isize)
}

pub fn inotify_rm_watch(thread: &Thread, fd: i32, wd: i32) -> Result<isize> {
    let file = thread.process.files.lock().lock().get(fd)?;
    let group = file.ops.as_inotify().ok_or(Errno::EINVAL)?;
    crate::fs::notify::rm_watch(group, wd)?;
    Ok(0)
}
