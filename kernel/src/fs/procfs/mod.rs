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
mod sysnet;
mod sysctl_fs;
mod userns;
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

pub use pid::{is_pid_link, FdTarget};
pub use system::{load_averages, sample_load, LOAD_INTERVAL_NS};

/// The root's inode number; fixed entries of the root count up from it.
const ROOT_INO: u64 = 1;
/// /proc/keys (and /proc/key-users after it): between /proc/sysvipc's
/// numbers and /proc/net's.
const KEYS_INO: u64 = 0xf080;

/// /proc/keys: the keys the reader may view.
fn proc_keys() -> Result<String> {
    let thread = crate::process::current().ok_or(Errno::ENOENT)?;
    let caller = crate::keys::Caller { thread: &thread, cred: thread.process.creds.lock().clone() };
    Ok(crate::keys::proc_keys(&caller))
}

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

/// The root of each PID namespace's procfs, by the namespace's inode
/// number.
static ROOTS: SpinLock<alloc::collections::BTreeMap<u64, Arc<dyn Inode>>> = SpinLock::new(alloc::collections::BTreeMap::new());

/// Returns the root directory of procfs as the caller's PID namespace
/// numbers processes (Linux's procfs belongs to the mounter's namespace):
/// one tree per namespace, whichever mount shows it.
pub fn root() -> Arc<dyn Inode> {
    let ns = crate::ns::pid::viewer();
    let mut roots = ROOTS.lock();
    roots.entry(ns.inum).or_insert_with(|| make_root(&ns)).clone()
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

/// The kernel's command line as the boot loader gave it.
pub fn boot_command_line() -> String {
    BOOT.lock().as_ref().map_or_else(String::new, |b| b.command_line.clone())
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

fn make_root(ns: &Arc<crate::ns::pid::PidNs>) -> Arc<dyn Inode> {
    let id = fs_id();
    let weak = Arc::downgrade(ns);
    let (self_ns, thread_ns) = (weak.clone(), weak.clone());
    let mut table = Table::new();
    let mut ino = ROOT_INO;
    let mut next = || {
        ino += 1;
        ino
    };
    // The root's links are the same for every reader (their texts are
    // made at each read): made once, not at each walk through them.
    let n = next();
    let self_link: Arc<dyn Inode> = SynthLink::new(Attr::root(id, n, 0o777), Box::new(move || {
        // Every walk through /proc/self reads this: digits written
        // without `core::fmt`.
        let mut text = line::Line::with_capacity(12);
        text.num(seen(&self_ns, current_pid()?)?.into());
        Ok(text.0)
    }));
    table.add(b"self", FileType::Symlink, n, move |_| Ok(self_link.clone()));
    let n = next();
    let thread_self: Arc<dyn Inode> = SynthLink::new(Attr::root(id, n, 0o777), Box::new(move || {
        let thread = crate::process::current().ok_or(Errno::ENOENT)?;
        Ok(format!("{}/task/{}", seen(&thread_ns, thread.process.pid)?, seen(&thread_ns, thread.tid())?).into_bytes())
    }));
    table.add(b"thread-self", FileType::Symlink, n, move |_| Ok(thread_self.clone()));
    let n = next();
    let mounts: Arc<dyn Inode> = SynthLink::new(Attr::root(id, n, 0o777), Box::new(|| Ok(b"self/mounts".to_vec())));
    table.add(b"mounts", FileType::Symlink, n, move |_| Ok(mounts.clone()));
    for (name, make) in system::FILES {
        let n = next();
        table.add(name, FileType::Regular, n, move |_| Ok(make(n)));
    }
    let n = next();
    table.add(b"sys", FileType::Directory, n, move |dir| Ok(system::sys_dir(n, dir)));
    table.add(b"sysvipc", FileType::Directory, ipc::SYSVIPC_INO, |dir| Ok(ipc::sysvipc_dir(ipc::SYSVIPC_INO, dir)));
    // Linux's /proc/net is a link to self/net: the reader's namespace.
    let net_link: Arc<dyn Inode> = SynthLink::new(Attr::root(id, net::NET_INO, 0o777), Box::new(|| Ok(b"self/net".to_vec())));
    table.add(b"net", FileType::Symlink, net::NET_INO, move |_| Ok(net_link.clone()));
    table.add(b"keys", FileType::Regular, KEYS_INO, |_| Ok(text_file(KEYS_INO, proc_keys)));
    table.add(b"key-users", FileType::Regular, KEYS_INO + 1, |_| Ok(text_file(KEYS_INO + 1, || Ok(crate::keys::proc_key_users()))));
    // Each namespace's tree is its own file system instance (Linux: one
    // per mount of another namespace): a root of its own, so that a mount
    // of one over another is told apart.
    let root_ino = if ns.level == 0 { ROOT_INO } else { 1 << 63 | ns.inum };
    SynthDir::new(Attr::root(id, root_ino, 0o555), Parent::None, Box::new(RootSource { table, ns: weak }))
}

/// Global id `global` as the namespace of a procfs numbers it (ENOENT
/// when it does not: /proc/self of a process outside it).
fn seen(ns: &alloc::sync::Weak<crate::ns::pid::PidNs>, global: Pid) -> Result<Pid> {
    let ns = ns.upgrade().ok_or(Errno::ENOENT)?;
    match crate::ns::pid::local_in(&ns, global) {
        0 => Err(Errno::ENOENT),
        pid => Ok(pid),
    }
}

/// Returns the calling process's pid.
fn current_pid() -> Result<Pid> {
    crate::process::current().map(|t| t.process.pid).ok_or(Errno::ENOENT)
}

/// The root directory: fixed entries, then one directory per process.
struct RootSource {
    table: Table,
    /// The PID namespace whose numbers it shows.
    ns: alloc::sync::Weak<crate::ns::pid::PidNs>,
}

impl RootSource {
    /// The namespace's processes (global ids) and their numbers in it, in
    /// increasing order of the numbers, from `min` on; None for the
    /// initial namespace (whose numbers are the global ids).
    fn numbered(&self, min: Pid) -> Option<Vec<(Pid, Pid)>> {
        let ns = self.ns.upgrade()?;
        if ns.level == 0 {
            return None;
        }
        let mut out: Vec<(Pid, Pid)> = ns
            .members()
            .into_iter()
            .filter(|&g| crate::process::find_process(g).is_some())
            .map(|g| (crate::ns::pid::local_in(&ns, g), g))
            .filter(|&(l, _)| l >= min)
            .collect();
        out.sort_unstable();
        Some(out)
    }

    /// The global id of number `local` of the namespace.
    fn global(&self, local: Pid) -> Pid {
        match self.ns.upgrade() {
            Some(ns) => crate::ns::pid::global_in(&ns, local),
            None => crate::ns::pid::NOBODY,
        }
    }
}

impl DirSource for RootSource {
    fn list(&self) -> Vec<DirEntry> {
        let mut entries = self.table.list();
        if let Some(numbered) = self.numbered(1) {
            entries.extend(numbered.into_iter().map(|(l, g)| DirEntry { ino: pid_ino(g), file_type: FileType::Directory, name: format!("{}", l).into_bytes() }));
            return entries;
        }
        let mut pids: Vec<Pid> = all_processes().iter().filter(|p| !p.is_reaped()).map(|p| p.pid).collect();
        pids.sort_unstable();
        pids.dedup();
        entries.extend(pids.into_iter().map(|pid| DirEntry { ino: pid_ino(pid), file_type: FileType::Directory, name: format!("{}", pid).into_bytes() }));
        entries
    }

    fn lookup(&self, dir: &Arc<dyn Inode>, name: &[u8]) -> Result<Arc<dyn Inode>> {
        if let Some(pid) = parse_number(name) {
            return pid::process_dir(self.global(pid), dir, self.ns.clone());
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
        if let Some(numbered) = self.numbered(from) {
            let &(l, g) = numbered.first()?;
            let entry = DirEntry { ino: pid_ino(g), file_type: FileType::Directory, name: format!("{}", l).into_bytes() };
            return Some((entry, fixed + l as usize + 1));
        }
        let pid = crate::process::next_pid_from(from)?;
        let entry = DirEntry { ino: pid_ino(pid), file_type: FileType::Directory, name: format!("{}", pid).into_bytes() };
        Some((entry, fixed + pid as usize + 1))
    }

    fn subdir_count(&self) -> usize {
        if let Some(numbered) = self.numbered(1) {
            return self.table.subdir_count() + numbered.len();
        }
        self.table.subdir_count() + crate::process::listed_process_count()
    }

    fn name_of(&self, ino: u64) -> Option<Vec<u8>> {
        let pid = pid_of_ino(ino)?;
        let shown = self.seen_as(pid)?;
        crate::process::find_process(pid).map(|_| format!("{}", shown).into_bytes())
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

impl RootSource {
    /// Global id `pid` as the namespace numbers it.
    fn seen_as(&self, pid: Pid) -> Option<Pid> {
        seen(&self.ns, pid).ok()
    }
}
