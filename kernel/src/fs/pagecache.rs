//! The page cache of disk file systems, seen from the kernel: the periodic
//! flusher, `/proc/sys/vm/drop_caches`, reclaim under memory pressure and
//! the counts `/proc/meminfo` shows. The pages themselves belong to each
//! ext2 mount (kevlar_ext2's page cache, in frames from
//! [`super::pages::FramePages`]).

use alloc::sync::Arc;
use alloc::vec::Vec;
use core::sync::atomic::{AtomicU64, Ordering};

use kevlar_ext2::{CacheStats, Ext2Fs};

use super::mount::FsKind;
use crate::error::{Errno, Result};

/// How often the flusher writes back what changed (Linux's
/// dirty_writeback_centisecs is 5 s).
pub const FLUSH_INTERVAL_NS: u64 = 5_000_000_000;

static NEXT_FLUSH_NS: AtomicU64 = AtomicU64::new(FLUSH_INTERVAL_NS);

/// Cached pages one mount keeps before dropping clean ones as new ones
/// come in: half of RAM.
pub fn page_limit() -> usize {
    kevlar_platform::mm::pmm::stats().total_bytes / kevlar_platform::mm::PAGE_SIZE / 2
}

/// Every mounted ext2 file system, once each.
fn disk_file_systems() -> Vec<Arc<Ext2Fs>> {
    let mut out: Vec<Arc<Ext2Fs>> = Vec::new();
    for mount in super::mount::mounts() {
        if let FsKind::Ext2(fs) = &mount.kind {
            if !out.iter().any(|f| Arc::ptr_eq(f, fs)) {
                out.push(fs.clone());
            }
        }
    }
    out
}

/// The flusher: at most every [`FLUSH_INTERVAL_NS`], writes back the
/// changed pages and metadata of every disk file system. Runs from the
/// timer check in process context (no lock held).
pub fn flush_if_due(now: u64) {
    let due = NEXT_FLUSH_NS.load(Ordering::Acquire);
    if now < due || NEXT_FLUSH_NS.compare_exchange(due, now + FLUSH_INTERVAL_NS, Ordering::AcqRel, Ordering::Relaxed).is_err() {
        return;
    }
    // Plugged: the pages and blocks reach the disks sorted and merged.
    let _plug = crate::block::plug_all();
    for fs in disk_file_systems() {
        if let Err(e) = fs.write_back() {
            log::warn!("ext2: write-back failed: {:?}", e);
        }
    }
}

/// Drops every clean, unmapped cached page of the disk file systems;
/// returns how many went.
pub fn drop_clean_pages() -> usize {
    disk_file_systems().iter().map(|fs| fs.drop_clean_pages()).sum()
}

/// Drops every disk file system's inode cache and directory name
/// indexes; returns how many records and indexes went.
pub fn drop_inode_caches() -> usize {
    disk_file_systems().iter().map(|fs| fs.drop_inode_caches()).sum()
}

/// A write to /proc/sys/vm/drop_caches: 1 drops clean page-cache pages, 2
/// reclaimable kernel objects (here: the metadata block caches' clean
/// blocks, dropped with the pages, and the inode and name caches), 3
/// both. Like Linux, it returns the length written, and EINVAL outside
/// 1..=4.
pub fn write_drop_caches(buf: &[u8]) -> Result<usize> {
    let text = core::str::from_utf8(buf).map_err(|_| Errno::EINVAL)?.trim();
    let value: u32 = text.parse().map_err(|_| Errno::EINVAL)?;
    if !(1..=4).contains(&value) {
        return Err(Errno::EINVAL);
    }
    if value & 3 != 0 {
        drop_clean_pages();
    }
    if value & 2 != 0 {
        drop_inode_caches();
    }
    Ok(buf.len())
}

/// Frees cached pages, then the inode and name caches, for an
/// allocation that failed; tells whether anything went.
pub fn reclaim() -> bool {
    let pages = drop_clean_pages();
    pages + drop_inode_caches() > 0
}

/// The page caches' counts, summed over the disk file systems.
pub fn stats() -> CacheStats {
    let mut total = CacheStats::default();
    for fs in disk_file_systems() {
        let s = fs.cache_stats();
        total.pages += s.pages;
        total.dirty += s.dirty;
        total.mapped += s.mapped;
    }
    total
}
