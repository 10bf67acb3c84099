//! execve: replacing a process's program with an ELF executable (static,
//! static-PIE, or with an interpreter) or a `#!` script.

use alloc::sync::Arc;
use alloc::vec::Vec;

use kevlar_elf::{ElfKind, LoadPlan};
use kevlar_platform::mm::PAGE_SIZE;
use kevlar_platform::sync::SpinLock;
use kevlar_platform::x86::trap::TrapFrame;
use kevlar_vfs::WalkFlags;
use kevlar_vfs::{Access, FileType, Inode};

use crate::error::{Errno, Result};
use crate::mm::layout::ProgramAreas;
use crate::mm::{Backing, ProgramInfo, Prot, Vm, Vma, STACK_SIZE, STACK_TOP};
use crate::fs::FsContext;
use crate::process::{Credentials, ExecCreds, Thread};
use crate::fs::inode_backing::inode_backing;

/// AT_HWCAP2's bit for "user code may use the FS/GS base instructions"
/// (Linux's uapi asm/hwcap2.h).
const HWCAP2_FSGSBASE: u64 = 1 << 1;

/// How many `#!` interpreters may chain (Linux allows 4 levels).
const MAX_SCRIPT_DEPTH: usize = 4;

/// How much of an executable the loader reads at first: the ELF header,
/// the program headers and `#!` lines of ordinary programs fit in a page.
/// The segments themselves are mapped from the page cache, never copied.
const HEAD_BYTES: usize = PAGE_SIZE;
/// The most header bytes the loader reads for one file.
const MAX_HEAD_BYTES: usize = 1 << 20;

/// Reads the first `len` bytes of `inode` (fewer at end of file).
fn read_prefix(inode: &Arc<dyn Inode>, len: usize) -> Result<Vec<u8>> {
    let mut data = alloc::vec![0u8; len];
    let mut done = 0;
    while done < len {
        let n = inode.read_at(done as u64, &mut data[done..])?;
        if n == 0 {
            break;
        }
        done += n;
    }
    data.truncate(done);
    Ok(data)
}

/// Parses the ELF headers of `inode`, whose first bytes are `head`,
/// reading more of the file only if the headers reach past them.
fn parse_elf(inode: &Arc<dyn Inode>, mut head: Vec<u8>) -> Result<kevlar_elf::LoadPlan> {
    let file_len = inode.stat()?.size;
    loop {
        match kevlar_elf::parse_prefix(&head, file_len) {
            Ok(plan) => return Ok(plan),
            Err(kevlar_elf::ElfError::NeedBytes(n)) if n > head.len() && n <= MAX_HEAD_BYTES => {
                head = read_prefix(inode, n)?;
            }
            Err(_) => return Err(Errno::ENOEXEC),
        }
    }
}

/// Finds the program `path` names and checks it may be executed;
/// returns it with the mount it was reached through (whose noexec and
/// nosuid apply).
fn resolve_executable_mnt(fs: &FsContext, cred: &kevlar_vfs::Credentials, start: Option<&Arc<dyn Inode>>, path: &[u8]) -> Result<(Arc<dyn Inode>, kevlar_vfs::MountId)> {
    if path.is_empty() {
        return Err(Errno::ENOENT);
    }
    let (node, mnt) = fs.lookup_mnt(cred, start.map(|s| (s, kevlar_vfs::NO_MOUNT)), path, WalkFlags::EMPTY)?;
    match node.file_type() {
        FileType::Regular => {}
        FileType::Directory => return Err(Errno::EACCES),
        _ => return Err(Errno::EACCES),
    }
    if crate::fs::mount::has_flag_at(mnt, &*node, linux_raw_sys::general::MS_NOEXEC) {
        return Err(Errno::EACCES);
    }
    let stat = node.stat()?;
    kevlar_vfs::check_access(&stat, cred, Access::EXEC)?;
    if stat.mode & 0o111 == 0 {
        return Err(Errno::EACCES); // even root needs an x bit
    }
    Ok((node, mnt))
}

/// exec opens a program (or script, or interpreter): fanotify's
/// permission events (EPERM if denied), then its open events.
fn exec_open(node: &Arc<dyn Inode>, abs: &[u8], mnt: kevlar_vfs::MountId) -> Result<crate::fs::notify::ExecFile> {
    crate::fs::notify::open_permission(node, abs, mnt, true)?;
    Ok(crate::fs::notify::exec_opened(node, abs, mnt))
}

fn prot_of(seg: &kevlar_elf::Segment) -> Prot {
    Prot { read: seg.readable, write: seg.writable, exec: seg.executable, key: 0 }
}

/// Maps the segments of `plan` (already biased) from `file`, executed by
/// absolute `path`, into `vm`. Returns the end of the highest segment.
fn map_segments(vm: &mut Vm, plan: &LoadPlan, file: &Arc<dyn Inode>, path: &[u8]) -> Result<usize> {
    let backing = inode_backing(file.clone(), path.to_vec());
    let mut top = 0;
    for seg in &plan.segments {
        let start = seg.vaddr as usize & !(PAGE_SIZE - 1);
        let lead = seg.vaddr as usize - start;
        let end = (seg.vaddr + seg.mem_size) as usize;
        let end = end.next_multiple_of(PAGE_SIZE);
        vm.map(Vma {
            start,
            end,
            prot: prot_of(seg),
            backing: Backing::File {
                file: backing.clone(),
                offset: seg.file_offset - lead as u64,
                file_len: lead + seg.file_size as usize,
                shared: false,
            },
            shared_page_base: 0,
            write_denied: false,
            exec_denied: false,
        });
        top = top.max(end);
    }
    Ok(top)
}

/// A program loaded into a fresh address space, not yet running.
pub struct Loaded {
    /// The address space.
    pub vm: Vm,
    /// The first instruction (the interpreter's, if any).
    pub entry: u64,
    /// The initial stack pointer.
    pub sp: u64,
    /// The name for `comm` (the file name, at most 15 bytes).
    pub comm: alloc::string::String,
    /// The credentials the program runs with (set-user-id and
    /// set-group-id applied).
    pub creds: Credentials,
    /// AT_SECURE and dumpability.
    pub exec: ExecCreds,
}

/// Loads the program at `path` with `argv` and `envp` into a new address
/// space; a relative `path` starts at the working directory.
pub fn load(fs: &FsContext, creds: &Credentials, start: Option<&Arc<dyn Inode>>, path: &[u8], argv: Vec<Vec<u8>>, envp: Vec<Vec<u8>>) -> Result<Loaded> {
    load_at(fs, creds, false, start, &fs.cwd_path, path, argv, envp)
}

/// The file's owner and group when exec honours its set-user-id and
/// set-group-id bits (Linux's bprm_fill_uid): never on a nosuid mount or
/// under no_new_privs, nor when the caller's user namespace does not map
/// both the owner and the group; set-group-id only with group execute.
fn set_ids(node: &Arc<dyn Inode>, mnt: kevlar_vfs::MountId, no_new_privs: bool, user_ns: &crate::ns::user::UserNs) -> Result<(Option<u32>, Option<u32>)> {
    use linux_raw_sys::general::{MS_NOSUID, S_ISGID, S_ISUID, S_IXGRP};
    if no_new_privs || crate::fs::mount::has_flag_at(mnt, &**node, MS_NOSUID) {
        return Ok((None, None));
    }
    let stat = node.stat()?;
    if user_ns.uid_up(stat.uid).is_none() || user_ns.gid_up(stat.gid).is_none() {
        return Ok((None, None));
    }
    let uid = (stat.mode & S_ISUID != 0).then_some(stat.uid);
    let gid = (stat.mode & (S_ISGID | S_IXGRP) == S_ISGID | S_IXGRP).then_some(stat.gid);
    Ok((uid, gid))
}

/// Loads the program at `path` as [`load`] does; a relative `path` starts
/// at `start` (the working directory if `None`), whose absolute path is
/// `start_path`.
#[allow(clippy::too_many_arguments)]
pub fn load_at(fs: &FsContext, creds: &Credentials, no_new_privs: bool, start: Option<&Arc<dyn Inode>>, start_path: &[u8], path: &[u8], mut argv: Vec<Vec<u8>>, envp: Vec<Vec<u8>>) -> Result<Loaded> {
    let cred = creds.fs_cred();
    // The path as given goes to a script's interpreter as its argument;
    // the absolute one names the executable in /proc.
    let mut given = path.to_vec();
    let mut exec_path = FsContext::absolute(if start.is_some() { start_path } else { &fs.cwd_path }, path);
    let (mut node, mut mnt) = resolve_executable_mnt(fs, &cred, start, path)?;
    let mut opened = alloc::vec![exec_open(&node, &exec_path, mnt)?];
    let mut image = read_prefix(&node, HEAD_BYTES)?;
    for depth in 0.. {
        let Some((interp, arg)) = kevlar_elf::is_script(&image) else { break };
        if depth >= MAX_SCRIPT_DEPTH {
            return Err(Errno::ELOOP);
        }
        let interp = interp.as_bytes().to_vec();
        let mut new_argv = alloc::vec![interp.clone()];
        if let Some(arg) = arg {
            new_argv.push(arg.as_bytes().to_vec());
        }
        new_argv.push(given.clone());
        new_argv.extend(argv.into_iter().skip(1));
        argv = new_argv;
        (node, mnt) = resolve_executable_mnt(fs, &cred, None, &interp)?;
        exec_path = FsContext::absolute(&fs.cwd_path, &interp);
        // The script is closed once its interpreter is open.
        opened = alloc::vec![exec_open(&node, &exec_path, mnt)?];
        image = read_prefix(&node, HEAD_BYTES)?;
        given = interp;
    }
    // A file open for writing cannot be executed; once running, it cannot
    // be opened for writing (held until the address space goes).
    let deny_write = crate::fs::writecount::deny_write_access(&node)?;
    let plan = parse_elf(&node, image)?;
    // The program's credentials: a script's set-id bits are ignored (the
    // interpreter's count), as Linux's.
    let (set_uid, set_gid) = set_ids(&node, mnt, no_new_privs, &creds.user_ns)?;
    let mut new_creds = creds.clone();
    let exec_creds = new_creds.after_exec(set_uid, set_gid, no_new_privs);
    let creds = &new_creds;
    let bias = if plan.kind == ElfKind::Dyn { kevlar_elf::DEFAULT_PIE_BASE } else { 0 };
    let plan = plan.with_bias(bias).map_err(|_| Errno::ENOEXEC)?;

    // A path through /proc (/proc/self/exe) would name another program
    // when another process reads it later: resolve it now. Other paths are
    // resolved when /proc shows them.
    // An unlinked file's path is kept without /proc's " (deleted)" mark,
    // which readers add again (as Linux keeps the file, not the text).
    let exec_path = if crate::fs::mount::through_procfs(&exec_path) {
        match crate::fs::canonical_path(fs, &exec_path) {
            Ok((mut real, _)) => {
                if real.ends_with(crate::fs::DELETED) {
                    real.truncate(real.len() - crate::fs::DELETED.len());
                }
                real
            }
            Err(_) => exec_path,
        }
    } else {
        exec_path
    };
    let mut vm = Vm::new()?;
    let top = map_segments(&mut vm, &plan, &node, &exec_path)?;
    let mut entry = plan.entry;
    let mut interp_base = 0;
    if let Some(interp_path) = &plan.interpreter {
        let (interp_node, interp_mnt) = resolve_executable_mnt(fs, &cred, None, interp_path.as_bytes())?;
        opened.push(exec_open(&interp_node, &FsContext::absolute(&fs.cwd_path, interp_path.as_bytes()), interp_mnt)?);
        let interp_plan = parse_elf(&interp_node, read_prefix(&interp_node, HEAD_BYTES)?)?;
        let interp_plan = interp_plan.with_bias(kevlar_elf::DEFAULT_INTERP_BASE).map_err(|_| Errno::ENOEXEC)?;
        map_segments(&mut vm, &interp_plan, &interp_node, &FsContext::absolute(&fs.cwd_path, interp_path.as_bytes()))?;
        entry = interp_plan.entry;
        interp_base = kevlar_elf::DEFAULT_INTERP_BASE;
    }
    vm.brk_start = top;
    vm.brk = top;
    vm.map(Vma {
        start: STACK_TOP - STACK_SIZE,
        end: STACK_TOP,
        prot: Prot { read: true, write: true, exec: plan.stack_executable, key: 0 },
        backing: Backing::Anonymous,
        shared_page_base: 0,
        write_denied: false,
        exec_denied: false,
    });

    let vdso = vm.map_vdso();
    if crate::process::current().is_some_and(|t| !crate::ns::time::is_init(&t.process.ns.lock().time)) {
        vm.detach_vvar();
    }
    let phdr = plan.phdr_vaddr.unwrap_or(0);
    let mut auxv = alloc::vec![
        (kevlar_elf::AT_PHDR, phdr),
        (kevlar_elf::AT_PHENT, plan.phent as u64),
        (kevlar_elf::AT_PHNUM, plan.phnum as u64),
        (kevlar_elf::AT_PAGESZ, PAGE_SIZE as u64),
        (kevlar_elf::AT_BASE, interp_base),
        (kevlar_elf::AT_FLAGS, 0),
        (kevlar_elf::AT_ENTRY, plan.entry),
        (kevlar_elf::AT_UID, creds.uid as u64),
        (kevlar_elf::AT_EUID, creds.euid as u64),
        (kevlar_elf::AT_GID, creds.gid as u64),
        (kevlar_elf::AT_EGID, creds.egid as u64),
        (kevlar_elf::AT_SECURE, u64::from(exec_creds.secure)),
        // Linux reports CPUID.1:EDX as is (glibc picks its code paths
        // from CPUID itself, but other programs read this).
        (kevlar_elf::AT_HWCAP, kevlar_platform::x86::cpu::cpuid(1, 0).3 as u64),
        (kevlar_elf::AT_HWCAP2, if kevlar_platform::x86::cpu::user_fsgsbase() { HWCAP2_FSGSBASE } else { 0 }),
        (kevlar_elf::AT_CLKTCK, 100),
        // The most stack a signal frame takes (what an alternate stack
        // must hold at least): glibc's sysconf(_SC_MINSIGSTKSZ).
        (kevlar_elf::AT_MINSIGSTKSZ, crate::process::signal::max_frame_bytes()),
    ];
    if let Some(vdso) = vdso {
        auxv.push((kevlar_elf::AT_SYSINFO_EHDR, vdso as u64));
    }
    let mut random = [0u8; 16];
    crate::fs::devices::fill_random(&mut random);
    let argv_refs: Vec<&[u8]> = argv.iter().map(|a| a.as_slice()).collect();
    let envp_refs: Vec<&[u8]> = envp.iter().map(|e| e.as_slice()).collect();
    let stack = kevlar_elf::build_initial_stack(STACK_TOP as u64, &argv_refs, &envp_refs, &auxv, random, b"x86_64", path)
        .map_err(|_| Errno::E2BIG)?;
    vm.write_bytes(stack.sp as usize, &stack.bytes)?;
    // The auxiliary vector as it lies on the stack, up to and with AT_NULL.
    let mut saved_auxv = Vec::new();
    let auxv_at = (stack.auxv_ptr - stack.sp) as usize;
    for pair in stack.bytes.get(auxv_at..).unwrap_or(&[]).chunks_exact(16) {
        saved_auxv.extend_from_slice(pair);
        if pair[..8] == [0; 8] {
            break;
        }
    }
    let code = plan.segments.iter().find(|s| s.executable);
    let data = plan.segments.iter().rev().find(|s| s.writable);
    vm.program = Some(Arc::new(ProgramInfo {
        exe: node.clone(),
        _deny_write: Arc::new(deny_write),
        _opened: Arc::new(opened),
        exe_path: exec_path,
        exe_text: Default::default(),
        areas: ProgramAreas {
            arg_start: stack.arg_start as usize,
            arg_end: stack.arg_end as usize,
            env_start: stack.env_start as usize,
            env_end: stack.env_end as usize,
            start_stack: stack.sp as usize,
            start_code: code.map_or(0, |s| s.vaddr as usize),
            end_code: code.map_or(0, |s| (s.vaddr + s.file_size) as usize),
            start_data: data.map_or(0, |s| s.vaddr as usize),
            end_data: data.map_or(0, |s| (s.vaddr + s.file_size) as usize),
        },
        auxv: saved_auxv,
    }));
    // Linux names the process after the file execve was given (a script's
    // name, not its interpreter's).
    let name = path.rsplit(|&b| b == b'/').next().unwrap_or(path);
    let comm = alloc::string::String::from_utf8_lossy(&name[..name.len().min(15)]).into_owned();
    Ok(Loaded { vm, entry, sp: stack.sp, comm, creds: new_creds, exec: exec_creds })
}

/// Returns the registers a new program starts with.
pub fn initial_frame(entry: u64, sp: u64, template: &TrapFrame) -> TrapFrame {
    TrapFrame {
        r15: 0, r14: 0, r13: 0, r12: 0, r11: 0, r10: 0, r9: 0, r8: 0, rbp: 0, rdi: 0, rsi: 0, rdx: 0, rcx: 0, rbx: 0, rax: 0,
        vector: template.vector,
        error_code: 0,
        rip: entry,
        cs: template.cs,
        rflags: 0x202,
        rsp: sp,
        ss: template.ss,
    }
}

/// Replaces the current program. On success the frame holds the new
/// program's entry registers; on failure the old program goes on.
pub fn execve(thread: &Arc<Thread>, frame: &mut TrapFrame, dirfd: i32, path: &[u8], argv: Vec<Vec<u8>>, envp: Vec<Vec<u8>>) -> Result<()> {
    let fs = thread.process.fs.lock().clone();
    let creds = thread.process.creds.lock().clone();
    let (start, start_path) = if path.starts_with(b"/") || dirfd == linux_raw_sys::general::AT_FDCWD {
        (None, Vec::new())
    } else {
        let dir = thread.process.files.lock().lock().get(dirfd)?;
        (Some(dir.ops.inode().ok_or(Errno::ENOTDIR)?), dir.path.clone())
    };
    let no_new_privs = thread.seccomp.no_new_privs();
    let loaded = load_at(&fs, &creds, no_new_privs, start.as_ref(), &start_path, path, argv, envp)?;

    // The other threads go first (they may be using the old image).
    crate::process::become_sole_thread(thread)?;
    // Point of no return: the new image replaces the old one.
    let process = &thread.process;
    crate::process::futex::exit_robust_list(thread);
    crate::process::release_child_tid(thread);
    let old_vm = core::mem::replace(&mut *process.vm.lock(), Arc::new(SpinLock::new(loaded.vm)));
    process.vm.lock().lock().activate();
    drop(old_vm);
    crate::process::release_vfork(process);
    process.did_exec.store(true, core::sync::atomic::Ordering::Relaxed);
    // exec drops the thread and process keyrings (Linux's prepare_exec_creds).
    process.keys.lock().exec();
    *process.exec_user_ns.lock() = loaded.creds.user_ns.clone();
    *process.creds.lock() = loaded.creds;
    process.dumpable.store(loaded.exec.dumpable, core::sync::atomic::Ordering::Relaxed);
    if loaded.exec.secure {
        // A parent may not signal a program that gained privileges.
        process.death_signal.store(0, core::sync::atomic::Ordering::Relaxed);
        crate::process::personality::clear_on_setid(process);
    }
    process.files.lock().lock().close_on_exec();
    process.signals.lock().reset_for_exec(thread.tid());
    crate::process::posix_timer::delete_all(&process);
    *process.comm.lock() = loaded.comm;
    kevlar_platform::x86::user::reset_fpu();
    crate::process::hwbreak::flush(thread);
    thread.task.set_fs_base(0, true);
    thread.task.set_gs_base(0, true);
    *frame = initial_frame(loaded.entry, loaded.sp, frame);
    Ok(())
}
