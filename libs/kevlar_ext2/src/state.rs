//! The mutable core of a mounted file system: geometry, the block cache,
//! allocation, inodes, block maps and directories. Every method runs with
//! the file system's lock held; [`State::commit`] writes what changed.

use alloc::collections::{BTreeMap, BTreeSet};
use alloc::format;
use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec;
use alloc::vec::Vec;

use kevlar_vfs::{BlockDevice, Errno, FileType, PageSource, Result};

use crate::cache::CachedPage;
use linux_raw_sys::general as g;

use crate::layout::*;
use crate::{MountError, Usage, CACHE_BLOCKS};

/// Most hard links to one inode (Linux's `EXT2_LINK_MAX`).
pub const LINK_MAX: u16 = 32000;

/// Fixed facts about the file system, read from the superblock.
#[derive(Clone, Debug)]
pub struct Geometry {
    pub block_size: usize,
    pub blocks_count: u32,
    pub inodes_count: u32,
    pub first_data_block: u32,
    pub blocks_per_group: u32,
    pub inodes_per_group: u32,
    pub inode_size: usize,
    pub first_ino: u32,
    pub group_count: u32,
    pub filetype: bool,
    pub large_file: bool,
    /// Block holding the first group descriptor.
    pub gdt_block: u32,
}

impl Geometry {
    /// Block pointers per indirect block.
    pub fn ptrs_per_block(&self) -> u64 {
        (self.block_size / 4) as u64
    }

    /// Blocks in group `g` (the last may be short).
    pub fn blocks_in_group(&self, group: u32) -> u32 {
        let start = self.first_data_block + group * self.blocks_per_group;
        (self.blocks_count - start).min(self.blocks_per_group)
    }

    /// Sectors of `sector_size` bytes per block.
    fn sectors(&self, sector_size: usize) -> u64 {
        (self.block_size / sector_size) as u64
    }

    /// Largest file size: what the block map reaches, capped at 2 GiB - 1
    /// without `large_file` and by `i_blocks` (512-byte units in 32 bits).
    pub fn max_file_size(&self) -> u64 {
        let p = self.ptrs_per_block();
        let blocks = N_DIRECT as u64 + p + p * p + p * p * p;
        let by_map = blocks * self.block_size as u64;
        let by_iblocks = (u64::from(u32::MAX) * 512).saturating_sub(self.block_size as u64 * (3 + p));
        let cap = if self.large_file { u64::MAX } else { (1u64 << 31) - 1 };
        by_map.min(by_iblocks).min(cap)
    }
}

struct CachedBlock {
    data: Vec<u8>,
    dirty: bool,
}

/// Everything behind a file system's lock.
pub struct State {
    pub dev: Arc<dyn BlockDevice>,
    pub geo: Geometry,
    superblock: Vec<u8>,
    sb_dirty: bool,
    groups: Vec<GroupDesc>,
    gdt_raw: Vec<u8>,
    gdt_dirty: BTreeSet<u32>,
    cache: BTreeMap<u32, CachedBlock>,
    /// Blocks in `cache` changed since the last commit.
    dirty_blocks: usize,
    /// The page cache of regular files' data, by (inode, page index).
    pub pages: BTreeMap<(u32, u64), CachedPage>,
    /// Where cached pages come from.
    pub page_source: Arc<dyn PageSource>,
    /// Pages past which clean ones are dropped as new ones come in.
    pub page_limit: usize,
    /// Where dropping clean pages goes on from.
    pub evict_cursor: (u32, u64),
    /// The time of the running operation, in seconds.
    pub now: u32,
}

fn mount_error(errno: Errno, message: String) -> MountError {
    MountError { errno, message }
}

impl State {
    /// Reads and checks the superblock and group descriptors. Returns the
    /// state and, when unknown read-only-compatible features force a
    /// read-only mount, why.
    pub fn load(dev: Arc<dyn BlockDevice>, read_only: bool, page_source: Arc<dyn PageSource>, page_limit: usize) -> core::result::Result<(State, Option<String>), MountError> {
        let sector = dev.sector_size();
        if sector == 0 || SUPERBLOCK_OFFSET as usize % sector != 0 || SUPERBLOCK_SIZE % sector != 0 {
            return Err(mount_error(Errno::EINVAL, format!("unsupported sector size {}", sector)));
        }
        let mut superblock = vec![0u8; SUPERBLOCK_SIZE];
        dev.read_sectors(SUPERBLOCK_OFFSET / sector as u64, &mut superblock)
            .map_err(|e| mount_error(e, String::from("cannot read the superblock")))?;
        if le16(&superblock, sb::MAGIC) != EXT2_MAGIC {
            return Err(mount_error(Errno::EINVAL, String::from("no ext2 superblock (bad magic)")));
        }
        let log = le32(&superblock, sb::LOG_BLOCK_SIZE);
        if log > 2 {
            return Err(mount_error(Errno::EINVAL, format!("unsupported block size {}", 1024u64 << log.min(20))));
        }
        let block_size = 1024usize << log;
        if block_size % sector != 0 {
            return Err(mount_error(Errno::EINVAL, String::from("block size not a multiple of the sector size")));
        }
        let rev = le32(&superblock, sb::REV_LEVEL);
        if rev > 1 {
            return Err(mount_error(Errno::EINVAL, format!("unsupported revision {}", rev)));
        }
        let (inode_size, first_ino, compat_incompat, ro_compat) = if rev == GOOD_OLD_REV {
            (GOOD_OLD_INODE_SIZE, GOOD_OLD_FIRST_INO, 0, 0)
        } else {
            (
                usize::from(le16(&superblock, sb::INODE_SIZE)),
                le32(&superblock, sb::FIRST_INO),
                le32(&superblock, sb::FEATURE_INCOMPAT),
                le32(&superblock, sb::FEATURE_RO_COMPAT),
            )
        };
        let unknown = compat_incompat & !INCOMPAT_SUPPORTED;
        if unknown != 0 {
            let mut names = String::new();
            for (bit, name) in INCOMPAT_NAMES {
                if unknown & bit != 0 {
                    if !names.is_empty() {
                        names.push_str(", ");
                    }
                    names.push_str(name);
                }
            }
            if names.is_empty() {
                names = format!("{:#x}", unknown);
            }
            return Err(mount_error(Errno::EINVAL, format!("unsupported incompatible features: {}", names)));
        }
        if inode_size < GOOD_OLD_INODE_SIZE || inode_size > block_size || !inode_size.is_power_of_two() {
            return Err(mount_error(Errno::EINVAL, format!("bad inode size {}", inode_size)));
        }
        let unknown_ro = ro_compat & !RO_COMPAT_SUPPORTED;
        let forced = (unknown_ro != 0 && !read_only).then(|| format!("unsupported read-only-compatible features {:#x}: mounting read-only", unknown_ro));
        let geo_partial = (
            le32(&superblock, sb::BLOCKS_COUNT),
            le32(&superblock, sb::INODES_COUNT),
            le32(&superblock, sb::FIRST_DATA_BLOCK),
            le32(&superblock, sb::BLOCKS_PER_GROUP),
            le32(&superblock, sb::INODES_PER_GROUP),
        );
        let (blocks_count, inodes_count, first_data_block, blocks_per_group, inodes_per_group) = geo_partial;
        if blocks_per_group == 0 || inodes_per_group == 0 || blocks_count <= first_data_block || blocks_per_group as usize > 8 * block_size || inodes_per_group as usize > 8 * block_size {
            return Err(mount_error(Errno::EINVAL, String::from("corrupt superblock geometry")));
        }
        let group_count = (blocks_count - first_data_block).div_ceil(blocks_per_group);
        if u64::from(group_count) * u64::from(inodes_per_group) < u64::from(inodes_count) {
            return Err(mount_error(Errno::EINVAL, String::from("corrupt superblock: inode count")));
        }
        let sectors_total = dev.sector_count();
        if u64::from(blocks_count) * (block_size / sector) as u64 > sectors_total {
            return Err(mount_error(Errno::EINVAL, format!("file system of {} blocks larger than the device", blocks_count)));
        }
        let geo = Geometry {
            block_size,
            blocks_count,
            inodes_count,
            first_data_block,
            blocks_per_group,
            inodes_per_group,
            inode_size,
            first_ino,
            group_count,
            filetype: compat_incompat & INCOMPAT_FILETYPE != 0,
            large_file: ro_compat & RO_COMPAT_LARGE_FILE != 0,
            gdt_block: first_data_block + 1,
        };
        let gdt_bytes = (group_count as usize * GROUP_DESC_SIZE).div_ceil(block_size) * block_size;
        let mut gdt_raw = vec![0u8; gdt_bytes];
        dev.read_sectors(u64::from(geo.gdt_block) * geo.sectors(sector), &mut gdt_raw)
            .map_err(|e| mount_error(e, String::from("cannot read the group descriptors")))?;
        let groups: Vec<GroupDesc> = (0..group_count as usize).map(|i| GroupDesc::parse(&gdt_raw[i * GROUP_DESC_SIZE..])).collect();
        for (i, gd) in groups.iter().enumerate() {
            let ok = |b: u32| b >= first_data_block && b < blocks_count;
            let table_blocks = (inodes_per_group as usize * inode_size).div_ceil(block_size) as u32;
            if !ok(gd.block_bitmap) || !ok(gd.inode_bitmap) || !ok(gd.inode_table) || gd.inode_table + table_blocks > blocks_count {
                return Err(mount_error(Errno::EINVAL, format!("corrupt group descriptor {}", i)));
            }
        }
        let state = State {
            dev,
            geo,
            superblock,
            sb_dirty: false,
            groups,
            gdt_raw,
            gdt_dirty: BTreeSet::new(),
            cache: BTreeMap::new(),
            dirty_blocks: 0,
            pages: BTreeMap::new(),
            page_source,
            page_limit: page_limit.max(16),
            evict_cursor: (0, 0),
            now: 0,
        };
        Ok((state, forced))
    }

    /// Records a read-write mount in the superblock, as Linux does: the
    /// valid flag is cleared until unmount, the mount count goes up.
    pub fn mark_mounted(&mut self, now: u32) -> Result<()> {
        let state = le16(&self.superblock, sb::STATE);
        put16(&mut self.superblock, sb::STATE, state & !STATE_VALID);
        let count = le16(&self.superblock, sb::MNT_COUNT);
        put16(&mut self.superblock, sb::MNT_COUNT, count.wrapping_add(1));
        put32(&mut self.superblock, sb::MTIME, now);
        self.sb_dirty = true;
        self.commit()
    }

    /// Sets the valid flag again (unmount).
    pub fn mark_clean(&mut self) -> Result<()> {
        let state = le16(&self.superblock, sb::STATE);
        put16(&mut self.superblock, sb::STATE, state | STATE_VALID);
        self.sb_dirty = true;
        Ok(())
    }

    /// Returns what statfs reports.
    pub fn usage(&self) -> Usage {
        let free = u64::from(le32(&self.superblock, sb::FREE_BLOCKS));
        let reserved = u64::from(le32(&self.superblock, 8));
        // Linux's ext2 statfs subtracts the metadata overhead from the
        // total ("bsd df"); the groups' own metadata is what mke2fs used.
        let overhead: u64 = u64::from(self.geo.first_data_block)
            + (0..self.geo.group_count).map(|g| u64::from(self.group_overhead(g))).sum::<u64>();
        Usage {
            block_size: self.geo.block_size as u64,
            blocks: u64::from(self.geo.blocks_count) - overhead,
            free_blocks: free,
            available_blocks: free.saturating_sub(reserved),
            inodes: u64::from(self.geo.inodes_count),
            free_inodes: u64::from(le32(&self.superblock, sb::FREE_INODES)),
        }
    }

    /// Blocks of group `g` that hold metadata: superblock and descriptor
    /// copies (plus reserved descriptor blocks), bitmaps, inode table.
    fn group_overhead(&self, group: u32) -> u32 {
        let table = (self.geo.inodes_per_group as usize * self.geo.inode_size).div_ceil(self.geo.block_size) as u32;
        let gd = &self.groups[group as usize];
        // Whatever lies between the group's start and its bitmaps is the
        // superblock copy, descriptors and reserved descriptor blocks.
        let start = self.geo.first_data_block + group * self.geo.blocks_per_group;
        let first_meta = gd.block_bitmap.min(gd.inode_bitmap).min(gd.inode_table);
        let backup = if first_meta >= start && first_meta - start < self.geo.blocks_per_group { first_meta - start } else { 0 };
        backup + 2 + table
    }

    // ----- blocks -----

    /// Reads block `b` from the device into the cache if it is not there.
    fn cached(&mut self, b: u32) -> Result<&mut CachedBlock> {
        if b >= self.geo.blocks_count {
            return Err(Errno::EIO);
        }
        if !self.cache.contains_key(&b) {
            if self.cache.len() >= 2 * CACHE_BLOCKS {
                self.trim_cache();
            }
            let mut data = vec![0u8; self.geo.block_size];
            let sector = self.dev.sector_size();
            self.dev.read_sectors(u64::from(b) * self.geo.sectors(sector), &mut data)?;
            self.cache.insert(b, CachedBlock { data, dirty: false });
        }
        Ok(self.cache.get_mut(&b).expect("just inserted"))
    }

    /// Returns block `b`'s bytes.
    pub fn block(&mut self, b: u32) -> Result<&[u8]> {
        Ok(&self.cached(b)?.data)
    }

    /// Returns block `b`'s bytes for changing; it is written at commit.
    pub fn block_mut(&mut self, b: u32) -> Result<&mut [u8]> {
        let entry = self.cached(b)?;
        let newly = !entry.dirty;
        entry.dirty = true;
        if newly {
            self.dirty_blocks += 1;
        }
        Ok(&mut self.cache.get_mut(&b).expect("cached above").data)
    }

    /// Forgets block `b` in the block cache, changed or not: it holds file
    /// data now, which the page cache writes.
    pub fn forget_block(&mut self, b: u32) {
        if let Some(old) = self.cache.remove(&b) {
            if old.dirty {
                self.dirty_blocks = self.dirty_blocks.saturating_sub(1);
            }
        }
    }

    /// Tells whether so many blocks are changed that they should be
    /// written now rather than by the next flush.
    pub fn many_dirty_blocks(&self) -> bool {
        self.dirty_blocks > CACHE_BLOCKS
    }

    /// Tells whether metadata waits to be written.
    pub fn has_dirty_metadata(&self) -> bool {
        self.dirty_blocks > 0 || !self.gdt_dirty.is_empty() || self.sb_dirty
    }

    /// Drops clean blocks past [`CACHE_BLOCKS`].
    pub fn trim_cache(&mut self) {
        if self.cache.len() > CACHE_BLOCKS {
            let excess = self.cache.len() - CACHE_BLOCKS;
            let victims: Vec<u32> = self.cache.iter().filter(|(_, c)| !c.dirty).map(|(&b, _)| b).take(excess).collect();
            for b in victims {
                self.cache.remove(&b);
            }
        }
    }

    /// Puts a block of zeros in the cache for `b` without reading it.
    fn zero_block(&mut self, b: u32) {
        let data = vec![0u8; self.geo.block_size];
        if !self.cache.insert(b, CachedBlock { data, dirty: true }).is_some_and(|old| old.dirty) {
            self.dirty_blocks += 1;
        }
    }

    /// Writes every changed block, descriptor and the superblock, then
    /// trims the cache. On a failed write the rest stays dirty for the
    /// next commit.
    pub fn commit(&mut self) -> Result<()> {
        debug_assert_eq!(self.dirty_blocks, self.cache.values().filter(|c| c.dirty).count(), "dirty block count");
        let sector = self.dev.sector_size();
        let per = self.geo.sectors(sector);
        let mut result = Ok(());
        for (&b, block) in self.cache.iter_mut().filter(|(_, c)| c.dirty) {
            match self.dev.write_sectors(u64::from(b) * per, &block.data) {
                Ok(()) => {
                    block.dirty = false;
                    self.dirty_blocks = self.dirty_blocks.saturating_sub(1);
                }
                Err(e) => result = Err(e),
            }
        }
        let dirty_gdt: Vec<u32> = self.gdt_dirty.iter().copied().collect();
        for block_index in dirty_gdt {
            let bs = self.geo.block_size;
            let bytes = &self.gdt_raw[block_index as usize * bs..(block_index as usize + 1) * bs];
            match self.dev.write_sectors(u64::from(self.geo.gdt_block + block_index) * per, bytes) {
                Ok(()) => {
                    self.gdt_dirty.remove(&block_index);
                }
                Err(e) => result = Err(e),
            }
        }
        if self.sb_dirty {
            let wtime = self.now.max(le32(&self.superblock, sb::WTIME));
            put32(&mut self.superblock, sb::WTIME, wtime);
            match self.dev.write_sectors(SUPERBLOCK_OFFSET / sector as u64, &self.superblock) {
                Ok(()) => self.sb_dirty = false,
                Err(e) => result = Err(e),
            }
        }
        self.trim_cache();
        result
    }

    // ----- group descriptors and superblock counters -----

    fn group_changed(&mut self, group: u32) {
        let off = group as usize * GROUP_DESC_SIZE;
        let gd = self.groups[group as usize];
        gd.store_counts(&mut self.gdt_raw[off..off + GROUP_DESC_SIZE]);
        self.gdt_dirty.insert((off / self.geo.block_size) as u32);
    }

    fn adjust_sb(&mut self, field: usize, delta: i32) {
        let v = le32(&self.superblock, field);
        put32(&mut self.superblock, field, v.wrapping_add_signed(delta));
        self.sb_dirty = true;
    }

    // ----- allocation -----

    /// Allocates a block, preferring group `goal`; the block is zeroed in
    /// the cache.
    pub fn alloc_block(&mut self, goal: u32) -> Result<u32> {
        let n = self.geo.group_count;
        for i in 0..n {
            let group = (goal + i) % n;
            if self.groups[group as usize].free_blocks == 0 {
                continue;
            }
            let bitmap_block = self.groups[group as usize].block_bitmap;
            let count = self.geo.blocks_in_group(group) as usize;
            let bitmap = self.block(bitmap_block)?;
            let Some(bit) = find_zero(bitmap, count) else { continue };
            set_bit(self.block_mut(bitmap_block)?, bit, true);
            self.groups[group as usize].free_blocks -= 1;
            self.group_changed(group);
            self.adjust_sb(sb::FREE_BLOCKS, -1);
            let b = self.geo.first_data_block + group * self.geo.blocks_per_group + bit as u32;
            self.zero_block(b);
            return Ok(b);
        }
        Err(Errno::ENOSPC)
    }

    /// Frees block `b`.
    pub fn free_block(&mut self, b: u32) -> Result<()> {
        if b < self.geo.first_data_block || b >= self.geo.blocks_count {
            return Err(Errno::EIO);
        }
        let group = (b - self.geo.first_data_block) / self.geo.blocks_per_group;
        let bit = ((b - self.geo.first_data_block) % self.geo.blocks_per_group) as usize;
        let bitmap_block = self.groups[group as usize].block_bitmap;
        let bitmap = self.block_mut(bitmap_block)?;
        if !get_bit(bitmap, bit) {
            return Err(Errno::EIO);
        }
        set_bit(bitmap, bit, false);
        self.groups[group as usize].free_blocks += 1;
        self.group_changed(group);
        self.adjust_sb(sb::FREE_BLOCKS, 1);
        // A freed block's cached copy must not be written over its next use.
        self.forget_block(b);
        Ok(())
    }

    /// Allocates an inode, preferring group `goal`.
    fn alloc_inode(&mut self, goal: u32, is_dir: bool) -> Result<u32> {
        let n = self.geo.group_count;
        for i in 0..n {
            let group = (goal + i) % n;
            if self.groups[group as usize].free_inodes == 0 {
                continue;
            }
            let bitmap_block = self.groups[group as usize].inode_bitmap;
            let count = self.geo.inodes_per_group as usize;
            // Reserved inodes (below first_ino) are never handed out, even
            // if their bits are clear.
            let skip = if group == 0 { (self.geo.first_ino - 1) as usize } else { 0 };
            let bitmap = self.block(bitmap_block)?;
            let Some(bit) = (skip..count).find(|&i| !get_bit(bitmap, i)) else { continue };
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
            self.group_changed(group);
            self.adjust_sb(sb::FREE_INODES, -1);
            return Ok(ino);
        }
        Err(Errno::ENOSPC)
    }

    /// Frees inode `ino` in its bitmap and counters.
    fn free_inode_bit(&mut self, ino: u32, is_dir: bool) -> Result<()> {
        let group = (ino - 1) / self.geo.inodes_per_group;
        let bit = ((ino - 1) % self.geo.inodes_per_group) as usize;
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
        self.adjust_sb(sb::FREE_INODES, 1);
        Ok(())
    }

    /// The group holding inode `ino`.
    pub fn group_of(&self, ino: u32) -> u32 {
        (ino - 1) / self.geo.inodes_per_group
    }

    // ----- inodes -----

    fn inode_location(&self, ino: u32) -> Result<(u32, usize)> {
        if ino == 0 || ino > self.geo.inodes_count {
            return Err(Errno::EIO);
        }
        let group = (ino - 1) / self.geo.inodes_per_group;
        let index = ((ino - 1) % self.geo.inodes_per_group) as usize;
        let byte = index * self.geo.inode_size;
        let block = self.groups[group as usize].inode_table + (byte / self.geo.block_size) as u32;
        Ok((block, byte % self.geo.block_size))
    }

    /// Reads inode `ino`.
    pub fn read_inode(&mut self, ino: u32) -> Result<DiskInode> {
        let (block, off) = self.inode_location(ino)?;
        let data = self.block(block)?;
        let mut inode = DiskInode::zeroed();
        inode.0.copy_from_slice(&data[off..off + GOOD_OLD_INODE_SIZE]);
        Ok(inode)
    }

    /// Writes inode `ino` (its first 128 bytes; the rest is left alone).
    pub fn write_inode(&mut self, ino: u32, inode: &DiskInode) -> Result<()> {
        let (block, off) = self.inode_location(ino)?;
        let data = self.block_mut(block)?;
        data[off..off + GOOD_OLD_INODE_SIZE].copy_from_slice(&inode.0);
        Ok(())
    }

    /// Allocates and initialises an inode; the whole on-disk record is
    /// zeroed first (extra fields of large inodes included).
    pub fn new_inode(&mut self, goal_group: u32, mode: u32, uid: u32, gid: u32) -> Result<(u32, DiskInode)> {
        let is_dir = mode & g::S_IFMT == g::S_IFDIR;
        let ino = self.alloc_inode(goal_group, is_dir)?;
        let (block, off) = self.inode_location(ino)?;
        let isz = self.geo.inode_size;
        self.block_mut(block)?[off..off + isz].fill(0);
        let mut inode = DiskInode::zeroed();
        inode.set_mode(mode as u16);
        inode.set_uid(uid);
        inode.set_gid(gid);
        for field in [ino::ATIME, ino::CTIME, ino::MTIME] {
            inode.set(field, self.now);
        }
        self.write_inode(ino, &inode)?;
        Ok((ino, inode))
    }

    /// Frees an inode whose last link went: its blocks, then its number.
    pub fn destroy_inode(&mut self, ino: u32) -> Result<()> {
        let mut inode = self.read_inode(ino)?;
        if inode.mode() == 0 || inode.get(ino::DTIME) != 0 {
            return Ok(());
        }
        let is_dir = u32::from(inode.mode()) & g::S_IFMT == g::S_IFDIR;
        self.drop_file_pages(ino, 0);
        if self.has_data_blocks(&inode) {
            self.free_blocks_from(&mut inode, 0)?;
        }
        let acl = inode.get(ino::FILE_ACL);
        if acl != 0 {
            // An extended-attribute block may be shared; its reference
            // count is in its header (offset 4).
            let refs = le32(self.block(acl)?, 4);
            if refs > 1 {
                put32(self.block_mut(acl)?, 4, refs - 1);
            } else {
                self.free_block(acl)?;
            }
            inode.set(ino::FILE_ACL, 0);
        }
        inode.set(ino::DTIME, self.now.max(1));
        inode.set_links(0);
        inode.set(ino::BLOCKS, 0);
        self.write_inode(ino, &inode)?;
        self.free_inode_bit(ino, is_dir)
    }

    /// Tells whether `i_block` holds block pointers (not a fast symlink's
    /// text or a device number).
    pub fn has_data_blocks(&self, inode: &DiskInode) -> bool {
        let t = u32::from(inode.mode()) & g::S_IFMT;
        match t {
            g::S_IFREG | g::S_IFDIR => true,
            g::S_IFLNK => !self.is_fast_symlink(inode),
            _ => false,
        }
    }

    /// Tells whether a symlink keeps its target in `i_block`: it has no
    /// blocks other than an extended-attribute block.
    pub fn is_fast_symlink(&self, inode: &DiskInode) -> bool {
        let ea_sectors = if inode.get(ino::FILE_ACL) != 0 { (self.geo.block_size / 512) as u32 } else { 0 };
        inode.get(ino::BLOCKS) == ea_sectors
    }

    // ----- block maps -----

    /// Returns where in the tree logical block `lblk` lives: the `i_block`
    /// slot, the depth below it, and the index within that subtree.
    fn map_path(&self, lblk: u64) -> Result<(usize, u32, u64)> {
        let p = self.geo.ptrs_per_block();
        let mut rest = lblk;
        if rest < N_DIRECT as u64 {
            return Ok((rest as usize, 0, 0));
        }
        rest -= N_DIRECT as u64;
        let mut span = p;
        for depth in 1..=3u32 {
            if rest < span {
                return Ok((IND_SLOT + depth as usize - 1, depth, rest));
            }
            rest -= span;
            span *= p;
        }
        Err(Errno::EFBIG)
    }

    /// Returns the block holding logical block `lblk` of `inode`, 0 for a
    /// hole; with `alloc`, fills the hole (and missing indirect blocks),
    /// counting them in `i_blocks`. The caller writes the inode back.
    pub fn bmap(&mut self, inode: &mut DiskInode, ino: u32, lblk: u64, alloc: bool) -> Result<u32> {
        let (slot, depth, mut index) = self.map_path(lblk)?;
        let goal = self.group_of(ino);
        let sectors = (self.geo.block_size / 512) as u32;
        let mut b = inode.block(slot);
        if b == 0 {
            if !alloc {
                return Ok(0);
            }
            b = self.alloc_block(goal)?;
            inode.set_block(slot, b);
            inode.set(ino::BLOCKS, inode.get(ino::BLOCKS) + sectors);
        }
        let p = self.geo.ptrs_per_block();
        for level in (0..depth).rev() {
            let span = p.pow(level);
            let i = (index / span) as usize;
            index %= span;
            let next = le32(self.block(b)?, 4 * i);
            if next == 0 {
                if !alloc {
                    return Ok(0);
                }
                let new = self.alloc_block(goal)?;
                put32(self.block_mut(b)?, 4 * i, new);
                inode.set(ino::BLOCKS, inode.get(ino::BLOCKS) + sectors);
                b = new;
            } else {
                if next >= self.geo.blocks_count {
                    return Err(Errno::EIO);
                }
                b = next;
            }
        }
        Ok(b)
    }

    /// Frees every data block from logical block `keep` on, and indirect
    /// blocks left empty, adjusting `i_blocks`.
    pub fn free_blocks_from(&mut self, inode: &mut DiskInode, keep: u64) -> Result<()> {
        let p = self.geo.ptrs_per_block();
        let mut base = 0u64;
        let mut freed = 0u64;
        for slot in 0..N_DIRECT + 3 {
            let depth = slot.saturating_sub(N_DIRECT - 1) as u32;
            let span = p.pow(depth);
            let b = inode.block(slot);
            if b != 0 && keep < base + span {
                let local_keep = keep.saturating_sub(base);
                if self.free_subtree(b, depth, local_keep, &mut freed)? {
                    inode.set_block(slot, 0);
                }
            }
            base += span;
        }
        let sectors = freed * (self.geo.block_size / 512) as u64;
        inode.set(ino::BLOCKS, (u64::from(inode.get(ino::BLOCKS))).saturating_sub(sectors) as u32);
        Ok(())
    }

    /// Frees the part of the subtree at block `b` (of `depth` levels of
    /// indirection) from leaf `keep` on. Returns whether `b` itself was
    /// freed (nothing in it was kept).
    fn free_subtree(&mut self, b: u32, depth: u32, keep: u64, freed: &mut u64) -> Result<bool> {
        if depth == 0 {
            if keep == 0 {
                self.free_block(b)?;
                *freed += 1;
                return Ok(true);
            }
            return Ok(false);
        }
        let p = self.geo.ptrs_per_block();
        let span = p.pow(depth - 1);
        let ptrs: Vec<u32> = {
            let data = self.block(b)?;
            (0..p as usize).map(|i| le32(data, 4 * i)).collect()
        };
        let mut remaining = false;
        for (i, &child) in ptrs.iter().enumerate() {
            if child == 0 {
                continue;
            }
            let start = i as u64 * span;
            if keep >= start + span {
                remaining = true;
                continue;
            }
            if child >= self.geo.blocks_count {
                return Err(Errno::EIO);
            }
            if self.free_subtree(child, depth - 1, keep.saturating_sub(start), freed)? {
                put32(self.block_mut(b)?, 4 * i, 0);
            } else {
                remaining = true;
            }
        }
        if remaining {
            return Ok(false);
        }
        self.free_block(b)?;
        *freed += 1;
        Ok(true)
    }

    // ----- file data (the pages themselves: cache.rs) -----

    /// Sets a regular file's size: frees blocks past it and zeroes the
    /// tail of the last block, so growing it again shows zeros.
    pub fn truncate(&mut self, ino: u32, inode: &mut DiskInode, len: u64) -> Result<()> {
        if len > self.geo.max_file_size() {
            return Err(Errno::EFBIG);
        }
        let bs = self.geo.block_size as u64;
        let old = inode.size();
        if len < old {
            self.shrink_pages(ino, inode, len)?;
            self.free_blocks_from(inode, len.div_ceil(bs))?;
        }
        inode.set_size(len);
        Ok(())
    }

    // ----- directories -----

    /// Returns the number of blocks of a directory.
    fn dir_blocks(&self, inode: &DiskInode) -> u64 {
        inode.size() / self.geo.block_size as u64
    }

    /// Returns the entries of logical block `lblk` of directory `ino`.
    fn dir_block_entries(&mut self, ino: u32, inode: &mut DiskInode, lblk: u64) -> Result<(u32, Vec<RawDirent>)> {
        let b = self.bmap(inode, ino, lblk, false)?;
        if b == 0 {
            return Err(Errno::EIO);
        }
        let filetype = self.geo.filetype;
        let entries = parse_dir_block(self.block(b)?, filetype).ok_or(Errno::EIO)?;
        Ok((b, entries))
    }

    /// Finds `name` in directory `dir`: (inode, type code, block, offset).
    pub fn find_entry(&mut self, dir: u32, name: &[u8]) -> Result<Option<(u32, u8, u32, usize)>> {
        let mut inode = self.read_inode(dir)?;
        for lblk in 0..self.dir_blocks(&inode) {
            let (b, entries) = self.dir_block_entries(dir, &mut inode, lblk)?;
            if let Some(e) = entries.iter().find(|e| e.inode != 0 && e.name == name) {
                return Ok(Some((e.inode, e.file_type, b, e.offset)));
            }
        }
        Ok(None)
    }

    /// Returns the first live entry at or after byte position `pos` of
    /// directory `dir`, with the position after it.
    pub fn entry_at(&mut self, dir: u32, pos: u64) -> Result<Option<(RawDirent, u64)>> {
        let mut inode = self.read_inode(dir)?;
        let bs = self.geo.block_size as u64;
        let mut lblk = pos / bs;
        while lblk < self.dir_blocks(&inode) {
            let (_, entries) = self.dir_block_entries(dir, &mut inode, lblk)?;
            let base = lblk * bs;
            for e in entries {
                if base + e.offset as u64 >= pos && e.inode != 0 {
                    let next = base + (e.offset + e.rec_len) as u64;
                    return Ok(Some((e, next)));
                }
            }
            lblk += 1;
        }
        Ok(None)
    }

    /// Adds entry `name` -> `target` to directory `dir`, reusing slack in
    /// an existing block or adding a block.
    pub fn add_entry(&mut self, dir: u32, name: &[u8], target: u32, type_code: u8) -> Result<()> {
        let mut inode = self.read_inode(dir)?;
        let need = dirent_size(name.len());
        let filetype = self.geo.filetype;
        let type_code = if filetype { type_code } else { 0 };
        let blocks = self.dir_blocks(&inode);
        for lblk in 0..blocks {
            let (b, entries) = self.dir_block_entries(dir, &mut inode, lblk)?;
            for e in entries {
                let used = if e.inode == 0 { 0 } else { dirent_size(e.name.len()) };
                if e.rec_len - used >= need {
                    let block = self.block_mut(b)?;
                    if e.inode == 0 {
                        write_dirent(block, e.offset, target, e.rec_len, name, type_code, filetype);
                    } else {
                        put16(block, e.offset + 4, used as u16);
                        write_dirent(block, e.offset + used, target, e.rec_len - used, name, type_code, filetype);
                    }
                    return self.touch_dir(dir, &mut inode);
                }
            }
        }
        let b = self.bmap(&mut inode, dir, blocks, true)?;
        let bs = self.geo.block_size;
        write_dirent(self.block_mut(b)?, 0, target, bs, name, type_code, filetype);
        inode.set_size((blocks + 1) * bs as u64);
        self.touch_dir(dir, &mut inode)
    }

    /// Records a change of directory `dir`: times, and the hashed index
    /// flag dropped (this code does not maintain the index).
    fn touch_dir(&mut self, dir: u32, inode: &mut DiskInode) -> Result<()> {
        inode.set(ino::MTIME, self.now);
        inode.set(ino::CTIME, self.now);
        let flags = inode.get(ino::FLAGS);
        inode.set(ino::FLAGS, flags & !INDEX_FL);
        self.write_inode(dir, inode)
    }

    /// Removes entry `name` from directory `dir` (merging its space into
    /// the previous entry of its block); returns the inode it named.
    pub fn remove_entry(&mut self, dir: u32, name: &[u8]) -> Result<u32> {
        let mut inode = self.read_inode(dir)?;
        for lblk in 0..self.dir_blocks(&inode) {
            let (b, entries) = self.dir_block_entries(dir, &mut inode, lblk)?;
            let Some(i) = entries.iter().position(|e| e.inode != 0 && e.name == name) else { continue };
            let target = entries[i].inode;
            let block = self.block_mut(b)?;
            if i == 0 {
                put32(block, entries[0].offset, 0);
            } else {
                let prev = &entries[i - 1];
                put16(block, prev.offset + 4, (prev.rec_len + entries[i].rec_len) as u16);
            }
            self.touch_dir(dir, &mut inode)?;
            return Ok(target);
        }
        Err(Errno::ENOENT)
    }

    /// Points existing entry `name` of `dir` at `target`.
    pub fn retarget_entry(&mut self, dir: u32, name: &[u8], target: u32, type_code: u8) -> Result<()> {
        let (_, _, b, off) = self.find_entry(dir, name)?.ok_or(Errno::ENOENT)?;
        let filetype = self.geo.filetype;
        let block = self.block_mut(b)?;
        put32(block, off, target);
        if filetype {
            block[off + 7] = type_code;
        }
        let mut inode = self.read_inode(dir)?;
        self.touch_dir(dir, &mut inode)
    }

    /// Tells whether directory `dir` holds nothing but `.` and `..`.
    pub fn dir_is_empty(&mut self, dir: u32) -> Result<bool> {
        let mut inode = self.read_inode(dir)?;
        for lblk in 0..self.dir_blocks(&inode) {
            let (_, entries) = self.dir_block_entries(dir, &mut inode, lblk)?;
            if entries.iter().any(|e| e.inode != 0 && e.name != b"." && e.name != b"..") {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Writes a new directory's first block with `.` and `..`.
    pub fn init_dir(&mut self, ino: u32, inode: &mut DiskInode, parent: u32) -> Result<()> {
        let b = self.bmap(inode, ino, 0, true)?;
        let bs = self.geo.block_size;
        let filetype = self.geo.filetype;
        let dir_code = if filetype { ft::DIR } else { 0 };
        let block = self.block_mut(b)?;
        write_dirent(block, 0, ino, 12, b".", dir_code, filetype);
        write_dirent(block, 12, parent, bs - 12, b"..", dir_code, filetype);
        inode.set_size(bs as u64);
        Ok(())
    }

    /// Returns the parent of directory `dir` (its `..` entry).
    pub fn parent_of(&mut self, dir: u32) -> Result<u32> {
        Ok(self.find_entry(dir, b"..")?.ok_or(Errno::EIO)?.0)
    }

    /// Changes a link count by `delta`, setting ctime.
    pub fn adjust_links(&mut self, ino: u32, delta: i32) -> Result<u16> {
        let mut inode = self.read_inode(ino)?;
        let links = (i32::from(inode.links()) + delta).max(0) as u16;
        inode.set_links(links);
        inode.set(ino::CTIME, self.now);
        self.write_inode(ino, &inode)?;
        Ok(links)
    }
}

/// Returns the directory-entry type code of a file type.
pub fn type_code(t: FileType) -> u8 {
    match t {
        FileType::Regular => ft::REG,
        FileType::Directory => ft::DIR,
        FileType::Symlink => ft::LNK,
        FileType::CharDevice => ft::CHR,
        FileType::BlockDevice => ft::BLK,
        FileType::Fifo => ft::FIFO,
        FileType::Socket => ft::SOCK,
    }
}

fn get_bit(bitmap: &[u8], i: usize) -> bool {
    bitmap[i / 8] & (1 << (i % 8)) != 0
}

fn set_bit(bitmap: &mut [u8], i: usize, on: bool) {
    if on {
        bitmap[i / 8] |= 1 << (i % 8);
    } else {
        bitmap[i / 8] &= !(1 << (i % 8));
    }
}

/// Returns the first clear bit below `count`.
fn find_zero(bitmap: &[u8], count: usize) -> Option<usize> {
    let full = count / 8;
    if let Some(byte) = bitmap[..full].iter().position(|&b| b != 0xff) {
        let bit = (!bitmap[byte]).trailing_zeros() as usize;
        return Some(byte * 8 + bit);
    }
    (full * 8..count).find(|&i| !get_bit(bitmap, i))
}
