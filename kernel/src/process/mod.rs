//! Processes and threads: creation (fork, vfork), exit, reaping, process
//! groups and sessions, credentials, and the per-thread execution state.

pub mod access;
pub mod cputimer;
pub mod fsctx;
pub mod futex;
pub mod hwbreak;
pub mod kcmp;
pub mod limits;
pub mod posix_timer;
pub mod nproc;
pub mod personality;
pub mod pid;
pub mod ptrace;
pub mod scheduler;
pub mod seccomp;
pub mod signal;
pub mod wait_queue;

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::sync::{Arc, Weak};
use alloc::vec::Vec;
use core::sync::atomic::{AtomicBool, AtomicI32, AtomicU32, AtomicU64, AtomicU8, AtomicUsize, Ordering};

use kevlar_platform::sync::SpinLock;
use kevlar_platform::x86::trap::TrapFrame;
use kevlar_platform::x86::user::{FpuInit, Task};

use crate::error::{Errno, Result};
use crate::fs::{FdTable, FsContext};
use crate::mm::Vm;
use signal::SignalState;
use wait_queue::WaitQueue;

pub use pid::last_pid;
pub use scheduler::current;

/// A process or thread id.
pub type Pid = i32;

/// How a process ended, as wait4 reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExitStatus {
    /// exit(code).
    Exited(u8),
    /// Killed by a signal (with core dump flag).
    Signaled(u8, bool),
}

impl ExitStatus {
    /// Encodes the status as wait4's `wstatus`.
    pub fn wait_status(self) -> i32 {
        match self {
            ExitStatus::Exited(code) => (code as i32) << 8,
            ExitStatus::Signaled(sig, core) => sig as i32 | if core { 0x80 } else { 0 },
        }
    }
}

/// Every capability Linux 6.1 defines (0..=CAP_LAST_CAP).
pub const ALL_CAPS: u64 = (1 << (linux_raw_sys::general::CAP_LAST_CAP + 1)) - 1;

/// User and group ids, and the capability sets.
#[derive(Clone, Debug)]
pub struct Credentials {
    /// Real, effective, saved user ids.
    pub uid: u32,
    /// Effective user id.
    pub euid: u32,
    /// Saved set-user-id.
    pub suid: u32,
    /// Real group id.
    pub gid: u32,
    /// Effective group id.
    pub egid: u32,
    /// Saved set-group-id.
    pub sgid: u32,
    /// File-system user id (follows the effective uid; setfsuid sets it
    /// alone): what file permission checks use.
    pub fsuid: u32,
    /// File-system group id.
    pub fsgid: u32,
    /// Supplementary groups.
    pub groups: Vec<u32>,
    /// Capability sets (bit n = capability n): effective, permitted,
    /// inheritable. Privileged operations check them ([`access`]), and so
    /// do the file permission checks (`fs_cred`). The sets follow Linux's
    /// rules across setuid, exec and capset.
    pub cap_effective: u64,
    /// Permitted capabilities.
    pub cap_permitted: u64,
    /// Inheritable capabilities.
    pub cap_inheritable: u64,
    /// PR_SET_KEEPCAPS: keep the permitted set when every uid leaves 0
    /// (securebits' SECBIT_KEEP_CAPS).
    pub keep_caps: bool,
    /// The capability bounding set (PR_CAPBSET_READ/DROP): what an exec
    /// by root may have at most.
    pub cap_bounding: u64,
    /// The ambient set (PR_CAP_AMBIENT): kept across an exec of an
    /// unprivileged program; always within permitted and inheritable.
    pub cap_ambient: u64,
    /// The securebits other than SECBIT_KEEP_CAPS (that one is
    /// `keep_caps`): SECBIT_NOROOT, SECBIT_NO_SETUID_FIXUP,
    /// SECBIT_NO_CAP_AMBIENT_RAISE and the lock bits.
    pub securebits: u32,
    /// The user namespace the capabilities are in and the ids are seen
    /// through (`ns::user`); the ids above are kernel ids.
    pub user_ns: Arc<crate::ns::user::UserNs>,
}

/// The securebits (linux/securebits.h, not in linux-raw-sys): bit 2n is a
/// setting, bit 2n+1 its lock.
pub mod secbit {
    /// Root's uid 0 brings no capabilities across exec.
    pub const NOROOT: u32 = 1 << 0;
    /// Changing uids leaves the capability sets alone.
    pub const NO_SETUID_FIXUP: u32 = 1 << 2;
    /// PR_SET_KEEPCAPS's bit.
    pub const KEEP_CAPS: u32 = 1 << 4;
    /// PR_CAP_AMBIENT_RAISE is refused.
    pub const NO_CAP_AMBIENT_RAISE: u32 = 1 << 6;
    /// The four settings.
    pub const ALL_BITS: u32 = NOROOT | NO_SETUID_FIXUP | KEEP_CAPS | NO_CAP_AMBIENT_RAISE;
    /// Their locks.
    pub const ALL_LOCKS: u32 = ALL_BITS << 1;
}

impl Default for Credentials {
    /// Root, with every capability (init's credentials).
    fn default() -> Self {
        Credentials {
            uid: 0,
            euid: 0,
            suid: 0,
            gid: 0,
            egid: 0,
            sgid: 0,
            fsuid: 0,
            fsgid: 0,
            groups: Vec::new(),
            cap_effective: ALL_CAPS,
            cap_permitted: ALL_CAPS,
            cap_inheritable: 0,
            keep_caps: false,
            cap_bounding: ALL_CAPS,
            cap_ambient: 0,
            securebits: 0,
            user_ns: crate::ns::user::init_ns(),
        }
    }
}

impl Credentials {
    /// Whether capability `cap` is in the effective set (the id-changing
    /// calls check CAP_SETUID and CAP_SETGID this way, as Linux).
    pub fn has_cap(&self, cap: u32) -> bool {
        self.cap_effective & (1 << cap) != 0
    }

    /// The real uid as the holder's own user namespace numbers it: what
    /// a signal it sends carries as si_uid before the receiver's
    /// namespace is considered.
    pub fn own_view_uid(&self) -> u32 {
        self.user_ns.uid_shown(self.uid)
    }

    /// The identity file permission checks use: the file-system ids and
    /// the supplementary groups.
    pub fn fs_cred(&self) -> kevlar_vfs::Credentials {
        kevlar_vfs::Credentials { uid: self.fsuid, gid: self.fsgid, groups: self.groups.clone(), caps: self.cap_effective, scope: self.user_ns.scope() }
    }

    /// Linux's cap_task_fix_setuid for setfsuid: leaving file-system uid 0
    /// drops the file-system capabilities from the effective set, becoming
    /// 0 raises the permitted ones among them.
    pub fn after_fsuid_change(&mut self, old_fsuid: u32) {
        if self.securebits & secbit::NO_SETUID_FIXUP != 0 {
            return;
        }
        // Root is the namespace's root (its uid 0 as a kernel id).
        let root = crate::ns::user::root_uid(&self.user_ns);
        let is_root = |id: u32| Some(id) == root;
        if is_root(old_fsuid) && !is_root(self.fsuid) {
            self.cap_effective &= !access::CAP_FS_MASK;
        }
        if !is_root(old_fsuid) && is_root(self.fsuid) {
            self.cap_effective |= self.cap_permitted & access::CAP_FS_MASK;
        }
    }

    /// Linux's cap_emulate_setxuid: after a uid change from `old`, drop
    /// the permitted and effective sets when no uid is 0 any more (unless
    /// keep_caps), clear the effective set when the effective uid left 0,
    /// and raise it to the permitted set when it became 0.
    pub fn after_uid_change(&mut self, old: (u32, u32, u32)) {
        if self.securebits & secbit::NO_SETUID_FIXUP != 0 {
            return;
        }
        let (ruid, euid, suid) = old;
        // Root is the namespace's root (its uid 0 as a kernel id), as in
        // Linux's cap_emulate_setxuid: setresuid(0, 0, 0) inside a user
        // namespace keeps the capabilities there.
        let root = crate::ns::user::root_uid(&self.user_ns);
        let is_root = |id: u32| Some(id) == root;
        let had_root = is_root(ruid) || is_root(euid) || is_root(suid);
        if had_root && !is_root(self.uid) && !is_root(self.euid) && !is_root(self.suid) {
            if !self.keep_caps {
                self.cap_permitted = 0;
                self.cap_effective = 0;
            }
            // Programs from before ambient capabilities expect a setuid
            // away from root and an exec to drop them (Linux).
            self.cap_ambient = 0;
        }
        if is_root(euid) && !is_root(self.euid) {
            self.cap_effective = 0;
        }
        if !is_root(euid) && is_root(self.euid) {
            self.cap_effective = self.cap_permitted;
        }
    }

    /// The credentials after an exec of a file without file capabilities
    /// (Linux's bprm_fill_uid and cap_bprm_creds_from_file). `set_uid` and
    /// `set_gid` are the file's owner and group when its set-user-id bit
    /// (and set-group-id with group execute) apply; exec ignores them on a
    /// nosuid mount or under no_new_privs (the caller's decision). Root
    /// (real or effective, after the change) gets every capability,
    /// effective only with an effective uid 0; anyone else gets none. The
    /// saved and file-system ids follow the effective ones; keep_caps is
    /// reset.
    pub fn after_exec(&mut self, set_uid: Option<u32>, set_gid: Option<u32>, no_new_privs: bool) -> ExecCreds {
        let old = self.clone();
        if let Some(uid) = set_uid {
            self.euid = uid;
        }
        if let Some(gid) = set_gid {
            self.egid = gid;
        }
        // Root (unless SECBIT_NOROOT) gets the bounding set and its
        // inheritable set, as if the file had every file capability; root
        // is the id the user namespace maps 0 to.
        let root_uid = crate::ns::user::root_uid(&self.user_ns);
        let is_root = |id: u32| Some(id) == root_uid;
        let privileged_root = self.securebits & secbit::NOROOT == 0;
        let root = privileged_root && (is_root(self.uid) || is_root(self.euid));
        let effective = privileged_root && is_root(self.euid);
        let mut permitted = if root { self.cap_bounding | self.cap_inheritable } else { 0 };
        // Linux's __is_setuid/__is_setgid compare with the old *real* ids.
        let is_setid = self.euid != old.uid || self.egid != old.gid;
        let gained = permitted & !old.cap_permitted != 0;
        if (is_setid || gained) && no_new_privs {
            // No new privileges: the ids fall back to the real ones and
            // the permitted set cannot grow.
            self.euid = self.uid;
            self.egid = self.gid;
            permitted &= old.cap_permitted;
        }
        self.suid = self.euid;
        self.fsuid = self.euid;
        self.sgid = self.egid;
        self.fsgid = self.egid;
        // The ambient set survives an exec that is not set-id, and is
        // added to what the program gets.
        if is_setid {
            self.cap_ambient = 0;
        }
        permitted |= self.cap_ambient;
        self.cap_permitted = permitted;
        self.cap_effective = if effective { permitted } else { self.cap_ambient };
        self.keep_caps = false;
        let secure = is_setid || (!is_root(self.uid) && (effective || permitted & !self.cap_ambient != 0));
        // Dumpable unless the old ids differed (Linux looks at the current
        // credentials first) or commit_creds sees the effective or
        // file-system ids change or capabilities grow.
        let dumpable = old.euid == old.uid
            && old.egid == old.gid
            && self.euid == old.euid
            && self.egid == old.egid
            && self.fsuid == old.fsuid
            && self.fsgid == old.fsgid
            && self.cap_permitted & !old.cap_permitted == 0;
        ExecCreds { secure, dumpable }
    }
}

/// What an exec's credential change means for the new program.
#[derive(Clone, Copy, Debug)]
pub struct ExecCreds {
    /// AT_SECURE: the program runs with privileges its caller lacked.
    pub secure: bool,
    /// Whether the process stays dumpable.
    pub dumpable: bool,
}

/// A process.
pub struct Process {
    /// Process id (also the main thread's id).
    pub pid: Pid,
    parent: SpinLock<Weak<Process>>,
    children: SpinLock<Vec<Arc<Process>>>,
    /// Process group id.
    pub pgid: AtomicI32,
    /// Session id.
    pub sid: AtomicI32,
    /// The controlling terminal (Linux's `signal->tty`): inherited by fork,
    /// dropped by setsid and when the terminal hangs up.
    pub ctty: SpinLock<Option<Arc<crate::tty::Tty>>>,
    exit_status: SpinLock<Option<ExitStatus>>,
    /// The address space (shared with a vfork child until it execs).
    pub vm: SpinLock<Arc<SpinLock<Vm>>>,
    /// Open files.
    pub files: SpinLock<Arc<SpinLock<FdTable>>>,
    /// Root, working directory, umask: the calling thread's (`fsctx.rs`).
    pub fs: fsctx::ProcessFs,
    /// Ids.
    pub creds: SpinLock<Credentials>,
    /// Signal dispositions and pending signals (the process's and each
    /// thread's).
    pub signals: SpinLock<SignalState>,
    /// Its thread, process and session keyrings (`keys/`).
    pub keys: SpinLock<crate::keys::ProcessKeys>,
    /// The live threads (the main thread first while it lives). Lock
    /// order: `signals` before `threads`.
    threads: SpinLock<Vec<Arc<Thread>>>,
    /// Woken when a thread leaves (an exec waits for the others to go).
    thread_left: WaitQueue,
    /// CPU time of threads that have exited (ns).
    exited_threads_ns: AtomicU64,
    /// Resource limits.
    pub limits: SpinLock<limits::Limits>,
    /// Scheduling policy and static priority.
    pub sched_policy: SpinLock<(u32, i32)>,
    /// SCHED_RESET_ON_FORK: children start with the default policy and no
    /// negative nice value.
    pub sched_reset_on_fork: AtomicBool,
    /// The nice value (-20..=19).
    pub nice: SpinLock<i32>,
    /// Whether the process has called execve (setpgid on such a child
    /// fails with EACCES).
    pub did_exec: AtomicBool,
    /// CPU time of the process when it exited (ns); live processes add
    /// their threads' running time.
    exit_cpu_ns: core::sync::atomic::AtomicU64,
    /// CPU time of reaped children and their descendants (ns).
    pub children_cpu_ns: core::sync::atomic::AtomicU64,
    /// PR_GET_DUMPABLE: cleared when the effective ids change, set again
    /// by exec; a process that is not dumpable has its /proc files owned
    /// by root and closed to other users.
    pub dumpable: AtomicBool,
    /// The user namespace the process was in at its last exec (Linux's
    /// mm->user_ns, inherited by fork): tracing a process that is not
    /// dumpable takes CAP_SYS_PTRACE there, so one that entered a user
    /// namespace of its own and changed ids stays closed to that
    /// namespace's owner until it makes itself dumpable again.
    pub exec_user_ns: SpinLock<Arc<crate::ns::user::UserNs>>,
    /// Set once the parent has reaped it.
    reaped: AtomicBool,
    /// PR_SET_PDEATHSIG: the signal to get when the parent exits.
    pub death_signal: core::sync::atomic::AtomicU32,
    /// The I/O priority ioprio_set gave (-1: none yet, Linux's process
    /// without an io_context); recorded, it weighs no I/O yet.
    pub ioprio: AtomicI32,
    /// Woken when a child changes state (wait4 sleeps here).
    pub child_event: WaitQueue,
    /// The program name (`comm`).
    pub comm: SpinLock<String>,
    /// When the process was created (monotonic ns since boot), for
    /// /proc/PID/stat's start time.
    pub start_ns: u64,
    /// Set when a vfork child has exec'd or exited; its parent waits on
    /// `vfork_event`.
    vfork_released: AtomicBool,
    vfork_event: WaitQueue,
    main_thread: SpinLock<Weak<Thread>>,
    /// oom_score_adj and its floor (/proc/PID/oom_score_adj).
    pub oom: crate::mm::oom::OomSettings,
    /// Set by a set*uid that moved the real uid to a user over its
    /// RLIMIT_NPROC (Linux's PF_NPROC_EXCEEDED): execve checks it.
    pub nproc_exceeded: AtomicBool,
    /// personality(2): the execution domain and its flags (kept across
    /// fork and exec; see `personality.rs`).
    pub personality: core::sync::atomic::AtomicU32,
    /// The cgroup the process belongs to (`crate::cgroup`).
    pub cgroup: crate::cgroup::Membership,
    /// The namespaces it is in (`crate::ns`); the mount namespace is also
    /// in `fs`, which path walks use.
    pub ns: SpinLock<Arc<crate::ns::NsSet>>,
}

/// Scheduling state of a thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum ThreadState {
    /// Running or ready to run.
    Runnable = 0,
    /// Waiting in a wait queue.
    Sleeping = 1,
    /// Exited; never runs again.
    Dead = 2,
}

/// A thread: what the scheduler runs.
pub struct Thread {
    /// Thread id (changes only when a thread execs and becomes the main
    /// thread, taking the process id).
    tid: AtomicI32,
    /// The thread's return work (Linux's TIF work flags in one word):
    /// false only when the way back to user mode has nothing to do for
    /// this thread. Set when a signal is queued for it or its process,
    /// and by everything else that return must look at: an interrupted
    /// system call to restart, a mask to restore after a handler, the
    /// thread's exit (state `Dead`), a changed CPU affinity. Cleared when
    /// delivery finds no signal pending at all, after that return has
    /// taken the rest. Every return to user mode reads this one word
    /// instead of taking the signal lock (a spurious `true` costs one look
    /// under it).
    pub signal_hint: AtomicBool,
    /// System-call work: one bit per reason a system call of this thread
    /// leaves the fast path (`SYSCALL_WORK_*`: traced, seccomp filtered),
    /// set by ptrace and seccomp next to their own state, so that entry
    /// tests one word (Linux's SYSCALL_WORK flags).
    syscall_work: AtomicU32,
    /// The owning process.
    pub process: Arc<Process>,
    /// The platform's execution context.
    pub task: Arc<Task>,
    state: AtomicU8,
    pub(crate) on_run_queue: AtomicBool,
    /// set_tid_address: cleared and futex-woken at exit.
    pub clear_child_tid: AtomicUsize,
    /// set_robust_list: the head of the thread's list of held robust
    /// futexes (0: none), walked at exit and exec.
    pub robust_list: AtomicUsize,
    /// CPU affinity mask (an atomic: every return to user mode reads it).
    pub affinity: AtomicU64,
    /// Page faults taken, and the last faulting address (debugging dump).
    pub fault_count: core::sync::atomic::AtomicU64,
    /// The last user page-fault address.
    pub last_fault: core::sync::atomic::AtomicU64,
    /// Nanoseconds run before the current stint, and when the current
    /// stint started (u64::MAX: not running).
    run_ns: core::sync::atomic::AtomicU64,
    running_since: core::sync::atomic::AtomicU64,
    /// The system call being handled (u64::MAX: none), for debugging.
    pub current_syscall: core::sync::atomic::AtomicU64,
    /// The number of a system call that returned EINTR, to restart it if
    /// the signal's handler has SA_RESTART (or no handler runs).
    interrupted_syscall: core::sync::atomic::AtomicU64,
    /// The mask to restore after a handler when sigsuspend or ppoll
    /// replaced it temporarily; `NO_SAVED_MASK` if none (an atomic: it is
    /// checked on every return to user mode).
    saved_sigmask: AtomicU64,
    /// The CPU of the last stint (/proc/PID/stat's `processor`).
    last_cpu: core::sync::atomic::AtomicU32,
    /// ptrace: the tracer, the stops.
    pub ptrace: ptrace::TraceSlot,
    /// seccomp filters and no_new_privs (per thread, as Linux's).
    pub seccomp: seccomp::SeccompSlot,
    /// The NUMA memory policy (set_mempolicy), inherited by new threads
    /// and children.
    pub mempolicy: SpinLock<crate::mm::mempolicy::MemPolicy>,
}

/// Time each CPU spent running user threads (ns), for /proc/stat and
/// /proc/uptime (the rest is idle).
pub static CPU_BUSY_NS: [core::sync::atomic::AtomicU64; kevlar_platform::smp::MAX_CPUS] = [const { core::sync::atomic::AtomicU64::new(0) }; kevlar_platform::smp::MAX_CPUS];

/// Context switches since boot (/proc/stat's `ctxt`).
pub static CONTEXT_SWITCHES: core::sync::atomic::AtomicU64 = core::sync::atomic::AtomicU64::new(0);


/// No mask saved: SIGKILL and SIGSTOP can never be blocked, so no real
/// mask has every bit set.
const NO_SAVED_MASK: u64 = u64::MAX;

/// `Thread::syscall_work`: ptrace traces the thread's system calls.
pub const SYSCALL_WORK_TRACE: u32 = 1;
/// `Thread::syscall_work`: a seccomp mode filters them.
pub const SYSCALL_WORK_SECCOMP: u32 = 2;
/// `Thread::syscall_work`: the kernel logs every system call (the
/// `strace` boot option), so the logging is off the fast path.
pub const SYSCALL_WORK_STRACE: u32 = 4;

/// The `syscall_work` every new thread starts with: `SYSCALL_WORK_STRACE`
/// when the boot option asked for it (set before the first process).
pub static SYSCALL_WORK_AT_START: AtomicU32 = AtomicU32::new(0);

/// Every process by pid. A pid can name a reaped process (still referenced
/// somewhere) and its successor at once, hence a list per pid.
static PROCESSES: SpinLock<BTreeMap<Pid, Vec<Weak<Process>>>> = SpinLock::new(BTreeMap::new());

/// Taken by fork while it makes a child visible, and by every signal sent
/// to many processes at once (a process group, everyone) while it picks
/// its targets and sends: such a signal then reaches either the parent
/// before the fork, which fails if the signal is fatal (Linux's "let kill
/// terminate clone/fork in the middle"), or parent and child. Without it
/// a fork bomb's `kill(-pgrp, SIGKILL)` left the children forked during
/// the sweep alive.
static GROUP_SIGNAL: SpinLock<()> = SpinLock::new(());

/// Holds off forks while a signal goes to many processes (see
/// [`GROUP_SIGNAL`]).
pub fn group_signal_lock() -> kevlar_platform::sync::SpinLockGuard<'static, ()> {
    GROUP_SIGNAL.lock()
}

/// Registrations since the last sweep of the whole table.
static SINCE_SWEEP: AtomicUsize = AtomicUsize::new(0);
static INIT: SpinLock<Option<Arc<Process>>> = SpinLock::new(None);

impl Thread {
    /// Returns the thread id.
    pub fn tid(&self) -> Pid {
        self.tid.load(Ordering::Relaxed)
    }

    /// Returns the scheduling state.
    pub fn state(&self) -> ThreadState {
        match self.state.load(Ordering::Acquire) {
            0 => ThreadState::Runnable,
            1 => ThreadState::Sleeping,
            _ => ThreadState::Dead,
        }
    }

    /// Sets the scheduling state.
    pub fn set_state(&self, state: ThreadState) {
        self.state.store(state as u8, Ordering::Release);
        if state == ThreadState::Dead {
            // The way back to user mode leaves the CPU instead.
            self.signal_hint.store(true, Ordering::Release);
        }
    }

    /// Makes a sleeping thread runnable again.
    pub fn wake(self: &Arc<Self>) {
        if self
            .state
            .compare_exchange(ThreadState::Sleeping as u8, ThreadState::Runnable as u8, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
        {
            scheduler::enqueue(self.clone());
        }
    }

    /// One step of a long kernel loop: yields the CPU if the time slice
    /// ran out, and returns false when the thread is dying (a fatal signal
    /// waits), so the loop stops there.
    pub fn checkpoint(&self) -> bool {
        scheduler::cond_resched();
        !self.fatal_signal_pending()
    }

    /// Whether the thread is about to die of a signal (see
    /// `Signals::fatal_pending`).
    pub fn fatal_signal_pending(&self) -> bool {
        self.process.signals.lock().fatal_pending(self.tid())
    }

    /// Returns whether a signal that interrupts sleeps is pending.
    pub fn has_pending_signal(&self) -> bool {
        let deliverable = self.process.signals.lock().has_deliverable(self.tid());
        deliverable || self.ptrace.interrupt_pending()
    }

    /// Returns whether the thread's CPU affinity allows CPU `cpu`.
    pub fn allowed_on(&self, cpu: usize) -> bool {
        cpu >= 64 || self.affinity.load(Ordering::Relaxed) & (1u64 << cpu) != 0
    }

    /// Marks the start of a stint on a CPU.
    pub fn account_switch_in(&self) {
        self.running_since.store(kevlar_platform::time::monotonic_ns(), Ordering::Relaxed);
        self.last_cpu.store(kevlar_platform::smp::cpu_index() as u32, Ordering::Relaxed);
    }

    /// Adds the stint that ends now to the thread's CPU time.
    pub fn account_switch_out(&self) {
        let since = self.running_since.swap(u64::MAX, Ordering::Relaxed);
        if since != u64::MAX {
            let now = kevlar_platform::time::monotonic_ns();
            let ran = now.saturating_sub(since);
            self.run_ns.fetch_add(ran, Ordering::Relaxed);
            let cpu = kevlar_platform::smp::cpu_index();
            if let Some(busy) = CPU_BUSY_NS.get(cpu) {
                busy.fetch_add(ran, Ordering::Relaxed);
            }
        }
        CONTEXT_SWITCHES.fetch_add(1, Ordering::Relaxed);
    }

    /// Returns the CPU the thread last ran on.
    pub fn last_cpu(&self) -> usize {
        self.last_cpu.load(Ordering::Relaxed) as usize
    }

    /// Returns the CPU time used, the current stint included.
    pub fn cpu_ns(&self) -> u64 {
        let since = self.running_since.load(Ordering::Relaxed);
        let current = if since == u64::MAX { 0 } else { kevlar_platform::time::monotonic_ns().saturating_sub(since) };
        self.run_ns.load(Ordering::Relaxed) + current
    }

    /// Records that system call `number` returned EINTR.
    pub fn set_interrupted_syscall(&self, number: u64) {
        self.interrupted_syscall.store(number, Ordering::Relaxed);
        self.signal_hint.store(true, Ordering::Release);
    }

    /// Sets or clears one `SYSCALL_WORK_*` bit.
    pub fn set_syscall_work(&self, bit: u32, on: bool) {
        if on {
            self.syscall_work.fetch_or(bit, Ordering::AcqRel);
        } else {
            self.syscall_work.fetch_and(!bit, Ordering::AcqRel);
        }
    }

    /// Whether a system call must take the slow path (traced or filtered).
    #[inline(always)]
    pub fn has_syscall_work(&self) -> bool {
        self.syscall_work.load(Ordering::Acquire) != 0
    }

    /// Whether the way back to user mode has work for this thread: a
    /// signal that may be deliverable, an interrupted call, a mask to
    /// restore, its exit, a changed affinity (one word, `signal_hint`,
    /// which each of them sets).
    #[inline(always)]
    pub fn has_return_work(&self) -> bool {
        self.signal_hint.load(Ordering::Acquire)
    }

    /// Sets the CPU affinity mask; the thread looks at it on its next
    /// return to user mode (and moves if this CPU is no longer allowed).
    pub fn set_affinity(&self, mask: u64) {
        self.affinity.store(mask, Ordering::Relaxed);
        self.signal_hint.store(true, Ordering::Release);
    }

    /// Takes the interrupted system call number, if any.
    pub fn take_interrupted_syscall(&self) -> Option<u64> {
        if self.interrupted_syscall.load(Ordering::Relaxed) == u64::MAX {
            return None; // the common case, without a locked instruction
        }
        let n = self.interrupted_syscall.swap(u64::MAX, Ordering::Relaxed);
        (n != u64::MAX).then_some(n)
    }

    /// Sets (or clears) the mask to restore after the next handler.
    pub fn set_saved_sigmask(&self, mask: Option<u64>) {
        self.saved_sigmask.store(mask.unwrap_or(NO_SAVED_MASK), Ordering::Relaxed);
        if mask.is_some() {
            self.signal_hint.store(true, Ordering::Release);
        }
    }

    /// The mask to restore after the next handler, left in place
    /// (PTRACE_GETSIGMASK reports it while a sigsuspend's mask is in force).
    pub fn saved_sigmask(&self) -> Option<u64> {
        let mask = self.saved_sigmask.load(Ordering::Relaxed);
        (mask != NO_SAVED_MASK).then_some(mask)
    }

    /// Takes the mask to restore after the next handler.
    pub fn take_saved_sigmask(&self) -> Option<u64> {
        // Only this thread sets it: a plain load spares the common case
        // (nothing saved) a locked instruction.
        if self.saved_sigmask.load(Ordering::Relaxed) == NO_SAVED_MASK {
            return None;
        }
        let mask = self.saved_sigmask.swap(NO_SAVED_MASK, Ordering::Relaxed);
        (mask != NO_SAVED_MASK).then_some(mask)
    }

    /// Loads this thread's address space on the current CPU.
    pub fn activate_address_space(&self) {
        let vm = self.process.vm.lock().clone();
        vm.lock().activate();
    }
}

impl Process {
    /// Returns the CPU time used so far, in nanoseconds.
    pub fn cpu_ns(&self) -> u64 {
        if self.exit_status().is_some() {
            return self.exit_cpu_ns.load(Ordering::Relaxed);
        }
        let live: u64 = self.threads().iter().map(|t| t.cpu_ns()).sum();
        live + self.exited_threads_ns.load(Ordering::Relaxed)
    }

    /// Returns the live threads.
    pub fn threads(&self) -> Vec<Arc<Thread>> {
        self.threads.lock().clone()
    }

    /// Returns how many threads live.
    pub fn thread_count(&self) -> usize {
        self.threads.lock().len()
    }

    /// Returns the parent process (None for init and orphans of init).
    pub fn parent(&self) -> Option<Arc<Process>> {
        self.parent.lock().upgrade()
    }

    /// Returns the parent's pid (0 for init).
    pub fn ppid(&self) -> Pid {
        self.parent().map_or(0, |p| p.pid)
    }

    /// Whether the process was reaped: its id is free again.
    pub fn is_reaped(&self) -> bool {
        self.reaped.load(Ordering::Acquire)
    }

    /// Returns the exit status if the process is a zombie.
    pub fn exit_status(&self) -> Option<ExitStatus> {
        *self.exit_status.lock()
    }

    /// Returns the children (live and zombie).
    pub fn children(&self) -> Vec<Arc<Process>> {
        self.children.lock().clone()
    }

    /// Removes a reaped child: its pid is free from now on.
    pub fn forget_child(&self, pid: Pid) {
        let mut children = self.children.lock();
        let mut reaped = None;
        if let Some(child) = children.iter().find(|c| c.pid == pid) {
            if !child.reaped.swap(true, Ordering::AcqRel) {
                crate::cgroup::reaped(child);
                let total = child.cpu_ns() + child.children_cpu_ns.load(Ordering::Relaxed);
                self.children_cpu_ns.fetch_add(total, Ordering::Relaxed);
                reaped = Some(child.clone());
            }
        }
        children.retain(|c| c.pid != pid);
        drop(children);
        if let Some(child) = reaped {
            unregister(&child);
        }
    }

    /// Returns the main thread, while it lives.
    pub fn main_thread(&self) -> Option<Arc<Thread>> {
        self.main_thread.lock().upgrade()
    }

    /// Returns a thread that represents the process in /proc and debugging
    /// output: the main thread, or another live one after it exited.
    pub fn any_thread(&self) -> Option<Arc<Thread>> {
        self.main_thread().or_else(|| self.threads.lock().first().cloned())
    }
}

/// Prints every process with its state and the system call it is in (the
/// Ctrl-] debugging dump).
pub fn dump_state() {
    kevlar_platform::println!("--- kevlar state dump ---");
    for p in all_processes() {
        let thread = p.any_thread();
        let (state, syscall) = thread.as_ref().map_or((ThreadState::Dead, u64::MAX), |t| (t.state(), t.current_syscall.load(Ordering::Relaxed)));
        let name = crate::syscall_names::SYSCALL_NAMES.get(syscall as usize).copied().unwrap_or("-");
        let (pending, blocked) = {
            let tid = thread.as_ref().map_or(p.pid, |t| t.tid());
            let signals = p.signals.lock();
            (signals.pending(tid), signals.blocked(tid))
        };
        let comm = p.comm.lock().clone();
        let queued = thread.as_ref().is_some_and(|t| t.on_run_queue.load(Ordering::Relaxed));
        if let Some(t) = &thread {
            kevlar_platform::println!("  faults {} last {:#x}", t.fault_count.load(Ordering::Relaxed), t.last_fault.load(Ordering::Relaxed));
        }
        kevlar_platform::println!(
            "pid {} ppid {} {:?} {:?} in {} pending {:#x} blocked {:#x} exit {:?} queued {}",
            p.pid, p.ppid(), comm, state, name, pending, blocked, p.exit_status(), queued
        );
    }
    scheduler::dump();
}

/// Adds a process to the pid table, dropping entries of freed processes: a
/// `Weak` keeps the whole allocation of its process alive, so stale ones
/// must not pile up.
fn register(process: &Arc<Process>) {
    let mut table = PROCESSES.lock();
    // A sweep every so many registrations keeps the cost per fork constant
    // on average.
    if SINCE_SWEEP.fetch_add(1, Ordering::Relaxed) >= 256 {
        SINCE_SWEEP.store(0, Ordering::Relaxed);
        sweep(&mut table);
    }
    let slot = table.entry(process.pid).or_default();
    slot.retain(|w| w.strong_count() > 0);
    slot.push(Arc::downgrade(process));
}

/// Takes a reaped process out of the pid table at once: its `Weak` would
/// keep the whole allocation alive until the next sweep, and a fork bomb's
/// thousands of reaped processes held megabytes that way.
fn unregister(process: &Arc<Process>) {
    crate::ns::pid::detach(process.pid);
    let mut table = PROCESSES.lock();
    if let Some(slot) = table.get_mut(&process.pid) {
        slot.retain(|w| w.strong_count() > 0 && !core::ptr::eq(w.as_ptr(), Arc::as_ptr(process)));
        if slot.is_empty() {
            table.remove(&process.pid);
        }
    }
}

/// Drops the entries of freed processes.
fn sweep(table: &mut BTreeMap<Pid, Vec<Weak<Process>>>) {
    table.retain(|_, slot| {
        slot.retain(|w| w.strong_count() > 0);
        !slot.is_empty()
    });
}

/// The live or zombie (not reaped) process in `slot`.
fn listed(slot: &[Weak<Process>]) -> Option<Arc<Process>> {
    slot.iter().filter_map(Weak::upgrade).find(|p| !p.reaped.load(Ordering::Acquire))
}

/// Finds a live or zombie (not yet reaped) process by pid.
pub fn find_process(pid: Pid) -> Option<Arc<Process>> {
    PROCESSES.lock().get(&pid).and_then(|slot| listed(slot))
}

/// The smallest pid at or above `min` of a live or zombie process (procfs
/// lists /proc by pid, one entry per call, without collecting the table).
pub fn next_pid_from(min: Pid) -> Option<Pid> {
    PROCESSES.lock().range(min.max(0)..).find(|(_, slot)| listed(slot).is_some()).map(|(&pid, _)| pid)
}

/// How many processes /proc lists (live or zombie, not reaped).
pub fn listed_process_count() -> usize {
    PROCESSES.lock().values().filter(|slot| listed(slot).is_some()).count()
}

/// Finds a live thread by its id.
pub fn find_thread(tid: Pid) -> Option<Arc<Thread>> {
    if let Some(thread) = find_process(tid).and_then(|p| p.main_thread()) {
        if thread.tid() == tid {
            return Some(thread);
        }
    }
    all_processes().iter().flat_map(|p| p.threads()).find(|t| t.tid() == tid)
}

/// Returns every process (for kill(-1), process groups, /proc).
pub fn all_processes() -> Vec<Arc<Process>> {
    let mut table = PROCESSES.lock();
    sweep(&mut table);
    table.values().flat_map(|slot| slot.iter().filter_map(Weak::upgrade)).collect()
}

/// Creates process 1 running with the registers in `frame` and `vm`.
pub fn spawn_init(vm: Vm, frame: &TrapFrame, fs: FsContext, files: FdTable, comm: &str) -> Result<Arc<Process>> {
    let pid = pid::alloc()?;
    let process = Arc::new(Process {
        pid,
        parent: SpinLock::new(Weak::new()),
        children: SpinLock::new(Vec::new()),
        pgid: AtomicI32::new(pid),
        sid: AtomicI32::new(pid),
        ctty: SpinLock::new(None),
        exit_status: SpinLock::new(None),
        vm: SpinLock::new(Arc::new(SpinLock::new(vm))),
        files: SpinLock::new(Arc::new(SpinLock::new(files))),
        fs: fsctx::ProcessFs::new(fs),
        creds: SpinLock::new(Credentials::default()),
        signals: SpinLock::new(SignalState::new(pid)),
        keys: SpinLock::new(crate::keys::ProcessKeys::default()),
        threads: SpinLock::new(Vec::new()),
        thread_left: WaitQueue::new(),
        exited_threads_ns: AtomicU64::new(0),
        limits: SpinLock::new(limits::DEFAULT_LIMITS),
        sched_policy: SpinLock::new((0, 0)),
        sched_reset_on_fork: AtomicBool::new(false),
        nice: SpinLock::new(0),
        did_exec: AtomicBool::new(false),
        reaped: AtomicBool::new(false),
        dumpable: AtomicBool::new(true),
        exec_user_ns: SpinLock::new(crate::ns::user::init_ns()),
        exit_cpu_ns: core::sync::atomic::AtomicU64::new(0),
        children_cpu_ns: core::sync::atomic::AtomicU64::new(0),
        death_signal: core::sync::atomic::AtomicU32::new(0),
        ioprio: AtomicI32::new(-1),
        child_event: WaitQueue::new(),
        comm: SpinLock::new(String::from(comm)),
        start_ns: kevlar_platform::time::monotonic_ns(),
        vfork_released: AtomicBool::new(true),
        vfork_event: WaitQueue::new(),
        main_thread: SpinLock::new(Weak::new()),
        oom: crate::mm::oom::OomSettings::new(),
        nproc_exceeded: AtomicBool::new(false),
        personality: core::sync::atomic::AtomicU32::new(0),
        cgroup: crate::cgroup::Membership::for_init(),
        ns: SpinLock::new(crate::ns::init_set()),
    });
    // What every exit will hold, made now: exit never allocates it.
    drop(Vm::dead());
    drop(dead_files());
    {
        // Linux sets init's RLIMIT_NPROC and RLIMIT_SIGPENDING from RAM.
        let nproc = nproc::default_limit();
        let mut limits = process.limits.lock();
        limits[linux_raw_sys::general::RLIMIT_NPROC as usize] = [nproc, nproc];
        limits[linux_raw_sys::general::RLIMIT_SIGPENDING as usize] = [nproc, nproc];
    }
    let task = Task::new_user(frame, FpuInit::Fresh).ok_or(Errno::ENOMEM)?;
    start_thread(&process, pid, task, 0, u64::MAX >> (64 - kevlar_platform::smp::cpu_count().clamp(1, 64)), None);
    register(&process);
    *INIT.lock() = Some(process.clone());
    Ok(process)
}

fn start_thread(process: &Arc<Process>, tid: Pid, task: Arc<Task>, clear_child_tid: usize, affinity: u64, creator: Option<&Thread>) -> Arc<Thread> {
    let thread = new_thread(process, tid, task, clear_child_tid, affinity);
    if let Some(creator) = creator {
        seccomp::inherit(creator, &thread);
        *thread.mempolicy.lock() = *creator.mempolicy.lock();
        ptrace::attach_child(creator, &thread);
    }
    *process.main_thread.lock() = Arc::downgrade(&thread);
    process.threads.lock().push(thread.clone());
    scheduler::enqueue(thread.clone());
    thread
}

fn new_thread(process: &Arc<Process>, tid: Pid, task: Arc<Task>, clear_child_tid: usize, affinity: u64) -> Arc<Thread> {
    Arc::new(Thread {
        tid: AtomicI32::new(tid),
        signal_hint: AtomicBool::new(true),
        syscall_work: AtomicU32::new(SYSCALL_WORK_AT_START.load(Ordering::Relaxed)),
        process: process.clone(),
        task,
        state: AtomicU8::new(ThreadState::Runnable as u8),
        on_run_queue: AtomicBool::new(false),
        clear_child_tid: AtomicUsize::new(clear_child_tid),
        robust_list: AtomicUsize::new(0),
        affinity: AtomicU64::new(affinity),
        current_syscall: core::sync::atomic::AtomicU64::new(u64::MAX),
        run_ns: core::sync::atomic::AtomicU64::new(0),
        running_since: core::sync::atomic::AtomicU64::new(u64::MAX),
        fault_count: core::sync::atomic::AtomicU64::new(0),
        last_fault: core::sync::atomic::AtomicU64::new(0),
        interrupted_syscall: core::sync::atomic::AtomicU64::new(u64::MAX),
        saved_sigmask: AtomicU64::new(NO_SAVED_MASK),
        last_cpu: core::sync::atomic::AtomicU32::new(0),
        ptrace: ptrace::TraceSlot::new(),
        seccomp: seccomp::SeccompSlot::new(),
        mempolicy: SpinLock::new(crate::mm::mempolicy::MemPolicy::DEFAULT),
    })
}

/// What a new child shares with its parent.
#[derive(Clone)]
pub struct CloneOptions {
    /// Share the address space (vfork / CLONE_VM): the parent sleeps until
    /// the child execs or exits.
    pub share_vm: bool,
    /// Wait for the child to exec or exit (CLONE_VFORK).
    pub vfork: bool,
    /// Share the fd table (CLONE_FILES).
    pub share_files: bool,
    /// Share root, cwd and umask (CLONE_FS); a thread made without it
    /// gets a copy of its creator's.
    pub share_fs: bool,
    /// The child is the caller's sibling: same parent (CLONE_PARENT).
    pub sibling: bool,
    /// The child's stack pointer (0: same as the parent's).
    pub stack: usize,
    /// TLS for the child (CLONE_SETTLS).
    pub tls: Option<u64>,
    /// Where to store the child's tid in the parent's memory
    /// (CLONE_PARENT_SETTID; 0: nowhere).
    pub parent_tid: usize,
    /// Where to store the child's tid in the child's memory
    /// (CLONE_CHILD_SETTID; 0: nowhere).
    pub set_child_tid: usize,
    /// The child's clear_child_tid (CLONE_CHILD_CLEARTID; 0: none).
    pub clear_child_tid: usize,
    /// The cgroup the child starts in (CLONE_INTO_CGROUP; None: the
    /// parent's).
    pub cgroup: Option<alloc::sync::Arc<crate::cgroup::Cgroup>>,
    /// The child's namespaces when clone asked for new ones (None: the
    /// parent's).
    pub ns: Option<alloc::sync::Arc<crate::ns::NsSet>>,
}

/// The execution context of a new child or thread: the creator's
/// registers and FPU state, `rax` 0 (clone's return value in the child),
/// the stack and TLS the options give (else the creator's).
fn child_task(creator: &Thread, frame: &TrapFrame, options: &CloneOptions) -> Result<Arc<Task>> {
    let mut child_frame = frame.clone();
    child_frame.rax = 0;
    if options.stack != 0 {
        child_frame.rsp = options.stack as u64;
    }
    let task = Task::new_user(&child_frame, FpuInit::CopyCurrent).ok_or(Errno::ENOMEM)?;
    task.set_fs_base(options.tls.unwrap_or(creator.task.fs_base()), false);
    Ok(task)
}

/// Creates a child process of the current one; the child returns 0 from
/// the system call, with the parent's registers otherwise.
pub fn fork(parent_thread: &Arc<Thread>, frame: &TrapFrame, options: CloneOptions) -> Result<Pid> {
    let parent = &parent_thread.process;
    // The task limits first, as Linux (checked again when the child is
    // counted).
    drop(nproc::admit(parent)?);
    if !options.share_vm && crate::mm::overcommit::mode() == crate::mm::overcommit::NEVER {
        // Strict overcommit: the child's private writable memory is a new
        // commitment.
        let pages = crate::mm::overcommit::accountable_pages(&parent.vm.lock().clone().lock());
        crate::mm::overcommit::enough_memory(pages, 0, false)?;
    }
    let vm = if options.share_vm {
        parent.vm.lock().clone()
    } else {
        let vm = parent.vm.lock().clone();
        let copy = vm.lock().fork()?;
        Arc::new(SpinLock::new(copy))
    };
    let files = if options.share_files {
        parent.files.lock().clone()
    } else {
        let table = parent.files.lock().lock().clone();
        Arc::new(SpinLock::new(table))
    };
    let pid = pid::alloc()?;
    let scheduling = inherited_scheduling(parent);
    let parent_of_child = if options.sibling { parent.parent().ok_or(Errno::EINVAL)? } else { parent.clone() };
    // The child is in the PID namespace its parent's children go to, and
    // numbered there and in each ancestor.
    let ns = crate::ns::pid::child_set(options.ns.clone().unwrap_or_else(|| crate::ns::of_thread(parent_thread)));
    // A child going to another time namespace shares no memory with its
    // parent (Linux: EINVAL), and its vDSO asks the kernel for the time.
    let ns = crate::ns::time::child_set(ns);
    if !Arc::ptr_eq(&ns.time, &crate::ns::of_thread(parent_thread).time) {
        if options.share_vm {
            return Err(Errno::EINVAL);
        }
        vm.lock().detach_vvar();
    }
    let _numbers = crate::ns::pid::Numbers::attach(&ns.pid, pid)?;
    let mut fs = parent.fs.lock().clone();
    if !Arc::ptr_eq(&fs.mnt, &ns.mnt) {
        // A new mount namespace (CLONE_NEWNS): the copies of the mounts
        // the context was in.
        fs.root_mnt = ns.mnt.mount_id_of(&fs.root, Some((&*fs.mnt, fs.root_mnt)));
        fs.cwd_mnt = ns.mnt.mount_id_of(&fs.cwd, Some((&*fs.mnt, fs.cwd_mnt)));
    }
    fs.mnt = ns.mnt.clone();
    let child = Arc::new(Process {
        pid,
        parent: SpinLock::new(Arc::downgrade(&parent_of_child)),
        children: SpinLock::new(Vec::new()),
        pgid: AtomicI32::new(parent.pgid.load(Ordering::Relaxed)),
        sid: AtomicI32::new(parent.sid.load(Ordering::Relaxed)),
        ctty: SpinLock::new(parent.ctty.lock().clone()),
        exit_status: SpinLock::new(None),
        vm: SpinLock::new(vm),
        files: SpinLock::new(files),
        fs: fsctx::ProcessFs::new(fs),
        creds: SpinLock::new(crate::ns::user::child_creds(&parent.creds.lock(), &ns.user)),
        signals: SpinLock::new(parent.signals.lock().fork_copy(parent_thread.tid(), pid)),
        keys: SpinLock::new(parent.keys.lock().fork()),
        threads: SpinLock::new(Vec::new()),
        thread_left: WaitQueue::new(),
        exited_threads_ns: AtomicU64::new(0),
        limits: SpinLock::new(*parent.limits.lock()),
        sched_policy: SpinLock::new(scheduling.0),
        sched_reset_on_fork: AtomicBool::new(false),
        nice: SpinLock::new(scheduling.1),
        did_exec: AtomicBool::new(false),
        reaped: AtomicBool::new(false),
        dumpable: AtomicBool::new(parent.dumpable.load(Ordering::Relaxed)),
        exec_user_ns: SpinLock::new(parent.exec_user_ns.lock().clone()),
        exit_cpu_ns: core::sync::atomic::AtomicU64::new(0),
        children_cpu_ns: core::sync::atomic::AtomicU64::new(0),
        death_signal: core::sync::atomic::AtomicU32::new(0),
        // Linux's copy_io: a child gets a copy of a priority that has a
        // class (the class sits above bit 13, IOPRIO_CLASS_SHIFT).
        ioprio: AtomicI32::new(match parent.ioprio.load(Ordering::Relaxed) {
            v if v >> 13 > 0 => v,
            _ => -1,
        }),
        child_event: WaitQueue::new(),
        comm: SpinLock::new(parent.comm.lock().clone()),
        start_ns: kevlar_platform::time::monotonic_ns(),
        vfork_released: AtomicBool::new(!options.vfork),
        vfork_event: WaitQueue::new(),
        main_thread: SpinLock::new(Weak::new()),
        oom: parent.oom.fork_copy(),
        nproc_exceeded: AtomicBool::new(parent.nproc_exceeded.load(Ordering::Relaxed)),
        personality: core::sync::atomic::AtomicU32::new(parent.personality.load(Ordering::Relaxed)),
        cgroup: crate::cgroup::Membership::inherit(&parent.cgroup),
        ns: SpinLock::new(ns.clone()),
    });
    let task = child_task(parent_thread, frame, &options)?;
    // Counted from the registration on, under the admission (nothing is
    // written to user memory for a fork that fails).
    let admission = nproc::admit(parent)?;
    // The tids are stored before the child runs, errors ignored (as
    // Linux): the parent's copy in its own memory, the child's in the
    // child's (the same memory with CLONE_VM).
    if options.parent_tid != 0 {
        let _ = crate::uaccess::copy_to_user(options.parent_tid, &crate::ns::pid::local_in(&crate::ns::pid::of(parent), pid).to_le_bytes());
    }
    if options.set_child_tid != 0 {
        let _ = child.vm.lock().clone().lock().write_bytes(options.set_child_tid, &crate::ns::pid::local_in(&ns.pid, pid).to_le_bytes());
    }
    {
        let _published = group_signal_lock();
        if parent_thread.fatal_signal_pending() {
            // The parent dies on its way out; the child never runs.
            return Err(Errno::EINTR);
        }
        // Counted in its cgroup where it becomes visible (cgroup.kill
        // holds this lock too); EAGAIN at pids.max.
        crate::cgroup::fork_commit(parent, &child, options.cgroup.as_ref())?;
        parent_of_child.children.lock().push(child.clone());
        register(&child);
    }
    drop(admission);
    _numbers.keep();
    start_thread(&child, pid, task, options.clear_child_tid, parent_thread.affinity.load(Ordering::Relaxed), Some(parent_thread));
    if options.vfork {
        let waiter = child.clone();
        // Killable, as Linux's: the child shares our memory, so we must
        // not run user code until it lets go of it, but a fatal signal
        // ends the wait (dying runs no user code). Other signals wait
        // (an interruptible wait would return at once while one is
        // pending, and this loop would spin on the CPU the child needs).
        waiter.vfork_event.wait_until_uninterruptible(|| {
            (waiter.vfork_released.load(Ordering::Acquire) || parent_thread.fatal_signal_pending()).then_some(())
        });
        // The child ran in our address space on another CPU and may have
        // write-protected its pages (a fork of its own) or unmapped some;
        // only that CPU's TLB was flushed. If the child let go before we
        // slept, this CPU never reloaded CR3, so drop its stale entries
        // now: a stale writable entry would let our writes reach a page
        // now shared copy-on-write with the child's child.
        parent.vm.lock().lock().activate();
    }
    Ok(pid)
}

/// The policy, priority and nice value a child of `parent` starts with:
/// the parent's, unless it set SCHED_RESET_ON_FORK (Linux's sched_fork: a
/// real-time policy becomes SCHED_NORMAL with nice 0, and a negative nice
/// value becomes 0; the child does not keep the flag).
fn inherited_scheduling(parent: &Process) -> ((u32, i32), i32) {
    let (policy, priority) = *parent.sched_policy.lock();
    let nice = *parent.nice.lock();
    if !parent.sched_reset_on_fork.load(Ordering::Relaxed) {
        return ((policy, priority), nice);
    }
    use linux_raw_sys::general::{SCHED_FIFO, SCHED_NORMAL, SCHED_RR};
    if policy == SCHED_FIFO || policy == SCHED_RR {
        ((SCHED_NORMAL, 0), 0)
    } else {
        ((policy, priority), nice.max(0))
    }
}

/// Creates a thread in the creator's process (clone with CLONE_THREAD): it
/// shares everything the process holds and starts with the creator's
/// registers but `rax` 0, on the stack and with the TLS given.
pub fn spawn_thread(creator: &Arc<Thread>, frame: &TrapFrame, options: &CloneOptions) -> Result<Pid> {
    let process = &creator.process;
    drop(nproc::admit(process)?);
    let task = child_task(creator, frame, &options)?;
    let tid = pid::alloc()?;
    let numbers = crate::ns::pid::Numbers::attach(&crate::ns::pid::of(process), tid)?;
    {
        let mut signals = process.signals.lock();
        if signals.group_exit().is_some() {
            // The process is ending; the caller dies on its way out.
            return Err(Errno::EINTR);
        }
        signals.add_thread(creator.tid(), tid);
    }
    let seen = crate::ns::pid::local_in(&crate::ns::pid::of(process), tid);
    if options.parent_tid != 0 {
        let _ = crate::uaccess::copy_to_user(options.parent_tid, &seen.to_le_bytes());
    }
    if options.set_child_tid != 0 {
        let _ = crate::uaccess::copy_to_user(options.set_child_tid, &seen.to_le_bytes());
    }
    let thread = new_thread(process, tid, task, options.clear_child_tid, creator.affinity.load(Ordering::Relaxed));
    if options.share_fs {
        process.fs.thread_created(creator.tid(), tid);
    } else {
        process.fs.thread_created_unshared(creator.tid(), tid);
    }
    // New namespaces of its own (clone with CLONE_NEWNS, CLONE_NEWUTS ...).
    if let Some(set) = options.ns.clone() {
        crate::ns::enter_new_thread(process, tid, set);
    }
    let admission = match nproc::admit(process).and_then(|a| crate::cgroup::thread_created(process).map(|()| a)) {
        Ok(admission) => admission,
        Err(e) => {
            process.signals.lock().remove_thread(tid);
            process.fs.thread_left(tid);
            return Err(e);
        }
    };
    ptrace::attach_child(creator, &thread);
    {
        // Under the list's lock: a TSYNC either sees the new thread or
        // has already changed the creator's filters.
        let mut threads = process.threads.lock();
        seccomp::inherit(creator, &thread);
        *thread.mempolicy.lock() = *creator.mempolicy.lock();
        threads.push(thread.clone());
    }
    drop(admission);
    numbers.keep();
    scheduler::enqueue(thread);
    Ok(tid)
}

/// Makes `thread`, about to exec, the only thread of its process: the
/// others get SIGKILL and are waited for; a thread other than the main one
/// then takes the process id (as Linux's de_thread).
pub fn become_sole_thread(thread: &Arc<Thread>) -> Result<()> {
    let process = &thread.process;
    if process.thread_count() > 1 {
        signal::begin_exec(process, thread.tid())?;
        let gone = process.thread_left.wait_until(|| Ok((process.thread_count() == 1).then_some(())));
        signal::end_exec(process);
        gone?;
    }
    // Its namespaces become the process's (the others' are gone).
    if let Some(set) = process.fs.thread_ns(thread.tid()) {
        let old = core::mem::replace(&mut *process.ns.lock(), set);
        drop(old);
    }
    process.fs.sole_thread(thread.tid());
    if thread.tid() != process.pid {
        crate::ns::pid::detach(thread.tid());
        process.signals.lock().rename_thread(thread.tid(), process.pid);
        thread.tid.store(process.pid, Ordering::Relaxed);
        *process.main_thread.lock() = Arc::downgrade(thread);
    }
    Ok(())
}

/// Lets a vfork parent run again (the child exec'd or is exiting).
pub fn release_vfork(process: &Process) {
    if !process.vfork_released.swap(true, Ordering::AcqRel) {
        process.vfork_event.wake_all();
    }
}

/// Handles clear_child_tid when the thread leaves its address space (exit
/// or exec): as Linux, only when someone else shares the address space (a
/// CLONE_VM child or parent) is the word cleared and its futex woken; a
/// private address space is about to go away unseen.
pub fn release_child_tid(thread: &Arc<Thread>) {
    let ctid = thread.clear_child_tid.swap(0, Ordering::Relaxed);
    let shared = thread.process.thread_count() > 1 || Arc::strong_count(&thread.process.vm.lock()) > 1;
    if ctid != 0 && shared {
        let _ = crate::uaccess::copy_to_user(ctid, &0u32.to_le_bytes());
        crate::process::futex::wake_address(thread, ctid, 1);
    }
}

/// Ends the current thread's whole process with `status` (exit_group, a
/// fatal signal): the other threads get SIGKILL and the current one
/// leaves; the process ends with its last thread. The thread leaves the
/// CPU on its way back to user mode (`scheduler::exit_dead_thread`), once
/// every kernel frame above has dropped its references.
pub fn exit_current(status: ExitStatus) {
    let thread = current().expect("exit outside a process");
    ptrace::exit_event(&thread, status);
    if signal::begin_group_exit(&thread.process, thread.tid(), status).is_some() {
        signal::kill_other_threads(&thread.process, thread.tid());
    }
    leave(&thread, status);
}

/// Ends the current thread alone (exit(2)); the process ends with its last
/// thread, with that thread's status unless something ended it as a whole
/// (as Linux reports it).
pub fn exit_thread(code: u8) {
    let thread = current().expect("exit outside a process");
    ptrace::exit_event(&thread, ExitStatus::Exited(code));
    leave(&thread, ExitStatus::Exited(code));
}

/// Takes `thread`, ending with `own`, out of its process; the last one out
/// ends the process: releases its resources, makes it a zombie, hands its
/// children to init and notifies the parent.
fn leave(thread: &Arc<Thread>, own: ExitStatus) {
    let process = thread.process.clone();
    crate::process::futex::exit_robust_list(thread);
    release_child_tid(thread);
    let last = {
        let mut threads = process.threads.lock();
        threads.retain(|t| !Arc::ptr_eq(t, thread));
        threads.is_empty()
    };
    let cpu_ns = if last { thread.cpu_ns() + process.exited_threads_ns.load(Ordering::Relaxed) } else { 0 };
    crate::cgroup::task_exit(&process, last, cpu_ns);
    if !last {
        let stop_completed = process.signals.lock().remove_thread(thread.tid());
        if let Some(sig) = stop_completed {
            signal::stop_completed(&process, sig);
        }
        process.exited_threads_ns.fetch_add(thread.cpu_ns(), Ordering::Relaxed);
        process.fs.thread_left(thread.tid());
        // A traced thread other than the leader reports its own exit to
        // its tracer; the leader's waits for the last thread.
        ptrace::on_thread_exit(thread, (thread.tid() != process.pid).then_some(own));
        thread.set_state(ThreadState::Dead);
        crate::ns::pid::detach(thread.tid());
        process.thread_left.wake_all();
        return;
    }
    let status = {
        let signals = process.signals.lock();
        signals.group_exit().unwrap_or(own)
    };
    if process.pid == 1 {
        kevlar_platform::println!("init exited with {:?}", status);
        crate::shutdown(status == ExitStatus::Exited(0));
    }
    release_vfork(&process);
    ptrace::on_tracer_exit(&process);
    crate::fs::locks::release_records(process.pid, None);
    crate::ipc::sem::exit(process.pid);
    posix_timer::delete_all(&process);
    // Drop the resources now, not when the parent reaps: a zombie keeps
    // only its status. What it holds instead is shared by every zombie,
    // so exit needs no memory (an OOM victim's must not).
    let files = core::mem::replace(&mut *process.files.lock(), dead_files());
    drop(files);
    kevlar_platform::arch::paging::activate_kernel_table();
    let vm = core::mem::replace(&mut *process.vm.lock(), Vm::dead());
    drop(vm);

    // A session leader's terminal hangs up (or, for a pty, its foreground
    // group gets SIGHUP) before orphaned groups are looked at, as Linux.
    crate::tty::on_exit(&process);
    signal::hang_up_orphaned_groups(&process);
    // A namespace's init takes the others down with it (and then reaps
    // them, its children by then).
    let ns_init = crate::ns::pid::init_exiting(&process);
    // Orphans go to init: their namespace's, or the first one's.
    let init = if ns_init { Some(process.clone()) } else { crate::ns::pid::reaper_for(&process).or_else(|| INIT.lock().clone()) };
    let orphans = core::mem::take(&mut *process.children.lock());
    if let Some(init) = &init {
        let any_zombie = orphans.iter().any(|c| c.exit_status().is_some());
        for child in orphans {
            let death_signal = child.death_signal.load(Ordering::Relaxed);
            if death_signal != 0 {
                signal::send_signal(&child, death_signal);
            }
            *child.parent.lock() = Arc::downgrade(init);
            init.children.lock().push(child);
        }
        if any_zombie {
            init.child_event.wake_all();
        }
    }
    if ns_init {
        crate::ns::pid::reap_namespace(&process);
    }
    if thread.tid() != process.pid {
        crate::ns::pid::detach(thread.tid());
    }

    process.exit_cpu_ns.store(thread.cpu_ns() + process.exited_threads_ns.load(Ordering::Relaxed), Ordering::Relaxed);
    match process.parent() {
        Some(parent) => {
            // A parent that ignores SIGCHLD (or set SA_NOCLDWAIT) does not
            // collect its children: they are reaped at once, before the
            // status is visible, so a wait on another CPU cannot find the
            // zombie first. Otherwise the status is published before
            // SIGCHLD, so a handler's wait finds it.
            if signal::children_reap_themselves(&parent) {
                parent.forget_child(process.pid);
            }
            *process.exit_status.lock() = Some(status);
            signal::notify_parent_of_exit(&process, &parent, status);
            parent.child_event.wake_all();
        }
        None => *process.exit_status.lock() = Some(status),
    }
    ptrace::on_thread_exit(thread, Some(status));
    // A pidfd naming the process becomes readable.
    crate::fs::file::notify_pollers();
    thread.set_state(ThreadState::Dead);
}

/// The empty fd table every exited process holds (made once).
fn dead_files() -> Arc<SpinLock<FdTable>> {
    static DEAD: SpinLock<Option<Arc<SpinLock<FdTable>>>> = SpinLock::new(None);
    DEAD.lock().get_or_insert_with(|| Arc::new(SpinLock::new(FdTable::new()))).clone()
}

/// Moves process `pid` into process group `pgid` (setpgid semantics).
pub fn set_process_group(caller: &Arc<Process>, pid: Pid, pgid: Pid) -> Result<()> {
    if pgid < 0 {
        return Err(Errno::EINVAL);
    }
    let target = if pid == 0 || pid == caller.pid {
        caller.clone()
    } else {
        let child = caller.children().into_iter().find(|c| c.pid == pid).ok_or(Errno::ESRCH)?;
        if child.sid.load(Ordering::Relaxed) != caller.sid.load(Ordering::Relaxed) {
            return Err(Errno::EPERM);
        }
        if child.did_exec.load(Ordering::Relaxed) {
            return Err(Errno::EACCES);
        }
        child
    };
    if target.sid.load(Ordering::Relaxed) == target.pid {
        return Err(Errno::EPERM); // a session leader cannot move
    }
    let pgid = if pgid == 0 { target.pid } else { pgid };
    if pgid != target.pid {
        let sid = target.sid.load(Ordering::Relaxed);
        let exists = all_processes().iter().any(|p| p.pgid.load(Ordering::Relaxed) == pgid && p.sid.load(Ordering::Relaxed) == sid);
        if !exists {
            return Err(Errno::EPERM);
        }
    }
    target.pgid.store(pgid, Ordering::Relaxed);
    Ok(())
}
