//! Host tests: ACPI images are assembled byte by byte in fake physical
//! memory, with checksums computed by the helpers below.

use super::*;
use std::collections::BTreeMap;

/// Fake physical memory: disjoint blobs at fixed addresses. A read succeeds
/// only if the whole range lies inside one blob, so reading past the end of
/// a table fails exactly as reading unmapped memory would.
#[derive(Default, Clone)]
struct FakeMem {
    blobs: BTreeMap<u64, Vec<u8>>,
}

impl FakeMem {
    /// Places `bytes` at `paddr`, replacing any blob at exactly that
    /// address. Overlapping another blob is a bug in the test image.
    fn put(&mut self, paddr: u64, bytes: Vec<u8>) {
        self.blobs.remove(&paddr);
        let end = paddr + bytes.len() as u64;
        for (&base, blob) in &self.blobs {
            assert!(
                end <= base || base + blob.len() as u64 <= paddr,
                "test blob at {paddr:#x} overlaps blob at {base:#x}"
            );
        }
        self.blobs.insert(paddr, bytes);
    }

    fn get_mut(&mut self, paddr: u64) -> &mut Vec<u8> {
        self.blobs.get_mut(&paddr).unwrap()
    }
}

impl PhysRead for FakeMem {
    fn read(&self, paddr: u64, buf: &mut [u8]) -> bool {
        let Some((&base, blob)) = self.blobs.range(..=paddr).next_back() else {
            return false;
        };
        let start = (paddr - base) as usize;
        match blob.get(start..start + buf.len()) {
            Some(src) => {
                buf.copy_from_slice(src);
                true
            }
            None => false,
        }
    }
}

/// Sets byte `at` so that the whole of `bytes` sums to zero.
fn fix_checksum(bytes: &mut [u8], at: usize) {
    bytes[at] = 0;
    let sum = bytes.iter().fold(0u8, |a, &b| a.wrapping_add(b));
    bytes[at] = 0u8.wrapping_sub(sum);
}

/// Builds a system description table: a 36-byte header followed by `body`.
fn sdt(signature: &[u8; 4], revision: u8, body: &[u8]) -> Vec<u8> {
    let mut t = Vec::new();
    t.extend_from_slice(signature);
    t.extend_from_slice(&((36 + body.len()) as u32).to_le_bytes());
    t.push(revision);
    t.push(0); // checksum, fixed below
    t.extend_from_slice(b"KEVLAR");
    t.extend_from_slice(b"TESTTBL ");
    t.extend_from_slice(&1u32.to_le_bytes()); // OEM revision
    t.extend_from_slice(b"KVLR");
    t.extend_from_slice(&1u32.to_le_bytes()); // creator revision
    assert_eq!(t.len(), 36);
    t.extend_from_slice(body);
    fix_checksum(&mut t, 9);
    t
}

/// Builds an RSDP; revision >= 2 gets the extended fields.
fn rsdp(revision: u8, rsdt: u32, xsdt: u64) -> Vec<u8> {
    let mut r = Vec::new();
    r.extend_from_slice(b"RSD PTR ");
    r.push(0);
    r.extend_from_slice(b"KEVLAR");
    r.push(revision);
    r.extend_from_slice(&rsdt.to_le_bytes());
    if revision >= 2 {
        r.extend_from_slice(&36u32.to_le_bytes());
        r.extend_from_slice(&xsdt.to_le_bytes());
        r.push(0); // extended checksum
        r.extend_from_slice(&[0; 3]);
    }
    fix_checksum(&mut r[..20], 8);
    if revision >= 2 {
        fix_checksum(&mut r, 32);
    }
    r
}

fn xsdt(entries: &[u64]) -> Vec<u8> {
    let body: Vec<u8> = entries.iter().flat_map(|e| e.to_le_bytes()).collect();
    sdt(b"XSDT", 1, &body)
}

fn rsdt(entries: &[u32]) -> Vec<u8> {
    let body: Vec<u8> = entries.iter().flat_map(|e| e.to_le_bytes()).collect();
    sdt(b"RSDT", 1, &body)
}

// MADT entry builders, one per interrupt controller structure type.

fn lapic(uid: u8, apic_id: u8, flags: u32) -> Vec<u8> {
    let mut e = vec![0, 8, uid, apic_id];
    e.extend_from_slice(&flags.to_le_bytes());
    e
}

fn x2apic(uid: u32, apic_id: u32, flags: u32) -> Vec<u8> {
    let mut e = vec![9, 16, 0, 0];
    e.extend_from_slice(&apic_id.to_le_bytes());
    e.extend_from_slice(&flags.to_le_bytes());
    e.extend_from_slice(&uid.to_le_bytes());
    e
}

fn ioapic(id: u8, addr: u32, gsi_base: u32) -> Vec<u8> {
    let mut e = vec![1, 12, id, 0];
    e.extend_from_slice(&addr.to_le_bytes());
    e.extend_from_slice(&gsi_base.to_le_bytes());
    e
}

fn iso(bus: u8, irq: u8, gsi: u32, flags: u16) -> Vec<u8> {
    let mut e = vec![2, 10, bus, irq];
    e.extend_from_slice(&gsi.to_le_bytes());
    e.extend_from_slice(&flags.to_le_bytes());
    e
}

fn nmi_source(flags: u16, gsi: u32) -> Vec<u8> {
    let mut e = vec![3, 8];
    e.extend_from_slice(&flags.to_le_bytes());
    e.extend_from_slice(&gsi.to_le_bytes());
    e
}

fn lapic_nmi(uid: u8, flags: u16, lint: u8) -> Vec<u8> {
    let mut e = vec![4, 6, uid];
    e.extend_from_slice(&flags.to_le_bytes());
    e.push(lint);
    e
}

fn x2apic_nmi(uid: u32, flags: u16, lint: u8) -> Vec<u8> {
    let mut e = vec![10, 12];
    e.extend_from_slice(&flags.to_le_bytes());
    e.extend_from_slice(&uid.to_le_bytes());
    e.extend_from_slice(&[lint, 0, 0, 0]);
    e
}

fn lapic_addr_override(addr: u64) -> Vec<u8> {
    let mut e = vec![5, 12, 0, 0];
    e.extend_from_slice(&addr.to_le_bytes());
    e
}

fn madt(lapic_addr: u32, flags: u32, entries: &[Vec<u8>]) -> Vec<u8> {
    let mut body = Vec::new();
    body.extend_from_slice(&lapic_addr.to_le_bytes());
    body.extend_from_slice(&flags.to_le_bytes());
    for e in entries {
        body.extend_from_slice(e);
    }
    sdt(b"APIC", 5, &body)
}

/// The MADT QEMU's i440fx machine builds for `-smp 2,maxcpus=4`, plus a
/// few extra entries to exercise more of the parser.
fn qemu_madt() -> Vec<u8> {
    madt(
        0xfee0_0000,
        1,
        &[
            lapic(0, 0, 1),
            lapic(1, 1, 1),
            lapic(2, 2, 0), // present in maxcpus but not plugged
            lapic(3, 3, 2), // online-capable (ACPI 6.3 style)
            ioapic(0, 0xfec0_0000, 0),
            iso(0, 0, 2, 0),
            iso(0, 5, 5, 0xd),
            iso(0, 9, 9, 0xd),
            iso(0, 10, 10, 0xd),
            iso(0, 11, 11, 0xd),
            lapic_nmi(0xff, 0, 1),
            vec![0x7f, 4, 0xaa, 0xbb], // an unknown type, to be skipped
        ],
    )
}

/// Builds a FADT of `len` bytes with the given fields; fields beyond `len`
/// are cut off, as in older table revisions.
struct FadtSpec {
    len: usize,
    dsdt: u32,
    x_dsdt: u64,
    pm1a: u32,
    pm1b: u32,
    x_pm1a: (u8, u64),
    century: u8,
    iapc: u16,
    flags: u32,
    reset: (u8, u64, u8),
    pm_timer: u32,
    pm_timer_len: u8,
    x_pm_timer: (u8, u64),
}

impl Default for FadtSpec {
    fn default() -> Self {
        FadtSpec {
            len: 276,
            dsdt: 0x7fe0_0040,
            x_dsdt: 0,
            pm1a: 0x604,
            pm1b: 0,
            x_pm1a: (1, 0),
            century: 0x32,
            iapc: 0,
            flags: Fadt::FLAG_RESET_REG_SUP,
            reset: (1, 0xcf9, 6),
            pm_timer: 0x608,
            pm_timer_len: 4,
            x_pm_timer: (1, 0),
        }
    }
}

fn fadt(spec: &FadtSpec) -> Vec<u8> {
    let mut t = sdt(b"FACP", 6, &[0u8; 276 - 36]);
    t[40..44].copy_from_slice(&spec.dsdt.to_le_bytes());
    t[46..48].copy_from_slice(&9u16.to_le_bytes());
    t[64..68].copy_from_slice(&spec.pm1a.to_le_bytes());
    t[76..80].copy_from_slice(&spec.pm_timer.to_le_bytes());
    t[91] = spec.pm_timer_len;
    t[208] = spec.x_pm_timer.0;
    t[209] = 32;
    t[211] = 3;
    t[212..220].copy_from_slice(&spec.x_pm_timer.1.to_le_bytes());
    t[68..72].copy_from_slice(&spec.pm1b.to_le_bytes());
    t[108] = spec.century;
    t[109..111].copy_from_slice(&spec.iapc.to_le_bytes());
    t[112..116].copy_from_slice(&spec.flags.to_le_bytes());
    t[116] = spec.reset.0;
    t[117] = 8;
    t[119] = 1;
    t[120..128].copy_from_slice(&spec.reset.1.to_le_bytes());
    t[128] = spec.reset.2;
    t[140..148].copy_from_slice(&spec.x_dsdt.to_le_bytes());
    t[172] = spec.x_pm1a.0;
    t[173] = 16;
    t[175] = 2;
    t[176..184].copy_from_slice(&spec.x_pm1a.1.to_le_bytes());
    t.truncate(spec.len);
    t[4..8].copy_from_slice(&(spec.len as u32).to_le_bytes());
    fix_checksum(&mut t, 9);
    t
}

const RSDP_AT: u64 = 0xf_5a40;
const XSDT_AT: u64 = 0x7fe1_0000;
const RSDT_AT: u64 = 0x7fe2_0000;
const MADT_AT: u64 = 0x7fe3_0000;
const FADT_AT: u64 = 0x7fe4_0000;
const HPET_AT: u64 = 0x7fe5_0000;

/// An HPET table with its register block at `base` in address space
/// `space`.
fn hpet_table(space: u8, base: u64) -> Vec<u8> {
    let mut body = vec![0u8; 56 - 36];
    body[0..4].copy_from_slice(&0x8086_a201u32.to_le_bytes());
    body[4] = space;
    body[5] = 64;
    body[8..16].copy_from_slice(&base.to_le_bytes());
    body[17..19].copy_from_slice(&128u16.to_le_bytes());
    sdt(b"HPET", 1, &body)
}

/// A revision 2 image: RSDP -> XSDT -> {FACP, APIC}.
fn image_v2() -> FakeMem {
    let mut m = FakeMem::default();
    m.put(RSDP_AT, rsdp(2, 0, XSDT_AT));
    m.put(XSDT_AT, xsdt(&[FADT_AT, MADT_AT]));
    m.put(MADT_AT, qemu_madt());
    m.put(FADT_AT, fadt(&FadtSpec::default()));
    m
}

/// A revision 0 image: RSDP -> RSDT -> {FACP, APIC}.
fn image_v0() -> FakeMem {
    let mut m = FakeMem::default();
    m.put(RSDP_AT, rsdp(0, RSDT_AT as u32, 0));
    m.put(RSDT_AT, rsdt(&[FADT_AT as u32, MADT_AT as u32]));
    m.put(MADT_AT, qemu_madt());
    m.put(FADT_AT, fadt(&FadtSpec::default()));
    m
}

/// Tiny deterministic PRNG (xorshift64*) for the mutation tests.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

// ---------------------------------------------------------------- RSDP/root

#[test]
fn finds_tables_through_xsdt() {
    let m = image_v2();
    assert_eq!(find_table(&m, RSDP_AT, *b"APIC"), Ok(Some(MADT_AT)));
    assert_eq!(find_table(&m, RSDP_AT, *b"FACP"), Ok(Some(FADT_AT)));
    assert_eq!(find_table(&m, RSDP_AT, *b"HPET"), Ok(None));
    let rsdp = read_rsdp(&m, RSDP_AT).unwrap();
    assert_eq!(rsdp.revision, 2);
    assert_eq!(rsdp.xsdt_address, Some(XSDT_AT));
    assert_eq!(&rsdp.oem_id, b"KEVLAR");
}

#[test]
fn revision_0_falls_back_to_rsdt() {
    let m = image_v0();
    assert_eq!(read_rsdp(&m, RSDP_AT).unwrap().xsdt_address, None);
    assert_eq!(find_table(&m, RSDP_AT, *b"APIC"), Ok(Some(MADT_AT)));
    assert_eq!(parse_madt(&m, RSDP_AT).unwrap().cpus.len(), 4);
    assert_eq!(parse_fadt(&m, RSDP_AT).unwrap().century_cmos_index, 0x32);
}

#[test]
fn revision_2_with_null_xsdt_uses_rsdt() {
    let mut m = image_v0();
    m.put(RSDP_AT, rsdp(2, RSDT_AT as u32, 0));
    assert_eq!(find_table(&m, RSDP_AT, *b"FACP"), Ok(Some(FADT_AT)));
}

#[test]
fn xsdt_is_preferred_over_rsdt() {
    // The RSDT lists only the FADT; the XSDT lists both. Finding the MADT
    // proves the XSDT was used.
    let mut m = image_v2();
    m.put(RSDP_AT, rsdp(2, RSDT_AT as u32, XSDT_AT));
    m.put(RSDT_AT, rsdt(&[FADT_AT as u32]));
    assert_eq!(find_table(&m, RSDP_AT, *b"APIC"), Ok(Some(MADT_AT)));
    assert_eq!(table_addresses(&m, RSDP_AT), Ok(vec![FADT_AT, MADT_AT]));
}

#[test]
fn xsdt_can_point_above_4gib() {
    let mut m = image_v2();
    let high = 0x1_2345_6000;
    m.put(high, qemu_madt());
    m.put(XSDT_AT, xsdt(&[FADT_AT, high]));
    assert_eq!(find_table(&m, RSDP_AT, *b"APIC"), Ok(Some(high)));
}

#[test]
fn bad_rsdp_signature_rejected() {
    let mut m = image_v2();
    m.get_mut(RSDP_AT)[0] = b'X';
    assert_eq!(
        find_table(&m, RSDP_AT, *b"APIC"),
        Err(AcpiError::BadRsdpSignature)
    );
}

#[test]
fn bad_rsdp_checksum_rejected() {
    let mut m = image_v2();
    m.get_mut(RSDP_AT)[16] ^= 1; // inside the first 20 bytes
    assert_eq!(read_rsdp(&m, RSDP_AT), Err(AcpiError::BadRsdpChecksum));
}

#[test]
fn bad_rsdp_extended_checksum_rejected() {
    let mut m = image_v2();
    m.get_mut(RSDP_AT)[33] = 0x55; // reserved byte, outside the first 20
    assert_eq!(
        read_rsdp(&m, RSDP_AT),
        Err(AcpiError::BadRsdpExtendedChecksum)
    );
}

#[test]
fn bad_rsdp_length_rejected() {
    let mut m = image_v2();
    let r = m.get_mut(RSDP_AT);
    r[20..24].copy_from_slice(&20u32.to_le_bytes());
    fix_checksum(r, 32);
    assert_eq!(read_rsdp(&m, RSDP_AT), Err(AcpiError::BadRsdpLength(20)));
}

#[test]
fn unreadable_rsdp_reported() {
    let m = image_v2();
    assert_eq!(
        read_rsdp(&m, 0x1000),
        Err(AcpiError::Unreadable {
            paddr: 0x1000,
            len: 20
        })
    );
    // Near the top of the address space: must not overflow.
    assert!(matches!(
        read_rsdp(&m, u64::MAX - 4),
        Err(AcpiError::Unreadable { .. })
    ));
}

#[test]
fn bad_root_table_checksum_rejected() {
    let mut m = image_v2();
    m.get_mut(XSDT_AT)[20] ^= 0x10;
    assert_eq!(
        find_table(&m, RSDP_AT, *b"APIC"),
        Err(AcpiError::BadChecksum {
            signature: *b"XSDT",
            paddr: XSDT_AT
        })
    );
}

#[test]
fn root_table_with_wrong_signature_rejected() {
    let mut m = image_v2();
    m.put(XSDT_AT, sdt(b"RSDT", 1, &MADT_AT.to_le_bytes()));
    assert_eq!(
        find_table(&m, RSDP_AT, *b"APIC"),
        Err(AcpiError::UnexpectedSignature {
            paddr: XSDT_AT,
            expected: *b"XSDT",
            found: *b"RSDT"
        })
    );
}

#[test]
fn root_table_with_partial_entry_rejected() {
    let mut m = image_v2();
    m.put(XSDT_AT, sdt(b"XSDT", 1, &[0u8; 12]));
    assert!(matches!(
        find_table(&m, RSDP_AT, *b"APIC"),
        Err(AcpiError::Truncated {
            signature: [b'X', b'S', b'D', b'T'],
            ..
        })
    ));
}

#[test]
fn missing_root_table_reported() {
    let mut m = image_v0();
    m.put(RSDP_AT, rsdp(0, 0, 0));
    assert_eq!(
        find_table(&m, RSDP_AT, *b"APIC"),
        Err(AcpiError::NoRootTable)
    );
}

#[test]
fn null_and_unreadable_entries_skipped() {
    let mut m = image_v2();
    m.put(XSDT_AT, xsdt(&[0, 0xdead_0000, MADT_AT]));
    assert_eq!(find_table(&m, RSDP_AT, *b"APIC"), Ok(Some(MADT_AT)));
}

#[test]
fn bad_copy_skipped_in_favour_of_good_one() {
    let mut m = image_v2();
    let bad = 0x7fe5_0000;
    let mut t = qemu_madt();
    t[50] ^= 1;
    m.put(bad, t);
    m.put(XSDT_AT, xsdt(&[bad, MADT_AT]));
    assert_eq!(find_table(&m, RSDP_AT, *b"APIC"), Ok(Some(MADT_AT)));
}

#[test]
fn list_tables_reports_headers() {
    let mut m = image_v2();
    m.get_mut(FADT_AT)[200] ^= 1; // break the FADT's checksum
    let list = list_tables(&m, RSDP_AT).unwrap();
    assert_eq!(list.len(), 2);
    assert_eq!(list[0].signature, *b"FACP");
    assert!(!list[0].valid);
    assert_eq!(list[1].signature, *b"APIC");
    assert_eq!(list[1].paddr, MADT_AT);
    assert_eq!(list[1].length as usize, qemu_madt().len());
    assert_eq!(list[1].revision, 5);
    assert!(list[1].valid);
}

#[test]
fn read_table_rejects_bad_lengths() {
    let mut m = FakeMem::default();
    let mut t = sdt(b"TEST", 1, &[]);
    t[4..8].copy_from_slice(&10u32.to_le_bytes());
    fix_checksum(&mut t, 9);
    m.put(0x1000, t);
    assert_eq!(
        read_table(&m, 0x1000),
        Err(AcpiError::Truncated {
            signature: *b"TEST",
            paddr: 0x1000,
            length: 10
        })
    );
    let mut t = sdt(b"TEST", 1, &[]);
    t[4..8].copy_from_slice(&u32::MAX.to_le_bytes());
    m.put(0x1000, t);
    assert!(matches!(
        read_table(&m, 0x1000),
        Err(AcpiError::TooLarge {
            length: u32::MAX,
            ..
        })
    ));
}

// -------------------------------------------------------------------- MADT

#[test]
fn madt_qemu_layout() {
    let madt = parse_madt(&image_v2(), RSDP_AT).unwrap();
    assert_eq!(madt.local_apic_addr, 0xfee0_0000);
    assert!(madt.pcat_compat);
    assert_eq!(
        madt.cpus,
        vec![
            LocalApic {
                processor_uid: 0,
                apic_id: 0,
                enabled: true,
                online_capable: false
            },
            LocalApic {
                processor_uid: 1,
                apic_id: 1,
                enabled: true,
                online_capable: false
            },
            LocalApic {
                processor_uid: 2,
                apic_id: 2,
                enabled: false,
                online_capable: false
            },
            LocalApic {
                processor_uid: 3,
                apic_id: 3,
                enabled: false,
                online_capable: true
            },
        ]
    );
    assert_eq!(madt.enabled_cpus().count(), 2);
    assert_eq!(
        madt.io_apics,
        vec![IoApic {
            id: 0,
            addr: 0xfec0_0000,
            gsi_base: 0
        }]
    );
    assert_eq!(madt.overrides.len(), 5);
    assert_eq!(
        madt.overrides[0],
        InterruptOverride {
            bus: 0,
            source_irq: 0,
            gsi: 2,
            polarity: Polarity::ActiveHigh,
            trigger: TriggerMode::Edge
        }
    );
    assert_eq!(
        madt.local_apic_nmis,
        vec![LocalApicNmi {
            processor_uid: None,
            lint: 1,
            polarity: Polarity::ActiveHigh,
            trigger: TriggerMode::Edge
        }]
    );
    assert!(madt.nmi_sources.is_empty());
}

#[test]
fn isa_irq_routing() {
    let madt = parse_madt(&image_v2(), RSDP_AT).unwrap();
    // QEMU's timer override.
    assert_eq!(
        madt.isa_irq_to_gsi(0),
        (2, Polarity::ActiveHigh, TriggerMode::Edge)
    );
    // No override: identity, ISA defaults.
    assert_eq!(
        madt.isa_irq_to_gsi(1),
        (1, Polarity::ActiveHigh, TriggerMode::Edge)
    );
    assert_eq!(
        madt.isa_irq_to_gsi(4),
        (4, Polarity::ActiveHigh, TriggerMode::Edge)
    );
    // PCI link IRQs QEMU marks level / active high.
    assert_eq!(
        madt.isa_irq_to_gsi(9),
        (9, Polarity::ActiveHigh, TriggerMode::Level)
    );
    assert_eq!(
        madt.isa_irq_to_gsi(11),
        (11, Polarity::ActiveHigh, TriggerMode::Level)
    );
}

#[test]
fn override_flags_decoded() {
    let mut m = image_v2();
    m.put(
        MADT_AT,
        madt(
            0xfee0_0000,
            0,
            &[
                iso(0, 9, 20, 0b1111), // active low, level
                iso(0, 3, 3, 0b0011),  // active low, conforming trigger -> edge
                iso(0, 4, 4, 0b1100),  // conforming polarity -> high, level
                iso(0, 6, 6, 0b1010),  // reserved encodings -> ISA defaults
                iso(0, 7, 17, 0),      // first override for IRQ 7 ...
                iso(0, 7, 18, 0),      // ... replaced by the last one
                iso(1, 8, 30, 0),      // not ISA: ignored by isa_irq_to_gsi
            ],
        ),
    );
    let madt = parse_madt(&m, RSDP_AT).unwrap();
    assert!(!madt.pcat_compat);
    assert_eq!(
        madt.isa_irq_to_gsi(9),
        (20, Polarity::ActiveLow, TriggerMode::Level)
    );
    assert_eq!(
        madt.isa_irq_to_gsi(3),
        (3, Polarity::ActiveLow, TriggerMode::Edge)
    );
    assert_eq!(
        madt.isa_irq_to_gsi(4),
        (4, Polarity::ActiveHigh, TriggerMode::Level)
    );
    assert_eq!(
        madt.isa_irq_to_gsi(6),
        (6, Polarity::ActiveHigh, TriggerMode::Edge)
    );
    assert_eq!(
        madt.isa_irq_to_gsi(7),
        (18, Polarity::ActiveHigh, TriggerMode::Edge)
    );
    assert_eq!(
        madt.isa_irq_to_gsi(8),
        (8, Polarity::ActiveHigh, TriggerMode::Edge)
    );
}

#[test]
fn x2apic_and_nmi_entries() {
    let mut m = image_v2();
    m.put(
        MADT_AT,
        madt(
            0xfee0_0000,
            1,
            &[
                lapic(0, 0, 1),
                x2apic(300, 0x1_0000, 1),
                x2apic(301, 0x1_0001, 0),
                ioapic(0, 0xfec0_0000, 0),
                ioapic(1, 0xfec0_1000, 24),
                nmi_source(0b1101, 16),
                lapic_nmi(0, 0b0101, 1),
                x2apic_nmi(u32::MAX, 0, 1),
                x2apic_nmi(300, 0b1111, 0),
            ],
        ),
    );
    let madt = parse_madt(&m, RSDP_AT).unwrap();
    assert_eq!(madt.cpus.len(), 3);
    assert_eq!(
        madt.cpus[1],
        LocalApic {
            processor_uid: 300,
            apic_id: 0x1_0000,
            enabled: true,
            online_capable: false
        }
    );
    assert!(!madt.cpus[2].enabled);
    assert_eq!(
        madt.io_apics[1],
        IoApic {
            id: 1,
            addr: 0xfec0_1000,
            gsi_base: 24
        }
    );
    assert_eq!(
        madt.nmi_sources,
        vec![NmiSource {
            gsi: 16,
            polarity: Polarity::ActiveHigh,
            trigger: TriggerMode::Level
        }]
    );
    assert_eq!(madt.local_apic_nmis.len(), 3);
    assert_eq!(madt.local_apic_nmis[0].processor_uid, Some(0));
    assert_eq!(madt.local_apic_nmis[0].trigger, TriggerMode::Edge);
    assert_eq!(madt.local_apic_nmis[1].processor_uid, None);
    assert_eq!(
        madt.local_apic_nmis[2],
        LocalApicNmi {
            processor_uid: Some(300),
            lint: 0,
            polarity: Polarity::ActiveLow,
            trigger: TriggerMode::Level
        }
    );
}

#[test]
fn local_apic_address_override_applied() {
    let mut m = image_v2();
    m.put(
        MADT_AT,
        madt(
            0xfee0_0000,
            1,
            &[lapic(0, 0, 1), lapic_addr_override(0x1_fee0_0000)],
        ),
    );
    assert_eq!(
        parse_madt(&m, RSDP_AT).unwrap().local_apic_addr,
        0x1_fee0_0000
    );
}

#[test]
fn longer_entries_accepted() {
    // A future revision may append fields to an entry; the known prefix is
    // still decoded and the extra bytes skipped.
    let mut e = lapic(5, 6, 1);
    e[1] = 10;
    e.extend_from_slice(&[0xee, 0xee]);
    let mut m = image_v2();
    m.put(MADT_AT, madt(0xfee0_0000, 1, &[e, lapic(7, 8, 1)]));
    let madt = parse_madt(&m, RSDP_AT).unwrap();
    assert_eq!(madt.cpus.len(), 2);
    assert_eq!(madt.cpus[1].apic_id, 8);
}

#[test]
fn bad_madt_checksum_rejected() {
    let mut m = image_v2();
    m.get_mut(MADT_AT)[45] ^= 0x80;
    assert_eq!(
        parse_madt(&m, RSDP_AT),
        Err(AcpiError::BadChecksum {
            signature: *b"APIC",
            paddr: MADT_AT
        })
    );
}

#[test]
fn madt_missing_reported() {
    let mut m = image_v2();
    m.put(XSDT_AT, xsdt(&[FADT_AT]));
    assert_eq!(
        parse_madt(&m, RSDP_AT),
        Err(AcpiError::TableNotFound(*b"APIC"))
    );
}

#[test]
fn madt_longer_than_memory_rejected() {
    // The header claims more bytes than exist: the read of the full table
    // fails rather than decoding whatever follows.
    let mut m = image_v2();
    let t = m.get_mut(MADT_AT);
    let len = t.len() as u32 + 64;
    t[4..8].copy_from_slice(&len.to_le_bytes());
    fix_checksum(t, 9);
    assert_eq!(
        parse_madt(&m, RSDP_AT),
        Err(AcpiError::Unreadable {
            paddr: MADT_AT,
            len: len as usize
        })
    );
}

#[test]
fn madt_without_fixed_fields_rejected() {
    let mut m = image_v2();
    m.put(MADT_AT, sdt(b"APIC", 5, &[0; 4]));
    assert_eq!(
        parse_madt(&m, RSDP_AT),
        Err(AcpiError::Truncated {
            signature: *b"APIC",
            paddr: MADT_AT,
            length: 40
        })
    );
}

#[test]
fn madt_entry_running_past_end_rejected() {
    let mut m = image_v2();
    let mut cut = ioapic(0, 0xfec0_0000, 0);
    cut.truncate(7); // header says 12 bytes, only 7 present
    m.put(MADT_AT, madt(0xfee0_0000, 1, &[lapic(0, 0, 1), cut]));
    assert!(matches!(
        parse_madt(&m, RSDP_AT),
        Err(AcpiError::Truncated {
            signature: [b'A', b'P', b'I', b'C'],
            ..
        })
    ));
    // Only the type byte of a final entry fits.
    m.put(MADT_AT, madt(0xfee0_0000, 1, &[lapic(0, 0, 1), vec![0]]));
    assert!(matches!(
        parse_madt(&m, RSDP_AT),
        Err(AcpiError::Truncated { .. })
    ));
}

#[test]
fn madt_zero_length_entry_rejected() {
    // A zero length would loop forever if accepted.
    let mut m = image_v2();
    m.put(
        MADT_AT,
        madt(0xfee0_0000, 1, &[lapic(0, 0, 1), vec![0, 0, 0, 0]]),
    );
    assert_eq!(
        parse_madt(&m, RSDP_AT),
        Err(AcpiError::MalformedEntry {
            signature: *b"APIC",
            paddr: MADT_AT,
            offset: 52,
            entry_type: 0,
            length: 0
        })
    );
}

#[test]
fn madt_entry_too_short_for_type_rejected() {
    let mut m = image_v2();
    let mut short = ioapic(0, 0xfec0_0000, 0);
    short[1] = 8;
    short.truncate(8);
    m.put(MADT_AT, madt(0xfee0_0000, 1, &[short]));
    assert!(matches!(
        parse_madt(&m, RSDP_AT),
        Err(AcpiError::MalformedEntry {
            entry_type: 1,
            length: 8,
            offset: 44,
            ..
        })
    ));
}

#[test]
fn mutated_madt_never_panics() {
    let base = image_v2();
    let mut rng = Rng(0x1234_5678_9abc_def1);
    for _ in 0..20_000 {
        let mut m = base.clone();
        let t = m.get_mut(MADT_AT);
        for _ in 0..1 + rng.below(4) {
            let i = 36 + rng.below(t.len() - 36);
            t[i] = rng.next() as u8;
        }
        // Often also cut the table short, keeping the length field
        // consistent so that the checksum still passes and the decoder
        // meets entries that run off the end.
        if rng.below(2) == 0 {
            let len = 36 + rng.below(t.len() - 35);
            t.truncate(len);
            t[4..8].copy_from_slice(&(len as u32).to_le_bytes());
        }
        // Keep the checksum valid so decoding actually runs.
        fix_checksum(t, 9);
        let _ = parse_madt(&m, RSDP_AT);
    }
}

// -------------------------------------------------------------------- FADT

#[test]
fn mutated_fadt_never_panics() {
    let base = image_v2();
    let mut rng = Rng(0x0fed_cba9_8765_4321);
    for _ in 0..20_000 {
        let mut m = base.clone();
        let t = m.get_mut(FADT_AT);
        for _ in 0..1 + rng.below(8) {
            let i = 36 + rng.below(t.len() - 36);
            t[i] = rng.next() as u8;
        }
        let len = 36 + rng.below(t.len() - 35);
        t.truncate(len);
        t[4..8].copy_from_slice(&(len as u32).to_le_bytes());
        fix_checksum(t, 9);
        match parse_fadt(&m, RSDP_AT) {
            Ok(_) => assert!(len >= 116),
            Err(e) => assert!(len < 116, "{e}"),
        }
    }
}

#[test]
fn fadt_modern_fields() {
    let f = parse_fadt(&image_v2(), RSDP_AT).unwrap();
    assert_eq!(f.revision, 6);
    assert_eq!(f.pm1a_control_block, 0x604);
    assert_eq!(f.pm1b_control_block, 0);
    assert_eq!(f.sci_interrupt, 9);
    assert_eq!(f.century_cmos_index, 0x32);
    assert_eq!(f.dsdt, 0x7fe0_0040); // X_DSDT zero -> legacy field
    assert_eq!(f.flags, Fadt::FLAG_RESET_REG_SUP);
    assert_eq!(
        f.reset_register,
        Some(ResetRegister {
            address: GenericAddress {
                address_space: AddressSpace::SystemIo,
                bit_width: 8,
                bit_offset: 0,
                access_size: 1,
                address: 0xcf9
            },
            value: 6
        })
    );
}

#[test]
fn fadt_x_fields_win_when_nonzero() {
    let mut m = image_v2();
    m.put(
        FADT_AT,
        fadt(&FadtSpec {
            x_dsdt: 0x1_0000_0000,
            x_pm1a: (1, 0xb004),
            ..FadtSpec::default()
        }),
    );
    let f = parse_fadt(&m, RSDP_AT).unwrap();
    assert_eq!(f.dsdt, 0x1_0000_0000);
    assert_eq!(f.pm1a_control_block, 0xb004);
}

#[test]
fn fadt_memory_mapped_x_pm1_ignored() {
    let mut m = image_v2();
    m.put(
        FADT_AT,
        fadt(&FadtSpec {
            x_pm1a: (0, 0xfed0_0000),
            ..FadtSpec::default()
        }),
    );
    assert_eq!(parse_fadt(&m, RSDP_AT).unwrap().pm1a_control_block, 0x604);
}

#[test]
fn fadt_acpi_1_0() {
    // 116 bytes: no reset register, no X_ fields, even if the flag is set.
    let mut m = image_v0();
    m.put(
        FADT_AT,
        fadt(&FadtSpec {
            len: 116,
            x_dsdt: 0x1_0000_0000,
            ..FadtSpec::default()
        }),
    );
    let f = parse_fadt(&m, RSDP_AT).unwrap();
    assert_eq!(f.reset_register, None);
    assert_eq!(f.dsdt, 0x7fe0_0040);
    assert_eq!(f.century_cmos_index, 0x32);
    assert_eq!(f.pm1a_control_block, 0x604);
}

#[test]
fn fadt_reset_register_needs_flag() {
    let mut m = image_v2();
    m.put(
        FADT_AT,
        fadt(&FadtSpec {
            flags: 0,
            iapc: Fadt::IAPC_8042,
            ..FadtSpec::default()
        }),
    );
    let f = parse_fadt(&m, RSDP_AT).unwrap();
    assert_eq!(f.reset_register, None);
    assert_eq!(f.iapc_boot_arch, Fadt::IAPC_8042);
}

#[test]
fn fadt_acpi_2_0_length() {
    // ACPI 2.0's 244-byte FADT has everything this crate reads.
    let mut m = image_v2();
    m.put(
        FADT_AT,
        fadt(&FadtSpec {
            len: 244,
            x_dsdt: 0x2000_0000,
            ..FadtSpec::default()
        }),
    );
    let f = parse_fadt(&m, RSDP_AT).unwrap();
    assert_eq!(f.dsdt, 0x2000_0000);
    assert!(f.reset_register.is_some());
}

#[test]
fn truncated_fadt_rejected() {
    let mut m = image_v2();
    m.put(
        FADT_AT,
        fadt(&FadtSpec {
            len: 100,
            ..FadtSpec::default()
        }),
    );
    assert_eq!(
        parse_fadt(&m, RSDP_AT),
        Err(AcpiError::Truncated {
            signature: *b"FACP",
            paddr: FADT_AT,
            length: 100
        })
    );
}

#[test]
fn bad_fadt_checksum_rejected() {
    let mut m = image_v2();
    m.get_mut(FADT_AT)[108] ^= 1;
    assert_eq!(
        parse_fadt(&m, RSDP_AT),
        Err(AcpiError::BadChecksum {
            signature: *b"FACP",
            paddr: FADT_AT
        })
    );
}

#[test]
fn errors_display() {
    let e = AcpiError::BadChecksum {
        signature: [b'A', b'P', 0, b'C'],
        paddr: 0x1000,
    };
    assert_eq!(e.to_string(), "AP\\x00C at 0x1000: checksum mismatch");
    assert_eq!(
        AcpiError::TableNotFound(*b"FACP").to_string(),
        "no FACP table"
    );
}

#[test]
fn fadt_pm_timer() {
    let f = parse_fadt(&image_v2(), RSDP_AT).unwrap();
    assert_eq!(f.pm_timer_port, 0x608);
    assert!(!f.pm_timer_32bit);
    let mut m = image_v2();
    m.put(
        FADT_AT,
        fadt(&FadtSpec { flags: Fadt::FLAG_TMR_VAL_EXT, x_pm_timer: (1, 0xb008), ..FadtSpec::default() }),
    );
    let f = parse_fadt(&m, RSDP_AT).unwrap();
    assert_eq!(f.pm_timer_port, 0xb008);
    assert!(f.pm_timer_32bit);
}

#[test]
fn fadt_pm_timer_absent() {
    let mut m = image_v2();
    // A block length other than 4 means no timer.
    m.put(FADT_AT, fadt(&FadtSpec { pm_timer_len: 0, ..FadtSpec::default() }));
    assert_eq!(parse_fadt(&m, RSDP_AT).unwrap().pm_timer_port, 0);
    // Hardware-reduced platforms have no fixed PM hardware.
    m.put(FADT_AT, fadt(&FadtSpec { flags: Fadt::FLAG_HW_REDUCED_ACPI, ..FadtSpec::default() }));
    assert_eq!(parse_fadt(&m, RSDP_AT).unwrap().pm_timer_port, 0);
    // ACPI 1.0 table: the legacy field only.
    m.put(FADT_AT, fadt(&FadtSpec { len: 116, x_pm_timer: (1, 0xb008), ..FadtSpec::default() }));
    assert_eq!(parse_fadt(&m, RSDP_AT).unwrap().pm_timer_port, 0x608);
}

#[test]
fn hpet_table_decoded() {
    let mut m = image_v2();
    m.put(XSDT_AT, xsdt(&[FADT_AT, MADT_AT, HPET_AT]));
    m.put(HPET_AT, hpet_table(0, 0xfed0_0000));
    let h = parse_hpet(&m, RSDP_AT).unwrap();
    assert_eq!(h.base_address, 0xfed0_0000);
    assert_eq!(h.block_id, 0x8086_a201);
    assert_eq!(h.number, 0);
    assert_eq!(h.min_tick, 128);
}

#[test]
fn hpet_table_missing_or_unusable() {
    let mut m = image_v2();
    assert_eq!(parse_hpet(&m, RSDP_AT), Err(AcpiError::TableNotFound(*b"HPET")));
    m.put(XSDT_AT, xsdt(&[FADT_AT, MADT_AT, HPET_AT]));
    // Registers in I/O space, or at address 0: no usable HPET.
    m.put(HPET_AT, hpet_table(1, 0xfed0_0000));
    assert_eq!(parse_hpet(&m, RSDP_AT), Err(AcpiError::TableNotFound(*b"HPET")));
    m.put(HPET_AT, hpet_table(0, 0));
    assert_eq!(parse_hpet(&m, RSDP_AT), Err(AcpiError::TableNotFound(*b"HPET")));
    // Too short to hold the base address.
    let mut short = hpet_table(0, 0xfed0_0000);
    short.truncate(48);
    short[4..8].copy_from_slice(&48u32.to_le_bytes());
    fix_checksum(&mut short, 9);
    m.put(HPET_AT, short);
    assert!(matches!(parse_hpet(&m, RSDP_AT), Err(AcpiError::Truncated { .. })));
}
