//! nsfs: the nodes /proc/PID/ns/* lead to, one per namespace (its inode
//! number is the namespace's), which setns(2) takes as a handle.

use alloc::format;
use alloc::string::String;
use alloc::sync::Arc;
use core::any::Any;

use kevlar_vfs::{FileType, Inode, Stat};

use super::{CgroupNs, Kind, NsSet, Plain};
use crate::error::Result;
use crate::fs::mount::MountNs;
use crate::fs::synth::Attr;
use crate::uts::UtsNs;

/// nsfs's device number (Linux's nsfs is the anonymous `0:4`).
fn nsfs_dev() -> u64 {
    crate::fs::initramfs::make_rdev(0, 4)
}

/// One namespace, held by its node.
#[derive(Clone)]
pub enum NsRef {
    Mnt(Arc<MountNs>),
    Uts(Arc<UtsNs>),
    Cgroup(Arc<CgroupNs>),
    Pid(Arc<super::pid::PidNs>),
    Net(Arc<super::net::NetNs>),
    User(Arc<super::user::UserNs>),
    Plain(Kind, Arc<Plain>),
}

impl NsRef {
    /// The kind of namespace.
    pub fn kind(&self) -> Kind {
        match self {
            NsRef::Mnt(_) => Kind::Mnt,
            NsRef::Uts(_) => Kind::Uts,
            NsRef::Cgroup(_) => Kind::Cgroup,
            NsRef::Pid(_) => Kind::Pid,
            NsRef::Net(_) => Kind::Net,
            NsRef::User(_) => Kind::User,
            NsRef::Plain(kind, _) => *kind,
        }
    }

    /// Its inode number.
    pub fn inum(&self) -> u64 {
        match self {
            NsRef::Mnt(ns) => ns.inum,
            NsRef::Uts(ns) => ns.inum,
            NsRef::Cgroup(ns) => ns.inum,
            NsRef::Pid(ns) => ns.inum,
            NsRef::Net(ns) => ns.inum,
            NsRef::User(ns) => ns.inum,
            NsRef::Plain(_, ns) => ns.inum,
        }
    }

    /// What a /proc/PID/ns link to it reads (`mnt:[4026531841]`).
    pub fn link_text(&self) -> String {
        format!("{}:[{}]", self.kind().name(), self.inum())
    }
}

/// The entries of /proc/PID/ns, in Linux's listing order.
pub const ENTRIES: [&str; 10] = ["net", "uts", "ipc", "pid", "pid_for_children", "user", "mnt", "cgroup", "time", "time_for_children"];

/// Returns the namespace entry `name` of /proc/PID/ns names in `set`.
pub fn entry(set: &NsSet, name: &[u8]) -> Option<NsRef> {
    Some(match name {
        b"cgroup" => NsRef::Cgroup(set.cgroup.clone()),
        b"ipc" => NsRef::Plain(Kind::Ipc, set.ipc.clone()),
        b"mnt" => NsRef::Mnt(set.mnt.clone()),
        b"net" => NsRef::Net(set.net.clone()),
        b"pid" => NsRef::Pid(set.pid.clone()),
        // Not there until its init is (Linux's pidns_for_children_get).
        b"pid_for_children" if set.pid_for_children.level > 0 && set.pid_for_children.reaper().is_none() => return None,
        b"pid_for_children" => NsRef::Pid(set.pid_for_children.clone()),
        b"time" => NsRef::Plain(Kind::Time, set.time.clone()),
        b"time_for_children" => NsRef::Plain(Kind::Time, set.time_for_children.clone()),
        b"user" => NsRef::User(set.user.clone()),
        b"uts" => NsRef::Uts(set.uts.clone()),
        _ => return None,
    })
}

/// The node of one namespace.
pub struct NsNode {
    pub ns: NsRef,
}

/// Makes the node of `ns`.
pub fn node(ns: NsRef) -> Arc<dyn Inode> {
    Arc::new(NsNode { ns })
}

/// Returns the namespace behind `node`, if it is an nsfs node.
pub fn of_node(node: &Arc<dyn Inode>) -> Option<NsRef> {
    node.as_any().downcast_ref::<NsNode>().map(|n| n.ns.clone())
}

impl Inode for NsNode {
    fn fs_id(&self) -> u64 {
        nsfs_dev()
    }

    fn ino(&self) -> u64 {
        self.ns.inum()
    }

    fn file_type(&self) -> FileType {
        FileType::Regular
    }

    fn stat(&self) -> Result<Stat> {
        Ok(Attr::root(nsfs_dev(), self.ns.inum(), 0o444).stat(FileType::Regular, 1, 0))
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn read_at(&self, _offset: u64, _buf: &mut [u8]) -> Result<usize> {
        Err(crate::error::Errno::EINVAL)
    }
}
