//! epoll instances: an interest list of (fd, open file) entries, each with
//! the events it wants, level- or edge-triggered, maybe one-shot.
//!
//! Readiness comes from the same place poll and select read it: each
//! file's `poll()`, rechecked whenever `notify_pollers` wakes the waiters.
//! Edge-triggered entries also compare the file's `poll_counts` (how many
//! wake-ups it has had) with the count when they last reported, so an
//! entry reports again only after a new wake-up, as on Linux. Entries hold
//! their open file weakly: when the last fd of an open file description
//! closes, its entries go away (Linux removes them at that point too).

use alloc::sync::{Arc, Weak};
use alloc::vec::Vec;

use kevlar_platform::sync::SpinLock;
use linux_raw_sys::general as abi;

use super::file::{FileOps, OpenFile, PollEvents, POLLIN};
use crate::error::{Errno, Result};

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

struct Entry {
    fd: i32,
    file: Weak<OpenFile>,
    /// What `file` pointed to: the entry's identity with `fd`.
    file_id: usize,
    /// Requested events and flags.
    events: u32,
    data: u64,
    /// A one-shot entry that reported: silent until EPOLL_CTL_MOD.
    disabled: bool,
    /// Edge-triggered: the file's wake-up count when it last reported.
    reported_count: Option<u64>,
}

impl Entry {
    /// Returns the events to report now (0: none), without consuming.
    fn ready(&self, file: &OpenFile) -> u32 {
        if self.disabled {
            return 0;
        }
        let wanted = (self.events & !FLAG_BITS) | abi::EPOLLERR | abi::EPOLLHUP;
        let ready = file.ops.poll() as u32 & wanted;
        if ready == 0 {
            return 0;
        }
        if self.events & abi::EPOLLET != 0 && self.reported_count == Some(self.count(file)) {
            return 0;
        }
        ready
    }

    /// The file's wake-up count on the sides this entry watches.
    fn count(&self, file: &OpenFile) -> u64 {
        let (reads, writes) = file.ops.poll_counts();
        let (in_side, out_side) = (self.events & READ_SIDE != 0, self.events & WRITE_SIDE != 0);
        match (in_side, out_side) {
            (true, false) => reads,
            (false, true) => writes,
            _ => reads.wrapping_add(writes),
        }
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

/// An epoll instance.
pub struct Epoll {
    /// The entries, roughly in the order they last became ready: new
    /// entries and entries just reported go to the back, so busy files
    /// take turns.
    entries: SpinLock<Vec<Entry>>,
}

/// Held while an epoll file is added to another: the loop and depth
/// checks must see a graph no one else is changing (Linux's
/// epnested_mutex).
static NESTING: SpinLock<()> = SpinLock::new(());

impl Epoll {
    /// Creates an empty instance.
    pub fn new() -> Arc<Epoll> {
        Arc::new(Epoll { entries: SpinLock::new(Vec::new()) })
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
        let target_id = Arc::as_ptr(target) as usize;
        let mut entries = self.entries.lock();
        // Entries of closed files are gone already on Linux; drop them now
        // so a new file at the same address cannot match them.
        entries.retain(|e| e.file.strong_count() > 0);
        let found = entries.iter().position(|e| e.fd == fd && e.file_id == target_id);
        match op {
            abi::EPOLL_CTL_ADD => {
                if found.is_some() {
                    return Err(Errno::EEXIST);
                }
                let (events, data) = event.unwrap();
                entries.push(Entry { fd, file: Arc::downgrade(target), file_id: target_id, events, data, disabled: false, reported_count: None });
            }
            abi::EPOLL_CTL_DEL => {
                entries.remove(found.ok_or(Errno::ENOENT)?);
            }
            abi::EPOLL_CTL_MOD => {
                let index = found.ok_or(Errno::ENOENT)?;
                if entries[index].events & abi::EPOLLEXCLUSIVE != 0 {
                    return Err(Errno::EINVAL);
                }
                let (events, data) = event.unwrap();
                // A modified entry starts afresh: ready now means an event.
                let mut entry = entries.remove(index);
                entry.events = events;
                entry.data = data;
                entry.disabled = false;
                entry.reported_count = None;
                entries.push(entry);
            }
            _ => return Err(Errno::EINVAL),
        }
        drop(entries);
        // The change may make this instance ready (for those polling it).
        super::file::notify_pollers();
        Ok(())
    }

    /// Takes up to `max` ready events: one-shot entries are disabled, and
    /// edge-triggered ones remember the count they reported.
    pub fn collect(&self, max: usize) -> Vec<ReadyEvent> {
        let mut out = Vec::new();
        let mut entries = self.entries.lock();
        entries.retain(|e| e.file.strong_count() > 0);
        let mut reported = Vec::new();
        for (index, entry) in entries.iter_mut().enumerate() {
            if out.len() >= max {
                break;
            }
            let Some(file) = entry.file.upgrade() else { continue };
            let ready = entry.ready(&file);
            if ready == 0 {
                continue;
            }
            out.push(ReadyEvent { events: ready, data: entry.data });
            if entry.events & abi::EPOLLET != 0 {
                entry.reported_count = Some(entry.count(&file));
            }
            if entry.events & abi::EPOLLONESHOT != 0 {
                entry.disabled = true;
            }
            reported.push(index);
        }
        // Reported entries go to the back, in the order reported.
        for (moved, index) in reported.into_iter().enumerate() {
            let entry = entries.remove(index - moved);
            entries.push(entry);
        }
        out
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

    fn watched_epolls(&self) -> Vec<Arc<OpenFile>> {
        self.entries.lock().iter().filter_map(|e| e.file.upgrade()).filter(|f| f.ops.as_epoll().is_some()).collect()
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

    /// Readable when some entry would report an event now.
    fn poll(&self) -> PollEvents {
        let entries = self.entries.lock();
        let any = entries.iter().any(|e| e.file.upgrade().is_some_and(|f| e.ready(&f) != 0));
        if any { POLLIN } else { 0 }
    }

    fn poll_counts(&self) -> (u64, u64) {
        let entries = self.entries.lock();
        let total = entries.iter().filter_map(|e| e.file.upgrade().map(|f| e.count(&f))).fold(0u64, u64::wrapping_add);
        (total, 0)
    }

    fn as_epoll(&self) -> Option<&Epoll> {
        Some(self)
    }
}
