//! Tables built byte by byte the way sfdisk writes them; the expected
//! partitions are what Linux 6.1 showed in /proc/partitions and
//! /sys/block for the same tables (the Debian suite's block-partitions).

use super::*;
use alloc::vec;

const SECTORS: u64 = 131072;

fn disk() -> Vec<u8> {
    vec![0u8; SECTORS as usize * 512]
}

fn put_entry(d: &mut [u8], sector: u64, slot: usize, boot: u8, kind: u8, start: u32, size: u32) {
    let at = sector as usize * 512 + TABLE_OFFSET + 16 * slot;
    d[at] = boot;
    d[at + 4] = kind;
    d[at + 8..at + 12].copy_from_slice(&start.to_le_bytes());
    d[at + 12..at + 16].copy_from_slice(&size.to_le_bytes());
    let s = sector as usize * 512;
    d[s + 510] = 0x55;
    d[s + 511] = 0xaa;
}

fn run(d: &[u8], block: usize) -> Table {
    let mut read = |lba: u64, buf: &mut [u8]| {
        let at = lba as usize * block;
        buf.copy_from_slice(&d[at..at + block]);
        Ok(())
    };
    scan(block, d.len() as u64 / block as u64, &mut read).unwrap()
}

fn summary(t: &Table) -> Vec<(u32, u64, u64)> {
    t.partitions.iter().map(|p| (p.number, p.start, p.sectors)).collect()
}

/// The DOS layout of block-partitions.sh: two primaries, an extended
/// partition with three logical ones.
fn dos_disk() -> Vec<u8> {
    let mut d = disk();
    put_entry(&mut d, 0, 0, 0, 0x83, 2048, 20480);
    put_entry(&mut d, 0, 1, 0, 0x82, 22528, 16384);
    put_entry(&mut d, 0, 2, 0, 0x05, 38912, 92160);
    // EBRs: the data partition relative to the EBR, the link relative to
    // the extended partition's start.
    put_entry(&mut d, 38912, 0, 0, 0x83, 2048, 8192);
    put_entry(&mut d, 38912, 1, 0, 0x05, 10240, 6144);
    put_entry(&mut d, 49152, 0, 0, 0x83, 2048, 4096);
    put_entry(&mut d, 49152, 1, 0, 0x05, 16384, 45056);
    put_entry(&mut d, 55296, 0, 0, 0x83, 2048, 43008);
    d
}

#[test]
fn dos_primary_extended_logical() {
    let t = run(&dos_disk(), 512);
    assert_eq!(t.label, Label::Dos);
    assert_eq!(
        summary(&t),
        vec![(1, 2048, 20480), (2, 22528, 16384), (3, 38912, 2), (5, 40960, 8192), (6, 51200, 4096), (7, 57344, 43008)]
    );
    assert_eq!(t.partitions[1].dos_type, 0x82);
}

#[test]
fn dos_empty_slots_keep_numbers() {
    let mut d = disk();
    put_entry(&mut d, 0, 1, 0x80, 0x83, 2048, 4096);
    put_entry(&mut d, 0, 3, 0, 0x07, 8192, 4096);
    assert_eq!(summary(&run(&d, 512)), vec![(2, 2048, 4096), (4, 8192, 4096)]);
}

#[test]
fn no_signature_or_bad_boot_flag_is_no_table() {
    let mut d = disk();
    assert_eq!(run(&d, 512).label, Label::None);
    put_entry(&mut d, 0, 0, 0x12, 0x83, 2048, 4096);
    assert_eq!(run(&d, 512).label, Label::None);
    // An ext2 file system on the whole disk: block 0 is zeros.
    let mut d = disk();
    d[1024 + 56] = 0x53;
    d[1024 + 57] = 0xef;
    assert_eq!(run(&d, 512), Table { label: Label::None, partitions: vec![] });
}

#[test]
fn extended_chain_loop_ends() {
    let mut d = disk();
    put_entry(&mut d, 0, 0, 0, 0x0f, 2048, 8192);
    put_entry(&mut d, 2048, 0, 0, 0x83, 1, 100);
    // The link points back at the first EBR: Linux gives up after 100.
    put_entry(&mut d, 2048, 1, 0, 0x05, 0, 8192);
    let t = run(&d, 512);
    assert_eq!(t.partitions[0].number, 1);
    assert_eq!(t.partitions.len(), 1 + 100);
    assert_eq!(t.partitions.last().unwrap().number, 104);
}

fn put_guid(d: &mut [u8], at: usize, last: u8) {
    // 6B657601-0000-4000-8000-0000000000LL, mixed-endian as on disk.
    let g = [0x01, 0x76, 0x65, 0x6b, 0, 0, 0, 0x40, 0x80, 0, 0, 0, 0, 0, 0, last];
    d[at..at + 16].copy_from_slice(&g);
}

/// The GPT of block-partitions.sh: a protective MBR, the header at block
/// 1, 128 entries from block 2.
fn gpt_disk(block: usize) -> Vec<u8> {
    let mut d = vec![0u8; SECTORS as usize * 512];
    let blocks = (d.len() / block) as u64;
    let f = (block / 512) as u64;
    put_entry(&mut d, 0, 0, 0, 0xee, 1, (blocks - 1) as u32);
    let entries_at = 2 * block;
    let linux = [0xaf, 0x3d, 0xc6, 0x0f, 0x83, 0x84, 0x72, 0x47, 0x8e, 0x79, 0x3d, 0x69, 0xd8, 0x47, 0x7d, 0xe4];
    for (i, (start, size, name)) in [(2048u64, 32768u64, "data"), (34816, 8192, "swap")].iter().enumerate() {
        let e = entries_at + i * 128;
        d[e..e + 16].copy_from_slice(&linux);
        put_guid(&mut d, e + 16, 0x11 + i as u8);
        d[e + 32..e + 40].copy_from_slice(&(start / f).to_le_bytes());
        d[e + 40..e + 48].copy_from_slice(&((start + size) / f - 1).to_le_bytes());
        for (k, c) in name.bytes().enumerate() {
            d[e + 56 + 2 * k] = c;
        }
    }
    let crc = crc32(&d[entries_at..entries_at + 128 * 128]);
    let h = block;
    d[h..h + 8].copy_from_slice(GPT_SIGNATURE);
    d[h + 8..h + 12].copy_from_slice(&0x0001_0000u32.to_le_bytes());
    d[h + 12..h + 16].copy_from_slice(&92u32.to_le_bytes());
    d[h + 24..h + 32].copy_from_slice(&1u64.to_le_bytes());
    d[h + 32..h + 40].copy_from_slice(&(blocks - 1).to_le_bytes());
    d[h + 40..h + 48].copy_from_slice(&(2048 / f).to_le_bytes());
    d[h + 48..h + 56].copy_from_slice(&(blocks - 34).to_le_bytes());
    put_guid(&mut d, h + 56, 0x01);
    d[h + 72..h + 80].copy_from_slice(&2u64.to_le_bytes());
    d[h + 80..h + 84].copy_from_slice(&128u32.to_le_bytes());
    d[h + 84..h + 88].copy_from_slice(&128u32.to_le_bytes());
    d[h + 88..h + 92].copy_from_slice(&crc.to_le_bytes());
    let hcrc = crc32(&d[h..h + 92]);
    d[h + 16..h + 20].copy_from_slice(&hcrc.to_le_bytes());
    d
}

#[test]
fn gpt_partitions() {
    let t = run(&gpt_disk(512), 512);
    assert_eq!(t.label, Label::Gpt);
    assert_eq!(summary(&t), vec![(1, 2048, 32768), (2, 34816, 8192)]);
    assert_eq!(t.partitions[0].name, b"data".to_vec());
    assert_eq!(t.partitions[1].uuid, b"6b657601-0000-4000-8000-000000000012".to_vec());
}

#[test]
fn gpt_on_4k_blocks_counts_512_byte_sectors() {
    let t = run(&gpt_disk(4096), 4096);
    assert_eq!(summary(&t), vec![(1, 2048, 32768), (2, 34816, 8192)]);
}

#[test]
fn gpt_checks() {
    // A bad header CRC: no table (and the protective MBR is no DOS table).
    let mut d = gpt_disk(512);
    d[512 + 40] ^= 1;
    assert_eq!(run(&d, 512).label, Label::None);
    // A bad entry-array CRC.
    let mut d = gpt_disk(512);
    d[1024 + 60] ^= 1;
    assert_eq!(run(&d, 512).label, Label::None);
    // Without the protective MBR Linux does not look for a GPT.
    let mut d = gpt_disk(512);
    d[510] = 0;
    assert_eq!(run(&d, 512).label, Label::None);
}

#[test]
fn crc32_known_value() {
    assert_eq!(crc32(b"123456789"), 0xcbf4_3926);
}

#[test]
fn read_errors_stop_the_scan() {
    let mut read = |_: u64, _: &mut [u8]| Err(ReadError);
    assert_eq!(scan(512, 100, &mut read), Err(ReadError));
}
