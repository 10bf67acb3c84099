//! Processes and threads: creation (fork, vfork), exit, reaping, process
//! groups and sessions, credentials, and the per-thread execution state.

pub mod scheduler;
pub mod signal;
pub mod wait_queue;

use alloc::string::String;
use alloc::sync::{Arc, Weak};
use alloc::vec::Vec;
use core::sync::atomic::{AtomicBool, AtomicI32, AtomicU8, AtomicUsize, Ordering};

use kevlar_platform::sync::SpinLock;
use kevlar_platform::x86::trap::TrapFrame;
use kevlar_platform::x86::user::{FpuInit, Task};

use crate::error::{Errno, Result};
use crate::fs::{FdTable, FsContext};
use crate::mm::Vm;
use signal::SignalState;
use wait_queue::WaitQueue;

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

/// User and group ids.
#[derive(Clone, Debug, Default)]
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
    /// Supplementary groups.
    pub groups: Vec<u32>,
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
    /// Root, working directory, umask.
    pub fs: SpinLock<FsContext>,
    /// Ids.
    pub creds: SpinLock<Credentials>,
    /// Signal dispositions and pending signals.
    pub signals: SpinLock<SignalState>,
    /// Resource limits.
    pub limits: SpinLock<crate::syscalls::Limits>,
    /// CPU affinity mask (an atomic: every return to user mode reads it).
    pub affinity: core::sync::atomic::AtomicU64,
    /// Scheduling policy and static priority.
    pub sched_policy: SpinLock<(u32, i32)>,
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
    /// PR_SET_NO_NEW_PRIVS (inherited, never cleared).
    pub no_new_privs: AtomicBool,
    /// Set once the parent has reaped it.
    reaped: AtomicBool,
    /// PR_SET_PDEATHSIG: the signal to get when the parent exits.
    pub death_signal: core::sync::atomic::AtomicU32,
    /// Woken when a child changes state (wait4 sleeps here).
    pub child_event: WaitQueue,
    /// The program name (`comm`).
    pub comm: SpinLock<String>,
    /// Set when a vfork child has exec'd or exited; its parent waits on
    /// `vfork_event`.
    vfork_released: AtomicBool,
    vfork_event: WaitQueue,
    main_thread: SpinLock<Weak<Thread>>,
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
    /// Thread id.
    pub tid: Pid,
    /// The owning process.
    pub process: Arc<Process>,
    /// The platform's execution context.
    pub task: Arc<Task>,
    state: AtomicU8,
    pub(crate) on_run_queue: AtomicBool,
    /// set_tid_address: cleared and futex-woken at exit.
    pub clear_child_tid: AtomicUsize,
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
    /// replaced it temporarily.
    saved_sigmask: SpinLock<Option<u64>>,
}

static NEXT_PID: AtomicI32 = AtomicI32::new(1);
static PROCESSES: SpinLock<Vec<Weak<Process>>> = SpinLock::new(Vec::new());
static INIT: SpinLock<Option<Arc<Process>>> = SpinLock::new(None);

fn alloc_pid() -> Pid {
    NEXT_PID.fetch_add(1, Ordering::Relaxed)
}

impl Thread {
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

    /// Returns whether a signal that interrupts sleeps is pending.
    pub fn has_pending_signal(&self) -> bool {
        self.process.signals.lock().has_deliverable()
    }

    /// Returns whether the process's CPU affinity allows CPU `cpu`.
    pub fn allowed_on(&self, cpu: usize) -> bool {
        cpu >= 64 || self.process.affinity.load(Ordering::Relaxed) & (1u64 << cpu) != 0
    }

    /// Marks the start of a stint on a CPU.
    pub fn account_switch_in(&self) {
        self.running_since.store(kevlar_platform::time::monotonic_ns(), Ordering::Relaxed);
    }

    /// Adds the stint that ends now to the thread's CPU time.
    pub fn account_switch_out(&self) {
        let since = self.running_since.swap(u64::MAX, Ordering::Relaxed);
        if since != u64::MAX {
            let now = kevlar_platform::time::monotonic_ns();
            self.run_ns.fetch_add(now.saturating_sub(since), Ordering::Relaxed);
        }
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
    }

    /// Takes the interrupted system call number, if any.
    pub fn take_interrupted_syscall(&self) -> Option<u64> {
        let n = self.interrupted_syscall.swap(u64::MAX, Ordering::Relaxed);
        (n != u64::MAX).then_some(n)
    }

    /// Sets (or clears) the mask to restore after the next handler.
    pub fn set_saved_sigmask(&self, mask: Option<u64>) {
        *self.saved_sigmask.lock() = mask;
    }

    /// Takes the mask to restore after the next handler.
    pub fn take_saved_sigmask(&self) -> Option<u64> {
        self.saved_sigmask.lock().take()
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
        match self.main_thread() {
            Some(thread) if self.exit_status().is_none() => thread.cpu_ns(),
            _ => self.exit_cpu_ns.load(Ordering::Relaxed),
        }
    }

    /// Returns the parent process (None for init and orphans of init).
    pub fn parent(&self) -> Option<Arc<Process>> {
        self.parent.lock().upgrade()
    }

    /// Returns the parent's pid (0 for init).
    pub fn ppid(&self) -> Pid {
        self.parent().map_or(0, |p| p.pid)
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
        if let Some(child) = children.iter().find(|c| c.pid == pid) {
            if !child.reaped.swap(true, Ordering::AcqRel) {
                let total = child.cpu_ns() + child.children_cpu_ns.load(Ordering::Relaxed);
                self.children_cpu_ns.fetch_add(total, Ordering::Relaxed);
            }
        }
        children.retain(|c| c.pid != pid);
    }

    /// Returns the main thread, while it lives.
    pub fn main_thread(&self) -> Option<Arc<Thread>> {
        self.main_thread.lock().upgrade()
    }
}

/// Prints every process with its state and the system call it is in (the
/// Ctrl-] debugging dump).
pub fn dump_state() {
    kevlar_platform::println!("--- kevlar state dump ---");
    for p in all_processes() {
        let thread = p.main_thread();
        let (state, syscall) = thread.as_ref().map_or((ThreadState::Dead, u64::MAX), |t| (t.state(), t.current_syscall.load(Ordering::Relaxed)));
        let name = crate::syscalls::names::SYSCALL_NAMES.get(syscall as usize).copied().unwrap_or("-");
        let (pending, blocked) = {
            let signals = p.signals.lock();
            (signals.pending(), signals.blocked)
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
    let mut list = PROCESSES.lock();
    list.retain(|w| w.strong_count() > 0);
    list.push(Arc::downgrade(process));
}

/// Finds a live or zombie (not yet reaped) process by pid.
pub fn find_process(pid: Pid) -> Option<Arc<Process>> {
    PROCESSES.lock().iter().filter_map(Weak::upgrade).find(|p| p.pid == pid && !p.reaped.load(Ordering::Acquire))
}

/// Returns every process (for kill(-1), process groups, /proc).
pub fn all_processes() -> Vec<Arc<Process>> {
    let mut list = PROCESSES.lock();
    list.retain(|w| w.strong_count() > 0);
    list.iter().filter_map(Weak::upgrade).collect()
}

/// Creates process 1 running with the registers in `frame` and `vm`.
pub fn spawn_init(vm: Vm, frame: &TrapFrame, fs: FsContext, files: FdTable, comm: &str) -> Result<Arc<Process>> {
    let pid = alloc_pid();
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
        fs: SpinLock::new(fs),
        creds: SpinLock::new(Credentials::default()),
        signals: SpinLock::new(SignalState::new()),
        limits: SpinLock::new(crate::syscalls::DEFAULT_LIMITS),
        affinity: core::sync::atomic::AtomicU64::new(u64::MAX >> (64 - kevlar_platform::smp::cpu_count().clamp(1, 64))),
        sched_policy: SpinLock::new((0, 0)),
        nice: SpinLock::new(0),
        did_exec: AtomicBool::new(false),
        reaped: AtomicBool::new(false),
        no_new_privs: AtomicBool::new(false),
        exit_cpu_ns: core::sync::atomic::AtomicU64::new(0),
        children_cpu_ns: core::sync::atomic::AtomicU64::new(0),
        death_signal: core::sync::atomic::AtomicU32::new(0),
        child_event: WaitQueue::new(),
        comm: SpinLock::new(String::from(comm)),
        vfork_released: AtomicBool::new(true),
        vfork_event: WaitQueue::new(),
        main_thread: SpinLock::new(Weak::new()),
    });
    let task = Task::new_user(frame, FpuInit::Fresh).ok_or(Errno::ENOMEM)?;
    start_thread(&process, pid, task);
    register(&process);
    *INIT.lock() = Some(process.clone());
    Ok(process)
}

fn start_thread(process: &Arc<Process>, tid: Pid, task: Arc<Task>) -> Arc<Thread> {
    let thread = Arc::new(Thread {
        tid,
        process: process.clone(),
        task,
        state: AtomicU8::new(ThreadState::Runnable as u8),
        on_run_queue: AtomicBool::new(false),
        clear_child_tid: AtomicUsize::new(0),
        current_syscall: core::sync::atomic::AtomicU64::new(u64::MAX),
        run_ns: core::sync::atomic::AtomicU64::new(0),
        running_since: core::sync::atomic::AtomicU64::new(u64::MAX),
        fault_count: core::sync::atomic::AtomicU64::new(0),
        last_fault: core::sync::atomic::AtomicU64::new(0),
        interrupted_syscall: core::sync::atomic::AtomicU64::new(u64::MAX),
        saved_sigmask: SpinLock::new(None),
    });
    *process.main_thread.lock() = Arc::downgrade(&thread);
    scheduler::enqueue(thread.clone());
    thread
}

/// What a new child shares with its parent.
pub struct CloneOptions {
    /// Share the address space (vfork / CLONE_VM): the parent sleeps until
    /// the child execs or exits.
    pub share_vm: bool,
    /// Wait for the child to exec or exit (CLONE_VFORK).
    pub vfork: bool,
    /// Share the fd table (CLONE_FILES).
    pub share_files: bool,
    /// The child's stack pointer (0: same as the parent's).
    pub stack: usize,
    /// TLS for the child (CLONE_SETTLS).
    pub tls: Option<u64>,
}

/// Creates a child process of the current one; the child returns 0 from
/// the system call, with the parent's registers otherwise.
pub fn fork(parent_thread: &Arc<Thread>, frame: &TrapFrame, options: CloneOptions) -> Result<Pid> {
    let parent = &parent_thread.process;
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
    let pid = alloc_pid();
    let child = Arc::new(Process {
        pid,
        parent: SpinLock::new(Arc::downgrade(parent)),
        children: SpinLock::new(Vec::new()),
        pgid: AtomicI32::new(parent.pgid.load(Ordering::Relaxed)),
        sid: AtomicI32::new(parent.sid.load(Ordering::Relaxed)),
        ctty: SpinLock::new(parent.ctty.lock().clone()),
        exit_status: SpinLock::new(None),
        vm: SpinLock::new(vm),
        files: SpinLock::new(files),
        fs: SpinLock::new(parent.fs.lock().clone()),
        creds: SpinLock::new(parent.creds.lock().clone()),
        signals: SpinLock::new(parent.signals.lock().fork_copy()),
        limits: SpinLock::new(*parent.limits.lock()),
        affinity: core::sync::atomic::AtomicU64::new(parent.affinity.load(Ordering::Relaxed)),
        sched_policy: SpinLock::new(*parent.sched_policy.lock()),
        nice: SpinLock::new(*parent.nice.lock()),
        did_exec: AtomicBool::new(false),
        reaped: AtomicBool::new(false),
        no_new_privs: AtomicBool::new(parent.no_new_privs.load(Ordering::Relaxed)),
        exit_cpu_ns: core::sync::atomic::AtomicU64::new(0),
        children_cpu_ns: core::sync::atomic::AtomicU64::new(0),
        death_signal: core::sync::atomic::AtomicU32::new(0),
        child_event: WaitQueue::new(),
        comm: SpinLock::new(parent.comm.lock().clone()),
        vfork_released: AtomicBool::new(!options.vfork),
        vfork_event: WaitQueue::new(),
        main_thread: SpinLock::new(Weak::new()),
    });
    let mut child_frame = frame.clone();
    child_frame.rax = 0;
    if options.stack != 0 {
        child_frame.rsp = options.stack as u64;
    }
    let task = Task::new_user(&child_frame, FpuInit::CopyCurrent).ok_or(Errno::ENOMEM)?;
    task.set_fs_base(options.tls.unwrap_or(parent_thread.task.fs_base()), false);
    parent.children.lock().push(child.clone());
    register(&child);
    start_thread(&child, pid, task);
    if options.vfork {
        let waiter = child.clone();
        // Uninterruptible in effect: the child shares our memory, so we
        // must not run until it lets go of it.
        while !waiter.vfork_released.load(Ordering::Acquire) {
            let _ = waiter.vfork_event.wait_until(|| Ok(waiter.vfork_released.load(Ordering::Acquire).then_some(())));
        }
    }
    Ok(pid)
}

/// Lets a vfork parent run again (the child exec'd or is exiting).
pub fn release_vfork(process: &Process) {
    if !process.vfork_released.swap(true, Ordering::AcqRel) {
        process.vfork_event.wake_all();
    }
}

/// Ends the current process with `status`: releases its resources, makes
/// it a zombie, hands its children to init, notifies the parent, and marks
/// the thread dead. The thread leaves the CPU on its way back to user mode
/// (`scheduler::exit_dead_thread`), once every kernel frame above has
/// dropped its references.
pub fn exit_current(status: ExitStatus) {
    let thread = current().expect("exit outside a process");
    let process = thread.process.clone();
    if process.pid == 1 {
        kevlar_platform::println!("init exited with {:?}", status);
        crate::shutdown(status == ExitStatus::Exited(0));
    }
    // clear_child_tid: write 0 (futex wake comes with futexes).
    let ctid = thread.clear_child_tid.load(Ordering::Relaxed);
    if ctid != 0 {
        let _ = crate::uaccess::copy_to_user(ctid, &0u32.to_le_bytes());
    }
    release_vfork(&process);
    crate::fs::locks::release_records(process.pid, None);
    // Drop the resources now, not when the parent reaps: a zombie keeps
    // only its status.
    let empty_files = Arc::new(SpinLock::new(FdTable::new()));
    let files = core::mem::replace(&mut *process.files.lock(), empty_files);
    drop(files);
    kevlar_platform::arch::paging::activate_kernel_table();
    let vm = core::mem::replace(&mut *process.vm.lock(), Arc::new(SpinLock::new(Vm::new().expect("memory for an empty address space"))));
    drop(vm);

    // A session leader's terminal hangs up (or, for a pty, its foreground
    // group gets SIGHUP) before orphaned groups are looked at, as Linux.
    crate::tty::on_exit(&process);
    signal::hang_up_orphaned_groups(&process);
    // Orphans go to init.
    let init = INIT.lock().clone();
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

    process.exit_cpu_ns.store(thread.cpu_ns(), Ordering::Relaxed);
    *process.exit_status.lock() = Some(status);
    if let Some(parent) = process.parent() {
        // A parent that ignores SIGCHLD (or set SA_NOCLDWAIT) does not
        // collect its children: they are reaped at once.
        if signal::notify_parent_of_exit(&process, &parent, status) {
            parent.forget_child(process.pid);
        }
        parent.child_event.wake_all();
    }
    thread.set_state(ThreadState::Dead);
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
