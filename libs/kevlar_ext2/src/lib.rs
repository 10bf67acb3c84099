//! ext2, ext3 and ext4: the extended file systems, over a [`BlockDevice`].
//!
//! [`Ext2Fs::mount`] reads the superblock and group descriptors and gives
//! a file system whose [`Ext2Fs::root`] and every other node implement
//! [`kevlar_vfs::Inode`]. [`MountOptions::flavour`] picks the driver whose
//! rules apply: Linux's ext2 (what follows) or its ext4, which adds extent
//! trees (`extent.rs`), 64-byte group descriptors, flex_bg, uninitialised
//! groups, metadata_csum (`csum.rs`), huge_file and nanosecond times in
//! large inodes, replays a journal that needs recovery at a read-write
//! mount (`journal.rs`), writes every metadata change through the journal
//! in ordered mode (`jbd2.rs`) and keeps the orphan list (`orphan.rs`).
//!
//! - **Formats**: revision 0 and 1, block sizes of 1, 2 and 4 KiB, the
//!   `filetype` and `sparse_super` features, `large_file` (sizes above
//!   2 GiB). Compatible features (`dir_index`, `ext_attr`,
//!   `resize_inode`...) need nothing from a reader; a directory with a
//!   hashed index loses its index flag when changed, as on Linux's ext2
//!   (the index blocks look like empty entries to a linear reader).
//!   An unknown incompatible feature (extents, 64bit, flex_bg, a journal
//!   needing recovery...) refuses the mount with EINVAL and a message naming
//!   it ([`Ext2Fs::mount`] returns [`MountError`]); an unknown
//!   read-only-compatible feature mounts read-only.
//! - **Files**: twelve direct blocks and single, double and triple
//!   indirect blocks; holes read as zeros and cost nothing; truncation
//!   frees data and emptied indirect blocks. Fast symlinks (target in the
//!   inode, below 60 bytes) and slow ones (one block); device nodes in the
//!   old and new `i_block[0]`/`i_block[1]` encodings.
//! - **Directories** are linear lists of entries; positions for
//!   [`Inode::read_dir`] are byte offsets into the directory, as Linux's.
//! - **Allocation** keeps the block and inode bitmaps, the groups' free
//!   and directory counts and the superblock's totals consistent, so
//!   `e2fsck -fn` finds nothing to fix after any sequence of operations.
//! - **Caching and durability**: every operation runs under one lock per
//!   file system. Metadata lives in a cache of blocks (clean ones dropped
//!   past [`CACHE_BLOCKS`]); regular files' data lives in a page cache of
//!   pages from a [`PageSource`] (the kernel's are frames it maps, so
//!   `read`, `write`, shared and private mappings and exec share them),
//!   filled with read-ahead. Inode records live in a bounded
//!   set-associative cache (`icache.rs`) and recently searched
//!   directories have a name index (`names.rs`), so a lookup or stat of a
//!   hot name neither scans directory blocks nor parses the inode table;
//!   both follow every change under the same lock and are dropped by
//!   [`Ext2Fs::drop_inode_caches`]. Changes stay in memory (write-back): they
//!   reach the device by [`Ext2Fs::write_back`] (the kernel's periodic
//!   flusher), [`Ext2Fs::sync`] (which also flushes the device's own
//!   cache) and [`Ext2Fs::unmount`] (which also marks the file system
//!   clean), or when too many metadata blocks are changed. With a
//!   journal (ext4) each such commit is a JBD2 transaction; without one
//!   (ext2) directory and indirect blocks go before bitmaps, bitmaps
//!   before inode tables.
//! - **Lifetime**: a node unlinked while something holds it keeps its
//!   inode and blocks until the last holder drops it.
//!
//! Timestamps are seconds (ext2 has no sub-second fields in 128-byte
//! inodes); atime is set at creation and by `set_attr` only (reads do not
//! write inodes, as with `noatime`).

#![cfg_attr(not(test), no_std)]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

extern crate alloc;

mod bitmaps;
mod cache;
mod csum;
mod dir;
mod discard;
mod extent;
mod falloc;
mod handle;
mod icache;
mod inode;
mod jbd2;
mod journal;
mod layout;
mod names;
mod node;
mod orphan;
mod state;
mod trim;

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::sync::{Arc, Weak};
use core::fmt;
use core::sync::atomic::{AtomicBool, Ordering};

use kevlar_vfs::{BlockDevice, Clock, Errno, FileType, HeapPages, Inode, PageSource};
use spin::Mutex;

pub use cache::{CacheStats, FAULT_AROUND_READ_PAGES};
pub use inode::INODE_READAHEAD_BLOCKS;
pub use journal::Recovery;
pub use node::Ext2Node;
pub use trim::TrimRange;
use state::State;

/// Most blocks the cache keeps after an operation.
pub const CACHE_BLOCKS: usize = 512;

/// How old a dirty page gets before the periodic flusher writes it
/// (Linux's dirty_expire_centisecs is 30 s).
pub const DIRTY_EXPIRE_SECS: u32 = 30;

/// Cached pages a mount keeps by default before dropping clean ones.
pub const DEFAULT_PAGE_LIMIT: usize = 4096;

/// The ext2 superblock magic, for statfs's `f_type`.
pub const EXT2_SUPER_MAGIC: u32 = layout::EXT2_MAGIC as u32;

/// Why a mount failed: the errno mount(2) returns and a sentence for the
/// kernel log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MountError {
    /// The error mount(2) returns.
    pub errno: Errno,
    /// What was wrong, for the log.
    pub message: String,
}

impl fmt::Display for MountError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.message, self.errno.name())
    }
}

/// Settings of a mount.
#[derive(Clone, Copy, Debug, Default)]
pub struct MountOptions {
    /// Device number reported as `st_dev` and [`Inode::fs_id`].
    pub dev: u64,
    /// Mount read-only even when the file system allows writing.
    pub read_only: bool,
    /// Which driver's rules apply: Linux's ext2 or its ext4 (which also
    /// mounts ext2 and ext3).
    pub flavour: Flavour,
}

/// The driver a mount behaves as.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Flavour {
    /// Linux's ext2: no extents, 64bit, flex_bg or metadata checksums;
    /// timestamps in seconds.
    #[default]
    Ext2,
    /// Linux's ext4: extents, 64bit group descriptors, flex_bg,
    /// metadata_csum, huge_file, nanosecond timestamps in large inodes.
    Ext4,
}

/// Totals statfs reports.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Usage {
    /// Block size in bytes.
    pub block_size: u64,
    /// Blocks in all.
    pub blocks: u64,
    /// Free blocks.
    pub free_blocks: u64,
    /// Free blocks minus those reserved for root.
    pub available_blocks: u64,
    /// Inodes in all.
    pub inodes: u64,
    /// Free inodes.
    pub free_inodes: u64,
}

/// Counts of the inode cache and the name cache (tests, diagnostics).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct InodeCacheStats {
    /// Inode records held.
    pub inodes: usize,
    /// Inode reads answered from the cache since the mount.
    pub inode_hits: u64,
    /// Inode reads that went to the inode table.
    pub inode_misses: u64,
    /// Directories with a name index.
    pub dirs: usize,
    /// Entries those indexes hold.
    pub names: usize,
    /// Name searches answered by an index since the mount.
    pub name_hits: u64,
    /// Name searches that scanned the directory.
    pub name_misses: u64,
}

/// A mounted ext2 file system.
pub struct Ext2Fs {
    state: Mutex<State>,
    nodes: Mutex<BTreeMap<u32, Weak<Ext2Node>>>,
    clock: Arc<dyn Clock>,
    dev: u64,
    /// Refuses changes (a read-only mount, until remounted read-write).
    read_only: AtomicBool,
    /// Why the mount is read-only though not asked to be, if it is.
    forced_read_only: Option<String>,
    /// What journal recovery did at mount, if it ran.
    recovered: Option<Recovery>,
    /// Unmounted: no flusher looks at it any more, so changes through
    /// nodes still held are written at once.
    detached: AtomicBool,
    self_ref: Weak<Ext2Fs>,
}

impl Ext2Fs {
    /// Mounts the ext2 file system on `device`, caching file data in heap
    /// pages (at most [`DEFAULT_PAGE_LIMIT`] clean ones).
    pub fn mount(device: Arc<dyn BlockDevice>, clock: Arc<dyn Clock>, options: MountOptions) -> core::result::Result<Arc<Ext2Fs>, MountError> {
        Ext2Fs::mount_with_pages(device, clock, options, Arc::new(HeapPages), DEFAULT_PAGE_LIMIT)
    }

    /// Mounts the ext2 file system on `device`, caching file data in pages
    /// from `pages`; past `page_limit` cached pages, clean ones no one maps
    /// are dropped as new ones come in.
    pub fn mount_with_pages(
        device: Arc<dyn BlockDevice>,
        clock: Arc<dyn Clock>,
        options: MountOptions,
        pages: Arc<dyn PageSource>,
        page_limit: usize,
    ) -> core::result::Result<Arc<Ext2Fs>, MountError> {
        let (mut state, mut forced) = State::load(device.clone(), options.read_only, options.flavour, pages.clone(), page_limit)?;
        // A journal left by a crash: its committed transactions are
        // written to their places and the file system loaded again (the
        // replay may change any block, the superblock too). Linux replays
        // on a read-only mount too; this code only on a writable one.
        let mut recovered = None;
        if state.geo.needs_recovery && !options.read_only && !device.is_read_only() {
            let fail = |errno: Errno| MountError { errno, message: String::from("journal recovery failed") };
            let done = state.replay_journal().map_err(fail)?;
            state.clear_recovery_flag().map_err(fail)?;
            drop(state);
            (state, forced) = State::load(device, options.read_only, options.flavour, pages, page_limit)?;
            recovered = Some(done);
        }
        if !(options.read_only || forced.is_some()) && options.flavour == Flavour::Ext4 {
            // Changes go through the journal, as ext4's data=ordered.
            state.set_now(clock.now());
            if let Err(why) = state.start_journal() {
                forced = Some(alloc::format!("{}: mounting read-only", why));
            }
        }
        let read_only = options.read_only || forced.is_some();
        if !read_only {
            let now = clock.now().sec as u32;
            state.now = now;
            state.mark_mounted(now).map_err(|errno| MountError { errno, message: String::from("cannot write the superblock") })?;
            // Inodes a crash left on the orphan list are freed now.
            state.cleanup_orphans().and_then(|_| state.commit()).map_err(|errno| MountError { errno, message: String::from("cannot clean up the orphan list") })?;
        }
        Ok(Arc::new_cyclic(|self_ref| Ext2Fs {
            state: Mutex::new(state),
            nodes: Mutex::new(BTreeMap::new()),
            clock,
            dev: options.dev,
            read_only: AtomicBool::new(read_only),
            forced_read_only: forced,
            recovered,
            detached: AtomicBool::new(false),
            self_ref: self_ref.clone(),
        }))
    }

    /// The superblock's 128-bit UUID (`s_uuid`).
    pub fn uuid(&self) -> [u8; 16] {
        let st = self.state.lock();
        let mut uuid = [0u8; 16];
        uuid.copy_from_slice(&st.superblock[0x68..0x78]);
        uuid
    }

    /// Returns the root directory.
    pub fn root(&self) -> Arc<dyn Inode> {
        self.node(layout::ROOT_INO, FileType::Directory)
    }

    /// Makes a read-only mount writable (`mount -o remount,rw`, what
    /// systemd-remount-fs does to a root the kernel mounted read-only): an
    /// ext4 starts its journal, and the superblock is marked mounted.
    /// EROFS if the mount was forced read-only or its journal needs
    /// recovery (replayed only by a writable mount).
    pub fn remount_read_write(&self) -> kevlar_vfs::Result<()> {
        let mut st = self.state.lock();
        if !self.is_read_only() {
            return Ok(());
        }
        if self.forced_read_only.is_some() || st.geo.needs_recovery || st.dev.is_read_only() {
            return Err(Errno::EROFS);
        }
        st.set_now(self.clock.now());
        if st.geo.flavour == Flavour::Ext4 && st.start_journal().is_err() {
            return Err(Errno::EROFS);
        }
        let now = self.clock.now().sec as u32;
        st.now = now;
        st.mark_mounted(now)?;
        st.cleanup_orphans().and_then(|_| st.commit())?;
        self.read_only.store(false, Ordering::Release);
        Ok(())
    }

    /// Tells whether the file system refuses changes.
    pub fn is_read_only(&self) -> bool {
        self.read_only.load(Ordering::Acquire)
    }

    /// Returns why the mount is read-only though it was not asked to be
    /// (an unknown read-only-compatible feature), if it is.
    pub fn forced_read_only(&self) -> Option<&str> {
        self.forced_read_only.as_deref()
    }

    /// Returns the driver the mount behaves as.
    pub fn flavour(&self) -> Flavour {
        self.state.lock().geo.flavour
    }

    /// Returns what journal recovery did at mount, if it ran.
    pub fn recovered(&self) -> Option<Recovery> {
        self.recovered
    }

    /// Returns how many journal transactions this mount committed, or
    /// `None` when its changes are not journaled (ext2, no journal,
    /// read-only, or after unmount).
    pub fn journal_transactions(&self) -> Option<u64> {
        let st = self.state.lock();
        st.journaling().then(|| st.transactions())
    }

    /// Returns the block size in bytes.
    pub fn block_size(&self) -> usize {
        self.state.lock().geo.block_size
    }

    /// Returns the totals statfs reports.
    pub fn usage(&self) -> Usage {
        self.state.lock().usage()
    }

    /// Writes out everything and flushes the device's cache.
    pub fn sync(&self) -> kevlar_vfs::Result<()> {
        let mut st = self.state.lock();
        let pages = st.write_back(None, None);
        st.commit()?;
        pages?;
        st.dev.flush()
    }

    /// The periodic flusher's work: writes back the pages dirty for
    /// [`DIRTY_EXPIRE_SECS`] or more, and changed metadata; does not flush
    /// the device's cache.
    pub fn write_back(&self) -> kevlar_vfs::Result<()> {
        if self.is_read_only() {
            return Ok(());
        }
        let mut st = self.state.lock();
        st.set_now(self.clock.now());
        let cutoff = Some(st.now.saturating_sub(DIRTY_EXPIRE_SECS));
        if !st.has_dirty_metadata() && !st.has_expired_pages(cutoff) {
            return Ok(());
        }
        let pages = st.write_back(None, cutoff);
        st.commit()?;
        pages
    }

    /// Drops the cached pages that are clean and not mapped (drop_caches,
    /// memory pressure); returns how many went.
    pub fn drop_clean_pages(&self) -> usize {
        let mut st = self.state.lock();
        st.trim_cache();
        st.drop_clean_pages()
    }

    /// Drops the inode cache and the directories' name indexes
    /// (drop_caches' 2, memory pressure); returns how many inode records
    /// and directory indexes went.
    pub fn drop_inode_caches(&self) -> usize {
        let mut st = self.state.lock();
        st.icache.clear() + st.names.clear()
    }

    /// Returns the inode and name caches' counts.
    pub fn inode_cache_stats(&self) -> InodeCacheStats {
        let st = self.state.lock();
        let (inode_hits, inode_misses) = st.icache.counts();
        let (name_hits, name_misses) = st.names.counts();
        InodeCacheStats { inodes: st.icache.len(), inode_hits, inode_misses, dirs: st.names.dirs(), names: st.names.entries(), name_hits, name_misses }
    }

    /// Returns the page cache's counts.
    pub fn cache_stats(&self) -> CacheStats {
        self.state.lock().cache_stats()
    }

    /// Marks the file system cleanly unmounted and flushes it; later
    /// changes through nodes still held are written at once (no flusher
    /// sees an unmounted file system) but leave it marked as mounted
    /// again.
    pub fn unmount(&self) -> kevlar_vfs::Result<()> {
        let mut st = self.state.lock();
        self.detached.store(true, Ordering::Relaxed);
        let pages = st.write_back(None, None);
        if !self.is_read_only() && pages.is_ok() {
            st.mark_clean()?;
        }
        st.commit()?;
        pages?;
        // The log empty, needs_recovery cleared.
        st.stop_journal()?;
        st.dev.flush()
    }

    /// Tells whether the file system was unmounted (changes are then
    /// written through).
    fn is_detached(&self) -> bool {
        self.detached.load(Ordering::Relaxed)
    }

    /// Returns the node for inode `ino`, the one already in use if any, so
    /// every holder of an inode shares one object.
    fn node(&self, ino: u32, file_type: FileType) -> Arc<Ext2Node> {
        let mut nodes = self.nodes.lock();
        if let Some(node) = nodes.get(&ino).and_then(Weak::upgrade) {
            return node;
        }
        let fs = self.self_ref.upgrade().expect("file system alive while a node is made");
        let node = Arc::new(Ext2Node::new(fs, ino, file_type));
        nodes.insert(ino, Arc::downgrade(&node));
        // Forget nodes no one holds now and then, so the map stays small.
        if nodes.len() > 4 * CACHE_BLOCKS {
            nodes.retain(|_, weak| weak.strong_count() > 0);
        }
        node
    }

    /// Tells whether something holds a node for `ino` (an unlinked inode
    /// is then freed when it is dropped, not at once). Takes no strong
    /// reference: dropping one here could run the node's release, which
    /// takes the state lock the caller holds.
    fn is_held(&self, ino: u32) -> bool {
        self.nodes.lock().get(&ino).is_some_and(|weak| weak.strong_count() > 0)
    }

    /// Locks the state for a changing operation: EROFS on a read-only
    /// mount; the operation's timestamps read the clock once here.
    fn lock_for_write(&self) -> kevlar_vfs::Result<spin::MutexGuard<'_, State>> {
        if self.is_read_only() {
            return Err(Errno::EROFS);
        }
        let mut st = self.state.lock();
        st.set_now(self.clock.now());
        Ok(st)
    }
}

impl fmt::Debug for Ext2Fs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Ext2Fs").field("dev", &self.dev).field("read_only", &self.read_only).finish()
    }
}
