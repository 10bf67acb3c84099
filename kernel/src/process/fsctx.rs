//! A process's file-system contexts (root, working directory, umask,
//! mount namespace: Linux's `fs_struct`) as its threads see them.
//!
//! Threads share the process's context unless one unshares CLONE_FS: it
//! then gets a copy of its own (Linux allows that in any thread), which
//! threads it makes with CLONE_FS share in turn. `lock()` gives the
//! calling thread's context, so the path walks, chdir, umask, setns...
//! of a thread with its own context see and change only that one; callers
//! from another process (/proc/PID) see the shared one. Exec makes the
//! exec'ing thread's context the process's (the other threads are gone).
//!
//! Namespaces are per thread too, as Linux's nsproxy: the process's set
//! (`Process::ns`) is its main thread's, and a thread whose set differs
//! (it unshared or setns'd one, or its creator had) has its own here;
//! threads it makes start with it, exec makes it the process's.

use alloc::collections::BTreeMap;
use core::ops::{Deref, DerefMut};
use core::sync::atomic::{AtomicUsize, Ordering};

use kevlar_platform::sync::{SpinLock, SpinLockGuard};

use alloc::sync::Arc;

use super::Pid;
use crate::fs::FsContext;
use crate::ns::NsSet;

/// The contexts threads made their own, and which thread uses which.
#[derive(Default)]
pub struct OwnContexts {
    /// Thread id to context id.
    users: BTreeMap<Pid, u64>,
    contexts: BTreeMap<u64, FsContext>,
    next_id: u64,
}

/// The contexts of one process.
pub struct ProcessFs {
    shared: SpinLock<FsContext>,
    own: SpinLock<OwnContexts>,
    /// How many threads use a context of their own (0: `lock` need not
    /// look for the caller).
    owners: AtomicUsize,
    /// The namespaces of threads whose set is not the process's.
    ns: SpinLock<BTreeMap<Pid, Arc<NsSet>>>,
    /// How many there are (0: no lookup).
    ns_owners: AtomicUsize,
}

/// The calling thread's context, locked.
pub enum FsGuard<'a> {
    /// The process's shared context.
    Shared(SpinLockGuard<'a, FsContext>),
    /// A context of the thread's own (the table locked), by id.
    Own(SpinLockGuard<'a, OwnContexts>, u64),
}

impl Deref for FsGuard<'_> {
    type Target = FsContext;
    fn deref(&self) -> &FsContext {
        match self {
            FsGuard::Shared(g) => g,
            // The id was looked up under this same lock guard.
            FsGuard::Own(g, id) => g.contexts.get(id).expect("own fs context vanished under its lock"),
        }
    }
}

impl DerefMut for FsGuard<'_> {
    fn deref_mut(&mut self) -> &mut FsContext {
        match self {
            FsGuard::Shared(g) => g,
            FsGuard::Own(g, id) => g.contexts.get_mut(id).expect("own fs context vanished under its lock"),
        }
    }
}

fn current_tid() -> Option<Pid> {
    super::current().map(|t| t.tid())
}

impl ProcessFs {
    /// One context shared by every thread.
    pub fn new(fs: FsContext) -> ProcessFs {
        ProcessFs { shared: SpinLock::new(fs), own: SpinLock::new(OwnContexts::default()), owners: AtomicUsize::new(0), ns: SpinLock::new(BTreeMap::new()), ns_owners: AtomicUsize::new(0) }
    }

    /// Locks the calling thread's context (the shared one for a caller
    /// outside the process or without a context of its own).
    pub fn lock(&self) -> FsGuard<'_> {
        if self.owners.load(Ordering::Acquire) != 0 {
            if let Some(tid) = current_tid() {
                let own = self.own.lock();
                if let Some(&id) = own.users.get(&tid) {
                    return FsGuard::Own(own, id);
                }
            }
        }
        FsGuard::Shared(self.shared.lock())
    }

    /// unshare(CLONE_FS) by thread `tid` of a process with `threads`
    /// threads: a copy of its context becomes its own, unless no other
    /// thread uses it (Linux's unshare_fs with fs->users == 1).
    pub fn unshare(&self, tid: Pid, threads: usize) {
        if self.users(tid, threads) <= 1 {
            return;
        }
        self.give_copy(tid, tid);
    }

    /// Thread `to` gets a context of its own: a copy of the one thread
    /// `from` uses.
    fn give_copy(&self, from: Pid, to: Pid) {
        let mut own = self.own.lock();
        let copy = match own.users.get(&from) {
            Some(id) => own.contexts[id].clone(),
            None => self.shared.lock().clone(),
        };
        let id = own.next_id;
        own.next_id += 1;
        own.contexts.insert(id, copy);
        Self::set_user(&mut own, to, Some(id));
        self.owners.store(own.users.len(), Ordering::Release);
    }

    /// Which context thread `tid` uses: 0 for the process's shared one,
    /// else its own context's id + 1 (kcmp's KCMP_FS compares them).
    pub fn context_of(&self, tid: Pid) -> u64 {
        if self.owners.load(Ordering::Acquire) == 0 {
            return 0;
        }
        self.own.lock().users.get(&tid).map_or(0, |id| id + 1)
    }

    /// How many of the process's `threads` threads use the context
    /// thread `tid` uses (Linux's fs->users).
    pub fn users(&self, tid: Pid, threads: usize) -> usize {
        let own = self.own.lock();
        match own.users.get(&tid) {
            Some(id) => own.users.values().filter(|&&c| c == *id).count(),
            None => threads.saturating_sub(own.users.len()),
        }
    }

    /// The namespaces of thread `tid` when they are not the process's.
    pub fn thread_ns(&self, tid: Pid) -> Option<Arc<NsSet>> {
        if self.ns_owners.load(Ordering::Acquire) == 0 {
            return None;
        }
        self.ns.lock().get(&tid).cloned()
    }

    /// Gives thread `tid` namespaces of its own (None: the process's);
    /// returns what it had, to be dropped after the caller's locks.
    pub fn set_thread_ns(&self, tid: Pid, set: Option<Arc<NsSet>>) -> Option<Arc<NsSet>> {
        let mut map = self.ns.lock();
        let old = match set {
            Some(set) => map.insert(tid, set),
            None => map.remove(&tid),
        };
        self.ns_owners.store(map.len(), Ordering::Release);
        old
    }

    /// The threads of `tids` without namespaces of their own get `set`
    /// (the process's, which their main thread is about to replace).
    pub fn keep_thread_ns(&self, tids: &[Pid], set: &Arc<NsSet>) {
        let mut map = self.ns.lock();
        for &tid in tids {
            map.entry(tid).or_insert_with(|| set.clone());
        }
        self.ns_owners.store(map.len(), Ordering::Release);
    }

    /// A thread `tid` made by `creator` starts in the creator's
    /// namespaces.
    fn inherit_ns(&self, creator: Pid, tid: Pid) {
        if let Some(set) = self.thread_ns(creator) {
            self.set_thread_ns(tid, Some(set));
        }
    }

    /// A thread `tid` made by `creator` with CLONE_FS uses the creator's
    /// context.
    pub fn thread_created(&self, creator: Pid, tid: Pid) {
        self.inherit_ns(creator, tid);
        if self.owners.load(Ordering::Acquire) == 0 {
            return;
        }
        let mut own = self.own.lock();
        if let Some(&id) = own.users.get(&creator) {
            own.users.insert(tid, id);
            self.owners.store(own.users.len(), Ordering::Release);
        }
    }

    /// A thread `tid` made by `creator` without CLONE_FS: a copy of the
    /// creator's context becomes its own (Linux's copy_fs).
    pub fn thread_created_unshared(&self, creator: Pid, tid: Pid) {
        self.inherit_ns(creator, tid);
        self.give_copy(creator, tid);
    }

    /// Replaces the context of its own that thread `tid` has (one made
    /// without CLONE_FS) by what `change` makes of a copy of it; called
    /// outside the locks (a mount table is locked before a context).
    pub fn change_own(&self, tid: Pid, change: impl FnOnce(FsContext) -> FsContext) {
        let copy = {
            let own = self.own.lock();
            let Some(id) = own.users.get(&tid) else { return };
            own.contexts[id].clone()
        };
        let changed = change(copy);
        let mut own = self.own.lock();
        if let Some(&id) = own.users.get(&tid) {
            own.contexts.insert(id, changed);
        }
    }

    /// Thread `tid` left: a context no thread uses any more goes.
    pub fn thread_left(&self, tid: Pid) {
        if self.ns_owners.load(Ordering::Acquire) != 0 {
            drop(self.set_thread_ns(tid, None));
        }
        if self.owners.load(Ordering::Acquire) == 0 {
            return;
        }
        let dropped = {
            let mut own = self.own.lock();
            let dropped = Self::set_user(&mut own, tid, None);
            self.owners.store(own.users.len(), Ordering::Release);
            dropped
        };
        // A context's last reference to a mount namespace may unmount
        // (disk I/O): dropped after the lock.
        drop(dropped);
    }

    /// Thread `tid` is now the process's only one (exec): its context
    /// becomes the shared one.
    pub fn sole_thread(&self, tid: Pid) {
        if self.ns_owners.load(Ordering::Acquire) != 0 {
            let rest = core::mem::take(&mut *self.ns.lock());
            self.ns_owners.store(0, Ordering::Release);
            drop(rest);
        }
        if self.owners.load(Ordering::Acquire) == 0 {
            return;
        }
        let (mine, rest) = {
            let mut own = self.own.lock();
            let mine = own.users.get(&tid).copied().and_then(|id| own.contexts.remove(&id));
            let rest = core::mem::take(&mut *own);
            self.owners.store(0, Ordering::Release);
            (mine, rest)
        };
        let old = mine.map(|fs| core::mem::replace(&mut *self.shared.lock(), fs));
        drop(old);
        drop(rest);
    }

    /// Points `tid` at context `id` (or at the shared one); returns the
    /// context that no thread uses any more, if any.
    fn set_user(own: &mut OwnContexts, tid: Pid, id: Option<u64>) -> Option<FsContext> {
        let old = match id {
            Some(id) => own.users.insert(tid, id),
            None => own.users.remove(&tid),
        };
        let old = old?;
        if own.users.values().any(|&c| c == old) {
            return None;
        }
        own.contexts.remove(&old)
    }
}
