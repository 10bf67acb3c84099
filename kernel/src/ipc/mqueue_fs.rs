//! The mqueue file system (`mount -t mqueue none /dev/mqueue`): its root
//! lists the POSIX message queues of the mounting process's IPC namespace,
//! one regular file per queue. Reading a queue's file gives its state
//! line; unlink removes the name (as mq_unlink); open(O_CREAT) there makes
//! a queue with the default attributes; chmod and chown change the queue's
//! permissions. Every mount of one namespace shows the same queues (Linux
//! keeps one superblock per IPC namespace).

use alloc::sync::Arc;
use alloc::vec::Vec;
use core::any::Any;

use kevlar_vfs::{DirEntry, Errno as VfsErrno, FileType, Inode, SetAttr, Stat};
use linux_raw_sys::general as abi;

use super::mqueue::{self, Queue};
use crate::error::{Errno, Result};
use crate::fs::file::FileOps;

/// statfs's f_type for mqueue (Linux's MQUEUE_MAGIC, from
/// include/uapi/linux/magic.h; not in the headers linux-raw-sys is made
/// from).
pub const MQUEUE_MAGIC: u64 = 0x1980_0202;
/// Linux's sizes: a directory is 2 * DIRENT_SIZE plus DIRENT_SIZE per
/// queue; a queue file is FILENT_SIZE.
const DIRENT_SIZE: u64 = 20;
const FILENT_SIZE: u64 = 80;
const ROOT_INO: u64 = 1;

/// Each namespace's device number (its superblock's).
static DEVS: super::ns::PerNs<u64> = super::ns::PerNs::new(crate::fs::mount::anon_dev);

/// Takes away the device number of IPC namespace `inum`, which is gone.
pub(super) fn forget_ns(inum: u64) {
    DEVS.take(inum);
}

/// Mounts the mqueue file system of the calling process's IPC namespace;
/// it takes no options (EINVAL for any, as Linux's).
pub fn mount(data: &[u8]) -> Result<Arc<dyn Inode>> {
    if data.split(|&b| b == b',').any(|o| !o.is_empty()) {
        return Err(Errno::EINVAL);
    }
    let ns = super::ns::current();
    let dev = *DEVS.lock_in(ns);
    Ok(Arc::new(Root { ns, dev }))
}

/// The file an open of `node` gives, if it is a queue's file.
pub fn open(node: &Arc<dyn Inode>) -> Option<Arc<dyn FileOps>> {
    let q = node.as_any().downcast_ref::<QueueNode>()?;
    Some(Arc::new(q.queue.file()))
}

/// The stat of `q`'s node (what fstat of an mq_open descriptor gives).
pub(super) fn queue_stat(q: &Queue) -> Stat {
    let o = q.owner();
    Stat {
        dev: *DEVS.lock_in(q.ns()),
        ino: q.ino(),
        mode: abi::S_IFREG | o.mode,
        nlink: 1,
        uid: o.uid,
        gid: o.gid,
        size: FILENT_SIZE,
        blksize: 4096,
        atime: o.atime,
        mtime: o.mtime,
        ctime: o.ctime,
        ..Stat::default()
    }
}

/// `q`'s node (an mq_open descriptor's, for fchmod and the like).
pub(super) fn queue_node(q: &Arc<Queue>) -> Arc<dyn Inode> {
    node(*DEVS.lock_in(q.ns()), q.clone())
}

/// The root directory.
struct Root {
    ns: u64,
    dev: u64,
}

/// A queue's file.
struct QueueNode {
    dev: u64,
    queue: Arc<Queue>,
}

fn node(dev: u64, queue: Arc<Queue>) -> Arc<dyn Inode> {
    Arc::new(QueueNode { dev, queue })
}

impl Inode for Root {
    fn fs_id(&self) -> u64 {
        self.dev
    }

    fn ino(&self) -> u64 {
        ROOT_INO
    }

    fn file_type(&self) -> FileType {
        FileType::Directory
    }

    fn stat(&self) -> core::result::Result<Stat, VfsErrno> {
        let count = mqueue::names_in(self.ns).len() as u64;
        Ok(Stat {
            dev: self.dev,
            ino: ROOT_INO,
            mode: abi::S_IFDIR | abi::S_ISVTX | 0o777,
            nlink: 2,
            size: 2 * DIRENT_SIZE + count * DIRENT_SIZE,
            blksize: 4096,
            ..Stat::default()
        })
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn lookup(&self, name: &[u8]) -> core::result::Result<Arc<dyn Inode>, VfsErrno> {
        match name {
            b"." | b".." => Ok(Arc::new(Root { ns: self.ns, dev: self.dev })),
            _ => mqueue::find_in(self.ns, name).map(|q| node(self.dev, q)).ok_or(Errno::ENOENT),
        }
    }

    fn create(&self, name: &[u8], file_type: FileType, mode: u32, uid: u32, gid: u32, _rdev: u64) -> core::result::Result<Arc<dyn Inode>, VfsErrno> {
        // Only queues (regular files) live here: mkdir, mknod and the like
        // are refused as Linux's mqueue root has no such operations.
        if file_type != FileType::Regular {
            return Err(Errno::EPERM);
        }
        let thread = crate::process::current().ok_or(Errno::EPERM)?;
        let queue = mqueue::create_in(&thread.process, self.ns, name, mode, uid, gid)?;
        crate::fs::file::notify_pollers();
        Ok(node(self.dev, queue))
    }

    fn unlink(&self, name: &[u8]) -> core::result::Result<(), VfsErrno> {
        mqueue::remove_in(self.ns, name)
    }

    fn read_dir(&self, index: usize) -> core::result::Result<Option<(DirEntry, usize)>, VfsErrno> {
        // Positions: 0 ".", 1 "..", 2 + i for the i-th queue by name.
        let entry = |ino: u64, file_type: FileType, name: Vec<u8>| DirEntry { ino, file_type, name };
        Ok(match index {
            0 => Some((entry(ROOT_INO, FileType::Directory, b".".to_vec()), 1)),
            1 => Some((entry(ROOT_INO, FileType::Directory, b"..".to_vec()), 2)),
            position => mqueue::names_in(self.ns)
                .into_iter()
                .nth(position - 2)
                .map(|(name, q)| (entry(q.ino(), FileType::Regular, name), position + 1)),
        })
    }
}

impl Inode for QueueNode {
    fn fs_id(&self) -> u64 {
        self.dev
    }

    fn ino(&self) -> u64 {
        self.queue.ino()
    }

    fn file_type(&self) -> FileType {
        FileType::Regular
    }

    fn stat(&self) -> core::result::Result<Stat, VfsErrno> {
        Ok(queue_stat(&self.queue))
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn is_seekable(&self) -> bool {
        false
    }

    fn set_attr(&self, attr: &SetAttr) -> core::result::Result<(), VfsErrno> {
        if attr.size.is_some() {
            return Err(Errno::EINVAL);
        }
        let mut o = self.queue.owner();
        if let Some(mode) = attr.mode {
            o.mode = mode & 0o7777;
        }
        if let Some(uid) = attr.uid {
            o.uid = uid;
        }
        if let Some(gid) = attr.gid {
            o.gid = gid;
        }
        if let Some(t) = attr.atime {
            o.atime = t;
        }
        if let Some(t) = attr.mtime {
            o.mtime = t;
        }
        o.ctime = crate::clock::now();
        self.queue.set_owner(o);
        Ok(())
    }

    fn read_at(&self, _offset: u64, _buf: &mut [u8]) -> core::result::Result<usize, VfsErrno> {
        // Reads go through the open file (MqFile), never the node.
        Err(Errno::EINVAL)
    }
}
