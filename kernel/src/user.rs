//! The kernel's side of the platform's user-mode hooks: system calls,
//! faults, signal delivery and preemption before returning to user mode.

use kevlar_platform::x86::trap::TrapFrame;
use kevlar_platform::x86::user::{Exception, UserHooks};

use crate::mm::FaultOutcome;
use crate::process::signal;
use crate::process::{current, scheduler};

/// The hooks registered with the platform at boot.
pub static HOOKS: UserHooks = UserHooks {
    syscall,
    user_exception,
    resolve_user_fault: crate::mm::user_fault::resolve,
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
        Exception::PageFault { addr, write, exec, key_denied, .. } => {
            thread.fault_count.fetch_add(1, core::sync::atomic::Ordering::Relaxed);
            crate::mm::vmstat::count(crate::mm::vmstat::Event::PageFault, 1);
            thread.last_fault.store(addr as u64 | (write as u64) << 63 | (exec as u64) << 62, core::sync::atomic::Ordering::Relaxed);
            let vm = process.vm.lock().clone();
            // A protection key's refusal comes first, as on Linux (it
            // outranks the area's own rights, and maps nothing).
            let outcome = {
                let mut vm = vm.lock();
                match vm.key_denial(addr, write, exec, key_denied) {
                    Some(key) => Err(key),
                    None => Ok(vm.handle_fault(addr, write, exec)),
                }
            };
            let outcome = match outcome {
                Ok(outcome) => outcome,
                Err(key) => {
                    drop(vm);
                    signal::send_key_fault_signal(&thread, addr as u64, key);
                    return;
                }
            };
            match outcome {
                FaultOutcome::Fixed => {
                    drop(vm);
                    crate::cgroup::after_fault(&thread);
                    return;
                }
                FaultOutcome::NoMapping => (signal::SIGSEGV, SEGV_MAPERR, addr as u64),
                FaultOutcome::AccessDenied => (signal::SIGSEGV, SEGV_ACCERR, addr as u64),
                FaultOutcome::OutOfMemory => {
                    // Free memory (kill the process with the highest
                    // badness, perhaps this one), let the victim die, and
                    // fault again on the way back.
                    drop(vm);
                    crate::mm::oom::out_of_memory(Some(&thread));
                    crate::mm::oom::wait_for_victim(&thread);
                    return;
                }
                FaultOutcome::PastEndOfFile => (signal::SIGBUS, BUS_ADRERR, addr as u64),
            }
        }
        Exception::DivideError => (signal::SIGFPE, 1, frame.rip),
        Exception::FloatingPoint => (signal::SIGFPE, 0, frame.rip),
        Exception::InvalidOpcode => (signal::SIGILL, 2, frame.rip),
        Exception::Breakpoint => (signal::SIGTRAP, SI_KERNEL, 0),
        // #DB: a single step (the trap flag a tracer set) or a hardware
        // breakpoint; si_addr is where the thread is.
        Exception::Debug { dr6 } => match crate::process::hwbreak::user_debug_trap(&thread, dr6) {
            Some(code) => (signal::SIGTRAP, code, frame.rip),
            None => return,
        },
        Exception::AlignmentCheck => (signal::SIGBUS, 1, 0),
        Exception::GeneralProtection | Exception::Other(_) => (signal::SIGSEGV, SI_KERNEL, 0),
    };
    signal::send_fault_signal(&thread, sig, code, addr);
}

/// A system call, and the return-to-user work after it, with one lookup
/// of the current thread. Called by the platform's SYSCALL entry code
/// (hence the C calling convention).
extern "C" fn syscall(frame: &mut TrapFrame) {
    let Some(thread) = current() else {
        frame.rax = crate::error::Errno::ENOSYS.as_negative_isize() as u64;
        return;
    };
    crate::syscalls::handle(&thread, frame);
    return_to_user(thread, frame);
}

/// After a trap from user mode.
fn before_user_return(frame: &mut TrapFrame) {
    match current() {
        Some(thread) => return_to_user(thread, frame),
        None => {
            scheduler::after_switch();
            crate::timer::run_expired();
        }
    }
}

/// Runs deferred work, preempts, and delivers signals before `thread`
/// goes back to user mode. An exited thread leaves the CPU here, once the
/// last reference on this stack is dropped.
#[inline(always)]
fn return_to_user(thread: alloc::sync::Arc<crate::process::Thread>, frame: &mut TrapFrame) {
    // The common case, nothing to do, is decided by three loads: the
    // CPU's work byte (reschedule, tick, finished thread), the global
    // conditions (console input, O_ASYNC signals, memory, a frozen
    // cgroup: bits of one word, kevlar_platform::attention) and the
    // thread's return work (signals, a restart, a saved mask, its exit,
    // its affinity: one word, `Thread::has_return_work`). The slow path
    // below does each step as before.
    if !scheduler::cpu_has_work() && !kevlar_platform::attention::any() && !thread.has_return_work() {
        return;
    }
    return_to_user_slow(thread, frame);
}

#[inline(never)]
fn return_to_user_slow(thread: alloc::sync::Arc<crate::process::Thread>, frame: &mut TrapFrame) {
    scheduler::after_switch();
    crate::timer::run_expired_if_due();
    crate::fs::fasync::run_pending();
    crate::mm::oom::before_user_return(&thread);
    if thread.state() != crate::process::ThreadState::Dead {
        scheduler::preempt_if_needed(&thread);
        if crate::cgroup::freezing() {
            crate::cgroup::before_user_return(&thread);
        }
        let interrupted = thread.take_interrupted_syscall();
        let saved = thread.take_saved_sigmask();
        // Delivery also decides whether an interrupted system call runs
        // again: that must happen before a handler's frame saves the
        // registers. The common case (nothing at all) is decided here,
        // without the call.
        if saved.is_some() || interrupted.is_some() || thread.signal_hint.load(core::sync::atomic::Ordering::Acquire) {
            signal::deliver_pending(&thread, frame, saved, interrupted);
        }
    }
    let dead = thread.state() == crate::process::ThreadState::Dead;
    if !dead && !thread.allowed_on(kevlar_platform::smp::cpu_index()) {
        // Still on a CPU its affinity excludes (the change raced with
        // this return, or preemption was not possible): look again next
        // time.
        thread.signal_hint.store(true, core::sync::atomic::Ordering::Release);
    }
    drop(thread);
    if dead {
        scheduler::exit_dead_thread();
    }
}
