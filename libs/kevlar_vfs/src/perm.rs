//! Discretionary access control: the classic owner/group/other mode checks.

use alloc::vec::Vec;
use core::ops::BitOr;
use linux_raw_sys::general as g;

use crate::errno::{Errno, Result};
use crate::types::{FileType, Stat};

/// Every capability bit up to Linux 6.1's last (CAP_LAST_CAP).
const ALL_CAPS: u64 = (1 << (g::CAP_LAST_CAP + 1)) - 1;

/// The identity a file-system access is checked against: the process's
/// file-system uid and gid (`fsuid`/`fsgid`), its supplementary groups and
/// its effective capabilities (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH,
/// CAP_FOWNER, CAP_CHOWN and CAP_FSETID override the mode bits and
/// ownership as on Linux).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Credentials {
    /// File-system user id.
    pub uid: u32,
    /// File-system group id.
    pub gid: u32,
    /// Supplementary group ids.
    pub groups: Vec<u32>,
    /// Effective capabilities (bit n = capability n).
    pub caps: u64,
    /// For a caller in a user namespace other than the initial one: the
    /// ids that namespace maps. Its capabilities then count only over a
    /// node whose owner and group both are among them (Linux's
    /// privileged_wrt_inode_uidgid). None: they count everywhere.
    pub scope: Option<IdScope>,
}

/// The ids a user namespace maps, as ranges `(first, count)` of the ids
/// files carry.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IdScope {
    /// Mapped user ids.
    pub uids: Vec<(u32, u32)>,
    /// Mapped group ids.
    pub gids: Vec<(u32, u32)>,
}

fn in_ranges(ranges: &[(u32, u32)], id: u32) -> bool {
    ranges.iter().any(|&(first, count)| id >= first && (id - first) < count)
}

impl IdScope {
    /// Whether both `uid` and `gid` are mapped.
    pub fn maps(&self, uid: u32, gid: u32) -> bool {
        in_ranges(&self.uids, uid) && in_ranges(&self.gids, gid)
    }
}

impl Default for Credentials {
    /// The superuser's: uid 0 with every capability.
    fn default() -> Self {
        Credentials { uid: 0, gid: 0, groups: Vec::new(), caps: ALL_CAPS, scope: None }
    }
}

impl Credentials {
    /// Returns the superuser's credentials (every capability).
    pub fn root() -> Credentials {
        Credentials::default()
    }

    /// Builds credentials for `uid`/`gid` with no supplementary groups:
    /// every capability for uid 0, none otherwise.
    pub fn new(uid: u32, gid: u32) -> Credentials {
        Credentials {
            uid,
            gid,
            groups: Vec::new(),
            caps: if uid == 0 { ALL_CAPS } else { 0 },
            scope: None,
        }
    }

    /// Tells whether capability `cap` is effective.
    pub fn has_cap(&self, cap: u32) -> bool {
        cap < 64 && self.caps & (1 << cap) != 0
    }

    /// Tells whether capability `cap` is effective over a node with
    /// attributes `stat` (Linux's capable_wrt_inode_uidgid): in a user
    /// namespace, only if its owner and group are mapped there.
    pub fn has_cap_over(&self, cap: u32, stat: &Stat) -> bool {
        self.has_cap(cap) && self.scope.as_ref().map_or(true, |s| s.maps(stat.uid, stat.gid))
    }

    /// Tells whether `gid` is the primary or a supplementary group.
    pub fn in_group(&self, gid: u32) -> bool {
        self.gid == gid || self.groups.contains(&gid)
    }
}

/// A set of requested access rights: read, write and execute/search.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Access(u32);

impl Access {
    /// No right: only checks that the file exists (`F_OK`).
    pub const NONE: Access = Access(0);
    /// Read permission (`R_OK`).
    pub const READ: Access = Access(g::R_OK);
    /// Write permission (`W_OK`).
    pub const WRITE: Access = Access(g::W_OK);
    /// Execute permission, or search for a directory (`X_OK`).
    pub const EXEC: Access = Access(g::X_OK);

    /// Validates the `mode` argument of `access`/`faccessat` (EINVAL for
    /// bits other than `R_OK | W_OK | X_OK`).
    pub fn from_bits(bits: u32) -> Result<Access> {
        if bits & !(g::R_OK | g::W_OK | g::X_OK) != 0 {
            return Err(Errno::EINVAL);
        }
        Ok(Access(bits))
    }

    /// Returns the raw `R_OK`/`W_OK`/`X_OK` bits.
    pub const fn bits(self) -> u32 {
        self.0
    }

    /// Tells whether every right in `other` is requested by `self`.
    pub const fn contains(self, other: Access) -> bool {
        self.0 & other.0 == other.0
    }
}

impl BitOr for Access {
    type Output = Access;

    fn bitor(self, rhs: Access) -> Access {
        Access(self.0 | rhs.0)
    }
}

/// Checks that `cred` may access a node with attributes `stat` as `want`
/// asks, failing with EACCES.
///
/// The caller picks exactly one class of mode bits: owner if the uid
/// matches, else group if any of the caller's groups matches, else other;
/// a class that denies is final even if another class would allow (as on
/// Linux). Then, as Linux's generic_permission, capabilities override a
/// denial: CAP_DAC_READ_SEARCH reading any file or reading and searching
/// any directory, CAP_DAC_OVERRIDE anything but executing a file that has
/// no execute bit at all. Read-only mounts (EROFS) and immutable files are
/// the caller's concern.
pub fn check_access(stat: &Stat, cred: &Credentials, want: Access) -> Result<()> {
    let mode = stat.mode;
    // Each class's rwx bits, shifted down to line up with R_OK/W_OK/X_OK
    // (the ABI defines both with the same layout, other-class at bit 0).
    let granted = if cred.uid == stat.uid {
        (mode & g::S_IRWXU) >> g::S_IRWXU.trailing_zeros()
    } else if cred.in_group(stat.gid) {
        (mode & g::S_IRWXG) >> g::S_IRWXG.trailing_zeros()
    } else {
        mode & g::S_IRWXO
    };
    if want.bits() & !granted == 0 {
        return Ok(());
    }
    let is_dir = FileType::from_mode(mode) == Some(FileType::Directory);
    let read_search = cred.has_cap_over(g::CAP_DAC_READ_SEARCH, stat);
    let overrides = cred.has_cap_over(g::CAP_DAC_OVERRIDE, stat);
    if is_dir {
        if (!want.contains(Access::WRITE) && read_search) || overrides {
            return Ok(());
        }
        return Err(Errno::EACCES);
    }
    if want == Access::READ && read_search {
        return Ok(());
    }
    let any_exec = mode & (g::S_IXUSR | g::S_IXGRP | g::S_IXOTH) != 0;
    if (!want.contains(Access::EXEC) || any_exec) && overrides {
        return Ok(());
    }
    Err(Errno::EACCES)
}

/// Checks that `cred` may remove or rename away an entry for `victim` in
/// the directory `dir`, as far as the sticky bit is concerned (EPERM): in a
/// sticky directory only the victim's owner, the directory's owner and a
/// holder of CAP_FOWNER may. Write and search permission on `dir` are
/// checked separately with [`check_access`].
pub fn check_sticky(dir: &Stat, victim: &Stat, cred: &Credentials) -> Result<()> {
    if dir.mode & g::S_ISVTX != 0
        && !cred.has_cap_over(g::CAP_FOWNER, victim)
        && cred.uid != victim.uid
        && cred.uid != dir.uid
    {
        return Err(Errno::EPERM);
    }
    Ok(())
}

/// Checks that `cred` owns the node or holds CAP_FOWNER (EPERM otherwise),
/// the rule for `chmod`, `utimes` with explicit times, and similar
/// (Linux's inode_owner_or_capable).
pub fn check_owner(stat: &Stat, cred: &Credentials) -> Result<()> {
    if cred.has_cap_over(g::CAP_FOWNER, stat) || cred.uid == stat.uid {
        Ok(())
    } else {
        Err(Errno::EPERM)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(t: FileType, perm: u32, uid: u32, gid: u32) -> Stat {
        Stat {
            mode: t.mode_bits() | perm,
            uid,
            gid,
            ..Stat::default()
        }
    }

    #[test]
    fn owner_group_other_classes() {
        let st = node(FileType::Regular, 0o640, 100, 200);
        let owner = Credentials::new(100, 1);
        let group = Credentials::new(101, 200);
        let supplementary = Credentials {
            uid: 102,
            gid: 5,
            groups: vec![7, 200],
            caps: 0,
            scope: None,
        };
        let other = Credentials::new(103, 300);
        assert_eq!(
            check_access(&st, &owner, Access::READ | Access::WRITE),
            Ok(())
        );
        assert_eq!(check_access(&st, &owner, Access::EXEC), Err(Errno::EACCES));
        assert_eq!(check_access(&st, &group, Access::READ), Ok(()));
        assert_eq!(check_access(&st, &group, Access::WRITE), Err(Errno::EACCES));
        assert_eq!(check_access(&st, &supplementary, Access::READ), Ok(()));
        assert_eq!(check_access(&st, &other, Access::READ), Err(Errno::EACCES));
        assert_eq!(check_access(&st, &other, Access::NONE), Ok(()));
    }

    #[test]
    fn denying_class_is_final() {
        // Owner has no rights although "other" has all: Linux denies the owner.
        let st = node(FileType::Regular, 0o007, 100, 200);
        assert_eq!(
            check_access(&st, &Credentials::new(100, 1), Access::READ),
            Err(Errno::EACCES)
        );
        assert_eq!(
            check_access(&st, &Credentials::new(5, 200), Access::READ),
            Err(Errno::EACCES)
        );
        assert_eq!(
            check_access(&st, &Credentials::new(5, 6), Access::READ),
            Ok(())
        );
    }

    #[test]
    fn root_rules() {
        let root = Credentials::root();
        let file = node(FileType::Regular, 0o000, 100, 100);
        assert_eq!(
            check_access(&file, &root, Access::READ | Access::WRITE),
            Ok(())
        );
        assert_eq!(check_access(&file, &root, Access::EXEC), Err(Errno::EACCES));
        let exec_by_other = node(FileType::Regular, 0o001, 100, 100);
        assert_eq!(check_access(&exec_by_other, &root, Access::EXEC), Ok(()));
        let dir = node(FileType::Directory, 0o000, 100, 100);
        assert_eq!(
            check_access(&dir, &root, Access::EXEC | Access::WRITE),
            Ok(())
        );
    }

    #[test]
    fn access_bits_validation() {
        assert_eq!(
            Access::from_bits(g::R_OK | g::X_OK),
            Ok(Access::READ | Access::EXEC)
        );
        assert_eq!(Access::from_bits(0), Ok(Access::NONE));
        assert_eq!(Access::from_bits(8), Err(Errno::EINVAL));
    }

    #[test]
    fn sticky_directory() {
        let dir = node(FileType::Directory, 0o1777, 10, 10);
        let victim = node(FileType::Regular, 0o644, 20, 20);
        assert_eq!(
            check_sticky(&dir, &victim, &Credentials::new(20, 0)),
            Ok(())
        );
        assert_eq!(
            check_sticky(&dir, &victim, &Credentials::new(10, 0)),
            Ok(())
        );
        assert_eq!(check_sticky(&dir, &victim, &Credentials::root()), Ok(()));
        assert_eq!(
            check_sticky(&dir, &victim, &Credentials::new(30, 20)),
            Err(Errno::EPERM)
        );
        let plain = node(FileType::Directory, 0o777, 10, 10);
        assert_eq!(
            check_sticky(&plain, &victim, &Credentials::new(30, 20)),
            Ok(())
        );
    }

    #[test]
    fn ownership() {
        let st = node(FileType::Regular, 0o644, 10, 10);
        assert_eq!(check_owner(&st, &Credentials::new(10, 99)), Ok(()));
        assert_eq!(check_owner(&st, &Credentials::root()), Ok(()));
        assert_eq!(
            check_owner(&st, &Credentials::new(11, 10)),
            Err(Errno::EPERM)
        );
    }
}
