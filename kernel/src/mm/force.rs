//! A debugger's access to a tracee's memory (ptrace PEEK/POKE and
//! /proc/PID/mem): Linux's FOLL_FORCE, which reads any mapping and writes
//! private mappings the tracee itself may not write. A forced write to a
//! read-only private page (a breakpoint in a program's text) goes to a
//! private copy of the page, which stays read-only for the tracee; the
//! file and every other process keep the original. Shared mappings
//! without write permission stay unwritable, as in Linux.

use kevlar_platform::mm::PAGE_SIZE;

use kevlar_platform::mm::pmm::PageRef;
use super::Vm;

impl Vm {
    /// Maps the page at `page_va` if absent (as a read fault would, even
    /// for a mapping without access rights); false if that fails.
    fn force_present(&mut self, addr: usize) -> bool {
        let page_va = addr & !(PAGE_SIZE - 1);
        if self.space.page_at(page_va).is_some() {
            return true;
        }
        let Some(vma) = self.find(addr).cloned() else { return false };
        self.populate(&vma, page_va, false).is_ok()
    }

    /// Reads user memory at `addr` into `buf` (within one page) whatever
    /// the mapping's protection; false where nothing is mapped.
    pub fn read_page_forced(&mut self, addr: usize, buf: &mut [u8]) -> bool {
        let page_va = addr & !(PAGE_SIZE - 1);
        if addr - page_va + buf.len() > PAGE_SIZE || !self.force_present(addr) {
            return false;
        }
        let Some((page, _)) = self.space.page_at(page_va) else { return false };
        page.read(addr - page_va, buf);
        true
    }

    /// Writes `data` at user memory `addr` (within one page): as the
    /// tracee's own write where it may write, else into a private copy of
    /// the page (private mappings only). False where nothing was written.
    pub fn write_page_forced(&mut self, addr: usize, data: &[u8]) -> bool {
        let page_va = addr & !(PAGE_SIZE - 1);
        let Some(vma) = self.find(addr).cloned() else { return false };
        if addr - page_va + data.len() > PAGE_SIZE {
            return false;
        }
        if vma.prot.write {
            return self.write_page_part(addr, data);
        }
        if vma.is_shared() || vma.write_denied || !self.force_present(addr) {
            return false;
        }
        let Some((page, flags)) = self.space.page_at(page_va) else { return false };
        // Only this mapping holds the page (its reference and ours): it is
        // already private. Otherwise (the page cache's frame, a page shared
        // with a forked process) the write goes to a copy.
        let page = if page.ref_count() == 2 {
            // Its own from now on: fork must copy it (protect drops the
            // page-cache mark).
            if flags.contains(kevlar_platform::arch::paging::PageFlags::FILE_CACHE) {
                let _ = self.space.protect(page_va, kevlar_platform::arch::paging::PageSize::Size4K, flags);
            }
            page
        } else {
            let Some(copy) = PageRef::alloc_copy_of(&page) else { return false };
            drop(page);
            if self.space.replace_page(page_va, copy.clone(), flags).is_err() {
                return false;
            }
            copy
        };
        page.write(addr - page_va, data);
        true
    }
}
