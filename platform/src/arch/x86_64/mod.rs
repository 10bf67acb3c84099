//! x86_64 support: boot, CPU tables, interrupts, paging, SMP, time.

pub mod apic;
pub mod boot;
pub mod cpu;
pub mod debugreg;
pub mod exit;
pub mod fpu;
pub mod gdt;
pub mod interrupts;
pub mod io;
pub mod ioapic;
pub mod paging;
pub mod percpu;
pub mod pkru;
mod refclock;
pub mod serial;
pub mod smp;
pub mod stall;
pub mod time;
pub mod tlb;
pub mod vdso;
pub mod trap;
pub mod user;
