//! Blocks a transaction frees are not handed out again before that
//! transaction commits (Linux keeps them busy until then). Otherwise a
//! new file's data, written before the commit (ordered mode), lands in the
//! blocks of a file whose deletion a power cut then undoes: the replayed
//! file system holds the old file with the new file's bytes.

use std::process::Command;
use std::sync::{Arc, Mutex};

use kevlar_ext2::{Ext2Fs, Flavour, MountOptions};
use kevlar_vfs::{BlockDevice, Clock, FileType, MemDisk};

mod common;
use common::*;

const EXT4: MountOptions = MountOptions { dev: 93, read_only: false, flavour: Flavour::Ext4 };

#[test]
fn freed_blocks_wait_for_the_commit() {
    let scratch = Scratch::new("reuse");
    let image = scratch.0.join("disk.img");
    std::fs::File::create(&image).unwrap().set_len(16 << 20).unwrap();
    let out = Command::new(tool("mke2fs")).args(["-q", "-F", "-t", "ext4", "-b", "4096", "-E", "root_owner=0:0"]).arg(&image).output().unwrap();
    assert!(out.status.success(), "mke2fs: {}", String::from_utf8_lossy(&out.stderr));
    let base = std::fs::read(&image).unwrap();
    let rec = Arc::new(Recorder { disk: MemDisk::from_image(512, base.clone()).unwrap(), events: Mutex::new(Vec::new()) });
    let dev: Arc<dyn BlockDevice> = rec.clone();
    let c: Arc<dyn Clock> = clock();
    let fs = Ext2Fs::mount(dev, c, EXT4).unwrap();
    let root = fs.root();
    // The old file, committed.
    let old = pattern(256 * 1024, 7);
    root.create(b"old", FileType::Regular, 0o644, 0, 0, 0).unwrap().write_at(0, &old).unwrap();
    fs.sync().unwrap();
    let synced_at = rec.events.lock().unwrap().len();
    // One transaction: the old file deleted, a new one written (its data
    // goes to the disk before the commit block).
    root.unlink(b"old").unwrap();
    let new = pattern(256 * 1024, 8);
    root.create(b"new", FileType::Regular, 0o644, 0, 0, 0).unwrap().write_at(0, &new).unwrap();
    fs.sync().unwrap();
    drop(root);
    fs.unmount().unwrap();
    drop(fs);
    let events = rec.events.lock().unwrap().clone();
    // Cut the power at every write of the second transaction: after the
    // replay, "old" is there whole (its deletion did not commit) or gone.
    let mut cuts_with_old = 0;
    for k in synced_at..=events.len() {
        let mut cut = base.clone();
        for (sector, data) in events[..k].iter().filter_map(|e| match e { Event::Write(s, d) => Some((s, d)), Event::Flush => None }) {
            let at = *sector as usize * 512;
            cut[at..at + data.len()].copy_from_slice(data);
        }
        let disk = Arc::new(MemDisk::from_image(512, cut).unwrap());
        let dev: Arc<dyn BlockDevice> = disk.clone();
        let c: Arc<dyn Clock> = clock();
        let fs = Ext2Fs::mount(dev, c, EXT4).unwrap_or_else(|e| panic!("cut at {}: mount: {}", k, e));
        let root = fs.root();
        if let Ok(node) = walk(&root, "old") {
            cuts_with_old += 1;
            assert!(read_all(&node) == old, "cut at {}/{}: the old file, whose deletion did not commit, holds other bytes (its blocks were reused before the commit)", k, events.len());
        }
        drop(root);
        fs.unmount().unwrap();
    }
    assert!(cuts_with_old > 0, "no cut before the deletion's commit");
}
