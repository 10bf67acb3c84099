//! AF_UNIX sockets: SOCK_STREAM, SOCK_DGRAM and SOCK_SEQPACKET, with
//! filesystem and abstract addresses, listen backlogs, SCM_RIGHTS and
//! SCM_CREDENTIALS, following Linux's net/unix/af_unix.c.
//!
//! Each socket has a receive queue of messages. A sender charges the bytes
//! it has queued at its peer to its own send buffer (Linux's
//! sk_wmem_alloc), so a full peer makes the sender wait; the charge is
//! returned when a message is consumed or dropped. Stream reads join
//! messages; datagram and seqpacket reads take one message each. A
//! connect makes the server side of the connection at once ("embryo"),
//! queues it at the listener and is connected before accept takes it.
//!
//! Locking: each socket's state is under its own lock, and no code holds
//! two sockets' locks at once; messages (which may hold open files, and
//! return their charge to the sender) are dropped only after unlocking.

use alloc::collections::{BTreeMap, VecDeque};
use alloc::sync::{Arc, Weak};
use alloc::vec::Vec;
use core::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering};

use kevlar_platform::sync::SpinLock;
use kevlar_vfs::{FileType, Inode, Timespec, WalkFlags};
use linux_raw_sys::net as netabi;

use super::{wait_for, Incoming, Outgoing, PeerCred, Sink, Socket, SocketOptions, Ucred};
use crate::error::{Errno, Result};
use crate::fs::file::{OpenFile, PollEvents, POLLERR, POLLHUP, POLLIN, POLLOUT, POLLRDHUP, POLLRDNORM, POLLWRBAND, POLLWRNORM};
use crate::process::wait_queue::WaitQueue;
use crate::process::Thread;

const AF_UNIX: u16 = netabi::AF_UNIX as u16;
/// Where sun_path starts in a sockaddr_un.
const PATH_OFFSET: usize = 2;
/// sizeof(struct sockaddr_un).
const SOCKADDR_UN_LEN: usize = core::mem::size_of::<netabi::sockaddr_un>();
/// A receiver not connected back to the sender is full with more than this
/// many datagrams queued (Linux's net.unix.max_dgram_qlen).
const MAX_DGRAM_QLEN: usize = 10;
/// Bytes charged per message on top of its data (Linux charges an
/// sk_buff's true size: data plus about this much bookkeeping).
const MESSAGE_OVERHEAD: usize = 576;
/// The largest piece a stream send queues as one message (Linux: 32 KiB
/// of page fragments plus a head of about a page).
const MAX_STREAM_SEGMENT: usize = 32768 + 3776;

const RCV_SHUTDOWN: u8 = 1;
const SEND_SHUTDOWN: u8 = 2;
const SHUTDOWN_MASK: u8 = 3;


#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum State {
    /// Fresh, or a datagram socket without a default peer.
    Unconnected,
    /// listen() was called.
    Listening,
    /// Has a peer (stream and seqpacket: for good).
    Connected,
}

/// A queued message: a datagram, or a piece of a stream.
struct Message {
    data: Vec<u8>,
    /// Bytes already read (streams read messages in parts).
    consumed: usize,
    /// The sending socket: its address is the source address, and the
    /// charge goes back to it when the message goes away.
    sender: Arc<UnixSocket>,
    charge: usize,
    /// Credentials attached (SCM_CREDENTIALS, or added because one end
    /// had SO_PASSCRED).
    creds: Option<Ucred>,
    /// Open files passed (SCM_RIGHTS).
    rights: Vec<Arc<OpenFile>>,
    /// When it was sent, if the receiver asked for timestamps then (as
    /// Linux stamps a datagram in unix_dgram_sendmsg).
    stamp: Option<Timespec>,
}

impl Message {
    fn unread(&self) -> usize {
        self.data.len() - self.consumed
    }
}

impl Drop for Message {
    fn drop(&mut self) {
        self.sender.uncharge(self.charge);
    }
}

struct Inner {
    /// The bound address, as getsockname reports it (shared by the
    /// sockets a listener accepts).
    name: Option<Arc<Vec<u8>>>,
    /// The filesystem node of a path binding.
    node: Option<Arc<dyn Inode>>,
    state: State,
    /// A connect is between its checks and its commit.
    connecting: bool,
    /// listen()'s backlog: more pending connections than this is full.
    backlog: usize,
    /// Connections not yet accepted (listening sockets).
    pending: VecDeque<Arc<UnixSocket>>,
    /// The other end (stream, seqpacket), or the default destination
    /// (datagram). Kept after the peer closes, as Linux does.
    peer: Option<Arc<UnixSocket>>,
    queue: VecDeque<Message>,
    /// RCV_SHUTDOWN and SEND_SHUTDOWN bits.
    shutdown: u8,
    /// The pending error (SO_ERROR): ECONNRESET when a peer closed with
    /// unread data.
    error: Option<Errno>,
    /// SO_PEERCRED and SO_PEERGROUPS.
    peer_cred: Option<PeerCred>,
    /// The last fd closed.
    dead: bool,
    /// Has an open file: false for a connection not yet accepted (Linux
    /// attaches credentials to everything sent to such a socket).
    has_file: bool,
}

/// An AF_UNIX socket.
pub struct UnixSocket {
    sock_type: u32,
    me: Weak<UnixSocket>,
    inner: SpinLock<Inner>,
    /// Readers, writers, acceptors and connectors of this socket sleep
    /// here; any change to its queue, charge or state wakes them.
    waiters: WaitQueue,
    /// Pollers and epoll entries of this socket.
    pollers: crate::fs::poll_queue::PollQueue,
    /// Bytes charged for messages this socket has queued elsewhere.
    wmem: AtomicUsize,
    read_events: AtomicU64,
    write_events: AtomicU64,
    options: SocketOptions,
    /// The nsfs inode number of the network namespace it was made in.
    net: u64,
}

/// Sockets bound to filesystem nodes, by (filesystem id, inode number).
/// The bound socket keeps its node alive, so the number is not reused.
static BY_NODE: SpinLock<BTreeMap<(u64, u64), Weak<UnixSocket>>> = SpinLock::new(BTreeMap::new());
/// Sockets bound to abstract names, by (address bytes, type, network
/// namespace): Linux hashes the type into abstract lookups, so each type
/// has its own namespace, and abstract names are per network namespace
/// (the one the socket was made in); path names are not.
static ABSTRACT: SpinLock<BTreeMap<(Vec<u8>, u32, u64), Weak<UnixSocket>>> = SpinLock::new(BTreeMap::new());
/// The next autobind name to try (five hex digits).
static NEXT_AUTOBIND: AtomicU32 = AtomicU32::new(0);

impl UnixSocket {
    fn new(sock_type: u32, inner: Inner) -> Arc<UnixSocket> {
        Arc::new_cyclic(|me| UnixSocket {
            sock_type,
            me: me.clone(),
            inner: SpinLock::new(inner),
            waiters: WaitQueue::new(),
            pollers: crate::fs::poll_queue::PollQueue::new(),
            wmem: AtomicUsize::new(0),
            read_events: AtomicU64::new(0),
            write_events: AtomicU64::new(0),
            options: SocketOptions::default(),
            net: crate::ns::net::current().inum,
        })
    }

    fn fresh_inner(state: State, has_file: bool) -> Inner {
        Inner {
            name: None,
            node: None,
            state,
            connecting: false,
            backlog: 0,
            pending: VecDeque::new(),
            peer: None,
            queue: VecDeque::new(),
            shutdown: 0,
            error: None,
            peer_cred: None,
            dead: false,
            has_file,
        }
    }

    /// Checks the protocol and type as unix_create does; SOCK_RAW means a
    /// datagram socket.
    fn checked_type(sock_type: u32, protocol: i32) -> Result<u32> {
        if protocol != 0 && protocol != netabi::AF_UNIX as i32 {
            return Err(Errno::EPROTONOSUPPORT);
        }
        match sock_type {
            netabi::SOCK_STREAM | netabi::SOCK_DGRAM | netabi::SOCK_SEQPACKET => Ok(sock_type),
            netabi::SOCK_RAW => Ok(netabi::SOCK_DGRAM),
            _ => Err(Errno::ESOCKTNOSUPPORT),
        }
    }

    /// Creates an unconnected socket.
    pub fn create(sock_type: u32, protocol: i32) -> Result<Arc<UnixSocket>> {
        let sock_type = Self::checked_type(sock_type, protocol)?;
        Ok(Self::new(sock_type, Self::fresh_inner(State::Unconnected, true)))
    }

    /// Creates two sockets connected to each other (socketpair).
    pub fn create_pair(sock_type: u32, protocol: i32) -> Result<(Arc<UnixSocket>, Arc<UnixSocket>)> {
        let sock_type = Self::checked_type(sock_type, protocol)?;
        let cred = PeerCred::current();
        let a = Self::new(sock_type, Self::fresh_inner(State::Connected, true));
        let b = Self::new(sock_type, Self::fresh_inner(State::Connected, true));
        for (x, y) in [(&a, &b), (&b, &a)] {
            let mut s = x.inner.lock();
            s.peer = Some(y.clone());
            s.peer_cred = Some(cred.clone());
        }
        Ok((a, b))
    }

    fn arc(&self) -> Arc<UnixSocket> {
        self.me.upgrade().expect("socket used after its last reference")
    }

    fn is(&self, other: &UnixSocket) -> bool {
        core::ptr::eq(self, other)
    }

    fn stream(&self) -> bool {
        self.sock_type == netabi::SOCK_STREAM
    }

    /// Connection-based: stream and seqpacket.
    fn connection_based(&self) -> bool {
        self.sock_type != netabi::SOCK_DGRAM
    }

    fn wmem(&self) -> usize {
        self.wmem.load(Ordering::Acquire)
    }

    /// Returns a message's charge and wakes writers waiting for room.
    fn uncharge(&self, bytes: usize) {
        self.wmem.fetch_sub(bytes, Ordering::AcqRel);
        self.write_events.fetch_add(1, Ordering::Relaxed);
        self.waiters.wake_all();
        self.pollers.notify(linux_raw_sys::general::EPOLLOUT);
    }

    /// Wakes everyone waiting on this socket after a change that may make
    /// it readable and writable (data, shutdown, close, errors).
    fn changed(&self) {
        self.read_events.fetch_add(1, Ordering::Relaxed);
        self.write_events.fetch_add(1, Ordering::Relaxed);
        self.waiters.wake_all();
        self.pollers.notify(0);
    }

    fn name(&self) -> Option<Arc<Vec<u8>>> {
        self.inner.lock().name.clone()
    }

    // --- addresses ------------------------------------------------------

    /// Checks an address as unix_validate_addr: longer than the family,
    /// at most a sockaddr_un, family AF_UNIX.
    fn validate(addr: &[u8]) -> Result<()> {
        if addr.len() <= PATH_OFFSET || addr.len() > SOCKADDR_UN_LEN {
            return Err(Errno::EINVAL);
        }
        if u16::from_le_bytes([addr[0], addr[1]]) != AF_UNIX {
            return Err(Errno::EINVAL);
        }
        Ok(())
    }

    /// The path of a filesystem address: sun_path up to its first NUL.
    fn path_of(addr: &[u8]) -> &[u8] {
        let path = &addr[PATH_OFFSET..];
        &path[..path.iter().position(|&b| b == 0).unwrap_or(path.len())]
    }

    /// Finds the socket an address names, for connect and sendto.
    fn find(thread: &Thread, addr: &[u8], sock_type: u32, net: u64) -> Result<Arc<UnixSocket>> {
        if addr[PATH_OFFSET] != 0 {
            let path = Self::path_of(addr);
            let fs = thread.process.fs.lock().clone();
            let cred = fs_cred(thread);
            let node = fs.lookup(&cred, None, path, WalkFlags::EMPTY)?;
            kevlar_vfs::check_access(&node.stat()?, &cred, kevlar_vfs::Access::WRITE)?;
            if node.file_type() != FileType::Socket {
                return Err(Errno::ECONNREFUSED);
            }
            let found = BY_NODE.lock().get(&(node.fs_id(), node.ino())).and_then(Weak::upgrade);
            let socket = found.ok_or(Errno::ECONNREFUSED)?;
            if socket.sock_type != sock_type {
                return Err(Errno::EPROTOTYPE);
            }
            Ok(socket)
        } else {
            let found = ABSTRACT.lock().get(&(addr.to_vec(), sock_type, net)).and_then(Weak::upgrade);
            found.ok_or(Errno::ECONNREFUSED)
        }
    }

    /// Binds a free name of the form "\0xxxxx" (unix_autobind); a bound
    /// socket keeps its name.
    fn autobind(&self) -> Result<()> {
        if self.inner.lock().name.is_some() {
            return Ok(());
        }
        let mut table = ABSTRACT.lock();
        for _ in 0..=0xfffff {
            let n = NEXT_AUTOBIND.fetch_add(1, Ordering::Relaxed) & 0xfffff;
            let mut name = AF_UNIX.to_le_bytes().to_vec();
            name.push(0);
            name.extend_from_slice(alloc::format!("{:05x}", n).as_bytes());
            let key = (name.clone(), self.sock_type, self.net);
            if table.get(&key).is_some_and(|w| w.strong_count() > 0) {
                continue;
            }
            let mut s = self.inner.lock();
            if s.name.is_some() {
                return Ok(());
            }
            s.name = Some(Arc::new(name));
            table.insert(key, self.me.clone());
            return Ok(());
        }
        Err(Errno::ENOSPC)
    }

    fn bind_path(&self, thread: &Thread, addr: &[u8]) -> Result<()> {
        let path = Self::path_of(addr).to_vec();
        let mut name = addr[..PATH_OFFSET].to_vec();
        name.extend_from_slice(&path);
        name.push(0);
        let (fs, umask) = {
            let fs = thread.process.fs.lock();
            (fs.clone(), fs.umask)
        };
        let cred = fs_cred(thread);
        let parent = fs.lookup_parent(&cred, None, &path)?;
        let entry = parent.name_for_create()?;
        kevlar_vfs::check_access(&parent.dir.stat()?, &cred, kevlar_vfs::Access::WRITE | kevlar_vfs::Access::EXEC)?;
        // The node comes first: an existing name is EADDRINUSE even for a
        // socket already bound (then EINVAL, and the new node goes away).
        let node = parent.dir.create(entry, FileType::Socket, 0o777 & !umask, cred.uid, cred.gid, 0).map_err(|e| if e == Errno::EEXIST { Errno::EADDRINUSE } else { e })?;
        let mut table = BY_NODE.lock();
        let mut s = self.inner.lock();
        if s.name.is_some() {
            drop(s);
            drop(table);
            let _ = parent.dir.unlink(entry);
            crate::fs::path_memo::names_changed();
            return Err(Errno::EINVAL);
        }
        table.insert((node.fs_id(), node.ino()), self.me.clone());
        s.name = Some(Arc::new(name));
        s.node = Some(node);
        Ok(())
    }

    fn bind_abstract(&self, addr: &[u8]) -> Result<()> {
        let mut table = ABSTRACT.lock();
        let mut s = self.inner.lock();
        if s.name.is_some() {
            return Err(Errno::EINVAL);
        }
        let key = (addr.to_vec(), self.sock_type, self.net);
        if table.get(&key).is_some_and(|w| w.strong_count() > 0) {
            return Err(Errno::EADDRINUSE);
        }
        table.insert(key, self.me.clone());
        s.name = Some(Arc::new(addr.to_vec()));
        Ok(())
    }

    /// Drops this socket's entry from the name tables (if it is its own:
    /// accepted sockets share the listener's name without owning it).
    fn unregister(&self, name: Option<&Arc<Vec<u8>>>, node: Option<&Arc<dyn Inode>>) {
        let mine = |w: &Weak<UnixSocket>| core::ptr::eq(w.as_ptr(), self as *const UnixSocket);
        if let Some(node) = node {
            let key = (node.fs_id(), node.ino());
            let mut table = BY_NODE.lock();
            if table.get(&key).is_some_and(mine) {
                table.remove(&key);
            }
        } else if let Some(name) = name {
            let key = (name.to_vec(), self.sock_type, self.net);
            let mut table = ABSTRACT.lock();
            if table.get(&key).is_some_and(mine) {
                table.remove(&key);
            }
        }
    }

    // --- connections ----------------------------------------------------

    fn connect_stream(&self, thread: &Thread, addr: &[u8], nonblocking: bool) -> Result<()> {
        Self::validate(addr)?;
        if self.options.passcred() {
            self.autobind()?;
        }
        let timeout = self.options.get().sndtimeo_ns;
        loop {
            let listener = Self::find(thread, addr, self.sock_type, self.net)?;
            // The listener's conditions come first (ECONNREFUSED, a full
            // backlog), then this socket's state, as unix_stream_connect.
            let full = {
                let l = listener.inner.lock();
                if l.dead {
                    continue;
                }
                if l.state != State::Listening || l.shutdown & RCV_SHUTDOWN != 0 {
                    return Err(Errno::ECONNREFUSED);
                }
                l.pending.len() > l.backlog
            };
            if full {
                wait_for(&listener.waiters, nonblocking, timeout, || {
                    let l = listener.inner.lock();
                    Ok((l.dead || l.shutdown & RCV_SHUTDOWN != 0 || l.state != State::Listening || l.pending.len() <= l.backlog).then_some(()))
                })?;
                continue;
            }
            {
                let mut s = self.inner.lock();
                match s.state {
                    State::Connected => return Err(Errno::EISCONN),
                    State::Listening => return Err(Errno::EINVAL),
                    State::Unconnected if s.connecting => return Err(Errno::EALREADY),
                    State::Unconnected => s.connecting = true,
                }
            }
            // The server end of the connection, connected to us already.
            let mut embryo_state = Self::fresh_inner(State::Connected, false);
            embryo_state.peer = Some(self.arc());
            embryo_state.peer_cred = Some(PeerCred::current());
            // A listener is bound, and a bound name never changes. The
            // connection shares its file too (without owning its entry
            // in the name table), as unix_stream_connect copies the path.
            embryo_state.name = listener.name();
            embryo_state.node = listener.inner.lock().node.clone();
            let embryo = Self::new(self.sock_type, embryo_state);
            let listener_cred = {
                let mut l = listener.inner.lock();
                if l.dead || l.state != State::Listening || l.shutdown & RCV_SHUTDOWN != 0 || l.pending.len() > l.backlog {
                    drop(l);
                    self.inner.lock().connecting = false;
                    continue;
                }
                l.pending.push_back(embryo.clone());
                l.peer_cred.clone()
            };
            {
                let mut s = self.inner.lock();
                s.connecting = false;
                s.state = State::Connected;
                s.peer = Some(embryo);
                s.peer_cred = listener_cred;
            }
            listener.changed();
            self.changed();
            return Ok(());
        }
    }

    fn connect_dgram(&self, thread: &Thread, addr: &[u8]) -> Result<()> {
        if addr.len() < PATH_OFFSET {
            return Err(Errno::EINVAL);
        }
        let family = u16::from_le_bytes([addr[0], addr[1]]);
        let target = if family == netabi::AF_UNSPEC as u16 {
            None
        } else {
            Self::validate(addr)?;
            if self.options.passcred() {
                self.autobind()?;
            }
            let other = loop {
                let other = Self::find(thread, addr, self.sock_type, self.net)?;
                let o = other.inner.lock();
                if o.dead {
                    continue;
                }
                // Only a socket not connected elsewhere takes us.
                if o.peer.as_ref().is_some_and(|p| !p.is(self)) {
                    return Err(Errno::EPERM);
                }
                drop(o);
                break other;
            };
            Some(other)
        };
        let old = {
            let mut s = self.inner.lock();
            let old = core::mem::replace(&mut s.peer, target.clone());
            s.state = if s.peer.is_some() { State::Connected } else { State::Unconnected };
            old
        };
        if let Some(old) = old {
            if target.as_ref().is_none_or(|t| !Arc::ptr_eq(t, &old)) {
                self.disconnected_from(&old);
            }
        }
        self.changed();
        Ok(())
    }

    /// A datagram socket left its peer: what it had received (from that
    /// peer) is dropped, and a peer connected back to it learns of the
    /// loss through ECONNRESET (unix_dgram_disconnected).
    fn disconnected_from(&self, old: &Arc<UnixSocket>) {
        let dropped = core::mem::take(&mut self.inner.lock().queue);
        if dropped.is_empty() {
            return;
        }
        drop(dropped);
        let mut o = old.inner.lock();
        if !o.dead && o.peer.as_ref().is_some_and(|p| p.is(self)) {
            o.error = Some(Errno::ECONNRESET);
            drop(o);
            old.changed();
        }
    }

    /// Closes the socket: `embryo` for a connection its listener dropped
    /// before accepting it.
    fn close(&self, embryo: bool) {
        let (peer, queue, pending, name, node) = {
            let mut s = self.inner.lock();
            if s.dead {
                return;
            }
            s.dead = true;
            s.shutdown = SHUTDOWN_MASK;
            s.state = State::Unconnected;
            (s.peer.take(), core::mem::take(&mut s.queue), core::mem::take(&mut s.pending), s.name.clone(), s.node.take())
        };
        self.unregister(name.as_ref(), node.as_ref());
        if let Some(peer) = &peer {
            if self.connection_based() {
                // The other end can neither read more nor write; it gets
                // ECONNRESET if data it sent was never read.
                let mut p = peer.inner.lock();
                p.shutdown = SHUTDOWN_MASK;
                if !queue.is_empty() || embryo {
                    p.error = Some(Errno::ECONNRESET);
                }
                drop(p);
                peer.changed();
            }
        }
        drop(peer);
        for connection in pending {
            connection.close(true);
        }
        drop(queue);
        self.changed();
    }

    // --- sending --------------------------------------------------------

    /// Waits for room in the send buffer, as sock_alloc_send_pskb: a
    /// pending error or a shut-down sending side ends the wait.
    fn wait_for_room(&self, nonblocking: bool, timeout: Option<u64>) -> Result<()> {
        wait_for(&self.waiters, nonblocking, timeout, || {
            let mut s = self.inner.lock();
            if let Some(e) = s.error.take() {
                return Err(e);
            }
            if s.shutdown & SEND_SHUTDOWN != 0 {
                return Err(Errno::EPIPE);
            }
            drop(s);
            Ok((self.wmem() < self.options.sndbuf()).then_some(()))
        })
    }

    /// The credentials a message to `receiver` carries: the explicit
    /// ones, else the sender's when either end asked for them (or the
    /// receiver is a connection not yet accepted).
    fn message_creds(&self, explicit: Option<Ucred>, receiver: &UnixSocket, receiver_has_file: bool) -> Option<Ucred> {
        if explicit.is_some() {
            return explicit;
        }
        if self.options.passcred() || !receiver_has_file || receiver.options.passcred() {
            return Some(Ucred::current_real());
        }
        None
    }

    fn send_stream(&self, msg: &mut Outgoing<'_>) -> Result<usize> {
        if msg.flags & netabi::MSG_OOB != 0 {
            return Err(Errno::EOPNOTSUPP);
        }
        let (peer, shutdown, state) = {
            let s = self.inner.lock();
            (s.peer.clone(), s.shutdown, s.state)
        };
        if msg.addr.is_some() {
            return Err(if state == State::Connected { Errno::EISCONN } else { Errno::EOPNOTSUPP });
        }
        let peer = peer.ok_or(Errno::ENOTCONN)?;
        let pipe_error = |sent: usize| {
            if sent == 0 && msg.flags & netabi::MSG_NOSIGNAL == 0 {
                super::raise_sigpipe();
            }
        };
        if shutdown & SEND_SHUTDOWN != 0 {
            pipe_error(0);
            return Err(Errno::EPIPE);
        }
        let total = msg.data.remaining();
        let timeout = self.options.get().sndtimeo_ns;
        let mut rights = core::mem::take(&mut msg.rights);
        let mut sent = 0;
        while sent < total {
            let sndbuf = self.options.sndbuf();
            let size = (total - sent).min(sndbuf / 2 - 64).min(MAX_STREAM_SEGMENT);
            let data = self.wait_for_room(msg.nonblocking, timeout).and_then(|()| msg.data.take(size));
            let data = match data {
                Ok(d) => d,
                Err(_) if sent > 0 => return Ok(sent),
                Err(e) => return Err(e),
            };
            let charge = size + MESSAGE_OVERHEAD;
            self.wmem.fetch_add(charge, Ordering::AcqRel);
            let mut message = Message { data, consumed: 0, sender: self.arc(), charge, creds: None, rights: core::mem::take(&mut rights), stamp: None };
            let mut p = peer.inner.lock();
            if p.dead || p.shutdown & RCV_SHUTDOWN != 0 {
                drop(p);
                drop(message);
                pipe_error(sent);
                return if sent > 0 { Ok(sent) } else { Err(Errno::EPIPE) };
            }
            message.creds = self.message_creds(msg.creds, &peer, p.has_file);
            p.queue.push_back(message);
            drop(p);
            peer.changed();
            sent += size;
        }
        Ok(sent)
    }

    fn send_dgram(&self, thread: &Thread, msg: &mut Outgoing<'_>) -> Result<usize> {
        if msg.flags & netabi::MSG_OOB != 0 {
            return Err(Errno::EOPNOTSUPP);
        }
        let mut target = match &msg.addr {
            Some(addr) => {
                Self::validate(addr)?;
                None
            }
            None => Some(self.inner.lock().peer.clone().ok_or(Errno::ENOTCONN)?),
        };
        if self.options.passcred() {
            self.autobind()?;
        }
        let len = msg.data.remaining();
        let opts = self.options.get();
        if len > opts.sndbuf - 32 {
            return Err(Errno::EMSGSIZE);
        }
        self.wait_for_room(msg.nonblocking, opts.sndtimeo_ns)?;
        let data = msg.data.take(len)?;
        let charge = len + MESSAGE_OVERHEAD;
        self.wmem.fetch_add(charge, Ordering::AcqRel);
        let mut message = Message { data, consumed: 0, sender: self.arc(), charge, creds: None, rights: core::mem::take(&mut msg.rights), stamp: None };
        loop {
            let other = match target.take() {
                Some(t) => t,
                None => match &msg.addr {
                    Some(addr) => Self::find(thread, addr, self.sock_type, self.net)?,
                    None => return Err(Errno::ECONNRESET),
                },
            };
            // The receiver's filter first (Linux's sk_filter in
            // unix_dgram_sendmsg): 0 tosses the message, the sender told
            // it all went; a smaller length cuts it (1 byte at least).
            match other.options.filter.keep(&message.data, 1) {
                None => return Ok(len),
                Some(keep) => message.data.truncate(keep),
            }
            // Read before the receiver's queue is locked: the option's lock
            // is never taken inside it.
            let stamp = other.options.timestamping().on.then(crate::clock::now);
            let mut o = other.inner.lock();
            if o.peer.as_ref().is_some_and(|p| !p.is(self)) {
                return Err(Errno::EPERM);
            }
            if o.dead {
                drop(o);
                if self.sock_type == netabi::SOCK_SEQPACKET {
                    return Err(Errno::EPIPE);
                }
                // Sending to our default peer that closed: disconnect and
                // refuse; to an address, look it up again.
                let was_peer = {
                    let mut s = self.inner.lock();
                    if s.peer.as_ref().is_some_and(|p| Arc::ptr_eq(p, &other)) {
                        s.peer = None;
                        s.state = State::Unconnected;
                        true
                    } else {
                        false
                    }
                };
                if was_peer {
                    self.disconnected_from(&other);
                    self.changed();
                    return Err(Errno::ECONNREFUSED);
                }
                continue;
            }
            if o.shutdown & RCV_SHUTDOWN != 0 {
                return Err(Errno::EPIPE);
            }
            let connected_back = o.peer.as_ref().is_some_and(|p| p.is(self));
            if !other.is(self) && !connected_back && o.queue.len() > MAX_DGRAM_QLEN {
                drop(o);
                wait_for(&other.waiters, msg.nonblocking, opts.sndtimeo_ns, || {
                    let o = other.inner.lock();
                    Ok((o.dead || o.shutdown & RCV_SHUTDOWN != 0 || o.queue.len() <= MAX_DGRAM_QLEN || o.peer.as_ref().is_some_and(|p| p.is(self))).then_some(()))
                })?;
                if msg.addr.is_none() {
                    target = Some(other);
                }
                continue;
            }
            message.creds = self.message_creds(msg.creds, &other, o.has_file);
            message.stamp = stamp;
            o.queue.push_back(message);
            drop(o);
            other.changed();
            return Ok(len);
        }
    }

    // --- receiving ------------------------------------------------------

    fn recv_stream(&self, sink: &mut Sink<'_>, flags: u32, nonblocking: bool) -> Result<Incoming> {
        if self.inner.lock().state != State::Connected {
            return Err(Errno::EINVAL);
        }
        if flags & netabi::MSG_OOB != 0 {
            // Linux's answer when no urgent byte is queued; none ever is.
            return Err(Errno::EINVAL);
        }
        let opts = self.options.get();
        let size = sink.room();
        let target = if flags & netabi::MSG_WAITALL != 0 { size } else { opts.rcvlowat.min(size) }.max(1);
        let peek = flags & netabi::MSG_PEEK != 0;
        let mut out = Incoming::default();
        // With SO_PASSCRED, the credentials of the first message read;
        // messages with other credentials are not joined to it.
        let mut scm: Option<Option<Ucred>> = None;
        let mut copied = 0;
        loop {
            enum Step {
                Data(Vec<u8>, Vec<Arc<OpenFile>>, Option<Arc<UnixSocket>>, Vec<Message>, bool),
                Done,
                Fail(Errno),
            }
            let room = size - copied;
            let step = wait_for(&self.waiters, nonblocking, opts.rcvtimeo_ns, || {
                let mut s = self.inner.lock();
                if !s.queue.is_empty() && room > 0 {
                    let mut data = Vec::new();
                    let mut rights = Vec::new();
                    let mut from = None;
                    let mut finished = Vec::new();
                    let mut stop = false;
                    let mut index = 0;
                    while data.len() < room && index < s.queue.len() {
                        let m = &mut s.queue[index];
                        if opts.passcred {
                            match scm {
                                Some(c) if c != m.creds => {
                                    stop = true;
                                    break;
                                }
                                None => scm = Some(m.creds),
                                _ => {}
                            }
                        }
                        from = Some(m.sender.clone());
                        let chunk = m.unread().min(room - data.len());
                        data.extend_from_slice(&m.data[m.consumed..m.consumed + chunk]);
                        if peek {
                            if !m.rights.is_empty() {
                                rights.extend(m.rights.iter().cloned());
                                stop = true;
                                break;
                            }
                            index += 1;
                            continue;
                        }
                        m.consumed += chunk;
                        let had_rights = !m.rights.is_empty();
                        rights.append(&mut m.rights);
                        if m.unread() > 0 {
                            stop = true;
                            break;
                        }
                        finished.push(s.queue.pop_front().unwrap());
                        if had_rights {
                            stop = true;
                            break;
                        }
                    }
                    // A peek looks at what is queued once and returns.
                    if peek {
                        stop = true;
                    }
                    if !data.is_empty() || stop {
                        return Ok(Some(Step::Data(data, rights, from, finished, stop)));
                    }
                }
                if copied >= target {
                    return Ok(Some(Step::Done));
                }
                if let Some(e) = s.error.take() {
                    return Ok(Some(Step::Fail(e)));
                }
                if s.shutdown & RCV_SHUTDOWN != 0 {
                    return Ok(Some(Step::Done));
                }
                Ok(None)
            });
            match step {
                Ok(Step::Data(data, rights, from, finished, stop)) => {
                    // Returns their charge to the sender, waking it.
                    drop(finished);
                    sink.put(&data)?;
                    copied += data.len();
                    out.rights.extend(rights);
                    if let Some(from) = from {
                        out.from = from.name().map(|n| n.to_vec());
                    }
                    if stop || copied >= size {
                        break;
                    }
                }
                Ok(Step::Done) => break,
                Ok(Step::Fail(e)) | Err(e) => {
                    if copied == 0 {
                        return Err(e);
                    }
                    break;
                }
            }
        }
        out.len = copied;
        if opts.passcred {
            out.creds = scm.map(|c| c.unwrap_or(NO_CREDS));
        }
        Ok(out)
    }

    fn recv_dgram(&self, sink: &mut Sink<'_>, flags: u32, nonblocking: bool) -> Result<Incoming> {
        let seqpacket = self.sock_type == netabi::SOCK_SEQPACKET;
        if seqpacket && self.inner.lock().state != State::Connected {
            return Err(Errno::ENOTCONN);
        }
        if flags & netabi::MSG_OOB != 0 {
            return Err(Errno::EOPNOTSUPP);
        }
        let peek = flags & netabi::MSG_PEEK != 0;
        let opts = self.options.get();
        // What the queue gives: a message taken (or copied, peeking), or
        // the end (a shut-down receiving side).
        enum Got {
            Taken(Message),
            Peeked(Vec<u8>, Arc<UnixSocket>, Option<Ucred>, Vec<Arc<OpenFile>>, Option<Timespec>),
            End,
        }
        let got = wait_for(&self.waiters, nonblocking, opts.rcvtimeo_ns, || {
            let mut s = self.inner.lock();
            // A pending error comes before any queued data.
            if let Some(e) = s.error.take() {
                return Err(e);
            }
            if let Some(front) = s.queue.front() {
                if peek {
                    return Ok(Some(Got::Peeked(front.data.clone(), front.sender.clone(), front.creds, front.rights.clone(), front.stamp)));
                }
                return Ok(Some(Got::Taken(s.queue.pop_front().unwrap())));
            }
            if s.shutdown & RCV_SHUTDOWN != 0 && (!nonblocking || seqpacket) {
                return Ok(Some(Got::End));
            }
            if !nonblocking && seqpacket && s.state != State::Connected {
                return Err(Errno::ENOTCONN);
            }
            Ok(None)
        });
        let got = match got {
            // A seqpacket socket whose peer is gone reads end of file even
            // when non-blocking.
            Err(Errno::EAGAIN) if seqpacket && self.inner.lock().shutdown & RCV_SHUTDOWN != 0 => Got::End,
            other => other?,
        };
        let (data, sender, creds, rights, stamp, taken) = match got {
            Got::End => return Ok(Incoming::default()),
            Got::Peeked(data, sender, creds, rights, stamp) => (data, sender, creds, rights, stamp, None),
            Got::Taken(mut m) => {
                let data = core::mem::take(&mut m.data);
                let rights = core::mem::take(&mut m.rights);
                (data, m.sender.clone(), m.creds, rights, m.stamp, Some(m))
            }
        };
        if taken.is_some() {
            // The sender gets its charge back; senders waiting for room in
            // our queue sleep on our wait queue.
            drop(taken);
            self.waiters.wake_all();
        }
        let mut out = Incoming::default();
        let n = data.len().min(sink.room());
        if n < data.len() {
            out.msg_flags |= netabi::MSG_TRUNC;
        }
        sink.put(&data[..n])?;
        out.len = if flags & netabi::MSG_TRUNC != 0 { data.len() } else { n };
        out.from = sender.name().map(|n| n.to_vec());
        out.rights = rights;
        // The timestamp before the credentials, as Linux orders them; a
        // message sent before the option was set has none, and gets the
        // time of the receive (Linux's __sock_recv_timestamp).
        if let Some((kind, payload)) = opts.timestamping.control(stamp.unwrap_or_else(crate::clock::now)) {
            out.control.push((netabi::SOL_SOCKET, kind, payload));
        }
        if opts.passcred {
            out.creds = Some(creds.unwrap_or(NO_CREDS));
        }
        Ok(out)
    }
}

/// What SCM_CREDENTIALS reports for a message sent without credentials:
/// no pid, and invalid ids (no namespace maps them: the receiver sees the
/// overflow id, as Linux's munged INVALID_UID).
const NO_CREDS: Ucred = Ucred { pid: 0, uid: u32::MAX, gid: u32::MAX };

/// The credentials filesystem checks use (the file-system ids).
fn fs_cred(thread: &Thread) -> kevlar_vfs::Credentials {
    thread.process.creds.lock().fs_cred()
}

impl Socket for UnixSocket {
    fn family(&self) -> u32 {
        netabi::AF_UNIX
    }

    fn sock_type(&self) -> u32 {
        self.sock_type
    }

    /// Datagram and seqpacket sends run the receiver's filter; a stream's
    /// is kept but never run, as on Linux.
    fn runs_filters(&self) -> bool {
        true
    }

    fn options(&self) -> &SocketOptions {
        &self.options
    }

    fn bind(&self, thread: &Thread, addr: &[u8]) -> Result<()> {
        if addr.len() == PATH_OFFSET && u16::from_le_bytes([addr[0], addr[1]]) == AF_UNIX {
            return self.autobind();
        }
        Self::validate(addr)?;
        if addr[PATH_OFFSET] != 0 { self.bind_path(thread, addr) } else { self.bind_abstract(addr) }
    }

    fn listen(&self, backlog: usize) -> Result<()> {
        if !self.connection_based() {
            return Err(Errno::EOPNOTSUPP);
        }
        let mut s = self.inner.lock();
        if s.name.is_none() {
            return Err(Errno::EINVAL);
        }
        if s.state == State::Connected || s.connecting {
            return Err(Errno::EINVAL);
        }
        let grew = backlog > s.backlog;
        s.backlog = backlog;
        s.state = State::Listening;
        // Connecting sockets take these as their peer credentials.
        s.peer_cred = Some(PeerCred::current());
        drop(s);
        if grew {
            self.changed();
        }
        Ok(())
    }

    fn accept(&self, nonblocking: bool) -> Result<Arc<dyn Socket>> {
        if !self.connection_based() {
            return Err(Errno::EOPNOTSUPP);
        }
        if self.inner.lock().state != State::Listening {
            return Err(Errno::EINVAL);
        }
        let timeout = self.options.get().rcvtimeo_ns;
        let connection = wait_for(&self.waiters, nonblocking, timeout, || {
            let mut s = self.inner.lock();
            if let Some(c) = s.pending.pop_front() {
                return Ok(Some(c));
            }
            // A shut-down listener ends a wait (EINVAL); a non-blocking
            // accept still says EAGAIN, as skb_recv_datagram does.
            if !nonblocking && (s.dead || s.shutdown & RCV_SHUTDOWN != 0) {
                return Err(Errno::EINVAL);
            }
            Ok(None)
        })?;
        connection.inner.lock().has_file = true;
        connection.options.set_passcred(self.options.passcred());
        // Room in the backlog for connectors waiting on it.
        self.changed();
        Ok(connection)
    }

    fn connect(&self, thread: &Thread, addr: &[u8], nonblocking: bool) -> Result<()> {
        if self.connection_based() { self.connect_stream(thread, addr, nonblocking) } else { self.connect_dgram(thread, addr) }
    }

    fn proc_entry(&self) -> Option<crate::net::procnet::Entry> {
        let s = self.inner.lock();
        let listening = s.state == State::Listening;
        let pending: Vec<Arc<UnixSocket>> = s.pending.iter().cloned().collect();
        let node = s.node.clone();
        let mut entry = crate::net::procnet::UnixEntry {
            sock_type: self.sock_type,
            listening,
            connected: s.state == State::Connected,
            name: s.name.clone(),
            node: None,
            peer: s.peer.clone().map(|p| p as Arc<dyn Socket>),
            pending_peers: Vec::new(),
            backlog: if listening { s.backlog } else { 0 },
            rx_queue: if listening { 0 } else if self.connection_based() { s.queue.iter().map(Message::unread).sum() } else { s.queue.front().map_or(0, |m| m.data.len()) },
            tx_queue: self.wmem(),
            shutdown: s.shutdown,
        };
        drop(s);
        // The connections' own locks are taken after the listener's is
        // dropped; each knows the socket that connected.
        entry.pending_peers = pending.iter().map(|c| c.inner.lock().peer.clone().map(|p| p as Arc<dyn Socket>)).collect();
        entry.node = node.and_then(|n| n.stat().ok()).map(|st| (st.ino, st.dev));
        Some(crate::net::procnet::Entry::Unix(self.net, entry))
    }

    fn local_name(&self) -> Result<Vec<u8>> {
        Ok(self.name().map_or_else(|| AF_UNIX.to_le_bytes().to_vec(), |n| n.to_vec()))
    }

    fn peer_name(&self) -> Result<Vec<u8>> {
        let peer = self.inner.lock().peer.clone().ok_or(Errno::ENOTCONN)?;
        peer.local_name()
    }

    fn send(&self, msg: &mut Outgoing<'_>) -> Result<usize> {
        if self.stream() {
            return self.send_stream(msg);
        }
        if self.sock_type == netabi::SOCK_SEQPACKET {
            let mut s = self.inner.lock();
            if let Some(e) = s.error.take() {
                return Err(e);
            }
            if s.state != State::Connected {
                return Err(Errno::ENOTCONN);
            }
            drop(s);
            // A seqpacket socket always sends to its peer.
            msg.addr = None;
        }
        let thread = crate::process::current().ok_or(Errno::EINVAL)?;
        self.send_dgram(&thread, msg)
    }

    fn recv(&self, sink: &mut Sink<'_>, flags: u32, nonblocking: bool) -> Result<Incoming> {
        if self.stream() { self.recv_stream(sink, flags, nonblocking) } else { self.recv_dgram(sink, flags, nonblocking) }
    }

    fn shutdown(&self, how: u32) -> Result<()> {
        if how > netabi::SHUT_RDWR {
            return Err(Errno::EINVAL);
        }
        let mode = how as u8 + 1;
        let peer = {
            let mut s = self.inner.lock();
            s.shutdown |= mode;
            s.peer.clone()
        };
        self.changed();
        if let Some(peer) = peer {
            if self.connection_based() {
                let mut peer_mode = 0;
                if mode & RCV_SHUTDOWN != 0 {
                    peer_mode |= SEND_SHUTDOWN;
                }
                if mode & SEND_SHUTDOWN != 0 {
                    peer_mode |= RCV_SHUTDOWN;
                }
                peer.inner.lock().shutdown |= peer_mode;
                peer.changed();
            }
        }
        Ok(())
    }

    fn poll(&self) -> PollEvents {
        let (mut events, writable_self, peer) = {
            let s = self.inner.lock();
            let mut events = 0;
            if s.error.is_some() {
                events |= POLLERR;
            }
            if s.shutdown == SHUTDOWN_MASK {
                events |= POLLHUP;
            }
            if s.shutdown & RCV_SHUTDOWN != 0 {
                events |= POLLRDHUP | POLLIN | POLLRDNORM;
            }
            if !s.queue.is_empty() || !s.pending.is_empty() {
                events |= POLLIN | POLLRDNORM;
            }
            if self.connection_based() && s.state == State::Unconnected && !s.connecting {
                events |= POLLHUP;
            }
            let writable = s.state != State::Listening && self.wmem() * 4 <= self.options.sndbuf();
            (events, writable, s.peer.clone())
        };
        let mut writable = writable_self;
        // A datagram sender is blocked by a full receiver that is not
        // connected back to it.
        if writable && !self.stream() {
            if let Some(peer) = peer.filter(|p| !p.is(self)) {
                let p = peer.inner.lock();
                if !p.dead && p.peer.as_ref().is_none_or(|pp| !pp.is(self)) && p.queue.len() > MAX_DGRAM_QLEN {
                    writable = false;
                }
            }
        }
        if writable {
            events |= POLLOUT | POLLWRNORM | POLLWRBAND;
        }
        events
    }

    fn poll_queue(&self) -> Option<&crate::fs::poll_queue::PollQueue> {
        Some(&self.pollers)
    }

    fn poll_counts(&self) -> (u64, u64) {
        (self.read_events.load(Ordering::Relaxed), self.write_events.load(Ordering::Relaxed))
    }

    fn take_error(&self) -> Option<Errno> {
        self.inner.lock().error.take()
    }

    fn set_error(&self, error: Errno) {
        self.inner.lock().error = Some(error);
        self.changed();
    }

    fn peer_cred(&self) -> Ucred {
        self.inner.lock().peer_cred.as_ref().map_or(Ucred::NONE, |p| p.cred)
    }

    fn peer_groups(&self) -> Option<Arc<[u32]>> {
        self.inner.lock().peer_cred.as_ref().map(|p| p.groups.clone())
    }

    fn is_listening(&self) -> bool {
        self.inner.lock().state == State::Listening
    }

    fn unread_bytes(&self) -> Result<usize> {
        let s = self.inner.lock();
        if s.state == State::Listening {
            return Err(Errno::EINVAL);
        }
        Ok(if self.connection_based() { s.queue.iter().map(Message::unread).sum() } else { s.queue.front().map_or(0, |m| m.data.len()) })
    }

    fn unsent_bytes(&self) -> usize {
        self.wmem()
    }

    fn release(&self) {
        self.close(false);
    }
}
