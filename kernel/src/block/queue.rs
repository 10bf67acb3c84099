//! A disk's request queue.
//!
//! Requests go to the driver one at a time (the driver polls for
//! completion). A caller that finds the queue idle becomes its
//! *dispatcher*: it runs its own request straight from its buffer, then
//! keeps dispatching what other CPUs queued meanwhile until the queue is
//! empty. A caller that finds a dispatcher at work queues its request (a
//! copy of its data) and waits for it to complete. Before dispatching, the
//! queued requests are merged as Linux's elevator merges bios: between two
//! flushes (which keep their place: everything before a flush is done
//! before it, everything after waits), reads and writes are sorted by
//! sector and runs of adjacent requests of the same direction become one
//! driver request, up to the driver's largest transfer.
//!
//! **Plugging** (Linux's blk_start_plug): while a queue is plugged
//! ([`RequestQueue::plug`], the flusher and sync(2) plug every disk
//! around a write-back), writes are held back (a copy of their data) and
//! succeed at once; unplugging sends them as one batch, so the pages and
//! blocks a write-back writes one by one reach the driver sorted and
//! merged. Held writes never hide from readers: a read or a flush from any
//! CPU sends the held writes first, and more than [`PLUG_LIMIT`] bytes
//! held are sent without waiting for the unplug. An error of a held write
//! is reported by the unplug and by the next flush (fsync sees it).
//!
//! Waiting spins: a caller may hold a file system's spin lock, so it must
//! not sleep. The dispatcher never waits for anyone, so a single CPU
//! never has a waiter (the kernel is not preemptible), and on several
//! CPUs the wait is one driver request long.
//!
//! The counts Linux keeps per disk (`/sys/block/X/stat`,
//! `/proc/diskstats`) are kept here.

use alloc::sync::Arc;
use alloc::vec;
use alloc::vec::Vec;
use core::sync::atomic::{AtomicU64, Ordering};

use kevlar_platform::sync::SpinLock;

use super::{BatchItem, BlockDriver, SECTOR};
use crate::error::Result;

/// What a request does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Op {
    /// Reads sectors.
    Read,
    /// Writes sectors.
    Write,
    /// Makes earlier writes durable.
    Flush,
}

/// A queued request.
struct Request {
    op: Op,
    sector: u64,
    /// The data: to write, or read into.
    data: SpinLock<Vec<u8>>,
    /// The outcome, once done.
    done: SpinLock<Option<Result<()>>>,
}

struct Inner {
    pending: Vec<Arc<Request>>,
    dispatching: bool,
    /// Plugs taken and not yet released.
    plugs: u32,
    /// Writes held back by the plug.
    held: Vec<Arc<Request>>,
    held_bytes: usize,
    /// The first error of a held write, for the next flush or unplug.
    held_error: Option<crate::error::Errno>,
}

/// Bytes of writes a plug holds before sending them anyway.
pub const PLUG_LIMIT: usize = 1 << 20;

/// Counts in Linux's /sys/block/X/stat order: reads, merged reads,
/// sectors read, ms reading, writes, merged writes, sectors written, ms
/// writing, flushes, ms flushing.
#[derive(Default)]
#[allow(missing_docs)]
pub struct Stats {
    pub reads: AtomicU64,
    pub reads_merged: AtomicU64,
    pub sectors_read: AtomicU64,
    pub read_ns: AtomicU64,
    pub writes: AtomicU64,
    pub writes_merged: AtomicU64,
    pub sectors_written: AtomicU64,
    pub write_ns: AtomicU64,
    pub flushes: AtomicU64,
    pub flush_ns: AtomicU64,
    /// Time the queue had a request in the driver.
    pub busy_ns: AtomicU64,
}

impl Stats {
    /// Counts one request to a device (a partition's own counts).
    pub fn count(&self, write: bool, bytes: usize, since_ns: u64) {
        let dt = kevlar_platform::time::monotonic_ns().saturating_sub(since_ns);
        let sectors = (bytes / SECTOR) as u64;
        if write {
            self.writes.fetch_add(1, Ordering::Relaxed);
            self.sectors_written.fetch_add(sectors, Ordering::Relaxed);
            self.write_ns.fetch_add(dt, Ordering::Relaxed);
        } else {
            self.reads.fetch_add(1, Ordering::Relaxed);
            self.sectors_read.fetch_add(sectors, Ordering::Relaxed);
            self.read_ns.fetch_add(dt, Ordering::Relaxed);
        }
        self.busy_ns.fetch_add(dt, Ordering::Relaxed);
    }
}

/// A disk's queue.
pub struct RequestQueue {
    inner: SpinLock<Inner>,
    max_bytes: usize,
    /// The counts.
    pub stats: Stats,
}

/// One driver request made of queued requests `first..first + count` of
/// a sorted batch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Run {
    /// The direction.
    pub op: Op,
    /// First sector.
    pub sector: u64,
    /// Index of the first request in the batch.
    pub first: usize,
    /// How many requests it carries.
    pub count: usize,
    /// Bytes.
    pub bytes: usize,
}

/// Plans the driver requests for a batch of queued requests, given as
/// (op, sector, bytes) in arrival order: returns the order to take them
/// in (a permutation of the indices) and the runs over that order.
/// Flushes are barriers and keep their place; between them, requests are
/// sorted by (direction, sector) and adjacent ones of one direction merge
/// while the run stays within `max_bytes`.
pub fn plan(batch: &[(Op, u64, usize)], max_bytes: usize) -> (Vec<usize>, Vec<Run>) {
    let mut order: Vec<usize> = Vec::with_capacity(batch.len());
    let mut start = 0;
    while start < batch.len() {
        let end = batch[start..].iter().position(|r| r.0 == Op::Flush).map_or(batch.len(), |i| start + i);
        let mut segment: Vec<usize> = (start..end).collect();
        segment.sort_by_key(|&i| (batch[i].0, batch[i].1));
        order.extend(segment);
        if end < batch.len() {
            order.push(end);
        }
        start = end + 1;
    }
    let mut runs: Vec<Run> = Vec::new();
    for (pos, &i) in order.iter().enumerate() {
        let (op, sector, bytes) = batch[i];
        if let Some(last) = runs.last_mut() {
            let adjacent = last.sector + (last.bytes / SECTOR) as u64 == sector;
            if op != Op::Flush && last.op == op && adjacent && last.bytes + bytes <= max_bytes {
                last.count += 1;
                last.bytes += bytes;
                continue;
            }
        }
        runs.push(Run { op, sector, first: pos, count: 1, bytes });
    }
    (order, runs)
}

impl RequestQueue {
    /// An empty queue for a driver taking up to `max_bytes` a request.
    pub fn new(max_bytes: usize) -> RequestQueue {
        RequestQueue { inner: SpinLock::new(Inner { pending: Vec::new(), dispatching: false, plugs: 0, held: Vec::new(), held_bytes: 0, held_error: None }), max_bytes: max_bytes.max(SECTOR), stats: Stats::default() }
    }

    /// Plugs the queue: writes are held until [`RequestQueue::unplug`].
    pub fn plug(&self) {
        self.inner.lock().plugs += 1;
    }

    /// Releases a plug; the last one sends the held writes. Returns the
    /// first error a held write had.
    pub fn unplug(&self, driver: &dyn BlockDriver) -> Result<()> {
        // Dropping the plug and queueing what it held is one step, so a
        // write made after the plug is gone queues behind the held ones.
        let taken = {
            let mut inner = self.inner.lock();
            inner.plugs = inner.plugs.saturating_sub(1);
            if inner.plugs > 0 {
                return Ok(());
            }
            take_held(&mut inner)
        };
        if let Some((held, claimed)) = taken {
            self.finish_held(driver, held, claimed);
        }
        match self.inner.lock().held_error.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Sends the writes a plug holds, if any, and waits for them: before a
    /// request that bypasses the queue (a discard, a write-zeroes) over
    /// sectors they may cover. Their errors stay for the next flush.
    pub fn send_held_writes(&self, driver: &dyn BlockDriver) {
        self.send_held(driver);
    }

    /// Sends the writes a plug holds, if any, and waits for them.
    fn send_held(&self, driver: &dyn BlockDriver) {
        let taken = take_held(&mut self.inner.lock());
        if let Some((held, claimed)) = taken {
            self.finish_held(driver, held, claimed);
        }
    }

    /// Dispatches (if `claimed`) and waits for held writes already moved
    /// to the pending list.
    fn finish_held(&self, driver: &dyn BlockDriver, held: Vec<Arc<Request>>, claimed: bool) {
        if claimed {
            self.drain(driver);
        }
        for req in held {
            if let Err(e) = wait(&req) {
                self.inner.lock().held_error.get_or_insert(e);
            }
        }
    }

    /// Holds a write if the queue is plugged; tells whether it did.
    fn hold(&self, driver: &dyn BlockDriver, sector: u64, buf: &[u8]) -> bool {
        if self.inner.lock().plugs == 0 {
            return false;
        }
        let req = Arc::new(Request { op: Op::Write, sector, data: SpinLock::new(buf.to_vec()), done: SpinLock::new(None) });
        let full = {
            let mut inner = self.inner.lock();
            if inner.plugs == 0 {
                drop(inner);
                return false;
            }
            inner.held.push(req);
            inner.held_bytes += buf.len();
            inner.held_bytes >= PLUG_LIMIT
        };
        if full {
            self.send_held(driver);
        }
        true
    }

    /// Reads `buf.len() / 512` sectors from `sector` on.
    pub fn read(&self, driver: &dyn BlockDriver, sector: u64, buf: &mut [u8]) -> Result<()> {
        self.send_held(driver);
        match self.claim_or_enqueue(driver, || (Op::Read, sector, vec![0; buf.len()])) {
            None => {
                let r = self.issue_read(driver, sector, buf, 1);
                self.drain(driver);
                r
            }
            Some(req) => {
                let r = wait(&req);
                buf.copy_from_slice(&req.data.lock());
                r
            }
        }
    }

    /// Writes `buf.len() / 512` sectors from `sector` on.
    pub fn write(&self, driver: &dyn BlockDriver, sector: u64, buf: &[u8]) -> Result<()> {
        if self.hold(driver, sector, buf) {
            return Ok(());
        }
        match self.claim_or_enqueue(driver, || (Op::Write, sector, buf.to_vec())) {
            None => {
                let r = self.issue_write(driver, sector, buf, 1);
                self.drain(driver);
                r
            }
            Some(req) => wait(&req),
        }
    }

    /// Makes every write completed before the call durable.
    pub fn flush(&self, driver: &dyn BlockDriver) -> Result<()> {
        self.send_held(driver);
        if let Some(e) = self.inner.lock().held_error.take() {
            return Err(e);
        }
        match self.claim_or_enqueue(driver, || (Op::Flush, 0, Vec::new())) {
            None => {
                let r = self.issue_flush(driver);
                self.drain(driver);
                r
            }
            Some(req) => wait(&req),
        }
    }

    /// Becomes the dispatcher if there is none (`None`: the caller runs
    /// its request itself, then drains the queue); else queues the
    /// request `make` describes for the dispatcher at work and returns it.
    fn claim_or_enqueue(&self, driver: &dyn BlockDriver, make: impl FnOnce() -> (Op, u64, Vec<u8>)) -> Option<Arc<Request>> {
        {
            let mut inner = self.inner.lock();
            if !inner.dispatching {
                inner.dispatching = true;
                return None;
            }
        }
        // Copy the data outside the lock, then look again: the dispatcher
        // may have finished meanwhile.
        let (op, sector, data) = make();
        let req = Arc::new(Request { op, sector, data: SpinLock::new(data), done: SpinLock::new(None) });
        let mut inner = self.inner.lock();
        if !inner.dispatching {
            inner.dispatching = true;
            inner.pending.push(req.clone());
            drop(inner);
            // Ours is the only request pending that no one dispatches.
            self.drain(driver);
            return Some(req);
        }
        inner.pending.push(req.clone());
        Some(req)
    }

    fn timed<T>(&self, f: impl FnOnce() -> T, ns: &AtomicU64) -> T {
        let t0 = kevlar_platform::time::monotonic_ns();
        let r = f();
        let dt = kevlar_platform::time::monotonic_ns().saturating_sub(t0);
        ns.fetch_add(dt, Ordering::Relaxed);
        self.stats.busy_ns.fetch_add(dt, Ordering::Relaxed);
        r
    }

    fn issue_read(&self, driver: &dyn BlockDriver, sector: u64, buf: &mut [u8], merged: usize) -> Result<()> {
        let r = self.timed(|| driver.read(sector, buf), &self.stats.read_ns);
        self.stats.reads.fetch_add(1, Ordering::Relaxed);
        self.stats.reads_merged.fetch_add(merged as u64 - 1, Ordering::Relaxed);
        self.stats.sectors_read.fetch_add((buf.len() / SECTOR) as u64, Ordering::Relaxed);
        crate::mm::vmstat::count(crate::mm::vmstat::Event::KibIn, buf.len() as u64 / 1024);
        r
    }

    fn issue_write(&self, driver: &dyn BlockDriver, sector: u64, buf: &[u8], merged: usize) -> Result<()> {
        let r = self.timed(|| driver.write(sector, buf), &self.stats.write_ns);
        self.stats.writes.fetch_add(1, Ordering::Relaxed);
        self.stats.writes_merged.fetch_add(merged as u64 - 1, Ordering::Relaxed);
        self.stats.sectors_written.fetch_add((buf.len() / SECTOR) as u64, Ordering::Relaxed);
        crate::mm::vmstat::count(crate::mm::vmstat::Event::KibOut, buf.len() as u64 / 1024);
        r
    }

    fn issue_flush(&self, driver: &dyn BlockDriver) -> Result<()> {
        let r = self.timed(|| driver.flush(), &self.stats.flush_ns);
        self.stats.flushes.fetch_add(1, Ordering::Relaxed);
        r
    }

    /// Dispatches queued requests until none is left, then stops being
    /// the dispatcher.
    fn drain(&self, driver: &dyn BlockDriver) {
        loop {
            let batch = {
                let mut inner = self.inner.lock();
                if inner.pending.is_empty() {
                    inner.dispatching = false;
                    return;
                }
                core::mem::take(&mut inner.pending)
            };
            self.dispatch(driver, &batch);
        }
    }

    fn dispatch(&self, driver: &dyn BlockDriver, batch: &[Arc<Request>]) {
        let shape: Vec<(Op, u64, usize)> = batch.iter().map(|r| (r.op, r.sector, r.data.lock().len())).collect();
        let (order, runs) = plan(&shape, self.max_bytes);
        // One driver request per run (or per request of a run whose merged
        // buffer there is no memory for), all handed to the driver at once
        // so that it keeps as many in flight as the device takes.
        let mut items: Vec<BatchItem> = Vec::with_capacity(runs.len());
        let mut owners: Vec<Vec<&Arc<Request>>> = Vec::with_capacity(runs.len());
        for run in &runs {
            let reqs: Vec<&Arc<Request>> = order[run.first..run.first + run.count].iter().map(|&i| &batch[i]).collect();
            let merged = match run.op {
                Op::Flush => Some(Vec::new()),
                _ if run.count == 1 => Some(core::mem::take(&mut *reqs[0].data.lock())),
                Op::Write => {
                    let mut joined = Vec::new();
                    joined.try_reserve_exact(run.bytes).ok().map(|()| {
                        for r in &reqs {
                            joined.extend_from_slice(&r.data.lock());
                        }
                        joined
                    })
                }
                Op::Read => {
                    let mut joined = Vec::new();
                    joined.try_reserve_exact(run.bytes).ok().map(|()| {
                        joined.resize(run.bytes, 0);
                        joined
                    })
                }
            };
            match merged {
                Some(data) => {
                    items.push(BatchItem { op: run.op, sector: run.sector, data, result: Ok(()) });
                    owners.push(reqs);
                }
                None => {
                    // No memory to merge: one driver request each.
                    for r in reqs {
                        let data = core::mem::take(&mut *r.data.lock());
                        items.push(BatchItem { op: r.op, sector: r.sector, data, result: Ok(()) });
                        owners.push(vec![r]);
                    }
                }
            }
        }
        let t0 = kevlar_platform::time::monotonic_ns();
        driver.run_batch(&mut items);
        let dt = kevlar_platform::time::monotonic_ns().saturating_sub(t0);
        self.stats.busy_ns.fetch_add(dt, Ordering::Relaxed);
        for (item, reqs) in items.into_iter().zip(owners) {
            self.count(&item, reqs.len(), dt);
            let result = item.result;
            if reqs.len() == 1 {
                if item.op != Op::Flush {
                    *reqs[0].data.lock() = item.data;
                }
            } else if item.op == Op::Read {
                let mut at = 0;
                for q in &reqs {
                    let mut data = q.data.lock();
                    let n = data.len();
                    data.copy_from_slice(&item.data[at..at + n]);
                    at += n;
                }
            }
            for r in reqs {
                *r.done.lock() = Some(result);
            }
        }
    }

    /// Counts one driver request of a batch that took `ns`.
    fn count(&self, item: &BatchItem, merged: usize, ns: u64) {
        let sectors = (item.data.len() / SECTOR) as u64;
        let kib = item.data.len() as u64 / 1024;
        match item.op {
            Op::Read => {
                self.stats.reads.fetch_add(1, Ordering::Relaxed);
                self.stats.reads_merged.fetch_add(merged as u64 - 1, Ordering::Relaxed);
                self.stats.sectors_read.fetch_add(sectors, Ordering::Relaxed);
                self.stats.read_ns.fetch_add(ns, Ordering::Relaxed);
                crate::mm::vmstat::count(crate::mm::vmstat::Event::KibIn, kib);
            }
            Op::Write => {
                self.stats.writes.fetch_add(1, Ordering::Relaxed);
                self.stats.writes_merged.fetch_add(merged as u64 - 1, Ordering::Relaxed);
                self.stats.sectors_written.fetch_add(sectors, Ordering::Relaxed);
                self.stats.write_ns.fetch_add(ns, Ordering::Relaxed);
                crate::mm::vmstat::count(crate::mm::vmstat::Event::KibOut, kib);
            }
            Op::Flush => {
                self.stats.flushes.fetch_add(1, Ordering::Relaxed);
                self.stats.flush_ns.fetch_add(ns, Ordering::Relaxed);
            }
        }
    }
}

/// Moves the held writes to the pending list, the caller becoming the
/// dispatcher if there is none; returns them and whether it did.
fn take_held(inner: &mut Inner) -> Option<(Vec<Arc<Request>>, bool)> {
    if inner.held.is_empty() {
        return None;
    }
    let held = core::mem::take(&mut inner.held);
    inner.held_bytes = 0;
    inner.pending.extend(held.iter().cloned());
    let claimed = !inner.dispatching;
    inner.dispatching = true;
    Some((held, claimed))
}

/// Waits (spinning: see the module's comment) for a queued request.
fn wait(req: &Arc<Request>) -> Result<()> {
    loop {
        if let Some(r) = *req.done.lock() {
            return r;
        }
        core::hint::spin_loop();
    }
}
