//! `/proc/PID`: one directory per process, its files generated from the
//! live process each time they are read.

use alloc::boxed::Box;
use alloc::format;
use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::any::Any;
use core::fmt::Write;
use core::sync::atomic::Ordering;

use kevlar_vfs::{DirEntry, FileType, Inode, Stat};
use linux_raw_sys::general as abi;

use super::line::{nums, Line};
use super::{fs_id, parse_number, pid_ino};
use crate::error::{Errno, Result};
use crate::fs::file::OpenFile;
use crate::fs::synth::{attr_identity, Attr, DirSource, Parent, Polling, SynthDir, SynthFile, SynthLink};
use crate::fs::FsContext;
use crate::process::access::{self, PtraceCreds, PtraceMode};
use crate::ns::pid::{self as ns_pid, PidNs};
use alloc::sync::Weak;
use crate::process::{find_process, Pid, Process, ThreadState};

/// USER_HZ, the unit of the times in /proc/PID/stat.
const NS_PER_TICK: u64 = 10_000_000;

// Offsets of the entries of /proc/PID from its inode number.
const FD_LINK_BASE: u64 = 0x1000;
const FDINFO_BASE: u64 = 0x2000;
const TASK_BASE: u64 = 0x8000;

// Linux's PF_* task flags (include/linux/sched.h, not in the user-space
// headers): a zombie is exiting; a forked child that has not exec'd yet.
const PF_EXITING: u32 = 0x4;
const PF_FORKNOEXEC: u32 = 0x40;

/// Returns the live or zombie process `pid`.
pub(super) fn process(pid: Pid) -> Result<Arc<Process>> {
    find_process(pid).ok_or(Errno::ESRCH)
}

/// Tells whether the calling process may look at `target`'s memory, files
/// and links: Linux's ptrace access check with the file-system ids
/// (PTRACE_MODE_READ_FSCREDS, or ATTACH_FSCREDS for `mode` Attach).
pub(super) fn may_access(target: &Process, mode: PtraceMode) -> bool {
    let Some(me) = crate::process::current() else { return true };
    access::ptrace_may_access(&me.process, target, mode, PtraceCreds::Fs)
}

/// Fails with EACCES unless [`may_access`] with read access.
fn check_access(target: &Process) -> Result<()> {
    if may_access(target, PtraceMode::Read) { Ok(()) } else { Err(Errno::EACCES) }
}

/// The attributes of a node of process `p`'s directory: owned by its
/// effective ids, or by root if the process is not dumpable, except for
/// the world-readable directories (/proc/PID, task), which always show the
/// effective ids (Linux's task_dump_owner).
fn attr_of(p: &Process, ino: u64, perm: u32) -> Attr {
    if !p.dumpable.load(Ordering::Relaxed) && perm != 0o555 {
        return Attr::root(fs_id(), ino, perm);
    }
    let creds = p.creds.lock();
    Attr { fs_id: fs_id(), ino, perm, uid: creds.euid, gid: creds.egid }
}

/// Makes `/proc/PID` under `parent`, of the procfs of PID namespace `ns`
/// (whose numbers its files show, as Linux's proc_pid_ns of the mount).
pub fn process_dir(pid: Pid, parent: &Arc<dyn Inode>, ns: Weak<PidNs>) -> Result<Arc<dyn Inode>> {
    let p = find_process(pid).ok_or(Errno::ENOENT)?;
    let attr = attr_of(&p, pid_ino(pid), 0o555);
    Ok(SynthDir::new(attr, Parent::Strong(parent.clone()), Box::new(entries(pid, pid_ino(pid), true, ns))))
}

/// The PID namespace of a procfs, while it lives (ESRCH after: none of
/// its processes is left).
fn mount_ns(ns: &Weak<PidNs>) -> Result<Arc<PidNs>> {
    ns.upgrade().ok_or(Errno::ESRCH)
}

/// A text file of process `pid`, made by `text` from the process.
/// With `checked`, opening it needs ptrace read access to the process (as
/// Linux's proc_mem_open for maps and environ): EACCES otherwise.
fn process_file(pid: Pid, ino: u64, perm: u32, text: fn(&Arc<Process>) -> Result<Vec<u8>>, checked: bool, name: &[u8]) -> Result<Arc<dyn Inode>> {
    let p = process(pid)?;
    let mut file = SynthFile::new(attr_of(&p, ino, perm), Box::new(move || text(&process(pid)?)));
    file = if name == b"mounts" || name == b"mountinfo" {
        // Pollable as on Linux: POLLERR | POLLPRI after the table changed
        // (systemd and libmount watch mountinfo so).
        // The counter is the namespace's the process had when the file was
        // looked up (Linux's seq file keeps the mnt_ns it was opened in).
        let ns = p.fs.lock().mnt.clone();
        file.with_polling(Polling::Mounts(Arc::new(move || ns.changes())))
    } else {
        // Linux's /proc/PID files have no poll method: epoll refuses them.
        file.with_polling(Polling::None)
    };
    if !checked {
        let file: Arc<dyn Inode> = file;
        return Ok(file);
    }
    let file: Arc<dyn Inode> = file.with_open_check(Box::new(move || check_access(&*process(pid)?)));
    Ok(file)
}

type Text = fn(&Arc<Process>) -> Result<Vec<u8>>;

/// A file that prints ids: made from the process, the thread of
/// `/proc/PID/task/TID` (None in `/proc/PID`) and the namespace of the
/// procfs, whose numbers it shows.
type Numbered = fn(&Arc<Process>, Option<Pid>, &Arc<PidNs>) -> Result<Vec<u8>>;

/// What an entry of `/proc/PID` is.
#[derive(Clone, Copy)]
enum Kind {
    /// A text file made by the function, with its permission bits; the
    /// flag: opening needs ptrace read access.
    Text(u32, Text, bool),
    /// A text file with ids in it, with its permission bits.
    Numbered(u32, Numbered),
    Comm,
    OomScoreAdj,
    OomAdj,
    Link(Link),
    /// `fd` (false) or `fdinfo` (true).
    Fds(bool),
    /// `mem`: the process's memory, for a tracer.
    Mem,
    Task,
    /// `ns`: links to the process's namespaces.
    Ns,
    /// `uid_map`, `gid_map`, `setgroups`: its user namespace's.
    UserNs(crate::ns::user::MapFile),
    /// `timens_offsets`: its children's time namespace's offsets.
    TimeOffsets,
    /// `net`: its network namespace's /proc/net.
    Net,
}

/// The entries of `/proc/PID`, in listing order; the inode of the one at
/// index i is the directory's plus i + 1. One table for every process,
/// so that a lookup builds nothing but the node it returns.
const PID_ENTRIES: [(&[u8], Kind); 29] = [
    (b"auxv", Kind::Text(0o400, auxv, true)),
    (b"cmdline", Kind::Text(0o444, cmdline, false)),
    (b"environ", Kind::Text(0o400, environ, true)),
    (b"limits", Kind::Text(0o444, limits, false)),
    (b"maps", Kind::Text(0o444, maps, true)),
    (b"smaps", Kind::Text(0o444, smaps, true)),
    (b"mountinfo", Kind::Text(0o444, mountinfo, false)),
    (b"mounts", Kind::Text(0o444, mounts, false)),
    (b"stat", Kind::Numbered(0o444, stat)),
    (b"statm", Kind::Text(0o444, statm, false)),
    (b"status", Kind::Numbered(0o444, status)),
    (b"comm", Kind::Comm),
    (b"oom_score", Kind::Text(0o444, oom_score, false)),
    (b"oom_score_adj", Kind::OomScoreAdj),
    (b"oom_adj", Kind::OomAdj),
    (b"cwd", Kind::Link(Link::Cwd)),
    (b"exe", Kind::Link(Link::Exe)),
    (b"root", Kind::Link(Link::Root)),
    (b"fd", Kind::Fds(false)),
    (b"fdinfo", Kind::Fds(true)),
    (b"mem", Kind::Mem),
    (b"cgroup", Kind::Text(0o444, cgroup, false)),
    (b"ns", Kind::Ns),
    (b"uid_map", Kind::UserNs(crate::ns::user::MapFile::Uid)),
    (b"gid_map", Kind::UserNs(crate::ns::user::MapFile::Gid)),
    (b"setgroups", Kind::UserNs(crate::ns::user::MapFile::Setgroups)),
    (b"timens_offsets", Kind::TimeOffsets),
    (b"net", Kind::Net),
    (b"task", Kind::Task),
];

/// /proc/PID/cgroup, with the path as the reader's cgroup namespace
/// shows it.
fn cgroup(p: &Arc<Process>) -> Result<Vec<u8>> {
    let text = crate::cgroup::proc_pid_cgroup(p);
    let root = crate::ns::current().cgroup.root.path();
    if root == b"/" {
        return Ok(text);
    }
    // "0::PATH[ (deleted)]\n"
    let Some(rest) = text.strip_prefix(b"0::") else { return Ok(text) };
    let end = rest.iter().position(|&b| b == b' ' || b == b'\n').unwrap_or(rest.len());
    let mut out = b"0::".to_vec();
    out.extend_from_slice(&crate::ns::cgroup_path_from(&root, &rest[..end]));
    out.extend_from_slice(&rest[end..]);
    Ok(out)
}

fn oom_score(p: &Arc<Process>) -> Result<Vec<u8>> {
    Ok(crate::mm::oom::score_text(p).into_bytes())
}

fn kind_type(kind: Kind) -> FileType {
    match kind {
        Kind::Text(..) | Kind::Numbered(..) | Kind::Comm | Kind::OomScoreAdj | Kind::OomAdj | Kind::Mem | Kind::UserNs(_) | Kind::TimeOffsets => FileType::Regular,
        Kind::Link(_) => FileType::Symlink,
        Kind::Fds(_) | Kind::Task | Kind::Ns | Kind::Net => FileType::Directory,
    }
}

/// The entries of `/proc/PID` (and of `/proc/PID/task/TID`, without
/// `task`), numbered from `base`.
struct PidSource {
    pid: Pid,
    base: u64,
    with_task: bool,
    /// In `/proc/PID/task/TID`: the thread whose own figures `stat` and
    /// `status` show.
    tid: Option<Pid>,
    /// The PID namespace of the procfs.
    ns: Weak<PidNs>,
}

impl PidSource {
    fn shown(&self) -> &'static [(&'static [u8], Kind)] {
        if self.with_task { &PID_ENTRIES } else { &PID_ENTRIES[..PID_ENTRIES.len() - 1] }
    }

    fn entry(&self, index: usize) -> Option<DirEntry> {
        let (name, kind) = self.shown().get(index)?;
        Some(DirEntry { ino: self.base + index as u64 + 1, file_type: kind_type(*kind), name: name.to_vec() })
    }
}

impl DirSource for PidSource {
    fn list(&self) -> Vec<DirEntry> {
        (0..self.shown().len()).filter_map(|i| self.entry(i)).collect()
    }

    fn lookup(&self, dir: &Arc<dyn Inode>, name: &[u8]) -> Result<Arc<dyn Inode>> {
        let index = self.shown().iter().position(|(n, _)| *n == name).ok_or(Errno::ENOENT)?;
        let (pid, ino) = (self.pid, self.base + index as u64 + 1);
        match self.shown()[index].1 {
            Kind::Numbered(perm, text) => {
                let (tid, ns) = (self.tid, self.ns.clone());
                let p = process(pid)?;
                let file: Arc<dyn Inode> = SynthFile::new(attr_of(&p, ino, perm), Box::new(move || text(&process(pid)?, tid, &mount_ns(&ns)?))).with_polling(Polling::None);
                Ok(file)
            }
            Kind::Text(perm, text, checked) => process_file(pid, ino, perm, text, checked, name),
            Kind::Comm => comm_file(pid, ino),
            Kind::OomScoreAdj => oom_file(pid, ino, |p| alloc::format!("{}\n", p.oom.adj()), crate::mm::oom::write_score_adj),
            Kind::OomAdj => oom_file(pid, ino, crate::mm::oom::legacy_adj_text, crate::mm::oom::write_legacy_adj),
            Kind::Link(which) => process_link(pid, ino, which),
            Kind::Fds(info) => fd_dir(pid, ino, dir, info, self.ns.clone()),
            Kind::Mem => {
                let p = process(pid)?;
                Ok(Arc::new(MemFile { attr: attr_of(&p, ino, 0o600), pid }) as Arc<dyn Inode>)
            }
            Kind::Ns => {
                let p = process(pid)?;
                Ok(SynthDir::new(attr_of(&p, ino, 0o511), Parent::Strong(dir.clone()), Box::new(super::ns::NsSource { pid, tid: self.tid, base: pid_ino(pid) + super::ns::NS_BASE, attr: attr_of(&p, 0, 0o777) })) as Arc<dyn Inode>)
            }
            Kind::Net => {
                process(pid)?;
                Ok(super::net::net_dir(pid, ino, pid_ino(pid) + super::net::NET_BASE, dir))
            }
            Kind::TimeOffsets => {
                let p = process(pid)?;
                Ok(super::userns::time_offsets_file(pid, attr_of(&p, ino, 0o644)))
            }
            Kind::UserNs(which) => {
                let p = process(pid)?;
                Ok(super::userns::map_file(pid, attr_of(&p, ino, 0o644), which))
            }
            Kind::Task => {
                let p = process(pid)?;
                Ok(SynthDir::new(attr_of(&p, ino, 0o555), Parent::Strong(dir.clone()), Box::new(TaskSource { pid, ns: self.ns.clone() })) as Arc<dyn Inode>)
            }
        }
    }

    fn create_error(&self) -> Errno {
        Errno::ENOENT
    }

    fn entry_at(&self, cursor: usize) -> Option<(DirEntry, usize)> {
        self.entry(cursor).map(|e| (e, cursor + 1))
    }

    fn subdir_count(&self) -> usize {
        self.shown().iter().filter(|(_, k)| kind_type(*k).is_dir()).count()
    }

    fn name_of(&self, ino: u64) -> Option<Vec<u8>> {
        let index = usize::try_from(ino.checked_sub(self.base + 1)?).ok()?;
        self.shown().get(index).map(|(n, _)| n.to_vec())
    }
}

fn entries(pid: Pid, base: u64, with_task: bool, ns: Weak<PidNs>) -> PidSource {
    PidSource { pid, base, with_task, tid: None, ns }
}

/// `/proc/PID/mem`: the process's memory at the file offset, read and
/// written as a debugger does (ptrace attach access, checked at each
/// transfer; the mode bits keep other users out at open). A transfer stops
/// at the first page out of reach: EIO if that is the first one; a
/// process that ended has no memory (0 bytes).
struct MemFile {
    attr: Attr,
    pid: Pid,
}

impl MemFile {
    fn transfer(&self, offset: u64, buf: &mut [u8], write: bool) -> Result<usize> {
        let target = process(self.pid)?;
        let me = crate::process::current().ok_or(Errno::EIO)?;
        if !access::ptrace_may_access(&me.process, &target, PtraceMode::Attach, PtraceCreds::Fs) {
            return Err(Errno::EACCES);
        }
        if target.exit_status().is_some() {
            return Ok(0);
        }
        let page = kevlar_platform::mm::PAGE_SIZE as u64;
        let mut done = 0usize;
        while done < buf.len() {
            let Some(at) = offset.checked_add(done as u64) else { break };
            let n = ((page - at % page) as usize).min(buf.len() - done);
            if !crate::process::ptrace::access_memory(&target, at, &mut buf[done..done + n], write) {
                break;
            }
            done += n;
            if !me.checkpoint() {
                break;
            }
        }
        if done == 0 && !buf.is_empty() {
            return Err(Errno::EIO);
        }
        Ok(done)
    }
}

impl Inode for MemFile {
    fn fs_id(&self) -> u64 {
        self.attr.fs_id
    }

    fn ino(&self) -> u64 {
        self.attr.ino
    }

    fn file_type(&self) -> FileType {
        FileType::Regular
    }

    fn stat(&self) -> Result<Stat> {
        Ok(self.attr.stat(FileType::Regular, 1, 0))
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<usize> {
        self.transfer(offset, buf, false)
    }

    fn write_at(&self, offset: u64, buf: &[u8]) -> Result<usize> {
        let mut copy = buf.to_vec();
        self.transfer(offset, &mut copy, true)
    }
}

/// `/proc/PID/task`: one directory per live thread, named by its id. A
/// thread's directory shows its process's files, but `stat` and `status`
/// give the thread's own id, state, signals, seccomp state and CPUs (its
/// own CPU time is not split out).
struct TaskSource {
    pid: Pid,
    /// The PID namespace of the procfs, whose numbers name the threads.
    ns: Weak<PidNs>,
}

impl TaskSource {
    fn tids(&self) -> Vec<Pid> {
        let Some(p) = find_process(self.pid) else { return Vec::new() };
        let mut tids: Vec<Pid> = p.threads().iter().map(|t| t.tid()).collect();
        if tids.is_empty() && p.exit_status().is_some() {
            tids.push(self.pid); // a zombie keeps its main thread's entry
        }
        tids.sort_unstable();
        tids
    }
}

impl DirSource for TaskSource {
    fn list(&self) -> Vec<DirEntry> {
        let Some(ns) = self.ns.upgrade() else { return Vec::new() };
        self.tids()
            .into_iter()
            .map(|tid| (tid, ns_pid::local_in(&ns, tid)))
            .filter(|&(_, local)| local != 0)
            .map(|(tid, local)| DirEntry { ino: pid_ino(tid) + TASK_BASE, file_type: FileType::Directory, name: format!("{}", local).into_bytes() })
            .collect()
    }

    fn lookup(&self, dir: &Arc<dyn Inode>, name: &[u8]) -> Result<Arc<dyn Inode>> {
        let ns = self.ns.upgrade().ok_or(Errno::ENOENT)?;
        let tid = ns_pid::global_in(&ns, parse_number(name).ok_or(Errno::ENOENT)?);
        if !self.tids().contains(&tid) {
            return Err(Errno::ENOENT);
        }
        let p = find_process(self.pid).ok_or(Errno::ENOENT)?;
        let ino = pid_ino(tid) + TASK_BASE;
        Ok(SynthDir::new(attr_of(&p, ino, 0o555), Parent::Strong(dir.clone()), Box::new(PidSource { tid: Some(tid), ..entries(self.pid, ino, false, self.ns.clone()) })))
    }

    fn create_error(&self) -> Errno {
        Errno::ENOENT
    }
}

fn comm_file(pid: Pid, ino: u64) -> Result<Arc<dyn Inode>> {
    let p = process(pid)?;
    Ok(SynthFile::writable(
        attr_of(&p, ino, 0o644),
        Box::new(move || Ok(format!("{}\n", process(pid)?.comm.lock().as_str()).into_bytes())),
        Box::new(move |buf| {
            // Only a process may rename itself; the bytes are taken as
            // they are (a newline included), up to 15 and the first NUL.
            let target = process(pid)?;
            let me = crate::process::current().ok_or(Errno::EINVAL)?;
            if me.process.pid != target.pid {
                return Err(Errno::EINVAL);
            }
            let name = &buf[..buf.len().min(15)];
            let name = &name[..name.iter().position(|&b| b == 0).unwrap_or(name.len())];
            *target.comm.lock() = String::from_utf8_lossy(name).into_owned();
            Ok(buf.len())
        }),
    )
    .with_polling(Polling::None))
}

/// /proc/PID/oom_score_adj and oom_adj: read and written by the rules in
/// `mm::oom` (the file's mode decides who may write at all).
fn oom_file(pid: Pid, ino: u64, read: fn(&Process) -> String, write: fn(&Process, &[u8]) -> Result<usize>) -> Result<Arc<dyn Inode>> {
    let p = process(pid)?;
    Ok(SynthFile::writable(
        attr_of(&p, ino, 0o644),
        Box::new(move || {
            let p = process(pid)?;
            Ok(read(&p).into_bytes())
        }),
        Box::new(move |buf| {
            let p = process(pid)?;
            write(&p, buf)
        }),
    )
    .with_polling(Polling::None))
}

#[derive(Clone, Copy)]
enum Link {
    Cwd,
    Exe,
    Root,
}

/// The absolute path of the file opened (or executed) by lexically
/// absolute `path`, with symlinks resolved; where the file was renamed
/// since, its new path; the last of the two with " (deleted)" when
/// neither leads to `node`.
fn file_path(fs: &FsContext, path: &[u8], node: Option<&Arc<dyn Inode>>) -> Vec<u8> {
    match crate::fs::canonical_path(fs, path) {
        Ok((real, found)) if node.is_none_or(|n| kevlar_vfs::same_inode(&**n, &*found)) => real,
        _ => {
            let moved = node.and_then(|n| crate::fs::path_memo::moved_path(fs, n));
            if let Some((moved, true)) = moved {
                return moved;
            }
            let mut out = moved.map_or_else(|| path.to_vec(), |(last, _)| last);
            out.extend_from_slice(crate::fs::DELETED);
            out
        }
    }
}

fn process_link(pid: Pid, ino: u64, which: Link) -> Result<Arc<dyn Inode>> {
    let p = process(pid)?;
    Ok(Arc::new(PidLink { attr: attr_of(&p, ino, 0o777), pid, which }))
}

/// `/proc/PID/cwd`, `exe` and `root`: magic links that answer from the
/// live process each time they are read or followed. A plain node, not a
/// `SynthLink` with closures: every walk of /proc/self/exe makes one.
pub struct PidLink {
    attr: Attr,
    pid: Pid,
    which: Link,
}

impl PidLink {
    /// The link's text: the path as the reader sees it (Linux's d_path
    /// from the reader's root: a chrooted process's root shows as its
    /// jail); the executable's real path, " (deleted)" once the recorded
    /// path no longer leads to it.
    fn text(&self) -> Result<Vec<u8>> {
        let p = process(self.pid)?;
        check_access(&p)?;
        let reader = |fs: &FsContext| crate::process::current().map_or_else(|| fs.clone(), |t| t.process.fs.lock().clone());
        match self.which {
            Link::Cwd => {
                let fs = p.fs.lock().clone();
                crate::fs::dir_path(&reader(&fs), fs.cwd.clone())
            }
            Link::Root => {
                let fs = p.fs.lock().clone();
                crate::fs::dir_path(&reader(&fs), fs.root.clone())
            }
            Link::Exe => {
                let program = p.vm.lock().lock().program.clone().ok_or(Errno::ENOENT)?;
                let fs = p.fs.lock().clone();
                Ok(program.exe_text.get(&fs, || {
                    let text = file_path(&fs, &program.exe_path, Some(&program.exe));
                    // A deleted file's text, or one that still goes
                    // through /proc (its processes come and go), is not
                    // kept.
                    let keep = !text.ends_with(crate::fs::DELETED) && !crate::fs::mount::through_procfs(&text);
                    (text, keep)
                }))
            }
        }
    }

    /// The node the link stands for.
    fn target(&self) -> Result<Arc<dyn Inode>> {
        let p = process(self.pid)?;
        check_access(&p)?;
        match self.which {
            Link::Cwd => Ok(p.fs.lock().cwd.clone()),
            Link::Root => Ok(p.fs.lock().root.clone()),
            Link::Exe => Ok(p.vm.lock().lock().program.clone().ok_or(Errno::ENOENT)?.exe.clone()),
        }
    }
}

impl Inode for PidLink {
    attr_identity!(FileType::Symlink);

    fn stat(&self) -> Result<Stat> {
        // A magic link's size is 64 on Linux.
        Ok(self.attr.stat(FileType::Symlink, 1, 64))
    }

    fn read_link(&self) -> Result<Vec<u8>> {
        self.text()
    }

    fn magic_link(&self) -> Option<Result<Arc<dyn Inode>>> {
        Some(self.target())
    }

    /// cwd and root go on in the mount the process holds its directory
    /// in, if that is the reader's namespace's, as a walk through an open
    /// file's link does (a read-only bind of the file system made elsewhere
    /// must not lend its flags); exe in one not known.
    fn magic_link_mount(&self, node: &Arc<dyn Inode>) -> kevlar_vfs::MountId {
        let Ok(p) = process(self.pid) else { return kevlar_vfs::NO_MOUNT };
        // Taken out of the lock: the reader's namespace is looked up after.
        let (same, mnt) = {
            let fs = p.fs.lock();
            match self.which {
                Link::Cwd => (kevlar_vfs::same_inode(&*fs.cwd, &**node), fs.cwd_mnt),
                Link::Root => (kevlar_vfs::same_inode(&*fs.root, &**node), fs.root_mnt),
                Link::Exe => return kevlar_vfs::NO_MOUNT,
            }
        };
        if same && crate::fs::mount::current_ns().holds(mnt, node.fs_id()) { mnt } else { kevlar_vfs::NO_MOUNT }
    }
}

/// Tells whether `node` is a `/proc/PID` magic link (cwd, exe, root).
pub fn is_pid_link(node: &Arc<dyn Inode>) -> bool {
    node.as_any().downcast_ref::<PidLink>().is_some()
}

// --- fd and fdinfo ------------------------------------------------------------

/// `/proc/PID/fd` (links to the open files) or `fdinfo` (their state).
fn fd_dir(pid: Pid, ino: u64, parent: &Arc<dyn Inode>, info: bool, ns: Weak<PidNs>) -> Result<Arc<dyn Inode>> {
    let p = process(pid)?;
    let perm = if info { 0o555 } else { 0o500 };
    Ok(SynthDir::new(attr_of(&p, ino, perm), Parent::Strong(parent.clone()), Box::new(FdSource { pid, info, ns })))
}

struct FdSource {
    pid: Pid,
    info: bool,
    /// The PID namespace of the procfs (a pidfd's fdinfo numbers its
    /// process so).
    ns: Weak<PidNs>,
}

/// Returns the open file of `fd` in process `pid` and its close-on-exec flag.
fn open_file(pid: Pid, fd: i32) -> Result<(Arc<OpenFile>, bool)> {
    let p = process(pid)?;
    let files = p.files.lock().clone();
    let table = files.lock();
    Ok((table.get(fd).map_err(|_| Errno::ENOENT)?, table.cloexec(fd).unwrap_or(false)))
}

impl DirSource for FdSource {
    fn list(&self) -> Vec<DirEntry> {
        let Ok(p) = process(self.pid) else { return Vec::new() };
        if !may_access(&p, PtraceMode::Read) {
            return Vec::new();
        }
        let files = p.files.lock().clone();
        let table = files.lock();
        let (base, file_type) = if self.info { (FDINFO_BASE, FileType::Regular) } else { (FD_LINK_BASE, FileType::Symlink) };
        table.iter().map(|(fd, _, _)| DirEntry { ino: pid_ino(self.pid) + base + fd as u64, file_type, name: format!("{}", fd).into_bytes() }).collect()
    }

    fn lookup(&self, _dir: &Arc<dyn Inode>, name: &[u8]) -> Result<Arc<dyn Inode>> {
        let fd = parse_number(name).ok_or(Errno::ENOENT)?;
        let p = process(self.pid)?;
        check_access(&p)?;
        let (file, _) = open_file(self.pid, fd)?;
        let pid = self.pid;
        if self.info {
            let ino = pid_ino(pid) + FDINFO_BASE + fd as u64;
            let ns = self.ns.clone();
            return Ok(SynthFile::new(attr_of(&p, ino, 0o444), Box::new(move || fdinfo(pid, fd, &mount_ns(&ns)?))).with_polling(Polling::None));
        }
        // The link's mode tells how the file is open: r-x for reading,
        // -wx for writing, rwx for both (owner only).
        let mut perm = 0;
        if file.flags() & abi::O_PATH == 0 {
            let accmode = file.flags() & abi::O_ACCMODE;
            if accmode == abi::O_RDONLY || accmode == abi::O_RDWR {
                perm |= 0o500;
            }
            if accmode == abi::O_WRONLY || accmode == abi::O_RDWR {
                perm |= 0o300;
            }
        }
        let ino = pid_ino(pid) + FD_LINK_BASE + fd as u64;
        let target = move || -> Result<Vec<u8>> {
            let (file, _) = open_file(pid, fd)?;
            Ok(fd_target_text(pid, &file))
        };
        let resolve = move || -> Result<Arc<dyn Inode>> {
            let (file, _) = open_file(pid, fd)?;
            Ok(match file.ops.inode() {
                Some(inode) => inode,
                None => Arc::new(FdTarget { file }),
            })
        };
        // The walk through the link goes on in the mount the file was
        // opened through, if it is the reader's namespace's: that mount's
        // flags apply (systemd's touch_file() sets times and modes by
        // /proc/self/fd/N of an O_PATH descriptor; the file system's other
        // mounts may be read-only binds).
        let mount = move |node: &Arc<dyn Inode>| -> kevlar_vfs::MountId {
            let Ok((file, _)) = open_file(pid, fd) else { return kevlar_vfs::NO_MOUNT };
            let mnt = file.mount_id();
            let same = file.ops.inode().is_some_and(|inode| kevlar_vfs::same_inode(&*inode, &**node));
            if same && crate::fs::mount::current_ns().holds(mnt, node.fs_id()) { mnt } else { kevlar_vfs::NO_MOUNT }
        };
        Ok(SynthLink::magic_in_mount(attr_of(&p, ino, perm), Box::new(target), Box::new(resolve), Box::new(mount)))
    }

    fn create_error(&self) -> Errno {
        Errno::ENOENT
    }
}

/// What readlink of `/proc/PID/fd/N` says: the file's path, or
/// `pipe:[INO]` for a pipe.
fn fd_target_text(pid: Pid, file: &OpenFile) -> Vec<u8> {
    if let Some(pipe) = file.ops.pipe() {
        return format!("pipe:[{}]", pipe.ino()).into_bytes();
    }
    let inode = file.ops.inode();
    if file.path.starts_with(b"/") {
        if let Ok(p) = process(pid) {
            let fs = p.fs.lock().clone();
            return file_path(&fs, &file.path, inode.as_ref());
        }
    }
    file.path.clone()
}

fn fdinfo(pid: Pid, fd: i32, ns: &Arc<PidNs>) -> Result<Vec<u8>> {
    let (file, cloexec) = open_file(pid, fd)?;
    let pos = *file.offset.lock();
    let flags = file.flags() | if cloexec { abi::O_CLOEXEC } else { 0 };
    let (mnt_id, ino) = match file.ops.inode() {
        Some(inode) => (crate::fs::mount::mount_of(&*inode).map_or(0, |m| m.id), inode.ino()),
        None => (0, file.ops.stat().map_or(0, |s| s.ino)),
    };
    let extra = match file.ops.as_pidfd() {
        Some(pidfd) => pidfd.fdinfo_in(ns),
        None => file.ops.fdinfo().unwrap_or_default(),
    };
    Ok(format!("pos:\t{}\nflags:\t0{:o}\nmnt_id:\t{}\nino:\t{}\n{}", pos, flags, mnt_id, ino, extra).into_bytes())
}

/// The node a `/proc/PID/fd/N` link leads to when the open file has no
/// inode of its own (a pipe, a device): opening it opens the same object
/// again, as on Linux.
pub struct FdTarget {
    file: Arc<OpenFile>,
}

impl FdTarget {
    /// Opens the object again with open(2) `flags`, as `cred`: a pipe gives
    /// a new end of the same pipe, a device a new open of the device.
    pub fn reopen(&self, cred: &kevlar_vfs::Credentials, flags: u32) -> Result<Arc<OpenFile>> {
        let accmode = flags & abi::O_ACCMODE;
        let mut want = kevlar_vfs::Access::NONE;
        if accmode == abi::O_RDONLY || accmode == abi::O_RDWR {
            want = want | kevlar_vfs::Access::READ;
        }
        if accmode == abi::O_WRONLY || accmode == abi::O_RDWR {
            want = want | kevlar_vfs::Access::WRITE;
        }
        kevlar_vfs::check_access(&self.file.ops.stat()?, cred, want)?;
        if flags & abi::O_DIRECTORY != 0 {
            return Err(Errno::ENOTDIR);
        }
        let kept = flags & !(abi::O_CREAT | abi::O_EXCL | abi::O_TRUNC | abi::O_CLOEXEC | abi::O_NOCTTY);
        let path = self.file.path.clone();
        if let Some(pipe) = self.file.ops.pipe() {
            let end = match accmode {
                abi::O_RDWR => pipe.open_both(),
                abi::O_WRONLY => pipe.open_end(true),
                _ => pipe.open_end(false),
            };
            return Ok(OpenFile::new(end, kept, path));
        }
        Ok(OpenFile::new(self.file.ops.clone(), kept, path))
    }
}

impl Inode for FdTarget {
    fn fs_id(&self) -> u64 {
        self.file.ops.stat().map_or(0, |s| s.dev)
    }

    fn ino(&self) -> u64 {
        self.file.ops.stat().map_or(0, |s| s.ino)
    }

    fn file_type(&self) -> FileType {
        self.file.ops.stat().ok().and_then(|s| s.file_type()).unwrap_or(FileType::CharDevice)
    }

    fn stat(&self) -> Result<Stat> {
        self.file.ops.stat()
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

// --- the text files ------------------------------------------------------------

/// Reads `[start, end)` of `p`'s memory. The size is the target's
/// choice (its arguments and environment, up to exec's limit of several
/// MiB), so the buffer is fallible: ENOMEM for the reader, not a heap panic.
fn read_memory(p: &Process, start: usize, end: usize) -> Result<Vec<u8>> {
    if end <= start {
        return Ok(Vec::new());
    }
    let vm = p.vm.lock().clone();
    let mut buf = crate::mm::kbuf::zeroed(end - start)?;
    let n = vm.lock().read_bytes(start, &mut buf);
    buf.truncate(n);
    Ok(buf)
}

fn cmdline(p: &Arc<Process>) -> Result<Vec<u8>> {
    let Some(program) = p.vm.lock().lock().program.clone() else { return Ok(Vec::new()) };
    let (start, end) = (program.areas.arg_start, program.areas.arg_end);
    let args = read_memory(p, start, end)?;
    if args.last().is_none_or(|&b| b == 0) {
        return Ok(args);
    }
    // setproctitle() overwrote the final NUL: the title runs on into the
    // environment area, up to its first NUL (kept), as Linux reads it.
    let env_end = if program.areas.env_start == end { program.areas.env_end } else { end };
    let mut text = read_memory(p, start, env_end)?;
    if let Some(nul) = text.iter().position(|&b| b == 0) {
        text.truncate(nul + 1);
    }
    Ok(text)
}

/// The auxiliary vector exec gave the program (binary pairs, AT_NULL
/// last), as Linux's saved copy: what the program did to its stack since
/// does not show.
fn auxv(p: &Arc<Process>) -> Result<Vec<u8>> {
    let program = p.vm.lock().lock().program.clone();
    let Some(program) = program else { return Ok(Vec::new()) };
    // Up to the first AT_NULL pair (prctl's PR_SET_MM_AUXV may have put
    // one early), as Linux's proc_pid_auxv.
    let mut end = 0;
    for pair in program.auxv.chunks(16) {
        end += pair.len();
        if pair.len() < 8 || pair[..8].iter().all(|&b| b == 0) {
            break;
        }
    }
    Ok(program.auxv[..end].to_vec())
}

fn environ(p: &Arc<Process>) -> Result<Vec<u8>> {
    check_access(p)?;
    let Some(program) = p.vm.lock().lock().program.clone() else { return Ok(Vec::new()) };
    read_memory(p, program.areas.env_start, program.areas.env_end)
}

/// One-letter state and its name, as `ps` and /proc/PID/status show it:
/// the state of `task`, a thread of `p` (None: it has none left).
fn state_of(p: &Process, task: Option<&crate::process::Thread>) -> (char, &'static str) {
    if p.exit_status().is_some() {
        return ('Z', "zombie");
    }
    if task.is_some_and(|t| t.ptrace.in_stop()) {
        return ('t', "tracing stop");
    }
    if p.signals.lock().is_stopped() {
        return ('T', "stopped");
    }
    match task.map(|t| t.state()) {
        Some(ThreadState::Runnable) => ('R', "running"),
        Some(ThreadState::Sleeping) => ('S', "sleeping"),
        _ => ('X', "dead"),
    }
}

/// The signal sets /proc shows: ignored and caught (with a handler).
fn ignored_and_caught(p: &Process) -> (u64, u64) {
    let signals = p.signals.lock();
    let (mut ignored, mut caught) = (0u64, 0u64);
    for (i, action) in signals.actions.iter().enumerate() {
        match action.handler {
            0 => {}                   // SIG_DFL
            1 => ignored |= 1 << i,   // SIG_IGN
            _ => caught |= 1 << i,
        }
    }
    (ignored, caught)
}

/// `/proc/PID/stat`, or with `tid` `/proc/PID/task/TID/stat`: the
/// thread's own state, id, signals and CPU; ids as `ns` numbers them.
fn stat(p: &Arc<Process>, tid: Option<Pid>, ns: &Arc<PidNs>) -> Result<Vec<u8>> {
    match tid {
        None => stat_of(p, p.any_thread(), p.pid, ns),
        Some(tid) => stat_of(p, p.threads().into_iter().find(|t| t.tid() == tid), tid, ns),
    }
}

/// `stat` of process `p` as seen through its thread `thread`, numbered `id`
/// (a global id) in namespace `ns`.
fn stat_of(p: &Arc<Process>, thread: Option<Arc<crate::process::Thread>>, id: Pid, ns: &Arc<PidNs>) -> Result<Vec<u8>> {
    let (state, _) = state_of(p, thread.as_deref());
    let zombie = p.exit_status().is_some();
    let permitted = may_access(p, PtraceMode::Read);
    let (program, (vm_size, resident), brk_start) = {
        let vm = p.vm.lock().clone();
        let vm = vm.lock();
        (vm.program.clone(), vm.size_and_resident(), vm.brk_start)
    };
    let (policy, rt_priority) = *p.sched_policy.lock();
    let nice = *p.nice.lock();
    let priority = if policy == abi::SCHED_FIFO || policy == abi::SCHED_RR { -1 - rt_priority } else { 20 + nice };
    let (pending, blocked) = {
        let tid = thread.as_ref().map_or(p.pid, |t| t.tid());
        let signals = p.signals.lock();
        (signals.pending(tid), signals.blocked(tid))
    };
    let (ignored, caught) = ignored_and_caught(p);
    let mut flags = if p.did_exec.load(Ordering::Relaxed) { 0 } else { PF_FORKNOEXEC };
    if zombie {
        flags |= PF_EXITING;
    }
    let rss_limit = p.limits.lock()[abi::RLIMIT_RSS as usize][0];
    let mm = |f: fn(&crate::mm::ProgramInfo) -> usize| program.as_ref().map_or(0, |prog| if permitted { f(prog) } else { 0 });
    let has_mm = program.is_some();
    let code_field = |f: fn(&crate::mm::ProgramInfo) -> usize| match &program {
        Some(prog) if permitted => f(prog),
        Some(_) => 1,
        None => 0,
    };
    let exit_code = if permitted { p.exit_status().map_or(0, |s| s.wait_status()) } else { 0 };
    let wchan = u8::from(permitted && state == 'S');
    let comm = p.comm.lock().clone();
    let rt = if policy == abi::SCHED_FIFO || policy == abi::SCHED_RR { rt_priority } else { 0 };
    let mut out = Line::with_capacity(320);
    let seen = |global: Pid| ns_pid::local_in(ns, global);
    // The terminal's foreground group: -1 without a terminal (Linux's
    // pid_nr_ns gives 0 for one the namespace does not number).
    let tpgid = match crate::tty::tpgid(p) {
        group if group > 0 => seen(group),
        none => none,
    };
    out.num(seen(id) as i128).text(b" (").text(comm.as_bytes()).text(b") ");
    out.text(&[state as u8, b' ']);
    nums!(out;
        seen(p.ppid()),
        seen(p.pgid.load(Ordering::Relaxed)),
        seen(p.sid.load(Ordering::Relaxed)),
        crate::tty::tty_nr(p),
        tpgid,
        flags,
        thread.as_ref().map_or(0, |t| t.fault_count.load(Ordering::Relaxed)),
        0, 0, 0,
        p.cpu_ns() / NS_PER_TICK,
        0,
        p.children_cpu_ns.load(Ordering::Relaxed) / NS_PER_TICK,
        0,
        priority,
        nice,
        p.thread_count().max(1),
        0,
        p.start_ns / NS_PER_TICK,
        vm_size,
        resident,
        rss_limit,
        code_field(|m| m.areas.start_code),
        code_field(|m| m.areas.end_code),
        mm(|m| m.areas.start_stack),
        0, 0,
        pending,
        blocked,
        ignored,
        caught,
        wchan,
        0, 0, 17,
        thread.as_ref().map_or(0, |t| t.last_cpu()),
        rt,
        policy,
        0, 0, 0,
        mm(|m| m.areas.start_data),
        mm(|m| m.areas.end_data),
        if has_mm && permitted { brk_start } else { 0 },
        mm(|m| m.areas.arg_start),
        mm(|m| m.areas.arg_end),
        mm(|m| m.areas.env_start),
        mm(|m| m.areas.env_end),
    );
    out.num(exit_code as i128).text(b"\n");
    // utime and stime: all CPU time counts as user time for now.
    Ok(out.0)
}

fn statm(p: &Arc<Process>) -> Result<Vec<u8>> {
    let (program, usage) = {
        let vm = p.vm.lock().clone();
        let vm = vm.lock();
        (vm.program.clone(), vm.usage())
    };
    let page = 4096;
    let text = program.map_or(0, |m| (m.areas.end_code.saturating_sub(m.areas.start_code) as u64).div_ceil(page));
    let resident = usage.resident_anon + usage.resident_file + usage.resident_shared;
    Ok(format!("{} {} {} {} 0 {} 0\n", usage.size / page, resident, usage.resident_file + usage.resident_shared, text, (usage.data + usage.stack) / page).into_bytes())
}

/// Formats a CPU set as Linux's `%*pb` (hex, 32-bit groups separated by
/// commas, as many digits as the CPU count needs).
fn cpu_mask(mask: u64, cpus: usize) -> String {
    let digits = cpus.div_ceil(4).max(1);
    let mut out = String::new();
    for i in (0..digits).rev() {
        let nibble = (mask >> (i * 4)) & 0xf;
        let _ = write!(out, "{:x}", nibble);
        if i % 8 == 0 && i != 0 {
            out.push(',');
        }
    }
    out
}

/// Formats a CPU set as a list of ranges (`0-1,3`).
fn cpu_list(mask: u64, cpus: usize) -> String {
    let mut out = String::new();
    let mut cpu = 0;
    while cpu < cpus {
        if mask & (1 << cpu) == 0 {
            cpu += 1;
            continue;
        }
        let start = cpu;
        while cpu + 1 < cpus && mask & (1 << (cpu + 1)) != 0 {
            cpu += 1;
        }
        if !out.is_empty() {
            out.push(',');
        }
        if start == cpu {
            let _ = write!(out, "{}", start);
        } else {
            let _ = write!(out, "{}-{}", start, cpu);
        }
        cpu += 1;
    }
    out
}

/// `/proc/PID/status`, or with `tid` `/proc/PID/task/TID/status`: the
/// thread's own state, id, tracer, signals, seccomp state and CPUs; ids as
/// `ns` numbers them.
fn status(p: &Arc<Process>, tid: Option<Pid>, ns: &Arc<PidNs>) -> Result<Vec<u8>> {
    match tid {
        None => status_of(p, p.any_thread(), p.pid, ns),
        Some(tid) => status_of(p, p.threads().into_iter().find(|t| t.tid() == tid), tid, ns),
    }
}

/// `status` of process `p` as seen through its thread `task`, numbered `id`
/// (a global id) in namespace `ns`.
fn status_of(p: &Arc<Process>, task: Option<Arc<crate::process::Thread>>, id: Pid, ns: &Arc<PidNs>) -> Result<Vec<u8>> {
    let (letter, name) = state_of(p, task.as_deref());
    let creds = p.creds.lock().clone();
    let umask = p.fs.lock().umask;
    let fd_slots = {
        let files = p.files.lock().clone();
        let n = files.lock().capacity();
        n.next_power_of_two().max(64)
    };
    let mut out = String::new();
    let _ = writeln!(out, "Name:\t{}", p.comm.lock().as_str());
    let _ = writeln!(out, "Umask:\t{:04o}", umask);
    let _ = writeln!(out, "State:\t{} ({})", letter, name);
    // Ids as the procfs's PID namespace numbers them (Linux's
    // proc_pid_ns of the mount, not the reader's); the NS lines list them
    // from there down to the namespace the process is in.
    let seen = |global: Pid| ns_pid::local_in(ns, global);
    let chain = ns_pid::chain_from(ns, p.pid);
    let levels = |global: Pid| {
        let ids: Vec<String> = chain.iter().map(|ns| format!("{}", ns_pid::local_in(ns, global))).collect();
        ids.join("\t")
    };
    let _ = writeln!(out, "Tgid:\t{}", seen(p.pid));
    let _ = writeln!(out, "Ngid:\t0");
    let _ = writeln!(out, "Pid:\t{}", seen(id));
    let _ = writeln!(out, "PPid:\t{}", seen(p.ppid()));
    let _ = writeln!(out, "TracerPid:\t{}", seen(task.as_ref().map_or(0, |t| t.ptrace.tracer_pid())));
    // The ids as the reader's user namespace sees them.
    let user = crate::process::current().map_or_else(crate::ns::user::init_ns, |t| t.process.creds.lock().user_ns.clone());
    let (u, g) = (|id| user.uid_shown(id), |id| user.gid_shown(id));
    let _ = writeln!(out, "Uid:\t{}\t{}\t{}\t{}", u(creds.uid), u(creds.euid), u(creds.suid), u(creds.fsuid));
    let _ = writeln!(out, "Gid:\t{}\t{}\t{}\t{}", g(creds.gid), g(creds.egid), g(creds.sgid), g(creds.fsgid));
    let _ = writeln!(out, "FDSize:\t{}", fd_slots);
    let groups: Vec<String> = creds.groups.iter().map(|&id| format!("{}", g(id))).collect();
    let _ = writeln!(out, "Groups:\t{} ", groups.join(" "));
    let _ = writeln!(out, "NStgid:\t{}", levels(p.pid));
    let _ = writeln!(out, "NSpid:\t{}", levels(id));
    let _ = writeln!(out, "NSpgid:\t{}", levels(p.pgid.load(Ordering::Relaxed)));
    let _ = writeln!(out, "NSsid:\t{}", levels(p.sid.load(Ordering::Relaxed)));
    let (program, usage, locked) = {
        let vm = p.vm.lock().clone();
        let vm = vm.lock();
        (vm.program.clone(), vm.usage(), vm.locked_bytes() as u64)
    };
    if let Some(program) = &program {
        let kb = |bytes: u64| bytes / 1024;
        let rss = (usage.resident_anon + usage.resident_file + usage.resident_shared) * 4;
        let exe = (program.areas.end_code.saturating_sub(program.areas.start_code) as u64).div_ceil(4096) * 4;
        let rows: [(&str, u64); 16] = [
            ("VmPeak:", kb(usage.size)),
            ("VmSize:", kb(usage.size)),
            ("VmLck:", kb(locked)),
            ("VmPin:", 0),
            ("VmHWM:", rss),
            ("VmRSS:", rss),
            ("RssAnon:", usage.resident_anon * 4),
            ("RssFile:", usage.resident_file * 4),
            ("RssShmem:", usage.resident_shared * 4),
            ("VmData:", kb(usage.data)),
            ("VmStk:", kb(usage.stack)),
            ("VmExe:", exe),
            ("VmLib:", kb(usage.exec).saturating_sub(exe)),
            ("VmPTE:", 0),
            ("VmSwap:", 0),
            ("HugetlbPages:", 0),
        ];
        for (key, value) in rows {
            let _ = writeln!(out, "{}\t{:8} kB", key, value);
        }
    }
    let _ = writeln!(out, "CoreDumping:\t0");
    let _ = writeln!(out, "THP_enabled:\t1");
    let _ = writeln!(out, "Threads:\t{}", p.thread_count().max(1));
    let tid = task.as_ref().map_or(id, |t| t.tid());
    let (queued, private, pending, blocked) = {
        let signals = p.signals.lock();
        (signals.queued_count(), signals.private_pending(tid), signals.shared_pending(), signals.blocked(tid))
    };
    let (ignored, caught) = ignored_and_caught(p);
    let _ = writeln!(out, "SigQ:\t{}/{}", queued, p.limits.lock()[abi::RLIMIT_SIGPENDING as usize][0]);
    let _ = writeln!(out, "SigPnd:\t{:016x}", private);
    let _ = writeln!(out, "ShdPnd:\t{:016x}", pending);
    let _ = writeln!(out, "SigBlk:\t{:016x}", blocked);
    let _ = writeln!(out, "SigIgn:\t{:016x}", ignored);
    let _ = writeln!(out, "SigCgt:\t{:016x}", caught);
    let _ = writeln!(out, "CapInh:\t{:016x}", creds.cap_inheritable);
    let _ = writeln!(out, "CapPrm:\t{:016x}", creds.cap_permitted);
    let _ = writeln!(out, "CapEff:\t{:016x}", creds.cap_effective);
    let _ = writeln!(out, "CapBnd:\t{:016x}", creds.cap_bounding);
    let _ = writeln!(out, "CapAmb:\t{:016x}", creds.cap_ambient);
    let (nnp, seccomp, filters) = task.as_ref().map_or((false, 0, 0), |t| (t.seccomp.no_new_privs(), t.seccomp.mode(), t.seccomp.filter_count()));
    let _ = writeln!(out, "NoNewPrivs:\t{}", u8::from(nnp));
    let _ = writeln!(out, "Seccomp:\t{}", seccomp);
    let _ = writeln!(out, "Seccomp_filters:\t{}", filters);
    let _ = writeln!(out, "Speculation_Store_Bypass:\tnot vulnerable");
    let _ = writeln!(out, "SpeculationIndirectBranch:\talways enabled");
    let cpus = kevlar_platform::smp::cpu_count();
    let mask = task.as_ref().map_or(u64::MAX, |t| t.affinity.load(Ordering::Relaxed)) & (u64::MAX >> (64 - cpus.clamp(1, 64)));
    let _ = writeln!(out, "Cpus_allowed:\t{}", cpu_mask(mask, cpus));
    let _ = writeln!(out, "Cpus_allowed_list:\t{}", cpu_list(mask, cpus));
    // One memory node; Linux prints MAX_NUMNODES (1024) bits of it.
    let mut mems = String::new();
    for i in 0..32 {
        mems.push_str(if i == 31 { "00000001" } else { "00000000," });
    }
    let _ = writeln!(out, "Mems_allowed:\t{}", mems);
    let _ = writeln!(out, "Mems_allowed_list:\t0");
    let _ = writeln!(out, "voluntary_ctxt_switches:\t0");
    let _ = writeln!(out, "nonvoluntary_ctxt_switches:\t0");
    Ok(out.into_bytes())
}

fn limits(p: &Arc<Process>) -> Result<Vec<u8>> {
    const ROWS: [(&str, u32, &str); 16] = [
        ("Max cpu time", abi::RLIMIT_CPU, "seconds"),
        ("Max file size", abi::RLIMIT_FSIZE, "bytes"),
        ("Max data size", abi::RLIMIT_DATA, "bytes"),
        ("Max stack size", abi::RLIMIT_STACK, "bytes"),
        ("Max core file size", abi::RLIMIT_CORE, "bytes"),
        ("Max resident set", abi::RLIMIT_RSS, "bytes"),
        ("Max processes", abi::RLIMIT_NPROC, "processes"),
        ("Max open files", abi::RLIMIT_NOFILE, "files"),
        ("Max locked memory", abi::RLIMIT_MEMLOCK, "bytes"),
        ("Max address space", abi::RLIMIT_AS, "bytes"),
        ("Max file locks", abi::RLIMIT_LOCKS, "locks"),
        ("Max pending signals", abi::RLIMIT_SIGPENDING, "signals"),
        ("Max msgqueue size", abi::RLIMIT_MSGQUEUE, "bytes"),
        ("Max nice priority", abi::RLIMIT_NICE, ""),
        ("Max realtime priority", abi::RLIMIT_RTPRIO, ""),
        ("Max realtime timeout", abi::RLIMIT_RTTIME, "us"),
    ];
    let limits = *p.limits.lock();
    let mut out = format!("{:<25} {:<20} {:<20} {:<10}\n", "Limit", "Soft Limit", "Hard Limit", "Units");
    for (name, resource, unit) in ROWS {
        let show = |v: u64| if v == u64::MAX { String::from("unlimited") } else { format!("{}", v) };
        let [soft, hard] = limits[resource as usize];
        let _ = write!(out, "{:<25} {:<20} {:<20} ", name, show(soft), show(hard));
        // Linux pads the units column only where a limit has a unit: the
        // unitless lines are shorter than the header, and pam_limits tells
        // a line with a unit from one without by its length.
        if !unit.is_empty() {
            let _ = write!(out, "{:<10}", unit);
        }
        out.push('\n');
    }
    Ok(out.into_bytes())
}

fn maps(p: &Arc<Process>) -> Result<Vec<u8>> {
    map_lines(p, false)
}

/// /proc/PID/smaps: maps' lines, each followed by the area's size, page
/// sizes, resident memory and (with protection keys) its key, in Linux's
/// format. Linux's other counters (Pss, the clean/dirty split, swap...)
/// are not kept yet and not shown.
fn smaps(p: &Arc<Process>) -> Result<Vec<u8>> {
    map_lines(p, true)
}

fn map_lines(p: &Arc<Process>, details: bool) -> Result<Vec<u8>> {
    check_access(p)?;
    let fs = p.fs.lock().clone();
    // Copy what each line needs, then name files without the address
    // space locked (resolving paths walks file systems).
    struct Line {
        start: usize,
        end: usize,
        prot: crate::mm::Prot,
        shared: bool,
        offset: u64,
        dev: u64,
        ino: u64,
        path: Option<Vec<u8>>,
        name: &'static str,
        /// A name made for this mapping (a System V segment's).
        label: Option<String>,
        /// Pages mapped (for smaps).
        resident: usize,
    }
    let lines: Vec<Line> = {
        let vm = p.vm.lock().clone();
        let vm = vm.lock();
        let stack_at = vm.program.as_ref().map(|m| m.areas.start_stack);
        let heap = (vm.brk_start, vm.brk.next_multiple_of(4096));
        let mapped = if details { vm.mapped_addresses() } else { Vec::new() };
        vm.vmas()
            .map(|vma| {
                let resident = mapped.partition_point(|&va| va < vma.end) - mapped.partition_point(|&va| va < vma.start);
                let mut line = Line { start: vma.start, end: vma.end, prot: vma.prot, shared: false, offset: 0, dev: 0, ino: 0, path: None, name: "", label: None, resident };
                match &vma.backing {
                    crate::mm::Backing::File { file, offset, shared, .. } => {
                        let (dev, ino, path) = file.identity();
                        (line.offset, line.dev, line.ino, line.path) = (*offset, dev, ino, Some(path.to_vec()));
                        line.shared = *shared;
                    }
                    // The vDSO's data page, then its code, as Linux names them.
                    crate::mm::Backing::Pages(_) => {
                        line.name = if vma.shared_page_base == 0 { "[vvar]" } else { "[vdso]" };
                    }
                    // Linux names shared anonymous memory after its backing file.
                    crate::mm::Backing::Shared(pages) => {
                        // Linux's shmem file lives on its internal mount,
                        // the first anonymous device (0:1).
                        line.shared = true;
                        line.name = "/dev/zero (deleted)";
                        (line.dev, line.ino) = (1, pages.ino);
                        if let Some((key, id)) = pages.sysv {
                            line.label = Some(format!("/SYSV{:08x} (deleted)", key));
                            line.ino = id as u64;
                        }
                        if pages.aio {
                            line.name = "/[aio] (deleted)";
                        }
                    }
                    crate::mm::Backing::Anonymous => {
                        if stack_at.is_some_and(|sp| vma.start <= sp && sp < vma.end) {
                            line.name = "[stack]";
                        } else if heap.1 > heap.0 && vma.start >= heap.0 && vma.start < heap.1 {
                            line.name = "[heap]";
                        }
                    }
                }
                line
            })
            .collect()
    };
    let mut names: Vec<(u64, u64, Vec<u8>)> = Vec::new();
    let mut out = String::new();
    for line in lines {
        let name = match &line.path {
            Some(path) => match names.iter().find(|(d, i, _)| *d == line.dev && *i == line.ino) {
                Some((_, _, name)) => name.clone(),
                None => {
                    let name = file_path(&fs, path, None);
                    names.push((line.dev, line.ino, name.clone()));
                    name
                }
            },
            None => line.label.as_deref().unwrap_or(line.name).as_bytes().to_vec(),
        };
        let dev = line.dev;
        let (major, minor) = ((dev >> 8) & 0xfff, (dev & 0xff) | ((dev >> 12) & 0xfff00));
        let start_len = out.len();
        let _ = write!(
            out,
            "{:08x}-{:08x} {}{}{}{} {:08x} {:02x}:{:02x} {} ",
            line.start,
            line.end,
            if line.prot.read { 'r' } else { '-' },
            if line.prot.write { 'w' } else { '-' },
            if line.prot.exec { 'x' } else { '-' },
            if line.shared { 's' } else { 'p' },
            line.offset,
            major,
            minor,
            line.ino
        );
        if !name.is_empty() {
            // Names start at column 73, as Linux pads them.
            while out.len() - start_len < 73 {
                out.push(' ');
            }
            out.push_str(&String::from_utf8_lossy(&name));
        }
        out.push('\n');
        if details {
            let _ = writeln!(out, "Size:           {:8} kB", (line.end - line.start) >> 10);
            let _ = writeln!(out, "KernelPageSize: {:8} kB", 4);
            let _ = writeln!(out, "MMUPageSize:    {:8} kB", 4);
            let _ = writeln!(out, "Rss:            {:8} kB", line.resident * 4);
            if kevlar_platform::x86::pkru::enabled() {
                let _ = writeln!(out, "ProtectionKey:  {:8}", line.prot.key);
            }
        }
    }
    Ok(out.into_bytes())
}

/// /proc/PID/mounts: the mounts reachable from the process's root, with
/// mount points relative to it (so a chrooted process sees its own tree).
fn mounts(p: &Arc<Process>) -> Result<Vec<u8>> {
    let fs = p.fs.lock().clone();
    let mut out = String::new();
    let mut names = crate::fs::mount_root::NameCache::default();
    for m in fs.mnt.list() {
        // Each line walks paths (O(depth x log mounts) each, through the
        // table's index): a long table still takes a while, so this
        // yields and stops for a fatal signal.
        if crate::process::current().is_some_and(|t| !t.checkpoint()) {
            return Err(Errno::EINTR);
        }
        let Some(path) = crate::fs::mount::visible_path(&fs, &m, &mut names) else { continue };
        crate::fs::mount::escape_into(&mut out, &m.source);
        out.push(' ');
        crate::fs::mount::escape_into(&mut out, &path);
        let options = m.mounts_options();
        let fs_options = m.fs_options();
        let _ = write!(out, " {} {}", m.fstype, options);
        if !fs_options.is_empty() {
            let _ = write!(out, ",{}", fs_options);
        }
        out.push_str(" 0 0\n");
    }
    Ok(out.into_bytes())
}

/// /proc/PID/mountinfo: as [`mounts`], the process's root's view.
fn mountinfo(p: &Arc<Process>) -> Result<Vec<u8>> {
    let fs = p.fs.lock().clone();
    let mut out = String::new();
    let mut names = crate::fs::mount_root::NameCache::default();
    for m in fs.mnt.list() {
        // Each line walks paths (O(depth x log mounts) each, through the
        // table's index): a long table still takes a while, so this
        // yields and stops for a fatal signal.
        if crate::process::current().is_some_and(|t| !t.checkpoint()) {
            return Err(Errno::EINTR);
        }
        let Some(path) = crate::fs::mount::visible_path(&fs, &m, &mut names) else { continue };
        let dev = m.root.fs_id();
        let (major, minor) = ((dev >> 8) & 0xfff, (dev & 0xff) | ((dev >> 12) & 0xfff00));
        let parent = if m.parent_id == 0 { m.id } else { m.parent_id };
        let _ = write!(out, "{} {} {}:{} ", m.id, parent, major, minor);
        crate::fs::mount::escape_into(&mut out, &m.root_in_fs(&mut names));
        out.push(' ');
        crate::fs::mount::escape_into(&mut out, &path);
        // The super options: the file system's read-only state.
        let ro = m.super_flags() & abi::MS_RDONLY != 0;
        let fs_options = m.fs_options();
        let _ = write!(out, " {}{} - {} ", m.mount_options(), crate::fs::propagation::optional_fields(&m), m.fstype);
        crate::fs::mount::escape_into(&mut out, &m.source);
        let _ = write!(out, " {}", if ro { "ro" } else { "rw" });
        if !fs_options.is_empty() {
            let _ = write!(out, ",{}", fs_options);
        }
        out.push('\n');
    }
    Ok(out.into_bytes())
}
