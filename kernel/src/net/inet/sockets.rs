//! The stack's smoltcp sockets, grouped so that a packet, a call or a
//! timer costs O(the sockets it concerns), not O(every socket).
//!
//! smoltcp's interface works on one `SocketSet` at a time and visits every
//! socket of the set it is given: on each received packet (to find the one
//! that accepts it), on each egress pass and for `poll_at`. With every
//! connection in one set, a round trip over one of N connections cost
//! O(N) (two sockets per loopback connection, several passes per round
//! trip). Here each socket lives in a small set of its own group:
//!
//! - a TCP socket in LISTEN, with the others listening on its port:
//!   `Listen(port)`;
//! - a TCP socket with a peer (connecting, connected, closing), with any
//!   other that has the same (local port, remote port): `Conn(local,
//!   remote)` (sockets that differ only in addresses share the set, and
//!   smoltcp tells them apart as before);
//! - a bound UDP socket, with the others on its port: `Udp(port)`;
//! - anything else (a socket not yet connected, bound or listening, a
//!   closed one): a group of its own.
//!
//! The stack's pump (`stack.rs`) peeks at each received packet's ports and
//! gives it to the group that would take it (a SYN to the port's
//! listeners, anything else to its connection; a packet no group takes
//! goes to an empty set, and smoltcp answers it with a reset or a port
//! unreachable as before); runs egress only for the groups a packet, a
//! call (a mutable access, [`Sockets::get_mut`]) or a due timer touched;
//! and keeps each group's `poll_at` in a queue ordered by time.
//!
//! A socket whose state changed so that its group is another (a listening
//! socket that took a SYN, a socket that connected or was bound) moves
//! there before the next packet is routed ([`Sockets::rehome_touched`]).
//! Handles are the stack's own, stable across moves: slots of a table,
//! reused once freed (as smoltcp's own handles are), so that looking a
//! socket up is two indexings, not a search.

use alloc::collections::{BTreeMap, BTreeSet};
use alloc::vec::Vec;

use smoltcp::iface::{self, SocketSet};
use smoltcp::socket::{tcp, udp, AnySocket, Socket};

/// A socket of the stack (stable while the socket exists).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug, Hash)]
pub struct SocketHandle(usize);

/// Which group a socket is in.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub enum Group {
    /// TCP sockets in LISTEN on a port.
    Listen(u16),
    /// TCP sockets with a peer: (local port, remote port).
    Conn(u16, u16),
    /// UDP sockets bound to a port.
    Udp(u16),
    /// A socket alone (by its handle).
    Alone(usize),
}

/// A group, by its index in `Sockets::groups`.
pub type GroupId = usize;

struct Members {
    key: Group,
    set: SocketSet<'static>,
    /// The handles in it.
    handles: Vec<SocketHandle>,
    /// Its `poll_at` (ns), as filed in `Sockets::timers`.
    poll_at: Option<u64>,
    /// On the `dirty` list.
    dirty: bool,
}

struct Slot {
    group: GroupId,
    inner: iface::SocketHandle,
}

/// Every socket of the stack, by group.
pub struct Sockets {
    slots: Vec<Option<Slot>>,
    free_slots: Vec<usize>,
    groups: Vec<Option<Members>>,
    free_groups: Vec<usize>,
    by_key: BTreeMap<Group, GroupId>,
    /// Always empty: the set packets no group takes are given to.
    nobody: SocketSet<'static>,
    /// Sockets accessed mutably since the last look (duplicates allowed):
    /// their group may have changed, and their group's egress is due.
    touched: Vec<SocketHandle>,
    /// Groups whose egress is due.
    dirty: Vec<GroupId>,
    /// Groups by the time smoltcp wants them polled (ns).
    timers: BTreeSet<(u64, GroupId)>,
}

impl Sockets {
    /// No sockets.
    pub fn new() -> Sockets {
        Sockets {
            slots: Vec::new(),
            free_slots: Vec::new(),
            groups: Vec::new(),
            free_groups: Vec::new(),
            by_key: BTreeMap::new(),
            nobody: SocketSet::new(Vec::new()),
            touched: Vec::new(),
            dirty: Vec::new(),
            timers: BTreeSet::new(),
        }
    }

    /// The group of `key`, made if absent.
    fn group(&mut self, key: Group) -> GroupId {
        if let Some(&id) = self.by_key.get(&key) {
            return id;
        }
        let members = Members { key, set: SocketSet::new(Vec::new()), handles: Vec::new(), poll_at: None, dirty: false };
        let id = match self.free_groups.pop() {
            Some(id) => {
                self.groups[id] = Some(members);
                id
            }
            None => {
                self.groups.push(Some(members));
                self.groups.len() - 1
            }
        };
        self.by_key.insert(key, id);
        id
    }

    fn members(&mut self, id: GroupId) -> &mut Members {
        self.groups[id].as_mut().expect("socket group gone")
    }

    /// Puts `socket` into group `key` under `handle`.
    fn place(&mut self, handle: SocketHandle, key: Group, socket: Socket<'static>) {
        let id = self.group(key);
        let members = self.members(id);
        let inner = members.set.add(socket);
        members.handles.push(handle);
        self.slots[handle.0] = Some(Slot { group: id, inner });
        self.mark(id);
    }

    /// Adds a socket (in a group of its own until it is looked at).
    pub fn add<T: AnySocket<'static>>(&mut self, socket: T) -> SocketHandle {
        let index = match self.free_slots.pop() {
            Some(index) => index,
            None => {
                self.slots.push(None);
                self.slots.len() - 1
            }
        };
        let handle = SocketHandle(index);
        self.place(handle, Group::Alone(index), socket.upcast());
        self.touched.push(handle);
        handle
    }

    fn slot(&self, handle: SocketHandle) -> &Slot {
        self.slots[handle.0].as_ref().expect("stale socket handle")
    }

    /// The socket of `handle` (panics on a stale handle or the wrong type,
    /// as smoltcp's `SocketSet::get`).
    pub fn get<T: AnySocket<'static>>(&self, handle: SocketHandle) -> &T {
        let slot = self.slot(handle);
        self.groups[slot.group].as_ref().unwrap().set.get::<T>(slot.inner)
    }

    /// The socket of `handle`, to change: its group's egress runs at the
    /// next pump, and it moves to another group if it now belongs there.
    pub fn get_mut<T: AnySocket<'static>>(&mut self, handle: SocketHandle) -> &mut T {
        let (group, inner) = {
            let slot = self.slot(handle);
            (slot.group, slot.inner)
        };
        if self.touched.last() != Some(&handle) {
            self.touched.push(handle);
        }
        self.members(group).set.get_mut::<T>(inner)
    }

    /// Takes `handle`'s socket out of its group (dropping the group when
    /// it was the last); the slot stays allocated.
    fn unplace(&mut self, handle: SocketHandle) -> Socket<'static> {
        let slot = self.slots[handle.0].take().expect("stale socket handle");
        let members = self.members(slot.group);
        let socket = members.set.remove(slot.inner);
        members.handles.retain(|h| *h != handle);
        if members.handles.is_empty() {
            let members = self.groups[slot.group].take().unwrap();
            if let Some(at) = members.poll_at {
                self.timers.remove(&(at, slot.group));
            }
            self.by_key.remove(&members.key);
            self.free_groups.push(slot.group);
        }
        socket
    }

    /// Removes a socket.
    pub fn remove(&mut self, handle: SocketHandle) -> Socket<'static> {
        let socket = self.unplace(handle);
        self.free_slots.push(handle.0);
        socket
    }

    /// The group a socket belongs in now.
    fn key_of(socket: &Socket<'static>, handle: SocketHandle) -> Group {
        if let Some(s) = tcp::Socket::downcast(socket) {
            if s.state() == tcp::State::Listen {
                return Group::Listen(s.listen_endpoint().port);
            }
            if let (Some(local), Some(remote)) = (s.local_endpoint(), s.remote_endpoint()) {
                return Group::Conn(local.port, remote.port);
            }
        } else if let Some(s) = udp::Socket::downcast(socket) {
            let port = s.endpoint().port;
            if port != 0 {
                return Group::Udp(port);
            }
        }
        Group::Alone(handle.0)
    }

    /// Moves `handle` to the group it belongs in now, if that changed;
    /// marks its group for egress.
    fn rehome(&mut self, handle: SocketHandle) {
        let Some(Some(slot)) = self.slots.get(handle.0) else { return };
        let (id, inner) = (slot.group, slot.inner);
        let members = self.groups[id].as_ref().unwrap();
        let want = Self::key_of(members.set.get::<Socket>(inner), handle);
        if want == members.key {
            self.mark(id);
            return;
        }
        let socket = self.unplace(handle);
        self.place(handle, want, socket);
    }

    /// Moves the sockets changed since the last look to their groups, and
    /// marks those groups for egress.
    pub fn rehome_touched(&mut self) {
        while let Some(handle) = self.touched.pop() {
            self.rehome(handle);
        }
    }

    /// After a packet went to `group`: its sockets may belong elsewhere
    /// now (a listening socket that took a SYN, a half-open one a reset
    /// sent back to LISTEN), and its egress is due.
    pub fn after_ingress(&mut self, group: Option<GroupId>) {
        let Some(id) = group else { return };
        let Some(members) = self.groups[id].as_ref() else { return };
        match members.handles.as_slice() {
            [one] => self.rehome(*one),
            many => {
                for handle in many.to_vec() {
                    self.rehome(handle);
                }
            }
        }
        self.mark(id);
    }

    /// Which group takes a received TCP segment to `dst` from `src`
    /// (ports); `syn`: a SYN without ACK (a new connection, for the
    /// listeners first). None: nobody's.
    pub fn route_tcp(&self, dst: u16, src: u16, syn: bool) -> Option<GroupId> {
        let conn = Group::Conn(dst, src);
        let listen = Group::Listen(dst);
        let order = if syn { [listen, conn] } else { [conn, listen] };
        order.into_iter().find_map(|key| self.by_key.get(&key).copied())
    }

    /// Which group takes a UDP datagram to port `dst`.
    pub fn route_udp(&self, dst: u16) -> Option<GroupId> {
        self.by_key.get(&Group::Udp(dst)).copied()
    }

    /// The set of `group` (the empty one for None or a group gone).
    pub fn set_of(&mut self, group: Option<GroupId>) -> &mut SocketSet<'static> {
        match group.and_then(|id| self.groups.get_mut(id)).and_then(|g| g.as_mut()) {
            Some(members) => &mut members.set,
            None => &mut self.nobody,
        }
    }

    /// Takes the groups whose egress is due into `out` (cleared first).
    pub fn take_dirty(&mut self, out: &mut Vec<GroupId>) {
        out.clear();
        core::mem::swap(out, &mut self.dirty);
        for &id in out.iter() {
            if let Some(Some(members)) = self.groups.get_mut(id) {
                members.dirty = false;
            }
        }
    }

    /// Marks group `id` for egress.
    pub fn mark(&mut self, id: GroupId) {
        if let Some(Some(members)) = self.groups.get_mut(id) {
            if !members.dirty {
                members.dirty = true;
                self.dirty.push(id);
            }
        }
    }

    /// Files group `id`'s new poll time (`at` ns; None: only a packet
    /// wakes it).
    pub fn set_poll_at(&mut self, id: GroupId, at: Option<u64>) {
        let Some(Some(members)) = self.groups.get_mut(id) else { return };
        if members.poll_at == at {
            return;
        }
        let old = core::mem::replace(&mut members.poll_at, at);
        if let Some(old) = old {
            self.timers.remove(&(old, id));
        }
        if let Some(new) = at {
            self.timers.insert((new, id));
        }
    }

    /// Marks every group whose poll time is `now` or earlier for egress
    /// (their timers are filed again after it).
    pub fn mark_due(&mut self, now: u64) {
        while let Some(&(at, id)) = self.timers.first() {
            if at > now {
                break;
            }
            self.timers.pop_first();
            if let Some(Some(members)) = self.groups.get_mut(id) {
                members.poll_at = None;
            }
            self.mark(id);
        }
    }

    /// The earliest poll time filed (u64::MAX: none).
    pub fn next_poll(&self) -> u64 {
        self.timers.first().map_or(u64::MAX, |(at, _)| *at)
    }

    /// Whether egress is due somewhere or a socket changed.
    pub fn pending(&self) -> bool {
        !self.dirty.is_empty() || !self.touched.is_empty()
    }
}
