//! Process system calls: fork/vfork/clone, execve, wait4/waitid, ids,
//! process groups and sessions, arch_prctl, prctl.

use alloc::sync::Arc;
use core::sync::atomic::Ordering;

use kevlar_platform::x86::trap::TrapFrame;
use crate::uaccess::copy_to_user;
use linux_raw_sys::general as abi;
use linux_raw_sys::ptrace as ptrace_abi;

use super::{read_path, read_string_array};
use crate::error::{Errno, Result};
use crate::process::signal::JobReport;
use crate::ns::pid as ns_pid;
use crate::process::{self, find_process, CloneOptions, ExitStatus, Pid, Process, Thread};

pub fn fork(thread: &Arc<Thread>, frame: &TrapFrame, flags: u64, stack: usize, parent_tid: usize, child_tid: usize, tls: u64) -> Result<isize> {
    // clone(2) stores a CLONE_PIDFD fd where CLONE_PARENT_SETTID would
    // store the id, so the two cannot go together.
    if flags & abi::CLONE_PIDFD as u64 != 0 && flags & abi::CLONE_PARENT_SETTID as u64 != 0 {
        return Err(Errno::EINVAL);
    }
    clone_with(thread, frame, flags, stack, parent_tid, child_tid, tls, parent_tid, None)
}

/// CLONE_INTO_CGROUP's descriptor: a cgroup2 directory (EBADF for
/// anything else), which the caller may move a process into.
fn cgroup_of_fd(thread: &Thread, fd: i32) -> Result<Arc<crate::cgroup::Cgroup>> {
    let file = thread.process.files.lock().lock().get(fd)?;
    let dst = file.ops.inode().and_then(|node| crate::cgroup::fs::cgroup_of_dir(&node)).ok_or(Errno::EBADF)?;
    let src = thread.process.cgroup.cgroup();
    let cred = super::fs::fs_cred(thread);
    crate::cgroup::check_clone_into(&src, &dst, &cred)?;
    Ok(dst)
}

/// clone and clone3: a child process, or a thread with CLONE_THREAD.
#[allow(clippy::too_many_arguments)]
fn clone_with(thread: &Arc<Thread>, frame: &TrapFrame, flags: u64, stack: usize, parent_tid: usize, child_tid: usize, tls: u64, pidfd: usize, into: Option<Arc<crate::cgroup::Cgroup>>) -> Result<isize> {
    // CLONE_DETACHED is ignored by Linux; CLONE_SYSVSEM shares SysV
    // semaphore undo lists, of which there are none.
    let supported = abi::CLONE_VM | abi::CLONE_VFORK | abi::CLONE_SETTLS | abi::CLONE_CHILD_CLEARTID | abi::CLONE_CHILD_SETTID
        | abi::CLONE_PARENT_SETTID | abi::CLONE_FILES | abi::CLONE_THREAD | abi::CLONE_SIGHAND | abi::CLONE_FS
        | abi::CLONE_SYSVSEM | abi::CLONE_DETACHED | abi::CLONE_PARENT | abi::CLONE_PIDFD | 0xff | crate::ns::ALL_FLAGS;
    if flags > u32::MAX as u64 || flags as u32 & !supported != 0 {
        // CLONE_IO, CLONE_PTRACE come later.
        return Err(Errno::EINVAL);
    }
    let flags = flags as u32;
    let has = |bit: u32| flags & bit != 0;
    // Linux's rules: a thread shares the signal handlers, which need the
    // address space.
    if has(abi::CLONE_THREAD) && !has(abi::CLONE_SIGHAND) || has(abi::CLONE_SIGHAND) && !has(abi::CLONE_VM) {
        return Err(Errno::EINVAL);
    }
    // Handlers, cwd and umask belong to the process here: a separate
    // process cannot share them (yet), nor can a thread wait like vfork.
    if !has(abi::CLONE_THREAD) && (has(abi::CLONE_SIGHAND) || has(abi::CLONE_FS)) || has(abi::CLONE_THREAD) && has(abi::CLONE_VFORK) {
        return Err(Errno::EINVAL);
    }
    // A thread shares the fd table: without CLONE_FILES it would need its
    // own. (Without CLONE_FS it gets a copy of the creator's root, cwd
    // and umask, as Linux's.)
    if has(abi::CLONE_THREAD) && !has(abi::CLONE_FILES) {
        return Err(Errno::EINVAL);
    }
    // Neither init (the first one or a namespace's) may make siblings.
    if has(abi::CLONE_PARENT) && (thread.process.pid == 1 || ns_pid::is_ns_init(&thread.process)) {
        return Err(Errno::EINVAL);
    }
    // A thread stays in its process's PID namespace (Linux's copy_process).
    if has(abi::CLONE_THREAD) {
        let set = crate::ns::of_thread(thread);
        if has(abi::CLONE_NEWPID) || !alloc::sync::Arc::ptr_eq(&set.pid, &set.pid_for_children) {
            return Err(Errno::EINVAL);
        }
    }
    if has(abi::CLONE_PIDFD) && (has(abi::CLONE_THREAD) || has(abi::CLONE_DETACHED)) {
        return Err(Errno::EINVAL);
    }
    // A thread stays in its process's cgroup: CLONE_INTO_CGROUP may only
    // name that one (Linux: a thread moves only within its domain).
    if has(abi::CLONE_THREAD) && into.as_ref().is_some_and(|cg| !alloc::sync::Arc::ptr_eq(cg, &thread.process.cgroup.cgroup())) {
        return Err(Errno::EOPNOTSUPP);
    }
    let namespaces = super::ns::clone_namespaces(thread, flags, has(abi::CLONE_THREAD))?;
    // The pidfd's slot must be writable before the child exists (Linux
    // fails the whole clone with EFAULT otherwise).
    if has(abi::CLONE_PIDFD) {
        crate::uaccess::copy_to_user(pidfd, &(-1i32).to_le_bytes())?;
    }
    let options = CloneOptions {
        share_vm: has(abi::CLONE_VM),
        vfork: has(abi::CLONE_VFORK),
        share_files: has(abi::CLONE_FILES),
        share_fs: has(abi::CLONE_FS),
        sibling: has(abi::CLONE_PARENT),
        stack,
        tls: has(abi::CLONE_SETTLS).then_some(tls),
        parent_tid: if has(abi::CLONE_PARENT_SETTID) { parent_tid } else { 0 },
        set_child_tid: if has(abi::CLONE_CHILD_SETTID) { child_tid } else { 0 },
        clear_child_tid: if has(abi::CLONE_CHILD_CLEARTID) { child_tid } else { 0 },
        cgroup: into,
        ns: namespaces,
    };
    // Out of memory, the killer frees some and the creation is tried
    // again, as Linux's allocator does.
    // A tracer following this kind of child gets it traced from its start
    // and an event (Linux's rules: vfork, a child that signals its end
    // with something else than SIGCHLD, or a fork).
    let event = if has(abi::CLONE_VFORK) {
        ptrace_abi::PTRACE_EVENT_VFORK
    } else if flags & 0xff != abi::SIGCHLD {
        ptrace_abi::PTRACE_EVENT_CLONE
    } else {
        ptrace_abi::PTRACE_EVENT_FORK
    };
    process::ptrace::before_clone(thread, event);
    if has(abi::CLONE_THREAD) {
        let tid = crate::mm::oom::retry_on_oom(thread, || process::spawn_thread(thread, frame, &options))?;
        process::ptrace::note_event(thread, event, tid as u64);
        return Ok(ns_pid::local(tid) as isize);
    }
    let pid = crate::mm::oom::retry_on_oom(thread, || process::fork(thread, frame, options.clone()));
    process::ptrace::before_clone(thread, 0);
    let pid = pid?;
    process::ptrace::note_event(thread, event, pid as u64);
    if has(abi::CLONE_VFORK) {
        process::ptrace::note_event(thread, ptrace_abi::PTRACE_EVENT_VFORK_DONE, pid as u64);
    }
    if has(abi::CLONE_PIDFD) {
        if let Some(child) = process::find_process(pid) {
            let fd = install_pidfd(thread, child, abi::O_CLOEXEC)?;
            crate::uaccess::copy_to_user(pidfd, &(fd as i32).to_le_bytes())?;
        }
    }
    Ok(ns_pid::local(pid) as isize)
}

/// Puts a pidfd for `target` in the caller's fd table (always close-on-
/// exec, as Linux's); `flags` may add O_NONBLOCK.
fn install_pidfd(thread: &Thread, target: Arc<Process>, flags: u32) -> Result<i32> {
    let status = abi::O_RDWR | (flags & abi::O_NONBLOCK);
    let file = crate::fs::file::OpenFile::new(crate::fs::pidfd::PidFd::new(target), status, b"anon_inode:[pidfd]".to_vec());
    let table = thread.process.files.lock().clone();
    let fd = table.lock().insert(file, true)?;
    Ok(fd)
}

/// pidfd_open: a pidfd for process `pid` (a thread-group leader, live or
/// a zombie); PIDFD_NONBLOCK (O_NONBLOCK) is the only flag.
pub fn pidfd_open(thread: &Thread, pid: i32, flags: u32) -> Result<isize> {
    if flags & !abi::O_NONBLOCK != 0 || pid <= 0 {
        return Err(Errno::EINVAL);
    }
    let pid = ns_pid::global(pid);
    let target = match process::find_process(pid) {
        Some(target) => target,
        // A thread that is not its process's leader: Linux says EINVAL.
        None if process::find_thread(pid).is_some() => return Err(Errno::EINVAL),
        None => return Err(Errno::ESRCH),
    };
    Ok(install_pidfd(thread, target, flags)? as isize)
}

/// The process a pidfd names (EBADF for other files).
pub fn pidfd_process(thread: &Thread, fd: i32) -> Result<Arc<Process>> {
    let file = thread.process.files.lock().lock().get(fd)?;
    file.ops.as_pidfd().map(|p| p.process().clone()).ok_or(Errno::EBADF)
}

/// clone3: the arguments come in a `struct clone_args` of `size` bytes
/// (at least the first version's 64); a larger one must be zero past what
/// is known.
pub fn clone3(thread: &Arc<Thread>, frame: &TrapFrame, args: usize, size: usize) -> Result<isize> {
    const VER0: usize = abi::CLONE_ARGS_SIZE_VER0 as usize;
    const KNOWN: usize = abi::CLONE_ARGS_SIZE_VER2 as usize;
    if size < VER0 || size > 4096 {
        return Err(Errno::EINVAL);
    }
    let mut raw = alloc::vec![0u8; size];
    crate::uaccess::copy_from_user(&mut raw, args)?;
    if raw.len() > KNOWN && raw[KNOWN..].iter().any(|&b| b != 0) {
        return Err(Errno::E2BIG);
    }
    raw.resize(KNOWN.max(raw.len()), 0);
    let word = |i: usize| u64::from_le_bytes(raw[i * 8..i * 8 + 8].try_into().unwrap());
    let (flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls) =
        (word(0), word(1), word(2), word(3), word(4), word(5), word(6), word(7));
    let (set_tid, set_tid_size, cgroup) = (word(8), word(9), word(10));
    if set_tid != 0 || set_tid_size != 0 {
        return Err(Errno::EINVAL);
    }
    let into_cgroup = flags & abi::CLONE_INTO_CGROUP as u64 != 0;
    if into_cgroup && (cgroup > i32::MAX as u64 || size < KNOWN) {
        return Err(Errno::EINVAL);
    }
    // The exit signal has its own field: the flags' low byte must be 0.
    if flags & 0xff != 0 || exit_signal > 64 || flags & abi::CLONE_THREAD as u64 != 0 && exit_signal != 0 {
        return Err(Errno::EINVAL);
    }
    if (stack == 0) != (stack_size == 0) {
        return Err(Errno::EINVAL);
    }
    let sp = if stack != 0 { stack.checked_add(stack_size).ok_or(Errno::EINVAL)? as usize } else { 0 };
    let into = if into_cgroup { Some(cgroup_of_fd(thread, cgroup as i32)?) } else { None };
    clone_with(thread, frame, (flags | exit_signal) & !(abi::CLONE_INTO_CGROUP as u64), sp, parent_tid as usize, child_tid as usize, tls, pidfd as usize, into)
}

pub fn execve(thread: &Arc<Thread>, frame: &mut TrapFrame, dirfd: i32, path: usize, argv: usize, envp: usize, flags: u32) -> Result<isize> {
    if flags & !(abi::AT_EMPTY_PATH | abi::AT_SYMLINK_NOFOLLOW) != 0 {
        return Err(Errno::EINVAL);
    }
    let path = read_path(path)?;
    // RLIMIT_NPROC after a set*uid, checked first as Linux does.
    process::nproc::check_exec(&thread.process)?;
    let argv = read_string_array(argv)?;
    let envp = read_string_array(envp)?;
    let old_tid = thread.tid();
    crate::exec::execve(thread, frame, dirfd, &path, argv, envp)?;
    process::ptrace::on_exec(thread, old_tid);
    Ok(0)
}

fn matches_wait_target(child: &Process, caller: &Process, pid: Pid) -> bool {
    match pid {
        -1 => true,
        0 => child.pgid.load(Ordering::Relaxed) == caller.pgid.load(Ordering::Relaxed),
        p if p < 0 => child.pgid.load(Ordering::Relaxed) == -p,
        p => child.pid == p,
    }
}

pub fn wait4(thread: &Arc<Thread>, pid: Pid, status: usize, options: u32, rusage: usize) -> Result<isize> {
    if options & !(abi::WNOHANG | abi::WUNTRACED | abi::WCONTINUED | abi::__WALL | abi::__WCLONE | abi::__WNOTHREAD) != 0 {
        return Err(Errno::EINVAL);
    }
    let pid = ns_pid::global_signed(pid);
    let me = thread.process.clone();
    let mut traced = None;
    let found = me.child_event.wait_until(|| {
        // Tracees first: their ptrace stops are reported whatever the
        // options.
        let (any_tracee, report) = process::ptrace::wait_tracees(&me, pid, false, true, true);
        if let Some(report) = report {
            traced = Some(report);
            return Ok(Some(None));
        }
        let children = me.children();
        let targets: alloc::vec::Vec<_> = children.iter().filter(|c| matches_wait_target(c, &me, pid)).collect();
        if targets.is_empty() && !any_tracee {
            return Err(Errno::ECHILD);
        }
        let wanted = Wanted { exited: true, stopped: options & abi::WUNTRACED != 0, continued: options & abi::WCONTINUED != 0 };
        if let Some(found) = find_change(&targets, wanted, false) {
            return Ok(Some(Some(found)));
        }
        if options & abi::WNOHANG != 0 {
            return Ok(Some(None));
        }
        Ok(None)
    })?;
    if let Some((tid, _, report)) = traced {
        let word = match report {
            process::ptrace::Report::Stopped(code) => (code as i32) << 8 | 0x7f,
            process::ptrace::Report::Exited(exit) => exit.wait_status(),
        };
        if status != 0 {
            copy_to_user(status, &word.to_le_bytes())?;
        }
        if rusage != 0 {
            copy_to_user(rusage, &super::time::encode_rusage(0))?;
        }
        return Ok(ns_pid::local(tid) as isize);
    }
    let Some((child, change)) = found else { return Ok(0) };
    // Its number in the caller's namespace, taken before reaping frees it.
    let shown = ns_pid::local(child.pid);
    let child_cpu = child.cpu_ns() + child.children_cpu_ns.load(core::sync::atomic::Ordering::Relaxed);
    let word = match change {
        Change::Exited(exit) => {
            me.forget_child(child.pid);
            exit.wait_status()
        }
        Change::Job(report) => report.wait_status(),
    };
    if status != 0 {
        copy_to_user(status, &word.to_le_bytes())?;
    }
    if rusage != 0 {
        copy_to_user(rusage, &super::time::encode_rusage(child_cpu))?;
    }
    Ok(shown as isize)
}

/// A state change wait reports: the end of a child, or a stop or continue.
enum Change {
    Exited(ExitStatus),
    Job(JobReport),
}

/// The kinds of change a wait asks for.
#[derive(Clone, Copy)]
struct Wanted {
    exited: bool,
    stopped: bool,
    continued: bool,
}

/// The first change among `targets` that `wanted` asks for, looking at the
/// children in creation order and, for each, at its exit, then a stop,
/// then a continue, as Linux does. A stop or continue is consumed unless
/// `keep` (WNOWAIT).
fn find_change(targets: &[&Arc<Process>], wanted: Wanted, keep: bool) -> Option<(Arc<Process>, Change)> {
    for child in targets {
        if let Some(exit) = child.exit_status() {
            if wanted.exited {
                return Some(((*child).clone(), Change::Exited(exit)));
            }
            continue;
        }
        if let Some(report) = child.signals.lock().take_report(wanted.stopped, wanted.continued, keep) {
            return Some(((*child).clone(), Change::Job(report)));
        }
    }
    None
}

pub fn waitid(thread: &Arc<Thread>, idtype: u32, id: i32, infop: usize, options: u32) -> Result<isize> {
    if options & !(abi::WNOHANG | abi::WEXITED | abi::WSTOPPED | abi::WCONTINUED | abi::WNOWAIT | abi::__WALL) != 0 || options & (abi::WEXITED | abi::WSTOPPED | abi::WCONTINUED) == 0 {
        return Err(Errno::EINVAL);
    }
    let pid = match idtype {
        abi::P_ALL => -1,
        abi::P_PID => if id > 0 { ns_pid::global(id) } else { id },
        abi::P_PGID => if id == 0 { 0 } else if id > 0 { -ns_pid::global(id) } else { -id },
        // The process a pidfd names; waiting for it needs it to be a child.
        abi::P_PIDFD => {
            if id < 0 {
                return Err(Errno::EINVAL);
            }
            pidfd_process(thread, id)?.pid
        }
        _ => return Err(Errno::EINVAL),
    };
    let me = thread.process.clone();
    let mut traced = None;
    let found = me.child_event.wait_until(|| {
        let (any_tracee, report) = process::ptrace::wait_tracees(&me, pid, options & abi::WNOWAIT != 0, options & abi::WSTOPPED != 0, options & abi::WEXITED != 0);
        if let Some(report) = report {
            traced = Some(report);
            return Ok(Some(None));
        }
        let children = me.children();
        let targets: alloc::vec::Vec<_> = children.iter().filter(|c| matches_wait_target(c, &me, pid)).collect();
        if targets.is_empty() && !any_tracee {
            return Err(Errno::ECHILD);
        }
        let wanted = Wanted {
            exited: options & abi::WEXITED != 0,
            stopped: options & abi::WSTOPPED != 0,
            continued: options & abi::WCONTINUED != 0,
        };
        if let Some(found) = find_change(&targets, wanted, options & abi::WNOWAIT != 0) {
            return Ok(Some(Some(found)));
        }
        if options & abi::WNOHANG != 0 {
            return Ok(Some(None));
        }
        Ok(None)
    })?;
    let mut info = [0u8; 128];
    if let Some((tid, uid, report)) = traced {
        let (code, value) = match report {
            process::ptrace::Report::Stopped(code) => (abi::CLD_TRAPPED as i32, code as i32),
            process::ptrace::Report::Exited(ExitStatus::Exited(c)) => (abi::CLD_EXITED as i32, c as i32),
            process::ptrace::Report::Exited(ExitStatus::Signaled(s, true)) => (abi::CLD_DUMPED as i32, s as i32),
            process::ptrace::Report::Exited(ExitStatus::Signaled(s, false)) => (abi::CLD_KILLED as i32, s as i32),
        };
        info[0..4].copy_from_slice(&(abi::SIGCHLD as i32).to_le_bytes());
        info[8..12].copy_from_slice(&code.to_le_bytes());
        info[16..20].copy_from_slice(&ns_pid::local(tid).to_le_bytes());
        info[20..24].copy_from_slice(&uid.to_le_bytes());
        info[24..28].copy_from_slice(&value.to_le_bytes());
    } else if let Some((child, change)) = found {
        let shown = ns_pid::local(child.pid);
        let (code, value) = match change {
            Change::Exited(status) => {
                if options & abi::WNOWAIT == 0 {
                    me.forget_child(child.pid);
                }
                match status {
                    ExitStatus::Exited(c) => (abi::CLD_EXITED as i32, c as i32),
                    ExitStatus::Signaled(s, true) => (abi::CLD_DUMPED as i32, s as i32),
                    ExitStatus::Signaled(s, false) => (abi::CLD_KILLED as i32, s as i32),
                }
            }
            Change::Job(report) => report.code_and_status(),
        };
        // The child's uid as the waiter's user namespace sees it.
        let uid = crate::ns::user::uid_seen_by(&me, child.creds.lock().uid);
        info[0..4].copy_from_slice(&(abi::SIGCHLD as i32).to_le_bytes());
        info[8..12].copy_from_slice(&code.to_le_bytes());
        info[16..20].copy_from_slice(&shown.to_le_bytes());
        info[20..24].copy_from_slice(&uid.to_le_bytes());
        info[24..28].copy_from_slice(&value.to_le_bytes());
    }
    if infop != 0 {
        copy_to_user(infop, &info)?;
    }
    Ok(0)
}

/// Runs a credential change and, as Linux's commit_creds does, makes the
/// process not dumpable when its effective or file-system ids changed.
/// The set*id calls move the file-system ids with the effective ones.
fn changing_ids(thread: &Thread, users: bool, change: impl FnOnce() -> Result<isize>) -> Result<isize> {
    let (before, uids) = {
        let c = thread.process.creds.lock();
        ((c.euid, c.egid, c.fsuid, c.fsgid), (c.uid, c.euid, c.suid))
    };
    let result = change();
    let (after, real_moved) = {
        let mut c = thread.process.creds.lock();
        if (c.uid, c.euid, c.suid) != uids {
            c.after_uid_change(uids);
        }
        if result.is_ok() && users {
            c.fsuid = c.euid;
        } else if result.is_ok() {
            c.fsgid = c.egid;
        }
        ((c.euid, c.egid, c.fsuid, c.fsgid), c.uid != uids.0)
    };
    if real_moved {
        process::nproc::real_uid_changed(&thread.process);
    }
    if before != after {
        thread.process.dumpable.store(false, Ordering::Relaxed);
    }
    result
}

/// One of the caller's ids as its user namespace shows it (`user`: a
/// user id, else a group id).
pub fn shown_id(thread: &Thread, id: impl Fn(&crate::process::Credentials) -> u32, user: bool) -> u32 {
    let c = thread.process.creds.lock();
    if user { c.user_ns.uid_shown(id(&c)) } else { c.user_ns.gid_shown(id(&c)) }
}

/// An id the caller names, as the kernel id its user namespace maps it
/// to (EINVAL for one it does not map); -1 ("unchanged") stays.
fn kernel_id(thread: &Thread, id: u32, user: bool) -> Result<u32> {
    if id == u32::MAX {
        return Ok(id);
    }
    let ns = thread.process.creds.lock().user_ns.clone();
    if user { ns.uid_down(id) } else { ns.gid_down(id) }.ok_or(Errno::EINVAL)
}

pub fn setuid(thread: &Thread, uid: u32) -> Result<isize> {
    let uid = if uid == u32::MAX { return Err(Errno::EINVAL) } else { kernel_id(thread, uid, true)? };
    changing_ids(thread, true, || set_uid(thread, uid))
}

pub fn setgid(thread: &Thread, gid: u32) -> Result<isize> {
    let gid = if gid == u32::MAX { return Err(Errno::EINVAL) } else { kernel_id(thread, gid, false)? };
    changing_ids(thread, false, || set_gid(thread, gid))
}

pub fn setresuid(thread: &Thread, r: u32, e: u32, s: u32) -> Result<isize> {
    let (r, e, s) = (kernel_id(thread, r, true)?, kernel_id(thread, e, true)?, kernel_id(thread, s, true)?);
    changing_ids(thread, true, || set_resuid(thread, r, e, s))
}

pub fn setresgid(thread: &Thread, r: u32, e: u32, s: u32) -> Result<isize> {
    let (r, e, s) = (kernel_id(thread, r, false)?, kernel_id(thread, e, false)?, kernel_id(thread, s, false)?);
    changing_ids(thread, false, || set_resgid(thread, r, e, s))
}

fn set_uid(thread: &Thread, uid: u32) -> Result<isize> {
    let mut c = thread.process.creds.lock();
    if c.has_cap(abi::CAP_SETUID) {
        c.uid = uid;
        c.euid = uid;
        c.suid = uid;
    } else if uid == c.uid || uid == c.suid {
        c.euid = uid;
    } else {
        return Err(Errno::EPERM);
    }
    Ok(0)
}

fn set_gid(thread: &Thread, gid: u32) -> Result<isize> {
    let mut c = thread.process.creds.lock();
    if c.has_cap(abi::CAP_SETGID) {
        c.gid = gid;
        c.egid = gid;
        c.sgid = gid;
    } else if gid == c.gid || gid == c.sgid {
        c.egid = gid;
    } else {
        return Err(Errno::EPERM);
    }
    Ok(0)
}

/// Sets a (real, effective, saved) id triple; u32::MAX leaves one as it
/// is. Unprivileged callers may only pick among the ids they already have.
fn set_id_triple(ids: [&mut u32; 3], new: [u32; 3], privileged: bool) -> Result<isize> {
    let current = [*ids[0], *ids[1], *ids[2]];
    if !new.iter().all(|&v| v == u32::MAX || privileged || current.contains(&v)) {
        return Err(Errno::EPERM);
    }
    for (id, value) in ids.into_iter().zip(new) {
        if value != u32::MAX {
            *id = value;
        }
    }
    Ok(0)
}

fn set_resuid(thread: &Thread, r: u32, e: u32, s: u32) -> Result<isize> {
    let mut c = thread.process.creds.lock();
    let privileged = c.has_cap(abi::CAP_SETUID);
    let c = &mut *c;
    set_id_triple([&mut c.uid, &mut c.euid, &mut c.suid], [r, e, s], privileged)
}

fn set_resgid(thread: &Thread, r: u32, e: u32, s: u32) -> Result<isize> {
    let mut c = thread.process.creds.lock();
    let privileged = c.has_cap(abi::CAP_SETGID);
    let c = &mut *c;
    set_id_triple([&mut c.gid, &mut c.egid, &mut c.sgid], [r, e, s], privileged)
}

/// setfsuid(2) and setfsgid(2): set the file-system id to one of the
/// real, effective, saved or current file-system ids (any with
/// CAP_SETUID/CAP_SETGID) and return the previous one, whether or not it
/// changed (-1 only asks). A file-system uid leaving or reaching 0 drops or
/// raises the file-system capabilities.
pub fn setfsid(thread: &Thread, id: u32, user: bool) -> Result<isize> {
    // An id the namespace does not map changes nothing (Linux's
    // setfsuid); the old id is returned as the namespace shows it.
    let id = kernel_id(thread, id, user).unwrap_or(u32::MAX);
    let mut c = thread.process.creds.lock();
    let ns = c.user_ns.clone();
    let shown = |kid: u32| if user { ns.uid_shown(kid) } else { ns.gid_shown(kid) };
    let (ids, old, cap) = if user {
        ([c.uid, c.euid, c.suid, c.fsuid], c.fsuid, abi::CAP_SETUID)
    } else {
        ([c.gid, c.egid, c.sgid, c.fsgid], c.fsgid, abi::CAP_SETGID)
    };
    if id == u32::MAX || id == old || !(ids.contains(&id) || c.has_cap(cap)) {
        return Ok(shown(old) as isize);
    }
    if user {
        c.fsuid = id;
        c.after_fsuid_change(old);
    } else {
        c.fsgid = id;
    }
    drop(c);
    thread.process.dumpable.store(false, Ordering::Relaxed);
    Ok(shown(old) as isize)
}

pub fn getresuid(thread: &Thread, r: usize, e: usize, s: usize, users: bool) -> Result<isize> {
    let c = thread.process.creds.lock().clone();
    let values = if users { [c.uid, c.euid, c.suid].map(|id| c.user_ns.uid_shown(id)) } else { [c.gid, c.egid, c.sgid].map(|id| c.user_ns.gid_shown(id)) };
    for (addr, v) in [r, e, s].into_iter().zip(values) {
        copy_to_user(addr, &v.to_le_bytes())?;
    }
    Ok(0)
}

pub fn getgroups(thread: &Thread, size: i32, list: usize) -> Result<isize> {
    let groups: alloc::vec::Vec<u32> = {
        let c = thread.process.creds.lock();
        c.groups.iter().map(|&g| c.user_ns.gid_shown(g)).collect()
    };
    if size < 0 {
        return Err(Errno::EINVAL);
    }
    if size == 0 {
        return Ok(groups.len() as isize);
    }
    if (size as usize) < groups.len() {
        return Err(Errno::EINVAL);
    }
    for (i, g) in groups.iter().enumerate() {
        copy_to_user(list + i * 4, &g.to_le_bytes())?;
    }
    Ok(groups.len() as isize)
}

pub fn setgroups(thread: &Thread, size: usize, list: usize) -> Result<isize> {
    // CAP_SETGID in the caller's user namespace, where setgroups is
    // allowed (Linux's may_setgroups).
    let ns = {
        let c = thread.process.creds.lock();
        if !c.has_cap(abi::CAP_SETGID) || !c.user_ns.may_setgroups() {
            return Err(Errno::EPERM);
        }
        c.user_ns.clone()
    };
    if size > 65536 {
        return Err(Errno::EINVAL);
    }
    let mut groups = alloc::vec::Vec::with_capacity(size);
    for i in 0..size {
        let gid = u32::from_le_bytes(super::read_bytes::<4>(list + i * 4)?);
        groups.push(ns.gid_down(gid).ok_or(Errno::EINVAL)?);
    }
    // Kept in the order of the kernel ids (Linux's groups_sort): what
    // getgroups and SO_PEERGROUPS give back.
    groups.sort_unstable();
    thread.process.creds.lock().groups = groups;
    Ok(0)
}

pub fn getpgid(pid: Pid, thread: &Thread) -> Result<isize> {
    let target = if pid == 0 { thread.process.clone() } else { find_process(ns_pid::global(pid)).ok_or(Errno::ESRCH)? };
    Ok(ns_pid::local(target.pgid.load(Ordering::Relaxed)) as isize)
}

pub fn setpgid(thread: &Thread, pid: Pid, pgid: Pid) -> Result<isize> {
    let pid = if pid > 0 { ns_pid::global(pid) } else { pid };
    let pgid = if pgid > 0 { ns_pid::global(pgid) } else { pgid };
    process::set_process_group(&thread.process, pid, pgid)?;
    Ok(0)
}

pub fn getsid(thread: &Thread, pid: Pid) -> Result<isize> {
    let target = if pid == 0 { thread.process.clone() } else { find_process(ns_pid::global(pid)).ok_or(Errno::ESRCH)? };
    Ok(ns_pid::local(target.sid.load(Ordering::Relaxed)) as isize)
}

pub fn setsid(thread: &Thread) -> Result<isize> {
    let me = &thread.process;
    let pid = me.pid;
    let leader = process::all_processes().iter().any(|p| p.pgid.load(Ordering::Relaxed) == pid);
    if leader {
        return Err(Errno::EPERM);
    }
    me.sid.store(pid, Ordering::Relaxed);
    me.pgid.store(pid, Ordering::Relaxed);
    crate::tty::on_setsid(me);
    Ok(ns_pid::local(pid) as isize)
}

pub fn arch_prctl(thread: &Thread, code: u32, addr: u64) -> Result<isize> {
    // arch/x86/include/uapi/asm/prctl.h (linux-raw-sys has no x86 prctl
    // module).
    const ARCH_SET_GS: u32 = 0x1001;
    const ARCH_SET_FS: u32 = 0x1002;
    const ARCH_GET_FS: u32 = 0x1003;
    const ARCH_GET_GS: u32 = 0x1004;
    const ARCH_GET_CPUID: u32 = 0x1011;
    const ARCH_SET_CPUID: u32 = 0x1012;
    let (set, fs) = match code {
        // CPUID always runs (no CPUID faulting is offered, so setting it
        // is ENODEV as on Linux on such a CPU).
        ARCH_GET_CPUID => return Ok(1),
        ARCH_SET_CPUID => return Err(Errno::ENODEV),
        ARCH_SET_FS => (true, true),
        ARCH_GET_FS => (false, true),
        ARCH_SET_GS => (true, false),
        ARCH_GET_GS => (false, false),
        _ => return Err(Errno::EINVAL),
    };
    if set {
        // A base in the kernel half would fault on the way back to user.
        if addr >= 0x0000_8000_0000_0000 {
            return Err(Errno::EPERM);
        }
        if fs {
            thread.task.set_fs_base(addr, true);
        } else {
            thread.task.set_gs_base(addr, true);
        }
    } else {
        let base = if fs { thread.task.fs_base() } else { thread.task.gs_base() };
        copy_to_user(addr as usize, &base.to_le_bytes())?;
    }
    Ok(0)
}

pub fn prctl(thread: &Thread, option: u32, arg: usize) -> Result<isize> {
    match option {
        linux_raw_sys::prctl::PR_SET_NAME => {
            let name = super::read_user_cstr(arg, 4096)?;
            let name = &name[..name.len().min(15)];
            *thread.process.comm.lock() = alloc::string::String::from_utf8_lossy(name).into_owned();
            Ok(0)
        }
        linux_raw_sys::prctl::PR_GET_NAME => {
            let mut buf = [0u8; 16];
            let comm = thread.process.comm.lock().clone();
            let n = comm.len().min(15);
            buf[..n].copy_from_slice(&comm.as_bytes()[..n]);
            copy_to_user(arg, &buf)?;
            Ok(0)
        }
        linux_raw_sys::prctl::PR_SET_DUMPABLE if arg <= 1 => {
            thread.process.dumpable.store(arg == 1, Ordering::Relaxed);
            Ok(0)
        }
        linux_raw_sys::prctl::PR_GET_DUMPABLE => Ok(isize::from(thread.process.dumpable.load(Ordering::Relaxed))),
        linux_raw_sys::prctl::PR_SET_KEEPCAPS if arg <= 1 => {
            thread.process.creds.lock().keep_caps = arg == 1;
            Ok(0)
        }
        linux_raw_sys::prctl::PR_GET_KEEPCAPS => Ok(isize::from(thread.process.creds.lock().keep_caps)),
        // The bounding set is every capability and cannot be narrowed here.
        linux_raw_sys::prctl::PR_CAPBSET_READ if arg <= abi::CAP_LAST_CAP as usize => Ok(1),
        linux_raw_sys::prctl::PR_GET_PDEATHSIG => {
            let sig = thread.process.death_signal.load(Ordering::Relaxed) as i32;
            copy_to_user(arg, &sig.to_le_bytes())?;
            Ok(0)
        }
        linux_raw_sys::prctl::PR_SET_PDEATHSIG if arg <= 64 => {
            thread.process.death_signal.store(arg as u32, Ordering::Relaxed);
            Ok(0)
        }
        _ => Err(Errno::EINVAL),
    }
}
