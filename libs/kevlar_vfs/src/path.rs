//! Path resolution with Linux semantics (see `path_resolution(7)`).
//!
//! A path is walked one component at a time from the process root (absolute
//! paths) or a start directory (relative paths):
//!
//! - an empty path fails with ENOENT (unless [`WalkFlags::EMPTY_PATH`]);
//!   a path of [`PATH_MAX`] bytes or more, or a component longer than
//!   [`NAME_MAX`], fails with ENAMETOOLONG;
//! - repeated slashes count as one; a trailing slash requires the final node
//!   to be a directory (ENOTDIR) and makes a final symlink be followed even
//!   with [`WalkFlags::NOFOLLOW`];
//! - every directory a component is looked up in must be a directory
//!   (ENOTDIR) and, when credentials are given, searchable (EACCES);
//! - `.` stays; `..` goes to the parent, except at the process root, where it
//!   stays, and at the root of a mounted file system, where it first moves to
//!   the directory the file system is mounted on;
//! - a name with a file system mounted on it resolves to that file system's
//!   root (repeatedly, for stacked mounts);
//! - symlinks are followed in the middle of a path always and at the end
//!   unless [`WalkFlags::NOFOLLOW`]; relative targets continue from the
//!   directory holding the link, absolute ones from the process root; an
//!   empty target gives ENOENT; more than [`MAX_SYMLINK_FOLLOWS`] links in
//!   one walk give ELOOP.
//!
//! Three entry points share this engine: [`walk`] resolves a whole path,
//! [`walk_parent`] stops before the last component (for mkdir, unlink,
//! rename, ...), and [`walk_open`] resolves a path that may name a file
//! still to be created (open with `O_CREAT`).

use alloc::borrow::Cow;
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::ops::BitOr;
use linux_raw_sys::general as g;

use crate::errno::{Errno, Result};
use crate::inode::{same_inode, Inode};
use crate::perm::{check_access, Access, Credentials};
use crate::types::FileType;

/// Longest file-name component, in bytes.
pub const NAME_MAX: usize = g::NAME_MAX as usize;

/// Size of the buffer a path is copied into, counting its terminating NUL:
/// a usable path is at most `PATH_MAX - 1` bytes.
pub const PATH_MAX: usize = g::PATH_MAX as usize;

/// Symlinks one walk may follow before failing with ELOOP (Linux's
/// `MAXSYMLINKS`, a kernel constant rather than part of the ABI headers).
pub const MAX_SYMLINK_FOLLOWS: u32 = 40;

/// Mounts one crossing passes before the walker asks the table how many
/// it may pass ([`MountTable::max_crossings`]).
const FEW_CROSSINGS: u32 = 1024;


/// An iterator over the non-empty components of a path (repeated, leading
/// and trailing slashes produce nothing).
#[derive(Clone, Debug)]
pub struct Components<'a> {
    rest: &'a [u8],
}

impl<'a> Iterator for Components<'a> {
    type Item = &'a [u8];

    fn next(&mut self) -> Option<&'a [u8]> {
        let start = self.rest.iter().position(|&b| b != b'/')?;
        let rest = &self.rest[start..];
        let end = rest.iter().position(|&b| b == b'/').unwrap_or(rest.len());
        self.rest = &rest[end..];
        Some(&rest[..end])
    }
}

/// Splits `path` into its components, skipping empty ones.
pub fn split_components(path: &[u8]) -> Components<'_> {
    Components { rest: path }
}

/// Tells whether `path` has a component followed by a slash at its end,
/// which requires the component to name a directory.
pub fn has_trailing_slash(path: &[u8]) -> bool {
    path.last() == Some(&b'/') && path.iter().any(|&b| b != b'/')
}

/// The mounts a walk may cross; implemented by the kernel's mount table.
///
/// Mounts are identified by inodes: `mounted_at` maps a directory covered by
/// a mount to the mounted root, and `mount_parent` maps it back. A directory
/// bind-mounted in two places is therefore ambiguous for `..`; the table
/// decides which mount point it reports.
pub trait MountTable {
    /// Returns the root of the file system mounted on `dir`, if any.
    fn mounted_at(&self, dir: &Arc<dyn Inode>) -> Option<Arc<dyn Inode>>;

    /// Returns the directory `root_of_mounted` is mounted on, if it is the
    /// root of a mounted file system (not the namespace's root).
    fn mount_parent(&self, root_of_mounted: &Arc<dyn Inode>) -> Option<Arc<dyn Inode>>;

    /// Mount-aware crossing (Linux's `lookup_mnt` of a (vfsmount, dentry)
    /// pair): the mount made on directory `dir` as seen in mount `mnt`
    /// ([`NO_MOUNT`]: not known), as its root and id. The default knows no
    /// ids and asks [`MountTable::mounted_at`].
    fn mounted_on(&self, _mnt: MountId, dir: &Arc<dyn Inode>) -> Option<(Arc<dyn Inode>, MountId)> {
        self.mounted_at(dir).map(|root| (root, NO_MOUNT))
    }

    /// If `root` is the root of mount `mnt` ([`NO_MOUNT`]: not known):
    /// the directory that mount covers and the mount holding that
    /// directory. The default asks [`MountTable::mount_parent`].
    fn mount_point_of(&self, _mnt: MountId, root: &Arc<dyn Inode>) -> Option<(Arc<dyn Inode>, MountId)> {
        self.mount_parent(root).map(|on| (on, NO_MOUNT))
    }

    /// Tells whether mount `mnt` refuses to follow symlinks (Linux's
    /// MNT_NOSYMFOLLOW: following one of its links fails with ELOOP).
    fn no_symlinks(&self, _mnt: MountId) -> bool {
        false
    }

    /// How many mounts one crossing (into stacked mounts, or out of them
    /// for `..`) may pass before the walk gives up with ELOOP: only a
    /// cycle in a corrupt table reaches it, so a table says how many
    /// mounts it has (a stack may be as high as fs.mount-max allows).
    fn max_crossings(&self) -> u32 {
        1024
    }

    /// Tells whether trailing symlinks in sticky world-writable
    /// directories are followed only by their owner or the directory's
    /// (Linux's fs.protected_symlinks).
    fn protected_symlinks(&self) -> bool {
        false
    }
}

/// A mount's id as the table numbers it (Linux's mount id); a walk carries
/// the mount it is in beside the node, as Linux's path is a (vfsmount,
/// dentry) pair, so per-mount state (flags of bind mounts) is the mount's.
pub type MountId = u32;

/// The mount a node is in is not known (the table falls back to finding
/// mounts by their inodes).
pub const NO_MOUNT: MountId = 0;

/// A mount table with no mounts, for single-file-system use and tests.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoMounts;

impl MountTable for NoMounts {
    fn mounted_at(&self, _dir: &Arc<dyn Inode>) -> Option<Arc<dyn Inode>> {
        None
    }

    fn mount_parent(&self, _root_of_mounted: &Arc<dyn Inode>) -> Option<Arc<dyn Inode>> {
        None
    }
}

/// The per-process state a walk needs.
#[derive(Clone, Copy)]
pub struct WalkContext<'a> {
    /// The process root (`chroot`): where absolute paths start and `..` stops.
    pub root: &'a Arc<dyn Inode>,
    /// The current directory, where relative paths start by default.
    pub cwd: &'a Arc<dyn Inode>,
    /// The mount `root` is in ([`NO_MOUNT`]: not known).
    pub root_mnt: MountId,
    /// The mount `cwd` is in ([`NO_MOUNT`]: not known).
    pub cwd_mnt: MountId,
    /// The mounts to cross.
    pub mounts: &'a dyn MountTable,
    /// Credentials for search-permission checks; `None` skips them (kernel
    /// internal lookups).
    pub cred: Option<&'a Credentials>,
}

/// Options of a walk.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct WalkFlags(u32);

impl WalkFlags {
    /// No options: follow a final symlink.
    pub const EMPTY: WalkFlags = WalkFlags(0);
    /// Do not follow a symlink in the last component (`O_NOFOLLOW`,
    /// `AT_SYMLINK_NOFOLLOW`, `lstat`); a trailing slash overrides it.
    pub const NOFOLLOW: WalkFlags = WalkFlags(1 << 0);
    /// Require the result to be a directory (`O_DIRECTORY`), else ENOTDIR.
    pub const DIRECTORY: WalkFlags = WalkFlags(1 << 1);
    /// Let an empty path name the start node itself (`AT_EMPTY_PATH`).
    pub const EMPTY_PATH: WalkFlags = WalkFlags(1 << 2);
    /// Cross no mount point, down or up (openat2's `RESOLVE_NO_XDEV`):
    /// EXDEV.
    pub const NO_XDEV: WalkFlags = WalkFlags(1 << 3);
    /// Follow no magic link (`RESOLVE_NO_MAGICLINKS`): ELOOP.
    pub const NO_MAGICLINKS: WalkFlags = WalkFlags(1 << 4);
    /// Follow no symlink at all (`RESOLVE_NO_SYMLINKS`): ELOOP.
    pub const NO_SYMLINKS: WalkFlags = WalkFlags(1 << 5);
    /// Stay below the start directory (`RESOLVE_BENEATH`): an absolute
    /// path or symlink, a `..` above the start or a magic link is EXDEV.
    pub const BENEATH: WalkFlags = WalkFlags(1 << 6);
    /// Take the start directory as the root (`RESOLVE_IN_ROOT`): absolute
    /// paths and symlinks start there, `..` stops there; a magic link is
    /// EXDEV.
    pub const IN_ROOT: WalkFlags = WalkFlags(1 << 7);

    /// Tells whether every option in `other` is set.
    pub const fn contains(self, other: WalkFlags) -> bool {
        self.0 & other.0 == other.0
    }
}

impl BitOr for WalkFlags {
    type Output = WalkFlags;

    fn bitor(self, rhs: WalkFlags) -> WalkFlags {
        WalkFlags(self.0 | rhs.0)
    }
}

impl WalkFlags {
    /// Tells whether any option in `other` is set.
    pub const fn intersects(self, other: WalkFlags) -> bool {
        self.0 & other.0 != 0
    }
}

/// The last component of a path resolved by [`walk_parent`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LastComponent {
    /// An ordinary name.
    Normal(Vec<u8>),
    /// `.`
    Dot,
    /// `..`
    DotDot,
    /// The path was only slashes: it names the root, which has no parent entry.
    Root,
}

/// The directory holding a path's last component, and that component.
#[derive(Clone)]
pub struct ParentLookup {
    /// The directory the last component is (or would be) an entry of;
    /// for [`LastComponent::Root`], the process root.
    pub dir: Arc<dyn Inode>,
    /// The last component.
    pub last: LastComponent,
    /// Whether the path ended with a slash after the last component.
    pub trailing_slash: bool,
    /// Whether reaching `dir` followed a symlink (or a magic link): when
    /// not, and the path is absolute and plain (no `.`, `..` or empty
    /// components), the path up to its last component names `dir` from
    /// the root as written.
    pub followed_links: bool,
    /// The mount `dir` is in ([`NO_MOUNT`]: not known).
    pub mnt: MountId,
}

impl ParentLookup {
    fn normal_name(&self) -> Option<&[u8]> {
        match &self.last {
            LastComponent::Normal(name) => Some(name),
            _ => None,
        }
    }

    /// Returns the name for creating a non-directory (mknod, symlink, the new
    /// name of link). `.`, `..` and `/` exist, so they give EEXIST; with a
    /// trailing slash the name must be a directory, which a new node is not:
    /// EEXIST if the name exists, else ENOENT (as Linux's `filename_create`).
    pub fn name_for_create(&self) -> Result<&[u8]> {
        let name = self.normal_name().ok_or(Errno::EEXIST)?;
        if self.trailing_slash {
            return Err(match self.dir.lookup(name) {
                Ok(_) => Errno::EEXIST,
                Err(Errno::ENOENT) => Errno::ENOENT,
                Err(e) => e,
            });
        }
        Ok(name)
    }

    /// Returns the name for mkdir: `.`, `..` and `/` give EEXIST; a trailing
    /// slash is allowed.
    pub fn name_for_mkdir(&self) -> Result<&[u8]> {
        self.normal_name().ok_or(Errno::EEXIST)
    }

    /// Returns the name for unlink: `.`, `..` and `/` are directories, so
    /// EISDIR; with a trailing slash the entry (not followed if a symlink)
    /// gives ENOENT if missing, EISDIR if a directory, ENOTDIR otherwise.
    pub fn name_for_unlink(&self) -> Result<&[u8]> {
        let name = self.normal_name().ok_or(Errno::EISDIR)?;
        if self.trailing_slash {
            let node = self.dir.lookup(name)?;
            return Err(if node.file_type().is_dir() {
                Errno::EISDIR
            } else {
                Errno::ENOTDIR
            });
        }
        Ok(name)
    }

    /// Returns the name for rmdir: `.` gives EINVAL, `..` ENOTEMPTY (its
    /// directory holds at least the current one) and `/` EBUSY, as Linux.
    pub fn name_for_rmdir(&self) -> Result<&[u8]> {
        match &self.last {
            LastComponent::Normal(name) => Ok(name),
            LastComponent::Dot => Err(Errno::EINVAL),
            LastComponent::DotDot => Err(Errno::ENOTEMPTY),
            LastComponent::Root => Err(Errno::EBUSY),
        }
    }

    /// Returns the name for either side of rename: `.`, `..` and `/` give
    /// EBUSY, as Linux. Trailing slashes are checked by
    /// [`ParentLookup::check_rename_slashes`] once the source is known.
    pub fn name_for_rename(&self) -> Result<&[u8]> {
        self.normal_name().ok_or(Errno::EBUSY)
    }

    /// Checks rename's trailing-slash rule: a slash after either name is only
    /// allowed when the source is a directory (else ENOTDIR).
    pub fn check_rename_slashes(
        old: &ParentLookup,
        new: &ParentLookup,
        source_is_dir: bool,
    ) -> Result<()> {
        if !source_is_dir && (old.trailing_slash || new.trailing_slash) {
            return Err(Errno::ENOTDIR);
        }
        Ok(())
    }
}

/// The outcome of [`walk_open`].
#[derive(Clone)]
pub enum OpenLookup {
    /// The path names an existing node (symlinks followed as the flags say).
    Found(Arc<dyn Inode>),
    /// The last component does not exist in `dir`, which does. A dangling
    /// symlink at the end (when followed) yields its target's location here,
    /// so `O_CREAT` creates the file the link points at. With a trailing
    /// slash, `open` fails: EISDIR with `O_CREAT`, ENOENT without.
    Missing {
        /// Directory to create the entry in.
        dir: Arc<dyn Inode>,
        /// Name to create.
        name: Vec<u8>,
        /// Whether the (last followed) path ended with a slash.
        trailing_slash: bool,
    },
}

/// Resolves `path` to a node. Relative paths start at `start`, or at the
/// context's cwd when `start` is `None` (`AT_FDCWD`).
pub fn walk(
    ctx: &WalkContext<'_>,
    start: Option<&Arc<dyn Inode>>,
    path: &[u8],
    flags: WalkFlags,
) -> Result<Arc<dyn Inode>> {
    walk_mnt(ctx, start.map(|s| (s, NO_MOUNT)), path, flags).map(|(node, _)| node)
}

/// Resolves `path` as [`walk`] does, from `start` in its mount (None: the
/// cwd in `ctx.cwd_mnt`); returns the node and the mount it is in.
pub fn walk_mnt(
    ctx: &WalkContext<'_>,
    start: Option<(&Arc<dyn Inode>, MountId)>,
    path: &[u8],
    flags: WalkFlags,
) -> Result<(Arc<dyn Inode>, MountId)> {
    let mut walker = Walker::new(ctx, start);
    match walker.run(path, Mode::Full, flags)? {
        Outcome::Found(node) => Ok((node, walker.mnt)),
        // Full mode never stops early.
        _ => Err(Errno::EINVAL),
    }
}

/// Resolves all but the last component of `path`, for operations that
/// create, remove or rename that component. Symlinks in the middle are
/// followed; the last component is returned as written. Use the
/// `name_for_*` methods of the result to apply each operation's rules for
/// `.`, `..`, `/` and trailing slashes.
pub fn walk_parent(
    ctx: &WalkContext<'_>,
    start: Option<&Arc<dyn Inode>>,
    path: &[u8],
) -> Result<ParentLookup> {
    walk_parent_mnt(ctx, start.map(|s| (s, NO_MOUNT)), path)
}

/// [`walk_parent`] from `start` in its mount; the result's `mnt` is the
/// mount of its `dir`.
pub fn walk_parent_mnt(
    ctx: &WalkContext<'_>,
    start: Option<(&Arc<dyn Inode>, MountId)>,
    path: &[u8],
) -> Result<ParentLookup> {
    let mut walker = Walker::new(ctx, start);
    match walker.run(path, Mode::Parent, WalkFlags::EMPTY)? {
        Outcome::Parent(p) => Ok(p),
        Outcome::Found(root) => Ok(ParentLookup {
            dir: root,
            last: LastComponent::Root,
            trailing_slash: false,
            followed_links: false,
            mnt: walker.mnt,
        }),
        Outcome::Missing { .. } => Err(Errno::EINVAL),
    }
}

/// Resolves `path` for `open`: like [`walk`], but a missing last component
/// (in an existing directory) is reported as [`OpenLookup::Missing`] instead
/// of ENOENT. Pass [`WalkFlags::NOFOLLOW`] for `O_NOFOLLOW` and for
/// `O_CREAT | O_EXCL` (which must not follow a final symlink and fails with
/// EEXIST on one).
pub fn walk_open(
    ctx: &WalkContext<'_>,
    start: Option<&Arc<dyn Inode>>,
    path: &[u8],
    flags: WalkFlags,
) -> Result<OpenLookup> {
    walk_open_mnt(ctx, start.map(|s| (s, NO_MOUNT)), path, flags).map(|(found, _)| found)
}

/// [`walk_open`] from `start` in its mount; also returns the mount of the
/// node found (or of the directory the missing name would be made in).
pub fn walk_open_mnt(
    ctx: &WalkContext<'_>,
    start: Option<(&Arc<dyn Inode>, MountId)>,
    path: &[u8],
    flags: WalkFlags,
) -> Result<(OpenLookup, MountId)> {
    walk_open_traced(ctx, start, path, flags).map(|(found, mnt, _)| (found, mnt))
}

/// [`walk_open_mnt`], also telling whether the walk followed a symlink
/// (or a magic link): when it did not, an absolute path without `.` or
/// `..` is already the real path of what it found.
pub fn walk_open_traced(
    ctx: &WalkContext<'_>,
    start: Option<(&Arc<dyn Inode>, MountId)>,
    path: &[u8],
    flags: WalkFlags,
) -> Result<(OpenLookup, MountId, bool)> {
    let mut walker = Walker::new(ctx, start);
    let found = match walker.run(path, Mode::Open, flags)? {
        Outcome::Found(node) => OpenLookup::Found(node),
        Outcome::Missing {
            dir,
            name,
            trailing_slash,
        } => OpenLookup::Missing {
            dir,
            name,
            trailing_slash,
        },
        Outcome::Parent(_) => return Err(Errno::EINVAL),
    };
    Ok((found, walker.mnt, walker.links_followed > 0))
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Full,
    Parent,
    Open,
}

enum Outcome {
    Found(Arc<dyn Inode>),
    Parent(ParentLookup),
    Missing {
        dir: Arc<dyn Inode>,
        name: Vec<u8>,
        trailing_slash: bool,
    },
}

/// Part of a path still to walk: the path itself, or a symlink's target
/// spliced in front of the rest.
struct Frame<'p> {
    buf: Cow<'p, [u8]>,
    pos: usize,
    /// The symlink this target replaces had to be a directory, so the
    /// target's last component must be one too.
    must_dir_at_end: bool,
}

impl<'p> Frame<'p> {
    fn has_more(&self) -> bool {
        self.buf[self.pos..].iter().any(|&b| b != b'/')
    }

    /// Advances past the next component; returns its byte range and whether
    /// it must be a directory (a slash follows it, or the frame demands it).
    fn next_component(&mut self) -> Option<(usize, usize, bool)> {
        // Scanned in locals and stored once (a store per byte otherwise).
        let buf: &[u8] = &self.buf;
        let len = buf.len();
        let mut pos = self.pos;
        while pos < len && buf[pos] == b'/' {
            pos += 1;
        }
        if pos == len {
            self.pos = pos;
            return None;
        }
        let start = pos;
        while pos < len && buf[pos] != b'/' {
            pos += 1;
        }
        self.pos = pos;
        let must_dir = pos < len || self.must_dir_at_end;
        Some((start, pos, must_dir))
    }
}

struct Walker<'c, 'a> {
    ctx: &'c WalkContext<'a>,
    start: &'c Arc<dyn Inode>,
    start_mnt: MountId,
    links_followed: u32,
    /// The mount the walk is in (of `cur`, and at the end of the result).
    mnt: MountId,
    /// Where absolute paths start and `..` stops: the process root, or
    /// the start directory for a scoped walk (BENEATH, IN_ROOT).
    root: &'c Arc<dyn Inode>,
    root_mnt: MountId,
    /// The openat2 restrictions of the walk (NO_XDEV, NO_MAGICLINKS,
    /// NO_SYMLINKS, BENEATH, IN_ROOT).
    resolve: WalkFlags,
}

impl<'c, 'a> Walker<'c, 'a> {
    fn new(ctx: &'c WalkContext<'a>, start: Option<(&'c Arc<dyn Inode>, MountId)>) -> Self {
        let (start, start_mnt) = start.unwrap_or((ctx.cwd, ctx.cwd_mnt));
        Walker {
            ctx,
            start,
            start_mnt,
            links_followed: 0,
            mnt: start_mnt,
            root: ctx.root,
            root_mnt: ctx.root_mnt,
            resolve: WalkFlags::EMPTY,
        }
    }

    /// Tells whether the walk is scoped to its start (BENEATH, IN_ROOT).
    fn scoped(&self) -> bool {
        self.resolve.intersects(WalkFlags(WalkFlags::BENEATH.0 | WalkFlags::IN_ROOT.0))
    }

    fn run(&mut self, path: &[u8], mode: Mode, flags: WalkFlags) -> Result<Outcome> {
        if path.is_empty() {
            if mode == Mode::Full && flags.contains(WalkFlags::EMPTY_PATH) {
                return Ok(Outcome::Found(self.start.clone()));
            }
            return Err(Errno::ENOENT);
        }
        if path.len() >= PATH_MAX {
            return Err(Errno::ENAMETOOLONG);
        }
        self.resolve = WalkFlags(flags.0 & (WalkFlags::NO_XDEV.0 | WalkFlags::NO_MAGICLINKS.0 | WalkFlags::NO_SYMLINKS.0 | WalkFlags::BENEATH.0 | WalkFlags::IN_ROOT.0));
        if self.scoped() {
            self.root = self.start;
            self.root_mnt = self.start_mnt;
        }
        let mut cur = if path[0] == b'/' {
            if self.resolve.contains(WalkFlags::BENEATH) {
                return Err(Errno::EXDEV);
            }
            self.mnt = self.root_mnt;
            self.root.clone()
        } else {
            self.mnt = self.start_mnt;
            self.start.clone()
        };
        // The path itself, then the targets of the symlinks met, each
        // spliced in front of the rest (the walk's stack of frames: the
        // path's frame apart, so a walk without symlinks allocates none).
        let first = Frame {
            buf: Cow::Borrowed(path),
            pos: 0,
            must_dir_at_end: false,
        };
        let mut base = None;
        if first.has_more() {
            base = Some(first);
        } else if mode == Mode::Parent {
            // Only slashes: the root, which is nobody's entry.
            return Ok(Outcome::Parent(ParentLookup {
                dir: cur,
                last: LastComponent::Root,
                trailing_slash: false,
                followed_links: false,
                mnt: self.mnt,
            }));
        }
        let mut links: Vec<Frame<'_>> = Vec::new();
        let follow_last = !flags.contains(WalkFlags::NOFOLLOW);
        let mut last_must_dir = false;
        // A component of a symlink's target is copied out before its frame
        // goes; the path's own components are borrowed from it.
        let mut link_name: Vec<u8> = Vec::new();

        loop {
            let from_link = !links.is_empty();
            let top = match links.last_mut() {
                Some(top) => top,
                None => match base.as_mut() {
                    Some(top) => top,
                    None => break,
                },
            };
            // Invariant: every frame on the stack has a component left.
            let Some((s, e, must_dir)) = top.next_component() else {
                return Err(Errno::EINVAL);
            };
            let len = e - s;
            if len > NAME_MAX {
                return Err(Errno::ENAMETOOLONG);
            }
            let more = top.has_more();
            if from_link {
                link_name.clear();
                link_name.extend_from_slice(&top.buf[s..e]);
                if !more {
                    links.pop();
                }
            } else if !more {
                base = None;
            }
            let name: &[u8] = if from_link { &link_name } else { &path[s..e] };
            let is_last = links.is_empty() && base.is_none();
            last_must_dir = must_dir;

            if cur.file_type() != FileType::Directory {
                return Err(Errno::ENOTDIR);
            }
            self.check_search(&cur)?;

            if is_last && mode == Mode::Parent {
                let last = match name {
                    b"." => LastComponent::Dot,
                    b".." => LastComponent::DotDot,
                    _ => LastComponent::Normal(name.to_vec()),
                };
                return Ok(Outcome::Parent(ParentLookup {
                    dir: cur,
                    last,
                    trailing_slash: must_dir,
                    followed_links: self.links_followed > 0,
                    mnt: self.mnt,
                }));
            }

            match name {
                b"." => {}
                b".." => cur = self.dotdot(cur)?,
                _ => {
                    let child = match cur.lookup(name) {
                        Ok(child) => child,
                        Err(Errno::ENOENT) if is_last && mode == Mode::Open => {
                            return Ok(Outcome::Missing {
                                dir: cur,
                                name: name.to_vec(),
                                trailing_slash: must_dir,
                            });
                        }
                        Err(e) => return Err(e),
                    };
                    let child = self.cross_mounts(child)?;
                    let follow = !is_last || must_dir || follow_last;
                    if follow && child.file_type() == FileType::Symlink {
                        if is_last && self.ctx.mounts.protected_symlinks() {
                            self.may_follow_link(&cur, &child)?;
                        }
                        if self.ctx.mounts.no_symlinks(self.mnt) || self.resolve.contains(WalkFlags::NO_SYMLINKS) {
                            return Err(Errno::ELOOP);
                        }
                        self.links_followed += 1;
                        if self.links_followed > MAX_SYMLINK_FOLLOWS {
                            return Err(Errno::ELOOP);
                        }
                        if let Some(node) = child.magic_link() {
                            // Linux's nd_jump_link: refused when asked, and
                            // in a scoped walk; under NO_XDEV the target's
                            // mount is not known here, so taken as another.
                            if self.resolve.contains(WalkFlags::NO_MAGICLINKS) {
                                return Err(Errno::ELOOP);
                            }
                            if self.resolve.contains(WalkFlags::NO_XDEV) || self.scoped() {
                                return Err(Errno::EXDEV);
                            }
                            // The walk goes on from the node itself; it
                            // must be a directory if more follows (checked
                            // at the next component or at the end), in the
                            // mount the link knows it in (an open file's),
                            // else in one not known to the walk.
                            cur = node?;
                            self.mnt = child.magic_link_mount(&cur);
                            continue;
                        }
                        let target = child.read_link()?;
                        if target.is_empty() {
                            return Err(Errno::ENOENT);
                        }
                        if target.len() >= PATH_MAX {
                            return Err(Errno::ENAMETOOLONG);
                        }
                        if target[0] == b'/' {
                            // Linux's nd_jump_root.
                            if self.resolve.contains(WalkFlags::BENEATH) {
                                return Err(Errno::EXDEV);
                            }
                            if self.resolve.contains(WalkFlags::NO_XDEV) && self.mnt != self.root_mnt {
                                return Err(Errno::EXDEV);
                            }
                            cur = self.root.clone();
                            self.mnt = self.root_mnt;
                        }
                        // A relative target continues from `cur`, the
                        // directory holding the link.
                        let frame = Frame {
                            buf: Cow::Owned(target),
                            pos: 0,
                            must_dir_at_end: must_dir,
                        };
                        if frame.has_more() {
                            links.push(frame);
                        }
                        continue;
                    }
                    cur = child;
                }
            }
        }

        if (last_must_dir || flags.contains(WalkFlags::DIRECTORY)) && !cur.file_type().is_dir() {
            return Err(Errno::ENOTDIR);
        }
        Ok(Outcome::Found(cur))
    }

    /// fs.protected_symlinks (Linux's may_follow_link): a trailing symlink
    /// in a sticky world-writable directory is followed only by the link's
    /// owner, or when the directory's owner owns the link too (EACCES).
    fn may_follow_link(&self, dir: &Arc<dyn Inode>, link: &Arc<dyn Inode>) -> Result<()> {
        let Some(cred) = self.ctx.cred else { return Ok(()) };
        let link = link.access_stat()?;
        if link.uid == cred.uid {
            return Ok(());
        }
        let dir = dir.access_stat()?;
        const STICKY_WORLD_WRITABLE: u32 = 0o1002;
        if dir.mode & STICKY_WORLD_WRITABLE != STICKY_WORLD_WRITABLE || dir.uid == link.uid {
            return Ok(());
        }
        Err(Errno::EACCES)
    }

    fn check_search(&self, dir: &Arc<dyn Inode>) -> Result<()> {
        match self.ctx.cred {
            Some(cred) => {
                // Borrowed from the result in place: `?` would move the
                // 112-byte `Stat` out first, a copy on every component.
                let stat = dir.access_stat();
                match &stat {
                    Ok(stat) => check_access(stat, cred, Access::EXEC),
                    Err(e) => Err(*e),
                }
            }
            None => Ok(()),
        }
    }

    /// A crossing has passed `depth` mounts: the table's own limit if that
    /// is above (asked only for a stack this high), ELOOP otherwise.
    fn crossing_limit(&self, depth: u32) -> Result<u32> {
        let limit = self.ctx.mounts.max_crossings();
        if depth > limit {
            return Err(Errno::ELOOP);
        }
        Ok(limit)
    }

    /// Replaces a directory that has something mounted on it by the mounted
    /// root, through any number of stacked mounts (the walk's mount follows).
    fn cross_mounts(&mut self, mut node: Arc<dyn Inode>) -> Result<Arc<dyn Inode>> {
        let mut depth = 0;
        let mut limit = FEW_CROSSINGS;
        while let Some((mounted, mnt)) = self.ctx.mounts.mounted_on(self.mnt, &node) {
            if self.resolve.contains(WalkFlags::NO_XDEV) {
                return Err(Errno::EXDEV);
            }
            depth += 1;
            if depth > limit {
                limit = self.crossing_limit(depth)?;
            }
            node = mounted;
            self.mnt = mnt;
        }
        Ok(node)
    }

    /// Moves to the parent of `cur`, staying at the process root and leaving
    /// a mounted file system through its mount point first.
    fn dotdot(&mut self, mut cur: Arc<dyn Inode>) -> Result<Arc<dyn Inode>> {
        let mut depth = 0;
        let mut limit = FEW_CROSSINGS;
        loop {
            if same_inode(&*cur, &**self.root) && (self.mnt == NO_MOUNT || self.root_mnt == NO_MOUNT || self.mnt == self.root_mnt) {
                // Linux's follow_dotdot: `..` at the root of a BENEATH
                // walk would leave it.
                if self.resolve.contains(WalkFlags::BENEATH) {
                    return Err(Errno::EXDEV);
                }
                return Ok(cur);
            }
            match self.ctx.mounts.mount_point_of(self.mnt, &cur) {
                Some((mount_point, mnt)) => {
                    if self.resolve.contains(WalkFlags::NO_XDEV) {
                        return Err(Errno::EXDEV);
                    }
                    depth += 1;
                    if depth > limit {
                        limit = self.crossing_limit(depth)?;
                    }
                    cur = mount_point;
                    self.mnt = mnt;
                }
                None => break,
            }
        }
        let parent = cur.lookup(b"..")?;
        // The parent may itself be covered by a mount made after we entered
        // the tree below it; Linux resolves `..` onto that mount's root too.
        self.cross_mounts(parent)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn comps(p: &[u8]) -> Vec<&[u8]> {
        split_components(p).collect()
    }

    #[test]
    fn components() {
        assert_eq!(comps(b""), Vec::<&[u8]>::new());
        assert_eq!(comps(b"///"), Vec::<&[u8]>::new());
        assert_eq!(comps(b"/a//b/"), vec![&b"a"[..], b"b"]);
        assert_eq!(comps(b"a/./../c"), vec![&b"a"[..], b".", b"..", b"c"]);
        assert_eq!(comps(b"x"), vec![&b"x"[..]]);
    }

    #[test]
    fn trailing_slashes() {
        assert!(has_trailing_slash(b"a/"));
        assert!(has_trailing_slash(b"/a/b//"));
        assert!(!has_trailing_slash(b"a"));
        assert!(!has_trailing_slash(b"/"));
        assert!(!has_trailing_slash(b""));
    }

    #[test]
    fn frame_marks_directories() {
        let mut f = Frame {
            buf: Cow::Borrowed(&b"a//b/"[..]),
            pos: 0,
            must_dir_at_end: false,
        };
        assert_eq!(f.next_component(), Some((0, 1, true)));
        assert!(f.has_more());
        assert_eq!(f.next_component(), Some((3, 4, true)));
        assert!(!f.has_more());
        assert_eq!(f.next_component(), None);
        let mut g = Frame {
            buf: Cow::Borrowed(&b"x"[..]),
            pos: 0,
            must_dir_at_end: true,
        };
        assert_eq!(g.next_component(), Some((0, 1, true)));
        let mut h = Frame {
            buf: Cow::Borrowed(&b"x"[..]),
            pos: 0,
            must_dir_at_end: false,
        };
        assert_eq!(h.next_component(), Some((0, 1, false)));
    }

    #[test]
    fn flags() {
        let f = WalkFlags::NOFOLLOW | WalkFlags::DIRECTORY;
        assert!(f.contains(WalkFlags::NOFOLLOW));
        assert!(!f.contains(WalkFlags::EMPTY_PATH));
        assert!(WalkFlags::EMPTY.contains(WalkFlags::EMPTY));
    }
}
