//! Kernel buffers whose size a user chooses (read/write bounce buffers,
//! directory listings, ioctl and socket payloads, pipe data): allocated
//! fallibly, so that a user who drives the heap to its end gets ENOMEM
//! instead of bringing the kernel down.
//!
//! The kernel heap may dip into the frame allocator's reserve (the exit
//! and signal paths need it when user memory has run out). A buffer made
//! for a user stops at half of that reserve: the other half stays for the
//! kernel's own needs, and asking for more raises the memory pressure
//! that runs the OOM killer on the way back to user mode.

use alloc::collections::VecDeque;
use alloc::vec::Vec;

use kevlar_platform::mm::pmm;

use crate::error::{Errno, Result};

/// Buffers up to this size are not checked against the reserve: the heap
/// has them in its size classes, and the exit path's own allocations are
/// this small too.
const UNCHECKED: usize = 2048;

/// Fails with ENOMEM (and asks for the OOM killer) when taking `bytes`
/// more from the heap would leave less than half the reserve free.
pub fn check_headroom(bytes: usize) -> Result<()> {
    if bytes <= UNCHECKED || pmm::heap_headroom(bytes) {
        return Ok(());
    }
    super::oom::request();
    Err(Errno::ENOMEM)
}

/// Fails with ENOMEM (and asks for the OOM killer) when the heap is down
/// to half of the reserve. For kernel objects of a fixed size that a user
/// makes and keeps (open files and descriptor slots, epoll items, POSIX
/// timers, cgroups): each is small, but a user can make them without end,
/// and the heap's infallible allocation of one panics once the reserve is
/// gone. Checked before the object is made, so that what a user holds
/// stops at half of the reserve as the buffers above do.
pub fn check_object() -> Result<()> {
    if pmm::heap_headroom(0) {
        return Ok(());
    }
    super::oom::request();
    Err(Errno::ENOMEM)
}

/// A zero-filled buffer of `len` bytes, or ENOMEM.
pub fn zeroed(len: usize) -> Result<Vec<u8>> {
    check_headroom(len)?;
    let mut buf = Vec::new();
    buf.try_reserve_exact(len).map_err(|_| Errno::ENOMEM)?;
    buf.resize(len, 0);
    Ok(buf)
}

/// An empty vector with room for `count` elements, or ENOMEM.
pub fn with_capacity<T>(count: usize) -> Result<Vec<T>> {
    check_headroom(count.checked_mul(core::mem::size_of::<T>()).ok_or(Errno::ENOMEM)?)?;
    let mut v = Vec::new();
    v.try_reserve_exact(count).map_err(|_| Errno::ENOMEM)?;
    Ok(v)
}

/// Makes room for `more` elements in `v`, or ENOMEM (`v` unchanged).
pub fn reserve<T>(v: &mut Vec<T>, more: usize) -> Result<()> {
    if v.capacity() - v.len() >= more {
        return Ok(());
    }
    let grown = v.len().checked_add(more).ok_or(Errno::ENOMEM)?.max(v.capacity() * 2);
    check_headroom((grown - v.capacity()).saturating_mul(core::mem::size_of::<T>()))?;
    v.try_reserve(more).map_err(|_| Errno::ENOMEM)
}

/// Makes room for `more` elements in `q`, or ENOMEM (`q` unchanged).
pub fn reserve_deque<T>(q: &mut VecDeque<T>, more: usize) -> Result<()> {
    if q.capacity() - q.len() >= more {
        return Ok(());
    }
    let grown = q.len().checked_add(more).ok_or(Errno::ENOMEM)?.max(q.capacity() * 2);
    check_headroom((grown - q.capacity()).saturating_mul(core::mem::size_of::<T>()))?;
    q.try_reserve(more).map_err(|_| Errno::ENOMEM)
}
