//! fanotify (Linux's fs/notify/fanotify): groups, their marks on inodes,
//! mounts and file systems, the events the VFS hooks of `notify` report
//! to them, and permission events the opener or reader waits on until the
//! listener answers.
//!
//! A group is an open file: read returns `struct fanotify_event_metadata`
//! records, each with a new descriptor for the object (opened with the
//! group's event_f_flags, on a file that itself reports nothing); write
//! takes `struct fanotify_response` for permission events.

use alloc::collections::{BTreeMap, VecDeque};
use alloc::string::String;
use alloc::sync::{Arc, Weak};
use alloc::vec::Vec;
use core::fmt::Write as _;
use core::sync::atomic::{AtomicU32, AtomicUsize, Ordering};

use kevlar_platform::sync::SpinLock;
use kevlar_vfs::{FileType, Inode, MountId, Stat, NO_MOUNT};
use linux_raw_sys::general as abi;

use super::fanotify_abi::*;
use crate::error::{Errno, Result};
use crate::fs::file::{FileOps, OpenFile, PollEvents, POLLIN, POLLRDNORM};
use crate::process::wait_queue::WaitQueue;

/// /proc/sys/fs/fanotify/max_queued_events: the queue length of groups
/// made from now on.
pub static MAX_QUEUED_EVENTS: AtomicU32 = AtomicU32::new(16384);
/// /proc/sys/fs/fanotify/max_user_groups.
pub static MAX_USER_GROUPS: AtomicU32 = AtomicU32::new(128);
/// /proc/sys/fs/fanotify/max_user_marks (Linux's floor, what its formula
/// gives for the memory of a small machine).
pub static MAX_USER_MARKS: AtomicU32 = AtomicU32::new(8192);

/// Linux merges an event into one of the last 128 queued.
const MERGE_WINDOW: usize = 128;

// --- groups ----------------------------------------------------------------------

/// A permission event's state, shared by the queue and the waiter.
#[derive(Clone, Copy, PartialEq, Eq)]
enum PermState {
    /// Queued, not yet read.
    Queued,
    /// Read: the listener got descriptor `fd` to answer about.
    Reported(i32),
    /// Answered (FAN_ALLOW or FAN_DENY).
    Answered(u32),
}

struct Perm {
    state: SpinLock<PermState>,
}

/// What an event is about: the node, the path it was reached by and the
/// mount (what the listener's descriptor opens).
#[derive(Clone)]
struct Object {
    node: Arc<dyn Inode>,
    path: Vec<u8>,
}

struct Event {
    mask: u32,
    /// The process (or thread, FAN_REPORT_TID) that caused it; 0 for the
    /// overflow event.
    pid: i32,
    object: Option<Object>,
    /// (file system, inode, mount): what identical events share.
    key: (u64, u64, u32),
    perm: Option<Arc<Perm>>,
    /// The info records (file-handle groups), after the metadata.
    info: Vec<u8>,
}

struct State {
    queue: VecDeque<Event>,
    overflow_queued: bool,
    /// Events queued so far (edge-triggered epoll).
    queued: u64,
    /// Permission events read and not yet answered.
    reported: Vec<(i32, Arc<Perm>)>,
    /// The group's file closed: nothing more is queued.
    shutdown: bool,
}

/// A fanotify group.
pub struct Group {
    /// fanotify_init's flags.
    pub flags: u32,
    /// fanotify_init's event_f_flags (with O_LARGEFILE, as on 64-bit).
    pub event_f_flags: u32,
    /// The effective uid that made it (the per-user limits).
    uid: u32,
    /// Made without CAP_SYS_ADMIN (FANOTIFY_UNPRIV).
    pub unprivileged: bool,
    max_events: usize,
    state: SpinLock<State>,
    readers: WaitQueue,
    answers: WaitQueue,
}

/// Groups and marks per effective uid.
static PER_USER: SpinLock<BTreeMap<u32, (u32, u32)>> = SpinLock::new(BTreeMap::new());

impl Group {
    /// A group's priority: permission classes hear events first.
    fn priority(&self) -> u32 {
        match self.flags & CLASS_BITS {
            FAN_CLASS_PRE_CONTENT => 2,
            FAN_CLASS_CONTENT => 1,
            _ => 0,
        }
    }

    fn fid_mode(&self) -> u32 {
        self.flags & FID_BITS
    }

    /// Queues `event`: merged into an identical recent one, or (the queue
    /// full) dropped after one FAN_Q_OVERFLOW. Returns false if the group
    /// is shut down (a permission event is then allowed).
    fn queue(&self, event: Event) -> bool {
        {
            let mut state = self.state.lock();
            if state.shutdown {
                return false;
            }
            if state.queue.len() >= self.max_events {
                if event.perm.is_some() {
                    // Linux answers a permission event it cannot queue
                    // with the group's default: allowed.
                    if !state.overflow_queued {
                        state.overflow_queued = true;
                        state.queue.push_back(Event { mask: FAN_Q_OVERFLOW, pid: 0, object: None, key: (0, 0, 0), perm: None, info: Vec::new() });
                        state.queued += 1;
                    }
                    drop(state);
                    self.wake_readers();
                    return false;
                }
                if state.overflow_queued {
                    return true;
                }
                state.overflow_queued = true;
                state.queue.push_back(Event { mask: FAN_Q_OVERFLOW, pid: 0, object: None, key: (0, 0, 0), perm: None, info: Vec::new() });
            } else {
                let merged = event.perm.is_none()
                    && state.queue.iter_mut().rev().take(MERGE_WINDOW).any(|old| {
                        let same = old.perm.is_none()
                            && old.mask & FAN_Q_OVERFLOW == 0
                            && old.key == event.key
                            && old.info == event.info
                            && old.pid == event.pid
                            && (old.mask & FAN_ONDIR) == (event.mask & FAN_ONDIR);
                        if same {
                            old.mask |= event.mask;
                        }
                        same
                    });
                if merged {
                    return true;
                }
                state.queue.push_back(event);
            }
            state.queued += 1;
        }
        self.wake_readers();
        true
    }

    fn wake_readers(&self) {
        self.readers.wake_all();
        crate::fs::file::notify_pollers();
    }

    /// Waits (killable) for the answer to permission event `perm`: Ok for
    /// FAN_ALLOW, EPERM for FAN_DENY.
    fn wait_answer(&self, perm: &Arc<Perm>) -> Result<()> {
        let thread = crate::process::current().ok_or(Errno::EPERM)?;
        let answer = self.answers.wait_until_uninterruptible(|| {
            if let PermState::Answered(answer) = *perm.state.lock() {
                return Some(Some(answer));
            }
            if thread.fatal_signal_pending() {
                return Some(None);
            }
            None
        });
        match answer {
            Some(answer) if answer & !FAN_AUDIT == FAN_ALLOW => Ok(()),
            Some(_) => Err(Errno::EPERM),
            None => {
                // Killed while waiting: the event goes from the queue or
                // the listener's list (an answer later finds nothing).
                let mut state = self.state.lock();
                state.queue.retain(|e| !e.perm.as_ref().is_some_and(|p| Arc::ptr_eq(p, perm)));
                state.reported.retain(|(_, p)| !Arc::ptr_eq(p, perm));
                Err(Errno::EINTR)
            }
        }
    }

    /// The listener's answer (write(2) of `struct fanotify_response`).
    fn answer(&self, fd: i32, response: u32) -> Result<()> {
        match response & !FAN_AUDIT {
            FAN_ALLOW | FAN_DENY => {}
            _ => return Err(Errno::EINVAL),
        }
        if fd < 0 {
            return Err(Errno::EINVAL);
        }
        if response & FAN_AUDIT != 0 && self.flags & FAN_ENABLE_AUDIT == 0 {
            return Err(Errno::EINVAL);
        }
        let perm = {
            let mut state = self.state.lock();
            let pos = state.reported.iter().position(|(f, _)| *f == fd).ok_or(Errno::ENOENT)?;
            state.reported.remove(pos).1
        };
        *perm.state.lock() = PermState::Answered(response);
        self.answers.wake_all();
        Ok(())
    }

    /// Takes the first event if `room` bytes hold it: None if the queue is
    /// empty, EINVAL if it does not fit.
    fn take(&self, room: usize) -> Result<Option<Event>> {
        let mut state = self.state.lock();
        if state.queue.is_empty() {
            return Ok(None);
        }
        let pidfd_len = if self.flags & FAN_REPORT_PIDFD != 0 { PIDFD_INFO_LEN } else { 0 };
        if FAN_EVENT_METADATA_LEN + state.queue.front().map_or(0, |e| e.info.len()) + pidfd_len > room {
            return Err(Errno::EINVAL);
        }
        let event = state.queue.pop_front().unwrap();
        if event.mask & FAN_Q_OVERFLOW != 0 && event.object.is_none() {
            state.overflow_queued = false;
        }
        Ok(Some(event))
    }

    /// Encodes `event` for the reader: its metadata, with a new descriptor
    /// for its object in the reader's table.
    fn report(&self, event: &Event) -> Result<Vec<u8>> {
        let mut fd = FAN_NOFD;
        if let Some(object) = &event.object {
            if !self.unprivileged && self.fid_mode() == 0 {
                fd = open_for_listener(object, self.event_f_flags)?;
            }
        }
        let pidfd_len = if self.flags & FAN_REPORT_PIDFD != 0 { PIDFD_INFO_LEN } else { 0 };
        let mut out = alloc::vec![0u8; FAN_EVENT_METADATA_LEN];
        out[0..4].copy_from_slice(&((FAN_EVENT_METADATA_LEN + event.info.len() + pidfd_len) as u32).to_le_bytes());
        out[4] = FANOTIFY_METADATA_VERSION;
        out[5] = 0;
        out[6..8].copy_from_slice(&(FAN_EVENT_METADATA_LEN as u16).to_le_bytes());
        out[8..16].copy_from_slice(&u64::from(event.mask & OUTGOING_EVENTS).to_le_bytes());
        out[16..20].copy_from_slice(&fd.to_le_bytes());
        out[20..24].copy_from_slice(&event.pid.to_le_bytes());
        out.extend_from_slice(&event.info);
        if pidfd_len != 0 {
            // A pidfd for the process that caused the event (FAN_NOPIDFD
            // when it is gone or not known, FAN_EPIDFD if none can be made).
            let pidfd = match (event.pid > 0).then(|| crate::process::find_process(event.pid as crate::process::Pid)).flatten() {
                None => FAN_NOPIDFD,
                Some(process) => {
                    let file = OpenFile::new(crate::fs::pidfd::PidFd::new(process), abi::O_RDWR, b"anon_inode:[pidfd]".to_vec());
                    let inserted = crate::process::current().map(|t| {
                        let table = t.process.files.lock().clone();
                        let fd = table.lock().insert(file, true);
                        fd
                    });
                    match inserted {
                        Some(Ok(fd)) => fd,
                        _ => FAN_EPIDFD,
                    }
                }
            };
            out.push(INFO_PIDFD);
            out.push(0);
            out.extend_from_slice(&(PIDFD_INFO_LEN as u16).to_le_bytes());
            out.extend_from_slice(&pidfd.to_le_bytes());
        }
        Ok(out)
    }

    fn shutdown(&self) {
        let (queued, reported) = {
            let mut state = self.state.lock();
            state.shutdown = true;
            let queued: Vec<Arc<Perm>> = state.queue.drain(..).filter_map(|e| e.perm).collect();
            let reported: Vec<Arc<Perm>> = state.reported.drain(..).map(|(_, p)| p).collect();
            (queued, reported)
        };
        // Every permission event still waiting is allowed.
        for perm in reported.into_iter().chain(queued) {
            *perm.state.lock() = PermState::Answered(FAN_ALLOW);
        }
        self.answers.wake_all();
    }
}

/// Opens `object` for the listener, as Linux's dentry_open: no permission
/// check, a file that reports no events. Returns the new descriptor.
fn open_for_listener(object: &Object, flags: u32) -> Result<i32> {
    let thread = crate::process::current().ok_or(Errno::EBADF)?;
    let file = OpenFile::new(Arc::new(QuietFile { inode: object.node.clone() }), flags & !abi::O_CLOEXEC, object.path.clone());
    let table = thread.process.files.lock().clone();
    let fd = table.lock().insert(file, flags & abi::O_CLOEXEC != 0)?;
    Ok(fd)
}

/// Live groups by address (an `OpenFile` holds each as `dyn FileOps`).
static GROUPS: SpinLock<BTreeMap<usize, Weak<Group>>> = SpinLock::new(BTreeMap::new());

/// The group `group` is, as an `Arc` (what its marks refer to).
pub fn group_arc(group: &Group) -> Option<Arc<Group>> {
    GROUPS.lock().get(&(group as *const Group as usize)).and_then(Weak::upgrade)
}

/// A group fanotify_init made and then refused: it counts no more.
pub fn discard_group(group: &Arc<Group>) {
    if GROUPS.lock().remove(&(Arc::as_ptr(group) as usize)).is_some() && group.flags & FAN_REPORT_DIR_FID != 0 {
        DFID_GROUPS.fetch_sub(1, Ordering::AcqRel);
    }
    if let Some(entry) = PER_USER.lock().get_mut(&group.uid) {
        entry.0 = entry.0.saturating_sub(1);
    }
}

/// Whether events on `mount`'s file system can carry file handles: Linux
/// 6.1 needs a non-zero fsid (fanotify_test_fsid), which tmpfs and disk
/// file systems have (procfs, sysfs, devpts, cgroup2 and mqueue do not).
pub fn fid_supported(mount: &crate::fs::mount::Mount) -> bool {
    crate::fs::fsid::of_mount(mount) != 0
}

/// fanotify_init: a new group for effective uid `uid` (EMFILE past
/// max_user_groups).
pub fn new_group(flags: u32, event_f_flags: u32, uid: u32, unprivileged: bool) -> Result<Arc<Group>> {
    {
        let mut users = PER_USER.lock();
        let entry = users.entry(uid).or_insert((0, 0));
        if entry.0 >= MAX_USER_GROUPS.load(Ordering::Relaxed) {
            return Err(Errno::EMFILE);
        }
        entry.0 += 1;
    }
    let max_events = if flags & FAN_UNLIMITED_QUEUE != 0 { u32::MAX as usize } else { MAX_QUEUED_EVENTS.load(Ordering::Relaxed) as usize };
    let group = Arc::new(Group {
        flags,
        event_f_flags: event_f_flags | abi::O_LARGEFILE,
        uid,
        unprivileged,
        max_events,
        state: SpinLock::new(State { queue: VecDeque::new(), overflow_queued: false, queued: 0, reported: Vec::new(), shutdown: false }),
        readers: WaitQueue::new(),
        answers: WaitQueue::new(),
    });
    GROUPS.lock().insert(Arc::as_ptr(&group) as usize, Arc::downgrade(&group));
    if flags & FAN_REPORT_DIR_FID != 0 {
        DFID_GROUPS.fetch_add(1, Ordering::AcqRel);
    }
    Ok(group)
}

impl FileOps for Group {
    fn stat(&self) -> Result<Stat> {
        Ok(crate::fs::anon::anon_stat())
    }

    fn is_seekable(&self) -> bool {
        false
    }

    fn seek(&self, _file: &OpenFile, _offset: i64, _whence: u32) -> Option<Result<u64>> {
        Some(Ok(0))
    }

    fn is_pollable(&self) -> bool {
        true
    }

    fn read(&self, file: &OpenFile, _offset: u64, buf: &mut [u8]) -> Result<usize> {
        let mut done = 0;
        loop {
            let event = if done == 0 {
                self.readers.wait_until(|| match self.take(buf.len() - done)? {
                    Some(event) => Ok(Some(event)),
                    None if file.nonblocking() => Err(Errno::EAGAIN),
                    None => Ok(None),
                })?
            } else {
                match self.take(buf.len() - done) {
                    Ok(Some(event)) => event,
                    _ => break,
                }
            };
            let record = self.report(&event);
            if let Some(perm) = &event.perm {
                match &record {
                    Ok(record) => {
                        let fd = i32::from_le_bytes(record[16..20].try_into().unwrap());
                        *perm.state.lock() = PermState::Reported(fd);
                        self.state.lock().reported.push((fd, perm.clone()));
                    }
                    Err(_) => {
                        // Not reported: denied, as Linux does.
                        *perm.state.lock() = PermState::Answered(FAN_DENY);
                        self.answers.wake_all();
                    }
                }
            }
            match record {
                Ok(record) => {
                    buf[done..done + record.len()].copy_from_slice(&record);
                    done += record.len();
                }
                Err(err) if done == 0 => return Err(err),
                Err(_) => break,
            }
        }
        Ok(done)
    }

    fn write(&self, _file: &OpenFile, _offset: u64, buf: &[u8]) -> Result<usize> {
        if buf.len() < FAN_RESPONSE_LEN {
            return Err(Errno::EINVAL);
        }
        let fd = i32::from_le_bytes(buf[0..4].try_into().unwrap());
        let response = u32::from_le_bytes(buf[4..8].try_into().unwrap());
        self.answer(fd, response)?;
        Ok(FAN_RESPONSE_LEN)
    }

    fn poll(&self) -> PollEvents {
        if self.state.lock().queue.is_empty() { 0 } else { POLLIN | POLLRDNORM }
    }

    fn poll_counts(&self) -> (u64, u64) {
        (self.state.lock().queued, 0)
    }

    fn ioctl(&self, _file: &OpenFile, request: u32, arg: usize) -> Result<isize> {
        if request == linux_raw_sys::ioctl::FIONREAD {
            // Linux counts the metadata alone of each queued event.
            let bytes = (self.state.lock().queue.len() * FAN_EVENT_METADATA_LEN) as i32;
            crate::uaccess::copy_to_user(arg, &bytes.to_le_bytes())?;
            return Ok(0);
        }
        Err(Errno::ENOTTY)
    }

    fn release(&self, _file: &OpenFile) {
        self.shutdown();
        let me = self as *const Group as usize;
        if GROUPS.lock().remove(&me).is_some() && self.flags & FAN_REPORT_DIR_FID != 0 {
            DFID_GROUPS.fetch_sub(1, Ordering::AcqRel);
        }
        let removed = {
            let mut marks = MARKS.lock();
            let before = marks.len();
            marks.retain(|m| m.group_id != me);
            before - marks.len()
        };
        recount();
        let mut users = PER_USER.lock();
        if let Some(entry) = users.get_mut(&self.uid) {
            entry.0 = entry.0.saturating_sub(1);
            if self.flags & FAN_UNLIMITED_MARKS == 0 {
                entry.1 = entry.1.saturating_sub(removed as u32);
            }
        }
    }

    fn fdinfo(&self) -> Option<String> {
        let mut out = String::new();
        let _ = writeln!(out, "fanotify flags:{:x} event-flags:{:x}", self.flags & INIT_FLAGS, self.event_f_flags);
        let me = self as *const Group as usize;
        let marks: Vec<Mark> = MARKS.lock().iter().rev().filter(|m| m.group_id == me).cloned().collect();
        for mark in marks {
            let mflags = mark.flags & (FAN_MARK_IGNORED_SURV_MODIFY | FAN_MARK_EVICTABLE | FAN_MARK_IGNORE);
            match &mark.target {
                Target::Inode { node, path, .. } => {
                    let dev = crate::fs::mount::mount_of(&**node).map_or(0, |m| kernel_dev(&m));
                    let _ = write!(out, "fanotify ino:{:x} sdev:{:x} mflags:{:x} mask:{:x} ignored_mask:{:x}", node.ino(), dev, mflags, mark.mask, mark.ignore);
                    if let Ok(handle) = crate::fs::fhandle::encode(node, path) {
                        let _ = write!(out, " fhandle-bytes:{:x} fhandle-type:{:x} f_handle:", handle.bytes.len(), handle.kind);
                        for b in &handle.bytes {
                            let _ = write!(out, "{:02x}", b);
                        }
                    }
                    out.push('\n');
                }
                Target::Mount { id, .. } => {
                    let _ = writeln!(out, "fanotify mnt_id:{:x} mflags:{:x} mask:{:x} ignored_mask:{:x}", id, mflags, mark.mask, mark.ignore);
                }
                Target::Fs { dev, .. } => {
                    let _ = writeln!(out, "fanotify sdev:{:x} mflags:{:x} mask:{:x} ignored_mask:{:x}", dev, mflags, mark.mask, mark.ignore);
                }
            }
        }
        Some(out)
    }

    fn as_fanotify(&self) -> Option<&Group> {
        Some(self)
    }
}

/// The device number of `mount`'s file system as the kernel writes it
/// (major << 20 | minor), from what stat reports of its root.
fn kernel_dev(mount: &crate::fs::mount::Mount) -> u64 {
    let dev = mount.root.stat().map_or(0, |s| s.dev);
    let (major, minor) = ((dev >> 8) & 0xfff, (dev & 0xff) | ((dev >> 12) & 0xfff00));
    major << 20 | minor
}

/// The file a listener gets for an event: the object, read and written
/// directly, reporting nothing (Linux's FMODE_NONOTIFY).
struct QuietFile {
    inode: Arc<dyn Inode>,
}

impl FileOps for QuietFile {
    fn read(&self, _file: &OpenFile, offset: u64, buf: &mut [u8]) -> Result<usize> {
        if self.inode.file_type() == FileType::Directory {
            return Err(Errno::EISDIR);
        }
        Ok(self.inode.read_at(offset, buf)?)
    }

    fn write(&self, _file: &OpenFile, offset: u64, buf: &[u8]) -> Result<usize> {
        if self.inode.file_type() == FileType::Directory {
            return Err(Errno::EISDIR);
        }
        let len = crate::fs::file::clamp_to_file_size_limit(offset, buf.len())?;
        Ok(self.inode.write_at(offset, &buf[..len])?)
    }

    fn stat(&self) -> Result<Stat> {
        Ok(self.inode.stat()?)
    }

    fn inode(&self) -> Option<Arc<dyn Inode>> {
        Some(self.inode.clone())
    }
}

// --- marks -------------------------------------------------------------------------

#[derive(Clone)]
enum Target {
    Inode { node: Arc<dyn Inode>, id: (u64, u64), path: Vec<u8> },
    Mount { id: u32 },
    Fs { fs_id: u64, dev: u64 },
}

#[derive(Clone)]
struct Mark {
    group: Weak<Group>,
    group_id: usize,
    target: Target,
    mask: u32,
    ignore: u32,
    /// FAN_MARK_IGNORED_SURV_MODIFY, FAN_MARK_EVICTABLE, FAN_MARK_IGNORE
    /// (the mark's ignore mask has the new semantics).
    flags: u32,
}

impl Mark {
    fn same_target(&self, other: &Target) -> bool {
        match (&self.target, other) {
            (Target::Inode { id: a, .. }, Target::Inode { id: b, .. }) => a == b,
            (Target::Mount { id: a, .. }, Target::Mount { id: b, .. }) => a == b,
            (Target::Fs { fs_id: a, .. }, Target::Fs { fs_id: b, .. }) => a == b,
            _ => false,
        }
    }
}

/// Every mark of every group, oldest first.
static MARKS: SpinLock<Vec<Mark>> = SpinLock::new(Vec::new());
/// How many marks there are, of directories, and of mounts: the hooks'
/// fast paths.
static MARK_COUNT: AtomicUsize = AtomicUsize::new(0);
static DIR_MARKS: AtomicUsize = AtomicUsize::new(0);
/// How many groups report directory file handles (they need the parent).
static DFID_GROUPS: AtomicUsize = AtomicUsize::new(0);
static MOUNT_MARKS: AtomicUsize = AtomicUsize::new(0);
static SB_MARKS: AtomicUsize = AtomicUsize::new(0);

fn recount() {
    let marks = MARKS.lock();
    let dirs = marks.iter().filter(|m| matches!(&m.target, Target::Inode { node, .. } if node.file_type() == FileType::Directory)).count();
    let mounts = marks.iter().filter(|m| matches!(m.target, Target::Mount { .. })).count();
    DIR_MARKS.store(dirs, Ordering::Release);
    MOUNT_MARKS.store(mounts, Ordering::Release);
    SB_MARKS.store(marks.iter().filter(|m| matches!(m.target, Target::Fs { .. })).count(), Ordering::Release);
    MARK_COUNT.store(marks.len(), Ordering::Release);
}

/// Whether any fanotify mark exists.
#[inline]
pub fn any_marks() -> bool {
    MARK_COUNT.load(Ordering::Acquire) != 0
}

/// What a mark is placed on, as fanotify_mark found it.
pub enum MarkOn<'a> {
    Inode(&'a Arc<dyn Inode>, &'a [u8]),
    Mount(&'a crate::fs::mount::Mount),
    Fs(&'a crate::fs::mount::Mount),
}

fn target_of(on: &MarkOn) -> Target {
    match on {
        MarkOn::Inode(node, path) => Target::Inode { node: (*node).clone(), id: (node.fs_id(), node.ino()), path: path.to_vec() },
        MarkOn::Mount(m) => Target::Mount { id: m.id },
        MarkOn::Fs(m) => Target::Fs { fs_id: m.root.fs_id(), dev: kernel_dev(m) },
    }
}

/// FAN_MARK_ADD: adds `mask` (or, with an ignore flag in `flags`, the
/// ignore mask) to `group`'s mark on `on`, making the mark if needed.
pub fn add_mark(group: &Arc<Group>, on: MarkOn, mask: u32, flags: u32) -> Result<()> {
    let target = target_of(&on);
    let ignore = flags & MARK_IGNORE_BITS;
    let gid = Arc::as_ptr(group) as usize;
    {
        let mut marks = MARKS.lock();
        let pos = match marks.iter().position(|m| m.group_id == gid && m.same_target(&target)) {
            Some(pos) => pos,
            None => {
                if group.flags & FAN_UNLIMITED_MARKS == 0 {
                    let mut users = PER_USER.lock();
                    let entry = users.entry(group.uid).or_insert((0, 0));
                    if entry.1 >= MAX_USER_MARKS.load(Ordering::Relaxed) {
                        return Err(Errno::ENOSPC);
                    }
                    entry.1 += 1;
                }
                marks.push(Mark { group: Arc::downgrade(group), group_id: gid, target, mask: 0, ignore: 0, flags: flags & FAN_MARK_EVICTABLE });
                marks.len() - 1
            }
        };
        let mark = &mut marks[pos];
        // fanotify_may_update_existing_mark.
        if flags & FAN_MARK_EVICTABLE != 0 && mark.flags & FAN_MARK_EVICTABLE == 0 {
            return Err(Errno::EEXIST);
        }
        if flags & FAN_MARK_IGNORED_MASK != 0 && mark.flags & FAN_MARK_IGNORE != 0 {
            return Err(Errno::EEXIST);
        }
        if flags & FAN_MARK_IGNORE != 0 && flags & FAN_MARK_IGNORED_SURV_MODIFY == 0 && mark.flags & FAN_MARK_IGNORED_SURV_MODIFY != 0 {
            return Err(Errno::EEXIST);
        }
        if ignore == 0 {
            mark.mask |= mask;
        } else {
            mark.ignore |= mask;
        }
        if ignore == FAN_MARK_IGNORE {
            mark.flags |= FAN_MARK_IGNORE;
        }
        if ignore != 0 && flags & FAN_MARK_IGNORED_SURV_MODIFY != 0 {
            mark.flags |= FAN_MARK_IGNORED_SURV_MODIFY;
        }
        if flags & FAN_MARK_EVICTABLE == 0 {
            mark.flags &= !FAN_MARK_EVICTABLE;
        }
    }
    recount();
    Ok(())
}

/// FAN_MARK_REMOVE: clears `mask` from the mark (its ignore mask with an
/// ignore flag); the mark goes when nothing but `umask` bits remain.
/// ENOENT without a mark.
pub fn remove_mark(group: &Group, on: MarkOn, mask: u32, flags: u32, umask: u32) -> Result<()> {
    let target = target_of(&on);
    let gid = group as *const Group as usize;
    {
        let mut marks = MARKS.lock();
        let pos = marks.iter().position(|m| m.group_id == gid && m.same_target(&target)).ok_or(Errno::ENOENT)?;
        let mark = &mut marks[pos];
        let mask = mask & !umask;
        if flags & MARK_IGNORE_BITS == 0 {
            mark.mask &= !mask;
        } else {
            mark.ignore &= !mask;
        }
        if (mark.mask | mark.ignore) & !umask == 0 {
            marks.remove(pos);
            if group.flags & FAN_UNLIMITED_MARKS == 0 {
                if let Some(entry) = PER_USER.lock().get_mut(&group.uid) {
                    entry.1 = entry.1.saturating_sub(1);
                }
            }
        }
    }
    recount();
    Ok(())
}

/// FAN_MARK_FLUSH: every mark of `group` of the kind `mark_type`.
pub fn flush_marks(group: &Group, mark_type: u32) {
    let gid = group as *const Group as usize;
    let removed = {
        let mut marks = MARKS.lock();
        let before = marks.len();
        marks.retain(|m| {
            let kind = match m.target {
                Target::Inode { .. } => FAN_MARK_INODE,
                Target::Mount { .. } => FAN_MARK_MOUNT,
                Target::Fs { .. } => FAN_MARK_FILESYSTEM,
            };
            !(m.group_id == gid && kind == mark_type)
        });
        before - marks.len()
    };
    if group.flags & FAN_UNLIMITED_MARKS == 0 {
        if let Some(entry) = PER_USER.lock().get_mut(&group.uid) {
            entry.1 = entry.1.saturating_sub(removed as u32);
        }
    }
    recount();
}

// --- events ------------------------------------------------------------------------

#[derive(Clone, Copy, PartialEq, Eq)]
enum Iter {
    Inode,
    Inode2,
    Parent,
    Mount,
    Sb,
}

/// fsnotify_mask_applicable.
fn applicable(mask: u32, is_dir: bool, iter: Iter) -> bool {
    !(is_dir && mask & FAN_ONDIR == 0) && !(iter == Iter::Parent && mask & FAN_EVENT_ON_CHILD == 0)
}

/// fsnotify_effective_ignore_mask.
fn effective_ignore(mark: &Mark, is_dir: bool, iter: Iter) -> u32 {
    let events = mark.ignore & (EVENTS | PERM_EVENTS);
    if events == 0 {
        return 0;
    }
    if !is_dir && iter != Iter::Parent {
        return events;
    }
    let mut ignore = mark.ignore;
    if mark.flags & FAN_MARK_IGNORE == 0 {
        // Legacy: always on directories; on children if the parent's mark
        // watches them.
        ignore |= FAN_ONDIR;
        ignore &= !FAN_EVENT_ON_CHILD;
        ignore |= mark.mask & FAN_EVENT_ON_CHILD;
    }
    if !applicable(ignore, is_dir, iter) {
        return 0;
    }
    ignore & (EVENTS | PERM_EVENTS)
}

/// A directory-entry event's details.
pub struct Entry<'a> {
    /// The entry's name in the directory the event is about.
    pub name: &'a [u8],
    /// Whether the entry is a directory.
    pub is_dir: bool,
    /// The entry's node, when known.
    pub child: Option<Arc<dyn Inode>>,
    /// FAN_RENAME: the new directory and name.
    pub new: Option<(Arc<dyn Inode>, Vec<u8>, &'a [u8])>,
}

/// An event `mask` on the object `node`, reached by absolute `path`
/// through mount `mnt`, caused by the current thread. For permission
/// events the caller waits for the listeners' answers: EPERM if one
/// denied.
fn handle(node: &Arc<dyn Inode>, path: &[u8], mnt: MountId, mask: u32) -> Result<()> {
    handle_ex(node, path, mnt, mask, None)
}

const INFO_PIDFD: u8 = 4;
/// `sizeof(struct fanotify_event_info_pidfd)`.
const PIDFD_INFO_LEN: usize = 8;
/// The pidfd of an event whose process is gone, or of none.
const FAN_NOPIDFD: i32 = -1;
/// The pidfd of an event when none could be made.
const FAN_EPIDFD: i32 = -2;

/// [`handle`] with a directory-entry event's details: `node` is then the
/// directory.
fn handle_ex(node: &Arc<dyn Inode>, path: &[u8], mnt: MountId, mask: u32, entry: Option<&Entry>) -> Result<()> {
    if !any_marks() {
        return Ok(());
    }
    let file_type = node.file_type();
    let is_dir = match entry {
        Some(entry) => entry.is_dir,
        None => file_type == FileType::Directory,
    };
    let id = (node.fs_id(), node.ino());
    let mount_id = if MOUNT_MARKS.load(Ordering::Acquire) != 0 && entry.is_none() { crate::fs::mount::mount_at(mnt, &**node).map(|m| m.id) } else { None };
    let want_parent = DIR_MARKS.load(Ordering::Acquire) != 0 || DFID_GROUPS.load(Ordering::Acquire) != 0;
    let parent = if want_parent && entry.is_none() && !path.is_empty() { parent_of(path) } else { None };
    let parent_id = parent.as_ref().map(|(d, _, _)| (d.fs_id(), d.ino()));
    // FAN_RENAME: marks on the new directory hear it too (Linux's
    // FSNOTIFY_ITER_TYPE_INODE2).
    let inode2_id = entry.and_then(|e| e.new.as_ref()).map(|(d, _, _)| (d.fs_id(), d.ino()));
    // Each group's matching marks, with the kind of match.
    let mut per_group: Vec<(Arc<Group>, Vec<(Iter, Mark)>)> = Vec::new();
    {
        let mut marks = MARKS.lock();
        for mark in marks.iter_mut() {
            let iter = match &mark.target {
                Target::Inode { id: mid, .. } if *mid == id => Iter::Inode,
                Target::Inode { id: mid, .. } if Some(*mid) == inode2_id => Iter::Inode2,
                Target::Inode { id: mid, .. } if Some(*mid) == parent_id && *mid != id => Iter::Parent,
                Target::Mount { id: m, .. } if Some(*m) == mount_id => Iter::Mount,
                Target::Fs { fs_id, .. } if *fs_id == id.0 => Iter::Sb,
                _ => continue,
            };
            // A modification clears ignore masks that do not survive it.
            if mask & FAN_MODIFY != 0 && mark.flags & FAN_MARK_IGNORED_SURV_MODIFY == 0 {
                mark.ignore = 0;
            }
            let Some(group) = mark.group.upgrade() else { continue };
            match per_group.iter_mut().find(|(g, _)| Arc::ptr_eq(g, &group)) {
                Some((_, list)) => list.push((iter, mark.clone())),
                None => per_group.push((group, alloc::vec![(iter, mark.clone())])),
            }
        }
    }
    if per_group.is_empty() {
        return Ok(());
    }
    per_group.sort_by_key(|(g, _)| core::cmp::Reverse(g.priority()));
    let event_mask = mask | if is_dir { FAN_ONDIR } else { 0 };
    let thread = crate::process::current();
    for (group, list) in per_group {
        let mut marks_mask = 0;
        let mut ignore = 0;
        for (iter, mark) in &list {
            ignore |= effective_ignore(mark, is_dir, *iter);
            if applicable(mark.mask, is_dir, *iter) {
                marks_mask |= mark.mask;
            }
        }
        let test = event_mask & marks_mask & !ignore;
        let fid_mode = group.fid_mode();
        let report = if fid_mode != 0 {
            if test & !EVENT_FLAGS == 0 {
                continue;
            }
            test
        } else {
            // Events with a descriptor are about files and directories.
            if entry.is_some() || !(file_type == FileType::Regular || file_type == FileType::Directory) {
                continue;
            }
            test & !EVENT_FLAGS
        };
        if report == 0 {
            continue;
        }
        let pid = match &thread {
            Some(t) if group.flags & FAN_REPORT_TID != 0 => t.tid(),
            Some(t) => t.process.pid,
            None => 0,
        };
        let pid = if group.unprivileged { 0 } else { pid as i32 };
        // FAN_RENAME reports the old directory and name if the file
        // system or the old directory is watched, the new ones if the file
        // system or the new directory is (fanotify_alloc_event).
        let sides = if report & FAN_RENAME != 0 {
            let sb = list.iter().any(|(i, _)| *i == Iter::Sb);
            let old_dir = list.iter().any(|(i, m)| *i == Iter::Inode && m.mask & FAN_RENAME != 0);
            let new_dir = list.iter().any(|(i, m)| *i == Iter::Inode2 && m.mask & FAN_RENAME != 0)
                || (inode2_id == Some(id) && old_dir);
            (sb || old_dir, sb || new_dir)
        } else {
            (true, false)
        };
        let info = if fid_mode != 0 { super::fanotify_fid::fid_records(crate::fs::fsid::of_node(&**node), fid_mode, report, node, path, entry, parent.as_ref(), sides) } else { Vec::new() };
        let perm = (report & PERM_EVENTS != 0).then(|| Arc::new(Perm { state: SpinLock::new(PermState::Queued) }));
        let event = Event {
            mask: report,
            pid,
            object: (fid_mode == 0).then(|| Object { node: node.clone(), path: path.to_vec() }),
            key: (id.0, id.1, mount_id.unwrap_or(0)),
            perm: perm.clone(),
            info,
        };
        let queued = group.queue(event);
        if let Some(perm) = perm {
            if queued {
                group.wait_answer(&perm)?;
            }
        }
    }
    Ok(())
}

/// The node of an inode mark on `node` (file-handle events on a node the
/// caller only borrows).
fn marked_node(node: &dyn Inode) -> Option<Arc<dyn Inode>> {
    let id = (node.fs_id(), node.ino());
    MARKS.lock().iter().find_map(|m| match &m.target {
        Target::Inode { node, id: mid, .. } if *mid == id => Some(node.clone()),
        _ => None,
    })
}

/// Whether a file-system mark is on `fs_id` (dirent and self events on
/// any of its nodes then go through the marks).
fn sb_marked(fs_id: u64) -> bool {
    SB_MARKS.load(Ordering::Acquire) != 0 && MARKS.lock().iter().any(|m| matches!(m.target, Target::Fs { fs_id: f, .. } if f == fs_id))
}

/// `node` itself when an inode mark is on it or a file-system mark on
/// its file system: the events about it are then worth building.
fn watched(node: &Arc<dyn Inode>) -> bool {
    sb_marked(node.fs_id()) || marked_node(&**node).is_some()
}

/// A directory-entry event (FAN_CREATE, FAN_DELETE, FAN_MOVED_FROM,
/// FAN_MOVED_TO) in `dir` about entry `name`.
pub fn dirent_event(dir: &Arc<dyn Inode>, mask: u32, name: &[u8], is_dir: bool, child: Option<Arc<dyn Inode>>) {
    if !any_marks() || !watched(dir) {
        return;
    }
    let entry = Entry { name, is_dir, child, new: None };
    let _ = handle_ex(dir, &dir_path(dir), NO_MOUNT, mask, Some(&entry));
}

/// The absolute path of directory `dir` as the current process sees it
/// (what a listener's open_by_handle_at descriptor shows in /proc), found
/// by walking `..` up to the process's root and crossing mount points;
/// empty if it cannot be found (a removed directory).
fn dir_path(dir: &Arc<dyn Inode>) -> Vec<u8> {
    let Some(thread) = crate::process::current() else { return Vec::new() };
    let root = thread.process.fs.lock().root.clone();
    let mut names: Vec<Vec<u8>> = Vec::new();
    let mut cur = dir.clone();
    // Deep trees give up (the path is only what /proc shows).
    for _ in 0..256 {
        if kevlar_vfs::same_inode(&*cur, &*root) {
            let mut path = Vec::new();
            for name in names.iter().rev() {
                path.push(b'/');
                path.extend_from_slice(name);
            }
            if path.is_empty() {
                path.push(b'/');
            }
            return path;
        }
        if let Some(mount) = crate::fs::mount::mount_of(&*cur) {
            if kevlar_vfs::same_inode(&*mount.root, &*cur) {
                match mount.on {
                    Some(on) => {
                        cur = on;
                        continue;
                    }
                    None => return Vec::new(),
                }
            }
        }
        let Ok(parent) = cur.lookup(b"..") else { return Vec::new() };
        if kevlar_vfs::same_inode(&*parent, &*cur) {
            return Vec::new();
        }
        let ino = cur.ino();
        let mut index = 0;
        let mut found = None;
        while let Ok(Some((entry, next))) = parent.read_dir(index) {
            if entry.ino == ino && entry.name != b"." && entry.name != b".." {
                found = Some(entry.name);
                break;
            }
            index = next;
        }
        let Some(name) = found else { return Vec::new() };
        names.push(name);
        cur = parent;
    }
    Vec::new()
}

/// FAN_RENAME: `child` moved from `old_name` in `old_dir` to `new_name`
/// in `new_dir`; heard by marks on either directory and on the file
/// system, with both directory-and-name records.
pub fn rename_event(old_dir: &Arc<dyn Inode>, old_name: &[u8], new_dir: &Arc<dyn Inode>, new_name: &[u8], child: &Arc<dyn Inode>) {
    if !any_marks() || !(watched(old_dir) || marked_node(&**new_dir).is_some()) {
        return;
    }
    let is_dir = child.file_type() == FileType::Directory;
    let entry = Entry { name: old_name, is_dir, child: Some(child.clone()), new: Some((new_dir.clone(), dir_path(new_dir), new_name)) };
    let _ = handle_ex(old_dir, &dir_path(old_dir), NO_MOUNT, FAN_RENAME, Some(&entry));
}

/// An event about `node` itself (FAN_ATTRIB, FAN_DELETE_SELF,
/// FAN_MOVE_SELF), heard by marks on it and on its file system.
pub fn node_event(node: &Arc<dyn Inode>, mask: u32) {
    if !any_marks() || !watched(node) {
        return;
    }
    let _ = handle_ex(node, b"", NO_MOUNT, mask, None);
}

/// [`node_event`] for a node the caller only borrows: heard by inode
/// marks on it.
pub fn inode_event(node: &dyn Inode, mask: u32) {
    if !any_marks() {
        return;
    }
    if let Some(node) = marked_node(node) {
        let _ = handle_ex(&node, b"", NO_MOUNT, mask, None);
    }
}

/// The directory holding absolute `path`, its path, and the name there.
fn parent_of(path: &[u8]) -> Option<(Arc<dyn Inode>, Vec<u8>, Vec<u8>)> {
    if path.len() <= 1 {
        return None;
    }
    let slash = path.iter().rposition(|&b| b == b'/')?;
    let dir_path = &path[..slash.max(1)];
    let name = &path[slash + 1..];
    if name.is_empty() {
        return None;
    }
    let thread = crate::process::current()?;
    let fs = thread.process.fs.lock().clone();
    let dir = fs.lookup(&kevlar_vfs::Credentials::root(), None, dir_path, kevlar_vfs::WalkFlags::EMPTY).ok()?;
    Some((dir, dir_path.to_vec(), name.to_vec()))
}

fn file_object(file: &OpenFile) -> Option<Arc<dyn Inode>> {
    if file.flags() & abi::O_PATH != 0 {
        return None;
    }
    file.ops.inode()
}

/// An event about an open file (open, read, write, close).
pub fn file_event(file: &OpenFile, mask: u32) {
    if !any_marks() {
        return;
    }
    if let Some(node) = file_object(file) {
        let _ = handle(&node, &file.path, file.mount_id(), mask);
    }
}

/// Before a file is opened (FAN_OPEN_PERM; FAN_OPEN_EXEC_PERM first for
/// a program exec opens): EPERM if a listener denies it.
pub fn open_permission(node: &Arc<dyn Inode>, path: &[u8], mnt: MountId, exec: bool) -> Result<()> {
    if !any_marks() {
        return Ok(());
    }
    if exec {
        handle(node, path, mnt, FAN_OPEN_EXEC_PERM)?;
    }
    handle(node, path, mnt, FAN_OPEN_PERM)
}

/// Before an open file is read (FAN_ACCESS_PERM).
pub fn read_permission(file: &OpenFile) -> Result<()> {
    if !any_marks() {
        return Ok(());
    }
    match file_object(file) {
        Some(node) => handle(&node, &file.path, file.mount_id(), FAN_ACCESS_PERM),
        None => Ok(()),
    }
}

/// A program was opened by exec (FAN_OPEN | FAN_OPEN_EXEC).
pub fn exec_opened(node: &Arc<dyn Inode>, path: &[u8], mnt: MountId) {
    if any_marks() {
        let _ = handle(node, path, mnt, FAN_OPEN | FAN_OPEN_EXEC);
    }
}

/// Whether a mark on something of file system type `kind` may ask for
/// permission events (procfs may not, as Linux's FS_DISALLOW_NOTIFY_PERM).
pub fn perm_allowed_on(mount: &crate::fs::mount::Mount) -> bool {
    !matches!(mount.kind, crate::fs::mount::FsKind::Proc)
}

/// Whether `node` is open for writing somewhere (an ignore mask that does
/// not survive modification is then not added, as on Linux).
pub fn open_for_write(node: &dyn Inode) -> bool {
    let id = (node.fs_id(), node.ino());
    for process in crate::process::all_processes() {
        let Some(outer) = process.files.try_lock() else { continue };
        let files = outer.clone();
        drop(outer);
        let Some(table) = files.try_lock() else { continue };
        if table.iter().any(|(_, f, _)| f.writable() && f.ops.inode().is_some_and(|i| (i.fs_id(), i.ino()) == id)) {
            return true;
        }
    }
    false
}
