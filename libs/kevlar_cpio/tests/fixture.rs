//! Reads an initramfs made by the real GNU cpio (`-H newc`) and gzip; see
//! `make-fixture.sh` beside this file for how it was built.

use std::borrow::Cow;

use kevlar_cpio::{decompress_if_needed, entries, hard_link_groups, Entry, FileType};

const FIXTURE: &[u8] = include_bytes!("fixture.cpio.gz");
const MTIME: u64 = 1_700_000_000;

fn find<'a>(all: &'a [Entry<'a>], name: &str) -> &'a Entry<'a> {
    all.iter().find(|e| e.name == name).unwrap_or_else(|| panic!("{name} missing"))
}

#[test]
fn fixture_is_small_gzip() {
    assert!(FIXTURE.len() < 4096);
    assert_eq!(&FIXTURE[..2], &[0x1f, 0x8b]);
}

#[test]
fn real_cpio_archive() {
    let data = decompress_if_needed(FIXTURE).unwrap();
    assert!(matches!(data, Cow::Owned(_)));
    let all: Vec<Entry<'_>> = entries(&data).collect::<Result<_, _>>().unwrap();
    let names: Vec<&str> = all.iter().map(|e| e.name).collect();
    assert_eq!(
        names,
        [
            "", "bin", "bin/hello", "bin/sh", "dev", "dev/null", "dev/sda", "etc", "etc/a", "bin/c", "etc/b",
            "etc/motd", "run", "run/fifo"
        ]
    );
    for e in &all {
        assert_eq!((e.uid, e.gid, e.mtime), (0, 0, MTIME), "{}", e.name);
    }

    let root = find(&all, "");
    assert_eq!(root.file_type(), FileType::Directory);
    assert_eq!(root.permissions(), 0o755);

    let hello = find(&all, "bin/hello");
    assert_eq!(hello.file_type(), FileType::Regular);
    assert_eq!(hello.mode, 0o104_711);
    assert_eq!(hello.data, b"hello from cpio\n");

    let sh = find(&all, "bin/sh");
    assert_eq!(sh.file_type(), FileType::Symlink);
    assert_eq!(sh.data, b"hello");

    let null = find(&all, "dev/null");
    assert_eq!(null.file_type(), FileType::CharDevice);
    assert_eq!((null.rdev_major, null.rdev_minor), (1, 3));
    let sda = find(&all, "dev/sda");
    assert_eq!(sda.file_type(), FileType::BlockDevice);
    assert_eq!((sda.rdev_major, sda.rdev_minor), (8, 0));

    assert_eq!(find(&all, "run").permissions(), 0o1777);
    assert_eq!(find(&all, "run/fifo").file_type(), FileType::Fifo);
    assert_eq!(find(&all, "etc/motd").data, b"Welcome to Kevlar\n");
}

#[test]
fn real_cpio_hard_links() {
    let data = decompress_if_needed(FIXTURE).unwrap();
    let groups = hard_link_groups(&data).unwrap();
    assert_eq!(groups.len(), 1);
    let g = &groups[0];
    // GNU cpio writes the data once, with the last name.
    assert_eq!(g.names().collect::<Vec<_>>(), ["etc/a", "bin/c", "etc/b"]);
    assert_eq!(g.entries.iter().map(|e| e.data.len()).collect::<Vec<_>>(), [0, 0, 7]);
    assert_eq!(g.data(), b"linked\n");
    assert!(g.entries.iter().all(|e| e.nlink == 3));
}

#[test]
fn two_concatenated_fixtures() {
    // As when a boot loader concatenates several initrd files.
    let mut image = FIXTURE.to_vec();
    image.extend_from_slice(&[0; 7]);
    image.extend_from_slice(FIXTURE);
    let data = decompress_if_needed(&image).unwrap();
    let all: Vec<Entry<'_>> = entries(&data).collect::<Result<_, _>>().unwrap();
    assert_eq!(all.len(), 28);
    assert_eq!(all[27].archive_index, 1);
    // Hard links are scoped to their own archive.
    assert_eq!(hard_link_groups(&data).unwrap().len(), 2);
}

#[test]
fn every_truncation_fails_cleanly() {
    let data = decompress_if_needed(FIXTURE).unwrap().into_owned();
    for len in 0..data.len() {
        let result: Result<Vec<_>, _> = entries(&data[..len]).collect();
        // Only cuts inside the trailing zero padding still parse.
        if result.is_ok() {
            assert!(data[len..].iter().all(|&b| b == 0) || len == 0, "cut at {len} parsed");
        }
    }
    for len in 1..FIXTURE.len() {
        assert!(decompress_if_needed(&FIXTURE[..len]).is_err(), "gzip cut at {len} accepted");
    }
}

#[test]
fn corrupted_bytes_never_panic() {
    // Every byte of the archive and of its gzip form, flipped a few ways:
    // each run must end in entries or an error, never a panic, and every
    // entry must borrow from inside the data.
    let data = decompress_if_needed(FIXTURE).unwrap().into_owned();
    for i in 0..data.len() {
        for x in [0x01u8, 0x20, 0x80, 0xff] {
            let mut v = data.clone();
            v[i] ^= x;
            let mut it = entries(&v);
            for e in it.by_ref().flatten() {
                assert!(e.data.len() <= v.len() && e.name.len() <= v.len());
            }
            assert!(it.offset() <= v.len());
            let _ = hard_link_groups(&v);
        }
    }
    for i in 0..FIXTURE.len() {
        for x in [0x01u8, 0x80] {
            let mut v = FIXTURE.to_vec();
            v[i] ^= x;
            if let Ok(out) = decompress_if_needed(&v) {
                let _ = entries(&out).count();
            }
        }
    }
}
