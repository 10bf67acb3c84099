//! The overcommit policy (`/proc/sys/vm/overcommit_memory`,
//! `overcommit_ratio`, `overcommit_kbytes`), as Linux's
//! `__vm_enough_memory`:
//!
//! - 0 (heuristic, the default): a single request larger than RAM (there
//!   is no swap) is refused;
//! - 1: every request is granted;
//! - 2 (strict): the committed memory of every address space (private
//!   writable and shared anonymous mappings) may not reach the commit
//!   limit, RAM * overcommit_ratio / 100 (or overcommit_kbytes), less
//!   Linux's admin reserve for callers without CAP_SYS_ADMIN and its user
//!   reserve.
//!
//! Mappings are checked when made (mmap, brk, fork in strict mode);
//! MAP_NORESERVE mappings are not checked except in strict mode.
//! Committed_AS is computed when asked (meminfo, strict checks), by
//! walking the address spaces.

use alloc::sync::Arc;
use alloc::vec::Vec;
use core::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use super::{Backing, Vm};
use crate::error::{Errno, Result};

/// OVERCOMMIT_GUESS, OVERCOMMIT_ALWAYS, OVERCOMMIT_NEVER.
pub const GUESS: u32 = 0;
/// Always grant.
pub const ALWAYS: u32 = 1;
/// Strict accounting.
pub const NEVER: u32 = 2;

static MODE: AtomicU32 = AtomicU32::new(GUESS);
static RATIO: AtomicU32 = AtomicU32::new(50);
static KBYTES: AtomicU64 = AtomicU64::new(0);

const PAGE: u64 = kevlar_platform::mm::PAGE_SIZE as u64;

/// Returns overcommit_memory.
pub fn mode() -> u32 {
    MODE.load(Ordering::Relaxed)
}

/// Returns overcommit_ratio.
pub fn ratio() -> u32 {
    RATIO.load(Ordering::Relaxed)
}

/// Returns overcommit_kbytes.
pub fn kbytes() -> u64 {
    KBYTES.load(Ordering::Relaxed)
}

/// Parses a /proc/sys integer as Linux's proc_dointvec: blanks, a
/// decimal with an optional sign, blanks.
fn parse_int(buf: &[u8]) -> Result<i64> {
    let text = core::str::from_utf8(buf).map_err(|_| Errno::EINVAL)?;
    let text = text.trim_matches(|c: char| c.is_ascii_whitespace() || c == '\0');
    text.parse::<i64>().map_err(|_| Errno::EINVAL)
}

/// A write to overcommit_memory: 0, 1 or 2, else EINVAL.
pub fn set_mode(buf: &[u8]) -> Result<usize> {
    let value = parse_int(buf)?;
    if !(0..=2).contains(&value) {
        return Err(Errno::EINVAL);
    }
    MODE.store(value as u32, Ordering::Relaxed);
    Ok(buf.len())
}

/// A write to overcommit_ratio (clears overcommit_kbytes, as Linux).
pub fn set_ratio(buf: &[u8]) -> Result<usize> {
    let value = parse_int(buf)?;
    let value = u32::try_from(value).map_err(|_| Errno::EINVAL)?;
    RATIO.store(value, Ordering::Relaxed);
    KBYTES.store(0, Ordering::Relaxed);
    Ok(buf.len())
}

/// A write to overcommit_kbytes (clears overcommit_ratio when non-zero).
pub fn set_kbytes(buf: &[u8]) -> Result<usize> {
    let value = parse_int(buf)?;
    let value = u64::try_from(value).map_err(|_| Errno::EINVAL)?;
    KBYTES.store(value, Ordering::Relaxed);
    if value != 0 {
        RATIO.store(0, Ordering::Relaxed);
    }
    Ok(buf.len())
}

fn total_pages() -> u64 {
    kevlar_platform::mm::pmm::stats().total_bytes as u64 / PAGE
}

/// CommitLimit in pages.
pub fn commit_limit_pages() -> u64 {
    match kbytes() {
        0 => total_pages() * ratio() as u64 / 100,
        kb => kb / (PAGE / 1024),
    }
}

/// Pages of `vm` that count as committed.
pub fn accountable_pages(vm: &Vm) -> u64 {
    vm.vmas()
        .filter(|v| match v.backing {
            Backing::Shared(_) => true,
            Backing::Anonymous | Backing::File { shared: false, .. } => v.prot.write,
            _ => false,
        })
        .map(|v| ((v.end - v.start) as u64) / PAGE)
        .sum()
}

/// Committed_AS in pages: every address space counted once. The caller
/// holds no address-space lock.
pub fn committed_pages() -> u64 {
    let mut seen: Vec<usize> = Vec::new();
    let mut pages = 0;
    for process in crate::process::all_processes() {
        let vm = process.vm.lock().clone();
        let key = Arc::as_ptr(&vm) as usize;
        if seen.contains(&key) {
            continue;
        }
        seen.push(key);
        pages += accountable_pages(&vm.lock());
    }
    pages
}

/// Whether a new commitment of `pages` (by a caller whose address space
/// maps `total_vm_pages`) may be made; `noreserve`: MAP_NORESERVE.
/// Call with no address-space lock held.
pub fn enough_memory(pages: u64, total_vm_pages: u64, noreserve: bool) -> Result<()> {
    match mode() {
        ALWAYS => Ok(()),
        GUESS if noreserve => Ok(()),
        GUESS => {
            if pages > total_pages() {
                Err(Errno::ENOMEM)
            } else {
                Ok(())
            }
        }
        _ => {
            let mut allowed = commit_limit_pages() as i64;
            let admin = crate::process::current().is_some_and(|t| t.process.creds.lock().has_cap(linux_raw_sys::general::CAP_SYS_ADMIN));
            // Linux's reserves, set at boot from free memory: 3% capped at
            // 8 MiB for root's rescue, 3% capped at 128 MiB per process.
            let three_percent = (total_pages() / 32) as i64;
            if !admin {
                allowed -= three_percent.min((8 << 20) / PAGE as i64);
            }
            allowed -= ((total_vm_pages / 32) as i64).min(three_percent.min((128 << 20) / PAGE as i64));
            if (committed_pages() + pages) as i64 >= allowed {
                Err(Errno::ENOMEM)
            } else {
                Ok(())
            }
        }
    }
}
