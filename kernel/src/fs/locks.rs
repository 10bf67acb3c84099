//! Advisory file locks: POSIX record locks (fcntl F_SETLK/F_SETLKW/F_GETLK,
//! owned by a process, released when it closes any fd of the file or
//! exits) and BSD flock locks (owned by an open file description).

use alloc::vec::Vec;

use kevlar_platform::sync::SpinLock;
use linux_raw_sys::general as abi;

use crate::error::{Errno, Result};
use crate::process::wait_queue::WaitQueue;

/// Identifies a file: (filesystem id, inode number).
pub type FileKey = (u64, u64);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct RecordLock {
    file: FileKey,
    pid: i32,
    write: bool,
    start: u64,
    /// Inclusive end (u64::MAX: to end of file and beyond).
    end: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct FlockHolder {
    file: FileKey,
    /// The open file description (its address, as an identity).
    owner: usize,
    exclusive: bool,
}

struct Table {
    records: Vec<RecordLock>,
    flocks: Vec<FlockHolder>,
}

static TABLE: SpinLock<Table> = SpinLock::new(Table { records: Vec::new(), flocks: Vec::new() });
static WAITERS: WaitQueue = WaitQueue::new();

/// A record-lock request or answer (struct flock, made absolute).
#[derive(Clone, Copy, Debug)]
pub struct Record {
    /// F_RDLCK, F_WRLCK or F_UNLCK.
    pub kind: u32,
    /// First byte.
    pub start: u64,
    /// Last byte (inclusive).
    pub end: u64,
    /// The holder (F_GETLK answers).
    pub pid: i32,
}

fn overlaps(a: &RecordLock, start: u64, end: u64) -> bool {
    a.start <= end && start <= a.end
}

fn conflict(table: &Table, file: FileKey, pid: i32, write: bool, start: u64, end: u64) -> Option<RecordLock> {
    table.records.iter().copied().find(|l| l.file == file && l.pid != pid && overlaps(l, start, end) && (write || l.write))
}

/// F_GETLK: the first lock that would block `request`, or F_UNLCK.
pub fn test(file: FileKey, pid: i32, request: Record) -> Record {
    let table = TABLE.lock();
    match conflict(&table, file, pid, request.kind == abi::F_WRLCK, request.start, request.end) {
        Some(l) => Record { kind: if l.write { abi::F_WRLCK } else { abi::F_RDLCK }, start: l.start, end: l.end, pid: l.pid },
        None => Record { kind: abi::F_UNLCK, ..request },
    }
}

/// F_SETLK / F_SETLKW: takes, changes or releases a record lock.
pub fn set(file: FileKey, pid: i32, request: Record, wait: bool) -> Result<()> {
    let write = request.kind == abi::F_WRLCK;
    let apply = |table: &mut Table| {
        // Remove our own locks in the range (splitting at its edges), then
        // add the new one.
        let mut kept = Vec::new();
        for l in table.records.drain(..) {
            if l.file != file || l.pid != pid || !overlaps(&l, request.start, request.end) {
                kept.push(l);
                continue;
            }
            if l.start < request.start {
                kept.push(RecordLock { end: request.start - 1, ..l });
            }
            if l.end > request.end {
                kept.push(RecordLock { start: request.end + 1, ..l });
            }
        }
        table.records = kept;
        if request.kind != abi::F_UNLCK {
            table.records.push(RecordLock { file, pid, write, start: request.start, end: request.end });
        }
    };
    if request.kind == abi::F_UNLCK {
        apply(&mut TABLE.lock());
        WAITERS.wake_all();
        return Ok(());
    }
    WAITERS.wait_until(|| {
        let mut table = TABLE.lock();
        if conflict(&table, file, pid, write, request.start, request.end).is_some() {
            return if wait { Ok(None) } else { Err(Errno::EAGAIN) };
        }
        apply(&mut table);
        Ok(Some(()))
    })
}

/// Drops every record lock `pid` holds on `file` (any fd of it closed), or
/// on every file (`file` None: the process exits).
pub fn release_records(pid: i32, file: Option<FileKey>) {
    let mut table = TABLE.lock();
    let before = table.records.len();
    table.records.retain(|l| l.pid != pid || file.is_some_and(|f| f != l.file));
    let changed = table.records.len() != before;
    drop(table);
    if changed {
        WAITERS.wake_all();
    }
}

/// flock(2) on the open file description `owner`.
pub fn flock(file: FileKey, owner: usize, operation: u32) -> Result<()> {
    let nonblocking = operation & abi::LOCK_NB != 0;
    let op = operation & !abi::LOCK_NB;
    if op == abi::LOCK_UN {
        release_flock(owner);
        return Ok(());
    }
    let exclusive = match op {
        abi::LOCK_EX => true,
        abi::LOCK_SH => false,
        _ => return Err(Errno::EINVAL),
    };
    WAITERS.wait_until(|| {
        let mut table = TABLE.lock();
        let blocked = table.flocks.iter().any(|h| h.file == file && h.owner != owner && (exclusive || h.exclusive));
        if blocked {
            return if nonblocking { Err(Errno::EAGAIN) } else { Ok(None) };
        }
        // Converting a lock replaces the old one.
        table.flocks.retain(|h| h.owner != owner);
        table.flocks.push(FlockHolder { file, owner, exclusive });
        Ok(Some(()))
    })
}

/// Drops the flock held by an open file description (on its last close).
pub fn release_flock(owner: usize) {
    let mut table = TABLE.lock();
    let before = table.flocks.len();
    table.flocks.retain(|h| h.owner != owner);
    let changed = table.flocks.len() != before;
    drop(table);
    if changed {
        WAITERS.wake_all();
    }
}
