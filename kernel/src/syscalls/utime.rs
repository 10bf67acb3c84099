//! utime(2), utimes(2) and futimesat(2): the older forms of utimensat,
//! with whole seconds (utime) or microseconds (utimes, futimesat), as
//! Linux's fs/utimes.c.
//!
//! The times are read first (EFAULT), then checked (a microsecond count
//! outside 0..1000000 is EINVAL, before the path is looked at); no times
//! means "now" (write access is enough), given times need the owner or
//! CAP_FOWNER. futimesat with no path sets the times of `dirfd` itself;
//! with no path and AT_FDCWD there is no name to read (EFAULT).

use crate::error::{Errno, Result};
use crate::process::Thread;
use kevlar_vfs::Timespec;
use linux_raw_sys::general::AT_FDCWD;

/// utime(path, {actime, modtime}): times in whole seconds.
pub fn utime(thread: &Thread, path: usize, times: usize) -> Result<isize> {
    let given = if times == 0 {
        None
    } else {
        let raw = super::read_bytes::<16>(times)?;
        let sec = |off: usize| i64::from_le_bytes(raw[off..off + 8].try_into().unwrap());
        Some((Timespec::new(sec(0), 0), Timespec::new(sec(8), 0)))
    };
    set(thread, AT_FDCWD, path, given)
}

/// futimesat(dirfd, path, timeval[2]); utimes is futimesat from the
/// working directory.
pub fn futimesat(thread: &Thread, dirfd: i32, path: usize, times: usize) -> Result<isize> {
    let given = if times == 0 {
        None
    } else {
        let raw = super::read_bytes::<32>(times)?;
        let field = |off: usize| i64::from_le_bytes(raw[off..off + 8].try_into().unwrap());
        let (usec_a, usec_m) = (field(8), field(24));
        if !(0..1_000_000).contains(&usec_a) || !(0..1_000_000).contains(&usec_m) {
            return Err(Errno::EINVAL);
        }
        Some((Timespec::new(field(0), (usec_a * 1000) as u32), Timespec::new(field(16), (usec_m * 1000) as u32)))
    };
    set(thread, dirfd, path, given)
}

fn set(thread: &Thread, dirfd: i32, path: usize, given: Option<(Timespec, Timespec)>) -> Result<isize> {
    if path == 0 && dirfd == AT_FDCWD {
        return Err(Errno::EFAULT);
    }
    let (atime, mtime) = match given {
        Some((a, m)) => (a, m),
        None => {
            let now = crate::clock::now();
            (now, now)
        }
    };
    super::fs::set_times(thread, dirfd, path, Some(atime), Some(mtime), given.is_some(), 0)
}
