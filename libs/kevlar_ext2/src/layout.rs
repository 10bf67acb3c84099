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

/// Names of the incompatible features, for the refusal message.
pub const INCOMPAT_NAMES: [(u32, &str); 10] = [
    (0x0001, "compression"),
    (0x0004, "needs_recovery"),
    (0x0008, "journal_dev"),
    (0x0010, "meta_bg"),
    (0x0040, "extent"),
    (0x0080, "64bit"),
    (0x0100, "mmp"),
    (0x0200, "flex_bg"),
    (0x0400, "ea_inode"),
    (0x1000, "dirdata"),
];

/// Size of a group descriptor (without the 64bit feature).
pub const GROUP_DESC_SIZE: usize = 32;

/// Group descriptor field offsets.
pub mod gd {
    pub const BLOCK_BITMAP: usize = 0;
    pub const INODE_BITMAP: usize = 4;
    pub const INODE_TABLE: usize = 8;
    pub const FREE_BLOCKS: usize = 12;
    pub const FREE_INODES: usize = 14;
    pub const USED_DIRS: usize = 16;
}

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
    pub free_blocks: u16,
    /// Free inodes in the group.
    pub free_inodes: u16,
    /// Directories in the group.
    pub used_dirs: u16,
}

impl GroupDesc {
    /// Decodes a descriptor from its 32 bytes.
    pub fn parse(b: &[u8]) -> GroupDesc {
        GroupDesc {
            block_bitmap: le32(b, gd::BLOCK_BITMAP),
            inode_bitmap: le32(b, gd::INODE_BITMAP),
            inode_table: le32(b, gd::INODE_TABLE),
            free_blocks: le16(b, gd::FREE_BLOCKS),
            free_inodes: le16(b, gd::FREE_INODES),
            used_dirs: le16(b, gd::USED_DIRS),
        }
    }

    /// Stores the counters into the descriptor's bytes (the block numbers
    /// never change).
    pub fn store_counts(&self, b: &mut [u8]) {
        put16(b, gd::FREE_BLOCKS, self.free_blocks);
        put16(b, gd::FREE_INODES, self.free_inodes);
        put16(b, gd::USED_DIRS, self.used_dirs);
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
    pub const UID_HIGH: usize = 120;
    pub const GID_HIGH: usize = 122;
}

/// Pointers in `i_block`: 12 direct, then single, double, triple indirect.
pub const N_DIRECT: usize = 12;
/// Index in `i_block` of the single-indirect pointer.
pub const IND_SLOT: usize = 12;
/// Bytes of `i_block`, which a fast symlink's target uses.
pub const I_BLOCK_BYTES: usize = 60;
/// `i_flags` bit: hashed-tree directory index (ext2 does not maintain it
/// and clears it when changing such a directory, as Linux's ext2 does).
pub const INDEX_FL: u32 = 0x1000;

/// The first 128 bytes of an on-disk inode (the part ext2 uses).
#[derive(Clone, Debug)]
pub struct DiskInode(pub [u8; GOOD_OLD_INODE_SIZE]);

impl DiskInode {
    /// Returns an all-zero inode.
    pub fn zeroed() -> DiskInode {
        DiskInode([0; GOOD_OLD_INODE_SIZE])
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
        let low = u64::from(le32(&self.0, ino::SIZE));
        if self.is_regular() {
            low | u64::from(le32(&self.0, ino::SIZE_HIGH)) << 32
        } else {
            low
        }
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
        let name = if inode != 0 { block[off + 8..off + 8 + name_len].to_vec() } else { Vec::new() };
        out.push(RawDirent { offset: off, inode, rec_len, file_type, name });
        off += rec_len;
    }
    Some(out)
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
