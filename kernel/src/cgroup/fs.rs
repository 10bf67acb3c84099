//! The cgroup2 file system: a directory per cgroup with its files
//! (`files.rs`), mkdir and rmdir making and removing cgroups, and open
//! files that poll as Linux's kernfs files do (POLLPRI and POLLERR once
//! a notifying file changed since it was last read).

use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::any::Any;
use core::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use kevlar_platform::sync::SpinLock;
use kevlar_vfs::{Credentials, DirEntry, FileType, Inode, SetAttr, Stat};

use super::files::{self, FILES};
use super::{Cgroup, Notifier};
use crate::error::{Errno, Result};
use crate::fs::file::{FileOps, OpenFile, PollEvents, POLLERR, POLLIN, POLLOUT, POLLRDNORM, POLLWRNORM};

/// The file system's device number, made at the first mount.
static FS_ID: SpinLock<Option<u64>> = SpinLock::new(None);

/// Mount options: nsdelegate, memory_localevents, memory_recursiveprot.
static OPTIONS: AtomicU32 = AtomicU32::new(0);
const OPTION_NAMES: [&str; 3] = ["nsdelegate", "memory_localevents", "memory_recursiveprot"];

fn fs_id() -> u64 {
    *FS_ID.lock().get_or_insert_with(crate::fs::mount::anon_dev)
}

/// Mounts the hierarchy (every mount shows the one tree): returns its
/// root directory. `data` holds the options; an unknown one is EINVAL.
pub fn mount(data: &[u8]) -> Result<Arc<dyn Inode>> {
    let mut options = 0;
    for option in data.split(|&b| b == b',').filter(|o| !o.is_empty()) {
        let index = OPTION_NAMES.iter().position(|n| n.as_bytes() == option).ok_or(Errno::EINVAL)?;
        options |= 1 << index;
    }
    OPTIONS.store(options, Ordering::Relaxed);
    Ok(dir_node(&super::root()))
}

/// The options /proc/mounts shows after the mount's own.
pub fn options_text() -> String {
    let options = OPTIONS.load(Ordering::Relaxed);
    let names: Vec<&str> = OPTION_NAMES.iter().enumerate().filter(|(i, _)| options & (1 << i) != 0).map(|(_, n)| *n).collect();
    names.join(",")
}

fn dir_ino(cg: &Cgroup) -> u64 {
    cg.id << 8
}

fn file_ino(cg: &Cgroup, index: usize) -> u64 {
    (cg.id << 8) + index as u64 + 1
}

fn dir_node(cg: &Arc<Cgroup>) -> Arc<dyn Inode> {
    Arc::new(CgDir { cg: cg.clone() })
}

/// The cgroup a directory of this file system is (CLONE_INTO_CGROUP's
/// descriptor), None for any other node.
pub fn cgroup_of_dir(node: &Arc<dyn Inode>) -> Option<Arc<Cgroup>> {
    node.as_any().downcast_ref::<CgDir>().map(|d| d.cg.clone())
}

fn stat_of(cg: &Cgroup, ino: u64, mode: u32, uid: u32, gid: u32, nlink: u32) -> Stat {
    Stat { dev: fs_id(), ino, mode, nlink, uid, gid, rdev: 0, size: 0, blksize: 4096, blocks: 0, atime: cg.created, mtime: cg.created, ctime: cg.created }
}

/// The attributes of file `index` of `cg`.
pub fn file_stat(cg: &Cgroup, index: usize) -> Stat {
    let st = cg.state.lock();
    let (uid, gid, perm) = match st.file_attrs.iter().find(|a| a.0 == index) {
        Some(&(_, uid, gid, mode)) => (uid, gid, mode),
        None => (st.uid, st.gid, FILES[index].mode),
    };
    drop(st);
    stat_of(cg, file_ino(cg, index), FileType::Regular.mode_bits() | perm, uid, gid, 1)
}

/// A cgroup's directory.
pub struct CgDir {
    cg: Arc<Cgroup>,
}

impl Inode for CgDir {
    fn fs_id(&self) -> u64 {
        fs_id()
    }

    fn ino(&self) -> u64 {
        dir_ino(&self.cg)
    }

    fn file_type(&self) -> FileType {
        FileType::Directory
    }

    fn stat(&self) -> Result<Stat> {
        let st = self.cg.state.lock();
        let (uid, gid, mode, children) = (st.uid, st.gid, st.mode, st.children.len() as u32);
        drop(st);
        Ok(stat_of(&self.cg, dir_ino(&self.cg), FileType::Directory.mode_bits() | mode, uid, gid, 2 + children))
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn set_attr(&self, attr: &SetAttr) -> Result<()> {
        let mut st = self.cg.state.lock();
        if let Some(mode) = attr.mode {
            st.mode = mode & 0o7777;
        }
        if let Some(uid) = attr.uid {
            st.uid = uid;
        }
        if let Some(gid) = attr.gid {
            st.gid = gid;
        }
        Ok(())
    }

    fn lookup(&self, name: &[u8]) -> Result<Arc<dyn Inode>> {
        match name {
            b"." => return Ok(dir_node(&self.cg)),
            b".." => return Ok(dir_node(self.cg.parent().unwrap_or(&self.cg))),
            _ => {}
        }
        if self.cg.is_removed() {
            return Err(Errno::ENOENT);
        }
        if let Some(index) = files::find(&self.cg, name) {
            return Ok(Arc::new(CgFile { cg: self.cg.clone(), index }));
        }
        self.cg.child(name).map(|c| dir_node(&c)).ok_or(Errno::ENOENT)
    }

    fn read_dir(&self, index: usize) -> Result<Option<(DirEntry, usize)>> {
        match index {
            0 => return Ok(Some((DirEntry { ino: dir_ino(&self.cg), file_type: FileType::Directory, name: b".".to_vec() }, 1))),
            1 => {
                let parent = self.cg.parent().unwrap_or(&self.cg);
                return Ok(Some((DirEntry { ino: dir_ino(parent), file_type: FileType::Directory, name: b"..".to_vec() }, 2)));
            }
            _ => {}
        }
        if self.cg.is_removed() {
            return Ok(None);
        }
        let mut i = index - 2;
        while i < FILES.len() {
            if files::exists(&self.cg, &FILES[i]) {
                let entry = DirEntry { ino: file_ino(&self.cg, i), file_type: FileType::Regular, name: FILES[i].name.to_vec() };
                return Ok(Some((entry, i + 3)));
            }
            i += 1;
        }
        let children = self.cg.state.lock().children.clone();
        Ok(children.get(i - FILES.len()).map(|c| (DirEntry { ino: dir_ino(c), file_type: FileType::Directory, name: c.name().to_vec() }, i + 3)))
    }

    fn create(&self, name: &[u8], file_type: FileType, mode: u32, uid: u32, gid: u32, _rdev: u64) -> Result<Arc<dyn Inode>> {
        match file_type {
            FileType::Directory => {
                let cg = super::make(&self.cg, name, uid, gid, mode & 0o7777)?;
                Ok(dir_node(&cg))
            }
            // Linux's kernfs has no create (open with O_CREAT: EACCES)
            // nor mknod (EPERM).
            FileType::Regular => Err(Errno::EACCES),
            _ => Err(Errno::EPERM),
        }
    }

    fn rmdir(&self, name: &[u8]) -> Result<()> {
        super::remove(&self.cg, name)
    }

    fn unlink(&self, name: &[u8]) -> Result<()> {
        let _ = name;
        Err(Errno::EPERM)
    }
}

/// One file of a cgroup.
pub struct CgFile {
    cg: Arc<Cgroup>,
    index: usize,
}

impl Inode for CgFile {
    fn fs_id(&self) -> u64 {
        fs_id()
    }

    fn ino(&self) -> u64 {
        file_ino(&self.cg, self.index)
    }

    fn file_type(&self) -> FileType {
        FileType::Regular
    }

    fn stat(&self) -> Result<Stat> {
        Ok(file_stat(&self.cg, self.index))
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn set_attr(&self, attr: &SetAttr) -> Result<()> {
        if attr.size.is_some() && attr.mode.is_none() && attr.uid.is_none() && attr.gid.is_none() {
            // `echo x > file` truncates first: kernfs lets that be.
            return Ok(());
        }
        let current = file_stat(&self.cg, self.index);
        let mut st = self.cg.state.lock();
        let entry = (self.index, attr.uid.unwrap_or(current.uid), attr.gid.unwrap_or(current.gid), attr.mode.map_or(current.mode & 0o7777, |m| m & 0o7777));
        st.file_attrs.retain(|a| a.0 != self.index);
        st.file_attrs.push(entry);
        Ok(())
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<usize> {
        let text = files::read(&self.cg, FILES[self.index].file)?;
        let start = usize::try_from(offset).unwrap_or(usize::MAX).min(text.len());
        let n = (text.len() - start).min(buf.len());
        buf[..n].copy_from_slice(&text[start..start + n]);
        Ok(n)
    }

    fn truncate(&self, _len: u64) -> Result<()> {
        Ok(())
    }
}

/// Opens `node` if it is a cgroup file: ENODEV once its cgroup is
/// removed.
pub fn open(node: &Arc<dyn Inode>, read: bool, write: bool, cred: &Credentials) -> Option<Result<Arc<dyn FileOps>>> {
    let file = node.as_any().downcast_ref::<CgFile>()?;
    // Every cgroup file opens both ways (reading cgroup.kill or writing
    // cgroup.controllers then fails with EINVAL).
    let _ = (read, write);
    if file.cg.is_removed() {
        return Some(Err(Errno::ENODEV));
    }
    let node = Arc::new(CgFile { cg: file.cg.clone(), index: file.index });
    Some(Ok(Arc::new(CgOpenFile { node, cred: cred.clone(), text: SpinLock::new(None), seen: AtomicU64::new(0) })))
}

/// An open cgroup file: the text of the read at offset 0 serves the reads
/// after it; the opener's credentials judge its writes.
struct CgOpenFile {
    node: Arc<CgFile>,
    cred: Credentials,
    text: SpinLock<Option<Arc<Vec<u8>>>>,
    /// The notifying file's change count at the last read (0: never read,
    /// which polls as changed, as kernfs's).
    seen: AtomicU64,
}

impl CgOpenFile {
    fn def(&self) -> &'static files::Def {
        &FILES[self.node.index]
    }
}

impl FileOps for CgOpenFile {
    fn read(&self, _file: &OpenFile, offset: u64, buf: &mut [u8]) -> Result<usize> {
        let cg = &self.node.cg;
        if cg.is_removed() {
            return Err(Errno::ENODEV);
        }
        let cached = if offset == 0 { None } else { self.text.lock().clone() };
        let text = match cached {
            Some(text) => text,
            None => {
                let seq = files::notifier(self.def().file).map(|which| cg.seq[which as usize].load(Ordering::Acquire));
                let text = Arc::new(files::read(cg, self.def().file)?);
                // kernfs's counter is taken when a record is shown: a
                // file read empty (cgroup.procs of an empty cgroup) keeps
                // polling as changed.
                if !text.is_empty() {
                    self.seen.store(seq.unwrap_or(1), Ordering::Release);
                }
                *self.text.lock() = Some(text.clone());
                text
            }
        };
        let start = usize::try_from(offset).unwrap_or(usize::MAX).min(text.len());
        let n = (text.len() - start).min(buf.len());
        buf[..n].copy_from_slice(&text[start..start + n]);
        Ok(n)
    }

    fn write(&self, _file: &OpenFile, _offset: u64, buf: &[u8]) -> Result<usize> {
        let cg = &self.node.cg;
        if cg.is_removed() {
            return Err(Errno::ENODEV);
        }
        files::write(cg, self.def().file, buf, &self.cred)?;
        Ok(buf.len())
    }

    fn stat(&self) -> Result<Stat> {
        Ok(file_stat(&self.node.cg, self.node.index))
    }

    fn poll(&self) -> PollEvents {
        let base = POLLIN | POLLOUT | POLLRDNORM | POLLWRNORM;
        let changed = match files::notifier(self.def().file) {
            Some(which) => self.node.cg.seq[which as usize].load(Ordering::Acquire) != self.seen.load(Ordering::Acquire),
            // A file that never notifies: changed until a read showed
            // something.
            None => self.seen.load(Ordering::Acquire) == 0,
        };
        if changed { base | POLLERR | linux_raw_sys::general::POLLPRI as PollEvents } else { base }
    }

    fn poll_queue(&self) -> Option<&crate::fs::poll_queue::PollQueue> {
        Some(&self.node.cg.queue)
    }

    fn is_pollable(&self) -> bool {
        true
    }

    fn poll_counts(&self) -> (u64, u64) {
        let seq = files::notifier(self.def().file).map_or(0, |w| self.node.cg.seq[w as usize].load(Ordering::Acquire));
        (seq, 0)
    }

    fn inode(&self) -> Option<Arc<dyn Inode>> {
        Some(self.node.clone())
    }
}

/// Tells inotify that the notifying file `which` of `cg` was modified.
pub fn notify_modified(cg: &Arc<Cgroup>, which: Notifier) {
    let node = CgFile { cg: cg.clone(), index: files::notifier_index(which) };
    // IN_MODIFY without an open file (the same event a truncate gives).
    crate::fs::notify::truncated(&node);
}
