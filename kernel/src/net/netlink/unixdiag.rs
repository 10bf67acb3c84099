//! sock_diag's AF_UNIX handler (Linux 6.1's net/unix/diag.c): a dump of
//! the namespace's unix sockets that have an inode, by state, or one
//! socket by inode number and cookie; each reply a struct unix_diag_msg
//! and the attributes udiag_show asks for.

use alloc::vec::Vec;

use linux_raw_sys::net as netabi;
use linux_raw_sys::netlink as nl;

use super::sockdiag::{cookie_matches, meminfo, Asker};
use super::{Handled, Header, MsgBuilder};
use crate::error::{Errno, Result};
use crate::net::procnet::{self, state, Entry, UnixEntry};

/// sizeof(struct unix_diag_req).
const REQ_LEN: usize = 24;
/// sizeof(struct unix_diag_msg).
const MSG_LEN: usize = 16;

// udiag_show's bits and the attributes they ask for (the enum in
// include/uapi/linux/unix_diag.h starts at 0 with UNIX_DIAG_NAME).
const UDIAG_SHOW_NAME: u32 = 1 << 0;
const UDIAG_SHOW_VFS: u32 = 1 << 1;
const UDIAG_SHOW_PEER: u32 = 1 << 2;
const UDIAG_SHOW_ICONS: u32 = 1 << 3;
const UDIAG_SHOW_RQLEN: u32 = 1 << 4;
const UDIAG_SHOW_MEMINFO: u32 = 1 << 5;
const UDIAG_SHOW_UID: u32 = 1 << 6;
const UNIX_DIAG_NAME: u16 = 0;
const UNIX_DIAG_VFS: u16 = 1;
const UNIX_DIAG_PEER: u16 = 2;
const UNIX_DIAG_ICONS: u16 = 3;
const UNIX_DIAG_RQLEN: u16 = 4;
const UNIX_DIAG_MEMINFO: u16 = 5;
const UNIX_DIAG_SHUTDOWN: u16 = 6;
const UNIX_DIAG_UID: u16 = 7;

/// A request (struct unix_diag_req).
struct Req {
    states: u32,
    ino: u32,
    show: u32,
    cookie: [u32; 2],
}

/// unix_diag_handler_dump.
pub fn handle(hdr: &Header, body: &[u8], asker: &Asker, out: &mut Vec<Vec<u8>>) -> Result<Handled> {
    if hdr.kind == super::sockdiag::SOCK_DESTROY {
        // unix_diag has no destroy.
        return Err(Errno::EOPNOTSUPP);
    }
    if body.len() < REQ_LEN {
        return Err(Errno::EINVAL);
    }
    let word = |at: usize| u32::from_le_bytes(body[at..at + 4].try_into().unwrap());
    let req = Req { states: word(4), ino: word(8), show: word(12), cookie: [word(16), word(20)] };
    let inodes = procnet::inodes_by_address();
    if super::sockdiag::wants_dump(hdr) {
        let list = procnet::sockets_of(asker.net, |e| matches!(e, Entry::Unix(..)));
        for l in &list {
            let Entry::Unix(_, e) = &l.entry else { continue };
            if req.states & (1 << state_of(e)) == 0 {
                continue;
            }
            out.push(fill(e, l, &req, &inodes, nl::NLM_F_MULTI as u16, asker));
        }
        let mut b = MsgBuilder::new(nl::NLMSG_DONE as u16, nl::NLM_F_MULTI as u16, asker.seq, asker.pid);
        b.put(&0i32.to_le_bytes());
        out.push(b.finish());
        return Ok(Handled::Dump);
    }
    // unix_diag_get_exact: by inode number (0 is EINVAL), then cookie.
    if req.ino == 0 {
        return Err(Errno::EINVAL);
    }
    let list = procnet::sockets_of(asker.net, |e| matches!(e, Entry::Unix(..)));
    let l = list.iter().find(|l| l.ino as u32 == req.ino).ok_or(Errno::ENOENT)?;
    if !cookie_matches(l.ino, req.cookie) {
        return Err(Errno::ESTALE);
    }
    let Entry::Unix(_, e) = &l.entry else { return Err(Errno::ENOENT) };
    out.push(fill(e, l, &req, &inodes, 0, asker));
    Ok(Handled::Done)
}

/// The socket's sk_state: TCP_LISTEN, TCP_ESTABLISHED with a peer,
/// TCP_CLOSE otherwise.
fn state_of(e: &UnixEntry) -> u8 {
    if e.listening {
        state::LISTEN
    } else if e.connected {
        state::ESTABLISHED
    } else {
        state::CLOSE
    }
}

/// The kernel's dev_t (major in the top 12 bits of 32) of an st_dev,
/// as UNIX_DIAG_VFS gives a file system's s_dev.
fn kernel_dev(dev: u64) -> u32 {
    let major = ((dev >> 8) & 0xfff) as u32;
    let minor = ((dev & 0xff) | ((dev >> 12) & 0xfff00)) as u32;
    (major << 20) | minor
}

/// One socket's message (sk_diag_fill).
fn fill(e: &UnixEntry, l: &procnet::Listed, req: &Req, inodes: &alloc::collections::BTreeMap<usize, u64>, flags: u16, asker: &Asker) -> Vec<u8> {
    let mut m = [0u8; MSG_LEN];
    m[0] = netabi::AF_UNIX as u8;
    m[1] = e.sock_type as u8;
    m[2] = state_of(e);
    m[4..8].copy_from_slice(&(l.ino as u32).to_le_bytes());
    m[8..12].copy_from_slice(&(l.ino as u32).to_le_bytes());
    m[12..16].copy_from_slice(&((l.ino >> 32) as u32).to_le_bytes());
    let mut b = MsgBuilder::new(super::sockdiag::SOCK_DIAG_BY_FAMILY, flags, asker.seq, asker.pid);
    b.put(&m);
    let ino_of = |s: &alloc::sync::Arc<dyn crate::net::Socket>| inodes.get(&procnet::address_of(s)).copied().unwrap_or(0) as u32;
    if req.show & UDIAG_SHOW_NAME != 0 {
        if let Some(name) = &e.name {
            // The address without its family: a path with its NUL, or an
            // abstract name.
            b.attr(UNIX_DIAG_NAME, name.get(2..).unwrap_or(&[]));
        }
    }
    if req.show & UDIAG_SHOW_VFS != 0 {
        if let Some((ino, dev)) = e.node {
            let mut v = Vec::with_capacity(8);
            v.extend_from_slice(&(ino as u32).to_le_bytes());
            v.extend_from_slice(&kernel_dev(dev).to_le_bytes());
            b.attr(UNIX_DIAG_VFS, &v);
        }
    }
    if req.show & UDIAG_SHOW_PEER != 0 {
        if let Some(peer) = &e.peer {
            b.attr_u32(UNIX_DIAG_PEER, ino_of(peer));
        }
    }
    if req.show & UDIAG_SHOW_ICONS != 0 && e.listening {
        // The sockets that connected and wait for accept.
        let icons: Vec<u8> = e.pending_peers.iter().flat_map(|p| p.as_ref().map_or(0, ino_of).to_le_bytes()).collect();
        b.attr(UNIX_DIAG_ICONS, &icons);
    }
    if req.show & UDIAG_SHOW_RQLEN != 0 {
        // A listener: connections waiting and the backlog; else the bytes
        // to read and those queued at the peer.
        let (r, w) = if e.listening { (e.pending_peers.len(), e.backlog) } else { (e.rx_queue, e.tx_queue) };
        let mut v = Vec::with_capacity(8);
        v.extend_from_slice(&(r as u32).to_le_bytes());
        v.extend_from_slice(&(w as u32).to_le_bytes());
        b.attr(UNIX_DIAG_RQLEN, &v);
    }
    if req.show & UDIAG_SHOW_MEMINFO != 0 {
        let o = l.socket.options().get();
        b.attr(UNIX_DIAG_MEMINFO, &meminfo(e.rx_queue, o.rcvbuf, e.tx_queue, o.sndbuf));
    }
    b.attr_u8(UNIX_DIAG_SHUTDOWN, e.shutdown);
    if req.show & UDIAG_SHOW_UID != 0 {
        b.attr_u32(UNIX_DIAG_UID, asker.uid(l.uid));
    }
    b.finish()
}
