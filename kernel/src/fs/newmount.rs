//! The objects of Linux's new mount API: file-system contexts (fsopen,
//! configured by fsconfig) and detached mount trees (fsmount, open_tree
//! with OPEN_TREE_CLONE), each held by a descriptor until move_mount
//! attaches the tree; and the per-mount attributes mount_setattr changes.
//!
//! A detached tree lives in a namespace of its own that no process is in
//! (Linux's anonymous mount namespace): its mounts have ids like any
//! other, so a walk from the tree's descriptor and mount_setattr on it
//! find them; closing the last descriptor of a tree never attached
//! unmounts it.

use alloc::sync::Arc;
use alloc::vec::Vec;

use kevlar_platform::sync::SpinLock;
use kevlar_vfs::{Inode, MountId, Stat};
use linux_raw_sys::general as abi;

use super::file::{FileOps, OpenFile};
use super::mount::{self, FsKind, Mount, MountNs};
use crate::error::{Errno, Result};

/// Where a file-system context is (Linux's fs_context_phase, as far as
/// the calls can tell).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Phase {
    /// fsopen: taking parameters for a new file system.
    CreateParams,
    /// FSCONFIG_CMD_CREATE made it: fsmount may mount it.
    AwaitingMount,
    /// A command failed: every later call is EBUSY.
    Failed,
    /// fspick: a context on a mounted file system, before its first
    /// command (which clears it for parameters).
    AwaitingReconf,
    /// fspick's context taking parameters for FSCONFIG_CMD_RECONFIGURE.
    ReconfParams,
}

/// A file system made by FSCONFIG_CMD_CREATE.
struct Made {
    name: &'static str,
    root: Arc<dyn Inode>,
    kind: FsKind,
    /// The file system is read-only (a read-only disk, or "ro" given).
    read_only: bool,
}

struct ContextState {
    phase: Phase,
    /// "source" (once only).
    source: Option<Vec<u8>>,
    /// The file system's own parameters, as mount(2)'s data would give
    /// them (`key=value,flag`).
    options: Vec<u8>,
    /// "ro" was given (and not undone by "rw").
    read_only: bool,
    /// "ro" or "rw" was given (a reconfiguration changes the read-only
    /// state only then).
    read_only_given: bool,
    made: Option<Made>,
}

impl ContextState {
    fn new(phase: Phase) -> ContextState {
        ContextState { phase, source: None, options: Vec::new(), read_only: false, read_only_given: false, made: None }
    }
}

/// A file-system context descriptor (fsopen's, or fspick's on a
/// mounted file system).
pub struct FsContextFile {
    /// The file system type, as /proc/filesystems names it.
    fstype: &'static str,
    state: SpinLock<ContextState>,
    /// fspick's: the file system picked.
    picked: Option<FsKind>,
}

/// The generic parameters every file system takes as flags (Linux's
/// vfs_parse_sb_flag); "ro" and "rw" change the read-only state, the
/// others are accepted as Linux accepts them for every type.
const GENERIC_FLAGS: [&[u8]; 10] = [b"ro", b"rw", b"dirsync", b"lazytime", b"nolazytime", b"mand", b"nomand", b"sync", b"async", b"silent"];

/// The string parameters each file system type takes, as its
/// fs_parameter_spec lists them (what mount(2)'s data would carry).
fn string_params(fstype: &str) -> &'static [&'static [u8]] {
    match fstype {
        "tmpfs" => &[b"size", b"nr_blocks", b"nr_inodes", b"mode", b"uid", b"gid"],
        "devpts" => &[b"uid", b"gid", b"mode", b"ptmxmode", b"max"],
        "cgroup2" => &[],
        _ => &[],
    }
}

/// The flag parameters each type takes besides the generic ones.
fn flag_params(fstype: &str) -> &'static [&'static [u8]] {
    match fstype {
        "tmpfs" => &[b"inode64"],
        "cgroup2" => &[b"nsdelegate", b"memory_recursiveprot", b"favordynmods"],
        "devpts" => &[b"newinstance"],
        _ => &[],
    }
}

impl FsContextFile {
    /// fsopen: a context for a new file system of type `name`; ENODEV for
    /// a type the kernel does not know.
    pub fn open(name: &[u8]) -> Result<Arc<FsContextFile>> {
        let fstype = mount::FILESYSTEMS.iter().map(|(n, _)| *n).find(|n| n.as_bytes() == name && *n != "rootfs").ok_or(Errno::ENODEV)?;
        Ok(Arc::new(FsContextFile { fstype, state: SpinLock::new(ContextState::new(Phase::CreateParams)), picked: None }))
    }

    /// fspick: a context for reconfiguring the file system mounted at
    /// `root` (reached through mount `mnt`); EINVAL when `root` is not the
    /// root of that mount.
    pub fn pick(mnt: MountId, root: &Arc<dyn Inode>) -> Result<Arc<FsContextFile>> {
        let m = mount::mount_at(mnt, &**root).ok_or(Errno::EINVAL)?;
        if m.root.fs_id() != root.fs_id() || m.root.ino() != root.ino() {
            return Err(Errno::EINVAL);
        }
        Ok(Arc::new(FsContextFile { fstype: m.fstype, state: SpinLock::new(ContextState::new(Phase::AwaitingReconf)), picked: Some(m.kind) }))
    }

    /// What every fsconfig command does first (Linux's
    /// finish_clean_context): a picked context, new or just reconfigured,
    /// starts taking parameters afresh.
    fn clean(state: &mut ContextState) {
        if state.phase == Phase::AwaitingReconf {
            *state = ContextState::new(Phase::ReconfParams);
        }
    }

    fn params_phase(state: &mut ContextState) -> Result<()> {
        Self::clean(state);
        if state.phase != Phase::CreateParams && state.phase != Phase::ReconfParams {
            return Err(Errno::EBUSY);
        }
        Ok(())
    }

    fn push_option(state: &mut ContextState, key: &[u8], value: Option<&[u8]>) {
        if !state.options.is_empty() {
            state.options.push(b',');
        }
        state.options.extend_from_slice(key);
        if let Some(v) = value {
            state.options.push(b'=');
            state.options.extend_from_slice(v);
        }
    }

    /// FSCONFIG_SET_FLAG `key`.
    pub fn set_flag(&self, key: &[u8]) -> Result<()> {
        let mut state = self.state.lock();
        Self::params_phase(&mut state)?;
        if GENERIC_FLAGS.contains(&key) {
            match key {
                b"ro" => state.read_only = true,
                b"rw" => state.read_only = false,
                _ => {}
            }
            state.read_only_given |= key == b"ro" || key == b"rw";
            return Ok(());
        }
        if key == b"source" {
            return Err(Errno::EINVAL);
        }
        if flag_params(self.fstype).contains(&key) {
            Self::push_option(&mut state, key, None);
            return Ok(());
        }
        Err(Errno::EINVAL)
    }

    /// FSCONFIG_SET_STRING `key`=`value`.
    pub fn set_string(&self, key: &[u8], value: &[u8]) -> Result<()> {
        let mut state = self.state.lock();
        Self::params_phase(&mut state)?;
        if key == b"source" {
            if state.source.is_some() {
                return Err(Errno::EINVAL);
            }
            state.source = Some(value.to_vec());
            return Ok(());
        }
        if string_params(self.fstype).contains(&key) {
            Self::push_option(&mut state, key, Some(value));
            return Ok(());
        }
        Err(Errno::EINVAL)
    }

    /// FSCONFIG_CMD_CREATE: makes the file system (a disk's from the
    /// "source" block device, `disk` being its device number, looked up
    /// by the caller).
    pub fn create(&self, disk: Option<u64>) -> Result<()> {
        let mut state = self.state.lock();
        Self::clean(&mut state);
        if state.phase != Phase::CreateParams {
            return Err(Errno::EBUSY);
        }
        let made = self.make(&state, disk);
        match made {
            Ok(made) => {
                state.made = Some(made);
                state.phase = Phase::AwaitingMount;
                Ok(())
            }
            Err(e) => {
                state.phase = Phase::Failed;
                Err(e)
            }
        }
    }

    fn make(&self, state: &ContextState, disk: Option<u64>) -> Result<Made> {
        if let Some(fstype) = mount::disk_fs_type(self.fstype.as_bytes()) {
            let rdev = disk.ok_or(Errno::EINVAL)?;
            if !state.options.is_empty() {
                return Err(Errno::EINVAL);
            }
            let flags = if state.read_only { abi::MS_RDONLY } else { 0 };
            let (fs, flags) = mount::open_ext2(rdev, flags, fstype)?;
            return Ok(Made { name: fstype, root: fs.root(), kind: FsKind::Ext2(fs), read_only: flags & abi::MS_RDONLY != 0 });
        }
        let (name, root, kind) = mount::make_fs(self.fstype.as_bytes(), &state.options)?;
        Ok(Made { name, root, kind, read_only: state.read_only })
    }

    /// FSCONFIG_CMD_RECONFIGURE on fspick's context: applies the
    /// parameters given since fspick or the last reconfiguration to the
    /// mounted file system (EBUSY on fsopen's context); after a failure
    /// every later command is EBUSY, as after a failed create.
    pub fn reconfigure(&self) -> Result<()> {
        let mut state = self.state.lock();
        Self::clean(&mut state);
        if state.phase != Phase::ReconfParams {
            return Err(Errno::EBUSY);
        }
        match self.apply(&state) {
            Ok(()) => {
                // Linux's vfs_clean_context: ready to be reconfigured again.
                state.phase = Phase::AwaitingReconf;
                Ok(())
            }
            Err(e) => {
                state.phase = Phase::Failed;
                Err(e)
            }
        }
    }

    fn apply(&self, state: &ContextState) -> Result<()> {
        let kind = self.picked.as_ref().ok_or(Errno::EBUSY)?;
        // The read-only state of the file system itself (all its mounts).
        if state.read_only_given {
            let now_read_only = match kind {
                FsKind::Ext2(fs) => fs.is_read_only(),
                _ => false,
            };
            if state.read_only && !now_read_only {
                // Kevlar keeps read-only per mount only (mount_setattr,
                // MS_REMOUNT|MS_BIND); a read-only superblock is not had.
                return Err(Errno::EOPNOTSUPP);
            }
            if !state.read_only && now_read_only {
                if let FsKind::Ext2(fs) = kind {
                    fs.remount_read_write()?;
                }
            }
        }
        match kind {
            FsKind::Tmpfs(fs, _) if !state.options.is_empty() => {
                // mode=, uid= and gid= are taken but change nothing on a
                // remount (Linux applies them at creation only).
                let settings = mount::parse_tmpfs_options(&state.options)?;
                mount::reconfigure_tmpfs(fs, settings.max_pages, settings.max_inodes)
            }
            _ if !state.options.is_empty() => Err(Errno::EINVAL),
            _ => Ok(()),
        }
    }

    /// The file system type's name.
    pub fn fstype(&self) -> &'static str {
        self.fstype
    }

    /// The "source" given, if any.
    pub fn source(&self) -> Option<Vec<u8>> {
        self.state.lock().source.clone()
    }

    /// fsmount: a detached tree of one mount of the file system made,
    /// with MS_* `flags`; EINVAL before FSCONFIG_CMD_CREATE.
    pub fn mount(&self, flags: u32) -> Result<Arc<MountNs>> {
        let state = self.state.lock();
        let made = match (&state.made, state.phase) {
            (Some(made), Phase::AwaitingMount) => made,
            // fspick's context has a file system, never awaiting a mount.
            (None, _) if self.picked.is_some() => return Err(Errno::EBUSY),
            (None, _) => return Err(Errno::EINVAL),
            _ => return Err(Errno::EBUSY),
        };
        let source = state.source.clone().unwrap_or_else(|| b"none".to_vec());
        let flags = if made.read_only { flags | abi::MS_RDONLY } else { flags };
        let m = mount::detached_mount(made.root.clone(), made.name, source, flags, made.kind.clone());
        Ok(MountNs::new_anonymous(alloc::vec![m]))
    }
}

impl FileOps for FsContextFile {
    /// Reading gives the context's messages; Kevlar logs none (ENODATA,
    /// as Linux with an empty log).
    fn read(&self, _file: &OpenFile, _offset: u64, _buf: &mut [u8]) -> Result<usize> {
        Err(Errno::ENODATA)
    }

    fn write(&self, _file: &OpenFile, _offset: u64, _buf: &[u8]) -> Result<usize> {
        Err(Errno::EINVAL)
    }

    fn stat(&self) -> Result<Stat> {
        Ok(super::anon::anon_stat())
    }

    fn is_seekable(&self) -> bool {
        false
    }

    fn as_fs_context(&self) -> Option<&FsContextFile> {
        Some(self)
    }
}

/// A descriptor of a detached tree (fsmount, open_tree's clone): an
/// O_PATH file on the tree's root that keeps the tree while it is
/// detached.
pub struct TreeFile {
    /// Held only: the tree lives (detached) as long as the descriptor.
    _tree: Arc<MountNs>,
    root: Arc<dyn Inode>,
}

impl FileOps for TreeFile {
    fn read(&self, _file: &OpenFile, _offset: u64, _buf: &mut [u8]) -> Result<usize> {
        Err(Errno::EBADF)
    }

    fn write(&self, _file: &OpenFile, _offset: u64, _buf: &[u8]) -> Result<usize> {
        Err(Errno::EBADF)
    }

    fn stat(&self) -> Result<Stat> {
        self.root.stat()
    }

    fn inode(&self) -> Option<Arc<dyn Inode>> {
        Some(self.root.clone())
    }
}

/// Makes the O_PATH descriptor of detached tree `tree` (named `path`).
pub fn tree_file(tree: Arc<MountNs>, path: Vec<u8>) -> Result<Arc<OpenFile>> {
    let (root, id) = {
        let mounts = tree.mounts.lock();
        let first = mounts.first().ok_or(Errno::EINVAL)?;
        (first.root.clone(), first.id)
    };
    let file = OpenFile::new(Arc::new(TreeFile { _tree: tree, root }), abi::O_PATH, path);
    file.set_mount(id);
    Ok(file)
}

/// The namespace holding mount `mnt`: the caller's, or a detached tree's.
/// None for another process's namespace (Linux's check_mnt fails).
fn namespace_of(mnt: MountId) -> Option<(Arc<MountNs>, bool)> {
    let current = mount::current_ns();
    if current.mounts.lock().iter().any(|m| m.id == mnt) {
        return Some((current, false));
    }
    mount::all_namespaces().into_iter().find(|ns| ns.anonymous && ns.mounts.lock().iter().any(|m| m.id == mnt)).map(|ns| (ns, true))
}

/// The ids of mount `id` and, with `recursive`, every mount below it.
fn subtree(mounts: &[Mount], id: u32, recursive: bool) -> Vec<u32> {
    let mut ids = alloc::vec![id];
    let mut i = 0;
    while recursive && i < ids.len() {
        let parent = ids[i];
        ids.extend(mounts.iter().filter(|m| m.parent_id == parent && m.id != parent).map(|m| m.id));
        i += 1;
    }
    ids
}

/// open_tree with OPEN_TREE_CLONE: a private copy of the mount `mnt`
/// reached at directory `node` (the copy's root), with the mounts below it if `recursive` (Linux's
/// copy_tree with CL_PRIVATE), as a detached tree.
pub fn clone_tree(mnt: MountId, node: &Arc<dyn Inode>, recursive: bool) -> Result<Arc<MountNs>> {
    let source = mount::mount_at(mnt, &**node).ok_or(Errno::EINVAL)?;
    let (ns, anonymous) = namespace_of(source.id).ok_or(Errno::EINVAL)?;
    if anonymous && source.on.is_some() {
        return Err(Errno::EINVAL);
    }
    if source.prop.unbindable {
        return Err(Errno::EINVAL);
    }
    let mounts = ns.mounts.lock().clone();
    let mut copies: Vec<Mount> = alloc::vec![mount::detached_mount(node.clone(), source.fstype, source.source.clone(), source.flags, source.kind.clone())];
    if recursive {
        // (old id, new id) of every mount copied.
        let mut ids: Vec<(u32, u32)> = alloc::vec![(source.id, copies[0].id)];
        let mut i = 0;
        while i < ids.len() {
            let (old_parent, new_parent) = ids[i];
            for m in mounts.iter().filter(|m| m.parent_id == old_parent && m.id != old_parent) {
                // The first level must lie below the copied directory (found
                // by inodes: paths are ambiguous with bind mounts); what is
                // mounted inside those goes along whole.
                let rel = match (i, &m.on) {
                    (0, Some(on)) => match path_below(on, node, &source.root) {
                        Some(rel) => Some(rel),
                        None => continue,
                    },
                    _ => None,
                };
                if m.prop.unbindable {
                    continue;
                }
                let mut copy = mount::detached_mount(m.root.clone(), m.fstype, m.source.clone(), m.flags, m.kind.clone());
                copy.on = m.on.clone();
                copy.parent_id = new_parent;
                copy.path = match rel {
                    Some(rel) => rel,
                    // Deeper: its path below its parent's mount point.
                    None => {
                        let parent_path = copies.iter().find(|c| c.id == new_parent).map(|c| c.path.clone()).unwrap_or_default();
                        let parent_old = mounts.iter().find(|p| p.id == old_parent).map(|p| p.path.clone()).unwrap_or_default();
                        let rest = m.path.strip_prefix(parent_old.as_slice()).unwrap_or(&m.path);
                        let mut p = if parent_path == b"/" { Vec::new() } else { parent_path };
                        p.extend_from_slice(rest);
                        if p.is_empty() { b"/".to_vec() } else { p }
                    }
                };
                ids.push((m.id, copy.id));
                copies.push(mount::with_keys(copy));
            }
            i += 1;
        }
    }
    Ok(MountNs::new_anonymous(copies))
}

/// The path of directory `dir` below directory `top` of the same file
/// system ("/" for `top` itself), found by walking up with ".."; None if
/// `stop` (the mount's root) or the file system's root comes first.
pub(super) fn path_below(dir: &Arc<dyn Inode>, top: &Arc<dyn Inode>, stop: &Arc<dyn Inode>) -> Option<Vec<u8>> {
    let mut names: Vec<Vec<u8>> = Vec::new();
    let mut node = dir.clone();
    for _ in 0..4096 {
        if kevlar_vfs::same_inode(&*node, &**top) {
            let mut out = Vec::new();
            for name in names.iter().rev() {
                out.push(b'/');
                out.extend_from_slice(name);
            }
            return Some(if out.is_empty() { b"/".to_vec() } else { out });
        }
        if kevlar_vfs::same_inode(&*node, &**stop) {
            return None;
        }
        let parent = node.lookup(b"..").ok()?;
        if kevlar_vfs::same_inode(&*parent, &*node) {
            return None;
        }
        let mut index = 0;
        let mut name = None;
        while name.is_none() {
            let (entry, next) = parent.read_dir(index).ok()??;
            if entry.name != b"." && entry.name != b".." && entry.ino == node.ino() {
                name = Some(entry.name);
            }
            index = next;
        }
        names.push(name?);
        node = parent;
    }
    None
}

/// move_mount: attaches the tree or mount `mnt` (whose root must be
/// `root`) on directory `on` reached in mount `parent` (absolute path
/// `path`). A detached tree moves whole into the caller's namespace; a
/// mount of the caller's namespace moves as MS_MOVE moves it.
pub fn move_mount(mnt: MountId, root: &Arc<dyn Inode>, parent: MountId, on: Arc<dyn Inode>, path: Vec<u8>) -> Result<()> {
    let Some((ns, anonymous)) = namespace_of(mnt) else {
        return Err(Errno::EINVAL);
    };
    // The mount point must be in the caller's namespace.
    if parent != kevlar_vfs::NO_MOUNT && !mount::current_ns().mounts.lock().iter().any(|m| m.id == parent) {
        return Err(Errno::EINVAL);
    }
    if root.file_type().is_dir() != on.file_type().is_dir() {
        return Err(Errno::EINVAL);
    }
    if !anonymous {
        return mount::move_mount_at(mnt, root, parent, on, path);
    }
    // The whole tree joins the caller's namespace (Linux's count_mounts).
    mount::check_room(&mount::current_ns(), ns.count())?;
    let mut taken = {
        let mut mounts = ns.mounts.lock();
        let index = mount::index_of_mount(&mounts, mnt, root).ok_or(Errno::EINVAL)?;
        // Only the root of a detached tree moves.
        if index != 0 {
            return Err(Errno::EINVAL);
        }
        let taken = core::mem::take(&mut *mounts);
        ns.update_filters(&mounts);
        taken
    };
    let mut top = taken.remove(0);
    top.parent_id = mount::parent_id_of(parent, &*on);
    top.on = Some(on);
    // The inner mounts' paths were relative to the tree's root.
    for m in taken.iter_mut() {
        m.path = if path == b"/" {
            m.path.clone()
        } else if m.path == b"/" {
            path.clone()
        } else {
            let mut p = path.clone();
            p.extend_from_slice(&m.path);
            p
        };
    }
    top.path = path;
    mount::add(top);
    let current = mount::current_ns();
    let mut mounts = current.mounts.lock();
    for m in taken {
        mounts.push(mount::with_keys(m));
    }
    current.update_filters(&mounts);
    Ok(())
}

/// mount_setattr: on mount `mnt` (whose root must be `root`), and with
/// `recursive` every mount below it, clears MS_* flags `clear`, sets
/// `set`, then applies propagation `propagation` (one of MS_SHARED,
/// MS_PRIVATE, MS_SLAVE, MS_UNBINDABLE; 0 for none).
pub fn set_attr(mnt: MountId, root: &Arc<dyn Inode>, set: u32, clear: u32, propagation: u32, recursive: bool) -> Result<()> {
    let Some((ns, anonymous)) = namespace_of(mnt) else {
        return Err(Errno::EINVAL);
    };
    {
        let mut mounts = ns.mounts.lock();
        let index = mount::index_of_mount(&mounts, mnt, root).ok_or(Errno::EINVAL)?;
        // Of a detached tree, only the root (Linux's is_anon_ns check for
        // a mount without a parent; an inner one fails check_mnt).
        if anonymous && index != 0 {
            return Err(Errno::EINVAL);
        }
        let ids = subtree(&mounts, mounts[index].id, recursive);
        for m in mounts.iter_mut().filter(|m| ids.contains(&m.id)) {
            m.flags = ((m.flags & !clear) | set) & mount::MOUNT_FLAGS_SETATTR;
        }
        ns.update_filters(&mounts);
    }
    if propagation != 0 {
        super::propagation::set_propagation_at(&ns, mnt, root, propagation, recursive)?;
    }
    Ok(())
}
