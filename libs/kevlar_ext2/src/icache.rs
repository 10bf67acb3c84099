//! The inode cache: copies of inode records, so that reading a hot inode
//! (stat, a path lookup, every read and write system call) neither finds
//! its inode-table block in the block cache nor checks its checksum
//! again.
//!
//! Set-associative (the set is the inode number modulo the set count,
//! least recently used way replaced). The records live in 16 KiB chunks
//! allocated as ways in them are first used (no large contiguous
//! allocation for the kernel's buddy allocator to find); the total is
//! fixed whatever the inode size, so it costs a bounded amount of memory
//! per mount, and [`InodeCache::clear`] gives it back (drop_caches,
//! memory pressure).
//!
//! A record is in the cache only as [`State::read_inode`] checked it or
//! as [`State::write_inode`] and the commit's sealing last wrote it to
//! the block cache, and every change to an inode goes through them, so a
//! hit is the block's current bytes. It runs under the file system's lock
//! like everything in `State`, which is what makes it safe with several
//! CPUs.

use alloc::vec::Vec;

/// Ways of a set.
const WAYS: usize = 4;
/// Bytes of records the cache holds at most (2,048 records of 256 bytes).
const CACHE_BYTES: usize = 512 * 1024;
/// Sets at most (2,048 records with 128- or 256-byte inodes).
const MAX_SETS: usize = 512;
/// Bytes of one chunk of records.
const CHUNK_BYTES: usize = 16 * 1024;

/// Copies of inode records, by inode number.
pub(crate) struct InodeCache {
    record_size: usize,
    sets: usize,
    /// Per way: the inode number held (0: empty) and when it was last
    /// used.
    tags: Vec<(u32, u32)>,
    /// The records, way after way, in chunks of `per_chunk` (empty until
    /// used).
    chunks: Vec<Vec<u8>>,
    per_chunk: usize,
    tick: u32,
    hits: u64,
    misses: u64,
}

impl InodeCache {
    /// A cache for records of `record_size` bytes (nothing allocated yet).
    pub(crate) fn new(record_size: usize) -> InodeCache {
        let sets = (CACHE_BYTES / WAYS / record_size.max(1)).clamp(1, MAX_SETS);
        let per_chunk = (CHUNK_BYTES / record_size.max(1)).max(1);
        InodeCache { record_size, sets, tags: Vec::new(), chunks: Vec::new(), per_chunk, tick: 0, hits: 0, misses: 0 }
    }

    /// Records the cache can hold.
    pub(crate) fn capacity(&self) -> usize {
        self.sets * WAYS
    }

    fn set_of(&self, ino: u32) -> usize {
        ino as usize % self.sets
    }

    fn way_of(&self, ino: u32) -> Option<usize> {
        let base = self.set_of(ino) * WAYS;
        (base..base + WAYS).find(|&w| self.tags.get(w).is_some_and(|t| t.0 == ino))
    }

    /// The bytes of way `way`, its chunk allocated at the first use.
    fn record_mut(&mut self, way: usize) -> &mut [u8] {
        let size = self.record_size;
        let chunk = &mut self.chunks[way / self.per_chunk];
        if chunk.is_empty() {
            chunk.resize(self.per_chunk * size, 0);
        }
        let at = way % self.per_chunk * size;
        &mut chunk[at..at + size]
    }

    fn record(&self, way: usize) -> &[u8] {
        let size = self.record_size;
        let at = way % self.per_chunk * size;
        &self.chunks[way / self.per_chunk][at..at + size]
    }

    fn touch(&mut self, way: usize) {
        self.tick = self.tick.wrapping_add(1);
        self.tags[way].1 = self.tick;
    }

    /// The record of `ino`, if held.
    pub(crate) fn get(&mut self, ino: u32) -> Option<&[u8]> {
        if ino == 0 {
            return None;
        }
        let Some(way) = self.way_of(ino) else {
            self.misses += 1;
            return None;
        };
        self.hits += 1;
        self.touch(way);
        Some(self.record(way))
    }

    /// Holds `record` (exactly the record size) for `ino`, in place of its
    /// old copy or of the set's least recently used one.
    pub(crate) fn put(&mut self, ino: u32, record: &[u8]) {
        if ino == 0 || record.len() != self.record_size {
            return;
        }
        if self.tags.is_empty() {
            self.tags.resize(self.capacity(), (0, 0));
            self.chunks.resize_with(self.capacity().div_ceil(self.per_chunk), Vec::new);
        }
        let way = self.way_of(ino).unwrap_or_else(|| {
            let base = self.set_of(ino) * WAYS;
            // An empty way, else the one used longest ago (ages measured
            // from now, so the counter wrapping around does no harm).
            let now = self.tick;
            (base..base + WAYS).max_by_key(|&w| if self.tags[w].0 == 0 { u32::MAX } else { now.wrapping_sub(self.tags[w].1) }).unwrap_or(base)
        });
        self.tags[way].0 = ino;
        self.touch(way);
        self.record_mut(way).copy_from_slice(record);
    }

    /// Updates the copy of `ino` if one is held (a write that need not
    /// bring the record in).
    pub(crate) fn update(&mut self, ino: u32, record: &[u8]) {
        if let Some(way) = self.way_of(ino) {
            if record.len() == self.record_size {
                self.record_mut(way).copy_from_slice(record);
            } else {
                self.tags[way].0 = 0;
            }
        }
    }

    /// Forgets the copy of `ino`.
    pub(crate) fn forget(&mut self, ino: u32) {
        if let Some(way) = self.way_of(ino) {
            self.tags[way].0 = 0;
        }
    }

    /// Forgets everything and frees the memory.
    pub(crate) fn clear(&mut self) -> usize {
        let held = self.tags.iter().filter(|t| t.0 != 0).count();
        self.tags = Vec::new();
        self.chunks = Vec::new();
        held
    }

    /// Records held now.
    pub(crate) fn len(&self) -> usize {
        self.tags.iter().filter(|t| t.0 != 0).count()
    }

    /// (hits, misses) since the mount.
    pub(crate) fn counts(&self) -> (u64, u64) {
        (self.hits, self.misses)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(v: u8) -> Vec<u8> {
        alloc::vec![v; 256]
    }

    #[test]
    fn holds_bounded_records_and_replaces_least_recent() {
        let mut c = InodeCache::new(256);
        assert_eq!(c.capacity(), 2048);
        assert!(c.get(5).is_none());
        c.put(5, &rec(5));
        assert_eq!(c.get(5).unwrap()[0], 5);
        // Five inodes of one set: the least recently used goes.
        let set = c.sets as u32;
        for k in 1..=4 {
            c.put(5 + k * set, &rec(k as u8));
        }
        assert!(c.get(5).is_none(), "the oldest way was replaced");
        assert_eq!(c.get(5 + set).unwrap()[0], 1);
        // Touch 5+set; the next newcomer replaces 5+2*set instead.
        c.put(5 + 5 * set, &rec(9));
        assert!(c.get(5 + set).is_some());
        assert!(c.get(5 + 2 * set).is_none());
        assert!(c.len() <= WAYS);
    }

    #[test]
    fn update_changes_only_held_records_and_clear_frees() {
        let mut c = InodeCache::new(128);
        c.update(7, &alloc::vec![1; 128]);
        assert!(c.get(7).is_none(), "update does not bring a record in");
        c.put(7, &alloc::vec![1; 128]);
        c.update(7, &alloc::vec![2; 128]);
        assert_eq!(c.get(7).unwrap()[127], 2);
        assert_eq!(c.clear(), 1);
        assert!(c.get(7).is_none());
        assert_eq!(c.chunks.capacity(), 0);
    }

    #[test]
    fn large_records_keep_the_memory_bound() {
        let c = InodeCache::new(1024);
        assert_eq!(c.capacity() * 1024, CACHE_BYTES);
    }
}
