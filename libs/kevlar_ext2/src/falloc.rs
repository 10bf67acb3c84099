//! fallocate on ext4 (Linux's ext4_fallocate and what it calls):
//! allocating unwritten runs (mode 0 and KEEP_SIZE), PUNCH_HOLE,
//! ZERO_RANGE, COLLAPSE_RANGE and INSERT_RANGE on extent-mapped files;
//! SEEK_DATA/SEEK_HOLE from the extent tree (and the block map of an
//! indirect-mapped file); FIEMAP and FIBMAP. Block-mapped files (ext2 and
//! ext3, which Debian's Linux serves with its ext4 driver) get only
//! PUNCH_HOLE: unwritten extents need extent trees (EOPNOTSUPP).
//!
//! Every change collects the file's runs, edits the list and lays the
//! tree out again (`extent.rs`); the page cache is kept in step: pages
//! over removed blocks are dropped (zeroed while mapped), partial blocks
//! zeroed in their pages.

use alloc::vec::Vec;

use kevlar_vfs::{Errno, MappedRun, Result, PAGE_SIZE};
use linux_raw_sys::general as g;

use crate::extent::{max_len, merge_extents, Extent};
use crate::layout::{ino, DiskInode};
use crate::state::State;
use crate::Flavour;

const KEEP: u32 = g::FALLOC_FL_KEEP_SIZE;
const PUNCH: u32 = g::FALLOC_FL_PUNCH_HOLE;
const COLLAPSE: u32 = g::FALLOC_FL_COLLAPSE_RANGE;
const ZERO: u32 = g::FALLOC_FL_ZERO_RANGE;
const INSERT: u32 = g::FALLOC_FL_INSERT_RANGE;

impl State {
    /// The largest file the mount allows (Linux's `s_maxbytes`): ext4's
    /// for extent-mapped files, the block map's for ext2.
    pub fn s_maxbytes(&self) -> u64 {
        match self.geo.flavour {
            Flavour::Ext4 if self.geo.extents => self.geo.max_file_size_extents(),
            _ => self.geo.max_file_size(),
        }
    }

    /// fallocate(2) on regular file `ino` (the kernel checked the mode's
    /// combinations and that `offset + len` fits an `i64`).
    pub fn fallocate(&mut self, ino: u32, mode: u32, offset: u64, len: u64, size_limit: u64) -> Result<()> {
        let end = offset + len;
        if end > self.s_maxbytes() {
            return Err(Errno::EFBIG);
        }
        // The ext2 flavour answers as the ext4 driver that serves ext2 on
        // Debian's Linux (no ext2 driver of its own): unwritten extents
        // need extent-mapped files, punching does not.
        if mode & !(KEEP | PUNCH | COLLAPSE | ZERO | INSERT) != 0 {
            return Err(Errno::EOPNOTSUPP);
        }
        let mut inode = self.read_inode(ino)?;
        // Runs may move or turn unwritten: no cached page stays known to
        // be backed by written blocks.
        self.map_epoch += 1;
        let bs = self.geo.block_size as u64;
        let extents = self.uses_extents(&inode);
        if mode & (COLLAPSE | INSERT) != 0 && (offset | len) % bs != 0 {
            return Err(Errno::EINVAL);
        }
        let result = if mode & PUNCH != 0 {
            self.punch_hole(ino, &mut inode, offset, len)
        } else if mode & COLLAPSE != 0 {
            if end >= inode.size() {
                return Err(Errno::EINVAL);
            }
            if !extents {
                return Err(Errno::EOPNOTSUPP);
            }
            self.collapse_range(ino, &mut inode, offset, len)
        } else if mode & INSERT != 0 {
            if !extents {
                return Err(Errno::EOPNOTSUPP);
            }
            if len > self.s_maxbytes() - inode.size().min(self.s_maxbytes()) {
                return Err(Errno::EFBIG);
            }
            if offset >= inode.size() {
                return Err(Errno::EINVAL);
            }
            self.insert_range(ino, &mut inode, offset, len)
        } else {
            if !extents {
                return Err(Errno::EOPNOTSUPP);
            }
            let keep = mode & KEEP != 0;
            if !keep && end > inode.size() && end > size_limit {
                return Err(Errno::EFBIG);
            }
            if mode & ZERO != 0 {
                self.zero_range(ino, &mut inode, offset, len, keep)
            } else {
                self.allocate_range(ino, &mut inode, offset, end, keep)
            }
        };
        // What was done stays, even when the rest failed (ENOSPC).
        self.write_inode(ino, &inode)?;
        result
    }

    /// Allocates unwritten runs over the holes of bytes `[offset, end)`;
    /// without `keep` the size grows to `end` (to what was allocated when
    /// the disk fills first).
    fn allocate_range(&mut self, ino: u32, inode: &mut DiskInode, offset: u64, end: u64, keep: bool) -> Result<()> {
        let bs = self.geo.block_size as u64;
        let first = offset / bs;
        let stop = end.div_ceil(bs);
        let (reached, result) = self.fill_holes(ino, inode, first, stop);
        let now_end = if result.is_ok() { end } else { (reached * bs).min(end) };
        self.stamp(inode, &[ino::CTIME]);
        if !keep && now_end > inode.size() {
            inode.set_size(now_end);
            self.stamp(inode, &[ino::MTIME]);
        }
        result
    }

    /// Gives the holes among logical blocks `[first, stop)` unwritten
    /// blocks. Returns how far it got (every block before it is
    /// allocated) and whether it got to the end.
    fn fill_holes(&mut self, ino: u32, inode: &mut DiskInode, first: u64, stop: u64) -> (u64, Result<()>) {
        let mut all = match self.collect_extents(inode, ino) {
            Ok(all) => all,
            Err(e) => return (first, Err(e)),
        };
        let sectors = (self.geo.block_size / 512) as i64;
        let mut added: Vec<Extent> = Vec::new();
        let mut result = Ok(());
        let mut lblk = first;
        let mut i = all.partition_point(|e| e.end() <= first);
        'outer: while lblk < stop {
            // Skip what is mapped.
            if let Some(e) = all.get(i) {
                if u64::from(e.lblk) <= lblk {
                    lblk = e.end();
                    i += 1;
                    continue;
                }
            }
            let hole_end = all.get(i).map_or(stop, |e| u64::from(e.lblk).min(stop));
            let goal = match added.last().or_else(|| i.checked_sub(1).and_then(|k| all.get(k))) {
                Some(p) => p.pblk.wrapping_add(p.len),
                None => self.geo.first_data_block + self.group_of(ino) * self.geo.blocks_per_group,
            };
            // Where the hole fits whole (as mballoc looks for), so the
            // run is one extent where the disk allows.
            let want = (hole_end - lblk).min(u64::from(max_len(true))) as u32;
            let mut goal = self.find_free_run(goal, want).unwrap_or(goal);
            while lblk < hole_end {
                let b = match self.alloc_block_near(goal) {
                    Ok(b) => b,
                    Err(e) => {
                        result = Err(e);
                        break 'outer;
                    }
                };
                // Data blocks do not stay in the block cache (unwritten
                // ones are never read).
                self.forget_block(b);
                self.add_iblocks(inode, sectors);
                goal = b + 1;
                let lb = lblk as u32;
                match added.last_mut() {
                    Some(r) if r.end() == lblk && r.pblk + r.len == b && r.len < max_len(true) => r.len += 1,
                    _ => added.push(Extent { lblk: lb, len: 1, pblk: b, unwritten: true }),
                }
                lblk += 1;
            }
        }
        if !added.is_empty() {
            all.extend(added);
            all.sort_by_key(|e| e.lblk);
            merge_extents(&mut all);
            if let Err(e) = self.rebuild_tree(inode, ino, &all) {
                return (first, Err(e));
            }
        }
        (lblk.min(stop), result)
    }

    /// PUNCH_HOLE (always with KEEP_SIZE): as ext4_punch_hole, nothing at
    /// or past the end of the file; a range past the end stops at the end
    /// of the page holding it; partial blocks are zeroed, whole ones freed.
    fn punch_hole(&mut self, ino: u32, inode: &mut DiskInode, offset: u64, len: u64) -> Result<()> {
        let size = inode.size();
        if offset >= size {
            return Ok(());
        }
        let page = PAGE_SIZE as u64;
        let end = if offset + len > size { size + page - size % page } else { offset + len };
        let bs = self.geo.block_size as u64;
        let first = offset.div_ceil(bs);
        let stop = end / bs;
        self.zero_partial_blocks(ino, inode, offset, end)?;
        if stop > first {
            self.forget_pages(ino, first * bs, stop * bs);
            if self.uses_extents(inode) {
                self.remove_blocks(ino, inode, first, stop)?;
            } else {
                self.remove_mapped_blocks(inode, first, stop)?;
            }
        }
        self.stamp(inode, &[ino::MTIME, ino::CTIME]);
        Ok(())
    }

    /// Frees the data blocks `[first, stop)` of an indirect-mapped file,
    /// clearing their pointers (the indirect blocks stay).
    fn remove_mapped_blocks(&mut self, inode: &mut DiskInode, first: u64, stop: u64) -> Result<()> {
        let sectors = (self.geo.block_size / 512) as i64;
        let p = self.geo.ptrs_per_block();
        let mut lblk = first;
        while lblk < stop {
            let Ok((slot, depth, index)) = self.map_path(lblk) else { break };
            let top = inode.block(slot);
            if depth == 0 {
                if top != 0 {
                    self.free_block(top)?;
                    inode.set_block(slot, 0);
                    self.add_iblocks(inode, -sectors);
                }
                lblk += 1;
                continue;
            }
            if top == 0 {
                // The whole subtree is a hole: skip past it.
                lblk += p.pow(depth) - index;
                continue;
            }
            let (mut b, mut rest) = (top, index);
            for level in (0..depth).rev() {
                let span = p.pow(level);
                let i = (rest / span) as usize;
                rest %= span;
                if b >= self.geo.blocks_count {
                    return Err(Errno::EUCLEAN);
                }
                let next = crate::layout::le32(self.block(b)?, 4 * i);
                if next == 0 {
                    break;
                }
                if level == 0 {
                    self.free_block(next)?;
                    crate::layout::put32(self.block_mut(b)?, 4 * i, 0);
                    self.add_iblocks(inode, -sectors);
                } else {
                    b = next;
                }
            }
            lblk += 1;
        }
        Ok(())
    }

    /// ZERO_RANGE: the range's holes get unwritten blocks (the partial
    /// blocks at its edges too), its whole blocks become unwritten, its
    /// partial blocks are zeroed; the size grows unless `keep`.
    fn zero_range(&mut self, ino: u32, inode: &mut DiskInode, offset: u64, len: u64, keep: bool) -> Result<()> {
        let bs = self.geo.block_size as u64;
        let end = offset + len;
        let first = offset.div_ceil(bs);
        let stop = end / bs;
        let mut result = Ok(());
        if offset % bs != 0 || end % bs != 0 {
            result = self.fill_holes(ino, inode, offset / bs, end.div_ceil(bs)).1;
        }
        if result.is_ok() && stop > first {
            self.forget_pages(ino, first * bs, stop * bs);
            result = self.fill_holes(ino, inode, first, stop).1;
            if result.is_ok() {
                result = self.mark_unwritten(ino, inode, first, stop);
            }
        }
        if result.is_ok() {
            result = self.zero_partial_blocks(ino, inode, offset, end);
        }
        if result.is_ok() && !keep && end > inode.size() {
            inode.set_size(end);
        }
        self.stamp(inode, &[ino::MTIME, ino::CTIME]);
        result
    }

    /// COLLAPSE_RANGE: removes blocks `[offset, offset + len)` and moves
    /// the rest of the file down over them.
    fn collapse_range(&mut self, ino: u32, inode: &mut DiskInode, offset: u64, len: u64) -> Result<()> {
        let bs = self.geo.block_size as u64;
        self.settle_pages(ino, offset)?;
        let (first, stop) = (offset / bs, (offset + len) / bs);
        self.remove_blocks(ino, inode, first, stop)?;
        let shift = (stop - first) as u32;
        let mut all = self.collect_extents(inode, ino)?;
        for e in all.iter_mut().filter(|e| u64::from(e.lblk) >= stop) {
            e.lblk -= shift;
        }
        merge_extents(&mut all);
        self.rebuild_tree(inode, ino, &all)?;
        inode.set_size(inode.size() - len);
        self.stamp(inode, &[ino::MTIME, ino::CTIME]);
        Ok(())
    }

    /// INSERT_RANGE: moves the blocks from `offset` on up by `len`,
    /// leaving a hole; the file grows by `len`.
    fn insert_range(&mut self, ino: u32, inode: &mut DiskInode, offset: u64, len: u64) -> Result<()> {
        let bs = self.geo.block_size as u64;
        let at = offset / bs;
        let shift = len / bs;
        let mut all = self.collect_extents(inode, ino)?;
        if all.last().is_some_and(|e| e.end() + shift > u64::from(u32::MAX)) {
            return Err(Errno::EFBIG);
        }
        self.settle_pages(ino, offset)?;
        split_at(&mut all, at);
        for e in all.iter_mut().filter(|e| u64::from(e.lblk) >= at) {
            e.lblk += shift as u32;
        }
        self.rebuild_tree(inode, ino, &all)?;
        inode.set_size(inode.size() + len);
        self.stamp(inode, &[ino::MTIME, ino::CTIME]);
        Ok(())
    }

    /// Before blocks move: the file's changed pages go to the disk and its
    /// pages from `offset`'s on are dropped (read again from where their
    /// blocks went).
    fn settle_pages(&mut self, ino: u32, offset: u64) -> Result<()> {
        self.write_back(Some(ino), None)?;
        self.drop_file_pages(ino, offset / PAGE_SIZE as u64);
        Ok(())
    }

    /// Frees logical blocks `[first, stop)` (splitting runs across the
    /// edges) and lays the tree out again.
    fn remove_blocks(&mut self, ino: u32, inode: &mut DiskInode, first: u64, stop: u64) -> Result<()> {
        let mut all = self.collect_extents(inode, ino)?;
        split_at(&mut all, first);
        split_at(&mut all, stop);
        let sectors = (self.geo.block_size / 512) as i64;
        let mut kept = Vec::with_capacity(all.len());
        let mut changed = false;
        for e in all {
            if u64::from(e.lblk) >= first && e.end() <= stop {
                for k in 0..e.len {
                    self.free_block(e.pblk.checked_add(k).ok_or(Errno::EUCLEAN)?)?;
                    self.add_iblocks(inode, -sectors);
                }
                changed = true;
            } else {
                kept.push(e);
            }
        }
        if changed {
            merge_extents(&mut kept);
            self.rebuild_tree(inode, ino, &kept)?;
        }
        Ok(())
    }

    /// Marks every written block of `[first, stop)` unwritten (ZERO_RANGE's
    /// whole blocks keep their place on the disk).
    fn mark_unwritten(&mut self, ino: u32, inode: &mut DiskInode, first: u64, stop: u64) -> Result<()> {
        let mut all = self.collect_extents(inode, ino)?;
        split_at(&mut all, first);
        split_at(&mut all, stop);
        let mut changed = false;
        for e in all.iter_mut() {
            if u64::from(e.lblk) >= first && e.end() <= stop && !e.unwritten {
                e.unwritten = true;
                changed = true;
            }
        }
        if changed {
            // An unwritten run is at most 32767 blocks.
            let mut fitted = Vec::with_capacity(all.len());
            for mut e in all {
                while e.len > max_len(e.unwritten) {
                    let n = max_len(e.unwritten);
                    fitted.push(Extent { len: n, ..e });
                    e.lblk += n;
                    e.pblk += n;
                    e.len -= n;
                }
                fitted.push(e);
            }
            merge_extents(&mut fitted);
            self.rebuild_tree(inode, ino, &fitted)?;
        }
        Ok(())
    }

    /// Zeroes bytes `[offset, end)` that lie in partial blocks at the
    /// range's edges, in the page cache, where those blocks hold data.
    fn zero_partial_blocks(&mut self, ino: u32, inode: &mut DiskInode, offset: u64, end: u64) -> Result<()> {
        let bs = self.geo.block_size as u64;
        let mut spans = Vec::new();
        let head_end = end.min(offset.div_ceil(bs) * bs);
        if offset % bs != 0 {
            spans.push((offset, head_end));
        }
        let tail_start = (end / bs * bs).max(offset);
        if end % bs != 0 && (offset % bs == 0 || end / bs != offset / bs) {
            spans.push((tail_start, end));
        }
        for (from, to) in spans {
            if from >= to {
                continue;
            }
            let lblk = from / bs;
            let written = match self.uses_extents(inode) {
                true => self.extent_of(inode, ino, lblk)?.is_some_and(|e| !e.unwritten),
                false => self.bmap(inode, ino, lblk, false)? != 0,
            };
            if !written {
                // A hole or unwritten block reads as zeros already; a
                // cached page over it holds zeros there too.
                continue;
            }
            let index = from / PAGE_SIZE as u64;
            let page = self.file_page(ino, inode, index, 1)?;
            let in_page = (from % PAGE_SIZE as u64) as usize;
            page.zero(in_page, (to - from) as usize);
            self.mark_dirty(ino, index);
        }
        Ok(())
    }

    /// Drops the cached bytes `[from, to)` of `ino` (whole blocks about to
    /// be freed or made unwritten): pages wholly inside go (zeroed instead
    /// while mapped), pages partly inside are zeroed there.
    fn forget_pages(&mut self, ino: u32, from: u64, to: u64) {
        let page = PAGE_SIZE as u64;
        let keys: Vec<u64> = self.pages.range((ino, from / page)..(ino, to.div_ceil(page))).map(|(&(_, i), _)| i).collect();
        for index in keys {
            let start = index * page;
            let (a, b) = (from.max(start), to.min(start + page));
            let whole = a == start && b == start + page;
            let Some(e) = self.pages.get(&(ino, index)) else { continue };
            if whole && !e.page.is_mapped() {
                self.pages.remove(&(ino, index));
            } else {
                e.page.zero((a - start) as usize, (b - a) as usize);
            }
        }
    }

    /// SEEK_DATA (`data`) or SEEK_HOLE from `offset` in file `ino`, as
    /// the ext4 driver (which serves ext2 too on Debian's Linux) reports
    /// them: holes and unwritten runs without cached pages are holes.
    pub fn seek_data_hole(&mut self, ino: u32, offset: u64, data: bool) -> Result<u64> {
        let mut inode = self.read_inode(ino)?;
        let size = inode.size();
        if offset >= size {
            return Err(Errno::ENXIO);
        }
        let bs = self.geo.block_size as u64;
        let last = (size - 1) / bs;
        // Byte ranges of data: written blocks, and within unwritten runs
        // the pages the page cache holds (Linux counts up-to-date cached
        // pages over unwritten extents as data).
        let mut runs: Vec<(u64, u64)> = Vec::new();
        if self.uses_extents(&inode) {
            let page = PAGE_SIZE as u64;
            for e in self.collect_extents(&inode, ino)? {
                let (from, to) = (u64::from(e.lblk) * bs, e.end() * bs);
                if !e.unwritten {
                    runs.push((from, to));
                    continue;
                }
                let cached: Vec<u64> = self.pages.range((ino, from / page)..(ino, to.div_ceil(page))).map(|(&(_, i), _)| i).collect();
                for i in cached {
                    runs.push(((i * page).max(from), ((i + 1) * page).min(to)));
                }
            }
        } else {
            for lblk in offset / bs..=last {
                if self.bmap(&mut inode, ino, lblk, false)? != 0 {
                    runs.push((lblk * bs, (lblk + 1) * bs));
                }
            }
        }
        runs.sort_unstable();
        let mut merged: Vec<(u64, u64)> = Vec::with_capacity(runs.len());
        for (a, b) in runs {
            match merged.last_mut() {
                Some(m) if m.1 >= a => m.1 = m.1.max(b),
                _ => merged.push((a, b)),
            }
        }
        if data {
            let Some(&(start, _)) = merged.iter().find(|r| r.1 > offset) else { return Err(Errno::ENXIO) };
            let at = offset.max(start);
            return if at >= size { Err(Errno::ENXIO) } else { Ok(at) };
        }
        let mut pos = offset;
        for &(start, stop) in merged.iter().filter(|r| r.1 > offset) {
            if start > pos {
                break;
            }
            pos = stop;
        }
        Ok(pos.min(size))
    }
}

impl State {
    /// FIEMAP over bytes `[start, start + len)` of file `ino`: ext4's
    /// checks (a zero length EINVAL, a start past the largest file EFBIG,
    /// flags beyond SYNC, XATTR and ext4's CACHE EBADR), then the runs of
    /// the extent tree (or the block map's contiguous runs), the first
    /// from the block holding `start`, the last ending with the range.
    pub fn fiemap(&mut self, ino: u32, start: u64, len: u64, flags: &mut u32) -> Result<Vec<MappedRun>> {
        use linux_raw_sys::ioctl::{FIEMAP_FLAGS_COMPAT, FIEMAP_FLAG_CACHE, FIEMAP_FLAG_SYNC, FIEMAP_FLAG_XATTR};
        let ext4 = self.geo.flavour == Flavour::Ext4;
        if ext4 {
            *flags &= !FIEMAP_FLAG_CACHE;
        }
        let max = self.s_maxbytes();
        if len == 0 {
            return Err(Errno::EINVAL);
        }
        if start >= max {
            return Err(Errno::EFBIG);
        }
        let len = if len > max || max - len < start { max - start } else { len };
        let unknown = *flags & !FIEMAP_FLAGS_COMPAT;
        if unknown != 0 {
            *flags = unknown;
            return Err(Errno::EBADR);
        }
        if *flags & FIEMAP_FLAG_XATTR != 0 {
            // Where the extended attributes live: not reported here.
            return Err(Errno::EOPNOTSUPP);
        }
        if *flags & FIEMAP_FLAG_SYNC != 0 {
            self.write_back(Some(ino), None)?;
        }
        let mut inode = self.read_inode(ino)?;
        let bs = self.geo.block_size as u64;
        let first = start / bs;
        let stop = (start + len).div_ceil(bs);
        let mut runs: Vec<Extent> = Vec::new();
        if self.uses_extents(&inode) {
            runs = self.collect_extents(&inode, ino)?;
        } else {
            // Contiguous runs of the block map, up to the end of the file.
            let last = inode.size().div_ceil(bs).min(stop);
            for lblk in first..last {
                let b = self.bmap(&mut inode, ino, lblk, false)?;
                if b == 0 {
                    continue;
                }
                match runs.last_mut() {
                    Some(r) if r.end() == lblk && r.pblk + r.len == b => r.len += 1,
                    _ => runs.push(Extent { lblk: lblk as u32, len: 1, pblk: b, unwritten: false }),
                }
            }
        }
        let mut out = Vec::new();
        for e in runs.iter().filter(|e| e.end() > first && u64::from(e.lblk) < stop) {
            let from = u64::from(e.lblk).max(first);
            let to = e.end().min(stop);
            out.push(MappedRun {
                logical: from * bs,
                physical: (u64::from(e.pblk) + (from - u64::from(e.lblk))) * bs,
                length: (to - from) * bs,
                unwritten: e.unwritten,
            });
        }
        Ok(out)
    }

    /// FIBMAP: the block of file block `block` (0 for a hole or an
    /// unwritten block).
    pub fn fibmap(&mut self, ino: u32, block: u64) -> Result<u64> {
        let mut inode = self.read_inode(ino)?;
        if self.uses_extents(&inode) {
            return Ok(match self.extent_of(&inode, ino, block)? {
                Some(e) if !e.unwritten => u64::from(e.pblk) + (block - u64::from(e.lblk)),
                _ => 0,
            });
        }
        match self.bmap(&mut inode, ino, block, false) {
            Ok(b) => Ok(u64::from(b)),
            // Past what the block map reaches: nothing there.
            Err(Errno::EFBIG) => Ok(0),
            Err(e) => Err(e),
        }
    }
}

impl State {
    /// Whether block `b` is free (a group whose bitmap was never written
    /// has free blocks past its metadata: not known here, so no).
    pub(crate) fn block_is_free(&mut self, b: u32) -> bool {
        if b < self.geo.first_data_block || b >= self.geo.blocks_count {
            return false;
        }
        let group = (b - self.geo.first_data_block) / self.geo.blocks_per_group;
        let gd = self.groups[group as usize];
        if gd.flags & crate::layout::BG_BLOCK_UNINIT != 0 {
            return false;
        }
        let bit = ((b - self.geo.first_data_block) % self.geo.blocks_per_group) as usize;
        self.block(gd.block_bitmap).is_ok_and(|bitmap| !crate::state::get_bit(bitmap, bit))
    }

    /// The first block of a run of `n` free blocks at or after `goal`
    /// (in its group, then the following groups); a group whose bitmap
    /// was never written counts as free from its start. None when no
    /// group has such a run.
    ///
    /// A search from the goal of the previous one starts where that one
    /// found its run (the blocks between were in use then; any free run
    /// is a right answer, and the files made one after the other sit
    /// side by side as with mballoc's group preallocation); when nothing
    /// is found from there, the search starts again from the goal.
    pub(crate) fn find_free_run(&mut self, goal: u32, n: u32) -> Option<u32> {
        let (hint_goal, hint) = self.free_run_hint;
        if hint_goal == goal && hint > goal {
            if let Some(found) = self.scan_free_run(hint, n).filter(|&b| b >= hint) {
                self.free_run_hint = (goal, found);
                return Some(found);
            }
        }
        let found = self.scan_free_run(goal, n);
        if let Some(b) = found {
            self.free_run_hint = (goal, b);
        }
        found
    }

    fn scan_free_run(&mut self, goal: u32, n: u32) -> Option<u32> {
        let geo = &self.geo;
        let goal = if goal < geo.first_data_block || goal >= geo.blocks_count { geo.first_data_block } else { goal };
        let goal_group = (goal - geo.first_data_block) / geo.blocks_per_group;
        let groups = geo.group_count;
        for k in 0..groups {
            let group = (goal_group + k) % groups;
            let gd = self.groups[group as usize];
            if gd.free_blocks < n {
                continue;
            }
            let base = self.geo.first_data_block + group * self.geo.blocks_per_group;
            if gd.flags & crate::layout::BG_BLOCK_UNINIT != 0 {
                return Some(base);
            }
            let count = self.geo.blocks_in_group(group) as usize;
            let from = if k == 0 { (goal - base) as usize } else { 0 };
            let bitmap = self.block(gd.block_bitmap).ok()?;
            let mut run = 0u32;
            let mut bit = from;
            while bit < count {
                // Whole 64-bit words at once: all used, or all free.
                if bit % 64 == 0 && bit + 64 <= count {
                    let word = u64::from_le_bytes(bitmap[bit / 8..bit / 8 + 8].try_into().unwrap_or([0; 8]));
                    if word == u64::MAX {
                        run = 0;
                        bit += 64;
                        continue;
                    }
                    if word == 0 {
                        if run + 64 >= n {
                            return Some(base + bit as u32 - run);
                        }
                        run += 64;
                        bit += 64;
                        continue;
                    }
                }
                if crate::state::get_bit(bitmap, bit) {
                    run = 0;
                } else {
                    run += 1;
                    if run == n {
                        return Some(base + bit as u32 + 1 - n);
                    }
                }
                bit += 1;
            }
        }
        None
    }
}

/// Splits the run holding logical block `at` (if it starts before it) in
/// two at `at`.
fn split_at(all: &mut Vec<Extent>, at: u64) {
    let Some(i) = all.iter().position(|e| u64::from(e.lblk) < at && e.end() > at) else { return };
    let e = all[i];
    let head = (at - u64::from(e.lblk)) as u32;
    all[i].len = head;
    all.insert(i + 1, Extent { lblk: e.lblk + head, len: e.len - head, pblk: e.pblk + head, unwritten: e.unwritten });
}
