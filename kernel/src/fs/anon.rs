//! What the files without a path (eventfd, timerfd, signalfd, epoll)
//! share: Linux gives them all one anonymous inode, mode 0600 with no
//! file type bits.

use kevlar_vfs::{Stat, Timespec};

/// The metadata fstat reports for an anonymous-inode file.
pub fn anon_stat() -> Stat {
    Stat {
        dev: 0x0d,
        ino: 1,
        mode: 0o600,
        nlink: 1,
        uid: 0,
        gid: 0,
        rdev: 0,
        size: 0,
        blksize: 4096,
        blocks: 0,
        atime: Timespec::default(),
        mtime: Timespec::default(),
        ctime: Timespec::default(),
    }
}
