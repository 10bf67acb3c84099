//! Kevlar: a Linux-ABI kernel. This crate is the kernel proper, written in
//! safe Rust on top of `kevlar_platform`.

#![no_std]
#![no_main]
#![deny(unsafe_code)]

extern crate alloc;

mod aio;
mod banner;
mod block;
mod cgroup;
mod clock;
mod error;
mod exec;
mod fault;
mod fs;
mod ipc;
mod keys;
mod klog;
mod ktest;
mod mm;
mod monitor;
mod net;
mod ns;
mod ntp;
mod process;
mod syscall_names;
mod syscalls;
mod timer;
mod tty;
mod uaccess;
mod user;
mod uts;

use alloc::vec::Vec;
use error::Errno;

use kevlar_platform::{exit, println, BootContext, ExitCode};

kevlar_platform::entry_point!(kernel_main);

fn kernel_main(context: BootContext) -> ! {
    klog::init();
    banner::print(&context);
    fs::procfs::set_boot_facts(&context);
    let cmdline = &context.command_line;
    if cmdline.has("exit_after_banner") {
        exit(ExitCode::Success);
    }
    if let Some(kind) = cmdline.get("fault") {
        fault::trigger(kind);
    }
    if let Some(selection) = cmdline.get("test") {
        let all_passed = ktest::run(selection);
        exit(if all_passed { ExitCode::Success } else { ExitCode::Failure });
    }
    // As Linux: user space starts from an initramfs, from init=, or from
    // the root= file system's /sbin/init.
    if context.initrd.is_some() || cmdline.has("init") || cmdline.has("root") {
        start_user_space(&context);
    }
    monitor::run()
}

/// Ends the machine: power-off (success) or a failure exit.
pub fn shutdown(success: bool) -> ! {
    let stats = kevlar_platform::mm::pmm::stats();
    log::debug!(
        "at shutdown: {} tasks, {} KiB free, {} bytes of heap in use",
        kevlar_platform::x86::user::live_task_count(),
        stats.free_bytes / 1024,
        kevlar_platform::mm::heap::bytes_in_use()
    );
    println!("kevlar: {}", if success { "power off" } else { "halting after a failure" });
    exit(if success { ExitCode::Success } else { ExitCode::Failure })
}

/// Mounts the root filesystem from the initramfs and starts init; the boot
/// CPU then becomes an idle CPU of the scheduler.
fn start_user_space(context: &BootContext) -> ! {
    let tmpfs = fs::pages::new_tmpfs(kevlar_tmpfs::TmpFsOptions::default());
    let root = tmpfs.root();
    fs::mount::set_root(tmpfs.clone());
    if let Some(image) = context.initrd {
        match fs::initramfs::unpack(&root, image) {
            Ok(count) => log::info!("initramfs: {} entries unpacked", count),
            Err(e) => log::error!("initramfs: {:?}", e),
        }
    }
    for dir in [&b"dev"[..], b"proc", b"sys", b"tmp", b"run"] {
        let _ = fs::initramfs::ensure_dir(&root, dir);
    }
    block::init();
    net::init();
    let dev = fs::initramfs::ensure_dir(&root, b"dev").expect("/dev");
    fs::initramfs::populate_dev(&dev).expect("device nodes");
    if !kevlar_platform::x86::vdso::init() {
        log::warn!("vdso: out of memory; processes use the clock system calls");
    }
    kevlar_platform::x86::user::set_hooks(&user::HOOKS);
    if let Some(seconds) = context.command_line.get("dumpevery").and_then(|s| s.parse::<u64>().ok()) {
        timer::DUMP_EVERY_NS.store(seconds * 1_000_000_000, core::sync::atomic::Ordering::Relaxed);
    }
    if context.command_line.has("hangdump") {
        process::scheduler::HANG_DUMP.store(true, core::sync::atomic::Ordering::Relaxed);
    }
    if context.command_line.has("strace") {
        syscalls::TRACE.store(true, core::sync::atomic::Ordering::Relaxed);
        process::SYSCALL_WORK_AT_START.store(process::SYSCALL_WORK_STRACE, core::sync::atomic::Ordering::Relaxed);
        if let Some(name) = context.command_line.get("strace") {
            *syscalls::TRACE_COMM.lock() = Some(alloc::string::String::from(name));
        }
    }

    let cmdline = &context.command_line;
    // As Linux: root= is mounted when no initramfs init runs (none given,
    // or none at /init in it), and a root that cannot be mounted is fatal.
    let initramfs_init = context.initrd.is_some() && root.lookup(b"init").is_ok();
    let mounted_root = cmdline.get("root").is_some() && !initramfs_init;
    let root = match cmdline.get("root") {
        Some(spec) if !initramfs_init => {
            match block::root::mount(&root, spec, cmdline.get("rootfstype"), cmdline.get("rootflags"), cmdline.has("rw")) {
                Ok(new_root) => new_root,
                Err(e) => panic!("VFS: Unable to mount root fs on {} ({:?})", spec, e),
            }
        }
        _ => root,
    };
    let fs_context = fs::FsContext::new(root.clone());
    let creds = process::Credentials::default();
    // As Linux: /init is the initramfs's; on a root mounted from root= the
    // first of Linux's defaults that exists runs, and a missing one is no
    // news (the boot log of a Debian root would otherwise begin with a
    // warning about /init).
    let candidates: Vec<&[u8]> = match cmdline.get("init") {
        Some(init) => alloc::vec![init.as_bytes()],
        None if mounted_root => alloc::vec![&b"/sbin/init"[..], b"/etc/init", b"/bin/init", b"/bin/sh"],
        None => alloc::vec![&b"/init"[..], b"/sbin/init", b"/bin/sh"],
    };
    // As Linux: the command line's words the kernel does not take go to
    // init, `key=value` ones into its environment, bare ones into argv.
    let (extra_env, extra_args) = cmdline.for_init(KERNEL_PARAMETERS);
    let mut env: Vec<Vec<u8>> = alloc::vec![b"HOME=/".to_vec(), b"TERM=linux".to_vec(), b"PATH=/sbin:/usr/sbin:/bin:/usr/bin".to_vec()];
    for entry in extra_env {
        let key_len = entry.find('=').unwrap_or(entry.len()) + 1;
        env.retain(|e| e.get(..key_len) != Some(&entry.as_bytes()[..key_len]));
        env.push(entry.into_bytes());
    }
    for path in candidates {
        let mut argv = alloc::vec![path.to_vec()];
        argv.extend(extra_args.iter().map(|a| a.as_bytes().to_vec()));
        let loaded = match exec::load(&fs_context, &creds, None, path, argv, env.clone()) {
            Ok(loaded) => loaded,
            Err(e) if e == Errno::ENOENT => {
                log::debug!("init: no {}", syscalls::show(path));
                continue;
            }
            Err(e) => {
                log::warn!("init: cannot run {}: {:?}", syscalls::show(path), e);
                continue;
            }
        };
        let mut files = fs::FdTable::new();
        match fs::open_path(&fs_context, &kevlar_vfs::Credentials::root(), None, b"/dev/console", linux_raw_sys::general::O_RDWR, 0) {
            Ok(console) => {
                for fd in 0..3 {
                    files.put(fd, console.clone(), false);
                }
            }
            Err(e) => log::warn!("init: no console: {:?}", e),
        }
        let template = kevlar_platform::x86::trap::TrapFrame {
            r15: 0, r14: 0, r13: 0, r12: 0, r11: 0, r10: 0, r9: 0, r8: 0, rbp: 0, rdi: 0, rsi: 0, rdx: 0, rcx: 0, rbx: 0, rax: 0,
            vector: 0, error_code: 0, rip: 0, cs: 0, rflags: 0, rsp: 0, ss: 0,
        };
        let frame = exec::initial_frame(loaded.entry, loaded.sp, &template);
        match process::spawn_init(loaded.vm, &frame, fs_context.clone(), files, &loaded.comm) {
            Ok(_) => process::scheduler::idle_loop(),
            Err(e) => log::error!("init: cannot start: {:?}", e),
        }
    }
    println!("kevlar: no init found; dropping to the kernel monitor");
    monitor::run()
}

/// Command-line parameters the kernel takes for itself, so they are not
/// passed on to init: Kevlar's own, and Linux's that a user of a Linux
/// command line gives (Linux keeps those too).
const KERNEL_PARAMETERS: &[&str] = &[
    // Kevlar's.
    "dumpevery", "exit_after_banner", "fault", "hangdump", "init", "log", "strace", "test",
    // Linux's common ones.
    "acpi", "clocksource", "console", "debug", "earlycon", "earlyprintk", "ignore_loglevel", "initcall_debug",
    "initrd", "lpj", "loglevel", "maxcpus", "mem", "mitigations", "noapic", "nokaslr", "nolapic", "nosmp",
    "oops", "panic", "pci", "quiet", "rdinit", "ro", "root", "rootflags", "rootfstype", "rootwait", "rw",
    "selinux", "tsc", "apparmor", "security", "audit", "no_hash_pointers", "random.trust_cpu",
];
