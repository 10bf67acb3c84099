//! fallocate and SEEK_DATA/SEEK_HOLE as Linux's shmem has them.

mod common;

use common::*;
use kevlar_tmpfs::{TmpFsOptions, PAGE_SIZE};
use kevlar_vfs::Errno;
use linux_raw_sys::general::{FALLOC_FL_KEEP_SIZE as KEEP, FALLOC_FL_PUNCH_HOLE as PUNCH, FALLOC_FL_ZERO_RANGE as ZERO};

const P: u64 = PAGE_SIZE as u64;

#[test]
fn allocate_grows_and_counts_pages() {
    let f = fixture();
    let file = mkfile(&f.root, "f");
    file.fallocate(0, 0, 3 * P + 1, u64::MAX).unwrap();
    assert_eq!(st(&file).size, 3 * P + 1);
    assert_eq!(st(&file).blocks, 4 * P / 512);
    assert_eq!(read_all(&file), vec![0u8; 3 * P as usize + 1]);
    // KEEP_SIZE allocates past the end without growing.
    file.fallocate(KEEP, 8 * P, P, u64::MAX).unwrap();
    assert_eq!(st(&file).size, 3 * P + 1);
    assert_eq!(st(&file).blocks, 5 * P / 512);
}

#[test]
fn unsupported_modes_and_limits() {
    let f = fixture();
    let file = mkfile(&f.root, "f");
    assert_eq!(file.fallocate(ZERO, 0, P, u64::MAX).unwrap_err(), Errno::EOPNOTSUPP);
    assert_eq!(file.fallocate(0, 0, 2 * P, P).unwrap_err(), Errno::EFBIG);
    assert_eq!(st(&file).blocks, 0);
    let small = fixture_with(TmpFsOptions { max_pages: Some(2), ..TmpFsOptions::default() });
    let file = mkfile(&small.root, "f");
    file.fallocate(0, 0, P, u64::MAX).unwrap();
    // Failing part way takes back what the call added.
    assert_eq!(file.fallocate(0, P, 1, u64::MAX), Ok(()));
    assert_eq!(file.fallocate(0, 0, 4 * P, u64::MAX).unwrap_err(), Errno::ENOSPC);
    assert_eq!(st(&file).blocks, 2 * P / 512);
}

#[test]
fn punch_hole_zeroes_and_frees() {
    let f = fixture();
    let file = mkfile(&f.root, "f");
    file.write_at(0, &vec![7u8; 4 * P as usize]).unwrap();
    file.fallocate(KEEP | PUNCH, P / 2, 2 * P, u64::MAX).unwrap();
    let data = read_all(&file);
    assert_eq!(data.len(), 4 * P as usize);
    assert!(data[..P as usize / 2].iter().all(|&b| b == 7));
    assert!(data[P as usize / 2..5 * P as usize / 2].iter().all(|&b| b == 0));
    assert!(data[5 * P as usize / 2..].iter().all(|&b| b == 7));
    // Only page 1 was wholly inside.
    assert_eq!(st(&file).blocks, 3 * P / 512);
    assert_eq!(st(&file).size, 4 * P);
}

#[test]
fn seek_data_and_hole() {
    let f = fixture();
    let file = mkfile(&f.root, "f");
    file.write_at(2 * P, b"x").unwrap();
    file.truncate(6 * P).unwrap();
    file.fallocate(KEEP, 4 * P, P, u64::MAX).unwrap();
    assert_eq!(file.seek_data_hole(0, true), Ok(2 * P));
    assert_eq!(file.seek_data_hole(2 * P + 5, true), Ok(2 * P + 5));
    assert_eq!(file.seek_data_hole(0, false), Ok(0));
    assert_eq!(file.seek_data_hole(2 * P + 5, false), Ok(3 * P));
    // The fallocated page is a hole until written.
    assert_eq!(file.seek_data_hole(3 * P, true), Err(Errno::ENXIO));
    file.write_at(4 * P + 1, b"y").unwrap();
    assert_eq!(file.seek_data_hole(3 * P, true), Ok(4 * P));
    assert_eq!(file.seek_data_hole(6 * P, true), Err(Errno::ENXIO));
    assert_eq!(file.seek_data_hole(6 * P, false), Err(Errno::ENXIO));
    file.write_at(5 * P, &vec![1u8; P as usize]).unwrap();
    assert_eq!(file.seek_data_hole(4 * P, false), Ok(6 * P));
}
