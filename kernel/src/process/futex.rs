//! futex(2) and futex_waitv(2): sleeping on a 32-bit word of user memory
//! until another thread or process wakes that word.
//!
//! A futex is named by a [`Key`]: private futexes (FUTEX_PRIVATE_FLAG, and
//! shared ones in private memory, as Linux does for anonymous pages) by
//! the address space and the address; shared ones in MAP_SHARED memory by
//! the physical frame and the offset in it, so processes that map the same
//! page meet whatever address each maps it at. Waiters queue per key in
//! FIFO order in one table; its lock is what makes "read the word, compare,
//! queue" atomic with respect to a waker, which changes the word before it
//! takes the lock.

use alloc::collections::{BTreeMap, VecDeque};
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::sync::atomic::{fence, AtomicUsize, Ordering};

use kevlar_platform::sync::SpinLock;
use kevlar_platform::time;
use linux_raw_sys::general as abi;

use crate::uaccess::read_bytes;
use crate::error::{Errno, Result};
use crate::process::{scheduler, Thread, ThreadState};
use crate::uaccess::{cmpxchg_user_u32, read_user_u32};

/// What identifies a futex word.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Key {
    /// An address in one address space (the `Vm`'s allocation address).
    Private { space: usize, addr: usize },
    /// A byte of physical memory: the frame of a shared mapping plus the
    /// offset. The frame is not pinned: if the mapping goes away while a
    /// waiter sleeps, a later wake on whatever reuses the frame can only
    /// cause a spurious wake-up, which futex users must expect anyway.
    Shared { frame: u64, offset: usize },
}

/// One sleeping caller of FUTEX_WAIT or futex_waitv.
struct Waiter {
    thread: Arc<Thread>,
    /// Which of the caller's futexes woke it (`NOT_WOKEN` until then).
    woken: AtomicUsize,
}

const NOT_WOKEN: usize = usize::MAX;

/// A queued entry: the waiter, its bitset, and the index of this futex in
/// its futex_waitv vector (0 for FUTEX_WAIT).
struct Entry {
    waiter: Arc<Waiter>,
    bitset: u32,
    index: usize,
}

static TABLE: SpinLock<BTreeMap<Key, VecDeque<Entry>>> = SpinLock::new(BTreeMap::new());

/// A point in time on the clock a wait was given.
#[derive(Clone, Copy)]
struct Deadline {
    realtime: bool,
    ns: u64,
}

impl Deadline {
    /// Returns the deadline on the monotonic clock (what timers use).
    fn monotonic_ns(self) -> u64 {
        if self.realtime {
            let now_real = time::realtime_ns();
            time::monotonic_ns().saturating_add(self.ns.saturating_sub(now_real))
        } else {
            self.ns
        }
    }

    fn passed(self) -> bool {
        let now = if self.realtime { time::realtime_ns() } else { time::monotonic_ns() };
        now >= self.ns
    }
}

fn key_for(thread: &Thread, addr: usize, shared: bool) -> Result<Key> {
    if addr % 4 != 0 {
        return Err(Errno::EINVAL);
    }
    if !kevlar_platform::x86::user::is_user_range(addr, 4) {
        return Err(Errno::EFAULT);
    }
    if !shared {
        // The common case (FUTEX_PRIVATE_FLAG): no reference taken.
        let space = Arc::as_ptr(&*thread.process.vm.lock()) as usize;
        return Ok(Key::Private { space, addr });
    }
    let vm = thread.process.vm.lock().clone();
    let space = Arc::as_ptr(&vm) as usize;
    let frame = vm.lock().shared_frame(addr)?;
    Ok(match frame {
        Some(frame) => Key::Shared { frame, offset: addr % 4096 },
        None => Key::Private { space, addr },
    })
}

/// Wakes up to `limit` entries of `key` whose bitset meets `bitset`, in
/// the order they queued. As Linux counts: the entry that reaches `limit`
/// is the last one, so a limit of 0 or less still wakes one.
fn wake_key(table: &mut BTreeMap<Key, VecDeque<Entry>>, key: Key, limit: i32, bitset: u32) -> i32 {
    let Some(queue) = table.get_mut(&key) else { return 0 };
    let mut woken = 0;
    let mut i = 0;
    while i < queue.len() {
        if queue[i].bitset & bitset == 0 {
            i += 1;
            continue;
        }
        let entry = queue.remove(i).unwrap();
        wake_entry(&entry);
        woken += 1;
        if woken >= limit {
            break;
        }
    }
    if queue.is_empty() {
        table.remove(&key);
    }
    woken
}

fn wake_entry(entry: &Entry) {
    let _ = entry.waiter.woken.compare_exchange(NOT_WOKEN, entry.index, Ordering::SeqCst, Ordering::SeqCst);
    entry.waiter.thread.wake();
}

/// Wakes up to `count` waiters of the futex at `addr` (the clear_child_tid
/// wake-up at exit; errors are ignored there, as Linux does).
pub fn wake_address(thread: &Thread, addr: usize, count: i32) {
    if let Ok(key) = key_for(thread, addr, true) {
        wake_key(&mut TABLE.lock(), key, count, u32::MAX);
    }
}

/// Sleeps on the futexes in `words` (key, expected value, bitset) until
/// one is woken, the deadline passes or a signal arrives. Returns the
/// index of the futex that woke the caller.
fn wait_on(thread: &Arc<Thread>, words: &[(Key, usize, u64, u32)], deadline: Option<Deadline>) -> Result<usize> {
    let waiter = Arc::new(Waiter { thread: thread.clone(), woken: AtomicUsize::new(NOT_WOKEN) });
    // Fault the words in before taking the table lock (the resolver takes
    // the address space's lock).
    for &(_, addr, _, _) in words {
        read_user_u32(addr)?;
    }
    {
        let mut table = TABLE.lock();
        for &(_, addr, expected, _) in words {
            // futex_waitv's values are 64-bit fields; Linux compares
            // their low half with the 32-bit word.
            if read_user_u32(addr)? != expected as u32 {
                // futex_waitv queues nothing when any word differs.
                return Err(Errno::EAGAIN);
            }
        }
        for (index, &(key, _, _, bitset)) in words.iter().enumerate() {
            table.entry(key).or_default().push_back(Entry { waiter: waiter.clone(), bitset, index });
        }
    }
    if let Some(d) = deadline {
        crate::timer::arm(d.monotonic_ns(), thread.clone());
    }
    let outcome = loop {
        // Asleep first, then look: a wake-up after the look finds us
        // asleep and queues us; the fence orders the state store before
        // the load of `woken` (a waker stores `woken`, then reads state).
        thread.set_state(ThreadState::Sleeping);
        fence(Ordering::SeqCst);
        if waiter.woken.load(Ordering::SeqCst) != NOT_WOKEN {
            break Ok(());
        }
        if deadline.is_some_and(|d| d.passed()) {
            break Err(Errno::ETIMEDOUT);
        }
        if thread.has_pending_signal() {
            break Err(Errno::EINTR);
        }
        scheduler::schedule();
    };
    thread.set_state(ThreadState::Runnable);
    if deadline.is_some() {
        crate::timer::disarm(thread);
    }
    // Leave every queue still holding us. A wake-up that came after the
    // timeout or signal was seen has spent its count on us: report it as
    // a wake-up, as Linux does when unqueueing finds itself woken.
    let mut table = TABLE.lock();
    table.retain(|_, queue| {
        queue.retain(|e| !Arc::ptr_eq(&e.waiter, &waiter));
        !queue.is_empty()
    });
    drop(table);
    match waiter.woken.load(Ordering::SeqCst) {
        NOT_WOKEN => outcome.map(|_| 0),
        index => Ok(index),
    }
}

fn read_timeout(addr: usize) -> Result<u64> {
    crate::uaccess::read_timespec(addr)
}

/// futex(uaddr, op, val, timeout or val2, uaddr2, val3).
pub fn futex(thread: &Arc<Thread>, uaddr: usize, op: u32, val: u32, timeout: usize, uaddr2: usize, val3: u32) -> Result<isize> {
    let cmd = op & abi::FUTEX_CMD_MASK as u32;
    let shared = op & abi::FUTEX_PRIVATE_FLAG == 0;
    let realtime = op & abi::FUTEX_CLOCK_REALTIME != 0;
    // The timeout argument: an absolute time for FUTEX_WAIT_BITSET, a
    // relative one for FUTEX_WAIT, a count for the requeue and wake-op
    // commands.
    let mut deadline = None;
    if timeout != 0 && matches!(cmd, abi::FUTEX_WAIT | abi::FUTEX_WAIT_BITSET) {
        let ns = read_timeout(timeout)?;
        deadline = Some(if cmd == abi::FUTEX_WAIT {
            // Linux adds a relative FUTEX_WAIT timeout to the monotonic
            // clock (FUTEX_CLOCK_REALTIME is refused below for it).
            Deadline { realtime: false, ns: time::monotonic_ns().saturating_add(ns) }
        } else {
            Deadline { realtime, ns }
        });
    }
    if realtime && cmd != abi::FUTEX_WAIT_BITSET && cmd != abi::FUTEX_WAIT_REQUEUE_PI && cmd != abi::FUTEX_LOCK_PI2 {
        return Err(Errno::ENOSYS);
    }
    let val2 = timeout as u32 as i32;
    match cmd {
        abi::FUTEX_WAIT | abi::FUTEX_WAIT_BITSET => {
            let bitset = if cmd == abi::FUTEX_WAIT { abi::FUTEX_BITSET_MATCH_ANY } else { val3 };
            if bitset == 0 {
                return Err(Errno::EINVAL);
            }
            let key = key_for(thread, uaddr, shared)?;
            wait_on(thread, &[(key, uaddr, val as u64, bitset)], deadline).map(|_| 0)
        }
        abi::FUTEX_WAKE | abi::FUTEX_WAKE_BITSET => {
            let bitset = if cmd == abi::FUTEX_WAKE { abi::FUTEX_BITSET_MATCH_ANY } else { val3 };
            if bitset == 0 {
                return Err(Errno::EINVAL);
            }
            let key = key_for(thread, uaddr, shared)?;
            Ok(wake_key(&mut TABLE.lock(), key, val as i32, bitset) as isize)
        }
        abi::FUTEX_REQUEUE => requeue(thread, uaddr, uaddr2, shared, val as i32, val2, None),
        abi::FUTEX_CMP_REQUEUE => requeue(thread, uaddr, uaddr2, shared, val as i32, val2, Some(val3)),
        abi::FUTEX_WAKE_OP => wake_op(thread, uaddr, uaddr2, shared, val as i32, val2, val3),
        // The priority-inheritance commands: not supported yet.
        _ => Err(Errno::ENOSYS),
    }
}

/// Wakes up to `nr_wake` waiters of `uaddr` and moves up to `nr_requeue`
/// of the others to `uaddr2` (FUTEX_CMP_REQUEUE first checks that
/// `*uaddr` still holds `expected`). Returns how many were woken or moved.
fn requeue(thread: &Thread, uaddr: usize, uaddr2: usize, shared: bool, nr_wake: i32, nr_requeue: i32, expected: Option<u32>) -> Result<isize> {
    if nr_wake < 0 || nr_requeue < 0 {
        return Err(Errno::EINVAL);
    }
    let key1 = key_for(thread, uaddr, shared)?;
    let key2 = key_for(thread, uaddr2, shared)?;
    if expected.is_some() {
        read_user_u32(uaddr)?;
    }
    let mut table = TABLE.lock();
    if let Some(expected) = expected {
        if read_user_u32(uaddr)? != expected {
            return Err(Errno::EAGAIN);
        }
    }
    let Some(mut queue) = table.remove(&key1) else { return Ok(0) };
    let mut count: i64 = 0;
    let mut moved = Vec::new();
    let mut kept = VecDeque::new();
    while let Some(entry) = queue.pop_front() {
        if count - nr_wake as i64 >= nr_requeue as i64 {
            kept.push_back(entry);
            continue;
        }
        count += 1;
        if count <= nr_wake as i64 {
            wake_entry(&entry);
        } else {
            moved.push(entry);
        }
    }
    if !kept.is_empty() {
        table.insert(key1, kept);
    }
    if !moved.is_empty() {
        table.entry(key2).or_default().extend(moved);
    }
    Ok(count as isize)
}

/// Applies the operation encoded in `encoded` to `*uaddr2` atomically,
/// wakes up to `nr_wake` waiters of `uaddr`, and, if the old value of
/// `*uaddr2` passes the encoded comparison, up to `nr_wake2` of `uaddr2`.
fn wake_op(thread: &Thread, uaddr: usize, uaddr2: usize, shared: bool, nr_wake: i32, nr_wake2: i32, encoded: u32) -> Result<isize> {
    let key1 = key_for(thread, uaddr, shared)?;
    let key2 = key_for(thread, uaddr2, shared)?;
    let op = (encoded >> 28) & 7;
    let cmp = (encoded >> 24) & 15;
    let sign_extend_12 = |v: u32| ((v << 20) as i32) >> 20;
    let mut oparg = sign_extend_12((encoded >> 12) & 0xfff);
    let cmparg = sign_extend_12(encoded & 0xfff);
    if encoded & (abi::FUTEX_OP_OPARG_SHIFT << 28) != 0 {
        // Linux masks an out-of-range shift (and logs it).
        oparg = 1 << (oparg & 31);
    }
    let apply = |old: u32| -> Option<u32> {
        let arg = oparg as u32;
        Some(match op {
            abi::FUTEX_OP_SET => arg,
            abi::FUTEX_OP_ADD => old.wrapping_add(arg),
            abi::FUTEX_OP_OR => old | arg,
            abi::FUTEX_OP_ANDN => old & !arg,
            abi::FUTEX_OP_XOR => old ^ arg,
            _ => return None,
        })
    };
    let mut table = TABLE.lock();
    let mut old = read_user_u32(uaddr2)?;
    loop {
        let new = apply(old).ok_or(Errno::ENOSYS)?;
        let found = cmpxchg_user_u32(uaddr2, old, new)?;
        if found == old {
            break;
        }
        old = found;
    }
    let old = old as i32;
    let passes = match cmp {
        abi::FUTEX_OP_CMP_EQ => old == cmparg,
        abi::FUTEX_OP_CMP_NE => old != cmparg,
        abi::FUTEX_OP_CMP_LT => old < cmparg,
        abi::FUTEX_OP_CMP_LE => old <= cmparg,
        abi::FUTEX_OP_CMP_GT => old > cmparg,
        abi::FUTEX_OP_CMP_GE => old >= cmparg,
        _ => return Err(Errno::ENOSYS),
    };
    let mut woken = wake_key(&mut table, key1, nr_wake, u32::MAX);
    if passes {
        woken += wake_key(&mut table, key2, nr_wake2, u32::MAX);
    }
    Ok(woken as isize)
}

/// futex_waitv(waiters, nr_futexes, flags, timeout, clockid): waits on up
/// to 128 futexes at once; returns the index of one that was woken.
pub fn futex_waitv(thread: &Arc<Thread>, waiters: usize, count: u32, flags: u32, timeout: usize, clock: u32) -> Result<isize> {
    if flags != 0 || count == 0 || count > abi::FUTEX_WAITV_MAX || waiters == 0 {
        return Err(Errno::EINVAL);
    }
    let deadline = if timeout != 0 {
        let realtime = match clock {
            abi::CLOCK_REALTIME => true,
            abi::CLOCK_MONOTONIC => false,
            _ => return Err(Errno::EINVAL),
        };
        Some(Deadline { realtime, ns: read_timeout(timeout)? })
    } else {
        None
    };
    let mut words = Vec::with_capacity(count as usize);
    for i in 0..count as usize {
        // struct futex_waitv: u64 val, u64 uaddr, u32 flags, u32 reserved.
        let raw = read_bytes::<{ core::mem::size_of::<abi::futex_waitv>() }>(waiters + i * core::mem::size_of::<abi::futex_waitv>())?;
        let val = u64::from_le_bytes(raw[0..8].try_into().unwrap());
        let uaddr = u64::from_le_bytes(raw[8..16].try_into().unwrap()) as usize;
        let wflags = u32::from_le_bytes(raw[16..20].try_into().unwrap());
        let reserved = u32::from_le_bytes(raw[20..24].try_into().unwrap());
        // Only 32-bit futexes exist (FUTEX_32 must be given).
        if wflags & !(abi::FUTEX_32 | abi::FUTEX2_PRIVATE) != 0 || reserved != 0 || wflags & abi::FUTEX_32 == 0 {
            return Err(Errno::EINVAL);
        }
        words.push((uaddr, val, wflags & abi::FUTEX2_PRIVATE == 0));
    }
    let mut keyed = Vec::with_capacity(words.len());
    for (uaddr, val, shared) in words {
        keyed.push((key_for(thread, uaddr, shared)?, uaddr, val, abi::FUTEX_BITSET_MATCH_ANY));
    }
    wait_on(thread, &keyed, deadline).map(|index| index as isize)
}

/// Whether an interrupted futex call restarts like read (no timeout:
/// Linux's ERESTARTSYS) or only when no handler ran (with a timeout:
/// Linux restarts those through restart_syscall with the deadline kept).
pub fn restarts_after_handler(op: u32, timeout: usize) -> bool {
    let cmd = op & abi::FUTEX_CMD_MASK as u32;
    matches!(cmd, abi::FUTEX_WAIT | abi::FUTEX_WAIT_BITSET) && timeout == 0
}

// --- robust futex lists -------------------------------------------------------

/// `struct robust_list_head`: the list pointer, the futex word's offset from
/// each entry, and the entry being added or removed.
const ROBUST_HEAD_SIZE: usize = 24;

/// set_robust_list: remembers where the thread keeps its list of held
/// robust mutexes; the kernel walks it when the thread exits.
pub fn set_robust_list(thread: &Thread, head: usize, len: usize) -> Result<isize> {
    if len != ROBUST_HEAD_SIZE {
        return Err(Errno::EINVAL);
    }
    thread.robust_list.store(head, Ordering::Relaxed);
    Ok(0)
}

/// get_robust_list: the list head of thread `tid` (0: the caller); another
/// process's needs ptrace read access with the real ids (EPERM).
pub fn get_robust_list(thread: &Arc<Thread>, tid: i32, head_ptr: usize, len_ptr: usize) -> Result<isize> {
    let target = if tid == 0 { thread.clone() } else { crate::process::find_thread(crate::ns::pid::global(tid)).ok_or(Errno::ESRCH)? };
    use crate::process::access::{ptrace_may_access, PtraceCreds, PtraceMode};
    if !ptrace_may_access(&thread.process, &target.process, PtraceMode::Read, PtraceCreds::Real) {
        return Err(Errno::EPERM);
    }
    crate::uaccess::write_u64(head_ptr, target.robust_list.load(Ordering::Relaxed) as u64)?;
    crate::uaccess::write_u64(len_ptr, ROBUST_HEAD_SIZE as u64)?;
    Ok(0)
}

/// Walks the exiting thread's robust list (exit and exec): every futex
/// word it still owns gets FUTEX_OWNER_DIED, and one waiter is woken, so
/// the next locker learns the owner died (EOWNERDEAD) instead of waiting
/// forever. A damaged list ends the walk quietly, as on Linux.
pub fn exit_robust_list(thread: &Thread) {
    let head = thread.robust_list.swap(0, Ordering::Relaxed);
    if head == 0 {
        return;
    }
    let Ok(raw) = read_bytes::<ROBUST_HEAD_SIZE>(head) else { return };
    let word = |i: usize| u64::from_le_bytes(raw[i * 8..i * 8 + 8].try_into().unwrap()) as usize;
    let (mut entry, offset, pending) = (word(0), word(1) as isize, word(2));
    let tid = thread.tid() as u32;
    let word_of = |entry: usize| (entry & !1).wrapping_add_signed(offset);
    for _ in 0..abi::ROBUST_LIST_LIMIT {
        if entry == head || entry == 0 {
            break;
        }
        let Ok(next) = read_bytes::<8>(entry & !1) else { return };
        // The entry being changed is handled last (it may be half-linked).
        if entry != pending {
            owner_died(thread, word_of(entry), tid);
        }
        entry = u64::from_le_bytes(next) as usize;
    }
    if pending != 0 {
        owner_died(thread, word_of(pending), tid);
    }
}

/// Marks the futex word at `addr` as owned by a dead thread if `tid` owns
/// it, and wakes a waiter if there are any.
fn owner_died(thread: &Thread, addr: usize, tid: u32) {
    if addr % 4 != 0 {
        return;
    }
    for _ in 0..16 {
        let Ok(value) = read_user_u32(addr) else { return };
        if value & abi::FUTEX_TID_MASK != tid {
            return;
        }
        let new = (value & abi::FUTEX_WAITERS) | abi::FUTEX_OWNER_DIED;
        match cmpxchg_user_u32(addr, value, new) {
            Ok(old) if old == value => {
                if value & abi::FUTEX_WAITERS != 0 {
                    wake_address(thread, addr, 1);
                }
                return;
            }
            Ok(_) => continue, // changed under us: look again
            Err(_) => return,
        }
    }
}
