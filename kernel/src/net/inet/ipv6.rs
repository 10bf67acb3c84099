//! AF_INET6: what TCP and UDP sockets of the IPv6 family add to the
//! AF_INET ones (`tcp.rs`, `udp.rs` serve both families): sockaddr_in6
//! decoding and encoding, IPv4-mapped addresses (`::ffff:a.b.c.d`: a
//! socket of AF_INET6 without IPV6_V6ONLY talks IPv4 through them, as
//! Linux's dual-stack sockets do), the port table's view of a binding
//! (which families it takes), IPv6 routes and the SOL_IPV6 options.

use alloc::vec::Vec;

use linux_raw_sys::net as netabi;
use smoltcp::wire::{IpAddress, Ipv4Address, Ipv6Address};

use super::stack::Stack;
use crate::error::{Errno, Result};

/// sizeof(struct sockaddr_in6).
pub const SOCKADDR_IN6_LEN: usize = core::mem::size_of::<netabi::sockaddr_in6>();
/// SIN6_LEN_RFC2133: the shortest sockaddr_in6 Linux takes (without the
/// scope id).
pub const SIN6_LEN_RFC2133: usize = 24;
/// The loopback address, ::1.
pub const LOOPBACK6: Ipv6Address = Ipv6Address::LOCALHOST;
/// net.ipv6.conf.all.hop_limit's default.
const DEFAULT_HOPS: i32 = 64;
/// The multicast routing options' range (MRT6_BASE, MRT6_MAX in
/// include/uapi/linux/mroute6.h).
const MRT6_BASE: u32 = 200;
const MRT6_MAX: u32 = MRT6_BASE + 12;
/// lo's interface index (eth0 is 2).
pub const LO_INDEX: u32 = 1;

/// Which addresses a bound port takes, for the port table's conflicts and
/// for steering a connection to a listener.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum PortAddr {
    /// IPv4 only: one address, or any (0.0.0.0).
    V4(Ipv4Address),
    /// IPv6 only: one address, or any (`::` with IPV6_V6ONLY).
    V6(Ipv6Address),
    /// `::` without IPV6_V6ONLY: any address of either family.
    Dual,
}

impl PortAddr {
    /// The binding an address gives: an unspecified IPv6 address is
    /// either family's unless `v6only`.
    pub fn of(addr: IpAddress, v6only: bool) -> PortAddr {
        match addr {
            IpAddress::Ipv4(a) => PortAddr::V4(a),
            IpAddress::Ipv6(a) if a.is_unspecified() && !v6only => PortAddr::Dual,
            IpAddress::Ipv6(a) => PortAddr::V6(a),
        }
    }

    /// Returns whether two bindings of one port can both take a packet
    /// (Linux's inet_rcv_saddr_equal with wildcards).
    pub fn overlaps(self, other: PortAddr) -> bool {
        match (self, other) {
            (PortAddr::Dual, _) | (_, PortAddr::Dual) => true,
            (PortAddr::V4(a), PortAddr::V4(b)) => a.is_unspecified() || b.is_unspecified() || a == b,
            (PortAddr::V6(a), PortAddr::V6(b)) => a.is_unspecified() || b.is_unspecified() || a == b,
            _ => false,
        }
    }

    /// How well the binding takes a packet to `dst`: None when it does not,
    /// more for a closer match (an exact address, then a wildcard of the
    /// packet's own family, then a dual-stack wildcard), as Linux's
    /// listener lookup scores them.
    pub fn score(self, dst: IpAddress) -> Option<u8> {
        match (self, dst) {
            (PortAddr::V4(a), IpAddress::Ipv4(d)) if a == d => Some(3),
            (PortAddr::V4(a), IpAddress::Ipv4(_)) if a.is_unspecified() => Some(2),
            (PortAddr::V6(a), IpAddress::Ipv6(d)) if a == d => Some(3),
            (PortAddr::V6(a), IpAddress::Ipv6(_)) if a.is_unspecified() => Some(2),
            (PortAddr::Dual, _) => Some(1),
            _ => None,
        }
    }

    /// The address smoltcp listens on (None: any).
    pub fn listen_addr(self) -> Option<IpAddress> {
        match self {
            PortAddr::V4(a) if !a.is_unspecified() => Some(IpAddress::Ipv4(a)),
            PortAddr::V6(a) if !a.is_unspecified() => Some(IpAddress::Ipv6(a)),
            _ => None,
        }
    }
}

/// The IPv4 address an IPv4-mapped IPv6 address stands for.
pub fn unmap(a: Ipv6Address) -> Option<Ipv4Address> {
    let o = a.octets();
    (o[..10] == [0; 10] && o[10] == 0xff && o[11] == 0xff).then(|| Ipv4Address::new(o[12], o[13], o[14], o[15]))
}

/// The IPv4-mapped IPv6 address of an IPv4 address.
pub fn map(a: Ipv4Address) -> Ipv6Address {
    let o = a.octets();
    Ipv6Address::from([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, o[0], o[1], o[2], o[3]])
}

/// A decoded sockaddr_in6.
#[derive(Clone, Copy, Debug)]
pub struct SockAddr6 {
    /// The address; an IPv4-mapped one is given as IPv4.
    pub addr: IpAddress,
    /// The port.
    pub port: u16,
    /// sin6_scope_id (an interface index for link-local addresses).
    pub scope_id: u32,
}

/// Decodes a sockaddr_in6: EINVAL when shorter than SIN6_LEN_RFC2133,
/// EAFNOSUPPORT for another family; AF_UNSPEC is the caller's (`None`).
pub fn parse(raw: &[u8]) -> Result<Option<SockAddr6>> {
    if raw.len() < 2 {
        return Err(Errno::EINVAL);
    }
    let family = u16::from_le_bytes([raw[0], raw[1]]) as u32;
    if family == netabi::AF_UNSPEC {
        return Ok(None);
    }
    if raw.len() < SIN6_LEN_RFC2133 {
        return Err(Errno::EINVAL);
    }
    if family != netabi::AF_INET6 {
        return Err(Errno::EAFNOSUPPORT);
    }
    let port = u16::from_be_bytes([raw[2], raw[3]]);
    let octets: [u8; 16] = raw[8..24].try_into().unwrap();
    let a = Ipv6Address::from(octets);
    let scope_id = if raw.len() >= SOCKADDR_IN6_LEN { u32::from_le_bytes(raw[24..28].try_into().unwrap()) } else { 0 };
    let addr = match unmap(a) {
        Some(v4) => IpAddress::Ipv4(v4),
        None => IpAddress::Ipv6(a),
    };
    Ok(Some(SockAddr6 { addr, port, scope_id }))
}

/// Encodes a sockaddr_in6 (an IPv4 address as IPv4-mapped; a link-local
/// address carries its interface's index as the scope id).
pub fn encode(addr: IpAddress, port: u16) -> Vec<u8> {
    let mut out = alloc::vec![0u8; SOCKADDR_IN6_LEN];
    out[..2].copy_from_slice(&(netabi::AF_INET6 as u16).to_le_bytes());
    out[2..4].copy_from_slice(&port.to_be_bytes());
    let a = match addr {
        IpAddress::Ipv4(a) => map(a),
        IpAddress::Ipv6(a) => a,
    };
    out[8..24].copy_from_slice(&a.octets());
    if a.is_unicast_link_local() {
        out[24..28].copy_from_slice(&2u32.to_le_bytes());
    }
    out
}

/// Encodes a socket address of either family as the socket's family has
/// it: sockaddr_in for AF_INET, sockaddr_in6 for AF_INET6.
pub fn encode_for(v6: bool, addr: IpAddress, port: u16) -> Vec<u8> {
    match (v6, addr) {
        (true, a) => encode(a, port),
        (false, IpAddress::Ipv4(a)) => super::encode_addr(a, port),
        (false, IpAddress::Ipv6(_)) => super::encode_addr(Ipv4Address::UNSPECIFIED, port),
    }
}

/// Returns whether a socket of this family takes packets from or to
/// `addr`'s family (AF_INET: IPv4 only; AF_INET6: IPv6, and IPv4 unless
/// IPV6_V6ONLY).
pub fn family_takes(v6: bool, v6only: bool, addr: IpAddress) -> bool {
    match addr {
        IpAddress::Ipv4(_) => !v6 || !v6only,
        IpAddress::Ipv6(_) => v6,
    }
}

/// Where an IPv6 packet to `addr` goes: (destination, source). `::` and
/// ::1 go through lo (ENETUNREACH while it is down); eth0's own addresses
/// loop back; nothing else is reachable (no IPv6 route leaves the
/// machine yet).
pub fn route(stack: &Stack, addr: Ipv6Address) -> Result<(Ipv6Address, Ipv6Address)> {
    let addr = if addr.is_unspecified() { LOOPBACK6 } else { addr };
    if addr == LOOPBACK6 {
        if !stack.lo_up {
            return Err(Errno::ENETUNREACH);
        }
        return Ok((addr, LOOPBACK6));
    }
    Err(Errno::ENETUNREACH)
}

/// Where a packet to `addr` of either family goes: (destination, source).
pub fn route_any(stack: &Stack, addr: IpAddress) -> Result<(IpAddress, IpAddress)> {
    match addr {
        IpAddress::Ipv4(a) => super::route(stack, a).map(|(d, s)| (IpAddress::Ipv4(d), IpAddress::Ipv4(s))),
        IpAddress::Ipv6(a) => route(stack, a).map(|(d, s)| (IpAddress::Ipv6(d), IpAddress::Ipv6(s))),
    }
}

/// Returns whether an IPv6 address is this machine's (bind's check):
/// `::` and ::1.
pub fn is_local6(addr: Ipv6Address) -> bool {
    addr.is_unspecified() || addr == LOOPBACK6
}

/// The SOL_IPV6 options an AF_INET6 socket keeps.
#[derive(Clone, Copy)]
pub struct Ipv6Options {
    /// IPV6_V6ONLY (net.ipv6.bindv6only's default: 0).
    pub v6only: bool,
    /// IPV6_UNICAST_HOPS (-1: the default).
    pub unicast_hops: i32,
    /// IPV6_MULTICAST_HOPS (-1: the default, 1).
    pub multicast_hops: i32,
    /// IPV6_MULTICAST_LOOP.
    pub multicast_loop: bool,
    /// IPV6_TCLASS.
    pub tclass: i32,
    /// IPV6_RECVPKTINFO: UDP receives carry IPV6_PKTINFO.
    pub recvpktinfo: bool,
    /// IPV6_RECVHOPLIMIT (kept; no IPV6_HOPLIMIT message is made yet).
    pub recvhoplimit: bool,
    /// IPV6_RECVTCLASS (kept; no IPV6_TCLASS message is made yet).
    pub recvtclass: bool,
    /// IPV6_RECVERR.
    pub recverr: bool,
    /// IPV6_MTU_DISCOVER (IPV6_PMTUDISC_WANT by default).
    pub mtu_discover: i32,
}

impl Default for Ipv6Options {
    fn default() -> Self {
        Self { v6only: false, unicast_hops: -1, multicast_hops: -1, multicast_loop: true, tclass: 0, recvpktinfo: false, recvhoplimit: false, recvtclass: false, recverr: false, mtu_discover: 1 }
    }
}

fn int_of(raw: &[u8]) -> Result<i32> {
    if raw.len() < 4 {
        return Err(Errno::EINVAL);
    }
    Ok(i32::from_le_bytes(raw[..4].try_into().unwrap()))
}

/// setsockopt(SOL_IPV6, ...), as ipv6_setsockopt checks them; `bound`:
/// the socket has a port (IPV6_V6ONLY is then EINVAL). Others are
/// ENOPROTOOPT.
pub fn set_option(o: &mut Ipv6Options, name: u32, raw: &[u8], bound: bool, stream: bool) -> Result<()> {
    match name {
        // Multicast routing (MRT6_INIT..MRT6_MAX) is for raw ICMPv6 sockets.
        MRT6_BASE..=MRT6_MAX => return Err(Errno::EOPNOTSUPP),
        netabi::IPV6_V6ONLY => {
            let v = int_of(raw)?;
            if bound {
                return Err(Errno::EINVAL);
            }
            o.v6only = v != 0;
        }
        netabi::IPV6_UNICAST_HOPS | netabi::IPV6_MULTICAST_HOPS => {
            // A stream socket has no multicast: ipv6_setsockopt leaves it
            // at ENOPROTOOPT before looking at the value.
            if name == netabi::IPV6_MULTICAST_HOPS && stream {
                return Err(Errno::ENOPROTOOPT);
            }
            let v = int_of(raw)?;
            if !(-1..=255).contains(&v) {
                return Err(Errno::EINVAL);
            }
            if name == netabi::IPV6_UNICAST_HOPS {
                o.unicast_hops = v;
            } else {
                o.multicast_hops = v;
            }
        }
        netabi::IPV6_MULTICAST_LOOP => {
            let v = int_of(raw)?;
            if v != 0 && v != 1 {
                return Err(Errno::EINVAL);
            }
            o.multicast_loop = v == 1;
        }
        netabi::IPV6_TCLASS => {
            let v = int_of(raw)?;
            if !(-1..=0xff).contains(&v) {
                return Err(Errno::EINVAL);
            }
            o.tclass = if v == -1 { 0 } else { v };
        }
        netabi::IPV6_RECVPKTINFO => o.recvpktinfo = int_of(raw)? != 0,
        netabi::IPV6_RECVHOPLIMIT => o.recvhoplimit = int_of(raw)? != 0,
        netabi::IPV6_RECVTCLASS => o.recvtclass = int_of(raw)? != 0,
        netabi::IPV6_RECVERR => o.recverr = int_of(raw)? != 0,
        netabi::IPV6_MTU_DISCOVER => {
            let v = int_of(raw)?;
            // IPV6_PMTUDISC_DONT..IPV6_PMTUDISC_OMIT.
            if !(0..=5).contains(&v) {
                return Err(Errno::EINVAL);
            }
            o.mtu_discover = v;
        }
        _ => return Err(Errno::ENOPROTOOPT),
    }
    Ok(())
}

/// getsockopt(SOL_IPV6, ...).
pub fn get_option(o: &Ipv6Options, name: u32) -> Result<Vec<u8>> {
    let v = match name {
        MRT6_BASE..=MRT6_MAX => return Err(Errno::EOPNOTSUPP),
        netabi::IPV6_V6ONLY => o.v6only as i32,
        netabi::IPV6_UNICAST_HOPS => {
            if o.unicast_hops == -1 {
                DEFAULT_HOPS
            } else {
                o.unicast_hops
            }
        }
        netabi::IPV6_MULTICAST_HOPS => {
            if o.multicast_hops == -1 {
                1
            } else {
                o.multicast_hops
            }
        }
        netabi::IPV6_MULTICAST_LOOP => o.multicast_loop as i32,
        netabi::IPV6_TCLASS => o.tclass,
        netabi::IPV6_RECVPKTINFO => o.recvpktinfo as i32,
        netabi::IPV6_RECVHOPLIMIT => o.recvhoplimit as i32,
        netabi::IPV6_RECVTCLASS => o.recvtclass as i32,
        netabi::IPV6_RECVERR => o.recverr as i32,
        netabi::IPV6_MTU_DISCOVER => o.mtu_discover,
        _ => return Err(Errno::ENOPROTOOPT),
    };
    Ok(v.to_le_bytes().to_vec())
}

/// An IPv6 packet's (next header, payload), skipping no extension
/// headers (smoltcp sends none).
pub fn transport6(packet: &[u8]) -> Option<(u8, &[u8])> {
    if packet.len() < 40 || packet[0] >> 4 != 6 {
        return None;
    }
    let len = (u16::from_be_bytes([packet[4], packet[5]]) as usize).min(packet.len() - 40);
    Some((packet[6], &packet[40..40 + len]))
}

/// The destination of an IPv6 packet.
pub fn dst6(packet: &[u8]) -> Option<Ipv6Address> {
    (packet.len() >= 40 && packet[0] >> 4 == 6).then(|| Ipv6Address::from(<[u8; 16]>::try_from(&packet[24..40]).unwrap()))
}

/// Decodes and checks bind's address for a socket of either family, in
/// Linux's order (inet_bind; __inet6_bind, which checks the port's
/// privilege before the address): the address, which must be this
/// machine's (EADDRNOTAVAIL; an IPv4-mapped one on an IPV6_V6ONLY socket
/// is EINVAL, a link-local one needs a scope id, EINVAL, a scope id an
/// interface, ENODEV), and the port.
pub fn parse_bind(thread: &crate::process::Thread, v6: bool, v6only: bool, raw: &[u8]) -> Result<(IpAddress, u16)> {
    if !v6 {
        // AF_UNSPEC is taken as AF_INET only with INADDR_ANY (a
        // compatibility rule of inet_bind).
        let (ip, port) = match super::parse_addr(raw)? {
            Some(a) => a,
            None if raw.len() >= super::SOCKADDR_IN_LEN && raw[4..8] == [0; 4] => (Ipv4Address::UNSPECIFIED, u16::from_be_bytes([raw[2], raw[3]])),
            None => return Err(Errno::EAFNOSUPPORT),
        };
        if !super::stack::is_local(ip) {
            return Err(Errno::EADDRNOTAVAIL);
        }
        super::check_bind_port(thread, port)?;
        return Ok((IpAddress::Ipv4(ip), port));
    }
    if raw.len() < SIN6_LEN_RFC2133 {
        return Err(Errno::EINVAL);
    }
    let Some(a) = parse(raw)? else { return Err(Errno::EAFNOSUPPORT) };
    super::check_bind_port(thread, a.port)?;
    match a.addr {
        IpAddress::Ipv4(v4) => {
            if v6only {
                return Err(Errno::EINVAL);
            }
            if !super::stack::is_local(v4) {
                return Err(Errno::EADDRNOTAVAIL);
            }
        }
        IpAddress::Ipv6(v6a) if v6a.is_unspecified() => {}
        IpAddress::Ipv6(v6a) => {
            if v6a.is_unicast_link_local() && a.scope_id == 0 {
                return Err(Errno::EINVAL);
            }
            // Only a link-local address binds to the scope's interface.
            if v6a.is_unicast_link_local() && a.scope_id != LO_INDEX && !(a.scope_id == 2 && super::stack::has_eth()) {
                return Err(Errno::ENODEV);
            }
            if !is_local6(v6a) {
                return Err(Errno::EADDRNOTAVAIL);
            }
        }
    }
    Ok((a.addr, a.port))
}

/// Decodes connect's address (None: AF_UNSPEC, a disconnect). AF_INET6
/// sockets take sockaddr_in6 (a datagram socket also sockaddr_in, as
/// ip6_datagram_connect does, EAFNOSUPPORT with IPV6_V6ONLY); an
/// IPv4-mapped address on an IPV6_V6ONLY socket is ENETUNREACH.
pub fn parse_connect(v6: bool, v6only: bool, dgram: bool, raw: &[u8]) -> Result<Option<(IpAddress, u16)>> {
    if !v6 {
        return Ok(super::parse_addr(raw)?.map(|(a, p)| (IpAddress::Ipv4(a), p)));
    }
    if raw.len() < 2 {
        return Err(Errno::EINVAL);
    }
    let family = u16::from_le_bytes([raw[0], raw[1]]) as u32;
    if dgram && family == netabi::AF_INET {
        if v6only {
            return Err(Errno::EAFNOSUPPORT);
        }
        return Ok(super::parse_addr(raw)?.map(|(a, p)| (IpAddress::Ipv4(a), p)));
    }
    let Some(a) = parse(raw)? else { return Ok(None) };
    if matches!(a.addr, IpAddress::Ipv4(_)) && v6only {
        return Err(Errno::ENETUNREACH);
    }
    Ok(Some((a.addr, a.port)))
}

/// Decodes sendto's address on a datagram socket (None: none given, or
/// AF_UNSPEC), as udpv6_sendmsg: AF_INET6 or AF_INET, EINVAL for another
/// family; ENETUNREACH for IPv4 with IPV6_V6ONLY.
pub fn parse_dest(v6: bool, v6only: bool, raw: &[u8]) -> Result<Option<(IpAddress, u16)>> {
    if !v6 {
        return Ok(super::parse_addr(raw)?.map(|(a, p)| (IpAddress::Ipv4(a), p)));
    }
    if raw.len() < 2 {
        return Err(Errno::EINVAL);
    }
    match u16::from_le_bytes([raw[0], raw[1]]) as u32 {
        netabi::AF_INET6 => {
            let Some(a) = parse(raw)? else { return Ok(None) };
            if matches!(a.addr, IpAddress::Ipv4(_)) && v6only {
                return Err(Errno::ENETUNREACH);
            }
            Ok(Some((a.addr, a.port)))
        }
        netabi::AF_INET => {
            if v6only {
                return Err(Errno::ENETUNREACH);
            }
            Ok(super::parse_addr(raw)?.map(|(a, p)| (IpAddress::Ipv4(a), p)))
        }
        netabi::AF_UNSPEC => Ok(None),
        _ => Err(Errno::EINVAL),
    }
}

/// struct in6_pktinfo for a datagram to `dst`: the address (IPv4 ones
/// mapped) and the interface's index (lo's for loopback addresses, else
/// eth0's).
pub fn pktinfo(dst: IpAddress) -> Vec<u8> {
    let (addr, index) = match dst {
        IpAddress::Ipv4(a) => (map(a), if a.octets()[0] == 127 { LO_INDEX } else { 2 }),
        IpAddress::Ipv6(a) => (a, if a == LOOPBACK6 { LO_INDEX } else { 2 }),
    };
    let mut out = alloc::vec![0u8; 20];
    out[..16].copy_from_slice(&addr.octets());
    out[16..20].copy_from_slice(&(index as i32).to_le_bytes());
    out
}
