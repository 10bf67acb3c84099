//! Memory protection keys: pkey_alloc, pkey_free, pkey_mprotect.
//!
//! The keys in use belong to the address space (`mm/pkeys.rs`); the rights
//! each key grants are the calling thread's PKRU register, which the
//! platform switches with the rest of its XSAVE state.

use kevlar_platform::mm::PAGE_SIZE;
use kevlar_platform::x86::pkru;
use linux_raw_sys::general as abi;

use crate::error::{Errno, Result};
use crate::mm::Prot;
use crate::process::Thread;

/// pkey_alloc(flags, init_rights): takes the lowest free key and sets the
/// caller's rights for it (other threads keep theirs, as on Linux). No
/// flags exist; ENOSPC when every key is taken, which is at once without
/// protection keys in the CPU.
pub fn pkey_alloc(thread: &Thread, flags: usize, rights: usize) -> Result<isize> {
    if flags != 0 || rights & !(abi::PKEY_ACCESS_MASK as usize) != 0 {
        return Err(Errno::EINVAL);
    }
    let vm = thread.process.vm.lock().clone();
    let mut vm = vm.lock();
    let key = vm.alloc_key().ok_or(Errno::ENOSPC)?;
    if !pkru::enabled() {
        // Only a freed key 0 can be taken without the hardware: Linux
        // then fails to set its rights and gives it back.
        vm.free_key(i32::from(key));
        return Err(Errno::EINVAL);
    }
    let deny_access = rights & abi::PKEY_DISABLE_ACCESS as usize != 0;
    let deny_write = rights & abi::PKEY_DISABLE_WRITE as usize != 0;
    pkru::write(pkru::with_rights(pkru::read(), u32::from(key), deny_access, deny_write));
    Ok(isize::from(key))
}

/// pkey_free(key): EINVAL unless the key is in use (key 0 is, until
/// freed). The caller's rights for it stay as they are, as on Linux.
pub fn pkey_free(thread: &Thread, key: i32) -> Result<isize> {
    let vm = thread.process.vm.lock().clone();
    if !vm.lock().free_key(key) {
        return Err(Errno::EINVAL);
    }
    Ok(0)
}

/// pkey_mprotect(addr, len, prot, key): mprotect that also gives the
/// pages protection key `key`; -1 keeps each area's key (mprotect). The
/// checks come in Linux's order (do_mprotect_pkey): the address, an empty
/// length (success), the length's overflow, the rights, then the key.
pub fn pkey_mprotect(thread: &Thread, addr: usize, len: usize, prot: usize, key: i32) -> Result<isize> {
    let grows = (abi::PROT_GROWSDOWN | abi::PROT_GROWSUP) as usize;
    if prot & grows == grows {
        return Err(Errno::EINVAL);
    }
    if addr % PAGE_SIZE != 0 {
        return Err(Errno::EINVAL);
    }
    if len == 0 {
        return Ok(0);
    }
    let len = len.checked_add(PAGE_SIZE - 1).map(|v| v & !(PAGE_SIZE - 1)).ok_or(Errno::ENOMEM)?;
    let end = addr.checked_add(len).ok_or(Errno::ENOMEM)?;
    // PROT_SEM is accepted and means nothing on x86, as on Linux.
    let bits = prot & !(grows | abi::PROT_SEM as usize);
    let prot = Prot::from_bits(u32::try_from(bits).map_err(|_| Errno::EINVAL)?)?;
    let vm = thread.process.vm.lock().clone();
    let mut vm = vm.lock();
    let key = match key {
        -1 => None,
        key if vm.key_allocated(key) => Some(key as u8),
        _ => return Err(Errno::EINVAL),
    };
    vm.protect_keyed(addr, end, prot, key)?;
    Ok(0)
}
