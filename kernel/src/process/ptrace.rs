//! ptrace: the tracer-tracee link, the tracee's stops (signal-delivery,
//! group, syscall-entry/exit and event stops) and what the tracer may do
//! while a tracee is stopped.
//!
//! The tracer is a process, the tracee a thread. A stopped tracee sleeps in
//! the kernel (killable only by SIGKILL) after copying its user registers
//! into its `TraceSlot`; the tracer reads and changes that copy, and the
//! tracee loads it back when it resumes. Lock rule: a slot's lock is a
//! leaf (nothing else is taken while it is held), and `TRACEES` is taken
//! before a slot.

use alloc::sync::{Arc, Weak};
use alloc::vec::Vec;
use core::sync::atomic::{AtomicBool, Ordering};

use kevlar_platform::sync::SpinLock;
use kevlar_platform::x86::trap::TrapFrame;
use linux_raw_sys::general as abi;
use linux_raw_sys::ptrace as pt;

use super::signal::{self, SigInfo, SIGCHLD, SIGKILL, SIGSTOP, SIGTRAP};
use super::wait_queue::WaitQueue;
use super::{find_thread, ExitStatus, Pid, Process, Thread};
use crate::error::{Errno, Result};

/// Every PTRACE_O_* option Linux 6.1 accepts.
pub const OPTIONS_MASK: u32 = pt::PTRACE_O_MASK;
const ENOSYS_RAX: u64 = (-(linux_raw_sys::errno::ENOSYS as i64)) as u64;
/// The flags of RFLAGS a tracer may change (Linux's FLAG_MASK).
const USER_FLAGS: u64 = 0x1 | 0x4 | 0x10 | 0x40 | 0x80 | 0x100 | 0x400 | 0x800 | 0x1_0000 | 0x4_0000;
const TF: u64 = 0x100;
/// The first address past user space (the last page is never mapped).
const USER_TOP: u64 = 0x7fff_ffff_f000;

/// How the tracee runs after a stop.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Mode {
    /// PTRACE_CONT: until the next signal or event.
    Cont,
    /// PTRACE_SYSCALL: stop at the next syscall entry and exit too.
    Syscall,
    /// PTRACE_SYSEMU: stop at the next syscall entry and skip the call.
    Sysemu,
    /// PTRACE_SINGLESTEP: one instruction.
    Step,
    /// PTRACE_SYSEMU_SINGLESTEP.
    SysemuStep,
}

/// Why the tracee is stopped.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Signal,
    Group,
    SyscallEntry,
    SyscallExit,
    Event,
}

#[derive(Clone, Copy)]
struct Stop {
    /// WSTOPSIG and the event: `sig | event << 8` (the wait status is
    /// `code << 8 | 0x7f`).
    code: u32,
    kind: Kind,
    /// Collected by the tracer's wait.
    reported: bool,
}

/// What the tracer asked for.
#[derive(Clone, Copy)]
enum Resume {
    Run(Mode, u32),
    Listen,
    Detach(u32),
}

struct Trace {
    tracer: Weak<Process>,
    tracer_pid: Pid,
    seized: bool,
    options: u32,
    mode: Mode,
    stop: Option<Stop>,
    resume: Option<Resume>,
    listening: bool,
    /// Whether the process was in a group stop when LISTEN began: a change
    /// (SIGCONT, a new stop) makes the listening tracee trap again.
    listen_stopped: bool,
    /// The user registers while stopped (the last ones seen otherwise).
    regs: Option<TrapFrame>,
    orig_rax: u64,
    siginfo: Option<SigInfo>,
    event_msg: u64,
    /// PTRACE_INTERRUPT (or a new seized child's first stop) waits.
    interrupt: bool,
    /// Events to report at the end of the current system call.
    events: Vec<(u32, u64)>,
    /// The kind of the clone under way (PTRACE_EVENT_FORK/VFORK/CLONE).
    cloning: u32,
    /// The tracee ended, for a tracer that is not its parent to collect.
    exited: Option<ExitStatus>,
    /// TF was set by a single step.
    stepping: bool,
}

impl Trace {
    const fn new() -> Self {
        Self {
            tracer: Weak::new(),
            tracer_pid: 0,
            seized: false,
            options: 0,
            mode: Mode::Cont,
            stop: None,
            resume: None,
            listening: false,
            listen_stopped: false,
            regs: None,
            orig_rax: u64::MAX,
            siginfo: None,
            event_msg: 0,
            interrupt: false,
            events: Vec::new(),
            cloning: 0,
            exited: None,
            stepping: false,
        }
    }
}

/// A thread's ptrace state.
pub struct TraceSlot {
    /// Set while traced: the system call path looks at it without a lock.
    traced: AtomicBool,
    inner: SpinLock<Trace>,
    /// The debug registers a tracer set (`hwbreak`); a leaf lock.
    pub debug: SpinLock<super::hwbreak::HwBreak>,
}

impl Default for TraceSlot {
    fn default() -> Self {
        Self::new()
    }
}

impl TraceSlot {
    pub const fn new() -> Self {
        Self {
            traced: AtomicBool::new(false),
            inner: SpinLock::new(Trace::new()),
            debug: SpinLock::new(super::hwbreak::HwBreak::new()),
        }
    }

    /// Whether a tracer is attached.
    pub fn is_traced(&self) -> bool {
        self.traced.load(Ordering::Acquire)
    }

    /// The tracer's pid (0: none), for /proc/PID/status.
    pub fn tracer_pid(&self) -> Pid {
        if !self.is_traced() {
            return 0;
        }
        let t = self.inner.lock();
        if t.tracer.strong_count() > 0 { t.tracer_pid } else { 0 }
    }

    /// Whether the thread is in a ptrace stop ("t (tracing stop)").
    pub fn in_stop(&self) -> bool {
        self.is_traced() && self.inner.lock().stop.is_some()
    }

    /// Whether a PTRACE_INTERRUPT waits (a sleep ends for it).
    pub fn interrupt_pending(&self) -> bool {
        self.is_traced() && self.inner.lock().interrupt
    }
}

/// Every traced thread, and tracees that ended and wait for their tracer.
static TRACEES: SpinLock<Vec<Arc<Thread>>> = SpinLock::new(Vec::new());
/// Set once anything was traced: until then signal sending skips asking.
static EVER_TRACED: AtomicBool = AtomicBool::new(false);

/// Whether a thread of `process` is traced (its signals are never
/// ignored then).
pub fn process_traced(process: &Process) -> bool {
    EVER_TRACED.load(Ordering::Relaxed) && process.threads().iter().any(|t| t.ptrace.is_traced())
}
/// Stopped tracees sleep here.
static TRACE_WAIT: WaitQueue = WaitQueue::new();

fn tracer_of(thread: &Thread) -> Option<Arc<Process>> {
    thread.ptrace.inner.lock().tracer.upgrade()
}

/// Whether the thread is about to die (SIGKILL, a group exit): stops are
/// skipped or end then.
fn dying(thread: &Thread) -> bool {
    thread.process.signals.lock().dying(thread.tid())
}

/// Links `tracee` to `tracer`.
fn link(tracee: &Arc<Thread>, tracer: &Arc<Process>, seized: bool, options: u32) {
    EVER_TRACED.store(true, Ordering::Relaxed);
    let mut list = TRACEES.lock();
    {
        let mut t = tracee.ptrace.inner.lock();
        *t = Trace::new();
        t.tracer = Arc::downgrade(tracer);
        t.tracer_pid = tracer.pid;
        t.seized = seized;
        t.options = options;
    }
    tracee.ptrace.traced.store(true, Ordering::Release);
    tracee.set_syscall_work(super::SYSCALL_WORK_TRACE, true);
    list.retain(|t| !Arc::ptr_eq(t, tracee));
    list.push(tracee.clone());
}

/// Unlinks `tracee`; wakes it if it was stopped (it runs on, with `sig`).
fn unlink(tracee: &Arc<Thread>, sig: u32) {
    TRACEES.lock().retain(|t| !Arc::ptr_eq(t, tracee));
    let was_stepping = {
        let mut t = tracee.ptrace.inner.lock();
        tracee.ptrace.traced.store(false, Ordering::Release);
        tracee.set_syscall_work(super::SYSCALL_WORK_TRACE, false);
        t.tracer = Weak::new();
        t.tracer_pid = 0;
        t.interrupt = false;
        t.events.clear();
        let stepping = t.stepping;
        if t.stop.is_some() {
            t.resume = Some(Resume::Detach(sig));
        }
        stepping
    };
    let _ = was_stepping;
    TRACE_WAIT.wake_all();
}

// ---------------------------------------------------------------------------
// The tracer's side.

/// PTRACE_TRACEME: the parent becomes the tracer.
pub fn traceme(thread: &Arc<Thread>) -> Result<()> {
    if thread.ptrace.is_traced() {
        return Err(Errno::EPERM);
    }
    let parent = thread.process.parent().ok_or(Errno::EPERM)?;
    link(thread, &parent, false, 0);
    Ok(())
}

/// PTRACE_ATTACH and PTRACE_SEIZE of thread `tid`.
pub fn attach(tracer: &Arc<Thread>, tid: Pid, seize: bool, options: u32) -> Result<()> {
    let tracee = find_thread(tid).ok_or(Errno::ESRCH)?;
    if Arc::ptr_eq(&tracee.process, &tracer.process) {
        return Err(Errno::EPERM);
    }
    if tracee.process.exit_status().is_some() {
        return Err(Errno::EPERM);
    }
    use super::access::{ptrace_may_access, PtraceCreds, PtraceMode};
    if !ptrace_may_access(&tracer.process, &tracee.process, PtraceMode::Attach, PtraceCreds::Real) {
        return Err(Errno::EPERM);
    }
    if tracee.ptrace.is_traced() {
        return Err(Errno::EPERM);
    }
    link(&tracee, &tracer.process, seize, options);
    if !seize {
        // From the kernel (SI_KERNEL), as Linux's attach sends it.
        let _ = signal::send_signal_info(&tracee.process, SigInfo::new(SIGSTOP, abi::SI_KERNEL as i32));
    } else if tracee.process.signals.lock().is_stopped() {
        // A seized tracee already in a group stop reports it.
        tracee.ptrace.inner.lock().interrupt = true;
        kick(&tracee);
    }
    Ok(())
}

/// The tracee `tid` of `tracer`; with `stopped`, it must be in a ptrace
/// stop (else ESRCH, as Linux's ptrace_check_attach).
fn tracee_of(tracer: &Process, tid: Pid, stopped: bool) -> Result<Arc<Thread>> {
    let tracee = TRACEES
        .lock()
        .iter()
        .find(|t| t.tid() == tid && t.ptrace.is_traced())
        .cloned()
        .ok_or(Errno::ESRCH)?;
    let t = tracee.ptrace.inner.lock();
    if t.tracer_pid != tracer.pid || t.tracer.strong_count() == 0 || t.exited.is_some() {
        return Err(Errno::ESRCH);
    }
    if stopped && (t.stop.is_none() || t.resume.is_some() || t.listening) {
        return Err(Errno::ESRCH);
    }
    drop(t);
    Ok(tracee)
}

fn valid_signal(sig: u64) -> Result<u32> {
    if sig > abi::_NSIG as u64 { Err(Errno::EIO) } else { Ok(sig as u32) }
}

/// PTRACE_CONT, SYSCALL, SINGLESTEP, SYSEMU(_SINGLESTEP).
pub fn resume(tracer: &Process, tid: Pid, mode: Mode, sig: u64) -> Result<()> {
    let sig = valid_signal(sig)?;
    let tracee = tracee_of(tracer, tid, true)?;
    tracee.ptrace.inner.lock().resume = Some(Resume::Run(mode, sig));
    TRACE_WAIT.wake_all();
    Ok(())
}

/// PTRACE_LISTEN: a seized tracee in a group stop stays stopped but is no
/// longer in a ptrace stop; it traps again when the group stop ends.
pub fn listen(tracer: &Process, tid: Pid) -> Result<()> {
    let tracee = tracee_of(tracer, tid, true)?;
    let mut t = tracee.ptrace.inner.lock();
    let is_group = t.stop.is_some_and(|s| s.kind == Kind::Group || (s.kind == Kind::Event && s.code >> 8 == pt::PTRACE_EVENT_STOP));
    if !t.seized || !is_group {
        return Err(Errno::EIO);
    }
    t.resume = Some(Resume::Listen);
    drop(t);
    TRACE_WAIT.wake_all();
    Ok(())
}

/// PTRACE_DETACH with `sig` to deliver.
pub fn detach(tracer: &Process, tid: Pid, sig: u64) -> Result<()> {
    let sig = valid_signal(sig)?;
    let tracee = tracee_of(tracer, tid, true)?;
    unlink(&tracee, sig);
    Ok(())
}

/// PTRACE_KILL: SIGKILL, stopped or not.
pub fn kill(tracer: &Process, tid: Pid) -> Result<()> {
    let tracee = tracee_of(tracer, tid, false)?;
    let _ = signal::send_signal_to_thread(&tracee, SigInfo::new(SIGKILL, abi::SI_KERNEL as i32));
    TRACE_WAIT.wake_all();
    Ok(())
}

/// PTRACE_INTERRUPT: a seized tracee stops with PTRACE_EVENT_STOP.
pub fn interrupt(tracer: &Process, tid: Pid) -> Result<()> {
    let tracee = tracee_of(tracer, tid, false)?;
    {
        let mut t = tracee.ptrace.inner.lock();
        if !t.seized {
            return Err(Errno::EIO);
        }
        // A running tracee, one resumed that has not left its stop yet, or
        // a listening one traps with PTRACE_EVENT_STOP; one in a ptrace
        // stop is stopped already.
        if t.stop.is_none() || t.resume.is_some() || t.listening {
            t.interrupt = true;
        }
    }
    kick(&tracee);
    TRACE_WAIT.wake_all();
    Ok(())
}

fn kick(thread: &Arc<Thread>) {
    thread.signal_hint.store(true, Ordering::Release);
    thread.wake();
}

/// PTRACE_SETOPTIONS.
pub fn set_options(tracer: &Process, tid: Pid, options: u64) -> Result<()> {
    let tracee = tracee_of(tracer, tid, true)?;
    if options & !(OPTIONS_MASK as u64) != 0 {
        return Err(Errno::EINVAL);
    }
    tracee.ptrace.inner.lock().options = options as u32;
    Ok(())
}

/// PTRACE_GETEVENTMSG.
pub fn event_msg(tracer: &Process, tid: Pid) -> Result<u64> {
    let tracee = tracee_of(tracer, tid, true)?;
    let msg = tracee.ptrace.inner.lock().event_msg;
    Ok(msg)
}

/// PTRACE_GETSIGINFO.
pub fn get_siginfo(tracer: &Process, tid: Pid) -> Result<SigInfo> {
    let tracee = tracee_of(tracer, tid, true)?;
    let info = tracee.ptrace.inner.lock().siginfo;
    info.ok_or(Errno::EINVAL)
}

/// PTRACE_SETSIGINFO.
pub fn set_siginfo(tracer: &Process, tid: Pid, info: SigInfo) -> Result<()> {
    let tracee = tracee_of(tracer, tid, true)?;
    let mut t = tracee.ptrace.inner.lock();
    if t.siginfo.is_none() {
        return Err(Errno::EINVAL);
    }
    t.siginfo = Some(info);
    Ok(())
}

/// PTRACE_PEEKSIGINFO: the signals queued for a stopped tracee (or, with
/// `shared`, for its process), in the order queued, from index `off`, at
/// most `nr` of them.
pub fn peek_siginfo(tracer: &Process, tid: Pid, off: u64, shared: bool, nr: usize) -> Result<Vec<SigInfo>> {
    let tracee = tracee_of(tracer, tid, true)?;
    let queued = tracee.process.signals.lock().queued_signals(tid, shared);
    let off = usize::try_from(off).unwrap_or(usize::MAX);
    Ok(queued.into_iter().skip(off).take(nr).collect())
}

/// PTRACE_GETSIGMASK: a stopped tracee's mask; while a sigsuspend, ppoll
/// or pselect replaced it, the one to restore (Linux's saved_sigmask).
pub fn get_sigmask(tracer: &Process, tid: Pid) -> Result<u64> {
    let tracee = tracee_of(tracer, tid, true)?;
    if let Some(saved) = tracee.saved_sigmask() {
        return Ok(saved);
    }
    let mask = tracee.process.signals.lock().blocked(tid);
    Ok(mask)
}

/// PTRACE_SETSIGMASK: sets a stopped tracee's mask (SIGKILL and SIGSTOP
/// stay unblocked); a mask a sigsuspend would restore is forgotten.
pub fn set_sigmask(tracer: &Process, tid: Pid, mask: u64) -> Result<()> {
    let tracee = tracee_of(tracer, tid, true)?;
    tracee.process.signals.lock().set_blocked(tid, mask);
    tracee.set_saved_sigmask(None);
    // A signal the new mask unblocks is looked at when the tracee resumes.
    tracee.signal_hint.store(true, core::sync::atomic::Ordering::Release);
    Ok(())
}

/// The `struct user_regs_struct` of a stopped tracee, as 27 words.
pub fn get_regs(tracer: &Process, tid: Pid) -> Result<[u64; 27]> {
    let tracee = tracee_of(tracer, tid, true)?;
    let t = tracee.ptrace.inner.lock();
    let r = t.regs.clone().ok_or(Errno::ESRCH)?;
    let fs_base = tracee.task.fs_base();
    let gs_base = tracee.task.gs_base();
    Ok([
        r.r15, r.r14, r.r13, r.r12, r.rbp, r.rbx, r.r11, r.r10, r.r9, r.r8, r.rax, r.rcx, r.rdx, r.rsi, r.rdi,
        t.orig_rax, r.rip, r.cs, r.rflags, r.rsp, r.ss, fs_base, gs_base, 0, 0, 0, 0,
    ])
}

/// Sets the registers of a stopped tracee from a `user_regs_struct`;
/// EIO for values Linux's putreg refuses (segment selectors other than
/// the current ones, bases outside user space).
pub fn set_regs(tracer: &Process, tid: Pid, w: &[u64; 27]) -> Result<()> {
    let tracee = tracee_of(tracer, tid, true)?;
    let mut t = tracee.ptrace.inner.lock();
    let mut r = t.regs.clone().ok_or(Errno::ESRCH)?;
    if w[17] != r.cs || w[20] != r.ss || w[21] >= USER_TOP || w[22] >= USER_TOP || w[23..27].iter().any(|&s| s != 0) {
        return Err(Errno::EIO);
    }
    if w[16] >= USER_TOP {
        return Err(Errno::EIO);
    }
    r.r15 = w[0];
    r.r14 = w[1];
    r.r13 = w[2];
    r.r12 = w[3];
    r.rbp = w[4];
    r.rbx = w[5];
    r.r11 = w[6];
    r.r10 = w[7];
    r.r9 = w[8];
    r.r8 = w[9];
    r.rax = w[10];
    r.rcx = w[11];
    r.rdx = w[12];
    r.rsi = w[13];
    r.rdi = w[14];
    r.rip = w[16];
    r.rflags = (r.rflags & !USER_FLAGS) | (w[18] & USER_FLAGS);
    r.rsp = w[19];
    t.orig_rax = w[15];
    t.regs = Some(r);
    drop(t);
    tracee.task.set_fs_base(w[21], false);
    tracee.task.set_gs_base(w[22], false);
    Ok(())
}

/// The x87 and SSE registers of a stopped tracee (`struct
/// user_fpregs_struct`, the FXSAVE image).
pub fn get_fpregs(tracer: &Process, tid: Pid) -> Result<[u8; 512]> {
    let tracee = tracee_of(tracer, tid, true)?;
    let mut image = [0u8; 512];
    tracee.task.read_saved_fpu(&mut image);
    Ok(image)
}

/// Sets them (MXCSR's reserved bits cleared).
pub fn set_fpregs(tracer: &Process, tid: Pid, image: &[u8; 512]) -> Result<()> {
    let tracee = tracee_of(tracer, tid, true)?;
    tracee.task.write_saved_legacy_fpu(image);
    Ok(())
}

/// The size of the NT_X86_XSTATE regset (None without XSAVE: Linux has
/// no such regset then).
pub fn xstate_size() -> Option<usize> {
    kevlar_platform::x86::fpu::xsave_enabled().then(kevlar_platform::x86::fpu::state_size)
}

/// The XSAVE state of a stopped tracee as NT_X86_XSTATE shows it.
pub fn get_xstate(tracer: &Process, tid: Pid, out: &mut [u8]) -> Result<()> {
    let tracee = tracee_of(tracer, tid, true)?;
    tracee.task.read_saved_xstate(out);
    Ok(())
}

/// Sets it from a whole standard-format image (EFAULT for a part, as
/// Linux; EINVAL for a header or MXCSR XRSTOR would refuse).
pub fn set_xstate(tracer: &Process, tid: Pid, image: &[u8]) -> Result<()> {
    use kevlar_platform::x86::fpu::XstateError;
    let tracee = tracee_of(tracer, tid, true)?;
    tracee.task.write_saved_xstate(image).map_err(|e| match e {
        XstateError::Size => Errno::EFAULT,
        XstateError::Invalid => Errno::EINVAL,
    })
}

/// The size of `struct user`.
pub const USER_AREA_SIZE: u64 = 928;
use super::hwbreak::DEBUGREG_OFFSET;

/// PTRACE_PEEKUSER: the registers, the debug registers; the other fields
/// of `struct user` read 0.
pub fn peek_user(tracer: &Process, tid: Pid, offset: u64) -> Result<u64> {
    if offset & 7 != 0 || offset >= USER_AREA_SIZE {
        return Err(Errno::EIO);
    }
    if offset < 27 * 8 {
        return Ok(get_regs(tracer, tid)?[offset as usize / 8]);
    }
    let tracee = tracee_of(tracer, tid, true)?;
    if (DEBUGREG_OFFSET..DEBUGREG_OFFSET + 64).contains(&offset) {
        return Ok(tracee.ptrace.debug.lock().get((offset - DEBUGREG_OFFSET) as usize / 8));
    }
    Ok(0)
}

/// PTRACE_POKEUSER: the registers and the debug registers (checked as
/// Linux does); the other fields of `struct user` cannot be written (EIO).
pub fn poke_user(tracer: &Process, tid: Pid, offset: u64, value: u64) -> Result<()> {
    if offset & 7 != 0 || offset >= USER_AREA_SIZE {
        return Err(Errno::EIO);
    }
    if offset < 27 * 8 {
        let mut regs = get_regs(tracer, tid)?;
        regs[offset as usize / 8] = value;
        return set_regs(tracer, tid, &regs);
    }
    let tracee = tracee_of(tracer, tid, true)?;
    if (DEBUGREG_OFFSET..DEBUGREG_OFFSET + 64).contains(&offset) {
        let mut hw = tracee.ptrace.debug.lock();
        hw.set((offset - DEBUGREG_OFFSET) as usize / 8, value)?;
        super::hwbreak::load(&tracee, &hw);
        return Ok(());
    }
    Err(Errno::EIO)
}

/// PTRACE_PEEKDATA/PEEKTEXT: one word of the tracee's memory (EIO if any
/// byte of it is unreadable).
pub fn peek_data(tracer: &Process, tid: Pid, addr: u64) -> Result<u64> {
    let tracee = tracee_of(tracer, tid, true)?;
    let mut word = [0u8; 8];
    if !access_memory(&tracee.process, addr, &mut word, false) {
        return Err(Errno::EIO);
    }
    Ok(u64::from_le_bytes(word))
}

/// PTRACE_POKEDATA/POKETEXT.
pub fn poke_data(tracer: &Process, tid: Pid, addr: u64, value: u64) -> Result<()> {
    let tracee = tracee_of(tracer, tid, true)?;
    let mut word = value.to_le_bytes();
    if !access_memory(&tracee.process, addr, &mut word, true) {
        return Err(Errno::EIO);
    }
    Ok(())
}

/// Reads (or writes) `buf` at `addr` in `process`'s memory, page by page;
/// false if any part is out of reach.
pub fn access_memory(process: &Process, addr: u64, buf: &mut [u8], write: bool) -> bool {
    let Some(end) = addr.checked_add(buf.len() as u64) else { return false };
    if end > USER_TOP {
        return false;
    }
    let vm = process.vm.lock().clone();
    let mut vm = vm.lock();
    let mut done = 0usize;
    while done < buf.len() {
        let at = addr as usize + done;
        let room = kevlar_platform::mm::PAGE_SIZE - (at % kevlar_platform::mm::PAGE_SIZE);
        let n = room.min(buf.len() - done);
        // A debugger's access (FOLL_FORCE): text it may patch, mappings
        // the tracee itself may not read.
        let ok = if write {
            vm.write_page_forced(at, &buf[done..done + n])
        } else {
            vm.read_page_forced(at, &mut buf[done..done + n])
        };
        if !ok {
            return false;
        }
        done += n;
    }
    true
}

/// What PTRACE_GET_SYSCALL_INFO reports: (op, nr or rval, args, is_error,
/// ip, sp).
pub struct SyscallInfo {
    pub op: u8,
    pub ip: u64,
    pub sp: u64,
    pub nr: u64,
    pub args: [u64; 6],
    pub rval: i64,
    pub is_error: bool,
    /// At a PTRACE_EVENT_SECCOMP stop: the filter's data.
    pub ret_data: u32,
}

/// PTRACE_GET_SYSCALL_INFO, as Linux decides it: entry or exit only at a
/// syscall stop reported with TRACESYSGOOD.
pub fn syscall_info(tracer: &Process, tid: Pid) -> Result<SyscallInfo> {
    let tracee = tracee_of(tracer, tid, true)?;
    let t = tracee.ptrace.inner.lock();
    let r = t.regs.clone().ok_or(Errno::ESRCH)?;
    let mut info = SyscallInfo { op: 0, ip: r.rip, sp: r.rsp, nr: 0, args: [0; 6], rval: 0, is_error: false, ret_data: 0 };
    let code = t.siginfo.map_or(0, |i| i.code);
    if code == (SIGTRAP | 0x80) as i32 {
        match t.event_msg as u32 {
            pt::PTRACE_EVENTMSG_SYSCALL_ENTRY => {
                info.op = pt::PTRACE_SYSCALL_INFO_ENTRY as u8;
                info.nr = t.orig_rax;
                info.args = [r.rdi, r.rsi, r.rdx, r.r10, r.r8, r.r9];
            }
            pt::PTRACE_EVENTMSG_SYSCALL_EXIT => {
                info.op = pt::PTRACE_SYSCALL_INFO_EXIT as u8;
                info.rval = r.rax as i64;
                info.is_error = (-4095..0).contains(&info.rval);
            }
            _ => {}
        }
    } else if code == (SIGTRAP | pt::PTRACE_EVENT_SECCOMP << 8) as i32 {
        // A seccomp stop: the call as at entry, and the filter's data.
        info.op = pt::PTRACE_SYSCALL_INFO_SECCOMP as u8;
        info.nr = t.orig_rax;
        info.args = [r.rdi, r.rsi, r.rdx, r.r10, r.r8, r.r9];
        info.ret_data = t.event_msg as u32;
    }
    Ok(info)
}

/// What a tracer's wait finds.
pub enum Report {
    /// A ptrace stop: `code` is `sig | event << 8`.
    Stopped(u32),
    /// A tracee that is not the tracer's child ended.
    Exited(ExitStatus),
}

fn wait_matches(tracee: &Thread, me: &Process, pid: Pid) -> bool {
    match pid {
        -1 => true,
        0 => tracee.process.pgid.load(Ordering::Relaxed) == me.pgid.load(Ordering::Relaxed),
        p if p < 0 => tracee.process.pgid.load(Ordering::Relaxed) == -p,
        p => tracee.tid() == p,
    }
}

/// For wait4/waitid of tracer `me`: whether any tracee matches `pid`, and
/// the first report (consumed unless `keep`); with `exits`, ended tracees
/// that are not `me`'s children are reported too.
pub fn wait_tracees(me: &Process, pid: Pid, keep: bool, stops: bool, exits: bool) -> (bool, Option<(Pid, u32, Report)>) {
    let mut list = TRACEES.lock();
    let mut any = false;
    let mut found = None;
    let mut remove = None;
    for (i, tracee) in list.iter().enumerate() {
        let mut t = tracee.ptrace.inner.lock();
        if t.tracer_pid != me.pid || t.tracer.strong_count() == 0 || !wait_matches(tracee, me, pid) {
            continue;
        }
        any = true;
        if let Some(status) = t.exited {
            if exits {
                if !keep {
                    remove = Some(i);
                }
                found = Some((tracee.clone(), Report::Exited(status)));
                break;
            }
            continue;
        }
        let listening = t.listening;
        if let Some(stop) = t.stop.as_mut() {
            if stops && !stop.reported && !listening {
                let code = stop.code;
                if !keep {
                    stop.reported = true;
                }
                found = Some((tracee.clone(), Report::Stopped(code)));
                break;
            }
        }
    }
    if let Some(i) = remove {
        let tracee = list.remove(i);
        tracee.ptrace.traced.store(false, Ordering::Release);
        tracee.set_syscall_work(super::SYSCALL_WORK_TRACE, false);
        tracee.ptrace.inner.lock().tracer = Weak::new();
    }
    drop(list);
    let found = found.map(|(tracee, report)| {
        // The tracee's uid as the waiting tracer sees it.
        let uid = crate::ns::user::uid_seen_by(me, tracee.process.creds.lock().uid);
        (tracee.tid(), uid, report)
    });
    (any, found)
}

// ---------------------------------------------------------------------------
// The tracee's side.

/// Stops the current thread for its tracer with `code` and `info`, saving
/// `frame` (or the last registers seen) for the tracer; returns what the
/// tracer asked for, None if it is not traced (any more) or is dying.
fn stop(thread: &Arc<Thread>, frame: Option<&mut TrapFrame>, code: u32, info: SigInfo, msg: Option<u64>, kind: Kind) -> Option<Resume> {
    if dying(thread) {
        return None;
    }
    let slot = &thread.ptrace;
    let tracer = {
        let mut t = slot.inner.lock();
        let tracer = t.tracer.upgrade()?;
        t.stop = Some(Stop { code, kind, reported: false });
        t.resume = None;
        t.listening = false;
        t.siginfo = Some(info);
        if let Some(msg) = msg {
            t.event_msg = msg;
        }
        if let Some(frame) = frame.as_deref() {
            t.regs = Some(frame.clone());
        }
        tracer
    };
    notify_tracer(thread, &tracer, code);
    let resume = loop {
        enum Wake {
            Resumed(Resume),
            Gone,
            Retrap,
        }
        let wake = TRACE_WAIT.wait_until_uninterruptible(|| {
            if dying(thread) {
                return Some(Wake::Gone);
            }
            let group_stopped = thread.process.signals.lock().is_stopped();
            let mut t = slot.inner.lock();
            if matches!(t.resume, Some(Resume::Listen)) {
                t.resume = None;
                t.listening = true;
                t.listen_stopped = group_stopped;
            }
            if t.listening {
                if t.interrupt || group_stopped != t.listen_stopped {
                    return Some(Wake::Retrap);
                }
                return None;
            }
            match t.resume.take() {
                // Out of the stop under the same lock that takes the
                // resume: a request in between must find it running
                // (DETACH then fails with ESRCH, as on Linux).
                Some(r) => {
                    t.stop = None;
                    Some(Wake::Resumed(r))
                }
                None if t.tracer.strong_count() == 0 => Some(Wake::Gone),
                None => None,
            }
        });
        match wake {
            Wake::Resumed(r) => break Some(r),
            Wake::Gone => break None,
            Wake::Retrap => {
                // A listening tracee's group stop ended (or it was
                // interrupted): it traps with PTRACE_EVENT_STOP.
                let sig = if thread.process.signals.lock().is_stopped() { SIGSTOP } else { SIGTRAP };
                let code = sig | pt::PTRACE_EVENT_STOP << 8;
                let tracer = {
                    let mut t = slot.inner.lock();
                    t.listening = false;
                    t.interrupt = false;
                    t.stop = Some(Stop { code, kind: Kind::Event, reported: false });
                    t.siginfo = Some(trap_info(thread, code));
                    t.tracer.upgrade()
                };
                if let Some(tracer) = tracer {
                    notify_tracer(thread, &tracer, code);
                }
            }
        }
    };
    let mut t = slot.inner.lock();
    t.stop = None;
    t.listening = false;
    if let Some(frame) = frame {
        if let Some(regs) = t.regs.clone() {
            *frame = regs;
        }
        match resume {
            Some(Resume::Run(mode, _)) => {
                t.mode = mode;
                let step = matches!(mode, Mode::Step | Mode::SysemuStep);
                if step {
                    frame.rflags |= TF;
                } else if t.stepping {
                    frame.rflags &= !TF;
                }
                t.stepping = step;
            }
            _ => {
                if t.stepping {
                    frame.rflags &= !TF;
                    t.stepping = false;
                }
                t.mode = Mode::Cont;
            }
        }
    } else if let Some(Resume::Run(mode, _)) = resume {
        t.mode = mode;
    }
    drop(t);
    // The tracer may have set breakpoints while this thread never left
    // its CPU.
    thread.task.reload_debug_regs();
    resume
}

/// SIGCHLD with CLD_TRAPPED to the tracer (unless it ignores SIGCHLD or
/// set SA_NOCLDSTOP), and its waits wake.
fn notify_tracer(thread: &Thread, tracer: &Arc<Process>, code: u32) {
    let action = tracer.signals.lock().actions[SIGCHLD as usize - 1];
    if action.handler != signal::SIG_IGN && action.flags & signal::SA_NOCLDSTOP == 0 {
        let uid = crate::ns::user::uid_seen_by(tracer, thread.process.creds.lock().uid);
        let _ = signal::send_signal_info(tracer, SigInfo::child(abi::CLD_TRAPPED as i32, thread.tid(), uid, (code & 0x7f) as i32));
    }
    tracer.child_event.wake_all();
}

/// The siginfo of a SIGTRAP stop (syscall and event stops): si_code is
/// the stop's code, si_pid and si_uid the tracee's.
fn trap_info(thread: &Thread, code: u32) -> SigInfo {
    let uid = thread.process.creds.lock().own_view_uid();
    SigInfo::from_process(SIGTRAP, code as i32, thread.process.pid, uid)
}

/// Whether to stop at syscalls.
fn syscall_mode(mode: Mode) -> bool {
    !matches!(mode, Mode::Cont | Mode::Step)
}

/// What a traced thread does with the system call it entered.
pub enum Entry {
    /// Runs call number .0 (the tracer may have changed it and the
    /// arguments in the frame).
    Run(u64),
    /// Skips it (number -1), `rax` as its result; the exit stop follows.
    Skip,
    /// PTRACE_SYSEMU: skips it with no exit stop.
    Emulate,
}

/// At a system call's entry: records its number and, under
/// PTRACE_SYSCALL or SYSEMU, stops.
pub fn syscall_entry(thread: &Arc<Thread>, frame: &mut TrapFrame) -> Entry {
    let number = frame.rax;
    let (mode, sysgood) = {
        let mut t = thread.ptrace.inner.lock();
        t.orig_rax = number;
        t.regs = Some(frame.clone());
        (t.mode, t.options & pt::PTRACE_O_TRACESYSGOOD != 0)
    };
    if !syscall_mode(mode) {
        return Entry::Run(number);
    }
    frame.rax = ENOSYS_RAX;
    let code = SIGTRAP | if sysgood { 0x80 } else { 0 };
    let info = trap_info(thread, code);
    stop(thread, Some(frame), code, info, Some(pt::PTRACE_EVENTMSG_SYSCALL_ENTRY as u64), Kind::SyscallEntry);
    let number = thread.ptrace.inner.lock().orig_rax;
    if matches!(mode, Mode::Sysemu | Mode::SysemuStep) {
        return Entry::Emulate;
    }
    if number == u64::MAX || dying(thread) {
        return Entry::Skip;
    }
    Entry::Run(number)
}

/// After a system call (its result in `frame.rax`): the events it raised,
/// then, under PTRACE_SYSCALL, the syscall-exit stop.
pub fn syscall_exit(thread: &Arc<Thread>, frame: &mut TrapFrame, ran: bool) {
    let mode = thread.ptrace.inner.lock().mode;
    if ran && mode == Mode::Syscall {
        let sysgood = thread.ptrace.inner.lock().options & pt::PTRACE_O_TRACESYSGOOD != 0;
        let code = SIGTRAP | if sysgood { 0x80 } else { 0 };
        let info = trap_info(thread, code);
        stop(thread, Some(frame), code, info, Some(pt::PTRACE_EVENTMSG_SYSCALL_EXIT as u64), Kind::SyscallExit);
    }
}

/// Reports the events the system call raised (fork, exec...), each as a
/// PTRACE_EVENT stop; `frame.rax` is still -ENOSYS then, as on Linux.
pub fn report_events(thread: &Arc<Thread>, frame: &mut TrapFrame) {
    loop {
        let event = {
            let mut t = thread.ptrace.inner.lock();
            if t.events.is_empty() {
                return;
            }
            t.events.remove(0)
        };
        let (event, mut msg) = event;
        // A new task's id or the thread id exec replaced: as the tracer's
        // PID namespace numbers it (Linux's ptrace_event_pid).
        if matches!(event, pt::PTRACE_EVENT_FORK | pt::PTRACE_EVENT_VFORK | pt::PTRACE_EVENT_CLONE | pt::PTRACE_EVENT_VFORK_DONE | pt::PTRACE_EVENT_EXEC) {
            if let Some(tracer) = tracer_of(thread) {
                msg = crate::ns::pid::local_in(&crate::ns::pid::of(&tracer), msg as Pid) as u64;
            }
        }
        let saved = frame.rax;
        frame.rax = ENOSYS_RAX;
        let code = SIGTRAP | event << 8;
        let info = trap_info(thread, code);
        stop(thread, Some(frame), code, info, Some(msg), Kind::Event);
        frame.rax = saved;
    }
}

/// SECCOMP_RET_TRACE: with PTRACE_O_TRACESECCOMP, the PTRACE_EVENT_SECCOMP
/// stop (message: the filter's data; `rax` -ENOSYS as on Linux). Returns
/// the call's number after it (the tracer may have changed it and the
/// arguments; -1 or a process being killed skips it), or None when the
/// tracer did not ask for the event.
pub fn seccomp_event(thread: &Arc<Thread>, frame: &mut TrapFrame, data: u64) -> Option<u64> {
    if !thread.ptrace.is_traced() || thread.ptrace.inner.lock().options & pt::PTRACE_O_TRACESECCOMP == 0 {
        return None;
    }
    frame.rax = ENOSYS_RAX;
    let code = SIGTRAP | pt::PTRACE_EVENT_SECCOMP << 8;
    let info = trap_info(thread, code);
    stop(thread, Some(frame), code, info, Some(data), Kind::Event);
    if dying(thread) {
        return Some(u64::MAX);
    }
    Some(thread.ptrace.inner.lock().orig_rax)
}

/// The option that reports event `event`.
fn option_for(event: u32) -> u32 {
    match event {
        pt::PTRACE_EVENT_FORK => pt::PTRACE_O_TRACEFORK,
        pt::PTRACE_EVENT_VFORK => pt::PTRACE_O_TRACEVFORK,
        pt::PTRACE_EVENT_CLONE => pt::PTRACE_O_TRACECLONE,
        pt::PTRACE_EVENT_EXEC => pt::PTRACE_O_TRACEEXEC,
        pt::PTRACE_EVENT_VFORK_DONE => pt::PTRACE_O_TRACEVFORKDONE,
        pt::PTRACE_EVENT_EXIT => pt::PTRACE_O_TRACEEXIT,
        _ => 0,
    }
}

/// Records event `event` for the end of the current system call if the
/// tracer asked for it; returns whether it did.
pub fn note_event(thread: &Thread, event: u32, msg: u64) -> bool {
    if !thread.ptrace.is_traced() {
        return false;
    }
    let mut t = thread.ptrace.inner.lock();
    if t.options & option_for(event) == 0 || t.tracer.strong_count() == 0 {
        return false;
    }
    t.events.push((event, msg));
    true
}

/// Before a clone: the kind of child (PTRACE_EVENT_FORK, VFORK or CLONE)
/// a traced caller is creating, for `attach_child`.
pub fn before_clone(thread: &Thread, event: u32) {
    if thread.ptrace.is_traced() {
        thread.ptrace.inner.lock().cloning = event;
    }
}

/// A new task `child` of `creator`: traced by the same tracer when the
/// tracer follows this kind of clone (a non-seized child starts with
/// SIGSTOP pending, a seized one with a PTRACE_EVENT_STOP).
pub fn attach_child(creator: &Thread, child: &Arc<Thread>) {
    if !creator.ptrace.is_traced() {
        return;
    }
    let (tracer, seized, options) = {
        let mut t = creator.ptrace.inner.lock();
        let event = core::mem::take(&mut t.cloning);
        if event == 0 || t.options & option_for(event) == 0 {
            return;
        }
        let Some(tracer) = t.tracer.upgrade() else { return };
        (tracer, t.seized, t.options)
    };
    link(child, &tracer, seized, options);
    if seized {
        child.ptrace.inner.lock().interrupt = true;
        child.signal_hint.store(true, Ordering::Release);
    } else {
        let _ = signal::send_signal_to_thread(child, SigInfo::new(SIGSTOP, abi::SI_USER as i32));
    }
}

/// After a successful execve: PTRACE_EVENT_EXEC (message: the former
/// thread id) with TRACEEXEC, else a SIGTRAP.
pub fn on_exec(thread: &Arc<Thread>, old_tid: Pid) {
    if !thread.ptrace.is_traced() {
        return;
    }
    if !note_event(thread, pt::PTRACE_EVENT_EXEC, old_tid as u64) {
        let uid = thread.process.creds.lock().own_view_uid();
        let _ = signal::send_signal_to_thread(thread, SigInfo::from_process(SIGTRAP, abi::SI_USER as i32, thread.process.pid, uid));
    }
}

/// Before a signal is acted on: the signal-delivery stop. Returns the
/// signal to deliver (None: the tracer suppressed it).
pub fn signal_delivery(thread: &Arc<Thread>, frame: &mut TrapFrame, info: SigInfo) -> Option<SigInfo> {
    if !thread.ptrace.is_traced() || info.signo == SIGKILL {
        return Some(info);
    }
    match stop(thread, Some(frame), info.signo, info, None, Kind::Signal) {
        Some(Resume::Run(_, sig)) | Some(Resume::Detach(sig)) => {
            if sig == 0 {
                return None;
            }
            let kept = thread.ptrace.inner.lock().siginfo.unwrap_or(info);
            if sig == kept.signo {
                return Some(kept);
            }
            // Another signal: from the tracer, as Linux builds it.
            let tracer = tracer_of(thread);
            let (pid, uid) = tracer.map_or((0, 0), |p| (p.pid, crate::ns::user::uid_seen_by(&thread.process, p.creds.lock().uid)));
            Some(SigInfo::from_process(sig, abi::SI_USER as i32, pid, uid))
        }
        Some(Resume::Listen) => Some(info),
        None => {
            if thread.ptrace.is_traced() { None } else { Some(info) }
        }
    }
}

/// A traced thread joins a group stop by `sig`: reported to the tracer
/// (with PTRACE_EVENT_STOP if seized) instead of sleeping until SIGCONT;
/// it runs again when the tracer resumes it.
pub fn group_stop(thread: &Arc<Thread>, sig: u32) {
    let seized = thread.ptrace.inner.lock().seized;
    let code = if seized { sig | pt::PTRACE_EVENT_STOP << 8 } else { sig };
    let info = SigInfo::new(sig, abi::SI_USER as i32);
    if tracer_of(thread).is_some_and(|t| thread.process.parent().is_some_and(|p| Arc::ptr_eq(&p, &t))) {
        // The tracer is the parent: it hears of the stop as a tracer.
        thread.process.signals.lock().clear_stop_report();
    }
    stop(thread, None, code, if seized { trap_info(thread, code) } else { info }, None, Kind::Group);
}

/// On the way back to user mode: a pending PTRACE_INTERRUPT (or a new
/// seized child's first stop) traps with PTRACE_EVENT_STOP.
pub fn check_interrupt(thread: &Arc<Thread>, frame: &mut TrapFrame) {
    if !thread.ptrace.is_traced() {
        return;
    }
    let pending = core::mem::take(&mut thread.ptrace.inner.lock().interrupt);
    if pending {
        let sig = if thread.process.signals.lock().is_stopped() { SIGSTOP } else { SIGTRAP };
        let code = sig | pt::PTRACE_EVENT_STOP << 8;
        let info = trap_info(thread, code);
        stop(thread, Some(frame), code, info, None, Kind::Event);
    }
}

/// PTRACE_EVENT_EXIT before the thread ends with `status` (message: the
/// wait status).
pub fn exit_event(thread: &Arc<Thread>, status: ExitStatus) {
    if !thread.ptrace.is_traced() || thread.ptrace.inner.lock().options & pt::PTRACE_O_TRACEEXIT == 0 {
        return;
    }
    let code = SIGTRAP | pt::PTRACE_EVENT_EXIT << 8;
    let info = trap_info(thread, code);
    stop(thread, None, code, info, Some(status.wait_status() as u64), Kind::Event);
}

/// A traced thread ends; `status` is its process's status if it was the
/// last thread. A tracer that is not the parent collects the exit with
/// wait; otherwise the link just ends.
pub fn on_thread_exit(thread: &Arc<Thread>, status: Option<ExitStatus>) {
    if !thread.ptrace.is_traced() {
        return;
    }
    let Some(tracer) = tracer_of(thread) else {
        unlink(thread, 0);
        return;
    };
    // The parent's own wait reports the process (its leader); a tracer
    // that is not the parent, and every other thread's tracer (gdb
    // tracing the threads of the program it started), gets the thread's
    // exit here, as Linux reports each traced thread's.
    let parent_traces = thread.process.parent().is_some_and(|p| Arc::ptr_eq(&p, &tracer));
    let leader = thread.tid() == thread.process.pid;
    match status {
        Some(status) if !parent_traces || !leader => {
            {
                let mut t = thread.ptrace.inner.lock();
                t.exited = Some(status);
                t.stop = None;
            }
            let (code, value) = match status {
                ExitStatus::Exited(c) => (abi::CLD_EXITED, c as i32),
                ExitStatus::Signaled(s, true) => (abi::CLD_DUMPED, s as i32),
                ExitStatus::Signaled(s, false) => (abi::CLD_KILLED, s as i32),
            };
            if tracer.signals.lock().actions[SIGCHLD as usize - 1].handler != signal::SIG_IGN {
                let uid = crate::ns::user::uid_seen_by(&tracer, thread.process.creds.lock().uid);
                let _ = signal::send_signal_info(&tracer, SigInfo::child(code as i32, thread.tid(), uid, value));
            }
            tracer.child_event.wake_all();
        }
        _ => {
            unlink(thread, 0);
            // The exit status was published (and the parent woken) before
            // this: a wait of the tracer that still saw the link sleeps
            // on it, so it must look again (it finds ECHILD once the
            // child is reaped).
            tracer.child_event.wake_all();
        }
    }
}

/// The tracer `process` ends: its tracees are detached, or killed where
/// PTRACE_O_EXITKILL asked for it.
pub fn on_tracer_exit(process: &Process) {
    let tracees: Vec<Arc<Thread>> = TRACEES.lock().iter().filter(|t| t.ptrace.inner.lock().tracer_pid == process.pid).cloned().collect();
    for tracee in tracees {
        let exitkill = tracee.ptrace.inner.lock().options & pt::PTRACE_O_EXITKILL != 0;
        if exitkill {
            let _ = signal::send_signal_to_thread(&tracee, SigInfo::new(SIGKILL, abi::SI_KERNEL as i32));
        }
        unlink(&tracee, 0);
    }
}
