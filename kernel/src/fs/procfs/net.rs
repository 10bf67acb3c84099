//! /proc/PID/net (and /proc/net, Linux's link to self/net): the network
//! namespace of the process as Linux 6.1 shows it. The sockets' files
//! (tcp, tcp6, udp, udp6, unix) come from `net::procnet`; the interfaces'
//! (dev, if_inet6), the IPv4 main routing table (route) and the socket
//! counts (sockstat, sockstat6) are made here. Each file shows the
//! namespace the process is in when it is read.

use alloc::boxed::Box;
use alloc::format;
use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;

use kevlar_vfs::{FileType, Inode};

use super::{fs_id, text_file};
use crate::error::{Errno, Result};
use crate::fs::synth::{Attr, Parent, SynthDir, Table};
use crate::net::procnet;
use crate::ns::net::NetNs;
use crate::process::Pid;

/// /proc/net's inode number, beside /proc/sysvipc's.
pub(super) const NET_INO: u64 = 0xf100;

/// The network namespace of process `pid` now.
fn net_of(pid: Pid) -> Result<Arc<NetNs>> {
    let p = crate::process::find_process(pid).ok_or(Errno::ESRCH)?;
    let net = p.ns.lock().net.clone();
    Ok(net)
}

/// The files of a /proc/PID/net directory, in listing order.
const FILES: [(&[u8], fn(&NetNs) -> String); 13] = [
    (b"dev", dev),
    (b"if_inet6", if_inet6),
    (b"raw", raw),
    (b"raw6", raw6),
    (b"route", route),
    (b"sockstat", sockstat),
    (b"sockstat6", sockstat6),
    (b"tcp", |ns| procnet::tcp_text(ns.inum, false)),
    (b"tcp6", |ns| procnet::tcp_text(ns.inum, true)),
    (b"udp", |ns| procnet::udp_text(ns.inum, false)),
    (b"udp6", |ns| procnet::udp_text(ns.inum, true)),
    (b"unix", |ns| procnet::unix_text(ns.inum)),
    (b"snmp", snmp),
];

/// Where the numbers of a /proc/PID/net's files start, from /proc/PID's
/// (after its ns directory's).
pub(super) const NET_BASE: u64 = 0x7800;

/// /proc/PID/net of process `pid`, numbered `ino`, its files from `base`.
pub(super) fn net_dir(pid: Pid, ino: u64, base: u64, parent: &Arc<dyn Inode>) -> Arc<dyn Inode> {
    let mut table = Table::new();
    for (i, (name, text)) in FILES.into_iter().enumerate() {
        let n = base + i as u64;
        table.add(name, FileType::Regular, n, move |_| Ok(text_file(n, move || Ok(text(&*net_of(pid)?)))));
    }
    SynthDir::new(Attr::root(fs_id(), ino, 0o555), Parent::Strong(parent.clone()), Box::new(table))
}

/// One line per address: the address in hex, the interface's index,
/// the prefix length, the address's scope (IPV6_ADDR_LOOPBACK 0x10,
/// IPV6_ADDR_LINKLOCAL 0x20), the IFA_F_* flags, the interface's name.
fn if_inet6(ns: &NetNs) -> String {
    let mut text = String::new();
    for a in crate::net::netlink::route6::addrs_in(ns) {
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
fn dev(ns: &NetNs) -> String {
    use crate::net::inet::stack::{look_at_stack_in, LinkStats};
    let mut text = String::from("Inter-|   Receive                                                |  Transmit\n face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed\n");
    let list: Vec<(&str, LinkStats)> = look_at_stack_in(ns, |st| {
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

/// /proc/net/raw: its header (there are no raw IPv4 sockets).
fn raw(_: &NetNs) -> String {
    String::from("  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode ref pointer drops\n")
}

/// /proc/net/raw6: its header (there are no raw IPv6 sockets).
fn raw6(_: &NetNs) -> String {
    String::from("  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode ref pointer drops\n")
}

/// RTF_UP and RTF_GATEWAY.
const RTF_UP: u32 = 1;
const RTF_GATEWAY: u32 = 2;

/// /proc/net/route: the main table's IPv4 routes through a device (the
/// loopback's are in the local table, not shown), each line padded to
/// 127 characters as fib_route_seq_show does, in the order of the
/// table's trie (by destination).
fn route(ns: &NetNs) -> String {
    let pad = |mut line: String| {
        while line.len() < 127 {
            line.push(' ');
        }
        line.push('\n');
        line
    };
    let mut text = pad(String::from("Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT"));
    // (destination, prefix, gateway, metric).
    let mut routes: Vec<(u32, u8, u32, u32)> = crate::net::inet::stack::look_at_stack_in(ns, |st| {
        let Some(eth) = st.device.eth.as_ref().filter(|e| e.up) else { return Vec::new() };
        let mut v: Vec<(u32, u8, u32, u32)> = eth.addrs.iter().map(|a| (net_bits(a.addr.octets(), a.prefix), a.prefix, 0, 0)).collect();
        v.extend(eth.routes.iter().map(|r| (net_bits(r.dst.octets(), r.prefix), r.prefix, r.gateway.map_or(0, |g| u32::from_be_bytes(g.octets())), r.metric)));
        v
    });
    routes.sort_by_key(|&(dst, prefix, _, metric)| (dst, prefix, metric));
    routes.dedup();
    for (dst, prefix, gw, metric) in routes {
        let mask = if prefix == 0 { 0 } else { u32::MAX << (32 - u32::from(prefix.min(32))) };
        let flags = RTF_UP | if gw != 0 { RTF_GATEWAY } else { 0 };
        // Addresses print as the __be32 Linux keeps, in %08X.
        let be = |v: u32| u32::from_le_bytes(v.to_be_bytes());
        text.push_str(&pad(format!("eth0\t{:08X}\t{:08X}\t{:04X}\t{}\t{}\t{}\t{:08X}\t{}\t{}\t{}", be(dst), be(gw), flags, 0, 0, metric, be(mask), 0, 0, 0)));
    }
    text
}

/// The network part of an address, as a host-order number.
fn net_bits(addr: [u8; 4], prefix: u8) -> u32 {
    let a = u32::from_be_bytes(addr);
    if prefix == 0 {
        0
    } else {
        a & (u32::MAX << (32 - u32::from(prefix.min(32))))
    }
}

/// /proc/net/sockstat: the namespace's sockets in use (TCP: listening
/// or with a peer; UDP: bound), the rest 0.
fn sockstat(ns: &NetNs) -> String {
    let (tcp, udp, _, _) = procnet::counts(ns.inum);
    format!(
        "sockets: used {}\nTCP: inuse {} orphan 0 tw 0 alloc {} mem 0\nUDP: inuse {} mem 0\nUDPLITE: inuse 0\nRAW: inuse 0\nFRAG: inuse 0 memory 0\n",
        procnet::sockets_used(ns.inum),
        tcp,
        tcp,
        udp
    )
}

/// /proc/net/sockstat6: the namespace's IPv6 sockets in use.
fn sockstat6(ns: &NetNs) -> String {
    let (_, _, tcp6, udp6) = procnet::counts(ns.inum);
    format!("TCP6: inuse {}\nUDP6: inuse {}\nUDPLITE6: inuse 0\nRAW6: inuse 0\nFRAG6: inuse 0 memory 0\n", tcp6, udp6)
}

/// /proc/net/snmp: the MIB tables' names as Linux 6.1 lists them, with
/// the constants Linux reports (forwarding off: 2, the default TTL, TCP's
/// RTO algorithm and bounds, MaxConn -1) and counters this stack does not
/// keep at 0.
fn snmp(_: &NetNs) -> String {
    let mut text = String::new();
    let mut table = |name: &str, fields: &[&str], values: &[i64]| {
        text.push_str(name);
        text.push(':');
        for f in fields {
            text.push(' ');
            text.push_str(f);
        }
        text.push('\n');
        text.push_str(name);
        text.push(':');
        for i in 0..fields.len() {
            text.push_str(&format!(" {}", values.get(i).copied().unwrap_or(0)));
        }
        text.push('\n');
    };
    table(
        "Ip",
        &["Forwarding", "DefaultTTL", "InReceives", "InHdrErrors", "InAddrErrors", "ForwDatagrams", "InUnknownProtos", "InDiscards", "InDelivers", "OutRequests", "OutDiscards", "OutNoRoutes", "ReasmTimeout", "ReasmReqds", "ReasmOKs", "ReasmFails", "FragOKs", "FragFails", "FragCreates"],
        &[2, 64],
    );
    table(
        "Icmp",
        &[
            "InMsgs", "InErrors", "InCsumErrors", "InDestUnreachs", "InTimeExcds", "InParmProbs", "InSrcQuenchs", "InRedirects", "InEchos", "InEchoReps", "InTimestamps", "InTimestampReps", "InAddrMasks", "InAddrMaskReps", "OutMsgs", "OutErrors", "OutRateLimitGlobal", "OutRateLimitHost", "OutDestUnreachs", "OutTimeExcds", "OutParmProbs", "OutSrcQuenchs",
            "OutRedirects", "OutEchos", "OutEchoReps", "OutTimestamps", "OutTimestampReps", "OutAddrMasks", "OutAddrMaskReps",
        ],
        &[],
    );
    table(
        "Tcp",
        &["RtoAlgorithm", "RtoMin", "RtoMax", "MaxConn", "ActiveOpens", "PassiveOpens", "AttemptFails", "EstabResets", "CurrEstab", "InSegs", "OutSegs", "RetransSegs", "InErrs", "OutRsts", "InCsumErrors"],
        &[1, 200, 120000, -1],
    );
    let udp = ["InDatagrams", "NoPorts", "InErrors", "OutDatagrams", "RcvbufErrors", "SndbufErrors", "InCsumErrors", "IgnoredMulti", "MemErrors"];
    table("Udp", &udp, &[]);
    table("UdpLite", &udp, &[]);
    text
}
