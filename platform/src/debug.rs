//! Fault injection for the tests that check fault reporting.

/// An address in the kernel half that is never mapped (PML4 slot 384).
const NEVER_MAPPED: u64 = 0xffff_c000_dead_b000;

/// Reads an unmapped kernel address: a kernel page fault, reported like
/// any other (registers, symbolized backtrace, failure exit).
#[inline(never)]
pub fn read_unmapped_kernel_address() {
    // SAFETY: the read faults before it returns anything; the page-fault
    // handler treats a kernel-mode fault as fatal and never resumes here.
    let value = unsafe { core::ptr::read_volatile(NEVER_MAPPED as *const u64) };
    core::hint::black_box(value);
}
