//! Scheduling system calls: affinity, policy, nice values.

use linux_raw_sys::general as abi;

use crate::error::{Errno, Result};
use crate::process::access;
use crate::process::{find_process, find_thread, Process, Thread};
use crate::uaccess::{copy_from_user, copy_to_user};
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::sync::atomic::Ordering;

fn target(thread: &Thread, pid: i32) -> Result<Arc<Process>> {
    if pid < 0 {
        return Err(Errno::EINVAL);
    }
    if pid == 0 {
        return Ok(thread.process.clone());
    }
    let pid = crate::ns::pid::global(pid);
    find_process(pid)
        .or_else(|| find_thread(pid).map(|t| t.process.clone()))
        .filter(|p| p.exit_status().is_none())
        .ok_or(Errno::ESRCH)
}

/// The thread an affinity call names: 0 is the caller, else a thread id
/// (a process id names its main thread).
fn target_thread(thread: &Thread, pid: i32) -> Result<Arc<Thread>> {
    if pid < 0 {
        return Err(Errno::EINVAL);
    }
    if pid == 0 {
        return crate::process::current().ok_or(Errno::ESRCH);
    }
    let _ = thread;
    find_thread(crate::ns::pid::global(pid)).ok_or(Errno::ESRCH)
}

pub fn sched_getaffinity(thread: &Thread, pid: i32, len: usize, mask: usize) -> Result<isize> {
    let target = target_thread(thread, pid)?;
    // The kernel's mask type is 1024 bits (128 bytes), as Linux's; smaller
    // buffers than the online CPU mask fail, bigger ones get 8 bytes.
    let bytes = core::mem::size_of::<u64>();
    if len < bytes || len % bytes != 0 {
        return Err(Errno::EINVAL);
    }
    let value = target.affinity.load(core::sync::atomic::Ordering::Relaxed);
    copy_to_user(mask, &value.to_le_bytes())?;
    Ok(bytes as isize)
}

/// sched_setaffinity, in Linux's order: the mask is read (EFAULT), the
/// thread found (ESRCH), the caller's right checked (EPERM), then the mask
/// must name an online CPU (EINVAL).
pub fn sched_setaffinity(thread: &Thread, pid: i32, len: usize, mask: usize) -> Result<isize> {
    let mut raw = [0u8; 8];
    let n = len.min(8);
    copy_from_user(&mut raw[..n], mask)?;
    let target = target_thread(thread, pid)?;
    access::check_scheduling(&thread.process, &target.process)?;
    let online = if kevlar_platform::smp::cpu_count() >= 64 { u64::MAX } else { (1u64 << kevlar_platform::smp::cpu_count()) - 1 };
    let wanted = u64::from_le_bytes(raw) & online;
    if wanted == 0 {
        return Err(Errno::EINVAL);
    }
    target.set_affinity(wanted);
    Ok(0)
}

pub fn sched_getscheduler(thread: &Thread, pid: i32) -> Result<isize> {
    let process = target(thread, pid)?;
    let policy = process.sched_policy.lock().0;
    let reset = if process.sched_reset_on_fork.load(Ordering::Relaxed) { abi::SCHED_RESET_ON_FORK } else { 0 };
    Ok((policy | reset) as isize)
}

pub fn sched_setscheduler(thread: &Thread, pid: i32, policy: u32, param: usize) -> Result<isize> {
    if param == 0 || pid < 0 {
        return Err(Errno::EINVAL);
    }
    let priority = i32::from_le_bytes(super::read_bytes::<4>(param)?);
    let process = target(thread, pid)?;
    let reset_on_fork = policy & abi::SCHED_RESET_ON_FORK != 0;
    let policy = policy & !abi::SCHED_RESET_ON_FORK;
    let valid = match policy {
        abi::SCHED_NORMAL | abi::SCHED_BATCH | abi::SCHED_IDLE => priority == 0,
        abi::SCHED_FIFO | abi::SCHED_RR => (1..=99).contains(&priority),
        _ => return Err(Errno::EINVAL),
    };
    if !valid {
        return Err(Errno::EINVAL);
    }
    check_set_scheduler(thread, &process, policy, priority)?;
    // Dropping the flag needs CAP_SYS_NICE (Linux's __sched_setscheduler).
    if process.sched_reset_on_fork.load(Ordering::Relaxed) && !reset_on_fork && !access::capable(&thread.process, abi::CAP_SYS_NICE) {
        return Err(Errno::EPERM);
    }
    *process.sched_policy.lock() = (policy, priority);
    process.sched_reset_on_fork.store(reset_on_fork, Ordering::Relaxed);
    Ok(0)
}

/// The privilege checks of Linux's __sched_setscheduler for a caller
/// without CAP_SYS_NICE: a real-time policy or a higher real-time priority
/// only within RLIMIT_RTPRIO, leaving SCHED_IDLE only within RLIMIT_NICE,
/// and only for a process of the same owner. EPERM otherwise.
fn check_set_scheduler(thread: &Thread, target: &Process, policy: u32, priority: i32) -> Result<()> {
    if access::capable(&thread.process, abi::CAP_SYS_NICE) {
        return Ok(());
    }
    let (old_policy, old_priority) = *target.sched_policy.lock();
    let rtprio = target.limits.lock()[abi::RLIMIT_RTPRIO as usize][0];
    if matches!(policy, abi::SCHED_FIFO | abi::SCHED_RR) {
        if policy != old_policy && rtprio == 0 {
            return Err(Errno::EPERM);
        }
        let was = if matches!(old_policy, abi::SCHED_FIFO | abi::SCHED_RR) { old_priority } else { 0 };
        if priority > was && priority as u64 > rtprio {
            return Err(Errno::EPERM);
        }
    }
    let nice = *target.nice.lock();
    if old_policy == abi::SCHED_IDLE && policy != abi::SCHED_IDLE && !access::can_nice(&thread.process, target, nice) {
        return Err(Errno::EPERM);
    }
    if !access::same_owner(&thread.process, target) {
        return Err(Errno::EPERM);
    }
    Ok(())
}

pub fn getcpu(cpu: usize, node: usize) -> Result<isize> {
    let index = kevlar_platform::smp::cpu_index() as u32;
    if cpu != 0 {
        copy_to_user(cpu, &index.to_le_bytes())?;
    }
    if node != 0 {
        copy_to_user(node, &0u32.to_le_bytes())?;
    }
    Ok(0)
}

pub fn sched_getparam(thread: &Thread, pid: i32, param: usize) -> Result<isize> {
    if param == 0 {
        return Err(Errno::EINVAL);
    }
    let process = target(thread, pid)?;
    let priority = process.sched_policy.lock().1;
    copy_to_user(param, &priority.to_le_bytes())?;
    Ok(0)
}

pub fn sched_setparam(thread: &Thread, pid: i32, param: usize) -> Result<isize> {
    if param == 0 || pid < 0 {
        return Err(Errno::EINVAL);
    }
    let priority = i32::from_le_bytes(super::read_bytes::<4>(param)?);
    let process = target(thread, pid)?;
    let policy = process.sched_policy.lock().0;
    let ok = if matches!(policy, abi::SCHED_FIFO | abi::SCHED_RR) { (1..=99).contains(&priority) } else { priority == 0 };
    if !ok {
        return Err(Errno::EINVAL);
    }
    check_set_scheduler(thread, &process, policy, priority)?;
    process.sched_policy.lock().1 = priority;
    Ok(0)
}

pub fn priority_bounds(policy: u32, max: bool) -> Result<isize> {
    match policy {
        abi::SCHED_FIFO | abi::SCHED_RR => Ok(if max { 99 } else { 1 }),
        abi::SCHED_NORMAL | abi::SCHED_BATCH | abi::SCHED_IDLE => Ok(0),
        _ => Err(Errno::EINVAL),
    }
}

pub fn sched_rr_get_interval(thread: &Thread, pid: i32, tp: usize) -> Result<isize> {
    target(thread, pid)?;
    let mut raw = [0u8; 16];
    raw[8..16].copy_from_slice(&100_000_000i64.to_le_bytes());
    copy_to_user(tp, &raw)?;
    Ok(0)
}

/// The live processes `which`/`who` name for getpriority and
/// setpriority: one process (0: the caller), a process group (0: the
/// caller's) or a user's processes by real uid (0: the caller's). EINVAL
/// for another `which`; an empty list when nothing matches.
fn priority_targets(thread: &Thread, which: u32, who: i32) -> Result<Vec<Arc<Process>>> {
    let alive = |p: &Arc<Process>| p.exit_status().is_none();
    match which {
        abi::PRIO_PROCESS => Ok(target(thread, who).ok().into_iter().collect()),
        abi::PRIO_PGRP => {
            let pgid = if who == 0 { thread.process.pgid.load(Ordering::Relaxed) } else { who };
            Ok(crate::process::all_processes().into_iter().filter(|p| alive(p) && p.pgid.load(Ordering::Relaxed) == pgid).collect())
        }
        abi::PRIO_USER => {
            let uid = if who == 0 { thread.process.creds.lock().uid } else { who as u32 };
            Ok(crate::process::all_processes().into_iter().filter(|p| alive(p) && p.creds.lock().uid == uid).collect())
        }
        _ => Err(Errno::EINVAL),
    }
}

/// getpriority: the highest priority (lowest nice value) among the
/// processes named, as 20 - nice (the raw syscall's encoding); ESRCH if
/// none. No permission is needed.
pub fn getpriority(thread: &Thread, which: u32, who: i32) -> Result<isize> {
    // The caller's own value (the common case) needs no lookup.
    if which == abi::PRIO_PROCESS && who == 0 {
        return Ok((20 - *thread.process.nice.lock()) as isize);
    }
    let targets = priority_targets(thread, which, who)?;
    targets.iter().map(|p| (20 - *p.nice.lock()) as isize).max().ok_or(Errno::ESRCH)
}

/// setpriority as Linux's set_one_prio on each process named: the caller
/// must own it or hold CAP_SYS_NICE (EPERM); lowering its nice value needs
/// room in its RLIMIT_NICE or CAP_SYS_NICE (EACCES). The answer is the
/// last failure, else 0, else ESRCH when nothing matched (Linux's
/// accumulation).
pub fn setpriority(thread: &Thread, which: u32, who: i32, nice: i32) -> Result<isize> {
    let nice = nice.clamp(-20, 19);
    let mut result = Err(Errno::ESRCH);
    for process in priority_targets(thread, which, who)? {
        if let Err(e) = set_one_priority(thread, &process, nice) {
            result = Err(e);
        } else if result == Err(Errno::ESRCH) {
            result = Ok(0);
        }
    }
    result
}

fn set_one_priority(thread: &Thread, process: &Process, nice: i32) -> Result<()> {
    access::check_set_priority(&thread.process, process)?;
    let current = *process.nice.lock();
    if nice < current && !access::can_nice(&thread.process, process, nice) {
        return Err(Errno::EACCES);
    }
    *process.nice.lock() = nice;
    Ok(())
}

// I/O priorities (include/uapi/linux/ioprio.h; linux-raw-sys has none of
// these): the class in the bits from 13 up, the level below.
const IOPRIO_CLASS_SHIFT: i32 = 13;
const IOPRIO_CLASS_NONE: i32 = 0;
const IOPRIO_CLASS_RT: i32 = 1;
const IOPRIO_CLASS_BE: i32 = 2;
const IOPRIO_CLASS_IDLE: i32 = 3;
/// The level is the low 3 bits (IOPRIO_LEVEL_MASK); the bits between it
/// and the class are not looked at.
const IOPRIO_LEVEL_MASK: i32 = 7;
/// The BE level a priority without a class counts as when compared
/// (IOPRIO_NORM).
const IOPRIO_NORM: i32 = 4;
const IOPRIO_WHO_PROCESS: u32 = 1;
const IOPRIO_WHO_PGRP: u32 = 2;
const IOPRIO_WHO_USER: u32 = 3;

fn ioprio_value(class: i32, level: i32) -> i32 {
    class << IOPRIO_CLASS_SHIFT | level
}

/// The processes ioprio_get and ioprio_set name: one process (0: the
/// caller), a process group (0: the caller's), a user's processes by
/// real uid (0: the caller's); EINVAL for another `which`.
fn ioprio_targets(thread: &Thread, which: u32, who: i32) -> Result<Vec<Arc<Process>>> {
    let kind = match which {
        IOPRIO_WHO_PROCESS => abi::PRIO_PROCESS,
        IOPRIO_WHO_PGRP => abi::PRIO_PGRP,
        IOPRIO_WHO_USER => abi::PRIO_USER,
        _ => return Err(Errno::EINVAL),
    };
    priority_targets(thread, kind, who)
}

/// What ioprio_get reports for a process: its priority, or 0 (class
/// NONE) when it never had one (Linux's get_task_ioprio).
fn task_ioprio(p: &Process) -> i32 {
    match p.ioprio.load(Ordering::Relaxed) {
        -1 => ioprio_value(IOPRIO_CLASS_NONE, 0),
        v => v,
    }
}

/// Linux's ioprio_check_cap: the class and level must make sense
/// (EINVAL); the real-time class needs CAP_SYS_ADMIN or CAP_SYS_NICE
/// (EPERM).
pub(super) fn check_ioprio(thread: &Thread, ioprio: i32) -> Result<()> {
    let (class, level) = ((ioprio >> IOPRIO_CLASS_SHIFT) & 0x7, ioprio & IOPRIO_LEVEL_MASK);
    match class {
        IOPRIO_CLASS_RT | IOPRIO_CLASS_BE => {
            // Every 3-bit level is valid for these classes.
            if class == IOPRIO_CLASS_RT && !access::capable(&thread.process, abi::CAP_SYS_ADMIN) && !access::capable(&thread.process, abi::CAP_SYS_NICE) {
                return Err(Errno::EPERM);
            }
        }
        IOPRIO_CLASS_IDLE => {}
        IOPRIO_CLASS_NONE if level == 0 => {}
        _ => return Err(Errno::EINVAL),
    }
    Ok(())
}

/// ioprio_set: checks the value, then sets it on each process named that
/// the caller may change (Linux's set_task_ioprio: EPERM stops at the
/// first refusal); ESRCH when none is named.
pub fn ioprio_set(thread: &Thread, which: u32, who: i32, ioprio: i32) -> Result<isize> {
    check_ioprio(thread, ioprio)?;
    let targets = ioprio_targets(thread, which, who)?;
    if targets.is_empty() {
        return Err(Errno::ESRCH);
    }
    for p in targets {
        access::check_set_ioprio(&thread.process, &p)?;
        p.ioprio.store(ioprio, Ordering::Relaxed);
    }
    Ok(0)
}

/// ioprio_get: the priority of the process, or for a group or user the
/// best among them (Linux's ioprio_best: a priority without a class counts
/// as BE at the normal level; the lowest value wins); ESRCH when none.
pub fn ioprio_get(thread: &Thread, which: u32, who: i32) -> Result<isize> {
    let targets = ioprio_targets(thread, which, who)?;
    let best = |a: i32, b: i32| {
        let norm = |v: i32| if v >> IOPRIO_CLASS_SHIFT == IOPRIO_CLASS_NONE { ioprio_value(IOPRIO_CLASS_BE, IOPRIO_NORM) } else { v };
        norm(a).min(norm(b))
    };
    let mut values = targets.iter().map(|p| task_ioprio(p));
    let first = values.next().ok_or(Errno::ESRCH)?;
    if which == IOPRIO_WHO_PROCESS {
        return Ok(first as isize);
    }
    Ok(values.fold(first, best) as isize)
}
