//! Character devices: null, zero, full, random/urandom (terminals are in
//! the `tty` module).

use alloc::sync::Arc;

use kevlar_platform::sync::SpinLock;
use kevlar_vfs::Stat;

use super::file::{FileOps, OpenFile};
use crate::error::{Errno, Result};

/// A character device the kernel provides, as devtmpfs and sysfs show it.
#[derive(Clone, Copy)]
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
pub const DEVICES: [DeviceInfo; 10] = [
    DeviceInfo { name: "console", major: 5, minor: 1, mode: 0o600, class: "tty" },
    DeviceInfo { name: "full", major: 1, minor: 7, mode: 0o666, class: "mem" },
    DeviceInfo { name: "kmsg", major: 1, minor: 11, mode: 0o644, class: "mem" },
    DeviceInfo { name: "null", major: 1, minor: 3, mode: 0o666, class: "mem" },
    DeviceInfo { name: "ptmx", major: 5, minor: 2, mode: 0o666, class: "tty" },
    DeviceInfo { name: "random", major: 1, minor: 8, mode: 0o666, class: "mem" },
    DeviceInfo { name: "tty", major: 5, minor: 0, mode: 0o666, class: "tty" },
    DeviceInfo { name: "ttyS0", major: 4, minor: 64, mode: 0o600, class: "tty" },
    DeviceInfo { name: "urandom", major: 1, minor: 9, mode: 0o666, class: "mem" },
    DeviceInfo { name: "zero", major: 1, minor: 5, mode: 0o666, class: "mem" },
];

/// The virtual consoles' nodes: /dev/tty0 (the foreground console) and
/// /dev/tty1../dev/tty63, as 4:0..4:63.
const VIRTUAL_CONSOLES: [&str; 64] = ["tty0", "tty1", "tty2", "tty3", "tty4", "tty5", "tty6", "tty7", "tty8", "tty9", "tty10", "tty11", "tty12", "tty13", "tty14", "tty15", "tty16", "tty17", "tty18", "tty19", "tty20", "tty21", "tty22", "tty23", "tty24", "tty25", "tty26", "tty27", "tty28", "tty29", "tty30", "tty31", "tty32", "tty33", "tty34", "tty35", "tty36", "tty37", "tty38", "tty39", "tty40", "tty41", "tty42", "tty43", "tty44", "tty45", "tty46", "tty47", "tty48", "tty49", "tty50", "tty51", "tty52", "tty53", "tty54", "tty55", "tty56", "tty57", "tty58", "tty59", "tty60", "tty61", "tty62", "tty63"];

/// Every character device: [`DEVICES`], then the virtual consoles (devtmpfs
/// makes their nodes 0600 root, as Linux's; udev's rules widen them).
pub fn char_devices() -> impl Iterator<Item = DeviceInfo> {
    let consoles = VIRTUAL_CONSOLES.iter().enumerate().map(|(minor, &name)| DeviceInfo { name, major: 4, minor: minor as u32, mode: 0o600, class: "tty" });
    DEVICES.iter().copied().chain(consoles)
}

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
            (1, 11) => Some(DeviceKind::Kmsg),
            _ => None,
        }
    }

    /// Returns the operations of this device, with `stat` describing the
    /// node it was opened through.
    pub fn open(self, node_stat: Stat) -> Arc<dyn FileOps> {
        match self {
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
            // /dev/kmsg opens as the kernel log's own file, never here.
            DeviceKind::Kmsg => Err(Errno::ENXIO),
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

    fn maps_as_anonymous(&self) -> bool {
        self.kind == DeviceKind::Zero
    }

    fn size(&self) -> Result<u64> {
        Ok(0)
    }

    fn fixed_position(&self) -> bool {
        true
    }
}
