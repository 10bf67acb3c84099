//! Helpers shared by the tests against e2fsprogs' images.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use kevlar_vfs::{Errno, Inode, ManualClock, MemDisk, Timespec};

/// A scratch directory removed on drop.
pub struct Scratch(pub PathBuf);

impl Scratch {
    pub fn new(tag: &str) -> Scratch {
        static COUNTER: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("kevlar-ext2-{}-{}-{}", std::process::id(), tag, n));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

pub fn tool(name: &str) -> PathBuf {
    for dir in ["/sbin", "/usr/sbin", "/usr/bin", "/bin"] {
        let p = Path::new(dir).join(name);
        if p.exists() {
            return p;
        }
    }
    PathBuf::from(name)
}

pub fn disk_of(image: &Path) -> Arc<MemDisk> {
    Arc::new(MemDisk::from_image(512, std::fs::read(image).unwrap()).unwrap())
}

pub fn clock() -> Arc<ManualClock> {
    Arc::new(ManualClock::new(Timespec::new(1_700_000_000, 0)))
}

/// Writes the disk back to `image` and asserts `e2fsck -fn` is clean.
pub fn fsck_clean(disk: &MemDisk, image: &Path) {
    std::fs::write(image, disk.image()).unwrap();
    let out = Command::new(tool("e2fsck")).args(["-fn"]).arg(image).output().unwrap();
    if !out.status.success() {
        // Keep the image for a look with debugfs when asked to.
        if let Ok(keep) = std::env::var("KEVLAR_KEEP_FAILED_IMAGE") {
            let _ = std::fs::copy(image, keep);
        }
    }
    assert!(
        out.status.success(),
        "e2fsck -fn found problems (status {:?}):\n{}{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Returns what `debugfs -R CMD` prints for the image.
pub fn debugfs(image: &Path, cmd: &str) -> Vec<u8> {
    let out = Command::new(tool("debugfs")).args(["-R", cmd]).arg(image).output().unwrap();
    out.stdout
}

pub fn walk(root: &Arc<dyn Inode>, path: &str) -> Result<Arc<dyn Inode>, Errno> {
    let mut node = root.clone();
    for part in path.split('/').filter(|p| !p.is_empty()) {
        node = node.lookup(part.as_bytes())?;
    }
    Ok(node)
}

pub fn read_all(node: &Arc<dyn Inode>) -> Vec<u8> {
    let size = node.stat().unwrap().size as usize;
    let mut buf = vec![0u8; size + 10];
    let mut done = 0;
    loop {
        let n = node.read_at(done as u64, &mut buf[done..]).unwrap();
        if n == 0 {
            break;
        }
        done += n;
    }
    buf.truncate(done);
    buf
}

pub fn names(dir: &Arc<dyn Inode>) -> Vec<String> {
    let mut out = Vec::new();
    let mut pos = 0;
    while let Some((e, next)) = dir.read_dir(pos).unwrap() {
        out.push(String::from_utf8(e.name).unwrap());
        pos = next;
    }
    out.sort();
    out
}

/// Deterministic bytes that differ per position, so misplaced blocks show.
pub fn pattern(len: usize, seed: u32) -> Vec<u8> {
    let mut x = seed.wrapping_mul(2654435761).wrapping_add(1);
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x as u8
        })
        .collect()
}


/// What reached a [`Recorder`] disk, in order.
#[derive(Clone)]
#[allow(dead_code)] // each test binary uses part of the common module
pub enum Event {
    Write(u64, Vec<u8>),
    Flush,
}

/// A disk that records what reaches it (power cuts replay a prefix).
#[allow(dead_code)]
pub struct Recorder {
    pub disk: MemDisk,
    pub events: std::sync::Mutex<Vec<Event>>,
}

impl kevlar_vfs::BlockDevice for Recorder {
    fn sector_size(&self) -> usize {
        self.disk.sector_size()
    }
    fn sector_count(&self) -> u64 {
        self.disk.sector_count()
    }
    fn read_sectors(&self, sector: u64, buf: &mut [u8]) -> kevlar_vfs::Result<()> {
        self.disk.read_sectors(sector, buf)
    }
    fn write_sectors(&self, sector: u64, buf: &[u8]) -> kevlar_vfs::Result<()> {
        self.events.lock().unwrap().push(Event::Write(sector, buf.to_vec()));
        self.disk.write_sectors(sector, buf)
    }
    fn flush(&self) -> kevlar_vfs::Result<()> {
        self.events.lock().unwrap().push(Event::Flush);
        Ok(())
    }
}
