//! The orphan list: inodes whose last link is gone while something still
//! holds them (an unlinked file still open, a removed directory still
//! someone's working directory). As on Linux's ext4 with a journal, such
//! an inode is chained from the superblock's `s_last_orphan` through the
//! `i_dtime` fields (each holds the next orphan's number) in the same
//! transaction as the unlink, and taken off the list when the last holder
//! lets go and the inode is freed. After a crash, the mount frees the
//! inodes it finds on the list (an orphan that still has links, which
//! Linux leaves for a truncate that was cut short, is truncated to its
//! size), as Linux's `ext4_orphan_cleanup` and `e2fsck` do.
//!
//! Without a journal (ext2) nothing is chained, as on Linux; a list left
//! by another system is still cleaned up at a read-write mount.

use alloc::vec::Vec;

use kevlar_vfs::{Errno, Result};

use crate::layout::*;
use crate::state::State;

/// The superblock's `s_last_orphan`.
const LAST_ORPHAN: usize = 0xe8;

impl State {
    /// Tells whether `ino` is on the orphan list.
    pub fn is_orphan(&self, ino: u32) -> bool {
        self.orphans.contains(&ino)
    }

    /// Puts `ino` (no links left, still held) on the orphan list, when
    /// changes are journaled.
    pub fn orphan_add(&mut self, ino: u32) -> Result<()> {
        if self.journal.is_none() || self.orphans.contains(&ino) {
            return Ok(());
        }
        let head = le32(&self.superblock, LAST_ORPHAN);
        let mut inode = self.read_inode(ino)?;
        inode.set(ino::DTIME, head);
        self.write_inode(ino, &inode)?;
        put32(&mut self.superblock, LAST_ORPHAN, ino);
        self.sb_dirty = true;
        self.orphans.insert(ino);
        Ok(())
    }

    /// Takes `ino` off the orphan list, if it is on it (its `i_dtime` is
    /// 0 again).
    pub fn orphan_del(&mut self, ino: u32) -> Result<()> {
        if !self.orphans.remove(&ino) {
            return Ok(());
        }
        let mut inode = self.read_inode(ino)?;
        let next = inode.get(ino::DTIME);
        inode.set(ino::DTIME, 0);
        self.write_inode(ino, &inode)?;
        let head = le32(&self.superblock, LAST_ORPHAN);
        if head == ino {
            put32(&mut self.superblock, LAST_ORPHAN, next);
            self.sb_dirty = true;
            return Ok(());
        }
        // Find the orphan before it (the list is short).
        let mut at = head;
        for _ in 0..self.geo.inodes_count {
            if at == 0 {
                break;
            }
            let mut prev = self.read_inode(at)?;
            let after = prev.get(ino::DTIME);
            if after == ino {
                prev.set(ino::DTIME, next);
                self.write_inode(at, &prev)?;
                return Ok(());
            }
            at = after;
        }
        Err(Errno::EUCLEAN)
    }

    /// Frees what the orphan list holds at mount (a crash left them);
    /// returns how many inodes it freed or truncated.
    pub fn cleanup_orphans(&mut self) -> Result<u32> {
        let mut list = Vec::new();
        let mut at = le32(&self.superblock, LAST_ORPHAN);
        while at != 0 {
            if at < self.geo.first_ino && at != ROOT_INO || at > self.geo.inodes_count || list.contains(&at) || list.len() as u32 >= self.geo.inodes_count {
                break; // a damaged list: stop where it goes wrong, as Linux
            }
            list.push(at);
            at = match self.read_inode(at) {
                Ok(inode) => inode.get(ino::DTIME),
                Err(_) => break,
            };
        }
        if le32(&self.superblock, LAST_ORPHAN) == 0 {
            return Ok(0);
        }
        put32(&mut self.superblock, LAST_ORPHAN, 0);
        self.sb_dirty = true;
        let mut done = 0;
        for ino in list {
            // One damaged orphan does not stop the mount: e2fsck sees to it.
            if self.release_orphan(ino).is_ok() {
                done += 1;
            }
        }
        Ok(done)
    }

    /// Frees orphan `ino` found at mount, or truncates it to its size if
    /// it still has links.
    fn release_orphan(&mut self, ino: u32) -> Result<()> {
        let mut inode = self.read_inode(ino)?;
        if inode.mode() == 0 {
            return Ok(());
        }
        inode.set(ino::DTIME, 0);
        self.write_inode(ino, &inode)?;
        if inode.links() == 0 {
            self.destroy_inode(ino)?;
        } else if u32::from(inode.mode()) & linux_raw_sys::general::S_IFMT == linux_raw_sys::general::S_IFREG {
            let keep = inode.size().div_ceil(self.geo.block_size as u64);
            if self.has_data_blocks(&inode) {
                self.free_blocks_from(&mut inode, ino, keep)?;
            }
            self.write_inode(ino, &inode)?;
        }
        Ok(())
    }
}
