//! Work to look at before returning to user mode, as one word.
//!
//! Every return to user mode asks whether some global condition needs
//! the slow path: console input or a dump request, kernel stacks to
//! free, memory pressure, a requested out-of-memory kill, O_ASYNC
//! signals to send, a frozen cgroup. Each condition is one bit of
//! [`WORD`] (a [`Flag`]), so the fast path is one load and one branch
//! ([`any`]) instead of one per condition. The flags keep their meaning:
//! each is set, read and taken (read and cleared) on its own.

use core::sync::atomic::{AtomicU32, Ordering};

static WORD: AtomicU32 = AtomicU32::new(0);

/// Console input arrived (serial).
pub const SERIAL_INPUT: u32 = 1 << 0;
/// Ctrl-] asked for a state dump (serial).
pub const SERIAL_DUMP: u32 = 1 << 1;
/// Kernel stacks wait to be unmapped (mm::stacks).
pub const STACKS_EXCESS: u32 = 1 << 2;
/// A kernel allocation dipped into the reserve (mm::pmm).
pub const MEMORY_PRESSURE: u32 = 1 << 3;
/// The out-of-memory killer was asked for (the kernel's mm::oom).
pub const OOM_REQUESTED: u32 = 1 << 4;
/// O_ASYNC wake-ups to turn into signals (the kernel's fs::fasync).
pub const FASYNC_PENDING: u32 = 1 << 5;
/// Some cgroup is frozen (the kernel's cgroup freezer).
pub const FREEZING: u32 = 1 << 6;

/// Whether any condition is set: the fast path's one check.
#[inline(always)]
pub fn any() -> bool {
    WORD.load(Ordering::Relaxed) != 0
}

/// One condition: a bit of the word.
pub struct Flag(u32);

impl Flag {
    /// The condition of bit `bit` (one of the constants above).
    pub const fn new(bit: u32) -> Flag {
        Flag(bit)
    }

    /// Sets the condition.
    #[inline]
    pub fn set(&self) {
        WORD.fetch_or(self.0, Ordering::AcqRel);
    }

    /// Clears the condition.
    #[inline]
    pub fn clear(&self) {
        WORD.fetch_and(!self.0, Ordering::AcqRel);
    }

    /// Whether the condition is set.
    #[inline]
    pub fn get(&self) -> bool {
        WORD.load(Ordering::Acquire) & self.0 != 0
    }

    /// Returns and clears the condition (a plain load first: most
    /// callers look on every return to user mode).
    #[inline]
    pub fn take(&self) -> bool {
        self.get() && WORD.fetch_and(!self.0, Ordering::AcqRel) & self.0 != 0
    }
}
