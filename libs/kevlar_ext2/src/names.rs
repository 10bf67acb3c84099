//! The name cache: for recently searched directories, every entry's name
//! with where it lies and what it names, so a lookup in a big directory
//! (`/usr/bin`, `/usr/lib/x86_64-linux-gnu`) is a hash probe, not a scan
//! of its blocks.
//!
//! A directory's index is built from one whole scan, the first time a
//! name is searched in it, and holds every live entry, so a name it lacks
//! is not in the directory (negative lookups need no entries of their
//! own). It then follows every change the driver makes to the directory
//! (`add_entry`, `remove_entry`, `retarget_entry`), each under the file
//! system's lock like the change itself; an operation that fails halfway
//! forgets the index, and so does freeing the directory's inode (its
//! number may come back as another directory). Hashed-tree directories
//! are scanned like the others (their index blocks hold no live entry),
//! so they are cached alike.
//!
//! Memory is bounded: past [`MAX_ENTRIES`] entries, [`MAX_NAME_BYTES`]
//! bytes of names or [`MAX_DIRS`] directories in all, the indexes used
//! longest ago go; a directory
//! bigger than a quarter of that is not indexed (it is scanned as
//! before). [`NameCache::clear`] frees everything (drop_caches, memory
//! pressure).

use alloc::collections::BTreeMap;
use alloc::vec::Vec;

/// Entries all the indexes hold at most.
pub(crate) const MAX_ENTRIES: usize = 32 * 1024;
/// Bytes of names all the indexes hold at most.
pub(crate) const MAX_NAME_BYTES: usize = 1024 * 1024;
/// Directories indexed at most (an eviction looks at each).
pub(crate) const MAX_DIRS: usize = 512;

/// What an entry names and where it lies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Found {
    /// The inode.
    pub ino: u32,
    /// The type code as in the entry.
    pub code: u8,
    /// The directory block holding the entry.
    pub block: u32,
    /// Its offset in the block.
    pub offset: usize,
}

#[derive(Clone, Copy)]
struct Slot {
    hash: u32,
    name_at: u32,
    name_len: u8,
    found: Found,
    /// The next slot in the bucket's chain, or `NONE`.
    next: u32,
}

const NONE: u32 = u32::MAX;

/// The index of one directory: chained hash buckets over slots whose
/// names lie in one byte arena (no allocation per name).
pub(crate) struct DirIndex {
    buckets: Vec<u32>,
    slots: Vec<Slot>,
    names: Vec<u8>,
    /// Slots removed (still in `slots`, out of every chain).
    dead: usize,
    last_use: u64,
}

fn hash(name: &[u8]) -> u32 {
    // FNV-1a: cheap, and names are short.
    let mut h: u32 = 0x811c_9dc5;
    for &b in name {
        h = (h ^ u32::from(b)).wrapping_mul(0x0100_0193);
    }
    h
}

impl DirIndex {
    pub(crate) fn new() -> DirIndex {
        DirIndex { buckets: alloc::vec![NONE; 16], slots: Vec::new(), names: Vec::new(), dead: 0, last_use: 0 }
    }

    /// Live entries.
    pub(crate) fn len(&self) -> usize {
        self.slots.len() - self.dead
    }

    fn bucket(&self, h: u32) -> usize {
        h as usize & (self.buckets.len() - 1)
    }

    fn name_of(&self, s: &Slot) -> &[u8] {
        &self.names[s.name_at as usize..s.name_at as usize + usize::from(s.name_len)]
    }

    fn position(&self, name: &[u8]) -> Option<usize> {
        let h = hash(name);
        let mut at = self.buckets[self.bucket(h)];
        while at != NONE {
            let s = &self.slots[at as usize];
            if s.hash == h && self.name_of(s) == name {
                return Some(at as usize);
            }
            at = s.next;
        }
        None
    }

    /// The entry `name`, if the directory has it.
    pub(crate) fn get(&self, name: &[u8]) -> Option<Found> {
        self.position(name).map(|i| self.slots[i].found)
    }

    /// Adds entry `name` (a name already present keeps its first entry,
    /// as a scan finds the first).
    pub(crate) fn insert(&mut self, name: &[u8], found: Found) {
        if name.len() > usize::from(u8::MAX) || self.position(name).is_some() {
            return;
        }
        if self.dead > 64 && self.dead > self.len() {
            self.compact();
        }
        if self.slots.len() + 1 > 2 * self.buckets.len() {
            self.rehash(self.buckets.len() * 4);
        }
        let h = hash(name);
        let b = self.bucket(h);
        let slot = Slot { hash: h, name_at: self.names.len() as u32, name_len: name.len() as u8, found, next: self.buckets[b] };
        self.names.extend_from_slice(name);
        self.buckets[b] = self.slots.len() as u32;
        self.slots.push(slot);
    }

    /// Removes entry `name`; tells whether it was there.
    pub(crate) fn remove(&mut self, name: &[u8]) -> bool {
        let Some(i) = self.position(name) else { return false };
        let next = self.slots[i].next;
        let b = self.bucket(self.slots[i].hash);
        if self.buckets[b] == i as u32 {
            self.buckets[b] = next;
        } else {
            let mut at = self.buckets[b];
            while self.slots[at as usize].next != i as u32 {
                at = self.slots[at as usize].next;
            }
            self.slots[at as usize].next = next;
        }
        self.slots[i].next = NONE;
        self.slots[i].name_len = 0;
        self.slots[i].found.ino = 0;
        self.dead += 1;
        true
    }

    /// Points entry `name` elsewhere.
    pub(crate) fn set(&mut self, name: &[u8], ino: u32, code: u8) -> bool {
        let Some(i) = self.position(name) else { return false };
        self.slots[i].found.ino = ino;
        self.slots[i].found.code = code;
        true
    }

    fn rehash(&mut self, buckets: usize) {
        self.buckets = alloc::vec![NONE; buckets];
        for i in 0..self.slots.len() {
            if self.slots[i].found.ino == 0 && self.slots[i].name_len == 0 {
                continue;
            }
            let b = self.bucket(self.slots[i].hash);
            self.slots[i].next = self.buckets[b];
            self.buckets[b] = i as u32;
        }
    }

    /// Drops removed slots and their names.
    fn compact(&mut self) {
        let old_slots = core::mem::take(&mut self.slots);
        let old_names = core::mem::take(&mut self.names);
        for s in old_slots.into_iter().filter(|s| !(s.found.ino == 0 && s.name_len == 0)) {
            let name = &old_names[s.name_at as usize..s.name_at as usize + usize::from(s.name_len)];
            let at = self.names.len() as u32;
            self.names.extend_from_slice(name);
            self.slots.push(Slot { name_at: at, next: NONE, ..s });
        }
        self.dead = 0;
        let buckets = self.buckets.len();
        self.rehash(buckets);
    }

    /// Bytes of names held (removed ones too, until compacted).
    pub(crate) fn name_bytes(&self) -> usize {
        self.names.len()
    }
}

/// The indexes of the directories searched last, by inode number.
#[derive(Default)]
pub(crate) struct NameCache {
    dirs: BTreeMap<u32, DirIndex>,
    /// Slots (removed ones too) and name bytes of all the indexes.
    slots: usize,
    name_bytes: usize,
    clock: u64,
    hits: u64,
    misses: u64,
}

impl NameCache {
    /// Tells whether a directory index is small enough to keep.
    pub(crate) fn fits(index: &DirIndex) -> bool {
        index.slots.len() <= MAX_ENTRIES / 4 && index.name_bytes() <= MAX_NAME_BYTES / 4
    }

    /// Searches `name` in `dir`'s index: `None` when `dir` has none,
    /// `Some(None)` when it has and the name is not in the directory.
    pub(crate) fn lookup(&mut self, dir: u32, name: &[u8]) -> Option<Option<Found>> {
        self.clock += 1;
        let Some(index) = self.dirs.get_mut(&dir) else {
            self.misses += 1;
            return None;
        };
        self.hits += 1;
        index.last_use = self.clock;
        Some(index.get(name))
    }

    /// Keeps a freshly built, complete index of `dir`.
    pub(crate) fn install(&mut self, dir: u32, mut index: DirIndex) {
        self.forget(dir);
        if !Self::fits(&index) {
            return;
        }
        self.clock += 1;
        index.last_use = self.clock;
        self.slots += index.slots.len();
        self.name_bytes += index.name_bytes();
        self.dirs.insert(dir, index);
        self.make_room(dir);
    }

    /// Drops the indexes used longest ago (never `keep`'s) until the
    /// totals are within bounds.
    fn make_room(&mut self, keep: u32) {
        while self.slots > MAX_ENTRIES || self.name_bytes > MAX_NAME_BYTES || self.dirs.len() > MAX_DIRS {
            let Some(oldest) = self.dirs.iter().filter(|(&d, _)| d != keep).min_by_key(|(_, i)| i.last_use).map(|(&d, _)| d) else { break };
            self.forget(oldest);
        }
    }

    /// Applies `change` to `dir`'s index, if it has one, keeping the
    /// totals; an index grown too big is dropped.
    fn change(&mut self, dir: u32, change: impl FnOnce(&mut DirIndex)) {
        let Some(index) = self.dirs.get_mut(&dir) else { return };
        let (slots, bytes) = (index.slots.len(), index.name_bytes());
        change(index);
        self.slots = self.slots + index.slots.len() - slots;
        self.name_bytes = self.name_bytes + index.name_bytes() - bytes;
        if !Self::fits(index) {
            self.forget(dir);
            return;
        }
        self.make_room(dir);
    }

    /// Entry `name` was added to `dir`.
    pub(crate) fn added(&mut self, dir: u32, name: &[u8], found: Found) {
        self.change(dir, |index| index.insert(name, found));
    }

    /// Entry `name` was removed from `dir`.
    pub(crate) fn removed(&mut self, dir: u32, name: &[u8]) {
        self.change(dir, |index| {
            index.remove(name);
        });
    }

    /// Entry `name` of `dir` now names `ino`.
    pub(crate) fn retargeted(&mut self, dir: u32, name: &[u8], ino: u32, code: u8) {
        let mut missing = false;
        self.change(dir, |index| missing = !index.set(name, ino, code));
        if missing {
            // Cannot be, the index being complete: trust the disk.
            self.forget(dir);
        }
    }

    /// Forgets `dir`'s index.
    pub(crate) fn forget(&mut self, dir: u32) {
        if let Some(index) = self.dirs.remove(&dir) {
            self.slots -= index.slots.len();
            self.name_bytes -= index.name_bytes();
        }
    }

    /// Forgets every index; returns how many there were.
    pub(crate) fn clear(&mut self) -> usize {
        let n = self.dirs.len();
        self.dirs = BTreeMap::new();
        self.slots = 0;
        self.name_bytes = 0;
        n
    }

    /// Directories indexed now.
    pub(crate) fn dirs(&self) -> usize {
        self.dirs.len()
    }

    /// Entries held now.
    pub(crate) fn entries(&self) -> usize {
        self.dirs.values().map(DirIndex::len).sum()
    }

    /// (hits, misses) since the mount.
    pub(crate) fn counts(&self) -> (u64, u64) {
        (self.hits, self.misses)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::format;

    fn at(ino: u32) -> Found {
        Found { ino, code: 1, block: 100, offset: ino as usize * 12 }
    }

    #[test]
    fn insert_get_remove_set_across_growth_and_compaction() {
        let mut d = DirIndex::new();
        for i in 1..=5000u32 {
            d.insert(format!("file{}", i).as_bytes(), at(i));
        }
        assert_eq!(d.len(), 5000);
        assert_eq!(d.get(b"file4321"), Some(at(4321)));
        assert_eq!(d.get(b"file0"), None);
        // A duplicate keeps the first entry.
        d.insert(b"file7", at(99));
        assert_eq!(d.get(b"file7").unwrap().ino, 7);
        for i in (1..=5000u32).filter(|i| i % 3 != 0) {
            assert!(d.remove(format!("file{}", i).as_bytes()));
        }
        assert!(!d.remove(b"file1"));
        assert!(d.set(b"file3", 77, 2));
        // Inserting after many removals compacts; everything stays right.
        for i in 6000..6100u32 {
            d.insert(format!("new{}", i).as_bytes(), at(i));
        }
        assert!(d.dead == 0, "compacted");
        for i in 1..=5000u32 {
            let want = if i == 3 { Some(Found { ino: 77, code: 2, ..at(3) }) } else if i % 3 == 0 { Some(at(i)) } else { None };
            assert_eq!(d.get(format!("file{}", i).as_bytes()), want, "file{}", i);
        }
        assert_eq!(d.get(b"new6050"), Some(at(6050)));
        assert_eq!(d.len(), 5000 / 3 + 100);
    }

    #[test]
    fn cache_evicts_the_least_recently_used_directory() {
        let mut c = NameCache::default();
        let per = MAX_ENTRIES / 4;
        for dir in 1..=4u32 {
            let mut d = DirIndex::new();
            for i in 0..per as u32 {
                d.insert(format!("{}", i).as_bytes(), at(i + 1));
            }
            c.install(dir, d);
        }
        assert_eq!(c.dirs(), 4);
        assert_eq!(c.lookup(1, b"5"), Some(Some(at(6))));
        assert_eq!(c.lookup(1, b"nope"), Some(None));
        let mut d = DirIndex::new();
        d.insert(b"x", at(1));
        c.install(9, d);
        // Directory 2 was used longest ago.
        assert_eq!(c.lookup(2, b"5"), None);
        assert!(c.lookup(1, b"5").is_some());
        assert!(c.entries() <= MAX_ENTRIES);
        // Too big to index at all.
        let mut big = DirIndex::new();
        for i in 0..(per + 1) as u32 {
            big.insert(format!("{}", i).as_bytes(), at(1));
        }
        c.install(10, big);
        assert_eq!(c.lookup(10, b"1"), None);
        // Growing past the bound drops the index; totals stay exact.
        for i in 0..per as u32 {
            c.added(9, format!("y{}", i).as_bytes(), at(1));
        }
        assert_eq!(c.lookup(9, b"x"), None, "grown too big, forgotten");
        assert_eq!(c.slots, c.dirs.values().map(|d| d.slots.len()).sum::<usize>());
        c.removed(1, b"5");
        assert_eq!(c.lookup(1, b"5"), Some(None));
        c.retargeted(1, b"6", 42, 7);
        assert_eq!(c.lookup(1, b"6").unwrap().unwrap().ino, 42);
        assert!(c.slots <= MAX_ENTRIES);
        assert_eq!(c.clear(), 3);
        assert_eq!(c.dirs(), 0);
    }
}
