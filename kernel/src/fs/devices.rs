//! Character devices: null, zero, full, random/urandom, and the console.

use alloc::sync::Arc;

use kevlar_platform::arch::serial;
use kevlar_platform::sync::SpinLock;
use kevlar_vfs::Stat;

use super::file::{FileOps, OpenFile, PollEvents, POLLIN, POLLOUT};
use crate::error::{Errno, Result};
use crate::process::wait_queue::WaitQueue;

/// A character device the kernel provides, as devtmpfs and sysfs show it.
pub struct DeviceInfo {
    /// The node's name under /dev.
    pub name: &'static str,
    /// Major number.
    pub major: u32,
    /// Minor number.
    pub minor: u32,
    /// The node's permission bits in devtmpfs.
    pub mode: u32,
    /// Its class under /sys/class.
    pub class: &'static str,
}

/// Every character device the kernel has, in name order.
pub const DEVICES: [DeviceInfo; 9] = [
    DeviceInfo { name: "console", major: 5, minor: 1, mode: 0o600, class: "tty" },
    DeviceInfo { name: "full", major: 1, minor: 7, mode: 0o666, class: "mem" },
    DeviceInfo { name: "kmsg", major: 1, minor: 11, mode: 0o644, class: "mem" },
    DeviceInfo { name: "null", major: 1, minor: 3, mode: 0o666, class: "mem" },
    DeviceInfo { name: "random", major: 1, minor: 8, mode: 0o666, class: "mem" },
    DeviceInfo { name: "tty", major: 5, minor: 0, mode: 0o666, class: "tty" },
    DeviceInfo { name: "ttyS0", major: 4, minor: 64, mode: 0o600, class: "tty" },
    DeviceInfo { name: "urandom", major: 1, minor: 9, mode: 0o666, class: "mem" },
    DeviceInfo { name: "zero", major: 1, minor: 5, mode: 0o666, class: "mem" },
];

/// Which device a node is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeviceKind {
    /// /dev/null (1,3).
    Null,
    /// /dev/zero (1,5).
    Zero,
    /// /dev/full (1,7).
    Full,
    /// /dev/random (1,8) and /dev/urandom (1,9).
    Random,
    /// /dev/console (5,1) and /dev/tty (5,0), /dev/ttyS0 (4,64).
    Console,
    /// /dev/kmsg (1,11): the kernel log.
    Kmsg,
}

impl DeviceKind {
    /// Finds the device of a (major, minor) pair.
    pub fn from_rdev(major: u32, minor: u32) -> Option<DeviceKind> {
        match (major, minor) {
            (1, 3) => Some(DeviceKind::Null),
            (1, 5) => Some(DeviceKind::Zero),
            (1, 7) => Some(DeviceKind::Full),
            (1, 8) | (1, 9) => Some(DeviceKind::Random),
            (5, 0) | (5, 1) | (4, 64) => Some(DeviceKind::Console),
            (1, 11) => Some(DeviceKind::Kmsg),
            _ => None,
        }
    }

    /// Returns the operations of this device, with `stat` describing the
    /// node it was opened through.
    pub fn open(self, node_stat: Stat) -> Arc<dyn FileOps> {
        match self {
            DeviceKind::Console => Arc::new(ConsoleFile { stat: node_stat }),
            DeviceKind::Kmsg => crate::klog::open_kmsg(node_stat),
            kind => Arc::new(SimpleDevice { kind, stat: node_stat }),
        }
    }
}

struct SimpleDevice {
    kind: DeviceKind,
    stat: Stat,
}

/// A small xorshift generator seeded from the TSC: /dev/urandom for tests,
/// not for keys (a real entropy pool comes with the random subsystem).
static RANDOM_STATE: SpinLock<u64> = SpinLock::new(0);

/// Fills `buf` with pseudo-random bytes.
pub fn fill_random(buf: &mut [u8]) {
    let mut state = RANDOM_STATE.lock();
    if *state == 0 {
        *state = kevlar_platform::x86::cpu::rdtsc() | 1;
    }
    for chunk in buf.chunks_mut(8) {
        let mut x = *state;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        *state = x;
        chunk.copy_from_slice(&x.to_le_bytes()[..chunk.len()]);
    }
}

impl FileOps for SimpleDevice {
    fn read(&self, _file: &OpenFile, _offset: u64, buf: &mut [u8]) -> Result<usize> {
        match self.kind {
            DeviceKind::Null => Ok(0),
            DeviceKind::Zero | DeviceKind::Full => {
                buf.fill(0);
                Ok(buf.len())
            }
            DeviceKind::Random => {
                fill_random(buf);
                Ok(buf.len())
            }
            DeviceKind::Console | DeviceKind::Kmsg => unreachable!(),
        }
    }

    fn write(&self, _file: &OpenFile, _offset: u64, buf: &[u8]) -> Result<usize> {
        match self.kind {
            DeviceKind::Full => Err(Errno::ENOSPC),
            _ => Ok(buf.len()),
        }
    }

    fn stat(&self) -> Result<Stat> {
        Ok(self.stat.clone())
    }

    fn size(&self) -> Result<u64> {
        Ok(0)
    }

    fn fixed_position(&self) -> bool {
        true
    }
}

/// Woken when console input arrives (the serial interrupt cannot take
/// sleeping locks, so readers poll on each wake-up and on timer ticks).
pub static CONSOLE_INPUT: WaitQueue = WaitQueue::new();

/// The serial console as a (minimal) terminal: canonical-mode line input
/// with echo, output with `\n` to `\r\n`. The full line discipline with
/// termios and job control comes with the TTY layer.
struct ConsoleFile {
    stat: Stat,
}

struct LineBuffer {
    line: alloc::vec::Vec<u8>,
    ready: alloc::collections::VecDeque<u8>,
}

static LINES: SpinLock<LineBuffer> = SpinLock::new(LineBuffer { line: alloc::vec::Vec::new(), ready: alloc::collections::VecDeque::new() });

/// Input made readable so far (lines and end-of-file marks), for
/// edge-triggered epoll.
static CONSOLE_READ_EVENTS: core::sync::atomic::AtomicU64 = core::sync::atomic::AtomicU64::new(0);

fn pump_input(lines: &mut LineBuffer) {
    while let Some(byte) = serial::read_byte() {
        if matches!(byte, b'\r' | b'\n' | 0x04) {
            CONSOLE_READ_EVENTS.fetch_add(1, core::sync::atomic::Ordering::Relaxed);
        }
        match byte {
            b'\r' | b'\n' => {
                serial::write_bytes(b"\n");
                lines.line.push(b'\n');
                let line = core::mem::take(&mut lines.line);
                lines.ready.extend(line);
            }
            0x7f | 0x08 => {
                if lines.line.pop().is_some() {
                    serial::write_bytes(b"\x08 \x08");
                }
            }
            0x04 if lines.line.is_empty() => lines.ready.push_back(0x04),
            _ => {
                serial::write_bytes(&[byte]);
                lines.line.push(byte);
            }
        }
    }
}

impl FileOps for ConsoleFile {
    fn read(&self, file: &OpenFile, _offset: u64, buf: &mut [u8]) -> Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        CONSOLE_INPUT.wait_until(|| {
            let mut lines = LINES.lock();
            pump_input(&mut lines);
            if lines.ready.is_empty() {
                if file.nonblocking() {
                    return Err(Errno::EAGAIN);
                }
                return Ok(None);
            }
            if lines.ready.front() == Some(&0x04) {
                lines.ready.pop_front();
                return Ok(Some(0)); // ^D on an empty line: end of file
            }
            let mut n = 0;
            while n < buf.len() {
                let Some(byte) = lines.ready.pop_front() else { break };
                buf[n] = byte;
                n += 1;
                if byte == b'\n' {
                    break;
                }
            }
            Ok(Some(n))
        })
    }

    fn write(&self, _file: &OpenFile, _offset: u64, buf: &[u8]) -> Result<usize> {
        kevlar_platform::console::write_raw(buf);
        Ok(buf.len())
    }

    fn stat(&self) -> Result<Stat> {
        Ok(self.stat.clone())
    }

    fn is_seekable(&self) -> bool {
        false
    }

    fn ioctl(&self, _file: &OpenFile, request: u32, arg: usize) -> Result<isize> {
        super::tty_ioctl(request, arg)
    }

    fn poll(&self) -> PollEvents {
        let mut lines = LINES.lock();
        pump_input(&mut lines);
        let out = POLLOUT | super::file::POLLWRNORM;
        if lines.ready.is_empty() { out } else { out | POLLIN | super::file::POLLRDNORM }
    }

    fn is_pollable(&self) -> bool {
        true
    }

    fn poll_counts(&self) -> (u64, u64) {
        let mut lines = LINES.lock();
        pump_input(&mut lines);
        (CONSOLE_READ_EVENTS.load(core::sync::atomic::Ordering::Relaxed), 0)
    }

}
