//! Boot: from the PVH entry to the kernel's main function.

use alloc::string::String;
use alloc::vec::Vec;
use core::arch::global_asm;
use core::ops::Range;
use core::sync::atomic::{AtomicUsize, Ordering};

use kevlar_bootinfo::{BootInfo, CommandLine, MemoryKind};

use super::cpu::{self, Features};
use super::gdt::{self, IstStacks};
use super::trap::vectors;
use super::{apic, interrupts, ioapic, paging, percpu, serial, smp, trap};
use crate::mm::addr::{PhysAddr, KERNEL_BASE, PAGE_SIZE};
use crate::mm::pmm::{self, RangeList};
use crate::mm::{heap, stacks};
use crate::time;

global_asm!(include_str!("boot.S"), options(att_syntax));

// The APs arrive here from the low boot code, still on the boot page
// tables: switch to the kernel's table first (their stacks exist only
// there), then take the stack the BSP prepared for this arrival slot.
global_asm!(
    r#"
    .section .text.ap_entry, "ax"
    .global ap_entry_high
    ap_entry_high:
        movabsq $AP_KERNEL_CR3, %rax
        movq (%rax), %rax
        movq %rax, %cr3
        movabsq $AP_STACK_TOPS, %rbx
        movq (%rbx,%rdi,8), %rsp
        xorl %ebp, %ebp
        call platform_ap_entry
    1:  hlt
        jmp 1b
    "#,
    options(att_syntax)
);

extern "C" {
    static boot_entry_tsc: u64;
    static boot_stack_guard: u8;
    static __kernel_image_pstart: u8;
    static __kernel_image_pend: u8;
}

/// Everything the kernel proper is handed at boot.
pub struct BootContext {
    /// The parsed kernel command line.
    pub command_line: CommandLine,
    /// The command line as the boot loader passed it.
    pub raw_command_line: String,
    /// The initramfs image QEMU loaded (`-initrd`), if any.
    pub initrd: Option<&'static [u8]>,
    /// CPUs online.
    pub cpu_count: usize,
    /// Usable RAM in the firmware's memory map, in bytes.
    pub ram_bytes: u64,
    /// The wall-clock date read from the RTC.
    pub boot_date: time::DateTime,
    /// The CPU model.
    pub cpu_model: String,
}

const TIMELINE_CAPACITY: usize = 16;
static TIMELINE: crate::sync::SpinLock<([(&str, u64); TIMELINE_CAPACITY], usize)> =
    crate::sync::SpinLock::new(([("", 0); TIMELINE_CAPACITY], 0));

/// Records a boot milestone (name and TSC) for the boot timeline.
pub fn mark(name: &'static str) {
    let tsc = cpu::rdtsc();
    let mut timeline = TIMELINE.lock();
    let (entries, len) = &mut *timeline;
    if *len < TIMELINE_CAPACITY {
        entries[*len] = (name, tsc);
        *len += 1;
    }
}

/// Returns the boot milestones as (name, ns since kernel entry).
pub fn timeline() -> Vec<(&'static str, u64)> {
    let timeline = TIMELINE.lock();
    timeline.0[..timeline.1].iter().map(|&(name, tsc)| (name, time::tsc_to_ns(tsc))).collect()
}

/// Reads physical memory through the direct map, for the boot-information
/// and ACPI parsers.
struct DirectMapReader {
    limit: u64,
}

impl DirectMapReader {
    fn read_into(&self, paddr: u64, buf: &mut [u8]) -> bool {
        let Some(end) = paddr.checked_add(buf.len() as u64) else { return false };
        if end > self.limit {
            return false;
        }
        // SAFETY: [paddr, end) is below `limit`, which the active direct map
        // covers; firmware tables and boot data are plain memory, read only.
        unsafe { core::ptr::copy_nonoverlapping(PhysAddr::new(paddr).direct_map() as *const u8, buf.as_mut_ptr(), buf.len()) };
        true
    }
}

impl kevlar_bootinfo::PhysRead for DirectMapReader {
    fn read(&self, paddr: u64, buf: &mut [u8]) -> bool {
        self.read_into(paddr, buf)
    }
}

impl kevlar_acpi::PhysRead for DirectMapReader {
    fn read(&self, paddr: u64, buf: &mut [u8]) -> bool {
        self.read_into(paddr, buf)
    }
}

fn linker_addr(sym: &u8) -> usize {
    sym as *const u8 as usize
}

/// Returns the boot CPU's stack guard page (unmapped in the kernel table).
pub(crate) fn boot_stack_guard_range() -> Range<usize> {
    // SAFETY: only the symbol's address is taken.
    let start = unsafe { linker_addr(&boot_stack_guard) };
    start..start + PAGE_SIZE
}

#[repr(C, align(16))]
struct IstStack([u8; 16 * 1024]);
static mut BSP_IST_STACKS: [IstStack; 3] = [const { IstStack([0; 16 * 1024]) }; 3];

/// Brings up the CPU-local state every CPU needs: GDT with TSS, GS base,
/// IDT, protections.
pub(crate) fn init_cpu(index: usize) {
    let this = percpu::cpu(index);
    let ist = if index == 0 {
        let base = core::ptr::addr_of!(BSP_IST_STACKS) as u64;
        let size = core::mem::size_of::<IstStack>() as u64;
        IstStacks { double_fault: base + size, nmi: base + 2 * size, machine_check: base + 3 * size }
    } else {
        let top = || stacks::alloc().expect("out of memory for IST stacks").top() as u64;
        IstStacks { double_fault: top(), nmi: top(), machine_check: top() }
    };
    gdt::load(this, ist);
    // After the GDT: loading segment selectors may clear the GS base.
    percpu::init_this_cpu(index, initial_apic_id());
    trap::load_idt();
    cpu::enable_protections(if index == 0 { cpu::detect() } else { cpu::features() });
    super::fpu::init_cpu(index == 0);
    super::pkru::init_cpu(index == 0);
    super::user::init_cpu();
}

fn initial_apic_id() -> u32 {
    core::arch::x86_64::__cpuid(1).ebx >> 24
}

/// The Rust entry of the boot CPU, called by the PVH boot code on the boot
/// stack with the physical address of the start-info structure.
#[no_mangle]
extern "C" fn platform_bsp_entry(start_info_paddr: u32) -> ! {
    // SAFETY: written by the boot code before paging was enabled; read here
    // through the kernel-image alias... it lives in the low boot segment, so
    // read it through the direct map instead.
    let entry_tsc = unsafe {
        let low = &boot_entry_tsc as *const u64 as u64;
        core::ptr::read_volatile(PhysAddr::new(low).direct_map() as *const u64)
    };
    time::set_origin(entry_tsc);
    serial::init();
    trap::init_idt();
    init_cpu(0);
    crate::console::init_logger();
    mark("console");

    // Boot information (the heap runs on its boot arena for now).
    let boot_reader = DirectMapReader { limit: 4 << 30 };
    let info = match kevlar_bootinfo::parse_start_info(&boot_reader, start_info_paddr as u64) {
        Ok(info) => info,
        Err(err) => panic!("bad PVH start info: {:?}", err),
    };
    let command_line = CommandLine::parse(&info.command_line);
    if let Some(level) = command_line.get("log") {
        crate::console::set_level(parse_level(level));
    }

    // Physical memory.
    let (initrd_range, ram_bytes) = init_memory(&info);
    mark("memory");

    // Interrupt controllers and time.
    let reader = DirectMapReader { limit: pmm::max_phys_addr().max(4 << 30) };
    let madt = kevlar_acpi::parse_madt(&reader, info.rsdp_paddr).expect("reading the ACPI MADT");
    let fadt = kevlar_acpi::parse_fadt(&reader, info.rsdp_paddr).ok();
    let century = fadt.map_or(0, |f| f.century_cmos_index);
    let reference_clocks = time::ReferenceClocks {
        hpet: kevlar_acpi::parse_hpet(&reader, info.rsdp_paddr).ok().map(|h| h.base_address),
        pm_timer: fadt.filter(|f| f.pm_timer_port != 0).map(|f| (f.pm_timer_port, f.pm_timer_32bit)),
    };
    let features = cpu::features();
    apic::init_global(features, madt.local_apic_addr);
    apic::init_local();
    let tsc_hz = time::calibrate_tsc(reference_clocks);
    mark("timer calibrated");
    if let Some(io) = madt.io_apics.first() {
        ioapic::init(io.addr, io.gsi_base);
        let (gsi, polarity, trigger) = madt.isa_irq_to_gsi(serial::COM1_ISA_IRQ);
        ioapic::route(
            gsi,
            vectors::SERIAL,
            apic::local_apic_id(),
            polarity == kevlar_acpi::Polarity::ActiveLow,
            trigger == kevlar_acpi::TriggerMode::Level,
        );
        serial::enable_input_interrupts();
    } else {
        log::warn!("no IO-APIC: serial input is not interrupt-driven");
    }
    let boot_date = time::init_wall_clock(century);
    time::start_tick();
    interrupts::enable();
    percpu::mark_online(percpu::this_cpu());

    // Other CPUs.
    let apic_ids: Vec<u32> = madt.enabled_cpus().map(|c| c.apic_id).collect();
    let cpu_count = smp::start_aps(&apic_ids, apic::local_apic_id());
    mark("smp");

    log::debug!(
        "cpu: {:?}; apic: {}; TSC {}.{:03} MHz ({:?}), steered to {}",
        features,
        apic::mode_name(),
        tsc_hz / 1_000_000,
        (tsc_hz / 1000) % 1000,
        time::rate_source(),
        time::reference_name().unwrap_or("nothing")
    );
    let mut brand = [0u8; 48];
    let initrd = initrd_range.map(|(start, end)| {
        // SAFETY: the module's pages are reserved from the page-frame
        // allocator forever and covered by the direct map; nothing writes
        // them.
        unsafe { core::slice::from_raw_parts(PhysAddr::new(start).direct_map() as *const u8, (end - start) as usize) }
    });
    let context = BootContext {
        command_line,
        raw_command_line: info.command_line.clone(),
        initrd,
        cpu_count,
        ram_bytes,
        boot_date,
        cpu_model: String::from(cpu::brand_string(&mut brand)),
    };
    crate::call_kernel_main(context)
}

fn parse_level(name: &str) -> log::LevelFilter {
    match name {
        "off" => log::LevelFilter::Off,
        "error" => log::LevelFilter::Error,
        "warn" => log::LevelFilter::Warn,
        "debug" => log::LevelFilter::Debug,
        "trace" => log::LevelFilter::Trace,
        _ => log::LevelFilter::Info,
    }
}

static RAM_BYTES: AtomicUsize = AtomicUsize::new(0);

/// Sets up the page-frame allocator, the kernel page table and the heap.
/// Returns the initrd's physical range and the usable RAM size.
fn init_memory(info: &BootInfo) -> (Option<(u64, u64)>, u64) {
    let mut usable = RangeList::new();
    let mut ram_bytes = 0;
    for (start, end) in info.usable_ranges() {
        usable.push(start, end);
        ram_bytes += end - start;
    }
    RAM_BYTES.store(ram_bytes as usize, Ordering::Relaxed);
    let mut reserved = RangeList::new();
    // The first MiB: firmware data, and the AP trampoline page.
    reserved.push(0, 1 << 20);
    // SAFETY: only the addresses of linker symbols are taken.
    let (image_start, image_end) = unsafe { (linker_addr(&__kernel_image_pstart) as u64, linker_addr(&__kernel_image_pend) as u64) };
    reserved.push(image_start, image_end.next_multiple_of(PAGE_SIZE as u64));
    let initrd = info.modules.first().map(|m| (m.start, m.end));
    for module in &info.modules {
        reserved.push(module.start & !(PAGE_SIZE as u64 - 1), module.end.next_multiple_of(PAGE_SIZE as u64));
    }
    pmm::init(&usable, &reserved);
    heap::pmm_ready();

    let map = &info.memory_map;
    let is_ram = |start: u64, end: u64| {
        map.iter().any(|r| r.kind == MemoryKind::Ram && r.start < end && start < r.end)
    };
    let guard = boot_stack_guard_range().start;
    debug_assert!(guard >= KERNEL_BASE);
    paging::init_kernel_table(pmm::max_phys_addr(), is_ram, cpu::features().contains(Features::PAGE_1G), guard);
    pmm::add_deferred_ranges();
    (initrd, ram_bytes)
}
