//! What /proc/net shows of sockets: every socket that has an open file is
//! recorded here by its inode number (the N of `socket:[N]`) with its
//! owner, and each family describes itself ([`Socket::proc_entry`]) when
//! a /proc/net file is read. The files' text is made here in Linux 6.1's
//! formats (tcp4_seq_show, tcp6_seq_show, udp4_seq_show,
//! udp6_seq_show, unix_seq_show): only the sockets of the reader's network
//! namespace are listed.
//!
//! Linux lists the sockets of its hash tables: a TCP socket once it
//! listens or has a peer (not one that is only bound or closed), a UDP
//! socket once it has a port, every AF_UNIX socket. Connections without a
//! file (not accepted yet, or closed and finishing) are not listed here.

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::sync::{Arc, Weak};
use alloc::vec::Vec;

use kevlar_platform::sync::SpinLock;
use smoltcp::wire::IpAddress;

use super::Socket;

/// Linux's TCP states as /proc/net prints them (include/net/tcp_states.h).
pub mod state {
    /// TCP_ESTABLISHED.
    pub const ESTABLISHED: u8 = 1;
    /// TCP_SYN_SENT.
    pub const SYN_SENT: u8 = 2;
    /// TCP_SYN_RECV.
    pub const SYN_RECV: u8 = 3;
    /// TCP_FIN_WAIT1.
    pub const FIN_WAIT1: u8 = 4;
    /// TCP_FIN_WAIT2.
    pub const FIN_WAIT2: u8 = 5;
    /// TCP_TIME_WAIT.
    pub const TIME_WAIT: u8 = 6;
    /// TCP_CLOSE.
    pub const CLOSE: u8 = 7;
    /// TCP_CLOSE_WAIT.
    pub const CLOSE_WAIT: u8 = 8;
    /// TCP_LAST_ACK.
    pub const LAST_ACK: u8 = 9;
    /// TCP_LISTEN.
    pub const LISTEN: u8 = 10;
    /// TCP_CLOSING.
    pub const CLOSING: u8 = 11;
}

/// The transport of an inet socket.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Transport {
    /// TCP (/proc/net/tcp, tcp6).
    Tcp,
    /// UDP (/proc/net/udp, udp6).
    Udp,
}

/// An inet socket as /proc/net/{tcp,udp}[6] shows it.
#[derive(Clone, Copy, Debug)]
pub struct InetEntry {
    /// AF_INET6 (else AF_INET).
    pub v6: bool,
    /// TCP or UDP.
    pub transport: Transport,
    /// The local address and port.
    pub local: (IpAddress, u16),
    /// The peer's (unspecified and 0 without one).
    pub remote: (IpAddress, u16),
    /// The TCP state code ([`state`]).
    pub state: u8,
    /// Bytes queued to send (tx_queue).
    pub tx_queue: usize,
    /// Bytes queued to read, or connections waiting for accept on a
    /// listener (rx_queue).
    pub rx_queue: usize,
    /// listen()'s backlog (0 when not listening).
    pub backlog: usize,
    /// The sk_shutdown bits (RCV_SHUTDOWN 1, SEND_SHUTDOWN 2).
    pub shutdown: u8,
    /// IPV6_V6ONLY (AF_INET6 only).
    pub v6only: bool,
    /// The port was bound by the user, not picked by the stack (Linux's
    /// SOCK_BINDPORT_LOCK).
    pub port_locked: bool,
}

/// An AF_UNIX socket as /proc/net/unix shows it.
#[derive(Clone)]
pub struct UnixEntry {
    /// SOCK_STREAM, SOCK_DGRAM or SOCK_SEQPACKET.
    pub sock_type: u32,
    /// listen() was called.
    pub listening: bool,
    /// Has a peer (Linux's TCP_ESTABLISHED).
    pub connected: bool,
    /// The bound address as getsockname gives it (family first).
    pub name: Option<Arc<Vec<u8>>>,
    /// The bound file's node: its inode number and its file system's
    /// st_dev (a path binding only).
    pub node: Option<(u64, u64)>,
    /// The other end (or a datagram socket's default destination).
    pub peer: Option<Arc<dyn Socket>>,
    /// A listener's connections not yet accepted: the connecting sockets.
    pub pending_peers: Vec<Option<Arc<dyn Socket>>>,
    /// listen()'s backlog (0 when not listening).
    pub backlog: usize,
    /// Bytes queued to read (FIONREAD; 0 on a listener).
    pub rx_queue: usize,
    /// Bytes this socket has queued at its peers.
    pub tx_queue: usize,
    /// The RCV_SHUTDOWN and SEND_SHUTDOWN bits.
    pub shutdown: u8,
}

/// What a socket shows in /proc/net, with the nsfs inode number of its
/// network namespace.
#[derive(Clone)]
pub enum Entry {
    /// TCP and UDP.
    Inet(u64, InetEntry),
    /// AF_UNIX.
    Unix(u64, UnixEntry),
}

struct Record {
    socket: Weak<dyn Socket>,
    uid: u32,
    cgroup: u64,
}

/// The sockets that have an open file, by inode number.
static SOCKETS: SpinLock<BTreeMap<u64, Record>> = SpinLock::new(BTreeMap::new());

/// Records a socket's file (its inode number, owner and the id of the
/// owner's cgroup).
pub fn register(ino: u64, socket: &Arc<dyn Socket>, uid: u32, cgroup: u64) {
    SOCKETS.lock().insert(ino, Record { socket: Arc::downgrade(socket), uid, cgroup });
}

/// Forgets a socket's file (it was closed).
pub fn unregister(ino: u64) {
    SOCKETS.lock().remove(&ino);
}

/// A listed socket: its inode number, its owner, what it shows.
pub struct Listed {
    /// The inode number (socket:[N]).
    pub ino: u64,
    /// The owner (the effective uid of the process that made its file).
    pub uid: u32,
    /// The id of the cgroup that process was in.
    pub cgroup: u64,
    /// What the socket says of itself.
    pub entry: Entry,
    /// Its options (buffer sizes).
    pub socket: Arc<dyn Socket>,
}

/// The recorded sockets of network namespace `net` (nsfs inode number)
/// that `keep` takes, in inode order. The families are asked with no
/// lock of this table held (they take their stacks' locks).
fn listed(net: u64, keep: impl Fn(&Entry) -> bool) -> Vec<Listed> {
    let live: Vec<(u64, u32, u64, Arc<dyn Socket>)> = SOCKETS.lock().iter().filter_map(|(&ino, r)| Some((ino, r.uid, r.cgroup, r.socket.upgrade()?))).collect();
    let mut out = Vec::new();
    for (ino, uid, cgroup, socket) in live {
        if let Some(entry) = socket.proc_entry() {
            let in_net = match &entry {
                Entry::Inet(n, _) | Entry::Unix(n, _) => *n == net,
            };
            if in_net && keep(&entry) {
                out.push(Listed { ino, uid, cgroup, entry, socket });
            }
        }
    }
    out
}

/// [`listed`] for sock_diag: the recorded sockets of namespace `net`
/// that `keep` takes, in inode order, each with the socket itself. The
/// caller drops them with no lock held (a last reference may go there).
pub fn sockets_of(net: u64, keep: impl Fn(&Entry) -> bool) -> Vec<Listed> {
    listed(net, keep)
}

/// The inode numbers of the recorded sockets, by the address of the
/// socket (what [`address_of`] gives), to name a peer.
pub fn inodes_by_address() -> BTreeMap<usize, u64> {
    SOCKETS.lock().iter().map(|(&ino, r)| (r.socket.as_ptr() as *const () as usize, ino)).collect()
}

/// The address [`inodes_by_address`] is keyed by.
pub fn address_of(socket: &Arc<dyn Socket>) -> usize {
    Arc::as_ptr(socket) as *const () as usize
}

/// An IPv4 address as Linux prints a __be32 with %08X on a little-endian
/// machine (the bytes in reverse order).
fn hex4(addr: [u8; 4]) -> String {
    format!("{:08X}", u32::from_le_bytes(addr))
}

/// An IPv6 address as Linux prints its four 32-bit words with %08X.
fn hex6(addr: [u8; 16]) -> String {
    let mut s = String::new();
    for w in addr.chunks_exact(4) {
        s.push_str(&format!("{:08X}", u32::from_le_bytes([w[0], w[1], w[2], w[3]])));
    }
    s
}

/// The bytes of an address as IPv4 (an IPv6 one shows as 0).
pub fn v4_bytes(addr: IpAddress) -> [u8; 4] {
    match addr {
        IpAddress::Ipv4(a) => a.octets(),
        IpAddress::Ipv6(a) => {
            let o = a.octets();
            if o[..10].iter().all(|&b| b == 0) && o[10] == 0xff && o[11] == 0xff {
                [o[12], o[13], o[14], o[15]]
            } else {
                [0; 4]
            }
        }
    }
}

/// The bytes of an address as IPv6 (IPv4 is v4-mapped).
pub fn v6_bytes(addr: IpAddress) -> [u8; 16] {
    match addr {
        IpAddress::Ipv6(a) => a.octets(),
        IpAddress::Ipv4(a) => {
            let mut o = [0u8; 16];
            o[10] = 0xff;
            o[11] = 0xff;
            o[12..].copy_from_slice(&a.octets());
            o
        }
    }
}

/// The width Linux pads each IPv4 TCP line to (TMPSZ - 1).
const TCP4_WIDTH: usize = 149;
/// The width of each /proc/net/udp line (seq_setwidth(seq, 127)).
const UDP4_WIDTH: usize = 127;

fn pad(mut line: String, width: usize) -> String {
    while line.len() < width {
        line.push(' ');
    }
    line.push('\n');
    line
}

/// /proc/net/tcp (`v6` false) or /proc/net/tcp6 of namespace `net`:
/// listeners first, then connections, as Linux walks its listening and
/// established hash tables.
pub fn tcp_text(net: u64, v6: bool) -> String {
    let mut text = if v6 {
        String::from("  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n")
    } else {
        pad(String::from("  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode"), TCP4_WIDTH)
    };
    let mut list = listed(net, |e| matches!(e, Entry::Inet(_, i) if i.transport == Transport::Tcp && i.v6 == v6));
    list.sort_by_key(|l| match &l.entry {
        Entry::Inet(_, i) => (i.state != state::LISTEN, l.ino),
        _ => (true, l.ino),
    });
    for (sl, l) in list.iter().enumerate() {
        let Entry::Inet(_, e) = &l.entry else { continue };
        let (la, ra) = if v6 { (hex6(v6_bytes(e.local.0)), hex6(v6_bytes(e.remote.0))) } else { (hex4(v4_bytes(e.local.0)), hex4(v4_bytes(e.remote.0))) };
        // tr tm->when retrnsmt: no timer shown; timeout (probes) 0; then
        // the refcount, the socket's address (%pK: zeros), rto and ato
        // in clock ticks, quick-ack/ping-pong, the congestion window,
        // and the fast-open queue (listeners) or ssthresh (-1 in the
        // initial slow start).
        let (rto, ato, cwnd, last) = if e.state == state::LISTEN { (100, 0, 10, 0) } else { (20, 4, 10, -1) };
        let line = format!(
            "{:4}: {}:{:04X} {}:{:04X} {:02X} {:08X}:{:08X} {:02X}:{:08X} {:08X} {:5} {:8} {} {} {:016x} {} {} {} {} {}",
            sl, la, e.local.1, ra, e.remote.1, e.state, e.tx_queue as u32, e.rx_queue as u32, 0, 0, 0, l.uid, 0, l.ino, 2, 0, rto, ato, 0, cwnd, last
        );
        if v6 {
            text.push_str(&line);
            text.push('\n');
        } else {
            text.push_str(&pad(line, TCP4_WIDTH));
        }
    }
    text
}

/// /proc/net/udp or udp6 of namespace `net`. The first column is the
/// port's slot in Linux's UDP hash table (the port modulo its size).
pub fn udp_text(net: u64, v6: bool) -> String {
    let mut text = if v6 {
        String::from("  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode ref pointer drops\n")
    } else {
        pad(String::from("   sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode ref pointer drops"), UDP4_WIDTH)
    };
    let mut list = listed(net, |e| matches!(e, Entry::Inet(_, i) if i.transport == Transport::Udp && i.v6 == v6));
    list.sort_by_key(|l| match &l.entry {
        Entry::Inet(_, i) => (i.local.1 & UDP_HASH_MASK, l.ino),
        _ => (0, l.ino),
    });
    for l in &list {
        let Entry::Inet(_, e) = &l.entry else { continue };
        let (la, ra) = if v6 { (hex6(v6_bytes(e.local.0)), hex6(v6_bytes(e.remote.0))) } else { (hex4(v4_bytes(e.local.0)), hex4(v4_bytes(e.remote.0))) };
        let line = format!(
            "{:5}: {}:{:04X} {}:{:04X} {:02X} {:08X}:{:08X} {:02X}:{:08X} {:08X} {:5} {:8} {} {} {:016x} {}",
            e.local.1 & UDP_HASH_MASK, la, e.local.1, ra, e.remote.1, e.state, e.tx_queue as u32, e.rx_queue as u32, 0, 0, 0, l.uid, 0, l.ino, 2, 0, 0
        );
        if v6 {
            text.push_str(&line);
            text.push('\n');
        } else {
            text.push_str(&pad(line, UDP4_WIDTH));
        }
    }
    text
}

/// The mask of the UDP hash table's slots.
const UDP_HASH_MASK: u16 = 255;

/// __SO_ACCEPTCON: the flag /proc/net/unix shows on a listener.
const SO_ACCEPTCON: u32 = 1 << 16;
/// SS_UNCONNECTED and SS_CONNECTED (the socket's state column).
const SS_UNCONNECTED: u8 = 1;
const SS_CONNECTED: u8 = 3;

/// /proc/net/unix of namespace `net`.
pub fn unix_text(net: u64) -> String {
    let mut text = String::from("Num       RefCount Protocol Flags    Type St Inode Path\n");
    for l in listed(net, |e| matches!(e, Entry::Unix(..))) {
        let Entry::Unix(_, e) = &l.entry else { continue };
        let flags = if e.listening { SO_ACCEPTCON } else { 0 };
        let st = if e.connected { SS_CONNECTED } else { SS_UNCONNECTED };
        text.push_str(&format!("{:016x}: {:08X} {:08X} {:08X} {:04X} {:02X} {:5}", 0, 2, 0, flags, e.sock_type, st, l.ino));
        if let Some(name) = &e.name {
            let path = name.get(2..).unwrap_or(&[]);
            text.push(' ');
            match path.first() {
                Some(0) => {
                    text.push('@');
                    push_bytes(&mut text, &path[1..]);
                }
                Some(_) => {
                    // The stored length counts the path's terminating NUL.
                    let end = path.iter().position(|&b| b == 0).unwrap_or(path.len());
                    push_bytes(&mut text, &path[..end]);
                }
                None => {}
            }
        }
        text.push('\n');
    }
    text
}

/// Appends name bytes, a NUL as '@' (as unix_seq_show does).
fn push_bytes(text: &mut String, bytes: &[u8]) {
    for &b in bytes {
        text.push(if b == 0 { '@' } else { b as char });
    }
}

/// Counts for /proc/net/sockstat of namespace `net`: TCP sockets listed
/// (in use), UDP sockets bound, and IPv6 TCP and UDP ones.
pub fn counts(net: u64) -> (usize, usize, usize, usize) {
    let list = listed(net, |e| matches!(e, Entry::Inet(..)));
    let count = |t: Transport, v6: bool| list.iter().filter(|l| matches!(&l.entry, Entry::Inet(_, i) if i.transport == t && i.v6 == v6)).count();
    (count(Transport::Tcp, false), count(Transport::Udp, false), count(Transport::Tcp, true), count(Transport::Udp, true))
}

/// How many TCP, UDP and AF_UNIX sockets of namespace `net` have an open
/// file (sockstat's "sockets: used").
pub fn sockets_used(net: u64) -> usize {
    listed(net, |_| true).len()
}
