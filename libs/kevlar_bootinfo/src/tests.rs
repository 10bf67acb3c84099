//! Host tests: start-info images are assembled in fake physical memory.

use super::*;
use std::collections::BTreeMap;
use std::string::ToString;

/// Fake physical memory: disjoint blobs at fixed addresses. A read succeeds
/// only if the whole range lies inside one blob.
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

fn cstr(s: &str) -> Vec<u8> {
    let mut v = s.as_bytes().to_vec();
    v.push(0);
    v
}

struct StartInfo {
    magic: u32,
    version: u32,
    nr_modules: u32,
    modlist: u64,
    cmdline: u64,
    rsdp: u64,
    memmap: u64,
    memmap_entries: u32,
}

fn start_info(s: &StartInfo) -> Vec<u8> {
    let mut v = Vec::new();
    v.extend_from_slice(&s.magic.to_le_bytes());
    v.extend_from_slice(&s.version.to_le_bytes());
    v.extend_from_slice(&0u32.to_le_bytes()); // flags
    v.extend_from_slice(&s.nr_modules.to_le_bytes());
    v.extend_from_slice(&s.modlist.to_le_bytes());
    v.extend_from_slice(&s.cmdline.to_le_bytes());
    v.extend_from_slice(&s.rsdp.to_le_bytes());
    if s.version >= 1 {
        v.extend_from_slice(&s.memmap.to_le_bytes());
        v.extend_from_slice(&s.memmap_entries.to_le_bytes());
        v.extend_from_slice(&0u32.to_le_bytes());
    }
    v
}

fn memmap(entries: &[(u64, u64, u32)]) -> Vec<u8> {
    let mut v = Vec::new();
    for &(addr, size, ty) in entries {
        v.extend_from_slice(&addr.to_le_bytes());
        v.extend_from_slice(&size.to_le_bytes());
        v.extend_from_slice(&ty.to_le_bytes());
        v.extend_from_slice(&0u32.to_le_bytes());
    }
    v
}

fn modlist(entries: &[(u64, u64, u64)]) -> Vec<u8> {
    let mut v = Vec::new();
    for &(paddr, size, cmdline) in entries {
        v.extend_from_slice(&paddr.to_le_bytes());
        v.extend_from_slice(&size.to_le_bytes());
        v.extend_from_slice(&cmdline.to_le_bytes());
        v.extend_from_slice(&0u64.to_le_bytes());
    }
    v
}

const INFO_AT: u64 = 0x6000;
const CMDLINE_AT: u64 = 0x7000;
const MEMMAP_AT: u64 = 0x8000;
const MODLIST_AT: u64 = 0x9000;
const MODCMD_AT: u64 = 0x9800;
const RSDP_AT: u64 = 0xf_5a40;
const GIB: u64 = 1 << 30;

/// What QEMU's PVH loader reports for `-m 8G` on the pc machine: low RAM up
/// to the EBDA, the BIOS area, RAM from 1 MiB to 3 GiB, the PCI hole and
/// BIOS flash, and the remaining 5 GiB above 4 GiB. Listed out of order to
/// check that the parser sorts.
fn qemu_map() -> Vec<(u64, u64, u32)> {
    vec![
        (0x1_0000_0000, 5 * GIB, 1),
        (0, 0x9fc00, 1),
        (0x9fc00, 0x400, 2),
        (0xf0000, 0x10000, 2),
        (0x10_0000, 3 * GIB - 0x10_0000, 1),
        (0xfeff_c000, 0x4000, 2),
        (0xfffc_0000, 0x4_0000, 2),
    ]
}

fn qemu_info() -> StartInfo {
    StartInfo {
        magic: START_INFO_MAGIC,
        version: 1,
        nr_modules: 0,
        modlist: 0,
        cmdline: CMDLINE_AT,
        rsdp: RSDP_AT,
        memmap: MEMMAP_AT,
        memmap_entries: qemu_map().len() as u32,
    }
}

fn image(info: &StartInfo, map: &[(u64, u64, u32)], cmdline: &str) -> FakeMem {
    let mut m = FakeMem::default();
    m.put(INFO_AT, start_info(info));
    m.put(CMDLINE_AT, cstr(cmdline));
    m.put(MEMMAP_AT, memmap(map));
    m
}

fn ram_only(ranges: &[(u64, u64)]) -> BootInfo {
    let map: Vec<_> = ranges.iter().map(|&(s, e)| (s, e - s, 1)).collect();
    let info = StartInfo {
        memmap_entries: map.len() as u32,
        ..qemu_info()
    };
    parse_start_info(&image(&info, &map, ""), INFO_AT).unwrap()
}

/// Tiny deterministic PRNG (xorshift64*) for the mutation test.
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

// -------------------------------------------------------------- start info

#[test]
fn qemu_start_info() {
    let m = image(&qemu_info(), &qemu_map(), "console=ttyS0 root=/dev/vda");
    let bi = parse_start_info(&m, INFO_AT).unwrap();
    assert_eq!(bi.rsdp_paddr, RSDP_AT);
    assert_eq!(bi.command_line, "console=ttyS0 root=/dev/vda");
    assert!(bi.modules.is_empty());
    let starts: Vec<u64> = bi.memory_map.iter().map(|r| r.start).collect();
    assert_eq!(
        starts,
        vec![
            0,
            0x9fc00,
            0xf0000,
            0x10_0000,
            0xfeff_c000,
            0xfffc_0000,
            0x1_0000_0000
        ]
    );
    assert_eq!(
        bi.memory_map[1],
        MemoryRegion {
            start: 0x9fc00,
            end: 0xa0000,
            kind: MemoryKind::Reserved
        }
    );
    assert_eq!(
        bi.memory_map[6],
        MemoryRegion {
            start: 4 * GIB,
            end: 9 * GIB,
            kind: MemoryKind::Ram
        }
    );
    assert_eq!(
        bi.usable_ranges().collect::<Vec<_>>(),
        vec![(0, 0x9f000), (0x10_0000, 3 * GIB), (4 * GIB, 9 * GIB)]
    );
}

#[test]
fn bad_magic_rejected() {
    let info = StartInfo {
        magic: 0x1bad_b002,
        ..qemu_info()
    };
    let m = image(&info, &qemu_map(), "");
    assert_eq!(
        parse_start_info(&m, INFO_AT),
        Err(BootInfoError::BadMagic(0x1bad_b002))
    );
}

#[test]
fn version_0_has_no_memory_map() {
    let info = StartInfo {
        version: 0,
        ..qemu_info()
    };
    let m = image(&info, &qemu_map(), "");
    assert_eq!(
        parse_start_info(&m, INFO_AT),
        Err(BootInfoError::NoMemoryMap { version: 0 })
    );
}

#[test]
fn empty_memory_map_rejected() {
    let info = StartInfo {
        memmap_entries: 0,
        ..qemu_info()
    };
    let m = image(&info, &qemu_map(), "");
    assert_eq!(
        parse_start_info(&m, INFO_AT),
        Err(BootInfoError::NoMemoryMap { version: 1 })
    );
    let info = StartInfo {
        memmap: 0,
        ..qemu_info()
    };
    let m = image(&info, &qemu_map(), "");
    assert_eq!(
        parse_start_info(&m, INFO_AT),
        Err(BootInfoError::NoMemoryMap { version: 1 })
    );
}

#[test]
fn later_versions_accepted() {
    // Versions only append fields, so a version 2 structure still parses.
    let info = StartInfo {
        version: 2,
        ..qemu_info()
    };
    let m = image(&info, &qemu_map(), "");
    assert!(parse_start_info(&m, INFO_AT).is_ok());
}

#[test]
fn initrd_module() {
    let initrd_at = 0x3f00_0000;
    let initrd_len = 0x12_3456;
    let info = StartInfo {
        nr_modules: 1,
        modlist: MODLIST_AT,
        ..qemu_info()
    };
    let mut m = image(&info, &qemu_map(), "rdinit=/init");
    m.put(MODLIST_AT, modlist(&[(initrd_at, initrd_len, MODCMD_AT)]));
    m.put(MODCMD_AT, cstr("initrd.cpio"));
    let bi = parse_start_info(&m, INFO_AT).unwrap();
    assert_eq!(
        bi.modules,
        vec![Module {
            start: initrd_at,
            end: initrd_at + initrd_len,
            command_line: "initrd.cpio".to_string()
        }]
    );
}

#[test]
fn modules_without_command_lines() {
    let info = StartInfo {
        nr_modules: 2,
        modlist: MODLIST_AT,
        ..qemu_info()
    };
    let mut m = image(&info, &qemu_map(), "");
    m.put(
        MODLIST_AT,
        modlist(&[(0x200_0000, 0x1000, 0), (0x300_0000, 0, 0)]),
    );
    let bi = parse_start_info(&m, INFO_AT).unwrap();
    assert_eq!(bi.modules.len(), 2);
    assert_eq!(bi.modules[0].command_line, "");
    assert_eq!(bi.modules[1].start, bi.modules[1].end);
}

#[test]
fn module_list_problems_reported() {
    let info = StartInfo {
        nr_modules: 1,
        modlist: 0,
        ..qemu_info()
    };
    let m = image(&info, &qemu_map(), "");
    assert_eq!(
        parse_start_info(&m, INFO_AT),
        Err(BootInfoError::NullModuleList)
    );

    let info = StartInfo {
        nr_modules: 65,
        modlist: MODLIST_AT,
        ..qemu_info()
    };
    let m = image(&info, &qemu_map(), "");
    assert_eq!(
        parse_start_info(&m, INFO_AT),
        Err(BootInfoError::TooManyModules(65))
    );

    // Two modules announced, only one present in memory.
    let info = StartInfo {
        nr_modules: 2,
        modlist: MODLIST_AT,
        ..qemu_info()
    };
    let mut m = image(&info, &qemu_map(), "");
    m.put(MODLIST_AT, modlist(&[(0x200_0000, 0x1000, 0)]));
    assert_eq!(
        parse_start_info(&m, INFO_AT),
        Err(BootInfoError::Unreadable {
            paddr: MODLIST_AT,
            len: 64
        })
    );

    let info = StartInfo {
        nr_modules: 1,
        modlist: MODLIST_AT,
        ..qemu_info()
    };
    let mut m = image(&info, &qemu_map(), "");
    m.put(MODLIST_AT, modlist(&[(u64::MAX - 10, 0x1000, 0)]));
    assert_eq!(
        parse_start_info(&m, INFO_AT),
        Err(BootInfoError::AddressOverflow {
            start: u64::MAX - 10,
            size: 0x1000
        })
    );
}

#[test]
fn too_many_memory_regions_rejected() {
    let info = StartInfo {
        memmap_entries: 1025,
        ..qemu_info()
    };
    let m = image(&info, &qemu_map(), "");
    assert_eq!(
        parse_start_info(&m, INFO_AT),
        Err(BootInfoError::TooManyMemoryRegions(1025))
    );
}

#[test]
fn memory_map_shorter_than_announced_rejected() {
    let info = StartInfo {
        memmap_entries: 8,
        ..qemu_info()
    };
    let m = image(&info, &qemu_map(), "");
    assert_eq!(
        parse_start_info(&m, INFO_AT),
        Err(BootInfoError::Unreadable {
            paddr: MEMMAP_AT,
            len: 8 * 24
        })
    );
}

#[test]
fn overflowing_region_rejected() {
    let map = [(0, 0x9fc00, 1), (u64::MAX - 0xfff, 0x2000, 2)];
    let info = StartInfo {
        memmap_entries: 2,
        ..qemu_info()
    };
    let m = image(&info, &map, "");
    assert_eq!(
        parse_start_info(&m, INFO_AT),
        Err(BootInfoError::AddressOverflow {
            start: u64::MAX - 0xfff,
            size: 0x2000
        })
    );
}

#[test]
fn memory_kinds_and_empty_entries() {
    let map = [
        (0x1000, 0x1000, 3),
        (0x2000, 0x1000, 4),
        (0x3000, 0x1000, 5),
        (0x4000, 0x1000, 7),
        (0x5000, 0, 1), // zero-sized: dropped
    ];
    let info = StartInfo {
        memmap_entries: map.len() as u32,
        ..qemu_info()
    };
    let bi = parse_start_info(&image(&info, &map, ""), INFO_AT).unwrap();
    let kinds: Vec<MemoryKind> = bi.memory_map.iter().map(|r| r.kind).collect();
    assert_eq!(
        kinds,
        vec![
            MemoryKind::AcpiReclaimable,
            MemoryKind::AcpiNvs,
            MemoryKind::Unusable,
            MemoryKind::Other(7)
        ]
    );
    assert_eq!(bi.usable_ranges().count(), 0);
}

#[test]
fn unaligned_ram_rounded_inward() {
    let bi = ram_only(&[
        (0x1234, 0x5678),
        (0x10_0001, 0x20_0fff),
        (0x30_0000, 0x30_0800),
    ]);
    assert_eq!(
        bi.usable_ranges().collect::<Vec<_>>(),
        vec![(0x2000, 0x5000), (0x10_1000, 0x20_0000)]
    );
}

#[test]
fn adjacent_ram_merged_before_rounding() {
    // Split mid-page: each half alone would lose the page at 0x2000.
    let bi = ram_only(&[(0x1000, 0x2800), (0x2800, 0x4000)]);
    assert_eq!(
        bi.usable_ranges().collect::<Vec<_>>(),
        vec![(0x1000, 0x4000)]
    );
    // Overlapping entries merge too.
    let bi = ram_only(&[(0x1000, 0x3000), (0x2000, 0x5000)]);
    assert_eq!(
        bi.usable_ranges().collect::<Vec<_>>(),
        vec![(0x1000, 0x5000)]
    );
}

#[test]
fn reserved_overlap_carved_out_of_ram() {
    let map = [
        (0x10_0000, 0xf0_0000, 1), // RAM 1 MiB .. 16 MiB
        (0x40_0800, 0x1000, 2),    // reserved, unaligned, inside it
        (0xf0_0000, 0x20_0000, 4), // NVS overlapping its end
    ];
    let info = StartInfo {
        memmap_entries: 3,
        ..qemu_info()
    };
    let bi = parse_start_info(&image(&info, &map, ""), INFO_AT).unwrap();
    assert_eq!(
        bi.usable_ranges().collect::<Vec<_>>(),
        vec![(0x10_0000, 0x40_0000), (0x40_2000, 0xf0_0000)]
    );
}

#[test]
fn ram_at_top_of_address_space() {
    let bi = ram_only(&[(u64::MAX - 0x2fff, u64::MAX)]);
    assert_eq!(
        bi.usable_ranges().collect::<Vec<_>>(),
        vec![(u64::MAX - 0x2fff, u64::MAX - 0xfff)]
    );
    let bi = ram_only(&[(u64::MAX - 0x7ff, u64::MAX)]);
    assert_eq!(bi.usable_ranges().count(), 0);
}

#[test]
fn null_command_line_is_empty() {
    let info = StartInfo {
        cmdline: 0,
        ..qemu_info()
    };
    let bi = parse_start_info(&image(&info, &qemu_map(), "ignored"), INFO_AT).unwrap();
    assert_eq!(bi.command_line, "");
}

#[test]
fn command_line_limits() {
    // Far from the other blobs, so a long string fits.
    let at = 0x20_0000;
    let info = StartInfo {
        cmdline: at,
        ..qemu_info()
    };
    let with_cmdline = |s: &str| {
        let mut m = image(&info, &qemu_map(), "");
        m.put(at, cstr(s));
        m
    };
    // Exactly the limit is fine.
    let s = "a".repeat(MAX_COMMAND_LINE);
    let bi = parse_start_info(&with_cmdline(&s), INFO_AT).unwrap();
    assert_eq!(bi.command_line.len(), MAX_COMMAND_LINE);
    // One more byte is too long, even though a NUL follows.
    let s = "a".repeat(MAX_COMMAND_LINE + 1);
    assert_eq!(
        parse_start_info(&with_cmdline(&s), INFO_AT),
        Err(BootInfoError::CommandLineTooLong { paddr: at })
    );
}

#[test]
fn command_line_crossing_pages() {
    // Starts just before a page boundary, so it is read in two chunks.
    let at = 0x1_0ff0;
    let info = StartInfo {
        cmdline: at,
        ..qemu_info()
    };
    let mut m = image(&info, &qemu_map(), "");
    let s = "console=ttyS0,115200 loglevel=7";
    m.put(at, cstr(s));
    assert_eq!(parse_start_info(&m, INFO_AT).unwrap().command_line, s);
}

#[test]
fn unterminated_command_line_unreadable() {
    let mut m = image(&qemu_info(), &qemu_map(), "");
    *m.get_mut(CMDLINE_AT) = b"no terminator".to_vec();
    assert_eq!(
        parse_start_info(&m, INFO_AT),
        Err(BootInfoError::Unreadable {
            paddr: CMDLINE_AT + 13,
            len: 1
        })
    );
}

#[test]
fn non_utf8_command_line_replaced() {
    let mut m = image(&qemu_info(), &qemu_map(), "");
    *m.get_mut(CMDLINE_AT) = b"quiet \xff\0".to_vec();
    assert_eq!(
        parse_start_info(&m, INFO_AT).unwrap().command_line,
        "quiet \u{fffd}"
    );
}

#[test]
fn unreadable_start_info() {
    let m = FakeMem::default();
    assert_eq!(
        parse_start_info(&m, INFO_AT),
        Err(BootInfoError::Unreadable {
            paddr: INFO_AT,
            len: 40
        })
    );
    assert!(matches!(
        parse_start_info(&m, u64::MAX - 8),
        Err(BootInfoError::Unreadable { .. })
    ));
}

#[test]
fn mutated_start_info_never_panics() {
    let info = StartInfo {
        nr_modules: 1,
        modlist: MODLIST_AT,
        ..qemu_info()
    };
    let mut base = image(&info, &qemu_map(), "console=ttyS0");
    base.put(MODLIST_AT, modlist(&[(0x3f00_0000, 0x1000, MODCMD_AT)]));
    base.put(MODCMD_AT, cstr("initrd"));
    let mut rng = Rng(0x5eed_5eed_5eed_5eed);
    for _ in 0..20_000 {
        let mut m = base.clone();
        let target = [INFO_AT, MEMMAP_AT, MODLIST_AT][rng.below(3)];
        let blob = m.get_mut(target);
        for _ in 0..1 + rng.below(4) {
            let i = rng.below(blob.len());
            blob[i] = rng.next() as u8;
        }
        if let Ok(bi) = parse_start_info(&m, INFO_AT) {
            for (s, e) in bi.usable_ranges() {
                assert!(s < e && s % PAGE_SIZE == 0 && e % PAGE_SIZE == 0);
            }
        }
    }
}

#[test]
fn errors_display() {
    assert_eq!(
        BootInfoError::NoMemoryMap { version: 0 }.to_string(),
        "start info version 0 carries no memory map"
    );
    assert_eq!(
        BootInfoError::BadMagic(1).to_string(),
        "start info magic is 0x1, expected 0x336ec578"
    );
}

// ------------------------------------------------------------ command line

#[test]
fn cmdline_basic() {
    let c = CommandLine::parse("console=ttyS0 quiet root=/dev/vda1 ro");
    assert_eq!(c.get("console"), Some("ttyS0"));
    assert_eq!(c.get("root"), Some("/dev/vda1"));
    assert!(c.has("quiet"));
    assert!(c.has("console"));
    assert_eq!(c.get("quiet"), None);
    assert!(!c.has("init"));
    assert_eq!(
        c.iter().collect::<Vec<_>>(),
        vec![
            ("console", Some("ttyS0")),
            ("quiet", None),
            ("root", Some("/dev/vda1")),
            ("ro", None)
        ]
    );
    assert!(c.init_args().is_empty());
}

#[test]
fn cmdline_empty_and_whitespace() {
    assert_eq!(CommandLine::parse("").iter().count(), 0);
    let c = CommandLine::parse(" \t\n a=1 \r\n\tb  ");
    assert_eq!(
        c.iter().collect::<Vec<_>>(),
        vec![("a", Some("1")), ("b", None)]
    );
}

#[test]
fn cmdline_quotes() {
    let c = CommandLine::parse(r#"init="/bin/sh -x" "msg=hello world" x="" y"#);
    assert_eq!(c.get("init"), Some("/bin/sh -x"));
    assert_eq!(c.get("msg"), Some("hello world"));
    assert_eq!(c.get("x"), Some(""));
    assert!(c.has("y"));
    // An unterminated quote runs to the end.
    let c = CommandLine::parse(r#"a=1 b="two three"#);
    assert_eq!(c.get("b"), Some("two three"));
    // A lone pair of quotes names nothing.
    assert_eq!(CommandLine::parse(r#"a "" b"#).iter().count(), 2);
}

#[test]
fn cmdline_values_with_equals() {
    let c = CommandLine::parse("root=PARTUUID=1234-5678 opt==x empty=");
    assert_eq!(c.get("root"), Some("PARTUUID=1234-5678"));
    assert_eq!(c.get("opt"), Some("=x"));
    assert_eq!(c.get("empty"), Some(""));
}

#[test]
fn cmdline_last_one_wins() {
    let c = CommandLine::parse("console=tty0 console=ttyS0 loglevel=4 loglevel loglevel=7 x=1 x");
    assert_eq!(c.get("console"), Some("ttyS0"));
    assert_eq!(c.get("loglevel"), Some("7"));
    // A later bare word does not erase an earlier value.
    assert_eq!(c.get("x"), Some("1"));
    assert_eq!(c.iter().filter(|(k, _)| *k == "console").count(), 2);
}

#[test]
fn cmdline_dash_underscore_equivalent() {
    let c = CommandLine::parse("no-hz=off foo_bar");
    assert_eq!(c.get("no_hz"), Some("off"));
    assert!(c.has("foo-bar"));
    assert!(!c.has("foobar"));
}

#[test]
fn cmdline_init_args() {
    let c = CommandLine::parse(r#"console=ttyS0 init=/sbin/init -- single "a b" x=y --"#);
    assert_eq!(c.get("init"), Some("/sbin/init"));
    assert!(!c.has("single"));
    assert_eq!(c.init_args(), ["single", "a b", "x=y", "--"]);
    // Nothing after `--`.
    let c = CommandLine::parse("quiet --");
    assert!(c.has("quiet"));
    assert!(c.init_args().is_empty());
    // A quoted "--" is an ordinary word, not the separator.
    let c = CommandLine::parse(r#"a "--" b"#);
    assert!(c.has("--") && c.has("b"));
    assert!(c.init_args().is_empty());
    // `--x` is not the separator either.
    let c = CommandLine::parse("--x y");
    assert!(c.has("--x") && c.has("y"));
}

#[test]
fn cmdline_for_init() {
    let c = CommandLine::parse(r#"console=ttyS0 LANG=C single quiet FOO=1 systemd.unit=rescue.target FOO=2 emergency init=/bin/sh -- -s x=y"#);
    let (env, args) = c.for_init(&["console", "quiet", "init"]);
    assert_eq!(env, ["LANG=C", "FOO=2"]);
    assert_eq!(args, ["single", "emergency", "-s", "x=y"]);
    // `-` and `_` match in the known names, as in lookups.
    let (env, args) = CommandLine::parse("no-hz=off a_b").for_init(&["no_hz", "a-b"]);
    assert!(env.is_empty() && args.is_empty());
    // An empty value is still an environment entry.
    let (env, _) = CommandLine::parse("EMPTY=").for_init(&[]);
    assert_eq!(env, ["EMPTY="]);
}

#[test]
fn cmdline_from_boot_info() {
    let m = image(&qemu_info(), &qemu_map(), "console=ttyS0 -- -s");
    let bi = parse_start_info(&m, INFO_AT).unwrap();
    let c = CommandLine::parse(&bi.command_line);
    assert_eq!(c.get("console"), Some("ttyS0"));
    assert_eq!(c.init_args(), ["-s"]);
}
