//! NETLINK_KOBJECT_UEVENT: where udev and systemd-udevd listen (group 1)
//! for device events. A socket binds and joins the group as on Linux.
//!
//! What is emitted: the synthetic events a write to a device's sysfs
//! `uevent` file asks for ([`synthesize`]: what `udevadm trigger` does at
//! boot to replay the devices that exist, the coldplug), in Linux's
//! format (kobject_uevent_env): `ACTION@DEVPATH`, then `ACTION=`,
//! `DEVPATH=`, `SUBSYSTEM=`, `SYNTH_UUID=0`, the keys the device's `uevent` file shows,
//! and `SEQNUM=`, each NUL-terminated. Kevlar's devices all exist before
//! the first process runs and none comes or goes later, so the kernel
//! sends no event of its own.

use alloc::format;
use alloc::vec::Vec;
use core::sync::atomic::{AtomicU64, Ordering};

use linux_raw_sys::netlink as nl;

use super::{Handled, Header};
use crate::error::{Errno, Result};

/// The kernel's uevent group (udev's "kernel" monitor).
const GROUP: u32 = 1;

/// The last sequence number given (/sys/kernel/uevent_seqnum).
static SEQNUM: AtomicU64 = AtomicU64::new(0);

/// kobject_actions, in Linux's order.
const ACTIONS: [&str; 8] = ["add", "remove", "change", "move", "online", "offline", "bind", "unbind"];

/// Returns /sys/kernel/uevent_seqnum: the number of the last event.
pub fn seqnum() -> u64 {
    SEQNUM.load(Ordering::Relaxed)
}

/// Takes what was written to the `uevent` file of the device at `devpath`
/// (under /sys) of `subsystem`, whose `uevent` file shows `env`
/// (KEY=VALUE lines), and broadcasts the event it names, as
/// kobject_synth_uevent does. Returns the bytes consumed (all of them).
///
/// EINVAL for an empty write or an unknown action. The form with
/// arguments (`add UUID KEY=VALUE...`, which adds SYNTH_UUID and
/// SYNTH_ARG_ keys) is not supported: EINVAL.
pub fn synthesize(written: &[u8], devpath: &str, subsystem: &str, env: &str) -> Result<usize> {
    let mut text = written;
    if let Some((&last, rest)) = text.split_last() {
        if last == b'\n' || last == 0 {
            text = rest;
        }
    }
    if text.is_empty() {
        return Err(Errno::EINVAL);
    }
    let action = ACTIONS.iter().find(|a| a.as_bytes() == text).ok_or(Errno::EINVAL)?;
    emit(action, devpath, subsystem, env);
    Ok(written.len())
}

/// Builds and broadcasts one synthetic event.
fn emit(action: &str, devpath: &str, subsystem: &str, env: &str) {
    let seq = SEQNUM.fetch_add(1, Ordering::Relaxed) + 1;
    let mut msg: Vec<u8> = Vec::with_capacity(256);
    let mut put = |s: &str| {
        msg.extend_from_slice(s.as_bytes());
        msg.push(0);
    };
    put(&format!("{}@{}", action, devpath));
    put(&format!("ACTION={}", action));
    put(&format!("DEVPATH={}", devpath));
    put(&format!("SUBSYSTEM={}", subsystem));
    // A synthetic event without a UUID says so.
    put("SYNTH_UUID=0");
    for line in env.lines().filter(|l| !l.is_empty()) {
        put(line);
    }
    put(&format!("SEQNUM={}", seq));
    super::broadcast(nl::NETLINK_KOBJECT_UEVENT, GROUP, &msg);
}

/// A message sent to the kernel on this family: Linux accepts uevent
/// injection only from CAP_SYS_ADMIN in the network namespace's owner and
/// only of a well-formed event; nothing is injected here.
pub fn handle(_hdr: &Header) -> Result<Handled> {
    Err(Errno::EOPNOTSUPP)
}
