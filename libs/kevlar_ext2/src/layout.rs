//! The on-disk layout of ext2: superblock, group descriptors, inodes and
//! directory entries, as little-endian fields at fixed offsets (the
//! layout is the one in the ext2 specification and Linux's
//! `fs/ext2/ext2.h`).

use alloc::vec::Vec;

/// Reads a little-endian u16 at `off`.
pub fn le16(b: &[u8], off: usize) -> u16 {
    u16::from_le_bytes([b[off], b[off + 1]])
}

/// Reads a little-endian u32 at `off`.
pub fn le32(b: &[u8], off: usize) -> u32 {
    u32::from_le_bytes([b[off], b[off + 1], b[off + 2], b[off + 3]])
}

/// Writes a little-endian u16 at `off`.
pub fn put16(b: &mut [u8], off: usize, v: u16) {
    b[off..off + 2].copy_from_slice(&v.to_le_bytes());
}

/// Writes a little-endian u32 at `off`.
pub fn put32(b: &mut [u8], off: usize, v: u32) {
    b[off..off + 4].copy_from_slice(&v.to_le_bytes());
}

/// Byte offset of the superblock on the device, whatever the block size.
pub const SUPERBLOCK_OFFSET: u64 = 1024;
/// Size of the superblock record.
pub const SUPERBLOCK_SIZE: usize = 1024;
/// The superblock's magic number.
pub const EXT2_MAGIC: u16 = 0xef53;

/// Superblock field offsets.
pub mod sb {
    pub const INODES_COUNT: usize = 0;
    pub const BLOCKS_COUNT: usize = 4;
    pub const FREE_BLOCKS: usize = 12;
    pub const FREE_INODES: usize = 16;
    pub const FIRST_DATA_BLOCK: usize = 20;
    pub const LOG_BLOCK_SIZE: usize = 24;
    pub const LOG_CLUSTER_SIZE: usize = 28;
    pub const BLOCKS_PER_GROUP: usize = 32;
    pub const INODES_PER_GROUP: usize = 40;
    pub const MTIME: usize = 44;
    pub const WTIME: usize = 48;
    pub const MNT_COUNT: usize = 52;
    pub const MAGIC: usize = 56;
    pub const STATE: usize = 58;
    pub const REV_LEVEL: usize = 76;
    pub const FIRST_INO: usize = 84;
    pub const INODE_SIZE: usize = 88;
    pub const FEATURE_INCOMPAT: usize = 96;
    pub const FEATURE_RO_COMPAT: usize = 100;
    pub const FEATURE_COMPAT: usize = 92;
    pub const UUID: usize = 0x68;
    pub const RESERVED_GDT_BLOCKS: usize = 0xce;
    pub const JOURNAL_INUM: usize = 0xe0;
    pub const DESC_SIZE: usize = 0xfe;
    pub const BLOCKS_COUNT_HI: usize = 0x150;
    pub const CHECKSUM_TYPE: usize = 0x175;
    pub const OVERHEAD_CLUSTERS: usize = 0x248;
    pub const CHECKSUM_SEED: usize = 0x270;
    pub const CHECKSUM: usize = 0x3fc;
}

/// `s_state` bit: cleanly unmounted.
pub const STATE_VALID: u16 = 1;

/// Revision 0 has fixed 128-byte inodes and first usable inode 11.
pub const GOOD_OLD_REV: u32 = 0;
/// Inode size of revision 0.
pub const GOOD_OLD_INODE_SIZE: usize = 128;
/// First non-reserved inode of revision 0.
pub const GOOD_OLD_FIRST_INO: u32 = 11;
/// The root directory's inode number.
pub const ROOT_INO: u32 = 2;

/// Incompatible feature: directory entries carry the file type.
pub const INCOMPAT_FILETYPE: u32 = 0x0002;
/// Incompatible features this implementation understands.
pub const INCOMPAT_SUPPORTED: u32 = INCOMPAT_FILETYPE;
/// Read-only-compatible feature: superblock backups only in groups 0, 1
/// and powers of 3, 5 and 7.
pub const RO_COMPAT_SPARSE_SUPER: u32 = 0x0001;
/// Read-only-compatible feature: file sizes above 2 GiB (`i_size_high`).
pub const RO_COMPAT_LARGE_FILE: u32 = 0x0002;
/// Read-only-compatible features this implementation keeps consistent.
pub const RO_COMPAT_SUPPORTED: u32 = RO_COMPAT_SPARSE_SUPER | RO_COMPAT_LARGE_FILE;

/// Compatible feature: the file system has a journal.
pub const COMPAT_HAS_JOURNAL: u32 = 0x0004;
/// Incompatible feature: the journal must be replayed before use.
pub const INCOMPAT_RECOVER: u32 = 0x0004;
/// Incompatible feature: files map their blocks with extent trees.
pub const INCOMPAT_EXTENTS: u32 = 0x0040;
/// Incompatible feature: block numbers up to 64 bits, descriptors of
/// `s_desc_size` bytes.
pub const INCOMPAT_64BIT: u32 = 0x0080;
/// Incompatible feature: a group's bitmaps and inode table may lie in
/// another group.
pub const INCOMPAT_FLEX_BG: u32 = 0x0200;
/// Incompatible feature: the checksum seed is in the superblock.
pub const INCOMPAT_CSUM_SEED: u32 = 0x2000;
/// Incompatible features the ext4 flavour understands (the journal's
/// `needs_recovery` is handled apart: read-only).
pub const INCOMPAT_SUPPORTED_EXT4: u32 = INCOMPAT_FILETYPE | INCOMPAT_EXTENTS | INCOMPAT_64BIT | INCOMPAT_FLEX_BG | INCOMPAT_CSUM_SEED;

/// Names of the incompatible features, for the refusal message.
pub const INCOMPAT_NAMES: [(u32, &str); 16] = [
    (0x0001, "compression"),
    (0x0002, "filetype"),
    (0x0004, "needs_recovery"),
    (0x0008, "journal_dev"),
    (0x0010, "meta_bg"),
    (0x0040, "extent"),
    (0x0080, "64bit"),
    (0x0100, "mmp"),
    (0x0200, "flex_bg"),
    (0x0400, "ea_inode"),
    (0x1000, "dirdata"),
    (0x2000, "metadata_csum_seed"),
    (0x4000, "large_dir"),
    (0x8000, "inline_data"),
    (0x10000, "encrypt"),
    (0x20000, "casefold"),
];

/// Read-only-compatible feature: `i_blocks` in 48 bits (and in blocks
/// for inodes flagged so).
pub const RO_COMPAT_HUGE_FILE: u32 = 0x0008;
/// Read-only-compatible feature: a directory's link count past the
/// limit is 1.
pub const RO_COMPAT_DIR_NLINK: u32 = 0x0020;
/// Read-only-compatible feature: large inodes keep `s_want_extra_isize`
/// extra bytes.
pub const RO_COMPAT_EXTRA_ISIZE: u32 = 0x0040;
/// Read-only-compatible feature: bitmaps count clusters of blocks.
pub const RO_COMPAT_BIGALLOC: u32 = 0x0200;
/// Read-only-compatible feature: crc32c checksums on all metadata.
pub const RO_COMPAT_METADATA_CSUM: u32 = 0x0400;
/// Read-only-compatible features the ext4 flavour keeps consistent.
pub const RO_COMPAT_SUPPORTED_EXT4: u32 =
    RO_COMPAT_SUPPORTED | RO_COMPAT_HUGE_FILE | RO_COMPAT_DIR_NLINK | RO_COMPAT_EXTRA_ISIZE | RO_COMPAT_METADATA_CSUM;

/// Names of the read-only-compatible features, for the log.
pub const RO_COMPAT_NAMES: [(u32, &str); 14] = [
    (0x0001, "sparse_super"),
    (0x0002, "large_file"),
    (0x0004, "btree_dir"),
    (0x0008, "huge_file"),
    (0x0010, "uninit_bg"),
    (0x0020, "dir_nlink"),
    (0x0040, "extra_isize"),
    (0x0080, "has_snapshot"),
    (0x0100, "quota"),
    (0x0200, "bigalloc"),
    (0x0400, "metadata_csum"),
    (0x1000, "read-only"),
    (0x2000, "project"),
    (0x8000, "verity"),
];

/// Returns the names of the bits of `bits` (hexadecimal for unnamed ones).
pub fn feature_names(bits: u32, table: &[(u32, &str)]) -> alloc::string::String {
    let mut names = alloc::string::String::new();
    let mut rest = bits;
    for &(bit, name) in table {
        if bits & bit != 0 {
            if !names.is_empty() {
                names.push_str(", ");
            }
            names.push_str(name);
            rest &= !bit;
        }
    }
    if rest != 0 {
        if !names.is_empty() {
            names.push_str(", ");
        }
        names.push_str(&alloc::format!("{:#x}", rest));
    }
    names
}

/// Group descriptor flags.
pub const BG_INODE_UNINIT: u16 = 0x1;
/// The block bitmap is not initialised (computed from the layout).
pub const BG_BLOCK_UNINIT: u16 = 0x2;

/// Size of a group descriptor (without the 64bit feature).
pub const GROUP_DESC_SIZE: usize = 32;

/// Group descriptor field offsets (the `_HI` halves exist in 64-byte
/// descriptors).
pub mod gd {
    pub const BLOCK_BITMAP: usize = 0;
    pub const INODE_BITMAP: usize = 4;
    pub const INODE_TABLE: usize = 8;
    pub const FREE_BLOCKS: usize = 12;
    pub const FREE_INODES: usize = 14;
    pub const USED_DIRS: usize = 16;
    pub const FLAGS: usize = 0x12;
    pub const BLOCK_BITMAP_CSUM: usize = 0x18;
    pub const INODE_BITMAP_CSUM: usize = 0x1a;
    pub const ITABLE_UNUSED: usize = 0x1c;
    pub const CHECKSUM: usize = 0x1e;
    pub const BLOCK_BITMAP_HI: usize = 0x20;
    pub const INODE_BITMAP_HI: usize = 0x24;
    pub const INODE_TABLE_HI: usize = 0x28;
    pub const FREE_BLOCKS_HI: usize = 0x2c;
    pub const FREE_INODES_HI: usize = 0x2e;
    pub const USED_DIRS_HI: usize = 0x30;
    pub const ITABLE_UNUSED_HI: usize = 0x32;
    pub const BLOCK_BITMAP_CSUM_HI: usize = 0x38;
    pub const INODE_BITMAP_CSUM_HI: usize = 0x3a;
}

/// Size of a 64bit-feature descriptor's high halves' end.
pub const GROUP_DESC_SIZE_64: usize = 64;

/// One block group's descriptor.
#[derive(Clone, Copy, Debug, Default)]
pub struct GroupDesc {
    /// Block holding the group's block bitmap.
    pub block_bitmap: u32,
    /// Block holding the group's inode bitmap.
    pub inode_bitmap: u32,
    /// First block of the group's inode table.
    pub inode_table: u32,
    /// Free blocks in the group.
    pub free_blocks: u32,
    /// Free inodes in the group.
    pub free_inodes: u32,
    /// Directories in the group.
    pub used_dirs: u32,
    /// `bg_flags` (uninitialised bitmaps).
    pub flags: u16,
    /// Inodes at the end of the table never used.
    pub itable_unused: u32,
}

impl GroupDesc {
    /// Decodes a descriptor of `size` bytes (32, or more with 64bit);
    /// `None` if a block number needs more than 32 bits.
    pub fn parse(b: &[u8], size: usize) -> Option<GroupDesc> {
        let wide = size >= GROUP_DESC_SIZE_64;
        let hi16 = |off: usize| if wide { u32::from(le16(b, off)) << 16 } else { 0 };
        if wide && (le32(b, gd::BLOCK_BITMAP_HI) | le32(b, gd::INODE_BITMAP_HI) | le32(b, gd::INODE_TABLE_HI)) != 0 {
            return None;
        }
        Some(GroupDesc {
            block_bitmap: le32(b, gd::BLOCK_BITMAP),
            inode_bitmap: le32(b, gd::INODE_BITMAP),
            inode_table: le32(b, gd::INODE_TABLE),
            free_blocks: u32::from(le16(b, gd::FREE_BLOCKS)) | hi16(gd::FREE_BLOCKS_HI),
            free_inodes: u32::from(le16(b, gd::FREE_INODES)) | hi16(gd::FREE_INODES_HI),
            used_dirs: u32::from(le16(b, gd::USED_DIRS)) | hi16(gd::USED_DIRS_HI),
            flags: le16(b, gd::FLAGS),
            itable_unused: u32::from(le16(b, gd::ITABLE_UNUSED)) | hi16(gd::ITABLE_UNUSED_HI),
        })
    }

    /// Stores the counters and flags into the descriptor's `size` bytes
    /// (the block numbers never change).
    pub fn store_counts(&self, b: &mut [u8], size: usize) {
        put16(b, gd::FREE_BLOCKS, self.free_blocks as u16);
        put16(b, gd::FREE_INODES, self.free_inodes as u16);
        put16(b, gd::USED_DIRS, self.used_dirs as u16);
        if size >= GROUP_DESC_SIZE_64 {
            put16(b, gd::FREE_BLOCKS_HI, (self.free_blocks >> 16) as u16);
            put16(b, gd::FREE_INODES_HI, (self.free_inodes >> 16) as u16);
            put16(b, gd::USED_DIRS_HI, (self.used_dirs >> 16) as u16);
            put16(b, gd::ITABLE_UNUSED_HI, (self.itable_unused >> 16) as u16);
        }
        if size > gd::FLAGS {
            put16(b, gd::FLAGS, self.flags);
            put16(b, gd::ITABLE_UNUSED, self.itable_unused as u16);
        }
    }
}

/// Inode field offsets (within the first 128 bytes every revision has).
pub mod ino {
    pub const MODE: usize = 0;
    pub const UID: usize = 2;
    pub const SIZE: usize = 4;
    pub const ATIME: usize = 8;
    pub const CTIME: usize = 12;
    pub const MTIME: usize = 16;
    pub const DTIME: usize = 20;
    pub const GID: usize = 24;
    pub const LINKS: usize = 26;
    pub const BLOCKS: usize = 28;
    pub const FLAGS: usize = 32;
    pub const BLOCK: usize = 40;
    pub const FILE_ACL: usize = 104;
    pub const SIZE_HIGH: usize = 108;
    pub const GENERATION: usize = 100;
    pub const BLOCKS_HIGH: usize = 116;
    pub const UID_HIGH: usize = 120;
    pub const GID_HIGH: usize = 122;
    pub const CHECKSUM_LO: usize = 124;
    pub const EXTRA_ISIZE: usize = 128;
    pub const CHECKSUM_HI: usize = 130;
    pub const CTIME_EXTRA: usize = 132;
    pub const MTIME_EXTRA: usize = 136;
    pub const ATIME_EXTRA: usize = 140;
    pub const CRTIME: usize = 144;
    pub const CRTIME_EXTRA: usize = 148;
}

/// `i_flags` bit: `i_blocks` counts file-system blocks (huge_file).
pub const HUGE_FILE_FL: u32 = 0x40000;
/// `i_flags` bit: `i_block` holds an extent tree.
pub const EXTENTS_FL: u32 = 0x80000;
/// The extra bytes Linux's ext4 keeps in new large inodes (up to
/// `i_crtime_extra` and `i_version_hi`, `i_projid`).
pub const WANT_EXTRA_ISIZE: u16 = 32;

/// Pointers in `i_block`: 12 direct, then single, double, triple indirect.
pub const N_DIRECT: usize = 12;
/// Index in `i_block` of the single-indirect pointer.
pub const IND_SLOT: usize = 12;
/// Bytes of `i_block`, which a fast symlink's target uses.
pub const I_BLOCK_BYTES: usize = 60;
/// `i_flags` bit: hashed-tree directory index (ext2 does not maintain it
/// and clears it when changing such a directory, as Linux's ext2 does).
pub const INDEX_FL: u32 = 0x1000;

/// The size of the inode whose record is `record`, as [`DiskInode::size`].
pub fn record_size(record: &[u8]) -> u64 {
    let low = u64::from(le32(record, ino::SIZE));
    if u32::from(le16(record, ino::MODE)) & linux_raw_sys::general::S_IFMT == linux_raw_sys::general::S_IFREG {
        low | u64::from(le32(record, ino::SIZE_HIGH)) << 32
    } else {
        low
    }
}

/// A whole on-disk inode record (`s_inode_size` bytes).
#[derive(Clone, Debug)]
pub struct DiskInode(pub Vec<u8>);

impl DiskInode {
    /// Returns an all-zero inode of `size` bytes.
    pub fn zeroed(size: usize) -> DiskInode {
        DiskInode(alloc::vec![0; size.max(GOOD_OLD_INODE_SIZE)])
    }
    /// Tells whether the record has field `off` (4 bytes) within its
    /// `i_extra_isize`.
    pub fn has_extra(&self, off: usize) -> bool {
        self.0.len() > GOOD_OLD_INODE_SIZE && GOOD_OLD_INODE_SIZE + usize::from(le16(&self.0, ino::EXTRA_ISIZE)) >= off + 4 && off + 4 <= self.0.len()
    }
    /// `i_mode`: type and permission bits.
    pub fn mode(&self) -> u16 {
        le16(&self.0, ino::MODE)
    }
    /// Sets `i_mode`.
    pub fn set_mode(&mut self, v: u16) {
        put16(&mut self.0, ino::MODE, v)
    }
    /// Owner, low and high halves combined.
    pub fn uid(&self) -> u32 {
        u32::from(le16(&self.0, ino::UID)) | u32::from(le16(&self.0, ino::UID_HIGH)) << 16
    }
    /// Sets the owner.
    pub fn set_uid(&mut self, v: u32) {
        put16(&mut self.0, ino::UID, v as u16);
        put16(&mut self.0, ino::UID_HIGH, (v >> 16) as u16);
    }
    /// Group, low and high halves combined.
    pub fn gid(&self) -> u32 {
        u32::from(le16(&self.0, ino::GID)) | u32::from(le16(&self.0, ino::GID_HIGH)) << 16
    }
    /// Sets the group.
    pub fn set_gid(&mut self, v: u32) {
        put16(&mut self.0, ino::GID, v as u16);
        put16(&mut self.0, ino::GID_HIGH, (v >> 16) as u16);
    }
    /// Size in bytes; the high half (`i_size_high`) counts for regular
    /// files only (it is `i_dir_acl` for directories).
    pub fn size(&self) -> u64 {
        record_size(&self.0)
    }
    /// Sets the size (the high half only for regular files).
    pub fn set_size(&mut self, v: u64) {
        put32(&mut self.0, ino::SIZE, v as u32);
        if self.is_regular() {
            put32(&mut self.0, ino::SIZE_HIGH, (v >> 32) as u32);
        }
    }
    /// Reads a 32-bit field.
    pub fn get(&self, off: usize) -> u32 {
        le32(&self.0, off)
    }
    /// Writes a 32-bit field.
    pub fn set(&mut self, off: usize, v: u32) {
        put32(&mut self.0, off, v)
    }
    /// `i_links_count`.
    pub fn links(&self) -> u16 {
        le16(&self.0, ino::LINKS)
    }
    /// Sets `i_links_count`.
    pub fn set_links(&mut self, v: u16) {
        put16(&mut self.0, ino::LINKS, v)
    }
    /// Pointer `i` of `i_block`.
    pub fn block(&self, i: usize) -> u32 {
        le32(&self.0, ino::BLOCK + 4 * i)
    }
    /// Sets pointer `i` of `i_block`.
    pub fn set_block(&mut self, i: usize, v: u32) {
        put32(&mut self.0, ino::BLOCK + 4 * i, v)
    }
    /// The 60 bytes of `i_block` (a fast symlink's target).
    pub fn block_bytes(&self) -> &[u8] {
        &self.0[ino::BLOCK..ino::BLOCK + I_BLOCK_BYTES]
    }
    /// The 60 bytes of `i_block`, writable.
    pub fn block_bytes_mut(&mut self) -> &mut [u8] {
        &mut self.0[ino::BLOCK..ino::BLOCK + I_BLOCK_BYTES]
    }
    /// Tells whether the mode says regular file.
    pub fn is_regular(&self) -> bool {
        u32::from(self.mode()) & linux_raw_sys::general::S_IFMT == linux_raw_sys::general::S_IFREG
    }
}

/// Directory entry file-type codes (with the filetype feature).
pub mod ft {
    pub const UNKNOWN: u8 = 0;
    pub const REG: u8 = 1;
    pub const DIR: u8 = 2;
    pub const CHR: u8 = 3;
    pub const BLK: u8 = 4;
    pub const FIFO: u8 = 5;
    pub const SOCK: u8 = 6;
    pub const LNK: u8 = 7;
}

/// Size of a directory entry's fixed header.
pub const DIRENT_HEADER: usize = 8;

/// Returns the space an entry with a name of `name_len` bytes needs
/// (header plus name, rounded up to 4 bytes).
pub const fn dirent_size(name_len: usize) -> usize {
    (DIRENT_HEADER + name_len + 3) & !3
}

/// One decoded directory entry, with its place in its block.
#[derive(Clone, Debug)]
pub struct RawDirent {
    /// Offset of the entry in its block.
    pub offset: usize,
    /// Inode number (0 for an unused entry).
    pub inode: u32,
    /// Bytes from this entry to the next.
    pub rec_len: usize,
    /// Type code (0 without the filetype feature).
    pub file_type: u8,
    /// The name.
    pub name: Vec<u8>,
}

/// Decodes the entries of one directory block, failing (corruption) on a
/// record length that does not fit.
pub fn parse_dir_block(block: &[u8], filetype: bool) -> Option<Vec<RawDirent>> {
    let mut out = Vec::new();
    walk_dir_block(block, filetype, |e| {
        out.push(e.to_owned());
        true
    })?;
    Some(out)
}

/// One directory entry as it lies in its block (nothing copied).
#[derive(Clone, Copy, Debug)]
pub struct DirentRef<'a> {
    /// Offset of the entry in its block.
    pub offset: usize,
    /// Inode number (0 for an unused entry).
    pub inode: u32,
    /// Bytes from this entry to the next.
    pub rec_len: usize,
    /// Type code (0 without the filetype feature).
    pub file_type: u8,
    /// The name (empty for an unused entry).
    pub name: &'a [u8],
}

impl DirentRef<'_> {
    /// The entry with its name copied.
    pub fn to_owned(&self) -> RawDirent {
        RawDirent { offset: self.offset, inode: self.inode, rec_len: self.rec_len, file_type: self.file_type, name: self.name.to_vec() }
    }
}

/// Checks a directory block as [`parse_dir_block`] does and, if it is
/// sound, calls `visit` with each entry in order until it returns false.
/// Returns false (corruption) on a record length that does not fit,
/// before visiting anything: a lookup or a listing never acts on part of
/// a corrupt block. Allocates nothing (lookups run it for every block of
/// a directory).
pub fn visit_dir_block<'a>(block: &'a [u8], filetype: bool, mut visit: impl FnMut(DirentRef<'a>) -> bool) -> bool {
    if walk_dir_block(block, filetype, |_| true).is_none() {
        return false;
    }
    let _ = walk_dir_block(block, filetype, &mut visit);
    true
}

/// Walks the entries of `block` while `visit` returns true; None if a
/// record length does not fit (up to where the walk got).
fn walk_dir_block<'a>(block: &'a [u8], filetype: bool, mut visit: impl FnMut(DirentRef<'a>) -> bool) -> Option<()> {
    let mut off = 0;
    while off < block.len() {
        if off + DIRENT_HEADER > block.len() {
            return None;
        }
        let inode = le32(block, off);
        let rec_len = usize::from(le16(block, off + 4));
        let (name_len, file_type) = if filetype {
            (usize::from(block[off + 6]), block[off + 7])
        } else {
            (usize::from(le16(block, off + 6)), 0)
        };
        if rec_len < DIRENT_HEADER || rec_len % 4 != 0 || off + rec_len > block.len() || (inode != 0 && DIRENT_HEADER + name_len > rec_len) {
            return None;
        }
        let name = if inode != 0 { &block[off + 8..off + 8 + name_len] } else { &[][..] };
        if !visit(DirentRef { offset: off, inode, rec_len, file_type, name }) {
            return Some(());
        }
        off += rec_len;
    }
    Some(())
}

/// Encodes an entry header and name at `off` of `block`.
pub fn write_dirent(block: &mut [u8], off: usize, inode: u32, rec_len: usize, name: &[u8], file_type: u8, filetype: bool) {
    put32(block, off, inode);
    put16(block, off + 4, rec_len as u16);
    if filetype {
        block[off + 6] = name.len() as u8;
        block[off + 7] = file_type;
    } else {
        put16(block, off + 6, name.len() as u16);
    }
    block[off + 8..off + 8 + name.len()].copy_from_slice(name);
}

#[cfg(test)]
mod dir_block_tests {
    use super::*;

    fn block() -> Vec<u8> {
        let mut b = alloc::vec![0u8; 64];
        write_dirent(&mut b, 0, 2, 12, b".", 2, true);
        write_dirent(&mut b, 12, 0, 16, b"gone", 1, true); // an unused entry
        write_dirent(&mut b, 28, 11, 36, b"lib", 2, true);
        b
    }

    #[test]
    fn visit_sees_what_parse_decodes() {
        let b = block();
        let parsed = parse_dir_block(&b, true).unwrap();
        let mut seen = Vec::new();
        assert!(visit_dir_block(&b, true, |e| {
            seen.push(e.to_owned());
            true
        }));
        assert_eq!(seen.len(), parsed.len());
        for (a, b) in seen.iter().zip(&parsed) {
            assert_eq!((a.offset, a.inode, a.rec_len, a.file_type, &a.name), (b.offset, b.inode, b.rec_len, b.file_type, &b.name));
        }
        assert!(seen[1].name.is_empty());
    }

    #[test]
    fn visit_stops_when_asked() {
        let b = block();
        let mut n = 0;
        assert!(visit_dir_block(&b, true, |_| {
            n += 1;
            n < 2
        }));
        assert_eq!(n, 2);
    }

    #[test]
    fn a_corrupt_block_is_refused_before_any_visit() {
        let mut b = block();
        put16(&mut b, 28 + 4, 40); // the last record runs past the block
        assert!(parse_dir_block(&b, true).is_none());
        let mut visited = 0;
        assert!(!visit_dir_block(&b, true, |_| {
            visited += 1;
            true
        }));
        assert_eq!(visited, 0);
    }
}
