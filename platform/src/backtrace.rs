//! Frame-pointer backtraces, symbolized with the table that
//! `tools/embed-symbols.py` writes into the image's `.ksyms` section.

use core::fmt::Write;

use kevlar_ksyms::SymbolTable;

use crate::arch::paging;
use crate::mm::addr::KERNEL_BASE;

extern "C" {
    static __ksyms_start: u8;
    static __ksyms_end: u8;
    static __text_start: u8;
    static __text_end: u8;
}

const MAX_FRAMES: usize = 32;

/// Returns the embedded symbol table (None if the image was not processed).
pub fn symbols() -> Option<SymbolTable<'static>> {
    // SAFETY: the linker symbols bound the `.ksyms` section, read-only data
    // that lives as long as the kernel. They are opaque to the compiler, so
    // the bytes written after linking are what gets read.
    let blob = unsafe {
        let start = &__ksyms_start as *const u8;
        let end = &__ksyms_end as *const u8;
        core::slice::from_raw_parts(start, end as usize - start as usize)
    };
    SymbolTable::parse(blob)
}

fn is_text(addr: u64) -> bool {
    // SAFETY: only the addresses of linker symbols are taken.
    let (start, end) = unsafe { (&__text_start as *const u8 as u64, &__text_end as *const u8 as u64) };
    (start..end).contains(&addr)
}

/// Reads a word of kernel memory if it is mapped, so a corrupt frame chain
/// ends the walk instead of faulting inside the fault handler.
fn read_kernel_word(addr: u64) -> Option<u64> {
    if addr < KERNEL_BASE as u64 - (1 << 47) || addr % 8 != 0 {
        return None;
    }
    paging::translate_current(addr as usize)?;
    // SAFETY: the address is in the kernel half, aligned, and mapped.
    Some(unsafe { core::ptr::read_volatile(addr as *const u64) })
}

/// Writes one frame line: `  #N 0xADDR symbol+0xOFF`.
fn write_frame(out: &mut dyn Write, index: usize, addr: u64, symbols: Option<&SymbolTable<'_>>) {
    let _ = match symbols.and_then(|s| s.lookup(addr)) {
        Some(sym) => writeln!(out, "  #{} {:#018x} {}+{:#x}", index, addr, sym.name, sym.offset),
        None => writeln!(out, "  #{} {:#018x} ?", index, addr),
    };
}

/// Writes a backtrace starting at `rip`, then following the saved frame
/// pointers from `rbp`.
pub fn write_backtrace(out: &mut dyn Write, rip: u64, mut rbp: u64) {
    let symbols = symbols();
    let _ = writeln!(out, "backtrace:");
    write_frame(out, 0, rip, symbols.as_ref());
    let mut last = rip;
    let mut repeats = 0;
    for index in 1..MAX_FRAMES {
        if rbp == 0 {
            break;
        }
        let (Some(next), Some(ret)) = (read_kernel_word(rbp), read_kernel_word(rbp + 8)) else { break };
        if !is_text(ret) {
            break;
        }
        // Return addresses point after the call; step back into it so the
        // symbol is the caller's even when the call is its last instruction.
        let addr = ret - 1;
        if addr == last {
            // Deep recursion: one line says it, not thirty.
            repeats += 1;
        } else {
            if repeats > 0 {
                let _ = writeln!(out, "  ... the frame above repeats {} more times", repeats);
                repeats = 0;
            }
            write_frame(out, index, addr, symbols.as_ref());
        }
        last = addr;
        if next <= rbp {
            break; // frames grow upwards; anything else is a broken chain
        }
        rbp = next;
    }
    if repeats > 0 {
        let _ = writeln!(out, "  ... the frame above repeats {} more times (walk cut short)", repeats);
    }
}

/// Returns the frame pointer of the caller.
#[inline(always)]
pub fn current_frame_pointer() -> u64 {
    let rbp: u64;
    // SAFETY: reads a register.
    unsafe { core::arch::asm!("mov {}, rbp", out(reg) rbp, options(nomem, nostack, preserves_flags)) };
    rbp
}

/// Room for the symbol table, filled in after linking (the linker script
/// places this in `.ksyms`, between `__ksyms_start` and `__ksyms_end`).
#[used]
#[link_section = ".ksyms"]
static KSYMS_SPACE: [u8; KSYMS_CAPACITY] = [0; KSYMS_CAPACITY];

/// Bytes reserved for the embedded symbol table.
pub const KSYMS_CAPACITY: usize = 1 << 20;
