//! Reading and writing another process's memory as a debugger does
//! (process_vm_readv/writev): the access the target's own program would
//! have, without FOLL_FORCE, so a read needs a readable mapping and a
//! write a writable one; pages are faulted in, and a write to a page
//! shared copy-on-write copies it first, as the target's own write would.

use kevlar_platform::arch::paging::PageFlags;
use kevlar_platform::mm::PAGE_SIZE;

use super::{FaultOutcome, Vm};

impl Vm {
    /// Reads user memory at `addr` into `buf`, which must not cross a page
    /// boundary of `addr`. Returns false (nothing read) where the target
    /// could not read.
    pub fn read_page_part(&mut self, addr: usize, buf: &mut [u8]) -> bool {
        let page_va = addr & !(PAGE_SIZE - 1);
        if addr - page_va + buf.len() > PAGE_SIZE || !self.find(addr).is_some_and(|v| v.prot.read) {
            return false;
        }
        if self.space.page_at(page_va).is_none() && self.handle_fault(addr, false, false) != FaultOutcome::Fixed {
            return false;
        }
        let Some((page, _)) = self.space.page_at(page_va) else { return false };
        page.read(addr - page_va, buf);
        true
    }

    /// Writes `data` at user memory `addr` (within one page). Returns false
    /// (nothing written) where the target could not write.
    pub fn write_page_part(&mut self, addr: usize, data: &[u8]) -> bool {
        let page_va = addr & !(PAGE_SIZE - 1);
        if addr - page_va + data.len() > PAGE_SIZE || !self.find(addr).is_some_and(|v| v.prot.write) {
            return false;
        }
        // Absent, or present read-only (copy-on-write, or not yet marked
        // writable): the target's write fault makes it privately writable.
        let writable = self.space.page_at(page_va).is_some_and(|(_, flags)| flags.contains(PageFlags::WRITABLE));
        if !writable && self.handle_fault(addr, true, false) != FaultOutcome::Fixed {
            return false;
        }
        let Some((page, _)) = self.space.page_at(page_va) else { return false };
        page.write(addr - page_va, data);
        true
    }
}
