//! Time: the TSC's rate, the monotonic clock it drives, the periodic tick,
//! and the wall clock read from the CMOS RTC at boot.
//!
//! The TSC rate comes from CPUID (leaf 0x15, 0x16, or a hypervisor's
//! 0x40000010) when it is there and agrees with a measurement, else from a
//! measurement against a reference counter (the HPET, else the ACPI PM
//! timer, else the PIT: `refclock.rs`). A measurement brackets each
//! reference read between two TSC reads and keeps the narrowest of a few
//! tries, so a host that deschedules the virtual CPU between two
//! instructions (QEMU TCG on a busy machine) costs no accuracy: both
//! counters keep counting real time, only the moment of reading moves, and
//! the bracket says when it was. Three 0.3 ms windows give three rates; the
//! median, or the whole span when it agrees with the median within 0.1%,
//! is kept.
//!
//! After boot the boot CPU re-reads the reference counter about once a
//! second and steers the clock to it: the rate is re-derived over the whole
//! span since calibration (so its error shrinks as the span grows), and any
//! offset the clock has gathered is slewed away at most 1% per second. The
//! clock never steps backwards. Readers use a sequence lock over the
//! parameters (`base_tsc`, `base_ns`, ns per cycle), and the vDSO reads the
//! same parameters from the vvar page the same way.

use core::sync::atomic::{AtomicU64, Ordering};

use super::io::{inb, outb};
use super::refclock::RefCounter;
use super::{apic, cpu, percpu};
use crate::sync::IrqSpinLock;

/// Periodic timer interrupts per second on each CPU.
pub const TICK_HZ: u32 = 100;

/// Length of one calibration window, in microseconds of the reference.
const WINDOW_US: u64 = 300;
/// Calibration windows (each gives one rate; the median is kept).
const WINDOWS: usize = 3;
/// Bracketed reads per sample; the narrowest bracket wins.
const TRIES: usize = 4;
/// How often the boot CPU steers the clock to the reference.
const STEER_PERIOD_NS: u64 = 1_000_000_000;
/// The largest correction per steering period: 1% (10 ms a second).
const MAX_SLEW_NS: i128 = (STEER_PERIOD_NS / 100) as i128;
/// TSC rates outside this range are not believed (Hz).
const PLAUSIBLE_HZ: core::ops::RangeInclusive<u64> = 100_000_000..=20_000_000_000;

static TSC_HZ: AtomicU64 = AtomicU64::new(0);
/// TSC at the kernel's first instruction: the origin of the monotonic clock.
static TSC_ORIGIN: AtomicU64 = AtomicU64::new(0);
/// The sequence count of the clock parameters: odd while they change.
static SEQ: AtomicU64 = AtomicU64::new(0);
/// The clock reads `BASE_NS` at TSC `BASE_TSC`...
static BASE_TSC: AtomicU64 = AtomicU64::new(0);
static BASE_NS: AtomicU64 = AtomicU64::new(0);
/// ... and advances this many nanoseconds per TSC cycle (32.32 fixed point).
static NS_PER_CYCLE_FP: AtomicU64 = AtomicU64::new(0);
/// Wall-clock time (ns since the Unix epoch) at the monotonic origin.
static WALL_AT_ORIGIN_NS: AtomicU64 = AtomicU64::new(0);

/// Where the rate came from, for the boot log and `/proc`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RateSource {
    /// CPUID leaf 0x15 (crystal ratio) or 0x16 (base frequency).
    Cpuid,
    /// The hypervisor's timing leaf 0x40000010.
    HypervisorLeaf,
    /// Measured against the named reference counter.
    Measured(&'static str),
    /// Nothing could be measured: a guess.
    Guess,
}

/// Reference clocks the firmware describes (from the ACPI tables).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ReferenceClocks {
    /// Physical address of the HPET's registers.
    pub hpet: Option<u64>,
    /// The ACPI PM timer's I/O port and whether it is 32 bits wide.
    pub pm_timer: Option<(u32, bool)>,
}

/// One bracketed read of the reference counter.
#[derive(Clone, Copy, Debug)]
struct Sample {
    /// TSC halfway through the bracket.
    tsc: u64,
    /// TSC cycles between the bracket's two reads.
    width: u64,
    /// The reference counter.
    reference: u64,
    /// The APIC timer's count since `apic::calibration_start` (0 when the
    /// APIC timer is not being calibrated).
    apic: u64,
}

fn sample(counter: &RefCounter, with_apic: bool) -> Sample {
    let mut best: Option<Sample> = None;
    for _ in 0..TRIES {
        let before = cpu::rdtsc();
        let reference = counter.read();
        let apic = if with_apic { apic::calibration_count() } else { 0 };
        let after = cpu::rdtsc();
        let width = after.wrapping_sub(before);
        if best.is_none_or(|b| width < b.width) {
            best = Some(Sample { tsc: before + width / 2, width, reference, apic });
        }
    }
    best.expect("TRIES is not zero")
}

/// `a * b / c` without overflow (0 if `c` is 0; saturated at `u64::MAX`).
fn mul_div(a: u64, b: u64, c: u64) -> u64 {
    if c == 0 {
        return 0;
    }
    u64::try_from(a as u128 * b as u128 / c as u128).unwrap_or(u64::MAX)
}

/// The TSC rate CPUID states, if any (Intel's leaves 0x15/0x16, or the
/// hypervisor timing leaf), and which leaf said it.
fn cpuid_tsc_hz() -> Option<(u64, RateSource)> {
    use core::arch::x86_64::__cpuid;
    let max_leaf = __cpuid(0).eax;
    if max_leaf >= 0x15 {
        let l15 = __cpuid(0x15);
        let (denominator, numerator, crystal_hz) = (l15.eax as u64, l15.ebx as u64, l15.ecx as u64);
        if denominator != 0 && numerator != 0 {
            if crystal_hz != 0 {
                return Some((mul_div(crystal_hz, numerator, denominator), RateSource::Cpuid));
            }
            // No crystal frequency: the processor's base frequency is the
            // TSC's (what Linux's native_calibrate_tsc also falls back to).
            if max_leaf >= 0x16 && __cpuid(0x16).eax & 0xffff != 0 {
                return Some(((__cpuid(0x16).eax & 0xffff) as u64 * 1_000_000, RateSource::Cpuid));
            }
        }
    }
    if cpu::features().contains(cpu::Features::HYPERVISOR) {
        let max_hv_leaf = __cpuid(0x4000_0000).eax;
        if (0x4000_0010..0x4001_0000).contains(&max_hv_leaf) {
            let khz = __cpuid(0x4000_0010).eax as u64;
            if khz != 0 {
                return Some((khz * 1000, RateSource::HypervisorLeaf));
            }
        }
    }
    None
}

/// The reference counter chosen at calibration, and the boot CPU's state
/// for steering the clock to it.
struct Steering {
    counter: RefCounter,
    /// The first calibration sample: TSC and the clock's reading there.
    anchor_tsc: u64,
    anchor_ns: u64,
    /// Reference counts from the anchor to the last sample (wraps undone).
    counted: u64,
    last_reference: u64,
    last_tsc: u64,
    /// TSC at which to steer next.
    next_tsc: u64,
}

static STEERING: IrqSpinLock<Option<Steering>> = IrqSpinLock::new(None);

/// Sets the clock's origin (the TSC the boot code read at entry).
pub(crate) fn set_origin(tsc: u64) {
    TSC_ORIGIN.store(tsc, Ordering::Relaxed);
    BASE_TSC.store(tsc, Ordering::Relaxed);
}

/// Replaces the clock parameters with what `make` returns, computed while
/// the sequence count is odd (boot CPU only: calibration and steering are
/// its work, so writers never race).
fn publish(make: impl FnOnce() -> (u64, u64, u64)) {
    SEQ.fetch_add(1, Ordering::AcqRel);
    let (base_tsc, base_ns, ns_per_cycle_fp) = make();
    BASE_TSC.store(base_tsc, Ordering::Relaxed);
    BASE_NS.store(base_ns, Ordering::Relaxed);
    NS_PER_CYCLE_FP.store(ns_per_cycle_fp, Ordering::Relaxed);
    SEQ.fetch_add(1, Ordering::Release);
    super::vdso::sync_clock();
}

/// The parameters as they are now (only the writer, inside `publish`).
fn current_parameters() -> (u64, u64, u64) {
    (BASE_TSC.load(Ordering::Relaxed), BASE_NS.load(Ordering::Relaxed), NS_PER_CYCLE_FP.load(Ordering::Relaxed))
}

/// Reads a consistent set of clock parameters, and the TSC under the same
/// sequence count (so a reading is never computed with parameters older
/// than its TSC).
fn read_clock() -> (u64, (u64, u64, u64)) {
    loop {
        let seq = SEQ.load(Ordering::Acquire);
        if seq & 1 == 0 {
            let params = current_parameters();
            let tsc = cpu::rdtsc();
            core::sync::atomic::fence(Ordering::Acquire);
            if SEQ.load(Ordering::Relaxed) == seq {
                return (tsc, params);
            }
        }
        core::hint::spin_loop();
    }
}

/// Reads a consistent set of clock parameters.
fn parameters() -> (u64, u64, u64) {
    read_clock().1
}

fn ns_at(tsc: u64, (base_tsc, base_ns, fp): (u64, u64, u64)) -> u64 {
    if tsc >= base_tsc {
        base_ns.wrapping_add((((tsc - base_tsc) as u128 * fp as u128) >> 32) as u64)
    } else {
        base_ns.saturating_sub((((base_tsc - tsc) as u128 * fp as u128) >> 32) as u64)
    }
}

fn fixed_point_ns_per_cycle(hz: u64) -> u64 {
    ((1_000_000_000u128 << 32) / hz.max(1) as u128) as u64
}

/// Measures the TSC's rate (and the local APIC timer's, in the same
/// windows) and starts the clock; returns the rate in Hz.
pub(crate) fn calibrate_tsc(clocks: ReferenceClocks) -> u64 {
    let counter = clocks
        .hpet
        .and_then(RefCounter::hpet)
        .or_else(|| clocks.pm_timer.and_then(|(port, wide)| RefCounter::pm_timer(port, wide)))
        .or_else(RefCounter::pit);
    let mut measured = None;
    if let Some(counter) = counter {
        apic::calibration_start();
        let window = mul_div(counter.hz, WINDOW_US, 1_000_000).max(1);
        // The first run of this code is slow under an emulator that
        // translates it (a wide bracket): run it once before it counts.
        sample(&counter, true);
        let mut samples = [sample(&counter, true); WINDOWS + 1];
        for i in 1..=WINDOWS {
            let from = samples[i - 1].reference;
            // Bounded: a counter that stops moving ends the wait after about
            // as many reads as the window has counts (it did move before).
            let mut reads = 0u64;
            while counter.delta(from, counter.read()) < window && reads < 100 * window {
                reads += 1;
                core::hint::spin_loop();
            }
            samples[i] = sample(&counter, true);
        }
        let rate = |a: &Sample, b: &Sample| mul_div(b.tsc.saturating_sub(a.tsc), counter.hz, counter.delta(a.reference, b.reference));
        let mut rates = [0u64; WINDOWS];
        for i in 0..WINDOWS {
            rates[i] = rate(&samples[i], &samples[i + 1]);
        }
        rates.sort_unstable();
        let median = rates[WINDOWS / 2];
        let whole = rate(&samples[0], &samples[WINDOWS]);
        let hz = if whole.abs_diff(median) <= median / 1000 { whole } else { median };
        log::debug!(
            "clock: TSC rates {:?} Hz by window, {} Hz over all, against the {}",
            rates,
            whole,
            counter.name()
        );
        let (first, last) = (&samples[0], &samples[WINDOWS]);
        let counted = counter.delta(first.reference, last.reference);
        apic::calibration_finish(mul_div(last.apic.saturating_sub(first.apic), counter.hz, counted.max(1) * 1000));
        if PLAUSIBLE_HZ.contains(&hz) {
            measured = Some((hz, counter, *first, *last));
        } else {
            log::warn!("clock: the TSC measured {} Hz against the {}", hz, counter.name());
        }
    }
    let stated = cpuid_tsc_hz().filter(|(hz, _)| PLAUSIBLE_HZ.contains(hz));
    let (hz, source) = match (stated, measured) {
        // CPUID is exact when it is right; a hypervisor may pass the host's
        // leaves through unchanged while scaling the TSC, so it must agree
        // with the measurement.
        (Some((stated_hz, source)), Some((hz, ..))) if stated_hz.abs_diff(hz) <= hz / 100 => (stated_hz, source),
        (_, Some((hz, counter, ..))) => (hz, RateSource::Measured(counter.name())),
        (Some((stated_hz, source)), None) => (stated_hz, source),
        (None, None) => (1_000_000_000, RateSource::Guess),
    };
    if source == RateSource::Guess {
        log::warn!("clock: no reference clock and no CPUID rate; assuming a 1 GHz TSC");
    }
    if measured.is_none() {
        // The APIC timer was not measured either: assume a 1 GHz bus.
        apic::calibration_finish(1_000_000 / 16);
    }
    TSC_HZ.store(hz, Ordering::Relaxed);
    *RATE_SOURCE.lock() = source;
    publish(|| (TSC_ORIGIN.load(Ordering::Relaxed), 0, fixed_point_ns_per_cycle(hz)));
    if let Some((_, counter, first, last)) = measured {
        let params = parameters();
        *STEERING.lock() = Some(Steering {
            counter,
            anchor_tsc: first.tsc,
            anchor_ns: ns_at(first.tsc, params),
            counted: counter.delta(first.reference, last.reference),
            last_reference: last.reference,
            last_tsc: last.tsc,
            next_tsc: last.tsc.saturating_add(hz),
        });
    }
    hz
}

static RATE_SOURCE: IrqSpinLock<RateSource> = IrqSpinLock::new(RateSource::Guess);

/// Returns where the TSC rate came from.
pub fn rate_source() -> RateSource {
    *RATE_SOURCE.lock()
}

/// Returns the name of the reference counter the clock is steered to.
pub fn reference_name() -> Option<&'static str> {
    STEERING.lock().as_ref().map(|s| s.counter.name())
}

/// Measures how far the reference counter and the clock advance over about
/// `window_ns` (busy-waiting): `(reference ns, clock ns)`, or `None` when
/// the clock has no reference. For the in-kernel tests.
pub fn measure_against_reference(window_ns: u64) -> Option<(u64, u64)> {
    let counter = STEERING.lock().as_ref().map(|s| s.counter)?;
    let first = sample(&counter, false);
    let window = mul_div(counter.hz, window_ns, 1_000_000_000).max(1);
    let mut reads = 0u64;
    // A 24-bit PM timer wraps after 4.7 s: windows stay far below that.
    while counter.delta(first.reference, counter.read()) < window && reads < 100 * window {
        reads += 1;
        core::hint::spin_loop();
    }
    let last = sample(&counter, false);
    let reference_ns = mul_div(counter.delta(first.reference, last.reference), 1_000_000_000, counter.hz);
    Some((reference_ns, tsc_to_ns(last.tsc).saturating_sub(tsc_to_ns(first.tsc))))
}

/// Steers the clock to the reference counter, about once a second (called
/// on the boot CPU's timer interrupt).
fn steer() {
    let mut guard = STEERING.lock();
    let Some(st) = guard.as_mut() else { return };
    let now = cpu::rdtsc();
    if now < st.next_tsc {
        return;
    }
    let hz = TSC_HZ.load(Ordering::Relaxed);
    let s = sample(&st.counter, false);
    // Counts since the last sample; for a counter that can wrap between
    // two samples (a 24-bit PM timer wraps every 4.7 s, the PIT every
    // 55 ms), the TSC says how many wraps to add.
    let mut delta = st.counter.delta(st.last_reference, s.reference);
    if st.counter.mask != u64::MAX {
        let wrap = st.counter.mask + 1;
        let expected = mul_div(s.tsc.saturating_sub(st.last_tsc), st.counter.hz, hz);
        if expected > delta {
            delta += (expected - delta + wrap / 2) / wrap * wrap;
        }
    }
    st.next_tsc = s.tsc.saturating_add(hz);
    let counted = st.counted + delta;
    let span = s.tsc.saturating_sub(st.anchor_tsc);
    let new_hz = mul_div(span, st.counter.hz, counted);
    if counted == 0 || !(hz / 2..=hz.saturating_mul(2)).contains(&new_hz) || !PLAUSIBLE_HZ.contains(&new_hz) {
        // A reading that makes no sense (a counter reset, a lost wrap):
        // keep the current rate and start counting afresh from here.
        log::warn!("clock: ignoring a {} reading that gives a {} Hz TSC", st.counter.name(), new_hz);
        let params = parameters();
        st.anchor_tsc = s.tsc;
        st.anchor_ns = ns_at(s.tsc, params);
        st.counted = 0;
        st.last_reference = s.reference;
        st.last_tsc = s.tsc;
        return;
    }
    st.counted = counted;
    st.last_reference = s.reference;
    st.last_tsc = s.tsc;
    // Where the clock should be at the sample, and where it is.
    let truth = st.anchor_ns as i128 + mul_div(counted, 1_000_000_000, st.counter.hz) as i128;
    let reading = ns_at(s.tsc, parameters()) as i128;
    let correction = (truth - reading).clamp(-MAX_SLEW_NS, MAX_SLEW_NS);
    // Over the next period (new_hz cycles) advance STEER_PERIOD_NS plus the
    // correction.
    let fp = (((STEER_PERIOD_NS as i128 + correction) as u128) << 32) / new_hz as u128;
    log::trace!("clock: TSC {} -> {} Hz, {} ns off, read in {} cycles", hz, new_hz, truth - reading, s.width);
    TSC_HZ.store(new_hz, Ordering::Relaxed);
    // Continuity at the moment of the switch: the new line starts where the
    // old one is then.
    publish(|| {
        let base_tsc = cpu::rdtsc();
        (base_tsc, ns_at(base_tsc, current_parameters()), fp as u64)
    });
}

/// Returns the TSC frequency in Hz (0 before calibration).
pub fn tsc_hz() -> u64 {
    TSC_HZ.load(Ordering::Relaxed)
}

/// Converts a TSC reading to nanoseconds since the kernel's first
/// instruction, with the clock's current parameters.
pub fn tsc_to_ns(tsc: u64) -> u64 {
    ns_at(tsc, parameters())
}

/// Returns nanoseconds since the kernel's first instruction (0 until the
/// TSC is calibrated).
pub fn monotonic_ns() -> u64 {
    let (tsc, params) = read_clock();
    // A TSC a hair behind the base (another CPU's) reads as the base, never
    // as an earlier time.
    ns_at(tsc.max(params.0), params)
}

/// Returns the wall-clock time in nanoseconds since the Unix epoch.
pub fn realtime_ns() -> u64 {
    WALL_AT_ORIGIN_NS.load(Ordering::Relaxed).wrapping_add(monotonic_ns())
}

/// Serializes changes of the wall clock, so the vDSO is published the
/// value the last change left.
static WALL_UPDATE: IrqSpinLock<()> = IrqSpinLock::new(());

/// Sets the wall clock (clock_settime, settimeofday).
pub fn set_realtime_ns(ns: u64) {
    let _guard = WALL_UPDATE.lock();
    let wall = ns.wrapping_sub(monotonic_ns());
    WALL_AT_ORIGIN_NS.store(wall, Ordering::Relaxed);
    super::vdso::set_wall_at_origin(wall);
}

/// Moves the wall clock by `delta_ns` exactly (NTP's slew, ADJ_SETOFFSET).
/// Reading the clock and setting it back plus the delta would lose the
/// time between the two readings on every call: the slew runs at every
/// timer check, and the wall clock fell behind by up to 40% of what an
/// ADJ_FREQUENCY asked for.
pub fn adjust_realtime_ns(delta_ns: i64) {
    let _guard = WALL_UPDATE.lock();
    let wall = WALL_AT_ORIGIN_NS.load(Ordering::Relaxed).wrapping_add(delta_ns as u64);
    WALL_AT_ORIGIN_NS.store(wall, Ordering::Relaxed);
    super::vdso::set_wall_at_origin(wall);
}

/// The clock parameters the vDSO computes with: the base TSC, the clock's
/// reading there, ns per cycle (32.32 fixed point) and the wall clock at
/// the origin.
pub(crate) fn vdso_parameters() -> (u64, u64, u64, u64) {
    let (base_tsc, base_ns, fp) = parameters();
    (base_tsc, base_ns, fp, WALL_AT_ORIGIN_NS.load(Ordering::Relaxed))
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
    if percpu::cpu_index() == 0 {
        steer();
    }
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
