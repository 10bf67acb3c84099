//! Starting the application processors, and running work on every CPU.

use core::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use super::percpu::{self, MAX_CPUS};
use super::trap::vectors;
use super::{apic, interrupts};
use crate::mm::addr::PhysAddr;
use crate::mm::stacks;
use crate::sync::SpinLock;

/// Physical page the start-up IPI points the APs at (below 1 MiB, kept out
/// of the page-frame allocator with the rest of the first MiB).
const TRAMPOLINE_PADDR: u64 = 0x8000;

/// Stack tops the APs take in arrival order (read by the boot assembly).
#[no_mangle]
static AP_STACK_TOPS: [AtomicU64; MAX_CPUS] = [const { AtomicU64::new(0) }; MAX_CPUS];
/// The kernel page table the APs switch to before touching their stack.
#[no_mangle]
static AP_KERNEL_CR3: AtomicU64 = AtomicU64::new(0);

static ONLINE_CPUS: AtomicUsize = AtomicUsize::new(1);

extern "C" {
    static ap_trampoline_start: u8;
    static ap_trampoline_end: u8;
    static ap_trampoline32: u8;
    static ap_tramp_far32: u8;
}

/// Returns how many CPUs are online.
pub fn cpu_count() -> usize {
    ONLINE_CPUS.load(Ordering::Acquire)
}

/// Starts every CPU in `apic_ids` other than the boot CPU, and waits (up to
/// 100 ms) until each reports in. Returns how many came online.
pub(crate) fn start_aps(apic_ids: &[u32], bsp_apic_id: u32) -> usize {
    let targets: heapless_ids::Ids = apic_ids.iter().copied().filter(|&id| id != bsp_apic_id).collect();
    if targets.is_empty() {
        return 1;
    }
    // SAFETY: only addresses of linker symbols are taken; the trampoline
    // bytes are read-only data in the kernel image.
    let (start, end, entry32, far32) = unsafe {
        (
            &ap_trampoline_start as *const u8 as usize,
            &ap_trampoline_end as *const u8 as usize,
            &ap_trampoline32 as *const u8 as usize,
            &ap_tramp_far32 as *const u8 as usize,
        )
    };
    let dest = PhysAddr::new(TRAMPOLINE_PADDR).direct_map();
    // SAFETY: the trampoline page is reserved RAM below 1 MiB that nothing
    // else uses; the copy is smaller than a page.
    unsafe {
        core::ptr::copy_nonoverlapping(start as *const u8, dest as *mut u8, end - start);
        let far = (dest + (far32 - start)) as *mut u32;
        far.write_unaligned((TRAMPOLINE_PADDR as usize + (entry32 - start)) as u32);
    }
    AP_KERNEL_CR3.store(super::paging::kernel_root(), Ordering::Release);
    for (slot, _) in targets.iter().enumerate() {
        let stack = stacks::alloc().expect("out of memory for AP stacks");
        AP_STACK_TOPS[slot].store(stack.top() as u64, Ordering::Release);
    }

    let expected = 1 + targets.len();
    log::debug!("smp: sending INIT at {} ns", crate::time::monotonic_ns());
    for &id in targets.iter() {
        apic::send_init(id);
    }
    // The INIT-to-SIPI delay real hardware wants; QEMU and modern CPUs do
    // not need the 10 ms of the original MP specification.
    crate::time::spin_delay_ns(10_000);
    for attempt in 0..2 {
        for &id in targets.iter() {
            apic::send_startup(id, (TRAMPOLINE_PADDR >> 12) as u8);
        }
        let deadline = crate::time::monotonic_ns() + if attempt == 0 { 1_000_000 } else { 100_000_000 };
        wait_until(|| ONLINE_CPUS.load(Ordering::Acquire) >= expected || crate::time::monotonic_ns() >= deadline);
        if ONLINE_CPUS.load(Ordering::Acquire) == expected {
            break;
        }
    }
    let online = ONLINE_CPUS.load(Ordering::Acquire);
    if online < expected {
        log::warn!("smp: only {} of {} CPUs came online", online, expected);
    }
    online
}

/// The Rust entry of an AP, on its own stack and the kernel page table.
#[no_mangle]
extern "C" fn platform_ap_entry(arrival: u64) -> ! {
    let index = arrival as usize + 1;
    let t0 = crate::time::monotonic_ns();
    super::boot::init_cpu(index);
    log::debug!("smp: cpu{} entered at {} ns, init done at {} ns", index, t0, crate::time::monotonic_ns());
    apic::init_local();
    crate::time::start_tick();
    percpu::mark_online(percpu::this_cpu());
    ONLINE_CPUS.fetch_add(1, Ordering::AcqRel);
    apic::send_fixed(percpu::cpu(0).apic_id(), vectors::IPI_WAKE);
    idle_loop(index)
}

type Work = fn(usize);

static WORK: SpinLock<Option<Work>> = SpinLock::new(None);
static WORK_GENERATION: AtomicU64 = AtomicU64::new(0);
static WORK_DONE: AtomicUsize = AtomicUsize::new(0);
/// APIC id of the CPU waiting for posted work to finish.
static WORK_WAITER_APIC_ID: AtomicU64 = AtomicU64::new(0);

/// Halts until `done()` holds, checking after every interrupt. Halting
/// rather than spinning matters under TCG: a spinning vCPU holds the
/// emulator until its time slice (the next timer deadline) runs out, while
/// a halted one lets the others run at once. Whoever makes `done()` true
/// sends an IPI_WAKE.
fn wait_until(done: impl Fn() -> bool) {
    let were_enabled = interrupts::are_enabled();
    loop {
        interrupts::disable();
        if done() {
            break;
        }
        interrupts::enable_and_halt();
    }
    interrupts::restore(were_enabled);
}
/// One caller at a time posts work.
static WORK_CALLER: SpinLock<()> = SpinLock::new(());

fn idle_loop(index: usize) -> ! {
    let mut seen = 0;
    loop {
        interrupts::disable();
        let generation = WORK_GENERATION.load(Ordering::Acquire);
        if generation != seen {
            seen = generation;
            interrupts::enable();
            let work = *WORK.lock();
            if let Some(work) = work {
                work(index);
            }
            WORK_DONE.fetch_add(1, Ordering::AcqRel);
            apic::send_fixed(WORK_WAITER_APIC_ID.load(Ordering::Acquire) as u32, vectors::IPI_WAKE);
            continue;
        }
        if let Some(hooks) = super::user::hooks() {
            interrupts::enable();
            (hooks.idle)();
            interrupts::disable();
            if WORK_GENERATION.load(Ordering::Acquire) != seen {
                continue;
            }
        }
        // STI's shadow makes checking and halting atomic: a wake-up IPI sent
        // after the check still ends the HLT.
        interrupts::enable_and_halt();
    }
}

/// Wakes CPU `index` from HLT (a scheduler put work in its queue).
pub fn wake_cpu(index: usize) {
    let cpu = percpu::cpu(index);
    if cpu.is_online() {
        apic::send_fixed(cpu.apic_id(), vectors::IPI_WAKE);
    }
}

/// Runs `work(cpu_index)` on every online CPU, the caller's included, and
/// returns when all have finished.
pub fn run_on_all_cpus(work: Work) {
    let _caller = WORK_CALLER.lock();
    let others = cpu_count() - 1;
    *WORK.lock() = Some(work);
    WORK_DONE.store(0, Ordering::Release);
    WORK_WAITER_APIC_ID.store(percpu::this_cpu().apic_id() as u64, Ordering::Release);
    WORK_GENERATION.fetch_add(1, Ordering::AcqRel);
    let me = percpu::cpu_index();
    for index in 0..cpu_count() {
        let cpu = percpu::cpu(index);
        if index != me && cpu.is_online() {
            apic::send_fixed(cpu.apic_id(), vectors::IPI_WAKE);
        }
    }
    work(me);
    wait_until(|| WORK_DONE.load(Ordering::Acquire) >= others);
}

/// A fixed-capacity list of APIC ids (no heap needed during bring-up).
mod heapless_ids {
    use super::MAX_CPUS;

    pub struct Ids {
        ids: [u32; MAX_CPUS],
        len: usize,
    }

    impl Ids {
        pub fn iter(&self) -> core::slice::Iter<'_, u32> {
            self.ids[..self.len].iter()
        }
        pub fn len(&self) -> usize {
            self.len
        }
        pub fn is_empty(&self) -> bool {
            self.len == 0
        }
    }

    impl FromIterator<u32> for Ids {
        fn from_iter<I: IntoIterator<Item = u32>>(iter: I) -> Self {
            let mut out = Ids { ids: [0; MAX_CPUS], len: 0 };
            for id in iter.into_iter().take(MAX_CPUS - 1) {
                out.ids[out.len] = id;
                out.len += 1;
            }
            out
        }
    }
}
