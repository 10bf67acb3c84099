//! The kernel's NTP state (adjtimex, clock_adjtime): what Linux keeps and
//! reports in `struct timex`, and the wall clock following it.
//!
//! A frequency set with ADJ_FREQUENCY, and a phase offset set with
//! ADJ_OFFSET while STA_PLL is on, slew the wall clock: about every tick
//! the clock is moved by the frequency times the time passed, and each
//! second a part of the remaining offset (offset >> (SHIFT_PLL + time
//! constant), as Linux's second_overflow takes it) is added. ADJ_SETOFFSET
//! steps the clock. The reference-clock steering of the monotonic clock
//! (platform/time.rs) is not touched: only the wall clock follows.
//!
//! The constants are Linux's (include/linux/timex.h, kernel/time/ntp.c);
//! linux-raw-sys does not carry the timex ABI.

use core::sync::atomic::{AtomicBool, Ordering};

use kevlar_platform::sync::SpinLock;
use kevlar_platform::time;

use crate::error::{Errno, Result};

// modes bits (include/uapi/linux/timex.h).
pub const ADJ_OFFSET: u32 = 0x0001;
pub const ADJ_FREQUENCY: u32 = 0x0002;
pub const ADJ_MAXERROR: u32 = 0x0004;
pub const ADJ_ESTERROR: u32 = 0x0008;
pub const ADJ_STATUS: u32 = 0x0010;
pub const ADJ_TIMECONST: u32 = 0x0020;
pub const ADJ_TAI: u32 = 0x0080;
pub const ADJ_SETOFFSET: u32 = 0x0100;
pub const ADJ_MICRO: u32 = 0x1000;
pub const ADJ_NANO: u32 = 0x2000;
pub const ADJ_TICK: u32 = 0x4000;
pub const ADJ_ADJTIME: u32 = 0x8000;
/// With ADJ_ADJTIME (the kernel's meaning; user space's 0x8001 includes
/// ADJ_ADJTIME).
pub const ADJ_OFFSET_SINGLESHOT: u32 = 0x0001;
pub const ADJ_OFFSET_READONLY: u32 = 0x2000;

// status bits.
const STA_PLL: i32 = 0x0001;
const STA_PPSFREQ: i32 = 0x0002;
const STA_PPSTIME: i32 = 0x0004;
const STA_INS: i32 = 0x0010;
const STA_DEL: i32 = 0x0020;
const STA_UNSYNC: i32 = 0x0040;
const STA_FREQHOLD: i32 = 0x0080;
const STA_PPSSIGNAL: i32 = 0x0100;
const STA_PPSJITTER: i32 = 0x0200;
const STA_PPSWANDER: i32 = 0x0400;
const STA_PPSERROR: i32 = 0x0800;
const STA_CLOCKERR: i32 = 0x1000;
const STA_NANO: i32 = 0x2000;
/// Bits adjtimex cannot set.
const STA_RONLY: i32 = 0xff00u32 as i32;

// Clock states (the return value).
const TIME_OK: i32 = 0;
const TIME_ERROR: i32 = 5;

const NSEC_PER_USEC: i64 = 1000;
const USEC_PER_SEC: i64 = 1_000_000;
const NSEC_PER_SEC: i64 = 1_000_000_000;
const USER_HZ: i64 = 100;
const NTP_SCALE_SHIFT: u32 = 32;
const SHIFT_PLL: i64 = 2;
const MAXTC: i64 = 10;
const MAXPHASE: i64 = 500_000_000;
const MAX_TAI_OFFSET: i64 = 100_000;
const NTP_PHASE_LIMIT: i64 = 16_000_000;
/// Parts per million in the scaled frequency unit (ns/s << 32 / 1000).
const PPM_SCALE: i64 = NSEC_PER_USEC << (NTP_SCALE_SHIFT - 16);
const PPM_SCALE_INV_SHIFT: u32 = 19;
const PPM_SCALE_INV: i64 = ((1i64 << (PPM_SCALE_INV_SHIFT + NTP_SCALE_SHIFT)) / PPM_SCALE) + 1;
const MAXFREQ_SCALED: i64 = 500_000i64 << NTP_SCALE_SHIFT;

struct Ntp {
    status: i32,
    state: i32,
    /// Frequency, scaled ns/s (<< 32).
    freq: i64,
    /// The phase offset still to slew, in ns.
    offset_ns: i64,
    maxerror: i64,
    esterror: i64,
    constant: i64,
    tick_usec: i64,
    tai: i64,
    /// adjtime(3)'s pending adjustment (ADJ_OFFSET_SINGLESHOT), in µs.
    adjust_usec: i64,
    /// Monotonic time of the last slew and of the last second's step.
    last_ns: u64,
    last_second_ns: u64,
    /// The part of a ns the frequency has not moved the clock yet (<< 32).
    carry: i64,
}

static NTP: SpinLock<Ntp> = SpinLock::new(Ntp {
    status: STA_UNSYNC,
    state: TIME_OK,
    freq: 0,
    offset_ns: 0,
    maxerror: NTP_PHASE_LIMIT,
    esterror: NTP_PHASE_LIMIT,
    constant: 2,
    tick_usec: (USEC_PER_SEC + USER_HZ / 2) / USER_HZ,
    tai: 0,
    adjust_usec: 0,
    last_ns: 0,
    last_second_ns: 0,
    carry: 0,
});
/// Whether the wall clock is being slewed (the check does nothing else).
static SLEWING: AtomicBool = AtomicBool::new(false);

/// The fields of `struct timex` adjtimex reads and reports.
#[derive(Default, Clone, Copy)]
pub struct Timex {
    pub modes: u32,
    pub offset: i64,
    pub freq: i64,
    pub maxerror: i64,
    pub esterror: i64,
    pub status: i32,
    pub time_sec: i64,
    pub time_usec: i64,
    pub constant: i64,
    pub precision: i64,
    pub tolerance: i64,
    pub tick: i64,
    pub tai: i32,
}

fn shift_right(x: i64, s: u32) -> i64 {
    if x < 0 {
        -((-x) >> s)
    } else {
        x >> s
    }
}

/// Linux's checks of the modes: EINVAL, or EPERM without `may_set`
/// (CAP_SYS_TIME).
fn validate(tx: &Timex, may_set: bool) -> Result<()> {
    if tx.modes & ADJ_ADJTIME != 0 {
        if tx.modes & ADJ_OFFSET_SINGLESHOT == 0 {
            return Err(Errno::EINVAL);
        }
        if tx.modes & ADJ_OFFSET_READONLY == 0 && !may_set {
            return Err(Errno::EPERM);
        }
    } else {
        if tx.modes != 0 && !may_set {
            return Err(Errno::EPERM);
        }
        if tx.modes & ADJ_TICK != 0 && !(900_000 / USER_HZ..=1_100_000 / USER_HZ).contains(&tx.tick) {
            return Err(Errno::EINVAL);
        }
    }
    if tx.modes & ADJ_SETOFFSET != 0 {
        if !may_set {
            return Err(Errno::EPERM);
        }
        let limit = if tx.modes & ADJ_NANO != 0 { NSEC_PER_SEC } else { USEC_PER_SEC };
        if !(0..limit).contains(&tx.time_usec) {
            return Err(Errno::EINVAL);
        }
    }
    if tx.modes & ADJ_FREQUENCY != 0 && (tx.freq < i64::MIN / PPM_SCALE || tx.freq > i64::MAX / PPM_SCALE) {
        return Err(Errno::EINVAL);
    }
    Ok(())
}

/// adjtimex: checks and applies `tx.modes`, then fills `tx` with the state
/// and returns the clock state (TIME_ERROR while unsynchronized).
pub fn adjtimex(tx: &mut Timex, may_set: bool) -> Result<i32> {
    validate(tx, may_set)?;
    if tx.modes & ADJ_SETOFFSET != 0 {
        let nsec = if tx.modes & ADJ_NANO != 0 { tx.time_usec } else { tx.time_usec * NSEC_PER_USEC };
        let delta = (tx.time_sec as i128) * NSEC_PER_SEC as i128 + nsec as i128;
        let now = time::realtime_ns() as i128;
        let new = now + delta;
        if new < 0 || new > i64::MAX as i128 {
            return Err(Errno::EINVAL);
        }
        time::adjust_realtime_ns(delta as i64);
        crate::fs::timerfd::clock_was_set();
    }
    let now_mono = time::monotonic_ns();
    let mut ntp = NTP.lock();
    slew(&mut ntp, now_mono);
    if tx.modes & ADJ_ADJTIME != 0 {
        let saved = ntp.adjust_usec;
        if tx.modes & ADJ_OFFSET_READONLY == 0 {
            ntp.adjust_usec = tx.offset;
        }
        tx.offset = saved;
    } else {
        if tx.modes != 0 {
            apply_modes(&mut ntp, tx);
        }
        let offset = ntp.offset_ns;
        tx.offset = if ntp.status & STA_NANO != 0 { offset } else { (offset as u32 / NSEC_PER_USEC as u32) as i64 };
    }
    let result = if is_error(ntp.status) { TIME_ERROR } else { ntp.state };
    tx.freq = shift_right((ntp.freq >> PPM_SCALE_INV_SHIFT) * PPM_SCALE_INV, NTP_SCALE_SHIFT);
    tx.maxerror = ntp.maxerror;
    tx.esterror = ntp.esterror;
    tx.status = ntp.status;
    tx.constant = ntp.constant;
    tx.precision = 1;
    tx.tolerance = MAXFREQ_SCALED / PPM_SCALE;
    tx.tick = ntp.tick_usec;
    tx.tai = ntp.tai as i32;
    let real = time::realtime_ns() as i64;
    tx.time_sec = real / NSEC_PER_SEC;
    tx.time_usec = if ntp.status & STA_NANO != 0 { real % NSEC_PER_SEC } else { real % NSEC_PER_SEC / NSEC_PER_USEC };
    SLEWING.store(ntp.freq != 0 || ntp.offset_ns != 0 || ntp.adjust_usec != 0, Ordering::Release);
    if ntp.last_ns == 0 {
        ntp.last_ns = now_mono;
        ntp.last_second_ns = now_mono;
    }
    Ok(result)
}

fn is_error(status: i32) -> bool {
    status & (STA_UNSYNC | STA_CLOCKERR) != 0
        || (status & (STA_PPSFREQ | STA_PPSTIME) != 0 && status & STA_PPSSIGNAL == 0)
        || (status & (STA_PPSTIME | STA_PPSJITTER) == (STA_PPSTIME | STA_PPSJITTER))
        || (status & STA_PPSFREQ != 0 && status & (STA_PPSWANDER | STA_PPSERROR) != 0)
}

fn apply_modes(ntp: &mut Ntp, tx: &Timex) {
    if tx.modes & ADJ_STATUS != 0 {
        if ntp.status & STA_PLL != 0 && tx.status & STA_PLL == 0 {
            ntp.state = TIME_OK;
            ntp.status = STA_UNSYNC;
        }
        ntp.status &= STA_RONLY;
        ntp.status |= tx.status & !STA_RONLY;
    }
    if tx.modes & ADJ_NANO != 0 {
        ntp.status |= STA_NANO;
    }
    if tx.modes & ADJ_MICRO != 0 {
        ntp.status &= !STA_NANO;
    }
    if tx.modes & ADJ_FREQUENCY != 0 {
        ntp.freq = tx.freq.saturating_mul(PPM_SCALE).clamp(-MAXFREQ_SCALED, MAXFREQ_SCALED);
    }
    if tx.modes & ADJ_MAXERROR != 0 {
        ntp.maxerror = tx.maxerror;
    }
    if tx.modes & ADJ_ESTERROR != 0 {
        ntp.esterror = tx.esterror;
    }
    if tx.modes & ADJ_TIMECONST != 0 {
        // Clamped before and after the 4 added without STA_NANO, as Linux.
        let mut constant = tx.constant.clamp(0, MAXTC);
        if ntp.status & STA_NANO == 0 {
            constant += 4;
        }
        ntp.constant = constant.clamp(0, MAXTC);
    }
    if tx.modes & ADJ_TAI != 0 && (0..=MAX_TAI_OFFSET).contains(&tx.constant) {
        ntp.tai = tx.constant;
    }
    if tx.modes & ADJ_OFFSET != 0 && ntp.status & STA_PLL != 0 {
        let mut offset = tx.offset;
        if ntp.status & STA_NANO == 0 {
            offset = offset.clamp(-USEC_PER_SEC, USEC_PER_SEC) * NSEC_PER_USEC;
        }
        ntp.offset_ns = offset.clamp(-MAXPHASE, MAXPHASE);
    }
    if tx.modes & ADJ_TICK != 0 {
        ntp.tick_usec = tx.tick;
    }
    let _ = (STA_INS, STA_DEL, STA_FREQHOLD);
}

/// Moves the wall clock by what the frequency and the offset ask for since
/// the last look.
fn slew(ntp: &mut Ntp, now: u64) {
    if ntp.last_ns == 0 || now <= ntp.last_ns {
        return;
    }
    let elapsed = (now - ntp.last_ns) as i64;
    ntp.last_ns = now;
    // freq is ns per second << 32: ns to add = elapsed * freq / 1e9 >> 32.
    let scaled = (elapsed as i128 * ntp.freq as i128 / NSEC_PER_SEC as i128) as i64 + ntp.carry;
    let mut step = shift_right(scaled, NTP_SCALE_SHIFT);
    ntp.carry = scaled - (step << NTP_SCALE_SHIFT);
    while now - ntp.last_second_ns >= NSEC_PER_SEC as u64 {
        ntp.last_second_ns += NSEC_PER_SEC as u64;
        let chunk = shift_right(ntp.offset_ns, (SHIFT_PLL + ntp.constant) as u32);
        ntp.offset_ns -= chunk;
        step += chunk;
        // adjtime(3): at most 500 µs a second, as Linux's tick adjust.
        if ntp.adjust_usec != 0 {
            let take = ntp.adjust_usec.clamp(-500, 500);
            ntp.adjust_usec -= take;
            step += take * NSEC_PER_USEC;
        }
        if ntp.maxerror < NTP_PHASE_LIMIT {
            ntp.maxerror = (ntp.maxerror + 500).min(NTP_PHASE_LIMIT);
        }
    }
    if step != 0 {
        // Never before the epoch.
        let real = time::realtime_ns() as i64;
        time::adjust_realtime_ns(step.max(-real));
    }
}

/// The timer check: keeps the wall clock following the NTP state.
pub fn run(now: u64) {
    if !SLEWING.load(Ordering::Acquire) {
        return;
    }
    let mut ntp = NTP.lock();
    slew(&mut ntp, now);
    SLEWING.store(ntp.freq != 0 || ntp.offset_ns != 0 || ntp.adjust_usec != 0, Ordering::Release);
}
