//! The `discard` mount option: the blocks a file held are discarded once
//! the commit that frees them is done (with and without a journal), each
//! once, none that is still in use; without the option nothing is.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;
use std::sync::{Arc, Mutex};

use kevlar_ext2::{Ext2Fs, Flavour, MountOptions};
use kevlar_vfs::{BlockDevice, Clock, FileType, MemDisk, Result};

mod common;
use common::*;

/// A disk that records the sectors discarded.
struct Discards {
    disk: Arc<MemDisk>,
    got: Mutex<Vec<(u64, u64)>>,
}

impl BlockDevice for Discards {
    fn sector_size(&self) -> usize {
        self.disk.sector_size()
    }
    fn sector_count(&self) -> u64 {
        self.disk.sector_count()
    }
    fn read_sectors(&self, sector: u64, buf: &mut [u8]) -> Result<()> {
        self.disk.read_sectors(sector, buf)
    }
    fn write_sectors(&self, sector: u64, buf: &[u8]) -> Result<()> {
        self.disk.write_sectors(sector, buf)
    }
    fn discard_sectors(&self, sector: u64, count: u64) -> Result<()> {
        self.got.lock().unwrap().push((sector, count));
        Ok(())
    }
}

/// The file's data blocks, from `debugfs`'s `blocks`.
fn blocks_of(image: &Path, name: &str) -> BTreeSet<u64> {
    let out = Command::new(tool("debugfs")).args(["-R", &format!("blocks {}", name)]).arg(image).output().unwrap();
    String::from_utf8_lossy(&out.stdout).split_whitespace().map(|w| w.parse().unwrap()).collect()
}

fn run(journal: bool, option: bool) {
    let scratch = Scratch::new("discard");
    let image = scratch.0.join("disk.img");
    std::fs::File::create(&image).unwrap().set_len(32 << 20).unwrap();
    let features = if journal { "has_journal" } else { "^has_journal" };
    let out = Command::new(tool("mke2fs")).args(["-q", "-F", "-t", "ext4", "-b", "1024", "-O", features, "-E", "root_owner=0:0"]).arg(&image).output().unwrap();
    assert!(out.status.success());
    let dev = Arc::new(Discards { disk: disk_of(&image), got: Mutex::new(Vec::new()) });
    let d: Arc<dyn BlockDevice> = dev.clone();
    let c: Arc<dyn Clock> = clock();
    let fs = Ext2Fs::mount(d, c, MountOptions { dev: 93, read_only: false, flavour: Flavour::Ext4 }).unwrap();
    fs.set_discard(option);
    assert_eq!(fs.discard_enabled(), option);
    let root = fs.root();
    for name in [b"gone".as_slice(), b"kept".as_slice()] {
        let f = root.create(name, FileType::Regular, 0o644, 0, 0, 0).unwrap();
        f.write_at(0, &pattern(300 * 1024, name[0].into())).unwrap();
    }
    fs.sync().unwrap();
    assert!(dev.got.lock().unwrap().is_empty(), "discards before anything was freed");
    std::fs::write(&image, dev.disk.image()).unwrap();
    let gone = blocks_of(&image, "gone");
    let kept = blocks_of(&image, "kept");
    assert!(gone.len() >= 300);
    root.unlink(b"gone").unwrap();
    fs.sync().unwrap();
    let mut discarded = BTreeSet::new();
    for &(sector, count) in dev.got.lock().unwrap().iter() {
        assert!(sector % 2 == 0 && count % 2 == 0 && count > 0);
        for b in sector / 2..(sector + count) / 2 {
            assert!(discarded.insert(b), "block {} discarded twice", b);
        }
    }
    if !option {
        assert!(discarded.is_empty());
    } else {
        // Every data block of the file (and perhaps its extent blocks),
        // nothing the other file holds.
        assert!(gone.is_subset(&discarded), "journal {}: {:?} not all in {:?}", journal, gone, discarded);
        assert!(discarded.is_disjoint(&kept));
        // Merged into runs: far fewer requests than blocks.
        assert!(dev.got.lock().unwrap().len() < gone.len() / 8);
    }
    // Nothing more without new frees.
    let before = dev.got.lock().unwrap().len();
    fs.sync().unwrap();
    assert_eq!(dev.got.lock().unwrap().len(), before);
    drop(root);
    fs.unmount().unwrap();
    fsck_clean(&dev.disk, &image);
}

#[test]
fn discard_option_with_a_journal() {
    run(true, true);
}

#[test]
fn discard_option_without_a_journal() {
    run(false, true);
}

#[test]
fn no_discard_option() {
    run(true, false);
}
