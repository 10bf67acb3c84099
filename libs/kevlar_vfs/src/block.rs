//! The interface between disk file systems and block devices.
//!
//! A driver (virtio-blk in the kernel, a file or a vector on the host)
//! implements [`BlockDevice`]; a file system such as `kevlar_ext2` reads
//! and writes through it and never sees the hardware.

use alloc::vec;
use alloc::vec::Vec;

use crate::errno::{Errno, Result};

/// A device of fixed-size sectors addressed by index.
///
/// Transfers are whole sectors: `buf.len()` must be a multiple of
/// [`BlockDevice::sector_size`] (else EINVAL), and a transfer past the last
/// sector fails with EIO, as a disk would. Implementations are shared by
/// every CPU and must serialise requests themselves.
pub trait BlockDevice: Send + Sync {
    /// Returns the size of one sector in bytes (512 for virtio-blk).
    fn sector_size(&self) -> usize;

    /// Returns the number of sectors.
    fn sector_count(&self) -> u64;

    /// Reads `buf.len() / sector_size()` sectors starting at `sector`.
    fn read_sectors(&self, sector: u64, buf: &mut [u8]) -> Result<()>;

    /// Writes `buf.len() / sector_size()` sectors starting at `sector`.
    fn write_sectors(&self, sector: u64, buf: &[u8]) -> Result<()>;

    /// Makes every completed write durable (a cache flush); the default
    /// does nothing, for devices without a volatile cache.
    fn flush(&self) -> Result<()> {
        Ok(())
    }

    /// Tells whether the device refuses writes.
    fn is_read_only(&self) -> bool {
        false
    }

    /// Discards `count` sectors from `sector` on (their contents are no
    /// longer needed); EOPNOTSUPP for a device that cannot.
    fn discard_sectors(&self, _sector: u64, _count: u64) -> Result<()> {
        Err(Errno::EOPNOTSUPP)
    }
}

/// A block device held in memory, for tests and RAM disks.
#[derive(Debug)]
pub struct MemDisk {
    sector_size: usize,
    bytes: spin::Mutex<Vec<u8>>,
}

impl MemDisk {
    /// Makes a zero-filled disk of `sectors` sectors of `sector_size` bytes.
    pub fn new(sector_size: usize, sectors: u64) -> MemDisk {
        MemDisk { sector_size, bytes: spin::Mutex::new(vec![0; sector_size * sectors as usize]) }
    }

    /// Makes a disk holding `image`, whose length must be a whole number
    /// of sectors.
    pub fn from_image(sector_size: usize, image: Vec<u8>) -> Result<MemDisk> {
        if sector_size == 0 || image.len() % sector_size != 0 {
            return Err(Errno::EINVAL);
        }
        Ok(MemDisk { sector_size, bytes: spin::Mutex::new(image) })
    }

    /// Returns a copy of the whole disk.
    pub fn image(&self) -> Vec<u8> {
        self.bytes.lock().clone()
    }

    /// Returns the byte range a transfer of `len` bytes at `sector` covers.
    fn range(&self, total: usize, sector: u64, len: usize) -> Result<core::ops::Range<usize>> {
        if len % self.sector_size != 0 {
            return Err(Errno::EINVAL);
        }
        let start = usize::try_from(sector).ok().and_then(|s| s.checked_mul(self.sector_size)).ok_or(Errno::EIO)?;
        let end = start.checked_add(len).ok_or(Errno::EIO)?;
        if end > total {
            return Err(Errno::EIO);
        }
        Ok(start..end)
    }
}

impl BlockDevice for MemDisk {
    fn sector_size(&self) -> usize {
        self.sector_size
    }

    fn sector_count(&self) -> u64 {
        (self.bytes.lock().len() / self.sector_size) as u64
    }

    fn read_sectors(&self, sector: u64, buf: &mut [u8]) -> Result<()> {
        let bytes = self.bytes.lock();
        let range = self.range(bytes.len(), sector, buf.len())?;
        buf.copy_from_slice(&bytes[range]);
        Ok(())
    }

    fn write_sectors(&self, sector: u64, buf: &[u8]) -> Result<()> {
        let mut bytes = self.bytes.lock();
        let range = self.range(bytes.len(), sector, buf.len())?;
        bytes[range].copy_from_slice(buf);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mem_disk_transfers_whole_sectors() {
        let disk = MemDisk::new(512, 4);
        assert_eq!(disk.sector_count(), 4);
        let data = [7u8; 1024];
        disk.write_sectors(2, &data).unwrap();
        let mut out = [0u8; 512];
        disk.read_sectors(3, &mut out).unwrap();
        assert_eq!(out, [7u8; 512]);
        disk.read_sectors(1, &mut out).unwrap();
        assert_eq!(out, [0u8; 512]);
        assert_eq!(disk.read_sectors(4, &mut out), Err(Errno::EIO));
        assert_eq!(disk.write_sectors(3, &data), Err(Errno::EIO));
        assert_eq!(disk.read_sectors(0, &mut out[..100]), Err(Errno::EINVAL));
        assert_eq!(MemDisk::from_image(512, vec![0; 100]).err(), Some(Errno::EINVAL));
        assert_eq!(disk.image()[1024], 7);
    }
}
