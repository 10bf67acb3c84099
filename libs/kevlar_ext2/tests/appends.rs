//! Small appends and overwrites (a web server's access log: a `write` of
//! about 90 bytes at the end, O_APPEND, per request) stay in memory: no
//! request reaches the disk until the flusher, `sync` or unmount writes
//! them back, and then the journal commits the inode and the data goes
//! before it, as ext4's data=ordered.

use std::sync::{Arc, Mutex};

use kevlar_ext2::{Ext2Fs, Flavour, MountOptions};
use kevlar_vfs::{BlockDevice, Clock, FileType, Inode, MemDisk, SetAttr};

mod common;
use common::*;

fn mkfs(scratch: &Scratch, kind: &str) -> std::path::PathBuf {
    let image = scratch.0.join("disk.img");
    let file = std::fs::File::create(&image).unwrap();
    file.set_len(16 << 20).unwrap();
    let out = std::process::Command::new(tool("mke2fs")).args(["-q", "-F", "-t", kind, "-b", "4096", "-E", "root_owner=0:0"]).arg(&image).output().unwrap();
    assert!(out.status.success(), "mke2fs: {}", String::from_utf8_lossy(&out.stderr));
    image
}

fn line(i: usize) -> Vec<u8> {
    format!("127.0.0.1 - - [26/Nov/2026:00:00:00 +0000] \"GET /index.html HTTP/1.1\" 200 615 \"-\" \"load/{:05}\"\n", i).into_bytes()
}

/// Appends as O_APPEND does: at the size the file has now.
fn append(f: &Arc<dyn Inode>, bytes: &[u8]) {
    let at = f.data_size().unwrap();
    assert_eq!(f.write_at(at, bytes).unwrap(), bytes.len());
}

fn writes(rec: &Recorder) -> usize {
    rec.events.lock().unwrap().iter().filter(|e| matches!(e, Event::Write(..))).count()
}

#[test]
fn appends_and_overwrites_wait_for_write_back() {
    for (kind, flavour) in [("ext4", Flavour::Ext4), ("ext2", Flavour::Ext2)] {
        let scratch = Scratch::new("appends");
        let image = mkfs(&scratch, kind);
        let rec = Arc::new(Recorder { disk: MemDisk::from_image(512, std::fs::read(&image).unwrap()).unwrap(), events: Mutex::new(Vec::new()) });
        let dev: Arc<dyn BlockDevice> = rec.clone();
        let c = clock();
        let clk: Arc<dyn Clock> = c.clone();
        let fs = Ext2Fs::mount(dev, clk, MountOptions { dev: 93, read_only: false, flavour }).unwrap();
        let root = fs.root();
        let log = root.create(b"access.log", FileType::Regular, 0o640, 33, 4, 0).unwrap();
        fs.sync().unwrap();
        let before = writes(&rec);
        let mut want = Vec::new();
        for i in 0..2000 {
            let l = line(i);
            append(&log, &l);
            want.extend_from_slice(&l);
            if i % 500 == 499 {
                // The coarse clock moves on between requests.
                c.advance(0, 4_000_000);
            }
        }
        // An overwrite inside the file, as a database's page update.
        log.write_at(100, b"OVERWRITE").unwrap();
        want[100..109].copy_from_slice(b"OVERWRITE");
        // The mode a write checks for set-user-id bits, before and after a
        // chmod, without a stat.
        assert_eq!(log.mode().unwrap(), 0o100640, "{}", kind);
        log.set_attr(&SetAttr { mode: Some(0o4750), ..SetAttr::default() }).unwrap();
        assert_eq!(log.mode().unwrap(), 0o104750, "{}", kind);
        assert_eq!(log.stat().unwrap().mode, 0o104750, "{}", kind);
        assert_eq!(writes(&rec), before, "{}: 2,000 appends of {} KiB reached the disk before write-back", kind, want.len() / 1024);
        assert_eq!(read_all(&log), want, "{}: the page cache holds the appends", kind);
        // fsync's path: the file's pages, then the metadata, then a flush.
        fs.sync().unwrap();
        assert!(writes(&rec) > before, "{}: sync writes", kind);
        drop((log, root));
        fs.unmount().unwrap();
        drop(fs);
        let disk = Arc::new(MemDisk::from_image(512, rec.disk.image()).unwrap());
        let dev: Arc<dyn BlockDevice> = disk.clone();
        let clk: Arc<dyn Clock> = clock();
        let again = Ext2Fs::mount(dev, clk, MountOptions { dev: 94, read_only: true, flavour }).unwrap();
        let seen = walk(&again.root(), "access.log").unwrap();
        assert_eq!(read_all(&seen), want, "{}: on the disk after sync", kind);
        drop((seen, again));
        fsck_clean(&rec.disk, &image);
    }
}

#[inline(never)]
fn append_loop(log: &Arc<dyn Inode>, n: usize) {
    for i in 0..n {
        append(log, &line(i));
    }
}

/// The cost of one append, for callgrind (`valgrind --tool=callgrind
/// --toggle-collect='*append_loop*'` on this test, run with --ignored).
#[test]
#[ignore]
fn append_cost() {
    let scratch = Scratch::new("append-cost");
    let image = mkfs(&scratch, "ext4");
    let disk = disk_of(&image);
    let dev: Arc<dyn BlockDevice> = disk.clone();
    let clk: Arc<dyn Clock> = clock();
    let fs = Ext2Fs::mount(dev, clk, MountOptions { dev: 95, read_only: false, flavour: Flavour::Ext4 }).unwrap();
    let log = fs.root().create(b"access.log", FileType::Regular, 0o640, 33, 4, 0).unwrap();
    append_loop(&log, 100);
    append_loop(&log, 10_000);
}
