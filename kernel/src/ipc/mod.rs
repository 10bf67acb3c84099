//! Inter-process communication: System V message queues, semaphore sets
//! and shared memory (one id space each per IPC namespace, `ns.rs`), and
//! POSIX message queues.
//!
//! Every object set lives under one lock; blocked senders, receivers and
//! semaphore waiters sleep on one wait queue per kind and recheck their
//! condition when woken (every change wakes the queue).

pub mod abi;
pub mod ids;
pub mod mqueue;
pub mod mqueue_fs;
pub mod ns;
pub mod msg;
pub mod sem;
pub mod shm;
pub mod sysctl;

/// Seconds of the wall clock, as the `*_time` fields hold them.
pub fn now_secs() -> i64 {
    crate::clock::now().sec
}

/// A zeroed buffer of `len` bytes for a message or an argument array;
/// ENOMEM rather than a kernel panic when the heap cannot have it (root
/// may raise the limits that bound these lengths far past memory).
pub fn buffer<T: Clone + Default>(len: usize) -> crate::error::Result<alloc::vec::Vec<T>> {
    let mut v = alloc::vec::Vec::new();
    v.try_reserve_exact(len).map_err(|_| crate::error::Errno::ENOMEM)?;
    v.resize(len, T::default());
    Ok(v)
}
