//! TCP_CORK's held bytes. Linux keeps a corked connection's partial
//! segment in its send queue until a full segment is there, the cork
//! comes off (or TCP_NODELAY is set), the socket is shut for writing or
//! closed, the writer has to wait for room, or 200 ms passed (tcp(7)'s
//! ceiling). smoltcp has no cork; Nagle's rule, the nearest it has, lets
//! a small segment go whenever nothing is in flight, so a response
//! written in two parts (nginx's header by writev, then its body by
//! sendfile, corked by `tcp_nopush`) left as two segments, each a pass
//! through both ends' stacks and a wake-up of the reader. The bytes wait
//! here instead, beside the connection, and reach smoltcp in one piece.
//!
//! Held bytes count against the send buffer (the room they take is kept
//! free in smoltcp's), so giving them to smoltcp never fails for room.

use alloc::vec::Vec;

use super::sockets::SocketHandle;
use smoltcp::socket::tcp;
use smoltcp::wire::IpAddress;

use super::stack::Stack;

/// How long corked bytes may wait (tcp(7): "a 200 millisecond ceiling").
const CORK_CEILING_NS: u64 = 200_000_000;

/// IPv4 and TCP headers without options, IPv6 and TCP headers.
const TCP_IPV4_HEADERS: usize = 40;
const TCP_IPV6_HEADERS: usize = 60;

/// The bytes a corked connection holds back.
#[derive(Default)]
pub struct Held {
    bytes: Vec<u8>,
    /// When they must go at the latest (monotonic ns), from the first byte.
    deadline: u64,
}

impl Held {
    /// How many bytes are held.
    pub fn len(&self) -> usize {
        self.bytes.len()
    }
}

impl Stack {
    /// The largest segment a connection sends: its route's MTU less the
    /// headers (lo's for local peers).
    fn segment_size(&self, h: SocketHandle) -> usize {
        let s = self.sockets.get::<tcp::Socket>(h);
        let Some(remote) = s.remote_endpoint() else { return 0 };
        let local = s.local_endpoint().map(|e| e.addr);
        let (is_local, headers) = match remote.addr {
            IpAddress::Ipv4(a) => (a.is_loopback() || Some(remote.addr) == local, TCP_IPV4_HEADERS),
            IpAddress::Ipv6(a) => (a.is_loopback() || Some(remote.addr) == local || a.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback()), TCP_IPV6_HEADERS),
        };
        let mtu = match &self.device.eth {
            Some(eth) if !is_local => eth.mtu,
            _ => self.lo_mtu.min(super::stack::LOOPBACK_MTU),
        };
        mtu.saturating_sub(headers)
    }

    /// Offers `data` to corked connection `h`: held (true) while it and
    /// what is held already make less than a segment and fit the send
    /// buffer's room. Otherwise the held bytes go to smoltcp, ahead of
    /// `data`, which the caller queues as usual (false).
    pub fn hold(&mut self, h: SocketHandle, data: &[u8]) -> bool {
        let mss = self.segment_size(h);
        let s = self.sockets.get::<tcp::Socket>(h);
        let free = s.send_capacity() - s.send_queue();
        let now = kevlar_platform::time::monotonic_ns();
        let Some(c) = self.conns.get_mut(&h) else { return false };
        if c.held.bytes.len() + data.len() < mss.min(free) {
            if c.held.bytes.is_empty() {
                c.held.deadline = now.saturating_add(CORK_CEILING_NS);
                self.held_conns.push(h);
            }
            c.held.bytes.extend_from_slice(data);
            return true;
        }
        self.release_held(h);
        false
    }

    /// Gives connection `h`'s held bytes to smoltcp (uncorked, shut for
    /// writing, closed, or past the ceiling).
    pub fn release_held(&mut self, h: SocketHandle) {
        let Some(c) = self.conns.get_mut(&h) else { return };
        if c.held.bytes.is_empty() {
            return;
        }
        let mut bytes = core::mem::take(&mut c.held.bytes);
        let s = self.sockets.get_mut::<tcp::Socket>(h);
        // Room was kept for them; a connection that can no longer send
        // (reset meanwhile) drops them, as Linux purges its queue.
        let _ = s.send_slice(&bytes);
        bytes.clear();
        if let Some(c) = self.conns.get_mut(&h) {
            c.held.bytes = bytes;
        }
        self.note_local(h);
        self.note_sent(h);
        self.mark(h);
    }

    /// How many bytes connection `h` holds back.
    pub fn held_len(&self, h: SocketHandle) -> usize {
        self.conns.get(&h).map_or(0, |c| c.held.len())
    }

    /// Releases the held bytes whose ceiling passed by `now`; returns the
    /// earliest deadline of those still held (u64::MAX: none).
    pub(super) fn release_expired_holds(&mut self, now: u64) -> u64 {
        let mut list = core::mem::take(&mut self.held_conns);
        let mut earliest = u64::MAX;
        list.retain(|&h| {
            let deadline = match self.conns.get(&h) {
                Some(c) if !c.held.bytes.is_empty() => c.held.deadline,
                _ => return false,
            };
            if deadline <= now {
                self.release_held(h);
                return false;
            }
            earliest = earliest.min(deadline);
            true
        });
        // A handle is listed once: `hold` adds it only when its held bytes
        // were empty, and release_held never adds to the list.
        self.held_conns = list;
        earliest
    }
}
