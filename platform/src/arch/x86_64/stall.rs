//! Where each CPU is when the kernel cannot print its state dump.
//!
//! Ctrl-] on the serial line asks for the state dump (every process, its
//! state and system call, the run queues), which the kernel prints in
//! process context: on the way back to user mode or in the idle loop.
//! A kernel stuck in a loop, or spinning on a lock the dump itself needs,
//! never prints it, and a hang then leaves no evidence. So the request is
//! timed: if it is not done [`STALL_NS`] after Ctrl-], each CPU's next
//! timer interrupt prints, once per request, where it interrupted that
//! CPU, with a backtrace when that was kernel code. Locks are held with
//! interrupts on (only `IrqSpinLock` turns them off), so a CPU spinning
//! on one still takes its timer interrupt.

use core::fmt::{self, Write};
use core::sync::atomic::{AtomicU64, Ordering};

use super::percpu::{self, MAX_CPUS};
use super::trap::TrapFrame;

/// How long the dump may take before the CPUs report where they are.
const STALL_NS: u64 = 3_000_000_000;

/// When the pending (or running) dump was asked for; 0 when none is.
static REQUESTED_NS: AtomicU64 = AtomicU64::new(0);
/// Counts requests, so each CPU reports once per request.
static REQUESTS: AtomicU64 = AtomicU64::new(0);
static REPORTED: [AtomicU64; MAX_CPUS] = [const { AtomicU64::new(0) }; MAX_CPUS];

/// Ctrl-] arrived (the serial interrupt).
pub(crate) fn dump_requested() {
    REQUESTS.fetch_add(1, Ordering::AcqRel);
    let now = super::time::monotonic_ns().max(1);
    let _ = REQUESTED_NS.compare_exchange(0, now, Ordering::AcqRel, Ordering::Acquire);
}

/// The kernel printed the whole dump.
pub fn dump_done() {
    REQUESTED_NS.store(0, Ordering::Release);
}

struct Out;

impl Write for Out {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        crate::console::print_fmt_unlocked(format_args!("{}", s));
        Ok(())
    }
}

/// From the timer interrupt: reports this CPU if a dump is overdue.
pub(crate) fn check(frame: &TrapFrame) {
    let at = REQUESTED_NS.load(Ordering::Acquire);
    if at == 0 {
        return;
    }
    let now = super::time::monotonic_ns();
    if now.saturating_sub(at) < STALL_NS {
        return;
    }
    let request = REQUESTS.load(Ordering::Acquire);
    let cpu = percpu::cpu_index();
    if cpu >= MAX_CPUS || REPORTED[cpu].swap(request, Ordering::AcqRel) == request {
        return;
    }
    // Unlocked: the console's lock may be what some CPU is stuck behind.
    let mut out = Out;
    let mode = if frame.from_user() { "user" } else { "kernel" };
    let _ = writeln!(out, "--- cpu{}: no state dump {} ms after Ctrl-]; interrupted in {} mode at {:#018x}",
                     cpu, (now - at) / 1_000_000, mode, frame.rip);
    if !frame.from_user() {
        crate::backtrace::write_backtrace(&mut out, frame.rip, frame.rbp);
    }
}
