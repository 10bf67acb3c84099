//! The virtio-blk request queue: a split virtqueue (virtio 1.1, 2.6) over
//! the `virtio-drivers` crate's PCI transport, with every request type the
//! block layer sends: read, write, flush, and the discard and write-zeroes
//! requests (VIRTIO_BLK_T_DISCARD, VIRTIO_BLK_T_WRITE_ZEROES) that the
//! crate's own `VirtIOBlk` can neither negotiate nor send (no release of
//! the crate has them, and its virtqueue type is private).
//!
//! Layout: one zeroed page holds the descriptor table, the available ring
//! and the used ring. A request takes one of [`DEPTH`] slots, and slot `r`
//! always uses the three descriptors `3r` (the 16-byte request header,
//! device-readable), `3r + 1` (the data: the sectors read or written, or
//! the `struct virtio_blk_discard_write_zeroes` segment) and `3r + 2` (the
//! status byte, device-writable); a flush has no data and chains the
//! header straight to the status. The head descriptor's index is the
//! request's token. Header, data and status live in one bounce block of
//! fresh frames owned by the slot until the request is collected, so the
//! caller's buffers are never the target of DMA.

use alloc::vec::Vec;
use core::sync::atomic::{fence, Ordering};

use virtio_drivers::transport::pci::PciTransport;
use virtio_drivers::transport::{DeviceStatus, Transport};

use crate::mm::pmm::FrameBlock;

/// The only request queue of the disk.
const QUEUE: u16 = 0;
/// Descriptors in the ring (a power of two, as split rings require).
const RING: u16 = 64;
/// Requests in flight at most (three descriptors each).
pub(crate) const DEPTH: usize = 16;

/// virtq_desc.flags: the chain continues at `next`; the device writes.
const DESC_F_NEXT: u16 = 1;
const DESC_F_WRITE: u16 = 2;
/// virtq_avail.flags: no interrupts on completion, please.
const AVAIL_F_NO_INTERRUPT: u16 = 1;
/// virtq_used.flags: the device does not need to be notified.
const USED_F_NO_NOTIFY: u16 = 1;

/// Where the rings sit in the queue's page.
const DESC_AT: usize = 0;
const AVAIL_AT: usize = 16 * RING as usize;
const USED_AT: usize = 2048;

/// The feature bits this driver accepts (virtio 1.1, 5.2.3 and 6): a
/// read-only disk, flush, discard, write-zeroes, and the modern interface.
pub(crate) const F_RO: u64 = 1 << 5;
pub(crate) const F_FLUSH: u64 = 1 << 9;
pub(crate) const F_DISCARD: u64 = 1 << 13;
pub(crate) const F_WRITE_ZEROES: u64 = 1 << 14;
const F_VERSION_1: u64 = 1 << 32;
const ACCEPTED: u64 = F_RO | F_FLUSH | F_DISCARD | F_WRITE_ZEROES | F_VERSION_1;

/// Request types (virtio 1.1, 5.2.6).
const T_IN: u32 = 0;
const T_OUT: u32 = 1;
const T_FLUSH: u32 = 4;
const T_DISCARD: u32 = 11;
const T_WRITE_ZEROES: u32 = 13;
/// virtio_blk_discard_write_zeroes.flags: the device may deallocate.
const WRITE_ZEROES_FLAG_UNMAP: u32 = 1;

/// Status byte values; NOT_DONE is what the driver leaves there.
pub(crate) const S_OK: u8 = 0;
pub(crate) const S_UNSUPP: u8 = 2;
const NOT_DONE: u8 = 0xff;

/// Bytes of the request header and of one discard/write-zeroes segment.
const HEADER: usize = 16;
const SEGMENT: usize = 16;

/// What a request asks the device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Read sectors into the data.
    Read,
    /// Write the data's sectors.
    Write,
    /// Make completed writes durable.
    Flush,
    /// Forget `count` sectors.
    Discard { count: u32 },
    /// Make `count` sectors read as zeros, deallocating them if `unmap`.
    WriteZeroes { count: u32, unmap: bool },
}

/// A request the device holds.
struct InFlight {
    kind: Kind,
    /// Header, data, status, in that order.
    bounce: FrameBlock,
    data_len: usize,
}

/// Why a request could not be posted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PostError {
    /// Every slot is taken.
    Full,
    /// No memory for the bounce block, or a data length too large.
    NoMemory,
}

/// Why the device could not be set up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum InitError {
    /// The device refused the features (FEATURES_OK did not stick).
    Features,
    /// Its queue 0 is too small, or already in use.
    Queue,
    /// No memory for the rings.
    NoMemory,
}

/// One virtio-blk device's transport and request queue.
pub(crate) struct BlkQueue {
    transport: PciTransport,
    /// The descriptor table and both rings.
    rings: FrameBlock,
    slots: [Option<InFlight>; DEPTH],
    /// The next free entry of the available ring, and the next used entry
    /// to collect (both free-running, as the device's indices).
    avail_idx: u16,
    last_used: u16,
    features: u64,
}

// Finished requests: (token, kind, data (read back for reads), status).
pub(crate) type Done = (u16, Kind, Vec<u8>, u8);

impl BlkQueue {
    /// Resets the device, negotiates the features of [`ACCEPTED`] it
    /// offers, sets queue 0 up and tells the device the driver is ready
    /// (virtio 1.1, 3.1.1).
    pub(crate) fn new(mut transport: PciTransport) -> Result<Self, InitError> {
        transport.set_status(DeviceStatus::empty());
        transport.set_status(DeviceStatus::ACKNOWLEDGE | DeviceStatus::DRIVER);
        let features = transport.read_device_features() & ACCEPTED;
        transport.write_driver_features(features);
        let status = DeviceStatus::ACKNOWLEDGE | DeviceStatus::DRIVER | DeviceStatus::FEATURES_OK;
        transport.set_status(status);
        if !transport.get_status().contains(DeviceStatus::FEATURES_OK) {
            transport.set_status(DeviceStatus::FAILED);
            return Err(InitError::Features);
        }
        if transport.queue_used(QUEUE) || transport.max_queue_size(QUEUE) < u32::from(RING) {
            transport.set_status(DeviceStatus::FAILED);
            return Err(InitError::Queue);
        }
        let Some(rings) = FrameBlock::alloc_zeroed(0) else {
            transport.set_status(DeviceStatus::FAILED);
            return Err(InitError::NoMemory);
        };
        let pa = rings.phys_addr().as_u64() as usize;
        transport.queue_set(QUEUE, u32::from(RING), pa + DESC_AT, pa + AVAIL_AT, pa + USED_AT);
        transport.set_status(status | DeviceStatus::DRIVER_OK);
        Ok(BlkQueue { transport, rings, slots: Default::default(), avail_idx: 0, last_used: 0, features })
    }

    /// The negotiated feature bits.
    pub(crate) fn features(&self) -> u64 {
        self.features
    }

    /// Reads the device's configuration space at `offset`.
    pub(crate) fn config_u32(&self, offset: usize) -> u32 {
        self.transport.read_config_space::<u32>(offset).unwrap_or(0)
    }

    /// Requests completions by interrupt (or not).
    pub(crate) fn set_interrupts(&mut self, on: bool) {
        self.write16(AVAIL_AT, if on { 0 } else { AVAIL_F_NO_INTERRUPT });
    }

    fn ring_va(&self, offset: usize) -> usize {
        self.rings.phys_addr().direct_map() + offset
    }

    fn write16(&mut self, offset: usize, value: u16) {
        // SAFETY: `offset` is inside the rings' page (owned by `self`,
        // mapped by the direct map) and 2-byte aligned; the device reads
        // this memory concurrently, hence the volatile access.
        unsafe { core::ptr::write_volatile(self.ring_va(offset) as *mut u16, value) }
    }

    fn read16(&self, offset: usize) -> u16 {
        // SAFETY: as in `write16`; the device writes the used ring
        // concurrently, hence the volatile access.
        unsafe { core::ptr::read_volatile(self.ring_va(offset) as *const u16) }
    }

    fn read32(&self, offset: usize) -> u32 {
        // SAFETY: as in `read16`, 4-byte aligned.
        unsafe { core::ptr::read_volatile(self.ring_va(offset) as *const u32) }
    }

    fn write_desc(&mut self, index: usize, addr: u64, len: u32, flags: u16, next: u16) {
        let at = self.ring_va(DESC_AT + 16 * index);
        // SAFETY: descriptor `index` (< RING) lies inside the rings' page
        // (16-byte aligned entries); the device reads it only after the
        // available ring names its chain, which happens after this write
        // (a release fence in `post`).
        unsafe {
            core::ptr::write_volatile(at as *mut u64, addr);
            core::ptr::write_volatile((at + 8) as *mut u32, len);
            core::ptr::write_volatile((at + 12) as *mut u16, flags);
            core::ptr::write_volatile((at + 14) as *mut u16, next);
        }
    }

    /// Posts a request for `sector` with `data` (the sectors to write, or
    /// as many bytes as a read fills; empty for the other kinds) and
    /// returns its token.
    pub(crate) fn post(&mut self, kind: Kind, sector: u64, data: &[u8], read_len: usize) -> Result<u16, PostError> {
        let slot = self.slots.iter().position(|s| s.is_none()).ok_or(PostError::Full)?;
        let (ty, data_len) = match kind {
            Kind::Read => (T_IN, read_len),
            Kind::Write => (T_OUT, data.len()),
            Kind::Flush => (T_FLUSH, 0),
            Kind::Discard { .. } => (T_DISCARD, SEGMENT),
            Kind::WriteZeroes { .. } => (T_WRITE_ZEROES, SEGMENT),
        };
        let total = HEADER.checked_add(data_len).and_then(|n| n.checked_add(1)).ok_or(PostError::NoMemory)?;
        let len32 = u32::try_from(data_len).map_err(|_| PostError::NoMemory)?;
        let order = total.div_ceil(crate::mm::addr::PAGE_SIZE).next_power_of_two().trailing_zeros() as usize;
        let mut bounce = FrameBlock::alloc_uninit(order).ok_or(PostError::NoMemory)?;
        let bytes = bounce.as_mut_slice();
        bytes[..4].copy_from_slice(&ty.to_le_bytes());
        bytes[4..8].fill(0);
        // The header's sector is unused by discards and write-zeroes (the
        // segment says where); flushes send 0.
        let header_sector = if matches!(kind, Kind::Read | Kind::Write) { sector } else { 0 };
        bytes[8..16].copy_from_slice(&header_sector.to_le_bytes());
        let body = &mut bytes[HEADER..HEADER + data_len];
        match kind {
            Kind::Write => body.copy_from_slice(data),
            Kind::Read | Kind::Flush => {}
            Kind::Discard { count } | Kind::WriteZeroes { count, .. } => {
                let flags = if let Kind::WriteZeroes { unmap: true, .. } = kind { WRITE_ZEROES_FLAG_UNMAP } else { 0 };
                body[..8].copy_from_slice(&sector.to_le_bytes());
                body[8..12].copy_from_slice(&count.to_le_bytes());
                body[12..16].copy_from_slice(&flags.to_le_bytes());
            }
        }
        bytes[HEADER + data_len] = NOT_DONE;
        let pa = bounce.phys_addr().as_u64();
        let head = 3 * slot;
        let (d, s) = (head as u16 + 1, head as u16 + 2);
        if data_len == 0 {
            self.write_desc(head, pa, HEADER as u32, DESC_F_NEXT, s);
        } else {
            self.write_desc(head, pa, HEADER as u32, DESC_F_NEXT, d);
            let write = if kind == Kind::Read { DESC_F_WRITE } else { 0 };
            self.write_desc(head + 1, pa + HEADER as u64, len32, DESC_F_NEXT | write, s);
        }
        self.write_desc(head + 2, pa + (HEADER + data_len) as u64, 1, DESC_F_WRITE, 0);
        self.slots[slot] = Some(InFlight { kind, bounce, data_len });
        let entry = AVAIL_AT + 4 + 2 * usize::from(self.avail_idx % RING);
        self.write16(entry, head as u16);
        // The descriptors and ring entry before the index that publishes
        // them, and the index before the look at the device's flags.
        fence(Ordering::SeqCst);
        self.avail_idx = self.avail_idx.wrapping_add(1);
        self.write16(AVAIL_AT + 2, self.avail_idx);
        fence(Ordering::SeqCst);
        if self.read16(USED_AT) & USED_F_NO_NOTIFY == 0 {
            self.transport.notify(QUEUE);
        }
        Ok(head as u16)
    }

    /// The token of the next finished request, if any, without taking it.
    pub(crate) fn peek_used(&self) -> Option<u16> {
        if self.read16(USED_AT + 2) == self.last_used {
            return None;
        }
        fence(Ordering::Acquire);
        Some(self.read32(USED_AT + 4 + 8 * usize::from(self.last_used % RING)) as u16)
    }

    /// Takes the next finished request: its token, kind, data (what a
    /// read brought; empty otherwise) and status byte.
    pub(crate) fn pop_used(&mut self) -> Option<Done> {
        let token = self.peek_used()?;
        self.last_used = self.last_used.wrapping_add(1);
        let slot = usize::from(token) / 3;
        let Some(done) = self.slots.get_mut(slot).and_then(Option::take) else {
            log::error!("virtio-blk: the device finished unknown request {}", token);
            return Some((token, Kind::Flush, Vec::new(), 1));
        };
        let bytes = done.bounce.as_slice();
        let status = bytes[HEADER + done.data_len];
        let data = if done.kind == Kind::Read { bytes[HEADER..HEADER + done.data_len].to_vec() } else { Vec::new() };
        Some((token, done.kind, data, status))
    }
}

impl Drop for BlkQueue {
    /// Resets the device before the rings and bounce blocks are freed, so
    /// it never touches them after (virtio 1.1, 2.1.2).
    fn drop(&mut self) {
        self.transport.set_status(DeviceStatus::empty());
    }
}
