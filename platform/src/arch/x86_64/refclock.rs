//! Reference counters the TSC is measured against: the HPET's main counter,
//! the ACPI power-management timer and, last, PIT channel 2. Each is read
//! as a free-running up-counter of `bits` bits at a known rate.
//!
//! Under QEMU all three count the virtual clock (host time without icount,
//! executed instructions with it), as the TSC does, so the ratio of their
//! rates is exact whatever the host is doing; what the host's scheduling
//! spoils is only *when* a read happens, which `time.rs` brackets with TSC
//! reads.

use super::io::{inb, inl, outb};
use crate::mm::addr::PhysAddr;

/// Which counter, and where it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Source {
    /// The HPET's main counter; `regs` is the register block's direct-map
    /// address.
    Hpet { regs: usize },
    /// The ACPI PM timer at this I/O port.
    PmTimer { port: u16 },
    /// PIT channel 2, counting down in mode 2 (rate generator) from 65536.
    Pit,
}

/// A counter, its rate and its width.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RefCounter {
    pub(crate) source: Source,
    /// Counts per second.
    pub(crate) hz: u64,
    /// `2^bits - 1`: the counter wraps to 0 after this value.
    pub(crate) mask: u64,
}

const HPET_CAPABILITIES: usize = 0x000;
const HPET_CONFIG: usize = 0x010;
const HPET_MAIN_COUNTER: usize = 0x0f0;
const HPET_CONFIG_ENABLE: u64 = 1 << 0;
const HPET_COUNT_SIZE_64: u64 = 1 << 13;
/// The HPET specification's longest period: 100 ns (in femtoseconds).
const HPET_MAX_PERIOD_FS: u64 = 100_000_000;

const PM_TIMER_HZ: u64 = 3_579_545;
const PIT_HZ: u64 = 1_193_182;

fn hpet_read(regs: usize, offset: usize) -> u64 {
    // SAFETY: `regs` is the HPET register block from the ACPI HPET table,
    // below 4 GiB and mapped uncached in the direct map (device memory);
    // `offset` is one of the 64-bit registers above, 8-byte aligned.
    unsafe { core::ptr::read_volatile((regs + offset) as *const u64) }
}

fn hpet_write(regs: usize, offset: usize, value: u64) {
    // SAFETY: as in `hpet_read`; only the general configuration register is
    // written, and only to start the main counter (no comparator is armed,
    // legacy replacement routing is left as it is).
    unsafe { core::ptr::write_volatile((regs + offset) as *mut u64, value) };
}

impl RefCounter {
    /// The HPET whose registers are at physical address `paddr`, started if
    /// it was halted; `None` if its period is out of the specification's
    /// range or the counter does not move.
    pub(crate) fn hpet(paddr: u64) -> Option<Self> {
        if paddr == 0 || paddr >= 4 << 30 || paddr % 1024 != 0 {
            return None;
        }
        let regs = PhysAddr::new(paddr).direct_map();
        let caps = hpet_read(regs, HPET_CAPABILITIES);
        let period_fs = caps >> 32;
        if period_fs == 0 || period_fs > HPET_MAX_PERIOD_FS {
            return None;
        }
        let config = hpet_read(regs, HPET_CONFIG);
        if config & HPET_CONFIG_ENABLE == 0 {
            hpet_write(regs, HPET_CONFIG, config | HPET_CONFIG_ENABLE);
        }
        let mask = if caps & HPET_COUNT_SIZE_64 != 0 { u64::MAX } else { u32::MAX as u64 };
        let counter = RefCounter { source: Source::Hpet { regs }, hz: 1_000_000_000_000_000 / period_fs, mask };
        counter.moves().then_some(counter)
    }

    /// The ACPI PM timer at `port` (24 or 32 bits wide); `None` if it does
    /// not move.
    pub(crate) fn pm_timer(port: u32, bits32: bool) -> Option<Self> {
        let port = u16::try_from(port).ok().filter(|&p| p != 0)?;
        let mask = if bits32 { u32::MAX as u64 } else { 0xff_ffff };
        let counter = RefCounter { source: Source::PmTimer { port }, hz: PM_TIMER_HZ, mask };
        counter.moves().then_some(counter)
    }

    /// PIT channel 2, set counting (speaker off); `None` if it does not
    /// move.
    pub(crate) fn pit() -> Option<Self> {
        // Gate channel 2 on, speaker data off; channel 2, low then high
        // byte, mode 2 (rate generator), binary; reload value 0 = 65536.
        outb(0x61, (inb(0x61) & !0x02) | 0x01);
        outb(0x43, 0b1011_0100);
        outb(0x42, 0);
        outb(0x42, 0);
        let counter = RefCounter { source: Source::Pit, hz: PIT_HZ, mask: 0xffff };
        counter.moves().then_some(counter)
    }

    /// Reads the counter (`0..=mask`, counting up).
    pub(crate) fn read(&self) -> u64 {
        match self.source {
            Source::Hpet { regs } => hpet_read(regs, HPET_MAIN_COUNTER) & self.mask,
            Source::PmTimer { port } => inl(port) as u64 & self.mask,
            Source::Pit => {
                // Latch channel 2's count, then read it low byte first.
                outb(0x43, 0b1000_0000);
                let low = inb(0x42) as u64;
                let high = inb(0x42) as u64;
                0x1_0000u64.wrapping_sub((high << 8) | low) & self.mask
            }
        }
    }

    /// Counts from `earlier` to `later` (two readings less than one wrap
    /// apart).
    pub(crate) fn delta(&self, earlier: u64, later: u64) -> u64 {
        later.wrapping_sub(earlier) & self.mask
    }

    /// A short name for the boot log.
    pub(crate) fn name(&self) -> &'static str {
        match self.source {
            Source::Hpet { .. } => "HPET",
            Source::PmTimer { .. } => "ACPI PM timer",
            Source::Pit => "PIT",
        }
    }

    /// Whether the counter advances within a bounded number of reads.
    fn moves(&self) -> bool {
        let first = self.read();
        (0..100_000).any(|_| self.read() != first)
    }
}
