//! Linux's access checks in one place: may one process act on another
//! (signals, limits, priorities, scheduling, ptrace-style access to its
//! memory and /proc files), and does a caller hold the capability a
//! privileged operation needs.
//!
//! Every rule is Linux 6.1's (kernel/signal.c `kill_ok_by_cred`,
//! kernel/sys.c `check_prlimit_permission` and `set_one_prio_perm`,
//! kernel/sched/core.c `check_same_owner`, kernel/ptrace.c
//! `__ptrace_may_access`), with the
//! credentials read once under their lock. Where Linux asks for a
//! capability over another process (ns_capable on the target's user
//! namespace) the caller's sets count in its own namespace and every
//! capability in a namespace below it that its effective uid owns
//! (`ns::user::ns_capable`): the creator of a user namespace may signal,
//! trace and renice what runs inside it whatever ids those processes took.

use core::sync::atomic::Ordering;

use linux_raw_sys::general as abi;

use super::{Credentials, Process};
use crate::error::{Errno, Result};

/// Whether `process` holds capability `cap` in the initial user
/// namespace (Linux's capable): in its effective set, and in no other
/// user namespace (the owner rule of `ns::user::ns_capable` never
/// reaches the initial one).
pub fn capable(process: &Process, cap: u32) -> bool {
    let c = process.creds.lock();
    c.user_ns.is_init() && c.has_cap(cap)
}

/// Fails with EPERM unless `process` holds `cap`: the answer of most
/// privileged operations (mount, sethostname, settimeofday, reboot...).
pub fn require(process: &Process, cap: u32) -> Result<()> {
    if capable(process, cap) { Ok(()) } else { Err(Errno::EPERM) }
}

/// The two credentials of a pair of processes, each read under its lock
/// (never both locks at once).
fn creds_of(caller: &Process, target: &Process) -> (Credentials, Credentials) {
    let mine = caller.creds.lock().clone();
    let theirs = target.creds.lock().clone();
    (mine, theirs)
}

/// Whether `mine` holds `cap` in the user namespace of the process whose
/// credentials are `theirs` (Linux's ns_capable(tcred->user_ns, cap)).
fn capable_over_creds(mine: &Credentials, theirs: &Credentials, cap: u32) -> bool {
    crate::ns::user::ns_capable(mine, &theirs.user_ns, cap)
}

/// Linux's check_kill_permission: a process may always signal itself;
/// otherwise the sender's real or effective uid must be the target's real
/// or saved uid, or the sender holds CAP_KILL in the target's user
/// namespace, or the signal is SIGCONT within the sender's session.
pub fn may_signal(sender: &Process, target: &Process, sig: u32) -> bool {
    if core::ptr::eq(sender, target) {
        return true;
    }
    let (mine, theirs) = creds_of(sender, target);
    let ids_match = [mine.uid, mine.euid].iter().any(|&id| id == theirs.uid || id == theirs.suid);
    if ids_match || capable_over_creds(&mine, &theirs, abi::CAP_KILL) {
        return true;
    }
    sig == abi::SIGCONT && sender.sid.load(Ordering::Relaxed) == target.sid.load(Ordering::Relaxed)
}

/// Linux's check_prlimit_permission (reading or changing another
/// process's limits): the caller's real uid and gid must equal all three
/// of the target's, or the caller holds CAP_SYS_RESOURCE in the target's
/// user namespace.
pub fn check_prlimit(caller: &Process, target: &Process) -> Result<()> {
    if core::ptr::eq(caller, target) {
        return Ok(());
    }
    let (mine, theirs) = creds_of(caller, target);
    let ids_match = [theirs.uid, theirs.euid, theirs.suid].iter().all(|&u| u == mine.uid)
        && [theirs.gid, theirs.egid, theirs.sgid].iter().all(|&g| g == mine.gid);
    if ids_match || capable_over_creds(&mine, &theirs, abi::CAP_SYS_RESOURCE) { Ok(()) } else { Err(Errno::EPERM) }
}

/// Linux's set_one_prio_perm (setpriority on another process): the
/// caller's effective uid is the target's real or effective uid, or the
/// caller holds CAP_SYS_NICE in the target's user namespace. EPERM
/// otherwise.
pub fn check_set_priority(caller: &Process, target: &Process) -> Result<()> {
    let (mine, theirs) = creds_of(caller, target);
    if mine.euid == theirs.uid || mine.euid == theirs.euid || capable_over_creds(&mine, &theirs, abi::CAP_SYS_NICE) {
        Ok(())
    } else {
        Err(Errno::EPERM)
    }
}

/// Linux's can_nice: whether `caller` may give `target` the nice value
/// `nice` when that is below the current one: within the target's
/// RLIMIT_NICE (whose unit is 20 - nice) or with CAP_SYS_NICE.
pub fn can_nice(caller: &Process, target: &Process, nice: i32) -> bool {
    let wanted = (20 - nice) as u64;
    let limit = target.limits.lock()[abi::RLIMIT_NICE as usize][0];
    wanted <= limit || capable(caller, abi::CAP_SYS_NICE)
}

/// Linux's check_same_owner: the caller's effective uid is the target's
/// effective or real uid.
pub fn same_owner(caller: &Process, target: &Process) -> bool {
    let (mine, theirs) = creds_of(caller, target);
    owns(&mine, &theirs)
}

fn owns(mine: &Credentials, theirs: &Credentials) -> bool {
    mine.euid == theirs.euid || mine.euid == theirs.uid
}

/// Linux's set_task_ioprio check: the caller's effective or real uid is
/// the target's real uid, or CAP_SYS_NICE in the initial user namespace
/// (Linux's capable, not ns_capable: root of a user namespace may not
/// change another user's I/O priority, even inside it). EPERM otherwise.
pub fn check_set_ioprio(caller: &Process, target: &Process) -> Result<()> {
    let (mine, theirs) = creds_of(caller, target);
    if theirs.uid == mine.euid || theirs.uid == mine.uid || (mine.user_ns.is_init() && mine.has_cap(abi::CAP_SYS_NICE)) {
        Ok(())
    } else {
        Err(Errno::EPERM)
    }
}

/// The check of sched_setaffinity: the same owner (check_same_owner), or
/// CAP_SYS_NICE in the target's user namespace. EPERM otherwise.
pub fn check_scheduling(caller: &Process, target: &Process) -> Result<()> {
    let (mine, theirs) = creds_of(caller, target);
    if owns(&mine, &theirs) || capable_over_creds(&mine, &theirs, abi::CAP_SYS_NICE) { Ok(()) } else { Err(Errno::EPERM) }
}

/// How much access a ptrace-style check asks for.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum PtraceMode {
    /// Reading state (/proc/PID/maps, environ, the fd links...).
    Read,
    /// Reading or changing memory as a debugger would (process_vm_*,
    /// /proc/PID/mem, syscall).
    Attach,
}

/// Whose ids a ptrace-style check compares: the file-system ids (the
/// /proc files) or the real ids (process_vm_*).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum PtraceCreds {
    /// PTRACE_MODE_FSCREDS.
    Fs,
    /// PTRACE_MODE_REALCREDS.
    Real,
}

/// Linux's ptrace_may_access: a process may always access itself (and its
/// threads). Otherwise the caller's uid and gid (file-system or real ones,
/// as `creds` says) must equal all three of the target's, or the caller
/// holds CAP_SYS_PTRACE in the target's user namespace; then a target
/// that is not dumpable needs that capability in the user namespace of
/// its last exec (Linux's mm->user_ns). With Yama's ptrace_scope at 0, as Debian's kernel
/// boots, attaching needs nothing more (scope 1 would add: only
/// descendants).
pub fn ptrace_may_access(caller: &Process, target: &Process, mode: PtraceMode, creds: PtraceCreds) -> bool {
    if core::ptr::eq(caller, target) {
        return true;
    }
    let (mine, theirs) = creds_of(caller, target);
    let (uid, gid) = match creds {
        PtraceCreds::Fs => (mine.fsuid, mine.fsgid),
        PtraceCreds::Real => (mine.uid, mine.gid),
    };
    let ptrace_cap = capable_over_creds(&mine, &theirs, abi::CAP_SYS_PTRACE);
    let ids_match = [theirs.uid, theirs.euid, theirs.suid].iter().all(|&u| u == uid)
        && [theirs.gid, theirs.egid, theirs.sgid].iter().all(|&g| g == gid);
    if !ids_match && !ptrace_cap {
        return false;
    }
    if !target.dumpable.load(Ordering::Relaxed) {
        let exec_ns = target.exec_user_ns.lock().clone();
        if !crate::ns::user::ns_capable(&mine, &exec_ns, abi::CAP_SYS_PTRACE) {
            return false;
        }
    }
    // Attaching asks no more than reading: Debian's kernel leaves Yama's
    // ptrace_scope at 0 (classic ptrace permissions).
    let _ = mode;
    true
}

/// Capabilities a change of the file-system uid from or to 0 drops or
/// raises (Linux's CAP_FS_MASK).
pub const CAP_FS_MASK: u64 = (1 << abi::CAP_CHOWN)
    | (1 << abi::CAP_DAC_OVERRIDE)
    | (1 << abi::CAP_DAC_READ_SEARCH)
    | (1 << abi::CAP_FOWNER)
    | (1 << abi::CAP_FSETID)
    | (1 << abi::CAP_LINUX_IMMUTABLE)
    | (1 << abi::CAP_MKNOD)
    | (1 << abi::CAP_MAC_OVERRIDE);
