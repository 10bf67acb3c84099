//! The mount table: which file system is mounted where, with which flags
//! and options; the file system types mount(2) can make; and what
//! /proc/PID/mounts and statfs(2) report about each.

use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::fmt::Write;
use core::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use alloc::sync::Weak;

use kevlar_platform::sync::SpinLock;
use kevlar_ext2::Ext2Fs;
use kevlar_tmpfs::{TmpFs, TmpFsOptions};
use kevlar_vfs::{Inode, MountId, MountTable, NO_MOUNT};
use linux_raw_sys::general as abi;

use crate::error::{Errno, Result};

/// The file system behind a mount, for statfs and the options
/// /proc/mounts shows.
#[derive(Clone)]
pub enum FsKind {
    /// The initramfs root (Linux's `rootfs`, a tmpfs).
    Rootfs(Arc<TmpFs>),
    /// A tmpfs instance, with the options it was mounted with.
    Tmpfs(Arc<TmpFs>, TmpfsSettings),
    /// The one devtmpfs instance.
    Devtmpfs(Arc<TmpFs>),
    /// procfs.
    Proc,
    /// sysfs.
    Sysfs,
    /// devpts (the pseudo-terminal slaves; every instance shows the same).
    Devpts,
    /// An ext2 file system on a disk.
    Ext2(Arc<Ext2Fs>),
    /// The cgroup2 hierarchy (every mount shows the one tree).
    Cgroup2,
    /// The POSIX message queues of an IPC namespace.
    Mqueue,
    /// ramfs, debugfs, tracefs or hugetlbfs (fs/simplefs.rs).
    Simple(Arc<super::simplefs::SimpleFs>),
}

/// The settings of a tmpfs mount that /proc/mounts shows when they differ
/// from the defaults.
#[derive(Clone, Copy, Debug, Default)]
pub struct TmpfsSettings {
    /// Size limit in pages (`size=`), if given.
    pub max_pages: Option<u64>,
    /// Node limit (`nr_inodes=`), if given.
    pub max_inodes: Option<u64>,
    /// Permission bits of the root (`mode=`).
    pub mode: u32,
    /// Owner of the root (`uid=`).
    pub uid: u32,
    /// Group of the root (`gid=`).
    pub gid: u32,
}

/// One mounted file system.
#[derive(Clone)]
pub struct Mount {
    /// The mount id (/proc/PID/mountinfo, fdinfo's `mnt_id`).
    pub id: u32,
    /// The id of the mount it sits on.
    pub parent_id: u32,
    /// The directory it covers (None for the root).
    pub on: Option<Arc<dyn Inode>>,
    /// The root of the mounted tree.
    pub root: Arc<dyn Inode>,
    /// The absolute path of the mount point.
    pub path: Vec<u8>,
    /// The file system type name.
    pub fstype: &'static str,
    /// The source given to mount(2) ("none" if none).
    pub source: Vec<u8>,
    /// MS_* flags that apply to the mount (MS_RDONLY, MS_NOSUID, ...).
    pub flags: u32,
    /// The file system behind it.
    pub kind: FsKind,
    /// Propagation: the peer group it shares mounts with (0: not shared),
    /// the group it receives them from (0: not a slave), unbindable.
    pub prop: super::propagation::Propagation,
    /// (device, inode) of `on` and of `root`, compared on every step of
    /// every path walk without calling into the nodes.
    on_key: Option<(u64, u64)>,
    root_key: (u64, u64),
}

/// Returns a node's (device, inode) pair.
fn key(node: &dyn Inode) -> (u64, u64) {
    (node.fs_id(), node.ino())
}

/// A mount namespace: its own table of mounts, the root first, in the
/// order they were made; and the filters that let path walks skip the
/// table (every step of every walk asks it).
pub struct MountNs {
    /// The namespace's nsfs inode number (/proc/PID/ns/mnt).
    pub inum: u64,
    pub(super) mounts: SpinLock<Vec<Mount>>,
    /// Whether anything is mounted besides the root.
    has_mounts: AtomicBool,
    /// One bit per covered directory's inode number (modulo 64): a node
    /// whose bit is clear has nothing mounted on it.
    covered: AtomicU64,
    /// The union of every mount's flags: a flag no mount has needs no lookup.
    any_flags: AtomicU32,
    /// One bit per first path component of a procfs mount point (a hash
    /// modulo 64): a path whose bit is clear does not lead through procfs.
    proc_filter: AtomicU64,
    /// Changes to this namespace's table so far (Linux's mnt_ns event
    /// count: what polling /proc/PID/mountinfo reports).
    events: AtomicU64,
    /// A detached tree's namespace (fsmount, open_tree with
    /// OPEN_TREE_CLONE: Linux's anonymous mount namespace), no process's.
    pub(super) anonymous: bool,
    /// The table's index (`fs/mount_index.rs`), taken only under the
    /// table's lock.
    index: SpinLock<super::mount_index::MountIndex>,
}

/// Linux's initial mount namespace's inode number.
const INIT_MNT_INUM: u64 = 0xF000_0001;

/// The initial namespace (boot's).
static INIT_NS: SpinLock<Option<Arc<MountNs>>> = SpinLock::new(None);
/// Every namespace made (for what is global: the disks mounted anywhere,
/// sync, the union of flags).
static ALL_NS: SpinLock<Vec<Weak<MountNs>>> = SpinLock::new(Vec::new());

/// The union of every namespace's mount flags.
static ANY_FLAGS: AtomicU32 = AtomicU32::new(0);

impl MountNs {
    fn new(inum: u64, mounts: Vec<Mount>) -> Arc<MountNs> {
        Self::make(inum, mounts, false)
    }

    /// Makes the anonymous namespace of a detached tree (its root first).
    pub(super) fn new_anonymous(mounts: Vec<Mount>) -> Arc<MountNs> {
        Self::make(0, mounts, true)
    }

    fn make(inum: u64, mounts: Vec<Mount>, anonymous: bool) -> Arc<MountNs> {
        let ns = Arc::new(MountNs { inum, mounts: SpinLock::new(mounts), has_mounts: AtomicBool::new(false), covered: AtomicU64::new(0), any_flags: AtomicU32::new(0), proc_filter: AtomicU64::new(0), events: AtomicU64::new(0), anonymous, index: SpinLock::new(Default::default()) });
        ns.update_filters(&ns.mounts.lock());
        let mut all = ALL_NS.lock();
        all.retain(|w| w.strong_count() > 0);
        all.push(Arc::downgrade(&ns));
        ns
    }

    /// Recomputes the filters after the table changed.
    pub(super) fn update_filters(&self, mounts: &[Mount]) {
        self.index.lock().update(mounts);
        self.events.fetch_add(1, Ordering::AcqRel);
        super::file::notify_pollers();
        let filter = mounts.iter().filter_map(|m| m.on_key).fold(0, |f, (_, ino)| f | filter_bit(ino));
        self.covered.store(filter, Ordering::Release);
        self.any_flags.store(mounts.iter().fold(0, |f, m| f | m.flags), Ordering::Release);
        let proc_filter = mounts.iter().filter(|m| matches!(m.kind, FsKind::Proc)).fold(0, |f, m| f | first_component_bit(&m.path));
        self.proc_filter.store(proc_filter, Ordering::Release);
        self.has_mounts.store(mounts.iter().any(|m| m.on.is_some()), Ordering::Release);
        let any = all_namespaces().iter().fold(self.any_flags.load(Ordering::Acquire), |f, ns| f | ns.any_flags.load(Ordering::Acquire));
        ANY_FLAGS.store(any, Ordering::Release);
    }

    /// Makes a new namespace with a copy of this one's mounts (new ids;
    /// the copies stay in their peer groups, as Linux's copy_mnt_ns).
    pub fn copy(&self) -> Arc<MountNs> {
        let mut mounts = self.mounts.lock().clone();
        let mut ids = Vec::with_capacity(mounts.len());
        for m in mounts.iter_mut() {
            let id = NEXT_MOUNT_ID.fetch_add(1, Ordering::Relaxed);
            ids.push((m.id, id));
            m.id = id;
        }
        for m in mounts.iter_mut() {
            if let Some(&(_, new)) = ids.iter().find(|(old, _)| *old == m.parent_id) {
                m.parent_id = new;
            }
        }
        MountNs::new(crate::ns::alloc_inum(), mounts)
    }

    /// Returns the root of the namespace's root mount.
    pub fn root(&self) -> Option<Arc<dyn Inode>> {
        self.mounts.lock().first().map(|m| m.root.clone())
    }

    /// Returns every mount, the root first.
    pub fn list(&self) -> Vec<Mount> {
        self.mounts.lock().clone()
    }

    /// Returns how many times this namespace's table changed.
    pub fn changes(&self) -> u64 {
        self.events.load(Ordering::Acquire)
    }

    /// Returns the id of a mount whose root is `node` (NO_MOUNT if none):
    /// where a walk starting at a directory whose mount is not known
    /// begins (a process root, a working directory after unshare). The
    /// namespace's root mount if it is rooted there (a process root), else
    /// the last made (the one on top).
    pub fn mount_rooted_at(&self, node: &Arc<dyn Inode>) -> MountId {
        if !self.has_mounts.load(Ordering::Acquire) {
            return NO_MOUNT;
        }
        let k = key(&**node);
        let mounts = self.mounts.lock();
        if let Some(first) = mounts.first().filter(|m| m.root_key == k) {
            return first.id;
        }
        self.last_rooted_at(&mounts, k).map_or(NO_MOUNT, |p| mounts[p].id)
    }

    /// Returns the id of the mount a context rooted or working at `node`
    /// is in, computed once when the context is made or changes
    /// namespace (so walks need not look it up): `old` (an id in
    /// namespace `from`) when this namespace is a copy of `from` (the
    /// copy at the same place), else the mount rooted at `node` as
    /// [`MountNs::mount_rooted_at`] finds it; NO_MOUNT if none.
    pub fn mount_id_of(&self, node: &Arc<dyn Inode>, from: Option<(&MountNs, MountId)>) -> MountId {
        let k = key(&**node);
        let same_place = from.filter(|(f, _)| !core::ptr::eq(*f, self)).and_then(|(f, old)| {
            let (index, on_key, root_key) = {
                let theirs = f.mounts.lock();
                let index = f.position_of(&theirs, old)?;
                (index, theirs[index].on_key, theirs[index].root_key)
            };
            let mounts = self.mounts.lock();
            mounts.get(index).filter(|m| m.on_key == on_key && m.root_key == root_key).map(|m| m.id)
        });
        if let Some(id) = same_place {
            return id;
        }
        let mounts = self.mounts.lock();
        if let Some(first) = mounts.first().filter(|m| m.root_key == k) {
            return first.id;
        }
        self.last_rooted_at(&mounts, k).map_or(NO_MOUNT, |p| mounts[p].id)
    }

    /// Looks a position up in the index of `mounts` (this table, locked):
    /// `find` asks the index; what it finds must satisfy `pred`, else (or
    /// with an index not up to date) the table is scanned for the first
    /// (or with `last`, the last) mount that does.
    fn find_pos(&self, mounts: &[Mount], find: impl FnOnce(&super::mount_index::MountIndex) -> Option<usize>, pred: impl Fn(&Mount) -> bool, last: bool) -> Option<usize> {
        let found = {
            let index = self.index.lock();
            (index.len() == mounts.len()).then(|| find(&index))
        };
        match found {
            Some(None) => return None,
            Some(Some(p)) if mounts.get(p).is_some_and(&pred) => return Some(p),
            _ => {}
        }
        if last { mounts.iter().rposition(pred) } else { mounts.iter().position(pred) }
    }

    /// The position of the mount with id `id` in `mounts` (this table).
    pub(super) fn position_of(&self, mounts: &[Mount], id: u32) -> Option<usize> {
        self.find_pos(mounts, |i| i.position(id), |m| m.id == id, false)
    }

    /// The position of the last mount rooted at `k` in `mounts`.
    fn last_rooted_at(&self, mounts: &[Mount], k: (u64, u64)) -> Option<usize> {
        self.find_pos(mounts, |i| i.rooted_at(k).last().copied(), |m| m.root_key == k, true)
    }

    /// How many mounts the namespace has (Linux's mnt_ns->mounts).
    pub fn count(&self) -> usize {
        self.mounts.lock().len()
    }

    /// Returns the MS_* flags of the mount with id `mnt` if it holds a
    /// node of file system `fs_id` (no copy of the record: every
    /// permission check of a walk asks).
    fn flags_by_id(&self, mnt: MountId, fs_id: u64) -> Option<u32> {
        let mounts = self.mounts.lock();
        let p = self.position_of(&mounts, mnt)?;
        (mounts[p].root_key.0 == fs_id).then_some(mounts[p].flags)
    }

    /// Tells whether mount `mnt` of this namespace holds a node of file
    /// system `fs_id`.
    pub fn holds(&self, mnt: MountId, fs_id: u64) -> bool {
        mnt != NO_MOUNT && self.flags_by_id(mnt, fs_id).is_some()
    }

    /// Returns the mount with id `mnt` if it holds `node` (is of its file
    /// system).
    pub fn mount_by_id(&self, mnt: MountId, node: &dyn Inode) -> Option<Mount> {
        if mnt == NO_MOUNT {
            return None;
        }
        let fs_id = node.fs_id();
        let mounts = self.mounts.lock();
        let p = self.position_of(&mounts, mnt)?;
        (mounts[p].root_key.0 == fs_id).then(|| mounts[p].clone())
    }
}

impl Drop for MountNs {
    /// The last process of a namespace is gone: its mounts go (Linux's
    /// put_mnt_ns). The last reference may go anywhere (a reap, a
    /// scheduler's release of a thread), so what unmounting needs (inotify
    /// events, a disk file system's flush) is left to [`finish_orphans`].
    fn drop(&mut self) {
        let mounts = core::mem::take(&mut *self.mounts.lock());
        let mut orphans = ORPHANS.lock();
        for m in mounts {
            // A detached tree's root too: it was mounted nowhere else.
            if m.on.is_some() || self.anonymous {
                orphans.push(m.kind);
            }
        }
    }
}

/// The file systems of mounts whose namespace went away, until
/// [`finish_orphans`] unmounts those mounted nowhere else.
static ORPHANS: SpinLock<Vec<FsKind>> = SpinLock::new(Vec::new());

/// Unmounts the file systems left by namespaces that went away and are
/// mounted in no other (inotify's IN_UNMOUNT, a disk file system marked
/// clean and flushed); called from process context (mount, umount,
/// sync, unshare, setns).
pub fn finish_orphans() {
    let orphans = core::mem::take(&mut *ORPHANS.lock());
    if orphans.is_empty() {
        return;
    }
    let live = all_namespaces();
    let any = live.iter().fold(0, |f, ns| f | ns.any_flags.load(Ordering::Acquire));
    ANY_FLAGS.store(any, Ordering::Release);
    let mut done: Vec<u64> = Vec::new();
    for kind in orphans {
        let fs_id = match &kind {
            FsKind::Rootfs(fs) | FsKind::Tmpfs(fs, _) | FsKind::Devtmpfs(fs) => fs.root().fs_id(),
            FsKind::Ext2(fs) => fs.root().fs_id(),
            FsKind::Simple(fs) => fs.tmpfs().root().fs_id(),
            _ => continue,
        };
        if done.contains(&fs_id) || live.iter().any(|ns| ns.mounts.lock().iter().any(|m| m.root.fs_id() == fs_id)) {
            continue;
        }
        done.push(fs_id);
        super::notify::unmounted(fs_id);
        super::superblock::forget(fs_id);
        if let FsKind::Ext2(fs) = &kind {
            if let Err(e) = fs.unmount() {
                log::warn!("umount: ext2: {:?}", e);
            }
        }
    }
}

/// Returns every live namespace.
pub(super) fn all_namespaces() -> Vec<Arc<MountNs>> {
    ALL_NS.lock().iter().filter_map(Weak::upgrade).collect()
}

/// Returns the initial mount namespace (made at first use).
pub fn init_ns() -> Arc<MountNs> {
    let mut slot = INIT_NS.lock();
    if let Some(ns) = slot.as_ref() {
        return ns.clone();
    }
    let ns = MountNs::new(INIT_MNT_INUM, Vec::new());
    *slot = Some(ns.clone());
    ns
}

/// Returns the calling process's mount namespace (the initial one when
/// no process is running).
pub fn current_ns() -> Arc<MountNs> {
    crate::ns::current().mnt.clone()
}

fn filter_bit(ino: u64) -> u64 {
    // The inode number alone: asking a node for its device too costs more
    // than the false matches it would avoid.
    1 << (ino % 64)
}

fn first_component_bit(path: &[u8]) -> u64 {
    let first = path.iter().skip_while(|&&b| b == b'/').take_while(|&&b| b != b'/');
    let hash = first.fold(0xcbf2_9ce4_8422_2325u64, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3));
    1 << (hash % 64)
}

/// Adds a mount to the calling process's namespace (and, through
/// propagation, to the peers and slaves of the mount it sits on).
pub(super) fn add(mut mount: Mount) {
    mount.on_key = mount.on.as_deref().map(key);
    mount.root_key = key(&*mount.root);
    let ns = current_ns();
    super::propagation::add_propagated(&ns, mount);
}

/// Fills in a mount's keys (for a copy made by propagation).
pub(super) fn with_keys(mut mount: Mount) -> Mount {
    mount.on_key = mount.on.as_deref().map(key);
    mount.root_key = key(&*mount.root);
    mount
}

/// Makes the root mount of a detached tree (fsmount, open_tree): a new
/// id, on nothing, private.
pub(super) fn detached_mount(root: Arc<dyn Inode>, fstype: &'static str, source: Vec<u8>, flags: u32, kind: FsKind) -> Mount {
    let root_key = key(&*root);
    Mount { id: NEXT_MOUNT_ID.fetch_add(1, Ordering::Relaxed), parent_id: 0, on: None, root, path: b"/".to_vec(), fstype, source, flags: flags & MOUNT_FLAGS_SETATTR, kind, prop: Default::default(), on_key: None, root_key }
}

pub(super) static NEXT_MOUNT_ID: AtomicU32 = AtomicU32::new(1);

/// fs.mount-max (/proc/sys/fs/mount-max): how many mounts one namespace
/// may hold, 100,000 by default as Linux's.
pub static MOUNT_MAX: AtomicU32 = AtomicU32::new(100_000);

/// Fails with ENOSPC if `adding` more mounts would take namespace `ns`
/// past fs.mount-max (Linux's count_mounts: every mount of the
/// namespace counts, its root too, whoever made it).
pub(super) fn check_room(ns: &MountNs, adding: usize) -> Result<()> {
    let max = MOUNT_MAX.load(Ordering::Relaxed) as usize;
    let have = ns.count();
    if have >= max || adding > max - have {
        return Err(Errno::ENOSPC);
    }
    Ok(())
}

/// Device numbers of file systems without a device (Linux's anonymous
/// `0:N`), above the ones kevlar_tmpfs hands out by itself.
static NEXT_ANON_DEV: AtomicU64 = AtomicU64::new(0x100);

/// Returns a fresh anonymous device number.
pub fn anon_dev() -> u64 {
    super::initramfs::make_rdev(0, NEXT_ANON_DEV.fetch_add(1, Ordering::Relaxed) as u32)
}

/// Flags a mount may carry (MS_REMOUNT changes only these).
pub(super) const MOUNT_FLAGS: u32 = abi::MS_RDONLY | abi::MS_NOSUID | abi::MS_NODEV | abi::MS_NOEXEC | abi::MS_NOATIME | abi::MS_NODIRATIME | abi::MS_RELATIME | abi::MS_STRICTATIME;

/// Flags mount_setattr and fsmount may give a mount (MOUNT_ATTR_* as
/// MS_*): MS_NOSYMFOLLOW too.
pub(super) const MOUNT_FLAGS_SETATTR: u32 = MOUNT_FLAGS | abi::MS_NOSYMFOLLOW;

/// The path walker's view of a namespace's mount table.
impl MountTable for MountNs {
    fn mounted_at(&self, dir: &Arc<dyn Inode>) -> Option<Arc<dyn Inode>> {
        // Every step of every walk asks: rule most nodes out with the
        // filter before taking the lock.
        let filter = self.covered.load(Ordering::Acquire);
        if filter == 0 || filter & filter_bit(dir.ino()) == 0 {
            return None;
        }
        let k = key(&**dir);
        // A directory bound over itself (`mount --bind /usr /usr`) leads
        // to itself: the walk stays (the mount's flags are found by
        // `flags_of`).
        let mounts = self.mounts.lock();
        let p = self.find_pos(&mounts, |i| i.crossing_on(k), |m| m.on_key == Some(k) && m.root_key != k, true)?;
        Some(mounts[p].root.clone())
    }

    fn mount_parent(&self, root_of_mounted: &Arc<dyn Inode>) -> Option<Arc<dyn Inode>> {
        if !self.has_mounts.load(Ordering::Acquire) {
            return None;
        }
        let k = key(&**root_of_mounted);
        let mounts = self.mounts.lock();
        let p = self.find_pos(&mounts, |i| i.crossing_root(k), |m| m.on_key.is_some() && m.on_key != Some(k) && m.root_key == k, true)?;
        mounts[p].on.clone()
    }

    fn mounted_on(&self, mnt: MountId, dir: &Arc<dyn Inode>) -> Option<(Arc<dyn Inode>, MountId)> {
        let filter = self.covered.load(Ordering::Acquire);
        if filter == 0 || filter & filter_bit(dir.ino()) == 0 {
            return None;
        }
        let k = key(&**dir);
        let mounts = self.mounts.lock();
        if mnt != NO_MOUNT {
            // Linux's lookup_mnt: the mount on this directory of this
            // mount (the last made, when several are stacked there).
            if let Some(p) = self.find_pos(&mounts, |i| i.on_of(mnt, k), |m| m.parent_id == mnt && m.on_key == Some(k), true) {
                return Some((mounts[p].root.clone(), mounts[p].id));
            }
            if self.position_of(&mounts, mnt).is_some() {
                return None;
            }
        }
        // The walk's mount is not known: by inodes alone (a directory
        // bound over itself is then not entered).
        let p = self.find_pos(&mounts, |i| i.crossing_on(k), |m| m.on_key == Some(k) && m.root_key != k, true)?;
        Some((mounts[p].root.clone(), mounts[p].id))
    }

    fn protected_symlinks(&self) -> bool {
        super::sysctl::PROTECTED_SYMLINKS.load(Ordering::Relaxed) != 0
    }

    fn no_symlinks(&self, mnt: MountId) -> bool {
        if mnt == NO_MOUNT || self.any_flags.load(Ordering::Acquire) & abi::MS_NOSYMFOLLOW == 0 {
            return false;
        }
        let mounts = self.mounts.lock();
        let found = self.position_of(&mounts, mnt).is_some_and(|p| mounts[p].flags & abi::MS_NOSYMFOLLOW != 0);
        found
    }

    fn mount_point_of(&self, mnt: MountId, root: &Arc<dyn Inode>) -> Option<(Arc<dyn Inode>, MountId)> {
        if !self.has_mounts.load(Ordering::Acquire) {
            return None;
        }
        let k = key(&**root);
        let mounts = self.mounts.lock();
        if mnt != NO_MOUNT {
            if let Some(p) = self.position_of(&mounts, mnt) {
                let m = &mounts[p];
                if m.root_key != k {
                    return None;
                }
                let on = m.on.clone()?;
                return Some((on, m.parent_id));
            }
        }
        let p = self.find_pos(&mounts, |i| i.crossing_root(k), |m| m.on_key.is_some() && m.on_key != Some(k) && m.root_key == k, true)?;
        Some((mounts[p].on.clone()?, mounts[p].parent_id))
    }

    fn max_crossings(&self) -> u32 {
        // Each step of a walk through stacked mounts enters another mount
        // of the table; more steps than mounts is a cycle.
        u32::try_from(self.mounts.lock().len()).unwrap_or(u32::MAX).saturating_add(1)
    }
}

/// Records the initramfs root as the first mount.
pub fn set_root(fs: Arc<TmpFs>) {
    let ns = init_ns();
    let mut mounts = ns.mounts.lock();
    mounts.retain(|m| m.on.is_some());
    let mount = Mount {
        id: NEXT_MOUNT_ID.fetch_add(1, Ordering::Relaxed),
        parent_id: 0,
        on: None,
        root: fs.root(),
        path: b"/".to_vec(),
        fstype: "rootfs",
        source: b"rootfs".to_vec(),
        flags: 0,
        on_key: None,
        root_key: key(&*fs.root()),
        kind: FsKind::Rootfs(fs),
        prop: Default::default(),
    };
    mounts.insert(0, mount);
    ns.update_filters(&mounts);
}

/// Returns every mount of the calling process's namespace, the root first.
pub fn mounts() -> Vec<Mount> {
    current_ns().list()
}

/// Returns where mount `m` is seen from `fs`'s root, as /proc/PID/mounts
/// shows it: "/" for the mount at that root, the mount point's path below
/// that root otherwise, None for a mount outside it (after chroot(2),
/// Linux hides those). Computed when asked, since `Mount::path` is the
/// path in the view of whoever mounted it.
///
/// `names` is the reader's cache of directory entries' names
/// (`fs::mount_root::NameCache`), so a read of the whole table lists each
/// directory once.
pub fn visible_path(fs: &super::FsContext, m: &Mount, names: &mut super::mount_root::NameCache) -> Option<Vec<u8>> {
    let on = m.on.clone();
    let found = on.clone().and_then(|on| super::dir_path_with(fs, on, Some(&mut *names)).ok());
    // A mount made through another path to its mount point (a recursive
    // bind of a tree elsewhere: systemd's /run/systemd/unit-root), or on
    // a file: shown where it was made while that path still leads to it
    // (as Linux, whose copy of the tree has its own mount points).
    if on.is_some() && found.as_deref() != Some(m.path.as_slice()) && m.path.starts_with(b"/") && leads_to(fs, &m.path, &m.root) {
        return Some(m.path.clone());
    }
    if kevlar_vfs::same_inode(&*m.root, &*fs.root) {
        // The mount at the process's root, unless it is a bind of that
        // directory somewhere below it (`mount --rbind / /run/x`).
        return match found {
            Some(path) if path != b"/" && leads_to(fs, &path, &m.root) => Some(path),
            _ => Some(b"/".to_vec()),
        };
    }
    found
}

/// Tells whether `path` leads (in `fs`, without following a last
/// symlink) to `node`.
fn leads_to(fs: &super::FsContext, path: &[u8], node: &Arc<dyn Inode>) -> bool {
    let cred = kevlar_vfs::Credentials::root();
    fs.lookup(&cred, None, path, kevlar_vfs::WalkFlags::NOFOLLOW).is_ok_and(|found| kevlar_vfs::same_inode(&*found, &**node))
}

/// Returns the path of a new mount point `on`, named `target` by the
/// caller: the path it was reached by, with symlinks and magic links
/// (/proc/self/fd/N, how systemd names every mount point) resolved, so a
/// mount made through a bind of a tree elsewhere is recorded there; the
/// directory's real path if that walk fails.
pub fn mount_point_path(fs: &super::FsContext, on: &Arc<dyn Inode>, target: &[u8]) -> Vec<u8> {
    let written = super::FsContext::absolute(&fs.cwd_path, target);
    match super::canonical_path(fs, &written) {
        Ok((path, node)) if kevlar_vfs::same_inode(&*node, &**on) => path,
        _ => super::dir_path(fs, on.clone()).unwrap_or(written),
    }
}

/// Returns the mount whose file system holds `node` (the last made, if
/// one file system is mounted twice).
pub fn mount_of(node: &dyn Inode) -> Option<Mount> {
    let fs_id = node.fs_id();
    let candidates: Vec<Mount> = current_ns().mounts.lock().iter().rev().filter(|m| m.root_key.0 == fs_id).cloned().collect();
    if candidates.len() > 1 && node.file_type().is_dir() {
        // Bind mounts show parts of the file system again: the innermost
        // mount root above the directory holds it.
        let keys: Vec<((u64, u64), u32)> = candidates.iter().enumerate().map(|(i, m)| (m.root_key, i as u32)).collect();
        if let Some(i) = flags_above(node, &keys) {
            return candidates.into_iter().nth(i as usize);
        }
    }
    candidates.into_iter().next()
}

/// Returns the mount `node` was reached through: mount `mnt` as the walk
/// found it, else (not known) the nearest one [`mount_of`] finds.
pub fn mount_at(mnt: MountId, node: &dyn Inode) -> Option<Mount> {
    find_mount(mnt, node).or_else(|| mount_of(node))
}

/// Finds mount `mnt` holding `node`: in the caller's namespace, else in a
/// detached tree (a descriptor from fsmount or open_tree).
fn find_mount(mnt: MountId, node: &dyn Inode) -> Option<Mount> {
    if mnt == NO_MOUNT {
        return None;
    }
    current_ns().mount_by_id(mnt, node).or_else(|| all_namespaces().iter().filter(|ns| ns.anonymous).find_map(|ns| ns.mount_by_id(mnt, node)))
}

/// Returns the MS_* flags of mount `mnt` holding `node` (the walk's
/// mount: bind mounts of one file system each have their own); when the
/// mount is not known, the nearest one's ([`flags_of`]).
pub fn flags_at(mnt: MountId, node: &dyn Inode) -> u32 {
    // A read-only file system makes every mount of it read-only.
    let fs_id = node.fs_id();
    let sb = super::superblock::flags(fs_id);
    if ANY_FLAGS.load(Ordering::Acquire) == 0 {
        return sb;
    }
    if mnt != NO_MOUNT {
        let found = current_ns().flags_by_id(mnt, fs_id).or_else(|| all_namespaces().iter().filter(|ns| ns.anonymous).find_map(|ns| ns.flags_by_id(mnt, fs_id)));
        if let Some(flags) = found {
            return flags | sb;
        }
    }
    flags_of(node)
}

/// Fails with EROFS if mount `mnt` holding `node` is read-only.
pub fn check_writable_at(mnt: MountId, node: &dyn Inode) -> Result<()> {
    if has_flag_at(mnt, node, abi::MS_RDONLY) { Err(Errno::EROFS) } else { Ok(()) }
}

/// Tells whether mount `mnt` holding `node` has `flag`.
pub fn has_flag_at(mnt: MountId, node: &dyn Inode, flag: u32) -> bool {
    (ANY_FLAGS.load(Ordering::Acquire) & flag != 0 || super::superblock::any()) && flags_at(mnt, node) & flag != 0
}

/// Returns the MS_* flags of the mount holding `node` (0 if none).
pub fn flags_of(node: &dyn Inode) -> u32 {
    let sb = super::superblock::flags(node.fs_id());
    flags_of_mounts(node) | sb
}

/// [`flags_of`] without the file system's own flags.
fn flags_of_mounts(node: &dyn Inode) -> u32 {
    if ANY_FLAGS.load(Ordering::Acquire) == 0 {
        return 0;
    }
    let fs_id = node.fs_id();
    let ns = current_ns();
    if ns.any_flags.load(Ordering::Acquire) == 0 {
        return 0;
    }
    // The mounts of this file system (one, unless bind mounts show parts
    // of it again): their roots and flags.
    let candidates: Vec<((u64, u64), u32)> = ns.mounts.lock().iter().rev().filter(|m| m.root_key.0 == fs_id).map(|m| (m.root_key, m.flags)).collect();
    let Some(&(_, last)) = candidates.first() else { return 0 };
    if candidates.iter().all(|&(_, f)| f == last) || !node.file_type().is_dir() {
        return last;
    }
    // Bind mounts with different flags (a read-only bind of /usr over a
    // writable root): the innermost mount root above the directory
    // decides, found by walking up with "..".
    flags_above(node, &candidates).unwrap_or(last)
}

/// The value paired with the first of `candidates` (mount roots and
/// flags or indexes, the last made first) whose root is directory `dir`
/// or the nearest above it.
fn flags_above(dir: &dyn Inode, candidates: &[((u64, u64), u32)]) -> Option<u32> {
    let mut here = (dir.fs_id(), dir.ino());
    let mut node: Option<Arc<dyn Inode>> = None;
    for _ in 0..4096 {
        if let Some(&(_, flags)) = candidates.iter().find(|(k, _)| *k == here) {
            return Some(flags);
        }
        let parent = match &node {
            Some(n) => n.lookup(b"..").ok()?,
            None => dir.lookup(b"..").ok()?,
        };
        let next = key(&*parent);
        if next == here {
            return None;
        }
        here = next;
        node = Some(parent);
    }
    None
}

/// Tells whether the file system of `node` is mounted more than once with
/// different flags in the caller's namespace (then a file's flags depend
/// on its directory: see [`check_writable_in`]).
pub fn flags_vary(node: &dyn Inode) -> bool {
    if ANY_FLAGS.load(Ordering::Acquire) == 0 {
        return false;
    }
    let fs_id = node.fs_id();
    let ns = current_ns();
    let mounts = ns.mounts.lock();
    let mut flags = mounts.iter().filter(|m| m.root_key.0 == fs_id).map(|m| m.flags);
    let first = flags.next();
    let varies = flags.any(|f| Some(f) != first);
    varies
}

/// Fails with EROFS if file `node` in directory `dir` is on a read-only
/// mount (the directory tells which bind mount holds it).
pub fn check_writable_in(dir: &dyn Inode, node: &dyn Inode) -> Result<()> {
    if node.file_type().is_dir() || !flags_vary(node) {
        return check_writable(node);
    }
    check_writable(dir)
}

/// Fails with EROFS if `node` is on a read-only mount.
pub fn check_writable(node: &dyn Inode) -> Result<()> {
    if has_flag(node, abi::MS_RDONLY) { Err(Errno::EROFS) } else { Ok(()) }
}

/// Tells whether the mount holding `node` has `flag` (without looking it
/// up when no mount has it).
pub fn has_flag(node: &dyn Inode, flag: u32) -> bool {
    (ANY_FLAGS.load(Ordering::Acquire) & flag != 0 || super::superblock::any()) && flags_of(node) & flag != 0
}

/// The single devtmpfs instance: every mount of devtmpfs shows the same
/// tree, as on Linux.
static DEVTMPFS: SpinLock<Option<Arc<TmpFs>>> = SpinLock::new(None);

/// Returns devtmpfs, making it (with the kernel's device nodes) at first use.
pub fn devtmpfs() -> Result<Arc<TmpFs>> {
    let mut slot = DEVTMPFS.lock();
    if let Some(fs) = slot.as_ref() {
        return Ok(fs.clone());
    }
    let options = TmpFsOptions { dev: Some(anon_dev()), root_mode: 0o755, ..TmpFsOptions::default() };
    let fs = super::pages::new_tmpfs(options);
    super::initramfs::populate_devtmpfs(&fs.root())?;
    *slot = Some(fs.clone());
    Ok(fs)
}

/// Adds the block-device node `name` to devtmpfs, if it exists (a
/// partition found by a rescan), mode 0660 as Linux gives disks.
pub fn devtmpfs_add(name: &[u8], rdev: u64) {
    let fs = DEVTMPFS.lock().clone();
    if let Some(fs) = fs {
        let root = fs.root();
        if root.lookup(name).is_err() {
            let _ = root.create(name, kevlar_vfs::FileType::BlockDevice, 0o660, 0, 0, rdev);
        }
    }
}

/// Removes the node `name` from devtmpfs, if it exists (a partition a
/// rescan dropped).
pub fn devtmpfs_remove(name: &[u8]) {
    let fs = DEVTMPFS.lock().clone();
    if let Some(fs) = fs {
        let _ = fs.root().unlink(name);
        super::path_memo::names_changed();
    }
}

/// Parses tmpfs's mount options (`size=`, `nr_inodes=`, `mode=`, `uid=`,
/// `gid=`); anything else gives EINVAL, as Linux's tmpfs.
pub(super) fn parse_tmpfs_options(data: &[u8]) -> Result<TmpfsSettings> {
    // The root is the mounter's (its file-system ids) unless `uid=` and
    // `gid=` name others, in its user namespace (Linux's shmem).
    let creds = crate::process::current().map(|t| t.process.creds.lock().clone()).unwrap_or_default();
    let mut settings = TmpfsSettings { mode: 0o1777, uid: creds.fsuid, gid: creds.fsgid, ..TmpfsSettings::default() };
    let total_pages = kevlar_platform::mm::pmm::stats().total_bytes as u64 / 4096;
    for option in data.split(|&b| b == b',').filter(|o| !o.is_empty()) {
        let (key, value) = match option.iter().position(|&b| b == b'=') {
            Some(i) => (&option[..i], &option[i + 1..]),
            None => (option, &b""[..]),
        };
        let text = core::str::from_utf8(value).map_err(|_| Errno::EINVAL)?;
        match key {
            b"size" => {
                let pages = if let Some(percent) = text.strip_suffix('%') {
                    total_pages * percent.parse::<u64>().map_err(|_| Errno::EINVAL)? / 100
                } else {
                    parse_size(text)?.div_ceil(4096)
                };
                settings.max_pages = Some(pages);
            }
            b"nr_inodes" => settings.max_inodes = Some(parse_size(text)?),
            b"mode" => settings.mode = u32::from_str_radix(text, 8).map_err(|_| Errno::EINVAL)? & 0o7777,
            b"uid" => settings.uid = text.parse().ok().and_then(|id| creds.user_ns.uid_down(id)).ok_or(Errno::EINVAL)?,
            b"gid" => settings.gid = text.parse().ok().and_then(|id| creds.user_ns.gid_down(id)).ok_or(Errno::EINVAL)?,
            _ => return Err(Errno::EINVAL),
        }
    }
    Ok(settings)
}

/// A tmpfs limit as Linux applies it: half of RAM's pages when not
/// given, none when given as 0.
/// A tmpfs reconfigured (fspick's FSCONFIG_CMD_RECONFIGURE) with
/// `size=` and `nr_inodes=` (each when given, in the units of
/// [`TmpfsSettings`], 0 lifting the limit): the budgets change, EINVAL
/// if below what is in use or put on an unlimited one, and every mount of
/// it shows the new values (Linux keeps them in the superblock).
pub fn reconfigure_tmpfs(fs: &Arc<TmpFs>, max_pages: Option<u64>, max_inodes: Option<u64>) -> Result<()> {
    let budget = |v: Option<u64>| v.map(|n| if n == 0 { None } else { Some(n) });
    fs.set_limits(budget(max_pages), budget(max_inodes))?;
    for ns in all_namespaces() {
        let mut mounts = ns.mounts.lock();
        for m in mounts.iter_mut() {
            if let FsKind::Tmpfs(f, settings) = &mut m.kind {
                if Arc::ptr_eq(f, fs) {
                    settings.max_pages = max_pages.or(settings.max_pages);
                    settings.max_inodes = max_inodes.or(settings.max_inodes);
                }
            }
        }
    }
    Ok(())
}

fn default_half_ram(limit: Option<u64>) -> Option<u64> {
    match limit {
        None => Some((kevlar_platform::mm::pmm::stats().total_bytes / 4096 / 2) as u64),
        Some(0) => None,
        Some(n) => Some(n),
    }
}

/// Parses a number with an optional k, m or g suffix.
fn parse_size(text: &str) -> Result<u64> {
    let (digits, shift) = match text.as_bytes().last() {
        Some(b'k' | b'K') => (&text[..text.len() - 1], 10),
        Some(b'm' | b'M') => (&text[..text.len() - 1], 20),
        Some(b'g' | b'G') => (&text[..text.len() - 1], 30),
        _ => (text, 0),
    };
    digits.parse::<u64>().ok().and_then(|n| n.checked_mul(1 << shift)).ok_or(Errno::EINVAL)
}

/// Makes a new instance of file system type `fstype` with options `data`.
pub(super) fn make_fs(fstype: &[u8], data: &[u8]) -> Result<(&'static str, Arc<dyn Inode>, FsKind)> {
    match fstype {
        b"proc" => Ok(("proc", super::procfs::root(), FsKind::Proc)),
        b"sysfs" => Ok(("sysfs", super::sysfs::root(), FsKind::Sysfs)),
        b"cgroup2" => Ok(("cgroup2", crate::cgroup::fs::mount(data)?, FsKind::Cgroup2)),
        b"devpts" => Ok(("devpts", crate::tty::devpts::mount(data)?, FsKind::Devpts)),
        b"mqueue" => Ok(("mqueue", crate::ipc::mqueue_fs::mount(data)?, FsKind::Mqueue)),
        b"devtmpfs" => {
            let fs = devtmpfs()?;
            Ok(("devtmpfs", fs.root(), FsKind::Devtmpfs(fs)))
        }
        _ if super::simplefs::SimpleType::by_name(fstype).is_some() => {
            super::simplefs::make(super::simplefs::SimpleType::by_name(fstype).expect("matched"), data)
        }
        b"tmpfs" => {
            let settings = parse_tmpfs_options(data)?;
            let options = TmpFsOptions {
                dev: Some(anon_dev()),
                root_mode: settings.mode,
                root_uid: settings.uid,
                root_gid: settings.gid,
                // Linux's default limits: half of RAM in pages and in
                // nodes (so a user filling /tmp gets ENOSPC long before
                // memory runs out); 0 means unlimited.
                max_pages: default_half_ram(settings.max_pages),
                max_inodes: default_half_ram(settings.max_inodes),
                ..TmpFsOptions::default()
            };
            let fs = super::pages::new_tmpfs(options);
            Ok(("tmpfs", fs.root(), FsKind::Tmpfs(fs, settings)))
        }
        _ => Err(Errno::ENODEV),
    }
}

/// The file system types mount(2) knows, for /proc/filesystems: (name,
/// needs no device).
pub const FILESYSTEMS: [(&str, bool); 15] = [("sysfs", true), ("tmpfs", true), ("proc", true), ("cgroup2", true), ("devtmpfs", true), ("debugfs", true), ("tracefs", true), ("ramfs", true), ("hugetlbfs", true), ("devpts", true), ("rootfs", true), ("ext3", false), ("ext2", false), ("ext4", false), ("mqueue", true)];

/// The disk file system types mount(2) takes, by name: ext2 as Linux's
/// ext2 driver, ext3 and ext4 as its ext4 driver (which mounts all three).
pub fn disk_fs_type(name: &[u8]) -> Option<&'static str> {
    match name {
        b"ext2" => Some("ext2"),
        b"ext3" => Some("ext3"),
        b"ext4" => Some("ext4"),
        _ => None,
    }
}

/// Tells whether a file system on the disk `rdev` is mounted (an O_EXCL
/// open of the disk then fails with EBUSY).
pub fn is_disk_mounted(rdev: u64) -> bool {
    all_namespaces().iter().any(|ns| ns.mounts.lock().iter().any(|m| matches!(&m.kind, FsKind::Ext2(_)) && m.root.fs_id() == rdev))
}

/// Mounts the ext2/3/4 file system (`fstype`, from [`disk_fs_type`]) on
/// the disk with device number `rdev` (the block-device node `source`
/// names) on `on`.
pub fn mount_ext2(on: Arc<dyn Inode>, path: Vec<u8>, source: Vec<u8>, rdev: u64, flags: u32, data: &[u8], fstype: &'static str) -> Result<()> {
    mount_ext2_at(NO_MOUNT, on, path, source, rdev, flags, data, fstype)
}

/// The id of the mount a new mount on `on` sits on: `parent` (the mount
/// the walk to `on` ended in) when known, else the nearest one.
pub(super) fn parent_id_of(parent: MountId, on: &dyn Inode) -> u32 {
    match current_ns().mount_by_id(parent, on) {
        Some(m) => m.id,
        None => mount_of(on).map_or(0, |m| m.id),
    }
}

/// Opens the ext2/3/4 file system on disk `rdev` (shared with its other
/// mounts) for a mount with `flags`; returns it and the flags the mount
/// gets (read-only when the file system is).
pub(super) fn open_ext2(rdev: u64, flags: u32, fstype: &'static str) -> Result<(Arc<Ext2Fs>, u32)> {
    let disk = crate::block::by_rdev(rdev).ok_or(Errno::ENXIO)?;
    let mut flags = flags & MOUNT_FLAGS;
    // A disk already mounted is shared, as Linux shares its superblock.
    let existing = all_namespaces().iter().find_map(|ns| {
        ns.mounts.lock().iter().find_map(|m| match &m.kind {
            FsKind::Ext2(fs) if m.root.fs_id() == rdev => Some(fs.clone()),
            _ => None,
        })
    });
    let fs = match existing {
        Some(fs) => fs,
        None => {
            // A mount claims the device exclusively (Linux's blkdev_get_by_dev
            // with FMODE_EXCL): not while it, its disk or a partition of it
            // is held.
            if !crate::block::file::may_claim(&disk) {
                return Err(Errno::EBUSY);
            }
            let read_only = flags & abi::MS_RDONLY != 0 || kevlar_vfs::BlockDevice::is_read_only(&*disk);
            let flavour = if fstype == "ext2" { kevlar_ext2::Flavour::Ext2 } else { kevlar_ext2::Flavour::Ext4 };
            let options = kevlar_ext2::MountOptions { dev: rdev, read_only, flavour };
            let device: Arc<dyn kevlar_vfs::BlockDevice> = disk.clone();
            let pages: Arc<dyn kevlar_vfs::PageSource> = Arc::new(super::pages::FramePages);
            let fs = Ext2Fs::mount_with_pages(device, Arc::new(crate::clock::CoarseClock), options, pages, super::pagecache::page_limit()).map_err(|e| {
                log::warn!("{}: {}: {}", disk.name, fstype, e);
                e.errno
            })?;
            if let Some(why) = fs.forced_read_only() {
                log::warn!("{}: {}: {}", disk.name, fstype, why);
            }
            if let Some(r) = fs.recovered() {
                log::info!("{}: {}: journal recovered: {} transactions, {} blocks replayed, {} revoked", disk.name, fstype, r.transactions, r.replayed, r.revoked);
            }
            fs
        }
    };
    if fs.is_read_only() {
        flags |= abi::MS_RDONLY;
    }
    Ok((fs, flags))
}

/// [`mount_ext2`] on `on` reached in mount `parent`.
#[allow(clippy::too_many_arguments)]
pub fn mount_ext2_at(parent: MountId, on: Arc<dyn Inode>, path: Vec<u8>, source: Vec<u8>, rdev: u64, flags: u32, data: &[u8], fstype: &'static str) -> Result<()> {
    // mount(8) turns ro/rw and the generic options into flags; of the
    // file system's own options only `discard`/`nodiscard` are
    // implemented (acl, errors=... are refused).
    let mut discard = None;
    for o in data.split(|&b| b == b',').filter(|o| !o.is_empty()) {
        match o {
            b"discard" => discard = Some(true),
            b"nodiscard" => discard = Some(false),
            _ => return Err(Errno::EINVAL),
        }
    }
    // Before the disk is opened (a file system opened for nothing would
    // need unmounting again).
    check_room(&current_ns(), 1)?;
    let (fs, flags) = open_ext2(rdev, flags, fstype)?;
    if let Some(on) = discard {
        fs.set_discard(on);
    }
    let parent_id = parent_id_of(parent, &*on);
    let root = fs.root();
    add(Mount { id: NEXT_MOUNT_ID.fetch_add(1, Ordering::Relaxed), parent_id, on: Some(on), root, path, fstype, source, flags, kind: FsKind::Ext2(fs), prop: Default::default(), on_key: None, root_key: (0, 0) });
    Ok(())
}

/// Writes out every disk file system and flushes the disks (sync(2)).
pub fn sync_all() {
    let mut mounted: Vec<Arc<Ext2Fs>> = Vec::new();
    for ns in all_namespaces() {
        for m in ns.mounts.lock().iter() {
            if let FsKind::Ext2(fs) = &m.kind {
                if !mounted.iter().any(|f| Arc::ptr_eq(f, fs)) {
                    mounted.push(fs.clone());
                }
            }
        }
    }
    let _plug = crate::block::plug_all();
    finish_orphans();
    for fs in mounted {
        if let Err(e) = fs.sync() {
            log::warn!("sync: ext2: {:?}", e);
        }
    }
}

/// Flushes the disk file system holding `node`, if it is on one (fsync).
pub fn sync_node(node: &dyn Inode) -> Result<()> {
    match node.as_any().downcast_ref::<kevlar_ext2::Ext2Node>() {
        Some(n) => n.fs().sync(),
        None => Ok(()),
    }
}

/// Mounts a new `fstype` file system from `source` on directory `on`
/// (whose absolute path is `path`).
pub fn mount_new(on: Arc<dyn Inode>, path: Vec<u8>, source: Vec<u8>, fstype: &[u8], flags: u32, data: &[u8]) -> Result<()> {
    mount_new_at(NO_MOUNT, on, path, source, fstype, flags, data)
}

/// [`mount_new`] on `on` reached in mount `parent`.
pub fn mount_new_at(parent: MountId, on: Arc<dyn Inode>, path: Vec<u8>, source: Vec<u8>, fstype: &[u8], flags: u32, data: &[u8]) -> Result<()> {
    let (name, root, kind) = make_fs(fstype, data)?;
    // The same superblock on the same place again (debugfs or tracefs
    // mounted where it is on top) is EBUSY (do_add_mount). (procfs and
    // sysfs show one tree here where Linux makes a superblock per mount:
    // mounting them on themselves is allowed.)
    if matches!(kind, FsKind::Simple(_)) && kevlar_vfs::same_inode(&*on, &*root) {
        return Err(Errno::EBUSY);
    }
    check_room(&current_ns(), 1)?;
    // A new tmpfs made read-only is a read-only file system.
    if flags & abi::MS_RDONLY != 0 && matches!(kind, FsKind::Tmpfs(..) | FsKind::Simple(_)) {
        super::superblock::set_read_only(root.fs_id(), true);
    }
    let parent_id = parent_id_of(parent, &*on);
    add(Mount { id: NEXT_MOUNT_ID.fetch_add(1, Ordering::Relaxed), parent_id, on: Some(on), root, path, fstype: name, source, flags: flags & MOUNT_FLAGS, kind, prop: Default::default(), on_key: None, root_key: (0, 0) });
    Ok(())
}


/// Bind-mounts directory `source` (reached in mount `source_mnt`) on `on`
/// (reached in mount `parent`); with `recursive` (MS_REC) the mounts
/// below `source` are copied along (`fs::rbind`). The copy is a peer of
/// a shared source, a slave of a slave's master (Linux's clone_mnt).
#[allow(clippy::too_many_arguments)]
pub fn mount_bind_at(source_mnt: MountId, source: Arc<dyn Inode>, parent: MountId, on: Arc<dyn Inode>, path: Vec<u8>, flags: u32, recursive: bool) -> Result<()> {
    let from = mount_at(source_mnt, &*source).ok_or(Errno::EINVAL)?;
    // An unbindable mount cannot be the source of a bind mount.
    if from.prop.unbindable {
        return Err(Errno::EINVAL);
    }
    let ns = current_ns();
    let copies = if recursive { super::rbind::submounts(&ns, &from, &source) } else { Vec::new() };
    check_room(&ns, 1 + copies.len())?;
    let parent_id = parent_id_of(parent, &*on);
    let id = NEXT_MOUNT_ID.fetch_add(1, Ordering::Relaxed);
    let mount = Mount {
        id,
        parent_id,
        on: Some(on),
        root: source,
        path: path.clone(),
        fstype: from.fstype,
        source: from.source.clone(),
        flags: flags & MOUNT_FLAGS,
        kind: from.kind.clone(),
        prop: super::rbind::copied_propagation(from.prop),
        on_key: None,
        root_key: (0, 0),
    };
    add(mount);
    super::rbind::attach(&ns, from.id, id, &path, copies);
    Ok(())
}

/// Finds the index of the last mount whose root is `root`.
fn index_of_root(mounts: &[Mount], root: &Arc<dyn Inode>) -> Option<usize> {
    let k = key(&**root);
    mounts.iter().rposition(|m| m.root_key == k)
}

/// Tells whether absolute `path` leads through a procfs mount, where what
/// a name means depends on who looks (/proc/self): such paths are
/// resolved when recorded rather than when shown.
pub fn through_procfs(path: &[u8]) -> bool {
    // Every open asks: rule most paths out by their first component.
    let ns = current_ns();
    let filter = ns.proc_filter.load(Ordering::Acquire);
    if filter == 0 || filter & first_component_bit(path) == 0 {
        return false;
    }
    let found = ns.mounts.lock().iter().any(|m| {
        matches!(m.kind, FsKind::Proc) && path.starts_with(&m.path) && matches!(path.get(m.path.len()), None | Some(b'/'))
    });
    found
}


/// Finds the index of mount `mnt` when the walk knew it (None if `root`
/// is not that mount's root: not a mount point), else of the last mount
/// whose root is `root`.
pub(super) fn index_of_mount(mounts: &[Mount], mnt: MountId, root: &Arc<dyn Inode>) -> Option<usize> {
    if mnt != NO_MOUNT {
        if let Some(i) = mounts.iter().position(|m| m.id == mnt) {
            return (mounts[i].root_key == key(&**root)).then_some(i);
        }
    }
    index_of_root(mounts, root)
}

/// Changes the flags of mount `mnt` (the walk's), whose root must be
/// `root` (MS_REMOUNT, with MS_BIND too: the mount's own flags).
pub fn remount_at(mnt: MountId, root: &Arc<dyn Inode>, flags: u32) -> Result<()> {
    let ns = current_ns();
    let (id, was_read_only) = {
        let mounts = ns.mounts.lock();
        let index = index_of_mount(&mounts, mnt, root).ok_or(Errno::EINVAL)?;
        (mounts[index].id, mounts[index].flags & abi::MS_RDONLY != 0)
    };
    // Linux's mnt_make_readonly: not while a file is open for writing
    // through this mount (outside the table's lock: it reads fd tables).
    if flags & abi::MS_RDONLY != 0 && !was_read_only && super::superblock::open_for_writing_through(id) {
        return Err(Errno::EBUSY);
    }
    let mut mounts = ns.mounts.lock();
    let index = index_of_mount(&mounts, mnt, root).ok_or(Errno::EINVAL)?;
    mounts[index].flags = flags & MOUNT_FLAGS;
    ns.update_filters(&mounts);
    Ok(())
}

/// Finds the index of the last mount whose root is `root`.
pub(super) fn index_of(mounts: &[Mount], root: &Arc<dyn Inode>) -> Option<usize> {
    index_of_root(mounts, root)
}


/// Moves mount `mnt` (rooted at `root`; not known: the last mount rooted
/// there) onto `on` reached in mount `parent` (MS_MOVE).
pub fn move_mount_at(mnt: MountId, root: &Arc<dyn Inode>, parent: MountId, on: Arc<dyn Inode>, path: Vec<u8>) -> Result<()> {
    let parent_id = parent_id_of(parent, &*on);
    let ns = current_ns();
    let mut mounts = ns.mounts.lock();
    let index = index_of_mount(&mounts, mnt, root).ok_or(Errno::EINVAL)?;
    if mounts[index].on.is_none() {
        return Err(Errno::EINVAL);
    }
    let moved = mounts[index].id;
    let is_shared = |id: u32| mounts.iter().any(|m| m.id == id && m.prop.group != 0);
    // Linux's do_move_mount: a mount sitting in a shared mount stays, as
    // its copies on the peers could not follow it; and a tree holding an
    // unbindable mount cannot go under a shared one, whose peers would
    // get copies of it.
    if is_shared(mounts[index].parent_id) {
        return Err(Errno::EINVAL);
    }
    if is_shared(parent_id) && mounts.iter().any(|m| m.prop.unbindable && is_within(&mounts, m.id, moved)) {
        return Err(Errno::EINVAL);
    }
    // Onto itself or anything inside the tree it heads.
    if is_within(&mounts, parent_id, moved) {
        return Err(Errno::ELOOP);
    }
    let mut mount = mounts.remove(index);
    mount.on_key = Some(key(&*on));
    mount.on = Some(on);
    let old_path = core::mem::replace(&mut mount.path, path);
    mount.parent_id = parent_id;
    rebase_paths_below(&mut mounts, mount.id, &old_path, &mount.path);
    ns.update_filters(&mounts);
    drop(mounts);
    // Moved under a shared mount, it is propagated to its peers and
    // slaves as a new mount would be (attach_recursive_mnt): systemd moves
    // each unit's credentials ramfs from a private namespace onto
    // /run/credentials/UNIT so. (The mounts below a moved one follow it
    // here but are not copied to the peers.)
    super::propagation::add_propagated(&ns, mount);
    Ok(())
}


/// The mounts below a moved mount move with it: their recorded paths
/// (`Mount::path`, the mounter's view) start with the moved mount's old
/// path and now start with its new one. Mounts on files need this most:
/// their place cannot be found again by walking up from the file.
fn rebase_paths_below(mounts: &mut [Mount], moved: u32, old: &[u8], new: &[u8]) {
    let below: Vec<u32> = mounts.iter().filter(|m| m.id != moved && is_within(mounts, m.id, moved)).map(|m| m.id).collect();
    for m in mounts.iter_mut().filter(|m| below.contains(&m.id)) {
        let Some(rest) = m.path.strip_prefix(old) else { continue };
        if !rest.starts_with(b"/") {
            continue;
        }
        let mut path = if new == b"/" { Vec::new() } else { new.to_vec() };
        path.extend_from_slice(rest);
        m.path = path;
    }
}

/// Tells whether mount `id` is mount `ancestor` or lies below it.
fn is_within(mounts: &[Mount], id: u32, ancestor: u32) -> bool {
    let mut at = id;
    // Each step goes one mount up; a table has no longer chain.
    for _ in 0..=mounts.len() {
        if at == ancestor {
            return true;
        }
        match mounts.iter().find(|m| m.id == at) {
            Some(m) if m.on.is_some() && m.parent_id != at => at = m.parent_id,
            _ => return false,
        }
    }
    false
}

/// Unmounts mount `mnt` (the walk's; its root must be `root`). Without
/// `detach`, fails with EBUSY while something is mounted inside it or a
/// process works in it or has one of its files open.
pub fn unmount_at(mnt: MountId, root: &Arc<dyn Inode>, detach: bool) -> Result<()> {
    let fs_id = root.fs_id();
    let ns = current_ns();
    let mounted_elsewhere = |ns: &Arc<MountNs>| all_namespaces().iter().any(|other| !Arc::ptr_eq(other, ns) && other.mounts.lock().iter().any(|m| m.root.fs_id() == fs_id));
    {
        let mounts = ns.mounts.lock();
        let index = index_of_mount(&mounts, mnt, root).ok_or(Errno::EINVAL)?;
        if mounts[index].on.is_none() {
            return Err(Errno::EBUSY);
        }
        let id = mounts[index].id;
        let shared = mounts.iter().filter(|m| m.root.fs_id() == fs_id).count() > 1;
        let has_submounts = mounts.iter().any(|m| m.parent_id == id);
        if !detach && has_submounts {
            return Err(Errno::EBUSY);
        }
        if !detach && mount_in_use(id) {
            return Err(Errno::EBUSY);
        }
        drop(mounts);
        if !detach && !shared && !mounted_elsewhere(&ns) && in_use(fs_id) {
            return Err(Errno::EBUSY);
        }
    }
    let mut mounts = ns.mounts.lock();
    let index = index_of_mount(&mounts, mnt, root).ok_or(Errno::EINVAL)?;
    // A detached mount takes the mounts below it along (MNT_DETACH
    // unmounts the whole subtree).
    let mut gone = alloc::vec![mounts[index].id];
    let mut i = 0;
    while i < gone.len() {
        let parent = gone[i];
        gone.extend(mounts.iter().filter(|m| m.parent_id == parent).map(|m| m.id));
        i += 1;
    }
    // Each mount that goes, with the peer group of the mount it sat on:
    // its copies on that group's peers and slaves go too.
    let group_of = |id: u32| mounts.iter().find(|m| m.id == id).map_or(0, |m| m.prop.group);
    let propagating: Vec<(Mount, u32)> = mounts.iter().filter(|m| gone.contains(&m.id)).map(|m| (m.clone(), group_of(m.parent_id))).filter(|(_, g)| *g != 0).collect();
    let mut removed: Vec<Mount> = Vec::new();
    mounts.retain(|m| {
        let drop_it = gone.contains(&m.id);
        if drop_it {
            removed.push(m.clone());
        }
        !drop_it
    });
    ns.update_filters(&mounts);
    drop(mounts);
    for (m, group) in propagating {
        removed.extend(super::propagation::remove_propagated_from(&m, group));
    }
    for m in removed {
        let fs_id = m.root.fs_id();
        let last = !all_namespaces().iter().any(|ns| ns.mounts.lock().iter().any(|m| m.root.fs_id() == fs_id));
        if last {
            super::notify::unmounted(fs_id);
            super::superblock::forget(fs_id);
        }
        // The last mount of a disk file system gone: mark it clean and
        // flush (outside the table's lock: this does disk I/O).
        if let (FsKind::Ext2(fs), true) = (&m.kind, last) {
            if let Err(e) = fs.unmount() {
                log::warn!("umount: ext2: {:?}", e);
            }
        }
    }
    Ok(())
}

/// Tells whether a process works in, or has a descriptor opened through,
/// mount `id` (Linux's busy mount: a reference on the vfsmount).
fn mount_in_use(id: u32) -> bool {
    crate::process::all_processes().iter().any(|p| {
        let fs = p.fs.lock().clone();
        if fs.cwd_mnt == id || fs.root_mnt == id {
            return true;
        }
        let files = p.files.lock().clone();
        let table = files.lock();
        let busy = table.iter().any(|(_, file, _)| file.mount_id() == id && file.ops.as_mqueue().is_none_or(|q| q.pins_mount()));
        busy
    })
}

/// Tells whether a process works in, or has open a file of, file system
/// `fs_id`.
fn in_use(fs_id: u64) -> bool {
    crate::process::all_processes().iter().any(|p| {
        let fs = p.fs.lock().clone();
        if fs.cwd.fs_id() == fs_id || fs.root.fs_id() == fs_id {
            return true;
        }
        let files = p.files.lock().clone();
        let table = files.lock();
        // An mq_open descriptor is on the kernel's own mqueue mount, not
        // on any the user made.
        let busy = table.iter().any(|(_, file, _)| file.ops.as_mqueue().is_none_or(|q| q.pins_mount()) && file.ops.inode().is_some_and(|i| i.fs_id() == fs_id));
        busy
    })
}

/// Appends `bytes` to `out` with space, tab, newline and backslash escaped
/// as octal, as /proc/mounts writes paths.
pub fn escape_into(out: &mut String, bytes: &[u8]) {
    for &b in bytes {
        if matches!(b, b' ' | b'\t' | b'\n' | b'\\') {
            let _ = write!(out, "\\{:03o}", b);
        } else {
            out.push(b as char);
        }
    }
}

impl Mount {
    /// (device, inode) of the directory it covers (None for a root).
    pub fn on_key(&self) -> Option<(u64, u64)> {
        self.on_key
    }

    /// (device, inode) of its root.
    pub fn root_key(&self) -> (u64, u64) {
        self.root_key
    }

    /// The flags the file system adds to the mount's own: MS_RDONLY when
    /// it is read-only (Linux's sb_rdonly).
    pub fn super_flags(&self) -> u32 {
        match &self.kind {
            FsKind::Ext2(fs) if fs.is_read_only() => abi::MS_RDONLY,
            FsKind::Ext2(_) | FsKind::Tmpfs(..) | FsKind::Rootfs(_) | FsKind::Devtmpfs(_) | FsKind::Simple(_) => super::superblock::flags(self.root.fs_id()),
            // One tree shown by every mount here, where Linux makes a
            // superblock per mount (proc) or keeps its state apart: the
            // mount's own state.
            _ => self.flags & abi::MS_RDONLY,
        }
    }

    /// Returns the mount options as /proc/PID/mounts shows them: ro when
    /// the mount or its file system is read-only (Linux's
    /// mnt_is_readonly).
    pub fn mounts_options(&self) -> String {
        let ro = self.super_flags() & abi::MS_RDONLY;
        let mut with = self.clone();
        with.flags |= ro;
        with.mount_options()
    }

    /// Returns the per-mount options as mountinfo shows them
    /// (`rw,nosuid,relatime`).
    pub fn mount_options(&self) -> String {
        let mut out = String::from(if self.flags & abi::MS_RDONLY != 0 { "ro" } else { "rw" });
        for (flag, name) in [(abi::MS_NOSUID, ",nosuid"), (abi::MS_NODEV, ",nodev"), (abi::MS_NOEXEC, ",noexec"), (abi::MS_NOATIME, ",noatime"), (abi::MS_NODIRATIME, ",nodiratime"), (abi::MS_NOSYMFOLLOW, ",nosymfollow")] {
            if self.flags & flag != 0 {
                out.push_str(name);
            }
        }
        // relatime is the default unless noatime or strictatime was asked;
        // the root mount was never mounted with it.
        if self.on.is_some() && self.flags & (abi::MS_NOATIME | abi::MS_STRICTATIME) == 0 {
            out.push_str(",relatime");
        }
        out
    }

    /// Returns the file-system options as /proc/mounts shows them after
    /// the mount options (without a leading comma; may be empty).
    pub fn fs_options(&self) -> String {
        let mut out = String::new();
        match &self.kind {
            FsKind::Rootfs(_) | FsKind::Devtmpfs(_) => {
                // Linux shows the size limits it computed at boot; we have
                // none, so only what Linux always shows.
                if matches!(self.kind, FsKind::Devtmpfs(_)) {
                    out.push_str("mode=755,");
                }
                out.push_str("inode64");
            }
            FsKind::Tmpfs(_, settings) => {
                if let Some(pages) = settings.max_pages {
                    let _ = write!(out, "size={}k,", pages * 4);
                }
                if let Some(inodes) = settings.max_inodes {
                    let _ = write!(out, "nr_inodes={},", inodes);
                }
                if settings.mode != 0o1777 {
                    let _ = write!(out, "mode={:o},", settings.mode);
                }
                if settings.uid != 0 {
                    let _ = write!(out, "uid={},", settings.uid);
                }
                if settings.gid != 0 {
                    let _ = write!(out, "gid={},", settings.gid);
                }
                out.push_str("inode64");
            }
            FsKind::Ext2(fs) if fs.discard_enabled() => out.push_str("discard"),
            FsKind::Simple(fs) => out.push_str(&fs.options_text()),
            FsKind::Proc | FsKind::Sysfs | FsKind::Ext2(_) | FsKind::Mqueue => {}
            FsKind::Cgroup2 => out.push_str(&crate::cgroup::fs::options_text()),
            FsKind::Devpts => {
                let options = crate::tty::devpts::options();
                if let Some(uid) = options.uid {
                    let _ = write!(out, "uid={},", uid);
                }
                if let Some(gid) = options.gid {
                    let _ = write!(out, "gid={},", gid);
                }
                let _ = write!(out, "mode={:03o},ptmxmode={:03o}", options.mode, options.ptmx_mode);
            }
        }
        out
    }
}

/// What statfs(2) reports.
#[derive(Clone, Copy, Debug, Default)]
pub struct StatFs {
    /// The file system's magic number.
    pub fs_type: u64,
    /// Block size.
    pub block_size: u64,
    /// Blocks in all.
    pub blocks: u64,
    /// Free blocks.
    pub blocks_free: u64,
    /// Free blocks an unprivileged user may use, when not all of them.
    pub blocks_avail: Option<u64>,
    /// Nodes in all.
    pub files: u64,
    /// Free nodes.
    pub files_free: u64,
    /// Longest name.
    pub name_max: u64,
    /// ST_* flags.
    pub flags: u64,
    /// `f_fsid` (`val[0] | val[1] << 32`, see `fs::fsid`).
    pub fsid: u64,
}

// ST_* flags of statfs's f_flags (include/linux/statfs.h, not in the
// user-space headers linux-raw-sys is made from).
const ST_RDONLY: u64 = 0x0001;
const ST_NOSUID: u64 = 0x0002;
const ST_NODEV: u64 = 0x0004;
const ST_NOEXEC: u64 = 0x0008;
const ST_VALID: u64 = 0x0020;
const ST_NOATIME: u64 = 0x0400;
const ST_NODIRATIME: u64 = 0x0800;
const ST_RELATIME: u64 = 0x1000;

/// Returns what statfs reports for the file system holding `node`.
pub fn statfs(node: &dyn Inode) -> StatFs {
    statfs_at(NO_MOUNT, node)
}

/// Returns what statfs reports for `node` reached through mount `mnt`
/// (its flags are that mount's).
pub fn statfs_at(mnt: MountId, node: &dyn Inode) -> StatFs {
    let Some(mount) = mount_at(mnt, node) else {
        return StatFs { fs_type: abi::TMPFS_MAGIC as u64, block_size: 4096, name_max: 255, flags: ST_VALID, ..StatFs::default() };
    };
    let total_pages = kevlar_platform::mm::pmm::stats().total_bytes as u64 / 4096;
    let tmpfs = |fs: &TmpFs, max_pages: Option<u64>, max_inodes: Option<u64>| {
        // Linux's tmpfs defaults: half of RAM, and as many nodes as half
        // of RAM has pages.
        let usage = fs.usage();
        let blocks = max_pages.unwrap_or(total_pages / 2);
        let files = max_inodes.unwrap_or(total_pages / 2);
        StatFs {
            fs_type: abi::TMPFS_MAGIC as u64,
            block_size: 4096,
            blocks,
            blocks_free: blocks.saturating_sub(usage.pages),
            blocks_avail: None,
            files,
            files_free: files.saturating_sub(usage.inodes),
            name_max: 255,
            flags: 0,
            fsid: 0,
        }
    };
    let mut out = match &mount.kind {
        FsKind::Rootfs(fs) | FsKind::Devtmpfs(fs) => tmpfs(fs, None, None),
        FsKind::Tmpfs(fs, settings) => tmpfs(fs, settings.max_pages, settings.max_inodes),
        FsKind::Proc => StatFs { fs_type: abi::PROC_SUPER_MAGIC as u64, block_size: 4096, name_max: 255, ..StatFs::default() },
        FsKind::Sysfs => StatFs { fs_type: abi::SYSFS_MAGIC as u64, block_size: 4096, name_max: 255, ..StatFs::default() },
        FsKind::Cgroup2 => StatFs { fs_type: abi::CGROUP2_SUPER_MAGIC as u64, block_size: 4096, name_max: 255, ..StatFs::default() },
        FsKind::Devpts => StatFs { fs_type: abi::DEVPTS_SUPER_MAGIC as u64, block_size: 4096, name_max: 255, ..StatFs::default() },
        FsKind::Mqueue => StatFs { fs_type: crate::ipc::mqueue_fs::MQUEUE_MAGIC, block_size: 4096, name_max: 255, ..StatFs::default() },
        FsKind::Simple(fs) => fs.statfs(),
        FsKind::Ext2(fs) => {
            let usage = fs.usage();
            StatFs {
                fs_type: u64::from(kevlar_ext2::EXT2_SUPER_MAGIC),
                block_size: usage.block_size,
                blocks: usage.blocks,
                blocks_free: usage.free_blocks,
                blocks_avail: Some(usage.available_blocks),
                files: usage.inodes,
                files_free: usage.free_inodes,
                name_max: 255,
                flags: 0,
                fsid: 0,
            }
        }
    };
    let mut flags = ST_VALID;
    let mount_flags = mount.flags | mount.super_flags();
    for (ms, st) in [(abi::MS_RDONLY, ST_RDONLY), (abi::MS_NOSUID, ST_NOSUID), (abi::MS_NODEV, ST_NODEV), (abi::MS_NOEXEC, ST_NOEXEC), (abi::MS_NOATIME, ST_NOATIME), (abi::MS_NODIRATIME, ST_NODIRATIME)] {
        if mount_flags & ms != 0 {
            flags |= st;
        }
    }
    if mount.on.is_some() && mount.flags & (abi::MS_NOATIME | abi::MS_STRICTATIME) == 0 {
        flags |= ST_RELATIME;
    }
    out.flags = flags;
    out.fsid = super::fsid::of_mount(&mount);
    out
}

/// The file-system half of MS_REMOUNT without MS_BIND on mount `mnt`
/// (the walk's), whose root must be `root` (EINVAL otherwise): with
/// MS_RDONLY the file system becomes read-only, every mount of it
/// (EBUSY while one of its files is open for writing; a disk file system
/// is written out first); without, writable again (a disk file system
/// mounted read-only too).
pub fn remount_superblock(mnt: MountId, root: &Arc<dyn Inode>, flags: u32) -> Result<()> {
    let fs_id = root.fs_id();
    let ext2 = {
        let ns = current_ns();
        let mounts = ns.mounts.lock();
        let index = index_of_mount(&mounts, mnt, root).ok_or(Errno::EINVAL)?;
        match &mounts[index].kind {
            FsKind::Ext2(fs) => Some(fs.clone()),
            FsKind::Tmpfs(..) | FsKind::Rootfs(_) | FsKind::Devtmpfs(_) | FsKind::Simple(_) => None,
            // The others' read-only state is their mounts' (see
            // `Mount::super_flags`).
            _ => return Ok(()),
        }
    };
    let disk_read_only = ext2.as_ref().is_some_and(|fs| fs.is_read_only());
    if flags & abi::MS_RDONLY != 0 {
        if disk_read_only || super::superblock::is_read_only(fs_id) {
            return Ok(());
        }
        if super::superblock::open_for_writing(fs_id) {
            return Err(Errno::EBUSY);
        }
        // Outside the table's lock: this writes to the disk.
        if let Some(fs) = &ext2 {
            fs.sync()?;
        }
        super::superblock::set_read_only(fs_id, true);
        return Ok(());
    }
    super::superblock::set_read_only(fs_id, false);
    if let Some(fs) = ext2.filter(|_| disk_read_only) {
        fs.remount_read_write()?;
    }
    Ok(())
}
