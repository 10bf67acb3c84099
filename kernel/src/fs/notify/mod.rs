//! inotify (Linux's fs/notify/inotify): watches on inodes and the events
//! the file operations report to them.
//!
//! The VFS sites call the hooks below after an operation succeeds (open,
//! read, write and close of inode files in `fs/file.rs` and `fs/mod.rs`;
//! the directory operations, attribute changes and truncation where the
//! system calls perform them). Each hook first reads one global counter
//! and returns at once when nothing is watched.
//!
//! An event about an inode goes to the watches on it (no name) and, for
//! the events Linux reports to parents, to the watches on the directory
//! holding it (with its name). Kevlar has no dentries, so that directory
//! is found among the watched directories of the same file system by the
//! inode number of their entries, or else from the path the file was
//! opened by (a file unlinked while open).

pub mod fanotify;
pub mod fanotify_abi;
mod fanotify_fid;
pub mod inotify;

use alloc::collections::BTreeMap;
use alloc::sync::{Arc, Weak};
use alloc::vec::Vec;
use core::sync::atomic::{AtomicU32, AtomicUsize, Ordering};

use kevlar_platform::sync::SpinLock;
use kevlar_vfs::{FileType, Inode};
use linux_raw_sys::general as abi;

use crate::error::{Errno, Result};
use crate::fs::file::OpenFile;
use inotify::{Event, Inotify};

/// Events a directory watch hears about its entries (Linux's
/// FS_EVENTS_POSS_ON_CHILD plus the directory-entry events).
const CHILD_EVENTS: u32 = abi::IN_ACCESS | abi::IN_MODIFY | abi::IN_ATTRIB | abi::IN_CLOSE_WRITE | abi::IN_CLOSE_NOWRITE | abi::IN_OPEN;

/// Every bit inotify knows (Linux's ALL_INOTIFY_BITS): a mask with none
/// of them asks for nothing (EINVAL); other bits are ignored.
const ALL_INOTIFY_BITS: u32 = abi::IN_ALL_EVENTS | abi::IN_UNMOUNT | abi::IN_Q_OVERFLOW | abi::IN_IGNORED | abi::IN_ONLYDIR | abi::IN_DONT_FOLLOW | abi::IN_EXCL_UNLINK | abi::IN_MASK_CREATE | abi::IN_MASK_ADD | abi::IN_ISDIR | abi::IN_ONESHOT;

struct Watch {
    group: Weak<Inotify>,
    wd: i32,
    mask: u32,
}

struct Watched {
    /// The watch keeps the inode (Linux's mark holds a reference).
    node: Arc<dyn Inode>,
    watches: Vec<Watch>,
}

/// Watched inodes by (file-system id, inode number).
static WATCHED: SpinLock<BTreeMap<(u64, u64), Watched>> = SpinLock::new(BTreeMap::new());
/// How many inodes are watched, and how many of them are directories:
/// the hooks' fast path.
static WATCHED_COUNT: AtomicUsize = AtomicUsize::new(0);
static WATCHED_DIRS: AtomicUsize = AtomicUsize::new(0);
/// Live instances by address (an `OpenFile` holds each as `dyn FileOps`).
static INSTANCES: SpinLock<BTreeMap<usize, Weak<Inotify>>> = SpinLock::new(BTreeMap::new());
/// Instances and watches per real uid.
static PER_USER: SpinLock<BTreeMap<u32, (u32, u32)>> = SpinLock::new(BTreeMap::new());
/// Rename cookies.
static COOKIE: AtomicU32 = AtomicU32::new(0);

fn id_of(node: &dyn Inode) -> (u64, u64) {
    (node.fs_id(), node.ino())
}

fn is_dir(node: &dyn Inode) -> bool {
    node.file_type() == FileType::Directory
}

fn nlink(node: &dyn Inode) -> u64 {
    node.stat().map_or(1, |s| s.nlink as u64)
}

#[inline]
fn anything_watched() -> bool {
    WATCHED_COUNT.load(Ordering::Acquire) != 0
}

// --- instances and watches ---------------------------------------------------

/// inotify_init1: a new instance for real uid `uid` (EMFILE past
/// max_user_instances).
pub fn new_instance(uid: u32) -> Result<Arc<Inotify>> {
    {
        let mut users = PER_USER.lock();
        let entry = users.entry(uid).or_insert((0, 0));
        if entry.0 >= inotify::MAX_USER_INSTANCES.load(Ordering::Relaxed) {
            return Err(Errno::EMFILE);
        }
        entry.0 += 1;
    }
    let instance = Arc::new(Inotify::new(uid));
    INSTANCES.lock().insert(Arc::as_ptr(&instance) as usize, Arc::downgrade(&instance));
    Ok(instance)
}

fn instance_arc(group: &Inotify) -> Option<Arc<Inotify>> {
    INSTANCES.lock().get(&(group as *const Inotify as usize)).and_then(Weak::upgrade)
}

/// The instance's file closed: its watches go, without events.
fn instance_closed(group: &Inotify) {
    let ids: Vec<(u64, u64)> = group.state.lock().wds.values().copied().collect();
    {
        let mut watched = WATCHED.lock();
        for id in ids {
            remove_watch_locked(&mut watched, id, group as *const Inotify);
        }
    }
    INSTANCES.lock().remove(&(group as *const Inotify as usize));
    let mut users = PER_USER.lock();
    if let Some(entry) = users.get_mut(&group.uid) {
        entry.0 = entry.0.saturating_sub(1);
    }
}

/// Drops `group`'s watch on `id` from the table (the caller queues
/// IN_IGNORED if it must); returns its wd.
fn remove_watch_locked(watched: &mut BTreeMap<(u64, u64), Watched>, id: (u64, u64), group: *const Inotify) -> Option<i32> {
    let entry = watched.get_mut(&id)?;
    let pos = entry.watches.iter().position(|w| w.group.as_ptr() == group)?;
    let watch = entry.watches.remove(pos);
    if entry.watches.is_empty() {
        let dir = is_dir(&*entry.node);
        watched.remove(&id);
        WATCHED_COUNT.fetch_sub(1, Ordering::Release);
        if dir {
            WATCHED_DIRS.fetch_sub(1, Ordering::Release);
        }
    }
    if let Some(group) = watch.group.upgrade() {
        group.state.lock().wds.remove(&watch.wd);
        let mut users = PER_USER.lock();
        if let Some(entry) = users.get_mut(&group.uid) {
            entry.1 = entry.1.saturating_sub(1);
        }
    }
    Some(watch.wd)
}

/// inotify_add_watch on a node already looked up (IN_ONLYDIR and
/// IN_DONT_FOLLOW were applied by the walk). Returns the watch descriptor.
pub fn add_watch(group: &Inotify, node: &Arc<dyn Inode>, mask: u32) -> Result<i32> {
    let arc = instance_arc(group).ok_or(Errno::EBADF)?;
    let id = id_of(&**node);
    let mut watched = WATCHED.lock();
    if let Some(entry) = watched.get_mut(&id) {
        if let Some(watch) = entry.watches.iter_mut().find(|w| w.group.as_ptr() == group as *const Inotify) {
            if mask & abi::IN_MASK_CREATE != 0 {
                return Err(Errno::EEXIST);
            }
            watch.mask = if mask & abi::IN_MASK_ADD != 0 { watch.mask | mask } else { mask };
            return Ok(watch.wd);
        }
    }
    {
        let mut users = PER_USER.lock();
        let entry = users.entry(group.uid).or_insert((0, 0));
        if entry.1 >= inotify::MAX_USER_WATCHES.load(Ordering::Relaxed) {
            return Err(Errno::ENOSPC);
        }
        entry.1 += 1;
    }
    let wd = {
        let mut state = group.state.lock();
        let wd = Inotify::alloc_wd(&mut state);
        state.wds.insert(wd, id);
        wd
    };
    let entry = watched.entry(id).or_insert_with(|| {
        WATCHED_COUNT.fetch_add(1, Ordering::Release);
        if is_dir(&**node) {
            WATCHED_DIRS.fetch_add(1, Ordering::Release);
        }
        Watched { node: node.clone(), watches: Vec::new() }
    });
    entry.watches.push(Watch { group: Arc::downgrade(&arc), wd, mask: mask & ALL_INOTIFY_BITS & !(abi::IN_MASK_ADD | abi::IN_MASK_CREATE) });
    Ok(wd)
}

/// Checks add_watch's mask (EINVAL), before the path is looked at.
pub fn check_mask(mask: u32) -> Result<()> {
    if mask & abi::IN_MASK_ADD != 0 && mask & abi::IN_MASK_CREATE != 0 {
        return Err(Errno::EINVAL);
    }
    if mask & ALL_INOTIFY_BITS == 0 {
        return Err(Errno::EINVAL);
    }
    Ok(())
}

/// inotify_rm_watch: EINVAL for a descriptor the instance does not have;
/// queues IN_IGNORED.
pub fn rm_watch(group: &Inotify, wd: i32) -> Result<()> {
    let id = group.state.lock().wds.get(&wd).copied().ok_or(Errno::EINVAL)?;
    let removed = remove_watch_locked(&mut WATCHED.lock(), id, group as *const Inotify);
    if removed.is_some() {
        group.queue(Event { wd, mask: abi::IN_IGNORED, cookie: 0, name: Vec::new() });
    }
    Ok(())
}

// --- delivery ------------------------------------------------------------------

/// Queues `mask` for the watches on `id` that want it (`name` for a
/// directory's entry); one-shot watches then go with IN_IGNORED.
fn deliver(id: (u64, u64), mask: u32, cookie: u32, name: &[u8], child_unlinked: bool) {
    let mut targets: Vec<(Arc<Inotify>, i32, bool)> = Vec::new();
    {
        let watched = WATCHED.lock();
        let Some(entry) = watched.get(&id) else { return };
        for watch in &entry.watches {
            if watch.mask & mask & abi::IN_ALL_EVENTS == 0 {
                continue;
            }
            if !name.is_empty() && child_unlinked && watch.mask & abi::IN_EXCL_UNLINK != 0 {
                continue;
            }
            if let Some(group) = watch.group.upgrade() {
                targets.push((group, watch.wd, watch.mask & abi::IN_ONESHOT != 0));
            }
        }
    }
    for (group, wd, oneshot) in targets {
        group.queue(Event { wd, mask, cookie, name: name.to_vec() });
        if oneshot {
            let removed = remove_watch_locked(&mut WATCHED.lock(), id, Arc::as_ptr(&group));
            if removed.is_some() {
                group.queue(Event { wd, mask: abi::IN_IGNORED, cookie: 0, name: Vec::new() });
            }
        }
    }
}

/// The watched directory of `node`'s file system that holds it, and its
/// name there; else the directory and name of `path` (an absolute path
/// the node was opened by), when that directory is watched.
fn find_parent(node: &dyn Inode, path: Option<&[u8]>) -> Option<((u64, u64), Vec<u8>)> {
    if WATCHED_DIRS.load(Ordering::Acquire) == 0 {
        return None;
    }
    let (fs_id, ino) = id_of(node);
    let dirs: Vec<((u64, u64), Arc<dyn Inode>)> = WATCHED
        .lock()
        .iter()
        .filter(|(id, w)| id.0 == fs_id && is_dir(&*w.node))
        .map(|(id, w)| (*id, w.node.clone()))
        .collect();
    for (id, dir) in &dirs {
        if id.1 == ino {
            continue;
        }
        let mut index = 0;
        while let Ok(Some((entry, next))) = dir.read_dir(index) {
            if entry.ino == ino && entry.name != b"." && entry.name != b".." {
                return Some((*id, entry.name));
            }
            index = next;
        }
    }
    let path = path?;
    let slash = path.iter().rposition(|&b| b == b'/')?;
    let (dir_path, name) = (&path[..slash.max(1)], &path[slash + 1..]);
    if name.is_empty() {
        return None;
    }
    let thread = crate::process::current()?;
    let fs = thread.process.fs.lock().clone();
    let dir = fs.lookup(&kevlar_vfs::Credentials::root(), None, dir_path, kevlar_vfs::WalkFlags::EMPTY).ok()?;
    let id = id_of(&*dir);
    dirs.iter().any(|(d, _)| *d == id).then(|| (id, name.to_vec()))
}

/// An event about `node` itself: to its parent's watches (with its name)
/// for the events Linux reports there, then to its own. `path` is the
/// path it was opened by, if known.
fn inode_event(node: &dyn Inode, mask: u32, path: Option<&[u8]>) {
    let dir_bit = if is_dir(node) { abi::IN_ISDIR } else { 0 };
    if mask & CHILD_EVENTS != 0 {
        if let Some((parent, name)) = find_parent(node, path) {
            deliver(parent, mask | dir_bit, 0, &name, nlink(node) == 0);
        }
    }
    deliver(id_of(node), mask | dir_bit, 0, b"", false);
}

/// `node` is gone (no link, no user left): IN_DELETE_SELF, then its
/// watches go with IN_IGNORED.
fn gone(node: &dyn Inode) {
    let id = id_of(node);
    deliver(id, abi::IN_DELETE_SELF, 0, b"", false);
    drop_watches(&[id], 0);
}

/// Every watch on inodes of `ids` goes with `mask` (if any: it reaches a
/// watch whatever its mask) and then IN_IGNORED.
fn drop_watches(ids: &[(u64, u64)], mask: u32) {
    for &id in ids {
        let groups: Vec<(Arc<Inotify>, i32, u32)> = {
            let mut watched = WATCHED.lock();
            let groups: Vec<_> = match watched.get(&id) {
                Some(entry) => {
                    let dir_bit = if is_dir(&*entry.node) { abi::IN_ISDIR } else { 0 };
                    entry.watches.iter().filter_map(|w| Some((w.group.upgrade()?, w.wd, dir_bit))).collect()
                }
                None => continue,
            };
            for (group, _, _) in &groups {
                remove_watch_locked(&mut watched, id, Arc::as_ptr(group));
            }
            groups
        };
        for (group, wd, dir_bit) in groups {
            if mask != 0 {
                group.queue(Event { wd, mask: mask | dir_bit, cookie: 0, name: Vec::new() });
            }
            group.queue(Event { wd, mask: abi::IN_IGNORED, cookie: 0, name: Vec::new() });
        }
    }
}

/// File system `fs_id` was unmounted (its last mount): every watch on it
/// gets IN_UNMOUNT, then IN_IGNORED.
pub fn unmounted(fs_id: u64) {
    if !anything_watched() {
        return;
    }
    let ids: Vec<(u64, u64)> = WATCHED.lock().keys().filter(|id| id.0 == fs_id).copied().collect();
    drop_watches(&ids, abi::IN_UNMOUNT);
}

/// Whether some open file (in any fd table) still refers to `node`.
/// Files are released with their table locked (close_range, exec's
/// close-on-exec), so a table that is busy is passed over rather than
/// waited for: this CPU may be the one holding it.
fn still_open(node: &dyn Inode) -> bool {
    let id = id_of(node);
    for process in crate::process::all_processes() {
        let Some(outer) = process.files.try_lock() else { continue };
        let files = outer.clone();
        drop(outer);
        let Some(table) = files.try_lock() else { continue };
        if table.iter().any(|(_, f, _)| f.ops.inode().is_some_and(|i| id_of(&*i) == id)) {
            return true;
        }
    }
    false
}

/// After `node` lost a link: gone if that was its last (a removed
/// directory has none) and nothing has it open.
fn maybe_gone(node: &dyn Inode) {
    if WATCHED.lock().contains_key(&id_of(node)) && (is_dir(node) || nlink(node) == 0) && !still_open(node) {
        gone(node);
    }
}

// --- hooks ---------------------------------------------------------------------

/// A file was opened (inotify; fanotify hears it from [`file_opened`],
/// once the open file knows its mount).
pub fn opened(file: &OpenFile, node: &dyn Inode) {
    if anything_watched() {
        inode_event(node, abi::IN_OPEN, Some(&file.path));
    }
}

/// A file was opened (fanotify's FAN_OPEN).
pub fn file_opened(file: &OpenFile) {
    fanotify::file_event(file, fanotify_abi::FAN_OPEN);
}

/// Before a node is opened: fanotify's permission events (EPERM when a
/// listener denies).
pub fn open_permission(node: &Arc<dyn Inode>, path: &[u8], mnt: kevlar_vfs::MountId, exec: bool) -> Result<()> {
    fanotify::open_permission(node, path, mnt, exec)
}

/// Before an open file is read: fanotify's FAN_ACCESS_PERM.
pub fn read_permission(file: &OpenFile) -> Result<()> {
    fanotify::read_permission(file)
}

/// exec opened a program (FAN_OPEN | FAN_OPEN_EXEC).
pub fn exec_opened(node: &Arc<dyn Inode>, path: &[u8], mnt: kevlar_vfs::MountId) -> ExecFile {
    fanotify::exec_opened(node, path, mnt);
    // inotify sees exec open the file and read its headers (Linux's
    // kernel_read reports the access).
    if anything_watched() {
        inode_event(&**node, abi::IN_OPEN, Some(path));
        inode_event(&**node, abi::IN_ACCESS, Some(path));
    }
    ExecFile { node: node.clone(), path: path.to_vec() }
}

/// A file exec opened (the program, a script's interpreter, the ELF
/// interpreter): Linux's struct file stays open as long as something maps
/// it, so inotify's IN_CLOSE_NOWRITE comes when this goes with the address
/// space (a script itself is closed once its interpreter is open).
pub struct ExecFile {
    node: Arc<dyn Inode>,
    path: Vec<u8>,
}

impl Drop for ExecFile {
    fn drop(&mut self) {
        if anything_watched() {
            inode_event(&*self.node, abi::IN_CLOSE_NOWRITE, Some(&self.path));
        }
    }
}

/// Data was read from an open file.
pub fn accessed(file: &OpenFile, node: &dyn Inode) {
    fanotify::file_event(file, fanotify_abi::FAN_ACCESS);
    if anything_watched() {
        inode_event(node, abi::IN_ACCESS, Some(&file.path));
    }
}

/// Data was written to an open file.
pub fn modified(file: &OpenFile, node: &dyn Inode) {
    fanotify::file_event(file, fanotify_abi::FAN_MODIFY);
    if anything_watched() {
        inode_event(node, abi::IN_MODIFY, Some(&file.path));
    }
}

/// The last reference to an open file went.
pub fn closed(file: &OpenFile, node: &dyn Inode) {
    if file.flags() & abi::O_PATH == 0 {
        let mask = if file.writable() { fanotify_abi::FAN_CLOSE_WRITE } else { fanotify_abi::FAN_CLOSE_NOWRITE };
        fanotify::file_event(file, mask);
        if fanotify::any_marks() && nlink(node) == 0 && !still_open(node) {
            fanotify::inode_event(node, fanotify_abi::FAN_DELETE_SELF);
        }
    }
    if !anything_watched() || file.flags() & abi::O_PATH != 0 {
        return;
    }
    let mask = if file.writable() { abi::IN_CLOSE_WRITE } else { abi::IN_CLOSE_NOWRITE };
    inode_event(node, mask, Some(&file.path));
    if nlink(node) == 0 {
        maybe_gone(node);
    }
}

/// A file's size was changed by truncate, ftruncate or O_TRUNC.
pub fn truncated(node: &dyn Inode) {
    if anything_watched() {
        inode_event(node, abi::IN_MODIFY, None);
    }
}

/// A file's attributes (mode, owner, times) changed.
pub fn attributes_changed(node: &dyn Inode) {
    fanotify::inode_event(node, fanotify_abi::FAN_ATTRIB);
    if anything_watched() {
        inode_event(node, abi::IN_ATTRIB, None);
    }
}

/// `name` was made in `dir` (a file, directory, node or symlink).
pub fn created(dir: &Arc<dyn Inode>, name: &[u8], node_is_dir: bool) {
    fanotify::dirent_event(dir, fanotify_abi::FAN_CREATE, name, node_is_dir, None);
    if anything_watched() {
        let mask = abi::IN_CREATE | if node_is_dir { abi::IN_ISDIR } else { 0 };
        deliver(id_of(&**dir), mask, 0, name, false);
    }
}

/// `name` in `dir` became a new link to `node`.
pub fn linked(dir: &Arc<dyn Inode>, name: &[u8], node: &Arc<dyn Inode>) {
    fanotify::node_event(node, fanotify_abi::FAN_ATTRIB);
    fanotify::dirent_event(dir, fanotify_abi::FAN_CREATE, name, false, None);
    if anything_watched() {
        deliver(id_of(&**node), abi::IN_ATTRIB, 0, b"", false);
        deliver(id_of(&**dir), abi::IN_CREATE, 0, name, false);
    }
}

/// Looks up what `name` in `dir` is before it is removed or replaced,
/// only when something is watched (the hooks need it afterwards).
pub fn victim(dir: &dyn Inode, name: &[u8]) -> Option<Arc<dyn Inode>> {
    if anything_watched() || fanotify::any_marks() { dir.lookup(name).ok() } else { None }
}

/// `name` (the node `victim`) was removed from `dir` by unlink or rmdir.
pub fn removed(dir: &Arc<dyn Inode>, name: &[u8], victim: Option<Arc<dyn Inode>>) {
    let Some(victim) = victim else { return };
    let victim_is_dir = is_dir(&*victim);
    if !victim_is_dir {
        fanotify::node_event(&victim, fanotify_abi::FAN_ATTRIB);
        deliver(id_of(&*victim), abi::IN_ATTRIB, 0, b"", false);
    }
    if fanotify::any_marks() && (victim_is_dir || nlink(&*victim) == 0) && !still_open(&*victim) {
        fanotify::node_event(&victim, fanotify_abi::FAN_DELETE_SELF);
    }
    maybe_gone(&*victim);
    fanotify::dirent_event(dir, fanotify_abi::FAN_DELETE, name, victim_is_dir, Some(victim.clone()));
    let mask = abi::IN_DELETE | if victim_is_dir { abi::IN_ISDIR } else { 0 };
    deliver(id_of(&**dir), mask, 0, name, false);
}

/// `source` moved from `old_name` in `old_dir` to `new_name` in
/// `new_dir`, replacing `target` if there was one.
pub fn moved(old_dir: &Arc<dyn Inode>, old_name: &[u8], new_dir: &Arc<dyn Inode>, new_name: &[u8], source: Option<Arc<dyn Inode>>, target: Option<Arc<dyn Inode>>) {
    let Some(source) = source else { return };
    let cookie = loop {
        let c = COOKIE.fetch_add(1, Ordering::Relaxed).wrapping_add(1);
        if c != 0 {
            break c;
        }
    };
    let dir_bit = if is_dir(&*source) { abi::IN_ISDIR } else { 0 };
    fanotify::rename_event(old_dir, old_name, new_dir, new_name, &source);
    fanotify::dirent_event(old_dir, fanotify_abi::FAN_MOVED_FROM, old_name, dir_bit != 0, Some(source.clone()));
    fanotify::dirent_event(new_dir, fanotify_abi::FAN_MOVED_TO, new_name, dir_bit != 0, Some(source.clone()));
    if let Some(target) = &target {
        if !kevlar_vfs::same_inode(&**target, &*source) && !is_dir(&**target) {
            fanotify::node_event(target, fanotify_abi::FAN_ATTRIB);
        }
    }
    fanotify::node_event(&source, fanotify_abi::FAN_MOVE_SELF);
    deliver(id_of(&**old_dir), abi::IN_MOVED_FROM | dir_bit, cookie, old_name, false);
    deliver(id_of(&**new_dir), abi::IN_MOVED_TO | dir_bit, cookie, new_name, false);
    if let Some(target) = &target {
        if !kevlar_vfs::same_inode(&**target, &*source) {
            deliver(id_of(&**target), abi::IN_ATTRIB, 0, b"", false);
        }
    }
    deliver(id_of(&*source), abi::IN_MOVE_SELF | dir_bit, 0, b"", false);
    if let Some(target) = target {
        if !kevlar_vfs::same_inode(&*target, &*source) {
            maybe_gone(&*target);
        }
    }
}
