//! TCP sockets (SOCK_STREAM over AF_INET) with Linux's semantics on top
//! of smoltcp's TCP: listen queues with a backlog, blocking and
//! non-blocking connect (EINPROGRESS, then SO_ERROR), ECONNREFUSED,
//! ECONNRESET and EPIPE from resets, shutdown, EOF on FIN, SIGPIPE, and
//! tcp_poll's readiness bits.
//!
//! Data is staged through kernel buffers: the stack's lock is never held
//! while user memory is read or written.

use super::stack::SockEvents;
use alloc::sync::Arc;
use alloc::vec;
use alloc::vec::Vec;
use core::sync::atomic::Ordering;

use kevlar_platform::sync::SpinLock;
use linux_raw_sys::net as netabi;
use super::sockets::SocketHandle;
use smoltcp::socket::tcp::{self as stcp, State as S};
use smoltcp::wire::{IpAddress, IpEndpoint, Ipv4Address};

use super::stack::{self, Proto, Stack};
use crate::ns::net::NetNs;
use super::ipv6::{self, Ipv6Options, PortAddr};
use super::{IpOptions, IPPROTO_TCP};
use crate::error::{Errno, Result};
use crate::fs::file::{PollEvents, POLLERR, POLLHUP, POLLIN, POLLOUT, POLLRDHUP, POLLRDNORM, POLLWRNORM};
use crate::net::{raise_sigpipe, wait_for, Incoming, Outgoing, Sink, Socket, SocketOptions, Ucred};
use crate::process::Thread;

const RCV_SHUTDOWN: u8 = 1;
const SEND_SHUTDOWN: u8 = 2;
const SHUTDOWN_MASK: u8 = 3;
/// A new TCP socket's SO_SNDBUF and SO_RCVBUF (Linux's tcp_wmem and
/// tcp_rmem defaults; smoltcp's buffers are TCP_BUFFER whatever these say).
const DEFAULT_SNDBUF: usize = 16384;
const DEFAULT_RCVBUF: usize = 131072;
/// The most bytes one step of a receive or send stages.
const CHUNK: usize = stack::TCP_BUFFER;


#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Phase {
    /// Not connected (new, bound, or after a failed connect).
    Closed,
    /// listen() was called: the stack's listener id.
    Listening(u64),
    /// connect() started (or finished: the connection's state tells).
    Connecting(SocketHandle),
    /// Connected (connect() reported success, or accepted).
    Connected(SocketHandle),
}

struct Inner {
    phase: Phase,
    /// The bound address and port, and the binding's id (None for
    /// accepted sockets, which share their listener's port).
    bound: Option<(IpAddress, u16, Option<u64>)>,
    /// The port was bound by connect or listen, not by bind (a failed
    /// connect gives it back, as Linux does for an autobound port).
    autobound: bool,
    /// shutdown() bits the user asked for.
    shutdown: u8,
    /// An error for SO_ERROR that belongs to no connection.
    error: Option<Errno>,
    /// TCP_NODELAY.
    nodelay: bool,
    /// TCP_CORK: small segments are held (Nagle's rule) until uncorked.
    cork: bool,
    /// TCP_KEEPIDLE, TCP_KEEPINTVL, TCP_KEEPCNT.
    keepalive: KeepAlive,
    /// SOL_IP options.
    ip: IpOptions,
    /// SOL_IPV6 options (AF_INET6).
    ip6: Ipv6Options,
}

/// When a connection with SO_KEEPALIVE probes its peer: after `idle`
/// seconds without traffic, every `interval` seconds after that, and gives
/// up after `count` unanswered probes (Linux's defaults are the
/// tcp_keepalive_time, _intvl and _probes sysctls: 7200, 75, 9).
#[derive(Clone, Copy)]
struct KeepAlive {
    idle: u32,
    interval: u32,
    count: u32,
}

impl KeepAlive {
    const DEFAULT: KeepAlive = KeepAlive { idle: 7200, interval: 75, count: 9 };
    /// Linux's MAX_TCP_KEEPIDLE and MAX_TCP_KEEPINTVL.
    const MAX_TIME: u32 = 32767;
    /// Linux's MAX_TCP_KEEPCNT.
    const MAX_COUNT: u32 = 127;

    /// Applies the timers to smoltcp's connection: a keep-alive segment
    /// after `idle` seconds of silence (smoltcp repeats it at that
    /// interval), and the connection aborted when nothing has come back
    /// for the idle time plus every probe's interval.
    fn apply(self, on: bool, socket: &mut stcp::Socket) {
        if on {
            let secs = |s: u32| smoltcp::time::Duration::from_secs(u64::from(s));
            socket.set_keep_alive(Some(secs(self.idle)));
            socket.set_timeout(Some(secs(self.idle) + secs(self.interval) * self.count));
        } else {
            socket.set_keep_alive(None);
            socket.set_timeout(None);
        }
    }
}

/// A TCP socket.
pub struct TcpSocket {
    /// AF_INET6 (else AF_INET).
    v6: bool,
    inner: SpinLock<Inner>,
    options: SocketOptions,
    /// Bumped by the stack when this socket's state or queues change.
    events: Arc<SockEvents>,
    /// The network namespace it was made in (for life).
    net: Arc<NetNs>,
}

impl TcpSocket {
    /// Creates an unbound, unconnected socket.
    pub fn new(v6: bool) -> Arc<TcpSocket> {
        let socket = Self::with(crate::ns::net::current(), v6, Phase::Closed, None, SockEvents::new());
        // tcp_init_sock starts from net.ipv4.tcp_wmem[1] and tcp_rmem[1].
        let mut o = socket.options.get();
        o.sndbuf = DEFAULT_SNDBUF;
        o.rcvbuf = DEFAULT_RCVBUF;
        socket.options.set_all(o);
        // The keep-alive timers start from the namespace's tcp_keepalive_*.
        let (idle, interval, count) = socket.net.sysctl.keepalive();
        socket.inner.lock().keepalive = KeepAlive { idle, interval, count };
        socket
    }

    fn with(net: Arc<NetNs>, v6: bool, phase: Phase, bound: Option<(IpAddress, u16, Option<u64>)>, events: Arc<SockEvents>) -> Arc<TcpSocket> {
        Arc::new(TcpSocket {
            v6,
            inner: SpinLock::new(Inner { phase, bound, autobound: false, shutdown: 0, error: None, nodelay: false, cork: false, keepalive: KeepAlive::DEFAULT, ip: IpOptions::default(), ip6: Ipv6Options::default() }),
            options: SocketOptions::default(),
            events,
            net,
        })
    }

    fn timeouts(&self) -> (Option<u64>, Option<u64>) {
        let o = self.options.get();
        (o.rcvtimeo_ns, o.sndtimeo_ns)
    }

    /// Binds an ephemeral port if none is bound (connect, listen).
    fn autobind(&self, st: &mut Stack, s: &mut Inner) -> Result<()> {
        if s.bound.is_none() {
            let reuse = self.options.get().reuseaddr;
            let any = self.any_addr();
            let (port, id) = st.bind_port(Proto::Tcp, PortAddr::of(any, s.ip6.v6only), 0, reuse)?;
            s.bound = Some((any, port, Some(id)));
            s.autobound = true;
        }
        Ok(())
    }

    /// The family's wildcard address (0.0.0.0 or `::`).
    fn any_addr(&self) -> IpAddress {
        if self.v6 {
            IpAddress::Ipv6(smoltcp::wire::Ipv6Address::UNSPECIFIED)
        } else {
            IpAddress::Ipv4(Ipv4Address::UNSPECIFIED)
        }
    }

    /// Forgets a connection that failed to connect; gives back an
    /// autobound port.
    fn drop_connection(st: &mut Stack, s: &mut Inner, handle: SocketHandle) {
        st.forget_conn(handle);
        st.sockets.remove(handle);
        s.phase = Phase::Closed;
        if s.autobound {
            if let Some((_, _, Some(id))) = s.bound.take() {
                st.release_port(id);
            }
            s.autobound = false;
        }
    }

    /// Where a connect stands: Some(result) when it ended.
    fn connect_outcome(st: &mut Stack, s: &mut Inner, handle: SocketHandle) -> Option<Result<()>> {
        match st.sockets.get::<stcp::Socket>(handle).state() {
            S::SynSent | S::SynReceived => None,
            S::Closed => {
                let err = st.conns.get_mut(&handle).and_then(|c| c.error.take()).unwrap_or(Errno::ECONNREFUSED);
                Self::drop_connection(st, s, handle);
                Some(Err(err))
            }
            _ => {
                s.phase = Phase::Connected(handle);
                Some(Ok(()))
            }
        }
    }

    /// The connection's handle, if there is one.
    /// Applies SO_KEEPALIVE and the TCP_KEEP* times to the connection, if
    /// there is one.
    fn apply_keepalive(&self) {
        let on = self.options.get().keepalive;
        let keep = self.inner.lock().keepalive;
        if let Some(h) = self.handle() {
            stack::with_stack_in(&self.net, |st| keep.apply(on, st.sockets.get_mut::<stcp::Socket>(h)));
        }
    }

    /// Gives the stack this socket's filter (`tcpfilter.rs`) for its
    /// connection or listener.
    fn sync_filter(&self) {
        let filter = self.options.filter.current();
        stack::with_stack_in(&self.net, |st| {
            let s = self.inner.lock();
            match s.phase {
                Phase::Connecting(h) | Phase::Connected(h) => st.tcp_filters.set_conn(h, filter),
                Phase::Listening(id) => st.tcp_filters.set_listener(id, s.bound.map_or(0, |b| b.1), filter),
                _ => {}
            }
        });
    }

    fn handle(&self) -> Option<SocketHandle> {
        match self.inner.lock().phase {
            Phase::Connecting(h) | Phase::Connected(h) => Some(h),
            _ => None,
        }
    }

    /// Sends staged bytes, waiting for room; returns how many went.
    fn push(&self, data: &[u8], nonblocking: bool, timeout: Option<u64>) -> Result<usize> {
        let mut done = 0;
        while done < data.len() {
            let step = wait_for(&self.events.waiters, nonblocking, timeout, || {
                stack::with_stack_in(&self.net, |st| {
                    let s = self.inner.lock();
                    let h = match s.phase {
                        Phase::Connecting(h) | Phase::Connected(h) => h,
                        _ => return Err(Errno::EPIPE),
                    };
                    if let Some(e) = st.conns.get_mut(&h).and_then(|c| c.error.take()) {
                        return Err(e);
                    }
                    if s.shutdown & SEND_SHUTDOWN != 0 {
                        return Err(Errno::EPIPE);
                    }
                    match st.sockets.get::<stcp::Socket>(h).state() {
                        S::SynSent | S::SynReceived => return Ok(None),
                        S::Established | S::CloseWait => {}
                        _ => return Err(Errno::EPIPE),
                    }
                    if s.cork && st.hold(h, &data[done..]) {
                        return Ok(Some(data.len() - done));
                    }
                    match st.sockets.get_mut::<stcp::Socket>(h).send_slice(&data[done..]) {
                        Ok(0) => Ok(None),
                        Ok(n) => {
                            st.note_local(h);
                            st.note_sent(h);
                            Ok(Some(n))
                        }
                        Err(_) => Err(Errno::EPIPE),
                    }
                })
            });
            match step {
                Ok(n) => done += n,
                Err(_) if done > 0 => break,
                Err(e) => return Err(e),
            }
        }
        Ok(done)
    }
}

impl Socket for TcpSocket {
    fn family(&self) -> u32 {
        if self.v6 {
            netabi::AF_INET6
        } else {
            netabi::AF_INET
        }
    }

    fn sock_type(&self) -> u32 {
        netabi::SOCK_STREAM
    }

    fn protocol(&self) -> u32 {
        IPPROTO_TCP
    }

    fn socket_option_set(&self, name: u32) {
        if name == netabi::SO_KEEPALIVE {
            self.apply_keepalive();
        }
        if name == netabi::SO_ATTACH_FILTER || name == netabi::SO_DETACH_FILTER {
            self.sync_filter();
        }
    }

    fn runs_filters(&self) -> bool {
        true
    }

    fn options(&self) -> &SocketOptions {
        &self.options
    }

    fn bind(&self, thread: &Thread, addr: &[u8]) -> Result<()> {
        let v6only = self.inner.lock().ip6.v6only;
        let (ip, port) = super::parse_bind(thread, self.v6, v6only, addr)?;
        let reuse = self.options.get().reuseaddr;
        stack::with_stack_in(&self.net, |st| {
            let mut s = self.inner.lock();
            if s.bound.is_some() || s.phase != Phase::Closed {
                return Err(Errno::EINVAL);
            }
            let (port, id) = st.bind_port(Proto::Tcp, PortAddr::of(ip, s.ip6.v6only), port, reuse)?;
            s.bound = Some((ip, port, Some(id)));
            s.autobound = false;
            Ok(())
        })
    }

    fn listen(&self, backlog: usize) -> Result<()> {
        stack::with_stack_in(&self.net, |st| {
            let mut s = self.inner.lock();
            match s.phase {
                Phase::Listening(id) => {
                    if let Some(l) = st.listeners.get_mut(&id) {
                        l.backlog = backlog;
                    }
                    return Ok(());
                }
                Phase::Closed => {}
                _ => return Err(Errno::EINVAL),
            }
            self.autobind(st, &mut s)?;
            let (ip, port, id) = s.bound.unwrap();
            if let Some(id) = id {
                st.listen_port(id)?;
            }
            let lid = st.add_listener(PortAddr::of(ip, s.ip6.v6only), port, backlog, self.events.clone(), s.nodelay);
            s.phase = Phase::Listening(lid);
            if let Some(filter) = self.options.filter.current() {
                st.tcp_filters.set_listener(lid, port, Some(filter));
            }
            Ok(())
        })
    }

    fn accept(&self, nonblocking: bool) -> Result<Arc<dyn Socket>> {
        let (timeout, _) = self.timeouts();
        let lid = match self.inner.lock().phase {
            Phase::Listening(id) => id,
            _ => return Err(Errno::EINVAL),
        };
        let events = SockEvents::new();
        let (nodelay, ip6, keepalive) = {
            let s = self.inner.lock();
            (s.nodelay, s.ip6, s.keepalive)
        };
        let socket = wait_for(&self.events.waiters, nonblocking, timeout, || {
            stack::with_stack_in(&self.net, |st| {
                if !matches!(self.inner.lock().phase, Phase::Listening(id) if id == lid) {
                    return Err(Errno::EINVAL);
                }
                // Taken and tracked under one lock, so no change of the
                // connection's state goes unseen.
                let Some(handle) = st.take_ready(lid) else { return Ok(None) };
                st.track(handle, events.clone());
                let local = st.sockets.get::<stcp::Socket>(handle).local_endpoint();
                let bound = local.map(|e| (e.addr, e.port, None));
                Ok(Some(TcpSocket::with(self.net.clone(), self.v6, Phase::Connected(handle), bound, events.clone())))
            })
        })?;
        // Accepted sockets inherit the listener's options and filter
        // (sk_clone_lock).
        socket.options.set_all(self.options.get());
        socket.options.filter.copy_from(&self.options.filter);
        if socket.options.filter.current().is_some() {
            socket.sync_filter();
        }
        socket.inner.lock().nodelay = nodelay;
        socket.inner.lock().ip6 = ip6;
        socket.inner.lock().keepalive = keepalive;
        socket.apply_keepalive();
        Ok(socket)
    }

    fn connect(&self, _thread: &Thread, addr: &[u8], nonblocking: bool) -> Result<()> {
        let v6only = self.inner.lock().ip6.v6only;
        let Some((ip, port)) = super::parse_connect(self.v6, v6only, false, addr)? else {
            // AF_UNSPEC disconnects; only an unconnected socket is
            // supported here (tcp_disconnect of a live connection is not).
            return match self.inner.lock().phase {
                Phase::Closed => Ok(()),
                _ => Err(Errno::EOPNOTSUPP),
            };
        };
        let (_, sndtimeo) = self.timeouts();
        let handle = stack::with_stack_in(&self.net, |st| -> Result<Option<SocketHandle>> {
            let mut s = self.inner.lock();
            match s.phase {
                Phase::Connected(_) | Phase::Listening(_) => return Err(Errno::EISCONN),
                Phase::Connecting(h) => {
                    return match Self::connect_outcome(st, &mut s, h) {
                        None if nonblocking => Err(Errno::EALREADY),
                        None => Ok(Some(h)),
                        Some(r) => r.map(|_| None),
                    };
                }
                Phase::Closed => {}
            }
            let (dest, source) = ipv6::route_any(st, ip)?;
            self.autobind(st, &mut s)?;
            let (local_ip, local_port, _) = s.bound.unwrap();
            let handle = st.new_tcp(s.nodelay);
            s.keepalive.apply(self.options.get().keepalive, st.sockets.get_mut::<stcp::Socket>(handle));
            let local = IpEndpoint { addr: if local_ip.is_unspecified() { source } else { local_ip }, port: local_port };
            let remote = IpEndpoint { addr: dest, port };
            if st.sockets.get_mut::<stcp::Socket>(handle).connect(st.iface.context(), remote, local).is_err() {
                st.sockets.remove(handle);
                return Err(Errno::EINVAL);
            }
            st.track(handle, self.events.clone());
            if let Some(filter) = self.options.filter.current() {
                st.tcp_filters.set_conn(handle, Some(filter));
            }
            s.phase = Phase::Connecting(handle);
            Ok(Some(handle))
        })?;
        let Some(handle) = handle else { return Ok(()) };
        if nonblocking {
            // Linux never completes a connect inside the call, even on
            // loopback: the outcome is for poll and SO_ERROR.
            return Err(Errno::EINPROGRESS);
        }
        let r = wait_for(&self.events.waiters, false, sndtimeo, || {
            stack::with_stack_in(&self.net, |st| {
                let mut s = self.inner.lock();
                if s.phase != Phase::Connecting(handle) {
                    return Ok(Some(Ok(())));
                }
                Ok(Self::connect_outcome(st, &mut s, handle))
            })
        });
        match r {
            Ok(result) => result,
            // A timed-out connect goes on in the background (EINPROGRESS).
            Err(Errno::EAGAIN) => Err(Errno::EINPROGRESS),
            Err(e) => Err(e),
        }
    }

    fn local_name(&self) -> Result<Vec<u8>> {
        let handle = self.handle();
        if let Some(h) = handle {
            let local = stack::with_stack_in(&self.net, |st| st.sockets.get::<stcp::Socket>(h).local_endpoint());
            if let Some(e) = local {
                return Ok(ipv6::encode_for(self.v6, e.addr, e.port));
            }
        }
        let s = self.inner.lock();
        Ok(match s.bound {
            Some((ip, port, _)) => ipv6::encode_for(self.v6, ip, port),
            None => ipv6::encode_for(self.v6, self.any_addr(), 0),
        })
    }

    fn peer_name(&self) -> Result<Vec<u8>> {
        let (h, connecting) = match self.inner.lock().phase {
            Phase::Connected(h) => (h, false),
            // A non-blocking connect that ended is connected whether or
            // not the program called connect again to learn it (Linux
            // answers by the socket's state, ENOTCONN in SYN_SENT and
            // CLOSE only).
            Phase::Connecting(h) => (h, true),
            _ => return Err(Errno::ENOTCONN),
        };
        stack::with_stack_in(&self.net, |st| {
            let c = st.conns.get(&h);
            if c.is_some_and(|c| c.reset) {
                return Err(Errno::ENOTCONN);
            }
            if connecting && matches!(st.sockets.get::<stcp::Socket>(h).state(), S::SynSent | S::SynReceived | S::Closed) {
                return Err(Errno::ENOTCONN);
            }
            match st.sockets.get::<stcp::Socket>(h).remote_endpoint() {
                Some(e) => Ok(ipv6::encode_for(self.v6, e.addr, e.port)),
                None => Err(Errno::ENOTCONN),
            }
        })
    }

    fn send(&self, msg: &mut Outgoing<'_>) -> Result<usize> {
        if msg.flags & netabi::MSG_OOB != 0 {
            return Err(Errno::EOPNOTSUPP);
        }
        let (_, timeout) = self.timeouts();
        let nosignal = msg.flags & netabi::MSG_NOSIGNAL != 0;
        let mut sent = 0;
        let result = loop {
            let left = msg.data.remaining();
            if left == 0 && sent > 0 {
                break Ok(sent);
            }
            let chunk = match msg.data.take(left.min(CHUNK)) {
                Ok(c) => c,
                Err(_) if sent > 0 => break Ok(sent),
                Err(e) => break Err(e),
            };
            if chunk.is_empty() {
                // A zero-length send still reports the connection's state.
                let r = stack::with_stack_in(&self.net, |st| {
                    let s = self.inner.lock();
                    match s.phase {
                        Phase::Connecting(h) | Phase::Connected(h) => {
                            if let Some(e) = st.conns.get_mut(&h).and_then(|c| c.error.take()) {
                                return Err(e);
                            }
                            let state = st.sockets.get::<stcp::Socket>(h).state();
                            if s.shutdown & SEND_SHUTDOWN != 0 || !matches!(state, S::Established | S::CloseWait | S::SynSent | S::SynReceived) {
                                return Err(Errno::EPIPE);
                            }
                            Ok(0)
                        }
                        _ => Err(Errno::EPIPE),
                    }
                });
                break r;
            }
            match self.push(&chunk, msg.nonblocking, timeout) {
                Ok(n) => {
                    sent += n;
                    if n < chunk.len() {
                        break Ok(sent);
                    }
                }
                Err(e) if sent > 0 => {
                    let _ = e;
                    break Ok(sent);
                }
                Err(e) => break Err(e),
            }
        };
        if result == Err(Errno::EPIPE) && !nosignal {
            raise_sigpipe();
        }
        result
    }

    fn recv(&self, sink: &mut Sink<'_>, flags: u32, nonblocking: bool) -> Result<Incoming> {
        if flags & netabi::MSG_OOB != 0 {
            return Err(Errno::EINVAL);
        }
        let (timeout, _) = self.timeouts();
        let peek = flags & netabi::MSG_PEEK != 0;
        let discard = flags & netabi::MSG_TRUNC != 0;
        let waitall = flags & netabi::MSG_WAITALL != 0 && !peek;
        let mut got = 0;
        let want = sink.room();
        loop {
            let room = want - got;
            let step = wait_for(&self.events.waiters, nonblocking, timeout, || {
                stack::with_stack_in(&self.net, |st| {
                    let s = self.inner.lock();
                    let h = match s.phase {
                        Phase::Connecting(h) | Phase::Connected(h) => h,
                        _ => return Err(Errno::ENOTCONN),
                    };
                    let sock = st.sockets.get_mut::<stcp::Socket>(h);
                    if sock.recv_queue() > 0 && room > 0 {
                        let n = room.min(CHUNK).min(sock.recv_queue());
                        let mut buf = vec![0u8; n];
                        let n = if peek { sock.peek_slice(&mut buf) } else { sock.recv_slice(&mut buf) }.unwrap_or(0);
                        buf.truncate(n);
                        st.note_local(h);
                        return Ok(Some(buf));
                    }
                    if room == 0 {
                        return Ok(Some(Vec::new()));
                    }
                    if let Some(e) = st.conns.get_mut(&h).and_then(|c| c.error.take()) {
                        // EPIPE (a reset after the peer's FIN) reads as
                        // EOF; the error stays for the next write.
                        if e == Errno::EPIPE {
                            if let Some(c) = st.conns.get_mut(&h) {
                                c.error = Some(e);
                            }
                            return Ok(Some(Vec::new()));
                        }
                        return Err(e);
                    }
                    if s.shutdown & RCV_SHUTDOWN != 0 {
                        return Ok(Some(Vec::new()));
                    }
                    let sock = st.sockets.get::<stcp::Socket>(h);
                    match sock.state() {
                        S::SynSent | S::SynReceived => Ok(None),
                        _ if !sock.may_recv() => Ok(Some(Vec::new())),
                        _ => Ok(None),
                    }
                })
            });
            let data = match step {
                Ok(d) => d,
                Err(_) if got > 0 => break,
                Err(e) => return Err(e),
            };
            if data.is_empty() {
                break;
            }
            if !discard {
                sink.put(&data)?;
            }
            got += data.len();
            if !waitall || got >= want {
                break;
            }
        }
        // A read that opens the window lets the update go out in the pump
        // that follows it (`with_stack` above): no second pump.
        Ok(Incoming { len: got, ..Default::default() })
    }

    fn shutdown(&self, how: u32) -> Result<()> {
        if how > 2 {
            return Err(Errno::EINVAL);
        }
        let mode = how as u8 + 1;
        let r = stack::with_stack_in(&self.net, |st| {
            let mut s = self.inner.lock();
            match s.phase {
                Phase::Connecting(h) | Phase::Connected(h) => {
                    s.shutdown |= mode;
                    if mode & SEND_SHUTDOWN != 0 {
                        st.release_held(h);
                        st.sockets.get_mut::<stcp::Socket>(h).close();
                        st.mark(h);
                    }
                    self.events.fetch_add(1, Ordering::Relaxed);
                    Ok(())
                }
                Phase::Listening(id) if mode & RCV_SHUTDOWN != 0 => {
                    // Linux disconnects a listener shut for reading: its
                    // queue is reset, and accept fails with EINVAL.
                    st.remove_listener(id);
                    s.phase = Phase::Closed;
                    Ok(())
                }
                Phase::Listening(_) => Ok(()),
                Phase::Closed => {
                    // Linux sets the bits anyway (pollers see POLLHUP).
                    s.shutdown |= mode;
                    Err(Errno::ENOTCONN)
                }
            }
        });
        self.events.wake();
        r
    }

    fn poll(&self) -> PollEvents {
        stack::look_at_stack_in(&self.net, |st| {
            let s = self.inner.lock();
            let h = match s.phase {
                Phase::Listening(id) => {
                    return match st.listeners.get(&id) {
                        Some(l) if !l.ready.is_empty() => POLLIN | POLLRDNORM,
                        _ => 0,
                    };
                }
                Phase::Connecting(h) | Phase::Connected(h) => Some(h),
                Phase::Closed => None,
            };
            let mut shutdown = s.shutdown;
            let mut error = s.error.is_some();
            let (state, readable, writable) = match h {
                Some(h) => {
                    let sock = st.sockets.get::<stcp::Socket>(h);
                    let c = st.conns.get(&h);
                    error |= c.is_some_and(|c| c.error.is_some());
                    let state = sock.state();
                    match state {
                        S::CloseWait | S::LastAck | S::Closing | S::TimeWait => shutdown |= RCV_SHUTDOWN,
                        // tcp_done: a connection that ended is shut both ways.
                        S::Closed => shutdown |= SHUTDOWN_MASK,
                        _ => {}
                    }
                    let held = c.map_or(0, |c| c.held.len());
                    (state, sock.recv_queue() > 0, sock.send_queue() + held < sock.send_capacity())
                }
                None => (S::Closed, false, true),
            };
            let mut events = 0;
            if shutdown == SHUTDOWN_MASK || state == S::Closed {
                events |= POLLHUP;
            }
            if shutdown & RCV_SHUTDOWN != 0 {
                events |= POLLIN | POLLRDNORM | POLLRDHUP;
            }
            if !matches!(state, S::SynSent | S::SynReceived) {
                if readable {
                    events |= POLLIN | POLLRDNORM;
                }
                if shutdown & SEND_SHUTDOWN != 0 || writable {
                    events |= POLLOUT | POLLWRNORM;
                }
            }
            if error {
                events |= POLLERR;
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

    fn take_error(&self) -> Option<Errno> {
        let h = self.handle();
        stack::with_stack_in(&self.net, |st| {
            let mut s = self.inner.lock();
            if let Some(e) = s.error.take() {
                return Some(e);
            }
            let h = h?;
            let e = st.conns.get_mut(&h).and_then(|c| c.error.take());
            // A failed connect reported through SO_ERROR leaves the socket
            // unconnected, ready for another connect.
            if e.is_some() && s.phase == Phase::Connecting(h) && st.sockets.get::<stcp::Socket>(h).state() == S::Closed {
                Self::drop_connection(st, &mut s, h);
            }
            e
        })
    }

    fn set_error(&self, error: Errno) {
        self.inner.lock().error = Some(error);
    }

    fn peer_cred(&self) -> Ucred {
        Ucred::NONE
    }

    fn is_listening(&self) -> bool {
        matches!(self.inner.lock().phase, Phase::Listening(_))
    }

    fn unread_bytes(&self) -> Result<usize> {
        match self.inner.lock().phase {
            Phase::Listening(_) => return Err(Errno::EINVAL),
            Phase::Closed => return Ok(0),
            _ => {}
        }
        let h = self.handle();
        Ok(h.map_or(0, |h| stack::with_stack_in(&self.net, |st| st.sockets.get::<stcp::Socket>(h).recv_queue())))
    }

    fn unsent_bytes(&self) -> usize {
        self.handle().map_or(0, |h| stack::with_stack_in(&self.net, |st| st.sockets.get::<stcp::Socket>(h).send_queue() + st.held_len(h)))
    }

    fn proc_entry(&self) -> Option<crate::net::procnet::Entry> {
        use crate::net::procnet::{state, Entry, InetEntry, Transport};
        let none = (self.any_addr(), 0);
        let entry = stack::look_at_stack_in(&self.net, |st| {
            let s = self.inner.lock();
            match s.phase {
                Phase::Closed => None,
                Phase::Listening(id) => {
                    let (ip, port, _) = s.bound?;
                    let (waiting, backlog) = st.listeners.get(&id).map_or((0, 0), |l| (l.ready.len(), l.backlog));
                    Some(InetEntry { v6: self.v6, transport: Transport::Tcp, local: (ip, port), remote: none, state: state::LISTEN, tx_queue: 0, rx_queue: waiting, backlog, shutdown: s.shutdown, v6only: s.ip6.v6only, port_locked: !s.autobound && matches!(s.bound, Some((_, _, Some(_)))) })
                }
                Phase::Connecting(h) | Phase::Connected(h) => {
                    let sock = st.sockets.get::<stcp::Socket>(h);
                    let code = match sock.state() {
                        S::Closed => return None,
                        S::Listen => state::LISTEN,
                        S::SynSent => state::SYN_SENT,
                        S::SynReceived => state::SYN_RECV,
                        S::Established => state::ESTABLISHED,
                        S::FinWait1 => state::FIN_WAIT1,
                        S::FinWait2 => state::FIN_WAIT2,
                        S::CloseWait => state::CLOSE_WAIT,
                        S::Closing => state::CLOSING,
                        S::LastAck => state::LAST_ACK,
                        S::TimeWait => state::TIME_WAIT,
                    };
                    let local = sock.local_endpoint().map_or_else(|| s.bound.map_or(none, |(ip, port, _)| (ip, port)), |e| (e.addr, e.port));
                    let remote = sock.remote_endpoint().map_or(none, |e| (e.addr, e.port));
                    // sk_shutdown: what the user asked for, and receiving
                    // ends once the peer's FIN came (tcp_fin).
                    let mut shutdown = s.shutdown;
                    if matches!(code, state::CLOSE_WAIT | state::LAST_ACK | state::CLOSING | state::TIME_WAIT) {
                        shutdown |= RCV_SHUTDOWN;
                    }
                    Some(InetEntry { v6: self.v6, transport: Transport::Tcp, local, remote, state: code, tx_queue: sock.send_queue(), rx_queue: sock.recv_queue(), backlog: 0, shutdown, v6only: s.ip6.v6only, port_locked: !s.autobound && matches!(s.bound, Some((_, _, Some(_)))) })
                }
            }
        })?;
        Some(Entry::Inet(self.net.inum, entry))
    }

    fn diag_destroy(&self, err: Errno) -> Result<()> {
        stack::with_stack_in(&self.net, |st| {
            let mut s = self.inner.lock();
            match s.phase {
                Phase::Listening(id) => {
                    // A listener stops listening (its queue is reset) and
                    // keeps its port.
                    st.remove_listener(id);
                    s.phase = Phase::Closed;
                    s.error = Some(err);
                }
                Phase::Connecting(h) | Phase::Connected(h) => st.abort_conn(h, err),
                Phase::Closed => {}
            }
            // tcp_done: shut both ways.
            s.shutdown = SHUTDOWN_MASK;
        });
        self.events.fetch_add(1, Ordering::Relaxed);
        self.events.wake();
        Ok(())
    }

    fn check_option_level(&self, level: i32) -> Result<()> {
        if level as u32 == netabi::SOL_TCP || level as u32 == netabi::SOL_IP || (self.v6 && level as u32 == netabi::SOL_IPV6) { Ok(()) } else { Err(Errno::ENOPROTOOPT) }
    }

    fn set_protocol_option(&self, level: i32, name: u32, raw: &[u8]) -> Result<()> {
        match level as u32 {
            netabi::SOL_TCP => match name {
                netabi::TCP_NODELAY | netabi::TCP_CORK => {
                    let on = super::option_int(raw)? != 0;
                    let h = self.handle();
                    stack::with_stack_in(&self.net, |st| {
                        let mut inner = self.inner.lock();
                        if name == netabi::TCP_NODELAY {
                            inner.nodelay = on;
                        } else {
                            inner.cork = on;
                        }
                        // Corked, small segments wait for a full one or an
                        // acknowledgement (uncorking sends what is held).
                        let nagle = inner.cork || !inner.nodelay;
                        if let Some(h) = h {
                            // Uncorking, or TCP_NODELAY set, sends what the
                            // cork held (Linux's tcp_push_pending_frames).
                            if on == (name == netabi::TCP_NODELAY) {
                                st.release_held(h);
                            }
                            st.sockets.get_mut::<stcp::Socket>(h).set_nagle_enabled(nagle);
                        }
                    });
                    Ok(())
                }
                netabi::TCP_KEEPIDLE | netabi::TCP_KEEPINTVL | netabi::TCP_KEEPCNT => {
                    let val = super::option_int(raw)?;
                    let max = if name == netabi::TCP_KEEPCNT { KeepAlive::MAX_COUNT } else { KeepAlive::MAX_TIME };
                    if val < 1 || val as u32 > max {
                        return Err(Errno::EINVAL);
                    }
                    {
                        let keep = &mut self.inner.lock().keepalive;
                        match name {
                            netabi::TCP_KEEPIDLE => keep.idle = val as u32,
                            netabi::TCP_KEEPINTVL => keep.interval = val as u32,
                            _ => keep.count = val as u32,
                        }
                    }
                    self.apply_keepalive();
                    Ok(())
                }
                _ => Err(Errno::ENOPROTOOPT),
            },
            netabi::SOL_IP => super::set_ip_option(&mut self.inner.lock().ip, name, raw),
            netabi::SOL_IPV6 if self.v6 => {
                let mut s = self.inner.lock();
                let bound = s.bound.is_some();
                ipv6::set_option(&mut s.ip6, name, raw, bound, true)
            }
            // Linux hands other levels to ip_setsockopt, which knows only
            // SOL_IP.
            _ => Err(Errno::ENOPROTOOPT),
        }
    }

    fn get_protocol_option(&self, level: i32, name: u32) -> Result<Vec<u8>> {
        match level as u32 {
            netabi::SOL_TCP => match name {
                netabi::TCP_NODELAY => Ok((self.inner.lock().nodelay as i32).to_le_bytes().to_vec()),
                netabi::TCP_CORK => Ok((self.inner.lock().cork as i32).to_le_bytes().to_vec()),
                netabi::TCP_KEEPIDLE => Ok((self.inner.lock().keepalive.idle as i32).to_le_bytes().to_vec()),
                netabi::TCP_KEEPINTVL => Ok((self.inner.lock().keepalive.interval as i32).to_le_bytes().to_vec()),
                netabi::TCP_KEEPCNT => Ok((self.inner.lock().keepalive.count as i32).to_le_bytes().to_vec()),
                _ => Err(Errno::ENOPROTOOPT),
            },
            netabi::SOL_IP => super::get_ip_option(&self.inner.lock().ip, name),
            netabi::SOL_IPV6 if self.v6 => ipv6::get_option(&self.inner.lock().ip6, name),
            // ip_getsockopt answers other levels with EOPNOTSUPP.
            _ => Err(Errno::EOPNOTSUPP),
        }
    }

    fn release(&self) {
        let (linger_abort, reuse) = {
            let o = self.options.get();
            (o.linger.0 && o.linger.1 == 0, o.reuseaddr)
        };
        stack::with_stack_in(&self.net, |st| {
            let mut s = self.inner.lock();
            let port_id = s.bound.and_then(|b| b.2);
            match s.phase {
                Phase::Listening(id) => {
                    st.remove_listener(id);
                    if let Some(id) = port_id {
                        st.release_port(id);
                    }
                }
                Phase::Connecting(h) | Phase::Connected(h) => {
                    // Closing sends what a cork held, ahead of the FIN.
                    if !linger_abort {
                        st.release_held(h);
                    }
                    st.orphan(h, port_id, linger_abort, reuse)
                }
                Phase::Closed => {
                    if let Some(id) = port_id {
                        st.release_port(id);
                    }
                }
            }
            s.phase = Phase::Closed;
            s.bound = None;
        });
        self.events.wake();
    }
}


