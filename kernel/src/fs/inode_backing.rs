//! The mapping source of a file mapped from a file system: page faults on
//! the mapping read the inode's cached pages (mmap and exec use it).

use alloc::sync::Arc;

use crate::error::Result;

/// A file-backed mapping source: the open file's inode, and the path it
/// was opened by (for /proc/PID/maps).
struct InodeBacking(Arc<dyn kevlar_vfs::Inode>, alloc::vec::Vec<u8>);

impl crate::mm::FileBacking for InodeBacking {
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<usize> {
        self.0.read_at(offset, buf)
    }

    fn size(&self) -> u64 {
        self.0.data_size().unwrap_or(0)
    }

    fn page(&self, index: u64) -> Result<Option<kevlar_platform::mm::pmm::PageRef>> {
        crate::fs::pages::frame_of(&*self.0, index)
    }

    fn cached_page(&self, index: u64) -> Option<kevlar_platform::mm::pmm::PageRef> {
        crate::fs::pages::cached_frame_of(&*self.0, index)
    }

    fn visit_cached(&self, first: u64, count: u64, visit: &mut dyn FnMut(u64, &kevlar_platform::mm::pmm::PageRef)) {
        crate::fs::pages::visit_cached_frames_of(&*self.0, first, count, visit);
    }

    fn dirtied(&self, index: u64) {
        self.0.page_dirtied(index);
    }

    fn sync(&self) -> Result<()> {
        crate::fs::mount::sync_node(&*self.0)
    }

    fn identity(&self) -> (u64, u64, &[u8]) {
        (self.0.fs_id(), self.0.ino(), &self.1)
    }
}

/// Returns a backing that reads `inode`, opened by absolute `path`.
pub fn inode_backing(inode: Arc<dyn kevlar_vfs::Inode>, path: alloc::vec::Vec<u8>) -> Arc<dyn crate::mm::FileBacking> {
    Arc::new(InodeBacking(inode, path))
}
