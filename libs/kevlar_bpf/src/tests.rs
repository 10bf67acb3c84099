use super::*;
use alloc::vec;

const RET_ALLOW: u32 = abi::SECCOMP_RET_ALLOW;
const RET_KILL: u32 = abi::SECCOMP_RET_KILL_PROCESS;

fn i(code: u32, jt: u8, jf: u8, k: u32) -> SockFilter {
    SockFilter::new(code as u16, jt, jf, k)
}

fn ld(off: u32) -> SockFilter {
    i(abi::BPF_LD | abi::BPF_W | abi::BPF_ABS, 0, 0, off)
}

fn ret(k: u32) -> SockFilter {
    i(abi::BPF_RET | abi::BPF_K, 0, 0, k)
}

fn jeq(k: u32, jt: u8, jf: u8) -> SockFilter {
    i(abi::BPF_JMP | abi::BPF_JEQ | abi::BPF_K, jt, jf, k)
}

fn alu(op: u32, k: u32) -> SockFilter {
    i(abi::BPF_ALU | op | abi::BPF_K, 0, 0, k)
}

fn data(nr: i32) -> [u8; SECCOMP_DATA_SIZE] {
    seccomp_data(nr, abi::AUDIT_ARCH_X86_64, 0x1234_5678_9abc, [1, 2, 3, 4, 5, 0xdead_beef_0000_0007])
}

fn run(prog: &[SockFilter], d: &[u8; SECCOMP_DATA_SIZE]) -> u32 {
    Filter::load(prog).expect("filter loads").run(d)
}

#[test]
fn layout_of_seccomp_data() {
    assert_eq!(SECCOMP_DATA_SIZE, 64);
    let d = data(39);
    assert_eq!(run(&[ld(0), i(abi::BPF_RET | abi::BPF_A, 0, 0, 0)], &d), 39);
    assert_eq!(run(&[ld(4), i(abi::BPF_RET | abi::BPF_A, 0, 0, 0)], &d), abi::AUDIT_ARCH_X86_64);
    assert_eq!(run(&[ld(8), i(abi::BPF_RET | abi::BPF_A, 0, 0, 0)], &d), 0x5678_9abc);
    assert_eq!(run(&[ld(12), i(abi::BPF_RET | abi::BPF_A, 0, 0, 0)], &d), 0x1234);
    assert_eq!(run(&[ld(56), i(abi::BPF_RET | abi::BPF_A, 0, 0, 0)], &d), 7);
    assert_eq!(run(&[ld(60), i(abi::BPF_RET | abi::BPF_A, 0, 0, 0)], &d), 0xdead_beef);
}

#[test]
fn allow_one_syscall() {
    let prog = [ld(0), jeq(39, 0, 1), ret(RET_ALLOW), ret(RET_KILL)];
    assert_eq!(run(&prog, &data(39)), RET_ALLOW);
    assert_eq!(run(&prog, &data(40)), RET_KILL);
}

#[test]
fn lengths() {
    assert_eq!(Filter::load(&[]).unwrap_err(), Error::Invalid);
    let mut long = vec![ret(RET_ALLOW); MAX_INSNS];
    assert_eq!(Filter::load(&long).unwrap().len(), MAX_INSNS);
    long.push(ret(RET_ALLOW));
    assert_eq!(Filter::load(&long).unwrap_err(), Error::Invalid);
}

#[test]
fn last_must_return() {
    assert_eq!(Filter::load(&[ld(0)]).unwrap_err(), Error::Invalid);
    assert_eq!(Filter::load(&[ret(0), ld(0)]).unwrap_err(), Error::Invalid);
    assert!(Filter::load(&[ld(0), i(abi::BPF_RET | abi::BPF_A, 0, 0, 0)]).is_ok());
}

#[test]
fn loads_aligned_and_in_range() {
    for off in [1, 2, 3, 5, 62, 64, 68, 0x1000, u32::MAX] {
        assert_eq!(Filter::load(&[ld(off), ret(0)]).unwrap_err(), Error::Invalid, "offset {off}");
    }
    for off in (0..64).step_by(4) {
        assert!(Filter::load(&[ld(off), ret(0)]).is_ok());
    }
}

#[test]
fn packet_loads_refused() {
    for code in [
        abi::BPF_LD | abi::BPF_H | abi::BPF_ABS,
        abi::BPF_LD | abi::BPF_B | abi::BPF_ABS,
        abi::BPF_LD | abi::BPF_W | abi::BPF_IND,
        abi::BPF_LD | abi::BPF_H | abi::BPF_IND,
        abi::BPF_LD | abi::BPF_B | abi::BPF_IND,
        abi::BPF_LDX | abi::BPF_B | abi::BPF_MSH,
    ] {
        assert_eq!(Filter::load(&[i(code, 0, 0, 0), ret(0)]).unwrap_err(), Error::Invalid, "code {code:#x}");
    }
}

#[test]
fn length_loads_read_the_data_size() {
    let a = i(abi::BPF_RET | abi::BPF_A, 0, 0, 0);
    assert_eq!(run(&[i(abi::BPF_LD | abi::BPF_W | abi::BPF_LEN, 0, 0, 99), a], &data(0)), 64);
    let prog = [i(abi::BPF_LDX | abi::BPF_W | abi::BPF_LEN, 0, 0, 99), i(abi::BPF_MISC | abi::BPF_TXA, 0, 0, 0), a];
    assert_eq!(run(&prog, &data(0)), 64);
}

#[test]
fn unknown_and_refused_opcodes() {
    let mut accepted = 0;
    for code in 0..=0xffffu32 {
        // k 0 suits every opcode but a division, k 4 every one but JA.
        let ok = [0, 4].iter().any(|&k| Filter::load(&[i(code, 0, 0, k), ret(0)]).is_ok());
        if ok {
            accepted += 1;
            assert!(code < 0x100, "code {code:#x}");
        }
    }
    // 18 ALU (9 operations by K or X), NEG, 5 loads (W ABS, two LEN, two IMM),
    // 2 stores, TAX, TXA, 2 returns, JA, 8 conditional jumps (the scratch
    // loads read unwritten cells here: `scratch_memory` has them).
    assert_eq!(accepted, 18 + 1 + 5 + 2 + 2 + 2 + 1 + 8);
    assert_eq!(Filter::load(&[alu(abi::BPF_MOD, 3), ret(0)]).unwrap_err(), Error::Invalid);
    assert_eq!(Filter::load(&[i(abi::BPF_ALU | abi::BPF_MOD | abi::BPF_X, 0, 0, 0), ret(0)]).unwrap_err(), Error::Invalid);
}

#[test]
fn constant_division_by_zero_refused() {
    assert_eq!(Filter::load(&[alu(abi::BPF_DIV, 0), ret(0)]).unwrap_err(), Error::Invalid);
    let a = i(abi::BPF_RET | abi::BPF_A, 0, 0, 0);
    assert_eq!(run(&[i(abi::BPF_LD | abi::BPF_IMM, 0, 0, 100), alu(abi::BPF_DIV, 7), a], &data(0)), 14);
}

#[test]
fn division_by_x_zero_returns_zero() {
    let a = i(abi::BPF_RET | abi::BPF_A, 0, 0, 0);
    let prog = [
        i(abi::BPF_LD | abi::BPF_IMM, 0, 0, 100),
        i(abi::BPF_ALU | abi::BPF_DIV | abi::BPF_X, 0, 0, 0),
        i(abi::BPF_LD | abi::BPF_IMM, 0, 0, 5),
        a,
    ];
    assert_eq!(run(&prog, &data(0)), 0);
}

#[test]
fn shifts() {
    assert_eq!(Filter::load(&[alu(abi::BPF_LSH, 32), ret(0)]).unwrap_err(), Error::Invalid);
    assert_eq!(Filter::load(&[alu(abi::BPF_RSH, 32), ret(0)]).unwrap_err(), Error::Invalid);
    let a = i(abi::BPF_RET | abi::BPF_A, 0, 0, 0);
    assert_eq!(run(&[i(abi::BPF_LD | abi::BPF_IMM, 0, 0, 1), alu(abi::BPF_LSH, 31), a], &data(0)), 1 << 31);
    // By X: the low five bits count.
    let prog = [
        i(abi::BPF_LDX | abi::BPF_IMM, 0, 0, 33),
        i(abi::BPF_LD | abi::BPF_IMM, 0, 0, 1),
        i(abi::BPF_ALU | abi::BPF_LSH | abi::BPF_X, 0, 0, 0),
        a,
    ];
    assert_eq!(run(&prog, &data(0)), 2);
}

#[test]
fn arithmetic() {
    let a = i(abi::BPF_RET | abi::BPF_A, 0, 0, 0);
    let imm = |k| i(abi::BPF_LD | abi::BPF_IMM, 0, 0, k);
    assert_eq!(run(&[imm(5), alu(abi::BPF_SUB, 6), a], &data(0)), u32::MAX);
    assert_eq!(run(&[imm(0x8000_0000), alu(abi::BPF_MUL, 2), a], &data(0)), 0);
    assert_eq!(run(&[imm(0xf0f0), alu(abi::BPF_AND, 0xff00), a], &data(0)), 0xf000);
    assert_eq!(run(&[imm(0xf0f0), alu(abi::BPF_OR, 0x0f), a], &data(0)), 0xf0ff);
    assert_eq!(run(&[imm(0xff), alu(abi::BPF_XOR, 0x0f), a], &data(0)), 0xf0);
    assert_eq!(run(&[imm(1), i(abi::BPF_ALU | abi::BPF_NEG, 0, 0, 0), a], &data(0)), u32::MAX);
    assert_eq!(run(&[imm(0x80), alu(abi::BPF_RSH, 4), a], &data(0)), 8);
    assert_eq!(run(&[imm(u32::MAX), alu(abi::BPF_ADD, 2), a], &data(0)), 1);
}

#[test]
fn jumps_in_range_and_forward() {
    // A conditional jump past the end.
    assert_eq!(Filter::load(&[jeq(0, 1, 0), ret(0)]).unwrap_err(), Error::Invalid);
    assert_eq!(Filter::load(&[jeq(0, 0, 1), ret(0)]).unwrap_err(), Error::Invalid);
    assert!(Filter::load(&[jeq(0, 0, 0), ret(0)]).is_ok());
    // JA: its offset is 32 bits.
    let ja = |k| i(abi::BPF_JMP | abi::BPF_JA, 0, 0, k);
    assert_eq!(Filter::load(&[ja(1), ret(0)]).unwrap_err(), Error::Invalid);
    assert_eq!(Filter::load(&[ja(u32::MAX), ret(0)]).unwrap_err(), Error::Invalid);
    assert_eq!(run(&[ja(1), ret(1), ret(2)], &data(0)), 2);
    // Conditions.
    let x = |code: u32, k, jt, jf| i(abi::BPF_JMP | code | abi::BPF_K, jt, jf, k);
    let t = |cond, k, nr| run(&[ld(0), x(cond, k, 0, 1), ret(1), ret(0)], &data(nr));
    assert_eq!(t(abi::BPF_JGT, 5, 6), 1);
    assert_eq!(t(abi::BPF_JGT, 5, 5), 0);
    assert_eq!(t(abi::BPF_JGE, 5, 5), 1);
    assert_eq!(t(abi::BPF_JGE, 5, 4), 0);
    assert_eq!(t(abi::BPF_JSET, 4, 6), 1);
    assert_eq!(t(abi::BPF_JSET, 1, 6), 0);
    // Comparisons are unsigned: -1 is above everything.
    assert_eq!(t(abi::BPF_JGT, 0x7fff_ffff, -1), 1);
    // Against X.
    let prog = [ld(0), i(abi::BPF_LDX | abi::BPF_IMM, 0, 0, 9), i(abi::BPF_JMP | abi::BPF_JEQ | abi::BPF_X, 0, 1, 0), ret(1), ret(0)];
    assert_eq!(run(&prog, &data(9)), 1);
    assert_eq!(run(&prog, &data(8)), 0);
}

#[test]
fn scratch_memory() {
    let a = i(abi::BPF_RET | abi::BPF_A, 0, 0, 0);
    let st = |k| i(abi::BPF_ST, 0, 0, k);
    let ldm = |k| i(abi::BPF_LD | abi::BPF_MEM, 0, 0, k);
    // Out of range.
    assert_eq!(Filter::load(&[st(16), ret(0)]).unwrap_err(), Error::Invalid);
    assert_eq!(Filter::load(&[ldm(16), ret(0)]).unwrap_err(), Error::Invalid);
    // Read before written.
    assert_eq!(Filter::load(&[ldm(3), a]).unwrap_err(), Error::Invalid);
    assert_eq!(Filter::load(&[i(abi::BPF_LDX | abi::BPF_MEM, 0, 0, 0), a]).unwrap_err(), Error::Invalid);
    // Written on one path only.
    let one_path = [ld(0), jeq(1, 0, 1), st(2), ldm(2), a];
    assert_eq!(Filter::load(&one_path).unwrap_err(), Error::Invalid);
    // Written on both paths.
    let both = [ld(0), jeq(1, 1, 0), st(2), i(abi::BPF_STX, 0, 0, 2), ldm(2), a];
    assert_eq!(run(&both, &data(1)), 0);
    assert_eq!(run(&both, &data(5)), 0);
    let keep = [ld(0), st(15), i(abi::BPF_LD | abi::BPF_IMM, 0, 0, 0), ldm(15), a];
    assert_eq!(run(&keep, &data(77)), 77);
}

#[test]
fn runs_are_bounded() {
    // The longest program: every instruction a jump to the next one.
    let mut prog = vec![jeq(0, 0, 0); MAX_INSNS - 1];
    prog.push(ret(3));
    assert_eq!(run(&prog, &data(0)), 3);
}

#[test]
fn decode_bytes() {
    let f = SockFilter::from_bytes([0x15, 0, 1, 2, 0x27, 0, 0, 0]);
    assert_eq!(f, SockFilter::new(0x15, 1, 2, 0x27));
}

#[test]
fn translated_lengths() {
    let len = |p: &[SockFilter]| Filter::load(p).unwrap().translated_len();
    // Prologue 3, RET K 2.
    assert_eq!(len(&[ret(0)]), 5);
    assert_eq!(len(&vec![ret(0); MAX_INSNS]), 3 + 2 * MAX_INSNS);
    // A load, a compare falling through on false, two returns.
    assert_eq!(len(&[ld(0), jeq(39, 0, 1), ret(RET_ALLOW), ret(RET_KILL)]), 3 + 1 + 1 + 2 + 2);
    // Both branches taken somewhere: a jump and a JA.
    assert_eq!(len(&[ld(0), jeq(39, 1, 2), ret(1), ret(2), ret(3)]), 3 + 1 + 2 + 6);
    // JSET cannot be reversed.
    let jset = i(abi::BPF_JMP | abi::BPF_JSET | abi::BPF_K, 0, 1, 4);
    assert_eq!(len(&[ld(0), jset, ret(1), ret(2)]), 3 + 1 + 2 + 4);
    // A negative constant goes through a register.
    assert_eq!(len(&[ld(0), jeq(0x8000_0000, 0, 1), ret(1), ret(2)]), 3 + 1 + 2 + 4);
    // Division by X: the zero check.
    let a = i(abi::BPF_RET | abi::BPF_A, 0, 0, 0);
    assert_eq!(len(&[i(abi::BPF_ALU | abi::BPF_DIV | abi::BPF_X, 0, 0, 0), a]), 3 + 5 + 1);
}

fn pkt_run(prog: &[SockFilter], p: &[u8]) -> u32 {
    Filter::load_socket(prog).expect("socket filter loads").run_packet(p)
}

const RET_A_: u32 = abi::BPF_RET | abi::BPF_A;

#[test]
fn socket_packet_loads_are_big_endian() {
    let p = [0x12, 0x34, 0x56, 0x78, 0x9a];
    let w = i(abi::BPF_LD | abi::BPF_W | abi::BPF_ABS, 0, 0, 1);
    let h = i(abi::BPF_LD | abi::BPF_H | abi::BPF_ABS, 0, 0, 3);
    let b = i(abi::BPF_LD | abi::BPF_B | abi::BPF_ABS, 0, 0, 4);
    assert_eq!(pkt_run(&[w, i(RET_A_, 0, 0, 0)], &p), 0x3456_789a);
    assert_eq!(pkt_run(&[h, i(RET_A_, 0, 0, 0)], &p), 0x789a);
    assert_eq!(pkt_run(&[b, i(RET_A_, 0, 0, 0)], &p), 0x9a);
}

#[test]
fn socket_out_of_range_load_drops() {
    let p = [1u8, 2, 3, 4];
    // A word at 1 needs 5 bytes: the program returns 0 at once.
    let prog = [i(abi::BPF_LD | abi::BPF_W | abi::BPF_ABS, 0, 0, 1), ret(0xffff_ffff)];
    assert_eq!(pkt_run(&prog, &p), 0);
    assert_eq!(pkt_run(&prog, &[1, 2, 3, 4, 5]), 0xffff_ffff);
    // Indirect: X + K past the end, or overflowing, drops too.
    let ind = |x: u32, k: u32| [i(abi::BPF_LDX | abi::BPF_IMM, 0, 0, x), i(abi::BPF_LD | abi::BPF_B | abi::BPF_IND, 0, 0, k), i(RET_A_, 0, 0, 0)];
    assert_eq!(pkt_run(&ind(1, 2), &p), 4);
    assert_eq!(pkt_run(&ind(2, 2), &p), 0);
    assert_eq!(pkt_run(&ind(u32::MAX, 2), &p), 0);
}

#[test]
fn socket_len_msh_mod() {
    let p = [0x45u8, 0, 0, 0, 0, 0, 0];
    let len = [i(abi::BPF_LD | abi::BPF_W | abi::BPF_LEN, 0, 0, 0), i(RET_A_, 0, 0, 0)];
    assert_eq!(pkt_run(&len, &p), 7);
    let msh = [i(abi::BPF_LDX | abi::BPF_B | abi::BPF_MSH, 0, 0, 0), i(abi::BPF_MISC | abi::BPF_TXA, 0, 0, 0), i(RET_A_, 0, 0, 0)];
    assert_eq!(pkt_run(&msh, &p), 20);
    let m = [i(abi::BPF_LD | abi::BPF_IMM, 0, 0, 17), alu(abi::BPF_MOD, 5), i(RET_A_, 0, 0, 0)];
    assert_eq!(pkt_run(&m, &p), 2);
    // Modulo by a constant zero is refused; by a zero X returns 0.
    assert_eq!(Filter::load_socket(&[alu(abi::BPF_MOD, 0), ret(1)]).unwrap_err(), Error::Invalid);
    let mx = [i(abi::BPF_LD | abi::BPF_IMM, 0, 0, 17), i(abi::BPF_ALU | abi::BPF_MOD | abi::BPF_X, 0, 0, 0), ret(9)];
    assert_eq!(pkt_run(&mx, &p), 0);
}

#[test]
fn socket_only_loads_refused_by_seccomp() {
    let b = i(abi::BPF_LD | abi::BPF_B | abi::BPF_ABS, 0, 0, 0);
    assert_eq!(Filter::load(&[b, ret(1)]).unwrap_err(), Error::Invalid);
    assert!(Filter::load_socket(&[b, ret(1)]).is_ok());
    // Ancillary loads are not supported here.
    let anc = i(abi::BPF_LD | abi::BPF_W | abi::BPF_ABS, 0, 0, abi::SKF_AD_OFF as u32);
    assert_eq!(Filter::load_socket(&[anc, ret(1)]).unwrap_err(), Error::Invalid);
    // A plain seccomp-style program still loads; unknown opcodes do not.
    assert!(Filter::load_socket(&[ret(0)]).is_ok());
    assert_eq!(Filter::load_socket(&[i(0xffff, 0, 0, 0), ret(0)]).unwrap_err(), Error::Invalid);
}
