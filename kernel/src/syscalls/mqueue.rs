//! POSIX message queue calls: argument decoding and the order of Linux's
//! checks; the queues live in `crate::ipc::mqueue`.

use alloc::sync::Arc;

use linux_raw_sys::general as abi;

use super::{read_bytes, read_user_cstr, PATH_MAX};
use crate::error::{Errno, Result};
use crate::fs::file::OpenFile;
use crate::ipc::mqueue::{self, Attr};
use crate::process::Thread;
use crate::uaccess::{copy_from_user, copy_to_user};

fn read_attr(addr: usize) -> Result<Attr> {
    let raw = read_bytes::<64>(addr)?;
    let word = |i: usize| i64::from_le_bytes(raw[i * 8..i * 8 + 8].try_into().unwrap());
    Ok(Attr { flags: word(0), maxmsg: word(1), msgsize: word(2), curmsgs: word(3) })
}

fn attr_bytes(a: &Attr) -> [u8; 64] {
    let mut out = [0u8; 64];
    for (i, v) in [a.flags, a.maxmsg, a.msgsize, a.curmsgs].iter().enumerate() {
        out[i * 8..i * 8 + 8].copy_from_slice(&v.to_le_bytes());
    }
    out
}

fn file(thread: &Thread, fd: i32) -> Result<Arc<OpenFile>> {
    let file = thread.process.files.lock().lock().get(fd)?;
    mqueue::queue_of(&file)?;
    Ok(file)
}

/// An absolute CLOCK_REALTIME timeout in ns (EFAULT, EINVAL).
fn read_deadline(addr: usize) -> Result<Option<u64>> {
    if addr == 0 {
        return Ok(None);
    }
    super::time::read_timespec(addr).map(Some)
}

pub fn mq_open(thread: &Thread, name: usize, flags: u32, mode: u32, attr: usize) -> Result<isize> {
    let attr = if attr != 0 { Some(read_attr(attr)?) } else { None };
    let name = read_user_cstr(name, PATH_MAX - 1)?;
    let queue = mqueue::open(&thread.process, &name, flags, mode, attr)?;
    let mut path = alloc::vec![b'/'];
    path.extend_from_slice(&name);
    let file = OpenFile::new(Arc::new(queue), flags & (abi::O_ACCMODE | abi::O_NONBLOCK), path);
    // Linux's descriptors of message queues are always close-on-exec.
    let fd = thread.process.files.lock().lock().insert(file, true)?;
    Ok(fd as isize)
}

pub fn mq_unlink(thread: &Thread, name: usize) -> Result<isize> {
    let name = read_user_cstr(name, PATH_MAX - 1)?;
    mqueue::unlink(&thread.process, &name)?;
    Ok(0)
}

pub fn mq_timedsend(thread: &Thread, fd: i32, msg: usize, len: usize, prio: u32, timeout: usize) -> Result<isize> {
    let deadline = read_deadline(timeout)?;
    if prio >= mqueue::PRIO_MAX {
        return Err(Errno::EINVAL);
    }
    let file = file(thread, fd)?;
    let queue = mqueue::queue_of(&file)?;
    if !file.writable() {
        return Err(Errno::EBADF);
    }
    if len > queue.msgsize() {
        return Err(Errno::EMSGSIZE);
    }
    let mut text = crate::ipc::buffer::<u8>(len)?;
    copy_from_user(&mut text, msg)?;
    queue.send(&file, &thread.process, text, prio, deadline)?;
    Ok(0)
}

pub fn mq_timedreceive(thread: &Thread, fd: i32, msg: usize, len: usize, prio: usize, timeout: usize) -> Result<isize> {
    let deadline = read_deadline(timeout)?;
    let file = file(thread, fd)?;
    let queue = mqueue::queue_of(&file)?;
    if !file.readable() {
        return Err(Errno::EBADF);
    }
    if len < queue.msgsize() {
        return Err(Errno::EMSGSIZE);
    }
    let (text, p) = queue.receive(&file, deadline)?;
    if prio != 0 {
        copy_to_user(prio, &p.to_le_bytes())?;
    }
    copy_to_user(msg, &text)?;
    Ok(text.len() as isize)
}

pub fn mq_notify(thread: &Thread, fd: i32, sevp: usize) -> Result<isize> {
    let mut target = None;
    let how = if sevp != 0 {
        let raw = read_bytes::<64>(sevp)?;
        let value = u64::from_le_bytes(raw[..8].try_into().unwrap());
        let signo = i32::from_le_bytes(raw[8..12].try_into().unwrap());
        let notify = u32::from_le_bytes(raw[12..16].try_into().unwrap());
        match notify {
            abi::SIGEV_NONE => Some((notify, 0, value)),
            abi::SIGEV_SIGNAL if (0..=64).contains(&signo) => Some((notify, signo as u32, value)),
            abi::SIGEV_SIGNAL => return Err(Errno::EINVAL),
            abi::SIGEV_THREAD => {
                // The notification goes to the netlink socket sigev_signo
                // names, as the cookie read from sival_ptr.
                let mut cookie = [0u8; mqueue::NOTIFY_COOKIE_LEN];
                copy_from_user(&mut cookie, value as usize)?;
                let sock = thread.process.files.lock().lock().get(signo)?;
                let socket = sock.ops.as_socket().ok_or(Errno::ENOTSOCK)?;
                let sock = socket.socket.as_netlink().ok_or(Errno::EINVAL)?;
                target = Some(mqueue::ThreadNotify { sock, cookie });
                Some((notify, 0, value))
            }
            _ => return Err(Errno::EINVAL),
        }
    } else {
        None
    };
    let file = file(thread, fd)?;
    mqueue::queue_of(&file)?.notify(&thread.process, how, target)?;
    Ok(0)
}

pub fn mq_getsetattr(thread: &Thread, fd: i32, new: usize, old: usize) -> Result<isize> {
    let new = if new != 0 { Some(read_attr(new)?) } else { None };
    if new.is_some_and(|a| a.flags & !(abi::O_NONBLOCK as i64) != 0) {
        return Err(Errno::EINVAL);
    }
    let file = file(thread, fd)?;
    let mut attr = mqueue::queue_of(&file)?.attr();
    attr.flags = (file.flags() & abi::O_NONBLOCK) as i64;
    if let Some(a) = new {
        let flags = (file.flags() & !abi::O_NONBLOCK) | (a.flags as u32 & abi::O_NONBLOCK);
        file.set_status_flags(fd, flags);
    }
    if old != 0 {
        copy_to_user(old, &attr_bytes(&attr))?;
    }
    Ok(0)
}
