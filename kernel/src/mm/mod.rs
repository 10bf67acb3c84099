//! User memory: virtual memory areas (VMAs), demand paging, copy-on-write,
//! and the operations behind mmap, munmap, mprotect, mremap and brk.

use alloc::collections::BTreeMap;
use alloc::sync::Arc;
use alloc::vec::Vec;

use kevlar_platform::arch::paging::{AddressSpace, PageFlags, USER_END};
use kevlar_platform::mm::pmm::PageRef;
use kevlar_platform::mm::PAGE_SIZE;
use kevlar_platform::sync::SpinLock;

use crate::error::{Errno, Result};

mod mlock;
pub mod kbuf;
pub mod oom;
pub mod overcommit;
mod remote;
mod force;
pub mod vmstat;
pub mod mempolicy;
mod remap;
mod pkeys;
pub mod layout;
pub mod user_fault;

/// The lowest address a mapping may use (Linux's default mmap_min_addr).
pub const MMAP_MIN_ADDR: usize = 0x10000;
/// Where top-down mmap placement starts (below the stack area).
pub const MMAP_TOP: usize = 0x7fff_0000_0000;
/// The initial stack's top (exclusive).
pub const STACK_TOP: usize = 0x7fff_ffff_f000;
/// The stack's reserved size.
pub const STACK_SIZE: usize = 8 << 20;
/// Where the vvar page goes in every process; the vDSO image follows it.
/// Between the mmap area (below MMAP_TOP) and the stack.
pub const VVAR_ADDR: usize = 0x7fff_f000_0000;

/// Access rights of a mapping.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Prot {
    /// Reads allowed.
    pub read: bool,
    /// Writes allowed.
    pub write: bool,
    /// Execution allowed.
    pub exec: bool,
    /// The protection key (0-15) its pages carry; 0 unless pkey_mprotect
    /// gave another. Part of the rights as on Linux (a VMA flag): areas
    /// with different keys are never one area.
    pub key: u8,
}

impl Prot {
    /// Decodes PROT_* bits; unknown bits are an error.
    pub fn from_bits(bits: u32) -> Result<Prot> {
        use linux_raw_sys::general::{PROT_EXEC, PROT_READ, PROT_WRITE};
        if bits & !(PROT_READ | PROT_WRITE | PROT_EXEC) != 0 {
            return Err(Errno::EINVAL);
        }
        Ok(Prot { read: bits & PROT_READ != 0, write: bits & PROT_WRITE != 0, exec: bits & PROT_EXEC != 0, key: 0 })
    }

    fn page_flags(self, writable_now: bool) -> PageFlags {
        let mut flags = PageFlags::empty();
        if self.write && writable_now {
            flags |= PageFlags::WRITABLE;
        }
        if !self.exec {
            flags |= PageFlags::NO_EXECUTE;
        }
        if !self.any() {
            flags |= PageFlags::NO_ACCESS;
        }
        // Key 0 is the bits' clear state: only other keys are written.
        if self.key == 0 { flags } else { flags.with_key(self.key) }
    }

    fn any(self) -> bool {
        self.read || self.write || self.exec
    }

    /// PROT_EXEC alone.
    pub fn is_exec_only(self) -> bool {
        self.exec && !self.read && !self.write
    }
}

/// Pages one read fault on a file mapping may map (Linux's
/// fault_around_bytes is 64 KiB).
pub const FAULT_AROUND_PAGES: usize = 16;

/// The flags of a page-cache page mapped read-only into a file mapping:
/// fork leaves it out of the child, whose fault maps it again.
fn cache_page_flags(prot: Prot) -> PageFlags {
    prot.page_flags(false) | PageFlags::FILE_CACHE
}

/// The span of user addresses one last-level page table maps (2 MiB):
/// fault-around stays within the faulting address's table, as Linux's.
const TABLE_SPAN: usize = 512 * PAGE_SIZE;

/// Where a file-backed mapping gets its pages.
pub trait FileBacking: Send + Sync {
    /// Reads bytes at `offset`; returns how many (short at end of file).
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<usize>;
    /// Returns the file's current size in bytes.
    fn size(&self) -> u64;
    /// Returns the page-cache frame of file page `index` (allocating a
    /// hole), `Ok(None)` if the file has no frames to share (its data can
    /// only be copied), ENXIO past the end of the file.
    fn page(&self, index: u64) -> Result<Option<PageRef>>;
    /// Returns the frame of file page `index` if the page cache holds it
    /// already (no I/O, no allocation): what fault-around maps.
    fn cached_page(&self, index: u64) -> Option<PageRef> {
        let _ = index;
        None
    }
    /// Calls `visit(index, frame)` for each file page of `[first, first +
    /// count)` that the page cache holds already, in index order, lending
    /// the frame: fault-around's window in one question, with nothing
    /// allocated and no reference taken but the ones it maps.
    fn visit_cached(&self, first: u64, count: u64, visit: &mut dyn FnMut(u64, &PageRef)) {
        for i in first..first.saturating_add(count) {
            if let Some(frame) = self.cached_page(i) {
                visit(i, &frame);
            }
        }
    }
    /// Tells the file that page `index` is mapped shared and writable (user
    /// stores may change it: a disk file system writes it back).
    fn dirtied(&self, index: u64) {
        let _ = index;
    }
    /// Writes the file's changed pages to its disk (msync MS_SYNC).
    fn sync(&self) -> Result<()> {
        Ok(())
    }

    /// Returns the mapped file's device and inode numbers and the absolute
    /// path it was opened by, for /proc/PID/maps.
    fn identity(&self) -> (u64, u64, &[u8]);
}

/// What /proc shows of the program an address space runs: Linux keeps the
/// same facts in its `mm_struct`, so they follow the address space (shared
/// by vfork, copied by fork, replaced by exec, gone at exit). prctl's
/// PR_SET_MM replaces it with a changed copy (`layout.rs`).
#[derive(Clone)]
pub struct ProgramInfo {
    /// The executable file mapped (the interpreter of a `#!` script).
    pub exe: Arc<dyn kevlar_vfs::Inode>,
    /// While the program runs, its file refuses writers (ETXTBSY).
    pub _deny_write: Arc<crate::fs::writecount::DenyWrite>,
    /// The files exec opened, closed (for inotify) when the last copy of
    /// this goes.
    pub _opened: Arc<Vec<crate::fs::notify::ExecFile>>,
    /// The absolute path it was executed by, for /proc/PID/exe.
    pub exe_path: Vec<u8>,
    /// The text of /proc/PID/exe as last worked out from `exe_path`.
    pub exe_text: Arc<crate::fs::path_memo::PathMemo>,
    /// Where its code, data, stack, arguments and environment are.
    pub areas: layout::ProgramAreas,
    /// The auxiliary vector as exec built it, AT_NULL pair included
    /// (Linux's saved_auxv, for /proc/PID/auxv).
    pub auxv: Vec<u8>,
}

/// Pages of a MAP_SHARED anonymous mapping, shared by every process that
/// maps it (across fork), indexed by page number within the mapping.
pub struct SharedPages {
    pages: SpinLock<BTreeMap<usize, PageRef>>,
    /// An inode number for /proc/PID/maps, which names shared anonymous
    /// memory as Linux's unlinked shmem file `/dev/zero (deleted)`.
    pub ino: u64,
    /// For a System V shared memory segment: its key and id, which maps
    /// shows as the name `/SYSV<key>` and the inode number.
    pub sysv: Option<(i32, i32)>,
    /// An aio context's completion ring (maps shows `/[aio] (deleted)`).
    pub aio: bool,
}

impl SharedPages {
    /// The pages of System V shared memory segment `id` of `key`.
    pub fn sysv(key: i32, id: i32) -> Self {
        Self { sysv: Some((key, id)), ..Self::default() }
    }

    /// How many of the pages exist (were touched).
    pub fn resident(&self) -> usize {
        self.pages.lock().len()
    }

    /// The pages of an aio context's ring.
    pub fn aio_ring() -> Self {
        Self { aio: true, ..Self::default() }
    }

    /// Page `index` of the object, made (zero-filled) if it did not exist
    /// yet: for memory the kernel shares with user space (the aio ring).
    pub fn page(&self, index: usize) -> Result<PageRef> {
        let mut pages = self.pages.lock();
        if let Some(page) = pages.get(&index) {
            return Ok(page.clone());
        }
        let page = PageRef::alloc_zeroed().ok_or(Errno::ENOMEM)?;
        pages.insert(index, page.clone());
        Ok(page)
    }
}

impl Default for SharedPages {
    fn default() -> Self {
        static NEXT_INO: core::sync::atomic::AtomicU64 = core::sync::atomic::AtomicU64::new(1);
        Self { pages: SpinLock::new(BTreeMap::new()), ino: NEXT_INO.fetch_add(1, core::sync::atomic::Ordering::Relaxed), sysv: None, aio: false }
    }
}

/// What a mapping's pages hold before they are written.
#[derive(Clone)]
pub enum Backing {
    /// Zero-filled memory.
    Anonymous,
    /// A file's bytes from `offset`. Private mappings share the file's
    /// page-cache frames until written (then copy); shared ones write to
    /// them. Pages past `file_len` (relative to the mapping start) read as
    /// zeros (ELF bss); pages wholly past the end of the file raise SIGBUS.
    File {
        /// The file.
        file: Arc<dyn FileBacking>,
        /// File offset of the mapping's first byte.
        offset: u64,
        /// Bytes of the mapping that come from the file.
        file_len: usize,
        /// MAP_SHARED: stores reach the file.
        shared: bool,
    },
    /// MAP_SHARED | MAP_ANONYMOUS memory.
    Shared(Arc<SharedPages>),
    /// Fixed kernel-provided pages every process shares read-only (the
    /// vDSO and its vvar page), indexed from `shared_page_base`. A write
    /// (after mprotect) gets a private copy.
    Pages(Arc<Vec<PageRef>>),
}

/// A virtual memory area.
#[derive(Clone)]
pub struct Vma {
    /// First address (page aligned).
    pub start: usize,
    /// One past the last address (page aligned).
    pub end: usize,
    /// Access rights.
    pub prot: Prot,
    /// Contents.
    pub backing: Backing,
    /// Offset of `start` within the backing object, in pages (for split
    /// shared mappings).
    pub shared_page_base: usize,
    /// mprotect may not add PROT_WRITE (Linux's VM_MAYWRITE clear: a
    /// SHM_RDONLY attach).
    pub write_denied: bool,
    /// mprotect may not add PROT_EXEC (Linux's VM_MAYEXEC clear: a file
    /// mapped from a noexec mount).
    pub exec_denied: bool,
}

impl Vma {
    fn is_shared(&self) -> bool {
        matches!(self.backing, Backing::Shared(_) | Backing::File { shared: true, .. })
    }

    /// Splits off the part from `at` on; `self` keeps `[start, at)`.
    fn split_at(&mut self, at: usize) -> Vma {
        let mut tail = self.clone();
        tail.start = at;
        let delta = at - self.start;
        if let Backing::File { offset, file_len, .. } = &mut tail.backing {
            *offset += delta as u64;
            *file_len = file_len.saturating_sub(delta);
        }
        tail.shared_page_base += delta / PAGE_SIZE;
        self.end = at;
        tail
    }
}

/// A process's user address space: the page table and the VMAs.
pub struct Vm {
    space: AddressSpace,
    vmas: BTreeMap<usize, Vma>,
    /// Program break (start and current end).
    pub brk_start: usize,
    /// The current program break.
    pub brk: usize,
    /// The program loaded by exec (None for an address space being built
    /// and after exit).
    pub program: Option<Arc<ProgramInfo>>,
    /// mlock's ranges (mlock.rs).
    locks: mlock::Locks,
    /// membarrier's registrations (MEMBARRIER_CMD_REGISTER_* bits), which
    /// belong to the address space as on Linux (a fork copy keeps them, an
    /// exec starts without).
    pub membarrier: u32,
    /// The native AIO contexts (Linux's mm->ioctx_table): per address
    /// space, not inherited by fork, gone with the address space.
    pub aio: crate::aio::Contexts,
    /// The protection keys pkey_alloc handed out, one bit per key; key 0
    /// is always in use from the start (pkeys.rs).
    keys: u16,
    /// The key of execute-only memory once one was taken (pkeys.rs).
    exec_only: Option<u8>,
    /// Whether a key other than 0 was ever handed out: until then every
    /// area has key 0 and a fault need not look its area's key up.
    keyed: bool,
}

impl Vm {
    /// Creates an empty address space.
    pub fn new() -> Result<Vm> {
        Ok(Vm { space: AddressSpace::new().map_err(|_| Errno::ENOMEM)?, vmas: BTreeMap::new(), brk_start: 0, brk: 0, program: None, locks: mlock::Locks::default(), membarrier: 0, aio: Default::default(), keys: pkeys::INITIAL, exec_only: None, keyed: false })
    }

    /// The address space every exited process holds: empty, made once, so
    /// that exit never needs memory to give its own back.
    pub fn dead() -> Arc<SpinLock<Vm>> {
        static DEAD: SpinLock<Option<Arc<SpinLock<Vm>>>> = SpinLock::new(None);
        let mut dead = DEAD.lock();
        if let Some(vm) = &*dead {
            return vm.clone();
        }
        let vm = Arc::new(SpinLock::new(Vm::new().expect("memory for the empty address space at boot")));
        *dead = Some(vm.clone());
        vm
    }

    /// Returns how many page-table pages the address space uses.
    pub fn table_pages(&self) -> usize {
        self.space.table_page_count()
    }

    /// Switches this CPU to the address space.
    pub fn activate(&self) {
        self.space.activate();
    }

    /// Returns the VMA containing `addr`.
    pub fn find(&self, addr: usize) -> Option<&Vma> {
        self.vmas.range(..=addr).next_back().map(|(_, v)| v).filter(|v| addr < v.end)
    }

    fn overlaps(&self, start: usize, end: usize) -> bool {
        self.vmas.range(..end).next_back().is_some_and(|(_, v)| v.end > start)
    }

    /// Finds a free range of `len` bytes, searching down from MMAP_TOP.
    pub fn find_free(&self, len: usize) -> Option<usize> {
        let mut top = MMAP_TOP;
        for (_, vma) in self.vmas.range(..MMAP_TOP).rev() {
            if vma.end <= top && top - vma.end >= len {
                return Some(top - len);
            }
            top = top.min(vma.start);
        }
        // Checked: a length near 2^64 must not wrap into a "fit" whose end
        // lies below its start.
        MMAP_MIN_ADDR.checked_add(len).is_some_and(|low| top >= low).then(|| top - len)
    }

    /// Adds a mapping of `[start, end)`, replacing whatever was there.
    pub fn map(&mut self, vma: Vma) {
        // A free range has nothing to remove: no split, no page-table walk.
        if self.overlaps(vma.start, vma.end) {
            self.unmap(vma.start, vma.end);
        }
        let (start, end) = (vma.start, vma.end);
        self.vmas.insert(vma.start, vma);
        self.lock_if_future(start, end);
    }

    /// Returns whether `[start, end)` is free of mappings.
    pub fn is_free(&self, start: usize, end: usize) -> bool {
        !self.overlaps(start, end)
    }

    /// Removes mappings in `[start, end)`, splitting VMAs at the edges.
    pub fn unmap(&mut self, start: usize, end: usize) {
        if start >= end {
            return;
        }
        self.split(start);
        self.split(end);
        let doomed: Vec<usize> = self.vmas.range(start..end).map(|(&s, _)| s).collect();
        for s in doomed {
            self.vmas.remove(&s);
        }
        self.locks.remove(start, end);
        self.space.unmap_range(start, end);
    }

    /// Makes a VMA boundary at `addr` if one spans it.
    fn split(&mut self, addr: usize) {
        let Some((&s, _)) = self.vmas.range(..addr).next_back() else { return };
        let vma = self.vmas.get_mut(&s).unwrap();
        if vma.end > addr {
            let tail = vma.split_at(addr);
            self.vmas.insert(addr, tail);
        }
    }

    /// Changes the protection of `[start, end)`; every page must be mapped.
    /// Each area keeps its protection key.
    pub fn protect(&mut self, start: usize, end: usize, prot: Prot) -> Result<()> {
        self.protect_keyed(start, end, prot, None)
    }

    /// `protect`, giving the pages protection key `key` (pkey_mprotect), or
    /// keeping each area's with None.
    pub fn protect_keyed(&mut self, start: usize, end: usize, prot: Prot, key: Option<u8>) -> Result<()> {
        // Linux requires the whole range to be covered.
        let mut cursor = start;
        while cursor < end {
            let vma = self.find(cursor).ok_or(Errno::ENOMEM)?;
            cursor = vma.end;
        }
        if prot.write && self.vmas.range(..end).rev().take_while(|(_, v)| v.end > start).any(|(_, v)| v.write_denied) {
            return Err(Errno::EACCES);
        }
        if prot.exec && self.vmas.range(..end).rev().take_while(|(_, v)| v.end > start).any(|(_, v)| v.exec_denied) {
            return Err(Errno::EACCES);
        }
        self.split(start);
        self.split(end);
        let exec_key = if key.is_none() && prot.is_exec_only() { self.exec_only_key() } else { None };
        let exec_only = self.exec_only;
        let starts: Vec<usize> = self.vmas.range(start..end).map(|(&s, _)| s).collect();
        for s in starts {
            let vma = self.vmas.get_mut(&s).unwrap();
            let prot = Prot { key: pkeys::mprotect_key(vma.prot, prot, key, exec_key, exec_only), ..prot };
            vma.prot = prot;
            let shared = vma.is_shared();
            let (vs, ve) = (vma.start, vma.end);
            let shared_file = match &vma.backing {
                Backing::File { file, offset, shared: true, .. } if prot.write => Some((file.clone(), *offset)),
                _ => None,
            };
            // The pages mapped (one walk, holes skipped by whole tables).
            self.space.protect_range(vs, ve, |va, page, flags| {
                if let Some((file, offset)) = &shared_file {
                    // Writable from now on without a fault: the file
                    // must treat the page as changed.
                    file.dirtied((offset + (va - vs) as u64) / PAGE_SIZE as u64);
                }
                // A private page shared with another process stays
                // read-only: the next write copies it.
                let writable_now = shared || page.ref_count() == 2;
                // A page-cache page mapped read-only stays one (fork
                // leaves it to the child's fault).
                let cache = if !writable_now && flags.contains(PageFlags::FILE_CACHE) { PageFlags::FILE_CACHE } else { PageFlags::empty() };
                prot.page_flags(writable_now) | cache
            });
        }
        Ok(())
    }

    /// Resolves a page fault at `addr`; returns false when the access is
    /// not allowed (the caller sends SIGSEGV or returns EFAULT).
    pub fn handle_fault(&mut self, addr: usize, write: bool, exec: bool) -> FaultOutcome {
        let Some(vma) = self.find(addr).cloned() else { return FaultOutcome::NoMapping };
        if (write && !vma.prot.write) || (exec && !vma.prot.exec) || (!write && !exec && !vma.prot.any()) {
            return FaultOutcome::AccessDenied;
        }
        let page_va = addr & !(PAGE_SIZE - 1);
        match self.space.page_at(page_va) {
            Some((page, _)) => {
                // Present: a write to a read-only page of a writable VMA.
                if !write {
                    return FaultOutcome::Fixed; // another CPU fixed it first
                }
                let flags = vma.prot.page_flags(true);
                if vma.is_shared() || page.ref_count() == 2 {
                    // Shared memory, or the last private user (our
                    // reference plus the mapping's): write in place.
                    drop(page);
                    if let Backing::File { file, offset, shared: true, .. } = &vma.backing {
                        file.dirtied((offset + (page_va - vma.start) as u64) / PAGE_SIZE as u64);
                    }
                    let _ = self.space.protect(page_va, kevlar_platform::arch::paging::PageSize::Size4K, flags);
                } else {
                    let Some(copy) = PageRef::alloc_copy_of(&page) else { return FaultOutcome::OutOfMemory };
                    drop(page);
                    if self.space.replace_page(page_va, copy, flags).is_err() {
                        return FaultOutcome::OutOfMemory;
                    }
                }
                FaultOutcome::Fixed
            }
            None => match self.populate(&vma, page_va, write) {
                Ok(()) => FaultOutcome::Fixed,
                Err(Errno::ENXIO) => FaultOutcome::PastEndOfFile,
                Err(_) => FaultOutcome::OutOfMemory,
            },
        }
    }

    /// Maps the page at `page_va` of `vma` for the first time.
    fn populate(&mut self, vma: &Vma, page_va: usize, write: bool) -> Result<()> {
        let index = (page_va - vma.start) / PAGE_SIZE;
        let page = match &vma.backing {
            Backing::Anonymous => PageRef::alloc_zeroed().ok_or(Errno::ENOMEM)?,
            Backing::Pages(pages) => {
                let page = pages.get(vma.shared_page_base + index).ok_or(Errno::ENOMEM)?;
                if !write {
                    return self.space.map_page(page_va, page.clone(), vma.prot.page_flags(false)).map_err(|_| Errno::ENOMEM);
                }
                PageRef::alloc_copy_of(page).ok_or(Errno::ENOMEM)?
            }
            Backing::Shared(shared) => {
                let mut pages = shared.pages.lock();
                let key = vma.shared_page_base + index;
                match pages.get(&key) {
                    Some(page) => page.clone(),
                    None => {
                        let page = PageRef::alloc_zeroed().ok_or(Errno::ENOMEM)?;
                        pages.insert(key, page.clone());
                        page
                    }
                }
            }
            Backing::File { file, offset, file_len, shared } => {
                let within = page_va - vma.start;
                if within >= *file_len {
                    // Past the file's part of the mapping (ELF bss).
                    PageRef::alloc_zeroed().ok_or(Errno::ENOMEM)?
                } else {
                    let file_offset = offset + within as u64;
                    let size_pages = file.size().div_ceil(PAGE_SIZE as u64);
                    if file_offset / PAGE_SIZE as u64 >= size_pages {
                        return Err(Errno::ENXIO); // SIGBUS
                    }
                    let whole_page = *file_len - within >= PAGE_SIZE;
                    let frame = if *shared || whole_page { file.page(file_offset / PAGE_SIZE as u64)? } else { None };
                    match frame {
                        Some(frame) if *shared => {
                            if vma.prot.write && write {
                                file.dirtied(file_offset / PAGE_SIZE as u64);
                            }
                            if !write {
                                // Read-only until the first store, which
                                // tells the file (the present-page path).
                                self.space.map_page(page_va, frame, cache_page_flags(vma.prot)).map_err(|_| Errno::ENOMEM)?;
                                self.fault_around(vma, page_va, size_pages);
                                return Ok(());
                            }
                            frame
                        }
                        // Private: map the cached frame read-only; the
                        // first write copies it (the copy-on-write path).
                        Some(frame) if !write => {
                            self.space.map_page(page_va, frame, cache_page_flags(vma.prot)).map_err(|_| Errno::ENOMEM)?;
                            self.fault_around(vma, page_va, size_pages);
                            return Ok(());
                        }
                        Some(frame) => PageRef::alloc_copy_of(&frame).ok_or(Errno::ENOMEM)?,
                        None if *shared => return Err(Errno::ENODEV),
                        None => {
                            let page = PageRef::alloc_zeroed().ok_or(Errno::ENOMEM)?;
                            let len = (*file_len - within).min(PAGE_SIZE);
                            let mut buf = [0u8; PAGE_SIZE];
                            let n = file.read_at(file_offset, &mut buf[..len])?;
                            page.write(0, &buf[..n]);
                            page
                        }
                    }
                }
            }
        };
        let writable_now = write || vma.is_shared();
        self.space.map_page(page_va, page, vma.prot.page_flags(writable_now)).map_err(|_| Errno::ENOMEM)
    }

    /// After a read fault on a file mapping: maps, read-only, the pages
    /// of the 64 KiB window around `page_va` that the page cache holds
    /// already and nothing maps here yet, as Linux's fault-around does
    /// (do_fault_around: the window is [`FAULT_AROUND_PAGES`] pages from
    /// `page_va` rounded down to 64 KiB, or from the mapping's start if
    /// that is later, cut at the mapping's end and at the page table's;
    /// pages already mapped are skipped). A store to one of them faults:
    /// copy-on-write, or the shared-write notice. `size_pages` is the
    /// file's size in pages.
    fn fault_around(&mut self, vma: &Vma, page_va: usize, size_pages: u64) {
        let Backing::File { file, offset, file_len, .. } = &vma.backing else { return };
        let window = FAULT_AROUND_PAGES * PAGE_SIZE;
        let start = (page_va & !(window - 1)).max(vma.start);
        let table_end = (page_va | (TABLE_SPAN - 1)).saturating_add(1);
        let file_part_end = vma.start + (file_len / PAGE_SIZE) * PAGE_SIZE;
        let end = vma.end.min(file_part_end).min(start + window).min(table_end);
        if start >= end {
            return;
        }
        let flags = cache_page_flags(vma.prot);
        let first = (offset + (start - vma.start) as u64) / PAGE_SIZE as u64;
        let count = (((end - start) / PAGE_SIZE) as u64).min(size_pages.saturating_sub(first)) as usize;
        // One walk to the window's last-level table (the faulting page was
        // just mapped, so it exists); the cache is asked only for the span
        // from the first free slot to the last one, and each page it holds
        // is mapped straight into its slot: no allocation, one reference.
        let Some(mut run) = self.space.leaf_run(start, count) else { return };
        let Some(lo) = (0..count).find(|&i| run.is_free(i)) else { return };
        let hi = (lo..count).rev().find(|&i| run.is_free(i)).map_or(lo, |i| i) + 1;
        let lo_index = first + lo as u64;
        file.visit_cached(lo_index, (hi - lo) as u64, &mut |index, frame| {
            run.fill((index - first) as usize, frame, flags);
        });
    }

    /// Returns the physical frame behind user address `addr` when it lies
    /// in a shared mapping (MAP_SHARED anonymous or file memory), faulting
    /// it in: what identifies a shared futex across address spaces.
    /// `Ok(None)` for private memory; EFAULT where nothing readable is
    /// mapped.
    pub fn shared_frame(&mut self, addr: usize) -> Result<Option<u64>> {
        let vma = self.find(addr).ok_or(Errno::EFAULT)?;
        if !vma.is_shared() {
            return Ok(None);
        }
        let page_va = addr & !(PAGE_SIZE - 1);
        if self.space.page_at(page_va).is_none() && self.handle_fault(addr, false, false) != FaultOutcome::Fixed {
            return Err(Errno::EFAULT);
        }
        let (page, _) = self.space.page_at(page_va).ok_or(Errno::EFAULT)?;
        Ok(Some(page.phys_addr().as_u64()))
    }

    /// Maps the vvar page and the vDSO (read+execute) at [`VVAR_ADDR`], if
    /// the platform has them; returns the vDSO's address for
    /// AT_SYSINFO_EHDR. The pages are mapped now: every program calls the
    /// clock early.
    pub fn map_vdso(&mut self) -> Option<usize> {
        let (vvar, image) = kevlar_platform::x86::vdso::pages()?;
        let vdso = VVAR_ADDR + PAGE_SIZE;
        let mut pages = Vec::with_capacity(1 + image.len());
        pages.push(vvar);
        pages.extend(image);
        let count = pages.len();
        let pages = Arc::new(pages);
        let read = Prot { read: true, write: false, exec: false, key: 0 };
        let read_exec = Prot { read: true, write: false, exec: true, key: 0 };
        self.map(Vma { start: VVAR_ADDR, end: vdso, prot: read, backing: Backing::Pages(pages.clone()), shared_page_base: 0, write_denied: false, exec_denied: false });
        self.map(Vma { start: vdso, end: VVAR_ADDR + count * PAGE_SIZE, prot: read_exec, backing: Backing::Pages(pages), shared_page_base: 1, write_denied: false, exec_denied: false });
        for va in (VVAR_ADDR..VVAR_ADDR + count * PAGE_SIZE).step_by(PAGE_SIZE) {
            if self.handle_fault(va, false, false) != FaultOutcome::Fixed {
                return None;
            }
        }
        Some(vdso)
    }

    /// Replaces the vvar page with a zeroed one, whose clock is never
    /// ready: the vDSO of a process in a time namespace other than the
    /// initial one then asks the kernel, which adds the namespace's
    /// offsets (`ns::time`). Nothing happens without a vDSO.
    pub fn detach_vvar(&mut self) {
        if !self.vmas.get(&VVAR_ADDR).is_some_and(|v| v.end == VVAR_ADDR + PAGE_SIZE) {
            return;
        }
        let Some(page) = PageRef::alloc_zeroed() else { return };
        let read = Prot { read: true, write: false, exec: false, key: 0 };
        self.map(Vma { start: VVAR_ADDR, end: VVAR_ADDR + PAGE_SIZE, prot: read, backing: Backing::Pages(Arc::new(alloc::vec![page])), shared_page_base: 0, write_denied: false, exec_denied: false });
        let _ = self.handle_fault(VVAR_ADDR, false, false);
    }

    /// Writes `data` at user address `addr` of this (possibly inactive)
    /// address space, faulting pages in: used to build a new program's
    /// stack before it runs.
    pub fn write_bytes(&mut self, addr: usize, data: &[u8]) -> Result<()> {
        let mut done = 0;
        while done < data.len() {
            let va = addr + done;
            let page_va = va & !(PAGE_SIZE - 1);
            if self.space.page_at(page_va).is_none() {
                if self.handle_fault(va, true, false) != FaultOutcome::Fixed {
                    return Err(Errno::EFAULT);
                }
            }
            let (page, _) = self.space.page_at(page_va).ok_or(Errno::EFAULT)?;
            let offset = va - page_va;
            let len = (PAGE_SIZE - offset).min(data.len() - done);
            page.write(offset, &data[done..done + len]);
            done += len;
        }
        Ok(())
    }

    /// Reads user memory at `addr` of this (possibly inactive) address
    /// space into `buf`, faulting pages in as a read by the program would
    /// (/proc/PID/cmdline and environ). Stops at the first address the
    /// program could not read; returns the bytes read.
    pub fn read_bytes(&mut self, addr: usize, buf: &mut [u8]) -> usize {
        let mut done = 0;
        while done < buf.len() {
            let Some(va) = addr.checked_add(done) else { break };
            let page_va = va & !(PAGE_SIZE - 1);
            if self.space.page_at(page_va).is_none() && self.handle_fault(va, false, false) != FaultOutcome::Fixed {
                break;
            }
            if !self.find(va).is_some_and(|v| v.prot.read) {
                break;
            }
            let Some((page, _)) = self.space.page_at(page_va) else { break };
            let offset = va - page_va;
            let len = (PAGE_SIZE - offset).min(buf.len() - done);
            page.read(offset, &mut buf[done..done + len]);
            done += len;
        }
        done
    }

    /// Returns the sizes /proc reports: mapped bytes by kind and resident
    /// pages by backing.
    pub fn usage(&self) -> VmUsage {
        let mut usage = VmUsage::default();
        let stack_at = self.program.as_ref().map(|p| p.areas.start_stack);
        for vma in self.vmas.values() {
            let len = (vma.end - vma.start) as u64;
            usage.size += len;
            let is_stack = stack_at.is_some_and(|sp| vma.start <= sp && sp < vma.end);
            if is_stack {
                usage.stack += len;
            } else if vma.prot.write && !vma.is_shared() {
                usage.data += len;
            }
            if vma.prot.exec {
                usage.exec += len;
            }
        }
        self.space.walk(|va, _, _, size| {
            let pages = (size.bytes() / PAGE_SIZE) as u64;
            match self.find(va).map(|v| &v.backing) {
                Some(Backing::File { .. }) => usage.resident_file += pages,
                Some(Backing::Shared(_)) => usage.resident_shared += pages,
                _ => usage.resident_anon += pages,
            }
        });
        usage
    }

    /// Returns the mapped size in bytes and the resident pages, without the
    /// page-table walk of [`Vm::usage`] (/proc/PID/stat, which `ps` and
    /// `top` read for every process).
    pub fn size_and_resident(&self) -> (u64, u64) {
        let size = self.vmas.values().map(|v| (v.end - v.start) as u64).sum();
        (size, self.space.mapped_pages() as u64)
    }

    /// Returns the user addresses of the 4 KiB pages mapped now, in order
    /// (a larger page counts as its 4 KiB parts).
    pub fn mapped_addresses(&self) -> Vec<usize> {
        let mut pages = Vec::new();
        self.space.walk(|va, _, _, size| pages.extend((va..va + size.bytes()).step_by(PAGE_SIZE)));
        pages
    }

    /// Returns the mappings in address order.
    pub fn vmas(&self) -> impl Iterator<Item = &Vma> {
        self.vmas.values()
    }

    /// Makes a copy-on-write copy for fork.
    pub fn fork(&mut self) -> Result<Vm> {
        let space = self.space.fork_copy().map_err(|_| Errno::ENOMEM)?;
        // Locks are not inherited (fork), as on Linux.
        Ok(Vm { space, vmas: self.vmas.clone(), brk_start: self.brk_start, brk: self.brk, program: self.program.clone(), locks: mlock::Locks::default(), membarrier: self.membarrier, aio: Default::default(), keys: self.keys, exec_only: self.exec_only, keyed: self.keyed })
    }

    /// Moves the program break; returns the new break (the old one when
    /// the request cannot be met, as Linux's brk does).
    pub fn set_brk(&mut self, new_brk: usize) -> usize {
        if new_brk < self.brk_start || new_brk >= MMAP_TOP {
            return self.brk;
        }
        // (The overcommit policy was checked by the caller.)
        let old_end = self.brk.next_multiple_of(PAGE_SIZE);
        let new_end = new_brk.next_multiple_of(PAGE_SIZE);
        if new_end > old_end {
            if !self.is_free(old_end, new_end) {
                return self.brk;
            }
            let rw = Prot { read: true, write: true, exec: false, key: 0 };
            // Extend the heap VMA if it ends right here, else start one.
            let heap = self.vmas.range(..old_end).next_back().map(|(&s, v)| (s, v.end, v.prot, matches!(v.backing, Backing::Anonymous)));
            match heap {
                Some((s, end, prot, true)) if end == old_end && prot == rw && s >= self.brk_start => {
                    self.vmas.get_mut(&s).unwrap().end = new_end;
                }
                _ => self.map(Vma { start: old_end, end: new_end, prot: rw, backing: Backing::Anonymous, shared_page_base: 0, write_denied: false, exec_denied: false }),
            }
        } else if new_end < old_end {
            self.unmap(new_end, old_end);
        }
        self.brk = new_brk;
        self.brk
    }

    /// Extends the VMA starting at `start` to end at `new_end` (the range
    /// after it must be free).
    pub fn extend_vma(&mut self, start: usize, new_end: usize) {
        if let Some(vma) = self.vmas.get_mut(&start) {
            if let Backing::File { file_len, .. } = &mut vma.backing {
                *file_len += new_end - vma.end;
            }
            vma.end = new_end;
        }
    }

    /// Moves the mapping `[old, old + old_len)` to `new` with `new_len`
    /// bytes, carrying its pages over (mremap with MREMAP_MAYMOVE).
    pub fn move_range(&mut self, old: usize, old_len: usize, new: usize, new_len: usize) -> Result<()> {
        self.split(old);
        self.split(old + old_len);
        let vma = self.vmas.remove(&old).ok_or(Errno::EFAULT)?;
        let mut moved = vma.clone();
        moved.start = new;
        moved.end = new + new_len;
        if let Backing::File { file_len, .. } = &mut moved.backing {
            *file_len += new_len - old_len;
        }
        for offset in (0..old_len).step_by(PAGE_SIZE) {
            if let Some(page) = self.space.unmap_page(old + offset) {
                let writable = vma.prot.write && (vma.is_shared() || page.ref_count() == 1);
                let _ = self.space.map_page(new + offset, page, vma.prot.page_flags(writable));
            }
        }
        self.space.unmap_range(old, old + old_len);
        self.vmas.insert(new, moved);
        self.move_locks(old, old + old_len, new, new + new_len);
        Ok(())
    }

    /// Drops the pages of `[start, end)` (MADV_DONTNEED): private memory
    /// reads as zeros (or the file) again; shared memory keeps its data.
    pub fn discard_pages(&mut self, start: usize, end: usize) -> Result<()> {
        let mut cursor = start;
        while cursor < end {
            let vma = self.find(cursor).ok_or(Errno::ENOMEM)?;
            cursor = vma.end;
        }
        self.space.unmap_range(start, end);
        Ok(())
    }

    /// Returns the highest user address (exclusive).
    pub const fn user_end() -> usize {
        USER_END
    }
}

/// Unmaps, from every address space, the mapped pages of file `id` (file
/// system id, inode number) that lie wholly past `new_size`, after the
/// file shrank: private copies included, as Linux's truncate does. The
/// next touch of such a page raises SIGBUS.
pub fn file_shrunk(id: (u64, u64), new_size: u64) {
    let end_of_data = new_size.next_multiple_of(PAGE_SIZE as u64);
    any_address_space(|vm| {
        let mut doomed = Vec::new();
        for vma in vm.vmas.values() {
            let Backing::File { file, offset, file_len, .. } = &vma.backing else { continue };
            let (fs_id, ino, _) = file.identity();
            if (fs_id, ino) != id {
                continue;
            }
            let file_part_end = vma.start + file_len.next_multiple_of(PAGE_SIZE);
            let first = vma.start.saturating_add(end_of_data.saturating_sub(*offset) as usize);
            let end = vma.end.min(file_part_end);
            if first < end {
                doomed.push((first, end));
            }
        }
        for (start, end) in doomed {
            vm.space.unmap_range(start, end);
        }
        false
    });
}

/// Returns whether any address space maps file `id` (file-system id,
/// inode number) MAP_SHARED: Linux's i_mmap_writable, which F_SEAL_WRITE
/// waits to be zero (EBUSY).
pub fn file_mapped_shared(id: (u64, u64)) -> bool {
    any_address_space(|vm| {
        vm.vmas.values().any(|vma| match &vma.backing {
            Backing::File { file, shared: true, .. } => {
                let (fs_id, ino, _) = file.identity();
                (fs_id, ino) == id
            }
            _ => false,
        })
    })
}

/// Calls `visit` once for each address space in use (threads and a vfork
/// child share their process's), locked, until it returns true; returns
/// whether one did.
pub fn any_address_space(mut visit: impl FnMut(&mut Vm) -> bool) -> bool {
    let mut seen: Vec<*const SpinLock<Vm>> = Vec::new();
    for process in crate::process::all_processes() {
        let vm = process.vm.lock().clone();
        if seen.contains(&Arc::as_ptr(&vm)) {
            continue;
        }
        seen.push(Arc::as_ptr(&vm));
        if visit(&mut vm.lock()) {
            return true;
        }
    }
    false
}

/// The sizes of an address space that /proc reports.
#[derive(Clone, Copy, Debug, Default)]
pub struct VmUsage {
    /// Bytes mapped.
    pub size: u64,
    /// Bytes of private writable mappings other than the stack.
    pub data: u64,
    /// Bytes of the stack mapping.
    pub stack: u64,
    /// Bytes of executable mappings.
    pub exec: u64,
    /// Resident pages of anonymous private memory.
    pub resident_anon: u64,
    /// Resident pages of file mappings.
    pub resident_file: u64,
    /// Resident pages of shared anonymous memory.
    pub resident_shared: u64,
}

/// The result of a page fault.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaultOutcome {
    /// The page is mapped now.
    Fixed,
    /// No VMA covers the address (SEGV_MAPERR).
    NoMapping,
    /// A VMA covers it but forbids the access (SEGV_ACCERR).
    AccessDenied,
    /// Memory ran out.
    OutOfMemory,
    /// The page lies wholly past the end of the mapped file (SIGBUS).
    PastEndOfFile,
}
