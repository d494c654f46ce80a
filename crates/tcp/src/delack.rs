//! Linux 6.x's delayed-ACK policy for a receiver that never sends data
//! (net/ipv4/tcp_input.c `tcp_incr_quickack`, `tcp_enter_quickack_mode`,
//! `tcp_event_data_recv`, `__tcp_ack_snd_check`; tcp_output.c
//! `tcp_send_delayed_ack`, `tcp_event_ack_sent`; tcp_timer.c
//! `tcp_delack_timer_handler`; v6.12, see docs/dev/linux-tcp/delack.md
//! sections 4 to 7 and 9).
//!
//! - Quick-ACK mode: the first data segment, data after an idle gap longer
//!   than the RTO, and old (duplicate) data allow up to 16 immediate ACKs
//!   (at most half the receive window in segments); each ACK sent uses one.
//!   In-order data is any segment at `rcv_nxt`, the repair of a hole too
//!   (`tcp_data_queue` calls `tcp_event_data_recv` before `tcp_ofo_queue`):
//!   a hole held longer than the RTO makes its repair's gap "too long", and
//!   the out-of-order segments after it are ACKed at once, not compressed.
//! - The delayed-ACK timeout (ATO) adapts to the arrival gaps: halved toward
//!   40 ms on dense arrivals, grown to the gap when data is sparser, doubled
//!   (up to 200 ms) each time the timer fires; the delay is at most
//!   max(SRTT, 40 ms) and below 200 ms.
//! - More than one full segment unacknowledged is ACKed at once (the caller's
//!   `delack_segments` rule).
//!
//! `tcp_grow_window`'s quick ACKs while the receive window grows are the
//! receiver's (`buffer_accounting = "linux"`, crate::rcvwnd). Not
//! modelled: pingpong mode (the receiver sends no data), and ACKs that
//! acknowledge nothing new (window updates) spend a quick ACK here where
//! `tcp_dec_quickack_mode` counts only scheduled ones. Compressed SACKs are the receiver's (`sack_compression`).
//! The receiver's SRTT and RTO come from the handshake (`tcp_synack_rtt_meas`:
//! one sample, RTO = RTT + max(2 RTT, 200 ms)).

use tcplab_engine::SimTime;

/// Most quick ACKs granted at once (`TCP_MAX_QUICKACKS`).
pub const MAX_QUICKACKS: u32 = 16;

/// `TCP_DELACK_MAX`.
const DELACK_MAX: SimTime = SimTime(200_000_000);

/// The adaptive part of a Linux receiver's ACK policy.
#[derive(Clone, Copy, Debug, Default)]
pub struct LinuxAck {
    /// Current ATO; zero before the first data segment.
    pub ato: SimTime,
    /// When in-order data last arrived (`icsk_ack.lrcvtime`).
    lrcvtime: SimTime,
    /// The receiver's SRTT and RTO (from the handshake), if measured.
    srtt: Option<SimTime>,
    rto: SimTime,
    /// `TCP_ATO_MIN` (= `TCP_DELACK_MIN`, the host's `delack_timeout`).
    ato_min: SimTime,
}

/// What to do with a segment that leaves an ACK owed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AckNow {
    /// Send it now.
    Now,
    /// Delay it until this time.
    At(SimTime),
}

impl LinuxAck {
    /// A policy with `ato_min` (`TCP_ATO_MIN` = `TCP_DELACK_MIN`, 40 ms) and
    /// no RTT measured yet (RTO 1 s, `TCP_TIMEOUT_INIT`).
    pub fn new(ato_min: SimTime) -> LinuxAck {
        LinuxAck {
            rto: SimTime::from_millis(1000),
            ato_min,
            ..Default::default()
        }
    }

    /// The handshake's RTT sample (`tcp_synack_rtt_meas`): SRTT = `rtt`,
    /// RTO = `rtt` + max(2 `rtt`, `min_rto`).
    pub fn on_handshake_rtt(&mut self, rtt: SimTime, min_rto: SimTime) {
        self.srtt = Some(rtt);
        self.rto = rtt + SimTime(2 * rtt.0).max(min_rto);
    }

    /// The receiver's SRTT (the handshake's sample), if measured.
    pub fn srtt(&self) -> Option<SimTime> {
        self.srtt
    }

    /// `tcp_incr_quickack`: raise `quick` to min(window / (2 mss) or 2, max).
    pub fn incr_quick(quick: &mut u32, rcv_wnd: u64, mss: u32, max: u32) {
        let q = match rcv_wnd / (2 * mss.max(1) as u64) {
            0 => 2,
            q => q.min(u32::MAX as u64) as u32,
        }
        .min(max);
        *quick = (*quick).max(q);
    }

    /// `tcp_enter_quickack_mode`: quick ACKs, and the ATO back to its minimum.
    pub fn enter_quickack(&mut self, quick: &mut u32, rcv_wnd: u64, mss: u32, max: u32) {
        Self::incr_quick(quick, rcv_wnd, mss, max);
        self.ato = self.ato_min;
    }

    /// `tcp_event_data_recv` for in-order data arriving at `now`.
    pub fn on_data(&mut self, now: SimTime, quick: &mut u32, rcv_wnd: u64, mss: u32) {
        let ato_min = self.ato_min;
        if self.ato == SimTime::ZERO {
            Self::incr_quick(quick, rcv_wnd, mss, MAX_QUICKACKS);
            self.ato = ato_min;
        } else {
            let m = now.saturating_sub(self.lrcvtime);
            if m.0 <= ato_min.0 / 2 {
                self.ato = SimTime(self.ato.0 / 2 + ato_min.0 / 2);
            } else if m < self.ato {
                self.ato = SimTime(self.ato.0 / 2 + m.0).min(self.rto).min(DELACK_MAX);
            } else if m > self.rto {
                Self::incr_quick(quick, rcv_wnd, mss, MAX_QUICKACKS);
            }
        }
        self.lrcvtime = now;
    }

    /// `tcp_send_delayed_ack`: when the owed ACK goes out, given the delayed
    /// ACK timer already pending (`pending`). With `tick` (the timer wheel's
    /// jiffy, `timer_wheel`) the kernel's jiffies arithmetic: the cap is the
    /// minimum RTO less one jiffy, and a pending timer due within a quarter
    /// of the delay is compared in ticks, `timeout <= jiffies + (ato >> 2)`;
    /// without, a 1 ms jiffy and exact times.
    pub fn delay(&self, now: SimTime, pending: Option<SimTime>, tick: Option<SimTime>) -> AckNow {
        let ato_min = self.ato_min;
        let mut a = self.ato;
        if a > ato_min {
            let mut max = SimTime::from_millis(500);
            if let Some(s) = self.srtt {
                max = max.min(s.max(ato_min));
            }
            a = a.min(max);
        }
        // min(icsk_delack_max, rto_min - 1 jiffy): 199 ms with 1 ms jiffies,
        // 196 ms at HZ 250.
        let jiffy = tick.filter(|j| j.0 > 0);
        a = a.min(DELACK_MAX - jiffy.unwrap_or(SimTime::from_millis(1)));
        let mut t = now + a;
        if let Some(p) = pending {
            let due = match jiffy {
                Some(j) => p.0 / j.0 <= now.0 / j.0 + a.0.div_ceil(j.0) / 4,
                None => p <= now + SimTime(a.0 / 4),
            };
            if due {
                return AckNow::Now;
            }
            t = t.min(p);
        }
        AckNow::At(t)
    }

    /// `tcp_delack_timer_handler`: the timer fired with an ACK owed; the
    /// ATO doubles (up to the RTO and 200 ms).
    pub fn on_timer(&mut self) {
        self.ato = SimTime(2 * self.ato.0).min(self.rto).min(DELACK_MAX);
    }

    /// `tcp_event_ack_sent` / `tcp_dec_quickack_mode`: an ACK used a quick
    /// ACK; the last one brings the ATO back to its minimum.
    pub fn on_ack_sent(&mut self, quick: &mut u32) {
        if *quick > 0 {
            *quick -= 1;
            if *quick == 0 {
                self.ato = self.ato_min;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> SimTime {
        SimTime::from_millis(x)
    }
    const ATO_MIN: SimTime = SimTime(40_000_000);

    #[test]
    fn a_dense_stream_gets_sixteen_quick_acks_then_the_ato_settles_at_40_ms() {
        // delack.md 10(a): 64 KB window, 1448-byte segments 1 ms apart:
        // quick = min(65535 / 2896 = 22, 16) = 16 on the first segment.
        let mut p = LinuxAck::new(ATO_MIN);
        let mut quick = 0;
        p.on_data(ms(1), &mut quick, 65535, 1448);
        assert_eq!((quick, p.ato), (16, ATO_MIN));
        for k in 0..16 {
            p.on_ack_sent(&mut quick);
            assert_eq!(quick, 15 - k);
            p.on_data(ms(2 + k as u64), &mut quick, 65535, 1448);
        }
        // m = 1 ms <= 20 ms keeps ato at 40/2 + 20 = 40.
        assert_eq!(p.ato, ATO_MIN);
        // A lone segment is delayed by the ATO: 40 ms.
        assert_eq!(p.delay(ms(17), None, None), AckNow::At(ms(57)));
    }

    #[test]
    fn a_slow_sender_sees_the_ato_grow_and_the_delay_capped_at_srtt() {
        // delack.md 10(b): one segment every 100 ms, handshake RTT 50 ms:
        // RTO = 50 + max(100, 200) = 250 ms. Past the quick ACKs: S17's ACK
        // after 40 ms (ato 40 -> 80), S18's after min(80, max(50, 40)) = 50
        // (ato -> 160), S19: ato = min(80 + 100, 250, 200) = 180, delay 50,
        // timer -> 200; from then on ato 200 and a 50 ms delay.
        let mut p = LinuxAck::new(ATO_MIN);
        p.on_handshake_rtt(ms(50), ms(200));
        let mut quick = 0;
        for k in 0..16u64 {
            p.on_data(ms(100 * k), &mut quick, 65535, 1448);
            p.on_ack_sent(&mut quick);
        }
        assert_eq!((quick, p.ato), (0, ATO_MIN));
        let mut delays = vec![];
        let mut atos = vec![];
        for k in 16..21u64 {
            let t = ms(100 * k);
            p.on_data(t, &mut quick, 65535, 1448);
            atos.push(p.ato);
            match p.delay(t, None, None) {
                AckNow::At(d) => delays.push(d - t),
                AckNow::Now => panic!("no quick ACK left"),
            }
            p.on_timer();
        }
        assert_eq!(atos, vec![ms(40), ms(80), ms(180), ms(200), ms(200)]);
        assert_eq!(delays, vec![ms(40), ms(50), ms(50), ms(50), ms(50)]);
    }

    #[test]
    fn a_gap_longer_than_the_rto_and_a_small_window_grant_quick_acks() {
        let mut p = LinuxAck::new(ATO_MIN);
        p.on_handshake_rtt(ms(50), ms(200));
        let mut quick = 0;
        p.on_data(ms(0), &mut quick, 65535, 1448);
        quick = 0;
        // 300 ms > RTO 250 ms: 16 quick ACKs again, ATO untouched.
        p.on_data(ms(300), &mut quick, 65535, 1448);
        assert_eq!(quick, 16);
        // A window of 4000 bytes: 4000 / 2896 = 1 quick ACK; of 2000: 0 -> 2.
        let mut q = 0;
        LinuxAck::incr_quick(&mut q, 4000, 1448, 16);
        assert_eq!(q, 1);
        let mut q = 0;
        LinuxAck::incr_quick(&mut q, 2000, 1448, 16);
        assert_eq!(q, 2);
    }

    #[test]
    fn a_pending_timer_close_to_firing_sends_the_ack_at_once() {
        // tcp_send_delayed_ack: the timer due within a quarter of the delay.
        let mut p = LinuxAck::new(ATO_MIN);
        let mut quick = 0;
        p.on_data(ms(0), &mut quick, 65535, 1448);
        assert_eq!(p.delay(ms(0), Some(ms(5)), None), AckNow::Now);
        assert_eq!(p.delay(ms(0), Some(ms(20)), None), AckNow::At(ms(20)));
    }

    #[test]
    fn on_the_timer_wheel_the_quarter_rule_and_the_cap_count_jiffies() {
        // HZ 250 (4 ms jiffies), ATO 40 ms = 10 jiffies, ato >> 2 = 2.
        let j = Some(ms(4));
        let mut p = LinuxAck::new(ATO_MIN);
        let mut quick = 0;
        p.on_data(ms(0), &mut quick, 65535, 1448);
        // A timer pending for tick 64 (256 ms), at 246.5 ms (tick 61):
        // 64 <= 61 + 2 is false, so the pending timer is kept; in exact
        // times 256 <= 246.5 + 10 would have sent at once.
        let (now, pending) = (SimTime::from_micros(246_500), Some(ms(256)));
        assert_eq!(p.delay(now, pending, j), AckNow::At(ms(256)));
        assert_eq!(p.delay(now, pending, None), AckNow::Now);
        // At tick 62 (248 ms): 64 <= 62 + 2, at once.
        assert_eq!(p.delay(ms(248), pending, j), AckNow::Now);
        // The cap: min(TCP_DELACK_MAX, TCP_RTO_MIN - 1 jiffy) = 49 jiffies,
        // 196 ms at HZ 250 (199 ms with 1 ms jiffies). No SRTT known: the
        // ATO, doubled by the timer to 200 ms, is capped there.
        p.on_timer();
        p.on_timer();
        p.on_timer();
        assert_eq!(p.ato, ms(200));
        assert_eq!(p.delay(ms(0), None, j), AckNow::At(ms(196)));
        assert_eq!(p.delay(ms(0), None, None), AckNow::At(ms(199)));
    }
}
