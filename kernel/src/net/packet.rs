//! AF_PACKET: sockets that see the frames of the network interfaces (lo
//! and eth0) and send frames of their own, as DHCP clients and packet
//! sniffers use them (net/packet/af_packet.c).
//!
//! A socket has a protocol (an ethertype in network order, from socket()
//! or bind(); ETH_P_ALL takes every frame, 0 none) and optionally an
//! interface (bind's `sll_ifindex`). SOCK_RAW sockets see and send whole
//! Ethernet frames; SOCK_DGRAM ones see the payload after the Ethernet
//! header and send a payload the kernel puts a header on
//! (`sll_addr` is the destination). Receiving names the frame in a
//! `sockaddr_ll` (its protocol, interface, hardware type, packet type
//! and source address); PACKET_AUXDATA adds a `tpacket_auxdata`.
//!
//! The stack (`inet/stack.rs`) calls [`tap_in`] with every frame an
//! interface receives and [`tap_out`] with every frame it sends (the
//! latter reaches only ETH_P_ALL sockets, as PACKET_OUTGOING, never the
//! socket that sent it). lo's frames have an all-zero Ethernet header, as
//! Linux's loopback device gives them. Both run with the stack's lock
//! held: frames are queued under the socket's own lock and the sockets
//! are woken once the stack's lock is released ([`wake_pending`]).
//!
//! Locking: the stack's lock, then [`SOCKETS`], then a socket's lock;
//! nothing here takes the stack's lock while holding the others.

use alloc::collections::VecDeque;
use alloc::sync::{Arc, Weak};
use alloc::vec::Vec;
use core::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

use kevlar_platform::sync::SpinLock;
use linux_raw_sys::general as abi;
use linux_raw_sys::if_arp as pk;
use linux_raw_sys::net as netabi;

use super::inet::stack::{with_stack, Stack};
use super::{Incoming, Outgoing, Sink, Socket, SocketOptions, Ucred};
use crate::error::{Errno, Result};
use crate::fs::file::{PollEvents, POLLERR, POLLIN, POLLOUT, POLLRDNORM, POLLWRBAND, POLLWRNORM};
use crate::fs::poll_queue::PollQueue;
use crate::process::wait_queue::WaitQueue;
use crate::process::Thread;

/// sizeof(struct sockaddr_ll).
const SOCKADDR_LL_LEN: usize = core::mem::size_of::<pk::sockaddr_ll>();
/// offsetof(struct sockaddr_ll, sll_addr).
const SLL_ADDR: usize = 12;
/// An Ethernet header's length (ETH_HLEN).
pub const ETH_HLEN: usize = 14;
/// ETH_P_ALL in host order.
const ETH_P_ALL: u16 = pk::ETH_P_ALL as u16;
/// SOCK_PACKET (the obsolete interface by device name; not done here).
const SOCK_PACKET: u32 = 10;
/// What a queued frame is charged besides its bytes (an sk_buff's
/// overhead, roughly), against SO_RCVBUF.
const SKB_OVERHEAD: usize = 576;
/// sizeof(struct tpacket_auxdata).
const AUXDATA_LEN: usize = 20;
/// The interfaces' indexes (`inet/iface.rs`).
pub const LO_INDEX: i32 = 1;
/// eth0's index.
pub const ETH_INDEX: i32 = 2;
/// TPACKET_V1..V3 (enum tpacket_versions).
const TPACKET_V3: u32 = 2;

/// One queued frame.
struct Frame {
    /// What the socket reads (the frame, or its payload for SOCK_DGRAM),
    /// cut to what the filter kept.
    data: Vec<u8>,
    /// Its length before the filter cut it.
    orig_len: usize,
    /// The sockaddr_ll naming it.
    from: Vec<u8>,
    /// tpacket_auxdata's tp_status.
    status: u32,
    /// tpacket_auxdata's tp_net (where the network header starts in `data`).
    net: u16,
}

/// A PACKET_ADD_MEMBERSHIP entry: (interface, type, address).
type Membership = (i32, u16, Vec<u8>);

struct Inner {
    /// The ethertype in host order (0: the socket receives nothing).
    protocol: u16,
    /// The interface bound to (0: all).
    ifindex: i32,
    /// Hooked to its interface (Linux's `po->running`): bound with a
    /// protocol to an interface that is up, or to none.
    running: bool,
    queue: VecDeque<Frame>,
    charged: usize,
    error: Option<Errno>,
    auxdata: bool,
    origdev: bool,
    ignore_outgoing: bool,
    version: u32,
    memberships: Vec<Membership>,
    /// Frames received and dropped (a full receive queue) since the last
    /// PACKET_STATISTICS.
    packets: u32,
    drops: u32,
}

/// An AF_PACKET socket.
pub struct PacketSocket {
    sock_type: u32,
    options: SocketOptions,
    inner: SpinLock<Inner>,
    waiters: WaitQueue,
    pollers: PollQueue,
    read_events: AtomicU64,
}

/// Every open packet socket.
static SOCKETS: SpinLock<Vec<Weak<PacketSocket>>> = SpinLock::new(Vec::new());
/// How many there are (the stack skips the taps when there are none).
static COUNT: AtomicUsize = AtomicUsize::new(0);
/// Sockets that got frames under the stack's lock and are to be woken.
static PENDING: SpinLock<Vec<Arc<PacketSocket>>> = SpinLock::new(Vec::new());
static HAS_PENDING: AtomicBool = AtomicBool::new(false);

/// Returns whether any packet socket exists (the stack builds frames for
/// the taps only then).
pub fn active() -> bool {
    COUNT.load(Ordering::Relaxed) != 0
}

fn capable_net_raw() -> bool {
    crate::process::current().is_some_and(|t| crate::process::access::capable(&t.process, abi::CAP_NET_RAW))
}

/// Creates a packet socket with packet_create's checks: CAP_NET_RAW
/// (EPERM), then the type (ESOCKTNOSUPPORT). `protocol` is an ethertype
/// in network order; a nonzero one receives at once.
pub fn create(sock_type: u32, protocol: i32) -> Result<Arc<dyn Socket>> {
    if !capable_net_raw() {
        return Err(Errno::EPERM);
    }
    if sock_type != netabi::SOCK_RAW && sock_type != netabi::SOCK_DGRAM {
        // SOCK_PACKET (the obsolete device-name interface) is not done.
        let _ = SOCK_PACKET;
        return Err(Errno::ESOCKTNOSUPPORT);
    }
    let socket = Arc::new(PacketSocket {
        sock_type,
        options: SocketOptions::default(),
        inner: SpinLock::new(Inner {
            protocol: u16::from_be(protocol as u16),
            ifindex: 0,
            running: protocol != 0,
            queue: VecDeque::new(),
            charged: 0,
            error: None,
            auxdata: false,
            origdev: false,
            ignore_outgoing: false,
            version: 0,
            memberships: Vec::new(),
            packets: 0,
            drops: 0,
        }),
        waiters: WaitQueue::new(),
        pollers: PollQueue::new(),
        read_events: AtomicU64::new(0),
    });
    let mut list = SOCKETS.lock();
    list.try_reserve(1).map_err(|_| Errno::ENOMEM)?;
    list.push(Arc::downgrade(&socket));
    COUNT.fetch_add(1, Ordering::Relaxed);
    Ok(socket)
}

/// What an interface index names: (hardware type, whether it exists and
/// is up, its MTU, its address). Needs the stack.
fn link_of(st: &Stack, ifindex: i32) -> Option<(u16, bool, usize, [u8; 6])> {
    match ifindex {
        LO_INDEX => Some((pk::ARPHRD_LOOPBACK as u16, st.lo_up, st.lo_mtu, [0; 6])),
        ETH_INDEX => st.device.eth.as_ref().map(|e| (pk::ARPHRD_ETHER as u16, e.up, e.mtu, e.mac)),
        _ => None,
    }
}

/// An interface going up or down (the stack's lock held, before its
/// state changes): sockets bound to it with a protocol stop or start
/// receiving, and those that were receiving get ENETDOWN when it goes
/// down (packet_notifier).
pub fn link_changed(st: &Stack, ifindex: i32, up: bool) {
    if !active() || link_of(st, ifindex).is_none_or(|l| l.1 == up) {
        return;
    }
    let targets: Vec<Arc<PacketSocket>> = SOCKETS.lock().iter().filter_map(Weak::upgrade).collect();
    let mut woken = Vec::new();
    for s in targets {
        let mut i = s.inner.lock();
        if i.ifindex != ifindex || i.protocol == 0 || i.running == up {
            continue;
        }
        i.running = up;
        if !up {
            i.error = Some(Errno::ENETDOWN);
            drop(i);
            s.read_events.fetch_add(1, Ordering::Relaxed);
            woken.push(s);
        }
    }
    if !woken.is_empty() {
        PENDING.lock().extend(woken);
        HAS_PENDING.store(true, Ordering::Release);
    }
}

/// Encodes a sockaddr_ll of `halen` address bytes (what Linux reports:
/// the structure up to the address's end).
fn encode_ll(protocol: u16, ifindex: i32, hatype: u16, pkttype: u8, addr: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(SLL_ADDR + addr.len());
    out.extend_from_slice(&(netabi::AF_PACKET as u16).to_le_bytes());
    out.extend_from_slice(&protocol.to_be_bytes());
    out.extend_from_slice(&ifindex.to_le_bytes());
    out.extend_from_slice(&hatype.to_le_bytes());
    out.push(pkttype);
    out.push(addr.len() as u8);
    out.extend_from_slice(addr);
    out
}

/// The packet type of a frame received on an interface whose address is
/// `mac` (eth_type_trans; lo's broadcast address is all zero, so a frame
/// to ff:ff:ff:ff:ff:ff is multicast there).
pub fn pkttype_of(frame: &[u8], mac: [u8; 6]) -> u8 {
    let dst = &frame[..6];
    if dst[0] & 1 != 0 {
        if dst == [0xff; 6] && mac != [0; 6] {
            pk::PACKET_BROADCAST as u8
        } else {
            pk::PACKET_MULTICAST as u8
        }
    } else if dst == mac {
        pk::PACKET_HOST as u8
    } else {
        pk::PACKET_OTHERHOST as u8
    }
}

/// A frame an interface received (lo: every looped packet, with an
/// all-zero header): queued at each socket bound to its protocol (or
/// ETH_P_ALL) and to this interface or none.
pub fn tap_in(ifindex: i32, frame: &[u8], pkttype: u8, csum_partial: bool) {
    deliver(ifindex, frame, pkttype, csum_partial, 0);
}

/// A frame an interface sends: queued, as PACKET_OUTGOING, at each
/// ETH_P_ALL socket but `origin` (the packet socket that sent it, as an
/// address; 0 for the stack's own frames).
pub fn tap_out(ifindex: i32, frame: &[u8], csum_partial: bool, origin: usize) {
    deliver(ifindex, frame, pk::PACKET_OUTGOING as u8, csum_partial, origin);
}

fn deliver(ifindex: i32, frame: &[u8], pkttype: u8, csum_partial: bool, origin: usize) {
    if !active() || frame.len() < ETH_HLEN {
        return;
    }
    let ethertype = u16::from_be_bytes([frame[12], frame[13]]);
    let outgoing = pkttype == pk::PACKET_OUTGOING as u8;
    let hatype = if ifindex == LO_INDEX { pk::ARPHRD_LOOPBACK as u16 } else { pk::ARPHRD_ETHER as u16 };
    let targets: Vec<Arc<PacketSocket>> = SOCKETS.lock().iter().filter_map(Weak::upgrade).collect();
    let mut woken = Vec::new();
    for s in targets {
        if outgoing && Arc::as_ptr(&s) as usize == origin {
            continue;
        }
        let (filter, raw) = {
            let i = s.inner.lock();
            let wants = i.protocol == ETH_P_ALL || (!outgoing && i.protocol != 0 && i.protocol == ethertype);
            if !wants || (i.ifindex != 0 && i.ifindex != ifindex) || (outgoing && i.ignore_outgoing) {
                continue;
            }
            (s.options.filter.current(), s.sock_type == netabi::SOCK_RAW)
        };
        let body = if raw { frame } else { &frame[ETH_HLEN..] };
        let keep = match &filter {
            Some(f) => (f.run_packet(body) as usize).min(body.len()),
            None => body.len(),
        };
        if keep == 0 {
            continue;
        }
        let mut data = Vec::new();
        if data.try_reserve_exact(keep).is_err() {
            continue;
        }
        data.extend_from_slice(&body[..keep]);
        let mut status = pk::TP_STATUS_USER;
        if csum_partial {
            status |= pk::TP_STATUS_CSUMNOTREADY;
        }
        // Linux reports a whole sockaddr_ll when the address is shorter
        // than its 8 bytes.
        let mut from = encode_ll(ethertype, ifindex, hatype, pkttype, &frame[6..12]);
        from.resize(SOCKADDR_LL_LEN, 0);
        let rcvbuf = s.options.get().rcvbuf;
        let mut i = s.inner.lock();
        if i.charged > rcvbuf {
            i.drops = i.drops.saturating_add(1);
            continue;
        }
        i.charged += keep + SKB_OVERHEAD;
        i.packets = i.packets.saturating_add(1);
        i.queue.push_back(Frame { data, orig_len: body.len(), from, status, net: if raw { ETH_HLEN as u16 } else { 0 } });
        drop(i);
        s.read_events.fetch_add(1, Ordering::Relaxed);
        woken.push(s);
    }
    if !woken.is_empty() {
        PENDING.lock().extend(woken);
        HAS_PENDING.store(true, Ordering::Release);
    }
}

/// Wakes the sockets that got frames while the stack's lock was held;
/// called once it is released.
pub fn wake_pending() {
    if !HAS_PENDING.swap(false, Ordering::Acquire) {
        return;
    }
    let mut list = core::mem::take(&mut *PENDING.lock());
    list.sort_unstable_by_key(|s| Arc::as_ptr(s) as usize);
    list.dedup_by(|a, b| Arc::ptr_eq(a, b));
    for s in list {
        s.waiters.wake_all();
        s.pollers.notify(abi::EPOLLIN);
    }
}

impl PacketSocket {
    fn changed(&self) {
        self.read_events.fetch_add(1, Ordering::Relaxed);
        self.waiters.wake_all();
        self.pollers.notify(abi::EPOLLIN);
    }

    /// Sends a frame out of `ifindex` (the stack's lock held): eth0's
    /// card, or lo, which receives it again.
    fn transmit(&self, st: &mut Stack, ifindex: i32, frame: &[u8]) {
        let me = self as *const PacketSocket as usize;
        tap_out(ifindex, frame, false, me);
        if ifindex == ETH_INDEX {
            if let Some(eth) = st.device.eth.as_mut() {
                eth.send_frame(frame);
            }
            return;
        }
        let pkttype = pkttype_of(frame, [0; 6]);
        tap_in(LO_INDEX, frame, pkttype, false);
        let ethertype = u32::from(u16::from_be_bytes([frame[12], frame[13]]));
        if pkttype == pk::PACKET_HOST as u8 && (ethertype == pk::ETH_P_IP || ethertype == pk::ETH_P_IPV6) {
            st.device.loop_packet(frame[ETH_HLEN..].to_vec());
        }
    }
}

fn int_of(raw: &[u8]) -> Result<u32> {
    if raw.len() < 4 {
        return Err(Errno::EINVAL);
    }
    Ok(u32::from_le_bytes(raw[..4].try_into().unwrap()))
}

impl Socket for PacketSocket {
    fn family(&self) -> u32 {
        u32::from(netabi::AF_PACKET)
    }

    fn sock_type(&self) -> u32 {
        self.sock_type
    }

    fn protocol(&self) -> u32 {
        // packet_create leaves sk_protocol 0: SO_PROTOCOL reads 0.
        0
    }

    fn options(&self) -> &SocketOptions {
        &self.options
    }

    fn bind(&self, _thread: &Thread, addr: &[u8]) -> Result<()> {
        if addr.len() < SOCKADDR_LL_LEN || u16::from_le_bytes([addr[0], addr[1]]) != netabi::AF_PACKET as u16 {
            return Err(Errno::EINVAL);
        }
        let protocol = u16::from_be_bytes([addr[2], addr[3]]);
        let ifindex = i32::from_le_bytes(addr[4..8].try_into().unwrap());
        let up = if ifindex == 0 {
            true
        } else {
            with_stack(|st| link_of(st, ifindex).map(|l| l.1)).ok_or(Errno::ENODEV)?
        };
        let mut i = self.inner.lock();
        let protocol = if protocol != 0 { protocol } else { i.protocol };
        // packet_do_bind rehooks only for a new protocol or interface.
        let rehook = protocol != i.protocol || ifindex != i.ifindex;
        i.protocol = protocol;
        i.ifindex = ifindex;
        // Bound to an interface that is down: no frames, and ENETDOWN
        // reported.
        let down = rehook && !up && protocol != 0;
        if rehook {
            i.running = protocol != 0 && up;
        }
        if down {
            i.error = Some(Errno::ENETDOWN);
        }
        drop(i);
        if down {
            self.changed();
        }
        Ok(())
    }

    fn listen(&self, _backlog: usize) -> Result<()> {
        Err(Errno::EOPNOTSUPP)
    }

    fn accept(&self, _nonblocking: bool) -> Result<Arc<dyn Socket>> {
        Err(Errno::EOPNOTSUPP)
    }

    fn connect(&self, _thread: &Thread, _addr: &[u8], _nonblocking: bool) -> Result<()> {
        Err(Errno::EOPNOTSUPP)
    }

    fn local_name(&self) -> Result<Vec<u8>> {
        let (protocol, ifindex) = {
            let i = self.inner.lock();
            (i.protocol, i.ifindex)
        };
        let link = if ifindex == 0 { None } else { with_stack(|st| link_of(st, ifindex)) };
        Ok(match link {
            Some((hatype, _, _, mac)) => encode_ll(protocol, ifindex, hatype, 0, &mac),
            None => encode_ll(protocol, ifindex, 0, 0, &[]),
        })
    }

    fn peer_name(&self) -> Result<Vec<u8>> {
        Err(Errno::EOPNOTSUPP)
    }

    fn send(&self, msg: &mut Outgoing<'_>) -> Result<usize> {
        if msg.flags & netabi::MSG_OOB != 0 {
            return Err(Errno::EOPNOTSUPP);
        }
        let (bound_protocol, bound_ifindex) = {
            let i = self.inner.lock();
            (i.protocol, i.ifindex)
        };
        // The destination: sendto's sockaddr_ll, or what the socket is
        // bound to (packet_snd's checks, in its order).
        let (protocol, ifindex, dst) = match &msg.addr {
            Some(a) => {
                if a.len() < SOCKADDR_LL_LEN || a.len() < SLL_ADDR + usize::from(a[11]) {
                    return Err(Errno::EINVAL);
                }
                (u16::from_be_bytes([a[2], a[3]]), i32::from_le_bytes(a[4..8].try_into().unwrap()), Some(a[SLL_ADDR..SLL_ADDR + 6].try_into().unwrap()))
            }
            None => (bound_protocol, bound_ifindex, None::<[u8; 6]>),
        };
        let len = msg.data.remaining();
        let raw = self.sock_type == netabi::SOCK_RAW;
        let link = with_stack(|st| link_of(st, ifindex));
        let (_, up, mtu, mac) = link.ok_or(Errno::ENXIO)?;
        if !up {
            return Err(Errno::ENETDOWN);
        }
        let reserve = if raw { ETH_HLEN } else { 0 };
        if len > mtu + reserve {
            return Err(Errno::EMSGSIZE);
        }
        if raw && len < ETH_HLEN {
            return Err(Errno::EINVAL);
        }
        let body = msg.data.take(len)?;
        let frame = if raw {
            body
        } else {
            // lo (IFF_LOOPBACK) takes a zero destination; eth0 needs one.
            let dst = if ifindex == LO_INDEX { [0; 6] } else { dst.ok_or(Errno::EINVAL)? };
            let mut f = Vec::new();
            f.try_reserve_exact(ETH_HLEN + body.len()).map_err(|_| Errno::ENOMEM)?;
            f.extend_from_slice(&dst);
            f.extend_from_slice(&mac);
            f.extend_from_slice(&protocol.to_be_bytes());
            f.extend_from_slice(&body);
            f
        };
        with_stack(|st| self.transmit(st, ifindex, &frame));
        Ok(len)
    }

    fn recv(&self, sink: &mut Sink<'_>, flags: u32, nonblocking: bool) -> Result<Incoming> {
        if flags & !(netabi::MSG_PEEK | netabi::MSG_DONTWAIT | netabi::MSG_TRUNC | netabi::MSG_CMSG_CLOEXEC | netabi::MSG_WAITALL | netabi::MSG_NOSIGNAL) != 0 {
            return Err(Errno::EINVAL);
        }
        let peek = flags & netabi::MSG_PEEK != 0;
        let timeout = self.options.get().rcvtimeo_ns;
        let frame = super::wait_for(&self.waiters, nonblocking || flags & netabi::MSG_DONTWAIT != 0, timeout, || {
            let mut i = self.inner.lock();
            // A pending error comes first (skb_recv_datagram's sock_error).
            if let Some(e) = i.error.take() {
                return Err(e);
            }
            if let Some(f) = i.queue.front() {
                if peek {
                    return Ok(Some(Frame { data: f.data.clone(), orig_len: f.orig_len, from: f.from.clone(), status: f.status, net: f.net }));
                }
                let f = i.queue.pop_front().unwrap();
                i.charged = i.charged.saturating_sub(f.data.len() + SKB_OVERHEAD);
                return Ok(Some(f));
            }
            Ok(None)
        })?;
        let auxdata = self.inner.lock().auxdata;
        let full = frame.data.len();
        let n = full.min(sink.room());
        sink.put(&frame.data[..n])?;
        let mut got = Incoming { len: n, from: Some(frame.from), ..Default::default() };
        if n < full {
            got.msg_flags |= netabi::MSG_TRUNC;
        }
        if flags & netabi::MSG_TRUNC != 0 {
            got.len = full;
        }
        if auxdata {
            let mut aux = Vec::with_capacity(AUXDATA_LEN);
            aux.extend_from_slice(&frame.status.to_le_bytes());
            aux.extend_from_slice(&(frame.orig_len as u32).to_le_bytes());
            aux.extend_from_slice(&(full as u32).to_le_bytes());
            aux.extend_from_slice(&0u16.to_le_bytes());
            aux.extend_from_slice(&frame.net.to_le_bytes());
            aux.extend_from_slice(&[0u8; 4]);
            got.control.push((netabi::SOL_PACKET, pk::PACKET_AUXDATA, aux));
        }
        Ok(got)
    }

    fn shutdown(&self, _how: u32) -> Result<()> {
        Err(Errno::EOPNOTSUPP)
    }

    fn poll(&self) -> PollEvents {
        let i = self.inner.lock();
        let mut events = POLLOUT | POLLWRNORM | POLLWRBAND;
        if !i.queue.is_empty() {
            events |= POLLIN | POLLRDNORM;
        }
        if i.error.is_some() {
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
        // SIOCINQ: the length of the next frame (packet_ioctl).
        Ok(self.inner.lock().queue.front().map_or(0, |f| f.data.len()))
    }

    fn runs_filters(&self) -> bool {
        true
    }

    fn check_option_level(&self, level: i32) -> Result<()> {
        if level != netabi::SOL_PACKET as i32 {
            return Err(Errno::ENOPROTOOPT);
        }
        Ok(())
    }

    fn set_protocol_option(&self, _level: i32, name: u32, raw: &[u8]) -> Result<()> {
        match name {
            pk::PACKET_ADD_MEMBERSHIP | pk::PACKET_DROP_MEMBERSHIP => {
                // struct packet_mreq: ifindex, type, address length, address.
                if raw.len() < core::mem::size_of::<pk::packet_mreq>() {
                    return Err(Errno::EINVAL);
                }
                let ifindex = i32::from_le_bytes(raw[..4].try_into().unwrap());
                let kind = u16::from_le_bytes([raw[4], raw[5]]);
                let alen = usize::from(u16::from_le_bytes([raw[6], raw[7]])).min(8);
                let addr = raw[8..8 + alen].to_vec();
                if name == pk::PACKET_DROP_MEMBERSHIP {
                    // packet_mc_drop succeeds whether or not it found one.
                    let mut i = self.inner.lock();
                    if let Some(at) = i.memberships.iter().position(|m| m.0 == ifindex && m.1 == kind && m.2 == addr) {
                        i.memberships.remove(at);
                    }
                    return Ok(());
                }
                with_stack(|st| link_of(st, ifindex)).ok_or(Errno::ENODEV)?;
                if alen > 6 {
                    return Err(Errno::EINVAL);
                }
                // Types packet_dev_mc does not know are kept and do nothing,
                // as on Linux.
                // The card is polled for every frame it gets: promiscuous
                // and multicast reception need nothing more here.
                // The same membership again only counts up on Linux.
                let mut i = self.inner.lock();
                if !i.memberships.iter().any(|m| m.0 == ifindex && m.1 == kind && m.2 == addr) {
                    i.memberships.try_reserve(1).map_err(|_| Errno::ENOMEM)?;
                    i.memberships.push((ifindex, kind, addr));
                }
                Ok(())
            }
            pk::PACKET_AUXDATA => {
                let v = int_of(raw)?;
                self.inner.lock().auxdata = v != 0;
                Ok(())
            }
            pk::PACKET_ORIGDEV => {
                let v = int_of(raw)?;
                self.inner.lock().origdev = v != 0;
                Ok(())
            }
            pk::PACKET_IGNORE_OUTGOING => {
                let v = int_of(raw)?;
                if v > 1 {
                    return Err(Errno::EINVAL);
                }
                self.inner.lock().ignore_outgoing = v == 1;
                Ok(())
            }
            pk::PACKET_VERSION => {
                let v = int_of(raw)?;
                if v > TPACKET_V3 {
                    return Err(Errno::EINVAL);
                }
                self.inner.lock().version = v;
                Ok(())
            }
            _ => Err(Errno::ENOPROTOOPT),
        }
    }

    fn get_protocol_option(&self, level: i32, name: u32) -> Result<Vec<u8>> {
        self.check_option_level(level)?;
        let mut i = self.inner.lock();
        let int = |v: u32| v.to_le_bytes().to_vec();
        Ok(match name {
            pk::PACKET_AUXDATA => int(i.auxdata as u32),
            pk::PACKET_ORIGDEV => int(i.origdev as u32),
            pk::PACKET_IGNORE_OUTGOING => int(i.ignore_outgoing as u32),
            pk::PACKET_VERSION => int(i.version),
            pk::PACKET_STATISTICS => {
                // struct tpacket_stats; reading resets it, and tp_packets
                // counts the drops too.
                let (packets, drops) = (i.packets.saturating_add(i.drops), i.drops);
                i.packets = 0;
                i.drops = 0;
                let mut v = int(packets);
                v.extend_from_slice(&drops.to_le_bytes());
                v
            }
            _ => return Err(Errno::ENOPROTOOPT),
        })
    }

    fn release(&self) {
        let me = self as *const PacketSocket;
        let mut list = SOCKETS.lock();
        let before = list.len();
        list.retain(|w| w.strong_count() > 0 && !core::ptr::eq(w.as_ptr(), me));
        COUNT.fetch_sub(before - list.len(), Ordering::Relaxed);
        let mut i = self.inner.lock();
        i.queue.clear();
        i.charged = 0;
    }
}
