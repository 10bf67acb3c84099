//! sched_setattr(2) and sched_getattr(2): the scheduling policy and its
//! parameters through `struct sched_attr`, as Linux's kernel/sched/core.c.
//!
//! The struct's size is negotiated as Linux does: 0 means the first
//! version (48 bytes), a size below it or past a page is E2BIG (with the
//! kernel's size written back), bytes past the known struct must be zero
//! (E2BIG). The policies SCHED_OTHER and BATCH (with a nice value), IDLE,
//! FIFO and RR (with a priority) are kept as sched_setscheduler and
//! setpriority keep them. SCHED_DEADLINE's parameters and permissions are
//! checked as Linux's; admitting one then fails with EBUSY, Linux's answer
//! when no deadline bandwidth is left (Kevlar has no deadline scheduler).
//! Utilization clamps are EOPNOTSUPP, as Debian's kernel is built without
//! them.

use alloc::sync::Arc;
use core::sync::atomic::Ordering;

use linux_raw_sys::general::{
    SCHED_BATCH, SCHED_DEADLINE, SCHED_FIFO, SCHED_FLAG_ALL, SCHED_FLAG_KEEP_PARAMS, SCHED_FLAG_KEEP_POLICY, SCHED_FLAG_RESET_ON_FORK,
    SCHED_FLAG_UTIL_CLAMP, SCHED_IDLE, SCHED_NORMAL, SCHED_RR,
};

use crate::error::{Errno, Result};
use crate::process::{access, find_thread, Thread};
use crate::uaccess::{copy_from_user, copy_to_user};

/// The first version of the struct (no utilization clamps).
const SIZE_VER0: usize = 48;
/// The struct this kernel knows (Linux 6.1's: with the clamps).
const SIZE_VER1: usize = 56;
const PAGE_SIZE: usize = 4096;
/// Linux's SCHED_FLAG_SUGOV: kernel-internal, refused from user space.
const SCHED_FLAG_SUGOV: u64 = 0x1000_0000;
/// A deadline task's runtime is kept in units of 2^DL_SCALE ns.
const DL_SCALE: u32 = 10;
/// /proc/sys/kernel/sched_deadline_period_{min,max}_us defaults, in ns.
const DL_PERIOD_MIN_NS: u64 = 100 * 1000;
const DL_PERIOD_MAX_NS: u64 = (1 << 22) * 1000;

#[derive(Default)]
struct Attr {
    policy: u32,
    flags: u64,
    nice: i32,
    priority: u32,
    runtime: u64,
    deadline: u64,
    period: u64,
}

/// The thread `pid` names (0: the caller), as find_process_by_pid.
fn target(thread: &Thread, pid: i32) -> Result<Arc<Thread>> {
    if pid == 0 {
        let _ = thread;
        return crate::process::current().ok_or(Errno::ESRCH);
    }
    find_thread(crate::ns::pid::global(pid)).filter(|t| t.process.exit_status().is_none()).ok_or(Errno::ESRCH)
}

/// Reads the struct as sched_copy_attr: E2BIG (with the kernel's size
/// written to `size`) for a size it cannot take.
fn read_attr(addr: usize) -> Result<(Attr, usize)> {
    let mut size = u32::from_le_bytes(super::read_bytes::<4>(addr)?) as usize;
    if size == 0 {
        size = SIZE_VER0;
    }
    let too_big = || -> Result<(Attr, usize)> {
        copy_to_user(addr, &(SIZE_VER1 as u32).to_le_bytes())?;
        Err(Errno::E2BIG)
    };
    if !(SIZE_VER0..=PAGE_SIZE).contains(&size) {
        return too_big();
    }
    // Bytes past the known struct must be zero (Linux's check_zeroed_user,
    // before the known part is copied).
    let mut at = addr.checked_add(SIZE_VER1).ok_or(Errno::EFAULT)?;
    let end = addr + size;
    let mut chunk = [0u8; 64];
    while at < end {
        let n = (end - at).min(chunk.len());
        copy_from_user(&mut chunk[..n], at)?;
        if chunk[..n].iter().any(|&b| b != 0) {
            return too_big();
        }
        at += n;
    }
    let mut raw = [0u8; SIZE_VER1];
    copy_from_user(&mut raw[..size.min(SIZE_VER1)], addr)?;
    let u32_at = |o: usize| u32::from_le_bytes(raw[o..o + 4].try_into().unwrap());
    let u64_at = |o: usize| u64::from_le_bytes(raw[o..o + 8].try_into().unwrap());
    let attr = Attr {
        policy: u32_at(4),
        flags: u64_at(8),
        nice: (u32_at(16) as i32).clamp(-20, 19),
        priority: u32_at(20),
        runtime: u64_at(24),
        deadline: u64_at(32),
        period: u64_at(40),
    };
    if attr.flags & SCHED_FLAG_UTIL_CLAMP as u64 != 0 && size < SIZE_VER1 {
        return Err(Errno::EINVAL);
    }
    Ok((attr, size))
}

/// Linux's __checkparam_dl.
fn deadline_params_valid(a: &Attr) -> bool {
    if a.deadline == 0 || a.runtime < (1 << DL_SCALE) {
        return false;
    }
    if a.deadline & (1 << 63) != 0 || a.period & (1 << 63) != 0 {
        return false;
    }
    let period = if a.period == 0 { a.deadline } else { a.period };
    if period < a.deadline || a.deadline < a.runtime {
        return false;
    }
    (DL_PERIOD_MIN_NS..=DL_PERIOD_MAX_NS).contains(&period)
}

fn is_rt(policy: u32) -> bool {
    matches!(policy, SCHED_FIFO | SCHED_RR)
}

/// Linux's fair_policy: the policies a nice value belongs to (not
/// SCHED_IDLE, which keeps the nice value it had).
fn is_fair(policy: u32) -> bool {
    matches!(policy, SCHED_NORMAL | SCHED_BATCH)
}

pub fn sched_setattr(thread: &Thread, pid: i32, uattr: usize, flags: u32) -> Result<isize> {
    if uattr == 0 || pid < 0 || flags != 0 {
        return Err(Errno::EINVAL);
    }
    let (attr, _) = read_attr(uattr)?;
    if (attr.policy as i32) < 0 {
        return Err(Errno::EINVAL);
    }
    let keep_policy = attr.flags & SCHED_FLAG_KEEP_POLICY as u64 != 0;
    let target = target(thread, pid)?;
    let process = &target.process;
    let (old_policy, old_priority) = *process.sched_policy.lock();
    let (policy, reset_on_fork) = if keep_policy {
        (old_policy, process.sched_reset_on_fork.load(Ordering::Relaxed))
    } else {
        if !(is_fair(attr.policy) || attr.policy == SCHED_IDLE || is_rt(attr.policy) || attr.policy == SCHED_DEADLINE) {
            return Err(Errno::EINVAL);
        }
        (attr.policy, attr.flags & SCHED_FLAG_RESET_ON_FORK as u64 != 0)
    };
    if attr.flags & !(SCHED_FLAG_ALL as u64 | SCHED_FLAG_SUGOV) != 0 {
        return Err(Errno::EINVAL);
    }
    if attr.priority > 99 {
        return Err(Errno::EINVAL);
    }
    let deadline = policy == SCHED_DEADLINE;
    if (deadline && attr.flags & SCHED_FLAG_SUGOV == 0 && !deadline_params_valid(&attr)) || is_rt(policy) != (attr.priority != 0) {
        return Err(Errno::EINVAL);
    }
    let old_nice = *process.nice.lock();
    if !access::capable(&thread.process, linux_raw_sys::general::CAP_SYS_NICE) {
        if is_fair(policy) && attr.nice < old_nice && !access::can_nice(&thread.process, process, attr.nice) {
            return Err(Errno::EPERM);
        }
        if is_rt(policy) {
            let rtprio = process.limits.lock()[linux_raw_sys::general::RLIMIT_RTPRIO as usize][0];
            if policy != old_policy && rtprio == 0 {
                return Err(Errno::EPERM);
            }
            let was = if is_rt(old_policy) { old_priority as u64 } else { 0 };
            if attr.priority as u64 > was && attr.priority as u64 > rtprio {
                return Err(Errno::EPERM);
            }
        }
        if deadline {
            return Err(Errno::EPERM);
        }
        if old_policy == SCHED_IDLE && policy != SCHED_IDLE && !access::can_nice(&thread.process, process, old_nice) {
            return Err(Errno::EPERM);
        }
        if !access::same_owner(&thread.process, process) {
            return Err(Errno::EPERM);
        }
        if process.sched_reset_on_fork.load(Ordering::Relaxed) && !reset_on_fork {
            return Err(Errno::EPERM);
        }
    }
    if attr.flags & SCHED_FLAG_SUGOV != 0 {
        return Err(Errno::EINVAL);
    }
    if attr.flags & SCHED_FLAG_UTIL_CLAMP as u64 != 0 {
        return Err(Errno::EOPNOTSUPP);
    }
    if deadline {
        // A deadline task must be allowed on every CPU of its domain.
        let online = kevlar_platform::smp::cpu_count();
        let all = if online >= 64 { u64::MAX } else { (1u64 << online) - 1 };
        if target.affinity.load(Ordering::Relaxed) & all != all {
            return Err(Errno::EPERM);
        }
        return Err(Errno::EBUSY);
    }
    if attr.flags & SCHED_FLAG_KEEP_PARAMS as u64 == 0 {
        *process.sched_policy.lock() = (policy, if is_rt(policy) { attr.priority as i32 } else { 0 });
        if is_fair(policy) {
            *process.nice.lock() = attr.nice;
        }
    }
    process.sched_reset_on_fork.store(reset_on_fork, Ordering::Relaxed);
    Ok(0)
}

pub fn sched_getattr(thread: &Thread, pid: i32, uattr: usize, size: u32, flags: u32) -> Result<isize> {
    let size = size as usize;
    if uattr == 0 || pid < 0 || size > PAGE_SIZE || size < SIZE_VER0 || flags != 0 {
        return Err(Errno::EINVAL);
    }
    let target = target(thread, pid)?;
    let process = &target.process;
    let (policy, priority) = *process.sched_policy.lock();
    let mut raw = [0u8; SIZE_VER1];
    let len = size.min(SIZE_VER1);
    raw[..4].copy_from_slice(&(len as u32).to_le_bytes());
    raw[4..8].copy_from_slice(&policy.to_le_bytes());
    let flags = if process.sched_reset_on_fork.load(Ordering::Relaxed) { SCHED_FLAG_RESET_ON_FORK as u64 } else { 0 };
    raw[8..16].copy_from_slice(&flags.to_le_bytes());
    if is_rt(policy) {
        raw[20..24].copy_from_slice(&(priority as u32).to_le_bytes());
    } else {
        raw[16..20].copy_from_slice(&process.nice.lock().to_le_bytes());
    }
    // Without utilization clamps (as Debian's kernel) both read as 0.
    if !kevlar_platform::x86::user::is_user_range(uattr, size) {
        return Err(Errno::EFAULT);
    }
    copy_to_user(uattr, &raw[..len])?;
    Ok(0)
}
