//! Recursive bind mounts (mount(2) with MS_BIND|MS_REC, `mount --rbind`):
//! the mounts below the bound directory are copied with it, each with a
//! mount id of its own and the copy of its parent as its parent (Linux's
//! copy_tree). Unbindable mounts, and what is mounted inside them, are
//! left out. A copy keeps the propagation of the mount it copies (a
//! shared mount's copy is its peer, a slave's copy a slave of the same
//! master), as Linux's clone_mnt without CL_PRIVATE.

use alloc::sync::Arc;
use alloc::vec::Vec;
use core::sync::atomic::Ordering;

use kevlar_vfs::Inode;

use super::mount::{with_keys, Mount, MountNs, NEXT_MOUNT_ID};
use super::propagation::Propagation;

/// The propagation a copy of a mount with `prop` gets.
pub fn copied_propagation(prop: Propagation) -> Propagation {
    Propagation { group: prop.group, master: prop.master, unbindable: false }
}

/// A copy of a mount below a recursive bind's root, waiting to be
/// attached: its parent is named by the id of the mount it copies, so
/// the copies can be renumbered when the root's id is known.
pub struct Pending {
    /// The copy (new id; `parent_id` is the source parent's id).
    pub mount: Mount,
}

/// Copies the mounts of `ns` below directory `node` of mount `from`
/// (the bind's source), parents before children, skipping unbindable
/// ones and their subtrees. Each copy has a fresh id; its `parent_id`
/// still names the source parent (the root of the bind: `from.id`), and
/// its path is relative to the bound directory (`/a/b`).
pub fn submounts(ns: &MountNs, from: &Mount, node: &Arc<dyn Inode>) -> Vec<Pending> {
    let mounts = ns.list();
    let mut out: Vec<Pending> = Vec::new();
    // (source id, its path relative to the bound directory)
    let mut level: Vec<(u32, Vec<u8>)> = alloc::vec![(from.id, b"/".to_vec())];
    let mut i = 0;
    while i < level.len() {
        let (parent, ref parent_rel) = level[i];
        let parent_rel = parent_rel.clone();
        let parent_path = mounts.iter().find(|m| m.id == parent).map(|m| m.path.clone()).unwrap_or_default();
        for m in mounts.iter().filter(|m| m.parent_id == parent && m.id != parent) {
            if m.prop.unbindable {
                continue;
            }
            let rel = if i == 0 {
                // The first level must lie below the bound directory (by
                // inodes: with bind mounts, paths are ambiguous).
                match m.on.as_ref().and_then(|on| super::newmount::path_below(on, node, &from.root)) {
                    Some(rel) => rel,
                    None => continue,
                }
            } else {
                // Deeper: its path below its parent's mount point.
                let rest = m.path.strip_prefix(parent_path.as_slice()).unwrap_or(&m.path);
                let mut p = if parent_rel == b"/" { Vec::new() } else { parent_rel.clone() };
                if !rest.starts_with(b"/") {
                    p.push(b'/');
                }
                p.extend_from_slice(rest);
                p
            };
            let mut copy = m.clone();
            copy.id = NEXT_MOUNT_ID.fetch_add(1, Ordering::Relaxed);
            copy.prop = copied_propagation(m.prop);
            copy.path = rel.clone();
            level.push((m.id, rel));
            out.push(Pending { mount: copy });
        }
        i += 1;
    }
    // Parents' ids are still the sources': map them to the copies'.
    let ids: Vec<(u32, u32)> = level.iter().skip(1).zip(out.iter()).map(|((old, _), p)| (*old, p.mount.id)).collect();
    for p in out.iter_mut() {
        if let Some(&(_, new)) = ids.iter().find(|(old, _)| *old == p.mount.parent_id) {
            p.mount.parent_id = new;
        }
    }
    out
}

/// Attaches the copies from [`submounts`] to `ns` below the bind's root
/// mount `root_id` (which replaces the source root `from_id` as parent)
/// mounted at absolute path `path`.
pub fn attach(ns: &Arc<MountNs>, from_id: u32, root_id: u32, path: &[u8], copies: Vec<Pending>) {
    if copies.is_empty() {
        return;
    }
    let mut mounts = ns.mounts.lock();
    for p in copies {
        let mut m = p.mount;
        if m.parent_id == from_id {
            m.parent_id = root_id;
        }
        let mut full = if path == b"/" { Vec::new() } else { path.to_vec() };
        full.extend_from_slice(&m.path);
        m.path = full;
        mounts.push(with_keys(m));
    }
    ns.update_filters(&mounts);
}
