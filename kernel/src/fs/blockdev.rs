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
        self.device.read(sector, buf).map_err(errno)?;
        crate::mm::vmstat::count(crate::mm::vmstat::Event::KibIn, buf.len() as u64 / 1024);
        Ok(())
    }

    fn write_sectors(&self, sector: u64, buf: &[u8]) -> Result<()> {
        self.device.write(sector, buf).map_err(errno)?;
        crate::mm::vmstat::count(crate::mm::vmstat::Event::KibOut, buf.len() as u64 / 1024);
        Ok(())
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

/// Bytes moved per disk request when a block-device file is read or
/// written.
const FILE_CHUNK: usize = 64 * 1024;

/// An open block-device node (`/dev/vda`): byte-addressed reads and
/// writes over the disk's sectors (a partial sector is read, patched and
/// written back), the disk's size for SEEK_END, and the size ioctls
/// blkid, fdisk and mkfs ask. There is no block cache: a file system
/// mounted from the disk may hold blocks it has not written back yet, so
/// what a reader sees of a mounted, written file system can be older than
/// Linux would show (sync first).
pub struct BlockFile {
    disk: Arc<Disk>,
    stat: kevlar_vfs::Stat,
}

impl BlockFile {
    /// Opens the disk `rdev` names; ENXIO if there is none (as Linux for a
    /// node without a device behind it). O_EXCL asks for an exclusive
    /// claim: refused with EBUSY while the disk is mounted, as on Linux;
    /// claims between two O_EXCL openers are not tracked yet.
    pub fn open(rdev: u64, stat: kevlar_vfs::Stat, flags: u32) -> Result<Arc<dyn crate::fs::file::FileOps>> {
        let disk = by_rdev(rdev).ok_or(Errno::ENXIO)?;
        if flags & linux_raw_sys::general::O_EXCL != 0 && crate::fs::mount::is_disk_mounted(rdev) {
            return Err(Errno::EBUSY);
        }
        Ok(Arc::new(BlockFile { disk, stat }))
    }

    fn bytes(&self) -> u64 {
        self.disk.sector_count() * self.disk.sector_size() as u64
    }

    /// Reads the sectors covering `len` bytes at `pos` into `tmp`;
    /// returns the offset of `pos` inside it.
    fn read_span(&self, pos: u64, len: usize, tmp: &mut Vec<u8>) -> Result<usize> {
        let ss = self.disk.sector_size();
        let skip = (pos % ss as u64) as usize;
        let sectors = (skip + len).div_ceil(ss);
        tmp.resize(sectors * ss, 0);
        self.disk.read_sectors(pos / ss as u64, tmp)?;
        Ok(skip)
    }
}

impl crate::fs::file::FileOps for BlockFile {
    fn read(&self, _file: &crate::fs::file::OpenFile, offset: u64, buf: &mut [u8]) -> Result<usize> {
        let size = self.bytes();
        if offset >= size {
            return Ok(0);
        }
        let len = (buf.len() as u64).min(size - offset) as usize;
        let mut tmp = Vec::new();
        let mut done = 0;
        while done < len {
            let pos = offset + done as u64;
            let want = (len - done).min(FILE_CHUNK);
            let skip = self.read_span(pos, want, &mut tmp)?;
            buf[done..done + want].copy_from_slice(&tmp[skip..skip + want]);
            done += want;
        }
        Ok(len)
    }

    fn write(&self, _file: &crate::fs::file::OpenFile, offset: u64, buf: &[u8]) -> Result<usize> {
        let size = self.bytes();
        if buf.is_empty() {
            return Ok(0);
        }
        // Linux: nothing fits past the end of the device.
        if offset >= size {
            return Err(Errno::ENOSPC);
        }
        let len = (buf.len() as u64).min(size - offset) as usize;
        let ss = self.disk.sector_size();
        let mut tmp = Vec::new();
        let mut done = 0;
        while done < len {
            let pos = offset + done as u64;
            let want = (len - done).min(FILE_CHUNK);
            let skip = (pos % ss as u64) as usize;
            if skip == 0 && want % ss == 0 {
                self.disk.write_sectors(pos / ss as u64, &buf[done..done + want])?;
            } else {
                // Read-modify-write of the partial sectors at either end.
                let skip = self.read_span(pos, want, &mut tmp)?;
                tmp[skip..skip + want].copy_from_slice(&buf[done..done + want]);
                self.disk.write_sectors(pos / ss as u64, &tmp)?;
            }
            done += want;
        }
        Ok(len)
    }

    fn stat(&self) -> Result<kevlar_vfs::Stat> {
        Ok(self.stat.clone())
    }

    fn size(&self) -> Result<u64> {
        Ok(self.bytes())
    }

    fn ioctl(&self, _file: &crate::fs::file::OpenFile, request: u32, arg: usize) -> Result<isize> {
        use linux_raw_sys::ioctl as io;
        let ss = self.disk.sector_size() as u32;
        let put_u64 = |v: u64| crate::uaccess::copy_to_user(arg, &v.to_ne_bytes());
        let put_u32 = |v: u32| crate::uaccess::copy_to_user(arg, &v.to_ne_bytes());
        match request {
            io::BLKGETSIZE64 => put_u64(self.bytes())?,
            // In 512-byte units, whatever the sector size.
            io::BLKGETSIZE => put_u64(self.bytes() / 512)?,
            io::BLKSSZGET | io::BLKPBSZGET | io::BLKIOMIN => put_u32(ss)?,
            io::BLKBSZGET => put_u32(4096)?,
            io::BLKIOOPT | io::BLKALIGNOFF => put_u32(0)?,
            io::BLKROGET => put_u32(u32::from(self.disk.is_read_only()))?,
            _ => return Err(Errno::ENOTTY),
        }
        Ok(0)
    }
}
