//! Regular-file data: reads, writes, holes, truncation, limits, budgets.

mod common;

use common::*;
use kevlar_tmpfs::{TmpFsOptions, DEFAULT_MAX_FILE_SIZE, PAGE_SIZE};
use kevlar_vfs::Errno;

/// A byte pattern that differs at every offset within a page and between
/// pages, so misplaced data is caught.
fn pattern(offset: u64) -> u8 {
    (offset.wrapping_mul(31) ^ (offset >> 12)) as u8
}

#[test]
fn write_then_read_back() {
    let f = fixture();
    let file = mkfile(&f.root, "f");
    assert_eq!(file.write_at(0, b"hello, world").unwrap(), 12);
    assert_eq!(st(&file).size, 12);
    let mut buf = [0u8; 5];
    assert_eq!(file.read_at(7, &mut buf).unwrap(), 5);
    assert_eq!(&buf, b"world");
    // Overwrite in the middle keeps the size.
    assert_eq!(file.write_at(0, b"HELLO").unwrap(), 5);
    assert_eq!(read_all(&file), b"HELLO, world");
}

#[test]
fn reads_stop_at_end_of_file() {
    let f = fixture();
    let file = mkfile(&f.root, "f");
    file.write_at(0, b"abc").unwrap();
    let mut buf = [0xffu8; 8];
    assert_eq!(file.read_at(1, &mut buf).unwrap(), 2);
    assert_eq!(&buf[..3], b"bc\xff", "bytes past the result are untouched");
    assert_eq!(file.read_at(3, &mut buf).unwrap(), 0);
    assert_eq!(file.read_at(1 << 50, &mut buf).unwrap(), 0);
    assert_eq!(file.read_at(0, &mut []).unwrap(), 0);
}

#[test]
fn zero_length_write_changes_nothing() {
    let f = fixture();
    let file = mkfile(&f.root, "f");
    f.clock.advance(5, 0);
    assert_eq!(file.write_at(100, b"").unwrap(), 0);
    assert_eq!(st(&file).size, 0);
    assert_eq!(st(&file).mtime, T0);
}

#[test]
fn writes_across_page_boundaries() {
    let f = fixture();
    let file = mkfile(&f.root, "f");
    let data: Vec<u8> = (0..3 * PAGE_SIZE as u64 + 100).map(pattern).collect();
    // Unaligned start, spanning four pages.
    let start = PAGE_SIZE as u64 - 7;
    assert_eq!(file.write_at(start, &data).unwrap(), data.len());
    let mut back = vec![0u8; data.len()];
    assert_eq!(file.read_at(start, &mut back).unwrap(), data.len());
    assert_eq!(back, data);
    assert_eq!(st(&file).size, start + data.len() as u64);
    assert_eq!(f.fs.usage().pages, 5);
}

#[test]
fn holes_read_as_zeros_and_cost_nothing() {
    let f = fixture();
    let file = mkfile(&f.root, "sparse");
    let far = 1u64 << 30;
    file.write_at(far, b"end").unwrap();
    let s = st(&file);
    assert_eq!(s.size, far + 3);
    assert_eq!(s.blocks, PAGE_SIZE as u64 / 512, "only one page allocated");
    assert_eq!(f.fs.usage().pages, 1);
    let mut buf = vec![0xaau8; 3 * PAGE_SIZE];
    assert_eq!(
        file.read_at(far - PAGE_SIZE as u64, &mut buf).unwrap(),
        PAGE_SIZE + 3
    );
    assert!(buf[..PAGE_SIZE].iter().all(|&b| b == 0));
    assert_eq!(&buf[PAGE_SIZE..PAGE_SIZE + 3], b"end");
    // A hole inside a written page is zero too.
    file.write_at(10, b"x").unwrap();
    let mut head = [0xaau8; 12];
    file.read_at(0, &mut head).unwrap();
    assert_eq!(head, [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, b'x', 0]);
}

#[test]
fn truncate_shrinks_frees_and_zeroes_the_tail() {
    let f = fixture();
    let file = mkfile(&f.root, "f");
    let data: Vec<u8> = (0..4 * PAGE_SIZE as u64).map(pattern).collect();
    file.write_at(0, &data).unwrap();
    assert_eq!(f.fs.usage().pages, 4);
    file.truncate(PAGE_SIZE as u64 + 10).unwrap();
    assert_eq!(st(&file).size, PAGE_SIZE as u64 + 10);
    assert_eq!(f.fs.usage().pages, 2);
    assert_eq!(st(&file).blocks, 2 * PAGE_SIZE as u64 / 512);
    // Growing again must not resurrect the old bytes.
    file.truncate(3 * PAGE_SIZE as u64).unwrap();
    let back = read_all(&file);
    assert_eq!(&back[..PAGE_SIZE + 10], &data[..PAGE_SIZE + 10]);
    assert!(back[PAGE_SIZE + 10..].iter().all(|&b| b == 0));
    // Writing past the end after a shrink also sees zeros in the gap.
    file.truncate(5).unwrap();
    file.write_at(20, b"z").unwrap();
    let back = read_all(&file);
    assert_eq!(&back[..5], &data[..5]);
    assert_eq!(&back[5..20], &[0u8; 15]);
    assert_eq!(back[20], b'z');
    file.truncate(0).unwrap();
    assert_eq!(f.fs.usage().pages, 0);
    assert_eq!(st(&file).size, 0);
}

#[test]
fn truncate_to_page_boundary_keeps_full_pages() {
    let f = fixture();
    let file = mkfile(&f.root, "f");
    file.write_at(0, &vec![7u8; 2 * PAGE_SIZE + 1]).unwrap();
    file.truncate(2 * PAGE_SIZE as u64).unwrap();
    assert_eq!(f.fs.usage().pages, 2);
    assert!(read_all(&file).iter().all(|&b| b == 7));
}

#[test]
fn sixteen_mib_in_chunks() {
    let f = fixture();
    let file = mkfile(&f.root, "big");
    let total: u64 = 16 << 20;
    let chunk = 64 * 1024 + 3; // deliberately unaligned
    let mut offset = 0u64;
    while offset < total {
        let n = (total - offset).min(chunk as u64) as usize;
        let data: Vec<u8> = (offset..offset + n as u64).map(pattern).collect();
        assert_eq!(file.write_at(offset, &data).unwrap(), n);
        offset += n as u64;
    }
    assert_eq!(st(&file).size, total);
    assert_eq!(f.fs.usage().pages, total / PAGE_SIZE as u64);
    // Read back with a different chunking.
    let mut buf = vec![0u8; 100_000];
    let mut offset = 0u64;
    while offset < total {
        let n = file.read_at(offset, &mut buf).unwrap();
        assert!(n > 0);
        for (i, &b) in buf[..n].iter().enumerate() {
            assert_eq!(b, pattern(offset + i as u64), "byte {}", offset + i as u64);
        }
        offset += n as u64;
    }
    assert_eq!(offset, total);
    f.root.unlink(b"big").unwrap();
    drop(file);
    assert_eq!(f.fs.usage().pages, 0);
}

#[test]
fn file_size_limit() {
    let f = fixture();
    let file = mkfile(&f.root, "f");
    let max = DEFAULT_MAX_FILE_SIZE;
    assert_eq!(file.write_at(max - 1, b"x").unwrap(), 1);
    assert_eq!(st(&file).size, max);
    assert_eq!(file.write_at(max, b"x"), Err(Errno::EFBIG));
    assert_eq!(file.write_at(u64::MAX, b"x"), Err(Errno::EFBIG));
    // A write crossing the limit is cut short.
    assert_eq!(file.write_at(max - 2, b"abcd").unwrap(), 2);
    assert_eq!(file.truncate(max + 1), Err(Errno::EFBIG));
    assert!(file.truncate(max).is_ok());
    let mut buf = [0u8; 4];
    assert_eq!(file.read_at(max - 2, &mut buf).unwrap(), 2);
    assert_eq!(&buf[..2], b"ab");
}

#[test]
fn custom_file_size_limit() {
    let f = fixture_with(TmpFsOptions {
        max_file_size: 100,
        ..TmpFsOptions::default()
    });
    let file = mkfile(&f.root, "f");
    assert_eq!(file.write_at(90, &[1u8; 20]).unwrap(), 10);
    assert_eq!(file.write_at(100, b"x"), Err(Errno::EFBIG));
    assert_eq!(file.truncate(101), Err(Errno::EFBIG));
}

#[test]
fn no_write_refuses_writes_but_not_reads_or_truncation() {
    let f = fixture_with(TmpFsOptions {
        no_write: true,
        ..TmpFsOptions::default()
    });
    let file = mkfile(&f.root, "f");
    assert_eq!(file.write_at(0, b"x"), Err(Errno::EINVAL));
    assert_eq!(file.write_at(0, b""), Err(Errno::EINVAL));
    let mut out = kevlar_vfs::SliceIn::new(b"abc");
    assert_eq!(file.write_pages(0, 3, &mut out), Some(Err(Errno::EINVAL)));
    assert_eq!(st(&file).size, 0);
    file.truncate(2 * PAGE_SIZE as u64).unwrap();
    let mut buf = [0xffu8; 4];
    assert_eq!(file.read_at(0, &mut buf).unwrap(), 4);
    assert_eq!(buf, [0; 4]);
}

#[test]
fn page_budget_gives_enospc_and_partial_writes() {
    let f = fixture_with(TmpFsOptions {
        max_pages: Some(2),
        ..TmpFsOptions::default()
    });
    let file = mkfile(&f.root, "f");
    // Three pages asked, two available: a short write.
    assert_eq!(
        file.write_at(0, &vec![1u8; 3 * PAGE_SIZE]).unwrap(),
        2 * PAGE_SIZE
    );
    assert_eq!(st(&file).size, 2 * PAGE_SIZE as u64);
    assert_eq!(
        file.write_at(2 * PAGE_SIZE as u64, b"x"),
        Err(Errno::ENOSPC)
    );
    let other = mkfile(&f.root, "g");
    assert_eq!(other.write_at(0, b"x"), Err(Errno::ENOSPC));
    assert_eq!(st(&other).size, 0);
    // Rewriting allocated pages needs no new space.
    assert_eq!(file.write_at(10, b"y").unwrap(), 1);
    // Freeing space makes room again.
    file.truncate(PAGE_SIZE as u64).unwrap();
    assert_eq!(other.write_at(0, b"x").unwrap(), 1);
    assert_eq!(f.fs.usage().pages, 2);
}

#[test]
fn remount_changes_the_budgets() {
    let f = fixture_with(TmpFsOptions {
        max_pages: Some(4),
        max_inodes: Some(10),
        ..TmpFsOptions::default()
    });
    let file = mkfile(&f.root, "f");
    file.write_at(0, &vec![1u8; 3 * PAGE_SIZE]).unwrap();
    // Below what is in use: refused, nothing changed.
    assert_eq!(f.fs.set_limits(Some(Some(2)), None), Err(Errno::EINVAL));
    assert_eq!(f.fs.set_limits(None, Some(Some(1))), Err(Errno::EINVAL));
    assert_eq!(f.fs.limits(), (Some(4), Some(10)));
    // Shrunk to what is used: the next page is ENOSPC.
    f.fs.set_limits(Some(Some(3)), Some(Some(2))).unwrap();
    assert_eq!(file.write_at(3 * PAGE_SIZE as u64, b"x"), Err(Errno::ENOSPC));
    assert!(f.root.create(b"g", kevlar_vfs::FileType::Regular, 0o644, 0, 0, 0).is_err());
    // Lifted: room again; and an unlimited budget cannot be limited.
    f.fs.set_limits(Some(None), None).unwrap();
    assert_eq!(file.write_at(3 * PAGE_SIZE as u64, b"x").unwrap(), 1);
    assert_eq!(f.fs.set_limits(Some(Some(100)), None), Err(Errno::EINVAL));
    assert_eq!(f.fs.limits(), (None, Some(2)));
}

#[test]
fn unlinked_open_file_keeps_working() {
    let f = fixture();
    let file = mkfile(&f.root, "f");
    file.write_at(0, b"data").unwrap();
    f.root.unlink(b"f").unwrap();
    assert_eq!(f.root.lookup(b"f").err(), Some(Errno::ENOENT));
    assert_eq!(st(&file).nlink, 0);
    assert_eq!(file.write_at(4, b"+more").unwrap(), 5);
    assert_eq!(read_all(&file), b"data+more");
    assert_eq!(f.fs.usage().pages, 1);
    drop(file);
    assert_eq!(f.fs.usage().pages, 0);
}

#[test]
fn data_pages_are_the_file_bytes() {
    let f = fixture();
    let file = mkfile(&f.root, "f");
    file.write_at(0, b"0123456789").unwrap();
    let page = file.data_page(0).unwrap();
    let mut buf = [0u8; 4];
    page.read(3, &mut buf);
    assert_eq!(&buf, b"3456");
    // A store through the page (as a shared mapping makes) is what read sees.
    page.write(0, b"AB");
    let mut head = [0u8; 3];
    file.read_at(0, &mut head).unwrap();
    assert_eq!(&head, b"AB2");
    // A write through the file is what the page holds.
    file.write_at(8, b"xy").unwrap();
    let mut tail = [0u8; 2];
    page.read(8, &mut tail);
    assert_eq!(&tail, b"xy");
    // Pages wholly past the end do not exist; a page partly inside does.
    assert_eq!(file.data_page(1).err(), Some(Errno::ENXIO));
    file.truncate(PAGE_SIZE as u64 * 3).unwrap();
    let hole = file.data_page(2).unwrap();
    let mut zeros = [0xffu8; 16];
    hole.read(0, &mut zeros);
    assert_eq!(zeros, [0u8; 16], "a hole's page reads as zeros");
    assert_eq!(file.data_page(3).err(), Some(Errno::ENXIO));
    file.truncate(5).unwrap();
    assert_eq!(file.data_page(1).err(), Some(Errno::ENXIO));
    let mut after = [0xffu8; 3];
    page.read(4, &mut after);
    assert_eq!(&after, b"4\0\0", "shrinking zeroes the rest of the last page");
}

#[test]
fn data_pages_only_for_regular_files() {
    let f = fixture();
    assert!(f.root.data_page(0).is_err(), "a directory has no data pages");
}
