//! The block devices in sysfs, as Linux lays them out:
//!
//! - `/sys/devices/pci0000:00/0000:00:SS.F/virtioN/block/vda/` with the
//!   disk's attributes (`dev`, `size`, `ro`, `removable`, `range`,
//!   `ext_range`, `capability`, `stat`, `uevent`...), `queue/` and one
//!   directory per partition (`vda1/` with `start`, `size`, `partition`,
//!   `dev`, `ro`, `stat`, `uevent`);
//! - `/sys/block/vda`, `/sys/class/block/vda1` and
//!   `/sys/dev/block/254:1` linking to them.
//!
//! Partitions come and go with BLKRRPART, so the directories holding
//! them list the devices at each look.

use alloc::boxed::Box;
use alloc::format;
use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::sync::atomic::Ordering;

use kevlar_vfs::{DirEntry, Inode};

use super::BlockDev;
use crate::error::{Errno, Result};
use crate::fs::synth::{Attr, DirSource, FixedDir, Parent, SynthDir, SynthFile, SynthLink};

type Lister = Box<dyn Fn(Option<&Arc<dyn Inode>>) -> Vec<(Vec<u8>, Arc<dyn Inode>)> + Send + Sync>;

/// A directory whose entries are made at each look.
struct Listing(Lister);

impl DirSource for Listing {
    fn list(&self) -> Vec<DirEntry> {
        (self.0)(None).into_iter().map(|(name, node)| DirEntry { ino: node.ino(), file_type: node.file_type(), name }).collect()
    }

    fn lookup(&self, dir: &Arc<dyn Inode>, name: &[u8]) -> Result<Arc<dyn Inode>> {
        (self.0)(Some(dir)).into_iter().find(|(n, _)| n == name).map(|(_, node)| node).ok_or(Errno::ENOENT)
    }
}

/// Inode numbers of the nodes made here: above what the fixed tree uses,
/// one block of 256 per device.
fn ino(dev: &BlockDev, k: u64) -> u64 {
    (1 << 40) | (u64::from(dev.major) << 28) | (u64::from(dev.minor) << 8) | k
}

fn parent_of(dir: Option<&Arc<dyn Inode>>) -> Parent {
    match dir {
        Some(d) => Parent::Strong(d.clone()),
        None => Parent::None,
    }
}

fn text(fs_id: u64, ino: u64, content: impl Fn() -> String + Send + Sync + 'static) -> Arc<dyn Inode> {
    SynthFile::new(Attr::root(fs_id, ino, 0o444), Box::new(move || Ok(content().into_bytes()))).with_size(4096).with_polling(crate::fs::synth::Polling::Kernfs)
}

fn link(fs_id: u64, ino: u64, target: String) -> Arc<dyn Inode> {
    let target = target.into_bytes();
    SynthLink::new(Attr::root(fs_id, ino, 0o777), Box::new(move || Ok(target.clone())))
}

fn empty_dir(fs_id: u64, ino: u64, parent: Option<&Arc<dyn Inode>>) -> Arc<dyn Inode> {
    SynthDir::new(Attr::root(fs_id, ino, 0o755), parent_of(parent), Box::new(Listing(Box::new(|_| Vec::new()))))
}

/// Where a disk's directory is, under /sys/devices.
fn device_path(dev: &BlockDev) -> String {
    let disk = super::disks().into_iter().find(|d| Arc::ptr_eq(&d.disk, &dev.disk));
    let disk_name = disk.map_or_else(String::new, |d| d.name.clone());
    let base = format!("{}/block/{}", dev.disk.sysfs_parent, disk_name);
    if dev.is_disk() { base } else { format!("{}/{}", base, dev.name) }
}

/// Linux's stat line (17 fields) for a device: a disk's counts are its
/// queue's (requests as the driver got them, merges counted), a
/// partition's the requests made to it.
pub(super) fn stat_line(dev: &BlockDev) -> String {
    let ld = |v: &core::sync::atomic::AtomicU64| v.load(Ordering::Relaxed);
    let ms = |ns: &core::sync::atomic::AtomicU64| ns.load(Ordering::Relaxed) / 1_000_000;
    let s = if dev.is_disk() { &dev.disk.queue.stats } else { &dev.stats };
    format!(
        "{:8} {:8} {:8} {:8} {:8} {:8} {:8} {:8} {:8} {:8} {:8} {:8} {:8} {:8} {:8} {:8} {:8}\n",
        ld(&s.reads),
        ld(&s.reads_merged),
        ld(&s.sectors_read),
        ms(&s.read_ns),
        ld(&s.writes),
        ld(&s.writes_merged),
        ld(&s.sectors_written),
        ms(&s.write_ns),
        0,
        ms(&s.busy_ns),
        ms(&s.read_ns) + ms(&s.write_ns) + ms(&s.flush_ns),
        0,
        0,
        0,
        0,
        ld(&s.flushes),
        ms(&s.flush_ns)
    )
}

fn uevent(dev: &BlockDev) -> String {
    let mut out = format!("MAJOR={}\nMINOR={}\nDEVNAME={}\nDEVTYPE={}\n", dev.major, dev.minor, dev.name, if dev.is_disk() { "disk" } else { "partition" });
    if dev.is_disk() {
        out += &format!("DISKSEQ={}\n", dev.disk.seq);
    } else {
        out += &format!("PARTN={}\n", dev.partno);
        if !dev.part_name.is_empty() {
            out += &format!("PARTNAME={}\n", String::from_utf8_lossy(&dev.part_name));
        }
    }
    out
}

/// The attribute files every block device has.
fn common(fs_id: u64, dev: &Arc<BlockDev>, out: &mut Vec<(Vec<u8>, Arc<dyn Inode>)>, up: &str) {
    let d = dev.clone();
    out.push((b"dev".to_vec(), text(fs_id, ino(dev, 1), move || format!("{}:{}\n", d.major, d.minor))));
    let d = dev.clone();
    out.push((b"size".to_vec(), text(fs_id, ino(dev, 2), move || format!("{}\n", d.sectors))));
    let d = dev.clone();
    out.push((b"ro".to_vec(), text(fs_id, ino(dev, 3), move || format!("{}\n", u8::from(d.disk.driver.read_only())))));
    let d = dev.clone();
    out.push((b"stat".to_vec(), text(fs_id, ino(dev, 4), move || stat_line(&d))));
    out.push((b"inflight".to_vec(), text(fs_id, ino(dev, 5), || format!("{:8} {:8}\n", 0, 0))));
    let d = dev.clone();
    // Writable: an action written sends the device's uevent (coldplug).
    let devpath = format!("/devices/{}", device_path(dev));
    out.push((b"uevent".to_vec(), crate::fs::sysfs::uevent_file(Attr::root(fs_id, ino(dev, 6), 0o644), devpath, "block", uevent(&d))));
    out.push((b"alignment_offset".to_vec(), text(fs_id, ino(dev, 7), || String::from("0\n"))));
    out.push((b"discard_alignment".to_vec(), text(fs_id, ino(dev, 8), || String::from("0\n"))));
    out.push((b"subsystem".to_vec(), link(fs_id, ino(dev, 9), format!("{}class/block", up))));
}

/// The directory of a disk (`vda/`) or a partition (`vda1/`).
fn device_dir(fs_id: u64, dev: Arc<BlockDev>, parent: Option<&Arc<dyn Inode>>) -> Arc<dyn Inode> {
    let attr = Attr::root(fs_id, ino(&dev, 0), 0o755);
    SynthDir::new(attr, parent_of(parent), Box::new(Listing(Box::new(move |me| device_entries(fs_id, &dev, me)))))
}

fn device_entries(fs_id: u64, dev: &Arc<BlockDev>, me: Option<&Arc<dyn Inode>>) -> Vec<(Vec<u8>, Arc<dyn Inode>)> {
    let mut out = Vec::new();
    // From .../virtioN/block/vda up to /sys: the parent path's parts,
    // block/, the disk, and the partition.
    let depth = dev.disk.sysfs_parent.split('/').count() + 3 + usize::from(!dev.is_disk());
    let up = "../".repeat(depth);
    common(fs_id, dev, &mut out, &up);
    if !dev.is_disk() {
        let d = dev.clone();
        out.push((b"partition".to_vec(), text(fs_id, ino(dev, 10), move || format!("{}\n", d.partno))));
        let d = dev.clone();
        out.push((b"start".to_vec(), text(fs_id, ino(dev, 11), move || format!("{}\n", d.start))));
        out.push((b"power".to_vec(), empty_dir(fs_id, ino(dev, 12), me)));
        return out;
    }
    let d = dev.clone();
    out.push((b"range".to_vec(), text(fs_id, ino(dev, 10), move || format!("{}\n", d.disk.minors))));
    out.push((b"ext_range".to_vec(), text(fs_id, ino(dev, 11), || format!("{}\n", kevlar_part::MAX_PARTS))));
    out.push((b"removable".to_vec(), text(fs_id, ino(dev, 12), || String::from("0\n"))));
    out.push((b"capability".to_vec(), text(fs_id, ino(dev, 13), || String::from("0\n"))));
    out.push((b"hidden".to_vec(), text(fs_id, ino(dev, 14), || String::from("0\n"))));
    let d = dev.clone();
    out.push((b"diskseq".to_vec(), text(fs_id, ino(dev, 15), move || format!("{}\n", d.disk.seq))));
    out.push((b"events".to_vec(), text(fs_id, ino(dev, 16), || String::from("\n"))));
    out.push((b"holders".to_vec(), empty_dir(fs_id, ino(dev, 17), me)));
    out.push((b"slaves".to_vec(), empty_dir(fs_id, ino(dev, 18), me)));
    out.push((b"power".to_vec(), empty_dir(fs_id, ino(dev, 19), me)));
    let device = dev.disk.sysfs_parent.rsplit('/').next().unwrap_or("");
    out.push((b"device".to_vec(), link(fs_id, ino(dev, 20), format!("../../../{}", device))));
    let d = dev.clone();
    let queue: Arc<dyn Inode> = SynthDir::new(Attr::root(fs_id, ino(dev, 21), 0o755), parent_of(me), Box::new(Listing(Box::new(move |_| queue_entries(fs_id, &d)))));
    out.push((b"queue".to_vec(), queue));
    for part in super::partitions(&dev.disk) {
        out.push((part.name.clone().into_bytes(), device_dir(fs_id, part, me)));
    }
    out
}

fn queue_entries(fs_id: u64, dev: &Arc<BlockDev>) -> Vec<(Vec<u8>, Arc<dyn Inode>)> {
    let driver = dev.disk.driver.clone();
    let (lbs, pbs, max_kb) = (driver.logical_block_size(), driver.physical_block_size(), driver.max_transfer() / 1024);
    let rot = u8::from(driver.rotational());
    let discard = driver.discard_limits();
    let (granularity, max_discard, segments) = discard.map_or((0, 0, 1), |d| (d.granularity, d.max_bytes, d.max_segments));
    let files: [(&[u8], String); 19] = [
        (b"logical_block_size", format!("{}\n", lbs)),
        (b"physical_block_size", format!("{}\n", pbs)),
        (b"hw_sector_size", format!("{}\n", lbs)),
        (b"minimum_io_size", format!("{}\n", pbs)),
        (b"optimal_io_size", String::from("0\n")),
        (b"rotational", format!("{}\n", rot)),
        (b"max_sectors_kb", format!("{}\n", max_kb)),
        (b"max_hw_sectors_kb", format!("{}\n", max_kb)),
        (b"read_ahead_kb", String::from("128\n")),
        (b"nomerges", String::from("0\n")),
        (b"discard_granularity", format!("{}\n", granularity)),
        (b"discard_max_bytes", format!("{}\n", max_discard)),
        (b"write_cache", String::from("write back\n")),
        (b"zoned", String::from("none\n")),
        (b"dax", String::from("0\n")),
        (b"discard_max_hw_bytes", format!("{}\n", max_discard)),
        (b"discard_zeroes_data", String::from("0\n")),
        (b"write_zeroes_max_bytes", format!("{}\n", driver.write_zeroes_max_bytes())),
        (b"max_discard_segments", format!("{}\n", segments)),
    ];
    files
        .into_iter()
        .enumerate()
        .map(|(i, (name, value))| (name.to_vec(), text(fs_id, ino(dev, 32 + i as u64), move || value.clone())))
        .collect()
}

/// Adds the block devices to sysfs: `/sys/block`, `/sys/class/block`,
/// `/sys/dev/block` and the disks' directories under `/sys/devices`.
/// `next_ino` hands out the fixed tree's inode numbers.
pub fn build(fs_id: u64, next_ino: &mut dyn FnMut() -> u64, root: &FixedDir, class: &FixedDir, dev: &FixedDir, devices: &FixedDir) {
    let weak = |d: &FixedDir| Parent::Weak(Arc::downgrade(&d.node()));
    let block: Arc<dyn Inode> = SynthDir::new(Attr::root(fs_id, next_ino(), 0o755), weak(root), Box::new(Listing(Box::new(move |_| {
        super::disks().into_iter().map(|d| (d.name.clone().into_bytes(), link(fs_id, ino(&d, 100), format!("../devices/{}", device_path(&d))))).collect()
    }))));
    root.add(b"block", block);
    let class_block: Arc<dyn Inode> = SynthDir::new(Attr::root(fs_id, next_ino(), 0o755), weak(class), Box::new(Listing(Box::new(move |_| {
        super::devices().into_iter().map(|d| (d.name.clone().into_bytes(), link(fs_id, ino(&d, 101), format!("../../devices/{}", device_path(&d))))).collect()
    }))));
    class.add(b"block", class_block);
    let dev_block: Arc<dyn Inode> = SynthDir::new(Attr::root(fs_id, next_ino(), 0o755), weak(dev), Box::new(Listing(Box::new(move |_| {
        super::devices().into_iter().map(|d| (format!("{}:{}", d.major, d.minor).into_bytes(), link(fs_id, ino(&d, 102), format!("../../devices/{}", device_path(&d))))).collect()
    }))));
    dev.add(b"block", dev_block);
    // The disks' parents: fixed directories, made once (disks do not come
    // and go); each disk's own directory lists its partitions at each look.
    let mut made: Vec<(String, FixedDir)> = Vec::new();
    for disk in super::disks() {
        let mut path = String::new();
        let mut parent_dir: Option<FixedDir> = None;
        for part in disk.disk.sysfs_parent.split('/').chain(core::iter::once("block")) {
            path = if path.is_empty() { String::from(part) } else { format!("{}/{}", path, part) };
            if let Some((_, d)) = made.iter().find(|(p, _)| *p == path) {
                parent_dir = Some(d.clone());
                continue;
            }
            let under = parent_dir.as_ref().unwrap_or(devices);
            let d = FixedDir::new(Attr::root(fs_id, next_ino(), 0o755), Some(under));
            under.add(part.as_bytes(), d.node());
            made.push((path.clone(), d.clone()));
            parent_dir = Some(d);
        }
        let block_dir = parent_dir.expect("the block/ directory");
        let node = block_dir.node();
        let name = disk.name.clone();
        block_dir.add(name.as_bytes(), device_dir(fs_id, disk, Some(&node)));
    }
}
