//! ELF parsing: real binaries (the checked-in musl fixtures, and Debian's
//! BusyBox, ls and dynamic loader when present) and hand-built or corrupted
//! headers.

use kevlar_elf::*;

const STATIC: &[u8] = include_bytes!("fixtures/hello-static");
const STATIC_PIE: &[u8] = include_bytes!("fixtures/hello-static-pie");

const PT_LOAD: u32 = 1;
const PT_INTERP: u32 = 3;
const PT_PHDR: u32 = 6;
const PT_TLS: u32 = 7;
const PT_GNU_STACK: u32 = 0x6474_e551;
const R: u32 = 4;
const W: u32 = 2;
const X: u32 = 1;

#[derive(Clone, Copy)]
struct Ph {
    p_type: u32,
    flags: u32,
    offset: u64,
    vaddr: u64,
    filesz: u64,
    memsz: u64,
    align: u64,
}

fn load(flags: u32, offset: u64, vaddr: u64, filesz: u64, memsz: u64) -> Ph {
    Ph { p_type: PT_LOAD, flags, offset, vaddr, filesz, memsz, align: 0x1000 }
}

/// A 64-byte ELF header followed by the program headers, padded with
/// zeros to `file_len` (at least the headers' size).
fn elf(e_type: u16, entry: u64, phs: &[Ph], file_len: usize) -> Vec<u8> {
    let mut v = Vec::new();
    v.extend_from_slice(b"\x7fELF\x02\x01\x01\x00");
    v.extend_from_slice(&[0; 8]);
    v.extend_from_slice(&e_type.to_le_bytes());
    v.extend_from_slice(&62u16.to_le_bytes());
    v.extend_from_slice(&1u32.to_le_bytes());
    v.extend_from_slice(&entry.to_le_bytes());
    v.extend_from_slice(&64u64.to_le_bytes()); // e_phoff
    v.extend_from_slice(&0u64.to_le_bytes()); // e_shoff
    v.extend_from_slice(&0u32.to_le_bytes()); // e_flags
    v.extend_from_slice(&64u16.to_le_bytes()); // e_ehsize
    v.extend_from_slice(&56u16.to_le_bytes());
    v.extend_from_slice(&(phs.len() as u16).to_le_bytes());
    v.extend_from_slice(&[0; 6]); // e_shentsize, e_shnum, e_shstrndx
    assert_eq!(v.len(), 64);
    for p in phs {
        v.extend_from_slice(&p.p_type.to_le_bytes());
        v.extend_from_slice(&p.flags.to_le_bytes());
        v.extend_from_slice(&p.offset.to_le_bytes());
        v.extend_from_slice(&p.vaddr.to_le_bytes());
        v.extend_from_slice(&p.vaddr.to_le_bytes());
        v.extend_from_slice(&p.filesz.to_le_bytes());
        v.extend_from_slice(&p.memsz.to_le_bytes());
        v.extend_from_slice(&p.align.to_le_bytes());
    }
    if v.len() < file_len {
        v.resize(file_len, 0);
    }
    v
}

/// A minimal valid ET_EXEC: headers and code in one R+X segment at
/// 0x400000, data in an RW segment.
fn minimal(extra: &[Ph]) -> Vec<u8> {
    let mut phs = vec![load(R | X, 0, 0x40_0000, 0x1000, 0x1000), load(R | W, 0x1000, 0x40_1000, 0x100, 0x2000)];
    phs.extend_from_slice(extra);
    elf(2, 0x40_0100, &phs, 0x2000)
}

fn set_u16(v: &mut [u8], off: usize, x: u16) {
    v[off..off + 2].copy_from_slice(&x.to_le_bytes());
}
fn set_u64(v: &mut [u8], off: usize, x: u64) {
    v[off..off + 8].copy_from_slice(&x.to_le_bytes());
}

#[test]
fn static_exec_fixture() {
    assert!(STATIC.len() < 20 * 1024);
    let plan = parse(STATIC).unwrap();
    assert_eq!(plan.kind, ElfKind::Exec);
    assert_eq!(plan.entry, 0x40_105d);
    assert_eq!(plan.interpreter, None);
    assert_eq!((plan.phent, plan.phnum), (56, 7));
    // No PT_PHDR: found through the first segment, which maps offset 0.
    assert_eq!(plan.phdr_vaddr, Some(0x40_0040));
    let perms: Vec<(bool, bool, bool)> = plan.segments.iter().map(|s| (s.readable, s.writable, s.executable)).collect();
    assert_eq!(perms, [(true, false, false), (true, false, true), (true, false, false), (true, true, false)]);
    let data = plan.segments[3];
    assert_eq!((data.vaddr, data.file_offset, data.file_size, data.mem_size), (0x40_3fcc, 0x2fcc, 0x44, 0x2ac));
    assert_eq!(data.align, 0x1000);
    assert_eq!(plan.tls, Some(TlsTemplate { vaddr: 0x40_3fcc, file_size: 4, mem_size: 4, align: 4 }));
    assert!(!plan.stack_executable);
    assert_eq!((plan.min_vaddr, plan.max_vaddr), (0x40_0000, 0x40_5000));
    assert_eq!(plan.span(), 0x5000);
    // Fixed addresses cannot move.
    assert_eq!(plan.with_bias(0x1000), Err(ElfError::NotRelocatable));
    assert_eq!(plan.with_bias(0).unwrap(), plan);
    // Every segment's file bytes are inside the image.
    for s in &plan.segments {
        assert!(s.file_offset + s.file_size <= STATIC.len() as u64);
    }
}

#[test]
fn static_pie_fixture() {
    assert!(STATIC_PIE.len() < 20 * 1024);
    let plan = parse(STATIC_PIE).unwrap();
    assert_eq!(plan.kind, ElfKind::Dyn);
    assert_eq!(plan.entry, 0x105d);
    assert_eq!(plan.interpreter, None);
    assert_eq!(plan.phnum, 8);
    assert_eq!(plan.phdr_vaddr, Some(0x40));
    assert_eq!(plan.segments.len(), 4);
    assert_eq!(plan.tls.map(|t| t.vaddr), Some(0x3eac));
    assert_eq!((plan.min_vaddr, plan.max_vaddr), (0, 0x5000));
    assert_eq!(plan.max_align(), 0x1000);

    let moved = plan.with_bias(DEFAULT_PIE_BASE).unwrap();
    assert_eq!(moved.entry, DEFAULT_PIE_BASE + 0x105d);
    assert_eq!(moved.phdr_vaddr, Some(DEFAULT_PIE_BASE + 0x40));
    assert_eq!(moved.tls.unwrap().vaddr, DEFAULT_PIE_BASE + 0x3eac);
    assert_eq!((moved.min_vaddr, moved.max_vaddr), (DEFAULT_PIE_BASE, DEFAULT_PIE_BASE + 0x5000));
    for (a, b) in plan.segments.iter().zip(&moved.segments) {
        assert_eq!(b.vaddr, a.vaddr + DEFAULT_PIE_BASE);
        assert_eq!((a.file_offset, a.file_size, a.mem_size), (b.file_offset, b.file_size, b.mem_size));
    }
    assert!(plan.with_bias(DEFAULT_INTERP_BASE).is_ok());
    assert_eq!(plan.with_bias(DEFAULT_PIE_BASE + 1), Err(ElfError::BadBias));
    assert_eq!(plan.with_bias(USER_END - 0x4000), Err(ElfError::BadBias));
    assert_eq!(plan.with_bias(u64::MAX & !0xfff), Err(ElfError::BadBias));
    assert!(plan.with_bias(USER_END - 0x5000).is_ok());
}

#[test]
fn debian_busybox_if_present() {
    let Ok(image) = std::fs::read("/bin/busybox") else {
        eprintln!("/bin/busybox absent: skipped");
        return;
    };
    let plan = parse(&image).unwrap();
    assert_eq!(plan.phent, 56);
    assert!(plan.segments.iter().any(|s| s.executable));
    assert!(plan.phdr_vaddr.is_some());
    assert!(plan.segments.iter().any(|s| s.vaddr <= plan.entry && plan.entry < s.end()));
    assert!(plan.max_vaddr <= USER_END);
    if plan.kind == ElfKind::Exec {
        assert!(plan.interpreter.is_none(), "Debian's busybox is static");
    }
}

#[test]
fn debian_dynamic_pie_and_loader_if_present() {
    if let Ok(image) = std::fs::read("/bin/ls") {
        let plan = parse(&image).unwrap();
        if plan.interpreter.is_some() {
            assert_eq!(plan.interpreter.as_deref(), Some("/lib64/ld-linux-x86-64.so.2"));
            assert_eq!(plan.kind, ElfKind::Dyn);
            // PT_PHDR and the segment holding e_phoff agree on glibc builds.
            assert_eq!(plan.phdr_vaddr, Some(0x40));
        }
    }
    if let Ok(image) = std::fs::read("/lib64/ld-linux-x86-64.so.2") {
        let plan = parse(&image).unwrap();
        assert_eq!(plan.kind, ElfKind::Dyn);
        assert_eq!(plan.interpreter, None);
        assert!(plan.with_bias(DEFAULT_INTERP_BASE).is_ok());
    }
}

#[test]
fn minimal_synthetic_file() {
    let plan = parse(&minimal(&[])).unwrap();
    assert_eq!(plan.segments.len(), 2);
    assert_eq!(plan.phdr_vaddr, Some(0x40_0040));
    assert_eq!((plan.min_vaddr, plan.max_vaddr), (0x40_0000, 0x40_3000));
}

#[test]
fn truncated_files() {
    for len in 0..64 {
        assert_eq!(parse(&STATIC[..len]), Err(ElfError::TooShort), "len {len}");
    }
    // Inside the program-header table.
    for len in [64, 100, 64 + 7 * 56 - 1] {
        assert_eq!(parse(&STATIC[..len]), Err(ElfError::ProgramHeadersOutOfBounds), "len {len}");
    }
    // Cutting into the last segment's file bytes.
    assert_eq!(parse(&STATIC[..0x2fcc + 0x20]), Err(ElfError::SegmentOutOfFile { index: 3 }));
    // Every prefix fails or (only when nothing is cut off that matters)
    // succeeds, and never panics.
    for len in 0..STATIC.len() {
        let _ = parse(&STATIC[..len]);
    }
}

#[test]
fn identification_errors() {
    let mut v = STATIC.to_vec();
    v[1] = b'e';
    assert_eq!(parse(&v), Err(ElfError::BadMagic));
    let mut v = STATIC.to_vec();
    v[4] = 1;
    assert_eq!(parse(&v), Err(ElfError::BadClass(1)));
    let mut v = STATIC.to_vec();
    v[5] = 2;
    assert_eq!(parse(&v), Err(ElfError::BadEndianness(2)));
    let mut v = STATIC.to_vec();
    v[6] = 0;
    assert_eq!(parse(&v), Err(ElfError::BadVersion));
    let mut v = STATIC.to_vec();
    v[20] = 2;
    assert_eq!(parse(&v), Err(ElfError::BadVersion));
    for t in [0u16, 1, 4, 0xfe00] {
        let mut v = STATIC.to_vec();
        set_u16(&mut v, 16, t);
        assert_eq!(parse(&v), Err(ElfError::UnsupportedType(t)));
    }
    for m in [3u16, 40, 183] {
        let mut v = STATIC.to_vec();
        set_u16(&mut v, 18, m);
        assert_eq!(parse(&v), Err(ElfError::WrongMachine(m)));
    }
}

#[test]
fn program_header_table_errors() {
    let mut v = STATIC.to_vec();
    set_u16(&mut v, 54, 32);
    assert_eq!(parse(&v), Err(ElfError::BadPhentsize(32)));
    let mut v = STATIC.to_vec();
    set_u16(&mut v, 56, 0);
    assert_eq!(parse(&v), Err(ElfError::NoProgramHeaders));
    for n in [129u16, 1000, 0xffff] {
        let mut v = STATIC.to_vec();
        set_u16(&mut v, 56, n);
        assert_eq!(parse(&v), Err(ElfError::TooManyProgramHeaders(n)));
    }
    for off in [u64::MAX, u64::MAX - 100, STATIC.len() as u64 - 100, 1 << 40] {
        let mut v = STATIC.to_vec();
        set_u64(&mut v, 32, off);
        assert_eq!(parse(&v), Err(ElfError::ProgramHeadersOutOfBounds), "phoff {off:#x}");
    }
    // 128 headers are fine (the padding ones are PT_NULL).
    let mut phs = vec![load(R | X, 0, 0x40_0000, 0x3000, 0x3000)];
    phs.resize(128, Ph { p_type: 0, flags: 0, offset: 0, vaddr: 0, filesz: 0, memsz: 0, align: 0 });
    assert_eq!(parse(&elf(2, 0x40_0100, &phs, 0x3000)).unwrap().phnum, 128);
}

#[test]
fn overlapping_segments() {
    let v = minimal(&[load(R, 0x1000, 0x40_2000, 0x10, 0x10)]);
    // The RW segment spans 0x401000..0x403000, so 0x402000 overlaps it.
    assert_eq!(parse(&v), Err(ElfError::OverlappingSegments { first: 1, second: 2 }));
    // Out of order in the table: still found, named by header index.
    let v = elf(
        2,
        0x40_0100,
        &[load(R, 0x800, 0x40_1800, 0x10, 0x10), load(R | X, 0, 0x40_0000, 0x1000, 0x2000)],
        0x2000,
    );
    assert_eq!(parse(&v), Err(ElfError::OverlappingSegments { first: 1, second: 0 }));
    // Same start.
    let v = minimal(&[load(R, 0, 0x40_0000, 0x10, 0x10)]);
    assert!(matches!(parse(&v), Err(ElfError::OverlappingSegments { .. })));
}

#[test]
fn adjacent_segments_may_share_a_page() {
    // Second segment starts right where the first ends, mid-page.
    let v = elf(
        2,
        0x40_0100,
        &[load(R | X, 0, 0x40_0000, 0x800, 0x800), load(R | W, 0x800, 0x40_0800, 0x100, 0x100)],
        0x1000,
    );
    let plan = parse(&v).unwrap();
    assert_eq!(plan.segments.len(), 2);
    assert_eq!((plan.min_vaddr, plan.max_vaddr), (0x40_0000, 0x40_1000));
}

#[test]
fn segment_value_errors() {
    // p_filesz > p_memsz.
    let v = minimal(&[load(R, 0x1000, 0x50_0000, 0x200, 0x100)]);
    assert_eq!(parse(&v), Err(ElfError::FileSizeExceedsMemSize { index: 2 }));
    // File range past the end, and offset + size overflowing.
    let v = minimal(&[load(R, 0x1000, 0x50_0000, 0x2000, 0x2000)]);
    assert_eq!(parse(&v), Err(ElfError::SegmentOutOfFile { index: 2 }));
    let v = minimal(&[load(R, u64::MAX - 0xfff, 0x50_0000, 0x2000, 0x2000)]);
    assert_eq!(parse(&v), Err(ElfError::SegmentOutOfFile { index: 2 }));
    // vaddr + memsz overflows.
    let v = minimal(&[load(R, 0, 0xffff_ffff_ffff_f000, 0, 0x2000)]);
    assert_eq!(parse(&v), Err(ElfError::AddressOverflow { index: 2 }));
    let v = minimal(&[load(R, 0, 0x50_0000, 0, u64::MAX)]);
    assert_eq!(parse(&v), Err(ElfError::AddressOverflow { index: 2 }));
    // Rounding up to a page would overflow.
    let v = minimal(&[load(R, 0x1000, 0xffff_ffff_ffff_f000, 0, 0xfff)]);
    assert_eq!(parse(&v), Err(ElfError::AddressOverflow { index: 2 }));
    // Kernel half, the non-canonical hole, and the page below it.
    for vaddr in [0xffff_8000_0000_0000u64, 0xffff_ffff_8000_0000, 0x0000_8000_0000_0000, 0x0000_7fff_ffff_f000] {
        let v = minimal(&[load(R, 0, vaddr, 0, 0x10)]);
        assert_eq!(parse(&v), Err(ElfError::AddressOutOfRange { index: 2 }), "{vaddr:#x}");
    }
    // Crossing USER_END by one byte; ending exactly there is fine.
    let v = minimal(&[load(R, 0, USER_END - 0x1000, 0, 0x1001)]);
    assert_eq!(parse(&v), Err(ElfError::AddressOutOfRange { index: 2 }));
    let v = minimal(&[load(R, 0, USER_END - 0x1000, 0, 0x1000)]);
    assert_eq!(parse(&v).unwrap().max_vaddr, USER_END);
    // Address and offset not congruent modulo the page size.
    let v = minimal(&[load(R, 0x10, 0x50_0020, 0x10, 0x10)]);
    assert_eq!(parse(&v), Err(ElfError::MisalignedSegment { index: 2 }));
    // Alignment not a power of two.
    let mut p = load(R, 0x1000, 0x50_0000, 0x10, 0x10);
    p.align = 0x3000;
    assert_eq!(parse(&minimal(&[p])), Err(ElfError::BadAlignment { index: 2 }));
    p.align = 0;
    assert!(parse(&minimal(&[p])).is_ok());
}

#[test]
fn entry_and_empty_segments() {
    let mut v = minimal(&[]);
    set_u64(&mut v, 24, 0x50_0000);
    assert_eq!(parse(&v), Err(ElfError::EntryOutsideSegments));
    set_u64(&mut v, 24, 0x40_3000); // one past the data segment's end
    assert_eq!(parse(&v), Err(ElfError::EntryOutsideSegments));

    // Zero-size PT_LOADs map nothing and are dropped.
    let v = minimal(&[load(R, 0, 0x60_0000, 0, 0)]);
    assert_eq!(parse(&v).unwrap().segments.len(), 2);
    let v = elf(2, 0, &[load(R, 0, 0, 0, 0)], 0x100);
    assert_eq!(parse(&v), Err(ElfError::NoLoadableSegments));
    let v = elf(2, 0, &[Ph { p_type: PT_GNU_STACK, flags: R | W, offset: 0, vaddr: 0, filesz: 0, memsz: 0, align: 16 }], 0x100);
    assert_eq!(parse(&v), Err(ElfError::NoLoadableSegments));
}

fn interp(offset: u64, len: u64) -> Ph {
    Ph { p_type: PT_INTERP, flags: R, offset, vaddr: 0x40_0000 + offset, filesz: len, memsz: len, align: 1 }
}

fn with_interp_text(text: &[u8], len: u64) -> Vec<u8> {
    let mut v = minimal(&[interp(0x800, len)]);
    v[0x800..0x800 + text.len()].copy_from_slice(text);
    v
}

#[test]
fn interpreter() {
    let name = b"/lib/ld-musl-x86_64.so.1\0";
    let plan = parse(&with_interp_text(name, name.len() as u64)).unwrap();
    assert_eq!(plan.interpreter.as_deref(), Some("/lib/ld-musl-x86_64.so.1"));
    // Not NUL-terminated.
    assert_eq!(parse(&with_interp_text(b"/lib/ld.so", 10)), Err(ElfError::BadInterpreter));
    // Too short, empty, too long.
    assert_eq!(parse(&with_interp_text(b"\0", 1)), Err(ElfError::BadInterpreter));
    assert_eq!(parse(&with_interp_text(b"\0\0", 2)), Err(ElfError::BadInterpreter));
    let mut big = minimal(&[interp(0x100, PATH_MAX as u64 + 1)]);
    big.resize(0x2000 + PATH_MAX, 0);
    big[0x100 + PATH_MAX] = 0;
    big[0x100] = b'/';
    assert_eq!(parse(&big), Err(ElfError::BadInterpreter));
    // A NUL inside ends the name, as in C.
    let plan = parse(&with_interp_text(b"/lib/ld.so\0junk\0", 16)).unwrap();
    assert_eq!(plan.interpreter.as_deref(), Some("/lib/ld.so"));
    // Not UTF-8.
    assert_eq!(parse(&with_interp_text(b"/lib/\xff\0", 7)), Err(ElfError::BadInterpreter));
    // Outside the file.
    let v = minimal(&[interp(0x1ff0, 0x20)]);
    assert_eq!(parse(&v), Err(ElfError::SegmentOutOfFile { index: 2 }));
    // Only the first PT_INTERP counts.
    let mut v = minimal(&[interp(0x800, 4), interp(0x900, 4)]);
    v[0x800..0x804].copy_from_slice(b"/a1\0");
    v[0x900..0x904].copy_from_slice(b"/b2x"); // malformed, but ignored
    assert_eq!(parse(&v).unwrap().interpreter.as_deref(), Some("/a1"));
}

#[test]
fn tls_and_stack_flags() {
    let tls = |filesz, memsz, align| Ph { p_type: PT_TLS, flags: R, offset: 0x1000, vaddr: 0x40_1000, filesz, memsz, align };
    let plan = parse(&minimal(&[tls(0x10, 0x40, 16)])).unwrap();
    assert_eq!(plan.tls, Some(TlsTemplate { vaddr: 0x40_1000, file_size: 0x10, mem_size: 0x40, align: 16 }));
    assert_eq!(parse(&minimal(&[tls(0x40, 0x10, 16)])), Err(ElfError::BadTls));
    assert_eq!(parse(&minimal(&[tls(0x10, 0x40, 24)])), Err(ElfError::BadTls));
    assert_eq!(parse(&minimal(&[tls(0x10, u64::MAX, 16)])), Err(ElfError::BadTls));
    assert_eq!(parse(&minimal(&[tls(0x10000, 0x10000, 16)])), Err(ElfError::BadTls));

    let stack = |flags| Ph { p_type: PT_GNU_STACK, flags, offset: 0, vaddr: 0, filesz: 0, memsz: 0, align: 16 };
    assert!(!parse(&minimal(&[])).unwrap().stack_executable);
    assert!(!parse(&minimal(&[stack(R | W)])).unwrap().stack_executable);
    assert!(parse(&minimal(&[stack(R | W | X)])).unwrap().stack_executable);
}

#[test]
fn phdr_address_sources() {
    // The headers are not in any segment's file range (the only segment
    // starts at offset 0x1000): PT_PHDR is used if it points into a segment.
    let phdr = |vaddr| Ph { p_type: PT_PHDR, flags: R, offset: 64, vaddr, filesz: 112, memsz: 112, align: 8 };
    let v = elf(2, 0x40_1000, &[load(R | X, 0x1000, 0x40_1000, 0x100, 0x100), phdr(0x40_1010)], 0x2000);
    assert_eq!(parse(&v).unwrap().phdr_vaddr, Some(0x40_1010));
    let v = elf(2, 0x40_1000, &[load(R | X, 0x1000, 0x40_1000, 0x100, 0x100), phdr(0x50_0000)], 0x2000);
    assert_eq!(parse(&v).unwrap().phdr_vaddr, None);
    let v = elf(2, 0x40_1000, &[load(R | X, 0x1000, 0x40_1000, 0x100, 0x100)], 0x2000);
    assert_eq!(parse(&v).unwrap().phdr_vaddr, None);
    // When a segment holds the headers, that wins over PT_PHDR (as in Linux).
    let v = elf(2, 0x40_0100, &[load(R | X, 0, 0x40_0000, 0x1000, 0x1000), phdr(0x40_0800)], 0x1000);
    assert_eq!(parse(&v).unwrap().phdr_vaddr, Some(0x40_0040));
}

#[test]
fn huge_alignment_for_pie_base() {
    let mut p = load(R | X, 0, 0, 0x1000, 0x1000);
    p.align = 0x20_0000;
    let plan = parse(&elf(3, 0x100, &[p], 0x1000)).unwrap();
    assert_eq!(plan.max_align(), 0x20_0000);
}

#[test]
fn corrupted_headers_never_panic() {
    // Flip every byte of the ELF and program headers of both fixtures in a
    // few ways; each result must be an Ok plan that passes the invariants
    // or an error.
    for image in [STATIC, STATIC_PIE] {
        let phend = 64 + 8 * 56;
        for i in 0..phend {
            for x in [0x01u8, 0x80, 0xff, 0x10] {
                let mut v = image.to_vec();
                v[i] ^= x;
                if let Ok(plan) = parse(&v) {
                    check_invariants(&plan, v.len());
                }
            }
        }
    }
}

fn check_invariants(plan: &LoadPlan, len: usize) {
    assert!(!plan.segments.is_empty());
    assert!(plan.max_vaddr <= USER_END);
    assert!(plan.min_vaddr < plan.max_vaddr);
    for s in &plan.segments {
        assert!(s.file_size <= s.mem_size && s.mem_size > 0);
        assert!(s.file_offset.checked_add(s.file_size).unwrap() <= len as u64);
        assert!(plan.min_vaddr <= s.vaddr && s.end() <= plan.max_vaddr);
        assert_eq!(s.vaddr % PAGE_SIZE, s.file_offset % PAGE_SIZE);
    }
    for w in plan.segments.windows(2) {
        assert!(w[0].end() <= w[1].vaddr);
    }
    assert!(plan.segments.iter().any(|s| s.vaddr <= plan.entry && plan.entry < s.end()));
}

#[test]
fn errno_values() {
    assert_eq!(ElfError::BadMagic.errno(), ENOEXEC);
    assert_eq!(ElfError::ArgumentListTooLong.errno(), E2BIG);
    assert_eq!(ElfError::OutOfMemory.errno(), ENOMEM);
    assert_eq!(ElfError::BadBias.errno(), EINVAL);
    assert_eq!(format!("{}", ElfError::OverlappingSegments { first: 1, second: 2 }), "segments 1 and 2 overlap");
}

#[test]
fn parse_prefix_matches_parse_and_asks_for_more() {
    for image in [STATIC, STATIC_PIE] {
        let whole = parse(image).unwrap();
        // The first page holds the headers of these small programs.
        assert_eq!(parse_prefix(&image[..4096], image.len() as u64).unwrap(), whole);
        // Too short a prefix: told how much to read, then it works.
        let need = match parse_prefix(&image[..100], image.len() as u64) {
            Err(ElfError::NeedBytes(n)) => n,
            other => panic!("expected NeedBytes, got {:?}", other),
        };
        assert!(need > 100 && need <= 4096);
        assert_eq!(parse_prefix(&image[..need], image.len() as u64).unwrap(), whole);
    }
    // Segment bounds are checked against the real file length.
    assert!(matches!(parse_prefix(&STATIC[..4096], 4096), Err(ElfError::SegmentOutOfFile { .. })));
    assert_eq!(parse_prefix(&STATIC[..10], 10), Err(ElfError::TooShort));
    // An interpreter name past the prefix is asked for.
    let interp = Ph { p_type: PT_INTERP, flags: R, offset: 0x1800, vaddr: 0x40_0800, filesz: 9, memsz: 9, align: 1 };
    let mut image = minimal(&[interp]);
    image[0x1800..0x1809].copy_from_slice(b"/lib/ld\0\0");
    assert_eq!(parse_prefix(&image[..0x1000], image.len() as u64), Err(ElfError::NeedBytes(0x1809)));
    assert_eq!(parse_prefix(&image, image.len() as u64).unwrap().interpreter.as_deref(), Some("/lib/ld"));
}
