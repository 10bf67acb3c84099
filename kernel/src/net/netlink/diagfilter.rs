//! inet_diag's socket filter: the INET_DIAG_REQ_BYTECODE program `ss`
//! sends for an expression (`sport = :22`, `dst 10.0.0.0/8`...). Each
//! operation is { code, yes, no } (4 bytes) and its operands; it tests the
//! socket and moves on by `yes` or `no` bytes; the socket is taken when
//! the program ends exactly at its end. Checked once before a dump as
//! Linux 6.1's inet_diag_bc_audit does (EINVAL for a malformed program,
//! EPERM for a mark test without CAP_NET_ADMIN), run as
//! inet_diag_bc_run.

use crate::error::{Errno, Result};
use linux_raw_sys::net as netabi;

// enum in include/uapi/linux/inet_diag.h.
const BC_NOP: u8 = 0;
const BC_JMP: u8 = 1;
const BC_S_GE: u8 = 2;
const BC_S_LE: u8 = 3;
const BC_D_GE: u8 = 4;
const BC_D_LE: u8 = 5;
const BC_AUTO: u8 = 6;
const BC_S_COND: u8 = 7;
const BC_D_COND: u8 = 8;
const BC_DEV_COND: u8 = 9;
const BC_MARK_COND: u8 = 10;
const BC_S_EQ: u8 = 11;
const BC_D_EQ: u8 = 12;
const BC_CGROUP_COND: u8 = 13;

/// sizeof(struct inet_diag_bc_op).
const OP_LEN: usize = 4;
/// sizeof(struct inet_diag_hostcond) without its address.
const HOSTCOND_LEN: usize = 8;

/// What the program tests of a socket (struct inet_diag_entry).
pub struct Subject {
    /// AF_INET or AF_INET6.
    pub family: u32,
    /// The local port.
    pub sport: u16,
    /// The peer's port.
    pub dport: u16,
    /// The local address (an IPv4 one in the first 4 bytes).
    pub saddr: [u8; 16],
    /// The peer's address.
    pub daddr: [u8; 16],
    /// The port was bound by the user (SOCK_BINDPORT_LOCK).
    pub port_locked: bool,
    /// SO_BINDTODEVICE's interface.
    pub ifindex: u32,
    /// SO_MARK.
    pub mark: u32,
    /// The socket's cgroup id.
    pub cgroup_id: u64,
}

/// A checked program.
pub struct Bytecode<'a> {
    code: &'a [u8],
}

fn op(code: &[u8], at: usize) -> (u8, usize, usize) {
    (code[at], code[at + 1] as usize, u16::from_le_bytes([code[at + 2], code[at + 3]]) as usize)
}

/// Whether a jump target (`cc` bytes before the end) starts an
/// operation (valid_cc).
fn lands_on_op(code: &[u8], cc: usize) -> bool {
    let mut len = code.len();
    let mut at = 0;
    loop {
        if cc > len {
            return false;
        }
        if cc == len {
            return true;
        }
        if len < OP_LEN {
            return false;
        }
        let (_, yes, _) = op(code, at);
        if yes < OP_LEN || yes & 3 != 0 {
            return false;
        }
        if yes > len {
            return false;
        }
        len -= yes;
        at += yes;
    }
}

impl<'a> Bytecode<'a> {
    /// Checks a program (inet_diag_bc_audit).
    pub fn audit(code: &'a [u8], net_admin: bool) -> Result<Bytecode<'a>> {
        if code.len() < OP_LEN {
            return Err(Errno::EINVAL);
        }
        let mut at = 0;
        while at < code.len() {
            let len = code.len() - at;
            if len < OP_LEN {
                return Err(Errno::EINVAL);
            }
            let (kind, yes, no) = op(code, at);
            let mut min_len = OP_LEN;
            match kind {
                BC_S_COND | BC_D_COND => {
                    min_len += HOSTCOND_LEN;
                    if len < min_len {
                        return Err(Errno::EINVAL);
                    }
                    let addr_len = match u32::from(code[at + OP_LEN]) {
                        netabi::AF_UNSPEC => 0,
                        netabi::AF_INET => 4,
                        netabi::AF_INET6 => 16,
                        _ => return Err(Errno::EINVAL),
                    };
                    min_len += addr_len;
                    if len < min_len || usize::from(code[at + OP_LEN + 1]) > 8 * addr_len {
                        return Err(Errno::EINVAL);
                    }
                }
                BC_DEV_COND => min_len += 4,
                BC_S_EQ | BC_S_GE | BC_S_LE | BC_D_EQ | BC_D_GE | BC_D_LE => min_len += OP_LEN,
                BC_MARK_COND => {
                    if !net_admin {
                        return Err(Errno::EPERM);
                    }
                    min_len += 8;
                }
                BC_CGROUP_COND => min_len += 8,
                BC_AUTO | BC_JMP | BC_NOP => {}
                _ => return Err(Errno::EINVAL),
            }
            if len < min_len {
                return Err(Errno::EINVAL);
            }
            if kind != BC_NOP {
                if no < min_len || no > len + 4 || no & 3 != 0 {
                    return Err(Errno::EINVAL);
                }
                if no < len && !lands_on_op(code, len - no) {
                    return Err(Errno::EINVAL);
                }
            }
            if yes < min_len || yes > len + 4 || yes & 3 != 0 {
                return Err(Errno::EINVAL);
            }
            if yes >= len {
                // The program ends here (a jump past the end by 4 is
                // allowed, and fails the run).
                return if yes == len { Ok(Bytecode { code }) } else { Err(Errno::EINVAL) };
            }
            at += yes;
        }
        Ok(Bytecode { code })
    }

    /// Runs the program on a socket (inet_diag_bc_run).
    pub fn run(&self, s: &Subject) -> bool {
        let code = self.code;
        let mut at = 0usize;
        let mut len = code.len() as isize;
        while len > 0 {
            let (kind, yes_step, no_step) = op(code, at);
            let operand = at + OP_LEN;
            let port_operand = || u16::from_le_bytes([code[operand + 2], code[operand + 3]]);
            let yes = match kind {
                BC_NOP => true,
                BC_JMP => false,
                BC_S_EQ => s.sport == port_operand(),
                BC_S_GE => s.sport >= port_operand(),
                BC_S_LE => s.sport <= port_operand(),
                BC_D_EQ => s.dport == port_operand(),
                BC_D_GE => s.dport >= port_operand(),
                BC_D_LE => s.dport <= port_operand(),
                BC_AUTO => !s.port_locked,
                BC_S_COND | BC_D_COND => host_cond(&code[operand..], kind == BC_S_COND, s),
                BC_DEV_COND => u32::from_le_bytes(code[operand..operand + 4].try_into().unwrap()) == s.ifindex,
                BC_MARK_COND => {
                    let mark = u32::from_le_bytes(code[operand..operand + 4].try_into().unwrap());
                    let mask = u32::from_le_bytes(code[operand + 4..operand + 8].try_into().unwrap());
                    s.mark & mask == mark
                }
                BC_CGROUP_COND => u64::from_le_bytes(code[operand..operand + 8].try_into().unwrap()) == s.cgroup_id,
                _ => true,
            };
            let step = if yes { yes_step } else { no_step };
            len -= step as isize;
            at += step;
            if len > 0 && at + OP_LEN > code.len() {
                return false;
            }
        }
        len == 0
    }
}

/// An address condition (struct inet_diag_hostcond: family, prefix
/// length, port or -1, address).
fn host_cond(cond: &[u8], source: bool, s: &Subject) -> bool {
    let family = u32::from(cond[0]);
    let prefix = usize::from(cond[1]);
    let port = i32::from_le_bytes(cond[4..8].try_into().unwrap());
    let want = &cond[HOSTCOND_LEN..];
    let (my_port, addr) = if source { (s.sport, &s.saddr) } else { (s.dport, &s.daddr) };
    if port != -1 && port != i32::from(my_port) {
        return false;
    }
    if family != netabi::AF_UNSPEC && family != s.family {
        // An IPv4 condition matches a v4-mapped address of an IPv6 socket.
        let mapped = addr[..10].iter().all(|&b| b == 0) && addr[10] == 0xff && addr[11] == 0xff;
        return s.family == netabi::AF_INET6 && family == netabi::AF_INET && mapped && prefix_matches(&addr[12..], want, prefix);
    }
    prefix == 0 || prefix_matches(addr, want, prefix)
}

/// Whether the first `bits` bits of two addresses are the same
/// (bitstring_match).
fn prefix_matches(a: &[u8], b: &[u8], bits: usize) -> bool {
    let whole = bits / 8;
    if a.len() < whole || b.len() < whole || a[..whole] != b[..whole] {
        return false;
    }
    let rest = bits % 8;
    if rest == 0 {
        return true;
    }
    let mask = 0xffu8 << (8 - rest);
    a.get(whole).zip(b.get(whole)).is_some_and(|(x, y)| x & mask == y & mask)
}
