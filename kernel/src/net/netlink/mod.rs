//! AF_NETLINK: datagram sockets between user space and the kernel's
//! netlink families (one file per family: `route.rs` for NETLINK_ROUTE,
//! `uevent.rs` for NETLINK_KOBJECT_UEVENT), and between user sockets.
//!
//! What is Linux's here (net/netlink/af_netlink.c): port ids (bind with
//! `nl_pid` 0 or autobind takes the process's pid, then a random
//! negative one; a taken one is EADDRINUSE), multicast groups by bind's
//! `nl_groups` and NETLINK_ADD_MEMBERSHIP, the SOL_NETLINK options, one
//! datagram per receive (MSG_TRUNC gives its full length, which is how
//! `ip` sizes its buffer with MSG_PEEK), the kernel's address (port 0) on
//! what it sends, and the kernel's processing of a request batch
//! (netlink_rcv_skb): a message without NLM_F_REQUEST or of a control
//! type is only acknowledged, an error or NLM_F_ACK gives an NLMSG_ERROR,
//! a dump gives NLM_F_MULTI messages ended by NLMSG_DONE.
//!
//! Locking: [`PORTS`] is taken before a socket's state lock, never after;
//! wake-ups happen with no lock held. A dump is built whole when it is
//! asked for and queued as datagrams.

pub mod addrlife;
pub mod diagfilter;
pub mod audit;
pub mod route;
pub mod route6;
pub mod sockdiag;
pub mod uevent;
pub mod unixdiag;

use alloc::collections::{BTreeMap, VecDeque};
use alloc::sync::{Arc, Weak};
use alloc::vec::Vec;
use core::sync::atomic::{AtomicU64, Ordering};

use kevlar_platform::sync::SpinLock;
use linux_raw_sys::general as abi;
use linux_raw_sys::net as netabi;
use linux_raw_sys::netlink as nl;

use super::{Incoming, Outgoing, Sink, Socket, SocketOptions, Ucred};
use crate::error::{Errno, Result};
use crate::fs::file::{PollEvents, POLLERR, POLLIN, POLLOUT, POLLRDNORM, POLLWRBAND, POLLWRNORM};
use crate::fs::poll_queue::PollQueue;
use crate::process::wait_queue::WaitQueue;
use crate::process::Thread;

/// sizeof(struct sockaddr_nl).
pub const SOCKADDR_NL_LEN: usize = core::mem::size_of::<nl::sockaddr_nl>();
/// sizeof(struct nlmsghdr) (NLMSG_HDRLEN: already aligned).
pub const NLMSG_HDRLEN: usize = core::mem::size_of::<nl::nlmsghdr>();
/// Types below this are control messages (NLMSG_MIN_TYPE).
const NLMSG_MIN_TYPE: u16 = 0x10;
/// MAX_LINKS: protocols are 0..32.
const MAX_LINKS: i32 = 32;
/// The groups a socket of a family without more has (netlink_kernel_create
/// gives every family at least 32).
const MIN_GROUPS: u32 = 32;
/// What a queued datagram is charged besides its bytes (an sk_buff's
/// overhead, roughly), against SO_RCVBUF.
const SKB_OVERHEAD: usize = 576;
/// What a dump part fills at least (NLMSG_GOODSIZE: a page less the
/// sk_buff's shared info).
const DUMP_GOODSIZE: usize = 4096 - 320;
/// The most a dump part fills: the largest receive buffer seen, capped
/// at 32 KiB less the shared info (netlink_recvmsg's max_recvmsg_len).
const DUMP_MAX: usize = 32 * 1024 - 320;

// The SOL_NETLINK flag options, as bits of `Inner::flags`.
const F_PKTINFO: u32 = 1 << 0;
const F_BROADCAST_ERROR: u32 = 1 << 1;
const F_NO_ENOBUFS: u32 = 1 << 2;
const F_LISTEN_ALL_NSID: u32 = 1 << 3;
const F_CAP_ACK: u32 = 1 << 4;
const F_EXT_ACK: u32 = 1 << 5;
const F_STRICT_CHK: u32 = 1 << 6;

/// Rounds up to netlink's 4-byte alignment (NLMSG_ALIGN, NLA_ALIGN).
pub const fn align4(n: usize) -> usize {
    (n + 3) & !3
}

/// A family the kernel answers on: its number of multicast groups, and
/// whether user space may listen to them without CAP_NET_ADMIN.
fn family_groups(protocol: u32) -> u32 {
    match protocol {
        nl::NETLINK_ROUTE => route::GROUPS.max(MIN_GROUPS),
        _ => MIN_GROUPS,
    }
}

/// Whether a protocol can be opened here: those with a kernel side
/// (NETLINK_ROUTE, NETLINK_SOCK_DIAG, NETLINK_KOBJECT_UEVENT,
/// NETLINK_AUDIT) and NETLINK_USERSOCK, between user sockets only. Other
/// families are EPROTONOSUPPORT, as on a Linux without them.
fn supported(protocol: u32) -> bool {
    matches!(protocol, nl::NETLINK_ROUTE | nl::NETLINK_USERSOCK | nl::NETLINK_SOCK_DIAG | nl::NETLINK_KOBJECT_UEVENT | nl::NETLINK_AUDIT)
}

/// One queued datagram.
struct Datagram {
    data: Vec<u8>,
    /// The sender's port (0: the kernel).
    from: u32,
    /// The multicast group it was sent to (0: unicast).
    group: u32,
    /// The sender's credentials (the kernel's are all zero).
    creds: Ucred,
}

struct Inner {
    portid: u32,
    bound: bool,
    /// Multicast memberships, bit N-1 for group N.
    groups: u64,
    /// The groups the socket knows of: 0 until it first joins one
    /// (netlink_realloc_groups), then the family's count.
    ngroups: u32,
    dst_portid: u32,
    dst_group: u32,
    flags: u32,
    queue: VecDeque<Datagram>,
    /// Bytes charged to the receive queue.
    charged: usize,
    /// A pending error (ENOBUFS after a dropped notification).
    error: Option<Errno>,
    /// The messages of a dump not yet queued, its NLMSG_DONE last (Linux
    /// makes each part when the reader has taken the one before).
    dump_rest: VecDeque<Vec<u8>>,
    /// The largest receive buffer seen (max_recvmsg_len): a dump part
    /// fills that much.
    max_recv: usize,
}

/// An AF_NETLINK socket.
pub struct NetlinkSocket {
    sock_type: u32,
    protocol: u32,
    options: SocketOptions,
    inner: SpinLock<Inner>,
    waiters: WaitQueue,
    pollers: PollQueue,
    read_events: AtomicU64,
    me: Weak<NetlinkSocket>,
    /// The nsfs inode number of the network namespace it was made in
    /// (NETLINK_ROUTE notifications reach their namespace's sockets only).
    net: u64,
}

/// The bound sockets by (protocol, port id).
static PORTS: SpinLock<BTreeMap<(u32, u32), Weak<NetlinkSocket>>> = SpinLock::new(BTreeMap::new());

/// Where a random negative port id search starts (netlink_autobind's
/// rover, kept below -4096).
static ROVER: SpinLock<i32> = SpinLock::new(-4096);

/// Creates a netlink socket with netlink_create's checks.
pub fn create(sock_type: u32, protocol: i32) -> Result<Arc<dyn Socket>> {
    if sock_type != netabi::SOCK_RAW && sock_type != netabi::SOCK_DGRAM {
        return Err(Errno::ESOCKTNOSUPPORT);
    }
    if !(0..MAX_LINKS).contains(&protocol) || !supported(protocol as u32) {
        return Err(Errno::EPROTONOSUPPORT);
    }
    Ok(Arc::new_cyclic(|me| NetlinkSocket {
        sock_type,
        protocol: protocol as u32,
        options: SocketOptions::default(),
        inner: SpinLock::new(Inner {
            portid: 0,
            bound: false,
            groups: 0,
            ngroups: 0,
            dst_portid: 0,
            dst_group: 0,
            flags: 0,
            queue: VecDeque::new(),
            charged: 0,
            error: None,
            dump_rest: VecDeque::new(),
            max_recv: 0,
        }),
        waiters: WaitQueue::new(),
        pollers: PollQueue::new(),
        read_events: AtomicU64::new(0),
        me: me.clone(),
        net: crate::ns::net::current().inum,
    }))
}

/// Encodes a sockaddr_nl.
pub fn encode_addr(pid: u32, groups: u32) -> Vec<u8> {
    let mut out = alloc::vec![0u8; SOCKADDR_NL_LEN];
    out[..2].copy_from_slice(&(netabi::AF_NETLINK as u16).to_le_bytes());
    out[4..8].copy_from_slice(&pid.to_le_bytes());
    out[8..12].copy_from_slice(&groups.to_le_bytes());
    out
}

/// The mask of `group` as nl_groups carries it (netlink_group_mask).
fn group_mask(group: u32) -> u32 {
    if group == 0 || group > 32 {
        0
    } else {
        1 << (group - 1)
    }
}

/// ffs(): the number of the lowest bit set, 0 for none.
fn ffs(v: u32) -> u32 {
    if v == 0 {
        0
    } else {
        v.trailing_zeros() + 1
    }
}

/// Whether the caller has CAP_NET_ADMIN.
pub fn net_admin() -> bool {
    crate::process::current().is_some_and(|t| crate::process::access::capable(&t.process, abi::CAP_NET_ADMIN))
}

fn int_of(raw: &[u8]) -> u32 {
    if raw.len() >= 4 {
        u32::from_le_bytes(raw[..4].try_into().unwrap())
    } else {
        0
    }
}

impl NetlinkSocket {
    /// Takes a port: `want` (EADDRINUSE if taken) or, for 0, the process's
    /// pid or else a free negative one. Does nothing when already bound.
    fn bind_port(&self, want: u32) -> Result<()> {
        let mut ports = PORTS.lock();
        let mut s = self.inner.lock();
        if s.bound {
            return Ok(());
        }
        let taken = |ports: &BTreeMap<(u32, u32), Weak<NetlinkSocket>>, p: u32| ports.get(&(self.protocol, p)).is_some_and(|w| w.strong_count() > 0);
        let port = if want != 0 {
            if taken(&ports, want) {
                return Err(Errno::EADDRINUSE);
            }
            want
        } else {
            let mut port = crate::process::current().map_or(0, |t| t.process.pid as u32);
            let mut rover = ROVER.lock();
            while port == 0 || taken(&ports, port) {
                if *rover >= -4096 {
                    let mut seed = [0u8; 4];
                    crate::fs::devices::fill_random(&mut seed);
                    let span = (i32::MAX as u32) - 4096;
                    *rover = -4097 - (u32::from_le_bytes(seed) % span) as i32;
                }
                port = *rover as u32;
                *rover -= 1;
            }
            port
        };
        ports.insert((self.protocol, port), self.me.clone());
        s.portid = port;
        s.bound = true;
        Ok(())
    }

    /// Makes the group table (netlink_realloc_groups).
    fn realloc_groups(&self, s: &mut Inner) {
        if s.ngroups == 0 {
            s.ngroups = family_groups(self.protocol);
        }
    }

    /// The port id (after autobinding if needed).
    pub fn portid(&self) -> u32 {
        self.inner.lock().portid
    }

    /// Whether the socket asked for strict checking of requests.
    pub fn strict(&self) -> bool {
        self.inner.lock().flags & F_STRICT_CHK != 0
    }

    /// Queues a datagram; with `force` (a reply to this socket's own
    /// request) it is queued whatever the charge. Returns whether it was.
    fn deliver(&self, dgram: Datagram, force: bool) -> bool {
        self.deliver_len(dgram, force).is_some()
    }

    /// [`Self::deliver`], giving the message's length after the filter
    /// (what a unicast send returns on Linux: the length cut to what the
    /// filter kept, or the whole length when it dropped it), or None when
    /// the queue was full.
    fn deliver_len(&self, mut dgram: Datagram, force: bool) -> Option<usize> {
        if !force {
            // The filter runs first (sk_filter): 0 drops the message
            // silently, a smaller length cuts it.
            // (Not on a dump's parts, which Linux queues without it.)
            match self.options.filter.keep(&dgram.data, 0) {
                None => return Some(dgram.data.len()),
                Some(keep) => dgram.data.truncate(keep),
            }
        }
        let len = dgram.data.len();
        let cost = len + SKB_OVERHEAD;
        {
            let mut s = self.inner.lock();
            if !force && s.charged > self.options.get().rcvbuf {
                if s.flags & F_NO_ENOBUFS == 0 {
                    s.error = Some(Errno::ENOBUFS);
                }
                drop(s);
                self.changed();
                return None;
            }
            s.charged += cost;
            s.queue.push_back(dgram);
        }
        self.changed();
        Some(len)
    }

    fn changed(&self) {
        self.read_events.fetch_add(1, Ordering::Relaxed);
        self.waiters.wake_all();
        self.pollers.notify(abi::EPOLLIN);
    }

    /// Queues a message from the kernel; past SO_RCVBUF it is dropped and
    /// the socket gets ENOBUFS (netlink_overrun), unless `force`.
    fn from_kernel_with(&self, data: Vec<u8>, force: bool) {
        self.deliver(Datagram { data, from: 0, group: 0, creds: Ucred { pid: 0, uid: 0, gid: 0 } }, force);
    }

    fn from_kernel(&self, data: Vec<u8>) {
        self.from_kernel_with(data, false);
    }

    /// Starts a dump: its messages are queued a part at a time (the
    /// first now), each part as many as fit in the largest receive buffer
    /// seen (at least a page's worth), its NLMSG_DONE in a part of its
    /// own (the dump's last call finds nothing more to add), as Linux
    /// sends them. EBUSY while another dump is being read.
    fn send_dump(&self, messages: Vec<Vec<u8>>) -> Result<()> {
        {
            let mut st = self.inner.lock();
            if !st.dump_rest.is_empty() {
                return Err(Errno::EBUSY);
            }
            // A dump whose first part finds the queue full is lost with
            // ENOBUFS (netlink_dump's overrun).
            if st.charged > self.options.get().rcvbuf {
                if st.flags & F_NO_ENOBUFS == 0 {
                    st.error = Some(Errno::ENOBUFS);
                }
                drop(st);
                self.changed();
                return Ok(());
            }
            st.dump_rest = messages.into();
        }
        self.dump_part();
        Ok(())
    }

    /// Queues the next part of a running dump.
    fn dump_part(&self) {
        let part = {
            let mut st = self.inner.lock();
            let room = st.max_recv.clamp(DUMP_GOODSIZE, DUMP_MAX);
            let mut part: Vec<u8> = Vec::new();
            while let Some(next) = st.dump_rest.front() {
                // NLMSG_DONE goes alone; the others as many as fit.
                let last = st.dump_rest.len() == 1;
                if !part.is_empty() && (last || part.len() + next.len() > room) {
                    break;
                }
                let m = st.dump_rest.pop_front().unwrap();
                part.extend_from_slice(&m);
                if last {
                    break;
                }
            }
            part
        };
        if !part.is_empty() {
            self.from_kernel_with(part, true);
        }
    }

    /// Runs a batch of requests sent to the kernel (netlink_rcv_skb).
    fn kernel_input(&self, data: &[u8]) {
        let mut off = 0;
        while data.len() - off >= NLMSG_HDRLEN {
            let msg = &data[off..];
            let len = u32::from_le_bytes(msg[..4].try_into().unwrap()) as usize;
            if len < NLMSG_HDRLEN || len > msg.len() {
                break;
            }
            let hdr = Header::parse(&msg[..len]);
            let mut err = 0;
            let mut acked = false;
            if hdr.flags & nl::NLM_F_REQUEST as u16 != 0 && hdr.kind >= NLMSG_MIN_TYPE {
                let mut out: Vec<Vec<u8>> = Vec::new();
                let result = match self.protocol {
                    nl::NETLINK_ROUTE => route::handle(self, &hdr, &msg[..len], &mut out),
                    nl::NETLINK_KOBJECT_UEVENT => uevent::handle(&hdr),
                    nl::NETLINK_AUDIT => audit::handle(self, &hdr, &msg[..len], &mut out),
                    nl::NETLINK_SOCK_DIAG => sockdiag::handle(self, &hdr, &msg[..len], &mut out),
                    _ => Err(Errno::EOPNOTSUPP),
                };
                match result {
                    // A dump answered: no acknowledgement.
                    Ok(Handled::Dump) => match self.send_dump(out) {
                        Ok(()) => acked = true,
                        Err(e) => err = e.code(),
                    },
                    Ok(Handled::Done) => out.into_iter().for_each(|m| self.from_kernel(m)),
                    Err(e) => err = e.code(),
                }
            }
            if !acked && (hdr.flags & nl::NLM_F_ACK as u16 != 0 || err != 0) {
                self.from_kernel(self.ack(&msg[..len], &hdr, err));
            }
            off += align4(len).min(data.len() - off);
        }
    }

    /// Builds the NLMSG_ERROR for a request (netlink_ack): the error
    /// (0 for an acknowledgement) and the request, capped to its header
    /// for an acknowledgement or with NETLINK_CAP_ACK.
    fn ack(&self, request: &[u8], hdr: &Header, err: i32) -> Vec<u8> {
        let capped = err == 0 || self.inner.lock().flags & F_CAP_ACK != 0;
        let echoed = if capped { &request[..NLMSG_HDRLEN] } else { request };
        let flags = if capped { nl::NLM_F_CAPPED as u16 } else { 0 };
        let mut b = MsgBuilder::new(nl::NLMSG_ERROR as u16, flags, hdr.seq, self.portid());
        b.put(&(-err).to_le_bytes());
        b.put(echoed);
        b.finish()
    }

    fn send_to_kernel(&self, data: Vec<u8>) {
        self.kernel_input(&data);
    }
}

/// A request's header.
#[derive(Clone, Copy, Debug)]
pub struct Header {
    /// nlmsg_type.
    pub kind: u16,
    /// nlmsg_flags.
    pub flags: u16,
    /// nlmsg_seq.
    pub seq: u32,
}

impl Header {
    fn parse(m: &[u8]) -> Header {
        Header {
            kind: u16::from_le_bytes(m[4..6].try_into().unwrap()),
            flags: u16::from_le_bytes(m[6..8].try_into().unwrap()),
            seq: u32::from_le_bytes(m[8..12].try_into().unwrap()),
        }
    }

    /// Whether the request asks for a dump (both NLM_F_ROOT and NLM_F_MATCH).
    pub fn is_dump(&self) -> bool {
        self.flags & nl::NLM_F_DUMP as u16 == nl::NLM_F_DUMP as u16
    }
}

/// How a family handled a request.
pub enum Handled {
    /// Done: acknowledged if NLM_F_ACK asked for it.
    Done,
    /// A dump was answered (its parts and NLMSG_DONE): never acknowledged.
    Dump,
}

/// Builds one netlink message.
pub struct MsgBuilder {
    buf: Vec<u8>,
}

impl MsgBuilder {
    /// Starts a message with its header.
    pub fn new(kind: u16, flags: u16, seq: u32, pid: u32) -> MsgBuilder {
        let mut buf = Vec::with_capacity(256);
        buf.extend_from_slice(&0u32.to_le_bytes());
        buf.extend_from_slice(&kind.to_le_bytes());
        buf.extend_from_slice(&flags.to_le_bytes());
        buf.extend_from_slice(&seq.to_le_bytes());
        buf.extend_from_slice(&pid.to_le_bytes());
        MsgBuilder { buf }
    }

    /// Appends raw bytes, padded to 4.
    pub fn put(&mut self, data: &[u8]) {
        self.buf.extend_from_slice(data);
        self.pad();
    }

    fn pad(&mut self) {
        while self.buf.len() % 4 != 0 {
            self.buf.push(0);
        }
    }

    /// Appends an attribute.
    pub fn attr(&mut self, kind: u16, data: &[u8]) {
        self.buf.extend_from_slice(&((4 + data.len()) as u16).to_le_bytes());
        self.buf.extend_from_slice(&kind.to_le_bytes());
        self.buf.extend_from_slice(data);
        self.pad();
    }

    /// Appends a u32 attribute.
    pub fn attr_u32(&mut self, kind: u16, v: u32) {
        self.attr(kind, &v.to_le_bytes());
    }

    /// Appends a u8 attribute.
    pub fn attr_u8(&mut self, kind: u16, v: u8) {
        self.attr(kind, &[v]);
    }

    /// Appends a NUL-terminated string attribute.
    pub fn attr_str(&mut self, kind: u16, s: &[u8]) {
        let mut v = s.to_vec();
        v.push(0);
        self.attr(kind, &v);
    }

    /// Sets the length and returns the message.
    pub fn finish(mut self) -> Vec<u8> {
        let len = self.buf.len() as u32;
        self.buf[..4].copy_from_slice(&len.to_le_bytes());
        self.buf
    }
}

/// Splits attributes (after a family header) into (type without flags,
/// payload); EINVAL for one whose length is out of bounds, as
/// nla_validate does for a request.
pub fn parse_attrs(mut data: &[u8]) -> Result<Vec<(u16, &[u8])>> {
    let mut out = Vec::new();
    while data.len() >= 4 {
        let len = u16::from_le_bytes([data[0], data[1]]) as usize;
        let kind = u16::from_le_bytes([data[2], data[3]]) & !(nl::NLA_F_NESTED as u16 | nl::NLA_F_NET_BYTEORDER as u16);
        if len < 4 || len > data.len() {
            return Err(Errno::EINVAL);
        }
        out.push((kind, &data[4..len]));
        data = &data[align4(len).min(data.len())..];
    }
    Ok(out)
}

/// Sends `message` from the kernel to the members of `group` of
/// `protocol` (a notification); a full receiver gets ENOBUFS.
pub fn broadcast(protocol: u32, group: u32, message: &[u8]) {
    if group == 0 || group > 64 {
        return;
    }
    // Routing notifications are about the caller's network namespace.
    let net = (protocol == nl::NETLINK_ROUTE).then(|| crate::ns::net::current().inum);
    let members: Vec<Arc<NetlinkSocket>> = PORTS
        .lock()
        .iter()
        .filter(|((p, _), _)| *p == protocol)
        .filter_map(|(_, w)| w.upgrade())
        .filter(|s| net.is_none_or(|n| s.net == n))
        .filter(|s| s.inner.lock().groups & (1u64 << (group - 1)) != 0)
        .collect();
    for s in members {
        s.deliver(Datagram { data: message.to_vec(), from: 0, group, creds: Ucred { pid: 0, uid: 0, gid: 0 } }, false);
    }
}

/// Returns whether any socket of `protocol` listens to `group`.
pub fn has_listeners(protocol: u32, group: u32) -> bool {
    if group == 0 || group > 64 {
        return false;
    }
    PORTS.lock().iter().filter(|((p, _), _)| *p == protocol).filter_map(|(_, w)| w.upgrade()).any(|s| s.inner.lock().groups & (1u64 << (group - 1)) != 0)
}

impl NetlinkSocket {
    /// Queues `data` from the kernel whatever its receive queue holds
    /// (netlink_sendskb of a message attached at registration: mq_notify's
    /// SIGEV_THREAD cookie).
    pub fn send_attached(&self, data: Vec<u8>) {
        self.from_kernel_with(data, true);
    }
}

impl Socket for NetlinkSocket {
    fn as_netlink(&self) -> Option<Arc<NetlinkSocket>> {
        self.me.upgrade()
    }

    fn family(&self) -> u32 {
        netabi::AF_NETLINK
    }

    fn sock_type(&self) -> u32 {
        self.sock_type
    }

    fn protocol(&self) -> u32 {
        self.protocol
    }

    fn options(&self) -> &SocketOptions {
        &self.options
    }

    fn bind(&self, _thread: &Thread, addr: &[u8]) -> Result<()> {
        if addr.len() < SOCKADDR_NL_LEN {
            return Err(Errno::EINVAL);
        }
        if u16::from_le_bytes([addr[0], addr[1]]) as u32 != netabi::AF_NETLINK {
            return Err(Errno::EINVAL);
        }
        let pid = int_of(&addr[4..8]);
        let mut groups = int_of(&addr[8..12]) as u64;
        {
            let mut s = self.inner.lock();
            // Every family here lets anyone listen (NL_CFG_F_NONROOT_RECV).
            if groups != 0 {
                self.realloc_groups(&mut s);
            }
            if s.ngroups < 64 {
                groups &= (1u64 << s.ngroups) - 1;
            }
            if s.bound && pid != s.portid {
                return Err(Errno::EINVAL);
            }
        }
        // The family's bind hook, before the port is taken.
        if self.protocol == nl::NETLINK_AUDIT && groups != 0 {
            audit::may_listen()?;
        }
        self.bind_port(pid)?;
        let mut s = self.inner.lock();
        // bind replaces the first 32 groups' memberships.
        s.groups = (s.groups & !0xffff_ffffu64) | groups;
        Ok(())
    }

    fn listen(&self, _backlog: usize) -> Result<()> {
        Err(Errno::EOPNOTSUPP)
    }

    fn accept(&self, _nonblocking: bool) -> Result<Arc<dyn Socket>> {
        Err(Errno::EOPNOTSUPP)
    }

    fn connect(&self, _thread: &Thread, addr: &[u8], _nonblocking: bool) -> Result<()> {
        if addr.len() < 2 {
            return Err(Errno::EINVAL);
        }
        let family = u16::from_le_bytes([addr[0], addr[1]]) as u32;
        if family == netabi::AF_UNSPEC {
            let mut s = self.inner.lock();
            s.dst_portid = 0;
            s.dst_group = 0;
            return Ok(());
        }
        if family != netabi::AF_NETLINK || addr.len() < SOCKADDR_NL_LEN {
            return Err(Errno::EINVAL);
        }
        let pid = int_of(&addr[4..8]);
        let groups = int_of(&addr[8..12]);
        self.bind_port(0)?;
        let mut s = self.inner.lock();
        s.dst_portid = pid;
        s.dst_group = ffs(groups);
        Ok(())
    }

    fn local_name(&self) -> Result<Vec<u8>> {
        let s = self.inner.lock();
        Ok(encode_addr(s.portid, s.groups as u32))
    }

    fn peer_name(&self) -> Result<Vec<u8>> {
        let s = self.inner.lock();
        Ok(encode_addr(s.dst_portid, group_mask(s.dst_group)))
    }

    fn send(&self, msg: &mut Outgoing<'_>) -> Result<usize> {
        if msg.flags & netabi::MSG_OOB != 0 {
            return Err(Errno::EOPNOTSUPP);
        }
        let len = msg.data.remaining();
        if len == 0 {
            return Err(Errno::ENODATA);
        }
        let (dst_portid, dst_group) = match &msg.addr {
            Some(a) if !a.is_empty() => {
                if a.len() < SOCKADDR_NL_LEN || u16::from_le_bytes([a[0], a[1]]) as u32 != netabi::AF_NETLINK {
                    return Err(Errno::EINVAL);
                }
                let (pid, group) = (int_of(&a[4..8]), ffs(int_of(&a[8..12])));
                // Only NETLINK_USERSOCK lets anyone send to a user port or
                // a group (NL_CFG_F_NONROOT_SEND); the others need
                // CAP_NET_ADMIN for that.
                if (pid != 0 || group != 0) && self.protocol != nl::NETLINK_USERSOCK && !net_admin() {
                    return Err(Errno::EPERM);
                }
                (pid, group)
            }
            _ => {
                let s = self.inner.lock();
                (s.dst_portid, s.dst_group)
            }
        };
        self.bind_port(0)?;
        if len > self.options.sndbuf().saturating_sub(32) {
            return Err(Errno::EMSGSIZE);
        }
        let data = msg.data.take(len)?;
        let me = Ucred::current_real();
        let from = self.portid();
        if dst_group != 0 {
            let members: Vec<Arc<NetlinkSocket>> = PORTS
                .lock()
                .iter()
                .filter(|((p, port), _)| *p == self.protocol && *port != dst_portid)
                .filter_map(|(_, w)| w.upgrade())
                .filter(|s| dst_group <= 64 && s.inner.lock().groups & (1u64 << (dst_group - 1)) != 0)
                .collect();
            for s in members {
                s.deliver(Datagram { data: data.clone(), from, group: dst_group, creds: me }, false);
            }
        }
        if dst_portid == 0 {
            self.send_to_kernel(data);
            return Ok(len);
        }
        let peer = PORTS.lock().get(&(self.protocol, dst_portid)).and_then(|w| w.upgrade()).ok_or(Errno::ECONNREFUSED)?;
        {
            let p = peer.inner.lock();
            // A connected receiver takes only from its peer.
            if p.dst_portid != 0 && p.dst_portid != from {
                return Err(Errno::ECONNREFUSED);
            }
        }
        peer.deliver_len(Datagram { data, from, group: 0, creds: me }, false).ok_or(Errno::EAGAIN)
    }

    fn recv(&self, sink: &mut Sink<'_>, flags: u32, nonblocking: bool) -> Result<Incoming> {
        if flags & netabi::MSG_OOB != 0 {
            return Err(Errno::EOPNOTSUPP);
        }
        let peek = flags & netabi::MSG_PEEK != 0;
        let timeout = self.options.get().rcvtimeo_ns;
        {
            let mut s = self.inner.lock();
            s.max_recv = s.max_recv.max(sink.room()).min(DUMP_MAX);
        }
        let dgram = super::wait_for(&self.waiters, nonblocking || flags & netabi::MSG_DONTWAIT != 0, timeout, || {
            let mut s = self.inner.lock();
            if let Some(e) = s.error.take() {
                return Err(e);
            }
            if peek {
                return Ok(s.queue.front().map(|d| Datagram { data: d.data.clone(), from: d.from, group: d.group, creds: d.creds }));
            }
            let d = s.queue.pop_front();
            if let Some(d) = &d {
                s.charged = s.charged.saturating_sub(d.data.len() + SKB_OVERHEAD);
            }
            Ok(d)
        })?;
        // The next part of a dump once the queue is half empty (after a
        // peek too, as netlink_recvmsg does).
        let more = {
            let s = self.inner.lock();
            !s.dump_rest.is_empty() && s.charged <= self.options.get().rcvbuf / 2
        };
        if more {
            self.dump_part();
        }
        let (pktinfo, passcred) = (self.inner.lock().flags & F_PKTINFO != 0, self.options.passcred());
        let full = dgram.data.len();
        let n = full.min(sink.room());
        sink.put(&dgram.data[..n])?;
        let mut got = Incoming { len: n, from: Some(encode_addr(dgram.from, group_mask(dgram.group))), ..Default::default() };
        if n < full {
            got.msg_flags |= netabi::MSG_TRUNC;
        }
        if flags & netabi::MSG_TRUNC != 0 {
            got.len = full;
        }
        if pktinfo {
            got.control.push((netabi::SOL_NETLINK, nl::NETLINK_PKTINFO, dgram.group.to_le_bytes().to_vec()));
        }
        if passcred {
            got.creds = Some(dgram.creds);
        }
        Ok(got)
    }

    fn shutdown(&self, _how: u32) -> Result<()> {
        // netlink has no shutdown of its own (sock_no_shutdown).
        Err(Errno::EOPNOTSUPP)
    }

    fn poll(&self) -> PollEvents {
        let s = self.inner.lock();
        let mut events = POLLOUT | POLLWRNORM | POLLWRBAND;
        if !s.queue.is_empty() {
            events |= POLLIN | POLLRDNORM;
        }
        if s.error.is_some() {
            events |= POLLERR;
        }
        events
    }

    fn poll_counts(&self) -> (u64, u64) {
        (self.read_events.load(Ordering::Relaxed), 0)
    }

    fn poll_queue(&self) -> Option<&PollQueue> {
        Some(&self.pollers)
    }

    fn take_error(&self) -> Option<Errno> {
        self.inner.lock().error.take()
    }

    fn set_error(&self, error: Errno) {
        self.inner.lock().error = Some(error);
        self.changed();
    }

    fn peer_cred(&self) -> Ucred {
        Ucred::NONE
    }

    fn is_listening(&self) -> bool {
        false
    }

    fn unread_bytes(&self) -> Result<usize> {
        // netlink has no ioctls of its own: FIONREAD is ENOTTY.
        Err(Errno::ENOTTY)
    }

    fn runs_filters(&self) -> bool {
        true
    }

    fn check_option_level(&self, level: i32) -> Result<()> {
        if level != netabi::SOL_NETLINK as i32 {
            return Err(Errno::ENOPROTOOPT);
        }
        Ok(())
    }

    fn set_protocol_option(&self, level: i32, name: u32, raw: &[u8]) -> Result<()> {
        self.check_option_level(level)?;
        let val = int_of(raw);
        let bit = match name {
            nl::NETLINK_PKTINFO => F_PKTINFO,
            nl::NETLINK_ADD_MEMBERSHIP | nl::NETLINK_DROP_MEMBERSHIP => {
                if name == nl::NETLINK_ADD_MEMBERSHIP && self.protocol == nl::NETLINK_AUDIT {
                    audit::may_listen()?;
                }
                let mut s = self.inner.lock();
                self.realloc_groups(&mut s);
                if val == 0 || val - 1 >= s.ngroups {
                    return Err(Errno::EINVAL);
                }
                if val <= 64 {
                    if name == nl::NETLINK_ADD_MEMBERSHIP {
                        s.groups |= 1u64 << (val - 1);
                    } else {
                        s.groups &= !(1u64 << (val - 1));
                    }
                }
                return Ok(());
            }
            nl::NETLINK_BROADCAST_ERROR => F_BROADCAST_ERROR,
            nl::NETLINK_NO_ENOBUFS => F_NO_ENOBUFS,
            nl::NETLINK_LISTEN_ALL_NSID => F_LISTEN_ALL_NSID,
            nl::NETLINK_CAP_ACK => F_CAP_ACK,
            nl::NETLINK_EXT_ACK => F_EXT_ACK,
            nl::NETLINK_GET_STRICT_CHK => F_STRICT_CHK,
            _ => return Err(Errno::ENOPROTOOPT),
        };
        let mut s = self.inner.lock();
        if val != 0 {
            s.flags |= bit;
            if bit == F_NO_ENOBUFS {
                s.error = None;
            }
        } else {
            s.flags &= !bit;
        }
        Ok(())
    }

    fn get_protocol_option(&self, level: i32, name: u32) -> Result<Vec<u8>> {
        self.check_option_level(level)?;
        let s = self.inner.lock();
        let bit = match name {
            nl::NETLINK_PKTINFO => F_PKTINFO,
            nl::NETLINK_BROADCAST_ERROR => F_BROADCAST_ERROR,
            nl::NETLINK_NO_ENOBUFS => F_NO_ENOBUFS,
            nl::NETLINK_LIST_MEMBERSHIPS => {
                // One u32 per 32 groups the socket knows of.
                let words = s.ngroups.div_ceil(32) as usize;
                let mut out = Vec::with_capacity(words * 4);
                for i in 0..words {
                    out.extend_from_slice(&((s.groups >> (32 * i)) as u32).to_le_bytes());
                }
                return Ok(out);
            }
            nl::NETLINK_CAP_ACK => F_CAP_ACK,
            nl::NETLINK_EXT_ACK => F_EXT_ACK,
            nl::NETLINK_GET_STRICT_CHK => F_STRICT_CHK,
            _ => return Err(Errno::ENOPROTOOPT),
        };
        Ok(((s.flags & bit != 0) as i32).to_le_bytes().to_vec())
    }

    fn get_protocol_option_sized(&self, level: i32, name: u32, user_len: usize) -> Result<(Vec<u8>, usize)> {
        let bytes = self.get_protocol_option(level, name)?;
        if name == nl::NETLINK_LIST_MEMBERSHIPS {
            // Whole words that fit are written; the length says all.
            let full = bytes.len();
            let fit = (user_len / 4 * 4).min(full);
            return Ok((bytes[..fit].to_vec(), full));
        }
        if user_len < 4 {
            return Err(Errno::EINVAL);
        }
        Ok((bytes, 4))
    }

    fn release(&self) {
        let mut ports = PORTS.lock();
        let s = self.inner.lock();
        if s.bound {
            if let Some(w) = ports.get(&(self.protocol, s.portid)) {
                if core::ptr::eq(w.as_ptr(), self as *const NetlinkSocket) {
                    ports.remove(&(self.protocol, s.portid));
                }
            }
        }
    }
}
