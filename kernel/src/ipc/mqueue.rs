//! POSIX message queues: named queues (one flat namespace, as the mqueue
//! file system's root), open through file descriptors; messages come out
//! highest priority first, in order within a priority. mq_notify
//! registers one process for a signal (or nothing) when a message arrives
//! on an empty queue that no receiver waits on.

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::sync::atomic::Ordering;

use kevlar_platform::sync::SpinLock;
use linux_raw_sys::general as abi;

use crate::error::{Errno, Result};
use crate::fs::file::{FileOps, OpenFile, PollEvents, POLLIN, POLLOUT, POLLRDNORM, POLLWRNORM};
use crate::process::signal::SigInfo;
use crate::process::wait_queue::WaitQueue;
use crate::process::Process;

/// /proc/sys/fs/mqueue: msg_default, msg_max, msgsize_default,
/// msgsize_max, queues_max (per IPC namespace).
pub use super::sysctl::{
    MQ_MSGSIZE_DEFAULT as MSGSIZE_DEFAULT, MQ_MSGSIZE_MAX as MSGSIZE_MAX, MQ_MSG_DEFAULT as MSG_DEFAULT, MQ_MSG_MAX as MSG_MAX,
    MQ_QUEUES_MAX as QUEUES_MAX,
};
/// HARD_MSGMAX and HARD_MSGSIZEMAX: the ceilings for CAP_SYS_RESOURCE
/// (and for the sysctls).
pub const HARD_MSGMAX: u32 = 65536;
pub const HARD_MSGSIZEMAX: u32 = 16 * 1024 * 1024;
/// MQ_PRIO_MAX.
pub const PRIO_MAX: u32 = 32768;
/// What Linux charges a queue's creator under RLIMIT_MSGQUEUE besides the
/// message bytes: a `struct msg_msg` per message and a tree node per
/// priority that may be in use.
const MSG_HEADER: u64 = 48;
const TREE_NODE: u64 = 48;

/// Queues in existence (named or only open), per IPC namespace (Linux's
/// mq_queues_count), by namespace inode number.
static QUEUES: SpinLock<BTreeMap<u64, usize>> = SpinLock::new(BTreeMap::new());
/// Bytes charged per real uid.
static CHARGED: SpinLock<BTreeMap<u32, u64>> = SpinLock::new(BTreeMap::new());

struct Notify {
    pid: i32,
    /// SIGEV_NONE, SIGEV_SIGNAL or SIGEV_THREAD.
    how: u32,
    signo: u32,
    value: u64,
    /// SIGEV_THREAD: the netlink socket the cookie goes to.
    thread: Option<ThreadNotify>,
}

/// Where mq_notify's SIGEV_THREAD sends: a netlink socket (glibc's helper
/// thread reads it) and the 32-byte cookie whose last byte says why.
pub struct ThreadNotify {
    pub sock: Arc<crate::net::netlink::NetlinkSocket>,
    pub cookie: [u8; NOTIFY_COOKIE_LEN],
}

/// NOTIFY_COOKIE_LEN, and the reasons in the cookie's last byte
/// (NOTIFY_WOKENUP, NOTIFY_REMOVED: include/uapi/linux/mqueue.h, which
/// linux-raw-sys does not carry).
pub const NOTIFY_COOKIE_LEN: usize = 32;
const NOTIFY_WOKENUP: u8 = 1;
const NOTIFY_REMOVED: u8 = 2;

impl ThreadNotify {
    fn send(mut self, why: u8) {
        self.cookie[NOTIFY_COOKIE_LEN - 1] = why;
        self.sock.send_attached(self.cookie.to_vec());
    }
}

struct State {
    /// Messages, each with its priority, highest priority first.
    messages: Vec<(u32, Vec<u8>)>,
    bytes: usize,
    notify: Option<Notify>,
    /// Receivers asleep (a notification is only sent when there are none).
    receivers: usize,
}

/// A message queue.
pub struct Queue {
    /// Inode number of its file in the mqueue file system.
    ino: u64,
    /// The IPC namespace it was made in (whose mqueue file system holds
    /// its node).
    ns: u64,
    /// Owner, group and permission bits (chown and chmod through the
    /// mqueue file system change them).
    owner: SpinLock<Owner>,
    maxmsg: usize,
    msgsize: usize,
    charged: (u32, u64),
    state: SpinLock<State>,
    waiters: WaitQueue,
}

impl Drop for Queue {
    fn drop(&mut self) {
        {
            let mut queues = QUEUES.lock();
            if let Some(n) = queues.get_mut(&self.ns) {
                *n = n.saturating_sub(1);
                if *n == 0 {
                    queues.remove(&self.ns);
                }
            }
        }
        let mut charged = CHARGED.lock();
        if let Some(c) = charged.get_mut(&self.charged.0) {
            *c = c.saturating_sub(self.charged.1);
        }
    }
}

/// A queue's owner, group, permission bits and change time.
#[derive(Clone, Copy)]
pub(super) struct Owner {
    pub uid: u32,
    pub gid: u32,
    pub mode: u32,
    pub atime: kevlar_vfs::Timespec,
    pub mtime: kevlar_vfs::Timespec,
    pub ctime: kevlar_vfs::Timespec,
}

/// Inode numbers of queue files.
static NEXT_INO: core::sync::atomic::AtomicU64 = core::sync::atomic::AtomicU64::new(2);

static NAMES: super::ns::PerNs<BTreeMap<Vec<u8>, Arc<Queue>>> = super::ns::PerNs::new(BTreeMap::new);

/// Takes away the queue names of IPC namespace `inum`, which is gone.
pub(super) fn forget_ns(inum: u64) {
    // Dropped here, after the lock.
    drop(NAMES.take(inum));
}

/// The file an mq_open descriptor refers to (or an open of the queue's
/// node through an mqueue mount, with `true`: that one keeps the mount
/// busy, as an mq_open descriptor, on Linux's internal mount, does not).
pub struct MqFile(Arc<Queue>, bool);

/// The attributes mq_open may be given and mq_getsetattr reports.
#[derive(Clone, Copy)]
pub struct Attr {
    pub flags: i64,
    pub maxmsg: i64,
    pub msgsize: i64,
    pub curmsgs: i64,
}

/// Checks a queue name as the mqueue root's lookup does.
fn check_name(name: &[u8]) -> Result<()> {
    if name.is_empty() {
        return Err(Errno::ENOENT);
    }
    if name == b"." || name == b".." || name.contains(&b'/') {
        return Err(Errno::EACCES);
    }
    if name.len() > 255 {
        return Err(Errno::ENAMETOOLONG);
    }
    Ok(())
}

fn may_access(process: &Process, q: &Queue, want: u32) -> Result<()> {
    let creds = process.creds.lock();
    if creds.has_cap(abi::CAP_DAC_OVERRIDE) {
        return Ok(());
    }
    let o = *q.owner.lock();
    let bits = if creds.fsuid == o.uid {
        o.mode >> 6
    } else if creds.fsgid == o.gid || creds.groups.contains(&o.gid) {
        o.mode >> 3
    } else {
        o.mode
    };
    if want & !bits & 7 != 0 {
        return Err(Errno::EACCES);
    }
    Ok(())
}

/// mq_open: returns the queue to open with `flags` (the caller makes the
/// file and the descriptor).
pub fn open(process: &Process, name: &[u8], flags: u32, mode: u32, attr: Option<Attr>) -> Result<MqFile> {
    check_name(name)?;
    let mut names = NAMES.lock();
    if let Some(q) = names.get(name) {
        if flags & (abi::O_CREAT | abi::O_EXCL) == abi::O_CREAT | abi::O_EXCL {
            return Err(Errno::EEXIST);
        }
        let want = match flags & abi::O_ACCMODE {
            abi::O_RDONLY => 4,
            abi::O_WRONLY => 2,
            abi::O_RDWR => 6,
            _ => return Err(Errno::EINVAL),
        };
        may_access(process, q, want)?;
        return Ok(MqFile(q.clone(), false));
    }
    if flags & abi::O_CREAT == 0 {
        return Err(Errno::ENOENT);
    }
    let (fsuid, fsgid, umask) = {
        let creds = process.creds.lock();
        (creds.fsuid, creds.fsgid, process.fs.lock().umask)
    };
    let queue = make_queue(process, names.key(), mode & 0o777 & !umask, fsuid, fsgid, attr)?;
    names.insert(name.to_vec(), queue.clone());
    Ok(MqFile(queue, false))
}

/// Makes a queue with attributes `attr` (the defaults if None), checking
/// them and the limits, charging its creator `process`.
fn make_queue(process: &Process, ns: u64, mode: u32, uid: u32, gid: u32, attr: Option<Attr>) -> Result<Arc<Queue>> {
    let resource = crate::process::access::capable(process, abi::CAP_SYS_RESOURCE);
    let (maxmsg, msgsize) = match attr {
        None => (MSG_DEFAULT.get_in(ns) as i64, MSGSIZE_DEFAULT.get_in(ns) as i64),
        Some(a) => {
            if a.maxmsg <= 0 || a.msgsize <= 0 {
                return Err(Errno::EINVAL);
            }
            let (max, size_max) = if resource {
                (HARD_MSGMAX as i64, HARD_MSGSIZEMAX as i64)
            } else {
                (MSG_MAX.get_in(ns) as i64, MSGSIZE_MAX.get_in(ns) as i64)
            };
            if a.maxmsg > max || a.msgsize > size_max {
                return Err(Errno::EINVAL);
            }
            (a.maxmsg, a.msgsize)
        }
    };
    let queues_max = QUEUES_MAX.get_in(ns) as u32 as usize;
    if QUEUES.lock().get(&ns).copied().unwrap_or(0) >= queues_max && !resource {
        return Err(Errno::ENOSPC);
    }
    let (maxmsg, msgsize) = (maxmsg as u64, msgsize as u64);
    let cost = maxmsg * MSG_HEADER + maxmsg.min(PRIO_MAX as u64) * TREE_NODE + maxmsg * msgsize;
    let real_uid = process.creds.lock().uid;
    {
        let limit = process.limits.lock()[abi::RLIMIT_MSGQUEUE as usize][0];
        let mut charged = CHARGED.lock();
        let used = charged.entry(real_uid).or_insert(0);
        if used.checked_add(cost).is_none_or(|total| total > limit) {
            return Err(Errno::EMFILE);
        }
        *used += cost;
    }
    *QUEUES.lock().entry(ns).or_insert(0) += 1;
    Ok(Arc::new(Queue {
        ino: NEXT_INO.fetch_add(1, Ordering::Relaxed),
        ns,
        owner: {
            let now = crate::clock::now();
            SpinLock::new(Owner { uid, gid, mode, atime: now, mtime: now, ctime: now })
        },
        maxmsg: maxmsg as usize,
        msgsize: msgsize as usize,
        charged: (real_uid, cost),
        state: SpinLock::new(State { messages: Vec::new(), bytes: 0, notify: None, receivers: 0 }),
        waiters: WaitQueue::new(),
    }))
}

/// The queues named in IPC namespace `ns`, in name order.
pub(super) fn names_in(ns: u64) -> Vec<(Vec<u8>, Arc<Queue>)> {
    NAMES.lock_in(ns).iter().map(|(n, q)| (n.clone(), q.clone())).collect()
}

/// The queue named `name` in IPC namespace `ns`.
pub(super) fn find_in(ns: u64, name: &[u8]) -> Option<Arc<Queue>> {
    NAMES.lock_in(ns).get(name).cloned()
}

/// Creates the queue `name` in namespace `ns` with the default
/// attributes (open(O_CREAT) in the mqueue file system); `mode` is
/// already masked.
pub(super) fn create_in(process: &Process, ns: u64, name: &[u8], mode: u32, uid: u32, gid: u32) -> Result<Arc<Queue>> {
    check_name(name)?;
    let mut names = NAMES.lock_in(ns);
    if names.contains_key(name) {
        return Err(Errno::EEXIST);
    }
    let queue = make_queue(process, ns, mode & 0o777, uid, gid, None)?;
    names.insert(name.to_vec(), queue.clone());
    Ok(queue)
}

/// Removes the name `name` from namespace `ns` (unlink in the mqueue file
/// system, whose caller checked the permissions).
pub(super) fn remove_in(ns: u64, name: &[u8]) -> Result<()> {
    NAMES.lock_in(ns).remove(name).map(drop).ok_or(Errno::ENOENT)
}

impl Queue {
    pub(super) fn ino(&self) -> u64 {
        self.ino
    }

    pub(super) fn ns(&self) -> u64 {
        self.ns
    }

    pub(super) fn owner(&self) -> Owner {
        *self.owner.lock()
    }

    pub(super) fn set_owner(&self, owner: Owner) {
        *self.owner.lock() = owner;
    }

    /// The file an open of its node in the mqueue file system gives.
    pub(super) fn file(self: &Arc<Self>) -> MqFile {
        MqFile(self.clone(), true)
    }
}

/// mq_unlink: the name goes; open descriptors keep the queue.
pub fn unlink(process: &Process, name: &[u8]) -> Result<()> {
    check_name(name)?;
    let mut names = NAMES.lock();
    let q = names.get(name).ok_or(Errno::ENOENT)?;
    // The root directory is sticky and root's: others' queues need
    // CAP_FOWNER.
    let creds = process.creds.lock();
    if creds.fsuid != q.owner.lock().uid && creds.fsuid != 0 && !creds.has_cap(abi::CAP_FOWNER) {
        return Err(Errno::EPERM);
    }
    drop(creds);
    names.remove(name);
    Ok(())
}

/// The queue behind `file`, if it is one.
pub fn queue_of(file: &OpenFile) -> Result<&MqFile> {
    file.ops.as_mqueue().ok_or(Errno::EBADF)
}

impl MqFile {
    /// mq_timedsend (message already read from user memory); `deadline`
    /// is CLOCK_REALTIME ns.
    pub fn send(&self, file: &OpenFile, sender: &Process, text: Vec<u8>, prio: u32, deadline: Option<u64>) -> Result<()> {
        let q = &self.0;
        let mut text = Some(text);
        let thread = crate::process::scheduler::current().expect("mq_timedsend outside a thread");
        if let Some(d) = deadline {
            crate::timer::arm(realtime_to_monotonic(d), thread.clone());
        }
        let result = q.waiters.wait_until(|| {
            let mut state = q.state.lock();
            if state.messages.len() >= q.maxmsg {
                if file.nonblocking() {
                    return Err(Errno::EAGAIN);
                }
                if deadline.is_some_and(|d| kevlar_platform::time::realtime_ns() >= d) {
                    return Err(Errno::ETIMEDOUT);
                }
                return Ok(None);
            }
            let text = text.take().unwrap();
            state.bytes += text.len();
            let at = state.messages.iter().position(|(p, _)| *p < prio).unwrap_or(state.messages.len());
            state.messages.insert(at, (prio, text));
            let notify = if state.messages.len() == 1 && state.receivers == 0 { state.notify.take() } else { None };
            Ok(Some(notify))
        });
        if deadline.is_some() {
            crate::timer::disarm(&thread);
        }
        let notify = result?;
        q.waiters.wake_all();
        crate::fs::file::notify_pollers();
        if let Some(mut n) = notify {
            if let Some(t) = n.thread.take() {
                t.send(NOTIFY_WOKENUP);
            }
            if n.how == abi::SIGEV_SIGNAL && n.signo != 0 {
                if let Some(target) = crate::process::find_process(n.pid) {
                    // si_uid: the sender's uid as the namespace of the
                    // process told sees it (Linux's notify_user_ns);
                    // Linux's send_signal_locked then takes that number
                    // as an id of the sender's namespace and maps it
                    // again into the target's when the two differ, so a
                    // sender outside gives the overflow id even where the
                    // target's map names its uid.
                    let (kid, from) = {
                        let c = sender.creds.lock();
                        (c.uid, c.user_ns.clone())
                    };
                    let to = target.creds.lock().user_ns.clone();
                    let mut uid = to.uid_shown(kid);
                    if !Arc::ptr_eq(&from, &to) {
                        uid = from.uid_into(&to, uid);
                    }
                    let info = SigInfo::queued(n.signo, abi::SI_MESGQ, sender.pid, uid, n.value);
                    let _ = crate::process::signal::send_signal_info(&target, info);
                }
            }
        }
        Ok(())
    }

    /// mq_timedreceive: the message and its priority.
    pub fn receive(&self, file: &OpenFile, deadline: Option<u64>) -> Result<(Vec<u8>, u32)> {
        let q = &self.0;
        let thread = crate::process::scheduler::current().expect("mq_timedreceive outside a thread");
        if let Some(d) = deadline {
            crate::timer::arm(realtime_to_monotonic(d), thread.clone());
        }
        let mut counted = false;
        let result = q.waiters.wait_until(|| {
            let mut state = q.state.lock();
            if state.messages.is_empty() {
                if file.nonblocking() {
                    return Err(Errno::EAGAIN);
                }
                if deadline.is_some_and(|d| kevlar_platform::time::realtime_ns() >= d) {
                    return Err(Errno::ETIMEDOUT);
                }
                if !counted {
                    state.receivers += 1;
                    counted = true;
                }
                return Ok(None);
            }
            let (prio, text) = state.messages.remove(0);
            state.bytes -= text.len();
            Ok(Some((text, prio)))
        });
        if counted {
            q.state.lock().receivers -= 1;
        }
        if deadline.is_some() {
            crate::timer::disarm(&thread);
        }
        let message = result?;
        q.waiters.wake_all();
        crate::fs::file::notify_pollers();
        Ok(message)
    }

    /// Whether the file was opened through a mount of the mqueue file
    /// system (which then cannot be unmounted without MNT_DETACH).
    pub fn pins_mount(&self) -> bool {
        self.1
    }

    /// The largest message the queue takes.
    pub fn msgsize(&self) -> usize {
        self.0.msgsize
    }

    /// mq_getsetattr's report (mq_flags is the caller's).
    pub fn attr(&self) -> Attr {
        Attr { flags: 0, maxmsg: self.0.maxmsg as i64, msgsize: self.0.msgsize as i64, curmsgs: self.0.state.lock().messages.len() as i64 }
    }

    /// mq_notify: `how` is None to unregister, else (SIGEV_NONE,
    /// SIGEV_SIGNAL or SIGEV_THREAD, signal, value), with the socket and
    /// cookie for SIGEV_THREAD.
    pub fn notify(&self, process: &Process, how: Option<(u32, u32, u64)>, thread: Option<ThreadNotify>) -> Result<()> {
        let removed = {
            let mut state = self.0.state.lock();
            match how {
                None => {
                    if state.notify.as_ref().is_some_and(|n| n.pid == process.pid) {
                        state.notify.take()
                    } else {
                        None
                    }
                }
                Some(_) if state.notify.is_some() => return Err(Errno::EBUSY),
                Some((how, signo, value)) => {
                    state.notify = Some(Notify { pid: process.pid, how, signo, value, thread });
                    None
                }
            }
        };
        Self::removed(removed);
        Ok(())
    }

    /// Tells a SIGEV_THREAD registration that went away (outside the
    /// queue's lock).
    fn removed(notify: Option<Notify>) {
        if let Some(t) = notify.and_then(|n| n.thread) {
            t.send(NOTIFY_REMOVED);
        }
    }

    /// Drops the caller's registration when it closes a descriptor of the
    /// queue (Linux's flush).
    pub fn closed_by(&self, pid: i32) {
        let removed = {
            let mut state = self.0.state.lock();
            if state.notify.as_ref().is_some_and(|n| n.pid == pid) {
                state.notify.take()
            } else {
                None
            }
        };
        Self::removed(removed);
    }
}

fn realtime_to_monotonic(deadline: u64) -> u64 {
    let now_real = kevlar_platform::time::realtime_ns();
    let now_mono = kevlar_platform::time::monotonic_ns();
    now_mono.saturating_add(deadline.saturating_sub(now_real))
}

impl FileOps for MqFile {
    /// The queue's node (fchmod, fchown, futimens act on it).
    fn inode(&self) -> Option<Arc<dyn kevlar_vfs::Inode>> {
        Some(super::mqueue_fs::queue_node(&self.0))
    }

    /// The queue's node in its namespace's mqueue file system.
    fn stat(&self) -> Result<kevlar_vfs::Stat> {
        Ok(super::mqueue_fs::queue_stat(&self.0))
    }

    /// Reads advance the file position, as Linux's (a second read of the
    /// state line gives end of file); lseek and pread work.
    fn is_seekable(&self) -> bool {
        true
    }

    fn is_pollable(&self) -> bool {
        true
    }

    /// The queue's state as Linux's mqueue file shows it.
    fn read(&self, _file: &OpenFile, offset: u64, buf: &mut [u8]) -> Result<usize> {
        let text = {
            let state = self.0.state.lock();
            let (how, signo, pid) = match &state.notify {
                Some(n) => (n.how, if n.how == abi::SIGEV_SIGNAL { n.signo } else { 0 }, n.pid),
                None => (0, 0, 0),
            };
            format!("QSIZE:{:<10} NOTIFY:{:<5} SIGNO:{:<5} NOTIFY_PID:{:<6}\n", state.bytes, how, signo, pid)
        };
        let bytes = text.as_bytes();
        let start = (offset as usize).min(bytes.len());
        let n = buf.len().min(bytes.len() - start);
        buf[..n].copy_from_slice(&bytes[start..start + n]);
        Ok(n)
    }

    fn write(&self, _file: &OpenFile, _offset: u64, _buf: &[u8]) -> Result<usize> {
        Err(Errno::EINVAL)
    }

    fn poll(&self) -> PollEvents {
        let state = self.0.state.lock();
        let mut events = 0;
        if !state.messages.is_empty() {
            events |= POLLIN | POLLRDNORM;
        }
        if state.messages.len() < self.0.maxmsg {
            events |= POLLOUT | POLLWRNORM;
        }
        events
    }

    fn release(&self, _file: &OpenFile) {
        if let Some(thread) = crate::process::current() {
            self.closed_by(thread.process.pid);
        }
    }

    fn as_mqueue(&self) -> Option<&MqFile> {
        Some(self)
    }
}
