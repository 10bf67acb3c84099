//! procfs's system-wide files: memory, CPU and load figures, the kernel's
//! identity and command line, the file system types, and /proc/sys.

use alloc::boxed::Box;
use alloc::format;
use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::fmt::Write;
use core::sync::atomic::{AtomicU64, Ordering};

use kevlar_platform::smp;
use kevlar_vfs::{FileType, Inode};

use super::{fs_id, setting_file, text_file, BOOT};
use crate::error::{Errno, Result};
use crate::fs::synth::{Attr, Parent, Polling, SynthDir, SynthFile, Table};
use crate::process::{all_processes, ThreadState};

/// USER_HZ: the unit of times in /proc/stat.
const TICKS_PER_SEC: u64 = 100;
const NS_PER_TICK: u64 = 1_000_000_000 / TICKS_PER_SEC;

/// The root's files: name and maker (from the inode number).
pub(super) const FILES: [(&[u8], fn(u64) -> Arc<dyn Inode>); 12] = [
    (b"cgroups", |ino| text_file(ino, || Ok(crate::cgroup::proc_cgroups()))),
    (b"cmdline", |ino| text_file(ino, cmdline)),
    (b"cpuinfo", |ino| text_file(ino, cpuinfo)),
    (b"diskstats", |ino| text_file(ino, || Ok(crate::block::proc_diskstats()))),
    (b"filesystems", |ino| text_file(ino, filesystems)),
    (b"loadavg", |ino| text_file(ino, loadavg)),
    (b"meminfo", |ino| text_file(ino, meminfo)),
    (b"partitions", |ino| text_file(ino, || Ok(crate::block::proc_partitions()))),
    (b"stat", |ino| text_file(ino, stat)),
    (b"uptime", |ino| text_file(ino, uptime)),
    (b"version", |ino| text_file(ino, version)),
    (b"vmstat", |ino| text_file(ino, super::vmstat::vmstat)),
];

fn cmdline() -> Result<String> {
    let boot = BOOT.lock();
    Ok(format!("{}\n", boot.as_ref().map_or("", |b| b.command_line.as_str())))
}

fn version() -> Result<String> {
    Ok(format!("{} version {} (kevlar@kevlar) (rustc) {}\n", crate::uts::SYSNAME, crate::uts::RELEASE, crate::uts::VERSION))
}

fn filesystems() -> Result<String> {
    let mut out = String::new();
    for (name, nodev) in crate::fs::mount::FILESYSTEMS {
        if name != "rootfs" {
            let _ = writeln!(out, "{}\t{}", if nodev { "nodev" } else { "" }, name);
        }
    }
    Ok(out)
}

/// Time since boot and the total idle time of the CPUs, in ns.
fn uptime_and_idle() -> (u64, u64) {
    let up = kevlar_platform::time::monotonic_ns();
    let idle = (0..smp::cpu_count()).map(|cpu| up.saturating_sub(crate::process::CPU_BUSY_NS[cpu].load(Ordering::Relaxed))).sum();
    (up, idle)
}

fn uptime() -> Result<String> {
    let (up, idle) = uptime_and_idle();
    // The reader's time namespace's boot-time offset (idle time stays).
    let up = crate::ns::time::shown(linux_raw_sys::general::CLOCK_BOOTTIME, up);
    let centi = |ns: u64| (ns / 1_000_000_000, (ns / 10_000_000) % 100);
    let (us, uc) = centi(up);
    let (is, ic) = centi(idle);
    Ok(format!("{}.{:02} {}.{:02}\n", us, uc, is, ic))
}

fn stat() -> Result<String> {
    let up = kevlar_platform::time::monotonic_ns();
    let mut out = String::new();
    let cpus = smp::cpu_count();
    let busy: Vec<u64> = (0..cpus).map(|c| crate::process::CPU_BUSY_NS[c].load(Ordering::Relaxed)).collect();
    let line = |out: &mut String, name: &str, busy: u64, idle: u64| {
        // user nice system idle iowait irq softirq steal guest guest_nice;
        // user and system time are not told apart yet: all counts as user.
        let _ = writeln!(out, "{} {} 0 0 {} 0 0 0 0 0 0", name, busy / NS_PER_TICK, idle / NS_PER_TICK);
    };
    let total_busy: u64 = busy.iter().sum();
    let total_idle: u64 = busy.iter().map(|b| up.saturating_sub(*b)).sum();
    line(&mut out, "cpu ", total_busy, total_idle);
    for (cpu, b) in busy.iter().enumerate() {
        line(&mut out, &format!("cpu{}", cpu), *b, up.saturating_sub(*b));
    }
    let interrupts: u64 = (0..cpus).map(|c| smp::cpu(c).interrupt_count()).sum();
    let boot_secs = (kevlar_platform::time::realtime_ns().saturating_sub(up)) / 1_000_000_000;
    let threads = all_processes();
    let running = threads.iter().flat_map(|p| p.threads()).filter(|t| t.state() == ThreadState::Runnable).count();
    let _ = writeln!(out, "intr {}", interrupts);
    let _ = writeln!(out, "ctxt {}", crate::process::CONTEXT_SWITCHES.load(Ordering::Relaxed));
    let _ = writeln!(out, "btime {}", boot_secs);
    let _ = writeln!(out, "processes {}", crate::process::pid::handed_out());
    let _ = writeln!(out, "procs_running {}", running);
    let _ = writeln!(out, "procs_blocked 0");
    let _ = writeln!(out, "softirq 0 0 0 0 0 0 0 0 0 0 0");
    Ok(out)
}

// Load averages as Linux computes them: fixed point with 11 fraction
// bits, updated every 5 s with the number of runnable threads.
const FSHIFT: u32 = 11;
const FIXED_1: u64 = 1 << FSHIFT;
const EXP: [u64; 3] = [1884, 2014, 2037];
/// How often the load averages are updated.
pub const LOAD_INTERVAL_NS: u64 = 5_000_000_000;
static LOADS: [AtomicU64; 3] = [const { AtomicU64::new(0) }; 3];
static NEXT_SAMPLE_NS: AtomicU64 = AtomicU64::new(LOAD_INTERVAL_NS);

/// Updates the load averages when a 5-second interval has passed by
/// `now` (monotonic ns; called from process context, by the timer
/// module's housekeeping).
pub fn sample_load(now: u64) {
    let due = NEXT_SAMPLE_NS.load(Ordering::Relaxed);
    if now < due || NEXT_SAMPLE_NS.compare_exchange(due, now + LOAD_INTERVAL_NS, Ordering::AcqRel, Ordering::Relaxed).is_err() {
        return;
    }
    let running = all_processes().iter().flat_map(|p| p.threads()).filter(|t| t.state() == ThreadState::Runnable).count() as u64;
    let active = running * FIXED_1;
    for (load, exp) in LOADS.iter().zip(EXP) {
        let old = load.load(Ordering::Relaxed);
        let mut new = old * exp + active * (FIXED_1 - exp);
        if active >= old {
            new += FIXED_1 - 1;
        }
        load.store(new / FIXED_1, Ordering::Relaxed);
    }
}

/// Returns the 1, 5 and 15 minute load averages in 1/2048ths (sysinfo's
/// unit is 1/65536ths: shift left by 5).
pub fn load_averages() -> [u64; 3] {
    [0, 1, 2].map(|i| LOADS[i].load(Ordering::Relaxed))
}

fn loadavg() -> Result<String> {
    let show = |x: u64| {
        let x = x + FIXED_1 / 200;
        format!("{}.{:02}", x >> FSHIFT, ((x & (FIXED_1 - 1)) * 100) >> FSHIFT)
    };
    let [a, b, c] = load_averages();
    let processes = all_processes();
    let live: Vec<_> = processes.iter().flat_map(|p| p.threads()).filter(|t| t.state() != ThreadState::Dead).collect();
    let running = live.iter().filter(|t| t.state() == ThreadState::Runnable).count();
    Ok(format!("{} {} {} {}/{} {}\n", show(a), show(b), show(c), running, live.len(), crate::ns::pid::last_given(&crate::ns::pid::viewer())))
}

/// The usage of each tmpfs-family file system (rootfs, devtmpfs, tmpfs)
/// mounted anywhere, each counted once.
pub(super) fn tmpfs_usages() -> Vec<kevlar_tmpfs::TmpFsUsage> {
    let mut seen: Vec<u64> = Vec::new();
    let mut usages = Vec::new();
    for mount in crate::fs::mount::mounts() {
        let fs = match &mount.kind {
            crate::fs::mount::FsKind::Rootfs(fs) | crate::fs::mount::FsKind::Devtmpfs(fs) | crate::fs::mount::FsKind::Tmpfs(fs, _) => fs,
            _ => continue,
        };
        if !seen.contains(&fs.dev()) {
            seen.push(fs.dev());
            usages.push(fs.usage());
        }
    }
    usages
}

/// Pages of file data all tmpfs instances hold (Linux counts them as both
/// Cached and Shmem).
pub(super) fn tmpfs_pages() -> u64 {
    tmpfs_usages().iter().map(|u| u.pages).sum()
}

/// Resident user memory and address-space sizes in bytes, each address
/// space counted once (a vfork child shares its parent's).
pub(super) struct UserMemory {
    pub anon: u64,
    pub mapped: u64,
    pub committed: u64,
    pub page_tables: u64,
}

pub(super) fn user_memory() -> UserMemory {
    let mut m = UserMemory { anon: 0, mapped: 0, committed: 0, page_tables: 0 };
    crate::mm::any_address_space(|vm| {
        let usage = vm.usage();
        m.anon += usage.resident_anon * 4096;
        m.mapped += usage.resident_file * 4096;
        m.committed += crate::mm::overcommit::accountable_pages(vm) * 4096;
        m.page_tables += vm.table_pages() as u64 * 4096;
        false
    });
    m
}

fn meminfo() -> Result<String> {
    let stats = kevlar_platform::mm::pmm::stats();
    let kb = |bytes: u64| bytes / 1024;
    let total = stats.total_bytes as u64;
    let free = stats.free_bytes as u64;
    let shmem = tmpfs_pages() * 4096;
    let disk_cache = crate::fs::pagecache::stats();
    let file_cache = disk_cache.pages * 4096;
    let dirty = disk_cache.dirty * 4096;
    let UserMemory { anon, mapped, committed, page_tables } = user_memory();
    // The heap's pages, free objects of its size classes included.
    let slab = kevlar_platform::mm::heap::bytes_held() as u64;
    // Stacks of live tasks and the ones kept mapped for reuse.
    let stacks = kevlar_platform::x86::user::live_task_count() + kevlar_platform::mm::stacks::cached_count() as u64;
    let kernel_stack = stacks * (kevlar_platform::mm::stacks::STACK_PAGES * 4096) as u64;
    let ram_top = kevlar_platform::mm::pmm::max_phys_addr();
    let below_4g = ram_top.min(4 << 30);
    let rows: [(&str, u64); 53] = [
        ("MemTotal:", kb(total)),
        ("MemFree:", kb(free)),
        ("MemAvailable:", kb(free + file_cache.saturating_sub(dirty))),
        ("Buffers:", 0),
        ("Cached:", kb(shmem + file_cache)),
        ("SwapCached:", 0),
        ("Active:", kb(anon + shmem)),
        ("Inactive:", kb(file_cache)),
        ("Active(anon):", kb(anon + shmem)),
        ("Inactive(anon):", 0),
        ("Active(file):", 0),
        ("Inactive(file):", kb(file_cache)),
        ("Unevictable:", 0),
        ("Mlocked:", 0),
        ("SwapTotal:", 0),
        ("SwapFree:", 0),
        ("Zswap:", 0),
        ("Zswapped:", 0),
        ("Dirty:", kb(dirty)),
        ("Writeback:", 0),
        ("AnonPages:", kb(anon)),
        ("Mapped:", kb(mapped)),
        ("Shmem:", kb(shmem)),
        ("KReclaimable:", 0),
        ("Slab:", kb(slab)),
        ("SReclaimable:", 0),
        ("SUnreclaim:", kb(slab)),
        ("KernelStack:", kb(kernel_stack)),
        ("PageTables:", kb(page_tables)),
        ("SecPageTables:", 0),
        ("NFS_Unstable:", 0),
        ("Bounce:", 0),
        ("WritebackTmp:", 0),
        ("CommitLimit:", kb(crate::mm::overcommit::commit_limit_pages() * 4096)),
        ("Committed_AS:", kb(committed)),
        // The kernel has no vmalloc area; Linux's size of it with four
        // paging levels.
        ("VmallocTotal:", 34_359_738_367),
        ("VmallocUsed:", 0),
        ("VmallocChunk:", 0),
        ("Percpu:", 0),
        ("HardwareCorrupted:", 0),
        ("AnonHugePages:", 0),
        ("ShmemHugePages:", 0),
        ("ShmemPmdMapped:", 0),
        ("FileHugePages:", 0),
        ("FilePmdMapped:", 0),
        ("HugePages_Total:", 0),
        ("HugePages_Free:", 0),
        ("HugePages_Rsvd:", 0),
        ("HugePages_Surp:", 0),
        ("Hugepagesize:", 2048),
        ("Hugetlb:", 0),
        // The direct map uses 2 MiB pages below 4 GiB and 1 GiB pages
        // above, no 4 KiB pages.
        ("DirectMap4k:", 0),
        ("DirectMap2M:", kb(below_4g)),
    ];
    let mut out = String::new();
    for (key, value) in rows {
        let unit = if key.starts_with("HugePages_") { "" } else { " kB" };
        if key == "HardwareCorrupted:" {
            let _ = writeln!(out, "{} {:5}{}", key, value, unit);
        } else {
            let _ = writeln!(out, "{:<16}{:>8}{}", key, value, unit);
        }
    }
    let _ = writeln!(out, "{:<16}{:>8} kB", "DirectMap1G:", kb(ram_top.saturating_sub(4 << 30)));
    Ok(out)
}

/// Linux's names for CPUID feature bits, by (leaf, register, bit).
const FLAGS: &[(u32, u8, u32, &str)] = &[
    (1, b'd', 0, "fpu"), (1, b'd', 1, "vme"), (1, b'd', 2, "de"), (1, b'd', 3, "pse"), (1, b'd', 4, "tsc"),
    (1, b'd', 5, "msr"), (1, b'd', 6, "pae"), (1, b'd', 7, "mce"), (1, b'd', 8, "cx8"), (1, b'd', 9, "apic"),
    (1, b'd', 11, "sep"), (1, b'd', 12, "mtrr"), (1, b'd', 13, "pge"), (1, b'd', 14, "mca"), (1, b'd', 15, "cmov"),
    (1, b'd', 16, "pat"), (1, b'd', 17, "pse36"), (1, b'd', 19, "clflush"), (1, b'd', 22, "acpi"), (1, b'd', 23, "mmx"),
    (1, b'd', 24, "fxsr"), (1, b'd', 25, "sse"), (1, b'd', 26, "sse2"), (1, b'd', 27, "ss"), (1, b'd', 28, "ht"),
    (0x8000_0001, b'd', 11, "syscall"), (0x8000_0001, b'd', 20, "nx"), (0x8000_0001, b'd', 22, "mmxext"),
    (0x8000_0001, b'd', 26, "pdpe1gb"), (0x8000_0001, b'd', 27, "rdtscp"), (0x8000_0001, b'd', 29, "lm"),
    (1, b'c', 0, "pni"), (1, b'c', 1, "pclmulqdq"), (1, b'c', 3, "monitor"), (1, b'c', 9, "ssse3"), (1, b'c', 12, "fma"),
    (1, b'c', 13, "cx16"), (1, b'c', 19, "sse4_1"), (1, b'c', 20, "sse4_2"), (1, b'c', 21, "x2apic"), (1, b'c', 22, "movbe"),
    (1, b'c', 23, "popcnt"), (1, b'c', 24, "tsc_deadline_timer"), (1, b'c', 25, "aes"), (1, b'c', 26, "xsave"),
    (1, b'c', 28, "avx"), (1, b'c', 29, "f16c"), (1, b'c', 30, "rdrand"), (1, b'c', 31, "hypervisor"),
    (0x8000_0001, b'c', 0, "lahf_lm"), (0x8000_0001, b'c', 2, "svm"), (0x8000_0001, b'c', 5, "abm"),
    (0x8000_0001, b'c', 6, "sse4a"), (0x8000_0001, b'c', 8, "3dnowprefetch"),
    (7, b'b', 0, "fsgsbase"), (7, b'b', 3, "bmi1"), (7, b'b', 5, "avx2"), (7, b'b', 7, "smep"), (7, b'b', 8, "bmi2"),
    (7, b'b', 9, "erms"), (7, b'b', 10, "invpcid"), (7, b'b', 18, "rdseed"), (7, b'b', 19, "adx"), (7, b'b', 20, "smap"),
    (7, b'b', 14, "mpx"), (7, b'b', 23, "clflushopt"), (7, b'b', 24, "clwb"), (7, b'b', 29, "sha_ni"),
    // Leaf 0xd, sub-leaf 1 (the only entries read with sub-leaf 1): the
    // XSAVE variants.
    (0xd, b'a', 0, "xsaveopt"), (0xd, b'a', 1, "xsavec"), (0xd, b'a', 2, "xgetbv1"), (0xd, b'a', 3, "xsaves"),
    (7, b'c', 2, "umip"), (7, b'c', 3, "pku"), (7, b'c', 4, "ospke"), (7, b'c', 9, "vaes"), (7, b'c', 16, "la57"),
];

fn cpuinfo() -> Result<String> {
    use kevlar_platform::x86::cpu::cpuid;
    let (_, b0, c0, d0) = cpuid(0, 0);
    let mut vendor = Vec::new();
    for reg in [b0, d0, c0] {
        vendor.extend_from_slice(&reg.to_le_bytes());
    }
    let vendor = String::from_utf8_lossy(&vendor).into_owned();
    let (a1, _, _, _) = cpuid(1, 0);
    let base_family = (a1 >> 8) & 0xf;
    let family = if base_family == 0xf { base_family + ((a1 >> 20) & 0xff) } else { base_family };
    let model = if base_family == 0x6 || base_family == 0xf { ((a1 >> 4) & 0xf) | (((a1 >> 16) & 0xf) << 4) } else { (a1 >> 4) & 0xf };
    let stepping = a1 & 0xf;
    let mut flags = String::new();
    for &(leaf, reg, bit, name) in FLAGS {
        let (a, b, c, d) = cpuid(leaf, if leaf == 0xd { 1 } else { 0 });
        let value = match reg {
            b'a' => a,
            b'b' => b,
            b'c' => c,
            _ => d,
        };
        if value & (1 << bit) != 0 {
            if !flags.is_empty() {
                flags.push(' ');
            }
            flags.push_str(name);
        }
    }
    let cache_kb = cpuid(0x8000_0006, 0).2 >> 16;
    let (sizes, ..) = cpuid(0x8000_0008, 0);
    let mhz_khz = kevlar_platform::time::tsc_hz() / 1000;
    let model_name = BOOT.lock().as_ref().map_or_else(String::new, |b| b.cpu_model.clone());
    let cpus = smp::cpu_count();
    let mut out = String::new();
    for cpu in 0..cpus {
        let apic = smp::cpu(cpu).apic_id();
        let _ = write!(
            out,
            "processor\t: {cpu}\nvendor_id\t: {vendor}\ncpu family\t: {family}\nmodel\t\t: {model}\nmodel name\t: {model_name}\nstepping\t: {stepping}\n\
             cpu MHz\t\t: {}.{:03}\ncache size\t: {cache_kb} KB\nphysical id\t: 0\nsiblings\t: {cpus}\ncore id\t\t: {cpu}\ncpu cores\t: {cpus}\n\
             apicid\t\t: {apic}\ninitial apicid\t: {apic}\nfpu\t\t: yes\nfpu_exception\t: yes\ncpuid level\t: {}\nwp\t\t: yes\nflags\t\t: {flags}\n\
             bogomips\t: {}.{:02}\nclflush size\t: 64\ncache_alignment\t: 64\naddress sizes\t: {} bits physical, {} bits virtual\npower management:\n\n",
            mhz_khz / 1000,
            mhz_khz % 1000,
            cpuid(0, 0).0,
            mhz_khz * 2 / 1000,
            (mhz_khz * 2 % 1000) / 10,
            sizes & 0xff,
            (sizes >> 8) & 0xff,
        );
    }
    Ok(out)
}

/// Makes /proc/sys (only `kernel` for now).
pub(super) fn sys_dir(ino: u64, parent: &Arc<dyn Inode>) -> Arc<dyn Inode> {
    let id = fs_id();
    let mut table = Table::new();
    let kernel_ino = ino + 1;
    table.add(b"kernel", FileType::Directory, kernel_ino, move |dir| Ok(sys_kernel_dir(kernel_ino, dir)));
    // /proc/sys/kernel's entries take the numbers after it; vm's follow.
    let vm_ino = ino + 32;
    table.add(b"vm", FileType::Directory, vm_ino, move |dir| Ok(sys_vm_dir(vm_ino, dir)));
    let fs_ino = ino + 48;
    table.add(b"fs", FileType::Directory, fs_ino, move |dir| Ok(sys_fs_dir(fs_ino, dir)));
    // /proc/sys/net's directories and files (net::sysctl) after fs's.
    let net_ino = ino + 128;
    table.add(b"net", FileType::Directory, net_ino, move |dir| Ok(super::sysnet::sys_net_dir(net_ino, dir)));
    SynthDir::new(Attr::root(id, ino, 0o555), Parent::Strong(parent.clone()), Box::new(table))
}

/// Reads a /proc/sys string setting the way Linux does: up to the first
/// newline or NUL.
fn setting_text(buf: &[u8]) -> &[u8] {
    let end = buf.iter().position(|&b| b == b'\n' || b == 0).unwrap_or(buf.len());
    &buf[..end]
}

/// /proc/sys/fs: the inotify, mqueue and fanotify directories, and the
/// files of `sysctl_fs.rs`.
fn sys_fs_dir(ino: u64, parent: &Arc<dyn Inode>) -> Arc<dyn Inode> {
    let mut table = Table::new();
    let inotify_ino = ino + 1;
    table.add(b"inotify", FileType::Directory, inotify_ino, move |dir| Ok(sys_fs_inotify_dir(inotify_ino, dir)));
    // inotify's three files take the numbers after its directory.
    let mqueue_ino = ino + 8;
    table.add(b"mqueue", FileType::Directory, mqueue_ino, move |dir| Ok(super::ipc::mqueue_dir(mqueue_ino, dir)));
    // fanotify's directory and its three files after mqueue's.
    let fanotify_ino = ino + 20;
    table.add(b"fanotify", FileType::Directory, fanotify_ino, move |dir| Ok(sys_fs_fanotify_dir(fanotify_ino, dir)));
    // The limits and counts of `sysctl_fs.rs` take 24 numbers from +32.
    super::sysctl_fs::add_files(&mut table, ino + 32);
    // mount-max after them.
    let mount_max_ino = ino + 56;
    table.add(b"mount-max", FileType::Regular, mount_max_ino, move |_| Ok(int_setting(mount_max_ino, &crate::fs::mount::MOUNT_MAX, 1)));
    SynthDir::new(Attr::root(fs_id(), ino, 0o555), Parent::Strong(parent.clone()), Box::new(table))
}

/// /proc/sys/fs/inotify: the limits (root may write them).
fn sys_fs_inotify_dir(ino: u64, parent: &Arc<dyn Inode>) -> Arc<dyn Inode> {
    use crate::fs::notify::inotify::{MAX_QUEUED_EVENTS, MAX_USER_INSTANCES, MAX_USER_WATCHES};
    int_limits_dir(ino, parent, [(b"max_queued_events", &MAX_QUEUED_EVENTS), (b"max_user_instances", &MAX_USER_INSTANCES), (b"max_user_watches", &MAX_USER_WATCHES)])
}

/// /proc/sys/fs/fanotify: the limits (root may write them).
fn sys_fs_fanotify_dir(ino: u64, parent: &Arc<dyn Inode>) -> Arc<dyn Inode> {
    use crate::fs::notify::fanotify::{MAX_QUEUED_EVENTS, MAX_USER_GROUPS, MAX_USER_MARKS};
    int_limits_dir(ino, parent, [(b"max_queued_events", &MAX_QUEUED_EVENTS), (b"max_user_groups", &MAX_USER_GROUPS), (b"max_user_marks", &MAX_USER_MARKS)])
}

/// A directory of three limit files numbered after it, each an integer
/// Linux takes from 0 to INT_MAX (EINVAL otherwise).
fn int_limits_dir(ino: u64, parent: &Arc<dyn Inode>, limits: [(&'static [u8], &'static core::sync::atomic::AtomicU32); 3]) -> Arc<dyn Inode> {
    let mut table = Table::new();
    for (i, (name, limit)) in limits.into_iter().enumerate() {
        let n = ino + 1 + i as u64;
        table.add(name, FileType::Regular, n, move |_| Ok(int_setting(n, limit, 0)));
    }
    SynthDir::new(Attr::root(fs_id(), ino, 0o555), Parent::Strong(parent.clone()), Box::new(table))
}

/// A limit file (root may write it): an integer Linux takes from `min`
/// to INT_MAX (EINVAL otherwise).
fn int_setting(ino: u64, limit: &'static core::sync::atomic::AtomicU32, min: i64) -> Arc<dyn Inode> {
    use core::sync::atomic::Ordering;
    setting_file(
        ino,
        0o644,
        move || Ok(format!("{}\n", limit.load(Ordering::Relaxed))),
        move |buf| {
            let text = core::str::from_utf8(setting_text(buf)).map_err(|_| Errno::EINVAL)?;
            let value: i64 = text.trim().parse().map_err(|_| Errno::EINVAL)?;
            if !(min..=i32::MAX as i64).contains(&value) {
                return Err(Errno::EINVAL);
            }
            limit.store(value as u32, Ordering::Relaxed);
            Ok(buf.len())
        },
    )
}

/// /proc/sys/vm: the overcommit settings (root may write them).
fn sys_vm_dir(ino: u64, parent: &Arc<dyn Inode>) -> Arc<dyn Inode> {
    use crate::mm::overcommit;
    let id = fs_id();
    let mut table = Table::new();
    type Read = fn() -> String;
    type Write = fn(&[u8]) -> Result<usize>;
    let settings: [(&'static [u8], Read, Write); 3] = [
        (b"overcommit_kbytes", || format!("{}\n", overcommit::kbytes()), overcommit::set_kbytes),
        (b"overcommit_memory", || format!("{}\n", overcommit::mode()), overcommit::set_mode),
        (b"overcommit_ratio", || format!("{}\n", overcommit::ratio()), overcommit::set_ratio),
    ];
    for (i, (name, read, write)) in settings.into_iter().enumerate() {
        let n = ino + 1 + i as u64;
        table.add(name, FileType::Regular, n, move |_| Ok(setting_file(n, 0o644, move || Ok(read()), write)));
    }
    // Write-only, as on Linux (mode 0200).
    let n = ino + 4;
    table.add(b"drop_caches", FileType::Regular, n, move |_| Ok(setting_file(n, 0o200, || Ok(String::from("0\n")), crate::fs::pagecache::write_drop_caches)));
    SynthDir::new(Attr::root(id, ino, 0o555), Parent::Strong(parent.clone()), Box::new(table))
}

/// The kernel's taint flags (/proc/sys/kernel/tainted): Kevlar sets none
/// of its own; root may add some, as on Linux.
static TAINTED: core::sync::atomic::AtomicU64 = core::sync::atomic::AtomicU64::new(0);

fn sys_kernel_dir(ino: u64, parent: &Arc<dyn Inode>) -> Arc<dyn Inode> {
    let id = fs_id();
    let mut table = Table::new();
    let names: [(&'static [u8], bool); 2] = [(b"domainname", true), (b"hostname", false)];
    for (i, (name, domain)) in names.into_iter().enumerate() {
        let n = ino + 1 + i as u64;
        // Pollable as Linux's: POLLERR | POLLPRI after a change.
        let changes = if domain { crate::uts::domain_name_changes } else { crate::uts::host_name_changes };
        table.add(name, FileType::Regular, n, move |_| {
            let file: Arc<dyn Inode> = SynthFile::writable(
                Attr::root(fs_id(), n, 0o644),
                Box::new(move || Ok(format!("{}\n", String::from_utf8_lossy(&crate::uts::host_name(domain))).into_bytes())),
                Box::new(move |buf| {
                    // Longer names are cut to the field's 64 bytes.
                    let text = setting_text(buf);
                    crate::uts::set_host_name(domain, &text[..text.len().min(64)])?;
                    Ok(buf.len())
                }),
            )
            .with_polling(Polling::Sysctl(Arc::new(changes)));
            Ok(file)
        });
    }
    let fixed: [(&'static [u8], fn() -> String); 4] = [
        (b"osrelease", || format!("{}\n", crate::uts::RELEASE)),
        (b"ostype", || format!("{}\n", crate::uts::SYSNAME)),
        (b"version", || format!("{}\n", crate::uts::VERSION)),
        (b"threads-max", || format!("{}\n", crate::process::nproc::max_threads())),
    ];
    for (i, (name, text)) in fixed.into_iter().enumerate() {
        let n = ino + 3 + i as u64;
        table.add(name, FileType::Regular, n, move |_| Ok(text_file(n, move || Ok(text()))));
    }
    let n = ino + 7;
    table.add(b"pid_max", FileType::Regular, n, move |_| {
        Ok(setting_file(
            n,
            0o644,
            || Ok(format!("{}\n", crate::process::pid::pid_max())),
            |buf| {
                let text = core::str::from_utf8(setting_text(buf)).map_err(|_| Errno::EINVAL)?;
                crate::process::pid::set_pid_max(text.trim().parse().map_err(|_| Errno::EINVAL)?)?;
                Ok(buf.len())
            },
        ))
    });
    let n = ino + 8;
    table.add(b"tainted", FileType::Regular, n, move |_| {
        Ok(setting_file(n, 0o644, || Ok(format!("{}\n", TAINTED.load(Ordering::Relaxed))), |buf| {
            // Root may add taint flags (Linux's proc_taint), never clear
            // them; the value is an unsigned long.
            let me = crate::process::current().ok_or(Errno::EPERM)?;
            crate::process::access::require(&me.process, linux_raw_sys::general::CAP_SYS_ADMIN)?;
            let text = core::str::from_utf8(setting_text(buf)).map_err(|_| Errno::EINVAL)?;
            let bits: u64 = text.trim().parse().map_err(|_| Errno::EINVAL)?;
            // Bits past the last flag Linux 6.1 knows (TAINT_FLAGS_COUNT,
            // 19) are dropped.
            TAINTED.fetch_or(bits & ((1 << 19) - 1), Ordering::Relaxed);
            Ok(buf.len())
        }))
    });
    // msgmax, msgmnb, msgmni, shmall, shmmax, shmmni, sem.
    super::ipc::add_kernel_limits(&mut table, ino + 20);
    // random/ and its four files: ino + 14 to ino + 18.
    let random_ino = ino + 14;
    table.add(b"random", FileType::Directory, random_ino, move |dir| Ok(super::random::random_dir(random_ino, dir)));
    SynthDir::new(Attr::root(id, ino, 0o555), Parent::Strong(parent.clone()), Box::new(table))
}
