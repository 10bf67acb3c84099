//! The Multiple APIC Description Table ("APIC"), ACPI 6.5 section 5.2.12.

use alloc::vec::Vec;

use crate::{byte, load_required, u16_at, u32_at, u64_at, AcpiError, PhysRead, Signature};

const MADT_SIGNATURE: Signature = *b"APIC";
/// Header (36) + Local Interrupt Controller Address (4) + Flags (4).
const MADT_FIXED_LEN: usize = 44;
/// MADT flags bit 0: the system also has dual 8259 PICs that must be masked
/// before the I/O APIC is used.
const PCAT_COMPAT: u32 = 1 << 0;

/// Local APIC flags bit 0: the processor is usable now.
const LAPIC_ENABLED: u32 = 1 << 0;
/// Local APIC flags bit 1 (ACPI 6.3+): the processor is off now but may be
/// brought online later; meaningful only when `Enabled` is clear.
const LAPIC_ONLINE_CAPABLE: u32 = 1 << 1;

// Interrupt controller structure types this parser understands, with the
// minimum length each needs. Longer entries are accepted: later spec
// revisions may append fields.
const TYPE_LOCAL_APIC: u8 = 0;
const TYPE_IO_APIC: u8 = 1;
const TYPE_INTERRUPT_OVERRIDE: u8 = 2;
const TYPE_NMI_SOURCE: u8 = 3;
const TYPE_LOCAL_APIC_NMI: u8 = 4;
const TYPE_LOCAL_APIC_ADDRESS_OVERRIDE: u8 = 5;
const TYPE_LOCAL_X2APIC: u8 = 9;
const TYPE_LOCAL_X2APIC_NMI: u8 = 10;

/// Interrupt pin polarity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Polarity {
    /// The line is asserted when high.
    ActiveHigh,
    /// The line is asserted when low.
    ActiveLow,
}

/// Interrupt trigger mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TriggerMode {
    /// The interrupt fires on a transition.
    Edge,
    /// The interrupt fires while the line is asserted.
    Level,
}

/// A processor's local APIC, from a type 0 (xAPIC) or type 9 (x2APIC) entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LocalApic {
    /// The ACPI processor UID, which matches the processor's `_UID` in the
    /// namespace and the UIDs used by local APIC NMI entries.
    pub processor_uid: u32,
    /// The local APIC ID, used to address the processor with IPIs.
    pub apic_id: u32,
    /// The processor is ready to be started.
    pub enabled: bool,
    /// The processor is disabled but may be hot-added later.
    pub online_capable: bool,
}

/// An I/O APIC (type 1 entry).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IoApic {
    /// The I/O APIC's ID.
    pub id: u8,
    /// Physical address of its register window.
    pub addr: u32,
    /// The first global system interrupt number its inputs serve.
    pub gsi_base: u32,
}

/// An interrupt source override (type 2 entry): an ISA IRQ wired to a
/// different GSI, or with non-default polarity or trigger mode.
///
/// "Conforms to the bus" flags are resolved at parse time to the ISA
/// defaults (active high, edge triggered), because bus 0 (ISA) is the only
/// bus ACPI defines for this entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InterruptOverride {
    /// The bus the source IRQ lives on; always 0 (ISA) in practice.
    pub bus: u8,
    /// The bus-relative (ISA) IRQ number.
    pub source_irq: u8,
    /// The global system interrupt it is delivered on.
    pub gsi: u32,
    /// The line's polarity.
    pub polarity: Polarity,
    /// The line's trigger mode.
    pub trigger: TriggerMode,
}

/// A global system interrupt that must be programmed as an NMI (type 3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NmiSource {
    /// The global system interrupt that carries the NMI.
    pub gsi: u32,
    /// The line's polarity.
    pub polarity: Polarity,
    /// The line's trigger mode.
    pub trigger: TriggerMode,
}

/// A local APIC LINT pin wired to NMI (type 4 or type 10 entry).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LocalApicNmi {
    /// The processor UID this applies to; `None` means every processor.
    pub processor_uid: Option<u32>,
    /// The local APIC input: 0 for LINT0, 1 for LINT1.
    pub lint: u8,
    /// The pin's polarity.
    pub polarity: Polarity,
    /// The pin's trigger mode.
    pub trigger: TriggerMode,
}

/// The decoded contents of the MADT.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Madt {
    /// Physical address of the local APIC registers, taken from the type 5
    /// override entry when one is present.
    pub local_apic_addr: u64,
    /// The system has legacy 8259 PICs, which must be masked.
    pub pcat_compat: bool,
    /// All processors, in table order, including disabled ones. Firmware may
    /// describe a processor with both a type 0 and a type 9 entry; both are
    /// kept, as the spec leaves the choice to the OS.
    pub cpus: Vec<LocalApic>,
    /// The I/O APICs.
    pub io_apics: Vec<IoApic>,
    /// The ISA interrupt source overrides.
    pub overrides: Vec<InterruptOverride>,
    /// Global system interrupts that carry NMIs.
    pub nmi_sources: Vec<NmiSource>,
    /// Local APIC pins wired to NMI.
    pub local_apic_nmis: Vec<LocalApicNmi>,
}

impl Madt {
    /// Translates an ISA IRQ number to the GSI it arrives on, with the
    /// line's polarity and trigger mode.
    ///
    /// Without an override, ISA IRQs are identity-mapped, edge triggered and
    /// active high. If firmware lists several overrides for one IRQ, the
    /// last one wins, as each later entry would replace the earlier routing.
    pub fn isa_irq_to_gsi(&self, irq: u8) -> (u32, Polarity, TriggerMode) {
        self.overrides
            .iter()
            .rev()
            .find(|o| o.bus == 0 && o.source_irq == irq)
            .map(|o| (o.gsi, o.polarity, o.trigger))
            .unwrap_or((u32::from(irq), Polarity::ActiveHigh, TriggerMode::Edge))
    }

    /// Returns the processors that are usable now (`enabled` set).
    pub fn enabled_cpus(&self) -> impl Iterator<Item = &LocalApic> + '_ {
        self.cpus.iter().filter(|c| c.enabled)
    }
}

/// Finds the MADT through the RSDP at `rsdp_paddr` and decodes it.
pub fn parse_madt<M: PhysRead + ?Sized>(mem: &M, rsdp_paddr: u64) -> Result<Madt, AcpiError> {
    let (paddr, table) = load_required(mem, rsdp_paddr, MADT_SIGNATURE)?;
    decode(&table, paddr)
}

/// Decodes MPS INTI flags (bits 0-1 polarity, bits 2-3 trigger mode).
///
/// "Conforms to the bus" (0) resolves to the ISA defaults. The reserved
/// encoding (2) is treated the same way rather than rejecting the MADT: it
/// is a firmware bug that should not keep the machine from booting, and the
/// bus default is the most likely intent.
fn inti_flags(flags: u16) -> (Polarity, TriggerMode) {
    let polarity = match flags & 0b11 {
        3 => Polarity::ActiveLow,
        _ => Polarity::ActiveHigh,
    };
    let trigger = match (flags >> 2) & 0b11 {
        3 => TriggerMode::Level,
        _ => TriggerMode::Edge,
    };
    (polarity, trigger)
}

fn decode(table: &[u8], paddr: u64) -> Result<Madt, AcpiError> {
    let length = table.len() as u32;
    let truncated = AcpiError::Truncated {
        signature: MADT_SIGNATURE,
        paddr,
        length,
    };
    if table.len() < MADT_FIXED_LEN {
        return Err(truncated);
    }
    let mut madt = Madt {
        local_apic_addr: u64::from(u32_at(table, 36).ok_or(truncated)?),
        pcat_compat: u32_at(table, 40).ok_or(truncated)? & PCAT_COMPAT != 0,
        ..Madt::default()
    };

    let mut offset = MADT_FIXED_LEN;
    while offset < table.len() {
        let entry_type = byte(table, offset).ok_or(truncated)?;
        // An entry whose length byte is cut off by the table end is
        // truncation, not a malformed entry.
        let entry_len = byte(table, offset + 1).ok_or(truncated)?;
        let malformed = AcpiError::MalformedEntry {
            signature: MADT_SIGNATURE,
            paddr,
            offset,
            entry_type,
            length: entry_len,
        };
        // A length below 2 would never advance the cursor.
        if entry_len < 2 {
            return Err(malformed);
        }
        let entry = table
            .get(offset..offset + usize::from(entry_len))
            .ok_or(truncated)?;
        let min_len = match entry_type {
            TYPE_LOCAL_APIC => 8,
            TYPE_IO_APIC => 12,
            TYPE_INTERRUPT_OVERRIDE => 10,
            TYPE_NMI_SOURCE => 8,
            TYPE_LOCAL_APIC_NMI => 6,
            TYPE_LOCAL_APIC_ADDRESS_OVERRIDE => 12,
            TYPE_LOCAL_X2APIC => 16,
            TYPE_LOCAL_X2APIC_NMI => 12,
            // Other types (GIC, RINTC, OEM-defined...) are skipped whole.
            _ => 2,
        };
        if entry.len() < min_len {
            return Err(malformed);
        }
        // Every read below is within `min_len`, so the `ok_or`s cannot
        // fire; they exist only to keep the code panic-free by construction.
        match entry_type {
            TYPE_LOCAL_APIC => {
                let flags = u32_at(entry, 4).ok_or(malformed)?;
                madt.cpus.push(LocalApic {
                    processor_uid: u32::from(byte(entry, 2).ok_or(malformed)?),
                    apic_id: u32::from(byte(entry, 3).ok_or(malformed)?),
                    enabled: flags & LAPIC_ENABLED != 0,
                    online_capable: flags & LAPIC_ONLINE_CAPABLE != 0,
                });
            }
            TYPE_LOCAL_X2APIC => {
                let flags = u32_at(entry, 8).ok_or(malformed)?;
                madt.cpus.push(LocalApic {
                    processor_uid: u32_at(entry, 12).ok_or(malformed)?,
                    apic_id: u32_at(entry, 4).ok_or(malformed)?,
                    enabled: flags & LAPIC_ENABLED != 0,
                    online_capable: flags & LAPIC_ONLINE_CAPABLE != 0,
                });
            }
            TYPE_IO_APIC => madt.io_apics.push(IoApic {
                id: byte(entry, 2).ok_or(malformed)?,
                addr: u32_at(entry, 4).ok_or(malformed)?,
                gsi_base: u32_at(entry, 8).ok_or(malformed)?,
            }),
            TYPE_INTERRUPT_OVERRIDE => {
                let (polarity, trigger) = inti_flags(u16_at(entry, 8).ok_or(malformed)?);
                madt.overrides.push(InterruptOverride {
                    bus: byte(entry, 2).ok_or(malformed)?,
                    source_irq: byte(entry, 3).ok_or(malformed)?,
                    gsi: u32_at(entry, 4).ok_or(malformed)?,
                    polarity,
                    trigger,
                });
            }
            TYPE_NMI_SOURCE => {
                let (polarity, trigger) = inti_flags(u16_at(entry, 2).ok_or(malformed)?);
                madt.nmi_sources.push(NmiSource {
                    gsi: u32_at(entry, 4).ok_or(malformed)?,
                    polarity,
                    trigger,
                });
            }
            TYPE_LOCAL_APIC_NMI => {
                let uid = byte(entry, 2).ok_or(malformed)?;
                let (polarity, trigger) = inti_flags(u16_at(entry, 3).ok_or(malformed)?);
                madt.local_apic_nmis.push(LocalApicNmi {
                    // 0xFF is the spec's "all processors" wildcard.
                    processor_uid: (uid != 0xff).then_some(u32::from(uid)),
                    lint: byte(entry, 5).ok_or(malformed)?,
                    polarity,
                    trigger,
                });
            }
            TYPE_LOCAL_X2APIC_NMI => {
                let uid = u32_at(entry, 4).ok_or(malformed)?;
                let (polarity, trigger) = inti_flags(u16_at(entry, 2).ok_or(malformed)?);
                madt.local_apic_nmis.push(LocalApicNmi {
                    processor_uid: (uid != u32::MAX).then_some(uid),
                    lint: byte(entry, 8).ok_or(malformed)?,
                    polarity,
                    trigger,
                });
            }
            TYPE_LOCAL_APIC_ADDRESS_OVERRIDE => {
                // The 64-bit override supersedes the 32-bit header field.
                madt.local_apic_addr = u64_at(entry, 4).ok_or(malformed)?;
            }
            _ => {}
        }
        offset += usize::from(entry_len);
    }
    Ok(madt)
}
