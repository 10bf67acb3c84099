//! System information: uname, sysinfo, getrandom, resource limits, reboot.

use crate::uaccess::copy_to_user;
use kevlar_platform::mm::PAGE_SIZE;
use linux_raw_sys::general as abi;

use super::read_bytes;
use crate::error::{Errno, Result};
use crate::process::{find_process, Thread};

/// sethostname / setdomainname.
pub fn set_name(thread: &Thread, domain: bool, name: usize, len: usize) -> Result<isize> {
    // CAP_SYS_ADMIN in the user namespace owning the UTS namespace.
    let uts = thread.process.ns.lock().uts.inum;
    if !crate::ns::user::capable_over(&thread.process, uts, abi::CAP_SYS_ADMIN) {
        return Err(Errno::EPERM);
    }
    if len > 64 {
        return Err(Errno::EINVAL);
    }
    let mut buf = [0u8; 64];
    crate::uaccess::copy_from_user(&mut buf[..len], name)?;
    crate::uts::set_host_name(domain, &buf[..len])?;
    Ok(0)
}

pub fn uname(buf: usize) -> Result<isize> {
    let raw = crate::uts::utsname();
    copy_to_user(buf, &raw)?;
    Ok(0)
}

pub fn sysinfo(buf: usize) -> Result<isize> {
    let stats = kevlar_platform::mm::pmm::stats();
    let mut raw = [0u8; 112];
    let uptime = (kevlar_platform::time::monotonic_ns() / 1_000_000_000) as i64;
    raw[0..8].copy_from_slice(&uptime.to_le_bytes());
    // Load averages in 1/65536ths; the kernel keeps them in 1/2048ths.
    for (i, load) in crate::fs::procfs::load_averages().iter().enumerate() {
        raw[8 + i * 8..16 + i * 8].copy_from_slice(&(load << 5).to_le_bytes());
    }
    raw[32..40].copy_from_slice(&(stats.total_bytes as u64).to_le_bytes());
    raw[40..48].copy_from_slice(&(stats.free_bytes as u64).to_le_bytes());
    let procs = crate::process::all_processes().len() as u16;
    raw[80..82].copy_from_slice(&procs.to_le_bytes());
    raw[104..108].copy_from_slice(&1u32.to_le_bytes()); // mem_unit
    copy_to_user(buf, &raw)?;
    Ok(0)
}

/// getrandom as Linux 6.1: the length is cut to MAX_RW_COUNT, the buffer
/// must lie in the user half, and a long request stops at a signal or at a
/// fault with what it filled so far.
pub fn getrandom(thread: &Thread, buf: usize, len: usize, flags: u32) -> Result<isize> {
    if flags & !(abi::GRND_NONBLOCK | abi::GRND_RANDOM | abi::GRND_INSECURE) != 0 || flags & abi::GRND_RANDOM != 0 && flags & abi::GRND_INSECURE != 0 {
        return Err(Errno::EINVAL);
    }
    const MAX_RW_COUNT: usize = 0x7fff_f000;
    let len = len.min(MAX_RW_COUNT);
    if !kevlar_platform::x86::user::is_user_range(buf, len) {
        return Err(Errno::EFAULT);
    }
    let mut done = 0;
    let mut chunk = [0u8; 256];
    while done < len {
        if done % PAGE_SIZE == 0 && done > 0 && (thread.has_pending_signal() || !thread.checkpoint()) {
            break;
        }
        let n = (len - done).min(chunk.len());
        crate::fs::devices::fill_random(&mut chunk[..n]);
        if let Err(e) = copy_to_user(buf + done, &chunk[..n]) {
            return if done > 0 { Ok(done as isize) } else { Err(e) };
        }
        done += n;
    }
    Ok(done as isize)
}


/// prlimit64 (and getrlimit/setrlimit with pid 0), in Linux's order: the
/// new value is read (EFAULT), the target found (a process or thread id,
/// ESRCH) and the caller's permission checked (EPERM) before the resource
/// and the values are.
pub fn prlimit64(thread: &Thread, pid: i32, resource: u32, new: usize, old: usize) -> Result<isize> {
    let new_value = if new != 0 {
        let raw = read_bytes::<16>(new)?;
        let cur = u64::from_le_bytes(raw[..8].try_into().unwrap());
        let max = u64::from_le_bytes(raw[8..].try_into().unwrap());
        Some([cur, max])
    } else {
        None
    };
    let other;
    let target = if pid == 0 {
        &thread.process
    } else {
        other = find_process(crate::ns::pid::global(pid)).or_else(|| crate::process::find_thread(crate::ns::pid::global(pid)).map(|t| t.process.clone())).ok_or(Errno::ESRCH)?;
        &other
    };
    crate::process::access::check_prlimit(&thread.process, target)?;
    if resource >= 16 {
        return Err(Errno::EINVAL);
    }
    if new_value.is_some_and(|[cur, max]| cur > max) {
        return Err(Errno::EINVAL);
    }
    let mut limits = target.limits.lock();
    let current = limits[resource as usize];
    if let Some(v) = new_value {
        if v[1] > current[1] && !crate::process::access::capable(&thread.process, abi::CAP_SYS_RESOURCE) {
            return Err(Errno::EPERM);
        }
        if resource == abi::RLIMIT_NOFILE && v[1] > crate::fs::sysctl::nr_open() as u64 {
            return Err(Errno::EPERM);
        }
        limits[resource as usize] = v;
        if resource == abi::RLIMIT_NOFILE {
            let files = target.files.lock().clone();
            files.lock().set_limit(v[0].min(crate::fs::sysctl::nr_open() as u64) as usize);
        }
    }
    drop(limits);
    if old != 0 {
        let mut raw = [0u8; 16];
        raw[..8].copy_from_slice(&current[0].to_le_bytes());
        raw[8..].copy_from_slice(&current[1].to_le_bytes());
        copy_to_user(old, &raw)?;
    }
    Ok(0)
}

/// reboot(2): power off, restart or halt the machine (CAP_SYS_BOOT; the
/// magic numbers must match, as Linux checks them).
pub fn reboot(thread: &Thread, magic1: u32, magic2: u32, cmd: u32) -> Result<isize> {
    crate::process::access::require(&thread.process, abi::CAP_SYS_BOOT)?;
    if magic1 != abi::LINUX_REBOOT_MAGIC1 || ![abi::LINUX_REBOOT_MAGIC2, abi::LINUX_REBOOT_MAGIC2A, abi::LINUX_REBOOT_MAGIC2B, abi::LINUX_REBOOT_MAGIC2C].contains(&magic2) {
        return Err(Errno::EINVAL);
    }
    if matches!(cmd, abi::LINUX_REBOOT_CMD_POWER_OFF | abi::LINUX_REBOOT_CMD_RESTART | abi::LINUX_REBOOT_CMD_HALT) {
        // Disk file systems write back in memory: what changed reaches
        // the disk before the machine stops.
        crate::fs::mount::sync_all();
    }
    match cmd {
        abi::LINUX_REBOOT_CMD_POWER_OFF => {
            kevlar_platform::println!("reboot: Power down");
            crate::shutdown(true)
        }
        abi::LINUX_REBOOT_CMD_RESTART => {
            kevlar_platform::println!("reboot: Restarting system");
            kevlar_platform::x86::exit::reset()
        }
        abi::LINUX_REBOOT_CMD_HALT => {
            kevlar_platform::println!("reboot: System halted");
            kevlar_platform::x86::exit::halt_all()
        }
        abi::LINUX_REBOOT_CMD_CAD_ON | abi::LINUX_REBOOT_CMD_CAD_OFF => Ok(0),
        _ => Err(Errno::EINVAL),
    }
}
