//! The newc cpio format: headers, members, and the walk over concatenated
//! archives.

use alloc::collections::BTreeMap;
use alloc::vec::Vec;
use core::iter::FusedIterator;

use crate::gzip::compression_format;
use crate::CpioError;

/// Length of a newc header: the 6-byte magic and thirteen 8-digit fields.
pub const HEADER_LEN: usize = 110;

/// Longest name, and longest symbolic-link target, accepted (Linux's
/// `PATH_MAX`, which counts the terminating NUL for names).
pub const PATH_MAX: usize = 4096;

/// The name of the member that ends an archive.
pub const TRAILER_NAME: &str = "TRAILER!!!";

const MAGIC_NEWC: &[u8; 6] = b"070701";
const MAGIC_CRC: &[u8; 6] = b"070702";

// File-type bits of st_mode, from include/uapi/linux/stat.h.
const S_IFMT: u32 = 0o170_000;
const S_IFSOCK: u32 = 0o140_000;
const S_IFLNK: u32 = 0o120_000;
const S_IFREG: u32 = 0o100_000;
const S_IFBLK: u32 = 0o060_000;
const S_IFDIR: u32 = 0o040_000;
const S_IFCHR: u32 = 0o020_000;
const S_IFIFO: u32 = 0o010_000;

/// The type of an archive member, from the file-type bits of its mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FileType {
    /// A regular file; [`Entry::data`] is its contents.
    Regular,
    /// A directory.
    Directory,
    /// A symbolic link; [`Entry::data`] is the target path (no NUL).
    Symlink,
    /// A character device; see [`Entry::rdev_major`] and [`Entry::rdev_minor`].
    CharDevice,
    /// A block device; see [`Entry::rdev_major`] and [`Entry::rdev_minor`].
    BlockDevice,
    /// A named pipe.
    Fifo,
    /// A Unix-domain socket.
    Socket,
}

impl FileType {
    /// The type encoded in the `S_IFMT` bits of `mode`, or `None` for a
    /// combination Linux does not define.
    pub fn from_mode(mode: u32) -> Option<FileType> {
        match mode & S_IFMT {
            S_IFREG => Some(FileType::Regular),
            S_IFDIR => Some(FileType::Directory),
            S_IFLNK => Some(FileType::Symlink),
            S_IFCHR => Some(FileType::CharDevice),
            S_IFBLK => Some(FileType::BlockDevice),
            S_IFIFO => Some(FileType::Fifo),
            S_IFSOCK => Some(FileType::Socket),
            _ => None,
        }
    }

    /// The `S_IFMT` bits for this type (for example `0o100000` for
    /// [`FileType::Regular`]).
    pub fn mode_bits(self) -> u32 {
        match self {
            FileType::Regular => S_IFREG,
            FileType::Directory => S_IFDIR,
            FileType::Symlink => S_IFLNK,
            FileType::CharDevice => S_IFCHR,
            FileType::BlockDevice => S_IFBLK,
            FileType::Fifo => S_IFIFO,
            FileType::Socket => S_IFSOCK,
        }
    }
}

/// One member of a cpio archive, borrowing its name and data from the
/// archive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry<'a> {
    /// The path, relative to the root of the file system being built: any
    /// leading `/` and `./` are removed, and the archive's root itself
    /// (stored as `.`, `./` or `/`) becomes the empty string. The name may
    /// still contain `..` components or repeated slashes; resolve it inside
    /// the root, as Linux does.
    pub name: &'a str,
    /// The full `st_mode`: file-type bits and permission bits.
    pub mode: u32,
    /// Owner user id.
    pub uid: u32,
    /// Owner group id.
    pub gid: u32,
    /// Number of hard links the file had where the archive was made; see
    /// [`hard_link_groups`].
    pub nlink: u32,
    /// Modification time in seconds since the Unix epoch.
    pub mtime: u64,
    /// Inode number where the archive was made; only meaningful for finding
    /// hard links.
    pub ino: u32,
    /// Major number of the device the file lived on (hard-link identity).
    pub dev_major: u32,
    /// Minor number of the device the file lived on (hard-link identity).
    pub dev_minor: u32,
    /// For character and block devices, the device's major number.
    pub rdev_major: u32,
    /// For character and block devices, the device's minor number.
    pub rdev_minor: u32,
    /// The member's data: file contents, or a symlink's target. Linux
    /// ignores data on directories, devices, FIFOs and sockets, and so
    /// should the caller.
    pub data: &'a [u8],
    /// Which archive of a concatenation this member came from, counting
    /// from 0; hard links never span archives (Linux forgets them at each
    /// trailer).
    pub archive_index: usize,
    // Derived from `mode` by the parser, which rejects unknown types, so
    // that `file_type()` needs no failure case.
    kind: FileType,
}

impl<'a> Entry<'a> {
    /// The member's type. Unknown types were rejected while parsing.
    pub fn file_type(&self) -> FileType {
        self.kind
    }

    /// The permission bits of the mode, including set-user-id, set-group-id
    /// and sticky (`mode & 0o7777`).
    pub fn permissions(&self) -> u32 {
        self.mode & 0o7777
    }

    /// The identity shared by all names of a hard-linked regular file, or
    /// `None` when this member is not one (not a regular file, or `nlink`
    /// below 2). Linux links only regular files (`maybe_link` in
    /// `init/initramfs.c`).
    pub fn link_key(&self) -> Option<LinkKey> {
        if self.kind == FileType::Regular && self.nlink >= 2 {
            Some(LinkKey {
                archive_index: self.archive_index,
                dev_major: self.dev_major,
                dev_minor: self.dev_minor,
                ino: self.ino,
            })
        } else {
            None
        }
    }
}

/// What identifies one file among hard links: the archive it is in and its
/// device and inode numbers where the archive was made.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LinkKey {
    /// See [`Entry::archive_index`].
    pub archive_index: usize,
    /// See [`Entry::dev_major`].
    pub dev_major: u32,
    /// See [`Entry::dev_minor`].
    pub dev_minor: u32,
    /// See [`Entry::ino`].
    pub ino: u32,
}

/// All names of one hard-linked regular file in an archive.
///
/// cpio writes a hard-linked file once per name; in the newc format the
/// data is stored only with the last name and the others have size 0.
/// Linux creates the file at the first name and links the later names to
/// it, writing each member's data into the shared inode. The caller can do
/// the same: create the file at `entries[0].name` with [`Self::data`], and
/// hard-link every other name to it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HardLinkGroup<'a> {
    /// The identity the members share.
    pub key: LinkKey,
    /// The members, in archive order; always at least two.
    pub entries: Vec<Entry<'a>>,
}

impl<'a> HardLinkGroup<'a> {
    /// The file's contents: the data of the last member that has any
    /// (GNU cpio puts it on the last name; other writers on the first).
    pub fn data(&self) -> &'a [u8] {
        self.entries
            .iter()
            .rev()
            .map(|e| e.data)
            .find(|d| !d.is_empty())
            .unwrap_or(&[])
    }

    /// The names, in archive order.
    pub fn names(&self) -> impl Iterator<Item = &'a str> + '_ {
        self.entries.iter().map(|e| e.name)
    }
}

/// The hard-linked files of an uncompressed archive (or concatenation of
/// archives): every group of two or more regular-file members with the same
/// [`LinkKey`], in order of first appearance.
///
/// A member whose [`Entry::link_key`] is `Some` but that is in no returned
/// group is simply a file whose other names were not archived; its own
/// data is its contents.
pub fn hard_link_groups(archive: &[u8]) -> Result<Vec<HardLinkGroup<'_>>, CpioError> {
    let mut groups: Vec<HardLinkGroup<'_>> = Vec::new();
    // Index by key so that an archive with many links stays linear.
    let mut index: BTreeMap<LinkKey, usize> = BTreeMap::new();
    for entry in entries(archive) {
        let entry = entry?;
        let Some(key) = entry.link_key() else { continue };
        match index.get(&key) {
            Some(&i) => {
                if let Some(group) = groups.get_mut(i) {
                    group.entries.push(entry);
                }
            }
            None => {
                index.insert(key, groups.len());
                groups.push(HardLinkGroup { key, entries: alloc::vec![entry] });
            }
        }
    }
    groups.retain(|g| g.entries.len() >= 2);
    Ok(groups)
}

/// Iterates over the members of uncompressed cpio data.
///
/// The data may hold several archives one after the other, with zero bytes
/// between them, as Linux accepts; each archive must start at a multiple of
/// 4 bytes and end with a `TRAILER!!!` member. The trailers themselves are
/// not yielded. An empty slice, or one of only zero bytes, has no members.
///
/// After the first error the iterator ends. Compressed data is an error
/// ([`CpioError::UnexpectedCompressedData`]): call
/// [`decompress_if_needed`](crate::decompress_if_needed) first.
pub fn entries(archive: &[u8]) -> Entries<'_> {
    Entries { data: archive, pos: 0, archive_index: 0, between_archives: true, done: false }
}

/// The iterator returned by [`entries`].
#[derive(Clone, Debug)]
pub struct Entries<'a> {
    data: &'a [u8],
    pos: usize,
    archive_index: usize,
    // True before the first archive and after each trailer: the only places
    // where zero padding is allowed and where the data may end.
    between_archives: bool,
    done: bool,
}

impl<'a> Entries<'a> {
    /// The offset of the next byte to be parsed.
    pub fn offset(&self) -> usize {
        self.pos
    }

    fn fail(&mut self, error: CpioError) -> Option<Result<Entry<'a>, CpioError>> {
        self.done = true;
        Some(Err(error))
    }
}

impl<'a> Iterator for Entries<'a> {
    type Item = Result<Entry<'a>, CpioError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        loop {
            if self.between_archives {
                self.pos = skip_zeros(self.data, self.pos);
                if self.pos >= self.data.len() {
                    self.done = true;
                    return None;
                }
                if self.pos % 4 != 0 {
                    return self.fail(CpioError::BrokenPadding { offset: self.pos });
                }
                self.between_archives = false;
            }
            if self.pos >= self.data.len() {
                return self.fail(CpioError::MissingTrailer);
            }
            match parse_member(self.data, self.pos, self.archive_index) {
                Err(e) => return self.fail(e),
                Ok((Member::Trailer, next)) => {
                    self.pos = next;
                    self.archive_index += 1;
                    self.between_archives = true;
                }
                Ok((Member::Entry(entry), next)) => {
                    self.pos = next;
                    return Some(Ok(entry));
                }
            }
        }
    }
}

impl FusedIterator for Entries<'_> {}

/// Where the run of zero bytes starting at `pos` ends.
pub(crate) fn skip_zeros(data: &[u8], pos: usize) -> usize {
    let rest = data.get(pos..).unwrap_or(&[]);
    pos + rest.iter().take_while(|&&b| b == 0).count()
}

/// The end of the archive starting at `start` (just past its trailer's
/// padding), or the end of the data when it has no trailer; errors in the
/// members on the way are reported.
pub(crate) fn archive_end(data: &[u8], start: usize) -> Result<usize, CpioError> {
    let mut pos = start;
    while pos < data.len() {
        let (member, next) = parse_member(data, pos, 0)?;
        pos = next;
        if let Member::Trailer = member {
            break;
        }
    }
    Ok(pos.min(data.len()))
}

enum Member<'a> {
    Entry(Entry<'a>),
    Trailer,
}

/// The fields of a newc header, in the order they are stored.
const FIELDS: [&str; 13] = [
    "c_ino",
    "c_mode",
    "c_uid",
    "c_gid",
    "c_nlink",
    "c_mtime",
    "c_filesize",
    "c_devmajor",
    "c_devminor",
    "c_rdevmajor",
    "c_rdevminor",
    "c_namesize",
    "c_check",
];

/// Parses the member whose header starts at `pos`, returning it and the
/// offset just past its data's padding.
fn parse_member(data: &[u8], pos: usize, archive_index: usize) -> Result<(Member<'_>, usize), CpioError> {
    let offset = pos;
    let rest = data.get(pos..).unwrap_or(&[]);
    let magic_len = rest.len().min(MAGIC_NEWC.len());
    let magic = &rest[..magic_len];
    if magic != &MAGIC_NEWC[..magic_len] && magic != &MAGIC_CRC[..magic_len] {
        if compression_format(rest).is_some() {
            return Err(CpioError::UnexpectedCompressedData { offset });
        }
        return Err(CpioError::BadMagic { offset });
    }
    let header = rest.get(..HEADER_LEN).ok_or(CpioError::TruncatedHeader { offset })?;

    let mut fields = [0u32; 13];
    for (i, value) in fields.iter_mut().enumerate() {
        let start = MAGIC_NEWC.len() + 8 * i;
        let digits = header.get(start..start + 8).ok_or(CpioError::TruncatedHeader { offset })?;
        *value = parse_hex(digits).ok_or(CpioError::BadField { offset, field: FIELDS[i] })?;
    }
    let [ino, mode, uid, gid, nlink, mtime, filesize, dev_major, dev_minor, rdev_major, rdev_minor, namesize, _check] =
        fields;

    // The name, NUL included, follows the header.
    let namesize = namesize as usize;
    if namesize == 0 {
        return Err(CpioError::EmptyName { offset });
    }
    if namesize > PATH_MAX {
        return Err(CpioError::NameTooLong { offset });
    }
    let name_start = pos.checked_add(HEADER_LEN).ok_or(CpioError::TruncatedName { offset })?;
    let name_end = name_start.checked_add(namesize).ok_or(CpioError::TruncatedName { offset })?;
    let raw_name = data.get(name_start..name_end).ok_or(CpioError::TruncatedName { offset })?;
    let (&last, raw_name) = raw_name.split_last().ok_or(CpioError::EmptyName { offset })?;
    if last != 0 {
        return Err(CpioError::NameNotTerminated { offset });
    }
    // Linux treats the name as a C string, so a NUL inside would silently
    // shorten it; refusing is clearer than guessing which name was meant.
    if raw_name.contains(&0) {
        return Err(CpioError::InvalidName { offset });
    }
    let name = core::str::from_utf8(raw_name).map_err(|_| CpioError::InvalidName { offset })?;

    // Data starts at the next multiple of 4; archives start at multiples of
    // 4, so absolute and archive-relative alignment agree.
    let data_start = align4(name_end).ok_or(CpioError::TruncatedData { offset, size: filesize })?;
    let data_end =
        data_start.checked_add(filesize as usize).ok_or(CpioError::TruncatedData { offset, size: filesize })?;
    let body: &[u8] = if filesize == 0 {
        // A trailing member may lack its padding at the very end of the
        // data; with no data that is harmless.
        &[]
    } else {
        data.get(data_start..data_end).ok_or(CpioError::TruncatedData { offset, size: filesize })?
    };
    // Padding after the data may likewise be cut off at the very end.
    let next = match align4(data_end) {
        Some(n) if n <= data.len() => n,
        _ => data.len(),
    };

    if name == TRAILER_NAME {
        return Ok((Member::Trailer, next));
    }

    let kind = FileType::from_mode(mode).ok_or(CpioError::UnknownFileType { offset, mode })?;
    if kind == FileType::Symlink && body.len() > PATH_MAX {
        return Err(CpioError::SymlinkTooLong { offset });
    }

    let entry = Entry {
        name: strip_root(name),
        mode,
        uid,
        gid,
        nlink,
        mtime: u64::from(mtime),
        ino,
        dev_major,
        dev_minor,
        rdev_major,
        rdev_minor,
        data: body,
        archive_index,
        kind,
    };
    Ok((Member::Entry(entry), next))
}

/// Eight ASCII hexadecimal digits, either case. Linux's parser stops at the
/// first non-digit without complaint; a stray character means a corrupt
/// header, so it is refused here.
fn parse_hex(digits: &[u8]) -> Option<u32> {
    if digits.len() != 8 {
        return None;
    }
    digits.iter().try_fold(0u32, |acc, &c| {
        let d = (c as char).to_digit(16)?;
        Some((acc << 4) | d)
    })
}

fn align4(x: usize) -> Option<usize> {
    x.checked_add(3).map(|v| v & !3)
}

/// Removes leading `/` and `./` so that names are relative to the root,
/// and turns the root's own names (`.`, `./`, `/`) into "".
fn strip_root(mut name: &str) -> &str {
    loop {
        if let Some(rest) = name.strip_prefix('/') {
            name = rest;
        } else if let Some(rest) = name.strip_prefix("./") {
            name = rest;
        } else if name == "." {
            return "";
        } else {
            return name;
        }
    }
}

#[cfg(test)]
mod unit {
    use super::*;

    #[test]
    fn strip_root_cases() {
        assert_eq!(strip_root("./bin/sh"), "bin/sh");
        assert_eq!(strip_root("/bin/sh"), "bin/sh");
        assert_eq!(strip_root(".//./bin"), "bin");
        assert_eq!(strip_root("."), "");
        assert_eq!(strip_root("./"), "");
        assert_eq!(strip_root("/"), "");
        assert_eq!(strip_root(""), "");
        assert_eq!(strip_root(".hidden"), ".hidden");
        assert_eq!(strip_root("../x"), "../x");
        assert_eq!(strip_root("a/./b"), "a/./b");
    }

    #[test]
    fn hex_fields() {
        assert_eq!(parse_hex(b"0000001a"), Some(26));
        assert_eq!(parse_hex(b"FFFFFFFF"), Some(u32::MAX));
        assert_eq!(parse_hex(b"0000001g"), None);
        assert_eq!(parse_hex(b" 0000001"), None);
        assert_eq!(parse_hex(b"+0000001"), None);
        assert_eq!(parse_hex(b"0001"), None);
    }

    #[test]
    fn file_type_round_trip() {
        for t in [
            FileType::Regular,
            FileType::Directory,
            FileType::Symlink,
            FileType::CharDevice,
            FileType::BlockDevice,
            FileType::Fifo,
            FileType::Socket,
        ] {
            assert_eq!(FileType::from_mode(t.mode_bits() | 0o644), Some(t));
        }
        assert_eq!(FileType::from_mode(0o644), None);
        assert_eq!(FileType::from_mode(0o030_000), None);
    }
}
