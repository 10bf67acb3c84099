//! Native asynchronous I/O: io_setup, io_destroy, io_submit, io_cancel,
//! io_getevents, io_pgetevents (Linux 6.1's fs/aio.c ABI). Contexts,
//! rings and waiting requests are `crate::aio`'s; this file decodes
//! `struct iocb`, checks what Linux refuses at submission (the call's
//! error) and runs reads, writes and syncs through the file's operations,
//! whose result (or error) becomes the request's event.
//!
//! Reads, writes and syncs complete during io_submit, as Linux's buffered
//! I/O does; IOCB_CMD_POLL waits.

use alloc::sync::Arc;

use kevlar_platform::time;
use linux_raw_sys::general as abi;

use super::{read_bytes, read_u64};
use crate::aio::{self, Context, Event, EVENT_SIZE};
use crate::error::{Errno, Result};
use crate::fs::file::{OpenFile, POLLIN, POLLOUT};
use crate::process::Thread;
use crate::uaccess::copy_to_user;

// linux/aio_abi.h (linux-raw-sys has no binding of it).
const IOCB_CMD_PREAD: u16 = 0;
const IOCB_CMD_PWRITE: u16 = 1;
const IOCB_CMD_FSYNC: u16 = 2;
const IOCB_CMD_FDSYNC: u16 = 3;
const IOCB_CMD_POLL: u16 = 5;
const IOCB_CMD_PREADV: u16 = 7;
const IOCB_CMD_PWRITEV: u16 = 8;
const IOCB_FLAG_RESFD: u32 = 1;
const IOCB_FLAG_IOPRIO: u32 = 2;
/// sizeof(struct iocb) and the offset of aio_key in it.
const IOCB_SIZE: usize = 64;
const IOCB_KEY: usize = 8;
/// The key io_submit writes into aio_key and io_cancel expects (KIOCB_KEY).
const KIOCB_KEY: u32 = 0;
/// The RWF_* flags Linux 6.1 knows (RWF_SUPPORTED).
const RWF_SUPPORTED: u32 = abi::RWF_HIPRI | abi::RWF_DSYNC | abi::RWF_SYNC | abi::RWF_NOWAIT | abi::RWF_APPEND;
/// Linux's MAX_RW_COUNT: one request moves at most this much.
const MAX_RW_COUNT: u64 = 0x7fff_f000;

/// `struct iocb` as user space filled it.
struct Iocb {
    data: u64,
    rw_flags: u32,
    opcode: u16,
    reqprio: i16,
    fd: u32,
    buf: u64,
    nbytes: u64,
    offset: i64,
    reserved2: u64,
    flags: u32,
    resfd: u32,
}

impl Iocb {
    fn read(addr: usize) -> Result<Iocb> {
        let raw = read_bytes::<IOCB_SIZE>(addr)?;
        let u64_at = |o: usize| u64::from_le_bytes(raw[o..o + 8].try_into().unwrap());
        let u32_at = |o: usize| u32::from_le_bytes(raw[o..o + 4].try_into().unwrap());
        Ok(Iocb {
            data: u64_at(0),
            rw_flags: u32_at(12),
            opcode: u16::from_le_bytes([raw[16], raw[17]]),
            reqprio: i16::from_le_bytes([raw[18], raw[19]]),
            fd: u32_at(20),
            buf: u64_at(24),
            nbytes: u64_at(32),
            offset: u64_at(40) as i64,
            reserved2: u64_at(48),
            flags: u32_at(56),
            resfd: u32_at(60),
        })
    }
}

fn vm_of(thread: &Thread) -> Arc<kevlar_platform::sync::SpinLock<crate::mm::Vm>> {
    thread.process.vm.lock().clone()
}

fn file(thread: &Thread, fd: i32) -> Result<Arc<OpenFile>> {
    thread.process.files.lock().lock().get(fd)
}

pub fn io_setup(thread: &Thread, nr_events: u32, ctxp: usize) -> Result<isize> {
    let current = read_u64(ctxp)?;
    if current != 0 || nr_events == 0 {
        return Err(Errno::EINVAL);
    }
    let vm = vm_of(thread);
    let ctx = aio::setup(&vm, nr_events, kevlar_platform::smp::cpu_count())?;
    if let Err(e) = super::write_u64(ctxp, ctx.user_id as u64) {
        let _ = aio::destroy(&vm, ctx.user_id as u64);
        return Err(e);
    }
    Ok(0)
}

pub fn io_destroy(thread: &Thread, ctx_id: u64) -> Result<isize> {
    aio::destroy(&vm_of(thread), ctx_id)?;
    Ok(0)
}

pub fn io_submit(thread: &Thread, ctx_id: u64, nr: i64, iocbpp: usize) -> Result<isize> {
    if nr < 0 {
        return Err(Errno::EINVAL);
    }
    let ctx = aio::lookup(&vm_of(thread), ctx_id)?;
    let nr = nr.min(ctx.nr_events() as i64) as usize;
    let mut done = 0;
    let mut error = Ok(());
    while done < nr {
        if done > 0 && !thread.checkpoint() {
            break;
        }
        let result = iocbpp.checked_add(done * 8).ok_or(Errno::EFAULT).and_then(read_u64).and_then(|user_iocb| submit_one(thread, &ctx, user_iocb as usize));
        if let Err(e) = result {
            error = Err(e);
            break;
        }
        done += 1;
    }
    match (done, error) {
        (0, Err(e)) => Err(e),
        (n, _) => Ok(n as isize),
    }
}

/// One iocb (Linux's io_submit_one): Err is io_submit's error for it, Ok
/// that its event is in the ring or will be.
fn submit_one(thread: &Thread, ctx: &Arc<Context>, user_iocb: usize) -> Result<()> {
    let iocb = Iocb::read(user_iocb)?;
    if iocb.reserved2 != 0 {
        return Err(Errno::EINVAL);
    }
    if (iocb.nbytes as i64) < 0 {
        return Err(Errno::EINVAL);
    }
    ctx.begin()?;
    match submit_prepared(thread, ctx, user_iocb, &iocb) {
        Ok(Some((res, eventfd))) => {
            ctx.complete(Event { data: iocb.data, obj: user_iocb as u64, res, res2: 0 }, eventfd.as_ref());
            Ok(())
        }
        Ok(None) => Ok(()),
        Err(e) => {
            ctx.abort();
            Err(e)
        }
    }
}

/// What a request ends with now: its result and eventfd (None when it
/// waits: a poll).
type Outcome = Option<(i64, Option<Arc<OpenFile>>)>;

fn submit_prepared(thread: &Thread, ctx: &Arc<Context>, user_iocb: usize, iocb: &Iocb) -> Result<Outcome> {
    let f = file(thread, iocb.fd as i32)?;
    let eventfd = if iocb.flags & IOCB_FLAG_RESFD != 0 {
        let efd = file(thread, iocb.resfd as i32)?;
        if efd.ops.as_eventfd().is_none() {
            return Err(Errno::EINVAL);
        }
        Some(efd)
    } else {
        None
    };
    copy_to_user(user_iocb + IOCB_KEY, &KIOCB_KEY.to_le_bytes())?;
    let res = match iocb.opcode {
        IOCB_CMD_PREAD | IOCB_CMD_PREADV => read(thread, &f, iocb, iocb.opcode == IOCB_CMD_PREADV)?,
        IOCB_CMD_PWRITE | IOCB_CMD_PWRITEV => write(thread, &f, iocb, iocb.opcode == IOCB_CMD_PWRITEV)?,
        IOCB_CMD_FSYNC | IOCB_CMD_FDSYNC => {
            if iocb.buf != 0 || iocb.offset != 0 || iocb.nbytes != 0 || iocb.rw_flags != 0 {
                return Err(Errno::EINVAL);
            }
            // Pipes, sockets and terminals have no fsync.
            if !f.ops.is_seekable() {
                return Err(Errno::EINVAL);
            }
            result(super::fs::fsync_file(&f))
        }
        IOCB_CMD_POLL => {
            if iocb.buf as u16 as u64 != iocb.buf {
                return Err(Errno::EINVAL);
            }
            if iocb.offset != 0 || iocb.nbytes != 0 || iocb.rw_flags != 0 {
                return Err(Errno::EINVAL);
            }
            let event = Event { data: iocb.data, obj: user_iocb as u64, res: 0, res2: 0 };
            aio::submit_poll(ctx, f, iocb.buf as u16, event, eventfd)?;
            return Ok(None);
        }
        _ => return Err(Errno::EINVAL),
    };
    Ok(Some((res, eventfd)))
}

/// A data call's outcome as an event's res.
fn result(r: Result<isize>) -> i64 {
    match r {
        Ok(n) => n as i64,
        Err(e) => -(e.code() as i64),
    }
}

/// The checks of a read or write that make io_submit fail (Linux's
/// aio_prep_rw, the f_mode and read_iter/write_iter tests, aio_setup_rw
/// and rw_verify_area), then the RWF_NOWAIT readiness: Some(-EAGAIN) when
/// a file that could block is not ready.
fn prepare_rw(thread: &Thread, f: &OpenFile, iocb: &Iocb, vectored: bool, writing: bool) -> Result<Option<i64>> {
    if iocb.flags & IOCB_FLAG_IOPRIO != 0 {
        super::sched::check_ioprio(thread, iocb.reqprio as i32)?;
    }
    if iocb.rw_flags & !RWF_SUPPORTED != 0 {
        return Err(Errno::EOPNOTSUPP);
    }
    let waits = !f.ops.is_seekable();
    if iocb.rw_flags & abi::RWF_NOWAIT != 0 && !waits {
        return Err(Errno::EOPNOTSUPP);
    }
    let allowed = if writing { f.writable() } else { f.readable() };
    if !allowed {
        return Err(Errno::EBADF);
    }
    // Directories have no read_iter or write_iter.
    if f.ops.inode().is_some_and(|i| i.file_type() == kevlar_vfs::FileType::Directory) {
        return Err(Errno::EINVAL);
    }
    let total = if vectored {
        let vecs = super::fs::read_iovecs(iocb.buf as usize, iocb.nbytes as usize)?;
        for &(base, len) in &vecs {
            user_range(base, len)?;
        }
        vecs.iter().map(|v| v.1 as u64).sum()
    } else {
        user_range(iocb.buf as usize, iocb.nbytes as usize)?;
        iocb.nbytes.min(MAX_RW_COUNT)
    };
    if iocb.offset < 0 || iocb.offset.checked_add_unsigned(total).is_none() {
        return Err(Errno::EINVAL);
    }
    if iocb.rw_flags & abi::RWF_NOWAIT != 0 {
        let want = if writing { POLLOUT } else { POLLIN };
        if f.ops.poll() & want == 0 {
            return Ok(Some(-(Errno::EAGAIN.code() as i64)));
        }
    }
    Ok(None)
}

/// Linux's access_ok: the range lies in user space (EFAULT).
fn user_range(base: usize, len: usize) -> Result<()> {
    if kevlar_platform::x86::user::is_user_range(base, len) { Ok(()) } else { Err(Errno::EFAULT) }
}

// The I/O is done on the file looked up at submission (Linux's iocb holds
// it): the descriptor may name another file by the time a blocked
// request goes on.
fn read(thread: &Thread, f: &Arc<OpenFile>, iocb: &Iocb, vectored: bool) -> Result<i64> {
    if let Some(res) = prepare_rw(thread, f, iocb, vectored, false)? {
        return Ok(res);
    }
    let (buf, n) = (iocb.buf as usize, iocb.nbytes as usize);
    let seekable = f.ops.is_seekable();
    let offset = seekable.then_some(iocb.offset);
    Ok(result(match (vectored, offset) {
        (false, Some(offset)) => super::fs::pread_file(thread, f, buf, n, offset),
        (false, None) => super::fs::read_file(thread, f, buf, n),
        (true, offset) => super::fs::readv_file(thread, f, buf, n, offset),
    }))
}

fn write(thread: &Thread, f: &Arc<OpenFile>, iocb: &Iocb, vectored: bool) -> Result<i64> {
    if let Some(res) = prepare_rw(thread, f, iocb, vectored, true)? {
        return Ok(res);
    }
    let (buf, n) = (iocb.buf as usize, iocb.nbytes as usize);
    let seekable = f.ops.is_seekable();
    // RWF_APPEND writes at the end, as O_APPEND.
    let offset = if seekable && iocb.rw_flags & abi::RWF_APPEND != 0 {
        match f.ops.size() {
            Ok(size) => size as i64,
            Err(e) => return Ok(-(e.code() as i64)),
        }
    } else {
        iocb.offset
    };
    let offset = seekable.then_some(offset);
    let written = match (vectored, offset) {
        (false, Some(offset)) => super::fs::pwrite_file(thread, f, buf, n, offset),
        (false, None) => super::fs::write_file(thread, f, buf, n),
        (true, offset) => super::fs::writev_file(thread, f, buf, n, offset),
    };
    // RWF_SYNC and RWF_DSYNC: the data is on the disk before completion.
    if written.is_ok() && seekable && iocb.rw_flags & (abi::RWF_SYNC | abi::RWF_DSYNC) != 0 {
        if let Err(e) = super::fs::fsync_file(f) {
            return Ok(-(e.code() as i64));
        }
    }
    Ok(result(written))
}

pub fn io_cancel(thread: &Thread, ctx_id: u64, iocb: usize, _result: usize) -> Result<isize> {
    let key = crate::uaccess::read_user_u32(iocb.checked_add(IOCB_KEY).ok_or(Errno::EFAULT)?)?;
    if key != KIOCB_KEY {
        return Err(Errno::EINVAL);
    }
    let ctx = aio::lookup(&vm_of(thread), ctx_id)?;
    // The event of a cancelled request comes through the ring; Linux
    // says so with EINPROGRESS.
    ctx.cancel(iocb as u64)?;
    Err(Errno::EINPROGRESS)
}

/// A struct timespec as io_getevents reads it: not checked, negative
/// meaning already expired (Linux's timespec64_to_ktime, saturating).
fn read_timeout(addr: usize) -> Result<i64> {
    let raw = read_bytes::<16>(addr)?;
    let sec = i64::from_le_bytes(raw[..8].try_into().unwrap());
    let nsec = i64::from_le_bytes(raw[8..].try_into().unwrap());
    // KTIME_SEC_MAX: later than that is forever.
    if sec >= i64::MAX / 1_000_000_000 {
        return Ok(i64::MAX);
    }
    Ok(sec.saturating_mul(1_000_000_000).saturating_add(nsec))
}

pub fn io_getevents(thread: &Arc<Thread>, ctx_id: u64, min_nr: i64, nr: i64, events: usize, timeout: usize) -> Result<isize> {
    let timeout = if timeout != 0 { Some(read_timeout(timeout)?) } else { None };
    let got = getevents(thread, ctx_id, min_nr, nr, events, timeout)?;
    if got == 0 && thread.has_pending_signal() {
        return Err(Errno::EINTR);
    }
    Ok(got as isize)
}

pub fn io_pgetevents(thread: &Arc<Thread>, ctx_id: u64, min_nr: i64, nr: i64, events: usize, timeout: usize, usig: usize) -> Result<isize> {
    let timeout = if timeout != 0 { Some(read_timeout(timeout)?) } else { None };
    // struct __aio_sigset: the mask's address and size.
    let (sigmask, sigsetsize) = if usig != 0 {
        let raw = read_bytes::<16>(usig)?;
        (u64::from_le_bytes(raw[..8].try_into().unwrap()) as usize, u64::from_le_bytes(raw[8..].try_into().unwrap()) as usize)
    } else {
        (0, 0)
    };
    super::signal::with_sigmask(thread, sigmask, sigsetsize, || {
        let got = getevents(thread, ctx_id, min_nr, nr, events, timeout)?;
        if got == 0 && thread.has_pending_signal() {
            return Err(Errno::EINTR);
        }
        Ok(got as isize)
    })
}

/// Linux's do_io_getevents and read_events: takes what is there, then
/// waits for more until `min_nr` were taken, the timeout (None: forever;
/// zero or negative: no wait) passes, a signal comes or the context is
/// destroyed. Returns how many were taken.
fn getevents(thread: &Arc<Thread>, ctx_id: u64, min_nr: i64, nr: i64, events: usize, timeout: Option<i64>) -> Result<usize> {
    let ctx = aio::lookup(&vm_of(thread), ctx_id)?;
    if min_nr < 0 || min_nr > nr {
        return Err(Errno::EINVAL);
    }
    let (min_nr, nr) = (min_nr as usize, nr as usize);
    let deadline = match timeout {
        None => None,
        Some(t) if t <= 0 => Some(0),
        Some(t) => Some(time::monotonic_ns().saturating_add(t as u64)),
    };
    let mut got = 0usize;
    let mut armed = false;
    let outcome = loop {
        let at = events.checked_add(got * EVENT_SIZE).ok_or(Errno::EFAULT);
        let step = at.and_then(|at| ctx.reap(nr - got, |bytes| copy_to_user(at, bytes)));
        match step {
            Ok(n) => got += n,
            Err(e) if got == 0 => break Err(e),
            Err(_) => break Ok(got),
        }
        if ctx.is_dead() {
            break if got == 0 { Err(Errno::EINVAL) } else { Ok(got) };
        }
        if got >= min_nr || deadline == Some(0) || deadline.is_some_and(|d| time::monotonic_ns() >= d) {
            break Ok(got);
        }
        if let (Some(d), false) = (deadline, armed) {
            crate::timer::arm(d, thread.clone());
            armed = true;
        }
        let woke = ctx.waiters.wait_until(|| {
            if ctx.has_events() || ctx.is_dead() || deadline.is_some_and(|d| time::monotonic_ns() >= d) {
                return Ok(Some(()));
            }
            Ok(None)
        });
        if woke.is_err() {
            // A signal: what was taken so far (io_getevents turns none
            // into EINTR).
            break Ok(got);
        }
    };
    if armed {
        crate::timer::disarm(thread);
    }
    outcome
}
