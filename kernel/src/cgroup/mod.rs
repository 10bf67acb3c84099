//! Control groups, version 2 (Linux's "unified hierarchy"): one tree of
//! cgroups, every process a member of exactly one, shown and changed
//! through the cgroup2 file system (`mount -t cgroup2 none
//! /sys/fs/cgroup`, [`fs`]).
//!
//! The tree: each [`Cgroup`] has its children, its member counts and its
//! settings under its own lock; everything that changes more than one
//! cgroup at once (a move, a fork, an exit, mkdir and rmdir, which update
//! counts along the ancestors) holds [`LOCK`] too, so the counts of a
//! subtree always add up. Lock order: the process table's group-signal
//! lock (fork, cgroup.kill), then [`LOCK`], then a process's
//! [`Membership`], then one cgroup's state at a time.
//!
//! Membership: a process holds its cgroup in [`Membership`] with the
//! number of its live tasks (threads) charged there. fork inherits the
//! parent's cgroup (or the one CLONE_INTO_CGROUP names) and charges the
//! child under the group-signal lock, where the child becomes visible;
//! thread creation charges a task; the last thread's exit takes the
//! process out (a zombie is in no cgroup's counts, as on Linux).
//!
//! Controllers: pids (pids.max refuses fork and clone with EAGAIN),
//! memory (memory.current counts the resident pages of the members;
//! memory.max is enforced by killing inside the cgroup) and cpu (cpu.stat
//! counts the members' CPU time; cpu.weight and cpu.max are kept).

pub mod fs;
mod files;
mod freezer;
mod memory;

pub use freezer::{before_user_return, freezing};
pub use memory::after_fault;

use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::fmt::Write;
use core::sync::atomic::{AtomicU64, Ordering};

use kevlar_platform::sync::SpinLock;

use crate::error::{Errno, Result};
use crate::fs::poll_queue::PollQueue;
use crate::process::Process;

/// The cpu controller's bit (in `cgroup.subtree_control` masks).
pub const CPU: u8 = 1;
/// The memory controller's bit.
pub const MEMORY: u8 = 2;
/// The pids controller's bit.
pub const PIDS: u8 = 4;
/// Every controller Kevlar has.
pub const ALL: u8 = CPU | MEMORY | PIDS;
/// The controllers by name, in Linux's order.
pub const CONTROLLERS: [(u8, &str); 3] = [(CPU, "cpu"), (MEMORY, "memory"), (PIDS, "pids")];

/// "max" of cgroup.max.descendants and cgroup.max.depth (Linux's INT_MAX).
pub const INT_MAX: u64 = i32::MAX as u64;
/// "max" of pids.max (Linux's PIDS_MAX: PID_MAX_LIMIT + 1).
pub const PIDS_MAX: u64 = 4 * 1024 * 1024 + 1;
/// "max" of the memory limits, in pages (Linux's PAGE_COUNTER_MAX).
pub const PAGE_COUNTER_MAX: u64 = i64::MAX as u64 / 4096;
/// cpu.max's "max" quota.
pub const QUOTA_MAX: u64 = u64::MAX;

/// Serialises changes that touch several cgroups (see the module text).
static LOCK: SpinLock<()> = SpinLock::new(());
/// The root cgroup, made at first use.
static ROOT: SpinLock<Option<Arc<Cgroup>>> = SpinLock::new(None);
/// Cgroup ids (the root is 1).
static NEXT_ID: AtomicU64 = AtomicU64::new(2);
/// How many cgroups live (for /proc/cgroups's num_cgroups).
static LIVE: AtomicU64 = AtomicU64::new(1);

/// The memory controller's settings and event counts of one cgroup.
#[derive(Clone, Copy)]
pub struct MemorySettings {
    /// memory.min, memory.low, memory.high, memory.max (pages).
    pub min: u64,
    pub low: u64,
    pub high: u64,
    pub max: u64,
    /// memory.swap.max and memory.swap.high (pages).
    pub swap_max: u64,
    pub swap_high: u64,
    /// memory.oom.group.
    pub oom_group: bool,
    /// memory.events: low, high, max, oom, oom_kill, oom_group_kill.
    pub events: [u64; 6],
    /// The highest memory.current seen (pages).
    pub peak: u64,
}

impl MemorySettings {
    const fn new() -> MemorySettings {
        MemorySettings { min: 0, low: 0, high: PAGE_COUNTER_MAX, max: PAGE_COUNTER_MAX, swap_max: PAGE_COUNTER_MAX, swap_high: PAGE_COUNTER_MAX, oom_group: false, events: [0; 6], peak: 0 }
    }
}

/// What a cgroup holds, under its lock.
pub struct State {
    /// Live child cgroups, in creation order.
    pub children: Vec<Arc<Cgroup>>,
    /// Set by rmdir: the cgroup is gone from the tree.
    pub removed: bool,
    /// Member processes (live ones) of this cgroup itself.
    pub procs: u64,
    /// Member processes of this cgroup and its descendants.
    pub subtree_procs: u64,
    /// Live tasks of this cgroup itself, and of its subtree.
    pub tasks: u64,
    pub subtree_tasks: u64,
    /// cgroup.subtree_control.
    pub subtree_control: u8,
    /// cgroup.max.descendants and cgroup.max.depth.
    pub max_descendants: u64,
    pub max_depth: u64,
    /// Live descendants.
    pub nr_descendants: u64,
    /// cgroup.freeze as written.
    pub freeze: bool,
    /// Whether the cgroup reports itself frozen (cgroup.events).
    pub frozen: bool,
    /// pids.max and pids.events's "max".
    pub pids_max: u64,
    pub pids_events_max: u64,
    /// The memory controller.
    pub memory: MemorySettings,
    /// cpu.weight, cpu.max (quota in µs or QUOTA_MAX, period in µs),
    /// cpu.max.burst (µs), cpu.idle.
    pub cpu_weight: u64,
    pub cpu_max: (u64, u64),
    pub cpu_burst: u64,
    pub cpu_idle: bool,
    /// CPU time (ns) of members that left (exited or moved away).
    pub usage_ns: u64,
    /// Owner and permission bits of the directory.
    pub uid: u32,
    pub gid: u32,
    pub mode: u32,
    /// Owners and modes changed by chown/chmod: (file index, uid, gid, mode).
    pub file_attrs: Vec<(usize, u32, u32, u32)>,
    /// The process memory.max killed last (not killed again while dying).
    pub memory_victim: Option<alloc::sync::Weak<Process>>,
}

/// One control group.
pub struct Cgroup {
    /// Its id (the root is 1): the directory's inode number comes from it.
    pub id: u64,
    name: Vec<u8>,
    parent: Option<Arc<Cgroup>>,
    /// Depth below the root (the root is 0).
    pub level: u64,
    pub state: SpinLock<State>,
    /// Woken when one of the cgroup's notifying files changes.
    pub queue: PollQueue,
    /// Change counts of the notifying files: cgroup.events, pids.events,
    /// memory.events.
    pub seq: [AtomicU64; 3],
    /// When it was made (its files' timestamps).
    pub created: kevlar_vfs::Timespec,
}

/// Which change count a notifying file has.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Notifier {
    Events = 0,
    Pids = 1,
    Memory = 2,
}

impl Cgroup {
    fn new(id: u64, name: Vec<u8>, parent: Option<Arc<Cgroup>>, uid: u32, gid: u32, mode: u32) -> Arc<Cgroup> {
        let level = parent.as_ref().map_or(0, |p| p.level + 1);
        Arc::new(Cgroup {
            id,
            name,
            parent,
            level,
            state: SpinLock::new(State {
                children: Vec::new(),
                removed: false,
                procs: 0,
                subtree_procs: 0,
                tasks: 0,
                subtree_tasks: 0,
                subtree_control: 0,
                max_descendants: INT_MAX,
                max_depth: INT_MAX,
                nr_descendants: 0,
                freeze: false,
                frozen: false,
                pids_max: PIDS_MAX,
                pids_events_max: 0,
                memory: MemorySettings::new(),
                cpu_weight: 100,
                cpu_max: (QUOTA_MAX, 100_000),
                cpu_burst: 0,
                cpu_idle: false,
                usage_ns: 0,
                uid,
                gid,
                mode,
                file_attrs: Vec::new(),
                memory_victim: None,
            }),
            queue: PollQueue::new(),
            seq: [AtomicU64::new(1), AtomicU64::new(1), AtomicU64::new(1)],
            created: crate::clock::now(),
        })
    }

    /// The parent (None for the root).
    pub fn parent(&self) -> Option<&Arc<Cgroup>> {
        self.parent.as_ref()
    }

    /// Whether this is the root cgroup.
    pub fn is_root(&self) -> bool {
        self.parent.is_none()
    }

    /// Whether rmdir removed it.
    pub fn is_removed(&self) -> bool {
        self.state.lock().removed
    }

    /// The controllers its parent enables for it (cgroup.controllers):
    /// all of them at the root.
    pub fn available(&self) -> u8 {
        match &self.parent {
            Some(p) => p.state.lock().subtree_control,
            None => ALL,
        }
    }

    /// Whether `self` is `other` or below it.
    pub fn is_within(self: &Arc<Cgroup>, other: &Arc<Cgroup>) -> bool {
        let mut node = Some(self);
        while let Some(n) = node {
            if Arc::ptr_eq(n, other) {
                return true;
            }
            node = n.parent.as_ref();
        }
        false
    }

    /// The path from the root ("/" for the root).
    pub fn path(&self) -> Vec<u8> {
        let mut parts: Vec<&[u8]> = Vec::new();
        let mut node = Some(self);
        while let Some(n) = node {
            if n.parent.is_some() {
                parts.push(&n.name);
            }
            node = n.parent.as_deref();
        }
        crate::fs::path_from_names_leaf_first(&parts)
    }

    /// The live child named `name`.
    pub fn child(&self, name: &[u8]) -> Option<Arc<Cgroup>> {
        self.state.lock().children.iter().find(|c| c.name == name).cloned()
    }

    /// Its name in its parent's directory.
    pub fn name(&self) -> &[u8] {
        &self.name
    }

    /// Tells pollers and inotify watchers of the notifying file `which`
    /// that it changed.
    pub fn notify(self: &Arc<Cgroup>, which: Notifier) {
        self.seq[which as usize].fetch_add(1, Ordering::AcqRel);
        self.queue.notify(linux_raw_sys::general::EPOLLPRI | linux_raw_sys::general::EPOLLERR);
        fs::notify_modified(self, which);
    }
}

impl Drop for Cgroup {
    /// Lets go of the ancestors one at a time: a removed cgroup deep in
    /// a removed chain (a zombie can hold one) would otherwise drop its
    /// ancestors by recursion as deep as the chain.
    fn drop(&mut self) {
        let mut parent = self.parent.take();
        while let Some(p) = parent {
            parent = match Arc::try_unwrap(p) {
                Ok(mut last) => last.parent.take(),
                Err(_) => None,
            };
        }
    }
}

/// Returns the root cgroup.
pub fn root() -> Arc<Cgroup> {
    ROOT.lock().get_or_insert_with(|| Cgroup::new(1, Vec::new(), None, 0, 0, 0o555)).clone()
}

/// How many cgroups live.
pub fn live_count() -> u64 {
    LIVE.load(Ordering::Relaxed)
}

// --- membership ------------------------------------------------------------

/// A process's cgroup (Linux's css_set link) and what it charged there.
pub struct Membership {
    inner: SpinLock<Member>,
}

struct Member {
    cgroup: Arc<Cgroup>,
    /// Live tasks charged to `cgroup`.
    tasks: u64,
    /// Whether the process is counted in `cgroup` (false before fork
    /// commits it and after its exit).
    live: bool,
    /// The process's CPU time when it joined `cgroup` (ns).
    base_ns: u64,
}

impl Membership {
    /// Init's: the root cgroup, one task.
    pub fn for_init() -> Membership {
        let root = root();
        let _tree = LOCK.lock();
        charge(&root, 1, 1);
        Membership { inner: SpinLock::new(Member { cgroup: root, tasks: 1, live: true, base_ns: 0 }) }
    }

    /// A new child's, not yet counted: [`fork_commit`] counts it.
    pub fn inherit(parent: &Membership) -> Membership {
        let cgroup = parent.inner.lock().cgroup.clone();
        Membership { inner: SpinLock::new(Member { cgroup, tasks: 0, live: false, base_ns: 0 }) }
    }

    /// The cgroup.
    pub fn cgroup(&self) -> Arc<Cgroup> {
        self.inner.lock().cgroup.clone()
    }
}

/// Adds `procs` processes and `tasks` tasks to `cg` and its ancestors'
/// subtree counts; returns how many levels, from `cg` up, changed their
/// populated state (they are consecutive from `cg`: an ancestor's count
/// includes the child's). Call with [`LOCK`] held.
fn charge(cg: &Arc<Cgroup>, procs: i64, tasks: i64) -> usize {
    let add = |v: &mut u64, d: i64| *v = v.saturating_add_signed(d);
    {
        let mut st = cg.state.lock();
        add(&mut st.procs, procs);
        add(&mut st.tasks, tasks);
    }
    let mut flipped = 0;
    let mut still_flipping = true;
    let mut node = Some(cg);
    while let Some(n) = node {
        let mut st = n.state.lock();
        let before = st.subtree_procs > 0;
        add(&mut st.subtree_procs, procs);
        add(&mut st.subtree_tasks, tasks);
        if still_flipping && before != (st.subtree_procs > 0) {
            flipped += 1;
        } else {
            still_flipping = false;
        }
        drop(st);
        node = n.parent.as_ref();
    }
    flipped
}

/// Notifies cgroup.events of `levels` cgroups from `cg` up (their
/// populated state changed). Allocates nothing (exit calls it).
fn notify_populated(cg: &Arc<Cgroup>, levels: usize) {
    let mut node = Some(cg);
    for _ in 0..levels {
        let Some(n) = node else { break };
        if !n.is_root() {
            n.notify(Notifier::Events);
        }
        node = n.parent.as_ref();
    }
    if levels > 0 {
        freezer::update_frozen(cg);
    }
}

/// Checks that `tasks` more tasks fit under every pids.max from `cg` up;
/// on failure counts a pids.events "max" in the nearest cgroup with the
/// pids controller and returns it (to notify) with EAGAIN.
fn pids_admit(cg: &Arc<Cgroup>, tasks: u64) -> core::result::Result<(), Option<Arc<Cgroup>>> {
    let mut node = Some(cg);
    while let Some(n) = node {
        let st = n.state.lock();
        if st.pids_max != PIDS_MAX && st.subtree_tasks.saturating_add(tasks) > st.pids_max {
            drop(st);
            let counted = pids_cgroup(cg);
            if let Some(c) = &counted {
                c.state.lock().pids_events_max += 1;
            }
            return Err(counted);
        }
        drop(st);
        node = n.parent.as_ref();
    }
    Ok(())
}

/// The nearest cgroup from `cg` up where the pids controller is enabled
/// (whose pids.* files exist), if any below the root.
fn pids_cgroup(cg: &Arc<Cgroup>) -> Option<Arc<Cgroup>> {
    let mut node = Some(cg);
    while let Some(n) = node {
        if !n.is_root() && n.available() & PIDS != 0 {
            return Some(n.clone());
        }
        node = n.parent.as_ref();
    }
    None
}

/// The controllers that may compete with processes of the same cgroup
/// (Linux's threaded controllers: cpu and pids); memory may not.
pub const THREADED: u8 = CPU | PIDS;

/// Linux's cgroup_is_thread_root (without threaded children, which
/// Kevlar does not make): a cgroup other than the root with processes
/// of its own that gives a threaded controller to its children.
pub fn is_thread_root(cg: &Cgroup) -> bool {
    if cg.is_root() {
        return false;
    }
    let st = cg.state.lock();
    st.procs > 0 && st.subtree_control & THREADED != 0
}

/// Linux's cgroup_is_valid_domain: no ancestor below the root is a
/// thread root.
pub fn is_valid_domain(cg: &Cgroup) -> bool {
    let mut node = cg.parent.as_deref();
    while let Some(p) = node {
        if is_thread_root(p) {
            return false;
        }
        node = p.parent.as_deref();
    }
    true
}

/// Linux's cgroup_can_be_thread_root: not the root, no populated child,
/// only threaded controllers given to the children.
fn can_be_thread_root(cg: &Cgroup) -> bool {
    if cg.is_root() {
        return false;
    }
    let st = cg.state.lock();
    let children = st.children.clone();
    let mask = st.subtree_control;
    drop(st);
    mask & !THREADED == 0 && !children.iter().any(|c| c.state.lock().subtree_procs > 0)
}

/// Checks that a process may be moved into `dst` (Linux's
/// cgroup_migrate_vet_dst): EOPNOTSUPP inside a thread root's subtree,
/// EBUSY for a cgroup that gives domain controllers to its children or
/// has populated children with controllers ("no internal processes").
fn vet_destination(dst: &Cgroup) -> Result<()> {
    if dst.state.lock().removed {
        return Err(Errno::ENODEV);
    }
    if dst.is_root() {
        return Ok(());
    }
    if !is_valid_domain(dst) {
        return Err(Errno::EOPNOTSUPP);
    }
    if can_be_thread_root(dst) {
        return Ok(());
    }
    if dst.state.lock().subtree_control != 0 {
        return Err(Errno::EBUSY);
    }
    Ok(())
}

/// Checks that the caller (`cred`, in cgroup `src`) may start a child in
/// `dst` (CLONE_INTO_CGROUP): the rules of a write to cgroup.procs.
pub fn check_clone_into(src: &Arc<Cgroup>, dst: &Arc<Cgroup>, cred: &kevlar_vfs::Credentials) -> Result<()> {
    if dst.is_removed() {
        return Err(Errno::ENOENT);
    }
    files::check_attach_permission(src, dst, cred)
}

/// Counts a new child process in its cgroup: the parent's now, or `into`
/// (CLONE_INTO_CGROUP). Called by fork where the child becomes visible.
/// EAGAIN when pids.max is reached.
pub fn fork_commit(parent: &Process, child: &Process, into: Option<&Arc<Cgroup>>) -> Result<()> {
    let (cg, flipped) = {
        let _tree = LOCK.lock();
        let cg = match into {
            Some(cg) => {
                vet_destination(cg)?;
                cg.clone()
            }
            None => parent.cgroup.cgroup(),
        };
        if let Err(counted) = pids_admit(&cg, 1) {
            drop(_tree);
            if let Some(c) = counted {
                c.notify(Notifier::Pids);
            }
            return Err(Errno::EAGAIN);
        }
        let mut m = child.cgroup.inner.lock();
        m.cgroup = cg.clone();
        m.tasks = 1;
        m.live = true;
        m.base_ns = 0;
        drop(m);
        (cg.clone(), charge(&cg, 1, 1))
    };
    notify_populated(&cg, flipped);
    freezer::freeze_new_member(&cg);
    Ok(())
}

/// Counts a new thread of `process` (EAGAIN when pids.max is reached).
pub fn thread_created(process: &Process) -> Result<()> {
    let _tree = LOCK.lock();
    let mut m = process.cgroup.inner.lock();
    if let Err(counted) = pids_admit(&m.cgroup, 1) {
        drop(m);
        drop(_tree);
        if let Some(c) = counted {
            c.notify(Notifier::Pids);
        }
        return Err(Errno::EAGAIN);
    }
    m.tasks += 1;
    charge(&m.cgroup, 0, 1);
    Ok(())
}

/// A task of `process` ended; `last`: it was the last one, the process
/// leaves its cgroup (its CPU time, `cpu_ns`, stays counted there).
pub fn task_exit(process: &Process, last: bool, cpu_ns: u64) {
    let (cg, flipped) = {
        let _tree = LOCK.lock();
        let mut m = process.cgroup.inner.lock();
        if !m.live {
            return;
        }
        if last {
            // The process leaves the member counts; its main task stays
            // charged to pids until it is reaped, as on Linux.
            m.live = false;
            let used = cpu_ns.saturating_sub(m.base_ns);
            m.cgroup.state.lock().usage_ns += used;
            let gone = m.tasks.saturating_sub(1) as i64;
            m.tasks = 1;
            (m.cgroup.clone(), charge(&m.cgroup, -1, -gone))
        } else {
            m.tasks = m.tasks.saturating_sub(1);
            (m.cgroup.clone(), charge(&m.cgroup, 0, -1))
        }
    };
    notify_populated(&cg, flipped);
    if !last {
        freezer::update_frozen(&cg);
    }
}

/// `process`, a zombie, was reaped: its last task leaves pids.current.
pub fn reaped(process: &Process) {
    let _tree = LOCK.lock();
    let mut m = process.cgroup.inner.lock();
    if !m.live && m.tasks > 0 {
        let tasks = m.tasks as i64;
        m.tasks = 0;
        charge(&m.cgroup, 0, -tasks);
    }
}

/// Moves `process` (all its threads) into `dst`. A process that is
/// exiting stays where it is (Linux skips it and succeeds).
pub fn migrate(process: &Arc<Process>, dst: &Arc<Cgroup>) -> Result<()> {
    let now = process.cpu_ns();
    let (old, new) = {
        let _tree = LOCK.lock();
        vet_destination(dst)?;
        let mut m = process.cgroup.inner.lock();
        if !m.live || Arc::ptr_eq(&m.cgroup, dst) {
            return Ok(());
        }
        let old = core::mem::replace(&mut m.cgroup, dst.clone());
        old.state.lock().usage_ns += now.saturating_sub(m.base_ns);
        m.base_ns = now;
        let tasks = m.tasks as i64;
        drop(m);
        let old_flips = charge(&old, -1, -tasks);
        let new_flips = charge(dst, 1, tasks);
        ((old, old_flips), (dst.clone(), new_flips))
    };
    notify_populated(&old.0, old.1);
    notify_populated(&new.0, new.1);
    // A parked task moved out of a frozen cgroup runs again.
    freezer::wake_parked();
    freezer::update_frozen(&old.0);
    freezer::freeze_new_member(&new.0);
    Ok(())
}

/// The live member processes of `cg` itself (`subtree`: and of its
/// descendants), by pid.
pub fn members(cg: &Arc<Cgroup>, subtree: bool) -> Vec<Arc<Process>> {
    crate::process::all_processes()
        .into_iter()
        .filter(|p| {
            let m = p.cgroup.inner.lock();
            m.live && if subtree { m.cgroup.is_within(cg) } else { Arc::ptr_eq(&m.cgroup, cg) }
        })
        .collect()
}

/// cgroup.kill: SIGKILL to every process of the subtree. Forks are held
/// off meanwhile (the group-signal lock): a child forked before is found
/// here, one forked after never starts (its parent has SIGKILL pending).
pub fn kill(cg: &Arc<Cgroup>) {
    let _no_fork = crate::process::group_signal_lock();
    for p in members(cg, true) {
        crate::process::signal::send_signal(&p, crate::process::signal::SIGKILL);
    }
}

/// CPU time (ns) of the subtree of `cg`: what members that left used
/// there, and what the live ones used since they joined.
pub fn usage_ns(cg: &Arc<Cgroup>) -> u64 {
    let mut total = 0u64;
    let mut stack = alloc::vec![cg.clone()];
    while let Some(n) = stack.pop() {
        let st = n.state.lock();
        total = total.saturating_add(st.usage_ns);
        stack.extend(st.children.iter().cloned());
    }
    for p in members(cg, true) {
        let base = p.cgroup.inner.lock().base_ns;
        total = total.saturating_add(p.cpu_ns().saturating_sub(base));
    }
    total
}

/// Resident pages of the subtree's processes (each address space once).
pub fn resident_pages(cg: &Arc<Cgroup>) -> u64 {
    let mut seen: Vec<usize> = Vec::new();
    let mut pages = 0;
    for p in members(cg, true) {
        let vm = p.vm.lock().clone();
        let key = Arc::as_ptr(&vm) as usize;
        if seen.contains(&key) {
            continue;
        }
        seen.push(key);
        pages += vm.lock().size_and_resident().1;
    }
    pages
}

/// Makes the cgroup `name` under `parent` (mkdir), owned by `uid`/`gid`
/// with permission bits `mode`.
pub fn make(parent: &Arc<Cgroup>, name: &[u8], uid: u32, gid: u32, mode: u32) -> Result<Arc<Cgroup>> {
    if name.contains(&b'\n') {
        return Err(Errno::EINVAL);
    }
    let _tree = LOCK.lock();
    if parent.state.lock().removed {
        return Err(Errno::ENODEV);
    }
    if parent.child(name).is_some() || files::is_file_name(parent, name) {
        return Err(Errno::EEXIST);
    }
    // Linux's cgroup_check_hierarchy_limits.
    let mut level = 1;
    let mut node = Some(parent);
    while let Some(n) = node {
        let st = n.state.lock();
        if st.nr_descendants >= st.max_descendants || level > st.max_depth {
            return Err(Errno::EAGAIN);
        }
        drop(st);
        level += 1;
        node = n.parent.as_ref();
    }
    crate::mm::kbuf::check_object()?;
    let cg = Cgroup::new(NEXT_ID.fetch_add(1, Ordering::Relaxed), name.to_vec(), Some(parent.clone()), uid, gid, mode);
    parent.state.lock().children.push(cg.clone());
    let mut node = Some(parent);
    while let Some(n) = node {
        n.state.lock().nr_descendants += 1;
        node = n.parent.as_ref();
    }
    LIVE.fetch_add(1, Ordering::Relaxed);
    Ok(cg)
}

/// Removes the child `name` of `parent` (rmdir): EBUSY while a process
/// lives in its subtree or it has children.
pub fn remove(parent: &Arc<Cgroup>, name: &[u8]) -> Result<()> {
    let _tree = LOCK.lock();
    let Some(cg) = parent.child(name) else {
        return Err(if files::is_file_name(parent, name) { Errno::ENOTDIR } else { Errno::ENOENT });
    };
    {
        let mut st = cg.state.lock();
        if st.subtree_procs > 0 || !st.children.is_empty() {
            return Err(Errno::EBUSY);
        }
        st.removed = true;
    }
    parent.state.lock().children.retain(|c| !Arc::ptr_eq(c, &cg));
    let mut node = Some(parent);
    while let Some(n) = node {
        let mut st = n.state.lock();
        st.nr_descendants = st.nr_descendants.saturating_sub(1);
        drop(st);
        node = n.parent.as_ref();
    }
    LIVE.fetch_sub(1, Ordering::Relaxed);
    Ok(())
}

/// The text of /proc/PID/cgroup: `0::PATH` (with " (deleted)" after a
/// removed cgroup), the one line of a system with only cgroup v2.
pub fn proc_pid_cgroup(process: &Process) -> Vec<u8> {
    let cg = process.cgroup.cgroup();
    let mut out = b"0::".to_vec();
    out.extend_from_slice(&cg.path());
    if cg.is_removed() {
        out.extend_from_slice(b" (deleted)");
    }
    out.push(b'\n');
    out
}

/// The text of /proc/cgroups: each controller, hierarchy 0 (the v2 one),
/// the number of cgroups, enabled.
pub fn proc_cgroups() -> String {
    let mut out = String::from("#subsys_name\thierarchy\tnum_cgroups\tenabled\n");
    for (_, name) in CONTROLLERS {
        let _ = writeln!(out, "{}\t0\t{}\t1", name, live_count());
    }
    out
}
