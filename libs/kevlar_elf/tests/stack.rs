//! The initial stack: built, then decoded back the way a C library's start
//! code reads it, with Linux's layout and alignment rules checked.

use kevlar_elf::*;

const TOP: u64 = 0x7fff_ffff_f000;
const RANDOM: [u8; 16] = *b"0123456789abcdef";

/// Reads the built image as process memory.
struct Mem<'a> {
    s: &'a InitialStack,
    top: u64,
}

impl Mem<'_> {
    fn index(&self, addr: u64, len: u64) -> usize {
        assert!(addr >= self.s.sp && addr + len <= self.top, "{addr:#x} outside the stack");
        (addr - self.s.sp) as usize
    }
    fn word(&self, addr: u64) -> u64 {
        let i = self.index(addr, 8);
        u64::from_le_bytes(self.s.bytes[i..i + 8].try_into().unwrap())
    }
    fn cstr(&self, addr: u64) -> Vec<u8> {
        let i = self.index(addr, 1);
        let len = self.s.bytes[i..].iter().position(|&b| b == 0).expect("unterminated string");
        self.s.bytes[i..i + len].to_vec()
    }
    fn bytes(&self, addr: u64, len: u64) -> Vec<u8> {
        let i = self.index(addr, len);
        self.s.bytes[i..i + len as usize].to_vec()
    }
}

struct Decoded {
    argv: Vec<Vec<u8>>,
    envp: Vec<Vec<u8>>,
    auxv: Vec<(u64, u64)>,
    auxv_end: u64,
}

/// Decodes starting at sp only, as `_start` would.
fn decode(s: &InitialStack, top: u64) -> Decoded {
    let m = Mem { s, top };
    assert_eq!(s.bytes.len() as u64, top - s.sp);
    let argc = m.word(s.sp);
    let mut p = s.sp + 8;
    assert_eq!(p, s.argv_ptr);
    let mut argv = Vec::new();
    for _ in 0..argc {
        argv.push(m.cstr(m.word(p)));
        p += 8;
    }
    assert_eq!(m.word(p), 0, "argv not NULL-terminated");
    p += 8;
    assert_eq!(p, s.envp_ptr);
    let mut envp = Vec::new();
    while m.word(p) != 0 {
        envp.push(m.cstr(m.word(p)));
        p += 8;
    }
    p += 8;
    assert_eq!(p, s.auxv_ptr);
    let mut auxv = Vec::new();
    loop {
        let (k, v) = (m.word(p), m.word(p + 8));
        p += 16;
        auxv.push((k, v));
        if k == AT_NULL {
            break;
        }
    }
    Decoded { argv, envp, auxv, auxv_end: p }
}

fn get(auxv: &[(u64, u64)], key: u64) -> Option<u64> {
    auxv.iter().find(|(k, _)| *k == key).map(|(_, v)| *v)
}

fn build(argv: &[&[u8]], envp: &[&[u8]]) -> InitialStack {
    let auxv = [(AT_PHDR, 0x40_0040), (AT_PHENT, 56), (AT_PHNUM, 7), (AT_PAGESZ, 4096), (AT_ENTRY, 0x40_105d)];
    build_initial_stack(TOP, argv, envp, &auxv, RANDOM, b"x86_64", b"/bin/prog").unwrap()
}

#[test]
fn round_trip() {
    let argv: [&[u8]; 3] = [b"/bin/sh", b"-c", b"echo hi"];
    let envp: [&[u8]; 2] = [b"PATH=/bin:/usr/bin", b"HOME=/"];
    let s = build(&argv, &envp);
    let d = decode(&s, TOP);
    assert_eq!(d.argv, argv.map(<[u8]>::to_vec));
    assert_eq!(d.envp, envp.map(<[u8]>::to_vec));
    assert_eq!(s.sp % 16, 0);

    // The caller's entries first, in order, then the builder's, then AT_NULL.
    let keys: Vec<u64> = d.auxv.iter().map(|(k, _)| *k).collect();
    assert_eq!(keys, [AT_PHDR, AT_PHENT, AT_PHNUM, AT_PAGESZ, AT_ENTRY, AT_RANDOM, AT_EXECFN, AT_PLATFORM, AT_NULL]);
    assert_eq!(get(&d.auxv, AT_PHDR), Some(0x40_0040));
    assert_eq!(d.auxv.last(), Some(&(AT_NULL, 0)));

    let m = Mem { s: &s, top: TOP };
    let random = get(&d.auxv, AT_RANDOM).unwrap();
    assert_eq!(random, s.random_ptr);
    assert_eq!(m.bytes(random, 16), RANDOM);
    let execfn = get(&d.auxv, AT_EXECFN).unwrap();
    assert_eq!(execfn, s.execfn_ptr);
    assert_eq!(m.cstr(execfn), b"/bin/prog");
    let platform = get(&d.auxv, AT_PLATFORM).unwrap();
    assert_eq!(Some(platform), s.platform_ptr);
    assert_eq!(m.cstr(platform), b"x86_64");

    // execfn ends just below the 8-byte end marker at the top.
    assert_eq!(execfn + b"/bin/prog".len() as u64 + 1, TOP - 8);
    assert_eq!(m.word(TOP - 8), 0);
    // Arg strings, then env strings, then execfn, contiguous.
    assert_eq!(s.arg_start, m.word(s.argv_ptr));
    assert_eq!(s.arg_end, s.env_start);
    assert_eq!(s.env_start, m.word(s.envp_ptr));
    assert_eq!(s.env_end, execfn);
    let args_len: u64 = argv.iter().map(|a| a.len() as u64 + 1).sum();
    assert_eq!(s.arg_end - s.arg_start, args_len);
    assert_eq!(m.bytes(s.arg_start, args_len), b"/bin/sh\0-c\0echo hi\0");
}

#[test]
fn exact_linux_layout_for_a_small_case() {
    // Worked by hand from create_elf_tables for argv = ["a"], no env, no
    // caller auxv, execfn "/a":
    //   execfn  = top - 8 - 3            = ...eff5
    //   arg "a" = execfn - 2             = ...eff3
    //   aligned = ...eff3 & ~15          = ...eff0
    //   platform "x86_64\0" = aligned - 7 = ...efe9
    //   random  = platform - 16          = ...efd9
    //   auxv (4 pairs, 64 bytes) and argc/argv/NULL/NULL (4 words) below:
    //   sp = (...efd9 - 64 - 32) & ~15  = ...ef70
    let s = build_initial_stack(TOP, &[b"a"], &[], &[], RANDOM, b"x86_64", b"/a").unwrap();
    assert_eq!(s.execfn_ptr, 0x7fff_ffff_eff5);
    assert_eq!(s.arg_start, 0x7fff_ffff_eff3);
    assert_eq!(s.platform_ptr, Some(0x7fff_ffff_efe9));
    assert_eq!(s.random_ptr, 0x7fff_ffff_efd9);
    assert_eq!(s.sp, 0x7fff_ffff_ef70);
    assert_eq!(s.argv_ptr, 0x7fff_ffff_ef78);
    assert_eq!(s.envp_ptr, 0x7fff_ffff_ef88);
    assert_eq!(s.auxv_ptr, 0x7fff_ffff_ef90);
    assert_eq!(s.bytes.len(), 0x90);
    let d = decode(&s, TOP);
    assert_eq!(d.auxv_end, 0x7fff_ffff_efd0);
    assert_eq!(d.auxv, [(AT_RANDOM, 0x7fff_ffff_efd9), (AT_EXECFN, 0x7fff_ffff_eff5), (AT_PLATFORM, 0x7fff_ffff_efe9), (AT_NULL, 0)]);
}

#[test]
fn alignment_for_odd_and_even_counts() {
    let strings: Vec<Vec<u8>> = (0..9).map(|i| vec![b'a' + i as u8; i * 3 + 1]).collect();
    for argc in 0..7 {
        for envc in 0..7 {
            for auxc in 0..4 {
                for execfn_len in [1usize, 2, 7, 8, 15] {
                    let argv: Vec<&[u8]> = strings.iter().take(argc).map(Vec::as_slice).collect();
                    let envp: Vec<&[u8]> = strings.iter().rev().take(envc).map(Vec::as_slice).collect();
                    let aux: Vec<(u64, u64)> = (0..auxc).map(|i| (AT_UID + i as u64, i as u64)).collect();
                    let execfn = vec![b'/'; execfn_len];
                    let s = build_initial_stack(TOP, &argv, &envp, &aux, RANDOM, b"x86_64", &execfn).unwrap();
                    assert_eq!(s.sp % 16, 0);
                    let d = decode(&s, TOP);
                    // argc == 0 gets argv = [""], as on Linux since 5.18.
                    let want: Vec<Vec<u8>> =
                        if argc == 0 { vec![vec![]] } else { argv.iter().map(|a| a.to_vec()).collect() };
                    assert_eq!(d.argv, want);
                    assert_eq!(d.envp, envp.iter().map(|e| e.to_vec()).collect::<Vec<_>>());
                    assert_eq!(d.auxv.len(), auxc + 4);
                    // Padding only where Linux puts it: under 16 bytes
                    // between the auxv and the random bytes, and between the
                    // platform string and the argument strings.
                    assert!(d.auxv_end <= s.random_ptr && s.random_ptr - d.auxv_end < 16);
                    let platform = s.platform_ptr.unwrap();
                    assert_eq!(s.random_ptr + 16, platform);
                    assert_eq!(platform + 7, s.arg_start & !15);
                    assert!(s.arg_start - (platform + 7) < 16);
                    // Every pointer lands inside the image.
                    let m = Mem { s: &s, top: TOP };
                    for (k, v) in &d.auxv {
                        if [AT_RANDOM, AT_EXECFN, AT_PLATFORM].contains(k) {
                            m.index(*v, 1);
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn stack_top_may_be_any_16_aligned_address() {
    for top in [0x1_0000u64, 0x7fff_ffff_e010, 0x5000_0000_0000] {
        let s = build_initial_stack(top, &[b"x"], &[b"Y=1"], &[(AT_PAGESZ, 4096)], RANDOM, b"x86_64", b"/x").unwrap();
        assert_eq!(s.sp % 16, 0);
        assert_eq!(decode(&s, top).envp, [b"Y=1".to_vec()]);
    }
}

#[test]
fn without_platform() {
    let s = build_initial_stack(TOP, &[b"a"], &[], &[], RANDOM, b"", b"/a").unwrap();
    assert_eq!(s.platform_ptr, None);
    let d = decode(&s, TOP);
    assert_eq!(get(&d.auxv, AT_PLATFORM), None);
    assert_eq!(s.random_ptr + 16, s.arg_start & !15);
}

#[test]
fn argument_limits() {
    // One string at MAX_ARG_STRLEN with its NUL is fine; one byte more is not.
    let fits = vec![b'x'; MAX_ARG_STRLEN - 1];
    assert!(build_initial_stack(TOP, &[&fits], &[], &[], RANDOM, b"x86_64", b"/a").is_ok());
    let long = vec![b'x'; MAX_ARG_STRLEN];
    let e = build_initial_stack(TOP, &[&long], &[], &[], RANDOM, b"x86_64", b"/a").unwrap_err();
    assert_eq!(e, ElfError::ArgumentListTooLong);
    assert_eq!(e.errno(), E2BIG);
    let e = build_initial_stack(TOP, &[b"a"], &[&long], &[], RANDOM, b"x86_64", b"/a").unwrap_err();
    assert_eq!(e, ElfError::ArgumentListTooLong);
    let e = build_initial_stack(TOP, &[b"a"], &[], &[], RANDOM, b"x86_64", &long).unwrap_err();
    assert_eq!(e, ElfError::ArgumentListTooLong);

    // 17 strings of 128 KiB are over 2 MiB in total.
    let many: Vec<&[u8]> = (0..17).map(|_| fits.as_slice()).collect();
    let e = build_initial_stack(TOP, &many, &[], &[], RANDOM, b"x86_64", b"/a").unwrap_err();
    assert_eq!(e, ElfError::ArgumentListTooLong);
    let e = build_initial_stack(TOP, &[b"a"], &many, &[], RANDOM, b"x86_64", b"/a").unwrap_err();
    assert_eq!(e, ElfError::ArgumentListTooLong);
    // 15 fit.
    let s = build_initial_stack(TOP, &many[..15], &[], &[], RANDOM, b"x86_64", b"/a").unwrap();
    assert_eq!(decode(&s, TOP).argv.len(), 15);

    // Pointers count too: 300,000 empty strings need 2.4 MB of pointers.
    let empties: Vec<&[u8]> = vec![b""; 300_000];
    let e = build_initial_stack(TOP, &empties, &[], &[], RANDOM, b"x86_64", b"/a").unwrap_err();
    assert_eq!(e, ElfError::ArgumentListTooLong);
}

#[test]
fn invalid_requests() {
    let b = |top, argv: &[&[u8]], aux: &[(u64, u64)], platform: &[u8]| {
        build_initial_stack(top, argv, &[], aux, RANDOM, platform, b"/a")
    };
    assert_eq!(b(TOP, &[b"a\0b"], &[], b"x86_64"), Err(ElfError::NulInString));
    assert_eq!(b(TOP, &[b"a"], &[], b"x86\0"), Err(ElfError::NulInString));
    for key in [AT_NULL, AT_RANDOM, AT_EXECFN, AT_PLATFORM] {
        assert_eq!(b(TOP, &[b"a"], &[(key, 1)], b"x86_64"), Err(ElfError::ReservedAuxvEntry(key)));
    }
    let aux: Vec<(u64, u64)> = (0..MAX_AUXV_ENTRIES as u64 + 1).map(|i| (AT_UID, i)).collect();
    assert_eq!(b(TOP, &[b"a"], &aux, b"x86_64"), Err(ElfError::TooManyAuxvEntries));
    assert!(b(TOP, &[b"a"], &aux[..MAX_AUXV_ENTRIES], b"x86_64").is_ok());
    assert_eq!(b(TOP + 8, &[b"a"], &[], b"x86_64"), Err(ElfError::MisalignedStackTop));
    for top in [0u64, 16, 64, 0x80] {
        assert_eq!(b(top, &[b"a"], &[], b"x86_64"), Err(ElfError::StackTopTooLow), "top {top:#x}");
    }
    assert_eq!(ElfError::StackTopTooLow.errno(), EINVAL);
}

#[test]
fn the_auxv_a_kernel_passes() {
    // The full set a Linux kernel passes, in Linux's order, survives intact.
    let aux = [
        (AT_SYSINFO_EHDR, 0x7fff_f7fc_1000),
        (AT_MINSIGSTKSZ, 3632),
        (AT_HWCAP, 0x178b_fbff),
        (AT_PAGESZ, 4096),
        (AT_CLKTCK, 100),
        (AT_PHDR, 0x5555_5555_4040),
        (AT_PHENT, 56),
        (AT_PHNUM, 13),
        (AT_BASE, 0x7fff_f7fc_3000),
        (AT_FLAGS, 0),
        (AT_ENTRY, 0x5555_5555_a1d0),
        (AT_UID, 1000),
        (AT_EUID, 1000),
        (AT_GID, 1000),
        (AT_EGID, 1000),
        (AT_SECURE, 0),
    ];
    let s = build_initial_stack(TOP, &[b"ls", b"-l"], &[b"TERM=vt100"], &aux, RANDOM, b"x86_64", b"/bin/ls").unwrap();
    let d = decode(&s, TOP);
    assert_eq!(&d.auxv[..aux.len()], &aux);
    assert_eq!(AT_SYSINFO_EHDR, 33);
    assert_eq!(AT_MINSIGSTKSZ, 51);
    assert_eq!(AT_EXECFN, 31);
    assert_eq!(AT_RANDOM, 25);
}

#[test]
fn matches_a_real_linux_stack() {
    // Recorded on Linux 6.18 (x86_64) by a static musl program printing its
    // own initial stack, run as `env -i A=1 BB=22 setarch -R ./dump one two
    // three` (setarch -R turns off the random stack offset). Linux's auxv
    // order puts AT_RANDOM before AT_HWCAP2 and the rseq entries; the order
    // changes no address, so the caller's entries are passed in one block.
    let aux = [
        (AT_SYSINFO_EHDR, 0x7fff_f7ff_d000),
        (AT_MINSIGSTKSZ, 0xd30),
        (AT_HWCAP, 0x178b_fbff),
        (AT_PAGESZ, 0x1000),
        (AT_CLKTCK, 100),
        (AT_PHDR, 0x40_0040),
        (AT_PHENT, 56),
        (AT_PHNUM, 6),
        (AT_BASE, 0),
        (AT_FLAGS, 0),
        (AT_ENTRY, 0x40_102b),
        (AT_UID, 0),
        (AT_EUID, 0),
        (AT_GID, 0),
        (AT_EGID, 0),
        (AT_SECURE, 0),
        (AT_HWCAP2, 2),
        (AT_RSEQ_FEATURE_SIZE, 0x1c),
        (AT_RSEQ_ALIGN, 0x20),
    ];
    let top = 0x7fff_ffff_f000;
    let argv: [&[u8]; 4] = [b"./dump", b"one", b"two", b"three"];
    let s = build_initial_stack(top, &argv, &[b"A=1", b"BB=22"], &aux, RANDOM, b"x86_64", b"./dump").unwrap();
    assert_eq!(s.sp, 0x7fff_ffff_ee00);
    assert_eq!(s.auxv_ptr, 0x7fff_ffff_ee48);
    assert_eq!(s.random_ptr, 0x7fff_ffff_efb9);
    assert_eq!(s.platform_ptr, Some(0x7fff_ffff_efc9));
    assert_eq!(s.execfn_ptr, 0x7fff_ffff_eff1);
    let d = decode(&s, top);
    let m = Mem { s: &s, top };
    let argv_addrs: Vec<u64> = (0..4).map(|i| m.word(s.argv_ptr + 8 * i)).collect();
    assert_eq!(argv_addrs, [0x7fff_ffff_efd2, 0x7fff_ffff_efd9, 0x7fff_ffff_efdd, 0x7fff_ffff_efe1]);
    assert_eq!(m.word(s.envp_ptr), 0x7fff_ffff_efe7);
    assert_eq!(m.word(s.envp_ptr + 8), 0x7fff_ffff_efeb);
    assert_eq!(d.auxv.len(), aux.len() + 4);
}
