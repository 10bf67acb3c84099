//! /proc/keys and /proc/key-users, as Linux 6.1 prints them
//! (security/keys/proc.c's layout).
//!
//! /proc/keys lists, in increasing serial order, the keys the reader may
//! view: with view permission as possessor (when a search from its own
//! keyrings finds the key), owner, group or other. Each line: serial,
//! flags (I instantiated, R revoked, D dead, Q charged to a quota, U under
//! construction, N negative, i invalidated), usage count, timeout (perm,
//! expd, or what is left in s, m, h, d or w), permissions, uid, gid, type,
//! and the type's description (a user key's length, a keyring's number of
//! keys or "empty").
//!
//! /proc/key-users has one line per user holding keys: uid, usage, keys /
//! instantiated keys, keys / maximum and bytes / maximum of its quota.

use alloc::string::String;
use alloc::sync::{Arc, Weak};
use alloc::vec::Vec;
use core::fmt::Write;

use super::{quota_limits, Caller, Key, KeyType, KEYS, KEY_VIEW, POS, QUOTAS};

/// What the timeout column shows for a key expiring at `expiry` (ns of
/// CLOCK_REALTIME) when it is `now`.
fn timeout(expiry: Option<u64>, now: u64) -> String {
    let Some(expiry) = expiry else { return String::from("perm") };
    if now >= expiry {
        return String::from("expd");
    }
    // Linux compares whole seconds of the two times.
    let left = expiry / 1_000_000_000 - now / 1_000_000_000;
    match left {
        t if t < 60 => alloc::format!("{}s", t),
        t if t < 3600 => alloc::format!("{}m", t / 60),
        t if t < 86400 => alloc::format!("{}h", t / 3600),
        t if t < 7 * 86400 => alloc::format!("{}d", t / 86400),
        t => alloc::format!("{}w", t / (7 * 86400)),
    }
}

impl Key {
    /// The key's line of /proc/keys (with the reader's `possessed`).
    fn proc_line(self: &Arc<Key>, out: &mut String, now: u64) {
        // The reader's reference (the upgrade) is not the key's.
        let usage = Arc::strong_count(self).saturating_sub(1);
        let st = self.state.lock();
        let flags = [
            'I',
            if st.revoked { 'R' } else { '-' },
            '-',
            'Q',
            '-',
            '-',
            if st.invalidated { 'i' } else { '-' },
        ];
        let shown = |id: u32| if id == u32::MAX { 65534 } else { id };
        let _ = write!(
            out,
            "{:08x} {} {:5} {:>4} {:08x} {:5} {:5} {:<9.9} ",
            self.serial,
            flags.iter().collect::<String>(),
            usage,
            // Revoking sets the expiry to the moment (Linux's key_revoke).
            if st.revoked { String::from("expd") } else { timeout(st.expiry, now) },
            st.perm,
            shown(st.uid),
            shown(st.gid),
            self.ktype.name()
        );
        out.push_str(&String::from_utf8_lossy(&self.description));
        match self.ktype {
            KeyType::User | KeyType::Logon => {
                // A revoked key's payload is released (its length 0).
                let _ = write!(out, ": {}", if st.revoked { 0 } else { st.payload.len() });
            }
            KeyType::Keyring => {
                // Invalidated keys are already unlinked everywhere.
                let n = st.links.len();
                if n == 0 {
                    out.push_str(": empty");
                } else {
                    let _ = write!(out, ": {}", n);
                }
            }
        }
        out.push('\n');
    }
}

/// /proc/keys for `caller`.
pub fn proc_keys(caller: &Caller<'_>) -> String {
    let keys: Vec<Arc<Key>> = KEYS.lock().values().filter_map(Weak::upgrade).collect();
    let now = kevlar_platform::time::realtime_ns();
    let mut out = String::new();
    for key in keys {
        let pos_view = key.state.lock().perm & (KEY_VIEW << POS) != 0;
        let possessed = pos_view && caller.possesses(&key);
        if key.granted(&caller.cred, possessed) & KEY_VIEW == 0 {
            continue;
        }
        key.proc_line(&mut out, now);
    }
    out
}

/// /proc/key-users.
pub fn proc_key_users() -> String {
    let users: Vec<(u32, (usize, usize))> = QUOTAS.lock().iter().filter(|(_, &(keys, _))| keys > 0).map(|(&u, &c)| (u, c)).collect();
    let mut out = String::new();
    for (uid, (keys, bytes)) in users {
        let (max_keys, max_bytes) = quota_limits(uid);
        let _ = writeln!(out, "{:5}: {:5} {}/{} {}/{} {}/{}", uid, keys, keys, keys, keys, max_keys, bytes, max_bytes);
    }
    out
}
