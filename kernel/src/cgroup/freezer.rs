//! The freezer: cgroup.freeze parks the subtree's tasks on their way
//! back to user mode; cgroup.events reports "frozen" once all are.

use alloc::sync::Arc;
use alloc::vec::Vec;
use core::sync::atomic::{AtomicU64, Ordering};

use super::{Cgroup, Notifier};
use crate::process::wait_queue::WaitQueue;
use crate::process::{Thread, ThreadState};

/// How many cgroups have cgroup.freeze set (threads look only then).
static FREEZING: AtomicU64 = AtomicU64::new(0);
/// Frozen threads sleep here.
static THAW: WaitQueue = WaitQueue::new();
/// `FREEZING != 0`, as a bit of the return-to-user attention word.
static FREEZING_FLAG: kevlar_platform::attention::Flag =
    kevlar_platform::attention::Flag::new(kevlar_platform::attention::FREEZING);

/// Whether some cgroup is frozen (read on every return to user mode).
#[inline]
pub fn freezing() -> bool {
    FREEZING.load(Ordering::Relaxed) != 0
}

/// Lets parked tasks look again whether they are still frozen (one was
/// moved).
pub fn wake_parked() {
    if freezing() {
        THAW.wake_all();
    }
}

/// Whether `cg` or an ancestor has cgroup.freeze set.
fn freeze_in_effect(cg: &Arc<Cgroup>) -> bool {
    let mut node = Some(cg);
    while let Some(n) = node {
        if n.state.lock().freeze {
            return true;
        }
        node = n.parent();
    }
    false
}

pub fn set_freeze(cg: &Arc<Cgroup>, freeze: bool) {
    {
        let mut st = cg.state.lock();
        if st.freeze == freeze {
            return;
        }
        st.freeze = freeze;
    }
    if freeze {
        // Running threads stop at their next return to user mode (a
        // timer tick at the latest); sleeping ones count as frozen and
        // stop before they run user code again.
        FREEZING.fetch_add(1, Ordering::AcqRel);
        FREEZING_FLAG.set();
    } else {
        if FREEZING.fetch_sub(1, Ordering::AcqRel) == 1 {
            // Cleared, then looked at again: a freeze that raced in keeps
            // its bit.
            FREEZING_FLAG.clear();
            if FREEZING.load(Ordering::Acquire) != 0 {
                FREEZING_FLAG.set();
            }
        }
        THAW.wake_all();
    }
    refresh_frozen(cg, None, true);
}

/// Whether every task of the subtree of `cg` is frozen: parked, or
/// asleep in the kernel (it parks before running user code again);
/// `parking` counts as parked.
fn all_frozen(cg: &Arc<Cgroup>, parking: Option<&Thread>) -> bool {
    super::members(cg, true).iter().all(|p| {
        p.threads().iter().all(|t| parking.is_some_and(|me| core::ptr::eq(me, &**t)) || t.state() != ThreadState::Runnable)
    })
}

/// Recomputes the reported frozen state of `cg`'s ancestors and of `cg`
/// (and with `subtree`, of its descendants), notifying cgroup.events of
/// each that changed.
fn refresh_frozen(cg: &Arc<Cgroup>, parking: Option<&Thread>, subtree: bool) {
    let mut nodes: Vec<Arc<Cgroup>> = Vec::new();
    if subtree {
        let mut stack = alloc::vec![cg.clone()];
        while let Some(n) = stack.pop() {
            stack.extend(n.state.lock().children.iter().cloned());
            nodes.push(n);
        }
    } else {
        nodes.push(cg.clone());
    }
    let mut up = cg.parent().cloned();
    while let Some(n) = up {
        up = n.parent().cloned();
        nodes.push(n);
    }
    for n in nodes {
        if n.is_root() {
            continue;
        }
        let frozen = freeze_in_effect(&n) && all_frozen(&n, parking);
        let changed = {
            let mut st = n.state.lock();
            let changed = st.frozen != frozen;
            st.frozen = frozen;
            changed
        };
        if changed {
            n.notify(Notifier::Events);
        }
    }
}

/// After the members of `cg` changed: its frozen state may have.
pub fn update_frozen(cg: &Arc<Cgroup>) {
    if freezing() {
        refresh_frozen(cg, None, false);
    }
}

/// A process joined `cg`: if the cgroup is frozen, it is no longer (until
/// the newcomer parks).
pub fn freeze_new_member(cg: &Arc<Cgroup>) {
    update_frozen(cg);
}

/// On the way back to user mode: a thread of a frozen cgroup parks here
/// until the cgroup thaws or a fatal signal comes.
pub fn before_user_return(thread: &Arc<Thread>) {
    let cg = thread.process.cgroup.cgroup();
    if !freeze_in_effect(&cg) || thread.fatal_signal_pending() {
        return;
    }
    refresh_frozen(&cg, Some(thread), false);
    THAW.wait_until_uninterruptible(|| (!freeze_in_effect(&thread.process.cgroup.cgroup()) || thread.fatal_signal_pending()).then_some(()));
    let cg = thread.process.cgroup.cgroup();
    if freezing() {
        refresh_frozen(&cg, None, false);
    }
}
