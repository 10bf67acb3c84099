//! The wall clock as file timestamps see it.

use kevlar_vfs::{Clock, Timespec};

/// Returns the current wall-clock time.
pub fn now() -> Timespec {
    let ns = kevlar_platform::time::realtime_ns();
    Timespec::new((ns / 1_000_000_000) as i64, (ns % 1_000_000_000) as u32)
}

/// The clock handed to filesystems.
pub struct KernelClock;

impl Clock for KernelClock {
    fn now(&self) -> Timespec {
        now()
    }
}
