//! What the files without a path (eventfd, timerfd, signalfd, epoll)
//! share: Linux gives them all one anonymous inode, mode 0600 with no
//! file type bits.

use kevlar_vfs::{Stat, Timespec};

/// The metadata fstat reports for an anonymous-inode file.
pub fn anon_stat() -> Stat {
    pseudo_stat(0x0d, 1, 0o600, 0, 0)
}

/// The metadata of a file that lives on one of the kernel's internal
/// pseudo file systems (pipefs, sockfs, anon_inodefs): no size, no
/// blocks, no times.
pub fn pseudo_stat(dev: u64, ino: u64, mode: u32, uid: u32, gid: u32) -> Stat {
    Stat {
        dev,
        ino,
        mode,
        nlink: 1,
        uid,
        gid,
        rdev: 0,
        size: 0,
        blksize: 4096,
        blocks: 0,
        atime: Timespec::default(),
        mtime: Timespec::default(),
        ctime: Timespec::default(),
    }
}

/// The `FileOps` methods every anonymous-inode file (eventfd, timerfd,
/// signalfd, epoll) shares, as Linux's `anon_inode_getfile` gives them:
/// one inode, no position (lseek succeeds and reports 0), and a poll
/// method epoll may use.
macro_rules! anon_inode_ops {
    () => {
        fn stat(&self) -> $crate::error::Result<kevlar_vfs::Stat> {
            Ok($crate::fs::anon::anon_stat())
        }

        fn is_seekable(&self) -> bool {
            false
        }

        fn fixed_position(&self) -> bool {
            true
        }

        fn is_pollable(&self) -> bool {
            true
        }
    };
}
pub(crate) use anon_inode_ops;
