//! Open files: the object an fd refers to, and the operations each kind of
//! file (regular file, directory, pipe, device, terminal) provides.

use alloc::sync::Arc;
use alloc::vec::Vec;
use core::sync::atomic::{AtomicU32, Ordering};

use kevlar_platform::sync::SpinLock;
use kevlar_vfs::{FileType, Inode, Stat};

use crate::error::{Errno, Result};

/// Readiness bits for poll (POLLIN, POLLOUT, ...).
pub type PollEvents = u16;
/// Data to read.
pub const POLLIN: PollEvents = linux_raw_sys::general::POLLIN as PollEvents;
/// Room to write.
pub const POLLOUT: PollEvents = linux_raw_sys::general::POLLOUT as PollEvents;
/// Error.
pub const POLLERR: PollEvents = linux_raw_sys::general::POLLERR as PollEvents;
/// The other end hung up.
pub const POLLHUP: PollEvents = linux_raw_sys::general::POLLHUP as PollEvents;
/// Invalid fd.
pub const POLLNVAL: PollEvents = linux_raw_sys::general::POLLNVAL as PollEvents;
/// Normal data to read (reported with POLLIN by pipes and terminals).
pub const POLLRDNORM: PollEvents = linux_raw_sys::general::POLLRDNORM as PollEvents;
/// Room for normal data (reported with POLLOUT by pipes and terminals).
pub const POLLWRNORM: PollEvents = linux_raw_sys::general::POLLWRNORM as PollEvents;
/// Room for priority data (sockets report it with POLLOUT).
pub const POLLWRBAND: PollEvents = linux_raw_sys::general::POLLWRBAND as PollEvents;
/// The peer shut down its sending side (stream sockets).
pub const POLLRDHUP: PollEvents = linux_raw_sys::general::POLLRDHUP as PollEvents;

/// Wakes the pollers of files without a readiness queue of their own
/// (the fallback queue, `poll_queue::GLOBAL`) after a readiness change.
/// Files with a queue notify it instead (`FileOps::poll_queue`).
pub fn notify_pollers() {
    super::poll_queue::GLOBAL.notify(0);
}

/// What a kind of open file can do. Offsets are managed by [`OpenFile`];
/// stream-like files ignore them.
pub trait FileOps: Send + Sync {
    /// Reads into `buf` at `offset`; returns the byte count (0 at end).
    fn read(&self, file: &OpenFile, offset: u64, buf: &mut [u8]) -> Result<usize>;
    /// Writes `buf` at `offset`; returns the byte count.
    fn write(&self, file: &OpenFile, offset: u64, buf: &[u8]) -> Result<usize>;
    /// Reads up to `len` bytes at `offset` straight from the file's pages
    /// into `io` (see `userio`); `None`: the file has no pages to read
    /// from (the caller uses [`FileOps::read`]).
    fn read_pages(&self, _file: &OpenFile, _offset: u64, _len: usize, _io: &mut dyn kevlar_vfs::PageIo) -> Option<Result<usize>> {
        None
    }
    /// Writes `len` bytes from `io` at `offset` straight into the file's
    /// pages; `None` as for [`FileOps::read_pages`].
    fn write_pages(&self, _file: &OpenFile, _offset: u64, _len: usize, _io: &mut dyn kevlar_vfs::PageIo) -> Option<Result<usize>> {
        None
    }
    /// Returns the file's metadata.
    fn stat(&self) -> Result<Stat>;
    /// Returns whether lseek works (false for pipes and terminals).
    fn is_seekable(&self) -> bool {
        true
    }
    /// Returns whether the position never moves (lseek always yields 0:
    /// /dev/null, /dev/zero).
    fn fixed_position(&self) -> bool {
        false
    }
    /// Handles lseek itself (a file whose position is not a byte offset,
    /// such as /dev/kmsg's record sequence); `None` leaves it to the
    /// generic code.
    fn seek(&self, _file: &OpenFile, _offset: i64, _whence: u32) -> Option<Result<u64>> {
        None
    }
    /// Returns the size used by SEEK_END.
    fn size(&self) -> Result<u64> {
        Ok(self.stat()?.size)
    }
    /// Handles an ioctl.
    fn ioctl(&self, _file: &OpenFile, _request: u32, _arg: usize) -> Result<isize> {
        Err(Errno::ENOTTY)
    }
    /// Returns the current readiness.
    fn poll(&self) -> PollEvents {
        // Linux's DEFAULT_POLLMASK, what vfs_poll gives a file without a
        // poll method.
        POLLIN | POLLOUT | POLLRDNORM | POLLWRNORM
    }
    /// The queue this file notifies after each change of its readiness
    /// (None: it wakes the global fallback queue, `notify_pollers`).
    fn poll_queue(&self) -> Option<&super::poll_queue::PollQueue> {
        None
    }
    /// The inode behind the file, for fstat/fchdir/getdents/ftruncate.
    fn inode(&self) -> Option<Arc<dyn Inode>> {
        None
    }
    /// Called when the last fd referring to this open file closes.
    fn release(&self, _file: &OpenFile) {}
    /// Whether mmap of the file gives anonymous memory instead (/dev/zero:
    /// private mappings are private anonymous memory, shared ones shared
    /// anonymous memory, as on Linux).
    fn maps_as_anonymous(&self) -> bool {
        false
    }
    /// The pipe behind a pipe end or FIFO (F_GETPIPE_SZ).
    fn pipe(&self) -> Option<Arc<super::pipe::Pipe>> {
        None
    }
    /// Returns whether epoll may watch the file: Linux's files with a poll
    /// method (pipes, terminals, the event files); regular files,
    /// directories and the memory devices have none (EPERM).
    fn is_pollable(&self) -> bool {
        false
    }
    /// Counts wake-ups that may have made the file readable, and those
    /// that may have made it writable, so far: edge-triggered epoll
    /// reports an event again when its count moved.
    fn poll_counts(&self) -> (u64, u64) {
        (0, 0)
    }
    /// The epoll instance, when the file is one.
    fn as_epoll(&self) -> Option<&super::epoll::Epoll> {
        None
    }
    /// The timer, when the file is a timerfd.
    fn as_timerfd(&self) -> Option<&super::timerfd::TimerFd> {
        None
    }
    /// The signalfd, when the file is one.
    fn as_signalfd(&self) -> Option<&super::signalfd::SignalFd> {
        None
    }
    /// The socket, when the file is one.
    fn as_socket(&self) -> Option<&crate::net::SocketFile> {
        None
    }
    /// The eventfd, when the file is one (aio's IOCB_FLAG_RESFD).
    fn as_eventfd(&self) -> Option<&super::eventfd::EventFd> {
        None
    }
    /// The pidfd, when the file is one.
    fn as_pidfd(&self) -> Option<&super::pidfd::PidFd> {
        None
    }
    /// The POSIX message queue, when the file is one.
    fn as_mqueue(&self) -> Option<&crate::ipc::mqueue::MqFile> {
        None
    }
    /// The file-system context, when the file is one (fsopen).
    fn as_fs_context(&self) -> Option<&super::newmount::FsContextFile> {
        None
    }
    /// The inotify instance, when the file is one.
    fn as_inotify(&self) -> Option<&super::notify::inotify::Inotify> {
        None
    }
    /// The fanotify group, when the file is one.
    fn as_fanotify(&self) -> Option<&super::notify::fanotify::Group> {
        None
    }
    /// fsync/fdatasync of a file that is not a file system's node (a
    /// block device flushes its disk); `None`: the node's file system.
    fn sync(&self) -> Option<Result<()>> {
        None
    }
    /// fallocate(2) on a file that is not a file system's regular file (a
    /// block device); `None`: the node's file system does it.
    fn fallocate(&self, _file: &OpenFile, _mode: u32, _offset: u64, _len: u64) -> Option<Result<()>> {
        None
    }
    /// Lines /proc/PID/fdinfo shows after the common ones for this kind
    /// of file.
    fn fdinfo(&self) -> Option<alloc::string::String> {
        None
    }
}

/// An open file description (shared by dup'd fds and across fork).
pub struct OpenFile {
    /// The kind-specific operations.
    pub ops: Arc<dyn FileOps>,
    /// O_* status flags (O_APPEND, O_NONBLOCK, the access mode).
    flags: AtomicU32,
    /// The file position.
    pub offset: SpinLock<u64>,
    /// The absolute path it was opened by (for /proc and fchdir).
    pub path: Vec<u8>,
    /// Signal-driven I/O: whom to signal, with what (F_SETOWN, F_SETSIG).
    async_state: SpinLock<super::fasync::AsyncState>,
    /// A regular file opened for writing holds write access to it (a
    /// program running from it refuses that with ETXTBSY).
    _write_access: Option<super::writecount::WriteAccess>,
    /// The mount it was opened through (`kevlar_vfs::NO_MOUNT`: not
    /// known): what its per-mount flags and a walk from it start with.
    mnt: AtomicU32,
    /// Counts it in /proc/sys/fs/file-nr while it lives.
    _count: super::sysctl::FileCount,
}

impl OpenFile {
    /// Wraps `ops` as a new open file description.
    pub fn new(ops: Arc<dyn FileOps>, flags: u32, path: Vec<u8>) -> Arc<OpenFile> {
        Arc::new(OpenFile { ops, flags: AtomicU32::new(flags), offset: SpinLock::new(0), path, async_state: SpinLock::new(Default::default()), _write_access: None, mnt: AtomicU32::new(0), _count: super::sysctl::FileCount::new() })
    }

    /// Wraps `ops` as [`OpenFile::new`] does, holding `access` while open.
    pub fn with_write_access(ops: Arc<dyn FileOps>, flags: u32, path: Vec<u8>, access: Option<super::writecount::WriteAccess>) -> Arc<OpenFile> {
        Arc::new(OpenFile { ops, flags: AtomicU32::new(flags), offset: SpinLock::new(0), path, async_state: SpinLock::new(Default::default()), _write_access: access, mnt: AtomicU32::new(0), _count: super::sysctl::FileCount::new() })
    }

    /// Records the mount the file was opened through.
    pub fn set_mount(&self, mnt: kevlar_vfs::MountId) {
        self.mnt.store(mnt, Ordering::Relaxed);
    }

    /// Returns the mount the file was opened through (NO_MOUNT: not known).
    pub fn mount_id(&self) -> kevlar_vfs::MountId {
        self.mnt.load(Ordering::Relaxed)
    }

    /// Returns the status flags.
    pub fn flags(&self) -> u32 {
        self.flags.load(Ordering::Relaxed)
    }

    /// Replaces the settable status flags (F_SETFL, FIONBIO, FIOASYNC);
    /// `fd` is the descriptor the call came through (O_ASYNC's signals
    /// name it in si_fd).
    pub fn set_status_flags(self: &Arc<Self>, fd: i32, flags: u32) {
        use linux_raw_sys::general::{FASYNC as O_ASYNC, O_APPEND, O_NONBLOCK};
        let settable = O_APPEND | O_NONBLOCK | O_ASYNC;
        let old = self.flags();
        self.flags.store((old & !settable) | (flags & settable), Ordering::Relaxed);
        if (old ^ flags) & O_ASYNC != 0 {
            super::fasync::set_async(self, fd, flags & O_ASYNC != 0);
        }
    }

    /// The signal-driven I/O settings.
    pub fn async_state(&self) -> super::fasync::AsyncState {
        *self.async_state.lock()
    }

    /// Changes the signal-driven I/O settings.
    pub fn update_async_state(&self, f: impl FnOnce(&mut super::fasync::AsyncState)) {
        f(&mut self.async_state.lock());
    }

    /// Returns whether reads are allowed by the access mode.
    pub fn readable(&self) -> bool {
        if self.flags() & linux_raw_sys::general::O_PATH != 0 {
            return false;
        }
        let mode = self.flags() & linux_raw_sys::general::O_ACCMODE;
        mode == linux_raw_sys::general::O_RDONLY || mode == linux_raw_sys::general::O_RDWR
    }

    /// Returns whether writes are allowed by the access mode.
    pub fn writable(&self) -> bool {
        if self.flags() & linux_raw_sys::general::O_PATH != 0 {
            return false;
        }
        let mode = self.flags() & linux_raw_sys::general::O_ACCMODE;
        mode == linux_raw_sys::general::O_WRONLY || mode == linux_raw_sys::general::O_RDWR
    }

    /// Returns whether O_NONBLOCK is set.
    pub fn nonblocking(&self) -> bool {
        self.flags() & linux_raw_sys::general::O_NONBLOCK != 0
    }

    /// Reads at the file position and advances it.
    pub fn read(&self, buf: &mut [u8]) -> Result<usize> {
        if !self.readable() {
            return Err(Errno::EBADF);
        }
        if !self.ops.is_seekable() {
            return self.ops.read(self, 0, buf);
        }
        let mut offset = self.offset.lock();
        let n = self.ops.read(self, *offset, buf)?;
        *offset += n as u64;
        Ok(n)
    }

    /// [`OpenFile::read`] straight from the file's pages into `io`.
    pub fn read_pages(&self, len: usize, io: &mut dyn kevlar_vfs::PageIo) -> Option<Result<usize>> {
        if !self.readable() {
            return Some(Err(Errno::EBADF));
        }
        if !self.ops.is_seekable() {
            return None;
        }
        let mut offset = self.offset.lock();
        let result = self.ops.read_pages(self, *offset, len, io);
        if let Some(Ok(n)) = result {
            *offset += n as u64;
        }
        result
    }

    /// [`OpenFile::write`] straight from `io` into the file's pages.
    pub fn write_pages(&self, len: usize, io: &mut dyn kevlar_vfs::PageIo) -> Option<Result<usize>> {
        if !self.writable() {
            return Some(Err(Errno::EBADF));
        }
        if !self.ops.is_seekable() {
            return None;
        }
        let mut offset = self.offset.lock();
        if self.flags() & linux_raw_sys::general::O_APPEND != 0 {
            match self.ops.size() {
                Ok(size) => *offset = size,
                Err(e) => return Some(Err(e)),
            }
        }
        let result = self.ops.write_pages(self, *offset, len, io);
        if let Some(Ok(n)) = result {
            *offset += n as u64;
        }
        result
    }

    /// Writes at the file position (the end with O_APPEND) and advances it.
    pub fn write(&self, buf: &[u8]) -> Result<usize> {
        if !self.writable() {
            return Err(Errno::EBADF);
        }
        if !self.ops.is_seekable() {
            return self.ops.write(self, 0, buf);
        }
        let mut offset = self.offset.lock();
        if self.flags() & linux_raw_sys::general::O_APPEND != 0 {
            *offset = self.ops.size()?;
        }
        let n = self.ops.write(self, *offset, buf)?;
        *offset += n as u64;
        Ok(n)
    }
}

impl Drop for OpenFile {
    fn drop(&mut self) {
        super::locks::release_flock(self as *const OpenFile as usize);
        let ops = self.ops.clone();
        ops.release(self);
    }
}

/// A regular file, directory or symlink opened through the VFS.
pub struct InodeFile {
    inode: Arc<dyn Inode>,
    /// Whether the node keeps its data in pages (`read_pages` works):
    /// 0 not known yet, 1 yes, 2 no.
    paged: core::sync::atomic::AtomicU8,
}

impl InodeFile {
    /// Wraps an inode.
    pub fn new(inode: Arc<dyn Inode>) -> Arc<InodeFile> {
        Arc::new(InodeFile { inode, paged: core::sync::atomic::AtomicU8::new(0) })
    }

    /// Whether the node is a regular file kept in pages; asked of the node
    /// once (an empty `read_pages`), before anything else happens, so a
    /// file without pages goes to `read`/`write` with no hook run twice.
    fn paged(&self) -> bool {
        match self.paged.load(Ordering::Relaxed) {
            1 => true,
            2 => false,
            _ => {
                let yes = self.inode.file_type() == FileType::Regular && self.inode.read_pages(0, 0, &mut kevlar_vfs::SliceOut::new(&mut [])).is_some();
                self.paged.store(if yes { 1 } else { 2 }, Ordering::Relaxed);
                yes
            }
        }
    }
}

impl FileOps for InodeFile {
    fn read(&self, file: &OpenFile, offset: u64, buf: &mut [u8]) -> Result<usize> {
        super::notify::read_permission(file)?;
        let n = self.inode.read_at(offset, buf)?;
        if n > 0 {
            super::notify::accessed(file, &*self.inode);
        }
        Ok(n)
    }

    fn write(&self, file: &OpenFile, offset: u64, buf: &[u8]) -> Result<usize> {
        let len = if self.inode.file_type() == FileType::Regular {
            let len = super::memfd::check_write(&*self.inode, offset, buf.len())?;
            clamp_to_file_size_limit(offset, len)?
        } else {
            buf.len()
        };
        let n = self.inode.write_at(offset, &buf[..len])?;
        if n > 0 {
            super::notify::modified(file, &*self.inode);
        }
        Ok(n)
    }

    fn read_pages(&self, file: &OpenFile, offset: u64, len: usize, io: &mut dyn kevlar_vfs::PageIo) -> Option<Result<usize>> {
        if !self.paged() {
            return None;
        }
        if let Err(e) = super::notify::read_permission(file) {
            return Some(Err(e));
        }
        let n = match self.inode.read_pages(offset, len, io)? {
            Ok(n) => n,
            Err(e) => return Some(Err(e)),
        };
        if n > 0 {
            super::notify::accessed(file, &*self.inode);
        }
        Some(Ok(n))
    }

    fn write_pages(&self, file: &OpenFile, offset: u64, len: usize, io: &mut dyn kevlar_vfs::PageIo) -> Option<Result<usize>> {
        if !self.paged() {
            return None;
        }
        let len = match super::memfd::check_write(&*self.inode, offset, len).and_then(|len| clamp_to_file_size_limit(offset, len)) {
            Ok(len) => len,
            Err(e) => return Some(Err(e)),
        };
        let n = match self.inode.write_pages(offset, len, io)? {
            Ok(n) => n,
            Err(e) => return Some(Err(e)),
        };
        if n > 0 {
            super::notify::modified(file, &*self.inode);
        }
        Some(Ok(n))
    }

    fn release(&self, file: &OpenFile) {
        super::notify::closed(file, &*self.inode);
    }

    fn stat(&self) -> Result<Stat> {
        Ok(self.inode.stat()?)
    }

    fn inode(&self) -> Option<Arc<dyn Inode>> {
        Some(self.inode.clone())
    }

    fn is_seekable(&self) -> bool {
        self.inode.file_type() != FileType::Fifo
    }
}

/// Returns the current process's RLIMIT_FSIZE soft limit (unlimited in
/// kernel context).
pub(crate) fn file_size_limit() -> u64 {
    match crate::process::current() {
        Some(thread) => thread.process.limits.lock()[linux_raw_sys::general::RLIMIT_FSIZE as usize][0],
        None => u64::MAX,
    }
}

/// Sends SIGXFSZ to the current process, as Linux does before failing a
/// write or truncate past RLIMIT_FSIZE with EFBIG.
pub(crate) fn signal_file_too_big() -> Errno {
    if let Some(thread) = crate::process::current() {
        crate::process::signal::send_signal_to_current(&thread, linux_raw_sys::general::SIGXFSZ);
    }
    Errno::EFBIG
}

/// Applies RLIMIT_FSIZE to a write of `len` bytes at `offset` into a
/// regular file: a write starting at or past the limit raises SIGXFSZ and
/// fails with EFBIG; one crossing it is cut short at the limit. An empty
/// write is never refused (Linux checks the length first).
pub fn clamp_to_file_size_limit(offset: u64, len: usize) -> Result<usize> {
    if len == 0 {
        return Ok(0);
    }
    let limit = file_size_limit();
    if limit == u64::MAX {
        return Ok(len);
    }
    if offset >= limit {
        return Err(signal_file_too_big());
    }
    Ok(len.min((limit - offset).min(usize::MAX as u64) as usize))
}

/// Applies RLIMIT_FSIZE to truncating a file of `old_size` bytes to
/// `new_size`: growing it past the limit raises SIGXFSZ and fails with
/// EFBIG; shrinking is always allowed.
pub fn check_truncate_size_limit(old_size: u64, new_size: u64) -> Result<()> {
    let limit = file_size_limit();
    if new_size > old_size && limit != u64::MAX && new_size > limit {
        return Err(signal_file_too_big());
    }
    Ok(())
}
