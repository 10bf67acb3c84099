//! The network settings of /proc/sys/net, one set per network namespace
//! (Linux keeps them in struct net): their names, Linux 6.1's defaults
//! and the checks a write goes through. The settings the stack uses are
//! read from here: net.core.somaxconn caps listen's backlog,
//! net.ipv4.ip_local_port_range bounds the ephemeral ports, and the
//! tcp_keepalive_* ones are a new TCP socket's keep-alive timers.
//!
//! Values are integers (one or several, printed tab-separated as
//! proc_dointvec does) or a word.

use alloc::string::String;
use alloc::vec::Vec;

use kevlar_platform::sync::SpinLock;

use crate::error::{Errno, Result};

/// How a setting is written.
#[derive(Clone, Copy)]
pub enum Kind {
    /// One integer from `min` to `max` (EINVAL outside).
    Int(i64, i64),
    /// A boolean-like integer any value of which is taken
    /// (proc_dointvec without bounds).
    AnyInt,
    /// net.ipv4.ip_local_port_range: two ports, the first not above
    /// the second.
    PortRange,
    /// net.ipv4.ping_group_range: two group ids; an empty range when the
    /// second is below the first.
    GroupRange,
    /// Three integers (tcp_rmem, tcp_wmem), each at least 1.
    Triple,
    /// A queueing discipline's name (net.core.default_qdisc).
    Qdisc,
}

/// A setting: its path under /proc/sys/net, how it is written, its
/// default.
pub struct Knob {
    /// Its path below /proc/sys/net ("core/somaxconn").
    pub path: &'static str,
    /// What a write takes.
    pub kind: Kind,
    /// Its value at boot (and in a new namespace).
    pub default: &'static str,
}

/// INT_MAX, the bound of proc_dointvec's values.
const INT_MAX: i64 = i32::MAX as i64;

/// Every setting, in the order the directories list them.
pub const KNOBS: &[Knob] = &[
    Knob { path: "core/default_qdisc", kind: Kind::Qdisc, default: "pfifo_fast" },
    Knob { path: "core/netdev_max_backlog", kind: Kind::Int(0, INT_MAX), default: "1000" },
    Knob { path: "core/rmem_default", kind: Kind::Int(2304, INT_MAX), default: "212992" },
    Knob { path: "core/rmem_max", kind: Kind::Int(2304, INT_MAX), default: "212992" },
    Knob { path: "core/somaxconn", kind: Kind::Int(0, INT_MAX), default: "4096" },
    Knob { path: "core/wmem_default", kind: Kind::Int(4608, INT_MAX), default: "212992" },
    Knob { path: "core/wmem_max", kind: Kind::Int(4608, INT_MAX), default: "212992" },
    Knob { path: "ipv4/conf/all/accept_source_route", kind: Kind::AnyInt, default: "0" },
    Knob { path: "ipv4/conf/all/forwarding", kind: Kind::AnyInt, default: "0" },
    Knob { path: "ipv4/conf/all/promote_secondaries", kind: Kind::AnyInt, default: "0" },
    Knob { path: "ipv4/conf/all/rp_filter", kind: Kind::AnyInt, default: "0" },
    Knob { path: "ipv4/conf/default/accept_source_route", kind: Kind::AnyInt, default: "1" },
    Knob { path: "ipv4/conf/default/forwarding", kind: Kind::AnyInt, default: "0" },
    Knob { path: "ipv4/conf/default/promote_secondaries", kind: Kind::AnyInt, default: "0" },
    Knob { path: "ipv4/conf/default/rp_filter", kind: Kind::AnyInt, default: "0" },
    Knob { path: "ipv4/conf/eth0/accept_source_route", kind: Kind::AnyInt, default: "1" },
    Knob { path: "ipv4/conf/eth0/forwarding", kind: Kind::AnyInt, default: "0" },
    Knob { path: "ipv4/conf/eth0/promote_secondaries", kind: Kind::AnyInt, default: "0" },
    Knob { path: "ipv4/conf/eth0/rp_filter", kind: Kind::AnyInt, default: "0" },
    Knob { path: "ipv4/conf/lo/accept_source_route", kind: Kind::AnyInt, default: "1" },
    Knob { path: "ipv4/conf/lo/forwarding", kind: Kind::AnyInt, default: "0" },
    Knob { path: "ipv4/conf/lo/promote_secondaries", kind: Kind::AnyInt, default: "0" },
    Knob { path: "ipv4/conf/lo/rp_filter", kind: Kind::AnyInt, default: "0" },
    Knob { path: "ipv4/ip_default_ttl", kind: Kind::Int(1, 255), default: "64" },
    Knob { path: "ipv4/ip_forward", kind: Kind::AnyInt, default: "0" },
    Knob { path: "ipv4/ip_local_port_range", kind: Kind::PortRange, default: "32768\t60999" },
    Knob { path: "ipv4/ip_nonlocal_bind", kind: Kind::Int(0, 1), default: "0" },
    Knob { path: "ipv4/ip_unprivileged_port_start", kind: Kind::Int(0, 65535), default: "1024" },
    Knob { path: "ipv4/ping_group_range", kind: Kind::GroupRange, default: "1\t0" },
    Knob { path: "ipv4/tcp_fin_timeout", kind: Kind::AnyInt, default: "60" },
    Knob { path: "ipv4/tcp_keepalive_intvl", kind: Kind::AnyInt, default: "75" },
    Knob { path: "ipv4/tcp_keepalive_probes", kind: Kind::Int(0, 255), default: "9" },
    Knob { path: "ipv4/tcp_keepalive_time", kind: Kind::AnyInt, default: "7200" },
    Knob { path: "ipv4/tcp_rmem", kind: Kind::Triple, default: "4096\t131072\t6291456" },
    Knob { path: "ipv4/tcp_syncookies", kind: Kind::Int(0, 2), default: "1" },
    Knob { path: "ipv4/tcp_wmem", kind: Kind::Triple, default: "4096\t16384\t4194304" },
    Knob { path: "ipv6/conf/all/disable_ipv6", kind: Kind::AnyInt, default: "0" },
    Knob { path: "ipv6/conf/all/forwarding", kind: Kind::AnyInt, default: "0" },
    Knob { path: "ipv6/conf/default/disable_ipv6", kind: Kind::AnyInt, default: "0" },
    Knob { path: "ipv6/conf/default/forwarding", kind: Kind::AnyInt, default: "0" },
    Knob { path: "ipv6/conf/eth0/disable_ipv6", kind: Kind::AnyInt, default: "0" },
    Knob { path: "ipv6/conf/eth0/forwarding", kind: Kind::AnyInt, default: "0" },
    Knob { path: "ipv6/conf/lo/disable_ipv6", kind: Kind::AnyInt, default: "0" },
    Knob { path: "ipv6/conf/lo/forwarding", kind: Kind::AnyInt, default: "0" },
];

/// Whether the setting at `path` is only in the initial namespace
/// (Linux's net_core_table: one value for the whole system).
pub fn initial_only(path: &str) -> bool {
    matches!(path, "core/default_qdisc" | "core/netdev_max_backlog" | "core/rmem_default" | "core/rmem_max" | "core/wmem_default" | "core/wmem_max")
}

/// Returns the index of the setting at `path`.
pub fn index_of(path: &str) -> Option<usize> {
    KNOBS.iter().position(|k| k.path == path)
}

/// A namespace's values, by the index of their setting in [`KNOBS`].
pub struct NetSysctl {
    values: SpinLock<Vec<String>>,
}

impl NetSysctl {
    /// Every setting at its default.
    pub fn new() -> NetSysctl {
        NetSysctl { values: SpinLock::new(KNOBS.iter().map(|k| String::from(k.default)).collect()) }
    }

    /// The text a read of setting `index` gives.
    pub fn read(&self, index: usize) -> String {
        let mut text = self.values.lock().get(index).cloned().unwrap_or_default();
        text.push('\n');
        text
    }

    /// Takes a write of `buf` to setting `index` (the whole write is
    /// consumed, as proc_dointvec does).
    pub fn write(&self, index: usize, buf: &[u8]) -> Result<usize> {
        let knob = KNOBS.get(index).ok_or(Errno::EINVAL)?;
        let text = core::str::from_utf8(buf).map_err(|_| Errno::EINVAL)?;
        let value = check(knob.kind, text)?;
        self.values.lock()[index] = value;
        Ok(buf.len())
    }

    /// The integers of setting `path` (empty if it has none).
    fn ints(&self, path: &str) -> Vec<i64> {
        let Some(i) = index_of(path) else { return Vec::new() };
        self.values.lock()[i].split('\t').filter_map(|w| w.parse().ok()).collect()
    }

    /// net.core.somaxconn.
    pub fn somaxconn(&self) -> u32 {
        self.ints("core/somaxconn").first().map_or(4096, |&v| v as u32)
    }

    /// net.ipv4.ip_local_port_range (first, last).
    pub fn port_range(&self) -> (u16, u16) {
        match self.ints("ipv4/ip_local_port_range").as_slice() {
            &[a, b] => (a as u16, b as u16),
            _ => (32768, 60999),
        }
    }

    /// tcp_keepalive_time, _intvl and _probes (the times at least one
    /// second, the count at most TCP_KEEPCNT's 127, as setsockopt allows).
    pub fn keepalive(&self) -> (u32, u32, u32) {
        let get = |p: &str, d: u32| self.ints(p).first().map_or(d, |&v| v.clamp(1, 32767) as u32);
        (get("ipv4/tcp_keepalive_time", 7200), get("ipv4/tcp_keepalive_intvl", 75), get("ipv4/tcp_keepalive_probes", 9).min(127))
    }
}

/// The integers of a write: blank-separated (tabs, spaces, newlines),
/// each with an optional sign, as proc_dointvec reads them; at most
/// `max` of them (EINVAL for more or none, or for anything else).
fn parse_ints(text: &str, max: usize) -> Result<Vec<i64>> {
    let text = text.split('\0').next().unwrap_or("");
    let words: Vec<&str> = text.split([' ', '\t', '\n']).filter(|w| !w.is_empty()).collect();
    if words.is_empty() || words.len() > max {
        return Err(Errno::EINVAL);
    }
    words.iter().map(|w| w.parse::<i64>().map_err(|_| Errno::EINVAL)).collect()
}

/// Checks a write against its setting's rules; returns the value to keep.
fn check(kind: Kind, text: &str) -> Result<String> {
    let join = |v: &[i64]| v.iter().map(|n| alloc::format!("{}", n)).collect::<Vec<_>>().join("\t");
    match kind {
        Kind::Int(min, max) => {
            let v = parse_ints(text, 1)?[0];
            if v < min || v > max {
                return Err(Errno::EINVAL);
            }
            Ok(join(&[v]))
        }
        Kind::AnyInt => {
            let v = parse_ints(text, 1)?[0];
            if v < i64::from(i32::MIN) || v > INT_MAX {
                return Err(Errno::EINVAL);
            }
            Ok(join(&[v]))
        }
        Kind::PortRange => {
            let v = parse_ints(text, 2)?;
            if v.len() != 2 || v[0] < 1 || v[1] > 65535 || v[1] < v[0] {
                return Err(Errno::EINVAL);
            }
            Ok(join(&v))
        }
        Kind::GroupRange => {
            let v = parse_ints(text, 2)?;
            if v.len() != 2 || v.iter().any(|&g| !(0..=i64::from(u32::MAX) - 1).contains(&g)) {
                return Err(Errno::EINVAL);
            }
            if v[1] < v[0] {
                return Ok(join(&[1, 0]));
            }
            Ok(join(&v))
        }
        Kind::Triple => {
            let v = parse_ints(text, 3)?;
            if v.len() != 3 || v.iter().any(|&n| !(1..=INT_MAX).contains(&n)) {
                return Err(Errno::EINVAL);
            }
            Ok(join(&v))
        }
        Kind::Qdisc => {
            let name = text.split(['\n', '\0']).next().unwrap_or("").trim_end();
            match name {
                "pfifo_fast" | "fq_codel" | "pfifo" | "bfifo" | "noqueue" | "fq" | "sfq" => Ok(String::from(name)),
                _ => Err(Errno::ENOENT),
            }
        }
    }
}
