//! When a TCP connection acknowledges at once and when it delays its ACK
//! for data to carry it: Linux's quick-ack and ping-pong modes, decided
//! here and applied through smoltcp's ACK delay.
//!
//! Linux's behaviour (tcp_input.c, tcp_output.c, include/net/tcp.h,
//! Linux 6.1):
//! - The first data a connection receives, and data after a silence
//!   longer than the retransmission timeout, give it up to 16 quick ACKs
//!   (`tcp_incr_quickack`, `TCP_MAX_QUICKACKS`; the count is
//!   `rcv_wnd / (2 * rcv_mss)` capped at 16, which is 16 with loopback's
//!   window and the first segments' MSS estimate).
//! - Each segment sent carrying an ACK uses one (`tcp_dec_quickack_mode`
//!   from `tcp_event_ack_sent`): a pure ACK and an answer alike.
//! - Data sent within `ato` (40 ms at least) of the last data received
//!   is an answer and counts towards ping-pong mode
//!   (`tcp_event_data_sent`); at 3 (`TCP_PINGPONG_THRESH`) the
//!   connection is interactive.
//! - It acknowledges at once while it has quick ACKs left and is not
//!   interactive (`tcp_in_quickack_mode`); otherwise the ACK waits for
//!   data to carry it (the answer, the next request), up to the
//!   delayed-ACK timer.
//!
//! So a request/response exchange is four segments for its first three
//! rounds and two afterwards, where counting arrivals alone (16 of them)
//! kept connections that carry a few requests each (many connections, a
//! short session) acknowledging every segment alone.
//!
//! Not modelled: Linux leaves ping-pong mode when its delayed-ACK timer
//! fires (the answer took longer than `ato`); here an idle CPU sends the
//! ACKs waiting long before that (`stack::flush_delayed_acks`), which is
//! not a sign that the exchange stopped being interactive.

/// Quick ACKs given at the first data and after a long silence
/// (`TCP_MAX_QUICKACKS`).
const MAX_QUICKACKS: u8 = 16;
/// Answers that make a connection interactive (`TCP_PINGPONG_THRESH`).
const PINGPONG_THRESH: u8 = 3;
/// Data sent this soon after data arrived is an answer (`TCP_ATO_MIN`,
/// HZ / 25).
const ATO_MIN_NS: u64 = 40_000_000;
/// A silence this long gives quick ACKs again (`TCP_RTO_MIN`, the least
/// retransmission timeout).
const RTO_MIN_NS: u64 = 200_000_000;

/// One connection's ACK mode.
#[derive(Default)]
pub struct AckMode {
    /// Quick ACKs left (`icsk_ack.quick`).
    quick: u8,
    /// Answers counted towards ping-pong mode (`icsk_ack.pingpong`).
    pingpong: u8,
    /// Data has arrived (Linux's `ato` is set).
    seen_data: bool,
    /// When data last arrived (monotonic ns; `icsk_ack.lrcvtime`).
    last_data_ns: u64,
    /// smoltcp delays this connection's ACKs (what was last applied).
    delaying: bool,
}

impl AckMode {
    /// Data arrived at `now_ns`; the ACK for it is sent at once when the
    /// connection is in quick-ack mode (which uses one).
    pub fn data_in(&mut self, now_ns: u64) {
        if !self.seen_data || now_ns.saturating_sub(self.last_data_ns) > RTO_MIN_NS {
            self.quick = self.quick.max(MAX_QUICKACKS);
        }
        self.seen_data = true;
        self.last_data_ns = now_ns;
        if self.quick_mode() {
            self.quick -= 1;
        }
    }

    /// Data was queued to send at `now_ns`: its segment carries the ACK
    /// (using a quick ACK), and it is an answer if data arrived shortly
    /// before.
    pub fn data_out(&mut self, now_ns: u64) {
        self.quick = self.quick.saturating_sub(1);
        if self.seen_data && now_ns.saturating_sub(self.last_data_ns) < ATO_MIN_NS && self.pingpong < PINGPONG_THRESH {
            self.pingpong += 1;
        }
    }

    /// Acknowledges at once (Linux's `tcp_in_quickack_mode`).
    fn quick_mode(&self) -> bool {
        self.quick > 0 && self.pingpong < PINGPONG_THRESH
    }

    /// Returns the delay smoltcp must be given when it changed since the
    /// last call (`Some(None)`: acknowledge at once), None when it did not.
    pub fn update(&mut self, delay: smoltcp::time::Duration) -> Option<Option<smoltcp::time::Duration>> {
        let delaying = !self.quick_mode();
        if delaying == self.delaying {
            return None;
        }
        self.delaying = delaying;
        Some(if delaying { Some(delay) } else { None })
    }
}
