//! In-kernel tests, selected by `test=all` or `test=name1,name2` on the
//! command line. Each prints `KTEST <name> ... ok` or `... FAILED: why`, and
//! a closing `KTEST-SUMMARY passed=N failed=M` line the test runner reads.

use alloc::boxed::Box;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use kevlar_platform::arch::interrupts;
use kevlar_platform::arch::paging::{AddressSpace, MapError, PageFlags, PageSize};
use kevlar_platform::mm::pmm::{self, FrameBlock};
use kevlar_platform::mm::{heap, PAGE_SIZE};
use kevlar_platform::smp;
use kevlar_platform::sync::{IrqSpinLock, SpinLock};
use kevlar_platform::{println, time};

type TestResult = Result<(), String>;

macro_rules! ensure {
    ($cond:expr, $($msg:tt)*) => {
        if !$cond {
            return Err(format!($($msg)*));
        }
    };
}

/// Tests that need a device attached (a scratch virtio disk they
/// overwrite): run only by name, never by `all`.
const DEVICE_TESTS: &[(&str, fn() -> TestResult)] = &[
    ("block_virtio_in_flight", crate::block::ktest::virtio_in_flight),
    ("block_virtio_cpus", crate::block::ktest::virtio_cpus),
    ("block_virtio_discard", crate::block::ktest::virtio_discard),
];

const TESTS: &[(&str, fn() -> TestResult)] = &[
    ("pmm_alloc_free_orders", pmm_alloc_free_orders),
    ("pmm_huge_block", pmm_huge_block),
    ("pmm_distinct_frames", pmm_distinct_frames),
    ("pmm_invariants", pmm_invariants),
    ("heap_small_objects", heap_small_objects),
    ("heap_large_objects", heap_large_objects),
    ("heap_alignment", heap_alignment),
    ("heap_gives_pages_back", heap_gives_pages_back),
    ("paging_map_translate", paging_map_translate),
    ("paging_huge_pages", paging_huge_pages),
    ("paging_walk_and_teardown", paging_walk_and_teardown),
    ("paging_rejects_bad_addresses", paging_rejects_bad_addresses),
    ("paging_kernel_permissions", paging_kernel_permissions),
    ("cpu_protections", cpu_protections),
    ("clock_monotonic", clock_monotonic),
    ("clock_wall", clock_wall),
    ("clock_reference", clock_reference),
    ("timer_ticks", timer_ticks),
    ("percpu_identity", percpu_identity),
    ("percpu_timer_on_every_cpu", percpu_timer_on_every_cpu),
    ("spinlock_contention", spinlock_contention),
    ("irq_spinlock_masks_interrupts", irq_spinlock_masks_interrupts),
    ("tlb_shootdown_targets", tlb_shootdown_targets),
    ("block_queue_plan", crate::block::ktest::queue_plan),
    ("block_queue_concurrent", crate::block::ktest::queue_concurrent),
    ("block_queue_plug", crate::block::ktest::queue_plug),
];

/// Runs the selected tests; returns whether all passed.
pub fn run(selection: &str) -> bool {
    let wanted: Vec<&str> = selection.split(',').filter(|s| !s.is_empty()).collect();
    let selected = |name: &str| wanted.contains(&name) || (wanted.contains(&"all") && !DEVICE_TESTS.iter().any(|(n, _)| *n == name));
    let tests = || TESTS.iter().chain(DEVICE_TESTS);
    for name in &wanted {
        if *name != "all" && !tests().any(|(n, _)| n == name) {
            println!("KTEST {} ... FAILED: no such test", name);
        }
    }
    let mut passed = 0;
    let mut failed = wanted.iter().filter(|n| **n != "all" && !tests().any(|(t, _)| t == *n)).count();
    for (name, test) in tests().filter(|(name, _)| selected(name)) {
        match test() {
            Ok(()) => {
                passed += 1;
                println!("KTEST {} ... ok", name);
            }
            Err(why) => {
                failed += 1;
                println!("KTEST {} ... FAILED: {}", name, why);
            }
        }
    }
    println!("KTEST-SUMMARY passed={} failed={}", passed, failed);
    failed == 0
}

// --- physical memory --------------------------------------------------------

fn pmm_alloc_free_orders() -> TestResult {
    let before = pmm::stats().free_bytes;
    for order in 0..=10 {
        let mut block = FrameBlock::alloc_zeroed(order).ok_or(format!("order {} allocation failed", order))?;
        let align = (PAGE_SIZE << order) as u64;
        ensure!(block.phys_addr().as_u64() % align == 0, "order {} block at {:?} is misaligned", order, block.phys_addr());
        ensure!(block.as_slice().iter().all(|&b| b == 0), "order {} block is not zeroed", order);
        let len = block.len();
        block.as_mut_slice()[len - 1] = 0xa5;
        ensure!(block.as_slice()[len - 1] == 0xa5, "write to the block did not stick");
    }
    let after = pmm::stats().free_bytes;
    ensure!(before == after, "free memory went from {} to {} bytes", before, after);
    Ok(())
}

fn pmm_huge_block() -> TestResult {
    let block = FrameBlock::alloc_uninit(9).ok_or("no 2 MiB block")?;
    ensure!(block.phys_addr().as_u64() % (2 << 20) == 0, "2 MiB block misaligned: {:?}", block.phys_addr());
    ensure!(FrameBlock::alloc_uninit(pmm::MAX_BLOCK_ORDER + 1).is_none(), "an order past the maximum was granted");
    Ok(())
}

fn pmm_distinct_frames() -> TestResult {
    // The bookkeeping vectors come first, so the heap pages they take are
    // not mistaken for leaked frames.
    let mut blocks: Vec<FrameBlock> = Vec::with_capacity(512);
    let mut addrs: Vec<u64> = Vec::with_capacity(512);
    let before = pmm::stats().free_bytes;
    blocks.extend((0..512).map_while(|_| FrameBlock::alloc_uninit(0)));
    ensure!(blocks.len() == 512, "only {} frames allocated", blocks.len());
    for (i, block) in blocks.iter_mut().enumerate() {
        block.as_mut_slice()[..8].copy_from_slice(&(i as u64).to_le_bytes());
    }
    addrs.extend(blocks.iter().map(|b| b.phys_addr().as_u64()));
    addrs.sort_unstable();
    addrs.dedup();
    ensure!(addrs.len() == 512, "frames handed out twice");
    for (i, block) in blocks.iter().enumerate() {
        ensure!(block.as_slice()[..8] == (i as u64).to_le_bytes(), "frame {} was overwritten", i);
    }
    blocks.clear();
    ensure!(pmm::stats().free_bytes == before, "frames leaked");
    Ok(())
}

fn pmm_invariants() -> TestResult {
    pmm::check_invariants();
    let stats = pmm::stats();
    ensure!(stats.free_bytes <= stats.total_bytes && stats.free_bytes > 0, "implausible stats {:?}", stats);
    Ok(())
}

// --- heap ------------------------------------------------------------------

fn heap_small_objects() -> TestResult {
    let before = heap::bytes_in_use();
    {
        let boxes: Vec<Box<[u8]>> = (1..=2048).step_by(7).map(|n| alloc::vec![(n % 251) as u8; n].into_boxed_slice()).collect();
        for b in &boxes {
            let expected = (b.len() % 251) as u8;
            ensure!(b.iter().all(|&x| x == expected), "object of {} bytes corrupted", b.len());
        }
        let mut s = String::new();
        for i in 0..1000 {
            s.push_str(&format!("{},", i));
        }
        ensure!(s.len() == 3890, "string length {}", s.len());
    }
    let after = heap::bytes_in_use();
    ensure!(before == after, "heap in use went from {} to {}", before, after);
    Ok(())
}

/// 4 MiB of small objects, freed: the size class gives the pages back
/// to the frame allocator (all but its slack and pages shared with older
/// objects).
fn heap_gives_pages_back() -> TestResult {
    let held_before = heap::bytes_held();
    let free_before = pmm::stats().free_bytes;
    {
        let boxes: Vec<Box<[u64; 8]>> = (0..65536u64).map(|i| Box::new([i; 8])).collect();
        ensure!(heap::bytes_held() >= held_before + (4 << 20), "4 MiB of objects did not grow the heap");
        ensure!(boxes.iter().enumerate().all(|(i, b)| b[7] == i as u64), "objects corrupted");
    }
    let held_after = heap::bytes_held();
    ensure!(held_after <= held_before + (256 << 10), "the heap kept {} KiB", (held_after.saturating_sub(held_before)) >> 10);
    let free_after = pmm::stats().free_bytes;
    ensure!(free_after + (256 << 10) >= free_before, "free memory {} KiB short", (free_before - free_after) >> 10);
    Ok(())
}

fn heap_large_objects() -> TestResult {
    let free_before = pmm::stats().free_bytes;
    for size in [4096usize, 10_000, 1 << 20, 8 << 20] {
        let mut v = alloc::vec![0u8; size];
        v[size - 1] = 1;
        v[0] = 2;
        ensure!(v.iter().map(|&b| b as usize).sum::<usize>() == 3, "{} byte vector corrupted", size);
    }
    ensure!(pmm::stats().free_bytes == free_before, "large allocations were not returned to the frame allocator");
    Ok(())
}

fn heap_alignment() -> TestResult {
    #[repr(align(4096))]
    struct PageAligned([u8; 4096]);
    #[repr(align(64))]
    struct LineAligned([u8; 24]);
    for _ in 0..16 {
        let page = Box::new(PageAligned([1; 4096]));
        ensure!(&*page as *const PageAligned as usize % 4096 == 0, "page-aligned box misaligned");
        let line = Box::new(LineAligned([2; 24]));
        ensure!(&*line as *const LineAligned as usize % 64 == 0, "64-byte aligned box misaligned");
        ensure!(page.0[4095] == 1 && line.0[23] == 2, "aligned boxes corrupted");
    }
    Ok(())
}

// --- page tables -------------------------------------------------------------

fn paging_map_translate() -> TestResult {
    let mut space = AddressSpace::new().map_err(|e| format!("{:?}", e))?;
    let frame = FrameBlock::alloc_zeroed(0).ok_or("no frame")?;
    let pa = frame.phys_addr();
    let va = 0x40_0000;
    space.map(va, pa, PageSize::Size4K, PageFlags::WRITABLE | PageFlags::NO_EXECUTE).map_err(|e| format!("map: {:?}", e))?;
    let (got, flags, size) = space.translate(va + 0x123).ok_or("mapped page does not translate")?;
    ensure!(got.as_u64() == pa.as_u64() + 0x123 && size == PageSize::Size4K, "translated to {:?} {:?}", got, size);
    ensure!(flags.contains(PageFlags::WRITABLE | PageFlags::USER | PageFlags::NO_EXECUTE), "flags {:?}", flags);
    ensure!(space.map(va, pa, PageSize::Size4K, PageFlags::empty()) == Err(MapError::AlreadyMapped), "double map accepted");
    space.protect(va, PageSize::Size4K, PageFlags::empty()).map_err(|e| format!("protect: {:?}", e))?;
    let (_, flags, _) = space.translate(va).ok_or("protect lost the mapping")?;
    ensure!(!flags.contains(PageFlags::WRITABLE) && !flags.contains(PageFlags::NO_EXECUTE), "protect left {:?}", flags);
    ensure!(space.translate(va + PAGE_SIZE).is_none(), "neighbour page is mapped");
    let unmapped = space.unmap(va, PageSize::Size4K).map_err(|e| format!("unmap: {:?}", e))?;
    ensure!(unmapped == pa, "unmap returned {:?}", unmapped);
    ensure!(space.translate(va).is_none(), "page still mapped after unmap");
    ensure!(space.unmap(va, PageSize::Size4K) == Err(MapError::NotMapped), "second unmap succeeded");
    Ok(())
}

fn paging_huge_pages() -> TestResult {
    let mut space = AddressSpace::new().map_err(|e| format!("{:?}", e))?;
    let block = FrameBlock::alloc_uninit(9).ok_or("no 2 MiB block")?;
    let va = 0x4000_0000;
    space.map(va, block.phys_addr(), PageSize::Size2M, PageFlags::WRITABLE).map_err(|e| format!("map 2M: {:?}", e))?;
    let (pa, _, size) = space.translate(va + 0x1f_f008).ok_or("2 MiB page does not translate")?;
    ensure!(size == PageSize::Size2M && pa.as_u64() == block.phys_addr().as_u64() + 0x1f_f008, "got {:?} {:?}", pa, size);
    ensure!(
        space.map(va + PAGE_SIZE, block.phys_addr(), PageSize::Size4K, PageFlags::empty()) == Err(MapError::HugePageInTheWay),
        "4K map inside a 2M page accepted"
    );
    space.unmap(va, PageSize::Size2M).map_err(|e| format!("unmap 2M: {:?}", e))?;
    Ok(())
}

fn paging_walk_and_teardown() -> TestResult {
    let free_before = pmm::stats().free_bytes;
    {
        let mut space = AddressSpace::new().map_err(|e| format!("{:?}", e))?;
        let frame = FrameBlock::alloc_zeroed(0).ok_or("no frame")?;
        // Spread over several page tables, directories and PML4 slots.
        let addrs = [0x1000usize, 0x2000, 0x20_0000, 0x4000_0000, 0x7f_ffff_f000, 0x7fff_ffff_f000];
        for &va in &addrs {
            space.map(va, frame.phys_addr(), PageSize::Size4K, PageFlags::empty()).map_err(|e| format!("map {:#x}: {:?}", va, e))?;
        }
        let mut seen = Vec::new();
        space.walk(|va, pa, _, size| {
            if pa == frame.phys_addr() && size == PageSize::Size4K {
                seen.push(va);
            }
        });
        ensure!(seen == addrs, "walk saw {:x?}", seen);
        ensure!(space.table_page_count() > 6, "only {} table pages", space.table_page_count());
    }
    ensure!(pmm::stats().free_bytes == free_before, "page-table pages leaked on drop");
    Ok(())
}

fn paging_rejects_bad_addresses() -> TestResult {
    let mut space = AddressSpace::new().map_err(|e| format!("{:?}", e))?;
    let frame = FrameBlock::alloc_zeroed(0).ok_or("no frame")?;
    let pa = frame.phys_addr();
    for va in [0xffff_8000_0000_0000usize, 0x8000_0000_0000, 0x7fff_ffff_f001, 0x1234] {
        ensure!(space.map(va, pa, PageSize::Size4K, PageFlags::empty()) == Err(MapError::BadAddress), "mapped bad address {:#x}", va);
    }
    ensure!(space.translate(0xffff_8000_0000_0000).is_none(), "user space translates a kernel address");
    Ok(())
}

static WRITABLE_STATIC: AtomicU64 = AtomicU64::new(1);
static READONLY_STATIC: [u8; 16] = *b"kevlar rodata 01";

fn paging_kernel_permissions() -> TestResult {
    use kevlar_platform::arch::paging::translate_current;
    let code = paging_kernel_permissions as fn() -> TestResult as usize;
    let (_, f, _) = translate_current(code).ok_or("kernel code unmapped")?;
    ensure!(!f.contains(PageFlags::WRITABLE) && !f.contains(PageFlags::NO_EXECUTE), "text flags {:?}", f);
    let (_, f, _) = translate_current(READONLY_STATIC.as_ptr() as usize).ok_or("rodata unmapped")?;
    ensure!(!f.contains(PageFlags::WRITABLE) && f.contains(PageFlags::NO_EXECUTE), "rodata flags {:?}", f);
    let (_, f, _) = translate_current(&WRITABLE_STATIC as *const AtomicU64 as usize).ok_or("data unmapped")?;
    ensure!(f.contains(PageFlags::WRITABLE) && f.contains(PageFlags::NO_EXECUTE), "data flags {:?}", f);
    let heap_obj = Box::new(0u64);
    let (_, f, _) = translate_current(&*heap_obj as *const u64 as usize).ok_or("heap unmapped")?;
    ensure!(f.contains(PageFlags::NO_EXECUTE), "heap is executable");
    ensure!(translate_current(0x1000).is_none(), "the lower half maps address 0x1000 in the kernel table");
    Ok(())
}

fn cpu_protections() -> TestResult {
    use kevlar_platform::x86::cpu::{active_protections, features, Features};
    let (wp, smep, smap, nx) = active_protections();
    let f = features();
    ensure!(wp && nx, "write protect {} / NX {}", wp, nx);
    ensure!(smep == f.contains(Features::SMEP), "SMEP available {} but active {}", f.contains(Features::SMEP), smep);
    ensure!(smap == f.contains(Features::SMAP), "SMAP available {} but active {}", f.contains(Features::SMAP), smap);
    Ok(())
}

// --- time ------------------------------------------------------------------

fn clock_monotonic() -> TestResult {
    let mut last = time::monotonic_ns();
    ensure!(last > 0, "the monotonic clock reads 0");
    for _ in 0..10_000 {
        let now = time::monotonic_ns();
        ensure!(now >= last, "clock went back from {} to {}", last, now);
        last = now;
    }
    ensure!(time::tsc_hz() > 100_000_000, "implausible TSC frequency {}", time::tsc_hz());
    Ok(())
}

fn clock_reference() -> TestResult {
    // The clock must agree with the reference counter it was calibrated
    // against (QEMU always has an HPET or a PM timer), over a window much
    // longer than the calibration's, within 0.2% (the initial calibration
    // is good to about 0.05%; steering then takes it further).
    let Some((reference_ns, clock_ns)) = time::measure_against_reference(50_000_000) else {
        return Err(format!("the clock has no reference counter"));
    };
    let error = reference_ns.abs_diff(clock_ns);
    ensure!(
        error <= reference_ns / 500,
        "the clock advanced {} ns while the reference advanced {} ns",
        clock_ns,
        reference_ns
    );
    Ok(())
}

fn clock_wall() -> TestResult {
    let secs = time::realtime_ns() / 1_000_000_000;
    // 2020-01-01 .. 2100-01-01: the RTC was read and decoded.
    ensure!((1_577_836_800..4_102_444_800).contains(&secs), "wall clock says {} s since the epoch", secs);
    let d = time::DateTime { year: 2000, month: 3, day: 1, hour: 0, minute: 0, second: 0 };
    ensure!(d.to_unix_seconds() == 951_868_800, "2000-03-01 converted to {}", d.to_unix_seconds());
    Ok(())
}

fn timer_ticks() -> TestResult {
    let cpu = smp::this_cpu();
    let start_ticks = cpu.timer_ticks();
    let start_ns = time::monotonic_ns();
    ensure!(interrupts::are_enabled(), "interrupts are off on the boot CPU");
    while cpu.timer_ticks() < start_ticks + 5 {
        interrupts::enable_and_halt();
    }
    let elapsed_ms = (time::monotonic_ns() - start_ns) / 1_000_000;
    let period_ms = 1000 / time::TICK_HZ as u64;
    // Five ticks take 4..5 periods (the first may come at once); allow
    // slack for emulation, but catch a timer that runs far off its rate.
    ensure!(elapsed_ms >= 3 * period_ms && elapsed_ms <= 50 * period_ms, "5 ticks took {} ms", elapsed_ms);
    Ok(())
}

// --- SMP -------------------------------------------------------------------

static SEEN_INDEX: [AtomicUsize; smp::MAX_CPUS] = [const { AtomicUsize::new(usize::MAX) }; smp::MAX_CPUS];

fn percpu_identity() -> TestResult {
    fn record(index: usize) {
        SEEN_INDEX[index].store(smp::cpu_index(), Ordering::SeqCst);
    }
    let count = smp::cpu_count();
    for slot in &SEEN_INDEX {
        slot.store(usize::MAX, Ordering::SeqCst);
    }
    smp::run_on_all_cpus(record);
    let mut apic_ids = Vec::new();
    for index in 0..count {
        let seen = SEEN_INDEX[index].load(Ordering::SeqCst);
        ensure!(seen == index, "CPU {} reported index {}", index, seen);
        ensure!(smp::cpu(index).is_online(), "CPU {} is not online", index);
        apic_ids.push(smp::cpu(index).apic_id());
    }
    apic_ids.sort_unstable();
    apic_ids.dedup();
    ensure!(apic_ids.len() == count, "APIC ids are not distinct");
    Ok(())
}

fn percpu_timer_on_every_cpu() -> TestResult {
    let count = smp::cpu_count();
    let before: Vec<u64> = (0..count).map(|i| smp::cpu(i).timer_ticks()).collect();
    let deadline = time::monotonic_ns() + 2_000_000_000;
    loop {
        let all_ticked = (0..count).all(|i| smp::cpu(i).timer_ticks() >= before[i] + 3);
        if all_ticked {
            return Ok(());
        }
        ensure!(time::monotonic_ns() < deadline, "ticks before {:?}, after {:?}", before, (0..count).map(|i| smp::cpu(i).timer_ticks()).collect::<Vec<_>>());
        interrupts::enable_and_halt();
    }
}

const INCREMENTS_PER_CPU: u64 = 20_000;
static SHARED: SpinLock<(u64, u64)> = SpinLock::new((0, 0));

fn spinlock_contention() -> TestResult {
    fn hammer(_: usize) {
        for _ in 0..INCREMENTS_PER_CPU {
            let mut guard = SHARED.lock();
            // Two fields updated apart: an unprotected interleaving would
            // make them disagree, a lost update would make the total short.
            let a = guard.0;
            core::hint::spin_loop();
            guard.0 = a + 1;
            guard.1 += 1;
        }
    }
    *SHARED.lock() = (0, 0);
    smp::run_on_all_cpus(hammer);
    let (a, b) = *SHARED.lock();
    let expected = INCREMENTS_PER_CPU * smp::cpu_count() as u64;
    ensure!(a == expected && b == expected, "counted {} and {}, expected {}", a, b, expected);
    Ok(())
}

fn irq_spinlock_masks_interrupts() -> TestResult {
    static LOCK: IrqSpinLock<u32> = IrqSpinLock::new(0);
    ensure!(interrupts::are_enabled(), "interrupts off before the test");
    {
        let mut guard = LOCK.lock();
        *guard += 1;
        ensure!(!interrupts::are_enabled(), "interrupts stay on under an IrqSpinLock");
        ensure!(LOCK.try_lock().is_none(), "the lock was taken twice");
    }
    ensure!(interrupts::are_enabled(), "interrupts not restored after the guard dropped");
    let plain = SpinLock::new(5);
    {
        let _g = plain.lock();
        ensure!(interrupts::are_enabled(), "a plain SpinLock disabled interrupts");
        ensure!(plain.try_lock().is_none(), "plain lock taken twice");
    }
    ensure!(plain.try_lock().is_some(), "plain lock not released");
    Ok(())
}

/// A change to an address space another CPU has loaded sends that CPU a
/// shootdown (and returns only once it has flushed); once that CPU has
/// switched away, changes send nothing.
fn tlb_shootdown_targets() -> TestResult {
    use kevlar_platform::arch::tlb;
    use kevlar_platform::mm::pmm::PageRef;
    static SPACE: SpinLock<Option<AddressSpace>> = SpinLock::new(None);
    static STEP: AtomicUsize = AtomicUsize::new(0);
    static RESULT: SpinLock<Option<String>> = SpinLock::new(None);
    const VA: usize = 0x40_0000;
    if smp::cpu_count() < 2 {
        return Ok(()); // nothing to shoot at
    }
    fn wait_for(step: usize) {
        while STEP.load(Ordering::Acquire) < step {
            core::hint::spin_loop();
        }
    }
    fn work(index: usize) {
        match index {
            1 => {
                SPACE.lock().as_ref().unwrap().activate();
                STEP.store(1, Ordering::Release);
                wait_for(2); // CPU 0 unmaps while we hold the space
                kevlar_platform::arch::paging::activate_kernel_table();
                STEP.store(3, Ordering::Release);
            }
            0 => {
                wait_for(1);
                let before = tlb::ipis_sent();
                let gone = SPACE.lock().as_mut().unwrap().unmap_page(VA);
                let sent_while_loaded = tlb::ipis_sent() - before;
                STEP.store(2, Ordering::Release);
                wait_for(3);
                let before = tlb::ipis_sent();
                let _ = SPACE.lock().as_mut().unwrap().unmap_page(VA + PAGE_SIZE);
                let sent_after = tlb::ipis_sent() - before;
                let problem = if gone.is_none() {
                    Some(String::from("the first page was not mapped"))
                } else if sent_while_loaded != 1 {
                    Some(format!("{} IPIs while CPU 1 had the space loaded, expected 1", sent_while_loaded))
                } else if sent_after != 0 {
                    Some(format!("{} IPIs after CPU 1 switched away, expected 0", sent_after))
                } else {
                    None
                };
                *RESULT.lock() = problem;
            }
            _ => {}
        }
    }
    let mut space = AddressSpace::new().map_err(|e| format!("{:?}", e))?;
    for va in [VA, VA + PAGE_SIZE] {
        let page = PageRef::alloc_zeroed().ok_or("out of memory")?;
        space.map_page(va, page, PageFlags::WRITABLE).map_err(|e| format!("{:?}", e))?;
    }
    *SPACE.lock() = Some(space);
    STEP.store(0, Ordering::Release);
    *RESULT.lock() = None;
    smp::run_on_all_cpus(work);
    drop(SPACE.lock().take());
    match RESULT.lock().take() {
        Some(problem) => Err(problem),
        None => Ok(()),
    }
}
