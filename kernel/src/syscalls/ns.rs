//! Namespaces: unshare(2), setns(2), and the namespace flags of clone.

use alloc::sync::Arc;

use linux_raw_sys::general as abi;

use crate::error::{Errno, Result};
use crate::ns::{self, nsfs, NsSet};
use crate::process::access::capable;
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
    // A thread shares its process's namespaces (Linux refuses new user and
    // PID namespaces for one; namespaces here belong to the process).
    if thread_clone {
        return Err(Errno::EINVAL);
    }
    if has(abi::CLONE_NEWUSER) {
        // No user namespaces (as Linux without CONFIG_USER_NS).
        return Err(Errno::EINVAL);
    }
    if !capable(&thread.process, abi::CAP_SYS_ADMIN) {
        return Err(Errno::EPERM);
    }
    if has(abi::CLONE_NEWIPC) && has(abi::CLONE_SYSVSEM) {
        return Err(Errno::EINVAL);
    }
    crate::ipc::ns::reap();
    let set = ns::of_thread(thread);
    ns::copy(&set, wanted, thread.process.cgroup.cgroup()).map(Some)
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
    if flags & abi::CLONE_NEWUSER != 0 {
        return Err(Errno::EINVAL);
    }
    let wanted = flags & ns::ALL_FLAGS;
    if wanted != 0 && !capable(process, abi::CAP_SYS_ADMIN) {
        return Err(Errno::EPERM);
    }
    let new_set = if wanted != 0 {
        let set = ns::of_thread(thread);
        Some(ns::copy(&set, wanted, process.cgroup.cgroup())?)
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
    Ok(0)
}

/// Checks the privilege to enter namespace `ns` (Linux's *_install):
/// CAP_SYS_ADMIN, and CAP_SYS_CHROOT too for a mount namespace, which a
/// process sharing its file-system context cannot enter (EINVAL).
fn check_enter(process: &Process, ns: &nsfs::NsRef) -> Result<()> {
    // Linux's mntns_install: EINVAL while fs->users != 1.
    let tid = crate::process::current().map_or(process.pid, |t| t.tid());
    if matches!(ns, nsfs::NsRef::Mnt(_)) && process.fs.users(tid, process.thread_count()) > 1 {
        return Err(Errno::EINVAL);
    }
    if !capable(process, abi::CAP_SYS_ADMIN) || matches!(ns, nsfs::NsRef::Mnt(_)) && !capable(process, abi::CAP_SYS_CHROOT) {
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
        check_enter(process, &ns)?;
        let set = ns::of_thread(thread);
        let mnt = matches!(ns, nsfs::NsRef::Mnt(_));
        ns::switch_thread(thread, ns::with(&set, &ns), mnt);
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
    let mut mnt = false;
    for (flag, name) in [(abi::CLONE_NEWUSER, "user"), (abi::CLONE_NEWNS, "mnt"), (abi::CLONE_NEWUTS, "uts"), (abi::CLONE_NEWIPC, "ipc"), (abi::CLONE_NEWPID, "pid"), (abi::CLONE_NEWCGROUP, "cgroup"), (abi::CLONE_NEWNET, "net"), (abi::CLONE_NEWTIME, "time")] {
        if flags & flag == 0 {
            continue;
        }
        let ns = nsfs::entry(&theirs, name.as_bytes()).ok_or(Errno::EINVAL)?;
        if flag == abi::CLONE_NEWUSER {
            // Entering the user namespace one is in is refused (Linux's
            // userns_install); there is only the initial one.
            return Err(Errno::EINVAL);
        }
        check_enter(process, &ns)?;
        mnt |= flag == abi::CLONE_NEWNS;
        set = ns::with(&set, &ns);
    }
    ns::switch_thread(thread, set, mnt);
    Ok(0)
}

/// The nsfs ioctls on a namespace's fd (None for other files):
/// NS_GET_NSTYPE (its CLONE_NEW* flag), NS_GET_USERNS (an fd of the user
/// namespace that owns it: the initial one; EPERM for that one itself),
/// NS_GET_PARENT (EPERM for the
/// initial PID and user namespaces, which have no parent the caller may
/// see; EINVAL for the kinds without parents), NS_GET_OWNER_UID (a user
/// namespace's creator: root for the initial one; EINVAL for others).
pub fn ns_ioctl(thread: &Thread, file: &crate::fs::file::OpenFile, request: u32, arg: usize) -> Option<Result<isize>> {
    use linux_raw_sys::ioctl::{NS_GET_NSTYPE, NS_GET_OWNER_UID, NS_GET_PARENT, NS_GET_USERNS};
    let ns = file.ops.inode().and_then(|node| nsfs::of_node(&node))?;
    Some(match request {
        NS_GET_NSTYPE => Ok(ns.kind().flag() as isize),
        // The initial user namespace has no owner (Linux's ns_get_owner).
        NS_GET_USERNS if ns.kind() == ns::Kind::User => Err(Errno::EPERM),
        NS_GET_USERNS => {
            let user = nsfs::entry(&ns::of_thread(thread), b"user").expect("user namespace");
            let node = nsfs::node(user.clone());
            let text = user.link_text().into_bytes();
            let file = crate::fs::file::OpenFile::new(crate::fs::file::InodeFile::new(node), abi::O_RDONLY, text);
            let table = thread.process.files.lock().clone();
            let fd = table.lock().insert(file, true);
            fd.map(|fd| fd as isize)
        }
        NS_GET_PARENT => match &ns {
            // A PID namespace's parent, if the caller's namespace is it
            // or above it (Linux's pidns_get_parent).
            nsfs::NsRef::Pid(pid_ns) => match pid_ns.parent.clone().filter(|p| crate::ns::pid::of(&thread.process).is_ancestor_of(p)) {
                Some(parent) => {
                    let parent = nsfs::NsRef::Pid(parent);
                    let text = parent.link_text().into_bytes();
                    let file = crate::fs::file::OpenFile::new(crate::fs::file::InodeFile::new(nsfs::node(parent)), abi::O_RDONLY, text);
                    let table = thread.process.files.lock().clone();
                    let fd = table.lock().insert(file, true);
                    fd.map(|fd| fd as isize)
                }
                None => Err(Errno::EPERM),
            },
            _ if ns.kind() == ns::Kind::User => Err(Errno::EPERM),
            _ => Err(Errno::EINVAL),
        },
        NS_GET_OWNER_UID => match ns.kind() {
            ns::Kind::User => crate::uaccess::copy_to_user(arg, &0u32.to_le_bytes()).map(|_| 0),
            _ => Err(Errno::EINVAL),
        },
        _ => return None,
    })
}
