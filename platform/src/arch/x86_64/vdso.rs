//! The vDSO: a small shared object (vdso/vdso.c, built by build.rs) that
//! every process gets mapped, so `clock_gettime`, `gettimeofday` and
//! `time` run in user mode from the TSC, and the vvar page it reads: the
//! clock parameters, written only by the kernel.
//!
//! Layout in a process: the vvar page, then the image's pages right after
//! it (the image finds the vvar page one page below its own start).

use alloc::vec::Vec;
use core::sync::atomic::{AtomicBool, Ordering};

use crate::mm::pmm::PageRef;
use crate::mm::PAGE_SIZE;
use crate::sync::SpinLock;

/// The linked vDSO image.
static IMAGE: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/vdso.so"));

/// Offsets of the fields of the vvar page (`struct vvar` in vdso.c).
const VVAR_TSC_ORIGIN: usize = 0;
const VVAR_NS_PER_CYCLE: usize = 8;
const VVAR_WALL_AT_ORIGIN: usize = 16;
const VVAR_READY: usize = 24;

struct Pages {
    vvar: PageRef,
    image: Vec<PageRef>,
}

static PAGES: SpinLock<Option<Pages>> = SpinLock::new(None);
static READY: AtomicBool = AtomicBool::new(false);

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
    let (origin, ns_per_cycle, wall) = super::time::vdso_parameters();
    vvar.write(VVAR_TSC_ORIGIN, &origin.to_le_bytes());
    vvar.write(VVAR_NS_PER_CYCLE, &ns_per_cycle.to_le_bytes());
    vvar.write(VVAR_WALL_AT_ORIGIN, &wall.to_le_bytes());
    vvar.write(VVAR_READY, &1u64.to_le_bytes());
    *PAGES.lock() = Some(Pages { vvar, image });
    READY.store(true, Ordering::Release);
    true
}

/// Publishes a new wall-clock offset (after clock_settime/settimeofday).
/// One aligned 8-byte store: readers see the old or the new value.
pub(crate) fn set_wall_at_origin(ns: u64) {
    if READY.load(Ordering::Acquire) {
        if let Some(pages) = PAGES.lock().as_ref() {
            pages.vvar.write_u64(VVAR_WALL_AT_ORIGIN, ns);
        }
    }
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
