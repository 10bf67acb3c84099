//! Directories: linear lists of entries in blocks; with `metadata_csum`
//! each leaf block ends in a checksum tail. Hashed-tree (`dir_index`)
//! directories are read by scanning their leaves (the index blocks look
//! like empty entries); a change to one drops the index, as Linux does
//! when it cannot keep it, so the directory is linear from then on.

use alloc::vec::Vec;

use kevlar_vfs::{Errno, Result};

use crate::csum;
use crate::layout::*;
use crate::names::{DirIndex, Found, NameCache};
use crate::state::{MetaKind, State};

impl State {
    // ----- directories -----

    /// Returns the number of blocks of a directory.
    fn dir_blocks(&self, inode: &DiskInode) -> u64 {
        inode.size() / self.geo.block_size as u64
    }

    /// Returns the disk block of logical block `lblk` of directory `ino`
    /// (EIO for a hole: directories have none).
    fn dir_block_number(&mut self, ino: u32, inode: &mut DiskInode, lblk: u64) -> Result<u32> {
        match self.bmap(inode, ino, lblk, false)? {
            0 => Err(Errno::EIO),
            b => Ok(b),
        }
    }

    /// Returns the entries of logical block `lblk` of directory `ino`.
    fn dir_block_entries(&mut self, ino: u32, inode: &mut DiskInode, lblk: u64) -> Result<(u32, Vec<RawDirent>)> {
        let b = self.dir_block_number(ino, inode, lblk)?;
        let filetype = self.geo.filetype;
        let data = self.checked_meta_block(b, MetaKind::Dir, ino, inode.get(ino::GENERATION))?;
        let mut entries = parse_dir_block(&data, filetype).ok_or(Errno::EUCLEAN)?;
        // The checksum tail is no entry.
        if self.geo.csum_seed.is_some() && csum::has_dir_tail(&data) {
            entries.pop();
        }
        Ok((b, entries))
    }

    /// [`State::dir_block_entries`] without copying: the block's number,
    /// and `visit`'s answer for the first entry it answers for (the
    /// checksum tail left out).
    fn scan_dir_block<T>(&mut self, ino: u32, inode: &mut DiskInode, lblk: u64, mut visit: impl FnMut(&DirentRef) -> Option<T>) -> Result<(u32, Option<T>)> {
        let b = self.bmap(inode, ino, lblk, false)?;
        if b == 0 {
            return Err(Errno::EIO);
        }
        let filetype = self.geo.filetype;
        let csums = self.geo.csum_seed.is_some();
        let data = self.checked_meta_block_ref(b, MetaKind::Dir, ino, inode.get(ino::GENERATION))?;
        let tail = (csums && csum::has_dir_tail(data)).then(|| data.len() - csum::DIR_TAIL);
        let mut found = None;
        let sound = visit_dir_block(data, filetype, |e| {
            if Some(e.offset) == tail {
                return false;
            }
            found = visit(&e);
            found.is_none()
        });
        if !sound {
            return Err(Errno::EUCLEAN);
        }
        Ok((b, found))
    }

    /// Bytes of a directory block entries may use (all but the checksum
    /// tail).
    fn dir_space(&self) -> usize {
        self.geo.block_size - if self.geo.csum_seed.is_some() { csum::DIR_TAIL } else { 0 }
    }

    /// Drops a directory's hashed index before a change (this code does
    /// not keep the index up to date). With checksums, the index blocks
    /// become empty leaf blocks with tails, and the first block holds `.`
    /// and `..` only, so the directory is a valid linear one.
    fn drop_index(&mut self, dir: u32, inode: &mut DiskInode) -> Result<()> {
        let flags = inode.get(ino::FLAGS);
        if flags & INDEX_FL == 0 {
            return Ok(());
        }
        inode.set(ino::FLAGS, flags & !INDEX_FL);
        if self.geo.csum_seed.is_some() {
            let bs = self.geo.block_size;
            let space = self.dir_space();
            let filetype = self.geo.filetype;
            let dir_code = if filetype { ft::DIR } else { 0 };
            for lblk in 0..self.dir_blocks(inode) {
                let b = self.bmap(inode, dir, lblk, false)?;
                if b == 0 {
                    return Err(Errno::EUCLEAN);
                }
                let data = self.block(b)?.to_vec();
                if csum::has_dir_tail(&data) {
                    continue;
                }
                if lblk == 0 {
                    let parent = le32(&data, 12);
                    let block = self.meta_block_mut(b, MetaKind::Dir, dir)?;
                    block.fill(0);
                    write_dirent(block, 0, dir, 12, b".", dir_code, filetype);
                    write_dirent(block, 12, parent, space - 12, b"..", dir_code, filetype);
                    csum::init_dir_tail(block);
                } else if le32(&data, 0) == 0 && usize::from(le16(&data, 4)) == bs {
                    let block = self.meta_block_mut(b, MetaKind::Dir, dir)?;
                    block.fill(0);
                    put16(block, 4, space as u16);
                    csum::init_dir_tail(block);
                }
            }
        }
        self.write_inode(dir, inode)
    }

    /// Finds `name` in directory `dir`: (inode, type code, block, offset).
    /// Answered by the directory's name index when it has one; otherwise
    /// the blocks are scanned, and the index built on the way (`names.rs`).
    pub fn find_entry(&mut self, dir: u32, name: &[u8]) -> Result<Option<(u32, u8, u32, usize)>> {
        if let Some(hit) = self.names.lookup(dir, name) {
            return Ok(hit.map(|f| (f.ino, f.code, f.block, f.offset)));
        }
        let mut found = None;
        let mut index = Some(DirIndex::new());
        match self.scan_for_entry(dir, name, &mut found, &mut index) {
            Ok(()) => {
                if let Some(index) = index {
                    self.names.install(dir, index);
                }
                Ok(found)
            }
            // A damaged block past the entry: the entry is still found,
            // as by a scan that stops there; no index is kept.
            Err(_) if found.is_some() => Ok(found),
            Err(e) => Err(e),
        }
    }

    /// Scans directory `dir` for `name` into `found`, and every live
    /// entry into `index` while it stays small enough to keep (then
    /// `None`, and the scan stops at the entry).
    fn scan_for_entry(&mut self, dir: u32, name: &[u8], found: &mut Option<(u32, u8, u32, usize)>, index: &mut Option<DirIndex>) -> Result<()> {
        let mut inode = self.read_inode(dir)?;
        let filetype = self.geo.filetype;
        let generation = inode.get(ino::GENERATION);
        for lblk in 0..self.dir_blocks(&inode) {
            let b = self.dir_block_number(dir, &mut inode, lblk)?;
            let data = self.checked_meta_block_ref(b, MetaKind::Dir, dir, generation)?;
            if !visit_dir_block(data, filetype, |e| {
                if e.inode != 0 {
                    if found.is_none() && e.name == name {
                        *found = Some((e.inode, e.file_type, b, e.offset));
                    }
                    if let Some(ix) = index {
                        ix.insert(e.name, Found { ino: e.inode, code: e.file_type, block: b, offset: e.offset });
                        if !NameCache::fits(ix) {
                            *index = None;
                        }
                    }
                }
                index.is_some() || found.is_none()
            }) {
                return Err(Errno::EUCLEAN);
            }
            if index.is_none() && found.is_some() {
                break;
            }
        }
        Ok(())
    }

    /// Returns the first live entry at or after byte position `pos` of
    /// directory `dir`, with the position after it.
    pub fn entry_at(&mut self, dir: u32, pos: u64) -> Result<Option<(RawDirent, u64)>> {
        Ok(self.entries_from(dir, pos, 1)?.pop())
    }

    /// Returns up to `max` live entries of directory `dir` from byte
    /// position `pos` on, each with the position after it: one pass over
    /// the blocks (a listing reads each block once, not once per entry).
    pub fn entries_from(&mut self, dir: u32, pos: u64, max: usize) -> Result<Vec<(RawDirent, u64)>> {
        let mut inode = self.read_inode(dir)?;
        let bs = self.geo.block_size as u64;
        let filetype = self.geo.filetype;
        let generation = inode.get(ino::GENERATION);
        let mut out = Vec::new();
        let mut lblk = pos / bs;
        while lblk < self.dir_blocks(&inode) && out.len() < max {
            let b = self.dir_block_number(dir, &mut inode, lblk)?;
            let data = self.checked_meta_block_ref(b, MetaKind::Dir, dir, generation)?;
            let base = lblk * bs;
            if !visit_dir_block(data, filetype, |e| {
                if base + e.offset as u64 >= pos && e.inode != 0 {
                    out.push((e.to_owned(), base + (e.offset + e.rec_len) as u64));
                }
                out.len() < max
            }) {
                return Err(Errno::EUCLEAN);
            }
            lblk += 1;
        }
        Ok(out)
    }

    /// Adds entry `name` -> `target` to directory `dir`, reusing slack in
    /// an existing block or adding a block; the directory's name index
    /// follows (forgotten if the change fails halfway).
    pub fn add_entry(&mut self, dir: u32, name: &[u8], target: u32, type_code: u8) -> Result<()> {
        let code = if self.geo.filetype { type_code } else { 0 };
        match self.add_entry_on_disk(dir, name, target, type_code) {
            Ok((block, offset)) => {
                self.names.added(dir, name, Found { ino: target, code, block, offset });
                Ok(())
            }
            Err(e) => {
                self.names.forget(dir);
                Err(e)
            }
        }
    }

    /// [`State::add_entry`]'s change of the blocks: where the entry went.
    fn add_entry_on_disk(&mut self, dir: u32, name: &[u8], target: u32, type_code: u8) -> Result<(u32, usize)> {
        let mut inode = self.read_inode(dir)?;
        self.drop_index(dir, &mut inode)?;
        let need = dirent_size(name.len());
        let filetype = self.geo.filetype;
        let type_code = if filetype { type_code } else { 0 };
        let blocks = self.dir_blocks(&inode);
        for lblk in 0..blocks {
            let (b, found) = self.scan_dir_block(dir, &mut inode, lblk, |e| {
                let used = if e.inode == 0 { 0 } else { dirent_size(e.name.len()) };
                (e.rec_len - used >= need).then_some(((e.offset, e.inode, e.rec_len), used))
            })?;
            if let Some(((offset, entry_inode, rec_len), used)) = found {
                let block = self.meta_block_mut(b, MetaKind::Dir, dir)?;
                let at = if entry_inode == 0 {
                    write_dirent(block, offset, target, rec_len, name, type_code, filetype);
                    offset
                } else {
                    put16(block, offset + 4, used as u16);
                    write_dirent(block, offset + used, target, rec_len - used, name, type_code, filetype);
                    offset + used
                };
                return self.touch_dir(dir, &mut inode).map(|()| (b, at));
            }
        }
        let b = self.bmap(&mut inode, dir, blocks, true)?;
        let bs = self.geo.block_size;
        let space = self.dir_space();
        let csums = self.geo.csum_seed.is_some();
        let block = self.meta_block_mut(b, MetaKind::Dir, dir)?;
        // A new block may hold a freed file's bytes: zero it first.
        block.fill(0);
        write_dirent(block, 0, target, space, name, type_code, filetype);
        if csums {
            csum::init_dir_tail(block);
        }
        inode.set_size((blocks + 1) * bs as u64);
        self.touch_dir(dir, &mut inode).map(|()| (b, 0))
    }

    /// Records a change of directory `dir`: times, and the hashed index
    /// flag dropped (this code does not maintain the index).
    fn touch_dir(&mut self, dir: u32, inode: &mut DiskInode) -> Result<()> {
        self.stamp(inode, &[ino::MTIME, ino::CTIME]);
        let flags = inode.get(ino::FLAGS);
        inode.set(ino::FLAGS, flags & !INDEX_FL);
        self.write_inode(dir, inode)
    }

    /// Removes entry `name` from directory `dir` (merging its space into
    /// the previous entry of its block); returns the inode it named. The
    /// name index follows.
    pub fn remove_entry(&mut self, dir: u32, name: &[u8]) -> Result<u32> {
        let removed = self.remove_entry_on_disk(dir, name);
        match removed {
            Ok(_) => self.names.removed(dir, name),
            Err(_) => self.names.forget(dir),
        }
        removed
    }

    fn remove_entry_on_disk(&mut self, dir: u32, name: &[u8]) -> Result<u32> {
        let mut inode = self.read_inode(dir)?;
        self.drop_index(dir, &mut inode)?;
        // The entry's block from the index (or a scan); only that block
        // is parsed, for the entry before it.
        let (target, _, b, off) = self.find_entry(dir, name)?.ok_or(Errno::ENOENT)?;
        let data = self.checked_meta_block(b, MetaKind::Dir, dir, inode.get(ino::GENERATION))?;
        let entries = parse_dir_block(&data, self.geo.filetype).ok_or(Errno::EUCLEAN)?;
        let i = entries.iter().position(|e| e.offset == off && e.inode == target).ok_or(Errno::EUCLEAN)?;
        let block = self.meta_block_mut(b, MetaKind::Dir, dir)?;
        if i == 0 {
            put32(block, entries[0].offset, 0);
        } else {
            let prev = &entries[i - 1];
            put16(block, prev.offset + 4, (prev.rec_len + entries[i].rec_len) as u16);
        }
        self.touch_dir(dir, &mut inode)?;
        Ok(target)
    }

    /// Points existing entry `name` of `dir` at `target`; the name index
    /// follows.
    pub fn retarget_entry(&mut self, dir: u32, name: &[u8], target: u32, type_code: u8) -> Result<()> {
        let done = self.retarget_entry_on_disk(dir, name, target, type_code);
        match done {
            Ok(code) => self.names.retargeted(dir, name, target, code),
            Err(_) => self.names.forget(dir),
        }
        done.map(|_| ())
    }

    /// [`State::retarget_entry`]'s change of the block: the entry's type
    /// code now.
    fn retarget_entry_on_disk(&mut self, dir: u32, name: &[u8], target: u32, type_code: u8) -> Result<u8> {
        let mut inode = self.read_inode(dir)?;
        self.drop_index(dir, &mut inode)?;
        let (_, old_code, b, off) = self.find_entry(dir, name)?.ok_or(Errno::ENOENT)?;
        let filetype = self.geo.filetype;
        let block = self.meta_block_mut(b, MetaKind::Dir, dir)?;
        put32(block, off, target);
        if filetype {
            block[off + 7] = type_code;
        }
        let mut inode = self.read_inode(dir)?;
        self.touch_dir(dir, &mut inode)?;
        Ok(if filetype { type_code } else { old_code })
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
        let space = self.dir_space();
        let csums = self.geo.csum_seed.is_some();
        let filetype = self.geo.filetype;
        let dir_code = if filetype { ft::DIR } else { 0 };
        let block = self.meta_block_mut(b, MetaKind::Dir, ino)?;
        // A new block may hold a freed file's bytes: e2fsck wants the
        // padding after `.` and `..` zero ("not NULL terminated").
        block.fill(0);
        write_dirent(block, 0, ino, 12, b".", dir_code, filetype);
        write_dirent(block, 12, parent, space - 12, b"..", dir_code, filetype);
        if csums {
            csum::init_dir_tail(block);
        }
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
        self.stamp(&mut inode, &[ino::CTIME]);
        self.write_inode(ino, &inode)?;
        Ok(links)
    }
}
