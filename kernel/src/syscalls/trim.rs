//! FITRIM on a file of an ext2/ext4 mount (what `fstrim` asks): decoded
//! and checked here in Linux 6.1's order (ext4_ioctl), the trim itself
//! done by the file system (`kevlar_ext2`'s `Ext2Fs::trim`), the
//! discards by the block layer.

use kevlar_ext2::{Ext2Fs, TrimRange};
use linux_raw_sys::general as abi;

use crate::error::{Errno, Result};
use crate::fs::file::OpenFile;
use crate::process::Thread;

/// `struct fstrim_range`: start, len, minlen.
const RANGE_BYTES: usize = 24;

/// FITRIM on a file of an ext2/ext4 mount; `None` for any other request
/// or file (its own ioctl answers: ENOTTY on tmpfs, as Linux's).
pub fn fitrim(thread: &Thread, f: &OpenFile, request: u32, arg: usize) -> Option<Result<isize>> {
    if request != linux_raw_sys::ioctl::FITRIM {
        return None;
    }
    let node = f.ops.inode()?;
    let fs = Ext2Fs::of(&*node)?;
    Some(trim(thread, &fs, node.fs_id(), arg))
}

fn trim(thread: &Thread, fs: &Ext2Fs, rdev: u64, arg: usize) -> Result<isize> {
    if !crate::process::access::capable(&thread.process, abi::CAP_SYS_ADMIN) {
        return Err(Errno::EPERM);
    }
    let dev = crate::block::by_rdev(rdev).ok_or(Errno::EOPNOTSUPP)?;
    let driver = dev.disk.driver.clone();
    let Some(limits) = driver.discard_limits() else {
        return Err(Errno::EOPNOTSUPP);
    };
    let mut raw = [0u8; RANGE_BYTES];
    crate::uaccess::copy_from_user(&mut raw, arg)?;
    let word = |i: usize| u64::from_ne_bytes(raw[8 * i..8 * i + 8].try_into().expect("8 bytes"));
    let range = TrimRange { start: word(0), len: word(1), minlen: word(2) };
    let mut discard = |at: u64, len: u64| -> kevlar_vfs::Result<()> { dev.discard(at / crate::block::SECTOR as u64, len / crate::block::SECTOR as u64) };
    let interrupted = || crate::process::scheduler::current().is_some_and(|t| t.fatal_signal_pending());
    let trimmed = fs.trim(range, u64::from(limits.granularity), &mut discard, &interrupted)?;
    raw[8..16].copy_from_slice(&trimmed.to_ne_bytes());
    crate::uaccess::copy_to_user(arg, &raw)?;
    Ok(0)
}
