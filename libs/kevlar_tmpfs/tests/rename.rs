//! rename and renameat2 semantics.

mod common;

use std::collections::BTreeSet;
use std::sync::Arc;

use common::*;
use kevlar_tmpfs::{TmpFs, TmpFsOptions};
use kevlar_vfs::{Errno, ManualClock, RenameFlags};

const NONE: RenameFlags = RenameFlags::EMPTY;

fn set(names: &[&str]) -> BTreeSet<String> {
    names.iter().map(|s| s.to_string()).collect()
}

#[test]
fn within_one_directory() {
    let f = fixture();
    let file = mkfile(&f.root, "a");
    f.root.rename(b"a", &f.root, b"b", NONE).unwrap();
    assert_eq!(names(&f.root), set(&["b"]));
    assert_eq!(f.root.lookup(b"b").unwrap().ino(), file.ino());
    assert_eq!(nlink(&file), 1);
}

#[test]
fn across_directories() {
    let f = fixture();
    let src = mkdir(&f.root, "src");
    let dst = mkdir(&f.root, "dst");
    let file = mkfile(&src, "f");
    file.write_at(0, b"payload").unwrap();
    src.rename(b"f", &dst, b"g", NONE).unwrap();
    assert!(names(&src).is_empty());
    assert_eq!(read_all(&dst.lookup(b"g").unwrap()), b"payload");
}

#[test]
fn over_an_existing_file() {
    let f = fixture();
    let a = mkfile(&f.root, "a");
    let b = mkfile(&f.root, "b");
    b.write_at(0, b"old").unwrap();
    f.root.rename(b"a", &f.root, b"b", NONE).unwrap();
    assert_eq!(names(&f.root), set(&["b"]));
    assert_eq!(f.root.lookup(b"b").unwrap().ino(), a.ino());
    // The replaced file is unlinked but still readable through a reference.
    assert_eq!(nlink(&b), 0);
    assert_eq!(read_all(&b), b"old");
}

#[test]
fn hard_links_to_the_same_inode_are_left_alone() {
    let f = fixture();
    let a = mkfile(&f.root, "a");
    f.root.link(b"b", &a).unwrap();
    f.root.rename(b"a", &f.root, b"b", NONE).unwrap();
    assert_eq!(names(&f.root), set(&["a", "b"]));
    assert_eq!(nlink(&a), 2);
    // Renaming a name onto itself succeeds and changes nothing.
    f.root.rename(b"a", &f.root, b"a", NONE).unwrap();
    assert_eq!(names(&f.root), set(&["a", "b"]));
}

#[test]
fn directory_moves_update_link_counts_and_parent() {
    let f = fixture();
    let a = mkdir(&f.root, "a");
    let b = mkdir(&f.root, "b");
    let d = mkdir(&a, "d");
    assert_eq!((nlink(&a), nlink(&b)), (3, 2));
    a.rename(b"d", &b, b"d", NONE).unwrap();
    assert_eq!((nlink(&a), nlink(&b)), (2, 3));
    assert_eq!(d.lookup(b"..").unwrap().ino(), b.ino());
    let dotdot = list(&d);
    assert_eq!(dotdot[1], "..");
    let (entry, _) = d.read_dir(1).unwrap().unwrap();
    assert_eq!(entry.ino, b.ino());
}

#[test]
fn directory_over_empty_directory() {
    let f = fixture();
    let a = mkdir(&f.root, "a");
    mkfile(&a, "content");
    let victim = mkdir(&f.root, "b");
    assert_eq!(nlink(&f.root), 4);
    f.root.rename(b"a", &f.root, b"b", NONE).unwrap();
    assert_eq!(names(&f.root), set(&["b"]));
    assert_eq!(nlink(&f.root), 3);
    assert_eq!(nlink(&victim), 0);
    let b = f.root.lookup(b"b").unwrap();
    assert_eq!(b.ino(), a.ino());
    assert_eq!(names(&b), set(&["content"]));
    // The replaced directory is dead.
    assert_eq!(victim.read_dir(0).err(), Some(Errno::ENOENT));
}

#[test]
fn directory_over_empty_directory_elsewhere() {
    let f = fixture();
    let p = mkdir(&f.root, "p");
    let q = mkdir(&f.root, "q");
    mkdir(&p, "a");
    mkdir(&q, "b");
    p.rename(b"a", &q, b"b", NONE).unwrap();
    assert_eq!((nlink(&p), nlink(&q)), (2, 3));
}

#[test]
fn directory_over_non_empty_directory() {
    let f = fixture();
    mkdir(&f.root, "a");
    let b = mkdir(&f.root, "b");
    mkfile(&b, "x");
    assert_eq!(
        f.root.rename(b"a", &f.root, b"b", NONE),
        Err(Errno::ENOTEMPTY)
    );
    assert_eq!(names(&f.root), set(&["a", "b"]));
}

#[test]
fn type_mismatches() {
    let f = fixture();
    mkdir(&f.root, "d");
    mkfile(&f.root, "f");
    assert_eq!(
        f.root.rename(b"d", &f.root, b"f", NONE),
        Err(Errno::ENOTDIR)
    );
    assert_eq!(f.root.rename(b"f", &f.root, b"d", NONE), Err(Errno::EISDIR));
    assert_eq!(names(&f.root), set(&["d", "f"]));
}

#[test]
fn into_own_subtree_is_invalid() {
    let f = fixture();
    let a = mkdir(&f.root, "a");
    let b = mkdir(&a, "b");
    let c = mkdir(&b, "c");
    assert_eq!(f.root.rename(b"a", &c, b"x", NONE), Err(Errno::EINVAL));
    assert_eq!(f.root.rename(b"a", &a, b"x", NONE), Err(Errno::EINVAL));
    assert_eq!(a.rename(b"b", &b, b"x", NONE), Err(Errno::EINVAL));
    // Moving up is fine.
    b.rename(b"c", &f.root, b"c", NONE).unwrap();
    assert_eq!(nlink(&b), 2);
}

#[test]
fn onto_an_ancestor_is_not_empty() {
    // rename("a/b/f", "a") with "a" ancestor of the source's directory.
    let f = fixture();
    let a = mkdir(&f.root, "a");
    let b = mkdir(&a, "b");
    mkdir(&b, "sub");
    assert_eq!(b.rename(b"sub", &f.root, b"a", NONE), Err(Errno::ENOTEMPTY));
    mkfile(&b, "file");
    assert_eq!(
        b.rename(b"file", &f.root, b"a", NONE),
        Err(Errno::ENOTEMPTY)
    );
}

#[test]
fn missing_source_and_dead_directories() {
    let f = fixture();
    let d = mkdir(&f.root, "d");
    assert_eq!(
        f.root.rename(b"nope", &f.root, b"x", NONE),
        Err(Errno::ENOENT)
    );
    mkfile(&f.root, "f");
    f.root.rmdir(b"d").unwrap();
    assert_eq!(f.root.rename(b"f", &d, b"f", NONE), Err(Errno::ENOENT));
}

#[test]
fn dot_names_and_bad_targets() {
    let f = fixture();
    let file = mkfile(&f.root, "f");
    assert_eq!(f.root.rename(b".", &f.root, b"x", NONE), Err(Errno::EBUSY));
    assert_eq!(f.root.rename(b"f", &f.root, b"..", NONE), Err(Errno::EBUSY));
    assert_eq!(
        f.root.rename(b"f", &f.root, &[b'x'; 256], NONE),
        Err(Errno::ENAMETOOLONG)
    );
    assert_eq!(f.root.rename(b"f", &file, b"x", NONE), Err(Errno::ENOTDIR));
    let other = TmpFs::new(Arc::new(ManualClock::new(T0)));
    assert_eq!(
        f.root.rename(b"f", &other.root(), b"x", NONE),
        Err(Errno::EXDEV)
    );
}

#[test]
fn noreplace() {
    let f = fixture();
    mkfile(&f.root, "a");
    mkfile(&f.root, "b");
    assert_eq!(
        f.root.rename(b"a", &f.root, b"b", RenameFlags::NOREPLACE),
        Err(Errno::EEXIST)
    );
    f.root
        .rename(b"a", &f.root, b"c", RenameFlags::NOREPLACE)
        .unwrap();
    assert_eq!(names(&f.root), set(&["b", "c"]));
}

#[test]
fn exchange_swaps_entries() {
    let f = fixture();
    let p = mkdir(&f.root, "p");
    let q = mkdir(&f.root, "q");
    let file = mkfile(&p, "x");
    let dir = mkdir(&q, "y");
    p.rename(b"x", &q, b"y", RenameFlags::EXCHANGE).unwrap();
    assert_eq!(p.lookup(b"x").unwrap().ino(), dir.ino());
    assert_eq!(q.lookup(b"y").unwrap().ino(), file.ino());
    // The directory changed parent: link counts and `..` follow it.
    assert_eq!((nlink(&p), nlink(&q)), (3, 2));
    assert_eq!(dir.lookup(b"..").unwrap().ino(), p.ino());
    assert_eq!(nlink(&file), 1);
    // Missing target.
    assert_eq!(
        p.rename(b"x", &q, b"nope", RenameFlags::EXCHANGE),
        Err(Errno::ENOENT)
    );
}

#[test]
fn exchange_within_a_directory_keeps_both_names() {
    let f = fixture();
    let a = mkfile(&f.root, "a");
    let b = mkdir(&f.root, "b");
    mkfile(&b, "inside"); // non-empty directories can be exchanged
    f.root
        .rename(b"a", &f.root, b"b", RenameFlags::EXCHANGE)
        .unwrap();
    assert_eq!(f.root.lookup(b"a").unwrap().ino(), b.ino());
    assert_eq!(f.root.lookup(b"b").unwrap().ino(), a.ino());
    assert_eq!(nlink(&f.root), 3);
}

#[test]
fn exchange_with_an_ancestor_is_invalid() {
    let f = fixture();
    let a = mkdir(&f.root, "a");
    let b = mkdir(&a, "b");
    assert_eq!(
        a.rename(b"b", &f.root, b"a", RenameFlags::EXCHANGE),
        Err(Errno::EINVAL)
    );
    assert_eq!(
        f.root.rename(b"a", &a, b"b", RenameFlags::EXCHANGE),
        Err(Errno::EINVAL)
    );
    assert_eq!(b.lookup(b"..").unwrap().ino(), a.ino());
}

#[test]
fn invalid_flag_combinations() {
    let f = fixture();
    mkfile(&f.root, "a");
    mkfile(&f.root, "b");
    let both = RenameFlags::EXCHANGE | RenameFlags::NOREPLACE;
    assert_eq!(f.root.rename(b"a", &f.root, b"b", both), Err(Errno::EINVAL));
    assert_eq!(
        f.root.rename(b"a", &f.root, b"c", RenameFlags::WHITEOUT),
        Err(Errno::EINVAL)
    );
    assert_eq!(names(&f.root), set(&["a", "b"]));
}

#[test]
fn directory_link_limit_applies_to_moves() {
    let f = fixture_with(TmpFsOptions {
        max_links: 3,
        ..TmpFsOptions::default()
    });
    let full = mkdir(&f.root, "full");
    let one = mkdir(&full, "one"); // `full` now has 3 links: the limit
    mkdir(&one, "mover");
    mkfile(&one, "file");
    assert_eq!(nlink(&full), 3);
    assert_eq!(
        one.rename(b"mover", &full, b"mover", NONE),
        Err(Errno::EMLINK)
    );
    assert_eq!(names(&one), set(&["file", "mover"]));
    // Files do not add links to their directory.
    one.rename(b"file", &full, b"file", NONE).unwrap();
    assert_eq!(nlink(&full), 3);
}
