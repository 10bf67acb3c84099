//! Classic BPF as seccomp and socket filters use it: Linux's checks when a
//! filter is loaded, and an interpreter that runs a checked filter over a
//! `struct seccomp_data` or a packet ([`Filter::load_socket`],
//! [`Filter::run_packet`]).
//!
//! [`Filter::load`] applies, in one pass each, what Linux 6.1 applies to a
//! filter given to `seccomp(SECCOMP_SET_MODE_FILTER)`:
//!
//! - the length: 1 to `BPF_MAXINSNS` (4096) instructions;
//! - the classic checks (`bpf_check_classic`): known opcodes only, no
//!   division by a constant zero, no shift by a constant of 32 or more,
//!   scratch-memory indices below `BPF_MEMWORDS`, every jump landing inside
//!   the program (jumps only go forward: offsets are unsigned), the last
//!   instruction a return, and no scratch cell read on a path where it was
//!   not written first;
//! - seccomp's own restrictions (`seccomp_check_filter`): the only loads
//!   from the input are 32-bit loads at 4-byte-aligned offsets inside
//!   `struct seccomp_data` (64 bytes) and the length loads (which read as
//!   64); no half-word, byte or indirect loads, no `BPF_MOD`, no `BPF_MSH`.
//!
//! Every failure is `EINVAL` in Linux except a failed allocation
//! (`ENOMEM`): [`Error`] says which.
//!
//! [`Filter::run`] is bounded by construction: every jump goes forward,
//! so a run executes each instruction at most once. Division by a zero X
//! returns 0 from the program, as Linux's translation of classic BPF does;
//! shifts by X use the low five bits of X, as the x86 JIT does.

#![no_std]
#![forbid(unsafe_code)]

extern crate alloc;

use alloc::vec::Vec;
use linux_raw_sys::ptrace as abi;

/// The size of `struct seccomp_data`: the input every filter reads.
pub const SECCOMP_DATA_SIZE: usize = core::mem::size_of::<abi::seccomp_data>();

/// The most instructions a filter may have.
pub const MAX_INSNS: usize = abi::BPF_MAXINSNS as usize;

const MEMWORDS: usize = abi::BPF_MEMWORDS as usize;

/// Why a filter was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Error {
    /// Linux's EINVAL: a bad length, opcode, operand or jump.
    Invalid,
    /// Linux's ENOMEM: no memory for the checked program.
    NoMemory,
}

/// One instruction as user space lays it out (`struct sock_filter`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SockFilter {
    pub code: u16,
    pub jt: u8,
    pub jf: u8,
    pub k: u32,
}

impl SockFilter {
    /// The size of `struct sock_filter`.
    pub const SIZE: usize = 8;

    pub const fn new(code: u16, jt: u8, jf: u8, k: u32) -> SockFilter {
        SockFilter { code, jt, jf, k }
    }

    /// Decodes one instruction from its 8 bytes (x86_64 byte order).
    pub fn from_bytes(b: [u8; 8]) -> SockFilter {
        SockFilter {
            code: u16::from_le_bytes([b[0], b[1]]),
            jt: b[2],
            jf: b[3],
            k: u32::from_le_bytes([b[4], b[5], b[6], b[7]]),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum AluOp {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    And,
    Or,
    Xor,
    Lsh,
    Rsh,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cond {
    Eq,
    Gt,
    Ge,
    Set,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Src {
    K(u32),
    X,
}

/// A checked instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Insn {
    /// A = 32-bit word of the input at this (aligned, in-range) offset.
    LoadData(u8),
    /// Socket filters: A = the packet's bytes (1, 2 or 4, big-endian) at
    /// K (absolute) or X + K (indirect); out of range, the program
    /// returns 0 (the packet is dropped).
    LoadPkt { size: u8, indirect: bool, k: u32 },
    /// Socket filters: A = the packet's length.
    LoadLen,
    /// Socket filters: X = the packet's length.
    LoadXLen,
    /// Socket filters: X = 4 * (packet byte at K & 0xf) (BPF_MSH).
    Msh(u32),
    LoadImm(u32),
    LoadXImm(u32),
    LoadMem(u8),
    LoadXMem(u8),
    Store(u8),
    StoreX(u8),
    Alu(AluOp, Src),
    Neg,
    Tax,
    Txa,
    /// Skip this many instructions.
    Ja(u32),
    Jump(Cond, Src, u8, u8),
    RetK(u32),
    RetA,
}

/// What an opcode is, before its operands are checked.
enum Kind {
    Load(u32),
    Ld(Insn),
    Mem(Insn, u32),
    Div(Src),
    Mod(Src),
    Shift(AluOp, Src),
    Plain(Insn),
    Ja(u32),
    Jump(Cond, Src),
    Ret(Insn),
}

const fn c(v: u32) -> u16 {
    v as u16
}

const LD_W_ABS: u16 = c(abi::BPF_LD | abi::BPF_W | abi::BPF_ABS);
const LD_W_LEN: u16 = c(abi::BPF_LD | abi::BPF_W | abi::BPF_LEN);
const LDX_W_LEN: u16 = c(abi::BPF_LDX | abi::BPF_W | abi::BPF_LEN);
const LD_IMM: u16 = c(abi::BPF_LD | abi::BPF_IMM);
const LDX_IMM: u16 = c(abi::BPF_LDX | abi::BPF_IMM);
const LD_MEM: u16 = c(abi::BPF_LD | abi::BPF_MEM);
const LDX_MEM: u16 = c(abi::BPF_LDX | abi::BPF_MEM);
const ST: u16 = c(abi::BPF_ST);
const STX: u16 = c(abi::BPF_STX);
const TAX: u16 = c(abi::BPF_MISC | abi::BPF_TAX);
const TXA: u16 = c(abi::BPF_MISC | abi::BPF_TXA);
const NEG: u16 = c(abi::BPF_ALU | abi::BPF_NEG);
const JA: u16 = c(abi::BPF_JMP | abi::BPF_JA);
const RET_K: u16 = c(abi::BPF_RET | abi::BPF_K);
const RET_A: u16 = c(abi::BPF_RET | abi::BPF_A);

/// Classifies an opcode seccomp accepts; `None` for every other one
/// (unknown to classic BPF, or classic but refused by seccomp: packet
/// loads of other sizes, indirect loads, `BPF_MSH`, `BPF_MOD`).
fn classify(f: &SockFilter) -> Option<Kind> {
    let code = f.code;
    let k = f.k;
    Some(match code {
        LD_W_ABS => Kind::Load(k),
        LD_W_LEN => Kind::Ld(Insn::LoadImm(SECCOMP_DATA_SIZE as u32)),
        LDX_W_LEN => Kind::Ld(Insn::LoadXImm(SECCOMP_DATA_SIZE as u32)),
        LD_IMM => Kind::Ld(Insn::LoadImm(k)),
        LDX_IMM => Kind::Ld(Insn::LoadXImm(k)),
        LD_MEM => Kind::Mem(Insn::LoadMem(k as u8), k),
        LDX_MEM => Kind::Mem(Insn::LoadXMem(k as u8), k),
        ST => Kind::Mem(Insn::Store(k as u8), k),
        STX => Kind::Mem(Insn::StoreX(k as u8), k),
        TAX => Kind::Plain(Insn::Tax),
        TXA => Kind::Plain(Insn::Txa),
        NEG => Kind::Plain(Insn::Neg),
        JA => Kind::Ja(k),
        RET_K => Kind::Ret(Insn::RetK(k)),
        RET_A => Kind::Ret(Insn::RetA),
        _ => {
            let class = u32::from(code & 0x07);
            let op = u32::from(code & 0xf0);
            let src = match u32::from(code & 0x08) {
                abi::BPF_K => Src::K(k),
                _ => Src::X,
            };
            // Every bit of an ALU or jump opcode is class, operation and
            // source: anything above them is no opcode.
            if code & !0xff != 0 {
                return None;
            }
            match class {
                abi::BPF_ALU => {
                    let alu = match op {
                        abi::BPF_ADD => AluOp::Add,
                        abi::BPF_SUB => AluOp::Sub,
                        abi::BPF_MUL => AluOp::Mul,
                        abi::BPF_DIV => return Some(Kind::Div(src)),
                        abi::BPF_AND => AluOp::And,
                        abi::BPF_OR => AluOp::Or,
                        abi::BPF_XOR => AluOp::Xor,
                        abi::BPF_LSH => return Some(Kind::Shift(AluOp::Lsh, src)),
                        abi::BPF_RSH => return Some(Kind::Shift(AluOp::Rsh, src)),
                        _ => return None,
                    };
                    Kind::Plain(Insn::Alu(alu, src))
                }
                abi::BPF_JMP => {
                    let cond = match op {
                        abi::BPF_JEQ => Cond::Eq,
                        abi::BPF_JGT => Cond::Gt,
                        abi::BPF_JGE => Cond::Ge,
                        abi::BPF_JSET => Cond::Set,
                        _ => return None,
                    };
                    Kind::Jump(cond, src)
                }
                _ => return None,
            }
        }
    })
}

/// Classifies an opcode a socket filter accepts: seccomp's, the packet
/// loads and `BPF_MOD`.
fn classify_socket(f: &SockFilter) -> Option<Kind> {
    let code = u32::from(f.code);
    let k = f.k;
    let size = |code: u32| match code & 0x18 {
        abi::BPF_W => Some(4u8),
        abi::BPF_H => Some(2),
        abi::BPF_B => Some(1),
        _ => None,
    };
    if code & !0xff != 0 {
        return None;
    }
    match (code & 0x07, code & 0xe0) {
        (abi::BPF_LD, abi::BPF_ABS) => {
            // The ancillary and link/network-layer areas (negative
            // offsets) are not implemented.
            if (k as i32) < 0 {
                return None;
            }
            Some(Kind::Ld(Insn::LoadPkt { size: size(code)?, indirect: false, k }))
        }
        (abi::BPF_LD, abi::BPF_IND) => Some(Kind::Ld(Insn::LoadPkt { size: size(code)?, indirect: true, k })),
        (abi::BPF_LD, abi::BPF_LEN) if code & 0x18 == abi::BPF_W => Some(Kind::Ld(Insn::LoadLen)),
        (abi::BPF_LDX, abi::BPF_LEN) if code & 0x18 == abi::BPF_W => Some(Kind::Ld(Insn::LoadXLen)),
        (abi::BPF_LDX, abi::BPF_MSH) if code & 0x18 == abi::BPF_B => Some(Kind::Ld(Insn::Msh(k))),
        (abi::BPF_ALU, _) if code & 0xf0 == abi::BPF_MOD => Some(Kind::Mod(if code & 0x08 == abi::BPF_K { Src::K(k) } else { Src::X })),
        _ => classify(f),
    }
}

/// A checked filter, ready to run.
#[derive(Debug, Clone)]
pub struct Filter {
    insns: Vec<Insn>,
    translated_len: usize,
}

impl Filter {
    /// Checks `prog` as Linux checks a seccomp filter and returns it ready
    /// to run.
    pub fn load(prog: &[SockFilter]) -> Result<Filter, Error> {
        Self::load_with(prog, false)
    }

    /// Checks `prog` as Linux checks a socket filter (SO_ATTACH_FILTER):
    /// the classic checks, with the packet loads seccomp refuses (byte,
    /// half-word and word loads at an absolute or indirect offset, the
    /// length, `BPF_MSH`) and `BPF_MOD` allowed. Loads from the ancillary
    /// areas (negative absolute offsets) are refused here with EINVAL.
    pub fn load_socket(prog: &[SockFilter]) -> Result<Filter, Error> {
        Self::load_with(prog, true)
    }

    fn load_with(prog: &[SockFilter], socket: bool) -> Result<Filter, Error> {
        let len = prog.len();
        if len == 0 || len > MAX_INSNS {
            return Err(Error::Invalid);
        }
        let mut insns = Vec::new();
        insns.try_reserve_exact(len).map_err(|_| Error::NoMemory)?;
        for (pc, f) in prog.iter().enumerate() {
            // Instructions left after this one: a jump may skip at most
            // that many minus one (it must land on an instruction).
            let after = len - pc - 1;
            let kind = if socket { classify_socket(f) } else { classify(f) };
            let insn = match kind.ok_or(Error::Invalid)? {
                Kind::Load(k) => {
                    if k as usize >= SECCOMP_DATA_SIZE || k & 3 != 0 {
                        return Err(Error::Invalid);
                    }
                    Insn::LoadData(k as u8)
                }
                Kind::Ld(insn) | Kind::Plain(insn) => insn,
                Kind::Mem(insn, k) => {
                    if k as usize >= MEMWORDS {
                        return Err(Error::Invalid);
                    }
                    insn
                }
                Kind::Div(src) => {
                    if src == Src::K(0) {
                        return Err(Error::Invalid);
                    }
                    Insn::Alu(AluOp::Div, src)
                }
                Kind::Mod(src) => {
                    if src == Src::K(0) {
                        return Err(Error::Invalid);
                    }
                    Insn::Alu(AluOp::Mod, src)
                }
                Kind::Shift(op, src) => {
                    if matches!(src, Src::K(k) if k >= 32) {
                        return Err(Error::Invalid);
                    }
                    Insn::Alu(op, src)
                }
                Kind::Ja(k) => {
                    if k as usize >= after {
                        return Err(Error::Invalid);
                    }
                    Insn::Ja(k)
                }
                Kind::Jump(cond, src) => {
                    if usize::from(f.jt) >= after || usize::from(f.jf) >= after {
                        return Err(Error::Invalid);
                    }
                    Insn::Jump(cond, src, f.jt, f.jf)
                }
                Kind::Ret(insn) => insn,
            };
            insns.push(insn);
        }
        if !matches!(insns[len - 1], Insn::RetK(_) | Insn::RetA) {
            return Err(Error::Invalid);
        }
        check_memory(&insns)?;
        let translated_len = 3 + insns.iter().map(translated).sum::<usize>();
        Ok(Filter { insns, translated_len })
    }

    /// The length Linux gives the filter once it has translated it into
    /// its internal instruction set: what seccomp's limit on all the
    /// filters of a thread counts.
    pub fn translated_len(&self) -> usize {
        self.translated_len
    }

    /// The number of instructions.
    pub fn len(&self) -> usize {
        self.insns.len()
    }

    /// Never true: a loaded filter has at least one instruction.
    pub fn is_empty(&self) -> bool {
        self.insns.is_empty()
    }

    /// Runs the filter over `data` (a `struct seccomp_data`) and returns
    /// what its return instruction gave.
    pub fn run(&self, data: &[u8; SECCOMP_DATA_SIZE]) -> u32 {
        self.exec(data)
    }

    /// Runs a socket filter (see [`Filter::load_socket`]) over a packet
    /// and returns what its return instruction gave: the number of bytes
    /// to keep, 0 to drop the packet.
    pub fn run_packet(&self, packet: &[u8]) -> u32 {
        self.exec(packet)
    }

    fn exec(&self, data: &[u8]) -> u32 {
        let mut a: u32 = 0;
        let mut x: u32 = 0;
        let mut mem = [0u32; MEMWORDS];
        let mut pc = 0usize;
        // The checks make every jump land inside the program and the last
        // instruction a return, so `pc` stays in range and grows every
        // step; the fallback return is never reached.
        while let Some(&insn) = self.insns.get(pc) {
            pc += 1;
            match insn {
                Insn::LoadData(off) => {
                    let o = usize::from(off);
                    a = u32::from_le_bytes([data[o], data[o + 1], data[o + 2], data[o + 3]]);
                }
                Insn::LoadPkt { size, indirect, k } => {
                    let base = if indirect { x } else { 0 };
                    let off = match base.checked_add(k) {
                        // Negative offsets (the ancillary areas) are
                        // refused on load for absolute loads; an indirect
                        // one that reaches them reads nothing.
                        Some(o) if (o as i32) >= 0 => o as usize,
                        _ => return 0,
                    };
                    let n = usize::from(size);
                    match off.checked_add(n).and_then(|end| data.get(off..end)) {
                        Some(bytes) => a = bytes.iter().fold(0u32, |acc, b| (acc << 8) | u32::from(*b)),
                        None => return 0,
                    }
                }
                Insn::LoadLen => a = data.len() as u32,
                Insn::LoadXLen => x = data.len() as u32,
                Insn::Msh(k) => match data.get(k as usize) {
                    Some(b) => x = 4 * u32::from(b & 0xf),
                    None => return 0,
                },
                Insn::LoadImm(k) => a = k,
                Insn::LoadXImm(k) => x = k,
                Insn::LoadMem(i) => a = mem[usize::from(i)],
                Insn::LoadXMem(i) => x = mem[usize::from(i)],
                Insn::Store(i) => mem[usize::from(i)] = a,
                Insn::StoreX(i) => mem[usize::from(i)] = x,
                Insn::Tax => x = a,
                Insn::Txa => a = x,
                Insn::Neg => a = a.wrapping_neg(),
                Insn::Alu(op, src) => {
                    let v = match src {
                        Src::K(k) => k,
                        Src::X => x,
                    };
                    a = match op {
                        AluOp::Add => a.wrapping_add(v),
                        AluOp::Sub => a.wrapping_sub(v),
                        AluOp::Mul => a.wrapping_mul(v),
                        AluOp::Div => match a.checked_div(v) {
                            Some(q) => q,
                            // Only X can be zero here (a constant zero is
                            // refused on load): the program returns 0.
                            None => return 0,
                        },
                        AluOp::Mod => match a.checked_rem(v) {
                            Some(r) => r,
                            None => return 0,
                        },
                        AluOp::And => a & v,
                        AluOp::Or => a | v,
                        AluOp::Xor => a ^ v,
                        AluOp::Lsh => a.wrapping_shl(v),
                        AluOp::Rsh => a.wrapping_shr(v),
                    };
                }
                Insn::Ja(k) => pc += k as usize,
                Insn::Jump(cond, src, jt, jf) => {
                    let v = match src {
                        Src::K(k) => k,
                        Src::X => x,
                    };
                    let taken = match cond {
                        Cond::Eq => a == v,
                        Cond::Gt => a > v,
                        Cond::Ge => a >= v,
                        Cond::Set => a & v != 0,
                    };
                    pc += usize::from(if taken { jt } else { jf });
                }
                Insn::RetK(k) => return k,
                Insn::RetA => return a,
            }
        }
        0
    }
}

/// How many internal instructions Linux's translation of classic BPF
/// (`bpf_convert_filter`) makes of one checked instruction; the program
/// gets 3 more in front (clearing A and X, saving the context).
fn translated(insn: &Insn) -> usize {
    match *insn {
        // A division by X first checks X and returns 0 if it is zero.
        Insn::Alu(AluOp::Div | AluOp::Mod, Src::X) => 5,
        // A = K, then exit.
        Insn::RetK(_) => 2,
        Insn::Jump(cond, src, jt, jf) => {
            // A constant that is negative as an int goes through a
            // register (immediates are sign-extended).
            let through_reg = usize::from(matches!(src, Src::K(k) if (k as i32) < 0));
            // Falling through on false, or (with the condition reversed)
            // on true, is one jump; otherwise a jump and a JA.
            let single = jf == 0 || (jt == 0 && !matches!(cond, Cond::Set));
            through_reg + if single { 1 } else { 2 }
        }
        _ => 1,
    }
}

/// Linux's `check_load_and_stores`: a scratch cell may be read only where
/// every path to the read wrote it. Each instruction's mask is the cells
/// valid on every jump reaching it; falling through carries the current
/// set, and after a jump nothing falls through.
fn check_memory(insns: &[Insn]) -> Result<(), Error> {
    let mut masks: Vec<u16> = Vec::new();
    masks.try_reserve_exact(insns.len()).map_err(|_| Error::NoMemory)?;
    masks.resize(insns.len(), u16::MAX);
    let mut valid: u16 = 0;
    for (pc, insn) in insns.iter().enumerate() {
        valid &= masks[pc];
        match *insn {
            Insn::Store(i) | Insn::StoreX(i) => valid |= 1 << i,
            Insn::LoadMem(i) | Insn::LoadXMem(i) => {
                if valid & (1 << i) == 0 {
                    return Err(Error::Invalid);
                }
            }
            Insn::Ja(k) => {
                masks[pc + 1 + k as usize] &= valid;
                valid = u16::MAX;
            }
            Insn::Jump(_, _, jt, jf) => {
                masks[pc + 1 + usize::from(jt)] &= valid;
                masks[pc + 1 + usize::from(jf)] &= valid;
                valid = u16::MAX;
            }
            _ => {}
        }
    }
    Ok(())
}

/// Builds the bytes of a `struct seccomp_data`.
pub fn seccomp_data(nr: i32, arch: u32, ip: u64, args: [u64; 6]) -> [u8; SECCOMP_DATA_SIZE] {
    let mut d = [0u8; SECCOMP_DATA_SIZE];
    d[0..4].copy_from_slice(&nr.to_le_bytes());
    d[4..8].copy_from_slice(&arch.to_le_bytes());
    d[8..16].copy_from_slice(&ip.to_le_bytes());
    for (i, a) in args.iter().enumerate() {
        d[16 + i * 8..24 + i * 8].copy_from_slice(&a.to_le_bytes());
    }
    d
}

#[cfg(test)]
mod tests;
