//! A path text worked out once and kept while nothing that could change
//! it has happened, so /proc/PID/exe answers without walking the
//! executable's recorded path again on every readlink.
//!
//! What the text depends on: the names along the path (removed or moved
//! by unlink, rmdir and rename anywhere: one global count), the mount
//! table of the context's namespace (its change count) and the context's
//! root (chroot). New names cannot change where an existing path leads,
//! so creating files does not count.
//!
//! A path recorded at open or exec stops leading to its file when the
//! file is renamed, where Linux's links follow the file's dentry to its
//! new name. The latest moves of files are kept here (the directory and
//! name each went to) so the links can follow them too.

use alloc::collections::VecDeque;
use alloc::sync::{Arc, Weak};
use alloc::vec::Vec;
use core::sync::atomic::{AtomicU64, Ordering};

use kevlar_platform::sync::SpinLock;
use kevlar_vfs::Inode;

use super::FsContext;

/// Counts the removals and moves of names in every file system.
static NAMES_CHANGED: AtomicU64 = AtomicU64::new(0);

/// Records that a name was removed or moved (after the change is made,
/// so that a text worked out before it is never kept as current).
pub fn names_changed() {
    NAMES_CHANGED.fetch_add(1, Ordering::AcqRel);
}

/// What a kept text was worked out under.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Stamp {
    names: u64,
    mount_ns: usize,
    mount_changes: u64,
    root: (u64, u64),
}

impl Stamp {
    fn now(fs: &FsContext) -> Stamp {
        // Read before the text is worked out: a change during the work
        // leaves the kept text stamped older than the counts, so unused.
        Stamp {
            names: NAMES_CHANGED.load(Ordering::Acquire),
            mount_ns: Arc::as_ptr(&fs.mnt) as *const u8 as usize,
            mount_changes: fs.mnt.changes(),
            root: (fs.root.fs_id(), fs.root.ino()),
        }
    }
}

/// One kept path text (see the module's comment).
pub struct PathMemo {
    kept: SpinLock<Option<(Stamp, Vec<u8>)>>,
}

impl Default for PathMemo {
    fn default() -> Self {
        PathMemo { kept: SpinLock::new(None) }
    }
}

impl PathMemo {
    /// Returns the text `make` works out in `fs`, or the one it gave
    /// before if nothing it depends on changed since. A text `make` marks
    /// as not to keep (its second value false: a deleted file's, one
    /// through /proc) is worked out every time.
    pub fn get(&self, fs: &FsContext, make: impl FnOnce() -> (Vec<u8>, bool)) -> Vec<u8> {
        let stamp = Stamp::now(fs);
        if let Some((kept_stamp, text)) = self.kept.lock().as_ref() {
            if *kept_stamp == stamp {
                return text.clone();
            }
        }
        let (text, keep) = make();
        if keep {
            *self.kept.lock() = Some((stamp, text.clone()));
        }
        text
    }
}

/// How many moves are remembered: older ones are forgotten (a link of a
/// file moved that long ago shows as deleted).
const MOVES_KEPT: usize = 256;

/// A file's move by rename: the file (file system and inode number), the
/// directory it went to and its name there.
struct Move {
    node: (u64, u64),
    dir: Weak<dyn Inode>,
    name: Vec<u8>,
}

static MOVES: SpinLock<VecDeque<Move>> = SpinLock::new(VecDeque::new());

/// Records that `node` (not a directory: a directory's path is found by
/// walking up from it) now has the name `name` in `dir`.
pub fn moved(node: &Arc<dyn Inode>, dir: &Arc<dyn Inode>, name: &[u8]) {
    if node.file_type() == kevlar_vfs::FileType::Directory {
        return;
    }
    let id = (node.fs_id(), node.ino());
    let mut moves = MOVES.lock();
    moves.retain(|m| m.node != id);
    if moves.len() == MOVES_KEPT {
        moves.pop_front();
    }
    moves.push_back(Move { node: id, dir: Arc::downgrade(dir), name: name.to_vec() });
}

/// The path `node` was last moved to by rename, and whether that name
/// still leads to it (unlinked since, or its name taken by another file:
/// false, and Linux's deleted dentry shows that last name).
pub fn moved_path(fs: &FsContext, node: &Arc<dyn Inode>) -> Option<(Vec<u8>, bool)> {
    let id = (node.fs_id(), node.ino());
    let (dir, name) = {
        let moves = MOVES.lock();
        let m = moves.iter().rev().find(|m| m.node == id)?;
        (m.dir.upgrade()?, m.name.clone())
    };
    let there = dir.lookup(&name).is_ok_and(|found| kevlar_vfs::same_inode(&*found, &**node));
    let mut path = super::dir_path(fs, dir).ok()?;
    if path != b"/" {
        path.push(b'/');
    }
    path.extend_from_slice(&name);
    Some((path, there))
}
