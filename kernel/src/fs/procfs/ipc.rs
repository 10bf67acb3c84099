//! The IPC files of procfs: /proc/sysvipc/{msg,sem,shm} and the limits in
//! /proc/sys/kernel (msgmax, msgmnb, msgmni, sem, shmall, shmmax, shmmni),
//! which root may write; each IPC namespace has its own (a reader sees
//! its own namespace's).

use alloc::boxed::Box;
use alloc::format;
use alloc::sync::Arc;
use alloc::vec::Vec;
use crate::ipc::sysctl::Setting;

use kevlar_vfs::{FileType, Inode};

use super::{fs_id, setting_file, text_file};
use crate::error::{Errno, Result};
use crate::fs::synth::{Attr, Parent, SynthDir, Table};
use crate::ipc::{msg, sem, shm};

/// /proc/sysvipc's inode number (its files follow): far above the
/// numbers the root's other entries count up to, below pid 1's.
pub(super) const SYSVIPC_INO: u64 = 0xf000;

/// /proc/sysvipc.
pub(super) fn sysvipc_dir(ino: u64, parent: &Arc<dyn Inode>) -> Arc<dyn Inode> {
    let mut table = Table::new();
    let files: [(&'static [u8], fn() -> alloc::string::String); 3] =
        [(b"msg", msg::proc_text), (b"sem", sem::proc_text), (b"shm", shm::proc_text)];
    for (i, (name, text)) in files.into_iter().enumerate() {
        let n = ino + 1 + i as u64;
        table.add(name, FileType::Regular, n, move |_| Ok(text_file(n, move || Ok(text()))));
    }
    SynthDir::new(Attr::root(fs_id(), ino, 0o555), Parent::Strong(parent.clone()), Box::new(table))
}

/// Parses the whitespace-separated decimal numbers of a sysctl write.
fn numbers(buf: &[u8]) -> Result<Vec<u64>> {
    let text = core::str::from_utf8(buf).map_err(|_| Errno::EINVAL)?;
    text.split_ascii_whitespace().map(|w| w.parse::<u64>().map_err(|_| Errno::EINVAL)).collect()
}

/// An int sysctl limited to `0..=max` (proc_dointvec_minmax).
fn int_setting(table: &mut Table, name: &'static [u8], n: u64, value: &'static Setting, max: u32) {
    table.add(name, FileType::Regular, n, move |_| {
        Ok(setting_file(n, 0o644, move || Ok(format!("{}\n", value.get())), move |buf| {
            let v = numbers(buf)?;
            let &first = v.first().ok_or(Errno::EINVAL)?;
            if first > max as u64 {
                return Err(Errno::EINVAL);
            }
            value.set(first);
            Ok(buf.len())
        }))
    });
}

/// An unsigned long sysctl (proc_doulongvec_minmax).
fn ulong_setting(table: &mut Table, name: &'static [u8], n: u64, value: &'static Setting) {
    table.add(name, FileType::Regular, n, move |_| {
        Ok(setting_file(n, 0o644, move || Ok(format!("{}\n", value.get())), move |buf| {
            let v = numbers(buf)?;
            value.set(*v.first().ok_or(Errno::EINVAL)?);
            Ok(buf.len())
        }))
    });
}

/// Adds the IPC limits to /proc/sys/kernel's table, numbered from `base`
/// (seven entries).
pub(super) fn add_kernel_limits(table: &mut Table, base: u64) {
    // IPCMNI: ids have 15 bits of index.
    const IPCMNI: u32 = 32768;
    int_setting(table, b"msgmax", base, &msg::MSG_MAX, i32::MAX as u32);
    int_setting(table, b"msgmnb", base + 1, &msg::MSG_MNB, i32::MAX as u32);
    int_setting(table, b"msgmni", base + 2, &msg::MSG_MNI, IPCMNI);
    ulong_setting(table, b"shmall", base + 3, &shm::SHM_ALL);
    ulong_setting(table, b"shmmax", base + 4, &shm::SHM_MAX);
    int_setting(table, b"shmmni", base + 5, &shm::SHM_MNI, IPCMNI);
    let n = base + 6;
    table.add(b"sem", FileType::Regular, n, move |_| {
        Ok(setting_file(
            n,
            0o644,
            || {
                let [msl, mns, opm, mni] = crate::ipc::sysctl::get_all([&sem::SEM_MSL, &sem::SEM_MNS, &sem::SEM_OPM, &sem::SEM_MNI]);
                Ok(format!("{}\t{}\t{}\t{}\n", msl, mns, opm, mni))
            },
            |buf| {
                let v = numbers(buf)?;
                if v.len() > 4 || v.iter().any(|&x| x > i32::MAX as u64) || v.get(3).is_some_and(|&mni| mni > IPCMNI as u64) {
                    return Err(Errno::EINVAL);
                }
                let pairs: Vec<(&Setting, u64)> = [&sem::SEM_MSL, &sem::SEM_MNS, &sem::SEM_OPM, &sem::SEM_MNI].into_iter().zip(v).collect();
                crate::ipc::sysctl::set_all(&pairs);
                Ok(buf.len())
            },
        ))
    });
}

/// /proc/sys/fs/mqueue: the POSIX message queue limits (root may write
/// them, within Linux's bounds).
pub(super) fn mqueue_dir(ino: u64, parent: &Arc<dyn Inode>) -> Arc<dyn Inode> {
    use crate::ipc::mqueue::{self, HARD_MSGMAX, HARD_MSGSIZEMAX};
    let mut table = Table::new();
    let settings: [(&'static [u8], &'static Setting, u32, u32); 4] = [
        (b"msg_default", &mqueue::MSG_DEFAULT, 1, HARD_MSGMAX),
        (b"msg_max", &mqueue::MSG_MAX, 1, HARD_MSGMAX),
        (b"msgsize_default", &mqueue::MSGSIZE_DEFAULT, 128, HARD_MSGSIZEMAX),
        (b"msgsize_max", &mqueue::MSGSIZE_MAX, 128, HARD_MSGSIZEMAX),
    ];
    // queues_max is a plain int (proc_dointvec): any int, shown signed;
    // the count compares with it unsigned, so a negative one is no limit.
    let n = ino + 5;
    table.add(b"queues_max", FileType::Regular, n, move |_| {
        Ok(setting_file(n, 0o644, move || Ok(format!("{}\n", mqueue::QUEUES_MAX.get() as u32 as i32)), move |buf| {
            let text = core::str::from_utf8(buf).map_err(|_| Errno::EINVAL)?;
            let word = text.split_ascii_whitespace().next().ok_or(Errno::EINVAL)?;
            let v = word.parse::<i32>().map_err(|_| Errno::EINVAL)?;
            mqueue::QUEUES_MAX.set(v as u32 as u64);
            Ok(buf.len())
        }))
    });
    for (i, (name, value, min, max)) in settings.into_iter().enumerate() {
        let n = ino + 1 + i as u64;
        table.add(name, FileType::Regular, n, move |_| {
            Ok(setting_file(n, 0o644, move || Ok(format!("{}\n", value.get())), move |buf| {
                let v = numbers(buf)?;
                let &first = v.first().ok_or(Errno::EINVAL)?;
                if first < min as u64 || first > max as u64 {
                    return Err(Errno::EINVAL);
                }
                value.set(first);
                Ok(buf.len())
            }))
        });
    }
    SynthDir::new(Attr::root(fs_id(), ino, 0o555), Parent::Strong(parent.clone()), Box::new(table))
}
