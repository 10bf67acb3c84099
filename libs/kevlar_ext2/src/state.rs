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

use crate::csum;
use crate::layout::*;
use crate::{Flavour, MountError, Usage, CACHE_BLOCKS};

/// Most hard links to one inode (Linux's `EXT2_LINK_MAX`).
pub const LINK_MAX: u16 = 32000;
/// Most hard links to one inode on ext4 (Linux's `EXT4_LINK_MAX`).
pub const EXT4_LINK_MAX: u16 = 65000;

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
    /// The driver's rules.
    pub flavour: Flavour,
    /// Bytes per group descriptor.
    pub desc_size: usize,
    /// New files map their blocks with extent trees.
    pub extents: bool,
    /// `i_blocks` has 48 bits.
    pub huge_file: bool,
    /// The metadata checksum seed, with `metadata_csum`.
    pub csum_seed: Option<u32>,
    /// Blocks of descriptors reserved for growth after each copy.
    pub reserved_gdt: u32,
    /// Superblock copies only in groups 0, 1 and powers of 3, 5, 7.
    pub sparse_super: bool,
    /// The journal waits to be replayed (ext4).
    pub needs_recovery: bool,
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

    /// Tells whether group `group` holds a copy of the superblock and
    /// descriptors.
    pub fn has_super(&self, group: u32) -> bool {
        if group <= 1 || !self.sparse_super {
            return true;
        }
        [3u32, 5, 7].iter().any(|&base| {
            let mut p = base;
            while p < group {
                p = match p.checked_mul(base) {
                    Some(v) => v,
                    None => return false,
                };
            }
            p == group
        })
    }

    /// Blocks of group descriptors (one copy).
    pub fn gdt_blocks(&self) -> u32 {
        (self.group_count as usize * self.desc_size).div_ceil(self.block_size) as u32
    }

    /// Largest file size: what the block map reaches, capped at 2 GiB - 1
    /// without `large_file` and by `i_blocks` (512-byte units in 32 bits).
    /// An extent-mapped file reaches 2^32 - 1 blocks.
    pub fn max_file_size_extents(&self) -> u64 {
        (u64::from(u32::MAX) - 1) * self.block_size as u64
    }

    /// Largest size of a file mapped by indirect blocks.
    pub fn max_file_size(&self) -> u64 {
        let p = self.ptrs_per_block();
        let blocks = N_DIRECT as u64 + p + p * p + p * p * p;
        let by_map = blocks * self.block_size as u64;
        let by_iblocks = (u64::from(u32::MAX) * 512).saturating_sub(self.block_size as u64 * (3 + p));
        let cap = if self.large_file { u64::MAX } else { (1u64 << 31) - 1 };
        by_map.min(by_iblocks).min(cap)
    }
}

pub(crate) struct CachedBlock {
    pub(crate) data: Vec<u8>,
    pub(crate) dirty: bool,
    /// Its checksum was checked since it was read.
    pub(crate) checked: bool,
}

/// Kinds of blocks that carry a checksum seeded by their inode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MetaKind {
    /// A directory leaf block (checksum in its tail).
    Dir,
    /// An extent-tree block.
    Extent,
}

/// Everything behind a file system's lock.
pub struct State {
    pub dev: Arc<dyn BlockDevice>,
    pub geo: Geometry,
    pub(crate) superblock: Vec<u8>,
    pub(crate) sb_dirty: bool,
    pub(crate) groups: Vec<GroupDesc>,
    pub(crate) gdt_raw: Vec<u8>,
    pub(crate) gdt_dirty: BTreeSet<u32>,
    pub(crate) cache: BTreeMap<u32, CachedBlock>,
    /// Blocks in `cache` changed since the last commit.
    pub(crate) dirty_blocks: usize,
    /// The page cache of regular files' data, by (inode, page index).
    pub pages: BTreeMap<(u32, u64), CachedPage>,
    /// Where cached pages come from.
    pub page_source: Arc<dyn PageSource>,
    /// Pages past which clean ones are dropped as new ones come in.
    pub page_limit: usize,
    /// Where dropping clean pages goes on from.
    pub evict_cursor: (u32, u64),
    /// The last read-ahead of `read`: (inode, the page after it, its
    /// size in pages); a miss there continues a sequential read.
    pub read_ahead: (u32, u64, u64),
    /// The time of the running operation, in seconds.
    pub now: u32,
    /// Its nanoseconds.
    pub now_nsec: u32,
    /// Changed blocks whose checksum is set at commit: kind and inode.
    pub(crate) meta_owner: BTreeMap<u32, (MetaKind, u32)>,
    /// Groups whose bitmap checksums are set at commit: (group, inode
    /// bitmap).
    pub(crate) stale_bitmaps: BTreeSet<(u32, bool)>,
    /// ext4's metadata overhead for statfs, counted at mount.
    ext4_overhead: u64,
    /// The JBD2 journal changes go through (`jbd2.rs`), on a read-write
    /// ext4 mount of a file system with one.
    pub(crate) journal: Option<crate::jbd2::Journal>,
    /// Inodes on the orphan list (`orphan.rs`).
    pub(crate) orphans: BTreeSet<u32>,
    /// What FITRIM remembers (`trim.rs`).
    pub(crate) trim: crate::trim::TrimState,
    /// Copies of recently used inode records (`icache.rs`): read_inode
    /// of a hot inode neither finds its block nor checks its checksum.
    pub(crate) icache: crate::icache::InodeCache,
    /// Indexes of recently searched directories (`names.rs`).
    pub(crate) names: crate::names::NameCache,
    /// Inodes whose record changed in its (dirty) inode-table block since
    /// the last commit: their checksum is set once, at commit
    /// (`seal_checksums`), not at every write that grows a file.
    pub(crate) unsealed_inodes: BTreeSet<u32>,
    /// Where the last search for a free run from a goal ended (goal,
    /// run found): the next search from the same goal starts there, so
    /// new files do not each scan past every block the earlier ones took
    /// (`find_free_run`).
    pub(crate) free_run_hint: (u32, u32),
    /// Moves whenever a block is freed or fallocate changes a file's map:
    /// a cached page found wholly mapped to written blocks under the
    /// current value needs no block lookup before it is overwritten
    /// ([`CachedPage::backed_at`]).
    pub(crate) map_epoch: u64,
    /// A record buffer [`State::read_inode`] reuses, so the per-call copy
    /// of a hot inode allocates nothing.
    pub(crate) spare_record: Vec<u8>,
}

fn mount_error(errno: Errno, message: String) -> MountError {
    MountError { errno, message }
}

impl State {
    /// Reads and checks the superblock and group descriptors. Returns the
    /// state and, when unknown read-only-compatible features force a
    /// read-only mount, why.
    pub fn load(dev: Arc<dyn BlockDevice>, read_only: bool, flavour: Flavour, page_source: Arc<dyn PageSource>, page_limit: usize) -> core::result::Result<(State, Option<String>), MountError> {
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
        let (inode_size, first_ino, incompat, ro_compat) = if rev == GOOD_OLD_REV {
            (GOOD_OLD_INODE_SIZE, GOOD_OLD_FIRST_INO, 0, 0)
        } else {
            (
                usize::from(le16(&superblock, sb::INODE_SIZE)),
                le32(&superblock, sb::FIRST_INO),
                le32(&superblock, sb::FEATURE_INCOMPAT),
                le32(&superblock, sb::FEATURE_RO_COMPAT),
            )
        };
        let (incompat_ok, ro_ok) = match flavour {
            Flavour::Ext2 => (INCOMPAT_SUPPORTED, RO_COMPAT_SUPPORTED),
            Flavour::Ext4 => (INCOMPAT_SUPPORTED_EXT4, RO_COMPAT_SUPPORTED_EXT4),
        };
        // A journal waiting to be replayed: this code does not replay it,
        // so the file system is only read (ext4), or refused (ext2, as
        // Linux's ext2 refuses it).
        let recover = incompat & INCOMPAT_RECOVER != 0 && flavour == Flavour::Ext4;
        let unknown = incompat & !incompat_ok & !(if recover { INCOMPAT_RECOVER } else { 0 });
        if unknown != 0 {
            return Err(mount_error(Errno::EINVAL, format!("unsupported incompatible features: {}", feature_names(unknown, &INCOMPAT_NAMES))));
        }
        if inode_size < GOOD_OLD_INODE_SIZE || inode_size > block_size || !inode_size.is_power_of_two() {
            return Err(mount_error(Errno::EINVAL, format!("bad inode size {}", inode_size)));
        }
        let metadata_csum = ro_compat & RO_COMPAT_METADATA_CSUM != 0 && flavour == Flavour::Ext4;
        if metadata_csum {
            if superblock[sb::CHECKSUM_TYPE] != 1 {
                return Err(mount_error(Errno::EINVAL, String::from("unknown metadata checksum algorithm")));
            }
            if le32(&superblock, sb::CHECKSUM) != csum::superblock(&superblock) {
                return Err(mount_error(Errno::EBADMSG, String::from("invalid superblock checksum")));
            }
        }
        let unknown_ro = ro_compat & !ro_ok;
        let forced = if read_only {
            None
        } else if recover {
            Some(String::from("the journal needs recovery (needs_recovery) and cannot be replayed on this device: mounting read-only"))
        } else if unknown_ro != 0 {
            Some(format!("unsupported read-only-compatible features: {}: mounting read-only", feature_names(unknown_ro, &RO_COMPAT_NAMES)))
        } else {
            None
        };
        let wide = incompat & INCOMPAT_64BIT != 0;
        if wide && le32(&superblock, sb::BLOCKS_COUNT_HI) != 0 {
            return Err(mount_error(Errno::EFBIG, String::from("file systems of 2^32 blocks or more are not supported")));
        }
        let desc_size = if wide { usize::from(le16(&superblock, sb::DESC_SIZE)) } else { GROUP_DESC_SIZE };
        if desc_size < GROUP_DESC_SIZE || desc_size > block_size || !desc_size.is_power_of_two() {
            return Err(mount_error(Errno::EINVAL, format!("bad group descriptor size {}", desc_size)));
        }
        let geo_partial = (
            le32(&superblock, sb::BLOCKS_COUNT),
            le32(&superblock, sb::INODES_COUNT),
            le32(&superblock, sb::FIRST_DATA_BLOCK),
            le32(&superblock, sb::BLOCKS_PER_GROUP),
            le32(&superblock, sb::INODES_PER_GROUP),
        );
        let (blocks_count, inodes_count, first_data_block, blocks_per_group, inodes_per_group) = geo_partial;
        // With bigalloc (read-only here) a bitmap bit is a cluster.
        let cluster_ratio = if ro_compat & RO_COMPAT_BIGALLOC != 0 { 1usize << le32(&superblock, sb::LOG_CLUSTER_SIZE).saturating_sub(log).min(16) } else { 1 };
        if blocks_per_group == 0 || inodes_per_group == 0 || blocks_count <= first_data_block || blocks_per_group as usize > 8 * block_size * cluster_ratio || inodes_per_group as usize > 8 * block_size {
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
            filetype: incompat & INCOMPAT_FILETYPE != 0,
            large_file: ro_compat & RO_COMPAT_LARGE_FILE != 0,
            gdt_block: first_data_block + 1,
            flavour,
            desc_size,
            extents: incompat & INCOMPAT_EXTENTS != 0,
            huge_file: ro_compat & RO_COMPAT_HUGE_FILE != 0 && flavour == Flavour::Ext4,
            csum_seed: metadata_csum.then(|| csum::fs_seed(&superblock)),
            reserved_gdt: u32::from(le16(&superblock, sb::RESERVED_GDT_BLOCKS)),
            sparse_super: ro_compat & RO_COMPAT_SPARSE_SUPER != 0,
            needs_recovery: recover,
        };
        let gdt_bytes = geo.gdt_blocks() as usize * block_size;
        let mut gdt_raw = vec![0u8; gdt_bytes];
        dev.read_sectors(u64::from(geo.gdt_block) * geo.sectors(sector), &mut gdt_raw)
            .map_err(|e| mount_error(e, String::from("cannot read the group descriptors")))?;
        let mut groups = Vec::with_capacity(group_count as usize);
        for i in 0..group_count as usize {
            let raw = &gdt_raw[i * desc_size..(i + 1) * desc_size];
            if let Some(seed) = geo.csum_seed {
                if le16(raw, gd::CHECKSUM) != csum::group_desc(seed, i as u32, raw) {
                    return Err(mount_error(Errno::EUCLEAN, format!("checksum of group descriptor {} is wrong", i)));
                }
            }
            let gd = GroupDesc::parse(raw, desc_size).ok_or_else(|| mount_error(Errno::EFBIG, format!("group descriptor {} points past 2^32 blocks", i)))?;
            let ok = |b: u32| b >= first_data_block && b < blocks_count;
            let table_blocks = (inodes_per_group as usize * inode_size).div_ceil(block_size) as u32;
            if !ok(gd.block_bitmap) || !ok(gd.inode_bitmap) || !ok(gd.inode_table) || gd.inode_table + table_blocks > blocks_count {
                return Err(mount_error(Errno::EINVAL, format!("corrupt group descriptor {}", i)));
            }
            groups.push(gd);
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
            read_ahead: (0, 0, 0),
            now: 0,
            now_nsec: 0,
            meta_owner: BTreeMap::new(),
            stale_bitmaps: BTreeSet::new(),
            ext4_overhead: 0,
            journal: None,
            orphans: BTreeSet::new(),
            trim: crate::trim::TrimState::default(),
            icache: crate::icache::InodeCache::new(inode_size),
            names: crate::names::NameCache::default(),
            unsealed_inodes: BTreeSet::new(),
            free_run_hint: (u32::MAX, 0),
            map_epoch: 1,
            spare_record: Vec::new(),
        };
        let mut state = state;
        if flavour == Flavour::Ext4 {
            state.ext4_overhead = state.compute_ext4_overhead();
        }
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

    /// Most hard links to one inode (a directory's subdirectories count
    /// too: directories here are never indexed after a change, and Linux
    /// gives EMLINK for an unindexed one at the same limit).
    pub fn link_max(&self) -> u16 {
        match self.geo.flavour {
            Flavour::Ext2 => LINK_MAX,
            Flavour::Ext4 => EXT4_LINK_MAX,
        }
    }

    /// Blocks Linux's ext4 keeps back from everyone (for unwritten
    /// extents and the like): 2% of the blocks, at most 4096, with extents.
    fn ext4_reserve(&self) -> u64 {
        if self.geo.flavour == Flavour::Ext4 && self.geo.extents {
            (u64::from(self.geo.blocks_count) / 50).min(4096)
        } else {
            0
        }
    }

    /// Returns what statfs reports.
    pub fn usage(&self) -> Usage {
        let free = u64::from(le32(&self.superblock, sb::FREE_BLOCKS));
        let reserved = u64::from(le32(&self.superblock, 8));
        // Linux's ext2 statfs subtracts the metadata overhead from the
        // total ("bsd df"); the groups' own metadata is what mke2fs used.
        let overhead: u64 = match self.geo.flavour {
            Flavour::Ext2 => u64::from(self.geo.first_data_block) + (0..self.geo.group_count).map(|g| u64::from(self.group_overhead(g))).sum::<u64>(),
            Flavour::Ext4 => self.ext4_overhead,
        };
        Usage {
            block_size: self.geo.block_size as u64,
            blocks: u64::from(self.geo.blocks_count) - overhead,
            free_blocks: free,
            available_blocks: free.saturating_sub(reserved + self.ext4_reserve()),
            inodes: u64::from(self.geo.inodes_count),
            free_inodes: u64::from(le32(&self.superblock, sb::FREE_INODES)),
        }
    }

    /// ext4's count of metadata blocks: `s_overhead_clusters`, else
    /// counted as Linux does without bigalloc: the
    /// first data block, each group's superblock and descriptor copies,
    /// bitmaps and inode table, and the journal.
    fn compute_ext4_overhead(&mut self) -> u64 {
        // mke2fs records it; Linux takes the recorded count when there is one.
        let recorded = le32(&self.superblock, sb::OVERHEAD_CLUSTERS);
        if recorded != 0 {
            return u64::from(recorded);
        }
        let table = (self.geo.inodes_per_group as usize * self.geo.inode_size).div_ceil(self.geo.block_size) as u64;
        let mut total = u64::from(self.geo.first_data_block);
        for g in 0..self.geo.group_count {
            if self.geo.has_super(g) {
                total += 1 + u64::from(self.geo.gdt_blocks());
            }
            total += 2 + table;
        }
        let journal = le32(&self.superblock, sb::JOURNAL_INUM);
        if le32(&self.superblock, sb::FEATURE_COMPAT) & COMPAT_HAS_JOURNAL != 0 && journal != 0 {
            if let Ok(inode) = self.read_inode(journal) {
                total += inode.size() / self.geo.block_size as u64;
            }
        }
        total
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
    pub(crate) fn cached(&mut self, b: u32) -> Result<&mut CachedBlock> {
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
            self.cache.insert(b, CachedBlock { data, dirty: false, checked: false });
        }
        Ok(self.cache.get_mut(&b).expect("just inserted"))
    }

    /// Returns a copy of block `b` of inode `ino` (a directory or extent
    /// block), its checksum checked the first time it is read. A wrong
    /// checksum is EBADMSG, as Linux's EFSBADCRC.
    pub fn checked_meta_block(&mut self, b: u32, kind: MetaKind, ino: u32, generation: u32) -> Result<Vec<u8>> {
        Ok(self.checked_meta_block_ref(b, kind, ino, generation)?.to_vec())
    }

    /// [`State::checked_meta_block`] without the copy: the block's bytes
    /// in the cache (directory lookups scan them in place).
    pub fn checked_meta_block_ref(&mut self, b: u32, kind: MetaKind, ino: u32, generation: u32) -> Result<&[u8]> {
        let seed = self.geo.csum_seed;
        let entry = self.cached(b)?;
        if let (Some(seed), false) = (seed, entry.checked || entry.dirty) {
            let iseed = csum::inode_seed(seed, ino, generation);
            let data = &entry.data;
            let ok = match kind {
                MetaKind::Extent => {
                    let tail = csum::extent_tail(data);
                    tail + 4 <= data.len() && le32(data, tail) == csum::extent_block(iseed, data)
                }
                // A block without a tail is an index block of a hashed
                // directory (its own checksum is in its dx tail) or a
                // block from before the feature: Linux warns and reads on.
                MetaKind::Dir => !csum::has_dir_tail(data) || le32(data, data.len() - 4) == csum::dir_block(iseed, data),
            };
            if !ok {
                return Err(Errno::EBADMSG);
            }
            entry.checked = true;
        }
        Ok(&entry.data)
    }

    /// Returns block `b` of inode `ino` for changing; its checksum is set
    /// at commit.
    pub fn meta_block_mut(&mut self, b: u32, kind: MetaKind, ino: u32) -> Result<&mut [u8]> {
        if self.geo.csum_seed.is_some() {
            self.meta_owner.insert(b, (kind, ino));
        }
        self.block_mut(b)
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
        self.meta_owner.remove(&b);
        if let Some(old) = self.cache.remove(&b) {
            if old.dirty {
                self.dirty_blocks = self.dirty_blocks.saturating_sub(1);
            }
        }
    }

    /// Tells whether so many blocks are changed that they should be
    /// written now rather than by the next flush.
    pub fn many_dirty_blocks(&self) -> bool {
        self.dirty_blocks > CACHE_BLOCKS || self.journal_full()
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
    pub(crate) fn zero_block(&mut self, b: u32) {
        let data = vec![0u8; self.geo.block_size];
        if !self.cache.insert(b, CachedBlock { data, dirty: true, checked: true }).is_some_and(|old| old.dirty) {
            self.dirty_blocks += 1;
        }
    }

    /// Writes every changed block, descriptor and the superblock, then
    /// trims the cache. On a failed write the rest stays dirty for the
    /// next commit.
    pub fn commit(&mut self) -> Result<()> {
        debug_assert_eq!(self.dirty_blocks, self.cache.values().filter(|c| c.dirty).count(), "dirty block count");
        if self.journal.is_some() {
            return self.commit_journaled();
        }
        self.seal_checksums()?;
        let sector = self.dev.sector_size();
        let per = self.geo.sectors(sector);
        let mut result = Ok(());
        // Without a journal, an order that leaves what e2fsck -p repairs
        // alone after a crash: blocks new inodes point at (directory,
        // indirect blocks) before the inodes, bitmaps before the inodes.
        let order = self.unjournaled_order();
        for b in order {
            let block = self.cache.get_mut(&b).expect("dirty block listed");
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
            if self.geo.csum_seed.is_some() {
                let c = csum::superblock(&self.superblock);
                put32(&mut self.superblock, sb::CHECKSUM, c);
            }
            match self.dev.write_sectors(SUPERBLOCK_OFFSET / sector as u64, &self.superblock) {
                Ok(()) => self.sb_dirty = false,
                Err(e) => result = Err(e),
            }
        }
        self.trim_cache();
        if result.is_ok() {
            self.discard_committed();
        }
        result
    }

    /// The dirty blocks in the order an unjournaled commit writes them:
    /// the others (directory, indirect, extent blocks), then bitmaps,
    /// then inode tables.
    fn unjournaled_order(&self) -> Vec<u32> {
        let table = (self.geo.inodes_per_group as usize * self.geo.inode_size).div_ceil(self.geo.block_size) as u32;
        let class = |b: u32| -> u8 {
            for gd in &self.groups {
                if b == gd.block_bitmap || b == gd.inode_bitmap {
                    return 1;
                }
                if b >= gd.inode_table && b < gd.inode_table + table {
                    return 2;
                }
            }
            0
        };
        let mut dirty: Vec<(u8, u32)> = self.cache.iter().filter(|(_, c)| c.dirty).map(|(&b, _)| (class(b), b)).collect();
        dirty.sort_unstable();
        dirty.into_iter().map(|(_, b)| b).collect()
    }

    /// Sets the checksums that wait for commit: bitmaps (in their
    /// descriptors), then directory and extent blocks.
    pub(crate) fn seal_checksums(&mut self) -> Result<()> {
        let Some(seed) = self.geo.csum_seed else { return Ok(()) };
        self.seal_inodes(seed)?;
        let stale: Vec<(u32, bool)> = core::mem::take(&mut self.stale_bitmaps).into_iter().collect();
        let wide = self.geo.desc_size >= GROUP_DESC_SIZE_64;
        for (group, inode_bitmap) in stale {
            let gd = self.groups[group as usize];
            let (block, bits, lo, hi) = if inode_bitmap {
                (gd.inode_bitmap, self.geo.inodes_per_group, gd::INODE_BITMAP_CSUM, gd::INODE_BITMAP_CSUM_HI)
            } else {
                (gd.block_bitmap, self.geo.blocks_per_group, gd::BLOCK_BITMAP_CSUM, gd::BLOCK_BITMAP_CSUM_HI)
            };
            let c = csum::bitmap(seed, self.block(block)?, bits);
            let off = group as usize * self.geo.desc_size;
            put16(&mut self.gdt_raw[off..], lo, c as u16);
            if wide {
                put16(&mut self.gdt_raw[off..], hi, (c >> 16) as u16);
            }
            self.group_changed(group);
        }
        let owned: Vec<(u32, (MetaKind, u32))> = self.meta_owner.iter().map(|(&b, &o)| (b, o)).collect();
        for (b, (kind, ino)) in owned {
            if !self.cache.get(&b).is_some_and(|c| c.dirty) {
                self.meta_owner.remove(&b);
                continue;
            }
            let generation = self.read_inode(ino)?.get(ino::GENERATION);
            let iseed = csum::inode_seed(seed, ino, generation);
            let data = &mut self.cache.get_mut(&b).expect("checked above").data;
            match kind {
                MetaKind::Extent => {
                    let tail = csum::extent_tail(data);
                    if tail + 4 <= data.len() {
                        let c = csum::extent_block(iseed, data);
                        put32(data, tail, c);
                    }
                }
                MetaKind::Dir => {
                    if csum::has_dir_tail(data) {
                        let c = csum::dir_block(iseed, data);
                        let n = data.len();
                        put32(data, n - 4, c);
                    }
                }
            }
            self.meta_owner.remove(&b);
        }
        Ok(())
    }

    // ----- group descriptors and superblock counters -----

    pub(crate) fn group_changed(&mut self, group: u32) {
        let size = self.geo.desc_size;
        let off = group as usize * size;
        let gd = self.groups[group as usize];
        let raw = &mut self.gdt_raw[off..off + size];
        gd.store_counts(raw, size);
        if let Some(seed) = self.geo.csum_seed {
            let c = csum::group_desc(seed, group, raw);
            put16(raw, gd::CHECKSUM, c);
        }
        self.gdt_dirty.insert((off / self.geo.block_size) as u32);
    }

    pub(crate) fn adjust_sb(&mut self, field: usize, delta: i32) {
        let v = le32(&self.superblock, field);
        put32(&mut self.superblock, field, v.wrapping_add_signed(delta));
        self.sb_dirty = true;
    }

    // ----- block maps -----

    /// Returns where in the tree logical block `lblk` lives: the `i_block`
    /// slot, the depth below it, and the index within that subtree.
    pub(crate) fn map_path(&self, lblk: u64) -> Result<(usize, u32, u64)> {
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
        if self.uses_extents(inode) {
            return self.extent_bmap(inode, ino, lblk, alloc);
        }
        let (slot, depth, mut index) = self.map_path(lblk)?;
        let goal = self.group_of(ino);
        let sectors = (self.geo.block_size / 512) as i64;
        let mut b = inode.block(slot);
        if b == 0 {
            if !alloc {
                return Ok(0);
            }
            b = self.alloc_block(goal)?;
            inode.set_block(slot, b);
            self.add_iblocks(inode, sectors);
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
                self.add_iblocks(inode, sectors);
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
    pub fn free_blocks_from(&mut self, inode: &mut DiskInode, ino: u32, keep: u64) -> Result<()> {
        if self.uses_extents(inode) {
            return self.extent_free_from(inode, ino, keep);
        }
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
        self.add_iblocks(inode, -(sectors as i64));
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

    /// Largest size of this file (by how it maps its blocks).
    pub fn max_size_of(&self, inode: &DiskInode) -> u64 {
        if self.uses_extents(inode) {
            self.geo.max_file_size_extents()
        } else {
            self.geo.max_file_size()
        }
    }

    /// Sets a regular file's size: frees blocks past it and zeroes the
    /// tail of the last block, so growing it again shows zeros.
    pub fn truncate(&mut self, ino: u32, inode: &mut DiskInode, len: u64) -> Result<()> {
        if len > self.max_size_of(inode) {
            return Err(Errno::EFBIG);
        }
        let bs = self.geo.block_size as u64;
        let old = inode.size();
        if len < old {
            self.shrink_pages(ino, inode, len)?;
            self.free_blocks_from(inode, ino, len.div_ceil(bs))?;
        }
        inode.set_size(len);
        Ok(())
    }
}

/// The offset of a timestamp's extra field.
pub(crate) fn extra_of(field: usize) -> usize {
    match field {
        ino::ATIME => ino::ATIME_EXTRA,
        ino::CTIME => ino::CTIME_EXTRA,
        ino::MTIME => ino::MTIME_EXTRA,
        _ => ino::CRTIME_EXTRA,
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

pub(crate) fn get_bit(bitmap: &[u8], i: usize) -> bool {
    bitmap[i / 8] & (1 << (i % 8)) != 0
}

pub(crate) fn set_bit(bitmap: &mut [u8], i: usize, on: bool) {
    if on {
        bitmap[i / 8] |= 1 << (i % 8);
    } else {
        bitmap[i / 8] &= !(1 << (i % 8));
    }
}

/// Returns the first clear bit below `count`.
pub(crate) fn find_zero(bitmap: &[u8], count: usize) -> Option<usize> {
    let full = count / 8;
    if let Some(byte) = bitmap[..full].iter().position(|&b| b != 0xff) {
        let bit = (!bitmap[byte]).trailing_zeros() as usize;
        return Some(byte * 8 + bit);
    }
    (full * 8..count).find(|&i| !get_bit(bitmap, i))
}
