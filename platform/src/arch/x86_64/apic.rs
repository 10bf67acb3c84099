//! The local APIC (xAPIC through MMIO, or x2APIC through MSRs when the CPU
//! has it), its timer, and inter-processor interrupts.

use core::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};

use x86_64::registers::model_specific::Msr;

use super::cpu::{self, Features};
use super::trap::vectors;
use crate::mm::addr::PhysAddr;

const IA32_APIC_BASE: u32 = 0x1b;
const IA32_TSC_DEADLINE: u32 = 0x6e0;
const APIC_BASE_ENABLE: u64 = 1 << 11;
const APIC_BASE_X2APIC: u64 = 1 << 10;

const REG_ID: u32 = 0x20;
const REG_TPR: u32 = 0x80;
const REG_EOI: u32 = 0xb0;
const REG_SVR: u32 = 0xf0;
const REG_ICR_LOW: u32 = 0x300;
const REG_ICR_HIGH: u32 = 0x310;
const REG_LVT_TIMER: u32 = 0x320;
const REG_TIMER_INITIAL: u32 = 0x380;
const REG_TIMER_CURRENT: u32 = 0x390;
const REG_TIMER_DIVIDE: u32 = 0x3e0;

const LVT_MASKED: u32 = 1 << 16;
const TIMER_PERIODIC: u32 = 1 << 17;
const TIMER_TSC_DEADLINE: u32 = 2 << 17;

static X2APIC: AtomicBool = AtomicBool::new(false);
static MMIO_BASE: AtomicU64 = AtomicU64::new(0);
/// Local APIC timer ticks (divide-by-16) per millisecond.
static TIMER_TICKS_PER_MS: AtomicU32 = AtomicU32::new(0);
static USE_TSC_DEADLINE: AtomicBool = AtomicBool::new(false);
/// TSC cycles per timer period in TSC-deadline mode.
static DEADLINE_PERIOD: AtomicU64 = AtomicU64::new(0);

fn read(reg: u32) -> u32 {
    if X2APIC.load(Ordering::Relaxed) {
        // SAFETY: x2APIC registers are MSRs 0x800 + reg/16; reading them has
        // no side effects.
        unsafe { Msr::new(0x800 + (reg >> 4)).read() as u32 }
    } else {
        let addr = MMIO_BASE.load(Ordering::Relaxed) as usize + reg as usize;
        // SAFETY: the APIC page is mapped uncached in the direct map; `reg` is
        // one of the register offsets above.
        unsafe { core::ptr::read_volatile(addr as *const u32) }
    }
}

fn write(reg: u32, value: u32) {
    if X2APIC.load(Ordering::Relaxed) {
        // SAFETY: as in `read`; only the platform programs the APIC.
        unsafe { Msr::new(0x800 + (reg >> 4)).write(value as u64) };
    } else {
        let addr = MMIO_BASE.load(Ordering::Relaxed) as usize + reg as usize;
        // SAFETY: as in `read`.
        unsafe { core::ptr::write_volatile(addr as *mut u32, value) };
    }
}

/// Chooses xAPIC or x2APIC mode (boot CPU, once) from the CPU features
/// and the MADT's APIC address.
pub(crate) fn init_global(features: Features, mmio_paddr: u64) {
    X2APIC.store(features.contains(Features::X2APIC), Ordering::Relaxed);
    MMIO_BASE.store(PhysAddr::new(mmio_paddr).direct_map() as u64, Ordering::Relaxed);
    USE_TSC_DEADLINE.store(features.contains(Features::TSC_DEADLINE), Ordering::Relaxed);
}

/// Enables this CPU's local APIC, accepting all interrupt priorities.
pub(crate) fn init_local() {
    // SAFETY: enabling the APIC (and x2APIC mode when chosen) only changes
    // how this CPU receives interrupts; all vectors have IDT entries.
    unsafe {
        let mut base = Msr::new(IA32_APIC_BASE);
        let mut value = base.read() | APIC_BASE_ENABLE;
        if X2APIC.load(Ordering::Relaxed) {
            value |= APIC_BASE_X2APIC;
        }
        base.write(value);
    }
    write(REG_TPR, 0);
    write(REG_SVR, 0x100 | vectors::SPURIOUS as u32);
    write(REG_LVT_TIMER, LVT_MASKED);
}

/// Returns this CPU's local APIC id.
pub fn local_apic_id() -> u32 {
    if X2APIC.load(Ordering::Relaxed) {
        read(REG_ID)
    } else {
        read(REG_ID) >> 24
    }
}

/// Signals the end of the current interrupt.
pub(crate) fn end_of_interrupt() {
    write(REG_EOI, 0);
}

fn send_ipi(apic_id: u32, icr_low: u32) {
    if X2APIC.load(Ordering::Relaxed) {
        // SAFETY: the x2APIC ICR is one 64-bit MSR; writing it sends the IPI.
        unsafe { Msr::new(0x830).write(((apic_id as u64) << 32) | icr_low as u64) };
    } else {
        write(REG_ICR_HIGH, apic_id << 24);
        write(REG_ICR_LOW, icr_low);
        // Wait for the delivery-status bit so a second IPI does not overwrite
        // one still being sent.
        while read(REG_ICR_LOW) & (1 << 12) != 0 {
            core::hint::spin_loop();
        }
    }
}

/// Sends INIT (assert) to a CPU: the first step of starting it.
pub(crate) fn send_init(apic_id: u32) {
    send_ipi(apic_id, (5 << 8) | (1 << 14));
}

/// Sends a start-up IPI: the CPU starts in real mode at `page << 12`.
pub(crate) fn send_startup(apic_id: u32, page: u8) {
    send_ipi(apic_id, (6 << 8) | (1 << 14) | page as u32);
}

/// Sends a fixed interrupt with `vector` to a CPU.
pub(crate) fn send_fixed(apic_id: u32, vector: u8) {
    send_ipi(apic_id, (1 << 14) | vector as u32);
}

/// Starts the APIC timer counting down from its maximum, for calibration.
pub(crate) fn calibration_start() {
    if USE_TSC_DEADLINE.load(Ordering::Relaxed) {
        return;
    }
    write(REG_TIMER_DIVIDE, 0b0011); // divide by 16
    write(REG_LVT_TIMER, LVT_MASKED);
    write(REG_TIMER_INITIAL, u32::MAX);
}

/// Returns how far the timer counted since [`calibration_start`] (0 in
/// TSC-deadline mode, where it is not calibrated).
pub(crate) fn calibration_count() -> u64 {
    if USE_TSC_DEADLINE.load(Ordering::Relaxed) {
        return 0;
    }
    (u32::MAX - read(REG_TIMER_CURRENT)) as u64
}

/// Stops the calibration count and records the timer's rate, measured by
/// the caller: `ticks_per_ms` counts (divide-by-16) per millisecond.
pub(crate) fn calibration_finish(ticks_per_ms: u64) {
    if USE_TSC_DEADLINE.load(Ordering::Relaxed) {
        return;
    }
    write(REG_TIMER_INITIAL, 0);
    TIMER_TICKS_PER_MS.store(ticks_per_ms.clamp(1, u32::MAX as u64) as u32, Ordering::Relaxed);
}

/// Starts this CPU's periodic tick at `hz` interrupts a second.
pub(crate) fn start_timer(hz: u32, tsc_hz: u64) {
    if USE_TSC_DEADLINE.load(Ordering::Relaxed) {
        let period = tsc_hz / hz as u64;
        DEADLINE_PERIOD.store(period, Ordering::Relaxed);
        write(REG_LVT_TIMER, TIMER_TSC_DEADLINE | vectors::TIMER as u32);
        arm_deadline(period);
    } else {
        let per_ms = TIMER_TICKS_PER_MS.load(Ordering::Relaxed);
        let count = (per_ms as u64 * 1000 / hz as u64).max(1) as u32;
        write(REG_TIMER_DIVIDE, 0b0011);
        write(REG_LVT_TIMER, TIMER_PERIODIC | vectors::TIMER as u32);
        write(REG_TIMER_INITIAL, count);
    }
}

fn arm_deadline(period: u64) {
    // SAFETY: writing the deadline MSR only schedules a timer interrupt.
    unsafe { Msr::new(IA32_TSC_DEADLINE).write(cpu::rdtsc() + period) };
}

/// Re-arms the TSC-deadline timer after a tick (periodic mode reloads
/// itself).
pub(crate) fn on_timer_tick() {
    if USE_TSC_DEADLINE.load(Ordering::Relaxed) {
        arm_deadline(DEADLINE_PERIOD.load(Ordering::Relaxed));
    }
}

/// Returns a description of the APIC mode, for the boot log.
pub fn mode_name() -> &'static str {
    match (X2APIC.load(Ordering::Relaxed), USE_TSC_DEADLINE.load(Ordering::Relaxed)) {
        (true, true) => "x2APIC, TSC-deadline timer",
        (true, false) => "x2APIC, one-shot/periodic timer",
        (false, true) => "xAPIC, TSC-deadline timer",
        (false, false) => "xAPIC, periodic timer",
    }
}
