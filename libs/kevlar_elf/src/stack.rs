//! The initial process stack, laid out like Linux's `create_elf_tables`
//! (`fs/binfmt_elf.c`) on top of the strings `execve` copies
//! (`fs/exec.c`).
//!
//! From high addresses to low:
//!
//! ```text
//! stack_top ->  8 zero bytes (end marker)
//!               execfn string                      <- AT_EXECFN
//!               env strings envp[0] .. envp[n-1]   (envp[n-1] highest)
//!               arg strings argv[0] .. argv[n-1]   <- arg_start
//!               0..15 bytes to a 16-byte boundary
//!               platform string "x86_64"           <- AT_PLATFORM
//!               16 random bytes                    <- AT_RANDOM
//!               0..15 bytes so that sp ends up 16-byte aligned
//!               auxv pairs, AT_NULL last
//!               envp pointers, NULL
//!               argv pointers, NULL
//! sp         -> argc
//! ```
//!
//! Linux does not align the platform string or the random bytes, so the
//! auxiliary vector need not be 16-byte aligned either; only `sp` is.

use alloc::vec::Vec;

use crate::auxv::{AT_EXECFN, AT_NULL, AT_PLATFORM, AT_RANDOM};
use crate::ElfError;

/// Longest single argument or environment string, NUL included: Linux's
/// `MAX_ARG_STRLEN` (32 pages).
pub const MAX_ARG_STRLEN: usize = 32 * 4096;

/// Most bytes the strings (arguments, environment, execfn, with their
/// NULs) plus the argv and envp pointers may take: a quarter of the
/// default 8 MiB stack limit, which is what Linux allows (`E2BIG` beyond).
pub const MAX_ARG_BYTES: usize = 2 * 1024 * 1024;

/// Most auxiliary-vector entries a caller may pass (Linux's own vector has
/// room for about 30 in all).
pub const MAX_AUXV_ENTRIES: usize = 32;

const WORD: u64 = 8;

/// The initial stack as bytes, and the addresses in it the kernel needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InitialStack {
    /// The stack contents, to be copied so that the last byte is just below
    /// `stack_top`; the first byte goes to `sp`.
    pub bytes: Vec<u8>,
    /// The initial `rsp`: 16-byte aligned, pointing at argc.
    pub sp: u64,
    /// Address of `argv[0]`'s pointer (`sp + 8`).
    pub argv_ptr: u64,
    /// Address of `envp[0]`'s pointer.
    pub envp_ptr: u64,
    /// Address of the first auxiliary-vector pair.
    pub auxv_ptr: u64,
    /// First byte of the argument strings (Linux's `mm->arg_start`, for
    /// `/proc/PID/cmdline`).
    pub arg_start: u64,
    /// One past the last argument string's NUL (`mm->arg_end`).
    pub arg_end: u64,
    /// First byte of the environment strings (`mm->env_start`).
    pub env_start: u64,
    /// One past the last environment string's NUL (`mm->env_end`).
    pub env_end: u64,
    /// Address of the execfn string (`AT_EXECFN`).
    pub execfn_ptr: u64,
    /// Address of the 16 random bytes (`AT_RANDOM`).
    pub random_ptr: u64,
    /// Address of the platform string (`AT_PLATFORM`), if one was given.
    pub platform_ptr: Option<u64>,
}

fn check_string(s: &[u8]) -> Result<u64, ElfError> {
    if s.contains(&0) {
        return Err(ElfError::NulInString);
    }
    let len = s.len() + 1;
    if len > MAX_ARG_STRLEN {
        return Err(ElfError::ArgumentListTooLong);
    }
    Ok(len as u64)
}

/// Builds the initial stack of a new program.
///
/// - `stack_top`: the address just past the stack, 16-byte aligned
///   (normally the page-aligned end of the stack mapping).
/// - `argv`, `envp`: the strings, without NULs. An empty `argv` gets one
///   empty string, as Linux (since 5.18) gives programs executed with
///   `argc == 0`.
/// - `auxv`: the entries the caller knows (`AT_PHDR`, `AT_ENTRY`,
///   `AT_BASE`, ...), in the order they should appear. The builder adds
///   `AT_RANDOM`, `AT_EXECFN`, `AT_PLATFORM` (only if `platform` is not
///   empty) and the final `AT_NULL`, so the caller may not pass those.
/// - `random16`: the bytes `AT_RANDOM` points at.
/// - `platform`: `b"x86_64"` on x86_64.
/// - `execfn`: the path given to `execve` (`AT_EXECFN`).
///
/// Fails with [`ElfError::ArgumentListTooLong`] (`E2BIG`) when a string
/// exceeds [`MAX_ARG_STRLEN`] or all of them together, with the pointer
/// arrays, exceed [`MAX_ARG_BYTES`].
pub fn build_initial_stack(
    stack_top: u64,
    argv: &[&[u8]],
    envp: &[&[u8]],
    auxv: &[(u64, u64)],
    random16: [u8; 16],
    platform: &[u8],
    execfn: &[u8],
) -> Result<InitialStack, ElfError> {
    const EMPTY_ARGV: [&[u8]; 1] = [b""];
    let argv: &[&[u8]] = if argv.is_empty() { &EMPTY_ARGV } else { argv };

    if stack_top % 16 != 0 {
        return Err(ElfError::MisalignedStackTop);
    }
    if auxv.len() > MAX_AUXV_ENTRIES {
        return Err(ElfError::TooManyAuxvEntries);
    }
    if let Some(&(key, _)) = auxv.iter().find(|(k, _)| matches!(*k, AT_NULL | AT_RANDOM | AT_EXECFN | AT_PLATFORM)) {
        return Err(ElfError::ReservedAuxvEntry(key));
    }
    if platform.contains(&0) {
        return Err(ElfError::NulInString);
    }

    // Linux's accounting (bprm_stack_limits and copy_strings): all strings
    // including the file name, plus one pointer per argument and
    // environment string. The counts are bounded by the slice lengths and
    // each string by MAX_ARG_STRLEN, and the running total is stopped at
    // the limit, so nothing here can overflow.
    let limit = MAX_ARG_BYTES as u64;
    let mut total = (argv.len() as u64).saturating_add(envp.len() as u64).saturating_mul(WORD);
    if total > limit {
        return Err(ElfError::ArgumentListTooLong);
    }
    for s in argv.iter().chain(envp.iter()).chain(core::iter::once(&execfn)) {
        total += check_string(s)?;
        if total > limit {
            return Err(ElfError::ArgumentListTooLong);
        }
    }

    let low = ElfError::StackTopTooLow;
    let sub = |a: u64, b: u64| a.checked_sub(b).ok_or(low);

    // The strings, placed downward from the end marker.
    let execfn_ptr = sub(sub(stack_top, WORD)?, execfn.len() as u64 + 1)?;
    let env_bytes: u64 = envp.iter().map(|s| s.len() as u64 + 1).sum();
    let arg_bytes: u64 = argv.iter().map(|s| s.len() as u64 + 1).sum();
    let env_start = sub(execfn_ptr, env_bytes)?;
    let arg_start = sub(env_start, arg_bytes)?;

    // arch_align_stack without randomization: down to 16 bytes.
    let aligned = arg_start & !15;
    let platform_ptr = if platform.is_empty() { None } else { Some(sub(aligned, platform.len() as u64 + 1)?) };
    let random_ptr = sub(platform_ptr.unwrap_or(aligned), 16)?;

    // Caller's entries, our three (or two), and AT_NULL.
    let mut vector: Vec<(u64, u64)> = Vec::new();
    vector.try_reserve_exact(auxv.len() + 4).map_err(|_| ElfError::OutOfMemory)?;
    vector.extend_from_slice(auxv);
    vector.push((AT_RANDOM, random_ptr));
    vector.push((AT_EXECFN, execfn_ptr));
    if let Some(p) = platform_ptr {
        vector.push((AT_PLATFORM, p));
    }
    vector.push((AT_NULL, 0));

    // STACK_ADD for the auxv, then STACK_ROUND for argc, argv and envp.
    let auxv_len = vector.len() as u64 * 2 * WORD;
    let items = (argv.len() as u64 + 1) + (envp.len() as u64 + 1) + 1;
    let sp = sub(sub(random_ptr, auxv_len)?, items * WORD)? & !15;
    let argv_ptr = sp + WORD;
    let envp_ptr = argv_ptr + (argv.len() as u64 + 1) * WORD;
    let auxv_ptr = envp_ptr + (envp.len() as u64 + 1) * WORD;

    // Write the image in ascending address order, so that every byte is
    // pushed exactly once and no index can go wrong.
    let size = usize::try_from(stack_top - sp).map_err(|_| ElfError::OutOfMemory)?;
    let mut bytes: Vec<u8> = Vec::new();
    bytes.try_reserve_exact(size).map_err(|_| ElfError::OutOfMemory)?;
    let word = |bytes: &mut Vec<u8>, v: u64| bytes.extend_from_slice(&v.to_le_bytes());
    let pad_to = |bytes: &mut Vec<u8>, addr: u64| {
        let want = (addr - sp) as usize;
        if bytes.len() < want {
            bytes.resize(want, 0);
        }
    };

    word(&mut bytes, argv.len() as u64);
    let mut p = arg_start;
    for s in argv {
        word(&mut bytes, p);
        p += s.len() as u64 + 1;
    }
    word(&mut bytes, 0);
    let mut p = env_start;
    for s in envp {
        word(&mut bytes, p);
        p += s.len() as u64 + 1;
    }
    word(&mut bytes, 0);
    for &(key, value) in &vector {
        word(&mut bytes, key);
        word(&mut bytes, value);
    }
    pad_to(&mut bytes, random_ptr);
    bytes.extend_from_slice(&random16);
    if !platform.is_empty() {
        bytes.extend_from_slice(platform);
        bytes.push(0);
    }
    pad_to(&mut bytes, arg_start);
    for s in argv.iter().chain(envp.iter()).chain(core::iter::once(&execfn)) {
        bytes.extend_from_slice(s);
        bytes.push(0);
    }
    bytes.extend_from_slice(&[0; WORD as usize]);
    debug_assert_eq!(bytes.len(), size);

    Ok(InitialStack {
        bytes,
        sp,
        argv_ptr,
        envp_ptr,
        auxv_ptr,
        arg_start,
        arg_end: env_start,
        env_start,
        env_end: execfn_ptr,
        execfn_ptr,
        random_ptr,
        platform_ptr,
    })
}
