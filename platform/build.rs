//! Builds the vDSO (a small freestanding shared object written in C) so
//! the platform can embed it: see src/arch/x86_64/vdso/.

use std::env;
use std::path::PathBuf;
use std::process::Command;

fn main() {
    let dir = PathBuf::from("src/arch/x86_64/vdso");
    let source = dir.join("vdso.c");
    let script = dir.join("vdso.lds");
    println!("cargo:rerun-if-changed={}", source.display());
    println!("cargo:rerun-if-changed={}", script.display());
    let out = PathBuf::from(env::var("OUT_DIR").expect("OUT_DIR")).join("vdso.so");
    let status = Command::new("gcc")
        .args([
            "-O2",
            "-fPIC",
            "-fno-stack-protector",
            "-fno-asynchronous-unwind-tables",
            "-fno-builtin",
            "-ffreestanding",
            "-mno-red-zone",
            "-mgeneral-regs-only",
            "-nostdlib",
            "-shared",
            "-Wall",
            "-Werror",
            "-Wl,-soname,linux-vdso.so.1",
            "-Wl,--hash-style=both",
            "-Wl,--build-id=none",
            "-Wl,-z,max-page-size=4096",
            "-Wl,-z,norelro",
            "-Wl,--no-undefined",
        ])
        .arg(format!("-Wl,-T,{}", script.display()))
        .arg("-o")
        .arg(&out)
        .arg(&source)
        .status()
        .expect("running gcc to build the vDSO (tools/setup.sh installs it)");
    assert!(status.success(), "building the vDSO failed");
}
