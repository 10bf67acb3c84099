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

/// Reads a struct timespec as nanoseconds: EINVAL for a negative time or
/// nanoseconds out of range.
pub fn read_timespec(addr: usize) -> Result<u64> {
    let raw = read_bytes::<16>(addr)?;
    let sec = i64::from_le_bytes(raw[..8].try_into().unwrap());
    let nsec = i64::from_le_bytes(raw[8..].try_into().unwrap());
    if sec < 0 || !(0..1_000_000_000).contains(&nsec) {
        return Err(Errno::EINVAL);
    }
    Ok((sec as u64).saturating_mul(1_000_000_000).saturating_add(nsec as u64))
}

/// Writes a little-endian u64.
pub fn write_u64(addr: usize, value: u64) -> Result<()> {
    copy_to_user(addr, &value.to_le_bytes())
}
