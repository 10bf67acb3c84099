//! pivot_root(2): the mount at `new_root` becomes the namespace's root
//! mount (where the caller's root mount was), and the old root mount moves
//! onto `put_old`; every process of the namespace whose root or working
//! directory was the old root moves to the new one.

use alloc::sync::Arc;
use alloc::vec::Vec;

use kevlar_vfs::Inode;

use super::mount::{index_of, with_keys, MountNs};
use super::FsContext;
use crate::error::{Errno, Result};

/// Tells whether directory `dir` is `top` or below it (by their real
/// paths from `fs`'s root).
fn is_below(fs: &FsContext, dir: &Arc<dyn Inode>, top: &Arc<dyn Inode>) -> bool {
    let (Ok(d), Ok(t)) = (super::dir_path(fs, dir.clone()), super::dir_path(fs, top.clone())) else { return false };
    d == t || t == b"/" || d.starts_with(&t) && d.get(t.len()) == Some(&b'/')
}

/// Pivots the root of `fs` (the caller's view) to `new_root`, moving the
/// old root mount onto `put_old`; both resolved by the caller (directories).
pub fn pivot_root(fs: &FsContext, new_root: Arc<dyn Inode>, put_old: Arc<dyn Inode>) -> Result<()> {
    let ns: &Arc<MountNs> = &fs.mnt;
    let old_root = fs.root.clone();
    let new_path = super::dir_path(fs, new_root.clone()).unwrap_or_default();
    let old_mount_path = {
        let mounts = ns.mounts.lock();
        let root_index = index_of(&mounts, &old_root);
        let new_index = index_of(&mounts, &new_root);
        // The mount holding put_old: the innermost one on its file system.
        let old_index = mounts.iter().rposition(|m| m.root.fs_id() == put_old.fs_id());
        let shared = |i: Option<usize>| i.is_some_and(|i| mounts[i].prop.group != 0);
        let parent_of = |i: Option<usize>| i.and_then(|i| mounts.iter().position(|m| m.id == mounts[i].parent_id));
        if shared(old_index) || shared(parent_of(new_index)) || shared(parent_of(root_index)) {
            return Err(Errno::EINVAL);
        }
        let same = |a: Option<usize>, b: Option<usize>| a.is_some() && a == b;
        if same(new_index, root_index) || same(old_index, root_index) {
            return Err(Errno::EBUSY);
        }
        // The root must be a mount point with a parent (not rootfs), and
        // so must new_root.
        let Some(root_index) = root_index.filter(|&i| mounts[i].on.is_some()) else { return Err(Errno::EINVAL) };
        let Some(new_index) = new_index.filter(|&i| mounts[i].on.is_some()) else { return Err(Errno::EINVAL) };
        let _ = new_index;
        mounts[root_index].path.clone()
    };
    // put_old must be reachable from new_root, and new_root from the root.
    if !is_below(fs, &put_old, &new_root) || !is_below(fs, &new_root, &old_root) {
        return Err(Errno::EINVAL);
    }
    let put_old_path = super::dir_path(fs, put_old.clone()).unwrap_or_default();
    let mut mounts = ns.mounts.lock();
    let root_index = index_of(&mounts, &old_root).ok_or(Errno::EINVAL)?;
    let new_index = index_of(&mounts, &new_root).ok_or(Errno::EINVAL)?;
    let (root_on, root_parent) = (mounts[root_index].on.clone(), mounts[root_index].parent_id);
    let new_id = mounts[new_index].id;
    // The mount put_old is on, after the move (new_root's or one below).
    let old_parent = mounts.iter().rev().find(|m| m.root.fs_id() == put_old.fs_id() && m.id != mounts[root_index].id).map_or(new_id, |m| m.id);
    let mut new_mount = mounts[new_index].clone();
    new_mount.on = root_on;
    new_mount.parent_id = root_parent;
    new_mount.path = old_mount_path;
    let mut old_mount = mounts[root_index].clone();
    old_mount.on = Some(put_old);
    old_mount.parent_id = old_parent;
    // Shown relative to the new root: put_old's path below new_root.
    let below = put_old_path.strip_prefix(new_path.as_slice()).map(|p| p.to_vec()).unwrap_or(put_old_path);
    old_mount.path = if below.is_empty() { alloc::vec![b'/'] } else { below };
    mounts[new_index] = with_keys(new_mount);
    mounts[root_index] = with_keys(old_mount);
    ns.update_filters(&mounts);
    drop(mounts);
    // chroot_fs_refs: processes of this namespace rooted or working at
    // the old root move to the new one.
    let processes: Vec<_> = crate::process::all_processes();
    for p in processes {
        let mut pfs = p.fs.lock();
        if !Arc::ptr_eq(&pfs.mnt, ns) {
            continue;
        }
        if kevlar_vfs::same_inode(&*pfs.root, &*old_root) {
            pfs.root = new_root.clone();
            pfs.root_mnt = kevlar_vfs::NO_MOUNT;
        }
        if kevlar_vfs::same_inode(&*pfs.cwd, &*old_root) {
            pfs.cwd = new_root.clone();
            pfs.cwd_mnt = kevlar_vfs::NO_MOUNT;
            pfs.cwd_path = Arc::from(&b"/"[..]);
        }
    }
    Ok(())
}
