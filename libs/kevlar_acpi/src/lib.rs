//! Minimal ACPI table parser: just enough for an x86_64 kernel to find its
//! CPUs, route legacy interrupts through the I/O APIC, read the RTC century
//! register, find the reference clocks (HPET, PM timer) and reboot.
//!
//! The boot protocol hands the kernel the physical address of the RSDP (Root
//! System Description Pointer). From there this crate:
//!
//! 1. validates the RSDP ([`read_rsdp`]): signature `"RSD PTR "`, the
//!    checksum over the first 20 bytes, and for revision 2 and later the
//!    extended checksum over the whole structure;
//! 2. picks the root table: the XSDT (64-bit entries) when the RSDP revision
//!    is at least 2 and it names one, otherwise the RSDT (32-bit entries);
//! 3. walks the root table's entries to find a table by signature
//!    ([`find_table`]), validating each table's header and checksum before
//!    trusting its contents ([`read_table`]);
//! 4. decodes the MADT ([`parse_madt`]), the FADT ([`parse_fadt`]) and the
//!    HPET table ([`parse_hpet`]).
//!
//! Physical memory is reached only through the [`PhysRead`] trait, so the
//! crate needs no `unsafe` and its tests run on the host over fake memory.
//! Every table is copied into a heap buffer before it is decoded, and every
//! field access is bounds-checked against that buffer: malformed firmware
//! tables produce an [`AcpiError`], never a panic.
//!
//! References: ACPI Specification 6.5, sections 5.2.5 (RSDP), 5.2.6 (table
//! header), 5.2.7/5.2.8 (RSDT/XSDT), 5.2.9 (FADT), 5.2.12 (MADT) and 5.2.3.2
//! (Generic Address Structure).

#![cfg_attr(not(test), no_std)]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

extern crate alloc;

mod fadt;
mod hpet;
mod madt;
#[cfg(test)]
mod tests;

use alloc::vec;
use alloc::vec::Vec;
use core::fmt;

pub use fadt::{parse_fadt, AddressSpace, Fadt, GenericAddress, ResetRegister};
pub use hpet::{parse_hpet, Hpet};
pub use madt::{
    parse_madt, InterruptOverride, IoApic, LocalApic, LocalApicNmi, Madt, NmiSource, Polarity,
    TriggerMode,
};

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

/// A four-byte ACPI table signature such as `*b"APIC"`.
pub type Signature = [u8; 4];

/// Length of the common header that starts every system description table.
pub const SDT_HEADER_LEN: usize = 36;

/// Largest table this crate will copy into memory. Real MADTs and FADTs are
/// a few hundred bytes; the cap keeps a corrupt length field from asking the
/// kernel heap for gigabytes.
pub const MAX_TABLE_LEN: u32 = 1 << 20;

/// The reasons ACPI parsing can fail.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AcpiError {
    /// The physical range `paddr..paddr + len` could not be read (or does
    /// not fit in the 64-bit address space).
    Unreadable {
        /// Start of the range.
        paddr: u64,
        /// Length of the range in bytes.
        len: usize,
    },
    /// The RSDP does not start with `"RSD PTR "`.
    BadRsdpSignature,
    /// The checksum over the first 20 bytes of the RSDP is not zero.
    BadRsdpChecksum,
    /// The extended checksum over the whole (revision >= 2) RSDP is not zero.
    BadRsdpExtendedChecksum,
    /// A revision >= 2 RSDP declares an implausible length.
    BadRsdpLength(u32),
    /// The RSDP names neither an XSDT nor an RSDT.
    NoRootTable,
    /// A table did not carry the signature its role requires.
    UnexpectedSignature {
        /// Where the table lives.
        paddr: u64,
        /// The signature that was required.
        expected: Signature,
        /// The signature actually found.
        found: Signature,
    },
    /// The bytes of a table do not sum to zero.
    BadChecksum {
        /// The table's signature.
        signature: Signature,
        /// Where the table lives.
        paddr: u64,
    },
    /// A table is shorter than the structures it must contain, or its last
    /// entry runs past its end.
    Truncated {
        /// The table's signature.
        signature: Signature,
        /// Where the table lives.
        paddr: u64,
        /// The length the table declares in its header.
        length: u32,
    },
    /// A table declares a length above [`MAX_TABLE_LEN`].
    TooLarge {
        /// The table's signature.
        signature: Signature,
        /// Where the table lives.
        paddr: u64,
        /// The length the table declares in its header.
        length: u32,
    },
    /// A variable-length entry inside a table has an impossible length
    /// (shorter than its own type/length prefix, or than its type requires).
    MalformedEntry {
        /// The containing table's signature.
        signature: Signature,
        /// Where the containing table lives.
        paddr: u64,
        /// Offset of the entry from the start of the table.
        offset: usize,
        /// The entry's type byte.
        entry_type: u8,
        /// The entry's declared length.
        length: u8,
    },
    /// No table with this signature is listed in the root table.
    TableNotFound(Signature),
}

impl fmt::Display for AcpiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            AcpiError::Unreadable { paddr, len } => {
                write!(f, "cannot read {len} bytes at physical {paddr:#x}")
            }
            AcpiError::BadRsdpSignature => f.write_str("RSDP signature is not \"RSD PTR \""),
            AcpiError::BadRsdpChecksum => f.write_str("RSDP checksum mismatch"),
            AcpiError::BadRsdpExtendedChecksum => f.write_str("RSDP extended checksum mismatch"),
            AcpiError::BadRsdpLength(len) => write!(f, "RSDP length {len} is implausible"),
            AcpiError::NoRootTable => f.write_str("RSDP names neither an XSDT nor an RSDT"),
            AcpiError::UnexpectedSignature { paddr, expected, found } => write!(
                f,
                "table at {paddr:#x} is {} but {} was expected",
                SigDisplay(found),
                SigDisplay(expected)
            ),
            AcpiError::BadChecksum { signature, paddr } => {
                write!(f, "{} at {paddr:#x}: checksum mismatch", SigDisplay(signature))
            }
            AcpiError::Truncated { signature, paddr, length } => write!(
                f,
                "{} at {paddr:#x}: truncated (length {length})",
                SigDisplay(signature)
            ),
            AcpiError::TooLarge { signature, paddr, length } => write!(
                f,
                "{} at {paddr:#x}: length {length} exceeds the {MAX_TABLE_LEN}-byte limit",
                SigDisplay(signature)
            ),
            AcpiError::MalformedEntry { signature, paddr, offset, entry_type, length } => write!(
                f,
                "{} at {paddr:#x}: entry type {entry_type} at offset {offset} has bad length {length}",
                SigDisplay(signature)
            ),
            AcpiError::TableNotFound(signature) => {
                write!(f, "no {} table", SigDisplay(signature))
            }
        }
    }
}

/// Prints a signature as text, escaping non-printable bytes, because a
/// corrupt signature is exactly what error messages need to show.
struct SigDisplay(Signature);

impl fmt::Display for SigDisplay {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for &b in &self.0 {
            if b.is_ascii_graphic() || b == b' ' {
                write!(f, "{}", b as char)?;
            } else {
                write!(f, "\\x{b:02x}")?;
            }
        }
        Ok(())
    }
}

/// The validated contents of the Root System Description Pointer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rsdp {
    /// 0 for ACPI 1.0, 2 for ACPI 2.0 and later.
    pub revision: u8,
    /// The firmware vendor's OEM identifier.
    pub oem_id: [u8; 6],
    /// Physical address of the RSDT (may be 0 on 64-bit-only firmware).
    pub rsdt_address: u32,
    /// Physical address of the XSDT; `None` for revision < 2 or when the
    /// firmware left it zero.
    pub xsdt_address: Option<u64>,
}

/// A root-table entry's header, as listed by [`list_tables`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TableInfo {
    /// The table's signature.
    pub signature: Signature,
    /// Physical address of the table.
    pub paddr: u64,
    /// Length of the table in bytes, from its header.
    pub length: u32,
    /// The table's revision byte.
    pub revision: u8,
    /// The firmware vendor's OEM identifier.
    pub oem_id: [u8; 6],
    /// Whether the whole table was readable and its checksum is correct.
    pub valid: bool,
}

/// Size of the ACPI 1.0 part of the RSDP, which the first checksum covers.
const RSDP_V1_LEN: usize = 20;
/// Size of the revision >= 2 RSDP.
const RSDP_V2_LEN: usize = 36;
/// The RSDP has no reason to be larger than its 36-byte definition; future
/// revisions may grow it, but a length beyond a page is corruption.
const RSDP_MAX_LEN: u32 = 4096;

/// Reads and validates the RSDP at `rsdp_paddr`.
pub fn read_rsdp<M: PhysRead + ?Sized>(mem: &M, rsdp_paddr: u64) -> Result<Rsdp, AcpiError> {
    let v1 = read_bytes(mem, rsdp_paddr, RSDP_V1_LEN)?;
    if v1.get(0..8) != Some(b"RSD PTR ".as_slice()) {
        return Err(AcpiError::BadRsdpSignature);
    }
    if !checksum_ok(&v1) {
        return Err(AcpiError::BadRsdpChecksum);
    }
    let revision = byte(&v1, 15).unwrap_or(0);
    let mut oem_id = [0u8; 6];
    oem_id.copy_from_slice(v1.get(9..15).unwrap_or(&[0; 6]));
    let rsdt_address = u32_at(&v1, 16).unwrap_or(0);

    // Revision 1 was never defined; anything >= 2 carries the extended
    // fields (and future revisions must stay compatible with them).
    let mut xsdt_address = None;
    if revision >= 2 {
        let head = read_bytes(mem, rsdp_paddr, RSDP_V2_LEN)?;
        let length = u32_at(&head, 20).unwrap_or(0);
        if length < RSDP_V2_LEN as u32 || length > RSDP_MAX_LEN {
            return Err(AcpiError::BadRsdpLength(length));
        }
        let full = read_bytes(mem, rsdp_paddr, length as usize)?;
        if !checksum_ok(&full) {
            return Err(AcpiError::BadRsdpExtendedChecksum);
        }
        xsdt_address = u64_at(&full, 24).filter(|&a| a != 0);
    }
    Ok(Rsdp {
        revision,
        oem_id,
        rsdt_address,
        xsdt_address,
    })
}

/// Reads the table at `paddr`, validates its header length and checksum, and
/// returns all of its bytes (header included).
pub fn read_table<M: PhysRead + ?Sized>(mem: &M, paddr: u64) -> Result<Vec<u8>, AcpiError> {
    let header = read_bytes(mem, paddr, SDT_HEADER_LEN)?;
    let signature = sig_at(&header, 0).unwrap_or([0; 4]);
    let length = u32_at(&header, 4).unwrap_or(0);
    if (length as usize) < SDT_HEADER_LEN {
        return Err(AcpiError::Truncated {
            signature,
            paddr,
            length,
        });
    }
    if length > MAX_TABLE_LEN {
        return Err(AcpiError::TooLarge {
            signature,
            paddr,
            length,
        });
    }
    let table = read_bytes(mem, paddr, length as usize)?;
    if !checksum_ok(&table) {
        return Err(AcpiError::BadChecksum { signature, paddr });
    }
    Ok(table)
}

/// Returns the physical addresses listed in the root table (XSDT if the RSDP
/// offers one, RSDT otherwise), in table order, after validating the RSDP and
/// the root table.
pub fn table_addresses<M: PhysRead + ?Sized>(
    mem: &M,
    rsdp_paddr: u64,
) -> Result<Vec<u64>, AcpiError> {
    let rsdp = read_rsdp(mem, rsdp_paddr)?;
    // ACPI 2.0+ says to prefer the XSDT: its 64-bit entries can point above
    // 4 GiB, and on some machines the RSDT is stale or absent.
    let (paddr, expected, entry_len) = match rsdp.xsdt_address {
        Some(xsdt) => (xsdt, *b"XSDT", 8),
        None if rsdp.rsdt_address != 0 => (u64::from(rsdp.rsdt_address), *b"RSDT", 4),
        None => return Err(AcpiError::NoRootTable),
    };
    let table = read_table(mem, paddr)?;
    let found = sig_at(&table, 0).unwrap_or([0; 4]);
    if found != expected {
        return Err(AcpiError::UnexpectedSignature {
            paddr,
            expected,
            found,
        });
    }
    let body = table.get(SDT_HEADER_LEN..).unwrap_or(&[]);
    if body.len() % entry_len != 0 {
        // The checksum matched, so the length is what firmware meant; a
        // partial entry means the table was built wrong, and guessing at
        // the missing bytes could send us to a bogus address.
        return Err(AcpiError::Truncated {
            signature: expected,
            paddr,
            length: table.len() as u32,
        });
    }
    let addrs = body
        .chunks_exact(entry_len)
        .map(|c| {
            if entry_len == 8 {
                u64_at(c, 0).unwrap_or(0)
            } else {
                u64::from(u32_at(c, 0).unwrap_or(0))
            }
        })
        .collect();
    Ok(addrs)
}

/// Finds the table with `signature` among those listed in the root table and
/// returns its physical address, or `None` if no such table is listed.
///
/// The returned table has been checked: it is readable, its length is sane
/// and its checksum is correct. Entries that are null, unreadable or have a
/// bad checksum are skipped, so that one broken table does not hide a good
/// copy listed later; if only broken copies exist, the first one's error is
/// returned. The DSDT and FACS are not listed in the root table; reach them
/// through [`Fadt::dsdt`].
pub fn find_table<M: PhysRead + ?Sized>(
    mem: &M,
    rsdp_paddr: u64,
    signature: Signature,
) -> Result<Option<u64>, AcpiError> {
    let mut first_error = None;
    for paddr in table_addresses(mem, rsdp_paddr)? {
        if paddr == 0 {
            continue;
        }
        let Ok(header) = read_bytes(mem, paddr, SDT_HEADER_LEN) else {
            continue;
        };
        if sig_at(&header, 0) != Some(signature) {
            continue;
        }
        match read_table(mem, paddr) {
            Ok(_) => return Ok(Some(paddr)),
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    match first_error {
        Some(e) => Err(e),
        None => Ok(None),
    }
}

/// Lists every table named by the root table, for boot-time logging.
///
/// Entries whose header cannot be read are left out; tables that are
/// readable but fail validation are listed with `valid: false`.
pub fn list_tables<M: PhysRead + ?Sized>(
    mem: &M,
    rsdp_paddr: u64,
) -> Result<Vec<TableInfo>, AcpiError> {
    let mut out = Vec::new();
    for paddr in table_addresses(mem, rsdp_paddr)? {
        let Ok(header) = read_bytes(mem, paddr, SDT_HEADER_LEN) else {
            continue;
        };
        let mut oem_id = [0u8; 6];
        oem_id.copy_from_slice(header.get(10..16).unwrap_or(&[0; 6]));
        out.push(TableInfo {
            signature: sig_at(&header, 0).unwrap_or([0; 4]),
            paddr,
            length: u32_at(&header, 4).unwrap_or(0),
            revision: byte(&header, 8).unwrap_or(0),
            oem_id,
            valid: read_table(mem, paddr).is_ok(),
        });
    }
    Ok(out)
}

/// Finds and reads the table with `signature`, failing with
/// [`AcpiError::TableNotFound`] if it is absent.
fn load_required<M: PhysRead + ?Sized>(
    mem: &M,
    rsdp_paddr: u64,
    signature: Signature,
) -> Result<(u64, Vec<u8>), AcpiError> {
    let paddr =
        find_table(mem, rsdp_paddr, signature)?.ok_or(AcpiError::TableNotFound(signature))?;
    Ok((paddr, read_table(mem, paddr)?))
}

/// Copies `len` bytes of physical memory into a fresh buffer.
fn read_bytes<M: PhysRead + ?Sized>(mem: &M, paddr: u64, len: usize) -> Result<Vec<u8>, AcpiError> {
    let err = AcpiError::Unreadable { paddr, len };
    // A range that wraps past the top of the address space cannot be real,
    // and handing it to the reader could confuse its own bounds checks.
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

/// Reports whether `bytes` sums to zero modulo 256, the ACPI checksum rule.
fn checksum_ok(bytes: &[u8]) -> bool {
    bytes.iter().fold(0u8, |acc, &b| acc.wrapping_add(b)) == 0
}

// Bounds-checked little-endian field readers. ACPI fields are frequently
// unaligned (XSDT entries start at offset 36), so they go byte-wise.

fn byte(b: &[u8], off: usize) -> Option<u8> {
    b.get(off).copied()
}

fn u16_at(b: &[u8], off: usize) -> Option<u16> {
    Some(u16::from_le_bytes(
        b.get(off..off.checked_add(2)?)?.try_into().ok()?,
    ))
}

fn u32_at(b: &[u8], off: usize) -> Option<u32> {
    Some(u32::from_le_bytes(
        b.get(off..off.checked_add(4)?)?.try_into().ok()?,
    ))
}

fn u64_at(b: &[u8], off: usize) -> Option<u64> {
    Some(u64::from_le_bytes(
        b.get(off..off.checked_add(8)?)?.try_into().ok()?,
    ))
}

fn sig_at(b: &[u8], off: usize) -> Option<Signature> {
    b.get(off..off.checked_add(4)?)?.try_into().ok()
}
