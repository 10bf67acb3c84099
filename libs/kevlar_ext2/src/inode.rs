//! Inodes: reading and writing records (with their checksums), times
//! (ext4's nanoseconds), `i_blocks`, creation and freeing.

use kevlar_vfs::{Errno, Result};
use linux_raw_sys::general as g;

use crate::csum;
use crate::layout::*;
use crate::state::{extra_of, State};
use crate::Flavour;

/// `a == b`, eight bytes at a time (the byte-wise `memcmp` of a kernel
/// without SIMD would cost as much as the checksum).
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len()
        && a.chunks_exact(8).zip(b.chunks_exact(8)).all(|(x, y)| u64::from_ne_bytes(x.try_into().unwrap_or([0; 8])) == u64::from_ne_bytes(y.try_into().unwrap_or([1; 8])))
        && a.chunks_exact(8).remainder() == b.chunks_exact(8).remainder()
}

/// Inode-table blocks read together when one is missing (Linux's
/// `inode_readahead_blks` default).
pub const INODE_READAHEAD_BLOCKS: u32 = 32;

impl State {
    // ----- inodes -----

    /// Before inode `ino`'s table block `block`, not cached, is read: reads
    /// in the same request the other uncached blocks of its aligned
    /// [`INODE_READAHEAD_BLOCKS`] window of the group's table that hold
    /// inodes in use, as Linux's `__ext4_get_inode_loc` reads ahead. A
    /// program start stats and opens many files of a few directories,
    /// whose inodes sit next to each other; one request instead of one
    /// each. A failed read is left to the block's own read, which reports
    /// it.
    fn read_inode_table_around(&mut self, ino: u32, block: u32) {
        let group = ((ino - 1) / self.geo.inodes_per_group) as usize;
        let Some(gd) = self.groups.get(group) else { return };
        let table = gd.inode_table;
        let per_block = (self.geo.block_size / self.geo.inode_size).max(1) as u32;
        let in_use = self.geo.inodes_per_group.saturating_sub(gd.itable_unused);
        let used_end = table.saturating_add(in_use.div_ceil(per_block)).max(block + 1);
        let start = (block & !(INODE_READAHEAD_BLOCKS - 1)).max(table);
        let end = start.saturating_add(INODE_READAHEAD_BLOCKS).min(used_end).min(self.geo.blocks_count);
        let Some(first) = (start..end).find(|b| !self.cache.contains_key(b)) else { return };
        let Some(last) = (first..end).rev().find(|b| !self.cache.contains_key(b)) else { return };
        if last == first {
            return; // only the block itself: its own read
        }
        let count = (last - first + 1) as usize;
        if self.cache.len() + count >= 2 * crate::CACHE_BLOCKS {
            self.trim_cache();
        }
        let bs = self.geo.block_size;
        let sector = self.dev.sector_size();
        let mut buf = alloc::vec![0u8; count * bs];
        if self.dev.read_sectors(u64::from(first) * (bs / sector) as u64, &mut buf).is_err() {
            return;
        }
        for (k, data) in buf.chunks_exact(bs).enumerate() {
            // A block already cached may be changed there: it stays.
            self.cache.entry(first + k as u32).or_insert_with(|| crate::state::CachedBlock { data: data.to_vec(), dirty: false, checked: false });
        }
    }

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

    /// Reads inode `ino` (the whole record), its checksum checked when it
    /// comes from its block; a record in the inode cache is the block's
    /// current bytes, already checked or written here.
    pub fn read_inode(&mut self, ino: u32) -> Result<DiskInode> {
        let mut buf = core::mem::take(&mut self.spare_record);
        if let Some(record) = self.icache.get(ino) {
            buf.clear();
            buf.extend_from_slice(record);
            return Ok(DiskInode(buf));
        }
        self.spare_record = buf;
        let (block, off) = self.inode_location(ino)?;
        let size = self.geo.inode_size;
        if !self.cache.contains_key(&block) {
            self.read_inode_table_around(ino, block);
        }
        let data = self.block(block)?;
        let inode = DiskInode(data[off..off + size].to_vec());
        // A record changed since the last commit has no checksum yet (it
        // gets one at commit): nothing to check.
        if let Some(seed) = self.geo.csum_seed {
            if !self.unsealed_inodes.contains(&ino) && !csum::inode_ok(seed, ino, &inode.0) {
                return Err(Errno::EBADMSG);
            }
        }
        self.icache.put(ino, &inode.0);
        Ok(inode)
    }

    /// Gives back a record [`State::read_inode`] returned, once it is no
    /// longer needed: the next read reuses its buffer.
    pub(crate) fn recycle_inode(&mut self, inode: DiskInode) {
        self.spare_record = inode.0;
    }

    /// The size of inode `ino`, read in place from the inode cache when it
    /// holds the record (nothing copied), else through `read_inode`.
    pub(crate) fn inode_size(&mut self, ino: u32) -> Result<u64> {
        if let Some(record) = self.icache.get(ino) {
            return Ok(record_size(record));
        }
        let inode = self.read_inode(ino)?;
        let size = inode.size();
        self.recycle_inode(inode);
        Ok(size)
    }

    /// Writes inode `ino` (the whole record, with its checksum).
    pub fn write_inode(&mut self, ino: u32, inode: &DiskInode) -> Result<()> {
        let (block, off) = self.inode_location(ino)?;
        let size = self.geo.inode_size.min(inode.0.len());
        let seed = self.geo.csum_seed;
        // Unchanged (a write within the timestamps' granularity that
        // neither grew the file nor allocated): the block stays clean and
        // the checksum, already right, is not computed again. The cached
        // copy, when there is one, is the block's bytes.
        if inode.0.len() >= self.geo.inode_size {
            let unchanged = match self.icache.get(ino) {
                Some(record) => same_bytes(record, &inode.0[..size]),
                None => same_bytes(&self.block(block)?[off..off + size], &inode.0[..size]),
            };
            if unchanged {
                return Ok(());
            }
        }
        let data = self.block_mut(block)?;
        data[off..off + size].copy_from_slice(&inode.0[..size]);
        if size == self.geo.inode_size {
            self.icache.put(ino, &inode.0[..size]);
        } else {
            self.icache.forget(ino);
        }
        if seed.is_some() {
            // The checksum is set at commit (`seal_inodes`), once for
            // all the changes until then: a log line appended per request
            // changes the size every time. The block is dirty, so it
            // stays in the cache until then.
            self.unsealed_inodes.insert(ino);
        }
        Ok(())
    }

    /// Sets the checksum of every inode record changed since the last
    /// commit (before any block goes to the log or the disk).
    pub(crate) fn seal_inodes(&mut self, seed: u32) -> Result<()> {
        let size = self.geo.inode_size;
        for ino in core::mem::take(&mut self.unsealed_inodes) {
            let (block, off) = self.inode_location(ino)?;
            let data = self.block_mut(block)?;
            csum::seal_inode(seed, ino, &mut data[off..off + size]);
            // The cached copy takes the checksum too.
            let sealed = alloc::vec::Vec::from(&data[off..off + size]);
            self.icache.update(ino, &sealed);
        }
        Ok(())
    }

    /// Sets the time of the running operation.
    pub fn set_now(&mut self, t: kevlar_vfs::Timespec) {
        self.now = t.sec.clamp(0, i64::from(u32::MAX)) as u32;
        self.now_nsec = if t.sec < 0 { 0 } else { t.nsec.clamp(0, 999_999_999) as u32 };
    }

    /// Tells whether the mount keeps nanoseconds in large inodes.
    fn nsec_times(&self) -> bool {
        self.geo.flavour == Flavour::Ext4
    }

    /// Returns a timestamp of `inode` (`field`: ATIME, CTIME, MTIME),
    /// with ext4's extra field (nanoseconds, epoch bits) when it has one.
    pub fn inode_time(&self, inode: &DiskInode, field: usize) -> kevlar_vfs::Timespec {
        let raw = inode.get(field);
        let extra_off = extra_of(field);
        if self.nsec_times() && inode.has_extra(extra_off) {
            let extra = inode.get(extra_off);
            let sec = i64::from(raw as i32) + (i64::from(extra & 3) << 32);
            return kevlar_vfs::Timespec::new(sec, (extra >> 2).min(999_999_999));
        }
        match self.geo.flavour {
            Flavour::Ext2 => kevlar_vfs::Timespec::new(i64::from(raw), 0),
            Flavour::Ext4 => kevlar_vfs::Timespec::new(i64::from(raw as i32), 0),
        }
    }

    /// Sets a timestamp of `inode`.
    pub fn set_inode_time(&self, inode: &mut DiskInode, field: usize, t: kevlar_vfs::Timespec) {
        let extra_off = extra_of(field);
        if self.nsec_times() && inode.has_extra(extra_off) {
            // The range ext4 can encode: 1901 to 2446.
            let sec = t.sec.clamp(-(1 << 31), (1 << 34) - (1 << 31) - 1);
            let epoch = ((sec - i64::from(sec as i32)) >> 32) as u32 & 3;
            inode.set(field, sec as i32 as u32);
            inode.set(extra_off, (t.nsec.clamp(0, 999_999_999) as u32) << 2 | epoch);
        } else if self.geo.flavour == Flavour::Ext4 {
            inode.set(field, t.sec.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32 as u32);
        } else {
            inode.set(field, t.sec.clamp(0, i64::from(u32::MAX)) as u32);
        }
    }

    /// Sets timestamps of `inode` to the running operation's time.
    pub fn stamp(&self, inode: &mut DiskInode, fields: &[usize]) {
        let now = kevlar_vfs::Timespec::new(i64::from(self.now), self.now_nsec);
        for &f in fields {
            self.set_inode_time(inode, f, now);
        }
    }

    /// Returns `i_blocks` in 512-byte units.
    pub fn iblocks(&self, inode: &DiskInode) -> u64 {
        let low = u64::from(inode.get(ino::BLOCKS));
        if !self.geo.huge_file {
            return low;
        }
        let v = low | u64::from(le16(&inode.0, ino::BLOCKS_HIGH)) << 32;
        if inode.get(ino::FLAGS) & HUGE_FILE_FL != 0 {
            v * (self.geo.block_size / 512) as u64
        } else {
            v
        }
    }

    /// Sets `i_blocks` in 512-byte units (the huge_file flag, meaning
    /// units of blocks, is dropped).
    pub fn set_iblocks(&self, inode: &mut DiskInode, v: u64) {
        if self.geo.huge_file {
            inode.set(ino::BLOCKS, v as u32);
            put16(&mut inode.0, ino::BLOCKS_HIGH, (v >> 32) as u16);
            let flags = inode.get(ino::FLAGS);
            inode.set(ino::FLAGS, flags & !HUGE_FILE_FL);
        } else {
            inode.set(ino::BLOCKS, v.min(u64::from(u32::MAX)) as u32);
        }
    }

    /// Adds `delta` 512-byte units to `i_blocks`.
    pub fn add_iblocks(&self, inode: &mut DiskInode, delta: i64) {
        let v = self.iblocks(inode).saturating_add_signed(delta);
        self.set_iblocks(inode, v);
    }

    /// Tells whether an inode maps its blocks by an extent tree.
    pub fn uses_extents(&self, inode: &DiskInode) -> bool {
        self.geo.flavour == Flavour::Ext4 && inode.get(ino::FLAGS) & EXTENTS_FL != 0
    }

    /// Allocates and initialises an inode; the whole on-disk record is
    /// zeroed first. On ext4, large inodes get Linux's extra size and
    /// regular files and directories an empty extent tree (with the
    /// extent feature).
    pub fn new_inode(&mut self, goal_group: u32, mode: u32, uid: u32, gid: u32) -> Result<(u32, DiskInode)> {
        let is_dir = mode & g::S_IFMT == g::S_IFDIR;
        let ino = self.alloc_inode(goal_group, is_dir)?;
        self.names.forget(ino);
        let mut inode = DiskInode::zeroed(self.geo.inode_size);
        inode.set_mode(mode as u16);
        inode.set_uid(uid);
        inode.set_gid(gid);
        if self.geo.flavour == Flavour::Ext4 {
            if self.geo.inode_size > GOOD_OLD_INODE_SIZE {
                put16(&mut inode.0, ino::EXTRA_ISIZE, WANT_EXTRA_ISIZE.min((self.geo.inode_size - GOOD_OLD_INODE_SIZE) as u16));
            }
            let t = mode & g::S_IFMT;
            if self.geo.extents && (t == g::S_IFREG || t == g::S_IFDIR) {
                inode.set(ino::FLAGS, EXTENTS_FL);
                crate::extent::init_root(&mut inode);
            }
        }
        self.stamp(&mut inode, &[ino::ATIME, ino::CTIME, ino::MTIME]);
        if inode.has_extra(ino::CRTIME_EXTRA) {
            self.stamp(&mut inode, &[ino::CRTIME]);
        }
        self.write_inode(ino, &inode)?;
        Ok((ino, inode))
    }

    /// Frees an inode whose last link went: its blocks, then its number.
    pub fn destroy_inode(&mut self, ino: u32) -> Result<()> {
        // A directory's name index goes with it (the number may come
        // back as another directory).
        self.names.forget(ino);
        self.orphan_del(ino)?;
        let mut inode = self.read_inode(ino)?;
        if inode.mode() == 0 || inode.get(ino::DTIME) != 0 {
            return Ok(());
        }
        let is_dir = u32::from(inode.mode()) & g::S_IFMT == g::S_IFDIR;
        self.drop_file_pages(ino, 0);
        if self.has_data_blocks(&inode) {
            self.free_blocks_from(&mut inode, ino, 0)?;
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
        self.set_iblocks(&mut inode, 0);
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
        let ea_sectors = if inode.get(ino::FILE_ACL) != 0 { (self.geo.block_size / 512) as u64 } else { 0 };
        self.iblocks(inode) == ea_sectors
    }

}
