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

/// Atomically replaces the aligned u32 at user address `addr` with `new`
/// if it holds `expected`; returns the value found.
pub fn cmpxchg_user_u32(addr: usize, expected: u32, new: u32) -> Result<u32> {
    user::cmpxchg_user(addr, expected, new).map_err(|_| Errno::EFAULT)
}

/// Reads the u32 at user address `addr`.
pub fn read_user_u32(addr: usize) -> Result<u32> {
    let mut raw = [0u8; 4];
    copy_from_user(&mut raw, addr)?;
    Ok(u32::from_le_bytes(raw))
}

/// Reads a plain value of `N` bytes from user memory.
pub fn read_bytes<const N: usize>(addr: usize) -> Result<[u8; N]> {
    let mut buf = [0u8; N];
    copy_from_user(&mut buf, addr)?;
    Ok(buf)
}
