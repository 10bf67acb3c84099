//! Inter-process communication: System V message queues, semaphore sets
//! and shared memory (one id space each, as Linux's IPC namespace has), and
//! POSIX message queues.
//!
//! Every object set lives under one lock; blocked senders, receivers and
//! semaphore waiters sleep on one wait queue per kind and recheck their
//! condition when woken (every change wakes the queue).

pub mod abi;
pub mod ids;
pub mod mqueue;
pub mod msg;
pub mod sem;
pub mod shm;

/// Seconds of the wall clock, as the `*_time` fields hold them.
pub fn now_secs() -> i64 {
    crate::clock::now().sec
}
