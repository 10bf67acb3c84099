//! A socket's classic BPF filter, as Linux keeps it in `sk->sk_filter`
//! with the SOCK_FILTER_LOCKED flag: SO_ATTACH_FILTER sets it,
//! SO_DETACH_FILTER takes it away (ENOENT without one), SO_LOCK_FILTER
//! freezes both (EPERM, and EPERM for unlocking), SO_GET_FILTER gives the
//! program back. Every socket has one (in its [`super::SocketOptions`]);
//! the families that deliver through it run it on what they queue.

use alloc::sync::Arc;
use alloc::vec::Vec;

use kevlar_platform::sync::SpinLock;

use crate::error::{Errno, Result};

#[derive(Default)]
struct Slot {
    filter: Option<Arc<kevlar_bpf::Filter>>,
    /// The program as attached (struct sock_filter's bytes), for
    /// SO_GET_FILTER.
    program: Option<Arc<Vec<u8>>>,
    locked: bool,
}

/// A socket's filter slot.
pub struct SocketFilter {
    slot: SpinLock<Slot>,
}

impl Default for SocketFilter {
    fn default() -> Self {
        SocketFilter { slot: SpinLock::new(Slot::default()) }
    }
}

impl SocketFilter {
    /// EPERM once the filter is locked (checked before the program is
    /// read, as Linux's __get_filter).
    pub fn check_unlocked(&self) -> Result<()> {
        if self.slot.lock().locked { Err(Errno::EPERM) } else { Ok(()) }
    }

    /// SO_ATTACH_FILTER: replaces the filter (EPERM when locked).
    pub fn attach(&self, filter: kevlar_bpf::Filter, program: Vec<u8>) -> Result<()> {
        let old = {
            let mut slot = self.slot.lock();
            if slot.locked {
                return Err(Errno::EPERM);
            }
            slot.program = Some(Arc::new(program));
            slot.filter.replace(Arc::new(filter))
        };
        drop(old);
        Ok(())
    }

    /// SO_DETACH_FILTER: EPERM when locked, ENOENT without a filter.
    pub fn detach(&self) -> Result<()> {
        let mut slot = self.slot.lock();
        if slot.locked {
            return Err(Errno::EPERM);
        }
        let old = slot.filter.take().ok_or(Errno::ENOENT)?;
        slot.program = None;
        drop(slot);
        drop(old);
        Ok(())
    }

    /// SO_LOCK_FILTER: a locked filter cannot be unlocked (EPERM).
    pub fn set_locked(&self, on: bool) -> Result<()> {
        let mut slot = self.slot.lock();
        if slot.locked && !on {
            return Err(Errno::EPERM);
        }
        slot.locked = on;
        Ok(())
    }

    pub fn locked(&self) -> bool {
        self.slot.lock().locked
    }

    /// The program attached (for SO_GET_FILTER), if any.
    pub fn program(&self) -> Option<Arc<Vec<u8>>> {
        self.slot.lock().program.clone()
    }

    /// Takes `other`'s filter, program and lock (an accepted socket's
    /// from its listener, as Linux's sk_clone_lock).
    pub fn copy_from(&self, other: &SocketFilter) {
        let (filter, program, locked) = {
            let o = other.slot.lock();
            (o.filter.clone(), o.program.clone(), o.locked)
        };
        let mut slot = self.slot.lock();
        slot.filter = filter;
        slot.program = program;
        slot.locked = locked;
    }

    /// The filter attached, if any.
    pub fn current(&self) -> Option<Arc<kevlar_bpf::Filter>> {
        self.slot.lock().filter.clone()
    }

    /// Runs the filter on `data` as Linux's sk_filter_trim_cap with a
    /// floor of `cap` bytes: None drops it, Some(n) keeps its first n
    /// bytes (never fewer than `cap`, never more than it has). Without a
    /// filter everything is kept.
    pub fn keep(&self, data: &[u8], cap: usize) -> Option<usize> {
        let Some(filter) = self.current() else { return Some(data.len()) };
        match filter.run_packet(data) as usize {
            0 => None,
            n => Some(n.max(cap).min(data.len())),
        }
    }
}
