//! [`Ext2Node`]: an inode of a mounted ext2 file system as a
//! [`kevlar_vfs::Inode`].

use alloc::sync::Arc;
use alloc::vec::Vec;
use core::any::Any;
use core::sync::atomic::{AtomicU32, Ordering};

use kevlar_vfs::{DirEntry, DirEntryRef, Errno, FileType, Inode, RenameFlags, Result, SetAttr, Stat, NAME_MAX, PATH_MAX};
use linux_raw_sys::general as g;

use crate::layout::{ft, ino, DiskInode, I_BLOCK_BYTES};
use crate::state::{type_code, State};
use crate::Ext2Fs;

/// One inode of an ext2 file system. There is at most one node per inode
/// at a time, so identity and the unlinked-while-open rule hold.
pub struct Ext2Node {
    fs: Arc<Ext2Fs>,
    ino: u32,
    file_type: FileType,
    /// The inode's `i_mode` as last read or set under the state lock, or
    /// 0 before it is first needed (no live inode has mode 0). Only
    /// `set_attr` changes the mode of an inode that has a node, and it
    /// updates this copy under the lock.
    mode: AtomicU32,
}

impl Ext2Node {
    pub(crate) fn new(fs: Arc<Ext2Fs>, ino: u32, file_type: FileType) -> Ext2Node {
        Ext2Node { fs, ino, file_type, mode: AtomicU32::new(0) }
    }

    /// Returns the ext2 inode number.
    pub fn ino32(&self) -> u32 {
        self.ino
    }

    /// Returns the file system the node belongs to.
    pub fn fs(&self) -> &Arc<Ext2Fs> {
        &self.fs
    }

    fn check_dir(&self) -> Result<()> {
        if self.file_type.is_dir() {
            Ok(())
        } else {
            Err(Errno::ENOTDIR)
        }
    }

    /// Runs a changing operation under the lock. What it changed is
    /// written back later (the flusher, sync), at once only when many
    /// metadata blocks wait or the file system is unmounted.
    fn change<T>(&self, f: impl FnOnce(&mut State) -> Result<T>) -> Result<T> {
        let mut st = self.fs.lock_for_write()?;
        let result = f(&mut st);
        if st.many_dirty_blocks() || self.fs.is_detached() {
            let pages = if self.fs.is_detached() { st.write_back(Some(self.ino), None) } else { Ok(()) };
            let committed = st.commit().and(pages);
            drop(st);
            let value = result?;
            committed?;
            return Ok(value);
        }
        drop(st);
        result
    }

    /// Checks a new entry's name.
    fn check_name(name: &[u8]) -> Result<()> {
        if name.len() > NAME_MAX {
            return Err(Errno::ENAMETOOLONG);
        }
        if name.is_empty() || name == b"." || name == b".." || name.contains(&b'/') || name.contains(&0) {
            return Err(Errno::EINVAL);
        }
        Ok(())
    }

    /// Makes the node for a new or found entry.
    fn node_for(&self, ino: u32, file_type: FileType) -> Arc<dyn Inode> {
        self.fs.node(ino, file_type)
    }

    /// Adds an entry and an inode of `mode` in this directory; `fill`
    /// initialises the inode's contents.
    fn create_node(&self, name: &[u8], mode: u32, uid: u32, gid: u32, fill: impl FnOnce(&mut State, u32, &mut DiskInode) -> Result<()>) -> Result<(u32, FileType)> {
        self.check_dir()?;
        Self::check_name(name)?;
        let file_type = FileType::from_mode(mode).ok_or(Errno::EINVAL)?;
        let dir = self.ino;
        let ino = self.change(|st| {
            let parent = st.read_inode(dir)?;
            if parent.links() == 0 {
                return Err(Errno::ENOENT);
            }
            if st.find_entry(dir, name)?.is_some() {
                return Err(Errno::EEXIST);
            }
            if file_type.is_dir() && parent.links() >= st.link_max() {
                return Err(Errno::EMLINK);
            }
            let goal = st.group_of(dir);
            let (ino, mut inode) = st.new_inode(goal, mode, uid, gid)?;
            inode.set_links(if file_type.is_dir() { 2 } else { 1 });
            let filled = fill(st, ino, &mut inode).and_then(|()| st.write_inode(ino, &inode)).and_then(|()| st.add_entry(dir, name, ino, type_code(file_type)));
            if let Err(e) = filled {
                // Undo: the inode is not reachable; give its space back.
                inode.set_links(0);
                let _ = st.write_inode(ino, &inode);
                let _ = st.destroy_inode(ino);
                return Err(e);
            }
            if file_type.is_dir() {
                st.adjust_links(dir, 1)?;
            }
            Ok(ino)
        })?;
        Ok((ino, file_type))
    }

}


fn file_type_of(mode: u16, code: u8) -> Result<FileType> {
    if let Some(t) = FileType::from_mode(u32::from(mode)) {
        return Ok(t);
    }
    match code {
        ft::REG => Ok(FileType::Regular),
        ft::DIR => Ok(FileType::Directory),
        ft::LNK => Ok(FileType::Symlink),
        ft::CHR => Ok(FileType::CharDevice),
        ft::BLK => Ok(FileType::BlockDevice),
        ft::FIFO => Ok(FileType::Fifo),
        ft::SOCK => Ok(FileType::Socket),
        _ => Err(Errno::EIO),
    }
}

/// Splits Linux's user-space device number into major and minor.
fn dev_split(rdev: u64) -> (u32, u32) {
    let major = ((rdev >> 8) & 0xfff) | ((rdev >> 32) & !0xfff);
    let minor = (rdev & 0xff) | ((rdev >> 12) & !0xff);
    (major as u32, minor as u32)
}

/// Joins major and minor into Linux's user-space device number.
fn dev_join(major: u32, minor: u32) -> u64 {
    let (major, minor) = (u64::from(major), u64::from(minor));
    (minor & 0xff) | ((major & 0xfff) << 8) | ((minor & !0xff) << 12) | ((major & !0xfff) << 32)
}

/// Decodes a device node's number from `i_block`: the old 8:8 form in
/// `i_block[0]`, else the new 12:20 form in `i_block[1]`.
fn decode_rdev(inode: &DiskInode) -> u64 {
    let old = inode.block(0);
    if old != 0 {
        dev_join((old >> 8) & 0xff, old & 0xff)
    } else {
        let new = inode.block(1);
        dev_join((new & 0xfff00) >> 8, (new & 0xff) | ((new >> 12) & 0xfff00))
    }
}

/// Encodes a device number into `i_block` as Linux's ext2 does.
fn encode_rdev(inode: &mut DiskInode, rdev: u64) {
    let (major, minor) = dev_split(rdev);
    if major < 256 && minor < 256 {
        inode.set_block(0, (major << 8) | minor);
        inode.set_block(1, 0);
    } else {
        inode.set_block(0, 0);
        inode.set_block(1, (minor & 0xff) | (major << 8) | ((minor & !0xff) << 12));
    }
}

impl Inode for Ext2Node {
    fn fs_id(&self) -> u64 {
        self.fs.dev
    }

    fn ino(&self) -> u64 {
        u64::from(self.ino)
    }

    fn file_type(&self) -> FileType {
        self.file_type
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn stat(&self) -> Result<Stat> {
        let mut st = self.fs.state.lock();
        let inode = st.read_inode(self.ino)?;
        let rdev = if matches!(self.file_type, FileType::CharDevice | FileType::BlockDevice) { decode_rdev(&inode) } else { 0 };
        Ok(Stat {
            dev: self.fs.dev,
            ino: u64::from(self.ino),
            mode: u32::from(inode.mode()),
            nlink: u32::from(inode.links()),
            uid: inode.uid(),
            gid: inode.gid(),
            rdev,
            size: inode.size(),
            blksize: st.geo.block_size as u32,
            blocks: st.iblocks(&inode),
            atime: st.inode_time(&inode, ino::ATIME),
            mtime: st.inode_time(&inode, ino::MTIME),
            ctime: st.inode_time(&inode, ino::CTIME),
        })
    }

    fn data_size(&self) -> Result<u64> {
        Ok(self.fs.state.lock().read_inode(self.ino)?.size())
    }

    fn mode(&self) -> Result<u32> {
        let cached = self.mode.load(Ordering::Acquire);
        if cached != 0 {
            return Ok(cached);
        }
        // Read and stored under the lock, so a chmod (which stores under
        // it too) cannot be overwritten by an older value.
        let mut st = self.fs.state.lock();
        let mode = u32::from(st.read_inode(self.ino)?.mode());
        self.mode.store(mode, Ordering::Release);
        drop(st);
        Ok(mode)
    }

    fn set_attr(&self, attr: &SetAttr) -> Result<()> {
        if attr.size.is_some() && self.file_type != FileType::Regular {
            return Err(if self.file_type.is_dir() { Errno::EISDIR } else { Errno::EINVAL });
        }
        let me = self.ino;
        self.change(|st| {
            let mut inode = st.read_inode(me)?;
            if let Some(mode) = attr.mode {
                let t = u32::from(inode.mode()) & g::S_IFMT;
                inode.set_mode((t | (mode & 0o7777)) as u16);
            }
            if let Some(uid) = attr.uid {
                inode.set_uid(uid);
            }
            if let Some(gid) = attr.gid {
                inode.set_gid(gid);
            }
            if let Some(size) = attr.size {
                st.truncate(me, &mut inode, size)?;
                if attr.mtime.is_none() {
                    st.stamp(&mut inode, &[ino::MTIME]);
                }
            }
            if let Some(t) = attr.atime {
                st.set_inode_time(&mut inode, ino::ATIME, t);
            }
            if let Some(t) = attr.mtime {
                st.set_inode_time(&mut inode, ino::MTIME, t);
            }
            st.stamp(&mut inode, &[ino::CTIME]);
            st.write_inode(me, &inode)?;
            self.mode.store(u32::from(inode.mode()), Ordering::Release);
            Ok(())
        })
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<usize> {
        match self.file_type {
            FileType::Regular => self.fs.state.lock().read_data(self.ino, offset, buf),
            FileType::Directory => Err(Errno::EISDIR),
            _ => Err(Errno::EINVAL),
        }
    }

    fn write_at(&self, offset: u64, buf: &[u8]) -> Result<usize> {
        match self.file_type {
            FileType::Regular => {}
            FileType::Directory => return Err(Errno::EISDIR),
            _ => return Err(Errno::EINVAL),
        }
        if buf.is_empty() {
            return Ok(0);
        }
        let me = self.ino;
        self.change(|st| st.write_data(me, offset, buf))
    }

    fn read_pages(&self, offset: u64, len: usize, io: &mut dyn kevlar_vfs::PageIo) -> Option<Result<usize>> {
        match self.file_type {
            FileType::Regular => Some(self.fs.state.lock().read_data_io(self.ino, offset, len, io)),
            _ => None,
        }
    }

    fn write_pages(&self, offset: u64, len: usize, io: &mut dyn kevlar_vfs::PageIo) -> Option<Result<usize>> {
        if self.file_type != FileType::Regular {
            return None;
        }
        if len == 0 {
            return Some(Ok(0));
        }
        let me = self.ino;
        Some(self.change(|st| st.write_data_io(me, offset, len, io)))
    }

    fn data_page(&self, index: u64) -> Result<Arc<dyn kevlar_vfs::DataPage>> {
        if self.file_type != FileType::Regular {
            return Err(Errno::ENODEV);
        }
        let mut st = self.fs.state.lock();
        let mut inode = st.read_inode(self.ino)?;
        if index >= inode.size().div_ceil(kevlar_vfs::PAGE_SIZE as u64) {
            return Err(Errno::ENXIO);
        }
        st.fault_page(self.ino, &mut inode, index)
    }

    fn cached_page(&self, index: u64) -> Option<Arc<dyn kevlar_vfs::DataPage>> {
        if self.file_type != FileType::Regular {
            return None;
        }
        self.fs.state.lock().cached_page(self.ino, index)
    }

    fn visit_cached_pages(&self, first: u64, count: u64, visit: &mut dyn FnMut(u64, &dyn kevlar_vfs::DataPage)) {
        if self.file_type != FileType::Regular {
            return;
        }
        self.fs.state.lock().visit_cached_pages(self.ino, first, count, visit);
    }

    fn page_dirtied(&self, index: u64) {
        if !self.fs.is_read_only() {
            let mut st = self.fs.state.lock();
            st.set_now(self.fs.clock.now());
            st.page_mapped_writable(self.ino, index);
        }
    }

    fn truncate(&self, len: u64) -> Result<()> {
        self.set_attr(&SetAttr { size: Some(len), ..SetAttr::default() })
    }

    fn fallocate(&self, mode: u32, offset: u64, len: u64, size_limit: u64) -> Result<()> {
        if self.file_type != FileType::Regular {
            return Err(Errno::EOPNOTSUPP);
        }
        let me = self.ino;
        self.change(|st| st.fallocate(me, mode, offset, len, size_limit))
    }

    fn seek_data_hole(&self, offset: u64, data: bool) -> Result<u64> {
        self.fs.state.lock().seek_data_hole(self.ino, offset, data)
    }

    fn fiemap(&self, start: u64, len: u64, flags: &mut u32) -> Result<Vec<kevlar_vfs::MappedRun>> {
        if self.file_type != FileType::Regular {
            return Err(Errno::EOPNOTSUPP);
        }
        self.fs.state.lock().fiemap(self.ino, start, len, flags)
    }

    fn bmap(&self, block: u64) -> Result<u64> {
        if self.file_type != FileType::Regular {
            return Err(Errno::EINVAL);
        }
        self.fs.state.lock().fibmap(self.ino, block)
    }

    fn lookup(&self, name: &[u8]) -> Result<Arc<dyn Inode>> {
        self.check_dir()?;
        if name == b"." || name.is_empty() {
            return Ok(self.fs.node(self.ino, self.file_type));
        }
        if name.len() > NAME_MAX {
            return Err(Errno::ENAMETOOLONG);
        }
        let (ino, file_type) = {
            let mut st = self.fs.state.lock();
            let (ino, code, _, _) = st.find_entry(self.ino, name)?.ok_or(Errno::ENOENT)?;
            let inode = st.read_inode(ino)?;
            if inode.mode() == 0 || inode.links() == 0 {
                return Err(Errno::EIO);
            }
            (ino, file_type_of(inode.mode(), code)?)
        };
        Ok(self.node_for(ino, file_type))
    }

    fn create(&self, name: &[u8], file_type: FileType, mode: u32, uid: u32, gid: u32, rdev: u64) -> Result<Arc<dyn Inode>> {
        if file_type == FileType::Symlink {
            return Err(Errno::EINVAL);
        }
        let full = file_type.mode_bits() | (mode & 0o7777);
        let (ino, t) = self.create_node(name, full, uid, gid, |st, ino, inode| match file_type {
            FileType::Directory => st.init_dir(ino, inode, self.ino),
            FileType::CharDevice | FileType::BlockDevice => {
                encode_rdev(inode, rdev);
                Ok(())
            }
            _ => Ok(()),
        })?;
        Ok(self.node_for(ino, t))
    }

    fn symlink(&self, name: &[u8], target: &[u8], uid: u32, gid: u32) -> Result<Arc<dyn Inode>> {
        if target.is_empty() {
            return Err(Errno::ENOENT);
        }
        let block_size = self.fs.block_size();
        if target.len() >= PATH_MAX.min(block_size) {
            return Err(Errno::ENAMETOOLONG);
        }
        let (ino, t) = self.create_node(name, g::S_IFLNK | 0o777, uid, gid, |st, ino, inode| {
            if target.len() < I_BLOCK_BYTES {
                inode.block_bytes_mut()[..target.len()].copy_from_slice(target);
            } else {
                let b = st.bmap(inode, ino, 0, true)?;
                st.block_mut(b)?[..target.len()].copy_from_slice(target);
            }
            inode.set_size(target.len() as u64);
            Ok(())
        })?;
        Ok(self.node_for(ino, t))
    }

    fn read_link(&self) -> Result<Vec<u8>> {
        if self.file_type != FileType::Symlink {
            return Err(Errno::EINVAL);
        }
        let mut st = self.fs.state.lock();
        let mut inode = st.read_inode(self.ino)?;
        let len = inode.size() as usize;
        if st.is_fast_symlink(&inode) {
            if len >= I_BLOCK_BYTES {
                return Err(Errno::EIO);
            }
            return Ok(inode.block_bytes()[..len].to_vec());
        }
        if len > st.geo.block_size {
            return Err(Errno::EIO);
        }
        let b = st.bmap(&mut inode, self.ino, 0, false)?;
        if b == 0 {
            return Err(Errno::EIO);
        }
        Ok(st.block(b)?[..len].to_vec())
    }

    fn link(&self, name: &[u8], target: &Arc<dyn Inode>) -> Result<()> {
        self.check_dir()?;
        let other = target.as_any().downcast_ref::<Ext2Node>().ok_or(Errno::EXDEV)?;
        if !Arc::ptr_eq(&other.fs, &self.fs) {
            return Err(Errno::EXDEV);
        }
        if other.file_type.is_dir() {
            return Err(Errno::EPERM);
        }
        Self::check_name(name)?;
        let (dir, target_ino, t) = (self.ino, other.ino, other.file_type);
        self.change(|st| {
            if st.read_inode(dir)?.links() == 0 {
                return Err(Errno::ENOENT);
            }
            let inode = st.read_inode(target_ino)?;
            if inode.links() == 0 {
                return Err(Errno::ENOENT);
            }
            if inode.links() >= st.link_max() {
                return Err(Errno::EMLINK);
            }
            if st.find_entry(dir, name)?.is_some() {
                return Err(Errno::EEXIST);
            }
            st.add_entry(dir, name, target_ino, type_code(t))?;
            st.adjust_links(target_ino, 1)?;
            Ok(())
        })
    }

    fn unlink(&self, name: &[u8]) -> Result<()> {
        self.check_dir()?;
        if name == b"." || name == b".." {
            return Err(Errno::EISDIR);
        }
        let dir = self.ino;
        let fs = self.fs.clone();
        self.change(|st| {
            let (target, _, _, _) = st.find_entry(dir, name)?.ok_or(Errno::ENOENT)?;
            let inode = st.read_inode(target)?;
            if u32::from(inode.mode()) & g::S_IFMT == g::S_IFDIR {
                return Err(Errno::EISDIR);
            }
            st.remove_entry(dir, name)?;
            drop_link(st, &fs, target)
        })
    }

    fn rmdir(&self, name: &[u8]) -> Result<()> {
        self.check_dir()?;
        if name == b"." {
            return Err(Errno::EINVAL);
        }
        if name == b".." {
            return Err(Errno::ENOTEMPTY);
        }
        let dir = self.ino;
        let fs = self.fs.clone();
        self.change(|st| {
            let (target, _, _, _) = st.find_entry(dir, name)?.ok_or(Errno::ENOENT)?;
            let inode = st.read_inode(target)?;
            if u32::from(inode.mode()) & g::S_IFMT != g::S_IFDIR {
                return Err(Errno::ENOTDIR);
            }
            if !st.dir_is_empty(target)? {
                return Err(Errno::ENOTEMPTY);
            }
            st.remove_entry(dir, name)?;
            remove_dir_links(st, &fs, target, dir)
        })
    }

    fn rename(&self, old_name: &[u8], new_dir: &Arc<dyn Inode>, new_name: &[u8], flags: RenameFlags) -> Result<()> {
        self.check_dir()?;
        // Linux's ext2 knows only RENAME_NOREPLACE.
        if !(flags.is_empty() || flags == RenameFlags::NOREPLACE) {
            return Err(Errno::EINVAL);
        }
        let other = new_dir.as_any().downcast_ref::<Ext2Node>().ok_or(Errno::EXDEV)?;
        if !Arc::ptr_eq(&other.fs, &self.fs) {
            return Err(Errno::EXDEV);
        }
        other.check_dir()?;
        if old_name == b"." || old_name == b".." || new_name == b"." || new_name == b".." {
            return Err(Errno::EBUSY);
        }
        Self::check_name(new_name)?;
        let (src_dir, dst_dir) = (self.ino, other.ino);
        let fs = self.fs.clone();
        self.change(|st| {
            let (src, src_code, _, _) = st.find_entry(src_dir, old_name)?.ok_or(Errno::ENOENT)?;
            let src_inode = st.read_inode(src)?;
            let src_is_dir = u32::from(src_inode.mode()) & g::S_IFMT == g::S_IFDIR;
            let existing = st.find_entry(dst_dir, new_name)?;
            if let Some((dst, _, _, _)) = existing {
                if flags.contains(RenameFlags::NOREPLACE) {
                    return Err(Errno::EEXIST);
                }
                if dst == src {
                    return Ok(());
                }
                let dst_is_dir = u32::from(st.read_inode(dst)?.mode()) & g::S_IFMT == g::S_IFDIR;
                if src_is_dir && !dst_is_dir {
                    return Err(Errno::ENOTDIR);
                }
                if !src_is_dir && dst_is_dir {
                    return Err(Errno::EISDIR);
                }
                if dst_is_dir && !st.dir_is_empty(dst)? {
                    return Err(Errno::ENOTEMPTY);
                }
            }
            if src_is_dir && src_dir != dst_dir {
                // The new parent must not be the moved directory or below it.
                let mut up = dst_dir;
                loop {
                    if up == src {
                        return Err(Errno::EINVAL);
                    }
                    if up == crate::layout::ROOT_INO {
                        break;
                    }
                    let parent = st.parent_of(up)?;
                    if parent == up {
                        break;
                    }
                    up = parent;
                }
                if existing.is_none() && st.read_inode(dst_dir)?.links() >= st.link_max() {
                    return Err(Errno::EMLINK);
                }
            }
            match existing {
                Some((dst, _, _, _)) => {
                    st.retarget_entry(dst_dir, new_name, src, src_code)?;
                    let dst_is_dir = u32::from(st.read_inode(dst)?.mode()) & g::S_IFMT == g::S_IFDIR;
                    if dst_is_dir {
                        remove_dir_links(st, &fs, dst, dst_dir)?;
                    } else {
                        drop_link(st, &fs, dst)?;
                    }
                }
                None => st.add_entry(dst_dir, new_name, src, src_code)?,
            }
            st.remove_entry(src_dir, old_name)?;
            if src_is_dir && src_dir != dst_dir {
                st.retarget_entry(src, b"..", dst_dir, ft::DIR)?;
                st.adjust_links(src_dir, -1)?;
                st.adjust_links(dst_dir, 1)?;
            }
            // A rename changes the moved inode's ctime, as on Linux.
            st.adjust_links(src, 0)?;
            Ok(())
        })
    }

    fn read_dir(&self, index: usize) -> Result<Option<(DirEntry, usize)>> {
        self.check_dir()?;
        let mut st = self.fs.state.lock();
        let Some((e, next)) = st.entry_at(self.ino, index as u64)? else { return Ok(None) };
        let file_type = entry_type(&mut st, &e)?;
        Ok(Some((DirEntry { ino: u64::from(e.inode), file_type, name: e.name }, next as usize)))
    }

    fn read_dir_with(&self, index: usize, visit: &mut dyn FnMut(&DirEntryRef<'_>, usize) -> bool) -> Result<usize> {
        self.check_dir()?;
        // Entries are collected under the lock in batches and visited
        // without it (the visitor copies to user memory, which may fault
        // and take other locks).
        const BATCH: usize = 64;
        let mut pos = index;
        loop {
            let mut batch = Vec::new();
            {
                let mut st = self.fs.state.lock();
                for (e, next) in st.entries_from(self.ino, pos as u64, BATCH)? {
                    let file_type = entry_type(&mut st, &e)?;
                    batch.push((e, file_type, next));
                }
            }
            let full = batch.len() == BATCH;
            for (e, file_type, next) in batch {
                let entry = DirEntryRef { ino: u64::from(e.inode), file_type, name: &e.name };
                if !visit(&entry, next as usize) {
                    return Ok(pos);
                }
                pos = next as usize;
            }
            if !full {
                return Ok(pos);
            }
        }
    }
}

/// Returns an entry's type from its type code, or from the inode when the
/// file system does not record types in entries.
fn entry_type(st: &mut State, e: &crate::layout::RawDirent) -> Result<FileType> {
    if e.file_type != ft::UNKNOWN {
        return file_type_of(0, e.file_type);
    }
    let inode = st.read_inode(e.inode)?;
    file_type_of(inode.mode(), 0)
}

/// Drops one link of non-directory `target`; frees it when that was the
/// last and no node for it is held.
fn drop_link(st: &mut State, fs: &Ext2Fs, target: u32) -> Result<()> {
    if st.adjust_links(target, -1)? == 0 {
        if fs.is_held(target) {
            st.orphan_add(target)?; // freed at the last release
        } else {
            st.destroy_inode(target)?;
        }
    }
    Ok(())
}

/// Unlinks empty directory `target` whose entry in `parent` is gone: its
/// own two links, and the parent's link from its `..`.
fn remove_dir_links(st: &mut State, fs: &Ext2Fs, target: u32, parent: u32) -> Result<()> {
    let mut inode = st.read_inode(target)?;
    inode.set_links(0);
    st.stamp(&mut inode, &[ino::CTIME]);
    st.write_inode(target, &inode)?;
    st.adjust_links(parent, -1)?;
    if fs.is_held(target) {
        st.orphan_add(target)?;
    } else {
        st.destroy_inode(target)?;
    }
    Ok(())
}

impl Drop for Ext2Node {
    fn drop(&mut self) {
        // The last holder of an unlinked inode frees it. Read-only mounts
        // never unlink; a failure leaves an orphan e2fsck would reclaim.
        if self.fs.is_read_only() {
            return;
        }
        let mut st = self.fs.state.lock();
        let Ok(inode) = st.read_inode(self.ino) else { return };
        if inode.links() == 0 && inode.mode() != 0 && (inode.get(ino::DTIME) == 0 || st.is_orphan(self.ino)) {
            st.set_now(self.fs.clock.now());
            let _ = st.destroy_inode(self.ino);
            if self.fs.is_detached() {
                let _ = st.commit();
            }
        }
    }
}
