//! Time: the TSC calibrated against the PIT, the monotonic clock, the
//! periodic tick, and the wall clock read from the CMOS RTC at boot.

use core::sync::atomic::{AtomicU64, Ordering};

use super::io::{inb, outb};
use super::{apic, cpu};

/// Periodic timer interrupts per second on each CPU.
pub const TICK_HZ: u32 = 100;

const PIT_HZ: u64 = 1_193_182;
/// PIT counts in the calibration window (1 ms): short, because boot time
/// counts, yet over a thousand PIT periods, so the error stays below 0.1%.
const CALIBRATION_PIT_COUNT: u64 = 1_193;

static TSC_HZ: AtomicU64 = AtomicU64::new(0);
/// TSC at the kernel's first instruction: the origin of the monotonic clock.
static TSC_ORIGIN: AtomicU64 = AtomicU64::new(0);
/// Nanoseconds per TSC cycle as a 32.32 fixed-point number.
static NS_PER_CYCLE_FP: AtomicU64 = AtomicU64::new(0);
/// Wall-clock time (ns since the Unix epoch) at the monotonic origin.
static WALL_AT_ORIGIN_NS: AtomicU64 = AtomicU64::new(0);

/// Sets the clock's origin (the TSC the boot code read at entry).
pub(crate) fn set_origin(tsc: u64) {
    TSC_ORIGIN.store(tsc, Ordering::Relaxed);
}

/// Measures the TSC frequency, and the local APIC timer's rate in the same
/// window, with PIT channel 2.
pub(crate) fn calibrate_tsc() -> u64 {
    // Gate channel 2 on, speaker off; mode 0 (interrupt on terminal count),
    // binary, low then high byte. OUT2 (port 0x61 bit 5) rises when the
    // count runs out.
    outb(0x61, (inb(0x61) & !0x02) | 0x01);
    outb(0x43, 0b1011_0000);
    outb(0x42, (CALIBRATION_PIT_COUNT & 0xff) as u8);
    outb(0x42, (CALIBRATION_PIT_COUNT >> 8) as u8);
    apic::calibration_start();
    let start = cpu::rdtsc();
    while inb(0x61) & 0x20 == 0 {
        core::hint::spin_loop();
    }
    let cycles = cpu::rdtsc() - start;
    apic::calibration_finish(CALIBRATION_PIT_COUNT * 1_000_000 / PIT_HZ);
    let hz = cycles * PIT_HZ / CALIBRATION_PIT_COUNT;
    TSC_HZ.store(hz, Ordering::Relaxed);
    NS_PER_CYCLE_FP.store(((1_000_000_000u128 << 32) / hz as u128) as u64, Ordering::Relaxed);
    hz
}

/// Returns the TSC frequency in Hz (0 before calibration).
pub fn tsc_hz() -> u64 {
    TSC_HZ.load(Ordering::Relaxed)
}

/// Converts a TSC reading to nanoseconds since the kernel's first
/// instruction.
pub fn tsc_to_ns(tsc: u64) -> u64 {
    let delta = tsc.saturating_sub(TSC_ORIGIN.load(Ordering::Relaxed));
    ((delta as u128 * NS_PER_CYCLE_FP.load(Ordering::Relaxed) as u128) >> 32) as u64
}

/// Returns nanoseconds since the kernel's first instruction (0 until the
/// TSC is calibrated).
pub fn monotonic_ns() -> u64 {
    tsc_to_ns(cpu::rdtsc())
}

/// Returns the wall-clock time in nanoseconds since the Unix epoch.
pub fn realtime_ns() -> u64 {
    WALL_AT_ORIGIN_NS.load(Ordering::Relaxed).wrapping_add(monotonic_ns())
}

/// Sets the wall clock (clock_settime, settimeofday).
pub fn set_realtime_ns(ns: u64) {
    let wall = ns.wrapping_sub(monotonic_ns());
    WALL_AT_ORIGIN_NS.store(wall, Ordering::Relaxed);
    super::vdso::set_wall_at_origin(wall);
}

/// The clock parameters the vDSO computes with: the TSC origin, ns per
/// cycle (32.32 fixed point) and the wall clock at the origin.
pub(crate) fn vdso_parameters() -> (u64, u64, u64) {
    (
        TSC_ORIGIN.load(Ordering::Relaxed),
        NS_PER_CYCLE_FP.load(Ordering::Relaxed),
        WALL_AT_ORIGIN_NS.load(Ordering::Relaxed),
    )
}

/// Busy-waits for `ns` nanoseconds.
pub fn spin_delay_ns(ns: u64) {
    let end = monotonic_ns() + ns;
    while monotonic_ns() < end {
        core::hint::spin_loop();
    }
}

/// Starts this CPU's periodic tick.
pub(crate) fn start_tick() {
    apic::start_timer(TICK_HZ, tsc_hz());
}

/// Runs on every timer interrupt.
pub(crate) fn on_timer_interrupt() {
    apic::on_timer_tick();
}

/// A calendar date and time, as the RTC keeps it (UTC).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DateTime {
    /// Full year, e.g. 2026.
    pub year: u32,
    /// 1..=12.
    pub month: u32,
    /// 1..=31.
    pub day: u32,
    /// 0..=23.
    pub hour: u32,
    /// 0..=59.
    pub minute: u32,
    /// 0..=59.
    pub second: u32,
}

impl DateTime {
    /// Returns seconds since 1970-01-01 00:00:00 UTC.
    pub fn to_unix_seconds(&self) -> u64 {
        // Days from the civil date, counting years from March so the leap
        // day falls at the end of the year.
        let (y, m) = if self.month <= 2 { (self.year as i64 - 1, self.month + 9) } else { (self.year as i64, self.month - 3) };
        let era = y.div_euclid(400);
        let year_of_era = y - era * 400;
        let day_of_year = (153 * m as i64 + 2) / 5 + self.day as i64 - 1;
        let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
        let days = era * 146_097 + day_of_era - 719_468;
        (days * 86_400 + self.hour as i64 * 3600 + self.minute as i64 * 60 + self.second as i64) as u64
    }
}

fn cmos_read(reg: u8) -> u8 {
    outb(0x70, reg | 0x80); // bit 7 keeps NMIs disabled during the access
    inb(0x71)
}

fn read_rtc_raw(century_index: u8) -> [u8; 8] {
    while cmos_read(0x0a) & 0x80 != 0 {
        core::hint::spin_loop(); // update in progress
    }
    let century = if century_index != 0 { cmos_read(century_index) } else { 0 };
    [cmos_read(0x00), cmos_read(0x02), cmos_read(0x04), cmos_read(0x07), cmos_read(0x08), cmos_read(0x09), century, cmos_read(0x0b)]
}

/// Reads the CMOS real-time clock (UTC) and sets the wall clock from it.
/// `century_index` is the FADT's CMOS century register (0 if none).
pub(crate) fn init_wall_clock(century_index: u8) -> DateTime {
    // Read until two consecutive reads agree, so an update between the
    // register reads cannot tear the value.
    let mut raw = read_rtc_raw(century_index);
    loop {
        let again = read_rtc_raw(century_index);
        if again == raw {
            break;
        }
        raw = again;
    }
    let status_b = raw[7];
    let binary = status_b & 0x04 != 0;
    let decode = |v: u8| if binary { v as u32 } else { ((v >> 4) * 10 + (v & 0x0f)) as u32 };
    let pm = raw[2] & 0x80 != 0;
    let mut hour = decode(raw[2] & 0x7f);
    if status_b & 0x02 == 0 {
        hour %= 12;
        if pm {
            hour += 12;
        }
    }
    let century = if century_index != 0 && raw[6] != 0 { decode(raw[6]) } else { 20 };
    let dt = DateTime {
        year: century * 100 + decode(raw[5]),
        month: decode(raw[4]),
        day: decode(raw[3]),
        hour,
        minute: decode(raw[1]),
        second: decode(raw[0]),
    };
    let now_ns = dt.to_unix_seconds() * 1_000_000_000;
    WALL_AT_ORIGIN_NS.store(now_ns.saturating_sub(monotonic_ns()), Ordering::Relaxed);
    dt
}
