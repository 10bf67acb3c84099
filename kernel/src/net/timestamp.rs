//! SO_TIMESTAMP, SO_TIMESTAMPNS and their _NEW forms: the receive
//! timestamps a socket asks for, and the control message carrying one.
//!
//! Linux keeps three flags (stamp, in nanoseconds, in the new 64-bit
//! layout) that the four options set together, so what one option reads
//! back depends on which was set last; this mirrors them so getsockopt
//! answers as Linux's does.
use alloc::vec::Vec;
use kevlar_vfs::Timespec;
use linux_raw_sys::net as netabi;

/// The receive-timestamp flags of a socket.
#[derive(Clone, Copy, Debug, Default)]
pub struct Timestamping {
    /// A timestamp goes with each message received.
    pub on: bool,
    /// In nanoseconds (SCM_TIMESTAMPNS) rather than microseconds.
    pub ns: bool,
    /// In the 64-bit "_NEW" control message types.
    pub new: bool,
}

/// Whether `name` is one of the four receive-timestamp options.
pub fn is_option(name: u32) -> bool {
    matches!(name, netabi::SO_TIMESTAMP_OLD | netabi::SO_TIMESTAMPNS_OLD | netabi::SO_TIMESTAMP_NEW | netabi::SO_TIMESTAMPNS_NEW)
}

impl Timestamping {
    /// setsockopt of option `name`: switching on picks the layout and the
    /// unit; switching off (any of the four) clears both stamp flags and
    /// leaves the layout flag as it was.
    pub fn set(&mut self, name: u32, on: bool) {
        if on {
            self.on = true;
            self.ns = matches!(name, netabi::SO_TIMESTAMPNS_OLD | netabi::SO_TIMESTAMPNS_NEW);
            self.new = matches!(name, netabi::SO_TIMESTAMP_NEW | netabi::SO_TIMESTAMPNS_NEW);
        } else {
            self.on = false;
            self.ns = false;
        }
    }

    /// getsockopt of option `name`.
    pub fn get(&self, name: u32) -> bool {
        // Linux keeps the nanosecond flag apart from the stamp flag and
        // tests each option against its own combination of the three.
        let ns = self.on && self.ns;
        match name {
            netabi::SO_TIMESTAMP_OLD => self.on && !self.new && !self.ns,
            netabi::SO_TIMESTAMPNS_OLD => ns && !self.new,
            netabi::SO_TIMESTAMP_NEW => self.on && self.new,
            netabi::SO_TIMESTAMPNS_NEW => ns && self.new,
            _ => false,
        }
    }

    /// The control message (type, payload) for a message stamped at
    /// `when`, or None when no timestamp was asked for. Every layout is
    /// two 64-bit numbers on x86_64: seconds, then micro- or nanoseconds.
    pub fn control(&self, when: Timespec) -> Option<(u32, Vec<u8>)> {
        if !self.on {
            return None;
        }
        let kind = match (self.new, self.ns) {
            (false, false) => netabi::SO_TIMESTAMP_OLD,
            (false, true) => netabi::SO_TIMESTAMPNS_OLD,
            (true, false) => netabi::SO_TIMESTAMP_NEW,
            (true, true) => netabi::SO_TIMESTAMPNS_NEW,
        };
        let fraction = if self.ns { i64::from(when.nsec) } else { i64::from(when.nsec) / 1000 };
        let mut payload = Vec::with_capacity(16);
        payload.extend_from_slice(&when.sec.to_le_bytes());
        payload.extend_from_slice(&fraction.to_le_bytes());
        Some((kind, payload))
    }
}
