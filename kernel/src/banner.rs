//! The boot banner and timeline.

use kevlar_platform::{println, BootContext};
use kevlar_platform::mm::pmm;
use kevlar_platform::x86::boot;

/// Prints the banner (CPUs, memory, CPU model), the boot timeline and the
/// time from kernel entry to the banner.
pub fn print(context: &BootContext) {
    boot::mark("banner");
    let stats = pmm::stats();
    println!(
        "Kevlar {} (x86_64): {} CPUs, {} MiB RAM ({} MiB free), {}",
        env!("CARGO_PKG_VERSION"),
        context.cpu_count,
        context.ram_bytes >> 20,
        stats.free_bytes >> 20,
        if context.cpu_model.is_empty() { "unknown CPU" } else { &context.cpu_model },
    );
    let d = context.boot_date;
    println!(
        "boot: {:04}-{:02}-{:02} {:02}:{:02}:{:02} UTC, command line \"{}\"",
        d.year, d.month, d.day, d.hour, d.minute, d.second, context.raw_command_line
    );
    let timeline = boot::timeline();
    for (name, ns) in &timeline {
        println!("boot: {:>8}.{:03} ms  {}", ns / 1_000_000, (ns / 1000) % 1000, name);
    }
    if let Some((_, ns)) = timeline.last() {
        println!("boot: banner at {}.{:03} ms", ns / 1_000_000, (ns / 1000) % 1000);
    }
}
