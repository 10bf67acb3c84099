//! NETLINK_KOBJECT_UEVENT: where udev and systemd-udevd listen (group 1)
//! for device events. A socket binds and joins the group as on Linux.
//!
//! What is emitted: nothing yet. Kevlar's devices (the console, virtio
//! block and network cards, the pseudo devices) all exist before the first
//! process runs and none comes or goes later, so there is no event to
//! send; a listener sees an empty queue (poll says not readable, a
//! non-blocking receive gives EAGAIN), as on a Linux where no device
//! changes. Hot-plugged devices would be announced here with
//! `super::broadcast(NETLINK_KOBJECT_UEVENT, 1, "ACTION@DEVPATH\0KEY=...")`.

use super::{Handled, Header};
use crate::error::{Errno, Result};

/// A message sent to the kernel on this family: Linux accepts uevent
/// injection only from CAP_SYS_ADMIN in the network namespace's owner and
/// only of a well-formed event; nothing is injected here.
pub fn handle(_hdr: &Header) -> Result<Handled> {
    Err(Errno::EOPNOTSUPP)
}
