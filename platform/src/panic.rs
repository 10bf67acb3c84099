//! Panics and fatal exceptions: report, backtrace, end the machine.

use core::fmt::{self, Write};
use core::panic::PanicInfo;

use crate::arch::exit::{exit, ExitCode};
use crate::arch::{interrupts, percpu};
use crate::backtrace;
use crate::console;

struct Unlocked;

impl Write for Unlocked {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        console::print_fmt_unlocked(format_args!("{}", s));
        Ok(())
    }
}

/// Prints `message` and a backtrace from (`rip`, `rbp`), then ends the
/// machine with a failure code. Never returns.
pub fn fatal(message: fmt::Arguments<'_>, rip: u64, rbp: u64) -> ! {
    interrupts::disable();
    if !console::enter_panic() {
        // Another CPU is already reporting; let it finish.
        loop {
            interrupts::halt();
        }
    }
    let mut out = Unlocked;
    let _ = writeln!(out, "\n{}", message);
    backtrace::write_backtrace(&mut out, rip, rbp);
    exit(ExitCode::Failure)
}

#[panic_handler]
fn panic(info: &PanicInfo<'_>) -> ! {
    let rbp = backtrace::current_frame_pointer();
    let rip = panic as *const () as u64;
    fatal(format_args!("PANIC on cpu{}: {}", percpu::cpu_index(), info), rip, rbp)
}
