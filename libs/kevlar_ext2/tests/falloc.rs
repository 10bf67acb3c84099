//! fallocate, unwritten extents, holes and big sparse files on ext4 (and
//! ext2's refusal), checked by `e2fsck -fn` and `debugfs` after each.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use kevlar_ext2::{Ext2Fs, Flavour, MountOptions};
use kevlar_vfs::{BlockDevice, Clock, Errno, FileType, Inode, MemDisk};
use linux_raw_sys::general::{
    FALLOC_FL_COLLAPSE_RANGE as COLLAPSE, FALLOC_FL_INSERT_RANGE as INSERT, FALLOC_FL_KEEP_SIZE as KEEP,
    FALLOC_FL_PUNCH_HOLE as PUNCH, FALLOC_FL_ZERO_RANGE as ZERO,
};

mod common;
use common::*;

const NO_LIMIT: u64 = u64::MAX;

fn mkfs(scratch: &Scratch, kind: &str, size_kib: u64, args: &[&str]) -> PathBuf {
    let image = scratch.0.join("disk.img");
    let file = std::fs::File::create(&image).unwrap();
    file.set_len(size_kib * 1024).unwrap();
    let out = Command::new(tool("mke2fs")).args(["-q", "-F", "-t", kind, "-E", "root_owner=0:0"]).args(args).arg(&image).output().unwrap();
    assert!(out.status.success(), "mke2fs: {}", String::from_utf8_lossy(&out.stderr));
    image
}

fn mount(disk: &Arc<MemDisk>, flavour: Flavour) -> Arc<Ext2Fs> {
    let dev: Arc<dyn BlockDevice> = disk.clone();
    let clock: Arc<dyn Clock> = clock();
    Ext2Fs::mount(dev, clock, MountOptions { dev: 91, read_only: false, flavour }).unwrap()
}

fn mkfile(root: &Arc<dyn Inode>, name: &str) -> Arc<dyn Inode> {
    root.create(name.as_bytes(), FileType::Regular, 0o644, 0, 0, 0).unwrap()
}

/// Unmounts, then e2fsck -fn must be clean; returns `debugfs -R "ex name"`.
fn finish(fs: Arc<Ext2Fs>, disk: &Arc<MemDisk>, image: &Path, name: &str) -> String {
    fs.unmount().unwrap();
    drop(fs);
    fsck_clean(disk, image);
    String::from_utf8(debugfs(image, &format!("ex {name}"))).unwrap()
}

fn blocks(f: &Arc<dyn Inode>) -> u64 {
    f.stat().unwrap().blocks
}

#[test]
fn allocate_keep_size_and_write_converting_in_place() {
    let scratch = Scratch::new("falloc-alloc");
    let image = mkfs(&scratch, "ext4", 65536, &["-b", "4096"]);
    let disk = disk_of(&image);
    let fs = mount(&disk, Flavour::Ext4);
    let root = fs.root();
    let f = mkfile(&root, "f");
    f.fallocate(0, 0, 1 << 20, NO_LIMIT).unwrap();
    assert_eq!(f.stat().unwrap().size, 1 << 20);
    assert_eq!(blocks(&f), 2048);
    // Unwritten runs are holes for SEEK_DATA.
    assert_eq!(f.seek_data_hole(0, true), Err(Errno::ENXIO));
    assert_eq!(f.seek_data_hole(0, false), Ok(0));
    f.write_at(8192 + 10, b"data").unwrap();
    assert_eq!(blocks(&f), 2048, "written in place");
    // ext4 zeroed the short head (blocks 0-1) and wrote it with block 2.
    assert_eq!(f.seek_data_hole(0, true), Ok(0));
    assert_eq!(f.seek_data_hole(0, false), Ok(12288));
    assert_eq!(f.seek_data_hole(12288, true), Err(Errno::ENXIO));
    // Pages read into the cache over unwritten runs count as data, as
    // Linux's up-to-date pages do.
    let mut want = vec![0u8; 1 << 20];
    want[8202..8206].copy_from_slice(b"data");
    assert_eq!(read_all(&f), want);
    assert_eq!(f.seek_data_hole(0, true), Ok(0));
    assert_eq!(f.seek_data_hole(0, false), Ok(1 << 20));
    // KEEP_SIZE past the end.
    f.fallocate(KEEP, 1 << 20, 1 << 20, NO_LIMIT).unwrap();
    assert_eq!(f.stat().unwrap().size, 1 << 20);
    assert_eq!(blocks(&f), 4096);
    // Past the size limit (RLIMIT_FSIZE): EFBIG; KEEP_SIZE is not checked.
    assert_eq!(f.fallocate(0, 0, 3 << 20, 2 << 20), Err(Errno::EFBIG));
    f.fallocate(KEEP, 0, 3 << 20, 2 << 20).unwrap();
    drop((f, root));
    let ex = finish(fs, &disk, &image, "f");
    // Blocks 0-2 written, then one unwritten run (the later allocations
    // joined it: they continue it on the disk).
    assert_eq!(ex.matches("Uninit").count(), 1, "{ex}");
    assert!(ex.lines().any(|l| l.contains(" 0 -     2 ") && !l.contains("Uninit")), "{ex}");
}

#[test]
fn punch_hole_frees_whole_blocks_and_zeroes_partial_ones() {
    let scratch = Scratch::new("falloc-punch");
    let image = mkfs(&scratch, "ext4", 65536, &["-b", "1024"]);
    let disk = disk_of(&image);
    let fs = mount(&disk, Flavour::Ext4);
    let root = fs.root();
    let f = mkfile(&root, "f");
    let data = pattern(64 * 1024, 3);
    f.write_at(0, &data).unwrap();
    let before = blocks(&f);
    // Bytes 1000..9000: blocks 1-7 freed, 1000..1024 and 8192..9000 zeroed.
    f.fallocate(PUNCH | KEEP, 1000, 8000, NO_LIMIT).unwrap();
    let mut want = data.clone();
    want[1000..9000].fill(0);
    assert_eq!(read_all(&f), want);
    assert_eq!(blocks(&f), before - 7 * 2);
    assert_eq!(f.seek_data_hole(0, false), Ok(1024));
    assert_eq!(f.seek_data_hole(1024, true), Ok(8192));
    // Nothing past the end.
    f.fallocate(PUNCH | KEEP, 1 << 20, 4096, NO_LIMIT).unwrap();
    assert_eq!(f.stat().unwrap().size, 64 * 1024);
    drop((f, root));
    finish(fs, &disk, &image, "f");
    let disk2 = disk_of(&image);
    let fs = mount(&disk2, Flavour::Ext4);
    let f = fs.root().lookup(b"f").unwrap();
    assert_eq!(read_all(&f), want, "after a remount");
}

/// A page that stays cached while fallocate frees some of its blocks
/// must not be overwritten as if its blocks were all still there: the
/// write maps them again (the cache's "backed" knowledge is dropped).
#[test]
fn overwrite_of_a_cached_page_after_a_punch_maps_its_blocks_again() {
    let scratch = Scratch::new("falloc-rewrite");
    let image = mkfs(&scratch, "ext4", 65536, &["-b", "1024"]);
    let disk = disk_of(&image);
    let fs = mount(&disk, Flavour::Ext4);
    let root = fs.root();
    let f = mkfile(&root, "f");
    let data = pattern(64 * 1024, 5);
    f.write_at(0, &data).unwrap();
    // An overwrite of every page while they are known to be backed.
    f.write_at(0, &data).unwrap();
    let before = blocks(&f);
    // Blocks 1-7 freed; page 0 (blocks 0-3) stays cached, zeroed from 1000.
    f.fallocate(PUNCH | KEEP, 1000, 8000, NO_LIMIT).unwrap();
    assert_eq!(blocks(&f), before - 7 * 2);
    let page = pattern(4096, 9);
    f.write_at(0, &page).unwrap();
    assert_eq!(blocks(&f), before - 4 * 2, "blocks 1-3 mapped again");
    let mut want = data.clone();
    want[4096..9000].fill(0);
    want[..4096].copy_from_slice(&page);
    assert_eq!(read_all(&f), want);
    drop((f, root));
    finish(fs, &disk, &image, "f");
    let disk2 = disk_of(&image);
    let fs = mount(&disk2, Flavour::Ext4);
    let f = fs.root().lookup(b"f").unwrap();
    assert_eq!(read_all(&f), want, "after a remount");
}

#[test]
fn zero_collapse_and_insert_range() {
    let scratch = Scratch::new("falloc-shift");
    let image = mkfs(&scratch, "ext4", 65536, &["-b", "4096"]);
    let disk = disk_of(&image);
    let fs = mount(&disk, Flavour::Ext4);
    let root = fs.root();
    let f = mkfile(&root, "f");
    let data = pattern(40960, 5);
    f.write_at(0, &data).unwrap();
    // ZERO_RANGE: whole blocks become unwritten in place, edges zeroed.
    f.fallocate(ZERO, 100, 3 * 4096, NO_LIMIT).unwrap();
    let mut want = data.clone();
    want[100..100 + 3 * 4096].fill(0);
    assert_eq!(read_all(&f), want);
    assert_eq!(blocks(&f), 80);
    // COLLAPSE_RANGE: alignment and end rules, then blocks 1-2 go.
    assert_eq!(f.fallocate(COLLAPSE, 100, 4096, NO_LIMIT), Err(Errno::EINVAL));
    assert_eq!(f.fallocate(COLLAPSE, 36864, 4096, NO_LIMIT), Err(Errno::EINVAL));
    f.fallocate(COLLAPSE, 4096, 8192, NO_LIMIT).unwrap();
    want.drain(4096..12288);
    assert_eq!(f.stat().unwrap().size, 32768);
    assert_eq!(read_all(&f), want);
    assert_eq!(blocks(&f), 64);
    // INSERT_RANGE: a hole of two blocks at block 3.
    assert_eq!(f.fallocate(INSERT, 32768, 4096, NO_LIMIT), Err(Errno::EINVAL));
    f.fallocate(INSERT, 12288, 8192, NO_LIMIT).unwrap();
    let tail = want.split_off(12288);
    want.extend(vec![0u8; 8192]);
    want.extend(tail);
    assert_eq!(read_all(&f), want);
    assert_eq!(blocks(&f), 64);
    assert_eq!(f.seek_data_hole(12288, true), Ok(20480));
    drop((f, root));
    finish(fs, &disk, &image, "f");
    let fs = mount(&disk_of(&image), Flavour::Ext4);
    assert_eq!(read_all(&fs.root().lookup(b"f").unwrap()), want);
}

#[test]
fn big_sparse_files_and_the_size_limit() {
    let scratch = Scratch::new("falloc-big");
    let image = mkfs(&scratch, "ext4", 65536, &["-b", "4096"]);
    let disk = disk_of(&image);
    let fs = mount(&disk, Flavour::Ext4);
    let root = fs.root();
    let f = mkfile(&root, "f");
    let far = 6u64 << 30;
    f.write_at(far, b"far").unwrap();
    f.fallocate(0, 5 << 30, 4096 * 3, NO_LIMIT).unwrap();
    assert_eq!(f.seek_data_hole(0, true), Ok(far));
    assert_eq!(f.seek_data_hole(far, false), Ok(far + 3));
    let max = (u64::from(u32::MAX)) * 4096;
    assert_eq!(f.fallocate(KEEP, max - 4096, 8192, NO_LIMIT), Err(Errno::EFBIG));
    f.fallocate(KEEP, max - 8192, 4096, NO_LIMIT).unwrap();
    drop((f, root));
    finish(fs, &disk, &image, "f");
}

#[test]
fn ext2_only_punches_and_reports_holes() {
    let scratch = Scratch::new("falloc-ext2");
    let image = mkfs(&scratch, "ext2", 8192, &["-b", "1024"]);
    let disk = disk_of(&image);
    let fs = mount(&disk, Flavour::Ext2);
    let root = fs.root();
    let f = mkfile(&root, "f");
    f.write_at(5000, b"x").unwrap();
    assert_eq!(f.fallocate(0, 0, 4096, NO_LIMIT), Err(Errno::EOPNOTSUPP));
    assert_eq!(f.fallocate(ZERO, 0, 4096, NO_LIMIT), Err(Errno::EOPNOTSUPP));
    // Punching works on block-mapped files (the ext4 driver's rules).
    let g = mkfile(&root, "g");
    g.write_at(0, &vec![9u8; 300 * 1024]).unwrap();
    let before = blocks(&g);
    g.fallocate(PUNCH | KEEP, 4096, 280 * 1024, NO_LIMIT).unwrap();
    assert_eq!(blocks(&g), before - 280 * 2);
    let data = read_all(&g);
    assert!(data[..4096].iter().all(|&b| b == 9) && data[4096..284 * 1024].iter().all(|&b| b == 0) && data[284 * 1024..].iter().all(|&b| b == 9));
    drop(g);
    // Holes of the block map, as the ext4 driver reports them.
    assert_eq!(f.seek_data_hole(0, true), Ok(4096));
    assert_eq!(f.seek_data_hole(0, false), Ok(0));
    assert_eq!(f.seek_data_hole(4096, false), Ok(5001));
    assert_eq!(f.seek_data_hole(5001, true), Err(Errno::ENXIO));
    drop((f, root));
    finish(fs, &disk, &image, "f");
}
