//! mount(2): new instances of the filesystems Kevlar has (tmpfs, devpts)
//! on a directory.

use alloc::sync::Arc;

use kevlar_tmpfs::{TmpFs, TmpFsOptions};
use kevlar_vfs::{FileType, Inode, WalkFlags};
use linux_raw_sys::general as abi;

use super::{read_path, read_user_cstr};
use crate::error::{Errno, Result};
use crate::process::Thread;

/// Flags that only tune timestamp updates: taken, as Linux treats them as
/// hints for how often atime is written.
const TIME_HINTS: u32 = abi::MS_SILENT | abi::MS_RELATIME | abi::MS_NOATIME | abi::MS_NODIRATIME | abi::MS_STRICTATIME | abi::MS_LAZYTIME;
/// Flags taken but not enforced yet: the mount table has no per-mount
/// flags for exec, set-id and device checks to consult (a known gap,
/// listed in docs/syscalls.md's partial calls).
const UNENFORCED: u32 = abi::MS_NOSUID | abi::MS_NODEV | abi::MS_NOEXEC;

pub fn mount(thread: &Thread, source: usize, target: usize, fstype: usize, flags: u64, data: usize) -> Result<isize> {
    let _ = source; // tmpfs and devpts have no backing device
    if thread.process.creds.lock().euid != 0 {
        return Err(Errno::EPERM);
    }
    let mut flags = flags as u32;
    if flags & abi::MS_MGC_MSK == abi::MS_MGC_VAL {
        flags &= !abi::MS_MGC_MSK; // the old magic number in the high half
    }
    // Remounts, binds, moves and propagation changes are not supported.
    if flags & !(TIME_HINTS | UNENFORCED) != 0 {
        return Err(Errno::EINVAL);
    }
    let path = read_path(target)?;
    let fstype = read_user_cstr(fstype, 4095)?;
    let options = if data == 0 { alloc::vec::Vec::new() } else { read_user_cstr(data, 4095)? };
    let dir = {
        let fs = thread.process.fs.lock().clone();
        let cred = kevlar_vfs::Credentials { uid: 0, gid: 0, groups: alloc::vec::Vec::new() };
        fs.lookup(&cred, None, &path, WalkFlags::EMPTY)?
    };
    if dir.file_type() != FileType::Directory {
        return Err(Errno::ENOTDIR);
    }
    let (root, name): (Arc<dyn Inode>, &'static str) = match &fstype[..] {
        b"tmpfs" => (TmpFs::with_options(Arc::new(crate::clock::KernelClock), tmpfs_options(&options)?).root(), "tmpfs"),
        b"devpts" => (crate::tty::devpts::mount(&options)?, "devpts"),
        _ => return Err(Errno::ENODEV),
    };
    crate::fs::mount(dir, root, name);
    Ok(0)
}

fn number(value: &[u8], radix: u32) -> Result<u64> {
    let text = core::str::from_utf8(value).map_err(|_| Errno::EINVAL)?;
    u64::from_str_radix(text, radix).map_err(|_| Errno::EINVAL)
}

/// A size with an optional k, m or g suffix (tmpfs's size= and
/// nr_inodes=).
fn size(value: &[u8]) -> Result<u64> {
    let (digits, shift) = match value.last() {
        Some(b'k' | b'K') => (&value[..value.len() - 1], 10),
        Some(b'm' | b'M') => (&value[..value.len() - 1], 20),
        Some(b'g' | b'G') => (&value[..value.len() - 1], 30),
        _ => (value, 0),
    };
    number(digits, 10)?.checked_shl(shift).ok_or(Errno::EINVAL)
}

/// Parses tmpfs mount data: mode=, uid=, gid=, size= and nr_inodes= (0 for
/// no limit); anything else is EINVAL, as on Linux.
fn tmpfs_options(data: &[u8]) -> Result<TmpFsOptions> {
    let mut options = TmpFsOptions::default();
    for item in data.split(|&b| b == b',').filter(|s| !s.is_empty()) {
        let eq = item.iter().position(|&b| b == b'=').ok_or(Errno::EINVAL)?;
        let (key, value) = (&item[..eq], &item[eq + 1..]);
        match key {
            b"mode" => options.root_mode = number(value, 8)? as u32 & 0o7777,
            b"uid" => options.root_uid = number(value, 10)? as u32,
            b"gid" => options.root_gid = number(value, 10)? as u32,
            b"size" => {
                let bytes = size(value)?;
                options.max_pages = (bytes != 0).then(|| bytes.div_ceil(4096));
            }
            b"nr_inodes" => {
                let count = size(value)?;
                options.max_inodes = (count != 0).then_some(count);
            }
            _ => return Err(Errno::EINVAL),
        }
    }
    Ok(options)
}
