//! devpts, the filesystem of pseudo-terminal slaves: mounted at /dev/pts it
//! lists `ptmx` (5:2) and one character device N (136:N) per live pair.
//!
//! Linux gives each mount its own instance with its own numbering; here
//! every mount shows the one table of pairs, and the latest mount's
//! options (mode=, uid=, gid=, ptmxmode=) apply to new pairs.

use alloc::format;
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::any::Any;

use kevlar_platform::sync::SpinLock;
use kevlar_vfs::{DirEntry, Errno as VfsErrno, FileType, Inode, SetAttr, Stat};
use linux_raw_sys::general as abi;

use super::pty::{self, Pty};
use super::TTYAUX_MAJOR;
use crate::error::{Errno, Result};
use crate::fs::initramfs::make_rdev;

/// st_dev of devpts nodes: an anonymous device number of its own, clear of
/// the small numbers tmpfs instances take.
const DEVPTS_DEV: u64 = 0x0000_0000_0000_ff01;
const ROOT_INO: u64 = 1;
const PTMX_INO: u64 = 2;
/// Slave N has inode N + 3, as Linux's devpts numbers them.
const FIRST_SLAVE_INO: u64 = 3;

/// The mount options that shape new nodes.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// Permission bits of new slave nodes (mode=, default 0600).
    pub mode: u32,
    /// Owner of new slave nodes (uid=; default the opener's).
    pub uid: Option<u32>,
    /// Group of new slave nodes (gid=; default the opener's).
    pub gid: Option<u32>,
    /// Permission bits of /dev/pts/ptmx (ptmxmode=, default 0).
    pub ptmx_mode: u32,
}

const DEFAULT_OPTIONS: Options = Options { mode: 0o600, uid: None, gid: None, ptmx_mode: 0 };

static OPTIONS: SpinLock<Options> = SpinLock::new(DEFAULT_OPTIONS);

/// Returns the options in force.
pub fn options() -> Options {
    *OPTIONS.lock()
}

fn parse_octal(value: &[u8]) -> Result<u32> {
    let text = core::str::from_utf8(value).map_err(|_| Errno::EINVAL)?;
    u32::from_str_radix(text, 8).map_err(|_| Errno::EINVAL)
}

fn parse_decimal(value: &[u8]) -> Result<u32> {
    let text = core::str::from_utf8(value).map_err(|_| Errno::EINVAL)?;
    text.parse().map_err(|_| Errno::EINVAL)
}

/// Parses devpts mount data (`mode=620,gid=5,ptmxmode=666,newinstance`);
/// an unknown option is EINVAL, as on Linux.
pub fn parse_options(data: &[u8]) -> Result<Options> {
    let mut options = DEFAULT_OPTIONS;
    for item in data.split(|&b| b == b',').filter(|s| !s.is_empty()) {
        let (key, value) = match item.iter().position(|&b| b == b'=') {
            Some(eq) => (&item[..eq], Some(&item[eq + 1..])),
            None => (item, None),
        };
        match (key, value) {
            (b"mode", Some(v)) => options.mode = parse_octal(v)? & 0o7777,
            (b"ptmxmode", Some(v)) => options.ptmx_mode = parse_octal(v)? & 0o7777,
            (b"uid", Some(v)) => options.uid = Some(parse_decimal(v)?),
            (b"gid", Some(v)) => options.gid = Some(parse_decimal(v)?),
            // Every mount shares one instance here (see the module docs);
            // `max` caps the instance at its default.
            (b"newinstance", None) | (b"max", Some(_)) => {}
            _ => return Err(Errno::EINVAL),
        }
    }
    Ok(options)
}

/// Mounts devpts with `data` as its options; returns the root to mount.
pub fn mount(data: &[u8]) -> Result<Arc<dyn Inode>> {
    let options = parse_options(data)?;
    *OPTIONS.lock() = options;
    Ok(Arc::new(Root))
}

/// The stat of /dev/pts/N for `pty`.
pub fn slave_stat(pty: &Pty) -> Stat {
    let attrs = pty.node_attrs();
    let (major, minor) = pty.slave.rdev;
    Stat {
        dev: DEVPTS_DEV,
        ino: FIRST_SLAVE_INO + u64::from(pty.index),
        mode: abi::S_IFCHR | attrs.mode,
        nlink: 1,
        uid: attrs.uid,
        gid: attrs.gid,
        rdev: make_rdev(major, minor),
        size: 0,
        blksize: 1024,
        blocks: 0,
        atime: attrs.ctime,
        mtime: attrs.ctime,
        ctime: attrs.ctime,
    }
}

/// The root directory of devpts.
struct Root;

/// /dev/pts/ptmx.
struct Ptmx;

/// /dev/pts/N.
struct Slave(Arc<Pty>);

impl Inode for Root {
    fn fs_id(&self) -> u64 {
        DEVPTS_DEV
    }

    fn ino(&self) -> u64 {
        ROOT_INO
    }

    fn file_type(&self) -> FileType {
        FileType::Directory
    }

    fn stat(&self) -> core::result::Result<Stat, VfsErrno> {
        Ok(Stat { dev: DEVPTS_DEV, ino: ROOT_INO, mode: abi::S_IFDIR | 0o755, nlink: 2, blksize: 1024, ..Stat::default() })
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn lookup(&self, name: &[u8]) -> core::result::Result<Arc<dyn Inode>, VfsErrno> {
        match name {
            b"." | b".." => Ok(Arc::new(Root)),
            b"ptmx" => Ok(Arc::new(Ptmx)),
            digits if !digits.is_empty() && digits.iter().all(u8::is_ascii_digit) && (digits.len() == 1 || digits[0] != b'0') => {
                let index = parse_decimal(digits).map_err(|_| Errno::ENOENT)?;
                pty::find(index).map(|p| Arc::new(Slave(p)) as Arc<dyn Inode>).ok_or(Errno::ENOENT)
            }
            _ => Err(Errno::ENOENT),
        }
    }

    fn read_dir(&self, index: usize) -> core::result::Result<Option<(DirEntry, usize)>, VfsErrno> {
        // Positions: 0 ".", 1 "..", 2 "ptmx", 3 + N for pair N.
        let entry = |ino: u64, file_type: FileType, name: Vec<u8>| DirEntry { ino, file_type, name };
        Ok(match index {
            0 => Some((entry(ROOT_INO, FileType::Directory, b".".to_vec()), 1)),
            1 => Some((entry(ROOT_INO, FileType::Directory, b"..".to_vec()), 2)),
            2 => Some((entry(PTMX_INO, FileType::CharDevice, b"ptmx".to_vec()), 3)),
            position => pty::indices().into_iter().find(|&i| i as usize + 3 >= position).map(|i| {
                (entry(FIRST_SLAVE_INO + u64::from(i), FileType::CharDevice, format!("{}", i).into_bytes()), i as usize + 4)
            }),
        })
    }
}

impl Inode for Ptmx {
    fn fs_id(&self) -> u64 {
        DEVPTS_DEV
    }

    fn ino(&self) -> u64 {
        PTMX_INO
    }

    fn file_type(&self) -> FileType {
        FileType::CharDevice
    }

    fn stat(&self) -> core::result::Result<Stat, VfsErrno> {
        Ok(Stat {
            dev: DEVPTS_DEV,
            ino: PTMX_INO,
            mode: abi::S_IFCHR | options().ptmx_mode,
            nlink: 1,
            rdev: make_rdev(TTYAUX_MAJOR, 2),
            blksize: 1024,
            ..Stat::default()
        })
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn set_attr(&self, attr: &SetAttr) -> core::result::Result<(), VfsErrno> {
        if let Some(mode) = attr.mode {
            OPTIONS.lock().ptmx_mode = mode & 0o7777;
        }
        Ok(())
    }
}

impl Inode for Slave {
    fn fs_id(&self) -> u64 {
        DEVPTS_DEV
    }

    fn ino(&self) -> u64 {
        FIRST_SLAVE_INO + u64::from(self.0.index)
    }

    fn file_type(&self) -> FileType {
        FileType::CharDevice
    }

    fn stat(&self) -> core::result::Result<Stat, VfsErrno> {
        Ok(slave_stat(&self.0))
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn set_attr(&self, attr: &SetAttr) -> core::result::Result<(), VfsErrno> {
        let mut attrs = self.0.node_attrs();
        if let Some(mode) = attr.mode {
            attrs.mode = mode & 0o7777;
        }
        if let Some(uid) = attr.uid {
            attrs.uid = uid;
        }
        if let Some(gid) = attr.gid {
            attrs.gid = gid;
        }
        attrs.ctime = crate::clock::now();
        self.0.set_node_attrs(attrs);
        Ok(())
    }
}
