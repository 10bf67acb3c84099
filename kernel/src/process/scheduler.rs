//! The scheduler: per-CPU run queues, the current thread of each CPU,
//! preemption on the timer tick, and idle CPUs taking work from others.
//!
//! The kernel is not preemptible: a thread gives up its CPU when it sleeps,
//! exits, or is about to return to user mode after its time slice ran out.

use alloc::collections::VecDeque;
use alloc::sync::Arc;
use core::sync::atomic::{AtomicBool, AtomicU8, AtomicUsize, Ordering};

use kevlar_platform::arch::interrupts;
use kevlar_platform::smp::{self, MAX_CPUS};
use kevlar_platform::sync::{CpuSlot, SpinLock};
use kevlar_platform::x86::user::{self as platform_task, Task};

use super::{Thread, ThreadState};

/// Timer ticks a thread may run before it is preempted (at 100 Hz: 30 ms).
const TIME_SLICE_TICKS: usize = 3;

struct CpuState {
    run_queue: SpinLock<VecDeque<Arc<Thread>>>,
    current: SpinLock<Option<Arc<Thread>>>,
    /// The context this CPU runs when it has nothing to do.
    idle: SpinLock<Option<Arc<Task>>>,
    /// A thread that ran last and is finished: dropped by whoever runs next,
    /// once the CPU is off its stack.
    finished: SpinLock<Option<Arc<Thread>>>,
    ticks_in_slice: AtomicUsize,
}

// The CPU's work for the way back to user mode, one bit each, so that
// the common return tests one byte: `NEED_RESCHED`, `HAS_FINISHED`
// (`finished` holds a thread), `TICK_SEEN` (set by each timer tick:
// timers may have expired since the last return to user mode looked).
// The byte is the platform's per-CPU `return_work` (one `gs`-relative
// load on the return path; zero at boot: the first timer tick sets
// `TICK_SEEN`), and only its own CPU changes it.

const NEED_RESCHED: u8 = 1 << 0;
const HAS_FINISHED: u8 = 1 << 1;
const TICK_SEEN: u8 = 1 << 2;

impl CpuState {
    /// This CPU's work byte. Every `CpuState` method on the work bits is
    /// called on its own CPU's state (`this()`).
    fn work(&self) -> &'static AtomicU8 {
        smp::this_cpu().return_work()
    }

    fn set(&self, bit: u8) {
        self.work().fetch_or(bit, Ordering::AcqRel);
    }

    fn clear(&self, bit: u8) {
        self.work().fetch_and(!bit, Ordering::AcqRel);
    }

    fn get(&self, bit: u8) -> bool {
        self.work().load(Ordering::Acquire) & bit != 0
    }

    /// Returns and clears `bit` (a plain load first: the common answer
    /// is no).
    fn take(&self, bit: u8) -> bool {
        self.get(bit) && self.work().fetch_and(!bit, Ordering::AcqRel) & bit != 0
    }
}

static CPUS: [CpuState; MAX_CPUS] = [const {
    CpuState {
        run_queue: SpinLock::new(VecDeque::new()),
        current: SpinLock::new(None),
        idle: SpinLock::new(None),
        finished: SpinLock::new(None),
        ticks_in_slice: AtomicUsize::new(0),
    }
}; MAX_CPUS];

fn this() -> &'static CpuState {
    &CPUS[smp::cpu_index()]
}

/// Each CPU's current thread again, for its own CPU to read without the
/// lock (every system call asks): changed with `CpuState::current`, under
/// its lock, by `set_current`.
static CURRENT: CpuSlot<Thread> = CpuSlot::new();

/// Returns the thread running on this CPU, if a user thread runs.
#[inline(always)]
pub fn current() -> Option<Arc<Thread>> {
    CURRENT.get()
}

/// Makes `thread` this CPU's current thread (`slot` is this CPU's
/// `current`, locked), in both places.
fn set_current(slot: &mut Option<Arc<Thread>>, thread: Option<Arc<Thread>>) {
    drop(CURRENT.replace(thread.clone()));
    *slot = thread;
}

/// Makes `thread` runnable, on the least loaded online CPU, and wakes that
/// CPU if it idles.
pub fn enqueue(thread: Arc<Thread>) {
    // A thread is in at most one run queue: a wake-up racing with the
    // thread's own requeue must not queue it twice.
    if thread.on_run_queue.swap(true, Ordering::AcqRel) {
        return;
    }
    let count = smp::cpu_count();
    let me = smp::cpu_index();
    let mut target = me;
    let mut best = usize::MAX;
    for offset in 0..count {
        let cpu = (me + offset) % count;
        if !thread.allowed_on(cpu) {
            continue;
        }
        let len = CPUS[cpu].run_queue.lock().len() + usize::from(CPUS[cpu].current.lock().is_some());
        if len < best {
            best = len;
            target = cpu;
        }
    }
    CPUS[target].run_queue.lock().push_back(thread);
    if target != me {
        kevlar_platform::smp::wake_cpu(target);
    }
}

/// Takes the first thread of `queue` that no CPU is still running. A
/// thread woken while it was switching out on another CPU is skipped (and
/// stays queued) until that CPU has left it: waiting for it here could
/// deadlock two CPUs each waiting for the other's thread.
fn take_runnable(queue: &mut VecDeque<Arc<Thread>>, from_back: bool) -> Option<Arc<Thread>> {
    let me = smp::cpu_index();
    for _ in 0..queue.len() {
        let thread = if from_back { queue.pop_back()? } else { queue.pop_front()? };
        if !thread.task.is_running() && thread.allowed_on(me) {
            return Some(thread);
        }
        if from_back { queue.push_front(thread) } else { queue.push_back(thread) }
    }
    None
}

fn pick_next() -> Option<Arc<Thread>> {
    let me = smp::cpu_index();
    let mut picked = take_runnable(&mut CPUS[me].run_queue.lock(), false);
    if picked.is_none() {
        // Take work from a busier CPU.
        for offset in 1..smp::cpu_count() {
            let cpu = (me + offset) % smp::cpu_count();
            picked = take_runnable(&mut CPUS[cpu].run_queue.lock(), true);
            if picked.is_some() {
                break;
            }
        }
    }
    if let Some(thread) = &picked {
        thread.on_run_queue.store(false, Ordering::Release);
    }
    picked
}

/// Gives up the CPU. The caller has set its state: `Runnable` to stay in
/// the run queue (yield, preemption), `Sleeping` to wait for a wake-up
/// (which re-queues it), `Dead` to never run again.
///
/// No reference to a thread or task stays on the caller's stack across the
/// switch: a dead thread never comes back to drop it.
pub fn schedule() {
    let cpu = this();
    let next = pick_next();
    cpu.clear(NEED_RESCHED);
    cpu.ticks_in_slice.store(0, Ordering::Relaxed);
    let next_task = {
        let mut current = cpu.current.lock();
        let taken = current.take();
        drop(CURRENT.replace(None));
        let Some(prev) = taken else {
            drop(current);
            if let Some(next) = next {
                requeue(cpu, next);
            }
            return;
        };
        match next {
            Some(next) if Arc::ptr_eq(&prev, &next) => {
                set_current(&mut current, Some(prev));
                return;
            }
            Some(next) => {
                prev.account_switch_out();
                next.account_switch_in();
                next.activate_address_space();
                let task = next.task.clone();
                set_current(&mut current, Some(next));
                drop(current);
                requeue_or_retire(cpu, prev);
                task
            }
            None => {
                if prev.state() == ThreadState::Runnable && prev.allowed_on(smp::cpu_index()) {
                    set_current(&mut current, Some(prev));
                    return; // nothing else to run: keep going
                }
                drop(current);
                prev.account_switch_out();
                kevlar_platform::arch::paging::activate_kernel_table();
                requeue_or_retire(cpu, prev);
                cpu.idle.lock().clone().expect("CPU without an idle context")
            }
        }
    };
    platform_task::switch_to(next_task);
    after_switch();
}

fn requeue(cpu: &CpuState, thread: Arc<Thread>) {
    if !thread.allowed_on(smp::cpu_index()) {
        enqueue(thread); // to a CPU its affinity allows
        return;
    }
    if !thread.on_run_queue.swap(true, Ordering::AcqRel) {
        cpu.run_queue.lock().push_back(thread);
    }
}

/// Puts the thread that ran back in the run queue (still runnable), lets
/// it go (asleep: its wait queue holds it), or parks it to be freed by the
/// next context (dead).
fn requeue_or_retire(cpu: &CpuState, prev: Arc<Thread>) {
    match prev.state() {
        ThreadState::Runnable => requeue(cpu, prev),
        ThreadState::Dead => {
            *cpu.finished.lock() = Some(prev);
            cpu.set(HAS_FINISHED);
        }
        ThreadState::Sleeping => drop(prev),
    }
}

/// Ends the current (dead) thread's life on this CPU; never returns. Called
/// from the outermost kernel frame, so no caller holds references to it.
pub fn exit_dead_thread() -> ! {
    loop {
        schedule();
    }
}

/// Runs after every switch, on the new context: drops a finished thread
/// now that this CPU is off its stack.
pub fn after_switch() {
    let cpu = this();
    // Checked without the lock first: this runs on every return to user
    // mode, and a finished thread is rare.
    if cpu.take(HAS_FINISHED) {
        let finished = cpu.finished.lock().take();
        drop(finished);
    }
}

/// Whether this CPU has work for the way back to user mode: a finished
/// thread to drop, a tick seen, a reschedule asked for. One look at the
/// CPU's state, so that the common return costs a few loads. (A thread
/// whose affinity no longer allows this CPU has its return work set
/// instead: `Thread::set_affinity`.)
#[inline(always)]
pub fn cpu_has_work() -> bool {
    smp::this_cpu_work_pending()
}

/// The idle loop of a CPU: runs threads while there are any, halts
/// otherwise. The boot CPU enters it after starting init; the others from
/// the platform's idle hook.
pub fn idle_once() {
    // Deferred work interrupt handlers cannot do (they take no sleeping
    // locks): expired timers, console input.
    crate::timer::run_expired();
    let cpu = this();
    {
        let mut idle = cpu.idle.lock();
        if idle.is_none() {
            *idle = Some(Task::adopt_current_context());
        }
    }
    interrupts::disable();
    if let Some(next) = pick_next() {
        next.account_switch_in();
        next.activate_address_space();
        let task = next.task.clone();
        set_current(&mut cpu.current.lock(), Some(next));
        platform_task::switch_to(task);
        after_switch();
    }
    interrupts::enable();
}

/// With `hangdump` on the command line: print the state dump when the boot
/// CPU has been idle for 3 s (finds lost wake-ups).
pub static HANG_DUMP: AtomicBool = AtomicBool::new(false);

/// Runs this CPU's idle loop forever.
pub fn idle_loop() -> ! {
    let mut idle_since = kevlar_platform::time::monotonic_ns();
    loop {
        if HANG_DUMP.load(Ordering::Relaxed) && kevlar_platform::time::monotonic_ns() - idle_since > 3_000_000_000 {
            super::dump_state();
            HANG_DUMP.store(false, Ordering::Relaxed);
        }
        let ran_before = this().run_queue.lock().len();
        idle_once();
        if ran_before > 0 {
            idle_since = kevlar_platform::time::monotonic_ns();
        }
        // Work that must not wait while nothing runs (the network's
        // delayed ACKs: see `register_idle_hook`).
        run_idle_hooks();
        interrupts::disable();
        if this().run_queue.lock().is_empty() {
            interrupts::enable_and_halt();
        } else {
            interrupts::enable();
        }
    }
}

/// The most functions [`register_idle_hook`] takes.
const MAX_IDLE_HOOKS: usize = 4;

/// Functions a CPU calls each time it is about to go idle, registered by
/// the subsystems that own them (the network registers its delayed-ACK
/// flush). `IDLE_HOOK_COUNT` lets the idle loop skip the lock while none
/// is registered.
static IDLE_HOOKS: SpinLock<[Option<fn()>; MAX_IDLE_HOOKS]> = SpinLock::new([None; MAX_IDLE_HOOKS]);
static IDLE_HOOK_COUNT: AtomicUsize = AtomicUsize::new(0);

/// Registers `hook` to run on every CPU each time it is about to halt for
/// lack of work (in the idle thread's context: it may take locks and wake
/// threads, not sleep). A hook registered twice runs once; panics past
/// [`MAX_IDLE_HOOKS`] (a boot-time registration, a fixed set of callers).
pub fn register_idle_hook(hook: fn()) {
    let mut hooks = IDLE_HOOKS.lock();
    if hooks.iter().flatten().any(|&h| h as usize == hook as usize) {
        return;
    }
    let slot = hooks.iter_mut().find(|h| h.is_none()).expect("idle hooks: table full");
    *slot = Some(hook);
    IDLE_HOOK_COUNT.fetch_add(1, Ordering::Release);
}

/// Runs the registered idle hooks, with no lock held.
fn run_idle_hooks() {
    if IDLE_HOOK_COUNT.load(Ordering::Acquire) == 0 {
        return;
    }
    let hooks = *IDLE_HOOKS.lock();
    for hook in hooks.iter().flatten() {
        hook();
    }
}

/// Tells (once) whether this CPU took a timer tick since the last call:
/// the timer list, whose resolution is the tick, needs a look only then.
pub fn take_tick() -> bool {
    let cpu = this();
    cpu.take(TICK_SEEN)
}

/// Timer tick (interrupt context): asks for a reschedule when the slice is
/// used up. Only atomics here: no locks in interrupt context.
pub fn on_tick(from_user: bool) {
    super::cputimer::count_tick(from_user);
    let cpu = this();
    cpu.set(TICK_SEEN);
    if cpu.ticks_in_slice.fetch_add(1, Ordering::Relaxed) + 1 >= TIME_SLICE_TICKS {
        cpu.set(NEED_RESCHED);
    }
}

/// Called before returning to user mode: preempts if the slice ran out, or
/// moves the thread if its affinity no longer allows this CPU.
pub fn preempt_if_needed(thread: &Arc<Thread>) {
    let misplaced = !thread.allowed_on(smp::cpu_index());
    if misplaced || this().get(NEED_RESCHED) {
        // Only a running thread is preempted: a dead one must stay dead.
        if thread.state() != ThreadState::Runnable {
            return;
        }
        schedule();
    }
}

/// Gives up the CPU inside a long kernel loop when the time slice ran out:
/// the kernel is not preemptible, so loops that can run for long (big
/// copies, sendfile, reads of /dev/zero) call this between steps, holding
/// no lock.
pub fn cond_resched() {
    // Expired timers are otherwise looked at only on the way to user mode
    // and when idle: a long kernel loop must look too, or at -smp 1 a
    // sleeper whose deadline passed (and whoever would end the loop with
    // a signal) never runs again.
    crate::timer::run_expired_if_due();
    if this().get(NEED_RESCHED) {
        if let Some(thread) = current() {
            preempt_if_needed(&thread);
        }
    }
}

/// Prints each CPU's current thread and run queue (debugging dump).
pub fn dump() {
    for index in 0..smp::cpu_count() {
        let cpu = &CPUS[index];
        let current = cpu.current.lock().as_ref().map(|t| t.tid());
        let queue: alloc::vec::Vec<i32> = cpu.run_queue.lock().iter().map(|t| t.tid()).collect();
        kevlar_platform::println!("cpu{}: current {:?} queue {:?} need_resched {}", index, current, queue, smp::cpu(index).return_work().load(Ordering::Relaxed) & NEED_RESCHED != 0);
    }
}
