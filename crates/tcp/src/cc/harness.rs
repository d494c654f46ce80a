//! A test harness for controllers (quiche style): drive one controller through
//! ACKs, losses, timeouts and the passage of time exactly as the sender calls
//! its hooks, without a network. Tests compute the expected windows by hand.
//!
//! What the sender does, and so what the harness does:
//! - ACK of new data outside recovery: `pkts_acked` (with the RTT sample), then
//!   `cong_control` for rate-based controllers, else `cong_avoid`;
//! - fast retransmit: `prior_cwnd = cwnd`, `ssthresh = ssthresh()`, state
//!   Recovery with `cwnd = ssthresh` (RFC 6675), and on the full ACK state Open,
//!   `cwnd = ssthresh`, event `CompleteCwr` (the window is left alone for
//!   rate-based controllers, as the sender does);
//! - timeout: `ssthresh = ssthresh()`, `cwnd = 1`, event `Loss`, state Loss.

use super::{
    make, AckSample, CaState, CcParams, CcState, CongestionControl, CwndEvent, RateSample,
};
use tcplab_engine::SimTime;

/// A controller and its socket state.
pub struct Harness {
    /// The socket state.
    pub tp: CcState,
    /// The controller.
    pub cc: Box<dyn CongestionControl>,
    /// Segment size used to move the sequence pointers.
    pub mss: u64,
}

impl Harness {
    /// A controller by name with `params`, at `cwnd` and `ssthresh`, time zero.
    pub fn new(name: &str, params: &[(&str, f64)], cwnd: u32, ssthresh: u32) -> Self {
        let p: CcParams = params.iter().map(|(k, v)| (k.to_string(), *v)).collect();
        Self::with(
            make(name, &p).unwrap_or_else(|e| panic!("{e}")),
            cwnd,
            ssthresh,
        )
    }
    /// A given controller instance at `cwnd` and `ssthresh`, time zero, the window
    /// full (`cwnd` segments of 1448 bytes in flight), `init` called.
    pub fn with(cc: Box<dyn CongestionControl>, cwnd: u32, ssthresh: u32) -> Self {
        let mut tp = CcState::new(cwnd, 1448);
        tp.ssthresh = ssthresh;
        tp.snd_una = 1;
        tp.snd_nxt = 1 + cwnd as u64 * 1448;
        tp.in_flight = cwnd;
        let mut h = Harness { tp, cc, mss: 1448 };
        h.cc.init(&mut h.tp);
        h
    }
    /// Move time forward.
    pub fn advance(&mut self, dt: SimTime) {
        self.tp.now += dt;
    }
    /// One ACK of `n` new segments with an RTT sample `rtt` (the window stays full:
    /// as many new segments are sent as cwnd allows).
    pub fn ack(&mut self, n: u32, rtt: SimTime) {
        let prior = self.tp.in_flight;
        self.tp.snd_una += n as u64 * self.mss;
        self.tp.delivered += n as u64;
        if self.tp.min_rtt == SimTime::ZERO || rtt < self.tp.min_rtt {
            self.tp.min_rtt = rtt;
        }
        self.tp.srtt = if self.tp.srtt == SimTime::ZERO {
            rtt
        } else {
            SimTime((7 * self.tp.srtt.0 + rtt.0) / 8)
        };
        let s = AckSample {
            pkts_acked: n,
            rtt: Some(rtt),
            in_flight: prior,
            ..Default::default()
        };
        self.cc.pkts_acked(&mut self.tp, &s);
        if self.cc.has_cong_control() {
            let rs = RateSample {
                delivered: Some(n as u64),
                interval: Some(rtt),
                acked_sacked: n,
                rtt: Some(rtt),
                prior_in_flight: prior,
                ..Default::default()
            };
            self.cc.cong_control(&mut self.tp, &rs);
        } else if self.tp.ca_state != CaState::Recovery {
            self.cc.cong_avoid(&mut self.tp, n);
        }
        self.refill();
    }
    /// Keep the window full: in flight = cwnd, snd_nxt ahead of snd_una by it.
    pub fn refill(&mut self) {
        self.tp.in_flight = self.tp.cwnd;
        self.tp.snd_nxt = self
            .tp
            .snd_nxt
            .max(self.tp.snd_una + self.tp.cwnd as u64 * self.mss);
    }
    /// A whole window acknowledged one segment per ACK over one RTT of `rtt`.
    pub fn round(&mut self, rtt: SimTime) {
        let w = self.tp.cwnd.max(1);
        let step = SimTime(rtt.0 / w as u64);
        for _ in 0..w {
            self.advance(step);
            self.ack(1, rtt);
        }
    }
    /// Fast retransmit and an immediately successful recovery.
    pub fn loss(&mut self) {
        self.tp.in_flight = self.tp.cwnd;
        self.tp.prior_cwnd = self.tp.cwnd;
        self.tp.ssthresh = self.cc.ssthresh(&self.tp).max(2);
        let rate_based = self.cc.has_cong_control();
        self.cc.set_state(&mut self.tp, CaState::Recovery);
        self.tp.ca_state = CaState::Recovery;
        if !rate_based {
            self.tp.cwnd = self.tp.ssthresh;
        }
        self.tp.lost += 1;
        self.cc.set_state(&mut self.tp, CaState::Open);
        self.tp.ca_state = CaState::Open;
        if !rate_based {
            // The sender leaves the window to rate-based controllers.
            self.tp.cwnd = self.tp.ssthresh.max(1);
            self.tp.cwnd_cnt = 0;
        }
        self.cc.cwnd_event(&mut self.tp, CwndEvent::CompleteCwr);
        self.refill();
    }
    /// A retransmission timeout.
    pub fn timeout(&mut self) {
        self.tp.in_flight = self.tp.cwnd;
        self.tp.prior_cwnd = self.tp.cwnd;
        self.tp.ssthresh = self.cc.ssthresh(&self.tp).max(2);
        self.tp.cwnd = 1;
        self.tp.cwnd_cnt = 0;
        self.cc.cwnd_event(&mut self.tp, CwndEvent::Loss);
        self.cc.set_state(&mut self.tp, CaState::Loss);
        self.tp.ca_state = CaState::Loss;
        self.tp.lost += self.tp.in_flight as u64;
        self.cc.set_state(&mut self.tp, CaState::Open);
        self.tp.ca_state = CaState::Open;
        self.refill();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::registry;
    use proptest::prelude::*;

    #[derive(Clone, Debug)]
    enum Op {
        Ack(u32, u64),
        Loss,
        Timeout,
        Advance(u64),
        Idle,
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            6 => (1u32..64, 1u64..2_000).prop_map(|(n, ms)| Op::Ack(n, ms)),
            1 => Just(Op::Loss),
            1 => Just(Op::Timeout),
            2 => (0u64..5_000).prop_map(Op::Advance),
            1 => Just(Op::Idle),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// Operation fuzzing over every registered controller: random sequences of
        /// ACKs (with RTT samples), losses, timeouts and time never produce a zero
        /// window, a window beyond the clamp, a zero ssthresh, or a panic.
        #[test]
        fn no_controller_breaks_under_random_operations(ops in prop::collection::vec(op(), 1..300)) {
            for info in registry() {
                let mut h = Harness::new(info.name, &[], 10, u32::MAX);
                for o in &ops {
                    match *o {
                        Op::Ack(n, ms) => { h.advance(SimTime::from_millis(1)); h.ack(n.min(h.tp.cwnd.max(1)), SimTime::from_millis(ms)) }
                        Op::Loss => h.loss(),
                        Op::Timeout => h.timeout(),
                        Op::Advance(ms) => h.advance(SimTime::from_millis(ms)),
                        Op::Idle => { h.advance(SimTime::from_secs(2)); h.cc.cwnd_event(&mut h.tp, CwndEvent::TxStart) }
                    }
                    prop_assert!(h.tp.cwnd >= 1, "{}: cwnd {} after {:?}", info.name, h.tp.cwnd, o);
                    prop_assert!(h.tp.cwnd <= h.tp.cwnd_clamp, "{}: cwnd {} beyond clamp", info.name, h.tp.cwnd);
                    prop_assert!(h.tp.ssthresh >= 2, "{}: ssthresh {} after {:?}", info.name, h.tp.ssthresh, o);
                }
            }
        }
    }

    #[test]
    fn newreno_through_the_harness_halves_and_grows_one_per_round() {
        let mut h = Harness::new("newreno", &[], 20, 20);
        h.round(SimTime::from_millis(100));
        assert_eq!(h.tp.cwnd, 21);
        h.loss();
        assert_eq!((h.tp.cwnd, h.tp.ssthresh), (10, 10));
        h.round(SimTime::from_millis(100));
        assert_eq!(h.tp.cwnd, 11);
        h.timeout();
        assert_eq!((h.tp.cwnd, h.tp.ssthresh), (1, 5));
    }
}
