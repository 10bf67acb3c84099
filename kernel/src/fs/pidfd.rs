//! pidfd: a file that names a process (pidfd_open, CLONE_PIDFD). It is
//! readable (POLLIN) once the process has exited, can be signalled through
//! (pidfd_send_signal) and waited for (waitid P_PIDFD); read and write are
//! EINVAL, as on Linux.

use alloc::format;
use alloc::string::String;
use alloc::sync::Arc;

use super::file::{FileOps, OpenFile, PollEvents, POLLIN};
use crate::error::{Errno, Result};
use crate::process::Process;

/// The file: the process it names (kept alive while the file is open, as
/// Linux's pidfd holds its `struct pid`).
pub struct PidFd {
    process: Arc<Process>,
}

impl PidFd {
    pub fn new(process: Arc<Process>) -> Arc<PidFd> {
        Arc::new(PidFd { process })
    }

    /// The process the file names.
    pub fn process(&self) -> &Arc<Process> {
        &self.process
    }

    /// Its lines of /proc/PID/fdinfo/N as PID namespace `ns` (the
    /// procfs's, Linux's proc_pid_ns) numbers the process.
    pub fn fdinfo_in(&self, ns: &Arc<crate::ns::pid::PidNs>) -> String {
        // Linux shows -1 once the process is gone (reaped), 0 when the
        // namespace does not number it; NSpid goes on with its numbers in
        // the namespaces below.
        if self.process.is_reaped() {
            return String::from("Pid:\t-1\nNSpid:\t-1\n");
        }
        let chain = crate::ns::pid::chain_from(ns, self.process.pid);
        let numbers: alloc::vec::Vec<String> = chain.iter().map(|ns| format!("{}", crate::ns::pid::local_in(ns, self.process.pid))).collect();
        if numbers.is_empty() {
            return String::from("Pid:\t0\nNSpid:\t0\n");
        }
        format!("Pid:\t{}\nNSpid:\t{}\n", numbers[0], numbers.join("\t"))
    }
}

impl FileOps for PidFd {
    super::anon::anon_inode_ops!();

    fn read(&self, _file: &OpenFile, _offset: u64, _buf: &mut [u8]) -> Result<usize> {
        Err(Errno::EINVAL)
    }

    fn write(&self, _file: &OpenFile, _offset: u64, _buf: &[u8]) -> Result<usize> {
        Err(Errno::EINVAL)
    }

    fn poll(&self) -> PollEvents {
        if self.process.exit_status().is_some() { POLLIN } else { 0 }
    }

    fn poll_counts(&self) -> (u64, u64) {
        (u64::from(self.process.exit_status().is_some()), 0)
    }

    fn as_pidfd(&self) -> Option<&PidFd> {
        Some(self)
    }

    fn fdinfo(&self) -> Option<String> {
        Some(self.fdinfo_in(&crate::ns::pid::viewer()))
    }
}
