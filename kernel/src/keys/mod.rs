//! Kernel key retention (add_key, request_key, keyctl): keys of the
//! "user", "logon" and "keyring" types, each with a serial number, an
//! owner, a group, permissions and a payload; keyrings link keys; every
//! process reaches its thread, process and session keyrings and its
//! user's user and user-session keyrings.
//!
//! Linux's rules as `security/keys/` has them: permissions are six bits
//! (view, read, write, search, link, setattr) for the possessor, the
//! owner, the group and others; a key is possessed when a search from the
//! caller's own keyrings finds it (or it was named by a special id). No
//! upcall: request_key finds what is there or fails with ENOKEY, as Linux
//! without /sbin/request-key.

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::sync::{Arc, Weak};
use alloc::vec::Vec;
use core::sync::atomic::{AtomicU32, Ordering};

use kevlar_platform::sync::SpinLock;

use crate::error::{Errno, Result};
use crate::process::{Credentials, Thread};

mod proc;
pub use proc::{proc_key_users, proc_keys};

// From include/uapi/linux/keyctl.h (not in linux-raw-sys 0.12).
pub const KEY_SPEC_THREAD_KEYRING: i32 = -1;
pub const KEY_SPEC_PROCESS_KEYRING: i32 = -2;
pub const KEY_SPEC_SESSION_KEYRING: i32 = -3;
pub const KEY_SPEC_USER_KEYRING: i32 = -4;
pub const KEY_SPEC_USER_SESSION_KEYRING: i32 = -5;
pub const KEY_SPEC_GROUP_KEYRING: i32 = -6;
pub const KEY_SPEC_REQKEY_AUTH_KEY: i32 = -7;
pub const KEY_SPEC_REQUESTOR_KEYRING: i32 = -8;

pub const KEY_REQKEY_DEFL_NO_CHANGE: i32 = -1;
pub const KEY_REQKEY_DEFL_DEFAULT: i32 = 0;
pub const KEY_REQKEY_DEFL_REQUESTOR_KEYRING: i32 = 7;

/// Permission bits (one group of six; shifted by 24, 16, 8, 0 for the
/// possessor, owner, group and others).
pub const KEY_VIEW: u32 = 0x01;
pub const KEY_READ: u32 = 0x02;
pub const KEY_WRITE: u32 = 0x04;
pub const KEY_SEARCH: u32 = 0x08;
pub const KEY_LINK: u32 = 0x10;
pub const KEY_SETATTR: u32 = 0x20;
const KEY_ALL: u32 = 0x3f;
const POS: u32 = 24;
const USR: u32 = 16;

/// The largest payload a "user" or "logon" key holds.
const USER_PAYLOAD_MAX: usize = 32767;
/// What each link in a keyring charges to the keyring owner's quota
/// (Linux's KEYQUOTA_LINK_BYTES).
const LINK_BYTES: isize = 4;
/// How deep a search goes into nested keyrings.
const SEARCH_DEPTH: usize = 6;

/// A key type.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum KeyType {
    User,
    Logon,
    Keyring,
}

impl KeyType {
    /// The type named `name`: ENODEV for one the kernel does not have,
    /// EPERM for the internal ones (a leading dot).
    pub fn from_name(name: &[u8]) -> Result<KeyType> {
        match name {
            b"user" => Ok(KeyType::User),
            b"logon" => Ok(KeyType::Logon),
            b"keyring" => Ok(KeyType::Keyring),
            _ if name.first() == Some(&b'.') => Err(Errno::EPERM),
            _ => Err(Errno::ENODEV),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            KeyType::User => "user",
            KeyType::Logon => "logon",
            KeyType::Keyring => "keyring",
        }
    }

    /// Checks a description (logon keys need "service:name").
    fn vet_description(self, desc: &[u8]) -> Result<()> {
        if self == KeyType::Logon {
            match desc.iter().position(|&b| b == b':') {
                Some(0) | None => return Err(Errno::EINVAL),
                Some(_) => {}
            }
        }
        Ok(())
    }

    /// Checks a payload for a new key or an update.
    fn vet_payload(self, payload: &[u8]) -> Result<()> {
        match self {
            KeyType::User | KeyType::Logon if payload.is_empty() || payload.len() > USER_PAYLOAD_MAX => Err(Errno::EINVAL),
            KeyType::Keyring if !payload.is_empty() => Err(Errno::EINVAL),
            _ => Ok(()),
        }
    }
}

/// A key.
pub struct Key {
    pub serial: i32,
    pub ktype: KeyType,
    pub description: Vec<u8>,
    /// The user whose quota the key is charged to (its creator).
    quota_uid: u32,
    state: SpinLock<KeyState>,
}

/// Keys and bytes each user holds, against Linux's default quotas
/// (/proc/sys/kernel/keys/maxkeys and maxbytes, root_maxkeys and
/// root_maxbytes): no user fills the kernel's memory with keys.
static QUOTAS: SpinLock<BTreeMap<u32, (usize, usize)>> = SpinLock::new(BTreeMap::new());

fn quota_limits(uid: u32) -> (usize, usize) {
    if uid == 0 { (1_000_000, 25_000_000) } else { (200, 20_000) }
}

/// Charges one key of `bytes` (or, with `keys` 0, `bytes` more) to `uid`;
/// EDQUOT past the quota unless `overrun` (the keyrings the kernel makes
/// for a process may go over, as Linux's KEY_ALLOC_QUOTA_OVERRUN).
fn charge(uid: u32, keys: usize, bytes: isize, overrun: bool) -> Result<()> {
    let mut quotas = QUOTAS.lock();
    let entry = quotas.entry(uid).or_insert((0, 0));
    let (max_keys, max_bytes) = quota_limits(uid);
    let new_keys = entry.0 + keys;
    let new_bytes = entry.1.saturating_add_signed(bytes);
    if !overrun && (new_keys > max_keys || (bytes > 0 && new_bytes > max_bytes)) {
        return Err(Errno::EDQUOT);
    }
    *entry = (new_keys, new_bytes);
    Ok(())
}

impl Drop for Key {
    fn drop(&mut self) {
        // The quota lock is a leaf: a key may be dropped under any lock.
        let bytes = self.state.get_mut().charged;
        let mut quotas = QUOTAS.lock();
        if let Some(entry) = quotas.get_mut(&self.quota_uid) {
            *entry = (entry.0.saturating_sub(1), entry.1.saturating_sub(bytes));
        }
    }
}

struct KeyState {
    uid: u32,
    gid: u32,
    perm: u32,
    /// A "user" or "logon" key's data.
    payload: Vec<u8>,
    /// A keyring's keys, in the order linked.
    links: Vec<Arc<Key>>,
    revoked: bool,
    invalidated: bool,
    /// CLOCK_REALTIME nanoseconds at which the key expires, if set.
    expiry: Option<u64>,
    /// Bytes charged to the owner's quota (description, NUL, payload).
    charged: usize,
}

/// Every key alive, by serial.
static KEYS: SpinLock<BTreeMap<i32, Weak<Key>>> = SpinLock::new(BTreeMap::new());
static NEXT_SERIAL: AtomicU32 = AtomicU32::new(0);

fn new_serial() -> i32 {
    // Linux picks random serials (never below 3); a scrambled counter
    // keeps them unpredictable enough and unique.
    loop {
        let mut b = [0u8; 4];
        crate::fs::devices::fill_random(&mut b);
        let serial = (u32::from_le_bytes(b) ^ NEXT_SERIAL.fetch_add(1, Ordering::Relaxed)) & 0x7fff_ffff;
        if serial >= 3 && !KEYS.lock().get(&(serial as i32)).is_some_and(|w| w.strong_count() > 0) {
            return serial as i32;
        }
    }
}

impl Key {
    /// A key made for a user's request, charged to its quota (EDQUOT).
    fn new(ktype: KeyType, description: &[u8], uid: u32, gid: u32, perm: u32, payload: Vec<u8>) -> Result<Arc<Key>> {
        let charged = description.len() + 1 + payload.len();
        charge(uid, 1, charged as isize, false)?;
        Ok(Key::construct(ktype, description, uid, gid, perm, payload, charged))
    }

    /// A keyring the kernel makes for a process or user: charged, but it
    /// may go over the quota (Linux's KEY_ALLOC_QUOTA_OVERRUN).
    fn keyring(description: &[u8], uid: u32, gid: u32, perm: u32) -> Arc<Key> {
        let charged = description.len() + 1;
        let _ = charge(uid, 1, charged as isize, true);
        Key::construct(KeyType::Keyring, description, uid, gid, perm, Vec::new(), charged)
    }

    fn construct(ktype: KeyType, description: &[u8], uid: u32, gid: u32, perm: u32, payload: Vec<u8>, charged: usize) -> Arc<Key> {
        let serial = new_serial();
        let key = Arc::new(Key {
            serial,
            ktype,
            description: description.to_vec(),
            quota_uid: uid,
            state: SpinLock::new(KeyState { uid, gid, perm, payload, links: Vec::new(), revoked: false, invalidated: false, expiry: None, charged }),
        });
        let mut keys = KEYS.lock();
        if keys.len() % 64 == 63 {
            keys.retain(|_, w| w.strong_count() > 0);
        }
        keys.insert(serial, Arc::downgrade(&key));
        key
    }

    /// Replaces a key's payload, charging the difference.
    fn set_payload(&self, payload: Vec<u8>) -> Result<()> {
        let mut st = self.state.lock();
        let delta = payload.len() as isize - st.payload.len() as isize;
        charge(self.quota_uid, 0, delta, false)?;
        st.charged = st.charged.saturating_add_signed(delta);
        st.payload = payload;
        Ok(())
    }

    /// Changes a keyring's links (its state `st`, locked) to those `keep`
    /// leaves and `add`, charging its owner LINK_BYTES for each link more
    /// (EDQUOT past the quota, nothing changed) and giving back for each
    /// one less.
    fn relink(&self, st: &mut KeyState, keep: impl Fn(&Arc<Key>) -> bool, add: Option<Arc<Key>>) -> Result<()> {
        let mut links: Vec<Arc<Key>> = st.links.iter().filter(|k| keep(k)).cloned().collect();
        links.extend(add);
        let delta = (links.len() as isize - st.links.len() as isize) * LINK_BYTES;
        if delta != 0 {
            charge(self.quota_uid, 0, delta, false)?;
            st.charged = st.charged.saturating_add_signed(delta);
        }
        st.links = links;
        Ok(())
    }

    /// Fails as Linux's key_validate: EKEYREVOKED, EKEYEXPIRED, or ENOKEY
    /// for an invalidated key.
    pub fn validate(&self) -> Result<()> {
        let st = self.state.lock();
        if st.invalidated {
            return Err(Errno::ENOKEY);
        }
        if st.revoked {
            return Err(Errno::EKEYREVOKED);
        }
        if st.expiry.is_some_and(|t| kevlar_platform::time::realtime_ns() >= t) {
            return Err(Errno::EKEYEXPIRED);
        }
        Ok(())
    }

    fn is_dead(&self) -> bool {
        let st = self.state.lock();
        st.invalidated || st.revoked || st.expiry.is_some_and(|t| kevlar_platform::time::realtime_ns() >= t)
    }

    /// The permission bits `cred` gets on this key (with the possessor's
    /// when it is `possessed`).
    fn granted(&self, cred: &Credentials, possessed: bool) -> u32 {
        let st = self.state.lock();
        let mut bits = if st.uid == cred.fsuid {
            st.perm >> 16
        } else if st.gid != u32::MAX && (st.gid == cred.fsgid || cred.groups.contains(&st.gid)) {
            st.perm >> 8
        } else {
            st.perm
        };
        if possessed {
            bits |= st.perm >> 24;
        }
        bits & KEY_ALL
    }

    /// Linux's "type;uid;gid;perm;description" (KEYCTL_DESCRIBE).
    pub fn describe(&self) -> Vec<u8> {
        let st = self.state.lock();
        // An id with no value (the user keyrings' group) shows as the
        // overflow id, 65534.
        let shown = |id: u32| if id == u32::MAX { 65534 } else { id };
        let mut s = alloc::format!("{};{};{};{:08x};", self.ktype.name(), shown(st.uid), shown(st.gid), st.perm).into_bytes();
        s.extend_from_slice(&self.description);
        s
    }

    /// What KEYCTL_READ gives: a key's data, a keyring's serials.
    /// EOPNOTSUPP for a type that cannot be read (logon).
    pub fn read(&self) -> Result<Vec<u8>> {
        let st = self.state.lock();
        match self.ktype {
            KeyType::User => Ok(st.payload.clone()),
            KeyType::Logon => Err(Errno::EOPNOTSUPP),
            KeyType::Keyring => Ok(st.links.iter().filter(|k| !k.state.lock().invalidated).flat_map(|k| k.serial.to_le_bytes()).collect()),
        }
    }

    fn links(&self) -> Vec<Arc<Key>> {
        self.state.lock().links.clone()
    }
}

/// A user's keyrings: user (`_uid.N`) and user-session (`_uid_ses.N`),
/// made on first use and kept while the system runs.
static USER_KEYRINGS: SpinLock<BTreeMap<u32, (Arc<Key>, Arc<Key>)>> = SpinLock::new(BTreeMap::new());

fn user_keyrings(uid: u32) -> (Arc<Key>, Arc<Key>) {
    let mut all = USER_KEYRINGS.lock();
    if let Some(pair) = all.get(&uid) {
        return pair.clone();
    }
    // (KEY_POS_ALL & ~KEY_POS_SETATTR) | KEY_USR_ALL
    let perm = ((KEY_ALL & !KEY_SETATTR) << POS) | (KEY_ALL << USR);
    let user = Key::keyring(alloc::format!("_uid.{}", uid).as_bytes(), uid, u32::MAX, perm);
    let session = Key::keyring(alloc::format!("_uid_ses.{}", uid).as_bytes(), uid, u32::MAX, perm);
    // The user-session keyring holds a link to the user keyring.
    {
        let mut st = session.state.lock();
        // Charged, as a kernel keyring may go over the quota.
        let _ = charge(uid, 0, LINK_BYTES, true);
        st.charged += LINK_BYTES as usize;
        st.links.push(user.clone());
    }
    all.insert(uid, (user.clone(), session.clone()));
    (user, session)
}

/// A process's keyrings (Linux keeps them in its credentials).
#[derive(Clone, Default)]
pub struct ProcessKeys {
    session: Option<Arc<Key>>,
    process: Option<Arc<Key>>,
    /// Thread keyrings, by thread (a thread that ended, or whose id came
    /// back for another, no longer matches).
    threads: Vec<(Weak<Thread>, Arc<Key>)>,
    /// Where request_key links what it finds (KEYCTL_SET_REQKEY_KEYRING).
    reqkey_default: i32,
}

impl ProcessKeys {
    /// A child's: the session keyring is shared, the process and thread
    /// keyrings are not.
    pub fn fork(&self) -> ProcessKeys {
        ProcessKeys { session: self.session.clone(), process: None, threads: Vec::new(), reqkey_default: self.reqkey_default }
    }

    /// After exec: the thread and process keyrings are dropped.
    pub fn exec(&mut self) {
        self.process = None;
        self.threads.clear();
    }

    fn thread(&self, thread: &Arc<Thread>) -> Option<Arc<Key>> {
        self.threads.iter().find(|(t, _)| core::ptr::eq(t.as_ptr(), Arc::as_ptr(thread))).map(|(_, k)| k.clone())
    }
}

/// The caller of a key operation.
pub struct Caller<'a> {
    pub thread: &'a Arc<Thread>,
    pub cred: Credentials,
}

impl Caller<'_> {
    fn keys(&self) -> kevlar_platform::sync::SpinLockGuard<'_, ProcessKeys> {
        self.thread.process.keys.lock()
    }

    /// The caller's own keyrings, searched in Linux's order: thread,
    /// process, session (or, without one, the user-session keyring if it
    /// exists: a search makes none, as Linux's search_cred_keyrings_rcu,
    /// so reading /proc/keys charges the reader nothing).
    fn search_roots(&self) -> Vec<Arc<Key>> {
        let keys = self.keys();
        let mut roots = Vec::new();
        if let Some(k) = keys.thread(self.thread) {
            roots.push(k);
        }
        if let Some(k) = &keys.process {
            roots.push(k.clone());
        }
        let session = keys.session.clone();
        drop(keys);
        match session {
            Some(k) => roots.push(k),
            None => roots.extend(USER_KEYRINGS.lock().get(&self.cred.fsuid).map(|pair| pair.1.clone())),
        }
        roots
    }

    /// Whether the caller possesses `key`: one of its keyrings, or found
    /// under them through keyrings it may search.
    fn possesses(&self, key: &Arc<Key>) -> bool {
        let roots = self.search_roots();
        let mut seen: Vec<i32> = Vec::new();
        let mut level = roots;
        for _ in 0..=SEARCH_DEPTH {
            let mut next = Vec::new();
            for ring in level {
                if ring.serial == key.serial {
                    return ring.granted(&self.cred, true) & KEY_SEARCH != 0;
                }
                if seen.contains(&ring.serial) {
                    continue;
                }
                seen.push(ring.serial);
                if ring.ktype != KeyType::Keyring || ring.is_dead() || ring.granted(&self.cred, true) & KEY_SEARCH == 0 {
                    continue;
                }
                next.extend(ring.links());
            }
            if next.is_empty() {
                break;
            }
            level = next;
        }
        false
    }

    fn new_keyring_perm() -> u32 {
        // KEY_POS_ALL | KEY_USR_VIEW (thread and process keyrings).
        (KEY_ALL << POS) | (KEY_VIEW << USR)
    }

    fn thread_keyring(&self) -> Option<Arc<Key>> {
        self.keys().thread(self.thread)
    }

    fn process_keyring(&self) -> Option<Arc<Key>> {
        self.keys().process.clone()
    }

    /// Makes the calling thread's keyring if it has none.
    fn install_thread_keyring(&self) -> Arc<Key> {
        let mut keys = self.keys();
        if let Some(k) = keys.thread(self.thread) {
            return k;
        }
        let k = Key::keyring(b"_tid", self.cred.fsuid, self.cred.fsgid, Self::new_keyring_perm());
        keys.threads.retain(|(t, _)| t.strong_count() > 0);
        keys.threads.push((Arc::downgrade(self.thread), k.clone()));
        k
    }

    fn install_process_keyring(&self) -> Arc<Key> {
        let mut keys = self.keys();
        if let Some(k) = &keys.process {
            return k.clone();
        }
        let k = Key::keyring(b"_pid", self.cred.fsuid, self.cred.fsgid, Self::new_keyring_perm());
        keys.process = Some(k.clone());
        k
    }

    /// Resolves a key id as Linux's lookup_user_key: special ids name the
    /// caller's keyrings (made when `create`), others a key by serial.
    /// Returns the key and whether the caller possesses it.
    pub fn lookup(&self, id: i32, create: bool) -> Result<(Arc<Key>, bool)> {
        let key = match id {
            KEY_SPEC_THREAD_KEYRING => match self.thread_keyring() {
                Some(k) => k,
                None if create => self.install_thread_keyring(),
                None => return Err(Errno::ENOKEY),
            },
            KEY_SPEC_PROCESS_KEYRING => match self.process_keyring() {
                Some(k) => k,
                None if create => self.install_process_keyring(),
                None => return Err(Errno::ENOKEY),
            },
            KEY_SPEC_SESSION_KEYRING => {
                let session = self.keys().session.clone();
                match session {
                    Some(k) => k,
                    None if create => self.join_session(None)?,
                    None => {
                        // Linux installs the user-session keyring as the
                        // session keyring on first access.
                        let k = user_keyrings(self.cred.fsuid).1;
                        self.keys().session = Some(k.clone());
                        k
                    }
                }
            }
            KEY_SPEC_USER_KEYRING => user_keyrings(self.cred.fsuid).0,
            KEY_SPEC_USER_SESSION_KEYRING => user_keyrings(self.cred.fsuid).1,
            KEY_SPEC_GROUP_KEYRING => return Err(Errno::EINVAL),
            KEY_SPEC_REQKEY_AUTH_KEY | KEY_SPEC_REQUESTOR_KEYRING => return Err(Errno::ENOKEY),
            id if id < 1 => return Err(Errno::EINVAL),
            id => {
                let key = KEYS.lock().get(&id).and_then(Weak::upgrade).ok_or(Errno::ENOKEY)?;
                let possessed = self.possesses(&key);
                return Ok((key, possessed));
            }
        };
        Ok((key, true))
    }

    /// Looks up `id`, checks it is valid (unless `for_unlink`) and that
    /// the caller has `perm` on it.
    pub fn key(&self, id: i32, create: bool, perm: u32) -> Result<(Arc<Key>, bool)> {
        let (key, possessed) = self.lookup(id, create)?;
        key.validate()?;
        self.check(&key, possessed, perm)?;
        Ok((key, possessed))
    }

    pub fn check(&self, key: &Key, possessed: bool, perm: u32) -> Result<()> {
        if key.granted(&self.cred, possessed) & perm != perm {
            return Err(Errno::EACCES);
        }
        Ok(())
    }

    /// KEYCTL_JOIN_SESSION_KEYRING: a new anonymous session keyring
    /// (`_ses`), or the caller's keyring named `name` (made if missing).
    pub fn join_session(&self, name: Option<&[u8]>) -> Result<Arc<Key>> {
        // KEY_POS_ALL | KEY_USR_VIEW | KEY_USR_READ (| KEY_USR_LINK for a
        // named one).
        let perm = (KEY_ALL << POS) | ((KEY_VIEW | KEY_READ | KEY_LINK) << USR);
        let ring = match name {
            None => Key::keyring(b"_ses", self.cred.fsuid, self.cred.fsgid, (KEY_ALL << POS) | ((KEY_VIEW | KEY_READ) << USR)),
            Some(name) => {
                let found = KEYS.lock().values().filter_map(Weak::upgrade).find(|k| {
                    k.ktype == KeyType::Keyring && k.description == name && !k.is_dead() && k.granted(&self.cred, false) & KEY_SEARCH != 0
                });
                match found {
                    Some(k) => k,
                    None => Key::keyring(name, self.cred.fsuid, self.cred.fsgid, perm),
                }
            }
        };
        self.keys().session = Some(ring.clone());
        Ok(ring)
    }

    /// add_key(2): adds (or updates) a key of `ktype` in keyring `ring_id`.
    pub fn add_key(&self, type_name: &[u8], desc: &[u8], payload: Vec<u8>, ring_id: i32) -> Result<i32> {
        let (ring, _) = self.key(ring_id, true, KEY_WRITE)?;
        let ktype = KeyType::from_name(type_name)?;
        if ring.ktype != KeyType::Keyring {
            return Err(Errno::ENOTDIR);
        }
        ktype.vet_payload(&payload)?;
        if desc.is_empty() {
            return Err(Errno::EINVAL);
        }
        ktype.vet_description(desc)?;
        // An existing key of the same type and description is updated, if
        // its type can be (a keyring is replaced by a new one).
        let existing = ring.links().into_iter().find(|k| k.ktype == ktype && k.description == desc && !k.is_dead());
        if let Some(old) = existing.as_ref().filter(|_| ktype != KeyType::Keyring) {
            self.check(old, true, KEY_WRITE)?;
            old.set_payload(payload)?;
            return Ok(old.serial);
        }
        let mut perm = ((KEY_VIEW | KEY_SEARCH | KEY_LINK | KEY_SETATTR) << POS) | (KEY_VIEW << USR);
        if ktype != KeyType::Logon {
            perm |= KEY_READ << POS;
        }
        perm |= KEY_WRITE << POS;
        let key = Key::new(ktype, desc, self.cred.fsuid, self.cred.fsgid, perm, payload)?;
        let mut st = ring.state.lock();
        ring.relink(&mut st, |k| !(k.ktype == ktype && k.description == desc), Some(key.clone()))?;
        Ok(key.serial)
    }

    /// Searches the keyrings under `roots` for a key of `ktype` named
    /// `desc` that the caller may search for (KEY_SEARCH).
    fn search_in(&self, roots: Vec<Arc<Key>>, ktype: KeyType, desc: &[u8]) -> Result<Arc<Key>> {
        let mut seen: Vec<i32> = Vec::new();
        let mut level = roots;
        let mut first_error = None;
        for _ in 0..=SEARCH_DEPTH {
            let mut next = Vec::new();
            for ring in level {
                if seen.contains(&ring.serial) {
                    continue;
                }
                seen.push(ring.serial);
                if ring.ktype != KeyType::Keyring || ring.is_dead() || ring.granted(&self.cred, true) & KEY_SEARCH == 0 {
                    continue;
                }
                for k in ring.links() {
                    if k.ktype == ktype && k.description == desc {
                        if let Err(e) = k.validate() {
                            first_error.get_or_insert(e);
                            continue;
                        }
                        if k.granted(&self.cred, true) & KEY_SEARCH == 0 {
                            first_error.get_or_insert(Errno::EACCES);
                            continue;
                        }
                        return Ok(k);
                    }
                    if k.ktype == KeyType::Keyring {
                        next.push(k);
                    }
                }
            }
            if next.is_empty() {
                break;
            }
            level = next;
        }
        Err(first_error.unwrap_or(Errno::ENOKEY))
    }

    /// KEYCTL_SEARCH: from keyring `ring_id`; links the key found into
    /// `dest_id` (if not 0).
    pub fn search(&self, ring_id: i32, type_name: &[u8], desc: &[u8], dest_id: i32) -> Result<i32> {
        let (ring, _) = self.key(ring_id, false, KEY_SEARCH)?;
        let dest = if dest_id != 0 { Some(self.key(dest_id, true, KEY_WRITE)?.0) } else { None };
        // An unknown type is ENOKEY here (Linux's key_type_lookup).
        let ktype = KeyType::from_name(type_name).map_err(|_| Errno::ENOKEY)?;
        if ring.ktype != KeyType::Keyring {
            return Err(Errno::ENOTDIR);
        }
        let found = self.search_in(alloc::vec![ring], ktype, desc)?;
        if let Some(dest) = dest {
            self.check(&found, true, KEY_LINK)?;
            self.link_into(&dest, &found)?;
        }
        Ok(found.serial)
    }

    /// request_key(2): searches the caller's keyrings; with nothing found,
    /// ENOKEY (no upcall). The key found is linked into `dest_id`, or the
    /// default request-key keyring.
    pub fn request_key(&self, type_name: &[u8], desc: &[u8], callout: bool, dest_id: i32) -> Result<i32> {
        let dest = if dest_id != 0 { Some(self.key(dest_id, true, KEY_WRITE)?.0) } else { None };
        let ktype = KeyType::from_name(type_name).map_err(|_| Errno::ENOKEY)?;
        // Without a key, a callout would run /sbin/request-key: there is
        // none to run (ENOENT); without a callout, ENOKEY.
        let found = self.search_in(self.search_roots(), ktype, desc).map_err(|e| if e == Errno::ENOKEY && callout { Errno::ENOENT } else { e })?;
        if let Some(dest) = dest {
            self.link_into(&dest, &found)?;
        }
        Ok(found.serial)
    }

    fn link_into(&self, ring: &Arc<Key>, key: &Arc<Key>) -> Result<()> {
        if ring.ktype != KeyType::Keyring {
            return Err(Errno::ENOTDIR);
        }
        // A keyring may not end up inside itself.
        if key.ktype == KeyType::Keyring && (key.serial == ring.serial || contains(key, ring.serial, 0)) {
            return Err(Errno::EDEADLK);
        }
        let mut st = ring.state.lock();
        ring.relink(&mut st, |k| !(k.ktype == key.ktype && k.description == key.description), Some(key.clone()))
    }

    /// KEYCTL_LINK.
    pub fn link(&self, key_id: i32, ring_id: i32) -> Result<()> {
        let (ring, _) = self.key(ring_id, true, KEY_WRITE)?;
        let (key, _) = self.key(key_id, true, KEY_LINK)?;
        self.link_into(&ring, &key)
    }

    /// KEYCTL_UNLINK.
    pub fn unlink(&self, key_id: i32, ring_id: i32) -> Result<()> {
        let (ring, _) = self.key(ring_id, false, KEY_WRITE)?;
        if ring.ktype != KeyType::Keyring {
            return Err(Errno::ENOTDIR);
        }
        let (key, _) = self.lookup(key_id, false)?;
        let mut st = ring.state.lock();
        let before = st.links.len();
        ring.relink(&mut st, |k| k.serial != key.serial, None)?;
        if st.links.len() == before {
            return Err(Errno::ENOENT);
        }
        Ok(())
    }

    /// KEYCTL_CLEAR.
    pub fn clear(&self, ring_id: i32) -> Result<()> {
        let (ring, _) = self.key(ring_id, true, KEY_WRITE)?;
        if ring.ktype != KeyType::Keyring {
            return Err(Errno::ENOTDIR);
        }
        let mut st = ring.state.lock();
        ring.relink(&mut st, |_| false, None)?;
        Ok(())
    }

    /// KEYCTL_UPDATE.
    pub fn update(&self, id: i32, payload: Vec<u8>) -> Result<()> {
        let (key, _) = self.key(id, false, KEY_WRITE)?;
        if key.ktype == KeyType::Keyring {
            return Err(Errno::EOPNOTSUPP);
        }
        key.ktype.vet_payload(&payload)?;
        key.set_payload(payload)?;
        Ok(())
    }

    /// KEYCTL_REVOKE: needs write or setattr permission.
    pub fn revoke(&self, id: i32) -> Result<()> {
        let (key, possessed) = self.lookup(id, false)?;
        key.validate()?;
        if self.check(&key, possessed, KEY_WRITE).is_err() {
            self.check(&key, possessed, KEY_SETATTR)?;
        }
        key.state.lock().revoked = true;
        Ok(())
    }

    /// KEYCTL_INVALIDATE: needs search permission; the key is gone for
    /// every lookup and unlinked from every keyring.
    pub fn invalidate(&self, id: i32) -> Result<()> {
        let (key, _) = self.key(id, false, KEY_SEARCH)?;
        key.state.lock().invalidated = true;
        for ring in KEYS.lock().values().filter_map(Weak::upgrade) {
            if ring.ktype == KeyType::Keyring && ring.serial != key.serial {
                let mut st = ring.state.lock();
                let _ = ring.relink(&mut st, |k| k.serial != key.serial, None);
            }
        }
        Ok(())
    }

    /// KEYCTL_CHOWN: only CAP_SYS_ADMIN gives a key away or sets a group
    /// the caller is not in.
    pub fn chown(&self, id: i32, uid: u32, gid: u32, admin: bool) -> Result<()> {
        let (key, _) = self.key(id, true, KEY_SETATTR)?;
        let mut st = key.state.lock();
        if uid != u32::MAX && uid != st.uid && !admin {
            return Err(Errno::EACCES);
        }
        if gid != u32::MAX && gid != st.gid && !admin && (st.uid != self.cred.fsuid || !(gid == self.cred.fsgid || self.cred.groups.contains(&gid))) {
            return Err(Errno::EACCES);
        }
        if uid != u32::MAX {
            st.uid = uid;
        }
        if gid != u32::MAX {
            st.gid = gid;
        }
        Ok(())
    }

    /// KEYCTL_SETPERM: the owner (or CAP_SYS_ADMIN) with setattr.
    pub fn setperm(&self, id: i32, perm: u32, admin: bool) -> Result<()> {
        if perm & !0x3f3f_3f3f != 0 {
            return Err(Errno::EINVAL);
        }
        let (key, _) = self.key(id, true, KEY_SETATTR)?;
        let mut st = key.state.lock();
        if !admin && st.uid != self.cred.fsuid {
            return Err(Errno::EACCES);
        }
        st.perm = perm;
        Ok(())
    }

    /// KEYCTL_SET_TIMEOUT: seconds from now (0: never).
    pub fn set_timeout(&self, id: i32, seconds: u32) -> Result<()> {
        let (key, _) = self.key(id, true, KEY_SETATTR)?;
        key.state.lock().expiry =
            (seconds != 0).then(|| kevlar_platform::time::realtime_ns().saturating_add(u64::from(seconds) * 1_000_000_000));
        Ok(())
    }

    /// KEYCTL_SET_REQKEY_KEYRING: returns the old setting.
    pub fn set_reqkey_keyring(&self, which: i32) -> Result<i32> {
        let old = self.keys().reqkey_default;
        match which {
            KEY_REQKEY_DEFL_NO_CHANGE => return Ok(old),
            // The thread and process keyrings are made for it.
            1 => drop(self.install_thread_keyring()),
            2 => drop(self.install_process_keyring()),
            KEY_REQKEY_DEFL_DEFAULT | 3 | 4 | 5 | KEY_REQKEY_DEFL_REQUESTOR_KEYRING => {}
            _ => return Err(Errno::EINVAL),
        }
        self.keys().reqkey_default = which;
        Ok(old)
    }
}

/// Each user's persistent keyring (`_persistent.N`), made on first use.
static PERSISTENT: SpinLock<BTreeMap<u32, Arc<Key>>> = SpinLock::new(BTreeMap::new());
/// How long a persistent keyring lives unused (Linux's default,
/// /proc/sys/kernel/keys/persistent_keyring_expiry: three days).
const PERSISTENT_EXPIRY_SECS: u64 = 3 * 24 * 3600;

impl Caller<'_> {
    /// KEYCTL_GET_PERSISTENT: user `uid`'s persistent keyring (-1: the
    /// caller's), linked into `dest_id`; another user's needs CAP_SETUID.
    pub fn get_persistent(&self, uid: i32, dest_id: i32, can_setuid: bool) -> Result<i32> {
        let uid = if uid == -1 {
            self.cred.uid
        } else {
            let uid = uid as u32;
            if uid != self.cred.uid && uid != self.cred.euid && !can_setuid {
                return Err(Errno::EPERM);
            }
            uid
        };
        let (dest, _) = self.key(dest_id, true, KEY_WRITE)?;
        let ring = {
            let mut all = PERSISTENT.lock();
            match all.get(&uid).filter(|k| !k.is_dead()) {
                Some(k) => k.clone(),
                None => {
                    // (KEY_POS_ALL & ~KEY_POS_SETATTR) | KEY_USR_VIEW | KEY_USR_READ
                    let perm = ((KEY_ALL & !KEY_SETATTR) << POS) | ((KEY_VIEW | KEY_READ) << USR);
                    let k = Key::keyring(alloc::format!("_persistent.{}", uid).as_bytes(), uid, u32::MAX, perm);
                    all.insert(uid, k.clone());
                    k
                }
            }
        };
        ring.state.lock().expiry = Some(kevlar_platform::time::realtime_ns().saturating_add(PERSISTENT_EXPIRY_SECS * 1_000_000_000));
        self.link_into(&dest, &ring)?;
        Ok(ring.serial)
    }
}

/// Whether keyring `ring` holds `serial`, directly or in nested keyrings.
fn contains(ring: &Arc<Key>, serial: i32, depth: usize) -> bool {
    if depth > SEARCH_DEPTH {
        return true; // too deep counts as a loop (Linux: ELOOP/EDEADLK)
    }
    ring.links().iter().any(|k| k.serial == serial || (k.ktype == KeyType::Keyring && contains(k, serial, depth + 1)))
}

/// The text of a key description (for logs).
#[allow(dead_code)]
pub fn show(desc: &[u8]) -> String {
    String::from_utf8_lossy(desc).into_owned()
}
