//! Unpacking the initramfs (a newc cpio archive, possibly gzip-compressed)
//! into the tmpfs root, and the device nodes of /dev.

use alloc::collections::BTreeMap;
use alloc::sync::Arc;
use alloc::vec::Vec;

use kevlar_cpio::{FileType as CpioType, LinkKey};
use kevlar_vfs::{FileType, Inode, SetAttr};

use crate::error::{Errno, Result};

/// Returns the directory at `path` under `root`, creating missing ones.
pub fn ensure_dir(root: &Arc<dyn Inode>, path: &[u8]) -> Result<Arc<dyn Inode>> {
    let mut dir = root.clone();
    for part in path.split(|&b| b == b'/').filter(|p| !p.is_empty() && *p != b".") {
        dir = match dir.lookup(part) {
            Ok(node) => node,
            Err(e) if e == Errno::ENOENT => dir.create(part, FileType::Directory, 0o755, 0, 0, 0)?,
            Err(e) => return Err(e),
        };
    }
    Ok(dir)
}

fn split_parent(path: &str) -> (&[u8], &[u8]) {
    let bytes = path.trim_end_matches('/').as_bytes();
    match bytes.iter().rposition(|&b| b == b'/') {
        Some(i) => (&bytes[..i], &bytes[i + 1..]),
        None => (b"", bytes),
    }
}

/// Unpacks `image` into `root`. Returns the number of entries created.
pub fn unpack(root: &Arc<dyn Inode>, image: &[u8]) -> Result<usize> {
    let data = kevlar_cpio::decompress_if_needed(image).map_err(|_| Errno::EINVAL)?;
    let mut links: BTreeMap<LinkKey, Arc<dyn Inode>> = BTreeMap::new();
    let mut count = 0;
    for entry in kevlar_cpio::entries(&data) {
        let entry = entry.map_err(|_| Errno::EINVAL)?;
        let name = entry.name;
        if name.is_empty() || name == "." {
            continue;
        }
        let (parent, leaf) = split_parent(name);
        if leaf.is_empty() {
            continue;
        }
        let dir = ensure_dir(root, parent)?;
        let perms = entry.permissions();
        if let Some(key) = entry.link_key() {
            if let Some(existing) = links.get(&key) {
                dir.link(leaf, existing)?;
                if !entry.data.is_empty() {
                    existing.write_at(0, entry.data)?;
                }
                count += 1;
                continue;
            }
        }
        let node = match entry.file_type() {
            CpioType::Directory => match dir.lookup(leaf) {
                Ok(existing) => existing,
                Err(_) => dir.create(leaf, FileType::Directory, perms, entry.uid, entry.gid, 0)?,
            },
            CpioType::Regular => {
                let node = dir.create(leaf, FileType::Regular, perms, entry.uid, entry.gid, 0)?;
                node.write_at(0, entry.data)?;
                node
            }
            CpioType::Symlink => dir.symlink(leaf, entry.data, entry.uid, entry.gid)?,
            CpioType::CharDevice | CpioType::BlockDevice => {
                let ty = if entry.file_type() == CpioType::CharDevice { FileType::CharDevice } else { FileType::BlockDevice };
                dir.create(leaf, ty, perms, entry.uid, entry.gid, make_rdev(entry.rdev_major, entry.rdev_minor))?
            }
            CpioType::Fifo => dir.create(leaf, FileType::Fifo, perms, entry.uid, entry.gid, 0)?,
            CpioType::Socket => dir.create(leaf, FileType::Socket, perms, entry.uid, entry.gid, 0)?,
        };
        if entry.file_type() != CpioType::Symlink {
            let attr = SetAttr { mode: Some(perms), ..SetAttr::default() };
            let _ = node.set_attr(&attr);
        }
        if let Some(key) = entry.link_key() {
            links.insert(key, node);
        }
        count += 1;
    }
    Ok(count)
}

/// Encodes a device number as Linux's `dev_t` (new encoding).
pub fn make_rdev(major: u32, minor: u32) -> u64 {
    let (major, minor) = (major as u64, minor as u64);
    (minor & 0xff) | ((major & 0xfff) << 8) | ((minor & !0xff) << 12) | ((major & !0xfff) << 32)
}

/// Splits a `dev_t` into major and minor.
pub fn split_rdev(rdev: u64) -> (u32, u32) {
    let major = ((rdev >> 8) & 0xfff) | ((rdev >> 32) & !0xfff);
    let minor = (rdev & 0xff) | ((rdev >> 12) & !0xff);
    (major as u32, minor as u32)
}

/// Creates a block-device node for every disk and partition in `dev`
/// (mode 0660, as Linux's devtmpfs gives disks).
fn populate_disks(dev: &Arc<dyn Inode>) -> Result<()> {
    for disk in crate::block::devices() {
        if dev.lookup(disk.name.as_bytes()).is_err() {
            dev.create(disk.name.as_bytes(), FileType::BlockDevice, 0o660, 0, 0, make_rdev(disk.major, disk.minor))?;
        }
    }
    Ok(())
}

/// Creates devtmpfs's nodes: one per device the kernel has, with the
/// modes Linux's devtmpfs gives them (and, as there, no symlinks).
pub fn populate_devtmpfs(dev: &Arc<dyn Inode>) -> Result<()> {
    for d in super::devices::char_devices() {
        if dev.lookup(d.name.as_bytes()).is_err() {
            dev.create(d.name.as_bytes(), FileType::CharDevice, d.mode, 0, 0, make_rdev(d.major, d.minor))?;
        }
    }
    populate_disks(dev)
}

/// Creates the device nodes every Linux system has in /dev.
pub fn populate_dev(dev: &Arc<dyn Inode>) -> Result<()> {
    let nodes: [(&[u8], u32, u32, u32); 9] = [
        (b"null", 1, 3, 0o666),
        (b"zero", 1, 5, 0o666),
        (b"full", 1, 7, 0o666),
        (b"random", 1, 8, 0o666),
        (b"urandom", 1, 9, 0o666),
        (b"tty", 5, 0, 0o666),
        (b"console", 5, 1, 0o600),
        (b"ttyS0", 4, 64, 0o660),
        (b"ptmx", 5, 2, 0o666),
    ];
    for (name, major, minor, mode) in nodes {
        if dev.lookup(name).is_err() {
            dev.create(name, FileType::CharDevice, mode, 0, 0, make_rdev(major, minor))?;
        }
    }
    let links: [(&[u8], &[u8]); 3] = [(b"fd", b"/proc/self/fd"), (b"stdin", b"/proc/self/fd/0"), (b"stdout", b"/proc/self/fd/1")];
    for (name, target) in links {
        if dev.lookup(name).is_err() {
            dev.symlink(name, target, 0, 0)?;
        }
    }
    if dev.lookup(b"stderr").is_err() {
        dev.symlink(b"stderr", b"/proc/self/fd/2", 0, 0)?;
    }
    populate_disks(dev)?;
    let _: Vec<u8> = Vec::new();
    Ok(())
}
