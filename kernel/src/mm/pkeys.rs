//! Protection keys of an address space: which keys pkey_alloc handed out
//! (Linux keeps the same map in its mm), and the check a fault makes of
//! the faulting thread's PKRU against the key of the area it touched.
//!
//! Memory mapped or mprotected PROT_EXEC alone gets a key of its own that
//! the mapping thread's PKRU closes to reads and writes (execute-only
//! memory, as Linux makes it); other calls cannot name that key.
//!
//! The hardware checks PKRU only on pages that are present; for a page
//! not mapped yet Linux checks the rights itself before mapping it, so a
//! refused access maps nothing. `key_denial` is that check.

use kevlar_platform::x86::pkru;

use super::Vm;

/// The map of a new address space: key 0, which every page starts with,
/// is in use.
pub(super) const INITIAL: u16 = 1;

/// How many keys an address space may use: 16 with protection keys, only
/// key 0 without (Linux's arch_max_pkey).
fn key_count() -> u32 {
    if pkru::enabled() { pkru::KEY_COUNT } else { 1 }
}

impl Vm {
    /// Takes the lowest free key (Linux's mm_pkey_alloc); None when every
    /// key is in use (ENOSPC).
    pub fn alloc_key(&mut self) -> Option<u8> {
        let all = ((1u32 << key_count()) - 1) as u16;
        if self.keys & all == all {
            return None;
        }
        let key = (!self.keys).trailing_zeros() as u8;
        self.keys |= 1 << key;
        self.keyed |= key != 0;
        Some(key)
    }

    /// Whether `key` was handed out (key 0 counts until freed, as on
    /// Linux). The execute-only key does not: no call may name it.
    pub fn key_allocated(&self, key: i32) -> bool {
        (0..key_count() as i32).contains(&key) && self.keys & (1 << key) != 0 && self.exec_only != Some(key as u8)
    }

    /// The key of execute-only memory (Linux's execute_only_pkey): taken
    /// from the free keys the first time, and closed to reads in the
    /// caller's PKRU whenever it is not already. None without protection
    /// keys or when no key is free.
    pub fn exec_only_key(&mut self) -> Option<u8> {
        if !pkru::enabled() {
            return None;
        }
        let key = match self.exec_only {
            Some(key) => {
                if !pkru::allows(pkru::read(), u32::from(key), false) {
                    return Some(key);
                }
                key
            }
            None => self.alloc_key()?,
        };
        pkru::write(pkru::with_rights(pkru::read(), u32::from(key), true, false));
        self.exec_only = Some(key);
        Some(key)
    }

    /// Gives `key` back; false when it was not in use (EINVAL). Pages
    /// keep the key: Linux leaves them as they are too.
    pub fn free_key(&mut self, key: i32) -> bool {
        if !self.key_allocated(key) {
            return false;
        }
        self.keys &= !(1 << key);
        true
    }

    /// Returns the key of the area at `addr` when the running thread's
    /// PKRU refuses the access there: `hardware` when the CPU said so
    /// (a present page), else as the CPU would once the page is mapped.
    /// Instruction fetches are never refused by keys. None when no area
    /// covers `addr` or the key allows the access.
    pub fn key_denial(&self, addr: usize, write: bool, exec: bool, hardware: bool) -> Option<u8> {
        if !pkru::enabled() {
            return None;
        }
        // Until a key other than 0 is handed out every area has key 0, so
        // the thread's rights for key 0 decide without finding the area
        // (every page fault comes through here).
        if !hardware && !self.keyed && (exec || pkru::allows(pkru::read(), 0, write)) {
            return None;
        }
        let key = self.find(addr)?.prot.key;
        if hardware || (!exec && !pkru::allows(pkru::read(), u32::from(key), write)) {
            return Some(key);
        }
        None
    }
}

/// The key an area gets from mprotect to `prot` (Linux's
/// arch_override_mprotect_pkey): pkey_mprotect's `key` if given; else the
/// execute-only key for PROT_EXEC alone, key 0 for an execute-only area
/// given other rights, and the area's own key otherwise.
pub(super) fn mprotect_key(old: super::Prot, prot: super::Prot, key: Option<u8>, exec_key: Option<u8>, exec_only: Option<u8>) -> u8 {
    if let Some(key) = key {
        return key;
    }
    if prot.is_exec_only() {
        if let Some(k) = exec_key.filter(|&k| k > 0) {
            return k;
        }
    } else if old.is_exec_only() && exec_only == Some(old.key) {
        return 0;
    }
    old.key
}
