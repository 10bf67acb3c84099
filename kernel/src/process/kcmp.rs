//! kcmp(2): whether two tasks share a kernel resource, as Linux's
//! kernel/kcmp.c.
//!
//! Each resource is named by a key, the address of the object that holds
//! it (or 0 when the task has none yet: Linux's NULL pointer, as for the
//! SEM_UNDO list or the I/O context before they are made). Equal keys
//! give 0; different keys give 1 or 2 by the order of the keys after they
//! are scrambled with a secret drawn at the first call, so that the
//! result orders resources (checkpoint/restore sorts with it) without
//! telling user space where kernel objects are (Linux's kcmp_ptr).

use alloc::sync::Arc;

use kevlar_platform::sync::SpinLock;

use super::{Pid, Process};
use crate::error::{Errno, Result};
use crate::fs::file::OpenFile;

/// What to compare (Linux's enum kcmp_type).
pub enum Resource {
    /// KCMP_FILE: the open file descriptions of fd `idx1` of the first
    /// task and fd `idx2` of the second.
    File(i32, i32),
    /// KCMP_VM: the address spaces.
    Vm,
    /// KCMP_FILES: the fd tables.
    Files,
    /// KCMP_FS: root, cwd and umask.
    Fs,
    /// KCMP_SIGHAND: the signal dispositions.
    Sighand,
    /// KCMP_IO: the I/O contexts.
    Io,
    /// KCMP_SYSVSEM: the SEM_UNDO lists.
    Sysvsem,
    /// KCMP_EPOLL_TFD: fd `file` of the first task against the `nth`
    /// entry with fd `tfd` in the epoll instance at fd `efd` of the second.
    EpollTarget { file: i32, efd: i32, tfd: i32, nth: usize },
}

/// One side of a comparison: a task, by its process and thread id.
pub struct Task {
    pub process: Arc<Process>,
    pub tid: Pid,
}

/// The secrets that scramble keys, by resource type (drawn once).
static COOKIES: SpinLock<Option<[[u64; 2]; 8]>> = SpinLock::new(None);

fn scrambled(kind: usize, key: usize) -> u64 {
    let cookies = *COOKIES.lock().get_or_insert_with(|| {
        let mut bytes = [0u8; 128];
        crate::fs::devices::fill_random(&mut bytes);
        let mut c = [[0u64; 2]; 8];
        for (i, pair) in c.iter_mut().enumerate() {
            pair[0] = u64::from_le_bytes(bytes[i * 16..i * 16 + 8].try_into().unwrap());
            // Odd and with the top bit set, so that multiplying is a
            // permutation (Linux does the same).
            pair[1] = u64::from_le_bytes(bytes[i * 16 + 8..i * 16 + 16].try_into().unwrap()) | 1 | 1 << 63;
        }
        c
    });
    let [xor, mul] = cookies[kind % 8];
    (key as u64 ^ xor).wrapping_mul(mul)
}

/// 0 if the keys are equal, else 1 or 2 as their scrambled values order.
fn order(kind: usize, a: usize, b: usize) -> isize {
    if a == b {
        return 0;
    }
    if scrambled(kind, a) < scrambled(kind, b) {
        1
    } else {
        2
    }
}

fn fd_file(process: &Process, fd: i32) -> Result<Arc<OpenFile>> {
    let table = process.files.lock().clone();
    let file = table.lock().get(fd);
    file
}

fn addr<T: ?Sized>(arc: &Arc<T>) -> usize {
    Arc::as_ptr(arc) as *const u8 as usize
}

/// Compares `what` of tasks `a` and `b` (the caller has checked that it
/// may look at both).
pub fn compare(a: &Task, b: &Task, what: Resource) -> Result<isize> {
    let key = |t: &Task, what: &Resource| -> usize {
        match what {
            Resource::Vm => addr(&t.process.vm.lock()),
            Resource::Files => addr(&t.process.files.lock()),
            // A thread with a context of its own (unshare(CLONE_FS)) is
            // told apart from the others by that context's id.
            Resource::Fs => addr(&t.process).wrapping_add(t.process.fs.context_of(t.tid) as usize),
            Resource::Sighand => addr(&t.process),
            // No I/O context until an I/O priority is set.
            Resource::Io => {
                if t.process.ioprio.load(core::sync::atomic::Ordering::Relaxed) < 0 {
                    0
                } else {
                    addr(&t.process)
                }
            }
            Resource::Sysvsem => {
                if crate::ipc::sem::has_undo_list(t.process.pid) {
                    addr(&t.process)
                } else {
                    0
                }
            }
            Resource::File(..) | Resource::EpollTarget { .. } => 0,
        }
    };
    match what {
        Resource::File(fd1, fd2) => {
            let f1 = fd_file(&a.process, fd1);
            let f2 = fd_file(&b.process, fd2);
            match (f1, f2) {
                (Ok(f1), Ok(f2)) => Ok(order(0, addr(&f1), addr(&f2))),
                _ => Err(Errno::EBADF),
            }
        }
        Resource::EpollTarget { file, efd, tfd, nth } => {
            let f1 = fd_file(&a.process, file)?;
            let epoll_file = fd_file(&b.process, efd)?;
            let epoll = epoll_file.ops.as_epoll().ok_or(Errno::EINVAL)?;
            let target = epoll.target_file(tfd, nth).ok_or(Errno::ENOENT)?;
            Ok(order(0, addr(&f1), addr(&target)))
        }
        ref other => {
            let kind = match other {
                Resource::Vm => 1,
                Resource::Files => 2,
                Resource::Fs => 3,
                Resource::Sighand => 4,
                Resource::Io => 5,
                _ => 6,
            };
            Ok(order(kind, key(a, other), key(b, other)))
        }
    }
}
