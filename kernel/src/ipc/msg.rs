//! System V message queues (msgget, msgsnd, msgrcv, msgctl).

use alloc::collections::VecDeque;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Write;


use super::abi::*;
use super::ids::{self, Ids, Object, Perm};
use crate::error::{Errno, Result};
use crate::process::wait_queue::WaitQueue;
use crate::process::Process;

/// /proc/sys/kernel/msgmax, msgmnb and msgmni (per IPC namespace).
pub use super::sysctl::{MSG_MAX, MSG_MNB, MSG_MNI};

struct Message {
    mtype: i64,
    text: Vec<u8>,
}

/// A message queue (`struct msg_queue`).
pub struct Queue {
    perm: Perm,
    messages: VecDeque<Message>,
    cbytes: usize,
    qbytes: usize,
    stime: i64,
    rtime: i64,
    ctime: i64,
    lspid: i32,
    lrpid: i32,
}

impl Object for Queue {
    fn perm(&self) -> &Perm {
        &self.perm
    }
    fn perm_mut(&mut self) -> &mut Perm {
        &mut self.perm
    }
}

static QUEUES: super::ns::PerNs<Ids<Queue>> = super::ns::PerNs::new(Ids::new);

/// Takes away the queues of IPC namespace `inum`, which is gone.
pub(super) fn forget_ns(inum: u64) {
    // Dropped here, after the lock.
    drop(QUEUES.take(inum));
}
/// Senders waiting for room and receivers waiting for a message.
static WAITERS: WaitQueue = WaitQueue::new();

/// msgget.
pub fn get(process: &Process, key: i32, flags: u32) -> Result<i32> {
    let mut queues = QUEUES.lock();
    ids::get_or_create(&mut queues, process, key, flags, |_| Ok(()), |queues| {
        let perm = Perm::new(key, &process.creds.lock(), flags);
        let queue = Queue {
            perm,
            messages: VecDeque::new(),
            cbytes: 0,
            qbytes: MSG_MNB.get32() as usize,
            stime: 0,
            rtime: 0,
            ctime: super::now_secs(),
            lspid: 0,
            lrpid: 0,
        };
        queues.insert(queue, MSG_MNI.get32())
    })
}

/// msgsnd of `text` with type `mtype` (the caller read both from user
/// memory and checked the size).
pub fn send(process: &Process, id: i32, mtype: i64, text: Vec<u8>, flags: u32) -> Result<()> {
    if text.len() > MSG_MAX.get32() as usize || id < 0 || mtype < 1 {
        return Err(Errno::EINVAL);
    }
    let mut text = Some(text);
    let mut first = true;
    WAITERS.wait_until(|| {
        let mut queues = QUEUES.lock();
        let queue = match queues.get_mut(id) {
            Ok(q) => q,
            Err(_) if !first => return Err(Errno::EIDRM),
            Err(e) => return Err(e),
        };
        first = false;
        queue.perm.check(process, ids::WRITE)?;
        let len = text.as_ref().unwrap().len();
        if queue.cbytes + len <= queue.qbytes && queue.messages.len() < queue.qbytes {
            queue.messages.push_back(Message { mtype, text: text.take().unwrap() });
            queue.cbytes += len;
            queue.lspid = process.pid;
            queue.stime = super::now_secs();
            return Ok(Some(()));
        }
        if flags & IPC_NOWAIT != 0 {
            return Err(Errno::EAGAIN);
        }
        Ok(None)
    })?;
    WAITERS.wake_all();
    Ok(())
}

/// How msgrcv picks a message.
#[derive(Clone, Copy)]
enum Search {
    Any,
    Equal(i64),
    NotEqual(i64),
    LessEqual(i64),
    Number(i64),
}

fn find(messages: &VecDeque<Message>, search: Search) -> Option<usize> {
    match search {
        Search::Any => (!messages.is_empty()).then_some(0),
        Search::Equal(t) => messages.iter().position(|m| m.mtype == t),
        Search::NotEqual(t) => messages.iter().position(|m| m.mtype != t),
        // The first message of the lowest type not above `t`.
        Search::LessEqual(t) => {
            let mut best: Option<usize> = None;
            for (i, m) in messages.iter().enumerate() {
                if m.mtype <= t && best.is_none_or(|b| m.mtype < messages[b].mtype) {
                    best = Some(i);
                }
            }
            best
        }
        Search::Number(n) => usize::try_from(n).ok().filter(|&n| n < messages.len()),
    }
}

/// msgrcv: returns the message's type and its text cut to `size` bytes.
pub fn receive(process: &Process, id: i32, size: usize, msgtyp: i64, flags: u32) -> Result<(i64, Vec<u8>)> {
    if id < 0 || (size as isize) < 0 {
        return Err(Errno::EINVAL);
    }
    let search = if flags & MSG_COPY != 0 {
        if flags & MSG_EXCEPT != 0 || flags & IPC_NOWAIT == 0 {
            return Err(Errno::EINVAL);
        }
        Search::Number(msgtyp)
    } else if msgtyp == 0 {
        Search::Any
    } else if msgtyp < 0 {
        Search::LessEqual(if msgtyp == i64::MIN { i64::MAX } else { -msgtyp })
    } else if flags & MSG_EXCEPT != 0 {
        Search::NotEqual(msgtyp)
    } else {
        Search::Equal(msgtyp)
    };
    let copy_size = size.min(MSG_MAX.get32() as usize);
    let mut first = true;
    let message = WAITERS.wait_until(|| {
        let mut queues = QUEUES.lock();
        let queue = match queues.get_mut(id) {
            Ok(q) => q,
            Err(_) if !first => return Err(Errno::EIDRM),
            Err(e) => return Err(e),
        };
        first = false;
        queue.perm.check(process, ids::READ)?;
        let Some(at) = find(&queue.messages, search) else {
            return if flags & IPC_NOWAIT != 0 { Err(Errno::ENOMSG) } else { Ok(None) };
        };
        let len = queue.messages[at].text.len();
        if size < len && flags & MSG_NOERROR == 0 {
            return Err(Errno::E2BIG);
        }
        if flags & MSG_COPY != 0 {
            if len > copy_size {
                return Err(Errno::EINVAL);
            }
            let m = &queue.messages[at];
            return Ok(Some(Message { mtype: m.mtype, text: m.text.clone() }));
        }
        let m = queue.messages.remove(at).unwrap();
        queue.cbytes -= len;
        queue.lrpid = process.pid;
        queue.rtime = super::now_secs();
        Ok(Some(m))
    })?;
    if flags & MSG_COPY == 0 {
        WAITERS.wake_all();
    }
    let mut text = message.text;
    text.truncate(size);
    Ok((message.mtype, text))
}

/// `struct msginfo` for IPC_INFO and MSG_INFO, and the highest index.
pub fn info(cmd: i32) -> ([u8; 32], i32) {
    let queues = QUEUES.lock();
    let mut out = [0u8; 32];
    let (pool, map, tql) = if cmd == MSG_INFO {
        let headers: usize = queues.iter().map(|q| q.messages.len()).sum();
        let bytes: usize = queues.iter().map(|q| q.cbytes).sum();
        (queues.len() as u32, headers as u32, bytes as u32)
    } else {
        (MSGMNI * MSGMNB / 1024, MSGMNB, MSGMNB)
    };
    let fields = [pool, map, MSG_MAX.get32(), MSG_MNB.get32(), MSG_MNI.get32(), MSGSSZ as u32, tql];
    for (i, v) in fields.iter().enumerate() {
        ids::put_u32(&mut out, i * 4, *v);
    }
    out[28..30].copy_from_slice(&MSGSEG.to_le_bytes());
    (out, queues.max_idx().max(0))
}

/// IPC_STAT, MSG_STAT and MSG_STAT_ANY: `struct msqid64_ds` and what the
/// call returns (0, or the id for the *_STAT commands, which take an index).
pub fn stat(process: &Process, id: i32, cmd: i32) -> Result<([u8; 120], i32)> {
    let queues = QUEUES.lock();
    let queue = if cmd == IPC_STAT { queues.get(id)? } else { queues.by_index(id)? };
    if cmd != MSG_STAT_ANY {
        queue.perm.check(process, ids::READ)?;
    }
    let mut out = [0u8; 120];
    let ns = process.creds.lock().user_ns.clone();
    queue.perm.shown(&ns).write_to(&mut out[..48]);
    ids::put_u64(&mut out, 48, queue.stime as u64);
    ids::put_u64(&mut out, 56, queue.rtime as u64);
    ids::put_u64(&mut out, 64, queue.ctime as u64);
    ids::put_u64(&mut out, 72, queue.cbytes as u64);
    ids::put_u64(&mut out, 80, queue.messages.len() as u64);
    ids::put_u64(&mut out, 88, queue.qbytes as u64);
    ids::put_u32(&mut out, 96, queue.lspid as u32);
    ids::put_u32(&mut out, 100, queue.lrpid as u32);
    Ok((out, if cmd == IPC_STAT { 0 } else { queue.perm.id }))
}

/// IPC_SET from a `struct msqid64_ds`.
pub fn set(process: &Process, id: i32, ds: &[u8; 120]) -> Result<()> {
    let mut queues = QUEUES.lock();
    let queue = queues.get_mut(id)?;
    queue.perm.check_owner(process)?;
    let qbytes = ids::get_u64(ds, 88);
    if qbytes > MSG_MNB.get32() as u64 && !crate::process::access::capable(process, linux_raw_sys::general::CAP_SYS_RESOURCE) {
        return Err(Errno::EPERM);
    }
    let (uid, gid, mode) = ids::read_perm_set(ds);
    queue.perm.set(process, uid, gid, mode)?;
    queue.qbytes = qbytes as usize;
    queue.ctime = super::now_secs();
    drop(queues);
    WAITERS.wake_all();
    Ok(())
}

/// IPC_RMID: waiting senders and receivers fail with EIDRM.
pub fn remove(process: &Process, id: i32) -> Result<()> {
    let mut queues = QUEUES.lock();
    queues.get(id)?.perm.check_owner(process)?;
    queues.remove(id);
    drop(queues);
    WAITERS.wake_all();
    Ok(())
}

/// /proc/sysvipc/msg.
pub fn proc_text() -> String {
    // The ids as the reader's user namespace sees them.
    let ns = crate::ns::user::current_ns();
    let mut s = String::from("       key      msqid perms      cbytes       qnum lspid lrpid   uid   gid  cuid  cgid      stime      rtime      ctime\n");
    for q in QUEUES.lock().iter() {
        let p = &q.perm.shown(&ns);
        let _ = writeln!(
            s,
            "{:>10} {:>10}  {:>4o}  {:>10} {:>10} {:>5} {:>5} {:>5} {:>5} {:>5} {:>5} {:>10} {:>10} {:>10}",
            p.key, p.id, p.mode, q.cbytes, q.messages.len(), q.lspid, q.lrpid, p.uid, p.gid, p.cuid, p.cgid, q.stime, q.rtime, q.ctime
        );
    }
    s
}
