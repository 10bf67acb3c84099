//! Per-file readiness queues: what poll, select and epoll register on to
//! hear that a file's readiness may have changed (Linux's wait queue with
//! poll_wait and wake-up callbacks).
//!
//! A file that owns a [`PollQueue`] returns it from `FileOps::poll_queue`
//! and calls [`PollQueue::notify`] after each change of its readiness; a
//! file without one is covered by the global fallback queue [`GLOBAL`],
//! which `file::notify_pollers` wakes (any event of any such file wakes
//! everyone registered there, as before per-file queues).
//!
//! A queue holds hooks: a poll or select call registers one that wakes
//! its thread, an epoll entry one that puts the entry on its instance's
//! ready list. Exclusive hooks (EPOLLEXCLUSIVE entries) are called after
//! all the others, in the order they were added, until one reports that it
//! woke a waiter: one wake-up, one exclusive waiter, as Linux's
//! `__wake_up_common` with one exclusive wake-up.
//!
//! Locking: the queue's lock is a leaf. `notify` copies the hooks out and
//! calls them with no lock held, so a hook may take any lock (an epoll
//! instance's, a scheduler queue's) whatever the caller of `notify`
//! holds, except that callers must not hold a lock a hook takes: files
//! call `notify` after releasing their own state lock. A hook may thus be
//! called just after it was removed; hooks tolerate that (an epoll entry
//! checks that it is still registered, a poll waiter only wakes a thread
//! that rechecks anyway).

use alloc::sync::{Arc, Weak};
use alloc::vec::Vec;

use kevlar_platform::sync::SpinLock;

/// Something to tell when a file's readiness may have changed.
pub trait PollHook: Send + Sync {
    /// Called after a change; `events` is the kind of change as epoll
    /// events (EPOLLIN, EPOLLOUT, ...), 0 when unknown. Returns whether it
    /// woke a waiter (what ends an exclusive wake-up).
    fn notify(&self, events: u32) -> bool;
    /// Whether the hook is an exclusive waiter.
    fn exclusive(&self) -> bool {
        false
    }
}

/// A file's readiness queue. It holds its hooks weakly: a hook whose
/// owner dropped it (an epoll instance closed, an entry deleted) is
/// skipped and pruned.
pub struct PollQueue {
    hooks: SpinLock<Vec<Weak<dyn PollHook>>>,
}

fn same(a: &Weak<dyn PollHook>, b: &Arc<dyn PollHook>) -> bool {
    core::ptr::eq(a.as_ptr() as *const (), Arc::as_ptr(b) as *const ())
}

impl PollQueue {
    /// Creates an empty queue.
    pub const fn new() -> PollQueue {
        PollQueue { hooks: SpinLock::new(Vec::new()) }
    }

    /// Registers `hook` (held weakly).
    pub fn add(&self, hook: &Arc<dyn PollHook>) {
        let mut hooks = self.hooks.lock();
        hooks.retain(|h| h.strong_count() > 0);
        hooks.push(Arc::downgrade(hook));
    }

    /// Unregisters `hook` (nothing if it is not registered).
    pub fn remove(&self, hook: &Arc<dyn PollHook>) {
        let mut hooks = self.hooks.lock();
        if let Some(at) = hooks.iter().position(|h| same(h, hook)) {
            hooks.remove(at);
        }
    }

    /// Tells the hooks that the readiness may have changed (`events`: the
    /// kind of change, 0 when unknown): every non-exclusive hook, then the
    /// exclusive ones until one woke a waiter. Also lets O_ASYNC owners
    /// look (`fasync`).
    pub fn notify(&self, events: u32) {
        let hooks: Vec<Arc<dyn PollHook>> = {
            let hooks = self.hooks.lock();
            hooks.iter().filter_map(Weak::upgrade).collect()
        };
        let mut exclusive = false;
        for hook in &hooks {
            if hook.exclusive() {
                exclusive = true;
            } else {
                hook.notify(events);
            }
        }
        if exclusive {
            for hook in hooks.iter().filter(|h| h.exclusive()) {
                if hook.notify(events) {
                    break;
                }
            }
        }
        super::fasync::note_wakeup();
    }
}

impl Default for PollQueue {
    fn default() -> Self {
        Self::new()
    }
}

/// The fallback queue for files that have none of their own.
pub static GLOBAL: PollQueue = PollQueue::new();

/// The queue to register on for `file`: its own, or the fallback.
pub fn queue_of(file: &super::file::OpenFile) -> &PollQueue {
    file.ops.poll_queue().unwrap_or(&GLOBAL)
}

/// A poll or select call's hook: wakes the calling thread, which sleeps on
/// `queue` and rescans its fds.
pub struct PollWaiter {
    /// Where the polling thread sleeps.
    pub queue: crate::process::wait_queue::WaitQueue,
}

impl PollHook for PollWaiter {
    fn notify(&self, _events: u32) -> bool {
        self.queue.wake_all();
        true
    }
}

/// Registrations of one poll/select call on the queues of its files,
/// undone when dropped.
pub struct PollRegistration {
    waiter: Arc<PollWaiter>,
    files: Vec<Arc<super::file::OpenFile>>,
    global: bool,
}

impl PollRegistration {
    /// Registers a new waiter on the queues of `files` (the fallback queue
    /// once for all the files without one).
    pub fn new(files: Vec<Arc<super::file::OpenFile>>) -> PollRegistration {
        let waiter = Arc::new(PollWaiter { queue: crate::process::wait_queue::WaitQueue::new() });
        let hook: Arc<dyn PollHook> = waiter.clone();
        let mut global = false;
        for file in &files {
            match file.ops.poll_queue() {
                Some(queue) => queue.add(&hook),
                None => global = true,
            }
        }
        if global {
            GLOBAL.add(&hook);
        }
        PollRegistration { waiter, files, global }
    }

    /// The queue the polling thread sleeps on.
    pub fn queue(&self) -> &crate::process::wait_queue::WaitQueue {
        &self.waiter.queue
    }
}

impl Drop for PollRegistration {
    fn drop(&mut self) {
        let hook: Arc<dyn PollHook> = self.waiter.clone();
        for file in &self.files {
            if let Some(queue) = file.ops.poll_queue() {
                queue.remove(&hook);
            }
        }
        if self.global {
            GLOBAL.remove(&hook);
        }
    }
}
