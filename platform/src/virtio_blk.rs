//! virtio-blk disks on the PCI bus, driven by the `virtio-drivers` crate.
//!
//! This module is the hardware side of block devices: PCI configuration
//! access through the legacy I/O ports (0xcf8/0xcfc, which every x86 PC
//! chipset QEMU models has, q35 included), mapping of the devices' BARs
//! through the direct map, and DMA memory. The kernel gets
//! [`VirtioBlk`]s with safe `read`/`write`/`flush` and puts its block-device
//! trait on top.
//!
//! - **Completion is polled**: a request is posted and the CPU spins on the
//!   used ring with the disk's lock held (device interrupts are turned
//!   off). Requests are short and the lock keeps one request in flight per
//!   disk, so several CPUs may call in at once. Interrupt-driven
//!   completion with the caller sleeping is the next step when disks get
//!   busy.
//! - **DMA** goes through bounce pages: `share` copies the caller's buffer
//!   into fresh frames (whose physical address is known from the direct
//!   map) and `unshare` copies back, so buffers anywhere in kernel memory
//!   (stacks, the early heap in the kernel image) work.
//! - Only bus 0 is scanned (where QEMU puts devices without a bridge).

use alloc::vec::Vec;
use core::ptr::NonNull;

use virtio_drivers::device::blk::{VirtIOBlk, SECTOR_SIZE};
use virtio_drivers::transport::pci::bus::{Command, ConfigurationAccess, DeviceFunction, PciRoot};
use virtio_drivers::transport::pci::{virtio_device_type, PciTransport};
use virtio_drivers::transport::DeviceType;
use virtio_drivers::{BufferDirection, Hal};

use crate::arch::x86_64::io::{inl, outl};
use crate::mm::addr::{PhysAddr, DIRECT_MAP_BASE, PAGE_SIZE};
use crate::mm::pmm;
use crate::sync::SpinLock;

/// Bytes in one sector, the unit of every transfer.
pub const SECTOR_BYTES: usize = SECTOR_SIZE;

/// I/O port selecting a configuration register (PCI configuration
/// mechanism #1).
const CONFIG_ADDRESS: u16 = 0xcf8;
/// I/O port holding the selected register's value.
const CONFIG_DATA: u16 = 0xcfc;

/// Serialises the address/data port pair: a selection by one CPU must not
/// be replaced by another's before the data access.
static CONFIG_LOCK: SpinLock<()> = SpinLock::new(());

/// PCI configuration space through I/O ports 0xcf8/0xcfc.
pub struct PortConfigAccess;

impl PortConfigAccess {
    fn address(df: DeviceFunction, offset: u8) -> u32 {
        1 << 31 | u32::from(df.bus) << 16 | u32::from(df.device) << 11 | u32::from(df.function) << 8 | u32::from(offset & 0xfc)
    }
}

impl ConfigurationAccess for PortConfigAccess {
    fn read_word(&self, df: DeviceFunction, offset: u8) -> u32 {
        let _guard = CONFIG_LOCK.lock();
        outl(CONFIG_ADDRESS, Self::address(df, offset));
        inl(CONFIG_DATA)
    }

    fn write_word(&mut self, df: DeviceFunction, offset: u8, data: u32) {
        let _guard = CONFIG_LOCK.lock();
        outl(CONFIG_ADDRESS, Self::address(df, offset));
        outl(CONFIG_DATA, data);
    }

    unsafe fn unsafe_clone(&self) -> Self {
        PortConfigAccess
    }
}

/// Returns the smallest buddy order holding `bytes`.
fn order_for(bytes: usize) -> usize {
    bytes.max(1).div_ceil(PAGE_SIZE).next_power_of_two().trailing_zeros() as usize
}

/// The end of the part of the direct map that is mapped (RAM, or 4 GiB of
/// device space below it).
fn direct_map_end() -> u64 {
    pmm::max_phys_addr().max(4 << 30).next_multiple_of(1 << 30)
}

/// DMA memory and MMIO mappings for virtio-drivers.
pub struct PlatformHal;

// SAFETY: dma_alloc hands out zeroed frames owned by no one else (fresh from
// the frame allocator), page aligned, through their direct-map address;
// mmio_phys_to_virt returns the direct-map (uncached below 4 GiB) address
// of a BAR, which nothing else maps as memory; share/unshare use bounce
// frames that only the device and this code touch between the two calls.
unsafe impl Hal for PlatformHal {
    fn dma_alloc(pages: usize, _direction: BufferDirection) -> (virtio_drivers::PhysAddr, NonNull<u8>) {
        let block = pmm::FrameBlock::alloc_zeroed(order_for(pages * PAGE_SIZE)).expect("virtio: out of memory for a virtqueue");
        let pa = block.into_phys();
        let va = NonNull::new(pa.direct_map() as *mut u8).expect("direct-map address is not null");
        (pa.as_u64() as usize, va)
    }

    unsafe fn dma_dealloc(paddr: virtio_drivers::PhysAddr, _vaddr: NonNull<u8>, pages: usize) -> i32 {
        pmm::free(PhysAddr::new(paddr as u64), order_for(pages * PAGE_SIZE));
        0
    }

    unsafe fn mmio_phys_to_virt(paddr: virtio_drivers::PhysAddr, size: usize) -> NonNull<u8> {
        assert!((paddr as u64).saturating_add(size as u64) <= direct_map_end(), "virtio: BAR at {:#x} is beyond the direct map", paddr);
        NonNull::new((DIRECT_MAP_BASE + paddr) as *mut u8).expect("direct-map address is not null")
    }

    unsafe fn share(buffer: NonNull<[u8]>, direction: BufferDirection) -> virtio_drivers::PhysAddr {
        let len = buffer.len();
        let mut bounce = pmm::FrameBlock::alloc_uninit(order_for(len)).expect("virtio: out of memory for a bounce buffer");
        if !matches!(direction, BufferDirection::DeviceToDriver) {
            // SAFETY: the caller guarantees `buffer` is valid and not
            // accessed by anyone else during this call.
            let src = unsafe { buffer.as_ref() };
            bounce.as_mut_slice()[..len].copy_from_slice(src);
        }
        bounce.into_phys().as_u64() as usize
    }

    unsafe fn unshare(paddr: virtio_drivers::PhysAddr, mut buffer: NonNull<[u8]>, direction: BufferDirection) {
        let len = buffer.len();
        let pa = PhysAddr::new(paddr as u64);
        if !matches!(direction, BufferDirection::DriverToDevice) {
            // SAFETY: `pa` is the bounce block `share` allocated for this
            // buffer, still owned here and mapped by the direct map; the
            // caller guarantees `buffer` is valid and exclusively ours.
            unsafe {
                let src = core::slice::from_raw_parts(pa.direct_map() as *const u8, len);
                buffer.as_mut().copy_from_slice(src);
            }
        }
        pmm::free(pa, order_for(len));
    }
}

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

/// One virtio-blk disk.
pub struct VirtioBlk {
    device: SpinLock<Device>,
    sectors: u64,
    read_only: bool,
    /// Where it sits on the PCI bus (bus, device, function).
    pub location: (u8, u8, u8),
}

impl VirtioBlk {
    /// Returns the disk's size in sectors.
    pub fn sector_count(&self) -> u64 {
        self.sectors
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
    let mut root = PciRoot::new(PortConfigAccess);
    let found: Vec<_> = root.enumerate_bus(0).filter(|(_, info)| virtio_device_type(info) == Some(DeviceType::Block)).map(|(df, _)| df).collect();
    let mut disks = Vec::new();
    for df in found {
        // Memory decoding for the BARs the firmware assigned, and bus
        // mastering for the virtqueues' DMA.
        root.set_command(df, Command::IO_SPACE | Command::MEMORY_SPACE | Command::BUS_MASTER);
        let transport = match PciTransport::new::<PlatformHal, _>(&mut root, df) {
            Ok(t) => t,
            Err(e) => {
                log::warn!("virtio-blk at {}: {:?}", df, e);
                continue;
            }
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
        disks.push(VirtioBlk { device: SpinLock::new(Device(blk)), sectors, read_only, location: (df.bus, df.device, df.function) });
    }
    disks
}
