//! CPU identification and feature control.

use core::arch::x86_64::{__cpuid, __cpuid_count, _rdtsc};
use core::sync::atomic::{AtomicU32, Ordering};

use x86_64::registers::control::{Cr0, Cr0Flags, Cr4, Cr4Flags};

bitflags::bitflags! {
    /// CPU features the kernel cares about, from CPUID.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct Features: u32 {
        /// Supervisor-mode execution prevention.
        const SMEP = 1 << 0;
        /// Supervisor-mode access prevention.
        const SMAP = 1 << 1;
        /// User-mode instruction prevention.
        const UMIP = 1 << 2;
        /// 1 GiB pages.
        const PAGE_1G = 1 << 3;
        /// The x2APIC (MSR-based local APIC).
        const X2APIC = 1 << 4;
        /// The local APIC timer's TSC-deadline mode.
        const TSC_DEADLINE = 1 << 5;
        /// TSC rate does not change with power states.
        const INVARIANT_TSC = 1 << 6;
        /// Process-context identifiers.
        const PCID = 1 << 7;
        /// RDFSBASE/WRFSBASE and friends.
        const FSGSBASE = 1 << 8;
        /// RDTSCP.
        const RDTSCP = 1 << 9;
        /// No-execute pages.
        const NX = 1 << 10;
        /// Running under a hypervisor.
        const HYPERVISOR = 1 << 11;
        /// XSAVE.
        const XSAVE = 1 << 12;
        /// Global pages.
        const PGE = 1 << 13;
    }
}

static FEATURES: AtomicU32 = AtomicU32::new(0);

/// Reads the CPU's features with CPUID and remembers them.
pub(crate) fn detect() -> Features {
    let mut f = Features::empty();
    // The leaves read here are checked against the maximum supported leaf.
    {
        let max_leaf = __cpuid(0).eax;
        let l1 = __cpuid(1);
        f.set(Features::X2APIC, l1.ecx & (1 << 21) != 0);
        f.set(Features::TSC_DEADLINE, l1.ecx & (1 << 24) != 0);
        f.set(Features::PCID, l1.ecx & (1 << 17) != 0);
        f.set(Features::XSAVE, l1.ecx & (1 << 26) != 0);
        f.set(Features::HYPERVISOR, l1.ecx & (1 << 31) != 0);
        f.set(Features::PGE, l1.edx & (1 << 13) != 0);
        if max_leaf >= 7 {
            let l7 = __cpuid_count(7, 0);
            f.set(Features::FSGSBASE, l7.ebx & (1 << 0) != 0);
            f.set(Features::SMEP, l7.ebx & (1 << 7) != 0);
            f.set(Features::SMAP, l7.ebx & (1 << 20) != 0);
            f.set(Features::UMIP, l7.ecx & (1 << 2) != 0);
        }
        let max_ext = __cpuid(0x8000_0000).eax;
        if max_ext >= 0x8000_0001 {
            let e1 = __cpuid(0x8000_0001);
            f.set(Features::NX, e1.edx & (1 << 20) != 0);
            f.set(Features::PAGE_1G, e1.edx & (1 << 26) != 0);
            f.set(Features::RDTSCP, e1.edx & (1 << 27) != 0);
        }
        if max_ext >= 0x8000_0007 {
            f.set(Features::INVARIANT_TSC, __cpuid(0x8000_0007).edx & (1 << 8) != 0);
        }
    }
    FEATURES.store(f.bits(), Ordering::Relaxed);
    f
}

/// Returns the features detected at boot.
pub fn features() -> Features {
    Features::from_bits_truncate(FEATURES.load(Ordering::Relaxed))
}

/// Turns on the protections this CPU offers: write protection in ring 0,
/// SMEP, SMAP and UMIP, global pages. NX was enabled in EFER by the boot
/// code.
pub(crate) fn enable_protections(f: Features) {
    // SAFETY: these bits only restrict what code may do; the kernel never
    // executes user pages, and touches user memory only inside the usercopy
    // routines, which lift SMAP with STAC/CLAC.
    unsafe {
        Cr0::update(|cr0| cr0.insert(Cr0Flags::WRITE_PROTECT));
        Cr4::update(|cr4| {
            if f.contains(Features::SMEP) {
                cr4.insert(Cr4Flags::SUPERVISOR_MODE_EXECUTION_PROTECTION);
            }
            if f.contains(Features::SMAP) {
                cr4.insert(Cr4Flags::SUPERVISOR_MODE_ACCESS_PREVENTION);
            }
            if f.contains(Features::UMIP) {
                cr4.insert(Cr4Flags::USER_MODE_INSTRUCTION_PREVENTION);
            }
            if f.contains(Features::PGE) {
                cr4.insert(Cr4Flags::PAGE_GLOBAL);
            }
            if f.contains(Features::FSGSBASE) {
                cr4.insert(Cr4Flags::FSGSBASE);
            }
        });
    }
}

/// Returns whether user code may use RDFSBASE/WRFSBASE/RDGSBASE/WRGSBASE
/// (CR4.FSGSBASE is on; the kernel then keeps both bases per task), which
/// execve reports as HWCAP2_FSGSBASE.
pub fn user_fsgsbase() -> bool {
    Cr4::read().contains(Cr4Flags::FSGSBASE)
}

/// Returns which of the protections are active on this CPU.
pub fn active_protections() -> (bool, bool, bool, bool) {
    let cr0 = Cr0::read();
    let cr4 = Cr4::read();
    (
        cr0.contains(Cr0Flags::WRITE_PROTECT),
        cr4.contains(Cr4Flags::SUPERVISOR_MODE_EXECUTION_PROTECTION),
        cr4.contains(Cr4Flags::SUPERVISOR_MODE_ACCESS_PREVENTION),
        x86_64::registers::model_specific::Efer::read()
            .contains(x86_64::registers::model_specific::EferFlags::NO_EXECUTE_ENABLE),
    )
}

/// Returns CPUID leaf `leaf`, sub-leaf `sub` as (eax, ebx, ecx, edx), or
/// zeros for a leaf beyond the CPU's maximum (standard or extended).
pub fn cpuid(leaf: u32, sub: u32) -> (u32, u32, u32, u32) {
    let max = __cpuid(leaf & 0x8000_0000).eax;
    if leaf > max {
        return (0, 0, 0, 0);
    }
    let r = __cpuid_count(leaf, sub);
    (r.eax, r.ebx, r.ecx, r.edx)
}

/// Reads the time-stamp counter.
#[inline]
pub fn rdtsc() -> u64 {
    // SAFETY: RDTSC has no side effects (and is not disabled in ring 0).
    unsafe { _rdtsc() }
}

/// Returns the CPU's brand string, or an empty string.
pub fn brand_string(buf: &mut [u8; 48]) -> &str {
    // Leaves 0x80000002..4 are read only when the extended maximum says
    // they exist.
    {
        if __cpuid(0x8000_0000).eax < 0x8000_0004 {
            return "";
        }
        for (i, leaf) in (0x8000_0002u32..=0x8000_0004).enumerate() {
            let r = __cpuid(leaf);
            for (j, reg) in [r.eax, r.ebx, r.ecx, r.edx].iter().enumerate() {
                buf[i * 16 + j * 4..i * 16 + j * 4 + 4].copy_from_slice(&reg.to_le_bytes());
            }
        }
    }
    let end = buf.iter().position(|&b| b == 0).unwrap_or(48);
    core::str::from_utf8(&buf[..end]).unwrap_or("").trim()
}
