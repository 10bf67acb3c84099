//! Synthetic file-system nodes: directories, files and symbolic links whose
//! contents the kernel generates when they are looked up or read. procfs
//! and sysfs are built from them.
//!
//! A file's text is produced by a closure at each read from offset 0 and
//! kept by the open file for reads further on (as Linux's `seq_file`
//! does), so a program reading in small pieces sees one consistent text.
//! Directories list and look up their entries through a [`DirSource`],
//! which may build child nodes on the fly: nothing is stored but what the
//! closures capture.

use alloc::boxed::Box;
use alloc::sync::{Arc, Weak};
use alloc::vec::Vec;
use core::any::Any;
use core::sync::atomic::{AtomicU64, Ordering};

use kevlar_platform::sync::SpinLock;
use kevlar_vfs::{DirEntry, FileType, Inode, Stat, Timespec};

use super::file::{FileOps, OpenFile};
use crate::error::{Errno, Result};

/// Produces a file's text or a link's target.
pub type Generator = Box<dyn Fn() -> Result<Vec<u8>> + Send + Sync>;
/// Takes what a program writes to a file (from offset 0); returns the
/// number of bytes consumed.
pub type Writer = Box<dyn Fn(&[u8]) -> Result<usize> + Send + Sync>;
/// Decides at open whether the caller may open the file (beyond its mode
/// bits): procfs's ptrace-style checks.
pub type OpenCheck = Box<dyn Fn() -> Result<()> + Send + Sync>;
/// Resolves a magic link to its node (see [`Inode::magic_link`]).
pub type Resolver = Box<dyn Fn() -> Result<Arc<dyn Inode>> + Send + Sync>;
/// Tells the mount a magic link's node was reached through (see
/// [`Inode::magic_link_mount`]).
pub type MountOf = Box<dyn Fn(&Arc<dyn Inode>) -> kevlar_vfs::MountId + Send + Sync>;

/// The `Inode` methods a node answers from its `attr` field alone: its
/// file system, number, type (`$file_type`) and `as_any`. Shared by the
/// synthetic nodes here and the few of procfs that are types of their own.
macro_rules! attr_identity {
    ($file_type:expr) => {
        fn fs_id(&self) -> u64 {
            self.attr.fs_id
        }

        fn ino(&self) -> u64 {
            self.attr.ino
        }

        fn file_type(&self) -> FileType {
            $file_type
        }

        fn as_any(&self) -> &dyn Any {
            self
        }
    };
}
pub(crate) use attr_identity;

/// Identity, owner and permission bits of a synthetic node.
#[derive(Clone, Copy, Debug)]
pub struct Attr {
    /// The file system's device number.
    pub fs_id: u64,
    /// The inode number.
    pub ino: u64,
    /// Permission bits.
    pub perm: u32,
    /// Owner.
    pub uid: u32,
    /// Group.
    pub gid: u32,
}

impl Attr {
    /// A root-owned node.
    pub const fn root(fs_id: u64, ino: u64, perm: u32) -> Attr {
        Attr { fs_id, ino, perm, uid: 0, gid: 0 }
    }

    pub(crate) fn stat(&self, file_type: FileType, nlink: u32, size: u64) -> Stat {
        let now = boot_time();
        Stat {
            dev: self.fs_id,
            ino: self.ino,
            mode: file_type.mode_bits() | self.perm,
            nlink,
            uid: self.uid,
            gid: self.gid,
            rdev: 0,
            size,
            blksize: 4096,
            blocks: 0,
            atime: now,
            mtime: now,
            ctime: now,
        }
    }
}

/// The timestamp synthetic nodes report: the wall-clock time of the first
/// one asked for (Linux reports when the in-memory inode was made, which
/// for most of /proc is the first look at it).
fn boot_time() -> Timespec {
    static FIRST: SpinLock<Option<Timespec>> = SpinLock::new(None);
    *FIRST.lock().get_or_insert_with(crate::clock::now)
}

/// Counts changes to what a pollable file shows (see
/// [`Polling::Mounts`], [`Polling::Sysctl`]).
pub type ChangeCounter = Arc<dyn Fn() -> u64 + Send + Sync>;

/// A regular file whose text a closure produces.
pub struct SynthFile {
    attr: Attr,
    /// The size `stat` reports: 0 for procfs, a page for sysfs.
    size: u64,
    read: Generator,
    write: Option<Writer>,
    check: Option<OpenCheck>,
    /// How the file answers poll and whether epoll may watch it.
    polling: Polling,
}

/// How a synthetic file polls, after the Linux file it stands for.
#[derive(Clone)]
pub enum Polling {
    /// No poll method (the `/proc/PID` files): poll reports Linux's
    /// DEFAULT_POLLMASK (readable and writable), epoll_ctl says EPERM.
    None,
    /// A poll method that always reports DEFAULT_POLLMASK (the other
    /// /proc files, sysctls without a poll table, sysfs attributes).
    Default,
    /// /proc/PID/mounts and mountinfo (Linux's `mounts_poll`): readable,
    /// and POLLERR | POLLPRI once after each change the counter counts
    /// since the file was opened or last polled.
    Mounts(ChangeCounter),
    /// A sysfs attribute (kernfs_generic_poll): DEFAULT_POLLMASK, with
    /// POLLERR | POLLPRI too until the open file's first read (the event
    /// count an open file starts from is taken by its first read; no
    /// attribute here notifies changes).
    Kernfs,
    /// A sysctl with a poll table (`proc_sys_poll`: hostname and
    /// domainname): DEFAULT_POLLMASK, or POLLIN | POLLRDNORM | POLLERR |
    /// POLLPRI once after each change.
    Sysctl(ChangeCounter),
}

impl Polling {
    fn counter(&self) -> Option<&ChangeCounter> {
        match self {
            Polling::Mounts(f) | Polling::Sysctl(f) => Some(f),
            Polling::None | Polling::Default | Polling::Kernfs => None,
        }
    }
}

impl SynthFile {
    /// Creates a read-only file.
    pub fn new(attr: Attr, read: Generator) -> Arc<SynthFile> {
        Arc::new(SynthFile { attr, size: 0, read, write: None, check: None, polling: Polling::Default })
    }

    /// Creates a file that also takes writes.
    pub fn writable(attr: Attr, read: Generator, write: Writer) -> Arc<SynthFile> {
        Arc::new(SynthFile { attr, size: 0, read, write: Some(write), check: None, polling: Polling::Default })
    }

    /// Sets the size `stat` reports.
    pub fn with_size(mut self: Arc<SynthFile>, size: u64) -> Arc<SynthFile> {
        if let Some(file) = Arc::get_mut(&mut self) {
            file.size = size;
        }
        self
    }

    /// Adds a check every open must pass (after the mode bits).
    pub fn with_open_check(mut self: Arc<SynthFile>, check: OpenCheck) -> Arc<SynthFile> {
        if let Some(file) = Arc::get_mut(&mut self) {
            file.check = Some(check);
        }
        self
    }

    /// Sets how the file polls (files are made with [`Polling::Default`]).
    pub fn with_polling(mut self: Arc<SynthFile>, polling: Polling) -> Arc<SynthFile> {
        if let Some(file) = Arc::get_mut(&mut self) {
            file.polling = polling;
        }
        self
    }

    /// Returns the file's current text.
    pub fn generate(&self) -> Result<Vec<u8>> {
        (self.read)()
    }

    /// Returns the operations of an open file of this node; opening a file
    /// without a writer for writing fails with EACCES, even for root (as
    /// Linux's read-only sysctl and sysfs files do).
    pub fn open(self: &Arc<Self>, write: bool) -> Result<Arc<dyn FileOps>> {
        if write && self.write.is_none() {
            return Err(Errno::EACCES);
        }
        if let Some(check) = &self.check {
            check()?;
        }
        let seen = AtomicU64::new(self.polling.counter().map_or(0, |f| f()));
        Ok(Arc::new(SynthOpenFile { node: self.clone(), text: SpinLock::new(None), seen }))
    }
}

impl Inode for SynthFile {
    attr_identity!(FileType::Regular);

    fn stat(&self) -> Result<Stat> {
        Ok(self.attr.stat(FileType::Regular, 1, self.size))
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<usize> {
        let text = self.generate()?;
        Ok(copy_at(&text, offset, buf))
    }

    fn write_at(&self, offset: u64, buf: &[u8]) -> Result<usize> {
        let write = self.write.as_ref().ok_or(Errno::EIO)?;
        if offset != 0 {
            // Settings are written whole, from the start (Linux's sysctl
            // default); a later piece has nowhere to go.
            return Err(Errno::EINVAL);
        }
        write(buf)
    }

    fn truncate(&self, _len: u64) -> Result<()> {
        // `echo x > file` opens with O_TRUNC: a generated file has nothing
        // to cut, and Linux lets the open succeed.
        if self.write.is_some() { Ok(()) } else { Err(Errno::EACCES) }
    }
}

/// Returns `node` as a synthetic file, if it is one.
pub fn as_synth_file(node: &Arc<dyn Inode>) -> Option<Arc<SynthFile>> {
    let any: Arc<dyn Any + Send + Sync> = node.clone();
    any.downcast::<SynthFile>().ok()
}

/// The name of the entry with inode `ino` in `dir`, when `dir` is a
/// synthetic directory that knows it without a listing.
pub fn child_name(dir: &Arc<dyn Inode>, ino: u64) -> Option<Vec<u8>> {
    dir.as_any().downcast_ref::<SynthDir>().and_then(|d| d.source.name_of(ino))
}

/// Tells whether `node` is a magic link (without resolving it).
pub fn is_magic_link(node: &Arc<dyn Inode>) -> bool {
    node.as_any().downcast_ref::<SynthLink>().is_some_and(|l| l.magic.is_some())
}

/// Copies the part of `text` from `offset` into `buf`.
fn copy_at(text: &[u8], offset: u64, buf: &mut [u8]) -> usize {
    let start = usize::try_from(offset).unwrap_or(usize::MAX).min(text.len());
    let n = (text.len() - start).min(buf.len());
    buf[..n].copy_from_slice(&text[start..start + n]);
    n
}

/// An open synthetic file: the text generated by the read at offset 0,
/// served to the reads that follow.
struct SynthOpenFile {
    node: Arc<SynthFile>,
    text: SpinLock<Option<Arc<Vec<u8>>>>,
    /// The change count this file last reported (files with a counter).
    seen: AtomicU64,
}

impl FileOps for SynthOpenFile {
    fn read(&self, _file: &OpenFile, offset: u64, buf: &mut [u8]) -> Result<usize> {
        if matches!(self.node.polling, Polling::Kernfs) {
            self.seen.store(1, Ordering::Relaxed);
        }
        let cached = if offset == 0 { None } else { self.text.lock().clone() };
        let text = match cached {
            Some(text) => text,
            None => {
                let text = Arc::new(self.node.generate()?);
                *self.text.lock() = Some(text.clone());
                text
            }
        };
        Ok(copy_at(&text, offset, buf))
    }

    fn write(&self, _file: &OpenFile, offset: u64, buf: &[u8]) -> Result<usize> {
        Ok(self.node.write_at(offset, buf)?)
    }

    fn stat(&self) -> Result<Stat> {
        Ok(self.node.stat()?)
    }

    fn inode(&self) -> Option<Arc<dyn Inode>> {
        Some(self.node.clone())
    }

    fn is_pollable(&self) -> bool {
        !matches!(self.node.polling, Polling::None)
    }

    fn poll(&self) -> super::file::PollEvents {
        use super::file::{PollEvents, POLLERR, POLLIN, POLLOUT, POLLRDNORM, POLLWRNORM};
        const POLLPRI: PollEvents = linux_raw_sys::general::POLLPRI as PollEvents;
        const DEFAULT_POLLMASK: PollEvents = POLLIN | POLLOUT | POLLRDNORM | POLLWRNORM;
        let changed = || {
            self.node.polling.counter().is_some_and(|changes| {
                let now = changes();
                self.seen.swap(now, Ordering::Relaxed) != now
            })
        };
        match &self.node.polling {
            Polling::None | Polling::Default => DEFAULT_POLLMASK,
            Polling::Kernfs if self.seen.load(Ordering::Relaxed) == 0 => DEFAULT_POLLMASK | POLLERR | POLLPRI,
            Polling::Kernfs => DEFAULT_POLLMASK,
            Polling::Mounts(_) if changed() => POLLIN | POLLRDNORM | POLLERR | POLLPRI,
            Polling::Mounts(_) => POLLIN | POLLRDNORM,
            Polling::Sysctl(_) if changed() => POLLIN | POLLRDNORM | POLLERR | POLLPRI,
            Polling::Sysctl(_) => DEFAULT_POLLMASK,
        }
    }

    fn poll_counts(&self) -> (u64, u64) {
        (self.node.polling.counter().map_or(0, |f| f()), 0)
    }
}

/// A symbolic link whose target a closure produces, optionally magic.
pub struct SynthLink {
    attr: Attr,
    target: Generator,
    magic: Option<Resolver>,
    mount: Option<MountOf>,
}

impl SynthLink {
    /// Creates an ordinary link.
    pub fn new(attr: Attr, target: Generator) -> Arc<SynthLink> {
        Arc::new(SynthLink { attr, target, magic: None, mount: None })
    }

    /// Creates a magic link: path resolution goes to `resolve`'s node.
    pub fn magic(attr: Attr, target: Generator, resolve: Resolver) -> Arc<SynthLink> {
        Arc::new(SynthLink { attr, target, magic: Some(resolve), mount: None })
    }

    /// Creates a magic link whose node was reached through the mount
    /// `mount` tells (an open file's).
    pub fn magic_in_mount(attr: Attr, target: Generator, resolve: Resolver, mount: MountOf) -> Arc<SynthLink> {
        Arc::new(SynthLink { attr, target, magic: Some(resolve), mount: Some(mount) })
    }
}

impl Inode for SynthLink {
    attr_identity!(FileType::Symlink);

    fn stat(&self) -> Result<Stat> {
        // Linux reports a magic link's size as 64 (and 0 for the others of
        // procfs, whose targets are computed).
        let size = if self.magic.is_some() { 64 } else { 0 };
        Ok(self.attr.stat(FileType::Symlink, 1, size))
    }

    fn read_link(&self) -> Result<Vec<u8>> {
        (self.target)()
    }

    fn magic_link(&self) -> Option<Result<Arc<dyn Inode>>> {
        self.magic.as_ref().map(|resolve| resolve())
    }

    fn magic_link_mount(&self, node: &Arc<dyn Inode>) -> kevlar_vfs::MountId {
        self.mount.as_ref().map_or(kevlar_vfs::NO_MOUNT, |mount| mount(node))
    }
}

/// What a synthetic directory holds.
pub trait DirSource: Send + Sync {
    /// Returns the entries other than `.` and `..`, in listing order.
    fn list(&self) -> Vec<DirEntry>;

    /// Returns the node `name` of the directory `dir` (whose `..` a child
    /// directory leads back to).
    fn lookup(&self, dir: &Arc<dyn Inode>, name: &[u8]) -> Result<Arc<dyn Inode>>;

    /// The error creating a name here gives: procfs says the name does not
    /// exist (ENOENT), sysfs that it may not be made (EACCES).
    fn create_error(&self) -> Errno {
        Errno::EACCES
    }

    /// The entry at `cursor` (0 for the first) and the cursor of the one
    /// after it. Cursors are opaque: a source with many entries (the /proc
    /// root) makes them so that each step costs O(1) listings, not a whole
    /// `list` per entry.
    fn entry_at(&self, cursor: usize) -> Option<(DirEntry, usize)> {
        self.list().into_iter().nth(cursor).map(|e| (e, cursor + 1))
    }

    /// How many entries are directories (for the link count).
    fn subdir_count(&self) -> usize {
        self.list().iter().filter(|e| e.file_type.is_dir()).count()
    }

    /// The name of the entry with inode number `ino`, when the source can
    /// tell it without listing (path building walks up by inode).
    fn name_of(&self, _ino: u64) -> Option<Vec<u8>> {
        None
    }
}

/// How a directory reaches its parent: a directory made on demand keeps
/// its parent alive; one in a permanent tree only points back at it, so
/// the tree has no reference cycle.
pub enum Parent {
    /// The root of its file system (its own parent).
    None,
    /// A parent this node keeps alive.
    Strong(Arc<dyn Inode>),
    /// A parent that keeps this node alive.
    Weak(Weak<dyn Inode>),
}

/// A directory whose entries a [`DirSource`] gives.
pub struct SynthDir {
    attr: Attr,
    parent: Parent,
    this: Weak<SynthDir>,
    source: Box<dyn DirSource>,
}

impl SynthDir {
    /// Creates a directory.
    pub fn new(attr: Attr, parent: Parent, source: Box<dyn DirSource>) -> Arc<SynthDir> {
        Arc::new_cyclic(|this| SynthDir { attr, parent, this: this.clone(), source })
    }

    fn me(&self) -> Arc<dyn Inode> {
        // `this` is set at construction and `&self` proves the node lives.
        self.this.upgrade().expect("a live directory")
    }

    fn parent(&self) -> Result<Arc<dyn Inode>> {
        match &self.parent {
            Parent::None => Ok(self.me()),
            Parent::Strong(p) => Ok(p.clone()),
            Parent::Weak(p) => p.upgrade().ok_or(Errno::ENOENT),
        }
    }
}

impl Inode for SynthDir {
    attr_identity!(FileType::Directory);

    fn stat(&self) -> Result<Stat> {
        let subdirs = u32::try_from(self.source.subdir_count()).unwrap_or(u32::MAX - 2);
        Ok(self.attr.stat(FileType::Directory, 2 + subdirs, 0))
    }

    fn access_stat(&self) -> Result<Stat> {
        // The link count needs a count of the subdirectories (every
        // process, for /proc): not what a path walk asks for.
        Ok(self.attr.stat(FileType::Directory, 2, 0))
    }

    fn lookup(&self, name: &[u8]) -> Result<Arc<dyn Inode>> {
        match name {
            b"." => Ok(self.me()),
            b".." => self.parent(),
            _ => self.source.lookup(&self.me(), name),
        }
    }

    fn read_dir(&self, index: usize) -> Result<Option<(DirEntry, usize)>> {
        let entry = match index {
            0 => DirEntry { ino: self.attr.ino, file_type: FileType::Directory, name: b".".to_vec() },
            1 => {
                let parent = self.parent()?;
                DirEntry { ino: parent.ino(), file_type: FileType::Directory, name: b"..".to_vec() }
            }
            _ => {
                return Ok(self.source.entry_at(index - 2).map(|(entry, next)| (entry, next.saturating_add(2))));
            }
        };
        Ok(Some((entry, index + 1)))
    }

    fn create(&self, _name: &[u8], _t: FileType, _mode: u32, _uid: u32, _gid: u32, _rdev: u64) -> Result<Arc<dyn Inode>> {
        Err(self.source.create_error())
    }

    fn symlink(&self, _name: &[u8], _target: &[u8], _uid: u32, _gid: u32) -> Result<Arc<dyn Inode>> {
        Err(self.source.create_error())
    }
}

/// A directory source with a fixed list of named nodes, made on demand by
/// one function per entry.
pub struct Table {
    entries: Vec<TableEntry>,
}

/// One entry of a [`Table`].
pub struct TableEntry {
    name: &'static [u8],
    file_type: FileType,
    ino: u64,
    make: Box<dyn Fn(&Arc<dyn Inode>) -> Result<Arc<dyn Inode>> + Send + Sync>,
}

impl Table {
    /// Creates an empty table.
    pub fn new() -> Table {
        Table { entries: Vec::new() }
    }

    /// Adds entry `name` of type `file_type` and inode number `ino`, made
    /// by `make` from the directory holding it.
    pub fn add(&mut self, name: &'static [u8], file_type: FileType, ino: u64, make: impl Fn(&Arc<dyn Inode>) -> Result<Arc<dyn Inode>> + Send + Sync + 'static) {
        self.entries.push(TableEntry { name, file_type, ino, make: Box::new(make) });
    }

    /// How many entries the table has.
    pub fn len(&self) -> usize {
        self.entries.len()
    }
}

impl DirSource for Table {
    fn list(&self) -> Vec<DirEntry> {
        self.entries.iter().map(|e| DirEntry { ino: e.ino, file_type: e.file_type, name: e.name.to_vec() }).collect()
    }

    fn lookup(&self, dir: &Arc<dyn Inode>, name: &[u8]) -> Result<Arc<dyn Inode>> {
        let entry = self.entries.iter().find(|e| e.name == name).ok_or(Errno::ENOENT)?;
        (entry.make)(dir)
    }

    fn entry_at(&self, cursor: usize) -> Option<(DirEntry, usize)> {
        let e = self.entries.get(cursor)?;
        Some((DirEntry { ino: e.ino, file_type: e.file_type, name: e.name.to_vec() }, cursor + 1))
    }

    fn subdir_count(&self) -> usize {
        self.entries.iter().filter(|e| e.file_type.is_dir()).count()
    }

    fn name_of(&self, ino: u64) -> Option<Vec<u8>> {
        self.entries.iter().find(|e| e.ino == ino).map(|e| e.name.to_vec())
    }

    fn create_error(&self) -> Errno {
        Errno::ENOENT
    }
}

/// A directory source holding nodes made once (a permanent tree: sysfs).
pub struct Fixed {
    entries: SpinLock<Vec<(Vec<u8>, Arc<dyn Inode>)>>,
    /// The [`FixedDir`]s made under this one, to find again by name
    /// ([`FixedDir::subdir`]).
    subdirs: SpinLock<Vec<FixedDir>>,
}

impl Default for Fixed {
    fn default() -> Self {
        Fixed { entries: SpinLock::new(Vec::new()), subdirs: SpinLock::new(Vec::new()) }
    }
}

impl DirSource for Arc<Fixed> {
    fn list(&self) -> Vec<DirEntry> {
        self.entries.lock().iter().map(|(name, node)| DirEntry { ino: node.ino(), file_type: node.file_type(), name: name.clone() }).collect()
    }

    fn lookup(&self, _dir: &Arc<dyn Inode>, name: &[u8]) -> Result<Arc<dyn Inode>> {
        self.entries.lock().iter().find(|(n, _)| n == name).map(|(_, node)| node.clone()).ok_or(Errno::ENOENT)
    }
}

/// A directory in a permanent tree, to which entries are added after it is
/// made (children point back at it weakly, so the tree has no cycle).
#[derive(Clone)]
pub struct FixedDir {
    dir: Arc<SynthDir>,
    entries: Arc<Fixed>,
}

impl FixedDir {
    /// Creates a directory under `parent` (`None`: a root).
    pub fn new(attr: Attr, parent: Option<&FixedDir>) -> FixedDir {
        let up = match parent {
            Some(p) => {
                let node: Arc<dyn Inode> = p.dir.clone();
                Parent::Weak(Arc::downgrade(&node))
            }
            None => Parent::None,
        };
        let entries = Arc::new(Fixed::default());
        let dir = FixedDir { dir: SynthDir::new(attr, up, Box::new(entries.clone())), entries };
        if let Some(p) = parent {
            p.entries.subdirs.lock().push(dir.clone());
        }
        dir
    }

    /// Returns the directory made under this one (with [`FixedDir::new`])
    /// and added as entry `name`, if there is one.
    pub fn subdir(&self, name: &[u8]) -> Option<FixedDir> {
        let node = self.entries.entries.lock().iter().find(|(n, _)| n == name).map(|(_, node)| node.clone())?;
        let found = self.entries.subdirs.lock().iter().find(|d| Arc::as_ptr(&d.dir) as *const u8 == Arc::as_ptr(&node) as *const u8).cloned();
        found
    }

    /// Adds `node` as entry `name`.
    pub fn add(&self, name: &[u8], node: Arc<dyn Inode>) {
        self.entries.entries.lock().push((name.to_vec(), node));
    }

    /// Returns the directory node.
    pub fn node(&self) -> Arc<dyn Inode> {
        self.dir.clone()
    }
}
