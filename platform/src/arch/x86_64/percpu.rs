//! Per-CPU data, reached through the GS base register.
//!
//! Each CPU's `IA32_GS_BASE` points at its [`PerCpu`], whose first word
//! points at itself, so `mov rax, gs:[0]` yields a normal reference. The
//! structures live in a static array: the boot CPU needs its own before any
//! allocator exists.

use core::arch::asm;
use core::cell::UnsafeCell;
use core::mem::offset_of;
use core::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicU8, Ordering};

use x86_64::structures::tss::TaskStateSegment;

use super::gdt::Gdt;

/// The most CPUs the kernel manages.
pub const MAX_CPUS: usize = 64;

const IA32_GS_BASE: u32 = 0xc000_0101;

/// One CPU's private data.
#[repr(C, align(64))]
pub struct PerCpu {
    /// Points at this structure: `gs:[0]`.
    self_ptr: UnsafeCell<usize>,
    /// The user stack pointer, parked by the SYSCALL entry: `gs:[8]`.
    user_rsp_scratch: AtomicU64,
    /// Top of the running task's kernel stack, loaded by the SYSCALL entry:
    /// `gs:[16]`.
    kernel_rsp: AtomicU64,
    /// The task that was switched away from, whose `running` flag the next
    /// task clears once it is off the old stack.
    pub(super) switched_from: AtomicU64,
    /// Dense CPU number, 0 for the boot CPU.
    index: AtomicU32,
    /// Local APIC id.
    apic_id: AtomicU32,
    /// Interrupt and exception nesting depth on this CPU.
    irq_depth: AtomicU32,
    /// The kernel's per-CPU work for the way back to user mode (bits the
    /// kernel's scheduler defines), here so that the return path reads
    /// it with one `gs`-relative load ([`this_cpu_work_pending`]).
    /// Zero at boot.
    return_work: AtomicU8,
    online: AtomicBool,
    /// Local timer interrupts taken.
    timer_ticks: AtomicU64,
    /// Interrupts of any kind taken.
    interrupts: AtomicU64,
    /// The page-table root this CPU has loaded (see `tlb`).
    pub(super) loaded_root: AtomicU64,
    pub(super) gdt: UnsafeCell<Gdt>,
    pub(super) tss: UnsafeCell<TaskStateSegment>,
}

// SAFETY: fields other CPUs may read are atomics; `self_ptr`, `gdt` and `tss`
// are written only by the owning CPU during its bring-up, before anything
// else can observe them.
unsafe impl Sync for PerCpu {}

impl PerCpu {
    const fn new() -> Self {
        Self {
            self_ptr: UnsafeCell::new(0),
            user_rsp_scratch: AtomicU64::new(0),
            kernel_rsp: AtomicU64::new(0),
            switched_from: AtomicU64::new(0),
            index: AtomicU32::new(0),
            apic_id: AtomicU32::new(0),
            irq_depth: AtomicU32::new(0),
            return_work: AtomicU8::new(0),
            online: AtomicBool::new(false),
            timer_ticks: AtomicU64::new(0),
            interrupts: AtomicU64::new(0),
            loaded_root: AtomicU64::new(0),
            gdt: UnsafeCell::new(Gdt::new()),
            tss: UnsafeCell::new(TaskStateSegment::new()),
        }
    }

    /// The kernel's return-to-user work byte of this CPU (see the field).
    pub fn return_work(&self) -> &AtomicU8 {
        &self.return_work
    }

    /// Returns the dense CPU number.
    pub fn index(&self) -> usize {
        self.index.load(Ordering::Relaxed) as usize
    }

    /// Returns the local APIC id.
    pub fn apic_id(&self) -> u32 {
        self.apic_id.load(Ordering::Relaxed)
    }

    /// Returns whether the CPU has finished bring-up.
    pub fn is_online(&self) -> bool {
        self.online.load(Ordering::Acquire)
    }

    /// Returns the number of local timer interrupts this CPU has taken.
    pub fn timer_ticks(&self) -> u64 {
        self.timer_ticks.load(Ordering::Relaxed)
    }

    /// Returns the number of interrupts this CPU has taken.
    pub fn interrupt_count(&self) -> u64 {
        self.interrupts.load(Ordering::Relaxed)
    }
}

// The entry assembly (user.S) addresses these two fields by offset.
const _: () = assert!(offset_of!(PerCpu, user_rsp_scratch) == 8);
const _: () = assert!(offset_of!(PerCpu, kernel_rsp) == 16);

/// Sets where the SYSCALL entry and interrupts from user mode put the
/// kernel stack: the top of the task about to run.
pub(crate) fn set_kernel_stack_top(top: u64) {
    let this = this_cpu();
    this.kernel_rsp.store(top, Ordering::Relaxed);
    // SAFETY: only this CPU touches its TSS after bring-up, and the CPU
    // reads rsp0 only on a privilege change, which cannot happen while this
    // kernel code runs.
    unsafe { (*this.tss.get()).privilege_stack_table[0] = x86_64::VirtAddr::new(top) };
}

static PER_CPU: [PerCpu; MAX_CPUS] = [const { PerCpu::new() }; MAX_CPUS];

/// Returns the per-CPU data of CPU `index`.
pub fn cpu(index: usize) -> &'static PerCpu {
    &PER_CPU[index]
}

/// Points this CPU's GS base at slot `index`. Called once per CPU, first
/// thing in its Rust entry.
pub(crate) fn init_this_cpu(index: usize, apic_id: u32) -> &'static PerCpu {
    let this = &PER_CPU[index];
    let addr = this as *const PerCpu as usize;
    // SAFETY: only this CPU writes its own slot's self pointer, before GS
    // points at it.
    unsafe { *this.self_ptr.get() = addr };
    this.index.store(index as u32, Ordering::Relaxed);
    this.apic_id.store(apic_id, Ordering::Relaxed);
    // SAFETY: GS base is kernel-private; it now points at a live static.
    unsafe { x86_64::registers::model_specific::Msr::new(IA32_GS_BASE).write(addr as u64) };
    this
}

pub(crate) fn mark_online(this: &PerCpu) {
    this.online.store(true, Ordering::Release);
}

/// Returns the current CPU's data.
#[inline]
pub fn this_cpu() -> &'static PerCpu {
    let addr: usize;
    // SAFETY: GS base points at this CPU's `PerCpu` from the first
    // instruction of its Rust entry on.
    unsafe { asm!("mov {}, gs:[0]", out(reg) addr, options(nostack, readonly, preserves_flags)) };
    // SAFETY: the self pointer is the address of a `'static` PerCpu.
    unsafe { &*(addr as *const PerCpu) }
}

/// Whether this CPU's return-to-user work byte (`PerCpu::return_work`)
/// has any bit set: one load, for the system-call return path.
#[inline(always)]
pub fn this_cpu_work_pending() -> bool {
    let work: u8;
    // SAFETY: as in `this_cpu`; reads one byte field of this CPU's
    // `PerCpu` (an atomic: other code changes it with atomic operations).
    unsafe {
        asm!("mov {}, byte ptr gs:[{off}]", out(reg_byte) work, off = const offset_of!(PerCpu, return_work),
             options(nostack, readonly, preserves_flags))
    };
    work != 0
}

/// Returns the current CPU's dense number.
#[inline]
pub fn cpu_index() -> usize {
    let index: u32;
    // SAFETY: as in `this_cpu`; reads one aligned field.
    unsafe {
        asm!("mov {:e}, gs:[{off}]", out(reg) index, off = const offset_of!(PerCpu, index),
             options(nostack, readonly, preserves_flags))
    };
    index as usize
}

/// Returns whether this CPU is running an interrupt or exception handler.
#[inline]
pub fn in_interrupt() -> bool {
    let depth: u32;
    // SAFETY: as in `this_cpu`.
    unsafe {
        asm!("mov {:e}, gs:[{off}]", out(reg) depth, off = const offset_of!(PerCpu, irq_depth),
             options(nostack, readonly, preserves_flags))
    };
    depth != 0
}

pub(crate) fn enter_interrupt() {
    let this = this_cpu();
    this.irq_depth.fetch_add(1, Ordering::Relaxed);
    this.interrupts.fetch_add(1, Ordering::Relaxed);
}

pub(crate) fn leave_interrupt() {
    this_cpu().irq_depth.fetch_sub(1, Ordering::Relaxed);
}

pub(crate) fn count_timer_tick() {
    this_cpu().timer_ticks.fetch_add(1, Ordering::Relaxed);
}
