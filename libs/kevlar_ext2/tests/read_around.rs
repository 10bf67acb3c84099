//! What a mount with empty caches reads from the disk for a page fault on
//! a file mapping (the read-around window) and for the inodes of many
//! files of one directory (the inode table's read-ahead): how many
//! requests, which pages end up cached, and that the bytes are the file's.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};

use common::*;
use kevlar_ext2::{Ext2Fs, Flavour, MountOptions, FAULT_AROUND_READ_PAGES, INODE_READAHEAD_BLOCKS};
use kevlar_vfs::{BlockDevice, Clock, Inode, MemDisk};

/// A disk that records each read request (first sector, bytes).
struct ReadLog {
    disk: MemDisk,
    reads: Mutex<Vec<(u64, usize)>>,
}

impl ReadLog {
    fn take(&self) -> Vec<(u64, usize)> {
        std::mem::take(&mut *self.reads.lock().unwrap())
    }
}

impl BlockDevice for ReadLog {
    fn sector_size(&self) -> usize {
        self.disk.sector_size()
    }
    fn sector_count(&self) -> u64 {
        self.disk.sector_count()
    }
    fn read_sectors(&self, sector: u64, buf: &mut [u8]) -> kevlar_vfs::Result<()> {
        self.reads.lock().unwrap().push((sector, buf.len()));
        self.disk.read_sectors(sector, buf)
    }
    fn write_sectors(&self, sector: u64, buf: &[u8]) -> kevlar_vfs::Result<()> {
        self.disk.write_sectors(sector, buf)
    }
}

const PAGE: usize = 4096;

/// An ext4 image (4 KiB blocks) made by mke2fs from `from`.
fn mkfs(scratch: &Scratch, from: &Path) -> PathBuf {
    let image = scratch.0.join("disk.img");
    std::fs::File::create(&image).unwrap().set_len(32 << 20).unwrap();
    let out = Command::new(tool("mke2fs"))
        .args(["-q", "-F", "-t", "ext4", "-b", "4096", "-E", "root_owner=0:0", "-d"])
        .arg(from)
        .arg(&image)
        .output()
        .expect("mke2fs runs (tools/setup.sh installs e2fsprogs)");
    assert!(out.status.success(), "mke2fs failed: {}", String::from_utf8_lossy(&out.stderr));
    image
}

fn mount_logged(image: &Path) -> (Arc<Ext2Fs>, Arc<ReadLog>) {
    let log = Arc::new(ReadLog { disk: MemDisk::from_image(512, std::fs::read(image).unwrap()).unwrap(), reads: Mutex::new(Vec::new()) });
    let dev: Arc<dyn BlockDevice> = log.clone();
    let clock: Arc<dyn Clock> = clock();
    let fs = Ext2Fs::mount(dev, clock, MountOptions { dev: 9, read_only: true, flavour: Flavour::Ext4 }).unwrap();
    (fs, log)
}

fn cached_pages(f: &Arc<dyn Inode>, pages: u64) -> Vec<u64> {
    (0..pages).filter(|&i| f.cached_page(i).is_some()).collect()
}

#[test]
fn a_fault_reads_the_window_around_it_in_one_request() {
    let scratch = Scratch::new("read-around");
    let src = scratch.0.join("src");
    std::fs::create_dir_all(&src).unwrap();
    let pages = 96u64;
    let data = pattern(pages as usize * PAGE - 100, 5);
    std::fs::write(src.join("prog"), &data).unwrap();
    let image = mkfs(&scratch, &src);
    let (fs, log) = mount_logged(&image);
    let f = walk(&fs.root(), "prog").unwrap();
    log.take();

    // A miss in the middle: the window from half a window before it.
    let half = FAULT_AROUND_READ_PAGES / 2;
    let page = f.data_page(50).unwrap();
    let mut got = vec![0u8; PAGE];
    page.read(0, &mut got);
    assert_eq!(got, data[50 * PAGE..51 * PAGE], "the faulting page's bytes");
    let reads = log.take();
    assert_eq!(reads.len(), 1, "one request for the window: {:?}", reads);
    assert_eq!(reads[0].1, FAULT_AROUND_READ_PAGES as usize * PAGE);
    assert_eq!(cached_pages(&f, pages), (50 - half..50 + half).collect::<Vec<_>>());

    // A hit reads nothing.
    f.data_page(50 + half - 1).unwrap();
    assert!(log.take().is_empty());

    // A miss whose window overlaps cached pages reads only the others,
    // and a window cut at the start of the file.
    f.data_page(30).unwrap();
    assert_eq!(log.take().len(), 1);
    assert_eq!(cached_pages(&f, pages), (30 - half..50 + half).collect::<Vec<_>>());
    f.data_page(3).unwrap();
    assert_eq!(cached_pages(&f, pages), (0..50 + half).collect::<Vec<_>>());

    // A window cut at the end of the file; the tail past it reads as zeros.
    f.data_page(pages - 1).unwrap();
    assert_eq!(cached_pages(&f, pages), (0..pages).filter(|&i| i < 50 + half || i >= pages - 1 - half).collect::<Vec<_>>());
    let last = f.data_page(pages - 1).unwrap();
    let mut tail = vec![0xffu8; PAGE];
    last.read(0, &mut tail);
    assert_eq!(tail[..PAGE - 100], data[(pages as usize - 1) * PAGE..]);
    assert!(tail[PAGE - 100..].iter().all(|&b| b == 0));

    // Every cached page holds the file's bytes.
    for i in cached_pages(&f, pages) {
        let mut buf = vec![0u8; PAGE];
        f.data_page(i).unwrap().read(0, &mut buf);
        let end = ((i as usize + 1) * PAGE).min(data.len());
        assert_eq!(buf[..end - i as usize * PAGE], data[i as usize * PAGE..end], "page {}", i);
    }
}

#[test]
fn inodes_of_one_directory_come_in_few_requests() {
    let scratch = Scratch::new("itable-ahead");
    let src = scratch.0.join("src");
    std::fs::create_dir_all(src.join("lib")).unwrap();
    let files = 200usize;
    for i in 0..files {
        std::fs::write(src.join(format!("lib/m{:03}.py", i)), vec![b'x'; i + 1]).unwrap();
    }
    let image = mkfs(&scratch, &src);
    let (fs, log) = mount_logged(&image);
    let dir = walk(&fs.root(), "lib").unwrap();
    let listed = names(&dir);
    log.take();
    let mut stats = 0;
    for name in listed.iter().filter(|n| n.starts_with('m')) {
        let node = dir.lookup(name.as_bytes()).unwrap();
        let want: usize = name[1..4].parse().unwrap();
        assert_eq!(node.stat().unwrap().size, want as u64 + 1, "{}", name);
        stats += 1;
    }
    assert_eq!(stats, files);
    // 200 inodes of 256 bytes are 13 blocks of 4 KiB: one window, read
    // with the first of them (not a request per block).
    let reads = log.take();
    assert!(reads.len() <= 2, "{} requests for {} inodes: {:?}", reads.len(), files, reads);
    assert!(reads.iter().all(|&(_, len)| len <= INODE_READAHEAD_BLOCKS as usize * PAGE));
}

