//! Character devices: null, zero, full, random/urandom (terminals are in
//! the `tty` module).

use alloc::sync::Arc;

use kevlar_platform::sync::SpinLock;
use kevlar_vfs::Stat;

use super::file::{FileOps, OpenFile};
use crate::error::{Errno, Result};

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
}

impl DeviceKind {
    /// Finds the device of a (major, minor) pair.
    pub fn from_rdev(major: u32, minor: u32) -> Option<DeviceKind> {
        match (major, minor) {
            (1, 3) => Some(DeviceKind::Null),
            (1, 5) => Some(DeviceKind::Zero),
            (1, 7) => Some(DeviceKind::Full),
            (1, 8) | (1, 9) => Some(DeviceKind::Random),
            _ => None,
        }
    }

    /// Returns the operations of this device, with `stat` describing the
    /// node it was opened through.
    pub fn open(self, node_stat: Stat) -> Arc<dyn FileOps> {
        Arc::new(SimpleDevice { kind: self, stat: node_stat })
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
