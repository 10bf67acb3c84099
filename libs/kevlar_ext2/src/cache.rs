//! The page cache of file data: regular files' bytes live in pages from
//! the file system's [`PageSource`] (frames the kernel can map), shared by
//! `read`/`write` and mappings. Pages are filled from the disk on first use
//! (with read-ahead: the following pages of the file come in the same
//! requests), changed in memory by `write` (the blocks are allocated at
//! once, so a full disk fails the write) and written back by
//! [`State::write_back`], which the file system runs on `sync`, `fsync`,
//! unmount and from the kernel's periodic flusher.
//!
//! A page mapped shared and writable can change without the file system
//! knowing: it is written back at every flush while it stays mapped, and
//! once more when it is no longer mapped. Clean pages no one maps are
//! dropped past the cache's limit and by [`State::drop_clean_pages`].

use alloc::sync::Arc;
use alloc::vec;
use alloc::vec::Vec;

use kevlar_vfs::{DataPage, Errno, Result, PAGE_SIZE};

use crate::layout::DiskInode;
use crate::state::State;

/// Pages read ahead on a miss by `read` (the pages the call needs, and at
/// least this many from the first missing one).
pub const READ_AHEAD_PAGES: u64 = 8;

/// The most pages a sequential read reads ahead (Linux's default
/// read_ahead_kb, 128 KiB): the window doubles from [`READ_AHEAD_PAGES`]
/// on every miss where the last read-ahead ended.
pub const MAX_READ_AHEAD_PAGES: u64 = 32;

/// Pages read around a page fault that misses the cache (Linux's mmap
/// read-around, do_sync_mmap_readahead: the read-ahead window, 128 KiB,
/// starting half a window before the faulting page): one request brings
/// the neighbours a program's code and data faults touch next, which
/// fault-around then maps without another fault.
pub const FAULT_AROUND_READ_PAGES: u64 = 32;

/// Most pages one miss reads.
const MAX_FILL_PAGES: u64 = 64;

/// Most blocks one disk request carries.
const MAX_RUN_BLOCKS: usize = 64;

/// One cached page of a file.
pub struct CachedPage {
    /// The bytes.
    pub page: Arc<dyn DataPage>,
    /// Changed by `write` since it was last written back.
    pub dirty: bool,
    /// Mapped shared and writable since it was last written back while
    /// unmapped: user stores may have changed it.
    pub mapped_writable: bool,
    /// When it became dirty (seconds of the file system's clock).
    pub dirty_since: u32,
    /// The [`State::map_epoch`] under which every block of the page was
    /// seen mapped and written (0: not known). While the epoch has not
    /// moved, an overwrite needs no block lookup: Linux's mapped buffer
    /// heads.
    pub backed_at: u64,
}

impl CachedPage {
    fn new(page: Arc<dyn DataPage>) -> CachedPage {
        CachedPage { page, dirty: false, mapped_writable: false, dirty_since: 0, backed_at: 0 }
    }
}

impl CachedPage {
    fn needs_write_back(&self) -> bool {
        self.dirty || self.mapped_writable
    }

    /// Dirty, and since `cutoff` or before (`None`: any dirty page).
    fn expired(&self, cutoff: Option<u32>) -> bool {
        self.needs_write_back() && cutoff.is_none_or(|c| self.dirty_since <= c)
    }

    fn droppable(&self) -> bool {
        !self.needs_write_back() && !self.page.is_mapped()
    }
}

/// Page-cache counts, for /proc/meminfo.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Pages cached.
    pub pages: u64,
    /// Pages changed and not yet written back.
    pub dirty: u64,
    /// Pages some user mapping holds.
    pub mapped: u64,
}

/// A piece of a page to move to or from disk block `block`.
struct Piece {
    block: u32,
    page: Arc<dyn DataPage>,
    offset: usize,
}

impl State {
    fn blocks_per_page(&self) -> u64 {
        (PAGE_SIZE / self.geo.block_size) as u64
    }

    /// Returns cached page `index` of `ino`, if it is cached.
    pub fn cached_page(&self, ino: u32, index: u64) -> Option<Arc<dyn DataPage>> {
        self.pages.get(&(ino, index)).map(|e| e.page.clone())
    }

    /// Calls `visit` with each cached page of `ino` in `[first, first +
    /// count)`, in index order (one range walk of the cache, nothing
    /// cloned).
    pub fn visit_cached_pages(&self, ino: u32, first: u64, count: u64, visit: &mut dyn FnMut(u64, &dyn DataPage)) {
        let end = first.saturating_add(count);
        for (&(_, i), e) in self.pages.range((ino, first)..(ino, end)) {
            visit(i, &*e.page);
        }
    }

    /// Returns page `index` of file `ino` (size from `inode`), reading it
    /// and up to `ahead - 1` following uncached pages when it is missing.
    /// A page wholly past the end of the file is made empty (zeros).
    pub fn file_page(&mut self, ino: u32, inode: &mut DiskInode, index: u64, ahead: u64) -> Result<Arc<dyn DataPage>> {
        if let Some(e) = self.pages.get(&(ino, index)) {
            return Ok(e.page.clone());
        }
        self.fill_pages(ino, inode, index, ahead.max(1))?;
        match self.pages.get(&(ino, index)) {
            Some(e) => Ok(e.page.clone()),
            None => {
                let page = self.new_page()?;
                self.insert_page(ino, index, page)
            }
        }
    }

    /// Returns page `index` of file `ino` (size from `inode`) for a page
    /// fault: on a miss, the uncached pages of the
    /// [`FAULT_AROUND_READ_PAGES`] window from half a window before it are
    /// read too (pages already cached are skipped, not an end to the
    /// window: faults come in any order).
    pub fn fault_page(&mut self, ino: u32, inode: &mut DiskInode, index: u64) -> Result<Arc<dyn DataPage>> {
        if let Some(e) = self.pages.get(&(ino, index)) {
            return Ok(e.page.clone());
        }
        let first = index.saturating_sub(FAULT_AROUND_READ_PAGES / 2);
        self.fill_span(ino, inode, first, FAULT_AROUND_READ_PAGES, true)?;
        match self.pages.get(&(ino, index)) {
            Some(e) => Ok(e.page.clone()),
            None => {
                let page = self.new_page()?;
                self.insert_page(ino, index, page)
            }
        }
    }

    /// Returns a zero-filled page; when memory is short, clean pages of
    /// this cache make room first.
    fn new_page(&mut self) -> Result<Arc<dyn DataPage>> {
        if let Some(page) = self.page_source.alloc_zeroed() {
            return Ok(page);
        }
        self.drop_clean_pages();
        self.page_source.alloc_zeroed().ok_or(Errno::ENOMEM)
    }

    fn insert_page(&mut self, ino: u32, index: u64, page: Arc<dyn DataPage>) -> Result<Arc<dyn DataPage>> {
        self.make_room(1);
        self.pages.insert((ino, index), CachedPage::new(page.clone()));
        Ok(page)
    }

    /// Drops clean unmapped pages when the cache is past its limit, from
    /// a cursor that moves on through the files (a cheap clock).
    fn make_room(&mut self, coming: usize) {
        if self.pages.len() + coming <= self.page_limit {
            return;
        }
        let want = (self.page_limit / 8).max(coming);
        let start = self.evict_cursor;
        let mut victims: Vec<(u32, u64)> = self.pages.range(start..).filter(|(_, e)| e.droppable()).map(|(&k, _)| k).take(want).collect();
        if victims.len() < want {
            let more = want - victims.len();
            victims.extend(self.pages.range(..start).filter(|(_, e)| e.droppable()).map(|(&k, _)| k).take(more));
        }
        if let Some(&last) = victims.last() {
            self.evict_cursor = (last.0, last.1.saturating_add(1));
        }
        for key in victims {
            self.pages.remove(&key);
        }
    }

    /// Reads pages `[first, first + count)` of `ino` that are not cached
    /// and lie within the file, merging neighbouring blocks into one
    /// request; bytes past the end of the file read as zeros.
    fn fill_pages(&mut self, ino: u32, inode: &mut DiskInode, first: u64, count: u64) -> Result<()> {
        self.fill_span(ino, inode, first, count, false)
    }

    /// [`State::fill_pages`]; with `past_cached`, a cached page in the
    /// span is skipped instead of ending it.
    fn fill_span(&mut self, ino: u32, inode: &mut DiskInode, first: u64, count: u64, past_cached: bool) -> Result<()> {
        let size = inode.size();
        let count = count.min(MAX_FILL_PAGES).min((self.page_limit / 2).max(1) as u64);
        let end = first.saturating_add(count).min(size.div_ceil(PAGE_SIZE as u64));
        let bs = self.geo.block_size;
        let bpp = self.blocks_per_page();
        let mut pieces = Vec::new();
        let mut fresh = Vec::new();
        for index in first..end {
            if self.pages.contains_key(&(ino, index)) {
                if index == first || past_cached {
                    continue;
                }
                break; // read-ahead stops at what is already here
            }
            let page = self.new_page()?;
            let mut mapped = 0;
            for k in 0..bpp {
                let lblk = index * bpp + k;
                if lblk * bs as u64 >= size {
                    break;
                }
                // 0: a hole or an unwritten run.
                let b = self.bmap(inode, ino, lblk, false)?;
                if b != 0 {
                    pieces.push(Piece { block: b, page: page.clone(), offset: k as usize * bs });
                    mapped += 1;
                }
            }
            fresh.push((index, page, mapped == bpp));
        }
        self.transfer(&mut pieces, false)?;
        let tail = (size % PAGE_SIZE as u64) as usize;
        self.make_room(fresh.len());
        let epoch = self.map_epoch;
        for (index, page, backed) in fresh {
            if tail != 0 && index == size / PAGE_SIZE as u64 {
                page.zero(tail, PAGE_SIZE - tail);
            }
            let mut entry = CachedPage::new(page);
            if backed {
                entry.backed_at = epoch;
            }
            self.pages.insert((ino, index), entry);
        }
        Ok(())
    }

    /// Moves `pieces` between their pages and the disk (`write`: to the
    /// disk), one request per run of consecutive blocks.
    fn transfer(&mut self, pieces: &mut [Piece], write: bool) -> Result<()> {
        pieces.sort_by_key(|p| p.block);
        let bs = self.geo.block_size;
        let sector = self.dev.sector_size();
        let per = (bs / sector) as u64;
        let mut i = 0;
        let mut result = Ok(());
        while i < pieces.len() {
            let mut j = i + 1;
            while j < pieces.len() && j - i < MAX_RUN_BLOCKS && pieces[j].block == pieces[j - 1].block + 1 {
                j += 1;
            }
            let run = &pieces[i..j];
            let mut buf = vec![0u8; run.len() * bs];
            let start = u64::from(run[0].block) * per;
            if write {
                for (k, p) in run.iter().enumerate() {
                    p.page.read(p.offset, &mut buf[k * bs..(k + 1) * bs]);
                }
                if let Err(e) = self.dev.write_sectors(start, &buf) {
                    result = Err(e);
                }
            } else {
                self.dev.read_sectors(start, &mut buf)?;
                for (k, p) in run.iter().enumerate() {
                    p.page.write(p.offset, &buf[k * bs..(k + 1) * bs]);
                }
            }
            i = j;
        }
        result
    }

    /// Reads file bytes at `offset` into `buf`; returns the count.
    pub fn read_data(&mut self, ino: u32, offset: u64, buf: &mut [u8]) -> Result<usize> {
        let len = buf.len();
        self.read_data_io(ino, offset, len, &mut kevlar_vfs::SliceOut::new(buf))
    }

    /// Reads up to `len` file bytes at `offset` from the cached pages into
    /// `io`; returns the count (short when `io` faulted).
    pub fn read_data_io(&mut self, ino: u32, offset: u64, len: usize, io: &mut dyn kevlar_vfs::PageIo) -> Result<usize> {
        // Only the size is needed while the pages are cached: the record
        // is copied only for a miss, which maps blocks.
        let size = self.inode_size(ino)?;
        if offset >= size {
            return Ok(0);
        }
        let len = (len as u64).min(size - offset) as usize;
        let end = offset + len as u64;
        let mut done = 0;
        let mut inode = None;
        while done < len {
            let pos = offset + done as u64;
            let index = pos / PAGE_SIZE as u64;
            let in_page = (pos % PAGE_SIZE as u64) as usize;
            let n = (PAGE_SIZE - in_page).min(len - done);
            let moved = match self.pages.get(&(ino, index)) {
                // Copied from the cached page in place (no reference taken).
                Some(e) => io.page(&*e.page, in_page, n),
                None => {
                    let inode = match &mut inode {
                        Some(inode) => inode,
                        None => inode.insert(self.read_inode(ino)?),
                    };
                    // A miss where the last read-ahead of this file ended
                    // is a sequential read: read twice as far ahead.
                    let wanted = end.div_ceil(PAGE_SIZE as u64) - index;
                    let (last_ino, last_end, last_len) = self.read_ahead;
                    let window = if last_ino == ino && last_end == index { (last_len * 2).clamp(READ_AHEAD_PAGES, MAX_READ_AHEAD_PAGES) } else { READ_AHEAD_PAGES };
                    let ahead = wanted.max(window);
                    self.read_ahead = (ino, index + ahead, window);
                    let page = self.file_page(ino, inode, index, ahead)?;
                    io.page(&*page, in_page, n)
                }
            };
            done += moved;
            if moved < n {
                break;
            }
        }
        if let Some(inode) = inode {
            self.recycle_inode(inode);
        }
        Ok(done)
    }

    /// Returns the block of data block `lblk` of `ino`, allocating it (a
    /// block of file data never stays in the block cache: its bytes are
    /// in the page cache).
    fn data_block(&mut self, inode: &mut DiskInode, ino: u32, lblk: u64) -> Result<u32> {
        let before = self.iblocks(inode);
        let b = self.bmap(inode, ino, lblk, true)?;
        if self.iblocks(inode) != before {
            self.journal_ordered(ino); // its data goes before the next commit
        }
        self.forget_block(b);
        Ok(b)
    }

    /// Writes `data` at `offset` into the cached pages, allocating blocks
    /// and growing the file. Stops early (returning the count) when the
    /// disk fills up after some bytes were written.
    pub fn write_data(&mut self, ino: u32, offset: u64, data: &[u8]) -> Result<usize> {
        self.write_data_io(ino, offset, data.len(), &mut kevlar_vfs::SliceIn::new(data))
    }

    /// Writes `len` bytes taken from `io` at `offset` into the cached
    /// pages, as [`State::write_data`]; stops where `io` faults (a page
    /// made for the write whose old bytes were not read is then not kept).
    pub fn write_data_io(&mut self, ino: u32, offset: u64, len: usize, io: &mut dyn kevlar_vfs::PageIo) -> Result<usize> {
        let mut inode = self.read_inode(ino)?;
        let max = self.max_size_of(&inode);
        if offset >= max {
            return Err(Errno::EFBIG);
        }
        let len = (len as u64).min(max - offset) as usize;
        let bs = self.geo.block_size as u64;
        let times_before = (self.inode_time(&inode, crate::layout::ino::MTIME), self.inode_time(&inode, crate::layout::ino::CTIME));
        // Blocks were looked up (and perhaps allocated): the record may
        // have changed besides its size and times.
        let mut mapped_blocks = false;
        let mut done = 0;
        let mut error = None;
        while done < len {
            let pos = offset + done as u64;
            let index = pos / PAGE_SIZE as u64;
            let in_page = (pos % PAGE_SIZE as u64) as usize;
            let n = (PAGE_SIZE - in_page).min(len - done);
            // An overwrite of a cached page known to sit on written blocks:
            // the bytes, the dirty mark, nothing else.
            let (epoch, now) = (self.map_epoch, self.now);
            if let Some(e) = self.pages.get_mut(&(ino, index)).filter(|e| e.backed_at == epoch) {
                let moved = io.page(&*e.page, in_page, n);
                if moved == 0 {
                    break;
                }
                if !e.needs_write_back() {
                    e.dirty_since = now;
                }
                e.dirty = true;
                done += moved;
                if moved < n {
                    break;
                }
                continue;
            }
            mapped_blocks = true;
            // The page first (its old bytes come from the blocks it has
            // now), then the blocks the write needs.
            let whole = in_page == 0 && n == PAGE_SIZE;
            // A page made for a whole-page write, whose old bytes (if any)
            // were not read: it is right only once the write filled it.
            let mut blank = false;
            let page = match self.pages.get(&(ino, index)) {
                Some(e) => Ok(e.page.clone()),
                None if index * PAGE_SIZE as u64 >= inode.size() => self.new_page().and_then(|p| self.insert_page(ino, index, p)),
                None if whole => {
                    blank = true;
                    self.new_page().and_then(|p| self.insert_page(ino, index, p))
                }
                None => self.file_page(ino, &mut inode, index, 1),
            };
            let mut page = match page {
                Ok(p) => p,
                Err(e) => {
                    error = Some(e);
                    break;
                }
            };
            // The bytes first: a fault of the caller's buffer stops the
            // write before any block is allocated for bytes not written.
            let moved = io.page(&*page, in_page, n);
            if blank && moved < n {
                // Short: the page must hold the file's old bytes after
                // the ones written. Read them, and keep what was written.
                self.pages.remove(&(ino, index));
                let mut written = vec![0u8; moved];
                page.read(0, &mut written);
                match self.file_page(ino, &mut inode, index, 1) {
                    Ok(old) => {
                        old.write(0, &written);
                        page = old;
                        blank = false;
                    }
                    Err(e) => {
                        error = Some(e);
                        break;
                    }
                }
            }
            if moved == 0 {
                break;
            }
            let mut allocated = Ok(());
            for lblk in pos / bs..=(pos + moved as u64 - 1) / bs {
                if let Err(e) = self.data_block(&mut inode, ino, lblk) {
                    allocated = Err(e);
                    break;
                }
            }
            if let Err(e) = allocated {
                // The bytes are in the page but have no block: a page made
                // for them goes; in a block-sized page the block was a hole
                // (it needed one), which reads as zeros again.
                if blank {
                    self.pages.remove(&(ino, index));
                } else if bs as usize == PAGE_SIZE && index * (PAGE_SIZE as u64) < inode.size() {
                    page.zero(in_page, moved);
                }
                error = Some(e);
                break;
            }
            self.mark_dirty(ino, index);
            // Every block of the page mapped and written now: later
            // overwrites skip the lookups.
            let bpp = self.blocks_per_page();
            if pos / bs <= index * bpp && (pos + moved as u64 - 1) / bs + 1 >= (index + 1) * bpp {
                let epoch = self.map_epoch;
                if let Some(e) = self.pages.get_mut(&(ino, index)) {
                    e.backed_at = epoch;
                }
            }
            done += moved;
            if moved < n {
                break;
            }
        }
        let mut grew = false;
        if done > 0 {
            let end = offset + done as u64;
            if end > inode.size() {
                inode.set_size(end);
                grew = true;
            }
            self.stamp(&mut inode, &[crate::layout::ino::MTIME, crate::layout::ino::CTIME]);
        }
        let times_after = (self.inode_time(&inode, crate::layout::ino::MTIME), self.inode_time(&inode, crate::layout::ino::CTIME));
        // Within one tick of the coarse clock an overwrite changes nothing
        // in the record (Linux's file_update_time skips it too).
        if mapped_blocks || grew || times_after != times_before {
            self.write_inode(ino, &inode)?;
        }
        self.recycle_inode(inode);
        match error {
            Some(e) if done == 0 => Err(e),
            _ => Ok(done),
        }
    }

    pub(crate) fn mark_dirty(&mut self, ino: u32, index: u64) {
        let now = self.now;
        if let Some(e) = self.pages.get_mut(&(ino, index)) {
            if !e.needs_write_back() {
                e.dirty_since = now;
            }
            e.dirty = true;
        }
    }

    /// Records that cached page `index` of `ino` is mapped shared and
    /// writable.
    pub fn page_mapped_writable(&mut self, ino: u32, index: u64) {
        let now = self.now;
        if let Some(e) = self.pages.get_mut(&(ino, index)) {
            if !e.needs_write_back() {
                e.dirty_since = now;
            }
            e.mapped_writable = true;
        }
    }

    /// Before a regular file shrinks to `len`: drops its pages past the
    /// new end and zeroes the new last page's tail, which is written back
    /// (so the block's tail on disk reads as zeros if the file grows).
    pub fn shrink_pages(&mut self, ino: u32, inode: &mut DiskInode, len: u64) -> Result<()> {
        let keep = len.div_ceil(PAGE_SIZE as u64);
        self.drop_file_pages(ino, keep);
        let tail = (len % PAGE_SIZE as u64) as usize;
        if tail != 0 {
            let index = len / PAGE_SIZE as u64;
            let page = self.file_page(ino, inode, index, 1)?;
            page.zero(tail, PAGE_SIZE - tail);
            self.mark_dirty(ino, index);
        }
        Ok(())
    }

    /// Forgets pages `from..` of `ino`, dirty or not (truncation, or the
    /// inode freed).
    pub fn drop_file_pages(&mut self, ino: u32, from: u64) {
        let doomed: Vec<(u32, u64)> = self.pages.range((ino, from)..=(ino, u64::MAX)).map(|(&k, _)| k).collect();
        for key in doomed {
            self.pages.remove(&key);
        }
    }

    /// Writes back the changed pages (of `only`, or of every file; only
    /// those dirty since `cutoff` or before, if given): the blocks within
    /// each file's size; a page mapped writable gets blocks for its holes
    /// now (user stores may have filled them).
    pub fn write_back(&mut self, only: Option<u32>, cutoff: Option<u32>) -> Result<()> {
        let keys: Vec<(u32, u64)> = match only {
            Some(ino) => self.pages.range((ino, 0)..=(ino, u64::MAX)).filter(|(_, e)| e.expired(cutoff)).map(|(&k, _)| k).collect(),
            None => self.pages.iter().filter(|(_, e)| e.expired(cutoff)).map(|(&k, _)| k).collect(),
        };
        if keys.is_empty() {
            return Ok(());
        }
        let bs = self.geo.block_size as u64;
        let bpp = self.blocks_per_page();
        let mut pieces = Vec::new();
        let mut current: Option<(u32, DiskInode, bool)> = None;
        let mut result = Ok(());
        let mut done_keys = Vec::new();
        for &(ino, index) in &keys {
            if current.as_ref().is_none_or(|c| c.0 != ino) {
                if let Some((prev, inode, true)) = current.take() {
                    self.write_inode(prev, &inode)?;
                }
                current = Some((ino, self.read_inode(ino)?, false));
            }
            let (_, inode, changed) = current.as_mut().expect("set above");
            if inode.mode() == 0 || inode.links() == 0 && inode.get(crate::layout::ino::DTIME) != 0 && !self.is_orphan(ino) {
                // Freed: nothing to keep.
                self.pages.remove(&(ino, index));
                continue;
            }
            let (page, fill_holes) = match self.pages.get(&(ino, index)) {
                Some(e) => (e.page.clone(), e.mapped_writable),
                None => continue,
            };
            let size = inode.size();
            let mut ok = true;
            for k in 0..bpp {
                let lblk = index * bpp + k;
                if lblk * bs >= size {
                    break;
                }
                let b = if fill_holes {
                    let before = self.iblocks(inode);
                    match self.data_block(inode, ino, lblk) {
                        Ok(b) => {
                            *changed |= self.iblocks(inode) != before;
                            b
                        }
                        Err(e) => {
                            *changed = true;
                            result = Err(e);
                            ok = false;
                            break;
                        }
                    }
                } else {
                    self.bmap(inode, ino, lblk, false)?
                };
                if b != 0 {
                    pieces.push(Piece { block: b, page: page.clone(), offset: (k * bs) as usize });
                }
            }
            if ok {
                done_keys.push((ino, index));
            }
        }
        if let Some((prev, inode, true)) = current.take() {
            self.write_inode(prev, &inode)?;
        }
        self.transfer(&mut pieces, true)?;
        let now = self.now;
        for key in done_keys {
            if let Some(e) = self.pages.get_mut(&key) {
                e.dirty = false;
                e.dirty_since = now;
                if e.mapped_writable && !e.page.is_mapped() {
                    e.mapped_writable = false;
                }
            }
        }
        result
    }

    /// Drops every clean page no one maps (drop_caches, memory pressure);
    /// returns how many.
    pub fn drop_clean_pages(&mut self) -> usize {
        let before = self.pages.len();
        self.pages.retain(|_, e| !e.droppable());
        before - self.pages.len()
    }

    /// Tells whether pages dirty since `cutoff` or before wait to be
    /// written back.
    pub fn has_expired_pages(&self, cutoff: Option<u32>) -> bool {
        self.pages.values().any(|e| e.expired(cutoff))
    }

    /// Returns the cache's counts.
    pub fn cache_stats(&self) -> CacheStats {
        let mut stats = CacheStats { pages: self.pages.len() as u64, ..CacheStats::default() };
        for e in self.pages.values() {
            stats.dirty += u64::from(e.needs_write_back());
            stats.mapped += u64::from(e.page.is_mapped());
        }
        stats
    }
}
