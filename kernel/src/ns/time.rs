//! Time namespaces (Linux's kernel/time/namespace.c): offsets added to
//! CLOCK_MONOTONIC (and its raw and coarse forms) and CLOCK_BOOTTIME for
//! the processes in one.
//!
//! unshare(CLONE_NEWTIME) makes one for the caller's children
//! (`NsSet::time_for_children`); its offsets are written in
//! /proc/PID/timens_offsets until a process enters it (EACCES after). A
//! process in a time namespace other than the initial one gets a vvar
//! page whose clock is never ready, so its vDSO asks the kernel, which
//! adds the offsets (`mm::Vm::detach_vvar`).

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::sync::{Arc, Weak};

use kevlar_platform::sync::SpinLock;
use linux_raw_sys::general as abi;

use super::Plain;
use crate::error::{Errno, Result};

/// A namespace's offsets, in nanoseconds, and whether a process entered
/// it (the offsets are fixed then).
#[derive(Clone, Copy, Default)]
struct Offsets {
    monotonic: i64,
    boottime: i64,
    entered: bool,
}

/// The offsets of each time namespace but the initial one, by inode
/// number (pruned as they die).
static NAMESPACES: SpinLock<BTreeMap<u64, (Weak<Plain>, Offsets)>> = SpinLock::new(BTreeMap::new());

/// Makes a time namespace with no offsets.
pub fn create() -> Arc<Plain> {
    let ns = Arc::new(Plain { inum: super::alloc_inum(), ipc: false });
    let mut all = NAMESPACES.lock();
    all.retain(|_, (ns, _)| ns.strong_count() > 0);
    all.insert(ns.inum, (Arc::downgrade(&ns), Offsets::default()));
    ns
}

fn offsets(inum: u64) -> Offsets {
    NAMESPACES.lock().get(&inum).map(|(_, o)| *o).unwrap_or_default()
}

/// Whether `ns` is the initial time namespace (or one without offsets of
/// its own here).
pub fn is_init(ns: &Plain) -> bool {
    !NAMESPACES.lock().contains_key(&ns.inum)
}

/// Notes that a process entered `ns` (its offsets can no longer change).
pub fn entered(ns: &Plain) {
    if let Some((_, o)) = NAMESPACES.lock().get_mut(&ns.inum) {
        o.entered = true;
    }
}

/// The set a child starts with: in the time namespace its parent's
/// children go to (Linux's timens_on_fork).
pub fn child_set(set: Arc<super::NsSet>) -> Arc<super::NsSet> {
    if Arc::ptr_eq(&set.time, &set.time_for_children) {
        return set;
    }
    entered(&set.time_for_children);
    let mut child = (*set).clone();
    child.time = set.time_for_children.clone();
    Arc::new(child)
}

/// Clock `clock`'s reading `ns` (nanoseconds) as the calling process's
/// time namespace shows it.
pub fn shown(clock: u32, ns: u64) -> u64 {
    let Some(thread) = crate::process::current() else { return ns };
    let inum = thread.process.ns.lock().time.inum;
    let o = offsets(inum);
    let offset = match clock {
        abi::CLOCK_MONOTONIC | abi::CLOCK_MONOTONIC_RAW | abi::CLOCK_MONOTONIC_COARSE => o.monotonic,
        abi::CLOCK_BOOTTIME | abi::CLOCK_BOOTTIME_ALARM => o.boottime,
        _ => 0,
    };
    (ns as i64).saturating_add(offset).max(0) as u64
}

/// What /proc/PID/timens_offsets reads for a process whose children go
/// to `ns`.
pub fn offsets_text(ns: &Plain) -> String {
    let o = offsets(ns.inum);
    let line = |name: &str, v: i64| alloc::format!("{:<10} {:>10} {:>9}\n", name, v.div_euclid(1_000_000_000), v.rem_euclid(1_000_000_000));
    let mut out = line("monotonic", o.monotonic);
    out.push_str(&line("boottime", o.boottime));
    out
}

/// A write to /proc/PID/timens_offsets (Linux's proc_timens_set_offset):
/// lines `<clock> <seconds> <nanoseconds>`, the clock by name or number
/// (monotonic or boottime, else EINVAL), nanoseconds below a second;
/// CAP_SYS_TIME in the user namespace owning `ns` (EPERM); EACCES once a
/// process entered it.
pub fn write_offsets(ns: &Plain, writer: &crate::process::Process, buf: &[u8]) -> Result<usize> {
    let text = core::str::from_utf8(buf).map_err(|_| Errno::EINVAL)?;
    let mut changes = alloc::vec::Vec::new();
    for line in text.split('\n').filter(|l| !l.trim().is_empty()) {
        let mut fields = line.split_ascii_whitespace();
        let clock = match fields.next().ok_or(Errno::EINVAL)? {
            "monotonic" => abi::CLOCK_MONOTONIC,
            "boottime" => abi::CLOCK_BOOTTIME,
            n => n.parse::<u32>().map_err(|_| Errno::EINVAL)?,
        };
        let secs: i64 = fields.next().ok_or(Errno::EINVAL)?.parse().map_err(|_| Errno::EINVAL)?;
        let nanos: i64 = fields.next().ok_or(Errno::EINVAL)?.parse().map_err(|_| Errno::EINVAL)?;
        if fields.next().is_some() || !(0..1_000_000_000).contains(&nanos) {
            return Err(Errno::EINVAL);
        }
        if clock != abi::CLOCK_MONOTONIC && clock != abi::CLOCK_BOOTTIME {
            return Err(Errno::EINVAL);
        }
        let total = secs.checked_mul(1_000_000_000).and_then(|s| s.checked_add(nanos)).ok_or(Errno::ERANGE)?;
        changes.push((clock, total));
    }
    if !super::user::capable_over(writer, ns.inum, abi::CAP_SYS_TIME) {
        return Err(Errno::EPERM);
    }
    let mut all = NAMESPACES.lock();
    let Some((_, o)) = all.get_mut(&ns.inum) else { return Err(Errno::EACCES) };
    if o.entered {
        return Err(Errno::EACCES);
    }
    for (clock, total) in changes {
        if clock == abi::CLOCK_MONOTONIC {
            o.monotonic = total;
        } else {
            o.boottime = total;
        }
    }
    Ok(buf.len())
}
