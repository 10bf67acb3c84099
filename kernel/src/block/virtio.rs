//! virtio-blk disks as block-layer drivers: `vda`, `vdb`... with Linux's
//! numbers (major 254, which Linux's dynamic allocation gives virtio_blk
//! on a machine with no other dynamic block majors; 16 minors per disk).

use alloc::format;
use alloc::sync::Arc;

use alloc::collections::VecDeque;

use kevlar_platform::virtio_blk::{self, BlkError, BlkOp, VirtioBlk};

use super::queue::Op;
use super::{BatchItem, BlockDriver, Geometry, SECTOR};
use crate::error::{Errno, Result};

/// The major number of virtio disks.
pub const VIRTBLK_MAJOR: u32 = 254;
/// Minor numbers per disk (the disk, then partitions 1 to 15), as Linux's
/// virtio_blk (PART_BITS 4).
pub const MINORS_PER_DISK: u32 = 16;

fn errno(e: BlkError) -> Errno {
    match e {
        BlkError::BadLength => Errno::EINVAL,
        BlkError::ReadOnly => Errno::EROFS,
        BlkError::Unsupported => Errno::EOPNOTSUPP,
        BlkError::OutOfRange | BlkError::Io | BlkError::Busy => Errno::EIO,
    }
}

/// A virtio disk as a block-layer driver.
pub struct Virtio(VirtioBlk);

impl Virtio {
    /// The device.
    pub fn device(&self) -> &VirtioBlk {
        &self.0
    }
}

/// The virtio disks, in probe order (for the in-kernel tests).
static DISKS: kevlar_platform::sync::SpinLock<alloc::vec::Vec<Arc<Virtio>>> = kevlar_platform::sync::SpinLock::new(alloc::vec::Vec::new());

/// The first virtio disk.
pub fn first() -> Option<Arc<Virtio>> {
    DISKS.lock().first().cloned()
}

/// Finds the virtio disks without registering them with the block layer
/// (for `test=` boots, where [`super::init`] does not run); returns the
/// first.
pub fn probe_unregistered() -> Option<Arc<Virtio>> {
    let mut disks = DISKS.lock();
    if disks.is_empty() {
        disks.extend(virtio_blk::probe().into_iter().map(|d| Arc::new(Virtio(d))));
    }
    disks.first().cloned()
}

impl BlockDriver for Virtio {
    fn sectors(&self) -> u64 {
        self.0.sector_count()
    }

    fn read_only(&self) -> bool {
        self.0.is_read_only()
    }

    fn read(&self, sector: u64, buf: &mut [u8]) -> Result<()> {
        self.0.read(sector, buf).map_err(errno)
    }

    fn write(&self, sector: u64, buf: &[u8]) -> Result<()> {
        self.0.write(sector, buf).map_err(errno)
    }

    fn flush(&self) -> Result<()> {
        self.0.flush().map_err(errno)
    }

    /// The device's discard limits as Linux's virtblk_probe takes them:
    /// the granularity from discard_sector_alignment (else a sector), the
    /// largest discard from max_discard_sectors (0: no limit), one range
    /// per request unless the device says more (at most 256).
    fn discard_limits(&self) -> Option<super::DiscardLimits> {
        let l = self.0.discard_limits();
        if !l.discard {
            return None;
        }
        let granularity = if l.discard_alignment_sectors != 0 { l.discard_alignment_sectors.saturating_mul(SECTOR as u32) } else { SECTOR as u32 };
        let sectors = if l.max_discard_sectors != 0 { l.max_discard_sectors } else { u32::MAX };
        let segments = l.max_discard_segments.clamp(1, 256);
        Some(super::DiscardLimits { granularity, max_bytes: u64::from(sectors) * SECTOR as u64, max_segments: segments })
    }

    fn write_zeroes_max_bytes(&self) -> u64 {
        let l = self.0.discard_limits();
        if !l.write_zeroes {
            return 0;
        }
        let sectors = if l.max_write_zeroes_sectors != 0 { l.max_write_zeroes_sectors } else { u32::MAX };
        u64::from(sectors) * SECTOR as u64
    }

    /// A discard is a hint that the sectors' contents are no longer
    /// needed (what they read afterwards is unspecified: the disk does
    /// not say discarded sectors read as zeros): VIRTIO_BLK_T_DISCARD
    /// requests (a QEMU drive with `discard=unmap` deallocates them in
    /// its image).
    fn discard(&self, sector: u64, count: u64) -> Result<()> {
        self.0.discard(sector, count).map_err(errno)
    }

    /// VIRTIO_BLK_T_WRITE_ZEROES requests, with the unmap flag when the
    /// sectors may be deallocated.
    fn write_zeroes(&self, sector: u64, count: u64, unmap: bool) -> Result<()> {
        self.0.write_zeroes(sector, count, unmap).map_err(errno)
    }

    /// Posts requests while the virtqueue takes them and collects them as
    /// they finish; a flush is sent when everything before it is done.
    fn run_batch(&self, batch: &mut [BatchItem]) {
        // (index in the batch, ticket) of the requests in flight.
        let mut in_flight: VecDeque<(usize, u64)> = VecDeque::new();
        let mut next = 0;
        while next < batch.len() || !in_flight.is_empty() {
            // Post what fits, up to the next flush.
            while next < batch.len() && batch[next].op != Op::Flush {
                let op = if batch[next].op == Op::Read { BlkOp::Read } else { BlkOp::Write };
                let data = core::mem::take(&mut batch[next].data);
                match self.0.submit(op, batch[next].sector, data) {
                    Ok(ticket) => {
                        in_flight.push_back((next, ticket));
                        next += 1;
                    }
                    Err((BlkError::Busy, data)) if !in_flight.is_empty() => {
                        batch[next].data = data;
                        break;
                    }
                    Err((BlkError::Busy, data)) => {
                        // Full with requests of other callers: wait for one.
                        batch[next].data = data;
                        self.0.wait_any();
                    }
                    Err((e, data)) => {
                        batch[next].data = data;
                        batch[next].result = Err(errno(e));
                        next += 1;
                    }
                }
            }
            if in_flight.is_empty() {
                if next < batch.len() {
                    // A flush, with nothing of ours before it in flight.
                    batch[next].result = self.flush();
                    next += 1;
                }
                continue;
            }
            // Collect what finished; wait when nothing did.
            let mut progressed = false;
            in_flight.retain(|&(index, ticket)| match self.0.take(ticket) {
                Some((data, r)) => {
                    batch[index].data = data;
                    batch[index].result = r.map_err(errno);
                    progressed = true;
                    false
                }
                None => true,
            });
            if !progressed {
                self.0.wait_any();
            }
        }
    }

    /// The device's geometry, else what Linux's virtblk_getgeo makes up:
    /// 64 heads, 32 sectors a track, 1 MiB cylinders.
    fn geometry(&self) -> Geometry {
        match self.0.geometry() {
            Some(g) => Geometry { heads: g.heads, sectors: g.sectors, cylinders: g.cylinders },
            None => Geometry { heads: 1 << 6, sectors: 1 << 5, cylinders: (self.0.sector_count() >> 11) as u16 },
        }
    }
}

/// `virtio_blk.poll_us=N` on the command line: waiters poll N us, then
/// halt until the disk's interrupt (the default polls until done).
fn set_poll_limit() {
    let line = crate::fs::procfs::boot_command_line();
    let value = line.split_whitespace().find_map(|w| w.strip_prefix("virtio_blk.poll_us="));
    if let Some(us) = value.and_then(|v| v.parse::<u64>().ok()) {
        virtio_blk::set_poll_limit_ns(us.saturating_mul(1000));
    }
}

/// Finds the virtio disks on the PCI bus and registers them.
pub fn probe() {
    set_poll_limit();
    for (i, device) in virtio_blk::probe().into_iter().enumerate() {
        let (bus, slot, function) = device.location;
        let sectors = device.sector_count();
        let read_only = device.is_read_only();
        // Linux numbers virtio devices of every kind in probe order;
        // Kevlar counts its disks only.
        let parent = format!("pci0000:{:02x}/0000:{:02x}:{:02x}.{}/virtio{}", bus, bus, slot, function, i);
        let driver = Arc::new(Virtio(device));
        DISKS.lock().push(driver.clone());
        let disk = super::register("vd", VIRTBLK_MAJOR, MINORS_PER_DISK, parent, driver);
        log::info!(
            "virtio-blk: {} at {:02x}:{:02x}.{}: {} sectors ({} MiB){}",
            disk.name,
            bus,
            slot,
            function,
            sectors,
            sectors / 2048,
            if read_only { ", read-only" } else { "" }
        );
    }
}
