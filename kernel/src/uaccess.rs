//! Copies to and from user memory, with failures as EFAULT.

use kevlar_platform::x86::user;

use crate::error::{Errno, Result};

/// Copies `dst.len()` bytes from user address `src`.
pub fn copy_from_user(dst: &mut [u8], src: usize) -> Result<()> {
    user::copy_from_user(dst, src).map_err(|_| Errno::EFAULT)
}

/// Copies `src` to user address `dst`.
pub fn copy_to_user(dst: usize, src: &[u8]) -> Result<()> {
    user::copy_to_user(dst, src).map_err(|_| Errno::EFAULT)
}
