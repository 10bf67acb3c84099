//! Node creation, lookup, attributes and per-type behaviour.

mod common;

use std::collections::HashSet;
use std::sync::Arc;

use common::*;
use kevlar_tmpfs::{TmpFs, TmpFsOptions, TmpInode, PAGE_SIZE};
use kevlar_vfs::{Errno, FileType, Inode, ManualClock, SetAttr, Timespec, NAME_MAX};
use linux_raw_sys::general as g;

#[test]
fn everything_is_send_and_sync() {
    fn check<T: Send + Sync + ?Sized>() {}
    check::<TmpFs>();
    check::<TmpInode>();
    check::<Arc<dyn Inode>>();
}

#[test]
fn root_directory() {
    let f = fixture();
    let s = st(&f.root);
    assert_eq!(s.file_type(), Some(FileType::Directory));
    assert_eq!(s.perm(), 0o1777);
    assert_eq!(s.nlink, 2);
    assert_eq!(s.ino, 1);
    assert_eq!(s.dev, f.fs.dev());
    assert_eq!(f.root.fs_id(), f.fs.dev());
    assert_eq!(s.atime, T0);
    // `.` and `..` of the root are the root.
    assert_eq!(f.root.lookup(b".").unwrap().ino(), 1);
    assert_eq!(f.root.lookup(b"..").unwrap().ino(), 1);
    assert_eq!(list(&f.root), vec![".", ".."]);
}

#[test]
fn options_apply_to_root() {
    let clock = Arc::new(ManualClock::new(T0));
    let options = TmpFsOptions {
        dev: Some(77),
        root_mode: 0o755,
        root_uid: 5,
        root_gid: 6,
        ..TmpFsOptions::default()
    };
    let fs = TmpFs::with_options(clock, options);
    let s = fs.root().stat().unwrap();
    assert_eq!((s.dev, s.perm(), s.uid, s.gid), (77, 0o755, 5, 6));
}

#[test]
fn instances_have_distinct_devices() {
    let clock = Arc::new(ManualClock::new(T0));
    let a = TmpFs::new(clock.clone());
    let b = TmpFs::new(clock);
    assert_ne!(a.dev(), b.dev());
    assert_ne!(a.root().fs_id(), b.root().fs_id());
}

#[test]
fn create_and_lookup_regular_file() {
    let f = fixture();
    let file = f
        .root
        .create(b"hello", FileType::Regular, 0o640, 10, 20, 999)
        .unwrap();
    let s = st(&file);
    assert_eq!(s.mode, g::S_IFREG | 0o640);
    assert_eq!(
        (s.uid, s.gid, s.nlink, s.size, s.rdev, s.blocks),
        (10, 20, 1, 0, 0, 0)
    );
    assert_eq!(s.blksize as usize, PAGE_SIZE);
    assert_eq!((s.atime, s.mtime, s.ctime), (T0, T0, T0));
    let again = f.root.lookup(b"hello").unwrap();
    assert_eq!(again.ino(), file.ino());
    assert!(again.is_seekable());
    assert_eq!(f.root.lookup(b"nope").err(), Some(Errno::ENOENT));
}

#[test]
fn mode_keeps_only_permission_bits() {
    let f = fixture();
    let file = f
        .root
        .create(b"x", FileType::Regular, g::S_IFDIR | 0o4755, 0, 0, 0)
        .unwrap();
    assert_eq!(st(&file).mode, g::S_IFREG | 0o4755);
}

#[test]
fn create_errors() {
    let f = fixture();
    mkfile(&f.root, "a");
    let create = |name: &[u8]| f.root.create(name, FileType::Regular, 0o644, 0, 0, 0).err();
    assert_eq!(create(b"a"), Some(Errno::EEXIST));
    assert_eq!(create(b"."), Some(Errno::EEXIST));
    assert_eq!(create(b".."), Some(Errno::EEXIST));
    assert_eq!(create(b""), Some(Errno::ENOENT));
    assert_eq!(create(b"a/b"), Some(Errno::EINVAL));
    assert_eq!(create(b"a\0b"), Some(Errno::EINVAL));
    assert_eq!(create(&[b'n'; NAME_MAX + 1]), Some(Errno::ENAMETOOLONG));
    assert_eq!(
        f.root.lookup(&[b'n'; NAME_MAX + 1]).err(),
        Some(Errno::ENAMETOOLONG)
    );
    // Symlinks have their own operation.
    assert_eq!(
        f.root.create(b"s", FileType::Symlink, 0o777, 0, 0, 0).err(),
        Some(Errno::EINVAL)
    );
}

#[test]
fn longest_name_and_non_utf8_names_work() {
    let f = fixture();
    let long = vec![b'n'; NAME_MAX];
    f.root
        .create(&long, FileType::Regular, 0o644, 0, 0, 0)
        .unwrap();
    assert!(f.root.lookup(&long).is_ok());
    let latin1 = b"caf\xe9";
    f.root
        .create(latin1, FileType::Regular, 0o644, 0, 0, 0)
        .unwrap();
    assert!(f.root.lookup(latin1).is_ok());
    let mut found = false;
    let mut pos = 0;
    while let Some((e, next)) = f.root.read_dir(pos).unwrap() {
        found |= e.name == latin1;
        pos = next;
    }
    assert!(found);
}

#[test]
fn directory_operations_on_non_directories() {
    let f = fixture();
    let file = mkfile(&f.root, "f");
    assert_eq!(file.lookup(b"x").err(), Some(Errno::ENOTDIR));
    assert_eq!(
        file.create(b"x", FileType::Regular, 0, 0, 0, 0).err(),
        Some(Errno::ENOTDIR)
    );
    assert_eq!(file.symlink(b"x", b"y", 0, 0).err(), Some(Errno::ENOTDIR));
    assert_eq!(file.unlink(b"x"), Err(Errno::ENOTDIR));
    assert_eq!(file.rmdir(b"x"), Err(Errno::ENOTDIR));
    assert_eq!(file.link(b"x", &file), Err(Errno::ENOTDIR));
    assert_eq!(file.read_dir(0).err(), Some(Errno::ENOTDIR));
    assert_eq!(
        file.rename(b"x", &f.root, b"y", Default::default()),
        Err(Errno::ENOTDIR)
    );
    assert_eq!(
        f.root.rename(b"f", &file, b"y", Default::default()),
        Err(Errno::ENOTDIR)
    );
}

#[test]
fn data_operations_on_directories_and_others() {
    let f = fixture();
    let dir = mkdir(&f.root, "d");
    let mut buf = [0u8; 8];
    assert_eq!(dir.read_at(0, &mut buf), Err(Errno::EISDIR));
    assert_eq!(dir.write_at(0, b"x"), Err(Errno::EISDIR));
    assert_eq!(dir.truncate(0), Err(Errno::EISDIR));
    assert_eq!(
        dir.set_attr(&SetAttr {
            size: Some(0),
            ..SetAttr::default()
        }),
        Err(Errno::EISDIR)
    );
    assert_eq!(dir.read_link(), Err(Errno::EINVAL));
    let link = f.root.symlink(b"l", b"d", 0, 0).unwrap();
    assert_eq!(link.read_at(0, &mut buf), Err(Errno::EINVAL));
    assert_eq!(link.write_at(0, b"x"), Err(Errno::EINVAL));
    assert_eq!(link.truncate(0), Err(Errno::EINVAL));
    let fifo = f.root.create(b"p", FileType::Fifo, 0o600, 0, 0, 0).unwrap();
    assert_eq!(fifo.read_at(0, &mut buf), Err(Errno::EINVAL));
    assert_eq!(fifo.write_at(0, b"x"), Err(Errno::EINVAL));
    let file = mkfile(&f.root, "f");
    assert_eq!(file.read_link(), Err(Errno::EINVAL));
}

#[test]
fn special_nodes() {
    let f = fixture();
    let chr = f
        .root
        .create(b"null", FileType::CharDevice, 0o666, 0, 0, 0x103)
        .unwrap();
    let blk = f
        .root
        .create(b"sda", FileType::BlockDevice, 0o660, 0, 6, 0x800)
        .unwrap();
    let fifo = f
        .root
        .create(b"fifo", FileType::Fifo, 0o600, 0, 0, 0x55)
        .unwrap();
    let sock = f
        .root
        .create(b"sock", FileType::Socket, 0o755, 0, 0, 0x55)
        .unwrap();
    assert_eq!(st(&chr).mode, g::S_IFCHR | 0o666);
    assert_eq!(st(&chr).rdev, 0x103);
    assert_eq!(st(&blk).mode, g::S_IFBLK | 0o660);
    assert_eq!(st(&blk).rdev, 0x800);
    // rdev means nothing for fifos and sockets.
    assert_eq!(st(&fifo).rdev, 0);
    assert_eq!(st(&sock).file_type(), Some(FileType::Socket));
    assert!(chr.is_seekable());
    assert!(!fifo.is_seekable());
    assert!(!sock.is_seekable());
    assert_eq!(fifo.file_type(), FileType::Fifo);
}

#[test]
fn symlinks() {
    let f = fixture();
    let target = b"some/where/../else";
    let link = f.root.symlink(b"l", target, 3, 4).unwrap();
    let s = st(&link);
    assert_eq!(s.mode, g::S_IFLNK | 0o777);
    assert_eq!((s.size, s.uid, s.gid), (target.len() as u64, 3, 4));
    assert_eq!(link.read_link().unwrap(), target.to_vec());
    assert_eq!(f.root.symlink(b"l", b"x", 0, 0).err(), Some(Errno::EEXIST));
    assert_eq!(f.root.symlink(b"e", b"", 0, 0).err(), Some(Errno::ENOENT));
    assert_eq!(
        f.root.symlink(b"e", &vec![b'a'; 4096], 0, 0).err(),
        Some(Errno::ENAMETOOLONG)
    );
    assert!(f.root.symlink(b"e", &vec![b'a'; 4095], 0, 0).is_ok());
    assert_eq!(f.root.symlink(b"..", b"x", 0, 0).err(), Some(Errno::EEXIST));
}

#[test]
fn set_attr_changes_fields_and_ctime() {
    let f = fixture();
    let file = mkfile(&f.root, "f");
    f.clock.advance(10, 0);
    let t1 = Timespec::new(5, 6);
    let t2 = Timespec::new(7, 8);
    let attr = SetAttr {
        mode: Some(g::S_IFDIR | 0o2751),
        uid: Some(42),
        gid: Some(43),
        atime: Some(t1),
        mtime: Some(t2),
        size: None,
    };
    file.set_attr(&attr).unwrap();
    let s = st(&file);
    assert_eq!(s.mode, g::S_IFREG | 0o2751);
    assert_eq!((s.uid, s.gid, s.atime, s.mtime), (42, 43, t1, t2));
    assert_eq!(s.ctime, Timespec::new(T0.sec + 10, 0));
    // An empty change set changes nothing, not even ctime.
    f.clock.advance(10, 0);
    file.set_attr(&SetAttr::default()).unwrap();
    assert_eq!(st(&file).ctime, Timespec::new(T0.sec + 10, 0));
}

#[test]
fn set_attr_size_truncates_and_sets_mtime() {
    let f = fixture();
    let file = mkfile(&f.root, "f");
    file.write_at(0, b"0123456789").unwrap();
    f.clock.advance(1, 0);
    file.set_attr(&SetAttr {
        size: Some(4),
        ..SetAttr::default()
    })
    .unwrap();
    assert_eq!(read_all(&file), b"0123");
    assert_eq!(st(&file).mtime, Timespec::new(T0.sec + 1, 0));
    // EFBIG leaves the other attributes alone.
    let big = SetAttr {
        size: Some(u64::MAX),
        uid: Some(9),
        ..SetAttr::default()
    };
    assert_eq!(file.set_attr(&big), Err(Errno::EFBIG));
    assert_eq!(st(&file).uid, 0);
}

#[test]
fn setgid_directories_pass_on_their_group() {
    let f = fixture();
    let dir = f
        .root
        .create(b"shared", FileType::Directory, 0o2775, 0, 50, 0)
        .unwrap();
    let file = dir.create(b"f", FileType::Regular, 0o644, 7, 7, 0).unwrap();
    let sub = dir
        .create(b"sub", FileType::Directory, 0o755, 7, 7, 0)
        .unwrap();
    assert_eq!(st(&file).gid, 50);
    assert_eq!(st(&file).perm(), 0o644);
    assert_eq!(st(&sub).gid, 50);
    assert_eq!(st(&sub).perm(), 0o2755);
    // Without the bit, the caller's group is used.
    let plain = mkdir(&f.root, "plain");
    let other = plain
        .create(b"f", FileType::Regular, 0o644, 7, 8, 0)
        .unwrap();
    assert_eq!(st(&other).gid, 8);
}

#[test]
fn inode_numbers_are_unique() {
    let f = fixture();
    let mut seen = HashSet::new();
    seen.insert(f.root.ino());
    let dir = mkdir(&f.root, "d");
    assert!(seen.insert(dir.ino()));
    for i in 0..200 {
        let node = mkfile(&dir, &format!("f{i}"));
        assert!(seen.insert(node.ino()), "duplicate inode number");
    }
    // Numbers are not reused after removal either.
    let before = mkfile(&dir, "gone").ino();
    dir.unlink(b"gone").unwrap();
    let after = mkfile(&dir, "gone").ino();
    assert_ne!(before, after);
}

#[test]
fn inode_budget_gives_enospc() {
    let f = fixture_with(TmpFsOptions {
        max_inodes: Some(3),
        ..TmpFsOptions::default()
    });
    mkfile(&f.root, "a");
    mkfile(&f.root, "b");
    assert_eq!(
        f.root.create(b"c", FileType::Regular, 0o644, 0, 0, 0).err(),
        Some(Errno::ENOSPC)
    );
    assert_eq!(f.root.symlink(b"c", b"a", 0, 0).err(), Some(Errno::ENOSPC));
    assert_eq!(f.fs.usage().inodes, 3);
    f.root.unlink(b"a").unwrap();
    mkfile(&f.root, "c");
    // The failed attempt must not have left a half-created entry.
    assert_eq!(names(&f.root).len(), 2);
}

#[test]
fn inodes_are_freed_when_the_last_reference_goes() {
    let f = fixture();
    let file = mkfile(&f.root, "f");
    assert_eq!(f.fs.usage().inodes, 2);
    f.root.unlink(b"f").unwrap();
    assert_eq!(f.fs.usage().inodes, 2, "still referenced");
    drop(file);
    assert_eq!(f.fs.usage().inodes, 1);
}

#[test]
fn as_any_recognises_tmpfs_nodes() {
    let f = fixture();
    assert!(f.root.as_any().downcast_ref::<TmpInode>().is_some());
    assert!(f.root.as_any().downcast_ref::<String>().is_none());
}

#[test]
fn deep_trees_drop_without_recursion() {
    // Deep enough that a recursive drop would overflow a test thread's stack.
    let f = fixture();
    let mut dir = f.root.clone();
    for _ in 0..100_000 {
        dir = mkdir(&dir, "d");
    }
    drop(dir);
    assert_eq!(f.fs.usage().inodes, 100_001);
    let Fixture { fs, root, .. } = f;
    drop(root);
    drop(fs);
}

#[test]
fn dropping_a_file_system_frees_everything() {
    let clock = Arc::new(ManualClock::new(T0));
    let fs = TmpFs::new(clock);
    let root = fs.root();
    let d = mkdir(&root, "d");
    let file = mkfile(&d, "f");
    file.write_at(0, &[1u8; 3 * PAGE_SIZE]).unwrap();
    assert_eq!(fs.usage().pages, 3);
    // An open file outlives its file system's tree and keeps working.
    drop(d);
    drop(root);
    drop(fs);
    let mut buf = [0u8; 4];
    assert_eq!(file.read_at(0, &mut buf).unwrap(), 4);
    assert_eq!(buf, [1u8; 4]);
}
