//! Files: the mount table, path lookup for processes, opening files by
//! path.

pub mod anon;
pub mod devices;
pub mod epoll;
pub mod eventfd;
pub mod fasync;
pub mod fhandle;
pub mod fsid;
pub mod fdtable;
pub mod file;
pub mod initramfs;
pub mod inode_backing;
pub mod locks;
pub mod memfd;
pub mod notify;
pub mod mount;
pub mod mount_index;
pub mod mount_root;
pub mod newmount;
pub mod pagecache;
pub mod pages;
pub mod path_memo;
pub mod pidfd;
pub mod pipe;
pub mod pivot;
pub mod poll_queue;
pub mod procfs;
pub mod propagation;
pub mod rbind;
pub mod signalfd;
pub mod simplefs;
pub mod splice;
pub mod synth;
pub mod superblock;
pub mod sysfs;
pub mod sysctl;
pub mod protected;
pub mod timerfd;
pub mod userio;
pub mod writecount;

use alloc::sync::Arc;
use alloc::vec::Vec;

use kevlar_platform::sync::SpinLock;
use kevlar_vfs::{MountTable, OpenLookup, ParentLookup, WalkContext, WalkFlags};

use kevlar_vfs::{FileType, Inode};
use linux_raw_sys::general as abi;

pub use fdtable::FdTable;
use file::{InodeFile, OpenFile};

use crate::error::{Errno, Result};

use mount::MountNs;

/// A process's view of the file tree.
#[derive(Clone)]
pub struct FsContext {
    /// The root directory.
    pub root: Arc<dyn Inode>,
    /// The working directory.
    pub cwd: Arc<dyn Inode>,
    /// The working directory's absolute path (lexically normalised).
    pub cwd_path: Arc<[u8]>,
    /// The file-creation mask.
    pub umask: u32,
    /// The mount namespace path walks see (the process's: unshare and
    /// setns change it with the namespace set).
    pub mnt: Arc<MountNs>,
    /// The mount `root` is in (NO_MOUNT: not known; the last mount
    /// rooted there is taken).
    pub root_mnt: kevlar_vfs::MountId,
    /// The mount `cwd` is in (NO_MOUNT: not known).
    pub cwd_mnt: kevlar_vfs::MountId,
}

impl FsContext {
    /// Creates a context rooted (and working) at `root`.
    pub fn new(root: Arc<dyn Inode>) -> Self {
        // The mount it is in, known from the start: a walk then need not
        // look it up.
        let mnt = mount::init_ns();
        let id = mnt.mount_id_of(&root, None);
        Self { cwd: root.clone(), root, cwd_path: Arc::from(&b"/"[..]), umask: 0o022, mnt, root_mnt: id, cwd_mnt: id }
    }

    fn walk_context<'a>(&'a self, cred: &'a kevlar_vfs::Credentials) -> WalkContext<'a> {
        let known = |mnt: kevlar_vfs::MountId, node: &Arc<dyn Inode>| if mnt != kevlar_vfs::NO_MOUNT { mnt } else { self.mnt.mount_rooted_at(node) };
        WalkContext { root: &self.root, cwd: &self.cwd, root_mnt: known(self.root_mnt, &self.root), cwd_mnt: known(self.cwd_mnt, &self.cwd), mounts: &*self.mnt, cred: Some(cred) }
    }

    /// Resolves `path` from `start` in its mount (None: the cwd); returns
    /// the node and the mount it was reached through.
    pub fn lookup_mnt(&self, cred: &kevlar_vfs::Credentials, start: Option<(&Arc<dyn Inode>, kevlar_vfs::MountId)>, path: &[u8], flags: WalkFlags) -> Result<(Arc<dyn Inode>, kevlar_vfs::MountId)> {
        Ok(kevlar_vfs::walk_mnt(&self.walk_context(cred), start, path, flags)?)
    }

    /// Resolves all but the last component of `path` from `start` in its
    /// mount (the result's `mnt` is its directory's).
    pub fn lookup_parent_mnt(&self, cred: &kevlar_vfs::Credentials, start: Option<(&Arc<dyn Inode>, kevlar_vfs::MountId)>, path: &[u8]) -> Result<ParentLookup> {
        Ok(kevlar_vfs::walk_parent_mnt(&self.walk_context(cred), start, path)?)
    }

    /// Resolves `path` relative to `start` (None: the cwd).
    pub fn lookup(&self, cred: &kevlar_vfs::Credentials, start: Option<&Arc<dyn Inode>>, path: &[u8], flags: WalkFlags) -> Result<Arc<dyn Inode>> {
        Ok(kevlar_vfs::walk(&self.walk_context(cred), start, path, flags)?)
    }

    /// Resolves all but the last component of `path`.
    pub fn lookup_parent(&self, cred: &kevlar_vfs::Credentials, start: Option<&Arc<dyn Inode>>, path: &[u8]) -> Result<ParentLookup> {
        Ok(kevlar_vfs::walk_parent(&self.walk_context(cred), start, path)?)
    }

    /// Returns `path` made absolute against `base` and lexically
    /// normalised (`.` and `..` removed).
    pub fn absolute(base: &[u8], path: &[u8]) -> Vec<u8> {
        let mut parts: Vec<&[u8]> = Vec::new();
        let full: Vec<u8> = if path.starts_with(b"/") {
            path.to_vec()
        } else {
            let mut v = base.to_vec();
            v.push(b'/');
            v.extend_from_slice(path);
            v
        };
        for part in full.split(|&b| b == b'/') {
            match part {
                b"" | b"." => {}
                b".." => {
                    parts.pop();
                }
                other => parts.push(other),
            }
        }
        let mut out = Vec::new();
        for part in parts {
            out.push(b'/');
            out.extend_from_slice(part);
        }
        if out.is_empty() {
            out.push(b'/');
        }
        out
    }
}

/// Opens `path` with open(2) flags and mode, as `cred` in `fs`.
pub fn open_path(fs: &FsContext, cred: &kevlar_vfs::Credentials, start: Option<&Arc<dyn Inode>>, path: &[u8], flags: u32, mode: u32) -> Result<Arc<OpenFile>> {
    open_path_at(fs, cred, start.map(|s| (s, kevlar_vfs::NO_MOUNT)), path, flags, mode)
}

/// [`open_path`] from `start` in its mount (a directory descriptor's).
pub fn open_path_at(fs: &FsContext, cred: &kevlar_vfs::Credentials, start: Option<(&Arc<dyn Inode>, kevlar_vfs::MountId)>, path: &[u8], flags: u32, mode: u32) -> Result<Arc<OpenFile>> {
    open_path_resolve(fs, cred, start, path, flags, mode, WalkFlags::EMPTY)
}

/// [`open_path_at`] with openat2's restrictions on the walk (`resolve`:
/// the NO_XDEV, NO_MAGICLINKS, NO_SYMLINKS, BENEATH and IN_ROOT walk
/// flags).
pub fn open_path_resolve(fs: &FsContext, cred: &kevlar_vfs::Credentials, start: Option<(&Arc<dyn Inode>, kevlar_vfs::MountId)>, path: &[u8], flags: u32, mode: u32, resolve: WalkFlags) -> Result<Arc<OpenFile>> {
    // open(2) ignores unknown flag bits (openat2 would reject them).
    if flags & abi::O_TMPFILE & !abi::O_DIRECTORY != 0 {
        if flags & abi::O_ACCMODE == abi::O_RDONLY {
            return Err(Errno::EINVAL);
        }
        return Err(Errno::EOPNOTSUPP); // O_TMPFILE: not supported by this tmpfs yet
    }
    if flags & abi::O_CREAT != 0 && flags & abi::O_DIRECTORY != 0 {
        return Err(Errno::EINVAL);
    }
    let mut walk_flags = resolve;
    if flags & abi::O_NOFOLLOW != 0 || (flags & abi::O_CREAT != 0 && flags & abi::O_EXCL != 0) {
        walk_flags = walk_flags | WalkFlags::NOFOLLOW;
    }
    if flags & abi::O_DIRECTORY != 0 {
        walk_flags = walk_flags | WalkFlags::DIRECTORY;
    }
    let mut created = false;
    let mut tries = 0;
    let mut mnt;
    let mut followed_links;
    let node = loop {
        let (found, at, followed) = kevlar_vfs::walk_open_traced(&fs.walk_context(cred), start, path, walk_flags)?;
        mnt = at;
        followed_links = followed;
        match found {
            OpenLookup::Found(node) => {
                if flags & abi::O_CREAT != 0 && flags & abi::O_EXCL != 0 {
                    return Err(Errno::EEXIST);
                }
                if flags & abi::O_CREAT != 0 && node.file_type() != FileType::Directory && protected::sticky_checks_on() {
                    // The directory the name is in (that of the link for a
                    // followed trailing symlink).
                    let parent = kevlar_vfs::walk_parent_mnt(&fs.walk_context(cred), start, path)?;
                    protected::may_create_in_sticky(cred, &*parent.dir, &*node)?;
                }
                break node;
            }
            OpenLookup::Missing { dir, name, trailing_slash } => {
                if flags & abi::O_CREAT == 0 {
                    return Err(Errno::ENOENT);
                }
                if trailing_slash {
                    return Err(Errno::EISDIR);
                }
                kevlar_vfs::check_access(&dir.stat()?, cred, kevlar_vfs::Access::WRITE | kevlar_vfs::Access::EXEC)?;
                mount::check_writable_at(mnt, &*dir)?;
                match dir.create(&name, FileType::Regular, mode & 0o7777 & !fs.umask, cred.uid, cred.gid, 0) {
                    Ok(node) => {
                        notify::created(&dir, &name, false);
                        created = true;
                        break node;
                    }
                    // Another process created it between the lookup and
                    // the create: without O_EXCL that file is opened, as
                    // Linux's O_CREAT is atomic (a few tries: a name that
                    // stays missing yet exists is an error).
                    Err(Errno::EEXIST) if flags & abi::O_EXCL == 0 && tries < 3 => tries += 1,
                    Err(e) => return Err(e),
                }
            }
        }
    };
    if let Some(target) = node.as_any().downcast_ref::<procfs::FdTarget>() {
        // /proc/PID/fd/N of a pipe or device: a new open of the same object.
        return target.reopen(cred, flags);
    }
    // An absolute path of names only, walked without a symlink, is the
    // real path already: an open through /proc need not resolve it again.
    let real = !followed_links && start.is_none() && is_plain_absolute(path);
    let file = open_node_in(fs, cred, node, mnt, flags, created, FsContext::absolute(&fs.cwd_path, path), real)?;
    file.set_mount(mnt);
    if flags & abi::O_PATH == 0 {
        notify::file_opened(&file);
    }
    Ok(file)
}

/// Tells whether `path` is absolute and has no `.` or `..` component.
fn is_plain_absolute(path: &[u8]) -> bool {
    path.starts_with(b"/") && !path.split(|&b| b == b'/').any(|c| c == b"." || c == b"..")
}

/// Opens the node `node` found (or, with `created`, just made) by a path
/// walk or a file handle, with open(2) flags, as `cred`; `abs` is the
/// absolute path the open file records.
pub fn open_node(fs: &FsContext, cred: &kevlar_vfs::Credentials, node: Arc<dyn Inode>, flags: u32, created: bool, abs: Vec<u8>) -> Result<Arc<OpenFile>> {
    open_node_at(fs, cred, node, kevlar_vfs::NO_MOUNT, flags, created, abs)
}

/// [`open_node`] of `node` reached through mount `mnt` (NO_MOUNT: not
/// known): that mount's flags apply, and the open file records it.
pub fn open_node_at(fs: &FsContext, cred: &kevlar_vfs::Credentials, node: Arc<dyn Inode>, mnt: kevlar_vfs::MountId, flags: u32, created: bool, abs: Vec<u8>) -> Result<Arc<OpenFile>> {
    let varies = mnt == kevlar_vfs::NO_MOUNT && !node.file_type().is_dir() && mount::flags_vary(&*node);
    let fs_id = node.fs_id();
    let file = open_node_in(fs, cred, node, mnt, flags, created, abs, false)?;
    // A walk that lost track of its mount (through a magic link, or from
    // a root moved there by MS_MOVE and chroot, as systemd's service
    // namespaces are) leaves the mount unknown; where binds of the file
    // system differ in flags, a file cannot tell from itself which one
    // holds it, so its directory's mount is recorded: later calls on the
    // descriptor (futimens, fchmod...) then apply that mount's flags, not
    // another bind's (udevd's "Failed to touch /run/udev/queue:
    // Read-only file system" under a read-only bind elsewhere in /run).
    // A path that is not the file's (/proc/self/fd/N) names another file
    // system's directory: then nothing is recorded.
    let mnt = if varies {
        let parent = fs.lookup_parent(cred, None, &file.path).ok().filter(|parent| parent.dir.fs_id() == fs_id);
        parent.and_then(|parent| mount::mount_of(&*parent.dir)).map_or(kevlar_vfs::NO_MOUNT, |m| m.id)
    } else {
        mnt
    };
    file.set_mount(mnt);
    if flags & abi::O_PATH == 0 {
        notify::file_opened(&file);
    }
    Ok(file)
}

/// `abs_is_real`: `abs` is known to be the file's real path (no symlink
/// on the way), so an open through /proc records it as it is.
#[allow(clippy::too_many_arguments)]
fn open_node_in(fs: &FsContext, cred: &kevlar_vfs::Credentials, node: Arc<dyn Inode>, mnt: kevlar_vfs::MountId, flags: u32, created: bool, abs: Vec<u8>, abs_is_real: bool) -> Result<Arc<OpenFile>> {
    let file_type = node.file_type();
    if flags & abi::O_PATH != 0 {
        // O_PATH: a handle for *at() calls, fstat, fchdir; no I/O.
        return Ok(OpenFile::new(InodeFile::new(node), abi::O_PATH | (flags & abi::O_DIRECTORY), abs));
    }
    if file_type == FileType::Symlink {
        return Err(Errno::ELOOP); // O_NOFOLLOW on a symlink
    }
    if flags & abi::O_DIRECTORY != 0 && file_type != FileType::Directory {
        return Err(Errno::ENOTDIR);
    }
    let accmode = flags & abi::O_ACCMODE;
    if file_type == FileType::Directory && (accmode != abi::O_RDONLY || flags & abi::O_CREAT != 0) {
        return Err(Errno::EISDIR);
    }
    let stat = node.stat()?;
    let mut want = kevlar_vfs::Access::NONE;
    if accmode == abi::O_RDONLY || accmode == abi::O_RDWR {
        want = want | kevlar_vfs::Access::READ;
    }
    if accmode == abi::O_WRONLY || accmode == abi::O_RDWR || flags & abi::O_TRUNC != 0 {
        want = want | kevlar_vfs::Access::WRITE;
    }
    // A read-only mount refuses writes to its files and directories
    // (not to device nodes or FIFOs on it) before permissions count.
    if matches!(file_type, FileType::Regular | FileType::Directory) && (want.contains(kevlar_vfs::Access::WRITE) || flags & abi::O_TRUNC != 0) {
        if mnt != kevlar_vfs::NO_MOUNT {
            mount::check_writable_at(mnt, &*node)?;
        } else if file_type == FileType::Regular && mount::flags_vary(&*node) {
            // Bind mounts of its file system differ: its directory tells
            // (found again by the absolute path the open records).
            let parent = fs.lookup_parent(cred, None, &abs)?;
            mount::check_writable_in(&*parent.dir, &*node)?;
        } else {
            mount::check_writable(&*node)?;
        }
    }
    // A file this open created is opened whatever its new mode says (Linux
    // skips the check: `open(name, O_CREAT | O_WRONLY, 0444)` gives a
    // writable descriptor).
    if !created {
        kevlar_vfs::check_access(&stat, cred, want)?;
    }
    // A regular file opened for writing (or truncated) must not be a
    // running program's: ETXTBSY (writecount).
    let write_access = if file_type == FileType::Regular && want.contains(kevlar_vfs::Access::WRITE) {
        Some(writecount::get_write_access(&node)?)
    } else {
        None
    };
    // fanotify's permission events, before anything is done to the file.
    notify::open_permission(&node, &abs, mnt, false)?;
    // O_TRUNC truncates even with O_RDONLY (unspecified by POSIX; Linux
    // does), provided the caller may write.
    // A file this open created is not truncated (Linux drops O_TRUNC).
    if flags & abi::O_TRUNC != 0 && file_type == FileType::Regular && !created {
        kevlar_vfs::check_access(&stat, cred, kevlar_vfs::Access::WRITE)?;
        truncate_file(&node, 0)?;
        notify::truncated(&*node);
    }
    // The access stays with the open file only if it was opened for writing.
    let write_access = if accmode == abi::O_WRONLY || accmode == abi::O_RDWR { write_access } else { None };
    let mut abs = abs;
    if !abs_is_real && mount::through_procfs(&abs) {
        // Opened through /proc/self/fd/N or the like: record the file's
        // own path, which does not depend on who reads /proc later.
        if let Ok((real, _)) = canonical_path(fs, &abs) {
            abs = real;
        }
    }
    let ops: Arc<dyn file::FileOps> = match file_type {
        FileType::CharDevice if mount::has_flag_at(mnt, &*node, abi::MS_NODEV) => return Err(Errno::EACCES),
        FileType::CharDevice => {
            let rdev = stat.rdev;
            let (major, minor) = (((rdev >> 8) & 0xfff) as u32, ((rdev & 0xff) | ((rdev >> 12) & 0xfff00)) as u32);
            match crate::tty::open(major, minor, &stat, flags)? {
                Some(terminal) => terminal,
                None => devices::DeviceKind::from_rdev(major, minor).ok_or(Errno::ENXIO)?.open(stat),
            }
        }
        FileType::Fifo => return open_fifo(&node, flags, abs),
        FileType::BlockDevice if mount::has_flag_at(mnt, &*node, abi::MS_NODEV) => return Err(Errno::EACCES),
        FileType::BlockDevice => crate::block::file::BlockFile::open(node.clone(), stat, flags)?,
        FileType::Socket => return Err(Errno::ENXIO),
        _ if let Some(queue) = crate::ipc::mqueue_fs::open(&node) => queue,
        _ => match synth::as_synth_file(&node) {
            Some(generated) => generated.open(want.contains(kevlar_vfs::Access::WRITE))?,
            None => match crate::cgroup::fs::open(&node, want.contains(kevlar_vfs::Access::READ), want.contains(kevlar_vfs::Access::WRITE), cred) {
                Some(opened) => opened?,
                None => InodeFile::new(node.clone()),
            },
        },
    };
    let file = OpenFile::with_write_access(ops, flags & !(abi::O_CREAT | abi::O_EXCL | abi::O_TRUNC | abi::O_CLOEXEC), abs, write_access);
    notify::opened(&file, &*node);
    Ok(file)
}

/// FIFOs: the pipe behind each FIFO inode, created on first open and gone
/// when its last end closes. The table holds neither pipes nor inodes (a
/// pipe holds its FIFO's inode while open): it once held both until the
/// next FIFO open anywhere, which kept an unlinked FIFO's inode allocated
/// (an orphan on ext4) after its last close.
static FIFOS: SpinLock<Vec<alloc::sync::Weak<pipe::Pipe>>> = SpinLock::new(Vec::new());

fn open_fifo(node: &Arc<dyn Inode>, flags: u32, path: Vec<u8>) -> Result<Arc<OpenFile>> {
    // Pipes looked at and not wanted are dropped after the table's lock:
    // the last reference to one releases its inode, which may reach a disk.
    let mut others: Vec<Arc<pipe::Pipe>> = Vec::new();
    let pipe = {
        let mut fifos = FIFOS.lock();
        fifos.retain(|p| p.strong_count() > 0);
        let mut found = None;
        for p in fifos.iter().filter_map(alloc::sync::Weak::upgrade) {
            if found.is_none() && p.serves(&**node) {
                found = Some(p);
            } else {
                others.push(p);
            }
        }
        match found {
            Some(p) => p,
            None => {
                let p = pipe::Pipe::for_fifo(node.clone());
                fifos.push(Arc::downgrade(&p));
                p
            }
        }
    };
    drop(others);
    let accmode = flags & abi::O_ACCMODE;
    if accmode == abi::O_RDWR {
        // Linux lets a FIFO be opened for both ends at once, without
        // blocking: the opener is its own peer.
        let end = pipe.open_both();
        return Ok(OpenFile::new(end, flags & !abi::O_CLOEXEC, path));
    }
    let write = accmode == abi::O_WRONLY;
    // A blocking open returns at once if the other side is open now (its
    // openers count themselves before waiting), else when the other side
    // has *been* opened since, even if it closed again before this opener
    // ran: Linux compares open counters the same way.
    let (end, peer_present, peer_opens) = pipe.open_end_observing(write);
    let file = OpenFile::new(end, flags & !abi::O_CLOEXEC, path);
    if flags & abi::O_NONBLOCK != 0 {
        if write && !peer_present {
            return Err(Errno::ENXIO);
        }
    } else if !peer_present {
        pipe.waiters.wait_until(|| Ok((pipe.has_peer(!write) || pipe.open_count(!write) != peer_opens).then_some(())))?;
    }
    Ok(file)
}

/// Resolves the lexically absolute `path` (as open files and programs
/// record it) with every symlink followed; returns the real absolute path
/// and the node it names (what /proc's fd and exe links show).
pub fn canonical_path(fs: &FsContext, path: &[u8]) -> Result<(Vec<u8>, Arc<dyn Inode>)> {
    // Reading a magic link's text resolves the path its target was opened
    // by, which may itself go through /proc: a path that names itself (a
    // process's executable recorded as /proc/self/exe) must end in ELOOP,
    // not recurse until the kernel stack overflows. Path walks never sleep
    // and the kernel is not preemptible, so this CPU's count is the depth
    // of this call chain.
    let cpu = kevlar_platform::smp::cpu_index();
    let depth = CANONICAL_DEPTH[cpu].fetch_add(1, core::sync::atomic::Ordering::Relaxed);
    let result = if depth >= MAX_CANONICAL_DEPTH { Err(Errno::ELOOP) } else { canonical_path_walk(fs, path) };
    CANONICAL_DEPTH[cpu].fetch_sub(1, core::sync::atomic::Ordering::Relaxed);
    result
}

/// How /proc marks the path of a file that has been unlinked.
pub const DELETED: &[u8] = b" (deleted)";

/// How deeply magic-link texts may nest inside one another.
const MAX_CANONICAL_DEPTH: u32 = 8;
static CANONICAL_DEPTH: [core::sync::atomic::AtomicU32; kevlar_platform::smp::MAX_CPUS] =
    [const { core::sync::atomic::AtomicU32::new(0) }; kevlar_platform::smp::MAX_CPUS];

fn canonical_path_walk(fs: &FsContext, path: &[u8]) -> Result<(Vec<u8>, Arc<dyn Inode>)> {
    let cred = kevlar_vfs::Credentials::root();
    let mut path = path.to_vec();
    for _ in 0..kevlar_vfs::MAX_SYMLINK_FOLLOWS {
        let parent = fs.lookup_parent(&cred, None, &path)?;
        let name: &[u8] = match &parent.last {
            kevlar_vfs::LastComponent::Normal(name) => name,
            kevlar_vfs::LastComponent::Root => return Ok((b"/".to_vec(), fs.root.clone())),
            kevlar_vfs::LastComponent::Dot | kevlar_vfs::LastComponent::DotDot => {
                let node = fs.lookup(&cred, None, &path, WalkFlags::EMPTY)?;
                return Ok((dir_path(fs, node.clone())?, node));
            }
        };
        // The directory's real path: as written when the walk to it took
        // no symlink (the common case, and no walk up through `..`).
        let mut dir = match plain_parent(&path) {
            Some(written) if !parent.followed_links => {
                // Sized once for the name appended below.
                let mut dir = Vec::with_capacity(written.len() + 1 + name.len());
                dir.extend_from_slice(written);
                dir
            }
            _ => dir_path(fs, parent.dir.clone())?,
        };
        let node = parent.dir.lookup(name)?;
        if node.file_type() == FileType::Symlink {
            let target = node.read_link()?;
            if (synth::is_magic_link(&node) || procfs::is_pid_link(&node)) && (!target.starts_with(b"/") || target.ends_with(DELETED)) {
                // A pipe's or device's link names no path (`pipe:[5]`), and
                // an unlinked file's path leads nowhere: the link itself
                // leads to the node.
                let found = node.magic_link().ok_or(Errno::EINVAL)??;
                return Ok((target, found));
            }
            // A magic link's text is already its target's real path.
            path = if target.starts_with(b"/") { target } else { FsContext::absolute(&dir, &target) };
            continue;
        }
        let node = fs.mnt.mounted_at(&node).unwrap_or(node);
        if dir != b"/" {
            dir.push(b'/');
        }
        dir.extend_from_slice(name);
        return Ok((dir, node));
    }
    Err(Errno::ELOOP)
}

/// The part of absolute `path` before its last component, when `path` is
/// plain: every component a name (no `.`, `..`, empty component or
/// trailing slash).
fn plain_parent(path: &[u8]) -> Option<&[u8]> {
    let rest = path.strip_prefix(b"/")?;
    if rest.is_empty() || rest.ends_with(b"/") || rest.split(|&b| b == b'/').any(|c| c.is_empty() || c == b"." || c == b"..") {
        return None;
    }
    let cut = path.iter().rposition(|&b| b == b'/')?;
    Some(if cut == 0 { b"/" } else { &path[..cut] })
}

/// Returns the real absolute path of the working directory, found by
/// walking `..` up to the root and looking up each directory's name in its
/// parent (so a chdir through a symlink reports the target, as Linux).
pub fn real_path(fs: &FsContext) -> Result<Vec<u8>> {
    dir_path(fs, fs.cwd.clone())
}

/// Returns the real absolute path of directory `dir`, as [`real_path`]
/// finds the working directory's.
pub fn dir_path(fs: &FsContext, dir: Arc<dyn Inode>) -> Result<Vec<u8>> {
    dir_path_with(fs, dir, None)
}

/// [`dir_path`], finding names through `names` (a reader's cache: each
/// directory is listed once, however many of its entries are asked for).
pub fn dir_path_with(fs: &FsContext, dir: Arc<dyn Inode>, mut names: Option<&mut mount_root::NameCache>) -> Result<Vec<u8>> {
    let mut parts: Vec<Vec<u8>> = Vec::new();
    let mut node = dir;
    for _ in 0..256 {
        if kevlar_vfs::same_inode(&*node, &*fs.root) {
            break;
        }
        // At the root of a mounted filesystem, continue from the mount
        // point in the parent filesystem.
        if let Some(on) = fs.mnt.mount_parent(&node) {
            if kevlar_vfs::same_inode(&*fs.mnt.mounted_at(&on).unwrap_or(on.clone()), &*node) {
                node = on;
                continue;
            }
        }
        let parent = node.lookup(b"..")?;
        if let Some(cache) = names.as_deref_mut() {
            parts.push(cache.name(&parent, node.ino()).ok_or(Errno::ENOENT)?);
            node = parent;
            continue;
        }
        let mut index = 0;
        let mut name = synth::child_name(&parent, node.ino());
        while name.is_none() {
            let Some((entry, next)) = parent.read_dir(index)? else { break };
            if entry.name != b"." && entry.name != b".." && entry.ino == node.ino() {
                name = Some(entry.name);
            }
            index = next;
        }
        parts.push(name.ok_or(Errno::ENOENT)?);
        node = parent;
    }
    Ok(path_from_names_leaf_first(&parts))
}
/// Truncates `node` to `len` bytes. Mapped pages now wholly past the end
/// are unmapped from every address space, so touching them raises SIGBUS
/// as on Linux instead of reaching the dropped data.
pub fn truncate_file(node: &Arc<dyn Inode>, len: u64) -> Result<()> {
    let old = node.stat()?.size;
    memfd::check_resize(&**node, old, len)?;
    node.truncate(len)?;
    if len < old {
        crate::mm::file_shrunk((node.fs_id(), node.ino()), len);
    }
    Ok(())
}

/// Joins names gathered walking up from a node (leaf first) into the
/// absolute path they spell; "/" when there are none.
pub fn path_from_names_leaf_first<P: AsRef<[u8]>>(parts: &[P]) -> Vec<u8> {
    let mut out = Vec::new();
    for part in parts.iter().rev() {
        out.push(b'/');
        out.extend_from_slice(part.as_ref());
    }
    if out.is_empty() {
        out.push(b'/');
    }
    out
}
