//! The kernel's side of the platform's user-mode hooks: system calls,
//! faults, signal delivery and preemption before returning to user mode.

use kevlar_platform::x86::trap::TrapFrame;
use kevlar_platform::x86::user::{Exception, UserHooks};

use crate::mm::FaultOutcome;
use crate::process::signal;
use crate::process::{current, scheduler};

/// The hooks registered with the platform at boot.
pub static HOOKS: UserHooks = UserHooks {
    syscall: crate::syscalls::handle,
    user_exception,
    resolve_user_fault,
    before_user_return,
    timer_tick: scheduler::on_tick,
    idle: scheduler::idle_once,
};

// si_code values of the fault signals.
const SEGV_MAPERR: i32 = linux_raw_sys::general::SEGV_MAPERR as i32;
const SEGV_ACCERR: i32 = linux_raw_sys::general::SEGV_ACCERR as i32;
const BUS_ADRERR: i32 = linux_raw_sys::general::BUS_ADRERR as i32;
const SI_KERNEL: i32 = linux_raw_sys::general::SI_KERNEL as i32;

fn user_exception(frame: &mut TrapFrame, exception: Exception) {
    let Some(thread) = current() else { return };
    let process = thread.process.clone();
    let (sig, code, addr) = match exception {
        Exception::PageFault { addr, write, exec, .. } => {
            thread.fault_count.fetch_add(1, core::sync::atomic::Ordering::Relaxed);
            thread.last_fault.store(addr as u64 | (write as u64) << 63 | (exec as u64) << 62, core::sync::atomic::Ordering::Relaxed);
            let vm = process.vm.lock().clone();
            let outcome = vm.lock().handle_fault(addr, write, exec);
            match outcome {
                FaultOutcome::Fixed => return,
                FaultOutcome::NoMapping => (signal::SIGSEGV, SEGV_MAPERR, addr as u64),
                FaultOutcome::AccessDenied => (signal::SIGSEGV, SEGV_ACCERR, addr as u64),
                FaultOutcome::OutOfMemory => (signal::SIGKILL, 0, 0),
                FaultOutcome::PastEndOfFile => (signal::SIGBUS, BUS_ADRERR, addr as u64),
            }
        }
        Exception::DivideError => (signal::SIGFPE, 1, frame.rip),
        Exception::FloatingPoint => (signal::SIGFPE, 0, frame.rip),
        Exception::InvalidOpcode => (signal::SIGILL, 2, frame.rip),
        Exception::Breakpoint => (signal::SIGTRAP, SI_KERNEL, 0),
        Exception::AlignmentCheck => (signal::SIGBUS, 1, 0),
        Exception::GeneralProtection | Exception::Other(_) => (signal::SIGSEGV, SI_KERNEL, 0),
    };
    signal::send_fault_signal(&process, sig, code, addr);
}

fn resolve_user_fault(addr: usize, write: bool) -> bool {
    let Some(thread) = current() else { return false };
    let vm = thread.process.vm.lock().clone();
    let outcome = vm.lock().handle_fault(addr, write, false);
    outcome == FaultOutcome::Fixed
}

fn before_user_return(frame: &mut TrapFrame) {
    prepare_user_return(frame);
    // An exited thread leaves the CPU here, where no kernel frame holds a
    // reference to it any more.
    if scheduler::current_is_dead() {
        scheduler::exit_dead_thread();
    }
}

fn prepare_user_return(frame: &mut TrapFrame) {
    scheduler::after_switch();
    crate::timer::run_expired();
    let Some(thread) = current() else { return };
    if thread.state() == crate::process::ThreadState::Dead {
        return; // exited in this system call: leaves the CPU next
    }
    scheduler::preempt_if_needed(&thread);
    let interrupted = thread.take_interrupted_syscall();
    let saved = thread.take_saved_sigmask();
    // Delivery also decides whether an interrupted system call runs again:
    // that must happen before a handler's frame saves the registers.
    signal::deliver_pending(&thread.process, frame, saved, interrupted);
}
