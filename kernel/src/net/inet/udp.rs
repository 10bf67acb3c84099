//! UDP sockets (SOCK_DGRAM over AF_INET) on smoltcp's UDP: datagram
//! boundaries, truncation with MSG_TRUNC, MSG_PEEK, a default peer set by
//! connect (and datagrams from others filtered out, as Linux does),
//! autobinding on first send, and datagram_poll's readiness bits.

use super::stack::SockEvents;
use alloc::sync::Arc;
use alloc::vec;
use alloc::vec::Vec;
use core::sync::atomic::{AtomicBool, Ordering};

use kevlar_platform::sync::SpinLock;
use linux_raw_sys::general as abi;
use linux_raw_sys::net as netabi;
use super::sockets::SocketHandle;
use smoltcp::socket::udp as sudp;
use smoltcp::wire::{IpAddress, IpEndpoint, IpListenEndpoint, Ipv4Address, Ipv6Address};

use super::ipv6::{self, Ipv6Options, PortAddr};
use super::stack::{self, Proto, Stack};
use crate::ns::net::NetNs;
use super::{IpOptions, IPPROTO_UDP};
use crate::error::{Errno, Result};
use crate::fs::file::PollEvents;
use crate::net::{wait_for, Incoming, Outgoing, Sink, Socket, SocketOptions, Ucred};
use crate::process::Thread;

/// The largest UDP payload over IPv4 (65535 - 20 - 8).
const MAX_PAYLOAD: usize = 65507;
/// Receive and send buffer bytes, and how many datagrams they hold.
const RX_BYTES: usize = 212_992;
const TX_BYTES: usize = 131_072;
const RX_PACKETS: usize = 256;
const TX_PACKETS: usize = 64;

const RCV_SHUTDOWN: u8 = 1;
const SEND_SHUTDOWN: u8 = 2;
const SHUTDOWN_MASK: u8 = 3;

struct Inner {
    handle: Option<SocketHandle>,
    /// Bound address, port, binding id.
    bound: Option<(IpAddress, u16, u64)>,
    /// The default destination (connect).
    peer: Option<(IpAddress, u16)>,
    /// The source address connect chose (getsockname reports it).
    source: Option<IpAddress>,
    shutdown: u8,
    /// The port was picked by the stack (bind to port 0, or an implicit
    /// bind): Linux's sk_userlocks without SOCK_BINDPORT_LOCK.
    autobound: bool,
    error: Option<Errno>,
    ip: IpOptions,
    /// SOL_IPV6 options (AF_INET6).
    ip6: Ipv6Options,
}

/// A UDP socket.
pub struct UdpSocket {
    /// AF_INET6 (else AF_INET).
    v6: bool,
    inner: SpinLock<Inner>,
    /// Set by the stack when the connected peer answered with ICMP port
    /// unreachable: the next receive (or SO_ERROR) reports ECONNREFUSED.
    refused: Arc<AtomicBool>,
    options: SocketOptions,
    events: Arc<SockEvents>,
    /// The network namespace it was made in (for life).
    net: Arc<NetNs>,
}

/// The size of a UDP header.
const UDP_HEADER: usize = 8;

impl UdpSocket {
    /// Creates an unbound socket.
    pub fn new(v6: bool) -> Arc<UdpSocket> {
        Arc::new(UdpSocket {
            v6,
            inner: SpinLock::new(Inner { handle: None, bound: None, peer: None, source: None, shutdown: 0, autobound: false, error: None, ip: IpOptions::default(), ip6: Ipv6Options::default() }),
            options: SocketOptions::default(),
            events: SockEvents::new(),
            refused: Arc::new(AtomicBool::new(false)),
            net: crate::ns::net::current(),
        })
    }

    /// Binds (port 0: ephemeral) and opens the smoltcp socket.
    fn bind_to(&self, st: &mut Stack, s: &mut Inner, ip: IpAddress, port: u16) -> Result<()> {
        let reuse = self.options.get().reuseaddr;
        let asked = port;
        let (port, id) = st.bind_port(Proto::Udp, PortAddr::of(ip, s.ip6.v6only), port, reuse)?;
        let rx = sudp::PacketBuffer::new(vec![sudp::PacketMetadata::EMPTY; RX_PACKETS], vec![0u8; RX_BYTES]);
        let tx = sudp::PacketBuffer::new(vec![sudp::PacketMetadata::EMPTY; TX_PACKETS], vec![0u8; TX_BYTES]);
        let mut sock = sudp::Socket::new(rx, tx);
        let addr = if ip.is_unspecified() { None } else { Some(ip) };
        if sock.bind(IpListenEndpoint { addr, port }).is_err() {
            st.release_port(id);
            return Err(Errno::EINVAL);
        }
        s.handle = Some(st.add_udp(sock, port, self.events.clone(), self.refused.clone()));
        s.bound = Some((ip, port, id));
        s.autobound = asked == 0;
        Ok(())
    }

    /// Drops queued datagrams that did not come from the connected peer.
    /// Drops queued datagrams of a family the socket does not take
    /// (smoltcp delivers both to a socket bound to any address).
    /// Drops those the socket filter (SO_ATTACH_FILTER) drops.
    fn filter(&self, sock: &mut sudp::Socket<'static>, peer: Option<(IpAddress, u16)>, v6only: bool, local_port: u16) {
        while let Ok((payload, meta)) = sock.peek() {
            let from_peer = peer.is_none_or(|(ip, port)| meta.endpoint.addr == ip && meta.endpoint.port == port);
            if from_peer && ipv6::family_takes(self.v6, v6only, meta.endpoint.addr) && self.filter_keeps(payload, meta.endpoint.port, local_port).is_some() {
                break;
            }
            let _ = sock.recv();
        }
    }

    /// How much of a datagram's payload the socket filter keeps (None:
    /// none, it is dropped). The filter sees the datagram as Linux's
    /// udp_queue_rcv_one_skb runs it: from the UDP header (ports, length;
    /// the checksum, which the stack checked and did not keep, reads 0),
    /// never cut into the header.
    fn filter_keeps(&self, payload: &[u8], src_port: u16, dst_port: u16) -> Option<usize> {
        if self.options.filter.current().is_none() {
            return Some(payload.len());
        }
        let mut dgram = Vec::new();
        if dgram.try_reserve_exact(UDP_HEADER + payload.len()).is_err() {
            return Some(payload.len());
        }
        dgram.extend_from_slice(&src_port.to_be_bytes());
        dgram.extend_from_slice(&dst_port.to_be_bytes());
        dgram.extend_from_slice(&((UDP_HEADER + payload.len()).min(0xffff) as u16).to_be_bytes());
        dgram.extend_from_slice(&[0, 0]);
        dgram.extend_from_slice(payload);
        self.options.filter.keep(&dgram, UDP_HEADER).map(|n| n - UDP_HEADER)
    }

    /// The family's wildcard address (0.0.0.0 or `::`).
    fn any_addr(&self) -> IpAddress {
        if self.v6 {
            IpAddress::Ipv6(Ipv6Address::UNSPECIFIED)
        } else {
            IpAddress::Ipv4(Ipv4Address::UNSPECIFIED)
        }
    }
}

impl Socket for UdpSocket {
    fn family(&self) -> u32 {
        if self.v6 {
            netabi::AF_INET6
        } else {
            netabi::AF_INET
        }
    }

    fn sock_type(&self) -> u32 {
        netabi::SOCK_DGRAM
    }

    fn protocol(&self) -> u32 {
        IPPROTO_UDP
    }

    /// The filter runs on each datagram before it is read (and before
    /// poll reports it).
    fn runs_filters(&self) -> bool {
        true
    }

    fn options(&self) -> &SocketOptions {
        &self.options
    }

    fn bind(&self, thread: &Thread, addr: &[u8]) -> Result<()> {
        let v6only = self.inner.lock().ip6.v6only;
        let (ip, port) = super::parse_bind(thread, self.v6, v6only, addr)?;
        stack::with_stack_in(&self.net, |st| {
            let mut s = self.inner.lock();
            if s.bound.is_some() {
                return Err(Errno::EINVAL);
            }
            self.bind_to(st, &mut s, ip, port)
        })
    }

    fn listen(&self, _backlog: usize) -> Result<()> {
        Err(Errno::EOPNOTSUPP)
    }

    fn accept(&self, _nonblocking: bool) -> Result<Arc<dyn Socket>> {
        Err(Errno::EOPNOTSUPP)
    }

    fn connect(&self, _thread: &Thread, addr: &[u8], _nonblocking: bool) -> Result<()> {
        let v6only = self.inner.lock().ip6.v6only;
        let target = super::parse_connect(self.v6, v6only, true, addr)?;
        stack::with_stack_in(&self.net, |st| {
            let mut s = self.inner.lock();
            let Some((ip, port)) = target else {
                // AF_UNSPEC dissolves the association.
                s.peer = None;
                s.source = None;
                if let Some(h) = s.handle {
                    st.set_udp_peer(h, None);
                }
                return Ok(());
            };
            let (dest, source) = ipv6::route_any(st, ip)?;
            if s.bound.is_none() {
                let any = self.any_addr();
                self.bind_to(st, &mut s, any, 0)?;
            }
            s.peer = Some((dest, port));
            s.source = Some(source);
            st.set_udp_peer(s.handle.unwrap(), s.peer);
            self.refused.store(false, Ordering::Release);
            Ok(())
        })
    }

    fn proc_entry(&self) -> Option<crate::net::procnet::Entry> {
        use crate::net::procnet::{state, Entry, InetEntry, Transport};
        let (handle, local, remote, shutdown, v6only, port_locked) = {
            let s = self.inner.lock();
            let (ip, port, _) = s.bound?;
            let ip = if ip.is_unspecified() { s.source.unwrap_or(ip) } else { ip };
            (s.handle, (ip, port), s.peer, s.shutdown, s.ip6.v6only, !s.autobound)
        };
        let (tx_queue, rx_queue) = handle.map_or((0, 0), |h| {
            stack::look_at_stack_in(&self.net, |st| {
                let sock = st.sockets.get::<sudp::Socket>(h);
                (sock.send_queue(), sock.recv_queue())
            })
        });
        let code = if remote.is_some() { state::ESTABLISHED } else { state::CLOSE };
        let remote = remote.unwrap_or((self.any_addr(), 0));
        Some(Entry::Inet(self.net.inum, InetEntry { v6: self.v6, transport: Transport::Udp, local, remote, state: code, tx_queue, rx_queue, backlog: 0, shutdown, v6only, port_locked }))
    }

    fn local_name(&self) -> Result<Vec<u8>> {
        let s = self.inner.lock();
        Ok(match s.bound {
            // A connected socket reports the source address it uses.
            Some((ip, port, _)) if ip.is_unspecified() && s.source.is_some() => ipv6::encode_for(self.v6, s.source.unwrap(), port),
            Some((ip, port, _)) => ipv6::encode_for(self.v6, ip, port),
            None => ipv6::encode_for(self.v6, self.any_addr(), 0),
        })
    }

    fn peer_name(&self) -> Result<Vec<u8>> {
        match self.inner.lock().peer {
            Some((ip, port)) => Ok(ipv6::encode_for(self.v6, ip, port)),
            None => Err(Errno::ENOTCONN),
        }
    }

    fn send(&self, msg: &mut Outgoing<'_>) -> Result<usize> {
        if msg.flags & netabi::MSG_OOB != 0 {
            return Err(Errno::EOPNOTSUPP);
        }
        let target = match &msg.addr {
            Some(raw) => ipv6::parse_dest(self.v6, self.inner.lock().ip6.v6only, raw)?,
            None => None,
        };
        let len = msg.data.remaining();
        if len > MAX_PAYLOAD {
            return Err(Errno::EMSGSIZE);
        }
        // Stage the datagram before taking the stack's lock.
        let data = msg.data.take(len)?;
        let (_, timeout) = (self.options.get().rcvtimeo_ns, self.options.get().sndtimeo_ns);
        wait_for(&self.events.waiters, msg.nonblocking, timeout, || {
            stack::with_stack_in(&self.net, |st| {
                let mut s = self.inner.lock();
                if s.shutdown & SEND_SHUTDOWN != 0 {
                    return Err(Errno::EPIPE);
                }
                let (ip, port) = match target.or(s.peer) {
                    Some(t) => t,
                    None => return Err(Errno::EDESTADDRREQ),
                };
                let (dest, source) = ipv6::route_any(st, ip)?;
                if s.bound.is_none() {
                    let any = self.any_addr();
                    self.bind_to(st, &mut s, any, 0)?;
                }
                let bound_ip = s.bound.unwrap().0;
                let h = s.handle.unwrap();
                let sock = st.sockets.get_mut::<sudp::Socket>(h);
                let meta = sudp::UdpMetadata {
                    endpoint: IpEndpoint { addr: dest, port },
                    local_address: Some(if bound_ip.is_unspecified() { source } else { bound_ip }),
                    meta: Default::default(),
                };
                match sock.send_slice(&data, meta) {
                    Ok(()) => Ok(Some(data.len())),
                    Err(sudp::SendError::BufferFull) => Ok(None),
                    Err(sudp::SendError::Unaddressable) => Err(Errno::EINVAL),
                }
            })
        })
    }

    fn recv(&self, sink: &mut Sink<'_>, flags: u32, nonblocking: bool) -> Result<Incoming> {
        if flags & netabi::MSG_OOB != 0 {
            return Err(Errno::EOPNOTSUPP);
        }
        let timeout = self.options.get().rcvtimeo_ns;
        let peek = flags & netabi::MSG_PEEK != 0;
        let room = sink.room();
        let (data, full, from, dst) = wait_for(&self.events.waiters, nonblocking, timeout, || {
            stack::with_stack_in(&self.net, |st| {
                let mut s = self.inner.lock();
                if let Some(e) = s.error.take() {
                    return Err(e);
                }
                if self.refused.swap(false, Ordering::AcqRel) {
                    return Err(Errno::ECONNREFUSED);
                }
                let peer = s.peer;
                let v6only = s.ip6.v6only;
                let local_port = s.bound.map_or(0, |b| b.1);
                let got = s.handle.and_then(|h| {
                    let sock = st.sockets.get_mut::<sudp::Socket>(h);
                    self.filter(sock, peer, v6only, local_port);
                    let (payload, meta) = if peek { sock.peek().map(|(p, m)| (p, *m)).ok()? } else { sock.recv().ok()? };
                    // What the filter kept is the datagram.
                    let payload = &payload[..self.filter_keeps(payload, meta.endpoint.port, local_port).unwrap_or(0)];
                    let n = payload.len().min(room);
                    Some((payload[..n].to_vec(), payload.len(), meta.endpoint, meta.local_address))
                });
                if got.is_some() {
                    return Ok(got);
                }
                if s.shutdown & RCV_SHUTDOWN != 0 {
                    return Ok(Some((Vec::new(), 0, IpEndpoint { addr: IpAddress::Ipv4(Ipv4Address::UNSPECIFIED), port: 0 }, None)));
                }
                Ok(None)
            })
        })?;
        sink.put(&data)?;
        let truncated = full > data.len();
        let from = if from.port == 0 && full == 0 && data.is_empty() && self.inner.lock().shutdown & RCV_SHUTDOWN != 0 { None } else { Some(ipv6::encode_for(self.v6, from.addr, from.port)) };
        // IPV6_RECVPKTINFO: the datagram's destination and the interface
        // it came in on (ip6_datagram_recv_ctl; IPv4 ones mapped).
        let mut control = Vec::new();
        if self.v6 && self.inner.lock().ip6.recvpktinfo {
            if let (Some(dst), Some(_)) = (dst, from.as_ref()) {
                control.push((netabi::SOL_IPV6, netabi::IPV6_PKTINFO, ipv6::pktinfo(dst)));
            }
        }
        Ok(Incoming {
            len: if flags & netabi::MSG_TRUNC != 0 { full } else { data.len() },
            msg_flags: if truncated { netabi::MSG_TRUNC } else { 0 },
            from,
            control,
            ..Default::default()
        })
    }

    fn shutdown(&self, how: u32) -> Result<()> {
        if how > 2 {
            return Err(Errno::EINVAL);
        }
        let r = {
            let mut s = self.inner.lock();
            s.shutdown |= how as u8 + 1;
            // An unconnected datagram socket is in TCP_CLOSE to Linux.
            if s.peer.is_none() {
                Err(Errno::ENOTCONN)
            } else {
                Ok(())
            }
        };
        self.events.fetch_add(1, Ordering::Relaxed);
        self.events.wake();
        r
    }

    fn poll(&self) -> PollEvents {
        stack::look_at_stack_in(&self.net, |st| {
            let s = self.inner.lock();
            let peer = s.peer;
            let v6only = s.ip6.v6only;
            let local_port = s.bound.map_or(0, |b| b.1);
            let readable = s.handle.is_some_and(|h| {
                let sock = st.sockets.get_mut::<sudp::Socket>(h);
                self.filter(sock, peer, v6only, local_port);
                sock.can_recv()
            });
            let writable = s.handle.is_none_or(|h| st.sockets.get::<sudp::Socket>(h).can_send());
            let mut events = 0;
            if s.error.is_some() || self.refused.load(Ordering::Acquire) {
                events |= abi::POLLERR as PollEvents;
            }
            if s.shutdown == SHUTDOWN_MASK {
                events |= abi::POLLHUP as PollEvents;
            }
            if s.shutdown & RCV_SHUTDOWN != 0 {
                events |= (abi::POLLRDHUP | abi::POLLIN | abi::POLLRDNORM) as PollEvents;
            }
            if readable {
                events |= (abi::POLLIN | abi::POLLRDNORM) as PollEvents;
            }
            if writable {
                events |= (abi::POLLOUT | abi::POLLWRNORM | abi::POLLWRBAND) as PollEvents;
            }
            events
        })
    }

    fn poll_queue(&self) -> Option<&crate::fs::poll_queue::PollQueue> {
        Some(&self.events.queue)
    }

    fn poll_counts(&self) -> (u64, u64) {
        let n = self.events.load(Ordering::Relaxed);
        (n, n)
    }

    fn diag_destroy(&self, err: Errno) -> Result<()> {
        // udp_abort: the error, and the association dissolved
        // (__udp_disconnect); the port stays bound.
        stack::with_stack_in(&self.net, |st| {
            let mut s = self.inner.lock();
            s.error = Some(err);
            s.peer = None;
            s.source = None;
            if let Some(h) = s.handle {
                st.set_udp_peer(h, None);
            }
        });
        self.events.fetch_add(1, Ordering::Relaxed);
        self.events.wake();
        Ok(())
    }

    fn take_error(&self) -> Option<Errno> {
        let e = self.inner.lock().error.take();
        if e.is_none() && self.refused.swap(false, Ordering::AcqRel) {
            return Some(Errno::ECONNREFUSED);
        }
        e
    }

    fn set_error(&self, error: Errno) {
        self.inner.lock().error = Some(error);
    }

    fn peer_cred(&self) -> Ucred {
        Ucred::NONE
    }

    fn is_listening(&self) -> bool {
        false
    }

    fn unread_bytes(&self) -> Result<usize> {
        // FIONREAD on a UDP socket: the size of the next datagram.
        let h = self.inner.lock().handle;
        Ok(h.map_or(0, |h| stack::with_stack_in(&self.net, |st| st.sockets.get_mut::<sudp::Socket>(h).peek().map_or(0, |(p, _)| p.len()))))
    }

    fn check_option_level(&self, level: i32) -> Result<()> {
        if level as u32 == netabi::SOL_UDP || level as u32 == netabi::SOL_IP || (self.v6 && level as u32 == netabi::SOL_IPV6) { Ok(()) } else { Err(Errno::ENOPROTOOPT) }
    }

    fn set_protocol_option(&self, level: i32, name: u32, raw: &[u8]) -> Result<()> {
        match level as u32 {
            netabi::SOL_IP => super::set_ip_option(&mut self.inner.lock().ip, name, raw),
            netabi::SOL_IPV6 if self.v6 => {
                let mut s = self.inner.lock();
                let bound = s.bound.is_some();
                ipv6::set_option(&mut s.ip6, name, raw, bound, false)
            }
            netabi::SOL_UDP => Err(Errno::ENOPROTOOPT),
            // Linux hands other levels to ip_setsockopt, which knows only
            // SOL_IP.
            _ => Err(Errno::ENOPROTOOPT),
        }
    }

    fn get_protocol_option(&self, level: i32, name: u32) -> Result<Vec<u8>> {
        match level as u32 {
            netabi::SOL_IP => super::get_ip_option(&self.inner.lock().ip, name),
            netabi::SOL_IPV6 if self.v6 => ipv6::get_option(&self.inner.lock().ip6, name),
            netabi::SOL_UDP => Err(Errno::ENOPROTOOPT),
            // ip_getsockopt answers other levels with EOPNOTSUPP.
            _ => Err(Errno::EOPNOTSUPP),
        }
    }

    fn release(&self) {
        stack::with_stack_in(&self.net, |st| {
            let mut s = self.inner.lock();
            if let Some(h) = s.handle.take() {
                st.remove_udp(h);
            }
            if let Some((_, _, id)) = s.bound.take() {
                st.release_port(id);
            }
        });
    }
}
