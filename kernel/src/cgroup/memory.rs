//! The memory controller's limit: memory.max enforced by killing inside
//! the cgroup.

use alloc::sync::Arc;
use core::sync::atomic::{AtomicU64, Ordering};

use super::{Cgroup, Notifier, PAGE_COUNTER_MAX};
use crate::process::{Process, Thread};

/// Brings the subtree of `cg` under its memory.max: while over, the
/// process with the most resident pages is killed (Linux's memcg OOM
/// killer: nothing is swapped here, so reclaim frees nothing), counting
/// the max, oom and oom_kill events.
pub fn enforce_memory_max(cg: &Arc<Cgroup>) {
    let max = cg.state.lock().memory.max;
    if max == PAGE_COUNTER_MAX {
        return;
    }
    let pages = super::resident_pages(cg);
    if pages <= max {
        return;
    }
    // The last victim still dying: wait for it.
    let dying = cg.state.lock().memory_victim.as_ref().and_then(|w| w.upgrade()).is_some_and(|p| p.exit_status().is_none());
    if dying {
        return;
    }
    let mut victim: Option<(u64, Arc<Process>)> = None;
    for p in super::members(cg, true) {
        if p.pid == 1 || p.oom.adj() == -1000 {
            continue;
        }
        let resident = p.vm.lock().clone().lock().size_and_resident().1;
        if victim.as_ref().is_none_or(|(best, _)| resident > *best) {
            victim = Some((resident, p));
        }
    }
    {
        let mut st = cg.state.lock();
        st.memory.events[2] += 1;
        st.memory.events[3] += 1;
        if victim.is_some() {
            st.memory.events[4] += 1;
        }
    }
    if let Some((_, p)) = victim {
        cg.state.lock().memory_victim = Some(Arc::downgrade(&p));
        log::error!("Memory cgroup out of memory: Killed process {} ({})", p.pid, p.comm.lock().clone());
        crate::process::signal::send_signal(&p, crate::process::signal::SIGKILL);
    }
    cg.notify(Notifier::Memory);
}

/// After a page fault that added a page to `thread`'s address space: if
/// a cgroup of its process is over memory.max, enforce it there. Cheap
/// when no cgroup has a memory limit.
pub fn after_fault(thread: &Thread) {
    if LIMITED.load(Ordering::Relaxed) == 0 {
        return;
    }
    let mut node = Some(thread.process.cgroup.cgroup());
    while let Some(n) = node {
        if n.state.lock().memory.max != PAGE_COUNTER_MAX {
            enforce_memory_max(&n);
        }
        node = n.parent().cloned();
    }
}

/// How many memory.max limits are set (a fault looks at cgroups only then).
pub static LIMITED: AtomicU64 = AtomicU64::new(0);

