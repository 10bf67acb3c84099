//! Buddy allocator for physical page frames.
//!
//! The allocator hands out naturally aligned blocks of `2^order` frames, for
//! orders `0..=MAX_ORDER`. All bookkeeping lives in a caller-provided slice of
//! [`FrameLink`]s (one per frame), so the allocator itself never allocates
//! memory: the kernel carves that slice out of physical memory before any heap
//! exists.
//!
//! Each free block is represented by the link of its first frame, which
//! records the block's order and threads it onto an intrusive doubly-linked
//! list for that order. Allocating and freeing therefore cost O(1) plus at most
//! `MAX_ORDER` split or merge steps.

#![cfg_attr(not(test), no_std)]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

/// Largest supported block order: blocks range from `2^0` frames (4 KiB) to
/// `2^MAX_ORDER` frames (1 GiB).
pub const MAX_ORDER: usize = 18;

/// List terminator; also why frame numbers must stay below `u32::MAX`.
const NONE: u32 = u32::MAX;

/// Set in [`FrameLink::state`] when the frame is the first frame of a free
/// block. Keeping every other bit pattern meaningful only alongside this flag
/// is what lets a zero-filled link mean "not free".
const FREE: u32 = 1 << 31;

const ORDER_MASK: u32 = 0x1f;

/// Per-frame metadata used by [`BuddyAllocator`].
///
/// The all-zero value ([`FrameLink::ZERO`], also the `Default`) means the
/// frame is not the head of a free block, so a zero-filled region of memory is
/// a valid initial metadata array.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FrameLink {
    next: u32,
    prev: u32,
    state: u32,
}

// The metadata costs 12 bytes per 4 KiB frame (~0.3% of RAM); guard against
// accidental growth.
const _: () = assert!(core::mem::size_of::<FrameLink>() <= 12);

impl FrameLink {
    /// Metadata for a frame that is not managed or not free.
    pub const ZERO: Self = Self {
        next: 0,
        prev: 0,
        state: 0,
    };

    /// Returns the block order if this frame heads a free block.
    fn free_order(&self) -> Option<usize> {
        (self.state & FREE != 0).then_some((self.state & ORDER_MASK) as usize)
    }
}

/// A buddy allocator over page frames `0..links.len()`.
pub struct BuddyAllocator<'a> {
    links: &'a mut [FrameLink],
    /// First block of each order's free list, or `NONE`.
    heads: [u32; MAX_ORDER + 1],
    free_frames: usize,
    managed_frames: usize,
}

impl<'a> BuddyAllocator<'a> {
    /// Creates an allocator that manages no frames yet.
    ///
    /// `links[n]` holds the metadata of frame `n`; every entry must be
    /// [`FrameLink::ZERO`]. Frames at or above `u32::MAX` are never managed,
    /// since list links are 32-bit.
    pub fn new(links: &'a mut [FrameLink]) -> Self {
        let usable = links.len().min(NONE as usize);
        Self {
            links: &mut links[..usable],
            heads: [NONE; MAX_ORDER + 1],
            free_frames: 0,
            managed_frames: 0,
        }
    }

    /// Hands the frames `start_frame..end_frame` to the allocator as free.
    ///
    /// The range need not be aligned. It is inserted as the largest naturally
    /// aligned blocks that fit, so the cost grows with the logarithm of the
    /// range length rather than with the number of frames. Frames beyond the
    /// metadata slice are ignored.
    ///
    /// # Panics
    ///
    /// Panics if part of the range is already free.
    pub fn add_free_range(&mut self, start_frame: usize, end_frame: usize) {
        let end = end_frame.min(self.links.len());
        let mut frame = start_frame;
        while frame < end {
            let order = largest_fitting_order(frame, end - frame);
            assert!(
                self.enclosing_free_block(frame).is_none(),
                "frame {frame:#x} added to the buddy allocator twice"
            );
            self.managed_frames += 1 << order;
            self.release(frame, order);
            frame += 1 << order;
        }
    }

    /// Allocates a naturally aligned block of `2^order` frames and returns its
    /// first frame, or `None` if no block that large is free.
    pub fn alloc(&mut self, order: usize) -> Option<usize> {
        if order > MAX_ORDER {
            return None;
        }
        let found = (order..=MAX_ORDER).find(|&o| self.heads[o] != NONE)?;
        let frame = self.heads[found] as usize;
        self.unlink(frame, found);
        // Keep the low half and give back the upper halves, largest first.
        for o in (order..found).rev() {
            self.push(frame + (1 << o), o);
        }
        self.free_frames -= 1 << order;
        Some(frame)
    }

    /// Returns the block of `2^order` frames starting at `frame`, merging it
    /// with its free buddies.
    ///
    /// # Panics
    ///
    /// Panics if `order > MAX_ORDER`, if `frame` is not aligned to the block
    /// size, if the block lies outside the metadata slice, if `frame` is
    /// already free, or if more frames would be free than were ever added.
    pub fn free(&mut self, frame: usize, order: usize) {
        assert!(
            order <= MAX_ORDER,
            "freeing block of order {order} > MAX_ORDER"
        );
        let size = 1usize << order;
        assert!(
            frame & (size - 1) == 0,
            "freeing misaligned block: frame {frame:#x}, order {order}"
        );
        assert!(
            size <= self.links.len().saturating_sub(frame),
            "freeing block beyond managed memory: frame {frame:#x}, order {order}"
        );
        assert!(
            self.enclosing_free_block(frame).is_none(),
            "double free of frame {frame:#x}"
        );
        assert!(
            self.free_frames + size <= self.managed_frames,
            "freeing more frames than were ever added: frame {frame:#x}, order {order}"
        );
        self.release(frame, order);
    }

    /// Returns the number of frames currently free.
    pub fn free_frames(&self) -> usize {
        self.free_frames
    }

    /// Returns the number of frames ever handed over with
    /// [`add_free_range`](Self::add_free_range).
    pub fn managed_frames(&self) -> usize {
        self.managed_frames
    }

    /// Returns the order of the largest free block, or `None` if nothing is
    /// free.
    pub fn largest_free_order(&self) -> Option<usize> {
        (0..=MAX_ORDER).rev().find(|&o| self.heads[o] != NONE)
    }

    /// Asserts that the free lists and the per-frame metadata agree.
    ///
    /// Checks that every listed block is in bounds, naturally aligned, marked
    /// free with its list's order, correctly back-linked, not overlapping any
    /// other free block and not left unmerged with a free buddy; that no
    /// frame is marked free without being listed; and that the listed frames
    /// add up to [`free_frames`](Self::free_frames). This walks the whole
    /// metadata slice, so it is meant for tests and self-tests.
    ///
    /// # Panics
    ///
    /// Panics on the first inconsistency found.
    pub fn check_invariants(&self) {
        let len = self.links.len();
        let mut listed_blocks = 0usize;
        let mut listed_frames = 0usize;
        for (order, &head) in self.heads.iter().enumerate() {
            let size = 1usize << order;
            let mut prev = NONE;
            let mut cur = head;
            while cur != NONE {
                let frame = cur as usize;
                // Every block has its own head frame, so a longer walk means a
                // cycle.
                assert!(listed_blocks < len, "free list of order {order} loops");
                assert!(
                    size <= len.saturating_sub(frame),
                    "free block {frame:#x} (order {order}) out of bounds"
                );
                assert!(
                    frame & (size - 1) == 0,
                    "free block {frame:#x} misaligned for order {order}"
                );
                let link = &self.links[frame];
                assert_eq!(
                    link.free_order(),
                    Some(order),
                    "block {frame:#x} on free list {order} has wrong state"
                );
                assert_eq!(link.prev, prev, "block {frame:#x} has a stale prev link");
                assert_eq!(
                    self.enclosing_free_block(frame),
                    Some((frame, order)),
                    "free block {frame:#x} (order {order}) overlaps another free block"
                );
                if order < MAX_ORDER {
                    let buddy = frame ^ size;
                    assert!(
                        buddy >= len || self.links[buddy].free_order() != Some(order),
                        "free buddies {frame:#x} and {buddy:#x} (order {order}) were not merged"
                    );
                }
                listed_blocks += 1;
                listed_frames += size;
                prev = cur;
                cur = link.next;
            }
        }
        let marked_blocks = self
            .links
            .iter()
            .filter(|link| link.free_order().is_some())
            .count();
        assert_eq!(
            marked_blocks, listed_blocks,
            "some frames are marked free but not on any free list"
        );
        assert_eq!(
            listed_frames, self.free_frames,
            "free lists disagree with the free frame count"
        );
        assert!(
            self.free_frames <= self.managed_frames,
            "more frames free than managed"
        );
    }

    /// Marks a block free, merging it with free buddies as far as possible.
    fn release(&mut self, mut frame: usize, mut order: usize) {
        self.free_frames += 1 << order;
        while order < MAX_ORDER {
            let buddy = frame ^ (1 << order);
            // A buddy that heads a smaller free block is only partly free, so
            // the order must match exactly.
            if buddy >= self.links.len() || self.links[buddy].free_order() != Some(order) {
                break;
            }
            self.unlink(buddy, order);
            frame = frame.min(buddy);
            order += 1;
        }
        self.push(frame, order);
    }

    /// Finds the outermost free block containing `frame`, as
    /// `(first frame, order)`.
    fn enclosing_free_block(&self, frame: usize) -> Option<(usize, usize)> {
        // Blocks are naturally aligned, so the only candidate heads are
        // `frame` rounded down to each order.
        (0..=MAX_ORDER).rev().find_map(|o| {
            let head = frame & !((1usize << o) - 1);
            let head_order = self.links[head].free_order()?;
            (frame < head + (1 << head_order)).then_some((head, head_order))
        })
    }

    /// Puts a block at the front of its order's free list.
    fn push(&mut self, frame: usize, order: usize) {
        let next = self.heads[order];
        if next != NONE {
            self.links[next as usize].prev = frame as u32;
        }
        self.links[frame] = FrameLink {
            next,
            prev: NONE,
            state: FREE | order as u32,
        };
        self.heads[order] = frame as u32;
    }

    /// Takes a block off its order's free list and marks it not free.
    fn unlink(&mut self, frame: usize, order: usize) {
        let FrameLink { next, prev, .. } = self.links[frame];
        if prev == NONE {
            self.heads[order] = next;
        } else {
            self.links[prev as usize].next = next;
        }
        if next != NONE {
            self.links[next as usize].prev = prev;
        }
        self.links[frame] = FrameLink::ZERO;
    }
}

/// Returns the largest order whose block can start at `frame` (natural
/// alignment) and fit in `len > 0` frames.
fn largest_fitting_order(frame: usize, len: usize) -> usize {
    let align = frame.trailing_zeros() as usize;
    let fit = (usize::BITS - 1 - len.leading_zeros()) as usize;
    align.min(fit).min(MAX_ORDER)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn zeroed(frames: usize) -> Vec<FrameLink> {
        vec![FrameLink::ZERO; frames]
    }

    /// Lists the free blocks as sorted `(first frame, order)` pairs.
    fn free_blocks(a: &BuddyAllocator) -> Vec<(usize, usize)> {
        let mut blocks = Vec::new();
        for (order, &head) in a.heads.iter().enumerate() {
            let mut cur = head;
            while cur != NONE {
                blocks.push((cur as usize, order));
                cur = a.links[cur as usize].next;
            }
        }
        blocks.sort_unstable();
        blocks
    }

    /// Minimal xorshift64 generator, so the stress test needs no crates.
    struct XorShift(u64);

    impl XorShift {
        fn next(&mut self) -> u64 {
            let mut x = self.0;
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            self.0 = x;
            x
        }

        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
    }

    #[test]
    fn zero_link_is_default_and_small() {
        assert_eq!(FrameLink::ZERO, FrameLink::default());
        assert_eq!(FrameLink::ZERO.free_order(), None);
        assert!(core::mem::size_of::<FrameLink>() <= 12);
    }

    #[test]
    fn new_allocator_has_nothing_free() {
        let mut links = zeroed(64);
        let mut a = BuddyAllocator::new(&mut links);
        assert_eq!(a.free_frames(), 0);
        assert_eq!(a.managed_frames(), 0);
        assert_eq!(a.largest_free_order(), None);
        assert_eq!(a.alloc(0), None);
        a.check_invariants();
    }

    #[test]
    fn round_trip_at_every_order() {
        let total = 1 << MAX_ORDER;
        let mut links = zeroed(total);
        let mut a = BuddyAllocator::new(&mut links);
        a.add_free_range(0, total);
        assert_eq!(free_blocks(&a), [(0, MAX_ORDER)]);
        for order in 0..=MAX_ORDER {
            let frame = a.alloc(order).expect("allocation failed");
            assert_eq!(frame % (1 << order), 0, "order {order} block misaligned");
            assert_eq!(a.free_frames(), total - (1 << order));
            a.check_invariants();
            // Splitting leaves one free block of each order between the
            // allocated one and the original.
            assert_eq!(free_blocks(&a).len(), MAX_ORDER - order);
            a.free(frame, order);
            a.check_invariants();
            assert_eq!(free_blocks(&a), [(0, MAX_ORDER)]);
        }
    }

    #[test]
    fn fill_and_drain_at_every_order() {
        let total = 1 << 10;
        let mut links = zeroed(total);
        let mut a = BuddyAllocator::new(&mut links);
        a.add_free_range(0, total);
        for order in 0..=10 {
            let mut frames: Vec<usize> = core::iter::from_fn(|| a.alloc(order)).collect();
            assert_eq!(frames.len(), total >> order);
            assert_eq!(a.free_frames(), 0);
            frames.sort_unstable();
            let expected: Vec<usize> = (0..total).step_by(1 << order).collect();
            assert_eq!(frames, expected);
            for frame in frames {
                a.free(frame, order);
            }
            a.check_invariants();
            assert_eq!(free_blocks(&a), [(0, 10)]);
        }
    }

    #[test]
    fn split_and_merge_back() {
        let mut links = zeroed(16);
        let mut a = BuddyAllocator::new(&mut links);
        a.add_free_range(0, 16);
        assert_eq!(free_blocks(&a), [(0, 4)]);

        assert_eq!(a.alloc(0), Some(0));
        assert_eq!(free_blocks(&a), [(1, 0), (2, 1), (4, 2), (8, 3)]);
        a.check_invariants();

        let mut frames = vec![0];
        frames.extend(core::iter::from_fn(|| a.alloc(0)));
        frames.sort_unstable();
        assert_eq!(frames, (0..16).collect::<Vec<_>>());
        assert_eq!(a.free_frames(), 0);
        assert_eq!(a.largest_free_order(), None);

        for &frame in &[5, 0, 15, 9, 2, 12, 7, 1, 10, 3, 14, 6, 11, 4, 13, 8] {
            a.free(frame, 0);
            a.check_invariants();
        }
        assert_eq!(free_blocks(&a), [(0, 4)]);
        assert_eq!(a.free_frames(), 16);
    }

    #[test]
    fn merge_stops_at_allocated_buddy() {
        let mut links = zeroed(8);
        let mut a = BuddyAllocator::new(&mut links);
        a.add_free_range(0, 8);
        let low = a.alloc(1).unwrap();
        let high = a.alloc(1).unwrap();
        a.free(low, 1);
        a.check_invariants();
        assert_eq!(a.largest_free_order(), Some(2));
        assert!(free_blocks(&a).contains(&(low, 1)));
        a.free(high, 1);
        assert_eq!(free_blocks(&a), [(0, 3)]);
    }

    #[test]
    fn exhaustion_returns_none() {
        let mut links = zeroed(8);
        let mut a = BuddyAllocator::new(&mut links);
        a.add_free_range(0, 8);
        assert_eq!(a.alloc(4), None);
        assert_eq!(a.alloc(MAX_ORDER + 1), None);
        assert_eq!(a.alloc(usize::MAX), None);
        assert_eq!(a.alloc(3), Some(0));
        assert_eq!(a.alloc(0), None);
        assert_eq!(a.free_frames(), 0);
        a.free(0, 3);
        assert_eq!(a.alloc(2), Some(0));
        assert_eq!(a.alloc(2), Some(4));
        assert_eq!(a.alloc(0), None);
        a.check_invariants();
    }

    #[test]
    fn unaligned_ranges_with_holes() {
        let mut links = zeroed(100);
        let mut a = BuddyAllocator::new(&mut links);
        a.add_free_range(3, 20);
        a.add_free_range(37, 64);
        a.add_free_range(70, 1000);
        a.check_invariants();
        assert_eq!(a.managed_frames(), 17 + 27 + 30);
        assert_eq!(a.free_frames(), a.managed_frames());
        assert_eq!(
            free_blocks(&a),
            [
                (3, 0),
                (4, 2),
                (8, 3),
                (16, 2),
                (37, 0),
                (38, 1),
                (40, 3),
                (48, 4),
                (70, 1),
                (72, 3),
                (80, 4),
                (96, 2),
            ]
        );
        let initial = free_blocks(&a);

        let mut frames: Vec<usize> = core::iter::from_fn(|| a.alloc(0)).collect();
        frames.sort_unstable();
        let expected: Vec<usize> = (3..20).chain(37..64).chain(70..100).collect();
        assert_eq!(
            frames, expected,
            "allocated frames outside the added ranges"
        );

        for frame in frames.into_iter().rev() {
            a.free(frame, 0);
        }
        a.check_invariants();
        assert_eq!(free_blocks(&a), initial);
    }

    #[test]
    fn adjacent_ranges_merge() {
        let mut links = zeroed(8);
        let mut a = BuddyAllocator::new(&mut links);
        a.add_free_range(5, 8);
        a.add_free_range(0, 5);
        a.check_invariants();
        assert_eq!(free_blocks(&a), [(0, 3)]);
        assert_eq!(a.managed_frames(), 8);
    }

    #[test]
    fn empty_and_out_of_bounds_ranges_are_ignored() {
        let mut links = zeroed(100);
        let mut a = BuddyAllocator::new(&mut links);
        a.add_free_range(10, 10);
        a.add_free_range(20, 10);
        a.add_free_range(100, 200);
        assert_eq!(a.managed_frames(), 0);
        a.add_free_range(90, 1 << 40);
        assert_eq!(a.managed_frames(), 10);
        assert_eq!(a.free_frames(), 10);
        a.check_invariants();
    }

    #[test]
    fn large_range_is_inserted_as_few_blocks() {
        let total = (2 << MAX_ORDER) + 5;
        let mut links = zeroed(total);
        let mut a = BuddyAllocator::new(&mut links);
        a.add_free_range(1, total);
        a.check_invariants();
        assert_eq!(a.free_frames(), total - 1);
        // Only the ragged edges need small blocks; the middle is two maximal
        // blocks, which must not merge past MAX_ORDER.
        let blocks = free_blocks(&a);
        assert!(
            blocks.len() <= 2 * (MAX_ORDER + 1),
            "{} blocks",
            blocks.len()
        );
        assert!(blocks.contains(&(1 << MAX_ORDER, MAX_ORDER)));
        assert_eq!(a.largest_free_order(), Some(MAX_ORDER));

        a.alloc(0).unwrap();
        a.free(0, 0);
        a.check_invariants();
        let blocks = free_blocks(&a);
        assert!(blocks.starts_with(&[(0, MAX_ORDER), (1 << MAX_ORDER, MAX_ORDER)]));
    }

    /// Runs random allocs and frees, checking every result against a model of
    /// which frames are managed and which are owned.
    fn stress(seed: u64) {
        const FRAMES: usize = 1 << 12;
        const RANGES: [(usize, usize); 3] = [(5, 1500), (1600, 1601), (1700, FRAMES - 3)];
        let mut rng = XorShift(seed);
        let mut links = zeroed(FRAMES);
        let mut a = BuddyAllocator::new(&mut links);
        let mut managed = vec![false; FRAMES];
        for &(start, end) in &RANGES {
            a.add_free_range(start, end);
            managed[start..end].fill(true);
        }
        a.check_invariants();
        let start_free = a.free_frames();
        assert_eq!(start_free, managed.iter().filter(|&&m| m).count());
        let start_blocks = free_blocks(&a);
        let start_largest = a.largest_free_order();

        let mut owned = vec![false; FRAMES];
        let mut live: Vec<(usize, usize)> = Vec::new();
        let mut live_frames = 0;
        for step in 0..20_000 {
            // Bias towards allocating early and freeing late so the pool both
            // fills up and drains.
            let alloc_bias = if step < 10_000 { 6 } else { 4 };
            if live.is_empty() || rng.below(10) < alloc_bias {
                // Mostly small orders, with the occasional large request.
                let order = if rng.below(8) == 0 {
                    rng.below(MAX_ORDER + 1)
                } else {
                    rng.below(4)
                };
                match a.alloc(order) {
                    Some(frame) => {
                        let block = frame..frame + (1 << order);
                        assert_eq!(frame % (1 << order), 0, "misaligned block");
                        for f in block {
                            assert!(managed[f], "frame {f} was never added");
                            assert!(!owned[f], "frame {f} handed out twice");
                            owned[f] = true;
                        }
                        live.push((frame, order));
                        live_frames += 1 << order;
                    }
                    None => assert!(
                        a.largest_free_order().is_none_or(|o| o < order),
                        "order {order} allocation failed despite a large enough free block"
                    ),
                }
            } else {
                let (frame, order) = live.swap_remove(rng.below(live.len()));
                owned[frame..frame + (1 << order)].fill(false);
                live_frames -= 1 << order;
                a.free(frame, order);
            }
            assert_eq!(a.free_frames(), start_free - live_frames);
            if step % 8 == 0 {
                a.check_invariants();
            }
        }

        while let Some((frame, order)) = live.pop() {
            a.free(frame, order);
        }
        a.check_invariants();
        assert_eq!(a.free_frames(), start_free);
        assert_eq!(a.largest_free_order(), start_largest);
        assert_eq!(free_blocks(&a), start_blocks);
    }

    #[test]
    fn randomized_stress() {
        for seed in [0x9e37_79b9_7f4a_7c15, 1, 0xdead_beef, 42] {
            stress(seed);
        }
    }

    #[test]
    #[should_panic(expected = "double free")]
    fn double_free_panics() {
        let mut links = zeroed(16);
        let mut a = BuddyAllocator::new(&mut links);
        a.add_free_range(0, 16);
        let frame = a.alloc(2).unwrap();
        a.free(frame, 2);
        a.free(frame, 2);
    }

    #[test]
    #[should_panic(expected = "double free")]
    fn freeing_frame_inside_merged_block_panics() {
        let mut links = zeroed(16);
        let mut a = BuddyAllocator::new(&mut links);
        a.add_free_range(0, 16);
        let x = a.alloc(0).unwrap();
        let y = a.alloc(0).unwrap();
        a.free(x, 0);
        a.free(y, 0);
        a.free(y, 0);
    }

    #[test]
    #[should_panic(expected = "misaligned")]
    fn misaligned_free_panics() {
        let mut links = zeroed(16);
        let mut a = BuddyAllocator::new(&mut links);
        a.add_free_range(0, 16);
        let frame = a.alloc(2).unwrap();
        a.free(frame + 1, 2);
    }

    #[test]
    #[should_panic(expected = "MAX_ORDER")]
    fn free_above_max_order_panics() {
        let mut links = zeroed(16);
        let mut a = BuddyAllocator::new(&mut links);
        a.free(0, MAX_ORDER + 1);
    }

    #[test]
    #[should_panic(expected = "beyond managed memory")]
    fn free_out_of_bounds_panics() {
        let mut links = zeroed(16);
        let mut a = BuddyAllocator::new(&mut links);
        a.add_free_range(0, 16);
        a.alloc(4).unwrap();
        a.free(16, 0);
    }

    #[test]
    #[should_panic(expected = "more frames than were ever added")]
    fn free_of_unmanaged_frame_panics() {
        let mut links = zeroed(16);
        let mut a = BuddyAllocator::new(&mut links);
        a.add_free_range(0, 8);
        a.free(8, 0);
    }

    #[test]
    #[should_panic(expected = "added to the buddy allocator twice")]
    fn adding_free_range_twice_panics() {
        let mut links = zeroed(16);
        let mut a = BuddyAllocator::new(&mut links);
        a.add_free_range(0, 16);
        a.add_free_range(4, 6);
    }

    #[test]
    #[should_panic(expected = "not on any free list")]
    fn check_invariants_detects_unlisted_free_frame() {
        let mut links = zeroed(16);
        let mut a = BuddyAllocator::new(&mut links);
        a.add_free_range(0, 8);
        a.links[12].state = FREE;
        a.check_invariants();
    }

    #[test]
    #[should_panic(expected = "wrong state")]
    fn check_invariants_detects_wrong_order() {
        let mut links = zeroed(16);
        let mut a = BuddyAllocator::new(&mut links);
        a.add_free_range(0, 16);
        a.links[0].state = FREE | 3;
        a.check_invariants();
    }

    #[test]
    #[should_panic(expected = "free frame count")]
    fn check_invariants_detects_bad_count() {
        let mut links = zeroed(16);
        let mut a = BuddyAllocator::new(&mut links);
        a.add_free_range(0, 16);
        a.free_frames -= 1;
        a.check_invariants();
    }
}
