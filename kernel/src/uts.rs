//! The system's names as uname(2) reports them: the kernel's name, release
//! and version, and the host and NIS domain names that sethostname and
//! setdomainname change (/proc/sys/kernel shows the same), one pair per
//! UTS namespace.

use alloc::sync::Arc;
use alloc::vec::Vec;

use kevlar_platform::sync::SpinLock;

use crate::error::{Errno, Result};

/// A UTS namespace: the `struct utsname` uname copies out, kept whole so
/// the call is one copy: six fields of 65 bytes; the host (1) and domain
/// (5) names change with sethostname and setdomainname.
pub struct UtsNs {
    /// The namespace's nsfs inode number (/proc/PID/ns/uts).
    pub inum: u64,
    names: SpinLock<[u8; UTS_LEN]>,
}

impl UtsNs {
    /// Makes a new namespace with this one's names (CLONE_NEWUTS).
    pub fn copy(&self) -> Arc<UtsNs> {
        Arc::new(UtsNs { inum: crate::ns::alloc_inum(), names: SpinLock::new(*self.names.lock()) })
    }
}

/// Linux's initial UTS namespace's inode number (PROC_UTS_INIT_INO).
const INIT_UTS_INUM: u64 = 0xEFFF_FFFE;

static INIT_NS: SpinLock<Option<Arc<UtsNs>>> = SpinLock::new(None);

/// Returns the initial UTS namespace (made at first use).
pub fn init_ns() -> Arc<UtsNs> {
    INIT_NS.lock().get_or_insert_with(|| Arc::new(UtsNs { inum: INIT_UTS_INUM, names: SpinLock::new(initial_utsname()) })).clone()
}

/// The calling process's UTS namespace.
fn current() -> Arc<UtsNs> {
    crate::ns::current().uts.clone()
}

const UTS_FIELD: usize = 65;
pub const UTS_LEN: usize = 6 * UTS_FIELD;
const UTS_HOST: usize = 1;
const UTS_DOMAIN: usize = 5;

const fn initial_utsname() -> [u8; UTS_LEN] {
    let fields: [&[u8]; 6] = [SYSNAME.as_bytes(), b"kevlar", RELEASE.as_bytes(), VERSION.as_bytes(), b"x86_64", b"(none)"];
    let mut out = [0u8; UTS_LEN];
    let mut f = 0;
    while f < fields.len() {
        let mut i = 0;
        while i < fields[f].len() {
            out[f * UTS_FIELD + i] = fields[f][i];
            i += 1;
        }
        f += 1;
    }
    out
}

fn name_field(domain: bool) -> core::ops::Range<usize> {
    let f = if domain { UTS_DOMAIN } else { UTS_HOST };
    f * UTS_FIELD..(f + 1) * UTS_FIELD
}

/// The kernel's name, release and version, as uname reports them.
pub const SYSNAME: &str = "Linux";
/// The release uname reports.
pub const RELEASE: &str = "6.1.0-kevlar";
/// The version uname reports.
pub const VERSION: &str = "#1 SMP Kevlar";

/// Returns the host name (or, with `domain`, the NIS domain name).
pub fn host_name(domain: bool) -> Vec<u8> {
    let ns = current();
    let uts = ns.names.lock();
    let field = &uts[name_field(domain)];
    let len = field.iter().position(|&b| b == 0).unwrap_or(64);
    field[..len].to_vec()
}

/// Counts the changes of the host name and of the domain name (in any
/// namespace, as Linux's `hostname_poll` and `domainname_poll`), for
/// pollers of /proc/sys/kernel/hostname and domainname.
static HOST_NAME_CHANGES: core::sync::atomic::AtomicU64 = core::sync::atomic::AtomicU64::new(0);
static DOMAIN_NAME_CHANGES: core::sync::atomic::AtomicU64 = core::sync::atomic::AtomicU64::new(0);

/// The number of host name changes so far.
pub fn host_name_changes() -> u64 {
    HOST_NAME_CHANGES.load(core::sync::atomic::Ordering::Relaxed)
}

/// The number of domain name changes so far.
pub fn domain_name_changes() -> u64 {
    DOMAIN_NAME_CHANGES.load(core::sync::atomic::Ordering::Relaxed)
}

/// Sets the host name (or the domain name): at most 64 bytes.
pub fn set_host_name(domain: bool, name: &[u8]) -> Result<()> {
    if name.len() > 64 {
        return Err(Errno::EINVAL);
    }
    let mut buf = [0u8; UTS_FIELD];
    buf[..name.len()].copy_from_slice(name);
    current().names.lock()[name_field(domain)].copy_from_slice(&buf);
    let changes = if domain { &DOMAIN_NAME_CHANGES } else { &HOST_NAME_CHANGES };
    changes.fetch_add(1, core::sync::atomic::Ordering::Relaxed);
    crate::fs::file::notify_pollers();
    Ok(())
}

/// The whole `struct utsname`, as uname copies it out.
pub fn utsname() -> [u8; UTS_LEN] {
    let ns = current();
    let names = *ns.names.lock();
    names
}
