//! personality(2): a process's execution domain (PER_LINUX) and flags
//! (ADDR_NO_RANDOMIZE, which gdb sets for the programs it runs, ...).
//! Linux on x86-64 accepts any value; it is inherited by fork and kept
//! by exec, except the flags a set-user-ID exec clears.

use core::sync::atomic::Ordering;

use super::Process;

/// The flags an exec that raises privileges clears (PER_CLEAR_ON_SETID:
/// READ_IMPLIES_EXEC, ADDR_NO_RANDOMIZE, ADDR_COMPAT_LAYOUT, MMAP_PAGE_ZERO).
const PER_CLEAR_ON_SETID: u32 = 0x040_0000 | 0x004_0000 | 0x020_0000 | 0x010_0000;

/// personality(persona): returns the old value; 0xffffffff only asks.
pub fn personality(process: &Process, persona: u32) -> u32 {
    if persona == u32::MAX {
        return process.personality.load(Ordering::Relaxed);
    }
    process.personality.swap(persona, Ordering::Relaxed)
}

/// A set-user-ID or set-group-ID exec (or one gaining capabilities).
pub fn clear_on_setid(process: &Process) {
    process.personality.fetch_and(!PER_CLEAR_ON_SETID, Ordering::Relaxed);
}
