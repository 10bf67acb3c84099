//! ext4's `discard` mount option (online discard): the blocks a commit
//! frees are discarded on the device once the commit is done, as Linux's
//! ext4 does after the transaction that frees them commits
//! (`ext4_process_freed_data`); without a journal, after the commit that
//! writes the bitmaps. Runs of adjacent blocks become one discard; a
//! block taken again before the discard (the allocator's last resort
//! when the disk is full) is left alone. A discard the device refuses is
//! forgotten: it is a hint, and the blocks are free either way.

use alloc::collections::BTreeSet;

use crate::state::State;
use crate::Ext2Fs;

/// Whether the mount discards, and the blocks freed since the last commit.
#[derive(Default)]
pub(crate) struct OnlineDiscard {
    pub(crate) enabled: bool,
    pending: BTreeSet<u32>,
}

impl OnlineDiscard {
    /// Block `b` was freed.
    pub(crate) fn freed(&mut self, b: u32) {
        if self.enabled {
            self.pending.insert(b);
        }
    }
}

impl Ext2Fs {
    /// Turns the `discard` mount option on or off.
    pub fn set_discard(&self, on: bool) {
        let mut st = self.state.lock();
        st.trim.online.enabled = on;
        if !on {
            st.trim.online.pending.clear();
        }
    }

    /// Whether the mount has the `discard` option.
    pub fn discard_enabled(&self) -> bool {
        self.state.lock().trim.online.enabled
    }
}

impl State {
    /// After a commit: discards the blocks it freed that are still free.
    pub(crate) fn discard_committed(&mut self) {
        if self.trim.online.pending.is_empty() {
            return;
        }
        let pending = core::mem::take(&mut self.trim.online.pending);
        let per = (self.geo.block_size / self.dev.sector_size()) as u64;
        let mut run: Option<(u32, u32)> = None;
        for b in pending {
            if !self.block_is_free(b) {
                continue;
            }
            run = match run {
                Some((start, len)) if start + len == b => Some((start, len + 1)),
                Some((start, len)) => {
                    let _ = self.dev.discard_sectors(u64::from(start) * per, u64::from(len) * per);
                    Some((b, 1))
                }
                None => Some((b, 1)),
            };
        }
        if let Some((start, len)) = run {
            let _ = self.dev.discard_sectors(u64::from(start) * per, u64::from(len) * per);
        }
    }

}
