//! System V IPC calls: argument decoding and the order of Linux's checks;
//! the objects live in `crate::ipc`.

use alloc::vec::Vec;

use super::{read_bytes, read_u64};
use crate::error::{Errno, Result};
use crate::ipc::abi::*;
use crate::ipc::{msg, sem, shm};
use crate::process::Thread;
use crate::uaccess::{copy_from_user, copy_to_user};

pub fn msgget(thread: &Thread, key: i32, flags: i32) -> Result<isize> {
    Ok(msg::get(&thread.process, key, flags as u32)? as isize)
}

pub fn msgsnd(thread: &Thread, id: i32, msgp: usize, size: usize, flags: i32) -> Result<isize> {
    let mtype = read_u64(msgp)? as i64;
    if size > msg::MSG_MAX.get32() as usize || (size as isize) < 0 || id < 0 || mtype < 1 {
        return Err(Errno::EINVAL);
    }
    let mut text = crate::ipc::buffer::<u8>(size)?;
    copy_from_user(&mut text, msgp.checked_add(8).ok_or(Errno::EFAULT)?)?;
    msg::send(&thread.process, id, mtype, text, flags as u32)?;
    Ok(0)
}

pub fn msgrcv(thread: &Thread, id: i32, msgp: usize, size: usize, msgtyp: i64, flags: i32) -> Result<isize> {
    let (mtype, text) = msg::receive(&thread.process, id, size, msgtyp, flags as u32)?;
    copy_to_user(msgp, &mtype.to_le_bytes())?;
    copy_to_user(msgp.checked_add(8).ok_or(Errno::EFAULT)?, &text)?;
    Ok(text.len() as isize)
}

pub fn msgctl(thread: &Thread, id: i32, cmd: i32, buf: usize) -> Result<isize> {
    if id < 0 || cmd < 0 {
        return Err(Errno::EINVAL);
    }
    match cmd {
        IPC_INFO | MSG_INFO => {
            let (info, max) = msg::info(cmd);
            copy_to_user(buf, &info)?;
            Ok(max as isize)
        }
        IPC_STAT | MSG_STAT | MSG_STAT_ANY => {
            let (ds, ret) = msg::stat(&thread.process, id, cmd)?;
            copy_to_user(buf, &ds)?;
            Ok(ret as isize)
        }
        IPC_SET => {
            let ds = read_bytes::<120>(buf)?;
            msg::set(&thread.process, id, &ds)?;
            Ok(0)
        }
        IPC_RMID => {
            msg::remove(&thread.process, id)?;
            Ok(0)
        }
        _ => Err(Errno::EINVAL),
    }
}

pub fn semget(thread: &Thread, key: i32, nsems: i32, flags: i32) -> Result<isize> {
    Ok(sem::get(&thread.process, key, nsems, flags as u32)? as isize)
}

pub fn semtimedop(thread: &Thread, id: i32, sops: usize, nsops: usize, timeout: usize) -> Result<isize> {
    let timeout = if timeout != 0 { Some(read_bytes::<16>(timeout)?) } else { None };
    if nsops < 1 || id < 0 {
        return Err(Errno::EINVAL);
    }
    if nsops > sem::SEM_OPM.get32() as usize {
        return Err(Errno::E2BIG);
    }
    let mut raw = crate::ipc::buffer::<u8>(nsops.checked_mul(6).ok_or(Errno::ENOMEM)?)?;
    copy_from_user(&mut raw, sops)?;
    let ops: Vec<sem::SemBuf> = raw
        .chunks_exact(6)
        .map(|c| sem::SemBuf {
            num: u16::from_le_bytes([c[0], c[1]]),
            op: i16::from_le_bytes([c[2], c[3]]),
            flags: i16::from_le_bytes([c[4], c[5]]),
        })
        .collect();
    let deadline = match timeout {
        None => None,
        Some(raw) => {
            let sec = i64::from_le_bytes(raw[..8].try_into().unwrap());
            let nsec = i64::from_le_bytes(raw[8..].try_into().unwrap());
            if sec < 0 || !(0..1_000_000_000).contains(&nsec) {
                return Err(Errno::EINVAL);
            }
            let ns = (sec as u64).saturating_mul(1_000_000_000).saturating_add(nsec as u64);
            Some(kevlar_platform::time::monotonic_ns().saturating_add(ns))
        }
    };
    sem::semop(&thread.process, thread.tid(), id, &ops, deadline)?;
    Ok(0)
}

pub fn semctl(thread: &Thread, id: i32, num: i32, cmd: i32, arg: usize) -> Result<isize> {
    if id < 0 {
        return Err(Errno::EINVAL);
    }
    let process = &thread.process;
    match cmd {
        IPC_INFO | SEM_INFO => {
            let (info, max) = sem::info(cmd);
            copy_to_user(arg, &info)?;
            Ok(max as isize)
        }
        IPC_STAT | SEM_STAT | SEM_STAT_ANY => {
            let (ds, ret) = sem::stat(process, id, cmd)?;
            copy_to_user(arg, &ds)?;
            Ok(ret as isize)
        }
        GETVAL | GETPID | GETNCNT | GETZCNT => Ok(sem::get_one(process, id, num, cmd)? as isize),
        GETALL => {
            let values = sem::get_all(process, id)?;
            let raw: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
            copy_to_user(arg, &raw)?;
            Ok(0)
        }
        SETALL => {
            let n = sem::count_for_write(process, id)?;
            let mut raw = crate::ipc::buffer::<u8>(n.checked_mul(2).ok_or(Errno::ENOMEM)?)?;
            copy_from_user(&mut raw, arg)?;
            let values: Vec<u16> = raw.chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect();
            sem::set_all(process, id, &values)?;
            Ok(0)
        }
        SETVAL => {
            sem::set_val(process, id, num, arg as i32)?;
            Ok(0)
        }
        IPC_SET => {
            let ds = read_bytes::<104>(arg)?;
            sem::set(process, id, &ds)?;
            Ok(0)
        }
        IPC_RMID => {
            sem::remove(process, id)?;
            Ok(0)
        }
        _ => Err(Errno::EINVAL),
    }
}

pub fn shmget(thread: &Thread, key: i32, size: usize, flags: i32) -> Result<isize> {
    Ok(shm::get(&thread.process, key, size, flags as u32)? as isize)
}

pub fn shmat(thread: &Thread, id: i32, addr: usize, flags: i32) -> Result<isize> {
    Ok(shm::attach(&thread.process, id, addr, flags as u32)? as isize)
}

pub fn shmdt(thread: &Thread, addr: usize) -> Result<isize> {
    shm::detach(&thread.process, addr)?;
    Ok(0)
}

pub fn shmctl(thread: &Thread, id: i32, cmd: i32, buf: usize) -> Result<isize> {
    if cmd < 0 || id < 0 {
        return Err(Errno::EINVAL);
    }
    let process = &thread.process;
    match cmd {
        IPC_INFO => {
            let (info, max) = shm::ipc_info();
            copy_to_user(buf, &info)?;
            Ok(max as isize)
        }
        SHM_INFO => {
            let (info, max) = shm::shm_info();
            copy_to_user(buf, &info)?;
            Ok(max as isize)
        }
        IPC_STAT | SHM_STAT | SHM_STAT_ANY => {
            let (ds, ret) = shm::stat(process, id, cmd)?;
            copy_to_user(buf, &ds)?;
            Ok(ret as isize)
        }
        SHM_LOCK | SHM_UNLOCK => {
            shm::lock(process, id, cmd == SHM_LOCK)?;
            Ok(0)
        }
        IPC_SET => {
            let ds = read_bytes::<112>(buf)?;
            shm::set(process, id, &ds)?;
            Ok(0)
        }
        IPC_RMID => {
            shm::remove(process, id)?;
            Ok(0)
        }
        _ => Err(Errno::EINVAL),
    }
}
