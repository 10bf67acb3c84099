//! CPU time at the tick: ITIMER_VIRTUAL (user time) and ITIMER_PROF (user
//! and system time) of a process, and the check of POSIX timers on CPU-time
//! clocks.
//!
//! The tick interrupt counts, per CPU, the ticks that interrupted user mode
//! (`count_tick`); the return to user mode after it (process context) charges
//! them to the current thread's process (`charge_tick`), ten milliseconds of
//! user time each, as Linux's tick-based accounting does. ITIMER_PROF
//! measures the process's CPU time as its clock reads it (user and system
//! time together).

use alloc::sync::{Arc, Weak};
use alloc::vec::Vec;
use core::sync::atomic::{AtomicU32, AtomicUsize, Ordering};

use kevlar_platform::smp::MAX_CPUS;
use kevlar_platform::sync::SpinLock;
use linux_raw_sys::general as abi;

use super::signal::{self, SigInfo};
use super::{Process, Thread};

/// One tick of CPU time.
pub const TICK_NS: u64 = 1_000_000_000 / kevlar_platform::time::TICK_HZ as u64;

/// Ticks that interrupted user mode, per CPU, not charged yet.
static USER_TICKS: [AtomicU32; MAX_CPUS] = [const { AtomicU32::new(0) }; MAX_CPUS];
/// Armed interval timers (ITIMER_VIRTUAL/PROF) and POSIX CPU-time timers:
/// the check after a tick does nothing while both are 0.
static ARMED_ITIMERS: AtomicUsize = AtomicUsize::new(0);
static ARMED_POSIX: AtomicUsize = AtomicUsize::new(0);

/// The timer tick (interrupt context: atomics only).
pub fn count_tick(from_user: bool) {
    if from_user {
        if let Some(count) = USER_TICKS.get(kevlar_platform::smp::cpu_index()) {
            count.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// Sets how many POSIX timers on CPU-time clocks are armed.
pub fn set_posix_armed(count: usize) {
    ARMED_POSIX.store(count, Ordering::Release);
}

/// After a tick (process context): charges this CPU's user ticks to the
/// current process and fires the CPU-time timers that expired.
pub fn charge_tick() {
    let Some(count) = USER_TICKS.get(kevlar_platform::smp::cpu_index()) else { return };
    let user = if count.load(Ordering::Relaxed) != 0 { count.swap(0, Ordering::Relaxed) } else { 0 };
    let itimers = ARMED_ITIMERS.load(Ordering::Acquire) != 0;
    let posix = ARMED_POSIX.load(Ordering::Acquire) != 0;
    if !itimers && !posix {
        return;
    }
    let Some(thread) = super::current() else { return };
    if itimers {
        run_itimers(&thread, user as u64 * TICK_NS);
    }
    if posix {
        super::posix_timer::run_cpu_timers(&thread);
    }
}

/// An ITIMER_VIRTUAL or ITIMER_PROF. `value` is the user time left for
/// ITIMER_VIRTUAL, the process CPU time at which it expires for
/// ITIMER_PROF; 0 when disarmed (Linux keeps the interval then).
struct Itimer {
    process: Weak<Process>,
    which: u32,
    value: u64,
    interval: u64,
}

static ITIMERS: SpinLock<Vec<Itimer>> = SpinLock::new(Vec::new());

fn update_armed(timers: &[Itimer]) {
    ARMED_ITIMERS.store(timers.iter().filter(|t| t.value != 0).count(), Ordering::Release);
}

fn run_itimers(thread: &Arc<Thread>, user_ns: u64) {
    let process = &thread.process;
    let mut fire = Vec::new();
    {
        let mut timers = ITIMERS.lock();
        let mine = |t: &Itimer| core::ptr::eq(t.process.as_ptr(), Arc::as_ptr(process));
        if !timers.iter().any(|t| t.value != 0 && mine(t)) {
            return;
        }
        let cpu = process.cpu_ns();
        for timer in timers.iter_mut().filter(|t| t.value != 0 && mine(t)) {
            match timer.which {
                abi::ITIMER_VIRTUAL => {
                    if user_ns == 0 {
                        continue;
                    }
                    if timer.value > user_ns {
                        timer.value -= user_ns;
                        continue;
                    }
                    fire.push(abi::SIGVTALRM);
                    // The next period starts from the expiry: what the tick
                    // overshot counts against it.
                    let over = user_ns - timer.value;
                    timer.value = if timer.interval == 0 { 0 } else { timer.interval.saturating_sub(over % timer.interval).max(1) };
                }
                _ => {
                    if cpu < timer.value {
                        continue;
                    }
                    fire.push(abi::SIGPROF);
                    timer.value = if timer.interval == 0 {
                        0
                    } else {
                        let periods = (cpu - timer.value) / timer.interval + 1;
                        timer.value.saturating_add(periods.saturating_mul(timer.interval))
                    };
                }
            }
        }
        timers.retain(|t| t.process.strong_count() > 0 && (t.value != 0 || t.interval != 0));
        update_armed(&timers);
    }
    for sig in fire {
        let _ = signal::send_signal_info(process, SigInfo::new(sig, signal::SI_KERNEL));
    }
}

/// Reads ITIMER_VIRTUAL or ITIMER_PROF of `process` and, with `new`,
/// replaces it: (value, interval) in ns, as Linux's getitimer reports
/// them (a timer about to fire reads as one tick left).
pub fn exchange(process: &Arc<Process>, which: u32, new: Option<(u64, u64)>) -> (u64, u64) {
    let cpu = process.cpu_ns();
    let mut timers = ITIMERS.lock();
    timers.retain(|t| t.process.strong_count() > 0);
    let index = timers.iter().position(|t| t.which == which && core::ptr::eq(t.process.as_ptr(), Arc::as_ptr(process)));
    let old = index.map_or((0, 0), |i| {
        let t = &timers[i];
        let left = match (t.value, which) {
            (0, _) => 0,
            (v, abi::ITIMER_VIRTUAL) => v,
            (v, _) if v <= cpu => TICK_NS,
            (v, _) => v - cpu,
        };
        (left, t.interval)
    });
    if let Some((value, interval)) = new {
        if let Some(i) = index {
            timers.swap_remove(i);
        }
        // Linux adds a tick to a value being set (the current tick is
        // partly gone).
        let value = if value == 0 { 0 } else { value.saturating_add(TICK_NS) };
        let value = match (value, which) {
            (0, _) => 0,
            (v, abi::ITIMER_VIRTUAL) => v,
            (v, _) => cpu.saturating_add(v),
        };
        if value != 0 || interval != 0 {
            timers.push(Itimer { process: Arc::downgrade(process), which, value, interval });
        }
        update_armed(&timers);
    }
    old
}
