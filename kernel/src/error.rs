//! Error numbers returned to user space: the same `Errno` type the VFS
//! crates use, so filesystem errors pass through without conversion.

pub use kevlar_vfs::{Errno, Result};

/// The value a system call returns for an error.
pub trait ErrnoReturn {
    /// Returns `-errno`.
    fn as_return(self) -> isize;
}

impl ErrnoReturn for Errno {
    fn as_return(self) -> isize {
        self.as_negative_isize()
    }
}

/// Turns a failed user-memory access into EFAULT.
pub fn fault(_: kevlar_platform::x86::user::UserFault) -> Errno {
    Errno::EFAULT
}
