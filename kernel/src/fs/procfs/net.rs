//! /proc/net: if_inet6, the IPv6 addresses of the interfaces (systemd and
//! others look for the file to learn whether IPv6 is there), as
//! if6_seq_show prints them, and dev, the interfaces' counters. Both show
//! the reader's network namespace. The rest of Linux's /proc/net is not
//! here yet (and /proc/net is a directory, not Linux's link to self/net).

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
    let d = ino + 2;
    table.add(b"dev", FileType::Regular, d, move |_| Ok(text_file(d, || Ok(dev()))));
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

/// The interfaces' counters as Linux's dev_seq_show prints them: two
/// header lines, then a line per interface (only packets and bytes are
/// counted here; the error columns are 0).
fn dev() -> String {
    use crate::net::inet::stack::{look_at_stack, LinkStats};
    let mut text = String::from("Inter-|   Receive                                                |  Transmit\n face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed\n");
    let list: alloc::vec::Vec<(&str, LinkStats)> = look_at_stack(|st| {
        let mut v = alloc::vec![("lo", st.device.lo_stats)];
        if let Some(eth) = &st.device.eth {
            v.push(("eth0", eth.stats));
        }
        v
    });
    for (name, s) in list {
        text.push_str(&format!(
            "{:>6}: {:7} {:7} {:4} {:4} {:4} {:5} {:10} {:9} {:8} {:7} {:4} {:4} {:4} {:5} {:7} {:10}\n",
            name, s.rx_bytes, s.rx_packets, 0, 0, 0, 0, 0, 0, s.tx_bytes, s.tx_packets, 0, 0, 0, 0, 0, 0
        ));
    }
    text
}
