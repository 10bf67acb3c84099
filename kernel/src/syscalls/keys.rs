//! add_key(2), request_key(2), keyctl(2): decoding and checks in Linux's
//! order; the keys and keyrings are `keys/`'s.

use alloc::sync::Arc;
use alloc::vec::Vec;

use linux_raw_sys::general as abi;

use super::read_user_cstr;
use crate::error::{Errno, Result};
use crate::keys::{Caller, KEY_VIEW};
use crate::process::Thread;
use crate::uaccess::{copy_from_user, copy_to_user};

// keyctl operations, from include/uapi/linux/keyctl.h (not in
// linux-raw-sys 0.12).
const KEYCTL_GET_KEYRING_ID: u32 = 0;
const KEYCTL_JOIN_SESSION_KEYRING: u32 = 1;
const KEYCTL_UPDATE: u32 = 2;
const KEYCTL_REVOKE: u32 = 3;
const KEYCTL_CHOWN: u32 = 4;
const KEYCTL_SETPERM: u32 = 5;
const KEYCTL_DESCRIBE: u32 = 6;
const KEYCTL_CLEAR: u32 = 7;
const KEYCTL_LINK: u32 = 8;
const KEYCTL_UNLINK: u32 = 9;
const KEYCTL_SEARCH: u32 = 10;
const KEYCTL_READ: u32 = 11;
const KEYCTL_INSTANTIATE: u32 = 12;
const KEYCTL_NEGATE: u32 = 13;
const KEYCTL_SET_REQKEY_KEYRING: u32 = 14;
const KEYCTL_SET_TIMEOUT: u32 = 15;
const KEYCTL_REJECT: u32 = 19;
const KEYCTL_INSTANTIATE_IOV: u32 = 20;
const KEYCTL_INVALIDATE: u32 = 21;
const KEYCTL_GET_PERSISTENT: u32 = 22;

/// The longest key type name (with its NUL).
const KEY_TYPE_MAX: usize = 32;
/// The longest description.
const KEY_MAX_DESC_SIZE: usize = 4096;

fn caller(thread: &Arc<Thread>) -> Caller<'_> {
    Caller { thread, cred: thread.process.creds.lock().clone() }
}

/// A key type name from user space (Linux's key_get_type_from_user):
/// EINVAL if empty or too long, EPERM for an internal type.
fn read_type(addr: usize) -> Result<Vec<u8>> {
    let name = read_user_cstr(addr, KEY_TYPE_MAX - 1).map_err(|e| if e == Errno::ENAMETOOLONG { Errno::EINVAL } else { e })?;
    if name.is_empty() {
        return Err(Errno::EINVAL);
    }
    if name[0] == b'.' {
        return Err(Errno::EPERM);
    }
    Ok(name)
}

/// A description (strndup_user: EINVAL past the limit).
fn read_desc(addr: usize) -> Result<Vec<u8>> {
    read_user_cstr(addr, KEY_MAX_DESC_SIZE - 1).map_err(|e| if e == Errno::ENAMETOOLONG { Errno::EINVAL } else { e })
}

fn read_payload(addr: usize, len: usize) -> Result<Vec<u8>> {
    let mut payload = alloc::vec![0u8; len];
    if len != 0 {
        copy_from_user(&mut payload, addr)?;
    }
    Ok(payload)
}

pub fn add_key(thread: &Arc<Thread>, ktype: usize, desc: usize, payload: usize, plen: usize, ring: i32) -> Result<isize> {
    if plen > 1024 * 1024 - 1 {
        return Err(Errno::EINVAL);
    }
    let type_name = read_type(ktype)?;
    let desc = if desc != 0 { read_desc(desc)? } else { Vec::new() };
    if desc.first() == Some(&b'.') && type_name == b"keyring" {
        return Err(Errno::EPERM);
    }
    let payload = read_payload(payload, plen)?;
    Ok(caller(thread).add_key(&type_name, &desc, payload, ring)? as isize)
}

pub fn request_key(thread: &Arc<Thread>, ktype: usize, desc: usize, callout: usize, dest: i32) -> Result<isize> {
    let type_name = read_type(ktype)?;
    let desc = read_desc(desc)?;
    if callout != 0 {
        read_user_cstr(callout, 4095).map_err(|e| if e == Errno::ENAMETOOLONG { Errno::EINVAL } else { e })?;
    }
    Ok(caller(thread).request_key(&type_name, &desc, callout != 0, dest)? as isize)
}

pub fn keyctl(thread: &Arc<Thread>, op: u32, a2: u64, a3: u64, a4: u64, a5: u64) -> Result<isize> {
    let c = caller(thread);
    let id = a2 as i32;
    match op {
        KEYCTL_GET_KEYRING_ID => {
            let (key, _) = c.lookup(id, a3 != 0)?;
            key.validate()?;
            Ok(key.serial as isize)
        }
        KEYCTL_JOIN_SESSION_KEYRING => {
            let name = if a2 != 0 { Some(read_desc(a2 as usize)?) } else { None };
            Ok(c.join_session(name.as_deref())?.serial as isize)
        }
        KEYCTL_UPDATE => {
            if a4 as usize > 4096 {
                return Err(Errno::EINVAL);
            }
            let payload = read_payload(a3 as usize, a4 as usize)?;
            c.update(id, payload).map(|_| 0)
        }
        KEYCTL_REVOKE => c.revoke(id).map(|_| 0),
        KEYCTL_CHOWN => {
            let admin = c.cred.has_cap(abi::CAP_SYS_ADMIN);
            c.chown(id, a3 as u32, a4 as u32, admin).map(|_| 0)
        }
        KEYCTL_SETPERM => {
            let admin = c.cred.has_cap(abi::CAP_SYS_ADMIN);
            c.setperm(id, a3 as u32, admin).map(|_| 0)
        }
        KEYCTL_DESCRIBE => {
            let (key, _) = c.key(id, false, KEY_VIEW)?;
            let mut text = key.describe();
            text.push(0);
            let (buf, len) = (a3 as usize, a4 as usize);
            if buf != 0 && len >= text.len() {
                copy_to_user(buf, &text)?;
            }
            Ok(text.len() as isize)
        }
        KEYCTL_CLEAR => c.clear(id).map(|_| 0),
        KEYCTL_LINK => c.link(id, a3 as i32).map(|_| 0),
        KEYCTL_UNLINK => c.unlink(id, a3 as i32).map(|_| 0),
        KEYCTL_SEARCH => {
            let type_name = read_type(a3 as usize)?;
            let desc = read_desc(a4 as usize)?;
            Ok(c.search(id, &type_name, &desc, a5 as i32)? as isize)
        }
        KEYCTL_READ => {
            let (key, possessed) = c.lookup(id, false)?;
            key.validate()?;
            if c.check(&key, possessed, crate::keys::KEY_READ).is_err() && !possessed {
                return Err(Errno::EACCES);
            }
            let data = key.read()?;
            let (buf, len) = (a3 as usize, a4 as usize);
            // Linux copies only when the whole payload fits.
            if buf != 0 && len != 0 && data.len() <= len {
                copy_to_user(buf, &data)?;
            }
            Ok(data.len() as isize)
        }
        // Only the process request_key runs to make a key may
        // instantiate it: nothing is ever under construction here.
        KEYCTL_INSTANTIATE | KEYCTL_NEGATE | KEYCTL_REJECT | KEYCTL_INSTANTIATE_IOV => Err(Errno::EPERM),
        KEYCTL_SET_REQKEY_KEYRING => Ok(c.set_reqkey_keyring(id)? as isize),
        KEYCTL_SET_TIMEOUT => c.set_timeout(id, a3 as u32).map(|_| 0),
        KEYCTL_INVALIDATE => c.invalidate(id).map(|_| 0),
        KEYCTL_GET_PERSISTENT => {
            let can_setuid = c.cred.has_cap(abi::CAP_SETUID);
            Ok(c.get_persistent(id, a3 as i32, can_setuid)? as isize)
        }
        _ => Err(Errno::EOPNOTSUPP),
    }
}
