//! The HPET description table ("HPET"), IA-PC HPET specification 1.0a,
//! section 3.2.4: where the first event-timer block's registers live.

use crate::{byte, load_required, u16_at, u32_at, AcpiError, GenericAddress, AddressSpace, PhysRead, Signature};

const HPET_SIGNATURE: Signature = *b"HPET";

// Byte offsets of the fields after the common header.
const OFF_BLOCK_ID: usize = 36;
const OFF_BASE_ADDRESS: usize = 40;
const OFF_NUMBER: usize = 52;
const OFF_MIN_TICK: usize = 53;
/// The table's full length; nothing after it is used.
const HPET_LEN: usize = 56;

/// The HPET table's contents.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hpet {
    /// The event-timer block id (the capabilities register's low 32 bits:
    /// vendor, comparator count, counter size).
    pub block_id: u32,
    /// Physical address of the 1 KiB register block (always memory-mapped).
    pub base_address: u64,
    /// The HPET's sequence number.
    pub number: u8,
    /// The smallest periodic tick the hardware supports, in counter ticks.
    pub min_tick: u16,
}

/// Finds the HPET table through the RSDP at `rsdp_paddr` and decodes it.
/// A table whose registers are not in system memory, or at address 0,
/// describes no usable HPET and is reported as
/// [`AcpiError::TableNotFound`].
pub fn parse_hpet<M: PhysRead + ?Sized>(mem: &M, rsdp_paddr: u64) -> Result<Hpet, AcpiError> {
    let (paddr, table) = load_required(mem, rsdp_paddr, HPET_SIGNATURE)?;
    let truncated = AcpiError::Truncated {
        signature: HPET_SIGNATURE,
        paddr,
        length: table.len() as u32,
    };
    if table.len() < HPET_LEN {
        return Err(truncated);
    }
    let base = GenericAddress::parse(&table, OFF_BASE_ADDRESS).ok_or(truncated)?;
    if base.address_space != AddressSpace::SystemMemory || base.address == 0 {
        return Err(AcpiError::TableNotFound(HPET_SIGNATURE));
    }
    Ok(Hpet {
        block_id: u32_at(&table, OFF_BLOCK_ID).ok_or(truncated)?,
        base_address: base.address,
        number: byte(&table, OFF_NUMBER).ok_or(truncated)?,
        min_tick: u16_at(&table, OFF_MIN_TICK).ok_or(truncated)?,
    })
}
