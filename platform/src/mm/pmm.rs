//! The page-frame allocator: a buddy allocator over all usable RAM.
//!
//! Its per-frame metadata (12 bytes a frame) is carved out of the first
//! usable RAM range large enough to hold it. RAM above 4 GiB is added only
//! after the kernel's direct map covers it, because the boot page tables map
//! just the first 4 GiB and the allocator's free lists live in the metadata,
//! while page-table pages must be writable through the direct map as soon as
//! they are handed out.

use core::sync::atomic::{AtomicU32, AtomicUsize, Ordering};

use kevlar_buddy::{BuddyAllocator, FrameLink, MAX_ORDER};

use super::addr::{PhysAddr, PAGE_SIZE};
use crate::sync::SpinLock;

static ALLOCATOR: SpinLock<Option<BuddyAllocator<'static>>> = SpinLock::new(None);
/// Ranges held back until the direct map covers them.
static DEFERRED: SpinLock<RangeList> = SpinLock::new(RangeList::new());
static TOTAL_FRAMES: AtomicUsize = AtomicUsize::new(0);
static MAX_FRAME: AtomicUsize = AtomicUsize::new(0);
/// Address of the per-frame reference counts of pages handed out as
/// [`PageRef`]s (the equivalent of Linux's `struct page` count), carved out
/// with the buddy metadata; MAX_FRAME entries.
static REFCOUNTS_BASE: AtomicUsize = AtomicUsize::new(0);

/// Frames only the kernel's own allocations may take (the heap, which the
/// exit and signal paths use): user memory, page tables and kernel stacks
/// stop short of them, so a task that memory ran out on can still be
/// killed and can still exit. Set at init from the RAM size.
static RESERVE_FRAMES: AtomicUsize = AtomicUsize::new(0);
/// Set when a kernel allocation had to dip into the reserve; the kernel
/// looks at it on its way to user mode and frees memory (the OOM killer).
static PRESSURE: crate::attention::Flag = crate::attention::Flag::new(crate::attention::MEMORY_PRESSURE);

/// The largest block order callers may ask for (1 GiB).
pub const MAX_BLOCK_ORDER: usize = MAX_ORDER;

const EARLY_LIMIT: u64 = 4 << 30;

pub(crate) struct RangeList {
    ranges: [(u64, u64); 64],
    len: usize,
}

impl RangeList {
    pub(crate) const fn new() -> Self {
        Self { ranges: [(0, 0); 64], len: 0 }
    }

    pub(crate) fn push(&mut self, start: u64, end: u64) {
        if start < end && self.len < self.ranges.len() {
            self.ranges[self.len] = (start, end);
            self.len += 1;
        }
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.ranges[..self.len].iter().copied()
    }

    /// Returns `[start, end)` minus every range in `holes`, as pieces.
    pub(crate) fn subtract(start: u64, end: u64, holes: &RangeList, out: &mut RangeList) {
        let mut pieces = RangeList::new();
        pieces.push(start, end);
        for (hs, he) in holes.iter() {
            let mut next = RangeList::new();
            for (s, e) in pieces.iter() {
                if he <= s || hs >= e {
                    next.push(s, e);
                } else {
                    next.push(s, hs.max(s).min(e));
                    next.push(he.min(e).max(s), e);
                }
            }
            pieces = next;
        }
        for (s, e) in pieces.iter() {
            out.push(s, e);
        }
    }
}

/// Sets up the allocator from the usable RAM ranges, minus `reserved` (the
/// kernel image, boot modules, the first MiB). Only memory below 4 GiB is
/// handed out until [`add_deferred_ranges`].
pub(crate) fn init(usable: &RangeList, reserved: &RangeList) {
    let max_end = usable.iter().map(|(_, e)| e).max().unwrap_or(0);
    let frame_count = (max_end as usize).div_ceil(PAGE_SIZE);
    let links_bytes = (frame_count * core::mem::size_of::<FrameLink>()).next_multiple_of(PAGE_SIZE);
    let refcount_bytes = (frame_count * core::mem::size_of::<AtomicU32>()).next_multiple_of(PAGE_SIZE);
    let meta_bytes = (links_bytes + refcount_bytes) as u64;

    let mut free = RangeList::new();
    for (s, e) in usable.iter() {
        RangeList::subtract(s, e, reserved, &mut free);
    }
    let (meta_start, _) = free
        .iter()
        .find(|&(s, e)| e - s >= meta_bytes && e <= EARLY_LIMIT)
        .expect("no RAM range below 4 GiB can hold the page-frame metadata");
    let mut holes = RangeList::new();
    for r in reserved.iter() {
        holes.push(r.0, r.1);
    }
    holes.push(meta_start, meta_start + meta_bytes);
    let mut final_free = RangeList::new();
    for (s, e) in usable.iter() {
        RangeList::subtract(s, e, &holes, &mut final_free);
    }

    let meta_virt = PhysAddr::new(meta_start).direct_map();
    // SAFETY: [meta_start, meta_start + meta_bytes) is usable RAM below
    // 4 GiB (mapped by the boot direct map), excluded from every range given
    // to the allocator, and never freed, so this is the only reference to it
    // for the rest of the kernel's life. Zeroing it first makes every
    // FrameLink valid (all-zero means "not free").
    let (links, refcounts): (&'static mut [FrameLink], &'static [AtomicU32]) = unsafe {
        core::ptr::write_bytes(meta_virt as *mut u8, 0, meta_bytes as usize);
        (
            core::slice::from_raw_parts_mut(meta_virt as *mut FrameLink, frame_count),
            core::slice::from_raw_parts((meta_virt + links_bytes) as *const AtomicU32, frame_count),
        )
    };
    REFCOUNTS_BASE.store(refcounts.as_ptr() as usize, Ordering::Release);
    let mut buddy = BuddyAllocator::new(links);
    let mut deferred = DEFERRED.lock();
    let mut total = 0;
    for (s, e) in final_free.iter() {
        let s = s.next_multiple_of(PAGE_SIZE as u64);
        let e = e & !(PAGE_SIZE as u64 - 1);
        if s >= e {
            continue;
        }
        total += ((e - s) / PAGE_SIZE as u64) as usize;
        let early_end = e.min(EARLY_LIMIT);
        if s < early_end {
            buddy.add_free_range((s >> 12) as usize, (early_end >> 12) as usize);
        }
        if e > EARLY_LIMIT {
            deferred.push(s.max(EARLY_LIMIT), e);
        }
    }
    TOTAL_FRAMES.store(total, Ordering::Relaxed);
    // 1/64 of RAM, between 1 MiB and 16 MiB (4 MiB at 256 MiB).
    RESERVE_FRAMES.store((total / 64).clamp(256, 4096), Ordering::Relaxed);
    MAX_FRAME.store(frame_count, Ordering::Relaxed);
    *ALLOCATOR.lock() = Some(buddy);
}

/// Hands RAM above 4 GiB to the allocator, once the direct map covers it.
pub(crate) fn add_deferred_ranges() {
    let deferred = DEFERRED.lock();
    let mut guard = ALLOCATOR.lock();
    let buddy = guard.as_mut().expect("pmm not initialised");
    for (s, e) in deferred.iter() {
        buddy.add_free_range((s >> 12) as usize, (e >> 12) as usize);
    }
}

/// Returns one past the highest physical address of RAM.
pub fn max_phys_addr() -> u64 {
    (MAX_FRAME.load(Ordering::Relaxed) * PAGE_SIZE) as u64
}

/// Allocates 2^order contiguous, naturally aligned frames (contents
/// undefined) for the kernel itself: the reserve may be used, and using
/// it raises [`take_pressure`].
pub(crate) fn alloc(order: usize) -> Option<PhysAddr> {
    let mut guard = ALLOCATOR.lock();
    let buddy = guard.as_mut()?;
    let frame = buddy.alloc(order)?;
    if buddy.free_frames() < RESERVE_FRAMES.load(Ordering::Relaxed) {
        PRESSURE.set();
    }
    Some(PhysAddr::from_frame_number(frame))
}

/// Allocates 2^order frames on behalf of user space (its pages, page
/// tables and kernel stacks): fails rather than take the reserve.
pub(crate) fn alloc_user(order: usize) -> Option<PhysAddr> {
    let mut guard = ALLOCATOR.lock();
    let buddy = guard.as_mut()?;
    if buddy.free_frames() < RESERVE_FRAMES.load(Ordering::Relaxed) + (1 << order) {
        return None;
    }
    let frame = buddy.alloc(order)?;
    Some(PhysAddr::from_frame_number(frame))
}

/// Like [`alloc_user`], zero-filled.
pub(crate) fn alloc_user_zeroed(order: usize) -> Option<PhysAddr> {
    let pa = alloc_user(order)?;
    // SAFETY: as for `alloc_zeroed`.
    unsafe { core::ptr::write_bytes(pa.direct_map() as *mut u8, 0, PAGE_SIZE << order) };
    Some(pa)
}

/// Returns whether a kernel allocation dipped into the reserve since the
/// last [`take_pressure`], without clearing it.
#[inline]
pub fn has_pressure() -> bool {
    PRESSURE.get()
}

/// Returns and clears whether a kernel allocation dipped into the
/// reserve since the last call.
#[inline]
pub fn take_pressure() -> bool {
    PRESSURE.take()
}

/// Returns whether free memory is short: within 256 KiB of the reserve,
/// where user allocations (a kernel stack needs 32 KiB) start failing.
pub fn below_reserve() -> bool {
    let free = ALLOCATOR.lock().as_ref().map_or(0, |b| b.free_frames());
    free < RESERVE_FRAMES.load(Ordering::Relaxed) + 64
}

/// Returns whether the heap can take `bytes` more and still leave half
/// of the reserve free (the check the kernel makes before a buffer whose
/// size a user chose). Raises the pressure flag when it cannot.
pub fn heap_headroom(bytes: usize) -> bool {
    let free = ALLOCATOR.lock().as_ref().map_or(0, |b| b.free_frames());
    let wanted = bytes.div_ceil(PAGE_SIZE).saturating_add(RESERVE_FRAMES.load(Ordering::Relaxed) / 2);
    let ok = free >= wanted;
    if !ok {
        PRESSURE.set();
    }
    ok
}

/// The reserve, in bytes.
pub fn reserve_bytes() -> usize {
    RESERVE_FRAMES.load(Ordering::Relaxed) * PAGE_SIZE
}

/// Allocates 2^order frames and fills them with zeros.
pub(crate) fn alloc_zeroed(order: usize) -> Option<PhysAddr> {
    let pa = alloc(order)?;
    // SAFETY: the block was just allocated, so nothing else refers to it, and
    // all RAM handed out is covered by the direct map.
    unsafe { core::ptr::write_bytes(pa.direct_map() as *mut u8, 0, PAGE_SIZE << order) };
    Some(pa)
}

/// Returns a block to the allocator.
///
/// The caller must own the block (it came from `alloc` with the same order)
/// and nothing may use it afterwards.
pub(crate) fn free(pa: PhysAddr, order: usize) {
    ALLOCATOR.lock().as_mut().expect("pmm not initialised").free(pa.frame_number(), order);
}

/// Memory figures, in bytes.
#[derive(Clone, Copy, Debug)]
pub struct MemoryStats {
    /// RAM the allocator manages (usable RAM minus the kernel and its
    /// boot-time reservations).
    pub total_bytes: usize,
    /// RAM not allocated now.
    pub free_bytes: usize,
}

/// Returns the allocator's current figures.
pub fn stats() -> MemoryStats {
    let free = ALLOCATOR.lock().as_ref().map_or(0, |b| b.free_frames());
    MemoryStats {
        total_bytes: TOTAL_FRAMES.load(Ordering::Relaxed) * PAGE_SIZE,
        free_bytes: free * PAGE_SIZE,
    }
}

/// Returns the largest block order that can be allocated now.
pub fn largest_free_order() -> Option<usize> {
    ALLOCATOR.lock().as_ref()?.largest_free_order()
}

/// Checks the allocator's internal consistency (walks every free list and
/// all metadata: slow, for tests).
pub fn check_invariants() {
    ALLOCATOR.lock().as_ref().expect("pmm not initialised").check_invariants();
}

/// An owned block of 2^order physical frames, freed when dropped.
pub struct FrameBlock {
    pa: PhysAddr,
    order: usize,
}

impl FrameBlock {
    /// Allocates a zero-filled block of 2^order frames.
    pub fn alloc_zeroed(order: usize) -> Option<Self> {
        if order > MAX_ORDER {
            return None;
        }
        alloc_zeroed(order).map(|pa| Self { pa, order })
    }

    /// Allocates a block without clearing it (the contents are whatever the
    /// last owner left, so this stays private to the kernel).
    pub fn alloc_uninit(order: usize) -> Option<Self> {
        if order > MAX_ORDER {
            return None;
        }
        alloc(order).map(|pa| Self { pa, order })
    }

    /// Returns the physical address of the first frame.
    pub fn phys_addr(&self) -> PhysAddr {
        self.pa
    }

    /// Returns the block's order.
    pub fn order(&self) -> usize {
        self.order
    }

    /// Returns the size in bytes.
    pub fn len(&self) -> usize {
        PAGE_SIZE << self.order
    }

    /// Returns false: a block always holds at least one page.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Returns the block's bytes.
    pub fn as_slice(&self) -> &[u8] {
        // SAFETY: the block is owned by `self`, mapped by the direct map, and
        // the borrow ties the slice's life to the owner.
        unsafe { core::slice::from_raw_parts(self.pa.direct_map() as *const u8, self.len()) }
    }

    /// Returns the block's bytes for writing.
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: as for `as_slice`, with exclusive access through `&mut self`.
        unsafe { core::slice::from_raw_parts_mut(self.pa.direct_map() as *mut u8, self.len()) }
    }

    /// Gives up ownership without freeing; returns the address.
    pub fn into_phys(self) -> PhysAddr {
        let pa = self.pa;
        core::mem::forget(self);
        pa
    }
}

impl Drop for FrameBlock {
    fn drop(&mut self) {
        free(self.pa, self.order);
    }
}

fn refcount(pa: PhysAddr) -> &'static AtomicU32 {
    let frame = pa.frame_number();
    assert!(frame < MAX_FRAME.load(Ordering::Relaxed), "page reference to {:?} beyond RAM", pa);
    // SAFETY: REFCOUNTS_BASE points at MAX_FRAME zero-initialised AtomicU32s
    // that live forever (set before any PageRef exists); the index is
    // bounds-checked above.
    unsafe { &*(REFCOUNTS_BASE.load(Ordering::Acquire) as *const AtomicU32).add(frame) }
}

/// The per-frame counter of a frame that is not a [`PageRef`] (the heap
/// counts free objects of its pages there while it shrinks).
pub(crate) fn frame_counter(pa: PhysAddr) -> &'static AtomicU32 {
    refcount(pa)
}

/// A counted reference to one 4 KiB page of RAM: the unit of sharing for
/// user memory (copy-on-write, the page cache). The page returns to the
/// frame allocator when the last reference goes. Allocations stop short of
/// the kernel's reserve.
pub struct PageRef {
    pa: PhysAddr,
}

impl PageRef {
    /// Allocates a zero-filled page with one reference.
    pub fn alloc_zeroed() -> Option<Self> {
        let pa = alloc_user_zeroed(0)?;
        refcount(pa).store(1, Ordering::Relaxed);
        Some(Self { pa })
    }

    /// Allocates a page holding a copy of `source`.
    pub fn alloc_copy_of(source: &PageRef) -> Option<Self> {
        let pa = alloc_user(0)?;
        // SAFETY: `pa` is fresh and `source` is a live page; both are in the
        // direct map and do not overlap.
        unsafe { core::ptr::copy_nonoverlapping(source.pa.direct_map() as *const u8, pa.direct_map() as *mut u8, PAGE_SIZE) };
        refcount(pa).store(1, Ordering::Relaxed);
        Some(Self { pa })
    }

    /// Returns the page's physical address.
    pub fn phys_addr(&self) -> PhysAddr {
        self.pa
    }

    /// Returns how many references exist (mappings included).
    pub fn ref_count(&self) -> u32 {
        refcount(self.pa).load(Ordering::Acquire)
    }

    /// Returns the page's bytes. Other references may write the page at the
    /// same time (shared mappings); the contents are plain bytes, so a racy
    /// read can only see stale data, never break memory safety.
    pub fn read(&self, offset: usize, out: &mut [u8]) {
        let len = out.len().min(PAGE_SIZE.saturating_sub(offset));
        // SAFETY: the range is inside the page, which this reference keeps
        // alive; bytes have no invalid values.
        unsafe { core::ptr::copy((self.pa.direct_map() + offset) as *const u8, out.as_mut_ptr(), len) };
    }

    /// Writes bytes into the page at `offset` (clipped to the page).
    pub fn write(&self, offset: usize, data: &[u8]) {
        let len = data.len().min(PAGE_SIZE.saturating_sub(offset));
        // SAFETY: as for `read`; writers of shared pages get whatever
        // interleaving the hardware gives, as user space does.
        unsafe { core::ptr::copy(data.as_ptr(), (self.pa.direct_map() + offset) as *mut u8, len) };
    }

    /// Stores `value` at the 8-byte aligned `offset` in one instruction, so
    /// a concurrent reader (user space, through a mapping) sees the old or
    /// the new value, never a mix. Misaligned or out-of-page offsets are
    /// ignored.
    pub fn write_u64(&self, offset: usize, value: u64) {
        if offset % 8 != 0 || offset + 8 > PAGE_SIZE {
            return;
        }
        // SAFETY: aligned and inside the page this reference keeps alive.
        unsafe { core::ptr::write_volatile((self.pa.direct_map() + offset) as *mut u64, value) };
    }

    /// Fills `len` bytes at `offset` with zeros (clipped to the page).
    pub fn zero(&self, offset: usize, len: usize) {
        let len = len.min(PAGE_SIZE.saturating_sub(offset));
        // SAFETY: as for `write`.
        unsafe { core::ptr::write_bytes((self.pa.direct_map() + offset) as *mut u8, 0, len) };
    }

    /// The page's address in the direct map (for the usercopy routines).
    pub(crate) fn direct_addr(&self) -> usize {
        self.pa.direct_map()
    }

    /// Gives the reference to a page-table mapping (see `AddressSpace`).
    pub(crate) fn into_raw(self) -> PhysAddr {
        let pa = self.pa;
        core::mem::forget(self);
        pa
    }

    /// Takes back a reference a mapping held.
    pub(crate) fn from_raw(pa: PhysAddr) -> Self {
        Self { pa }
    }

    /// Adds a reference on behalf of a mapping of `pa` that owns one.
    pub(crate) fn inc_raw(pa: PhysAddr) {
        refcount(pa).fetch_add(1, Ordering::Relaxed);
    }
}

impl Clone for PageRef {
    fn clone(&self) -> Self {
        refcount(self.pa).fetch_add(1, Ordering::Relaxed);
        Self { pa: self.pa }
    }
}

impl Drop for PageRef {
    fn drop(&mut self) {
        if refcount(self.pa).fetch_sub(1, Ordering::AcqRel) == 1 {
            free(self.pa, 0);
        }
    }
}

impl core::fmt::Debug for PageRef {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "PageRef({:#x})", self.pa.as_u64())
    }
}
