//! The kernel heap behind `alloc`: size-class slabs for small objects,
//! whole buddy blocks for large ones.
//!
//! Small objects (up to 2 KiB) come from per-class free lists threaded
//! through the free objects themselves; a class refills by carving one page
//! into objects. Larger requests take a block of 2^order pages from the
//! page-frame allocator and give it back on free; the layout passed to
//! `dealloc` tells the order, so no header is needed.
//!
//! Until the page-frame allocator exists (parsing the boot information
//! already needs `Vec` and `String`), pages come from a small arena in
//! `.bss`; those are never returned.

use core::alloc::{GlobalAlloc, Layout};
use core::ptr::{null_mut, NonNull};
use core::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use super::addr::{PhysAddr, DIRECT_MAP_BASE, PAGE_SIZE};
use super::pmm;
use crate::sync::SpinLock;

const CLASS_SIZES: [usize; 8] = [16, 32, 64, 128, 256, 512, 1024, 2048];
const BOOT_ARENA_SIZE: usize = 512 * 1024;

#[repr(C, align(4096))]
struct BootArena([u8; BOOT_ARENA_SIZE]);

static mut BOOT_ARENA: BootArena = BootArena([0; BOOT_ARENA_SIZE]);
static BOOT_ARENA_USED: AtomicUsize = AtomicUsize::new(0);
static PMM_READY: AtomicBool = AtomicBool::new(false);
static BYTES_IN_USE: AtomicUsize = AtomicUsize::new(0);

/// A free object: the first word of every free slot links to the next.
struct FreeObject {
    next: Option<NonNull<FreeObject>>,
}

struct SizeClass {
    head: Option<NonNull<FreeObject>>,
}

// SAFETY: the pointers refer to heap memory owned by the allocator; the list
// is only reached under its SpinLock.
unsafe impl Send for SizeClass {}

static CLASSES: [SpinLock<SizeClass>; CLASS_SIZES.len()] =
    [const { SpinLock::new(SizeClass { head: None }) }; CLASS_SIZES.len()];

/// Switches page refills from the boot arena to the page-frame allocator.
pub(crate) fn pmm_ready() {
    PMM_READY.store(true, Ordering::Release);
}

/// Returns the bytes currently allocated from the heap.
pub fn bytes_in_use() -> usize {
    BYTES_IN_USE.load(Ordering::Relaxed)
}

fn boot_arena_range() -> (usize, usize) {
    let start = core::ptr::addr_of!(BOOT_ARENA) as usize;
    (start, start + BOOT_ARENA_SIZE)
}

/// Returns `2^order` pages as a kernel virtual address.
fn alloc_pages(order: usize) -> *mut u8 {
    if PMM_READY.load(Ordering::Acquire) {
        return match pmm::alloc(order) {
            Some(pa) => pa.direct_map() as *mut u8,
            None => null_mut(),
        };
    }
    let size = PAGE_SIZE << order;
    let mut used = BOOT_ARENA_USED.load(Ordering::Relaxed);
    loop {
        // Blocks are aligned to their size, as the buddy allocator's are.
        let start = used.next_multiple_of(size);
        if start + size > BOOT_ARENA_SIZE {
            return null_mut();
        }
        match BOOT_ARENA_USED.compare_exchange(used, start + size, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => return (boot_arena_range().0 + start) as *mut u8,
            Err(now) => used = now,
        }
    }
}

fn free_pages(ptr: *mut u8, order: usize) {
    let addr = ptr as usize;
    let (arena_start, arena_end) = boot_arena_range();
    if (arena_start..arena_end).contains(&addr) {
        return; // boot arena pages are never reused
    }
    pmm::free(PhysAddr::new((addr - DIRECT_MAP_BASE) as u64), order);
}

fn class_index(layout: &Layout) -> Option<usize> {
    let size = layout.size().max(layout.align());
    CLASS_SIZES.iter().position(|&c| c >= size)
}

fn large_order(layout: &Layout) -> usize {
    let pages = layout.size().max(layout.align()).div_ceil(PAGE_SIZE);
    pages.next_power_of_two().trailing_zeros() as usize
}

/// The global allocator.
pub struct KernelHeap;

// SAFETY: every block handed out is exclusively the caller's until `dealloc`
// returns it; size classes and page orders are derived from the layout both
// ways, so a block always goes back where it came from.
unsafe impl GlobalAlloc for KernelHeap {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let ptr = match class_index(&layout) {
            Some(class) => {
                let mut list = CLASSES[class].lock();
                if list.head.is_none() {
                    refill(&mut list, CLASS_SIZES[class]);
                }
                match list.head {
                    Some(obj) => {
                        // SAFETY: objects on a free list are free slots this
                        // allocator owns, holding a valid `FreeObject`.
                        list.head = unsafe { obj.as_ref().next };
                        obj.as_ptr() as *mut u8
                    }
                    None => null_mut(),
                }
            }
            None => alloc_pages(large_order(&layout)),
        };
        if !ptr.is_null() {
            BYTES_IN_USE.fetch_add(layout.size(), Ordering::Relaxed);
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        BYTES_IN_USE.fetch_sub(layout.size(), Ordering::Relaxed);
        match class_index(&layout) {
            Some(class) => {
                let mut list = CLASSES[class].lock();
                let obj = ptr as *mut FreeObject;
                // SAFETY: the caller gives the block back; it is at least 16
                // bytes and 16-aligned, so a `FreeObject` fits.
                unsafe { obj.write(FreeObject { next: list.head }) };
                list.head = NonNull::new(obj);
            }
            None => free_pages(ptr, large_order(&layout)),
        }
    }
}

/// Carves a fresh page into objects of `size` bytes onto the free list.
fn refill(list: &mut SizeClass, size: usize) {
    let page = alloc_pages(0);
    if page.is_null() {
        return;
    }
    for offset in (0..PAGE_SIZE).step_by(size).rev() {
        // SAFETY: the page was just allocated for this class; each slot is
        // in bounds and aligned to `size` (a power of two <= the page).
        unsafe {
            let obj = page.add(offset) as *mut FreeObject;
            obj.write(FreeObject { next: list.head });
            list.head = NonNull::new(obj);
        }
    }
}

#[global_allocator]
static HEAP: KernelHeap = KernelHeap;
