//! Where in its file system a mount is rooted: mountinfo's fourth field
//! (Linux's seq_dentry of the mount's root in its superblock). A mount of
//! a whole file system shows `/`; a bind mount of a directory shows that
//! directory's path from the file system's root (a bind of /a/b of a
//! tmpfs: `/a/b`, and so does a bind of that bind), found by walking `..`
//! up from the mount's root, so a directory renamed since shows its new
//! path, as Linux's.

use alloc::sync::Arc;
use alloc::vec::Vec;

use kevlar_vfs::Inode;

use super::mount::{FsKind, Mount};

/// How deep a bound directory may be below its file system's root before
/// the walk up gives up (a corrupt tree must not hang a read).
const MAX_DEPTH: usize = 4096;

impl Mount {
    /// The mount's root within its file system, as mountinfo shows it.
    pub fn root_in_fs(&self) -> Vec<u8> {
        let whole = match &self.kind {
            FsKind::Rootfs(fs) | FsKind::Tmpfs(fs, _) | FsKind::Devtmpfs(fs) => Some(fs.root()),
            FsKind::Ext2(fs) => Some(fs.root()),
            // Shown relative to the reader's cgroup namespace root, which
            // every cgroup2 mount here is.
            FsKind::Cgroup2 => return b"/".to_vec(),
            _ => None,
        };
        if whole.is_some_and(|r| kevlar_vfs::same_inode(&*r, &*self.root)) {
            return b"/".to_vec();
        }
        path_in_fs(&self.root).unwrap_or_else(|| b"/".to_vec())
    }
}

/// The path of directory `node` from the root of its file system (the
/// first directory above it whose `..` is itself or on another file
/// system); None for a node that is not a directory, or a name not found.
fn path_in_fs(node: &Arc<dyn Inode>) -> Option<Vec<u8>> {
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
        parts.push(name_in(&parent, here.ino())?);
        here = parent;
    }
    let mut out = Vec::new();
    for part in parts.iter().rev() {
        out.push(b'/');
        out.extend_from_slice(part);
    }
    if out.is_empty() {
        out.push(b'/');
    }
    Some(out)
}

/// The name of the entry with inode number `ino` in directory `dir`.
fn name_in(dir: &Arc<dyn Inode>, ino: u64) -> Option<Vec<u8>> {
    if let Some(name) = super::synth::child_name(dir, ino) {
        return Some(name);
    }
    let mut index = 0;
    while let Ok(Some((entry, next))) = dir.read_dir(index) {
        if entry.name != b"." && entry.name != b".." && entry.ino == ino {
            return Some(entry.name);
        }
        index = next;
    }
    None
}
