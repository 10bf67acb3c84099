//! Task limits, as Linux's copy_process and execve enforce them:
//!
//! - `threads-max`: no task (process or thread) is created while the
//!   system has that many (EAGAIN for everyone); Linux derives it from RAM
//!   (one 16 KiB kernel stack in every eighth of memory).
//! - RLIMIT_NPROC: a task is not created when its real user already has
//!   the creator's limit of tasks (EAGAIN), unless the real user is root or
//!   the creator has CAP_SYS_RESOURCE or CAP_SYS_ADMIN. A user's tasks are
//!   its live threads and its processes not yet reaped (zombies count, as
//!   on Linux until release). init's limit is half of threads-max.
//! - A set*uid call that moves the real uid to a user over the limit marks
//!   the process (Linux's PF_NPROC_EXCEEDED); its next execve fails with
//!   EAGAIN if the user is still over the limit.

use core::sync::atomic::Ordering;

use kevlar_platform::sync::{SpinLock, SpinLockGuard};
use linux_raw_sys::general as abi;

use super::{all_processes, Process};
use crate::error::{Errno, Result};

/// Linux's THREAD_SIZE on x86_64.
const THREAD_SIZE: u64 = 16 * 1024;
/// Linux's MIN_THREADS and FUTEX_TID_MASK bounds on threads-max.
const MIN_THREADS: u64 = 20;
const MAX_THREADS: u64 = 0x3fff_ffff;

/// Held from the count to the moment the new task is counted, so two
/// creators of one user cannot both take the last place.
static ADMIT: SpinLock<()> = SpinLock::new(());

/// threads-max: RAM / (8 * THREAD_SIZE), as Linux's set_max_threads.
pub fn max_threads() -> u64 {
    let ram = kevlar_platform::mm::pmm::stats().total_bytes as u64;
    (ram / (8 * THREAD_SIZE)).clamp(MIN_THREADS, MAX_THREADS)
}

/// init's RLIMIT_NPROC (soft and hard): half of threads-max.
pub fn default_limit() -> u64 {
    max_threads() / 2
}

/// The tasks of real user `uid`: live threads, and processes not yet
/// reaped (a process whose threads are gone counts once).
pub fn tasks_of(uid: u32) -> u64 {
    all_processes()
        .iter()
        .filter(|p| !p.reaped.load(Ordering::Acquire) && p.creds.lock().uid == uid)
        .map(|p| p.thread_count().max(1) as u64)
        .sum()
}

/// Permission for one more task, held until the task is counted (in the
/// process table or its process's thread list).
pub struct Admission {
    _guard: Option<SpinLockGuard<'static, ()>>,
}

/// Checks that `creator`'s process may create a task now: EAGAIN at
/// threads-max, or when its real user is at the creator's RLIMIT_NPROC
/// (root, CAP_SYS_RESOURCE and CAP_SYS_ADMIN exempt).
pub fn admit(creator: &Process) -> Result<Admission> {
    if kevlar_platform::x86::user::live_task_count() >= max_threads() {
        return Err(Errno::EAGAIN);
    }
    let limit = creator.limits.lock()[abi::RLIMIT_NPROC as usize][0];
    let (uid, exempt) = {
        let c = creator.creds.lock();
        (c.uid, c.uid == 0 || c.has_cap(abi::CAP_SYS_RESOURCE) || c.has_cap(abi::CAP_SYS_ADMIN))
    };
    if exempt || limit == u64::MAX {
        return Ok(Admission { _guard: None });
    }
    let guard = ADMIT.lock();
    if tasks_of(uid) >= limit {
        return Err(Errno::EAGAIN);
    }
    Ok(Admission { _guard: Some(guard) })
}

/// After a set*uid call moved `process`'s real uid: marks it when the new
/// user (not root) already has more tasks than the limit, clears the mark
/// otherwise.
pub fn real_uid_changed(process: &Process) {
    let uid = process.creds.lock().uid;
    let limit = process.limits.lock()[abi::RLIMIT_NPROC as usize][0];
    // The user's tasks before this process joined it.
    let others = tasks_of(uid).saturating_sub(process.thread_count().max(1) as u64);
    let over = uid != 0 && limit != u64::MAX && others > limit;
    process.nproc_exceeded.store(over, Ordering::Relaxed);
}

/// The check execve makes first: EAGAIN when the process was marked by a
/// set*uid and its user is still over the limit; the mark goes once an
/// execve gets past it.
pub fn check_exec(process: &Process) -> Result<()> {
    if !process.nproc_exceeded.load(Ordering::Relaxed) {
        return Ok(());
    }
    let uid = process.creds.lock().uid;
    let limit = process.limits.lock()[abi::RLIMIT_NPROC as usize][0];
    if limit != u64::MAX && tasks_of(uid) > limit {
        return Err(Errno::EAGAIN);
    }
    process.nproc_exceeded.store(false, Ordering::Relaxed);
    Ok(())
}
