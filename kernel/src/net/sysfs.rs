//! The network interfaces in sysfs, as Linux 6.1 lays them out
//! (net/core/net-sysfs.c), as the reader's network namespace sees them:
//!
//! - `/sys/devices/virtual/net/lo/` and, for the initial namespace's
//!   eth0, `/sys/devices/pci0000:00/0000:00:SS.F/virtioN/net/eth0/`, with
//!   `ifindex`, `iflink`, `address`, `broadcast`, `addr_len`, `mtu`,
//!   `flags`, `type`, `operstate`, `carrier`, `dev_id`, `tx_queue_len`,
//!   `uevent` (writable: an action sends the interface's uevent, which is
//!   how `udevadm trigger` coldplugs it), `subsystem` and eth0's `device`;
//! - `/sys/class/net/NAME` linking to them.
//!
//! The directories list their interfaces at each look, and the files read
//! the state of the interface in the reader's namespace.

use alloc::boxed::Box;
use alloc::format;
use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;

use kevlar_vfs::{DirEntry, Inode};
use linux_raw_sys::net as netabi;

use crate::error::{Errno, Result};
use crate::fs::synth::{Attr, DirSource, FixedDir, Parent, Polling, SynthDir, SynthFile, SynthLink};
use crate::net::inet::stack::{look_at_stack_in, look_at_stack, Stack};

type Lister = Box<dyn Fn(Option<&Arc<dyn Inode>>) -> Vec<(Vec<u8>, Arc<dyn Inode>)> + Send + Sync>;

/// A directory whose entries are made at each look.
struct Listing(Lister);

impl DirSource for Listing {
    fn list(&self) -> Vec<DirEntry> {
        (self.0)(None).into_iter().map(|(name, node)| DirEntry { ino: node.ino(), file_type: node.file_type(), name }).collect()
    }

    fn lookup(&self, dir: &Arc<dyn Inode>, name: &[u8]) -> Result<Arc<dyn Inode>> {
        (self.0)(Some(dir)).into_iter().find(|(n, _)| n == name).map(|(_, node)| node).ok_or(Errno::ENOENT)
    }
}

/// The two interfaces there can be.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Iface {
    Lo,
    Eth0,
}

impl Iface {
    fn name(self) -> &'static str {
        match self {
            Iface::Lo => "lo",
            Iface::Eth0 => "eth0",
        }
    }

    fn index(self) -> u32 {
        match self {
            Iface::Lo => 1,
            Iface::Eth0 => 2,
        }
    }
}

/// What the attribute files show of an interface.
struct State {
    up: bool,
    mtu: usize,
    mac: [u8; 6],
}

const IFF_UP: u32 = netabi::net_device_flags::IFF_UP as u32;
const IFF_LOOPBACK: u32 = netabi::net_device_flags::IFF_LOOPBACK as u32;
const IFF_BROADCAST: u32 = netabi::net_device_flags::IFF_BROADCAST as u32;
const IFF_MULTICAST: u32 = netabi::net_device_flags::IFF_MULTICAST as u32;

fn state_in(st: &Stack, iface: Iface) -> Option<State> {
    match iface {
        Iface::Lo => Some(State { up: st.lo_up, mtu: st.lo_mtu, mac: [0; 6] }),
        Iface::Eth0 => st.device.eth.as_ref().map(|e| State { up: e.up, mtu: e.mtu, mac: e.mac }),
    }
}

/// The interface's state in the reader's namespace (None: not there).
fn state(iface: Iface) -> Option<State> {
    look_at_stack(|st| state_in(st, iface))
}

/// eth0's directory under /sys/devices in the reader's namespace (None:
/// it has no eth0).
fn eth0_parent() -> Option<String> {
    look_at_stack(|st| st.device.eth.as_ref().map(|e| e.sysfs_parent.clone()))
}

fn mac_text(mac: [u8; 6]) -> String {
    format!("{:02x}:{:02x}:{:02x}:{:02x}:{:02x}:{:02x}\n", mac[0], mac[1], mac[2], mac[3], mac[4], mac[5])
}

/// Inode numbers of the nodes made here: a block of 256 per interface,
/// apart from the block devices' (`block::sysfs`).
fn ino(iface: Iface, k: u64) -> u64 {
    (2 << 40) | (u64::from(iface.index()) << 8) | k
}

/// An attribute file: `content` gives its text from the interface's
/// state (an error: the interface is gone, or Linux's error for the
/// attribute in that state).
fn attr_file(fs_id: u64, iface: Iface, k: u64, content: fn(Iface, &State) -> Result<String>) -> Arc<dyn Inode> {
    let gen = move || -> Result<Vec<u8>> {
        let s = state(iface).ok_or(Errno::ENODEV)?;
        Ok(content(iface, &s)?.into_bytes())
    };
    SynthFile::new(Attr::root(fs_id, ino(iface, k), 0o444), Box::new(gen)).with_size(4096).with_polling(Polling::Kernfs)
}

fn link(fs_id: u64, ino: u64, target: String) -> Arc<dyn Inode> {
    let target = target.into_bytes();
    SynthLink::new(Attr::root(fs_id, ino, 0o777), Box::new(move || Ok(target.clone())))
}

/// The device path of an interface (`/devices/virtual/net/lo`).
fn devpath(iface: Iface, eth_parent: &str) -> String {
    match iface {
        Iface::Lo => String::from("/devices/virtual/net/lo"),
        Iface::Eth0 => format!("/devices/{}/net/eth0", eth_parent),
    }
}

/// The entries of an interface's directory.
fn iface_entries(fs_id: u64, iface: Iface, eth_parent: &str) -> Vec<(Vec<u8>, Arc<dyn Inode>)> {
    let mut out: Vec<(Vec<u8>, Arc<dyn Inode>)> = Vec::new();
    let files: [(&[u8], fn(Iface, &State) -> Result<String>); 14] = [
        (b"addr_assign_type", |_, _| Ok(String::from("0\n"))),
        (b"addr_len", |_, _| Ok(String::from("6\n"))),
        (b"address", |_, s| Ok(mac_text(s.mac))),
        (b"broadcast", |i, _| Ok(mac_text(if i == Iface::Lo { [0; 6] } else { [0xff; 6] }))),
        // Linux's carrier_show: EINVAL while the interface is down.
        (b"carrier", |_, s| if s.up { Ok(String::from("1\n")) } else { Err(Errno::EINVAL) }),
        (b"dev_id", |_, _| Ok(String::from("0x0\n"))),
        (b"dev_port", |_, _| Ok(String::from("0\n"))),
        (
            b"flags",
            |i, s| {
                let base = if i == Iface::Lo { IFF_LOOPBACK } else { IFF_BROADCAST | IFF_MULTICAST };
                Ok(format!("{:#x}\n", base | if s.up { IFF_UP } else { 0 }))
            },
        ),
        (b"ifindex", |i, _| Ok(format!("{}\n", i.index()))),
        (b"iflink", |i, _| Ok(format!("{}\n", i.index()))),
        (b"mtu", |_, s| Ok(format!("{}\n", s.mtu))),
        (
            b"operstate",
            // The loopback device reports no carrier state: "unknown" when up.
            |i, s| Ok(String::from(if !s.up { "down\n" } else if i == Iface::Lo { "unknown\n" } else { "up\n" })),
        ),
        (b"tx_queue_len", |_, _| Ok(String::from("1000\n"))),
        (b"type", |i, _| Ok(format!("{}\n", if i == Iface::Lo { linux_raw_sys::if_arp::ARPHRD_LOOPBACK } else { linux_raw_sys::if_arp::ARPHRD_ETHER }))),
    ];
    for (k, (name, content)) in files.iter().enumerate() {
        out.push((name.to_vec(), attr_file(fs_id, iface, k as u64 + 1, *content)));
    }
    let env = format!("INTERFACE={}\nIFINDEX={}\n", iface.name(), iface.index());
    out.push((b"uevent".to_vec(), crate::fs::sysfs::uevent_file(Attr::root(fs_id, ino(iface, 32), 0o644), devpath(iface, eth_parent), "net", env)));
    // From the interface's directory up to /sys.
    let depth = devpath(iface, eth_parent).split('/').filter(|p| !p.is_empty()).count();
    out.push((b"subsystem".to_vec(), link(fs_id, ino(iface, 33), format!("{}class/net", "../".repeat(depth)))));
    if iface == Iface::Eth0 {
        out.push((b"device".to_vec(), link(fs_id, ino(iface, 34), format!("../../../{}", eth_parent.rsplit('/').next().unwrap_or("")))));
    }
    out
}

fn iface_dir(fs_id: u64, iface: Iface, up: Parent, eth_parent: String) -> Arc<dyn Inode> {
    SynthDir::new(Attr::root(fs_id, ino(iface, 0), 0o755), up, Box::new(Listing(Box::new(move |_| iface_entries(fs_id, iface, &eth_parent)))))
}

/// Adds the interfaces to the sysfs tree: /sys/class/net, and their
/// directories under /sys/devices (`devices`, `virtual_devices`).
pub fn build(fs_id: u64, next_ino: &mut dyn FnMut() -> u64, class: &FixedDir, devices: &FixedDir, virtual_devices: &FixedDir) {
    let weak = |d: &FixedDir| Parent::Weak(Arc::downgrade(&d.node()));
    let class_net: Arc<dyn Inode> = SynthDir::new(Attr::root(fs_id, next_ino(), 0o755), weak(class), Box::new(Listing(Box::new(move |_| {
        let mut out = alloc::vec![(b"lo".to_vec(), link(fs_id, ino(Iface::Lo, 40), String::from("../../devices/virtual/net/lo")))];
        if let Some(parent) = eth0_parent() {
            out.push((b"eth0".to_vec(), link(fs_id, ino(Iface::Eth0, 40), format!("../../devices/{}/net/eth0", parent))));
        }
        out
    }))));
    class.add(b"net", class_net);
    let virtual_net = virtual_devices.subdir(b"net").unwrap_or_else(|| {
        let d = FixedDir::new(Attr::root(fs_id, next_ino(), 0o755), Some(virtual_devices));
        virtual_devices.add(b"net", d.node());
        d
    });
    virtual_net.add(b"lo", iface_dir(fs_id, Iface::Lo, weak(&virtual_net), String::new()));
    // eth0's card: the initial namespace's, found once.
    let Some(initial) = crate::ns::net::initial() else { return };
    let Some(parent) = look_at_stack_in(&initial, |st| st.device.eth.as_ref().map(|e| e.sysfs_parent.clone())) else { return };
    let mut dir = devices.clone();
    for part in parent.split('/') {
        dir = match dir.subdir(part.as_bytes()) {
            Some(d) => d,
            None => {
                let d = FixedDir::new(Attr::root(fs_id, next_ino(), 0o755), Some(&dir));
                dir.add(part.as_bytes(), d.node());
                d
            }
        };
    }
    let net_dir = weak(&dir);
    let eth_parent = parent.clone();
    let net: Arc<dyn Inode> = SynthDir::new(Attr::root(fs_id, next_ino(), 0o755), net_dir, Box::new(Listing(Box::new(move |me| {
        // Shown to the namespace eth0 is in only.
        if eth0_parent().is_none() {
            return Vec::new();
        }
        let up = me.map_or(Parent::None, |m| Parent::Strong(m.clone()));
        alloc::vec![(b"eth0".to_vec(), iface_dir(fs_id, Iface::Eth0, up, eth_parent.clone()))]
    }))));
    dir.add(b"net", net);
}
