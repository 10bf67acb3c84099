//! The terminal line discipline of Kevlar, as plain data and algorithms.
//!
//! A terminal sits between a device (the serial port, the master side of a
//! pseudo-terminal) and the programs reading and writing it. This crate is
//! the part in the middle that touches no hardware and no processes, so it
//! is tested on the host:
//!
//! - [`Termios`] and [`Winsize`]: the settings, in Linux's `struct termios`
//!   and `struct winsize` layouts, with the defaults Linux gives its
//!   terminals;
//! - [`LineDiscipline`]: Linux's `n_tty` behaviour. Input bytes from the
//!   device go through [`LineDiscipline::receive`] (input translation,
//!   canonical-mode editing, echo, signal and flow-control characters);
//!   readers take them with [`LineDiscipline::read`]; writers' bytes go
//!   through [`LineDiscipline::process_output`] (`OPOST`, `ONLCR`, column
//!   tracking).
//!
//! The kernel glue (wait queues, signals to process groups, controlling
//! terminals, the devices) lives in the kernel's `tty` module.

#![cfg_attr(not(test), no_std)]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

extern crate alloc;

mod ldisc;
mod termios;

pub use ldisc::{Effects, JobSignal, LineDiscipline, ReadPolicy, BUFFER_SIZE};
pub use termios::{Termios, Winsize};

#[cfg(test)]
mod tests;
