//! Timestamps driven by a fake clock.

mod common;

use common::*;
use kevlar_vfs::{FileType, RenameFlags, SetAttr, Timespec};

fn at(sec: i64) -> Timespec {
    Timespec::new(T0.sec + sec, 0)
}

#[test]
fn creation_sets_all_times_and_touches_the_directory() {
    let f = fixture();
    let d = mkdir(&f.root, "d");
    f.clock.advance(1, 0);
    let file = mkfile(&d, "f");
    let s = st(&file);
    assert_eq!((s.atime, s.mtime, s.ctime), (at(1), at(1), at(1)));
    let ds = st(&d);
    assert_eq!((ds.mtime, ds.ctime), (at(1), at(1)));
    assert_eq!(ds.atime, T0, "creating does not read the directory");
    // The grandparent is untouched.
    assert_eq!(st(&f.root).mtime, T0);
}

#[test]
fn writes_set_mtime_and_ctime_only() {
    let f = fixture();
    let file = mkfile(&f.root, "f");
    f.clock.advance(2, 500);
    file.write_at(0, b"x").unwrap();
    let s = st(&file);
    assert_eq!(
        (s.mtime, s.ctime),
        (
            Timespec::new(T0.sec + 2, 500),
            Timespec::new(T0.sec + 2, 500)
        )
    );
    assert_eq!(s.atime, T0);
    assert_eq!(
        st(&f.root).mtime,
        T0,
        "file writes do not touch the directory"
    );
}

#[test]
fn truncate_sets_mtime_and_ctime() {
    let f = fixture();
    let file = mkfile(&f.root, "f");
    f.clock.advance(3, 0);
    file.truncate(100).unwrap();
    assert_eq!((st(&file).mtime, st(&file).ctime), (at(3), at(3)));
}

#[test]
fn reads_follow_relatime() {
    let f = fixture();
    let file = mkfile(&f.root, "f");
    file.write_at(0, b"abc").unwrap();
    let mut buf = [0u8; 3];
    f.clock.advance(10, 0);
    file.read_at(0, &mut buf).unwrap();
    assert_eq!(
        st(&file).atime,
        at(10),
        "atime not newer than mtime: updated"
    );
    f.clock.advance(10, 0);
    file.read_at(0, &mut buf).unwrap();
    assert_eq!(st(&file).atime, at(10), "already newer than mtime: kept");
    file.write_at(0, b"d").unwrap(); // mtime = 20
    f.clock.advance(1, 0);
    file.read_at(0, &mut buf).unwrap();
    assert_eq!(
        st(&file).atime,
        at(21),
        "modified since last access: updated"
    );
    f.clock.advance(24 * 3600, 0);
    file.read_at(0, &mut buf).unwrap();
    assert_eq!(st(&file).atime, at(21 + 24 * 3600), "a day old: updated");
}

#[test]
fn listing_and_readlink_update_atime() {
    let f = fixture();
    let d = mkdir(&f.root, "d");
    let l = f.root.symlink(b"l", b"d", 0, 0).unwrap();
    f.clock.advance(5, 0);
    list(&d);
    assert_eq!(st(&d).atime, at(5));
    l.read_link().unwrap();
    assert_eq!(st(&l).atime, at(5));
    // A lookup is not a read of the directory.
    f.clock.advance(5, 0);
    f.root.lookup(b"d").unwrap();
    assert_eq!(st(&f.root).atime, T0);
}

#[test]
fn unlink_sets_directory_times_and_victim_ctime() {
    let f = fixture();
    let file = mkfile(&f.root, "f");
    f.root.link(b"g", &file).unwrap();
    f.clock.advance(4, 0);
    f.root.unlink(b"f").unwrap();
    assert_eq!((st(&f.root).mtime, st(&f.root).ctime), (at(4), at(4)));
    assert_eq!(st(&file).ctime, at(4));
    assert_eq!(st(&file).mtime, T0, "the contents did not change");
}

#[test]
fn link_sets_target_ctime() {
    let f = fixture();
    let d = mkdir(&f.root, "d");
    let file = mkfile(&f.root, "f");
    f.clock.advance(6, 0);
    d.link(b"alias", &file).unwrap();
    assert_eq!(st(&file).ctime, at(6));
    assert_eq!(st(&file).mtime, T0);
    assert_eq!((st(&d).mtime, st(&d).ctime), (at(6), at(6)));
}

#[test]
fn rmdir_and_mknod_set_parent_times() {
    let f = fixture();
    let d = mkdir(&f.root, "d");
    mkdir(&d, "sub");
    f.clock.advance(7, 0);
    d.rmdir(b"sub").unwrap();
    assert_eq!((st(&d).mtime, st(&d).ctime), (at(7), at(7)));
    f.clock.advance(1, 0);
    d.create(b"fifo", FileType::Fifo, 0o600, 0, 0, 0).unwrap();
    assert_eq!(st(&d).mtime, at(8));
}

#[test]
fn rename_sets_both_directories_and_the_moved_node() {
    let f = fixture();
    let a = mkdir(&f.root, "a");
    let b = mkdir(&f.root, "b");
    let file = mkfile(&a, "f");
    let victim = mkfile(&b, "g");
    f.clock.advance(9, 0);
    a.rename(b"f", &b, b"g", RenameFlags::EMPTY).unwrap();
    assert_eq!((st(&a).mtime, st(&a).ctime), (at(9), at(9)));
    assert_eq!((st(&b).mtime, st(&b).ctime), (at(9), at(9)));
    assert_eq!(st(&file).ctime, at(9));
    assert_eq!(st(&file).mtime, T0);
    assert_eq!(st(&victim).ctime, at(9));
    f.clock.advance(1, 0);
    f.root
        .rename(b"a", &f.root, b"b", RenameFlags::EXCHANGE)
        .unwrap();
    assert_eq!(st(&a).ctime, at(10));
    assert_eq!(st(&b).ctime, at(10));
    assert_eq!(st(&f.root).mtime, at(10));
}

#[test]
fn explicit_times_through_set_attr() {
    let f = fixture();
    let file = mkfile(&f.root, "f");
    f.clock.advance(100, 0);
    let when = Timespec::new(-5, 123); // before the epoch is allowed
    file.set_attr(&SetAttr {
        atime: Some(when),
        ..SetAttr::default()
    })
    .unwrap();
    let s = st(&file);
    assert_eq!((s.atime, s.mtime, s.ctime), (when, T0, at(100)));
    // "UTIME_NOW" is the caller passing its clock's time.
    let now = Timespec::new(T0.sec + 100, 0);
    file.set_attr(&SetAttr {
        atime: Some(now),
        mtime: Some(now),
        ..SetAttr::default()
    })
    .unwrap();
    assert_eq!((st(&file).atime, st(&file).mtime), (now, now));
}
