//! The IO-APIC: routes legacy device interrupts to local APIC vectors.

use core::sync::atomic::{AtomicU64, AtomicU32, Ordering};

use super::io::outb;
use crate::mm::addr::PhysAddr;

static BASE: AtomicU64 = AtomicU64::new(0);
static GSI_BASE: AtomicU32 = AtomicU32::new(0);

const IOREGSEL: usize = 0x00;
const IOWIN: usize = 0x10;
const REG_VERSION: u32 = 0x01;

fn read(reg: u32) -> u32 {
    let base = BASE.load(Ordering::Relaxed) as usize;
    // SAFETY: the IO-APIC window is mapped uncached in the direct map; the
    // select/data pair is only used under the boot CPU during setup.
    unsafe {
        core::ptr::write_volatile((base + IOREGSEL) as *mut u32, reg);
        core::ptr::read_volatile((base + IOWIN) as *const u32)
    }
}

fn write(reg: u32, value: u32) {
    let base = BASE.load(Ordering::Relaxed) as usize;
    // SAFETY: as in `read`.
    unsafe {
        core::ptr::write_volatile((base + IOREGSEL) as *mut u32, reg);
        core::ptr::write_volatile((base + IOWIN) as *mut u32, value);
    }
}

/// Masks the legacy 8259 PICs (after moving their vectors out of the
/// exception range, so a spurious PIC interrupt cannot pose as a fault) and
/// masks every IO-APIC input.
pub(crate) fn init(paddr: u32, gsi_base: u32) {
    for (port, value) in [(0x20, 0x11), (0xa0, 0x11), (0x21, 0x30), (0xa1, 0x38), (0x21, 4), (0xa1, 2), (0x21, 1), (0xa1, 1), (0x21, 0xff), (0xa1, 0xff)] {
        outb(port, value);
    }
    BASE.store(PhysAddr::new(paddr as u64).direct_map() as u64, Ordering::Relaxed);
    GSI_BASE.store(gsi_base, Ordering::Relaxed);
    for pin in 0..=max_pin() {
        write(0x10 + 2 * pin, 1 << 16);
    }
}

fn max_pin() -> u32 {
    (read(REG_VERSION) >> 16) & 0xff
}

/// Routes global system interrupt `gsi` to `vector` on the CPU with
/// `apic_id`.
pub(crate) fn route(gsi: u32, vector: u8, apic_id: u32, active_low: bool, level_triggered: bool) {
    let pin = gsi - GSI_BASE.load(Ordering::Relaxed);
    if pin > max_pin() {
        log::warn!("ioapic: GSI {} is not on this IO-APIC", gsi);
        return;
    }
    let low = vector as u32 | (u32::from(active_low) << 13) | (u32::from(level_triggered) << 15);
    write(0x10 + 2 * pin + 1, apic_id << 24);
    write(0x10 + 2 * pin, low);
}
