//! /proc/net: if_inet6, the IPv6 addresses of the interfaces (systemd and
//! others look for the file to learn whether IPv6 is there), as
//! if6_seq_show prints them. The rest of Linux's /proc/net is not here
//! yet (and /proc/net is a directory, not Linux's link to self/net).

use alloc::boxed::Box;
use alloc::format;
use alloc::string::String;
use alloc::sync::Arc;

use kevlar_vfs::{FileType, Inode};

use super::{fs_id, text_file};
use crate::fs::synth::{Attr, Parent, SynthDir, Table};

/// /proc/net's inode number (its files follow), beside /proc/sysvipc's.
pub(super) const NET_INO: u64 = 0xf100;

/// /proc/net.
pub(super) fn net_dir(ino: u64, parent: &Arc<dyn Inode>) -> Arc<dyn Inode> {
    let mut table = Table::new();
    let n = ino + 1;
    table.add(b"if_inet6", FileType::Regular, n, move |_| Ok(text_file(n, || Ok(if_inet6()))));
    SynthDir::new(Attr::root(fs_id(), ino, 0o555), Parent::Strong(parent.clone()), Box::new(table))
}

/// One line per address: the address in hex, the interface's index,
/// the prefix length, the address's scope (IPV6_ADDR_LOOPBACK 0x10,
/// IPV6_ADDR_LINKLOCAL 0x20), the IFA_F_* flags, the interface's name.
fn if_inet6() -> String {
    let mut text = String::new();
    for a in crate::net::netlink::route6::addrs() {
        let mut hex = String::new();
        for b in a.addr {
            hex.push_str(&format!("{:02x}", b));
        }
        let (scope, name) = if a.index == 1 { (0x10, "lo") } else { (0x20, "eth0") };
        text.push_str(&format!("{} {:02x} {:02x} {:02x} {:02x} {:>8}\n", hex, a.index, a.prefix, scope, a.flags as u8, name));
    }
    text
}
