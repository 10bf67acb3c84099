//! User mode: SYSCALL set-up, the kernel's hooks into traps and system
//! calls, tasks (kernel stacks, context switch, FPU and FS-base state), and
//! copies to and from user memory.
//!
//! The kernel (safe code) registers a [`UserHooks`] table at boot; the
//! platform calls it with a `&mut TrapFrame` on every system call, every
//! exception taken in user mode, and before every return to user mode.

use alloc::sync::Arc;
use core::arch::global_asm;
use core::cell::UnsafeCell;
use core::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, AtomicU8, Ordering};

use x86_64::registers::model_specific::{Efer, EferFlags, Msr};

use super::gdt::{USER_CS, USER_DS};
use super::paging::USER_END;
use super::percpu;
use super::fpu::FpuArea;
use super::trap::TrapFrame;
use crate::mm::pmm::PageRef;
use crate::mm::stacks::{self, KernelStack};

global_asm!(include_str!("user.S"), options(att_syntax));

/// `TrapFrame::vector` of a frame built by the SYSCALL entry.
pub const SYSCALL_VECTOR: u64 = 0x100;

extern "C" {
    fn syscall_entry();
    fn switch_stacks(save_rsp: *mut u64, next_rsp: u64);
    fn copy_user_bytes(dst: *mut u8, src: *const u8, len: usize) -> usize;
    fn fill_user_bytes(dst: *mut u8, byte: u32, len: usize) -> usize;
    fn copy_user_bytes_nofault(dst: *mut u8, src: *const u8, len: usize) -> usize;
    static usercopy_nf_movs: u8;
    static usercopy_nf_movsq: u8;
    static usercopy_nf_movsq_fixup: u8;
    static usercopy_movs: u8;
    static usercopy_fixup: u8;
    static usercopy_movsq: u8;
    static usercopy_movsq_fixup: u8;
    static userfill_stos: u8;
    static userfill_fixup: u8;
    fn cmpxchg_user_u32(addr: *mut u32, expected: u32, new: u32, old_out: *mut u32) -> u32;
    static usercmpxchg_insn: u8;
    static usercmpxchg_fixup: u8;
    static task_first_user_entry: u8;
    static task_first_kernel_entry: u8;
}

/// Read by the usercopy assembly: whether STAC/CLAC exist (they fault
/// without SMAP).
#[no_mangle]
static smap_enabled: AtomicU8 = AtomicU8::new(0);

/// What went wrong in user mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exception {
    /// A page fault at `addr`.
    PageFault {
        /// The faulting address.
        addr: usize,
        /// The access was a write.
        write: bool,
        /// The access was an instruction fetch.
        exec: bool,
        /// The page was present (a protection violation).
        present: bool,
        /// The page's protection key denied the access (error code bit 5).
        key_denied: bool,
    },
    /// #DE.
    DivideError,
    /// #BP (int3).
    Breakpoint,
    /// #DB: a single step or a hardware breakpoint; `dr6` says which
    /// (DR6 as read, then reset).
    Debug {
        /// DR6 at the exception.
        dr6: u64,
    },
    /// #UD.
    InvalidOpcode,
    /// #GP.
    GeneralProtection,
    /// #MF or #XM.
    FloatingPoint,
    /// #AC.
    AlignmentCheck,
    /// Anything else, by vector.
    Other(u8),
}

/// The kernel's handlers, called by the platform.
pub struct UserHooks {
    /// A system call: arguments in the frame's registers, result into rax.
    /// It also does the work `before_user_return` does for traps (the
    /// kernel then looks the current thread up once per call). The entry
    /// code calls it directly, hence the C calling convention.
    pub syscall: extern "C" fn(&mut TrapFrame),
    /// An exception taken in user mode.
    pub user_exception: fn(&mut TrapFrame, Exception),
    /// A page fault on a user address while the kernel copied user memory:
    /// returns whether the mapping was fixed (demand paging, copy-on-write),
    /// so the copy retries; otherwise the copy fails with EFAULT.
    pub resolve_user_fault: fn(addr: usize, write: bool) -> bool,
    /// Runs before every return to user mode (signals, preemption).
    pub before_user_return: fn(&mut TrapFrame),
    /// The periodic timer tick, in interrupt context; the argument tells
    /// whether it interrupted user mode (CPU-time accounting).
    pub timer_tick: fn(from_user: bool),
    /// Runs on an idle application processor each time it wakes, with
    /// interrupts on: the kernel's scheduler picks up work here.
    pub idle: fn(),
}

static HOOKS: AtomicPtr<UserHooks> = AtomicPtr::new(core::ptr::null_mut());

/// Installs the kernel's hooks and enables SYSCALL on this CPU.
pub fn set_hooks(hooks: &'static UserHooks) {
    HOOKS.store(hooks as *const UserHooks as *mut UserHooks, Ordering::Release);
    SYSCALL_HOOK.store(hooks.syscall as *mut (), Ordering::Release);
}

pub(crate) fn hooks() -> Option<&'static UserHooks> {
    let ptr = HOOKS.load(Ordering::Acquire);
    // SAFETY: only `set_hooks` stores here, from a `&'static UserHooks`.
    (!ptr.is_null()).then(|| unsafe { &*ptr })
}

/// Enables SYSCALL/SYSRET on this CPU.
pub(crate) fn init_cpu() {
    const IA32_STAR: u32 = 0xc000_0081;
    const IA32_LSTAR: u32 = 0xc000_0082;
    const IA32_FMASK: u32 = 0xc000_0084;
    // RFLAGS bits SYSCALL clears: TF, IF, DF, IOPL, NT, AC.
    const FMASK: u64 = (1 << 8) | (1 << 9) | (1 << 10) | (3 << 12) | (1 << 14) | (1 << 18);
    smap_enabled.store(
        u8::from(super::cpu::features().contains(super::cpu::Features::SMAP)),
        Ordering::Relaxed,
    );
    // SAFETY: the entry point, selectors and mask describe this kernel's
    // GDT layout (see gdt.rs). The FPU was set up by fpu::init_cpu.
    unsafe {
        Msr::new(IA32_STAR).write(((super::gdt::SYSRET_BASE as u64) << 48) | ((super::gdt::KERNEL_CS as u64) << 32));
        Msr::new(IA32_LSTAR).write(syscall_entry as *const () as u64);
        Msr::new(IA32_FMASK).write(FMASK);
        Efer::update(|e| e.insert(EferFlags::SYSTEM_CALL_EXTENSIONS));
    }
    const _: () = assert!(USER_CS == 0x33 && USER_DS == 0x2b && super::gdt::SYSRET_BASE + 8 + 3 == USER_DS);
}

/// The system-call hook the SYSCALL entry (user.S) calls directly, with
/// interrupts on: the kernel's `UserHooks::syscall` once `set_hooks` ran
/// (SYSCALL is enabled only after that), this stub before. One indirect
/// call from the entry code, without a Rust frame between: the common
/// system call saves about 20 instructions.
#[no_mangle]
static SYSCALL_HOOK: AtomicPtr<()> = AtomicPtr::new(no_syscall_hook as *mut ());

extern "C" fn no_syscall_hook(frame: &mut TrapFrame) {
    frame.rax = (-38i64) as u64; // ENOSYS
}

// user.S reads these fields of the frame and compares with these values
// after the hook: SYSRET reloads rip from rcx, and a non-canonical value
// there would fault in kernel mode (with the user's stack), so a return
// to the last user page or above, or any frame the kernel rewrote into
// another kind, goes through IRETQ.
const _: () = {
    assert!(core::mem::offset_of!(TrapFrame, vector) == 0x78);
    assert!(core::mem::offset_of!(TrapFrame, rip) == 0x88);
    assert!(core::mem::offset_of!(TrapFrame, cs) == 0x90);
    assert!(core::mem::offset_of!(TrapFrame, ss) == 0xa8);
    assert!(USER_END as u64 - 4096 == 0x7fff_ffff_f000);
    assert!(SYSCALL_VECTOR == 0x100);
};

/// Called by the trap dispatcher for a trap from user mode.
pub(crate) fn user_trap(frame: &mut TrapFrame, exception: Option<Exception>) {
    if let Some(hooks) = hooks() {
        super::interrupts::enable();
        if let Some(exception) = exception {
            (hooks.user_exception)(frame, exception);
        }
        (hooks.before_user_return)(frame);
    }
}

/// Handles a kernel-mode page fault inside a usercopy routine: retries
/// after the kernel fixes the mapping, else resumes at the fixup label.
/// Returns false if the fault is not a usercopy fault.
pub(crate) fn usercopy_fault(frame: &mut TrapFrame, addr: usize) -> bool {
    // SAFETY: only the addresses of the routine's labels are taken.
    let (movs, movs_fix, stos, stos_fix, cmpxchg, cmpxchg_fix) = unsafe {
        (
            &usercopy_movs as *const u8 as u64,
            &usercopy_fixup as *const u8 as u64,
            &userfill_stos as *const u8 as u64,
            &userfill_fixup as *const u8 as u64,
            &usercmpxchg_insn as *const u8 as u64,
            &usercmpxchg_fixup as *const u8 as u64,
        )
    };
    // SAFETY: only the addresses of the labels are taken.
    let (movsq, movsq_fix) = unsafe { (&usercopy_movsq as *const u8 as u64, &usercopy_movsq_fixup as *const u8 as u64) };
    // SAFETY: only the addresses of the labels are taken.
    let (nf_movs, nf_movsq, nf_movsq_fix) = unsafe { (&usercopy_nf_movs as *const u8 as u64, &usercopy_nf_movsq as *const u8 as u64, &usercopy_nf_movsq_fixup as *const u8 as u64) };
    // The no-fault copies stop at once: the caller holds locks the
    // resolver may need.
    if frame.rip == nf_movs {
        frame.rip = movs_fix;
        return true;
    }
    if frame.rip == nf_movsq {
        frame.rip = nf_movsq_fix;
        return true;
    }
    let fixup = if frame.rip == movs {
        movs_fix
    } else if frame.rip == movsq {
        movsq_fix
    } else if frame.rip == stos {
        stos_fix
    } else if frame.rip == cmpxchg {
        cmpxchg_fix
    } else if let Some(fix) = super::fpu::user_insn_fixup(frame.rip) {
        fix
    } else {
        return false;
    };
    let write = frame.error_code & 2 != 0;
    // A protection key's refusal is final: mapping or copying the page
    // would not change PKRU, so the copy fails (EFAULT) as on Linux.
    let key_denied = frame.error_code & (1 << 5) != 0;
    if addr < USER_END && !key_denied {
        if let Some(hooks) = hooks() {
            // The resolver may take sleeping locks; the copy ran with
            // interrupts on, so turning them on here restores that state.
            super::interrupts::enable();
            let fixed = (hooks.resolve_user_fault)(addr, write);
            super::interrupts::disable();
            if fixed {
                return true;
            }
        }
    }
    frame.rip = fixup;
    true
}

/// A failed access to user memory (the syscall returns EFAULT).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UserFault;

/// Returns whether `[addr, addr + len)` lies in the user half.
pub fn is_user_range(addr: usize, len: usize) -> bool {
    addr.checked_add(len).is_some_and(|end| end <= USER_END)
}

/// Copies `dst.len()` bytes from user address `src`.
pub fn copy_from_user(dst: &mut [u8], src: usize) -> Result<(), UserFault> {
    if !is_user_range(src, dst.len()) {
        return Err(UserFault);
    }
    // SAFETY: the source range is in the user half (checked), and a fault on
    // it is caught by the fixup; the destination is a valid kernel slice.
    let left = unsafe { copy_user_bytes(dst.as_mut_ptr(), src as *const u8, dst.len()) };
    if left == 0 { Ok(()) } else { Err(UserFault) }
}

/// Copies `src` to user address `dst`.
pub fn copy_to_user(dst: usize, src: &[u8]) -> Result<(), UserFault> {
    if !is_user_range(dst, src.len()) {
        return Err(UserFault);
    }
    // SAFETY: as for `copy_from_user`, with the roles swapped; writes go only
    // to the checked user range.
    let left = unsafe { copy_user_bytes(dst as *mut u8, src.as_ptr(), src.len()) };
    if left == 0 { Ok(()) } else { Err(UserFault) }
}

/// Copies `len` bytes from `offset` in `page` (clipped to the page) to
/// user address `dst` without resolving page faults: returns the bytes
/// copied, fewer than asked when a user page is not mapped writable (the
/// caller faults it in with no lock held and copies the rest again), or
/// `Err` when the range is not in the user half.
pub fn copy_page_to_user_nofault(page: &PageRef, offset: usize, dst: usize, len: usize) -> Result<usize, UserFault> {
    let len = len.min(crate::mm::PAGE_SIZE.saturating_sub(offset));
    if !is_user_range(dst, len) {
        return Err(UserFault);
    }
    // SAFETY: the destination range is in the user half (checked) and a
    // fault on it stops the copy at the fixup; the source is inside the
    // page (clipped above), which `page` keeps alive.
    let left = unsafe { copy_user_bytes_nofault(dst as *mut u8, (page.direct_addr() + offset) as *const u8, len) };
    Ok(len - left)
}

/// Copies `len` bytes from user address `src` into `page` at `offset`
/// (clipped to the page) without resolving page faults, as
/// [`copy_page_to_user_nofault`] in the other direction; returns the
/// bytes copied.
pub fn copy_page_from_user_nofault(page: &PageRef, offset: usize, src: usize, len: usize) -> Result<usize, UserFault> {
    let len = len.min(crate::mm::PAGE_SIZE.saturating_sub(offset));
    if !is_user_range(src, len) {
        return Err(UserFault);
    }
    // SAFETY: as above, with the roles swapped: the writes go only to the
    // page's bytes from `offset` (inside the page, clipped above).
    let left = unsafe { copy_user_bytes_nofault((page.direct_addr() + offset) as *mut u8, src as *const u8, len) };
    Ok(len - left)
}

/// Copies `src` to user address `dst` without resolving page faults, as
/// [`copy_page_to_user_nofault`]; returns the bytes copied.
pub fn copy_to_user_nofault(dst: usize, src: &[u8]) -> Result<usize, UserFault> {
    if !is_user_range(dst, src.len()) {
        return Err(UserFault);
    }
    // SAFETY: as for `copy_to_user`; a fault stops the copy at the fixup.
    let left = unsafe { copy_user_bytes_nofault(dst as *mut u8, src.as_ptr(), src.len()) };
    Ok(src.len() - left)
}

/// Copies `dst.len()` bytes from user address `src` without resolving
/// page faults; returns the bytes copied.
pub fn copy_from_user_nofault(dst: &mut [u8], src: usize) -> Result<usize, UserFault> {
    if !is_user_range(src, dst.len()) {
        return Err(UserFault);
    }
    // SAFETY: as for `copy_from_user`; a fault stops the copy at the fixup.
    let left = unsafe { copy_user_bytes_nofault(dst.as_mut_ptr(), src as *const u8, dst.len()) };
    Ok(dst.len() - left)
}

/// Fills `len` bytes at user address `dst` with `byte`.
pub fn fill_user(dst: usize, byte: u8, len: usize) -> Result<(), UserFault> {
    if !is_user_range(dst, len) {
        return Err(UserFault);
    }
    // SAFETY: as for `copy_to_user`.
    let left = unsafe { fill_user_bytes(dst as *mut u8, byte as u32, len) };
    if left == 0 { Ok(()) } else { Err(UserFault) }
}

/// Atomically replaces the aligned 32-bit word at user address `addr`
/// with `new` if it holds `expected`; returns the value it held (equal to
/// `expected` exactly when the store happened). Page faults are resolved
/// as for the copies (a write fault: copy-on-write applies).
pub fn cmpxchg_user(addr: usize, expected: u32, new: u32) -> Result<u32, UserFault> {
    if addr % 4 != 0 || !is_user_range(addr, 4) {
        return Err(UserFault);
    }
    let mut old = 0u32;
    // SAFETY: the word is in the user half (checked) and aligned, so the
    // locked access cannot split; a fault on it is caught by the fixup.
    // `old` is a valid kernel location for the result.
    let failed = unsafe { cmpxchg_user_u32(addr as *mut u32, expected, new, &mut old) };
    if failed == 0 { Ok(old) } else { Err(UserFault) }
}

// ---------------------------------------------------------------------------
// Tasks

/// How a new user task's FPU and SSE registers start.
pub enum FpuInit {
    /// The state a new program starts with.
    Fresh,
    /// A copy of the calling task's live registers (fork).
    CopyCurrent,
}

/// A schedulable context: a kernel stack, saved registers, FPU state.
///
/// The kernel's thread objects own these; [`switch`] moves a CPU from one
/// to another. A task is never run by two CPUs at once: `switch` waits
/// until the previous CPU has left a task before entering it.
pub struct Task {
    saved_rsp: UnsafeCell<u64>,
    stack: Option<KernelStack>,
    running: AtomicBool,
    fpu: UnsafeCell<FpuArea>,
    /// The user FS and GS bases while the task is not running. With
    /// CR4.FSGSBASE on, user code changes them itself (WRFSBASE/WRGSBASE),
    /// so `switch_to` saves the live values rather than trusting these.
    fs_base: AtomicU64,
    gs_base: AtomicU64,
    /// The debug registers a tracer set (hardware breakpoints).
    debug: super::debugreg::DebugRegs,
}

// SAFETY: `saved_rsp` and `fpu` are touched only by the CPU that switches
// away from or into the task, and `running` (claimed with an atomic swap in
// `switch`) makes that CPU unique.
unsafe impl Sync for Task {}
// SAFETY: as above; the stack is a plain region of kernel memory.
unsafe impl Send for Task {}

impl Task {
    /// Returns a task that stands for the code already running on this CPU
    /// (the boot path or a CPU's idle loop), so it can be switched away from.
    pub fn for_current_context() -> Arc<Task> {
        LIVE_TASKS.fetch_add(1, Ordering::Relaxed);
        Arc::new(Task {
            saved_rsp: UnsafeCell::new(0),
            stack: None,
            running: AtomicBool::new(true),
            fpu: UnsafeCell::new(FpuArea::initial().expect("out of memory for an FPU area")),
            fs_base: AtomicU64::new(0),
            gs_base: AtomicU64::new(0),
            debug: super::debugreg::DebugRegs::new(),
        })
    }

    /// Creates a task that enters user mode with the registers in `frame`.
    pub fn new_user(frame: &TrapFrame, fpu: FpuInit) -> Option<Arc<Task>> {
        let mut fpu_area = FpuArea::initial()?;
        if super::pkru::enabled() {
            // A fresh program (init) starts with Linux's default PKRU, as
            // one started by execve does.
            fpu_area.set_pkru(super::pkru::DEFAULT);
        }
        let stack = stacks::alloc()?;
        let top = stack.top() as u64;
        let frame_addr = top - core::mem::size_of::<TrapFrame>() as u64;
        let mut user_frame = frame.clone();
        user_frame.cs = USER_CS as u64;
        user_frame.ss = USER_DS as u64;
        user_frame.rflags = (user_frame.rflags | (1 << 9)) & !((3 << 12) | (1 << 8)); // IF on, IOPL 0, no TF
        // Six callee-saved registers, then the "return address" the switch
        // pops: the first-entry stub, which finds the frame right above.
        let switch_frame = frame_addr - 7 * 8;
        // SAFETY: `stack` is a fresh, mapped kernel stack owned by this task;
        // the writes stay inside its top page.
        unsafe {
            core::ptr::write(frame_addr as *mut TrapFrame, user_frame);
            let words = switch_frame as *mut u64;
            for i in 0..6 {
                words.add(i).write(0);
            }
            words.add(6).write(&task_first_user_entry as *const u8 as u64);
        }
        LIVE_TASKS.fetch_add(1, Ordering::Relaxed);
        let task = Task {
            saved_rsp: UnsafeCell::new(switch_frame),
            stack: Some(stack),
            running: AtomicBool::new(false),
            fpu: UnsafeCell::new(fpu_area),
            fs_base: AtomicU64::new(0),
            gs_base: AtomicU64::new(0),
            debug: super::debugreg::DebugRegs::new(),
        };
        if let FpuInit::CopyCurrent = fpu {
            // SAFETY: the task is not shared yet, so this is the only
            // access to its area.
            unsafe { (*task.fpu.get()).save_live() };
            // fork and clone inherit the user GS base as Linux's do (the
            // FS base is set by the caller: the parent's, or CLONE_SETTLS).
            task.gs_base.store(read_msr(IA32_KERNEL_GS_BASE), Ordering::Relaxed);
        }
        Some(Arc::new(task))
    }

    /// Creates a kernel task that runs `entry(arg)`; `entry` must never
    /// return (it switches away for good instead).
    pub fn new_kernel(entry: fn(usize) -> !, arg: usize) -> Option<Arc<Task>> {
        let fpu_area = FpuArea::initial()?;
        let stack = stacks::alloc()?;
        let top = stack.top() as u64;
        let switch_frame = top - 9 * 8;
        // SAFETY: as in `new_user`. Slots: r15, r14, r13 (arg), r12 (entry),
        // rbx, rbp, return address.
        unsafe {
            let words = switch_frame as *mut u64;
            for i in 0..9 {
                words.add(i).write(0);
            }
            words.add(2).write(arg as u64);
            words.add(3).write(entry as usize as u64);
            words.add(6).write(&task_first_kernel_entry as *const u8 as u64);
        }
        LIVE_TASKS.fetch_add(1, Ordering::Relaxed);
        Some(Arc::new(Task {
            saved_rsp: UnsafeCell::new(switch_frame),
            stack: Some(stack),
            running: AtomicBool::new(false),
            fpu: UnsafeCell::new(fpu_area),
            fs_base: AtomicU64::new(0),
            gs_base: AtomicU64::new(0),
            debug: super::debugreg::DebugRegs::new(),
        }))
    }

    /// Sets the task's user FS base (TLS); takes effect at once if the task
    /// is the one running on this CPU.
    pub fn set_fs_base(&self, value: u64, is_current: bool) {
        self.fs_base.store(value, Ordering::Relaxed);
        if is_current {
            write_fs_base(value);
        }
    }

    /// Returns whether some CPU is running the task (or still leaving it).
    pub fn is_running(&self) -> bool {
        self.running.load(Ordering::Acquire)
    }

    /// Returns the task's user FS base (the live register if the task is
    /// the one running here: user code may have moved it with WRFSBASE;
    /// for a task running on another CPU, what it had when it last left
    /// one, so callers ask about their own task).
    pub fn fs_base(&self) -> u64 {
        self.live_or_saved(&self.fs_base, IA32_FS_BASE)
    }

    /// Sets the task's user GS base (ARCH_SET_GS, execve's reset); takes
    /// effect at once if the task is the one running on this CPU.
    pub fn set_gs_base(&self, value: u64, is_current: bool) {
        self.gs_base.store(value, Ordering::Relaxed);
        if is_current {
            write_user_base(IA32_KERNEL_GS_BASE, value);
        }
    }

    /// Runs `f` on the saved FPU image of a task no CPU runs (a stopped
    /// tracee): claims the task as a switch does, so no CPU enters it
    /// meanwhile (one that tries waits), waiting first for a CPU still
    /// leaving it.
    fn with_saved_fpu<R>(&self, f: impl FnOnce(&mut FpuArea) -> R) -> R {
        while self.running.swap(true, Ordering::Acquire) {
            while self.running.load(Ordering::Relaxed) {
                core::hint::spin_loop();
            }
        }
        // SAFETY: `running` is ours (claimed above), so no CPU touches the
        // area until it is released below.
        let result = f(unsafe { &mut *self.fpu.get() });
        self.running.store(false, Ordering::Release);
        result
    }

    /// Copies the saved FPU state (the XSAVE image, or the 512-byte FXSAVE
    /// image) of a task that is not running into `out`; returns the bytes
    /// copied. The caller must not be the task itself.
    pub fn read_saved_fpu(&self, out: &mut [u8]) -> usize {
        self.with_saved_fpu(|area| {
            let bytes = area.bytes();
            let n = out.len().min(bytes.len());
            out[..n].copy_from_slice(&bytes[..n]);
            n
        })
    }

    /// Replaces the x87 and SSE state (an FXSAVE image) of a task that is
    /// not running, for a debugger (see `FpuArea::set_legacy`).
    pub fn write_saved_legacy_fpu(&self, image: &[u8; 512]) {
        self.with_saved_fpu(|area| area.set_legacy(image));
    }

    /// Copies the NT_X86_XSTATE view (Linux's standard-format image) of
    /// the saved FPU state of a task that is not running into `out`;
    /// returns the bytes copied.
    pub fn read_saved_xstate(&self, out: &mut [u8]) -> usize {
        self.with_saved_fpu(|area| area.uabi_image(out))
    }

    /// Replaces the saved FPU state of a task that is not running with a
    /// debugger's standard-format XSAVE image (NT_X86_XSTATE).
    pub fn write_saved_xstate(&self, image: &[u8]) -> Result<(), super::fpu::XstateError> {
        self.with_saved_fpu(|area| area.set_uabi(image))
    }

    /// Sets the task's debug registers (DR0-DR3 and DR7), loaded when it
    /// next enters a CPU: a tracer sets them while the task is stopped.
    /// DR7 must enable only breakpoints on user addresses with lengths and
    /// types Linux's ptrace accepts (checked by the caller).
    pub fn set_debug_regs(&self, addr: [u64; 4], dr7: u64) {
        self.debug.set(addr, dr7);
    }

    /// Loads the task's debug registers on this CPU if it is the task
    /// running here (a tracee resuming from a stop: its tracer may have
    /// changed them while it never left the CPU).
    pub fn reload_debug_regs(&self) {
        let were_enabled = super::interrupts::save_and_disable();
        let current = CURRENT_TASK[percpu::cpu_index()].load(Ordering::Acquire) as *const Task;
        if core::ptr::eq(current, self) {
            super::debugreg::switch_to(&self.debug);
        }
        super::interrupts::restore(were_enabled);
    }

    /// Returns the task's user GS base, live as [`Task::fs_base`].
    pub fn gs_base(&self) -> u64 {
        // In the kernel (after SWAPGS) the user's GS base is the one in
        // IA32_KERNEL_GS_BASE.
        self.live_or_saved(&self.gs_base, IA32_KERNEL_GS_BASE)
    }

    fn live_or_saved(&self, saved: &AtomicU64, msr: u32) -> u64 {
        let were_enabled = super::interrupts::save_and_disable();
        let current = CURRENT_TASK[percpu::cpu_index()].load(Ordering::Acquire) as *const Task;
        let value = if core::ptr::eq(current, self) { read_msr(msr) } else { saved.load(Ordering::Relaxed) };
        super::interrupts::restore(were_enabled);
        value
    }

    /// Returns the top of the task's kernel stack (0 for a boot context).
    fn stack_top(&self) -> u64 {
        self.stack.as_ref().map_or(0, |s| s.top() as u64)
    }
}

static LIVE_TASKS: AtomicU64 = AtomicU64::new(0);

/// Returns how many tasks exist (a leak diagnostic).
pub fn live_task_count() -> u64 {
    LIVE_TASKS.load(Ordering::Relaxed)
}

impl Drop for Task {
    fn drop(&mut self) {
        LIVE_TASKS.fetch_sub(1, Ordering::Relaxed);
        // A CPU may still be leaving this task (an exiting thread reaped by
        // its parent elsewhere): its stack is in use until `running` clears.
        while self.running.load(Ordering::Acquire) {
            core::hint::spin_loop();
        }
        if let Some(stack) = self.stack.take() {
            stacks::free(stack);
        }
    }
}

const IA32_FS_BASE: u32 = 0xc000_0100;
/// The user's GS base while the CPU is in the kernel (SWAPGS exchanged it
/// with the per-CPU pointer).
const IA32_KERNEL_GS_BASE: u32 = 0xc000_0102;

fn write_fs_base(value: u64) {
    write_user_base(IA32_FS_BASE, value);
}

fn write_user_base(msr: u32, value: u64) {
    // SAFETY: both MSRs hold user state only (the kernel's GS base is in
    // IA32_GS_BASE while in the kernel); a non-canonical value would #GP,
    // so such values are rejected by the caller (arch_prctl) first; here
    // we clamp defensively.
    let value = if value < USER_END as u64 { value } else { 0 };
    unsafe { Msr::new(msr).write(value) };
}

fn read_msr(msr: u32) -> u64 {
    // SAFETY: reading the FS or kernel-GS base MSR has no side effects.
    unsafe { Msr::new(msr).read() }
}

/// Resets the calling task's FPU state to the one a new program starts
/// with (execve, signal delivery, and sigreturn without an FPU image as on
/// Linux), PKRU included: Linux gives it its default value, not XSAVE's
/// initial 0.
pub fn reset_fpu() {
    super::fpu::load_initial();
    super::pkru::reset();
}

/// The task each CPU runs, as an owned `Arc` (raw pointer; 0 before the
/// CPU adopts its boot context). Holding the reference here, not on any
/// task's stack, is what lets a finished task be freed: nothing on its own
/// stack keeps it alive once the CPU has left.
static CURRENT_TASK: [AtomicU64; percpu::MAX_CPUS] = [const { AtomicU64::new(0) }; percpu::MAX_CPUS];

impl Task {
    /// Returns a task for the code already running on this CPU (its boot
    /// path or idle loop) and makes it this CPU's current task.
    pub fn adopt_current_context() -> Arc<Task> {
        let task = Task::for_current_context();
        let slot = &CURRENT_TASK[percpu::cpu_index()];
        let old = slot.swap(Arc::into_raw(task.clone()) as u64, Ordering::AcqRel);
        if old != 0 {
            // SAFETY: the slot owned one reference, taken with into_raw.
            drop(unsafe { Arc::from_raw(old as *const Task) });
        }
        task
    }
}

/// Switches this CPU to `next`, taking over the caller's reference. The
/// task running now stays alive only through the references others hold
/// (its thread's); the CPU's own reference to it is dropped once the CPU
/// is off its stack. Returns when some CPU switches back to the caller.
pub fn switch_to(next: Arc<Task>) {
    let cpu = percpu::cpu_index();
    let prev_raw = CURRENT_TASK[cpu].load(Ordering::Acquire) as *const Task;
    assert!(!prev_raw.is_null(), "switch_to before the CPU adopted a task");
    if core::ptr::eq(prev_raw, Arc::as_ptr(&next)) {
        return;
    }
    let were_enabled = super::interrupts::save_and_disable();
    // SAFETY: the CURRENT_TASK slot holds a reference to the running task
    // until finish_switch drops it on the next context.
    let prev = unsafe { &*prev_raw };
    let next_raw = Arc::into_raw(next);
    // SAFETY: `next_raw` came from into_raw just above; the slot now owns it.
    let next = unsafe { &*next_raw };
    CURRENT_TASK[cpu].store(next_raw as u64, Ordering::Release);
    // Wait until the CPU that last ran `next` has saved its state.
    while next.running.swap(true, Ordering::Acquire) {
        while next.running.load(Ordering::Relaxed) {
            core::hint::spin_loop();
        }
    }
    // SAFETY: this CPU owns both tasks' saved state now: `prev` is running
    // here, `next` was claimed above. The whole enabled state goes both
    // ways (eagerly, as Linux does).
    unsafe {
        (*prev.fpu.get()).save_live();
        (*next.fpu.get()).load_live();
    }
    // User code may have moved its bases with WRFSBASE/WRGSBASE: keep the
    // live values, then load next's.
    prev.fs_base.store(read_msr(IA32_FS_BASE), Ordering::Relaxed);
    prev.gs_base.store(read_msr(IA32_KERNEL_GS_BASE), Ordering::Relaxed);
    write_fs_base(next.fs_base.load(Ordering::Relaxed));
    write_user_base(IA32_KERNEL_GS_BASE, next.gs_base.load(Ordering::Relaxed));
    super::debugreg::switch_to(&next.debug);
    let top = next.stack_top();
    if top != 0 {
        percpu::set_kernel_stack_top(top);
    }
    percpu::this_cpu().switched_from.store(prev_raw as u64, Ordering::Release);
    // SAFETY: `prev.saved_rsp` belongs to this CPU until `running` clears;
    // `next`'s saved stack pointer was stored by a previous switch (or by
    // the constructors) and points at a switch frame on its own stack.
    unsafe { switch_stacks(prev.saved_rsp.get(), *next.saved_rsp.get()) };
    finish_switch();
    super::interrupts::restore(were_enabled);
}

/// Marks the task this CPU just left as no longer running and drops the
/// CPU's reference to it (possibly the last: a finished task's stack is
/// freed here, safely, since this CPU now runs on another stack).
fn finish_switch() {
    let prev = percpu::this_cpu().switched_from.swap(0, Ordering::AcqRel);
    if prev != 0 {
        // SAFETY: `prev` is the reference the CURRENT_TASK slot owned (taken
        // with into_raw); it is alive until dropped here.
        unsafe {
            (*(prev as *const Task)).running.store(false, Ordering::Release);
            drop(Arc::from_raw(prev as *const Task));
        }
    }
}

/// First code of every new task, right after its first switch.
#[no_mangle]
extern "C" fn task_started() {
    finish_switch();
}
