//! In-kernel tests of the request queue (`test=block_queue_plan,
//! block_queue_concurrent`).

use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use core::sync::atomic::{AtomicU64, Ordering};

use kevlar_platform::smp;
use kevlar_platform::sync::SpinLock;

use super::queue::{plan, Op, RequestQueue, Run};
use super::{BlockDriver, Geometry, SECTOR};
use crate::error::{Errno, Result};

type TestResult = core::result::Result<(), String>;

/// Merging: adjacent requests of one direction become one run, sorted by
/// sector; flushes stay barriers; runs stop at the transfer limit.
pub fn queue_plan() -> TestResult {
    let batch = [(Op::Write, 8, 512), (Op::Write, 9, 512), (Op::Read, 3, 1024), (Op::Write, 7, 512), (Op::Flush, 0, 0), (Op::Write, 10, 512), (Op::Read, 5, 512)];
    let (order, runs) = plan(&batch, 4096);
    // Reads sort before writes within a segment.
    let want_order = vec![2, 3, 0, 1, 4, 6, 5];
    if order != want_order {
        return Err(format!("order {:?}, expected {:?}", order, want_order));
    }
    let want = vec![
        Run { op: Op::Read, sector: 3, first: 0, count: 1, bytes: 1024 },
        Run { op: Op::Write, sector: 7, first: 1, count: 3, bytes: 1536 },
        Run { op: Op::Flush, sector: 0, first: 4, count: 1, bytes: 0 },
        Run { op: Op::Read, sector: 5, first: 5, count: 1, bytes: 512 },
        Run { op: Op::Write, sector: 10, first: 6, count: 1, bytes: 512 },
    ];
    let (_, runs2) = plan(&[(Op::Write, 0, 512), (Op::Write, 1, 512), (Op::Write, 2, 512)], 1024);
    if runs2.len() != 2 || runs2[0].count != 2 || runs2[1].sector != 2 {
        return Err(format!("the 1 KiB limit gave {:?}", runs2));
    }
    if runs != want {
        return Err(format!("runs {:?}, expected {:?}", runs, want));
    }
    Ok(())
}

/// A disk in memory whose requests take a while, counting them.
struct SlowDisk {
    data: SpinLock<Vec<u8>>,
    requests: AtomicU64,
}

impl BlockDriver for SlowDisk {
    fn sectors(&self) -> u64 {
        (self.data.lock().len() / SECTOR) as u64
    }
    fn read_only(&self) -> bool {
        false
    }
    fn read(&self, sector: u64, buf: &mut [u8]) -> Result<()> {
        self.requests.fetch_add(1, Ordering::Relaxed);
        let at = sector as usize * SECTOR;
        let data = self.data.lock();
        buf.copy_from_slice(data.get(at..at + buf.len()).ok_or(Errno::EIO)?);
        Ok(())
    }
    fn write(&self, sector: u64, buf: &[u8]) -> Result<()> {
        self.requests.fetch_add(1, Ordering::Relaxed);
        for _ in 0..2000 {
            core::hint::spin_loop();
        }
        let at = sector as usize * SECTOR;
        self.data.lock().get_mut(at..at + buf.len()).ok_or(Errno::EIO)?.copy_from_slice(buf);
        Ok(())
    }
    fn flush(&self) -> Result<()> {
        Ok(())
    }
    fn geometry(&self) -> Geometry {
        Geometry { heads: 1, sectors: 1, cylinders: 1 }
    }
}

/// A plugged queue holds writes (a read sees them all the same) and sends
/// them sorted and merged when unplugged.
pub fn queue_plug() -> TestResult {
    let disk = SlowDisk { data: SpinLock::new(vec![0; 64 * SECTOR]), requests: AtomicU64::new(0) };
    let queue = RequestQueue::new(8 * SECTOR);
    queue.plug();
    for s in [5u64, 3, 4, 20, 6, 7, 8, 9, 10, 11, 12] {
        queue.write(&disk, s, &[s as u8; SECTOR]).map_err(|e| format!("write: {:?}", e))?;
    }
    if disk.requests.load(Ordering::Relaxed) != 0 {
        return Err(String::from("a plugged write reached the driver"));
    }
    // A read sends the held writes first.
    let mut buf = [0u8; SECTOR];
    queue.read(&disk, 20, &mut buf).map_err(|e| format!("read: {:?}", e))?;
    if buf[0] != 20 {
        return Err(format!("read {} where a held write put 20", buf[0]));
    }
    // 3..=12 is ten sectors: runs of at most 8, so 2, and 20 alone; plus the read.
    let n = disk.requests.load(Ordering::Relaxed);
    if n != 4 {
        return Err(format!("{} driver requests, expected 4", n));
    }
    queue.write(&disk, 30, &[30; SECTOR]).map_err(|e| format!("write: {:?}", e))?;
    queue.write(&disk, 31, &[31; SECTOR]).map_err(|e| format!("write: {:?}", e))?;
    queue.unplug(&disk).map_err(|e| format!("unplug: {:?}", e))?;
    let n = disk.requests.load(Ordering::Relaxed);
    if n != 5 || queue.stats.writes_merged.load(Ordering::Relaxed) != 8 + 1 {
        return Err(format!("{} driver requests after unplug, {} merged", n, queue.stats.writes_merged.load(Ordering::Relaxed)));
    }
    let data = disk.data.lock();
    for s in [3usize, 12, 20, 30, 31] {
        if data[s * SECTOR] != s as u8 {
            return Err(format!("sector {} holds {}", s, data[s * SECTOR]));
        }
    }
    Ok(())
}

const PER_CPU: usize = 200;
static DISK: SpinLock<Option<(alloc::sync::Arc<SlowDisk>, alloc::sync::Arc<RequestQueue>)>> = SpinLock::new(None);
static FAILURES: AtomicU64 = AtomicU64::new(0);

/// Every CPU writes one-sector requests, interleaved with the others'
/// (CPU c writes sectors c, c + n, c + 2n...), through one queue; then
/// every sector must hold what its writer wrote, and the driver must have
/// had no more requests than were made (fewer when some merged).
pub fn queue_concurrent() -> TestResult {
    let cpus = smp::cpu_count();
    let disk = alloc::sync::Arc::new(SlowDisk { data: SpinLock::new(vec![0; cpus * PER_CPU * SECTOR]), requests: AtomicU64::new(0) });
    let queue = alloc::sync::Arc::new(RequestQueue::new(64 * 1024));
    *DISK.lock() = Some((disk.clone(), queue.clone()));
    FAILURES.store(0, Ordering::Relaxed);
    fn writer(cpu: usize) {
        let Some((disk, queue)) = DISK.lock().clone() else { return };
        let n = smp::cpu_count();
        for i in 0..PER_CPU {
            let sector = (i * n + cpu) as u64;
            let buf = [(cpu * 31 + i) as u8; SECTOR];
            if queue.write(&*disk, sector, &buf).is_err() {
                FAILURES.fetch_add(1, Ordering::Relaxed);
            }
        }
    }
    smp::run_on_all_cpus(writer);
    *DISK.lock() = None;
    if FAILURES.load(Ordering::Relaxed) != 0 {
        return Err(format!("{} writes failed", FAILURES.load(Ordering::Relaxed)));
    }
    for cpu in 0..cpus {
        for i in 0..PER_CPU {
            let mut buf = [0u8; SECTOR];
            queue.read(&*disk, (i * cpus + cpu) as u64, &mut buf).map_err(|e| format!("read: {:?}", e))?;
            if buf.iter().any(|&b| b != (cpu * 31 + i) as u8) {
                return Err(format!("sector of cpu {} write {} holds {}", cpu, i, buf[0]));
            }
        }
    }
    let writes = queue.stats.writes.load(Ordering::Relaxed);
    let merged = queue.stats.writes_merged.load(Ordering::Relaxed);
    let made = (cpus * PER_CPU) as u64;
    if writes + merged != made || writes > made {
        return Err(format!("{} driver writes + {} merged for {} made", writes, merged, made));
    }
    Ok(())
}

/// The first virtio disk, for the tests that need a device
/// (`test=block_virtio_in_flight,block_virtio_cpus`, run with a scratch
/// disk attached: they overwrite its first 4 MiB).
fn scratch() -> core::result::Result<alloc::sync::Arc<super::virtio::Virtio>, String> {
    super::virtio::first().or_else(super::virtio::probe_unregistered).ok_or_else(|| String::from("no virtio disk attached"))
}

/// A 4 KiB pattern: `tag` and the sector in every 8 bytes.
fn pattern(tag: u8, sector: u64) -> Vec<u8> {
    let mut out = vec![0u8; 4096];
    for (i, chunk) in out.chunks_mut(8).enumerate() {
        let v = sector.wrapping_mul(0x9e37_79b9) ^ (u64::from(tag) << 56) ^ i as u64;
        chunk.copy_from_slice(&v.to_le_bytes());
    }
    out
}

fn item(op: Op, sector: u64, data: Vec<u8>) -> super::BatchItem {
    super::BatchItem { op, sector, data, result: Ok(()) }
}

/// Several requests in flight, completed by interrupt: a batch of 48
/// writes, a flush, then 48 reads of the same places, handed to the
/// virtio driver at once. The device must have held more than one at a
/// time, interrupts must have come (completion is not polled), and every
/// read, batched or single, must return what was written.
pub fn virtio_in_flight() -> TestResult {
    let disk = scratch()?;
    let blk = disk.device();
    if !blk.interrupt_driven() {
        return Err(String::from("completions are polled (no MSI-X)"));
    }
    let irqs = kevlar_platform::virtio_blk::interrupt_count();
    let sectors: Vec<u64> = (0..48u64).map(|i| 64 + i * 24).collect();
    let mut batch: Vec<super::BatchItem> = sectors.iter().map(|&s| item(Op::Write, s, pattern(1, s))).collect();
    batch.push(item(Op::Flush, 0, Vec::new()));
    batch.extend(sectors.iter().map(|&s| item(Op::Read, s, vec![0; 4096])));
    disk.run_batch(&mut batch);
    for (i, it) in batch.iter().enumerate() {
        it.result.map_err(|e| format!("request {} failed: {:?}", i, e))?;
    }
    for (i, &s) in sectors.iter().enumerate() {
        if batch[49 + i].data != pattern(1, s) {
            return Err(format!("batched read of sector {} does not hold what was written", s));
        }
        let mut one = vec![0u8; 4096];
        disk.read(s, &mut one).map_err(|e| format!("read {}: {:?}", s, e))?;
        if one != pattern(1, s) {
            return Err(format!("single read of sector {} does not hold what was written", s));
        }
    }
    if blk.max_in_flight() < 2 {
        return Err(format!("at most {} request in flight (queue depth {})", blk.max_in_flight(), blk.queue_depth()));
    }
    let got = kevlar_platform::virtio_blk::interrupt_count() - irqs;
    if got == 0 {
        return Err(String::from("no interrupt for 97 requests"));
    }
    Ok(())
}

static CPU_FAILURES: SpinLock<Vec<String>> = SpinLock::new(Vec::new());

/// Every CPU at once runs batches of writes then reads of its own sectors
/// on the one disk, waiters halting until the interrupt (the others'
/// completions arrive on whichever CPU collects them, the interrupt on the
/// boot CPU, IPIs to the other halted CPUs): each must get its own data
/// back, none may hang.
pub fn virtio_cpus() -> TestResult {
    scratch()?;
    CPU_FAILURES.lock().clear();
    fn worker(cpu: usize) {
        let Ok(disk) = scratch() else { return };
        let n = smp::cpu_count() as u64;
        for round in 0..4u8 {
            let sectors: Vec<u64> = (0..24u64).map(|i| 4096 + (i * n + cpu as u64) * 8).collect();
            let mut writes: Vec<super::BatchItem> = sectors.iter().map(|&s| item(Op::Write, s, pattern(round + 2, s))).collect();
            disk.run_batch(&mut writes);
            let mut reads: Vec<super::BatchItem> = sectors.iter().map(|&s| item(Op::Read, s, vec![0; 4096])).collect();
            disk.run_batch(&mut reads);
            for (w, (r, &s)) in writes.iter().zip(reads.iter().zip(&sectors)) {
                if w.result.is_err() || r.result.is_err() || r.data != pattern(round + 2, s) {
                    CPU_FAILURES.lock().push(format!("cpu {} round {} sector {}: {:?} {:?}", cpu, round, s, w.result, r.result));
                    return;
                }
            }
        }
    }
    // Halting waiters, woken by the interrupt (the boot CPU's) and its
    // IPIs (the others).
    let limit = kevlar_platform::virtio_blk::poll_limit_ns();
    kevlar_platform::virtio_blk::set_poll_limit_ns(0);
    let irqs = kevlar_platform::virtio_blk::interrupt_count();
    smp::run_on_all_cpus(worker);
    kevlar_platform::virtio_blk::set_poll_limit_ns(limit);
    if kevlar_platform::virtio_blk::interrupt_count() == irqs {
        return Err(String::from("no interrupt while the waiters halted"));
    }
    let failures = CPU_FAILURES.lock().clone();
    match failures.first() {
        Some(f) => Err(format!("{} failed, first: {}", failures.len(), f)),
        None => Ok(()),
    }
}

/// Discard and write-zeroes reach the device (`test=block_virtio_discard`,
/// with a 64 MiB sparse scratch disk on a `discard=unmap` drive): 16 MiB
/// of data written from 8 MiB on (the host image allocates it), then
/// write-zeroes without unmap over the first MiB of it, write-zeroes with
/// unmap over the second (both must read back as zeros, the data around
/// them intact), and a discard of the 12 MiB after them. The run's host
/// side checks that the image's allocated size dropped below 4 MiB
/// (`scratch_max_kib` in tools/run-tests.py): only requests that reach
/// QEMU free the host's blocks.
pub fn virtio_discard() -> TestResult {
    let disk = scratch()?;
    let base: u64 = 8 << 11;
    let chunk = 1u64 << 11;
    for i in 0..16 {
        let at = base + i * chunk;
        let data: Vec<u8> = (0..chunk / 8).flat_map(|s| pattern(7, at + s * 8)).collect();
        disk.write(at, &data).map_err(|e| format!("write at {}: {:?}", at, e))?;
    }
    disk.flush().map_err(|e| format!("flush: {:?}", e))?;
    if disk.discard_limits().is_none() || disk.write_zeroes_max_bytes() == 0 {
        return Err(String::from("the device offers no discard or no write-zeroes"));
    }
    disk.write_zeroes(base, chunk, false).map_err(|e| format!("write-zeroes: {:?}", e))?;
    disk.write_zeroes(base + chunk, chunk, true).map_err(|e| format!("write-zeroes with unmap: {:?}", e))?;
    disk.discard(base + 2 * chunk, 12 * chunk).map_err(|e| format!("discard: {:?}", e))?;
    let mut buf = vec![0u8; (2 * chunk) as usize * SECTOR];
    disk.read(base, &mut buf).map_err(|e| format!("read back: {:?}", e))?;
    if buf.iter().any(|&b| b != 0) {
        return Err(String::from("write-zeroes left data behind"));
    }
    let mut tail = vec![0u8; 4096];
    let last = base + 14 * chunk;
    disk.read(last, &mut tail).map_err(|e| format!("read after the discard: {:?}", e))?;
    if tail != pattern(7, last) {
        return Err(String::from("the data after the discarded range changed"));
    }
    // Out of range and empty requests are refused by the device layer.
    if disk.discard(disk.sectors() - 8, 16).is_ok() || disk.write_zeroes(0, 0, false).is_ok() {
        return Err(String::from("a request past the end or an empty one was accepted"));
    }
    disk.flush().map_err(|e| format!("flush: {:?}", e))?;
    Ok(())
}
