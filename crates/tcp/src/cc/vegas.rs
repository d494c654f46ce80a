//! TCP Vegas: delay-based congestion avoidance (Brakmo & Peterson, "TCP Vegas:
//! End to End Congestion Avoidance on a Global Internet", IEEE JSAC 13(8), 1995),
//! with the sampling machinery of Linux net/ipv4/tcp_vegas.c.
//!
//! Once per RTT (the first ACK beyond `beg_snd_nxt`, the `snd_nxt` recorded at
//! the start of the round, as Linux does) Vegas compares the expected and the
//! actual rate. With `baseRTT` the smallest RTT ever seen and `rtt` the smallest
//! RTT sample of the round that just ended (Linux's `minRTT`, which filters
//! delayed ACKs):
//!
//! ```text
//! diff = (Expected - Actual) * baseRTT = cwnd * (rtt - baseRTT) / rtt   [segments]
//! congestion avoidance:  diff < alpha -> cwnd += 1
//!                        diff > beta  -> cwnd -= 1
//!                        otherwise    -> cwnd unchanged
//! slow start:            diff > gamma -> cwnd = min(cwnd, cwnd * baseRTT / rtt + 1),
//!                                        ssthresh = min(ssthresh, cwnd)  (leave slow start)
//! ```
//! with alpha = 2, beta = 4, gamma = 1 segments (Linux's defaults). After each
//! decision cwnd is kept in [2, clamp] and ssthresh raised to 3/4 cwnd when below
//! (Linux `tcp_current_ssthresh`). With fewer than three RTT samples in the round
//! (most likely all from delayed ACKs) the ACK is handled by Reno instead, as in
//! Linux. Loss response is Reno's (ssthresh = max(FlightSize/2, 2)); Vegas stops
//! deciding outside the Open state and starts over, waiting a full round, when
//! the state returns to Open, at connection start and when sending after idle
//! (which, as in Linux, also forgets baseRTT).
//!
//! Deviations, each deliberate:
//! - `diff` divides by `rtt` (Brakmo's definition, and this project's brief);
//!   Linux today divides by `baseRTT` (`diff = cwnd * (rtt - baseRTT) / baseRTT`),
//!   which reads larger queues: at cwnd 21, baseRTT 100 ms, rtt 110 ms Brakmo's
//!   diff is 1.9 (grow), Linux's is 2 (hold). `diff` is real-valued here; Linux
//!   truncates it to an integer. The slow-start exit target `cwnd*baseRTT/rtt`
//!   is truncated as in Linux.
//! - Slow start grows only every other RTT, as Brakmo's Vegas does ("exponential
//!   growth only every other RTT; in between, the congestion window stays fixed
//!   so a valid comparison of the expected and actual rates can be made"), and
//!   the gamma test is made only at the end of a round in which the window was
//!   held. Linux, as its header says, grows every RTT "just like Reno" and tests
//!   gamma every RTT. The first round after a (re)start grows.
//! - RTT samples are in nanoseconds; a zero sample counts as 1 ns (Linux adds
//!   1 µs to every sample so that none is zero).
//! - Like Linux, the Vegas rules do not look at `is_cwnd_limited`; the Reno
//!   fallback does (Linux `tcp_reno_cong_avoid`).
//!
//! Parameters: `alpha`, `beta`, `gamma` in segments.

use super::{
    reno_cong_avoid, reno_ssthresh, slow_start, AckSample, CaState, CcInfo, CcParams, CcState,
    CongestionControl, CwndEvent,
};

/// "No sample yet" (Linux 0x7fffffff).
const NO_RTT: u64 = u64::MAX;

/// TCP Vegas.
pub struct Vegas {
    alpha: f64,
    beta: f64,
    gamma: f64,
    /// Smallest RTT ever seen, ns (Linux `baseRTT`).
    base_rtt: u64,
    /// Smallest RTT of the current round, ns (Linux `minRTT`).
    min_rtt: u64,
    /// RTT samples in the current round (Linux `cntRTT`).
    cnt_rtt: u32,
    /// Right edge of the current round (Linux `beg_snd_nxt`).
    beg_snd_nxt: u64,
    /// Whether Vegas decides (Linux `doing_vegas_now`); false outside Open.
    doing_vegas_now: bool,
    /// Brakmo's every-other-RTT slow start: whether this round may grow.
    ss_grow: bool,
}

impl Vegas {
    /// Vegas with thresholds `alpha`, `beta`, `gamma` (segments).
    pub fn new(alpha: f64, beta: f64, gamma: f64) -> Self {
        Vegas {
            alpha,
            beta,
            gamma,
            base_rtt: NO_RTT,
            min_rtt: NO_RTT,
            cnt_rtt: 0,
            beg_snd_nxt: 0,
            doing_vegas_now: false,
            ss_grow: true,
        }
    }

    /// Linux `vegas_enable`: start a fresh round at the current `snd_nxt`.
    fn enable(&mut self, tp: &CcState) {
        self.doing_vegas_now = true;
        self.beg_snd_nxt = tp.snd_nxt;
        self.cnt_rtt = 0;
        self.min_rtt = NO_RTT;
        self.ss_grow = true;
    }

    /// Linux `tcp_vegas_init`: also forget the base RTT.
    fn restart(&mut self, tp: &CcState) {
        self.base_rtt = NO_RTT;
        self.enable(tp);
    }

    /// The once-per-RTT decision, with at least three samples in the round.
    fn decide(&mut self, tp: &mut CcState, acked: u32) {
        let rtt = self.min_rtt;
        let base = self.base_rtt;
        let cwnd = tp.cwnd;
        // diff = cwnd * (rtt - baseRTT) / rtt  (Brakmo's Diff, in segments)
        let diff = cwnd as f64 * (rtt - base) as f64 / rtt as f64;
        if tp.in_slow_start() {
            // The round that ended held the window (Brakmo): a valid comparison.
            let held = !self.ss_grow;
            if held && diff > self.gamma {
                // Going too fast: cwnd = actual rate * baseRTT, + 1 for truncation.
                let target = (cwnd as u128 * base as u128 / rtt as u128) as u64;
                tp.cwnd = cwnd.min(target.saturating_add(1).min(u32::MAX as u64) as u32);
                tp.ssthresh = tp.ssthresh.min(tp.cwnd);
            } else {
                // Grow, hold, grow, ... one round each.
                self.ss_grow = !self.ss_grow;
                if self.ss_grow {
                    slow_start(tp, acked);
                }
            }
        } else if diff > self.beta {
            tp.cwnd -= 1;
            tp.ssthresh = tp.ssthresh.min(tp.cwnd);
        } else if diff < self.alpha {
            tp.cwnd += 1;
        }
        tp.cwnd = tp.cwnd.clamp(2, tp.cwnd_clamp.max(2));
        // Linux tcp_current_ssthresh: max(ssthresh, 3/4 cwnd) outside a cwnd
        // reduction (Recovery or CWR).
        if !matches!(tp.ca_state, CaState::Recovery | CaState::Cwr) {
            tp.ssthresh = tp.ssthresh.max((tp.cwnd >> 1) + (tp.cwnd >> 2));
        }
    }
}

impl CongestionControl for Vegas {
    fn name(&self) -> &'static str {
        "vegas"
    }

    fn init(&mut self, tp: &mut CcState) {
        self.restart(tp);
    }

    fn ssthresh(&mut self, tp: &CcState) -> u32 {
        reno_ssthresh(tp)
    }

    fn pkts_acked(&mut self, _tp: &mut CcState, s: &AckSample) {
        let Some(rtt) = s.rtt else { return };
        let vrtt = rtt.0.max(1);
        self.base_rtt = self.base_rtt.min(vrtt);
        self.min_rtt = self.min_rtt.min(vrtt);
        self.cnt_rtt += 1;
    }

    fn set_state(&mut self, tp: &mut CcState, new: CaState) {
        if new == CaState::Open {
            self.enable(tp);
        } else {
            self.doing_vegas_now = false;
        }
    }

    fn cwnd_event(&mut self, tp: &mut CcState, ev: CwndEvent) {
        if matches!(ev, CwndEvent::TxStart | CwndEvent::CwndRestart) {
            self.restart(tp);
        }
    }

    fn cong_avoid(&mut self, tp: &mut CcState, acked: u32) {
        if !self.doing_vegas_now {
            reno_cong_avoid(tp, acked);
            return;
        }
        if tp.snd_una > self.beg_snd_nxt {
            // Once per RTT: the ACK has passed the right edge of the round.
            self.beg_snd_nxt = tp.snd_nxt;
            if self.cnt_rtt <= 2 {
                // Too few samples: most likely delayed ACKs only. Behave like Reno.
                reno_cong_avoid(tp, acked);
            } else {
                self.decide(tp, acked);
            }
            self.cnt_rtt = 0;
            self.min_rtt = NO_RTT;
        } else if tp.in_slow_start() && self.ss_grow {
            slow_start(tp, acked);
        }
    }
}

fn make(p: &CcParams) -> Result<Box<dyn CongestionControl>, String> {
    let (mut alpha, mut beta, mut gamma) = (2.0, 4.0, 1.0);
    for (k, &v) in p {
        let slot = match k.as_str() {
            "alpha" => &mut alpha,
            "beta" => &mut beta,
            "gamma" => &mut gamma,
            _ => {
                return Err(format!(
                    "controller vegas has no parameter {k:?} (it takes alpha, beta, gamma)"
                ))
            }
        };
        if !v.is_finite() || v < 0.0 {
            return Err(format!(
                "vegas: {k} must be a non-negative number of segments, got {v}"
            ));
        }
        *slot = v;
    }
    if beta < alpha {
        return Err(format!(
            "vegas: beta ({beta}) must be at least alpha ({alpha})"
        ));
    }
    Ok(Box::new(Vegas::new(alpha, beta, gamma)))
}

/// Registry entry.
pub const INFO: CcInfo = CcInfo {
    name: "vegas",
    description: "Vegas: keeps alpha..beta segments queued, judged once per RTT from the RTT rise over baseRTT",
    source: "Brakmo & Peterson, IEEE JSAC 13(8) 1995; Linux net/ipv4/tcp_vegas.c (sampling, Reno fallback)",
    params: &[
        ("alpha", "2", "segments queued below which cwnd grows by one per RTT"),
        ("beta", "4", "segments queued above which cwnd shrinks by one per RTT"),
        ("gamma", "1", "segments queued above which slow start ends"),
    ],
    make,
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::harness::Harness;
    use tcplab_engine::SimTime;

    fn ms(v: u64) -> SimTime {
        SimTime::from_millis(v)
    }

    /// A Vegas sender with a full window of `cwnd` segments outstanding.
    fn vegas(cwnd: u32, ssthresh: u32) -> Harness {
        Harness::with(Box::new(Vegas::new(2.0, 4.0, 1.0)), cwnd, ssthresh)
    }

    // How the harness lines up with Vegas rounds: `round(rtt)` ACKs the window
    // that was outstanding one segment per ACK. The round's right edge is passed
    // by the FIRST ACK of the next `round` call, so the decision about round k is
    // taken on the first ACK of round k+1, with round k's samples plus that ACK's
    // own (Linux counts it in the ending round). RTTs below never decrease from
    // one round to the next, so that extra sample never lowers the round's min.

    #[test]
    fn congestion_avoidance_follows_brakmos_three_regions() {
        // Base RTT 100 ms, cwnd 20 in congestion avoidance (ssthresh 10).
        let mut h = vegas(20, 10);
        h.round(ms(100)); // round 1: learns baseRTT = 100 ms; no decision yet
        assert_eq!(h.tp.cwnd, 20);

        // Decision on round 1 (rtt 100): diff = 20 * 0/100 = 0 < alpha 2 -> 21.
        // ssthresh = max(10, 21/2 + 21/4 = 10 + 5) = 15.
        h.round(ms(110));
        assert_eq!((h.tp.cwnd, h.tp.ssthresh), (21, 15));

        // Round 2 (rtt 110): diff = 21 * 10/110 = 1.909 < 2 -> 22.
        // (Linux's diff = 21 * 10/100 = 2 would hold at 21.)
        // ssthresh = max(15, 11 + 5) = 16.
        h.round(ms(110));
        assert_eq!((h.tp.cwnd, h.tp.ssthresh), (22, 16));

        // Round 3 (rtt 110; the next round's first sample, 120, is not lower):
        // diff = 22 * 10/110 = 2.0 exactly: not below alpha, not above beta -> 22.
        h.round(ms(120));
        assert_eq!(h.tp.cwnd, 22);

        // Round 4 (rtt 120): diff = 22 * 20/120 = 3.67, between alpha and beta
        // -> hold at 22.
        h.round(ms(150));
        assert_eq!(h.tp.cwnd, 22);

        // Round 5 (rtt 150): diff = 22 * 50/150 = 7.33 > beta 4 -> 21;
        // ssthresh = min(16, 21) = 16, then max(16, 10 + 5) = 16.
        h.round(ms(150));
        assert_eq!((h.tp.cwnd, h.tp.ssthresh), (21, 16));

        // Round 6 (rtt 150): diff = 21 * 50/150 = 7 > 4 -> 20.
        h.round(ms(150));
        assert_eq!(h.tp.cwnd, 20);
    }

    #[test]
    fn window_is_held_between_decisions_in_congestion_avoidance() {
        // The decision is made once per RTT: the other ACKs of the round leave cwnd.
        let mut h = vegas(20, 10);
        h.round(ms(100));
        h.ack(1, ms(100)); // decision: diff 0 -> 21
        assert_eq!(h.tp.cwnd, 21);
        for _ in 0..19 {
            h.ack(1, ms(100));
            assert_eq!(h.tp.cwnd, 21);
        }
        h.ack(1, ms(100)); // first ACK past the round: 20 samples, diff 0 -> 22
        assert_eq!(h.tp.cwnd, 22);
    }

    #[test]
    fn slow_start_grows_every_other_rtt_and_ends_when_diff_exceeds_gamma() {
        let mut h = vegas(10, u32::MAX);
        // Round 1 (grow): each of the 10 ACKs adds one segment: 10 -> 20.
        h.round(ms(100));
        assert_eq!(h.tp.cwnd, 20);
        // Round 2: the first ACK ends the growth round (no gamma test after a
        // growth round) and starts a hold round: 20 ACKs, cwnd stays 20.
        // (Linux, growing every RTT, would reach 40 here.)
        h.round(ms(100));
        assert_eq!(h.tp.cwnd, 20);
        // Round 3: the first ACK ends the hold round: 20 samples of 100 ms, diff
        // = 20 * 0/100 = 0 <= gamma 1 -> grow again: that ACK and the 19 others
        // add one each: 20 -> 40.
        h.round(ms(100));
        assert_eq!(h.tp.cwnd, 40);
        // Round 4 (rtt 125, 40 ACKs): its first ACK ends a growth round -> hold.
        h.round(ms(125));
        assert_eq!((h.tp.cwnd, h.tp.ssthresh), (40, u32::MAX));
        // Round 5: the first ACK ends the hold round of 125 ms samples:
        // diff = 40 * 25/125 = 8 > gamma 1 -> leave slow start with
        // cwnd = min(40, 40*100/125 + 1 = 33) = 33 and ssthresh = min(inf, 33) = 33
        // (then max(33, 16 + 8 = 24) = 33). The rest of the round is congestion
        // avoidance: no change until the next decision.
        h.round(ms(125));
        assert_eq!((h.tp.cwnd, h.tp.ssthresh), (33, 33));
        // Next decision, round 5 (rtt 125): diff = 33 * 25/125 = 6.6 > beta 4
        // -> 32; ssthresh = min(33, 32) = 32 (then max(32, 16 + 8) = 32).
        h.round(ms(125));
        assert_eq!((h.tp.cwnd, h.tp.ssthresh), (32, 32));
    }

    #[test]
    fn fewer_than_three_samples_in_a_round_falls_back_to_reno() {
        let mut h = vegas(10, 5);
        h.round(ms(100)); // 10 samples at 100 ms
                          // Decision on round 1 with 11 samples: diff 0 -> 11. This stretch ACK of
                          // 10 segments carries one sample (300 ms) and starts a round of its own.
        h.ack(10, ms(300));
        assert_eq!(h.tp.cwnd, 11);
        // One stretch ACK for the whole round: the round holds a single sample,
        // this ACK's own (1 <= 2) -> Reno: cwnd_cnt += 11 >= cwnd 11 -> 12.
        // Vegas would have seen diff = 11 * 200/300 = 7.3 > 4 and shrunk to 10.
        h.ack(11, ms(300));
        assert_eq!(h.tp.cwnd, 12);
    }

    #[test]
    fn loss_halves_like_reno_and_the_next_round_is_waited_for() {
        let mut h = vegas(20, 10);
        h.round(ms(100));
        h.round(ms(100)); // decision: 21
        h.loss(); // ssthresh = max(21/2, 2) = 10, cwnd = 10
        assert_eq!((h.tp.cwnd, h.tp.ssthresh), (10, 10));
        // Back in Open, Vegas restarted its round at snd_nxt: the window that was
        // outstanding (all of it sent before the loss) is ACKed without a decision.
        let before = h.tp.snd_nxt;
        while h.tp.snd_una < before {
            h.ack(1, ms(100));
            assert_eq!(h.tp.cwnd, 10);
        }
        // The first ACK past it decides (diff 0 -> 11).
        h.ack(1, ms(100));
        assert_eq!(h.tp.cwnd, 11);
    }

    #[test]
    fn sending_after_idle_forgets_the_base_rtt() {
        // Linux's tcp_vegas_cwnd_event re-runs tcp_vegas_init on TX_START, which
        // resets baseRTT: after the restart, 150 ms is the new base, so a path
        // whose delay rose from 100 to 150 ms reads as an empty queue.
        let mut h = vegas(20, 10);
        h.round(ms(100));
        h.cc.cwnd_event(&mut h.tp, CwndEvent::TxStart);
        h.round(ms(150)); // a fresh round (its right edge was set at the restart)
                          // Decision on it: 21 samples of 150 ms, base 150: diff 0 < 2 -> 21.
        h.round(ms(150));
        assert_eq!(h.tp.cwnd, 21);
    }

    #[test]
    fn parameters_are_parsed_and_checked() {
        let p = |v: &[(&str, f64)]| -> CcParams {
            v.iter().map(|(k, x)| (k.to_string(), *x)).collect()
        };
        assert!(make(&p(&[("alpha", 1.0), ("beta", 3.0), ("gamma", 2.0)])).is_ok());
        let e = |v: &[(&str, f64)]| make(&p(v)).err().unwrap();
        assert!(e(&[("delta", 1.0)]).contains("no parameter \"delta\""));
        assert!(e(&[("alpha", 5.0)]).contains("beta (4) must be at least alpha (5)"));
        assert!(e(&[("gamma", -1.0)]).contains("non-negative"));
        assert!(e(&[("beta", f64::NAN)]).contains("non-negative"));
    }
}
