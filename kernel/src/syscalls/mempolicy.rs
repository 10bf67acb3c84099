//! set_mempolicy(2), get_mempolicy(2) and mbind(2): decoding and checks
//! as Linux's mm/mempolicy.c (kernel_set_mempolicy, kernel_get_mempolicy,
//! kernel_mbind); the policies themselves are mm::mempolicy's.

use linux_raw_sys::mempolicy::{MPOL_DEFAULT, MPOL_F_ADDR, MPOL_F_MEMS_ALLOWED, MPOL_F_NODE, MPOL_MF_MOVE_ALL, MPOL_MF_STRICT, MPOL_MF_VALID};

use crate::error::{Errno, Result};
use crate::mm::mempolicy::{self, NodeMask, MASK_WORDS, MAX_NUMNODES};
use crate::process::{access, Thread};
use crate::uaccess::{copy_from_user, copy_to_user};
use kevlar_platform::mm::PAGE_SIZE;

/// Linux's nr_node_ids: one node.
const NR_NODE_IDS: usize = 1;

/// Reads `bits` bits of a node mask at `addr` into `out` (Linux's
/// get_bitmap: whole words, the last one cut to `bits`).
fn read_bits(out: &mut [u64], addr: usize, bits: usize) -> Result<()> {
    let words = bits.div_ceil(64);
    let mut raw = [0u8; 8];
    for (i, word) in out.iter_mut().enumerate().take(words) {
        copy_from_user(&mut raw, addr.checked_add(i * 8).ok_or(Errno::EFAULT)?)?;
        *word = u64::from_le_bytes(raw);
    }
    if bits % 64 != 0 {
        out[words - 1] &= (1u64 << (bits % 64)) - 1;
    }
    Ok(())
}

/// Reads a node mask argument as Linux's get_nodes: `maxnode` counts one
/// more than the bits passed; bits past MAX_NUMNODES must be zero.
fn read_nodes(addr: usize, maxnode: usize) -> Result<NodeMask> {
    let mut nodes = [0u64; MASK_WORDS];
    let mut maxnode = maxnode.wrapping_sub(1);
    if maxnode == 0 || addr == 0 {
        return Ok(nodes);
    }
    if maxnode > PAGE_SIZE * 8 {
        return Err(Errno::EINVAL);
    }
    while maxnode > MAX_NUMNODES {
        let bits = maxnode.min(64);
        let mut t = [0u64; 1];
        read_bits(&mut t, addr + (maxnode - 1) / 64 * 8, bits)?;
        if maxnode - bits >= MAX_NUMNODES {
            maxnode -= bits;
        } else {
            maxnode = MAX_NUMNODES;
        }
        if t[0] != 0 {
            return Err(Errno::EINVAL);
        }
    }
    read_bits(&mut nodes, addr, maxnode)?;
    Ok(nodes)
}

pub fn set_mempolicy(thread: &Thread, mode: i32, nmask: usize, maxnode: usize) -> Result<isize> {
    let (mode, flags) = mempolicy::split_mode(mode)?;
    let nodes = read_nodes(nmask, maxnode)?;
    let policy = mempolicy::new_policy(mode, flags, &nodes)?.unwrap_or_default();
    *thread.mempolicy.lock() = policy;
    Ok(0)
}

/// Writes a node mask for get_mempolicy (Linux's copy_nodes_to_user):
/// the bytes past the machine's nodes are cleared.
fn write_nodes(addr: usize, maxnode: usize, nodes: &NodeMask) -> Result<()> {
    let mut copy = maxnode.wrapping_sub(1).next_multiple_of(64) / 8;
    let nbytes = NR_NODE_IDS.div_ceil(64) * 8;
    if copy > nbytes {
        if copy > PAGE_SIZE {
            return Err(Errno::EINVAL);
        }
        let zeros = [0u8; 64];
        let mut at = nbytes;
        while at < copy {
            let n = (copy - at).min(zeros.len());
            copy_to_user(addr + at, &zeros[..n])?;
            at += n;
        }
        copy = nbytes;
    }
    let bytes = nodes[0].to_le_bytes();
    copy_to_user(addr, &bytes[..copy])?;
    Ok(())
}

pub fn get_mempolicy(thread: &Thread, policy: usize, nmask: usize, maxnode: usize, addr: usize, flags: u64) -> Result<isize> {
    if nmask != 0 && maxnode < NR_NODE_IDS {
        return Err(Errno::EINVAL);
    }
    let known = (MPOL_F_NODE | MPOL_F_ADDR | MPOL_F_MEMS_ALLOWED) as u64;
    if flags & !known != 0 {
        return Err(Errno::EINVAL);
    }
    let (value, nodes) = if flags & MPOL_F_MEMS_ALLOWED as u64 != 0 {
        if flags & (MPOL_F_NODE | MPOL_F_ADDR) as u64 != 0 {
            return Err(Errno::EINVAL);
        }
        let mut all = [0u64; MASK_WORDS];
        all[0] = 1;
        (0, all)
    } else {
        let pol = if flags & MPOL_F_ADDR as u64 != 0 {
            // Mappings keep no policy of their own (mbind's is not
            // recorded): the default's.
            let vm = thread.process.vm.lock().clone();
            if vm.lock().find(addr).is_none() {
                return Err(Errno::EFAULT);
            }
            mempolicy::MemPolicy::DEFAULT
        } else {
            if addr != 0 {
                return Err(Errno::EINVAL);
            }
            *thread.mempolicy.lock()
        };
        let value = if flags & MPOL_F_NODE as u64 != 0 {
            if flags & MPOL_F_ADDR as u64 != 0 {
                // Every page is on node 0.
                0
            } else {
                mempolicy::next_interleave_node(&pol).ok_or(Errno::EINVAL)?
            }
        } else {
            pol.reported_mode()
        };
        (value, pol.reported_nodes())
    };
    if policy != 0 {
        copy_to_user(policy, &(value as i32).to_le_bytes())?;
    }
    if nmask != 0 {
        write_nodes(nmask, maxnode, &nodes)?;
    }
    Ok(0)
}

pub fn mbind(thread: &Thread, start: usize, len: usize, mode: i32, nmask: usize, maxnode: usize, flags: u32) -> Result<isize> {
    let (mode, mode_flags) = mempolicy::split_mode(mode)?;
    let nodes = read_nodes(nmask, maxnode)?;
    if flags & !MPOL_MF_VALID != 0 {
        return Err(Errno::EINVAL);
    }
    if flags & MPOL_MF_MOVE_ALL != 0 && !access::capable(&thread.process, linux_raw_sys::general::CAP_SYS_NICE) {
        return Err(Errno::EPERM);
    }
    if start % PAGE_SIZE != 0 {
        return Err(Errno::EINVAL);
    }
    let _strict = mode != MPOL_DEFAULT as u32 && flags & MPOL_MF_STRICT != 0;
    let len = len.checked_add(PAGE_SIZE - 1).map(|l| l & !(PAGE_SIZE - 1)).ok_or(Errno::EINVAL)?;
    let end = start.checked_add(len).ok_or(Errno::EINVAL)?;
    if end == start {
        return Ok(0);
    }
    let policy = mempolicy::new_policy(mode, mode_flags, &nodes)?;
    // The range must be mapped: no hole at all for a policy, and at least
    // one mapping in it for the default (Linux's queue_pages_range).
    let vm = thread.process.vm.lock().clone();
    let vm = vm.lock();
    let mut at = start;
    let mut any = false;
    for vma in vm.vmas() {
        if vma.end <= start || vma.start >= end {
            continue;
        }
        if vma.start > at && policy.is_some() {
            return Err(Errno::EFAULT);
        }
        any = true;
        at = vma.end;
    }
    if !any || (policy.is_some() && at < end) {
        return Err(Errno::EFAULT);
    }
    // Every page is on node 0, which every policy allows: nothing to
    // move and nothing misplaced for MPOL_MF_STRICT.
    Ok(0)
}
