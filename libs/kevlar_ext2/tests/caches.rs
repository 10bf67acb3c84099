//! The inode cache and the directories' name indexes stay coherent with
//! the disk: after every create, unlink, rename, link, mkdir and rmdir in
//! directories already indexed (small linear ones and a hashed-tree one),
//! what a lookup, a listing and a stat say through the caches is what a
//! model of the tree says, what a mount with empty caches reads, and
//! e2fsck finds nothing to fix.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use common::*;
use kevlar_ext2::{Ext2Fs, Flavour, MountOptions};
use kevlar_vfs::{BlockDevice, Clock, Errno, FileType, Inode, MemDisk, RenameFlags, SetAttr};

fn mkfs(scratch: &Scratch, fs_type: &str, from: &Path) -> PathBuf {
    let image = scratch.0.join("disk.img");
    std::fs::File::create(&image).unwrap().set_len(16 << 20).unwrap();
    let out = Command::new(tool("mke2fs"))
        .args(["-q", "-F", "-t", fs_type, "-b", "1024", "-E", "root_owner=0:0", "-d"])
        .arg(from)
        .arg(&image)
        .output()
        .expect("mke2fs runs (tools/setup.sh installs e2fsprogs)");
    assert!(out.status.success(), "mke2fs failed: {}", String::from_utf8_lossy(&out.stderr));
    // Every directory of two blocks or more gets a hashed index.
    let out = Command::new(tool("e2fsck")).args(["-fyD"]).arg(&image).output().unwrap();
    assert!(out.status.code().unwrap_or(8) < 4, "e2fsck -fyD: {}", String::from_utf8_lossy(&out.stdout));
    image
}

fn mount(disk: &Arc<MemDisk>, flavour: Flavour) -> Arc<Ext2Fs> {
    let dev: Arc<dyn BlockDevice> = disk.clone();
    let clock: Arc<dyn Clock> = clock();
    Ext2Fs::mount(dev, clock, MountOptions { dev: 7, read_only: false, flavour }).unwrap()
}

/// A tree of `big/` (400 files: a hashed index) and `small/` (5 files).
fn populate(dir: &Path) {
    std::fs::create_dir_all(dir.join("big")).unwrap();
    std::fs::create_dir_all(dir.join("small")).unwrap();
    for i in 0..400 {
        std::fs::write(dir.join(format!("big/entry-{:04}", i)), format!("{}\n", i)).unwrap();
    }
    for i in 0..5 {
        std::fs::write(dir.join(format!("small/s{}", i)), b"s").unwrap();
    }
}

/// What the tree should hold: per directory, name -> inode number.
type Model = BTreeMap<String, BTreeMap<String, u64>>;

fn model_of(root: &Arc<dyn Inode>) -> Model {
    let mut m = Model::new();
    for d in ["big", "small"] {
        let dir = root.lookup(d.as_bytes()).unwrap();
        let mut entries = BTreeMap::new();
        for name in names(&dir) {
            if name != "." && name != ".." {
                let ino = dir.lookup(name.as_bytes()).unwrap().ino();
                entries.insert(name, ino);
            }
        }
        m.insert(d.to_string(), entries);
    }
    m
}

/// Checks every name of the model and some absent ones by lookup (through
/// the caches), and the listings.
fn check(root: &Arc<dyn Inode>, model: &Model, absent: &[&str]) {
    for (d, entries) in model {
        let dir = root.lookup(d.as_bytes()).unwrap();
        for (name, &ino) in entries {
            let node = dir.lookup(name.as_bytes()).unwrap_or_else(|e| panic!("{}/{}: {:?}", d, name, e));
            assert_eq!(node.ino(), ino, "{}/{}", d, name);
        }
        for name in absent {
            if !entries.contains_key(*name) {
                assert_eq!(dir.lookup(name.as_bytes()).err(), Some(Errno::ENOENT), "{}/{} is gone", d, name);
            }
        }
        let mut listed: Vec<String> = names(&dir).into_iter().filter(|n| n != "." && n != "..").collect();
        listed.sort();
        assert_eq!(listed, entries.keys().cloned().collect::<Vec<_>>(), "listing of {}", d);
    }
}

/// A small deterministic generator.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % n
    }
}

fn coherence(fs_type: &str, flavour: Flavour) {
    let scratch = Scratch::new(&format!("caches-{}", fs_type));
    let src = scratch.0.join("src");
    populate(&src);
    let image = mkfs(&scratch, fs_type, &src);
    let htree = String::from_utf8(debugfs(&image, "htree big")).unwrap();
    assert!(htree.contains("Root node dump"), "big has a hashed index: {}", htree);
    let disk = disk_of(&image);
    let fs = mount(&disk, flavour);
    let root = fs.root();
    let mut model = model_of(&root);
    assert_eq!(model["big"].len(), 400);

    // Both directories are indexed now: lookups answer without scanning.
    let before = fs.inode_cache_stats();
    assert!(before.dirs >= 2, "indexes built: {:?}", before);
    check(&root, &model, &["nothing-here", "entry-9999"]);
    let after = fs.inode_cache_stats();
    assert!(after.name_hits >= before.name_hits + 400, "lookups hit the index: {:?} then {:?}", before, after);
    assert_eq!(after.name_misses, before.name_misses, "no directory scanned again");
    assert!(after.inode_hits > before.inode_hits, "inodes come from the cache");

    let dirs: Vec<&str> = vec!["big", "small"];
    let mut rng = Lcg(0x5eed ^ fs_type.len() as u64);
    let mut absent: Vec<String> = Vec::new();
    let mut fresh = 0u32;
    for step in 0..600 {
        let d = dirs[rng.next(2)];
        let dir = root.lookup(d.as_bytes()).unwrap();
        let existing: Vec<String> = model[d].keys().cloned().collect();
        let pick = |rng: &mut Lcg| existing[rng.next(existing.len())].clone();
        match rng.next(7) {
            0 | 1 => {
                // A name looked up (and found absent) first, then created.
                fresh += 1;
                let name = format!("new-{}-{}", step, fresh);
                assert_eq!(dir.lookup(name.as_bytes()).err(), Some(Errno::ENOENT));
                let node = dir.create(name.as_bytes(), FileType::Regular, 0o644, 0, 0, 0).unwrap();
                node.write_at(0, name.as_bytes()).unwrap();
                model.get_mut(d).unwrap().insert(name, node.ino());
            }
            2 if existing.len() > 3 => {
                let name = pick(&mut rng);
                let node = dir.lookup(name.as_bytes()).unwrap();
                if node.file_type() == FileType::Directory {
                    assert_eq!(dir.unlink(name.as_bytes()).err(), Some(Errno::EISDIR));
                    continue;
                }
                let links = node.stat().unwrap().nlink;
                dir.unlink(name.as_bytes()).unwrap();
                assert_eq!(node.stat().unwrap().nlink, links - 1, "the cached inode follows the unlink");
                model.get_mut(d).unwrap().remove(&name);
                absent.push(name);
            }
            3 if !existing.is_empty() => {
                // A rename within or across the directories, sometimes
                // over an existing name.
                let name = pick(&mut rng);
                let to = dirs[rng.next(2)];
                let source = dir.lookup(name.as_bytes()).unwrap();
                let replace = (rng.next(3) == 0 && !model[to].is_empty() && source.file_type() != FileType::Directory)
                    .then(|| {
                        let keys: Vec<String> = model[to].keys().cloned().collect();
                        keys[rng.next(keys.len())].clone()
                    })
                    .filter(|t| {
                        // Only a file over a file; another link to the same
                        // inode would make the rename do nothing.
                        let victim = root.lookup(to.as_bytes()).unwrap().lookup(t.as_bytes()).unwrap();
                        victim.file_type() != FileType::Directory && victim.ino() != source.ino()
                    });
                let target = replace.unwrap_or_else(|| {
                    fresh += 1;
                    format!("moved-{}-{}", step, fresh)
                });
                let to_dir = root.lookup(to.as_bytes()).unwrap();
                dir.rename(name.as_bytes(), &to_dir, target.as_bytes(), RenameFlags::EMPTY).unwrap();
                let ino = model.get_mut(d).unwrap().remove(&name).unwrap();
                if !(d == to && name == target) {
                    absent.push(name);
                }
                model.get_mut(to).unwrap().insert(target, ino);
            }
            4 if !existing.is_empty() => {
                // A hard link into one of the directories.
                let name = pick(&mut rng);
                let node = dir.lookup(name.as_bytes()).unwrap();
                if node.file_type() == FileType::Directory {
                    continue;
                }
                let links = node.stat().unwrap().nlink;
                let to = dirs[rng.next(2)];
                fresh += 1;
                let link = format!("link-{}-{}", step, fresh);
                root.lookup(to.as_bytes()).unwrap().link(link.as_bytes(), &node).unwrap();
                assert_eq!(node.stat().unwrap().nlink, links + 1, "the cached inode follows the link");
                model.get_mut(to).unwrap().insert(link, node.ino());
            }
            5 => {
                fresh += 1;
                let name = format!("dir-{}-{}", step, fresh);
                let sub = dir.create(name.as_bytes(), FileType::Directory, 0o755, 0, 0, 0).unwrap();
                assert_eq!(sub.lookup(b"..").unwrap().ino(), dir.ino());
                model.get_mut(d).unwrap().insert(name, sub.ino());
            }
            6 => {
                let subdirs: Vec<String> = existing.iter().filter(|n| n.starts_with("dir-")).cloned().collect();
                if let Some(name) = subdirs.first() {
                    dir.rmdir(name.as_bytes()).unwrap();
                    model.get_mut(d).unwrap().remove(name);
                    absent.push(name.clone());
                }
            }
            _ => {}
        }
        if step % 50 == 0 {
            let names: Vec<&str> = absent.iter().map(String::as_str).collect();
            check(&root, &model, &names);
        }
    }
    let absent_names: Vec<&str> = absent.iter().map(String::as_str).collect();
    check(&root, &model, &absent_names);

    // A chmod and a write show through the inode cache.
    let (d, name) = ("small", model["small"].keys().find(|n| !n.starts_with("dir-")).cloned().unwrap());
    let node = root.lookup(d.as_bytes()).unwrap().lookup(name.as_bytes()).unwrap();
    node.set_attr(&SetAttr { mode: Some(0o600), ..SetAttr::default() }).unwrap();
    node.write_at(4000, b"x").unwrap();
    let st = node.stat().unwrap();
    assert_eq!((st.mode & 0o7777, st.size), (0o600, 4001));

    // The same with the caches dropped, and after a remount.
    assert!(fs.drop_inode_caches() > 0);
    assert_eq!(fs.inode_cache_stats().dirs, 0);
    check(&root, &model, &absent_names);
    let st2 = root.lookup(d.as_bytes()).unwrap().lookup(name.as_bytes()).unwrap().stat().unwrap();
    assert_eq!((st2.mode, st2.size, st2.nlink), (st.mode, st.size, st.nlink));
    drop((node, root));
    fs.unmount().unwrap();
    drop(fs);
    fsck_clean(&disk, &image);
    let fs = mount(&disk, flavour);
    check(&fs.root(), &model, &absent_names);
    fs.unmount().unwrap();
}

#[test]
fn ext4_caches_follow_every_directory_change() {
    coherence("ext4", Flavour::Ext4);
}

#[test]
fn ext2_caches_follow_every_directory_change() {
    coherence("ext2", Flavour::Ext2);
}

#[test]
fn the_inode_cache_stays_bounded() {
    let scratch = Scratch::new("caches-bound");
    let src = scratch.0.join("src");
    std::fs::create_dir_all(src.join("many")).unwrap();
    for i in 0..3000 {
        std::fs::write(src.join(format!("many/{}", i)), b"").unwrap();
    }
    let image = mkfs(&scratch, "ext4", &src);
    let disk = disk_of(&image);
    let fs = mount(&disk, Flavour::Ext4);
    let many = fs.root().lookup(b"many").unwrap();
    for round in 0..2 {
        for i in 0..3000 {
            assert_eq!(many.lookup(format!("{}", i).as_bytes()).unwrap().stat().unwrap().size, 0, "round {}", round);
        }
    }
    let stats = fs.inode_cache_stats();
    assert!(stats.inodes <= 2048, "{:?}", stats);
    // many/ whole (. and .. too) and the root's four entries.
    assert_eq!(stats.names, 3002 + 4, "the whole directory indexed: {:?}", stats);
    assert_eq!(stats.name_misses, 2, "the root and many/ scanned once each: {:?}", stats);
}
