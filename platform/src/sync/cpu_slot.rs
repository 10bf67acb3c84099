//! [`CpuSlot`]: one `Option<Arc<T>>` per CPU that its own CPU reads
//! without a lock (the kernel's current thread, read on every system
//! call).

use alloc::sync::Arc;
use core::ptr;
use core::sync::atomic::{AtomicPtr, Ordering};

use crate::arch::x86_64::percpu::{cpu_index, MAX_CPUS};

/// One `Option<Arc<T>>` per CPU. Only a CPU's own slot can be read or
/// replaced, and only by code running on that CPU: [`CpuSlot::get`]
/// clones this CPU's value, [`CpuSlot::replace`] swaps it.
///
/// Why a lock-free read is sound: a slot holds one strong reference to
/// its value. Only its own CPU replaces it; a reader on that CPU either
/// runs before a replacement starts or after it ended (code on one CPU
/// is sequential), or, in an interrupt handler, entirely inside the gap
/// between two instructions of the interrupted code, where the slot's
/// reference is held. So between the load of the pointer and the
/// increment of the count the value cannot be dropped. Callers must not
/// migrate between CPUs inside `get` or `replace`: true in this kernel,
/// which is not preemptible (a thread changes CPU only by calling the
/// scheduler), and interrupt handlers never call `replace`.
pub struct CpuSlot<T> {
    slots: [AtomicPtr<T>; MAX_CPUS],
}

impl<T> CpuSlot<T> {
    /// Every CPU's slot empty.
    pub const fn new() -> Self {
        CpuSlot { slots: [const { AtomicPtr::new(ptr::null_mut()) }; MAX_CPUS] }
    }

    /// A new strong reference to this CPU's value, if any.
    #[inline(always)]
    pub fn get(&self) -> Option<Arc<T>> {
        // SAFETY: `cpu_index` is below MAX_CPUS: a CPU's index is stored
        // by `percpu::init_this_cpu` after indexing the per-CPU array
        // (MAX_CPUS entries) with it. This spares every system call a
        // bounds check.
        let slot = unsafe { self.slots.get_unchecked(cpu_index()) };
        let p = slot.load(Ordering::Acquire);
        if p.is_null() {
            return None;
        }
        // SAFETY: a non-null pointer in a slot came from `Arc::into_raw` in
        // `replace`, and the slot still owns that strong reference (see the
        // type's comment: only this CPU replaces its slot, never in the
        // middle of this call), so the allocation is alive while the count
        // is raised and the new reference is ours to return.
        unsafe {
            Arc::increment_strong_count(p);
            Some(Arc::from_raw(p))
        }
    }

    /// Puts `value` into this CPU's slot and returns what was there.
    pub fn replace(&self, value: Option<Arc<T>>) -> Option<Arc<T>> {
        let new = value.map_or(ptr::null_mut(), |v| Arc::into_raw(v) as *mut T);
        let old = self.slots[cpu_index()].swap(new, Ordering::AcqRel);
        if old.is_null() {
            None
        } else {
            // SAFETY: `old` came from `Arc::into_raw` in an earlier
            // `replace`; the slot's reference passes to the caller.
            Some(unsafe { Arc::from_raw(old) })
        }
    }
}

impl<T> Default for CpuSlot<T> {
    fn default() -> Self {
        Self::new()
    }
}

// SAFETY: the slots hand out `Arc<T>` clones to whichever CPU asks, so
// sharing a `CpuSlot<T>` is sharing `Arc<T>`s: sound when `T: Send + Sync`.
unsafe impl<T: Send + Sync> Sync for CpuSlot<T> {}
// SAFETY: as above, moving it moves `Arc<T>`s.
unsafe impl<T: Send + Sync> Send for CpuSlot<T> {}
