//! ext4's `metadata_csum`: crc32c (Castagnoli) checksums over the
//! superblock, group descriptors, bitmaps, inodes, extent-tree blocks and
//! directory blocks, as the ext4 disk-layout documentation describes them.
//!
//! ext4 runs crc32c without the usual final inversion and chains it: the
//! value after some bytes is the seed for the next ones. [`crc32c`] is
//! that raw step; the file system's seed is the raw crc32c of the UUID
//! from `!0` (or `s_checksum_seed` with `metadata_csum_seed`), an inode's
//! seed goes on with its number and generation.

use crate::layout::*;

/// The CRC-32C (iSCSI) algorithm, table-driven with 16 lanes
/// (slice-by-16: 16 bytes per step, about a quarter of the byte-wise
/// table's instructions; Linux uses the CPU's crc32 instruction). Every
/// changed inode record is checksummed again, so a small append pays one
/// over 256 bytes. A `static`, so the 16 KiB of tables exist once.
static CASTAGNOLI: crc::Crc<u32, crc::Table<16>> = crc::Crc::<u32, crc::Table<16>>::new(&crc::CRC_32_ISCSI);

/// The raw crc32c step: the register after `data` when it held `seed`
/// (no inversion before or after, as ext4 uses it).
pub fn crc32c(seed: u32, data: &[u8]) -> u32 {
    // The crate reflects the initial value of a reflected algorithm and
    // inverts the result (xorout): undo both to get the raw register.
    let mut digest = CASTAGNOLI.digest_with_initial(seed.reverse_bits());
    digest.update(data);
    !digest.finalize()
}

/// The superblock's checksum: crc32c from `!0` over everything before
/// `s_checksum`.
pub fn superblock(sb_bytes: &[u8]) -> u32 {
    crc32c(!0, &sb_bytes[..sb::CHECKSUM])
}

/// The checksum seed of a file system.
pub fn fs_seed(sb_bytes: &[u8]) -> u32 {
    if le32(sb_bytes, sb::FEATURE_INCOMPAT) & INCOMPAT_CSUM_SEED != 0 {
        le32(sb_bytes, sb::CHECKSUM_SEED)
    } else {
        crc32c(!0, &sb_bytes[sb::UUID..sb::UUID + 16])
    }
}

/// A group descriptor's 16-bit checksum (the descriptor's own checksum
/// field counts as zero).
pub fn group_desc(seed: u32, group: u32, desc: &[u8]) -> u16 {
    let mut c = crc32c(seed, &group.to_le_bytes());
    c = crc32c(c, &desc[..gd::CHECKSUM]);
    c = crc32c(c, &[0, 0]);
    c = crc32c(c, &desc[gd::CHECKSUM + 2..]);
    c as u16
}

/// A bitmap's checksum over its first `bits` bits.
pub fn bitmap(seed: u32, bitmap: &[u8], bits: u32) -> u32 {
    crc32c(seed, &bitmap[..(bits / 8) as usize])
}

/// The seed of inode `ino`'s checksums (its inode, extent blocks and
/// directory blocks).
pub fn inode_seed(seed: u32, ino: u32, generation: u32) -> u32 {
    crc32c(crc32c(seed, &ino.to_le_bytes()), &generation.to_le_bytes())
}

/// Tells whether the inode record holds `i_checksum_hi`.
fn has_csum_hi(record: &[u8]) -> bool {
    record.len() > GOOD_OLD_INODE_SIZE && le16(record, ino::EXTRA_ISIZE) >= 4
}

/// An inode record's checksum (both checksum fields count as zero).
pub fn inode(seed: u32, ino: u32, record: &[u8]) -> u32 {
    let s = inode_seed(seed, ino, le32(record, ino::GENERATION));
    let mut c = crc32c(s, &record[..ino::CHECKSUM_LO]);
    c = crc32c(c, &[0, 0]);
    c = crc32c(c, &record[ino::CHECKSUM_LO + 2..GOOD_OLD_INODE_SIZE]);
    if record.len() > GOOD_OLD_INODE_SIZE {
        c = crc32c(c, &record[GOOD_OLD_INODE_SIZE..ino::CHECKSUM_HI]);
        if has_csum_hi(record) {
            c = crc32c(c, &[0, 0]);
        } else {
            c = crc32c(c, &record[ino::CHECKSUM_HI..ino::CHECKSUM_HI + 2]);
        }
        c = crc32c(c, &record[ino::CHECKSUM_HI + 2..]);
    }
    c
}

/// Stores an inode record's checksum into it.
pub fn seal_inode(seed: u32, ino: u32, record: &mut [u8]) {
    let c = inode(seed, ino, record);
    put16(record, ino::CHECKSUM_LO, c as u16);
    if has_csum_hi(record) {
        put16(record, ino::CHECKSUM_HI, (c >> 16) as u16);
    }
}

/// Tells whether an inode record's checksum is right (an all-zero record,
/// never written, counts as right, as e2fsprogs counts it).
pub fn inode_ok(seed: u32, ino: u32, record: &[u8]) -> bool {
    let c = inode(seed, ino, record);
    let lo_ok = le16(record, ino::CHECKSUM_LO) == c as u16;
    let hi_ok = !has_csum_hi(record) || le16(record, ino::CHECKSUM_HI) == (c >> 16) as u16;
    (lo_ok && hi_ok) || record.iter().all(|&b| b == 0)
}

/// Size of a directory leaf block's checksum tail (a fake entry).
pub const DIR_TAIL: usize = 12;
/// The tail's file-type byte.
const DIR_TAIL_FT: u8 = 0xde;

/// Tells whether a directory block ends with a checksum tail.
pub fn has_dir_tail(block: &[u8]) -> bool {
    let t = block.len() - DIR_TAIL;
    le32(block, t) == 0 && usize::from(le16(block, t + 4)) == DIR_TAIL && block[t + 6] == 0 && block[t + 7] == DIR_TAIL_FT
}

/// Writes an empty tail at the end of a directory block.
pub fn init_dir_tail(block: &mut [u8]) {
    let t = block.len() - DIR_TAIL;
    block[t..].fill(0);
    put16(block, t + 4, DIR_TAIL as u16);
    block[t + 7] = DIR_TAIL_FT;
}

/// A directory leaf block's checksum (over what precedes the tail).
pub fn dir_block(inode_seed: u32, block: &[u8]) -> u32 {
    crc32c(inode_seed, &block[..block.len() - DIR_TAIL])
}

/// Offset of an extent block's checksum (after `eh_max` entries).
pub fn extent_tail(block: &[u8]) -> usize {
    12 + 12 * usize::from(le16(block, 4))
}

/// An extent-tree block's checksum.
pub fn extent_block(inode_seed: u32, block: &[u8]) -> u32 {
    crc32c(inode_seed, &block[..extent_tail(block)])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_crc32c_matches_the_standard_check_value() {
        // CRC-32C of "123456789" is 0xe3069283 with the usual inversions.
        assert_eq!(!crc32c(!0, b"123456789"), 0xe306_9283);
        // Chaining equals one pass.
        assert_eq!(crc32c(crc32c(!0, b"1234"), b"56789"), crc32c(!0, b"123456789"));
        assert_eq!(crc32c(0x1234_5678, b""), 0x1234_5678);
    }
}
