//! ELF64 header and program-header validation, producing a [`LoadPlan`].
//!
//! The headers are decoded by hand, byte by byte: they are a few fixed
//! little-endian fields, and owning the decoding keeps every bounds check
//! in view.

use alloc::string::String;
use alloc::vec::Vec;

use crate::ElfError;

/// The page size executables are mapped with.
pub const PAGE_SIZE: u64 = 4096;

/// The end of user space: Linux's `TASK_SIZE_MAX` on x86_64 with 4-level
/// paging, one page below the non-canonical hole at `0x0000_8000_0000_0000`
/// (that last page stays unmapped so that `sysret` never returns to a
/// non-canonical address). No segment may reach above it.
pub const USER_END: u64 = 0x0000_7fff_ffff_f000;

/// Most program headers accepted. Real executables have about a dozen;
/// the cap keeps a hostile header from making the loader do much work.
pub const MAX_PHNUM: u16 = 128;

/// Longest `PT_INTERP` accepted, NUL included (Linux's `PATH_MAX`).
pub const PATH_MAX: usize = 4096;

/// Where Linux puts a position-independent executable that has an
/// interpreter when address-space randomization is off: `ELF_ET_DYN_BASE`,
/// two thirds of the 47-bit user space, page-aligned. (A static-PIE
/// program or a dynamic loader started directly is placed by recent Linux
/// in the mmap area instead; this base works for them too.)
pub const DEFAULT_PIE_BASE: u64 = 0x5555_5555_4000;

/// Where the dynamic loader typically lands under Linux without
/// randomization: just below the vDSO near the top of the mmap area. The
/// exact value depends on the loader's size; this is glibc's on a typical
/// machine under `setarch -R`, and any free, page-aligned address works.
pub const DEFAULT_INTERP_BASE: u64 = 0x7fff_f7fc_3000;

const EHDR_LEN: usize = 64;
const PHDR_LEN: usize = 56;

const ET_EXEC: u16 = 2;
const ET_DYN: u16 = 3;
const EM_X86_64: u16 = 62;

const PT_LOAD: u32 = 1;
const PT_INTERP: u32 = 3;
const PT_PHDR: u32 = 6;
const PT_TLS: u32 = 7;
const PT_GNU_STACK: u32 = 0x6474_e551;

const PF_X: u32 = 1;
const PF_W: u32 = 2;
const PF_R: u32 = 4;

/// Whether the file is loaded at fixed addresses or anywhere.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ElfKind {
    /// `ET_EXEC`: loaded at its link addresses.
    Exec,
    /// `ET_DYN`: position-independent (PIE, static-PIE, or a dynamic loader);
    /// its addresses are relative until [`LoadPlan::with_bias`] moves them.
    Dyn,
}

/// One `PT_LOAD` segment: `file_size` bytes from `file_offset` go to
/// `vaddr`, and the rest up to `mem_size` is zero.
///
/// Segments never overlap, but consecutive ones may share a page (the end
/// of one and the start of the next); the loader must then give that page
/// the permissions of both and keep both segments' bytes in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Segment {
    /// Virtual address of the first byte (not page-aligned in general).
    pub vaddr: u64,
    /// Size in memory, at least `file_size` and never 0.
    pub mem_size: u64,
    /// Offset of the first byte in the file; congruent to `vaddr` modulo
    /// [`PAGE_SIZE`], so the segment can be mapped page by page.
    pub file_offset: u64,
    /// Bytes taken from the file; within the image.
    pub file_size: u64,
    /// `PF_R`.
    pub readable: bool,
    /// `PF_W`.
    pub writable: bool,
    /// `PF_X`.
    pub executable: bool,
    /// `p_align`: 0, 1 or a power of two.
    pub align: u64,
}

impl Segment {
    /// One past the last byte in memory.
    pub fn end(&self) -> u64 {
        // Cannot overflow: checked when the plan was made.
        self.vaddr.saturating_add(self.mem_size)
    }
}

/// The `PT_TLS` template: the initial contents of each thread's
/// thread-local block (the C library copies it; the kernel only reports
/// where it is through the program headers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TlsTemplate {
    /// Address of the initialised part.
    pub vaddr: u64,
    /// Size of the initialised part.
    pub file_size: u64,
    /// Full size of a thread's block (the rest is zero).
    pub mem_size: u64,
    /// Required alignment: 0, 1 or a power of two.
    pub align: u64,
}

/// Everything the kernel needs to map an executable and start it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadPlan {
    /// Fixed-address or position-independent.
    pub kind: ElfKind,
    /// The entry point; inside one of the segments.
    pub entry: u64,
    /// The loadable segments with non-zero memory size, by ascending
    /// address.
    pub segments: Vec<Segment>,
    /// The path in `PT_INTERP` (the dynamic loader to load and start
    /// instead), if any.
    pub interpreter: Option<String>,
    /// Where the program headers are in memory, for `AT_PHDR`: computed, as
    /// Linux does, from the loadable segment whose file range holds the
    /// program-header table, else taken from `PT_PHDR`; `None` when the
    /// headers are not loaded at all (Linux then passes 0).
    pub phdr_vaddr: Option<u64>,
    /// Size of one program header, for `AT_PHENT` (always 56).
    pub phent: u16,
    /// Number of program headers, for `AT_PHNUM`.
    pub phnum: u16,
    /// The thread-local storage template, if any.
    pub tls: Option<TlsTemplate>,
    /// Whether `PT_GNU_STACK` asks for an executable stack. Without that
    /// header the stack is not executable (Linux's x86_64 default).
    pub stack_executable: bool,
    /// The lowest segment address rounded down to a page.
    pub min_vaddr: u64,
    /// The highest segment end rounded up to a page: the image spans
    /// `min_vaddr..max_vaddr`.
    pub max_vaddr: u64,
}

impl LoadPlan {
    /// The plan moved up by `bias` bytes: every address plus `bias`.
    ///
    /// Only `ET_DYN` plans move (a bias of 0 is accepted for both kinds).
    /// The bias must be page-aligned and keep the image below
    /// [`USER_END`]. A common choice is `DEFAULT_PIE_BASE - min_vaddr`,
    /// rounded down to [`Self::max_align`] as Linux does.
    pub fn with_bias(&self, bias: u64) -> Result<LoadPlan, ElfError> {
        if bias == 0 {
            return Ok(self.clone());
        }
        if self.kind == ElfKind::Exec {
            return Err(ElfError::NotRelocatable);
        }
        if bias % PAGE_SIZE != 0 {
            return Err(ElfError::BadBias);
        }
        let add = |a: u64| a.checked_add(bias).ok_or(ElfError::BadBias);
        let max_vaddr = add(self.max_vaddr)?;
        if max_vaddr > USER_END {
            return Err(ElfError::BadBias);
        }
        // Every other address is below max_vaddr, so these cannot fail now.
        let mut plan = self.clone();
        plan.entry = add(plan.entry)?;
        for s in &mut plan.segments {
            s.vaddr = add(s.vaddr)?;
        }
        plan.phdr_vaddr = plan.phdr_vaddr.map(add).transpose()?;
        if let Some(tls) = plan.tls.as_mut() {
            tls.vaddr = add(tls.vaddr)?;
        }
        plan.min_vaddr = add(plan.min_vaddr)?;
        plan.max_vaddr = max_vaddr;
        Ok(plan)
    }

    /// The largest segment alignment, at least [`PAGE_SIZE`]. Linux aligns
    /// the load address of a position-independent file to it, so that
    /// segments linked for huge pages can get them.
    pub fn max_align(&self) -> u64 {
        self.segments.iter().map(|s| s.align).filter(|a| a.is_power_of_two()).fold(PAGE_SIZE, u64::max)
    }

    /// The size of the address range the image occupies.
    pub fn span(&self) -> u64 {
        self.max_vaddr - self.min_vaddr
    }
}

fn read<const N: usize>(b: &[u8], off: usize) -> Option<[u8; N]> {
    b.get(off..off.checked_add(N)?)?.try_into().ok()
}
fn u16_at(b: &[u8], off: usize) -> Option<u16> {
    read(b, off).map(u16::from_le_bytes)
}
fn u32_at(b: &[u8], off: usize) -> Option<u32> {
    read(b, off).map(u32::from_le_bytes)
}
fn u64_at(b: &[u8], off: usize) -> Option<u64> {
    read(b, off).map(u64::from_le_bytes)
}

fn page_down(a: u64) -> u64 {
    a & !(PAGE_SIZE - 1)
}
fn page_up(a: u64) -> Option<u64> {
    Some(a.checked_add(PAGE_SIZE - 1)? & !(PAGE_SIZE - 1))
}

struct Phdr {
    p_type: u32,
    p_flags: u32,
    p_offset: u64,
    p_vaddr: u64,
    p_filesz: u64,
    p_memsz: u64,
    p_align: u64,
}

fn phdr_at(table: &[u8], index: usize) -> Option<Phdr> {
    let h = table.get(index.checked_mul(PHDR_LEN)?..)?;
    Some(Phdr {
        p_type: u32_at(h, 0)?,
        p_flags: u32_at(h, 4)?,
        p_offset: u64_at(h, 8)?,
        p_vaddr: u64_at(h, 16)?,
        // p_paddr (24) is meaningless for user programs.
        p_filesz: u64_at(h, 32)?,
        p_memsz: u64_at(h, 40)?,
        p_align: u64_at(h, 48)?,
    })
}

/// The file bytes of a program header, checked against the image.
/// Checks that a segment's file range lies inside a file of `file_len`
/// bytes; returns the range.
fn file_range(file_len: u64, p: &Phdr, index: usize) -> Result<core::ops::Range<usize>, ElfError> {
    let out = ElfError::SegmentOutOfFile { index };
    let end = p.p_offset.checked_add(p.p_filesz).ok_or(out)?;
    if end > file_len {
        return Err(out);
    }
    let start = usize::try_from(p.p_offset).map_err(|_| out)?;
    let end = usize::try_from(end).map_err(|_| out)?;
    Ok(start..end)
}

/// Returns `prefix[range]`, or asks for a longer prefix.
fn bytes_of(prefix: &[u8], range: core::ops::Range<usize>) -> Result<&[u8], ElfError> {
    let end = range.end;
    prefix.get(range).ok_or(ElfError::NeedBytes(end))
}

/// Checks an x86_64 ELF executable and describes how to load it.
///
/// Accepts `ET_EXEC` and `ET_DYN` files of class ELF64, little-endian,
/// machine `EM_X86_64`. Refuses program headers beyond the file or more
/// than [`MAX_PHNUM`] of them; loadable segments that lie outside the file,
/// have `p_filesz > p_memsz`, overflow, reach [`USER_END`], overlap, or
/// cannot be mapped page by page; an entry point outside the segments; and
/// a malformed `PT_INTERP` or `PT_TLS`. Addresses of `ET_DYN` files are
/// relative: move them with [`LoadPlan::with_bias`].
pub fn parse(image: &[u8]) -> Result<LoadPlan, ElfError> {
    parse_prefix(image, image.len() as u64)
}

/// [`parse`] for a file of `file_len` bytes of which only the first
/// `prefix.len()` are at hand: the loader reads the headers, not the whole
/// executable. Segment bounds are checked against `file_len`. When the
/// program headers or `PT_INTERP` lie past the prefix, returns
/// [`ElfError::NeedBytes`] with the prefix length that covers them.
pub fn parse_prefix(prefix: &[u8], file_len: u64) -> Result<LoadPlan, ElfError> {
    if file_len < EHDR_LEN as u64 {
        return Err(ElfError::TooShort);
    }
    let ehdr = bytes_of(prefix, 0..EHDR_LEN)?;
    if ehdr[..4] != *b"\x7fELF" {
        return Err(ElfError::BadMagic);
    }
    if ehdr[4] != 2 {
        return Err(ElfError::BadClass(ehdr[4]));
    }
    if ehdr[5] != 1 {
        return Err(ElfError::BadEndianness(ehdr[5]));
    }
    let e_type = u16_at(ehdr, 16).ok_or(ElfError::TooShort)?;
    let e_machine = u16_at(ehdr, 18).ok_or(ElfError::TooShort)?;
    let e_version = u32_at(ehdr, 20).ok_or(ElfError::TooShort)?;
    let e_entry = u64_at(ehdr, 24).ok_or(ElfError::TooShort)?;
    let e_phoff = u64_at(ehdr, 32).ok_or(ElfError::TooShort)?;
    let e_phentsize = u16_at(ehdr, 54).ok_or(ElfError::TooShort)?;
    let e_phnum = u16_at(ehdr, 56).ok_or(ElfError::TooShort)?;
    if ehdr[6] != 1 || e_version != 1 {
        return Err(ElfError::BadVersion);
    }
    let kind = match e_type {
        ET_EXEC => ElfKind::Exec,
        ET_DYN => ElfKind::Dyn,
        t => return Err(ElfError::UnsupportedType(t)),
    };
    if e_machine != EM_X86_64 {
        return Err(ElfError::WrongMachine(e_machine));
    }
    if usize::from(e_phentsize) != PHDR_LEN {
        return Err(ElfError::BadPhentsize(e_phentsize));
    }
    if e_phnum == 0 {
        return Err(ElfError::NoProgramHeaders);
    }
    // Also refuses PN_XNUM (0xffff), the escape to a count in a section
    // header, which no executable needs.
    if e_phnum > MAX_PHNUM {
        return Err(ElfError::TooManyProgramHeaders(e_phnum));
    }
    let table_len = usize::from(e_phnum) * PHDR_LEN;
    let table_start = usize::try_from(e_phoff).map_err(|_| ElfError::ProgramHeadersOutOfBounds)?;
    let table_end = table_start.checked_add(table_len).ok_or(ElfError::ProgramHeadersOutOfBounds)?;
    if table_end as u64 > file_len {
        return Err(ElfError::ProgramHeadersOutOfBounds);
    }
    let table = bytes_of(prefix, table_start..table_end)?;

    // (program-header index, segment) so that errors can name the header.
    let mut loads: Vec<(usize, Segment)> = Vec::new();
    let mut interpreter = None;
    let mut pt_phdr = None;
    let mut tls = None;
    let mut stack_executable = false;
    for index in 0..usize::from(e_phnum) {
        let p = phdr_at(table, index).ok_or(ElfError::ProgramHeadersOutOfBounds)?;
        match p.p_type {
            PT_LOAD => {
                file_range(file_len, &p, index)?;
                if p.p_filesz > p.p_memsz {
                    return Err(ElfError::FileSizeExceedsMemSize { index });
                }
                if p.p_align > 1 && !p.p_align.is_power_of_two() {
                    return Err(ElfError::BadAlignment { index });
                }
                if p.p_vaddr % PAGE_SIZE != p.p_offset % PAGE_SIZE {
                    return Err(ElfError::MisalignedSegment { index });
                }
                let end = p.p_vaddr.checked_add(p.p_memsz).ok_or(ElfError::AddressOverflow { index })?;
                let end = page_up(end).ok_or(ElfError::AddressOverflow { index })?;
                if end > USER_END {
                    return Err(ElfError::AddressOutOfRange { index });
                }
                // An empty segment maps nothing; keeping it would only
                // complicate the overlap and span computations.
                if p.p_memsz == 0 {
                    continue;
                }
                loads.push((
                    index,
                    Segment {
                        vaddr: p.p_vaddr,
                        mem_size: p.p_memsz,
                        file_offset: p.p_offset,
                        file_size: p.p_filesz,
                        readable: p.p_flags & PF_R != 0,
                        writable: p.p_flags & PF_W != 0,
                        executable: p.p_flags & PF_X != 0,
                        align: p.p_align,
                    },
                ));
            }
            // Linux uses the first PT_INTERP and ignores any other.
            PT_INTERP if interpreter.is_none() => {
                let bytes = bytes_of(prefix, file_range(file_len, &p, index)?)?;
                // Linux's bounds: at least one character plus the NUL, at
                // most PATH_MAX, and NUL-terminated.
                if bytes.len() < 2 || bytes.len() > PATH_MAX || bytes.last() != Some(&0) {
                    return Err(ElfError::BadInterpreter);
                }
                // Linux reads it as a C string: it ends at the first NUL.
                let len = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
                let name = bytes.get(..len).unwrap_or(&[]);
                if name.is_empty() {
                    return Err(ElfError::BadInterpreter);
                }
                let name = core::str::from_utf8(name).map_err(|_| ElfError::BadInterpreter)?;
                interpreter = Some(String::from(name));
            }
            PT_PHDR if pt_phdr.is_none() => pt_phdr = Some(p.p_vaddr),
            PT_TLS if tls.is_none() => {
                file_range(file_len, &p, index).map_err(|_| ElfError::BadTls)?;
                let end = p.p_vaddr.checked_add(p.p_memsz).ok_or(ElfError::BadTls)?;
                if p.p_filesz > p.p_memsz || end > USER_END || (p.p_align > 1 && !p.p_align.is_power_of_two())
                {
                    return Err(ElfError::BadTls);
                }
                tls = Some(TlsTemplate {
                    vaddr: p.p_vaddr,
                    file_size: p.p_filesz,
                    mem_size: p.p_memsz,
                    align: p.p_align,
                });
            }
            PT_GNU_STACK => stack_executable = p.p_flags & PF_X != 0,
            _ => {}
        }
    }

    if loads.is_empty() {
        return Err(ElfError::NoLoadableSegments);
    }
    // The ELF specification wants PT_LOADs sorted already; sorting here
    // makes the overlap check one pass and the plan's order dependable.
    loads.sort_by_key(|&(_, s)| s.vaddr);
    for pair in loads.windows(2) {
        if let [(first, a), (second, b)] = pair {
            if a.end() > b.vaddr {
                return Err(ElfError::OverlappingSegments { first: *first, second: *second });
            }
        }
    }
    let segments: Vec<Segment> = loads.into_iter().map(|(_, s)| s).collect();

    if !segments.iter().any(|s| s.vaddr <= e_entry && e_entry < s.end()) {
        return Err(ElfError::EntryOutsideSegments);
    }

    // Where the program headers end up in memory: Linux looks for the
    // segment whose file range holds them (and ignores PT_PHDR). Requiring
    // the whole table, not only its start, makes sure AT_PHDR points at
    // loaded headers.
    let table_end = e_phoff.saturating_add(table_len as u64);
    let phdr_vaddr = segments
        .iter()
        .find(|s| s.file_offset <= e_phoff && table_end <= s.file_offset.saturating_add(s.file_size))
        .map(|s| s.vaddr + (e_phoff - s.file_offset))
        .or_else(|| {
            let v = pt_phdr?;
            let end = v.checked_add(table_len as u64)?;
            segments.iter().any(|s| s.vaddr <= v && end <= s.end()).then_some(v)
        });

    let first = segments.first().ok_or(ElfError::NoLoadableSegments)?;
    let last = segments.last().ok_or(ElfError::NoLoadableSegments)?;
    let min_vaddr = page_down(first.vaddr);
    // Checked against USER_END above, so rounding cannot overflow.
    let max_vaddr = page_up(last.end()).ok_or(ElfError::AddressOverflow { index: 0 })?;

    Ok(LoadPlan {
        kind,
        entry: e_entry,
        segments,
        interpreter,
        phdr_vaddr,
        phent: e_phentsize,
        phnum: e_phnum,
        tls,
        stack_executable,
        min_vaddr,
        max_vaddr,
    })
}
