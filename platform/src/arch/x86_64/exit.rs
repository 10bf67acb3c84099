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

/// The reset control register of the PC chipset (PIIX and ICH9, which
/// QEMU's pc and q35 machines model): writing 0x06 resets the machine.
const RESET_CONTROL_PORT: u16 = 0xcf9;
/// The keyboard controller's command port; command 0xfe pulses the CPU's
/// reset line (the fallback older machines use).
const KEYBOARD_COMMAND_PORT: u16 = 0x64;

/// Restarts the machine (reboot's RB_AUTOBOOT). Under QEMU with
/// `-no-reboot`, the reset ends QEMU.
pub fn reset() -> ! {
    interrupts::disable();
    io::outb(RESET_CONTROL_PORT, 0x02);
    io::outb(RESET_CONTROL_PORT, 0x06);
    io::outb(KEYBOARD_COMMAND_PORT, 0xfe);
    loop {
        interrupts::halt();
    }
}

fn halt_forever(_cpu: usize) {
    loop {
        interrupts::disable();
        interrupts::halt();
    }
}

/// Stops every CPU for good (reboot's RB_HALT_SYSTEM): the machine stays
/// on and does nothing more, as Linux's halt leaves it.
pub fn halt_all() -> ! {
    super::smp::run_on_all_cpus(halt_forever);
    loop {
        interrupts::disable();
        interrupts::halt();
    }
}
