//! Links the kernel with the platform's linker script.

fn main() {
    let manifest = std::env::var("CARGO_MANIFEST_DIR").unwrap();
    let script = format!("{}/../platform/src/arch/x86_64/kernel.ld", manifest);
    println!("cargo:rerun-if-changed={}", script);
    println!("cargo:rustc-link-arg-bins=-T{}", script);
    println!("cargo:rustc-link-arg-bins=-zmax-page-size=4096");
    println!("cargo:rustc-link-arg-bins=--no-pie");
}
