//! Mount propagation between mounts and mount namespaces: peer groups
//! (MS_SHARED), slaves that receive from a group (MS_SLAVE), private and
//! unbindable mounts; what a mount made below a shared mount copies to
//! its peers and slaves (in every namespace), and what an unmount takes
//! away from them; the optional fields of /proc/PID/mountinfo.

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::fmt::Write;
use core::sync::atomic::Ordering;

use kevlar_vfs::Inode;
use linux_raw_sys::general as abi;

use super::mount::{all_namespaces, index_of, with_keys, Mount, MountNs, NEXT_MOUNT_ID};
use crate::error::{Errno, Result};

/// A mount's propagation state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Propagation {
    /// The peer group (`shared:N`), 0 if not shared.
    pub group: u32,
    /// The peer group it receives from (`master:N`), 0 if not a slave.
    pub master: u32,
    /// MS_UNBINDABLE.
    pub unbindable: bool,
}

/// Serialises changes of propagation state (group ids are chosen by
/// looking at every table, then used): taken before any table's lock.
static PROPAGATION: kevlar_platform::sync::SpinLock<()> = kevlar_platform::sync::SpinLock::new(());

/// Returns the smallest peer-group id no mount uses (Linux takes group
/// ids from an IDA, smallest free first), skipping `taken`.
fn new_group(taken: &[u32]) -> u32 {
    let mut used: Vec<u32> = taken.to_vec();
    for ns in all_namespaces() {
        for m in ns.mounts.lock().iter() {
            used.push(m.prop.group);
            used.push(m.prop.master);
        }
    }
    (1..).find(|g| !used.contains(g)).unwrap_or(1)
}

/// The groups that receive what is mounted in `group`: the group and, to
/// any depth, the groups of its slaves that are shared themselves.
fn receiving_groups(group: u32) -> Vec<u32> {
    let mut groups = alloc::vec![group];
    let namespaces = all_namespaces();
    let mut i = 0;
    while i < groups.len() {
        let g = groups[i];
        for ns in &namespaces {
            for m in ns.mounts.lock().iter() {
                if m.prop.master == g && m.prop.group != 0 && !groups.contains(&m.prop.group) {
                    groups.push(m.prop.group);
                }
            }
        }
        i += 1;
    }
    groups
}

/// Adds `mount` to `ns`; if the mount it sits on is shared, the new mount
/// gets a peer group of its own and a copy of it goes on every peer and
/// slave of that mount (Linux's propagate_mnt): copies on peers join the
/// new group, copies on slaves become its slaves.
pub fn add_propagated(ns: &Arc<MountNs>, mut mount: Mount) {
    let _serial = PROPAGATION.lock();
    let parent = {
        let mounts = ns.mounts.lock();
        mounts.iter().find(|m| m.id == mount.parent_id).map(|p| (p.prop.group, p.root.clone(), p.path.clone()))
    };
    let Some((parent_group, parent_root, parent_path)) = parent.filter(|p| p.0 != 0) else {
        let mut mounts = ns.mounts.lock();
        mounts.push(mount);
        ns.update_filters(&mounts);
        return;
    };
    // A copy of a shared mount (a bind of it) stays in its group; the
    // others get a new one (Linux's invent_group_ids).
    if mount.prop.group == 0 {
        mount.prop.group = new_group(&[]);
    }
    let source_group = mount.prop.group;
    {
        let mut mounts = ns.mounts.lock();
        mounts.push(mount.clone());
        ns.update_filters(&mounts);
    }
    let groups = receiving_groups(parent_group);
    // New groups for copies on shared slaves, one per receiving group.
    let mut slave_groups: BTreeMap<u32, u32> = BTreeMap::new();
    let mut taken: Vec<u32> = alloc::vec![source_group];
    // Groups for copies on receivers that are slaves and shared
    // themselves, chosen before any table is locked for the copies
    // (new_group reads every table).
    let namespaces = all_namespaces();
    let mut slave_shared: Vec<u32> = Vec::new();
    for other in &namespaces {
        for q in other.mounts.lock().iter() {
            if q.prop.group != 0 && q.prop.group != parent_group && groups.contains(&q.prop.master) && !slave_shared.contains(&q.prop.group) {
                slave_shared.push(q.prop.group);
            }
        }
    }
    for g in slave_shared {
        let new = new_group(&taken);
        taken.push(new);
        slave_groups.insert(g, new);
    }
    for other in namespaces {
        let mut mounts = other.mounts.lock();
        let receivers: Vec<Mount> = mounts
            .iter()
            .filter(|q| q.id != mount.parent_id && (groups.contains(&q.prop.group) || groups.contains(&q.prop.master)))
            .filter(|q| kevlar_vfs::same_inode(&*q.root, &*parent_root))
            .cloned()
            .collect();
        for q in receivers {
            let peer = q.prop.group == parent_group;
            let mut copy = mount.clone();
            copy.id = NEXT_MOUNT_ID.fetch_add(1, Ordering::Relaxed);
            copy.parent_id = q.id;
            // The mount point's path under the receiver.
            let below = mount.path.strip_prefix(parent_path.as_slice()).unwrap_or(&mount.path);
            let mut path = if q.path == b"/" { Vec::new() } else { q.path.clone() };
            if !below.starts_with(b"/") {
                path.push(b'/');
            }
            path.extend_from_slice(below);
            copy.path = path;
            if peer {
                copy.prop = Propagation { group: source_group, master: 0, unbindable: false };
            } else {
                let group = slave_groups.get(&q.prop.group).copied().unwrap_or(0);
                copy.prop = Propagation { group, master: source_group, unbindable: false };
            }
            mounts.push(with_keys(copy));
        }
        other.update_filters(&mounts);
    }
}

/// After `removed` was unmounted: removes the copies propagation put on
/// the peers and slaves of the mount it sat on, of peer group
/// `parent_group` (0: not shared; nothing propagates), in every
/// namespace, and returns them. The group is found before that mount went
/// too (an unmount of a tree: Linux's propagate_umount visits every mount
/// of it).
pub fn remove_propagated_from(removed: &Mount, parent_group: u32) -> Vec<Mount> {
    let _serial = PROPAGATION.lock();
    let mut out = Vec::new();
    if parent_group == 0 {
        return out;
    }
    let groups = receiving_groups(parent_group);
    for other in all_namespaces() {
        let mut mounts = other.mounts.lock();
        let receivers: Vec<u32> = mounts.iter().filter(|q| groups.contains(&q.prop.group) || groups.contains(&q.prop.master)).map(|q| q.id).collect();
        let has_children = |id: u32, mounts: &[Mount]| mounts.iter().any(|c| c.parent_id == id);
        let doomed: Vec<u32> = mounts
            .iter()
            .filter(|m| receivers.contains(&m.parent_id) && m.id != removed.id && kevlar_vfs::same_inode(&*m.root, &*removed.root))
            .filter(|m| m.on.as_ref().zip(removed.on.as_ref()).is_some_and(|(a, b)| kevlar_vfs::same_inode(&**a, &**b)))
            .filter(|m| !has_children(m.id, &mounts))
            .map(|m| m.id)
            .collect();
        if doomed.is_empty() {
            continue;
        }
        mounts.retain(|m| {
            let gone = doomed.contains(&m.id);
            if gone {
                out.push(m.clone());
            }
            !gone
        });
        other.update_filters(&mounts);
    }
    out
}

/// Tells whether `root` is the root of a mount of `ns`.
pub fn is_mount_root(ns: &MountNs, root: &Arc<dyn Inode>) -> bool {
    index_of(&ns.mounts.lock(), root).is_some()
}

/// Changes the propagation of the mount whose root is `root` in `ns`
/// (and with MS_REC of every mount below it) to `kind`: one of
/// MS_SHARED, MS_PRIVATE, MS_SLAVE, MS_UNBINDABLE.
///
/// The mount is `mnt` (the walk's; not known: the last mount rooted at
/// `root`), whose root must be `root`.
pub fn set_propagation_at(ns: &Arc<MountNs>, mnt: kevlar_vfs::MountId, root: &Arc<dyn Inode>, kind: u32, recursive: bool) -> Result<()> {
    let _serial = PROPAGATION.lock();
    let targets: Vec<u32> = {
        let mounts = ns.mounts.lock();
        let index = super::mount::index_of_mount(&mounts, mnt, root).ok_or(Errno::EINVAL)?;
        let mut ids = alloc::vec![mounts[index].id];
        if recursive {
            let mut i = 0;
            while i < ids.len() {
                let parent = ids[i];
                ids.extend(mounts.iter().filter(|m| m.parent_id == parent && m.id != parent).map(|m| m.id));
                i += 1;
            }
        }
        ids
    };
    for id in targets {
        let current = {
            let mounts = ns.mounts.lock();
            mounts.iter().find(|m| m.id == id).map(|m| m.prop)
        };
        let Some(current) = current else { continue };
        let new = match kind {
            abi::MS_SHARED => {
                let group = if current.group != 0 { current.group } else { new_group(&[]) };
                Propagation { group, master: current.master, unbindable: false }
            }
            abi::MS_PRIVATE => Propagation::default(),
            abi::MS_UNBINDABLE => Propagation { group: 0, master: 0, unbindable: true },
            _ => {
                // MS_SLAVE: a shared mount with peers becomes their
                // slave; one without keeps the master it had (a private
                // mount stays private).
                let peers = current.group != 0 && all_namespaces().iter().any(|other| other.mounts.lock().iter().any(|m| m.prop.group == current.group && !(Arc::ptr_eq(other, ns) && m.id == id)));
                let master = if peers { current.group } else { current.master };
                Propagation { group: 0, master, unbindable: false }
            }
        };
        let mut mounts = ns.mounts.lock();
        if let Some(m) = mounts.iter_mut().find(|m| m.id == id) {
            m.prop = new;
        }
    }
    Ok(())
}

/// The optional fields of a mount's /proc/PID/mountinfo line (each with
/// a leading space): `shared:N`, `master:N`, `unbindable`.
pub fn optional_fields(m: &Mount) -> String {
    let mut out = String::new();
    if m.prop.group != 0 {
        let _ = write!(out, " shared:{}", m.prop.group);
    }
    if m.prop.master != 0 {
        let _ = write!(out, " master:{}", m.prop.master);
    }
    if m.prop.unbindable {
        out.push_str(" unbindable");
    }
    out
}
