//! RACK loss detection (RFC 8985) as Linux 6.x does it (net/ipv4/
//! tcp_recovery.c: `tcp_rack_advance`, `tcp_rack_reo_wnd`,
//! `tcp_rack_detect_loss`, `tcp_rack_mark_lost`, `tcp_rack_reo_timeout`;
//! v6.12, see docs/dev/linux-tcp/rack-tlp.md sections 1 to 3). A segment is
//! lost when a segment sent after it has been delivered and more than the
//! latest delivery's RTT plus a reordering window has passed since it was
//! sent; the reordering window is a quarter of the minimum RTT (at most
//! SRTT), and zero while no reordering has been seen and either three
//! segments are SACKed (the dupthresh shortcut) or a recovery is under way
//! (so a lost retransmission is found one RTT after it was sent). Segments
//! not yet old enough arm the reordering timer.
//!
//! Differences from Linux, none of which changes a decision in a network
//! without reordering: the scan walks the scoreboard in sequence order and
//! stops at the first never-retransmitted segment sent after the newest
//! delivered one (Linux walks a transmit-time ordered list; every segment
//! after such a segment in sequence was also sent after it, so the set of
//! segments examined is the same); the window does not grow on DSACKs
//! (`reo_wnd_steps` stays 1); times are in nanoseconds, not microseconds.

use crate::cc::CaState;
use crate::scoreboard::{Scoreboard, EVER_RETRANS, LOST, RETRANS, SACKED};
use tcplab_engine::SimTime;

/// Linux `tcp_skb_sent_after`: sent later, or at the same time with a higher
/// end sequence number.
#[inline]
pub fn sent_after(t1: SimTime, t2: SimTime, seq1: u64, seq2: u64) -> bool {
    t1 > t2 || (t1 == t2 && seq1 > seq2)
}

/// What RACK learns from the segments one ACK delivers (offered one by one
/// in processing order, as `tcp_rack_advance` is called).
#[derive(Clone, Copy, Debug, Default)]
pub struct RackAcc {
    /// RACK is on for this connection (else nothing is recorded).
    pub on: bool,
    /// Time the ACK arrived.
    pub now: SimTime,
    /// The connection's minimum RTT (`tcp_min_rtt`), for the
    /// retransmission filter.
    pub min_rtt: Option<SimTime>,
    /// RTT of the last accepted delivery.
    pub rtt: Option<SimTime>,
    /// (send time, end sequence) of the most recently sent accepted delivery.
    pub newest: Option<(SimTime, u64)>,
    /// The ACK's timestamp echo in ms ticks, when the connection uses
    /// timestamps and the ACK echoes one (`rx_opt.rcv_tsecr`).
    pub tsecr_ms: Option<u64>,
}

impl RackAcc {
    /// `tcp_clean_rtx_queue`'s call of `tcp_rack_advance` for a cumulatively
    /// acknowledged segment, unless `tcp_skb_spurious_retrans`: a
    /// retransmitted segment whose ACK echoes a timestamp older than its
    /// latest transmission (in the ms ticks of the timestamp clock) was
    /// acknowledged for an earlier transmission; RACK learns nothing from it.
    #[inline]
    pub fn offer_acked(&mut self, sent: SimTime, end: u64, flags: u8) {
        if flags & EVER_RETRANS != 0 && self.tsecr_ms.is_some_and(|e| e < sent.0 / 1_000_000) {
            return;
        }
        self.offer(sent, end, flags);
    }

    /// `tcp_rack_advance` for one delivered segment sent at `sent`, ending
    /// at `end`, with scoreboard flags `flags`.
    #[inline]
    pub fn offer(&mut self, sent: SimTime, end: u64, flags: u8) {
        if !self.on {
            return;
        }
        let rtt = self.now.saturating_sub(sent);
        // A retransmitted segment delivered sooner than the minimum RTT was
        // probably delivered by its original transmission: ambiguous, skip.
        if flags & EVER_RETRANS != 0 && self.min_rtt.is_none_or(|m| rtt < m) {
            return;
        }
        self.rtt = Some(rtt);
        if self.newest.is_none_or(|(t, e)| sent_after(sent, t, end, e)) {
            self.newest = Some((sent, end));
        }
    }
}

/// RACK state of one connection (Linux `tp->rack`, `reord_seen`, `reordering`).
#[derive(Clone, Copy, Debug)]
pub struct Rack {
    /// (send time, end sequence) of the most recently sent delivered segment.
    xmit: Option<(SimTime, u64)>,
    /// RTT of the latest accepted delivery (`rack.rtt_us`).
    rtt: SimTime,
    /// Something new was delivered since the last scan (`rack.advanced`).
    advanced: bool,
    /// Reordering events seen (`tp->reord_seen`).
    pub reord_seen: u32,
    /// The dupthresh-like reordering degree (`tp->reordering`, starts at
    /// `net.ipv4.tcp_reordering` = 3).
    pub reordering: u32,
}

impl Rack {
    /// Fresh state; `reordering` is the initial reordering degree (3).
    pub fn new(reordering: u32) -> Rack {
        Rack {
            xmit: None,
            rtt: SimTime::ZERO,
            advanced: false,
            reord_seen: 0,
            reordering,
        }
    }

    /// Take in what one ACK delivered.
    pub fn absorb(&mut self, acc: &RackAcc) {
        if let Some(r) = acc.rtt {
            self.advanced = true;
            self.rtt = r;
        }
        if let Some((t, e)) = acc.newest {
            if self.xmit.is_none_or(|(xt, xe)| sent_after(t, xt, e, xe)) {
                self.xmit = Some((t, e));
            }
        }
    }

    /// Scan again on the next `mark_lost` (Linux `tcp_undo_cwnd_reduction`
    /// sets `rack.advanced` on every undo).
    pub fn set_advanced(&mut self) {
        self.advanced = true;
    }

    /// RTT of the latest accepted delivery (zero before any).
    pub fn rtt(&self) -> SimTime {
        self.rtt
    }

    /// `tcp_rack_reo_wnd`: the reordering window.
    pub fn reo_wnd(
        &self,
        state: CaState,
        sacked: u32,
        min_rtt: Option<SimTime>,
        srtt: Option<SimTime>,
    ) -> SimTime {
        if self.reord_seen == 0
            && (matches!(state, CaState::Recovery | CaState::Loss) || sacked >= self.reordering)
        {
            return SimTime::ZERO;
        }
        match (min_rtt, srtt) {
            (Some(m), Some(s)) => SimTime(m.0 / 4).min(s),
            _ => SimTime::ZERO,
        }
    }

    /// `tcp_rack_mark_lost` on an ACK: when something new was delivered,
    /// scan. Returns the segments newly marked lost and, when some segment
    /// is not old enough yet, how long until it is.
    pub fn mark_lost(
        &mut self,
        sb: &mut Scoreboard,
        now: SimTime,
        reo_wnd: SimTime,
    ) -> (u32, Option<SimTime>) {
        if !self.advanced {
            return (0, None);
        }
        self.advanced = false;
        self.detect_loss(sb, now, reo_wnd)
    }

    /// `tcp_rack_detect_loss`: mark lost every segment sent before the most
    /// recently sent delivered one whose RTT plus reordering window has
    /// passed; returns (segments newly lost, the longest time still to wait
    /// for the others, if any).
    pub fn detect_loss(
        &self,
        sb: &mut Scoreboard,
        now: SimTime,
        reo_wnd: SimTime,
    ) -> (u32, Option<SimTime>) {
        let Some((mt, me)) = self.xmit else {
            return (0, None);
        };
        let wait = (self.rtt + reo_wnd).0 as i64;
        let mut lost = 0;
        let mut longest: i64 = 0;
        for i in 0..sb.len() {
            let s = *sb.get(i);
            if s.has(SACKED) || (s.has(LOST) && !s.has(RETRANS)) {
                continue;
            }
            if !sent_after(mt, s.sent, me, s.end()) {
                if s.has(EVER_RETRANS) {
                    continue;
                }
                // Never retransmitted: every later segment was sent later.
                break;
            }
            let remaining = wait - now.saturating_sub(s.sent).0 as i64;
            if remaining <= 0 {
                lost += sb.mark_seg_lost(i);
            } else {
                longest = longest.max(remaining);
            }
        }
        (lost, (longest > 0).then_some(SimTime(longest as u64)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scoreboard::{RateAcc, Seg, TxSnap};

    const MSS: u32 = 1000;

    fn ms(x: u64) -> SimTime {
        SimTime::from_millis(x)
    }

    #[test]
    fn a_cumulative_ack_echoing_an_earlier_transmission_teaches_rack_nothing() {
        // tcp_skb_spurious_retrans: a segment resent at 150 ms, acknowledged
        // by an ACK echoing the timestamp 100 (its first transmission's):
        // the ACK is for the original; RACK is not advanced. Echoing 150 (the
        // retransmission's) or on a segment never resent, it is.
        let acc = |tsecr: u64| RackAcc {
            on: true,
            now: ms(300),
            min_rtt: Some(ms(10)),
            tsecr_ms: Some(tsecr),
            ..Default::default()
        };
        let mut a = acc(100);
        a.offer_acked(ms(150), 1000, EVER_RETRANS);
        assert_eq!((a.rtt, a.newest), (None, None));
        let mut a = acc(150);
        a.offer_acked(ms(150), 1000, EVER_RETRANS);
        assert_eq!((a.rtt, a.newest), (Some(ms(150)), Some((ms(150), 1000))));
        let mut a = acc(100);
        a.offer_acked(ms(150), 1000, 0);
        assert_eq!(a.rtt, Some(ms(150)));
        // A SACK delivery is not filtered so (tcp_sacktag_one calls
        // tcp_rack_advance with the min-RTT filter alone).
        let mut a = acc(100);
        a.offer(ms(150), 1000, EVER_RETRANS);
        assert_eq!(a.rtt, Some(ms(150)));
    }

    /// Segments S1..S10 of MSS bytes, S_i sent at (i-1) ms (the worked
    /// example of docs/dev/linux-tcp/rack-tlp.md 7.1).
    fn ten() -> Scoreboard {
        let mut sb = Scoreboard::new(MSS, 16);
        for i in 0..10u64 {
            sb.push(Seg {
                start: 1 + i * MSS as u64,
                len: MSS,
                payload: MSS,
                fin: false,
                sent: ms(i),
                flags: 0,
                tx: TxSnap::default(),
            });
        }
        sb
    }

    /// What the sender hands the scoreboard for an ACK at `now` (min RTT 90 ms).
    fn acc(now: SimTime) -> RateAcc {
        RateAcc {
            rack: RackAcc {
                on: true,
                now,
                min_rtt: Some(ms(90)),
                ..Default::default()
            },
            ..Default::default()
        }
    }

    fn seq(i: u64) -> u64 {
        1 + (i - 1) * MSS as u64
    }

    /// SACK S4..S(k) at `now` (S3 lost), as the sender does: offer the
    /// newly SACKed segments, absorb, scan.
    fn sack_to(
        rack: &mut Rack,
        sb: &mut Scoreboard,
        k: u64,
        now: SimTime,
        state: CaState,
    ) -> (u32, Option<SimTime>) {
        let mut rate = acc(now);
        sb.sack(seq(4), seq(k + 1), &mut rate);
        rack.absorb(&rate.rack);
        let reo = rack.reo_wnd(state, sb.sacked, Some(ms(90)), Some(ms(100)));
        rack.mark_lost(sb, now, reo)
    }

    #[test]
    fn the_reordering_window_then_the_dupthresh_shortcut_as_linux_worked_example() {
        // rack-tlp.md 7.1: SRTT 100 ms, min_rtt 90 ms, ACKs 100 ms after
        // each segment. S1, S2 cumulatively ACKed at 100/101 ms.
        let mut sb = ten();
        let mut rack = Rack::new(3);
        let mut rate = acc(ms(101));
        sb.ack_to(seq(3), &mut rate);
        rack.absorb(&rate.rack);
        assert_eq!(rack.rtt(), ms(100));
        // 103 ms, SACK S4: window 90/4 = 22.5 ms; S3 (sent at 2 ms) has
        // 100 + 22.5 - 101 = 21.5 ms to go.
        let (lost, t) = sack_to(&mut rack, &mut sb, 4, ms(103), CaState::Open);
        assert_eq!((lost, t), (0, Some(SimTime::from_micros(21_500))));
        // 104 ms, SACK S4-5: 20.5 ms to go.
        let (lost, t) = sack_to(&mut rack, &mut sb, 5, ms(104), CaState::Disorder);
        assert_eq!((lost, t), (0, Some(SimTime::from_micros(20_500))));
        // 105 ms, SACK S4-6: three SACKed, no reordering seen: window 0, and
        // 100 - (105 - 2) = -3 ms <= 0: S3 is lost now.
        let (lost, t) = sack_to(&mut rack, &mut sb, 6, ms(105), CaState::Disorder);
        assert_eq!((lost, t), (1, None));
        assert!(sb.get(0).has(LOST));
        assert_eq!(sb.in_flight(), 10 - 2 - 3 - 1);
    }

    #[test]
    fn with_reordering_seen_the_timer_marks_the_hole_at_127_ms() {
        // rack-tlp.md 7.1, reordering already seen: the window stays 22.5 ms;
        // every SACK leaves S3 waiting until 2 + 100 + 22.5 = 124.5 ms (the
        // kernel arms its timer 2 ms later, rounded up to 127 ms); at the
        // timer S3 is lost.
        let mut sb = ten();
        let mut rack = Rack::new(3);
        rack.reord_seen = 1;
        let mut rate = RateAcc::default();
        sb.ack_to(seq(3), &mut rate);
        for (k, now) in [(4, 103), (5, 104), (6, 105), (10, 109)] {
            let (lost, t) = sack_to(&mut rack, &mut sb, k, ms(now), CaState::Disorder);
            assert_eq!(lost, 0);
            assert_eq!(t, Some(SimTime::from_micros(124_500) - ms(now)));
        }
        let reo = rack.reo_wnd(CaState::Disorder, sb.sacked, Some(ms(90)), Some(ms(100)));
        assert_eq!(rack.detect_loss(&mut sb, ms(127), reo), (1, None));
    }

    #[test]
    fn a_lost_retransmission_is_found_one_rtt_after_it_was_sent() {
        // In recovery the window is 0: S3 retransmitted at 105 ms and lost;
        // segments sent after it (new data at 106 ms) delivered at 206 ms
        // mark the retransmission lost again (100 - (206 - 105) < 0).
        let mut sb = ten();
        let mut rack = Rack::new(3);
        let mut rate = RateAcc::default();
        sb.ack_to(seq(3), &mut rate);
        sack_to(&mut rack, &mut sb, 6, ms(105), CaState::Disorder);
        sb.retransmitted(0, ms(105), TxSnap::default());
        assert_eq!(sb.in_flight(), 10 - 2 - 3 - 1 + 1);
        sb.push(Seg {
            start: seq(11),
            len: MSS,
            payload: MSS,
            fin: false,
            sent: ms(106),
            flags: 0,
            tx: TxSnap::default(),
        });
        let mut rate = acc(ms(206));
        sb.sack(seq(7), seq(12), &mut rate);
        rack.absorb(&rate.rack);
        let reo = rack.reo_wnd(CaState::Recovery, sb.sacked, Some(ms(90)), Some(ms(100)));
        assert_eq!(reo, SimTime::ZERO);
        assert_eq!(rack.mark_lost(&mut sb, ms(206), reo), (1, None));
        let s = sb.get(0);
        assert!(s.has(LOST) && !s.has(RETRANS), "lost again, to be resent");
        assert_eq!(sb.first_lost(0), Some(0));
    }
}
