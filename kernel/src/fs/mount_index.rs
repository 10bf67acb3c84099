//! An index over a mount namespace's table, so that what every path walk
//! and every line of /proc/PID/mountinfo asks (the mount on a directory of
//! a mount, the mount point of a mount root, a mount by its id) costs a
//! map lookup rather than a scan of the table: a stack of 100,000 binds on
//! one directory (fs.mount-max) is then crossed in O(height log n), and a
//! table of 10,000 mounts is listed in O(n log n).
//!
//! The table (`MountNs::mounts`, a vector in the order mounts were made)
//! stays the one truth; the index records, per position, the fields it is
//! keyed by. After each change (`MountNs::update_filters`) it compares
//! those with the table and re-indexes only from the first position that
//! differs: adding a mount, or taking away the last one, costs O(n) cheap
//! comparisons plus O(log n) map updates. Every position a lookup returns
//! is checked against the table by its caller.

use alloc::collections::BTreeMap;
use alloc::vec::Vec;

use super::mount::Mount;

/// (device, inode) of a node.
pub type Key = (u64, u64);

/// What the index knows of a mount at one position.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Seen {
    id: u32,
    parent_id: u32,
    on_key: Option<Key>,
    root_key: Key,
}

impl Seen {
    fn of(m: &Mount) -> Seen {
        Seen { id: m.id, parent_id: m.parent_id, on_key: m.on_key(), root_key: m.root_key() }
    }

    /// Whether the mount is on a directory other than its own root (not a
    /// directory bound over itself).
    fn crossing(&self) -> bool {
        self.on_key.is_some_and(|on| on != self.root_key)
    }
}

/// The index of one table.
#[derive(Default)]
pub struct MountIndex {
    seen: Vec<Seen>,
    by_id: BTreeMap<u32, usize>,
    /// (parent mount id, covered directory): the positions of the mounts
    /// made there, in table order (the last is on top).
    by_parent_on: BTreeMap<(u32, Key), Vec<usize>>,
    /// Covered directory: the positions of the mounts on it whose root is
    /// another node.
    crossing_on: BTreeMap<Key, Vec<usize>>,
    /// Mount root: the positions of the mounts rooted there that cover
    /// another node.
    crossing_root: BTreeMap<Key, Vec<usize>>,
    /// Mount root: the positions of every mount rooted there.
    by_root: BTreeMap<Key, Vec<usize>>,
}

fn insert<K: Ord>(map: &mut BTreeMap<K, Vec<usize>>, key: K, pos: usize) {
    let list = map.entry(key).or_default();
    // Positions are indexed in increasing order, so the list stays sorted.
    list.push(pos);
}

fn remove<K: Ord>(map: &mut BTreeMap<K, Vec<usize>>, key: K, pos: usize) {
    if let Some(list) = map.get_mut(&key) {
        if let Some(i) = list.iter().rposition(|&p| p == pos) {
            list.remove(i);
        }
        if list.is_empty() {
            map.remove(&key);
        }
    }
}

impl MountIndex {
    /// Brings the index up to date with `mounts` (called under the
    /// table's lock after every change).
    pub fn update(&mut self, mounts: &[Mount]) {
        let same = self.seen.iter().zip(mounts.iter()).take_while(|(s, m)| **s == Seen::of(m)).count();
        // Forget what changed (from the end, so positions stay sorted).
        while self.seen.len() > same {
            let pos = self.seen.len() - 1;
            let s = self.seen.pop().expect("non-empty");
            if self.by_id.get(&s.id) == Some(&pos) {
                self.by_id.remove(&s.id);
            }
            if let Some(on) = s.on_key {
                remove(&mut self.by_parent_on, (s.parent_id, on), pos);
            }
            if s.crossing() {
                remove(&mut self.crossing_on, s.on_key.expect("crossing"), pos);
                remove(&mut self.crossing_root, s.root_key, pos);
            }
            remove(&mut self.by_root, s.root_key, pos);
        }
        for (pos, m) in mounts.iter().enumerate().skip(same) {
            let s = Seen::of(m);
            self.by_id.insert(s.id, pos);
            if let Some(on) = s.on_key {
                insert(&mut self.by_parent_on, (s.parent_id, on), pos);
            }
            if s.crossing() {
                insert(&mut self.crossing_on, s.on_key.expect("crossing"), pos);
                insert(&mut self.crossing_root, s.root_key, pos);
            }
            insert(&mut self.by_root, s.root_key, pos);
            self.seen.push(s);
        }
    }

    /// The position of the mount with id `id`.
    pub fn position(&self, id: u32) -> Option<usize> {
        self.by_id.get(&id).copied()
    }

    /// The position of the last mount made on directory `on` of mount
    /// `parent` (Linux's lookup_mnt).
    pub fn on_of(&self, parent: u32, on: Key) -> Option<usize> {
        self.by_parent_on.get(&(parent, on)).and_then(|l| l.last().copied())
    }

    /// The position of the last mount on `on` whose root is another node.
    pub fn crossing_on(&self, on: Key) -> Option<usize> {
        self.crossing_on.get(&on).and_then(|l| l.last().copied())
    }

    /// The position of the last mount rooted at `root` that covers
    /// another node.
    pub fn crossing_root(&self, root: Key) -> Option<usize> {
        self.crossing_root.get(&root).and_then(|l| l.last().copied())
    }

    /// The positions of the mounts rooted at `root`, in table order.
    pub fn rooted_at(&self, root: Key) -> &[usize] {
        self.by_root.get(&root).map_or(&[], |l| l.as_slice())
    }

    /// How many mounts the table had at the last update.
    pub fn len(&self) -> usize {
        self.seen.len()
    }
}
