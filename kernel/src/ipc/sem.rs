//! System V semaphore sets (semget, semop/semtimedop, semctl) and the
//! SEM_UNDO adjustments applied when a process exits.

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Write;


use super::abi::*;
use super::ids::{self, Ids, Object, Perm};
use crate::error::{Errno, Result};
use crate::process::wait_queue::WaitQueue;
use crate::process::Process;

/// /proc/sys/kernel/sem: SEMMSL, SEMMNS, SEMOPM, SEMMNI (per IPC
/// namespace).
pub use super::sysctl::{SEM_MNI, SEM_MNS, SEM_MSL, SEM_OPM};

#[derive(Clone, Copy, Default)]
struct Sem {
    val: i32,
    pid: i32,
}

/// A task asleep in semop: which semaphore it waits on, and whether for
/// zero (GETZCNT) or for an increase (GETNCNT).
struct Waiter {
    tid: i32,
    num: u16,
    zero: bool,
}

/// A semaphore set (`struct sem_array`).
pub struct Set {
    perm: Perm,
    sems: Vec<Sem>,
    otime: i64,
    ctime: i64,
    waiting: Vec<Waiter>,
}

impl Object for Set {
    fn perm(&self) -> &Perm {
        &self.perm
    }
    fn perm_mut(&mut self) -> &mut Perm {
        &mut self.perm
    }
}

struct State {
    sets: Ids<Set>,
    /// SEM_UNDO adjustments: by process, by set id, one per semaphore.
    undo: BTreeMap<i32, BTreeMap<i32, Vec<i32>>>,
}

static STATE: super::ns::PerNs<State> = super::ns::PerNs::new(|| State { sets: Ids::new(), undo: BTreeMap::new() });

/// Takes away the sets of IPC namespace `inum`, which is gone.
pub(super) fn forget_ns(inum: u64) {
    // Dropped here, after the lock.
    drop(STATE.take(inum));
}
static WAITERS: WaitQueue = WaitQueue::new();

fn used_sems(sets: &Ids<Set>) -> usize {
    sets.iter().map(|s| s.sems.len()).sum()
}

/// semget.
pub fn get(process: &Process, key: i32, nsems: i32, flags: u32) -> Result<i32> {
    if nsems < 0 || nsems as u32 > SEM_MSL.get32() {
        return Err(Errno::EINVAL);
    }
    let mut state = STATE.lock();
    ids::get_or_create(
        &mut state.sets,
        process,
        key,
        flags,
        |set| if nsems as usize > set.sems.len() { Err(Errno::EINVAL) } else { Ok(()) },
        |sets| {
            if nsems == 0 {
                return Err(Errno::EINVAL);
            }
            if used_sems(sets) + nsems as usize > SEM_MNS.get32() as usize {
                return Err(Errno::ENOSPC);
            }
            let perm = Perm::new(key, &process.creds.lock(), flags);
            let set = Set { perm, sems: super::buffer::<Sem>(nsems as usize)?, otime: 0, ctime: super::now_secs(), waiting: Vec::new() };
            sets.insert(set, SEM_MNI.get32())
        },
    )
}

/// One `struct sembuf`.
#[derive(Clone, Copy)]
pub struct SemBuf {
    pub num: u16,
    pub op: i16,
    pub flags: i16,
}

enum Attempt {
    Done,
    /// Would block on semaphore `num` (waiting for zero or not).
    Block { num: u16, zero: bool, nowait: bool },
}

/// Tries the operations all at once; changes nothing unless all succeed.
fn attempt(set: &mut Set, undo: Option<&mut Vec<i32>>, ops: &[SemBuf], pid: i32) -> Result<Attempt> {
    let mut vals: Vec<i32> = set.sems.iter().map(|s| s.val).collect();
    let mut adj: Vec<i32> = match &undo {
        Some(u) => (*u).clone(),
        None => Vec::new(),
    };
    for op in ops {
        let n = op.num as usize;
        let cur = vals[n];
        let result = cur + op.op as i32;
        let nowait = op.flags as u32 & IPC_NOWAIT != 0;
        if op.op == 0 && cur != 0 {
            return Ok(Attempt::Block { num: op.num, zero: true, nowait });
        }
        if result < 0 {
            return Ok(Attempt::Block { num: op.num, zero: false, nowait });
        }
        if result > SEMVMX {
            return Err(Errno::ERANGE);
        }
        if op.flags as u16 & SEM_UNDO != 0 && !adj.is_empty() {
            let a = adj[n] - op.op as i32;
            if a < -SEMAEM - 1 || a > SEMAEM {
                return Err(Errno::ERANGE);
            }
            adj[n] = a;
        }
        vals[n] = result;
    }
    for (i, v) in vals.into_iter().enumerate() {
        set.sems[i].val = v;
    }
    for op in ops {
        set.sems[op.num as usize].pid = pid;
    }
    if let Some(u) = undo {
        *u = adj;
    }
    set.otime = super::now_secs();
    Ok(Attempt::Done)
}

/// semop/semtimedop (the caller checked the count and read the
/// operations); `deadline` is a monotonic time in ns.
pub fn semop(process: &Process, tid: i32, id: i32, ops: &[SemBuf], deadline: Option<u64>) -> Result<()> {
    let max = ops.iter().map(|o| o.num).max().unwrap_or(0);
    let undos = ops.iter().any(|o| o.flags as u16 & SEM_UNDO != 0);
    let alter = ops.iter().any(|o| o.op != 0);
    let mut first = true;
    let pid = process.pid;
    if let Some(deadline) = deadline {
        crate::timer::arm(deadline, crate::process::scheduler::current().expect("semop outside a thread"));
    }
    let result = WAITERS.wait_until(|| {
        let mut state = STATE.lock();
        let state = &mut *state;
        let set = match state.sets.get_mut(id) {
            Ok(s) => s,
            Err(_) if !first => return Err(Errno::EIDRM),
            Err(e) => return Err(e),
        };
        set.waiting.retain(|w| w.tid != tid);
        if first {
            if max as usize >= set.sems.len() {
                return Err(Errno::EFBIG);
            }
            set.perm.check(process, if alter { ids::WRITE } else { ids::READ })?;
        }
        first = false;
        let undo = if undos {
            let len = set.sems.len();
            Some(state.undo.entry(pid).or_default().entry(id).or_insert_with(|| alloc::vec![0; len]))
        } else {
            None
        };
        match attempt(set, undo, ops, pid)? {
            Attempt::Done => Ok(Some(())),
            Attempt::Block { nowait: true, .. } => Err(Errno::EAGAIN),
            Attempt::Block { .. } if deadline.is_some_and(|d| kevlar_platform::time::monotonic_ns() >= d) => Err(Errno::EAGAIN),
            Attempt::Block { num, zero, .. } => {
                set.waiting.push(Waiter { tid, num, zero });
                Ok(None)
            }
        }
    });
    if deadline.is_some() {
        crate::timer::disarm(&crate::process::scheduler::current().expect("semop outside a thread"));
    }
    if let Ok(set) = STATE.lock().sets.get_mut(id) {
        set.waiting.retain(|w| w.tid != tid);
    }
    if result.is_ok() {
        WAITERS.wake_all();
    }
    result
}

/// `struct seminfo` for IPC_INFO and SEM_INFO, and the highest index.
pub fn info(cmd: i32) -> ([u8; 40], i32) {
    let state = STATE.lock();
    let (usz, aem) = if cmd == SEM_INFO { (state.sets.len() as i32, used_sems(&state.sets) as i32) } else { (SEMUSZ, SEMAEM) };
    let fields = [
        SEMMAP,
        SEM_MNI.get32() as i32,
        SEM_MNS.get32() as i32,
        SEMMNU,
        SEM_MSL.get32() as i32,
        SEM_OPM.get32() as i32,
        SEMUME,
        usz,
        SEMVMX,
        aem,
    ];
    let mut out = [0u8; 40];
    for (i, v) in fields.iter().enumerate() {
        ids::put_u32(&mut out, i * 4, *v as u32);
    }
    (out, state.sets.max_idx().max(0))
}

/// IPC_STAT, SEM_STAT and SEM_STAT_ANY: `struct semid64_ds` and the value.
pub fn stat(process: &Process, id: i32, cmd: i32) -> Result<([u8; 104], i32)> {
    let state = STATE.lock();
    let set = if cmd == IPC_STAT { state.sets.get(id)? } else { state.sets.by_index(id)? };
    if cmd != SEM_STAT_ANY {
        set.perm.check(process, ids::READ)?;
    }
    let mut out = [0u8; 104];
    let ns = process.creds.lock().user_ns.clone();
    set.perm.shown(&ns).write_to(&mut out[..48]);
    ids::put_u64(&mut out, 48, set.otime as u64);
    ids::put_u64(&mut out, 64, set.ctime as u64);
    ids::put_u64(&mut out, 80, set.sems.len() as u64);
    Ok((out, if cmd == IPC_STAT { 0 } else { set.perm.id }))
}

/// GETVAL, GETPID, GETNCNT, GETZCNT.
pub fn get_one(process: &Process, id: i32, num: i32, cmd: i32) -> Result<i32> {
    let state = STATE.lock();
    let set = state.sets.get(id)?;
    set.perm.check(process, ids::READ)?;
    if num < 0 || num as usize >= set.sems.len() {
        return Err(Errno::EINVAL);
    }
    let n = num as usize;
    Ok(match cmd {
        GETVAL => set.sems[n].val,
        GETPID => set.sems[n].pid,
        GETNCNT => set.waiting.iter().filter(|w| w.num as usize == n && !w.zero).count() as i32,
        _ => set.waiting.iter().filter(|w| w.num as usize == n && w.zero).count() as i32,
    })
}

/// GETALL.
pub fn get_all(process: &Process, id: i32) -> Result<Vec<u16>> {
    let state = STATE.lock();
    let set = state.sets.get(id)?;
    set.perm.check(process, ids::READ)?;
    Ok(set.sems.iter().map(|s| s.val as u16).collect())
}

/// The number of semaphores of a set the caller may write (for SETALL's
/// read of the values), after the id and permission checks.
pub fn count_for_write(process: &Process, id: i32) -> Result<usize> {
    let state = STATE.lock();
    let set = state.sets.get(id)?;
    set.perm.check(process, ids::WRITE)?;
    Ok(set.sems.len())
}

fn values_changed(state: &mut State, id: i32, num: Option<usize>) {
    for lists in state.undo.values_mut() {
        if let Some(adj) = lists.get_mut(&id) {
            match num {
                Some(n) => adj[n] = 0,
                None => adj.iter_mut().for_each(|a| *a = 0),
            }
        }
    }
}

/// SETALL.
pub fn set_all(process: &Process, id: i32, values: &[u16]) -> Result<()> {
    if values.iter().any(|&v| v as i32 > SEMVMX) {
        return Err(Errno::ERANGE);
    }
    let mut state = STATE.lock();
    let set = state.sets.get_mut(id).map_err(|_| Errno::EIDRM)?;
    for (s, &v) in set.sems.iter_mut().zip(values) {
        s.val = v as i32;
        s.pid = process.pid;
    }
    set.ctime = super::now_secs();
    values_changed(&mut state, id, None);
    drop(state);
    WAITERS.wake_all();
    Ok(())
}

/// SETVAL.
pub fn set_val(process: &Process, id: i32, num: i32, val: i32) -> Result<()> {
    if !(0..=SEMVMX).contains(&val) {
        return Err(Errno::ERANGE);
    }
    let mut state = STATE.lock();
    let set = state.sets.get_mut(id)?;
    if num < 0 || num as usize >= set.sems.len() {
        return Err(Errno::EINVAL);
    }
    set.perm.check(process, ids::WRITE)?;
    set.sems[num as usize] = Sem { val, pid: process.pid };
    set.ctime = super::now_secs();
    values_changed(&mut state, id, Some(num as usize));
    drop(state);
    WAITERS.wake_all();
    Ok(())
}

/// IPC_SET from a `struct semid64_ds`.
pub fn set(process: &Process, id: i32, ds: &[u8; 104]) -> Result<()> {
    let mut state = STATE.lock();
    let set = state.sets.get_mut(id)?;
    set.perm.check_owner(process)?;
    let (uid, gid, mode) = ids::read_perm_set(ds);
    set.perm.set(process, uid, gid, mode)?;
    set.ctime = super::now_secs();
    Ok(())
}

/// IPC_RMID: sleepers fail with EIDRM, adjustments are dropped.
pub fn remove(process: &Process, id: i32) -> Result<()> {
    let mut state = STATE.lock();
    state.sets.get(id)?.perm.check_owner(process)?;
    state.sets.remove(id);
    for lists in state.undo.values_mut() {
        lists.remove(&id);
    }
    drop(state);
    WAITERS.wake_all();
    Ok(())
}

/// Whether process `pid` has a SEM_UNDO list (Linux allocates one at its
/// first SEM_UNDO operation and keeps it until exit: kcmp's KCMP_SYSVSEM).
pub fn has_undo_list(pid: i32) -> bool {
    STATE.lock().undo.contains_key(&pid)
}

/// Applies the exiting process's SEM_UNDO adjustments (values clamped to
/// 0..=SEMVMX, as Linux's exit_sem).
pub fn exit(pid: i32) {
    let mut state = STATE.lock();
    let Some(lists) = state.undo.remove(&pid) else { return };
    for (id, adj) in lists {
        let Ok(set) = state.sets.get_mut(id) else { continue };
        for (s, a) in set.sems.iter_mut().zip(adj) {
            if a != 0 {
                s.val = (s.val + a).clamp(0, SEMVMX);
                s.pid = pid;
            }
        }
    }
    drop(state);
    WAITERS.wake_all();
}

/// /proc/sysvipc/sem.
pub fn proc_text() -> String {
    // The ids as the reader's user namespace sees them.
    let ns = crate::ns::user::current_ns();
    let mut s = String::from("       key      semid perms      nsems   uid   gid  cuid  cgid      otime      ctime\n");
    for set in STATE.lock().sets.iter() {
        let p = &set.perm.shown(&ns);
        let _ = writeln!(
            s,
            "{:>10} {:>10}  {:>4o} {:>10} {:>5} {:>5} {:>5} {:>5} {:>10} {:>10}",
            p.key, p.id, p.mode, set.sems.len(), p.uid, p.gid, p.cuid, p.cgid, set.otime, set.ctime
        );
    }
    s
}
