//! FAST TCP (Jin, Wei & Low, "FAST TCP: Motivation, Architecture, Algorithms,
//! Performance", IEEE INFOCOM 2004), with the details of the ns-2 FAST module
//! (Cui & Andrew, University of Melbourne, version 1.1.3, tcp/tcp-fast.cc).
//!
//! Once per update period FAST moves the window toward the point where alpha of
//! its packets sit in queues:
//!
//! ```text
//! w <- min( 2w, (1 - gamma) w + gamma (baseRTT / avgRTT * w_meas + alpha) )
//! ```
//! baseRTT is the smallest RTT seen; avgRTT is the arithmetic mean of the RTT
//! samples of the last round (ACKs between two passes of `snd_una` over the
//! `snd_nxt` recorded at the start of the round, as Linux Vegas delimits rounds);
//! `w_meas` is the window those samples measured: the segments sent in that
//! round (ns-2's `old_cwnd`, the window when the acknowledged packet was sent).
//! The equilibrium is `w = alpha / (1 - baseRTT/RTT)`: alpha packets queued.
//!
//! As in the paper ("congestion window changes over two RTTs: it is updated in
//! one RTT and frozen in the next; the update is spread out over the first RTT
//! in a way such that the congestion window is no more than doubled") and in
//! ns-2 1.1.3 ("make updating every other RTT the default, as in Linux"), the
//! window is updated after one round and frozen during the next, so that every
//! update reads a round sent at a constant window; `every_other = 0` updates
//! after every round. An increase is spread over the ACKs of the following round
//! (one segment per `w_old / increase` segments ACKed, never more than one
//! segment per segment ACKed, as ns-2's `fast_pace`); a decrease is immediate.
//! The window is kept as a real number; cwnd is it rounded to the nearest
//! segment, at least 2 (ns-2's floor).
//!
//! On loss FAST halves like Reno (ns-2: `slowdown(CLOSE_SSTHRESH_HALF |
//! CLOSE_CWND_HALF)`; here ssthresh = max(FlightSize/2, 2) and the sender's
//! recovery sets cwnd from it), then carries on from the window it is given.
//! Updates stop outside the Open state and start over, waiting a full round,
//! when the state returns to Open and when sending after idle.
//!
//! Parameters: `alpha` (packets queued at equilibrium, default 200), `gamma`
//! (default 0.5, as ns-2's `gamma_`), `every_other` (default 1).
//!
//! No source consulted gives alpha a default, so 200 is a convention, not a
//! sourced value: set alpha per path (each flow keeps alpha packets queued, so
//! the bottleneck buffer must hold the sum).
//! - ns-2 module 1.1.3 (hbatmit/ns2.35, tcp/tcp-fast.cc): the constructor sets
//!   `alpha_(0)`, `beta_(0)`, `gamma_(0.5)`, but the defaults the module's
//!   installation adds to tcl/lib/ns-default.tcl (hbatmit/ns2.35 commit f4d41e2,
//!   "installed from cubinlab.ee.unimelb.edu.au/ns2fasttcp") override them:
//!   `alpha_ 100`, `beta_ 100`, `gamma_ 0.5`, `cwnd_update_period_ 0.01`,
//!   `mi_threshold_ 0.00075`. Its test scripts (tcl/test/fast-test*.tcl) set
//!   `alpha_` 10, 100, 200, 800, 1000 or 10000; Caltech's example scripts
//!   (Choe & Wydrowski, 2003-04) 800, 1000 or 10000 with `window_` 1e5 to 1e6.
//!   tcplab's default (200) predates this reading; mascolo2006 sets 100.
//! - UDT's FAST example (notpeter/udt, app/cc.h, class CFAST, citing the
//!   INFOCOM paper and draft-jwl-tcp-fast-01) hard-codes alpha = 200, with
//!   gamma 1/2, an update every 2 RTTs and the 2w bound.
//! - The papers themselves (INFOCOM 2004; Wei, Jin, Low & Hegde, IEEE/ACM ToN
//!   2006) could not be read offline: the quotation above and the estimator
//!   weight below are as first recorded here, not rechecked, and whether their
//!   experiments used alpha = 200 is unverified. The reference study
//!   (mascolo2006) states the update rule but no alpha.
//!
//! Deviations:
//! - avgRTT is the plain mean of the last round's samples; the paper's
//!   estimator is an exponential moving average updated on every ACK with weight
//!   min(3/w, 1/4) (unchecked, see above; ns-2's `fast_est_update_avgrtt`:
//!   min(3/w, 1/256)), which forgets all but about e^-3 = 5% of what came
//!   before the last round.
//! - ns-2's multiplicative-increase start (cwnd += 1 per ACK while the queueing
//!   delay is below `mi_threshold_`, which has no default; the example scripts
//!   set 1.5 ms) and its `beta_` dead band (no update while the queue estimate
//!   is in [alpha, beta); beta_ defaults to 0) are left out: the window follows
//!   the equation from the first round, and its 2w bound is the paper's slow
//!   start (ns-2's `fast_calc_cwnd` has no 2w bound; its `fast_pace` adds at
//!   most one segment per ACK above 4 segments).
//! - The sample of the ACK that passes the round's edge belongs to the new round.
//! - Like ns-2 and Linux Vegas, the window grows whether or not the sender is
//!   cwnd-limited.

use super::{
    reno_ssthresh, AckSample, CaState, CcInfo, CcParams, CcState, CongestionControl, CwndEvent,
};

/// FAST TCP.
pub struct Fast {
    alpha: f64,
    gamma: f64,
    every_other: bool,
    /// FAST's window (segments, real).
    w: f64,
    /// Smallest RTT ever seen, ns.
    base_rtt: u64,
    /// Samples of the current round: sum (ns) and count.
    sum_rtt: u128,
    cnt_rtt: u64,
    /// Left and right edges of the current round (bytes).
    beg_snd_una: u64,
    beg_snd_nxt: u64,
    /// Mean RTT (ns) and window (segments) of the round just ended, to act on.
    pending: Option<(f64, f64)>,
    /// Whether FAST updates (Open state).
    active: bool,
    /// Freeze at the next round end (every-other-RTT updates).
    skip_next: bool,
    /// Increase still to spread: target window and credit (in units of 1/`step_den`).
    target: u32,
    credit: u64,
    step_num: u64,
    step_den: u64,
    /// cwnd as FAST last set it: anything else was set by loss recovery or undo.
    set_cwnd: u32,
}

impl Fast {
    /// FAST with `alpha` packets queued at equilibrium, gain `gamma`, and updates
    /// every other round when `every_other`.
    pub fn new(alpha: f64, gamma: f64, every_other: bool) -> Self {
        Fast {
            alpha,
            gamma,
            every_other,
            w: 0.0,
            base_rtt: u64::MAX,
            sum_rtt: 0,
            cnt_rtt: 0,
            beg_snd_una: 0,
            beg_snd_nxt: 0,
            pending: None,
            active: false,
            skip_next: false,
            target: 0,
            credit: 0,
            step_num: 0,
            step_den: 1,
            set_cwnd: 0,
        }
    }

    /// Start a fresh round at the current `snd_nxt` and forget what was pending.
    fn enable(&mut self, tp: &CcState) {
        self.active = true;
        self.beg_snd_una = tp.snd_una;
        self.beg_snd_nxt = tp.snd_nxt;
        self.sum_rtt = 0;
        self.cnt_rtt = 0;
        self.pending = None;
        self.skip_next = false;
    }

    /// Take the window the sender set (loss recovery, timeout, undo) as FAST's own.
    fn resync(&mut self, tp: &CcState) {
        if tp.cwnd != self.set_cwnd {
            self.w = tp.cwnd as f64;
            self.target = tp.cwnd;
            self.step_num = 0;
            self.credit = 0;
            self.set_cwnd = tp.cwnd;
        }
    }

    /// The once-per-period window update from the last round's mean RTT.
    fn update(&mut self, tp: &mut CcState, avg_rtt: f64, w_meas: f64) {
        // Finish the previous increase if its round ended early.
        if tp.cwnd < self.target {
            tp.cwnd = self.target;
        }
        let w = self.w;
        // baseRTT/avgRTT * w_meas: the window the path carries without queueing.
        let unqueued = self.base_rtt as f64 * w_meas / avg_rtt;
        // w <- min(2w, (1 - gamma) w + gamma (baseRTT/avgRTT * w_meas + alpha))
        let next = (2.0 * w).min((1.0 - self.gamma) * w + self.gamma * (unqueued + self.alpha));
        let clamp = tp.cwnd_clamp.max(2);
        self.w = next.max(2.0).min(clamp as f64);
        let target = ((self.w + 0.5).floor() as u32).clamp(2, clamp);
        self.target = target;
        self.credit = 0;
        if target <= tp.cwnd {
            tp.cwnd = target;
            self.step_num = 0;
        } else {
            // Spread the increase over the coming round's ACKs (about cwnd of them).
            self.step_num = (target - tp.cwnd) as u64;
            self.step_den = tp.cwnd.max(1) as u64;
        }
    }
}

impl CongestionControl for Fast {
    fn name(&self) -> &'static str {
        "fast"
    }

    fn init(&mut self, tp: &mut CcState) {
        self.w = tp.cwnd as f64;
        self.target = tp.cwnd;
        self.set_cwnd = tp.cwnd;
        self.enable(tp);
    }

    fn ssthresh(&mut self, tp: &CcState) -> u32 {
        reno_ssthresh(tp)
    }

    fn pkts_acked(&mut self, tp: &mut CcState, s: &AckSample) {
        if self.active && tp.snd_una > self.beg_snd_nxt {
            // The round is over: its mean RTT and the window it carried.
            if self.cnt_rtt > 0 {
                let avg = self.sum_rtt as f64 / self.cnt_rtt as f64;
                let segs = (self.beg_snd_nxt - self.beg_snd_una) as f64 / tp.mss.max(1) as f64;
                self.pending = Some((avg, segs));
            }
            self.beg_snd_una = self.beg_snd_nxt;
            self.beg_snd_nxt = tp.snd_nxt;
            self.sum_rtt = 0;
            self.cnt_rtt = 0;
        }
        if let Some(rtt) = s.rtt {
            let r = rtt.0.max(1);
            self.base_rtt = self.base_rtt.min(r);
            self.sum_rtt += r as u128;
            self.cnt_rtt += 1;
        }
    }

    fn set_state(&mut self, tp: &mut CcState, new: CaState) {
        if new == CaState::Open {
            self.enable(tp);
        } else {
            self.active = false;
            self.pending = None;
        }
    }

    fn cwnd_event(&mut self, tp: &mut CcState, ev: CwndEvent) {
        if matches!(ev, CwndEvent::TxStart | CwndEvent::CwndRestart) {
            self.enable(tp);
        }
    }

    fn cong_avoid(&mut self, tp: &mut CcState, acked: u32) {
        self.resync(tp);
        if let Some((avg, w_meas)) = self.pending.take() {
            if self.skip_next {
                self.skip_next = false; // the frozen round
            } else {
                self.update(tp, avg, w_meas);
                self.skip_next = self.every_other;
            }
        }
        if self.step_num > 0 && tp.cwnd < self.target {
            // One segment per step_den / step_num segments ACKed (<= 1 per segment).
            self.credit += self.step_num * acked as u64;
            let inc = (self.credit / self.step_den).min((self.target - tp.cwnd) as u64);
            self.credit -= inc * self.step_den;
            tp.cwnd += inc as u32;
        }
        self.set_cwnd = tp.cwnd;
    }
}

fn make(p: &CcParams) -> Result<Box<dyn CongestionControl>, String> {
    let (mut alpha, mut gamma, mut every_other) = (200.0, 0.5, 1.0);
    for (k, &v) in p {
        match k.as_str() {
            "alpha" if v.is_finite() && v > 0.0 => alpha = v,
            "alpha" => {
                return Err(format!(
                    "fast: alpha must be a positive number of packets, got {v}"
                ))
            }
            "gamma" if v > 0.0 && v <= 1.0 => gamma = v,
            "gamma" => return Err(format!("fast: gamma must be in (0, 1], got {v}")),
            "every_other" if v == 0.0 || v == 1.0 => every_other = v,
            "every_other" => return Err(format!("fast: every_other must be 0 or 1, got {v}")),
            _ => {
                return Err(format!(
                    "controller fast has no parameter {k:?} (it takes alpha, gamma, every_other)"
                ))
            }
        }
    }
    Ok(Box::new(Fast::new(alpha, gamma, every_other == 1.0)))
}

/// Registry entry.
pub const INFO: CcInfo = CcInfo {
    name: "fast",
    description: "FAST TCP: w <- min(2w, (1-gamma) w + gamma (baseRTT/avgRTT w + alpha)), alpha packets queued at equilibrium",
    source: "Jin, Wei & Low, IEEE INFOCOM 2004; ns-2 FAST module 1.1.3 (Cui & Andrew, tcp-fast.cc)",
    params: &[
        ("alpha", "200", "packets the flow keeps queued at equilibrium (a convention, no source default: set it per path)"),
        ("gamma", "0.5", "gain of each update, in (0, 1]"),
        ("every_other", "1", "1: update after one round, freeze during the next (paper, ns-2, Linux); 0: every round"),
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

    /// A FAST sender with a full window of `cwnd` segments outstanding.
    fn fast(cwnd: u32, alpha: f64, every_other: bool) -> Harness {
        Harness::with(Box::new(Fast::new(alpha, 0.5, every_other)), cwnd, u32::MAX)
    }

    // How the harness lines up with FAST rounds: `round(rtt)` ACKs the window
    // outstanding at its start, one segment per ACK. The first ACK of round k+1
    // passes the edge of round k: the update from round k's samples (mean RTT,
    // and the cwnd that round carried) is taken on it, and an increase is spread
    // over round k+1, whose end finds cwnd at the new value. So `cwnd` after
    // `round(k)` returns is the window decided after round k-1.

    #[test]
    fn empty_path_grows_by_gamma_alpha_per_update_within_doubling() {
        // baseRTT = RTT = 100 ms throughout, alpha 40, gamma 0.5, every other round.
        // With no queue the update is w <- min(2w, w/2 + (w + 40)/2) = min(2w, w + 20).
        let mut h = fast(10, 40.0, true);
        let mut seen = vec![];
        for _ in 0..9 {
            h.round(ms(100));
            seen.push(h.tp.cwnd);
        }
        // after round 1: no update yet (10)
        // after round 2: update on round 1: min(20, 10 + 20) = 20 (the 2w bound)
        // after round 3: round 2 frozen (20)
        // after round 4: update on round 3: min(40, 20 + 20) = 40
        // after round 5: frozen; round 6: min(80, 40 + 20) = 60; 7 frozen;
        // round 8: min(120, 60 + 20) = 80; 9 frozen.
        assert_eq!(seen, [10, 20, 20, 40, 40, 60, 60, 80, 80]);
    }

    #[test]
    fn every_round_updates_when_every_other_is_off() {
        // Same path, every_other = 0. The update after round k reads round k,
        // which carried the window decided one round earlier (w_meas lags w):
        // after round 2: update on round 1 (w 10, w_meas 10): min(20, 5 + 25) = 20
        // after round 3: on round 2 (w 20, w_meas 10): min(40, 10 + (10 + 40)/2) = 35
        // after round 4: on round 3 (w 35, w_meas 20): 17.5 + 30 = 47.5 -> 48
        // after round 5: on round 4 (w 47.5, w_meas 35): 23.75 + 37.5 = 61.25 -> 61
        // after round 6: on round 5 (w 61.25, w_meas 48): 30.625 + 44 = 74.625 -> 75
        let mut h = fast(10, 40.0, false);
        let mut seen = vec![];
        for _ in 0..6 {
            h.round(ms(100));
            seen.push(h.tp.cwnd);
        }
        assert_eq!(seen, [10, 20, 35, 48, 61, 75]);
    }

    #[test]
    fn an_increase_is_spread_over_the_next_round() {
        // The update from 20 to 40 (after round 3 above) is paced over round 4's
        // 20 ACKs: one segment per ACK, never a burst.
        let mut h = fast(10, 40.0, true);
        for _ in 0..3 {
            h.round(ms(100));
        }
        assert_eq!(h.tp.cwnd, 20);
        let mut last = h.tp.cwnd;
        for _ in 0..20 {
            h.advance(ms(5));
            h.ack(1, ms(100));
            assert_eq!(h.tp.cwnd, last + 1);
            last = h.tp.cwnd;
        }
        assert_eq!(h.tp.cwnd, 40);
    }

    #[test]
    fn equilibrium_is_reached_from_below_with_alpha_packets_queued() {
        // A bottleneck of 1 packet/ms behind 100 ms of propagation delay: a round
        // that carries W packets sees RTT = max(100, W) ms (W - 100 queued).
        // alpha 20, gamma 0.5, every other round. Below the BDP the path is
        // empty and each update adds gamma*alpha = 10; above it
        // baseRTT/RTT * W = 100 * W / W = 100, so w <- w/2 + (100 + 20)/2
        // = w/2 + 60, which halves the distance to 120 each time and never
        // passes it. Equilibrium: w = alpha / (1 - baseRTT/RTT) = 20 / (1 - 100/120)
        // = 120, 20 packets queued.
        //   updates: 10 -> 20 -> 30 -> ... -> 100 -> 110 (RTT 100, still empty)
        //            -> 115 (RTT 110) -> 117.5 (118) -> 118.75 (119) -> 119.375 (119)
        //            -> 119.6875 (120) -> 119.84 (120) -> ...
        // cwnd after each round (each update shows two rounds after the one it
        // reads, then holds for the frozen round):
        let mut expect = vec![10];
        for w in [
            20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 115, 118, 119, 119, 120,
        ] {
            expect.extend([w, w]);
        }
        let mut h = fast(10, 20.0, true);
        let mut seen = vec![];
        for _ in 0..expect.len() + 10 {
            let rtt = ms(100.max(h.tp.cwnd as u64));
            h.round(rtt);
            seen.push(h.tp.cwnd);
            assert!(h.tp.cwnd <= 120, "overshoot: {seen:?}");
        }
        assert_eq!(seen[..expect.len()], expect[..]);
        assert!(seen[expect.len()..].iter().all(|&w| w == 120));
    }

    #[test]
    fn loss_halves_and_updates_resume_from_the_halved_window() {
        let mut h = fast(40, 20.0, true);
        h.round(ms(100)); // no update yet
        h.loss(); // ssthresh = max(40/2, 2) = 20, cwnd = 20
        assert_eq!((h.tp.cwnd, h.tp.ssthresh), (20, 20));
        // Back in Open, FAST waits for a full round: the 40 segments outstanding at
        // the loss (the harness's recovery is instantaneous) are ACKed over two
        // `round` calls of 20 ACKs at 200 ms without an update.
        h.round(ms(200));
        h.round(ms(200));
        assert_eq!(h.tp.cwnd, 20);
        // The first ACK past them updates from w = 20 (not the 40 before the loss):
        // w_meas = 40, avgRTT 200: min(40, 10 + (100/200 * 40 + 20)/2) = 30,
        // spread over this round of 20 ACKs.
        h.round(ms(200));
        assert_eq!(h.tp.cwnd, 30);
    }

    #[test]
    fn defaults_are_alpha_200_gamma_half_every_other_round() {
        // make() with no parameters: alpha 200, gamma 0.5, every other round.
        // Empty path (baseRTT = RTT = 100 ms), 400 segments: the round read by
        // each update carried w, so baseRTT/RTT * w_meas = w and the update is
        // w <- min(2w, (1 - 0.5) w + 0.5 (w + 200)) = min(2w, w + 100).
        //   after round 1: no update (400)
        //   after round 2: on round 1: min(800, 200 + 300) = 500
        //   after round 3: frozen (500)
        //   after round 4: on round 3: min(1000, 250 + 350) = 600
        // (gamma 1 would give w + 200, alpha 100 would give w + 50.)
        let cc = make(&CcParams::new()).unwrap();
        let mut h = Harness::with(cc, 400, u32::MAX);
        let mut seen = vec![];
        for _ in 0..4 {
            h.round(ms(100));
            seen.push(h.tp.cwnd);
        }
        assert_eq!(seen, [400, 500, 500, 600]);
    }

    #[test]
    fn parameters_are_parsed_and_checked() {
        let p = |v: &[(&str, f64)]| -> CcParams {
            v.iter().map(|(k, x)| (k.to_string(), *x)).collect()
        };
        assert!(make(&p(&[("alpha", 50.0), ("gamma", 1.0), ("every_other", 0.0)])).is_ok());
        let e = |v: &[(&str, f64)]| make(&p(v)).err().unwrap();
        assert!(e(&[("beta", 1.0)]).contains("no parameter \"beta\""));
        assert!(e(&[("alpha", 0.0)]).contains("positive"));
        assert!(e(&[("gamma", 1.5)]).contains("(0, 1]"));
        assert!(e(&[("gamma", f64::NAN)]).contains("(0, 1]"));
        assert!(e(&[("every_other", 2.0)]).contains("0 or 1"));
    }
}
