//! NETLINK_SOCK_DIAG (sock_diag(7)): what `ss` and systemd ask the
//! kernel about its sockets instead of reading /proc/net.
//!
//! Linux 6.1's net/core/sock_diag.c picks a handler by the request's
//! family: inet_diag (here: TCP and UDP over IPv4 and IPv6, in this
//! file) and unix_diag (`unixdiag.rs`); other families have no handler
//! (ENOENT, as on a Linux without their modules). The old TCPDIAG_GETSOCK
//! and DCCPDIAG_GETSOCK requests (struct inet_diag_req) go to inet_diag's
//! compatibility path. The sockets are those /proc/net lists
//! (`net/procnet.rs`: every socket with an open file, in the requesting
//! socket's network namespace), so a connection not accepted yet or in
//! TIME-WAIT is not reported (Linux reports them with inode 0).
//!
//! A socket's cookie is its inode number: unique while it lives and
//! never 0, which is all sock_diag promises of a cookie.

use alloc::vec::Vec;

use linux_raw_sys::net as netabi;
use linux_raw_sys::netlink as nl;
use smoltcp::wire::IpAddress;

use super::diagfilter::{Bytecode, Subject};
use super::{Handled, Header, MsgBuilder, NetlinkSocket, NLMSG_HDRLEN};
use crate::error::{Errno, Result};
use crate::net::procnet::{self, state, Entry, InetEntry, Transport};

// include/uapi/linux/sock_diag.h (not in linux-raw-sys).
/// The request of every family (struct sock_diag_req's first bytes).
pub const SOCK_DIAG_BY_FAMILY: u16 = 20;
/// Close a socket (CONFIG_INET_DIAG_DESTROY, on in Debian's kernel).
pub const SOCK_DESTROY: u16 = 21;
// include/uapi/linux/inet_diag.h.
/// The old TCP request (struct inet_diag_req).
const TCPDIAG_GETSOCK: u16 = 18;
/// The old DCCP request.
const DCCPDIAG_GETSOCK: u16 = 19;
/// Types the compatibility path takes (INET_DIAG_GETSOCK_MAX).
const INET_DIAG_GETSOCK_MAX: u16 = 24;
/// sizeof(struct inet_diag_req_v2).
const REQ_V2_LEN: usize = 56;
/// sizeof(struct inet_diag_req) (the old request: 8 bytes of idiag_dbs).
const REQ_COMPAT_LEN: usize = 60;
/// sizeof(struct inet_diag_msg).
const MSG_LEN: usize = 72;
/// A cookie that matches every socket.
const NOCOOKIE: u32 = !0;
/// IPPROTO_MAX.
const IPPROTO_MAX: u32 = netabi::IPPROTO_MAX as u32;
/// IPPROTO_UDPLITE: udp_diag answers it too (no socket here is one).
const IPPROTO_UDPLITE: u32 = netabi::IPPROTO_UDPLITE as u32;

// The request attributes (enum inet_diag_req_attrs).
const INET_DIAG_REQ_BYTECODE: u16 = 1;
const INET_DIAG_REQ_PROTOCOL: u16 = 3;
const INET_DIAG_REQ_MAX: u16 = 4;

// The reply attributes (enum inet_diag_attrs); a request's idiag_ext asks
// for attribute N with bit N-1.
const INET_DIAG_MEMINFO: u16 = 1;
const INET_DIAG_TOS: u16 = 5;
const INET_DIAG_TCLASS: u16 = 6;
const INET_DIAG_SKMEMINFO: u16 = 7;
const INET_DIAG_SHUTDOWN: u16 = 8;
const INET_DIAG_SKV6ONLY: u16 = 11;
const INET_DIAG_MARK: u16 = 15;
const INET_DIAG_CLASS_ID: u16 = 17;
const INET_DIAG_CGROUP_ID: u16 = 21;
const INET_DIAG_SOCKOPT: u16 = 22;

// struct inet_diag_sockopt's first byte: the defaults of a socket that
// changed none of them (IP_MULTICAST_LOOP and IP_MULTICAST_ALL on), and
// is_icsk for TCP.
const SOCKOPT_IS_ICSK: u8 = 1 << 1;
const SOCKOPT_MC_LOOP: u8 = 1 << 4;
const SOCKOPT_MC_ALL: u8 = 1 << 6;

/// sk_meminfo's nine counters (SK_MEMINFO_VARS), as
/// sock_diag_put_meminfo sends them: rmem_alloc, rcvbuf, wmem_alloc,
/// sndbuf, fwd_alloc, wmem_queued, optmem, backlog, drops.
pub fn meminfo(rmem: usize, rcvbuf: usize, wmem: usize, sndbuf: usize) -> Vec<u8> {
    let values = [rmem, rcvbuf, wmem, sndbuf, 0, wmem, 0, 0, 0];
    values.iter().flat_map(|v| (*v as u32).to_le_bytes()).collect()
}

/// Who asks: the requesting socket's port (replies carry it), the
/// request's sequence number and type, and the kernel ids shown to it.
pub struct Asker {
    /// The port id of the asking socket.
    pub pid: u32,
    /// The request's nlmsg_seq.
    pub seq: u32,
    /// The request's type (replies have the same).
    pub kind: u16,
    /// The asker has CAP_NET_ADMIN (INET_DIAG_MARK is shown, mark
    /// conditions are allowed).
    pub net_admin: bool,
    /// The network namespace the asking socket was made in.
    pub net: u64,
    user_ns: Option<alloc::sync::Arc<crate::ns::user::UserNs>>,
}

impl Asker {
    /// An owner's uid as the asker's user namespace shows it.
    pub fn uid(&self, kid: u32) -> u32 {
        self.user_ns.as_ref().map_or(kid, |ns| ns.uid_shown(kid))
    }
}

/// A request's id fields (struct inet_diag_sockid).
#[derive(Clone, Copy)]
struct SockId {
    sport: u16,
    dport: u16,
    src: [u8; 16],
    dst: [u8; 16],
    // idiag_if is not looked at: no socket here is bound to a device, and
    // Linux's lookups match a socket without one on any.
    cookie: [u32; 2],
}

impl SockId {
    fn parse(b: &[u8]) -> SockId {
        SockId {
            sport: u16::from_be_bytes([b[0], b[1]]),
            dport: u16::from_be_bytes([b[2], b[3]]),
            src: b[4..20].try_into().unwrap(),
            dst: b[20..36].try_into().unwrap(),
            cookie: [u32::from_le_bytes(b[40..44].try_into().unwrap()), u32::from_le_bytes(b[44..48].try_into().unwrap())],
        }
    }
}

/// An inet request, v2 or translated from the old form.
struct InetReq {
    family: u32,
    protocol: u32,
    ext: u8,
    states: u32,
    id: SockId,
}

/// Handles one request to NETLINK_SOCK_DIAG (sock_diag_rcv_msg).
pub fn handle(sock: &NetlinkSocket, hdr: &Header, msg: &[u8], out: &mut Vec<Vec<u8>>) -> Result<Handled> {
    let body = &msg[NLMSG_HDRLEN..];
    let asker = Asker {
        pid: sock.portid(),
        seq: hdr.seq,
        kind: hdr.kind,
        net_admin: super::net_admin(),
        net: sock.net,
        user_ns: crate::process::current().map(|t| t.process.creds.lock().user_ns.clone()),
    };
    match hdr.kind {
        TCPDIAG_GETSOCK | DCCPDIAG_GETSOCK => compat(hdr, body, &asker, out),
        SOCK_DIAG_BY_FAMILY | SOCK_DESTROY => {
            // struct sock_diag_req: the family and the protocol.
            if body.len() < 2 {
                return Err(Errno::EINVAL);
            }
            let family = u32::from(body[0]);
            if family >= netabi::AF_MAX {
                return Err(Errno::EINVAL);
            }
            match family {
                netabi::AF_INET | netabi::AF_INET6 => inet(hdr, body, &asker, out),
                netabi::AF_UNIX => super::unixdiag::handle(hdr, body, &asker, out),
                _ => Err(Errno::ENOENT),
            }
        }
        _ => Err(Errno::EINVAL),
    }
}

/// Whether a request is a dump: sock_diag's handlers take either of
/// NLM_F_ROOT and NLM_F_MATCH for one.
pub fn wants_dump(hdr: &Header) -> bool {
    hdr.flags & nl::NLM_F_DUMP as u16 != 0
}

/// inet_diag_handler_cmd: a dump, or one socket.
fn inet(hdr: &Header, body: &[u8], asker: &Asker, out: &mut Vec<Vec<u8>>) -> Result<Handled> {
    if body.len() < REQ_V2_LEN {
        return Err(Errno::EINVAL);
    }
    let attrs = request_attrs(&body[REQ_V2_LEN..]);
    let mut req = InetReq { family: u32::from(body[0]), protocol: u32::from(body[1]), ext: body[2], states: u32::from_le_bytes(body[4..8].try_into().unwrap()), id: SockId::parse(&body[8..56]) };
    if let Some(p) = attrs.protocol {
        req.protocol = p;
    }
    if hdr.kind == SOCK_DIAG_BY_FAMILY && wants_dump(hdr) {
        let filter = match attrs.bytecode {
            Some(code) => Some(Bytecode::audit(code, asker.net_admin)?),
            None => None,
        };
        dump(&req, filter.as_ref(), asker, out);
        return Ok(Handled::Dump);
    }
    handler(req.protocol)?;
    if hdr.kind == SOCK_DESTROY {
        return destroy(&req, asker);
    }
    exact(&req, asker, out)
}

/// The compatibility path (inet_diag_rcv_compat): TCP or DCCP by type,
/// both families.
fn compat(hdr: &Header, body: &[u8], asker: &Asker, out: &mut Vec<Vec<u8>>) -> Result<Handled> {
    if hdr.kind >= INET_DIAG_GETSOCK_MAX || body.len() < REQ_COMPAT_LEN {
        return Err(Errno::EINVAL);
    }
    let protocol = if hdr.kind == TCPDIAG_GETSOCK { netabi::IPPROTO_TCP as u32 } else { netabi::IPPROTO_DCCP as u32 };
    let id = SockId::parse(&body[4..52]);
    let states = u32::from_le_bytes(body[52..56].try_into().unwrap());
    if wants_dump(hdr) {
        let attrs = request_attrs(&body[REQ_COMPAT_LEN..]);
        let filter = match attrs.bytecode {
            Some(code) => Some(Bytecode::audit(code, asker.net_admin)?),
            None => None,
        };
        // The old request has no family to filter by.
        let req = InetReq { family: netabi::AF_UNSPEC, protocol, ext: body[3], states, id };
        dump(&req, filter.as_ref(), asker, out);
        return Ok(Handled::Dump);
    }
    let req = InetReq { family: u32::from(body[0]), protocol, ext: body[3], states, id };
    handler(protocol)?;
    exact(&req, asker, out)
}

/// The request attributes inet_diag looks at; nlmsg_for_each_attr stops
/// at the first malformed one.
struct ReqAttrs<'a> {
    bytecode: Option<&'a [u8]>,
    protocol: Option<u32>,
}

fn request_attrs(mut data: &[u8]) -> ReqAttrs<'_> {
    let mut attrs = ReqAttrs { bytecode: None, protocol: None };
    while data.len() >= 4 {
        let len = u16::from_le_bytes([data[0], data[1]]) as usize;
        let kind = u16::from_le_bytes([data[2], data[3]]) & !(nl::NLA_F_NESTED as u16 | nl::NLA_F_NET_BYTEORDER as u16);
        if len < 4 || len > data.len() {
            break;
        }
        let payload = &data[4..len];
        if kind < INET_DIAG_REQ_MAX {
            match kind {
                INET_DIAG_REQ_BYTECODE => attrs.bytecode = Some(payload),
                INET_DIAG_REQ_PROTOCOL if payload.len() >= 4 => attrs.protocol = Some(u32::from_le_bytes(payload[..4].try_into().unwrap())),
                _ => {}
            }
        }
        data = &data[super::align4(len).min(data.len())..];
    }
    attrs
}

/// The transport a protocol's handler lists (inet_diag_lock_handler):
/// ENOENT for one without a handler. UDP-Lite has udp_diag's, and no
/// socket.
fn handler(protocol: u32) -> Result<Option<Transport>> {
    if protocol >= IPPROTO_MAX {
        return Err(Errno::ENOENT);
    }
    match protocol {
        p if p == netabi::IPPROTO_TCP as u32 => Ok(Some(Transport::Tcp)),
        p if p == netabi::IPPROTO_UDP as u32 => Ok(Some(Transport::Udp)),
        IPPROTO_UDPLITE => Ok(None),
        _ => Err(Errno::ENOENT),
    }
}

fn family_of(e: &InetEntry) -> u32 {
    if e.v6 {
        netabi::AF_INET6
    } else {
        netabi::AF_INET
    }
}

/// What the filter and the reply see of an address: 16 bytes for an
/// IPv6 socket (IPv4 ones v4-mapped), the first 4 for an IPv4 one.
fn addr_bytes(v6: bool, addr: IpAddress) -> [u8; 16] {
    if v6 {
        procnet::v6_bytes(addr)
    } else {
        let mut b = [0u8; 16];
        b[..4].copy_from_slice(&procnet::v4_bytes(addr));
        b
    }
}

/// A dump (inet_diag_dump): the handler's sockets that the states, the
/// family, the ports and the filter take; a protocol without a handler
/// ends it with ENOENT in NLMSG_DONE.
fn dump(req: &InetReq, filter: Option<&Bytecode>, asker: &Asker, out: &mut Vec<Vec<u8>>) {
    let transport = match handler(req.protocol) {
        Ok(t) => t,
        Err(e) => {
            out.push(done(asker, -e.code()));
            return;
        }
    };
    if let Some(transport) = transport {
        let mut list = procnet::sockets_of(asker.net, |e| matches!(e, Entry::Inet(_, i) if i.transport == transport));
        // TCP lists its listeners first (the listening hash, then the
        // established one), and only asks the established table when
        // some other state is wanted.
        list.sort_by_key(|l| match &l.entry {
            Entry::Inet(_, i) => (i.state != state::LISTEN, l.ino),
            _ => (true, l.ino),
        });
        for l in &list {
            let Entry::Inet(_, e) = &l.entry else { continue };
            if req.states & (1 << e.state) == 0 {
                continue;
            }
            if req.family != netabi::AF_UNSPEC && family_of(e) != req.family {
                continue;
            }
            if req.id.sport != 0 && req.id.sport != e.local.1 {
                continue;
            }
            // Listeners are only walked when no peer port is asked for;
            // the others' peer port must match one.
            if req.id.dport != 0 && (e.state == state::LISTEN || req.id.dport != e.remote.1) {
                continue;
            }
            if let Some(f) = filter {
                let subject = Subject {
                    family: family_of(e),
                    sport: e.local.1,
                    dport: e.remote.1,
                    saddr: addr_bytes(e.v6, e.local.0),
                    daddr: addr_bytes(e.v6, e.remote.0),
                    port_locked: e.port_locked,
                    ifindex: 0,
                    mark: 0,
                    cgroup_id: l.cgroup,
                };
                if !f.run(&subject) {
                    continue;
                }
            }
            out.push(fill(e, l, req.ext, nl::NLM_F_MULTI as u16, asker));
        }
    }
    out.push(done(asker, 0));
}

/// NLMSG_DONE with the dump's outcome.
fn done(asker: &Asker, err: i32) -> Vec<u8> {
    let mut b = MsgBuilder::new(nl::NLMSG_DONE as u16, nl::NLM_F_MULTI as u16, asker.seq, asker.pid);
    b.put(&err.to_le_bytes());
    b.finish()
}

/// Whether a socket's cookie is the one asked for (sock_diag_check_cookie).
pub fn cookie_matches(ino: u64, cookie: [u32; 2]) -> bool {
    (cookie[0] == NOCOOKIE && cookie[1] == NOCOOKIE) || (cookie[0] == ino as u32 && cookie[1] == (ino >> 32) as u32)
}

/// Why a one-socket request looks: to answer it, or to destroy it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Lookup {
    Answer,
    Destroy,
}

/// Finds one socket by a request's addresses: TCP as inet_lookup (a
/// connection by both ends, else a listener on the local end; the
/// request's source is the local end); UDP as __udp4_lib_lookup, whose
/// answering path (udp_dump_one) takes the request's source as the
/// remote end ("swapped for historical reasons") and whose destroying
/// path does not. Then the cookie: another socket's is ENOENT, but
/// ESTALE for udp_dump_one. Returns the index in `list`.
fn find_one(req: &InetReq, transport: Transport, list: &[procnet::Listed], why: Lookup) -> Result<usize> {
    let v6_req = match req.family {
        netabi::AF_INET => false,
        netabi::AF_INET6 => true,
        _ => return Err(Errno::EINVAL),
    };
    // An IPv6 request of two v4-mapped addresses looks in IPv4's tables.
    let mapped = |a: &[u8; 16]| a[..10].iter().all(|&b| b == 0) && a[10] == 0xff && a[11] == 0xff;
    let as_v4 = !v6_req || (mapped(&req.id.src) && mapped(&req.id.dst));
    let norm = |a: &[u8; 16]| -> [u8; 16] {
        if v6_req && !as_v4 {
            *a
        } else {
            let v4: [u8; 4] = if v6_req { a[12..16].try_into().unwrap() } else { a[..4].try_into().unwrap() };
            procnet::v6_bytes(IpAddress::Ipv4(smoltcp::wire::Ipv4Address::from(v4)))
        }
    };
    let (src, dst) = ((norm(&req.id.src), req.id.sport), (norm(&req.id.dst), req.id.dport));
    let swapped = transport == Transport::Udp && why == Lookup::Answer;
    let (local, remote) = if swapped { (dst, src) } else { (src, dst) };
    let mut best: Option<(u32, usize)> = None;
    for (i, l) in list.iter().enumerate() {
        let Entry::Inet(_, e) = &l.entry else { continue };
        if e.transport != transport {
            continue;
        }
        // An IPv4 lookup finds IPv4 sockets and dual-stack IPv6 ones; an
        // IPv6 one IPv6 sockets.
        if (as_v4 && e.v6 && e.v6only) || (!as_v4 && !e.v6) {
            continue;
        }
        if e.local.1 != local.1 {
            continue;
        }
        let el = procnet::v6_bytes(e.local.0);
        let er = procnet::v6_bytes(e.remote.0);
        let local_any = e.local.0.is_unspecified();
        let connected = e.remote.1 != 0;
        let score = match transport {
            Transport::Tcp => {
                if connected {
                    if el == local.0 && er == remote.0 && e.remote.1 == remote.1 { 3 } else { continue }
                } else if e.state == state::LISTEN && (local_any || el == local.0) {
                    1 + u32::from(!local_any)
                } else {
                    continue;
                }
            }
            Transport::Udp => {
                if !local_any && el != local.0 {
                    continue;
                }
                if connected && (er != remote.0 || e.remote.1 != remote.1) {
                    continue;
                }
                1 + u32::from(!local_any) + 2 * u32::from(connected)
            }
        };
        if best.is_none_or(|(s, _)| score > s) {
            best = Some((score, i));
        }
    }
    let (_, i) = best.ok_or(Errno::ENOENT)?;
    if !cookie_matches(list[i].ino, req.id.cookie) {
        return Err(if swapped { Errno::ESTALE } else { Errno::ENOENT });
    }
    Ok(i)
}

/// One socket's message (inet_diag_dump_one_icsk, udp_dump_one).
fn exact(req: &InetReq, asker: &Asker, out: &mut Vec<Vec<u8>>) -> Result<Handled> {
    let transport = handler(req.protocol)?.ok_or(Errno::ENOENT)?;
    let list = procnet::sockets_of(asker.net, |e| matches!(e, Entry::Inet(_, i) if i.transport == transport));
    let i = find_one(req, transport, &list, Lookup::Answer)?;
    let Entry::Inet(_, e) = &list[i].entry else { return Err(Errno::ENOENT) };
    out.push(fill(e, &list[i], req.ext, 0, asker));
    Ok(Handled::Done)
}

/// SOCK_DESTROY (tcp_diag_destroy, udp_diag_destroy): the socket found,
/// then CAP_NET_ADMIN (sock_diag_destroy), then the protocol's abort
/// with ECONNABORTED. Nothing is sent back but an acknowledgement.
fn destroy(req: &InetReq, asker: &Asker) -> Result<Handled> {
    let transport = handler(req.protocol)?.ok_or(Errno::ENOENT)?;
    let list = procnet::sockets_of(asker.net, |e| matches!(e, Entry::Inet(_, i) if i.transport == transport));
    let i = find_one(req, transport, &list, Lookup::Destroy)?;
    if !asker.net_admin {
        return Err(Errno::EPERM);
    }
    list[i].socket.diag_destroy(Errno::ECONNABORTED)?;
    Ok(Handled::Done)
}

/// One socket's message (inet_sk_diag_fill).
fn fill(e: &InetEntry, l: &procnet::Listed, ext: u8, flags: u16, asker: &Asker) -> Vec<u8> {
    let mut m = [0u8; MSG_LEN];
    m[0] = family_of(e) as u8;
    m[1] = e.state;
    // idiag_timer and idiag_retrans, idiag_expires: no timer is shown.
    m[4..6].copy_from_slice(&e.local.1.to_be_bytes());
    m[6..8].copy_from_slice(&e.remote.1.to_be_bytes());
    m[8..24].copy_from_slice(&addr_bytes(e.v6, e.local.0));
    m[24..40].copy_from_slice(&addr_bytes(e.v6, e.remote.0));
    // idiag_if 0 (no SO_BINDTODEVICE here), then the cookie.
    m[44..48].copy_from_slice(&(l.ino as u32).to_le_bytes());
    m[48..52].copy_from_slice(&((l.ino >> 32) as u32).to_le_bytes());
    // tcp_diag_get_info / udp_diag_get_info: a listener's accept queue
    // and backlog, else the bytes queued each way.
    let (rqueue, wqueue) = if e.state == state::LISTEN { (e.rx_queue, e.backlog) } else { (e.rx_queue, e.tx_queue) };
    m[56..60].copy_from_slice(&(rqueue as u32).to_le_bytes());
    m[60..64].copy_from_slice(&(wqueue as u32).to_le_bytes());
    m[64..68].copy_from_slice(&asker.uid(l.uid).to_le_bytes());
    m[68..72].copy_from_slice(&(l.ino as u32).to_le_bytes());
    let mut b = MsgBuilder::new(asker.kind, flags, asker.seq, asker.pid);
    b.put(&m);
    let options = l.socket.options().get();
    let wants = |attr: u16| ext & (1 << (attr - 1)) != 0;
    b.attr_u8(INET_DIAG_SHUTDOWN, e.shutdown);
    if wants(INET_DIAG_TOS) {
        b.attr_u8(INET_DIAG_TOS, 0);
    }
    if e.v6 {
        if wants(INET_DIAG_TCLASS) {
            b.attr_u8(INET_DIAG_TCLASS, 0);
        }
        if e.state == state::LISTEN || e.state == state::CLOSE {
            b.attr_u8(INET_DIAG_SKV6ONLY, e.v6only as u8);
        }
    }
    if asker.net_admin {
        b.attr_u32(INET_DIAG_MARK, 0);
    }
    if wants(INET_DIAG_TCLASS) {
        // The class id falls back to SO_PRIORITY.
        b.attr_u32(INET_DIAG_CLASS_ID, options.priority);
    }
    b.attr(INET_DIAG_CGROUP_ID, &l.cgroup.to_le_bytes());
    let mut sockopt = [SOCKOPT_MC_LOOP | SOCKOPT_MC_ALL, 0];
    if e.transport == Transport::Tcp {
        sockopt[0] |= SOCKOPT_IS_ICSK;
    }
    b.attr(INET_DIAG_SOCKOPT, &sockopt);
    if wants(INET_DIAG_MEMINFO) {
        // struct inet_diag_meminfo: rmem, wmem (queued), fwd, tmem.
        let v = [e.rx_queue as u32, e.tx_queue as u32, 0, e.tx_queue as u32];
        b.attr(INET_DIAG_MEMINFO, &v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>());
    }
    if wants(INET_DIAG_SKMEMINFO) {
        b.attr(INET_DIAG_SKMEMINFO, &meminfo(e.rx_queue, options.rcvbuf, e.tx_queue, options.sndbuf));
    }
    b.finish()
}
