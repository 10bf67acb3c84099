//! The Fixed ACPI Description Table ("FACP"), ACPI 6.5 section 5.2.9.
//!
//! Only the fields a kernel needs without an AML interpreter are decoded:
//! the PM1 control ports (for the S5 soft-off write), the reset register,
//! the CMOS century index, the PM timer's port (a reference clock for the
//! TSC), the DSDT address and the flag words.

use crate::{byte, load_required, u16_at, u32_at, u64_at, AcpiError, PhysRead, Signature};

const FADT_SIGNATURE: Signature = *b"FACP";

/// The ACPI 1.0 FADT ends right after the `Flags` field; every later field
/// is optional and read only when the table is long enough to contain it.
const FADT_V1_LEN: usize = 116;

// Byte offsets of the fields used here.
const OFF_DSDT: usize = 40;
const OFF_SCI_INT: usize = 46;
const OFF_PM1A_CNT_BLK: usize = 64;
const OFF_PM1B_CNT_BLK: usize = 68;
const OFF_PM_TMR_BLK: usize = 76;
const OFF_PM_TMR_LEN: usize = 91;
const OFF_CENTURY: usize = 108;
const OFF_IAPC_BOOT_ARCH: usize = 109;
const OFF_FLAGS: usize = 112;
const OFF_RESET_REG: usize = 116;
const OFF_RESET_VALUE: usize = 128;
const OFF_X_DSDT: usize = 140;
const OFF_X_PM1A_CNT_BLK: usize = 172;
const OFF_X_PM1B_CNT_BLK: usize = 184;
const OFF_X_PM_TMR_BLK: usize = 208;

/// The address space a [`GenericAddress`] lives in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AddressSpace {
    /// Memory-mapped register.
    SystemMemory,
    /// x86 I/O port.
    SystemIo,
    /// PCI configuration space (segment 0; address encodes device,
    /// function and offset).
    PciConfig,
    /// Any other address space ID (embedded controller, SMBus, FFH...).
    Other(u8),
}

impl AddressSpace {
    fn from_id(id: u8) -> Self {
        match id {
            0 => AddressSpace::SystemMemory,
            1 => AddressSpace::SystemIo,
            2 => AddressSpace::PciConfig,
            other => AddressSpace::Other(other),
        }
    }
}

/// An ACPI Generic Address Structure: where a register lives and how to
/// access it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GenericAddress {
    /// The address space of `address`.
    pub address_space: AddressSpace,
    /// Width of the register in bits.
    pub bit_width: u8,
    /// Bit offset of the register within the access.
    pub bit_offset: u8,
    /// Access size: 0 undefined, 1 byte, 2 word, 3 dword, 4 qword.
    pub access_size: u8,
    /// The register's address within `address_space`.
    pub address: u64,
}

impl GenericAddress {
    pub(crate) fn parse(b: &[u8], off: usize) -> Option<Self> {
        Some(GenericAddress {
            address_space: AddressSpace::from_id(byte(b, off)?),
            bit_width: byte(b, off + 1)?,
            bit_offset: byte(b, off + 2)?,
            access_size: byte(b, off + 3)?,
            address: u64_at(b, off + 4)?,
        })
    }
}

/// The register to write, and the value to write to it, to reset the system.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResetRegister {
    /// Where the reset register lives (typically I/O port 0xCF9).
    pub address: GenericAddress,
    /// The value to write.
    pub value: u8,
}

/// The FADT fields a kernel needs for RTC, reboot and power-off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fadt {
    /// The table's revision byte.
    pub revision: u8,
    /// I/O port of the PM1a control block (where SLP_TYP/SLP_EN are
    /// written to power off), or 0 if there is none.
    pub pm1a_control_block: u32,
    /// I/O port of the optional PM1b control block, or 0 if there is none.
    pub pm1b_control_block: u32,
    /// The system interrupt the SCI is wired to (an ISA IRQ on PC systems).
    pub sci_interrupt: u16,
    /// I/O port of the ACPI power-management timer (3.579545 MHz), or 0 if
    /// there is none (no block, a block that is not 4 bytes long, or a
    /// hardware-reduced platform).
    pub pm_timer_port: u32,
    /// The PM timer counts 32 bits (`TMR_VAL_EXT`) instead of 24.
    pub pm_timer_32bit: bool,
    /// CMOS RAM index of the RTC century register, or 0 if not supported.
    pub century_cmos_index: u8,
    /// `IAPC_BOOT_ARCH` flags (see the `IAPC_*` constants); 0 for ACPI 1.0.
    pub iapc_boot_arch: u16,
    /// Physical address of the DSDT.
    pub dsdt: u64,
    /// The reset register, when the table has one and `RESET_REG_SUP` is set.
    pub reset_register: Option<ResetRegister>,
    /// The fixed feature flags (see the `FLAG_*` constants).
    pub flags: u32,
}

impl Fadt {
    /// `flags` bit: the PM timer is 32 bits wide (24 otherwise).
    pub const FLAG_TMR_VAL_EXT: u32 = 1 << 8;
    /// `flags` bit: the reset register is supported.
    pub const FLAG_RESET_REG_SUP: u32 = 1 << 10;
    /// `flags` bit: the platform is hardware-reduced (no PM1 blocks, no
    /// legacy fixed hardware).
    pub const FLAG_HW_REDUCED_ACPI: u32 = 1 << 20;
    /// `iapc_boot_arch` bit: legacy ISA devices such as the PIT are present.
    pub const IAPC_LEGACY_DEVICES: u16 = 1 << 0;
    /// `iapc_boot_arch` bit: an 8042 keyboard controller is present (usable
    /// as a reboot fallback).
    pub const IAPC_8042: u16 = 1 << 1;
    /// `iapc_boot_arch` bit: there is no CMOS RTC.
    pub const IAPC_CMOS_RTC_NOT_PRESENT: u16 = 1 << 5;
}

/// Finds the FADT through the RSDP at `rsdp_paddr` and decodes it.
pub fn parse_fadt<M: PhysRead + ?Sized>(mem: &M, rsdp_paddr: u64) -> Result<Fadt, AcpiError> {
    let (paddr, table) = load_required(mem, rsdp_paddr, FADT_SIGNATURE)?;
    decode(&table, paddr)
}

/// Chooses between a legacy 32-bit I/O port field and its 64-bit `X_`
/// Generic Address counterpart.
///
/// The spec says the `X_` field wins when it is non-zero. It is used only
/// when it describes an I/O port that fits the `u32` result; otherwise (a
/// memory-mapped PM1 block, which no PC firmware uses) the legacy field is
/// the best available answer.
fn pick_port(legacy: u32, x: Option<GenericAddress>) -> u32 {
    match x {
        Some(g) if g.address != 0 && g.address_space == AddressSpace::SystemIo => {
            u32::try_from(g.address).unwrap_or(legacy)
        }
        _ => legacy,
    }
}

fn decode(t: &[u8], paddr: u64) -> Result<Fadt, AcpiError> {
    let truncated = AcpiError::Truncated {
        signature: FADT_SIGNATURE,
        paddr,
        length: t.len() as u32,
    };
    if t.len() < FADT_V1_LEN {
        return Err(truncated);
    }
    let flags = u32_at(t, OFF_FLAGS).ok_or(truncated)?;

    // Optional fields: `GenericAddress::parse` and friends return `None`
    // when the table ends before the field, i.e. the field is absent.
    let x_dsdt = u64_at(t, OFF_X_DSDT).filter(|&a| a != 0);
    let dsdt = x_dsdt.unwrap_or(u64::from(u32_at(t, OFF_DSDT).ok_or(truncated)?));

    let reset_register = match (
        GenericAddress::parse(t, OFF_RESET_REG),
        byte(t, OFF_RESET_VALUE),
    ) {
        (Some(address), Some(value))
            if flags & Fadt::FLAG_RESET_REG_SUP != 0 && address.address != 0 =>
        {
            Some(ResetRegister { address, value })
        }
        _ => None,
    };

    let x_pm1a = GenericAddress::parse(t, OFF_X_PM1A_CNT_BLK);
    let x_pm1b = GenericAddress::parse(t, OFF_X_PM1B_CNT_BLK);
    let pm_timer_len = byte(t, OFF_PM_TMR_LEN).ok_or(truncated)?;
    let pm_timer_port = if flags & Fadt::FLAG_HW_REDUCED_ACPI != 0 || pm_timer_len != 4 {
        0
    } else {
        pick_port(
            u32_at(t, OFF_PM_TMR_BLK).ok_or(truncated)?,
            GenericAddress::parse(t, OFF_X_PM_TMR_BLK),
        )
    };

    Ok(Fadt {
        revision: byte(t, 8).ok_or(truncated)?,
        pm1a_control_block: pick_port(u32_at(t, OFF_PM1A_CNT_BLK).ok_or(truncated)?, x_pm1a),
        pm1b_control_block: pick_port(u32_at(t, OFF_PM1B_CNT_BLK).ok_or(truncated)?, x_pm1b),
        sci_interrupt: u16_at(t, OFF_SCI_INT).ok_or(truncated)?,
        pm_timer_port,
        pm_timer_32bit: flags & Fadt::FLAG_TMR_VAL_EXT != 0,
        century_cmos_index: byte(t, OFF_CENTURY).ok_or(truncated)?,
        iapc_boot_arch: u16_at(t, OFF_IAPC_BOOT_ARCH).ok_or(truncated)?,
        dsdt,
        reset_register,
        flags,
    })
}
