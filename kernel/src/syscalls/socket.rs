//! Socket system calls: socket, socketpair, bind, listen, accept/accept4,
//! connect, getsockname/getpeername, sendto/recvfrom, sendmsg/recvmsg,
//! shutdown, setsockopt/getsockopt; and read/write on sockets. They copy
//! addresses, iovecs and ancillary data (SCM_RIGHTS, SCM_CREDENTIALS) in
//! and out the way Linux's net/socket.c and net/core/scm.c do, and leave
//! the protocol to the family (`net/`).

use alloc::sync::Arc;
use alloc::vec::Vec;
use core::mem::{offset_of, size_of};

use linux_raw_sys::net as netabi;

use super::iovec::IoVecs;
use super::read_bytes;
use crate::error::{Errno, Result};
use crate::fs::file::OpenFile;
use crate::net::{self, Incoming, Outgoing, Sink, Socket, SocketFile, Source, Ucred};
use crate::process::Thread;
use crate::uaccess::{copy_from_user, copy_to_user};

/// The most iovecs one call takes (UIO_MAXIOV).
const MAX_IOVECS: usize = 1024;
/// The most bytes one call moves (Linux's MAX_RW_COUNT).
const MAX_RW_COUNT: usize = (i32::MAX as usize) & !4095;
/// The most files one SCM_RIGHTS message carries (SCM_MAX_FD).
const MAX_RIGHTS: usize = 253;
/// Control buffers this large cannot be allocated (net.core.optmem_max).
const MAX_CONTROL: usize = 20480;
/// Flag of 32-bit callers, refused from 64-bit ones (include/linux/socket.h;
/// linux-raw-sys has no constant for it).
const MSG_CMSG_COMPAT: u32 = 0x8000_0000;
/// recvmmsg: block for the first message only (include/linux/socket.h).
const MSG_WAITFORONE: u32 = 0x1_0000;

const MSGHDR_LEN: usize = size_of::<netabi::msghdr>();
const CMSGHDR_LEN: usize = size_of::<netabi::cmsghdr>();

/// Rounds a control-message length up as CMSG_ALIGN.
const fn cmsg_align(len: usize) -> usize {
    (len + size_of::<usize>() - 1) & !(size_of::<usize>() - 1)
}

fn get_file(thread: &Thread, fd: i32) -> Result<Arc<OpenFile>> {
    let table = thread.process.files.lock().clone();
    let file = table.lock().get(fd)?;
    Ok(file)
}

/// The socket behind an open file (ENOTSOCK for other files).
fn socket_of(file: &OpenFile) -> Result<Arc<dyn Socket>> {
    file.ops.as_socket().map(|s| s.socket.clone()).ok_or(Errno::ENOTSOCK)
}

fn get_socket(thread: &Thread, fd: i32) -> Result<(Arc<OpenFile>, Arc<dyn Socket>)> {
    let file = get_file(thread, fd)?;
    let socket = socket_of(&file)?;
    Ok((file, socket))
}

/// Installs a socket as a new fd with SOCK_NONBLOCK/SOCK_CLOEXEC `flags`.
fn install(thread: &Thread, socket: Arc<dyn Socket>, flags: u32) -> Result<i32> {
    let file = SocketFile::open(socket, flags & net::SOCK_NONBLOCK);
    let table = thread.process.files.lock().clone();
    let fd = table.lock().insert(file, flags & net::SOCK_CLOEXEC != 0)?;
    Ok(fd)
}

/// Copies a socket address in (move_addr_to_kernel): a length beyond a
/// sockaddr_storage is EINVAL, zero means none.
fn read_addr(addr: usize, len: i32) -> Result<Vec<u8>> {
    if len < 0 || len as usize > net::MAX_ADDR_LEN {
        return Err(Errno::EINVAL);
    }
    let mut out = alloc::vec![0u8; len as usize];
    if len > 0 {
        copy_from_user(&mut out, addr)?;
    }
    Ok(out)
}

/// Copies a socket address out (move_addr_to_user): at most the caller's
/// length of it, and the full length back into `*len_ptr`.
fn write_addr(name: &[u8], addr: usize, len_ptr: usize) -> Result<()> {
    let user_len = i32::from_le_bytes(read_bytes::<4>(len_ptr)?);
    let len = (user_len as i64).min(name.len() as i64);
    if len < 0 {
        return Err(Errno::EINVAL);
    }
    if len > 0 {
        copy_to_user(addr, &name[..len as usize])?;
    }
    copy_to_user(len_ptr, &(name.len() as i32).to_le_bytes())
}

fn user_range(buf: usize, len: usize) -> Result<Vec<(usize, usize)>> {
    if !kevlar_platform::x86::user::is_user_range(buf, len) {
        return Err(Errno::EFAULT);
    }
    Ok(cap_segments(alloc::vec![(buf, len)]))
}

// --- creation -----------------------------------------------------------------

/// Splits socket(2)'s type into the type and SOCK_* flags.
fn split_type(type_and_flags: u32) -> Result<(u32, u32)> {
    let flags = type_and_flags & !net::SOCK_TYPE_MASK;
    if flags & !(net::SOCK_CLOEXEC | net::SOCK_NONBLOCK) != 0 {
        return Err(Errno::EINVAL);
    }
    Ok((type_and_flags & net::SOCK_TYPE_MASK, flags))
}

pub fn socket(thread: &Thread, family: i32, type_and_flags: u32, protocol: i32) -> Result<isize> {
    let (sock_type, flags) = split_type(type_and_flags)?;
    let socket = net::create(family, sock_type, protocol)?;
    Ok(install(thread, socket, flags)? as isize)
}

pub fn socketpair(thread: &Thread, family: i32, type_and_flags: u32, protocol: i32, fds: usize) -> Result<isize> {
    let (sock_type, flags) = split_type(type_and_flags)?;
    // Linux stores the fd numbers before it creates the sockets, so a bad
    // array is EFAULT whatever the family.
    read_bytes::<8>(fds)?;
    let (a, b) = net::create_pair(family, sock_type, protocol)?;
    let fd_a = install(thread, a, flags)?;
    let fd_b = match install(thread, b, flags) {
        Ok(fd) => fd,
        Err(e) => {
            let _ = thread.process.files.lock().lock().close(fd_a);
            return Err(e);
        }
    };
    let mut raw = [0u8; 8];
    raw[..4].copy_from_slice(&fd_a.to_le_bytes());
    raw[4..].copy_from_slice(&fd_b.to_le_bytes());
    if let Err(e) = copy_to_user(fds, &raw) {
        let table = thread.process.files.lock().clone();
        let mut table = table.lock();
        let _ = table.close(fd_a);
        let _ = table.close(fd_b);
        return Err(e);
    }
    Ok(0)
}

// --- addresses and connections --------------------------------------------------

pub fn bind(thread: &Thread, fd: i32, addr: usize, len: i32) -> Result<isize> {
    let (_, socket) = get_socket(thread, fd)?;
    let addr = read_addr(addr, len)?;
    socket.bind(thread, &addr)?;
    Ok(0)
}

pub fn listen(thread: &Thread, fd: i32, backlog: i32) -> Result<isize> {
    let (_, socket) = get_socket(thread, fd)?;
    // A negative backlog is a large unsigned one: somaxconn.
    let somaxconn = crate::ns::net::current().sysctl.somaxconn();
    socket.listen((backlog as u32).min(somaxconn) as usize)?;
    Ok(0)
}

pub fn accept4(thread: &Thread, fd: i32, addr: usize, len_ptr: usize, flags: u32) -> Result<isize> {
    // The fd first, then the flags, then whether it is a socket.
    let file = get_file(thread, fd)?;
    if flags & !(net::SOCK_CLOEXEC | net::SOCK_NONBLOCK) != 0 {
        return Err(Errno::EINVAL);
    }
    let socket = socket_of(&file)?;
    let accepted = socket.accept(file.nonblocking())?;
    let peer = accepted.peer_name().map_err(|_| Errno::ECONNABORTED);
    // A failure from here on closes the accepted connection, as on Linux.
    let new_file = SocketFile::open(accepted, flags & net::SOCK_NONBLOCK);
    if addr != 0 {
        write_addr(&peer?, addr, len_ptr)?;
    }
    let table = thread.process.files.lock().clone();
    let fd = table.lock().insert(new_file, flags & net::SOCK_CLOEXEC != 0)?;
    Ok(fd as isize)
}

pub fn connect(thread: &Thread, fd: i32, addr: usize, len: i32) -> Result<isize> {
    let file = get_file(thread, fd)?;
    let addr = read_addr(addr, len)?;
    let socket = socket_of(&file)?;
    socket.connect(thread, &addr, file.nonblocking())?;
    Ok(0)
}

pub fn getsockname(thread: &Thread, fd: i32, addr: usize, len_ptr: usize, peer: bool) -> Result<isize> {
    let (_, socket) = get_socket(thread, fd)?;
    let name = if peer { socket.peer_name()? } else { socket.local_name()? };
    write_addr(&name, addr, len_ptr)?;
    Ok(0)
}

pub fn shutdown(thread: &Thread, fd: i32, how: i32) -> Result<isize> {
    let (_, socket) = get_socket(thread, fd)?;
    if how < 0 {
        return Err(Errno::EINVAL);
    }
    socket.shutdown(how as u32)?;
    Ok(0)
}

// --- data -----------------------------------------------------------------------

fn nonblocking(file: &OpenFile, flags: u32) -> bool {
    file.nonblocking() || flags & netabi::MSG_DONTWAIT != 0
}

pub fn sendto(thread: &Thread, fd: i32, buf: usize, len: usize, flags: u32, addr: usize, addr_len: i32) -> Result<isize> {
    let segments = user_range(buf, len)?;
    let (file, socket) = get_socket(thread, fd)?;
    let dest = if addr != 0 { Some(read_addr(addr, addr_len)?).filter(|a| !a.is_empty()) } else { None };
    let mut msg = Outgoing { data: Source::user(segments), addr: dest, rights: Vec::new(), creds: None, flags, nonblocking: nonblocking(&file, flags) };
    Ok(socket.send(&mut msg)? as isize)
}

pub fn recvfrom(thread: &Thread, fd: i32, buf: usize, len: usize, flags: u32, addr: usize, len_ptr: usize) -> Result<isize> {
    let segments = user_range(buf, len)?;
    let (file, socket) = get_socket(thread, fd)?;
    let mut sink = Sink::user(segments);
    let got = socket.recv(&mut sink, flags, nonblocking(&file, flags))?;
    if addr != 0 {
        write_addr(got.from.as_deref().unwrap_or(&[]), addr, len_ptr)?;
    }
    Ok(got.len as isize)
}

/// Cuts segments to MAX_RW_COUNT bytes in all, as Linux's iovec import.
fn cap_segments(mut segments: Vec<(usize, usize)>) -> Vec<(usize, usize)> {
    let mut left = MAX_RW_COUNT;
    for segment in segments.iter_mut() {
        segment.1 = segment.1.min(left);
        left -= segment.1;
    }
    segments
}

/// read(2) and readv(2) on a socket: a receive without flags, address or
/// control buffer (passed files are closed).
pub fn read_socket(file: &OpenFile, segments: Vec<(usize, usize)>) -> Result<isize> {
    let socket = socket_of(file)?;
    let mut sink = Sink::user(cap_segments(segments));
    if sink.room() == 0 {
        return Ok(0);
    }
    Ok(socket.recv(&mut sink, 0, file.nonblocking())?.len as isize)
}

/// write(2) and writev(2) on a socket: a send without flags (MSG_EOR on a
/// seqpacket socket, as Linux's sock_write_iter).
pub fn write_socket(file: &OpenFile, segments: Vec<(usize, usize)>) -> Result<isize> {
    let socket = socket_of(file)?;
    let flags = if socket.sock_type() == netabi::SOCK_SEQPACKET { netabi::MSG_EOR } else { 0 };
    let mut msg = Outgoing { data: Source::user(cap_segments(segments)), addr: None, rights: Vec::new(), creds: None, flags, nonblocking: file.nonblocking() };
    Ok(socket.send(&mut msg)? as isize)
}

/// The fields of a user `struct msghdr`.
struct MsgHdr {
    name: usize,
    name_len: i32,
    iov: usize,
    iov_len: usize,
    control: usize,
    control_len: usize,
}

fn read_msghdr(addr: usize) -> Result<MsgHdr> {
    let raw = read_bytes::<MSGHDR_LEN>(addr)?;
    let word = |off: usize| u64::from_le_bytes(raw[off..off + 8].try_into().unwrap()) as usize;
    let mut hdr = MsgHdr {
        name: word(offset_of!(netabi::msghdr, msg_name)),
        name_len: i32::from_le_bytes(raw[offset_of!(netabi::msghdr, msg_namelen)..][..4].try_into().unwrap()),
        iov: word(offset_of!(netabi::msghdr, msg_iov)),
        iov_len: word(offset_of!(netabi::msghdr, msg_iovlen)),
        control: word(offset_of!(netabi::msghdr, msg_control)),
        control_len: word(offset_of!(netabi::msghdr, msg_controllen)),
    };
    // copy_msghdr_from_user: no name means no name length; a negative one
    // is invalid; a long one is cut to a sockaddr_storage.
    if hdr.name == 0 {
        hdr.name_len = 0;
    }
    if hdr.name_len < 0 {
        return Err(Errno::EINVAL);
    }
    hdr.name_len = hdr.name_len.min(net::MAX_ADDR_LEN as i32);
    Ok(hdr)
}

/// Ancillary data a sendmsg carries.
struct Control {
    rights: Vec<Arc<OpenFile>>,
    creds: Option<Ucred>,
}

/// Parses the control messages of a send (__scm_send): malformed headers
/// are EINVAL; other levels than SOL_SOCKET are skipped.
fn parse_control(thread: &Thread, buf: &[u8]) -> Result<Control> {
    let mut control = Control { rights: Vec::new(), creds: None };
    let mut offset = 0;
    while buf.len() >= offset + CMSGHDR_LEN {
        let len = u64::from_le_bytes(buf[offset..offset + 8].try_into().unwrap()) as usize;
        let level = i32::from_le_bytes(buf[offset + 8..offset + 12].try_into().unwrap());
        let kind = i32::from_le_bytes(buf[offset + 12..offset + 16].try_into().unwrap());
        if len < CMSGHDR_LEN || len > buf.len() - offset {
            return Err(Errno::EINVAL);
        }
        let data = &buf[offset + cmsg_align(CMSGHDR_LEN)..offset + len.max(cmsg_align(CMSGHDR_LEN))];
        if level == netabi::SOL_SOCKET as i32 {
            match kind as u32 {
                netabi::SCM_RIGHTS => {
                    let count = data.len() / 4;
                    if count > 0 {
                        if control.rights.len() + count > MAX_RIGHTS {
                            return Err(Errno::EINVAL);
                        }
                        let table = thread.process.files.lock().clone();
                        let table = table.lock();
                        for chunk in data.chunks_exact(4) {
                            control.rights.push(table.get(i32::from_le_bytes(chunk.try_into().unwrap()))?);
                        }
                    }
                }
                netabi::SCM_CREDENTIALS => {
                    if len != CMSGHDR_LEN + 12 {
                        return Err(Errno::EINVAL);
                    }
                    control.creds = Some(check_creds(thread, data)?);
                }
                _ => return Err(Errno::EINVAL),
            }
        }
        // The next header must fit whole (__cmsg_nxthdr).
        offset += cmsg_align(len);
    }
    Ok(control)
}

/// Checks credentials a sender claims (scm_check_creds): its own pid and
/// one of its ids, unless it is privileged; the pid must exist.
fn check_creds(thread: &Thread, raw: &[u8]) -> Result<Ucred> {
    // The pid as the sender's PID namespace numbers it.
    let pid = crate::ns::pid::global(i32::from_le_bytes(raw[..4].try_into().unwrap()));
    let c = thread.process.creds.lock().clone();
    // The ids as the sender's user namespace numbers them: one it does
    // not map (or -1) is EINVAL.
    let uid = c.user_ns.uid_down(u32::from_le_bytes(raw[4..8].try_into().unwrap()));
    let gid = c.user_ns.gid_down(u32::from_le_bytes(raw[8..12].try_into().unwrap()));
    let (Some(uid), Some(gid)) = (uid, gid) else { return Err(Errno::EINVAL) };
    // Linux's scm_check_creds: another pid needs CAP_SYS_ADMIN over the
    // sender's PID namespace (in the user namespace owning it), other ids
    // CAP_SETUID and CAP_SETGID in the sender's own.
    let pid_ns_owner = crate::ns::user::owner_of(crate::ns::pid::of(&thread.process).inum);
    let pid_ok = pid == thread.process.pid || crate::ns::user::ns_capable(&c, &pid_ns_owner, linux_raw_sys::general::CAP_SYS_ADMIN);
    let uid_ok = uid == c.uid || uid == c.euid || uid == c.suid || c.has_cap(linux_raw_sys::general::CAP_SETUID);
    let gid_ok = gid == c.gid || gid == c.egid || gid == c.sgid || c.has_cap(linux_raw_sys::general::CAP_SETGID);
    if !(pid_ok && uid_ok && gid_ok) {
        return Err(Errno::EPERM);
    }
    if crate::process::find_process(pid).is_none() {
        return Err(Errno::ESRCH);
    }
    Ok(Ucred { pid, uid, gid })
}

pub fn sendmsg(thread: &Thread, fd: i32, msg: usize, flags: u32) -> Result<isize> {
    if flags & MSG_CMSG_COMPAT != 0 {
        return Err(Errno::EINVAL);
    }
    let (file, socket) = get_socket(thread, fd)?;
    Ok(send_one(thread, &file, &*socket, msg, flags)?.0 as isize)
}

/// Sends the message a user msghdr describes; returns the bytes sent and
/// whether that was all of them.
fn send_one(thread: &Thread, file: &OpenFile, socket: &dyn Socket, msg: usize, flags: u32) -> Result<(usize, bool)> {
    let hdr = read_msghdr(msg)?;
    let segments = IoVecs::read_msg(hdr.iov, hdr.iov_len)?.to_vec();
    let addr = if hdr.name_len > 0 { Some(read_addr(hdr.name, hdr.name_len)?) } else { None };
    if hdr.control_len > i32::MAX as usize || hdr.control_len >= MAX_CONTROL {
        return Err(Errno::ENOBUFS);
    }
    let mut control_buf = alloc::vec![0u8; hdr.control_len];
    if hdr.control_len > 0 {
        copy_from_user(&mut control_buf, hdr.control)?;
    }
    let control = parse_control(thread, &control_buf)?;
    let mut out = Outgoing { data: Source::user(segments), addr, rights: control.rights, creds: control.creds, flags, nonblocking: nonblocking(file, flags) };
    let sent = socket.send(&mut out)?;
    Ok((sent, out.data.remaining() == 0))
}

/// Size of `struct mmsghdr`, and where its msg_len is.
const MMSGHDR_LEN: usize = size_of::<netabi::mmsghdr>();
const MSG_LEN_OFFSET: usize = offset_of!(netabi::mmsghdr, msg_len);

/// Runs one message of a sendmmsg/recvmmsg batch (`op` returns the byte
/// count and what the caller needs) and stores the count in the entry's
/// msg_len.
fn with_msg_len<T>(entry: usize, op: impl FnOnce() -> Result<(usize, T)>) -> Result<T> {
    let (n, rest) = op()?;
    copy_to_user(entry + MSG_LEN_OFFSET, &(n as u32).to_le_bytes())?;
    Ok(rest)
}

pub fn sendmmsg(thread: &Thread, fd: i32, vec: usize, count: u32, flags: u32) -> Result<isize> {
    if flags & MSG_CMSG_COMPAT != 0 {
        return Err(Errno::EINVAL);
    }
    let (file, socket) = get_socket(thread, fd)?;
    let count = (count as usize).min(MAX_IOVECS);
    let mut sent = 0;
    let mut error = None;
    while sent < count {
        let entry = vec + sent * MMSGHDR_LEN;
        let all = match with_msg_len(entry, || send_one(thread, &file, &*socket, entry, flags)) {
            Ok(all) => all,
            Err(e) => {
                error = Some(e);
                break;
            }
        };
        sent += 1;
        // A message sent in part ends the batch.
        if !all {
            break;
        }
    }
    // An error is reported only when nothing was sent.
    match error {
        Some(e) if sent == 0 => Err(e),
        _ => Ok(sent as isize),
    }
}

/// Writes received control messages into the caller's buffer as Linux's
/// put_cmsg and scm_detach_fds do, tracking the room left.
struct ControlWriter {
    at: usize,
    room: usize,
    used: usize,
    truncated: bool,
}

impl ControlWriter {
    fn advance(&mut self, by: usize) {
        let by = by.min(self.room);
        self.at += by;
        self.room -= by;
        self.used += by;
    }

    /// Writes one control message (cut short, with MSG_CTRUNC, when the
    /// room is short).
    fn put(&mut self, level: u32, kind: u32, data: &[u8]) -> Result<()> {
        if self.room < CMSGHDR_LEN {
            self.truncated = true;
            return Ok(());
        }
        let mut len = CMSGHDR_LEN + data.len();
        if self.room < len {
            self.truncated = true;
            len = self.room;
        }
        let mut raw = Vec::with_capacity(len);
        raw.extend_from_slice(&(len as u64).to_le_bytes());
        raw.extend_from_slice(&level.to_le_bytes());
        raw.extend_from_slice(&kind.to_le_bytes());
        raw.extend_from_slice(&data[..len - CMSGHDR_LEN]);
        copy_to_user(self.at, &raw)?;
        self.advance(cmsg_align(CMSGHDR_LEN + data.len()));
        Ok(())
    }

    /// Installs received files as fds and writes the SCM_RIGHTS message;
    /// files that do not fit are closed, with MSG_CTRUNC.
    fn put_rights(&mut self, thread: &Thread, rights: Vec<Arc<OpenFile>>, cloexec: bool) -> Result<()> {
        let fit = if self.room <= CMSGHDR_LEN { 0 } else { (self.room - CMSGHDR_LEN) / 4 };
        let count = rights.len();
        let wanted = fit.min(count);
        let table = thread.process.files.lock().clone();
        let mut installed = 0;
        let mut result = Ok(());
        for file in rights.into_iter().take(wanted) {
            let fd = match table.lock().insert(file, cloexec) {
                Ok(fd) => fd,
                Err(_) => break,
            };
            if let Err(e) = copy_to_user(self.at + CMSGHDR_LEN + installed * 4, &fd.to_le_bytes()) {
                let _ = table.lock().close(fd);
                result = Err(e);
                break;
            }
            installed += 1;
        }
        if installed > 0 {
            let mut header = Vec::with_capacity(CMSGHDR_LEN);
            header.extend_from_slice(&((CMSGHDR_LEN + installed * 4) as u64).to_le_bytes());
            header.extend_from_slice(&netabi::SOL_SOCKET.to_le_bytes());
            header.extend_from_slice(&netabi::SCM_RIGHTS.to_le_bytes());
            copy_to_user(self.at, &header)?;
            self.advance(cmsg_align(CMSGHDR_LEN + installed * 4));
        }
        if installed < count || (count > 0 && fit == 0) {
            self.truncated = true;
        }
        result
    }
}

pub fn recvmsg(thread: &Thread, fd: i32, msg: usize, flags: u32) -> Result<isize> {
    if flags & MSG_CMSG_COMPAT != 0 {
        return Err(Errno::EINVAL);
    }
    let (file, socket) = get_socket(thread, fd)?;
    Ok(recv_one(thread, &file, &*socket, msg, flags)?.0 as isize)
}

pub fn recvmmsg(thread: &Thread, fd: i32, vec: usize, count: u32, flags: u32, timeout: usize) -> Result<isize> {
    if flags & MSG_CMSG_COMPAT != 0 {
        return Err(Errno::EINVAL);
    }
    // The timeout is checked between messages only; zero means one message.
    let deadline = if timeout != 0 {
        let ns = super::time::read_timespec(timeout)?;
        Some(if ns == 0 { 0 } else { kevlar_platform::time::monotonic_ns().saturating_add(ns) })
    } else {
        None
    };
    let (file, socket) = get_socket(thread, fd)?;
    if let Some(e) = socket.take_error() {
        return Err(e);
    }
    let mut flags = flags;
    let mut received = 0;
    let mut left_ns = 0;
    let mut error = None;
    while received < count as usize {
        let entry = vec + received * MMSGHDR_LEN;
        let msg_flags = match with_msg_len(entry, || recv_one(thread, &file, &*socket, entry, flags & !MSG_WAITFORONE)) {
            Ok(msg_flags) => msg_flags,
            Err(e) => {
                error = Some(e);
                break;
            }
        };
        received += 1;
        if flags & MSG_WAITFORONE != 0 {
            flags |= netabi::MSG_DONTWAIT;
        }
        if let Some(end) = deadline {
            let now = kevlar_platform::time::monotonic_ns();
            left_ns = end.saturating_sub(now);
            if left_ns == 0 {
                break;
            }
        }
        if msg_flags & netabi::MSG_OOB != 0 {
            break;
        }
    }
    if let Some(e) = error {
        if received == 0 {
            return Err(e);
        }
        // Reported by the next call (or SO_ERROR), as Linux does.
        if e != Errno::EAGAIN {
            socket.set_error(e);
        }
    }
    if received > 0 && timeout != 0 {
        let mut raw = [0u8; 16];
        raw[..8].copy_from_slice(&((left_ns / 1_000_000_000) as i64).to_le_bytes());
        raw[8..].copy_from_slice(&((left_ns % 1_000_000_000) as i64).to_le_bytes());
        copy_to_user(timeout, &raw)?;
    }
    Ok(received as isize)
}

/// Receives into the message a user msghdr describes and fills in its
/// name, control data, flags and lengths; returns the bytes received and
/// the msg_flags.
fn recv_one(thread: &Thread, file: &OpenFile, socket: &dyn Socket, msg: usize, flags: u32) -> Result<(usize, u32)> {
    let hdr = read_msghdr(msg)?;
    let segments = IoVecs::read_msg(hdr.iov, hdr.iov_len)?.to_vec();
    let mut sink = Sink::user(segments);
    let got: Incoming = socket.recv(&mut sink, flags, nonblocking(file, flags))?;
    let mut msg_flags = got.msg_flags | (flags & netabi::MSG_CMSG_CLOEXEC);
    if hdr.name != 0 {
        write_addr(got.from.as_deref().unwrap_or(&[]), hdr.name, msg + offset_of!(netabi::msghdr, msg_namelen))?;
    }
    let mut control = ControlWriter { at: hdr.control, room: hdr.control_len, used: 0, truncated: false };
    if hdr.control == 0 {
        // No buffer: credentials and files are lost (files closed).
        control.truncated = got.creds.is_some() || !got.rights.is_empty() || !got.control.is_empty();
    } else {
        for (level, kind, data) in &got.control {
            control.put(*level, *kind, data)?;
        }
        if let Some(creds) = got.creds {
            // The sender as the receiver's PID and user namespaces see it.
            let creds = creds.seen_by_caller();
            control.put(netabi::SOL_SOCKET, netabi::SCM_CREDENTIALS, &creds.to_bytes())?;
        }
        if !got.rights.is_empty() {
            control.put_rights(thread, got.rights, flags & netabi::MSG_CMSG_CLOEXEC != 0)?;
        }
    }
    if control.truncated {
        msg_flags |= netabi::MSG_CTRUNC;
    }
    copy_to_user(msg + offset_of!(netabi::msghdr, msg_flags), &msg_flags.to_le_bytes())?;
    copy_to_user(msg + offset_of!(netabi::msghdr, msg_controllen), &(control.used as u64).to_le_bytes())?;
    Ok((got.len, msg_flags))
}

// --- options --------------------------------------------------------------------

pub fn setsockopt(thread: &Thread, fd: i32, level: i32, name: u32, value: usize, len: i32) -> Result<isize> {
    if len < 0 {
        return Err(Errno::EINVAL);
    }
    let (_, socket) = get_socket(thread, fd)?;
    if level != netabi::SOL_SOCKET as i32 {
        socket.check_option_level(level)?;
    }
    // Every option here reads at least an int; none more than a timeval
    // or a linger.
    let want = (len as usize).min(16);
    let mut raw = alloc::vec![0u8; want];
    if want >= 4 {
        copy_from_user(&mut raw, value)?;
    }
    if level != netabi::SOL_SOCKET as i32 {
        socket.set_protocol_option(level, name, &raw)?;
        return Ok(0);
    }
    if want >= 4 && name == netabi::SO_ATTACH_FILTER {
        let (filter, program) = socket_filter(&raw, len as usize, &socket.options().filter)?;
        if !socket.runs_filters() {
            return Err(Errno::ENOPROTOOPT);
        }
        socket.options().filter.attach(filter, program)?;
        socket.socket_option_set(name);
        return Ok(0);
    }
    // SO_DETACH_BPF is the same option.
    if want >= 4 && name == netabi::SO_DETACH_FILTER {
        if !socket.runs_filters() {
            return Err(Errno::ENOPROTOOPT);
        }
        socket.options().filter.detach()?;
        socket.socket_option_set(name);
        return Ok(0);
    }
    if want >= 4 && name == netabi::SO_LOCK_FILTER {
        socket.options().filter.set_locked(i32::from_le_bytes(raw[..4].try_into().unwrap()) != 0)?;
        return Ok(0);
    }
    if want >= 4 && name == netabi::SO_ATTACH_BPF {
        // An eBPF program's descriptor: there are no eBPF programs (bpf(2)
        // makes none), so a descriptor is never one (EINVAL), as Linux
        // answers for any other file.
        if len != 4 {
            return Err(Errno::EINVAL);
        }
        socket.options().filter.check_unlocked()?;
        let fd = i32::from_le_bytes(raw[..4].try_into().unwrap());
        thread.process.files.lock().lock().get(fd)?;
        return Err(Errno::EINVAL);
    }
    net::set_socket_option(&*socket, name, &raw)?;
    Ok(0)
}

/// Reads SO_ATTACH_FILTER's `struct sock_fprog` (already copied into
/// `head`, the option being `optlen` bytes) and its program, with Linux's
/// errors in its order: EINVAL for a length other than the structure's,
/// a null program or a count out of 1..=BPF_MAXINSNS, EFAULT for the
/// program, EINVAL (ENOMEM) from the checks.
fn socket_filter(head: &[u8], optlen: usize, slot: &net::sockfilter::SocketFilter) -> Result<(kevlar_bpf::Filter, Vec<u8>)> {
    use kevlar_bpf::SockFilter;
    if optlen != size_of::<linux_raw_sys::ptrace::sock_fprog>() || head.len() < 16 {
        return Err(Errno::EINVAL);
    }
    // A locked filter: EPERM before the program is looked at.
    slot.check_unlocked()?;
    let count = usize::from(u16::from_le_bytes([head[0], head[1]]));
    let ptr = u64::from_le_bytes(head[8..16].try_into().unwrap()) as usize;
    if ptr == 0 || count == 0 || count > kevlar_bpf::MAX_INSNS {
        return Err(Errno::EINVAL);
    }
    let bytes = count * SockFilter::SIZE; // at most 32 KiB: no overflow
    let mut raw = Vec::new();
    raw.try_reserve_exact(bytes).map_err(|_| Errno::ENOMEM)?;
    raw.resize(bytes, 0u8);
    copy_from_user(&mut raw, ptr)?;
    let prog: Vec<SockFilter> = raw.chunks_exact(SockFilter::SIZE).map(|c| SockFilter::from_bytes(c.try_into().unwrap())).collect();
    let filter = kevlar_bpf::Filter::load_socket(&prog).map_err(|e| match e {
        kevlar_bpf::Error::Invalid => Errno::EINVAL,
        kevlar_bpf::Error::NoMemory => Errno::ENOMEM,
    })?;
    Ok((filter, raw))
}

/// SO_GET_FILTER: the attached program, counted in instructions (the
/// length too): with none, 0; asked for 0, the count only; EINVAL for
/// room for fewer than it has.
fn get_filter(socket: &dyn net::Socket, value: usize, len: usize, len_ptr: usize) -> Result<isize> {
    let count = match socket.options().filter.program() {
        None => 0,
        Some(program) => {
            let count = program.len() / kevlar_bpf::SockFilter::SIZE;
            if len != 0 {
                if len < count {
                    return Err(Errno::EINVAL);
                }
                copy_to_user(value, &program)?;
            }
            count
        }
    };
    copy_to_user(len_ptr, &(count as i32).to_le_bytes())?;
    Ok(0)
}

pub fn getsockopt(thread: &Thread, fd: i32, level: i32, name: u32, value: usize, len_ptr: usize) -> Result<isize> {
    let (_, socket) = get_socket(thread, fd)?;
    let len = i32::from_le_bytes(read_bytes::<4>(len_ptr)?);
    if len < 0 {
        return Err(Errno::EINVAL);
    }
    if level != netabi::SOL_SOCKET as i32 {
        let (bytes, reported) = socket.get_protocol_option_sized(level, name, len as usize)?;
        copy_to_user(value, &bytes)?;
        copy_to_user(len_ptr, &(reported as i32).to_le_bytes())?;
        return Ok(0);
    }
    if name == netabi::SO_GET_FILTER {
        return get_filter(&*socket, value, len as usize, len_ptr);
    }
    if name == netabi::SO_PEERGROUPS {
        return get_peer_groups(&*socket, value, len as usize, len_ptr);
    }
    let bytes = net::get_socket_option(&*socket, name)?;
    let n = (len as usize).min(bytes.len());
    copy_to_user(value, &bytes[..n])?;
    copy_to_user(len_ptr, &(n as i32).to_le_bytes())?;
    Ok(0)
}

/// SO_PEERGROUPS: the peer's supplementary groups as the caller's user
/// namespace sees them. ENODATA without peer credentials; a buffer too
/// short gets ERANGE with the length it needs written back (Linux's
/// sock_getsockopt).
fn get_peer_groups(socket: &dyn Socket, value: usize, len: usize, len_ptr: usize) -> Result<isize> {
    let groups = socket.peer_groups().ok_or(Errno::ENODATA)?;
    let needed = groups.len() * 4;
    if len < needed {
        copy_to_user(len_ptr, &(needed as i32).to_le_bytes())?;
        return Err(Errno::ERANGE);
    }
    let ns = crate::ns::user::current_ns();
    let bytes: Vec<u8> = groups.iter().flat_map(|&g| ns.gid_shown(g).to_le_bytes()).collect();
    copy_to_user(value, &bytes)?;
    copy_to_user(len_ptr, &(needed as i32).to_le_bytes())?;
    Ok(0)
}

/// Returns whether `file` is a socket (read/write go through here then).
pub fn is_socket(file: &OpenFile) -> bool {
    file.ops.as_socket().is_some()
}
