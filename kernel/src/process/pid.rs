//! Process and thread ids, handed out as Linux's alloc_pid does: in
//! increasing order up to `pid_max` (/proc/sys/kernel/pid_max), then again
//! from above RESERVED_PIDS, skipping every id still in use by a process
//! (until it is reaped), a thread, a process group or a session.

use alloc::collections::BTreeSet;
use core::sync::atomic::{AtomicI32, Ordering};

use kevlar_platform::sync::SpinLock;

use super::{all_processes, Pid};
use crate::error::{Errno, Result};

/// Linux's default pid_max on a machine with few CPUs.
pub const PID_MAX_DEFAULT: Pid = 32768;
/// The largest pid_max Linux accepts on 64-bit machines.
pub const PID_MAX_LIMIT: Pid = 4 * 1024 * 1024;
/// After wrapping, ids start above this (daemons started early keep theirs).
const RESERVED_PIDS: Pid = 300;

static PID_MAX: AtomicI32 = AtomicI32::new(PID_MAX_DEFAULT);
/// Ids handed out since boot (/proc/stat's `processes`: forks and clones).
static HANDED_OUT: core::sync::atomic::AtomicU64 = core::sync::atomic::AtomicU64::new(0);

/// The next id to try, and whether the ids have wrapped at least once
/// (until then every id from the cursor up is fresh).
struct Cursor {
    next: Pid,
    wrapped: bool,
}

static CURSOR: SpinLock<Cursor> = SpinLock::new(Cursor { next: 1, wrapped: false });

/// The current pid_max.
pub fn pid_max() -> Pid {
    PID_MAX.load(Ordering::Relaxed)
}

/// Sets pid_max (EINVAL outside Linux's range, RESERVED_PIDS + 1 to
/// PID_MAX_LIMIT).
pub fn set_pid_max(value: Pid) -> Result<()> {
    if !(RESERVED_PIDS + 1..=PID_MAX_LIMIT).contains(&value) {
        return Err(Errno::EINVAL);
    }
    PID_MAX.store(value, Ordering::Relaxed);
    Ok(())
}

/// The last id handed out (/proc/loadavg).
pub fn last_pid() -> Pid {
    CURSOR.lock().next - 1
}

/// How many ids were handed out since boot (/proc/stat's `processes`).
pub fn handed_out() -> u64 {
    HANDED_OUT.load(Ordering::Relaxed)
}

/// Every id a live or zombie process, thread, process group or session
/// holds.
fn ids_in_use() -> BTreeSet<Pid> {
    let mut used = BTreeSet::new();
    for process in all_processes() {
        if process.is_reaped() {
            continue;
        }
        used.insert(process.pid);
        used.insert(process.pgid.load(Ordering::Relaxed));
        used.insert(process.sid.load(Ordering::Relaxed));
        for thread in process.threads() {
            used.insert(thread.tid());
        }
    }
    used
}

/// Hands out a new id; EAGAIN when every id below pid_max is in use.
pub fn alloc() -> Result<Pid> {
    let pid = next_free()?;
    HANDED_OUT.fetch_add(1, Ordering::Relaxed);
    Ok(pid)
}

fn next_free() -> Result<Pid> {
    let max = pid_max();
    let mut cursor = CURSOR.lock();
    if !cursor.wrapped && cursor.next < max {
        let pid = cursor.next;
        cursor.next += 1;
        return Ok(pid);
    }
    // Past the first round: look for a free id from the cursor on,
    // wrapping once to just above the reserved ones.
    cursor.wrapped = true;
    let used = ids_in_use();
    let start = if cursor.next >= max { RESERVED_PIDS + 1 } else { cursor.next };
    let candidates = (start..max).chain(RESERVED_PIDS + 1..start.min(max));
    for pid in candidates {
        if !used.contains(&pid) {
            cursor.next = pid + 1;
            return Ok(pid);
        }
    }
    Err(Errno::EAGAIN)
}
