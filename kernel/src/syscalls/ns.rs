//! Namespaces: unshare(2), setns(2), and the namespace flags of clone.

use alloc::sync::Arc;

use linux_raw_sys::general as abi;

use crate::error::{Errno, Result};
use crate::ns::{self, nsfs, NsSet};
use crate::process::{Process, Thread};

/// The flags unshare takes (Linux's check_unshare_flags).
const UNSHARE_FLAGS: u32 = abi::CLONE_THREAD | abi::CLONE_FS | abi::CLONE_SIGHAND | abi::CLONE_VM | abi::CLONE_FILES | abi::CLONE_SYSVSEM | ns::ALL_FLAGS;

/// The namespaces clone's `flags` ask for, after Linux's checks of the
/// combinations (EINVAL) and of the privilege (EPERM: CAP_SYS_ADMIN);
/// None when it asks for none. `thread_clone`: CLONE_THREAD.
pub fn clone_namespaces(thread: &Thread, flags: u32, thread_clone: bool) -> Result<Option<Arc<NsSet>>> {
    // CLONE_NEWTIME shares its bit with the exit signal in clone(2); only
    // clone3 can ask for it, and it does not come through here.
    let wanted = flags & ns::ALL_FLAGS & !abi::CLONE_NEWTIME;
    if wanted == 0 {
        return Ok(None);
    }
    let has = |bit: u32| flags & bit != 0;
    if has(abi::CLONE_NEWNS) && has(abi::CLONE_FS) || has(abi::CLONE_NEWUSER) && has(abi::CLONE_FS) {
        return Err(Errno::EINVAL);
    }
    // A thread may not be in another user or PID namespace than its
    // process (Linux's copy_process); the others it may have of its own.
    if thread_clone && (has(abi::CLONE_NEWUSER) || has(abi::CLONE_NEWPID)) {
        return Err(Errno::EINVAL);
    }
    // A new user namespace first: the other new namespaces are its, and
    // the privilege to make them is checked in it (Linux's copy_creds
    // before copy_namespaces).
    let mut creds = thread.process.creds.lock().clone();
    if has(abi::CLONE_NEWUSER) {
        let user = ns::user::create(&creds, ns::user::chrooted(&thread.process))?;
        ns::user::enter(&mut creds, user);
    }
    if wanted & !abi::CLONE_NEWUSER != 0 && !creds.has_cap(abi::CAP_SYS_ADMIN) {
        return Err(Errno::EPERM);
    }
    if has(abi::CLONE_NEWIPC) && has(abi::CLONE_SYSVSEM) {
        return Err(Errno::EINVAL);
    }
    crate::ipc::ns::reap();
    let set = ns::of_thread(thread);
    ns::copy(&set, wanted, thread.process.cgroup.cgroup(), creds.user_ns).map(Some)
}

pub fn unshare(thread: &Thread, flags: u64) -> Result<isize> {
    crate::fs::mount::finish_orphans();
    crate::ipc::ns::reap();
    let mut flags = u32::try_from(flags).map_err(|_| Errno::EINVAL)?;
    // What a flag implies (Linux's ksys_unshare).
    if flags & abi::CLONE_NEWUSER != 0 {
        flags |= abi::CLONE_THREAD | abi::CLONE_FS;
    }
    if flags & abi::CLONE_VM != 0 {
        flags |= abi::CLONE_SIGHAND;
    }
    if flags & abi::CLONE_SIGHAND != 0 {
        flags |= abi::CLONE_THREAD;
    }
    if flags & abi::CLONE_NEWNS != 0 {
        flags |= abi::CLONE_FS;
    }
    if flags & !UNSHARE_FLAGS != 0 {
        return Err(Errno::EINVAL);
    }
    let process = &thread.process;
    let single = process.thread_count() <= 1;
    // The thread group, handlers and address space can only be "unshared"
    // by a process that has them to itself.
    if flags & (abi::CLONE_THREAD | abi::CLONE_SIGHAND | abi::CLONE_VM) != 0 && !single {
        return Err(Errno::EINVAL);
    }
    let wanted = flags & ns::ALL_FLAGS;
    // A new user namespace first (Linux's unshare_userns): the others are
    // checked and made in it.
    let mut creds = process.creds.lock().clone();
    let new_user = flags & abi::CLONE_NEWUSER != 0;
    if new_user {
        let user = ns::user::create(&creds, ns::user::chrooted(process))?;
        ns::user::enter(&mut creds, user);
    }
    if wanted & !abi::CLONE_NEWUSER != 0 && !creds.has_cap(abi::CAP_SYS_ADMIN) {
        return Err(Errno::EPERM);
    }
    let new_set = if wanted != 0 {
        let set = ns::of_thread(thread);
        Some(ns::copy(&set, wanted, process.cgroup.cgroup(), creds.user_ns.clone())?)
    } else {
        None
    };
    if flags & abi::CLONE_FILES != 0 {
        let mut files = process.files.lock();
        if Arc::strong_count(&files) > 1 {
            let copy = files.lock().clone();
            *files = Arc::new(kevlar_platform::sync::SpinLock::new(copy));
        }
    }
    // CLONE_SYSVSEM (which a new IPC namespace implies) is an exit as far
    // as semaphore undo lists go: they are applied now, in the old one.
    if flags & (abi::CLONE_SYSVSEM | abi::CLONE_NEWIPC) != 0 {
        crate::ipc::sem::exit(process.pid);
    }
    // A thread sharing its root, cwd and umask with others takes a copy
    // of its own (Linux's unshare_fs), before a new mount namespace is
    // entered in it.
    if flags & abi::CLONE_FS != 0 {
        process.fs.unshare(thread.tid(), process.thread_count());
    }
    if let Some(set) = new_set {
        ns::switch_thread(thread, set, false);
    }
    if new_user {
        *process.creds.lock() = creds;
    }
    Ok(0)
}

/// Checks the privilege to enter namespace `ns` (Linux's *_install) with
/// credentials `creds`: CAP_SYS_ADMIN in the user namespace owning it and
/// in the caller's own, and CAP_SYS_CHROOT too for a mount namespace,
/// which a process sharing its file-system context cannot enter
/// (EINVAL). A user namespace: not the caller's own, nor entered by a
/// process sharing its threads or file-system context (EINVAL), and
/// CAP_SYS_ADMIN in it.
fn check_enter(process: &Process, creds: &crate::process::Credentials, ns: &nsfs::NsRef) -> Result<()> {
    // Linux's mntns_install: EINVAL while fs->users != 1.
    let tid = crate::process::current().map_or(process.pid, |t| t.tid());
    if matches!(ns, nsfs::NsRef::Mnt(_) | nsfs::NsRef::User(_)) && process.fs.users(tid, process.thread_count()) > 1 {
        return Err(Errno::EINVAL);
    }
    if let nsfs::NsRef::User(user) = ns {
        if Arc::ptr_eq(user, &creds.user_ns) || process.thread_count() > 1 {
            return Err(Errno::EINVAL);
        }
        return if ns::user::ns_capable(creds, user, abi::CAP_SYS_ADMIN) { Ok(()) } else { Err(Errno::EPERM) };
    }
    let owner = ns::user::owner_of(ns.inum());
    if !ns::user::ns_capable(creds, &owner, abi::CAP_SYS_ADMIN) || !creds.has_cap(abi::CAP_SYS_ADMIN) || matches!(ns, nsfs::NsRef::Mnt(_)) && !creds.has_cap(abi::CAP_SYS_CHROOT) {
        return Err(Errno::EPERM);
    }
    // Only the caller's own PID namespace or one below it (Linux's
    // pidns_install): a process cannot make children its namespace
    // cannot see.
    if let nsfs::NsRef::Pid(target) = ns {
        if !crate::ns::pid::of(process).is_ancestor_of(target) {
            return Err(Errno::EINVAL);
        }
    }
    Ok(())
}

pub fn setns(thread: &Thread, fd: i32, nstype: i32) -> Result<isize> {
    crate::fs::mount::finish_orphans();
    crate::ipc::ns::reap();
    let file = thread.process.files.lock().lock().get(fd)?;
    let process = &thread.process;
    if let Some(ns) = file.ops.inode().and_then(|node| nsfs::of_node(&node)) {
        if nstype != 0 && nstype as u32 != ns.kind().flag() {
            return Err(Errno::EINVAL);
        }
        let creds = process.creds.lock().clone();
        check_enter(process, &creds, &ns)?;
        let set = ns::of_thread(thread);
        let mnt = matches!(ns, nsfs::NsRef::Mnt(_));
        ns::switch_thread(thread, ns::with(&set, &ns), mnt);
        if let nsfs::NsRef::User(user) = &ns {
            ns::user::enter(&mut process.creds.lock(), user.clone());
        }
        return Ok(0);
    }
    let Some(pidfd) = file.ops.as_pidfd() else { return Err(Errno::EINVAL) };
    // A pidfd: the namespaces of that process that `nstype` names, all
    // entered or none.
    let flags = nstype as u32;
    if flags == 0 || flags & !ns::ALL_FLAGS != 0 {
        return Err(Errno::EINVAL);
    }
    let target = pidfd.process().clone();
    if target.exit_status().is_some() {
        return Err(Errno::ESRCH);
    }
    let theirs = target.ns.lock().clone();
    let mut set = ns::of_thread(thread);
    let mut creds = process.creds.lock().clone();
    let mut mnt = false;
    for (flag, name) in [(abi::CLONE_NEWUSER, "user"), (abi::CLONE_NEWNS, "mnt"), (abi::CLONE_NEWUTS, "uts"), (abi::CLONE_NEWIPC, "ipc"), (abi::CLONE_NEWPID, "pid"), (abi::CLONE_NEWCGROUP, "cgroup"), (abi::CLONE_NEWNET, "net"), (abi::CLONE_NEWTIME, "time")] {
        if flags & flag == 0 {
            continue;
        }
        let ns = nsfs::entry(&theirs, name.as_bytes()).ok_or(Errno::EINVAL)?;
        if flag == abi::CLONE_NEWUSER && matches!(&ns, nsfs::NsRef::User(user) if Arc::ptr_eq(user, &creds.user_ns)) {
            // Already there: nothing to enter (Linux's validate_nsset
            // skips the user namespace one is in).
            continue;
        }
        // The user namespace first: the others are checked with the
        // credentials it gives.
        check_enter(process, &creds, &ns)?;
        if let nsfs::NsRef::User(user) = &ns {
            ns::user::enter(&mut creds, user.clone());
        }
        mnt |= flag == abi::CLONE_NEWNS;
        set = ns::with(&set, &ns);
    }
    ns::switch_thread(thread, set, mnt);
    *process.creds.lock() = creds;
    Ok(0)
}

/// Puts an fd of namespace `ns` in the caller's table (close-on-exec).
fn install_ns_fd(thread: &Thread, ns: nsfs::NsRef) -> Result<isize> {
    let text = ns.link_text().into_bytes();
    let file = crate::fs::file::OpenFile::new(crate::fs::file::InodeFile::new(nsfs::node(ns)), abi::O_RDONLY, text);
    let table = thread.process.files.lock().clone();
    let fd = table.lock().insert(file, true);
    fd.map(|fd| fd as isize)
}

/// Linux's ns_get_owner: user namespace `owner` if the caller's user
/// namespace is it or one of its ancestors (EPERM otherwise, and for the
/// initial one's missing owner).
fn owner_fd(thread: &Thread, owner: Option<Arc<ns::user::UserNs>>) -> Result<isize> {
    let mine = thread.process.creds.lock().user_ns.clone();
    match owner {
        Some(owner) if mine.is_ancestor_of(&owner) => install_ns_fd(thread, nsfs::NsRef::User(owner)),
        _ => Err(Errno::EPERM),
    }
}

/// The nsfs ioctls on a namespace's fd (None for other files):
/// NS_GET_NSTYPE (its CLONE_NEW* flag), NS_GET_USERNS (an fd of the user
/// namespace that owns it; a user namespace's parent), NS_GET_PARENT (a
/// PID or user namespace's parent the caller may see, else EPERM; EINVAL
/// for the kinds without parents), NS_GET_OWNER_UID (a user namespace's
/// creator, as the caller's user namespace shows it; EINVAL for others).
pub fn ns_ioctl(thread: &Thread, file: &crate::fs::file::OpenFile, request: u32, arg: usize) -> Option<Result<isize>> {
    use linux_raw_sys::ioctl::{NS_GET_NSTYPE, NS_GET_OWNER_UID, NS_GET_PARENT, NS_GET_USERNS};
    let ns = file.ops.inode().and_then(|node| nsfs::of_node(&node))?;
    Some(match request {
        NS_GET_NSTYPE => Ok(ns.kind().flag() as isize),
        NS_GET_USERNS => match &ns {
            nsfs::NsRef::User(user) => owner_fd(thread, user.parent.clone()),
            _ => owner_fd(thread, Some(ns::user::owner_of(ns.inum()))),
        },
        NS_GET_PARENT => match &ns {
            // A PID namespace's parent, if the caller's namespace is it
            // or above it (Linux's pidns_get_parent).
            nsfs::NsRef::Pid(pid_ns) => match pid_ns.parent.clone().filter(|p| crate::ns::pid::of(&thread.process).is_ancestor_of(p)) {
                Some(parent) => install_ns_fd(thread, nsfs::NsRef::Pid(parent)),
                None => Err(Errno::EPERM),
            },
            nsfs::NsRef::User(user) => owner_fd(thread, user.parent.clone()),
            _ => Err(Errno::EINVAL),
        },
        NS_GET_OWNER_UID => match &ns {
            nsfs::NsRef::User(user) => {
                let shown = thread.process.creds.lock().user_ns.uid_shown(user.owner);
                crate::uaccess::copy_to_user(arg, &shown.to_le_bytes()).map(|_| 0)
            }
            _ => Err(Errno::EINVAL),
        },
        _ => return None,
    })
}
