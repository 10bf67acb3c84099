//! An open block-device node (`/dev/vda`, `/dev/vda1`): byte-addressed
//! reads and writes over the device's sectors, Linux's block ioctls,
//! O_DIRECT's alignment rule, fsync, and exclusive opens.
//!
//! There is no page cache of the device itself: every read and write goes
//! to the disk's request queue (a partial sector is read, patched and
//! written back). A file system mounted from the device may hold blocks it
//! has not written back yet, so a reader of a mounted, written file system
//! can see older data than Linux shows (sync first).

use alloc::sync::Arc;
use alloc::vec::Vec;
use core::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use kevlar_vfs::{BlockDevice, Inode, Stat};
use linux_raw_sys::general as abi;

use super::{BlockDev, SECTOR};
use crate::error::{Errno, Result};
use crate::fs::file::{FileOps, OpenFile};

/// HDIO_GETGEO (include/uapi/linux/hdreg.h; linux-raw-sys does not
/// carry the hdreg ioctls).
const HDIO_GETGEO: u32 = 0x0301;

/// Bytes moved per request when a device file is read or written.
const CHUNK: usize = 64 * 1024;

/// Opens and exclusive claims of each device, by device number.
struct Claims {
    opens: AtomicU32,
    exclusive: AtomicBool,
}

static CLAIMS: kevlar_platform::sync::SpinLock<Vec<(u64, Arc<Claims>)>> = kevlar_platform::sync::SpinLock::new(Vec::new());

fn claims(rdev: u64) -> Arc<Claims> {
    let mut all = CLAIMS.lock();
    if let Some((_, c)) = all.iter().find(|(r, _)| *r == rdev) {
        return c.clone();
    }
    let c = Arc::new(Claims { opens: AtomicU32::new(0), exclusive: AtomicBool::new(false) });
    all.push((rdev, c.clone()));
    c
}

/// Whether a process has the device `rdev` open.
pub fn is_open(rdev: u64) -> bool {
    CLAIMS.lock().iter().any(|(r, c)| *r == rdev && c.opens.load(Ordering::Acquire) > 0)
}

/// Whether a device is held: mounted or claimed by an O_EXCL open.
fn held(dev: &BlockDev) -> bool {
    let rdev = dev.rdev();
    crate::fs::mount::is_disk_mounted(rdev) || CLAIMS.lock().iter().any(|(r, c)| *r == rdev && c.exclusive.load(Ordering::Acquire))
}

/// Linux's bd_may_claim: a device may be claimed when nothing holds it,
/// nor (for a partition) its disk; a disk may not be claimed while one of
/// its partitions is held (the disk then counts as held for them).
pub fn may_claim(dev: &BlockDev) -> bool {
    if held(dev) {
        return false;
    }
    let parts = super::partitions(&dev.disk);
    if dev.is_disk() {
        !parts.iter().any(|p| held(p))
    } else {
        !super::disks().iter().any(|d| Arc::ptr_eq(&d.disk, &dev.disk) && held(d))
    }
}

/// An open device node.
pub struct BlockFile {
    dev: Arc<BlockDev>,
    node: Arc<dyn Inode>,
    stat: Stat,
    claims: Arc<Claims>,
    exclusive: bool,
}

impl BlockFile {
    /// Opens the device the node `node` names; ENXIO if there is none (as
    /// Linux for a node without a device behind it). O_EXCL claims the
    /// device: EBUSY while it is mounted or claimed, or (for a partition)
    /// while its disk is claimed, as Linux's bd_may_claim.
    pub fn open(node: Arc<dyn Inode>, stat: Stat, flags: u32) -> Result<Arc<dyn FileOps>> {
        let dev = super::by_rdev(stat.rdev).ok_or(Errno::ENXIO)?;
        let claims = claims(stat.rdev);
        let exclusive = flags & abi::O_EXCL != 0;
        if exclusive && (!may_claim(&dev) || claims.exclusive.swap(true, Ordering::AcqRel)) {
            return Err(Errno::EBUSY);
        }
        claims.opens.fetch_add(1, Ordering::AcqRel);
        Ok(Arc::new(BlockFile { dev, node, stat, claims, exclusive }))
    }

    /// Reads the sectors covering `len` bytes at `pos` into `tmp`;
    /// returns the offset of `pos` inside it.
    fn read_span(&self, pos: u64, len: usize, tmp: &mut Vec<u8>) -> Result<usize> {
        let skip = (pos % SECTOR as u64) as usize;
        let sectors = (skip + len).div_ceil(SECTOR);
        tmp.resize(sectors * SECTOR, 0);
        self.dev.read_sectors(pos / SECTOR as u64, tmp)?;
        Ok(skip)
    }

    /// O_DIRECT transfers must be aligned to the logical block size in
    /// position and length (EINVAL otherwise).
    fn check_direct(&self, file: &OpenFile, offset: u64, len: usize) -> Result<()> {
        let lbs = u64::from(self.dev.disk.driver.logical_block_size());
        if file.flags() & abi::O_DIRECT != 0 && (offset | len as u64) & (lbs - 1) != 0 {
            return Err(Errno::EINVAL);
        }
        Ok(())
    }

    /// Linux's block size of an open device: the largest power of two up
    /// to a page that divides its size, from the logical block size on.
    fn soft_block_size(&self) -> u32 {
        let mut bsize = self.dev.disk.driver.logical_block_size();
        while bsize < 4096 && self.dev.bytes() & u64::from(bsize) == 0 {
            bsize <<= 1;
        }
        bsize
    }
}

impl Drop for BlockFile {
    fn drop(&mut self) {
        self.claims.opens.fetch_sub(1, Ordering::AcqRel);
        if self.exclusive {
            self.claims.exclusive.store(false, Ordering::Release);
        }
    }
}

fn caller_is_admin() -> bool {
    crate::process::scheduler::current().is_some_and(|t| crate::process::access::capable(&t.process, abi::CAP_SYS_ADMIN))
}

impl FileOps for BlockFile {
    fn read(&self, file: &OpenFile, offset: u64, buf: &mut [u8]) -> Result<usize> {
        let size = self.dev.bytes();
        if offset >= size || buf.is_empty() {
            return Ok(0);
        }
        let len = (buf.len() as u64).min(size - offset) as usize;
        self.check_direct(file, offset, len)?;
        let mut tmp = Vec::new();
        let mut done = 0;
        while done < len {
            let pos = offset + done as u64;
            let want = (len - done).min(CHUNK);
            if pos % SECTOR as u64 == 0 && want % SECTOR == 0 {
                self.dev.read_sectors(pos / SECTOR as u64, &mut buf[done..done + want])?;
            } else {
                let skip = self.read_span(pos, want, &mut tmp)?;
                buf[done..done + want].copy_from_slice(&tmp[skip..skip + want]);
            }
            done += want;
        }
        Ok(len)
    }

    fn write(&self, file: &OpenFile, offset: u64, buf: &[u8]) -> Result<usize> {
        if self.dev.is_read_only() {
            return Err(Errno::EPERM);
        }
        let size = self.dev.bytes();
        if buf.is_empty() {
            return Ok(0);
        }
        // Linux: nothing fits past the end of the device.
        if offset >= size {
            return Err(Errno::ENOSPC);
        }
        let len = (buf.len() as u64).min(size - offset) as usize;
        self.check_direct(file, offset, len)?;
        let mut tmp = Vec::new();
        let mut done = 0;
        while done < len {
            let pos = offset + done as u64;
            let want = (len - done).min(CHUNK);
            if pos % SECTOR as u64 == 0 && want % SECTOR == 0 {
                self.dev.write_sectors(pos / SECTOR as u64, &buf[done..done + want])?;
            } else {
                // Read-modify-write of the partial sectors at either end.
                let skip = self.read_span(pos, want, &mut tmp)?;
                tmp[skip..skip + want].copy_from_slice(&buf[done..done + want]);
                self.dev.write_sectors(pos / SECTOR as u64, &tmp)?;
            }
            done += want;
        }
        Ok(len)
    }

    fn stat(&self) -> Result<Stat> {
        Ok(self.stat.clone())
    }

    fn size(&self) -> Result<u64> {
        Ok(self.dev.bytes())
    }

    fn inode(&self) -> Option<Arc<dyn Inode>> {
        Some(self.node.clone())
    }

    fn sync(&self) -> Option<Result<()>> {
        Some(self.dev.flush())
    }

    /// blkdev_fallocate: ZERO_RANGE (with or without KEEP_SIZE) zeroes
    /// as BLKZEROOUT does; PUNCH_HOLE|KEEP_SIZE is the device's
    /// write-zeroes that may deallocate, without fallback (EOPNOTSUPP
    /// when the device has none); PUNCH_HOLE|KEEP_SIZE|NO_HIDE_STALE
    /// discards; other modes are EOPNOTSUPP. The range must start inside the device and
    /// end inside it (KEEP_SIZE clips it), aligned to the logical block.
    fn fallocate(&self, _file: &OpenFile, mode: u32, offset: u64, len: u64) -> Option<Result<()>> {
        Some(self.fallocate_range(mode, offset, len))
    }

    fn ioctl(&self, file: &OpenFile, request: u32, arg: usize) -> Result<isize> {
        use linux_raw_sys::ioctl as io;
        let driver = &self.dev.disk.driver;
        let put_u64 = |v: u64| crate::uaccess::copy_to_user(arg, &v.to_ne_bytes());
        let put_u32 = |v: u32| crate::uaccess::copy_to_user(arg, &v.to_ne_bytes());
        match request {
            io::BLKGETSIZE64 => put_u64(self.dev.bytes())?,
            // In 512-byte units, whatever the sector size.
            io::BLKGETSIZE => put_u64(self.dev.sectors)?,
            io::BLKSSZGET => put_u32(driver.logical_block_size())?,
            io::BLKPBSZGET => put_u32(driver.physical_block_size())?,
            io::BLKIOMIN => put_u32(driver.physical_block_size())?,
            io::BLKBSZGET => put_u32(self.soft_block_size())?,
            io::BLKIOOPT | io::BLKALIGNOFF => put_u32(0)?,
            io::BLKROGET => put_u32(u32::from(self.dev.is_read_only()))?,
            io::BLKSECTGET => crate::uaccess::copy_to_user(arg, &((driver.max_transfer() / SECTOR) as u16).to_ne_bytes())?,
            // Read-ahead in sectors: Linux's default 128 KiB.
            io::BLKRAGET | io::BLKFRAGET => put_u64(256)?,
            io::BLKFLSBUF => {
                if !caller_is_admin() {
                    return Err(Errno::EACCES);
                }
                self.dev.flush()?;
            }
            io::BLKRRPART => {
                if !caller_is_admin() {
                    return Err(Errno::EACCES);
                }
                if !self.dev.is_disk() {
                    return Err(Errno::EINVAL);
                }
                // Busy while a partition is open (a mount holds it open),
                // or the disk is held by a mount or another O_EXCL opener
                // (the scan claims the disk, as Linux 6.1's).
                let busy = super::partitions(&self.dev.disk).iter().any(|p| is_open(p.rdev()) || crate::fs::mount::is_disk_mounted(p.rdev()))
                    || crate::fs::mount::is_disk_mounted(self.dev.rdev())
                    || (!self.exclusive && self.claims.exclusive.load(Ordering::Acquire));
                if busy {
                    return Err(Errno::EBUSY);
                }
                super::rescan(&self.dev.disk)?;
            }
            // Discarded sectors read back unspecified, not as zeros.
            io::BLKDISCARDZEROES => put_u32(0)?,
            io::BLKDISCARD | io::BLKSECDISCARD | io::BLKZEROOUT => {
                if !file.writable() {
                    return Err(Errno::EBADF);
                }
                if request == io::BLKZEROOUT {
                    return self.zero_out(arg);
                }
                // Secure erase is not something any driver here does.
                if request == io::BLKSECDISCARD || !driver.can_discard() {
                    return Err(Errno::EOPNOTSUPP);
                }
                let (start, len) = self.byte_range(arg)?;
                self.dev.discard(start / SECTOR as u64, len / SECTOR as u64)?;
            }
            HDIO_GETGEO => {
                if arg == 0 {
                    return Err(Errno::EINVAL);
                }
                let g = driver.geometry();
                let mut out = [0u8; 16];
                out[0] = g.heads;
                out[1] = g.sectors;
                out[2..4].copy_from_slice(&g.cylinders.to_ne_bytes());
                out[8..16].copy_from_slice(&self.dev.start.to_ne_bytes());
                crate::uaccess::copy_to_user(arg, &out)?;
            }
            _ => return Err(Errno::ENOTTY),
        }
        Ok(0)
    }
}

impl BlockFile {
    fn fallocate_range(&self, mode: u32, offset: u64, mut len: u64) -> Result<()> {
        let keep = abi::FALLOC_FL_KEEP_SIZE;
        if mode & !(keep | abi::FALLOC_FL_PUNCH_HOLE | abi::FALLOC_FL_ZERO_RANGE | abi::FALLOC_FL_NO_HIDE_STALE) != 0 {
            return Err(Errno::EOPNOTSUPP);
        }
        let size = self.dev.bytes();
        if offset >= size {
            return Err(Errno::EINVAL);
        }
        if offset + len - 1 >= size {
            if mode & keep == 0 {
                return Err(Errno::EINVAL);
            }
            len = size - offset;
        }
        let lbs = u64::from(self.dev.disk.driver.logical_block_size());
        if (offset | len) & (lbs - 1) != 0 {
            return Err(Errno::EINVAL);
        }
        let punch = abi::FALLOC_FL_PUNCH_HOLE | keep;
        if mode == abi::FALLOC_FL_ZERO_RANGE || mode == abi::FALLOC_FL_ZERO_RANGE | keep {
            return self.write_zeros(offset, len);
        }
        if len == 0 {
            return Ok(());
        }
        let sectors = (offset / SECTOR as u64, len / SECTOR as u64);
        if mode == punch {
            return self.dev.write_zeroes(sectors.0, sectors.1, true);
        }
        if mode == punch | abi::FALLOC_FL_NO_HIDE_STALE {
            if !self.dev.disk.driver.can_discard() {
                return Err(Errno::EOPNOTSUPP);
            }
            return self.dev.discard(sectors.0, sectors.1);
        }
        Err(Errno::EOPNOTSUPP)
    }

    /// The `uint64_t range[2]` (start, length in bytes) of BLKDISCARD and
    /// BLKZEROOUT: both multiples of 512, not empty and inside the device
    /// (without wrapping), else EINVAL, as Linux 6.1 answers both.
    fn byte_range(&self, arg: usize) -> Result<(u64, u64)> {
        let mut raw = [0u8; 16];
        crate::uaccess::copy_from_user(&mut raw, arg)?;
        let start = u64::from_ne_bytes(raw[..8].try_into().expect("8 bytes"));
        let len = u64::from_ne_bytes(raw[8..].try_into().expect("8 bytes"));
        let end = start.checked_add(len).ok_or(Errno::EINVAL)?;
        if start % SECTOR as u64 != 0 || len % SECTOR as u64 != 0 || len == 0 || end > self.dev.bytes() {
            return Err(Errno::EINVAL);
        }
        Ok((start, len))
    }

    /// BLKZEROOUT: writes zeros over `[start, start + len)` (both
    /// multiples of 512, inside the device: else EINVAL).
    fn zero_out(&self, arg: usize) -> Result<isize> {
        let (start, len) = self.byte_range(arg)?;
        self.write_zeros(start, len)?;
        Ok(0)
    }

    /// Makes bytes `[start, start + len)` (sector-aligned) read as zeros
    /// as Linux's blkdev_issue_zeroout without unmapping: the device's
    /// write-zeroes when it has it, else (or when it fails) zeros written.
    fn write_zeros(&self, start: u64, len: u64) -> Result<()> {
        if len == 0 {
            return Ok(());
        }
        if self.dev.disk.driver.write_zeroes_max_bytes() != 0 && self.dev.write_zeroes(start / SECTOR as u64, len / SECTOR as u64, false).is_ok() {
            return Ok(());
        }
        let end = start + len;
        let zeros = alloc::vec![0u8; CHUNK];
        let mut pos = start;
        while pos < end {
            let n = (end - pos).min(CHUNK as u64) as usize;
            self.dev.write_sectors(pos / SECTOR as u64, &zeros[..n])?;
            pos += n as u64;
            if crate::process::scheduler::current().is_some_and(|t| t.fatal_signal_pending()) {
                return Err(Errno::EINTR);
            }
        }
        Ok(())
    }
}
