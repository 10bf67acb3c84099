//! The in-memory file system types that are a tree of nodes and little
//! else, each kept in a tmpfs instance: ramfs (fs/ramfs/inode.c: no size
//! limit, only `mode=`), debugfs and tracefs (fs/debugfs, fs/tracefs: one
//! superblock every mount shows, `uid=`, `gid=`, `mode=`; empty here, as
//! on a Linux with nothing registered in them), and hugetlbfs
//! (fs/hugetlbfs: files backed by huge pages; with none reserved, as
//! /proc/sys/vm/nr_hugepages 0 says, a mount works and holds names).
//!
//! What each shows: statfs as Linux's (simple_statfs for the first three,
//! hugetlbfs_statfs), the options /proc/mounts lists (each type's
//! show_options), and the mount-option errors of its parser.

use alloc::string::String;
use alloc::sync::Arc;
use core::fmt::Write;

use kevlar_platform::sync::SpinLock;
use kevlar_tmpfs::{TmpFs, TmpFsOptions};
use kevlar_vfs::{Inode, SetAttr};
use linux_raw_sys::general as abi;

use super::mount::{FsKind, StatFs};
use crate::error::{Errno, Result};

/// A huge page's size on x86-64 (the only hstate: 1 GiB pages are not
/// offered).
pub const HUGE_PAGE_SIZE: u64 = 2 << 20;

/// Which type a [`SimpleFs`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SimpleType {
    Ramfs,
    Debugfs,
    Tracefs,
    Hugetlbfs,
}

impl SimpleType {
    /// The type named `fstype`, if it is one of these.
    pub fn by_name(fstype: &[u8]) -> Option<SimpleType> {
        match fstype {
            b"ramfs" => Some(SimpleType::Ramfs),
            b"debugfs" => Some(SimpleType::Debugfs),
            b"tracefs" => Some(SimpleType::Tracefs),
            b"hugetlbfs" => Some(SimpleType::Hugetlbfs),
            _ => None,
        }
    }

    /// The name /proc/filesystems and /proc/mounts give it.
    pub fn name(self) -> &'static str {
        match self {
            SimpleType::Ramfs => "ramfs",
            SimpleType::Debugfs => "debugfs",
            SimpleType::Tracefs => "tracefs",
            SimpleType::Hugetlbfs => "hugetlbfs",
        }
    }

    fn magic(self) -> u64 {
        u64::from(match self {
            SimpleType::Ramfs => abi::RAMFS_MAGIC,
            SimpleType::Debugfs => abi::DEBUGFS_MAGIC,
            SimpleType::Tracefs => abi::TRACEFS_MAGIC,
            SimpleType::Hugetlbfs => abi::HUGETLBFS_MAGIC,
        })
    }

    /// The root's mode when `mode=` is not given (RAMFS_DEFAULT_MODE,
    /// DEBUGFS_DEFAULT_MODE, TRACEFS_DEFAULT_MODE, hugetlbfs's 0755).
    fn default_mode(self) -> u32 {
        match self {
            SimpleType::Ramfs | SimpleType::Hugetlbfs => 0o755,
            SimpleType::Debugfs | SimpleType::Tracefs => 0o700,
        }
    }
}

/// The options of a mount (of the superblock: debugfs's and tracefs's
/// are shared by every mount).
#[derive(Clone, Copy, Debug)]
struct Options {
    mode: u32,
    uid: u32,
    gid: u32,
    /// hugetlbfs's `nr_inodes=` (None: no limit).
    max_inodes: Option<u64>,
    /// hugetlbfs's `size=` in huge pages (None: no pool).
    max_hpages: Option<u64>,
    /// hugetlbfs's `min_size=` in huge pages, when given.
    min_hpages: Option<u64>,
}

/// One instance of a simple file system type.
pub struct SimpleFs {
    ty: SimpleType,
    fs: Arc<TmpFs>,
    options: SpinLock<Options>,
}

/// debugfs's and tracefs's one superblock each, made at their first mount.
static DEBUGFS: SpinLock<Option<Arc<SimpleFs>>> = SpinLock::new(None);
static TRACEFS: SpinLock<Option<Arc<SimpleFs>>> = SpinLock::new(None);

fn key_value(option: &[u8]) -> (&[u8], &[u8]) {
    match option.iter().position(|&b| b == b'=') {
        Some(i) => (&option[..i], &option[i + 1..]),
        None => (option, &b""[..]),
    }
}

fn octal(value: &[u8]) -> Result<u32> {
    let text = core::str::from_utf8(value).map_err(|_| Errno::EINVAL)?;
    u32::from_str_radix(text, 8).map_err(|_| Errno::EINVAL)
}

fn decimal(value: &[u8]) -> Result<u32> {
    core::str::from_utf8(value).ok().and_then(|t| t.parse::<u32>().ok()).ok_or(Errno::EINVAL)
}

/// memparse: a number (decimal, 0x hex or 0 octal) with an optional
/// K, M, G, T, P or E suffix.
fn memparse(value: &[u8]) -> Result<u64> {
    let text = core::str::from_utf8(value).map_err(|_| Errno::EINVAL)?;
    let split = text.find(|c: char| !c.is_ascii_hexdigit() && c != 'x' && c != 'X').unwrap_or(text.len());
    let (digits, suffix) = text.split_at(split);
    let n = if let Some(hex) = digits.strip_prefix("0x").or_else(|| digits.strip_prefix("0X")) {
        u64::from_str_radix(hex, 16)
    } else if digits.len() > 1 && digits.starts_with('0') {
        u64::from_str_radix(&digits[1..], 8)
    } else {
        digits.parse::<u64>()
    }
    .map_err(|_| Errno::EINVAL)?;
    let shift = match suffix {
        "" => 0,
        "k" | "K" => 10,
        "m" | "M" => 20,
        "g" | "G" => 30,
        "t" | "T" => 40,
        "p" | "P" => 50,
        "e" | "E" => 60,
        _ => return Err(Errno::EINVAL),
    };
    n.checked_mul(1u64 << shift).ok_or(Errno::EINVAL)
}

/// The mounter's file-system ids and user namespace.
fn mounter() -> crate::process::Credentials {
    crate::process::current().map(|t| t.process.creds.lock().clone()).unwrap_or_default()
}

/// Parses `data` for a new mount of `ty`, starting from `base` (a
/// shared superblock's current options, or the defaults); also tells
/// whether `mode=` was given.
fn parse(ty: SimpleType, data: &[u8], mut o: Options) -> Result<(Options, bool)> {
    let creds = mounter();
    let single = matches!(ty, SimpleType::Debugfs | SimpleType::Tracefs);
    if single {
        // Their parsers start from the default mode each time; uid and
        // gid stay as the last mount set them.
        o.mode = ty.default_mode();
    }
    let mut mode_given = false;
    for option in data.split(|&b| b == b',').filter(|o| !o.is_empty()) {
        let (key, value) = key_value(option);
        match (ty, key) {
            // debugfs's and tracefs's match_token patterns (`mode=%o`,
            // `uid=%u`) do not match a bad value: the option is then an
            // unknown one, ignored.
            (SimpleType::Debugfs | SimpleType::Tracefs, b"mode") => {
                if let Ok(mode) = octal(value) {
                    o.mode = mode & 0o7777;
                    mode_given = true;
                }
            }
            (SimpleType::Debugfs | SimpleType::Tracefs, b"uid") => {
                if let Ok(id) = decimal(value) {
                    o.uid = creds.user_ns.uid_down(id).ok_or(Errno::EINVAL)?;
                }
            }
            (SimpleType::Debugfs | SimpleType::Tracefs, b"gid") => {
                if let Ok(id) = decimal(value) {
                    o.gid = creds.user_ns.gid_down(id).ok_or(Errno::EINVAL)?;
                }
            }
            (_, b"mode") => {
                o.mode = octal(value)? & 0o7777;
                mode_given = true;
            }
            (SimpleType::Hugetlbfs, b"uid") => o.uid = creds.user_ns.uid_down(decimal(value)?).ok_or(Errno::EINVAL)?,
            (SimpleType::Hugetlbfs, b"gid") => o.gid = creds.user_ns.gid_down(decimal(value)?).ok_or(Errno::EINVAL)?,
            (SimpleType::Hugetlbfs, b"nr_inodes") => o.max_inodes = Some(memparse(value)?),
            (SimpleType::Hugetlbfs, b"size") => o.max_hpages = Some(huge_pages(value)?),
            (SimpleType::Hugetlbfs, b"min_size") => o.min_hpages = Some(huge_pages(value)?),
            (SimpleType::Hugetlbfs, b"pagesize") => {
                if memparse(value)? != HUGE_PAGE_SIZE {
                    return Err(Errno::EINVAL);
                }
            }
            // hugetlbfs's parser refuses what it does not know; ramfs,
            // debugfs and tracefs have always ignored other options.
            (SimpleType::Hugetlbfs, _) => return Err(Errno::EINVAL),
            _ => {}
        }
    }
    Ok((o, mode_given))
}

/// A hugetlbfs size (bytes, or a percentage of the reserved pool, which
/// is empty) in whole huge pages.
fn huge_pages(value: &[u8]) -> Result<u64> {
    if value.last() == Some(&b'%') {
        // A percentage of nr_hugepages, which is 0.
        memparse(&value[..value.len() - 1])?;
        return Ok(0);
    }
    Ok(memparse(value)? / HUGE_PAGE_SIZE)
}

fn shared(ty: SimpleType) -> Option<&'static SpinLock<Option<Arc<SimpleFs>>>> {
    match ty {
        SimpleType::Debugfs => Some(&DEBUGFS),
        SimpleType::Tracefs => Some(&TRACEFS),
        _ => None,
    }
}

fn new_fs(ty: SimpleType, o: &Options) -> Arc<TmpFs> {
    super::pages::new_tmpfs(TmpFsOptions {
        dev: Some(super::mount::anon_dev()),
        root_mode: o.mode,
        root_uid: o.uid,
        root_gid: o.gid,
        // hugetlbfs's root counts against nr_inodes, as tmpfs's does.
        max_inodes: o.max_inodes,
        max_pages: if ty == SimpleType::Hugetlbfs { o.max_hpages.map(|n| n.saturating_mul(HUGE_PAGE_SIZE / 4096)) } else { None },
        // hugetlbfs's files have no write_iter: write(2) is EINVAL (data
        // goes in through mappings of huge pages).
        no_write: ty == SimpleType::Hugetlbfs,
        ..TmpFsOptions::default()
    })
}

/// Makes (or, for debugfs and tracefs, finds and reconfigures) a file
/// system of type `ty` for a mount with options `data`.
pub fn make(ty: SimpleType, data: &[u8]) -> Result<(&'static str, Arc<dyn Inode>, FsKind)> {
    let creds = mounter();
    let defaults = Options {
        mode: ty.default_mode(),
        // ramfs's and hugetlbfs's root is the mounter's; debugfs's and
        // tracefs's root's unless uid=/gid= say otherwise.
        uid: if matches!(ty, SimpleType::Ramfs | SimpleType::Hugetlbfs) { creds.fsuid } else { 0 },
        gid: if matches!(ty, SimpleType::Ramfs | SimpleType::Hugetlbfs) { creds.fsgid } else { 0 },
        max_inodes: None,
        max_hpages: None,
        min_hpages: None,
    };
    if let Some(slot) = shared(ty) {
        let mut slot = slot.lock();
        let base = slot.as_ref().map_or(defaults, |s| *s.options.lock());
        let (o, mode_given) = parse(ty, data, base)?;
        let fs = slot.get_or_insert_with(|| Arc::new(SimpleFs { ty, fs: new_fs(ty, &o), options: SpinLock::new(o) })).clone();
        drop(slot);
        // The options apply to the one root (debugfs_apply_options); a
        // later mount changes the root's mode only when it gives one
        // (what /proc/mounts shows is the parsed options all the same).
        *fs.options.lock() = o;
        let attr = SetAttr { mode: mode_given.then_some(o.mode), uid: Some(o.uid), gid: Some(o.gid), ..SetAttr::default() };
        fs.fs.root().set_attr(&attr)?;
        return Ok((ty.name(), fs.fs.root(), FsKind::Simple(fs)));
    }
    let (o, _) = parse(ty, data, defaults)?;
    // A min_size= reservation takes huge pages from a pool that has none.
    if o.min_hpages.is_some_and(|n| n > 0) {
        return Err(Errno::ENOMEM);
    }
    let fs = Arc::new(SimpleFs { ty, fs: new_fs(ty, &o), options: SpinLock::new(o) });
    Ok((ty.name(), fs.fs.root(), FsKind::Simple(fs)))
}

impl SimpleFs {
    /// The tmpfs instance holding its nodes.
    pub fn tmpfs(&self) -> &Arc<TmpFs> {
        &self.fs
    }

    /// The file-system options /proc/mounts shows (no leading comma).
    pub fn options_text(&self) -> String {
        let o = *self.options.lock();
        let mut out = String::new();
        match self.ty {
            SimpleType::Ramfs => {
                if o.mode != 0o755 {
                    let _ = write!(out, "mode={:o},", o.mode);
                }
            }
            SimpleType::Debugfs | SimpleType::Tracefs | SimpleType::Hugetlbfs => {
                if o.uid != 0 {
                    let _ = write!(out, "uid={},", o.uid);
                }
                if o.gid != 0 {
                    let _ = write!(out, "gid={},", o.gid);
                }
                if o.mode != self.ty.default_mode() {
                    let _ = write!(out, "mode={:o},", o.mode);
                }
            }
        }
        if self.ty == SimpleType::Hugetlbfs {
            if let Some(n) = o.max_inodes {
                let _ = write!(out, "nr_inodes={},", n);
            }
            let _ = write!(out, "pagesize={}M,", HUGE_PAGE_SIZE >> 20);
            if let Some(n) = o.max_hpages {
                let _ = write!(out, "size={},", n * HUGE_PAGE_SIZE);
            }
            if let Some(n) = o.min_hpages {
                let _ = write!(out, "min_size={},", n * HUGE_PAGE_SIZE);
            }
        }
        out.pop();
        out
    }

    /// What statfs reports (the flags and fsid are the caller's).
    pub fn statfs(&self) -> StatFs {
        let mut out = StatFs { fs_type: self.ty.magic(), block_size: 4096, name_max: 255, ..StatFs::default() };
        if self.ty == SimpleType::Hugetlbfs {
            out.block_size = HUGE_PAGE_SIZE;
            let o = *self.options.lock();
            // Counts only with a pool (size= or min_size=), as
            // hugetlbfs_statfs; -1 for a limit not given.
            if o.max_hpages.is_some() || o.min_hpages.is_some() {
                let usage = self.fs.usage();
                let max = o.max_hpages.unwrap_or(u64::MAX);
                let used = usage.pages.div_ceil(HUGE_PAGE_SIZE / 4096);
                out.blocks = max;
                out.blocks_free = if max == u64::MAX { max } else { max.saturating_sub(used) };
                out.files = o.max_inodes.unwrap_or(u64::MAX);
                out.files_free = match o.max_inodes {
                    Some(n) => n.saturating_sub(usage.inodes),
                    None => u64::MAX,
                };
            }
        }
        out
    }
}
