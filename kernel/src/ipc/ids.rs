//! What the three System V object kinds share: the ids (an index below
//! IPCMNI and a sequence number, as Linux hands them out), lookup by key,
//! the `ipc64_perm` ownership and mode, and the permission rules.

use alloc::collections::BTreeMap;
use alloc::sync::Arc;

use super::abi::*;
use crate::error::{Errno, Result};
use crate::process::{Credentials, Process};
use linux_raw_sys::general as nr;

/// Linux's IPCMNI_SHIFT: an id is `seq << 15 | index`.
const IDX_SHIFT: u32 = 15;
const IDX_MAX: u32 = 1 << IDX_SHIFT;
/// The largest sequence number (INT_MAX >> IPCMNI_SHIFT).
const SEQ_MAX: u32 = (i32::MAX as u32) >> IDX_SHIFT;

/// An object's ownership and permissions (`struct kern_ipc_perm`).
#[derive(Clone, Copy)]
pub struct Perm {
    pub key: i32,
    pub uid: u32,
    pub gid: u32,
    pub cuid: u32,
    pub cgid: u32,
    /// Permission bits, plus the kind's own flags (SHM_DEST, SHM_LOCKED).
    pub mode: u32,
    pub seq: u32,
    /// The full id.
    pub id: i32,
}

/// The read and write bits of the three classes (S_IRUGO, S_IWUGO).
pub const READ: u32 = 0o444;
pub const WRITE: u32 = 0o222;

fn in_group(creds: &Credentials, gid: u32) -> bool {
    creds.fsgid == gid || creds.groups.contains(&gid)
}

/// The user namespace owning the caller's IPC namespace: where Linux
/// asks CAP_IPC_OWNER and CAP_SYS_ADMIN over its objects.
fn owner_ns() -> Arc<crate::ns::user::UserNs> {
    crate::ns::user::owner_of(super::ns::current())
}

impl Perm {
    /// A new object's permissions for `key`, owned by the caller.
    pub fn new(key: i32, creds: &Credentials, flags: u32) -> Perm {
        Perm { key, uid: creds.euid, gid: creds.egid, cuid: creds.euid, cgid: creds.egid, mode: flags & 0o777, seq: 0, id: 0 }
    }

    /// Linux's ipcperms: the bits of `requested` (any of the three classes'
    /// rwx bits) must be granted to the caller's class, or the caller needs
    /// CAP_IPC_OWNER. EACCES otherwise.
    pub fn check(&self, process: &Process, requested: u32) -> Result<()> {
        let owner = owner_ns();
        let creds = process.creds.lock();
        let requested = (requested >> 6) | (requested >> 3) | requested;
        let mut granted = self.mode;
        if creds.euid == self.cuid || creds.euid == self.uid {
            granted >>= 6;
        } else if in_group(&creds, self.cgid) || in_group(&creds, self.gid) {
            granted >>= 3;
        }
        if (requested & !granted & 0o7) != 0 && !crate::ns::user::ns_capable(&creds, &owner, nr::CAP_IPC_OWNER) {
            return Err(Errno::EACCES);
        }
        Ok(())
    }

    /// IPC_SET and IPC_RMID: the owner, the creator or CAP_SYS_ADMIN in
    /// the user namespace owning the IPC namespace.
    pub fn check_owner(&self, process: &Process) -> Result<()> {
        let owner = owner_ns();
        let creds = process.creds.lock();
        if creds.euid == self.uid || creds.euid == self.cuid || crate::ns::user::ns_capable(&creds, &owner, nr::CAP_SYS_ADMIN) {
            Ok(())
        } else {
            Err(Errno::EPERM)
        }
    }

    /// IPC_SET's new owner and permission bits, the ids as `process`'s
    /// user namespace numbers them (EINVAL for one it does not map, as
    /// Linux's ipc_update_perm).
    pub fn set(&mut self, process: &Process, uid: u32, gid: u32, mode: u32) -> Result<()> {
        let ns = process.creds.lock().user_ns.clone();
        let (Some(uid), Some(gid)) = (ns.uid_down(uid), ns.gid_down(gid)) else { return Err(Errno::EINVAL) };
        self.uid = uid;
        self.gid = gid;
        self.mode = (self.mode & !0o777) | (mode & 0o777);
        Ok(())
    }

    /// The same permissions with the owner and creator ids as user
    /// namespace `ns` sees them (IPC_STAT, /proc/sysvipc): the overflow id
    /// for one it does not map.
    pub fn shown(&self, ns: &crate::ns::user::UserNs) -> Perm {
        Perm { uid: ns.uid_shown(self.uid), gid: ns.gid_shown(self.gid), cuid: ns.uid_shown(self.cuid), cgid: ns.gid_shown(self.cgid), ..*self }
    }

    /// `struct ipc64_perm` (48 bytes).
    pub fn write_to(&self, out: &mut [u8]) {
        put_u32(out, 0, self.key as u32);
        put_u32(out, 4, self.uid);
        put_u32(out, 8, self.gid);
        put_u32(out, 12, self.cuid);
        put_u32(out, 16, self.cgid);
        put_u32(out, 20, self.mode);
        out[24..26].copy_from_slice(&(self.seq as u16).to_le_bytes());
    }
}

/// IPC_SET's input: uid, gid and mode of an `ipc64_perm`.
pub fn read_perm_set(buf: &[u8]) -> (u32, u32, u32) {
    (get_u32(buf, 4), get_u32(buf, 8), get_u32(buf, 20))
}

pub fn put_u32(out: &mut [u8], at: usize, v: u32) {
    out[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

pub fn put_u64(out: &mut [u8], at: usize, v: u64) {
    out[at..at + 8].copy_from_slice(&v.to_le_bytes());
}

pub fn get_u32(buf: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(buf[at..at + 4].try_into().unwrap())
}

pub fn get_u64(buf: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(buf[at..at + 8].try_into().unwrap())
}

/// One kind's objects, by index.
pub struct Ids<T> {
    objects: BTreeMap<u32, T>,
    seq: u32,
    last_idx: i64,
    /// Where the cyclic search for a free index starts.
    next: u32,
}

/// What every object kind exposes to the id table.
pub trait Object {
    fn perm(&self) -> &Perm;
    fn perm_mut(&mut self) -> &mut Perm;
}

impl<T: Object> Ids<T> {
    pub const fn new() -> Self {
        Ids { objects: BTreeMap::new(), seq: 0, last_idx: -1, next: 0 }
    }

    /// The object with `key` (never IPC_PRIVATE).
    pub fn find_key(&self, key: i32) -> Option<i32> {
        if key == IPC_PRIVATE {
            return None;
        }
        self.objects.values().find(|o| o.perm().key == key).map(|o| o.perm().id)
    }

    /// Adds `object` at a free index below `mni` (ENOSPC when `mni`
    /// objects exist); returns its id.
    pub fn insert(&mut self, mut object: T, mni: u32) -> Result<i32> {
        let limit = mni.min(IDX_MAX);
        if self.objects.len() as u32 >= limit {
            return Err(Errno::ENOSPC);
        }
        // idr_alloc_cyclic: the first free index from the one after the
        // last handed out, wrapping to 0.
        let start = if self.next >= limit { 0 } else { self.next };
        let idx = (start..limit).chain(0..start).find(|i| !self.objects.contains_key(i)).ok_or(Errno::ENOSPC)?;
        if (idx as i64) <= self.last_idx {
            self.seq += 1;
            if self.seq >= SEQ_MAX {
                self.seq = 0;
            }
        }
        self.last_idx = idx as i64;
        self.next = idx + 1;
        let perm = object.perm_mut();
        perm.seq = self.seq;
        perm.id = ((self.seq << IDX_SHIFT) | idx) as i32;
        let id = perm.id;
        self.objects.insert(idx, object);
        Ok(id)
    }

    /// The object with `id` (EINVAL for none, or a stale sequence).
    pub fn get(&self, id: i32) -> Result<&T> {
        if id < 0 {
            return Err(Errno::EINVAL);
        }
        let o = self.objects.get(&(id as u32 & (IDX_MAX - 1))).ok_or(Errno::EINVAL)?;
        if o.perm().id != id {
            return Err(Errno::EINVAL);
        }
        Ok(o)
    }

    pub fn get_mut(&mut self, id: i32) -> Result<&mut T> {
        self.get(id)?;
        Ok(self.objects.get_mut(&(id as u32 & (IDX_MAX - 1))).unwrap())
    }

    /// The object at index `idx` (the *_STAT commands), EINVAL for none.
    pub fn by_index(&self, idx: i32) -> Result<&T> {
        if idx < 0 {
            return Err(Errno::EINVAL);
        }
        // Linux masks the index bits out of whatever it is given.
        self.objects.get(&(idx as u32 & (IDX_MAX - 1))).ok_or(Errno::EINVAL)
    }

    pub fn remove(&mut self, id: i32) -> Option<T> {
        self.get(id).ok()?;
        self.objects.remove(&(id as u32 & (IDX_MAX - 1)))
    }

    /// The highest index in use, or -1.
    pub fn max_idx(&self) -> i32 {
        self.objects.keys().next_back().map_or(-1, |&i| i as i32)
    }

    pub fn len(&self) -> usize {
        self.objects.len()
    }

    pub fn iter(&self) -> impl Iterator<Item = &T> {
        self.objects.values()
    }

    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut T> {
        self.objects.values_mut()
    }

    pub fn retain(&mut self, mut keep: impl FnMut(&T) -> bool) {
        self.objects.retain(|_, o| keep(o));
    }
}

/// The common part of msgget, semget and shmget (ipcget): an existing
/// object by key (`check` runs the kind's extra checks on it), or a new
/// one from `create`.
pub fn get_or_create<T: Object>(
    ids: &mut Ids<T>,
    process: &Process,
    key: i32,
    flags: u32,
    check: impl FnOnce(&T) -> Result<()>,
    create: impl FnOnce(&mut Ids<T>) -> Result<i32>,
) -> Result<i32> {
    if key == IPC_PRIVATE {
        return create(ids);
    }
    match ids.find_key(key) {
        None if flags & IPC_CREAT == 0 => Err(Errno::ENOENT),
        None => create(ids),
        Some(_) if flags & IPC_CREAT != 0 && flags & IPC_EXCL != 0 => Err(Errno::EEXIST),
        Some(id) => {
            let object = ids.get(id)?;
            check(object)?;
            object.perm().check(process, flags & 0o777)?;
            Ok(id)
        }
    }
}
