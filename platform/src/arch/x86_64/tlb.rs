//! TLB shootdown: keeping other CPUs' cached translations in step when an
//! address space they run loses a mapping or a permission.
//!
//! Each CPU publishes the page-table root it has loaded (`note_loaded`,
//! called on every CR3 write). A change that removes or narrows a user
//! mapping flushes the local TLB and then calls [`shootdown`], which sends
//! an IPI to every other CPU whose published root is the same table and
//! waits until each has flushed. The ordering argument: the page-table
//! write happens before the sender reads the published roots (a SeqCst
//! fence), and a CPU publishes its root before it loads CR3; so a CPU the
//! sender does not see either loads the root after the change (and caches
//! only new entries) or has already switched away (and CR3 writes flush
//! non-global entries).
//!
//! One shootdown runs at a time. A CPU waiting for its turn, or for the
//! acknowledgements of its own request, keeps serving requests aimed at
//! it, so two CPUs shooting at each other with interrupts masked cannot
//! deadlock.

use core::arch::asm;
use core::sync::atomic::{fence, AtomicBool, AtomicU64, AtomicUsize, Ordering};

use super::{apic, interrupts, percpu, smp, trap::vectors};
use crate::mm::PAGE_SIZE;

/// Above this many pages a shootdown flushes the whole TLB instead.
const MAX_SINGLE_PAGES: usize = 32;

/// Held by the CPU whose request is in flight.
static BUSY: AtomicBool = AtomicBool::new(false);
/// The request: a page range, or everything when `END` is `usize::MAX`.
static START: AtomicUsize = AtomicUsize::new(0);
static END: AtomicUsize = AtomicUsize::new(0);
/// CPUs (one bit each) that have not flushed for the request yet.
static PENDING: AtomicU64 = AtomicU64::new(0);
/// When non-zero, the request retires this root instead of flushing a
/// range: targets that still have it loaded switch to the kernel table.
static RETIRING: AtomicU64 = AtomicU64::new(0);
/// Shootdown IPIs sent, for tests and the state dump.
static SENT: AtomicU64 = AtomicU64::new(0);

const _: () = assert!(percpu::MAX_CPUS <= 64, "PENDING has one bit per CPU");

/// Records that this CPU is about to load `root` into CR3.
pub(crate) fn note_loaded(root: u64) {
    percpu::this_cpu().loaded_root.store(root, Ordering::SeqCst);
}

/// Flushes `[start, end)` (user addresses of the table `root`) from every
/// other CPU that has `root` loaded; returns once all of them have. The
/// caller has already changed the entries and flushed its own TLB.
pub(crate) fn shootdown(root: u64, start: usize, end: usize) {
    request(root, start, end, false);
}

/// Flushes `[start, end)` of the kernel's half (global mappings) from
/// every other online CPU; returns once all of them have. The caller has
/// already removed the mappings and flushed its own TLB; the frames behind
/// them may be freed afterwards.
pub(crate) fn shootdown_kernel(start: usize, end: usize) {
    request(0, start, end, false);
}

/// Makes every other CPU that still has `root` loaded switch to the kernel
/// table, and returns once none has: the table is about to be freed. A CPU
/// can hold the root of a dead address space for a moment: an exiting
/// thread stays on its CPU, its process's table loaded, until it switches
/// away, while the process's last thread (or an exec) frees the table on
/// another CPU. Such a CPU only runs kernel code, which every table maps
/// alike, so changing its CR3 under it is safe.
pub(crate) fn retire(root: u64) {
    request(root, 0, usize::MAX, true);
}

fn request(root: u64, start: usize, end: usize, retiring: bool) {
    // Order the page-table writes before reading the roots.
    fence(Ordering::SeqCst);
    let me = percpu::cpu_index();
    let mut targets = 0u64;
    for index in 0..smp::cpu_count() {
        let cpu = percpu::cpu(index);
        // Root 0: a kernel range, cached by every CPU whatever it runs.
        if index != me && cpu.is_online() && (root == 0 || cpu.loaded_root.load(Ordering::SeqCst) == root) {
            targets |= 1 << index;
        }
    }
    if targets == 0 {
        return;
    }
    let was_enabled = interrupts::are_enabled();
    interrupts::disable();
    while BUSY.compare_exchange_weak(false, true, Ordering::Acquire, Ordering::Relaxed).is_err() {
        serve();
        core::hint::spin_loop();
    }
    START.store(start, Ordering::Relaxed);
    END.store(end, Ordering::Relaxed);
    RETIRING.store(if retiring { root } else { 0 }, Ordering::Relaxed);
    PENDING.store(targets, Ordering::Release);
    for index in 0..smp::cpu_count() {
        if targets & (1 << index) != 0 {
            apic::send_fixed(percpu::cpu(index).apic_id(), vectors::IPI_TLB);
            SENT.fetch_add(1, Ordering::Relaxed);
        }
    }
    while PENDING.load(Ordering::Acquire) != 0 {
        core::hint::spin_loop();
    }
    BUSY.store(false, Ordering::Release);
    if was_enabled {
        interrupts::enable();
    }
}

/// The IPI handler: flushes what the request in flight asks, if this CPU
/// is one of its targets.
pub(crate) fn handle_ipi() {
    serve();
}

fn serve() {
    let bit = 1u64 << percpu::cpu_index();
    if PENDING.load(Ordering::Acquire) & bit == 0 {
        return;
    }
    let retiring = RETIRING.load(Ordering::Relaxed);
    if retiring != 0 {
        // Still on the dying table? Leave it (the CR3 write flushes too);
        // a CPU that moved on already flushed when it did.
        if percpu::this_cpu().loaded_root.load(Ordering::SeqCst) == retiring {
            super::paging::activate_kernel_table();
        }
        PENDING.fetch_and(!bit, Ordering::AcqRel);
        return;
    }
    let (start, end) = (START.load(Ordering::Relaxed), END.load(Ordering::Relaxed));
    // Kernel ranges are global entries, which only INVLPG drops.
    let kernel_range = start >= crate::mm::addr::DIRECT_MAP_BASE && end != usize::MAX;
    if !kernel_range && (end == usize::MAX || (end - start) / PAGE_SIZE > MAX_SINGLE_PAGES) {
        flush_all_local();
    } else {
        for va in (start..end).step_by(PAGE_SIZE) {
            // SAFETY: INVLPG only drops a TLB entry.
            unsafe { asm!("invlpg [{}]", in(reg) va, options(nostack, preserves_flags)) };
        }
    }
    PENDING.fetch_and(!bit, Ordering::AcqRel);
}

/// Drops every non-global TLB entry of this CPU (reloads CR3).
fn flush_all_local() {
    // SAFETY: writing CR3 back with its own value only flushes the TLB.
    unsafe {
        asm!("mov {tmp}, cr3", "mov cr3, {tmp}", tmp = out(reg) _, options(nostack, preserves_flags));
    }
}

/// Returns how many shootdown IPIs this kernel has sent.
pub fn ipis_sent() -> u64 {
    SENT.load(Ordering::Relaxed)
}
