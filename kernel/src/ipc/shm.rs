//! System V shared memory (shmget, shmat, shmdt, shmctl). A segment's
//! pages are a `SharedPages` object, the one MAP_SHARED anonymous memory
//! uses; an attach is a VMA holding a reference to it, so fork shares the
//! attachments, exec and exit drop them, and the number of attachments
//! (shm_nattch, which like Linux's counts VMAs) is the number of
//! references the VMAs hold. A removed segment lives on, with key
//! IPC_PRIVATE and SHM_DEST, until its last detach.

use alloc::string::String;
use alloc::sync::Arc;
use core::fmt::Write;


use super::abi::*;
use super::ids::{self, Ids, Object, Perm};
use crate::error::{Errno, Result};
use crate::mm::{Backing, Prot, SharedPages, Vma};
use crate::process::Process;

const PAGE_SIZE: usize = 4096;

/// /proc/sys/kernel/shmmax, shmall (pages) and shmmni (per IPC
/// namespace).
pub use super::sysctl::{SHM_ALL, SHM_MAX, SHM_MNI};

/// A segment (`struct shmid_kernel`).
pub struct Segment {
    perm: Perm,
    size: usize,
    pages: Arc<SharedPages>,
    atime: i64,
    dtime: i64,
    ctime: i64,
    cpid: i32,
    lpid: i32,
}

impl Object for Segment {
    fn perm(&self) -> &Perm {
        &self.perm
    }
    fn perm_mut(&mut self) -> &mut Perm {
        &mut self.perm
    }
}

impl Segment {
    fn nattch(&self) -> usize {
        Arc::strong_count(&self.pages) - 1
    }

    fn pages(&self) -> usize {
        self.size.div_ceil(PAGE_SIZE)
    }
}

static SEGMENTS: super::ns::PerNs<Ids<Segment>> = super::ns::PerNs::new(Ids::new);

/// Takes away the segments of IPC namespace `inum`, which is gone.
pub(super) fn forget_ns(inum: u64) {
    // Dropped here, after the lock.
    drop(SEGMENTS.take(inum));
}

/// The segments, with removed ones that lost their last attachment gone.
fn segments() -> super::ns::PerNsGuard<'static, Ids<Segment>> {
    let mut segments = SEGMENTS.lock();
    segments.retain(|s| s.perm.mode & SHM_DEST == 0 || s.nattch() > 0);
    segments
}

fn total_pages(segments: &Ids<Segment>) -> u64 {
    segments.iter().fold(0u64, |total, s| total.saturating_add(s.pages() as u64))
}

/// shmget.
pub fn get(process: &Process, key: i32, size: usize, flags: u32) -> Result<i32> {
    let mut segments = segments();
    ids::get_or_create(
        &mut segments,
        process,
        key,
        flags,
        |s| if s.size < size { Err(Errno::EINVAL) } else { Ok(()) },
        |segments| {
            if (size as u64) < SHMMIN || size as u64 > SHM_MAX.get() {
                return Err(Errno::EINVAL);
            }
            let pages = (size as u64).div_ceil(PAGE_SIZE as u64);
            let total = total_pages(segments).checked_add(pages).ok_or(Errno::ENOSPC)?;
            if total > SHM_ALL.get() {
                return Err(Errno::ENOSPC);
            }
            // Huge pages come from a pool the administrator reserves
            // (/proc/sys/vm/nr_hugepages); there is none, as on a Linux
            // that reserved none: the reservation fails.
            if flags & SHM_HUGETLB != 0 {
                return Err(Errno::ENOMEM);
            }
            let perm = Perm::new(key, &process.creds.lock(), flags);
            let segment = Segment {
                perm,
                size,
                pages: Arc::new(SharedPages::default()),
                atime: 0,
                dtime: 0,
                ctime: super::now_secs(),
                cpid: process.pid,
                lpid: 0,
            };
            let id = segments.insert(segment, SHM_MNI.get32())?;
            // Named for /proc/PID/maps now that the id is known (nothing
            // maps the pages yet).
            segments.get_mut(id)?.pages = Arc::new(SharedPages::sysv(key, id));
            Ok(id)
        },
    )
}

/// shmat: maps the segment and returns the address.
pub fn attach(process: &Process, id: i32, addr: usize, flags: u32) -> Result<usize> {
    if id < 0 {
        return Err(Errno::EINVAL);
    }
    let mut addr = addr;
    if addr != 0 {
        if addr % SHMLBA != 0 {
            if flags & SHM_RND == 0 {
                return Err(Errno::EINVAL);
            }
            addr &= !(SHMLBA - 1);
            if addr == 0 && flags & SHM_REMAP != 0 {
                return Err(Errno::EINVAL);
            }
        }
    } else if flags & SHM_REMAP != 0 {
        return Err(Errno::EINVAL);
    }
    let (mut prot, mut access) = if flags & SHM_RDONLY != 0 { (1, ids::READ) } else { (3, ids::READ | ids::WRITE) };
    if flags & SHM_EXEC != 0 {
        prot |= 4;
        access |= 0o111;
    }
    let (pages, size) = {
        let mut segments = segments();
        let segment = segments.get_mut(id)?;
        segment.perm.check(process, access)?;
        segment.atime = super::now_secs();
        segment.lpid = process.pid;
        (segment.pages.clone(), segment.size)
    };
    let len = size.div_ceil(PAGE_SIZE) * PAGE_SIZE;
    let vm = process.vm.lock().clone();
    let mut vm = vm.lock();
    let start = if addr != 0 {
        let end = addr.checked_add(len).ok_or(Errno::EINVAL)?;
        if flags & SHM_REMAP == 0 && !vm.is_free(addr, end) {
            return Err(Errno::EINVAL);
        }
        if addr < crate::mm::MMAP_MIN_ADDR {
            return Err(Errno::EPERM);
        }
        if end > crate::mm::Vm::user_end() {
            return Err(Errno::ENOMEM);
        }
        addr
    } else {
        vm.find_free(len).ok_or(Errno::ENOMEM)?
    };
    vm.map(Vma { start, end: start + len, prot: Prot::from_bits(prot)?, backing: Backing::Shared(pages), shared_page_base: 0, write_denied: flags & SHM_RDONLY != 0, exec_denied: false });
    Ok(start)
}

/// shmdt: unmaps the attachment that starts at `addr`.
pub fn detach(process: &Process, addr: usize) -> Result<()> {
    if addr % PAGE_SIZE != 0 {
        return Err(Errno::EINVAL);
    }
    let vm = process.vm.lock().clone();
    let mut vm = vm.lock();
    let pages = match vm.find(addr) {
        Some(Vma { start, backing: Backing::Shared(p), shared_page_base: 0, .. }) if *start == addr => p.clone(),
        _ => return Err(Errno::EINVAL),
    };
    let size = {
        let segments = SEGMENTS.lock();
        let found = segments.iter().find(|s| Arc::ptr_eq(&s.pages, &pages)).map(|s| s.size);
        found.ok_or(Errno::EINVAL)?
    };
    // Every piece of this attachment (mprotect may have split it) up to
    // the segment's size.
    let end = addr + size.div_ceil(PAGE_SIZE) * PAGE_SIZE;
    let mut at = addr;
    while at < end {
        let piece = match vm.find(at) {
            Some(v @ Vma { backing: Backing::Shared(p), .. }) if Arc::ptr_eq(p, &pages) && v.shared_page_base == (at - addr) / PAGE_SIZE => v.end.min(end),
            _ => break,
        };
        vm.unmap(at, piece);
        at = piece;
    }
    drop(vm);
    let now = super::now_secs();
    if let Some(s) = SEGMENTS.lock().iter_mut().find(|s| Arc::ptr_eq(&s.pages, &pages)) {
        s.dtime = now;
        s.lpid = process.pid;
    }
    Ok(())
}

/// `struct shminfo64` (IPC_INFO) and the highest index.
pub fn ipc_info() -> ([u8; 72], i32) {
    let segments = segments();
    let mut out = [0u8; 72];
    ids::put_u64(&mut out, 0, SHM_MAX.get());
    ids::put_u64(&mut out, 8, SHMMIN);
    ids::put_u64(&mut out, 16, SHM_MNI.get32() as u64);
    ids::put_u64(&mut out, 24, SHMMNI as u64);
    ids::put_u64(&mut out, 32, SHM_ALL.get());
    (out, segments.max_idx().max(0))
}

/// `struct shm_info` (SHM_INFO) and the highest index.
pub fn shm_info() -> ([u8; 48], i32) {
    let segments = segments();
    let mut out = [0u8; 48];
    ids::put_u32(&mut out, 0, segments.len() as u32);
    ids::put_u64(&mut out, 8, total_pages(&segments));
    ids::put_u64(&mut out, 16, segments.iter().map(|s| s.pages.resident() as u64).sum());
    (out, segments.max_idx().max(0))
}

/// IPC_STAT, SHM_STAT and SHM_STAT_ANY: `struct shmid64_ds` and the value.
pub fn stat(process: &Process, id: i32, cmd: i32) -> Result<([u8; 112], i32)> {
    let segments = segments();
    let s = if cmd == IPC_STAT { segments.get(id)? } else { segments.by_index(id)? };
    if cmd != SHM_STAT_ANY {
        s.perm.check(process, ids::READ)?;
    }
    let mut out = [0u8; 112];
    let ns = process.creds.lock().user_ns.clone();
    s.perm.shown(&ns).write_to(&mut out[..48]);
    ids::put_u64(&mut out, 48, s.size as u64);
    ids::put_u64(&mut out, 56, s.atime as u64);
    ids::put_u64(&mut out, 64, s.dtime as u64);
    ids::put_u64(&mut out, 72, s.ctime as u64);
    ids::put_u32(&mut out, 80, s.cpid as u32);
    ids::put_u32(&mut out, 84, s.lpid as u32);
    ids::put_u64(&mut out, 88, s.nattch() as u64);
    Ok((out, if cmd == IPC_STAT { 0 } else { s.perm.id }))
}

/// SHM_LOCK and SHM_UNLOCK (the pages are never swapped out anyway: the
/// flag is what changes).
pub fn lock(process: &Process, id: i32, lock: bool) -> Result<()> {
    let mut segments = segments();
    let s = segments.get_mut(id)?;
    if !crate::process::access::capable(process, linux_raw_sys::general::CAP_IPC_LOCK) {
        let euid = process.creds.lock().euid;
        if euid != s.perm.uid && euid != s.perm.cuid {
            return Err(Errno::EPERM);
        }
        if lock && process.limits.lock()[linux_raw_sys::general::RLIMIT_MEMLOCK as usize][0] == 0 {
            return Err(Errno::EPERM);
        }
    }
    if lock {
        s.perm.mode |= SHM_LOCKED;
    } else {
        s.perm.mode &= !SHM_LOCKED;
    }
    Ok(())
}

/// IPC_SET from a `struct shmid64_ds`.
pub fn set(process: &Process, id: i32, ds: &[u8; 112]) -> Result<()> {
    let mut segments = segments();
    let s = segments.get_mut(id)?;
    s.perm.check_owner(process)?;
    let (uid, gid, mode) = ids::read_perm_set(ds);
    s.perm.set(process, uid, gid, mode)?;
    s.ctime = super::now_secs();
    Ok(())
}

/// IPC_RMID: gone now if nothing is attached, else at the last detach.
pub fn remove(process: &Process, id: i32) -> Result<()> {
    let mut segments = segments();
    let s = segments.get_mut(id)?;
    s.perm.check_owner(process)?;
    if s.nattch() == 0 {
        segments.remove(id);
    } else {
        s.perm.mode |= SHM_DEST;
        s.perm.key = IPC_PRIVATE;
    }
    Ok(())
}

/// /proc/sysvipc/shm.
pub fn proc_text() -> String {
    // The ids as the reader's user namespace sees them.
    let ns = crate::ns::user::current_ns();
    let mut out = String::from("       key      shmid perms                  size  cpid  lpid nattch   uid   gid  cuid  cgid      atime      dtime      ctime                   rss                  swap\n");
    for s in segments().iter() {
        let p = &s.perm.shown(&ns);
        let _ = writeln!(
            out,
            "{:>10} {:>10}  {:>4o} {:>21} {:>5} {:>5}  {:>5} {:>5} {:>5} {:>5} {:>5} {:>10} {:>10} {:>10} {:>21} {:>21}",
            p.key, p.id, p.mode, s.size, s.cpid, s.lpid, s.nattch(), p.uid, p.gid, p.cuid, p.cgid, s.atime, s.dtime, s.ctime,
            s.pages.resident() * PAGE_SIZE, 0
        );
    }
    out
}
