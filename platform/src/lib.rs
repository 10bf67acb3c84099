//! Kevlar's platform layer: the only crate allowed `unsafe`.
//!
//! It boots the machine and offers the kernel safe interfaces to the
//! hardware: console, CPUs and per-CPU data, interrupts, time, physical
//! memory, page tables and spin locks. Every `unsafe` block carries a
//! `// SAFETY:` comment arguing why it holds.

#![no_std]
#![feature(allow_internal_unsafe)]
#![allow(internal_features)]
#![warn(missing_docs)]
#![deny(unsafe_op_in_unsafe_fn)]

extern crate alloc;

pub mod attention;
pub mod backtrace;
pub mod console;
pub mod debug;
pub mod mm;
pub mod net;
pub mod panic;
pub mod sync;
mod virtio;
pub mod virtio_blk;
mod virtq;

pub use arch::x86_64 as x86;
pub use arch::x86_64::boot::BootContext;
pub use arch::x86_64::time;
pub use kevlar_bootinfo::CommandLine;

/// The architecture this build targets.
pub mod arch {
    pub mod x86_64;
    pub use self::x86_64::{exit, interrupts, paging, percpu, serial, tlb};
}

/// CPUs: count, identity, running work everywhere.
pub mod smp {
    pub use crate::arch::x86_64::percpu::{cpu, cpu_index, this_cpu, this_cpu_work_pending, PerCpu, MAX_CPUS};
    pub use crate::arch::x86_64::smp::{cpu_count, run_on_all_cpus, wake_cpu};
}

pub use arch::x86_64::exit::{exit, ExitCode};

extern "Rust" {
    fn __kevlar_kernel_main(context: BootContext) -> !;
}

pub(crate) fn call_kernel_main(context: BootContext) -> ! {
    // SAFETY: `entry_point!` defines this symbol with exactly this signature;
    // a kernel without it does not link.
    unsafe { __kevlar_kernel_main(context) }
}

/// Declares the kernel's main function, which the platform calls on the
/// boot CPU once the machine is up.
#[macro_export]
#[allow_internal_unsafe]
macro_rules! entry_point {
    ($main:path) => {
        #[no_mangle]
        fn __kevlar_kernel_main(context: $crate::BootContext) -> ! {
            let main: fn($crate::BootContext) -> ! = $main;
            main(context)
        }
    };
}
