//! The kernel heap behind `alloc`: size-class slabs for small objects,
//! whole buddy blocks for large ones.
//!
//! Small objects (up to 2 KiB) come from per-class free lists threaded
//! through the free objects themselves; a class refills by carving one page
//! into objects. Larger requests take a block of 2^order pages from the
//! page-frame allocator and give it back on free; the layout passed to
//! `dealloc` tells the order, so no header is needed.
//!
//! A class whose free list grows to twice what its last search kept plus
//! [`SHRINK_SLACK`] gives back the pages whose objects are all free, so
//! memory a burst of processes used returns to the frame allocator.
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
/// Pages the heap holds from the frame allocator: carved into objects
/// (used or free) or lent whole to large allocations.
static PAGES_HELD: AtomicUsize = AtomicUsize::new(0);

/// A free object: the first word of every free slot links to the next.
struct FreeObject {
    next: Option<NonNull<FreeObject>>,
}

struct SizeClass {
    head: Option<NonNull<FreeObject>>,
    /// Objects on the free list.
    free: usize,
    /// Free bytes at which the list is next searched for wholly free pages.
    shrink_at: usize,
}

/// The least free memory a size class keeps before it looks for pages to
/// give back.
const SHRINK_SLACK: usize = 64 * 1024;

// SAFETY: the pointers refer to heap memory owned by the allocator; the list
// is only reached under its SpinLock.
unsafe impl Send for SizeClass {}

static CLASSES: [SpinLock<SizeClass>; CLASS_SIZES.len()] =
    [const { SpinLock::new(SizeClass { head: None, free: 0, shrink_at: SHRINK_SLACK }) }; CLASS_SIZES.len()];

/// Switches page refills from the boot arena to the page-frame allocator.
pub(crate) fn pmm_ready() {
    PMM_READY.store(true, Ordering::Release);
}

/// Returns the bytes of memory the heap holds from the frame allocator
/// (free objects in its size classes included): /proc/meminfo's Slab.
pub fn bytes_held() -> usize {
    PAGES_HELD.load(Ordering::Relaxed) * PAGE_SIZE
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
            Some(pa) => {
                PAGES_HELD.fetch_add(1 << order, Ordering::Relaxed);
                pa.direct_map() as *mut u8
            }
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
    PAGES_HELD.fetch_sub(1 << order, Ordering::Relaxed);
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
                        list.free -= 1;
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
                list.free += 1;
                if list.free * CLASS_SIZES[class] >= list.shrink_at {
                    shrink(&mut list, CLASS_SIZES[class]);
                }
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
    list.free += PAGE_SIZE / size;
}

/// Searches every size class for wholly free pages and gives them back
/// (after a burst of tasks ended: the kernel calls it when kernel stacks
/// beyond the cache are released).
pub fn shrink_all() {
    for (class, &size) in CLASS_SIZES.iter().enumerate() {
        let mut list = CLASSES[class].lock();
        if list.free * size >= SHRINK_SLACK {
            shrink(&mut list, size);
        }
    }
}

/// The page of a free object, if it is a page of the frame allocator (boot
/// arena pages, in the kernel image, are never given back).
fn object_page(obj: NonNull<FreeObject>) -> Option<PhysAddr> {
    let addr = obj.as_ptr() as usize;
    let (arena_start, arena_end) = boot_arena_range();
    if (arena_start..arena_end).contains(&addr) || addr < DIRECT_MAP_BASE {
        return None;
    }
    Some(PhysAddr::new(((addr - DIRECT_MAP_BASE) & !(PAGE_SIZE - 1)) as u64))
}

/// Gives back the pages of `list` whose objects are all free, in passes
/// of at most 256 pages.
fn shrink(list: &mut SizeClass, size: usize) {
    while shrink_pass(list, size) == SHRINK_PASS_PAGES {}
}

const SHRINK_PASS_PAGES: usize = 256;

/// One pass: counts the free objects of each page in its frame counter,
/// rebuilds the list without the objects of full pages (up to 256 of
/// them), then frees those pages; returns how many. The list lock is held
/// throughout.
fn shrink_pass(list: &mut SizeClass, size: usize) -> usize {
    const MAX_PAGES: usize = SHRINK_PASS_PAGES;
    const RECORDED: u32 = u32::MAX;
    let per_page = (PAGE_SIZE / size) as u32;
    let next_of = |obj: NonNull<FreeObject>| {
        // SAFETY: objects on the free list are free slots holding a valid
        // `FreeObject`, owned by the allocator under the held lock.
        unsafe { obj.as_ref().next }
    };
    let mut cursor = list.head;
    while let Some(obj) = cursor {
        if let Some(page) = object_page(obj) {
            pmm::frame_counter(page).fetch_add(1, Ordering::Relaxed);
        }
        cursor = next_of(obj);
    }
    let mut doomed = [PhysAddr::new(0); MAX_PAGES];
    let mut doomed_len = 0;
    let mut kept: Option<NonNull<FreeObject>> = None;
    let mut kept_count = 0;
    let mut cursor = list.head;
    while let Some(obj) = cursor {
        cursor = next_of(obj);
        if let Some(page) = object_page(obj) {
            let counter = pmm::frame_counter(page);
            let count = counter.load(Ordering::Relaxed);
            if count == per_page && doomed_len < MAX_PAGES {
                doomed[doomed_len] = page;
                doomed_len += 1;
                counter.store(RECORDED, Ordering::Relaxed);
                continue;
            }
            if count == RECORDED {
                continue;
            }
        }
        // SAFETY: as above; the object moves to the rebuilt list.
        unsafe { obj.as_ptr().write(FreeObject { next: kept }) };
        kept = Some(obj);
        kept_count += 1;
    }
    let mut cursor = kept;
    while let Some(obj) = cursor {
        if let Some(page) = object_page(obj) {
            pmm::frame_counter(page).store(0, Ordering::Relaxed);
        }
        cursor = next_of(obj);
    }
    list.head = kept;
    list.free = kept_count;
    // The next search waits for as many free bytes again as it kept (at
    // least the slack), so searching costs a bounded amount per free.
    list.shrink_at = 2 * kept_count * size + SHRINK_SLACK;
    for &page in &doomed[..doomed_len] {
        pmm::frame_counter(page).store(0, Ordering::Relaxed);
        pmm::free(page, 0);
    }
    PAGES_HELD.fetch_sub(doomed_len, Ordering::Relaxed);
    doomed_len
}

#[global_allocator]
static HEAP: KernelHeap = KernelHeap;
