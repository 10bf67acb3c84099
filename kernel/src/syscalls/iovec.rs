//! The `struct iovec` arrays of readv, writev and their relatives, read
//! and checked as Linux 6.1's `import_iovec` does, in one pass and, for a
//! few vectors, without a heap allocation.

use alloc::vec::Vec;

use crate::error::{Errno, Result};
use crate::mm::kbuf;
use crate::uaccess::copy_from_user;

/// Linux's UIO_MAXIOV: more vectors than this is EINVAL (EMSGSIZE in a
/// msghdr).
const MAX_VECTORS: usize = 1024;
/// Vectors held inline (Linux's UIO_FASTIOV): the common calls (two or
/// three vectors) allocate nothing.
const FAST_VECTORS: usize = 8;
/// The size of one user `struct iovec`.
const IOVEC_SIZE: usize = 16;
/// Linux's MAX_RW_COUNT: a call moves at most this much.
const MAX_RW_COUNT: usize = 0x7fff_f000;

/// A checked vector array: (base, length) pairs, each length already cut
/// so that they sum to at most MAX_RW_COUNT.
pub struct IoVecs {
    fast: [(usize, usize); FAST_VECTORS],
    heap: Vec<(usize, usize)>,
    count: usize,
    total: usize,
}

impl IoVecs {
    /// Reads `count` vectors from user address `iov` as readv does. The
    /// count is an unsigned int to Linux (the upper half of the register
    /// is dropped); over 1024 is EINVAL; an unreadable array is EFAULT; a
    /// length negative as a ssize_t is EINVAL, whichever vector has it,
    /// before a base and length outside user space is EFAULT. A total past
    /// MAX_RW_COUNT is cut there, not refused (Linux avoids the overflow
    /// SUS asks EINVAL for).
    pub fn read(iov: usize, count: usize) -> Result<IoVecs> {
        Self::parse(iov, count as u32 as usize, true)
    }

    /// A msghdr's msg_iov (sendmsg, recvmsg and their multi-message
    /// forms): Linux's copy_msghdr refuses a msg_iovlen (a size_t) past
    /// UIO_MAXIOV with EMSGSIZE before the vectors are read as readv's.
    pub fn read_msg(iov: usize, count: usize) -> Result<IoVecs> {
        if count > MAX_VECTORS {
            return Err(Errno::EMSGSIZE);
        }
        Self::read(iov, count)
    }

    /// process_vm_readv/writev's remote vectors, which Linux reads with
    /// iovec_from_user alone: the count is an unsigned long (over 1024 is
    /// EINVAL), a negative length EINVAL, and the buffers, in another
    /// process, are neither checked against user space nor cut at
    /// MAX_RW_COUNT.
    pub fn read_remote(iov: usize, count: usize) -> Result<IoVecs> {
        Self::parse(iov, count, false)
    }

    /// Reads the array; `import` adds import_iovec's checks of the
    /// buffers (EFAULT) and its cut of the total.
    fn parse(iov: usize, count: usize, import: bool) -> Result<IoVecs> {
        if count > MAX_VECTORS {
            return Err(Errno::EINVAL);
        }
        let mut vecs = IoVecs { fast: [(0, 0); FAST_VECTORS], heap: Vec::new(), count, total: 0 };
        if count == 0 {
            return Ok(vecs);
        }
        let mut small = [0u8; FAST_VECTORS * IOVEC_SIZE];
        let mut large = Vec::new();
        let raw: &mut [u8] = if count <= FAST_VECTORS {
            &mut small[..count * IOVEC_SIZE]
        } else {
            large = kbuf::zeroed(count * IOVEC_SIZE)?;
            vecs.heap = kbuf::with_capacity(count)?;
            &mut large
        };
        copy_from_user(raw, iov)?;
        let mut bad_address = false;
        let mut total = 0usize;
        for (i, entry) in raw.chunks_exact(IOVEC_SIZE).enumerate() {
            let base = u64::from_le_bytes(entry[..8].try_into().unwrap()) as usize;
            let mut len = u64::from_le_bytes(entry[8..].try_into().unwrap()) as usize;
            if len > isize::MAX as usize {
                return Err(Errno::EINVAL);
            }
            if import {
                // EFAULT only once every length has been seen to be valid.
                bad_address |= !kevlar_platform::x86::user::is_user_range(base, len);
                len = len.min(MAX_RW_COUNT - total);
            }
            total = total.saturating_add(len);
            if count <= FAST_VECTORS {
                vecs.fast[i] = (base, len);
            } else {
                vecs.heap.push((base, len));
            }
        }
        drop(large);
        if bad_address {
            return Err(Errno::EFAULT);
        }
        vecs.total = total;
        Ok(vecs)
    }

    /// The vectors, in order.
    pub fn as_slice(&self) -> &[(usize, usize)] {
        if self.count <= FAST_VECTORS { &self.fast[..self.count] } else { &self.heap }
    }

    /// How many bytes the vectors hold together (at most MAX_RW_COUNT, but
    /// for remote vectors, whose sum saturates).
    pub fn total(&self) -> usize {
        self.total
    }

    /// The vectors as a list of their own (for the socket layer, which
    /// keeps them while it waits).
    pub fn to_vec(&self) -> Vec<(usize, usize)> {
        self.as_slice().to_vec()
    }
}
