//! The network interface ioctls that ifconfig and ip use, on any socket
//! (Linux's dev_ioctl): SIOCGIFCONF, SIOCGIFFLAGS/SIOCSIFFLAGS,
//! SIOCGIFADDR/SIOCSIFADDR, SIOCGIFNETMASK, SIOCGIFINDEX, SIOCGIFHWADDR,
//! SIOCGIFMTU/SIOCSIFMTU. What they set is the state netlink reports.
//! The interfaces are the loopback `lo` (index 1, 127.0.0.1/8) and,
//! with a virtio network card, `eth0` (index 2, 10.0.2.15/24).

use alloc::vec::Vec;

use linux_raw_sys::ioctl as io;
use linux_raw_sys::net as netabi;
use smoltcp::wire::Ipv4Address;

use super::encode_addr;
use super::stack::with_stack;
use crate::error::{Errno, Result};
use crate::uaccess::{copy_from_user, copy_to_user};

/// Where ifreq's union starts (after the name).
const IFR_DATA: usize = netabi::IFNAMSIZ as usize;
/// sizeof(struct ifreq) as user space has it: the name and a union whose
/// largest member is struct ifmap (linux-raw-sys's own `ifreq` comes out
/// larger, so it must not size copies to user memory).
const IFREQ_LEN: usize = IFR_DATA + core::mem::size_of::<netabi::ifmap>();
/// sizeof(struct ifconf).
const IFCONF_LEN: usize = core::mem::size_of::<netabi::ifconf>();
/// ARPHRD_LOOPBACK (include/uapi/linux/if_arp.h).
const ARPHRD_LOOPBACK: u16 = 772;
const IFF_UP: u32 = netabi::net_device_flags::IFF_UP as u32;
const IFF_LOOPBACK: u32 = netabi::net_device_flags::IFF_LOOPBACK as u32;
const IFF_RUNNING: u32 = netabi::net_device_flags::IFF_RUNNING as u32;

/// Returns whether `request` is an interface ioctl handled here.
pub fn is_interface_ioctl(request: u32) -> bool {
    matches!(request, io::SIOCGIFCONF | io::SIOCGIFFLAGS | io::SIOCSIFFLAGS | io::SIOCGIFADDR | io::SIOCSIFADDR | io::SIOCGIFNETMASK | io::SIOCGIFINDEX | io::SIOCGIFHWADDR | io::SIOCGIFMTU | io::SIOCSIFMTU)
}

const IFF_BROADCAST: u32 = netabi::net_device_flags::IFF_BROADCAST as u32;
const IFF_MULTICAST: u32 = netabi::net_device_flags::IFF_MULTICAST as u32;
/// ARPHRD_ETHER.
const ARPHRD_ETHER: u16 = 1;

/// What the ioctls report about one interface.
struct Interface {
    name: &'static [u8],
    index: i32,
    flags: u32,
    addr: Ipv4Address,
    netmask: Ipv4Address,
    mtu: i32,
    hw_family: u16,
    mac: [u8; 6],
}

/// lo, and eth0 when there is a network card.
fn interfaces() -> Vec<Interface> {
    with_stack(|st| {
        let mut list = Vec::new();
        let up = st.lo_up;
        list.push(Interface {
            name: b"lo",
            index: 1,
            flags: if up { IFF_UP | IFF_LOOPBACK | IFF_RUNNING } else { IFF_LOOPBACK },
            addr: Ipv4Address::new(127, 0, 0, 1),
            netmask: Ipv4Address::new(255, 0, 0, 0),
            mtu: st.lo_mtu as i32,
            hw_family: ARPHRD_LOOPBACK,
            mac: [0; 6],
        });
        if let Some(eth) = &st.device.eth {
            let base = IFF_BROADCAST | IFF_MULTICAST;
            list.push(Interface {
                name: b"eth0",
                index: 2,
                flags: if eth.up { base | IFF_UP | IFF_RUNNING } else { base },
                addr: eth.primary().unwrap_or(Ipv4Address::UNSPECIFIED),
                netmask: Ipv4Address::from(eth.addrs.first().map_or(0, |a| if a.prefix == 0 { 0 } else { u32::MAX << (32 - u32::from(a.prefix)) })),
                mtu: eth.mtu as i32,
                hw_family: ARPHRD_ETHER,
                mac: eth.mac,
            });
        }
        list
    })
}

/// Runs an interface ioctl with `arg` pointing at a struct ifreq (or
/// ifconf).
pub fn ioctl(request: u32, arg: usize) -> Result<isize> {
    if request == io::SIOCGIFCONF {
        return get_conf(arg);
    }
    let mut req = [0u8; IFREQ_LEN];
    copy_from_user(&mut req, arg)?;
    let name_end = req[..IFR_DATA].iter().position(|&b| b == 0).unwrap_or(IFR_DATA);
    let list = interfaces();
    let iface = list.iter().find(|i| i.name == &req[..name_end]).ok_or(Errno::ENODEV)?;
    let mut data = [0u8; IFREQ_LEN - IFR_DATA];
    match request {
        io::SIOCGIFFLAGS => data[..2].copy_from_slice(&(iface.flags as u16).to_le_bytes()),
        io::SIOCSIFFLAGS => {
            let root = crate::process::current().is_some_and(|t| crate::process::access::capable(&t.process, linux_raw_sys::general::CAP_NET_ADMIN));
            if !root {
                return Err(Errno::EPERM);
            }
            let up = u16::from_le_bytes([req[IFR_DATA], req[IFR_DATA + 1]]) as u32 & IFF_UP != 0;
            let index = iface.index;
            with_stack(|st| {
                crate::net::packet::link_changed(st, index, up);
                if index == 1 {
                    st.lo_up = up;
                    st.lo_addr |= up;
                } else if let Some(eth) = st.device.eth.as_mut() {
                    if eth.up && !up {
                        // Linux flushes the routes through a link going down.
                        eth.routes.clear();
                    }
                    eth.up = up;
                }
            });
            return Ok(0);
        }
        io::SIOCSIFADDR => return set_addr(iface.index, &req[IFR_DATA..IFR_DATA + 16]),
        io::SIOCSIFMTU => {
            if !net_admin() {
                return Err(Errno::EPERM);
            }
            let mtu = i32::from_le_bytes(req[IFR_DATA..IFR_DATA + 4].try_into().unwrap());
            // lo takes any MTU; eth0 (virtio-net) 68 to 65535.
            let index = iface.index;
            if mtu < 0 || (index == 2 && !(68..=65535).contains(&mtu)) {
                return Err(Errno::EINVAL);
            }
            with_stack(|st| {
                if index == 1 {
                    st.lo_mtu = mtu as usize;
                } else if let Some(eth) = st.device.eth.as_mut() {
                    eth.mtu = mtu as usize;
                }
            });
            return Ok(0);
        }
        io::SIOCGIFADDR => data[..16].copy_from_slice(&encode_addr(iface.addr, 0)),
        io::SIOCGIFNETMASK => data[..16].copy_from_slice(&encode_addr(iface.netmask, 0)),
        io::SIOCGIFINDEX => data[..4].copy_from_slice(&iface.index.to_le_bytes()),
        io::SIOCGIFMTU => data[..4].copy_from_slice(&iface.mtu.to_le_bytes()),
        io::SIOCGIFHWADDR => {
            data[..2].copy_from_slice(&iface.hw_family.to_le_bytes());
            data[2..8].copy_from_slice(&iface.mac);
        }
        _ => return Err(Errno::ENOTTY),
    }
    copy_to_user(arg + IFR_DATA, &data)?;
    Ok(0)
}

fn net_admin() -> bool {
    crate::process::current().is_some_and(|t| crate::process::access::capable(&t.process, linux_raw_sys::general::CAP_NET_ADMIN))
}

/// The classful prefix length of an address (Linux's inet_abc_len): the
/// prefix SIOCSIFADDR gives; None for a multicast or reserved one.
fn classful_prefix(a: Ipv4Address) -> Option<u8> {
    let o = a.octets();
    if a.is_unspecified() {
        Some(0)
    } else if o[0] < 128 {
        Some(8)
    } else if o[0] < 192 {
        Some(16)
    } else if o[0] < 224 {
        Some(24)
    } else {
        None
    }
}

/// SIOCSIFADDR: replaces the interface's primary address with one of the
/// address's class, and the broadcast address that goes with it.
fn set_addr(index: i32, raw: &[u8]) -> Result<isize> {
    if !net_admin() {
        return Err(Errno::EPERM);
    }
    let family = u16::from_le_bytes([raw[0], raw[1]]) as u32;
    if family != netabi::AF_INET {
        return Err(Errno::EINVAL);
    }
    let addr = Ipv4Address::new(raw[4], raw[5], raw[6], raw[7]);
    let prefix = classful_prefix(addr).ok_or(Errno::EINVAL)?;
    with_stack(|st| -> Result<isize> {
        if index == 1 {
            // lo keeps 127.0.0.1 here.
            return if addr == Ipv4Address::new(127, 0, 0, 1) { Ok(0) } else { Err(Errno::EOPNOTSUPP) };
        }
        let eth = st.device.eth.as_mut().ok_or(Errno::ENODEV)?;
        if eth.primary() == Some(addr) {
            return Ok(0);
        }
        let host = if prefix >= 32 { 0 } else { u32::MAX >> prefix };
        let new = super::stack::IfAddr { addr, prefix, broadcast: (prefix < 31).then(|| Ipv4Address::from(u32::from(addr) | host)), life: None };
        if eth.addrs.is_empty() {
            eth.addrs.push(new);
        } else {
            eth.addrs[0] = new;
        }
        let addrs = eth.addrs.clone();
        eth.routes.retain(|r| r.gateway.is_none_or(|g| addrs.iter().any(|a| a.contains(g))));
        st.sync_addrs()?;
        Ok(0)
    })
}

/// SIOCGIFCONF: one ifreq per interface with an IPv4 address; a null
/// buffer asks for the length needed.
fn get_conf(arg: usize) -> Result<isize> {
    let mut conf = [0u8; IFCONF_LEN];
    copy_from_user(&mut conf, arg)?;
    let len = i32::from_le_bytes(conf[..4].try_into().unwrap());
    let buf = u64::from_le_bytes(conf[8..16].try_into().unwrap()) as usize;
    let entries: Vec<[u8; IFREQ_LEN]> = interfaces()
        .iter()
        .map(|i| {
            let mut entry = [0u8; IFREQ_LEN];
            entry[..i.name.len()].copy_from_slice(i.name);
            entry[IFR_DATA..IFR_DATA + 16].copy_from_slice(&encode_addr(i.addr, 0));
            entry
        })
        .collect();
    let total = if buf == 0 {
        entries.len() * IFREQ_LEN
    } else {
        let mut done = 0;
        for e in entries.iter() {
            if done + IFREQ_LEN > len.max(0) as usize {
                break;
            }
            copy_to_user(buf + done, e)?;
            done += IFREQ_LEN;
        }
        done
    };
    copy_to_user(arg, &(total as i32).to_le_bytes())?;
    Ok(0)
}
