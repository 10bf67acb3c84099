//! iopl(2) and ioperm(2): I/O port access for user space.
//!
//! Kevlar never grants it: it answers as Linux 6.1 does under kernel
//! lockdown (LOCKDOWN_IOPORT), where even a process with CAP_SYS_RAWIO
//! gets EPERM for more access, while the argument checks and the requests
//! that change nothing (iopl to the current level 0, ioperm turning ports
//! off) behave as on any Linux. Port access would let a program reprogram
//! the interrupt controllers, the PCI configuration space and the disks
//! behind the kernel's back.

use crate::error::{Errno, Result};

/// Linux's IO_BITMAP_BITS: the ports ioperm can name.
const IO_BITMAP_BITS: u64 = 65536;

pub fn iopl(level: u32) -> Result<isize> {
    if level > 3 {
        return Err(Errno::EINVAL);
    }
    // The level is always 0: asking for it again changes nothing.
    if level == 0 {
        return Ok(0);
    }
    Err(Errno::EPERM)
}

pub fn ioperm(from: u64, num: u64, turn_on: bool) -> Result<isize> {
    if from.checked_add(num).is_none_or(|end| end <= from || end > IO_BITMAP_BITS) {
        return Err(Errno::EINVAL);
    }
    if turn_on {
        return Err(Errno::EPERM);
    }
    // No port was ever turned on: turning some off changes nothing.
    Ok(0)
}
