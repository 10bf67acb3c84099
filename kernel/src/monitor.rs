//! A minimal console monitor for `make run`, until there is a user space:
//! reads lines from the serial console (interrupt-driven input) and answers
//! a few commands about the machine.

use alloc::string::String;

use kevlar_platform::arch::{interrupts, serial};
use kevlar_platform::mm::{heap, pmm};
use kevlar_platform::{exit, print, println, smp, time, ExitCode};

/// Runs the monitor on the boot CPU forever.
pub fn run() -> ! {
    println!("No init yet: this is the kernel monitor. Type `help`.");
    let mut line = String::new();
    print!("kevlar> ");
    loop {
        let Some(byte) = serial::read_byte() else {
            interrupts::enable_and_halt();
            continue;
        };
        match byte {
            b'\r' | b'\n' => {
                println!();
                execute(line.trim());
                line.clear();
                print!("kevlar> ");
            }
            0x7f | 0x08 => {
                if line.pop().is_some() {
                    print!("\x08 \x08");
                }
            }
            0x20..=0x7e => {
                line.push(byte as char);
                print!("{}", byte as char);
            }
            _ => {}
        }
    }
}

fn execute(command: &str) {
    match command {
        "" => {}
        "help" => println!("commands: mem, cpus, uptime, date, poweroff, panic"),
        "mem" => {
            let stats = pmm::stats();
            println!(
                "frames: {} KiB total, {} KiB free; heap: {} bytes in use",
                stats.total_bytes >> 10,
                stats.free_bytes >> 10,
                heap::bytes_in_use()
            );
        }
        "cpus" => {
            for index in 0..smp::cpu_count() {
                let cpu = smp::cpu(index);
                println!("cpu{}: apic id {}, {} timer ticks, {} interrupts", index, cpu.apic_id(), cpu.timer_ticks(), cpu.interrupt_count());
            }
        }
        "uptime" => {
            let ns = time::monotonic_ns();
            println!("up {}.{:03} s", ns / 1_000_000_000, (ns / 1_000_000) % 1000);
        }
        "date" => println!("{} s since the epoch", time::realtime_ns() / 1_000_000_000),
        "poweroff" => exit(ExitCode::Success),
        "panic" => panic!("panic requested from the monitor"),
        other => println!("unknown command: {}", other),
    }
}
