//! x86_64 four-level page tables: the kernel's own mappings and a safe API
//! for user address spaces.
//!
//! Intermediate entries are always permissive (present, writable, user):
//! the effective permission is the intersection of all levels, so a
//! restrictive intermediate entry written for the first mapping below it
//! would silently restrict every sibling mapped later. Only leaf entries
//! carry the real permissions.

use alloc::vec::Vec;
use core::arch::asm;
use core::sync::atomic::{AtomicU64, Ordering};

use crate::mm::addr::{image_virt_to_phys, PhysAddr, DIRECT_MAP_BASE, PAGE_SIZE};
use crate::mm::pmm::{self, PageRef};
use crate::sync::SpinLock;

bitflags::bitflags! {
    /// Permissions and attributes of a mapping (present is implied).
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct PageFlags: u64 {
        /// Writes allowed.
        const WRITABLE = 1 << 1;
        /// Reachable from user mode.
        const USER = 1 << 2;
        /// Write-through caching.
        const WRITE_THROUGH = 1 << 3;
        /// Caching disabled (device memory).
        const NO_CACHE = 1 << 4;
        /// Set by the CPU on access.
        const ACCESSED = 1 << 5;
        /// Set by the CPU on write.
        const DIRTY = 1 << 6;
        /// Kept in the TLB across address-space switches.
        const GLOBAL = 1 << 8;
        /// Software bit: the page stays mapped to its frame but every access
        /// faults (PROT_NONE); the entry is kept not-present.
        const NO_ACCESS = 1 << 10;
        /// Software bit: the frame is a page of a file's page cache, mapped
        /// read-only where a page fault would map the same page again.
        /// `fork_copy` leaves such pages out of the child, which faults
        /// them in when it uses them (Linux's copy_page_range skips file
        /// mappings without private pages likewise); any change of the
        /// entry (`protect`, `replace_page`) drops the bit.
        const FILE_CACHE = 1 << 11;
        /// The four bits of the page's protection key (bits 59-62), which
        /// PKRU consults for user pages once CR4.PKE is on.
        const KEY_BITS = 0xf << 59;
        /// Instruction fetches fault.
        const NO_EXECUTE = 1 << 63;
    }
}

impl PageFlags {
    /// These flags with the page's protection key set to `key` (0-15).
    pub fn with_key(self, key: u8) -> PageFlags {
        (self - PageFlags::KEY_BITS) | PageFlags::from_bits_retain((u64::from(key) & 0xf) << 59)
    }

    /// The page's protection key.
    pub fn key(self) -> u8 {
        ((self.bits() >> 59) & 0xf) as u8
    }
}

const PRESENT: u64 = 1 << 0;
/// Software bit: the leaf holds a `PageRef` reference to its page.
const OWNED: u64 = 1 << 9;
const HUGE: u64 = 1 << 7;
const ADDR_MASK: u64 = 0x000f_ffff_ffff_f000;
const INTERMEDIATE: u64 = PRESENT | PageFlags::WRITABLE.bits() | PageFlags::USER.bits();
const FLAG_MASK: u64 = PageFlags::all().bits();

/// The size of one mapping.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PageSize {
    /// 4 KiB.
    Size4K,
    /// 2 MiB.
    Size2M,
    /// 1 GiB.
    Size1G,
}

impl PageSize {
    /// Returns the size in bytes.
    pub const fn bytes(self) -> usize {
        match self {
            PageSize::Size4K => 4096,
            PageSize::Size2M => 2 << 20,
            PageSize::Size1G => 1 << 30,
        }
    }

    /// The table level whose entry maps a page of this size (1 = PT).
    const fn level(self) -> usize {
        match self {
            PageSize::Size4K => 1,
            PageSize::Size2M => 2,
            PageSize::Size1G => 3,
        }
    }
}

/// Why a page-table operation failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MapError {
    /// No memory for a page-table page.
    OutOfMemory,
    /// Something is already mapped there.
    AlreadyMapped,
    /// Nothing is mapped there.
    NotMapped,
    /// The address is not aligned to the page size, or outside the range
    /// this table may change.
    BadAddress,
    /// A larger page covers the address.
    HugePageInTheWay,
}

/// The end of the lower (user) half.
pub const USER_END: usize = 0x0000_8000_0000_0000;

/// Returns whether a leaf entry maps a frame (present, or PROT_NONE).
fn is_mapped(entry: u64) -> bool {
    entry & (PRESENT | PageFlags::NO_ACCESS.bits()) != 0
}

fn table_index(va: usize, level: usize) -> usize {
    (va >> (12 + 9 * (level - 1))) & 0x1ff
}

/// Returns the 512 entries of the page-table page at `pa`.
///
/// # Safety
/// `pa` must be a page-table page owned by a table the caller has exclusive
/// access to (its lock is held, or it is not shared yet).
unsafe fn entries<'a>(pa: u64) -> &'a mut [u64; 512] {
    // SAFETY: page-table pages are RAM covered by the direct map; exclusivity
    // is the caller's promise.
    unsafe { &mut *((DIRECT_MAP_BASE + (pa & ADDR_MASK) as usize) as *mut [u64; 512]) }
}

/// Walks from `root` to the entry that maps `va` at `size`, creating
/// intermediate tables when `create` is set.
///
/// # Safety
/// As for [`entries`], for every table on the path.
unsafe fn leaf_entry<'a>(root: u64, va: usize, size: PageSize, create: bool) -> Result<&'a mut u64, MapError> {
    let mut table = root;
    for level in (size.level() + 1..=4).rev() {
        // SAFETY: forwarded to the caller.
        let entry = unsafe { &mut entries(table)[table_index(va, level)] };
        if *entry & PRESENT == 0 {
            if !create {
                return Err(MapError::NotMapped);
            }
            // A user address space's tables are user memory: they stop
            // short of the kernel's reserve.
            let page = if root == kernel_root() { pmm::alloc_zeroed(0) } else { pmm::alloc_user_zeroed(0) };
            let page = page.ok_or(MapError::OutOfMemory)?;
            *entry = page.as_u64() | INTERMEDIATE;
        } else if *entry & HUGE != 0 {
            return Err(MapError::HugePageInTheWay);
        }
        table = *entry & ADDR_MASK;
    }
    // SAFETY: forwarded to the caller.
    Ok(unsafe { &mut entries(table)[table_index(va, size.level())] })
}

fn leaf_value(pa: PhysAddr, flags: PageFlags, size: PageSize) -> u64 {
    let huge = if size == PageSize::Size4K { 0 } else { HUGE };
    pa.as_u64() | PRESENT | huge | (flags.bits() & FLAG_MASK)
}

/// Looks `va` up in the table at `root`.
///
/// # Safety
/// The tables must not be freed during the walk.
unsafe fn translate_in(root: u64, va: usize) -> Option<(PhysAddr, PageFlags, PageSize)> {
    let mut table = root;
    for level in (1..=4).rev() {
        // SAFETY: read-only walk; forwarded to the caller.
        let entry = unsafe { entries(table)[table_index(va, level)] };
        if entry & PRESENT == 0 {
            return None;
        }
        let size = match level {
            3 if entry & HUGE != 0 => Some(PageSize::Size1G),
            2 if entry & HUGE != 0 => Some(PageSize::Size2M),
            1 => Some(PageSize::Size4K),
            _ => None,
        };
        if let Some(size) = size {
            let base = entry & ADDR_MASK & !(size.bytes() as u64 - 1);
            let offset = (va & (size.bytes() - 1)) as u64;
            return Some((PhysAddr::new(base + offset), PageFlags::from_bits_truncate(entry), size));
        }
        table = entry & ADDR_MASK;
    }
    None
}

fn invalidate_local(va: usize) {
    // SAFETY: INVLPG only drops a TLB entry.
    unsafe { asm!("invlpg [{}]", in(reg) va, options(nostack, preserves_flags)) };
}

fn read_cr3() -> u64 {
    let cr3: u64;
    // SAFETY: reading CR3 has no side effects.
    unsafe { asm!("mov {}, cr3", out(reg) cr3, options(nomem, nostack, preserves_flags)) };
    cr3 & ADDR_MASK
}

// ---------------------------------------------------------------------------
// The kernel's page table.

/// Physical address of the kernel's top-level table (0 until built).
static KERNEL_ROOT: AtomicU64 = AtomicU64::new(0);
/// Serialises changes to the kernel half.
static KERNEL_TABLE_LOCK: SpinLock<()> = SpinLock::new(());

/// PML4 slots of the kernel half that exist from boot on, so every address
/// space can share them by copying the top-level entries once.
const KERNEL_PML4_SLOTS: [usize; 3] = [256, 257, 511];

extern "C" {
    static __text_start: u8;
    static __text_end: u8;
    static __rodata_start: u8;
    static __rodata_end: u8;
    static __data_start: u8;
    static __bss_end: u8;
}

fn linker_addr(sym: &u8) -> usize {
    sym as *const u8 as usize
}

/// Builds the kernel's page table and switches to it: a direct map of all
/// physical memory (no-execute), the kernel image with per-section
/// permissions, and nothing in the lower half.
pub(crate) fn init_kernel_table(max_phys: u64, is_ram: impl Fn(u64, u64) -> bool, page_1g: bool, unmapped_page: usize) {
    let root = pmm::alloc_zeroed(0).expect("out of memory for the kernel page table").as_u64();
    // SAFETY: `root` is a fresh page; no other CPU runs yet.
    let top = unsafe { entries(root) };
    for slot in KERNEL_PML4_SLOTS {
        top[slot] = pmm::alloc_zeroed(0).expect("out of memory for the kernel page table").as_u64() | INTERMEDIATE;
    }

    // Direct map: 2 MiB pages below 4 GiB (device memory uncached), 1 GiB
    // pages above when the CPU has them.
    let rw_nx = PageFlags::WRITABLE | PageFlags::NO_EXECUTE | PageFlags::GLOBAL;
    let end = max_phys.max(4 << 30).next_multiple_of(1 << 30);
    let mut pa: u64 = 0;
    while pa < end {
        let (size, mut flags) = if pa >= 4 << 30 && page_1g {
            (PageSize::Size1G, rw_nx)
        } else {
            (PageSize::Size2M, rw_nx)
        };
        if !is_ram(pa, pa + size.bytes() as u64) {
            flags |= PageFlags::NO_CACHE | PageFlags::WRITE_THROUGH;
        }
        // SAFETY: the table is private to this CPU until CR3 is loaded.
        let entry = unsafe { leaf_entry(root, DIRECT_MAP_BASE + pa as usize, size, true) }
            .expect("mapping the direct map");
        *entry = leaf_value(PhysAddr::new(pa), flags, size);
        pa += size.bytes() as u64;
    }

    // The kernel image, page by page, with the permissions of its section.
    // SAFETY: only the addresses of linker symbols are taken.
    let (text, text_end, ro, ro_end, data, data_end) = unsafe {
        (
            linker_addr(&__text_start),
            linker_addr(&__text_end),
            linker_addr(&__rodata_start),
            linker_addr(&__rodata_end),
            linker_addr(&__data_start),
            linker_addr(&__bss_end),
        )
    };
    let sections = [
        (text, text_end, PageFlags::GLOBAL),
        (ro, ro_end, PageFlags::GLOBAL | PageFlags::NO_EXECUTE),
        (data, data_end, PageFlags::GLOBAL | PageFlags::NO_EXECUTE | PageFlags::WRITABLE),
    ];
    for (start, end, flags) in sections {
        let mut va = start & !(PAGE_SIZE - 1);
        while va < end {
            if va != unmapped_page {
                // SAFETY: as above.
                let entry = unsafe { leaf_entry(root, va, PageSize::Size4K, true) }.expect("mapping the kernel image");
                *entry = leaf_value(image_virt_to_phys(va), flags, PageSize::Size4K);
            }
            va += PAGE_SIZE;
        }
    }
    KERNEL_ROOT.store(root, Ordering::Release);
    activate_kernel_table();
}

/// Loads the kernel's page table on this CPU.
pub fn activate_kernel_table() {
    let root = KERNEL_ROOT.load(Ordering::Acquire);
    super::tlb::note_loaded(root);
    // SAFETY: the kernel table maps the running code, stack and data at the
    // same addresses as the boot tables.
    unsafe { asm!("mov cr3, {}", in(reg) root, options(nostack, preserves_flags)) };
}

/// Returns the physical address of the kernel's top-level table.
pub(crate) fn kernel_root() -> u64 {
    KERNEL_ROOT.load(Ordering::Acquire)
}

/// Maps one 4 KiB page in the kernel's half (kernel stacks and other
/// platform-owned regions only).
pub(crate) fn map_kernel_page(va: usize, pa: PhysAddr, flags: PageFlags) -> Result<(), MapError> {
    if va < DIRECT_MAP_BASE || va % PAGE_SIZE != 0 || !KERNEL_PML4_SLOTS.contains(&table_index(va, 4)) {
        return Err(MapError::BadAddress);
    }
    let _guard = KERNEL_TABLE_LOCK.lock();
    // SAFETY: changes to the kernel half are serialised by the lock.
    let entry = unsafe { leaf_entry(kernel_root(), va, PageSize::Size4K, true) }?;
    if *entry & PRESENT != 0 {
        return Err(MapError::AlreadyMapped);
    }
    *entry = leaf_value(pa, flags | PageFlags::GLOBAL, PageSize::Size4K);
    Ok(())
}

/// Unmaps one 4 KiB page of the kernel's half mapped by
/// [`map_kernel_page`] and drops it from this CPU's TLB; returns the frame.
/// Other CPUs may still cache the translation: the caller shoots it down
/// (`tlb::shootdown_kernel`) before it frees the frame.
pub(crate) fn unmap_kernel_page(va: usize) -> Result<PhysAddr, MapError> {
    if va < DIRECT_MAP_BASE || va % PAGE_SIZE != 0 || !KERNEL_PML4_SLOTS.contains(&table_index(va, 4)) {
        return Err(MapError::BadAddress);
    }
    let _guard = KERNEL_TABLE_LOCK.lock();
    // SAFETY: changes to the kernel half are serialised by the lock.
    let entry = unsafe { leaf_entry(kernel_root(), va, PageSize::Size4K, false) }?;
    if *entry & PRESENT == 0 {
        return Err(MapError::NotMapped);
    }
    let pa = PhysAddr::new(*entry & ADDR_MASK);
    *entry = 0;
    invalidate_local(va);
    Ok(pa)
}

/// Looks up `va` in the page table this CPU is using.
pub fn translate_current(va: usize) -> Option<(PhysAddr, PageFlags, PageSize)> {
    // SAFETY: the kernel half of every table is shared and never freed; a
    // user half belongs to the running address space, which cannot be torn
    // down under its own feet.
    unsafe { translate_in(read_cr3(), va) }
}

// ---------------------------------------------------------------------------
// User address spaces.

/// A user address space: its own lower half, the kernel's upper half.
///
/// The page-table pages are owned and freed on drop; the frames mapped into
/// it are not (the memory manager above tracks their ownership).
pub struct AddressSpace {
    root: u64,
    /// How many 4 KiB pages are mapped in the lower half (PROT_NONE ones
    /// too: they stay resident), kept by every change below so /proc and
    /// the OOM killer read a process's resident size without a walk.
    mapped_pages: usize,
}

impl AddressSpace {
    /// Creates an address space with an empty lower half.
    pub fn new() -> Result<Self, MapError> {
        let root = pmm::alloc_user_zeroed(0).ok_or(MapError::OutOfMemory)?.as_u64();
        // SAFETY: `root` is fresh; the kernel's top-level entries never
        // change after boot (KERNEL_PML4_SLOTS exist from the start).
        unsafe {
            let kernel = entries(kernel_root());
            let new = entries(root);
            new[256..].copy_from_slice(&kernel[256..]);
        }
        Ok(Self { root, mapped_pages: 0 })
    }

    fn check_user_range(va: usize, size: PageSize) -> Result<(), MapError> {
        if va % size.bytes() != 0 || va.checked_add(size.bytes()).is_none_or(|end| end > USER_END) {
            return Err(MapError::BadAddress);
        }
        Ok(())
    }

    /// Maps `pa` at user address `va` with `flags` (USER is added).
    pub fn map(&mut self, va: usize, pa: PhysAddr, size: PageSize, flags: PageFlags) -> Result<(), MapError> {
        Self::check_user_range(va, size)?;
        if pa.as_u64() % size.bytes() as u64 != 0 {
            return Err(MapError::BadAddress);
        }
        // SAFETY: `&mut self` gives exclusive access to the lower half.
        let entry = unsafe { leaf_entry(self.root, va, size, true) }?;
        if is_mapped(*entry) {
            return Err(MapError::AlreadyMapped);
        }
        *entry = leaf_value(pa, flags | PageFlags::USER, size);
        self.mapped_pages += size.bytes() / PAGE_SIZE;
        Ok(())
    }

    /// Removes the mapping at `va`; returns what was mapped.
    pub fn unmap(&mut self, va: usize, size: PageSize) -> Result<PhysAddr, MapError> {
        Self::check_user_range(va, size)?;
        // SAFETY: `&mut self` gives exclusive access to the lower half.
        let entry = unsafe { leaf_entry(self.root, va, size, false) }?;
        if !is_mapped(*entry) {
            return Err(MapError::NotMapped);
        }
        let old = *entry;
        let pa = PhysAddr::new(old & ADDR_MASK);
        *entry = 0;
        self.mapped_pages -= size.bytes() / PAGE_SIZE;
        self.flush(va);
        if old & OWNED != 0 {
            drop(PageRef::from_raw(pa));
        }
        Ok(pa)
    }

    /// Changes the permissions of the mapping at `va`.
    pub fn protect(&mut self, va: usize, size: PageSize, flags: PageFlags) -> Result<(), MapError> {
        Self::check_user_range(va, size)?;
        // SAFETY: `&mut self` gives exclusive access to the lower half.
        let entry = unsafe { leaf_entry(self.root, va, size, false) }?;
        if !is_mapped(*entry) {
            return Err(MapError::NotMapped);
        }
        let kept = *entry & (HUGE | OWNED);
        let flags = (flags | PageFlags::USER) - PageFlags::FILE_CACHE;
        *entry = (*entry & ADDR_MASK) | kept | (flags.bits() & FLAG_MASK);
        // A PROT_NONE page keeps its frame but is not present, so any
        // access faults; everything else is present.
        if !flags.contains(PageFlags::NO_ACCESS) {
            *entry |= PRESENT;
        }
        self.flush(va);
        Ok(())
    }

    /// Changes the permissions of every page this space owns a reference
    /// to in `[start, end)` (mprotect): `change(va, page, flags)` gets a
    /// new reference to the page and its flags and returns the new flags
    /// (USER is added; [`PageFlags::FILE_CACHE`] stays only if returned).
    /// Missing tables are skipped whole, and the range is flushed once.
    pub fn protect_range(&mut self, start: usize, end: usize, mut change: impl FnMut(usize, PageRef, PageFlags) -> PageFlags) {
        let end = end.min(USER_END);
        let start = start & !(PAGE_SIZE - 1);
        let count = end.saturating_sub(start) / PAGE_SIZE;
        let active = self.is_active();
        let mut any = false;
        let mut va = start;
        while va < end {
            // One walk per last-level table; a missing one is skipped whole.
            let (slots, chunk_end) = self.leaf_slots(va, end);
            for (k, entry) in slots.into_iter().flatten().enumerate() {
                let old = *entry;
                if is_mapped(old) && old & OWNED != 0 {
                    let page_va = va + k * PAGE_SIZE;
                    let pa = PhysAddr::new(old & ADDR_MASK);
                    PageRef::inc_raw(pa);
                    let flags = change(page_va, PageRef::from_raw(pa), PageFlags::from_bits_truncate(old)) | PageFlags::USER;
                    let mut new = (old & (ADDR_MASK | OWNED)) | (flags.bits() & FLAG_MASK);
                    // PROT_NONE keeps the frame, not present (as protect).
                    if !flags.contains(PageFlags::NO_ACCESS) {
                        new |= PRESENT;
                    }
                    *entry = new;
                    any = true;
                    if count <= 32 && active {
                        invalidate_local(page_va);
                    }
                }
            }
            va = chunk_end;
        }
        if any {
            self.flush_changed_range(start, end, count);
        }
    }

    /// Looks up user address `va`.
    pub fn translate(&self, va: usize) -> Option<(PhysAddr, PageFlags, PageSize)> {
        if va >= USER_END {
            return None;
        }
        // SAFETY: `&self` keeps the tables alive during the walk.
        unsafe { translate_in(self.root, va) }
    }

    /// Calls `visit(va, pa, flags, size)` for every mapping in the lower
    /// half, in address order.
    pub fn walk(&self, mut visit: impl FnMut(usize, PhysAddr, PageFlags, PageSize)) {
        fn recurse(table: u64, level: usize, base: usize, visit: &mut dyn FnMut(usize, PhysAddr, PageFlags, PageSize)) {
            let limit = if level == 4 { 256 } else { 512 };
            // SAFETY: the caller holds `&AddressSpace`, keeping tables alive.
            let list = unsafe { entries(table) };
            for (i, &entry) in list.iter().enumerate().take(limit) {
                if entry & PRESENT == 0 {
                    continue;
                }
                let va = base | (i << (12 + 9 * (level - 1)));
                let size = match level {
                    1 => Some(PageSize::Size4K),
                    2 if entry & HUGE != 0 => Some(PageSize::Size2M),
                    3 if entry & HUGE != 0 => Some(PageSize::Size1G),
                    _ => None,
                };
                match size {
                    Some(size) => visit(va, PhysAddr::new(entry & ADDR_MASK), PageFlags::from_bits_truncate(entry), size),
                    None => recurse(entry & ADDR_MASK, level - 1, va, visit),
                }
            }
        }
        recurse(self.root, 4, 0, &mut visit);
    }

    /// Returns how many 4 KiB pages are mapped in the lower half.
    pub fn mapped_pages(&self) -> usize {
        self.mapped_pages
    }

    /// Returns how many page-table pages this space owns (root included).
    pub fn table_page_count(&self) -> usize {
        fn count(table: u64, level: usize) -> usize {
            if level == 1 {
                return 1;
            }
            let limit = if level == 4 { 256 } else { 512 };
            // SAFETY: read-only walk of tables owned by the caller.
            let list = unsafe { entries(table) };
            1 + list[..limit]
                .iter()
                .filter(|&&e| e & PRESENT != 0 && e & HUGE == 0)
                .map(|&e| count(e & ADDR_MASK, level - 1))
                .sum::<usize>()
        }
        count(self.root, 4)
    }

    /// Maps the 4 KiB page `page` at `va`, handing the mapping the
    /// reference (it comes back from `unmap_page`, or is dropped with the
    /// address space).
    pub fn map_page(&mut self, va: usize, page: PageRef, flags: PageFlags) -> Result<(), MapError> {
        Self::check_user_range(va, PageSize::Size4K)?;
        // SAFETY: `&mut self` gives exclusive access to the lower half.
        let entry = unsafe { leaf_entry(self.root, va, PageSize::Size4K, true) }?;
        if is_mapped(*entry) {
            return Err(MapError::AlreadyMapped);
        }
        *entry = leaf_value(page.into_raw(), flags | PageFlags::USER, PageSize::Size4K) | OWNED;
        self.mapped_pages += 1;
        Ok(())
    }

    /// Returns the leaf slots of the `count` pages from `start`, to map
    /// several of them under one page-table walk (fault-around). The run
    /// must lie within one last-level table that exists already (a page
    /// of it is mapped); `None` otherwise.
    pub fn leaf_run(&mut self, start: usize, count: usize) -> Option<LeafRun<'_>> {
        let end = start.checked_add(count.checked_mul(PAGE_SIZE)?)?;
        if count == 0 || start % PAGE_SIZE != 0 || end > USER_END || start >> 21 != (end - 1) >> 21 {
            return None;
        }
        // SAFETY: `&mut self` gives exclusive access to the lower half,
        // and the run borrows it for as long as the slots are used.
        let first: *mut u64 = unsafe { leaf_entry(self.root, start, PageSize::Size4K, false) }.ok()?;
        // SAFETY: `first` is slot table_index(start, 1) of a 512-entry
        // table, and `[start, end)` lies within the 2 MiB that table maps,
        // so the `count` slots from it are inside the table; the table
        // lives while `self` is borrowed (tables are freed only on drop).
        let slots = unsafe { core::slice::from_raw_parts_mut(first, count) };
        Some(LeafRun { slots, mapped_pages: &mut self.mapped_pages })
    }

    /// Returns the leaf slots from page-aligned `va` to `end` or to the
    /// end of `va`'s last-level table, whichever is first, and that end;
    /// no slots when the table is missing (or a huge page maps there).
    fn leaf_slots(&mut self, va: usize, end: usize) -> (Option<&mut [u64]>, usize) {
        let chunk_end = ((va | 0x1f_ffff) + 1).min(end);
        // SAFETY: `&mut self` gives exclusive access to the lower half.
        let Ok(first) = (unsafe { leaf_entry(self.root, va, PageSize::Size4K, false) }) else { return (None, chunk_end) };
        let first: *mut u64 = first;
        // SAFETY: `first` is slot table_index(va, 1) of a 512-entry table
        // and `[va, chunk_end)` lies within the 2 MiB it maps; the slice
        // borrows `self`, which keeps the table alive.
        (Some(unsafe { core::slice::from_raw_parts_mut(first, (chunk_end - va) / PAGE_SIZE) }), chunk_end)
    }

    /// Replaces whatever is mapped at `va` with `page`; returns the old
    /// page if it was one (the copy-on-write step).
    pub fn replace_page(&mut self, va: usize, page: PageRef, flags: PageFlags) -> Result<Option<PageRef>, MapError> {
        Self::check_user_range(va, PageSize::Size4K)?;
        // SAFETY: `&mut self` gives exclusive access to the lower half.
        let entry = unsafe { leaf_entry(self.root, va, PageSize::Size4K, true) }?;
        let old = *entry;
        let flags = (flags | PageFlags::USER) - PageFlags::FILE_CACHE;
        *entry = leaf_value(page.into_raw(), flags, PageSize::Size4K) | OWNED;
        if !is_mapped(old) {
            self.mapped_pages += 1;
        }
        self.flush(va);
        Ok((is_mapped(old) && old & OWNED != 0).then(|| PageRef::from_raw(PhysAddr::new(old & ADDR_MASK))))
    }

    /// Removes the 4 KiB mapping at `va`; returns its page reference if the
    /// mapping owned one.
    pub fn unmap_page(&mut self, va: usize) -> Option<PageRef> {
        Self::check_user_range(va, PageSize::Size4K).ok()?;
        // SAFETY: `&mut self` gives exclusive access to the lower half.
        let entry = unsafe { leaf_entry(self.root, va, PageSize::Size4K, false) }.ok()?;
        let old = *entry;
        if !is_mapped(old) {
            return None;
        }
        *entry = 0;
        self.mapped_pages -= 1;
        self.flush(va);
        (old & OWNED != 0).then(|| PageRef::from_raw(PhysAddr::new(old & ADDR_MASK)))
    }

    /// Returns a new reference to the page mapped at `va` and its flags.
    pub fn page_at(&self, va: usize) -> Option<(PageRef, PageFlags)> {
        if va >= USER_END {
            return None;
        }
        // SAFETY: `&self` keeps the tables alive; reading a leaf.
        let entry = *unsafe { leaf_entry(self.root, va & !(PAGE_SIZE - 1), PageSize::Size4K, false) }.ok()?;
        if !is_mapped(entry) || entry & OWNED == 0 {
            return None;
        }
        let pa = PhysAddr::new(entry & ADDR_MASK);
        PageRef::inc_raw(pa);
        Some((PageRef::from_raw(pa), PageFlags::from_bits_truncate(entry)))
    }

    /// Unmaps every 4 KiB page in `[start, end)`, dropping the references
    /// the mappings owned. Skips holes quickly (whole missing tables).
    pub fn unmap_range(&mut self, start: usize, end: usize) {
        let end = end.min(USER_END);
        let start = start & !(PAGE_SIZE - 1);
        let mut va = start;
        let count = (end.saturating_sub(va)) / PAGE_SIZE;
        let active = self.is_active();
        let mut any = false;
        // Freed only after every CPU has flushed: a stale translation on
        // another CPU must never reach a page already given to someone else.
        let mut released: Vec<PageRef> = Vec::new();
        let mut unmapped = 0;
        while va < end {
            // One walk per last-level table; a missing one is skipped whole.
            let (slots, chunk_end) = self.leaf_slots(va, end);
            for (k, entry) in slots.into_iter().flatten().enumerate() {
                let old = *entry;
                if is_mapped(old) {
                    *entry = 0;
                    unmapped += 1;
                    if old & OWNED != 0 {
                        released.push(PageRef::from_raw(PhysAddr::new(old & ADDR_MASK)));
                    }
                    if count <= 32 && active {
                        invalidate_local(va + k * PAGE_SIZE);
                    }
                }
            }
            va = chunk_end;
        }
        self.mapped_pages -= unmapped;
        any |= unmapped > 0;
        if any {
            self.flush_changed_range(start, end, count);
        }
        // Frames go back only after no CPU can still reach them.
        drop(released);
    }

    /// After entries of `[start, end)` changed: the range shot down on
    /// every CPU for up to 32 pages (this CPU already invalidated them
    /// one by one while the table is active), the whole TLB beyond.
    fn flush_changed_range(&self, start: usize, end: usize, count: usize) {
        if count <= 32 {
            super::tlb::shootdown(self.root, start, end);
        } else {
            self.flush_all();
        }
    }

    /// Makes a copy for `fork`: every user mapping is copied but the
    /// page-cache pages marked [`PageFlags::FILE_CACHE`] (the child faults
    /// them in); owned pages gain a reference, and writable ones become
    /// read-only in both spaces so the first write to either copies the
    /// page.
    pub fn fork_copy(&mut self) -> Result<AddressSpace, MapError> {
        let mut child = AddressSpace::new()?;
        /// Copies one table's entries; returns how many 4 KiB pages the
        /// child maps through it (0: the child's table can go).
        fn copy_level(parent: u64, child: u64, level: usize) -> Result<usize, MapError> {
            let limit = if level == 4 { 256 } else { 512 };
            // SAFETY: the parent is exclusively borrowed by fork_copy; the
            // child is new and private.
            let (p, c) = unsafe { (entries(parent), entries(child)) };
            let mut copied = 0;
            for i in 0..limit {
                let entry = p[i];
                let leaf_level = level == 1 || (entry & PRESENT != 0 && entry & HUGE != 0);
                if if leaf_level { !is_mapped(entry) } else { entry & PRESENT == 0 } {
                    continue;
                }
                if leaf_level {
                    if entry & (OWNED | PageFlags::FILE_CACHE.bits()) == OWNED | PageFlags::FILE_CACHE.bits() {
                        continue; // the child's fault maps the cached page
                    }
                    let mut value = entry;
                    if entry & OWNED != 0 {
                        PageRef::inc_raw(PhysAddr::new(entry & ADDR_MASK));
                        value &= !PageFlags::WRITABLE.bits();
                        p[i] = value;
                    }
                    c[i] = value;
                    copied += 1usize << (9 * (level - 1));
                } else {
                    let table = pmm::alloc_user_zeroed(0).ok_or(MapError::OutOfMemory)?.as_u64();
                    c[i] = table | INTERMEDIATE;
                    let below = copy_level(entry & ADDR_MASK, table, level - 1)?;
                    if below == 0 {
                        // Nothing to map here: no empty table in the child.
                        c[i] = 0;
                        pmm::free(PhysAddr::new(table), 0);
                    }
                    copied += below;
                }
            }
            Ok(copied)
        }
        child.mapped_pages = copy_level(self.root, child.root, 4)?;
        self.flush_all(); // drop the now stale writable TLB entries
        Ok(child)
    }

    /// Returns whether this CPU is using this address space.
    pub fn is_active(&self) -> bool {
        read_cr3() == self.root
    }

    /// Switches this CPU to this address space.
    pub fn activate(&self) {
        super::tlb::note_loaded(self.root);
        // SAFETY: the upper half is the kernel's, so the running code, stack
        // and data stay mapped at the same addresses.
        unsafe { asm!("mov cr3, {}", in(reg) self.root, options(nostack, preserves_flags)) };
    }

    /// Drops the translation of `va` from every CPU that may cache it.
    fn flush(&self, va: usize) {
        if self.is_active() {
            invalidate_local(va);
        }
        super::tlb::shootdown(self.root, va, va + PAGE_SIZE);
    }

    /// Drops every translation of this space from every CPU that may cache
    /// them.
    fn flush_all(&self) {
        if self.is_active() {
            self.activate();
        }
        super::tlb::shootdown(self.root, 0, usize::MAX);
    }
}

/// Consecutive 4 KiB slots of one last-level table of a user address
/// space ([`AddressSpace::leaf_run`]): pages mapped through it cost no
/// further walk.
pub struct LeafRun<'a> {
    slots: &'a mut [u64],
    mapped_pages: &'a mut usize,
}

impl LeafRun<'_> {
    /// Returns whether slot `i` maps nothing (false past the run's end).
    pub fn is_free(&self, i: usize) -> bool {
        self.slots.get(i).is_some_and(|&e| !is_mapped(e))
    }

    /// Maps a new reference to `page` in slot `i` with `flags` (USER is
    /// added) if the slot maps nothing; returns whether it did. A slot
    /// that mapped nothing needs no TLB flush.
    pub fn fill(&mut self, i: usize, page: &PageRef, flags: PageFlags) -> bool {
        let Some(slot) = self.slots.get_mut(i) else { return false };
        if is_mapped(*slot) {
            return false;
        }
        *slot = leaf_value(page.clone().into_raw(), flags | PageFlags::USER, PageSize::Size4K) | OWNED;
        *self.mapped_pages += 1;
        true
    }
}

impl Drop for AddressSpace {
    fn drop(&mut self) {
        fn free_tables(table: u64, level: usize) {
            let limit = if level == 4 { 256 } else { 512 };
            // SAFETY: the space is being dropped: nobody else uses it.
            let list = unsafe { entries(table) };
            for &entry in &list[..limit] {
                let leaf_level = level == 1 || (entry & PRESENT != 0 && entry & HUGE != 0);
                if if leaf_level { !is_mapped(entry) } else { entry & PRESENT == 0 } {
                    continue;
                }
                if leaf_level {
                    if entry & OWNED != 0 {
                        drop(PageRef::from_raw(PhysAddr::new(entry & ADDR_MASK)));
                    }
                } else {
                    free_tables(entry & ADDR_MASK, level - 1);
                }
            }
            pmm::free(PhysAddr::new(table), 0);
        }
        if self.is_active() {
            activate_kernel_table();
        }
        // Another CPU may still have it loaded (a thread of this process
        // that is leaving its CPU): it must let go before the tables are
        // freed and reused.
        super::tlb::retire(self.root);
        free_tables(self.root, 4);
    }
}
