//! Network namespaces: each owns its network stack (`net::inet::stack`:
//! its smoltcp interface, its loopback, addresses, routes, port tables and
//! sockets). The initial one has eth0 when there is a card; one made by
//! clone or unshare(CLONE_NEWNET) has only `lo`, down and without an
//! address until it is brought up, as on Linux.
//!
//! A socket keeps the namespace of the process that made it for life
//! (Linux's sock_net); the calls that are not on a socket (netlink,
//! interface ioctls, /proc/net) use the calling process's.

use alloc::sync::{Arc, Weak};
use alloc::vec::Vec;
use core::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use kevlar_platform::sync::SpinLock;

use crate::net::inet::stack::Stack;

/// One network namespace.
pub struct NetNs {
    /// Its nsfs inode number.
    pub inum: u64,
    /// The initial namespace (the one eth0 is in).
    pub initial: bool,
    /// Its stack, made on first use.
    pub stack: SpinLock<Option<Stack>>,
    /// When its stack next wants to be polled (monotonic ns; u64::MAX:
    /// never); the initial namespace's is kept in `net::inet::stack`.
    pub next_poll_ns: AtomicU64,
    /// Its /proc/sys/net settings.
    pub sysctl: crate::net::sysctl::NetSysctl,
}

impl NetNs {
    fn new(inum: u64, initial: bool) -> NetNs {
        NetNs { inum, initial, stack: SpinLock::new(None), next_poll_ns: AtomicU64::new(u64::MAX), sysctl: crate::net::sysctl::NetSysctl::new() }
    }
}

/// The namespaces other than the initial one that are alive (for the
/// stack timers), and how many there are (read without the lock).
static OTHERS: SpinLock<Vec<Weak<NetNs>>> = SpinLock::new(Vec::new());
static OTHER_COUNT: AtomicUsize = AtomicUsize::new(0);

impl Drop for NetNs {
    fn drop(&mut self) {
        if !self.initial {
            let mut list = OTHERS.lock();
            list.retain(|w| w.strong_count() > 0);
            OTHER_COUNT.store(list.len(), Ordering::Relaxed);
        }
    }
}

/// The initial namespace, once made.
static INITIAL: SpinLock<Option<Arc<NetNs>>> = SpinLock::new(None);

/// Makes the initial namespace (once: `ns::init_set` keeps it).
pub(super) fn make_initial(inum: u64) -> Arc<NetNs> {
    let ns = Arc::new(NetNs::new(inum, true));
    *INITIAL.lock() = Some(ns.clone());
    ns
}

/// Makes a new network namespace (clone or unshare with CLONE_NEWNET).
pub fn create() -> Arc<NetNs> {
    let ns = Arc::new(NetNs::new(super::alloc_inum(), false));
    let mut list = OTHERS.lock();
    list.retain(|w| w.strong_count() > 0);
    list.push(Arc::downgrade(&ns));
    OTHER_COUNT.store(list.len(), Ordering::Relaxed);
    ns
}

/// Returns the calling process's network namespace (the initial one when
/// no process runs).
pub fn current() -> Arc<NetNs> {
    match crate::process::current() {
        Some(thread) => thread.process.ns.lock().net.clone(),
        None => super::init_set().net.clone(),
    }
}

/// Returns the initial network namespace, once the initial namespaces
/// are made.
pub fn initial() -> Option<Arc<NetNs>> {
    INITIAL.lock().clone()
}

/// Returns the live namespaces other than the initial one (an empty list
/// without taking a lock when there are none).
pub fn others() -> Vec<Arc<NetNs>> {
    if OTHER_COUNT.load(Ordering::Relaxed) == 0 {
        return Vec::new();
    }
    OTHERS.lock().iter().filter_map(Weak::upgrade).collect()
}
