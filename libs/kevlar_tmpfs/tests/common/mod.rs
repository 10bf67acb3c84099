//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::collections::BTreeSet;
use std::sync::Arc;

use kevlar_tmpfs::{TmpFs, TmpFsOptions};
use kevlar_vfs::{FileType, Inode, ManualClock, Stat, Timespec};

/// The time the fake clock starts at in every test.
pub const T0: Timespec = Timespec {
    sec: 1_000_000,
    nsec: 0,
};

pub struct Fixture {
    pub clock: Arc<ManualClock>,
    pub fs: Arc<TmpFs>,
    pub root: Arc<dyn Inode>,
}

pub fn fixture() -> Fixture {
    fixture_with(TmpFsOptions::default())
}

pub fn fixture_with(options: TmpFsOptions) -> Fixture {
    let clock = Arc::new(ManualClock::new(T0));
    let fs = TmpFs::with_options(clock.clone(), options);
    let root = fs.root();
    Fixture { clock, fs, root }
}

pub fn mkfile(dir: &Arc<dyn Inode>, name: &str) -> Arc<dyn Inode> {
    dir.create(name.as_bytes(), FileType::Regular, 0o644, 0, 0, 0)
        .expect("create file")
}

pub fn mkdir(dir: &Arc<dyn Inode>, name: &str) -> Arc<dyn Inode> {
    dir.create(name.as_bytes(), FileType::Directory, 0o755, 0, 0, 0)
        .expect("mkdir")
}

pub fn st(node: &Arc<dyn Inode>) -> Stat {
    node.stat().expect("stat")
}

pub fn nlink(node: &Arc<dyn Inode>) -> u32 {
    st(node).nlink
}

/// Reads a whole directory listing, "." and ".." included.
pub fn list(dir: &Arc<dyn Inode>) -> Vec<String> {
    let mut out = Vec::new();
    let mut pos = 0;
    while let Some((entry, next)) = dir.read_dir(pos).expect("read_dir") {
        assert!(next > pos, "positions must advance");
        out.push(String::from_utf8(entry.name).unwrap());
        pos = next;
    }
    out
}

/// The listing without "." and "..", as a set.
pub fn names(dir: &Arc<dyn Inode>) -> BTreeSet<String> {
    list(dir)
        .into_iter()
        .filter(|n| n != "." && n != "..")
        .collect()
}

pub fn read_all(file: &Arc<dyn Inode>) -> Vec<u8> {
    let size = st(file).size as usize;
    let mut buf = vec![0u8; size];
    assert_eq!(file.read_at(0, &mut buf).unwrap(), size);
    buf
}
