//! Hardware breakpoints and watchpoints set through ptrace: the debug
//! registers of `struct user` (u_debugreg[8], PTRACE_PEEKUSER/POKEUSER),
//! checked as Linux 6.1 checks them, and what a #DB from user mode means
//! for the thread (the SIGTRAP and its si_code, the DR6 a tracer reads).
//!
//! As in Linux, each of DR0-DR3 is a breakpoint that exists once its
//! address or an enabling DR7 was written (a new one is a disabled
//! one-byte write watchpoint), and every write is checked against the
//! breakpoint's length and type: addresses aligned to the length, in user
//! space; no I/O breakpoints; instruction breakpoints of length 1. DR7
//! reads back exactly as written; DR6 is the "virtual" one (the step and
//! breakpoint bits of the last #DB, or what the tracer wrote).

use linux_raw_sys::general as abi;

use super::Thread;
use crate::error::{Errno, Result};

/// Where `u_debugreg` sits in `struct user`.
pub const DEBUGREG_OFFSET: u64 = 848;
const DR6_RESERVED: u64 = 0xffff_0ff0;
const DR_STEP: u64 = 1 << 14;
const DR_TRAP_BITS: u64 = 0xf;
/// DR7 bits Linux ignores on a write (bits 10-15).
const DR_CONTROL_RESERVED: u64 = 0xfc00;
/// The first address past what a user breakpoint may watch (TASK_SIZE_MAX).
const TASK_SIZE_MAX: u64 = 0x7fff_ffff_f000;

/// Breakpoint types (DR7's R/W field).
const TYPE_EXECUTE: u64 = 0;
const TYPE_IO: u64 = 2;

#[derive(Clone, Copy, Default)]
struct Breakpoint {
    addr: u64,
    /// DR7's LEN field (0: 1 byte, 1: 2, 2: 8, 3: 4).
    len: u64,
    /// DR7's R/W field (0: execute, 1: write, 3: read or write).
    kind: u64,
    enabled: bool,
}

impl Breakpoint {
    fn bytes(&self) -> u64 {
        if self.kind == TYPE_EXECUTE {
            return 1;
        }
        match self.len {
            0 => 1,
            1 => 2,
            2 => 8,
            _ => 4,
        }
    }

    /// Linux's checks of a breakpoint's fields (hw_breakpoint_arch_parse
    /// and the generic ones for a user breakpoint).
    fn check(&self) -> Result<()> {
        if self.kind == TYPE_IO || (self.kind == TYPE_EXECUTE && self.len != 0) {
            return Err(Errno::EINVAL);
        }
        let n = self.bytes();
        if self.addr & (n - 1) != 0 {
            return Err(Errno::EINVAL);
        }
        if self.addr >= TASK_SIZE_MAX || self.addr + (n - 1) >= TASK_SIZE_MAX {
            return Err(Errno::EINVAL);
        }
        Ok(())
    }
}

/// A thread's ptrace breakpoints.
#[derive(Clone, Default)]
pub struct HwBreak {
    bps: [Option<Breakpoint>; 4],
    /// DR7 as last written by the tracer.
    dr7: u64,
    /// The debug status in positive polarity (DR6 ^ DR6_RESERVED).
    virtual_dr6: u64,
}

impl HwBreak {
    pub const fn new() -> Self {
        Self { bps: [None; 4], dr7: 0, virtual_dr6: 0 }
    }

    /// u_debugreg[n] (PTRACE_PEEKUSER).
    pub fn get(&self, n: usize) -> u64 {
        match n {
            0..=3 => self.bps[n].map_or(0, |b| b.addr),
            6 => self.virtual_dr6 ^ DR6_RESERVED,
            7 => self.dr7,
            _ => 0,
        }
    }

    /// u_debugreg[n] = value (PTRACE_POKEUSER); EIO for DR4 and DR5,
    /// EINVAL for what no breakpoint can be.
    pub fn set(&mut self, n: usize, value: u64) -> Result<()> {
        match n {
            0..=3 => {
                let mut bp = self.bps[n].unwrap_or(Breakpoint { addr: 0, len: 0, kind: 1, enabled: false });
                bp.addr = value;
                bp.check()?;
                self.bps[n] = Some(bp);
                Ok(())
            }
            6 => {
                self.virtual_dr6 = value ^ DR6_RESERVED;
                Ok(())
            }
            7 => self.set_dr7(value),
            _ => Err(Errno::EIO),
        }
    }

    fn set_dr7(&mut self, value: u64) -> Result<()> {
        let data = value & !DR_CONTROL_RESERVED;
        let mut bps = self.bps;
        for (i, slot) in bps.iter_mut().enumerate() {
            let enabled = (data >> (2 * i)) & 3 != 0;
            let field = data >> (16 + 4 * i);
            let (kind, len) = (field & 3, (field >> 2) & 3);
            if slot.is_none() && !enabled {
                continue;
            }
            let addr = slot.map_or(0, |b| b.addr);
            let bp = Breakpoint { addr, len, kind, enabled };
            bp.check()?;
            *slot = Some(bp);
        }
        self.bps = bps;
        self.dr7 = value;
        Ok(())
    }

    /// The addresses and the DR7 to load for the thread.
    pub fn hardware(&self) -> ([u64; 4], u64) {
        let mut addr = [0u64; 4];
        let mut dr7 = 0u64;
        for (i, bp) in self.bps.iter().enumerate() {
            if let Some(bp) = bp.filter(|b| b.enabled) {
                addr[i] = bp.addr;
                // The global enable bit, type and length.
                dr7 |= (2 << (2 * i)) | (bp.kind << (16 + 4 * i)) | (bp.len << (18 + 4 * i));
            }
        }
        (addr, dr7)
    }

    /// A #DB from user mode with `dr6`: the SIGTRAP si_code to send, if
    /// any (Linux's exc_debug_user): a single step (TRAP_TRACE), one of
    /// the enabled breakpoints (TRAP_HWBKPT), or an `int1` with no cause
    /// (TRAP_BRKPT). The virtual DR6 records the step and breakpoint bits.
    pub fn debug_trap(&mut self, dr6: u64) -> Option<i32> {
        let dr6 = dr6 ^ DR6_RESERVED;
        let icebp = dr6 == 0;
        let mut hits = 0;
        for (i, bp) in self.bps.iter().enumerate() {
            if dr6 & DR_TRAP_BITS & (1 << i) != 0 && bp.is_some_and(|b| b.enabled) {
                hits |= 1 << i;
            }
        }
        self.virtual_dr6 = (dr6 & DR_STEP) | hits;
        if self.virtual_dr6 & DR_STEP != 0 {
            Some(abi::TRAP_TRACE as i32)
        } else if hits != 0 {
            Some(abi::TRAP_HWBKPT as i32)
        } else if icebp {
            Some(abi::TRAP_BRKPT as i32)
        } else {
            None
        }
    }
}

/// Applies a thread's breakpoints to its task (loaded when it next runs).
pub fn load(thread: &Thread, hw: &HwBreak) {
    let (addr, dr7) = hw.hardware();
    thread.task.set_debug_regs(addr, dr7);
}

/// exec: the new program starts without breakpoints (Linux's
/// flush_ptrace_hw_breakpoint).
pub fn flush(thread: &Thread) {
    let mut hw = thread.ptrace.debug.lock();
    if hw.dr7 != 0 || hw.virtual_dr6 != 0 || hw.bps.iter().any(Option::is_some) {
        *hw = HwBreak::new();
        drop(hw);
        thread.task.set_debug_regs([0; 4], 0);
    }
}

/// A #DB taken in user mode: the si_code of the SIGTRAP to send, if any.
pub fn user_debug_trap(thread: &Thread, dr6: u64) -> Option<i32> {
    thread.ptrace.debug.lock().debug_trap(dr6)
}
