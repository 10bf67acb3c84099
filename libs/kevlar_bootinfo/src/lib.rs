//! Boot information for the kernel: the PVH start-info structure and the
//! kernel command line.
//!
//! # PVH start info
//!
//! With the PVH boot protocol (used by QEMU's `-kernel` when the ELF image
//! carries a `XEN_ELFNOTE_PHYS32_ENTRY` note, and by Xen and Firecracker),
//! the loader enters the kernel in 32-bit protected mode with the physical
//! address of a `struct hvm_start_info` in `ebx`. The layout comes from
//! Xen's public header `xen/include/public/arch-x86/hvm/start_info.h`; all
//! fields are little-endian:
//!
//! | Offset | Size | Field             | Notes                           |
//! |-------:|-----:|-------------------|---------------------------------|
//! |      0 |    4 | `magic`           | [`START_INFO_MAGIC`]            |
//! |      4 |    4 | `version`         | 0 or 1                          |
//! |      8 |    4 | `flags`           | `SIF_*` flags, unused here      |
//! |     12 |    4 | `nr_modules`      |                                 |
//! |     16 |    8 | `modlist_paddr`   | array of module entries         |
//! |     24 |    8 | `cmdline_paddr`   | NUL-terminated, 0 if none       |
//! |     32 |    8 | `rsdp_paddr`      | ACPI RSDP, 0 if none            |
//! |     40 |    8 | `memmap_paddr`    | version >= 1 only               |
//! |     48 |    4 | `memmap_entries`  | version >= 1 only               |
//! |     52 |    4 | reserved          |                                 |
//!
//! A module entry is 32 bytes: `paddr` (u64), `size` (u64), `cmdline_paddr`
//! (u64), reserved (u64). A memory map entry is 24 bytes: `addr` (u64),
//! `size` (u64), `type` (u32, E820 numbering), reserved (u32).
//!
//! [`parse_start_info`] copies everything the kernel needs into an owned
//! [`BootInfo`], so the loader's structures may be overwritten afterwards.
//!
//! # Command line
//!
//! [`CommandLine`] splits the kernel command line the way Linux does:
//! whitespace-separated `key=value` or bare `key` words, double quotes to
//! protect spaces, and everything after a bare `--` handed to init.
//!
//! Physical memory is reached only through [`PhysRead`], so the crate needs
//! no `unsafe` and its tests run on the host. Malformed input yields a
//! [`BootInfoError`], never a panic.

#![cfg_attr(not(test), no_std)]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

extern crate alloc;

mod cmdline;
#[cfg(test)]
mod tests;

use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use core::fmt;

pub use cmdline::CommandLine;

/// A source of physical memory contents, implemented by the kernel (through
/// its direct map) and by tests (over fake memory).
pub trait PhysRead {
    /// Copies `buf.len()` bytes starting at physical address `paddr` into
    /// `buf`, returning `false` if any part of the range cannot be read.
    fn read(&self, paddr: u64, buf: &mut [u8]) -> bool;
}

impl<T: PhysRead + ?Sized> PhysRead for &T {
    fn read(&self, paddr: u64, buf: &mut [u8]) -> bool {
        (**self).read(paddr, buf)
    }
}

/// The value of `hvm_start_info.magic` (`XEN_HVM_START_MAGIC_VALUE`).
pub const START_INFO_MAGIC: u32 = 0x336e_c578;
/// Most memory map entries accepted. Firmware E820 maps have tens of
/// entries; the bound keeps a corrupt count from exhausting the heap.
pub const MAX_MEMMAP_ENTRIES: u32 = 1024;
/// Most boot modules accepted.
pub const MAX_MODULES: u32 = 64;
/// Longest command line accepted, in bytes, not counting the NUL.
pub const MAX_COMMAND_LINE: usize = 4096;
/// The page size that [`BootInfo::usable_ranges`] aligns to.
pub const PAGE_SIZE: u64 = 4096;

/// Size of the version 0 start-info structure.
const START_INFO_V0_LEN: usize = 40;
/// Size of the version 1 start-info structure.
const START_INFO_V1_LEN: usize = 56;
const MODLIST_ENTRY_LEN: usize = 32;
const MEMMAP_ENTRY_LEN: usize = 24;

/// The reasons start-info parsing can fail.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BootInfoError {
    /// The physical range `paddr..paddr + len` could not be read (or does
    /// not fit in the 64-bit address space).
    Unreadable {
        /// Start of the range.
        paddr: u64,
        /// Length of the range in bytes.
        len: usize,
    },
    /// The structure does not start with [`START_INFO_MAGIC`]; the value
    /// found is attached.
    BadMagic(u32),
    /// The loader provided no memory map: start info version 0 (which has
    /// no memory map fields) or a version >= 1 map that is empty or null.
    NoMemoryMap {
        /// The start-info version the loader reported.
        version: u32,
    },
    /// More than [`MAX_MEMMAP_ENTRIES`] memory map entries.
    TooManyMemoryRegions(u32),
    /// More than [`MAX_MODULES`] modules.
    TooManyModules(u32),
    /// Modules are announced but the module list address is 0.
    NullModuleList,
    /// A NUL-terminated string starting at `paddr` is longer than
    /// [`MAX_COMMAND_LINE`] bytes.
    CommandLineTooLong {
        /// Where the string starts.
        paddr: u64,
    },
    /// A memory region or module whose end lies beyond 2^64.
    AddressOverflow {
        /// The start of the range.
        start: u64,
        /// Its size in bytes.
        size: u64,
    },
}

impl fmt::Display for BootInfoError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            BootInfoError::Unreadable { paddr, len } => {
                write!(f, "cannot read {len} bytes at physical {paddr:#x}")
            }
            BootInfoError::BadMagic(m) => {
                write!(
                    f,
                    "start info magic is {m:#x}, expected {START_INFO_MAGIC:#x}"
                )
            }
            BootInfoError::NoMemoryMap { version } => {
                write!(f, "start info version {version} carries no memory map")
            }
            BootInfoError::TooManyMemoryRegions(n) => {
                write!(f, "{n} memory map entries (limit {MAX_MEMMAP_ENTRIES})")
            }
            BootInfoError::TooManyModules(n) => write!(f, "{n} modules (limit {MAX_MODULES})"),
            BootInfoError::NullModuleList => f.write_str("modules announced at address 0"),
            BootInfoError::CommandLineTooLong { paddr } => write!(
                f,
                "string at {paddr:#x} is longer than {MAX_COMMAND_LINE} bytes"
            ),
            BootInfoError::AddressOverflow { start, size } => {
                write!(f, "range {start:#x} + {size:#x} overflows")
            }
        }
    }
}

/// What a range of physical memory is, using the E820 type numbering the
/// PVH memory map shares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemoryKind {
    /// Usable RAM (type 1).
    Ram,
    /// Reserved by the platform (type 2).
    Reserved,
    /// ACPI tables; usable once they have been read (type 3).
    AcpiReclaimable,
    /// ACPI non-volatile storage, to be preserved across sleep (type 4).
    AcpiNvs,
    /// RAM with detected errors (type 5).
    Unusable,
    /// Any other type number (e.g. 7, persistent memory); treated as not
    /// usable.
    Other(u32),
}

impl MemoryKind {
    /// Returns the kind for an E820 type number.
    pub fn from_e820(ty: u32) -> Self {
        match ty {
            1 => MemoryKind::Ram,
            2 => MemoryKind::Reserved,
            3 => MemoryKind::AcpiReclaimable,
            4 => MemoryKind::AcpiNvs,
            5 => MemoryKind::Unusable,
            other => MemoryKind::Other(other),
        }
    }
}

/// One entry of the physical memory map.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemoryRegion {
    /// First byte of the region.
    pub start: u64,
    /// One past the last byte of the region.
    pub end: u64,
    /// What the region holds.
    pub kind: MemoryKind,
}

/// A boot module (typically the initrd) loaded by the boot loader.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Module {
    /// Physical address of the module's first byte.
    pub start: u64,
    /// Physical address one past the module's last byte.
    pub end: u64,
    /// The module's own command line, empty if none.
    pub command_line: String,
}

/// Everything the kernel keeps from the PVH start-info structure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BootInfo {
    /// Physical address of the ACPI RSDP, 0 if the loader provided none.
    pub rsdp_paddr: u64,
    /// The kernel command line, empty if none. Bytes that are not valid
    /// UTF-8 are replaced with U+FFFD rather than failing the boot.
    pub command_line: String,
    /// The memory map, sorted by start address. Zero-sized entries are
    /// dropped; overlaps are kept as the loader reported them.
    pub memory_map: Vec<MemoryRegion>,
    /// The boot modules, in the loader's order.
    pub modules: Vec<Module>,
}

impl BootInfo {
    /// Returns the page-aligned ranges of RAM the kernel may allocate from,
    /// as sorted, disjoint `(start, end)` pairs with `end` exclusive.
    ///
    /// Adjacent or overlapping RAM entries are merged first, so a page
    /// split between two entries is not lost. Any part also covered by a
    /// non-RAM entry is removed, because an overlap between RAM and a
    /// reserved range means the firmware needs that memory. Finally each
    /// range's start is rounded up and its end rounded down to
    /// [`PAGE_SIZE`]; ranges left empty are dropped.
    pub fn usable_ranges(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        usable_ranges(&self.memory_map).into_iter()
    }
}

/// Reads the PVH start-info structure at `paddr` and everything it points
/// to: command line, memory map and modules.
pub fn parse_start_info<M: PhysRead + ?Sized>(
    mem: &M,
    paddr: u64,
) -> Result<BootInfo, BootInfoError> {
    let head = read_bytes(mem, paddr, START_INFO_V0_LEN)?;
    let magic = u32_at(&head, 0);
    if magic != START_INFO_MAGIC {
        return Err(BootInfoError::BadMagic(magic));
    }
    let version = u32_at(&head, 4);
    let nr_modules = u32_at(&head, 12);
    let modlist_paddr = u64_at(&head, 16);
    let cmdline_paddr = u64_at(&head, 24);
    let rsdp_paddr = u64_at(&head, 32);

    // Version 0 lacks the memory map fields entirely (reading them would
    // read whatever follows the structure). Later versions only append
    // fields, so any version >= 1 has them.
    if version == 0 {
        return Err(BootInfoError::NoMemoryMap { version });
    }
    let v1 = read_bytes(mem, paddr, START_INFO_V1_LEN)?;
    let memmap_paddr = u64_at(&v1, 40);
    let memmap_entries = u32_at(&v1, 48);
    if memmap_paddr == 0 || memmap_entries == 0 {
        return Err(BootInfoError::NoMemoryMap { version });
    }
    if memmap_entries > MAX_MEMMAP_ENTRIES {
        return Err(BootInfoError::TooManyMemoryRegions(memmap_entries));
    }
    if nr_modules > MAX_MODULES {
        return Err(BootInfoError::TooManyModules(nr_modules));
    }

    let raw_map = read_bytes(
        mem,
        memmap_paddr,
        memmap_entries as usize * MEMMAP_ENTRY_LEN,
    )?;
    let mut memory_map = Vec::with_capacity(memmap_entries as usize);
    for e in raw_map.chunks_exact(MEMMAP_ENTRY_LEN) {
        let (start, size) = (u64_at(e, 0), u64_at(e, 8));
        if size == 0 {
            continue;
        }
        let end = start
            .checked_add(size)
            .ok_or(BootInfoError::AddressOverflow { start, size })?;
        memory_map.push(MemoryRegion {
            start,
            end,
            kind: MemoryKind::from_e820(u32_at(e, 16)),
        });
    }
    memory_map.sort_by_key(|r| (r.start, r.end));

    let mut modules = Vec::new();
    if nr_modules > 0 {
        if modlist_paddr == 0 {
            return Err(BootInfoError::NullModuleList);
        }
        let raw = read_bytes(mem, modlist_paddr, nr_modules as usize * MODLIST_ENTRY_LEN)?;
        for e in raw.chunks_exact(MODLIST_ENTRY_LEN) {
            let (start, size) = (u64_at(e, 0), u64_at(e, 8));
            let end = start
                .checked_add(size)
                .ok_or(BootInfoError::AddressOverflow { start, size })?;
            modules.push(Module {
                start,
                end,
                command_line: read_c_string(mem, u64_at(e, 16))?,
            });
        }
    }

    Ok(BootInfo {
        rsdp_paddr,
        command_line: read_c_string(mem, cmdline_paddr)?,
        memory_map,
        modules,
    })
}

/// Computes [`BootInfo::usable_ranges`] for a sorted memory map.
fn usable_ranges(map: &[MemoryRegion]) -> Vec<(u64, u64)> {
    // Merge RAM entries that touch or overlap. `map` is sorted by start.
    let mut ram: Vec<(u64, u64)> = Vec::new();
    for r in map.iter().filter(|r| r.kind == MemoryKind::Ram) {
        match ram.last_mut() {
            Some(last) if r.start <= last.1 => last.1 = last.1.max(r.end),
            _ => ram.push((r.start, r.end)),
        }
    }

    // Subtract every non-RAM entry; also sorted by start.
    let holes: Vec<&MemoryRegion> = map.iter().filter(|r| r.kind != MemoryKind::Ram).collect();
    let mut out = Vec::new();
    for (start, end) in ram {
        let mut cursor = start;
        for h in holes.iter().filter(|h| h.end > start && h.start < end) {
            if h.start > cursor {
                out.push((cursor, h.start));
            }
            cursor = cursor.max(h.end);
        }
        if cursor < end {
            out.push((cursor, end));
        }
    }

    out.into_iter()
        .filter_map(|(start, end)| {
            // A start within the last page of the address space cannot be
            // rounded up; nothing usable remains there anyway.
            let start = start.checked_add(PAGE_SIZE - 1)? & !(PAGE_SIZE - 1);
            let end = end & !(PAGE_SIZE - 1);
            (start < end).then_some((start, end))
        })
        .collect()
}

/// Reads a NUL-terminated string of at most [`MAX_COMMAND_LINE`] bytes at
/// `paddr`; address 0 means "no string".
fn read_c_string<M: PhysRead + ?Sized>(mem: &M, paddr: u64) -> Result<String, BootInfoError> {
    if paddr == 0 {
        return Ok(String::new());
    }
    let mut bytes = Vec::new();
    let mut addr = paddr;
    // One extra byte so that a string of exactly MAX_COMMAND_LINE bytes can
    // still have its terminator found.
    let limit = MAX_COMMAND_LINE + 1;
    while bytes.len() < limit {
        // Read up to the next page boundary at a time: the string's end is
        // unknown, and a read running into the following page could fail
        // even though the string itself is readable.
        let to_boundary = PAGE_SIZE - (addr % PAGE_SIZE);
        let want = (limit - bytes.len()).min(to_boundary as usize);
        let chunk = read_chunk(mem, addr, want)?;
        if let Some(nul) = chunk.iter().position(|&b| b == 0) {
            bytes.extend_from_slice(&chunk[..nul]);
            return Ok(String::from_utf8_lossy(&bytes).into_owned());
        }
        bytes.extend_from_slice(&chunk);
        addr = addr
            .checked_add(want as u64)
            .ok_or(BootInfoError::Unreadable {
                paddr: addr,
                len: want,
            })?;
    }
    Err(BootInfoError::CommandLineTooLong { paddr })
}

/// Reads `len` bytes at `paddr`; if that fails (memory that is readable in
/// smaller pieces, such as the end of a mapped region not at a page
/// boundary), falls back to reading byte by byte up to the first NUL.
fn read_chunk<M: PhysRead + ?Sized>(
    mem: &M,
    paddr: u64,
    len: usize,
) -> Result<Vec<u8>, BootInfoError> {
    if let Ok(chunk) = read_bytes(mem, paddr, len) {
        return Ok(chunk);
    }
    let mut out = Vec::new();
    for i in 0..len as u64 {
        let a = paddr
            .checked_add(i)
            .ok_or(BootInfoError::Unreadable { paddr, len })?;
        let b = read_bytes(mem, a, 1)?;
        out.extend_from_slice(&b);
        if b == [0] {
            break;
        }
    }
    Ok(out)
}

/// Copies `len` bytes of physical memory into a fresh buffer.
fn read_bytes<M: PhysRead + ?Sized>(
    mem: &M,
    paddr: u64,
    len: usize,
) -> Result<Vec<u8>, BootInfoError> {
    let err = BootInfoError::Unreadable { paddr, len };
    // A range that wraps past the top of the address space cannot be real.
    let len64 = u64::try_from(len).map_err(|_| err)?;
    if len > 0 && paddr.checked_add(len64 - 1).is_none() {
        return Err(err);
    }
    let mut buf = vec![0u8; len];
    if mem.read(paddr, &mut buf) {
        Ok(buf)
    } else {
        Err(err)
    }
}

// Little-endian field readers over buffers whose length the caller has
// already fixed; an out-of-range offset (impossible by construction) reads
// as 0 instead of panicking.

fn u32_at(b: &[u8], off: usize) -> u32 {
    b.get(off..off + 4)
        .and_then(|s| s.try_into().ok())
        .map(u32::from_le_bytes)
        .unwrap_or(0)
}

fn u64_at(b: &[u8], off: usize) -> u64 {
    b.get(off..off + 8)
        .and_then(|s| s.try_into().ok())
        .map(u64::from_le_bytes)
        .unwrap_or(0)
}
