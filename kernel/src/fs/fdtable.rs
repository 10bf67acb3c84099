//! The file-descriptor table.

use alloc::sync::Arc;
use alloc::vec::Vec;

use super::file::OpenFile;
use crate::error::{Errno, Result};

/// The most fds a process may ever have (Linux's /proc/sys/fs/nr_open
/// default): RLIMIT_NOFILE may be raised up to it.
pub const NR_OPEN: usize = 1 << 20;
/// RLIMIT_NOFILE's default soft limit.
pub const DEFAULT_NOFILE: usize = 1024;

#[derive(Clone)]
struct Slot {
    file: Arc<OpenFile>,
    cloexec: bool,
}

/// Whether the calling process has CAP_SYS_ADMIN (the kernel's own
/// callers count as privileged).
fn caller_is_admin() -> bool {
    crate::process::current().is_none_or(|t| t.process.creds.lock().has_cap(linux_raw_sys::general::CAP_SYS_ADMIN))
}

/// A process's fds.
#[derive(Clone)]
pub struct FdTable {
    slots: Vec<Option<Slot>>,
    /// RLIMIT_NOFILE: new fds must be below it.
    limit: usize,
    /// Every slot below this one is in use (where the search for the
    /// lowest free fd starts, as Linux's next_fd: without it a process
    /// making fd after fd scanned all of its table each time).
    free_from: usize,
}

impl Default for FdTable {
    fn default() -> Self {
        Self::new()
    }
}

impl FdTable {
    /// Creates an empty table.
    pub fn new() -> Self {
        Self { slots: Vec::new(), limit: DEFAULT_NOFILE, free_from: 0 }
    }

    /// Returns the open file of `fd`.
    pub fn get(&self, fd: i32) -> Result<Arc<OpenFile>> {
        self.slot(fd).map(|s| s.file.clone())
    }

    /// Returns every open file (once per fd).
    pub fn files(&self) -> Vec<Arc<OpenFile>> {
        self.slots.iter().flatten().map(|s| s.file.clone()).collect()
    }

    fn slot(&self, fd: i32) -> Result<&Slot> {
        usize::try_from(fd).ok().and_then(|i| self.slots.get(i)).and_then(|s| s.as_ref()).ok_or(Errno::EBADF)
    }

    /// Installs `file` at the lowest free fd >= `min`.
    pub fn insert_from(&mut self, min: usize, file: Arc<OpenFile>, cloexec: bool) -> Result<i32> {
        let start = min.max(self.free_from);
        let fd = (start..self.limit()).find(|&i| self.slots.get(i).is_none_or(|s| s.is_none())).ok_or(Errno::EMFILE)?;
        // A new open file description (no one else holds it yet) past
        // /proc/sys/fs/file-max fails for a caller without CAP_SYS_ADMIN
        // (Linux's alloc_empty_file; after the fd, as Linux's order).
        if Arc::strong_count(&file) == 1 && super::sysctl::over_file_max() && !caller_is_admin() {
            return Err(Errno::ENFILE);
        }
        // A new descriptor keeps its file (and its socket, epoll or timer
        // state) on the heap: not past half of the reserve.
        crate::mm::kbuf::check_object()?;
        self.grow(fd)?;
        self.put(fd, file, cloexec);
        if min <= self.free_from {
            // Everything from free_from to fd was in use, and fd is now.
            self.free_from = fd + 1;
        }
        Ok(fd as i32)
    }

    /// Returns the limit on fd numbers.
    pub fn limit(&self) -> usize {
        self.limit.min(super::sysctl::nr_open())
    }

    /// Sets the highest fd number + 1 that new fds may use.
    pub fn set_limit(&mut self, limit: usize) {
        self.limit = limit;
    }

    /// Installs `file` at the lowest free fd.
    pub fn insert(&mut self, file: Arc<OpenFile>, cloexec: bool) -> Result<i32> {
        self.insert_from(0, file, cloexec)
    }

    /// Makes room for slot `fd` (ENOMEM rather than a panic when the heap
    /// cannot have it: up to NR_OPEN slots of 24 bytes).
    pub fn grow(&mut self, fd: usize) -> Result<()> {
        let len = self.slots.len();
        if len <= fd {
            crate::mm::kbuf::reserve(&mut self.slots, fd + 1 - len)?;
        }
        Ok(())
    }

    /// Installs `file` at exactly `fd`, closing what was there.
    pub fn put(&mut self, fd: usize, file: Arc<OpenFile>, cloexec: bool) -> Option<Arc<OpenFile>> {
        if self.slots.len() <= fd {
            self.slots.resize(fd + 1, None);
        }
        self.slots[fd].replace(Slot { file, cloexec }).map(|s| s.file)
    }

    /// Closes `fd`, returning its file.
    pub fn close(&mut self, fd: i32) -> Result<Arc<OpenFile>> {
        let index = usize::try_from(fd).map_err(|_| Errno::EBADF)?;
        let file = self.slots.get_mut(index).and_then(Option::take).map(|s| s.file).ok_or(Errno::EBADF)?;
        self.free_from = self.free_from.min(index);
        Ok(file)
    }

    /// Returns the close-on-exec flag of `fd`.
    pub fn cloexec(&self, fd: i32) -> Result<bool> {
        self.slot(fd).map(|s| s.cloexec)
    }

    /// Sets the close-on-exec flag of `fd`.
    pub fn set_cloexec(&mut self, fd: i32, cloexec: bool) -> Result<()> {
        let index = usize::try_from(fd).map_err(|_| Errno::EBADF)?;
        let slot = self.slots.get_mut(index).and_then(Option::as_mut).ok_or(Errno::EBADF)?;
        slot.cloexec = cloexec;
        Ok(())
    }

    /// Returns the open fds in order, with their files and close-on-exec
    /// flags (/proc/PID/fd).
    pub fn iter(&self) -> impl Iterator<Item = (i32, &Arc<OpenFile>, bool)> {
        self.slots.iter().enumerate().filter_map(|(fd, slot)| slot.as_ref().map(|s| (fd as i32, &s.file, s.cloexec)))
    }

    /// Returns how many fd slots the table has (/proc/PID/status's FDSize).
    pub fn capacity(&self) -> usize {
        self.slots.len()
    }

    /// Closes every close-on-exec fd (execve).
    pub fn close_on_exec(&mut self) {
        for slot in self.slots.iter_mut() {
            if slot.as_ref().is_some_and(|s| s.cloexec) {
                *slot = None;
            }
        }
        self.free_from = 0;
    }

    /// Closes (or marks close-on-exec) fds in `[first, last]`.
    pub fn close_range(&mut self, first: usize, last: usize, only_cloexec: bool) {
        let end = last.min(self.slots.len().saturating_sub(1));
        for fd in first..=end {
            if fd >= self.slots.len() {
                break;
            }
            if only_cloexec {
                if let Some(slot) = self.slots[fd].as_mut() {
                    slot.cloexec = true;
                }
            } else {
                self.slots[fd] = None;
                self.free_from = self.free_from.min(fd);
            }
        }
    }

}
