//! Test-and-test-and-set spin locks.

use core::cell::UnsafeCell;
use core::ops::{Deref, DerefMut};
use core::sync::atomic::{AtomicBool, Ordering};

use crate::arch::interrupts;

/// A raw test-and-test-and-set lock word shared by both lock kinds.
struct RawSpin {
    locked: AtomicBool,
}

impl RawSpin {
    const fn new() -> Self {
        Self { locked: AtomicBool::new(false) }
    }

    #[inline]
    fn acquire(&self) {
        loop {
            if self
                .locked
                .compare_exchange_weak(false, true, Ordering::Acquire, Ordering::Relaxed)
                .is_ok()
            {
                return;
            }
            // Spin on a plain load so waiting CPUs share the cache line
            // instead of bouncing it with failed read-modify-writes.
            while self.locked.load(Ordering::Relaxed) {
                core::hint::spin_loop();
            }
        }
    }

    #[inline]
    fn try_acquire(&self) -> bool {
        self.locked
            .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
            .is_ok()
    }

    #[inline]
    fn release(&self) {
        self.locked.store(false, Ordering::Release);
    }
}

/// A spin lock for data that is never touched from interrupt context.
pub struct SpinLock<T: ?Sized> {
    raw: RawSpin,
    value: UnsafeCell<T>,
}

// SAFETY: the lock serialises all access to `value`, so sharing the lock
// between CPUs is sound whenever `T` itself may be sent between them.
unsafe impl<T: ?Sized + Send> Sync for SpinLock<T> {}
// SAFETY: moving the lock moves the owned `T`.
unsafe impl<T: ?Sized + Send> Send for SpinLock<T> {}

impl<T> SpinLock<T> {
    /// Creates an unlocked lock holding `value`.
    pub const fn new(value: T) -> Self {
        Self { raw: RawSpin::new(), value: UnsafeCell::new(value) }
    }

    /// Consumes the lock and returns the value.
    pub fn into_inner(self) -> T {
        self.value.into_inner()
    }
}

impl<T: ?Sized> SpinLock<T> {
    /// Acquires the lock, spinning until it is free.
    #[inline]
    pub fn lock(&self) -> SpinLockGuard<'_, T> {
        debug_assert!(
            !crate::arch::percpu::in_interrupt(),
            "SpinLock taken in interrupt context; use IrqSpinLock"
        );
        self.raw.acquire();
        SpinLockGuard { lock: self }
    }

    /// Acquires the lock if it is free.
    pub fn try_lock(&self) -> Option<SpinLockGuard<'_, T>> {
        self.raw.try_acquire().then(|| SpinLockGuard { lock: self })
    }

    /// Returns whether some CPU holds the lock (for diagnostics only).
    pub fn is_locked(&self) -> bool {
        self.raw.locked.load(Ordering::Relaxed)
    }

    /// Returns the value through an exclusive borrow, no locking needed.
    pub fn get_mut(&mut self) -> &mut T {
        self.value.get_mut()
    }
}

/// Proof that a [`SpinLock`] is held; releases it when dropped.
pub struct SpinLockGuard<'a, T: ?Sized> {
    lock: &'a SpinLock<T>,
}

impl<T: ?Sized> Deref for SpinLockGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: the guard exists only while the lock is held.
        unsafe { &*self.lock.value.get() }
    }
}

impl<T: ?Sized> DerefMut for SpinLockGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: the guard exists only while the lock is held, and it is
        // borrowed mutably, so this is the only reference.
        unsafe { &mut *self.lock.value.get() }
    }
}

impl<T: ?Sized> Drop for SpinLockGuard<'_, T> {
    fn drop(&mut self) {
        self.lock.raw.release();
    }
}

/// A spin lock for data shared with interrupt handlers: interrupts stay off
/// on the local CPU while it is held.
pub struct IrqSpinLock<T: ?Sized> {
    raw: RawSpin,
    value: UnsafeCell<T>,
}

// SAFETY: as for SpinLock: all access goes through the lock.
unsafe impl<T: ?Sized + Send> Sync for IrqSpinLock<T> {}
// SAFETY: moving the lock moves the owned `T`.
unsafe impl<T: ?Sized + Send> Send for IrqSpinLock<T> {}

impl<T> IrqSpinLock<T> {
    /// Creates an unlocked lock holding `value`.
    pub const fn new(value: T) -> Self {
        Self { raw: RawSpin::new(), value: UnsafeCell::new(value) }
    }
}

impl<T: ?Sized> IrqSpinLock<T> {
    /// Disables local interrupts, then acquires the lock.
    #[inline]
    pub fn lock(&self) -> IrqSpinLockGuard<'_, T> {
        let were_enabled = interrupts::save_and_disable();
        self.raw.acquire();
        IrqSpinLockGuard { lock: self, were_enabled }
    }

    /// Acquires the lock if it is free, with interrupts disabled.
    pub fn try_lock(&self) -> Option<IrqSpinLockGuard<'_, T>> {
        let were_enabled = interrupts::save_and_disable();
        if self.raw.try_acquire() {
            Some(IrqSpinLockGuard { lock: self, were_enabled })
        } else {
            interrupts::restore(were_enabled);
            None
        }
    }

    /// Releases the lock without a guard, whoever holds it.
    ///
    /// Only for the panic path, where the holder will never run again and
    /// the console must still print.
    pub fn force_unlock(&self) {
        self.raw.release();
    }
}

/// Proof that an [`IrqSpinLock`] is held; releases it and restores the
/// interrupt flag when dropped.
pub struct IrqSpinLockGuard<'a, T: ?Sized> {
    lock: &'a IrqSpinLock<T>,
    were_enabled: bool,
}

impl<T: ?Sized> Deref for IrqSpinLockGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: the guard exists only while the lock is held.
        unsafe { &*self.lock.value.get() }
    }
}

impl<T: ?Sized> DerefMut for IrqSpinLockGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: the guard exists only while the lock is held, and it is
        // borrowed mutably, so this is the only reference.
        unsafe { &mut *self.lock.value.get() }
    }
}

impl<T: ?Sized> Drop for IrqSpinLockGuard<'_, T> {
    fn drop(&mut self) {
        self.lock.raw.release();
        interrupts::restore(self.were_enabled);
    }
}
