//! AF_INET: TCP and UDP over IPv4, on smoltcp (`stack.rs`). This module
//! holds what both protocols share: socket addresses, creation with
//! Linux's checks, and the IP-level options. The interface ioctls
//! (SIOCGIFFLAGS...) are in `iface.rs`.

pub mod acks;
pub mod cork;
pub mod iface;
pub mod ipv6;
pub mod sockets;
pub mod stack;
pub mod tcp;
pub mod tcpfilter;
pub mod udp;

pub use ipv6::{parse_bind, parse_connect};

use alloc::sync::Arc;
use alloc::vec::Vec;

use linux_raw_sys::net as netabi;
use smoltcp::wire::Ipv4Address;

use super::Socket;
use crate::error::{Errno, Result};
use crate::process::Thread;

/// sizeof(struct sockaddr_in).
pub const SOCKADDR_IN_LEN: usize = core::mem::size_of::<netabi::sockaddr_in>();
/// IPPROTO_TCP.
pub const IPPROTO_TCP: u32 = netabi::IPPROTO_TCP as u32;
/// IPPROTO_UDP.
pub const IPPROTO_UDP: u32 = netabi::IPPROTO_UDP as u32;
/// IP_TTL's default (net.ipv4.ip_default_ttl).
const DEFAULT_TTL: i32 = 64;

/// Linux's inet_bind check after the address: a port below 1024 (the
/// default net.ipv4.ip_unprivileged_port_start) needs
/// CAP_NET_BIND_SERVICE (EACCES).
pub fn check_bind_port(thread: &Thread, port: u16) -> Result<()> {
    if port != 0 && port < 1024 && !crate::process::access::capable(&thread.process, linux_raw_sys::general::CAP_NET_BIND_SERVICE) {
        return Err(Errno::EACCES);
    }
    Ok(())
}

/// Decodes a sockaddr_in: EINVAL when shorter than one, EAFNOSUPPORT for
/// another family (AF_UNSPEC is left to the caller: `None`).
pub fn parse_addr(raw: &[u8]) -> Result<Option<(Ipv4Address, u16)>> {
    if raw.len() < 2 {
        return Err(Errno::EINVAL);
    }
    let family = u16::from_le_bytes([raw[0], raw[1]]) as u32;
    if family == netabi::AF_UNSPEC {
        return Ok(None);
    }
    if raw.len() < SOCKADDR_IN_LEN {
        return Err(Errno::EINVAL);
    }
    if family != netabi::AF_INET {
        return Err(Errno::EAFNOSUPPORT);
    }
    let port = u16::from_be_bytes([raw[2], raw[3]]);
    Ok(Some((Ipv4Address::new(raw[4], raw[5], raw[6], raw[7]), port)))
}

/// Encodes a sockaddr_in (16 bytes, zero padding).
pub fn encode_addr(addr: Ipv4Address, port: u16) -> Vec<u8> {
    let mut out = alloc::vec![0u8; SOCKADDR_IN_LEN];
    out[..2].copy_from_slice(&(netabi::AF_INET as u16).to_le_bytes());
    out[2..4].copy_from_slice(&port.to_be_bytes());
    out[4..8].copy_from_slice(&addr.octets());
    out
}

/// Where a packet to `addr` goes: the destination (0.0.0.0 means this
/// host, as on Linux) and the source address to use. 127.0.0.0/8 goes
/// through lo; anything else through eth0 when there is a card (its
/// gateway is the default route); ENETUNREACH when the interface is
/// missing or down.
pub fn route(stack: &stack::Stack, addr: Ipv4Address) -> Result<(Ipv4Address, Ipv4Address)> {
    let addr = if addr.is_unspecified() { Ipv4Address::new(127, 0, 0, 1) } else { addr };
    if addr.octets()[0] == 127 {
        if !stack.lo_up {
            return Err(Errno::ENETUNREACH);
        }
        return Ok((addr, Ipv4Address::new(127, 0, 0, 1)));
    }
    match &stack.device.eth {
        Some(eth) if eth.has_addr(addr) => Ok((addr, addr)),
        Some(eth) if eth.up && eth.next_hop(addr).is_some() => Ok((addr, eth.primary().ok_or(Errno::ENETUNREACH)?)),
        _ => Err(Errno::ENETUNREACH),
    }
}

/// Creates an AF_INET socket, with inet_create's checks: a type without
/// a protocol here is ESOCKTNOSUPPORT, a protocol that does not match
/// the type EPROTONOSUPPORT.
pub fn create(sock_type: u32, protocol: i32) -> Result<Arc<dyn Socket>> {
    create_in(false, sock_type, protocol)
}

/// Creates an AF_INET6 socket (inet6_create makes the same checks).
pub fn create6(sock_type: u32, protocol: i32) -> Result<Arc<dyn Socket>> {
    create_in(true, sock_type, protocol)
}

fn create_in(v6: bool, sock_type: u32, protocol: i32) -> Result<Arc<dyn Socket>> {
    if !(0..256).contains(&protocol) {
        return Err(Errno::EINVAL); // IPPROTO_MAX
    }
    match sock_type {
        netabi::SOCK_STREAM => {
            if protocol != 0 && protocol as u32 != IPPROTO_TCP {
                return Err(Errno::EPROTONOSUPPORT);
            }
            Ok(tcp::TcpSocket::new(v6))
        }
        netabi::SOCK_DGRAM => {
            if protocol != 0 && protocol as u32 != IPPROTO_UDP {
                return Err(Errno::EPROTONOSUPPORT);
            }
            Ok(udp::UdpSocket::new(v6))
        }
        // Raw sockets need CAP_NET_RAW (EPERM, as inet_create checks
        // before making one); they are not implemented (ICMP, raw IP).
        netabi::SOCK_RAW => {
            if !crate::process::current().is_some_and(|t| crate::process::access::capable(&t.process, linux_raw_sys::general::CAP_NET_RAW)) {
                return Err(Errno::EPERM);
            }
            Err(Errno::EPROTONOSUPPORT)
        }
        _ => Err(Errno::ESOCKTNOSUPPORT),
    }
}

/// The IP-level options every AF_INET socket keeps (stored and reported
/// as Linux does; smoltcp uses its own TTL and no TOS).
#[derive(Clone, Copy)]
pub struct IpOptions {
    /// IP_TTL (-1 reads back as the default).
    pub ttl: i32,
    /// IP_TOS.
    pub tos: i32,
}

impl Default for IpOptions {
    fn default() -> Self {
        Self { ttl: -1, tos: 0 }
    }
}

fn int_of(raw: &[u8]) -> Result<i32> {
    if raw.len() < 4 {
        return Err(Errno::EINVAL);
    }
    Ok(i32::from_le_bytes(raw[..4].try_into().unwrap()))
}

/// setsockopt(SOL_IP, ...): IP_TTL and IP_TOS; other options ENOPROTOOPT.
pub fn set_ip_option(o: &mut IpOptions, name: u32, raw: &[u8]) -> Result<()> {
    match name {
        netabi::IP_TTL => {
            let v = int_of(raw)?;
            if v != -1 && !(1..=255).contains(&v) {
                return Err(Errno::EINVAL);
            }
            o.ttl = v;
        }
        // Linux keeps only the DS field and ECN bits as given.
        netabi::IP_TOS => o.tos = int_of(raw)? & 0xff,
        _ => return Err(Errno::ENOPROTOOPT),
    }
    Ok(())
}

/// getsockopt(SOL_IP, ...).
pub fn get_ip_option(o: &IpOptions, name: u32) -> Result<Vec<u8>> {
    let v = match name {
        netabi::IP_TTL => {
            if o.ttl == -1 {
                DEFAULT_TTL
            } else {
                o.ttl
            }
        }
        netabi::IP_TOS => o.tos,
        _ => return Err(Errno::ENOPROTOOPT),
    };
    Ok(v.to_le_bytes().to_vec())
}

/// Reads an int option value.
pub fn option_int(raw: &[u8]) -> Result<i32> {
    int_of(raw)
}
