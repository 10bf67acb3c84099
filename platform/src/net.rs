//! The virtio network card (virtio-net over PCI), driven by the
//! `virtio-drivers` crate (PCI access, BARs and DMA memory are
//! `crate::virtio`'s). The kernel gets a safe [`NetDevice`] that sends and
//! receives Ethernet frames; it polls it (no interrupt is used).

use alloc::vec::Vec;

use virtio_drivers::device::net::VirtIONet;
use virtio_drivers::transport::pci::PciTransport;
use virtio_drivers::transport::{DeviceType, Transport};

use crate::virtio::{transports, PlatformHal};

/// Receive buffers in the ring, and each one's size (an Ethernet frame
/// with the virtio header fits).
const QUEUE_SIZE: usize = 16;
const RX_BUFFER_LEN: usize = 2048;

/// A virtio network card.
pub struct NetDevice {
    inner: VirtIONet<PlatformHal, PciTransport, QUEUE_SIZE>,
    /// Where the card is: (bus, slot, function) on PCI.
    pub location: (u8, u8, u8),
    /// Its number among the virtio devices (Linux's `virtioN`).
    pub virtio_index: usize,
}

impl NetDevice {
    /// Finds the first virtio network card on PCI bus 0 and starts it.
    pub fn probe() -> Option<NetDevice> {
        let (df, transport) = transports(DeviceType::Network, "virtio-net").into_iter().next()?;
        let location = (df.bus, df.device, df.function);
        let virtio_index = crate::virtio::virtio_rank(df);
        if transport.device_type() != DeviceType::Network {
            return None;
        }
        match VirtIONet::new(transport, RX_BUFFER_LEN) {
            Ok(inner) => Some(NetDevice { inner, location, virtio_index }),
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
