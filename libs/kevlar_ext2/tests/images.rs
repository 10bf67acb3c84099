//! Tests against images made by e2fsprogs: `mke2fs` builds them (from a
//! directory with `-d`), this crate reads and changes them, and `e2fsck
//! -fn` and `debugfs` (independent implementations) check the result.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use kevlar_ext2::{Ext2Fs, MountOptions};
use kevlar_vfs::{BlockDevice, Clock, Errno, FileType, Inode, ManualClock, MemDisk, RenameFlags, SetAttr, Timespec};

mod common;
use common::*;

/// Runs mke2fs with `args` on a new image of `size_kib` KiB; returns its path.
fn mkfs(scratch: &Scratch, size_kib: u64, args: &[&str], from: Option<&Path>) -> PathBuf {
    let image = scratch.0.join("disk.img");
    let file = std::fs::File::create(&image).unwrap();
    file.set_len(size_kib * 1024).unwrap();
    let mut cmd = Command::new(tool("mke2fs"));
    cmd.args(["-q", "-F", "-t", "ext2", "-E", "root_owner=0:0"]).args(args);
    if let Some(dir) = from {
        cmd.arg("-d").arg(dir);
    }
    cmd.arg(&image);
    let out = cmd.output().expect("mke2fs runs (tools/setup.sh installs e2fsprogs)");
    assert!(out.status.success(), "mke2fs failed: {}", String::from_utf8_lossy(&out.stderr));
    image
}

fn mount(disk: &Arc<MemDisk>, clock: &Arc<ManualClock>) -> Arc<Ext2Fs> {
    let dev: Arc<dyn BlockDevice> = disk.clone();
    let clock: Arc<dyn Clock> = clock.clone();
    Ext2Fs::mount(dev, clock, MountOptions { dev: 77, read_only: false, ..MountOptions::default() }).unwrap()
}

/// Fills a source directory for `mke2fs -d`.
fn populate(dir: &Path) {
    std::fs::create_dir_all(dir.join("sub/deeper")).unwrap();
    std::fs::write(dir.join("hello.txt"), b"hello, ext2\n").unwrap();
    std::fs::write(dir.join("sub/deeper/big.bin"), pattern(300 * 1024, 1)).unwrap();
    std::fs::write(dir.join("empty"), b"").unwrap();
    std::os::unix::fs::symlink("hello.txt", dir.join("fast-link")).unwrap();
    std::os::unix::fs::symlink("x".repeat(100), dir.join("slow-link")).unwrap();
    std::fs::hard_link(dir.join("hello.txt"), dir.join("sub/hard")).unwrap();
    for i in 0..150 {
        std::fs::write(dir.join(format!("sub/file-with-a-longish-name-{:03}", i)), format!("{}\n", i)).unwrap();
    }
}

fn check_populated(root: &Arc<dyn Inode>) {
    assert_eq!(read_all(&walk(root, "hello.txt").unwrap()), b"hello, ext2\n");
    assert_eq!(read_all(&walk(root, "sub/deeper/big.bin").unwrap()), pattern(300 * 1024, 1));
    assert_eq!(read_all(&walk(root, "empty").unwrap()), b"");
    let fast = walk(root, "fast-link").unwrap();
    assert_eq!(fast.file_type(), FileType::Symlink);
    assert_eq!(fast.read_link().unwrap(), b"hello.txt");
    assert_eq!(walk(root, "slow-link").unwrap().read_link().unwrap(), "x".repeat(100).as_bytes());
    let hard = walk(root, "sub/hard").unwrap();
    assert_eq!(hard.ino(), walk(root, "hello.txt").unwrap().ino());
    assert_eq!(hard.stat().unwrap().nlink, 2);
    let sub = walk(root, "sub").unwrap();
    let listing = names(&sub);
    assert_eq!(listing.len(), 2 + 150 + 2, "., .., deeper, hard and 150 files");
    assert!(listing.contains(&"file-with-a-longish-name-149".to_string()));
    assert_eq!(read_all(&walk(root, "sub/file-with-a-longish-name-042").unwrap()), b"42\n");
    assert_eq!(walk(root, "nope").err(), Some(Errno::ENOENT));
    assert_eq!(walk(root, "hello.txt/x").err(), Some(Errno::ENOTDIR));
    let st = sub.stat().unwrap();
    assert_eq!(st.mode & 0o170000, 0o040000);
    assert_eq!(st.nlink, 3);
    assert_eq!(walk(root, "sub/..").unwrap().ino(), 2);
}

#[test]
fn reads_images_of_every_block_size_and_revision() {
    for args in [&["-b", "1024"][..], &["-b", "2048"], &["-b", "4096"], &["-b", "1024", "-r", "0"], &["-b", "4096", "-O", "^filetype,^sparse_super,^resize_inode"]] {
        let scratch = Scratch::new("read");
        let src = scratch.0.join("src");
        populate(&src);
        let image = mkfs(&scratch, 8192, args, Some(&src));
        let disk = disk_of(&image);
        let c = clock();
        let fs = mount(&disk, &c);
        check_populated(&fs.root());
        let usage = fs.usage();
        assert!(usage.free_blocks > 0 && usage.free_blocks < usage.blocks, "{:?}", usage);
        fs.unmount().unwrap();
        drop(fs);
        fsck_clean(&disk, &image);
    }
}

#[test]
fn writes_are_clean_and_readable_by_e2fsprogs() {
    for block_size in ["1024", "4096"] {
        let scratch = Scratch::new("write");
        let src = scratch.0.join("src");
        populate(&src);
        let image = mkfs(&scratch, 16384, &["-b", block_size], Some(&src));
        let disk = disk_of(&image);
        let c = clock();
        let fs = mount(&disk, &c);
        let root = fs.root();
        // New file spanning direct, single and double indirect blocks.
        let data = pattern(1100 * 1024, 7);
        let f = root.create(b"new.bin", FileType::Regular, 0o640, 1000, 1000, 0).unwrap();
        for (i, chunk) in data.chunks(70_001).enumerate() {
            assert_eq!(f.write_at((i * 70_001) as u64, chunk).unwrap(), chunk.len());
        }
        assert_eq!(read_all(&f), data);
        // Directory tree operations.
        let d = root.create(b"dir", FileType::Directory, 0o755, 0, 0, 0).unwrap();
        let inner = d.create(b"inner", FileType::Directory, 0o700, 0, 0, 0).unwrap();
        inner.create(b"leaf", FileType::Regular, 0o600, 0, 0, 0).unwrap().write_at(0, b"leaf data").unwrap();
        assert_eq!(root.stat().unwrap().nlink, 5, "root: ., .., lost+found, sub, dir");
        for i in 0..200 {
            d.create(format!("n{}", i).as_bytes(), FileType::Regular, 0o644, 0, 0, 0).unwrap();
        }
        for i in (0..200).step_by(2) {
            d.unlink(format!("n{}", i).as_bytes()).unwrap();
        }
        d.symlink(b"short", b"inner/leaf", 0, 0).unwrap();
        d.symlink(b"long", "y/".repeat(60).as_bytes(), 0, 0).unwrap();
        d.link(b"hard-to-hello", &walk(&root, "hello.txt").unwrap()).unwrap();
        d.create(b"fifo", FileType::Fifo, 0o644, 0, 0, 0).unwrap();
        d.create(b"null", FileType::CharDevice, 0o666, 0, 0, (1 << 8) | 3).unwrap();
        let big_dev = d.create(b"bigdev", FileType::BlockDevice, 0o600, 0, 0, (259 << 8) | (300 & 0xff) | ((300 & !0xff) << 12)).unwrap();
        assert_eq!(big_dev.stat().unwrap().rdev, (259 << 8) | (300 & 0xff) | ((300 & !0xff) << 12));
        // Rename: within a directory, across directories, over a file,
        // a directory over an empty directory.
        root.rename(b"empty", &d, b"moved-empty", RenameFlags::EMPTY).unwrap();
        d.rename(b"n1", &d, b"n3", RenameFlags::EMPTY).unwrap();
        assert_eq!(d.rename(b"n5", &d, b"n7", RenameFlags::NOREPLACE), Err(Errno::EEXIST));
        assert_eq!(d.rename(b"n5", &d, b"n7", RenameFlags::EXCHANGE), Err(Errno::EINVAL));
        let other = root.create(b"other", FileType::Directory, 0o755, 0, 0, 0).unwrap();
        d.rename(b"inner", &other, b"inner2", RenameFlags::EMPTY).unwrap();
        assert_eq!(walk(&root, "other/inner2/..").unwrap().ino(), other.ino());
        assert_eq!(other.rename(b"inner2", &walk(&root, "other/inner2").unwrap(), b"x", RenameFlags::EMPTY), Err(Errno::EINVAL));
        root.create(b"emptydir", FileType::Directory, 0o755, 0, 0, 0).unwrap();
        other.rename(b"inner2", &root, b"emptydir", RenameFlags::EMPTY).unwrap();
        assert_eq!(read_all(&walk(&root, "emptydir/leaf").unwrap()), b"leaf data");
        assert_eq!(other.stat().unwrap().nlink, 2);
        assert_eq!(root.rmdir(b"sub"), Err(Errno::ENOTEMPTY));
        assert_eq!(root.rmdir(b"hello.txt"), Err(Errno::ENOTDIR));
        assert_eq!(root.unlink(b"dir"), Err(Errno::EISDIR));
        root.rmdir(b"other").unwrap();
        // Truncation: shrink into the single-indirect range, grow with a hole.
        f.truncate(20_000).unwrap();
        f.truncate(3_000_000).unwrap();
        let grown = read_all(&f);
        assert_eq!(&grown[..20_000], &data[..20_000]);
        assert!(grown[20_000..].iter().all(|&b| b == 0));
        // Attributes.
        f.set_attr(&SetAttr { mode: Some(0o4711), uid: Some(70_000), gid: Some(5), atime: Some(Timespec::new(1000, 0)), mtime: Some(Timespec::new(2000, 0)), ..SetAttr::default() }).unwrap();
        let st = f.stat().unwrap();
        assert_eq!((st.mode & 0o7777, st.uid, st.gid, st.atime.sec, st.mtime.sec), (0o4711, 70_000, 5, 1000, 2000));
        // Removing a tree.
        walk(&root, "sub/deeper").unwrap().unlink(b"big.bin").unwrap();
        walk(&root, "sub").unwrap().rmdir(b"deeper").unwrap();
        let ino_before = f.ino();
        drop((f, d, inner, other, big_dev, root));
        fs.unmount().unwrap();
        drop(fs);
        fsck_clean(&disk, &image);
        // e2fsprogs sees the same contents.
        assert_eq!(debugfs(&image, "cat /emptydir/leaf"), b"leaf data");
        assert_eq!(debugfs(&image, "cat /dir/hard-to-hello"), b"hello, ext2\n");
        let stat = String::from_utf8(debugfs(&image, "stat /new.bin")).unwrap();
        assert!(stat.contains("Size: 3000000"), "{}", stat);
        assert!(stat.contains(&format!("Inode: {}", ino_before)), "{}", stat);
        // And a new mount reads back what was written.
        let fs = mount(&disk, &c);
        let root = fs.root();
        assert_eq!(&read_all(&walk(&root, "new.bin").unwrap())[..20_000], &data[..20_000]);
        assert_eq!(walk(&root, "dir/short").unwrap().read_link().unwrap(), b"inner/leaf");
        assert_eq!(walk(&root, "dir/long").unwrap().read_link().unwrap(), "y/".repeat(60).as_bytes());
        assert_eq!(walk(&root, "dir/null").unwrap().stat().unwrap().rdev, (1 << 8) | 3);
        assert_eq!(walk(&root, "dir/n3").unwrap().ino(), walk(&root, "dir/n3").unwrap().ino());
        assert_eq!(walk(&root, "dir/n1").err(), Some(Errno::ENOENT));
        let listing = names(&walk(&root, "dir").unwrap());
        assert_eq!(listing.len(), 2 + 99 + 7, "{:?}", listing);
        drop(root);
        fs.unmount().unwrap();
    }
}

#[test]
fn triple_indirect_blocks_are_mapped_and_freed() {
    let scratch = Scratch::new("triple");
    let image = mkfs(&scratch, 4096, &["-b", "1024"], None);
    let disk = disk_of(&image);
    let c = clock();
    let fs = mount(&disk, &c);
    let free_before = fs.usage().free_blocks;
    let root = fs.root();
    let f = root.create(b"sparse", FileType::Regular, 0o644, 0, 0, 0).unwrap();
    // With 1 KiB blocks the triple-indirect range starts at block
    // 12 + 256 + 65536.
    let far = (12 + 256 + 65536 + 70_000) as u64 * 1024 + 100;
    f.write_at(far, b"far away").unwrap();
    f.write_at(5000, b"near").unwrap();
    let mut buf = [0u8; 8];
    f.read_at(far, &mut buf).unwrap();
    assert_eq!(&buf, b"far away");
    f.read_at(far - 8, &mut buf).unwrap();
    assert_eq!(buf, [0; 8], "holes read as zeros");
    // 2 data blocks + 1 triple + 1 double + 1 single indirect.
    assert_eq!(free_before - fs.usage().free_blocks, 5);
    assert_eq!(f.stat().unwrap().blocks, 5 * 2);
    fs.sync().unwrap();
    fsck_clean(&disk, &image);
    let listed = String::from_utf8(debugfs(&image, "blocks /sparse")).unwrap();
    assert_eq!(listed.split_whitespace().count(), 5, "debugfs finds the data and indirect blocks: {}", listed);
    f.truncate(6000).unwrap();
    assert_eq!(free_before - fs.usage().free_blocks, 1);
    drop((f, root));
    fs.unmount().unwrap();
    fsck_clean(&disk, &image);
}

#[test]
fn unlinked_files_live_until_released() {
    let scratch = Scratch::new("orphan");
    let image = mkfs(&scratch, 2048, &[], None);
    let disk = disk_of(&image);
    let c = clock();
    let fs = mount(&disk, &c);
    let root = fs.root();
    let free = fs.usage().free_blocks;
    let f = root.create(b"tmp", FileType::Regular, 0o644, 0, 0, 0).unwrap();
    f.write_at(0, &pattern(50_000, 3)).unwrap();
    root.unlink(b"tmp").unwrap();
    assert_eq!(root.lookup(b"tmp").err(), Some(Errno::ENOENT));
    assert_eq!(read_all(&f), pattern(50_000, 3), "still readable while held");
    assert_eq!(f.stat().unwrap().nlink, 0);
    assert!(fs.usage().free_blocks < free);
    drop(f);
    assert_eq!(fs.usage().free_blocks, free, "released with the last holder");
    drop(root);
    fs.unmount().unwrap();
    fsck_clean(&disk, &image);
}

#[test]
fn a_full_disk_gives_enospc_and_stays_consistent() {
    let scratch = Scratch::new("full");
    let image = mkfs(&scratch, 1024, &["-b", "1024", "-m", "0"], None);
    let disk = disk_of(&image);
    let c = clock();
    let fs = mount(&disk, &c);
    let root = fs.root();
    let f = root.create(b"fill", FileType::Regular, 0o644, 0, 0, 0).unwrap();
    let chunk = vec![0xabu8; 64 * 1024];
    let mut off = 0u64;
    let err = loop {
        match f.write_at(off, &chunk) {
            Ok(n) => off += n as u64,
            Err(e) => break e,
        }
    };
    assert_eq!(err, Errno::ENOSPC);
    assert_eq!(fs.usage().free_blocks, 0);
    assert_eq!(root.create(b"dir", FileType::Directory, 0o755, 0, 0, 0).err(), Some(Errno::ENOSPC));
    assert_eq!(read_all(&f).len() as u64, off);
    drop((f, root));
    fs.unmount().unwrap();
    fsck_clean(&disk, &image);
    let fs = mount(&disk, &c);
    fs.root().unlink(b"fill").unwrap();
    fs.unmount().unwrap();
    fsck_clean(&disk, &image);
}

#[test]
fn unknown_features_refuse_or_force_read_only() {
    let scratch = Scratch::new("features");
    let c = clock();
    let dev_clock: Arc<dyn Clock> = c.clone();
    // An ext4 image with extents: refused, naming the feature.
    let image = scratch.0.join("ext4.img");
    std::fs::File::create(&image).unwrap().set_len(4 << 20).unwrap();
    let out = Command::new(tool("mke2fs")).args(["-q", "-F", "-t", "ext4"]).arg(&image).output().unwrap();
    assert!(out.status.success());
    let disk: Arc<dyn BlockDevice> = disk_of(&image);
    let err = Ext2Fs::mount(disk, dev_clock.clone(), MountOptions::default()).unwrap_err();
    assert_eq!(err.errno, Errno::EINVAL);
    assert!(err.message.contains("extent"), "{}", err);
    // Not ext2 at all.
    let blank: Arc<dyn BlockDevice> = Arc::new(MemDisk::new(512, 4096));
    assert_eq!(Ext2Fs::mount(blank, dev_clock.clone(), MountOptions::default()).unwrap_err().errno, Errno::EINVAL);
    // An unknown read-only-compatible bit: mounted read-only.
    let image = mkfs(&scratch, 2048, &[], None);
    let mut bytes = std::fs::read(&image).unwrap();
    bytes[1024 + 100 + 1] |= 0x80; // s_feature_ro_compat bit 15
    let disk = Arc::new(MemDisk::from_image(512, bytes).unwrap());
    let fs = Ext2Fs::mount(disk.clone(), dev_clock.clone(), MountOptions::default()).unwrap();
    assert!(fs.is_read_only());
    assert!(fs.forced_read_only().is_some());
    let root = fs.root();
    assert_eq!(root.create(b"x", FileType::Regular, 0o644, 0, 0, 0).err(), Some(Errno::EROFS));
    assert_eq!(root.lookup(b"lost+found").unwrap().file_type(), FileType::Directory);
    // Asked for read-only: nothing is written, not even the mount count.
    let image = mkfs(&scratch, 2048, &[], None);
    let disk = disk_of(&image);
    let before = disk.image();
    let fs = Ext2Fs::mount(disk.clone(), dev_clock, MountOptions { dev: 1, read_only: true, ..MountOptions::default() }).unwrap();
    assert_eq!(fs.root().stat().unwrap().ino, 2);
    drop(fs);
    assert!(disk.image() == before);
}

#[test]
fn read_dir_with_resumes_where_the_visitor_stopped() {
    let scratch = Scratch::new("readdir");
    let image = mkfs(&scratch, 8192, &["-b", "1024", "-N", "1024"], None);
    let disk = disk_of(&image);
    let c = clock();
    let fs = mount(&disk, &c);
    let root = fs.root();
    for i in 0..300 {
        root.create(format!("entry-{:03}", i).as_bytes(), FileType::Regular, 0o644, 0, 0, 0).unwrap();
    }
    // Take at most 7 entries per call, as a small getdents64 buffer would.
    let mut seen = Vec::new();
    let mut pos = 0;
    loop {
        let mut taken = 0;
        let next = root
            .read_dir_with(pos, &mut |e, _| {
                if taken == 7 {
                    return false;
                }
                taken += 1;
                seen.push(String::from_utf8(e.name.to_vec()).unwrap());
                true
            })
            .unwrap();
        if taken == 0 {
            break;
        }
        pos = next;
    }
    assert_eq!(seen.len(), 300 + 3, "every entry once, with ., .. and lost+found");
    let mut sorted = seen.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted.len(), seen.len());
    drop(root);
    fs.unmount().unwrap();
    fsck_clean(&disk, &image);
}

#[test]
fn concurrent_changes_from_several_threads_stay_consistent() {
    let scratch = Scratch::new("threads");
    let image = mkfs(&scratch, 16384, &["-b", "1024"], None);
    let disk = disk_of(&image);
    let c = clock();
    let fs = mount(&disk, &c);
    let workers: Vec<_> = (0..4)
        .map(|t| {
            let root = fs.root();
            std::thread::spawn(move || {
                let dir = root.create(format!("t{}", t).as_bytes(), FileType::Directory, 0o755, 0, 0, 0).unwrap();
                for i in 0..40 {
                    let f = dir.create(format!("f{}", i).as_bytes(), FileType::Regular, 0o644, 0, 0, 0).unwrap();
                    f.write_at(0, &pattern(5000 + i * 300, t * 100 + i as u32)).unwrap();
                    if i % 3 == 0 {
                        dir.unlink(format!("f{}", i).as_bytes()).unwrap();
                    }
                }
                dir.rename(b"f1", &root, format!("moved-{}", t).as_bytes(), RenameFlags::EMPTY).unwrap();
            })
        })
        .collect();
    for w in workers {
        w.join().unwrap();
    }
    let root = fs.root();
    for t in 0..4u32 {
        assert_eq!(read_all(&walk(&root, &format!("t{}/f2", t)).unwrap()), pattern(5600, t * 100 + 2));
        assert_eq!(read_all(&walk(&root, &format!("moved-{}", t)).unwrap()), pattern(5300, t * 100 + 1));
        assert_eq!(names(&walk(&root, &format!("t{}", t)).unwrap()).len(), 2 + 40 - 14 - 1);
    }
    drop(root);
    fs.unmount().unwrap();
    fsck_clean(&disk, &image);
}

#[test]
fn names_and_links_follow_linux() {
    let scratch = Scratch::new("names");
    let image = mkfs(&scratch, 2048, &[], None);
    let disk = disk_of(&image);
    let c = clock();
    let fs = mount(&disk, &c);
    let root = fs.root();
    assert_eq!(root.create(&[b'a'; 256], FileType::Regular, 0o644, 0, 0, 0).err(), Some(Errno::ENAMETOOLONG));
    let long = root.create(&[b'a'; 255], FileType::Regular, 0o644, 0, 0, 0).unwrap();
    assert_eq!(root.create(&[b'a'; 255], FileType::Regular, 0o644, 0, 0, 0).err(), Some(Errno::EEXIST));
    let d = root.create(b"d", FileType::Directory, 0o755, 0, 0, 0).unwrap();
    assert_eq!(root.link(b"d2", &d), Err(Errno::EPERM));
    assert_eq!(long.lookup(b"x").err(), Some(Errno::ENOTDIR));
    c.advance(100, 0);
    root.link(b"again", &long).unwrap();
    let st = long.stat().unwrap();
    assert_eq!(st.nlink, 2);
    assert_eq!(st.ctime.sec, 1_700_000_100);
    let mut buf = [0u8; 4];
    assert_eq!(d.read_at(0, &mut buf), Err(Errno::EISDIR));
    drop((long, d, root));
    fs.unmount().unwrap();
    fsck_clean(&disk, &image);
}

/// Mounts a copy of what `disk` holds now, read-only: what a crash would
/// leave.
fn snapshot(disk: &MemDisk, c: &Arc<ManualClock>) -> Arc<Ext2Fs> {
    let copy = Arc::new(MemDisk::from_image(512, disk.image()).unwrap());
    let dev: Arc<dyn BlockDevice> = copy;
    let clock: Arc<dyn Clock> = c.clone();
    Ext2Fs::mount(dev, clock, MountOptions { dev: 78, read_only: true, ..MountOptions::default() }).unwrap()
}

#[test]
fn changes_stay_in_memory_until_written_back() {
    for block_size in ["1024", "4096"] {
        let scratch = Scratch::new("writeback");
        let image = mkfs(&scratch, 8192, &["-b", block_size], None);
        let disk = disk_of(&image);
        let c = clock();
        let fs = mount(&disk, &c);
        let root = fs.root();
        let f = root.create(b"late", FileType::Regular, 0o644, 0, 0, 0).unwrap();
        f.write_at(0, &pattern(20_000, 9)).unwrap();
        assert_eq!(read_all(&f), pattern(20_000, 9), "the page cache holds the bytes");
        assert_eq!(snapshot(&disk, &c).root().lookup(b"late").err(), Some(Errno::ENOENT), "nothing written yet");
        fs.write_back().unwrap();
        let seen = walk(&snapshot(&disk, &c).root(), "late").unwrap();
        assert_eq!(seen.stat().unwrap().size, 20_000, "the metadata is written at once");
        assert_ne!(read_all(&seen), pattern(20_000, 9), "the data only when it is old enough");
        c.advance(i64::from(kevlar_ext2::DIRTY_EXPIRE_SECS), 0);
        fs.write_back().unwrap();
        let seen = walk(&snapshot(&disk, &c).root(), "late").unwrap();
        assert_eq!(read_all(&seen), pattern(20_000, 9), "written back");
        f.write_at(5, b"again").unwrap();
        assert_eq!(read_all(&walk(&snapshot(&disk, &c).root(), "late").unwrap()), pattern(20_000, 9));
        fs.sync().unwrap();
        let mut want = pattern(20_000, 9);
        want[5..10].copy_from_slice(b"again");
        assert_eq!(read_all(&walk(&snapshot(&disk, &c).root(), "late").unwrap()), want);
        drop((f, root));
        fs.unmount().unwrap();
        fsck_clean(&disk, &image);
    }
}

#[test]
fn data_pages_are_shared_with_read_and_write() {
    for block_size in ["1024", "4096"] {
        let scratch = Scratch::new("pages");
        let image = mkfs(&scratch, 8192, &["-b", block_size], None);
        let disk = disk_of(&image);
        let c = clock();
        let fs = mount(&disk, &c);
        let root = fs.root();
        let f = root.create(b"m", FileType::Regular, 0o644, 0, 0, 0).unwrap();
        f.write_at(0, &pattern(6000, 1)).unwrap();
        let page = f.data_page(1).unwrap();
        let mut out = [0u8; 4];
        page.read(0, &mut out);
        assert_eq!(&out, &pattern(6000, 1)[4096..4100], "the page is the file's bytes");
        assert_eq!(f.data_page(2).err(), Some(Errno::ENXIO), "past the end");
        assert!(f.cached_page(1).is_some());
        // A store through a shared writable mapping.
        page.write(10, b"mapped");
        f.page_dirtied(1);
        let mut buf = [0u8; 6];
        f.read_at(4106, &mut buf).unwrap();
        assert_eq!(&buf, b"mapped", "read sees the mapping's store");
        // The tail past the end of the file reads as zeros in the page.
        let mut tail = [0xffu8; 8];
        page.read(6000 - 4096, &mut tail);
        assert_eq!(tail, [0; 8]);
        fs.sync().unwrap();
        let seen = walk(&snapshot(&disk, &c).root(), "m").unwrap();
        let mut got = [0u8; 6];
        seen.read_at(4106, &mut got).unwrap();
        assert_eq!(&got, b"mapped", "written back");
        // A hole filled through a mapping gets its blocks at write-back.
        let h = root.create(b"hole", FileType::Regular, 0o644, 0, 0, 0).unwrap();
        h.truncate(8192).unwrap();
        assert_eq!(h.stat().unwrap().blocks, 0);
        let hp = h.data_page(1).unwrap();
        hp.write(0, b"filled");
        h.page_dirtied(1);
        fs.sync().unwrap();
        assert!(h.stat().unwrap().blocks > 0, "blocks allocated for the stored page");
        let mut got = [0u8; 6];
        walk(&snapshot(&disk, &c).root(), "hole").unwrap().read_at(4096, &mut got).unwrap();
        assert_eq!(&got, b"filled");
        drop((f, h, root, page, hp));
        fs.unmount().unwrap();
        fsck_clean(&disk, &image);
    }
}

#[test]
fn shrinking_zeroes_the_tail_on_disk() {
    for block_size in ["1024", "4096"] {
        let scratch = Scratch::new("tail");
        let image = mkfs(&scratch, 4096, &["-b", block_size], None);
        let disk = disk_of(&image);
        let c = clock();
        let fs = mount(&disk, &c);
        let root = fs.root();
        let f = root.create(b"t", FileType::Regular, 0o644, 0, 0, 0).unwrap();
        f.write_at(0, &[0xff; 12000]).unwrap();
        fs.sync().unwrap();
        f.truncate(100).unwrap();
        fs.sync().unwrap();
        // Forget the cached pages: the bytes come from the disk again.
        assert!(fs.drop_clean_pages() > 0);
        f.truncate(12000).unwrap();
        let all = read_all(&f);
        assert_eq!(&all[..100], &[0xff; 100][..]);
        assert!(all[100..].iter().all(|&b| b == 0), "zeros past the old end");
        drop((f, root));
        fs.unmount().unwrap();
        fsck_clean(&disk, &image);
    }
}

#[test]
fn clean_pages_go_and_dirty_ones_stay() {
    let scratch = Scratch::new("evict");
    let image = mkfs(&scratch, 8192, &[], None);
    let disk = disk_of(&image);
    let c = clock();
    let dev: Arc<dyn BlockDevice> = disk.clone();
    let fs = Ext2Fs::mount_with_pages(dev, c.clone(), MountOptions { dev: 77, read_only: false, ..MountOptions::default() }, Arc::new(kevlar_vfs::HeapPages), 32).unwrap();
    let root = fs.root();
    let f = root.create(b"big", FileType::Regular, 0o644, 0, 0, 0).unwrap();
    f.write_at(0, &pattern(400_000, 4)).unwrap();
    let stats = fs.cache_stats();
    assert!(stats.dirty > 32, "dirty pages are never dropped: {:?}", stats);
    fs.sync().unwrap();
    assert_eq!(fs.cache_stats().dirty, 0);
    assert!(fs.drop_clean_pages() > 0);
    assert_eq!(fs.cache_stats().pages, 0);
    assert_eq!(read_all(&f), pattern(400_000, 4), "read again from the disk");
    assert!(fs.cache_stats().pages <= 32, "clean pages are dropped past the limit: {:?}", fs.cache_stats());
    let page = f.data_page(0).unwrap();
    let _held = f.data_page(0).unwrap();
    assert_eq!(read_all(&f), pattern(400_000, 4));
    drop(page);
    drop((f, root));
    fs.unmount().unwrap();
    fsck_clean(&disk, &image);
}

#[test]
fn changes_after_unmount_are_written_at_once() {
    let scratch = Scratch::new("detached");
    let image = mkfs(&scratch, 4096, &[], None);
    let disk = disk_of(&image);
    let c = clock();
    let fs = mount(&disk, &c);
    let root = fs.root();
    let f = root.create(b"held", FileType::Regular, 0o644, 0, 0, 0).unwrap();
    fs.unmount().unwrap();
    f.write_at(0, b"after unmount").unwrap();
    let mut got = [0u8; 13];
    walk(&snapshot(&disk, &c).root(), "held").unwrap().read_at(0, &mut got).unwrap();
    assert_eq!(&got, b"after unmount");
    drop((f, root));
}

#[test]
fn file_handles_find_inodes_again_until_they_are_deleted() {
    let scratch = Scratch::new("handles");
    let image = mkfs(&scratch, 2048, &[], None);
    let disk = disk_of(&image);
    let c = clock();
    let fs = mount(&disk, &c);
    let root = fs.root();
    let f = root.create(b"file", FileType::Regular, 0o644, 0, 0, 0).unwrap();
    f.write_at(0, b"handle").unwrap();
    let ino = f.ino() as u32;
    let generation = fs.generation(ino).unwrap();
    drop(f);
    // Found again from the disk once no one holds it, by any generation
    // given as 0 too; another generation is stale.
    let again = fs.node_by_handle(ino, generation).unwrap();
    assert_eq!(read_all(&again), b"handle".to_vec());
    assert!(fs.node_by_handle(ino, 0).is_ok());
    assert_eq!(fs.node_by_handle(ino, generation.wrapping_add(1)).err(), Some(Errno::ESTALE));
    assert_eq!(fs.node_by_handle(2, 0).unwrap().file_type(), FileType::Directory, "the root");
    assert_eq!(fs.node_by_handle(0, 0).err(), Some(Errno::ESTALE));
    assert_eq!(fs.node_by_handle(5, 0).err(), Some(Errno::ESTALE), "reserved inode");
    assert_eq!(fs.node_by_handle(u32::MAX, 0).err(), Some(Errno::ESTALE));
    // Unlinked: found while held, stale once released.
    root.unlink(b"file").unwrap();
    assert!(fs.node_by_handle(ino, generation).is_ok());
    drop(again);
    assert_eq!(fs.node_by_handle(ino, generation).err(), Some(Errno::ESTALE));
    drop(root);
    fs.unmount().unwrap();
    fsck_clean(&disk, &image);
}
