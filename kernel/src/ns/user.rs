//! User namespaces (Linux's kernel/user_namespace.c): each maps the user
//! and group ids its processes see to the ids the kernel keeps (the ids
//! of the initial namespace: credentials and files carry those), and
//! owns the capabilities its creator gets inside.
//!
//! A process's user namespace is in its credentials (`user_ns`) and in
//! its namespace set (`NsSet::user`, what /proc/PID/ns/user shows); the
//! two are changed together by clone, unshare and setns. The other
//! namespaces a process makes while in a user namespace are owned by it
//! ([`set_owner`]): privileged operations on them (sethostname in a UTS
//! namespace, mount in a mount namespace, setns into any) check the
//! capability in that owner ([`ns_capable`]).

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::sync::{Arc, Weak};
use alloc::vec::Vec;
use core::any::Any;
use core::sync::atomic::{AtomicBool, Ordering};

use kevlar_platform::sync::SpinLock;
use linux_raw_sys::general as abi;

use crate::error::{Errno, Result};
use crate::process::Credentials;

/// The id shown for an id a namespace does not map (Linux's default
/// /proc/sys/kernel/overflowuid and overflowgid).
pub const OVERFLOW_ID: u32 = 65534;

/// How deep user namespaces nest: one whose parent is this deep or
/// deeper cannot be made (Linux's create_user_ns: ENOSPC).
const MAX_PARENT_LEVEL: u32 = 32;

/// Linux's UID_GID_MAP_MAX_EXTENTS: the lines one map may have.
const MAX_EXTENTS: usize = 340;

/// One line of a map: ids `first..first+count` inside are kernel ids
/// `lower..lower+count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Extent {
    pub first: u32,
    pub lower: u32,
    pub count: u32,
}

fn down(map: &[Extent], id: u32) -> Option<u32> {
    map.iter().find(|e| id >= e.first && id - e.first < e.count).map(|e| e.lower + (id - e.first))
}

fn up(map: &[Extent], kid: u32) -> Option<u32> {
    map.iter().find(|e| kid >= e.lower && kid - e.lower < e.count).map(|e| e.first + (kid - e.lower))
}

/// A user namespace.
pub struct UserNs {
    /// Its nsfs inode number.
    pub inum: u64,
    /// The namespace it was made in (None for the initial one).
    pub parent: Option<Arc<UserNs>>,
    /// How deep it is (0 for the initial one).
    pub level: u32,
    /// The effective user id (a kernel id) of its creator.
    pub owner: u32,
    /// The user and group maps (None until written), in kernel ids.
    uid_map: SpinLock<Option<Vec<Extent>>>,
    gid_map: SpinLock<Option<Vec<Extent>>>,
    /// Whether setgroups(2) may be allowed ("allow" in
    /// /proc/PID/setgroups): inherited from the parent.
    setgroups: AtomicBool,
}

impl core::fmt::Debug for UserNs {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "user:[{}]", self.inum)
    }
}

impl UserNs {
    /// Maps user id `id` of this namespace to a kernel id.
    pub fn uid_down(&self, id: u32) -> Option<u32> {
        self.uid_map.lock().as_deref().and_then(|m| down(m, id))
    }

    /// Maps group id `id` of this namespace to a kernel id.
    pub fn gid_down(&self, id: u32) -> Option<u32> {
        self.gid_map.lock().as_deref().and_then(|m| down(m, id))
    }

    /// The id kernel user id `kid` is in this namespace, if it maps it.
    pub fn uid_up(&self, kid: u32) -> Option<u32> {
        self.uid_map.lock().as_deref().and_then(|m| up(m, kid))
    }

    /// The id kernel group id `kid` is in this namespace, if it maps it.
    pub fn gid_up(&self, kid: u32) -> Option<u32> {
        self.gid_map.lock().as_deref().and_then(|m| up(m, kid))
    }

    /// Kernel user id `kid` as this namespace shows it (the overflow id
    /// when unmapped: Linux's from_kuid_munged).
    pub fn uid_shown(&self, kid: u32) -> u32 {
        self.uid_up(kid).unwrap_or(OVERFLOW_ID)
    }

    /// Kernel group id `kid` as this namespace shows it.
    pub fn gid_shown(&self, kid: u32) -> u32 {
        self.gid_up(kid).unwrap_or(OVERFLOW_ID)
    }

    /// User id `id` as this namespace numbers it, as namespace `to`
    /// numbers it (Linux's from_kuid_munged(to, make_kuid(self, id))):
    /// the overflow id when either side does not map it.
    pub fn uid_into(&self, to: &UserNs, id: u32) -> u32 {
        self.uid_down(id).map_or(OVERFLOW_ID, |kid| to.uid_shown(kid))
    }

    /// Whether this is the initial user namespace.
    pub fn is_init(&self) -> bool {
        self.parent.is_none()
    }

    /// Whether setgroups(2) is allowed in it (Linux's
    /// userns_may_setgroups: "allow", and a gid map written).
    pub fn may_setgroups(&self) -> bool {
        self.setgroups.load(Ordering::Relaxed) && self.gid_map.lock().is_some()
    }

    /// Whether `self` is `other` or one of its ancestors.
    pub fn is_ancestor_of(self: &Arc<Self>, other: &Arc<UserNs>) -> bool {
        let mut ns = other;
        loop {
            if Arc::ptr_eq(ns, self) {
                return true;
            }
            match &ns.parent {
                Some(parent) => ns = parent,
                None => return false,
            }
        }
    }

    /// The ids this namespace maps, for the file-system permission
    /// checks (None for the initial one, which maps every id).
    pub fn scope(&self) -> Option<kevlar_vfs::IdScope> {
        if self.is_init() {
            return None;
        }
        let ranges = |m: &SpinLock<Option<Vec<Extent>>>| m.lock().as_deref().unwrap_or(&[]).iter().map(|e| (e.lower, e.count)).collect();
        Some(kevlar_vfs::IdScope { uids: ranges(&self.uid_map), gids: ranges(&self.gid_map) })
    }
}

static INIT: SpinLock<Option<Arc<UserNs>>> = SpinLock::new(None);

/// Linux's fixed inode number of the initial user namespace.
const PROC_USER_INIT_INO: u64 = 0xEFFF_FFFD;

/// The initial user namespace: every id maps to itself.
pub fn init_ns() -> Arc<UserNs> {
    let mut slot = INIT.lock();
    if let Some(ns) = slot.as_ref() {
        return ns.clone();
    }
    let all = alloc::vec![Extent { first: 0, lower: 0, count: u32::MAX }];
    let ns = Arc::new(UserNs {
        inum: PROC_USER_INIT_INO,
        parent: None,
        level: 0,
        owner: 0,
        uid_map: SpinLock::new(Some(all.clone())),
        gid_map: SpinLock::new(Some(all)),
        setgroups: AtomicBool::new(true),
    });
    *slot = Some(ns.clone());
    ns
}

/// The user namespace of the running process (the initial one outside
/// a process): the one ids shown to the caller are mapped into.
pub fn current_ns() -> Arc<UserNs> {
    crate::process::current().map_or_else(init_ns, |t| t.process.creds.lock().user_ns.clone())
}

/// Kernel user id `kid` as `viewer`'s user namespace shows it (the
/// si_uid of a SIGCHLD, a waitid, a signal the kernel sends for someone).
pub fn uid_seen_by(viewer: &crate::process::Process, kid: u32) -> u32 {
    // Read under the lock, no reference taken: every signal sent comes
    // through here.
    viewer.creds.lock().user_ns.uid_shown(kid)
}

/// Makes a user namespace below `creds`'s, owned by its effective ids
/// (Linux's create_user_ns). `chrooted`: the caller's root is not its
/// mount namespace's (EPERM, as Linux).
pub fn create(creds: &Credentials, chrooted: bool) -> Result<Arc<UserNs>> {
    let parent = creds.user_ns.clone();
    if parent.level >= MAX_PARENT_LEVEL + 1 {
        return Err(Errno::ENOSPC);
    }
    if chrooted {
        return Err(Errno::EPERM);
    }
    // The creator must be someone its namespace can name.
    if parent.uid_up(creds.euid).is_none() || parent.gid_up(creds.egid).is_none() {
        return Err(Errno::EPERM);
    }
    Ok(Arc::new(UserNs {
        inum: super::alloc_inum(),
        level: parent.level + 1,
        owner: creds.euid,
        uid_map: SpinLock::new(None),
        gid_map: SpinLock::new(None),
        setgroups: AtomicBool::new(parent.setgroups.load(Ordering::Relaxed)),
        parent: Some(parent),
    }))
}

/// The credentials of a process that enters user namespace `ns` (made
/// by it, or joined with setns): every capability inside, nothing
/// inherited or ambient, default securebits (Linux's set_cred_user_ns).
pub fn enter(creds: &mut Credentials, ns: Arc<UserNs>) {
    let all = crate::process::ALL_CAPS;
    creds.cap_permitted = all;
    creds.cap_effective = all;
    creds.cap_bounding = all;
    creds.cap_inheritable = 0;
    creds.cap_ambient = 0;
    creds.securebits = 0;
    creds.keep_caps = false;
    creds.user_ns = ns;
}

/// Whether credentials `creds` hold capability `cap` in user namespace
/// `target` (Linux's cap_capable): their own capability sets if it is
/// their namespace; every capability if their namespace is an ancestor
/// of it and their effective uid owns it or the child of their
/// namespace it lies below; nothing otherwise.
pub fn ns_capable(creds: &Credentials, target: &Arc<UserNs>, cap: u32) -> bool {
    let mine = &creds.user_ns;
    let mut ns = target;
    loop {
        if Arc::ptr_eq(ns, mine) {
            return creds.has_cap(cap);
        }
        if ns.level <= mine.level {
            return false;
        }
        let Some(parent) = &ns.parent else { return false };
        if Arc::ptr_eq(parent, mine) && ns.owner == creds.euid {
            return true;
        }
        ns = parent;
    }
}

/// The kernel id that is root (0) in `ns`, if it maps 0.
pub fn root_uid(ns: &UserNs) -> Option<u32> {
    ns.uid_down(0)
}

// --- the owners of the other namespaces -------------------------------------

/// The user namespace owning each namespace made outside the initial one,
/// by nsfs inode number, with a weak reference to the namespace (an
/// entry whose namespace is gone is pruned).
static OWNERS: SpinLock<BTreeMap<u64, (Weak<dyn Any + Send + Sync>, Arc<UserNs>)>> = SpinLock::new(BTreeMap::new());

/// Records that namespace `ns` (inode number `inum`) is owned by `owner`.
pub fn set_owner(inum: u64, ns: Weak<dyn Any + Send + Sync>, owner: Arc<UserNs>) {
    let mut owners = OWNERS.lock();
    owners.retain(|_, (ns, _)| ns.strong_count() > 0);
    if !owner.is_init() {
        owners.insert(inum, (ns, owner));
    }
}

/// The user namespace owning the namespace with inode number `inum` (the
/// initial one for namespaces made there).
pub fn owner_of(inum: u64) -> Arc<UserNs> {
    let owners = OWNERS.lock();
    match owners.get(&inum) {
        Some((ns, owner)) if ns.strong_count() > 0 => owner.clone(),
        _ => {
            drop(owners);
            init_ns()
        }
    }
}

/// Whether `process` holds `cap` in the user namespace owning the
/// namespace with inode number `inum` (sethostname, mount, setns...).
pub fn capable_over(process: &crate::process::Process, inum: u64, cap: u32) -> bool {
    let owner = owner_of(inum);
    let creds = process.creds.lock().clone();
    ns_capable(&creds, &owner, cap)
}

// --- /proc/PID/uid_map, gid_map, setgroups ----------------------------------

/// Which /proc/PID file of a user namespace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MapFile {
    Uid,
    Gid,
    Setgroups,
}

/// What /proc/PID/uid_map or gid_map of a process in `ns` reads for a
/// reader in `reader`: one line per extent, the lower ids as the
/// reader sees them (or its parent when the reader is in `ns`).
pub fn map_text(ns: &Arc<UserNs>, which: MapFile, reader: &Arc<UserNs>) -> String {
    if which == MapFile::Setgroups {
        return String::from(if ns.setgroups.load(Ordering::Relaxed) { "allow\n" } else { "deny\n" });
    }
    let lower_ns = match &ns.parent {
        Some(parent) if Arc::ptr_eq(reader, ns) => parent.clone(),
        _ => reader.clone(),
    };
    let map = if which == MapFile::Uid { ns.uid_map.lock().clone() } else { ns.gid_map.lock().clone() };
    let mut out = String::new();
    for e in map.unwrap_or_default() {
        // Linux's from_kuid: -1 for an id the reader's side does not map.
        let lower = if which == MapFile::Uid { lower_ns.uid_up(e.lower) } else { lower_ns.gid_up(e.lower) }.unwrap_or(u32::MAX);
        out.push_str(&format!("{:>10} {:>10} {:>10}\n", e.first, lower, e.count));
    }
    out
}

/// Parses the lines of a map write (Linux's map_write): three unsigned
/// numbers each, no range empty or wrapping, none overlapping, at most
/// MAX_EXTENTS (EINVAL otherwise). The lower ids are still the parent's.
fn parse_map(text: &[u8]) -> Result<Vec<Extent>> {
    let text = core::str::from_utf8(text).map_err(|_| Errno::EINVAL)?;
    let mut map: Vec<Extent> = Vec::new();
    let mut lines = text.split('\n').peekable();
    while let Some(line) = lines.next() {
        if line.is_empty() && lines.peek().is_none() {
            break;
        }
        let mut fields = line.split(|c: char| c == ' ' || c == '\t' || c == '\r' || c == '\x0b' || c == '\x0c').filter(|f| !f.is_empty());
        let mut number = || -> Result<u32> {
            let f = fields.next().ok_or(Errno::EINVAL)?;
            f.parse::<u64>().ok().and_then(|v| u32::try_from(v).ok()).ok_or(Errno::EINVAL)
        };
        let (first, lower, count) = (number()?, number()?, number()?);
        if fields.next().is_some() {
            return Err(Errno::EINVAL);
        }
        if first == u32::MAX || lower == u32::MAX {
            return Err(Errno::EINVAL);
        }
        if first.checked_add(count).map_or(true, |end| end <= first) || lower.checked_add(count).map_or(true, |end| end <= lower) {
            return Err(Errno::EINVAL);
        }
        if map.len() == MAX_EXTENTS {
            return Err(Errno::EINVAL);
        }
        let overlaps = |a: u32, an: u32, b: u32, bn: u32| a < b + bn && b < a + an;
        if map.iter().any(|e| overlaps(e.first, e.count, first, count) || overlaps(e.lower, e.count, lower, count)) {
            return Err(Errno::EINVAL);
        }
        map.push(Extent { first, lower, count });
    }
    if map.is_empty() {
        return Err(Errno::EINVAL);
    }
    Ok(map)
}

/// A write to /proc/PID/uid_map, gid_map or setgroups of a process in
/// `ns`, by `writer` (Linux's proc_id_map_write and
/// proc_setgroups_write). Returns the bytes taken.
pub fn write(ns: &Arc<UserNs>, which: MapFile, writer: &crate::process::Process, offset: usize, buf: &[u8]) -> Result<usize> {
    let creds = writer.creds.lock().clone();
    if which == MapFile::Setgroups {
        if offset != 0 || buf.len() >= 8 {
            return Err(Errno::EINVAL);
        }
        let text = core::str::from_utf8(buf).map_err(|_| Errno::EINVAL)?;
        let allow = if let Some(rest) = text.strip_prefix("allow") {
            (true, rest)
        } else if let Some(rest) = text.strip_prefix("deny") {
            (false, rest)
        } else {
            return Err(Errno::EINVAL);
        };
        if !allow.1.trim_start_matches(|c: char| c.is_ascii_whitespace()).is_empty() {
            return Err(Errno::EINVAL);
        }
        if !ns_capable(&creds, ns, abi::CAP_SYS_ADMIN) {
            return Err(Errno::EPERM);
        }
        // Under the map's lock: a gid map and "deny" exclude each other.
        let gid_map = ns.gid_map.lock();
        if allow.0 {
            if !ns.setgroups.load(Ordering::Relaxed) {
                return Err(Errno::EPERM);
            }
        } else {
            if gid_map.is_some() {
                return Err(Errno::EPERM);
            }
            ns.setgroups.store(false, Ordering::Relaxed);
        }
        return Ok(buf.len());
    }
    // Only from the namespace itself or its parent.
    let seq_ns = &creds.user_ns;
    if !Arc::ptr_eq(seq_ns, ns) && !ns.parent.as_ref().is_some_and(|p| Arc::ptr_eq(seq_ns, p)) {
        return Err(Errno::EPERM);
    }
    if offset != 0 || buf.len() >= kevlar_platform::mm::PAGE_SIZE {
        return Err(Errno::EINVAL);
    }
    let Some(parent) = ns.parent.clone() else { return Err(Errno::EPERM) };
    let slot = if which == MapFile::Uid { &ns.uid_map } else { &ns.gid_map };
    let mut map = slot.lock();
    if map.is_some() {
        return Err(Errno::EPERM);
    }
    if !ns_capable(&creds, ns, abi::CAP_SYS_ADMIN) {
        return Err(Errno::EPERM);
    }
    let mut new = parse_map(buf)?;
    let cap = if which == MapFile::Uid { abi::CAP_SETUID } else { abi::CAP_SETGID };
    // Linux's new_idmap_permitted: the owner may map its own id alone
    // (its group only once setgroups is denied); anything else takes the
    // capability over the parent namespace.
    let own = new.len() == 1 && new[0].count == 1 && ns.owner == creds.euid && {
        let lower = new[0].lower;
        if which == MapFile::Uid {
            parent.uid_down(lower) == Some(creds.euid)
        } else {
            !ns.setgroups.load(Ordering::Relaxed) && parent.gid_down(lower) == Some(creds.egid)
        }
    };
    if !own && !ns_capable(&creds, &parent, cap) {
        return Err(Errno::EPERM);
    }
    // The lower ids become kernel ids through the parent's map: each
    // range must be mapped there, in one piece.
    for e in new.iter_mut() {
        let parent_map = if which == MapFile::Uid { parent.uid_map.lock().clone() } else { parent.gid_map.lock().clone() };
        let within = parent_map.unwrap_or_default().into_iter().find(|p| e.lower >= p.first && e.lower - p.first < p.count && (e.lower - p.first) as u64 + e.count as u64 <= p.count as u64);
        match within {
            Some(p) => e.lower = p.lower + (e.lower - p.first),
            None => return Err(Errno::EPERM),
        }
    }
    *map = Some(new);
    Ok(buf.len())
}

/// Whether file system type `fstype` may be mounted by a process
/// without CAP_SYS_ADMIN in the initial user namespace (the types Linux
/// 6.1 marks FS_USERNS_MOUNT).
pub fn userns_mountable(fstype: &[u8]) -> bool {
    matches!(fstype, b"tmpfs" | b"ramfs" | b"proc" | b"sysfs" | b"devpts" | b"mqueue" | b"cgroup" | b"cgroup2" | b"overlay" | b"fuse")
}

/// Records `set.user` as the owner of each namespace of `set` that is not
/// in `old` (the ones clone or unshare just made).
pub fn record_owners(old: &super::NsSet, set: &super::NsSet) {
    if set.user.is_init() {
        return;
    }
    fn weak<T: Any + Send + Sync>(ns: &Arc<T>) -> Weak<dyn Any + Send + Sync> {
        let weak: Weak<T> = Arc::downgrade(ns);
        weak
    }
    let owner = &set.user;
    if !Arc::ptr_eq(&old.mnt, &set.mnt) {
        set_owner(set.mnt.inum, weak(&set.mnt), owner.clone());
    }
    if !Arc::ptr_eq(&old.uts, &set.uts) {
        set_owner(set.uts.inum, weak(&set.uts), owner.clone());
    }
    if !Arc::ptr_eq(&old.ipc, &set.ipc) {
        set_owner(set.ipc.inum, weak(&set.ipc), owner.clone());
    }
    if !Arc::ptr_eq(&old.net, &set.net) {
        set_owner(set.net.inum, weak(&set.net), owner.clone());
    }
    if !Arc::ptr_eq(&old.cgroup, &set.cgroup) {
        set_owner(set.cgroup.inum, weak(&set.cgroup), owner.clone());
    }
    if !Arc::ptr_eq(&old.pid_for_children, &set.pid_for_children) {
        set_owner(set.pid_for_children.inum, weak(&set.pid_for_children), owner.clone());
    }
    if !Arc::ptr_eq(&old.time_for_children, &set.time_for_children) {
        set_owner(set.time_for_children.inum, weak(&set.time_for_children), owner.clone());
    }
}

/// The credentials a child gets from its parent's `creds` when it starts
/// in user namespace `ns` (a new one from clone: every capability there).
pub fn child_creds(creds: &Credentials, ns: &Arc<UserNs>) -> Credentials {
    let mut child = creds.clone();
    if !Arc::ptr_eq(&child.user_ns, ns) {
        enter(&mut child, ns.clone());
    }
    child
}

/// Whether `process` is chrooted: its root is not its mount namespace's
/// (Linux's current_chrooted).
pub fn chrooted(process: &crate::process::Process) -> bool {
    let fs = process.fs.lock();
    match fs.mnt.root() {
        Some(root) => root.fs_id() != fs.root.fs_id() || root.ino() != fs.root.ino(),
        None => false,
    }
}
