//! Sockets: the file kind behind a socket fd, the interface every address
//! family implements ([`Socket`]), and what the families share: the
//! SOL_SOCKET options, the caller's data buffers, ancillary data and
//! waiting with socket timeouts.
//!
//! The system calls (`syscalls/socket.rs`) decode user memory and flags
//! and call a [`Socket`]; a family (`unix.rs`, `inet/` for TCP and UDP
//! over IPv4) implements the protocol. A socket is an open file like a pipe:
//! [`SocketFile`] is its `FileOps`, so read/write, poll, select, epoll,
//! fstat and fcntl work on it unchanged.

pub mod inet;
pub mod netlink;
pub mod packet;
pub mod procnet;
pub mod sockfilter;
pub mod sysctl;
pub mod sysfs;
pub mod timestamp;
pub mod unix;

use alloc::sync::Arc;
use alloc::vec::Vec;
use core::sync::atomic::{AtomicU64, Ordering};

use kevlar_platform::sync::SpinLock;
use kevlar_vfs::{FileType, Stat};
use linux_raw_sys::general as abi;
use linux_raw_sys::net as netabi;

use crate::error::{Errno, Result};
use crate::fs::file::{FileOps, OpenFile, PollEvents};
use crate::process::wait_queue::WaitQueue;
use crate::process::Thread;
use crate::uaccess::{copy_from_user, copy_to_user};

/// Boot-time set-up of the network: registers the work a CPU does before
/// it idles (the delayed ACKs waiting, `inet::stack::flush_delayed_acks`)
/// with the scheduler.
pub fn init() {
    crate::process::scheduler::register_idle_hook(inet::stack::flush_delayed_acks);
}

/// socket(2) type flag: the new fd is non-blocking (the same bit as
/// O_NONBLOCK on x86_64; include/linux/net.h, not in the uapi headers).
pub const SOCK_NONBLOCK: u32 = abi::O_NONBLOCK;
/// socket(2) type flag: the new fd is close-on-exec (O_CLOEXEC's bit).
pub const SOCK_CLOEXEC: u32 = abi::O_CLOEXEC;
/// The bits of the type argument that name the type.
pub const SOCK_TYPE_MASK: u32 = 0xf;
/// One past the highest socket type Linux knows: SOCK_PACKET (10) + 1
/// (include/linux/net.h; not in the uapi headers linux-raw-sys covers).
const SOCK_MAX: u32 = 11;

/// The longest socket address the system calls copy (sockaddr_storage).
pub const MAX_ADDR_LEN: usize = 128;

/// Default and largest buffer sizes (Linux's net.core.wmem_default,
/// rmem_default, wmem_max and rmem_max).
pub const DEFAULT_BUFFER: usize = 212_992;
/// The most SO_SNDBUF/SO_RCVBUF may ask for (doubled when stored).
const MAX_BUFFER_REQUEST: u32 = 212_992;
/// The least SO_SNDBUF and SO_RCVBUF store (Linux's SOCK_MIN_SNDBUF and
/// SOCK_MIN_RCVBUF on x86_64: twice, and once, 2048 bytes plus an sk_buff).
const MIN_SNDBUF: usize = 4608;
const MIN_RCVBUF: usize = 2304;

/// EINTR from a wait that had a timeout: Linux does not restart such a
/// call after an SA_RESTART handler (sock_intr_errno gives EINTR, not
/// ERESTARTSYS). The dispatcher turns it into a plain EINTR; it never
/// reaches user space.
pub const EINTR_NO_RESTART: Errno = Errno::new(0x4000 | 4);

/// Process credentials as SO_PEERCRED and SCM_CREDENTIALS carry them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ucred {
    /// Process (thread group) id.
    pub pid: i32,
    /// User id.
    pub uid: u32,
    /// Group id.
    pub gid: u32,
}

impl Ucred {
    /// What SO_PEERCRED reports for a socket that has no peer credentials.
    pub const NONE: Ucred = Ucred { pid: 0, uid: u32::MAX, gid: u32::MAX };

    /// The calling process with its real ids (what SCM_CREDENTIALS carries
    /// by default).
    pub fn current_real() -> Ucred {
        match crate::process::current() {
            Some(t) => {
                let c = t.process.creds.lock();
                Ucred { pid: t.process.pid, uid: c.uid, gid: c.gid }
            }
            None => Ucred { pid: 0, uid: 0, gid: 0 },
        }
    }

    /// The calling process with its effective ids (what SO_PEERCRED
    /// records at connect, listen and socketpair).
    pub fn current_effective() -> Ucred {
        match crate::process::current() {
            Some(t) => {
                let c = t.process.creds.lock();
                Ucred { pid: t.process.pid, uid: c.euid, gid: c.egid }
            }
            None => Ucred { pid: 0, uid: 0, gid: 0 },
        }
    }

    /// These credentials as the calling process sees them: the pid in its
    /// PID namespace, the ids in its user namespace (the overflow id for
    /// one it does not map: Linux's cred_to_ucred and scm_recv).
    pub fn seen_by_caller(self) -> Ucred {
        let ns = crate::ns::user::current_ns();
        Ucred { pid: crate::ns::pid::local(self.pid), uid: ns.uid_shown(self.uid), gid: ns.gid_shown(self.gid) }
    }

    /// Encodes `struct ucred`.
    pub fn to_bytes(self) -> [u8; 12] {
        let mut out = [0u8; 12];
        out[..4].copy_from_slice(&self.pid.to_le_bytes());
        out[4..8].copy_from_slice(&self.uid.to_le_bytes());
        out[8..].copy_from_slice(&self.gid.to_le_bytes());
        out
    }
}

/// What a unix socket records of the process at the other end (Linux's
/// sk_peer_pid and sk_peer_cred): SO_PEERCRED's ids and SO_PEERGROUPS'
/// supplementary groups, kernel ids.
#[derive(Clone, Debug)]
pub struct PeerCred {
    pub cred: Ucred,
    pub groups: Arc<[u32]>,
}

impl PeerCred {
    /// The calling process: its effective ids and its groups.
    pub fn current() -> PeerCred {
        let groups: Arc<[u32]> = match crate::process::current() {
            Some(t) => Arc::from(t.process.creds.lock().groups.as_slice()),
            None => Arc::from(&[][..]),
        };
        PeerCred { cred: Ucred::current_effective(), groups }
    }
}

// --- data buffers -----------------------------------------------------------

/// The bytes a send takes: the caller's iovecs in user memory, or a kernel
/// buffer (write(2) through `FileOps`, sendfile).
pub enum Source<'a> {
    /// User memory, as (address, length) segments.
    User {
        /// The segments still to read, first partly read by `offset`.
        segments: Vec<(usize, usize)>,
        /// Index of the current segment.
        index: usize,
        /// Bytes of the current segment already taken.
        offset: usize,
        /// Bytes left in all segments.
        remaining: usize,
    },
    /// A kernel buffer and how much of it is taken.
    Kernel(&'a [u8], usize),
}

impl<'a> Source<'a> {
    /// A source over user segments (already checked to lie in user space).
    pub fn user(segments: Vec<(usize, usize)>) -> Source<'static> {
        let remaining = segments.iter().map(|s| s.1).sum();
        Source::User { segments, index: 0, offset: 0, remaining }
    }

    /// Returns how many bytes are left.
    pub fn remaining(&self) -> usize {
        match self {
            Source::User { remaining, .. } => *remaining,
            Source::Kernel(buf, pos) => buf.len() - pos,
        }
    }

    /// Copies up to `n` bytes out, advancing. Fails with EFAULT (nothing
    /// taken) when user memory cannot be read.
    pub fn take(&mut self, n: usize) -> Result<Vec<u8>> {
        let n = n.min(self.remaining());
        match self {
            Source::Kernel(buf, pos) => {
                let out = buf[*pos..*pos + n].to_vec();
                *pos += n;
                Ok(out)
            }
            Source::User { segments, index, offset, remaining } => {
                let mut out = crate::mm::kbuf::zeroed(n)?;
                let (mut i, mut off, mut done) = (*index, *offset, 0);
                while done < n {
                    let (base, len) = segments[i];
                    let step = (len - off).min(n - done);
                    copy_from_user(&mut out[done..done + step], base + off)?;
                    done += step;
                    off += step;
                    if off == len {
                        i += 1;
                        off = 0;
                    }
                }
                // Skip empty segments so `index` points at data.
                while i < segments.len() && segments[i].1 == off {
                    i += 1;
                    off = 0;
                }
                *index = i;
                *offset = off;
                *remaining -= n;
                Ok(out)
            }
        }
    }
}

/// Where a receive puts bytes: the caller's iovecs or a kernel buffer.
pub enum Sink<'a> {
    /// User memory segments, filled in order.
    User {
        /// The segments.
        segments: Vec<(usize, usize)>,
        /// Index of the segment being filled.
        index: usize,
        /// Bytes of it already filled.
        offset: usize,
        /// Room left in all segments.
        room: usize,
    },
    /// A kernel buffer and how much of it is filled.
    Kernel(&'a mut [u8], usize),
}

impl<'a> Sink<'a> {
    /// A sink over user segments (already checked to lie in user space).
    pub fn user(segments: Vec<(usize, usize)>) -> Sink<'static> {
        let room = segments.iter().map(|s| s.1).sum();
        Sink::User { segments, index: 0, offset: 0, room }
    }

    /// Returns how many more bytes fit.
    pub fn room(&self) -> usize {
        match self {
            Sink::User { room, .. } => *room,
            Sink::Kernel(buf, pos) => buf.len() - *pos,
        }
    }

    /// Appends `data` (at most `room()` bytes).
    pub fn put(&mut self, data: &[u8]) -> Result<()> {
        match self {
            Sink::Kernel(buf, pos) => {
                buf[*pos..*pos + data.len()].copy_from_slice(data);
                *pos += data.len();
                Ok(())
            }
            Sink::User { segments, index, offset, room } => {
                let mut done = 0;
                while done < data.len() {
                    let (base, len) = segments[*index];
                    let step = (len - *offset).min(data.len() - done);
                    copy_to_user(base + *offset, &data[done..done + step])?;
                    done += step;
                    *offset += step;
                    *room -= step;
                    if *offset == len {
                        *index += 1;
                        *offset = 0;
                    }
                }
                Ok(())
            }
        }
    }
}

// --- messages -----------------------------------------------------------------

/// A send request: data, destination, ancillary data, flags.
pub struct Outgoing<'a> {
    /// The bytes to send.
    pub data: Source<'a>,
    /// The destination address (sendto/sendmsg), raw sockaddr bytes.
    pub addr: Option<Vec<u8>>,
    /// Open files passed with SCM_RIGHTS.
    pub rights: Vec<Arc<OpenFile>>,
    /// Credentials given with SCM_CREDENTIALS (already checked).
    pub creds: Option<Ucred>,
    /// MSG_* flags.
    pub flags: u32,
    /// MSG_DONTWAIT or O_NONBLOCK.
    pub nonblocking: bool,
}

/// What a receive produced besides the bytes put into the sink.
#[derive(Default)]
pub struct Incoming {
    /// The value recv returns (the datagram's full length with MSG_TRUNC).
    pub len: usize,
    /// MSG_TRUNC, MSG_CTRUNC... for msg_flags.
    pub msg_flags: u32,
    /// The sender's address (raw sockaddr bytes), if it has one.
    pub from: Option<Vec<u8>>,
    /// The sender's credentials, for SCM_CREDENTIALS.
    pub creds: Option<Ucred>,
    /// Open files received with SCM_RIGHTS.
    pub rights: Vec<Arc<OpenFile>>,
    /// Other control messages, (level, type, data), put before the
    /// credentials (NETLINK_PKTINFO).
    pub control: Vec<(u32, u32, Vec<u8>)>,
}

// --- the family interface -----------------------------------------------------

/// What every socket family implements. Addresses are raw sockaddr bytes
/// as user space passed them (already copied in, at most
/// [`MAX_ADDR_LEN`]); names returned are the bytes getsockname copies out,
/// their length being the address length Linux reports.
pub trait Socket: Send + Sync {
    /// The address family (AF_UNIX...).
    fn family(&self) -> u32;
    /// The socket type (SOCK_STREAM...).
    fn sock_type(&self) -> u32;
    /// The protocol SO_PROTOCOL reports.
    fn protocol(&self) -> u32 {
        0
    }
    /// The SOL_SOCKET options.
    fn options(&self) -> &SocketOptions;
    /// Binds a local address.
    fn bind(&self, thread: &Thread, addr: &[u8]) -> Result<()>;
    /// Starts listening with a backlog (already clamped to somaxconn).
    fn listen(&self, backlog: usize) -> Result<()>;
    /// Takes a pending connection.
    fn accept(&self, nonblocking: bool) -> Result<Arc<dyn Socket>>;
    /// Connects to an address.
    fn connect(&self, thread: &Thread, addr: &[u8], nonblocking: bool) -> Result<()>;
    /// Returns the local address.
    fn local_name(&self) -> Result<Vec<u8>>;
    /// Returns the peer's address (ENOTCONN without a peer).
    fn peer_name(&self) -> Result<Vec<u8>>;
    /// Sends; returns the bytes taken.
    fn send(&self, msg: &mut Outgoing<'_>) -> Result<usize>;
    /// Receives into `sink` with MSG_* `flags`.
    fn recv(&self, sink: &mut Sink<'_>, flags: u32, nonblocking: bool) -> Result<Incoming>;
    /// Shuts down reception (SHUT_RD), sending (SHUT_WR) or both.
    fn shutdown(&self, how: u32) -> Result<()>;
    /// Returns the readiness bits for poll.
    fn poll(&self) -> PollEvents;
    /// Counts of wake-ups on the read and write sides (edge-triggered epoll).
    fn poll_counts(&self) -> (u64, u64);
    /// The queue notified when the readiness changes (None: the global
    /// fallback, `fs::file::notify_pollers`).
    fn poll_queue(&self) -> Option<&crate::fs::poll_queue::PollQueue> {
        None
    }
    /// Takes the pending error (SO_ERROR), clearing it.
    fn take_error(&self) -> Option<Errno>;
    /// Sets the pending error (recvmmsg keeps an error that came after
    /// some messages for the next call).
    fn set_error(&self, error: Errno);
    /// The credentials SO_PEERCRED reports.
    fn peer_cred(&self) -> Ucred;
    /// The peer's supplementary groups (SO_PEERGROUPS; None: the socket
    /// has no peer credentials, ENODATA).
    fn peer_groups(&self) -> Option<Arc<[u32]>> {
        None
    }
    /// Returns whether the socket is listening (SO_ACCEPTCONN).
    fn is_listening(&self) -> bool;
    /// Returns the bytes queued for reading (FIONREAD/SIOCINQ).
    fn unread_bytes(&self) -> Result<usize>;
    /// Returns the bytes sent but not yet consumed (SIOCOUTQ).
    fn unsent_bytes(&self) -> usize {
        0
    }
    /// Refuses a `level` (other than SOL_SOCKET) the protocol has no
    /// options at: ENOPROTOOPT, or EOPNOTSUPP for a family without
    /// protocol options. setsockopt asks before it reads the value, as
    /// Linux does, and reads it first for a known level (EFAULT).
    fn check_option_level(&self, _level: i32) -> Result<()> {
        Err(Errno::EOPNOTSUPP)
    }
    /// Whether the socket runs the filter in its options'
    /// [`sockfilter::SocketFilter`] on what it delivers (SO_ATTACH_FILTER
    /// and SO_DETACH_FILTER are ENOPROTOOPT on those that do not).
    fn runs_filters(&self) -> bool {
        false
    }
    /// Told after setsockopt(SOL_SOCKET, `name`) changed the socket's
    /// options, for a protocol that applies one to its connection
    /// (SO_KEEPALIVE on TCP).
    fn socket_option_set(&self, _name: u32) {}
    /// Sets an option at a protocol level (SOL_TCP, SOL_IP...; never
    /// SOL_SOCKET). Families without such options refuse with EOPNOTSUPP.
    fn set_protocol_option(&self, _level: i32, _name: u32, _raw: &[u8]) -> Result<()> {
        Err(Errno::EOPNOTSUPP)
    }
    /// Returns an option at a protocol level.
    fn get_protocol_option(&self, _level: i32, _name: u32) -> Result<Vec<u8>> {
        Err(Errno::EOPNOTSUPP)
    }
    /// Returns an option at a protocol level for a caller whose buffer
    /// holds `user_len` bytes: the bytes to copy and the length to report
    /// (by default the option cut to the buffer).
    fn get_protocol_option_sized(&self, level: i32, name: u32, user_len: usize) -> Result<(Vec<u8>, usize)> {
        let mut bytes = self.get_protocol_option(level, name)?;
        bytes.truncate(user_len);
        let n = bytes.len();
        Ok((bytes, n))
    }
    /// Called when the last fd of the socket closes.
    fn release(&self);

    /// The netlink socket, when it is one (mq_notify's SIGEV_THREAD sends
    /// its notification to one).
    fn as_netlink(&self) -> Option<Arc<netlink::NetlinkSocket>> {
        None
    }

    /// What /proc/net shows of the socket (None: it is not listed).
    fn proc_entry(&self) -> Option<procnet::Entry> {
        None
    }

    /// Ends the socket's connection with `err` as its pending error, as
    /// sock_diag's SOCK_DESTROY asks (the protocol's diag_destroy:
    /// tcp_abort, udp_abort); EOPNOTSUPP for a protocol without one.
    fn diag_destroy(&self, _err: Errno) -> Result<()> {
        Err(Errno::EOPNOTSUPP)
    }
}

/// Creates a socket of `family`, `sock_type` (flags stripped) and
/// `protocol`, with Linux's order of checks.
pub fn create(family: i32, sock_type: u32, protocol: i32) -> Result<Arc<dyn Socket>> {
    if family < 0 || family as u32 >= netabi::AF_MAX {
        return Err(Errno::EAFNOSUPPORT);
    }
    if sock_type >= SOCK_MAX {
        return Err(Errno::EINVAL);
    }
    match family as u32 {
        netabi::AF_UNIX => Ok(unix::UnixSocket::create(sock_type, protocol)?),
        netabi::AF_INET => inet::create(sock_type, protocol),
        netabi::AF_INET6 => inet::create6(sock_type, protocol),
        netabi::AF_NETLINK => netlink::create(sock_type, protocol),
        netabi::AF_PACKET => packet::create(sock_type, protocol),
        _ => Err(Errno::EAFNOSUPPORT),
    }
}

/// Creates two connected sockets (socketpair).
pub fn create_pair(family: i32, sock_type: u32, protocol: i32) -> Result<(Arc<dyn Socket>, Arc<dyn Socket>)> {
    if family < 0 || family as u32 >= netabi::AF_MAX {
        return Err(Errno::EAFNOSUPPORT);
    }
    if sock_type >= SOCK_MAX {
        return Err(Errno::EINVAL);
    }
    match family as u32 {
        netabi::AF_UNIX => {
            let (a, b) = unix::UnixSocket::create_pair(sock_type, protocol)?;
            Ok((a, b))
        }
        // inet_create accepts the type and protocol first, then
        // socketpair is refused by the family.
        netabi::AF_INET => {
            inet::create(sock_type, protocol)?;
            Err(Errno::EOPNOTSUPP)
        }
        netabi::AF_INET6 => {
            inet::create6(sock_type, protocol)?;
            Err(Errno::EOPNOTSUPP)
        }
        netabi::AF_NETLINK => {
            netlink::create(sock_type, protocol)?;
            Err(Errno::EOPNOTSUPP)
        }
        netabi::AF_PACKET => {
            packet::create(sock_type, protocol)?;
            Err(Errno::EOPNOTSUPP)
        }
        _ => Err(Errno::EAFNOSUPPORT),
    }
}

// --- options ------------------------------------------------------------------

/// The SOL_SOCKET options every socket has.
#[derive(Clone, Debug)]
pub struct OptionValues {
    /// SO_SNDBUF as stored (twice what was asked).
    pub sndbuf: usize,
    /// SO_RCVBUF as stored.
    pub rcvbuf: usize,
    /// SO_RCVTIMEO in ns (None: no timeout).
    pub rcvtimeo_ns: Option<u64>,
    /// SO_SNDTIMEO in ns.
    pub sndtimeo_ns: Option<u64>,
    /// SO_PASSCRED.
    pub passcred: bool,
    /// SO_PASSSEC: kept and reported; with no security module there is no
    /// SCM_SECURITY message to pass, as on a Linux without an LSM.
    pub passsec: bool,
    /// SO_TIMESTAMP, SO_TIMESTAMPNS and their _NEW forms (AF_UNIX
    /// sockets; datagram and seqpacket ones stamp what they receive).
    pub timestamping: timestamp::Timestamping,
    /// SO_REUSEADDR.
    pub reuseaddr: bool,
    /// SO_REUSEPORT.
    pub reuseport: bool,
    /// SO_KEEPALIVE.
    pub keepalive: bool,
    /// SO_BROADCAST.
    pub broadcast: bool,
    /// SO_DONTROUTE.
    pub dontroute: bool,
    /// SO_PRIORITY.
    pub priority: u32,
    /// SO_LINGER: on, and the time in seconds.
    pub linger: (bool, i32),
    /// SO_RCVLOWAT.
    pub rcvlowat: usize,
}

impl Default for OptionValues {
    fn default() -> Self {
        Self {
            sndbuf: DEFAULT_BUFFER,
            rcvbuf: DEFAULT_BUFFER,
            rcvtimeo_ns: None,
            sndtimeo_ns: None,
            passcred: false,
            passsec: false,
            timestamping: timestamp::Timestamping::default(),
            reuseaddr: false,
            reuseport: false,
            keepalive: false,
            broadcast: false,
            dontroute: false,
            priority: 0,
            linger: (false, 0),
            rcvlowat: 1,
        }
    }
}

/// A socket's SOL_SOCKET options behind a lock.
pub struct SocketOptions {
    values: SpinLock<OptionValues>,
    /// SO_ATTACH_FILTER's filter and SO_LOCK_FILTER.
    pub filter: sockfilter::SocketFilter,
}

impl Default for SocketOptions {
    fn default() -> Self {
        Self { values: SpinLock::new(OptionValues::default()), filter: sockfilter::SocketFilter::default() }
    }
}

impl SocketOptions {
    /// Returns a copy of the values.
    pub fn get(&self) -> OptionValues {
        self.values.lock().clone()
    }

    /// Replaces every value (an accepted socket inherits its listener's).
    pub fn set_all(&self, values: OptionValues) {
        *self.values.lock() = values;
    }

    /// Returns SO_SNDBUF.
    pub fn sndbuf(&self) -> usize {
        self.values.lock().sndbuf
    }

    /// Returns SO_PASSCRED.
    pub fn passcred(&self) -> bool {
        self.values.lock().passcred
    }

    /// Returns the receive-timestamp flags.
    pub fn timestamping(&self) -> timestamp::Timestamping {
        self.values.lock().timestamping
    }

    /// Sets SO_PASSCRED (inherited by accepted sockets).
    pub fn set_passcred(&self, on: bool) {
        self.values.lock().passcred = on;
    }
}

/// Reads a `struct timeval` option into ns (None: no timeout), as Linux's
/// sock_set_timeout: a negative time means "do not wait at all", a
/// microsecond count out of range is EDOM.
fn timeout_from_timeval(raw: &[u8]) -> Result<Option<u64>> {
    if raw.len() < 16 {
        return Err(Errno::EINVAL);
    }
    let sec = i64::from_le_bytes(raw[..8].try_into().unwrap());
    let usec = i64::from_le_bytes(raw[8..16].try_into().unwrap());
    if !(0..1_000_000).contains(&usec) {
        return Err(Errno::EDOM);
    }
    if sec < 0 {
        return Ok(Some(0));
    }
    if sec == 0 && usec == 0 {
        return Ok(None);
    }
    Ok(Some((sec as u64).saturating_mul(1_000_000_000).saturating_add(usec as u64 * 1000)))
}

fn timeval_bytes(timeout: Option<u64>) -> Vec<u8> {
    let ns = timeout.unwrap_or(0);
    let mut out = Vec::with_capacity(16);
    out.extend_from_slice(&((ns / 1_000_000_000) as i64).to_le_bytes());
    out.extend_from_slice(&(((ns % 1_000_000_000) / 1000) as i64).to_le_bytes());
    out
}

/// Applies setsockopt(SOL_SOCKET, `name`) with the option bytes `raw`.
pub fn set_socket_option(socket: &dyn Socket, name: u32, raw: &[u8]) -> Result<()> {
    if raw.len() < 4 {
        return Err(Errno::EINVAL);
    }
    let val = i32::from_le_bytes(raw[..4].try_into().unwrap());
    let on = val != 0;
    let mut o = socket.options().values.lock();
    match name {
        netabi::SO_SNDBUF => {
            let asked = (val as u32).min(MAX_BUFFER_REQUEST) as usize;
            o.sndbuf = (asked * 2).max(MIN_SNDBUF);
        }
        netabi::SO_RCVBUF => {
            let asked = (val as u32).min(MAX_BUFFER_REQUEST) as usize;
            o.rcvbuf = (asked * 2).max(MIN_RCVBUF);
        }
        // The forced sizes need CAP_NET_ADMIN and ignore the rmem_max and
        // wmem_max caps; a negative size counts as 0.
        netabi::SO_SNDBUFFORCE | netabi::SO_RCVBUFFORCE => {
            let admin = crate::process::current().is_some_and(|t| crate::process::access::capable(&t.process, linux_raw_sys::general::CAP_NET_ADMIN));
            if !admin {
                return Err(Errno::EPERM);
            }
            let asked = val.clamp(0, i32::MAX / 2) as usize;
            if name == netabi::SO_SNDBUFFORCE {
                o.sndbuf = (asked * 2).max(MIN_SNDBUF);
            } else {
                o.rcvbuf = (asked * 2).max(MIN_RCVBUF);
            }
        }
        netabi::SO_RCVTIMEO_OLD | netabi::SO_RCVTIMEO_NEW => o.rcvtimeo_ns = timeout_from_timeval(raw)?,
        netabi::SO_SNDTIMEO_OLD | netabi::SO_SNDTIMEO_NEW => o.sndtimeo_ns = timeout_from_timeval(raw)?,
        netabi::SO_PASSCRED => o.passcred = on,
        netabi::SO_PASSSEC => o.passsec = on,
        // Only AF_UNIX sockets take them here: their datagram and
        // seqpacket receive paths add the control message (a stream
        // socket takes the option and, as on Linux, never stamps).
        name if timestamp::is_option(name) && socket.family() == u32::from(netabi::AF_UNIX) => o.timestamping.set(name, on),
        netabi::SO_REUSEADDR => o.reuseaddr = on,
        netabi::SO_REUSEPORT => o.reuseport = on,
        netabi::SO_KEEPALIVE => o.keepalive = on,
        netabi::SO_BROADCAST => o.broadcast = on,
        netabi::SO_DONTROUTE => o.dontroute = on,
        netabi::SO_PRIORITY => {
            // Priorities above 6 need CAP_NET_ADMIN (root here).
            let root = crate::process::current().is_some_and(|t| crate::process::access::capable(&t.process, linux_raw_sys::general::CAP_NET_ADMIN));
            if !(0..=6).contains(&val) && !root {
                return Err(Errno::EPERM);
            }
            o.priority = val as u32;
        }
        netabi::SO_LINGER => {
            if raw.len() < 8 {
                return Err(Errno::EINVAL);
            }
            // The time is kept only when lingering is switched on.
            if on {
                o.linger = (true, i32::from_le_bytes(raw[4..8].try_into().unwrap()));
            } else {
                o.linger.0 = false;
            }
        }
        netabi::SO_RCVLOWAT => {
            o.rcvlowat = if val < 0 { i32::MAX as usize } else { (val as usize).max(1) };
        }
        _ => return Err(Errno::ENOPROTOOPT),
    }
    drop(o);
    socket.socket_option_set(name);
    Ok(())
}

/// Returns getsockopt(SOL_SOCKET, `name`): the option bytes (the caller
/// copies at most the user's length of them).
pub fn get_socket_option(socket: &dyn Socket, name: u32) -> Result<Vec<u8>> {
    let int = |v: i32| v.to_le_bytes().to_vec();
    let o = socket.options().get();
    Ok(match name {
        netabi::SO_TYPE => int(socket.sock_type() as i32),
        netabi::SO_DOMAIN => int(socket.family() as i32),
        netabi::SO_PROTOCOL => int(socket.protocol() as i32),
        netabi::SO_ERROR => int(socket.take_error().map_or(0, |e| e.code())),
        netabi::SO_SNDBUF => int(o.sndbuf as i32),
        netabi::SO_RCVBUF => int(o.rcvbuf as i32),
        netabi::SO_RCVTIMEO_OLD | netabi::SO_RCVTIMEO_NEW => timeval_bytes(o.rcvtimeo_ns),
        netabi::SO_SNDTIMEO_OLD | netabi::SO_SNDTIMEO_NEW => timeval_bytes(o.sndtimeo_ns),
        netabi::SO_PASSCRED => int(o.passcred as i32),
        netabi::SO_PASSSEC => int(o.passsec as i32),
        netabi::SO_LOCK_FILTER => int(socket.options().filter.locked() as i32),
        name if timestamp::is_option(name) && socket.family() == u32::from(netabi::AF_UNIX) => int(o.timestamping.get(name) as i32),
        netabi::SO_PEERCRED => {
            let cred = socket.peer_cred();
            // No peer: pid 0 and ids -1, unmapped (cred_to_ucred).
            if cred == Ucred::NONE { cred } else { cred.seen_by_caller() }.to_bytes().to_vec()
        }
        netabi::SO_ACCEPTCONN => int(socket.is_listening() as i32),
        netabi::SO_REUSEADDR => int(o.reuseaddr as i32),
        netabi::SO_REUSEPORT => int(o.reuseport as i32),
        netabi::SO_KEEPALIVE => int(o.keepalive as i32),
        netabi::SO_BROADCAST => int(o.broadcast as i32),
        netabi::SO_DONTROUTE => int(o.dontroute as i32),
        netabi::SO_PRIORITY => int(o.priority as i32),
        netabi::SO_RCVLOWAT => int(o.rcvlowat as i32),
        // SO_SNDLOWAT cannot be changed on Linux; it always reads 1.
        netabi::SO_SNDLOWAT => int(1),
        netabi::SO_LINGER => {
            let mut v = int(o.linger.0 as i32);
            v.extend_from_slice(&o.linger.1.to_le_bytes());
            v
        }
        _ => return Err(Errno::ENOPROTOOPT),
    })
}

// --- waiting ------------------------------------------------------------------

/// Sleeps on `queue` until `ready` gives a value. `nonblocking` or a zero
/// `timeout_ns` checks once and gives EAGAIN; otherwise the wait ends with
/// EAGAIN when the timeout (None: none) passes, as a socket timeout does
/// on Linux. A signal gives EINTR, which a timed wait marks as not to be
/// restarted ([`EINTR_NO_RESTART`]).
pub fn wait_for<T>(queue: &WaitQueue, nonblocking: bool, timeout_ns: Option<u64>, mut ready: impl FnMut() -> Result<Option<T>>) -> Result<T> {
    if nonblocking || timeout_ns == Some(0) {
        return ready()?.ok_or(Errno::EAGAIN);
    }
    if let Some(v) = ready()? {
        return Ok(v);
    }
    let thread = crate::process::current().expect("socket wait outside a thread");
    let deadline = timeout_ns.map(|t| kevlar_platform::time::monotonic_ns().saturating_add(t));
    if let Some(d) = deadline {
        crate::timer::arm(d, thread.clone());
    }
    let result = queue.wait_until(|| match ready()? {
        Some(v) => Ok(Some(v)),
        None if deadline.is_some_and(|d| kevlar_platform::time::monotonic_ns() >= d) => Err(Errno::EAGAIN),
        None => Ok(None),
    });
    if deadline.is_some() {
        crate::timer::disarm(&thread);
    }
    match result {
        Err(Errno::EINTR) if deadline.is_some() => Err(EINTR_NO_RESTART),
        other => other,
    }
}

/// Sends SIGPIPE to the caller (a stream write to a shut-down or closed
/// connection without MSG_NOSIGNAL).
pub fn raise_sigpipe() {
    if let Some(thread) = crate::process::current() {
        crate::process::signal::send_signal_to_current(&thread, crate::process::signal::SIGPIPE);
    }
}

// --- the open file ------------------------------------------------------------

static NEXT_SOCKET_INO: AtomicU64 = AtomicU64::new(1);

/// A socket as an open file.
pub struct SocketFile {
    /// The socket.
    pub socket: Arc<dyn Socket>,
    ino: u64,
    uid: u32,
    gid: u32,
}

impl SocketFile {
    /// Wraps `socket` as an open file owned by the caller; `flags` are the
    /// status flags (O_NONBLOCK).
    pub fn open(socket: Arc<dyn Socket>, flags: u32) -> Arc<OpenFile> {
        let (uid, gid, cgroup) = crate::process::current().map_or((0, 0, 1), |t| {
            let c = t.process.creds.lock();
            (c.euid, c.egid, t.process.cgroup.cgroup().id)
        });
        let ino = NEXT_SOCKET_INO.fetch_add(1, Ordering::Relaxed);
        procnet::register(ino, &socket, uid, cgroup);
        let ops = Arc::new(SocketFile { socket, ino, uid, gid });
        let mut path = b"socket:[".to_vec();
        path.extend_from_slice(alloc::format!("{}]", ino).as_bytes());
        OpenFile::new(ops, abi::O_RDWR | (flags & abi::O_NONBLOCK), path)
    }
}

impl Drop for SocketFile {
    fn drop(&mut self) {
        procnet::unregister(self.ino);
    }
}

impl FileOps for SocketFile {
    fn read(&self, file: &OpenFile, _offset: u64, buf: &mut [u8]) -> Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        let mut sink = Sink::Kernel(buf, 0);
        Ok(self.socket.recv(&mut sink, 0, file.nonblocking())?.len)
    }

    fn write(&self, file: &OpenFile, _offset: u64, buf: &[u8]) -> Result<usize> {
        let flags = if self.socket.sock_type() == netabi::SOCK_SEQPACKET { netabi::MSG_EOR } else { 0 };
        let mut msg = Outgoing { data: Source::Kernel(buf, 0), addr: None, rights: Vec::new(), creds: None, flags, nonblocking: file.nonblocking() };
        self.socket.send(&mut msg)
    }

    fn stat(&self) -> Result<Stat> {
        Ok(crate::fs::anon::pseudo_stat(0x08, self.ino, FileType::Socket.mode_bits() | 0o777, self.uid, self.gid))
    }

    fn is_seekable(&self) -> bool {
        false
    }

    fn poll(&self) -> PollEvents {
        self.socket.poll()
    }

    fn is_pollable(&self) -> bool {
        true
    }

    fn poll_counts(&self) -> (u64, u64) {
        self.socket.poll_counts()
    }

    fn poll_queue(&self) -> Option<&crate::fs::poll_queue::PollQueue> {
        self.socket.poll_queue()
    }

    fn release(&self, _file: &OpenFile) {
        self.socket.release();
    }

    fn ioctl(&self, _file: &OpenFile, request: u32, arg: usize) -> Result<isize> {
        if inet::iface::is_interface_ioctl(request) {
            return inet::iface::ioctl(request, arg);
        }
        let value = match request {
            linux_raw_sys::ioctl::FIONREAD => self.socket.unread_bytes()?,
            linux_raw_sys::ioctl::TIOCOUTQ => self.socket.unsent_bytes(),
            _ => return Err(Errno::ENOTTY),
        };
        copy_to_user(arg, &(value as i32).to_le_bytes())?;
        Ok(0)
    }

    fn as_socket(&self) -> Option<&SocketFile> {
        Some(self)
    }
}
