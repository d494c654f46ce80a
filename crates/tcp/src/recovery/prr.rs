//! Proportional Rate Reduction, as Linux 6.x does it (RFC 6937; net/ipv4/
//! tcp_input.c `tcp_init_cwnd_reduction`, `tcp_cwnd_reduction`,
//! `tcp_end_cwnd_reduction`, v6.19; the May 2022 form, "tcp: improve PRR
//! loss recovery"). Instead of setting cwnd to ssthresh at once, a recovery
//! (or ECN's CWR) sends in proportion to what is delivered: while more than
//! ssthresh is in flight, ssthresh/prior_cwnd of it; below, as much as was
//! delivered (banked credit included), one more when snd_una advanced with
//! no new loss (slow-start reduction bound), never more than fills up to
//! ssthresh. The first call allows at least one segment, the fast
//! retransmit. See docs/dev/linux-tcp/prr-frto-undo.md section 2.

/// The state of one window reduction.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Prr {
    /// cwnd when the reduction began (`tp->prior_cwnd`); 0: no reduction.
    prior_cwnd: u32,
    /// Segments delivered (cumulatively ACKed, SACKed or DSACKed) since.
    delivered: u32,
    /// Segments sent since (retransmissions and new data).
    out: u32,
}

impl Prr {
    /// `tcp_init_cwnd_reduction`: a reduction starts from `cwnd`.
    pub fn start(cwnd: u32) -> Prr {
        Prr {
            prior_cwnd: cwnd,
            delivered: 0,
            out: 0,
        }
    }
    /// Whether a reduction is under way.
    pub fn active(&self) -> bool {
        self.prior_cwnd > 0
    }
    /// The sender put `n` segments on the wire during the reduction
    /// (`tcp_write_xmit` and `tcp_xmit_retransmit_queue`; not the RTO's
    /// retransmission nor a loss probe's).
    pub fn on_sent(&mut self, n: u32) {
        self.out += n;
    }
    /// `tcp_cwnd_reduction` on an ACK that delivered `delivered` segments
    /// and marked `newly_lost` lost, with `in_flight` segments in flight
    /// before anything is sent in response; `snd_una_advanced` when it moved
    /// snd_una. Returns the new cwnd, or `None` when the ACK delivered
    /// nothing (cwnd unchanged).
    pub fn on_ack(
        &mut self,
        ssthresh: u32,
        in_flight: u32,
        delivered: u32,
        newly_lost: u32,
        snd_una_advanced: bool,
    ) -> Option<u32> {
        if delivered == 0 || self.prior_cwnd == 0 {
            return None;
        }
        let delta = ssthresh as i64 - in_flight as i64;
        self.delivered += delivered;
        let (delivered_total, out) = (self.delivered as i64, self.out as i64);
        let mut sndcnt = if delta < 0 {
            // ceil(ssthresh * prr_delivered / prior_cwnd) - prr_out
            let prior = self.prior_cwnd as i64;
            (ssthresh as i64 * delivered_total + prior - 1) / prior - out
        } else {
            let mut n = (delivered_total - out).max(delivered as i64);
            if snd_una_advanced && newly_lost == 0 {
                n += 1;
            }
            n.min(delta)
        };
        // Force the fast retransmit upon entering the reduction.
        sndcnt = sndcnt.max(if self.out > 0 { 0 } else { 1 });
        Some(in_flight + sndcnt as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Linux's worked case (docs/dev/linux-tcp/prr-frto-undo.md 2.2): 20
    /// segments out, the first lost, each ACK SACKs one more; Reno halves
    /// cwnd 20 to ssthresh 10; the sender always has new data. Recovery
    /// starts on the third SACK (RACK, reordering window 0 at three SACKed).
    /// Each expected cwnd below is worked by hand from the formula:
    /// in_flight = packets_out - sacked + retrans (nothing marked lost but
    /// the first segment, and it is counted back once retransmitted).
    #[test]
    fn cwnd_comes_down_to_ssthresh_over_the_recovery_round_trip() {
        let mut prr = Prr::start(20);
        let ssthresh = 10;
        // ACK 3: 22 out, 3 SACKed, 1 lost, 0 retransmitted: 18 in flight;
        // ceil(10 x 1 / 20) - 0 = 1: cwnd 19, the fast retransmit goes out.
        assert_eq!(prr.on_ack(ssthresh, 18, 1, 1, false), Some(19));
        prr.on_sent(1);
        // ACK 4: 22 - 4 - 1 + 1 = 18: ceil(20/20) - 1 = 0: cwnd 18, nothing.
        assert_eq!(prr.on_ack(ssthresh, 18, 1, 0, false), Some(18));
        // ACK 5: 17 in flight: ceil(30/20) - 1 = 1: cwnd 18, one new segment.
        assert_eq!(prr.on_ack(ssthresh, 17, 1, 0, false), Some(18));
        prr.on_sent(1);
        // ACK 6: 23 - 6 - 1 + 1 = 17: ceil(40/20) - 2 = 0: cwnd 17.
        assert_eq!(prr.on_ack(ssthresh, 17, 1, 0, false), Some(17));
        // ACK 7: 16 in flight: ceil(50/20) - 2 = 1: cwnd 17.
        assert_eq!(prr.on_ack(ssthresh, 16, 1, 0, false), Some(17));
        prr.on_sent(1);
        // So on, one new segment every other ACK (ssthresh/prior_cwnd = 1/2),
        // until in flight is down to ssthresh. ACK 8..18: in flight 16, 15,
        // 15, 14, 14, 13, 13, 12, 12, 11, 11 before sending.
        let mut in_flight = 16;
        for k in 8..=18u32 {
            let cwnd = prr.on_ack(ssthresh, in_flight, 1, 0, false).unwrap();
            // prr_delivered = k - 2; cwnd = in_flight + ceil(10 (k-2) / 20) - prr_out
            let expected = [16, 16, 15, 15, 14, 14, 13, 13, 12, 12, 11][(k - 8) as usize];
            assert_eq!(cwnd, expected, "ACK {k}");
            if cwnd > in_flight {
                prr.on_sent(cwnd - in_flight);
            } else {
                in_flight -= 1;
            }
        }
        // ACK 19: in flight 10 = ssthresh: conservation, min(0, ...) = 0: cwnd 10.
        assert_eq!(prr.on_ack(ssthresh, 10, 1, 0, false), Some(10));
        // ACK 20: in flight 9: min(1, max(18 - 8, 1)) = 1: cwnd 10, one new.
        assert_eq!(prr.on_ack(ssthresh, 9, 1, 0, false), Some(10));
    }

    #[test]
    fn an_application_limited_sender_banks_its_credit() {
        // Worked case 2.3: nothing new to send, so prr_out stays 1 after the
        // retransmission and cwnd = in_flight + ceil(10 d / 20) - 1.
        let mut prr = Prr::start(20);
        assert_eq!(prr.on_ack(10, 16, 1, 1, false), Some(17));
        prr.on_sent(1);
        assert_eq!(prr.on_ack(10, 16, 1, 0, false), Some(16)); // d 2: 1 - 1 = 0
        assert_eq!(prr.on_ack(10, 15, 1, 0, false), Some(16)); // d 3: 2 - 1 = 1
        assert_eq!(prr.on_ack(10, 14, 1, 0, false), Some(15)); // d 4: 2 - 1
        assert_eq!(prr.on_ack(10, 13, 1, 0, false), Some(15)); // d 5: 3 - 1 = 2
    }

    #[test]
    fn below_ssthresh_an_advancing_ack_without_loss_adds_one() {
        // Worked case 2.4 (packetdrill prr-ss-30pkt-lost1_4): in flight 3,
        // ssthresh 7, prr_delivered 5 after this ACK, prr_out 4, snd_una
        // advanced, no new loss: min(7 - 3, max(5 - 4, 1) + 1) = 2: cwnd 5.
        let mut prr = Prr {
            prior_cwnd: 10,
            delivered: 4,
            out: 4,
        };
        assert_eq!(prr.on_ack(7, 3, 1, 0, true), Some(5));
        // With a new loss on the same ACK, no +1: min(4, 1) = 1.
        let mut prr = Prr {
            prior_cwnd: 10,
            delivered: 4,
            out: 4,
        };
        assert_eq!(prr.on_ack(7, 3, 1, 1, true), Some(4));
    }

    #[test]
    fn an_ack_that_delivers_nothing_leaves_cwnd_alone() {
        let mut prr = Prr::start(20);
        assert_eq!(prr.on_ack(10, 18, 0, 0, false), None);
        assert!(prr.active());
        assert!(!Prr::default().active());
    }
}
