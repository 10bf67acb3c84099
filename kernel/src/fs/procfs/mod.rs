//! procfs: processes and the kernel's state as files, generated when they
//! are looked up and read (`mount -t proc proc /proc`), in Linux's formats
//! so that ps, top, free, mount, df, pidof and friends work unchanged.
//!
//! Nothing is stored: `/proc/PID` directories and their files are made on
//! demand from the live process (looked up by pid at each access, so a
//! file of a process that is gone fails with ESRCH), and the system-wide
//! files from the kernel's counters. Inode numbers are derived from pids
//! and fixed entry numbers, so the same name always has the same number.

mod ipc;
mod line;
mod net;
mod ns;
mod pid;
mod random;
mod system;
mod vmstat;

use alloc::boxed::Box;
use alloc::format;
use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;

use kevlar_platform::sync::SpinLock;
use kevlar_vfs::{DirEntry, FileType, Inode};

use super::synth::{Attr, DirSource, Parent, SynthDir, SynthFile, SynthLink, Table};
use crate::error::{Errno, Result};
use crate::process::{all_processes, Pid};

pub use pid::FdTarget;
pub use system::{load_averages, sample_load, LOAD_INTERVAL_NS};

/// The root's inode number; fixed entries of the root count up from it.
const ROOT_INO: u64 = 1;

/// procfs's device number, chosen at the first mount.
fn fs_id() -> u64 {
    static ID: SpinLock<Option<u64>> = SpinLock::new(None);
    *ID.lock().get_or_insert_with(super::mount::anon_dev)
}

/// The inode number of `/proc/PID` (entries inside count up from it).
fn pid_ino(pid: Pid) -> u64 {
    (pid as u64) << 16
}

/// The pid whose `/proc/PID` has inode number `ino`, if it is one.
fn pid_of_ino(ino: u64) -> Option<Pid> {
    if ino & 0xffff != 0 {
        return None;
    }
    Pid::try_from(ino >> 16).ok().filter(|&pid| pid > 0)
}

static ROOT: SpinLock<Option<Arc<dyn Inode>>> = SpinLock::new(None);

/// Returns procfs's root directory (one tree, whichever mount shows it).
pub fn root() -> Arc<dyn Inode> {
    ROOT.lock().get_or_insert_with(make_root).clone()
}

/// Facts from the boot procfs shows: the command line and CPU model.
struct BootFacts {
    command_line: String,
    cpu_model: String,
}

static BOOT: SpinLock<Option<BootFacts>> = SpinLock::new(None);

/// Remembers what /proc/cmdline and /proc/cpuinfo show.
pub fn set_boot_facts(context: &kevlar_platform::BootContext) {
    *BOOT.lock() = Some(BootFacts { command_line: context.raw_command_line.clone(), cpu_model: context.cpu_model.clone() });
}

/// A read-only root-owned file of mode 0444 made by `text`.
fn text_file(ino: u64, text: impl Fn() -> Result<String> + Send + Sync + 'static) -> Arc<dyn Inode> {
    SynthFile::new(Attr::root(fs_id(), ino, 0o444), Box::new(move || text().map(String::into_bytes)))
}

/// A file of `perm` (root-owned) whose text `read` makes and whose writes
/// `write` takes.
fn setting_file(ino: u64, perm: u32, read: impl Fn() -> Result<String> + Send + Sync + 'static, write: impl Fn(&[u8]) -> Result<usize> + Send + Sync + 'static) -> Arc<dyn Inode> {
    SynthFile::writable(Attr::root(fs_id(), ino, perm), Box::new(move || read().map(String::into_bytes)), Box::new(write))
}

fn make_root() -> Arc<dyn Inode> {
    let id = fs_id();
    let mut table = Table::new();
    let mut ino = ROOT_INO;
    let mut next = || {
        ino += 1;
        ino
    };
    let n = next();
    table.add(b"self", FileType::Symlink, n, move |_| {
        Ok(SynthLink::new(Attr::root(id, n, 0o777), Box::new(|| Ok(format!("{}", current_pid()?).into_bytes()))) as Arc<dyn Inode>)
    });
    let n = next();
    table.add(b"thread-self", FileType::Symlink, n, move |_| {
        Ok(SynthLink::new(Attr::root(id, n, 0o777), Box::new(|| {
            let thread = crate::process::current().ok_or(Errno::ENOENT)?;
            Ok(format!("{}/task/{}", thread.process.pid, thread.tid()).into_bytes())
        })) as Arc<dyn Inode>)
    });
    let n = next();
    table.add(b"mounts", FileType::Symlink, n, move |_| Ok(SynthLink::new(Attr::root(id, n, 0o777), Box::new(|| Ok(b"self/mounts".to_vec()))) as Arc<dyn Inode>));
    for (name, make) in system::FILES {
        let n = next();
        table.add(name, FileType::Regular, n, move |_| Ok(make(n)));
    }
    let n = next();
    table.add(b"sys", FileType::Directory, n, move |dir| Ok(system::sys_dir(n, dir)));
    table.add(b"sysvipc", FileType::Directory, ipc::SYSVIPC_INO, |dir| Ok(ipc::sysvipc_dir(ipc::SYSVIPC_INO, dir)));
    table.add(b"net", FileType::Directory, net::NET_INO, |dir| Ok(net::net_dir(net::NET_INO, dir)));
    SynthDir::new(Attr::root(id, ROOT_INO, 0o555), Parent::None, Box::new(RootSource { table }))
}

/// Returns the calling process's pid.
fn current_pid() -> Result<Pid> {
    crate::process::current().map(|t| t.process.pid).ok_or(Errno::ENOENT)
}

/// The root directory: fixed entries, then one directory per process.
struct RootSource {
    table: Table,
}

impl DirSource for RootSource {
    fn list(&self) -> Vec<DirEntry> {
        let mut entries = self.table.list();
        let mut pids: Vec<Pid> = all_processes().iter().filter(|p| !p.is_reaped()).map(|p| p.pid).collect();
        pids.sort_unstable();
        pids.dedup();
        entries.extend(pids.into_iter().map(|pid| DirEntry { ino: pid_ino(pid), file_type: FileType::Directory, name: format!("{}", pid).into_bytes() }));
        entries
    }

    fn lookup(&self, dir: &Arc<dyn Inode>, name: &[u8]) -> Result<Arc<dyn Inode>> {
        if let Some(pid) = parse_number(name) {
            return pid::process_dir(pid, dir);
        }
        self.table.lookup(dir, name)
    }

    fn create_error(&self) -> Errno {
        Errno::ENOENT
    }

    // Cursors below the table's length are its entries; from there on a
    // cursor is the table's length plus the smallest pid still to list, as
    // Linux's /proc keeps a pid in the directory position.
    fn entry_at(&self, cursor: usize) -> Option<(DirEntry, usize)> {
        let fixed = self.table.len();
        if cursor < fixed {
            return self.table.entry_at(cursor);
        }
        let from = Pid::try_from(cursor - fixed).ok()?;
        let pid = crate::process::next_pid_from(from)?;
        let entry = DirEntry { ino: pid_ino(pid), file_type: FileType::Directory, name: format!("{}", pid).into_bytes() };
        Some((entry, fixed + pid as usize + 1))
    }

    fn subdir_count(&self) -> usize {
        self.table.subdir_count() + crate::process::listed_process_count()
    }

    fn name_of(&self, ino: u64) -> Option<Vec<u8>> {
        let pid = pid_of_ino(ino)?;
        crate::process::find_process(pid).map(|_| format!("{}", pid).into_bytes())
    }
}

/// Parses a decimal number without sign or leading zeros (as procfs
/// matches pid and fd names).
fn parse_number(name: &[u8]) -> Option<i32> {
    if name.is_empty() || name.len() > 10 || (name[0] == b'0' && name.len() > 1) || !name.iter().all(u8::is_ascii_digit) {
        return None;
    }
    core::str::from_utf8(name).ok()?.parse().ok()
}
