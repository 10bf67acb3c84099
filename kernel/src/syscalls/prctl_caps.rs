//! The capability prctl(2) options: the bounding set (PR_CAPBSET_READ,
//! PR_CAPBSET_DROP), the ambient set (PR_CAP_AMBIENT), the securebits
//! (PR_GET/SET_SECUREBITS) and PR_SET/GET_KEEPCAPS, over the sets of
//! `process::Credentials` (which apply them at exec and setuid).

use linux_raw_sys::general as abi;
use linux_raw_sys::prctl as pr;

use super::Args;
use crate::error::{Errno, Result};
use crate::process::{secbit, Thread};

/// Whether `option` is one of the options here.
pub fn is_prctl(option: u32) -> bool {
    matches!(option, pr::PR_CAPBSET_READ | pr::PR_CAPBSET_DROP | pr::PR_CAP_AMBIENT | pr::PR_GET_SECUREBITS
        | pr::PR_SET_SECUREBITS | pr::PR_GET_KEEPCAPS | pr::PR_SET_KEEPCAPS)
}

/// A capability number prctl takes (`cap_valid`), as a bit.
fn cap_bit(arg: usize) -> Result<u64> {
    if arg > abi::CAP_LAST_CAP as usize {
        return Err(Errno::EINVAL);
    }
    Ok(1 << arg)
}

pub fn prctl(thread: &Thread, a: &Args) -> Result<isize> {
    let (option, arg2, arg3, arg4, arg5) = (a.u32(0), a.usize(1), a.usize(2), a.usize(3), a.usize(4));
    let mut c = thread.process.creds.lock();
    match option {
        pr::PR_CAPBSET_READ => Ok(isize::from(c.cap_bounding & cap_bit(arg2)? != 0)),
        pr::PR_CAPBSET_DROP => {
            if !c.has_cap(abi::CAP_SETPCAP) {
                return Err(Errno::EPERM);
            }
            c.cap_bounding &= !cap_bit(arg2)?;
            Ok(0)
        }
        pr::PR_CAP_AMBIENT => {
            if arg2 == pr::PR_CAP_AMBIENT_CLEAR_ALL as usize {
                if arg3 | arg4 | arg5 != 0 {
                    return Err(Errno::EINVAL);
                }
                c.cap_ambient = 0;
                return Ok(0);
            }
            let bit = cap_bit(arg3)?;
            if arg4 | arg5 != 0 {
                return Err(Errno::EINVAL);
            }
            match arg2 as u32 {
                pr::PR_CAP_AMBIENT_IS_SET => Ok(isize::from(c.cap_ambient & bit != 0)),
                pr::PR_CAP_AMBIENT_RAISE => {
                    if c.cap_permitted & bit == 0 || c.cap_inheritable & bit == 0
                        || c.securebits & secbit::NO_CAP_AMBIENT_RAISE != 0
                    {
                        return Err(Errno::EPERM);
                    }
                    c.cap_ambient |= bit;
                    Ok(0)
                }
                pr::PR_CAP_AMBIENT_LOWER => {
                    c.cap_ambient &= !bit;
                    Ok(0)
                }
                _ => Err(Errno::EINVAL),
            }
        }
        pr::PR_GET_SECUREBITS => Ok((c.securebits | if c.keep_caps { secbit::KEEP_CAPS } else { 0 }) as isize),
        pr::PR_SET_SECUREBITS => {
            let old = c.securebits | if c.keep_caps { secbit::KEEP_CAPS } else { 0 };
            let locked = (old & secbit::ALL_LOCKS) >> 1;
            // Linux's cap_task_prctl: no change of a locked bit, no
            // unlocking, no unknown bit, and CAP_SETPCAP for anything.
            let new = u32::try_from(arg2).map_err(|_| Errno::EPERM)?;
            if u64::from(locked & (old ^ new)) != 0
                || old & secbit::ALL_LOCKS & !new != 0
                || arg2 & !((secbit::ALL_LOCKS | secbit::ALL_BITS) as usize) != 0
                || !c.has_cap(abi::CAP_SETPCAP)
            {
                return Err(Errno::EPERM);
            }
            c.keep_caps = new & secbit::KEEP_CAPS != 0;
            c.securebits = new & !secbit::KEEP_CAPS;
            Ok(0)
        }
        pr::PR_GET_KEEPCAPS => Ok(isize::from(c.keep_caps)),
        pr::PR_SET_KEEPCAPS => {
            if arg2 > 1 {
                return Err(Errno::EINVAL);
            }
            if c.securebits & (secbit::KEEP_CAPS << 1) != 0 {
                return Err(Errno::EPERM);
            }
            c.keep_caps = arg2 == 1;
            Ok(0)
        }
        _ => Err(Errno::EINVAL),
    }
}
