//! PID namespaces (Linux's pid_namespace): a process has an id in the
//! namespace it was created in and in every ancestor of it.
//!
//! The kernel names processes and threads by their id in the initial
//! namespace (the "global" id, `Process::pid`, `Thread::tid`); this module
//! keeps, for every id of a process or thread in a namespace below the
//! initial one, its ids at each level, and each namespace's table from its
//! own numbers back to global ids. System calls translate at the boundary:
//! what a process gives (kill's pid, wait4's pid) with [`global`], what it
//! is told (getpid, wait4's result) with [`local`].
//!
//! The first process made in a new namespace is its PID 1, its init: the
//! orphans of the namespace are reparented to it, it takes from inside only
//! the signals it has handlers for, and when it exits every other process
//! of the namespace is killed and no process can be made in it any more
//! (fork fails with ENOMEM, as Linux's).

use alloc::collections::BTreeMap;
use alloc::sync::Arc;
use alloc::vec::Vec;

use kevlar_platform::sync::SpinLock;

use crate::error::{Errno, Result};
use crate::process::{Pid, Process};

/// Linux's MAX_PID_NS_LEVEL: the deepest a namespace can be nested.
pub const MAX_LEVEL: usize = 32;

/// Linux's fixed inode number of the initial PID namespace.
const PROC_PID_INIT_INO: u64 = 0xEFFF_FFFC;

/// What kill and wait take for an id the caller cannot see: no process,
/// thread or group has it (ids stay below PID_MAX_LIMIT).
pub const NOBODY: Pid = i32::MAX;

/// After the ids of a namespace wrap, they start above this (Linux's
/// RESERVED_PIDS).
const RESERVED_PIDS: Pid = 300;

/// A PID namespace.
pub struct PidNs {
    /// Its nsfs inode number.
    pub inum: u64,
    /// How deep it is (0: the initial namespace).
    pub level: usize,
    /// The namespace it was made in (None for the initial one).
    pub parent: Option<Arc<PidNs>>,
    inner: SpinLock<Inner>,
}

struct Inner {
    /// Its own numbers and the global ids they stand for.
    ids: BTreeMap<Pid, Pid>,
    /// The next number to try.
    next: Pid,
    /// The global id of its init, once made.
    reaper: Option<Pid>,
    /// Set when its init exited: no process can join it any more.
    dead: bool,
}

/// PID namespaces below the initial one that exist now. While there is
/// none, every process is in the initial namespace and sees global ids:
/// `local` and `global` (getpid, gettid, getppid on every call) answer
/// without looking up the caller's namespace. A process holds its
/// namespace, so one that is in a nested namespace keeps this above 0.
static NESTED: core::sync::atomic::AtomicUsize = core::sync::atomic::AtomicUsize::new(0);

impl Drop for PidNs {
    fn drop(&mut self) {
        if self.level > 0 {
            NESTED.fetch_sub(1, core::sync::atomic::Ordering::AcqRel);
        }
    }
}

impl PidNs {
    fn new(inum: u64, parent: Option<Arc<PidNs>>) -> PidNs {
        let level = parent.as_ref().map_or(0, |p| p.level + 1);
        if level > 0 {
            NESTED.fetch_add(1, core::sync::atomic::Ordering::AcqRel);
        }
        PidNs { inum, level, parent, inner: SpinLock::new(Inner { ids: BTreeMap::new(), next: 1, reaper: None, dead: false }) }
    }

    /// Whether `self` is `other` or one of its ancestors (a process in
    /// `self` can see every process in `other`).
    pub fn is_ancestor_of(&self, other: &PidNs) -> bool {
        let mut ns = other;
        loop {
            if core::ptr::eq(ns, self) {
                return true;
            }
            match &ns.parent {
                Some(parent) => ns = parent,
                None => return false,
            }
        }
    }

    /// The global id of its init, once made and until the namespace dies.
    pub fn reaper(&self) -> Option<Pid> {
        self.inner.lock().reaper
    }

    /// Takes a free number of the namespace for global id `global`.
    fn take(&self, global: Pid) -> Result<Pid> {
        let max = crate::process::pid::pid_max();
        let mut inner = self.inner.lock();
        if inner.dead {
            return Err(Errno::ENOMEM);
        }
        // The first process made is the namespace's init (Linux fails
        // later forks with ENOMEM until it is made: it always is first
        // here).
        let start = inner.next.clamp(1, max);
        let candidates = (start..max).chain(RESERVED_PIDS.min(max - 1) + 1..start);
        let mut found = None;
        for n in candidates {
            if !inner.ids.contains_key(&n) {
                found = Some(n);
                break;
            }
        }
        let n = found.ok_or(Errno::EAGAIN)?;
        if n == 1 {
            inner.reaper = Some(global);
        }
        inner.ids.insert(n, global);
        inner.next = n + 1;
        Ok(n)
    }

    fn release(&self, local: Pid, global: Pid) {
        let mut inner = self.inner.lock();
        if inner.ids.get(&local) == Some(&global) {
            inner.ids.remove(&local);
        }
    }

    /// The global ids of every process and thread numbered in the
    /// namespace (or below it).
    pub fn members(&self) -> Vec<Pid> {
        self.inner.lock().ids.values().copied().collect()
    }
}

static INIT: SpinLock<Option<Arc<PidNs>>> = SpinLock::new(None);

/// The initial PID namespace.
pub fn init_ns() -> Arc<PidNs> {
    INIT.lock().get_or_insert_with(|| Arc::new(PidNs::new(PROC_PID_INIT_INO, None))).clone()
}

/// Makes a new namespace below `parent` (clone or unshare with
/// CLONE_NEWPID): ENOSPC past Linux's nesting limit.
pub fn create(parent: &Arc<PidNs>) -> Result<Arc<PidNs>> {
    if parent.level + 1 > MAX_LEVEL {
        return Err(Errno::ENOSPC);
    }
    Ok(Arc::new(PidNs::new(super::alloc_inum(), Some(parent.clone()))))
}

/// The ids of one process or thread below the initial namespace.
struct Entry {
    /// The namespace it was made in.
    ns: Arc<PidNs>,
    /// Its number at levels 1..=ns.level.
    locals: Vec<Pid>,
}

/// Every id below the initial namespace, by global id.
static ENTRIES: SpinLock<BTreeMap<Pid, Entry>> = SpinLock::new(BTreeMap::new());

/// Gives global id `global`, of a process or thread made in `ns`, a number
/// in `ns` and each of its ancestors (Linux's alloc_pid): ENOMEM when a
/// namespace's init has exited.
pub fn attach(ns: &Arc<PidNs>, global: Pid) -> Result<()> {
    if ns.level == 0 {
        return Ok(());
    }
    let mut chain = Vec::new();
    let mut at = Some(ns.clone());
    while let Some(n) = at {
        if n.level == 0 {
            break;
        }
        at = n.parent.clone();
        chain.push(n);
    }
    chain.reverse(); // level 1 first
    let mut locals = Vec::with_capacity(chain.len());
    for n in &chain {
        match n.take(global) {
            Ok(local) => locals.push(local),
            Err(e) => {
                for (n, &local) in chain.iter().zip(locals.iter()) {
                    n.release(local, global);
                }
                return Err(e);
            }
        }
    }
    ENTRIES.lock().insert(global, Entry { ns: ns.clone(), locals });
    Ok(())
}

/// Frees the numbers of global id `global` (a reaped process, an exited
/// thread).
pub fn detach(global: Pid) {
    let Some(entry) = ENTRIES.lock().remove(&global) else { return };
    let mut at = Some(entry.ns.clone());
    while let Some(n) = at {
        if n.level == 0 {
            break;
        }
        if let Some(&local) = entry.locals.get(n.level - 1) {
            n.release(local, global);
        }
        // A dying init waits for its namespace to empty.
        let waiting = {
            let inner = n.inner.lock();
            if inner.dead { inner.reaper } else { None }
        };
        if let Some(process) = waiting.and_then(crate::process::find_process) {
            process.child_event.wake_all();
        }
        at = n.parent.clone();
    }
}

/// The namespace global id `global` was made in (the initial one for ids
/// made there or unknown).
pub fn ns_of(global: Pid) -> Arc<PidNs> {
    match ENTRIES.lock().get(&global) {
        Some(entry) => entry.ns.clone(),
        None => init_ns(),
    }
}

/// Global id `global` as namespace `viewer` numbers it (0: not in it).
pub fn local_in(viewer: &PidNs, global: Pid) -> Pid {
    if viewer.level == 0 {
        return global;
    }
    let entries = ENTRIES.lock();
    let Some(entry) = entries.get(&global) else { return 0 };
    if entry.ns.level < viewer.level || !viewer.is_ancestor_of(&entry.ns) {
        return 0;
    }
    entry.locals.get(viewer.level - 1).copied().unwrap_or(0)
}

/// Number `local` of namespace `viewer` as a global id ([`NOBODY`] when
/// the namespace has no such number).
pub fn global_in(viewer: &PidNs, local: Pid) -> Pid {
    if viewer.level == 0 {
        return local;
    }
    if local <= 0 {
        return NOBODY;
    }
    viewer.inner.lock().ids.get(&local).copied().unwrap_or(NOBODY)
}

/// The number namespace `ns` gave last (Linux's /proc/loadavg shows it
/// for the reader's namespace).
pub fn last_given(ns: &PidNs) -> Pid {
    if ns.level == 0 {
        return crate::process::last_pid();
    }
    ns.inner.lock().next - 1
}

/// The PID namespace process `process` is in.
pub fn of(process: &Process) -> Arc<PidNs> {
    process.ns.lock().pid.clone()
}

/// The calling process's PID namespace (the initial one outside any).
pub fn viewer() -> Arc<PidNs> {
    match crate::process::current() {
        Some(thread) => of(&thread.process),
        None => init_ns(),
    }
}

/// Global id `global` as the calling process sees it (0: outside its
/// namespace).
#[inline(always)]
pub fn local(global: Pid) -> Pid {
    if NESTED.load(core::sync::atomic::Ordering::Acquire) == 0 {
        return global; // as `local_in` for the initial namespace
    }
    local_slow(global)
}

// Out of line: inlined, its frame and saved registers would weigh on
// the common case (getpid's whole handler).
#[inline(never)]
fn local_slow(global: Pid) -> Pid {
    local_in(&viewer(), global)
}

/// A number the calling process gave as a global id ([`NOBODY`] when its
/// namespace has no such number).
#[inline(always)]
pub fn global(local: Pid) -> Pid {
    if NESTED.load(core::sync::atomic::Ordering::Acquire) == 0 {
        return local; // as `global_in` for the initial namespace
    }
    global_slow(local)
}

#[inline(never)]
fn global_slow(local: Pid) -> Pid {
    global_in(&viewer(), local)
}

/// A process group or session id the caller gave (negative numbers keep
/// their sign: kill's -pgid, wait4's -pgid).
pub fn global_signed(id: Pid) -> Pid {
    match id {
        i32::MIN => id,
        id if id < -1 => -global(-id),
        id if id > 0 => global(id),
        id => id,
    }
}

/// Whether `process` is the init of a namespace below the initial one
/// (Linux's SIGNAL_UNKILLABLE container init).
pub fn is_ns_init(process: &Process) -> bool {
    let ns = of(process);
    ns.level > 0 && ns.reaper() == Some(process.pid)
}

/// The process that adopts the orphans of `exiting` (Linux's
/// find_child_reaper): the init of its namespace, or, when that is the
/// one exiting, of the nearest ancestor namespace; None for the initial
/// namespace (the caller's own init then).
pub fn reaper_for(exiting: &Process) -> Option<Arc<Process>> {
    let mut at = Some(of(exiting));
    while let Some(ns) = at {
        if ns.level == 0 {
            return None;
        }
        if let Some(reaper) = ns.reaper().filter(|&r| r != exiting.pid) {
            if let Some(process) = crate::process::find_process(reaper) {
                return Some(process);
            }
        }
        at = ns.parent.clone();
    }
    None
}

/// When a namespace's init exits (Linux's zap_pid_ns_processes): no
/// process can join the namespace any more, and every other process in it
/// is sent SIGKILL. Returns whether `process` was such an init.
pub fn init_exiting(process: &Process) -> bool {
    if !is_ns_init(process) {
        return false;
    }
    let ns = of(process);
    ns.inner.lock().dead = true;
    for global in ns.members() {
        if global == process.pid {
            continue;
        }
        if let Some(member) = crate::process::find_process(global) {
            crate::process::signal::send_signal_info(&member, crate::process::signal::SigInfo::new(crate::process::signal::SIGKILL, crate::process::signal::SI_KERNEL)).ok();
        }
    }
    true
}

/// The last step of a namespace init's exit: it waits for its children
/// (every process of the namespace was killed and its orphans came to it)
/// and reaps them, so that when its parent sees it end, the namespace is
/// empty (as Linux's zap_pid_ns_processes).
pub fn reap_namespace(init: &Arc<Process>) {
    let ns = of(init);
    loop {
        let mut live = false;
        for child in init.children() {
            if child.exit_status().is_some() {
                init.forget_child(child.pid);
            } else {
                live = true;
            }
        }
        // Members whose parents are outside are waited for until those
        // reap them (Linux waits for the namespace to hold only its init).
        let others = || ns.members().iter().any(|&g| g != init.pid);
        if !live && !others() {
            return;
        }
        init.child_event.wait_until_uninterruptible(|| (init.children().iter().any(|c| c.exit_status().is_some()) || !others()).then_some(()));
    }
}

/// The namespaces a child of a process with namespaces `set` is in: its
/// PID namespace is the one `set` makes children in.
pub fn child_set(set: Arc<super::NsSet>) -> Arc<super::NsSet> {
    if Arc::ptr_eq(&set.pid, &set.pid_for_children) {
        return set;
    }
    let mut child = (*set).clone();
    child.pid = set.pid_for_children.clone();
    Arc::new(child)
}

/// The numbers of a process or thread being made, given back if it is
/// not made after all.
pub struct Numbers {
    global: Pid,
    kept: bool,
}

impl Numbers {
    /// Numbers global id `global` in `ns` and its ancestors ([`attach`]).
    pub fn attach(ns: &Arc<PidNs>, global: Pid) -> Result<Numbers> {
        attach(ns, global)?;
        Ok(Numbers { global, kept: false })
    }

    /// The process or thread was made: it keeps them.
    pub fn keep(mut self) {
        self.kept = true;
    }
}

impl Drop for Numbers {
    fn drop(&mut self) {
        if !self.kept {
            detach(self.global);
        }
    }
}

/// The namespaces from `from` down to the one global id `global` was made
/// in (empty when `from` cannot see it): the columns of /proc/PID/status's
/// NSpid, NStgid, NSpgid and NSsid lines.
pub fn chain_from(from: &Arc<PidNs>, global: Pid) -> Vec<Arc<PidNs>> {
    let ns = ns_of(global);
    if ns.level < from.level || !from.is_ancestor_of(&ns) {
        return Vec::new();
    }
    let mut chain = Vec::new();
    let mut at = Some(ns);
    while let Some(n) = at {
        let last = Arc::ptr_eq(&n, from);
        at = n.parent.clone();
        chain.push(n);
        if last {
            break;
        }
    }
    chain.reverse();
    chain
}
