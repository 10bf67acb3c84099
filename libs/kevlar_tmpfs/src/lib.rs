//! tmpfs: a file system kept entirely in memory.
//!
//! [`TmpFs::new`] builds an empty file system whose [`TmpFs::root`] is a
//! directory; every node implements [`kevlar_vfs::Inode`]. Directories,
//! regular files, symlinks, and fifos, device nodes and sockets (stored as
//! plain typed nodes: the kernel attaches behaviour to them by type) are
//! supported.
//!
//! - **File data** lives in 4 KiB pages kept in an ordered map by page
//!   index, so a file needs no contiguous allocation larger than a page,
//!   holes cost nothing and read as zeros, and only written pages are
//!   allocated (`st_blocks` counts them). Bytes past the end of a file are
//!   always zero in the stored pages, so growing a file never exposes old
//!   data.
//! - **Directories** keep their entries in name order for lookup and give
//!   each entry a cookie, increasing with insertion. [`Inode::read_dir`]
//!   lists them newest first, as Linux 6.1's tmpfs does (its `d_subdirs`
//!   list takes new entries at the head; `ls -f` shows it), and its
//!   position is derived from the cookie so that it survives changes.
//!   Guarantee: during one iteration, every name that is present for the
//!   whole iteration is returned exactly once, whatever is added or removed
//!   between calls; an entry added meanwhile is not returned (it is ahead
//!   of the position, as on Linux), a removed one is not returned after its
//!   removal, and a renamed entry counts as removed and added (so it is
//!   listed first afterwards; after an exchange the new name comes first,
//!   then the old one, as Linux's `d_exchange` moves both to the head).
//! - **Limits**: names of at most [`kevlar_vfs::NAME_MAX`] bytes
//!   (ENAMETOOLONG), files of at most [`TmpFsOptions::max_file_size`] bytes
//!   (EFBIG), optional page and inode budgets (ENOSPC), a hard-link limit
//!   (EMLINK).
//! - **Timestamps** come from the [`Clock`] given at construction: creation
//!   sets all three; writes and truncation set mtime and ctime; adding or
//!   removing entries sets the directory's mtime and ctime; link count and
//!   attribute changes set ctime; reads of files, directories and symlinks
//!   update atime with Linux's `relatime` rule (only when atime is not newer
//!   than mtime or ctime, or is a day old).
//! - **Lifetime**: nodes are reference counted, so a file unlinked while
//!   open keeps its data until the last reference goes. Tearing down a deep
//!   tree is iterative, so it cannot overflow a kernel stack.
//!
//! Locking: each directory's entries and each file's data have a
//! reader-writer lock, each node's metadata a mutex. Locks are taken in the
//! order rename lock, directory entries (ancestor before descendant,
//! unrelated directories by inode number), file data, metadata; metadata
//! mutexes are never held while taking another lock. Renames are serialised
//! per file system, which keeps parent pointers stable while rename checks
//! that a directory is not moved into its own subtree.

#![cfg_attr(not(test), no_std)]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

extern crate alloc;

use alloc::collections::btree_map::{BTreeMap, Entry};
use alloc::collections::BTreeSet;
use alloc::sync::{Arc, Weak};
use alloc::vec::Vec;
use core::any::Any;
use core::mem;
use core::sync::atomic::{AtomicU64, Ordering};

use kevlar_vfs::{
    DataPage, DirEntryRef, HeapPages, PageSource,
    Clock, DirEntry, Errno, FileType, Inode, RenameFlags, Result, SetAttr, Stat, Timespec,
    NAME_MAX, PATH_MAX,
};
use linux_raw_sys::general as g;
use spin::{Mutex, RwLock};

/// Size of one page of file data, and the `st_blksize` tmpfs reports.
pub const PAGE_SIZE: usize = kevlar_vfs::PAGE_SIZE;

/// Default largest file size: 1 TiB.
pub const DEFAULT_MAX_FILE_SIZE: u64 = 1 << 40;

/// `st_blocks` counts 512-byte units whatever the block size (stat(2)).
const STAT_BLOCK_SIZE: u64 = 512;

/// Linux's tmpfs reports a directory's size as this many bytes per entry
/// (counting `.` and `..`); programs only compare it with zero, but matching
/// Linux keeps test suites' expectations.
const BOGO_DIRENT_SIZE: u64 = 20;

/// Every bit of a mode except the type: permissions, setuid, setgid, sticky.
const PERM_MASK: u32 = g::S_ISUID | g::S_ISGID | g::S_ISVTX | g::S_IRWXU | g::S_IRWXG | g::S_IRWXO;

/// `read_dir` positions 0 and 1 are `.` and `..`; entry cookies start here.
const FIRST_COOKIE: u64 = 2;

/// The entries are listed by decreasing cookie: the entry with cookie `c`
/// sits at position `2 + (LAST_COOKIE - c)`, so position 2 is the newest
/// and a position stays meaningful when entries come and go. Cookies never
/// reach this (one per insertion).
const LAST_COOKIE: u64 = 1 << 62;

/// The highest cookie listed from position `pos` (at least 2) on, None
/// when the position is past every cookie.
fn cookie_limit(pos: usize) -> Option<u64> {
    let back = u64::try_from(pos).ok()?.checked_sub(2)?;
    LAST_COOKIE.checked_sub(back)
}

/// The position after the entry with cookie `cookie`.
fn position_after(cookie: u64) -> Result<usize> {
    let pos = LAST_COOKIE.checked_sub(cookie).and_then(|b| b.checked_add(3)).ok_or(Errno::EOVERFLOW)?;
    usize::try_from(pos).map_err(|_| Errno::EOVERFLOW)
}

/// relatime refreshes an access time at least this often (seconds).
const RELATIME_MAX_AGE: i64 = 24 * 60 * 60;

/// Source of device numbers for file systems created without one.
static NEXT_DEV: AtomicU64 = AtomicU64::new(1);

/// Settings of a tmpfs instance; [`TmpFsOptions::default`] gives an
/// unlimited file system with a world-writable sticky root, like `/tmp`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TmpFsOptions {
    /// Device number reported as `st_dev` and by [`Inode::fs_id`]; `None`
    /// takes the next number of a counter shared by all instances.
    pub dev: Option<u64>,
    /// Permission bits of the root directory.
    pub root_mode: u32,
    /// Owner of the root directory.
    pub root_uid: u32,
    /// Group of the root directory.
    pub root_gid: u32,
    /// Largest file size; writes and truncation beyond it fail with EFBIG.
    pub max_file_size: u64,
    /// Most data pages the file system may hold (ENOSPC beyond); `None` for
    /// no limit but memory.
    pub max_pages: Option<u64>,
    /// Most nodes the file system may hold, root included (ENOSPC beyond).
    pub max_inodes: Option<u64>,
    /// Most hard links to one node (EMLINK beyond); for directories this
    /// bounds 2 + subdirectories.
    pub max_links: u32,
    /// Regular files take data only through mappings: write(2) and its
    /// kin fail with EINVAL (hugetlbfs, whose files have no write_iter).
    pub no_write: bool,
}

impl Default for TmpFsOptions {
    fn default() -> Self {
        TmpFsOptions {
            dev: None,
            root_mode: g::S_IRWXU | g::S_IRWXG | g::S_IRWXO | g::S_ISVTX,
            root_uid: 0,
            root_gid: 0,
            max_file_size: DEFAULT_MAX_FILE_SIZE,
            max_pages: None,
            max_inodes: None,
            max_links: u32::MAX,
            no_write: false,
        }
    }
}

/// How much of its budgets a tmpfs instance uses, for `statfs`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TmpFsUsage {
    /// Data pages allocated.
    pub pages: u64,
    /// Nodes alive (linked or still referenced).
    pub inodes: u64,
}

/// A tmpfs instance: the root directory and the state all its nodes share.
pub struct TmpFs {
    shared: Arc<Shared>,
    root: Arc<TmpInode>,
}

/// State every node of one instance refers to. Nodes hold this rather than
/// the [`TmpFs`], so the root holding its file system cannot form a cycle.
struct Shared {
    clock: Arc<dyn Clock>,
    dev: u64,
    root_ino: u64,
    next_ino: AtomicU64,
    /// Serialises renames, so the ancestor checks and lock ordering of one
    /// rename see parent pointers no other rename is changing.
    rename_lock: Mutex<()>,
    max_file_size: u64,
    /// The page and node budgets ([`NO_LIMIT`]: none); a remount may
    /// change them.
    max_pages: AtomicU64,
    max_inodes: AtomicU64,
    max_links: u32,
    no_write: bool,
    pages: AtomicU64,
    inodes: AtomicU64,
    /// Where file data pages come from (physical frames in the kernel).
    page_source: Arc<dyn PageSource>,
}

/// A budget of [`Shared`] that is not limited.
const NO_LIMIT: u64 = u64::MAX;

fn limit_of(budget: &AtomicU64) -> Option<u64> {
    match budget.load(Ordering::Acquire) {
        NO_LIMIT => None,
        max => Some(max),
    }
}

impl Shared {
    /// Counts one more unit against `counter`, failing with ENOSPC at
    /// `budget`'s limit.
    fn charge(counter: &AtomicU64, budget: &AtomicU64) -> Result<()> {
        let limit = limit_of(budget);
        counter
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |used| match limit {
                Some(max) if used >= max => None,
                _ => Some(used + 1),
            })
            .map(|_| ())
            .map_err(|_| Errno::ENOSPC)
    }

    fn now(&self) -> Timespec {
        self.clock.now()
    }
}

impl TmpFs {
    /// Creates an empty tmpfs with default options, reading time from `clock`.
    pub fn new(clock: Arc<dyn Clock>) -> Arc<TmpFs> {
        TmpFs::with_options(clock, TmpFsOptions::default())
    }

    /// Creates an empty tmpfs with the given options.
    pub fn with_options(clock: Arc<dyn Clock>, options: TmpFsOptions) -> Arc<TmpFs> {
        TmpFs::with_page_source(clock, options, Arc::new(HeapPages))
    }

    /// Creates an empty tmpfs whose file data lives in pages from `pages`
    /// (the kernel passes frames it can map into user space).
    pub fn with_page_source(clock: Arc<dyn Clock>, options: TmpFsOptions, pages: Arc<dyn PageSource>) -> Arc<TmpFs> {
        let dev = options
            .dev
            .unwrap_or_else(|| NEXT_DEV.fetch_add(1, Ordering::Relaxed));
        let root_ino = 1;
        let shared = Arc::new(Shared {
            clock,
            dev,
            root_ino,
            next_ino: AtomicU64::new(root_ino + 1),
            rename_lock: Mutex::new(()),
            max_file_size: options.max_file_size,
            max_pages: AtomicU64::new(options.max_pages.unwrap_or(NO_LIMIT)),
            max_inodes: AtomicU64::new(options.max_inodes.unwrap_or(NO_LIMIT)),
            max_links: options.max_links,
            no_write: options.no_write,
            pages: AtomicU64::new(0),
            // The root always exists, whatever the inode budget says.
            inodes: AtomicU64::new(1),
            page_source: pages,
        });
        let now = shared.now();
        let root = Arc::new_cyclic(|this| TmpInode {
            shared: shared.clone(),
            ino: root_ino,
            this: this.clone(),
            kind: Kind::Dir(Dir::new(Weak::new())),
            meta: Mutex::new(Meta {
                perm: options.root_mode & PERM_MASK,
                uid: options.root_uid,
                gid: options.root_gid,
                nlink: 2,
                atime: now,
                mtime: now,
                ctime: now,
            }),
        });
        Arc::new(TmpFs { shared, root })
    }

    /// Returns the root directory.
    pub fn root(&self) -> Arc<dyn Inode> {
        self.root.clone()
    }

    /// Returns the device number of this instance (its [`Inode::fs_id`]).
    pub fn dev(&self) -> u64 {
        self.shared.dev
    }

    /// The page and node budgets (`None`: not limited).
    pub fn limits(&self) -> (Option<u64>, Option<u64>) {
        (limit_of(&self.shared.max_pages), limit_of(&self.shared.max_inodes))
    }

    /// Changes the page budget and the node budget (each when `Some`;
    /// `Some(None)` lifts it), as a remount of tmpfs with `size=` and
    /// `nr_inodes=` does: EINVAL, changing nothing, when a budget would be
    /// set below what is in use or put on one that was unlimited.
    pub fn set_limits(&self, pages: Option<Option<u64>>, inodes: Option<Option<u64>>) -> Result<()> {
        let usage = self.usage();
        let check = |new: Option<Option<u64>>, budget: &AtomicU64, used: u64| match new {
            Some(Some(max)) if limit_of(budget).is_none() || max < used => Err(Errno::EINVAL),
            _ => Ok(()),
        };
        check(pages, &self.shared.max_pages, usage.pages)?;
        check(inodes, &self.shared.max_inodes, usage.inodes)?;
        if let Some(max) = pages {
            self.shared.max_pages.store(max.unwrap_or(NO_LIMIT), Ordering::Release);
        }
        if let Some(max) = inodes {
            self.shared.max_inodes.store(max.unwrap_or(NO_LIMIT), Ordering::Release);
        }
        Ok(())
    }

    /// Returns the pages and nodes currently in use.
    pub fn usage(&self) -> TmpFsUsage {
        TmpFsUsage {
            pages: self.shared.pages.load(Ordering::Acquire),
            inodes: self.shared.inodes.load(Ordering::Acquire),
        }
    }
}

/// A tmpfs node. Reach it as `Arc<dyn Inode>`; the type is public only so
/// that callers can recognise tmpfs nodes through [`Inode::as_any`].
pub struct TmpInode {
    shared: Arc<Shared>,
    ino: u64,
    /// Lets `&self` methods hand out `Arc`s to the node (`lookup(".")`,
    /// parent pointers of new subdirectories).
    this: Weak<TmpInode>,
    kind: Kind,
    meta: Mutex<Meta>,
}

enum Kind {
    Dir(Dir),
    File(RwLock<FileData>),
    /// The target never changes after creation, so it needs no lock.
    Symlink(Vec<u8>),
    /// Fifos, sockets and device nodes: only a type and a device number.
    Special(FileType, u64),
}

struct Dir {
    entries: RwLock<Entries>,
    /// Weak, because the parent's entries already own this directory; only
    /// the root has none. Changed only by rename, under the rename lock.
    parent: Mutex<Weak<TmpInode>>,
}

impl Dir {
    fn new(parent: Weak<TmpInode>) -> Dir {
        Dir {
            entries: RwLock::new(Entries {
                by_name: BTreeMap::new(),
                by_cookie: BTreeMap::new(),
                next_cookie: FIRST_COOKIE,
                dead: false,
            }),
            parent: Mutex::new(parent),
        }
    }
}

struct Slot {
    cookie: u64,
    node: Arc<TmpInode>,
}

struct Entries {
    by_name: BTreeMap<Vec<u8>, Slot>,
    /// Iteration order for `read_dir`: cookies only grow, so a position
    /// stays meaningful across insertions and removals.
    by_cookie: BTreeMap<u64, Listed>,
    next_cookie: u64,
    /// Set when the directory is removed; it then accepts no new entries
    /// and lists nothing, as Linux's dead directories.
    dead: bool,
}

/// What `read_dir` lists for an entry, kept by cookie so listing needs no
/// lookup by name (inode numbers and types never change).
struct Listed {
    name: Vec<u8>,
    ino: u64,
    file_type: FileType,
}

impl Listed {
    fn new(name: &[u8], node: &TmpInode) -> Listed {
        Listed { name: name.to_vec(), ino: node.ino, file_type: node.file_type() }
    }
}

impl Entries {
    fn get(&self, name: &[u8]) -> Option<&Arc<TmpInode>> {
        self.by_name.get(name).map(|slot| &slot.node)
    }

    fn insert(&mut self, name: &[u8], node: Arc<TmpInode>) {
        let cookie = self.next_cookie;
        self.next_cookie = (self.next_cookie + 1).min(LAST_COOKIE);
        self.by_cookie.insert(cookie, Listed::new(name, &node));
        self.by_name.insert(name.to_vec(), Slot { cookie, node });
    }

    fn remove(&mut self, name: &[u8]) -> Option<Arc<TmpInode>> {
        let slot = self.by_name.remove(name)?;
        self.by_cookie.remove(&slot.cookie);
        Some(slot.node)
    }

    /// Points an existing name at another node (used by exchange, where
    /// both names stay present); the name becomes the newest entry, as
    /// Linux's `d_exchange` moves it to the head of the list.
    fn replace(&mut self, name: &[u8], node: Arc<TmpInode>) -> Option<Arc<TmpInode>> {
        let old = self.remove(name)?;
        self.insert(name, node);
        Some(old)
    }

    fn take_all(&mut self) -> impl Iterator<Item = Arc<TmpInode>> {
        self.by_cookie.clear();
        mem::take(&mut self.by_name)
            .into_values()
            .map(|slot| slot.node)
    }
}

struct FileData {
    /// Page index to page; missing pages are holes.
    pages: BTreeMap<u64, Arc<dyn DataPage>>,
    size: u64,
    /// Pages fallocate added that nothing has written yet (Linux's
    /// !uptodate shmem pages): they count in `st_blocks` but SEEK_DATA
    /// and SEEK_HOLE see holes there.
    unwritten: BTreeSet<u64>,
}

struct Meta {
    perm: u32,
    uid: u32,
    gid: u32,
    nlink: u32,
    atime: Timespec,
    mtime: Timespec,
    ctime: Timespec,
}

impl Drop for TmpInode {
    fn drop(&mut self) {
        self.shared.inodes.fetch_sub(1, Ordering::AcqRel);
        match &mut self.kind {
            Kind::File(data) => {
                let pages = data.get_mut().pages.len() as u64;
                self.shared.pages.fetch_sub(pages, Ordering::AcqRel);
            }
            Kind::Dir(dir) => {
                // Empty subdirectories before they drop, so dropping a deep
                // tree is a loop here rather than a recursion per level.
                let mut pending: Vec<Arc<TmpInode>> = dir.entries.get_mut().take_all().collect();
                while let Some(node) = pending.pop() {
                    if let Ok(mut node) = Arc::try_unwrap(node) {
                        if let Kind::Dir(child) = &mut node.kind {
                            pending.extend(child.entries.get_mut().take_all());
                        }
                    }
                }
            }
            Kind::Symlink(_) | Kind::Special(..) => {}
        }
    }
}

/// Checks a single name for entry operations; `.` and `..` are handled by
/// each operation before this, since their errors differ.
fn check_name(name: &[u8]) -> Result<()> {
    if name.is_empty() {
        return Err(Errno::ENOENT);
    }
    if name.len() > NAME_MAX {
        return Err(Errno::ENAMETOOLONG);
    }
    if name.contains(&b'/') || name.contains(&0) {
        return Err(Errno::EINVAL);
    }
    Ok(())
}

fn is_dot_or_dotdot(name: &[u8]) -> bool {
    name == b"." || name == b".."
}

/// Allocates a zeroed page, charging it to the file system's page budget.
fn alloc_page(shared: &Shared) -> Result<Arc<dyn DataPage>> {
    Shared::charge(&shared.pages, &shared.max_pages)?;
    // Memory exhaustion fails the write rather than aborting the kernel.
    shared.page_source.alloc_zeroed().ok_or_else(|| {
        shared.pages.fetch_sub(1, Ordering::AcqRel);
        Errno::ENOMEM
    })
}

/// Splits a file offset into a page index and an offset within the page.
fn page_pos(pos: u64) -> (u64, usize) {
    let page = PAGE_SIZE as u64;
    // The remainder is below PAGE_SIZE, so it fits a usize.
    (pos / page, (pos % page) as usize)
}

/// Which two entry maps a rename works on: one directory or two.
enum EntriesPair<'g> {
    Same(&'g mut Entries),
    Two {
        old: &'g mut Entries,
        new: &'g mut Entries,
    },
}

impl EntriesPair<'_> {
    fn old_dir(&mut self) -> &mut Entries {
        match self {
            EntriesPair::Same(e) => e,
            EntriesPair::Two { old, .. } => old,
        }
    }

    fn new_dir(&mut self) -> &mut Entries {
        match self {
            EntriesPair::Same(e) => e,
            EntriesPair::Two { new, .. } => new,
        }
    }
}

impl TmpInode {
    fn arc(&self) -> Result<Arc<TmpInode>> {
        // Fails only while the node is being dropped, when no method can
        // be running on it through an Arc; ESTALE rather than a panic.
        self.this.upgrade().ok_or(Errno::ESTALE)
    }

    fn is_dir(&self) -> bool {
        matches!(self.kind, Kind::Dir(_))
    }

    fn dir(&self) -> Result<&Dir> {
        match &self.kind {
            Kind::Dir(dir) => Ok(dir),
            _ => Err(Errno::ENOTDIR),
        }
    }

    fn file(&self) -> Result<&RwLock<FileData>> {
        match &self.kind {
            Kind::File(data) => Ok(data),
            Kind::Dir(_) => Err(Errno::EISDIR),
            _ => Err(Errno::EINVAL),
        }
    }

    /// Recognises `other` as a node of this same tmpfs instance.
    fn same_fs<'o>(&self, other: &'o Arc<dyn Inode>) -> Result<&'o TmpInode> {
        let node = other
            .as_any()
            .downcast_ref::<TmpInode>()
            .ok_or(Errno::EXDEV)?;
        if !Arc::ptr_eq(&node.shared, &self.shared) {
            return Err(Errno::EXDEV);
        }
        Ok(node)
    }

    fn parent(&self) -> Option<Arc<TmpInode>> {
        match &self.kind {
            Kind::Dir(dir) => dir.parent.lock().upgrade(),
            _ => None,
        }
    }

    fn set_parent(&self, parent: &TmpInode) {
        if let Kind::Dir(dir) = &self.kind {
            *dir.parent.lock() = parent.this.clone();
        }
    }

    /// Tells whether `self` is `other` or one of its ancestors. Parent
    /// pointers only change under the rename lock, so the answer is stable
    /// while the caller holds it.
    fn is_ancestor_of(&self, other: &TmpInode) -> bool {
        if self.ino == other.ino {
            return true;
        }
        let mut cur = other.parent();
        while let Some(node) = cur {
            if node.ino == self.ino {
                return true;
            }
            cur = node.parent();
        }
        false
    }

    fn update_meta(&self, f: impl FnOnce(&mut Meta)) {
        f(&mut self.meta.lock());
    }

    /// Reads up to `len` bytes at `offset` into `io`, page by page (holes
    /// as zeros); returns the count, short where `io` faulted.
    fn read_io(&self, offset: u64, len: usize, io: &mut dyn kevlar_vfs::PageIo) -> Result<usize> {
        let file = self.file()?;
        if len == 0 {
            // As Linux's filemap_read: an empty read touches nothing.
            return Ok(0);
        }
        let data = file.read();
        let len = if offset >= data.size {
            0
        } else {
            // Bounded by len, so it fits a usize.
            (data.size - offset).min(len as u64) as usize
        };
        let mut done = 0;
        while done < len {
            let (index, in_page) = page_pos(offset + done as u64);
            let n = (PAGE_SIZE - in_page).min(len - done);
            let moved = match data.pages.get(&index) {
                Some(page) => io.page(&**page, in_page, n),
                None => io.zeros(n),
            };
            done += moved;
            if moved < n {
                break;
            }
        }
        drop(data);
        self.touch_accessed();
        Ok(done)
    }

    /// Writes `len` bytes taken from `io` at `offset`; stops where `io`
    /// faults (`Ok(0)` when nothing moved).
    fn write_io(&self, offset: u64, len: usize, io: &mut dyn kevlar_vfs::PageIo) -> Result<usize> {
        let file = self.file()?;
        if self.shared.no_write {
            // Before the length: Linux refuses even an empty write.
            return Err(Errno::EINVAL);
        }
        if len == 0 {
            // As Linux: a zero-length write changes nothing, not even mtime.
            return Ok(0);
        }
        let max = self.shared.max_file_size;
        if offset >= max {
            return Err(Errno::EFBIG);
        }
        // Writes reaching past the size limit are cut short there.
        let len = (max - offset).min(len as u64) as usize;
        let mut data = file.write();
        let mut done = 0;
        let mut error = None;
        let mut faulted = false;
        while done < len {
            let (index, in_page) = page_pos(offset + done as u64);
            let n = (PAGE_SIZE - in_page).min(len - done);
            let (page, fresh) = match data.pages.entry(index) {
                Entry::Occupied(page) => (page.into_mut(), false),
                Entry::Vacant(slot) => match alloc_page(&self.shared) {
                    Ok(page) => (slot.insert(page), true),
                    Err(e) => {
                        error = Some(e);
                        break;
                    }
                },
            };
            let moved = io.page(&**page, in_page, n);
            if moved == 0 {
                if fresh {
                    // A hole stays a hole.
                    data.pages.remove(&index);
                    self.shared.pages.fetch_sub(1, Ordering::AcqRel);
                }
                faulted = true;
                break;
            }
            if !data.unwritten.is_empty() {
                data.unwritten.remove(&index);
            }
            done += moved;
            if moved < n {
                faulted = true;
                break;
            }
        }
        if done == 0 {
            if faulted {
                return Ok(0);
            }
            return Err(error.unwrap_or(Errno::ENOSPC));
        }
        let end = offset + done as u64;
        if end > data.size {
            data.size = end;
        }
        drop(data);
        self.touch_modified(self.shared.now());
        Ok(done)
    }

    /// Sets mtime and ctime to `now`: the contents changed.
    fn touch_modified(&self, now: Timespec) {
        self.update_meta(|m| {
            m.mtime = now;
            m.ctime = now;
        });
    }

    /// Sets atime on a read, following `relatime`: at most once per change
    /// of the contents or the inode, or once a day.
    fn touch_accessed(&self) {
        let now = self.shared.now();
        self.update_meta(|m| {
            if m.atime <= m.mtime || m.atime <= m.ctime || now.sec - m.atime.sec >= RELATIME_MAX_AGE
            {
                m.atime = now;
            }
        });
    }

    fn new_node(
        shared: &Arc<Shared>,
        kind: Kind,
        perm: u32,
        uid: u32,
        gid: u32,
        now: Timespec,
    ) -> Result<Arc<TmpInode>> {
        Shared::charge(&shared.inodes, &shared.max_inodes)?;
        let ino = shared.next_ino.fetch_add(1, Ordering::Relaxed);
        let nlink = if matches!(kind, Kind::Dir(_)) { 2 } else { 1 };
        Ok(Arc::new_cyclic(|this| TmpInode {
            shared: shared.clone(),
            ino,
            this: this.clone(),
            kind,
            meta: Mutex::new(Meta {
                perm,
                uid,
                gid,
                nlink,
                atime: now,
                mtime: now,
                ctime: now,
            }),
        }))
    }

    /// Adds a new node under `name`, the shared part of create and symlink.
    fn insert_new(
        &self,
        name: &[u8],
        kind: Kind,
        perm: u32,
        uid: u32,
        gid: u32,
    ) -> Result<Arc<TmpInode>> {
        let dir = self.dir()?;
        let is_dir = matches!(kind, Kind::Dir(_));
        let mut entries = dir.entries.write();
        if entries.dead {
            return Err(Errno::ENOENT);
        }
        if entries.by_name.contains_key(name) {
            return Err(Errno::EEXIST);
        }
        let (dir_perm, dir_gid, dir_nlink) = {
            let m = self.meta.lock();
            (m.perm, m.gid, m.nlink)
        };
        if is_dir && dir_nlink >= self.shared.max_links {
            return Err(Errno::EMLINK);
        }
        // In a setgid directory new nodes take the directory's group, and
        // new subdirectories inherit the bit (BSD group semantics).
        let (gid, perm) = if dir_perm & g::S_ISGID != 0 {
            (dir_gid, if is_dir { perm | g::S_ISGID } else { perm })
        } else {
            (gid, perm)
        };
        let now = self.shared.now();
        let node = TmpInode::new_node(&self.shared, kind, perm, uid, gid, now)?;
        entries.insert(name, node.clone());
        self.update_meta(|m| {
            if is_dir {
                m.nlink += 1;
            }
            m.mtime = now;
            m.ctime = now;
        });
        Ok(node)
    }

    fn truncate_data(&self, len: u64) -> Result<()> {
        let file = self.file()?;
        if len > self.shared.max_file_size {
            return Err(Errno::EFBIG);
        }
        let mut data = file.write();
        if len < data.size {
            let (last_page, in_page) = page_pos(len);
            let first_dropped = if in_page == 0 {
                last_page
            } else {
                last_page + 1
            };
            let dropped = data.pages.split_off(&first_dropped);
            data.unwritten.split_off(&first_dropped);
            self.shared
                .pages
                .fetch_sub(dropped.len() as u64, Ordering::AcqRel);
            // Keep the invariant that bytes past the end are zero, so a
            // later extension reads zeros there.
            if in_page != 0 {
                if let Some(page) = data.pages.get(&last_page) {
                    page.zero(in_page, PAGE_SIZE - in_page);
                }
            }
        }
        data.size = len;
        Ok(())
    }

    /// fallocate as Linux's shmem has it: allocating (mode 0, or
    /// KEEP_SIZE to leave the size) and PUNCH_HOLE; anything else is
    /// EOPNOTSUPP.
    fn fallocate_data(&self, mode: u32, offset: u64, len: u64, size_limit: u64) -> Result<()> {
        let file = self.file()?;
        if mode & !(g::FALLOC_FL_KEEP_SIZE | g::FALLOC_FL_PUNCH_HOLE) != 0 {
            return Err(Errno::EOPNOTSUPP);
        }
        let page = PAGE_SIZE as u64;
        let end = offset.checked_add(len).ok_or(Errno::EFBIG)?;
        let now = self.shared.now();
        if mode & g::FALLOC_FL_PUNCH_HOLE != 0 {
            let mut data = file.write();
            // Partial pages at either end are zeroed, whole ones dropped
            // (zeroed instead while a mapping holds them).
            let first_whole = offset.div_ceil(page);
            let end_whole = end / page;
            let zero = |data: &mut FileData, index: u64, from: usize, to: usize| {
                if let Some(p) = data.pages.get(&index) {
                    p.zero(from, to - from);
                }
            };
            if first_whole > end_whole {
                // Inside one page.
                zero(&mut data, offset / page, (offset % page) as usize, (end - offset / page * page) as usize);
            } else {
                if offset % page != 0 {
                    zero(&mut data, offset / page, (offset % page) as usize, PAGE_SIZE);
                }
                if end % page != 0 {
                    zero(&mut data, end_whole, 0, (end % page) as usize);
                }
            }
            // No whole page when the hole is inside one page (first_whole
            // is then past end_whole: an empty range, never a reversed one).
            let doomed: Vec<u64> = if first_whole < end_whole {
                data.pages.range(first_whole..end_whole).map(|(&k, _)| k).collect()
            } else {
                Vec::new()
            };
            for index in doomed {
                if data.pages[&index].is_mapped() {
                    data.pages[&index].zero(0, PAGE_SIZE);
                    continue;
                }
                data.pages.remove(&index);
                data.unwritten.remove(&index);
                self.shared.pages.fetch_sub(1, Ordering::AcqRel);
            }
            drop(data);
            self.touch_modified(now);
            return Ok(());
        }
        let mut data = file.write();
        // inode_newsize_ok runs even with KEEP_SIZE in shmem (against
        // the largest loff_t, which the kernel checked); the size limit of
        // this tmpfs applies to what the size becomes.
        let keep = mode & g::FALLOC_FL_KEEP_SIZE != 0;
        if end > data.size && (end > size_limit || (!keep && end > self.shared.max_file_size)) {
            return Err(Errno::EFBIG);
        }
        let first = offset / page;
        let last = end.div_ceil(page);
        if limit_of(&self.shared.max_pages).is_some_and(|max| last - first > max) {
            return Err(Errno::ENOSPC);
        }
        let mut added = Vec::new();
        for index in first..last {
            if data.pages.contains_key(&index) {
                continue;
            }
            match alloc_page(&self.shared) {
                Ok(p) => {
                    data.pages.insert(index, p);
                    data.unwritten.insert(index);
                    added.push(index);
                }
                Err(e) => {
                    // As shmem: the pages this call added go again.
                    for index in added {
                        data.pages.remove(&index);
                        data.unwritten.remove(&index);
                        self.shared.pages.fetch_sub(1, Ordering::AcqRel);
                    }
                    return Err(e);
                }
            }
        }
        if !keep && end > data.size {
            data.size = end;
        }
        drop(data);
        self.update_meta(|m| m.ctime = now);
        Ok(())
    }

    /// The body of rename once both directories' entries are locked;
    /// returns a replaced node so the caller drops it after unlocking.
    fn rename_locked(
        &self,
        pair: &mut EntriesPair<'_>,
        new_dir: &TmpInode,
        old_name: &[u8],
        new_name: &[u8],
        flags: RenameFlags,
    ) -> Result<Option<Arc<TmpInode>>> {
        if pair.old_dir().dead || pair.new_dir().dead {
            return Err(Errno::ENOENT);
        }
        let source = pair.old_dir().get(old_name).cloned().ok_or(Errno::ENOENT)?;
        let target = pair.new_dir().get(new_name).cloned();
        if let Some(target) = &target {
            // Two names for the same node (or the same name): POSIX says
            // rename does nothing and succeeds.
            if target.ino == source.ino {
                return Ok(None);
            }
        }
        if flags.contains(RenameFlags::NOREPLACE) && target.is_some() {
            return Err(Errno::EEXIST);
        }
        let same_dir = self.ino == new_dir.ino;
        let source_is_dir = source.is_dir();
        if source_is_dir && !same_dir && source.is_ancestor_of(new_dir) {
            return Err(Errno::EINVAL);
        }
        let now = self.shared.now();
        let max_links = self.shared.max_links;

        if flags.contains(RenameFlags::EXCHANGE) {
            let target = target.ok_or(Errno::ENOENT)?;
            let target_is_dir = target.is_dir();
            if target_is_dir && !same_dir && target.is_ancestor_of(self) {
                return Err(Errno::EINVAL);
            }
            if !same_dir && source_is_dir != target_is_dir {
                // One directory changes parent: its `..` link moves along.
                let gaining = if source_is_dir { new_dir } else { self };
                if gaining.meta.lock().nlink >= max_links {
                    return Err(Errno::EMLINK);
                }
                let losing = if source_is_dir { self } else { new_dir };
                gaining.update_meta(|m| m.nlink += 1);
                losing.update_meta(|m| m.nlink -= 1);
            }
            // Linux moves the old name's entry to the head, then the new
            // name's: the new name is listed first.
            pair.old_dir().replace(old_name, target.clone());
            pair.new_dir().replace(new_name, source.clone());
            if source_is_dir {
                source.set_parent(new_dir);
            }
            if target_is_dir {
                target.set_parent(self);
            }
            source.update_meta(|m| m.ctime = now);
            target.update_meta(|m| m.ctime = now);
            self.touch_modified(now);
            new_dir.touch_modified(now);
            return Ok(None);
        }

        if let Some(target) = &target {
            match (source_is_dir, target.is_dir()) {
                (_, true) if target.is_ancestor_of(self) => return Err(Errno::ENOTEMPTY),
                (true, false) => return Err(Errno::ENOTDIR),
                (false, true) => return Err(Errno::EISDIR),
                _ => {}
            }
        }
        let victim_is_dir = target.as_ref().is_some_and(|t| t.is_dir());
        if source_is_dir && !same_dir && !victim_is_dir && new_dir.meta.lock().nlink >= max_links {
            return Err(Errno::EMLINK);
        }
        // Last fallible step: a directory victim must be empty, and is
        // marked dead under its own lock so nothing is created in it after
        // the check.
        if let Some(target) = &target {
            if let Kind::Dir(victim) = &target.kind {
                let mut victim_entries = victim.entries.write();
                if !victim_entries.by_name.is_empty() {
                    return Err(Errno::ENOTEMPTY);
                }
                victim_entries.dead = true;
            }
        }

        pair.old_dir().remove(old_name);
        let replaced = pair.new_dir().remove(new_name);
        pair.new_dir().insert(new_name, source.clone());
        if let Some(victim) = &replaced {
            if victim_is_dir {
                victim.update_meta(|m| {
                    m.nlink = 0;
                    m.ctime = now;
                });
                new_dir.update_meta(|m| m.nlink -= 1);
            } else {
                victim.update_meta(|m| {
                    m.nlink = m.nlink.saturating_sub(1);
                    m.ctime = now;
                });
            }
        }
        if source_is_dir && !same_dir {
            self.update_meta(|m| m.nlink -= 1);
            new_dir.update_meta(|m| m.nlink += 1);
            source.set_parent(new_dir);
        }
        source.update_meta(|m| m.ctime = now);
        self.touch_modified(now);
        if !same_dir {
            new_dir.touch_modified(now);
        }
        Ok(replaced)
    }
}

impl Inode for TmpInode {
    fn fs_id(&self) -> u64 {
        self.shared.dev
    }

    fn ino(&self) -> u64 {
        self.ino
    }

    fn file_type(&self) -> FileType {
        match &self.kind {
            Kind::Dir(_) => FileType::Directory,
            Kind::File(_) => FileType::Regular,
            Kind::Symlink(_) => FileType::Symlink,
            Kind::Special(t, _) => *t,
        }
    }

    fn stat(&self) -> Result<Stat> {
        let (size, blocks, rdev) = match &self.kind {
            Kind::File(data) => {
                let data = data.read();
                let per_page = PAGE_SIZE as u64 / STAT_BLOCK_SIZE;
                (data.size, data.pages.len() as u64 * per_page, 0)
            }
            Kind::Dir(dir) => {
                let entries = dir.entries.read();
                ((entries.by_name.len() as u64 + 2) * BOGO_DIRENT_SIZE, 0, 0)
            }
            Kind::Symlink(target) => (target.len() as u64, 0, 0),
            Kind::Special(_, rdev) => (0, 0, *rdev),
        };
        let m = self.meta.lock();
        Ok(Stat {
            dev: self.shared.dev,
            ino: self.ino,
            mode: self.file_type().mode_bits() | m.perm,
            nlink: m.nlink,
            uid: m.uid,
            gid: m.gid,
            rdev,
            size,
            blksize: PAGE_SIZE as u32,
            blocks,
            atime: m.atime,
            mtime: m.mtime,
            ctime: m.ctime,
        })
    }

    /// The permission fields only: a path walk checks search permission on
    /// every directory it passes, and `stat` would also lock the entries to
    /// count them for the size.
    fn access_stat(&self) -> Result<Stat> {
        let m = self.meta.lock();
        Ok(Stat {
            dev: self.shared.dev,
            ino: self.ino,
            mode: self.file_type().mode_bits() | m.perm,
            nlink: m.nlink,
            uid: m.uid,
            gid: m.gid,
            rdev: 0,
            size: 0,
            blksize: PAGE_SIZE as u32,
            blocks: 0,
            atime: m.atime,
            mtime: m.mtime,
            ctime: m.ctime,
        })
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn set_attr(&self, attr: &SetAttr) -> Result<()> {
        if attr.is_empty() {
            return Ok(());
        }
        // The size goes first: it is the only change that can fail.
        if let Some(size) = attr.size {
            self.truncate_data(size)?;
        }
        let now = self.shared.now();
        self.update_meta(|m| {
            if let Some(mode) = attr.mode {
                m.perm = mode & PERM_MASK;
            }
            if let Some(uid) = attr.uid {
                m.uid = uid;
            }
            if let Some(gid) = attr.gid {
                m.gid = gid;
            }
            if let Some(atime) = attr.atime {
                m.atime = atime;
            }
            match (attr.mtime, attr.size) {
                (Some(mtime), _) => m.mtime = mtime,
                (None, Some(_)) => m.mtime = now,
                (None, None) => {}
            }
            m.ctime = now;
        });
        Ok(())
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<usize> {
        let len = buf.len();
        self.read_io(offset, len, &mut kevlar_vfs::SliceOut::new(buf))
    }

    fn write_at(&self, offset: u64, buf: &[u8]) -> Result<usize> {
        self.write_io(offset, buf.len(), &mut kevlar_vfs::SliceIn::new(buf))
    }

    fn read_pages(&self, offset: u64, len: usize, io: &mut dyn kevlar_vfs::PageIo) -> Option<Result<usize>> {
        if self.file_type() != FileType::Regular {
            return None;
        }
        Some(self.read_io(offset, len, io))
    }

    fn write_pages(&self, offset: u64, len: usize, io: &mut dyn kevlar_vfs::PageIo) -> Option<Result<usize>> {
        if self.file_type() != FileType::Regular {
            return None;
        }
        Some(self.write_io(offset, len, io))
    }

    fn data_page(&self, index: u64) -> Result<Arc<dyn DataPage>> {
        let file = self.file()?;
        let mut data = file.write();
        if index >= data.size.div_ceil(PAGE_SIZE as u64) {
            return Err(Errno::ENXIO);
        }
        // A mapped page is data from now on (a fault zeroes a fallocated
        // page and marks it up to date).
        data.unwritten.remove(&index);
        match data.pages.entry(index) {
            Entry::Occupied(page) => Ok(page.get().clone()),
            // A hole: it gets a page now, which reads as zeros.
            Entry::Vacant(slot) => Ok(slot.insert(alloc_page(&self.shared)?).clone()),
        }
    }

    /// The page if it holds data already (not a hole, not a page
    /// fallocate added that nothing wrote): what fault-around maps.
    fn cached_page(&self, index: u64) -> Option<Arc<dyn DataPage>> {
        let file = self.file().ok()?;
        let data = file.read();
        if index >= data.size.div_ceil(PAGE_SIZE as u64) || data.unwritten.contains(&index) {
            return None;
        }
        data.pages.get(&index).cloned()
    }

    fn visit_cached_pages(&self, first: u64, count: u64, visit: &mut dyn FnMut(u64, &dyn DataPage)) {
        let Ok(file) = self.file() else { return };
        let data = file.read();
        let end = first.saturating_add(count).min(data.size.div_ceil(PAGE_SIZE as u64));
        if first >= end {
            return;
        }
        for (&i, page) in data.pages.range(first..end) {
            if data.unwritten.is_empty() || !data.unwritten.contains(&i) {
                visit(i, &**page);
            }
        }
    }

    fn fallocate(&self, mode: u32, offset: u64, len: u64, size_limit: u64) -> Result<()> {
        self.fallocate_data(mode, offset, len, size_limit)
    }

    fn seek_data_hole(&self, offset: u64, data: bool) -> Result<u64> {
        let file = self.file()?;
        let file = file.read();
        let size = file.size;
        if offset >= size {
            return Err(Errno::ENXIO);
        }
        let page = PAGE_SIZE as u64;
        let last = (size - 1) / page;
        let is_data = |i: u64| file.pages.contains_key(&i) && !file.unwritten.contains(&i);
        let mut i = offset / page;
        if data {
            // The next page with data: from the map, not page by page.
            loop {
                let Some((&k, _)) = file.pages.range(i..=last).next() else { return Err(Errno::ENXIO) };
                if is_data(k) {
                    return Ok(offset.max(k * page));
                }
                i = k + 1;
            }
        }
        while i <= last && is_data(i) {
            i += 1;
        }
        Ok(offset.max(i * page).min(size))
    }

    fn truncate(&self, len: u64) -> Result<()> {
        self.truncate_data(len)?;
        self.touch_modified(self.shared.now());
        Ok(())
    }

    fn lookup(&self, name: &[u8]) -> Result<Arc<dyn Inode>> {
        let dir = self.dir()?;
        if name == b"." {
            return Ok(self.arc()?);
        }
        if name == b".." {
            if self.ino == self.shared.root_ino {
                return Ok(self.arc()?);
            }
            // A removed directory whose old parent is gone too has no `..`.
            return dir
                .parent
                .lock()
                .upgrade()
                .map(|p| p as Arc<dyn Inode>)
                .ok_or(Errno::ENOENT);
        }
        check_name(name)?;
        let entries = dir.entries.read();
        match entries.get(name) {
            Some(node) => Ok(node.clone()),
            None => Err(Errno::ENOENT),
        }
    }

    fn create(
        &self,
        name: &[u8],
        file_type: FileType,
        mode: u32,
        uid: u32,
        gid: u32,
        rdev: u64,
    ) -> Result<Arc<dyn Inode>> {
        self.dir()?;
        if is_dot_or_dotdot(name) {
            return Err(Errno::EEXIST);
        }
        check_name(name)?;
        let kind = match file_type {
            FileType::Regular => Kind::File(RwLock::new(FileData {
                pages: BTreeMap::new(),
                size: 0,
                unwritten: BTreeSet::new(),
            })),
            FileType::Directory => Kind::Dir(Dir::new(self.this.clone())),
            FileType::Symlink => return Err(Errno::EINVAL),
            FileType::CharDevice | FileType::BlockDevice => Kind::Special(file_type, rdev),
            FileType::Fifo | FileType::Socket => Kind::Special(file_type, 0),
        };
        Ok(self.insert_new(name, kind, mode & PERM_MASK, uid, gid)?)
    }

    fn symlink(&self, name: &[u8], target: &[u8], uid: u32, gid: u32) -> Result<Arc<dyn Inode>> {
        self.dir()?;
        if is_dot_or_dotdot(name) {
            return Err(Errno::EEXIST);
        }
        check_name(name)?;
        if target.is_empty() {
            return Err(Errno::ENOENT);
        }
        if target.len() >= PATH_MAX {
            return Err(Errno::ENAMETOOLONG);
        }
        let perm = g::S_IRWXU | g::S_IRWXG | g::S_IRWXO;
        Ok(self.insert_new(name, Kind::Symlink(target.to_vec()), perm, uid, gid)?)
    }

    fn read_link(&self) -> Result<Vec<u8>> {
        match &self.kind {
            Kind::Symlink(target) => {
                self.touch_accessed();
                Ok(target.clone())
            }
            _ => Err(Errno::EINVAL),
        }
    }

    fn link(&self, name: &[u8], target: &Arc<dyn Inode>) -> Result<()> {
        let dir = self.dir()?;
        if is_dot_or_dotdot(name) {
            return Err(Errno::EEXIST);
        }
        check_name(name)?;
        let mut entries = dir.entries.write();
        if entries.dead {
            return Err(Errno::ENOENT);
        }
        // Linux's order: the new name is checked first, then the target.
        if entries.by_name.contains_key(name) {
            return Err(Errno::EEXIST);
        }
        let node = self.same_fs(target)?;
        if node.is_dir() {
            return Err(Errno::EPERM);
        }
        let node = node.arc()?;
        let now = self.shared.now();
        {
            let mut m = node.meta.lock();
            // An inode already unlinked everywhere cannot come back.
            if m.nlink == 0 {
                return Err(Errno::ENOENT);
            }
            if m.nlink >= self.shared.max_links {
                return Err(Errno::EMLINK);
            }
            m.nlink += 1;
            m.ctime = now;
        }
        entries.insert(name, node);
        drop(entries);
        self.touch_modified(now);
        Ok(())
    }

    fn unlink(&self, name: &[u8]) -> Result<()> {
        let dir = self.dir()?;
        if is_dot_or_dotdot(name) {
            return Err(Errno::EISDIR);
        }
        check_name(name)?;
        let mut entries = dir.entries.write();
        let node = entries.get(name).ok_or(Errno::ENOENT)?;
        if node.is_dir() {
            return Err(Errno::EISDIR);
        }
        let removed = entries.remove(name);
        drop(entries);
        let now = self.shared.now();
        if let Some(node) = &removed {
            node.update_meta(|m| {
                m.nlink = m.nlink.saturating_sub(1);
                m.ctime = now;
            });
        }
        self.touch_modified(now);
        // `removed` may be the last reference; it drops after the locks.
        Ok(())
    }

    fn rmdir(&self, name: &[u8]) -> Result<()> {
        let dir = self.dir()?;
        if name == b"." {
            return Err(Errno::EINVAL);
        }
        if name == b".." {
            return Err(Errno::ENOTEMPTY);
        }
        check_name(name)?;
        let mut entries = dir.entries.write();
        let node = entries.get(name).ok_or(Errno::ENOENT)?;
        let Kind::Dir(child) = &node.kind else {
            return Err(Errno::ENOTDIR);
        };
        {
            // Parent before child, the order every path uses.
            let mut child_entries = child.entries.write();
            if !child_entries.by_name.is_empty() {
                return Err(Errno::ENOTEMPTY);
            }
            child_entries.dead = true;
        }
        let removed = entries.remove(name);
        drop(entries);
        let now = self.shared.now();
        if let Some(node) = &removed {
            node.update_meta(|m| {
                m.nlink = 0;
                m.ctime = now;
            });
        }
        self.update_meta(|m| {
            m.nlink -= 1;
            m.mtime = now;
            m.ctime = now;
        });
        Ok(())
    }

    fn rename(
        &self,
        old_name: &[u8],
        new_dir: &Arc<dyn Inode>,
        new_name: &[u8],
        flags: RenameFlags,
    ) -> Result<()> {
        let old_dir = self.dir()?;
        let flags = RenameFlags::from_bits(flags.bits())?;
        if flags.contains(RenameFlags::WHITEOUT) {
            // Whiteouts serve overlay file systems; tmpfs does not make them.
            return Err(Errno::EINVAL);
        }
        for name in [old_name, new_name] {
            if is_dot_or_dotdot(name) {
                return Err(Errno::EBUSY);
            }
            check_name(name)?;
        }
        let new_node = self.same_fs(new_dir)?;
        let new_entries = new_node.dir()?;
        let _serial = self.shared.rename_lock.lock();
        let replaced = if self.ino == new_node.ino {
            let mut entries = old_dir.entries.write();
            self.rename_locked(
                &mut EntriesPair::Same(&mut entries),
                new_node,
                old_name,
                new_name,
                flags,
            )?
        } else {
            let old_first = if self.is_ancestor_of(new_node) {
                true
            } else if new_node.is_ancestor_of(self) {
                false
            } else {
                self.ino < new_node.ino
            };
            let (mut old, mut new) = if old_first {
                let old = old_dir.entries.write();
                (old, new_entries.entries.write())
            } else {
                let new = new_entries.entries.write();
                (old_dir.entries.write(), new)
            };
            self.rename_locked(
                &mut EntriesPair::Two {
                    old: &mut old,
                    new: &mut new,
                },
                new_node,
                old_name,
                new_name,
                flags,
            )?
        };
        drop(replaced);
        Ok(())
    }

    fn read_dir(&self, index: usize) -> Result<Option<(DirEntry, usize)>> {
        let dir = self.dir()?;
        let entries = dir.entries.read();
        if entries.dead {
            return Err(Errno::ENOENT);
        }
        let entry = match index {
            0 => Some((
                DirEntry {
                    ino: self.ino,
                    file_type: FileType::Directory,
                    name: b".".to_vec(),
                },
                1,
            )),
            1 => {
                let parent = dir.parent.lock().upgrade().map_or(self.ino, |p| p.ino);
                Some((
                    DirEntry {
                        ino: parent,
                        file_type: FileType::Directory,
                        name: b"..".to_vec(),
                    },
                    2,
                ))
            }
            _ => {
                let found = cookie_limit(index).and_then(|limit| entries.by_cookie.range(..=limit).next_back());
                match found {
                    Some((&cookie, listed)) => {
                        let next = position_after(cookie)?;
                        Some((
                            DirEntry {
                                ino: listed.ino,
                                file_type: listed.file_type,
                                name: listed.name.clone(),
                            },
                            next,
                        ))
                    }
                    None => None,
                }
            }
        };
        drop(entries);
        self.touch_accessed();
        Ok(entry)
    }

    fn read_dir_with(&self, index: usize, visit: &mut dyn FnMut(&DirEntryRef<'_>, usize) -> bool) -> Result<usize> {
        let dir = self.dir()?;
        let entries = dir.entries.read();
        if entries.dead {
            return Err(Errno::ENOENT);
        }
        let mut pos = index;
        let dirs = FileType::Directory;
        if pos == 0 {
            if !visit(&DirEntryRef { ino: self.ino, file_type: dirs, name: b"." }, 1) {
                return Ok(pos);
            }
            pos = 1;
        }
        if pos == 1 {
            let parent = dir.parent.lock().upgrade().map_or(self.ino, |p| p.ino);
            if !visit(&DirEntryRef { ino: parent, file_type: dirs, name: b".." }, 2) {
                return Ok(pos);
            }
            pos = 2;
        }
        let limit = cookie_limit(pos).unwrap_or(0);
        for (&cookie, listed) in entries.by_cookie.range(..=limit).rev() {
            let next = position_after(cookie)?;
            let entry = DirEntryRef { ino: listed.ino, file_type: listed.file_type, name: &listed.name };
            if !visit(&entry, next) {
                break;
            }
            pos = next;
        }
        drop(entries);
        self.touch_accessed();
        Ok(pos)
    }
}
