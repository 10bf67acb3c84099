//! The serial console as a terminal: input bytes from the UART's interrupt
//! ring go through the line discipline (echo and signal characters work
//! even when nobody reads), output goes to the UART.

use alloc::collections::VecDeque;
use alloc::sync::Arc;
use alloc::vec::Vec;

use kevlar_platform::arch::serial;
use kevlar_platform::sync::SpinLock;
use kevlar_tty::{Termios, Winsize};

use super::{Driver, Tty, TTY_MAJOR};

static CONSOLE: SpinLock<Option<Arc<Tty>>> = SpinLock::new(None);

/// Input taken from the UART that the line discipline had no room for yet.
static HELD_BACK: SpinLock<VecDeque<u8>> = SpinLock::new(VecDeque::new());

/// Returns the console terminal (/dev/ttyS0, /dev/console).
pub fn tty() -> Arc<Tty> {
    let mut console = CONSOLE.lock();
    console
        .get_or_insert_with(|| {
            // Linux's serial ports report 0x0; 24x80 lets full-screen
            // programs (vi, top, less) lay out without a `stty` first.
            let winsize = Winsize { rows: 24, cols: 80, xpixel: 0, ypixel: 0 };
            Arc::new(Tty::new((TTY_MAJOR, 64), Termios::serial_console(), winsize, Driver::Console))
        })
        .clone()
}

/// Moves received bytes into the console's line discipline. Called from
/// process context (the idle loop and every return to user mode, when the
/// UART interrupt flagged input; and after reads make room), never from a
/// wait condition: signal characters wake and signal processes from here.
pub fn pump() {
    if CONSOLE.lock().is_none() {
        return; // no user space has opened the console: leave the bytes
    }
    // One CPU pumps at a time (the lock is held throughout, so no byte is
    // fed twice or out of order).
    let mut held = HELD_BACK.lock();
    let console = tty();
    loop {
        if console.input_full() {
            return;
        }
        if held.is_empty() {
            while held.len() < 64 {
                match serial::read_byte() {
                    Some(b) => held.push_back(b),
                    None => break,
                }
            }
        }
        if held.is_empty() {
            return;
        }
        let chunk: Vec<u8> = held.iter().copied().collect();
        let taken = console.receive_input(&chunk);
        held.drain(..taken);
        if taken < chunk.len() {
            return;
        }
    }
}
