//! virtio-blk disks as block-layer drivers: `vda`, `vdb`... with Linux's
//! numbers (major 254, which Linux's dynamic allocation gives virtio_blk
//! on a machine with no other dynamic block majors; 16 minors per disk).

use alloc::format;
use alloc::sync::Arc;

use kevlar_platform::virtio_blk::{self, BlkError, VirtioBlk};

use super::{BlockDriver, Geometry};
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
        BlkError::OutOfRange | BlkError::Io => Errno::EIO,
    }
}

struct Virtio(VirtioBlk);

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

    /// The device's geometry, else what Linux's virtblk_getgeo makes up:
    /// 64 heads, 32 sectors a track, 1 MiB cylinders.
    fn geometry(&self) -> Geometry {
        match self.0.geometry() {
            Some(g) => Geometry { heads: g.heads, sectors: g.sectors, cylinders: g.cylinders },
            None => Geometry { heads: 1 << 6, sectors: 1 << 5, cylinders: (self.0.sector_count() >> 11) as u16 },
        }
    }
}

/// Finds the virtio disks on the PCI bus and registers them.
pub fn probe() {
    for (i, device) in virtio_blk::probe().into_iter().enumerate() {
        let (bus, slot, function) = device.location;
        let sectors = device.sector_count();
        let read_only = device.is_read_only();
        // Linux numbers virtio devices of every kind in probe order;
        // Kevlar counts its disks only.
        let parent = format!("pci0000:{:02x}/0000:{:02x}:{:02x}.{}/virtio{}", bus, bus, slot, function, i);
        let disk = super::register("vd", VIRTBLK_MAJOR, MINORS_PER_DISK, parent, Arc::new(Virtio(device)));
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
