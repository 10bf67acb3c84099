//! The block layer: disks, their request queues and their partitions.
//!
//! - A driver (virtio-blk today, [`virtio`]; NVMe or virtio-scsi later)
//!   implements [`BlockDriver`]: whole-sector transfers by logical block
//!   address, flush, and what it knows about the hardware (size, block
//!   sizes, read-only, geometry, discard).
//! - [`register`] makes a [`Disk`] of it, with Linux's name (`vda`...) and
//!   numbers, a [`queue::RequestQueue`] that merges adjacent requests, and
//!   reads its partition table ([`kevlar_part`]).
//! - Every disk and partition is a [`BlockDev`]: a range of the disk's
//!   sectors with a device number, the [`kevlar_vfs::BlockDevice`] file
//!   systems and the page cache read and write through, and what
//!   `/dev/vdaN` ([`file`]), `/proc/partitions` and `/sys/block`
//!   ([`sysfs`]) show.
//!
//! Units: sectors are 512 bytes here, as Linux counts them whatever the
//! logical block size; the drivers today all have 512-byte logical blocks.

pub mod file;
pub mod ktest;
pub mod queue;
pub mod root;
pub mod sysfs;
pub mod virtio;

use alloc::format;
use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::fmt::Write;
use core::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};

use kevlar_platform::sync::SpinLock;
use kevlar_vfs::BlockDevice;

use crate::error::{Errno, Result};
use queue::RequestQueue;

/// Bytes in a sector, the unit of positions and sizes.
pub const SECTOR: usize = 512;

/// Linux's major for partitions past a disk's minors (BLOCK_EXT_MAJOR).
pub const EXT_MAJOR: u32 = 259;

/// A disk's geometry for HDIO_GETGEO.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Geometry {
    /// Heads.
    pub heads: u8,
    /// Sectors per track.
    pub sectors: u8,
    /// Cylinders.
    pub cylinders: u16,
}

/// A disk driver: whole-sector transfers and what the hardware is.
/// Implementations are called by one CPU at a time per disk (the request
/// queue serialises them) and must not sleep (switch threads) while the
/// caller may hold a file system's spin lock; waiting for the device
/// halts the CPU until its interrupt instead.
pub trait BlockDriver: Send + Sync {
    /// Sectors (512 bytes) on the disk.
    fn sectors(&self) -> u64;
    /// The logical block size (the smallest transfer).
    fn logical_block_size(&self) -> u32 {
        SECTOR as u32
    }
    /// The physical block size.
    fn physical_block_size(&self) -> u32 {
        self.logical_block_size()
    }
    /// Whether the device refuses writes.
    fn read_only(&self) -> bool;
    /// Whether it is a spinning disk (Linux says so of virtio disks).
    fn rotational(&self) -> bool {
        true
    }
    /// The largest transfer one request may carry, in bytes.
    fn max_transfer(&self) -> usize {
        128 * 1024
    }
    /// Reads `buf.len() / 512` sectors from `sector` on.
    fn read(&self, sector: u64, buf: &mut [u8]) -> Result<()>;
    /// Writes `buf.len() / 512` sectors from `sector` on.
    fn write(&self, sector: u64, buf: &[u8]) -> Result<()>;
    /// Makes completed writes durable.
    fn flush(&self) -> Result<()>;
    /// Whether the device can discard sectors (BLKDISCARD).
    fn can_discard(&self) -> bool {
        self.discard_limits().is_some()
    }
    /// What the device takes in discards, when it can discard.
    fn discard_limits(&self) -> Option<DiscardLimits> {
        None
    }
    /// The largest write-zeroes request in bytes (0: the device has none).
    fn write_zeroes_max_bytes(&self) -> u64 {
        0
    }
    /// Discards `count` sectors from `sector` on; EOPNOTSUPP when the
    /// device cannot.
    fn discard(&self, _sector: u64, _count: u64) -> Result<()> {
        Err(Errno::EOPNOTSUPP)
    }
    /// Makes `count` sectors from `sector` on read as zeros without
    /// sending their data (deallocating them if `unmap`); EOPNOTSUPP when
    /// the device cannot (no write-zeroes: see `write_zeroes_max_bytes`).
    fn write_zeroes(&self, _sector: u64, _count: u64, _unmap: bool) -> Result<()> {
        Err(Errno::EOPNOTSUPP)
    }
    /// The geometry for HDIO_GETGEO, as the driver reports it.
    fn geometry(&self) -> Geometry;
    /// Runs a batch of requests in order of their results' use: a driver
    /// that keeps several requests in flight posts as many as the device
    /// takes before waiting (a flush waits for everything before it and
    /// holds back everything after). The default runs them one by one.
    fn run_batch(&self, batch: &mut [BatchItem]) {
        for item in batch.iter_mut() {
            item.result = match item.op {
                queue::Op::Read => self.read(item.sector, &mut item.data),
                queue::Op::Write => self.write(item.sector, &item.data),
                queue::Op::Flush => self.flush(),
            };
        }
    }
}

/// A disk's discard limits, as `/sys/block/*/queue` shows them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DiscardLimits {
    /// Discards are worth doing in multiples of this many bytes.
    pub granularity: u32,
    /// The largest discard in bytes.
    pub max_bytes: u64,
    /// How many ranges one discard request may carry.
    pub max_segments: u32,
}

/// One request of a [`BlockDriver::run_batch`]: its data (written, or
/// read into) and, once run, its outcome.
pub struct BatchItem {
    /// The direction.
    pub op: queue::Op,
    /// First sector.
    pub sector: u64,
    /// The data (empty for a flush).
    pub data: Vec<u8>,
    /// The outcome.
    pub result: Result<()>,
}

/// One disk.
pub struct Disk {
    /// Its name (`vda`).
    pub name: String,
    /// Its major number.
    pub major: u32,
    /// Its minor; partitions 1.. take the next `minors - 1`.
    pub first_minor: u32,
    /// Minors reserved for the disk and its partitions.
    pub minors: u32,
    /// The driver.
    pub driver: Arc<dyn BlockDriver>,
    /// The request queue in front of the driver.
    pub queue: RequestQueue,
    /// Set while a partition-table scan runs.
    scanning: AtomicBool,
    /// Its path under /sys/devices (`pci0000:00/0000:00:04.0/virtio1`).
    pub sysfs_parent: String,
    /// Linux's disk sequence number (diskseq): counts disks from 1.
    pub seq: u64,
}

/// A disk or a partition of one: a range of the disk's sectors.
pub struct BlockDev {
    /// The disk it is on.
    pub disk: Arc<Disk>,
    /// 0 for the whole disk, else the partition's number.
    pub partno: u32,
    /// Its name (`vda`, `vda1`).
    pub name: String,
    /// Device number.
    pub major: u32,
    /// Device number.
    pub minor: u32,
    /// First sector on the disk.
    pub start: u64,
    /// Length in sectors.
    pub sectors: u64,
    /// GPT: the partition's name.
    pub part_name: Vec<u8>,
    /// The requests made to this device (a partition's stat file).
    pub stats: queue::Stats,
}

impl BlockDev {
    /// Whether this is a whole disk.
    pub fn is_disk(&self) -> bool {
        self.partno == 0
    }

    /// The size in bytes.
    pub fn bytes(&self) -> u64 {
        self.sectors * SECTOR as u64
    }

    /// The device number as a `dev_t`.
    pub fn rdev(&self) -> u64 {
        crate::fs::initramfs::make_rdev(self.major, self.minor)
    }

    /// Discards `count` sectors from `sector` (of this device) on: the
    /// writes a plug holds go first, then the driver's discards, a
    /// gigabyte at a time (EINTR between them on a fatal signal).
    pub fn discard(&self, sector: u64, count: u64) -> Result<()> {
        self.offload(sector, count, |at, n| self.disk.driver.discard(at, n))
    }

    /// Makes `count` sectors from `sector` (of this device) on read as
    /// zeros with the driver's write-zeroes requests (see `discard`).
    pub fn write_zeroes(&self, sector: u64, count: u64, unmap: bool) -> Result<()> {
        self.offload(sector, count, |at, n| self.disk.driver.write_zeroes(at, n, unmap))
    }

    fn offload(&self, sector: u64, count: u64, mut op: impl FnMut(u64, u64) -> Result<()>) -> Result<()> {
        /// Sectors per driver call: 1 GiB.
        const STEP: u64 = 1 << 21;
        match sector.checked_add(count) {
            Some(end) if end <= self.sectors && count > 0 => {}
            _ => return Err(Errno::EINVAL),
        }
        if self.disk.driver.read_only() {
            return Err(Errno::EROFS);
        }
        self.disk.queue.send_held_writes(&*self.disk.driver);
        let mut at = sector;
        while at < sector + count {
            let n = (sector + count - at).min(STEP);
            op(self.start + at, n)?;
            at += n;
            if at < sector + count && crate::process::scheduler::current().is_some_and(|t| t.fatal_signal_pending()) {
                return Err(Errno::EINTR);
            }
        }
        Ok(())
    }

    /// Checks that `len` bytes at `sector` lie inside the device and
    /// returns the disk sector they start at.
    fn map(&self, sector: u64, len: usize) -> Result<u64> {
        if len % SECTOR != 0 {
            return Err(Errno::EINVAL);
        }
        let count = (len / SECTOR) as u64;
        match sector.checked_add(count) {
            Some(end) if end <= self.sectors => Ok(self.start + sector),
            _ => Err(Errno::EIO),
        }
    }
}

impl BlockDevice for BlockDev {
    fn sector_size(&self) -> usize {
        SECTOR
    }

    fn sector_count(&self) -> u64 {
        self.sectors
    }

    fn read_sectors(&self, sector: u64, buf: &mut [u8]) -> Result<()> {
        let at = self.map(sector, buf.len())?;
        if buf.is_empty() {
            return Ok(());
        }
        let t0 = kevlar_platform::time::monotonic_ns();
        let r = self.disk.queue.read(&*self.disk.driver, at, buf);
        self.stats.count(false, buf.len(), t0);
        r
    }

    fn write_sectors(&self, sector: u64, buf: &[u8]) -> Result<()> {
        let at = self.map(sector, buf.len())?;
        if buf.is_empty() {
            return Ok(());
        }
        if self.disk.driver.read_only() {
            return Err(Errno::EROFS);
        }
        let t0 = kevlar_platform::time::monotonic_ns();
        let r = self.disk.queue.write(&*self.disk.driver, at, buf);
        self.stats.count(true, buf.len(), t0);
        r
    }

    fn flush(&self) -> Result<()> {
        self.disk.queue.flush(&*self.disk.driver)
    }

    fn is_read_only(&self) -> bool {
        self.disk.driver.read_only()
    }

    fn discard_sectors(&self, sector: u64, count: u64) -> Result<()> {
        if !self.disk.driver.can_discard() {
            return Err(Errno::EOPNOTSUPP);
        }
        self.discard(sector, count)
    }
}

/// Every disk and partition, disks in probe order, each followed by its
/// partitions in number order (the order of /proc/partitions).
static DEVICES: SpinLock<Vec<Arc<BlockDev>>> = SpinLock::new(Vec::new());
/// The next minor of [`EXT_MAJOR`] (Linux hands them out from 0).
static NEXT_EXT_MINOR: AtomicU32 = AtomicU32::new(0);

static NEXT_SEQ: AtomicU64 = AtomicU64::new(1);

/// Adds a disk: names it `<prefix><letter>` (vda, vdb...), takes `minors`
/// minors of `major` per disk, and reads its partition table.
/// `sysfs_parent` is the device's path under /sys/devices.
pub fn register(prefix: &str, major: u32, minors: u32, sysfs_parent: String, driver: Arc<dyn BlockDriver>) -> Arc<Disk> {
    let index = DEVICES.lock().iter().filter(|d| d.is_disk() && d.disk.major == major).count() as u32;
    let name = format!("{}{}", prefix, disk_letters(index));
    let disk = Arc::new(Disk {
        name: name.clone(),
        major,
        first_minor: index * minors,
        minors,
        queue: RequestQueue::new(driver.max_transfer()),
        driver,
        scanning: AtomicBool::new(false),
        sysfs_parent,
        seq: NEXT_SEQ.fetch_add(1, Ordering::Relaxed),
    });
    let whole = Arc::new(BlockDev {
        disk: disk.clone(),
        partno: 0,
        name,
        major,
        minor: disk.first_minor,
        start: 0,
        sectors: disk.driver.sectors(),
        part_name: Vec::new(),
        stats: queue::Stats::default(),
    });
    DEVICES.lock().push(whole);
    if let Err(e) = rescan(&disk) {
        log::warn!("{}: unable to read partition table ({:?})", disk.name, e);
    }
    disk
}

/// Linux's disk names: a..z, then aa..zz, then aaa...
fn disk_letters(mut index: u32) -> String {
    let mut out = Vec::new();
    loop {
        out.push(b'a' + (index % 26) as u8);
        if index < 26 {
            break;
        }
        index = index / 26 - 1;
    }
    out.reverse();
    String::from_utf8(out).unwrap_or_default()
}

/// Finds the disks (once, at boot, before user space).
pub fn init() {
    virtio::probe();
}

/// Every disk and partition.
pub fn devices() -> Vec<Arc<BlockDev>> {
    DEVICES.lock().clone()
}

/// The whole-disk devices.
pub fn disks() -> Vec<Arc<BlockDev>> {
    DEVICES.lock().iter().filter(|d| d.is_disk()).cloned().collect()
}

/// The partitions of `disk`.
pub fn partitions(disk: &Arc<Disk>) -> Vec<Arc<BlockDev>> {
    DEVICES.lock().iter().filter(|d| !d.is_disk() && Arc::ptr_eq(&d.disk, disk)).cloned().collect()
}

/// Finds the device a block-device node's number names.
pub fn by_rdev(rdev: u64) -> Option<Arc<BlockDev>> {
    let (major, minor) = crate::fs::initramfs::split_rdev(rdev);
    DEVICES.lock().iter().find(|d| d.major == major && d.minor == minor).cloned()
}

/// Reads `disk`'s partition table again and replaces its partitions
/// (boot, BLKRRPART). EBUSY while one of them is mounted or another scan
/// runs, as Linux.
pub fn rescan(disk: &Arc<Disk>) -> Result<()> {
    if disk.scanning.swap(true, Ordering::AcqRel) {
        return Err(Errno::EBUSY);
    }
    let result = rescan_locked(disk);
    disk.scanning.store(false, Ordering::Release);
    result
}

fn rescan_locked(disk: &Arc<Disk>) -> Result<()> {
    let old = partitions(disk);
    if old.iter().any(|p| crate::fs::mount::is_disk_mounted(p.rdev())) {
        return Err(Errno::EBUSY);
    }
    let total = disk.driver.sectors();
    let lbs = disk.driver.logical_block_size() as usize;
    let driver = disk.driver.clone();
    let per_block = (lbs / SECTOR) as u64;
    let mut read = |lba: u64, buf: &mut [u8]| disk.queue.read(&*driver, lba * per_block, buf).map_err(|_| kevlar_part::ReadError);
    let scanned = kevlar_part::scan(lbs, total / per_block.max(1), &mut read);
    // The old partitions go either way (Linux drops them before reading).
    DEVICES.lock().retain(|d| d.is_disk() || !Arc::ptr_eq(&d.disk, disk));
    for p in &old {
        crate::fs::mount::devtmpfs_remove(p.name.as_bytes());
    }
    let table = scanned.map_err(|_| Errno::EIO)?;
    let mut made = Vec::new();
    for p in table.partitions {
        if p.start >= total {
            log::warn!("{}: p{} start {} is beyond EOD, truncated", disk.name, p.number, p.start);
            continue;
        }
        let sectors = p.sectors.min(total - p.start);
        let (major, minor) = if p.number < disk.minors {
            (disk.major, disk.first_minor + p.number)
        } else {
            (EXT_MAJOR, NEXT_EXT_MINOR.fetch_add(1, Ordering::Relaxed))
        };
        let name = if disk.name.ends_with(|c: char| c.is_ascii_digit()) { format!("{}p{}", disk.name, p.number) } else { format!("{}{}", disk.name, p.number) };
        made.push(Arc::new(BlockDev { disk: disk.clone(), partno: p.number, name, major, minor, start: p.start, sectors, part_name: p.name, stats: queue::Stats::default() }));
    }
    if !made.is_empty() {
        let mut line = format!(" {}:", disk.name);
        for p in &made {
            let _ = write!(line, " p{}", p.partno);
        }
        log::info!("{}", line);
    }
    {
        let mut devices = DEVICES.lock();
        let at = devices.iter().position(|d| d.is_disk() && Arc::ptr_eq(&d.disk, disk)).map_or(devices.len(), |i| i + 1);
        for (i, p) in made.iter().enumerate() {
            devices.insert(at + i, p.clone());
        }
    }
    for p in &made {
        crate::fs::mount::devtmpfs_add(p.name.as_bytes(), p.rdev());
    }
    Ok(())
}

/// Plugs every disk until the guard drops (a write-back's many small
/// writes then reach the drivers sorted and merged).
pub struct PlugAll(Vec<Arc<BlockDev>>);

/// Plugs every disk.
pub fn plug_all() -> PlugAll {
    let disks = disks();
    for d in &disks {
        d.disk.queue.plug();
    }
    PlugAll(disks)
}

impl Drop for PlugAll {
    fn drop(&mut self) {
        for d in &self.0 {
            if let Err(e) = d.disk.queue.unplug(&*d.disk.driver) {
                log::warn!("{}: write-back failed: {:?}", d.name, e);
            }
        }
    }
}

/// /proc/partitions: every disk and partition with its size in KiB.
pub fn proc_partitions() -> String {
    let mut out = String::from("major minor  #blocks  name\n\n");
    for d in devices() {
        let _ = writeln!(out, "{:4}  {:7} {:10} {}", d.major, d.minor, d.sectors / 2, d.name);
    }
    out
}

/// /proc/diskstats: the counts of /sys/block/X/stat, one line a device.
pub fn proc_diskstats() -> String {
    let mut out = String::new();
    for d in devices() {
        let stat = sysfs::stat_line(&d);
        let _ = write!(out, "{:4} {:7} {}", d.major, d.minor, d.name);
        for v in stat.split_whitespace() {
            let _ = write!(out, " {}", v);
        }
        out.push('\n');
    }
    out
}
