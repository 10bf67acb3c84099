//! The debug registers DR0-DR3, DR6 and DR7, for a debugger's hardware
//! breakpoints and watchpoints in user code.
//!
//! A task carries the values its tracer chose ([`DebugRegs`]); a context
//! switch loads them only when the task entering has a breakpoint enabled
//! (DR7 non-zero) and switches them off when the CPU had some live and the
//! next task has none, so untraced tasks cost one load per switch. DR6
//! is read and reset by the #DB handler, which hands it to the kernel.

use core::arch::asm;
use core::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use super::percpu;

/// DR6 as the CPU resets it (no condition recorded; reserved bits set).
pub const DR6_RESET: u64 = 0xffff_0ff0;
/// DR6's single-step bit (BS).
pub const DR6_STEP: u64 = 1 << 14;
/// DR6's bits telling which of DR0-DR3 matched.
pub const DR6_TRAP_BITS: u64 = 0xf;
/// RFLAGS.RF: the instruction at RIP runs once without an instruction
/// breakpoint faulting again.
const RFLAGS_RF: u64 = 1 << 16;

/// Whether this CPU's DR7 holds a task's breakpoints.
static LIVE: [AtomicBool; percpu::MAX_CPUS] = [const { AtomicBool::new(false) }; percpu::MAX_CPUS];

/// The debug registers of one task: DR0-DR3 and the DR7 that enables them
/// (0: none, nothing is loaded for the task).
pub struct DebugRegs {
    addr: [AtomicU64; 4],
    dr7: AtomicU64,
}

impl DebugRegs {
    pub(crate) const fn new() -> Self {
        Self { addr: [const { AtomicU64::new(0) }; 4], dr7: AtomicU64::new(0) }
    }

    /// Sets the values; they take effect the next time the task is
    /// switched in (a debugger changes them while its tracee is stopped).
    /// `dr7` must only enable breakpoints on user addresses with valid
    /// lengths and types (the kernel's ptrace checks them, as Linux's);
    /// the general-detect, reserved and TSX bits are dropped here.
    pub(crate) fn set(&self, addr: [u64; 4], dr7: u64) {
        for (slot, a) in self.addr.iter().zip(addr) {
            slot.store(a, Ordering::Relaxed);
        }
        // Keep L0-3/G0-3, LE/GE and the R/W and LEN fields only.
        self.dr7.store(dr7 & 0xffff_03ff, Ordering::Release);
    }
}

/// The user address limit: no breakpoint may watch the kernel.
const USER_END: u64 = 0x7fff_ffff_f000;

/// Loads `next`'s breakpoints on this CPU, or switches the previous
/// task's off. Runs in the context switch with interrupts off.
pub(crate) fn switch_to(next: &DebugRegs) {
    let live = &LIVE[percpu::cpu_index()];
    let dr7 = next.dr7.load(Ordering::Acquire);
    if dr7 != 0 {
        let addr = next.addr.each_ref().map(|a| a.load(Ordering::Relaxed));
        // SAFETY: DR0-DR3 take any value; an address outside user space is
        // replaced by 0 so no breakpoint ever matches a kernel access the
        // kernel did not ask for. DR7 enables only user breakpoints with
        // fields masked to architectural ones (`DebugRegs::set`), so it
        // cannot fault. Interrupts are off (context switch).
        unsafe {
            let a = addr.map(|a| if a < USER_END { a } else { 0 });
            asm!("mov dr7, {}", in(reg) 0u64, options(nostack, nomem));
            asm!("mov dr0, {}", in(reg) a[0], options(nostack, nomem));
            asm!("mov dr1, {}", in(reg) a[1], options(nostack, nomem));
            asm!("mov dr2, {}", in(reg) a[2], options(nostack, nomem));
            asm!("mov dr3, {}", in(reg) a[3], options(nostack, nomem));
            asm!("mov dr7, {}", in(reg) dr7, options(nostack, nomem));
        }
        live.store(true, Ordering::Relaxed);
    } else if live.load(Ordering::Relaxed) {
        // SAFETY: writing 0 to DR7 disables every breakpoint.
        unsafe { asm!("mov dr7, {}", in(reg) 0u64, options(nostack, nomem)) };
        live.store(false, Ordering::Relaxed);
    }
}

/// Reads DR6 and resets it (its condition bits are sticky), at a #DB.
pub(crate) fn take_dr6() -> u64 {
    let dr6: u64;
    // SAFETY: reading and writing DR6 only affects the debug status.
    unsafe {
        asm!("mov {}, dr6", out(reg) dr6, options(nostack, nomem));
        asm!("mov dr6, {}", in(reg) DR6_RESET, options(nostack, nomem));
    }
    dr6
}

fn read_dr7() -> u64 {
    let dr7: u64;
    // SAFETY: reading DR7 has no side effect.
    unsafe { asm!("mov {}, dr7", out(reg) dr7, options(nostack, nomem)) };
    dr7
}

/// A #DB from user mode: returns DR6. An instruction breakpoint is a
/// fault (RIP still at the instruction): RF lets it run once on return.
pub(crate) fn user_debug_trap(frame: &mut super::trap::TrapFrame) -> u64 {
    let dr6 = take_dr6();
    let dr7 = read_dr7();
    for i in 0..4 {
        let enabled = (dr7 >> (2 * i)) & 3 != 0;
        let execute = (dr7 >> (16 + 4 * i)) & 3 == 0;
        if dr6 & (1 << i) != 0 && enabled && execute {
            frame.rflags |= RFLAGS_RF;
        }
    }
    dr6
}

/// A #DB in kernel mode: a data breakpoint a tracer set on user memory
/// matched while the kernel copied it (Linux records it for the tracer and
/// sends nothing; here it is dropped). Returns whether it was one.
pub(crate) fn kernel_debug_trap() -> bool {
    take_dr6() & DR6_TRAP_BITS != 0
}
