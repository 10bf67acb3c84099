//! Memory locking (mlock, mlock2, munlock, mlockall, munlockall) and
//! mincore's residency: the ranges an address space has locked, kept beside
//! its mappings. Kevlar never swaps, so a lock changes no paging; what it
//! does is Linux's visible part: the pages are made present (unless
//! MLOCK_ONFAULT), the locked size counts against RLIMIT_MEMLOCK and shows
//! as VmLck, and MCL_FUTURE locks later mappings. Unmapping a range drops
//! its lock; fork and exec start without locks (a new address space).

use alloc::collections::BTreeMap;

use kevlar_platform::mm::PAGE_SIZE;

use super::{Backing, FaultOutcome, Vm};
use crate::error::{Errno, Result};

/// The locked ranges of an address space: start -> (end, on fault).
#[derive(Default, Clone)]
pub struct Locks {
    ranges: BTreeMap<usize, (usize, bool)>,
    /// mlockall(MCL_FUTURE): later mappings are locked (with MCL_ONFAULT:
    /// on fault).
    future: Option<bool>,
}

impl Locks {
    /// Splits the range that spans `at`, if any.
    fn split(&mut self, at: usize) {
        if let Some((&start, &(end, onfault))) = self.ranges.range(..at).next_back() {
            if end > at {
                self.ranges.insert(start, (at, onfault));
                self.ranges.insert(at, (end, onfault));
            }
        }
    }

    /// Forgets the locks of `[start, end)`.
    pub fn remove(&mut self, start: usize, end: usize) {
        if start >= end || self.ranges.is_empty() {
            return;
        }
        self.split(start);
        self.split(end);
        let doomed: alloc::vec::Vec<usize> = self.ranges.range(start..end).map(|(&s, _)| s).collect();
        for s in doomed {
            self.ranges.remove(&s);
        }
    }

    /// Locks `[start, end)` (replacing what was there).
    fn add(&mut self, start: usize, end: usize, onfault: bool) {
        self.remove(start, end);
        self.ranges.insert(start, (end, onfault));
    }

    /// Locked bytes in `[start, end)`.
    fn locked_in(&self, start: usize, end: usize) -> usize {
        self.ranges.iter().map(|(&s, &(e, _))| e.min(end).saturating_sub(s.max(start))).sum()
    }

    /// Bytes locked in all (VmLck).
    pub fn total(&self) -> usize {
        self.ranges.iter().map(|(&s, &(e, _))| e - s).sum()
    }

}

impl Vm {
    /// Whether `[start, end)` is wholly mapped (ENOMEM otherwise, as mlock
    /// and mincore report holes).
    fn covered(&self, start: usize, end: usize) -> Result<()> {
        let mut cursor = start;
        while cursor < end {
            let vma = self.find(cursor).ok_or(Errno::ENOMEM)?;
            cursor = vma.end;
        }
        Ok(())
    }

    /// A new mapping of `[start, end)`: locked under MCL_FUTURE (the
    /// caller makes it present: `populates_new_mappings`).
    pub(super) fn lock_if_future(&mut self, start: usize, end: usize) {
        if let Some(onfault) = self.locks.future {
            self.locks.add(start, end, onfault);
        }
    }

    /// Whether new mappings are locked (MCL_FUTURE), and made present
    /// (without MCL_ONFAULT).
    pub fn future_locks(&self) -> (bool, bool) {
        (self.locks.future.is_some(), self.locks.future == Some(false))
    }

    /// mmap(MAP_LOCKED): locks the new mapping `[start, end)`.
    pub fn lock_new_mapping(&mut self, start: usize, end: usize) {
        self.locks.add(start, end, false);
    }

    /// The mapped ranges (mlockall(MCL_CURRENT) makes them present).
    pub fn mapped_ranges(&self) -> alloc::vec::Vec<(usize, usize)> {
        self.vmas.values().map(|v| (v.start, v.end)).collect()
    }

    /// mremap moved `[old, old_end)` to `[new, new_end)`: its lock moves
    /// with it.
    pub(super) fn move_locks(&mut self, old: usize, old_end: usize, new: usize, new_end: usize) {
        let Some(onfault) = self.locks.ranges.range(..old_end).next_back().filter(|(_, (e, _))| *e > old).map(|(_, (_, f))| *f) else {
            return;
        };
        self.locks.remove(old, old_end);
        self.locks.add(new, new_end, onfault);
    }

    /// Bytes mlock of `[start, end)` would add to the locked size.
    pub fn lock_growth(&self, start: usize, end: usize) -> usize {
        (end - start) - self.locks.locked_in(start, end)
    }

    /// Bytes locked (VmLck).
    pub fn locked_bytes(&self) -> usize {
        self.locks.total()
    }

    /// Bytes mapped in all (what mlockall(MCL_CURRENT) would lock).
    pub fn mapped_bytes(&self) -> usize {
        self.vmas.values().map(|v| v.end - v.start).sum()
    }

    /// mlock/mlock2: locks `[start, end)` (page aligned), which must be
    /// mapped (ENOMEM). The caller makes the pages present unless on fault
    /// (`populate_step`, a bounded step at a time).
    pub fn lock_range(&mut self, start: usize, end: usize, onfault: bool) -> Result<()> {
        self.covered(start, end)?;
        self.locks.add(start, end, onfault);
        Ok(())
    }

    /// munlock: unlocks `[start, end)`, which must be mapped (ENOMEM).
    pub fn unlock_range(&mut self, start: usize, end: usize) -> Result<()> {
        self.covered(start, end)?;
        self.locks.remove(start, end);
        Ok(())
    }

    /// mlockall: locks every mapping now (`current`) and later ones
    /// (`future`), on fault with `onfault`.
    pub fn lock_all(&mut self, current: bool, future: bool, onfault: bool) {
        self.locks.future = future.then_some(onfault);
        if current {
            for (start, end) in self.mapped_ranges() {
                self.locks.add(start, end, onfault);
            }
        }
    }

    /// munlockall.
    pub fn unlock_all(&mut self) {
        self.locks = Locks::default();
    }

    /// Faults in up to 64 accessible pages of `[va, end)` (writable private
    /// ones as for a write, so they are the process's own); returns where
    /// to go on from (`end` when done, or when memory ran out).
    pub fn populate_step(&mut self, mut va: usize, end: usize) -> usize {
        let mut budget = 64;
        while va < end && budget > 0 {
            let Some(vma) = self.find(va) else { return end };
            let (prot, shared, stop) = (vma.prot, vma.is_shared(), vma.end.min(end));
            if !prot.any() {
                va = stop;
                continue;
            }
            while va < stop && budget > 0 {
                if self.space.page_at(va).is_none() {
                    budget -= 1;
                    if self.handle_fault(va, prot.write && !shared, false) != FaultOutcome::Fixed {
                        return end;
                    }
                }
                va += PAGE_SIZE;
            }
        }
        va.min(end)
    }

    /// mincore: one byte per page of `[start, start + pages * PAGE_SIZE)`
    /// into `out`, 1 when resident: a present page, or a file page within
    /// the file (file data stays in memory once read). ENOMEM if part of
    /// the range is not mapped.
    pub fn residency(&self, start: usize, out: &mut [u8]) -> Result<()> {
        for (i, byte) in out.iter_mut().enumerate() {
            let va = start + i * PAGE_SIZE;
            let vma = self.find(va).ok_or(Errno::ENOMEM)?;
            *byte = if self.space.page_at(va).is_some() {
                1
            } else {
                match &vma.backing {
                    Backing::File { file, offset, .. } => {
                        let file_offset = offset + (va - vma.start) as u64;
                        u8::from(file_offset < file.size())
                    }
                    Backing::Shared(pages) => {
                        let index = vma.shared_page_base + (va - vma.start) / PAGE_SIZE;
                        u8::from(pages.pages.lock().contains_key(&index))
                    }
                    _ => 0,
                }
            };
        }
        Ok(())
    }
}
