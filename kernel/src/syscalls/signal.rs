//! Signal system calls: dispositions, masks, waiting for signals, the
//! alternate stack, and sending (kill, tkill, tgkill, rt_sigqueueinfo,
//! rt_tgsigqueueinfo).

use alloc::sync::Arc;
use alloc::vec::Vec;
use core::sync::atomic::Ordering;

use kevlar_platform::x86::trap::TrapFrame;
use crate::uaccess::copy_to_user;
use linux_raw_sys::general as abi;

use super::{read_bytes, read_u64, write_u64};
use crate::error::{Errno, Result};
use crate::process::signal::{self, AltStack, SigAction, SigInfo, NSIG, SIGKILL, SIGSTOP, UNBLOCKABLE};
use crate::ns::pid as ns_pid;
use crate::process::{all_processes, find_process, Pid, Process, Thread};

pub fn rt_sigaction(thread: &Thread, sig: u32, act: usize, oldact: usize, sigsetsize: usize) -> Result<isize> {
    if sigsetsize != 8 || sig == 0 || sig as usize > NSIG {
        return Err(Errno::EINVAL);
    }
    if act != 0 && (sig == SIGKILL || sig == SIGSTOP) {
        return Err(Errno::EINVAL);
    }
    let new = if act != 0 {
        let raw = read_bytes::<32>(act)?;
        let word = |i: usize| u64::from_le_bytes(raw[i * 8..i * 8 + 8].try_into().unwrap());
        Some(SigAction { handler: word(0), flags: word(1), restorer: word(2), mask: word(3) & !UNBLOCKABLE })
    } else {
        None
    };
    let old = {
        let mut signals = thread.process.signals.lock();
        let old = signals.actions[sig as usize - 1];
        if let Some(new) = new {
            signals.set_action(sig, new);
        }
        old
    };
    if oldact != 0 {
        let mut raw = [0u8; 32];
        for (i, v) in [old.handler, old.flags, old.restorer, old.mask].iter().enumerate() {
            raw[i * 8..i * 8 + 8].copy_from_slice(&v.to_le_bytes());
        }
        copy_to_user(oldact, &raw)?;
    }
    Ok(0)
}

pub fn rt_sigprocmask(thread: &Thread, how: u32, set: usize, oldset: usize, sigsetsize: usize) -> Result<isize> {
    if sigsetsize != 8 {
        return Err(Errno::EINVAL);
    }
    let new = if set != 0 { Some(read_u64(set)?) } else { None };
    let old = {
        let mut signals = thread.process.signals.lock();
        let old = signals.blocked(thread.tid());
        if let Some(new) = new {
            let mask = match how {
                abi::SIG_BLOCK => old | new,
                abi::SIG_UNBLOCK => old & !new,
                abi::SIG_SETMASK => new,
                _ => return Err(Errno::EINVAL),
            };
            signals.set_blocked(thread.tid(), mask);
        }
        old
    };
    if oldset != 0 {
        write_u64(oldset, old)?;
    }
    Ok(0)
}

pub fn rt_sigreturn(thread: &Arc<Thread>, frame: &mut TrapFrame) -> Result<isize> {
    if signal::sigreturn(thread, frame).is_err() {
        crate::process::exit_current(crate::process::ExitStatus::Signaled(signal::SIGSEGV as u8, false));
        return Ok(0);
    }
    Ok(frame.rax as isize)
}

pub fn rt_sigpending(thread: &Thread, set: usize, sigsetsize: usize) -> Result<isize> {
    if sigsetsize != 8 {
        return Err(Errno::EINVAL);
    }
    let signals = thread.process.signals.lock();
    let pending = signals.pending(thread.tid()) & signals.blocked(thread.tid());
    drop(signals);
    write_u64(set, pending)?;
    Ok(0)
}

/// Runs `f` with the signal mask at `sigmask` (if given; SIGKILL and
/// SIGSTOP are never blocked, and a sigset size other than the kernel's is
/// EINVAL) for ppoll, pselect6 and epoll_pwait. When `f` is
/// interrupted, the temporary mask stays for the handler and the old one
/// comes back after it (as Linux's restore_saved_sigmask_unless).
pub(super) fn with_sigmask(thread: &Arc<Thread>, sigmask: usize, sigsetsize: usize, f: impl FnOnce() -> Result<isize>) -> Result<isize> {
    if sigmask == 0 {
        return f();
    }
    if sigsetsize != 8 {
        return Err(Errno::EINVAL);
    }
    let mask = read_u64(sigmask)?;
    let saved = thread.process.signals.lock().swap_blocked(thread.tid(), mask);
    let result = f();
    if result == Err(Errno::EINTR) {
        thread.set_saved_sigmask(Some(saved));
    } else {
        thread.process.signals.lock().set_blocked(thread.tid(), saved);
    }
    result
}

pub fn rt_sigsuspend(thread: &Arc<Thread>, mask: usize, sigsetsize: usize) -> Result<isize> {
    if sigsetsize != 8 {
        return Err(Errno::EINVAL);
    }
    let mask = read_u64(mask)? & !UNBLOCKABLE;
    let saved = thread.process.signals.lock().swap_blocked(thread.tid(), mask);
    // The handler runs with the temporary mask; the old one comes back
    // after it returns (restored through the signal frame's saved mask).
    thread.set_saved_sigmask(Some(saved));
    let queue = crate::process::wait_queue::WaitQueue::new();
    let _ = queue.wait_until::<()>(|| Ok(None));
    Err(Errno::EINTR)
}

pub fn pause(_thread: &Arc<Thread>) -> Result<isize> {
    let queue = crate::process::wait_queue::WaitQueue::new();
    let _ = queue.wait_until::<()>(|| Ok(None));
    Err(Errno::EINTR)
}

pub fn rt_sigtimedwait(thread: &Arc<Thread>, set: usize, info: usize, timeout: usize, sigsetsize: usize) -> Result<isize> {
    if sigsetsize != 8 {
        return Err(Errno::EINVAL);
    }
    let wanted = read_u64(set)? & !UNBLOCKABLE;
    let deadline = if timeout != 0 {
        let ts = super::time::read_timespec(timeout)?;
        Some(kevlar_platform::time::monotonic_ns() + ts)
    } else {
        None
    };
    let queue = crate::process::wait_queue::WaitQueue::new();
    if let Some(deadline) = deadline {
        crate::timer::arm(deadline, thread.clone());
    }
    let taken = queue.wait_until(|| {
        if let Some(info) = thread.process.signals.lock().dequeue(thread.tid(), wanted) {
            return Ok(Some(info));
        }
        if deadline.is_some_and(|d| kevlar_platform::time::monotonic_ns() >= d) {
            return Err(Errno::EAGAIN);
        }
        Ok(None)
    });
    crate::timer::disarm(thread);
    let taken = taken?;
    if info != 0 {
        copy_to_user(info, &taken.to_user())?;
    }
    Ok(taken.signo as isize)
}

/// sigaltstack. `sp` is the caller's stack pointer: on the alternate stack
/// the old settings read SS_ONSTACK and a change fails with EPERM.
pub fn sigaltstack(thread: &Thread, ss: usize, old: usize, sp: u64) -> Result<isize> {
    let new = if ss != 0 {
        let raw = read_bytes::<24>(ss)?;
        Some(AltStack {
            sp: u64::from_le_bytes(raw[0..8].try_into().unwrap()),
            flags: u32::from_le_bytes(raw[8..12].try_into().unwrap()),
            size: u64::from_le_bytes(raw[16..24].try_into().unwrap()),
        })
    } else {
        None
    };
    let current = thread.process.signals.lock().thread(thread.tid()).alt_stack;
    if let Some(new) = new {
        signal::set_alt_stack(thread, new, sp)?;
    }
    if old != 0 {
        let mut raw = [0u8; 24];
        raw[0..8].copy_from_slice(&current.sp.to_le_bytes());
        raw[8..12].copy_from_slice(&current.reported_flags(sp).to_le_bytes());
        raw[16..24].copy_from_slice(&current.size.to_le_bytes());
        copy_to_user(old, &raw)?;
    }
    Ok(0)
}

/// Checks the signal number and permission, then sends: signal 0 only
/// checks. A missing target was reported (ESRCH) before this, as on Linux.
fn send_to(sender: &Process, target: &Arc<Process>, info: SigInfo) -> Result<()> {
    if info.signo as usize > NSIG {
        return Err(Errno::EINVAL);
    }
    if !crate::process::access::may_signal(sender, target, info.signo) {
        return Err(Errno::EPERM);
    }
    if init_ignores(sender, target, info.signo) {
        return Ok(());
    }
    signal::send_signal_info(target, ours(sender, target, info))
}

/// A siginfo the kernel made for `sender` (kill, tkill: si_code SI_USER
/// or SI_TKILL with the sender's global pid) carries the sender's pid as
/// its own namespace numbers it, or 0 when the target's namespace cannot
/// see the sender (Linux's prepare_kill_siginfo and send_signal_locked).
/// Any siginfo with a sender crossing into another user namespace has
/// its si_uid, an id of the sender's namespace, renumbered for the
/// target's (the overflow id if it cannot name it), as Linux's
/// send_signal_locked does: a made-up one from rt_sigqueueinfo too.
fn ours(sender: &Process, target: &Process, info: SigInfo) -> SigInfo {
    let (pid, uid) = sender_ids(sender);
    let made_here = info == SigInfo::from_process(info.signo, info.code, pid, uid);
    if core::ptr::eq(sender, target) {
        // To itself (raise): it sees itself and its own ids, with no
        // namespace to cross (the common case, kept to one lookup).
        return if made_here { info.with_sender_pid(ns_pid::local_in(&ns_pid::of(sender), sender.pid)) } else { info };
    }
    let info = if made_here {
        let visible = ns_pid::local_in(&ns_pid::of(target), sender.pid) != 0;
        info.with_sender_pid(if visible { ns_pid::local_in(&ns_pid::of(sender), sender.pid) } else { 0 })
    } else {
        info
    };
    let from = sender.creds.lock().user_ns.clone();
    let to = target.creds.lock().user_ns.clone();
    if info.carries_sender() && !alloc::sync::Arc::ptr_eq(&from, &to) {
        info.with_sender_uid(from.uid_into(&to, info.sender_uid()))
    } else {
        info
    }
}

/// Whether a PID namespace's init drops signal `sig` from `sender`
/// (Linux's SIGNAL_UNKILLABLE): one it has no handler for, unless SIGKILL
/// or SIGSTOP from an ancestor namespace. The initial namespace's init
/// (PID 1) has no ancestor: it never gets them from anyone.
fn init_ignores(sender: &Process, target: &Process, sig: u32) -> bool {
    if sig == 0 || !(target.pid == 1 || ns_pid::is_ns_init(target)) {
        return false;
    }
    // A handler (not SIG_DFL, 0) takes it; a blocked signal stays
    // pending (the disposition may change).
    {
        let signals = target.signals.lock();
        if signals.actions[sig as usize - 1].handler != 0 || signals.blocked(target.pid) & crate::process::signal::bit(sig) != 0 {
            return false;
        }
    }
    let from_outside = ns_pid::local_in(&ns_pid::of(target), sender.pid) == 0;
    !(from_outside && (sig == SIGKILL || sig == SIGSTOP))
}

/// Sends to every member of a process group: success if any send
/// succeeded, else the last error (ESRCH for an empty group), as Linux.
fn send_to_group(sender: &Process, pgid: Pid, info: SigInfo) -> Result<()> {
    let _no_fork = crate::process::group_signal_lock();
    let members: Vec<_> = all_processes()
        .into_iter()
        .filter(|p| p.pgid.load(Ordering::Relaxed) == pgid && p.exit_status().is_none())
        .collect();
    let mut result = Err(Errno::ESRCH);
    let mut any = false;
    for member in members {
        result = send_to(sender, &member, info);
        any |= result.is_ok();
    }
    if any { Ok(()) } else { result }
}

/// The process a positive pid names: a process id, or the id of one of
/// its threads (as Linux, kill with a thread id signals its process).
fn find_target(pid: Pid) -> Result<Arc<Process>> {
    let pid = ns_pid::global(pid);
    find_process(pid).or_else(|| crate::process::find_thread(pid).map(|t| t.process.clone())).ok_or(Errno::ESRCH)
}

/// What kill(2) and rt_sigqueueinfo do with their pid.
fn send_to_pid(sender: &Process, pid: Pid, info: SigInfo) -> Result<()> {
    match pid {
        // A zombie can still be signalled (nothing happens), as on Linux.
        p if p > 0 => send_to(sender, &find_target(p)?, info),
        0 => send_to_group(sender, sender.pgid.load(Ordering::Relaxed), info),
        // -INT_MIN does not exist: no such group.
        i32::MIN => Err(Errno::ESRCH),
        -1 => {
            // Everyone but init and ourselves. Refusals are not errors here:
            // the call fails only if nothing was there to try, or with an
            // error other than EPERM.
            let mut result = Ok(());
            let mut count = 0;
            let _no_fork = crate::process::group_signal_lock();
            // Those the sender's PID namespace numbers, but its init.
            let viewer = ns_pid::of(sender);
            for target in all_processes().into_iter().filter(|p| ns_pid::local_in(&viewer, p.pid) > 1 && p.pid != sender.pid && p.exit_status().is_none()) {
                count += 1;
                match send_to(sender, &target, info) {
                    Err(Errno::EPERM) => {}
                    other => result = other,
                }
            }
            if count == 0 { Err(Errno::ESRCH) } else { result }
        }
        p => send_to_group(sender, ns_pid::global(-p), info),
    }
}

/// The sender's pid and real uid (as its own user namespace numbers
/// it), for si_pid and si_uid.
fn sender_ids(process: &Process) -> (Pid, u32) {
    (process.pid, process.creds.lock().own_view_uid())
}

pub fn kill(thread: &Thread, pid: i32, sig: u32) -> Result<isize> {
    let me = &thread.process;
    let (my_pid, uid) = sender_ids(me);
    send_to_pid(me, pid, SigInfo::from_process(sig, signal::SI_USER, my_pid, uid))?;
    Ok(0)
}

/// tkill and tgkill (`tgid` None for tkill), and rt_tgsigqueueinfo with
/// the caller's siginfo: the thread `tid`, which must belong to `tgid`;
/// only that thread takes the signal.
fn send_to_thread(thread: &Thread, tgid: Option<Pid>, tid: Pid, info: SigInfo) -> Result<isize> {
    let (tid, tgid) = (ns_pid::global(tid), tgid.map(ns_pid::global));
    let target = crate::process::find_thread(tid).filter(|t| tgid.is_none_or(|tgid| t.process.pid == tgid)).ok_or(Errno::ESRCH)?;
    if info.signo as usize > NSIG {
        return Err(Errno::EINVAL);
    }
    if !crate::process::access::may_signal(&thread.process, &target.process, info.signo) {
        return Err(Errno::EPERM);
    }
    if init_ignores(&thread.process, &target.process, info.signo) {
        return Ok(0);
    }
    signal::send_signal_to_thread(&target, ours(&thread.process, &target.process, info))?;
    Ok(0)
}

pub fn tkill(thread: &Thread, tid: i32, sig: u32) -> Result<isize> {
    if tid <= 0 {
        return Err(Errno::EINVAL);
    }
    let (pid, uid) = sender_ids(&thread.process);
    send_to_thread(thread, None, tid, SigInfo::from_process(sig, signal::SI_TKILL, pid, uid))
}

pub fn tgkill(thread: &Thread, tgid: i32, tid: i32, sig: u32) -> Result<isize> {
    if tgid <= 0 || tid <= 0 {
        return Err(Errno::EINVAL);
    }
    let (pid, uid) = sender_ids(&thread.process);
    send_to_thread(thread, Some(tgid), tid, SigInfo::from_process(sig, signal::SI_TKILL, pid, uid))
}

/// Reads the siginfo of rt_sigqueueinfo/rt_tgsigqueueinfo. Nobody, not
/// even root, may make another process believe a signal came from kill(),
/// tkill() or the kernel: a siginfo with si_code >= 0 or SI_TKILL may only
/// be sent to oneself (EPERM), as on Linux.
fn read_queued_info(thread: &Thread, target: Pid, sig: u32, uinfo: usize) -> Result<SigInfo> {
    let info = SigInfo::from_user(&read_bytes::<48>(uinfo)?, sig);
    if (info.code >= 0 || info.code == signal::SI_TKILL) && ns_pid::global(target) != thread.process.pid {
        return Err(Errno::EPERM);
    }
    Ok(info)
}

pub fn rt_sigqueueinfo(thread: &Thread, pid: i32, sig: u32, uinfo: usize) -> Result<isize> {
    let info = read_queued_info(thread, pid, sig, uinfo)?;
    // POSIX.1b names a process, never a group.
    if pid <= 0 {
        return Err(Errno::ESRCH);
    }
    let target = find_target(pid)?;
    send_to(&thread.process, &target, info)?;
    Ok(0)
}

/// pidfd_send_signal: kill(2) through a pidfd, optionally with the
/// caller's siginfo (whose signal number must match; a made-up SI_USER or
/// SI_TKILL one only for the caller itself, as rt_sigqueueinfo).
pub fn pidfd_send_signal(thread: &Thread, pidfd: i32, sig: u32, uinfo: usize, flags: u32) -> Result<isize> {
    if flags != 0 {
        return Err(Errno::EINVAL);
    }
    let target = super::process::pidfd_process(thread, pidfd)?;
    if target.is_reaped() {
        return Err(Errno::ESRCH);
    }
    if sig as usize > NSIG {
        return Err(Errno::EINVAL);
    }
    let info = if uinfo != 0 {
        let raw = read_bytes::<48>(uinfo)?;
        if i32::from_le_bytes(raw[..4].try_into().unwrap()) as u32 != sig {
            return Err(Errno::EINVAL);
        }
        read_queued_info(thread, ns_pid::local(target.pid), sig, uinfo)?
    } else {
        let (my_pid, uid) = sender_ids(&thread.process);
        SigInfo::from_process(sig, signal::SI_USER, my_pid, uid)
    };
    send_to(&thread.process, &target, info)?;
    Ok(0)
}

pub fn rt_tgsigqueueinfo(thread: &Thread, tgid: i32, tid: i32, sig: u32, uinfo: usize) -> Result<isize> {
    if tgid <= 0 || tid <= 0 {
        return Err(Errno::EINVAL);
    }
    let info = read_queued_info(thread, tid, sig, uinfo)?;
    send_to_thread(thread, Some(tgid), tid, info)
}
