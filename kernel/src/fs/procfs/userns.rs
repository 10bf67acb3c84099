//! /proc/PID/uid_map, gid_map and setgroups: the user namespace of the
//! process, read as the reader's namespace sees it and written once by
//! the rules `ns::user` keeps; /proc/PID/timens_offsets (`ns::time`).

use alloc::boxed::Box;
use alloc::sync::Arc;

use kevlar_vfs::Inode;

use super::pid::process;
use crate::error::Errno;
use crate::fs::synth::{Attr, Polling, SynthFile};
use crate::ns::user::{self, MapFile};
use crate::process::Pid;

fn reader_ns() -> Arc<user::UserNs> {
    crate::process::current().map_or_else(user::init_ns, |t| t.process.creds.lock().user_ns.clone())
}

/// The node of one of the files of process `pid`.
pub fn map_file(pid: Pid, attr: Attr, which: MapFile) -> Arc<dyn Inode> {
    let file: Arc<dyn Inode> = SynthFile::writable(
        attr,
        Box::new(move || {
            let ns = process(pid)?.creds.lock().user_ns.clone();
            Ok(user::map_text(&ns, which, &reader_ns()).into_bytes())
        }),
        Box::new(move |buf| {
            let ns = process(pid)?.creds.lock().user_ns.clone();
            let me = crate::process::current().ok_or(Errno::EPERM)?;
            user::write(&ns, which, &me.process, 0, buf)
        }),
    )
    .with_polling(Polling::None);
    file
}

/// /proc/PID/timens_offsets: the offsets of the time namespace the
/// process's children go to.
pub fn time_offsets_file(pid: Pid, attr: Attr) -> Arc<dyn Inode> {
    let file: Arc<dyn Inode> = SynthFile::writable(
        attr,
        Box::new(move || {
            let ns = process(pid)?.ns.lock().time_for_children.clone();
            Ok(crate::ns::time::offsets_text(&ns).into_bytes())
        }),
        Box::new(move |buf| {
            let ns = process(pid)?.ns.lock().time_for_children.clone();
            let me = crate::process::current().ok_or(Errno::EPERM)?;
            crate::ns::time::write_offsets(&ns, &me.process, buf)
        }),
    )
    .with_polling(Polling::None);
    file
}
