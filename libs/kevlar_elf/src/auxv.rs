//! Auxiliary-vector entry types (`AT_*`), as `u64` for building the stack.
//!
//! The numbers come from the `linux-raw-sys` crate, which generates them
//! from Linux's `include/uapi/linux/auxvec.h` and
//! `arch/x86/include/uapi/asm/auxvec.h`.

use linux_raw_sys::auxvec as raw;

/// End of the vector.
pub const AT_NULL: u64 = raw::AT_NULL as u64;
/// An entry to ignore.
pub const AT_IGNORE: u64 = raw::AT_IGNORE as u64;
/// File descriptor of the program (for `binfmt_misc` with the `O` flag).
pub const AT_EXECFD: u64 = raw::AT_EXECFD as u64;
/// Address of the program headers of the program.
pub const AT_PHDR: u64 = raw::AT_PHDR as u64;
/// Size of one program header (56).
pub const AT_PHENT: u64 = raw::AT_PHENT as u64;
/// Number of program headers.
pub const AT_PHNUM: u64 = raw::AT_PHNUM as u64;
/// Page size (4096).
pub const AT_PAGESZ: u64 = raw::AT_PAGESZ as u64;
/// Load address of the interpreter (0 without one).
pub const AT_BASE: u64 = raw::AT_BASE as u64;
/// Flags (`AT_FLAGS_PRESERVE_ARGV0` for `binfmt_misc`, else 0).
pub const AT_FLAGS: u64 = raw::AT_FLAGS as u64;
/// Entry point of the program (not of the interpreter).
pub const AT_ENTRY: u64 = raw::AT_ENTRY as u64;
/// The program is not ELF (never set by Linux).
pub const AT_NOTELF: u64 = raw::AT_NOTELF as u64;
/// Real user id.
pub const AT_UID: u64 = raw::AT_UID as u64;
/// Effective user id.
pub const AT_EUID: u64 = raw::AT_EUID as u64;
/// Real group id.
pub const AT_GID: u64 = raw::AT_GID as u64;
/// Effective group id.
pub const AT_EGID: u64 = raw::AT_EGID as u64;
/// Address of the platform string (`"x86_64"`).
pub const AT_PLATFORM: u64 = raw::AT_PLATFORM as u64;
/// CPU feature bits (CPUID leaf 1 EDX on x86).
pub const AT_HWCAP: u64 = raw::AT_HWCAP as u64;
/// Frequency of `times()` (100).
pub const AT_CLKTCK: u64 = raw::AT_CLKTCK as u64;
/// Non-zero for set-user-id and similar secure executions.
pub const AT_SECURE: u64 = raw::AT_SECURE as u64;
/// Address of the base platform string (unused on x86).
pub const AT_BASE_PLATFORM: u64 = raw::AT_BASE_PLATFORM as u64;
/// Address of 16 random bytes (seeds stack protectors and pointer guards).
pub const AT_RANDOM: u64 = raw::AT_RANDOM as u64;
/// More CPU feature bits (`HWCAP2_RING3MWAIT`, `HWCAP2_FSGSBASE` on x86).
pub const AT_HWCAP2: u64 = raw::AT_HWCAP2 as u64;
/// Size of the supported `struct rseq` features.
pub const AT_RSEQ_FEATURE_SIZE: u64 = raw::AT_RSEQ_FEATURE_SIZE as u64;
/// Required alignment of `struct rseq`.
pub const AT_RSEQ_ALIGN: u64 = raw::AT_RSEQ_ALIGN as u64;
/// Address of the file name passed to `execve`.
pub const AT_EXECFN: u64 = raw::AT_EXECFN as u64;
/// Address of the vDSO's ELF header.
pub const AT_SYSINFO_EHDR: u64 = raw::AT_SYSINFO_EHDR as u64;
/// Minimal signal stack size the kernel needs for a signal frame.
pub const AT_MINSIGSTKSZ: u64 = raw::AT_MINSIGSTKSZ as u64;
