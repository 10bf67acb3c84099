//! A network namespace's smoltcp interface, behind its AF_INET and
//! AF_INET6 sockets: the loopback device, the socket set, the port table,
//! and the pump that moves packets and turns smoltcp's state changes into
//! Linux's (errors, wake-ups, listen queues). Each network namespace
//! (`ns::net`) has one; eth0 is the initial namespace's.
//!
//! Locking: everything here is under the namespace's stack lock
//! ([`NetNs::stack`]). A socket's own small lock
//! may be taken while holding it, never the other way round, and neither
//! is held across a user copy: data is staged in kernel buffers.

use alloc::collections::{BTreeMap, BTreeSet, VecDeque};
use alloc::sync::Arc;
use alloc::vec;
use alloc::vec::Vec;
use core::sync::atomic::{AtomicU64, Ordering};

use crate::ns::net::NetNs;
use smoltcp::iface::{Config, Interface, PollIngressSingleResult, PollResult};
use smoltcp::phy::{self, ChecksumCapabilities, Device, DeviceCapabilities, Medium};
use smoltcp::socket::{tcp, udp};
use smoltcp::time::Instant;
use smoltcp::wire::{HardwareAddress, IpAddress, IpCidr, IpListenEndpoint, Ipv4Address};

use super::ipv6::{self, PortAddr};
use super::sockets::{GroupId, Sockets};
pub use super::sockets::SocketHandle;

use crate::error::{Errno, Result};
use crate::process::wait_queue::WaitQueue;

/// Bytes of each TCP connection's receive and send buffers.
pub const TCP_BUFFER: usize = 65536;
/// The loopback MTU (Linux's lo has 65536; smoltcp's frames stop at 65535).
pub const LOOPBACK_MTU: usize = 65535;
/// Linux's default ephemeral port range (net.ipv4.ip_local_port_range).
pub const EPHEMERAL_FIRST: u16 = 32768;
/// How long a connection closed first on this side keeps its port
/// (TIME-WAIT; Linux's TCP_TIMEWAIT_LEN).
const TIME_WAIT_NS: u64 = 60_000_000_000;
/// The last port of the ephemeral range.
pub const EPHEMERAL_LAST: u16 = 60999;
/// How long a delayed ACK waits for data to ride on, at most: Linux's
/// least delayed-ACK timeout (`TCP_ATO_MIN`, 40 ms), so that a connection
/// used once every few milliseconds (one of many, round robin) still
/// carries its ACK on the next request as Linux's does. A CPU that goes
/// idle first sends the ones waiting ([`flush_delayed_acks`]), so no
/// exchange ever waits for this timer on an idle machine.
const ACK_DELAY_US: u64 = 40_000;
/// [`ACK_DELAY_US`] as smoltcp takes it.
const ACK_DELAY: smoltcp::time::Duration = smoltcp::time::Duration::from_micros(ACK_DELAY_US);

/// A socket's wake-up count (edge-triggered epoll, O_ASYNC) and its
/// readiness queue, shared between the socket and the stack's record of
/// it: the stack bumps the count of the sockets a pump changed and
/// notifies only their queues.
pub struct SockEvents {
    count: AtomicU64,
    /// Pollers and epoll entries of the socket.
    pub queue: crate::fs::poll_queue::PollQueue,
    /// Threads blocked in a call on the socket (recv, send, accept,
    /// connect).
    pub waiters: WaitQueue,
}

impl SockEvents {
    /// A count at 0, an empty queue.
    pub fn new() -> Arc<SockEvents> {
        Arc::new(SockEvents { count: AtomicU64::new(0), queue: crate::fs::poll_queue::PollQueue::new(), waiters: WaitQueue::new() })
    }

    /// Wakes the socket's blocked threads and its pollers (after a change
    /// a call made outside a pump: shutdown, close).
    pub fn wake(&self) {
        self.waiters.wake_all();
        self.queue.notify(0);
    }

    /// Adds to the count (as `AtomicU64::fetch_add`).
    pub fn fetch_add(&self, n: u64, order: Ordering) -> u64 {
        self.count.fetch_add(n, order)
    }

    /// Reads the count.
    pub fn load(&self, order: Ordering) -> u64 {
        self.count.load(order)
    }
}

/// The current time as smoltcp counts it.
pub fn now() -> Instant {
    Instant::from_micros((kevlar_platform::time::monotonic_ns() / 1000) as i64)
}

/// eth0's address at boot under QEMU's user networking, its prefix length,
/// and the gateway (QEMU's defaults; there is no DHCP client). Netlink
/// (`net/netlink/route.rs`) and the ioctls change them afterwards: what
/// the stack uses is [`EthPort::addrs`] and [`EthPort::routes`].
pub const ETH_ADDR: Ipv4Address = Ipv4Address::new(10, 0, 2, 15);
const ETH_PREFIX: u8 = 24;
const ETH_GATEWAY: Ipv4Address = Ipv4Address::new(10, 0, 2, 2);

/// An IPv4 address of an interface with its prefix length.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct IfAddr {
    /// The address.
    pub addr: Ipv4Address,
    /// The prefix length (0-32).
    pub prefix: u8,
    /// The broadcast address given with it (IFA_BROADCAST).
    pub broadcast: Option<Ipv4Address>,
    /// Its lifetimes (IFA_CACHEINFO; None: permanent).
    pub life: Option<AddrLife>,
}

/// The lifetimes of an address that is not permanent (a DHCP lease's).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct AddrLife {
    /// The valid lifetime in seconds from `since_ns` (u32::MAX: forever).
    pub valid: u32,
    /// The preferred lifetime in seconds from `since_ns`.
    pub preferred: u32,
    /// When they were set (monotonic clock).
    pub since_ns: u64,
}

impl IfAddr {
    /// Returns whether `dst` is in this address's subnet.
    pub fn contains(&self, dst: Ipv4Address) -> bool {
        prefix_match(self.addr, dst, self.prefix)
    }
}

/// Returns whether `a` and `b` agree in their first `prefix` bits.
pub fn prefix_match(a: Ipv4Address, b: Ipv4Address, prefix: u8) -> bool {
    if prefix == 0 {
        return true;
    }
    let shift = 32 - u32::from(prefix.min(32));
    (u32::from(a) ^ u32::from(b)) >> shift == 0
}

/// A route of the main table through eth0 that was added (the default
/// route, or one made with RTM_NEWROUTE); routes to an address's own
/// subnet are implied by the address.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct EthRoute {
    /// The destination network.
    pub dst: Ipv4Address,
    /// Its prefix length.
    pub prefix: u8,
    /// The gateway (None: the destination is on the link).
    pub gateway: Option<Ipv4Address>,
    /// rtm_protocol (RTPROT_BOOT, RTPROT_STATIC...).
    pub protocol: u8,
    /// RTA_PRIORITY (the metric).
    pub metric: u32,
}
/// eth0's MTU.
pub const ETH_MTU: usize = 1500;
const ETHERTYPE_IPV4: u16 = 0x0800;
/// rtm_protocol of routes made at boot (RTPROT_BOOT).
pub const RTPROT_BOOT: u8 = 3;
const ETHERTYPE_ARP: u16 = 0x0806;
/// IP packets kept while their next hop's address is being resolved.
const MAX_UNRESOLVED: usize = 32;

/// eth0: the network card, and the neighbours learnt with ARP.
pub struct EthPort {
    card: kevlar_platform::net::NetDevice,
    /// The card's MAC address.
    pub mac: [u8; 6],
    neighbours: BTreeMap<Ipv4Address, [u8; 6]>,
    unresolved: VecDeque<(Ipv4Address, Vec<u8>)>,
    /// eth0 is up (SIOCSIFFLAGS).
    pub up: bool,
    /// eth0's IPv4 addresses, the primary one first.
    pub addrs: Vec<IfAddr>,
    /// The main table's routes through eth0 besides the subnets of `addrs`.
    pub routes: Vec<EthRoute>,
    /// eth0's MTU.
    pub mtu: usize,
    /// Frames and bytes sent and received, and frames dropped on the way
    /// in (interface statistics: rx, tx).
    pub stats: LinkStats,    /// The card's directory under /sys/devices
    /// (`pci0000:00/0000:00:03.0/virtio0`).
    pub sysfs_parent: alloc::string::String,
}

/// An interface's counters as /proc/net/dev and IFLA_STATS give them.
#[derive(Clone, Copy, Default, Debug)]
pub struct LinkStats {
    /// Packets received.
    pub rx_packets: u64,
    /// Packets sent.
    pub tx_packets: u64,
    /// Bytes received.
    pub rx_bytes: u64,
    /// Bytes sent.
    pub tx_bytes: u64,
}

impl EthPort {
    fn frame(&mut self, dst: [u8; 6], ethertype: u16, payload: &[u8]) {
        let mut frame = Vec::with_capacity(14 + payload.len().max(46));
        frame.extend_from_slice(&dst);
        frame.extend_from_slice(&self.mac);
        frame.extend_from_slice(&ethertype.to_be_bytes());
        frame.extend_from_slice(payload);
        crate::net::packet::tap_out(crate::net::packet::ETH_INDEX, &frame, false, 0);
        // Ethernet's minimum frame (without the FCS).
        frame.resize(frame.len().max(60), 0);
        if !self.card.send(&frame) {
            log::debug!("eth0: the card refused a frame");
        } else {
            self.stats.tx_packets += 1;
            self.stats.tx_bytes += frame.len() as u64;
        }
    }

    /// Sends a frame made elsewhere (an AF_PACKET socket's) as it is.
    pub fn send_frame(&mut self, frame: &[u8]) -> bool {
        let sent = self.card.send(frame);
        if sent {
            self.stats.tx_packets += 1;
            self.stats.tx_bytes += frame.len() as u64;
        }
        sent
    }

    fn arp(&mut self, op: u16, target_mac: [u8; 6], target_ip: Ipv4Address, dst: [u8; 6]) {
        let mut p = Vec::with_capacity(28);
        p.extend_from_slice(&[0, 1, 0x08, 0x00, 6, 4]);
        p.extend_from_slice(&op.to_be_bytes());
        p.extend_from_slice(&self.mac);
        p.extend_from_slice(&self.primary().unwrap_or(Ipv4Address::UNSPECIFIED).octets());
        p.extend_from_slice(&target_mac);
        p.extend_from_slice(&target_ip.octets());
        self.frame(dst, ETHERTYPE_ARP, &p);
    }

    /// eth0's primary address, if it has one.
    pub fn primary(&self) -> Option<Ipv4Address> {
        self.addrs.first().map(|a| a.addr)
    }

    /// The ARP cache: (address, MAC) of each neighbour learnt.
    pub fn neighbour_list(&self) -> Vec<(Ipv4Address, [u8; 6])> {
        self.neighbours.iter().map(|(ip, mac)| (*ip, *mac)).collect()
    }

    /// Returns whether `addr` is one of eth0's.
    pub fn has_addr(&self, addr: Ipv4Address) -> bool {
        self.addrs.iter().any(|a| a.addr == addr)
    }

    /// The next hop for `dst` by longest prefix: the destination itself
    /// on a subnet of eth0's addresses or an on-link route, a route's
    /// gateway otherwise; None without a route.
    pub fn next_hop(&self, dst: Ipv4Address) -> Option<Ipv4Address> {
        let mut best: Option<(u8, Ipv4Address)> = None;
        for a in self.addrs.iter().filter(|a| a.contains(dst)) {
            if best.is_none_or(|(p, _)| a.prefix > p) {
                best = Some((a.prefix, dst));
            }
        }
        for r in self.routes.iter().filter(|r| prefix_match(r.dst, dst, r.prefix)) {
            if best.is_none_or(|(p, _)| r.prefix > p) {
                best = Some((r.prefix, r.gateway.unwrap_or(dst)));
            }
        }
        best.map(|(_, hop)| hop)
    }

    /// Sends an IP packet to its next hop, resolving it first if needed.
    fn send_ip(&mut self, packet: Vec<u8>) {
        if !self.up || packet.len() < 20 {
            return;
        }
        let dst = Ipv4Address::new(packet[16], packet[17], packet[18], packet[19]);
        let Some(hop) = self.next_hop(dst) else {
            return;
        };
        match self.neighbours.get(&hop) {
            Some(&mac) => self.frame(mac, ETHERTYPE_IPV4, &packet),
            None => {
                if self.unresolved.len() >= MAX_UNRESOLVED {
                    self.unresolved.pop_front();
                }
                self.unresolved.push_back((hop, packet));
                self.arp(1, [0; 6], hop, [0xff; 6]);
            }
        }
    }

    /// Takes received frames: IP packets for us go to `rx`, ARP is
    /// answered and learnt from.
    fn poll(&mut self, rx: &mut VecDeque<Vec<u8>>) {
        while let Some(frame) = self.card.receive() {
            if frame.len() < 14 || !self.up {
                continue;
            }
            if crate::net::packet::active() {
                let pkttype = crate::net::packet::pkttype_of(&frame, self.mac);
                crate::net::packet::tap_in(crate::net::packet::ETH_INDEX, &frame, pkttype, false);
            }
            let ethertype = u16::from_be_bytes([frame[12], frame[13]]);
            let body = &frame[14..];
            match ethertype {
                ETHERTYPE_IPV4 if body.len() >= 20 => {
                    self.stats.rx_packets += 1;
                    self.stats.rx_bytes += frame.len() as u64;
                    // Frames may carry padding past the IP packet.
                    let total = (u16::from_be_bytes([body[2], body[3]]) as usize).min(body.len());
                    rx.push_back(body[..total].to_vec());
                }
                ETHERTYPE_ARP if body.len() >= 28 => self.arp_input(body),
                _ => {}
            }
        }
    }

    fn arp_input(&mut self, p: &[u8]) {
        if p[..6] != [0, 1, 0x08, 0x00, 6, 4] {
            return;
        }
        let op = u16::from_be_bytes([p[6], p[7]]);
        let sender_mac: [u8; 6] = p[8..14].try_into().unwrap();
        let sender_ip = Ipv4Address::new(p[14], p[15], p[16], p[17]);
        let target_ip = Ipv4Address::new(p[24], p[25], p[26], p[27]);
        self.neighbours.insert(sender_ip, sender_mac);
        let (ready, waiting): (Vec<_>, Vec<_>) = self.unresolved.drain(..).partition(|(hop, _)| *hop == sender_ip);
        self.unresolved = waiting.into_iter().collect();
        for (_, packet) in ready {
            self.frame(sender_mac, ETHERTYPE_IPV4, &packet);
        }
        if op == 1 && self.has_addr(target_ip) {
            self.arp(2, sender_mac, sender_ip, sender_mac);
        }
    }
}

/// An IP packet's (protocol, payload), IPv4 or IPv6.
fn transport(packet: &[u8]) -> Option<(u8, &[u8])> {
    match *packet.first()? >> 4 {
        4 => {
            let header = (packet[0] as usize & 0xf) * 4;
            if packet.len() < header.max(20) {
                return None;
            }
            Some((packet[9], &packet[header..]))
        }
        6 => ipv6::transport6(packet),
        _ => None,
    }
}

/// The destination port of a TCP SYN (not SYN-ACK) in an IP packet.
fn syn_port(packet: &[u8]) -> Option<u16> {
    let (proto, tcp) = transport(packet)?;
    if tcp.len() < 14 || proto != 6 {
        return None;
    }
    let flags = tcp[13];
    (flags & 0x02 != 0 && flags & 0x10 == 0).then(|| u16::from_be_bytes([tcp[2], tcp[3]]))
}

/// The (destination, source) ports of a TCP segment.
fn tcp_ports(packet: &[u8]) -> Option<(u16, u16)> {
    let (proto, tcp) = transport(packet)?;
    if tcp.len() < 4 || proto != 6 {
        return None;
    }
    Some((u16::from_be_bytes([tcp[2], tcp[3]]), u16::from_be_bytes([tcp[0], tcp[1]])))
}

/// Decodes an ICMP or ICMPv6 port-unreachable about a UDP datagram: (the
/// datagram's source port, its destination).
fn udp_port_unreachable(packet: &[u8]) -> Option<(u16, (IpAddress, u16))> {
    if packet.first()? >> 4 == 6 {
        let (proto, icmp) = ipv6::transport6(packet)?;
        // ICMPv6 type 1 (destination unreachable), code 4 (port unreachable).
        if proto != 58 || icmp.len() < 8 || icmp[0] != 1 || icmp[1] != 4 {
            return None;
        }
        let inner = &icmp[8..];
        let dst = ipv6::dst6(inner)?;
        let (inner_proto, udp) = ipv6::transport6(inner)?;
        if inner_proto != 17 || udp.len() < 4 {
            return None;
        }
        return Some((u16::from_be_bytes([udp[0], udp[1]]), (IpAddress::Ipv6(dst), u16::from_be_bytes([udp[2], udp[3]]))));
    }
    // A header shorter than IPv4's 20 bytes is malformed (an AF_PACKET
    // socket can put anything on lo): never index past what is there.
    let header = (*packet.first()? as usize & 0xf) * 4;
    if header < 20 || packet.len() < header + 8 || packet[9] != 1 {
        return None;
    }
    let icmp = &packet[header..];
    // Type 3 (destination unreachable), code 3 (port unreachable).
    if icmp[0] != 3 || icmp[1] != 3 {
        return None;
    }
    let inner = &icmp[8..];
    let inner_header = (*inner.first()? as usize & 0xf) * 4;
    if inner_header < 20 || inner.len() < inner_header + 4 || inner[9] != 17 {
        return None;
    }
    let dst = Ipv4Address::new(inner[16], inner[17], inner[18], inner[19]);
    let udp = &inner[inner_header..];
    Some((u16::from_be_bytes([udp[0], udp[1]]), (IpAddress::Ipv4(dst), u16::from_be_bytes([udp[2], udp[3]]))))
}

/// The stack's one device: loopback for local destinations (127.0.0.0/8
/// and eth0's own address), eth0 for the rest. smoltcp sees IP packets
/// (Medium::Ip); eth0's Ethernet framing and ARP are done here.
pub struct Links {
    queue: VecDeque<Vec<u8>>,
    /// Ports of listeners whose accept queue is full: a SYN for them is
    /// dropped, as Linux does, so the client retries later instead of
    /// being refused (smoltcp would answer it with a reset).
    full_listeners: Vec<u16>,
    /// ICMP port-unreachable messages seen since the last sweep: (our UDP
    /// port, the peer that refused).
    port_unreachable: Vec<(u16, (IpAddress, u16))>,
    /// (destination port, source port) of the TCP segments received since
    /// the last sweep: the connections the sweep must look at.
    seen: Vec<(u16, u16)>,
    /// eth0, when a virtio network card was found.
    pub eth: Option<EthPort>,
    /// lo's counters (packets looped back, counted once sent and once
    /// received, as Linux's loopback device does).
    pub lo_stats: LinkStats,
    /// lo's packets are shown to AF_PACKET sockets (the initial
    /// namespace's lo: packet sockets are not per namespace here).
    taps: bool,
}

/// A received packet.
pub struct LinkRx(Vec<u8>);
/// Room for one packet to send.
pub struct LinkTx<'a>(&'a mut VecDeque<Vec<u8>>, Option<&'a mut EthPort>, &'a mut LinkStats, bool);

impl phy::RxToken for LinkRx {
    fn consume<R, F: FnOnce(&[u8]) -> R>(self, f: F) -> R {
        f(&self.0)
    }
}

impl phy::TxToken for LinkTx<'_> {
    fn consume<R, F: FnOnce(&mut [u8]) -> R>(self, len: usize, f: F) -> R {
        let mut buf = vec![0u8; len];
        let r = f(&mut buf);
        // IPv6 leaves the machine nowhere yet: only ::1 (and what smoltcp
        // sends to its own addresses) exists, and it loops back.
        let v6 = buf.first().is_some_and(|b| b >> 4 == 6);
        let dst = if !v6 && len >= 20 { Ipv4Address::new(buf[16], buf[17], buf[18], buf[19]) } else { Ipv4Address::UNSPECIFIED };
        if v6 && !ipv6::dst6(&buf).is_some_and(ipv6::is_local6) {
            // Not for this machine (multicast, link-local peers): dropped.
        } else if v6 || dst.octets()[0] == 127 || self.1.as_ref().is_some_and(|e| e.has_addr(dst)) {
            self.2.tx_packets += 1;
            self.2.rx_packets += 1;
            self.2.tx_bytes += len as u64;
            self.2.rx_bytes += len as u64;
            if self.3 && crate::net::packet::active() {
                lo_taps(&buf);
            }
            self.0.push_back(buf);
        } else if let Some(eth) = self.1 {
            eth.send_ip(buf);
        }
        r
    }
}

/// Shows a packet lo loops back to the AF_PACKET sockets: sent, then
/// received, in a frame with an all-zero Ethernet header. TCP and UDP
/// carry a checksum left to the device (Linux's CHECKSUM_PARTIAL on lo).
fn lo_taps(packet: &[u8]) {
    use crate::net::packet as pk;
    let v6 = packet.first().is_some_and(|b| b >> 4 == 6);
    let mut frame = Vec::with_capacity(pk::ETH_HLEN + packet.len());
    frame.extend_from_slice(&[0u8; 12]);
    frame.extend_from_slice(&(if v6 { 0x86ddu16 } else { ETHERTYPE_IPV4 }).to_be_bytes());
    frame.extend_from_slice(packet);
    let partial = transport(packet).is_some_and(|(proto, _)| proto == 6 || proto == 17);
    pk::tap_out(pk::LO_INDEX, &frame, partial, 0);
    pk::tap_in(pk::LO_INDEX, &frame, linux_raw_sys::if_arp::PACKET_HOST as u8, partial);
}

impl Links {
    /// Puts an IP packet on lo's queue (an AF_PACKET socket sent it to lo).
    pub fn loop_packet(&mut self, packet: Vec<u8>) {
        self.lo_stats.tx_packets += 1;
        self.lo_stats.rx_packets += 1;
        self.lo_stats.tx_bytes += packet.len() as u64;
        self.lo_stats.rx_bytes += packet.len() as u64;
        self.queue.push_back(packet);
    }
}

impl Links {
    /// The next packet `receive` will return (the card polled when the
    /// queue is empty, SYNs for full listeners dropped), to route it.
    fn front(&mut self) -> Option<&[u8]> {
        loop {
            if self.queue.is_empty() {
                if let Some(eth) = self.eth.as_mut() {
                    eth.poll(&mut self.queue);
                }
            }
            let packet = self.queue.front()?;
            if !self.full_listeners.is_empty() && syn_port(packet).is_some_and(|p| self.full_listeners.contains(&p)) {
                self.queue.pop_front();
                continue;
            }
            return self.queue.front().map(|p| p.as_slice());
        }
    }
}

/// The group of sockets a received packet is for (None: no socket's:
/// smoltcp answers it itself).
fn route(sockets: &Sockets, packet: &[u8]) -> Option<GroupId> {
    let (proto, payload) = transport(packet)?;
    match proto {
        6 if payload.len() >= 14 => {
            let src = u16::from_be_bytes([payload[0], payload[1]]);
            let dst = u16::from_be_bytes([payload[2], payload[3]]);
            let flags = payload[13];
            sockets.route_tcp(dst, src, flags & 0x02 != 0 && flags & 0x10 == 0)
        }
        17 if payload.len() >= 4 => sockets.route_udp(u16::from_be_bytes([payload[2], payload[3]])),
        _ => None,
    }
}

impl Device for Links {
    type RxToken<'a> = LinkRx;
    type TxToken<'a> = LinkTx<'a>;

    fn receive(&mut self, _timestamp: Instant) -> Option<(LinkRx, LinkTx<'_>)> {
        loop {
            if self.queue.is_empty() {
                if let Some(eth) = self.eth.as_mut() {
                    eth.poll(&mut self.queue);
                }
            }
            let packet = self.queue.pop_front()?;
            if !self.full_listeners.is_empty() && syn_port(&packet).is_some_and(|p| self.full_listeners.contains(&p)) {
                continue;
            }
            if let Some(note) = udp_port_unreachable(&packet) {
                self.port_unreachable.push(note);
            }
            if let Some(ports) = tcp_ports(&packet) {
                self.seen.push(ports);
            }
            return Some((LinkRx(packet), LinkTx(&mut self.queue, self.eth.as_mut(), &mut self.lo_stats, self.taps)));
        }
    }

    fn transmit(&mut self, _timestamp: Instant) -> Option<LinkTx<'_>> {
        Some(LinkTx(&mut self.queue, self.eth.as_mut(), &mut self.lo_stats, self.taps))
    }

    fn capabilities(&self) -> DeviceCapabilities {
        let mut caps = DeviceCapabilities::default();
        caps.medium = Medium::Ip;
        if self.eth.is_some() {
            // Packets leave the machine: real MTU, real checksums.
            caps.max_transmission_unit = self.eth.as_ref().map_or(ETH_MTU, |e| e.mtu);
        } else {
            caps.max_transmission_unit = LOOPBACK_MTU;
            // Nothing corrupts packets in memory: skip the checksums.
            caps.checksum = ChecksumCapabilities::ignored();
        }
        caps
    }
}

/// Which table a port lives in.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Proto {
    /// TCP ports.
    Tcp,
    /// UDP ports.
    Udp,
}

/// One binding of a local port.
struct PortEntry {
    id: u64,
    proto: Proto,
    addr: PortAddr,
    port: u16,
    reuse: bool,
    listening: bool,
    /// A TIME-WAIT hold: the binding goes away at this time (ns).
    expires_ns: Option<u64>,
}

/// What the stack tracks about one TCP connection's smoltcp socket.
pub struct Conn {
    /// The state seen at the last sweep.
    last: tcp::State,
    /// (state, bytes queued to read, bytes queued to send) at the last
    /// sweep: a change wakes pollers.
    signature: (tcp::State, usize, usize),
    /// The pending error (SO_ERROR): ECONNREFUSED, ECONNRESET, EPIPE.
    pub error: Option<Errno>,
    /// The connection ended with a reset or a refusal.
    pub reset: bool,
    /// No fd refers to it any more: it is reaped once closed.
    orphan: bool,
    /// The port binding it keeps until it is reaped.
    port_id: Option<u64>,
    /// SO_REUSEADDR of its socket (a TIME-WAIT hold is shareable only then).
    reuse: bool,
    /// The owning socket's event counter (edge-triggered epoll).
    pub events: Arc<SockEvents>,
    /// (local port, remote port), once known: its key in `by_ports`.
    ports: Option<(u16, u16)>,
    /// Whether it acknowledges at once or lets data carry its ACKs
    /// (`acks.rs`).
    acks: super::acks::AckMode,
    /// Bytes TCP_CORK holds back from smoltcp (`cork.rs`).
    pub(super) held: super::cork::Held,
}

/// What the stack knows of a UDP socket besides smoltcp's state.
struct UdpWatch {
    /// (bytes queued to read, to send) at the last sweep.
    signature: (usize, usize),
    /// The owner's event counter.
    events: Arc<SockEvents>,
    /// The local port and the connected peer: an ICMP port-unreachable for
    /// a datagram from that port to that peer sets `refused`.
    port: u16,
    peer: Option<(IpAddress, u16)>,
    refused: Arc<core::sync::atomic::AtomicBool>,
}

/// A listening TCP socket's queues.
pub struct Listener {
    endpoint: IpListenEndpoint,
    /// The addresses it takes connections for (an AF_INET listener on
    /// 0.0.0.0 and a dual-stack one on `::` both listen on any address in
    /// smoltcp; a connection is handed to the listener that takes it).
    accept: PortAddr,
    /// listen()'s backlog: more completed connections than backlog + 1
    /// waiting for accept stop new ones (Linux's sk_acceptq_is_full).
    pub backlog: usize,
    /// The smoltcp socket waiting for the next SYN.
    listen: Option<SocketHandle>,
    /// Handshakes under way.
    embryos: Vec<SocketHandle>,
    /// Connections completed, in order, for accept.
    pub ready: VecDeque<SocketHandle>,
    /// The listening socket's event counter.
    events: Arc<SockEvents>,
    /// TCP_NODELAY to give new connections.
    pub nodelay: bool,
}

/// The interface, its device, the smoltcp sockets and the tables that
/// give them Linux's behaviour.
pub struct Stack {
    /// The smoltcp interface (lo, 127.0.0.1/8).
    pub iface: Interface,
    /// The device: loopback and eth0.
    pub device: Links,
    /// The smoltcp sockets, in small sets by the packets they take
    /// (`sockets.rs`).
    pub sockets: Sockets,
    ports: Vec<PortEntry>,
    next_port_id: u64,
    next_ephemeral: u16,
    /// TCP connections by smoltcp handle.
    pub conns: BTreeMap<SocketHandle, Conn>,
    /// UDP sockets' (bytes queued to read, to send) at the last sweep, and
    /// their owners' event counters.
    udp_watch: BTreeMap<SocketHandle, UdpWatch>,
    /// Listening sockets by id.
    pub listeners: BTreeMap<u64, Listener>,
    /// The socket filters of TCP connections and listeners (`tcpfilter.rs`).
    pub tcp_filters: super::tcpfilter::TcpFilters,
    next_listener_id: u64,
    /// lo is up (SIOCSIFFLAGS).
    pub lo_up: bool,
    /// lo has 127.0.0.1/8: given the first time it comes up (Linux's
    /// inetdev_event on NETDEV_UP of a loopback device); the initial
    /// namespace's has it from boot here.
    pub lo_addr: bool,
    /// lo's MTU as reported (Linux's 65536; smoltcp's frames stop at
    /// [`LOOPBACK_MTU`]).
    pub lo_mtu: usize,

    /// Sockets whose count a sweep bumped since the last wake-up: their
    /// queues are notified once the stack's lock is released.
    touched: Vec<Arc<SockEvents>>,
    /// Connections by (local port, remote port): a received segment names
    /// the ones to look at.
    by_ports: BTreeMap<(u16, u16), Vec<SocketHandle>>,
    /// Connections the next sweeps must look at (segments received for
    /// them, calls that changed them, ports not known yet); cleared by the
    /// sweep after egress.
    dirty: BTreeSet<SocketHandle>,
    /// Connections whose ports smoltcp did not know yet when tracked.
    unindexed: BTreeSet<SocketHandle>,
    /// The next sweep looks at every connection (timer-driven pumps:
    /// smoltcp's timers change connections without a segment).
    full_sweep: bool,
    /// The next pump runs egress for the socket groups whose poll time
    /// came (timer-driven pumps).
    timers_due: bool,
    /// The next pump sends the delayed ACKs waiting (an idle CPU's
    /// [`flush_delayed_acks`]): it runs as if `ACK_DELAY_US` had passed.
    flush_acks: bool,
    /// The sweep's lists of listeners and of connections to look at,
    /// kept so that their memory is reused.
    scratch_ids: Vec<u64>,
    scratch_look: Vec<SocketHandle>,
    scratch_groups: Vec<GroupId>,
    /// When smoltcp next wants to be polled, as the last pump found
    /// (monotonic ns; u64::MAX: never).
    next_poll_ns: u64,
    /// The clock as the current (or last) pump's round read it (monotonic
    /// ns): the sweep's and `with_stack_in`'s time, one clock read per
    /// round.
    pump_ns: u64,
    /// Connections that may hold corked bytes (`cork.rs`), for their
    /// 200 ms ceiling.
    pub(super) held_conns: Vec<SocketHandle>,
}

impl Stack {
    /// Makes a namespace's stack: the initial namespace's (`initial`)
    /// takes the network card as eth0, another has only lo.
    fn new(initial: bool) -> Stack {
        let card = if initial { kevlar_platform::net::NetDevice::probe() } else { None };
        let eth = card.map(|card| {
            let mac = card.mac();
            let (bus, slot, function) = card.location;
            let sysfs_parent = alloc::format!("pci0000:{:02x}/0000:{:02x}:{:02x}.{}/virtio{}", bus, bus, slot, function, card.virtio_index);
            log::info!("eth0: virtio-net {:02x}:{:02x}:{:02x}:{:02x}:{:02x}:{:02x}, {}/{}", mac[0], mac[1], mac[2], mac[3], mac[4], mac[5], ETH_ADDR, ETH_PREFIX);
            EthPort {
                card,
                mac,
                neighbours: BTreeMap::new(),
                unresolved: VecDeque::new(),
                up: true,
                addrs: alloc::vec![IfAddr { addr: ETH_ADDR, prefix: ETH_PREFIX, broadcast: Some(Ipv4Address::new(10, 0, 2, 255)), life: None }],
                routes: alloc::vec![EthRoute { dst: Ipv4Address::UNSPECIFIED, prefix: 0, gateway: Some(ETH_GATEWAY), protocol: RTPROT_BOOT, metric: 0 }],
                mtu: ETH_MTU,
                stats: LinkStats::default(),
                sysfs_parent,
            }
        });
        let has_eth = eth.is_some();
        let mut device = Links { queue: VecDeque::new(), full_listeners: Vec::new(), port_unreachable: Vec::new(), seen: Vec::new(), eth, lo_stats: LinkStats::default(), taps: initial };
        let mut seed = [0u8; 8];
        crate::fs::devices::fill_random(&mut seed);
        let mut config = Config::new(HardwareAddress::Ip);
        config.random_seed = u64::from_le_bytes(seed);
        let mut iface = Interface::new(config, &mut device, now());
        iface.update_ip_addrs(|addrs| {
            let _ = addrs.push(IpCidr::new(IpAddress::Ipv4(Ipv4Address::new(127, 0, 0, 1)), 8));
            let _ = addrs.push(IpCidr::new(IpAddress::Ipv6(ipv6::LOOPBACK6), 128));
            if has_eth {
                let _ = addrs.push(IpCidr::new(IpAddress::Ipv4(ETH_ADDR), ETH_PREFIX));
            }
        });
        if has_eth {
            let _ = iface.routes_mut().add_default_ipv4_route(ETH_GATEWAY);
        }
        let mut start = [0u8; 2];
        crate::fs::devices::fill_random(&mut start);
        let span = EPHEMERAL_LAST - EPHEMERAL_FIRST + 1;
        Stack {
            iface,
            device,
            sockets: Sockets::new(),
            ports: Vec::new(),
            next_port_id: 1,
            next_ephemeral: EPHEMERAL_FIRST + u16::from_le_bytes(start) % span,
            conns: BTreeMap::new(),
            udp_watch: BTreeMap::new(),
            listeners: BTreeMap::new(),
            next_listener_id: 1,
            // Down until someone brings it up, as on Linux (a distribution's
            // init does; connecting to 127.0.0.1 before that is ENETUNREACH).
            lo_up: false,
            lo_addr: initial,
            lo_mtu: 65536,
            touched: Vec::new(),
            by_ports: BTreeMap::new(),
            tcp_filters: Default::default(),
            dirty: BTreeSet::new(),
            unindexed: BTreeSet::new(),
            full_sweep: false,
            timers_due: false,
            flush_acks: false,
            scratch_ids: Vec::new(),
            scratch_look: Vec::new(),
            scratch_groups: Vec::new(),
            next_poll_ns: u64::MAX,
            pump_ns: 0,
            held_conns: Vec::new(),
        }
    }

    /// Makes smoltcp's interface addresses lo's and eth0's again (after
    /// netlink or an ioctl changed eth0's); ENOMEM past smoltcp's room.
    pub fn sync_addrs(&mut self) -> Result<()> {
        let eth: Vec<IfAddr> = self.device.eth.as_ref().map(|e| e.addrs.clone()).unwrap_or_default();
        let mut full = false;
        self.iface.update_ip_addrs(|addrs| {
            addrs.clear();
            let _ = addrs.push(IpCidr::new(IpAddress::Ipv4(Ipv4Address::new(127, 0, 0, 1)), 8));
            let _ = addrs.push(IpCidr::new(IpAddress::Ipv6(ipv6::LOOPBACK6), 128));
            for a in &eth {
                if addrs.push(IpCidr::new(IpAddress::Ipv4(a.addr), a.prefix)).is_err() {
                    full = true;
                }
            }
        });
        if full {
            Err(Errno::ENOMEM)
        } else {
            Ok(())
        }
    }

    // --- ports ---------------------------------------------------------------

    fn conflicts(&self, proto: Proto, addr: PortAddr, port: u16, reuse: bool, skip: u64) -> bool {
        self.ports.iter().any(|e| {
            e.id != skip
                && e.proto == proto
                && e.port == port
                && e.addr.overlaps(addr)
                && !(reuse && e.reuse && !e.listening)
        })
    }

    /// Binds `port` (0: an ephemeral one) at `addr`; returns the port and
    /// the binding's id. EADDRINUSE when taken (SO_REUSEADDR on both
    /// sides shares a port that is not listening), as Linux's
    /// inet_csk_get_port and udp_lib_get_port.
    pub fn bind_port(&mut self, proto: Proto, addr: PortAddr, port: u16, reuse: bool) -> Result<(u16, u64)> {
        let now_ns = kevlar_platform::time::monotonic_ns();
        self.ports.retain(|e| e.expires_ns.is_none_or(|t| t > now_ns));
        let port = if port != 0 {
            if self.conflicts(proto, addr, port, reuse, 0) {
                return Err(Errno::EADDRINUSE);
            }
            port
        } else {
            // net.ipv4.ip_local_port_range of the caller's namespace.
            let (first, last) = crate::ns::net::current().sysctl.port_range();
            let span = u32::from(last - first) + 1;
            let mut found = None;
            for _ in 0..span {
                if !(first..=last).contains(&self.next_ephemeral) {
                    self.next_ephemeral = first;
                }
                let candidate = self.next_ephemeral;
                self.next_ephemeral = if candidate == last { first } else { candidate + 1 };
                // An ephemeral port is never shared.
                if !self.conflicts(proto, addr, candidate, false, 0) && !self.ports.iter().any(|e| e.proto == proto && e.port == candidate) {
                    found = Some(candidate);
                    break;
                }
            }
            found.ok_or(Errno::EADDRINUSE)?
        };
        let id = self.next_port_id;
        self.next_port_id += 1;
        self.ports.push(PortEntry { id, proto, addr, port, reuse, listening: false, expires_ns: None });
        Ok((port, id))
    }

    /// Marks a binding as listening: EADDRINUSE when another socket
    /// sharing the port listens already.
    pub fn listen_port(&mut self, id: u64) -> Result<()> {
        let e = self.ports.iter().find(|e| e.id == id).ok_or(Errno::EINVAL)?;
        let (proto, addr, port) = (e.proto, e.addr, e.port);
        if self.ports.iter().any(|o| o.id != id && o.proto == proto && o.port == port && o.listening && o.addr.overlaps(addr)) {
            return Err(Errno::EADDRINUSE);
        }
        if let Some(e) = self.ports.iter_mut().find(|e| e.id == id) {
            e.listening = true;
        }
        Ok(())
    }

    /// Drops a binding.
    pub fn release_port(&mut self, id: u64) {
        self.ports.retain(|e| e.id != id);
    }

    // --- TCP connections -----------------------------------------------------

    /// Makes a smoltcp TCP socket with the settings every connection has.
    pub fn new_tcp(&mut self, nodelay: bool) -> SocketHandle {
        let mut s = tcp::Socket::new(tcp::SocketBuffer::new(vec![0u8; TCP_BUFFER]), tcp::SocketBuffer::new(vec![0u8; TCP_BUFFER]));
        // Linux acknowledges at once at the start of a connection
        // (quick-ack); `acks.rs` decides when ACKs wait for data.
        s.set_ack_delay(None);
        s.set_nagle_enabled(!nodelay);
        self.sockets.add(s)
    }

    /// Tracks a connection's state for `events`' owner (a connection
    /// tracked already just changes owner).
    pub fn track(&mut self, handle: SocketHandle, events: Arc<SockEvents>) {
        if let Some(c) = self.conns.get_mut(&handle) {
            c.events = events;
            return;
        }
        let state = self.sockets.get::<tcp::Socket>(handle).state();
        self.conns.insert(handle, Conn { last: state, signature: (state, 0, 0), error: None, reset: false, orphan: false, port_id: None, reuse: false, events, ports: None, acks: Default::default(), held: Default::default() });
        self.dirty.insert(handle);
        if !self.index(handle) {
            self.unindexed.insert(handle);
        }
    }

    /// Files a connection under its ports once smoltcp knows them;
    /// returns whether it is filed.
    fn index(&mut self, handle: SocketHandle) -> bool {
        let Some(c) = self.conns.get_mut(&handle) else { return true };
        if c.ports.is_some() {
            return true;
        }
        let s = self.sockets.get::<tcp::Socket>(handle);
        if let (Some(local), Some(remote)) = (s.local_endpoint(), s.remote_endpoint()) {
            let ports = (local.port, remote.port);
            c.ports = Some(ports);
            self.by_ports.entry(ports).or_default().push(handle);
            return true;
        }
        false
    }

    /// Stops tracking a connection (its smoltcp socket is removed next).
    pub fn forget_conn(&mut self, handle: SocketHandle) -> Option<Conn> {
        self.tcp_filters.forget_conn(handle);
        let c = self.conns.remove(&handle)?;
        self.dirty.remove(&handle);
        self.unindexed.remove(&handle);
        if let Some(ports) = c.ports {
            if let Some(list) = self.by_ports.get_mut(&ports) {
                list.retain(|h| *h != handle);
                if list.is_empty() {
                    self.by_ports.remove(&ports);
                }
            }
        }
        Some(c)
    }

    /// Makes the next sweep look at a connection a call changed.
    pub fn mark(&mut self, handle: SocketHandle) {
        if self.conns.contains_key(&handle) {
            self.dirty.insert(handle);
        }
    }

    /// Records a connection's queues after its own socket read from or
    /// wrote to them, so the next sweep does not take that for an event.
    pub fn note_local(&mut self, handle: SocketHandle) {
        if let Some(c) = self.conns.get_mut(&handle) {
            let s = self.sockets.get::<tcp::Socket>(handle);
            c.signature = (c.signature.0, s.recv_queue(), s.send_queue());
        }
    }

    /// Records that the owner queued data to send on a connection (after
    /// [`Stack::note_local`]): its segment carries the ACK, and an answer
    /// soon after data arrived counts towards interactive (ping-pong)
    /// mode (`acks.rs`).
    pub fn note_sent(&mut self, handle: SocketHandle) {
        if let Some(c) = self.conns.get_mut(&handle) {
            c.acks.data_out(kevlar_platform::time::monotonic_ns());
            if let Some(delay) = c.acks.update(ACK_DELAY) {
                self.sockets.get_mut::<tcp::Socket>(handle).set_ack_delay(delay);
            }
        }
    }

    /// Aborts a connection for sock_diag's SOCK_DESTROY (tcp_abort): a
    /// reset goes out and `err` is the connection's pending error (not
    /// the ECONNRESET a reset from the peer would give).
    pub fn abort_conn(&mut self, handle: SocketHandle, err: Errno) {
        let s = self.sockets.get_mut::<tcp::Socket>(handle);
        s.abort();
        let state = s.state();
        if let Some(c) = self.conns.get_mut(&handle) {
            c.last = state;
            c.reset = true;
            c.error = Some(err);
        }
        self.mark(handle);
    }

    /// Gives up a connection whose last fd closed: a FIN (or a reset when
    /// unread data is left, or SO_LINGER with a zero time, as Linux's
    /// tcp_close), then reaped once closed; `port_id` is held until then.
    pub fn orphan(&mut self, handle: SocketHandle, port_id: Option<u64>, abort: bool, reuse: bool) {
        let s = self.sockets.get_mut::<tcp::Socket>(handle);
        if abort || s.recv_queue() > 0 {
            s.abort();
        } else {
            s.close();
        }
        if let Some(c) = self.conns.get_mut(&handle) {
            c.orphan = true;
            c.port_id = port_id;
            c.reuse = reuse;
        }
        self.mark(handle);
    }

    /// Adds a UDP socket bound to `port` whose queue changes bump
    /// `events`, and whose connected peer's refusals set `refused`.
    pub fn add_udp(&mut self, socket: udp::Socket<'static>, port: u16, events: Arc<SockEvents>, refused: Arc<core::sync::atomic::AtomicBool>) -> SocketHandle {
        let h = self.sockets.add(socket);
        self.udp_watch.insert(h, UdpWatch { signature: (0, 0), events, port, peer: None, refused });
        h
    }

    /// Records a UDP socket's connected peer (None: not connected).
    pub fn set_udp_peer(&mut self, h: SocketHandle, peer: Option<(IpAddress, u16)>) {
        if let Some(w) = self.udp_watch.get_mut(&h) {
            w.peer = peer;
        }
    }

    /// Removes a UDP socket.
    pub fn remove_udp(&mut self, h: SocketHandle) {
        self.udp_watch.remove(&h);
        self.sockets.remove(h);
    }

    /// Starts a listener on `endpoint`; returns its id.
    pub fn add_listener(&mut self, accept: PortAddr, port: u16, backlog: usize, events: Arc<SockEvents>, nodelay: bool) -> u64 {
        let id = self.next_listener_id;
        self.next_listener_id += 1;
        let endpoint = IpListenEndpoint { addr: accept.listen_addr(), port };
        self.listeners.insert(id, Listener { endpoint, accept, backlog, listen: None, embryos: Vec::new(), ready: VecDeque::new(), events, nodelay });
        self.refill(id);
        self.update_syn_filter();
        id
    }

    /// Removes a listener, resetting the connections it had not handed
    /// out (Linux's inet_csk_listen_stop).
    pub fn remove_listener(&mut self, id: u64) {
        let removed = self.listeners.remove(&id);
        self.tcp_filters.forget_listener(id);
        self.update_syn_filter();
        if let Some(l) = removed {
            for h in l.listen.into_iter().chain(l.embryos).chain(l.ready) {
                // Reaped by the sweep once the reset has gone out.
                self.sockets.get_mut::<tcp::Socket>(h).abort();
                self.track(h, SockEvents::new());
                if let Some(c) = self.conns.get_mut(&h) {
                    c.orphan = true;
                }
                self.mark(h);
            }
        }
    }

    /// Gives a listener a socket waiting for SYNs unless its queue is full.
    fn refill(&mut self, id: u64) {
        let Some(l) = self.listeners.get(&id) else { return };
        if l.listen.is_some() || l.ready.len() + l.embryos.len() > l.backlog {
            return;
        }
        let (endpoint, nodelay) = (l.endpoint, l.nodelay);
        let handle = self.new_tcp(nodelay);
        if self.sockets.get_mut::<tcp::Socket>(handle).listen(endpoint).is_err() {
            self.sockets.remove(handle);
            return;
        }
        if let Some(l) = self.listeners.get_mut(&id) {
            l.listen = Some(handle);
        }
    }

    /// Recomputes which listeners' SYNs are dropped (those whose queue is
    /// full, so they have no socket waiting in LISTEN).
    fn update_syn_filter(&mut self) {
        self.device.full_listeners.clear();
        self.device.full_listeners.extend(self.listeners.values().filter(|l| l.listen.is_none()).map(|l| l.endpoint.port));
    }

    /// Hands a handshake that reached a listener not taking its address
    /// (smoltcp listens on any address of both families for 0.0.0.0 and
    /// `::`) to the listener that does, the closest match as Linux picks
    /// it; with none, it is refused with a reset, and with that
    /// listener's queue full, the SYN is dropped (the client retries).
    fn steer_handshakes(&mut self) {
        let mut moves = Vec::new();
        for (&id, l) in self.listeners.iter() {
            let Some(h) = l.listen else { continue };
            let s = self.sockets.get::<tcp::Socket>(h);
            if s.state() == tcp::State::Listen {
                continue;
            }
            let Some(local) = s.local_endpoint() else { continue };
            let best = self.listeners.iter().filter(|(_, o)| o.endpoint.port == local.port).filter_map(|(&oid, o)| o.accept.score(local.addr).map(|sc| (sc, oid == id, oid))).max();
            match best {
                Some((_, true, _)) => {}
                other => moves.push((id, h, other.map(|(_, _, oid)| oid))),
            }
        }
        if moves.is_empty() {
            return;
        }
        for (id, h, target) in moves {
            if let Some(l) = self.listeners.get_mut(&id) {
                l.listen = None;
            }
            match target.and_then(|t| self.listeners.get_mut(&t)) {
                Some(t) if t.ready.len() + t.embryos.len() <= t.backlog => t.embryos.push(h),
                Some(_) => {
                    self.sockets.remove(h);
                }
                None => {
                    // Reaped by the sweep once the reset has gone out.
                    self.sockets.get_mut::<tcp::Socket>(h).abort();
                    self.track(h, SockEvents::new());
                    if let Some(c) = self.conns.get_mut(&h) {
                        c.orphan = true;
                    }
                    self.mark(h);
                }
            }
            self.refill(id);
        }
    }

    /// Takes the oldest completed connection of a listener; the caller
    /// tracks it for its new socket.
    pub fn take_ready(&mut self, id: u64) -> Option<SocketHandle> {
        let h = self.listeners.get_mut(&id)?.ready.pop_front()?;
        self.refill(id);
        self.update_syn_filter();
        Some(h)
    }

    /// Looks at every connection after packets moved: errors from resets
    /// and refusals, listen queues, orphans to reap, owners to wake.
    /// Returns whether anything a waiter may look at changed. `reap`
    /// removes closed orphans: only after egress, so their last packet
    /// (a reset) has gone out.
    fn sweep(&mut self, reap_closed: bool) -> bool {
        let mut changed = false;
        self.steer_handshakes();
        // Listeners first: a SYN moves the listening socket to the embryos
        // (and a new one takes its place before the next packet).
        // Scratch lists kept between sweeps: a sweep runs after every
        // packet, and allocating them each time was a good part of its cost.
        let mut ids = core::mem::take(&mut self.scratch_ids);
        ids.clear();
        ids.extend(self.listeners.keys().copied());
        let mut completed = Vec::new();
        for &id in ids.iter() {
            let mut refill = false;
            {
                let l = self.listeners.get_mut(&id).unwrap();
                if let Some(h) = l.listen {
                    if self.sockets.get::<tcp::Socket>(h).state() != tcp::State::Listen {
                        l.embryos.push(h);
                        l.listen = None;
                        refill = true;
                    }
                }
                let mut k = 0;
                while k < l.embryos.len() {
                    let h = l.embryos[k];
                    match self.sockets.get::<tcp::Socket>(h).state() {
                        tcp::State::SynReceived | tcp::State::Listen => k += 1,
                        tcp::State::Closed => {
                            l.embryos.remove(k);
                            self.sockets.remove(h);
                            refill = true;
                        }
                        _ => {
                            l.embryos.remove(k);
                            l.ready.push_back(h);
                            completed.push((h, l.events.clone()));
                            l.events.fetch_add(1, Ordering::Relaxed);
                            self.touched.push(l.events.clone());
                            changed = true;
                        }
                    }
                }
            }
            if refill {
                self.refill(id);
            }
        }
        self.scratch_ids = ids;
        self.update_syn_filter();
        // A completed connection is tracked from now on (a reset before
        // accept must still be seen), for its listener until accepted.
        for (h, events) in completed {
            self.track(h, events);
        }
        let unreachable = core::mem::take(&mut self.device.port_unreachable);
        for (h, w) in self.udp_watch.iter_mut() {
            let s = self.sockets.get::<udp::Socket>(*h);
            let now = (s.recv_queue(), s.send_queue());
            if now != w.signature {
                w.signature = now;
                w.events.fetch_add(1, Ordering::Relaxed);
                self.touched.push(w.events.clone());
                changed = true;
            }
            // Only a connected socket hears of refusals (Linux reports ICMP
            // errors to unconnected ones only with IP_RECVERR).
            if unreachable.iter().any(|&(port, peer)| port == w.port && Some(peer) == w.peer) {
                w.refused.store(true, Ordering::Release);
                w.events.fetch_add(1, Ordering::Relaxed);
                self.touched.push(w.events.clone());
                changed = true;
            }
        }
        // The connections to look at: those segments arrived for and those
        // marked (O(touched)); all of them after a timer.
        for ports in self.device.seen.drain(..) {
            if let Some(list) = self.by_ports.get(&ports) {
                self.dirty.extend(list.iter().copied());
            }
        }
        if !self.unindexed.is_empty() {
            for h in core::mem::take(&mut self.unindexed) {
                if !self.index(h) {
                    self.unindexed.insert(h);
                }
                self.dirty.insert(h);
            }
        }
        let mut look = core::mem::take(&mut self.scratch_look);
        look.clear();
        if self.full_sweep {
            look.extend(self.conns.keys().copied());
        } else {
            look.extend(self.dirty.iter().copied());
        }
        if reap_closed {
            self.dirty.clear();
            self.full_sweep = false;
        }
        let mut reap = Vec::new();
        let mut ack_modes: Vec<(SocketHandle, Option<smoltcp::time::Duration>)> = Vec::new();
        let pump_ns = self.pump_ns;
        for h in look.iter() {
            let Some(c) = self.conns.get_mut(h) else { continue };
            let s = self.sockets.get::<tcp::Socket>(*h);
            let state = s.state();
            if state != c.last {
                use tcp::State::*;
                if state == Closed {
                    let error = match c.last {
                        SynSent => Some(Errno::ECONNREFUSED),
                        SynReceived | Established | FinWait1 | FinWait2 => Some(Errno::ECONNRESET),
                        CloseWait => Some(Errno::EPIPE),
                        _ => None,
                    };
                    if error.is_some() && !c.orphan {
                        c.reset = true;
                        c.error = error;
                    }
                }
                c.last = state;
            }
            let signature = (state, s.recv_queue(), s.send_queue());
            if signature != c.signature {
                // An event for the socket's pollers: a new state, data
                // arriving, room to send (the socket's own reads and
                // writes are recorded by `note_local` and are none, as on
                // Linux, where a read does not wake the reader).
                let (state0, recv0, send0) = c.signature;
                c.signature = signature;
                if state != state0 || signature.1 > recv0 || signature.2 < send0 {
                    c.events.fetch_add(1, Ordering::Relaxed);
                    self.touched.push(c.events.clone());
                }
                if signature.1 > recv0 {
                    c.acks.data_in(pump_ns);
                    if let Some(delay) = c.acks.update(ACK_DELAY) {
                        ack_modes.push((*h, delay));
                    }
                }
                changed = true;
            }
            if c.orphan {
                if (state == tcp::State::Closed || state == tcp::State::TimeWait) && reap_closed {
                    let local = if state == tcp::State::TimeWait { s.local_endpoint().map(|e| (e, c.reuse)) } else { None };
                    reap.push((*h, local));
                }
                // Data for a closed socket is answered with a reset.
                if s.recv_queue() > 0 && state != tcp::State::Closed {
                    self.sockets.get_mut::<tcp::Socket>(*h).abort();
                }
            }
        }
        // In or out of quick-ack mode (`acks.rs`): out of it the ACK waits
        // for data to carry it (the answer to a request), as Linux's once a
        // connection is interactive; an idle CPU sends it at once.
        for (h, delay) in ack_modes {
            self.sockets.get_mut::<tcp::Socket>(h).set_ack_delay(delay);
        }
        // A connection in TIME-WAIT gives its buffers back at once (on
        // these links no late segment needs absorbing); only its port stays
        // taken for TIME_WAIT_NS, shared only when both the connection and the
        // new socket have SO_REUSEADDR, as Linux's bind-conflict check.
        let expires = kevlar_platform::time::monotonic_ns().saturating_add(TIME_WAIT_NS);
        for (h, time_wait) in reap {
            if let Some(c) = self.forget_conn(h) {
                if let Some(id) = c.port_id {
                    self.release_port(id);
                }
            }
            if let Some((local, reuse)) = time_wait {
                let addr = PortAddr::of(local.addr, true);
                let id = self.next_port_id;
                self.next_port_id += 1;
                self.ports.push(PortEntry { id, proto: Proto::Tcp, addr, port: local.port, reuse, listening: false, expires_ns: Some(expires) });
            }
            self.sockets.remove(h);
        }
        self.scratch_look = look;
        changed
    }

    /// Runs the socket filter of the TCP socket the next packet is for
    /// (`tcpfilter.rs`): true if it dropped the packet.
    fn filter_front(&mut self) -> bool {
        let Some(packet) = self.device.queue.front() else { return false };
        let by_ports = &self.by_ports;
        match self.tcp_filters.verdict(packet, |local, remote| by_ports.get(&(local, remote)).cloned()) {
            super::tcpfilter::Verdict::Keep => false,
            super::tcpfilter::Verdict::Drop => {
                self.device.queue.pop_front();
                true
            }
            super::tcpfilter::Verdict::Cut(len) => {
                if let Some(packet) = self.device.queue.front_mut() {
                    super::tcpfilter::cut(packet, len);
                }
                false
            }
        }
    }

    /// Moves packets until nothing is left to do; returns whether anything
    /// changed that waiters may care about. Each packet goes to the group
    /// of sockets it is for, and egress runs for the groups a packet, a
    /// call or a timer touched (`sockets.rs`): O(what moved), not
    /// O(sockets).
    fn pump(&mut self) -> bool {
        let mut changed = false;
        let timers = core::mem::take(&mut self.timers_due);
        // Flushing delayed ACKs: smoltcp is told a time ACK_DELAY_US
        // ahead, when every delayed ACK is due (nothing else it times is
        // that short: its retransmission timeout is 1 s at least).
        let ahead_us = if core::mem::take(&mut self.flush_acks) { ACK_DELAY_US } else { 0 };
        if timers || ahead_us > 0 {
            self.sockets.mark_due(kevlar_platform::time::monotonic_ns() + ahead_us * 1000);
        }
        // Corked bytes past their ceiling go out in this pump.
        let hold_deadline = if self.held_conns.is_empty() { u64::MAX } else { self.release_expired_holds(kevlar_platform::time::monotonic_ns()) };
        // Bounded: each round moves at least one packet or ends.
        for _ in 0..4096 {
            self.pump_ns = kevlar_platform::time::monotonic_ns();
            let ts = Instant::from_micros((self.pump_ns / 1000) as i64) + smoltcp::time::Duration::from_micros(ahead_us);
            self.iface.poll_maintenance(ts);
            let mut moved = false;
            loop {
                // Sockets a call or the last sweep changed go to their
                // groups first (a listener's new LISTEN socket must be
                // there for the next SYN).
                self.sockets.rehome_touched();
                if !self.tcp_filters.is_empty() && self.device.front().is_some() && self.filter_front() {
                    continue;
                }
                let Some(packet) = self.device.front() else { break };
                let group = route(&self.sockets, packet);
                match self.iface.poll_ingress_single(ts, &mut self.device, self.sockets.set_of(group)) {
                    PollIngressSingleResult::None => break,
                    _ => {
                        moved = true;
                        self.sockets.after_ingress(group);
                        changed |= self.sweep(false);
                    }
                }
            }
            self.sockets.rehome_touched();
            // One egress pass per round for each group due: a pass sends
            // at most a segment per socket, so a group that sent is due
            // again in the next round (which runs because this one moved
            // something).
            let mut groups = core::mem::take(&mut self.scratch_groups);
            self.sockets.take_dirty(&mut groups);
            for &group in groups.iter() {
                let sent = self.iface.poll_egress(ts, &mut self.device, self.sockets.set_of(Some(group))) == PollResult::SocketStateChanged;
                if sent {
                    moved = true;
                    self.sockets.mark(group);
                }
                let at = self.iface.poll_at(ts, self.sockets.set_of(Some(group))).map(|at| (at.total_micros().max(0) as u64).saturating_mul(1000));
                self.sockets.set_poll_at(group, at);
            }
            self.scratch_groups = groups;
            changed |= self.sweep(true);
            if !moved && self.device.queue.is_empty() && !self.sockets.pending() {
                break;
            }
        }
        let mut next = self.sockets.next_poll().min(hold_deadline);
        if self.device.eth.is_some() {
            // The card is polled at every tick.
            next = next.min(self.pump_ns);
        }
        self.next_poll_ns = next;
        changed
    }
}

/// Runs `f` on the calling process's network namespace's stack (see
/// [`with_stack_in`]).
pub fn with_stack<R>(f: impl FnOnce(&mut Stack) -> R) -> R {
    with_stack_in(&crate::ns::net::current(), f)
}

/// Runs `f` on the stack of namespace `ns`, then moves packets and wakes
/// whoever the changes concern. Never call with a socket lock held.
pub fn with_stack_in<R>(ns: &NetNs, f: impl FnOnce(&mut Stack) -> R) -> R {
    let mut guard = ns.stack.lock();
    let stack = guard.get_or_insert_with(|| make(ns));
    let r = f(stack);
    stack.pump();
    if ns.initial {
        INITIAL_POLL_NS.store(stack.next_poll_ns, Ordering::Release);
    } else {
        ns.next_poll_ns.store(stack.next_poll_ns, Ordering::Release);
    }
    if stack.next_poll_ns <= stack.pump_ns.saturating_add(ACK_DELAY_US * 1000) {
        // Perhaps a delayed ACK: the next CPU to go idle sends it.
        SHORT_TIMERS.store(true, Ordering::Release);
    }
    let mut touched = core::mem::take(&mut stack.touched);
    drop(guard);
    // Only the sockets the pump changed hear of it (their blocked threads
    // and their pollers), once each, with no lock held (poll hooks take
    // epoll's locks).
    touched.sort_unstable_by_key(|e| Arc::as_ptr(e) as usize);
    touched.dedup_by(|a, b| Arc::ptr_eq(a, b));
    for events in touched {
        events.wake();
    }
    crate::net::packet::wake_pending();
    r
}

fn make(ns: &NetNs) -> Stack {
    let st = Stack::new(ns.initial);
    if ns.initial {
        HAS_CARD.store(st.device.eth.is_some(), Ordering::Relaxed);
    }
    st
}

/// Runs `f` on the calling process's namespace's stack without pumping
/// (see [`look_at_stack_in`]).
pub fn look_at_stack<R>(f: impl FnOnce(&mut Stack) -> R) -> R {
    look_at_stack_in(&crate::ns::net::current(), f)
}

/// Runs `f` on the stack of `ns` without pumping: for looking only
/// (poll), since every call that changes the stack pumps and smoltcp's
/// timers pump from the timer check, what `f` sees is current.
pub fn look_at_stack_in<R>(ns: &NetNs, f: impl FnOnce(&mut Stack) -> R) -> R {
    let mut guard = ns.stack.lock();
    let stack = guard.get_or_insert_with(|| make(ns));
    f(stack)
}

/// Polls the stacks whose smoltcp asked for a time that has come
/// (retransmissions, TIME-WAIT expiry); called from the timer check.
pub fn run_timers(now_ns: u64) {
    // The initial namespace's time is checked without a lock (this runs
    // at every timer check).
    if now_ns >= INITIAL_POLL_NS.load(Ordering::Acquire) || has_card() {
        INITIAL_POLL_NS.store(u64::MAX, Ordering::Release);
        if let Some(initial) = crate::ns::net::initial() {
            poll_for_timers(&initial);
        }
    }
    for ns in crate::ns::net::others() {
        if now_ns >= ns.next_poll_ns.load(Ordering::Acquire) {
            ns.next_poll_ns.store(u64::MAX, Ordering::Release);
            poll_for_timers(&ns);
        }
    }
}

/// Sends the delayed ACKs waiting in every stack (from a CPU about to go
/// idle): an ACK delayed to ride on an answer that is not coming soon
/// must not wait for its timer while nothing runs.
pub fn flush_delayed_acks() {
    // Once per idle spell, and only after a pump left a timer that short
    // (not at each interrupt that wakes an idle CPU).
    if !SHORT_TIMERS.load(Ordering::Relaxed) || !SHORT_TIMERS.swap(false, Ordering::AcqRel) {
        return;
    }
    let horizon = kevlar_platform::time::monotonic_ns().saturating_add(ACK_DELAY_US * 1000);
    if INITIAL_POLL_NS.load(Ordering::Acquire) <= horizon {
        INITIAL_POLL_NS.store(u64::MAX, Ordering::Release);
        if let Some(initial) = crate::ns::net::initial() {
            with_stack_in(&initial, |st| st.flush_acks = true);
        }
    }
    for ns in crate::ns::net::others() {
        if ns.next_poll_ns.load(Ordering::Acquire) <= horizon {
            ns.next_poll_ns.store(u64::MAX, Ordering::Release);
            with_stack_in(&ns, |st| st.flush_acks = true);
        }
    }
}

fn poll_for_timers(ns: &NetNs) {
    with_stack_in(ns, |st| {
        st.full_sweep = true;
        st.timers_due = true;
    });
}

/// A pump left a stack with a timer due within `ACK_DELAY_US` (a delayed
/// ACK, most likely): [`flush_delayed_acks`] has something to do.
static SHORT_TIMERS: core::sync::atomic::AtomicBool = core::sync::atomic::AtomicBool::new(false);

/// When the initial namespace's stack next wants to be polled (its
/// [`NetNs::next_poll_ns`] is not used; u64::MAX: never).
static INITIAL_POLL_NS: AtomicU64 = AtomicU64::new(u64::MAX);

/// Returns whether `addr` belongs to this machine (bind's check). Linux
/// takes all of 127.0.0.0/8 as local; smoltcp answers only the
/// interface's own address, so 127.0.0.1 is the one loopback address here.
pub fn is_local(addr: Ipv4Address) -> bool {
    addr.is_unspecified() || addr == Ipv4Address::new(127, 0, 0, 1) || with_stack(|st| st.device.eth.as_ref().is_some_and(|e| e.has_addr(addr)))
}

/// Returns whether smoltcp must be polled regularly: a network card's
/// frames arrive without an interrupt.
fn has_card() -> bool {
    HAS_CARD.load(Ordering::Relaxed)
}

/// Returns whether there is an eth0 (a network card was found).
pub fn has_eth() -> bool {
    look_at_stack(|st| st.device.eth.is_some())
}

static HAS_CARD: core::sync::atomic::AtomicBool = core::sync::atomic::AtomicBool::new(false);
