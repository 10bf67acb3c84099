//! Deliberate faults, selected by `fault=` on the command line, so the tests
//! can check that a kernel fault is reported with a symbolized backtrace and
//! ends the machine with a failure code.

use core::hint::black_box;

use kevlar_platform::println;

/// Triggers the fault `kind` names: `page`, `stack-overflow` or `panic`.
pub fn trigger(kind: &str) -> ! {
    println!("fault: triggering a deliberate {} fault", kind);
    match kind {
        "page" => page_fault(),
        "stack-overflow" => {
            let depth = recurse(black_box(1));
            panic!("recursion returned {}", depth)
        }
        "panic" => deliberate_panic(),
        other => panic!("unknown fault kind {:?}", other),
    }
}

#[inline(never)]
fn page_fault() -> ! {
    kevlar_platform::debug::read_unmapped_kernel_address();
    panic!("a read of an unmapped kernel address did not fault")
}

/// Recurses until the stack runs into its guard page (the depth bound is
/// never reached: the stack is far smaller than a million 512-byte frames).
#[inline(never)]
fn recurse(depth: u64) -> u64 {
    let mut pad = [0u8; 512];
    pad[0] = depth as u8;
    black_box(&mut pad);
    if depth > 1_000_000 {
        return depth;
    }
    recurse(black_box(depth + 1)) + pad[0] as u64
}

#[inline(never)]
fn deliberate_panic() -> ! {
    panic!("deliberate panic requested on the command line")
}
