//! Pages of file data that the kernel can also map into user space.
//!
//! A file system that keeps file contents in memory (tmpfs, and the page
//! cache of a disk file system) stores them in [`DataPage`]s it gets from a
//! [`PageSource`]. The kernel supplies a source whose pages are physical
//! frames, so a `MAP_SHARED` mapping and `read`/`write` touch the very same
//! bytes; hosts and tests use [`HeapPages`].

use alloc::boxed::Box;
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::any::Any;

/// Bytes in one page of file data.
pub const PAGE_SIZE: usize = 4096;

/// One page of file data. Several parties may read and write it at once
/// (a mapping in user space among them), so access goes through copies.
pub trait DataPage: Send + Sync + Any {
    /// Copies `out.len()` bytes from `offset` (clipped to the page).
    fn read(&self, offset: usize, out: &mut [u8]);
    /// Copies `data` to `offset` (clipped to the page).
    fn write(&self, offset: usize, data: &[u8]);
    /// Zeroes `len` bytes from `offset` (clipped to the page).
    fn zero(&self, offset: usize, len: usize);
    /// Returns `self` as `Any`, so the kernel can reach its frame.
    fn as_any(&self) -> &dyn Any;
    /// Tells whether something besides the file's cache holds the page (a
    /// user mapping): such a page must not be dropped from the cache, or
    /// the mapping and the file would part ways.
    fn is_mapped(&self) -> bool {
        false
    }
}

/// Where a file system gets zero-filled pages.
pub trait PageSource: Send + Sync {
    /// Returns a new zero-filled page, or `None` when memory is exhausted.
    fn alloc_zeroed(&self) -> Option<Arc<dyn DataPage>>;
}

/// Pages on the heap: for hosts and tests, and for file systems whose
/// pages are never mapped.
#[derive(Debug, Default)]
pub struct HeapPages;

struct HeapPage(spin::Mutex<Box<[u8; PAGE_SIZE]>>);

impl DataPage for HeapPage {
    fn read(&self, offset: usize, out: &mut [u8]) {
        let page = self.0.lock();
        let start = offset.min(PAGE_SIZE);
        let n = out.len().min(PAGE_SIZE - start);
        out[..n].copy_from_slice(&page[start..start + n]);
    }

    fn write(&self, offset: usize, data: &[u8]) {
        let mut page = self.0.lock();
        let start = offset.min(PAGE_SIZE);
        let n = data.len().min(PAGE_SIZE - start);
        page[start..start + n].copy_from_slice(&data[..n]);
    }

    fn zero(&self, offset: usize, len: usize) {
        let mut page = self.0.lock();
        let start = offset.min(PAGE_SIZE);
        let n = len.min(PAGE_SIZE - start);
        page[start..start + n].fill(0);
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl PageSource for HeapPages {
    fn alloc_zeroed(&self) -> Option<Arc<dyn DataPage>> {
        // Fallible, so exhaustion fails the write instead of aborting.
        let mut bytes: Vec<u8> = Vec::new();
        bytes.try_reserve_exact(PAGE_SIZE).ok()?;
        bytes.resize(PAGE_SIZE, 0);
        let page: Box<[u8; PAGE_SIZE]> = bytes.into_boxed_slice().try_into().ok()?;
        Some(Arc::new(HeapPage(spin::Mutex::new(page))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heap_pages_copy_and_clip() {
        let page = HeapPages.alloc_zeroed().unwrap();
        page.write(4090, b"0123456789");
        let mut out = [0xffu8; 8];
        page.read(4092, &mut out);
        assert_eq!(&out[..4], b"2345");
        assert_eq!(&out[4..], &[0xff; 4], "bytes past the page are left alone");
        page.zero(4093, 100);
        page.read(4090, &mut out[..6]);
        assert_eq!(&out[..6], b"012\0\0\0");
        page.read(PAGE_SIZE + 5, &mut out);
        assert!(page.as_any().downcast_ref::<HeapPage>().is_some());
    }
}
