//! The vDSO: a small shared object (vdso/vdso.c, built by build.rs) that
//! every process gets mapped, so `clock_gettime`, `gettimeofday` and
//! `time` run in user mode from the TSC, and the vvar page it reads: the
//! clock parameters, written only by the kernel.
//!
//! Layout in a process: the vvar page, then the image's pages right after
//! it (the image finds the vvar page one page below its own start).

use alloc::vec::Vec;
use core::sync::atomic::{AtomicUsize, Ordering};

use crate::mm::pmm::PageRef;
use crate::mm::PAGE_SIZE;
use crate::sync::{IrqSpinLock, SpinLock};

/// The linked vDSO image.
static IMAGE: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/vdso.so"));

/// Offsets of the fields of the vvar page (`struct vvar` in vdso.c).
const VVAR_SEQ: usize = 0;
const VVAR_BASE_TSC: usize = 8;
const VVAR_BASE_NS: usize = 16;
const VVAR_NS_PER_CYCLE: usize = 24;
const VVAR_WALL_AT_ORIGIN: usize = 32;
const VVAR_READY: usize = 40;

struct Pages {
    vvar: PageRef,
    image: Vec<PageRef>,
}

static PAGES: SpinLock<Option<Pages>> = SpinLock::new(None);
/// The vvar page's direct-map address once `init` published it (0 before).
/// The page is never freed (`PAGES` keeps it), so the clock can update it
/// without taking `PAGES`' lock, from the timer interrupt.
static VVAR: AtomicUsize = AtomicUsize::new(0);
/// Serialises the writers of the vvar page's clock fields (the boot CPU
/// steering the clock, `init` on any CPU).
static VVAR_CLOCK: IrqSpinLock<()> = IrqSpinLock::new(());

/// Copies the image into frames and publishes the clock parameters; call
/// once the TSC is calibrated. Returns false if memory ran out (processes
/// then get no vDSO and use the system calls).
pub fn init() -> bool {
    let Some(vvar) = PageRef::alloc_zeroed() else { return false };
    let mut image = Vec::new();
    for chunk in IMAGE.chunks(PAGE_SIZE) {
        let Some(page) = PageRef::alloc_zeroed() else { return false };
        page.write(0, chunk);
        image.push(page);
    }
    let (base_tsc, base_ns, ns_per_cycle, wall) = super::time::vdso_parameters();
    vvar.write(VVAR_BASE_TSC, &base_tsc.to_le_bytes());
    vvar.write(VVAR_BASE_NS, &base_ns.to_le_bytes());
    vvar.write(VVAR_NS_PER_CYCLE, &ns_per_cycle.to_le_bytes());
    vvar.write(VVAR_WALL_AT_ORIGIN, &wall.to_le_bytes());
    vvar.write(VVAR_READY, &1u64.to_le_bytes());
    let address = vvar.phys_addr().direct_map();
    *PAGES.lock() = Some(Pages { vvar, image });
    VVAR.store(address, Ordering::Release);
    // The clock may have been steered while the page was being filled.
    sync_clock();
    true
}

fn store(offset: usize, value: u64) {
    let base = VVAR.load(Ordering::Acquire);
    if base != 0 {
        // SAFETY: `base` is the direct-map address of the vvar page, which
        // `PAGES` keeps allocated forever; `offset` is one of the aligned
        // fields above. User space maps the page read-only, and the kernel
        // writes it only here, one aligned 8-byte store at a time.
        unsafe { core::ptr::write_volatile((base + offset) as *mut u64, value) };
    }
}

/// Copies the kernel clock's current parameters into the vvar page, under
/// the page's sequence count: odd while they change (readers retry), as
/// the kernel's own.
pub(crate) fn sync_clock() {
    let base = VVAR.load(Ordering::Acquire);
    if base == 0 {
        return;
    }
    let _writer = VVAR_CLOCK.lock();
    let (base_tsc, base_ns, ns_per_cycle, _) = super::time::vdso_parameters();
    // SAFETY: as in `store`; the writers hold `VVAR_CLOCK`, so reading the
    // count back is race-free.
    let seq = unsafe { core::ptr::read_volatile((base + VVAR_SEQ) as *const u64) };
    store(VVAR_SEQ, seq | 1);
    core::sync::atomic::compiler_fence(Ordering::SeqCst);
    store(VVAR_BASE_TSC, base_tsc);
    store(VVAR_BASE_NS, base_ns);
    store(VVAR_NS_PER_CYCLE, ns_per_cycle);
    core::sync::atomic::compiler_fence(Ordering::SeqCst);
    // x86 keeps stores in order, so a reader that sees an even count again
    // has seen all three fields.
    store(VVAR_SEQ, (seq | 1).wrapping_add(1));
}

/// Publishes a new wall-clock offset (after clock_settime/settimeofday).
/// One aligned 8-byte store: readers see the old or the new value.
pub(crate) fn set_wall_at_origin(ns: u64) {
    store(VVAR_WALL_AT_ORIGIN, ns);
}

/// Returns the vvar page and the image's pages (in order), to map into a
/// process; `None` before `init`.
pub fn pages() -> Option<(PageRef, Vec<PageRef>)> {
    PAGES.lock().as_ref().map(|p| (p.vvar.clone(), p.image.clone()))
}

/// Returns the image (for tests: its ELF header and symbols).
pub fn image() -> &'static [u8] {
    IMAGE
}
