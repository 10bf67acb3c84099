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

/// The caller's side of a read or write that moves bytes straight
/// between a file's pages and the caller's buffer (one copy, as Linux's
/// `copy_page_to_iter`/`copy_page_from_iter`): the file system hands it
/// each page in turn, under its own locks, and the buffer keeps its
/// position. A buffer in user memory may fault: it then moves fewer bytes
/// than asked and the file system stops there, reporting the bytes moved.
pub trait PageIo {
    /// Moves `len` bytes between the buffer (at its position) and `page`
    /// from `offset`: out of the page for a read, into it for a write.
    /// Returns the bytes moved (fewer than `len`: the buffer faulted).
    fn page(&mut self, page: &dyn DataPage, offset: usize, len: usize) -> usize;
    /// A read: `len` zero bytes into the buffer (a hole). Returns the bytes
    /// moved, as [`PageIo::page`].
    fn zeros(&mut self, len: usize) -> usize;
}

/// A read into a kernel buffer, through [`PageIo`].
pub struct SliceOut<'a> {
    buf: &'a mut [u8],
    at: usize,
}

impl<'a> SliceOut<'a> {
    /// Fills `buf` from its start.
    pub fn new(buf: &'a mut [u8]) -> Self {
        SliceOut { buf, at: 0 }
    }
}

impl PageIo for SliceOut<'_> {
    fn page(&mut self, page: &dyn DataPage, offset: usize, len: usize) -> usize {
        let n = len.min(self.buf.len() - self.at);
        page.read(offset, &mut self.buf[self.at..self.at + n]);
        self.at += n;
        n
    }

    fn zeros(&mut self, len: usize) -> usize {
        let n = len.min(self.buf.len() - self.at);
        self.buf[self.at..self.at + n].fill(0);
        self.at += n;
        n
    }
}

/// A write from a kernel buffer, through [`PageIo`].
pub struct SliceIn<'a> {
    buf: &'a [u8],
    at: usize,
}

impl<'a> SliceIn<'a> {
    /// Takes bytes from the start of `buf`.
    pub fn new(buf: &'a [u8]) -> Self {
        SliceIn { buf, at: 0 }
    }
}

impl PageIo for SliceIn<'_> {
    fn page(&mut self, page: &dyn DataPage, offset: usize, len: usize) -> usize {
        let n = len.min(self.buf.len() - self.at);
        page.write(offset, &self.buf[self.at..self.at + n]);
        self.at += n;
        n
    }

    fn zeros(&mut self, _len: usize) -> usize {
        0
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
