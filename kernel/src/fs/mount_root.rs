//! Where in its file system a mount is rooted: mountinfo's fourth field
//! (Linux's seq_dentry of the mount's root in its superblock). A mount of
//! a whole file system shows `/`; a bind mount of a directory shows that
//! directory's path from the file system's root (a bind of /a/b of a
//! tmpfs: `/a/b`, and so does a bind of that bind), found by walking `..`
//! up from the mount's root, so a directory renamed since shows its new
//! path, as Linux's.

use alloc::collections::BTreeMap;
use alloc::sync::Arc;
use alloc::vec::Vec;

use kevlar_vfs::Inode;

use super::mount::{FsKind, Mount};

/// How deep a bound directory may be below its file system's root before
/// the walk up gives up (a corrupt tree must not hang a read).
const MAX_DEPTH: usize = 4096;

impl Mount {
    /// The mount's root within its file system, as mountinfo shows it
    /// (names found through `names`, the reader's cache).
    pub fn root_in_fs(&self, names: &mut NameCache) -> Vec<u8> {
        let whole = match &self.kind {
            FsKind::Rootfs(fs) | FsKind::Tmpfs(fs, _) | FsKind::Devtmpfs(fs) => Some(fs.root()),
            FsKind::Ext2(fs) => Some(fs.root()),
            FsKind::Simple(fs) => Some(fs.tmpfs().root()),
            // Shown relative to the reader's cgroup namespace root, which
            // every cgroup2 mount here is.
            FsKind::Cgroup2 => return b"/".to_vec(),
            _ => None,
        };
        if whole.is_some_and(|r| kevlar_vfs::same_inode(&*r, &*self.root)) {
            return b"/".to_vec();
        }
        path_in_fs(&self.root, names).unwrap_or_else(|| b"/".to_vec())
    }
}

/// The path of directory `node` from the root of its file system (the
/// first directory above it whose `..` is itself or on another file
/// system); None for a node that is not a directory, or a name not found.
fn path_in_fs(node: &Arc<dyn Inode>, names: &mut NameCache) -> Option<Vec<u8>> {
    if !node.file_type().is_dir() {
        return None;
    }
    let fs_id = node.fs_id();
    let mut parts: Vec<Vec<u8>> = Vec::new();
    let mut here = node.clone();
    for _ in 0..MAX_DEPTH {
        let parent = here.lookup(b"..").ok()?;
        if parent.fs_id() != fs_id || kevlar_vfs::same_inode(&*parent, &*here) {
            break;
        }
        parts.push(names.name(&parent, here.ino())?);
        here = parent;
    }
    Some(super::path_from_names_leaf_first(&parts))
}

/// The names of directory entries by inode number, for one reader of
/// the mount table: a directory is listed once, the first time one of
/// its entries is asked for, so naming every mount point of a directory
/// with n of them costs O(n log n), not O(n^2) (nodes here know no names
/// of their own).
#[derive(Default)]
pub struct NameCache {
    dirs: BTreeMap<(u64, u64), BTreeMap<u64, Vec<u8>>>,
}

impl NameCache {
    /// The name of the entry with inode number `ino` in directory `dir`.
    pub fn name(&mut self, dir: &Arc<dyn Inode>, ino: u64) -> Option<Vec<u8>> {
        if let Some(name) = super::synth::child_name(dir, ino) {
            return Some(name);
        }
        let entries = self.dirs.entry((dir.fs_id(), dir.ino())).or_insert_with(|| {
            let mut entries = BTreeMap::new();
            let mut index = 0;
            while let Ok(Some((entry, next))) = dir.read_dir(index) {
                if entry.name != b"." && entry.name != b".." {
                    // The first name of a node with several (hard links).
                    entries.entry(entry.ino).or_insert(entry.name);
                }
                index = next;
            }
            entries
        });
        entries.get(&ino).cloned()
    }
}
