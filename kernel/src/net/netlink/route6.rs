//! rtnetlink for AF_INET6: the IPv6 addresses of the interfaces, as
//! inet6_fill_ifaddr reports them. The stack's IPv6 addresses are lo's
//! ::1/128, there once lo is up (Linux's addrconf adds it when lo comes
//! up); eth0 has none yet (no link-local address, no SLAAC).

use alloc::vec::Vec;

use linux_raw_sys::netlink as nl;

use super::MsgBuilder;
use crate::net::inet::ipv6::{LOOPBACK6, LO_INDEX};

/// sizeof(struct ifaddrmsg).
const IFADDRMSG_LEN: usize = core::mem::size_of::<nl::ifaddrmsg>();
/// IFA_F_PERMANENT.
const PERMANENT: u32 = nl::IFA_F_PERMANENT;

/// One IPv6 address of an interface.
pub struct Addr6 {
    /// The interface's index.
    pub index: u32,
    /// The address.
    pub addr: [u8; 16],
    /// The prefix length.
    pub prefix: u8,
    /// rt_scope (RT_SCOPE_HOST for ::1, RT_SCOPE_LINK for fe80::/10).
    pub scope: u8,
    /// IFA_F_* flags.
    pub flags: u32,
    /// IFA_PROTO: who made it (IFAPROT_KERNEL_LO for ::1; 0: not sent).
    pub proto: u8,
}

/// The IPv6 addresses, in Linux's dump order (by interface).
pub fn addrs() -> Vec<Addr6> {
    addrs_in(&crate::ns::net::current())
}

/// The IPv6 addresses of network namespace `ns`.
pub fn addrs_in(ns: &crate::ns::net::NetNs) -> Vec<Addr6> {
    let lo_up = crate::net::inet::stack::with_stack_in(ns, |st| st.lo_up);
    let mut out = Vec::new();
    if lo_up {
        out.push(Addr6 { index: LO_INDEX, addr: LOOPBACK6.octets(), prefix: 128, scope: nl::rt_scope_t::RT_SCOPE_HOST as u8, flags: PERMANENT, proto: nl::IFAPROT_KERNEL_LO as u8 });
    }
    out
}

/// An RTM_NEWADDR (or DELADDR) message about `a`.
pub fn addr_message(kind: u16, flags: u16, seq: u32, pid: u32, a: &Addr6) -> Vec<u8> {
    let mut b = MsgBuilder::new(kind, flags, seq, pid);
    let mut ifa = [0u8; IFADDRMSG_LEN];
    ifa[0] = linux_raw_sys::net::AF_INET6 as u8;
    ifa[1] = a.prefix;
    ifa[2] = a.flags as u8;
    ifa[3] = a.scope;
    ifa[4..8].copy_from_slice(&a.index.to_le_bytes());
    b.put(&ifa);
    b.attr(nl::IFA_ADDRESS as u16, &a.addr);
    b.attr(nl::IFA_CACHEINFO as u16, &super::route::address_cache_info());
    b.attr_u32(nl::IFA_FLAGS as u16, a.flags);
    if a.proto != 0 {
        b.attr_u8(nl::IFA_PROTO as u16, a.proto);
    }
    b.finish()
}
