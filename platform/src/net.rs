//! The virtio network card (virtio-net over PCI), driven by the
//! `virtio-drivers` crate: PCI configuration space through the legacy
//! 0xcf8/0xcfc ports, BARs reached through the direct map (which covers
//! device memory below 4 GiB, uncached), and DMA memory from the frame
//! allocator. The kernel gets a safe [`NetDevice`] that sends and receives
//! Ethernet frames; it polls it (no interrupt is used).

use alloc::collections::BTreeMap;
use alloc::vec::Vec;
use core::ptr::NonNull;

use virtio_drivers::device::net::VirtIONet;
use virtio_drivers::transport::pci::bus::{Command, ConfigurationAccess, DeviceFunction, PciRoot};
use virtio_drivers::transport::pci::{virtio_device_type, PciTransport};
use virtio_drivers::transport::{DeviceType, Transport};
use virtio_drivers::{BufferDirection, Hal};

use crate::arch::x86_64::io::{inl, outl};
use crate::mm::addr::{PhysAddr, PAGE_SIZE};
use crate::mm::pmm::{self, FrameBlock};
use crate::sync::SpinLock;

const CONFIG_ADDRESS: u16 = 0xcf8;
const CONFIG_DATA: u16 = 0xcfc;
/// Receive buffers in the ring, and each one's size (an Ethernet frame
/// with the virtio header fits).
const QUEUE_SIZE: usize = 16;
const RX_BUFFER_LEN: usize = 2048;
/// Device memory beyond this is not in the direct map.
const DIRECT_MAPPED_MMIO_END: usize = 1 << 32;

/// Serialises the two-step configuration-space access.
static CONFIG_LOCK: SpinLock<()> = SpinLock::new(());

/// PCI configuration mechanism #1 (I/O ports), which q35 keeps.
struct PortCam;

fn config_address(df: DeviceFunction, offset: u8) -> u32 {
    0x8000_0000 | (df.bus as u32) << 16 | (df.device as u32) << 11 | (df.function as u32) << 8 | (offset as u32 & 0xfc)
}

impl ConfigurationAccess for PortCam {
    fn read_word(&self, df: DeviceFunction, offset: u8) -> u32 {
        let _guard = CONFIG_LOCK.lock();
        outl(CONFIG_ADDRESS, config_address(df, offset));
        inl(CONFIG_DATA)
    }

    fn write_word(&mut self, df: DeviceFunction, offset: u8, data: u32) {
        let _guard = CONFIG_LOCK.lock();
        outl(CONFIG_ADDRESS, config_address(df, offset));
        outl(CONFIG_DATA, data);
    }

    unsafe fn unsafe_clone(&self) -> Self {
        PortCam
    }
}

/// Blocks of frames lent to the device to stand in for driver buffers,
/// by physical address: (the block, where the driver's buffer is, its
/// length).
static BOUNCE: SpinLock<BTreeMap<usize, (FrameBlock, usize, usize)>> = SpinLock::new(BTreeMap::new());

fn order_for(bytes: usize) -> usize {
    bytes.div_ceil(PAGE_SIZE).max(1).next_power_of_two().trailing_zeros() as usize
}

/// What virtio-drivers needs from the platform.
struct KevlarHal;

// SAFETY: dma_alloc hands out zeroed, physically contiguous blocks owned by
// the device until dma_dealloc; share gives the device a bounce block that
// no one else uses until unshare, so the driver's buffer (wherever it lives:
// heap, stack) is never the target of DMA.
unsafe impl Hal for KevlarHal {
    fn dma_alloc(pages: usize, _direction: BufferDirection) -> (virtio_drivers::PhysAddr, NonNull<u8>) {
        let block = FrameBlock::alloc_zeroed(order_for(pages * PAGE_SIZE)).expect("virtio: no memory for a queue");
        let pa = block.into_phys();
        let va = NonNull::new(pa.direct_map() as *mut u8).expect("direct map address is not null");
        (pa.as_u64() as usize, va)
    }

    unsafe fn dma_dealloc(paddr: virtio_drivers::PhysAddr, _vaddr: NonNull<u8>, pages: usize) -> i32 {
        pmm::free(PhysAddr::new(paddr as u64), order_for(pages * PAGE_SIZE));
        0
    }

    unsafe fn mmio_phys_to_virt(paddr: virtio_drivers::PhysAddr, size: usize) -> NonNull<u8> {
        assert!(paddr + size <= DIRECT_MAPPED_MMIO_END, "virtio: BAR at {:#x} is above the direct-mapped device memory", paddr);
        NonNull::new(PhysAddr::new(paddr as u64).direct_map() as *mut u8).expect("direct map address is not null")
    }

    unsafe fn share(buffer: NonNull<[u8]>, direction: BufferDirection) -> virtio_drivers::PhysAddr {
        let len = buffer.len();
        let mut block = FrameBlock::alloc_zeroed(order_for(len)).expect("virtio: no memory for a bounce buffer");
        if direction != BufferDirection::DeviceToDriver {
            // SAFETY: virtio-drivers passes a buffer valid for reads of its
            // length until unshare (the Hal contract).
            let src = unsafe { core::slice::from_raw_parts(buffer.as_ptr() as *const u8, len) };
            block.as_mut_slice()[..len].copy_from_slice(src);
        }
        let pa = block.phys_addr().as_u64() as usize;
        BOUNCE.lock().insert(pa, (block, buffer.as_ptr() as *mut u8 as usize, len));
        pa
    }

    unsafe fn unshare(paddr: virtio_drivers::PhysAddr, buffer: NonNull<[u8]>, direction: BufferDirection) {
        let Some((block, _, len)) = BOUNCE.lock().remove(&paddr) else { return };
        if direction != BufferDirection::DriverToDevice {
            // SAFETY: the same buffer share() was given, valid for writes of
            // its length until now (the Hal contract); the device is done
            // with the bounce block.
            let dst = unsafe { core::slice::from_raw_parts_mut(buffer.as_ptr() as *mut u8, len) };
            dst.copy_from_slice(&block.as_slice()[..len]);
        }
    }
}

/// A virtio network card.
pub struct NetDevice {
    inner: VirtIONet<KevlarHal, PciTransport, QUEUE_SIZE>,
}

impl NetDevice {
    /// Finds the first virtio network card on PCI bus 0 and starts it.
    pub fn probe() -> Option<NetDevice> {
        let mut root = PciRoot::new(PortCam);
        let found = root.enumerate_bus(0).find(|(_, info)| virtio_device_type(info) == Some(DeviceType::Network))?;
        let df = found.0;
        let (_, command) = root.get_status_command(df);
        root.set_command(df, command | Command::MEMORY_SPACE | Command::BUS_MASTER);
        let transport = match PciTransport::new::<KevlarHal, PortCam>(&mut root, df) {
            Ok(t) => t,
            Err(e) => {
                log::warn!("virtio-net: {:?}", e);
                return None;
            }
        };
        if transport.device_type() != DeviceType::Network {
            return None;
        }
        match VirtIONet::new(transport, RX_BUFFER_LEN) {
            Ok(inner) => Some(NetDevice { inner }),
            Err(e) => {
                log::warn!("virtio-net: {:?}", e);
                None
            }
        }
    }

    /// Returns the card's MAC address.
    pub fn mac(&self) -> [u8; 6] {
        self.inner.mac_address()
    }

    /// Sends one Ethernet frame; returns false when the card refused it.
    pub fn send(&mut self, frame: &[u8]) -> bool {
        let mut tx = self.inner.new_tx_buffer(frame.len());
        tx.packet_mut().copy_from_slice(frame);
        self.inner.send(tx).is_ok()
    }

    /// Takes one received Ethernet frame, if any.
    pub fn receive(&mut self) -> Option<Vec<u8>> {
        let rx = self.inner.receive().ok()?;
        let frame = rx.packet().to_vec();
        let _ = self.inner.recycle_rx_buffer(rx);
        Some(frame)
    }
}
