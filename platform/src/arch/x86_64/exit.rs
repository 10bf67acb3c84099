//! Ending the machine: QEMU's isa-debug-exit device, then a halt loop.

use super::{interrupts, io};

/// The port of `-device isa-debug-exit,iobase=0xf4,iosize=0x04`.
const DEBUG_EXIT_PORT: u16 = 0xf4;

/// How the run ended, as seen by the test harness: QEMU exits with status
/// `(value << 1) | 1`, so 1 means success and 3 failure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum ExitCode {
    /// Everything asked of this boot succeeded.
    Success = 0,
    /// A test failed, the kernel panicked or took a fatal exception.
    Failure = 1,
}

/// Ends the machine with `code`; halts forever if no exit device exists.
pub fn exit(code: ExitCode) -> ! {
    io::outl(DEBUG_EXIT_PORT, code as u32);
    // Real hardware or QEMU without the device: stop here.
    loop {
        interrupts::disable();
        interrupts::halt();
    }
}
