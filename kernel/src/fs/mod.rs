//! Files: the mount table, path lookup for processes, opening files by
//! path.

pub mod devices;
pub mod fdtable;
pub mod file;
pub mod initramfs;
pub mod locks;
pub mod pipe;

use alloc::sync::Arc;
use alloc::vec::Vec;

use kevlar_platform::sync::SpinLock;
use kevlar_vfs::{MountTable, OpenLookup, ParentLookup, WalkContext, WalkFlags};
use kevlar_vfs::{FileType, Inode};
use linux_raw_sys::general as abi;

pub use fdtable::FdTable;
use file::{InodeFile, OpenFile};

use crate::error::{Errno, Result};

/// Mounted filesystems: (the directory mounted on, the mounted root).
static MOUNTS: SpinLock<Vec<(Arc<dyn Inode>, Arc<dyn Inode>, &'static str)>> = SpinLock::new(Vec::new());

struct KernelMounts;

impl MountTable for KernelMounts {
    fn mounted_at(&self, dir: &Arc<dyn Inode>) -> Option<Arc<dyn Inode>> {
        MOUNTS.lock().iter().rev().find(|(on, _, _)| kevlar_vfs::same_inode(&**on, &**dir)).map(|(_, root, _)| root.clone())
    }

    fn mount_parent(&self, root_of_mounted: &Arc<dyn Inode>) -> Option<Arc<dyn Inode>> {
        MOUNTS.lock().iter().rev().find(|(_, root, _)| kevlar_vfs::same_inode(&**root, &**root_of_mounted)).map(|(on, _, _)| on.clone())
    }
}

/// Mounts `root` (the root of a filesystem called `fs_name`) on the
/// directory `on`; the newest mount on a directory hides older ones.
pub fn mount(on: Arc<dyn Inode>, root: Arc<dyn Inode>, fs_name: &'static str) {
    MOUNTS.lock().push((on, root, fs_name));
}

/// A process's view of the file tree.
#[derive(Clone)]
pub struct FsContext {
    /// The root directory.
    pub root: Arc<dyn Inode>,
    /// The working directory.
    pub cwd: Arc<dyn Inode>,
    /// The working directory's absolute path (lexically normalised).
    pub cwd_path: Vec<u8>,
    /// The file-creation mask.
    pub umask: u32,
}

impl FsContext {
    /// Creates a context rooted (and working) at `root`.
    pub fn new(root: Arc<dyn Inode>) -> Self {
        Self { cwd: root.clone(), root, cwd_path: b"/".to_vec(), umask: 0o022 }
    }

    fn walk_context<'a>(&'a self, cred: &'a kevlar_vfs::Credentials) -> WalkContext<'a> {
        WalkContext { root: &self.root, cwd: &self.cwd, mounts: &KernelMounts, cred: Some(cred) }
    }

    /// Resolves `path` relative to `start` (None: the cwd).
    pub fn lookup(&self, cred: &kevlar_vfs::Credentials, start: Option<&Arc<dyn Inode>>, path: &[u8], flags: WalkFlags) -> Result<Arc<dyn Inode>> {
        Ok(kevlar_vfs::walk(&self.walk_context(cred), start, path, flags)?)
    }

    /// Resolves all but the last component of `path`.
    pub fn lookup_parent(&self, cred: &kevlar_vfs::Credentials, start: Option<&Arc<dyn Inode>>, path: &[u8]) -> Result<ParentLookup> {
        Ok(kevlar_vfs::walk_parent(&self.walk_context(cred), start, path)?)
    }

    /// Resolves `path` for open(2): the node, or its parent and name.
    pub fn lookup_open(&self, cred: &kevlar_vfs::Credentials, start: Option<&Arc<dyn Inode>>, path: &[u8], flags: WalkFlags) -> Result<OpenLookup> {
        Ok(kevlar_vfs::walk_open(&self.walk_context(cred), start, path, flags)?)
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
    let mut walk_flags = WalkFlags::EMPTY;
    if flags & abi::O_NOFOLLOW != 0 || (flags & abi::O_CREAT != 0 && flags & abi::O_EXCL != 0) {
        walk_flags = walk_flags | WalkFlags::NOFOLLOW;
    }
    if flags & abi::O_DIRECTORY != 0 {
        walk_flags = walk_flags | WalkFlags::DIRECTORY;
    }
    let node = match fs.lookup_open(cred, start, path, walk_flags)? {
        OpenLookup::Found(node) => {
            if flags & abi::O_CREAT != 0 && flags & abi::O_EXCL != 0 {
                return Err(Errno::EEXIST);
            }
            node
        }
        OpenLookup::Missing { dir, name, trailing_slash } => {
            if flags & abi::O_CREAT == 0 {
                return Err(Errno::ENOENT);
            }
            if trailing_slash {
                return Err(Errno::EISDIR);
            }
            kevlar_vfs::check_access(&dir.stat()?, cred, kevlar_vfs::Access::WRITE | kevlar_vfs::Access::EXEC)?;
            dir.create(&name, FileType::Regular, mode & 0o7777 & !fs.umask, cred.uid, cred.gid, 0)?
        }
    };
    let file_type = node.file_type();
    if flags & abi::O_PATH != 0 {
        // O_PATH: a handle for *at() calls, fstat, fchdir; no I/O.
        let abs = FsContext::absolute(&fs.cwd_path, path);
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
    kevlar_vfs::check_access(&stat, cred, want)?;
    // O_TRUNC truncates even with O_RDONLY (unspecified by POSIX; Linux
    // does), provided the caller may write.
    if flags & abi::O_TRUNC != 0 && file_type == FileType::Regular {
        kevlar_vfs::check_access(&stat, cred, kevlar_vfs::Access::WRITE)?;
        node.truncate(0)?;
    }
    let abs = FsContext::absolute(&fs.cwd_path, path);
    let ops: Arc<dyn file::FileOps> = match file_type {
        FileType::CharDevice => {
            let rdev = stat.rdev;
            let (major, minor) = (((rdev >> 8) & 0xfff) as u32, ((rdev & 0xff) | ((rdev >> 12) & 0xfff00)) as u32);
            match crate::tty::open(major, minor, &stat, flags)? {
                Some(terminal) => terminal,
                None => devices::DeviceKind::from_rdev(major, minor).ok_or(Errno::ENXIO)?.open(stat),
            }
        }
        FileType::Fifo => return open_fifo(&node, flags, abs),
        FileType::BlockDevice | FileType::Socket => return Err(Errno::ENXIO),
        _ => InodeFile::new(node),
    };
    Ok(OpenFile::new(ops, flags & !(abi::O_CREAT | abi::O_EXCL | abi::O_TRUNC | abi::O_CLOEXEC), abs))
}

/// FIFOs: the pipe behind each FIFO inode, created on first open.
static FIFOS: SpinLock<Vec<(Arc<dyn Inode>, Arc<pipe::Pipe>)>> = SpinLock::new(Vec::new());

fn open_fifo(node: &Arc<dyn Inode>, flags: u32, path: Vec<u8>) -> Result<Arc<OpenFile>> {
    let pipe = {
        let mut fifos = FIFOS.lock();
        fifos.retain(|(_, p)| Arc::strong_count(p) > 1);
        match fifos.iter().find(|(n, _)| kevlar_vfs::same_inode(&**n, &**node)) {
            Some((_, p)) => p.clone(),
            None => {
                let p = pipe::Pipe::new();
                fifos.push((node.clone(), p.clone()));
                p
            }
        }
    };
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

/// Returns the real absolute path of the working directory, found by
/// walking `..` up to the root and looking up each directory's name in its
/// parent (so a chdir through a symlink reports the target, as Linux).
pub fn real_path(fs: &FsContext) -> Result<Vec<u8>> {
    let mut parts: Vec<Vec<u8>> = Vec::new();
    let mut node = fs.cwd.clone();
    for _ in 0..256 {
        if kevlar_vfs::same_inode(&*node, &*fs.root) {
            break;
        }
        // At the root of a mounted filesystem, continue from the mount
        // point in the parent filesystem.
        if let Some(on) = KernelMounts.mount_parent(&node) {
            if kevlar_vfs::same_inode(&*KernelMounts.mounted_at(&on).unwrap_or(on.clone()), &*node) {
                node = on;
                continue;
            }
        }
        let parent = node.lookup(b"..")?;
        let mut index = 0;
        let mut name = None;
        while let Some((entry, next)) = parent.read_dir(index)? {
            if entry.name != b"." && entry.name != b".." && entry.ino == node.ino() {
                name = Some(entry.name.clone());
                break;
            }
            index = next;
        }
        parts.push(name.ok_or(Errno::ENOENT)?);
        node = parent;
    }
    let mut out = Vec::new();
    for part in parts.iter().rev() {
        out.push(b'/');
        out.extend_from_slice(part);
    }
    if out.is_empty() {
        out.push(b'/');
    }
    Ok(out)
}
