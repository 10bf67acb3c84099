//! `/proc/PID/ns`: one magic link per namespace of the process
//! (`mnt -> 'mnt:[4026531841]'`), leading to the namespace's nsfs node;
//! reading or following one needs ptrace read access to the process.

use alloc::boxed::Box;
use alloc::sync::Arc;
use alloc::vec::Vec;

use kevlar_vfs::{DirEntry, FileType, Inode};

use super::pid::{may_access, process};
use crate::error::{Errno, Result};
use crate::fs::synth::{Attr, DirSource, SynthLink};
use crate::ns::nsfs;
use crate::process::access::PtraceMode;
use crate::process::Pid;

/// Offset of the `ns` entries' inode numbers from `/proc/PID`'s.
pub const NS_BASE: u64 = 0x7000;

/// The entries of `/proc/PID/ns`.
pub struct NsSource {
    pub pid: Pid,
    /// The thread (/proc/PID/task/TID/ns): namespaces are per thread; None
    /// for /proc/PID/ns, the main thread's.
    pub tid: Option<Pid>,
    pub base: u64,
    /// Owner and permission bits of the links (the inode number is each
    /// link's own).
    pub attr: Attr,
}

/// Returns the namespace `name` of process `pid`, if the caller may see it.
fn namespace(pid: Pid, tid: Option<Pid>, name: &[u8]) -> Result<nsfs::NsRef> {
    let p = process(pid)?;
    if !may_access(&p, PtraceMode::Read) {
        return Err(Errno::EACCES);
    }
    let set = match tid.and_then(|tid| p.fs.thread_ns(tid)) {
        Some(set) => set,
        None => p.ns.lock().clone(),
    };
    nsfs::entry(&set, name).ok_or(Errno::ENOENT)
}

impl DirSource for NsSource {
    fn list(&self) -> Vec<DirEntry> {
        nsfs::ENTRIES.iter().enumerate().map(|(i, name)| DirEntry { ino: self.base + i as u64 + 1, file_type: FileType::Symlink, name: name.as_bytes().to_vec() }).collect()
    }

    fn lookup(&self, _dir: &Arc<dyn Inode>, name: &[u8]) -> Result<Arc<dyn Inode>> {
        let index = nsfs::ENTRIES.iter().position(|n| n.as_bytes() == name).ok_or(Errno::ENOENT)?;
        let attr = Attr { ino: self.base + index as u64 + 1, ..self.attr };
        let (pid, tid, name) = (self.pid, self.tid, nsfs::ENTRIES[index].as_bytes());
        let target = move || -> Result<Vec<u8>> { Ok(namespace(pid, tid, name)?.link_text().into_bytes()) };
        let resolve = move || -> Result<Arc<dyn Inode>> { Ok(nsfs::node(namespace(pid, tid, name)?)) };
        Ok(SynthLink::magic(attr, Box::new(target), Box::new(resolve)))
    }

    fn create_error(&self) -> Errno {
        Errno::ENOENT
    }

    fn name_of(&self, ino: u64) -> Option<Vec<u8>> {
        let index = usize::try_from(ino.checked_sub(self.base + 1)?).ok()?;
        nsfs::ENTRIES.get(index).map(|n| n.as_bytes().to_vec())
    }
}
