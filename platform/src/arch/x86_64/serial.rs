//! The 16550 UART on COM1: polled output, interrupt-driven input.

use super::io::{inb, outb};
use crate::sync::IrqSpinLock;

const COM1: u16 = 0x3f8;
const REG_DATA: u16 = 0;
const REG_IER: u16 = 1;
const REG_FCR: u16 = 2;
const REG_LCR: u16 = 3;
const REG_MCR: u16 = 4;
const REG_LSR: u16 = 5;
const LSR_DATA_READY: u8 = 1 << 0;
const LSR_THR_EMPTY: u8 = 1 << 5;
/// The legacy ISA interrupt line of COM1.
pub const COM1_ISA_IRQ: u8 = 4;

/// Bytes received and not yet read; filled by the interrupt handler.
static INPUT: IrqSpinLock<InputRing> = IrqSpinLock::new(InputRing::new());

const INPUT_CAPACITY: usize = 4096;

struct InputRing {
    bytes: [u8; INPUT_CAPACITY],
    head: usize,
    len: usize,
    dropped: u64,
}

impl InputRing {
    const fn new() -> Self {
        Self { bytes: [0; INPUT_CAPACITY], head: 0, len: 0, dropped: 0 }
    }

    fn push(&mut self, byte: u8) {
        if self.len == INPUT_CAPACITY {
            self.dropped += 1;
            return;
        }
        self.bytes[(self.head + self.len) % INPUT_CAPACITY] = byte;
        self.len += 1;
    }

    fn pop(&mut self) -> Option<u8> {
        if self.len == 0 {
            return None;
        }
        let byte = self.bytes[self.head];
        self.head = (self.head + 1) % INPUT_CAPACITY;
        self.len -= 1;
        Some(byte)
    }
}

/// Programs COM1 for 115200 8N1 with FIFOs; input interrupts stay off until
/// [`enable_input_interrupts`].
pub fn init() {
    outb(COM1 + REG_IER, 0x00);
    outb(COM1 + REG_LCR, 0x80); // DLAB on: the next two registers are the divisor
    outb(COM1 + REG_DATA, 0x01); // 115200 baud
    outb(COM1 + REG_IER, 0x00);
    outb(COM1 + REG_LCR, 0x03); // 8 bits, no parity, one stop bit
    outb(COM1 + REG_FCR, 0xc7); // FIFOs on, cleared, 14-byte threshold
    outb(COM1 + REG_MCR, 0x0b); // DTR, RTS, OUT2 (OUT2 gates the IRQ line)
}

/// Turns on the received-data interrupt.
pub fn enable_input_interrupts() {
    outb(COM1 + REG_IER, 0x01);
}

/// Writes one byte, waiting for the transmitter.
pub fn write_byte(byte: u8) {
    while inb(COM1 + REG_LSR) & LSR_THR_EMPTY == 0 {
        core::hint::spin_loop();
    }
    outb(COM1 + REG_DATA, byte);
}

/// Writes bytes, turning `\n` into `\r\n` as a terminal expects.
pub fn write_bytes(bytes: &[u8]) {
    for &b in bytes {
        if b == b'\n' {
            write_byte(b'\r');
        }
        write_byte(b);
    }
}

/// Set by the interrupt when bytes arrive; the kernel wakes its readers
/// from process context (the idle loop, the return to user mode).
static INPUT_ARRIVED: crate::attention::Flag = crate::attention::Flag::new(crate::attention::SERIAL_INPUT);

/// Drains the UART's receive FIFO into the input ring; called from the
/// serial interrupt.
pub fn handle_interrupt() {
    let mut input = INPUT.lock();
    while inb(COM1 + REG_LSR) & LSR_DATA_READY != 0 {
        let byte = inb(COM1 + REG_DATA);
        // Ctrl-] asks the kernel for a state dump (a debugging aid, like
        // Linux's SysRq), and is not passed on as input.
        if byte == 0x1d {
            DUMP_REQUESTED.set();
            super::stall::dump_requested();
            continue;
        }
        input.push(byte);
    }
    INPUT_ARRIVED.set();
}

static DUMP_REQUESTED: crate::attention::Flag = crate::attention::Flag::new(crate::attention::SERIAL_DUMP);

/// Returns (and clears) whether Ctrl-] asked for a state dump.
pub fn take_dump_request() -> bool {
    // A plain load first: this runs on every return to user mode.
    DUMP_REQUESTED.take()
}

/// Tells whether input or a dump request is waiting to be taken (no
/// side effects: a cheap check before the `take_*` calls).
#[inline]
pub fn events_pending() -> bool {
    INPUT_ARRIVED.get() || DUMP_REQUESTED.get()
}

/// Returns (and clears) whether input arrived since the last call.
pub fn take_input_notification() -> bool {
    // A plain load first: this runs on every return to user mode.
    INPUT_ARRIVED.take()
}

/// Takes the next received byte, if any.
pub fn read_byte() -> Option<u8> {
    INPUT.lock().pop()
}

/// Returns how many received bytes were dropped because nobody read them.
pub fn dropped_input_bytes() -> u64 {
    INPUT.lock().dropped
}
