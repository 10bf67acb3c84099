//! The system call layer: one dispatch table indexed by the x86_64 numbers
//! from linux-raw-sys, and the helpers handlers share (argument decoding,
//! user strings and structs).
//!
//! Each family lives in its own file. An unknown number returns ENOSYS and
//! is logged once, by name.

mod adjtime;
mod aio;
mod caps;
mod prctl_caps;
mod prctl_mm;
mod events;
mod falloc;
mod fanotify;
mod fs;
mod fhandle;
mod iovec;

use crate::process::futex;
mod info;
mod ioport;
mod ipc;
mod keys;
mod mqueue;
mod itimer;
mod kcmp;
pub mod memory;
mod memfd;
mod mempolicy;
mod mlock;
mod mount;
mod newmount;
use crate::syscall_names as names;
mod ns;
mod openat2;
mod trim;
mod notify;
mod poll;
mod process;
mod process_madvise;
mod process_vm;
mod remap;
mod pidfd;
mod pkey;
mod ptrace;
mod rwv2;
mod utime;
mod sched;
mod sched_attr;
mod seccomp;
mod signal;
mod splice;
mod socket;
mod syslog;
mod time;
mod timer;
mod xattr;

use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::sync::atomic::{AtomicU64, Ordering};

use kevlar_platform::x86::trap::TrapFrame;
use crate::uaccess::copy_from_user;
use linux_raw_sys::general as nr;

use crate::error::{Errno, Result};
use crate::process::Thread;

/// The six argument registers of a system call.
#[derive(Clone, Copy)]
pub struct Args(pub [u64; 6]);

impl Args {
    /// The argument registers of the system call in `frame`.
    #[inline(always)]
    fn of(frame: &TrapFrame) -> Args {
        Args([frame.rdi, frame.rsi, frame.rdx, frame.r10, frame.r8, frame.r9])
    }
    fn usize(&self, i: usize) -> usize {
        self.0[i] as usize
    }
    fn i32(&self, i: usize) -> i32 {
        self.0[i] as i32
    }
    fn u32(&self, i: usize) -> u32 {
        self.0[i] as u32
    }
}

/// One bit per syscall number already reported as unimplemented; the
/// last bit stands for every number past the table, so no number, however
/// made up, is logged more than once (any user could flood the console).
static REPORTED: [AtomicU64; 8] = [const { AtomicU64::new(0) }; 8];
const REPORTED_BITS: usize = REPORTED.len() * 64;

/// Missing calls that a Linux kernel can be built without, and that
/// programs probe at every start expecting ENOSYS then (systemd asks bpf(2)
/// whether it can firewall units; Linux without CONFIG_BPF_SYSCALL answers
/// ENOSYS and logs nothing): logged at debug level, not as a warning in
/// every boot's log. They stay missing (docs/syscalls.md).
const PROBED_OPTIONAL: [usize; 1] = [nr::__NR_bpf as usize];

fn report_unknown(number: usize) {
    let slot = number.min(REPORTED_BITS - 1);
    let (word, bit) = (slot / 64, 1u64 << (slot % 64));
    if REPORTED[word].fetch_or(bit, Ordering::Relaxed) & bit != 0 {
        return;
    }
    if number >= REPORTED_BITS - 1 {
        log::warn!("unimplemented system call {} (numbers from {} on are not logged again): ENOSYS", number, REPORTED_BITS - 1);
        return;
    }
    let name = names::SYSCALL_NAMES.get(number).copied().filter(|n| !n.is_empty()).unwrap_or("?");
    if PROBED_OPTIONAL.contains(&number) {
        log::debug!("unimplemented system call {} ({}): ENOSYS", name, number);
        return;
    }
    log::warn!("unimplemented system call {} ({}): ENOSYS", name, number);
}

/// Set by `strace` on the kernel command line: log every system call.
pub static TRACE: core::sync::atomic::AtomicBool = core::sync::atomic::AtomicBool::new(false);

/// With `strace=NAME`: only processes whose comm is NAME are traced.
pub static TRACE_COMM: kevlar_platform::sync::SpinLock<Option<String>> = kevlar_platform::sync::SpinLock::new(None);

/// Handles the system call in `frame` for the current thread.
// Inlined into its one caller, the syscall hook: the call and its frame
// cost the hot path about 20 instructions.
#[inline(always)]
pub fn handle(thread: &Arc<Thread>, frame: &mut TrapFrame) {
    // Traced, filtered by seccomp or logged (strace): one word for all
    // (the thread's system-call work bits, which ptrace and seccomp set,
    // and every thread has when strace is on).
    if thread.has_syscall_work() {
        return slow_syscall(thread, frame);
    }
    dispatch_syscall(thread, frame, frame.rax as usize);
}

#[inline(never)]
fn slow_syscall(thread: &Arc<Thread>, frame: &mut TrapFrame) {
    if thread.ptrace.is_traced() {
        return ptrace::traced_syscall(thread, frame);
    }
    run_filtered_syscall(thread, frame, frame.rax as usize);
}

/// Runs system call `number` after seccomp's check (after the ptrace
/// syscall-entry stop for a traced thread, as on Linux).
fn run_filtered_syscall(thread: &Arc<Thread>, frame: &mut TrapFrame, number: usize) {
    let number = if thread.seccomp.active() {
        match seccomp::check(thread, frame, number) {
            Some(number) => number,
            None => return,
        }
    } else {
        number
    };
    run_syscall(thread, frame, number);
}

/// Runs system call `number` with the arguments in `frame` and stores its
/// result there.
#[inline(always)]
fn run_syscall(thread: &Arc<Thread>, frame: &mut TrapFrame, number: usize) {
    if TRACE.load(Ordering::Relaxed) {
        return run_traced(thread, frame, number as u32 as usize);
    }
    dispatch_syscall(thread, frame, number);
}

/// `run_syscall` without the strace check: the fast path's (a thread
/// has `SYSCALL_WORK_STRACE` while strace is on, so it never gets here).
#[inline(always)]
fn dispatch_syscall(thread: &Arc<Thread>, frame: &mut TrapFrame, number: usize) {
    // Linux takes the number as an int: the upper half of rax is ignored.
    let number = number as u32 as usize;
    thread.current_syscall.store(number as u64, Ordering::Relaxed);
    let result = match TABLE.get(number) {
        Some(Some(handler)) => handler(thread, frame),
        _ => unknown(number),
    };
    finish(thread, frame, number, result);
}

/// `run_syscall` with `strace` on: logs the call and its result.
#[inline(never)]
#[cold]
fn run_traced(thread: &Arc<Thread>, frame: &mut TrapFrame, number: usize) {
    let trace = TRACE_COMM.lock().as_deref().is_none_or(|c| *thread.process.comm.lock() == c);
    let name = names::SYSCALL_NAMES.get(number).copied().unwrap_or("?");
    if trace {
        let a = Args::of(frame);
        log::info!("[{}] {}({:#x}, {:#x}, {:#x}, {:#x}) ...", thread.tid(), name, a.0[0], a.0[1], a.0[2], a.0[3]);
    }
    thread.current_syscall.store(number as u64, Ordering::Relaxed);
    let result = match TABLE.get(number) {
        Some(Some(handler)) => handler(thread, frame),
        _ => unknown(number),
    };
    if trace {
        let shown = if result == Err(crate::net::EINTR_NO_RESTART) { Err(Errno::EINTR) } else { result };
        log::info!("[{}] {} -> {:?}", thread.tid(), name, shown);
    }
    finish(thread, frame, number, result);
}

/// An unimplemented system call: ENOSYS, logged once by number.
#[inline(never)]
#[cold]
fn unknown(number: usize) -> Result<isize> {
    report_unknown(number);
    Err(Errno::ENOSYS)
}

/// Stores the result of system call `number` in `frame` and records an
/// interrupted call for restarting.
#[inline(always)]
fn finish(thread: &Arc<Thread>, frame: &mut TrapFrame, number: usize, result: Result<isize>) {
    thread.current_syscall.store(u64::MAX, Ordering::Relaxed);
    match result {
        Ok(value) => frame.rax = value as u64,
        Err(errno) => failed(thread, frame, number, errno),
    }
}

/// The error path of `finish`: out of line, so a successful call pays
/// for none of it.
#[inline(never)]
fn failed(thread: &Arc<Thread>, frame: &mut TrapFrame, number: usize, errno: Errno) {
    // A socket wait with a timeout is never restarted (Linux's EINTR
    // rather than ERESTARTSYS).
    let no_restart = errno == crate::net::EINTR_NO_RESTART;
    let errno = if no_restart { Errno::EINTR } else { errno };
    frame.rax = errno.as_negative_isize() as u64;
    let interrupted = errno == Errno::EINTR && !no_restart;
    // The arguments are read again from the frame: no handler that can
    // fail with EINTR rewrites the argument registers.
    let a = Args::of(frame);
    if interrupted && (is_restartable(number) || (n_is(number, nr::__NR_futex) && futex::restarts_after_handler(a.u32(1), a.usize(3)))) {
        thread.set_interrupted_syscall(number as u64);
    } else if interrupted && (restarts_without_handler(number) || n_is(number, nr::__NR_futex)) {
        thread.set_interrupted_syscall(number as u64 | crate::process::signal::RESTART_NO_HANDLER);
    }
}

fn n_is(number: usize, n: u32) -> bool {
    number == n as usize
}

/// Calls that wait for a signal: interrupted by one whose handler runs
/// they fail with EINTR, but after a signal with no handler (a stop and
/// continue, an ignored signal) they wait again, as Linux's ERESTARTNOHAND.
fn restarts_without_handler(number: usize) -> bool {
    matches!(number as u32, nr::__NR_pause | nr::__NR_rt_sigsuspend | nr::__NR_msgsnd | nr::__NR_msgrcv)
}

fn is_restartable(number: usize) -> bool {
    let n = number as u32;
    matches!(n, nr::__NR_read | nr::__NR_write | nr::__NR_readv | nr::__NR_writev | nr::__NR_wait4 | nr::__NR_waitid
        | nr::__NR_open | nr::__NR_openat | nr::__NR_pread64 | nr::__NR_pwrite64 | nr::__NR_ioctl
        | nr::__NR_accept | nr::__NR_accept4 | nr::__NR_connect | nr::__NR_recvfrom | nr::__NR_recvmsg
        | nr::__NR_sendto | nr::__NR_sendmsg | nr::__NR_sendmmsg | nr::__NR_recvmmsg
        | nr::__NR_mq_timedsend | nr::__NR_mq_timedreceive)
}

/// A system call handler: decodes the arguments from the frame and calls
/// the subsystem that does the work.
type Handler = fn(&Arc<Thread>, &mut TrapFrame) -> Result<isize>;

/// One slot per system call number below this (the x86_64 numbers end
/// before 512); a number past it, or an empty slot, is ENOSYS.
const TABLE_LEN: usize = 512;

/// The dispatch table, built at compile time from `dispatch` below. An
/// indirect call through it replaces one function with a `match` over
/// every call: that function's frame and saved registers (the union of
/// every arm's) cost each system call about 40 instructions.
static TABLE: [Option<Handler>; TABLE_LEN] = {
    let mut table = [None; TABLE_LEN];
    let mut n = 0;
    while n < TABLE_LEN {
        table[n] = dispatch(n as u32);
        n += 1;
    }
    table
};

/// Writes `const fn dispatch(number) -> Option<Handler>`: each arm
/// `NUMBER => EXPR` becomes a handler in which `EXPR` sees the calling
/// thread, the trap frame and the decoded arguments under the names given
/// first (`thread, frame, a`). The table is built before any call, so an
/// arm has no guard: a choice that depends on the arguments goes inside
/// its expression (`nr::__NR_x => if a.u32(0) == ... { ... } else { ... }`).
macro_rules! syscall_table {
    ($thread:ident, $frame:ident, $a:ident; $($($number:path)|+ => $body:expr),* $(,)?) => {
        #[allow(unused_variables)]
        const fn dispatch(number: u32) -> Option<Handler> {
            let handler: Handler = match number {
                $($($number)|+ => |$thread, $frame| {
                    let $a = Args::of($frame);
                    $body
                },)*
                _ => return None,
            };
            Some(handler)
        }
    };
}

syscall_table! { thread, frame, a;
        // Files.
        nr::__NR_io_setup => aio::io_setup(thread, a.u32(0), a.usize(1)),
        nr::__NR_io_destroy => aio::io_destroy(thread, a.0[0]),
        nr::__NR_io_submit => aio::io_submit(thread, a.0[0], a.0[1] as i64, a.usize(2)),
        nr::__NR_io_cancel => aio::io_cancel(thread, a.0[0], a.usize(1), a.usize(2)),
        nr::__NR_io_getevents => aio::io_getevents(thread, a.0[0], a.0[1] as i64, a.0[2] as i64, a.usize(3), a.usize(4)),
        nr::__NR_io_pgetevents => aio::io_pgetevents(thread, a.0[0], a.0[1] as i64, a.0[2] as i64, a.usize(3), a.usize(4), a.usize(5)),
        nr::__NR_read => fs::read(thread, a.i32(0), a.usize(1), a.usize(2)),
        nr::__NR_write => fs::write(thread, a.i32(0), a.usize(1), a.usize(2)),
        nr::__NR_readv => fs::readv(thread, a.i32(0), a.usize(1), a.usize(2), None),
        nr::__NR_writev => fs::writev(thread, a.i32(0), a.usize(1), a.usize(2), None),
        nr::__NR_preadv => fs::readv(thread, a.i32(0), a.usize(1), a.usize(2), Some(a.0[3] as i64)),
        nr::__NR_pwritev => fs::writev(thread, a.i32(0), a.usize(1), a.usize(2), Some(a.0[3] as i64)),
        nr::__NR_pread64 => fs::pread(thread, a.i32(0), a.usize(1), a.usize(2), a.0[3] as i64),
        nr::__NR_pwrite64 => fs::pwrite(thread, a.i32(0), a.usize(1), a.usize(2), a.0[3] as i64),
        nr::__NR_lseek => fs::lseek(thread, a.i32(0), a.0[1] as i64, a.u32(2)),
        nr::__NR_open => fs::openat(thread, fs::AT_FDCWD, a.usize(0), a.u32(1), a.u32(2)),
        nr::__NR_openat => fs::openat(thread, a.i32(0), a.usize(1), a.u32(2), a.u32(3)),
        nr::__NR_openat2 => openat2::openat2(thread, a.i32(0), a.usize(1), a.usize(2), a.usize(3)),
        nr::__NR_creat => fs::openat(thread, fs::AT_FDCWD, a.usize(0), nr::O_CREAT | nr::O_WRONLY | nr::O_TRUNC, a.u32(1)),
        nr::__NR_close => fs::close(thread, a.i32(0)),
        nr::__NR_close_range => fs::close_range(thread, a.u32(0), a.u32(1), a.u32(2)),
        nr::__NR_dup => fs::dup(thread, a.i32(0)),
        nr::__NR_dup2 => fs::dup3(thread, a.i32(0), a.i32(1), 0, true),
        nr::__NR_dup3 => fs::dup3(thread, a.i32(0), a.i32(1), a.u32(2), false),
        nr::__NR_fcntl => fs::fcntl(thread, a.i32(0), a.u32(1), a.usize(2)),
        nr::__NR_ioctl => fs::ioctl(thread, a.i32(0), a.u32(1), a.usize(2)),
        nr::__NR_pipe => fs::pipe2(thread, a.usize(0), 0),
        nr::__NR_pipe2 => fs::pipe2(thread, a.usize(0), a.u32(1)),
        nr::__NR_fstat => fs::fstat(thread, a.i32(0), a.usize(1)),
        nr::__NR_stat => fs::fstatat(thread, fs::AT_FDCWD, a.usize(0), a.usize(1), 0),
        nr::__NR_lstat => fs::fstatat(thread, fs::AT_FDCWD, a.usize(0), a.usize(1), nr::AT_SYMLINK_NOFOLLOW),
        nr::__NR_newfstatat => fs::fstatat(thread, a.i32(0), a.usize(1), a.usize(2), a.u32(3)),
        nr::__NR_statx => fs::statx(thread, a.i32(0), a.usize(1), a.u32(2), a.u32(3), a.usize(4)),
        nr::__NR_getdents64 => fs::getdents64(thread, a.i32(0), a.usize(1), a.usize(2)),
        nr::__NR_getdents => fs::getdents(thread, a.i32(0), a.usize(1), a.usize(2)),
        // partial(preadv2): RWF_NOWAIT gives EOPNOTSUPP on every file (as Linux 6.1's pipes, tmpfs and ext2 files; its sockets and ext4 files take it)
        nr::__NR_preadv2 => rwv2::preadv2(thread, a.i32(0), a.usize(1), a.usize(2), a.0[3] as i64, a.u32(5)),
        // partial(pwritev2): RWF_NOWAIT gives EOPNOTSUPP on every file (as Linux 6.1's pipes, tmpfs and ext2 files; its sockets and ext4 files take it)
        nr::__NR_pwritev2 => rwv2::pwritev2(thread, a.i32(0), a.usize(1), a.usize(2), a.0[3] as i64, a.u32(5)),
        nr::__NR_utime => utime::utime(thread, a.usize(0), a.usize(1)),
        nr::__NR_utimes => utime::futimesat(thread, fs::AT_FDCWD, a.usize(0), a.usize(1)),
        nr::__NR_futimesat => utime::futimesat(thread, a.i32(0), a.usize(1), a.usize(2)),
        nr::__NR_getcwd => fs::getcwd(thread, a.usize(0), a.usize(1)),
        nr::__NR_chdir => fs::chdir(thread, a.usize(0)),
        nr::__NR_fchdir => fs::fchdir(thread, a.i32(0)),
        nr::__NR_chroot => fs::chroot(thread, a.usize(0)),
        nr::__NR_getxattr => xattr::getxattr(thread, a.usize(0), a.usize(1), xattr::Follow::Yes),
        nr::__NR_lgetxattr => xattr::getxattr(thread, a.usize(0), a.usize(1), xattr::Follow::No),
        nr::__NR_fgetxattr => xattr::fgetxattr(thread, a.i32(0), a.usize(1)),
        nr::__NR_setxattr => xattr::setxattr(thread, a.usize(0), a.usize(1), a.usize(3), a.u32(4), xattr::Follow::Yes),
        nr::__NR_lsetxattr => xattr::setxattr(thread, a.usize(0), a.usize(1), a.usize(3), a.u32(4), xattr::Follow::No),
        nr::__NR_fsetxattr => xattr::fsetxattr(thread, a.i32(0), a.usize(1), a.usize(3), a.u32(4)),
        nr::__NR_listxattr => xattr::listxattr(thread, a.usize(0), xattr::Follow::Yes),
        nr::__NR_llistxattr => xattr::listxattr(thread, a.usize(0), xattr::Follow::No),
        nr::__NR_flistxattr => xattr::flistxattr(thread, a.i32(0)),
        nr::__NR_removexattr => xattr::removexattr(thread, a.usize(0), a.usize(1), xattr::Follow::Yes),
        nr::__NR_lremovexattr => xattr::removexattr(thread, a.usize(0), a.usize(1), xattr::Follow::No),
        nr::__NR_fremovexattr => xattr::fremovexattr(thread, a.i32(0), a.usize(1)),
        nr::__NR_mkdir => fs::mkdirat(thread, fs::AT_FDCWD, a.usize(0), a.u32(1)),
        nr::__NR_mkdirat => fs::mkdirat(thread, a.i32(0), a.usize(1), a.u32(2)),
        nr::__NR_mknod => fs::mknodat(thread, fs::AT_FDCWD, a.usize(0), a.u32(1), a.0[2]),
        nr::__NR_mknodat => fs::mknodat(thread, a.i32(0), a.usize(1), a.u32(2), a.0[3]),
        nr::__NR_rmdir => fs::unlinkat(thread, fs::AT_FDCWD, a.usize(0), nr::AT_REMOVEDIR),
        nr::__NR_unlink => fs::unlinkat(thread, fs::AT_FDCWD, a.usize(0), 0),
        nr::__NR_unlinkat => fs::unlinkat(thread, a.i32(0), a.usize(1), a.u32(2)),
        nr::__NR_rename => fs::renameat2(thread, fs::AT_FDCWD, a.usize(0), fs::AT_FDCWD, a.usize(1), 0),
        nr::__NR_renameat => fs::renameat2(thread, a.i32(0), a.usize(1), a.i32(2), a.usize(3), 0),
        nr::__NR_renameat2 => fs::renameat2(thread, a.i32(0), a.usize(1), a.i32(2), a.usize(3), a.u32(4)),
        nr::__NR_link => fs::linkat(thread, fs::AT_FDCWD, a.usize(0), fs::AT_FDCWD, a.usize(1), 0),
        nr::__NR_linkat => fs::linkat(thread, a.i32(0), a.usize(1), a.i32(2), a.usize(3), a.u32(4)),
        nr::__NR_symlink => fs::symlinkat(thread, a.usize(0), fs::AT_FDCWD, a.usize(1)),
        nr::__NR_symlinkat => fs::symlinkat(thread, a.usize(0), a.i32(1), a.usize(2)),
        nr::__NR_readlink => fs::readlinkat(thread, fs::AT_FDCWD, a.usize(0), a.usize(1), a.usize(2)),
        nr::__NR_readlinkat => fs::readlinkat(thread, a.i32(0), a.usize(1), a.usize(2), a.usize(3)),
        nr::__NR_access => fs::faccessat(thread, fs::AT_FDCWD, a.usize(0), a.u32(1), 0),
        nr::__NR_faccessat => fs::faccessat(thread, a.i32(0), a.usize(1), a.u32(2), 0),
        nr::__NR_faccessat2 => fs::faccessat(thread, a.i32(0), a.usize(1), a.u32(2), a.u32(3)),
        nr::__NR_chmod => fs::fchmodat(thread, fs::AT_FDCWD, a.usize(0), a.u32(1)),
        nr::__NR_fchmodat => fs::fchmodat(thread, a.i32(0), a.usize(1), a.u32(2)),
        nr::__NR_fchmod => fs::fchmod(thread, a.i32(0), a.u32(1)),
        nr::__NR_chown => fs::fchownat(thread, fs::AT_FDCWD, a.usize(0), a.u32(1), a.u32(2), 0),
        nr::__NR_lchown => fs::fchownat(thread, fs::AT_FDCWD, a.usize(0), a.u32(1), a.u32(2), nr::AT_SYMLINK_NOFOLLOW),
        nr::__NR_fchownat => fs::fchownat(thread, a.i32(0), a.usize(1), a.u32(2), a.u32(3), a.u32(4)),
        nr::__NR_fchown => fs::fchown(thread, a.i32(0), a.u32(1), a.u32(2)),
        nr::__NR_truncate => fs::truncate(thread, a.usize(0), a.0[1] as i64),
        nr::__NR_ftruncate => fs::ftruncate(thread, a.i32(0), a.0[1] as i64),
        nr::__NR_fallocate => falloc::fallocate(thread, a.i32(0), a.u32(1), a.0[2] as i64, a.0[3] as i64),
        nr::__NR_utimensat => fs::utimensat(thread, a.i32(0), a.usize(1), a.usize(2), a.u32(3)),
        nr::__NR_fsync | nr::__NR_fdatasync => fs::fsync(thread, a.i32(0)),
        nr::__NR_sync => {
            crate::fs::mount::sync_all();
            Ok(0)
        },
        nr::__NR_umask => fs::umask(thread, a.u32(0)),
        nr::__NR_poll => poll::poll(thread, a.usize(0), a.usize(1), a.i32(2) as i64 * 1_000_000),
        nr::__NR_ppoll => poll::ppoll(thread, a.usize(0), a.usize(1), a.usize(2), a.usize(3), a.usize(4)),
        nr::__NR_select => poll::select(thread, a.i32(0), [a.usize(1), a.usize(2), a.usize(3)], a.usize(4), false),
        nr::__NR_pselect6 => poll::pselect6(thread, a.i32(0), [a.usize(1), a.usize(2), a.usize(3)], a.usize(4), a.usize(5)),

        // Event files.
        nr::__NR_eventfd => events::eventfd2(thread, a.u32(0), 0),
        nr::__NR_eventfd2 => events::eventfd2(thread, a.u32(0), a.u32(1)),
        nr::__NR_epoll_create => events::epoll_create(thread, a.i32(0)),
        nr::__NR_epoll_create1 => events::epoll_create1(thread, a.u32(0)),
        nr::__NR_epoll_ctl => events::epoll_ctl(thread, a.i32(0), a.u32(1), a.i32(2), a.usize(3)),
        nr::__NR_epoll_wait => events::epoll_wait(thread, a.i32(0), a.usize(1), a.i32(2), a.i32(3)),
        nr::__NR_epoll_pwait => events::epoll_pwait(thread, a.i32(0), a.usize(1), a.i32(2), a.i32(3), a.usize(4), a.usize(5)),
        nr::__NR_epoll_pwait2 => events::epoll_pwait2(thread, a.i32(0), a.usize(1), a.i32(2), a.usize(3), a.usize(4), a.usize(5)),
        nr::__NR_timerfd_create => events::timerfd_create(thread, a.u32(0), a.u32(1)),
        nr::__NR_timerfd_settime => events::timerfd_settime(thread, a.i32(0), a.u32(1), a.usize(2), a.usize(3)),
        nr::__NR_timerfd_gettime => events::timerfd_gettime(thread, a.i32(0), a.usize(1)),
        nr::__NR_signalfd => events::signalfd4(thread, a.i32(0), a.usize(1), a.usize(2), 0),
        nr::__NR_signalfd4 => events::signalfd4(thread, a.i32(0), a.usize(1), a.usize(2), a.u32(3)),

        // Sockets.
        nr::__NR_socket => socket::socket(thread, a.i32(0), a.u32(1), a.i32(2)),
        nr::__NR_socketpair => socket::socketpair(thread, a.i32(0), a.u32(1), a.i32(2), a.usize(3)),
        nr::__NR_bind => socket::bind(thread, a.i32(0), a.usize(1), a.i32(2)),
        nr::__NR_listen => socket::listen(thread, a.i32(0), a.i32(1)),
        nr::__NR_accept => socket::accept4(thread, a.i32(0), a.usize(1), a.usize(2), 0),
        nr::__NR_accept4 => socket::accept4(thread, a.i32(0), a.usize(1), a.usize(2), a.u32(3)),
        nr::__NR_connect => socket::connect(thread, a.i32(0), a.usize(1), a.i32(2)),
        nr::__NR_getsockname => socket::getsockname(thread, a.i32(0), a.usize(1), a.usize(2), false),
        nr::__NR_getpeername => socket::getsockname(thread, a.i32(0), a.usize(1), a.usize(2), true),
        nr::__NR_sendto => socket::sendto(thread, a.i32(0), a.usize(1), a.usize(2), a.u32(3), a.usize(4), a.i32(5)),
        nr::__NR_recvfrom => socket::recvfrom(thread, a.i32(0), a.usize(1), a.usize(2), a.u32(3), a.usize(4), a.usize(5)),
        // partial(sendmsg): MSG_OOB returns EOPNOTSUPP; SCM_RIGHTS cycles of sockets in flight are not collected
        nr::__NR_sendmsg => socket::sendmsg(thread, a.i32(0), a.usize(1), a.u32(2)),
        nr::__NR_recvmsg => socket::recvmsg(thread, a.i32(0), a.usize(1), a.u32(2)),
        nr::__NR_sendmmsg => socket::sendmmsg(thread, a.i32(0), a.usize(1), a.u32(2), a.u32(3)),
        nr::__NR_recvmmsg => socket::recvmmsg(thread, a.i32(0), a.usize(1), a.u32(2), a.u32(3), a.usize(4)),
        nr::__NR_shutdown => socket::shutdown(thread, a.i32(0), a.i32(1)),
        // partial(setsockopt): SOL_SOCKET options (no SO_PEEK_OFF, SO_BINDTODEVICE; SO_TIMESTAMP* on AF_UNIX only; SO_PASSSEC kept, no LSM labels), TCP_NODELAY, TCP_CORK, TCP_KEEPIDLE/KEEPINTVL/KEEPCNT, IP_TTL and IP_TOS; other TCP/IP options ENOPROTOOPT
        nr::__NR_setsockopt => socket::setsockopt(thread, a.i32(0), a.i32(1), a.u32(2), a.usize(3), a.i32(4)),
        nr::__NR_getsockopt => socket::getsockopt(thread, a.i32(0), a.i32(1), a.u32(2), a.usize(3), a.usize(4)),

        // Processes.
        nr::__NR_getpid => Ok(crate::ns::pid::local(thread.process.pid) as isize),
        nr::__NR_gettid => Ok(crate::ns::pid::local(thread.tid()) as isize),
        nr::__NR_getppid => Ok(crate::ns::pid::local(thread.process.ppid()) as isize),
        nr::__NR_getuid => Ok(process::shown_id(thread, |c| c.uid, true) as isize),
        nr::__NR_geteuid => Ok(process::shown_id(thread, |c| c.euid, true) as isize),
        nr::__NR_getgid => Ok(process::shown_id(thread, |c| c.gid, false) as isize),
        nr::__NR_getegid => Ok(process::shown_id(thread, |c| c.egid, false) as isize),
        nr::__NR_setuid => process::setuid(thread, a.u32(0)),
        nr::__NR_setgid => process::setgid(thread, a.u32(0)),
        nr::__NR_setreuid => process::setresuid(thread, a.u32(0), a.u32(1), u32::MAX),
        nr::__NR_setregid => process::setresgid(thread, a.u32(0), a.u32(1), u32::MAX),
        nr::__NR_setresuid => process::setresuid(thread, a.u32(0), a.u32(1), a.u32(2)),
        nr::__NR_setresgid => process::setresgid(thread, a.u32(0), a.u32(1), a.u32(2)),
        nr::__NR_getresuid => process::getresuid(thread, a.usize(0), a.usize(1), a.usize(2), true),
        nr::__NR_getresgid => process::getresuid(thread, a.usize(0), a.usize(1), a.usize(2), false),
        nr::__NR_getgroups => process::getgroups(thread, a.i32(0), a.usize(1)),
        nr::__NR_setgroups => process::setgroups(thread, a.usize(0), a.usize(1)),
        nr::__NR_setfsuid => process::setfsid(thread, a.u32(0), true),
        nr::__NR_setfsgid => process::setfsid(thread, a.u32(0), false),
        // partial(capget): no bounding or ambient sets, no file capabilities
        nr::__NR_capget => caps::capget(thread, a.usize(0), a.usize(1)),
        // partial(capset): as capget; ambient capabilities and file capabilities are absent
        nr::__NR_capset => caps::capset(thread, a.usize(0), a.usize(1)),
        nr::__NR_getpgid => process::getpgid(a.i32(0), thread),
        nr::__NR_getpgrp => process::getpgid(0, thread),
        nr::__NR_setpgid => process::setpgid(thread, a.i32(0), a.i32(1)),
        nr::__NR_getsid => process::getsid(thread, a.i32(0)),
        nr::__NR_setsid => process::setsid(thread),
        nr::__NR_exit => {
            crate::process::exit_thread(a.0[0] as u8);
            Ok(0)
        },
        nr::__NR_exit_group => {
            crate::process::exit_current(crate::process::ExitStatus::Exited(a.0[0] as u8));
            Ok(0)
        },
        nr::__NR_fork => process::fork(thread, frame, nr::SIGCHLD as u64, 0, 0, 0, 0),
        nr::__NR_vfork => process::fork(thread, frame, (nr::CLONE_VM | nr::CLONE_VFORK | nr::SIGCHLD) as u64, 0, 0, 0, 0),
        // partial(clone): CLONE_SIGHAND and CLONE_FS only with CLONE_THREAD, which needs CLONE_FILES; new namespaces with CLONE_THREAD and CLONE_IO return EINVAL
        nr::__NR_clone => process::fork(thread, frame, a.0[0], a.usize(1), a.usize(2), a.usize(3), a.0[4]),
        // partial(clone3): as clone (CLONE_INTO_CGROUP too); set_tid returns EINVAL
        nr::__NR_clone3 => process::clone3(thread, frame, a.usize(0), a.usize(1)),
        nr::__NR_execve => process::execve(thread, frame, fs::AT_FDCWD, a.usize(0), a.usize(1), a.usize(2), 0),
        nr::__NR_execveat => process::execve(thread, frame, a.i32(0), a.usize(1), a.usize(2), a.usize(3), a.u32(4)),
        nr::__NR_wait4 => process::wait4(thread, a.i32(0), a.usize(1), a.u32(2), a.usize(3)),
        nr::__NR_waitid => process::waitid(thread, a.u32(0), a.i32(1), a.usize(2), a.u32(3)),
        nr::__NR_set_tid_address => {
            thread.clear_child_tid.store(a.usize(0), Ordering::Relaxed);
            Ok(thread.tid() as isize)
        },
        nr::__NR_arch_prctl => process::arch_prctl(thread, a.u32(0), a.0[1]),
        nr::__NR_prctl => if seccomp::is_prctl(a.u32(0)) { seccomp::prctl(thread, a) } else if prctl_caps::is_prctl(a.u32(0)) { prctl_caps::prctl(thread, &a) } else if prctl_mm::is_prctl(a.u32(0)) { prctl_mm::prctl(thread, &a) } else { process::prctl(thread, a.u32(0), a.usize(1)) },
        // partial(seccomp): no user notification (SECCOMP_FILTER_FLAG_NEW_LISTENER is refused with EINVAL; SECCOMP_RET_USER_NOTIF reported unavailable); strict mode leaves RDTSC working
        nr::__NR_seccomp => seccomp::seccomp(thread, a.u32(0), a.u32(1), a.usize(2)),
        nr::__NR_sched_yield => {
            crate::process::scheduler::schedule();
            Ok(0)
        },
        // partial(ptrace): PTRACE_ARCH_PRCTL and the seccomp requests give EIO
        nr::__NR_ptrace => ptrace::ptrace(thread, a),
        nr::__NR_process_vm_readv => process_vm::process_vm_rw(thread, a.i32(0), a.usize(1), a.usize(2), a.usize(3), a.usize(4), a.0[5], false),
        nr::__NR_process_vm_writev => process_vm::process_vm_rw(thread, a.i32(0), a.usize(1), a.usize(2), a.usize(3), a.usize(4), a.0[5], true),
        nr::__NR_kcmp => kcmp::kcmp(thread, a.i32(0), a.i32(1), a.u32(2), a.0[3], a.0[4]),
        nr::__NR_set_robust_list => futex::set_robust_list(thread, a.usize(0), a.usize(1)),
        nr::__NR_get_robust_list => futex::get_robust_list(thread, a.i32(0), a.usize(1), a.usize(2)),
        nr::__NR_rseq => Err(Errno::ENOSYS),
        // partial(futex): the priority-inheritance commands return ENOSYS
        nr::__NR_futex => futex::futex(thread, a.usize(0), a.u32(1), a.u32(2), a.usize(3), a.usize(4), a.u32(5)),
        nr::__NR_futex_waitv => futex::futex_waitv(thread, a.usize(0), a.u32(1), a.u32(2), a.usize(3), a.u32(4)),

        // Signals.
        nr::__NR_rt_sigaction => signal::rt_sigaction(thread, a.u32(0), a.usize(1), a.usize(2), a.usize(3)),
        nr::__NR_rt_sigprocmask => signal::rt_sigprocmask(thread, a.u32(0), a.usize(1), a.usize(2), a.usize(3)),
        nr::__NR_rt_sigreturn => signal::rt_sigreturn(thread, frame),
        nr::__NR_rt_sigpending => signal::rt_sigpending(thread, a.usize(0), a.usize(1)),
        nr::__NR_rt_sigsuspend => signal::rt_sigsuspend(thread, a.usize(0), a.usize(1)),
        nr::__NR_rt_sigtimedwait => signal::rt_sigtimedwait(thread, a.usize(0), a.usize(1), a.usize(2), a.usize(3)),
        nr::__NR_sigaltstack => signal::sigaltstack(thread, a.usize(0), a.usize(1), frame.rsp),
        nr::__NR_pidfd_open => process::pidfd_open(thread, a.i32(0), a.u32(1)),
        nr::__NR_process_mrelease => pidfd::process_mrelease(thread, a.i32(0), a.u32(1)),
        // Linux runs the thread's restart block, which is "no restart"
        // (EINTR) unless a signal just interrupted a call that restarts
        // that way; Kevlar restarts calls by running them again instead,
        // so a program's own call always finds none.
        nr::__NR_restart_syscall => Err(Errno::EINTR),
        nr::__NR_pidfd_getfd => pidfd::pidfd_getfd(thread, a.i32(0), a.i32(1), a.u32(2)),
        nr::__NR_pidfd_send_signal => signal::pidfd_send_signal(thread, a.i32(0), a.u32(1), a.usize(2), a.u32(3)),
        nr::__NR_kill => signal::kill(thread, a.i32(0), a.u32(1)),
        nr::__NR_tkill => signal::tkill(thread, a.i32(0), a.u32(1)),
        nr::__NR_tgkill => signal::tgkill(thread, a.i32(0), a.i32(1), a.u32(2)),
        nr::__NR_rt_sigqueueinfo => signal::rt_sigqueueinfo(thread, a.i32(0), a.u32(1), a.usize(2)),
        nr::__NR_rt_tgsigqueueinfo => signal::rt_tgsigqueueinfo(thread, a.i32(0), a.i32(1), a.u32(2), a.usize(3)),
        nr::__NR_pause => signal::pause(thread),

        // Memory.
        nr::__NR_brk => memory::brk(thread, a.usize(0)),
        nr::__NR_mmap => memory::mmap(thread, a.usize(0), a.usize(1), a.u32(2), a.u32(3), a.i32(4), a.0[5]),
        nr::__NR_munmap => memory::munmap(thread, a.usize(0), a.usize(1)),
        nr::__NR_mprotect => memory::mprotect(thread, a.usize(0), a.usize(1), a.u32(2)),
        nr::__NR_pkey_mprotect => pkey::pkey_mprotect(thread, a.usize(0), a.usize(1), a.usize(2), a.i32(3)),
        nr::__NR_pkey_alloc => pkey::pkey_alloc(thread, a.usize(0), a.usize(1)),
        nr::__NR_pkey_free => pkey::pkey_free(thread, a.i32(0)),
        // partial(mremap): MREMAP_DONTUNMAP returns EINVAL
        nr::__NR_mremap => memory::mremap(thread, a.usize(0), a.usize(1), a.usize(2), a.u32(3), a.usize(4)),
        nr::__NR_madvise => memory::madvise(thread, a.usize(0), a.usize(1), a.u32(2)),
        nr::__NR_msync => memory::msync(thread, a.usize(0), a.usize(1), a.u32(2)),

        // Time.
        nr::__NR_clock_gettime => time::clock_gettime(a.u32(0), a.usize(1)),
        nr::__NR_clock_getres => time::clock_getres(a.u32(0), a.usize(1)),
        nr::__NR_gettimeofday => time::gettimeofday(a.usize(0), a.usize(1)),
        nr::__NR_time => time::time(a.usize(0)),
        nr::__NR_nanosleep => time::nanosleep(a.usize(0), a.usize(1)),
        nr::__NR_clock_nanosleep => time::clock_nanosleep(a.u32(0), a.u32(1), a.usize(2), a.usize(3)),
        // partial(times): user and system time are not split (all counts as user)
        nr::__NR_times => time::times(thread, a.usize(0)),
        // partial(getrusage): CPU times only (system time 0); no fault or I/O counters
        nr::__NR_getrusage => time::getrusage(thread, a.i32(0), a.usize(1)),
        nr::__NR_alarm => itimer::alarm(thread, a.u32(0)),
        nr::__NR_setitimer => itimer::setitimer(thread, a.u32(0), a.usize(1), a.usize(2)),
        nr::__NR_getitimer => itimer::getitimer(thread, a.u32(0), a.usize(1)),
        nr::__NR_mlock => mlock::mlock(thread, a.usize(0), a.usize(1)),
        nr::__NR_mlock2 => mlock::mlock2(thread, a.usize(0), a.usize(1), a.u32(2)),
        nr::__NR_munlock => mlock::munlock(thread, a.usize(0), a.usize(1)),
        nr::__NR_mlockall => mlock::mlockall(thread, a.u32(0)),
        nr::__NR_munlockall => mlock::munlockall(thread),
        // partial(remap_file_pages): a range mlock'ed before is not locked again
        nr::__NR_remap_file_pages => remap::remap_file_pages(thread, a.usize(0), a.usize(1), a.0[2], a.usize(3), a.0[4]),
        // partial(process_madvise): the advice changes nothing (no swap, every page in memory; MADV_COLLAPSE EINVAL: no huge pages), and COLD and PAGEOUT on a locked range are not refused
        nr::__NR_process_madvise => process_madvise::process_madvise(thread, a.i32(0), a.usize(1), a.usize(2), a.i32(3), a.u32(4)),
        nr::__NR_set_mempolicy => mempolicy::set_mempolicy(thread, a.i32(0), a.usize(1), a.usize(2)),
        // partial(get_mempolicy): a mapping's policy is not recorded: MPOL_F_ADDR reports the default
        nr::__NR_get_mempolicy => mempolicy::get_mempolicy(thread, a.usize(0), a.usize(1), a.usize(2), a.usize(3), a.0[4]),
        // partial(mbind): the policy is checked as Linux's (every page is on the one node it allows) but not recorded for the mapping
        nr::__NR_mbind => mempolicy::mbind(thread, a.usize(0), a.usize(1), a.i32(2), a.usize(3), a.usize(4), a.u32(5)),
        // partial(mincore): an unfaulted page of a file mapping counts as resident when it lies within the file (file data is kept in memory once read)
        nr::__NR_mincore => mlock::mincore(thread, a.usize(0), a.usize(1), a.usize(2)),
        // partial(membarrier): the other CPUs are interrupted (which serializes them) but not waited for
        nr::__NR_membarrier => mlock::membarrier(thread, a.i32(0), a.u32(1), a.i32(2)),
        nr::__NR_fadvise64 => mlock::fadvise64(thread, a.i32(0), a.0[1] as i64, a.0[2] as i64, a.i32(3)),
        nr::__NR_readahead => mlock::readahead(thread, a.i32(0), a.0[1] as i64, a.usize(2)),
        // partial(adjtimex): ADJ_FREQUENCY and ADJ_OFFSET steer the wall clock only (Linux steers CLOCK_MONOTONIC too)
        nr::__NR_adjtimex => adjtime::adjtimex(thread, a.usize(0)),
        // partial(clock_adjtime): as adjtimex, for CLOCK_REALTIME
        nr::__NR_clock_adjtime => adjtime::clock_adjtime(thread, a.u32(0), a.usize(1)),
        nr::__NR_timer_create => timer::timer_create(thread, a.u32(0), a.usize(1), a.usize(2)),
        nr::__NR_timer_settime => timer::timer_settime(thread, a.i32(0), a.u32(1), a.usize(2), a.usize(3)),
        nr::__NR_timer_gettime => timer::timer_gettime(thread, a.i32(0), a.usize(1)),
        nr::__NR_timer_getoverrun => timer::timer_getoverrun(thread, a.i32(0)),
        nr::__NR_timer_delete => timer::timer_delete(thread, a.i32(0)),

        // System information.
        nr::__NR_uname => info::uname(a.usize(0)),
        // partial(personality): recorded, inherited and reported; Kevlar never randomizes the address space (as with ADDR_NO_RANDOMIZE always), and READ_IMPLIES_EXEC, MMAP_PAGE_ZERO and ADDR_LIMIT_32BIT change no mapping
        nr::__NR_personality => Ok(crate::process::personality::personality(&thread.process, a.0[0] as u32) as isize),
        nr::__NR_sysinfo => info::sysinfo(a.usize(0)),
        nr::__NR_getrandom => info::getrandom(thread, a.usize(0), a.usize(1), a.u32(2)),
        nr::__NR_getrlimit => {
            if a.u32(0) >= 16 {
                return Err(Errno::EINVAL);
            }
            if a.usize(1) == 0 {
                return Err(Errno::EFAULT);
            }
            info::prlimit64(thread, 0, a.u32(0), 0, a.usize(1))
        },
        nr::__NR_setrlimit => {
            if a.u32(0) >= 16 {
                return Err(Errno::EINVAL);
            }
            if a.usize(1) == 0 {
                return Err(Errno::EFAULT);
            }
            info::prlimit64(thread, 0, a.u32(0), a.usize(1), 0)
        },
        nr::__NR_prlimit64 => info::prlimit64(thread, a.i32(0), a.u32(1), a.usize(2), a.usize(3)),
        // partial(getpriority): nice does not weigh scheduling yet
        nr::__NR_getpriority => sched::getpriority(thread, a.u32(0), a.i32(1)),
        nr::__NR_setpriority => sched::setpriority(thread, a.u32(0), a.i32(1), a.i32(2)),
        nr::__NR_sched_getaffinity => sched::sched_getaffinity(thread, a.i32(0), a.usize(1), a.usize(2)),
        nr::__NR_sched_setaffinity => sched::sched_setaffinity(thread, a.i32(0), a.usize(1), a.usize(2)),
        nr::__NR_sched_getscheduler => sched::sched_getscheduler(thread, a.i32(0)),
        nr::__NR_sched_setscheduler => sched::sched_setscheduler(thread, a.i32(0), a.u32(1), a.usize(2)),
        nr::__NR_sched_getparam => sched::sched_getparam(thread, a.i32(0), a.usize(1)),
        nr::__NR_sched_setparam => sched::sched_setparam(thread, a.i32(0), a.usize(1)),
        // partial(sched_setattr): SCHED_DEADLINE's parameters and permissions are checked as Linux's, then admission fails with EBUSY (no deadline scheduler)
        nr::__NR_sched_setattr => sched_attr::sched_setattr(thread, a.i32(0), a.usize(1), a.u32(2)),
        nr::__NR_sched_getattr => sched_attr::sched_getattr(thread, a.i32(0), a.usize(1), a.u32(2), a.u32(3)),
        nr::__NR_sched_get_priority_max => sched::priority_bounds(a.u32(0), true),
        nr::__NR_sched_get_priority_min => sched::priority_bounds(a.u32(0), false),
        // partial(ioprio_set): the priority is recorded and reported but weighs no I/O
        nr::__NR_ioprio_set => sched::ioprio_set(thread, a.u32(0), a.i32(1), a.i32(2)),
        nr::__NR_ioprio_get => sched::ioprio_get(thread, a.u32(0), a.i32(1)),
        nr::__NR_getcpu => sched::getcpu(a.usize(0), a.usize(1)),
        nr::__NR_sched_rr_get_interval => sched::sched_rr_get_interval(thread, a.i32(0), a.usize(1)),
        nr::__NR_sethostname => info::set_name(thread, false, a.usize(0), a.usize(1)),
        nr::__NR_setdomainname => info::set_name(thread, true, a.usize(0), a.usize(1)),
        nr::__NR_syncfs => fs::fsync(thread, a.i32(0)),
        nr::__NR_splice => splice::splice(thread, a.i32(0), a.usize(1), a.i32(2), a.usize(3), a.usize(4), a.u32(5)),
        nr::__NR_tee => splice::tee(thread, a.i32(0), a.i32(1), a.usize(2), a.u32(3)),
        nr::__NR_vmsplice => splice::vmsplice(thread, a.i32(0), a.usize(1), a.usize(2), a.u32(3)),
        nr::__NR_copy_file_range => splice::copy_file_range(thread, a.i32(0), a.usize(1), a.i32(2), a.usize(3), a.usize(4), a.u32(5)),
        nr::__NR_inotify_init => notify::inotify_init1(thread, 0),
        nr::__NR_inotify_init1 => notify::inotify_init1(thread, a.u32(0)),
        nr::__NR_inotify_add_watch => notify::inotify_add_watch(thread, a.i32(0), a.usize(1), a.u32(2)),
        nr::__NR_inotify_rm_watch => notify::inotify_rm_watch(thread, a.i32(0), a.i32(1)),
        nr::__NR_fanotify_init => fanotify::fanotify_init(thread, a.u32(0), a.u32(1)),
        // partial(fanotify_mark): FAN_RENAME and FAN_FS_ERROR are never reported; directory-entry events reach inode marks only
        nr::__NR_fanotify_mark => fanotify::fanotify_mark(thread, a.i32(0), a.u32(1), a.0[2] as u64, a.i32(3), a.usize(4)),
        nr::__NR_memfd_create => memfd::memfd_create(thread, a.usize(0), a.u32(1)),
        nr::__NR_sendfile => fs::sendfile(thread, a.i32(0), a.i32(1), a.usize(2), a.usize(3)),
        nr::__NR_sync_file_range => fs::sync_file_range(thread, a.i32(0), a.0[1] as i64, a.0[2] as i64, a.u32(3)),
        nr::__NR_flock => fs::flock(thread, a.i32(0), a.u32(1)),
        nr::__NR_clock_settime => time::clock_settime(thread, a.u32(0), a.usize(1)),
        // partial(settimeofday): the time zone is checked but not kept
        nr::__NR_settimeofday => time::settimeofday(thread, a.usize(0), a.usize(1)),
        nr::__NR_reboot => info::reboot(thread, a.u32(0), a.u32(1), a.u32(2)),
        // partial(mount): proc, sysfs, devtmpfs, devpts, tmpfs, cgroup2, ext2/3/4, bind mounts (recursive too), MS_MOVE, propagation (shared, slave, private, unbindable), remount of a mount or of its file system; a file system's own options are not changed by a remount
        nr::__NR_mount => mount::mount(thread, a.usize(0), a.usize(1), a.usize(2), a.0[3], a.usize(4)),
        nr::__NR_sysfs => mount::sysfs_call(a.u32(0), a.usize(1), a.usize(2)),
        // partial(unshare): mount, UTS, IPC, cgroup, PID and network namespaces; EINVAL for user and time ones
        nr::__NR_unshare => ns::unshare(thread, a.0[0]),
        // partial(setns): by namespace fd or pidfd; PID namespaces at or below the caller's; only the initial user and time namespaces exist
        nr::__NR_setns => ns::setns(thread, a.i32(0), a.i32(1)),
        nr::__NR_pivot_root => mount::pivot_root(thread, a.usize(0), a.usize(1)),
        nr::__NR_open_tree => newmount::open_tree(thread, a.i32(0), a.usize(1), a.u32(2)),
        // partial(move_mount): MOVE_MOUNT_SET_GROUP gives EINVAL
        nr::__NR_move_mount => newmount::move_mount(thread, a.i32(0), a.usize(1), a.i32(2), a.usize(3), a.u32(4)),
        // partial(fsopen): reading the context's messages gives ENODATA (none are logged)
        nr::__NR_fsopen => newmount::fsopen(thread, a.usize(0), a.u32(1)),
        // partial(fspick): reconfiguring changes tmpfs's size and nr_inodes and makes a read-only ext2 writable; "ro" on a writable file system gives EOPNOTSUPP (no read-only superblocks)
        nr::__NR_fspick => newmount::fspick(thread, a.i32(0), a.usize(1), a.u32(2)),
        // partial(fsconfig): string and flag parameters; binary, path and fd values EINVAL (EOPNOTSUPP for legacy types)
        nr::__NR_fsconfig => newmount::fsconfig(thread, a.i32(0), a.u32(1), a.usize(2), a.usize(3), a.i32(4)),
        nr::__NR_fsmount => newmount::fsmount(thread, a.i32(0), a.u32(1), a.u32(2)),
        // partial(mount_setattr): MOUNT_ATTR_IDMAP gives Linux's errors (no user namespaces); setting read-only does not wait for writers (no EBUSY)
        nr::__NR_mount_setattr => newmount::mount_setattr(thread, a.i32(0), a.usize(1), a.u32(2), a.usize(3), a.usize(4)),
        nr::__NR_umount2 => mount::umount2(thread, a.usize(0), a.u32(1)),
        nr::__NR_statfs => mount::statfs(thread, a.usize(0), a.usize(1)),
        nr::__NR_fstatfs => mount::fstatfs(thread, a.i32(0), a.usize(1)),
        // partial(iopl): never grants port access (Linux's answers under lockdown: EPERM for more than level 0)
        nr::__NR_iopl => ioport::iopl(a.u32(0)),
        // partial(ioperm): never grants port access (Linux's answers under lockdown: EPERM when turning ports on)
        nr::__NR_ioperm => ioport::ioperm(a.0[0], a.0[1], a.i32(2) != 0),
        nr::__NR_syslog => syslog::syslog(thread, a.i32(0), a.usize(1), a.i32(2)),

        // System V IPC.
        nr::__NR_msgget => ipc::msgget(thread, a.i32(0), a.i32(1)),
        nr::__NR_msgsnd => ipc::msgsnd(thread, a.i32(0), a.usize(1), a.usize(2), a.i32(3)),
        nr::__NR_msgrcv => ipc::msgrcv(thread, a.i32(0), a.usize(1), a.usize(2), a.0[3] as i64, a.i32(4)),
        nr::__NR_msgctl => ipc::msgctl(thread, a.i32(0), a.i32(1), a.usize(2)),
        nr::__NR_semget => ipc::semget(thread, a.i32(0), a.i32(1), a.i32(2)),
        nr::__NR_semop => ipc::semtimedop(thread, a.i32(0), a.usize(1), a.usize(2), 0),
        nr::__NR_semtimedop => ipc::semtimedop(thread, a.i32(0), a.usize(1), a.usize(2), a.usize(3)),
        nr::__NR_semctl => ipc::semctl(thread, a.i32(0), a.i32(1), a.i32(2), a.usize(3)),
        nr::__NR_shmget => ipc::shmget(thread, a.i32(0), a.usize(1), a.i32(2)),
        nr::__NR_shmat => ipc::shmat(thread, a.i32(0), a.usize(1), a.i32(2)),
        nr::__NR_shmdt => ipc::shmdt(thread, a.usize(0)),
        nr::__NR_shmctl => ipc::shmctl(thread, a.i32(0), a.i32(1), a.usize(2)),
        nr::__NR_mq_notify => mqueue::mq_notify(thread, a.i32(0), a.usize(1)),
        nr::__NR_mq_open => mqueue::mq_open(thread, a.usize(0), a.u32(1), a.u32(2), a.usize(3)),
        nr::__NR_mq_unlink => mqueue::mq_unlink(thread, a.usize(0)),
        nr::__NR_mq_timedsend => mqueue::mq_timedsend(thread, a.i32(0), a.usize(1), a.usize(2), a.u32(3), a.usize(4)),
        nr::__NR_mq_timedreceive => mqueue::mq_timedreceive(thread, a.i32(0), a.usize(1), a.usize(2), a.usize(3), a.usize(4)),
        nr::__NR_mq_getsetattr => mqueue::mq_getsetattr(thread, a.i32(0), a.usize(1), a.usize(2)),

        // Keys.
        nr::__NR_add_key => keys::add_key(thread, a.usize(0), a.usize(1), a.usize(2), a.usize(3), a.i32(4)),
        nr::__NR_request_key => keys::request_key(thread, a.usize(0), a.usize(1), a.usize(2), a.i32(3)),
        // partial(keyctl): the key quotas are fixed (no /proc/sys/kernel/keys), no /proc/keys; ASSUME_AUTHORITY, GET_SECURITY, SESSION_TO_PARENT and the operations past GET_PERSISTENT give EOPNOTSUPP
        nr::__NR_keyctl => keys::keyctl(thread, a.u32(0), a.0[1], a.0[2], a.0[3], a.0[4]),

        // File handles.
        nr::__NR_name_to_handle_at => fhandle::name_to_handle_at(thread, a.i32(0), a.usize(1), a.usize(2), a.usize(3), a.u32(4)),
        nr::__NR_open_by_handle_at => fhandle::open_by_handle_at(thread, a.i32(0), a.usize(1), a.u32(2)),

}

// --- helpers shared by the families -----------------------------------------

/// The longest path accepted (PATH_MAX).
pub const PATH_MAX: usize = 4096;

/// Reads a NUL-terminated string of at most `max` bytes (NUL excluded).
pub fn read_user_cstr(addr: usize, max: usize) -> Result<Vec<u8>> {
    if addr == 0 {
        return Err(Errno::EFAULT);
    }
    // Most strings (paths, names) are short: a first small read, with no
    // result buffer to grow when the string ends in it.
    let mut head = [0u8; 64];
    let len = head.len().min(4096 - addr % 4096);
    copy_from_user(&mut head[..len], addr)?;
    if let Some(nul) = head[..len].iter().position(|&b| b == 0) {
        if nul > max {
            return Err(Errno::ENAMETOOLONG);
        }
        return Ok(head[..nul].to_vec());
    }
    read_user_cstr_long(addr, max, &head[..len])
}

/// The rest of `read_user_cstr` once its first `head` bytes held no NUL.
#[inline(never)]
fn read_user_cstr_long(addr: usize, max: usize, head: &[u8]) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(256);
    out.extend_from_slice(head);
    if out.len() > max {
        return Err(Errno::ENAMETOOLONG);
    }
    let mut chunk = [0u8; 256];
    loop {
        let at = addr.checked_add(out.len()).ok_or(Errno::EFAULT)?;
        // Never read past a page boundary in one go: the next page may be
        // unmapped even though the string ends before it.
        let to_page_end = 4096 - (at % 4096);
        let len = chunk.len().min(to_page_end);
        copy_from_user(&mut chunk[..len], at)?;
        if let Some(nul) = chunk[..len].iter().position(|&b| b == 0) {
            out.extend_from_slice(&chunk[..nul]);
            if out.len() > max {
                return Err(Errno::ENAMETOOLONG);
            }
            return Ok(out);
        }
        out.extend_from_slice(&chunk[..len]);
        if out.len() > max {
            return Err(Errno::ENAMETOOLONG);
        }
    }
}

/// Reads a path argument.
pub fn read_path(addr: usize) -> Result<Vec<u8>> {
    let path = read_user_cstr(addr, PATH_MAX - 1)?;
    Ok(path)
}

/// Reads a NULL-terminated array of string pointers (argv, envp).
pub fn read_string_array(addr: usize) -> Result<Vec<Vec<u8>>> {
    let mut out = Vec::new();
    if addr == 0 {
        return Ok(out);
    }
    let mut total = 0;
    for i in 0.. {
        let mut ptr = [0u8; 8];
        copy_from_user(&mut ptr, addr + i * 8)?;
        let ptr = u64::from_le_bytes(ptr) as usize;
        if ptr == 0 {
            break;
        }
        // One string may be at most MAX_ARG_STRLEN (32 pages) long.
        let s = read_user_cstr(ptr, 128 * 1024).map_err(|e| if e == Errno::ENAMETOOLONG { Errno::E2BIG } else { e })?;
        total += s.len() + 1 + 8;
        if total > 2 * 1024 * 1024 {
            return Err(Errno::E2BIG);
        }
        out.push(s);
    }
    Ok(out)
}

pub use crate::uaccess::read_bytes;

/// Reads a little-endian u64.
pub fn read_u64(addr: usize) -> Result<u64> {
    Ok(u64::from_le_bytes(read_bytes::<8>(addr)?))
}

pub use crate::uaccess::write_u64;

/// Lossy conversion for log messages.
pub fn show(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}
