//! NETLINK_AUDIT (kernel/audit.c) as on a Linux with audit off and no
//! audit daemon: the status the audit tools and systemd-journald read and
//! set (AUDIT_GET, AUDIT_SET), and the read-log multicast group journald
//! listens on (systemd-journald-audit.socket), which needs CAP_AUDIT_READ.
//! Kevlar generates no audit records of its own; user-space messages
//! (AUDIT_USER and the user ranges: systemd's SERVICE_START...) are
//! dropped while audit is off, as Linux drops them, and once it is on
//! (journald turns it on) become records multicast to the read-log group
//! in Linux's format. Rules (AUDIT_ADD_RULE...) are not kept: they are
//! refused with EOPNOTSUPP after Linux's permission checks, never taken
//! silently.

use alloc::format;
use alloc::vec::Vec;
use core::sync::atomic::{AtomicU32, Ordering};

use kevlar_platform::sync::SpinLock;
use linux_raw_sys::general as abi;
use linux_raw_sys::ptrace as au;

use super::{Handled, Header, MsgBuilder, NetlinkSocket};
use crate::error::{Errno, Result};

/// The audit status (struct audit_status's settable fields).
struct Status {
    enabled: u32,
    failure: u32,
    pid: u32,
    rate_limit: u32,
    backlog_limit: u32,
    backlog_wait_time: u32,
}

/// Linux's defaults: audit off (no `audit=1`), failures printed
/// (AUDIT_FAIL_PRINTK), a backlog of 64 and a wait of 60 s in Debian's
/// jiffies (HZ 250).
static STATUS: SpinLock<Status> = SpinLock::new(Status {
    enabled: 0,
    failure: au::AUDIT_FAIL_PRINTK,
    pid: 0,
    rate_limit: 0,
    backlog_limit: 64,
    backlog_wait_time: 60 * 250,
});

/// The read-log multicast group (AUDIT_NLGRP_READLOG).
const READLOG: u32 = au::audit_nlgrps::AUDIT_NLGRP_READLOG as u32;

/// The serial number of the last record (audit_serial).
static SERIAL: AtomicU32 = AtomicU32::new(0);

/// struct audit_status's size: eleven u32 fields.
const STATUS_LEN: usize = 11 * 4;

fn has(cap: u32) -> bool {
    crate::process::current().is_some_and(|t| crate::process::access::capable(&t.process, cap))
}

/// Joining the read-log group (bind with nl_groups, or
/// NETLINK_ADD_MEMBERSHIP): audit_multicast_bind's CAP_AUDIT_READ.
pub fn may_listen() -> Result<()> {
    if has(abi::CAP_AUDIT_READ) { Ok(()) } else { Err(Errno::EPERM) }
}

/// audit_netlink_ok: who may send message type `kind`.
fn may_send(kind: u32) -> Result<()> {
    let current = crate::process::current().ok_or(Errno::EPERM)?;
    if !current.process.creds.lock().user_ns.is_init() {
        return Err(Errno::ECONNREFUSED);
    }
    if crate::ns::pid::viewer().level != 0 {
        return Err(Errno::EPERM);
    }
    match kind {
        au::AUDIT_LIST | au::AUDIT_ADD | au::AUDIT_DEL => Err(Errno::EOPNOTSUPP),
        au::AUDIT_GET
        | au::AUDIT_SET
        | au::AUDIT_GET_FEATURE
        | au::AUDIT_SET_FEATURE
        | au::AUDIT_LIST_RULES
        | au::AUDIT_ADD_RULE
        | au::AUDIT_DEL_RULE
        | au::AUDIT_SIGNAL_INFO
        | au::AUDIT_TTY_GET
        | au::AUDIT_TTY_SET
        | au::AUDIT_TRIM
        | au::AUDIT_MAKE_EQUIV => {
            if has(abi::CAP_AUDIT_CONTROL) { Ok(()) } else { Err(Errno::EPERM) }
        }
        au::AUDIT_USER | au::AUDIT_FIRST_USER_MSG..=au::AUDIT_LAST_USER_MSG | au::AUDIT_FIRST_USER_MSG2..=au::AUDIT_LAST_USER_MSG2 => {
            if has(abi::CAP_AUDIT_WRITE) { Ok(()) } else { Err(Errno::EPERM) }
        }
        _ => Err(Errno::EINVAL),
    }
}

fn word(body: &[u8], i: usize) -> u32 {
    body.get(4 * i..4 * i + 4).map_or(0, |b| u32::from_le_bytes(b.try_into().unwrap()))
}

/// AUDIT_SET: each field the mask names, checked as audit_receive_msg
/// does, then applied.
fn set(body: &[u8]) -> Result<()> {
    let mask = word(body, 0);
    let mut s = STATUS.lock();
    // audit_enabled 2 locks the configuration.
    if mask != 0 && s.enabled == 2 {
        return Err(Errno::EPERM);
    }
    if mask & au::AUDIT_STATUS_ENABLED != 0 {
        let v = word(body, 1);
        if v > 2 {
            return Err(Errno::EINVAL);
        }
        s.enabled = v;
    }
    if mask & au::AUDIT_STATUS_FAILURE != 0 {
        let v = word(body, 2);
        if v > au::AUDIT_FAIL_PANIC {
            return Err(Errno::EINVAL);
        }
        s.failure = v;
    }
    if mask & au::AUDIT_STATUS_PID != 0 {
        // Registering an audit daemon: the records it would receive are
        // never made here, so it is refused rather than taken.
        return Err(Errno::EOPNOTSUPP);
    }
    if mask & au::AUDIT_STATUS_RATE_LIMIT != 0 {
        s.rate_limit = word(body, 4);
    }
    if mask & au::AUDIT_STATUS_BACKLOG_LIMIT != 0 {
        s.backlog_limit = word(body, 5);
    }
    if mask & au::AUDIT_STATUS_BACKLOG_WAIT_TIME != 0 {
        let v = word(body, 9);
        // AUDIT_MAX_WAIT... Linux refuses more than 10 minutes in jiffies.
        if v > 10 * 60 * 250 {
            return Err(Errno::EINVAL);
        }
        s.backlog_wait_time = v;
    }
    // AUDIT_STATUS_LOST and _BACKLOG_WAIT_TIME_ACTUAL reset counters that
    // are always 0 here.
    Ok(())
}

/// Handles one message sent to the kernel (audit_receive_msg); replies
/// go to `out`.
pub fn handle(_sock: &NetlinkSocket, hdr: &Header, msg: &[u8], out: &mut Vec<Vec<u8>>) -> Result<Handled> {
    let kind = u32::from(hdr.kind);
    may_send(kind)?;
    let body = msg.get(super::NLMSG_HDRLEN..).unwrap_or(&[]);
    match kind {
        au::AUDIT_GET => {
            let s = STATUS.lock();
            let fields = [0, s.enabled, s.failure, s.pid, s.rate_limit, s.backlog_limit, 0, 0, au::AUDIT_FEATURE_BITMAP_ALL, s.backlog_wait_time, 0];
            drop(s);
            let mut reply = Vec::with_capacity(STATUS_LEN);
            for f in fields {
                reply.extend_from_slice(&f.to_le_bytes());
            }
            // audit_send_reply: the kernel's port (0) in the header.
            let mut b = MsgBuilder::new(au::AUDIT_GET as u16, 0, hdr.seq, 0);
            b.put(&reply);
            out.push(b.finish());
            Ok(Handled::Done)
        }
        au::AUDIT_SET => set(body).map(|_| Handled::Done),
        au::AUDIT_USER | au::AUDIT_FIRST_USER_MSG..=au::AUDIT_LAST_USER_MSG | au::AUDIT_FIRST_USER_MSG2..=au::AUDIT_LAST_USER_MSG2 => {
            user_message(kind, body);
            Ok(Handled::Done)
        }
        _ => Err(Errno::EOPNOTSUPP),
    }
}

/// A message from user space to the audit log: dropped while audit is
/// off (but AUDIT_USER_AVC), else a record for the read-log group:
/// `audit(SEC.MSEC:SERIAL): pid=P uid=U auid=A ses=S msg='TEXT'`
/// (audit_log_common_recv_msg; no LSM context here).
fn user_message(kind: u32, body: &[u8]) {
    if STATUS.lock().enabled == 0 && kind != au::AUDIT_USER_AVC {
        return;
    }
    if !super::has_listeners(linux_raw_sys::netlink::NETLINK_AUDIT, READLOG) {
        return;
    }
    let Some(current) = crate::process::current() else { return };
    let uid = current.process.creds.lock().uid;
    // The text ends at its first NUL, at most AUDIT_MESSAGE_TEXT_MAX.
    let text = body.split(|&b| b == 0).next().unwrap_or(&[]);
    let text = &text[..text.len().min(au::AUDIT_MESSAGE_TEXT_MAX as usize)];
    let now = crate::clock::now();
    let serial = SERIAL.fetch_add(1, Ordering::Relaxed).wrapping_add(1);
    // No login ids are kept: auid and ses are unset (-1).
    let record = format!(
        "audit({}.{:03}:{}): pid={} uid={} auid=4294967295 ses=4294967295 msg='{}'",
        now.sec,
        now.nsec / 1_000_000,
        serial,
        current.process.pid,
        uid,
        alloc::string::String::from_utf8_lossy(text)
    );
    let mut b = MsgBuilder::new(kind as u16, 0, 0, 0);
    b.put(record.as_bytes());
    super::broadcast(linux_raw_sys::netlink::NETLINK_AUDIT, READLOG, &b.finish());
}
