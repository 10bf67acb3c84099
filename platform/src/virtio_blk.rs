//! virtio-blk disks on the PCI bus, driven by the `virtio-drivers` crate.
//!
//! This module is the hardware side of block devices (PCI access, BARs and
//! DMA memory are `crate::virtio`'s). The kernel gets [`VirtioBlk`]s with
//! safe `read`/`write`/`flush` and puts its block-device trait on top.
//!
//! - **Completion is polled**: a request is posted and the CPU spins on the
//!   used ring with the disk's lock held (device interrupts are turned
//!   off). Requests are short and the lock keeps one request in flight per
//!   disk, so several CPUs may call in at once. Interrupt-driven
//!   completion with the caller sleeping is the next step when disks get
//!   busy.

use alloc::vec::Vec;

use virtio_drivers::device::blk::{VirtIOBlk, SECTOR_SIZE};
use virtio_drivers::transport::pci::PciTransport;
use virtio_drivers::transport::{DeviceType, Transport};

use crate::sync::SpinLock;
use crate::virtio::{transports, PlatformHal};

/// Bytes in one sector, the unit of every transfer.
pub const SECTOR_BYTES: usize = SECTOR_SIZE;

/// Why a disk request failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlkError {
    /// The buffer is empty or not a whole number of sectors.
    BadLength,
    /// The request goes past the end of the disk.
    OutOfRange,
    /// The disk is read-only.
    ReadOnly,
    /// The device reported an error or does not support the request.
    Io,
}

struct Device(VirtIOBlk<PlatformHal, PciTransport>);

// SAFETY: the device's registers and virtqueues are reached only through
// the `SpinLock` around this value, one CPU at a time; nothing in it is
// tied to the CPU that made it.
unsafe impl Send for Device {}

/// The disk's geometry as the device reports it (VIRTIO_BLK_F_GEOMETRY):
/// cylinders, heads, sectors per track.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Geometry {
    /// Cylinders.
    pub cylinders: u16,
    /// Heads.
    pub heads: u8,
    /// Sectors per track.
    pub sectors: u8,
}

/// VIRTIO_BLK_F_GEOMETRY, and where `struct virtio_blk_config` keeps the
/// geometry (virtio 1.1, 5.2.4).
const F_GEOMETRY: u64 = 1 << 4;
const CONFIG_GEOMETRY: usize = 16;

/// One virtio-blk disk.
pub struct VirtioBlk {
    device: SpinLock<Device>,
    sectors: u64,
    read_only: bool,
    geometry: Option<Geometry>,
    /// Where it sits on the PCI bus (bus, device, function).
    pub location: (u8, u8, u8),
}

impl VirtioBlk {
    /// Returns the disk's size in sectors.
    pub fn sector_count(&self) -> u64 {
        self.sectors
    }

    /// The geometry the device offers, if it does.
    pub fn geometry(&self) -> Option<Geometry> {
        self.geometry
    }

    /// Tells whether the device refuses writes (`VIRTIO_BLK_F_RO`).
    pub fn is_read_only(&self) -> bool {
        self.read_only
    }

    fn check(&self, sector: u64, len: usize) -> Result<(), BlkError> {
        if len == 0 || len % SECTOR_BYTES != 0 {
            return Err(BlkError::BadLength);
        }
        let count = (len / SECTOR_BYTES) as u64;
        if sector.checked_add(count).is_none_or(|end| end > self.sectors) {
            return Err(BlkError::OutOfRange);
        }
        Ok(())
    }

    /// Reads `buf.len() / 512` sectors from `sector` on.
    pub fn read(&self, sector: u64, buf: &mut [u8]) -> Result<(), BlkError> {
        self.check(sector, buf.len())?;
        self.device.lock().0.read_blocks(sector as usize, buf).map_err(|_| BlkError::Io)
    }

    /// Writes `buf.len() / 512` sectors from `sector` on.
    pub fn write(&self, sector: u64, buf: &[u8]) -> Result<(), BlkError> {
        self.check(sector, buf.len())?;
        if self.read_only {
            return Err(BlkError::ReadOnly);
        }
        self.device.lock().0.write_blocks(sector as usize, buf).map_err(|_| BlkError::Io)
    }

    /// Makes completed writes durable (VIRTIO_BLK_T_FLUSH; a device without
    /// a volatile cache answers that it does not support it, which is
    /// success here).
    pub fn flush(&self) -> Result<(), BlkError> {
        match self.device.lock().0.flush() {
            Ok(()) | Err(virtio_drivers::Error::Unsupported) => Ok(()),
            Err(_) => Err(BlkError::Io),
        }
    }
}

/// Finds and initialises every virtio-blk disk on PCI bus 0, in slot order.
pub fn probe() -> Vec<VirtioBlk> {
    let mut disks = Vec::new();
    for (df, mut transport) in transports(DeviceType::Block, "virtio-blk") {
        // The geometry is in the configuration space, which the driver
        // crate does not read: read it before the crate takes the device.
        let geometry = if transport.read_device_features() & F_GEOMETRY != 0 {
            let cylinders = transport.read_config_space::<u16>(CONFIG_GEOMETRY).unwrap_or(0);
            let heads = transport.read_config_space::<u8>(CONFIG_GEOMETRY + 2).unwrap_or(0);
            let sectors = transport.read_config_space::<u8>(CONFIG_GEOMETRY + 3).unwrap_or(0);
            Some(Geometry { cylinders, heads, sectors })
        } else {
            None
        };
        let mut blk = match VirtIOBlk::<PlatformHal, _>::new(transport) {
            Ok(b) => b,
            Err(e) => {
                log::warn!("virtio-blk at {}: {:?}", df, e);
                continue;
            }
        };
        blk.disable_interrupts();
        let sectors = blk.capacity();
        let read_only = blk.readonly();
        disks.push(VirtioBlk { device: SpinLock::new(Device(blk)), sectors, read_only, geometry, location: (df.bus, df.device, df.function) });
    }
    disks
}
