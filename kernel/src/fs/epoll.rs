//! epoll instances: an interest list of (fd, open file) entries, each with
//! the events it wants, level- or edge-triggered, maybe one-shot or
//! exclusive, and a ready list: epoll_wait costs O(ready), not
//! O(registered).
//!
//! Each entry registers a hook on its file's readiness queue
//! (`poll_queue`; the global fallback queue for files without one). A
//! wake-up of the file runs the hook, which puts the entry on the ready
//! list (once) and wakes one thread in epoll_wait (they wait exclusively,
//! as on Linux) and whoever polls the epoll file itself (nested epoll,
//! poll/select on it). epoll_wait takes the ready list, polls only those
//! files, reports the ones ready and puts level-triggered ones back at the
//! tail (so the next call looks at them again, and drops them once they
//! are no longer ready). Edge-triggered entries also compare the file's
//! `poll_counts` (how many wake-ups it has had) with the count when they
//! last reported, so an entry reports again only after a new wake-up.
//! One-shot entries are disabled once reported until EPOLL_CTL_MOD.
//! EPOLLEXCLUSIVE entries are exclusive hooks: one wake-up of the file
//! stops at the first exclusive entry whose instance had a thread waiting
//! (Linux's `ep_poll_callback` return value).
//!
//! Entries hold their open file weakly: once the last fd of an open file
//! description closes, its entry never reports again and is dropped at the
//! next look (Linux removes it at that point).
//!
//! Locking (the order is what keeps wake-up callbacks SMP-safe):
//! - a file's queue lock (`PollQueue`) is a leaf: the queue copies its hooks
//!   and calls them with no lock held, and files notify after releasing
//!   their own state lock;
//! - an entry's `state` lock is taken alone, or before the instance's
//!   `ready` lock (in the hook), never after it;
//! - the instance's `ready` lock is a leaf: nothing is called under it (no
//!   file's poll, no wake-up, no queue);
//! - a file's `poll()` (which takes the file's own locks, the network
//!   stack's for sockets) is only ever called with none of these held, so
//!   the file lock -> queue -> entry -> ready-list chain a wake-up follows
//!   can never meet a ready-list -> file edge: no inversion, whatever CPU
//!   runs the wake-up and whatever CPU is in epoll_wait or epoll_ctl;
//! - the interest list (`items`) is its own leaf lock; epoll_ctl registers
//!   the hook and polls the file with it released.
//!   Because hooks run with no lock held, one may run just after its entry
//!   was deleted: it checks `removed` under the entry's lock. Two threads
//!   collecting at once take disjoint entries off the ready list.

use alloc::collections::{BTreeMap, VecDeque};
use alloc::sync::{Arc, Weak};
use alloc::vec::Vec;
use core::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use kevlar_platform::sync::SpinLock;
use linux_raw_sys::general as abi;

use super::file::{FileOps, OpenFile, PollEvents, POLLIN};
use super::poll_queue::{queue_of, PollHook, PollQueue};
use crate::error::{Errno, Result};
use crate::process::wait_queue::WaitQueue;

/// The flag bits of an entry's events: never reported.
const FLAG_BITS: u32 = abi::EPOLLWAKEUP | abi::EPOLLONESHOT | abi::EPOLLET | abi::EPOLLEXCLUSIVE;
/// Events EPOLLEXCLUSIVE may come with.
const EXCLUSIVE_OK: u32 = abi::EPOLLIN | abi::EPOLLOUT | abi::EPOLLERR | abi::EPOLLHUP | abi::EPOLLWAKEUP | abi::EPOLLET | abi::EPOLLEXCLUSIVE;
/// Events that readability wake-ups bring.
const READ_SIDE: u32 = abi::EPOLLIN | abi::EPOLLRDNORM | abi::EPOLLRDBAND | abi::EPOLLPRI | abi::EPOLLRDHUP;
/// Events that writability wake-ups bring.
const WRITE_SIDE: u32 = abi::EPOLLOUT | abi::EPOLLWRNORM | abi::EPOLLWRBAND;
/// How deep epoll instances may nest (Linux's EP_MAX_NESTS).
const MAX_NESTS: usize = 4;

/// What an entry's requested events say, and what it did last.
struct ItemState {
    /// Requested events and flags.
    events: u32,
    data: u64,
    /// A one-shot entry that reported: silent until EPOLL_CTL_MOD.
    disabled: bool,
    /// Edge-triggered: the file's wake-up count when it last reported.
    reported_count: Option<u64>,
    /// Deleted (EPOLL_CTL_DEL). When the instance itself goes, its entries
    /// go with it and the queues drop their dead hooks.
    removed: bool,
}

impl ItemState {
    /// The events the entry may report (EPOLLERR and EPOLLHUP always).
    fn wanted(&self) -> u32 {
        (self.events & !FLAG_BITS) | abi::EPOLLERR | abi::EPOLLHUP
    }
}

/// One entry of the interest list.
struct Item {
    /// Its key in the interest list.
    key: (i32, usize),
    file: Weak<OpenFile>,
    /// The instance it belongs to.
    epoll: Weak<Epoll>,
    /// Itself, to put on the ready list from the hook.
    me: Weak<Item>,
    /// EPOLLEXCLUSIVE (fixed at EPOLL_CTL_ADD: MOD may not change it).
    exclusive: bool,
    state: SpinLock<ItemState>,
    /// On the ready list (changed under the instance's `ready` lock).
    queued: AtomicBool,
}

/// The file's wake-up count on the sides `events` watches.
fn count_for(events: u32, file: &OpenFile) -> u64 {
    let (reads, writes) = file.ops.poll_counts();
    match (events & READ_SIDE != 0, events & WRITE_SIDE != 0) {
        (true, false) => reads,
        (false, true) => writes,
        _ => reads.wrapping_add(writes),
    }
}

impl Item {
    /// The events to report now (0: none) and the edge count they go with,
    /// without consuming anything. Polls the file: call with no lock held.
    fn check(&self, file: &OpenFile) -> (u32, Option<u64>) {
        let (wanted, events, disabled, reported) = {
            let st = self.state.lock();
            (st.wanted(), st.events, st.disabled || st.removed, st.reported_count)
        };
        if disabled {
            return (0, None);
        }
        let ready = file.ops.poll() as u32 & wanted;
        if ready == 0 {
            return (0, None);
        }
        if events & abi::EPOLLET != 0 {
            let count = count_for(events, file);
            if reported == Some(count) {
                return (0, None);
            }
            return (ready, Some(count));
        }
        (ready, None)
    }
}

impl PollHook for Item {
    /// `ep_poll_callback`: queue the entry and wake one waiter of its
    /// instance. Returns whether it counts as having woken someone (it
    /// always does unless exclusive; an exclusive one only when a thread
    /// waited and the change is one it watches).
    fn notify(&self, hint: u32) -> bool {
        let Some(epoll) = self.epoll.upgrade() else { return false };
        if self.file.strong_count() == 0 {
            return false;
        }
        let events = {
            let st = self.state.lock();
            if st.removed || st.disabled || st.events & !FLAG_BITS == 0 {
                return false;
            }
            if hint != 0 && hint & st.wanted() == 0 {
                return false;
            }
            st.events
        };
        if let Some(me) = self.me.upgrade() {
            epoll.enqueue(&me);
        }
        let woke = epoll.waiters.wake_one();
        epoll.queue.notify(abi::EPOLLIN);
        if !self.exclusive {
            return true;
        }
        woke && match hint & (abi::EPOLLIN | abi::EPOLLOUT) {
            abi::EPOLLIN => events & abi::EPOLLIN != 0,
            abi::EPOLLOUT => events & abi::EPOLLOUT != 0,
            0 => true,
            _ => false,
        }
    }

    fn exclusive(&self) -> bool {
        self.exclusive
    }
}

/// One event as epoll_wait returns it.
#[derive(Clone, Copy, Debug)]
pub struct ReadyEvent {
    /// The events that are ready.
    pub events: u32,
    /// The entry's user data.
    pub data: u64,
}

/// The interest list: entries by (fd, open file address). Entries of
/// closed files are dropped when met, and by a sweep of the whole list
/// whenever it has doubled since the last one, so adding is O(log n)
/// amortised (a sweep on every add made n adds quadratic).
struct Items {
    map: BTreeMap<(i32, usize), Arc<Item>>,
    /// The size at which the next sweep runs.
    sweep_at: usize,
}

impl Items {
    const FIRST_SWEEP: usize = 64;

    /// The live entry of `key` (a dead one there is dropped).
    fn live(&mut self, key: &(i32, usize)) -> Option<&Arc<Item>> {
        if self.map.get(key).is_some_and(|item| item.file.strong_count() == 0) {
            self.map.remove(key);
        }
        self.map.get(key)
    }

    /// Drops the entries of closed files.
    fn sweep(&mut self) {
        self.map.retain(|_, item| item.file.strong_count() > 0);
        self.sweep_at = (self.map.len() * 2).max(Self::FIRST_SWEEP);
    }
}

/// An epoll instance.
pub struct Epoll {
    /// Itself, for the entries' back references.
    me: Weak<Epoll>,
    /// The interest list by (fd, open file address).
    items: SpinLock<Items>,
    /// Entries that may be ready, in the order they became so.
    ready: SpinLock<VecDeque<Arc<Item>>>,
    /// Threads in epoll_wait (woken one at a time).
    waiters: WaitQueue,
    /// Whoever polls this epoll file (nested instances, poll, select).
    queue: PollQueue,
    /// Wake-ups that put an entry on the ready list (the count edge-
    /// triggered watchers of this epoll file compare).
    wakeups: AtomicU64,
}

/// Held while an epoll file is added to another: the loop and depth
/// checks must see a graph no one else is changing (Linux's
/// epnested_mutex).
static NESTING: SpinLock<()> = SpinLock::new(());

impl Epoll {
    /// Creates an empty instance.
    pub fn new() -> Arc<Epoll> {
        Arc::new_cyclic(|me| Epoll { me: me.clone(), items: SpinLock::new(Items { map: BTreeMap::new(), sweep_at: Items::FIRST_SWEEP }), ready: SpinLock::new(VecDeque::new()), waiters: WaitQueue::new(), queue: PollQueue::new(), wakeups: AtomicU64::new(0) })
    }

    /// Puts `item` on the ready list unless it is there already.
    fn enqueue(&self, item: &Arc<Item>) {
        self.wakeups.fetch_add(1, Ordering::Relaxed);
        let mut ready = self.ready.lock();
        if !item.queued.swap(true, Ordering::AcqRel) {
            ready.push_back(item.clone());
        }
    }

    /// Queues `item` if its file is ready now (after ADD and MOD), waking
    /// a waiter and the pollers of this instance.
    fn queue_if_ready(&self, item: &Arc<Item>, file: &OpenFile) {
        if item.check(file).0 != 0 {
            self.enqueue(item);
            self.waiters.wake_one();
            self.queue.notify(abi::EPOLLIN);
        }
    }

    /// Applies EPOLL_CTL_ADD, _MOD or _DEL for `fd` (open as `target`);
    /// `self_file` is the epoll file itself. `event` is (events, data),
    /// absent for DEL.
    pub fn control(&self, self_file: &Arc<OpenFile>, op: u32, fd: i32, target: &Arc<OpenFile>, event: Option<(u32, u64)>) -> Result<()> {
        if !target.ops.is_pollable() {
            return Err(Errno::EPERM);
        }
        if Arc::ptr_eq(self_file, target) {
            return Err(Errno::EINVAL);
        }
        if let Some((events, _)) = event {
            if events & abi::EPOLLEXCLUSIVE != 0 {
                if op == abi::EPOLL_CTL_MOD {
                    return Err(Errno::EINVAL);
                }
                if op == abi::EPOLL_CTL_ADD && (target.ops.as_epoll().is_some() || events & !EXCLUSIVE_OK != 0) {
                    return Err(Errno::EINVAL);
                }
            }
        }
        let _nesting = (op == abi::EPOLL_CTL_ADD && target.ops.as_epoll().is_some()).then(|| NESTING.lock());
        if let (abi::EPOLL_CTL_ADD, Some(inner)) = (op, target.ops.as_epoll()) {
            // Adding `inner` must not close a loop (self reachable from
            // it) nor nest too deep: what hangs below `inner`, plus this
            // level, plus the instances this one sits in.
            if inner.reaches(self, 0)? {
                return Err(Errno::ELOOP);
            }
            if inner.depth_below() + 1 + self.depth_above() > MAX_NESTS {
                return Err(Errno::ELOOP);
            }
        }
        let key = (fd, Arc::as_ptr(target) as usize);
        let mut items = self.items.lock();
        // Entries of closed files are gone already on Linux: the one under
        // `key` is dropped when looked up, the others in amortised sweeps.
        // (An entry's weak reference keeps its file's address from being
        // reused while the entry exists, so a dead one never matches a new
        // file; `live` is for the lists' size and EEXIST.)
        if items.map.len() >= items.sweep_at {
            items.sweep();
        }
        match op {
            abi::EPOLL_CTL_ADD => {
                if items.live(&key).is_some() {
                    return Err(Errno::EEXIST);
                }
                crate::mm::kbuf::check_object()?;
                let (events, data) = event.unwrap();
                let item = Arc::new_cyclic(|me| Item {
                    key,
                    file: Arc::downgrade(target),
                    epoll: self.me.clone(),
                    me: me.clone(),
                    exclusive: events & abi::EPOLLEXCLUSIVE != 0,
                    state: SpinLock::new(ItemState { events, data, disabled: false, reported_count: None, removed: false }),
                    queued: AtomicBool::new(false),
                });
                items.map.insert(key, item.clone());
                drop(items);
                // Registered first, then polled: a wake-up in between is
                // not lost.
                let hook: Arc<dyn PollHook> = item.clone();
                queue_of(target).add(&hook);
                self.queue_if_ready(&item, target);
            }
            abi::EPOLL_CTL_DEL => {
                items.live(&key).ok_or(Errno::ENOENT)?;
                let item = items.map.remove(&key).ok_or(Errno::ENOENT)?;
                drop(items);
                item.state.lock().removed = true;
                let hook: Arc<dyn PollHook> = item;
                queue_of(target).remove(&hook);
            }
            abi::EPOLL_CTL_MOD => {
                let item = items.live(&key).ok_or(Errno::ENOENT)?.clone();
                drop(items);
                {
                    let mut st = item.state.lock();
                    if st.events & abi::EPOLLEXCLUSIVE != 0 {
                        return Err(Errno::EINVAL);
                    }
                    let (events, data) = event.unwrap();
                    // A modified entry starts afresh: ready now means an event.
                    st.events = events;
                    st.data = data;
                    st.disabled = false;
                    st.reported_count = None;
                }
                self.queue_if_ready(&item, target);
            }
            _ => return Err(Errno::EINVAL),
        }
        Ok(())
    }

    /// Takes up to `max` ready events: one-shot entries are disabled, and
    /// edge-triggered ones remember the count they reported. Looks only at
    /// the entries on the ready list.
    pub fn collect(&self, max: usize) -> Vec<ReadyEvent> {
        let batch: Vec<Arc<Item>> = {
            let mut ready = self.ready.lock();
            let batch: Vec<Arc<Item>> = ready.drain(..).collect();
            for item in &batch {
                item.queued.store(false, Ordering::Release);
            }
            batch
        };
        if batch.is_empty() {
            return Vec::new();
        }
        let mut out = Vec::new();
        let mut again = Vec::new();
        let mut dead = Vec::new();
        let mut rest = batch.len();
        for (k, item) in batch.iter().enumerate() {
            if out.len() >= max {
                rest = k;
                break;
            }
            let Some(file) = item.file.upgrade() else {
                dead.push(item.clone());
                continue;
            };
            let (events, count) = item.check(&file);
            if events == 0 {
                continue;
            }
            // Claim the report: another collector or an EPOLL_CTL_MOD may
            // have moved the entry on since the check.
            let mut st = item.state.lock();
            if st.removed || st.disabled || (count.is_some() && st.reported_count == count) {
                continue;
            }
            out.push(ReadyEvent { events, data: st.data });
            if st.events & abi::EPOLLET != 0 {
                st.reported_count = count;
            }
            if st.events & abi::EPOLLONESHOT != 0 {
                st.disabled = true;
            } else if st.events & abi::EPOLLET == 0 {
                // Level-triggered: looked at again next time.
                again.push(item.clone());
            }
        }
        {
            let mut ready = self.ready.lock();
            // Entries not looked at go back to the front, in order.
            for item in batch[rest..].iter().rev() {
                if !item.queued.swap(true, Ordering::AcqRel) {
                    ready.push_front(item.clone());
                }
            }
            for item in again {
                if !item.queued.swap(true, Ordering::AcqRel) {
                    ready.push_back(item);
                }
            }
        }
        if !dead.is_empty() {
            let mut items = self.items.lock();
            for item in dead {
                if items.map.get(&item.key).is_some_and(|it| Arc::ptr_eq(it, &item)) {
                    items.map.remove(&item.key);
                }
            }
        }
        out
    }

    /// Whether the ready list holds something (it may not be ready any
    /// more: collect decides).
    fn has_ready(&self) -> bool {
        !self.ready.lock().is_empty()
    }

    /// epoll_wait: waits until events are ready (up to `max`), the
    /// monotonic `deadline` passes (None: never) or a signal arrives.
    pub fn wait(&self, max: usize, deadline: Option<u64>) -> Result<Vec<ReadyEvent>> {
        let result = self.waiters.wait_until(|| {
            let ready = self.collect(max);
            if !ready.is_empty() || deadline.is_some_and(|d| kevlar_platform::time::monotonic_ns() >= d) {
                return Ok(Some(ready));
            }
            Ok(None)
        });
        // Waiters are woken one at a time: if entries are left (level-
        // triggered ones put back, or a wake-up that came while this
        // thread was leaving), pass the turn on (Linux's ep_done_scan).
        if self.has_ready() {
            self.waiters.wake_one();
        }
        result
    }

    /// Returns whether `target` is reachable through the epoll files this
    /// instance watches (it is `self` at depth 0 only through the caller).
    fn reaches(&self, target: &Epoll, depth: usize) -> Result<bool> {
        if core::ptr::eq(self, target) {
            return Ok(true);
        }
        if depth > MAX_NESTS {
            return Err(Errno::ELOOP);
        }
        for file in self.watched_epolls() {
            if file.ops.as_epoll().unwrap().reaches(target, depth + 1)? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// The longest chain of epoll instances below this one.
    fn depth_below(&self) -> usize {
        self.watched_epolls().iter().map(|f| 1 + f.ops.as_epoll().unwrap().depth_below()).max().unwrap_or(0)
    }

    /// How many levels of epoll instances watch this one, at most (found by
    /// walking every open epoll file of every process).
    fn depth_above(&self) -> usize {
        fn parents_depth(of: *const Epoll, all: &[Arc<OpenFile>], depth: usize) -> usize {
            if depth > MAX_NESTS {
                return depth;
            }
            let mut best = depth;
            for file in all {
                let epoll = file.ops.as_epoll().unwrap();
                if epoll.watched_epolls().iter().any(|w| core::ptr::eq(w.ops.as_epoll().unwrap(), of)) {
                    best = best.max(parents_depth(epoll, all, depth + 1));
                }
            }
            best
        }
        let all = all_epoll_files();
        parents_depth(self, &all, 0)
    }

    /// The file of the `nth` live entry (0 the first) added with fd
    /// `fd`, in the order Linux's tree keeps them (by file, then fd):
    /// kcmp's KCMP_EPOLL_TFD.
    pub fn target_file(&self, fd: i32, nth: usize) -> Option<Arc<OpenFile>> {
        let items = self.items.lock();
        items.map.range((fd, 0)..=(fd, usize::MAX)).filter_map(|(_, item)| item.file.upgrade()).nth(nth)
    }

    fn watched_epolls(&self) -> Vec<Arc<OpenFile>> {
        self.items.lock().map.values().filter_map(|e| e.file.upgrade()).filter(|f| f.ops.as_epoll().is_some()).collect()
    }
}

/// Every open epoll file of every process (for the nesting depth check).
fn all_epoll_files() -> Vec<Arc<OpenFile>> {
    let mut out: Vec<Arc<OpenFile>> = Vec::new();
    for process in crate::process::all_processes() {
        let table = process.files.lock().clone();
        let table = table.lock();
        for file in table.files() {
            if file.ops.as_epoll().is_some() && !out.iter().any(|f| Arc::ptr_eq(f, &file)) {
                out.push(file);
            }
        }
    }
    out
}

impl FileOps for Epoll {
    super::anon::anon_inode_ops!();

    fn read(&self, _file: &OpenFile, _offset: u64, _buf: &mut [u8]) -> Result<usize> {
        Err(Errno::EINVAL)
    }

    fn write(&self, _file: &OpenFile, _offset: u64, _buf: &[u8]) -> Result<usize> {
        Err(Errno::EINVAL)
    }

    /// Readable when an entry on the ready list would report an event now.
    fn poll(&self) -> PollEvents {
        let batch: Vec<Arc<Item>> = self.ready.lock().iter().cloned().collect();
        let any = batch.iter().any(|item| item.file.upgrade().is_some_and(|f| item.check(&f).0 != 0));
        if any { POLLIN } else { 0 }
    }

    fn poll_queue(&self) -> Option<&PollQueue> {
        Some(&self.queue)
    }

    fn poll_counts(&self) -> (u64, u64) {
        (self.wakeups.load(Ordering::Relaxed), 0)
    }

    fn as_epoll(&self) -> Option<&Epoll> {
        Some(self)
    }
}
