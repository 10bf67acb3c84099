//! Kernel stacks with guard pages.
//!
//! Stacks live in their own region of the kernel's half, each slot an
//! unmapped guard page followed by the mapped stack, so running off the end
//! faults instead of silently corrupting a neighbour. The fault then lands
//! on the double-fault IST stack and is reported as a stack overflow.

use core::sync::atomic::{AtomicUsize, Ordering};

use alloc::vec::Vec;

use super::addr::PAGE_SIZE;
use crate::sync::SpinLock;
use super::pmm;
use crate::arch::paging::{self, PageFlags};

/// The region's start (PML4 slot 257).
pub const STACK_REGION_BASE: usize = 0xffff_8080_0000_0000;
const STACK_REGION_SIZE: usize = 1 << 39;
/// Pages in one kernel stack (guard page not counted).
pub const STACK_PAGES: usize = 8;
const SLOT_SIZE: usize = (STACK_PAGES + 1) * PAGE_SIZE;

static NEXT_SLOT: AtomicUsize = AtomicUsize::new(0);
/// Stacks of finished tasks, kept mapped for the next task: unmapping
/// kernel mappings would need a TLB shootdown on every CPU, and a process
/// workload reuses stacks at once.
static FREE_STACKS: SpinLock<Vec<KernelStack>> = SpinLock::new(Vec::new());

/// A mapped kernel stack (returned to a cache on free).
#[derive(Clone, Copy, Debug)]
pub struct KernelStack {
    bottom: usize,
}

impl KernelStack {
    /// Returns the initial stack pointer (the top, 16-byte aligned).
    pub fn top(&self) -> usize {
        self.bottom + STACK_PAGES * PAGE_SIZE
    }

    /// Returns the lowest mapped address.
    pub fn bottom(&self) -> usize {
        self.bottom
    }
}

/// Returns a stack to the cache for reuse.
pub fn free(stack: KernelStack) {
    FREE_STACKS.lock().push(stack);
}

/// Allocates and maps a kernel stack below a guard page.
pub fn alloc() -> Option<KernelStack> {
    if let Some(stack) = FREE_STACKS.lock().pop() {
        return Some(stack);
    }
    let slot = NEXT_SLOT.fetch_add(1, Ordering::Relaxed);
    if (slot + 1) * SLOT_SIZE > STACK_REGION_SIZE {
        return None;
    }
    let bottom = STACK_REGION_BASE + slot * SLOT_SIZE + PAGE_SIZE;
    for page in 0..STACK_PAGES {
        let pa = pmm::alloc_zeroed(0)?;
        paging::map_kernel_page(bottom + page * PAGE_SIZE, pa, PageFlags::WRITABLE | PageFlags::NO_EXECUTE)
            .ok()?;
    }
    Some(KernelStack { bottom })
}

/// Returns whether `addr` is in a stack guard page (the boot CPU's stack
/// has one in the kernel image, the rest in the stack region).
pub fn is_guard_address(addr: u64) -> bool {
    let addr = addr as usize;
    if crate::arch::x86_64::boot::boot_stack_guard_range().contains(&addr) {
        return true;
    }
    (STACK_REGION_BASE..STACK_REGION_BASE + STACK_REGION_SIZE).contains(&addr)
        && (addr - STACK_REGION_BASE) % SLOT_SIZE < PAGE_SIZE
}
