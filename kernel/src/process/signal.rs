//! Signals: dispositions, masks, pending signals with their siginfo,
//! job-control stops, and delivery on the way back to user mode (default
//! actions and handler frames).
//!
//! Standard signals (1..31) are a bitmask: while one is pending, more of the
//! same are dropped, and the first sender's siginfo is the one delivered.
//! Real-time signals (32..64) queue: every instance is delivered, in the
//! order sent, each with its own siginfo.

use alloc::collections::VecDeque;
use alloc::sync::Arc;
use core::sync::atomic::Ordering;

use kevlar_platform::x86::fpu;
use kevlar_platform::x86::trap::TrapFrame;
use linux_raw_sys::general as abi;

use super::wait_queue::WaitQueue;
use super::{all_processes, current, exit_current, ExitStatus, Pid, Process, Thread};
use crate::error::{Errno, Result};
use crate::uaccess::{copy_from_user, copy_to_user};

/// Number of signals (1..=64).
pub const NSIG: usize = abi::_NSIG as usize;
/// SIGHUP.
pub const SIGHUP: u32 = abi::SIGHUP;
/// SIGQUIT.
pub const SIGQUIT: u32 = abi::SIGQUIT;
/// SIGILL.
pub const SIGILL: u32 = abi::SIGILL;
/// SIGTRAP.
pub const SIGTRAP: u32 = abi::SIGTRAP;
/// SIGABRT.
pub const SIGABRT: u32 = abi::SIGABRT;
/// SIGBUS.
pub const SIGBUS: u32 = abi::SIGBUS;
/// SIGFPE.
pub const SIGFPE: u32 = abi::SIGFPE;
/// SIGKILL.
pub const SIGKILL: u32 = abi::SIGKILL;
/// SIGSEGV.
pub const SIGSEGV: u32 = abi::SIGSEGV;
/// SIGPIPE.
pub const SIGPIPE: u32 = abi::SIGPIPE;
/// SIGALRM.
pub const SIGALRM: u32 = abi::SIGALRM;
/// SIGCHLD.
pub const SIGCHLD: u32 = abi::SIGCHLD;
/// SIGCONT.
pub const SIGCONT: u32 = abi::SIGCONT;
/// SIGSTOP.
pub const SIGSTOP: u32 = abi::SIGSTOP;
/// SIGTSTP.
pub const SIGTSTP: u32 = abi::SIGTSTP;
/// SIGTTIN.
pub const SIGTTIN: u32 = abi::SIGTTIN;
/// SIGTTOU.
pub const SIGTTOU: u32 = abi::SIGTTOU;
/// SIGURG.
pub const SIGURG: u32 = abi::SIGURG;
/// I/O possible (signal-driven I/O's default).
pub const SIGIO: u32 = abi::SIGIO;
/// SIGWINCH.
pub const SIGWINCH: u32 = abi::SIGWINCH;
/// The first real-time signal (the kernel's; libcs reserve a few).
pub const SIGRTMIN: u32 = abi::SIGRTMIN;

// include/uapi/asm-generic/signal-defs.h: SIG_DFL ((__sighandler_t)0),
// SIG_IGN ((__sighandler_t)1); linux-raw-sys has no constants for them.
const SIG_DFL: u64 = 0;
pub(crate) const SIG_IGN: u64 = 1;
pub(crate) const SA_NOCLDSTOP: u64 = abi::SA_NOCLDSTOP as u64;
const SA_NOCLDWAIT: u64 = abi::SA_NOCLDWAIT as u64;
const SA_ONSTACK: u64 = abi::SA_ONSTACK as u64;
const SA_RESTORER: u64 = abi::SA_RESTORER as u64;
const SA_NODEFER: u64 = abi::SA_NODEFER as u64;
const SA_RESETHAND: u64 = abi::SA_RESETHAND as u64;
const SA_RESTART: u64 = abi::SA_RESTART as u64;

/// si_code of a signal from kill().
pub const SI_USER: i32 = abi::SI_USER as i32;
/// Sent by the kernel.
pub const SI_KERNEL: i32 = abi::SI_KERNEL as i32;
/// Sent by tkill/tgkill.
pub const SI_TKILL: i32 = abi::SI_TKILL;
/// Sent by a POSIX timer.
pub const SI_TIMER: i32 = abi::SI_TIMER;

/// sigaltstack flags.
pub const SS_ONSTACK: u32 = abi::SS_ONSTACK;
/// The alternate stack is off.
pub const SS_DISABLE: u32 = abi::SS_DISABLE;
/// Disarm the alternate stack while a handler runs on it.
pub const SS_AUTODISARM: u32 = abi::SS_AUTODISARM;

/// The bit of `sig` in a signal set.
pub const fn bit(sig: u32) -> u64 {
    1u64 << (sig - 1)
}

/// Signals that can be neither caught, blocked nor ignored.
pub const UNBLOCKABLE: u64 = bit(SIGKILL) | bit(SIGSTOP);
const STOP_SIGNALS: u64 = bit(SIGSTOP) | bit(SIGTSTP) | bit(SIGTTIN) | bit(SIGTTOU);
/// Signals an instruction raised: Linux takes them before any other, so
/// the handler sees the fault before an asynchronous signal's handler runs.
const SYNCHRONOUS: u64 = bit(SIGSEGV) | bit(SIGBUS) | bit(SIGILL) | bit(SIGTRAP) | bit(SIGFPE) | bit(abi::SIGSYS);

/// Bit 63 of a recorded interrupted system call: restart it only if no
/// handler runs (Linux's ERESTARTNOHAND: pause, sigsuspend). Without it the
/// call also restarts after a handler with SA_RESTART (ERESTARTSYS).
pub const RESTART_NO_HANDLER: u64 = 1 << 63;

/// One signal's disposition, in the kernel's `struct sigaction` layout
/// (handler, flags, restorer, mask).
#[derive(Clone, Copy, Debug, Default)]
pub struct SigAction {
    /// SIG_DFL, SIG_IGN or a handler address.
    pub handler: u64,
    /// SA_* flags.
    pub flags: u64,
    /// The return trampoline (SA_RESTORER).
    pub restorer: u64,
    /// Signals blocked while the handler runs.
    pub mask: u64,
}

/// The default action of a signal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DefaultAction {
    /// End the process.
    Terminate,
    /// End the process with a core dump flag.
    Core,
    /// Ignore it.
    Ignore,
    /// Stop the process.
    Stop,
    /// Continue a stopped process.
    Continue,
}

/// Returns what a signal does by default.
pub fn default_action(sig: u32) -> DefaultAction {
    match sig {
        SIGCHLD | SIGURG | SIGWINCH => DefaultAction::Ignore,
        SIGCONT => DefaultAction::Continue,
        SIGSTOP | SIGTSTP | SIGTTIN | SIGTTOU => DefaultAction::Stop,
        SIGQUIT | SIGILL | SIGTRAP | SIGABRT | SIGBUS | SIGFPE | SIGSEGV | abi::SIGXCPU | abi::SIGXFSZ | abi::SIGSYS => {
            DefaultAction::Core
        }
        _ => DefaultAction::Terminate,
    }
}

/// Whether `action` discards `sig`: SIG_IGN, or the default for a signal
/// whose default does nothing to a running process (SIGCONT's work happens
/// when it is sent, so it counts too, as on Linux).
pub fn action_ignores(action: &SigAction, sig: u32) -> bool {
    action.handler == SIG_IGN
        || (action.handler == SIG_DFL && matches!(default_action(sig), DefaultAction::Ignore | DefaultAction::Continue))
}

/// What a pending signal carries to its handler: the kernel's `siginfo`.
/// The union part depends on the sender; Linux keeps 32 bytes of it and
/// gives user space 128 bytes with the rest zero.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SigInfo {
    /// si_signo.
    pub signo: u32,
    /// si_errno.
    pub errno: i32,
    /// si_code: SI_USER, SI_TKILL, SI_QUEUE, CLD_*, SEGV_*...
    pub code: i32,
    /// The union at offset 16 of `siginfo_t`.
    fields: [u8; 32],
}

impl SigInfo {
    /// A siginfo with nothing in the union (SI_KERNEL and the like).
    pub fn new(signo: u32, code: i32) -> Self {
        Self { signo, errno: 0, code, fields: [0; 32] }
    }

    fn with(mut self, offset: usize, bytes: &[u8]) -> Self {
        self.fields[offset..offset + bytes.len()].copy_from_slice(bytes);
        self
    }

    /// From a process (kill: SI_USER, tkill/tgkill: SI_TKILL): `_kill`
    /// holds the sender's pid and real uid.
    pub fn from_process(signo: u32, code: i32, pid: Pid, uid: u32) -> Self {
        Self::new(signo, code).with(0, &pid.to_le_bytes()).with(4, &uid.to_le_bytes())
    }

    /// The same siginfo with `_kill`'s pid replaced: the sender as the
    /// receiver's PID namespace numbers it.
    pub fn with_sender_pid(self, pid: Pid) -> Self {
        self.with(0, &pid.to_le_bytes())
    }

    /// Whether the union holds a sender's pid and uid (Linux's
    /// has_si_pid_and_uid: the SIL_KILL, SIL_CHLD and SIL_RT layouts):
    /// kill and queued signals, SI_KERNEL, and SIGCHLD's own codes.
    pub fn carries_sender(&self) -> bool {
        match self.code {
            SI_TIMER | abi::SI_SIGIO => false,
            c if c <= 0 || c == SI_KERNEL => true,
            c => self.signo == SIGCHLD && c <= abi::NSIGCHLD as i32,
        }
    }

    /// The si_uid of a siginfo that carries a sender.
    pub fn sender_uid(&self) -> u32 {
        u32::from_le_bytes(self.fields[4..8].try_into().unwrap())
    }

    /// The same siginfo with `_kill`'s uid replaced: the sender's uid as
    /// the receiver's user namespace numbers it.
    pub fn with_sender_uid(self, uid: u32) -> Self {
        self.with(4, &uid.to_le_bytes())
    }

    /// SIGCHLD: `_sigchld` holds the child's pid, uid and status (exit
    /// code or signal); its CPU times stay zero (not accounted yet).
    pub fn child(code: i32, pid: Pid, uid: u32, status: i32) -> Self {
        Self::from_process(SIGCHLD, code, pid, uid).with(8, &status.to_le_bytes())
    }

    /// Signal-driven I/O with F_SETSIG: `_sigpoll` holds the band (poll
    /// bits) and the fd.
    pub fn poll(signo: u32, code: i32, band: i64, fd: i32) -> Self {
        Self::new(signo, code).with(0, &band.to_le_bytes()).with(8, &fd.to_le_bytes())
    }

    /// Queued by the kernel for a process (SI_MESGQ, SI_TIMER...): `_rt`
    /// holds the pid and real uid of the cause and the sigval.
    pub fn queued(signo: u32, code: i32, pid: Pid, uid: u32, value: u64) -> Self {
        Self::from_process(signo, code, pid, uid).with(8, &value.to_le_bytes())
    }

    /// A fault: `_sigfault` holds the address.
    pub fn fault(signo: u32, code: i32, addr: u64) -> Self {
        Self::new(signo, code).with(0, &addr.to_le_bytes())
    }

    /// A protection-key fault (SIGSEGV, SEGV_PKUERR): `_sigfault` holds
    /// the address and, after the 8-byte slot _addr_lsb and _addr_bnd's
    /// padding share, si_pkey.
    pub fn key_fault(addr: u64, key: u8) -> Self {
        Self::fault(SIGSEGV, abi::SEGV_PKUERR as i32, addr).with(16, &u32::from(key).to_le_bytes())
    }

    /// A seccomp filter's SIGSYS (SYS_SECCOMP): `_sigsys` holds the
    /// address after the system call instruction, the call's number and
    /// the audit architecture; si_errno carries the filter's data.
    pub fn seccomp(call_addr: u64, syscall: i32, arch: u32, data: u32) -> Self {
        let mut info = Self::new(abi::SIGSYS, abi::SYS_SECCOMP as i32)
            .with(0, &call_addr.to_le_bytes())
            .with(8, &syscall.to_le_bytes())
            .with(12, &arch.to_le_bytes());
        info.errno = data as i32;
        info
    }

    /// As rt_sigqueueinfo takes it from user space: the first 48 bytes (what
    /// the kernel keeps), with si_signo replaced by the signal sent.
    pub fn from_user(raw: &[u8; 48], signo: u32) -> Self {
        let word = |at: usize| i32::from_le_bytes(raw[at..at + 4].try_into().unwrap());
        let mut fields = [0u8; 32];
        fields.copy_from_slice(&raw[16..48]);
        Self { signo, errno: word(4), code: word(8), fields }
    }

    /// The union part (offset 16 of `siginfo_t`), for signalfd's copy.
    pub fn union_bytes(&self) -> &[u8; 32] {
        &self.fields
    }

    /// The 128-byte `siginfo_t` user space sees.
    pub fn to_user(&self) -> [u8; 128] {
        let mut raw = [0u8; 128];
        raw[0..4].copy_from_slice(&(self.signo as i32).to_le_bytes());
        raw[4..8].copy_from_slice(&self.errno.to_le_bytes());
        raw[8..12].copy_from_slice(&self.code.to_le_bytes());
        raw[16..48].copy_from_slice(&self.fields);
        raw
    }

    /// A POSIX timer's signal (SI_TIMER): `_timer` holds the timer id,
    /// the overrun count and the sigevent's value; bytes 24..32 of the
    /// union (past what Linux fills) carry the owner's pid and the timer's
    /// setting generation until the signal is taken, so the timer learns
    /// of it.
    pub fn timer(signo: u32, id: i32, value: u64, owner: Pid, generation: i32) -> Self {
        Self::new(signo, SI_TIMER)
            .with(0, &id.to_le_bytes())
            .with(8, &value.to_le_bytes())
            .with(24, &owner.to_le_bytes())
            .with(28, &generation.to_le_bytes())
    }

    fn field_i32(&self, at: usize) -> i32 {
        i32::from_le_bytes(self.fields[at..at + 4].try_into().unwrap())
    }

    /// Whether this is the queued signal of timer `id` of process `owner`.
    fn is_timer(&self, id: i32, owner: Pid) -> bool {
        self.code == SI_TIMER && self.field_i32(0) == id && self.field_i32(24) == owner
    }

    /// Adds `n` to si_overrun (saturating at INT_MAX, Linux's DELAYTIMER_MAX).
    fn add_overrun(&mut self, n: u64) {
        let total = (self.field_i32(4) as u64).saturating_add(n).min(i32::MAX as u64) as i32;
        self.fields[4..8].copy_from_slice(&total.to_le_bytes());
    }

    /// A timer signal being taken: reports its overrun count to the timer
    /// and drops the owner mark.
    fn taken(mut self) -> Self {
        if self.code == SI_TIMER {
            let owner = self.field_i32(24);
            if owner != 0 {
                let generation = self.field_i32(28);
                self.fields[24..32].fill(0);
                let overrun = super::posix_timer::delivered(owner, self.field_i32(0), generation, self.field_i32(4));
                self.fields[4..8].copy_from_slice(&overrun.to_le_bytes());
            }
        }
        self
    }

    fn fault_addr(&self) -> u64 {
        u64::from_le_bytes(self.fields[0..8].try_into().unwrap())
    }
}

/// A stop or continue of a child that wait has not reported yet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JobReport {
    /// Stopped by this signal.
    Stopped(u32),
    /// Continued by SIGCONT.
    Continued,
}

impl JobReport {
    /// The wait4 status word: `0x7f | sig << 8` for a stop, 0xffff for a
    /// continue.
    pub fn wait_status(self) -> i32 {
        match self {
            JobReport::Stopped(sig) => 0x7f | (sig as i32) << 8,
            JobReport::Continued => 0xffff,
        }
    }

    /// waitid's si_code and si_status.
    pub fn code_and_status(self) -> (i32, i32) {
        match self {
            JobReport::Stopped(sig) => (abi::CLD_STOPPED as i32, sig as i32),
            JobReport::Continued => (abi::CLD_CONTINUED as i32, SIGCONT as i32),
        }
    }
}

/// The sigaltstack settings, as `stack_t` has them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AltStack {
    /// ss_sp.
    pub sp: u64,
    /// ss_size (0 when disabled).
    pub size: u64,
    /// ss_flags as set (SS_DISABLE, SS_AUTODISARM).
    pub flags: u32,
}

impl AltStack {
    /// A new process's setting: none (a size of 0 reads as SS_DISABLE; the
    /// flags word stays 0, which uc_stack shows, as on Linux).
    const NONE: AltStack = AltStack { sp: 0, size: 0, flags: 0 };
    /// What SS_AUTODISARM leaves while a handler runs on the stack.
    const DISARMED: AltStack = AltStack { sp: 0, size: 0, flags: SS_DISABLE };

    /// Whether `sp` is on the alternate stack. With SS_AUTODISARM it never
    /// is: the stack was disarmed on entry, so only a deliberate change
    /// while on it could say otherwise, and Linux trusts the setting.
    pub fn contains(&self, sp: u64) -> bool {
        self.flags & SS_AUTODISARM == 0 && self.holds(sp)
    }

    fn holds(&self, sp: u64) -> bool {
        sp > self.sp && sp - self.sp <= self.size
    }

    /// ss_flags as sigaltstack reports them for stack pointer `sp`.
    pub fn reported_flags(&self, sp: u64) -> u32 {
        let state = if self.size == 0 {
            SS_DISABLE
        } else if self.contains(sp) {
            SS_ONSTACK
        } else {
            0
        };
        state | (self.flags & SS_AUTODISARM)
    }
}

/// Signals waiting for delivery to one target: a thread (tkill, faults,
/// SIGPIPE) or the whole process (kill, the terminal, timers).
#[derive(Clone)]
struct Pending {
    /// A standard signal's bit with its siginfo in `standard_info`; a
    /// real-time signal's bit while `realtime` holds an instance of it.
    set: u64,
    standard_info: [SigInfo; SIGRTMIN as usize],
    /// When each pending standard signal was queued (`next_seq` then), so
    /// the queue can be listed in Linux's order (PTRACE_PEEKSIGINFO).
    standard_seq: [u64; SIGRTMIN as usize],
    /// Real-time instances in the order sent, each with its sequence.
    realtime: VecDeque<(u64, SigInfo)>,
    next_seq: u64,
}

impl Pending {
    fn new() -> Self {
        Self { set: 0, standard_info: [SigInfo::default(); SIGRTMIN as usize], standard_seq: [0; SIGRTMIN as usize], realtime: VecDeque::new(), next_seq: 0 }
    }

    fn discard(&mut self, set: u64) {
        self.set &= !set;
        self.realtime.retain(|(_, info)| bit(info.signo) & set == 0);
    }

    /// Queues `info`; `queued` is how many real-time signals the process
    /// has queued in all (RLIMIT_SIGPENDING counts them all).
    fn enqueue(&mut self, info: SigInfo, queued: usize, queue_limit: u64) -> Result<()> {
        let sig = info.signo;
        if sig < SIGRTMIN {
            if self.set & bit(sig) == 0 {
                self.set |= bit(sig);
                self.standard_info[sig as usize] = info;
                self.standard_seq[sig as usize] = self.next_seq;
                self.next_seq += 1;
            }
            return Ok(());
        }
        if queued as u64 >= queue_limit {
            // Past RLIMIT_SIGPENDING a queued signal fails; a kill()'s is
            // still delivered once, without its siginfo (as on Linux).
            if info.code != SI_USER {
                return Err(Errno::EAGAIN);
            }
            if self.set & bit(sig) != 0 {
                return Ok(());
            }
            self.realtime.push_back((self.next_seq, SigInfo::new(sig, SI_USER)));
        } else {
            self.realtime.push_back((self.next_seq, info));
        }
        self.next_seq += 1;
        self.set |= bit(sig);
        Ok(())
    }

    /// Takes the next pending signal in `allowed`: SIGKILL first, then
    /// faults, then the lowest number; real-time instances in the order
    /// sent.
    fn take(&mut self, allowed: u64) -> Option<SigInfo> {
        let set = self.set & allowed;
        if set == 0 {
            return None;
        }
        let sig = if set & bit(SIGKILL) != 0 {
            SIGKILL
        } else if set & SYNCHRONOUS != 0 {
            (set & SYNCHRONOUS).trailing_zeros() + 1
        } else {
            set.trailing_zeros() + 1
        };
        if sig < SIGRTMIN {
            self.set &= !bit(sig);
            return Some(self.standard_info[sig as usize]);
        }
        let info = match self.realtime.iter().position(|(_, info)| info.signo == sig) {
            Some(index) => self.realtime.remove(index).map(|(_, info)| info).unwrap_or_default(),
            None => SigInfo::new(sig, SI_USER),
        };
        if !self.realtime.iter().any(|(_, info)| info.signo == sig) {
            self.set &= !bit(sig);
        }
        Some(info)
    }

    /// Every queued signal, in the order queued (Linux's pending list).
    fn listed(&self) -> alloc::vec::Vec<SigInfo> {
        let mut all: alloc::vec::Vec<(u64, SigInfo)> = (1..SIGRTMIN)
            .filter(|&sig| self.set & bit(sig) != 0)
            .map(|sig| (self.standard_seq[sig as usize], self.standard_info[sig as usize]))
            .chain(self.realtime.iter().copied())
            .collect();
        all.sort_by_key(|(seq, _)| *seq);
        all.into_iter().map(|(_, info)| info).collect()
    }

    fn queued_count(&self) -> usize {
        (self.set & (bit(SIGRTMIN) - 1)).count_ones() as usize + self.realtime.len()
    }
}

/// One thread's part of the signal state: its mask, the signals sent to
/// it alone, and its alternate stack.
#[derive(Clone)]
pub struct ThreadSignals {
    tid: Pid,
    /// Blocked signals.
    pub blocked: u64,
    pending: Pending,
    /// sigaltstack.
    pub alt_stack: AltStack,
    /// The last group stop this thread has joined (its number).
    joined_stop: u64,
}

impl ThreadSignals {
    fn new(tid: Pid, blocked: u64, alt_stack: AltStack) -> Self {
        Self { tid, blocked, pending: Pending::new(), alt_stack, joined_stop: 0 }
    }
}

/// A process's signal state, shared by its threads (Linux's `sighand` and
/// `signal`) with each thread's own part: one lock guards it all, so a
/// signal's choice of thread and its delivery never race.
#[derive(Clone)]
pub struct SignalState {
    /// Dispositions, index sig-1.
    pub actions: [SigAction; NSIG],
    /// Signals sent to the process, for any thread that does not block
    /// them.
    shared: Pending,
    /// Each live thread's mask, private pending set and alternate stack.
    threads: alloc::vec::Vec<ThreadSignals>,
    /// The signal that stopped the process, while it is stopped.
    stopped: Option<u32>,
    /// Numbers the group stops; threads record the last one they joined.
    stop_number: u64,
    /// Threads that have not joined the current stop yet: the stop is
    /// complete, and the parent told, when this reaches 0 (as Linux).
    stop_waiting: usize,
    /// Counts SIGCONTs, so a stop that raced with one is abandoned.
    continues: u64,
    /// The last stop or continue, until wait reports it to the parent.
    report: Option<JobReport>,
    /// Set when the process as a whole is ending (exit_group, a fatal
    /// signal): the status it ends with; its other threads are dying.
    group_exit: Option<ExitStatus>,
    /// A thread that is exec'ing and waits for the others to go.
    exec_by: Option<Pid>,
    /// A signal was forced on it with its default action (a fault): a
    /// PID namespace's init stops dropping default-action signals then
    /// (Linux clears SIGNAL_UNKILLABLE in force_sig_info).
    forced_default: bool,
}

impl SignalState {
    /// Creates the initial state of a process whose only thread is `tid`:
    /// all default, nothing blocked or pending.
    pub fn new(tid: Pid) -> Self {
        Self {
            actions: [SigAction::default(); NSIG],
            shared: Pending::new(),
            threads: alloc::vec![ThreadSignals::new(tid, 0, AltStack::NONE)],
            stopped: None,
            stop_number: 0,
            stop_waiting: 0,
            continues: 0,
            report: None,
            group_exit: None,
            exec_by: None,
            forced_default: false,
        }
    }

    /// The state a fork child (thread `child`) gets from the forking
    /// thread `tid`: same dispositions, mask and alternate stack, nothing
    /// pending.
    pub fn fork_copy(&self, tid: Pid, child: Pid) -> Self {
        let me = self.thread(tid);
        Self {
            actions: self.actions,
            threads: alloc::vec![ThreadSignals::new(child, me.blocked, me.alt_stack)],
            ..Self::new(child)
        }
    }

    /// Adds thread `tid`, created by thread `creator`: it starts with the
    /// creator's mask, nothing pending and no alternate stack (as Linux:
    /// a thread's stack is not its creator's).
    pub fn add_thread(&mut self, creator: Pid, tid: Pid) {
        let blocked = self.thread(creator).blocked;
        self.threads.push(ThreadSignals::new(tid, blocked, AltStack::NONE));
    }

    /// Forgets a thread that is exiting; signals only it was sent are lost.
    /// Returns the stop signal if the thread was the last one a group stop
    /// waited for (the caller tells the parent).
    pub fn remove_thread(&mut self, tid: Pid) -> Option<u32> {
        let joined = self.thread(tid).joined_stop == self.stop_number;
        self.threads.retain(|t| t.tid != tid);
        match self.stopped {
            Some(sig) if !joined && self.stop_waiting > 0 => {
                self.stop_waiting -= 1;
                (self.stop_waiting == 0).then(|| {
                    self.report = Some(JobReport::Stopped(sig));
                    sig
                })
            }
            _ => None,
        }
    }

    /// Renames thread `from` (an exec by a thread other than the leader
    /// gives it the process id).
    pub fn rename_thread(&mut self, from: Pid, to: Pid) {
        self.thread_mut(from).tid = to;
    }

    /// Thread `tid`'s part. A thread that is not (or no longer) listed
    /// reads as blocking nothing with nothing pending.
    pub fn thread(&self, tid: Pid) -> &ThreadSignals {
        static NONE: ThreadSignals = ThreadSignals {
            tid: 0,
            blocked: 0,
            pending: Pending {
                set: 0,
                standard_info: [SigInfo { signo: 0, errno: 0, code: 0, fields: [0; 32] }; SIGRTMIN as usize],
                standard_seq: [0; SIGRTMIN as usize],
                realtime: VecDeque::new(),
                next_seq: 0,
            },
            alt_stack: AltStack::NONE,
            joined_stop: 0,
        };
        self.threads.iter().find(|t| t.tid == tid).unwrap_or(&NONE)
    }

    /// Thread `tid`'s part, for changes (added if missing).
    pub fn thread_mut(&mut self, tid: Pid) -> &mut ThreadSignals {
        let index = match self.threads.iter().position(|t| t.tid == tid) {
            Some(index) => index,
            None => {
                self.threads.push(ThreadSignals::new(tid, 0, AltStack::NONE));
                self.threads.len() - 1
            }
        };
        &mut self.threads[index]
    }

    /// Thread `tid`'s mask.
    pub fn blocked(&self, tid: Pid) -> u64 {
        self.thread(tid).blocked
    }

    /// Sets thread `tid`'s mask (SIGKILL and SIGSTOP stay unblocked).
    pub fn set_blocked(&mut self, tid: Pid, mask: u64) {
        self.thread_mut(tid).blocked = mask & !UNBLOCKABLE;
    }

    /// Installs a temporary mask for a wait (sigsuspend, ppoll...) and
    /// returns the one it replaces.
    pub fn swap_blocked(&mut self, tid: Pid, mask: u64) -> u64 {
        let saved = self.blocked(tid);
        self.set_blocked(tid, mask);
        saved
    }

    /// Resets handlers to default on exec (ignored stays ignored); pending
    /// signals and the mask stay. The alternate stack is forgotten (its
    /// memory is gone) but, as on Linux, its flags word is kept.
    pub fn reset_for_exec(&mut self, tid: Pid) {
        for action in self.actions.iter_mut() {
            if action.handler != SIG_IGN {
                *action = SigAction::default();
            }
        }
        let me = self.thread_mut(tid);
        me.alt_stack.sp = 0;
        me.alt_stack.size = 0;
    }

    /// Returns whether thread `tid` has something to act on before going
    /// back to user mode: an unblocked signal, or a stop of its process
    /// that it has not joined. Sleeps end early (EINTR) then.
    pub fn has_deliverable(&self, tid: Pid) -> bool {
        let me = self.thread(tid);
        (me.pending.set | self.shared.set) & !me.blocked != 0 || self.stop_to_join(tid)
    }

    /// Whether the process is stopped and thread `tid` has not joined the
    /// stop yet (a tracee its tracer resumed in a group stop has).
    fn stop_to_join(&self, tid: Pid) -> bool {
        self.stopped.is_some() && self.thread(tid).joined_stop != self.stop_number
    }

    /// Whether thread `tid` is about to die: SIGKILL waits for it or its
    /// process is ending as a whole (a ptrace stop ends then).
    pub fn dying(&self, tid: Pid) -> bool {
        self.group_exit.is_some() || self.kill_pending(tid)
    }

    /// Forgets an unreported group stop (its tracer, the parent, reports
    /// it as a ptrace stop instead).
    pub fn clear_stop_report(&mut self) {
        if matches!(self.report, Some(JobReport::Stopped(_))) {
            self.report = None;
        }
    }

    /// Whether thread `tid` is about to die: its process is ending as a
    /// whole, SIGKILL waits for it, or an unblocked signal waits whose
    /// action is the default one of ending the process (Linux turns such a
    /// signal into a group kill when it is sent). Long kernel loops stop
    /// early then, so a dying task never finishes a huge copy first.
    pub fn fatal_pending(&self, tid: Pid) -> bool {
        if self.group_exit.is_some() {
            return true;
        }
        let pending = self.pending(tid);
        let mut set = (pending & !self.thread(tid).blocked) | (pending & bit(SIGKILL));
        while set != 0 {
            let sig = set.trailing_zeros() + 1;
            set &= set - 1;
            let action = &self.actions[sig as usize - 1];
            if sig == SIGKILL
                || (action.handler == SIG_DFL && matches!(default_action(sig), DefaultAction::Terminate | DefaultAction::Core))
            {
                return true;
            }
        }
        false
    }

    /// The signals queued for thread `tid` alone (or, with `shared`, for
    /// the process), in the order queued: PTRACE_PEEKSIGINFO's list.
    pub fn queued_signals(&self, tid: Pid, shared: bool) -> alloc::vec::Vec<SigInfo> {
        if shared { self.shared.listed() } else { self.thread(tid).pending.listed() }
    }

    /// Thread `tid`'s pending set: its own and the process's.
    pub fn pending(&self, tid: Pid) -> u64 {
        self.thread(tid).pending.set | self.shared.set
    }

    /// The signals sent to thread `tid` alone (/proc's SigPnd).
    pub fn private_pending(&self, tid: Pid) -> u64 {
        self.thread(tid).pending.set
    }

    /// The signals sent to the process (/proc's ShdPnd).
    pub fn shared_pending(&self) -> u64 {
        self.shared.set
    }

    /// Whether SIGKILL waits for thread `tid` (a stop ends then).
    fn kill_pending(&self, tid: Pid) -> bool {
        self.pending(tid) & bit(SIGKILL) != 0
    }

    /// Returns whether a job-control signal has stopped the process.
    pub fn is_stopped(&self) -> bool {
        self.stopped.is_some()
    }

    /// Returns how many signals are queued (/proc/PID/status's SigQ).
    pub fn queued_count(&self) -> usize {
        self.shared.queued_count() + self.threads.iter().map(|t| t.pending.queued_count()).sum::<usize>()
    }

    fn realtime_queued(&self) -> usize {
        self.shared.realtime.len() + self.threads.iter().map(|t| t.pending.realtime.len()).sum::<usize>()
    }

    /// Sets a disposition. One that ignores the signal discards pending
    /// instances of it, as POSIX requires.
    pub fn set_action(&mut self, sig: u32, action: SigAction) {
        self.actions[sig as usize - 1] = action;
        if action_ignores(&action, sig) {
            self.discard(bit(sig));
        }
    }

    fn is_ignored(&self, sig: u32) -> bool {
        action_ignores(&self.actions[sig as usize - 1], sig)
    }

    /// Discards pending instances of `set`, the process's and every
    /// thread's.
    fn discard(&mut self, set: u64) {
        self.shared.discard(set);
        for thread in self.threads.iter_mut() {
            thread.pending.discard(set);
        }
    }

    /// Takes the next signal in `allowed` for thread `tid`: its own first,
    /// then the process's (as Linux).
    pub fn dequeue(&mut self, tid: Pid, allowed: u64) -> Option<SigInfo> {
        if let Some(info) = self.thread_mut(tid).pending.take(allowed) {
            return Some(info.taken());
        }
        self.shared.take(allowed).map(SigInfo::taken)
    }

    /// The queued signal of timer `id` of process `owner`, if any.
    fn queued_timer_signal(&mut self, id: i32, owner: Pid) -> Option<&mut SigInfo> {
        let queues = core::iter::once(&mut self.shared).chain(self.threads.iter_mut().map(|t| &mut t.pending));
        for pending in queues {
            let set = pending.set;
            let standard = pending.standard_info.iter_mut().enumerate().filter(move |(sig, _)| set & bit(*sig as u32) != 0).map(|(_, i)| i);
            if let Some(info) = standard.chain(pending.realtime.iter_mut().map(|(_, i)| i)).find(|i| i.is_timer(id, owner)) {
                return Some(info);
            }
        }
        None
    }

    /// The status the process ends with when it is ending as a whole.
    pub fn group_exit(&self) -> Option<ExitStatus> {
        self.group_exit
    }

    /// Returns (and, unless `keep`, clears) a stop or continue wait should
    /// report, if it is of a kind asked for.
    pub fn take_report(&mut self, stopped: bool, continued: bool, keep: bool) -> Option<JobReport> {
        let report = self.report?;
        let wanted = match report {
            JobReport::Stopped(_) => stopped,
            JobReport::Continued => continued,
        };
        if !wanted {
            return None;
        }
        if !keep {
            self.report = None;
        }
        Some(report)
    }
}


/// Sends `info.signo` to `process` with its siginfo: any of its threads
/// that does not block it takes it (the main thread if it can). What
/// generating a signal does happens here: SIGCONT resumes a stopped process
/// and discards pending stop signals, a stop signal discards a pending
/// SIGCONT; an ignored signal that is not blocked is dropped (a blocked one
/// stays pending: the disposition may change before it is unblocked).
/// Fails with EAGAIN when the real-time queue is full. A zombie takes
/// nothing.
pub fn send_signal_info(process: &Arc<Process>, info: SigInfo) -> Result<()> {
    send(process, None, info)
}

/// Sends a signal to one thread alone (tkill, tgkill, faults, SIGPIPE):
/// only that thread takes it.
pub fn send_signal_to_thread(thread: &Arc<Thread>, info: SigInfo) -> Result<()> {
    send(&thread.process, Some(thread), info)
}

fn send(process: &Arc<Process>, target: Option<&Arc<Thread>>, info: SigInfo) -> Result<()> {
    let sig = info.signo;
    if sig == 0 || sig as usize > NSIG || process.exit_status().is_some() {
        return Ok(());
    }
    // A timer's signal is allocated with the timer (Linux preallocates it):
    // RLIMIT_SIGPENDING limited the timers instead.
    let limit = if info.code == SI_TIMER { u64::MAX } else { process.limits.lock()[abi::RLIMIT_SIGPENDING as usize][0] };
    // A tracee ignores nothing: its tracer sees every signal (Linux's
    // sig_ignored).
    let traced = super::ptrace::process_traced(process);
    let mut continued = false;
    let mut queued = false;
    let to_wake: alloc::vec::Vec<Arc<Thread>> = {
        let mut signals = process.signals.lock();
        if sig == SIGCONT {
            signals.discard(STOP_SIGNALS);
            signals.continues += 1;
            signals.stop_waiting = 0;
            if signals.stopped.take().is_some() {
                signals.report = Some(JobReport::Continued);
                continued = true;
            }
        } else if bit(sig) & STOP_SIGNALS != 0 {
            signals.discard(bit(SIGCONT));
        }
        // A signal for the process is judged by the main thread's mask,
        // as Linux does.
        let judged_by = target.map_or(process.pid, |t| t.tid());
        if signals.blocked(judged_by) & bit(sig) != 0 || !signals.is_ignored(sig) || traced {
            let already = signals.realtime_queued();
            match target {
                Some(thread) => signals.thread_mut(thread.tid()).pending.enqueue(info, already, limit)?,
                None => signals.shared.enqueue(info, already, limit)?,
            }
            queued = true;
        }
        let threads = process.threads();
        if sig == SIGKILL || continued {
            threads // every thread, stopped ones included
        } else if let Some(thread) = target {
            alloc::vec![thread.clone()]
        } else {
            // Wake one thread that can take it, the main thread first; if
            // every thread blocks it, wake them all: one may be waiting for
            // it (sigwaitinfo, a signalfd read) and the others only
            // recheck their sleep.
            let mut candidates = threads;
            candidates.sort_by_key(|t| t.tid() != process.pid);
            match candidates.iter().find(|t| signals.blocked(t.tid()) & bit(sig) == 0) {
                Some(thread) => alloc::vec![thread.clone()],
                None => candidates,
            }
        }
    };
    if queued {
        match target {
            Some(thread) => thread.signal_hint.store(true, Ordering::Release),
            None => {
                for thread in process.threads() {
                    thread.signal_hint.store(true, Ordering::Release);
                }
            }
        }
    }
    if continued {
        notify_parent_of_job(process, JobReport::Continued);
    }
    for thread in to_wake {
        thread.wake();
    }
    if queued {
        // A signalfd may be readable now (Linux's signalfd_notify); it
        // has no queue of its own and sits on the fallback queue.
        crate::fs::file::notify_pollers();
    }
    Ok(())
}

/// A POSIX timer's siginfo (see `SigInfo::timer`).
pub fn timer_info(signo: u32, id: i32, value: u64, owner: Pid, generation: i32) -> SigInfo {
    SigInfo::timer(signo, id, value, owner, generation)
}

/// Sends a POSIX timer's signal: if the timer's last signal is still
/// queued, the expiry only adds one to its si_overrun (Linux queues a
/// timer's signal once). Returns whether the expiry is accounted for by a
/// queued signal (false when the signal is ignored: the timer runs on).
pub fn send_timer_signal(process: &Arc<Process>, target: Option<&Arc<Thread>>, info: SigInfo) -> bool {
    let (id, owner) = (info.field_i32(0), info.field_i32(24));
    {
        let mut signals = process.signals.lock();
        if let Some(queued) = signals.queued_timer_signal(id, owner) {
            queued.add_overrun(1);
            return true;
        }
    }
    let _ = send(process, target, info);
    process.signals.lock().queued_timer_signal(id, owner).is_some()
}

/// Makes every thread of `process` but `except` look at its signals soon:
/// sets their hints and wakes sleeping ones (their sleep ends with EINTR
/// and the system call restarts if nothing else happens).
pub fn kick_threads(process: &Process, except: Pid) {
    for thread in process.threads() {
        if thread.tid() != except {
            thread.signal_hint.store(true, Ordering::Release);
            thread.wake();
        }
    }
}

/// Ends the other threads of the current thread's process: each gets
/// SIGKILL for itself alone (exit_group, a fatal signal, exec).
pub fn kill_other_threads(process: &Process, me: Pid) {
    {
        let mut signals = process.signals.lock();
        for thread in signals.threads.iter_mut() {
            if thread.tid != me {
                // A standard signal: queueing cannot fail.
                let _ = thread.pending.enqueue(SigInfo::new(SIGKILL, SI_KERNEL), 0, u64::MAX);
            }
        }
    }
    kick_threads(process, me);
}

/// Marks the process as ending with `status` (the first reason wins) and
/// returns the status it ends with; None when an exec by another thread
/// is what ends this one (only the thread goes then).
pub fn begin_group_exit(process: &Process, me: Pid, status: ExitStatus) -> Option<ExitStatus> {
    let mut signals = process.signals.lock();
    if signals.exec_by.is_some_and(|tid| tid != me) {
        return None;
    }
    // A stop ends: the threads that joined it must see their SIGKILL.
    signals.stopped = None;
    Some(*signals.group_exit.get_or_insert(status))
}

/// Starts an exec by thread `me` in a process with other threads: they
/// are told to go. Fails with EAGAIN if the process is already ending or
/// another thread is exec'ing.
pub fn begin_exec(process: &Process, me: Pid) -> Result<()> {
    {
        let mut signals = process.signals.lock();
        if signals.group_exit.is_some() || signals.exec_by.is_some_and(|tid| tid != me) {
            return Err(Errno::EAGAIN);
        }
        signals.exec_by = Some(me);
    }
    kill_other_threads(process, me);
    Ok(())
}

/// Ends an exec's claim on the process (the others are gone, or the
/// exec failed).
pub fn end_exec(process: &Process) {
    process.signals.lock().exec_by = None;
}

/// The siginfo of a signal the kernel sends for a condition a process
/// caused: si_code SI_USER with the current process as the sender, like
/// Linux's "no info" sends (its uid as `target`'s user namespace sees
/// it); SI_KERNEL outside a process.
fn no_info(sig: u32, target: &Process) -> SigInfo {
    match current() {
        Some(thread) => {
            let uid = thread.process.creds.lock().uid;
            SigInfo::from_process(sig, SI_USER, thread.process.pid, crate::ns::user::uid_seen_by(target, uid))
        }
        None => SigInfo::new(sig, SI_KERNEL),
    }
}

/// Sends `sig` to a process for a condition it caused (the parent-death
/// signal).
pub fn send_signal(process: &Arc<Process>, sig: u32) {
    let _ = send_signal_info(process, no_info(sig, process));
}

/// Sends `sig` to the thread whose system call caused it (SIGPIPE,
/// SIGXFSZ).
pub fn send_signal_to_current(thread: &Arc<Thread>, sig: u32) {
    let _ = send_signal_to_thread(thread, no_info(sig, &thread.process));
}

/// Queues a fault signal with its si_code and address for the thread that
/// faulted.
pub fn send_fault_signal(thread: &Arc<Thread>, sig: u32, code: i32, addr: u64) {
    force_signal_to_thread(thread, SigInfo::fault(sig, code, addr));
}

/// Sends SIGSEGV with SEGV_PKUERR for an access at `addr` that the
/// protection key `key` of the page refused.
pub fn send_key_fault_signal(thread: &Arc<Thread>, addr: u64, key: u8) {
    force_signal_to_thread(thread, SigInfo::key_fault(addr, key));
}

/// Queues a signal the thread cannot refuse (Linux's force_sig_info): if
/// it is blocked or ignored, it is unblocked and its action reset to the
/// default first.
pub fn force_signal_to_thread(thread: &Arc<Thread>, info: SigInfo) {
    let sig = info.signo;
    // A fault signal that is blocked or ignored cannot be honoured: the
    // faulting instruction would run again forever. Linux kills then.
    {
        let mut signals = thread.process.signals.lock();
        let tid = thread.tid();
        let forced = signals.blocked(tid) & bit(sig) != 0 || signals.actions[sig as usize - 1].handler == SIG_IGN;
        if forced {
            let blocked = signals.blocked(tid) & !bit(sig);
            signals.set_blocked(tid, blocked);
            signals.actions[sig as usize - 1] = SigAction::default();
        }
        if signals.actions[sig as usize - 1].handler == SIG_DFL {
            signals.forced_default = true;
        }
    }
    let _ = send_signal_to_thread(thread, info);
}

/// Tells the parent of `child` that it stopped or continued: SIGCHLD with
/// CLD_STOPPED/CLD_CONTINUED unless the parent ignores SIGCHLD or asked for
/// SA_NOCLDSTOP; waiters in wait4/waitid wake either way.
fn notify_parent_of_job(child: &Arc<Process>, report: JobReport) {
    let Some(parent) = child.parent() else { return };
    let action = parent.signals.lock().actions[SIGCHLD as usize - 1];
    if action.handler != SIG_IGN && action.flags & SA_NOCLDSTOP == 0 {
        let (code, status) = report.code_and_status();
        // The child's uid as the parent's user namespace sees it.
        let uid = crate::ns::user::uid_seen_by(&parent, child.creds.lock().uid);
        let _ = send_signal_info(&parent, SigInfo::child(code, crate::ns::pid::local_in(&crate::ns::pid::of(&parent), child.pid), uid, status));
    }
    parent.child_event.wake_all();
}

/// Whether children of `parent` reap themselves when they end: SIGCHLD is
/// set to SIG_IGN or has SA_NOCLDWAIT. They then never become zombies and
/// wait gives ECHILD.
pub fn children_reap_themselves(parent: &Process) -> bool {
    let action = parent.signals.lock().actions[SIGCHLD as usize - 1];
    action.handler == SIG_IGN || action.flags & SA_NOCLDWAIT != 0
}

/// Tells `parent` that `child` ended with `status`: SIGCHLD with
/// CLD_EXITED, CLD_KILLED or CLD_DUMPED, unless the parent set SIGCHLD to
/// SIG_IGN.
pub fn notify_parent_of_exit(child: &Process, parent: &Arc<Process>, status: ExitStatus) {
    let action = parent.signals.lock().actions[SIGCHLD as usize - 1];
    if action.handler != SIG_IGN {
        let (code, value) = match status {
            ExitStatus::Exited(code) => (abi::CLD_EXITED, code as i32),
            ExitStatus::Signaled(sig, false) => (abi::CLD_KILLED, sig as i32),
            ExitStatus::Signaled(sig, true) => (abi::CLD_DUMPED, sig as i32),
        };
        let uid = crate::ns::user::uid_seen_by(parent, child.creds.lock().uid);
        let _ = send_signal_info(parent, SigInfo::child(code as i32, crate::ns::pid::local_in(&crate::ns::pid::of(parent), child.pid), uid, value));
    }
}

/// Whether the process group of `process` is orphaned: no member has a
/// parent in another group of the same session (members whose parent is
/// init do not count), so no shell could continue it. Stop signals other
/// than SIGSTOP are discarded there, and terminal job control fails with
/// EIO instead of stopping it.
pub fn group_is_orphaned(process: &Process) -> bool {
    let pgid = process.pgid.load(Ordering::Relaxed);
    !all_processes().iter().any(|member| {
        if member.pgid.load(Ordering::Relaxed) != pgid || member.exit_status().is_some() {
            return false;
        }
        member.parent().is_some_and(|parent| {
            parent.pid != 1
                && parent.pgid.load(Ordering::Relaxed) != pgid
                && parent.sid.load(Ordering::Relaxed) == member.sid.load(Ordering::Relaxed)
        })
    })
}

/// Whether process group `pgid` is orphaned once `exiting` is gone (its
/// children then belong to init): no other live member has a parent, other
/// than `exiting` and init, in another group of the same session.
fn orphaned_without(pgid: Pid, exiting: &Process) -> bool {
    !all_processes().iter().any(|member| {
        if member.pgid.load(Ordering::Relaxed) != pgid || member.pid == exiting.pid || member.exit_status().is_some() {
            return false;
        }
        member.parent().is_some_and(|parent| {
            parent.pid != exiting.pid
                && parent.pid != 1
                && parent.pgid.load(Ordering::Relaxed) != pgid
                && parent.sid.load(Ordering::Relaxed) == member.sid.load(Ordering::Relaxed)
        })
    })
}

/// When `exiting` ends, process groups it was the last outside link of
/// (its own, and those of its children in other groups of their session)
/// become orphaned: if such a group has a stopped member, no shell could
/// ever continue it, so every member gets SIGHUP and then SIGCONT (POSIX,
/// as Linux does). Called before the exiting process's children move to
/// init.
pub fn hang_up_orphaned_groups(exiting: &Process) {
    let own = exiting.pgid.load(Ordering::Relaxed);
    let sid = exiting.sid.load(Ordering::Relaxed);
    let mut candidates = alloc::vec::Vec::new();
    if exiting.parent().is_some_and(|parent| {
        parent.pgid.load(Ordering::Relaxed) != own && parent.sid.load(Ordering::Relaxed) == sid
    }) {
        candidates.push(own);
    }
    for child in exiting.children() {
        let pgid = child.pgid.load(Ordering::Relaxed);
        if pgid != own && child.sid.load(Ordering::Relaxed) == sid && !candidates.contains(&pgid) {
            candidates.push(pgid);
        }
    }
    for pgid in candidates {
        let members: alloc::vec::Vec<_> = all_processes()
            .into_iter()
            .filter(|p| p.pgid.load(Ordering::Relaxed) == pgid && p.pid != exiting.pid && p.exit_status().is_none())
            .collect();
        let any_stopped = members.iter().any(|p| p.signals.lock().stopped.is_some());
        if !any_stopped || !orphaned_without(pgid, exiting) {
            continue;
        }
        for sig in [SIGHUP, SIGCONT] {
            for member in &members {
                let _ = send_signal_info(member, SigInfo::new(sig, SI_KERNEL));
            }
        }
    }
}

/// Stopped threads sleep here; SIGCONT and SIGKILL wake them directly
/// (`send`), so one queue serves all of them.
static STOPPED: WaitQueue = WaitQueue::new();

/// Stops the current thread's process for `sig` until SIGCONT or SIGKILL.
/// `continues` is the SIGCONT count when the stop signal was taken: a
/// SIGCONT since then cancels the stop. The other threads join the stop
/// on their way back to user mode.
fn stop_current(thread: &Arc<Thread>, sig: u32, continues: u64) {
    let process = &thread.process;
    {
        let mut signals = process.signals.lock();
        if signals.continues != continues {
            return;
        }
        signals.stopped = Some(sig);
        signals.stop_number += 1;
        signals.stop_waiting = signals.threads.len();
    }
    kick_threads(process, thread.tid());
    join_stop(thread);
}

/// Tells the parent that a group stop by `sig` is complete (the last
/// thread it waited for exited).
pub fn stop_completed(process: &Arc<Process>, sig: u32) {
    notify_parent_of_job(process, JobReport::Stopped(sig));
}

fn signals_stopped(process: &Process) -> Option<u32> {
    process.signals.lock().stopped
}

/// Joins the process's stop and sleeps until SIGCONT or SIGKILL. The last
/// thread to join completes the stop: the parent hears of it then.
fn join_stop(thread: &Arc<Thread>) {
    let process = &thread.process;
    let tid = thread.tid();
    let completed = {
        let mut signals = process.signals.lock();
        let number = signals.stop_number;
        match signals.stopped {
            Some(sig) if signals.thread(tid).joined_stop != number => {
                signals.thread_mut(tid).joined_stop = number;
                signals.stop_waiting = signals.stop_waiting.saturating_sub(1);
                (signals.stop_waiting == 0).then(|| {
                    signals.report = Some(JobReport::Stopped(sig));
                    sig
                })
            }
            _ => None,
        }
    };
    if let Some(sig) = completed {
        stop_completed(process, sig);
    }
    if thread.ptrace.is_traced() {
        // A tracee reports the stop to its tracer and runs again when the
        // tracer says so.
        if let Some(sig) = signals_stopped(process) {
            super::ptrace::group_stop(thread, sig);
            return;
        }
    }
    STOPPED.wait_until_uninterruptible(|| {
        let signals = process.signals.lock();
        (signals.stopped.is_none() || signals.kill_pending(tid)).then_some(())
    });
}

// The signal frame, as Linux's x86_64 `struct rt_sigframe`: the return
// address (the restorer), a `struct ucontext`, then the `siginfo`.
const UC: u64 = 8;
const UC_FLAGS: u64 = UC;
const UC_LINK: u64 = UC + 8;
const UC_STACK: u64 = UC + 16; // stack_t: ss_sp, ss_flags, ss_size
const UC_MCONTEXT: u64 = UC + 40; // struct sigcontext: 32 words
const UC_SIGMASK: u64 = UC_MCONTEXT + 256;
const SIGINFO_OFFSET: u64 = UC_SIGMASK + 8;
const FRAME_SIZE: u64 = SIGINFO_OFFSET + 128;
/// Linux's markers around the XSAVE image of a signal frame (uapi
/// asm/sigcontext.h; linux-raw-sys does not carry them): `magic1` of
/// `struct _fpx_sw_bytes`, and the word right after the XSAVE area.
const FP_XSTATE_MAGIC1: u32 = 0x4650_5853;
const FP_XSTATE_MAGIC2: u32 = 0x4650_5845;
const FP_XSTATE_MAGIC2_SIZE: u64 = 4;
/// Where `struct _fpx_sw_bytes` sits: the software-reserved bytes at the
/// end of the 512-byte FXSAVE region.
const SW_BYTES: usize = 464;
/// The smallest xstate_size a frame may claim: the FXSAVE region and the
/// XSAVE header.
const MIN_XSTATE_SIZE: u64 = 512 + 64;
/// uc_flags bits (uapi asm/ucontext.h): the fpstate is an XSAVE image with
/// the software bytes; sigcontext's ss is meaningful; sigreturn restores
/// ss as saved.
const UC_FP_XSTATE: u64 = 0x1;
const UC_SIGCONTEXT_SS: u64 = 0x2;
const UC_STRICT_RESTORE_SS: u64 = 0x4;
/// The size of an i387 `struct fregs_state`: Linux reserves room for one
/// in every frame-size bound (32-bit frames need it; 64-bit kernels with
/// IA32 emulation count it for everyone).
const FREGS_STATE_SIZE: u64 = 112;
/// The size of the largest frame structure of a Linux kernel with IA32
/// emulation (Debian's), `struct sigframe_ia32`: its frame-size bound
/// counts that one rather than the 64-bit `rt_sigframe`.
const SIGFRAME_IA32_SIZE: u64 = 732;

/// The bytes of FPU state a frame holds: the XSAVE area and MAGIC2, or the
/// 512-byte FXSAVE image.
fn fp_frame_bytes() -> u64 {
    let size = fpu::state_size() as u64;
    if fpu::xsave_enabled() { size + FP_XSTATE_MAGIC2_SIZE } else { size }
}

/// The most bytes a signal frame can take below the top of a stack, as
/// Linux computes it (its init_sigframe_size): the largest frame structure
/// with 15 bytes of alignment, the FPU state with room for an fsave
/// header, 63 bytes of XSAVE alignment, rounded to 16. Kevlar's frames need
/// at most the FPU state + 63 + FRAME_SIZE + 23, which this covers.
/// execve reports it as AT_MINSIGSTKSZ.
pub fn max_frame_bytes() -> u64 {
    const _: () = assert!(SIGFRAME_IA32_SIZE >= FRAME_SIZE + 8);
    (SIGFRAME_IA32_SIZE + 15 + fp_frame_bytes() + FREGS_STATE_SIZE + 63).next_multiple_of(16)
}
/// Below the interrupted stack pointer the x86_64 ABI lets code keep data
/// (the red zone): the frame goes beneath it.
const RED_ZONE: u64 = 128;

fn restart_syscall(frame: &mut TrapFrame, number: u64) {
    // Back up over the 2-byte SYSCALL instruction with the number in rax
    // again: the call runs anew.
    frame.rax = number & !RESTART_NO_HANDLER;
    frame.rip -= 2;
}

/// Delivers pending signals before a return to user mode: runs default
/// actions (ending or stopping the process), or builds a handler frame on
/// the user stack and points the registers at the handler.
///
/// `saved_mask` is the mask to restore after the handler when a system
/// call (sigsuspend, ppoll) replaced it for its duration. `interrupted` is
/// the number of a system call that failed with EINTR (with
/// RESTART_NO_HANDLER for those that restart only when no handler runs):
/// it is made to run again when no handler runs, or before a handler with
/// SA_RESTART, so the handler's frame saves the restarting registers.
pub fn deliver_pending(thread: &Arc<Thread>, frame: &mut TrapFrame, mut saved_mask: Option<u64>, interrupted: Option<u64>) {
    if saved_mask.is_none() && interrupted.is_none() && !thread.signal_hint.load(Ordering::Acquire) {
        return; // the common case: nothing to do, no lock taken
    }
    let process = &thread.process;
    let tid = thread.tid();
    // Read before the signal lock is taken (the namespace has locks of
    // its own).
    let ns_init = crate::ns::pid::is_ns_init(process);
    loop {
        if thread.ptrace.is_traced() {
            super::ptrace::check_interrupt(thread, frame);
        }
        let (mut info, mut action, mut blocked, continues) = {
            let mut signals = process.signals.lock();
            if signals.stop_to_join(tid) && !signals.kill_pending(tid) {
                // Another thread stopped the process: stop with it.
                drop(signals);
                join_stop(thread);
                continue;
            }
            let allowed = !signals.blocked(tid);
            let Some(info) = signals.dequeue(tid, allowed) else {
                if signals.pending(tid) == 0 {
                    // Nothing at all: later returns can skip the lock. (A
                    // blocked pending signal keeps the hint set, so an
                    // unblock finds it.)
                    thread.signal_hint.store(false, Ordering::Release);
                }
                if let Some(mask) = saved_mask {
                    signals.set_blocked(tid, mask);
                }
                drop(signals);
                if let Some(number) = interrupted {
                    restart_syscall(frame, number);
                }
                return;
            };
            let action = signals.actions[info.signo as usize - 1];
            // A PID namespace's init drops a default-action signal that
            // was queued while blocked (sending checks only unblocked
            // ones), unless SIGKILL or SIGSTOP (which only an ancestor
            // namespace can have sent) or a forced fault (Linux's
            // get_signal and SIGNAL_UNKILLABLE).
            if action.handler == SIG_DFL
                && info.signo != SIGKILL
                && info.signo != SIGSTOP
                && !signals.forced_default
                && ns_init
            {
                continue;
            }
            (info, action, signals.blocked(tid), signals.continues)
        };
        if thread.ptrace.is_traced() && info.signo != SIGKILL {
            // The signal-delivery stop: the tracer may suppress the signal
            // or replace it.
            // The mask a sigsuspend replaced stays visible to the tracer
            // (PTRACE_GETSIGMASK), and PTRACE_SETSIGMASK drops it.
            thread.set_saved_sigmask(saved_mask);
            let delivered = super::ptrace::signal_delivery(thread, frame, info);
            saved_mask = thread.take_saved_sigmask();
            let Some(new) = delivered else { continue };
            // The tracer may have changed the mask (PTRACE_SETSIGMASK):
            // the handler runs with the mask in force now.
            let mut signals = process.signals.lock();
            if new.signo != info.signo && signals.blocked(tid) & bit(new.signo) != 0 {
                let already = signals.realtime_queued();
                let _ = signals.thread_mut(tid).pending.enqueue(new, already, u64::MAX);
                continue;
            }
            action = signals.actions[new.signo as usize - 1];
            blocked = signals.blocked(tid);
            drop(signals);
            info = new;
        }
        let sig = info.signo;
        match action.handler {
            SIG_IGN => continue,
            SIG_DFL => match default_action(sig) {
                DefaultAction::Ignore | DefaultAction::Continue => continue,
                DefaultAction::Stop => {
                    if sig == SIGSTOP || !group_is_orphaned(process) {
                        stop_current(thread, sig, continues);
                    }
                    continue;
                }
                DefaultAction::Terminate => {
                    exit_current(ExitStatus::Signaled(sig as u8, false));
                    return;
                }
                DefaultAction::Core => {
                    // No core file is written (Kevlar has no core dumps;
                    // Linux writes none either under RLIMIT_CORE 0, init's
                    // default), so the status does not claim one.
                    exit_current(ExitStatus::Signaled(sig as u8, false));
                    return;
                }
            },
            handler => {
                if let Some(number) = interrupted {
                    if action.flags & SA_RESTART != 0 && number & RESTART_NO_HANDLER == 0 {
                        restart_syscall(frame, number);
                    }
                }
                let frame_mask = saved_mask.unwrap_or(blocked);
                if setup_frame(thread, frame, &info, &action, handler, blocked, frame_mask).is_err() {
                    // No room for the frame: Linux kills with SIGSEGV.
                    exit_current(ExitStatus::Signaled(SIGSEGV as u8, false));
                }
                return;
            }
        }
    }
}

/// Builds the handler frame. `blocked` is the current mask (the handler
/// runs with it plus sa_mask and, unless SA_NODEFER, the signal);
/// `frame_mask` is the one sigreturn restores.
fn setup_frame(
    thread: &Arc<Thread>,
    frame: &mut TrapFrame,
    info: &SigInfo,
    action: &SigAction,
    handler: u64,
    blocked: u64,
    frame_mask: u64,
) -> Result<()> {
    if action.flags & SA_RESTORER == 0 {
        return Err(Errno::EFAULT); // no way back from the handler
    }
    let sig = info.signo;
    let process = &thread.process;
    let tid = thread.tid();
    let alt = process.signals.lock().thread(tid).alt_stack;
    let nested = alt.contains(frame.rsp);
    let mut sp = frame.rsp - RED_ZONE;
    let mut entering = false;
    if action.flags & SA_ONSTACK != 0 && alt.reported_flags(sp) & (SS_DISABLE | SS_ONSTACK) == 0 {
        sp = alt.sp + alt.size;
        entering = true;
    }
    // The FPU state goes above the frame, 64-byte aligned as Linux's.
    let fp_area = (sp - fp_frame_bytes()) & !63;
    sp = ((fp_area - FRAME_SIZE) & !15) - 8; // as after a call: rsp+8 is 16-aligned
    if (nested || entering) && !alt.holds(sp) {
        // The frame would overflow the alternate stack.
        return Err(Errno::EFAULT);
    }
    let mut image = [0u8; FRAME_SIZE as usize];
    let put = |image: &mut [u8], offset: u64, value: u64| {
        image[offset as usize..offset as usize + 8].copy_from_slice(&value.to_le_bytes());
    };
    put(&mut image, 0, action.restorer);
    let fp_flag = if fpu::xsave_enabled() { UC_FP_XSTATE } else { 0 };
    put(&mut image, UC_FLAGS, fp_flag | UC_SIGCONTEXT_SS | UC_STRICT_RESTORE_SS);
    put(&mut image, UC_LINK, 0);
    // uc_stack saves the settings as they are (sigreturn restores them,
    // which matters with SS_AUTODISARM).
    put(&mut image, UC_STACK, alt.sp);
    image[(UC_STACK + 8) as usize..(UC_STACK + 12) as usize].copy_from_slice(&alt.flags.to_le_bytes());
    put(&mut image, UC_STACK + 16, alt.size);
    // struct sigcontext: r8..r15, rdi, rsi, rbp, rbx, rdx, rax, rcx, rsp,
    // rip, eflags, cs/gs/fs/ss, err, trapno, oldmask, cr2, fpstate,
    // reserved.
    let is_fault = matches!(sig, SIGSEGV | SIGBUS) && info.code > 0;
    let trapno = if frame.vector < 32 { frame.vector } else { 0 };
    let regs = [
        frame.r8, frame.r9, frame.r10, frame.r11, frame.r12, frame.r13, frame.r14, frame.r15, frame.rdi, frame.rsi,
        frame.rbp, frame.rbx, frame.rdx, frame.rax, frame.rcx, frame.rsp, frame.rip, frame.rflags,
        frame.cs | (frame.ss << 48), frame.error_code, trapno, frame_mask, if is_fault { info.fault_addr() } else { 0 },
    ];
    for (i, value) in regs.iter().enumerate() {
        put(&mut image, UC_MCONTEXT + 8 * i as u64, *value);
    }
    put(&mut image, UC_MCONTEXT + 8 * 23, fp_area);
    put(&mut image, UC_SIGMASK, frame_mask);
    image[SIGINFO_OFFSET as usize..].copy_from_slice(&info.to_user());
    save_fpstate(fp_area)?;
    copy_to_user(sp as usize, &image)?;
    {
        let mut signals = process.signals.lock();
        let mut new_blocked = blocked | action.mask;
        if action.flags & SA_NODEFER == 0 {
            new_blocked |= bit(sig);
        }
        signals.set_blocked(tid, new_blocked);
        if action.flags & SA_RESETHAND != 0 {
            // Only the handler goes back to SIG_DFL: Linux keeps the
            // flags and mask (sigaction still reports SA_SIGINFO).
            signals.actions[sig as usize - 1].handler = SIG_DFL;
        }
        if entering && alt.flags & SS_AUTODISARM != 0 {
            signals.thread_mut(tid).alt_stack = AltStack::DISARMED;
        }
    }
    // The handler starts with a clean FPU state, as on Linux (which
    // resets every user component after saving them in the frame).
    kevlar_platform::x86::user::reset_fpu();
    frame.rsp = sp;
    frame.rip = handler;
    frame.rdi = sig as u64;
    frame.rsi = sp + SIGINFO_OFFSET;
    frame.rdx = sp + UC;
    frame.rax = 0;
    // The handler starts with the direction and trap flags clear (the ABI
    // wants DF clear at function entry), as on Linux.
    frame.rflags &= !((1 << 8) | (1 << 10) | (1 << 16));
    Ok(())
}

/// Writes the live FPU state to a signal frame at `addr` as Linux does:
/// with XSAVE, the standard-format XSAVE image whose software-reserved
/// bytes describe it (`struct _fpx_sw_bytes`), x87 and SSE always marked
/// present in the header (so a handler that edits only the legacy region
/// is heard), and FP_XSTATE_MAGIC2 right after the area; else the FXSAVE
/// image.
fn save_fpstate(addr: u64) -> Result<()> {
    if !fpu::xsave_enabled() {
        return fpu::save_to_user(addr as usize).map_err(|_| Errno::EFAULT);
    }
    let size = fpu::state_size();
    // XSAVE leaves the header's other fields alone: clear them first.
    copy_to_user(addr as usize + 512, &[0u8; 64])?;
    fpu::save_to_user(addr as usize).map_err(|_| Errno::EFAULT)?;
    let mut sw = [0u8; 512 - SW_BYTES];
    sw[0..4].copy_from_slice(&FP_XSTATE_MAGIC1.to_le_bytes());
    sw[4..8].copy_from_slice(&((size as u64 + FP_XSTATE_MAGIC2_SIZE) as u32).to_le_bytes());
    sw[8..16].copy_from_slice(&fpu::user_xfeatures().to_le_bytes());
    sw[16..20].copy_from_slice(&(size as u32).to_le_bytes());
    copy_to_user(addr as usize + SW_BYTES, &sw)?;
    copy_to_user(addr as usize + size, &FP_XSTATE_MAGIC2.to_le_bytes())?;
    let mut xstate_bv = [0u8; 1];
    copy_from_user(&mut xstate_bv, addr as usize + 512)?;
    xstate_bv[0] |= 0b11; // x87 and SSE
    copy_to_user(addr as usize + 512, &xstate_bv)
}

/// Loads the FPU state from a signal frame's fpstate at `addr`, as Linux's
/// sigreturn: an XSAVE image when its software bytes and MAGIC2 check out
/// (the components its `xfeatures` leaves out go back to their initial
/// state), otherwise a plain FXSAVE image (x87 and SSE from it, the rest
/// initial). An image the CPU refuses (reserved MXCSR bits, a bad XSAVE
/// header, a misaligned area) fails, and the caller gets SIGSEGV.
fn restore_fpstate(addr: u64) -> Result<()> {
    if !fpu::xsave_enabled() {
        return fpu::restore_fxsave_from_user(addr as usize).map_err(|_| Errno::EFAULT);
    }
    let mut sw = [0u8; 512 - SW_BYTES];
    copy_from_user(&mut sw, addr as usize + SW_BYTES)?;
    let word = |at: usize| u32::from_le_bytes(sw[at..at + 4].try_into().unwrap());
    let (magic1, extended_size, xstate_size) = (word(0), word(4), u64::from(word(16)));
    let xfeatures = u64::from_le_bytes(sw[8..16].try_into().unwrap());
    let mut is_xsave = magic1 == FP_XSTATE_MAGIC1
        && (MIN_XSTATE_SIZE..=fpu::state_size() as u64).contains(&xstate_size)
        && xstate_size <= u64::from(extended_size);
    if is_xsave {
        let mut magic2 = [0u8; 4];
        copy_from_user(&mut magic2, (addr + xstate_size) as usize)?;
        is_xsave = u32::from_le_bytes(magic2) == FP_XSTATE_MAGIC2;
    }
    let restored = if is_xsave {
        fpu::restore_xsave_from_user(addr as usize, xfeatures)
    } else {
        fpu::restore_fxsave_from_user(addr as usize)
    };
    restored.map_err(|_| Errno::EFAULT)
}

/// Changes the alternate stack (sigaltstack, and sigreturn restoring it)
/// while the user stack pointer is `sp`: EPERM while running on it, EINVAL
/// for unknown flags, ENOMEM below MINSIGSTKSZ.
pub fn set_alt_stack(thread: &Thread, new: AltStack, sp: u64) -> Result<()> {
    let mut signals = thread.process.signals.lock();
    let signals = signals.thread_mut(thread.tid());
    let current = signals.alt_stack;
    if current.contains(sp) {
        return Err(Errno::EPERM);
    }
    let mode = new.flags & !SS_AUTODISARM;
    if mode != SS_DISABLE && mode != SS_ONSTACK && mode != 0 {
        return Err(Errno::EINVAL);
    }
    if new == current {
        return Ok(());
    }
    signals.alt_stack = if mode == SS_DISABLE {
        AltStack { sp: 0, size: 0, flags: new.flags }
    } else {
        if new.size < abi::MINSIGSTKSZ as u64 {
            return Err(Errno::ENOMEM);
        }
        new
    };
    Ok(())
}

/// rt_sigreturn: restores the registers, mask and alternate stack saved by
/// `setup_frame`. The handler's return popped the return address, so the
/// frame starts 8 bytes below the stack pointer.
pub fn sigreturn(thread: &Arc<Thread>, frame: &mut TrapFrame) -> Result<()> {
    let base = frame.rsp - 8;
    let mut image = [0u8; FRAME_SIZE as usize];
    copy_from_user(&mut image, base as usize)?;
    let get = |offset: u64| u64::from_le_bytes(image[offset as usize..offset as usize + 8].try_into().unwrap());
    let r = |i: u64| get(UC_MCONTEXT + 8 * i);
    frame.r8 = r(0);
    frame.r9 = r(1);
    frame.r10 = r(2);
    frame.r11 = r(3);
    frame.r12 = r(4);
    frame.r13 = r(5);
    frame.r14 = r(6);
    frame.r15 = r(7);
    frame.rdi = r(8);
    frame.rsi = r(9);
    frame.rbp = r(10);
    frame.rbx = r(11);
    frame.rdx = r(12);
    frame.rax = r(13);
    frame.rcx = r(14);
    frame.rsp = r(15);
    frame.rip = r(16);
    let fpstate = r(23);
    if fpstate == 0 {
        // No FPU state in the frame: Linux resets the registers.
        kevlar_platform::x86::user::reset_fpu();
    } else {
        restore_fpstate(fpstate)?;
    }
    // Only the user-changeable flags come back (CF PF AF ZF SF TF DF OF AC).
    let user_flags = 0x0004_0dd5;
    frame.rflags = (frame.rflags & !user_flags) | (r(17) & user_flags) | (1 << 9);
    // Every register must come back as saved: no SYSRET.
    frame.vector = 0;
    let mask = get(UC_SIGMASK);
    thread.process.signals.lock().set_blocked(thread.tid(), mask);
    // Linux restores the alternate stack from uc_stack and ignores a
    // failure (EPERM when the interrupted code itself ran on it).
    let flags = u32::from_le_bytes(image[(UC_STACK + 8) as usize..(UC_STACK + 12) as usize].try_into().unwrap());
    let saved = AltStack { sp: get(UC_STACK), size: get(UC_STACK + 16), flags };
    let _ = set_alt_stack(thread, saved, frame.rsp);
    Ok(())
}
