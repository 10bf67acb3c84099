//! File handles: name_to_handle_at(2) turns a node into an opaque handle
//! that open_by_handle_at(2) turns back into the node, with no path in
//! between, as Linux's export operations do. Each file system type keeps
//! Linux's handle format, so sizes and types match:
//!
//! - tmpfs (rootfs, devtmpfs): three words, generation and the 64-bit
//!   inode number, type 1 (`shmem_encode_fh`); found again only while the
//!   inode lives (Linux's `ilookup5`), so the kernel remembers the nodes
//!   it made handles for, weakly;
//! - ext2/ext4: two words, inode number and `i_generation`, type
//!   `FILEID_INO32_GEN` (1); found again from the disk;
//! - cgroup2: the node id, 64 bits, type `FILEID_KERNFS` (0xfe): systemd
//!   takes a cgroup's id from it;
//! - others (procfs, sysfs, devpts, pipes, sockets): no handles,
//!   EOPNOTSUPP; a handle given with a descriptor on them is ESTALE.

use alloc::collections::BTreeMap;
use alloc::sync::{Arc, Weak};
use alloc::vec::Vec;

use kevlar_platform::sync::SpinLock;
use kevlar_vfs::{FileType, Inode};

use super::mount::{self, FsKind};
use crate::error::{Errno, Result};

/// The largest handle (`MAX_HANDLE_SZ`).
pub const MAX_HANDLE_SZ: usize = 128;
/// The type of a handle too large for the space given (`FILEID_INVALID`).
pub const FILEID_INVALID: i32 = 255;
const FILEID_INO32_GEN: i32 = 1;
const FILEID_INO32_GEN_PARENT: i32 = 2;
const FILEID_KERNFS: i32 = 0xfe;

/// A node's handle.
pub struct Handle {
    /// The id of the mount the node was found through.
    pub mount_id: u32,
    /// The handle type (`handle_type`).
    pub kind: i32,
    /// The handle's bytes (`f_handle`; its length is `handle_bytes`).
    pub bytes: Vec<u8>,
}

/// What the kernel remembers of a node it made a handle for.
struct Known {
    /// The node, for file systems whose nodes cannot be found again by
    /// number (tmpfs).
    node: Option<Weak<dyn Inode>>,
    /// The generation number in its handle.
    generation: u32,
    /// The absolute path it was named by (what the opened file records).
    path: Vec<u8>,
}

/// The nodes handles were made for, by (device, inode number).
static KNOWN: SpinLock<BTreeMap<(u64, u64), Known>> = SpinLock::new(BTreeMap::new());
/// Past this many entries, entries of dead nodes and then paths are
/// forgotten (a path is only what /proc shows for a handle's open file).
const KNOWN_LIMIT: usize = 4096;

fn remember(node: &Arc<dyn Inode>, keep_node: bool, path: &[u8], generation: impl FnOnce() -> u32) -> u32 {
    let key = (node.fs_id(), node.ino());
    let mut known = KNOWN.lock();
    if let Some(k) = known.get_mut(&key) {
        // The same node, still alive: same generation. A dead node whose
        // number came back is a new inode with a new generation.
        let alive = match &k.node {
            Some(weak) => weak.strong_count() > 0,
            None => true,
        };
        if alive {
            // An event about a node whose path is not known keeps the
            // one it was last named by.
            if !path.is_empty() {
                k.path = path.to_vec();
            }
            return k.generation;
        }
    }
    if known.len() >= KNOWN_LIMIT {
        known.retain(|_, k| k.node.as_ref().is_some_and(|w| w.strong_count() > 0));
        if known.len() >= KNOWN_LIMIT {
            known.clear();
        }
    }
    let generation = generation();
    known.insert(key, Known { node: keep_node.then(|| Arc::downgrade(node)), generation, path: path.to_vec() });
    generation
}

fn random_u32() -> u32 {
    let mut b = [0u8; 4];
    super::devices::fill_random(&mut b);
    u32::from_le_bytes(b)
}

fn word(bytes: &[u8], i: usize) -> u32 {
    u32::from_le_bytes(bytes[4 * i..4 * i + 4].try_into().unwrap())
}

/// Makes the handle of `node`, named by the absolute `path`. EOPNOTSUPP
/// on a file system without handles.
pub fn encode(node: &Arc<dyn Inode>, path: &[u8]) -> Result<Handle> {
    let m = mount::mount_of(&**node).ok_or(Errno::EOPNOTSUPP)?;
    let (kind, bytes) = match &m.kind {
        FsKind::Rootfs(_) | FsKind::Tmpfs(..) | FsKind::Devtmpfs(_) => {
            let generation = remember(node, true, path, random_u32);
            let ino = node.ino();
            let mut b = Vec::with_capacity(12);
            b.extend_from_slice(&generation.to_le_bytes());
            b.extend_from_slice(&(ino as u32).to_le_bytes());
            b.extend_from_slice(&((ino >> 32) as u32).to_le_bytes());
            (FILEID_INO32_GEN, b)
        }
        FsKind::Ext2(fs) => {
            let ino = u32::try_from(node.ino()).map_err(|_| Errno::EOPNOTSUPP)?;
            let generation = fs.generation(ino)?;
            remember(node, false, path, || generation);
            let mut b = Vec::with_capacity(8);
            b.extend_from_slice(&ino.to_le_bytes());
            b.extend_from_slice(&generation.to_le_bytes());
            (FILEID_INO32_GEN, b)
        }
        FsKind::Cgroup2 => {
            remember(node, false, path, || 0);
            (FILEID_KERNFS, node.ino().to_le_bytes().to_vec())
        }
        FsKind::Proc | FsKind::Sysfs | FsKind::Devpts | FsKind::Mqueue | FsKind::Simple(_) => return Err(Errno::EOPNOTSUPP),
    };
    Ok(Handle { mount_id: m.id, kind, bytes })
}

/// Finds the node of handle (`kind`, `bytes`) on the file system of
/// `within` (the mount descriptor's node); returns it with the path the
/// opened file records. ESTALE for a handle that names nothing there.
pub fn decode(within: &Arc<dyn Inode>, kind: i32, bytes: &[u8]) -> Result<(Arc<dyn Inode>, Vec<u8>)> {
    let m = mount::mount_of(&**within).ok_or(Errno::ESTALE)?;
    let fs_id = within.fs_id();
    let known_path = |ino: u64| KNOWN.lock().get(&(fs_id, ino)).map(|k| k.path.clone()).unwrap_or_else(|| m.path.clone());
    match &m.kind {
        FsKind::Rootfs(_) | FsKind::Tmpfs(..) | FsKind::Devtmpfs(_) => {
            // Linux's shmem_fh_to_dentry looks at the length only.
            if bytes.len() < 12 {
                return Err(Errno::ESTALE);
            }
            let generation = word(bytes, 0);
            let ino = u64::from(word(bytes, 1)) | u64::from(word(bytes, 2)) << 32;
            let known = KNOWN.lock();
            let k = known.get(&(fs_id, ino)).ok_or(Errno::ESTALE)?;
            if k.generation != generation {
                return Err(Errno::ESTALE);
            }
            let node = k.node.as_ref().and_then(Weak::upgrade).ok_or(Errno::ESTALE)?;
            Ok((node, k.path.clone()))
        }
        FsKind::Ext2(fs) => {
            if bytes.len() < 8 || !matches!(kind, FILEID_INO32_GEN | FILEID_INO32_GEN_PARENT) {
                return Err(Errno::ESTALE);
            }
            let node = fs.node_by_handle(word(bytes, 0), word(bytes, 1))?;
            let path = known_path(node.ino());
            Ok((node, path))
        }
        FsKind::Cgroup2 => {
            if bytes.len() < 8 {
                return Err(Errno::ESTALE);
            }
            let id = match kind {
                FILEID_KERNFS => u64::from_le_bytes(bytes[..8].try_into().unwrap()),
                FILEID_INO32_GEN | FILEID_INO32_GEN_PARENT => u64::from(word(bytes, 0)),
                _ => return Err(Errno::ESTALE),
            };
            let node = find_in_tree(&m.root, id).ok_or(Errno::ESTALE)?;
            Ok((node, known_path(id)))
        }
        _ => Err(Errno::ESTALE),
    }
}

/// Looks for the node numbered `ino` in the tree under `root`, breadth
/// first (a cgroup hierarchy: small, and its nodes are made on lookup).
fn find_in_tree(root: &Arc<dyn Inode>, ino: u64) -> Option<Arc<dyn Inode>> {
    let mut queue = alloc::collections::VecDeque::new();
    queue.push_back(root.clone());
    let mut visited = 0usize;
    while let Some(dir) = queue.pop_front() {
        if dir.ino() == ino {
            return Some(dir);
        }
        visited += 1;
        if visited > 100_000 {
            return None;
        }
        let mut index = 0;
        while let Ok(Some((entry, next))) = dir.read_dir(index) {
            index = next;
            if entry.name == b"." || entry.name == b".." {
                continue;
            }
            if entry.ino == ino || entry.file_type == FileType::Directory {
                if let Ok(child) = dir.lookup(&entry.name) {
                    if child.ino() == ino {
                        return Some(child);
                    }
                    if child.file_type() == FileType::Directory {
                        queue.push_back(child);
                    }
                }
            }
        }
    }
    None
}
