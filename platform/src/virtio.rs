//! virtio devices on the PCI bus: what the `virtio-drivers` crate needs
//! from the platform, shared by the disk (`virtio_blk`) and network
//! (`net`) drivers.
//!
//! - PCI configuration access through the legacy I/O ports (0xcf8/0xcfc,
//!   which every x86 PC chipset QEMU models has, q35 included); only bus 0
//!   is scanned (where QEMU puts devices without a bridge).
//! - BARs are reached through the direct map (device memory below 4 GiB is
//!   mapped there, uncached).
//! - DMA goes through bounce frames: `share` copies the caller's buffer
//!   into fresh frames (whose physical address is known from the direct
//!   map) and `unshare` copies back, so buffers anywhere in kernel memory
//!   (stacks, the heap, the early heap in the kernel image) work and are
//!   never themselves the target of DMA.

use alloc::vec::Vec;
use core::ptr::NonNull;

use virtio_drivers::transport::pci::bus::{Command, ConfigurationAccess, DeviceFunction, PciRoot};
use virtio_drivers::transport::pci::{virtio_device_type, PciTransport};
use virtio_drivers::transport::DeviceType;
use virtio_drivers::{BufferDirection, Hal};

use crate::arch::x86_64::io::{inl, outl};
use crate::mm::addr::{PhysAddr, DIRECT_MAP_BASE, PAGE_SIZE};
use crate::mm::pmm;
use crate::sync::SpinLock;

/// I/O port selecting a configuration register (PCI configuration
/// mechanism #1).
const CONFIG_ADDRESS: u16 = 0xcf8;
/// I/O port holding the selected register's value.
const CONFIG_DATA: u16 = 0xcfc;

/// Serialises the address/data port pair: a selection by one CPU must not
/// be replaced by another's before the data access.
static CONFIG_LOCK: SpinLock<()> = SpinLock::new(());

/// PCI configuration space through I/O ports 0xcf8/0xcfc.
pub(crate) struct PortConfigAccess;

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
pub(crate) fn direct_map_end() -> u64 {
    pmm::max_phys_addr().max(4 << 30).next_multiple_of(1 << 30)
}

/// DMA memory and MMIO mappings for virtio-drivers.
pub(crate) struct PlatformHal;

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

/// The number Linux gives the virtio device at `df` (virtioN): its rank
/// among the virtio devices of bus 0 in enumeration order.
pub(crate) fn virtio_rank(df: DeviceFunction) -> usize {
    let root = PciRoot::new(PortConfigAccess);
    root.enumerate_bus(0)
        .filter(|(_, info)| virtio_device_type(info).is_some())
        .take_while(|(d, _)| (d.bus, d.device, d.function) != (df.bus, df.device, df.function))
        .count()
}

/// Finds the virtio devices of `kind` on PCI bus 0, in slot order, turns on
/// memory decoding (for the BARs the firmware assigned) and bus mastering
/// (for the virtqueues' DMA), and returns their transports. A device whose
/// transport cannot be set up is logged and skipped.
pub(crate) fn transports(kind: DeviceType, name: &str) -> Vec<(DeviceFunction, PciTransport)> {
    let mut root = PciRoot::new(PortConfigAccess);
    let found: Vec<_> = root.enumerate_bus(0).filter(|(_, info)| virtio_device_type(info) == Some(kind)).map(|(df, _)| df).collect();
    let mut out = Vec::new();
    for df in found {
        root.set_command(df, Command::IO_SPACE | Command::MEMORY_SPACE | Command::BUS_MASTER);
        match PciTransport::new::<PlatformHal, _>(&mut root, df) {
            Ok(transport) => out.push((df, transport)),
            Err(e) => log::warn!("{} at {}: {:?}", name, df, e),
        }
    }
    out
}
