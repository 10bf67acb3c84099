//! ptrace(2): decodes the requests and copies their data; the mechanism
//! (stops, the tracer link, the registers) is `process::ptrace`.

use alloc::sync::Arc;

use kevlar_platform::x86::trap::TrapFrame;
use linux_raw_sys::elf_uapi as elf;
use linux_raw_sys::ptrace as pt;

use super::Args;
use crate::error::{Errno, Result};
use crate::process::ptrace::{self, Mode};
use crate::process::signal::SigInfo;
use crate::process::Thread;
use crate::uaccess::{copy_from_user, copy_to_user};

/// A system call of a traced thread: the syscall-entry stop (the tracer
/// may change the number and arguments, or skip the call), the call, the
/// events it raised, the syscall-exit stop.
pub fn traced_syscall(thread: &Arc<Thread>, frame: &mut TrapFrame) {
    match ptrace::syscall_entry(thread, frame) {
        ptrace::Entry::Run(number) => {
            super::run_filtered_syscall(thread, frame, number as usize);
            ptrace::report_events(thread, frame);
            ptrace::syscall_exit(thread, frame, true);
        }
        ptrace::Entry::Skip => ptrace::syscall_exit(thread, frame, true),
        ptrace::Entry::Emulate => ptrace::syscall_exit(thread, frame, false),
    }
}

const REGS_SIZE: usize = 27 * 8;

fn read_regs(addr: usize) -> Result<[u64; 27]> {
    let mut raw = [0u8; REGS_SIZE];
    copy_from_user(&mut raw, addr)?;
    let mut words = [0u64; 27];
    for (i, w) in words.iter_mut().enumerate() {
        *w = u64::from_le_bytes(raw[i * 8..i * 8 + 8].try_into().unwrap());
    }
    Ok(words)
}

fn write_regs(addr: usize, words: &[u64; 27], len: usize) -> Result<()> {
    let mut raw = [0u8; REGS_SIZE];
    for (i, w) in words.iter().enumerate() {
        raw[i * 8..i * 8 + 8].copy_from_slice(&w.to_le_bytes());
    }
    copy_to_user(addr, &raw[..len.min(REGS_SIZE)])
}

/// PTRACE_GETREGSET/SETREGSET: NT_PRSTATUS (`user_regs_struct`),
/// NT_PRFPREG (the FXSAVE image) and NT_X86_XSTATE (the standard-format
/// XSAVE image, when the CPU has XSAVE) through an iovec whose length
/// must be a multiple of 8 and comes back trimmed to the regset's size.
/// Linux's order: the tracee (ESRCH), the iovec (EFAULT), the regset
/// (EINVAL), the data.
fn regset(me: &crate::process::Process, pid: i32, addr: u64, data: u64, set: bool) -> Result<isize> {
    ptrace::get_regs(me, pid)?;
    let mut iov = [0u8; 16];
    copy_from_user(&mut iov, data as usize)?;
    let base = u64::from_le_bytes(iov[0..8].try_into().unwrap()) as usize;
    let len = u64::from_le_bytes(iov[8..16].try_into().unwrap()) as usize;
    // Linux passes the note type on as an unsigned int.
    let note = addr as u32;
    let size = match note {
        elf::NT_PRSTATUS => REGS_SIZE,
        elf::NT_PRFPREG => 512,
        elf::NT_X86_XSTATE => ptrace::xstate_size().ok_or(Errno::EINVAL)?,
        _ => return Err(Errno::EINVAL),
    };
    if len % 8 != 0 {
        return Err(Errno::EINVAL);
    }
    let n = len.min(size);
    let mut image = alloc::vec![0u8; size];
    match note {
        elf::NT_PRSTATUS => {
            let regs = ptrace::get_regs(me, pid)?;
            for (i, w) in regs.iter().enumerate() {
                image[i * 8..i * 8 + 8].copy_from_slice(&w.to_le_bytes());
            }
        }
        elf::NT_PRFPREG => image.copy_from_slice(&ptrace::get_fpregs(me, pid)?),
        _ => ptrace::get_xstate(me, pid, &mut image)?,
    }
    if !set {
        copy_to_user(base, &image[..n])?;
    } else {
        // A partial NT_PRSTATUS write keeps the rest; the FPU regsets take
        // whole images only (Linux: EINVAL, and EFAULT for XSAVE's).
        match note {
            elf::NT_PRFPREG if n != size => return Err(Errno::EINVAL),
            elf::NT_X86_XSTATE if n != size => return Err(Errno::EFAULT),
            _ => {}
        }
        copy_from_user(&mut image[..n], base)?;
        match note {
            elf::NT_PRSTATUS => {
                let mut regs = [0u64; 27];
                for (i, w) in regs.iter_mut().enumerate() {
                    *w = u64::from_le_bytes(image[i * 8..i * 8 + 8].try_into().unwrap());
                }
                ptrace::set_regs(me, pid, &regs)?;
            }
            elf::NT_PRFPREG => ptrace::set_fpregs(me, pid, image[..512].try_into().unwrap())?,
            _ => ptrace::set_xstate(me, pid, &image[..n])?,
        }
    }
    copy_to_user(data as usize + 8, &(n as u64).to_le_bytes())?;
    Ok(0)
}

/// ptrace(request, pid, addr, data).
pub fn ptrace(thread: &Arc<Thread>, a: Args) -> Result<isize> {
    let request = a.0[0];
    // The tracee as the tracer's PID namespace numbers it.
    let pid = crate::ns::pid::global(a.i32(1));
    let addr = a.0[2];
    let data = a.0[3];
    let me = &thread.process;
    if request > u32::MAX as u64 {
        return Err(Errno::EIO);
    }
    match request as u32 {
        pt::PTRACE_TRACEME => ptrace::traceme(thread).map(|_| 0),
        pt::PTRACE_ATTACH => ptrace::attach(thread, pid, false, 0).map(|_| 0),
        pt::PTRACE_SEIZE => {
            if addr != 0 || data & !(ptrace::OPTIONS_MASK as u64) != 0 {
                return Err(Errno::EIO);
            }
            ptrace::attach(thread, pid, true, data as u32).map(|_| 0)
        }
        pt::PTRACE_PEEKTEXT | pt::PTRACE_PEEKDATA => {
            let word = ptrace::peek_data(me, pid, addr)?;
            copy_to_user(data as usize, &word.to_le_bytes())?;
            Ok(0)
        }
        pt::PTRACE_PEEKUSR => {
            let word = ptrace::peek_user(me, pid, addr)?;
            copy_to_user(data as usize, &word.to_le_bytes())?;
            Ok(0)
        }
        pt::PTRACE_POKETEXT | pt::PTRACE_POKEDATA => ptrace::poke_data(me, pid, addr, data).map(|_| 0),
        pt::PTRACE_POKEUSR => ptrace::poke_user(me, pid, addr, data).map(|_| 0),
        pt::PTRACE_CONT => ptrace::resume(me, pid, Mode::Cont, data).map(|_| 0),
        pt::PTRACE_SYSCALL => ptrace::resume(me, pid, Mode::Syscall, data).map(|_| 0),
        pt::PTRACE_SINGLESTEP => ptrace::resume(me, pid, Mode::Step, data).map(|_| 0),
        pt::PTRACE_SYSEMU => ptrace::resume(me, pid, Mode::Sysemu, data).map(|_| 0),
        pt::PTRACE_SYSEMU_SINGLESTEP => ptrace::resume(me, pid, Mode::SysemuStep, data).map(|_| 0),
        pt::PTRACE_KILL => ptrace::kill(me, pid).map(|_| 0),
        pt::PTRACE_DETACH => ptrace::detach(me, pid, data).map(|_| 0),
        pt::PTRACE_INTERRUPT => ptrace::interrupt(me, pid).map(|_| 0),
        pt::PTRACE_LISTEN => ptrace::listen(me, pid).map(|_| 0),
        pt::PTRACE_SETOPTIONS | pt::PTRACE_OLDSETOPTIONS => ptrace::set_options(me, pid, data).map(|_| 0),
        pt::PTRACE_GETEVENTMSG => {
            let msg = ptrace::event_msg(me, pid)?;
            copy_to_user(data as usize, &msg.to_le_bytes())?;
            Ok(0)
        }
        pt::PTRACE_GETSIGINFO => {
            let info = ptrace::get_siginfo(me, pid)?;
            copy_to_user(data as usize, &info.to_user())?;
            Ok(0)
        }
        pt::PTRACE_SETSIGINFO => {
            let mut raw = [0u8; 48];
            copy_from_user(&mut raw, data as usize)?;
            let signo = i32::from_le_bytes(raw[0..4].try_into().unwrap()) as u32;
            ptrace::set_siginfo(me, pid, SigInfo::from_user(&raw, signo)).map(|_| 0)
        }
        pt::PTRACE_GETREGS => {
            let regs = ptrace::get_regs(me, pid)?;
            write_regs(data as usize, &regs, REGS_SIZE)?;
            Ok(0)
        }
        pt::PTRACE_SETREGS => {
            // The tracee must be ours and stopped before the copy (ESRCH
            // first, as Linux).
            ptrace::get_regs(me, pid)?;
            let regs = read_regs(data as usize)?;
            ptrace::set_regs(me, pid, &regs).map(|_| 0)
        }
        pt::PTRACE_GETFPREGS => {
            let image = ptrace::get_fpregs(me, pid)?;
            copy_to_user(data as usize, &image)?;
            Ok(0)
        }
        pt::PTRACE_SETFPREGS => {
            ptrace::get_fpregs(me, pid)?;
            let mut image = [0u8; 512];
            copy_from_user(&mut image, data as usize)?;
            ptrace::set_fpregs(me, pid, &image).map(|_| 0)
        }
        pt::PTRACE_PEEKSIGINFO => {
            // struct ptrace_peeksiginfo_args { u64 off; u32 flags; s32 nr; }
            ptrace::get_regs(me, pid)?;
            let mut args = [0u8; 16];
            copy_from_user(&mut args, addr as usize)?;
            let off = u64::from_le_bytes(args[0..8].try_into().unwrap());
            let flags = u32::from_le_bytes(args[8..12].try_into().unwrap());
            let nr = i32::from_le_bytes(args[12..16].try_into().unwrap());
            if flags & !pt::PTRACE_PEEKSIGINFO_SHARED != 0 || nr < 0 {
                return Err(Errno::EINVAL);
            }
            let infos = ptrace::peek_siginfo(me, pid, off, flags & pt::PTRACE_PEEKSIGINFO_SHARED != 0, nr as usize)?;
            // As Linux: the ones copied before a fault count; a fault on
            // the first is EFAULT.
            let mut copied = 0usize;
            for info in &infos {
                let at = (data as usize).checked_add(copied * 128).ok_or(Errno::EFAULT);
                match at.and_then(|at| copy_to_user(at, &info.to_user()).map_err(Into::into)) {
                    Ok(()) => copied += 1,
                    Err(e) if copied == 0 => return Err(e),
                    Err(_) => break,
                }
            }
            Ok(copied as isize)
        }
        pt::PTRACE_GETSIGMASK => {
            ptrace::get_regs(me, pid)?;
            if addr != 8 {
                return Err(Errno::EINVAL);
            }
            let mask = ptrace::get_sigmask(me, pid)?;
            copy_to_user(data as usize, &mask.to_le_bytes())?;
            Ok(0)
        }
        pt::PTRACE_SETSIGMASK => {
            ptrace::get_regs(me, pid)?;
            if addr != 8 {
                return Err(Errno::EINVAL);
            }
            let mut raw = [0u8; 8];
            copy_from_user(&mut raw, data as usize)?;
            ptrace::set_sigmask(me, pid, u64::from_le_bytes(raw)).map(|_| 0)
        }
        pt::PTRACE_GETREGSET => regset(me, pid, addr, data, false),
        pt::PTRACE_SETREGSET => regset(me, pid, addr, data, true),
        pt::PTRACE_GET_SYSCALL_INFO => {
            let info = ptrace::syscall_info(me, pid)?;
            let mut raw = [0u8; 88];
            raw[0] = info.op;
            raw[4..8].copy_from_slice(&pt::AUDIT_ARCH_X86_64.to_le_bytes());
            raw[8..16].copy_from_slice(&info.ip.to_le_bytes());
            raw[16..24].copy_from_slice(&info.sp.to_le_bytes());
            let size = match info.op as u32 {
                pt::PTRACE_SYSCALL_INFO_ENTRY => {
                    raw[24..32].copy_from_slice(&info.nr.to_le_bytes());
                    for (i, arg) in info.args.iter().enumerate() {
                        raw[32 + i * 8..40 + i * 8].copy_from_slice(&arg.to_le_bytes());
                    }
                    80
                }
                pt::PTRACE_SYSCALL_INFO_SECCOMP => {
                    raw[24..32].copy_from_slice(&info.nr.to_le_bytes());
                    for (i, arg) in info.args.iter().enumerate() {
                        raw[32 + i * 8..40 + i * 8].copy_from_slice(&arg.to_le_bytes());
                    }
                    raw[80..84].copy_from_slice(&info.ret_data.to_le_bytes());
                    84
                }
                pt::PTRACE_SYSCALL_INFO_EXIT => {
                    raw[24..32].copy_from_slice(&info.rval.to_le_bytes());
                    raw[32] = info.is_error as u8;
                    33
                }
                _ => 24,
            };
            let n = (addr as usize).min(size);
            copy_to_user(data as usize, &raw[..n])?;
            Ok(size as isize)
        }
        _ => {
            // Not supported (yet): the tracee is checked first, as Linux.
            ptrace::get_regs(me, pid)?;
            Err(Errno::EIO)
        }
    }
}
