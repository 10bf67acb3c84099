//! Block devices: the virtio-blk disks found at boot, named `vda`, `vdb`...
//! as on Linux, each a [`kevlar_vfs::BlockDevice`] that disk file systems
//! (ext2) read and write through.

use alloc::format;
use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;

use kevlar_platform::sync::SpinLock;
use kevlar_platform::virtio_blk::{self, BlkError, VirtioBlk};
use kevlar_vfs::BlockDevice;

use crate::error::{Errno, Result};

/// The major number of virtio disks. Linux allocates it dynamically; 254
/// is what it gets on a machine with no other dynamic block majors.
pub const VIRTBLK_MAJOR: u32 = 254;
/// Minor numbers per disk (the disk, then its partitions), as Linux's
/// virtio_blk.
const MINORS_PER_DISK: u32 = 16;

/// One disk.
pub struct Disk {
    /// Its name under /dev.
    pub name: String,
    /// Major number.
    pub major: u32,
    /// Minor number.
    pub minor: u32,
    device: VirtioBlk,
}

fn errno(e: BlkError) -> Errno {
    match e {
        BlkError::BadLength => Errno::EINVAL,
        BlkError::ReadOnly => Errno::EROFS,
        BlkError::OutOfRange | BlkError::Io => Errno::EIO,
    }
}

impl BlockDevice for Disk {
    fn sector_size(&self) -> usize {
        virtio_blk::SECTOR_BYTES
    }

    fn sector_count(&self) -> u64 {
        self.device.sector_count()
    }

    fn read_sectors(&self, sector: u64, buf: &mut [u8]) -> Result<()> {
        self.device.read(sector, buf).map_err(errno)
    }

    fn write_sectors(&self, sector: u64, buf: &[u8]) -> Result<()> {
        self.device.write(sector, buf).map_err(errno)
    }

    fn flush(&self) -> Result<()> {
        self.device.flush().map_err(errno)
    }

    fn is_read_only(&self) -> bool {
        self.device.is_read_only()
    }
}

static DISKS: SpinLock<Vec<Arc<Disk>>> = SpinLock::new(Vec::new());

/// Finds the disks on the PCI bus (once, at boot, before user space).
pub fn init() {
    let found = virtio_blk::probe();
    let mut disks = DISKS.lock();
    for (i, device) in found.into_iter().enumerate() {
        let name = format!("vd{}", char::from(b'a' + (i as u8 % 26)));
        let (bus, slot, function) = device.location;
        log::info!(
            "virtio-blk: {} at {:02x}:{:02x}.{}: {} sectors ({} MiB){}",
            name,
            bus,
            slot,
            function,
            device.sector_count(),
            device.sector_count() / 2048,
            if device.is_read_only() { ", read-only" } else { "" }
        );
        disks.push(Arc::new(Disk { name, major: VIRTBLK_MAJOR, minor: i as u32 * MINORS_PER_DISK, device }));
    }
}

/// Returns every disk.
pub fn disks() -> Vec<Arc<Disk>> {
    DISKS.lock().clone()
}

/// Finds the disk a block-device node's number names.
pub fn by_rdev(rdev: u64) -> Option<Arc<Disk>> {
    let (major, minor) = super::initramfs::split_rdev(rdev);
    DISKS.lock().iter().find(|d| d.major == major && d.minor == minor).cloned()
}
