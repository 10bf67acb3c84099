//! Namespaces: each process's set of them (Linux's nsproxy, shared by
//! Arc and copied when clone or unshare asks for new ones), their nsfs
//! inode numbers, and the nsfs nodes /proc/PID/ns shows and setns takes.
//!
//! Mount and UTS namespaces have their own state (`fs::mount::MountNs`,
//! `uts::UtsNs`), the cgroup namespace its root cgroup, an IPC namespace
//! its objects (kept by `ipc::ns`), a PID namespace its numbering of
//! processes (`pid`), a network namespace its network stack (`net`), a
//! user namespace its id maps and owner (`user`), a time namespace its
//! clock offsets (`time`, kept by inode number).

pub mod net;
pub mod nsfs;
pub mod pid;
pub mod time;
pub mod user;

use alloc::sync::Arc;
use core::sync::atomic::{AtomicU64, Ordering};

use kevlar_platform::sync::SpinLock;
use linux_raw_sys::general as abi;

use crate::error::{Errno, Result};
use crate::fs::mount::MountNs;
use crate::uts::UtsNs;

/// The kinds of namespace, with the CLONE_NEW* flag that makes one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Mnt,
    Uts,
    Ipc,
    Net,
    Pid,
    Cgroup,
    User,
    Time,
}

impl Kind {
    /// The CLONE_NEW* flag (setns's `nstype`).
    pub fn flag(self) -> u32 {
        match self {
            Kind::Mnt => abi::CLONE_NEWNS,
            Kind::Uts => abi::CLONE_NEWUTS,
            Kind::Ipc => abi::CLONE_NEWIPC,
            Kind::Net => abi::CLONE_NEWNET,
            Kind::Pid => abi::CLONE_NEWPID,
            Kind::Cgroup => abi::CLONE_NEWCGROUP,
            Kind::User => abi::CLONE_NEWUSER,
            Kind::Time => abi::CLONE_NEWTIME,
        }
    }

    /// The name /proc/PID/ns links show (`mnt:[4026531841]`).
    pub fn name(self) -> &'static str {
        match self {
            Kind::Mnt => "mnt",
            Kind::Uts => "uts",
            Kind::Ipc => "ipc",
            Kind::Net => "net",
            Kind::Pid => "pid",
            Kind::Cgroup => "cgroup",
            Kind::User => "user",
            Kind::Time => "time",
        }
    }
}

/// Every CLONE_NEW* flag.
pub const ALL_FLAGS: u32 = abi::CLONE_NEWNS | abi::CLONE_NEWUTS | abi::CLONE_NEWIPC | abi::CLONE_NEWNET | abi::CLONE_NEWPID | abi::CLONE_NEWCGROUP | abi::CLONE_NEWUSER | abi::CLONE_NEWTIME;

/// The namespaces new ones can be made of here.
pub const SUPPORTED: u32 = abi::CLONE_NEWNS | abi::CLONE_NEWUTS | abi::CLONE_NEWIPC | abi::CLONE_NEWCGROUP | abi::CLONE_NEWPID | abi::CLONE_NEWNET | abi::CLONE_NEWUSER | abi::CLONE_NEWTIME;

/// A namespace without state of its own here (IPC namespaces, whose
/// objects `ipc::ns` keeps, the network namespace, time namespaces, whose
/// offsets `time` keeps).
pub struct Plain {
    /// Its nsfs inode number.
    pub inum: u64,
    /// An IPC namespace (whose objects `ipc::ns` keeps by `inum`).
    pub ipc: bool,
}

impl Drop for Plain {
    fn drop(&mut self) {
        if self.ipc {
            crate::ipc::ns::forget(self.inum);
        }
    }
}

/// A cgroup namespace: the cgroup that is its root (what /proc/PID/cgroup
/// shows paths relative to).
pub struct CgroupNs {
    /// Its nsfs inode number.
    pub inum: u64,
    /// Its root.
    pub root: Arc<crate::cgroup::Cgroup>,
}

/// A process's namespaces.
#[derive(Clone)]
pub struct NsSet {
    pub mnt: Arc<MountNs>,
    pub uts: Arc<UtsNs>,
    pub ipc: Arc<Plain>,
    pub net: Arc<net::NetNs>,
    /// The PID namespace the process is in (`pid`) and the one its
    /// children will be in (`pid_for_children`).
    pub pid: Arc<pid::PidNs>,
    pub pid_for_children: Arc<pid::PidNs>,
    pub cgroup: Arc<CgroupNs>,
    /// The user namespace (the same as the credentials' `user_ns`).
    pub user: Arc<user::UserNs>,
    pub time: Arc<Plain>,
    pub time_for_children: Arc<Plain>,
}

// Linux's fixed inode numbers of the initial namespaces
// (include/linux/proc_ns.h; the UTS one is in `uts`); the initial network and mount namespaces
// take the first two dynamic numbers at boot.
const PROC_IPC_INIT_INO: u64 = 0xEFFF_FFFF;
const PROC_CGROUP_INIT_INO: u64 = 0xEFFF_FFFB;
const PROC_TIME_INIT_INO: u64 = 0xEFFF_FFFA;
const INIT_NET_INO: u64 = 0xF000_0000;

/// The next dynamic inode number (Linux's proc_inum_ida, above the two
/// boot takes and what its boot-time users take).
static NEXT_INUM: AtomicU64 = AtomicU64::new(0xF000_0100);

/// Returns a fresh nsfs inode number.
pub fn alloc_inum() -> u64 {
    NEXT_INUM.fetch_add(1, Ordering::Relaxed)
}

static INIT: SpinLock<Option<Arc<NsSet>>> = SpinLock::new(None);

/// Returns the initial namespace set (made at first use).
pub fn init_set() -> Arc<NsSet> {
    let mut slot = INIT.lock();
    if let Some(set) = slot.as_ref() {
        return set.clone();
    }
    let plain = |inum| Arc::new(Plain { inum, ipc: false });
    let pid = pid::init_ns();
    let time = plain(PROC_TIME_INIT_INO);
    let set = Arc::new(NsSet {
        mnt: crate::fs::mount::init_ns(),
        uts: crate::uts::init_ns(),
        ipc: Arc::new(Plain { inum: PROC_IPC_INIT_INO, ipc: true }),
        net: net::make_initial(INIT_NET_INO),
        pid: pid.clone(),
        pid_for_children: pid,
        cgroup: Arc::new(CgroupNs { inum: PROC_CGROUP_INIT_INO, root: crate::cgroup::root() }),
        user: user::init_ns(),
        time: time.clone(),
        time_for_children: time,
    });
    *slot = Some(set.clone());
    set
}

/// Returns the calling process's namespaces (the initial ones when no
/// process runs).
pub fn current() -> Arc<NsSet> {
    match crate::process::current() {
        Some(thread) => of_thread(&thread),
        None => init_set(),
    }
}

/// Returns the namespaces of `thread`: its own when it unshared or
/// entered one (namespaces are per thread, as Linux's nsproxy), else its
/// process's.
pub fn of_thread(thread: &crate::process::Thread) -> Arc<NsSet> {
    match thread.process.fs.thread_ns(thread.tid()) {
        Some(set) => set,
        None => thread.process.ns.lock().clone(),
    }
}

/// Moves the calling `thread` into the namespaces of `set` (unshare,
/// setns), as [`switch`] does for a process: only this thread, as Linux's
/// switch_task_namespaces. The main thread's set is the process's (what
/// /proc/PID/ns shows): when it moves, the other threads keep the set
/// they had.
pub fn switch_thread(thread: &crate::process::Thread, set: Arc<NsSet>, enter_root: bool) {
    let process = &thread.process;
    let tid = thread.tid();
    if tid == process.pid && process.fs.thread_ns(tid).is_none() {
        let others: alloc::vec::Vec<crate::process::Pid> = process.threads().iter().map(|t| t.tid()).filter(|&t| t != tid).collect();
        if !others.is_empty() {
            let old = process.ns.lock().clone();
            process.fs.keep_thread_ns(&others, &old);
        }
        switch(process, set, enter_root);
        return;
    }
    let old_mnt = enter_mnt(process, &set, enter_root);
    let old_set = process.fs.set_thread_ns(tid, Some(set));
    drop(old_set);
    drop(old_mnt);
}

/// Thread `tid` of `process`, just made by clone with CLONE_NEW* flags
/// (without CLONE_FS when the mount namespace is new, so its context is a
/// copy of its creator's): its namespaces are `set`, and its context is
/// in `set`'s mount namespace, at the copies of the mounts it was in, as
/// Linux's copy_namespaces gives a thread its own nsproxy.
pub fn enter_new_thread(process: &crate::process::Process, tid: crate::process::Pid, set: Arc<NsSet>) {
    let mnt = set.mnt.clone();
    process.fs.change_own(tid, |mut fs| {
        if !Arc::ptr_eq(&fs.mnt, &mnt) {
            let old = core::mem::replace(&mut fs.mnt, mnt.clone());
            fs.root_mnt = mnt.mount_id_of(&fs.root, Some((&*old, fs.root_mnt)));
            fs.cwd_mnt = mnt.mount_id_of(&fs.cwd, Some((&*old, fs.cwd_mnt)));
        }
        fs
    });
    drop(process.fs.set_thread_ns(tid, Some(set)));
}

/// The mount-namespace half of a switch: the caller's file-system
/// context (its thread's) gets `set`'s mount namespace; returns the one
/// it had, to be dropped after the locks.
fn enter_mnt(process: &crate::process::Process, set: &NsSet, enter_root: bool) -> Option<Arc<MountNs>> {
    let (old, root, cwd, root_mnt, cwd_mnt) = {
        let mut fs = process.fs.lock();
        if Arc::ptr_eq(&fs.mnt, &set.mnt) && !enter_root {
            return None;
        }
        let old = core::mem::replace(&mut fs.mnt, set.mnt.clone());
        if enter_root {
            if let Some(root) = set.mnt.root() {
                fs.root = root.clone();
                fs.cwd = root;
                fs.cwd_path = Arc::from(&b"/"[..]);
            }
        }
        // Mount ids are the old namespace's: found again from the nodes
        // below, outside the lock (the table's lock is taken before a
        // context's elsewhere).
        let (root_mnt, cwd_mnt) = (core::mem::replace(&mut fs.root_mnt, kevlar_vfs::NO_MOUNT), core::mem::replace(&mut fs.cwd_mnt, kevlar_vfs::NO_MOUNT));
        (old, fs.root.clone(), fs.cwd.clone(), root_mnt, cwd_mnt)
    };
    // Once here, not at every walk. A copied namespace (unshare) has the
    // copies of the mounts the context was in.
    let from = |id| if enter_root { None } else { Some((&*old, id)) };
    let root_id = set.mnt.mount_id_of(&root, from(root_mnt));
    let cwd_id = set.mnt.mount_id_of(&cwd, from(cwd_mnt));
    {
        let mut fs = process.fs.lock();
        if Arc::ptr_eq(&fs.mnt, &set.mnt) && kevlar_vfs::same_inode(&*fs.root, &*root) && kevlar_vfs::same_inode(&*fs.cwd, &*cwd) {
            fs.root_mnt = root_id;
            fs.cwd_mnt = cwd_id;
        }
    }
    Some(old)
}

/// Makes the set a process gets from `old` when clone or unshare asks
/// for new namespaces with CLONE_NEW* `flags` (the caller checked the
/// flags and the privilege). `cgroup` is the cgroup that becomes a new
/// cgroup namespace's root; `user` is the user namespace the process will
/// be in (a new one with CLONE_NEWUSER), which owns the new namespaces.
pub fn copy(old: &NsSet, flags: u32, cgroup: Arc<crate::cgroup::Cgroup>, user: Arc<user::UserNs>) -> Result<Arc<NsSet>> {
    if flags & ALL_FLAGS & !SUPPORTED != 0 {
        return Err(Errno::EINVAL);
    }
    let mut set = old.clone();
    set.user = user;
    if flags & abi::CLONE_NEWNS != 0 {
        set.mnt = old.mnt.copy();
    }
    if flags & abi::CLONE_NEWUTS != 0 {
        set.uts = old.uts.copy();
    }
    if flags & abi::CLONE_NEWIPC != 0 {
        set.ipc = Arc::new(Plain { inum: alloc_inum(), ipc: true });
    }
    if flags & abi::CLONE_NEWNET != 0 {
        set.net = net::create();
    }
    if flags & abi::CLONE_NEWCGROUP != 0 {
        set.cgroup = Arc::new(CgroupNs { inum: alloc_inum(), root: cgroup });
    }
    if flags & abi::CLONE_NEWPID != 0 {
        // Linux's copy_pid_ns: only while children still go where the
        // process is (a second unshare before a fork is refused).
        if !Arc::ptr_eq(&old.pid, &old.pid_for_children) {
            return Err(Errno::EINVAL);
        }
        set.pid_for_children = pid::create(&old.pid)?;
    }
    if flags & abi::CLONE_NEWTIME != 0 {
        set.time_for_children = time::create();
    }
    user::record_owners(old, &set);
    Ok(Arc::new(set))
}

/// Returns `set` with namespace `ns` in place of the one of its kind
/// (setns); for a PID or time namespace, the one children will be in.
pub fn with(set: &NsSet, ns: &nsfs::NsRef) -> Arc<NsSet> {
    let mut new = set.clone();
    match ns {
        nsfs::NsRef::Mnt(mnt) => new.mnt = mnt.clone(),
        nsfs::NsRef::Uts(uts) => new.uts = uts.clone(),
        nsfs::NsRef::Cgroup(cg) => new.cgroup = cg.clone(),
        nsfs::NsRef::Pid(ns) => new.pid_for_children = ns.clone(),
        nsfs::NsRef::Net(ns) => new.net = ns.clone(),
        nsfs::NsRef::User(ns) => new.user = ns.clone(),
        nsfs::NsRef::Plain(kind, plain) => match kind {
            Kind::Ipc => new.ipc = plain.clone(),
            Kind::Time => new.time_for_children = plain.clone(),
            Kind::Mnt | Kind::Uts | Kind::Cgroup | Kind::Pid | Kind::Net | Kind::User => {}
        },
    }
    Arc::new(new)
}

/// Moves `process` into the namespaces of `set`. A new mount namespace
/// becomes the one its path walks see; with `enter_root` (setns into a
/// mount namespace) its root and working directory become the
/// namespace's root, as Linux's mntns_install.
pub fn switch(process: &crate::process::Process, set: Arc<NsSet>, enter_root: bool) {
    // What is replaced is dropped after the locks: the last reference to
    // a mount namespace unmounts its file systems (disk I/O).
    let old_mnt = enter_mnt(process, &set, enter_root);
    let old_set = core::mem::replace(&mut *process.ns.lock(), set);
    drop(old_set);
    drop(old_mnt);
}

/// Returns cgroup path `path` as a process whose cgroup namespace's root
/// is at `root` sees it (Linux's cgroup_path_ns): relative to the root,
/// with `..` for each level a cgroup outside it lies above.
pub fn cgroup_path_from(root: &[u8], path: &[u8]) -> alloc::vec::Vec<u8> {
    let parts = |p: &[u8]| p.split(|&b| b == b'/').filter(|c| !c.is_empty()).map(|c| c.to_vec()).collect::<alloc::vec::Vec<_>>();
    let (root, path) = (parts(root), parts(path));
    let common = root.iter().zip(path.iter()).take_while(|(a, b)| a == b).count();
    let mut out = alloc::vec::Vec::new();
    for _ in common..root.len() {
        out.extend_from_slice(b"/..");
    }
    for part in &path[common..] {
        out.push(b'/');
        out.extend_from_slice(part);
    }
    if out.is_empty() {
        out.push(b'/');
    }
    out
}
