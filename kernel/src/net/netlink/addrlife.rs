//! Address lifetimes (IFA_CACHEINFO, struct ifa_cacheinfo): what a DHCP
//! client gives the address of its lease. An address with a finite valid
//! lifetime is not IFA_F_PERMANENT (`ip` shows it `dynamic`), and its
//! lifetimes are reported counting down, as inet_fill_ifaddr does. Not
//! done: removing an address when its valid lifetime ends (Linux's
//! check_lifetime work).

use crate::error::{Errno, Result};
use crate::net::inet::stack::AddrLife;

/// INFINITY_LIFE_TIME.
const FOREVER: u32 = u32::MAX;

/// Reads a request's IFA_CACHEINFO (preferred, valid, ...): None for an
/// address that never expires; EINVAL for a zero valid lifetime or a
/// preferred one past it (inet_rtm_newaddr).
pub fn parse(raw: Option<&[u8]>) -> Result<Option<AddrLife>> {
    let Some(raw) = raw else {
        return Ok(None);
    };
    if raw.len() < 16 {
        return Err(Errno::EINVAL);
    }
    let preferred = u32::from_le_bytes(raw[0..4].try_into().unwrap());
    let valid = u32::from_le_bytes(raw[4..8].try_into().unwrap());
    if valid == 0 || preferred > valid {
        return Err(Errno::EINVAL);
    }
    if valid == FOREVER {
        return Ok(None);
    }
    Ok(Some(AddrLife { valid, preferred, since_ns: kevlar_platform::time::monotonic_ns() }))
}

/// The IFA_CACHEINFO of an address: the lifetimes left (infinite for a
/// permanent one), and the created and updated stamps in hundredths of a
/// second since boot.
pub fn cache_info(life: Option<AddrLife>) -> [u8; 16] {
    let now = kevlar_platform::time::monotonic_ns();
    let (preferred, valid, since) = match life {
        None => (FOREVER, FOREVER, now),
        Some(l) => {
            let gone = ((now.saturating_sub(l.since_ns)) / 1_000_000_000).min(u64::from(u32::MAX - 1)) as u32;
            let left = |v: u32| if v == FOREVER { FOREVER } else { v.saturating_sub(gone) };
            if l.preferred == FOREVER {
                (l.preferred, l.valid, l.since_ns)
            } else {
                (left(l.preferred), left(l.valid), l.since_ns)
            }
        }
    };
    let mut ci = [0u8; 16];
    ci[0..4].copy_from_slice(&preferred.to_le_bytes());
    ci[4..8].copy_from_slice(&valid.to_le_bytes());
    let stamp = (since / 10_000_000) as u32;
    ci[8..12].copy_from_slice(&stamp.to_le_bytes());
    ci[12..16].copy_from_slice(&stamp.to_le_bytes());
    ci
}
