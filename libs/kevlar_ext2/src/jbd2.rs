//! Ordered-mode JBD2 journaling: every metadata change reaches the disk
//! through the journal, as Linux's ext4 with `data=ordered` writes it.
//!
//! A transaction is what [`State::commit`] finds changed: the dirty blocks
//! of the block cache (inode tables, bitmaps, directory, extent and
//! indirect blocks), the changed group-descriptor blocks and the block
//! holding the superblock. Committing it:
//!
//! 1. **Ordered data**: the dirty pages of every file that got new blocks
//!    since the last commit are written first, so committed metadata never
//!    points at blocks holding stale bytes.
//! 2. **The log**: revoke blocks (metadata blocks freed since the log's
//!    tail, which may hold file data now and must not be replayed over
//!    it), descriptor blocks with their tags (home block, flags, the
//!    block's checksum under journal csum v3/v2), the metadata copies
//!    (escaped when they start with the journal's magic), a flush, then
//!    the commit block (its checksum and the commit time), and a flush.
//! 3. **Checkpoint**: the blocks are written in place.
//! 4. **The tail**: the log grows from its tail until the next
//!    transaction would not fit; then the device is flushed (everything
//!    checkpointed is durable) and the journal superblock's `s_start` and
//!    `s_sequence` move to the head: the log is empty again and wraps
//!    around. Unmount does the same and marks the log empty (`s_start`
//!    0) before clearing `needs_recovery` in the superblock.
//!
//! A crash leaves `needs_recovery` set; the next mount (Kevlar's
//! `journal.rs`, Linux's jbd2, or `e2fsck`) replays the committed
//! transactions from `s_start`. Each operation runs under the file
//! system's lock and commits happen between operations, so a transaction
//! holds whole operations; one that would not fit in the log at all is
//! written as several transactions (not atomic: a limit of this code).

use alloc::collections::BTreeSet;
use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use kevlar_vfs::{Errno, Result};

use crate::csum::crc32c;
use crate::journal::{be32, put_be32, COMMIT, COMPAT_CHECKSUM, DESCRIPTOR, INCOMPAT_ASYNC_COMMIT, INCOMPAT_CSUM_V2, INCOMPAT_CSUM_V3, INCOMPAT_KNOWN, INCOMPAT_REVOKE, JBD2_MAGIC, MAX_JOURNAL_BLOCKS, REVOKE, SUPERBLOCK_V1, SUPERBLOCK_V2, TAG_ESCAPE, TAG_LAST, TAG_SAME_UUID};
use crate::journal::INCOMPAT_64BIT as JBD2_INCOMPAT_64BIT;
use crate::layout::*;
use crate::state::State;

/// The journal of a file system mounted read-write.
pub(crate) struct Journal {
    /// Log block -> file system block.
    map: Vec<u32>,
    bs: usize,
    first: u32,
    maxlen: u32,
    csum_seed: Option<u32>,
    v3: bool,
    wide: bool,
    uuid: [u8; 16],
    /// The journal superblock (the whole log block 0).
    jsb: Vec<u8>,
    /// Where the next transaction starts.
    head: u32,
    /// Where the oldest transaction still in the log starts (`s_start`).
    tail: u32,
    /// The next transaction's sequence number.
    sequence: u32,
    /// Home blocks logged since the tail: freeing one needs a revoke.
    live: BTreeSet<u32>,
    /// Revocations for the next transaction.
    revokes: BTreeSet<u32>,
    /// Blocks freed since the last commit: not handed out again until it
    /// is done (Linux keeps them busy as well), or a cut before the commit
    /// would find the freeing file back, its blocks holding the new
    /// owner's data (written before the commit, ordered mode).
    pub(crate) freed: BTreeSet<u32>,
    /// Inodes with blocks allocated since the last commit: their data is
    /// written before the commit (ordered mode).
    ordered: BTreeSet<u32>,
    /// The block holding the superblock as on the disk (for a block size
    /// above 1 KiB, the boot sector and the rest of block 0 around it).
    sb_block: Vec<u8>,
    /// Transactions committed since mount, for tests and the log.
    pub committed: u64,
}

impl Journal {
    fn capacity(&self) -> u32 {
        self.maxlen - self.first
    }

    fn used(&self) -> u32 {
        if self.head >= self.tail {
            self.head - self.tail
        } else {
            self.capacity() - (self.tail - self.head)
        }
    }

    fn next(&self, b: u32) -> u32 {
        if b + 1 >= self.maxlen {
            self.first
        } else {
            b + 1
        }
    }

    fn tag_bytes(&self) -> usize {
        if self.v3 {
            16
        } else {
            8 + if self.csum_seed.is_some() { 2 } else { 0 } + if self.wide { 4 } else { 0 }
        }
    }

    fn tail_bytes(&self) -> usize {
        if self.csum_seed.is_some() {
            4
        } else {
            0
        }
    }

    /// Tags one descriptor block holds (the first carries the UUID).
    fn tags_per_descriptor(&self) -> usize {
        (self.bs - 12 - self.tail_bytes() - 16) / self.tag_bytes()
    }

    fn revokes_per_block(&self) -> usize {
        (self.bs - 16 - self.tail_bytes()) / if self.wide { 8 } else { 4 }
    }

    /// Most blocks of metadata one transaction should carry (Linux: a
    /// quarter of the log); more starts a commit after the operation.
    pub(crate) fn max_transaction(&self) -> usize {
        (self.capacity() / 4).max(8) as usize
    }

    fn header(&self, kind: u32, sequence: u32) -> Vec<u8> {
        let mut b = vec![0u8; self.bs];
        put_be32(&mut b, 0, JBD2_MAGIC);
        put_be32(&mut b, 4, kind);
        put_be32(&mut b, 8, sequence);
        b
    }

    fn seal_tail(&self, b: &mut [u8]) {
        if let Some(seed) = self.csum_seed {
            let n = b.len();
            put_be32(b, n - 4, 0);
            let c = crc32c(seed, b);
            put_be32(b, n - 4, c);
        }
    }

    fn seal_jsb(&mut self) {
        if self.csum_seed.is_some() && be32(&self.jsb, 4) == SUPERBLOCK_V2 {
            put_be32(&mut self.jsb, 0xfc, 0);
            let c = crc32c(!0, &self.jsb[..1024]);
            put_be32(&mut self.jsb, 0xfc, c);
        }
    }
}

impl State {
    fn jwrite(&self, j: &Journal, lblk: u32, data: &[u8]) -> Result<()> {
        let per = (j.bs / self.dev.sector_size()) as u64;
        self.dev.write_sectors(u64::from(j.map[lblk as usize]) * per, data)
    }

    /// Writes the journal superblock with `start` and `sequence`.
    fn write_jsb(&self, j: &mut Journal, start: u32, sequence: u32) -> Result<()> {
        put_be32(&mut j.jsb, 0x18, sequence);
        put_be32(&mut j.jsb, 0x1c, start);
        j.seal_jsb();
        let jsb = j.jsb.clone();
        self.jwrite(j, 0, &jsb)
    }

    /// Opens the journal of a read-write ext4 mount: checks its
    /// superblock, marks the log live (`s_start` at its first block, as
    /// jbd2 does at load) and sets `needs_recovery` in the superblock.
    /// Returns why journaling is impossible when it is.
    pub fn start_journal(&mut self) -> core::result::Result<(), String> {
        if le32(&self.superblock, sb::FEATURE_COMPAT) & COMPAT_HAS_JOURNAL == 0 {
            return Ok(());
        }
        let jino = le32(&self.superblock, sb::JOURNAL_INUM);
        if jino == 0 || jino > self.geo.inodes_count {
            return Err(String::from("an external journal is not supported"));
        }
        let bad = |e: Errno| format!("cannot read the journal ({})", e.name());
        let mut inode = self.read_inode(jino).map_err(bad)?;
        let bs = self.geo.block_size;
        let nblocks = inode.size() / bs as u64;
        if !(2..=MAX_JOURNAL_BLOCKS).contains(&nblocks) {
            return Err(String::from("bad journal size"));
        }
        let mut map = Vec::with_capacity(nblocks as usize);
        for lblk in 0..nblocks {
            let b = self.bmap(&mut inode, jino, lblk, false).map_err(bad)?;
            if b == 0 || b >= self.geo.blocks_count {
                return Err(String::from("the journal has holes"));
            }
            map.push(b);
        }
        let per = (bs / self.dev.sector_size()) as u64;
        let mut jsb = vec![0u8; bs];
        self.dev.read_sectors(u64::from(map[0]) * per, &mut jsb).map_err(bad)?;
        let kind = be32(&jsb, 4);
        if be32(&jsb, 0) != JBD2_MAGIC || !(kind == SUPERBLOCK_V1 || kind == SUPERBLOCK_V2) {
            return Err(String::from("no journal superblock"));
        }
        let (maxlen, first, sequence) = (be32(&jsb, 0x10), be32(&jsb, 0x14), be32(&jsb, 0x18));
        if be32(&jsb, 0x0c) as usize != bs || u64::from(maxlen) > nblocks || first == 0 || maxlen < first + 16 {
            return Err(String::from("bad journal superblock"));
        }
        if kind != SUPERBLOCK_V2 {
            return Err(String::from("a version 1 journal superblock is not supported"));
        }
        let (compat, mut incompat) = (be32(&jsb, 0x24), be32(&jsb, 0x28));
        if incompat & !INCOMPAT_KNOWN != 0 || incompat & INCOMPAT_ASYNC_COMMIT != 0 {
            return Err(format!("unsupported journal features {:#x}", incompat));
        }
        if compat & COMPAT_CHECKSUM != 0 && incompat & (INCOMPAT_CSUM_V2 | INCOMPAT_CSUM_V3) == 0 {
            return Err(String::from("journal checksum v1 is not supported"));
        }
        // Revoke records are written: the feature says so, as jbd2 sets it
        // at its first revocation.
        incompat |= INCOMPAT_REVOKE;
        put_be32(&mut jsb, 0x28, incompat);
        let mut uuid = [0u8; 16];
        uuid.copy_from_slice(&jsb[0x30..0x40]);
        let csum = incompat & (INCOMPAT_CSUM_V2 | INCOMPAT_CSUM_V3) != 0;
        let sb_home = SUPERBLOCK_OFFSET / bs as u64;
        let mut sb_block = vec![0u8; bs];
        self.dev.read_sectors(sb_home * per, &mut sb_block).map_err(bad)?;
        let mut j = Journal {
            map,
            bs,
            first,
            maxlen,
            csum_seed: csum.then(|| crc32c(!0, &uuid)),
            v3: incompat & INCOMPAT_CSUM_V3 != 0,
            wide: incompat & JBD2_INCOMPAT_64BIT != 0,
            uuid,
            jsb,
            head: first,
            tail: first,
            // One past what the log may hold from before (a transaction
            // begun and never committed has the number after the last).
            sequence: sequence.wrapping_add(1),
            live: BTreeSet::new(),
            revokes: BTreeSet::new(),
            ordered: BTreeSet::new(),
            freed: BTreeSet::new(),
            sb_block,
            committed: 0,
        };
        let failed = |e: Errno| format!("cannot write the journal ({})", e.name());
        let seq = j.sequence;
        self.write_jsb(&mut j, first, seq).map_err(failed)?;
        self.dev.flush().map_err(failed)?;
        // needs_recovery goes to the disk directly, before any
        // transaction, as ext4 writes it at mount.
        let incompat_fs = le32(&self.superblock, sb::FEATURE_INCOMPAT);
        put32(&mut self.superblock, sb::FEATURE_INCOMPAT, incompat_fs | INCOMPAT_RECOVER);
        self.write_superblock_now().map_err(failed)?;
        self.journal = Some(j);
        Ok(())
    }

    /// Writes the superblock in place at once (not through the journal).
    fn write_superblock_now(&mut self) -> Result<()> {
        let wtime = self.now.max(le32(&self.superblock, sb::WTIME));
        put32(&mut self.superblock, sb::WTIME, wtime);
        if self.geo.csum_seed.is_some() {
            let c = crate::csum::superblock(&self.superblock);
            put32(&mut self.superblock, sb::CHECKSUM, c);
        }
        let sector = self.dev.sector_size() as u64;
        self.dev.write_sectors(SUPERBLOCK_OFFSET / sector, &self.superblock)?;
        self.dev.flush()?;
        self.sb_dirty = false;
        Ok(())
    }

    /// Closes the journal at unmount (after the last commit): the
    /// checkpointed blocks are made durable, the log marked empty and
    /// `needs_recovery` cleared.
    pub fn stop_journal(&mut self) -> Result<()> {
        let Some(mut j) = self.journal.take() else { return Ok(()) };
        let result = (|| {
            self.dev.flush()?;
            let seq = j.sequence;
            self.write_jsb(&mut j, 0, seq)?;
            self.dev.flush()?;
            let incompat = le32(&self.superblock, sb::FEATURE_INCOMPAT);
            put32(&mut self.superblock, sb::FEATURE_INCOMPAT, incompat & !INCOMPAT_RECOVER);
            self.write_superblock_now()
        })();
        if result.is_err() {
            self.journal = Some(j);
        }
        result
    }

    /// Tells whether changes go through a journal.
    pub fn journaling(&self) -> bool {
        self.journal.is_some()
    }

    /// Transactions committed since mount.
    pub fn transactions(&self) -> u64 {
        self.journal.as_ref().map_or(0, |j| j.committed)
    }

    /// Records that `ino` got new data blocks: its data is written before
    /// the next commit.
    pub(crate) fn journal_ordered(&mut self, ino: u32) {
        if let Some(j) = &mut self.journal {
            j.ordered.insert(ino);
        }
    }

    /// Records that block `b` was freed: if the log holds a copy of it,
    /// the next transaction revokes it (it may hold file data next).
    pub(crate) fn journal_freed(&mut self, b: u32) {
        if let Some(j) = &mut self.journal {
            if j.live.contains(&b) {
                j.revokes.insert(b);
            }
            j.freed.insert(b);
        }
    }

    /// Tells whether the running transaction has grown as large as one
    /// should.
    pub(crate) fn journal_full(&self) -> bool {
        self.journal.as_ref().is_some_and(|j| self.dirty_blocks + self.gdt_dirty.len() + 1 > j.max_transaction())
    }

    /// [`State::commit`] with a journal: ordered data, the log, the
    /// checkpoint.
    pub(crate) fn commit_journaled(&mut self) -> Result<()> {
        // 1. The data of files that got blocks, before the metadata
        //    pointing at them.
        let ordered: Vec<u32> = self.journal.as_mut().map(|j| core::mem::take(&mut j.ordered).into_iter().collect()).unwrap_or_default();
        for (i, &ino) in ordered.iter().enumerate() {
            if let Err(e) = self.write_back(Some(ino), None) {
                // Nothing is committed: they stay ordered for the next try.
                if let Some(j) = &mut self.journal {
                    j.ordered.extend(&ordered[i..]);
                }
                return Err(e);
            }
        }
        self.seal_checksums()?;
        // 2. The transaction's blocks, as they go in place.
        let bs = self.geo.block_size;
        let mut blocks: Vec<(u32, Vec<u8>)> = self.cache.iter().filter(|(_, c)| c.dirty).map(|(&b, c)| (b, c.data.clone())).collect();
        for &index in &self.gdt_dirty {
            let bytes = &self.gdt_raw[index as usize * bs..(index as usize + 1) * bs];
            blocks.push((self.geo.gdt_block + index, bytes.to_vec()));
        }
        let sb_home = (SUPERBLOCK_OFFSET / bs as u64) as u32;
        if self.sb_dirty {
            let wtime = self.now.max(le32(&self.superblock, sb::WTIME));
            put32(&mut self.superblock, sb::WTIME, wtime);
            if self.geo.csum_seed.is_some() {
                let c = crate::csum::superblock(&self.superblock);
                put32(&mut self.superblock, sb::CHECKSUM, c);
            }
            let j = self.journal.as_mut().expect("journaling");
            let at = (SUPERBLOCK_OFFSET as usize) % bs;
            j.sb_block[at..at + SUPERBLOCK_SIZE].copy_from_slice(&self.superblock);
            blocks.push((sb_home, j.sb_block.clone()));
        }
        let revokes: Vec<u32> = {
            let j = self.journal.as_mut().expect("journaling");
            let logged: BTreeSet<u32> = blocks.iter().map(|&(b, _)| b).collect();
            // A block logged again needs no revocation (jbd2 cancels it).
            j.revokes.retain(|b| !logged.contains(b));
            j.revokes.iter().copied().collect()
        };
        if blocks.is_empty() && revokes.is_empty() {
            self.trim_cache();
            return Ok(());
        }
        let mut j = self.journal.take().expect("journaling");
        let logged = self.log_transactions(&mut j, &blocks, &revokes);
        if logged.is_ok() {
            j.revokes.clear();
            // The frees are committed: the blocks may be used again.
            j.freed.clear();
        }
        self.journal = Some(j);
        logged?;
        // 3. The checkpoint: the blocks in place.
        let per = (bs / self.dev.sector_size()) as u64;
        let mut result = Ok(());
        for (b, data) in &blocks {
            if let Err(e) = self.dev.write_sectors(u64::from(*b) * per, data) {
                result = Err(e);
            }
        }
        result?;
        for block in self.cache.values_mut() {
            block.dirty = false;
        }
        self.dirty_blocks = 0;
        self.gdt_dirty.clear();
        self.sb_dirty = false;
        self.trim_cache();
        self.discard_committed();
        Ok(())
    }

    /// Writes `blocks` and `revokes` to the log as one transaction (or as
    /// several, when they would not fit in the log at once), each
    /// committed and flushed.
    fn log_transactions(&mut self, j: &mut Journal, blocks: &[(u32, Vec<u8>)], revokes: &[u32]) -> Result<()> {
        let per_desc = j.tags_per_descriptor();
        let per_revoke = j.revokes_per_block();
        // What one transaction may carry: the whole log but a margin.
        let room = j.capacity() as usize - 2;
        let revoke_blocks = revokes.len().div_ceil(per_revoke);
        if revoke_blocks + 3 > room {
            return Err(Errno::ENOSPC);
        }
        let mut rest = blocks;
        let mut first = true;
        loop {
            let revoke_here = if first { revoke_blocks } else { 0 };
            // The most data blocks that fit with their descriptors.
            let mut n = rest.len();
            while n > 0 && revoke_here + n + n.div_ceil(per_desc) + 1 > room {
                n -= 1;
            }
            let (now, later) = rest.split_at(n);
            self.log_one(j, now, if first { revokes } else { &[] })?;
            first = false;
            rest = later;
            if rest.is_empty() {
                return Ok(());
            }
        }
    }

    fn log_one(&mut self, j: &mut Journal, blocks: &[(u32, Vec<u8>)], revokes: &[u32]) -> Result<()> {
        let per_desc = j.tags_per_descriptor();
        let per_revoke = j.revokes_per_block();
        let needed = (revokes.len().div_ceil(per_revoke) + blocks.len() + blocks.len().div_ceil(per_desc) + 1) as u32;
        // 4. Room: when the transaction does not fit after the head, what
        //    the log holds is checkpointed already; make that durable and
        //    empty the log.
        if j.used() + needed + 1 > j.capacity() {
            self.dev.flush()?;
            j.tail = j.head;
            j.live.clear();
            let (head, seq) = (j.head, j.sequence);
            self.write_jsb(j, head, seq)?;
            self.dev.flush()?;
        }
        let seq = j.sequence;
        let mut at = j.head;
        // Revoke records first, as jbd2 writes them.
        for chunk in revokes.chunks(per_revoke) {
            let mut b = j.header(REVOKE, seq);
            let size = if j.wide { 8 } else { 4 };
            let mut off = 16;
            for &home in chunk {
                if j.wide {
                    put_be32(&mut b, off, 0);
                    put_be32(&mut b, off + 4, home);
                } else {
                    put_be32(&mut b, off, home);
                }
                off += size;
            }
            put_be32(&mut b, 12, off as u32);
            j.seal_tail(&mut b);
            self.jwrite(j, at, &b)?;
            at = j.next(at);
        }
        for chunk in blocks.chunks(per_desc) {
            let mut desc = j.header(DESCRIPTOR, seq);
            let desc_at = at;
            at = j.next(at);
            let mut off = 12;
            for (i, (home, data)) in chunk.iter().enumerate() {
                let mut flags = 0u32;
                let escaped;
                let bytes: &[u8] = if be32(data, 0) == JBD2_MAGIC {
                    let mut copy = data.clone();
                    put_be32(&mut copy, 0, 0);
                    flags |= TAG_ESCAPE;
                    escaped = copy;
                    &escaped
                } else {
                    data
                };
                if i > 0 {
                    flags |= TAG_SAME_UUID;
                }
                if i + 1 == chunk.len() {
                    flags |= TAG_LAST;
                }
                let checksum = j.csum_seed.map(|seed| crc32c(crc32c(seed, &seq.to_be_bytes()), bytes));
                put_be32(&mut desc, off, *home);
                if j.v3 {
                    put_be32(&mut desc, off + 4, flags);
                    put_be32(&mut desc, off + 8, 0);
                    put_be32(&mut desc, off + 12, checksum.unwrap_or(0));
                } else {
                    desc[off + 4..off + 6].copy_from_slice(&(checksum.unwrap_or(0) as u16).to_be_bytes());
                    desc[off + 6..off + 8].copy_from_slice(&(flags as u16).to_be_bytes());
                    if j.wide {
                        put_be32(&mut desc, off + 8, 0);
                    }
                }
                off += j.tag_bytes();
                if i == 0 {
                    desc[off..off + 16].copy_from_slice(&j.uuid);
                    off += 16;
                }
                self.jwrite(j, at, bytes)?;
                at = j.next(at);
            }
            j.seal_tail(&mut desc);
            self.jwrite(j, desc_at, &desc)?;
        }
        // Everything before the commit block is on the disk first.
        self.dev.flush()?;
        let mut commit = j.header(COMMIT, seq);
        commit[48..56].copy_from_slice(&u64::from(self.now).to_be_bytes());
        put_be32(&mut commit, 56, self.now_nsec);
        if let Some(seed) = j.csum_seed {
            let c = crc32c(seed, &commit);
            put_be32(&mut commit, 16, c);
        }
        self.jwrite(j, at, &commit)?;
        self.dev.flush()?;
        j.head = j.next(at);
        j.sequence = seq.wrapping_add(1);
        j.live.extend(blocks.iter().map(|&(b, _)| b));
        j.committed += 1;
        Ok(())
    }
}
