//! The local CPU's interrupt flag.

use core::arch::asm;

/// Returns whether interrupts are enabled on this CPU.
#[inline]
pub fn are_enabled() -> bool {
    let flags: u64;
    // SAFETY: reading RFLAGS has no side effects.
    unsafe { asm!("pushfq; pop {}", out(reg) flags, options(nomem, preserves_flags)) };
    flags & (1 << 9) != 0
}

/// Disables interrupts and returns whether they were enabled before.
#[inline]
pub fn save_and_disable() -> bool {
    let enabled = are_enabled();
    if enabled {
        disable();
    }
    enabled
}

/// Re-enables interrupts if `were_enabled` says they were on.
#[inline]
pub fn restore(were_enabled: bool) {
    if were_enabled {
        enable();
    }
}

/// Enables interrupts on this CPU.
#[inline]
pub fn enable() {
    // SAFETY: every interrupt vector has a handler once the IDT is loaded,
    // which happens before anything calls this.
    unsafe { asm!("sti", options(nomem, nostack)) };
}

/// Disables interrupts on this CPU.
#[inline]
pub fn disable() {
    // SAFETY: masking interrupts cannot break memory safety.
    unsafe { asm!("cli", options(nomem, nostack)) };
}

/// Enables interrupts and halts until the next one, atomically: an interrupt
/// that arrives between the two cannot be missed (STI's one-instruction
/// shadow covers the HLT).
#[inline]
pub fn enable_and_halt() {
    // SAFETY: as for `enable`.
    unsafe { asm!("sti; hlt", options(nomem, nostack)) };
}

/// Halts until the next interrupt, leaving the interrupt flag as it is.
#[inline]
pub fn halt() {
    // SAFETY: HLT only waits.
    unsafe { asm!("hlt", options(nomem, nostack)) };
}
