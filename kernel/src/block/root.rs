//! `root=`: booting from a disk (or a partition) instead of the
//! initramfs, as Linux's prepare_namespace does when no initramfs init
//! runs: the device named by `root=` (`/dev/vda1`, `vda1`, or `MAJ:MIN`)
//! is mounted on `/` as `/dev/root` (read-only unless `rw`; `rootfstype=`
//! must be `ext2` if given, `rootflags=` are the file system's options),
//! then devtmpfs on its `/dev` (Linux's CONFIG_DEVTMPFS_MOUNT). What init
//! runs is decided by the caller (`init=`, else /sbin/init...).

use alloc::sync::Arc;
use alloc::vec::Vec;

use kevlar_vfs::Inode;
use linux_raw_sys::general as abi;

use super::BlockDev;
use crate::error::{Errno, Result};

/// Finds the device `root=` names.
pub fn device(spec: &str) -> Option<Arc<BlockDev>> {
    if let Some((major, minor)) = spec.split_once(':') {
        let (major, minor) = (major.parse().ok()?, minor.parse().ok()?);
        return super::by_rdev(crate::fs::initramfs::make_rdev(major, minor));
    }
    let name = spec.strip_prefix("/dev/").unwrap_or(spec);
    super::devices().into_iter().find(|d| d.name == name)
}

/// Mounts the root device over `rootfs` (the initramfs's root directory)
/// and returns the new root directory.
pub fn mount(rootfs: &Arc<dyn Inode>, spec: &str, fstype: Option<&str>, flags_text: Option<&str>, read_write: bool) -> Result<Arc<dyn Inode>> {
    let dev = device(spec).ok_or(Errno::ENXIO)?;
    let flags = if read_write { 0 } else { abi::MS_RDONLY };
    let data: Vec<u8> = flags_text.unwrap_or("").as_bytes().to_vec();
    // rootfstype= names the type; without it ext2 is tried, then ext4
    // (which mounts what the ext2 rules refuse: extents, journals...), as
    // Linux tries each registered type in turn.
    let types: &[&'static str] = match fstype {
        None => &["ext2", "ext4"],
        Some("ext2") => &["ext2"],
        Some("ext3") => &["ext3"],
        Some("ext4") => &["ext4"],
        Some(_) => return Err(Errno::ENODEV),
    };
    let mut mounted = Err(Errno::EINVAL);
    let mut used = types[0];
    for &t in types {
        used = t;
        mounted = crate::fs::mount::mount_ext2(rootfs.clone(), b"/".to_vec(), b"/dev/root".to_vec(), dev.rdev(), flags, &data, t);
        if mounted.is_ok() {
            break;
        }
    }
    mounted?;
    let root = crate::fs::mount::mounts().into_iter().rev().find(|m| m.path == b"/" && m.on.is_some()).map(|m| m.root).ok_or(Errno::EINVAL)?;
    log::info!("VFS: Mounted root ({} filesystem) {} on device {}:{}.", used, if read_write { "" } else { "readonly" }, dev.major, dev.minor);
    if let Ok(dev_dir) = root.lookup(b"dev") {
        if let Err(e) = crate::fs::mount::mount_new(dev_dir, b"/dev".to_vec(), b"devtmpfs".to_vec(), b"devtmpfs", 0, b"") {
            log::warn!("devtmpfs: error mounting {:?}", e);
        } else {
            log::info!("devtmpfs: mounted");
        }
    }
    Ok(root)
}
