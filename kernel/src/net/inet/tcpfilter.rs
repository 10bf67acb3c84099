//! Socket filters (SO_ATTACH_FILTER) on TCP sockets, as Linux's
//! tcp_filter: the classic BPF program of the socket a received segment
//! is for runs on the segment from its TCP header on, before TCP looks at
//! it. 0 drops the segment (it is never acked: the sender retransmits
//! it, and it gets through once the filter lets it); a smaller length
//! cuts the segment's data (never into the TCP header: Linux's
//! sk_filter_trim_cap with the header's length), and TCP acks only what
//! is left, so the rest comes again.
//!
//! The stack keeps each filtered connection's program by smoltcp handle
//! and each filtered listener's by listener id (a listener's filter also
//! covers its handshakes, and accepted sockets inherit it, as Linux's
//! sk_clone_lock copies sk_filter). A segment belongs to the connection
//! of its (local, remote) ports, else to a listener on its local port.

use alloc::collections::BTreeMap;
use alloc::sync::Arc;

use kevlar_bpf::Filter;
use super::sockets::SocketHandle;

/// The filters of one stack's TCP sockets.
#[derive(Default)]
pub struct TcpFilters {
    conns: BTreeMap<SocketHandle, Arc<Filter>>,
    listeners: BTreeMap<u64, (u16, Arc<Filter>)>,
}

/// What a socket filter makes of a segment.
#[derive(Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Kept whole (or no filter).
    Keep,
    /// Dropped.
    Drop,
    /// Cut to this many bytes of the IP packet.
    Cut(usize),
}

impl TcpFilters {
    /// Whether no TCP socket of the stack has a filter (the fast path).
    pub fn is_empty(&self) -> bool {
        self.conns.is_empty() && self.listeners.is_empty()
    }

    /// Sets or clears connection `handle`'s filter.
    pub fn set_conn(&mut self, handle: SocketHandle, filter: Option<Arc<Filter>>) {
        match filter {
            Some(f) => {
                self.conns.insert(handle, f);
            }
            None => {
                self.conns.remove(&handle);
            }
        }
    }

    /// Sets or clears listener `id`'s (on `port`).
    pub fn set_listener(&mut self, id: u64, port: u16, filter: Option<Arc<Filter>>) {
        match filter {
            Some(f) => {
                self.listeners.insert(id, (port, f));
            }
            None => {
                self.listeners.remove(&id);
            }
        }
    }

    /// Forgets a connection that is gone.
    pub fn forget_conn(&mut self, handle: SocketHandle) {
        self.conns.remove(&handle);
    }

    /// Forgets a listener that is gone.
    pub fn forget_listener(&mut self, id: u64) {
        self.listeners.remove(&id);
    }

    /// The verdict on IP packet `packet` when it is a TCP segment:
    /// `conn_of(local port, remote port)` tells the tracked connections of
    /// those ports (None: none, so a listener's filter applies).
    pub fn verdict(&self, packet: &[u8], conn_of: impl Fn(u16, u16) -> Option<alloc::vec::Vec<SocketHandle>>) -> Verdict {
        let Some(tcp_at) = tcp_offset(packet) else { return Verdict::Keep };
        let segment = &packet[tcp_at..];
        if segment.len() < 20 {
            return Verdict::Keep;
        }
        let src = u16::from_be_bytes([segment[0], segment[1]]);
        let dst = u16::from_be_bytes([segment[2], segment[3]]);
        let filter = match conn_of(dst, src) {
            Some(handles) => handles.iter().find_map(|h| self.conns.get(h)),
            None => self.listeners.values().find(|(port, _)| *port == dst).map(|(_, f)| f),
        };
        let Some(filter) = filter else { return Verdict::Keep };
        let header = ((segment[12] >> 4) as usize * 4).clamp(20, segment.len());
        match filter.run_packet(segment) as usize {
            0 => Verdict::Drop,
            n if n.max(header) < segment.len() => Verdict::Cut(tcp_at + n.max(header)),
            _ => Verdict::Keep,
        }
    }
}

/// Where the TCP header of an IPv4 or IPv6 packet starts (None: not TCP).
fn tcp_offset(packet: &[u8]) -> Option<usize> {
    match packet.first()? >> 4 {
        4 if packet.len() >= 20 && packet[9] == 6 => {
            let ihl = (packet[0] & 0xf) as usize * 4;
            (ihl >= 20 && ihl <= packet.len()).then_some(ihl)
        }
        6 if packet.len() >= 40 && packet[6] == 6 => Some(40),
        _ => None,
    }
}

fn sum16(data: &[u8], mut acc: u32) -> u32 {
    let mut chunks = data.chunks_exact(2);
    for c in &mut chunks {
        acc += u32::from(u16::from_be_bytes([c[0], c[1]]));
    }
    if let [last] = chunks.remainder() {
        acc += u32::from(*last) << 8;
    }
    acc
}

fn fold(mut acc: u32) -> u16 {
    while acc > 0xffff {
        acc = (acc & 0xffff) + (acc >> 16);
    }
    !(acc as u16)
}

/// Cuts TCP packet `packet` to `len` bytes, with its IP length and the
/// IPv4 header and TCP checksums made right again.
pub fn cut(packet: &mut alloc::vec::Vec<u8>, len: usize) {
    let Some(tcp_at) = tcp_offset(packet) else { return };
    if len < tcp_at + 20 || len >= packet.len() {
        return;
    }
    packet.truncate(len);
    let tcp_len = len - tcp_at;
    let pseudo = if packet[0] >> 4 == 4 {
        packet[2..4].copy_from_slice(&(len as u16).to_be_bytes());
        packet[10..12].copy_from_slice(&[0, 0]);
        let header = fold(sum16(&packet[..tcp_at], 0));
        packet[10..12].copy_from_slice(&header.to_be_bytes());
        sum16(&packet[12..20], 6 + tcp_len as u32)
    } else {
        packet[4..6].copy_from_slice(&(tcp_len as u16).to_be_bytes());
        sum16(&packet[8..40], 6 + tcp_len as u32)
    };
    packet[tcp_at + 16..tcp_at + 18].copy_from_slice(&[0, 0]);
    let check = fold(sum16(&packet[tcp_at..], pseudo));
    packet[tcp_at + 16..tcp_at + 18].copy_from_slice(&check.to_be_bytes());
}
