//! Allocation of blocks and inodes in the groups' bitmaps, keeping the
//! groups' counts, the superblock's totals and (ext4) the bitmaps'
//! checksums and uninitialised-group flags right.

use alloc::vec;

use kevlar_vfs::{Errno, Result};

use crate::layout::*;
use crate::state::{find_zero, get_bit, set_bit, State};

impl State {
    // ----- allocation -----

    /// Allocates a block, preferring group `goal`; the block is zeroed in
    /// the cache.
    pub fn alloc_block(&mut self, goal: u32) -> Result<u32> {
        let start = self.geo.first_data_block + goal.min(self.geo.group_count - 1) * self.geo.blocks_per_group;
        self.alloc_block_near(start)
    }

    /// Allocates a block, the free one at or after block `goal` in its
    /// group if any, else the first free one of the next groups; the
    /// block is zeroed in the cache. Blocks freed since the last commit
    /// are skipped while there are others (with a journal; when they are
    /// all that is left they are used, where Linux would commit first).
    pub fn alloc_block_near(&mut self, goal: u32) -> Result<u32> {
        match self.alloc_block_from(goal, true) {
            Err(Errno::ENOSPC) if self.journal.as_ref().is_some_and(|j| !j.freed.is_empty()) => self.alloc_block_from(goal, false),
            r => r,
        }
    }

    fn alloc_block_from(&mut self, goal: u32, skip_freed: bool) -> Result<u32> {
        let goal = if goal < self.geo.first_data_block || goal >= self.geo.blocks_count { self.geo.first_data_block } else { goal };
        let goal_group = (goal - self.geo.first_data_block) / self.geo.blocks_per_group;
        let goal_bit = ((goal - self.geo.first_data_block) % self.geo.blocks_per_group) as usize;
        let n = self.geo.group_count;
        for i in 0..n {
            let group = (goal_group + i) % n;
            if self.groups[group as usize].free_blocks == 0 {
                continue;
            }
            self.init_block_bitmap(group)?;
            let bitmap_block = self.groups[group as usize].block_bitmap;
            let count = self.geo.blocks_in_group(group) as usize;
            let first = self.geo.first_data_block + group * self.geo.blocks_per_group;
            let from = if i == 0 { goal_bit.min(count) } else { 0 };
            // The set is moved out while the bitmap is borrowed.
            let freed = match &mut self.journal {
                Some(j) if skip_freed && !j.freed.is_empty() => Some(core::mem::take(&mut j.freed)),
                _ => None,
            };
            let found = self.block(bitmap_block).map(|bitmap| match &freed {
                None => first_clear_bit(bitmap, from, count).or_else(|| find_zero(bitmap, count)),
                Some(freed) => {
                    let usable = |k: usize| !get_bit(bitmap, k) && !freed.contains(&(first + k as u32));
                    (from..count).find(|&k| usable(k)).or_else(|| (0..from).find(|&k| usable(k)))
                }
            });
            if let (Some(freed), Some(j)) = (freed, &mut self.journal) {
                j.freed = freed;
            }
            let Some(bit) = found? else { continue };
            set_bit(self.block_mut(bitmap_block)?, bit, true);
            self.groups[group as usize].free_blocks -= 1;
            self.group_changed(group);
            self.stale_bitmaps.insert((group, false));
            self.adjust_sb(sb::FREE_BLOCKS, -1);
            let b = self.geo.first_data_block + group * self.geo.blocks_per_group + bit as u32;
            self.zero_block(b);
            return Ok(b);
        }
        Err(Errno::ENOSPC)
    }

    /// Builds the block bitmap of a group whose bitmap was never written
    /// (`BLOCK_UNINIT`): its superblock and descriptor copies, and its own
    /// bitmaps and inode table when they lie in it, are in use; the count
    /// must agree with the descriptor's free count.
    fn init_block_bitmap(&mut self, group: u32) -> Result<()> {
        let gd = self.groups[group as usize];
        if gd.flags & BG_BLOCK_UNINIT == 0 {
            return Ok(());
        }
        let bitmap = self.uninit_block_bitmap(group)?;
        self.forget_block(gd.block_bitmap);
        self.zero_block(gd.block_bitmap);
        self.block_mut(gd.block_bitmap)?.copy_from_slice(&bitmap);
        self.groups[group as usize].flags &= !BG_BLOCK_UNINIT;
        self.group_changed(group);
        self.stale_bitmaps.insert((group, false));
        Ok(())
    }

    /// The block bitmap of a `BLOCK_UNINIT` group as it would be built,
    /// without storing it.
    pub(crate) fn uninit_block_bitmap(&self, group: u32) -> Result<alloc::vec::Vec<u8>> {
        let gd = self.groups[group as usize];
        let bs = self.geo.block_size;
        let start = self.geo.first_data_block + group * self.geo.blocks_per_group;
        let in_group = self.geo.blocks_in_group(group);
        let mut bitmap = vec![0u8; bs];
        let mut used = 0u32;
        let mut mark = |bitmap: &mut [u8], b: u32| {
            if b >= start && b - start < in_group && !get_bit(bitmap, (b - start) as usize) {
                set_bit(bitmap, (b - start) as usize, true);
                used += 1;
            }
        };
        if self.geo.has_super(group) {
            for k in 0..1 + self.geo.gdt_blocks() + self.geo.reserved_gdt {
                mark(&mut bitmap, start + k);
            }
        }
        let table = (self.geo.inodes_per_group as usize * self.geo.inode_size).div_ceil(bs) as u32;
        mark(&mut bitmap, gd.block_bitmap);
        mark(&mut bitmap, gd.inode_bitmap);
        for k in 0..table {
            mark(&mut bitmap, gd.inode_table + k);
        }
        if in_group - used != gd.free_blocks {
            return Err(Errno::EUCLEAN);
        }
        for k in in_group as usize..8 * bs {
            set_bit(&mut bitmap, k, true);
        }
        Ok(bitmap)
    }

    /// Gives a group whose inode bitmap was never written (`INODE_UNINIT`)
    /// an empty one.
    fn init_inode_bitmap(&mut self, group: u32) -> Result<()> {
        let gd = self.groups[group as usize];
        if gd.flags & BG_INODE_UNINIT == 0 {
            return Ok(());
        }
        let bs = self.geo.block_size;
        self.forget_block(gd.inode_bitmap);
        self.zero_block(gd.inode_bitmap);
        let ipg = self.geo.inodes_per_group as usize;
        let bitmap = self.block_mut(gd.inode_bitmap)?;
        for k in ipg..8 * bs {
            set_bit(bitmap, k, true);
        }
        self.groups[group as usize].flags &= !BG_INODE_UNINIT;
        self.group_changed(group);
        self.stale_bitmaps.insert((group, true));
        Ok(())
    }

    /// Frees block `b`.
    pub fn free_block(&mut self, b: u32) -> Result<()> {
        // Some cached page may have been backed by it.
        self.map_epoch += 1;
        if b < self.geo.first_data_block || b >= self.geo.blocks_count {
            return Err(Errno::EIO);
        }
        let group = (b - self.geo.first_data_block) / self.geo.blocks_per_group;
        let bit = ((b - self.geo.first_data_block) % self.geo.blocks_per_group) as usize;
        if self.groups[group as usize].flags & BG_BLOCK_UNINIT != 0 {
            return Err(Errno::EUCLEAN);
        }
        let bitmap_block = self.groups[group as usize].block_bitmap;
        let bitmap = self.block_mut(bitmap_block)?;
        if !get_bit(bitmap, bit) {
            return Err(Errno::EIO);
        }
        set_bit(bitmap, bit, false);
        self.journal_freed(b);
        self.trim.untrimmed(group);
        self.trim.online.freed(b);
        self.groups[group as usize].free_blocks += 1;
        self.group_changed(group);
        self.stale_bitmaps.insert((group, false));
        self.adjust_sb(sb::FREE_BLOCKS, 1);
        // A freed block's cached copy must not be written over its next use.
        self.forget_block(b);
        Ok(())
    }

    /// Allocates an inode, preferring group `goal`.
    pub(crate) fn alloc_inode(&mut self, goal: u32, is_dir: bool) -> Result<u32> {
        let n = self.geo.group_count;
        for i in 0..n {
            let group = (goal + i) % n;
            if self.groups[group as usize].free_inodes == 0 {
                continue;
            }
            self.init_inode_bitmap(group)?;
            let bitmap_block = self.groups[group as usize].inode_bitmap;
            let count = self.geo.inodes_per_group as usize;
            // Reserved inodes (below first_ino) are never handed out, even
            // if their bits are clear.
            let skip = if group == 0 { (self.geo.first_ino - 1) as usize } else { 0 };
            let bitmap = self.block(bitmap_block)?;
            let Some(bit) = first_clear_bit(bitmap, skip, count) else { continue };
            let ino = group * self.geo.inodes_per_group + bit as u32 + 1;
            if ino > self.geo.inodes_count {
                continue;
            }
            set_bit(self.block_mut(bitmap_block)?, bit, true);
            let gd = &mut self.groups[group as usize];
            gd.free_inodes -= 1;
            if is_dir {
                gd.used_dirs += 1;
            }
            // Inodes past the table's used part were never initialised.
            let unused_from = self.geo.inodes_per_group - gd.itable_unused.min(self.geo.inodes_per_group);
            if bit as u32 >= unused_from {
                gd.itable_unused = self.geo.inodes_per_group - bit as u32 - 1;
            }
            self.group_changed(group);
            self.stale_bitmaps.insert((group, true));
            self.adjust_sb(sb::FREE_INODES, -1);
            return Ok(ino);
        }
        Err(Errno::ENOSPC)
    }

    /// Frees inode `ino` in its bitmap and counters.
    pub(crate) fn free_inode_bit(&mut self, ino: u32, is_dir: bool) -> Result<()> {
        let group = (ino - 1) / self.geo.inodes_per_group;
        let bit = ((ino - 1) % self.geo.inodes_per_group) as usize;
        if self.groups[group as usize].flags & BG_INODE_UNINIT != 0 {
            return Err(Errno::EUCLEAN);
        }
        let bitmap_block = self.groups[group as usize].inode_bitmap;
        let bitmap = self.block_mut(bitmap_block)?;
        if !get_bit(bitmap, bit) {
            return Err(Errno::EIO);
        }
        set_bit(bitmap, bit, false);
        let gd = &mut self.groups[group as usize];
        gd.free_inodes += 1;
        if is_dir {
            gd.used_dirs = gd.used_dirs.saturating_sub(1);
        }
        self.group_changed(group);
        self.stale_bitmaps.insert((group, true));
        self.adjust_sb(sb::FREE_INODES, 1);
        Ok(())
    }

    /// The group holding inode `ino`.
    pub fn group_of(&self, ino: u32) -> u32 {
        (ino - 1) / self.geo.inodes_per_group
    }

}

/// The first clear bit of `bitmap` in `from..to`, if any: whole bytes of
/// set bits are passed over at once (a group's inode bitmap fills from
/// its start, so a bit-by-bit look costs as many steps as inodes in use).
pub(crate) fn first_clear_bit(bitmap: &[u8], from: usize, to: usize) -> Option<usize> {
    let mut i = from;
    while i < to {
        if i % 64 == 0 && i + 64 <= to && bitmap.get(i / 8..i / 8 + 8).is_some_and(|w| w.iter().all(|&b| b == 0xff)) {
            i += 64;
            continue;
        }
        if i % 8 == 0 && i + 8 <= to && bitmap.get(i / 8) == Some(&0xff) {
            i += 8;
            continue;
        }
        if !get_bit(bitmap, i) {
            return Some(i);
        }
        i += 1;
    }
    None
}
