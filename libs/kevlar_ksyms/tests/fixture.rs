//! Reads `fixture.bin`, written by `tools/embed-symbols.py` from
//! `fixture.nm`, so that the Python writer and this crate's reader stay
//! compatible. Regenerate the blob after changing either file:
//!
//! ```text
//! python3 tools/embed-symbols.py --from-nm libs/kevlar_ksyms/tests/fixture.nm \
//!     --out libs/kevlar_ksyms/tests/fixture.bin
//! ```
//!
//! (`embed-symbols.py --self-test` fails while the blob is stale.)

use kevlar_ksyms::{Symbol, SymbolTable};

static FIXTURE: &[u8] = include_bytes!("fixture.bin");

const TEXT: u64 = 0xffff_ffff_8000_0000;

fn lookup(addr: u64) -> Option<(&'static str, u64)> {
    let table = SymbolTable::parse(FIXTURE).expect("fixture.bin must parse");
    table.lookup(addr).map(|sym| (sym.name, sym.offset))
}

#[test]
fn fixture_has_the_selected_symbols() {
    let table = SymbolTable::parse(FIXTURE).expect("fixture.bin must parse");
    // fixture.nm has 20 lines; the tool keeps only code symbols with real
    // names, one per address.
    assert_eq!(table.len(), 12);
}

#[test]
fn fixture_lookups() {
    // Identity-mapped boot code below the kernel base is an ordinary symbol.
    assert_eq!(lookup(0x10_0010), Some(("pvh_start32", 0x10)));
    assert_eq!(lookup(0x10_0040), None);
    // The sized `_start` wins over the size-less linker marker `__text_start`.
    assert_eq!(
        SymbolTable::parse(FIXTURE).unwrap().lookup(TEXT + 0x1000),
        Some(Symbol { name: "_start", address: TEXT + 0x1000, offset: 0 })
    );
    // `.L` labels are dropped, so this is past the end of `_start`.
    assert_eq!(lookup(TEXT + 0x1030), None);
    // The legacy-mangling hash suffix is stripped.
    assert_eq!(lookup(TEXT + 0x1045), Some(("kevlar_kernel::main", 5)));
    // `$x` mapping symbol dropped; the demangled name with spaces survives.
    assert_eq!(
        lookup(TEXT + 0x1160),
        Some(("<kevlar_kernel::fs::File as core::fmt::Debug>::fmt", 0))
    );
    // Two functions with the same demangled name share their string.
    assert_eq!(lookup(TEXT + 0x11b1), Some(("core::ptr::drop_in_place<alloc::vec::Vec<u8>>", 1)));
    assert_eq!(lookup(TEXT + 0x1201), Some(("core::ptr::drop_in_place<alloc::vec::Vec<u8>>", 1)));
    // Aliases: the global, shorter name is preferred.
    assert_eq!(lookup(TEXT + 0x1263), Some(("memcpy", 0x43)));
    assert_eq!(lookup(TEXT + 0x1284), None);
    // Weak symbols are kept.
    assert_eq!(lookup(TEXT + 0x1297), Some(("rust_eh_personality", 7)));
    assert_eq!(lookup(TEXT + 0x12a8), Some(("kevlar_kernel::größe::berechnen", 8)));
    // No size: extends to the next symbol.
    assert_eq!(lookup(TEXT + 0x13ff), Some(("interrupt_entry_common", 0x5f)));
    assert_eq!(lookup(TEXT + 0x1410), Some(("kevlar_kernel::task::spawn::{{closure}}", 0x10)));
    // Data and read-only symbols are not in the table; the size-less marker
    // `__text_end` is the last code symbol and covers everything above it.
    assert_eq!(lookup(TEXT + 0x2000), Some(("__text_end", 0x800)));
}

#[test]
fn fixture_with_section_padding() {
    // In the kernel the blob is followed by the zeros that fill the rest of
    // the reserved section.
    let mut padded = FIXTURE.to_vec();
    padded.resize(64 * 1024, 0);
    let table = SymbolTable::parse(&padded).expect("padded fixture must parse");
    assert_eq!(table.lookup(TEXT + 0x1221).map(|s| s.offset), Some(1));
}
