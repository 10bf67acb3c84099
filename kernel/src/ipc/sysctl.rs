//! The IPC limits a root in the namespace may tune: /proc/sys/kernel's
//! msgmax, msgmnb, msgmni, shmmax, shmall, shmmni and sem, and
//! /proc/sys/fs/mqueue's msg_max, msgsize_max, msg_default,
//! msgsize_default and queues_max. As in Linux, each IPC namespace has its
//! own set, and a new namespace starts from the defaults (not from its
//! creator's values); a limit is read in the caller's namespace.

use alloc::collections::BTreeMap;

use kevlar_platform::sync::SpinLock;

use super::abi::*;

/// How many settings there are (the length of a namespace's table).
const COUNT: usize = 15;

/// One limit: its slot in a namespace's table and its default.
pub struct Setting {
    index: usize,
    default: u64,
}

/// The values a namespace changed (None: the default), by namespace
/// inode number; a namespace that never wrote one has no entry.
static VALUES: SpinLock<BTreeMap<u64, [Option<u64>; COUNT]>> = SpinLock::new(BTreeMap::new());

impl Setting {
    const fn new(index: usize, default: u64) -> Setting {
        Setting { index, default }
    }

    /// The value in the caller's IPC namespace.
    pub fn get(&self) -> u64 {
        self.get_in(super::ns::current())
    }

    /// The value in the IPC namespace with inode number `ns`.
    pub fn get_in(&self, ns: u64) -> u64 {
        VALUES.lock().get(&ns).and_then(|v| v[self.index]).unwrap_or(self.default)
    }

    /// The value in the caller's namespace, as a u32 (the int limits).
    pub fn get32(&self) -> u32 {
        self.get() as u32
    }

    /// Sets the value in the caller's IPC namespace.
    pub fn set(&self, value: u64) {
        let ns = super::ns::current();
        VALUES.lock().entry(ns).or_insert([None; COUNT])[self.index] = Some(value);
    }
}

/// Several limits read together under one lock (the four of `sem`).
pub fn get_all<const N: usize>(settings: [&Setting; N]) -> [u64; N] {
    let ns = super::ns::current();
    let values = VALUES.lock();
    let table = values.get(&ns);
    settings.map(|s| table.and_then(|v| v[s.index]).unwrap_or(s.default))
}

/// Sets several limits together (a write of `sem`).
pub fn set_all(pairs: &[(&Setting, u64)]) {
    let ns = super::ns::current();
    let mut values = VALUES.lock();
    let table = values.entry(ns).or_insert([None; COUNT]);
    for (s, v) in pairs {
        table[s.index] = Some(*v);
    }
}

/// Forgets the values of IPC namespace `inum`, which is gone.
pub(super) fn forget_ns(inum: u64) {
    VALUES.lock().remove(&inum);
}

pub static MSG_MAX: Setting = Setting::new(0, MSGMAX as u64);
pub static MSG_MNB: Setting = Setting::new(1, MSGMNB as u64);
pub static MSG_MNI: Setting = Setting::new(2, MSGMNI as u64);
pub static SHM_MAX: Setting = Setting::new(3, SHMMAX);
pub static SHM_ALL: Setting = Setting::new(4, SHMALL);
pub static SHM_MNI: Setting = Setting::new(5, SHMMNI as u64);
pub static SEM_MSL: Setting = Setting::new(6, SEMMSL as u64);
pub static SEM_MNS: Setting = Setting::new(7, SEMMNS as u64);
pub static SEM_OPM: Setting = Setting::new(8, SEMOPM as u64);
pub static SEM_MNI: Setting = Setting::new(9, SEMMNI as u64);
/// DFLT_MSG, DFLT_MSGMAX, DFLT_MSGSIZE, DFLT_MSGSIZEMAX, DFLT_QUEUESMAX.
pub static MQ_MSG_DEFAULT: Setting = Setting::new(10, 10);
pub static MQ_MSG_MAX: Setting = Setting::new(11, 10);
pub static MQ_MSGSIZE_DEFAULT: Setting = Setting::new(12, 8192);
pub static MQ_MSGSIZE_MAX: Setting = Setting::new(13, 8192);
/// queues_max is an int shown signed; stored as its u32 bits.
pub static MQ_QUEUES_MAX: Setting = Setting::new(14, 256);
