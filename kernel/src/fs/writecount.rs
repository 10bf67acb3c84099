//! Linux's `i_writecount`: a regular file being executed refuses to be
//! opened for writing or truncated (ETXTBSY), and a file open for writing
//! cannot be executed (ETXTBSY). Without it, truncating a running program
//! leaves its text mapping past the end of the file, and the program dies
//! of SIGBUS at its next instruction fetch from a dropped page.
//!
//! Counts are kept per file (file-system id, inode number): positive is
//! the number of writers, negative the number of running programs. Each
//! side is a guard object that gives its count back when dropped.

use alloc::collections::BTreeMap;
use alloc::sync::Arc;

use kevlar_platform::sync::SpinLock;
use kevlar_vfs::Inode;

use crate::error::{Errno, Result};

type Key = (u64, u64);

static COUNTS: SpinLock<BTreeMap<Key, isize>> = SpinLock::new(BTreeMap::new());

fn key(node: &Arc<dyn Inode>) -> Key {
    (node.fs_id(), node.ino())
}

fn adjust(k: Key, by: isize) {
    let mut counts = COUNTS.lock();
    let c = counts.entry(k).or_insert(0);
    *c += by;
    if *c == 0 {
        counts.remove(&k);
    }
}

/// Write access to a file, held by an open file description opened for
/// writing (Linux's get_write_access).
pub struct WriteAccess(Key);

impl Drop for WriteAccess {
    fn drop(&mut self) {
        adjust(self.0, -1);
    }
}

/// The file is being executed: no writer may come (deny_write_access).
pub struct DenyWrite(Key);

impl Drop for DenyWrite {
    fn drop(&mut self) {
        adjust(self.0, 1);
    }
}

/// Takes write access to `node`, or fails with ETXTBSY while a program
/// runs from it.
pub fn get_write_access(node: &Arc<dyn Inode>) -> Result<WriteAccess> {
    let k = key(node);
    let mut counts = COUNTS.lock();
    let c = counts.entry(k).or_insert(0);
    if *c < 0 {
        return Err(Errno::ETXTBSY);
    }
    *c += 1;
    Ok(WriteAccess(k))
}

/// Marks `node` as executed, or fails with ETXTBSY while it is open for
/// writing.
pub fn deny_write_access(node: &Arc<dyn Inode>) -> Result<DenyWrite> {
    let k = key(node);
    let mut counts = COUNTS.lock();
    let c = counts.entry(k).or_insert(0);
    if *c > 0 {
        return Err(Errno::ETXTBSY);
    }
    *c -= 1;
    Ok(DenyWrite(k))
}
