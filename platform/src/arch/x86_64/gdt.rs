//! Per-CPU GDT and TSS.
//!
//! The selector layout is fixed by SYSCALL/SYSRET, which derive the user
//! segments from one base: user data at base+8 and 64-bit user code at
//! base+16. The user selectors are Linux's (__USER_DS 0x2b, __USER_CS
//! 0x33): programs and debuggers see them (gdb decides a tracee is 64-bit
//! by its CS).

use core::mem::size_of;

use x86_64::instructions::segmentation::{Segment, CS, DS, ES, FS, GS, SS};
use x86_64::instructions::tables::{lgdt, load_tss};
use x86_64::structures::gdt::SegmentSelector;
use x86_64::structures::tss::TaskStateSegment;
use x86_64::structures::DescriptorTablePointer;
use x86_64::{PrivilegeLevel, VirtAddr};

use super::percpu::PerCpu;

/// Kernel code selector.
pub const KERNEL_CS: u16 = 0x08;
/// Kernel data selector.
pub const KERNEL_DS: u16 = 0x10;
/// User data selector (RPL 3).
pub const USER_DS: u16 = 0x28 | 3;
/// 64-bit user code selector (RPL 3).
pub const USER_CS: u16 = 0x30 | 3;
/// The base SYSRET derives the user selectors from (IA32_STAR[63:48]).
pub const SYSRET_BASE: u16 = 0x20;
const TSS_SELECTOR: u16 = 0x40;

/// IST slot (1-based, as the IDT encodes it) for double faults.
pub const IST_DOUBLE_FAULT: u8 = 1;
/// IST slot for NMIs.
pub const IST_NMI: u8 = 2;
/// IST slot for machine checks.
pub const IST_MACHINE_CHECK: u8 = 3;

/// The descriptor table of one CPU.
#[repr(C, align(16))]
pub struct Gdt {
    entries: [u64; 10],
}

impl Gdt {
    pub(super) const fn new() -> Self {
        Self {
            entries: [
                0,
                0x00af_9a00_0000_ffff, // 0x08 kernel code, 64-bit
                0x00cf_9200_0000_ffff, // 0x10 kernel data
                0,                     // 0x18 unused
                0x00cf_fa00_0000_ffff, // 0x20 user code, 32-bit (unused; keeps the SYSRET layout)
                0x00cf_f200_0000_ffff, // 0x28 user data
                0x00af_fa00_0000_ffff, // 0x30 user code, 64-bit
                0,                     // 0x38 unused
                0,                     // 0x40 TSS, low half
                0,                     // 0x48 TSS, high half
            ],
        }
    }

    fn set_tss(&mut self, tss: &TaskStateSegment) {
        let base = tss as *const TaskStateSegment as u64;
        let limit = (size_of::<TaskStateSegment>() - 1) as u64;
        let low = (limit & 0xffff)
            | ((base & 0xff_ffff) << 16)
            | (0x89 << 40) // present, 64-bit TSS (available)
            | (((limit >> 16) & 0xf) << 48)
            | (((base >> 24) & 0xff) << 56);
        self.entries[8] = low;
        self.entries[9] = base >> 32;
    }
}

/// Top-of-stack addresses for the interrupt stack table.
pub struct IstStacks {
    /// Stack for double faults (also what a kernel stack overflow lands on).
    pub double_fault: u64,
    /// Stack for NMIs.
    pub nmi: u64,
    /// Stack for machine checks.
    pub machine_check: u64,
}

/// Loads this CPU's GDT and TSS and reloads every segment register.
pub(crate) fn load(this: &PerCpu, ist: IstStacks) {
    // SAFETY: the GDT and TSS of a CPU are written only by that CPU, here,
    // before they are loaded; afterwards the hardware reads them and the
    // kernel only updates `rsp0` through `set_kernel_stack`.
    let (gdt, tss) = unsafe { (&mut *this.gdt.get(), &mut *this.tss.get()) };
    tss.interrupt_stack_table[(IST_DOUBLE_FAULT - 1) as usize] = VirtAddr::new(ist.double_fault);
    tss.interrupt_stack_table[(IST_NMI - 1) as usize] = VirtAddr::new(ist.nmi);
    tss.interrupt_stack_table[(IST_MACHINE_CHECK - 1) as usize] = VirtAddr::new(ist.machine_check);
    tss.iomap_base = size_of::<TaskStateSegment>() as u16; // no I/O bitmap: user port access faults
    gdt.set_tss(tss);
    let ptr = DescriptorTablePointer {
        limit: (size_of::<Gdt>() - 1) as u16,
        base: VirtAddr::new(gdt as *const Gdt as u64),
    };
    // SAFETY: the table is 'static and holds valid descriptors; the
    // selectors loaded below index into it.
    unsafe {
        lgdt(&ptr);
        CS::set_reg(SegmentSelector::new(KERNEL_CS >> 3, PrivilegeLevel::Ring0));
        let data = SegmentSelector::new(KERNEL_DS >> 3, PrivilegeLevel::Ring0);
        SS::set_reg(data);
        DS::set_reg(SegmentSelector(0));
        ES::set_reg(SegmentSelector(0));
        // Loading FS/GS selectors clears their base registers on some CPUs
        // and hypervisors: the GS base is (re)written after this.
        FS::set_reg(SegmentSelector(0));
        GS::set_reg(SegmentSelector(0));
        load_tss(SegmentSelector(TSS_SELECTOR));
    }
}
