//! virtio-blk disks on the PCI bus, driven by the `virtio-drivers` crate.
//!
//! This module is the hardware side of block devices (PCI access, BARs and
//! DMA memory are `crate::virtio`'s). The kernel gets [`VirtioBlk`]s with
//! safe `submit`/`wait` (several requests in flight) and blocking
//! `read`/`write`/`flush` built on them, and puts its block-device trait on
//! top.
//!
//! - **Several requests in flight**: [`VirtioBlk::submit`] posts a request
//!   and returns at once with a ticket; the virtqueue holds up to
//!   [`VirtioBlk::queue_depth`] of them (16, the crate's ring, one
//!   descriptor each with indirect descriptors), from any number of CPUs.
//!   The disk's lock is held only to post a request or to collect the
//!   finished ones from the used ring, never while the device works.
//! - **Completion by interrupt**: the device signals completions with an
//!   MSI-X message (vector [`crate::x86::trap::vectors::VIRTIO_BLK`], sent
//!   to the boot CPU). The handler only counts it and wakes the CPUs that
//!   wait for a disk (an IPI). A waiting CPU polls the used ring (without
//!   the lock held between looks); with a poll limit set at boot
//!   ([`set_poll_limit_ns`], `virtio_blk.poll_us=`) it then halts (HLT,
//!   interrupts on) until the interrupt, so under TCG the vCPU leaves the
//!   host's CPUs to QEMU's own I/O. Not the default: see [`SPIN_NS`]. Whoever waits collects every finished
//!   request (its own and the others'), so completions are never lost.
//!   Without MSI-X (or with interrupts off in the caller) waiting spins
//!   as before.
//! - **Flush** (VIRTIO_BLK_T_FLUSH) is sent once nothing else is in
//!   flight, with the lock held until it completes.
//! - **Discard and write-zeroes** (VIRTIO_BLK_T_DISCARD,
//!   VIRTIO_BLK_T_WRITE_ZEROES) are negotiated when the device offers them
//!   and sent like reads and writes ([`VirtioBlk::discard`],
//!   [`VirtioBlk::write_zeroes`]), cut to the device's limits.
//!
//! The requests go through our own split virtqueue (`crate::virtq`): the
//! `virtio-drivers` crate supplies the PCI transport only, since its
//! `VirtIOBlk` can send neither discards nor write-zeroes.

use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::vec::Vec;
use core::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use virtio_drivers::transport::pci::bus::{ConfigurationAccess, DeviceFunction};
use virtio_drivers::transport::{DeviceType, Transport};

use crate::arch::interrupts;
use crate::arch::x86_64::{percpu, trap::vectors};
use crate::mm::addr::PhysAddr;
use crate::sync::SpinLock;
use crate::virtio::{transports, PortConfigAccess};
use crate::virtq::{BlkQueue, Kind, PostError, S_OK, S_UNSUPP};

/// Bytes in one sector, the unit of every transfer.
pub const SECTOR_BYTES: usize = 512;

/// Why a disk request failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlkError {
    /// The buffer is empty or not a whole number of sectors.
    BadLength,
    /// The request goes past the end of the disk.
    OutOfRange,
    /// The disk is read-only.
    ReadOnly,
    /// The device reported an error.
    Io,
    /// The device does not support the request (VIRTIO_BLK_S_UNSUPP, or a
    /// feature it did not offer).
    Unsupported,
    /// The virtqueue is full: wait for a completion and submit again.
    Busy,
}

/// What a request does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlkOp {
    /// Reads sectors into the buffer.
    Read,
    /// Writes the buffer's sectors.
    Write,
}

/// A request the device holds: the caller's buffer waits here (the device
/// works on the queue's bounce copy) until it is collected.
struct Slot {
    id: u64,
    buf: Vec<u8>,
}

struct Device {
    blk: BlkQueue,
    /// Requests the device holds, by the virtqueue's token.
    in_flight: BTreeMap<u16, Box<Slot>>,
    /// Finished requests not yet taken by their submitter, by ticket.
    done: BTreeMap<u64, (Vec<u8>, Result<(), BlkError>)>,
    next_id: u64,
}

// SAFETY: the device's registers and virtqueues are reached only through
// the `SpinLock` around this value, one CPU at a time; nothing in it is
// tied to the CPU that made it.
unsafe impl Send for Device {}

impl Device {
    /// Collects every request the device has finished.
    fn reap(&mut self) {
        while let Some((token, kind, data, status)) = self.blk.pop_used() {
            let Some(slot) = self.in_flight.remove(&token) else {
                log::error!("virtio-blk: the device finished unknown request {}", token);
                continue;
            };
            let mut slot = *slot;
            if kind == Kind::Read && status == S_OK {
                slot.buf.copy_from_slice(&data);
            }
            let r = match status {
                S_OK => Ok(()),
                S_UNSUPP => Err(BlkError::Unsupported),
                _ => Err(BlkError::Io),
            };
            self.done.insert(slot.id, (slot.buf, r));
        }
    }

    /// Posts a request and files it under a new ticket.
    fn post(&mut self, kind: Kind, sector: u64, buf: Vec<u8>) -> Result<u64, (BlkError, Vec<u8>)> {
        let (data, read_len): (&[u8], usize) = if kind == Kind::Read { (&[], buf.len()) } else { (&buf, 0) };
        match self.blk.post(kind, sector, data, read_len) {
            Ok(token) => {
                let id = self.next_id;
                self.next_id += 1;
                self.in_flight.insert(token, Box::new(Slot { id, buf }));
                Ok(id)
            }
            Err(PostError::Full) => Err((BlkError::Busy, buf)),
            Err(PostError::NoMemory) => Err((BlkError::Io, buf)),
        }
    }
}

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
/// VIRTIO_BLK_F_DISCARD and VIRTIO_BLK_F_WRITE_ZEROES, and where the
/// configuration keeps their limits: max_discard_sectors,
/// max_discard_seg, discard_sector_alignment, max_write_zeroes_sectors.
const F_DISCARD: u64 = 1 << 13;
const F_WRITE_ZEROES: u64 = 1 << 14;
const CONFIG_MAX_DISCARD_SECTORS: usize = 36;
const CONFIG_MAX_DISCARD_SEG: usize = 40;
const CONFIG_DISCARD_ALIGNMENT: usize = 44;
const CONFIG_MAX_WRITE_ZEROES_SECTORS: usize = 48;

/// What the device offers for discard and write-zeroes requests, from its
/// configuration (0 where the device left a field 0).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DiscardLimits {
    /// VIRTIO_BLK_F_DISCARD is offered.
    pub discard: bool,
    /// The most sectors one discard may cover.
    pub max_discard_sectors: u32,
    /// The most ranges one discard request may carry.
    pub max_discard_segments: u32,
    /// Discards should be aligned to this many sectors.
    pub discard_alignment_sectors: u32,
    /// VIRTIO_BLK_F_WRITE_ZEROES is offered.
    pub write_zeroes: bool,
    /// The most sectors one write-zeroes request may cover.
    pub max_write_zeroes_sectors: u32,
}

/// How long a waiter polls the used ring before it halts for the
/// interrupt, in ns; `u64::MAX` (the default) polls until the request is
/// done and never halts. Under `-icount sleep=off` a halt lets the guest
/// clock jump to the next timer deadline, and measured that way a halt
/// after even 1 ms of polling made single 4 KiB requests cost about 12 ms
/// of guest time each (the old polling driver: 10 us), so halting is
/// chosen at boot (`virtio_blk.poll_us=N`), not the default.
static SPIN_NS: AtomicU64 = AtomicU64::new(u64::MAX);

/// Sets how long waiters poll before halting (see [`SPIN_NS`]).
pub fn set_poll_limit_ns(ns: u64) {
    SPIN_NS.store(ns, Ordering::Relaxed);
}

/// How long waiters poll before halting.
pub fn poll_limit_ns() -> u64 {
    SPIN_NS.load(Ordering::Relaxed)
}

/// Interrupts the disks sent (all disks share one vector).
static INTERRUPTS: AtomicU64 = AtomicU64::new(0);
/// CPUs halted waiting for a disk (bit per CPU index): the interrupt
/// handler wakes them.
static WAITING: AtomicU64 = AtomicU64::new(0);

/// The disks' interrupt (interrupt context: atomics and IPIs only).
pub(crate) fn handle_interrupt() {
    INTERRUPTS.fetch_add(1, Ordering::SeqCst);
    let waiting = WAITING.load(Ordering::SeqCst);
    let me = percpu::cpu_index();
    for index in 0..64 {
        if waiting & (1 << index) != 0 && index != me {
            crate::smp::wake_cpu(index);
        }
    }
}

/// Interrupts the disks have sent since boot.
pub fn interrupt_count() -> u64 {
    INTERRUPTS.load(Ordering::SeqCst)
}

/// One virtio-blk disk.
pub struct VirtioBlk {
    device: SpinLock<Device>,
    sectors: u64,
    read_only: bool,
    geometry: Option<Geometry>,
    discard: DiscardLimits,
    /// Whether completions interrupt (MSI-X set up).
    interrupts: bool,
    /// The most requests the device held at once (diagnostics, tests).
    max_in_flight: AtomicUsize,
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

    /// What the device offers for discards and write-zeroes (both are
    /// negotiated when offered, and sent by [`VirtioBlk::discard`] and
    /// [`VirtioBlk::write_zeroes`]).
    pub fn discard_limits(&self) -> DiscardLimits {
        self.discard
    }

    /// Tells whether the device refuses writes (`VIRTIO_BLK_F_RO`).
    pub fn is_read_only(&self) -> bool {
        self.read_only
    }

    /// Whether completions arrive by interrupt (else waiting polls).
    pub fn interrupt_driven(&self) -> bool {
        self.interrupts
    }

    /// How many requests the device can hold at once.
    pub fn queue_depth(&self) -> usize {
        crate::virtq::DEPTH
    }

    /// The most requests the device has held at once since boot.
    pub fn max_in_flight(&self) -> usize {
        self.max_in_flight.load(Ordering::Relaxed)
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

    /// Posts a request and returns its ticket without waiting; the buffer
    /// comes back from [`VirtioBlk::take`] or [`VirtioBlk::wait`]. On
    /// failure the buffer comes back at once; `BlkError::Busy` says the
    /// virtqueue is full (wait for any completion, [`VirtioBlk::wait_any`],
    /// and submit again).
    pub fn submit(&self, op: BlkOp, sector: u64, buf: Vec<u8>) -> Result<u64, (BlkError, Vec<u8>)> {
        if let Err(e) = self.check(sector, buf.len()) {
            return Err((e, buf));
        }
        if op == BlkOp::Write && self.read_only {
            return Err((BlkError::ReadOnly, buf));
        }
        let kind = if op == BlkOp::Read { Kind::Read } else { Kind::Write };
        let mut dev = self.device.lock();
        let id = dev.post(kind, sector, buf)?;
        self.max_in_flight.fetch_max(dev.in_flight.len(), Ordering::Relaxed);
        Ok(id)
    }

    /// Collects finished requests and takes ticket `id`'s if it is done.
    pub fn take(&self, id: u64) -> Option<(Vec<u8>, Result<(), BlkError>)> {
        let mut dev = self.device.lock();
        dev.reap();
        dev.done.remove(&id)
    }

    /// Waits for ticket `id` and returns its buffer and outcome: polls
    /// for [`SPIN_NS`], then halts until interrupts.
    pub fn wait(&self, id: u64) -> (Vec<u8>, Result<(), BlkError>) {
        let start = crate::time::monotonic_ns();
        loop {
            let seen = interrupt_count();
            if let Some(r) = self.take(id) {
                return r;
            }
            if crate::time::monotonic_ns().saturating_sub(start) < poll_limit_ns() {
                core::hint::spin_loop();
                continue;
            }
            self.idle(seen);
        }
    }

    /// Waits until some request in flight completes (or a moment passes):
    /// polls up to the poll limit, then halts until an interrupt.
    pub fn wait_any(&self) {
        let start = crate::time::monotonic_ns();
        loop {
            let seen = interrupt_count();
            let pending = {
                let mut dev = self.device.lock();
                let before = dev.done.len();
                dev.reap();
                dev.done.len() == before && !dev.in_flight.is_empty()
            };
            if !pending {
                return;
            }
            if crate::time::monotonic_ns().saturating_sub(start) < poll_limit_ns() {
                core::hint::spin_loop();
                continue;
            }
            self.idle(seen);
            return;
        }
    }

    /// Halts until a disk interrupts after `seen` interrupts (or the next
    /// timer tick); spins when completions are polled or the caller has
    /// interrupts off.
    fn idle(&self, seen: u64) {
        if !self.interrupts || !interrupts::are_enabled() {
            core::hint::spin_loop();
            return;
        }
        let bit = 1u64 << percpu::cpu_index();
        WAITING.fetch_or(bit, Ordering::SeqCst);
        interrupts::disable();
        // STI's shadow makes the check and the HLT atomic: an interrupt
        // after the check still ends the HLT (the handler IPIs this CPU,
        // whose bit is set, if it went to another).
        if interrupt_count() == seen {
            interrupts::enable_and_halt();
        } else {
            interrupts::enable();
        }
        WAITING.fetch_and(!bit, Ordering::SeqCst);
    }

    /// Posts a request, waiting for room in the virtqueue, and waits for it.
    fn run(&self, op: BlkOp, sector: u64, mut buf: Vec<u8>) -> (Vec<u8>, Result<(), BlkError>) {
        loop {
            match self.submit(op, sector, buf) {
                Ok(id) => return self.wait(id),
                Err((BlkError::Busy, b)) => {
                    buf = b;
                    self.wait_any();
                }
                Err((e, b)) => return (b, Err(e)),
            }
        }
    }

    /// Reads `buf.len() / 512` sectors from `sector` on.
    pub fn read(&self, sector: u64, buf: &mut [u8]) -> Result<(), BlkError> {
        self.check(sector, buf.len())?;
        let (data, r) = self.run(BlkOp::Read, sector, alloc::vec![0; buf.len()]);
        r?;
        buf.copy_from_slice(&data);
        Ok(())
    }

    /// Writes `buf.len() / 512` sectors from `sector` on.
    pub fn write(&self, sector: u64, buf: &[u8]) -> Result<(), BlkError> {
        self.check(sector, buf.len())?;
        if self.read_only {
            return Err(BlkError::ReadOnly);
        }
        self.run(BlkOp::Write, sector, buf.to_vec()).1
    }

    /// Discards `count` sectors from `sector` on (VIRTIO_BLK_T_DISCARD),
    /// in requests of at most the device's max_discard_sectors:
    /// `Unsupported` when the device does not offer discards.
    pub fn discard(&self, sector: u64, count: u64) -> Result<(), BlkError> {
        if !self.discard.discard {
            return Err(BlkError::Unsupported);
        }
        let max = if self.discard.max_discard_sectors != 0 { self.discard.max_discard_sectors } else { u32::MAX };
        self.range_requests(sector, count, max, |n| Kind::Discard { count: n })
    }

    /// Makes `count` sectors from `sector` on read as zeros
    /// (VIRTIO_BLK_T_WRITE_ZEROES), letting the device deallocate them if
    /// `unmap`, in requests of at most max_write_zeroes_sectors:
    /// `Unsupported` when the device does not offer write-zeroes.
    pub fn write_zeroes(&self, sector: u64, count: u64, unmap: bool) -> Result<(), BlkError> {
        if !self.discard.write_zeroes {
            return Err(BlkError::Unsupported);
        }
        let max = if self.discard.max_write_zeroes_sectors != 0 { self.discard.max_write_zeroes_sectors } else { u32::MAX };
        self.range_requests(sector, count, max, |n| Kind::WriteZeroes { count: n, unmap })
    }

    /// Sends `kind(n)` requests over `[sector, sector + count)`, `n` at
    /// most `max` sectors each, one after the other.
    fn range_requests(&self, sector: u64, count: u64, max: u32, kind: impl Fn(u32) -> Kind) -> Result<(), BlkError> {
        if count == 0 {
            return Err(BlkError::BadLength);
        }
        if sector.checked_add(count).is_none_or(|end| end > self.sectors) {
            return Err(BlkError::OutOfRange);
        }
        if self.read_only {
            return Err(BlkError::ReadOnly);
        }
        let mut at = sector;
        let end = sector + count;
        while at < end {
            let n = (end - at).min(u64::from(max.max(1))) as u32;
            self.run_kind(kind(n), at)?;
            at += u64::from(n);
        }
        Ok(())
    }

    /// Posts a request without data, waiting for room, and waits for it.
    fn run_kind(&self, kind: Kind, sector: u64) -> Result<(), BlkError> {
        loop {
            let posted = {
                let mut dev = self.device.lock();
                let r = dev.post(kind, sector, Vec::new());
                self.max_in_flight.fetch_max(dev.in_flight.len(), Ordering::Relaxed);
                r
            };
            match posted {
                Ok(id) => return self.wait(id).1,
                Err((BlkError::Busy, _)) => self.wait_any(),
                Err((e, _)) => return Err(e),
            }
        }
    }

    /// Makes completed writes durable (VIRTIO_BLK_T_FLUSH; a device without
    /// a volatile cache answers that it does not support it, which is
    /// success here). Sent once no other request is in flight.
    pub fn flush(&self) -> Result<(), BlkError> {
        loop {
            let seen = interrupt_count();
            {
                let mut dev = self.device.lock();
                dev.reap();
                if dev.in_flight.is_empty() {
                    if dev.blk.features() & crate::virtq::F_FLUSH == 0 {
                        return Ok(());
                    }
                    let id = match dev.post(Kind::Flush, 0, Vec::new()) {
                        Ok(id) => id,
                        Err((e, _)) => return Err(e),
                    };
                    // The lock stays held: nothing is posted behind the
                    // flush until it is done.
                    loop {
                        dev.reap();
                        if let Some((_, r)) = dev.done.remove(&id) {
                            return match r {
                                Ok(()) | Err(BlkError::Unsupported) => Ok(()),
                                Err(e) => Err(e),
                            };
                        }
                        core::hint::spin_loop();
                    }
                }
            }
            self.idle(seen);
        }
    }
}

/// PCI capability ids: MSI-X, and the virtio vendor-specific structures.
const CAP_MSIX: u8 = 0x11;
const CAP_VENDOR: u8 = 0x09;
/// virtio_pci_cap.cfg_type of the common configuration.
const VIRTIO_PCI_CAP_COMMON_CFG: u8 = 1;
/// Offsets in `struct virtio_pci_common_cfg` (virtio 1.1, 4.1.4.3).
const COMMON_MSIX_CONFIG: usize = 0x10;
const COMMON_QUEUE_SELECT: usize = 0x16;
const COMMON_QUEUE_MSIX_VECTOR: usize = 0x1a;
/// VIRTIO_MSI_NO_VECTOR.
const NO_VECTOR: u16 = 0xffff;

fn config_byte(access: &PortConfigAccess, df: DeviceFunction, offset: u8) -> u8 {
    (access.read_word(df, offset & !3) >> (8 * (offset & 3))) as u8
}

/// The capabilities in `df`'s configuration space: (id, offset).
fn capabilities(access: &PortConfigAccess, df: DeviceFunction) -> Vec<(u8, u8)> {
    let mut out = Vec::new();
    // Status register bit 4: a capability list is present.
    if access.read_word(df, 0x04) & (1 << 20) == 0 {
        return out;
    }
    let mut at = config_byte(access, df, 0x34) & !3;
    while at != 0 && out.len() < 48 {
        out.push((config_byte(access, df, at), at));
        at = config_byte(access, df, at + 1) & !3;
    }
    out
}

/// The physical address a memory BAR decodes (None for I/O BARs).
fn bar_address(access: &PortConfigAccess, df: DeviceFunction, bar: u8) -> Option<u64> {
    if bar > 5 {
        return None;
    }
    let offset = 0x10 + 4 * bar;
    let low = access.read_word(df, offset);
    if low & 1 != 0 {
        return None;
    }
    let mut addr = u64::from(low & !0xf);
    if (low >> 1) & 3 == 2 && bar < 5 {
        addr |= u64::from(access.read_word(df, offset + 4)) << 32;
    }
    Some(addr)
}

/// A device register reached through the direct map, if it lies in the
/// part of it that is mapped.
fn mmio(addr: u64, len: u64) -> Option<usize> {
    (addr != 0 && addr.checked_add(len)? <= crate::virtio::direct_map_end()).then(|| PhysAddr::new(addr).direct_map())
}

fn write32(va: usize, value: u32) {
    // SAFETY: `va` is a register of the device's BAR through the direct
    // map (uncached below 4 GiB), 4-byte aligned, which only this driver
    // touches, during probe.
    unsafe { core::ptr::write_volatile(va as *mut u32, value) }
}

fn write16(va: usize, value: u16) {
    // SAFETY: as in `write32`, 2-byte aligned.
    unsafe { core::ptr::write_volatile(va as *mut u16, value) }
}

fn read16(va: usize) -> u16 {
    // SAFETY: as in `write32`, 2-byte aligned.
    unsafe { core::ptr::read_volatile(va as *const u16) }
}

/// Sends the disk's queue-0 completions as MSI-X message 0 (the boot CPU,
/// vector VIRTIO_BLK) and enables MSI-X; configuration changes get no
/// vector. Done after the driver crate set the device up (its reset
/// clears the vectors). Returns whether it worked.
fn setup_msix(df: DeviceFunction) -> bool {
    let mut access = PortConfigAccess;
    let caps = capabilities(&access, df);
    let Some(&(_, msix)) = caps.iter().find(|c| c.0 == CAP_MSIX) else {
        return false;
    };
    let common = caps.iter().filter(|c| c.0 == CAP_VENDOR).find_map(|&(_, at)| {
        (config_byte(&access, df, at + 3) == VIRTIO_PCI_CAP_COMMON_CFG).then(|| (config_byte(&access, df, at + 4), access.read_word(df, at + 8)))
    });
    let Some((common_bar, common_offset)) = common else {
        return false;
    };
    let table = access.read_word(df, msix + 4);
    let Some(table_va) = bar_address(&access, df, (table & 7) as u8).and_then(|b| mmio(b + u64::from(table & !7), 16)) else {
        return false;
    };
    let Some(common_va) = bar_address(&access, df, common_bar).and_then(|b| mmio(b + u64::from(common_offset), 0x38)) else {
        return false;
    };
    // Table entry 0: message address (fixed delivery, physical destination
    // the boot CPU), data (the vector, edge-triggered), unmasked.
    let dest = percpu::cpu(0).apic_id();
    if dest > 0xff {
        return false;
    }
    write32(table_va, 0xfee0_0000 | dest << 12);
    write32(table_va + 4, 0);
    write32(table_va + 8, u32::from(vectors::VIRTIO_BLK));
    write32(table_va + 12, 0);
    // Message control: MSI-X enable (bit 15), function mask (bit 14) off.
    let control = access.read_word(df, msix);
    access.write_word(df, msix, (control | 1 << 31) & !(1 << 30));
    write16(common_va + COMMON_MSIX_CONFIG, NO_VECTOR);
    write16(common_va + COMMON_QUEUE_SELECT, 0);
    write16(common_va + COMMON_QUEUE_MSIX_VECTOR, 0);
    if read16(common_va + COMMON_QUEUE_MSIX_VECTOR) != 0 {
        access.write_word(df, msix, control & !(1 << 31));
        return false;
    }
    true
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
        let mut blk = match BlkQueue::new(transport) {
            Ok(b) => b,
            Err(e) => {
                log::warn!("virtio-blk at {}: {:?}", df, e);
                continue;
            }
        };
        let features = blk.features();
        let config = |offset: usize| blk.config_u32(offset);
        let discard = DiscardLimits {
            discard: features & F_DISCARD != 0,
            max_discard_sectors: if features & F_DISCARD != 0 { config(CONFIG_MAX_DISCARD_SECTORS) } else { 0 },
            max_discard_segments: if features & F_DISCARD != 0 { config(CONFIG_MAX_DISCARD_SEG) } else { 0 },
            discard_alignment_sectors: if features & F_DISCARD != 0 { config(CONFIG_DISCARD_ALIGNMENT) } else { 0 },
            write_zeroes: features & F_WRITE_ZEROES != 0,
            max_write_zeroes_sectors: if features & F_WRITE_ZEROES != 0 { config(CONFIG_MAX_WRITE_ZEROES_SECTORS) } else { 0 },
        };
        let interrupts = setup_msix(df);
        blk.set_interrupts(interrupts);
        if !interrupts {
            log::warn!("virtio-blk at {}: no MSI-X, completions are polled", df);
        }
        // struct virtio_blk_config.capacity, in sectors.
        let sectors = u64::from(blk.config_u32(0)) | u64::from(blk.config_u32(4)) << 32;
        let read_only = features & crate::virtq::F_RO != 0;
        let device = Device { blk, in_flight: BTreeMap::new(), done: BTreeMap::new(), next_id: 0 };
        disks.push(VirtioBlk {
            device: SpinLock::new(device),
            sectors,
            read_only,
            geometry,
            discard,
            interrupts,
            max_in_flight: AtomicUsize::new(0),
            location: (df.bus, df.device, df.function),
        });
    }
    disks
}
