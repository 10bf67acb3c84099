//! JBD2 journal recovery: the transactions a crash left committed in the
//! journal (an inode, usually 8) are written to their places, as Linux
//! does when it mounts a file system whose `needs_recovery` flag is set.
//!
//! The journal's blocks are big-endian records (the layout of Linux's
//! `include/linux/jbd2.h`): a superblock (block 0) telling where the log
//! starts and which sequence number comes first; then, for each
//! transaction, descriptor blocks listing the home blocks of the data
//! blocks that follow them, revoke blocks, and a commit block. Recovery
//! scans the log from its start while the sequence numbers follow on,
//! keeps the transactions whose commit block was found (and checks out,
//! with checksums), gathers their revocations, then writes every logged
//! block not revoked by the same or a later transaction. The log is then
//! marked empty (`s_start` 0), and the caller clears `needs_recovery`.

use alloc::collections::BTreeMap;
use alloc::vec;
use alloc::vec::Vec;

use kevlar_vfs::{Errno, Result};

use crate::csum::crc32c;
use crate::layout::*;
use crate::state::State;

pub(crate) const JBD2_MAGIC: u32 = 0xc03b_3998;
pub(crate) const DESCRIPTOR: u32 = 1;
pub(crate) const COMMIT: u32 = 2;
pub(crate) const SUPERBLOCK_V1: u32 = 3;
pub(crate) const SUPERBLOCK_V2: u32 = 4;
pub(crate) const REVOKE: u32 = 5;

pub(crate) const COMPAT_CHECKSUM: u32 = 0x1;
pub(crate) const INCOMPAT_REVOKE: u32 = 0x1;
pub(crate) const INCOMPAT_64BIT: u32 = 0x2;
pub(crate) const INCOMPAT_ASYNC_COMMIT: u32 = 0x4;
pub(crate) const INCOMPAT_CSUM_V2: u32 = 0x8;
pub(crate) const INCOMPAT_CSUM_V3: u32 = 0x10;
pub(crate) const INCOMPAT_KNOWN: u32 = INCOMPAT_REVOKE | INCOMPAT_64BIT | INCOMPAT_ASYNC_COMMIT | INCOMPAT_CSUM_V2 | INCOMPAT_CSUM_V3;

/// Most journal blocks accepted (far more than any journal mke2fs
/// makes): a damaged size does not make the mount map billions of blocks.
pub(crate) const MAX_JOURNAL_BLOCKS: u64 = 1 << 23;

pub(crate) const TAG_ESCAPE: u32 = 1;
pub(crate) const TAG_SAME_UUID: u32 = 2;
pub(crate) const TAG_LAST: u32 = 8;

pub(crate) fn be32(b: &[u8], off: usize) -> u32 {
    u32::from_be_bytes([b[off], b[off + 1], b[off + 2], b[off + 3]])
}

fn be16(b: &[u8], off: usize) -> u16 {
    u16::from_be_bytes([b[off], b[off + 1]])
}

pub(crate) fn put_be32(b: &mut [u8], off: usize, v: u32) {
    b[off..off + 4].copy_from_slice(&v.to_be_bytes());
}

/// Tells whether sequence `a` comes after `b` (sequence numbers wrap).
fn after(a: u32, b: u32) -> bool {
    (a.wrapping_sub(b) as i32) > 0
}

/// One logged block of a transaction: its home and where it is in the log.
struct Logged {
    home: u64,
    log_block: u32,
    flags: u32,
    checksum: u32,
}

struct Transaction {
    sequence: u32,
    blocks: Vec<Logged>,
    revoked: Vec<u64>,
}

/// What recovery did, for the log.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Recovery {
    /// Committed transactions found.
    pub transactions: u32,
    /// Blocks written to their places.
    pub replayed: u32,
    /// Blocks skipped because a later transaction revoked them.
    pub revoked: u32,
}

/// The journal as a file: its blocks through the inode's map.
struct Log {
    map: Vec<u32>,
    block_size: usize,
    csum_seed: Option<u32>,
    v3: bool,
    wide: bool,
}

impl Log {
    fn tag_bytes(&self) -> usize {
        if self.v3 {
            16
        } else {
            8 + if self.csum_seed.is_some() { 2 } else { 0 } + if self.wide { 4 } else { 0 }
        }
    }
}

impl State {
    fn log_read(&mut self, log: &Log, lblk: u32) -> Result<Vec<u8>> {
        let b = *log.map.get(lblk as usize).ok_or(Errno::EUCLEAN)?;
        let mut data = vec![0u8; log.block_size];
        let per = (log.block_size / self.dev.sector_size()) as u64;
        self.dev.read_sectors(u64::from(b) * per, &mut data)?;
        Ok(data)
    }

    /// Replays the journal's committed transactions onto the disk and
    /// marks the log empty. The block cache is not updated: the caller
    /// loads the file system again afterwards.
    pub fn replay_journal(&mut self) -> Result<Recovery> {
        let jino = le32(&self.superblock, sb::JOURNAL_INUM);
        if jino == 0 || jino > self.geo.inodes_count {
            return Err(Errno::EINVAL); // an external journal: not supported
        }
        let mut inode = self.read_inode(jino)?;
        let bs = self.geo.block_size;
        let nblocks = inode.size() / bs as u64;
        if !(2..=MAX_JOURNAL_BLOCKS).contains(&nblocks) {
            return Err(Errno::EUCLEAN);
        }
        let mut map = Vec::with_capacity(nblocks as usize);
        for lblk in 0..nblocks {
            let b = self.bmap(&mut inode, jino, lblk, false)?;
            if b == 0 {
                return Err(Errno::EUCLEAN);
            }
            map.push(b);
        }
        let mut log = Log { map, block_size: bs, csum_seed: None, v3: false, wide: false };
        let mut jsb = self.log_read(&log, 0)?;
        let blocktype = be32(&jsb, 4);
        if be32(&jsb, 0) != JBD2_MAGIC || !(blocktype == SUPERBLOCK_V1 || blocktype == SUPERBLOCK_V2) {
            return Err(Errno::EUCLEAN);
        }
        let (maxlen, first, mut sequence, start) = (be32(&jsb, 0x10), be32(&jsb, 0x14), be32(&jsb, 0x18), be32(&jsb, 0x1c));
        if be32(&jsb, 0x0c) as usize != bs || u64::from(maxlen) > nblocks || first == 0 || first >= maxlen || start >= maxlen {
            return Err(Errno::EUCLEAN);
        }
        let incompat = if blocktype == SUPERBLOCK_V2 { be32(&jsb, 0x28) } else { 0 };
        if incompat & !INCOMPAT_KNOWN != 0 {
            return Err(Errno::EINVAL); // fast commits and the like
        }
        log.wide = incompat & INCOMPAT_64BIT != 0;
        log.v3 = incompat & INCOMPAT_CSUM_V3 != 0;
        if incompat & (INCOMPAT_CSUM_V2 | INCOMPAT_CSUM_V3) != 0 {
            log.csum_seed = Some(crc32c(!0, &jsb[0x30..0x40]));
        }
        let mut recovery = Recovery::default();
        if start == 0 {
            return Ok(recovery); // the log is empty
        }
        let next = |b: u32| if b + 1 >= maxlen { first } else { b + 1 };
        // Pass 1: the committed transactions, from the log's start.
        let mut done: Vec<Transaction> = Vec::new();
        let mut current = Transaction { sequence, blocks: Vec::new(), revoked: Vec::new() };
        let mut at = start;
        let mut steps = 0u32;
        loop {
            steps += 1;
            if steps > maxlen {
                break; // went round the whole log
            }
            let block = self.log_read(&log, at)?;
            if be32(&block, 0) != JBD2_MAGIC || be32(&block, 8) != sequence {
                break;
            }
            match be32(&block, 4) {
                DESCRIPTOR => {
                    if !tail_ok(&log, &block) {
                        break;
                    }
                    let end = bs - if log.csum_seed.is_some() { 4 } else { 0 };
                    let tag = log.tag_bytes();
                    let mut off = 12;
                    let mut data_at = at;
                    while off + tag <= end {
                        let low = u64::from(be32(&block, off));
                        let (flags, checksum, high) = if log.v3 {
                            (be32(&block, off + 4), be32(&block, off + 12), u64::from(be32(&block, off + 8)))
                        } else {
                            let high = if log.wide { u64::from(be32(&block, off + 8)) } else { 0 };
                            (u32::from(be16(&block, off + 6)), u32::from(be16(&block, off + 4)), high)
                        };
                        data_at = next(data_at);
                        let home = if log.wide { low | high << 32 } else { low };
                        current.blocks.push(Logged { home, log_block: data_at, flags, checksum });
                        off += tag;
                        if flags & TAG_SAME_UUID == 0 {
                            off += 16;
                        }
                        if flags & TAG_LAST != 0 {
                            break;
                        }
                    }
                    at = next(data_at);
                }
                COMMIT => {
                    if let Some(seed) = log.csum_seed {
                        let mut copy = block.clone();
                        put_be32(&mut copy, 16, 0);
                        if crc32c(seed, &copy) != be32(&block, 16) {
                            break;
                        }
                    }
                    let finished = core::mem::replace(&mut current, Transaction { sequence: sequence.wrapping_add(1), blocks: Vec::new(), revoked: Vec::new() });
                    done.push(finished);
                    sequence = sequence.wrapping_add(1);
                    at = next(at);
                }
                REVOKE => {
                    if !tail_ok(&log, &block) {
                        break;
                    }
                    let count = (be32(&block, 12) as usize).min(bs);
                    let size = if log.wide { 8 } else { 4 };
                    let mut off = 16;
                    while off + size <= count {
                        let home = if log.wide { u64::from(be32(&block, off)) << 32 | u64::from(be32(&block, off + 4)) } else { u64::from(be32(&block, off)) };
                        current.revoked.push(home);
                        off += size;
                    }
                    at = next(at);
                }
                _ => break,
            }
        }
        // Pass 2: the latest transaction revoking each block.
        let mut revoked: BTreeMap<u64, u32> = BTreeMap::new();
        for t in &done {
            for &home in &t.revoked {
                let e = revoked.entry(home).or_insert(t.sequence);
                if after(t.sequence, *e) {
                    *e = t.sequence;
                }
            }
        }
        // Pass 3: the blocks to their places.
        let per = (bs / self.dev.sector_size()) as u64;
        for t in &done {
            recovery.transactions += 1;
            for logged in &t.blocks {
                if revoked.get(&logged.home).is_some_and(|&r| !after(t.sequence, r)) {
                    recovery.revoked += 1;
                    continue;
                }
                let mut data = self.log_read(&log, logged.log_block)?;
                // The checksum covers the block as logged (escaped).
                if let Some(seed) = log.csum_seed {
                    let c = crc32c(crc32c(seed, &t.sequence.to_be_bytes()), &data);
                    let ok = if log.v3 { c == logged.checksum } else { (c & 0xffff) == logged.checksum };
                    if !ok {
                        continue; // as jbd2: a block whose checksum fails is skipped
                    }
                }
                if logged.flags & TAG_ESCAPE != 0 {
                    put_be32(&mut data, 0, JBD2_MAGIC);
                }
                let home = u32::try_from(logged.home).map_err(|_| Errno::EUCLEAN)?;
                if home >= self.geo.blocks_count {
                    return Err(Errno::EUCLEAN);
                }
                self.dev.write_sectors(u64::from(home) * per, &data)?;
                recovery.replayed += 1;
            }
        }
        // The log is empty; the next transaction follows the last one.
        put_be32(&mut jsb, 0x18, sequence);
        put_be32(&mut jsb, 0x1c, 0);
        if log.csum_seed.is_some() && blocktype == SUPERBLOCK_V2 {
            put_be32(&mut jsb, 0xfc, 0);
            let c = crc32c(!0, &jsb[..1024]);
            put_be32(&mut jsb, 0xfc, c);
        }
        self.dev.write_sectors(u64::from(log.map[0]) * per, &jsb)?;
        self.dev.flush()?;
        Ok(recovery)
    }

    /// Clears `needs_recovery` in the superblock on the disk (after the
    /// journal was replayed, which may have rewritten the superblock).
    pub fn clear_recovery_flag(&mut self) -> Result<()> {
        let sector = self.dev.sector_size() as u64;
        let mut superblock = vec![0u8; SUPERBLOCK_SIZE];
        self.dev.read_sectors(SUPERBLOCK_OFFSET / sector, &mut superblock)?;
        let incompat = le32(&superblock, sb::FEATURE_INCOMPAT);
        put32(&mut superblock, sb::FEATURE_INCOMPAT, incompat & !INCOMPAT_RECOVER);
        if le32(&superblock, sb::FEATURE_RO_COMPAT) & RO_COMPAT_METADATA_CSUM != 0 {
            let c = crate::csum::superblock(&superblock);
            put32(&mut superblock, sb::CHECKSUM, c);
        }
        self.dev.write_sectors(SUPERBLOCK_OFFSET / sector, &superblock)?;
        self.dev.flush()
    }
}

/// Checks a descriptor or revoke block's checksum tail (its last four
/// bytes), when the journal has checksums.
fn tail_ok(log: &Log, block: &[u8]) -> bool {
    let Some(seed) = log.csum_seed else { return true };
    let n = block.len();
    let mut copy = block.to_vec();
    put_be32(&mut copy, n - 4, 0);
    crc32c(seed, &copy) == be32(block, n - 4)
}
