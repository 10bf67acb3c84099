//! Spin locks that are correct on several CPUs.
//!
//! Two kinds, chosen by where a lock is taken:
//! - [`SpinLock`] never touches the interrupt flag. Most kernel data (fd
//!   tables, VMAs, the page-frame allocator) is never touched from an
//!   interrupt handler, and a `pushf; cli; ...; popf` pair on every
//!   acquisition is pure cost there. In debug builds taking one from an
//!   interrupt handler is caught.
//! - [`IrqSpinLock`] disables interrupts on the local CPU while held, for
//!   data an interrupt handler also takes (the serial input buffer, timer
//!   queues). Without it, an interrupt arriving while the lock is held on the
//!   same CPU would spin forever.

mod cpu_slot;
mod spin;

pub use cpu_slot::CpuSlot;
pub use spin::{IrqSpinLock, IrqSpinLockGuard, SpinLock, SpinLockGuard};
