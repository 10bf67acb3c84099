//! Plain data types shared by every file system: file types, timestamps,
//! `stat` results, directory entries, rename flags and attribute changes.

use alloc::vec::Vec;
use core::ops::BitOr;
use linux_raw_sys::general as g;

use crate::errno::{Errno, Result};

/// The kind of a file-system node, as encoded in the `S_IFMT` bits of a mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FileType {
    /// A regular file holding data.
    Regular,
    /// A directory.
    Directory,
    /// A symbolic link.
    Symlink,
    /// A character device node.
    CharDevice,
    /// A block device node.
    BlockDevice,
    /// A named pipe.
    Fifo,
    /// A Unix-domain socket node.
    Socket,
}

impl FileType {
    /// Every file type, for exhaustive tests and tables.
    pub const ALL: [FileType; 7] = [
        FileType::Regular,
        FileType::Directory,
        FileType::Symlink,
        FileType::CharDevice,
        FileType::BlockDevice,
        FileType::Fifo,
        FileType::Socket,
    ];

    /// Returns the `S_IF*` bits of this type, to be or-ed with permission bits.
    pub const fn mode_bits(self) -> u32 {
        match self {
            FileType::Regular => g::S_IFREG,
            FileType::Directory => g::S_IFDIR,
            FileType::Symlink => g::S_IFLNK,
            FileType::CharDevice => g::S_IFCHR,
            FileType::BlockDevice => g::S_IFBLK,
            FileType::Fifo => g::S_IFIFO,
            FileType::Socket => g::S_IFSOCK,
        }
    }

    /// Extracts the file type from a full mode, or `None` if its `S_IFMT`
    /// bits name no known type (mknod with such a mode fails with EINVAL).
    pub const fn from_mode(mode: u32) -> Option<FileType> {
        match mode & g::S_IFMT {
            g::S_IFREG => Some(FileType::Regular),
            g::S_IFDIR => Some(FileType::Directory),
            g::S_IFLNK => Some(FileType::Symlink),
            g::S_IFCHR => Some(FileType::CharDevice),
            g::S_IFBLK => Some(FileType::BlockDevice),
            g::S_IFIFO => Some(FileType::Fifo),
            g::S_IFSOCK => Some(FileType::Socket),
            _ => None,
        }
    }

    /// Returns the `DT_*` value `getdents64` reports in `d_type`.
    pub const fn dirent_type(self) -> u8 {
        // The DT_* values are all below 16, so the narrowing cannot lose bits.
        (match self {
            FileType::Regular => g::DT_REG,
            FileType::Directory => g::DT_DIR,
            FileType::Symlink => g::DT_LNK,
            FileType::CharDevice => g::DT_CHR,
            FileType::BlockDevice => g::DT_BLK,
            FileType::Fifo => g::DT_FIFO,
            FileType::Socket => g::DT_SOCK,
        }) as u8
    }

    /// Tells whether this is [`FileType::Directory`].
    pub const fn is_dir(self) -> bool {
        matches!(self, FileType::Directory)
    }
}

/// A point in time as seconds and nanoseconds since the Unix epoch.
///
/// Field order makes the derived ordering chronological.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timespec {
    /// Whole seconds since 1970-01-01 00:00:00 UTC (negative before it).
    pub sec: i64,
    /// Nanoseconds within the second, below 1 000 000 000.
    pub nsec: u32,
}

impl Timespec {
    /// The epoch itself.
    pub const ZERO: Timespec = Timespec { sec: 0, nsec: 0 };

    /// Builds a timestamp from seconds and nanoseconds.
    pub const fn new(sec: i64, nsec: u32) -> Timespec {
        Timespec { sec, nsec }
    }
}

/// The attributes `stat` reports, in the units of `struct stat`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stat {
    /// Identifier of the file system the node lives on (`st_dev`).
    pub dev: u64,
    /// Inode number, unique within the file system.
    pub ino: u64,
    /// File type bits (`S_IFMT`) or-ed with the permission bits.
    pub mode: u32,
    /// Number of hard links (for directories, 2 plus subdirectories).
    pub nlink: u32,
    /// Owning user.
    pub uid: u32,
    /// Owning group.
    pub gid: u32,
    /// Device number a device node stands for (0 for other types).
    pub rdev: u64,
    /// Size in bytes (symlinks: length of the target).
    pub size: u64,
    /// Preferred I/O block size.
    pub blksize: u32,
    /// Storage actually allocated, in 512-byte units.
    pub blocks: u64,
    /// Last access.
    pub atime: Timespec,
    /// Last modification of the contents.
    pub mtime: Timespec,
    /// Last change of the inode (contents, links or attributes).
    pub ctime: Timespec,
}

impl Stat {
    /// Returns the file type encoded in `mode`, if it names a known type.
    pub const fn file_type(&self) -> Option<FileType> {
        FileType::from_mode(self.mode)
    }

    /// Returns the permission bits of `mode` (including setuid, setgid, sticky).
    pub const fn perm(&self) -> u32 {
        self.mode & !g::S_IFMT
    }
}

/// One entry returned by [`crate::Inode::read_dir`].
///
/// Names are bytes, not `String`: Linux file names are any bytes except `/`
/// and NUL, and programs (tar, rsync, file managers) create names that are
/// not UTF-8.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DirEntry {
    /// Inode number of the entry's target.
    pub ino: u64,
    /// Type of the entry's target, for `d_type`.
    pub file_type: FileType,
    /// The entry's name, without any `/`.
    pub name: Vec<u8>,
}

/// The flags of `renameat2`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct RenameFlags(u32);

impl RenameFlags {
    /// No flags: plain `rename`.
    pub const EMPTY: RenameFlags = RenameFlags(0);
    /// Fail with EEXIST instead of replacing an existing target.
    pub const NOREPLACE: RenameFlags = RenameFlags(g::RENAME_NOREPLACE);
    /// Atomically swap source and target, which must both exist.
    pub const EXCHANGE: RenameFlags = RenameFlags(g::RENAME_EXCHANGE);
    /// Leave a whiteout (character device 0:0) in place of the source.
    pub const WHITEOUT: RenameFlags = RenameFlags(g::RENAME_WHITEOUT);

    /// Validates user-supplied flag bits the way `renameat2` does: unknown
    /// bits, NOREPLACE with EXCHANGE, or WHITEOUT with EXCHANGE give EINVAL.
    pub fn from_bits(bits: u32) -> Result<RenameFlags> {
        let known = g::RENAME_NOREPLACE | g::RENAME_EXCHANGE | g::RENAME_WHITEOUT;
        let flags = RenameFlags(bits);
        if bits & !known != 0
            || (flags.contains(Self::EXCHANGE)
                && (flags.contains(Self::NOREPLACE) || flags.contains(Self::WHITEOUT)))
        {
            return Err(Errno::EINVAL);
        }
        Ok(flags)
    }

    /// Returns the raw bits.
    pub const fn bits(self) -> u32 {
        self.0
    }

    /// Tells whether every flag in `other` is set in `self`.
    pub const fn contains(self, other: RenameFlags) -> bool {
        self.0 & other.0 == other.0
    }

    /// Tells whether no flag is set.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }
}

impl BitOr for RenameFlags {
    type Output = RenameFlags;

    fn bitor(self, rhs: RenameFlags) -> RenameFlags {
        RenameFlags(self.0 | rhs.0)
    }
}

/// A set of attribute changes for [`crate::Inode::set_attr`]; `None` leaves
/// an attribute alone.
///
/// Times are explicit values: the caller turns `UTIME_NOW` into its clock's
/// current time and `UTIME_OMIT` into `None`, and applies umask, setgid
/// clearing and ownership rules before calling, because those depend on the
/// calling process, which a file system does not know.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SetAttr {
    /// New permission bits (only `0o7777` is used; the type never changes).
    pub mode: Option<u32>,
    /// New owner.
    pub uid: Option<u32>,
    /// New group.
    pub gid: Option<u32>,
    /// New size, as `truncate` (regular files only).
    pub size: Option<u64>,
    /// New access time.
    pub atime: Option<Timespec>,
    /// New modification time.
    pub mtime: Option<Timespec>,
}

impl SetAttr {
    /// Tells whether the change set asks for nothing.
    pub fn is_empty(&self) -> bool {
        *self == SetAttr::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_type_mode_round_trip() {
        for t in FileType::ALL {
            assert_eq!(FileType::from_mode(t.mode_bits() | 0o644), Some(t));
            assert_eq!(t.mode_bits() & !g::S_IFMT, 0);
        }
        assert_eq!(FileType::from_mode(0o644), None);
        assert_eq!(FileType::from_mode(g::S_IFMT), None);
    }

    #[test]
    fn file_type_dirent_values() {
        assert_eq!(FileType::Regular.dirent_type(), g::DT_REG as u8);
        assert_eq!(FileType::Directory.dirent_type(), g::DT_DIR as u8);
        assert_eq!(FileType::Symlink.dirent_type(), g::DT_LNK as u8);
        assert_eq!(FileType::CharDevice.dirent_type(), g::DT_CHR as u8);
        assert_eq!(FileType::BlockDevice.dirent_type(), g::DT_BLK as u8);
        assert_eq!(FileType::Fifo.dirent_type(), g::DT_FIFO as u8);
        assert_eq!(FileType::Socket.dirent_type(), g::DT_SOCK as u8);
        // Linux defines DT_x as S_IFx >> 12; check the relation holds for all.
        for t in FileType::ALL {
            assert_eq!(u32::from(t.dirent_type()), t.mode_bits() >> 12);
        }
        assert!(FileType::Directory.is_dir());
        assert!(!FileType::Symlink.is_dir());
    }

    #[test]
    fn timespec_orders_chronologically() {
        assert!(Timespec::new(1, 999_999_999) < Timespec::new(2, 0));
        assert!(Timespec::new(-1, 5) < Timespec::ZERO);
        assert!(Timespec::new(3, 1) > Timespec::new(3, 0));
    }

    #[test]
    fn stat_helpers() {
        let st = Stat {
            mode: g::S_IFDIR | 0o1755,
            ..Stat::default()
        };
        assert_eq!(st.file_type(), Some(FileType::Directory));
        assert_eq!(st.perm(), 0o1755);
    }

    #[test]
    fn rename_flags_validation() {
        assert_eq!(RenameFlags::from_bits(0), Ok(RenameFlags::EMPTY));
        assert_eq!(
            RenameFlags::from_bits(g::RENAME_NOREPLACE),
            Ok(RenameFlags::NOREPLACE)
        );
        assert_eq!(
            RenameFlags::from_bits(g::RENAME_EXCHANGE),
            Ok(RenameFlags::EXCHANGE)
        );
        assert_eq!(
            RenameFlags::from_bits(g::RENAME_NOREPLACE | g::RENAME_WHITEOUT),
            Ok(RenameFlags::NOREPLACE | RenameFlags::WHITEOUT)
        );
        assert_eq!(
            RenameFlags::from_bits(g::RENAME_NOREPLACE | g::RENAME_EXCHANGE),
            Err(Errno::EINVAL)
        );
        assert_eq!(
            RenameFlags::from_bits(g::RENAME_WHITEOUT | g::RENAME_EXCHANGE),
            Err(Errno::EINVAL)
        );
        assert_eq!(RenameFlags::from_bits(1 << 20), Err(Errno::EINVAL));
        let f = RenameFlags::NOREPLACE | RenameFlags::WHITEOUT;
        assert!(f.contains(RenameFlags::NOREPLACE));
        assert!(!f.contains(RenameFlags::EXCHANGE));
        assert!(RenameFlags::EMPTY.is_empty());
        assert_eq!(f.bits(), g::RENAME_NOREPLACE | g::RENAME_WHITEOUT);
    }

    #[test]
    fn set_attr_emptiness() {
        assert!(SetAttr::default().is_empty());
        assert!(!SetAttr {
            uid: Some(0),
            ..SetAttr::default()
        }
        .is_empty());
    }
}

/// One run of a file's bytes on its device, as FIEMAP reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MappedRun {
    /// Byte offset in the file.
    pub logical: u64,
    /// Byte offset on the device.
    pub physical: u64,
    /// Bytes.
    pub length: u64,
    /// Allocated but not written (reads as zeros).
    pub unwritten: bool,
}
