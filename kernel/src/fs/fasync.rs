//! Signal-driven I/O (O_ASYNC, FIOASYNC, F_SETOWN, F_SETOWN_EX, F_SETSIG):
//! a file with O_ASYNC set signals its owner when it becomes readable or
//! writable, with SIGIO (SI_KERNEL) or, after F_SETSIG, the chosen signal
//! with si_code POLL_IN/POLL_OUT, si_band and si_fd, as Linux's
//! kill_fasync does.
//!
//! Files report readiness by waking pollers (`notify_pollers`), which any
//! context may call; that only marks the O_ASYNC files for a look. The look
//! happens in process context (on the way back to user mode, and in the
//! idle loop): a registered file whose readable count
//! (`FileOps::poll_counts`) moved and which polls readable sends POLL_IN;
//! one that polls writable again after it did not sends POLL_OUT.

use alloc::sync::{Arc, Weak};
use alloc::vec::Vec;
use core::sync::atomic::{AtomicBool, Ordering};

use kevlar_platform::sync::SpinLock;
use linux_raw_sys::general as abi;

use super::file::{OpenFile, POLLIN, POLLOUT};
use crate::error::{Errno, Result};
use crate::process::signal::{self, SigInfo};
use crate::process::{all_processes, find_process, find_thread, Pid, Process};

/// Whom a file signals (F_SETOWN, F_SETOWN_EX).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OwnerKind {
    /// One thread (F_OWNER_TID).
    Thread,
    /// A process (F_OWNER_PID; F_SETOWN with a positive id).
    Process,
    /// A process group (F_OWNER_PGRP; F_SETOWN with a negative id).
    Group,
}

/// A file's owner for signal-driven I/O, with the ids of whoever set it
/// (Linux checks them against the receiver's when it sends).
#[derive(Clone, Copy, Debug)]
pub struct Owner {
    pub kind: OwnerKind,
    pub id: Pid,
    uid: u32,
    euid: u32,
}

/// The signal-driven I/O state of an open file description.
#[derive(Clone, Copy, Debug, Default)]
pub struct AsyncState {
    pub owner: Option<Owner>,
    /// F_SETSIG's signal; 0 means SIGIO without details.
    pub signal: u32,
}

struct Registered {
    file: Weak<OpenFile>,
    fd: i32,
    counts: (u64, u64),
    /// Whether the file polled writable at the last look.
    writable: bool,
}

static REGISTERED: SpinLock<Vec<Registered>> = SpinLock::new(Vec::new());
/// Some file has O_ASYNC set: wake-ups must be looked at.
static ANY: AtomicBool = AtomicBool::new(false);
/// A wake-up happened since the last look.
static PENDING: kevlar_platform::attention::Flag = kevlar_platform::attention::Flag::new(kevlar_platform::attention::FASYNC_PENDING);

/// Called for every poller wake-up (any context: atomics only).
pub fn note_wakeup() {
    if ANY.load(Ordering::Relaxed) {
        PENDING.set();
    }
}

/// Turns O_ASYNC on or off for `file`, opened as `fd` (si_fd names it).
pub fn set_async(file: &Arc<OpenFile>, fd: i32, on: bool) {
    let mut list = REGISTERED.lock();
    list.retain(|r| r.file.strong_count() > 0 && !core::ptr::eq(r.file.as_ptr(), Arc::as_ptr(file)));
    if on {
        let writable = file.ops.poll() & POLLOUT != 0;
        list.push(Registered { file: Arc::downgrade(file), fd, counts: file.ops.poll_counts(), writable });
    }
    ANY.store(!list.is_empty(), Ordering::Relaxed);
}

/// Sends the signals that wake-ups since the last look call for: on a
/// return to user mode that found the attention word set.
#[inline]
pub fn run_pending() {
    if PENDING.get() {
        run_pending_slow();
    }
}

#[cold]
#[inline(never)]
fn run_pending_slow() {
    if !PENDING.take() {
        return;
    }
    let mut due = Vec::new();
    {
        let mut list = REGISTERED.lock();
        list.retain(|r| r.file.strong_count() > 0);
        for entry in list.iter_mut() {
            let Some(file) = entry.file.upgrade() else { continue };
            let counts = file.ops.poll_counts();
            let ready = file.ops.poll();
            if counts.0 != entry.counts.0 && ready & POLLIN != 0 {
                due.push((file.clone(), entry.fd, abi::POLL_IN));
            }
            // Every arrival is news to a reader; room to write only when
            // there was none (Linux's write-space callbacks).
            let writable = ready & POLLOUT != 0;
            if counts.1 != entry.counts.1 && writable && !entry.writable {
                due.push((file.clone(), entry.fd, abi::POLL_OUT));
            }
            entry.counts = counts;
            entry.writable = writable;
        }
        ANY.store(!list.is_empty(), Ordering::Relaxed);
    }
    // Signals go out with no list lock held.
    for (file, fd, reason) in due {
        if file.flags() & abi::FASYNC != 0 {
            send(&file.async_state(), fd, reason);
        }
    }
}

/// Linux's sigio_perm: the setter was root, or one of its ids matches the
/// receiver's real or saved uid.
fn may_signal(owner: &Owner, target: &Process) -> bool {
    let creds = target.creds.lock();
    owner.euid == 0 || [owner.uid, owner.euid].iter().any(|&id| id == creds.uid || id == creds.suid)
}

fn send(state: &AsyncState, fd: i32, reason: u32) {
    let Some(owner) = state.owner else { return };
    let info = if state.signal == 0 {
        SigInfo::new(signal::SIGIO, abi::SI_KERNEL as i32)
    } else {
        let band = if reason == abi::POLL_IN {
            abi::POLLIN | abi::POLLRDNORM | abi::POLLMSG
        } else {
            abi::POLLOUT | abi::POLLWRNORM | abi::POLLWRBAND
        };
        SigInfo::poll(state.signal, reason as i32, band as i64, fd)
    };
    match owner.kind {
        OwnerKind::Thread => {
            if let Some(thread) = find_thread(owner.id).filter(|t| may_signal(&owner, &t.process)) {
                let _ = signal::send_signal_to_thread(&thread, info);
            }
        }
        OwnerKind::Process => {
            if let Some(process) = find_process(owner.id).filter(|p| may_signal(&owner, p)) {
                let _ = signal::send_signal_info(&process, info);
            }
        }
        OwnerKind::Group => {
            for process in all_processes() {
                if process.pgid.load(Ordering::Relaxed) == owner.id && process.exit_status().is_none() && may_signal(&owner, &process) {
                    let _ = signal::send_signal_info(&process, info);
                }
            }
        }
    }
}

/// Whether some task still is what `owner` names (a thread, a process, a
/// group with a member): F_GETOWN shows 0 once none is (Linux's
/// pid_task check).
pub fn owner_alive(owner: &Owner) -> bool {
    match owner.kind {
        OwnerKind::Thread => find_thread(owner.id).is_some(),
        OwnerKind::Process => find_process(owner.id).is_some(),
        OwnerKind::Group => all_processes().iter().any(|p| p.pgid.load(Ordering::Relaxed) == owner.id),
    }
}

/// Makes the owner record for F_SETOWN/F_SETOWN_EX: the id must be in
/// use by some task, as a thread, group or session id, whatever `kind`
/// asks for (Linux's find_vpid; ESRCH otherwise); id 0 clears.
pub fn owner(kind: OwnerKind, id: Pid, setter: &Process) -> Result<Option<Owner>> {
    if id == 0 {
        return Ok(None);
    }
    let exists = find_thread(id).is_some()
        || all_processes().iter().any(|p| p.pgid.load(Ordering::Relaxed) == id || p.sid.load(Ordering::Relaxed) == id);
    if !exists {
        return Err(Errno::ESRCH);
    }
    let creds = setter.creds.lock();
    Ok(Some(Owner { kind, id, uid: creds.uid, euid: creds.euid }))
}
