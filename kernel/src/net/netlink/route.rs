//! NETLINK_ROUTE (rtnetlink): links, IPv4 addresses, IPv4 routes and
//! neighbours, read from and written to the network stack's real state
//! (`net/inet/stack.rs`): what RTM_NEWADDR, RTM_NEWROUTE and RTM_SETLINK
//! change is what the stack then uses. Changes are announced to the
//! RTNLGRP_LINK, RTNLGRP_IPV4_IFADDR and RTNLGRP_IPV4_ROUTE groups.
//!
//! The interfaces: `lo` (index 1) and, with a virtio network card, `eth0`
//! (index 2). The main table holds the routes through eth0 (the default
//! route via QEMU's gateway at boot) and the subnet route of each primary
//! address; the local table the local and broadcast routes of each
//! address, as Linux makes them. Not here: IPv6, other tables, route
//! lookups (RTM_GETROUTE without NLM_F_DUMP), creating or renaming links,
//! adding neighbours.

use alloc::vec::Vec;

use linux_raw_sys::net as netabi;
use linux_raw_sys::netlink as nl;
use smoltcp::wire::Ipv4Address;

use super::{align4, parse_attrs, Handled, Header, MsgBuilder, NetlinkSocket, NLMSG_HDRLEN};
use crate::error::{Errno, Result};
use crate::net::inet::stack::{prefix_match, with_stack, EthRoute, IfAddr, LinkStats, Stack};

/// The groups of NETLINK_ROUTE in Linux 6.1 (RTNLGRP_MAX: the last is
/// RTNLGRP_STATS).
pub const GROUPS: u32 = nl::rtnetlink_groups::RTNLGRP_STATS as u32;

macro_rules! t {
    ($name:ident) => {
        nl::$name as u16
    };
}

const AF_INET: u8 = netabi::AF_INET as u8;
const AF_UNSPEC: u8 = netabi::AF_UNSPEC as u8;
const IFINFOMSG_LEN: usize = core::mem::size_of::<nl::ifinfomsg>();
const IFADDRMSG_LEN: usize = core::mem::size_of::<nl::ifaddrmsg>();
const RTMSG_LEN: usize = core::mem::size_of::<nl::rtmsg>();
const NDMSG_LEN: usize = core::mem::size_of::<nl::ndmsg>();
const IFF_UP: u32 = netabi::net_device_flags::IFF_UP as u32;
const IFF_RUNNING: u32 = netabi::net_device_flags::IFF_RUNNING as u32;
const IFF_LOWER_UP: u32 = netabi::net_device_flags::IFF_LOWER_UP as u32;
const IFF_LOOPBACK: u32 = netabi::net_device_flags::IFF_LOOPBACK as u32;
const IFF_BROADCAST: u32 = netabi::net_device_flags::IFF_BROADCAST as u32;
const IFF_MULTICAST: u32 = netabi::net_device_flags::IFF_MULTICAST as u32;
/// ifa_valid/ifa_prefered of a permanent address.
const INFINITY_LIFE_TIME: u32 = u32::MAX;
/// The neighbour state of an ARP cache entry (NUD_REACHABLE).
const NUD_REACHABLE: u16 = 0x02;

/// One interface as rtnetlink reports it.
struct Link {
    index: u32,
    name: &'static [u8],
    kind: u16,
    flags: u32,
    mtu: u32,
    min_mtu: u32,
    max_mtu: u32,
    mac: [u8; 6],
    broadcast: [u8; 6],
    qdisc: &'static [u8],
    operstate: u8,
    stats: LinkStats,
    addrs: Vec<IfAddr>,
}

fn links(st: &Stack) -> Vec<Link> {
    let mut out = Vec::new();
    let lo_flags = if st.lo_up { IFF_UP | IFF_LOOPBACK | IFF_RUNNING | IFF_LOWER_UP } else { IFF_LOOPBACK };
    out.push(Link {
        index: 1,
        name: b"lo",
        kind: linux_raw_sys::if_arp::ARPHRD_LOOPBACK as u16,
        flags: lo_flags,
        mtu: st.lo_mtu as u32,
        min_mtu: 0,
        max_mtu: 0,
        mac: [0; 6],
        broadcast: [0; 6],
        // No queueing discipline is attached until the device first comes
        // up (Linux's dev_activate); lo's has it from boot here.
        qdisc: if st.lo_addr { &b"noqueue"[..] } else { &b"noop"[..] },
        // The loopback device has no carrier state to report.
        operstate: if st.lo_up { netabi::IF_OPER_UNKNOWN as u8 } else { netabi::IF_OPER_DOWN as u8 },
        stats: st.device.lo_stats,
        addrs: if st.lo_addr { alloc::vec![IfAddr { addr: Ipv4Address::new(127, 0, 0, 1), prefix: 8, broadcast: None, life: None }] } else { Vec::new() },
    });
    if let Some(eth) = &st.device.eth {
        let base = IFF_BROADCAST | IFF_MULTICAST;
        out.push(Link {
            index: 2,
            name: b"eth0",
            kind: linux_raw_sys::if_arp::ARPHRD_ETHER as u16,
            flags: if eth.up { base | IFF_UP | IFF_RUNNING | IFF_LOWER_UP } else { base },
            mtu: eth.mtu as u32,
            min_mtu: 68,
            max_mtu: 65535,
            mac: eth.mac,
            broadcast: [0xff; 6],
            qdisc: b"fq_codel",
            operstate: if eth.up { netabi::IF_OPER_UP as u8 } else { netabi::IF_OPER_DOWN as u8 },
            stats: eth.stats,
            addrs: eth.addrs.clone(),
        });
    }
    out
}

/// The answer to a request: pid and seq of the requester, flags.
struct Reply {
    pid: u32,
    seq: u32,
    flags: u16,
}

fn link_message(kind: u16, r: &Reply, l: &Link, change: u32, stats: bool) -> Vec<u8> {
    let mut b = MsgBuilder::new(kind, r.flags, r.seq, r.pid);
    let mut ifi = [0u8; IFINFOMSG_LEN];
    ifi[0] = AF_UNSPEC;
    ifi[2..4].copy_from_slice(&l.kind.to_le_bytes());
    ifi[4..8].copy_from_slice(&l.index.to_le_bytes());
    ifi[8..12].copy_from_slice(&l.flags.to_le_bytes());
    ifi[12..16].copy_from_slice(&change.to_le_bytes());
    b.put(&ifi);
    b.attr_str(t!(IFLA_IFNAME), l.name);
    b.attr_u32(t!(IFLA_TXQLEN), 1000);
    b.attr_u8(t!(IFLA_OPERSTATE), l.operstate);
    b.attr_u8(t!(IFLA_LINKMODE), 0);
    b.attr_u32(t!(IFLA_MTU), l.mtu);
    b.attr_u32(t!(IFLA_MIN_MTU), l.min_mtu);
    b.attr_u32(t!(IFLA_MAX_MTU), l.max_mtu);
    b.attr_u32(t!(IFLA_GROUP), 0);
    b.attr_u32(t!(IFLA_PROMISCUITY), 0);
    b.attr_u32(t!(IFLA_NUM_TX_QUEUES), 1);
    b.attr_u32(t!(IFLA_GSO_MAX_SEGS), 65535);
    b.attr_u32(t!(IFLA_GSO_MAX_SIZE), 65536);
    b.attr_u32(t!(IFLA_GRO_MAX_SIZE), 65536);
    b.attr_u32(t!(IFLA_TSO_MAX_SIZE), 524280);
    b.attr_u32(t!(IFLA_TSO_MAX_SEGS), 65535);
    b.attr_u32(t!(IFLA_NUM_RX_QUEUES), 1);
    b.attr_u8(t!(IFLA_CARRIER), (l.flags & IFF_UP != 0) as u8);
    b.attr_str(t!(IFLA_QDISC), l.qdisc);
    b.attr_u32(t!(IFLA_CARRIER_CHANGES), 0);
    b.attr_u8(t!(IFLA_PROTO_DOWN), 0);
    b.attr_u32(t!(IFLA_CARRIER_UP_COUNT), 0);
    b.attr_u32(t!(IFLA_CARRIER_DOWN_COUNT), 0);
    b.attr(t!(IFLA_MAP), &[0u8; core::mem::size_of::<nl::rtnl_link_ifmap>()]);
    b.attr(t!(IFLA_ADDRESS), &l.mac);
    b.attr(t!(IFLA_BROADCAST), &l.broadcast);
    if stats {
        let s = &l.stats;
        let mut s64 = alloc::vec![0u8; core::mem::size_of::<nl::rtnl_link_stats64>()];
        let mut s32 = alloc::vec![0u8; core::mem::size_of::<nl::rtnl_link_stats>()];
        for (i, v) in [s.rx_packets, s.tx_packets, s.rx_bytes, s.tx_bytes].iter().enumerate() {
            s64[i * 8..i * 8 + 8].copy_from_slice(&v.to_le_bytes());
            s32[i * 4..i * 4 + 4].copy_from_slice(&(*v as u32).to_le_bytes());
        }
        b.attr(t!(IFLA_STATS64), &s64);
        b.attr(t!(IFLA_STATS), &s32);
    }
    if l.kind == linux_raw_sys::if_arp::ARPHRD_ETHER as u16 {
        b.attr(t!(IFLA_PERM_ADDRESS), &l.mac);
    }
    b.finish()
}

fn mask_broadcast(a: &IfAddr) -> Ipv4Address {
    let host = if a.prefix >= 32 { 0 } else { u32::MAX >> a.prefix };
    Ipv4Address::from(u32::from(a.addr) | host)
}

/// Whether the address at `i` of `addrs` is secondary: an earlier one
/// has the same prefix and covers it.
fn is_secondary(addrs: &[IfAddr], i: usize) -> bool {
    addrs[..i].iter().any(|p| p.prefix == addrs[i].prefix && p.contains(addrs[i].addr))
}

fn addr_message(kind: u16, r: &Reply, l: &Link, a: &IfAddr, secondary: bool) -> Vec<u8> {
    let mut b = MsgBuilder::new(kind, r.flags, r.seq, r.pid);
    let scope = if a.addr.octets()[0] == 127 { nl::rt_scope_t::RT_SCOPE_HOST as u8 } else { nl::rt_scope_t::RT_SCOPE_UNIVERSE as u8 };
    let permanent = if a.life.is_none() { nl::IFA_F_PERMANENT } else { 0 };
    let flags = permanent | if secondary { nl::IFA_F_SECONDARY } else { 0 };
    let mut ifa = [0u8; IFADDRMSG_LEN];
    ifa[0] = AF_INET;
    ifa[1] = a.prefix;
    ifa[2] = flags as u8;
    ifa[3] = scope;
    ifa[4..8].copy_from_slice(&l.index.to_le_bytes());
    b.put(&ifa);
    b.attr(t!(IFA_ADDRESS), &a.addr.octets());
    b.attr(t!(IFA_LOCAL), &a.addr.octets());
    if let Some(bc) = a.broadcast {
        b.attr(t!(IFA_BROADCAST), &bc.octets());
    }
    b.attr_str(t!(IFA_LABEL), l.name);
    b.attr_u32(t!(IFA_FLAGS), flags);
    b.attr(t!(IFA_CACHEINFO), &super::addrlife::cache_info(a.life));
    b.finish()
}

/// One IPv4 route as rtnetlink reports it.
struct RouteEntry {
    table: u8,
    dst: Ipv4Address,
    prefix: u8,
    kind: u8,
    scope: u8,
    protocol: u8,
    prefsrc: Option<Ipv4Address>,
    gateway: Option<Ipv4Address>,
    oif: u32,
    metric: u32,
}

/// The main and local tables, each in Linux's dump order.
fn routes(st: &Stack) -> Vec<RouteEntry> {
    let mut main = Vec::new();
    let mut local = Vec::new();
    for l in links(st).iter().filter(|l| l.flags & IFF_UP != 0) {
        for (i, a) in l.addrs.iter().enumerate() {
            let net = Ipv4Address::from(u32::from(a.addr) & if a.prefix == 0 { 0 } else { u32::MAX << (32 - u32::from(a.prefix)) });
            let kernel = nl::RTPROT_KERNEL as u8;
            let loopback = l.flags & IFF_LOOPBACK != 0;
            if !is_secondary(&l.addrs, i) && a.prefix < 32 {
                let entry = RouteEntry { table: 0, dst: net, prefix: a.prefix, kind: 0, scope: 0, protocol: kernel, prefsrc: Some(a.addr), gateway: None, oif: l.index, metric: 0 };
                if loopback {
                    local.push(RouteEntry { table: nl::rt_class_t::RT_TABLE_LOCAL as u8, kind: nl::RTN_LOCAL as u8, scope: nl::rt_scope_t::RT_SCOPE_HOST as u8, ..entry });
                } else {
                    main.push(RouteEntry { table: nl::rt_class_t::RT_TABLE_MAIN as u8, kind: nl::RTN_UNICAST as u8, scope: nl::rt_scope_t::RT_SCOPE_LINK as u8, ..entry });
                }
            }
            // A secondary address's routes name its primary as the source.
            let primary = l.addrs[..i].iter().find(|p| p.prefix == a.prefix && p.contains(a.addr)).map_or(a.addr, |p| p.addr);
            local.push(RouteEntry { table: nl::rt_class_t::RT_TABLE_LOCAL as u8, dst: a.addr, prefix: 32, kind: nl::RTN_LOCAL as u8, scope: nl::rt_scope_t::RT_SCOPE_HOST as u8, protocol: kernel, prefsrc: Some(primary), gateway: None, oif: l.index, metric: 0 });
            if a.prefix < 31 {
                let bc = mask_broadcast(a);
                if !local.iter().any(|r: &RouteEntry| r.dst == bc && r.prefix == 32 && r.oif == l.index) {
                    local.push(RouteEntry { table: nl::rt_class_t::RT_TABLE_LOCAL as u8, dst: bc, prefix: 32, kind: nl::RTN_BROADCAST as u8, scope: nl::rt_scope_t::RT_SCOPE_LINK as u8, protocol: kernel, prefsrc: Some(primary), gateway: None, oif: l.index, metric: 0 });
                }
            }
        }
    }
    if let Some(eth) = st.device.eth.as_ref().filter(|e| e.up) {
        main.extend(eth.routes.iter().map(main_table_entry));
    }
    let key = |r: &RouteEntry| (u32::from(r.dst), r.prefix, r.metric);
    main.sort_by_key(key);
    local.sort_by_key(key);
    main.extend(local);
    main
}

fn route_message(kind: u16, r: &Reply, e: &RouteEntry) -> Vec<u8> {
    let mut b = MsgBuilder::new(kind, r.flags, r.seq, r.pid);
    let mut m = [0u8; RTMSG_LEN];
    m[0] = AF_INET;
    m[1] = e.prefix;
    m[4] = e.table;
    m[5] = e.protocol;
    m[6] = e.scope;
    m[7] = e.kind;
    b.put(&m);
    b.attr_u32(nl::rtattr_type_t::RTA_TABLE as u16, u32::from(e.table));
    if e.prefix > 0 {
        b.attr(nl::rtattr_type_t::RTA_DST as u16, &e.dst.octets());
    }
    if e.metric != 0 {
        b.attr_u32(nl::rtattr_type_t::RTA_PRIORITY as u16, e.metric);
    }
    if let Some(src) = e.prefsrc {
        b.attr(nl::rtattr_type_t::RTA_PREFSRC as u16, &src.octets());
    }
    if let Some(gw) = e.gateway {
        b.attr(nl::rtattr_type_t::RTA_GATEWAY as u16, &gw.octets());
    }
    b.attr_u32(nl::rtattr_type_t::RTA_OIF as u16, e.oif);
    b.finish()
}

fn done_message(r: &Reply, err: i32) -> Vec<u8> {
    let mut b = MsgBuilder::new(nl::NLMSG_DONE as u16, nl::NLM_F_MULTI as u16, r.seq, r.pid);
    b.put(&err.to_le_bytes());
    b.finish()
}

/// Handles one request (rtnetlink_rcv_msg).
pub fn handle(sock: &NetlinkSocket, hdr: &Header, msg: &[u8], out: &mut Vec<Vec<u8>>) -> Result<Handled> {
    let kind = hdr.kind;
    if kind > nl::__RTM_MAX as u16 - 1 {
        return Err(Errno::EOPNOTSUPP);
    }
    let body = &msg[NLMSG_HDRLEN..];
    // Every request has at least a family byte.
    if body.is_empty() {
        return Ok(Handled::Done);
    }
    let get = (kind - t!(RTM_BASE)) & 3 == 2;
    if !get && !super::net_admin() {
        return Err(Errno::EPERM);
    }
    let family = body[0];
    let strict = sock.strict();
    let pid = sock.portid();
    if get && hdr.is_dump() {
        let r = Reply { pid, seq: hdr.seq, flags: nl::NLM_F_MULTI as u16 };
        let result = match kind {
            k if k == t!(RTM_GETLINK) => dump_links(body, strict, &r, out),
            k if k == t!(RTM_GETADDR) => dump_addrs(body, family, strict, &r, out),
            k if k == t!(RTM_GETROUTE) => dump_routes(body, family, strict, &r, out),
            k if k == t!(RTM_GETNEIGH) => dump_neigh(body, family, strict, &r, out),
            _ => return Err(Errno::EOPNOTSUPP),
        };
        // A failed dump says so in its NLMSG_DONE.
        out.push(done_message(&r, result.err().map_or(0, |e: Errno| -e.code())));
        return Ok(Handled::Dump);
    }
    let r = Reply { pid, seq: hdr.seq, flags: 0 };
    match kind {
        k if k == t!(RTM_GETLINK) => get_link(body, &r, out),
        k if k == t!(RTM_NEWLINK) || k == t!(RTM_SETLINK) => set_link(body, hdr, k == t!(RTM_NEWLINK)),
        k if k == t!(RTM_DELLINK) => {
            find_link(body)?;
            Err(Errno::EOPNOTSUPP)
        }
        k if k == t!(RTM_NEWADDR) => new_addr(body, family, hdr),
        k if k == t!(RTM_DELADDR) => del_addr(body, family),
        k if k == t!(RTM_NEWROUTE) => new_route(body, family, hdr),
        k if k == t!(RTM_DELROUTE) => del_route(body, family),
        _ => Err(Errno::EOPNOTSUPP),
    }
    .map(|()| Handled::Done)
}

fn u32_at(b: &[u8], off: usize) -> u32 {
    u32::from_le_bytes(b[off..off + 4].try_into().unwrap())
}

fn addr_of(data: &[u8]) -> Result<Ipv4Address> {
    if data.len() < 4 {
        return Err(Errno::EINVAL);
    }
    Ok(Ipv4Address::new(data[0], data[1], data[2], data[3]))
}

fn name_of(data: &[u8]) -> &[u8] {
    let end = data.iter().position(|&c| c == 0).unwrap_or(data.len());
    &data[..end]
}

fn ext_mask(attrs: &[(u16, &[u8])]) -> u32 {
    attrs.iter().find(|(k, _)| *k == t!(IFLA_EXT_MASK)).map_or(0, |(_, v)| if v.len() >= 4 { u32_at(v, 0) } else { 0 })
}

fn dump_links(body: &[u8], strict: bool, r: &Reply, out: &mut Vec<Vec<u8>>) -> Result<()> {
    if strict && body.len() < IFINFOMSG_LEN {
        return Err(Errno::EINVAL);
    }
    let attrs = if body.len() >= IFINFOMSG_LEN { parse_attrs(&body[align4(IFINFOMSG_LEN)..]).unwrap_or_default() } else { Vec::new() };
    let stats = ext_mask(&attrs) & nl::RTEXT_FILTER_SKIP_STATS == 0;
    let list = with_stack(|st| links(st));
    for l in &list {
        out.push(link_message(t!(RTM_NEWLINK), r, l, 0, stats));
    }
    Ok(())
}

/// The link a request's ifinfomsg names, by index or IFLA_IFNAME: its
/// index. EINVAL for a short header or neither, ENODEV for none such.
fn find_link(body: &[u8]) -> Result<(u32, Vec<(u16, &[u8])>)> {
    if body.len() < IFINFOMSG_LEN {
        return Err(Errno::EINVAL);
    }
    let attrs = parse_attrs(&body[align4(IFINFOMSG_LEN)..])?;
    let index = u32_at(body, 4) as i32;
    let list = with_stack(|st| links(st));
    let found = if index > 0 {
        list.iter().find(|l| l.index == index as u32)
    } else if let Some((_, name)) = attrs.iter().find(|(k, _)| *k == t!(IFLA_IFNAME)) {
        list.iter().find(|l| l.name == name_of(name))
    } else {
        return Err(Errno::EINVAL);
    };
    Ok((found.ok_or(Errno::ENODEV)?.index, attrs))
}

fn get_link(body: &[u8], r: &Reply, out: &mut Vec<Vec<u8>>) -> Result<()> {
    let (index, attrs) = find_link(body)?;
    let stats = ext_mask(&attrs) & nl::RTEXT_FILTER_SKIP_STATS == 0;
    let list = with_stack(|st| links(st));
    let l = list.iter().find(|l| l.index == index).ok_or(Errno::ENODEV)?;
    out.push(link_message(t!(RTM_NEWLINK), r, l, 0, stats));
    Ok(())
}

fn notify_link(index: u32, change: u32) {
    if !super::has_listeners(nl::NETLINK_ROUTE, nl::rtnetlink_groups::RTNLGRP_LINK as u32) {
        return;
    }
    let list = with_stack(|st| links(st));
    if let Some(l) = list.iter().find(|l| l.index == index) {
        let m = link_message(t!(RTM_NEWLINK), &Reply { pid: 0, seq: 0, flags: 0 }, l, change, true);
        super::broadcast(nl::NETLINK_ROUTE, nl::rtnetlink_groups::RTNLGRP_LINK as u32, &m);
    }
}

/// RTM_SETLINK, and RTM_NEWLINK on an existing link: up/down and MTU.
fn set_link(body: &[u8], hdr: &Header, new: bool) -> Result<()> {
    // RTM_NEWLINK naming no link (neither index nor name) is a creation
    // request: ENODEV without NLM_F_CREATE (what iproute2's probe for
    // RTM_NEWLINK expects), and no link kind can be created here.
    if new && body.len() >= IFINFOMSG_LEN && u32_at(body, 4) as i32 <= 0 {
        let attrs = parse_attrs(&body[align4(IFINFOMSG_LEN)..])?;
        if !attrs.iter().any(|(k, _)| *k == t!(IFLA_IFNAME)) {
            return Err(if hdr.flags & nl::NLM_F_CREATE as u16 != 0 { Errno::EOPNOTSUPP } else { Errno::ENODEV });
        }
    }
    let found = find_link(body);
    let (index, attrs) = match found {
        Ok(v) => v,
        // A link that does not exist could only be created with a kind
        // this kernel has none of.
        Err(Errno::ENODEV) if new && hdr.flags & nl::NLM_F_CREATE as u16 != 0 => return Err(Errno::EOPNOTSUPP),
        Err(e) => return Err(e),
    };
    if new && hdr.flags & nl::NLM_F_EXCL as u16 != 0 {
        return Err(Errno::EEXIST);
    }
    let ifi_flags = u32_at(body, 8);
    let ifi_change = u32_at(body, 12);
    let mtu = match attrs.iter().find(|(k, _)| *k == t!(IFLA_MTU)) {
        Some((_, v)) if v.len() >= 4 => Some(u32_at(v, 0)),
        Some(_) => return Err(Errno::EINVAL),
        None => None,
    };
    if let Some((_, v)) = attrs.iter().find(|(k, _)| *k == t!(IFLA_IFNAME)) {
        let list = with_stack(|st| links(st));
        if list.iter().find(|l| l.index == index).is_some_and(|l| l.name != name_of(v)) {
            // Renaming is not supported here.
            return Err(Errno::EOPNOTSUPP);
        }
    }
    if let Some(m) = mtu {
        let list = with_stack(|st| links(st));
        let l = list.iter().find(|l| l.index == index).ok_or(Errno::ENODEV)?;
        if m < l.min_mtu || (l.max_mtu > 0 && m > l.max_mtu) {
            return Err(Errno::EINVAL);
        }
    }
    let (before, mtu_before) = with_stack(|st| links(st)).iter().find(|l| l.index == index).map_or((0, 0), |l| (l.flags, l.mtu));
    let up = if ifi_flags != 0 || ifi_change != 0 {
        let flags = if ifi_change != 0 { (ifi_flags & ifi_change) | (before & !ifi_change) } else { ifi_flags };
        Some(flags & IFF_UP != 0)
    } else {
        None
    };
    with_stack(|st| {
        if let Some(u) = up {
            crate::net::packet::link_changed(st, index as i32, u);
        }
        if index == 1 {
            if let Some(u) = up {
                st.lo_up = u;
                st.lo_addr |= u;
            }
            if let Some(m) = mtu {
                st.lo_mtu = m as usize;
            }
        } else if let Some(eth) = st.device.eth.as_mut() {
            if let Some(u) = up {
                if eth.up && !u {
                    // Linux flushes the routes through a link going down.
                    eth.routes.clear();
                }
                eth.up = u;
            }
            if let Some(m) = mtu {
                eth.mtu = m as usize;
            }
        }
    });
    let after = with_stack(|st| links(st)).iter().find(|l| l.index == index).map_or(0, |l| l.flags);
    if after != before || mtu.is_some_and(|m| m != mtu_before) {
        notify_link(index, after ^ before);
    }
    Ok(())
}

fn dump_addrs(body: &[u8], family: u8, strict: bool, r: &Reply, out: &mut Vec<Vec<u8>>) -> Result<()> {
    if strict && body.len() < IFADDRMSG_LEN {
        return Err(Errno::EINVAL);
    }
    let v6 = family == netabi::AF_INET6 as u8 || family == AF_UNSPEC;
    if family != AF_INET && !v6 {
        return Ok(());
    }
    let index = if strict { u32_at(body, 4) } else { 0 };
    if family != netabi::AF_INET6 as u8 {
        let list = with_stack(|st| links(st));
        for l in list.iter().filter(|l| index == 0 || l.index == index) {
            for (i, a) in l.addrs.iter().enumerate() {
                out.push(addr_message(t!(RTM_NEWADDR), r, l, a, is_secondary(&l.addrs, i)));
            }
        }
    }
    // AF_UNSPEC dumps every family in turn: IPv6 after IPv4.
    if v6 {
        for a in super::route6::addrs().iter().filter(|a| index == 0 || a.index == index) {
            out.push(super::route6::addr_message(t!(RTM_NEWADDR), r.flags, r.seq, r.pid, a));
        }
    }
    Ok(())
}

/// An address request: (link index, the address, attributes).
fn parse_addr_request(body: &[u8], family: u8) -> Result<(u32, u8, Vec<(u16, &[u8])>)> {
    // Only IPv4 has address handlers here: another family has none.
    if family != AF_INET {
        return Err(Errno::EOPNOTSUPP);
    }
    if body.len() < IFADDRMSG_LEN {
        return Err(Errno::EINVAL);
    }
    let attrs = parse_attrs(&body[align4(IFADDRMSG_LEN)..])?;
    Ok((u32_at(body, 4), body[1], attrs))
}

fn attr<'a>(attrs: &[(u16, &'a [u8])], kind: u16) -> Option<&'a [u8]> {
    attrs.iter().find(|(k, _)| *k == kind).map(|(_, v)| *v)
}

fn notify_addr(kind: u16, index: u32, a: &IfAddr, secondary: bool) {
    let group = nl::rtnetlink_groups::RTNLGRP_IPV4_IFADDR as u32;
    if !super::has_listeners(nl::NETLINK_ROUTE, group) {
        return;
    }
    let list = with_stack(|st| links(st));
    if let Some(l) = list.iter().find(|l| l.index == index) {
        let m = addr_message(kind, &Reply { pid: 0, seq: 0, flags: 0 }, l, a, secondary);
        super::broadcast(nl::NETLINK_ROUTE, group, &m);
    }
}

fn new_addr(body: &[u8], family: u8, hdr: &Header) -> Result<()> {
    let (index, prefix, attrs) = parse_addr_request(body, family)?;
    let local = attr(&attrs, t!(IFA_LOCAL));
    if prefix > 32 || local.is_none() {
        return Err(Errno::EINVAL);
    }
    let local = addr_of(local.unwrap())?;
    let broadcast = attr(&attrs, t!(IFA_BROADCAST)).map(addr_of).transpose()?;
    let life = super::addrlife::parse(attr(&attrs, t!(IFA_CACHEINFO)))?;
    let new = IfAddr { addr: local, prefix, broadcast, life };
    let result = with_stack(|st| -> Result<Option<bool>> {
        if index == 1 {
            // lo keeps its one address here.
            return if local == Ipv4Address::new(127, 0, 0, 1) && prefix == 8 {
                if !st.lo_addr {
                    st.lo_addr = true;
                    Ok(Some(false))
                } else if hdr.flags & nl::NLM_F_EXCL as u16 != 0 {
                    Err(Errno::EEXIST)
                } else {
                    Ok(None)
                }
            } else {
                Err(Errno::EOPNOTSUPP)
            };
        }
        let eth = match st.device.eth.as_mut() {
            Some(e) if index == 2 => e,
            _ => return Err(Errno::ENODEV),
        };
        if let Some(old) = eth.addrs.iter_mut().find(|a| a.addr == local && a.prefix == prefix) {
            if hdr.flags & nl::NLM_F_EXCL as u16 != 0 {
                return Err(Errno::EEXIST);
            }
            old.broadcast = broadcast;
            old.life = life;
            return Ok(None);
        }
        eth.addrs.push(new);
        let secondary = is_secondary(&eth.addrs, eth.addrs.len() - 1);
        if let Err(e) = st.sync_addrs() {
            if let Some(eth) = st.device.eth.as_mut() {
                eth.addrs.pop();
            }
            let _ = st.sync_addrs();
            return Err(e);
        }
        Ok(Some(secondary))
    })?;
    if let Some(secondary) = result {
        notify_addr(t!(RTM_NEWADDR), index, &new, secondary);
    }
    Ok(())
}

fn del_addr(body: &[u8], family: u8) -> Result<()> {
    let (index, prefix, attrs) = parse_addr_request(body, family)?;
    let local = attr(&attrs, t!(IFA_LOCAL)).map(addr_of).transpose()?;
    let address = attr(&attrs, t!(IFA_ADDRESS)).map(addr_of).transpose()?;
    if index == 1 {
        // lo keeps its one address here: deleting it is not supported,
        // another one is not there.
        let lo = IfAddr { addr: Ipv4Address::new(127, 0, 0, 1), prefix: 8, broadcast: None, life: None };
        let matches = local.is_none_or(|l| l == lo.addr) && address.is_none_or(|x| prefix == lo.prefix && lo.contains(x));
        return Err(if matches { Errno::EOPNOTSUPP } else { Errno::EADDRNOTAVAIL });
    }
    let removed = with_stack(|st| -> Result<Vec<(IfAddr, bool)>> {
        let eth = match st.device.eth.as_mut() {
            Some(e) if index == 2 => e,
            _ => return Err(Errno::ENODEV),
        };
        let pos = eth
            .addrs
            .iter()
            .position(|a| local.is_none_or(|l| l == a.addr) && address.is_none_or(|x| prefix == a.prefix && a.contains(x)))
            .ok_or(Errno::EADDRNOTAVAIL)?;
        let mut removed = Vec::new();
        let secondary = is_secondary(&eth.addrs, pos);
        let gone = eth.addrs.remove(pos);
        removed.push((gone, secondary));
        if !secondary {
            // A primary address takes its secondaries with it.
            let mut i = 0;
            while i < eth.addrs.len() {
                if eth.addrs[i].prefix == gone.prefix && gone.contains(eth.addrs[i].addr) && !is_secondary(&eth.addrs, i) {
                    removed.push((eth.addrs.remove(i), true));
                } else {
                    i += 1;
                }
            }
        }
        if eth.addrs.is_empty() {
            // The last address gone: Linux disables IP on the link.
            eth.routes.clear();
        }
        // Routes whose gateway is no longer on the link go.
        let addrs = eth.addrs.clone();
        eth.routes.retain(|r| r.gateway.is_none_or(|g| addrs.iter().any(|a| a.contains(g))));
        st.sync_addrs()?;
        Ok(removed)
    })?;
    for (a, secondary) in removed {
        notify_addr(t!(RTM_DELADDR), index, &a, secondary);
    }
    Ok(())
}

fn dump_routes(body: &[u8], family: u8, strict: bool, r: &Reply, out: &mut Vec<Vec<u8>>) -> Result<()> {
    if strict && body.len() < RTMSG_LEN {
        return Err(Errno::EINVAL);
    }
    if family != AF_INET && family != AF_UNSPEC {
        return Ok(());
    }
    let mut table = 0u32;
    let mut oif = 0u32;
    if strict {
        table = u32::from(body[4]);
        for (k, v) in parse_attrs(&body[align4(RTMSG_LEN)..])? {
            if k == nl::rtattr_type_t::RTA_TABLE as u16 && v.len() >= 4 {
                table = u32_at(v, 0);
            } else if k == nl::rtattr_type_t::RTA_OIF as u16 && v.len() >= 4 {
                oif = u32_at(v, 0);
            }
        }
    }
    let list = with_stack(|st| routes(st));
    let filtered = table != 0 || oif != 0;
    let rr = Reply { flags: r.flags | if filtered { nl::NLM_F_DUMP_FILTERED as u16 } else { 0 }, ..*r };
    for e in list.iter().filter(|e| (table == 0 || u32::from(e.table) == table) && (oif == 0 || e.oif == oif)) {
        out.push(route_message(t!(RTM_NEWROUTE), &rr, e));
    }
    Ok(())
}

impl Clone for Reply {
    fn clone(&self) -> Reply {
        Reply { pid: self.pid, seq: self.seq, flags: self.flags }
    }
}
impl Copy for Reply {}

/// A route request: (dst, prefix, gateway, oif, metric, table, type).
struct RouteRequest {
    dst: Ipv4Address,
    prefix: u8,
    gateway: Option<Ipv4Address>,
    oif: u32,
    metric: u32,
    table: u32,
    kind: u8,
    protocol: u8,
}

fn parse_route_request(body: &[u8], family: u8) -> Result<RouteRequest> {
    if family != AF_INET {
        return Err(Errno::EOPNOTSUPP);
    }
    if body.len() < RTMSG_LEN {
        return Err(Errno::EINVAL);
    }
    let attrs = parse_attrs(&body[align4(RTMSG_LEN)..])?;
    let prefix = body[1];
    if prefix > 32 {
        return Err(Errno::EINVAL);
    }
    let mut req = RouteRequest { dst: Ipv4Address::UNSPECIFIED, prefix, gateway: None, oif: 0, metric: 0, table: u32::from(body[4]), kind: body[7], protocol: body[5] };
    for (k, v) in attrs {
        match k {
            k if k == nl::rtattr_type_t::RTA_DST as u16 => req.dst = addr_of(v)?,
            k if k == nl::rtattr_type_t::RTA_GATEWAY as u16 => req.gateway = Some(addr_of(v)?),
            k if k == nl::rtattr_type_t::RTA_OIF as u16 && v.len() >= 4 => req.oif = u32_at(v, 0),
            k if k == nl::rtattr_type_t::RTA_PRIORITY as u16 && v.len() >= 4 => req.metric = u32_at(v, 0),
            k if k == nl::rtattr_type_t::RTA_TABLE as u16 && v.len() >= 4 => req.table = u32_at(v, 0),
            _ => {}
        }
    }
    // The destination's host bits must be clear.
    if !prefix_match(req.dst, Ipv4Address::from(u32::from(req.dst) & if prefix == 0 { 0 } else { u32::MAX << (32 - u32::from(prefix)) }), 32) {
        return Err(Errno::EINVAL);
    }
    Ok(req)
}

/// How one of eth0's routes shows in the main table (eth0 is link 2).
fn main_table_entry(r: &EthRoute) -> RouteEntry {
    RouteEntry {
        table: nl::rt_class_t::RT_TABLE_MAIN as u8,
        dst: r.dst,
        prefix: r.prefix,
        kind: nl::RTN_UNICAST as u8,
        scope: if r.gateway.is_some() { nl::rt_scope_t::RT_SCOPE_UNIVERSE as u8 } else { nl::rt_scope_t::RT_SCOPE_LINK as u8 },
        protocol: r.protocol,
        prefsrc: None,
        gateway: r.gateway,
        oif: 2,
        metric: r.metric,
    }
}

fn notify_route(kind: u16, r: &EthRoute) {
    let group = nl::rtnetlink_groups::RTNLGRP_IPV4_ROUTE as u32;
    if !super::has_listeners(nl::NETLINK_ROUTE, group) {
        return;
    }
    let e = main_table_entry(r);
    super::broadcast(nl::NETLINK_ROUTE, group, &route_message(kind, &Reply { pid: 0, seq: 0, flags: 0 }, &e));
}

fn new_route(body: &[u8], family: u8, hdr: &Header) -> Result<()> {
    let req = parse_route_request(body, family)?;
    if req.table != 0 && req.table != nl::rt_class_t::RT_TABLE_MAIN as u32 {
        return Err(Errno::EOPNOTSUPP);
    }
    if req.kind != nl::RTN_UNICAST as u8 {
        return Err(Errno::EOPNOTSUPP);
    }
    let route = EthRoute { dst: req.dst, prefix: req.prefix, gateway: req.gateway, protocol: req.protocol, metric: req.metric };
    with_stack(|st| -> Result<()> {
        let eth = st.device.eth.as_mut().ok_or(if req.oif == 0 { Errno::ENETUNREACH } else { Errno::ENODEV })?;
        match req.oif {
            0 | 2 => {}
            1 => return Err(Errno::EOPNOTSUPP),
            _ => return Err(Errno::ENODEV),
        }
        if req.oif == 0 && req.gateway.is_none() {
            return Err(Errno::ENODEV);
        }
        if let Some(gw) = req.gateway {
            if !eth.addrs.iter().any(|a| a.contains(gw)) || !eth.up {
                return Err(Errno::ENETUNREACH);
            }
        }
        if !eth.up {
            return Err(Errno::ENETDOWN);
        }
        let flags = hdr.flags as u32;
        if let Some(old) = eth.routes.iter_mut().find(|r| r.dst == req.dst && r.prefix == req.prefix && r.metric == req.metric) {
            if flags & nl::NLM_F_REPLACE != 0 && flags & nl::NLM_F_EXCL == 0 {
                *old = route;
                return Ok(());
            }
            return Err(Errno::EEXIST);
        }
        if flags & nl::NLM_F_CREATE == 0 {
            return Err(Errno::ENOENT);
        }
        eth.routes.push(route);
        Ok(())
    })?;
    notify_route(t!(RTM_NEWROUTE), &route);
    Ok(())
}

fn del_route(body: &[u8], family: u8) -> Result<()> {
    let req = parse_route_request(body, family)?;
    let gone = with_stack(|st| -> Result<EthRoute> {
        let eth = st.device.eth.as_mut().ok_or(Errno::ESRCH)?;
        let pos = eth
            .routes
            .iter()
            .position(|r| r.dst == req.dst && r.prefix == req.prefix && (req.metric == 0 || r.metric == req.metric) && req.gateway.is_none_or(|g| r.gateway == Some(g)) && (req.oif == 0 || req.oif == 2))
            .ok_or(Errno::ESRCH)?;
        Ok(eth.routes.remove(pos))
    })?;
    notify_route(t!(RTM_DELROUTE), &gone);
    Ok(())
}

fn dump_neigh(body: &[u8], family: u8, strict: bool, r: &Reply, out: &mut Vec<Vec<u8>>) -> Result<()> {
    if strict && body.len() < NDMSG_LEN {
        return Err(Errno::EINVAL);
    }
    if family != AF_INET && family != AF_UNSPEC {
        return Ok(());
    }
    let entries: Vec<(Ipv4Address, [u8; 6])> = with_stack(|st| st.device.eth.as_ref().map(|e| e.neighbour_list()).unwrap_or_default());
    for (ip, mac) in entries {
        let mut b = MsgBuilder::new(t!(RTM_NEWNEIGH), r.flags, r.seq, r.pid);
        let mut nd = [0u8; NDMSG_LEN];
        nd[0] = AF_INET;
        nd[4..8].copy_from_slice(&2u32.to_le_bytes());
        nd[8..10].copy_from_slice(&NUD_REACHABLE.to_le_bytes());
        nd[11] = nl::RTN_UNICAST as u8;
        b.put(&nd);
        b.attr(t!(NDA_DST), &ip.octets());
        b.attr(t!(NDA_LLADDR), &mac);
        b.attr(t!(NDA_CACHEINFO), &[0u8; 16]);
        b.attr_u32(t!(NDA_PROBES), 0);
        out.push(b.finish());
    }
    Ok(())
}

/// IFA_CACHEINFO of an address that never expires (struct
/// ifa_cacheinfo: preferred and valid lifetimes infinite; created and
/// updated stamps in hundredths of a second since boot).
pub(super) fn address_cache_info() -> [u8; 16] {
    let mut ci = [0u8; 16];
    ci[0..4].copy_from_slice(&INFINITY_LIFE_TIME.to_le_bytes());
    ci[4..8].copy_from_slice(&INFINITY_LIFE_TIME.to_le_bytes());
    let stamp = (kevlar_platform::time::monotonic_ns() / 10_000_000) as u32;
    ci[8..12].copy_from_slice(&stamp.to_le_bytes());
    ci[12..16].copy_from_slice(&stamp.to_le_bytes());
    ci
}
