//! capget(2) and capset(2): the capability sets of `Credentials`.
//!
//! The sets follow Linux's rules (setuid, exec, capset's subset checks,
//! PR_SET_KEEPCAPS) and privileged operations check them
//! (`process::access`, and the file permission checks).

use alloc::sync::Arc;
use linux_raw_sys::general as abi;

use super::read_bytes;
use crate::error::{Errno, Result};
use crate::process::{find_process, Thread, ALL_CAPS};
use crate::uaccess::copy_to_user;

/// How many 32-bit `__user_cap_data_struct`s a header version carries;
/// None for an unknown version.
fn words_for(version: u32) -> Option<usize> {
    match version {
        abi::_LINUX_CAPABILITY_VERSION_1 => Some(1),
        abi::_LINUX_CAPABILITY_VERSION_2 | abi::_LINUX_CAPABILITY_VERSION_3 => Some(2),
        _ => None,
    }
}

/// Reads the header; an unknown version is answered with the one the
/// kernel prefers, written back, and EINVAL (as Linux).
fn read_header(header: usize) -> Result<(usize, i32)> {
    let raw = read_bytes::<8>(header)?;
    let version = u32::from_le_bytes(raw[0..4].try_into().unwrap());
    let pid = i32::from_le_bytes(raw[4..8].try_into().unwrap());
    match words_for(version) {
        Some(words) => Ok((words, pid)),
        None => {
            copy_to_user(header, &abi::_LINUX_CAPABILITY_VERSION_3.to_le_bytes())?;
            Err(Errno::EINVAL)
        }
    }
}

pub fn capget(thread: &Arc<Thread>, header: usize, data: usize) -> Result<isize> {
    let (words, pid) = match read_header(header) {
        Ok(found) => found,
        // Probing for the version with no data buffer is not an error.
        Err(Errno::EINVAL) if data == 0 => return Ok(0),
        Err(e) => return Err(e),
    };
    if pid < 0 {
        return Err(Errno::EINVAL);
    }
    let global = crate::ns::pid::global(pid);
    let target = if pid == 0 || global == thread.process.pid { thread.process.clone() } else { find_process(global).ok_or(Errno::ESRCH)? };
    if data == 0 {
        return Ok(0);
    }
    let (effective, permitted, inheritable) = {
        let c = target.creds.lock();
        (c.cap_effective, c.cap_permitted, c.cap_inheritable)
    };
    for word in 0..words {
        let shift = 32 * word;
        let mut raw = [0u8; 12];
        for (i, set) in [effective, permitted, inheritable].iter().enumerate() {
            raw[i * 4..i * 4 + 4].copy_from_slice(&((set >> shift) as u32).to_le_bytes());
        }
        copy_to_user(data + word * 12, &raw)?;
    }
    Ok(0)
}

pub fn capset(thread: &Arc<Thread>, header: usize, data: usize) -> Result<isize> {
    let (words, pid) = read_header(header)?;
    // Only a process's own sets can be changed.
    if pid != 0 && pid != thread.process.pid {
        return Err(Errno::EPERM);
    }
    let (mut effective, mut permitted, mut inheritable) = (0u64, 0u64, 0u64);
    for word in 0..words {
        let raw = read_bytes::<12>(data + word * 12)?;
        let value = |i: usize| (u32::from_le_bytes(raw[i * 4..i * 4 + 4].try_into().unwrap()) as u64) << (32 * word);
        effective |= value(0);
        permitted |= value(1);
        inheritable |= value(2);
    }
    let (effective, permitted, inheritable) = (effective & ALL_CAPS, permitted & ALL_CAPS, inheritable & ALL_CAPS);
    let mut c = thread.process.creds.lock();
    let setpcap = c.cap_effective & (1 << abi::CAP_SETPCAP) != 0;
    // Linux's cap_capset: the permitted set may only shrink, the effective
    // set stays within it, and the inheritable set may grow only into the
    // permitted set (anywhere with CAP_SETPCAP).
    let inheritable_ok = setpcap || inheritable & !(c.cap_inheritable | c.cap_permitted) == 0;
    // The inheritable set never leaves the bounding set (Linux's cap_capset).
    let bounded = inheritable & !(c.cap_inheritable | c.cap_bounding) == 0;
    if permitted & !c.cap_permitted != 0 || effective & !permitted != 0 || !inheritable_ok || !bounded {
        return Err(Errno::EPERM);
    }
    c.cap_effective = effective;
    c.cap_permitted = permitted;
    c.cap_inheritable = inheritable;
    // The ambient set stays within both.
    c.cap_ambient &= permitted & inheritable;
    Ok(0)
}
