//! Memory protection keys for user pages (PKU): CR4.PKE and the PKRU
//! register, which holds two bits per key (access disable, write disable).
//!
//! PKRU is part of the XSAVE state, so each task's value travels with its
//! FPU area at context switches (`fpu.rs`): nothing here is per task.
//! Keys are only turned on when XSAVE manages PKRU; without it a task's
//! PKRU could not be kept apart from another's.

use core::arch::asm;
use core::arch::x86_64::{__cpuid, __cpuid_count};
use core::sync::atomic::{AtomicBool, Ordering};

/// How many keys a page-table entry can name.
pub const KEY_COUNT: u32 = 16;

/// The access-disable bit of key 0; key k's is at bit 2k.
const ACCESS_DISABLE: u32 = 1;
/// The write-disable bit of key 0; key k's is at bit 2k + 1.
const WRITE_DISABLE: u32 = 2;

/// The PKRU a program starts with and a signal handler runs with: every
/// key but 0 denies access (Linux's init_pkru_value), so memory given a
/// key by one part of a program is closed to code that never asked.
pub const DEFAULT: u32 = 0x5555_5554;

static ENABLED: AtomicBool = AtomicBool::new(false);

/// Returns whether the CPU has protection keys for user pages.
fn cpu_has_pku() -> bool {
    __cpuid(0).eax >= 7 && __cpuid_count(7, 0).ecx & (1 << 3) != 0
}

/// Turns protection keys on for this CPU (CR4.PKE) when the CPU has them
/// and XSAVE switches PKRU with the rest of the user state. The boot CPU
/// (`first`) decides; the others follow it. Called after `fpu::init_cpu`.
pub(crate) fn init_cpu(first: bool) {
    if first {
        let usable = cpu_has_pku() && super::fpu::user_xfeatures() & super::fpu::XFEATURE_PKRU != 0;
        ENABLED.store(usable, Ordering::Relaxed);
    }
    if !enabled() {
        return;
    }
    // SAFETY: CR4.PKE (bit 22) exists, as CPUID says; it only makes user
    // pages obey PKRU, whose value at this point is 0 (every key open),
    // so no access the kernel makes changes outcome.
    unsafe { asm!("mov {t}, cr4", "bts {t}, 22", "mov cr4, {t}", t = out(reg) _, options(nostack)) };
    write(0);
}

/// Returns whether protection keys are on (Linux's OSPKE).
pub fn enabled() -> bool {
    ENABLED.load(Ordering::Relaxed)
}

/// Reads this CPU's PKRU: the running task's rights (0 when keys are off).
pub fn read() -> u32 {
    if !enabled() {
        return 0;
    }
    let value: u32;
    // SAFETY: RDPKRU exists once CR4.PKE is set (checked above); ECX must
    // be 0; it only reads the register into EAX (EDX is cleared).
    unsafe { asm!("rdpkru", in("ecx") 0u32, out("eax") value, out("edx") _, options(nomem, nostack, preserves_flags)) };
    value
}

/// Sets this CPU's PKRU, the running task's rights (nothing when keys are
/// off). The task's FPU area picks the value up at the next switch.
pub fn write(value: u32) {
    if !enabled() {
        return;
    }
    // SAFETY: WRPKRU exists once CR4.PKE is set (checked above); ECX and
    // EDX must be 0. PKRU only governs user pages, which the kernel
    // touches through the usercopy routines that turn faults into EFAULT.
    unsafe { asm!("wrpkru", in("eax") value, in("ecx") 0u32, in("edx") 0u32, options(nostack, preserves_flags)) };
}

/// Returns whether `pkru` lets data accesses reach pages of `key` (reads,
/// or writes when `write`). Instruction fetches ignore PKRU.
pub fn allows(pkru: u32, key: u32, write: bool) -> bool {
    if key >= KEY_COUNT {
        return false;
    }
    let bits = pkru >> (2 * key);
    if bits & ACCESS_DISABLE != 0 {
        return false;
    }
    !(write && bits & WRITE_DISABLE != 0)
}

/// Returns `pkru` with key `key`'s two bits replaced: access disabled
/// when `deny_access`, writes disabled when `deny_write`.
pub fn with_rights(pkru: u32, key: u32, deny_access: bool, deny_write: bool) -> u32 {
    let shift = 2 * (key % KEY_COUNT);
    let mut bits = 0;
    if deny_access {
        bits |= ACCESS_DISABLE;
    }
    if deny_write {
        bits |= WRITE_DISABLE;
    }
    (pkru & !((ACCESS_DISABLE | WRITE_DISABLE) << shift)) | (bits << shift)
}

/// Puts the running task's PKRU back to [`DEFAULT`]: what execve and
/// signal delivery do on Linux.
pub fn reset() {
    write(DEFAULT);
}
