//! The node interface every file system implements, and the clock it reads.

use alloc::sync::Arc;
use alloc::vec::Vec;
use core::any::Any;

use crate::errno::{Errno, Result};
use crate::types::{DirEntry, FileType, RenameFlags, SetAttr, Stat, Timespec};

/// A directory entry lent to a [`Inode::read_dir_with`] visitor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DirEntryRef<'a> {
    /// Inode number of the entry's target.
    pub ino: u64,
    /// Type of the entry's target, for `d_type`.
    pub file_type: FileType,
    /// The entry's name.
    pub name: &'a [u8],
}

/// A source of wall-clock time for timestamps.
///
/// File systems take one at construction so tests can drive time by hand.
pub trait Clock: Send + Sync {
    /// Returns the current wall-clock time.
    fn now(&self) -> Timespec;
}

/// A clock that only moves when told to, for tests and deterministic runs.
#[derive(Debug, Default)]
pub struct ManualClock {
    now: spin::Mutex<Timespec>,
}

impl ManualClock {
    /// Creates a clock reading `start`.
    pub fn new(start: Timespec) -> ManualClock {
        ManualClock {
            now: spin::Mutex::new(start),
        }
    }

    /// Sets the time the clock reads.
    pub fn set(&self, t: Timespec) {
        *self.now.lock() = t;
    }

    /// Moves the clock forward by `sec` seconds and `nsec` nanoseconds.
    pub fn advance(&self, sec: i64, nsec: u32) {
        const NANOS_PER_SEC: u32 = 1_000_000_000;
        let mut now = self.now.lock();
        let total = now.nsec + nsec % NANOS_PER_SEC;
        now.sec += sec + i64::from(nsec / NANOS_PER_SEC) + i64::from(total / NANOS_PER_SEC);
        now.nsec = total % NANOS_PER_SEC;
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Timespec {
        *self.now.lock()
    }
}

/// A node of a file system: a directory, regular file, symlink, device node,
/// fifo or socket, behind one object-safe interface.
///
/// Names are byte strings without `/` or NUL. The default methods fail the
/// way Linux does when a node lacks an operation: directory operations on a
/// non-directory give ENOTDIR, data operations on a directory give EISDIR,
/// a directory that cannot be modified gives EPERM, and anything else gives
/// EINVAL. A file system overrides only what its node kinds support.
///
/// Implementations must be usable from several CPUs at once (`Send + Sync`)
/// and keep each operation atomic with respect to the others on the same
/// file system: the kernel does not hold locks around these calls.
pub trait Inode: Send + Sync + Any {
    /// Returns an identifier of the file system instance, used as `st_dev`.
    fn fs_id(&self) -> u64;

    /// Returns the inode number, unique within [`Inode::fs_id`].
    fn ino(&self) -> u64;

    /// Returns the node's type, which never changes during its life.
    fn file_type(&self) -> FileType;

    /// Returns the node's attributes.
    fn stat(&self) -> Result<Stat>;

    /// Returns the node's size in bytes (`stat().size`): what a page fault
    /// on a mapping of the file checks, so a file system can answer it
    /// without building the whole [`Stat`].
    fn data_size(&self) -> Result<u64> {
        Ok(self.stat()?.size)
    }

    /// Returns attributes whose type, mode, owner and group are exact, for
    /// permission checks on every step of a path walk; the other fields may
    /// be left cheap (a generated directory need not count its entries for
    /// the link count).
    fn access_stat(&self) -> Result<Stat> {
        self.stat()
    }

    /// Returns `st_mode` (type and permission bits) as the in-memory inode
    /// has it: what a write checks for set-user-id and set-group-id bits to
    /// clear (Linux's `file_remove_privs` reads `inode->i_mode`), without
    /// building the whole [`Stat`]. A file system whose `stat` is not cheap
    /// keeps the mode at hand.
    fn mode(&self) -> Result<u32> {
        Ok(self.stat()?.mode)
    }

    /// Returns `self` as `Any`, so a file system can recognise its own nodes
    /// (for `link` and `rename`) and the kernel can reach concrete types.
    fn as_any(&self) -> &dyn Any;

    /// Applies attribute changes; the ctime becomes the clock's time. A size
    /// change behaves as [`Inode::truncate`] (and sets mtime unless `attr`
    /// gives one).
    fn set_attr(&self, attr: &SetAttr) -> Result<()> {
        let _ = attr;
        Err(Errno::EPERM)
    }

    /// Tells whether `lseek` is meaningful; pipes and sockets answer no, so
    /// the kernel returns ESPIPE for them.
    fn is_seekable(&self) -> bool {
        !matches!(self.file_type(), FileType::Fifo | FileType::Socket)
    }

    /// Reads up to `buf.len()` bytes at `offset`; returns 0 at or past the end.
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<usize> {
        let _ = (offset, buf);
        Err(data_op_error(self.file_type()))
    }

    /// Writes `buf` at `offset`, extending the file if needed; may write less
    /// than asked (file size limit, space) and reports how much it wrote.
    fn write_at(&self, offset: u64, buf: &[u8]) -> Result<usize> {
        let _ = (offset, buf);
        Err(data_op_error(self.file_type()))
    }

    /// Reads up to `len` bytes at `offset` straight from the file's pages
    /// into `io` (one copy); returns the bytes moved (0 at or past the
    /// end; fewer than available when `io` faulted). `None`: the node does
    /// not keep its data in pages (the caller uses [`Inode::read_at`]).
    fn read_pages(&self, offset: u64, len: usize, io: &mut dyn crate::PageIo) -> Option<Result<usize>> {
        let _ = (offset, len, io);
        None
    }

    /// Writes `len` bytes at `offset` taken from `io` straight into the
    /// file's pages, as [`Inode::write_at`] does from a slice; a fault of
    /// `io` stops the write there (the bytes moved are reported; none
    /// moved and nothing else wrong: `Ok(0)`). `None`: the node does not
    /// keep its data in pages (the caller uses [`Inode::write_at`]).
    fn write_pages(&self, offset: u64, len: usize, io: &mut dyn crate::PageIo) -> Option<Result<usize>> {
        let _ = (offset, len, io);
        None
    }

    /// Returns the page holding the file's bytes from `index * PAGE_SIZE`,
    /// allocating it if it is a hole, so the kernel can map it (shared file
    /// mappings, and private ones until written). Pages wholly past the end
    /// of the file give ENXIO; nodes whose data is not kept in pages give
    /// ENODEV, as Linux's mmap does for files without a mapping operation.
    fn data_page(&self, index: u64) -> Result<Arc<dyn crate::DataPage>> {
        let _ = index;
        Err(Errno::ENODEV)
    }

    /// Returns page `index` if it is in memory already, without reading
    /// the disk or allocating (fault-around maps only such pages).
    fn cached_page(&self, index: u64) -> Option<Arc<dyn crate::DataPage>> {
        let _ = index;
        None
    }

    /// Calls `visit(index, page)` for each page of `[first, first + count)`
    /// that is in memory already (what [`Inode::cached_page`] returns), in
    /// index order: fault-around asks for a 64 KiB window at a time, and a
    /// file system answers it in one pass over its cache, lending each page
    /// (no allocation, no reference taken).
    fn visit_cached_pages(&self, first: u64, count: u64, visit: &mut dyn FnMut(u64, &dyn crate::DataPage)) {
        for i in first..first.saturating_add(count) {
            if let Some(page) = self.cached_page(i) {
                visit(i, &*page);
            }
        }
    }

    /// Tells the file system that page `index` (from [`Inode::data_page`])
    /// is mapped shared and writable, so user stores may change it behind
    /// its back: a disk file system writes it back while it stays mapped.
    fn page_dirtied(&self, index: u64) {
        let _ = index;
    }

    /// Sets the file's size, dropping data past `len` or adding a hole.
    fn truncate(&self, len: u64) -> Result<()> {
        let _ = len;
        Err(data_op_error(self.file_type()))
    }

    /// fallocate(2) on a regular file: `mode` is Linux's `FALLOC_FL_*`
    /// bits, already checked by the kernel for the combinations every file
    /// system refuses alike (vfs_fallocate); `offset + len` does not
    /// overflow an `i64`. Growing the file past `size_limit` (the caller's
    /// RLIMIT_FSIZE) fails with EFBIG, as does going past the file
    /// system's largest file. A file system without the operation, or
    /// without this mode, answers EOPNOTSUPP.
    fn fallocate(&self, mode: u32, offset: u64, len: u64, size_limit: u64) -> Result<()> {
        let _ = (mode, offset, len, size_limit);
        Err(Errno::EOPNOTSUPP)
    }

    /// lseek's SEEK_DATA (`data`) and SEEK_HOLE on a regular file: the
    /// first offset at or after `offset` that is data (or a hole; the end
    /// of the file counts as a hole); ENXIO when `offset` is at or past the
    /// end, or no data follows. The default sees the whole file as data.
    fn seek_data_hole(&self, offset: u64, data: bool) -> Result<u64> {
        let size = self.stat()?.size;
        if offset >= size {
            return Err(Errno::ENXIO);
        }
        Ok(if data { offset } else { size })
    }

    /// FS_IOC_FIEMAP: the file's mapped runs that meet bytes
    /// `[start, start + len)` (the kernel has clipped the range to the
    /// largest file), in order, as the file system's fiemap reports them;
    /// `flags` is the request's `fm_flags`, left as the reply's: flags the
    /// file system does not know fail with EBADR and `flags` set to them.
    /// A file system without fiemap answers EOPNOTSUPP.
    fn fiemap(&self, start: u64, len: u64, flags: &mut u32) -> Result<Vec<crate::MappedRun>> {
        let _ = (start, len, flags);
        Err(Errno::EOPNOTSUPP)
    }

    /// FIBMAP: the disk block holding file block `block` (0 for a hole or
    /// an unwritten block); EINVAL where the file system has no bmap.
    fn bmap(&self, block: u64) -> Result<u64> {
        let _ = block;
        Err(Errno::EINVAL)
    }

    /// Finds the entry `name` in this directory. `"."` is the directory
    /// itself and `".."` its parent (a file system's root is its own parent;
    /// crossing mounts is the path walker's job).
    fn lookup(&self, name: &[u8]) -> Result<Arc<dyn Inode>> {
        let _ = name;
        Err(dir_op_error(self.file_type()))
    }

    /// Creates an entry `name` of type `file_type` (not a symlink: see
    /// [`Inode::symlink`]) with permission bits `mode`, owner `uid`/`gid`
    /// and, for device nodes, device number `rdev`. Fails with EEXIST if the
    /// name exists.
    fn create(
        &self,
        name: &[u8],
        file_type: FileType,
        mode: u32,
        uid: u32,
        gid: u32,
        rdev: u64,
    ) -> Result<Arc<dyn Inode>> {
        let _ = (name, file_type, mode, uid, gid, rdev);
        Err(dir_op_error(self.file_type()))
    }

    /// Creates a symbolic link `name` pointing at `target`.
    fn symlink(&self, name: &[u8], target: &[u8], uid: u32, gid: u32) -> Result<Arc<dyn Inode>> {
        let _ = (name, target, uid, gid);
        Err(dir_op_error(self.file_type()))
    }

    /// Returns a symbolic link's target.
    fn read_link(&self) -> Result<Vec<u8>> {
        Err(Errno::EINVAL)
    }

    /// For a "magic" symbolic link, returns the node it stands for: path
    /// resolution jumps straight to that node instead of walking the text
    /// [`Inode::read_link`] gives. procfs's `/proc/PID/fd/N`, `exe`, `cwd`
    /// and `root` are such links: their target may have been renamed,
    /// unlinked, or never had a path (a pipe). `None` (the default) makes
    /// the link an ordinary one.
    fn magic_link(&self) -> Option<Result<Arc<dyn Inode>>> {
        None
    }

    /// The mount through which `node`, what [`Inode::magic_link`] gave,
    /// was reached when it was opened (an open file's), so that a walk
    /// through the link goes on in that mount and its flags apply (a
    /// read-only bind elsewhere of the same file system does not);
    /// [`NO_MOUNT`](crate::NO_MOUNT) when it is not known.
    fn magic_link_mount(&self, node: &Arc<dyn Inode>) -> crate::MountId {
        let _ = node;
        crate::NO_MOUNT
    }

    /// Adds the hard link `name` to `target`, which must be a non-directory
    /// on the same file system (else EPERM or EXDEV).
    fn link(&self, name: &[u8], target: &Arc<dyn Inode>) -> Result<()> {
        let _ = (name, target);
        Err(dir_op_error(self.file_type()))
    }

    /// Removes the non-directory entry `name` (EISDIR for a directory).
    fn unlink(&self, name: &[u8]) -> Result<()> {
        let _ = name;
        Err(dir_op_error(self.file_type()))
    }

    /// Removes the empty directory `name` (ENOTDIR, ENOTEMPTY otherwise).
    fn rmdir(&self, name: &[u8]) -> Result<()> {
        let _ = name;
        Err(dir_op_error(self.file_type()))
    }

    /// Moves entry `old_name` of this directory to `new_name` in `new_dir`,
    /// as `renameat2` with `flags`.
    fn rename(
        &self,
        old_name: &[u8],
        new_dir: &Arc<dyn Inode>,
        new_name: &[u8],
        flags: RenameFlags,
    ) -> Result<()> {
        let _ = (old_name, new_dir, new_name, flags);
        Err(dir_op_error(self.file_type()))
    }

    /// Returns the directory entry at position `index` and the position of
    /// the next one, or `None` at the end. Position 0 starts the iteration,
    /// which includes `"."` and `".."`; positions are opaque cookies the
    /// kernel keeps as the directory's file offset.
    fn read_dir(&self, index: usize) -> Result<Option<(DirEntry, usize)>> {
        let _ = index;
        Err(dir_op_error(self.file_type()))
    }

    /// Visits the entries from position `index` on, in [`Inode::read_dir`]
    /// order, calling `visit(entry, next_position)` for each until it
    /// returns false (the entry was not taken) or the directory ends.
    /// Returns the position to continue from: that of the first entry not
    /// taken. File systems override it to list a directory without a
    /// lookup and an allocation per entry (getdents64 fills a buffer).
    fn read_dir_with(&self, index: usize, visit: &mut dyn FnMut(&DirEntryRef<'_>, usize) -> bool) -> Result<usize> {
        let mut pos = index;
        while let Some((entry, next)) = self.read_dir(pos)? {
            let entry = DirEntryRef { ino: entry.ino, file_type: entry.file_type, name: &entry.name };
            if !visit(&entry, next) {
                break;
            }
            pos = next;
        }
        Ok(pos)
    }
}

/// Returns the error for a directory operation a node of type `t` lacks:
/// EPERM for a directory that does not allow it, ENOTDIR for anything else.
fn dir_op_error(t: FileType) -> Errno {
    if t.is_dir() {
        Errno::EPERM
    } else {
        Errno::ENOTDIR
    }
}

/// Returns the error for a data operation a node of type `t` lacks.
fn data_op_error(t: FileType) -> Errno {
    if t.is_dir() {
        Errno::EISDIR
    } else {
        Errno::EINVAL
    }
}

/// Tells whether two nodes are the same inode (same file system and number).
pub fn same_inode(a: &dyn Inode, b: &dyn Inode) -> bool {
    a.fs_id() == b.fs_id() && a.ino() == b.ino()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A node implementing only the required methods, to exercise defaults.
    struct Bare(FileType);

    impl Inode for Bare {
        fn fs_id(&self) -> u64 {
            7
        }
        fn ino(&self) -> u64 {
            self.0 as u64
        }
        fn file_type(&self) -> FileType {
            self.0
        }
        fn stat(&self) -> Result<Stat> {
            Ok(Stat::default())
        }
        fn as_any(&self) -> &dyn Any {
            self
        }
    }

    #[test]
    fn defaults_for_a_directory() {
        let d: Arc<dyn Inode> = Arc::new(Bare(FileType::Directory));
        let mut buf = [0u8; 4];
        assert_eq!(d.read_at(0, &mut buf), Err(Errno::EISDIR));
        assert_eq!(d.write_at(0, b"x"), Err(Errno::EISDIR));
        assert_eq!(d.truncate(0).err(), Some(Errno::EISDIR));
        assert_eq!(d.lookup(b"x").err(), Some(Errno::EPERM));
        assert_eq!(
            d.create(b"x", FileType::Regular, 0o644, 0, 0, 0).err(),
            Some(Errno::EPERM)
        );
        assert_eq!(d.unlink(b"x"), Err(Errno::EPERM));
        assert_eq!(
            d.rename(b"x", &d, b"y", RenameFlags::EMPTY),
            Err(Errno::EPERM)
        );
        assert_eq!(d.read_link(), Err(Errno::EINVAL));
        assert_eq!(d.set_attr(&SetAttr::default()), Err(Errno::EPERM));
        assert!(d.is_seekable());
    }

    #[test]
    fn defaults_for_non_directories() {
        for t in [
            FileType::Regular,
            FileType::Symlink,
            FileType::Fifo,
            FileType::CharDevice,
        ] {
            let n: Arc<dyn Inode> = Arc::new(Bare(t));
            let mut buf = [0u8; 4];
            assert_eq!(n.read_at(0, &mut buf), Err(Errno::EINVAL));
            assert_eq!(n.write_at(0, b"x"), Err(Errno::EINVAL));
            assert_eq!(n.lookup(b"x").err(), Some(Errno::ENOTDIR));
            assert_eq!(n.symlink(b"x", b"y", 0, 0).err(), Some(Errno::ENOTDIR));
            assert_eq!(n.link(b"x", &n), Err(Errno::ENOTDIR));
            assert_eq!(n.rmdir(b"x"), Err(Errno::ENOTDIR));
            assert_eq!(n.read_dir(0).err(), Some(Errno::ENOTDIR));
        }
        assert!(!Bare(FileType::Fifo).is_seekable());
        assert!(!Bare(FileType::Socket).is_seekable());
        assert!(Bare(FileType::CharDevice).is_seekable());
    }

    #[test]
    fn identity_and_downcast() {
        let a: Arc<dyn Inode> = Arc::new(Bare(FileType::Regular));
        let b: Arc<dyn Inode> = Arc::new(Bare(FileType::Regular));
        let c: Arc<dyn Inode> = Arc::new(Bare(FileType::Fifo));
        assert!(same_inode(&*a, &*b));
        assert!(!same_inode(&*a, &*c));
        assert!(a.as_any().downcast_ref::<Bare>().is_some());
    }

    #[test]
    fn manual_clock_moves() {
        let c = ManualClock::new(Timespec::new(10, 900_000_000));
        assert_eq!(c.now(), Timespec::new(10, 900_000_000));
        c.advance(1, 200_000_000);
        assert_eq!(c.now(), Timespec::new(12, 100_000_000));
        c.advance(0, 2_500_000_000);
        assert_eq!(c.now(), Timespec::new(14, 600_000_000));
        c.set(Timespec::new(5, 0));
        assert_eq!(c.now(), Timespec::new(5, 0));
    }
}
