//! Directory structure: unlink, rmdir, hard links, link counts, listing.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use common::*;
use kevlar_tmpfs::{TmpFs, TmpFsOptions};
use kevlar_vfs::{Errno, FileType, ManualClock, RenameFlags};

#[test]
fn unlink_removes_files_and_refuses_directories() {
    let f = fixture();
    mkfile(&f.root, "f");
    mkdir(&f.root, "d");
    f.root.symlink(b"l", b"d", 0, 0).unwrap();
    f.root.create(b"p", FileType::Fifo, 0o600, 0, 0, 0).unwrap();
    assert_eq!(f.root.unlink(b"d"), Err(Errno::EISDIR));
    assert_eq!(f.root.unlink(b"."), Err(Errno::EISDIR));
    assert_eq!(f.root.unlink(b".."), Err(Errno::EISDIR));
    assert_eq!(f.root.unlink(b"missing"), Err(Errno::ENOENT));
    f.root.unlink(b"f").unwrap();
    f.root.unlink(b"l").unwrap(); // removes the link, not its target
    f.root.unlink(b"p").unwrap();
    assert_eq!(names(&f.root), BTreeSet::from(["d".to_string()]));
    assert_eq!(f.root.unlink(b"f"), Err(Errno::ENOENT));
}

#[test]
fn rmdir_rules() {
    let f = fixture();
    let d = mkdir(&f.root, "d");
    mkfile(&d, "inside");
    mkfile(&f.root, "file");
    assert_eq!(f.root.rmdir(b"d"), Err(Errno::ENOTEMPTY));
    assert_eq!(f.root.rmdir(b"file"), Err(Errno::ENOTDIR));
    assert_eq!(f.root.rmdir(b"missing"), Err(Errno::ENOENT));
    assert_eq!(f.root.rmdir(b"."), Err(Errno::EINVAL));
    assert_eq!(f.root.rmdir(b".."), Err(Errno::ENOTEMPTY));
    d.unlink(b"inside").unwrap();
    assert_eq!(nlink(&f.root), 3);
    f.root.rmdir(b"d").unwrap();
    assert_eq!(nlink(&f.root), 2);
    assert_eq!(nlink(&d), 0);
    assert_eq!(f.root.lookup(b"d").err(), Some(Errno::ENOENT));
}

#[test]
fn removed_directory_is_dead() {
    let f = fixture();
    let d = mkdir(&f.root, "d");
    f.root.rmdir(b"d").unwrap();
    // A process whose cwd was removed can neither create nor list there.
    assert_eq!(
        d.create(b"x", FileType::Regular, 0o644, 0, 0, 0).err(),
        Some(Errno::ENOENT)
    );
    assert_eq!(d.symlink(b"x", b"y", 0, 0).err(), Some(Errno::ENOENT));
    assert_eq!(d.read_dir(0).err(), Some(Errno::ENOENT));
    assert_eq!(d.lookup(b"x").err(), Some(Errno::ENOENT));
    // Its `..` still leads back while the parent exists.
    assert_eq!(d.lookup(b"..").unwrap().ino(), f.root.ino());
    let other = mkfile(&f.root, "f");
    assert_eq!(d.link(b"x", &other), Err(Errno::ENOENT));
}

#[test]
fn directory_link_counts() {
    let f = fixture();
    let a = mkdir(&f.root, "a");
    assert_eq!(nlink(&f.root), 3);
    assert_eq!(nlink(&a), 2);
    mkdir(&a, "b");
    mkdir(&a, "c");
    mkfile(&a, "file");
    assert_eq!(nlink(&a), 4, "files do not count");
    a.rmdir(b"b").unwrap();
    assert_eq!(nlink(&a), 3);
}

#[test]
fn hard_links_share_the_inode() {
    let f = fixture();
    let d = mkdir(&f.root, "d");
    let file = mkfile(&f.root, "orig");
    d.link(b"alias", &file).unwrap();
    assert_eq!(nlink(&file), 2);
    let alias = d.lookup(b"alias").unwrap();
    assert_eq!(alias.ino(), file.ino());
    alias.write_at(0, b"shared").unwrap();
    assert_eq!(read_all(&file), b"shared");
    f.root.unlink(b"orig").unwrap();
    assert_eq!(nlink(&alias), 1);
    assert_eq!(read_all(&alias), b"shared");
    d.unlink(b"alias").unwrap();
    assert_eq!(nlink(&file), 0);
}

#[test]
fn link_errors() {
    let f = fixture();
    let file = mkfile(&f.root, "f");
    let dir = mkdir(&f.root, "d");
    assert_eq!(f.root.link(b"g", &dir), Err(Errno::EPERM));
    assert_eq!(f.root.link(b"f", &file), Err(Errno::EEXIST));
    // Linux checks the new name before the target: EEXIST wins over EPERM.
    assert_eq!(f.root.link(b"f", &dir), Err(Errno::EEXIST));
    assert_eq!(f.root.link(b".", &file), Err(Errno::EEXIST));
    let other = TmpFs::new(Arc::new(ManualClock::new(T0)));
    assert_eq!(other.root().link(b"x", &file), Err(Errno::EXDEV));
    // An inode unlinked everywhere cannot be linked back.
    f.root.unlink(b"f").unwrap();
    assert_eq!(f.root.link(b"back", &file), Err(Errno::ENOENT));
    // Symlinks and special nodes can be hard-linked.
    let l = f.root.symlink(b"l", b"x", 0, 0).unwrap();
    f.root.link(b"l2", &l).unwrap();
    assert_eq!(nlink(&l), 2);
}

#[test]
fn link_limit_gives_emlink() {
    let f = fixture_with(TmpFsOptions {
        max_links: 3,
        ..TmpFsOptions::default()
    });
    let file = mkfile(&f.root, "f");
    f.root.link(b"f2", &file).unwrap();
    f.root.link(b"f3", &file).unwrap();
    assert_eq!(f.root.link(b"f4", &file), Err(Errno::EMLINK));
    let d = mkdir(&f.root, "d"); // root: 3 links now
    assert_eq!(nlink(&f.root), 3);
    assert_eq!(
        f.root
            .create(b"e", FileType::Directory, 0o755, 0, 0, 0)
            .err(),
        Some(Errno::EMLINK)
    );
    mkdir(&d, "sub");
    assert_eq!(
        d.create(b"sub2", FileType::Directory, 0o755, 0, 0, 0).err(),
        Some(Errno::EMLINK)
    );
}

#[test]
fn listing_includes_dot_entries_with_types() {
    let f = fixture();
    let d = mkdir(&f.root, "d");
    mkfile(&d, "file");
    mkdir(&d, "sub");
    d.symlink(b"link", b"file", 0, 0).unwrap();
    let mut entries = BTreeMap::new();
    let mut pos = 0;
    while let Some((e, next)) = d.read_dir(pos).unwrap() {
        entries.insert(String::from_utf8(e.name).unwrap(), (e.ino, e.file_type));
        pos = next;
    }
    assert_eq!(entries["."], (d.ino(), FileType::Directory));
    assert_eq!(entries[".."], (f.root.ino(), FileType::Directory));
    assert_eq!(entries["file"].1, FileType::Regular);
    assert_eq!(entries["sub"].1, FileType::Directory);
    assert_eq!(entries["link"].1, FileType::Symlink);
    assert_eq!(entries["file"].0, d.lookup(b"file").unwrap().ino());
    assert_eq!(entries.len(), 5);
    // The first two positions are always "." and "..".
    assert_eq!(list(&d)[..2], [".", ".."]);
    assert_eq!(d.read_dir(pos).unwrap(), None);
    assert_eq!(d.read_dir(usize::MAX).unwrap(), None);
}

#[test]
fn directory_size_grows_with_entries() {
    let f = fixture();
    let d = mkdir(&f.root, "d");
    let empty = st(&d).size;
    assert!(empty > 0);
    mkfile(&d, "a");
    assert!(st(&d).size > empty);
    d.unlink(b"a").unwrap();
    assert_eq!(st(&d).size, empty);
}

#[test]
fn listing_is_stable_while_entries_change() {
    let f = fixture();
    let d = mkdir(&f.root, "d");
    for i in 0..100 {
        mkfile(&d, &format!("keep{i:03}"));
        mkfile(&d, &format!("drop{i:03}"));
    }
    let mut seen: Vec<String> = Vec::new();
    let mut removed: BTreeSet<String> = BTreeSet::new();
    let mut pos = 0;
    let mut step = 0;
    while let Some((e, next)) = d.read_dir(pos).unwrap() {
        let name = String::from_utf8(e.name).unwrap();
        assert!(
            !removed.contains(&name),
            "{name} returned after its removal"
        );
        seen.push(name);
        pos = next;
        step += 1;
        // Between calls: remove droppable entries (seen or not), add new
        // ones, and churn a name that sorts first.
        if step % 3 == 0 {
            let victim = format!("drop{:03}", (step * 7) % 100);
            if d.unlink(victim.as_bytes()).is_ok() {
                removed.insert(victim);
            }
            mkfile(&d, &format!("new{step:03}"));
            let _ = d.unlink(b"aaa");
            mkfile(&d, "aaa");
        }
    }
    assert!(!removed.is_empty());
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for name in &seen {
        *counts.entry(name.as_str()).or_default() += 1;
    }
    for i in 0..100 {
        let name = format!("keep{i:03}");
        assert_eq!(
            counts.get(name.as_str()),
            Some(&1),
            "{name} must appear exactly once"
        );
    }
    // Apart from the re-created "aaa" (a new entry each time), no name is
    // returned twice.
    for (name, n) in &counts {
        if *name != "aaa" {
            assert_eq!(*n, 1, "{name} returned {n} times");
        }
    }
    assert_eq!(seen[..2], [".", ".."]);
}

#[test]
fn removed_entries_are_not_returned_later() {
    let f = fixture();
    let d = mkdir(&f.root, "d");
    for name in ["a", "b", "c", "e"] {
        mkfile(&d, name);
    }
    // Newest first: read ".", "..", "e", then remove "b" before reaching it.
    let (_, p1) = d.read_dir(0).unwrap().unwrap();
    let (_, p2) = d.read_dir(p1).unwrap().unwrap();
    let (e, p3) = d.read_dir(p2).unwrap().unwrap();
    assert_eq!(e.name, b"e");
    d.unlink(b"b").unwrap();
    let mut rest = Vec::new();
    let mut pos = p3;
    while let Some((e, next)) = d.read_dir(pos).unwrap() {
        rest.push(String::from_utf8(e.name).unwrap());
        pos = next;
    }
    assert_eq!(rest, ["c", "a"]);
    // A position stays valid even if its entry is gone.
    d.unlink(b"c").unwrap();
    let (a, _) = d.read_dir(p3).unwrap().unwrap();
    assert_eq!(a.name, b"a");
}

/// Linux 6.1's tmpfs order: newest first; an entry made during a listing
/// is not returned by it (it lands ahead of the position); a renamed entry
/// moves to the front; an exchange puts the new name first, then the old.
#[test]
fn listing_is_newest_first() {
    let f = fixture();
    let d = mkdir(&f.root, "d");
    for name in ["a", "b", "c"] {
        mkfile(&d, name);
    }
    assert_eq!(list(&d), [".", "..", "c", "b", "a"]);
    let (_, p1) = d.read_dir(0).unwrap().unwrap();
    let (_, p2) = d.read_dir(p1).unwrap().unwrap();
    let (c, p3) = d.read_dir(p2).unwrap().unwrap();
    assert_eq!(c.name, b"c");
    mkfile(&d, "late");
    let mut rest = Vec::new();
    let mut pos = p3;
    while let Some((e, next)) = d.read_dir(pos).unwrap() {
        rest.push(String::from_utf8(e.name).unwrap());
        pos = next;
    }
    assert_eq!(rest, ["b", "a"]);
    assert_eq!(list(&d), [".", "..", "late", "c", "b", "a"]);
    d.rename(b"a", &d, b"z", RenameFlags::EMPTY).unwrap();
    assert_eq!(list(&d), [".", "..", "z", "late", "c", "b"]);
    d.rename(b"b", &d, b"c", RenameFlags::EXCHANGE).unwrap();
    assert_eq!(list(&d), [".", "..", "c", "b", "z", "late"]);
}

/// read_dir_with lists what read_dir lists, stops where the visitor says,
/// and resumes from the position it returns; an exchange shows the new
/// targets under the old names.
#[test]
fn read_dir_with_matches_read_dir() {
    let f = fixture();
    for i in 0..20 {
        mkfile(&f.root, &format!("f{i}"));
    }
    let sub = mkdir(&f.root, "sub");
    let one_by_one = |dir: &Arc<dyn kevlar_vfs::Inode>| {
        let mut out = Vec::new();
        let mut pos = 0;
        while let Some((e, next)) = dir.read_dir(pos).unwrap() {
            out.push((String::from_utf8(e.name).unwrap(), e.ino, e.file_type, next));
            pos = next;
        }
        out
    };
    let batched = |dir: &Arc<dyn kevlar_vfs::Inode>, take: usize| {
        let mut out = Vec::new();
        let mut pos = 0;
        loop {
            let mut taken = 0;
            let resume = dir
                .read_dir_with(pos, &mut |e, next| {
                    if taken == take {
                        return false;
                    }
                    taken += 1;
                    out.push((String::from_utf8(e.name.to_vec()).unwrap(), e.ino, e.file_type, next));
                    true
                })
                .unwrap();
            if taken == 0 {
                break;
            }
            assert_eq!(resume, out.last().unwrap().3, "resumes after the last entry taken");
            pos = resume;
        }
        out
    };
    let expected = one_by_one(&f.root);
    assert_eq!(expected.len(), 23);
    for take in [1, 3, 7, 100] {
        assert_eq!(batched(&f.root, take), expected, "batches of {take}");
    }
    // Exchange: the names stay in place, their targets swap.
    f.root
        .rename(b"f0", &f.root, b"sub", kevlar_vfs::RenameFlags::EXCHANGE)
        .unwrap();
    let after = batched(&f.root, 5);
    let f0 = after.iter().find(|e| e.0 == "f0").unwrap();
    assert_eq!((f0.1, f0.2), (st(&sub).ino, FileType::Directory));
    assert_eq!(after, one_by_one(&f.root));
}
