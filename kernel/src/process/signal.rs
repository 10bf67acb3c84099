//! Signals: dispositions, masks, pending sets, and delivery on the way
//! back to user mode (default actions and handler frames).

use alloc::sync::Arc;

use kevlar_platform::x86::trap::TrapFrame;
use crate::uaccess::{copy_from_user, copy_to_user};

use super::{exit_current, ExitStatus, Process};
use crate::error::{Errno, Result};

/// Number of signals (1..=64).
pub const NSIG: usize = 64;
/// SIGHUP.
pub const SIGHUP: u32 = 1;
/// SIGINT.
pub const SIGINT: u32 = 2;
/// SIGQUIT.
pub const SIGQUIT: u32 = 3;
/// SIGILL.
pub const SIGILL: u32 = 4;
/// SIGTRAP.
pub const SIGTRAP: u32 = 5;
/// SIGABRT.
pub const SIGABRT: u32 = 6;
/// SIGBUS.
pub const SIGBUS: u32 = 7;
/// SIGFPE.
pub const SIGFPE: u32 = 8;
/// SIGKILL.
pub const SIGKILL: u32 = 9;
/// SIGSEGV.
pub const SIGSEGV: u32 = 11;
/// SIGPIPE.
pub const SIGPIPE: u32 = 13;
/// SIGALRM.
pub const SIGALRM: u32 = 14;
/// SIGTERM.
pub const SIGTERM: u32 = 15;
/// SIGCHLD.
pub const SIGCHLD: u32 = 17;
/// SIGCONT.
pub const SIGCONT: u32 = 18;
/// SIGSTOP.
pub const SIGSTOP: u32 = 19;
/// SIGTSTP.
pub const SIGTSTP: u32 = 20;
/// SIGTTIN.
pub const SIGTTIN: u32 = 21;
/// SIGTTOU.
pub const SIGTTOU: u32 = 22;
/// SIGURG.
pub const SIGURG: u32 = 23;
/// SIGWINCH.
pub const SIGWINCH: u32 = 28;

const SIG_DFL: u64 = 0;
const SIG_IGN: u64 = 1;
const SA_SIGINFO: u64 = 0x4;
const SA_ONSTACK: u64 = 0x0800_0000;
const SA_RESTORER: u64 = 0x0400_0000;
const SA_NODEFER: u64 = 0x4000_0000;
const SA_RESETHAND: u64 = 0x8000_0000;
const SA_RESTART: u64 = 0x1000_0000;

fn bit(sig: u32) -> u64 {
    1u64 << (sig - 1)
}

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
        SIGQUIT | SIGILL | SIGTRAP | SIGABRT | SIGBUS | SIGFPE | SIGSEGV | 24 | 25 | 31 => DefaultAction::Core,
        _ => DefaultAction::Terminate,
    }
}

/// A process's signal state.
#[derive(Clone)]
pub struct SignalState {
    /// Dispositions, index sig-1.
    pub actions: [SigAction; NSIG],
    /// Blocked signals.
    pub blocked: u64,
    /// Pending signals.
    pub pending: u64,
    /// sigaltstack: (base, size, flags).
    pub alt_stack: (u64, u64, i32),
    /// Extra info for pending SIGSEGV/SIGBUS (si_code, address).
    pub fault_info: Option<(i32, u64)>,
}

impl SignalState {
    /// Creates the initial state: all default, nothing blocked or pending.
    pub fn new() -> Self {
        Self { actions: [SigAction::default(); NSIG], blocked: 0, pending: 0, alt_stack: (0, 0, 2), fault_info: None }
    }

    /// The state a fork child gets: same dispositions and mask, nothing
    /// pending.
    pub fn fork_copy(&self) -> Self {
        let mut copy = self.clone();
        copy.pending = 0;
        copy.fault_info = None;
        copy
    }

    /// Resets handlers to default on exec (ignored stays ignored).
    pub fn reset_for_exec(&mut self) {
        for action in self.actions.iter_mut() {
            if action.handler != SIG_IGN {
                *action = SigAction::default();
            }
        }
        self.alt_stack = (0, 0, 2);
    }

    /// Returns whether an unblocked signal is pending.
    pub fn has_deliverable(&self) -> bool {
        self.pending & !self.blocked != 0
    }

    fn is_ignored(&self, sig: u32) -> bool {
        let action = self.actions[sig as usize - 1];
        action.handler == SIG_IGN || (action.handler == SIG_DFL && default_action(sig) == DefaultAction::Ignore)
    }
}

impl Default for SignalState {
    fn default() -> Self {
        Self::new()
    }
}

/// Queues `sig` for `process` (ignored signals are dropped at once) and
/// wakes it if it sleeps.
pub fn send_signal(process: &Arc<Process>, sig: u32) {
    if sig == 0 || sig as usize > NSIG {
        return;
    }
    {
        let mut signals = process.signals.lock();
        if signals.is_ignored(sig) && sig != SIGKILL {
            return;
        }
        signals.pending |= bit(sig);
    }
    if let Some(thread) = process.main_thread() {
        thread.wake();
    }
}

/// Queues a fault signal with its si_code and address.
pub fn send_fault_signal(process: &Arc<Process>, sig: u32, code: i32, addr: u64) {
    process.signals.lock().fault_info = Some((code, addr));
    // A fault signal that is blocked or ignored cannot be honoured: the
    // faulting instruction would run again forever. Linux kills then.
    let forced = {
        let signals = process.signals.lock();
        signals.blocked & bit(sig) != 0 || signals.actions[sig as usize - 1].handler == SIG_IGN
    };
    if forced {
        let mut signals = process.signals.lock();
        signals.blocked &= !bit(sig);
        signals.actions[sig as usize - 1] = SigAction::default();
    }
    process.signals.lock().pending |= bit(sig);
}

/// Offsets in the signal frame we build (matching Linux's x86_64
/// `struct rt_sigframe`: return address, `ucontext`, `siginfo`).
const UC_FLAGS: u64 = 8;
const UC_STACK: u64 = 16; // ss_sp, ss_flags, ss_size
const UC_MCONTEXT: u64 = 40; // 23 registers of struct sigcontext
const UC_SIGMASK: u64 = UC_MCONTEXT + 256;
const FRAME_SIZE: u64 = UC_SIGMASK + 8 + 128; // + siginfo
const SIGINFO_OFFSET: u64 = UC_SIGMASK + 8;

/// What `deliver_pending` did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Delivery {
    /// No handler ran (nothing pending, or only ignored signals).
    Nothing,
    /// A handler frame was set up; `restart` is its SA_RESTART flag.
    Handler {
        /// Whether an interrupted system call restarts.
        restart: bool,
    },
}

/// Delivers pending signals before a return to user mode: runs default
/// actions, or builds a handler frame on the user stack and points the
/// registers at the handler. `saved_mask` is the mask to restore after the
/// handler when a system call (sigsuspend) replaced it.
pub fn deliver_pending(process: &Arc<Process>, frame: &mut TrapFrame, saved_mask: Option<u64>) -> Delivery {
    loop {
        let (sig, action, blocked, fault) = {
            let mut signals = process.signals.lock();
            let deliverable = signals.pending & !signals.blocked;
            if deliverable == 0 {
                if let Some(mask) = saved_mask {
                    signals.blocked = mask;
                }
                return Delivery::Nothing;
            }
            let sig = deliverable.trailing_zeros() + 1;
            signals.pending &= !bit(sig);
            let action = signals.actions[sig as usize - 1];
            let fault = if sig == SIGSEGV || sig == SIGBUS { signals.fault_info.take() } else { None };
            (sig, action, saved_mask.unwrap_or(signals.blocked), fault)
        };
        match action.handler {
            SIG_IGN => continue,
            SIG_DFL => match default_action(sig) {
                DefaultAction::Ignore | DefaultAction::Continue => continue,
                DefaultAction::Stop => continue, // job control stops arrive with the TTY layer
                DefaultAction::Terminate => exit_current(ExitStatus::Signaled(sig as u8, false)),
                DefaultAction::Core => exit_current(ExitStatus::Signaled(sig as u8, true)),
            },
            handler => {
                if setup_frame(process, frame, sig, &action, handler, blocked, fault).is_err() {
                    // No room for the frame: Linux kills with SIGSEGV.
                    exit_current(ExitStatus::Signaled(SIGSEGV as u8, true));
                }
                return Delivery::Handler { restart: action.flags & SA_RESTART != 0 };
            }
        }
    }
}

fn setup_frame(
    process: &Arc<Process>,
    frame: &mut TrapFrame,
    sig: u32,
    action: &SigAction,
    handler: u64,
    blocked: u64,
    fault: Option<(i32, u64)>,
) -> Result<()> {
    let (alt_base, alt_size, alt_flags) = process.signals.lock().alt_stack;
    let on_alt = alt_flags & 2 == 0 && frame.rsp >= alt_base && frame.rsp < alt_base + alt_size;
    let mut sp = if action.flags & SA_ONSTACK != 0 && alt_flags & 2 == 0 && !on_alt {
        alt_base + alt_size
    } else {
        frame.rsp - 128 // the red zone below the interrupted stack pointer
    };
    sp = ((sp - FRAME_SIZE) & !15) - 8; // as after a call: rsp+8 is 16-aligned
    let mut image = [0u8; FRAME_SIZE as usize];
    let put = |image: &mut [u8], offset: u64, value: u64| {
        image[offset as usize..offset as usize + 8].copy_from_slice(&value.to_le_bytes());
    };
    if action.flags & SA_RESTORER == 0 {
        return Err(Errno::EFAULT); // no way back from the handler
    }
    put(&mut image, 0, action.restorer);
    put(&mut image, UC_FLAGS, 0);
    put(&mut image, UC_STACK, alt_base);
    image[(UC_STACK + 8) as usize..(UC_STACK + 12) as usize].copy_from_slice(&(if on_alt { 1i32 } else { alt_flags }).to_le_bytes());
    put(&mut image, UC_STACK + 16, alt_size);
    // struct sigcontext: r8..r15, rdi, rsi, rbp, rbx, rdx, rax, rcx, rsp,
    // rip, eflags, cs/gs/fs/ss, err, trapno, oldmask, cr2.
    let regs = [
        frame.r8, frame.r9, frame.r10, frame.r11, frame.r12, frame.r13, frame.r14, frame.r15, frame.rdi, frame.rsi,
        frame.rbp, frame.rbx, frame.rdx, frame.rax, frame.rcx, frame.rsp, frame.rip, frame.rflags,
        frame.cs | (frame.ss << 48), frame.error_code, frame.vector.min(255), blocked, fault.map_or(0, |f| f.1),
    ];
    for (i, value) in regs.iter().enumerate() {
        put(&mut image, UC_MCONTEXT + 8 * i as u64, *value);
    }
    put(&mut image, UC_SIGMASK, blocked);
    // siginfo: si_signo, si_errno, si_code, then the union.
    let info = SIGINFO_OFFSET as usize;
    image[info..info + 4].copy_from_slice(&(sig as i32).to_le_bytes());
    let code = fault.map_or(0, |f| f.0); // SI_USER for kill()
    image[info + 8..info + 12].copy_from_slice(&code.to_le_bytes());
    if let Some((_, addr)) = fault {
        put(&mut image, SIGINFO_OFFSET + 16, addr);
    }
    copy_to_user(sp as usize, &image)?;
    {
        let mut signals = process.signals.lock();
        let mut new_blocked = blocked | action.mask;
        if action.flags & SA_NODEFER == 0 {
            new_blocked |= bit(sig);
        }
        signals.blocked = new_blocked & !(bit(SIGKILL) | bit(SIGSTOP));
        if action.flags & SA_RESETHAND != 0 {
            signals.actions[sig as usize - 1] = SigAction::default();
        }
    }
    frame.rsp = sp;
    frame.rip = handler;
    frame.rdi = sig as u64;
    frame.rsi = sp + SIGINFO_OFFSET;
    frame.rdx = sp + 8;
    frame.rax = 0;
    let _ = SA_SIGINFO;
    Ok(())
}

/// rt_sigreturn: restores the registers and mask saved by `setup_frame`.
/// The frame's return address was popped, so the ucontext is at rsp - 8 + 8.
pub fn sigreturn(process: &Arc<Process>, frame: &mut TrapFrame) -> Result<()> {
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
    // Only the user-changeable flags come back (CF PF AF ZF SF TF DF OF AC).
    let user_flags = 0x0004_0dd5;
    frame.rflags = (frame.rflags & !user_flags) | (r(17) & user_flags) | (1 << 9);
    // Every register must come back as saved: no SYSRET.
    frame.vector = 0;
    let mask = get(UC_SIGMASK) & !(bit(SIGKILL) | bit(SIGSTOP));
    process.signals.lock().blocked = mask;
    Ok(())
}
