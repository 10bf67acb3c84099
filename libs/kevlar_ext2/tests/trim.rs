//! FITRIM against e2fsprogs: what the crate discards is exactly the free
//! space `dumpe2fs` lists, as Linux's ext4_trim_fs does, and nothing twice
//! until blocks are freed again.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;
use std::sync::Arc;

use kevlar_ext2::{Ext2Fs, Flavour, MountOptions, TrimRange};
use kevlar_vfs::{BlockDevice, Clock, Errno, FileType};

mod common;
use common::*;

const EXT4: MountOptions = MountOptions { dev: 92, read_only: false, flavour: Flavour::Ext4 };

/// Every free block, from `dumpe2fs`'s per-group "Free blocks:" lists.
fn free_blocks(image: &Path) -> BTreeSet<u64> {
    let out = Command::new(tool("dumpe2fs")).arg(image).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let mut free = BTreeSet::new();
    for line in text.lines() {
        let Some(list) = line.strip_prefix("  Free blocks: ") else { continue };
        for part in list.split(", ").filter(|p| !p.is_empty()) {
            let (a, b) = part.split_once('-').unwrap_or((part, part));
            free.extend(a.parse::<u64>().unwrap()..=b.parse::<u64>().unwrap());
        }
    }
    free
}

fn trim(fs: &Ext2Fs, range: TrimRange) -> (Result<u64, Errno>, BTreeSet<u64>) {
    let bs = fs.block_size() as u64;
    let mut got = BTreeSet::new();
    let r = fs.trim(range, 512, &mut |at, len| {
        assert!(at % bs == 0 && len % bs == 0 && len > 0);
        for b in at / bs..(at + len) / bs {
            assert!(got.insert(b), "block {} discarded twice", b);
        }
        Ok(())
    }, &|| false);
    (r, got)
}

const ALL: TrimRange = TrimRange { start: 0, len: u64::MAX, minlen: 0 };

#[test]
fn fitrim_discards_the_free_space_once() {
    for block_size in ["1024", "4096"] {
        let scratch = Scratch::new("trim");
        let image = scratch.0.join("disk.img");
        std::fs::File::create(&image).unwrap().set_len(64 << 20).unwrap();
        let out = Command::new(tool("mke2fs")).args(["-q", "-F", "-t", "ext4", "-b", block_size, "-E", "root_owner=0:0"]).arg(&image).output().unwrap();
        assert!(out.status.success());
        let free = free_blocks(&image);
        let disk = disk_of(&image);
        let dev: Arc<dyn BlockDevice> = disk.clone();
        let c: Arc<dyn Clock> = clock();
        let fs = Ext2Fs::mount(dev, c, EXT4).unwrap();
        let bs = fs.block_size() as u64;
        // Bad ranges first (they trim nothing and remember nothing).
        assert_eq!(trim(&fs, TrimRange { len: bs - 1, ..ALL }).0, Err(Errno::EINVAL));
        assert_eq!(trim(&fs, TrimRange { start: 1 << 40, ..ALL }).0, Err(Errno::EINVAL));
        assert_eq!(trim(&fs, TrimRange { minlen: 1 << 40, ..ALL }).0, Err(Errno::EINVAL));
        // Everything free, as dumpe2fs lists it; then nothing.
        let (r, got) = trim(&fs, ALL);
        assert_eq!(r, Ok(free.len() as u64 * bs), "{}-byte blocks", block_size);
        assert_eq!(got, free, "{}-byte blocks", block_size);
        assert_eq!(trim(&fs, ALL).0, Ok(0));
        // A larger minlen than the last trim's finds the groups trimmed.
        assert_eq!(trim(&fs, TrimRange { minlen: 4 * bs, ..ALL }).0, Ok(0));
        // A smaller one than the last looks again, at the long runs only.
        let (r, got) = trim(&fs, TrimRange { minlen: bs, ..ALL });
        assert_eq!(r, Ok(got.len() as u64 * bs));
        assert_eq!(got, free);
        // And minlen 0 after it: everything again.
        assert_eq!(trim(&fs, ALL).1, free);
        assert_eq!(trim(&fs, ALL).0, Ok(0));
        // Blocks written and freed: only their group is trimmed again, at
        // the next trim after the commit that frees them (with 4 KiB
        // blocks the disk is one group).
        let root = fs.root();
        let f = root.create(b"f", FileType::Regular, 0o644, 0, 0, 0).unwrap();
        f.write_at(0, &pattern(200 * 1024, 3)).unwrap();
        drop(f);
        fs.sync().unwrap();
        root.unlink(b"f").unwrap();
        fs.sync().unwrap();
        std::fs::write(&image, disk.image()).unwrap();
        let free_now = free_blocks(&image);
        let (r, got) = trim(&fs, ALL);
        assert!(r.unwrap() > 0 && got.is_subset(&free_now) && (block_size == "4096" || got.len() < free_now.len()), "{}-byte blocks: {:?}", block_size, r);
        assert_eq!(trim(&fs, ALL).0, Ok(0));
        // A range: only its blocks.
        let fs2 = {
            drop(root);
            fs.unmount().unwrap();
            drop(fs);
            let dev: Arc<dyn BlockDevice> = disk.clone();
            Ext2Fs::mount(dev, clock(), EXT4).unwrap()
        };
        let (lo, hi) = (1000 * bs, 3000 * bs);
        let (r, got) = trim(&fs2, TrimRange { start: lo, len: hi - lo, minlen: 0 });
        let want: BTreeSet<u64> = free_now.range(lo / bs..hi / bs).copied().collect();
        assert_eq!(r, Ok(want.len() as u64 * bs));
        assert_eq!(got, want);
        fs2.unmount().unwrap();
        drop(fs2);
        fsck_clean(&disk, &image);
    }
}
