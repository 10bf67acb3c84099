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

/// How fine disk file systems' timestamps are: Linux's `current_time()`
/// reads the coarse clock, which moves once a jiffy (4 ms with the
/// HZ=250 of Debian's kernel), so a file written many times within one
/// tick keeps one mtime and its inode is dirtied once, not at every write.
pub const COARSE_NS: u64 = 4_000_000;

/// The wall-clock time at the start of the current coarse tick.
pub fn coarse_now() -> Timespec {
    let ns = kevlar_platform::time::realtime_ns();
    let ns = ns - ns % COARSE_NS;
    Timespec::new((ns / 1_000_000_000) as i64, (ns % 1_000_000_000) as u32)
}

/// The clock handed to disk file systems: [`coarse_now`], as Linux's
/// ext4 stamps files.
pub struct CoarseClock;

impl Clock for CoarseClock {
    fn now(&self) -> Timespec {
        coarse_now()
    }
}
