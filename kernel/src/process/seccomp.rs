//! seccomp: the system-call filters of a thread, and no_new_privs.
//!
//! Both are per thread, as in Linux. A thread in strict mode may only call
//! read, write, exit and rt_sigreturn; one in filter mode runs every filter
//! it has (newest first) over a `struct seccomp_data` before each system
//! call, and the most restrictive action wins. Filters form a chain shared
//! with the threads and processes created after them: a new filter is
//! linked in front of the thread's chain, so a child's chain extends its
//! parent's and TSYNC can tell whether another thread's chain is an
//! ancestor of the caller's.
//!
//! The system-call layer decodes seccomp(2) and prctl and acts on the
//! verdict [`evaluate`] gives (it owns the registers); this module holds
//! the state and the rules.

use alloc::sync::Arc;
use core::sync::atomic::{AtomicBool, AtomicU32, AtomicU8, Ordering};

use kevlar_bpf::Filter;
use kevlar_platform::sync::SpinLock;
use linux_raw_sys::ptrace as abi;

use super::{ExitStatus, Pid, Process, Thread};
use crate::error::{Errno, Result};

/// SECCOMP_MODE_DISABLED, _STRICT, _FILTER.
pub const MODE_DISABLED: u8 = abi::SECCOMP_MODE_DISABLED as u8;
pub const MODE_STRICT: u8 = abi::SECCOMP_MODE_STRICT as u8;
pub const MODE_FILTER: u8 = abi::SECCOMP_MODE_FILTER as u8;

/// Linux's MAX_INSNS_PER_PATH: the instructions of every filter a system
/// call runs (as Linux translates them), each filter but the newest
/// counted 4 more.
const MAX_INSNS_PER_PATH: usize = (1 << 18) / kevlar_bpf::SockFilter::SIZE;

/// One installed filter and the ones installed before it.
pub struct Installed {
    prog: Filter,
    /// SECCOMP_FILTER_FLAG_LOG: actions other than ALLOW are logged.
    log: bool,
    prev: Option<Arc<Installed>>,
}

/// A thread's seccomp state.
pub struct SeccompSlot {
    /// MODE_*: read on every system call, without a lock.
    mode: AtomicU8,
    /// PR_SET_NO_NEW_PRIVS: set once, never cleared.
    no_new_privs: AtomicBool,
    /// The newest filter (filter mode), and how many are in the chain.
    filter: SpinLock<Option<Arc<Installed>>>,
    count: AtomicU32,
}

impl Default for SeccompSlot {
    fn default() -> Self {
        Self::new()
    }
}

impl SeccompSlot {
    pub const fn new() -> Self {
        SeccompSlot {
            mode: AtomicU8::new(MODE_DISABLED),
            no_new_privs: AtomicBool::new(false),
            filter: SpinLock::new(None),
            count: AtomicU32::new(0),
        }
    }

    /// Whether system calls must be checked: the only test the system
    /// call path makes when no filter is installed.
    #[inline(always)]
    pub fn active(&self) -> bool {
        self.mode.load(Ordering::Acquire) != MODE_DISABLED
    }

    pub fn mode(&self) -> u8 {
        self.mode.load(Ordering::Acquire)
    }

    /// The number of filters (/proc/PID/status's Seccomp_filters).
    pub fn filter_count(&self) -> u32 {
        self.count.load(Ordering::Relaxed)
    }

    pub fn no_new_privs(&self) -> bool {
        self.no_new_privs.load(Ordering::Relaxed)
    }

    pub fn set_no_new_privs(&self) {
        self.no_new_privs.store(true, Ordering::Relaxed);
    }

    /// A new thread or process starts with its creator's filters, mode
    /// and no_new_privs (Linux's copy_seccomp).
    pub fn inherit(&self, from: &SeccompSlot) {
        if from.no_new_privs() {
            self.set_no_new_privs();
        }
        let chain = from.filter.lock().clone();
        let count = from.count.load(Ordering::Relaxed);
        *self.filter.lock() = chain;
        self.count.store(count, Ordering::Relaxed);
        self.mode.store(from.mode(), Ordering::Release);
    }
}

/// Copies the creator's state into a new thread. For a thread of the same
/// process it runs under the process's thread-list lock, with the push
/// (see `install`'s TSYNC).
pub fn inherit(creator: &Thread, new: &Thread) {
    new.seccomp.inherit(&creator.seccomp);
    new.set_syscall_work(super::SYSCALL_WORK_SECCOMP, new.seccomp.active());
}

/// SECCOMP_SET_MODE_STRICT: Linux's EINVAL once in filter mode.
pub fn set_strict(thread: &Thread) -> Result<()> {
    let _guard = thread.process.threads.lock();
    match thread.seccomp.mode() {
        MODE_DISABLED | MODE_STRICT => {
            thread.seccomp.mode.store(MODE_STRICT, Ordering::Release);
            thread.set_syscall_work(super::SYSCALL_WORK_SECCOMP, true);
            Ok(())
        }
        _ => Err(Errno::EINVAL),
    }
}

/// May this thread install a filter: no_new_privs or CAP_SYS_ADMIN
/// (EACCES otherwise).
pub fn may_install(thread: &Thread) -> Result<()> {
    if thread.seccomp.no_new_privs() || super::access::capable(&thread.process, linux_raw_sys::general::CAP_SYS_ADMIN) {
        Ok(())
    } else {
        Err(Errno::EACCES)
    }
}

/// What installing with TSYNC found.
pub enum Install {
    Done,
    /// TSYNC: this thread cannot be synchronized.
    Blocked(Pid),
}

/// Whether `ancestor` (None: no filter) is in the chain that starts at
/// `chain`.
fn is_ancestor(ancestor: &Option<Arc<Installed>>, chain: &Option<Arc<Installed>>) -> bool {
    let Some(ancestor) = ancestor else { return true };
    let mut at = chain.clone();
    while let Some(f) = at {
        if Arc::ptr_eq(&f, ancestor) {
            return true;
        }
        at = f.prev.clone();
    }
    false
}

/// Installs `prog` in front of the thread's chain (SECCOMP_SET_MODE_FILTER
/// after the checks the caller made). With `tsync`, every other thread of
/// the process gets the new chain too (and no_new_privs if the caller has
/// it), provided each one's chain is an ancestor of the caller's;
/// otherwise nothing changes and the first that is not is named.
pub fn install(thread: &Thread, prog: Filter, log: bool, tsync: bool) -> Result<Install> {
    let process: &Process = &thread.process;
    // The thread list's lock orders installs, syncs and thread creation
    // (a new thread copies its creator's chain under it).
    let threads = process.threads.lock();
    if thread.seccomp.mode() == MODE_STRICT {
        return Err(Errno::EINVAL);
    }
    let mine = thread.seccomp.filter.lock().clone();
    let mut total = prog.translated_len();
    let mut at = mine.clone();
    while let Some(f) = at {
        total += f.prog.translated_len() + 4;
        at = f.prev.clone();
    }
    if total > MAX_INSNS_PER_PATH {
        return Err(Errno::ENOMEM);
    }
    if tsync {
        for other in threads.iter() {
            if core::ptr::eq(&**other, thread) {
                continue;
            }
            let ok = match other.seccomp.mode() {
                MODE_DISABLED => true,
                MODE_FILTER => is_ancestor(&other.seccomp.filter.lock(), &mine),
                _ => false,
            };
            if !ok {
                return Ok(Install::Blocked(other.tid()));
            }
        }
    }
    let new = Some(Arc::new(Installed { prog, log, prev: mine }));
    let count = thread.seccomp.count.load(Ordering::Relaxed) + 1;
    *thread.seccomp.filter.lock() = new.clone();
    thread.seccomp.count.store(count, Ordering::Relaxed);
    thread.seccomp.mode.store(MODE_FILTER, Ordering::Release);
    thread.set_syscall_work(super::SYSCALL_WORK_SECCOMP, true);
    if tsync {
        let nnp = thread.seccomp.no_new_privs();
        for other in threads.iter() {
            if core::ptr::eq(&**other, thread) {
                continue;
            }
            *other.seccomp.filter.lock() = new.clone();
            other.seccomp.count.store(count, Ordering::Relaxed);
            if nnp {
                other.seccomp.set_no_new_privs();
            }
            other.seccomp.mode.store(MODE_FILTER, Ordering::Release);
            other.set_syscall_work(super::SYSCALL_WORK_SECCOMP, true);
        }
    }
    Ok(Install::Done)
}

/// The verdict on one system call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Allow,
    /// SECCOMP_RET_LOG: allowed and logged.
    Log,
    /// Fail with this errno (0: return 0) without running it.
    Errno(u32),
    /// SIGSYS with this si_errno, the call not run.
    Trap(u32),
    /// PTRACE_EVENT_SECCOMP with this message, or ENOSYS untraced.
    Trace(u32),
    /// SECCOMP_RET_USER_NOTIF: no listener can exist here, so ENOSYS as
    /// Linux gives without one.
    UserNotif,
    KillThread,
    KillProcess,
    /// Strict mode's end for any other call: the thread, by SIGKILL.
    StrictKill,
}

/// The system calls strict mode allows (Linux's mode1_syscalls).
fn strict_allows(nr: i32) -> bool {
    use linux_raw_sys::general as n;
    [n::__NR_read, n::__NR_write, n::__NR_exit, n::__NR_rt_sigreturn].iter().any(|&a| a as i32 == nr)
}

/// Judges system call `data` (a `struct seccomp_data`; `nr` its number)
/// for a thread whose mode is not disabled.
pub fn evaluate(thread: &Thread, nr: i32, data: &[u8; kevlar_bpf::SECCOMP_DATA_SIZE]) -> Verdict {
    match thread.seccomp.mode() {
        MODE_STRICT => {
            if strict_allows(nr) {
                Verdict::Allow
            } else {
                Verdict::StrictKill
            }
        }
        _ => {
            let chain = thread.seccomp.filter.lock().clone();
            // No chain in filter mode would be a bug: fail closed.
            let Some(newest) = chain else { return Verdict::KillProcess };
            let mut ret = abi::SECCOMP_RET_ALLOW;
            let mut log = false;
            let mut at = Some(newest);
            while let Some(f) = at {
                let r = f.prog.run(data);
                // Linux compares the actions as signed numbers, so
                // KILL_PROCESS (the sign bit) is the most restrictive; on
                // a tie the newer filter's data stays.
                if ((r & abi::SECCOMP_RET_ACTION_FULL) as i32) < ((ret & abi::SECCOMP_RET_ACTION_FULL) as i32) {
                    ret = r;
                    log = f.log;
                }
                at = f.prev.clone();
            }
            let data = ret & abi::SECCOMP_RET_DATA;
            let verdict = match ret & abi::SECCOMP_RET_ACTION_FULL {
                abi::SECCOMP_RET_ALLOW => Verdict::Allow,
                abi::SECCOMP_RET_LOG => Verdict::Log,
                abi::SECCOMP_RET_ERRNO => Verdict::Errno(data.min(4095)),
                abi::SECCOMP_RET_TRAP => Verdict::Trap(data),
                abi::SECCOMP_RET_TRACE => Verdict::Trace(data),
                abi::SECCOMP_RET_USER_NOTIF => Verdict::UserNotif,
                abi::SECCOMP_RET_KILL_THREAD => Verdict::KillThread,
                // KILL_PROCESS and every unknown action.
                _ => Verdict::KillProcess,
            };
            if verdict == Verdict::Log || (log && verdict != Verdict::Allow) {
                log_action(thread, nr, verdict);
            }
            verdict
        }
    }
}

/// Kernel log lines written for SECCOMP_RET_LOG and filters loaded with
/// SECCOMP_FILTER_FLAG_LOG; past this many, one line says the rest are
/// dropped (a filter logging every call must not flood the console, as
/// Linux's messages are rate-limited).
const LOG_BUDGET: u32 = 100;
static LOGGED: AtomicU32 = AtomicU32::new(0);

fn log_action(thread: &Thread, nr: i32, verdict: Verdict) {
    match LOGGED.fetch_add(1, Ordering::Relaxed) {
        n if n < LOG_BUDGET => {
            log::info!("seccomp: pid {} comm {} syscall {} action {:?}", thread.process.pid, &*thread.process.comm.lock(), nr, verdict)
        }
        LOG_BUDGET => log::info!("seccomp: further actions are not logged"),
        _ => {}
    }
}

/// Ends the current thread as killed by `sig`: the whole process with
/// `whole_process` or when no other thread is left (SECCOMP_RET_KILL_PROCESS,
/// a KILL_THREAD of the last thread: no handler runs, nothing blocks it),
/// else this thread alone (KILL_THREAD, Linux's do_exit(SIGSYS); strict
/// mode's do_exit(SIGKILL)). The thread leaves on its way back to user
/// mode.
pub fn kill(thread: &Arc<Thread>, sig: u32, whole_process: bool) {
    let status = ExitStatus::Signaled(sig as u8, false);
    if !whole_process && thread.process.thread_count() > 1 {
        super::ptrace::exit_event(thread, status);
        super::leave(thread, status);
    } else {
        super::exit_current(status);
    }
}
