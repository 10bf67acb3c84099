//! `/proc/vmstat`: the memory system's page counts and events, under
//! Linux 6.1's names and in its order, for vmstat(8), free and monitoring
//! tools. Counts that stand for mechanisms Kevlar does not have (swap,
//! NUMA balancing, compaction, huge pages) are 0, as on a Linux without
//! them in use.

use alloc::string::String;
use core::fmt::Write;

use super::system::{tmpfs_pages, user_memory};
use crate::error::Result;
use crate::mm::vmstat::{total, Event};

const PAGE: u64 = 4096;

pub(super) fn vmstat() -> Result<String> {
    let stats = kevlar_platform::mm::pmm::stats();
    let free = stats.free_bytes as u64 / PAGE;
    let user = user_memory();
    let anon = user.anon / PAGE;
    let shmem = tmpfs_pages();
    let cache = crate::fs::pagecache::stats();
    let file = cache.pages + shmem;
    let slab = kevlar_platform::mm::heap::bytes_held() as u64 / PAGE;
    let stacks = kevlar_platform::x86::user::live_task_count() + kevlar_platform::mm::stacks::cached_count() as u64;
    let kernel_stack_kib = stacks * (kevlar_platform::mm::stacks::STACK_PAGES as u64 * PAGE / 1024);
    // Linux's dirty limits: 20% and 10% of the memory that could hold
    // file pages (free plus file pages).
    let dirtyable = free + cache.pages;
    let rows: [(&str, u64); 36] = [
        ("nr_free_pages", free),
        ("nr_zone_inactive_anon", 0),
        ("nr_zone_active_anon", anon + shmem),
        ("nr_zone_inactive_file", cache.pages),
        ("nr_zone_active_file", 0),
        ("nr_zone_unevictable", 0),
        ("nr_zone_write_pending", cache.dirty),
        ("nr_mlock", 0),
        ("nr_bounce", 0),
        ("nr_free_cma", 0),
        ("nr_inactive_anon", 0),
        ("nr_active_anon", anon + shmem),
        ("nr_inactive_file", cache.pages),
        ("nr_active_file", 0),
        ("nr_unevictable", 0),
        ("nr_slab_reclaimable", 0),
        ("nr_slab_unreclaimable", slab),
        ("nr_anon_pages", anon),
        ("nr_mapped", user.mapped / PAGE),
        ("nr_file_pages", file),
        ("nr_dirty", cache.dirty),
        ("nr_writeback", 0),
        ("nr_shmem", shmem),
        ("nr_kernel_stack", kernel_stack_kib),
        ("nr_page_table_pages", user.page_tables / PAGE),
        ("nr_swapcached", 0),
        ("nr_dirty_threshold", dirtyable / 5),
        ("nr_dirty_background_threshold", dirtyable / 10),
        ("pgpgin", total(Event::KibIn)),
        ("pgpgout", total(Event::KibOut)),
        ("pswpin", 0),
        ("pswpout", 0),
        ("pgfault", total(Event::PageFault)),
        ("pgmajfault", 0),
        ("oom_kill", total(Event::OomKill)),
        ("swap_ra", 0),
    ];
    let mut out = String::new();
    for (name, value) in rows {
        let _ = writeln!(out, "{} {}", name, value);
    }
    Ok(out)
}
