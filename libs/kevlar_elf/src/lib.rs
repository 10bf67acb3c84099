//! Program loading for the Linux x86_64 ABI, minus the memory management:
//!
//! - [`parse`] checks an ELF executable (static, static-PIE, dynamically
//!   linked, or a dynamic loader such as `ld-linux-x86-64.so.2`) and returns
//!   a [`LoadPlan`]: which file ranges go to which addresses with which
//!   permissions, the entry point, the interpreter to load, and the values
//!   the auxiliary vector needs. Position-independent plans are moved with
//!   [`LoadPlan::with_bias`].
//! - [`is_script`] recognises `#!` scripts the way Linux's `binfmt_script`
//!   does.
//! - [`build_initial_stack`] lays out argc, argv, envp, the auxiliary vector
//!   and the strings they point to exactly as Linux's `create_elf_tables`
//!   does, as a byte image the kernel copies to the top of the new stack.
//!
//! Executables are untrusted input: every offset and size is checked
//! (bounds, overflow, alignment, user address range), and every problem is
//! an [`ElfError`], never a panic.

#![cfg_attr(not(test), no_std)]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

extern crate alloc;

pub mod auxv;
mod elf;
mod script;
mod stack;

pub use auxv::*;
pub use elf::{
    parse, parse_prefix, ElfKind, LoadPlan, Segment, TlsTemplate, DEFAULT_INTERP_BASE, DEFAULT_PIE_BASE, MAX_PHNUM, PAGE_SIZE,
    PATH_MAX, USER_END,
};
pub use script::{is_script, BINPRM_BUF_SIZE};
pub use stack::{build_initial_stack, InitialStack, MAX_ARG_BYTES, MAX_ARG_STRLEN, MAX_AUXV_ENTRIES};

use core::fmt;

/// Linux's `ENOEXEC`: not an executable format the kernel can run.
pub const ENOEXEC: i32 = 8;
/// Linux's `E2BIG`: argument list too long.
pub const E2BIG: i32 = 7;
/// Linux's `EINVAL`: invalid argument.
pub const EINVAL: i32 = 22;
/// Linux's `ENOMEM`: out of memory.
pub const ENOMEM: i32 = 12;

/// Why an executable cannot be loaded, or a stack cannot be built.
///
/// `index` fields are program-header indices, counting from 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ElfError {
    /// The file is shorter than an ELF header.
    TooShort,
    /// [`parse_prefix`] needs the first this-many bytes of the file: the
    /// program headers or the interpreter name lie past the prefix given.
    NeedBytes(usize),
    /// The file does not start with `\x7fELF`.
    BadMagic,
    /// Not a 64-bit ELF file (`EI_CLASS`).
    BadClass(u8),
    /// Not little-endian (`EI_DATA`).
    BadEndianness(u8),
    /// `EI_VERSION` or `e_version` is not 1.
    BadVersion,
    /// Neither `ET_EXEC` nor `ET_DYN` (relocatable objects, core files).
    UnsupportedType(u16),
    /// Not built for x86_64 (`e_machine` is not `EM_X86_64`).
    WrongMachine(u16),
    /// `e_phentsize` is not the size of an ELF64 program header (56).
    BadPhentsize(u16),
    /// There are no program headers.
    NoProgramHeaders,
    /// More than [`MAX_PHNUM`] program headers.
    TooManyProgramHeaders(u16),
    /// The program-header table lies (partly) outside the file.
    ProgramHeadersOutOfBounds,
    /// A segment's file range lies (partly) outside the file.
    SegmentOutOfFile {
        /// The program header.
        index: usize,
    },
    /// A segment has more bytes in the file than in memory.
    FileSizeExceedsMemSize {
        /// The program header.
        index: usize,
    },
    /// A segment's address plus size overflows 64 bits.
    AddressOverflow {
        /// The program header.
        index: usize,
    },
    /// A segment reaches into the kernel half or the non-canonical hole
    /// (at or above [`USER_END`]).
    AddressOutOfRange {
        /// The program header.
        index: usize,
    },
    /// A loadable segment's address and file offset differ modulo the page
    /// size, so it cannot be mapped from the file page by page.
    MisalignedSegment {
        /// The program header.
        index: usize,
    },
    /// `p_align` is neither 0, 1 nor a power of two.
    BadAlignment {
        /// The program header.
        index: usize,
    },
    /// Two loadable segments overlap in memory.
    OverlappingSegments {
        /// The lower of the two segments.
        first: usize,
        /// The segment that starts inside it.
        second: usize,
    },
    /// There is no loadable segment with a non-zero size.
    NoLoadableSegments,
    /// The entry point is in no loadable segment.
    EntryOutsideSegments,
    /// `PT_INTERP` is empty, longer than [`PATH_MAX`], not NUL-terminated,
    /// or not UTF-8.
    BadInterpreter,
    /// `PT_TLS` has inconsistent sizes or alignment.
    BadTls,
    /// [`LoadPlan::with_bias`] was given a non-zero bias for an `ET_EXEC`
    /// file, which must be loaded at its link addresses.
    NotRelocatable,
    /// [`LoadPlan::with_bias`] was given a bias that is not page-aligned or
    /// moves the image out of the user address range.
    BadBias,
    /// The arguments and environment exceed Linux's limits (each string at
    /// most [`MAX_ARG_STRLEN`], all of them at most [`MAX_ARG_BYTES`]):
    /// `execve` fails with `E2BIG`.
    ArgumentListTooLong,
    /// A string for the stack contains a NUL byte (strings from user memory
    /// end at their first NUL, so they never do).
    NulInString,
    /// An auxiliary-vector entry the caller may not supply: `AT_NULL`, or one
    /// of those [`build_initial_stack`] adds itself.
    ReservedAuxvEntry(u64),
    /// More than [`MAX_AUXV_ENTRIES`] auxiliary-vector entries.
    TooManyAuxvEntries,
    /// The stack top is not 16-byte aligned.
    MisalignedStackTop,
    /// The stack top is too low for the stack contents.
    StackTopTooLow,
    /// Memory for the stack image could not be allocated.
    OutOfMemory,
}

impl ElfError {
    /// The error number `execve` fails with: `E2BIG` for an argument list
    /// that is too long, `ENOMEM` for allocation failure, `EINVAL` for
    /// invalid caller input, and `ENOEXEC` for everything about the file.
    pub fn errno(&self) -> i32 {
        match self {
            ElfError::ArgumentListTooLong => E2BIG,
            ElfError::OutOfMemory => ENOMEM,
            ElfError::NulInString
            | ElfError::ReservedAuxvEntry(_)
            | ElfError::TooManyAuxvEntries
            | ElfError::MisalignedStackTop
            | ElfError::StackTopTooLow
            | ElfError::NotRelocatable
            | ElfError::BadBias => EINVAL,
            _ => ENOEXEC,
        }
    }
}

impl fmt::Display for ElfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            ElfError::TooShort => write!(f, "file shorter than an ELF header"),
            ElfError::NeedBytes(n) => write!(f, "the headers need the first {n} bytes of the file"),
            ElfError::BadMagic => write!(f, "not an ELF file"),
            ElfError::BadClass(c) => write!(f, "ELF class {c} is not 64-bit"),
            ElfError::BadEndianness(d) => write!(f, "ELF data encoding {d} is not little-endian"),
            ElfError::BadVersion => write!(f, "unknown ELF version"),
            ElfError::UnsupportedType(t) => write!(f, "ELF type {t} is neither ET_EXEC nor ET_DYN"),
            ElfError::WrongMachine(m) => write!(f, "ELF machine {m} is not x86_64"),
            ElfError::BadPhentsize(s) => write!(f, "program header size {s} is not 56"),
            ElfError::NoProgramHeaders => write!(f, "no program headers"),
            ElfError::TooManyProgramHeaders(n) => write!(f, "{n} program headers (at most {MAX_PHNUM})"),
            ElfError::ProgramHeadersOutOfBounds => write!(f, "program headers outside the file"),
            ElfError::SegmentOutOfFile { index } => write!(f, "segment {index} lies outside the file"),
            ElfError::FileSizeExceedsMemSize { index } => {
                write!(f, "segment {index} is larger in the file than in memory")
            }
            ElfError::AddressOverflow { index } => write!(f, "segment {index}: address overflow"),
            ElfError::AddressOutOfRange { index } => {
                write!(f, "segment {index} is outside the user address range")
            }
            ElfError::MisalignedSegment { index } => {
                write!(f, "segment {index}: address and file offset differ modulo the page size")
            }
            ElfError::BadAlignment { index } => write!(f, "segment {index}: alignment is not a power of two"),
            ElfError::OverlappingSegments { first, second } => {
                write!(f, "segments {first} and {second} overlap")
            }
            ElfError::NoLoadableSegments => write!(f, "no loadable segments"),
            ElfError::EntryOutsideSegments => write!(f, "entry point outside the loadable segments"),
            ElfError::BadInterpreter => write!(f, "malformed PT_INTERP"),
            ElfError::BadTls => write!(f, "malformed PT_TLS"),
            ElfError::NotRelocatable => write!(f, "ET_EXEC files cannot be moved"),
            ElfError::BadBias => write!(f, "load bias misaligned or out of range"),
            ElfError::ArgumentListTooLong => write!(f, "argument list too long"),
            ElfError::NulInString => write!(f, "NUL byte inside an argument or environment string"),
            ElfError::ReservedAuxvEntry(k) => write!(f, "auxiliary vector entry {k} is reserved"),
            ElfError::TooManyAuxvEntries => write!(f, "too many auxiliary vector entries"),
            ElfError::MisalignedStackTop => write!(f, "stack top not 16-byte aligned"),
            ElfError::StackTopTooLow => write!(f, "stack top too low"),
            ElfError::OutOfMemory => write!(f, "out of memory"),
        }
    }
}

impl core::error::Error for ElfError {}
