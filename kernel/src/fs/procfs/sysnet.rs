//! /proc/sys/net: the settings of `net::sysctl`, as a tree of directories
//! made from their paths. A read or write goes to the network namespace
//! of the caller (Linux's net sysctls belong to the opener's namespace);
//! the eth0 directories are only in a namespace that has eth0.

use alloc::boxed::Box;
use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;

use kevlar_vfs::{DirEntry, FileType, Inode};

use super::{fs_id, setting_file};
use crate::error::{Errno, Result};
use crate::fs::synth::{Attr, DirSource, Parent, SynthDir};
use crate::net::sysctl::KNOBS;

/// The directories under /proc/sys/net (its own path is ""), in the order
/// their settings come: a directory's number is its index.
fn dirs() -> Vec<&'static str> {
    let mut out: Vec<&'static str> = alloc::vec![""];
    for k in KNOBS {
        let mut end = 0;
        while let Some(i) = k.path[end..].find('/') {
            end += i;
            let d = &k.path[..end];
            if !out.contains(&d) {
                out.push(d);
            }
            end += 1;
        }
    }
    out
}

/// Numbers of the files after the directories'.
const FILE_BASE: u64 = 32;

/// Whether the caller's namespace shows `path`: eth0's directories only
/// where eth0 is, the system-wide core settings only in the initial
/// namespace.
fn shown(path: &str) -> bool {
    let eth = path.split('/').any(|p| p == "eth0");
    if !eth && !crate::net::sysctl::initial_only(path) {
        return true;
    }
    crate::ns::net::current().initial && (!eth || crate::net::inet::stack::has_eth())
}

/// /proc/sys/net, numbered from `base`.
pub(super) fn sys_net_dir(base: u64, parent: &Arc<dyn Inode>) -> Arc<dyn Inode> {
    dir(base, "", parent)
}

fn dir(base: u64, path: &'static str, parent: &Arc<dyn Inode>) -> Arc<dyn Inode> {
    let index = dirs().iter().position(|d| *d == path).unwrap_or(0) as u64;
    SynthDir::new(Attr::root(fs_id(), base + index, 0o555), Parent::Strong(parent.clone()), Box::new(NetDir { base, path }))
}

/// One directory of the tree.
struct NetDir {
    base: u64,
    path: &'static str,
}

impl NetDir {
    /// The child `name`'s full path, if it is a directory of the tree.
    fn child_dir(&self, name: &str) -> Option<&'static str> {
        dirs().into_iter().find(|d| !d.is_empty() && parent_of(d) == self.path && last(d) == name)
    }
}

fn parent_of(path: &str) -> &str {
    path.rfind('/').map_or("", |i| &path[..i])
}

fn last(path: &str) -> &str {
    path.rfind('/').map_or(path, |i| &path[i + 1..])
}

impl DirSource for NetDir {
    fn list(&self) -> Vec<DirEntry> {
        let mut out = Vec::new();
        for (i, d) in dirs().into_iter().enumerate() {
            if !d.is_empty() && parent_of(d) == self.path && shown(d) {
                out.push(DirEntry { ino: self.base + i as u64, file_type: FileType::Directory, name: last(d).as_bytes().to_vec() });
            }
        }
        for (i, k) in KNOBS.iter().enumerate() {
            if parent_of(k.path) == self.path && shown(k.path) {
                out.push(DirEntry { ino: self.base + FILE_BASE + i as u64, file_type: FileType::Regular, name: last(k.path).as_bytes().to_vec() });
            }
        }
        out
    }

    fn lookup(&self, dir_node: &Arc<dyn Inode>, name: &[u8]) -> Result<Arc<dyn Inode>> {
        let name = core::str::from_utf8(name).map_err(|_| Errno::ENOENT)?;
        if let Some(d) = self.child_dir(name) {
            if !shown(d) {
                return Err(Errno::ENOENT);
            }
            return Ok(dir(self.base, d, dir_node));
        }
        let index = KNOBS.iter().position(|k| parent_of(k.path) == self.path && last(k.path) == name && shown(k.path)).ok_or(Errno::ENOENT)?;
        let ino = self.base + FILE_BASE + index as u64;
        Ok(setting_file(ino, 0o644, move || Ok(read(index)), move |buf| crate::ns::net::current().sysctl.write(index, buf)))
    }

    fn create_error(&self) -> Errno {
        Errno::ENOENT
    }
}

fn read(index: usize) -> String {
    crate::ns::net::current().sysctl.read(index)
}
