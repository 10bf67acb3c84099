//! Partition tables, read as Linux 6.1's `block/partitions` reads them.
//!
//! [`scan`] looks at a disk through a function that reads one logical
//! block at a time and returns the partitions Linux would create, with
//! Linux's numbers: GPT first (entry *i* is partition *i + 1*, empty
//! entries leave gaps), then the DOS table (primary slots 1 to 4, an
//! extended partition shown as 1 KiB, its logical partitions from 5 on,
//! following the chain of extended boot records). Positions and sizes are
//! in 512-byte sectors whatever the disk's block size, as Linux keeps them.
//!
//! What Linux checks, this checks: the 0x55AA signature, boot indicators
//! of 0 or 0x80 (a FAT boot sector is a disk without a table), a
//! protective MBR before a GPT is believed, the GPT header's signature,
//! size, own position, usable range, entry size and both CRC32s. A table
//! that fails a check is no table: the disk has no partitions.

#![no_std]
#![forbid(unsafe_code)]

extern crate alloc;

use alloc::vec;
use alloc::vec::Vec;

/// The most partitions a disk can have (Linux's DISK_MAX_PARTS).
pub const MAX_PARTS: u32 = 256;

/// The kind of table found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Label {
    /// No partition table (or one no check accepted).
    None,
    /// A DOS (MBR) table.
    Dos,
    /// A GUID partition table.
    Gpt,
}

/// One partition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Partition {
    /// Its number: /dev/vdaN.
    pub number: u32,
    /// First sector (512-byte units).
    pub start: u64,
    /// Length in sectors (512-byte units).
    pub sectors: u64,
    /// DOS: the type byte; GPT: 0.
    pub dos_type: u8,
    /// GPT: the partition's name (UTF-16 converted, ASCII kept; others
    /// as `?`); DOS: empty.
    pub name: Vec<u8>,
    /// GPT: the partition's unique GUID, as text; DOS: empty.
    pub uuid: Vec<u8>,
}

/// The result of a scan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Table {
    /// Which table was found.
    pub label: Label,
    /// Its partitions in number order.
    pub partitions: Vec<Partition>,
}

/// A read failed (the scan stops, as Linux's does on an I/O error).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadError;

/// Reads logical block `lba` (of the disk's block size) into the buffer.
pub type ReadBlock<'a> = &'a mut dyn FnMut(u64, &mut [u8]) -> Result<(), ReadError>;

struct Disk<'a> {
    block: usize,
    /// Logical blocks on the disk.
    blocks: u64,
    read: ReadBlock<'a>,
}

impl Disk<'_> {
    /// 512-byte sectors per logical block.
    fn factor(&self) -> u64 {
        (self.block / 512) as u64
    }

    fn read(&mut self, lba: u64) -> Result<Option<Vec<u8>>, ReadError> {
        if lba >= self.blocks {
            return Ok(None);
        }
        let mut buf = vec![0u8; self.block];
        (self.read)(lba, &mut buf)?;
        Ok(Some(buf))
    }

    /// Reads the 512-byte sector `sector` (Linux's read_part_sector works
    /// in 512-byte units and reads the block holding it).
    fn read_sector(&mut self, sector: u64) -> Result<Option<[u8; 512]>, ReadError> {
        let f = self.factor();
        Ok(self.read(sector / f)?.map(|b| {
            let off = (sector % f) as usize * 512;
            let mut out = [0u8; 512];
            out.copy_from_slice(&b[off..off + 512]);
            out
        }))
    }
}

fn le16(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

fn le32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

fn le64(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

/// Reads the partition table of a disk of `blocks` logical blocks of
/// `block_size` bytes (a multiple of 512). Linux's `limit` is
/// [`MAX_PARTS`]: partition numbers stay below it.
pub fn scan(block_size: usize, blocks: u64, read: ReadBlock<'_>) -> Result<Table, ReadError> {
    if block_size < 512 || block_size % 512 != 0 || blocks == 0 {
        return Ok(Table { label: Label::None, partitions: Vec::new() });
    }
    let mut disk = Disk { block: block_size, blocks, read };
    if let Some(parts) = gpt(&mut disk)? {
        return Ok(Table { label: Label::Gpt, partitions: parts });
    }
    if let Some(parts) = dos(&mut disk)? {
        return Ok(Table { label: Label::Dos, partitions: parts });
    }
    Ok(Table { label: Label::None, partitions: Vec::new() })
}

// ---------------------------------------------------------------------------
// DOS (MBR)
// ---------------------------------------------------------------------------

const TABLE_OFFSET: usize = 0x1be;
const GPT_PROTECTIVE: u8 = 0xee;

fn has_signature(sector: &[u8]) -> bool {
    sector[510] == 0x55 && sector[511] == 0xaa
}

/// One 16-byte entry of a DOS table.
struct Entry {
    boot: u8,
    kind: u8,
    start: u32,
    sectors: u32,
}

fn entries(sector: &[u8]) -> [Entry; 4] {
    core::array::from_fn(|i| {
        let e = &sector[TABLE_OFFSET + 16 * i..TABLE_OFFSET + 16 * (i + 1)];
        Entry { boot: e[0], kind: e[4], start: le32(e, 8), sectors: le32(e, 12) }
    })
}

/// DOS extended partition types (DOS, Windows 98 LBA, Linux).
fn is_extended(kind: u8) -> bool {
    matches!(kind, 0x05 | 0x0f | 0x85)
}

struct Found {
    parts: Vec<Partition>,
}

impl Found {
    fn put(&mut self, number: u32, start: u64, sectors: u64, dos_type: u8) {
        if number < MAX_PARTS {
            self.parts.push(Partition { number, start, sectors, dos_type, name: Vec::new(), uuid: Vec::new() });
        }
    }
}

fn dos(disk: &mut Disk) -> Result<Option<Vec<Partition>>, ReadError> {
    let Some(mbr) = disk.read_sector(0)? else { return Ok(None) };
    if !has_signature(&mbr) {
        return Ok(None);
    }
    let table = entries(&mbr);
    // A signature with a boot indicator other than 0 or 0x80 is a FAT
    // boot sector (a disk without a table) or nothing Linux understands.
    if table.iter().any(|e| e.boot != 0 && e.boot != 0x80) {
        return Ok(None);
    }
    // A GPT's protective MBR: the GPT reader had its say.
    if table.iter().any(|e| e.kind == GPT_PROTECTIVE) {
        return Ok(None);
    }
    let f = disk.factor();
    let mut found = Found { parts: Vec::new() };
    let mut next = 5u32;
    for (i, e) in table.iter().enumerate() {
        if e.sectors == 0 {
            continue;
        }
        let slot = i as u32 + 1;
        let start = u64::from(e.start) * f;
        let size = u64::from(e.sectors) * f;
        if is_extended(e.kind) {
            // Only the first KiB of an extended partition is exposed
            // (its first EBR), for tools that want to look at it.
            found.put(slot, start, size.min(f.max(2)), e.kind);
            extended(disk, &mut found, &mut next, start, size)?;
        } else {
            found.put(slot, start, size, e.kind);
        }
    }
    found.parts.sort_by_key(|p| p.number);
    Ok(Some(found.parts))
}

/// Follows the chain of extended boot records of the extended partition
/// at `first` (`first_size` sectors), numbering logical partitions from
/// `next` on.
fn extended(disk: &mut Disk, found: &mut Found, next: &mut u32, first: u64, first_size: u64) -> Result<(), ReadError> {
    let f = disk.factor();
    let (mut this, mut this_size) = (first, first_size);
    for _ in 0..100 {
        if *next >= MAX_PARTS {
            return Ok(());
        }
        let Some(ebr) = disk.read_sector(this)? else { return Ok(()) };
        if !has_signature(&ebr) {
            return Ok(());
        }
        let table = entries(&ebr);
        // The data partitions first: usually the first entry; the third
        // and fourth hold garbage on some systems, so they must fit.
        for (i, e) in table.iter().enumerate() {
            if e.sectors == 0 || is_extended(e.kind) {
                continue;
            }
            let offs = u64::from(e.start) * f;
            let size = u64::from(e.sectors) * f;
            let at = this + offs;
            if i >= 2 && (offs + size > this_size || at < first || at + size > first + first_size) {
                continue;
            }
            found.put(*next, at, size, e.kind);
            *next += 1;
            if *next >= MAX_PARTS {
                return Ok(());
            }
        }
        // Then the link to the next EBR, relative to the extended
        // partition's start.
        let Some(link) = table.iter().find(|e| e.sectors != 0 && is_extended(e.kind)) else { return Ok(()) };
        this = first + u64::from(link.start) * f;
        this_size = u64::from(link.sectors) * f;
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// GPT
// ---------------------------------------------------------------------------

const GPT_SIGNATURE: &[u8; 8] = b"EFI PART";
const GPT_HEADER_SIZE: usize = 92;
const GPT_ENTRY_SIZE: usize = 128;
/// Linux refuses entry arrays larger than what kmalloc gives (4 MiB here).
const MAX_ENTRY_BYTES: u64 = 4 << 20;

/// Whether the MBR is a protective (or hybrid) one, as Linux's
/// is_pmbr_valid: a 0xEE entry starting at block 1, and for a purely
/// protective MBR, covering the disk (or 0xFFFFFFFF blocks).
fn protective_mbr(disk: &mut Disk) -> Result<bool, ReadError> {
    let Some(mbr) = disk.read(0)? else { return Ok(false) };
    if !has_signature(&mbr[..512]) {
        return Ok(false);
    }
    let table = entries(&mbr[..512]);
    let Some(part) = table.iter().position(|e| e.kind == GPT_PROTECTIVE && e.start == 1) else { return Ok(false) };
    let hybrid = table.iter().any(|e| e.kind != 0 && e.kind != GPT_PROTECTIVE);
    if hybrid {
        return Ok(true);
    }
    let size = table[part].sectors;
    let whole = u32::try_from(disk.blocks - 1).unwrap_or(u32::MAX);
    Ok(size == whole || size == u32::MAX)
}

/// The standard CRC-32 (IEEE 802.3, reflected), as EFI uses.
pub fn crc32(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 { (crc >> 1) ^ 0xedb8_8320 } else { crc >> 1 };
        }
    }
    !crc
}

fn guid_text(g: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(36);
    let hex = b"0123456789abcdef";
    // The first three fields are little-endian, the last two big-endian.
    let order = [3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15];
    for (n, &i) in order.iter().enumerate() {
        if matches!(n, 4 | 6 | 8 | 10) {
            out.push(b'-');
        }
        out.push(hex[usize::from(g[i] >> 4)]);
        out.push(hex[usize::from(g[i] & 15)]);
    }
    out
}

fn gpt(disk: &mut Disk) -> Result<Option<Vec<Partition>>, ReadError> {
    if !protective_mbr(disk)? {
        return Ok(None);
    }
    let last = disk.blocks - 1;
    let Some(header) = disk.read(1)? else { return Ok(None) };
    if &header[..8] != GPT_SIGNATURE {
        return Ok(None);
    }
    let header_size = le32(&header, 12) as usize;
    if header_size < GPT_HEADER_SIZE || header_size > disk.block {
        return Ok(None);
    }
    let mut copy = header[..header_size].to_vec();
    copy[16..20].fill(0);
    if crc32(&copy) != le32(&header, 16) {
        return Ok(None);
    }
    let (my_lba, first_usable, last_usable) = (le64(&header, 24), le64(&header, 40), le64(&header, 48));
    if my_lba != 1 || first_usable > last || last_usable > last || last_usable < first_usable {
        return Ok(None);
    }
    let entries_lba = le64(&header, 72);
    let count = le32(&header, 80);
    let entry_size = le32(&header, 84) as usize;
    if entry_size != GPT_ENTRY_SIZE {
        return Ok(None);
    }
    let bytes = u64::from(count) * GPT_ENTRY_SIZE as u64;
    if bytes > MAX_ENTRY_BYTES {
        return Ok(None);
    }
    let bytes = bytes as usize;
    let mut array = Vec::with_capacity(bytes);
    let mut lba = entries_lba;
    while array.len() < bytes {
        let Some(block) = disk.read(lba)? else { return Ok(None) };
        array.extend_from_slice(&block);
        lba += 1;
    }
    array.truncate(bytes);
    if crc32(&array) != le32(&header, 88) {
        return Ok(None);
    }
    let f = disk.factor();
    let mut found = Found { parts: Vec::new() };
    for i in 0..(count.min(MAX_PARTS - 1) as usize) {
        let e = &array[i * GPT_ENTRY_SIZE..(i + 1) * GPT_ENTRY_SIZE];
        let (start, end) = (le64(e, 32), le64(e, 40));
        if e[..16].iter().all(|&b| b == 0) || start > last || end > last {
            continue;
        }
        let sectors = end.wrapping_sub(start).wrapping_add(1);
        let mut name = Vec::new();
        for k in 0..36 {
            match le16(e, 56 + 2 * k) {
                0 => break,
                c if c < 0x80 => name.push(c as u8),
                _ => name.push(b'?'),
            }
        }
        found.put(i as u32 + 1, start * f, sectors.wrapping_mul(f), 0);
        if let Some(p) = found.parts.last_mut() {
            p.name = name;
            p.uuid = guid_text(&e[16..32]);
        }
    }
    Ok(Some(found.parts))
}

#[cfg(test)]
mod tests;
