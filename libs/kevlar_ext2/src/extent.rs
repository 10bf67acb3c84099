//! ext4 extent trees: a file's blocks as runs (logical start, length,
//! physical start) in a B-tree whose root is the inode's `i_block` (four
//! entries after a 12-byte header) and whose other nodes are blocks
//! (`(block size - 12) / 12` entries, then the block's checksum).
//!
//! Lookups walk the tree. A new block usually extends the run before it
//! in place (the allocator is asked for the block right after it); a new
//! run goes into its leaf when there is room; anything else (a full leaf,
//! a run before a leaf's first, truncation) collects the runs, changes the
//! list and lays the tree out again, reusing its blocks. Unwritten runs
//! (fallocate) read as zeros; writing into one first zeroes its blocks on
//! the disk and marks it written.

use alloc::vec;
use alloc::vec::Vec;

use kevlar_vfs::{Errno, Result};

use crate::layout::*;
use crate::state::{MetaKind, State};

/// The header's magic number.
pub const EXTENT_MAGIC: u16 = 0xf30a;
/// Entries in the inode's root node.
const ROOT_ENTRIES: usize = 4;
/// Longest written run.
const MAX_LEN: u32 = 32768;
/// Free blocks a new run of a growing file looks for room for.
const NEW_RUN_BLOCKS: u32 = 256;
/// Deepest tree accepted (Linux's limit is 5).
const MAX_DEPTH: u16 = 5;

/// One run of blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Extent {
    /// First logical block.
    pub lblk: u32,
    /// Blocks in the run.
    pub len: u32,
    /// First physical block.
    pub pblk: u32,
    /// Allocated but never written: reads as zeros.
    pub unwritten: bool,
}

impl Extent {
    /// The logical block after the run.
    pub fn end(&self) -> u64 {
        u64::from(self.lblk) + u64::from(self.len)
    }
}

struct Header {
    entries: usize,
    max: usize,
    depth: u16,
}

fn header(node: &[u8]) -> Result<Header> {
    if le16(node, 0) != EXTENT_MAGIC {
        return Err(Errno::EUCLEAN);
    }
    let h = Header { entries: usize::from(le16(node, 2)), max: usize::from(le16(node, 4)), depth: le16(node, 6) };
    if h.entries > h.max || 12 + 12 * h.max > node.len() || h.depth > MAX_DEPTH {
        return Err(Errno::EUCLEAN);
    }
    Ok(h)
}

fn write_header(node: &mut [u8], entries: usize, max: usize, depth: u16) {
    put16(node, 0, EXTENT_MAGIC);
    put16(node, 2, entries as u16);
    put16(node, 4, max as u16);
    put16(node, 6, depth);
    put32(node, 8, 0);
}

fn leaf_entry(node: &[u8], i: usize) -> Result<Extent> {
    let off = 12 + 12 * i;
    let raw_len = u32::from(le16(node, off + 4));
    if le16(node, off + 6) != 0 {
        return Err(Errno::EUCLEAN); // a block past 2^32: not handled
    }
    let (len, unwritten) = if raw_len > MAX_LEN { (raw_len - MAX_LEN, true) } else { (raw_len, false) };
    Ok(Extent { lblk: le32(node, off), len, pblk: le32(node, off + 8), unwritten })
}

fn put_leaf_entry(node: &mut [u8], i: usize, e: &Extent) {
    let off = 12 + 12 * i;
    put32(node, off, e.lblk);
    put16(node, off + 4, (if e.unwritten { e.len + MAX_LEN } else { e.len }) as u16);
    put16(node, off + 6, 0);
    put32(node, off + 8, e.pblk);
}

fn index_entry(node: &[u8], i: usize) -> Result<(u32, u32)> {
    let off = 12 + 12 * i;
    if le16(node, off + 8) != 0 {
        return Err(Errno::EUCLEAN);
    }
    Ok((le32(node, off), le32(node, off + 4)))
}

/// The last entry of a node whose first logical block is at most `lblk`
/// (entries are sorted by it), or `None`.
fn last_at_or_before(node: &[u8], h: Header, lblk: u32) -> Option<usize> {
    // Entries below `lo` start at or before lblk; from `hi` on, after.
    let (mut lo, mut hi) = (0, h.entries);
    while lo < hi {
        let mid = (lo + hi) / 2;
        if le32(node, 12 + 12 * mid) <= lblk {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo.checked_sub(1)
}

/// The run of leaf `node` holding `lblk`, if any.
fn run_in_leaf(node: &[u8], h: Header, lblk: u32) -> Result<Option<Extent>> {
    match last_at_or_before(node, h, lblk) {
        Some(i) => {
            let e = leaf_entry(node, i)?;
            Ok((u64::from(lblk) < e.end()).then_some(e))
        }
        None => Ok(None),
    }
}

/// The child of index node `node` to follow for `lblk` (the first when
/// `lblk` is before them all).
fn child_for(node: &[u8], h: Header, lblk: u32) -> Result<u32> {
    if h.entries == 0 {
        return Err(Errno::EUCLEAN);
    }
    Ok(index_entry(node, last_at_or_before(node, h, lblk).unwrap_or(0))?.1)
}

fn put_index_entry(node: &mut [u8], i: usize, lblk: u32, child: u32) {
    let off = 12 + 12 * i;
    put32(node, off, lblk);
    put32(node, off + 4, child);
    put32(node, off + 8, 0);
}

/// Longest run of each kind: written runs up to 32768 blocks, unwritten
/// ones up to 32767 (the length's top value marks them).
pub fn max_len(unwritten: bool) -> u32 {
    if unwritten { MAX_LEN - 1 } else { MAX_LEN }
}

/// Joins neighbouring runs that continue each other (logically and on the
/// disk, of the same kind) while they fit one entry, as ext4 merges.
pub fn merge_extents(all: &mut Vec<Extent>) {
    let mut out: Vec<Extent> = Vec::with_capacity(all.len());
    for e in all.drain(..) {
        if let Some(last) = out.last_mut() {
            if last.unwritten == e.unwritten
                && last.end() == u64::from(e.lblk)
                && last.pblk.checked_add(last.len) == Some(e.pblk)
                && last.len + e.len <= max_len(e.unwritten)
            {
                last.len += e.len;
                continue;
            }
        }
        out.push(e);
    }
    *all = out;
}

/// Where a leaf lives: in the inode, or in a block.
#[derive(Clone, Copy, PartialEq, Eq)]
enum LeafAt {
    Inode,
    Block(u32),
}

/// Sets up an empty tree in a new inode's `i_block`.
pub fn init_root(inode: &mut DiskInode) {
    let root = inode.block_bytes_mut();
    root.fill(0);
    write_header(root, 0, ROOT_ENTRIES, 0);
}

impl State {
    /// Returns a tree block's bytes, its checksum checked the first time
    /// it is read.
    fn extent_node(&mut self, ino: u32, generation: u32, b: u32) -> Result<Vec<u8>> {
        if b < self.geo.first_data_block || b >= self.geo.blocks_count {
            return Err(Errno::EUCLEAN);
        }
        self.checked_meta_block(b, MetaKind::Extent, ino, generation)
    }

    /// Finds the leaf that holds (or would hold) logical block `lblk`:
    /// the leaf's place, its bytes and whether it is the leftmost leaf.
    fn find_leaf(&mut self, inode: &DiskInode, ino: u32, lblk: u32) -> Result<(LeafAt, Vec<u8>, bool)> {
        let generation = inode.get(ino::GENERATION);
        let mut node = inode.block_bytes().to_vec();
        let mut at = LeafAt::Inode;
        let mut leftmost = true;
        let mut depth = header(&node)?.depth;
        loop {
            let h = header(&node)?;
            if h.depth != depth {
                return Err(Errno::EUCLEAN);
            }
            if h.depth == 0 {
                return Ok((at, node, leftmost));
            }
            if h.entries == 0 {
                return Err(Errno::EUCLEAN);
            }
            let mut pick = 0;
            for i in 0..h.entries {
                if index_entry(&node, i)?.0 <= lblk {
                    pick = i;
                } else {
                    break;
                }
            }
            leftmost &= pick == 0;
            let child = index_entry(&node, pick)?.1;
            node = self.extent_node(ino, generation, child)?;
            at = LeafAt::Block(child);
            depth -= 1;
        }
    }

    /// Returns the run holding logical block `lblk`, if any.
    /// Walks the tree in place (the nodes are looked at in the block
    /// cache, not copied), with a binary search in each node: what every
    /// read, write and fault of a mapped page asks.
    pub fn extent_of(&mut self, inode: &DiskInode, ino: u32, lblk: u64) -> Result<Option<Extent>> {
        let Ok(lblk) = u32::try_from(lblk) else { return Ok(None) };
        let generation = inode.get(ino::GENERATION);
        let root = inode.block_bytes();
        let h = header(root)?;
        let mut depth = h.depth;
        if depth == 0 {
            return run_in_leaf(root, h, lblk);
        }
        let mut child = child_for(root, h, lblk)?;
        loop {
            if child < self.geo.first_data_block || child >= self.geo.blocks_count {
                return Err(Errno::EUCLEAN);
            }
            let node = self.checked_meta_block_ref(child, MetaKind::Extent, ino, generation)?;
            let h = header(node)?;
            depth -= 1;
            if h.depth != depth {
                return Err(Errno::EUCLEAN);
            }
            if depth == 0 {
                return run_in_leaf(node, h, lblk);
            }
            child = child_for(node, h, lblk)?;
        }
    }

    /// Maps logical block `lblk` through the extent tree: 0 for a hole or
    /// an unwritten run; with `alloc`, a hole gets a block (counted in
    /// `i_blocks`) and an unwritten run is zeroed and marked written. The
    /// caller writes the inode back.
    pub fn extent_bmap(&mut self, inode: &mut DiskInode, ino: u32, lblk: u64, alloc: bool) -> Result<u32> {
        let max_lblk = u64::from(u32::MAX);
        if lblk >= max_lblk {
            return Err(Errno::EFBIG);
        }
        let found = self.extent_of(inode, ino, lblk)?;
        if let Some(e) = found {
            let b = e.pblk.checked_add((lblk - u64::from(e.lblk)) as u32).filter(|&b| b < self.geo.blocks_count).ok_or(Errno::EUCLEAN)?;
            if !e.unwritten {
                return Ok(b);
            }
            if !alloc {
                return Ok(0);
            }
            self.write_unwritten(inode, ino, e, lblk)?;
            return Ok(b);
        }
        if !alloc {
            return Ok(0);
        }
        self.extent_alloc(inode, ino, lblk as u32)
    }

    /// Writing into an unwritten run: block `lblk` becomes written, with
    /// ext4's rules (ext4_ext_convert_to_initialized, the default
    /// `extent_max_zeroout_kb` of 32): a block at either end of the run
    /// joins a written neighbour it continues; a run of at most 32 KiB is
    /// zeroed and written whole; else a short tail (at most 32 KiB) and a
    /// short head are zeroed with it, and the run splits around what was
    /// converted. The zeroed blocks are zeroed on the disk first.
    fn write_unwritten(&mut self, inode: &mut DiskInode, ino: u32, e: Extent, lblk: u64) -> Result<()> {
        if u64::from(e.pblk) + u64::from(e.len) > u64::from(self.geo.blocks_count) {
            return Err(Errno::EUCLEAN);
        }
        let lblk = lblk as u32;
        let end = e.lblk + e.len;
        let bs = self.geo.block_size;
        let max_zeroout = (32 * 1024 / bs) as u32;
        let mut all = self.collect_extents(inode, ino)?;
        let at = all.iter().position(|x| x.lblk == e.lblk).ok_or(Errno::EUCLEAN)?;
        let continues = |a: &Extent, b: &Extent| !a.unwritten && a.end() == u64::from(b.lblk) && a.pblk.checked_add(a.len) == Some(b.pblk);
        let joins_prev = lblk == e.lblk && e.len > 1 && at > 0 && continues(&all[at - 1], &e) && all[at - 1].len < MAX_LEN;
        let joins_next = lblk + 1 == end && e.len > 1 && all.get(at + 1).is_some_and(|n| {
            n.len < MAX_LEN && u64::from(n.lblk) == u64::from(end) && e.pblk.checked_add(e.len) == Some(n.pblk) && !n.unwritten
        });
        let (from, to) = if joins_prev || joins_next {
            (lblk, lblk + 1)
        } else if e.len <= max_zeroout {
            (e.lblk, end)
        } else {
            let (mut from, mut to) = (lblk, lblk + 1);
            let allocated = end - lblk;
            if allocated > 1 {
                if allocated <= max_zeroout {
                    to = end;
                }
                if (from - e.lblk) + (to - from) < max_zeroout {
                    from = e.lblk;
                }
            }
            (from, to)
        };
        let per = (bs / self.dev.sector_size()) as u64;
        let zeros = vec![0u8; bs * 16];
        let mut k = from;
        while k < to {
            let n = (to - k).min(16);
            self.dev.write_sectors(u64::from(e.pblk + (k - e.lblk)) * per, &zeros[..n as usize * bs])?;
            k += n;
        }
        let mut pieces = Vec::with_capacity(3);
        if from > e.lblk {
            pieces.push(Extent { lblk: e.lblk, len: from - e.lblk, pblk: e.pblk, unwritten: true });
        }
        pieces.push(Extent { lblk: from, len: to - from, pblk: e.pblk + (from - e.lblk), unwritten: false });
        if to < end {
            pieces.push(Extent { lblk: to, len: end - to, pblk: e.pblk + (to - e.lblk), unwritten: true });
        }
        all.splice(at..=at, pieces);
        merge_extents(&mut all);
        self.rebuild_tree(inode, ino, &all)
    }

    /// Allocates a block for the hole at `lblk` and records it.
    fn extent_alloc(&mut self, inode: &mut DiskInode, ino: u32, lblk: u32) -> Result<u32> {
        let (at, mut leaf, leftmost) = self.find_leaf(inode, ino, lblk)?;
        let h = header(&leaf)?;
        // The run before lblk in this leaf, if any.
        let mut pos = h.entries;
        for i in 0..h.entries {
            if leaf_entry(&leaf, i)?.lblk > lblk {
                pos = i;
                break;
            }
        }
        let prev = if pos > 0 { Some(leaf_entry(&leaf, pos - 1)?) } else { None };
        let goal = match prev {
            Some(p) => p.pblk.wrapping_add(p.len).wrapping_add(lblk.saturating_sub(p.lblk.saturating_add(p.len))),
            None => self.geo.first_data_block + self.group_of(ino) * self.geo.blocks_per_group,
        };
        // A run that cannot go on where it is starts where there is room
        // for it to grow (as mballoc looks for free extents), not in the
        // next small gap.
        let goal = if self.block_is_free(goal) { goal } else { self.find_free_run(goal, NEW_RUN_BLOCKS).unwrap_or(goal) };
        let b = self.alloc_block_near(goal)?;
        self.forget_block(b);
        let sectors = (self.geo.block_size / 512) as u64;
        self.add_iblocks(inode, sectors as i64);
        let new = Extent { lblk, len: 1, pblk: b, unwritten: false };
        // Extend the run before it in place.
        if let Some(mut p) = prev {
            if !p.unwritten && p.end() == u64::from(lblk) && p.len < MAX_LEN && p.pblk.wrapping_add(p.len) == b {
                p.len += 1;
                put_leaf_entry(&mut leaf, pos - 1, &p);
                self.store_leaf(inode, ino, at, &leaf)?;
                return Ok(b);
            }
        }
        // A new entry in the leaf, when there is room and the leaf's
        // first key (which its parents repeat) stays.
        if h.entries < h.max && (pos > 0 || leftmost || at == LeafAt::Inode) {
            let start = 12 + 12 * pos;
            let end = 12 + 12 * h.entries;
            leaf.copy_within(start..end, start + 12);
            put_leaf_entry(&mut leaf, pos, &new);
            put16(&mut leaf, 2, (h.entries + 1) as u16);
            self.store_leaf(inode, ino, at, &leaf)?;
            if pos == 0 && at != LeafAt::Inode {
                // The leftmost leaf's new first key: the parents' first
                // keys follow it down the left edge.
                let mut all = self.collect_extents(inode, ino)?;
                all.sort_by_key(|e| e.lblk);
                return self.rebuild_tree(inode, ino, &all).map(|()| b);
            }
            return Ok(b);
        }
        let mut all = self.collect_extents(inode, ino)?;
        let at_pos = all.partition_point(|e| e.lblk < lblk);
        all.insert(at_pos, new);
        self.rebuild_tree(inode, ino, &all)?;
        Ok(b)
    }

    /// Writes a changed leaf back where it lives.
    fn store_leaf(&mut self, inode: &mut DiskInode, ino: u32, at: LeafAt, leaf: &[u8]) -> Result<()> {
        match at {
            LeafAt::Inode => {
                inode.block_bytes_mut().copy_from_slice(&leaf[..I_BLOCK_BYTES]);
                Ok(())
            }
            LeafAt::Block(b) => {
                let block = self.meta_block_mut(b, MetaKind::Extent, ino)?;
                block.copy_from_slice(leaf);
                Ok(())
            }
        }
    }

    /// Returns every run of the file, in order, checking the tree's shape
    /// (keys in order, children's first keys equal to their index keys).
    pub fn collect_extents(&mut self, inode: &DiskInode, ino: u32) -> Result<Vec<Extent>> {
        let mut out = Vec::new();
        let mut blocks = Vec::new();
        let root = inode.block_bytes().to_vec();
        self.walk(inode.get(ino::GENERATION), ino, &root, None, &mut out, &mut blocks)?;
        for w in out.windows(2) {
            if w[0].end() > u64::from(w[1].lblk) {
                return Err(Errno::EUCLEAN);
            }
        }
        Ok(out)
    }

    /// Returns the tree's own blocks (not the file's data).
    fn tree_blocks(&mut self, inode: &DiskInode, ino: u32) -> Result<Vec<u32>> {
        let mut out = Vec::new();
        let mut blocks = Vec::new();
        let root = inode.block_bytes().to_vec();
        self.walk(inode.get(ino::GENERATION), ino, &root, None, &mut out, &mut blocks)?;
        Ok(blocks)
    }

    fn walk(&mut self, generation: u32, ino: u32, node: &[u8], depth_expected: Option<u16>, out: &mut Vec<Extent>, blocks: &mut Vec<u32>) -> Result<()> {
        let h = header(node)?;
        if depth_expected.is_some_and(|d| d != h.depth) {
            return Err(Errno::EUCLEAN);
        }
        if h.depth == 0 {
            for i in 0..h.entries {
                let e = leaf_entry(node, i)?;
                if e.len == 0 {
                    return Err(Errno::EUCLEAN);
                }
                out.push(e);
            }
            return Ok(());
        }
        for i in 0..h.entries {
            let (_, child) = index_entry(node, i)?;
            if blocks.len() > 1 << 20 {
                return Err(Errno::EUCLEAN);
            }
            blocks.push(child);
            let data = self.extent_node(ino, generation, child)?;
            self.walk(generation, ino, &data, Some(h.depth - 1), out, blocks)?;
        }
        Ok(())
    }

    /// Lays the tree out again for `extents` (sorted, not overlapping):
    /// in the inode when four or fewer, else in full leaves under as few
    /// index levels as needed. The old tree blocks are reused first, the
    /// rest allocated or freed, with `i_blocks` kept right.
    pub fn rebuild_tree(&mut self, inode: &mut DiskInode, ino: u32, extents: &[Extent]) -> Result<()> {
        let mut pool = self.tree_blocks(inode, ino)?;
        pool.reverse();
        let bs = self.geo.block_size;
        let cap = (bs - 12) / 12;
        let sectors = (bs / 512) as i64;
        let goal = extents.first().map_or(self.geo.first_data_block + self.group_of(ino) * self.geo.blocks_per_group, |e| e.pblk);
        // Level 0: the leaves (key, block); then index levels until the
        // root's four entries suffice.
        let mut level: Vec<(u32, u32)> = Vec::new();
        let mut depth = 0u16;
        if extents.len() > ROOT_ENTRIES {
            for chunk in extents.chunks(cap) {
                let b = match pool.pop() {
                    Some(b) => b,
                    None => {
                        let b = self.alloc_block_near(goal)?;
                        self.add_iblocks(inode, sectors);
                        b
                    }
                };
                let mut node = vec![0u8; bs];
                write_header(&mut node, chunk.len(), cap, 0);
                for (i, e) in chunk.iter().enumerate() {
                    put_leaf_entry(&mut node, i, e);
                }
                self.meta_block_mut(b, MetaKind::Extent, ino)?.copy_from_slice(&node);
                level.push((chunk[0].lblk, b));
            }
            depth = 1;
            while level.len() > ROOT_ENTRIES {
                let mut up = Vec::new();
                for chunk in level.chunks(cap) {
                    let b = match pool.pop() {
                        Some(b) => b,
                        None => {
                            let b = self.alloc_block_near(goal)?;
                            self.add_iblocks(inode, sectors);
                            b
                        }
                    };
                    let mut node = vec![0u8; bs];
                    write_header(&mut node, chunk.len(), cap, depth);
                    for (i, &(key, child)) in chunk.iter().enumerate() {
                        put_index_entry(&mut node, i, key, child);
                    }
                    self.meta_block_mut(b, MetaKind::Extent, ino)?.copy_from_slice(&node);
                    up.push((chunk[0].0, b));
                }
                level = up;
                depth += 1;
            }
        }
        let root = inode.block_bytes_mut();
        root.fill(0);
        if depth == 0 {
            write_header(root, extents.len(), ROOT_ENTRIES, 0);
            for (i, e) in extents.iter().enumerate() {
                put_leaf_entry(root, i, e);
            }
        } else {
            write_header(root, level.len(), ROOT_ENTRIES, depth);
            for (i, &(key, child)) in level.iter().enumerate() {
                put_index_entry(root, i, key, child);
            }
        }
        for b in pool {
            self.free_block(b)?;
            self.add_iblocks(inode, -sectors);
        }
        Ok(())
    }

    /// Frees every block of the file from logical block `keep` on.
    pub fn extent_free_from(&mut self, inode: &mut DiskInode, ino: u32, keep: u64) -> Result<()> {
        let all = self.collect_extents(inode, ino)?;
        let sectors = (self.geo.block_size / 512) as i64;
        let mut kept = Vec::with_capacity(all.len());
        let mut changed = false;
        for mut e in all {
            if e.end() <= keep {
                kept.push(e);
                continue;
            }
            changed = true;
            let from = if u64::from(e.lblk) >= keep { 0 } else { (keep - u64::from(e.lblk)) as u32 };
            for k in from..e.len {
                self.free_block(e.pblk.checked_add(k).ok_or(Errno::EUCLEAN)?)?;
                self.add_iblocks(inode, -sectors);
            }
            if from > 0 {
                e.len = from;
                kept.push(e);
            }
        }
        if changed {
            self.rebuild_tree(inode, ino, &kept)?;
        }
        Ok(())
    }
}
