//! Kernel symbol table reader for symbolized backtraces.
//!
//! The kernel image reserves a fixed-size, zero-filled, read-only section
//! named `.ksyms`. After linking, `tools/embed-symbols.py` overwrites the
//! section's bytes *in the ELF file* with a symbol table blob. Because the
//! section keeps its size and address, nothing has to be relinked. At run time
//! the kernel passes the section's bytes to [`SymbolTable::parse`] and turns
//! return addresses into `function+0xoff` with [`SymbolTable::lookup`].
//!
//! The crate is `no_std`, allocation-free and free of `unsafe`: it only ever
//! reads from the borrowed byte slice, and every read is bounds-checked so
//! that a corrupt, truncated or never-filled section yields `None` instead of
//! a panic. That matters because the main user is the panic handler itself.
//!
//! # Blob format, version 1
//!
//! All integers are little-endian and have no alignment requirement (the
//! reader assembles them byte by byte). Offsets are in bytes.
//!
//! | Offset | Size | Field                                               |
//! |-------:|-----:|-----------------------------------------------------|
//! |      0 |    4 | magic, the ASCII bytes `KSYM`                        |
//! |      4 |    4 | `version`, u32, must be `1`                          |
//! |      8 |    4 | `symbol_count`, u32                                  |
//! |     12 |    4 | `strings_offset`, u32, from the start of the blob    |
//! |     16 |    4 | `strings_len`, u32                                   |
//! |     20 | 24 × `symbol_count` | the symbol entries            |
//!
//! The header is [`HEADER_LEN`] (20) bytes; the entries follow it
//! immediately. Each entry is [`ENTRY_LEN`] (24) bytes:
//!
//! | Offset | Size | Field                                               |
//! |-------:|-----:|-----------------------------------------------------|
//! |      0 |    8 | `address`, u64, the symbol's start address           |
//! |      8 |    4 | `size`, u32, length in bytes, `0` if unknown         |
//! |     12 |    4 | `name_offset`, u32, from the start of the strings    |
//! |     16 |    4 | `name_len`, u32, length of the name in bytes         |
//! |     20 |    4 | reserved, written as `0`, ignored by the reader      |
//!
//! The strings region is the `strings_len` bytes at `strings_offset`. It holds
//! the names as UTF-8 without NUL terminators; entries may share bytes (the
//! writer stores each distinct name once).
//!
//! A blob is accepted by [`SymbolTable::parse`] only if all of this holds:
//!
//! * the magic and version match;
//! * the entries fit in the blob;
//! * the strings region starts at or after the end of the entries and fits in
//!   the blob (the writer places it directly after the entries);
//! * entries are sorted by `address`, ascending (equal addresses are tolerated;
//!   the writer never emits them);
//! * every name lies inside the strings region and is valid UTF-8.
//!
//! Bytes after the strings region are ignored, so the blob may be followed by
//! the zero padding that fills the rest of the reserved section.

#![cfg_attr(not(test), no_std)]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

use core::fmt;

/// The four bytes every symbol table blob starts with.
pub const MAGIC: [u8; 4] = *b"KSYM";

/// The only blob format version this crate understands.
pub const VERSION: u32 = 1;

/// Length in bytes of the blob header (magic, version, count, strings offset
/// and strings length).
pub const HEADER_LEN: usize = 20;

/// Length in bytes of one symbol entry.
pub const ENTRY_LEN: usize = 24;

/// A validated, borrowed view of a symbol table blob.
///
/// Created by [`SymbolTable::parse`]. It is `Copy` and just a few words
/// large, so it can be passed around freely.
#[derive(Clone, Copy)]
pub struct SymbolTable<'a> {
    /// Exactly the entry array (`symbol_count * ENTRY_LEN` bytes).
    entries: &'a [u8],
    /// Exactly the strings region.
    strings: &'a [u8],
}

/// The result of a successful [`SymbolTable::lookup`].
///
/// Its [`Display`](fmt::Display) form is `name+0xoffset`, the usual
/// backtrace notation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Symbol<'a> {
    /// The symbol's (demangled) name.
    pub name: &'a str,
    /// The symbol's start address.
    pub address: u64,
    /// How far the looked-up address is past [`Symbol::address`].
    pub offset: u64,
}

impl fmt::Display for Symbol<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}+{:#x}", self.name, self.offset)
    }
}

/// One decoded entry; internal because callers only need [`Symbol`].
struct Entry {
    address: u64,
    size: u32,
    name_offset: u32,
    name_len: u32,
}

fn read_u32(bytes: &[u8], at: usize) -> Option<u32> {
    let end = at.checked_add(4)?;
    let raw: [u8; 4] = bytes.get(at..end)?.try_into().ok()?;
    Some(u32::from_le_bytes(raw))
}

fn read_u64(bytes: &[u8], at: usize) -> Option<u64> {
    let end = at.checked_add(8)?;
    let raw: [u8; 8] = bytes.get(at..end)?.try_into().ok()?;
    Some(u64::from_le_bytes(raw))
}

/// Converts a `u32` from the blob into an index. Fails only on targets where
/// `usize` is narrower than 32 bits, which Kevlar never runs on, but doing it
/// fallibly keeps the "never panic" promise unconditional.
fn to_usize(value: u32) -> Option<usize> {
    usize::try_from(value).ok()
}

impl<'a> SymbolTable<'a> {
    /// Validates `blob` and returns a table borrowing from it.
    ///
    /// `blob` may be the whole reserved section: anything after the strings
    /// region is ignored. Returns `None` if the magic is missing (for example
    /// when the section is still all zeros because `embed-symbols.py` was not
    /// run), if the version is not [`VERSION`], or if any offset, length or
    /// ordering rule from the [crate-level format description](crate) is
    /// violated. It never panics, whatever the input.
    ///
    /// Validation reads every entry once, so it is linear in the number of
    /// symbols; parse once and reuse the table for many lookups.
    pub fn parse(blob: &'a [u8]) -> Option<SymbolTable<'a>> {
        if blob.get(0..4)? != MAGIC {
            return None;
        }
        if read_u32(blob, 4)? != VERSION {
            return None;
        }
        let count = to_usize(read_u32(blob, 8)?)?;
        let strings_offset = to_usize(read_u32(blob, 12)?)?;
        let strings_len = to_usize(read_u32(blob, 16)?)?;

        let entries_end = count.checked_mul(ENTRY_LEN)?.checked_add(HEADER_LEN)?;
        let entries = blob.get(HEADER_LEN..entries_end)?;
        // Requiring the strings after the entries keeps the layout simple to
        // reason about and rules out a region that aliases the header.
        if strings_offset < entries_end {
            return None;
        }
        let strings_end = strings_offset.checked_add(strings_len)?;
        let strings = blob.get(strings_offset..strings_end)?;

        let table = SymbolTable { entries, strings };
        // Check every entry now so that `lookup` can rely on sorted order (the
        // binary search is meaningless otherwise) and so that a bad name is
        // reported as a bad blob rather than as a mysteriously missing symbol.
        let mut previous = 0u64;
        for index in 0..count {
            let entry = table.entry(index)?;
            if entry.address < previous {
                return None;
            }
            previous = entry.address;
            table.name(&entry)?;
        }
        Some(table)
    }

    /// Number of symbols in the table.
    pub fn len(&self) -> usize {
        self.entries.len() / ENTRY_LEN
    }

    /// Whether the table holds no symbols at all.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Finds the symbol containing `addr`.
    ///
    /// Picks the entry with the greatest address `<= addr` (the last one if
    /// several share that address). If that entry's size is known (non-zero),
    /// the symbol covers the half-open range `address..address + size`, and an
    /// `addr` at or beyond its end gives `None`, since it lies in a gap or
    /// in code without a symbol. A symbol of unknown size (0) extends up to
    /// the next entry; the last one extends without limit. Addresses below
    /// the first symbol give `None`.
    ///
    /// When symbolizing a *return address* from a stack walk, look up
    /// `ret - 1` and add 1 to the offset: a call that is the last instruction
    /// of a function (typical before a `noreturn` callee such as a panic)
    /// returns to the first byte after the function, which belongs to the next
    /// symbol or to none.
    pub fn lookup(&self, addr: u64) -> Option<Symbol<'a>> {
        // Binary search for the number of entries whose address is <= addr;
        // the invariant is that entries before `low` qualify and entries from
        // `high` on do not.
        let mut low = 0;
        let mut high = self.len();
        while low < high {
            let mid = low + (high - low) / 2;
            if self.entry(mid)?.address <= addr {
                low = mid + 1;
            } else {
                high = mid;
            }
        }
        let entry = self.entry(low.checked_sub(1)?)?;
        let offset = addr - entry.address;
        // Compare the offset, not `address + size`, so that a symbol at the
        // very top of the address space cannot overflow.
        if entry.size != 0 && offset >= u64::from(entry.size) {
            return None;
        }
        Some(Symbol {
            name: self.name(&entry)?,
            address: entry.address,
            offset,
        })
    }

    /// Decodes entry `index`, or `None` if it is out of range.
    fn entry(&self, index: usize) -> Option<Entry> {
        let base = index.checked_mul(ENTRY_LEN)?;
        let bytes = self.entries.get(base..base.checked_add(ENTRY_LEN)?)?;
        Some(Entry {
            address: read_u64(bytes, 0)?,
            size: read_u32(bytes, 8)?,
            name_offset: read_u32(bytes, 12)?,
            name_len: read_u32(bytes, 16)?,
        })
    }

    /// Resolves an entry's name, or `None` if it is out of bounds or not UTF-8.
    fn name(&self, entry: &Entry) -> Option<&'a str> {
        let start = to_usize(entry.name_offset)?;
        let end = start.checked_add(to_usize(entry.name_len)?)?;
        // Copy the reference out of `self` so the result borrows the blob
        // (`'a`), not the table.
        let strings: &'a [u8] = self.strings;
        core::str::from_utf8(strings.get(start..end)?).ok()
    }
}

impl fmt::Debug for SymbolTable<'_> {
    /// Shows the size of the table rather than dumping the raw blob.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SymbolTable")
            .field("symbols", &self.len())
            .field("strings_len", &self.strings.len())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One symbol as the test encoder takes it: address, size, name.
    type Sym<'n> = (u64, u32, &'n str);

    /// Test-only writer mirroring `tools/embed-symbols.py`: header, entries in
    /// the given order (callers pass them sorted), then the strings.
    fn encode(symbols: &[Sym<'_>]) -> Vec<u8> {
        let mut strings = Vec::new();
        let mut entries = Vec::new();
        for &(address, size, name) in symbols {
            entries.extend_from_slice(&address.to_le_bytes());
            entries.extend_from_slice(&size.to_le_bytes());
            entries.extend_from_slice(&(strings.len() as u32).to_le_bytes());
            entries.extend_from_slice(&(name.len() as u32).to_le_bytes());
            entries.extend_from_slice(&0u32.to_le_bytes());
            strings.extend_from_slice(name.as_bytes());
        }
        let strings_offset = HEADER_LEN + entries.len();
        let mut blob = Vec::new();
        blob.extend_from_slice(&MAGIC);
        blob.extend_from_slice(&VERSION.to_le_bytes());
        blob.extend_from_slice(&(symbols.len() as u32).to_le_bytes());
        blob.extend_from_slice(&(strings_offset as u32).to_le_bytes());
        blob.extend_from_slice(&(strings.len() as u32).to_le_bytes());
        blob.extend_from_slice(&entries);
        blob.extend_from_slice(&strings);
        blob
    }

    fn put_u32(blob: &mut [u8], at: usize, value: u32) {
        blob[at..at + 4].copy_from_slice(&value.to_le_bytes());
    }

    fn put_u64(blob: &mut [u8], at: usize, value: u64) {
        blob[at..at + 8].copy_from_slice(&value.to_le_bytes());
    }

    /// Byte offset of field `field_at` within entry `index`.
    fn entry_field(index: usize, field_at: usize) -> usize {
        HEADER_LEN + index * ENTRY_LEN + field_at
    }

    const BASE: u64 = 0xffff_ffff_8000_0000;

    fn sample() -> Vec<u8> {
        encode(&[
            (BASE + 0x1000, 0x40, "kevlar::main"),
            (BASE + 0x1040, 0x20, "memcpy"),
            // Gap between 0x1060 and 0x1100 that belongs to no symbol.
            (BASE + 0x1100, 0, "no_size"),
            (BASE + 0x1200, 0x10, "<kevlar::Foo as core::fmt::Debug>::fmt"),
            (BASE + 0x1300, 0, "last_unsized"),
        ])
    }

    fn at(table: &SymbolTable<'_>, addr: u64) -> Option<(String, u64)> {
        table.lookup(addr).map(|s| (s.name.to_string(), s.offset))
    }

    fn some(name: &str, offset: u64) -> Option<(String, u64)> {
        Some((name.to_string(), offset))
    }

    #[test]
    fn lookup_at_exact_starts() {
        let blob = sample();
        let table = SymbolTable::parse(&blob).unwrap();
        assert_eq!(table.len(), 5);
        assert!(!table.is_empty());
        let sym = table.lookup(BASE + 0x1000).unwrap();
        assert_eq!(
            sym,
            Symbol { name: "kevlar::main", address: BASE + 0x1000, offset: 0 }
        );
        assert_eq!(at(&table, BASE + 0x1040), some("memcpy", 0));
        assert_eq!(at(&table, BASE + 0x1100), some("no_size", 0));
        assert_eq!(
            at(&table, BASE + 0x1200),
            some("<kevlar::Foo as core::fmt::Debug>::fmt", 0)
        );
        assert_eq!(at(&table, BASE + 0x1300), some("last_unsized", 0));
    }

    #[test]
    fn lookup_inside() {
        let blob = sample();
        let table = SymbolTable::parse(&blob).unwrap();
        assert_eq!(at(&table, BASE + 0x1001), some("kevlar::main", 1));
        assert_eq!(at(&table, BASE + 0x103f), some("kevlar::main", 0x3f));
        assert_eq!(at(&table, BASE + 0x105f), some("memcpy", 0x1f));
        // Unknown size: covers everything up to the next symbol.
        assert_eq!(at(&table, BASE + 0x11ff), some("no_size", 0xff));
        // The last symbol without a size extends to the end of memory.
        assert_eq!(at(&table, u64::MAX), some("last_unsized", u64::MAX - BASE - 0x1300));
    }

    #[test]
    fn lookup_past_the_end_of_a_sized_symbol() {
        let blob = sample();
        let table = SymbolTable::parse(&blob).unwrap();
        // End is exclusive.
        assert_eq!(at(&table, BASE + 0x1060), None);
        assert_eq!(at(&table, BASE + 0x10ff), None);
        assert_eq!(at(&table, BASE + 0x1210), None);
    }

    #[test]
    fn lookup_before_the_first_symbol() {
        let blob = sample();
        let table = SymbolTable::parse(&blob).unwrap();
        assert_eq!(at(&table, 0), None);
        assert_eq!(at(&table, BASE + 0xfff), None);
    }

    #[test]
    fn display_is_name_plus_hex_offset() {
        let blob = sample();
        let table = SymbolTable::parse(&blob).unwrap();
        let sym = table.lookup(BASE + 0x102a).unwrap();
        assert_eq!(sym.to_string(), "kevlar::main+0x2a");
        let sym = table.lookup(BASE + 0x1040).unwrap();
        assert_eq!(sym.to_string(), "memcpy+0x0");
    }

    #[test]
    fn symbol_at_top_of_address_space_does_not_overflow() {
        let blob = encode(&[(u64::MAX - 3, u32::MAX, "top")]);
        let table = SymbolTable::parse(&blob).unwrap();
        assert_eq!(at(&table, u64::MAX), some("top", 3));
        assert_eq!(at(&table, u64::MAX - 4), None);
    }

    #[test]
    fn equal_addresses_pick_the_last() {
        let blob = encode(&[(0x10, 4, "first"), (0x10, 8, "second"), (0x20, 0, "third")]);
        let table = SymbolTable::parse(&blob).unwrap();
        assert_eq!(at(&table, 0x15), some("second", 5));
    }

    #[test]
    fn empty_table() {
        let blob = encode(&[]);
        let table = SymbolTable::parse(&blob).unwrap();
        assert_eq!(table.len(), 0);
        assert!(table.is_empty());
        assert_eq!(at(&table, 0), None);
        assert_eq!(at(&table, u64::MAX), None);
    }

    #[test]
    fn non_ascii_names() {
        let blob = encode(&[(0x100, 0, "größe"), (0x200, 0, "ok")]);
        let table = SymbolTable::parse(&blob).unwrap();
        assert_eq!(at(&table, 0x101), some("größe", 1));
    }

    #[test]
    fn trailing_padding_is_ignored() {
        let mut blob = sample();
        blob.resize(blob.len() + 4096, 0);
        let table = SymbolTable::parse(&blob).unwrap();
        assert_eq!(at(&table, BASE + 0x1041), some("memcpy", 1));
    }

    #[test]
    fn all_zero_blob_is_rejected() {
        assert!(SymbolTable::parse(&[0u8; 4096]).is_none());
        assert!(SymbolTable::parse(&[]).is_none());
    }

    #[test]
    fn wrong_magic_or_version_is_rejected() {
        let mut blob = sample();
        blob[0] = b'k';
        assert!(SymbolTable::parse(&blob).is_none());
        let mut blob = sample();
        put_u32(&mut blob, 4, 2);
        assert!(SymbolTable::parse(&blob).is_none());
    }

    #[test]
    fn every_truncation_is_rejected() {
        let blob = sample();
        for len in 0..blob.len() {
            assert!(SymbolTable::parse(&blob[..len]).is_none(), "len {len}");
        }
        assert!(SymbolTable::parse(&blob).is_some());
    }

    #[test]
    fn out_of_range_header_fields_are_rejected() {
        let good = sample();
        let strings_offset = read_u32(&good, 12).unwrap();
        let strings_len = read_u32(&good, 16).unwrap();

        let mut blob = good.clone();
        put_u32(&mut blob, 8, u32::MAX); // symbol_count far too large
        assert!(SymbolTable::parse(&blob).is_none());

        let mut blob = good.clone();
        put_u32(&mut blob, 8, 6); // one entry too many: overlaps strings
        assert!(SymbolTable::parse(&blob).is_none());

        let mut blob = good.clone();
        put_u32(&mut blob, 12, u32::MAX); // strings_offset + len overflows u32
        assert!(SymbolTable::parse(&blob).is_none());

        let mut blob = good.clone();
        put_u32(&mut blob, 12, 4); // strings inside the header
        assert!(SymbolTable::parse(&blob).is_none());

        let mut blob = good.clone();
        put_u32(&mut blob, 12, strings_offset + 1); // strings run off the end
        assert!(SymbolTable::parse(&blob).is_none());

        let mut blob = good.clone();
        put_u32(&mut blob, 16, strings_len + 1);
        assert!(SymbolTable::parse(&blob).is_none());

        let mut blob = good;
        put_u32(&mut blob, 16, u32::MAX);
        assert!(SymbolTable::parse(&blob).is_none());
    }

    #[test]
    fn out_of_range_names_are_rejected() {
        let good = sample();
        let strings_len = read_u32(&good, 16).unwrap();

        let mut blob = good.clone();
        put_u32(&mut blob, entry_field(2, 12), strings_len); // offset at end, len > 0
        assert!(SymbolTable::parse(&blob).is_none());

        let mut blob = good.clone();
        put_u32(&mut blob, entry_field(4, 12), u32::MAX);
        assert!(SymbolTable::parse(&blob).is_none());

        let mut blob = good.clone();
        put_u32(&mut blob, entry_field(0, 16), u32::MAX);
        assert!(SymbolTable::parse(&blob).is_none());

        // A name that reaches one byte past the strings, even though the byte
        // exists in the blob (there is padding after it).
        let mut blob = good;
        blob.push(b'x');
        let last_len = read_u32(&blob, entry_field(4, 16)).unwrap();
        put_u32(&mut blob, entry_field(4, 16), last_len + 1);
        assert!(SymbolTable::parse(&blob).is_none());
    }

    #[test]
    fn invalid_utf8_name_is_rejected() {
        let mut blob = encode(&[(0x100, 0, "größe")]);
        // Cut the name in the middle of the two-byte "ö".
        put_u32(&mut blob, entry_field(0, 16), 3);
        assert!(SymbolTable::parse(&blob).is_none());
    }

    #[test]
    fn unsorted_entries_are_rejected() {
        let mut blob = sample();
        put_u64(&mut blob, entry_field(3, 0), BASE);
        assert!(SymbolTable::parse(&blob).is_none());
    }

    /// Flips random bytes of a valid blob and checks that parsing and looking
    /// up never panic; whatever parses must still answer consistently.
    #[test]
    fn random_corruption_never_panics() {
        let good = sample();
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            // xorshift64: deterministic, dependency-free noise.
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..20_000 {
            let mut blob = good.clone();
            for _ in 0..(next() % 4 + 1) {
                let at = (next() % blob.len() as u64) as usize;
                blob[at] = next() as u8;
            }
            let cut = (next() % (blob.len() as u64 + 1)) as usize;
            if let Some(table) = SymbolTable::parse(&blob[..cut]) {
                for _ in 0..8 {
                    let addr = if next() % 2 == 0 { next() } else { BASE + next() % 0x2000 };
                    if let Some(sym) = table.lookup(addr) {
                        assert_eq!(sym.address + sym.offset, addr);
                    }
                }
            }
        }
    }
}
