//! The file-system id statfs(2) reports in `f_fsid` (and fanotify in its
//! file-handle records), as Linux 6.1 (Debian's) derives it:
//!
//! - tmpfs (rootfs, devtmpfs, every tmpfs mount): the superblock's UUID,
//!   random, made when the file system is, folded to 64 bits: a value
//!   that differs from one instance to the next and stays the same for
//!   the life of one;
//! - ext2/ext4: the two halves of the superblock's 128-bit `s_uuid`
//!   (read as little-endian 64-bit words) xor'd, low 32 bits in
//!   `val[0]` (ext4_statfs);
//! - procfs, sysfs, devpts, cgroup2, mqueue, pipes, sockets and anonymous
//!   files: zero (simple_statfs leaves it so).
//!
//! The value is `val[0] | val[1] << 32`, the two ints as they lie in
//! `struct statfs`.

use alloc::collections::BTreeMap;

use kevlar_platform::sync::SpinLock;

use super::mount::{FsKind, Mount};

/// The random ids of tmpfs instances, by device number, made the first
/// time one is asked for.
static TMPFS_IDS: SpinLock<BTreeMap<u64, u64>> = SpinLock::new(BTreeMap::new());

/// Folds a 128-bit UUID to the 64-bit fsid (Linux's uuid_to_fsid).
pub fn fold_uuid(uuid: &[u8; 16]) -> u64 {
    let lo = u64::from_le_bytes(uuid[0..8].try_into().unwrap());
    let hi = u64::from_le_bytes(uuid[8..16].try_into().unwrap());
    lo ^ hi
}

fn tmpfs_id(fs_id: u64) -> u64 {
    let mut ids = TMPFS_IDS.lock();
    *ids.entry(fs_id).or_insert_with(|| loop {
        let mut uuid = [0u8; 16];
        super::devices::fill_random(&mut uuid);
        // A random (version 4) UUID, as uuid_gen makes.
        uuid[6] = (uuid[6] & 0x0f) | 0x40;
        uuid[8] = (uuid[8] & 0x3f) | 0x80;
        let id = fold_uuid(&uuid);
        if id != 0 {
            break id;
        }
    })
}

/// The fsid of the file system `mount` shows.
pub fn of_mount(mount: &Mount) -> u64 {
    match &mount.kind {
        FsKind::Rootfs(_) | FsKind::Tmpfs(..) | FsKind::Devtmpfs(_) => tmpfs_id(mount.root.fs_id()),
        FsKind::Ext2(fs) => fold_uuid(&fs.uuid()),
        FsKind::Proc | FsKind::Sysfs | FsKind::Devpts | FsKind::Cgroup2 | FsKind::Mqueue | FsKind::Simple(_) => 0,
    }
}

/// The fsid of the file system holding `node` (zero when it is mounted
/// nowhere: pipes, sockets, anonymous files).
pub fn of_node(node: &dyn kevlar_vfs::Inode) -> u64 {
    super::mount::mount_of(node).map_or(0, |m| of_mount(&m))
}

/// File system `fs_id` is mounted nowhere any more.
pub fn forget(fs_id: u64) {
    TMPFS_IDS.lock().remove(&fs_id);
}
