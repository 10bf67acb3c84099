//! IPC namespaces: each object set (message queues, semaphore sets,
//! shared memory segments, POSIX message queue names) is kept per IPC
//! namespace, keyed by the namespace's nsfs inode number; a caller sees
//! its own namespace's set. A namespace's objects go when it does
//! ([`forget`], from `ns`).

use alloc::collections::BTreeMap;
use alloc::vec::Vec;
use core::ops::{Deref, DerefMut};

use kevlar_platform::sync::{SpinLock, SpinLockGuard};

/// One `T` per IPC namespace, made by `make` at first use.
pub struct PerNs<T> {
    sets: SpinLock<BTreeMap<u64, T>>,
    make: fn() -> T,
}

/// The caller's namespace's `T`, under the lock of all of them.
pub struct PerNsGuard<'a, T> {
    guard: SpinLockGuard<'a, BTreeMap<u64, T>>,
    key: u64,
}

impl<T> PerNs<T> {
    pub const fn new(make: fn() -> T) -> Self {
        PerNs { sets: SpinLock::new(BTreeMap::new()), make }
    }

    /// Locks the calling process's namespace's set.
    pub fn lock(&self) -> PerNsGuard<'_, T> {
        self.lock_in(current())
    }

    /// Locks the set of the namespace with inode number `key`.
    pub fn lock_in(&self, key: u64) -> PerNsGuard<'_, T> {
        let mut guard = self.sets.lock();
        guard.entry(key).or_insert_with(self.make);
        PerNsGuard { guard, key }
    }

    /// Takes away the set of a namespace that is gone (dropped by the
    /// caller, outside the lock).
    pub fn take(&self, key: u64) -> Option<T> {
        self.sets.lock().remove(&key)
    }
}

impl<T> PerNsGuard<'_, T> {
    /// The namespace's inode number.
    pub fn key(&self) -> u64 {
        self.key
    }
}

impl<T> Deref for PerNsGuard<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        self.guard.get(&self.key).expect("made by lock_in")
    }
}

impl<T> DerefMut for PerNsGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        self.guard.get_mut(&self.key).expect("made by lock_in")
    }
}

/// The calling process's IPC namespace (its inode number).
pub fn current() -> u64 {
    crate::ns::current().ipc.inum
}

/// IPC namespaces that went away, whose objects are freed by the next
/// IPC call ([`reap`]): the last reference may go anywhere.
static GONE: SpinLock<Vec<u64>> = SpinLock::new(Vec::new());

/// Records that IPC namespace `inum` is gone.
pub fn forget(inum: u64) {
    GONE.lock().push(inum);
}

/// Frees the objects of the namespaces that went away.
pub fn reap() {
    let gone = core::mem::take(&mut *GONE.lock());
    for inum in gone {
        super::msg::forget_ns(inum);
        super::sem::forget_ns(inum);
        super::shm::forget_ns(inum);
        super::mqueue::forget_ns(inum);
        super::mqueue_fs::forget_ns(inum);
        super::sysctl::forget_ns(inum);
    }
}
