//! name_to_handle_at(2) and open_by_handle_at(2): decoding and checks;
//! the handles themselves are `fs::fhandle`'s.

use alloc::sync::Arc;
use alloc::vec::Vec;

use kevlar_vfs::{FileType, Inode, WalkFlags};
use linux_raw_sys::general as abi;

use super::read_path;
use crate::error::{Errno, Result};
use crate::fs::fhandle::{self, FILEID_INVALID, MAX_HANDLE_SZ};
use crate::fs::FsContext;
use crate::process::Thread;
use crate::uaccess::{copy_from_user, copy_to_user};

/// The fixed part of `struct file_handle`: `handle_bytes`, `handle_type`.
const HEADER: usize = 8;

/// The node a *at() call with an empty path names: `dirfd`'s file, or
/// the working directory. A file with no node (a pipe, a socket) lives
/// on a file system without handles.
fn node_of_fd(thread: &Thread, dirfd: i32) -> Result<(Arc<dyn Inode>, Vec<u8>)> {
    if dirfd == abi::AT_FDCWD {
        let fs = thread.process.fs.lock();
        return Ok((fs.cwd.clone(), fs.cwd_path.to_vec()));
    }
    let f = thread.process.files.lock().lock().get(dirfd)?;
    let node = f.ops.inode().ok_or(Errno::EOPNOTSUPP)?;
    Ok((node, f.path.clone()))
}

pub fn name_to_handle_at(thread: &Thread, dirfd: i32, path: usize, handle: usize, mount_id: usize, flags: u32) -> Result<isize> {
    if flags & !(abi::AT_SYMLINK_FOLLOW | abi::AT_EMPTY_PATH) != 0 {
        return Err(Errno::EINVAL);
    }
    let path = read_path(path)?;
    let (node, abs) = if path.is_empty() {
        if flags & abi::AT_EMPTY_PATH == 0 {
            return Err(Errno::ENOENT);
        }
        node_of_fd(thread, dirfd)?
    } else {
        let fs = thread.process.fs.lock().clone();
        let (start, base) = if path.starts_with(b"/") || dirfd == abi::AT_FDCWD {
            (None, fs.cwd_path.to_vec())
        } else {
            let f = thread.process.files.lock().lock().get(dirfd)?;
            let dir = f.ops.inode().ok_or(Errno::ENOTDIR)?;
            if dir.file_type() != FileType::Directory {
                return Err(Errno::ENOTDIR);
            }
            (Some(dir), f.path.clone())
        };
        // Symbolic links are not followed unless asked (unlike most calls).
        let walk = if flags & abi::AT_SYMLINK_FOLLOW != 0 { WalkFlags::EMPTY } else { WalkFlags::NOFOLLOW };
        let node = fs.lookup(&super::fs::fs_cred(thread), start.as_ref(), &path, walk)?;
        (node, FsContext::absolute(&base, &path))
    };
    let made = fhandle::encode(&node, &abs)?;
    let mut header = [0u8; HEADER];
    copy_from_user(&mut header, handle)?;
    let room = u32::from_le_bytes(header[..4].try_into().unwrap()) as usize;
    if room > MAX_HANDLE_SZ {
        return Err(Errno::EINVAL);
    }
    // Linux measures the room in whole 32-bit words.
    let fits = made.bytes.len() <= room / 4 * 4;
    let kind = if fits { made.kind } else { FILEID_INVALID };
    let mut out = Vec::with_capacity(HEADER + made.bytes.len());
    out.extend_from_slice(&(made.bytes.len() as u32).to_le_bytes());
    out.extend_from_slice(&kind.to_le_bytes());
    if fits {
        out.extend_from_slice(&made.bytes);
    }
    // The mount id is written even when the handle does not fit.
    copy_to_user(mount_id, &made.mount_id.to_le_bytes())?;
    copy_to_user(handle, &out)?;
    if fits { Ok(0) } else { Err(Errno::EOVERFLOW) }
}

pub fn open_by_handle_at(thread: &Thread, mount_fd: i32, handle: usize, flags: u32) -> Result<isize> {
    crate::process::access::require(&thread.process, abi::CAP_DAC_READ_SEARCH)?;
    let mut header = [0u8; HEADER];
    copy_from_user(&mut header, handle)?;
    let len = u32::from_le_bytes(header[..4].try_into().unwrap()) as usize;
    let kind = i32::from_le_bytes(header[4..].try_into().unwrap());
    if len == 0 || len > MAX_HANDLE_SZ {
        return Err(Errno::EINVAL);
    }
    let mut bytes = [0u8; MAX_HANDLE_SZ];
    copy_from_user(&mut bytes[..len], handle + HEADER)?;
    // Only whole words count.
    let bytes = &bytes[..len / 4 * 4];
    let within = if mount_fd == abi::AT_FDCWD {
        thread.process.fs.lock().cwd.clone()
    } else {
        // A pipe or socket: a file system that decodes no handle.
        thread.process.files.lock().lock().get(mount_fd)?.ops.inode().ok_or(Errno::ESTALE)?
    };
    let (node, path) = fhandle::decode(&within, kind, bytes)?;
    // The node is opened as by an empty path from it: a symbolic link
    // only with O_PATH; O_CREAT | O_EXCL finds it existing.
    if node.file_type() == FileType::Symlink && flags & abi::O_PATH == 0 {
        return Err(Errno::ELOOP);
    }
    if flags & abi::O_PATH == 0 && flags & abi::O_CREAT != 0 && flags & abi::O_EXCL != 0 {
        return Err(Errno::EEXIST);
    }
    let fs = thread.process.fs.lock().clone();
    let cred = super::fs::fs_cred(thread);
    let file = crate::fs::open_node(&fs, &cred, node, flags, false, path)?;
    let fd = thread.process.files.lock().lock().insert(file, flags & abi::O_CLOEXEC != 0)?;
    Ok(fd as isize)
}
