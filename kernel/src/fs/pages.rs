//! File data in physical frames: the page source the kernel gives its
//! in-memory file systems, so that a page of a file is one frame shared by
//! `read`/`write`, `MAP_SHARED` mappings, and private mappings until they
//! are written (this is Kevlar's page cache for tmpfs and the initramfs,
//! and the frames of ext2's page cache: see [`super::pagecache`]).

use alloc::sync::Arc;
use core::any::Any;

use kevlar_platform::mm::pmm::PageRef;
use kevlar_tmpfs::{TmpFs, TmpFsOptions};
use kevlar_vfs::{DataPage, Inode, PageSource};

use crate::error::Result;

/// A page of file data held in a physical frame.
pub struct FramePage(PageRef);

impl FramePage {
    /// The frame holding the bytes.
    pub fn frame(&self) -> &PageRef {
        &self.0
    }
}

impl DataPage for FramePage {
    fn read(&self, offset: usize, out: &mut [u8]) {
        self.0.read(offset, out);
    }

    fn write(&self, offset: usize, data: &[u8]) {
        self.0.write(offset, data);
    }

    fn zero(&self, offset: usize, len: usize) {
        self.0.zero(offset, len);
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn is_mapped(&self) -> bool {
        // One reference is this page's own; any other is a mapping's (or
        // a fault in progress).
        self.0.ref_count() > 1
    }
}

/// Hands out zero-filled frames.
pub struct FramePages;

impl PageSource for FramePages {
    fn alloc_zeroed(&self) -> Option<Arc<dyn DataPage>> {
        Some(Arc::new(FramePage(PageRef::alloc_zeroed()?)))
    }
}

/// Creates a tmpfs whose file data lives in frames the kernel can map.
pub fn new_tmpfs(options: TmpFsOptions) -> Arc<TmpFs> {
    TmpFs::with_page_source(Arc::new(crate::clock::KernelClock), options, Arc::new(FramePages))
}

/// Returns the frame holding page `index` of `inode`'s data (allocating a
/// hole), `Ok(None)` when the file keeps its data elsewhere (it can only be
/// copied from), and ENXIO for a page wholly past the end of the file.
pub fn frame_of(inode: &dyn Inode, index: u64) -> Result<Option<PageRef>> {
    match inode.data_page(index) {
        Ok(page) => Ok(page.as_any().downcast_ref::<FramePage>().map(|p| p.0.clone())),
        Err(kevlar_vfs::Errno::ENODEV) => Ok(None),
        Err(e) => Err(e),
    }
}

/// Returns the frame of page `index` of `inode` if its page cache holds
/// it already (nothing is read or allocated).
pub fn cached_frame_of(inode: &dyn Inode, index: u64) -> Option<PageRef> {
    inode.cached_page(index)?.as_any().downcast_ref::<FramePage>().map(|p| p.0.clone())
}

/// Calls `visit(index, frame)` for each page of `[first, first + count)`
/// of `inode` that its page cache holds already, in index order, lending
/// the frame (the caller clones what it keeps).
pub fn visit_cached_frames_of(inode: &dyn Inode, first: u64, count: u64, visit: &mut dyn FnMut(u64, &PageRef)) {
    inode.visit_cached_pages(first, count, &mut |i, page| {
        if let Some(frame) = page.as_any().downcast_ref::<FramePage>() {
            visit(i, &frame.0);
        }
    });
}

/// Tells whether `inode` keeps its data in frames that can be mapped
/// shared (page `u64::MAX` exists in no file, so only the error differs).
pub fn can_map_shared(inode: &dyn Inode) -> bool {
    !matches!(inode.data_page(u64::MAX), Err(kevlar_vfs::Errno::ENODEV))
}
