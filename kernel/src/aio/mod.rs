//! Linux native asynchronous I/O (io_setup(2), io_submit(2),
//! io_getevents(2), io_cancel(2), io_destroy(2)): the contexts, their
//! completion rings in user memory and the requests that wait
//! (IOCB_CMD_POLL). The system calls decode the ABI in
//! `syscalls/aio.rs` and do reads, writes and syncs through the files'
//! own operations; this module owns what outlives a call.
//!
//! A context belongs to an address space (Linux's `mm->ioctx_table`):
//! threads share it, fork does not pass it on, exec and exit drop it with
//! the old address space. Its ring is a shared mapping in that address
//! space laid out as Linux's `struct aio_ring` (magic, head, tail, then
//! `struct io_event`s), so programs (libaio, fio's userspace reap) read
//! completions without a system call; the kernel appends at the tail and
//! takes the head from the ring, where user space may have moved it.
//!
//! Requests hold a place in the ring from submission to completion, so a
//! completion never finds the ring full: io_submit fails with EAGAIN
//! while the events not yet reaped plus the requests in flight fill it.

use alloc::sync::{Arc, Weak};
use alloc::vec::Vec;
use core::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use kevlar_platform::mm::pmm::PageRef;
use kevlar_platform::mm::PAGE_SIZE;
use kevlar_platform::sync::SpinLock;

use crate::error::{Errno, Result};
use crate::fs::file::{OpenFile, PollEvents, POLLERR, POLLHUP};
use crate::fs::poll_queue::PollHook;
use crate::mm::{Backing, Prot, SharedPages, Vm, Vma};
use crate::process::wait_queue::WaitQueue;

/// `struct aio_ring`'s magic number and feature words (linux/aio.h's
/// AIO_RING_MAGIC, AIO_RING_COMPAT_FEATURES, AIO_RING_INCOMPAT_FEATURES;
/// the kernel-internal header is not in linux-raw-sys).
const AIO_RING_MAGIC: u32 = 0xa10a_10a1;
const AIO_RING_COMPAT_FEATURES: u32 = 1;
const AIO_RING_INCOMPAT_FEATURES: u32 = 0;
/// sizeof(struct aio_ring) and sizeof(struct io_event).
const RING_HEADER: usize = 32;
pub const EVENT_SIZE: usize = 32;
/// Offsets of the ring header's words.
const RING_ID: usize = 0;
const RING_NR: usize = 4;
const RING_HEAD: usize = 8;
const RING_TAIL: usize = 12;

/// aio-max-nr's default (Linux's 0x10000) and the events now allocated.
static AIO_MAX_NR: AtomicU64 = AtomicU64::new(0x10000);
static AIO_NR: SpinLock<u64> = SpinLock::new(0);

/// /proc/sys/fs/aio-nr: the events of every live context, as their
/// io_setup asked.
pub fn aio_nr() -> u64 {
    *AIO_NR.lock()
}

/// /proc/sys/fs/aio-max-nr.
pub fn aio_max_nr() -> u64 {
    AIO_MAX_NR.load(Ordering::Relaxed)
}

/// Sets aio-max-nr.
pub fn set_aio_max_nr(value: u64) {
    AIO_MAX_NR.store(value, Ordering::Relaxed);
}

/// One completion as `struct io_event` holds it.
#[derive(Clone, Copy)]
pub struct Event {
    /// The iocb's aio_data.
    pub data: u64,
    /// The iocb's user address.
    pub obj: u64,
    pub res: i64,
    pub res2: i64,
}

impl Event {
    fn bytes(&self) -> [u8; EVENT_SIZE] {
        let mut out = [0u8; EVENT_SIZE];
        out[0..8].copy_from_slice(&self.data.to_le_bytes());
        out[8..16].copy_from_slice(&self.obj.to_le_bytes());
        out[16..24].copy_from_slice(&self.res.to_le_bytes());
        out[24..32].copy_from_slice(&self.res2.to_le_bytes());
        out
    }
}

struct State {
    /// The kernel's copy of the tail (the ring's may be scribbled on).
    tail: u32,
    /// Requests submitted and not completed.
    inflight: u32,
    /// Poll requests waiting (what io_cancel can cancel).
    active: Vec<Arc<PollRequest>>,
    /// io_destroy ran: no new requests, io_getevents fails.
    dead: bool,
    /// A thread is copying events out (Linux's ring_lock).
    reaping: bool,
}

/// An aio context.
pub struct Context {
    /// The ring's address: the context's id for user space.
    pub user_id: usize,
    /// The ring's mapped length.
    pub mmap_len: usize,
    /// The ring's pages (the mapping shares them).
    pages: Vec<PageRef>,
    /// Events the ring holds (ring->nr).
    nr_events: u32,
    /// What io_setup asked for (counted in aio-nr).
    max_reqs: u64,
    accounted: AtomicBool,
    state: SpinLock<State>,
    /// io_getevents sleepers, and io_destroy waiting for the requests in
    /// flight.
    pub waiters: WaitQueue,
}

/// The contexts of an address space, by slot (the ring's id word).
#[derive(Default)]
pub struct Contexts {
    slots: Vec<Option<Arc<Context>>>,
}

impl Contexts {
    fn find(&self, ctx_id: usize) -> Option<&Arc<Context>> {
        self.slots.iter().flatten().find(|c| c.user_id == ctx_id)
    }
}

/// The context `ctx_id` of the address space `vm` (EINVAL: none).
pub fn lookup(vm: &SpinLock<Vm>, ctx_id: u64) -> Result<Arc<Context>> {
    let vm = vm.lock();
    vm.aio.find(ctx_id as usize).cloned().ok_or(Errno::EINVAL)
}

/// io_setup: makes a context for `nr_events` requests in `vm` and maps its
/// ring; returns it (its id is `user_id`). `cpus` is Linux's
/// num_possible_cpus, which sizes the ring.
pub fn setup(vm: &SpinLock<Vm>, nr_events: u32, cpus: usize) -> Result<Arc<Context>> {
    let max_reqs = nr_events as u64;
    // Linux doubles the request (half of the places may sit in other
    // CPUs' caches) and keeps at least four per CPU.
    let doubled = max_reqs.max(cpus as u64 * 4) * 2;
    if doubled > 0x1000_0000 / EVENT_SIZE as u64 {
        return Err(Errno::EINVAL);
    }
    if max_reqs == 0 || max_reqs > aio_max_nr() {
        return Err(Errno::EAGAIN);
    }
    // One spare event is required, one more "for good luck" (Linux's
    // aio_setup_ring); the ring then takes whole pages.
    let bytes = RING_HEADER + EVENT_SIZE * (doubled as usize + 2);
    let npages = bytes.div_ceil(PAGE_SIZE);
    let ring_events = ((npages * PAGE_SIZE - RING_HEADER) / EVENT_SIZE) as u32;
    let ring = Arc::new(SharedPages::aio_ring());
    let mut pages = Vec::new();
    pages.try_reserve(npages).map_err(|_| Errno::ENOMEM)?;
    for i in 0..npages {
        pages.push(ring.page(i)?);
    }
    let len = npages * PAGE_SIZE;
    let ctx = {
        let mut vm = vm.lock();
        let start = vm.find_free(len).ok_or(Errno::ENOMEM)?;
        let slot = match vm.aio.slots.iter().position(Option::is_none) {
            Some(slot) => slot,
            None => {
                vm.aio.slots.try_reserve(1).map_err(|_| Errno::ENOMEM)?;
                vm.aio.slots.push(None);
                vm.aio.slots.len() - 1
            }
        };
        {
            let mut total = AIO_NR.lock();
            match total.checked_add(max_reqs) {
                Some(sum) if sum <= aio_max_nr() => *total = sum,
                _ => return Err(Errno::EAGAIN),
            }
        }
        let ctx = Arc::new(Context {
            user_id: start,
            mmap_len: len,
            pages,
            nr_events: ring_events,
            max_reqs,
            accounted: AtomicBool::new(true),
            state: SpinLock::new(State { tail: 0, inflight: 0, active: Vec::new(), dead: false, reaping: false }),
            waiters: WaitQueue::new(),
        });
        ctx.write_u32(RING_ID, slot as u32);
        ctx.write_u32(RING_NR, ring_events);
        ctx.write_u32(RING_HEAD, 0);
        ctx.write_u32(RING_TAIL, 0);
        ctx.write_u32(16, AIO_RING_MAGIC);
        ctx.write_u32(20, AIO_RING_COMPAT_FEATURES);
        ctx.write_u32(24, AIO_RING_INCOMPAT_FEATURES);
        ctx.write_u32(28, RING_HEADER as u32);
        let prot = Prot::from_bits(linux_raw_sys::general::PROT_READ | linux_raw_sys::general::PROT_WRITE)?;
        vm.map(Vma { start, end: start + len, prot, backing: Backing::Shared(ring), shared_page_base: 0, write_denied: false, exec_denied: false });
        vm.aio.slots[slot] = Some(ctx.clone());
        ctx
    };
    Ok(ctx)
}

/// io_destroy: takes the context out of `vm` (EINVAL: not there), unmaps
/// its ring, cancels the requests that wait and waits for the others.
pub fn destroy(vm: &SpinLock<Vm>, ctx_id: u64) -> Result<()> {
    let ctx = {
        let mut vm = vm.lock();
        let slot = vm.aio.slots.iter().position(|c| c.as_ref().is_some_and(|c| c.user_id == ctx_id as usize)).ok_or(Errno::EINVAL)?;
        let ctx = vm.aio.slots[slot].take().ok_or(Errno::EINVAL)?;
        vm.unmap(ctx.user_id, ctx.user_id + ctx.mmap_len);
        ctx
    };
    let waiting = {
        let mut state = ctx.state.lock();
        state.dead = true;
        core::mem::take(&mut state.active)
    };
    // Cancelled without an event: the ring is gone (Linux posts theirs
    // into the dying ring after the waiters saw the context dead).
    for request in waiting {
        if !request.done.swap(true, Ordering::AcqRel) {
            ctx.abort();
        }
    }
    ctx.waiters.wake_all();
    ctx.waiters.wait_until_uninterruptible(|| (ctx.state.lock().inflight == 0).then_some(()));
    ctx.release();
    Ok(())
}

impl Context {
    fn write_u32(&self, offset: usize, value: u32) {
        self.pages[offset / PAGE_SIZE].write(offset % PAGE_SIZE, &value.to_le_bytes());
    }

    fn read_u32(&self, offset: usize) -> u32 {
        let mut raw = [0u8; 4];
        self.pages[offset / PAGE_SIZE].read(offset % PAGE_SIZE, &mut raw);
        u32::from_le_bytes(raw)
    }

    fn event_offset(index: u32) -> usize {
        RING_HEADER + index as usize * EVENT_SIZE
    }

    /// ring->nr: what io_submit clamps its count to.
    pub fn nr_events(&self) -> u32 {
        self.nr_events
    }

    /// Events in the ring not reaped yet (head as user space left it).
    fn pending(&self, state: &State) -> u32 {
        let head = self.read_u32(RING_HEAD) % self.nr_events;
        (state.tail + self.nr_events - head) % self.nr_events
    }

    /// Takes a place for a new request (Linux's aio_get_req): EAGAIN when
    /// the ring could not hold its completion.
    pub fn begin(&self) -> Result<()> {
        let mut state = self.state.lock();
        if state.dead {
            return Err(Errno::EINVAL);
        }
        if state.inflight + self.pending(&state) >= self.nr_events - 1 {
            return Err(Errno::EAGAIN);
        }
        state.inflight += 1;
        Ok(())
    }

    /// Gives back the place of a request that was refused.
    pub fn abort(&self) {
        self.state.lock().inflight -= 1;
        self.waiters.wake_all();
    }

    /// Completes a request: appends its event to the ring, signals its
    /// eventfd (IOCB_FLAG_RESFD) and wakes io_getevents.
    pub fn complete(&self, event: Event, eventfd: Option<&Arc<OpenFile>>) {
        {
            let mut state = self.state.lock();
            let at = Self::event_offset(state.tail);
            self.pages[at / PAGE_SIZE].write(at % PAGE_SIZE, &event.bytes());
            state.tail = (state.tail + 1) % self.nr_events;
            // The event is in place before the tail moves (x86 keeps
            // stores in order; user space reads tail, then events).
            self.write_u32(RING_TAIL, state.tail);
            state.inflight -= 1;
        }
        if let Some(efd) = eventfd.and_then(|f| f.ops.as_eventfd()) {
            efd.signal(1);
        }
        self.waiters.wake_all();
    }

    /// Whether io_getevents must stop: the context was destroyed.
    pub fn is_dead(&self) -> bool {
        self.state.lock().dead
    }

    /// Whether events wait in the ring.
    pub fn has_events(&self) -> bool {
        let state = self.state.lock();
        self.pending(&state) > 0
    }

    /// Takes up to `max` events from the head of the ring and hands them
    /// to `deliver` (which copies them out); the head moves past them only
    /// when `deliver` succeeds (Linux's aio_read_events_ring).
    pub fn reap(&self, max: usize, deliver: impl FnOnce(&[u8]) -> Result<()>) -> Result<usize> {
        self.waiters.wait_until_uninterruptible(|| {
            let mut state = self.state.lock();
            if state.reaping {
                return None;
            }
            state.reaping = true;
            Some(())
        });
        let result = self.reap_locked(max, deliver);
        self.state.lock().reaping = false;
        self.waiters.wake_all();
        result
    }

    fn reap_locked(&self, max: usize, deliver: impl FnOnce(&[u8]) -> Result<()>) -> Result<usize> {
        let (head, count) = {
            let state = self.state.lock();
            let head = self.read_u32(RING_HEAD) % self.nr_events;
            (head, (self.pending(&state) as usize).min(max))
        };
        if count == 0 {
            return Ok(0);
        }
        let mut out = Vec::new();
        out.try_reserve_exact(count * EVENT_SIZE).map_err(|_| Errno::ENOMEM)?;
        out.resize(count * EVENT_SIZE, 0);
        for i in 0..count {
            let at = Self::event_offset((head + i as u32) % self.nr_events);
            self.pages[at / PAGE_SIZE].read(at % PAGE_SIZE, &mut out[i * EVENT_SIZE..(i + 1) * EVENT_SIZE]);
        }
        deliver(&out)?;
        let _state = self.state.lock();
        self.write_u32(RING_HEAD, (head + count as u32) % self.nr_events);
        Ok(count)
    }

    /// io_cancel of the request at user address `obj`: a waiting poll is
    /// completed (its event carries 0) and Ok; anything else (done, not
    /// cancellable) is EINVAL, as Linux 6.1.
    pub fn cancel(&self, obj: u64) -> Result<()> {
        let request = {
            let mut state = self.state.lock();
            let at = state.active.iter().position(|r| r.event.obj == obj).ok_or(Errno::EINVAL)?;
            state.active.remove(at)
        };
        request.finish(Some(0));
        Ok(())
    }

    /// Gives the context's events back to aio-nr (once).
    fn release(&self) {
        if self.accounted.swap(false, Ordering::AcqRel) {
            *AIO_NR.lock() -= self.max_reqs;
        }
    }
}

impl Drop for Context {
    fn drop(&mut self) {
        self.release();
    }
}

/// An IOCB_CMD_POLL request waiting for its file (Linux's poll_iocb): a
/// hook on the file's readiness queue that completes the request the
/// first time the file shows one of the events asked for.
pub struct PollRequest {
    ctx: Weak<Context>,
    file: Arc<OpenFile>,
    /// The events asked for, with POLLERR and POLLHUP.
    events: PollEvents,
    event: Event,
    eventfd: Option<Arc<OpenFile>>,
    done: AtomicBool,
}

impl PollRequest {
    /// Completes the request with `mask` (None: what the file shows now).
    fn finish(&self, mask: Option<PollEvents>) {
        let mask = mask.unwrap_or_else(|| self.file.ops.poll() & self.events);
        if self.done.swap(true, Ordering::AcqRel) {
            return;
        }
        let Some(ctx) = self.ctx.upgrade() else { return };
        ctx.complete(Event { res: mask as i64, ..self.event }, self.eventfd.as_ref());
    }
}

impl PollHook for PollRequest {
    /// Linux's aio_poll_wake: a wake-up that names its events completes
    /// the request with them (unmasked, as Linux reports the wake-up's key)
    /// when one was asked for; one that does not looks at the file.
    fn notify(&self, hint: u32) -> bool {
        if self.done.load(Ordering::Acquire) {
            return false;
        }
        let mask = if hint != 0 {
            if hint as PollEvents & self.events == 0 {
                return false;
            }
            hint as PollEvents
        } else {
            self.file.ops.poll() & self.events
        };
        if mask == 0 {
            return false;
        }
        let Some(ctx) = self.ctx.upgrade() else { return false };
        // Off the cancellable list first: whoever takes it completes it.
        let mine = {
            let mut state = ctx.state.lock();
            let at = state.active.iter().position(|r| core::ptr::eq(Arc::as_ptr(r), self));
            at.map(|at| state.active.remove(at))
        };
        if let Some(me) = mine {
            me.finish(Some(mask));
        }
        true
    }
}

/// IOCB_CMD_POLL: completes at once when `file` already shows one of
/// `events` (user POLL* bits); otherwise waits on the file's readiness
/// queue. A file that cannot be waited on (a regular file or directory,
/// whose readiness never changes) and shows none of them is EINVAL, as
/// Linux for files without a poll method. The place in the ring must be
/// taken (`begin`); it is given back on error.
pub fn submit_poll(ctx: &Arc<Context>, file: Arc<OpenFile>, events: u16, event: Event, eventfd: Option<Arc<OpenFile>>) -> Result<()> {
    let events = events | POLLERR | POLLHUP;
    let mask = file.ops.poll() & events;
    if mask != 0 {
        ctx.complete(Event { res: mask as i64, ..event }, eventfd.as_ref());
        return Ok(());
    }
    let static_readiness = file.ops.inode().is_some_and(|i| matches!(i.file_type(), kevlar_vfs::FileType::Regular | kevlar_vfs::FileType::Directory)) && file.ops.poll_queue().is_none();
    if static_readiness {
        return Err(Errno::EINVAL);
    }
    let request = Arc::new(PollRequest { ctx: Arc::downgrade(ctx), file: file.clone(), events, event, eventfd, done: AtomicBool::new(false) });
    let hook: Arc<dyn PollHook> = request.clone();
    ctx.state.lock().active.push(request.clone());
    crate::fs::poll_queue::queue_of(&file).add(&hook);
    // A change between the first look and the registration is not lost.
    hook.notify(0);
    Ok(())
}
