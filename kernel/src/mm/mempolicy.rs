//! NUMA memory policies (set_mempolicy, get_mempolicy, mbind) on a
//! machine with one memory node, node 0, as Linux's mm/mempolicy.c
//! behaves there: every policy allocates from node 0, but each mode,
//! flag and node mask is checked, kept and reported as Linux does.

use linux_raw_sys::mempolicy::{MPOL_BIND, MPOL_DEFAULT, MPOL_F_NUMA_BALANCING, MPOL_F_RELATIVE_NODES, MPOL_F_STATIC_NODES, MPOL_INTERLEAVE, MPOL_LOCAL, MPOL_MODE_FLAGS, MPOL_PREFERRED, MPOL_PREFERRED_MANY};

use crate::error::{Errno, Result};

/// Linux's MAX_NUMNODES (CONFIG_NODES_SHIFT=10 in Debian's kernel).
pub const MAX_NUMNODES: usize = 1024;
/// Words of a node mask.
pub const MASK_WORDS: usize = MAX_NUMNODES / 64;
/// The nodes with memory: node 0 only.
const MEMORY_NODES: u64 = 1;
/// The modes Linux 6.1 knows end before this (MPOL_WEIGHTED_INTERLEAVE
/// came later).
const MPOL_MAX_6_1: u32 = MPOL_PREFERRED_MANY as u32 + 1;

/// A node mask as the system calls pass it (MAX_NUMNODES bits).
pub type NodeMask = [u64; MASK_WORDS];

/// A thread's (or a mapping's) memory policy.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct MemPolicy {
    /// MPOL_* (MPOL_DEFAULT: none set).
    pub mode: u32,
    /// The mode flags given with it (MPOL_F_STATIC_NODES,
    /// MPOL_F_RELATIVE_NODES, MPOL_F_NUMA_BALANCING).
    pub flags: u32,
    /// The nodes the policy uses (a subset of the nodes with memory).
    pub nodes: u64,
    /// The mask as given, kept for STATIC and RELATIVE policies (Linux's
    /// user_nodemask), which report it back.
    pub user_nodes: NodeMask,
}

impl MemPolicy {
    pub const DEFAULT: MemPolicy = MemPolicy { mode: MPOL_DEFAULT as u32, flags: 0, nodes: 0, user_nodes: [0; MASK_WORDS] };

    /// The policy mode as get_mempolicy reports it, with its mode flags.
    pub fn reported_mode(&self) -> u32 {
        self.mode | (self.flags & MPOL_MODE_FLAGS)
    }

    /// The node mask get_mempolicy reports.
    pub fn reported_nodes(&self) -> NodeMask {
        if self.flags & (MPOL_F_STATIC_NODES | MPOL_F_RELATIVE_NODES) != 0 {
            return self.user_nodes;
        }
        let mut mask = [0; MASK_WORDS];
        if !matches!(self.mode, m if m == MPOL_DEFAULT as u32 || m == MPOL_LOCAL as u32) {
            mask[0] = self.nodes;
        }
        mask
    }
}

impl Default for MemPolicy {
    fn default() -> Self {
        MemPolicy::DEFAULT
    }
}

/// Splits a mode argument into mode and flags and checks them (Linux's
/// sanitize_mpol_flags).
pub fn split_mode(raw: i32) -> Result<(u32, u32)> {
    let flags = raw as u32 & MPOL_MODE_FLAGS;
    let mode = raw as u32 & !MPOL_MODE_FLAGS;
    if mode >= MPOL_MAX_6_1 {
        return Err(Errno::EINVAL);
    }
    if flags & MPOL_F_STATIC_NODES != 0 && flags & MPOL_F_RELATIVE_NODES != 0 {
        return Err(Errno::EINVAL);
    }
    if flags & MPOL_F_NUMA_BALANCING != 0 && mode != MPOL_BIND as u32 {
        return Err(Errno::EINVAL);
    }
    Ok((mode, flags))
}

fn is_empty(mask: &NodeMask) -> bool {
    mask.iter().all(|&w| w == 0)
}

/// Builds the policy for `mode`, `flags` and the node mask given (Linux's
/// mpol_new and mpol_set_nodemask); None is the default policy.
pub fn new_policy(mode: u32, flags: u32, given: &NodeMask) -> Result<Option<MemPolicy>> {
    let relative_or_static = flags & (MPOL_F_STATIC_NODES | MPOL_F_RELATIVE_NODES) != 0;
    let mut mode = mode;
    if mode == MPOL_DEFAULT as u32 {
        if !is_empty(given) {
            return Err(Errno::EINVAL);
        }
        return Ok(None);
    } else if mode == MPOL_PREFERRED as u32 {
        if is_empty(given) {
            if relative_or_static {
                return Err(Errno::EINVAL);
            }
            mode = MPOL_LOCAL as u32;
        }
    } else if mode == MPOL_LOCAL as u32 {
        if !is_empty(given) || relative_or_static {
            return Err(Errno::EINVAL);
        }
    } else if is_empty(given) {
        return Err(Errno::EINVAL);
    }
    let mut policy = MemPolicy { mode, flags, nodes: 0, user_nodes: [0; MASK_WORDS] };
    if mode == MPOL_LOCAL as u32 {
        return Ok(Some(policy));
    }
    // The nodes allowed: those given that have memory; a relative mask
    // is folded onto them (any node given maps onto node 0).
    let usable = if flags & MPOL_F_RELATIVE_NODES != 0 {
        if is_empty(given) { 0 } else { MEMORY_NODES }
    } else {
        given[0] & MEMORY_NODES
    };
    if relative_or_static {
        policy.user_nodes = *given;
    }
    if usable == 0 {
        return Err(Errno::EINVAL);
    }
    // PREFERRED keeps the first node only; BIND, INTERLEAVE and
    // PREFERRED_MANY all of them (node 0 either way here).
    policy.nodes = if mode == MPOL_PREFERRED as u32 { usable & usable.wrapping_neg() } else { usable };
    Ok(Some(policy))
}

/// The node an interleaving task policy allocates from next
/// (get_mempolicy's MPOL_F_NODE without an address).
pub fn next_interleave_node(policy: &MemPolicy) -> Option<u32> {
    (policy.mode == MPOL_INTERLEAVE as u32).then(|| policy.nodes.trailing_zeros())
}
