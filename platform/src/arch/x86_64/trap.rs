//! The IDT, exception reporting and interrupt dispatch.

use core::arch::{asm, global_asm};
use core::fmt;
use core::mem::size_of;

use x86_64::instructions::tables::lidt;
use x86_64::structures::DescriptorTablePointer;
use x86_64::VirtAddr;

use super::gdt::{IST_DOUBLE_FAULT, IST_MACHINE_CHECK, IST_NMI, KERNEL_CS};
use super::user::Exception;
use super::{apic, percpu, serial};
use crate::sync::SpinLock;

global_asm!(include_str!("trap.S"), options(att_syntax));

extern "C" {
    static trap_stubs: u8;
}

/// The CPU state saved on interrupt or exception entry.
#[repr(C)]
#[derive(Clone, Debug)]
#[allow(missing_docs)]
pub struct TrapFrame {
    pub r15: u64,
    pub r14: u64,
    pub r13: u64,
    pub r12: u64,
    pub r11: u64,
    pub r10: u64,
    pub r9: u64,
    pub r8: u64,
    pub rbp: u64,
    pub rdi: u64,
    pub rsi: u64,
    pub rdx: u64,
    pub rcx: u64,
    pub rbx: u64,
    pub rax: u64,
    pub vector: u64,
    pub error_code: u64,
    pub rip: u64,
    pub cs: u64,
    pub rflags: u64,
    pub rsp: u64,
    pub ss: u64,
}

impl TrapFrame {
    /// Returns whether the CPU was in user mode when the trap happened.
    pub fn from_user(&self) -> bool {
        self.cs & 3 == 3
    }
}

/// Interrupt vectors the platform assigns.
pub mod vectors {
    /// The local APIC timer.
    pub const TIMER: u8 = 0x20;
    /// COM1 received data, routed through the IO-APIC.
    pub const SERIAL: u8 = 0x24;
    /// virtio-blk completions (MSI-X, every disk).
    pub const VIRTIO_BLK: u8 = 0x30;
    /// Inter-processor wake-up: makes a halted CPU look at its mailbox.
    pub const IPI_WAKE: u8 = 0xf0;
    /// TLB shootdown request (see `tlb`).
    pub const IPI_TLB: u8 = 0xf1;
    /// The local APIC's spurious-interrupt vector.
    pub const SPURIOUS: u8 = 0xff;
}

#[derive(Clone, Copy)]
#[repr(C)]
struct IdtEntry {
    offset_low: u16,
    selector: u16,
    ist: u8,
    type_attr: u8,
    offset_mid: u16,
    offset_high: u32,
    reserved: u32,
}

impl IdtEntry {
    const EMPTY: Self = Self {
        offset_low: 0,
        selector: 0,
        ist: 0,
        type_attr: 0,
        offset_mid: 0,
        offset_high: 0,
        reserved: 0,
    };

    fn new(handler: u64, ist: u8, user_callable: bool) -> Self {
        let dpl = if user_callable { 3 } else { 0 };
        Self {
            offset_low: handler as u16,
            selector: KERNEL_CS,
            ist,
            type_attr: 0x8e | (dpl << 5), // present, 64-bit interrupt gate
            offset_mid: (handler >> 16) as u16,
            offset_high: (handler >> 32) as u32,
            reserved: 0,
        }
    }
}

#[repr(C, align(16))]
struct Idt([IdtEntry; 256]);

/// Shared by all CPUs: written once by the boot CPU, then only read by the
/// hardware.
static IDT: SpinLock<Idt> = SpinLock::new(Idt([IdtEntry::EMPTY; 256]));

/// Fills the IDT (boot CPU, once).
pub(crate) fn init_idt() {
    // SAFETY: only the address of the linker-provided stub table is taken.
    let stubs = unsafe { &trap_stubs as *const u8 as u64 };
    let mut idt = IDT.lock();
    for (vector, entry) in idt.0.iter_mut().enumerate() {
        let ist = match vector {
            8 => IST_DOUBLE_FAULT,
            2 => IST_NMI,
            18 => IST_MACHINE_CHECK,
            _ => 0,
        };
        // Breakpoints may come from user space (int3); everything else
        // raised by `int n` from user mode is a #GP.
        *entry = IdtEntry::new(stubs + 16 * vector as u64, ist, vector == 3);
    }
}

/// Loads the IDT on this CPU.
pub(crate) fn load_idt() {
    let idt = IDT.lock();
    let ptr = DescriptorTablePointer {
        limit: (size_of::<Idt>() - 1) as u16,
        base: VirtAddr::new(&*idt as *const Idt as u64),
    };
    // SAFETY: the IDT is 'static, fully populated with valid gates, and never
    // moves.
    unsafe { lidt(&ptr) };
}

const EXCEPTION_NAMES: [&str; 32] = [
    "divide error (#DE)",
    "debug (#DB)",
    "non-maskable interrupt",
    "breakpoint (#BP)",
    "overflow (#OF)",
    "bound range exceeded (#BR)",
    "invalid opcode (#UD)",
    "device not available (#NM)",
    "double fault (#DF)",
    "coprocessor segment overrun",
    "invalid TSS (#TS)",
    "segment not present (#NP)",
    "stack-segment fault (#SS)",
    "general protection fault (#GP)",
    "page fault (#PF)",
    "reserved",
    "x87 floating-point exception (#MF)",
    "alignment check (#AC)",
    "machine check (#MC)",
    "SIMD floating-point exception (#XM)",
    "virtualization exception (#VE)",
    "control protection exception (#CP)",
    "reserved",
    "reserved",
    "reserved",
    "reserved",
    "reserved",
    "reserved",
    "hypervisor injection exception",
    "VMM communication exception",
    "security exception",
    "reserved",
];

fn read_cr2() -> u64 {
    let cr2: u64;
    // SAFETY: reading CR2 has no side effects.
    unsafe { asm!("mov {}, cr2", out(reg) cr2, options(nomem, nostack, preserves_flags)) };
    cr2
}

#[no_mangle]
extern "C" fn trap_entry(frame: &mut TrapFrame) {
    let vector = frame.vector as u8;
    let from_user = frame.from_user();
    // Only device and inter-processor interrupts count as interrupt
    // context: a page fault is the faulting code's own context (it may take
    // locks and sleep to fix the mapping).
    let is_interrupt = vector >= 32;
    if is_interrupt {
        percpu::enter_interrupt();
    }
    let mut user_exception = None;
    match vector {
        vectors::TIMER => {
            percpu::count_timer_tick();
            apic::end_of_interrupt();
            crate::time::on_timer_interrupt();
            super::stall::check(frame);
            if let Some(hooks) = super::user::hooks() {
                (hooks.timer_tick)(from_user);
            }
        }
        vectors::SERIAL => {
            serial::handle_interrupt();
            apic::end_of_interrupt();
        }
        vectors::VIRTIO_BLK => {
            crate::virtio_blk::handle_interrupt();
            apic::end_of_interrupt();
        }
        vectors::IPI_WAKE => {
            apic::end_of_interrupt();
        }
        vectors::IPI_TLB => {
            super::tlb::handle_ipi();
            apic::end_of_interrupt();
        }
        vectors::SPURIOUS => {}
        1 if from_user => user_exception = Some(Exception::Debug { dr6: super::debugreg::user_debug_trap(frame) }),
        0..=31 if from_user => user_exception = Some(decode_exception(frame)),
        1 if super::debugreg::kernel_debug_trap() => {}
        14 if super::user::usercopy_fault(frame, read_cr2() as usize) => {}
        13 if super::fpu::user_insn_gp(frame) => {}
        0..=31 => handle_exception(frame),
        _ => {
            log::warn!("unexpected interrupt vector {:#x}", vector);
            apic::end_of_interrupt();
        }
    }
    if is_interrupt {
        percpu::leave_interrupt();
    }
    if from_user {
        super::user::user_trap(frame, user_exception);
    }
}

fn decode_exception(frame: &TrapFrame) -> Exception {
    match frame.vector {
        0 => Exception::DivideError,
        3 => Exception::Breakpoint,
        6 => Exception::InvalidOpcode,
        13 => Exception::GeneralProtection,
        14 => Exception::PageFault {
            addr: read_cr2() as usize,
            write: frame.error_code & 2 != 0,
            exec: frame.error_code & 16 != 0,
            present: frame.error_code & 1 != 0,
            key_denied: frame.error_code & (1 << 5) != 0,
        },
        16 | 19 => Exception::FloatingPoint,
        17 => Exception::AlignmentCheck,
        v => Exception::Other(v as u8),
    }
}

fn handle_exception(frame: &mut TrapFrame) {
    let vector = frame.vector as usize;
    let cr2 = read_cr2();
    let detail = match vector {
        8 | 14 if is_stack_guard_fault(cr2) => " (kernel stack overflow: ran into a guard page)",
        8 => " (a fault while delivering a fault)",
        _ => "",
    };
    crate::panic::fatal(format_args!(
        "EXCEPTION: {}{} on cpu{}\n{}",
        EXCEPTION_NAMES[vector],
        detail,
        percpu::cpu_index(),
        FrameDump { frame, cr2 }
    ), frame.rip, frame.rbp);
}

fn is_stack_guard_fault(addr: u64) -> bool {
    crate::mm::stacks::is_guard_address(addr)
}

struct FrameDump<'a> {
    frame: &'a TrapFrame,
    cr2: u64,
}

impl fmt::Display for FrameDump<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let t = self.frame;
        writeln!(f, "  error code {:#x}, cr2 {:#018x}, mode {}", t.error_code, self.cr2,
                 if t.from_user() { "user" } else { "kernel" })?;
        if t.vector == 14 {
            let e = t.error_code;
            writeln!(f, "  page fault: {} {} access in {} mode{}",
                if e & 1 != 0 { "protection violation on" } else { "non-present page on" },
                if e & 16 != 0 { "instruction fetch" } else if e & 2 != 0 { "write" } else { "read" },
                if e & 4 != 0 { "user" } else { "kernel" },
                if e & 8 != 0 { " (reserved bit set)" } else { "" })?;
        }
        writeln!(f, "  rip {:#018x}  cs {:#06x}  rflags {:#010x}", t.rip, t.cs, t.rflags)?;
        writeln!(f, "  rsp {:#018x}  ss {:#06x}", t.rsp, t.ss)?;
        writeln!(f, "  rax {:#018x}  rbx {:#018x}  rcx {:#018x}", t.rax, t.rbx, t.rcx)?;
        writeln!(f, "  rdx {:#018x}  rsi {:#018x}  rdi {:#018x}", t.rdx, t.rsi, t.rdi)?;
        writeln!(f, "  rbp {:#018x}  r8  {:#018x}  r9  {:#018x}", t.rbp, t.r8, t.r9)?;
        writeln!(f, "  r10 {:#018x}  r11 {:#018x}  r12 {:#018x}", t.r10, t.r11, t.r12)?;
        write!(f, "  r13 {:#018x}  r14 {:#018x}  r15 {:#018x}", t.r13, t.r14, t.r15)
    }
}
