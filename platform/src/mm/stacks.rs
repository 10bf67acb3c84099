//! Kernel stacks with guard pages.
//!
//! Stacks live in their own region of the kernel's half, each slot an
//! unmapped guard page followed by the mapped stack, so running off the end
//! faults instead of silently corrupting a neighbour. The fault then lands
//! on the double-fault IST stack and is reported as a stack overflow.
//!
//! Stacks of finished tasks are kept mapped for the next task (a process
//! workload reuses them at once), up to [`CACHED_STACKS`]; the ones beyond
//! wait in a release list until [`release_excess`] (called by the kernel
//! from process context with no lock held) unmaps them, shoots their
//! translations down on every CPU and frees the frames, so a burst of
//! tasks (a fork bomb) gives its memory back. Free slots are reused.

use core::sync::atomic::{AtomicUsize, Ordering};

use alloc::vec::Vec;

use super::addr::{PhysAddr, PAGE_SIZE};
use crate::sync::SpinLock;
use super::pmm;
use crate::arch::paging::{self, PageFlags};

/// The region's start (PML4 slot 257).
pub const STACK_REGION_BASE: usize = 0xffff_8080_0000_0000;
const STACK_REGION_SIZE: usize = 1 << 39;
/// Pages in one kernel stack (guard page not counted).
pub const STACK_PAGES: usize = 8;
const SLOT_SIZE: usize = (STACK_PAGES + 1) * PAGE_SIZE;
/// Mapped stacks kept for reuse (512 KiB; Linux keeps two per CPU).
pub const CACHED_STACKS: usize = 16;

static NEXT_SLOT: AtomicUsize = AtomicUsize::new(0);
/// Mapped stacks of finished tasks, ready for the next task.
static FREE_STACKS: SpinLock<Vec<KernelStack>> = SpinLock::new(Vec::new());
/// Mapped stacks beyond the cache, waiting for [`release_excess`].
static EXCESS: SpinLock<Vec<KernelStack>> = SpinLock::new(Vec::new());
static HAS_EXCESS: crate::attention::Flag = crate::attention::Flag::new(crate::attention::STACKS_EXCESS);
/// Slots whose stack was unmapped and freed: reused before new slots.
static FREE_SLOTS: SpinLock<Vec<usize>> = SpinLock::new(Vec::new());

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

/// Returns a stack for reuse: to the cache, or past its bound to the
/// release list (freed later by [`release_excess`]; unmapping needs a
/// shootdown, which is not safe from every context a task is dropped in).
pub fn free(stack: KernelStack) {
    {
        let mut cache = FREE_STACKS.lock();
        if cache.len() < CACHED_STACKS {
            cache.push(stack);
            return;
        }
    }
    EXCESS.lock().push(stack);
    HAS_EXCESS.set();
}

/// Returns whether stacks wait for [`release_excess`].
#[inline]
pub fn has_excess() -> bool {
    HAS_EXCESS.get()
}

/// Unmaps and frees the stacks beyond the cache. Call from process
/// context with no lock held and interrupts enabled (it waits for every
/// CPU to flush).
pub fn release_excess() {
    if !HAS_EXCESS.take() {
        return;
    }
    loop {
        let Some(stack) = EXCESS.lock().pop() else { break };
        let mut frames = [PhysAddr::new(0); STACK_PAGES];
        for (page, frame) in frames.iter_mut().enumerate() {
            *frame = paging::unmap_kernel_page(stack.bottom + page * PAGE_SIZE).expect("a cached kernel stack was not mapped");
        }
        crate::arch::x86_64::tlb::shootdown_kernel(stack.bottom, stack.top());
        for frame in frames {
            pmm::free(frame, 0);
        }
        FREE_SLOTS.lock().push(stack.bottom);
    }
}

/// Returns how many mapped stacks are kept for reuse (cache and release
/// list), for /proc/meminfo's KernelStack.
pub fn cached_count() -> usize {
    FREE_STACKS.lock().len() + EXCESS.lock().len()
}

/// Allocates and maps a kernel stack below a guard page. The frames are
/// user-driven memory (every task is some program's): they stop short of
/// the kernel's reserve.
pub fn alloc() -> Option<KernelStack> {
    if let Some(stack) = FREE_STACKS.lock().pop() {
        return Some(stack);
    }
    if let Some(stack) = EXCESS.lock().pop() {
        return Some(stack);
    }
    let mut frames = [PhysAddr::new(0); STACK_PAGES];
    for i in 0..STACK_PAGES {
        match pmm::alloc_user_zeroed(0) {
            Some(pa) => frames[i] = pa,
            None => {
                for &pa in &frames[..i] {
                    pmm::free(pa, 0);
                }
                return None;
            }
        }
    }
    let bottom = match FREE_SLOTS.lock().pop() {
        Some(bottom) => bottom,
        None => {
            let slot = NEXT_SLOT.fetch_add(1, Ordering::Relaxed);
            if (slot + 1) * SLOT_SIZE > STACK_REGION_SIZE {
                for pa in frames {
                    pmm::free(pa, 0);
                }
                return None;
            }
            STACK_REGION_BASE + slot * SLOT_SIZE + PAGE_SIZE
        }
    };
    for (page, &pa) in frames.iter().enumerate() {
        // Mapping into an existing table cannot fail but for the table
        // pages of a new 2 MiB stretch of the region, from the heap's side
        // of memory (the kernel table is the kernel's).
        if paging::map_kernel_page(bottom + page * PAGE_SIZE, pa, PageFlags::WRITABLE | PageFlags::NO_EXECUTE).is_err() {
            for undo in 0..page {
                let _ = paging::unmap_kernel_page(bottom + undo * PAGE_SIZE);
            }
            // Nothing used these pages, but a CPU may have cached them
            // speculatively.
            crate::arch::x86_64::tlb::shootdown_kernel(bottom, bottom + STACK_PAGES * PAGE_SIZE);
            for pa in frames {
                pmm::free(pa, 0);
            }
            FREE_SLOTS.lock().push(bottom);
            return None;
        }
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
