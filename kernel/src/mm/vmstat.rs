//! Event counters of the memory system, as Linux's `/proc/vmstat` shows
//! them (page faults, data read and written by block devices, OOM kills).
//!
//! Each CPU counts in its own cache line, so counting a page fault costs a
//! relaxed add with no line shared between CPUs; readers add the CPUs up.

use core::sync::atomic::{AtomicU64, Ordering};
use kevlar_platform::smp::{cpu_index, MAX_CPUS};

/// The events counted.
#[derive(Clone, Copy)]
pub enum Event {
    /// A page fault taken from user mode (`pgfault`).
    PageFault,
    /// KiB read from block devices (`pgpgin`).
    KibIn,
    /// KiB written to block devices (`pgpgout`).
    KibOut,
    /// A process ended by the OOM killer (`oom_kill`).
    OomKill,
}

const EVENTS: usize = 4;

#[repr(align(64))]
struct CpuCounters([AtomicU64; EVENTS]);

static COUNTERS: [CpuCounters; MAX_CPUS] = [const { CpuCounters([const { AtomicU64::new(0) }; EVENTS]) }; MAX_CPUS];

/// Counts `n` occurrences of `event` on this CPU.
#[inline]
pub fn count(event: Event, n: u64) {
    let cpu = cpu_index().min(MAX_CPUS - 1);
    COUNTERS[cpu].0[event as usize].fetch_add(n, Ordering::Relaxed);
}

/// The total of `event` over every CPU.
pub fn total(event: Event) -> u64 {
    COUNTERS.iter().map(|c| c.0[event as usize].load(Ordering::Relaxed)).sum()
}
