//! Kevlar: a Linux-ABI kernel. This crate is the kernel proper, written in
//! safe Rust on top of `kevlar_platform`.

#![no_std]
#![no_main]
#![deny(unsafe_code)]

extern crate alloc;

mod banner;
mod fault;
mod ktest;
mod monitor;

use kevlar_platform::{exit, BootContext, ExitCode};

kevlar_platform::entry_point!(kernel_main);

fn kernel_main(context: BootContext) -> ! {
    banner::print(&context);
    let cmdline = &context.command_line;
    if cmdline.has("exit_after_banner") {
        exit(ExitCode::Success);
    }
    if let Some(kind) = cmdline.get("fault") {
        fault::trigger(kind);
    }
    if let Some(selection) = cmdline.get("test") {
        let all_passed = ktest::run(selection);
        exit(if all_passed { ExitCode::Success } else { ExitCode::Failure });
    }
    monitor::run()
}
