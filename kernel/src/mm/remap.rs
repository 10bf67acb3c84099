//! remap_file_pages(2)'s emulation, as Linux 6.1 keeps it since the
//! nonlinear mappings went: the range is mapped again, shared and fixed,
//! from page `pgoff` of the same object, with the mapping's protection.

use kevlar_platform::mm::PAGE_SIZE;

use super::{Backing, Vm, Vma};
use crate::error::{Errno, Result};

fn same_object(a: &Backing, b: &Backing) -> bool {
    match (a, b) {
        (Backing::File { file: x, shared: true, .. }, Backing::File { file: y, shared: true, .. }) => alloc::sync::Arc::ptr_eq(x, y),
        (Backing::Shared(x), Backing::Shared(y)) => alloc::sync::Arc::ptr_eq(x, y),
        _ => false,
    }
}

impl Vm {
    /// Maps `[start, start + size)` again from page `pgoff` of the object
    /// the shared mapping at `start` maps (EINVAL when there is none, or
    /// when the range runs past it into a gap or another object or
    /// protection).
    pub fn remap_file_pages(&mut self, start: usize, size: usize, pgoff: usize) -> Result<()> {
        let end = start + size;
        let first = self.find(start).ok_or(Errno::EINVAL)?.clone();
        if !first.is_shared() {
            return Err(Errno::EINVAL);
        }
        let mut reached = first.end;
        while reached < end {
            let next = self.find(reached).ok_or(Errno::EINVAL)?;
            if next.start != reached || !same_object(&next.backing, &first.backing) || next.prot != first.prot {
                return Err(Errno::EINVAL);
            }
            reached = next.end;
        }
        let offset = pgoff.checked_mul(PAGE_SIZE).ok_or(Errno::EINVAL)?;
        let backing = match &first.backing {
            Backing::File { file, .. } => Backing::File { file: file.clone(), offset: offset as u64, file_len: size, shared: true },
            Backing::Shared(pages) => Backing::Shared(pages.clone()),
            _ => return Err(Errno::EINVAL),
        };
        let shared_page_base = if matches!(backing, Backing::Shared(_)) { pgoff } else { 0 };
        self.map(Vma { start, end, prot: first.prot, backing, shared_page_base, write_denied: first.write_denied, exec_denied: first.exec_denied });
        Ok(())
    }
}
