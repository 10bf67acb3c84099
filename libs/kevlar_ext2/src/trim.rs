//! FITRIM (what `fstrim` asks): the free blocks of a byte range of the
//! file system handed to the device as discards, with the rules of
//! Linux's `ext4_trim_fs`:
//!
//! - `start`, `len` and `minlen` are bytes, taken in whole blocks; EINVAL
//!   when `minlen` is more than a group, `start` is past the last block,
//!   or `len` is less than a block. A `minlen` below the device's discard
//!   granularity is raised to it.
//! - In each group of the range, every run of free blocks at least
//!   `minlen` long is discarded; blocks freed in the running transaction
//!   are not free yet (Linux's buddy bitmap frees them at the commit).
//! - A group trimmed once is skipped until a block in it is freed, or a
//!   later trim asks for a smaller `minlen` than the last one (Linux's
//!   `EXT4_GROUP_INFO_WAS_TRIMMED` and `s_last_trim_minblks`, kept in
//!   memory only: a new mount trims everything again).
//! - The reply is the number of bytes discarded.

use alloc::collections::BTreeSet;

use kevlar_vfs::{Errno, Result};

use crate::layout::BG_BLOCK_UNINIT;
use crate::state::{get_bit, State};
use crate::Ext2Fs;

/// What FITRIM remembers between calls.
#[derive(Default)]
pub(crate) struct TrimState {
    /// Groups trimmed since a block in them was last freed.
    trimmed: BTreeSet<u32>,
    /// The `minlen` (blocks) of the last trim that completed.
    last_minlen: u64,
    /// The `discard` mount option (`discard.rs`).
    pub(crate) online: crate::discard::OnlineDiscard,
}

impl TrimState {
    /// A block of `group` was freed: the next trim looks at it again.
    pub(crate) fn untrimmed(&mut self, group: u32) {
        self.trimmed.remove(&group);
    }
}

/// FITRIM's `struct fstrim_range`, in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TrimRange {
    /// First byte of the file system to look at.
    pub start: u64,
    /// Bytes to look at.
    pub len: u64,
    /// The shortest free run worth discarding.
    pub minlen: u64,
}

impl Ext2Fs {
    /// The file system `node` belongs to, if it is one of this crate's.
    pub fn of(node: &dyn kevlar_vfs::Inode) -> Option<alloc::sync::Arc<Ext2Fs>> {
        node.as_any().downcast_ref::<crate::Ext2Node>().map(|n| n.fs().clone())
    }

    /// FITRIM over `range`: calls `discard(byte offset, bytes)` on the
    /// file system's device for each free run it trims, and
    /// `interrupted()` between groups and runs (a fatal signal ends the
    /// trim with EINTR); `granularity` is the device's discard
    /// granularity in bytes. Returns the bytes trimmed (the reply's len).
    pub fn trim(&self, range: TrimRange, granularity: u64, discard: &mut dyn FnMut(u64, u64) -> Result<()>, interrupted: &dyn Fn() -> bool) -> Result<u64> {
        let mut st = self.state.lock();
        st.trim(range, granularity, discard, interrupted)
    }
}

impl State {
    fn trim(&mut self, range: TrimRange, granularity: u64, discard: &mut dyn FnMut(u64, u64) -> Result<()>, interrupted: &dyn Fn() -> bool) -> Result<u64> {
        let bs = self.geo.block_size as u64;
        let shift = bs.trailing_zeros();
        let per_group = u64::from(self.geo.blocks_per_group);
        let first_data = u64::from(self.geo.first_data_block);
        let blocks = u64::from(self.geo.blocks_count);
        let start = range.start >> shift;
        let mut minlen = range.minlen >> shift;
        if minlen > per_group || start >= blocks || range.len < bs {
            return Err(Errno::EINVAL);
        }
        if range.minlen < granularity {
            minlen = granularity >> shift;
            if minlen > per_group {
                return Ok(0);
            }
        }
        let end = start.saturating_add(range.len >> shift).saturating_sub(1).min(blocks - 1);
        if end <= first_data {
            return Ok(0);
        }
        let start = start.max(first_data);
        let (first_group, mut from) = ((start - first_data) / per_group, (start - first_data) % per_group);
        let (last_group, last_bit) = ((end - first_data) / per_group, (end - first_data) % per_group);
        let mut trimmed = 0u64;
        for group in first_group..=last_group {
            let to = if group == last_group { last_bit } else { per_group - 1 };
            let free = u64::from(self.groups[group as usize].free_blocks);
            if free >= minlen && (!self.trim.trimmed.contains(&(group as u32)) || minlen < self.trim.last_minlen) {
                trimmed += self.trim_group(group as u32, from, to, minlen, free, discard, interrupted)?;
                self.trim.trimmed.insert(group as u32);
            }
            from = 0;
        }
        self.trim.last_minlen = minlen;
        Ok(trimmed << shift)
    }

    /// Trims the free runs of `group` between bits `from` and `to`
    /// (inclusive) at least `minlen` blocks long; returns the blocks
    /// trimmed.
    #[allow(clippy::too_many_arguments)]
    fn trim_group(&mut self, group: u32, from: u64, to: u64, minlen: u64, free: u64, discard: &mut dyn FnMut(u64, u64) -> Result<()>, interrupted: &dyn Fn() -> bool) -> Result<u64> {
        let gd = self.groups[group as usize];
        let bitmap = if gd.flags & BG_BLOCK_UNINIT != 0 { self.uninit_block_bitmap(group)? } else { self.block(gd.block_bitmap)?.to_vec() };
        let first = u64::from(self.geo.first_data_block) + u64::from(group) * u64::from(self.geo.blocks_per_group);
        let freed = self.journal.as_ref().map(|j| &j.freed);
        let busy = |k: u64| get_bit(&bitmap, k as usize) || freed.is_some_and(|f| f.contains(&((first + k) as u32)));
        let bs = self.geo.block_size as u64;
        let (mut count, mut seen) = (0u64, 0u64);
        let mut k = from;
        while k <= to {
            while k <= to && busy(k) {
                k += 1;
            }
            if k > to {
                break;
            }
            let run = k;
            while k <= to && !busy(k) {
                k += 1;
            }
            let len = k - run;
            if len >= minlen {
                discard((first + run) * bs, len * bs)?;
                count += len;
            }
            seen += len;
            if interrupted() {
                return Err(Errno::EINTR);
            }
            if free.saturating_sub(seen) < minlen {
                break;
            }
        }
        Ok(count)
    }
}
