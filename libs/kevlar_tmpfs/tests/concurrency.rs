//! Smoke tests with real threads: the file system is shared across CPUs.

mod common;

use std::sync::{Arc, Barrier};
use std::thread;

use common::*;
use kevlar_vfs::{Errno, FileType, Inode, RenameFlags};

const THREADS: usize = 8;

#[test]
fn creating_and_removing_in_one_directory() {
    let f = fixture();
    let dir = mkdir(&f.root, "shared");
    let barrier = Arc::new(Barrier::new(THREADS));
    let handles: Vec<_> = (0..THREADS)
        .map(|t| {
            let dir = dir.clone();
            let barrier = barrier.clone();
            thread::spawn(move || {
                barrier.wait();
                for round in 0..200 {
                    let name = format!("t{t}-{round}");
                    let file = dir
                        .create(name.as_bytes(), FileType::Regular, 0o644, 0, 0, 0)
                        .unwrap();
                    file.write_at(0, name.as_bytes()).unwrap();
                    // Everyone also fights over one shared name.
                    match dir.create(b"contended", FileType::Regular, 0o644, 0, 0, 0) {
                        Ok(_) | Err(Errno::EEXIST) => {}
                        Err(e) => panic!("unexpected {e:?}"),
                    }
                    let _ = dir.unlink(b"contended");
                    if round % 2 == 0 {
                        dir.unlink(name.as_bytes()).unwrap();
                    }
                    // Listing while others mutate must not fail.
                    let mut pos = 0;
                    while let Some((_, next)) = dir.read_dir(pos).unwrap() {
                        pos = next;
                    }
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    let _ = dir.unlink(b"contended");
    let left = names(&dir);
    assert_eq!(left.len(), THREADS * 100);
    for t in 0..THREADS {
        for round in (1..200).step_by(2) {
            let name = format!("t{t}-{round}");
            assert!(left.contains(&name));
            assert_eq!(
                read_all(&dir.lookup(name.as_bytes()).unwrap()),
                name.as_bytes()
            );
        }
    }
    assert_eq!(f.fs.usage().inodes, 2 + (THREADS * 100) as u64);
}

/// Checks link counts and `..` of every directory below `dir`; returns the
/// names of all directories found.
fn check_tree(dir: &Arc<dyn Inode>, found: &mut Vec<String>) {
    let mut subdirs = 0;
    for name in names(dir) {
        let node = dir.lookup(name.as_bytes()).unwrap();
        if node.file_type() == FileType::Directory {
            subdirs += 1;
            assert_eq!(
                node.lookup(b"..").unwrap().ino(),
                dir.ino(),
                "`..` of {name}"
            );
            found.push(name);
            check_tree(&node, found);
        }
    }
    assert_eq!(nlink(dir), 2 + subdirs);
}

#[test]
fn concurrent_directory_renames_do_not_deadlock() {
    // Threads move directories between two parents and the root, swap them,
    // try to move a directory into itself, and create and remove inside
    // them. Many operations fail (ENOENT when another thread got there
    // first, EINVAL for the cycles), but nothing may hang and the tree must
    // stay consistent.
    let f = fixture();
    let p = mkdir(&f.root, "p");
    let q = mkdir(&f.root, "q");
    for i in 0..4 {
        mkdir(&p, &format!("d{i}"));
    }
    let barrier = Arc::new(Barrier::new(THREADS));
    let handles: Vec<_> = (0..THREADS)
        .map(|t| {
            let (p, q, root) = (p.clone(), q.clone(), f.root.clone());
            let barrier = barrier.clone();
            thread::spawn(move || {
                barrier.wait();
                for round in 0..300 {
                    let name = format!("d{}", (t + round) % 4);
                    let name = name.as_bytes();
                    let (from, to) = if round % 2 == 0 { (&p, &q) } else { (&q, &p) };
                    let _ = from.rename(name, to, name, RenameFlags::EMPTY);
                    if round % 3 == 0 {
                        // Through the common ancestor and back.
                        let _ = to.rename(name, &root, name, RenameFlags::EMPTY);
                        let _ = root.rename(name, from, name, RenameFlags::EMPTY);
                    }
                    assert_eq!(
                        root.rename(b"p", &p, b"x", RenameFlags::EMPTY),
                        Err(Errno::EINVAL)
                    );
                    if let Ok(d) = to.lookup(name) {
                        let _ = d.create(b"tmp", FileType::Directory, 0o755, 0, 0, 0);
                        let _ = d.rmdir(b"tmp");
                    }
                    let _ = p.rename(b"d0", &q, b"d1", RenameFlags::EXCHANGE);
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    let mut found = Vec::new();
    check_tree(&f.root, &mut found);
    found.sort();
    assert_eq!(found, ["d0", "d1", "d2", "d3", "p", "q"]);
    assert_eq!(f.fs.usage().inodes, 7, "no directory leaked or lost");
}

#[test]
fn parallel_writers_to_separate_files() {
    let f = fixture();
    let files: Vec<Arc<dyn Inode>> = (0..THREADS)
        .map(|i| mkfile(&f.root, &format!("f{i}")))
        .collect();
    let handles: Vec<_> = files
        .iter()
        .enumerate()
        .map(|(i, file)| {
            let file = file.clone();
            thread::spawn(move || {
                let block = vec![i as u8; 10_000];
                for k in 0..50u64 {
                    file.write_at(k * 10_000, &block).unwrap();
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    for (i, file) in files.iter().enumerate() {
        let data = read_all(file);
        assert_eq!(data.len(), 500_000);
        assert!(data.iter().all(|&b| b == i as u8));
    }
}
