//! ext4 against e2fsprogs: images made by `mke2fs -t ext4` with Debian's
//! default features (extents, 64bit, flex_bg, dir_index, metadata_csum,
//! huge_file, dir_nlink, extra_isize, 256-byte inodes, a journal), read and
//! changed by this crate, checked by `e2fsck -fn` and `debugfs`.

use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use kevlar_ext2::{Ext2Fs, Flavour, MountOptions};
use kevlar_vfs::{BlockDevice, Clock, Errno, FileType, Inode, ManualClock, MemDisk, RenameFlags, SetAttr, Timespec};

mod common;
use common::*;

const EXT4: MountOptions = MountOptions { dev: 90, read_only: false, flavour: Flavour::Ext4 };

/// Runs `mke2fs -t ext4` (Debian's defaults plus `args`) on a new image of
/// `size_kib` KiB, filled from `from`; returns its path.
fn mkfs4(scratch: &Scratch, size_kib: u64, args: &[&str], from: Option<&Path>) -> PathBuf {
    let image = scratch.0.join("disk4.img");
    let file = std::fs::File::create(&image).unwrap();
    file.set_len(size_kib * 1024).unwrap();
    let mut cmd = Command::new(tool("mke2fs"));
    cmd.args(["-q", "-F", "-t", "ext4", "-E", "root_owner=0:0"]).args(args);
    if let Some(dir) = from {
        cmd.arg("-d").arg(dir);
    }
    cmd.arg(&image);
    let out = cmd.output().expect("mke2fs runs (tools/setup.sh installs e2fsprogs)");
    assert!(out.status.success(), "mke2fs failed: {}", String::from_utf8_lossy(&out.stderr));
    image
}

/// Runs e2fsck with `args` (e.g. -fyD: index every directory).
fn e2fsck(image: &Path, args: &[&str]) {
    let out = Command::new(tool("e2fsck")).args(args).arg(image).output().unwrap();
    assert!(out.status.code().unwrap_or(8) < 4, "e2fsck {:?}: {}", args, String::from_utf8_lossy(&out.stdout));
}

fn mount4(disk: &Arc<MemDisk>, clock: &Arc<ManualClock>) -> Arc<Ext2Fs> {
    let dev: Arc<dyn BlockDevice> = disk.clone();
    let clock: Arc<dyn Clock> = clock.clone();
    Ext2Fs::mount(dev, clock, EXT4).unwrap()
}

/// A source tree for `mke2fs -d`: small and big files, a directory large
/// enough for a hashed index, symlinks, a hard link, a file of many
/// extents (data between holes) and a sparse file past 4 GiB.
fn populate4(dir: &Path) {
    std::fs::create_dir_all(dir.join("sub/deeper")).unwrap();
    std::fs::write(dir.join("hello.txt"), b"hello, ext4\n").unwrap();
    std::fs::write(dir.join("sub/deeper/big.bin"), pattern(300 * 1024, 1)).unwrap();
    std::os::unix::fs::symlink("hello.txt", dir.join("fast-link")).unwrap();
    std::os::unix::fs::symlink("x".repeat(100), dir.join("slow-link")).unwrap();
    std::fs::hard_link(dir.join("hello.txt"), dir.join("sub/hard")).unwrap();
    for i in 0..300 {
        std::fs::write(dir.join(format!("sub/file-with-a-longish-name-{:03}", i)), format!("{}\n", i)).unwrap();
    }
    let mut holes = std::fs::File::create(dir.join("holes.bin")).unwrap();
    for i in 0..12u64 {
        holes.seek(SeekFrom::Start(i * 64 * 1024)).unwrap();
        holes.write_all(&pattern(4096, i as u32 + 10)).unwrap();
    }
    let mut sparse = std::fs::File::create(dir.join("sparse.bin")).unwrap();
    sparse.seek(SeekFrom::Start(5 << 30)).unwrap();
    sparse.write_all(b"past four GiB").unwrap();
}

fn holes_content() -> Vec<u8> {
    let mut v = vec![0u8; 11 * 64 * 1024 + 4096];
    for i in 0..12usize {
        v[i * 64 * 1024..i * 64 * 1024 + 4096].copy_from_slice(&pattern(4096, i as u32 + 10));
    }
    v
}

fn check_populated4(root: &Arc<dyn Inode>) {
    assert_eq!(read_all(&walk(root, "hello.txt").unwrap()), b"hello, ext4\n");
    assert_eq!(read_all(&walk(root, "sub/deeper/big.bin").unwrap()), pattern(300 * 1024, 1));
    assert_eq!(walk(root, "fast-link").unwrap().read_link().unwrap(), b"hello.txt");
    assert_eq!(walk(root, "slow-link").unwrap().read_link().unwrap(), "x".repeat(100).as_bytes());
    assert_eq!(walk(root, "sub/hard").unwrap().ino(), walk(root, "hello.txt").unwrap().ino());
    let sub = walk(root, "sub").unwrap();
    assert_eq!(names(&sub).len(), 2 + 300 + 2);
    for i in [0, 77, 299] {
        assert_eq!(read_all(&walk(root, &format!("sub/file-with-a-longish-name-{:03}", i)).unwrap()), format!("{}\n", i).as_bytes());
    }
    assert_eq!(read_all(&walk(root, "holes.bin").unwrap()), holes_content());
    let sparse = walk(root, "sparse.bin").unwrap();
    let st = sparse.stat().unwrap();
    assert_eq!(st.size, (5 << 30) + 13);
    let mut buf = [0u8; 13];
    assert_eq!(sparse.read_at(5 << 30, &mut buf).unwrap(), 13);
    assert_eq!(&buf, b"past four GiB");
    let mut zeros = [1u8; 100];
    assert_eq!(sparse.read_at(3 << 30, &mut zeros).unwrap(), 100);
    assert!(zeros.iter().all(|&b| b == 0));
}

/// Returns (seconds, nanoseconds) of a timestamp as debugfs prints it
/// ("mtime: 0x65a1b2c3:0000abcd -- ...").
fn debugfs_time(image: &Path, path: &str, field: &str) -> (i64, u32) {
    let out = String::from_utf8(debugfs(image, &format!("stat {}", path))).unwrap();
    let at = out.find(&format!("{}: 0x", field)).unwrap_or_else(|| panic!("no {} in {}", field, out));
    let rest = &out[at + field.len() + 4..];
    let sec = i64::from_str_radix(&rest[..8], 16).unwrap();
    let extra = u32::from_str_radix(&rest[9..17], 16).unwrap();
    (sec + (i64::from(extra & 3) << 32), extra >> 2)
}

#[test]
fn unsupported_features_are_refused_by_name_or_mounted_read_only() {
    let scratch = Scratch::new("ext4-features");
    let c = clock();
    let dev_clock: Arc<dyn Clock> = c.clone();
    // Debian's defaults mount read-write.
    let image = mkfs4(&scratch, 8192, &[], None);
    let fs = mount4(&disk_of(&image), &c);
    assert!(!fs.is_read_only());
    // As ext2, an ext4 image is refused, naming the features.
    let err = Ext2Fs::mount(disk_of(&image), dev_clock.clone(), MountOptions::default()).unwrap_err();
    assert_eq!(err.errno, Errno::EINVAL);
    assert!(err.message.contains("extent") && err.message.contains("64bit") && err.message.contains("flex_bg"), "{}", err);
    // An incompatible feature ext4 here does not know: refused by name.
    let image = mkfs4(&scratch, 8192, &["-O", "inline_data"], None);
    let err = Ext2Fs::mount(disk_of(&image), dev_clock.clone(), EXT4).unwrap_err();
    assert_eq!(err.errno, Errno::EINVAL);
    assert!(err.message.contains("inline_data"), "{}", err);
    // A read-only-compatible one: read-only, named.
    let image = mkfs4(&scratch, 8192, &["-O", "quota"], None);
    let fs = Ext2Fs::mount(disk_of(&image), dev_clock.clone(), EXT4).unwrap();
    assert!(fs.is_read_only());
    assert!(fs.forced_read_only().unwrap().contains("quota"), "{:?}", fs.forced_read_only());
    assert_eq!(fs.root().create(b"x", FileType::Regular, 0o644, 0, 0, 0).err(), Some(Errno::EROFS));
    // A journal that needs recovery, mounted read-only: nothing written.
    let image = mkfs4(&scratch, 8192, &[], None);
    let out = Command::new(tool("debugfs")).args(["-w", "-R", "feature needs_recovery"]).arg(&image).output().unwrap();
    assert!(out.status.success());
    let disk = disk_of(&image);
    let before = disk.image();
    let fs = Ext2Fs::mount(disk.clone(), dev_clock.clone(), MountOptions { read_only: true, ..EXT4 }).unwrap();
    assert!(fs.is_read_only());
    assert_eq!(fs.recovered(), None);
    assert_eq!(fs.root().lookup(b"lost+found").unwrap().file_type(), FileType::Directory);
    fs.unmount().unwrap();
    assert!(disk.image() == before);
    // On a read-only device: read-only, saying why.
    let ro_disk: Arc<dyn BlockDevice> = Arc::new(ReadOnly(disk.clone()));
    let fs = Ext2Fs::mount(ro_disk, dev_clock.clone(), EXT4).unwrap();
    assert!(fs.forced_read_only().unwrap().contains("needs_recovery"));
    drop(fs);
    // Read-write: the (empty) journal is recovered, the flag cleared.
    let fs = Ext2Fs::mount(disk.clone(), dev_clock.clone(), EXT4).unwrap();
    assert!(!fs.is_read_only());
    assert_eq!(fs.recovered(), Some(kevlar_ext2::Recovery::default()));
    fs.unmount().unwrap();
    drop(fs);
    fsck_clean(&disk, &image);
    // A damaged superblock checksum: refused (EBADMSG, Linux's EFSBADCRC).
    let image = mkfs4(&scratch, 8192, &[], None);
    let mut bytes = std::fs::read(&image).unwrap();
    bytes[1024 + 0x78] ^= 1; // s_volume_name
    let disk: Arc<dyn BlockDevice> = Arc::new(MemDisk::from_image(512, bytes).unwrap());
    assert_eq!(Ext2Fs::mount(disk, dev_clock.clone(), EXT4).unwrap_err().errno, Errno::EBADMSG);
    // A damaged inode checksum: that inode reads as EBADMSG.
    let image = mkfs4(&scratch, 8192, &["-b", "4096"], None);
    let table = String::from_utf8(debugfs(&image, "imap <2>")).unwrap();
    let block: u64 = table.split("located at block ").nth(1).unwrap().split(',').next().unwrap().trim().parse().unwrap();
    let offset: u64 = u64::from_str_radix(table.split("offset 0x").nth(1).unwrap().trim().trim_end_matches('\n'), 16).unwrap();
    let mut bytes = std::fs::read(&image).unwrap();
    bytes[(block * 4096 + offset + 0x20) as usize] ^= 0x40; // i_flags
    let fs = Ext2Fs::mount(Arc::new(MemDisk::from_image(512, bytes).unwrap()), dev_clock, MountOptions { read_only: true, ..EXT4 }).unwrap();
    assert_eq!(fs.root().stat().err(), Some(Errno::EBADMSG));
}

/// A device that refuses writes.
struct ReadOnly(Arc<MemDisk>);

impl BlockDevice for ReadOnly {
    fn sector_size(&self) -> usize {
        self.0.sector_size()
    }
    fn sector_count(&self) -> u64 {
        self.0.sector_count()
    }
    fn read_sectors(&self, first: u64, buf: &mut [u8]) -> kevlar_vfs::Result<()> {
        self.0.read_sectors(first, buf)
    }
    fn write_sectors(&self, _first: u64, _buf: &[u8]) -> kevlar_vfs::Result<()> {
        Err(Errno::EROFS)
    }
    fn flush(&self) -> kevlar_vfs::Result<()> {
        Ok(())
    }
    fn is_read_only(&self) -> bool {
        true
    }
}

/// Runs debugfs commands (one a line) on a writable image.
fn debugfs_script(image: &Path, dir: &Path, commands: &str) {
    let file = dir.join("debugfs-commands");
    std::fs::write(&file, commands).unwrap();
    let out = Command::new(tool("debugfs")).arg("-w").arg("-f").arg(&file).arg(image).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn the_journal_is_replayed_at_mount() {
    // Without and with journal checksums (debugfs' `jo -c`: v3).
    for checksums in ["", " -c"] {
        let scratch = Scratch::new("ext4-journal");
        let src = scratch.0.join("src");
        std::fs::create_dir_all(&src).unwrap();
        std::fs::write(src.join("victim"), pattern(4096, 1)).unwrap();
        std::fs::write(src.join("kept"), pattern(4096, 2)).unwrap();
        let image = mkfs4(&scratch, 16384, &["-b", "4096"], Some(&src));
        let block_of = |name: &str| String::from_utf8(debugfs(&image, &format!("bmap {} 0", name))).unwrap().trim().to_string();
        let (victim, kept) = (block_of("victim"), block_of("kept"));
        // The victim's new bytes start with the journal's magic: the log
        // keeps them escaped.
        let mut escaped = vec![0xc0, 0x3b, 0x39, 0x98];
        escaped.extend_from_slice(&pattern(4092, 4));
        let new_victim = scratch.0.join("new-victim");
        std::fs::write(&new_victim, &escaped).unwrap();
        let new_kept = scratch.0.join("new-kept");
        std::fs::write(&new_kept, pattern(4096, 3)).unwrap();
        // One transaction per write: the victim, `kept`, then a third
        // revoking `kept`, so only the victim's new bytes reach the disk.
        debugfs_script(&image, &scratch.0, &format!(
            "jo{c}\njw -b {v} {nv}\njw -b {k} {nk}\njc\njo{c}\njw -r {k}\njc\n",
            c = checksums, v = victim, k = kept, nv = new_victim.display(), nk = new_kept.display()
        ));
        let dump = String::from_utf8(debugfs(&image, "logdump")).unwrap();
        assert!(dump.contains("commit block"), "{}", dump);
        let reference = scratch.0.join("reference.img");
        std::fs::copy(&image, &reference).unwrap();
        e2fsck(&reference, &["-fy"]);
        let disk = disk_of(&image);
        let c = clock();
        let fs = mount4(&disk, &c);
        let rec = fs.recovered().unwrap();
        assert_eq!((rec.transactions, rec.replayed, rec.revoked), (3, 1, 1), "{:?}", rec);
        let root = fs.root();
        assert_eq!(read_all(&walk(&root, "victim").unwrap()), escaped);
        assert_eq!(read_all(&walk(&root, "kept").unwrap()), pattern(4096, 2), "revoked: not replayed");
        drop(root);
        fs.unmount().unwrap();
        drop(fs);
        fsck_clean(&disk, &image);
        // e2fsck's own recovery gives the same files.
        assert_eq!(debugfs(&reference, "cat victim"), debugfs(&image, "cat victim"));
        assert_eq!(debugfs(&reference, "cat kept"), debugfs(&image, "cat kept"));
    }
}

#[test]
fn reads_what_mkfs_ext4_made() {
    for args in [&["-b", "4096"][..], &["-b", "1024"]] {
        let scratch = Scratch::new("ext4-read");
        let src = scratch.0.join("src");
        populate4(&src);
        let image = mkfs4(&scratch, 65536, args, Some(&src));
        // Nanoseconds in a timestamp (mke2fs -d keeps seconds only).
        let out = Command::new(tool("debugfs")).args(["-w", "-R", "sif hello.txt mtime_extra 493827156"]).arg(&image).output().unwrap();
        assert!(out.status.success());
        // Index the directories (mke2fs -d writes them linear).
        e2fsck(&image, &["-fyD"]);
        let htree = String::from_utf8(debugfs(&image, "htree sub")).unwrap();
        assert!(htree.contains("Root node dump"), "sub has a hashed index: {}", htree);
        let extents = String::from_utf8(debugfs(&image, "ex holes.bin")).unwrap();
        assert!(extents.lines().any(|l| l.trim_start().starts_with("0/ 1")), "holes.bin has a tree of depth 1: {}", extents);
        let disk = disk_of(&image);
        let before = disk.image();
        let c = clock();
        let fs = Ext2Fs::mount(disk.clone(), c.clone(), MountOptions { read_only: true, ..EXT4 }).unwrap();
        let root = fs.root();
        check_populated4(&root);
        let (sec, nsec) = debugfs_time(&image, "hello.txt", "mtime");
        let st = walk(&root, "hello.txt").unwrap().stat().unwrap();
        assert_eq!((st.mtime.sec, st.mtime.nsec), (sec, nsec));
        assert_eq!(nsec, 123_456_789);
        let (sec, nsec) = debugfs_time(&image, "sub", "ctime");
        let st = walk(&root, "sub").unwrap().stat().unwrap();
        assert_eq!((st.ctime.sec, st.ctime.nsec), (sec, nsec));
        // i_blocks as stat reports it: debugfs's "Blockcount".
        let out = String::from_utf8(debugfs(&image, "stat holes.bin")).unwrap();
        let count: u64 = out.split("Blockcount: ").nth(1).unwrap().split_whitespace().next().unwrap().parse().unwrap();
        assert_eq!(walk(&root, "holes.bin").unwrap().stat().unwrap().blocks, count);
        drop(root);
        fs.unmount().unwrap();
        assert!(disk.image() == before, "a read-only mount writes nothing");
    }
}

#[test]
fn writes_keep_ext4_clean_for_e2fsck() {
    for block_size in ["4096", "1024"] {
        let scratch = Scratch::new("ext4-write");
        let src = scratch.0.join("src");
        populate4(&src);
        let image = mkfs4(&scratch, 65536, &["-b", block_size], Some(&src));
        e2fsck(&image, &["-fyD"]);
        let disk = disk_of(&image);
        let c = clock();
        c.set(Timespec::new(1_700_000_000, 987_654_321));
        let fs = mount4(&disk, &c);
        let root = fs.root();
        // A new file: extents grow in place as the file grows.
        let data = pattern(1100 * 1024, 7);
        let f = root.create(b"new.bin", FileType::Regular, 0o640, 1000, 1000, 0).unwrap();
        for (i, chunk) in data.chunks(70_001).enumerate() {
            assert_eq!(f.write_at((i * 70_001) as u64, chunk).unwrap(), chunk.len());
        }
        assert_eq!(read_all(&f), data);
        assert_eq!(f.stat().unwrap().mtime, Timespec::new(1_700_000_000, 987_654_321));
        // Two files written a block at a time in turn: many extents each,
        // so their trees grow to depth 1 (4 KiB) and 2 (1 KiB blocks).
        let a = root.create(b"frag-a", FileType::Regular, 0o644, 0, 0, 0).unwrap();
        let b = root.create(b"frag-b", FileType::Regular, 0o644, 0, 0, 0).unwrap();
        let bs: usize = block_size.parse().unwrap();
        let blocks = 420;
        let content_a = pattern(blocks * bs, 21);
        let content_b = pattern(blocks * bs, 22);
        for i in 0..blocks {
            a.write_at((i * bs) as u64, &content_a[i * bs..(i + 1) * bs]).unwrap();
            b.write_at((i * bs) as u64, &content_b[i * bs..(i + 1) * bs]).unwrap();
            if i % 50 == 0 {
                fs.sync().unwrap(); // block allocation interleaves
            }
        }
        assert_eq!(read_all(&a), content_a);
        assert_eq!(read_all(&b), content_b);
        // Truncate one into the middle, then grow it with a hole.
        a.truncate((blocks * bs / 3) as u64 + 17).unwrap();
        a.truncate((blocks * bs) as u64).unwrap();
        let grown = read_all(&a);
        assert_eq!(&grown[..blocks * bs / 3 + 17], &content_a[..blocks * bs / 3 + 17]);
        assert!(grown[blocks * bs / 3 + 17..].iter().all(|&x| x == 0));
        // A sparse file past 4 GiB.
        let s = root.create(b"sparse-new", FileType::Regular, 0o644, 0, 0, 0).unwrap();
        s.write_at(6 << 30, b"six GiB").unwrap();
        s.write_at(4096, b"start").unwrap();
        // Changes in the hashed directory drop its index.
        let sub = walk(&root, "sub").unwrap();
        for i in 0..100 {
            sub.create(format!("added-{}", i).as_bytes(), FileType::Regular, 0o644, 0, 0, 0).unwrap();
        }
        for i in (0..300).step_by(3) {
            sub.unlink(format!("file-with-a-longish-name-{:03}", i).as_bytes()).unwrap();
        }
        sub.rename(b"added-5", &root, b"moved-out", RenameFlags::EMPTY).unwrap();
        root.rename(b"hello.txt", &sub, b"file-with-a-longish-name-001", RenameFlags::EMPTY).unwrap();
        // Directories, symlinks, links, special files.
        let d = root.create(b"dir", FileType::Directory, 0o755, 0, 0, 0).unwrap();
        let inner = d.create(b"inner", FileType::Directory, 0o700, 0, 0, 0).unwrap();
        inner.create(b"leaf", FileType::Regular, 0o600, 0, 0, 0).unwrap().write_at(0, b"leaf data").unwrap();
        for i in 0..200 {
            d.create(format!("n{}", i).as_bytes(), FileType::Regular, 0o644, 0, 0, 0).unwrap();
        }
        d.symlink(b"short", b"inner/leaf", 0, 0).unwrap();
        d.symlink(b"long", "y/".repeat(60).as_bytes(), 0, 0).unwrap();
        d.create(b"fifo", FileType::Fifo, 0o644, 0, 0, 0).unwrap();
        d.rename(b"inner", &sub, b"inner-moved", RenameFlags::EMPTY).unwrap();
        walk(&root, "sub/deeper").unwrap().unlink(b"big.bin").unwrap();
        sub.rmdir(b"deeper").unwrap();
        root.unlink(b"holes.bin").unwrap();
        f.set_attr(&SetAttr { atime: Some(Timespec::new(1000, 5)), mtime: Some(Timespec::new(2000, 999_999_999)), ..SetAttr::default() }).unwrap();
        let inodes_of = (f.ino(), b.ino());
        drop((f, a, b, s, sub, d, inner, root));
        fs.unmount().unwrap();
        drop(fs);
        fsck_clean(&disk, &image);
        // e2fsprogs reads the same.
        assert_eq!(debugfs(&image, "cat /sub/inner-moved/leaf"), b"leaf data");
        assert_eq!(debugfs(&image, "cat /sub/file-with-a-longish-name-001"), b"hello, ext4\n");
        assert_eq!(debugfs(&image, "cat /frag-b"), content_b);
        assert_eq!(debugfs_time(&image, "new.bin", "mtime"), (2000, 999_999_999));
        let stat = String::from_utf8(debugfs(&image, &format!("stat <{}>", inodes_of.0))).unwrap();
        assert!(stat.contains("Size: 1126400"), "{}", stat);
        let ex = String::from_utf8(debugfs(&image, "ex frag-b")).unwrap();
        let depth = if bs == 1024 { "0/ 2" } else { "0/ 1" };
        assert!(ex.lines().any(|l| l.trim_start().starts_with(depth)), "frag-b's tree: {}", ex);
        // And a new mount reads it back.
        let fs = mount4(&disk, &c);
        let root = fs.root();
        assert_eq!(read_all(&walk(&root, "new.bin").unwrap()), data);
        assert_eq!(read_all(&walk(&root, "frag-b").unwrap()), content_b);
        let s = walk(&root, "sparse-new").unwrap();
        let mut buf = [0u8; 7];
        s.read_at(6 << 30, &mut buf).unwrap();
        assert_eq!(&buf, b"six GiB");
        drop(s);
        assert_eq!(walk(&root, "dir/long").unwrap().read_link().unwrap(), "y/".repeat(60).as_bytes());
        assert_eq!(names(&walk(&root, "sub").unwrap()).len(), 2 + 300 - 100 + 99 + 1 + 1 + 1 - 1);
        // Freeing everything gives the blocks back.
        for name in ["new.bin", "frag-a", "frag-b", "sparse-new"] {
            root.unlink(name.as_bytes()).unwrap();
        }
        drop(root);
        fs.unmount().unwrap();
        drop(fs);
        fsck_clean(&disk, &image);
    }
}

/// Reads everything under `dir` (at most `budget` nodes), ignoring errors.
fn visit_all(dir: &Arc<dyn Inode>, budget: &mut u32) {
    let mut pos = 0;
    while *budget > 0 {
        *budget -= 1;
        let Ok(Some((e, next))) = dir.read_dir(pos) else { break };
        if next <= pos {
            break;
        }
        pos = next;
        if e.name == b"." || e.name == b".." {
            continue;
        }
        let Ok(node) = dir.lookup(&e.name) else { continue };
        let _ = node.stat();
        match node.file_type() {
            FileType::Directory => visit_all(&node, budget),
            FileType::Symlink => {
                let _ = node.read_link();
            }
            FileType::Regular => {
                let mut buf = vec![0u8; 64 * 1024];
                for k in 0..4u64 {
                    let _ = node.read_at(k * (1 << 20), &mut buf);
                }
            }
            _ => {}
        }
    }
}

#[test]
fn damaged_images_give_errors_not_panics() {
    let scratch = Scratch::new("ext4-damage");
    let src = scratch.0.join("src");
    populate4(&src);
    // Without checksums, damage reaches the parsers.
    let image = mkfs4(&scratch, 16384, &["-b", "1024", "-O", "^metadata_csum"], Some(&src));
    e2fsck(&image, &["-fyD"]);
    let pristine = std::fs::read(&image).unwrap();
    let c = clock();
    let mut x = 0x2545_f491_u32;
    let mut rand = move || {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        x
    };
    for round in 0..40 {
        let mut bytes = pristine.clone();
        // Damage the metadata near the start (superblock copies aside:
        // flex_bg keeps bitmaps and inode tables there) and anywhere.
        for _ in 0..24 {
            let limit = if rand() % 4 == 0 { bytes.len() } else { bytes.len() / 8 };
            let at = 2048 + rand() as usize % (limit - 2048);
            bytes[at] ^= 1 << (rand() % 8);
        }
        let disk = Arc::new(MemDisk::from_image(512, bytes).unwrap());
        let dev: Arc<dyn BlockDevice> = disk.clone();
        let Ok(fs) = Ext2Fs::mount(dev, c.clone(), EXT4) else { continue };
        let root = fs.root();
        let mut budget = 2000;
        visit_all(&root, &mut budget);
        if let Ok(f) = root.create(format!("new-{}", round).as_bytes(), FileType::Regular, 0o644, 0, 0, 0) {
            let _ = f.write_at(0, &pattern(50_000, round));
            let _ = f.truncate(10);
        }
        let _ = root.unlink(b"hello.txt");
        if let Ok(sub) = root.lookup(b"sub") {
            let _ = sub.create(b"another", FileType::Regular, 0o644, 0, 0, 0);
        }
        drop(root);
        let _ = fs.sync();
    }
}

#[test]
fn hard_links_reach_ext4s_limit() {
    for (flavour, limit) in [(Flavour::Ext2, 32000u32), (Flavour::Ext4, 65000)] {
        let scratch = Scratch::new("ext4-links");
        let src = scratch.0.join("src");
        std::fs::create_dir_all(&src).unwrap();
        std::fs::write(src.join("f"), b"x").unwrap();
        let image = mkfs4(&scratch, 8192, &["-O", "^extent,^64bit,^flex_bg,^metadata_csum,^huge_file,^dir_nlink,^extra_isize"], Some(&src));
        // One link short of the limit (the count is all that matters).
        let out = Command::new(tool("debugfs")).args(["-w", "-R", &format!("sif f links_count {}", limit - 1)]).arg(&image).output().unwrap();
        assert!(out.status.success());
        let dev: Arc<dyn BlockDevice> = disk_of(&image);
        let fs = Ext2Fs::mount(dev, clock(), MountOptions { flavour, ..EXT4 }).unwrap();
        let root = fs.root();
        let f = root.lookup(b"f").unwrap();
        root.link(b"one-more", &f).unwrap();
        assert_eq!(f.stat().unwrap().nlink, limit);
        assert_eq!(root.link(b"too-many", &f), Err(Errno::EMLINK));
    }
}

#[test]
fn unwritten_extents_read_as_zeros_and_are_written_in_place() {
    let scratch = Scratch::new("ext4-unwritten");
    let src = scratch.0.join("src");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::write(src.join("f"), b"written part\n").unwrap();
    let image = mkfs4(&scratch, 16384, &["-b", "4096"], Some(&src));
    // Blocks 1 to 9 allocated unwritten (past the end), as fallocate
    // with KEEP_SIZE leaves them.
    let out = Command::new(tool("debugfs")).args(["-w", "-R", "fallocate /f 0 9"]).arg(&image).output().unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8(debugfs(&image, "ex f")).unwrap().contains("Uninit"));
    let disk = disk_of(&image);
    let c = clock();
    let fs = mount4(&disk, &c);
    let root = fs.root();
    let f = root.lookup(b"f").unwrap();
    assert_eq!(f.stat().unwrap().blocks, 80);
    f.truncate(40960).unwrap();
    let mut want = vec![0u8; 40960];
    want[..13].copy_from_slice(b"written part\n");
    assert_eq!(read_all(&f), want);
    f.write_at(5 * 4096, b"hello").unwrap();
    want[5 * 4096..5 * 4096 + 5].copy_from_slice(b"hello");
    assert_eq!(read_all(&f), want);
    assert_eq!(f.stat().unwrap().blocks, 80, "no new blocks: the run was there");
    drop((f, root));
    fs.unmount().unwrap();
    drop(fs);
    fsck_clean(&disk, &image);
    // The run split where the write landed, as ext4 converts: blocks
    // 1-4 stay unwritten; 5 was written and the short tail 6-9 (under
    // 32 KiB) was zeroed and written with it.
    let ex = String::from_utf8(debugfs(&image, "ex f")).unwrap();
    assert_eq!(ex.matches("Uninit").count(), 1, "{ex}");
    assert!(ex.lines().any(|l| l.contains(" 1 -     4 ") && l.contains("Uninit")), "{ex}");
    assert_eq!(debugfs(&image, "cat f"), want);
}

#[test]
fn new_directories_reuse_freed_blocks_cleanly() {
    // Blocks a deleted file freed come back as the first blocks of new
    // directories: their `.` and `..` must be zero-padded, as e2fsck
    // checks ("'.' directory entry ... is not NULL terminated"); Kevlar
    // left the file's bytes there (found by git on the Debian suite's
    // ext4 scratch disk).
    for block_size in ["4096", "1024"] {
        let scratch = Scratch::new("ext4-dir-reuse");
        let image = mkfs4(&scratch, 16384, &["-b", block_size], None);
        let disk = disk_of(&image);
        let c = clock();
        let fs = mount4(&disk, &c);
        let root = fs.root();
        let junk = vec![0xa5u8; 256 * 1024];
        let f = root.create(b"junk", FileType::Regular, 0o644, 0, 0, 0).unwrap();
        assert_eq!(f.write_at(0, &junk).unwrap(), junk.len());
        fs.sync().unwrap();
        drop(f);
        root.unlink(b"junk").unwrap();
        fs.sync().unwrap();
        let bs: usize = block_size.parse().unwrap();
        let top = root.create(b"top", FileType::Directory, 0o755, 0, 0, 0).unwrap();
        for i in 0..(256 * 1024 / bs + 8) {
            top.create(format!("d{:03}", i).as_bytes(), FileType::Directory, 0o755, 0, 0, 0).unwrap();
        }
        drop(top);
        drop(root);
        fs.unmount().unwrap();
        fsck_clean(&disk, &image);
    }
}

/// A read-only mount made writable (`mount -o remount,rw /`, what
/// systemd-remount-fs does to the root the kernel mounted read-only):
/// EROFS before, changes after, and e2fsck finds the disk clean.
#[test]
fn a_read_only_mount_is_remounted_read_write() {
    let scratch = Scratch::new("ext4-remount");
    let src = scratch.0.join("src");
    populate4(&src);
    let image = mkfs4(&scratch, 16384, &[], Some(&src));
    let disk = disk_of(&image);
    let c = clock();
    c.set(Timespec::new(1_700_000_000, 0));
    let dev: Arc<dyn BlockDevice> = disk.clone();
    let clk: Arc<dyn Clock> = c.clone();
    let fs = Ext2Fs::mount(dev, clk, MountOptions { read_only: true, ..EXT4 }).unwrap();
    let root = fs.root();
    assert!(fs.is_read_only());
    assert_eq!(root.create(b"before", FileType::Regular, 0o644, 0, 0, 0).err(), Some(Errno::EROFS));
    fs.remount_read_write().unwrap();
    assert!(!fs.is_read_only());
    fs.remount_read_write().unwrap();
    let f = root.create(b"after", FileType::Regular, 0o644, 0, 0, 0).unwrap();
    assert_eq!(f.write_at(0, b"written\n").unwrap(), 8);
    drop(f);
    fs.unmount().unwrap();
    drop(root);
    drop(fs);
    fsck_clean(&disk, &image);
    let fs = mount4(&disk, &c);
    assert_eq!(read_all(&walk(&fs.root(), "after").unwrap()), b"written\n");
    check_populated4(&fs.root());
}
