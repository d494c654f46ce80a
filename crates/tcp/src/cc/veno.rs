//! TCP Veno (Fu & Liew, "TCP Veno: TCP enhancement for transmission over
//! wireless access networks", IEEE JSAC 21(2), 2003) as Linux
//! net/ipv4/tcp_veno.c does it: Vegas's estimate of the packets a flow keeps
//! queued tells a congestion loss from a random (wireless) one.
//!
//! ```text
//! N = cwnd - cwnd * baseRTT / RTT             (in halves: diff = 2 cwnd - 2 cwnd baseRTT / RTT)
//! N < beta (3):  non-congestive: Reno's +1 per RTT;  a loss cuts cwnd to 4/5
//! N >= beta:     congestive:     +1 every other RTT; a loss halves cwnd
//! ```
//!
//! baseRTT is the smallest RTT sample ever (µs, plus 1: never zero), RTT the
//! smallest since the previous ACK's window update: Linux clears it after
//! every `cong_avoid`, so an ACK without a sample of its own compares with
//! 0x7fffffff µs and counts as congestive. The estimate is used once the
//! connection has more than two RTT samples (Reno's growth before); the
//! count is never cleared (Linux comments its reset out), not even by the
//! restart after idle, which does reset baseRTT. The loss response reads the
//! N of the last window update (0, so 4/5, before any). Outside the Open
//! state growth is Reno's, and the window stays within [2, clamp] once Veno
//! computes it.
//!
//! Followed: Linux tcp_veno.c as of 6.x (`V_PARAM_SHIFT` 1, beta 3 << 1,
//! RTT samples in whole microseconds as `ack_sample.rtt_us`). No deviations.

use super::{
    cong_avoid_ai, no_params, reno_cong_avoid, slow_start, AckSample, CaState, CcInfo, CcParams,
    CcState, CongestionControl, CwndEvent,
};

/// Linux `V_PARAM_SHIFT`: N is kept in halves of a segment.
const SHIFT: u32 = 1;
/// Linux `beta`: 3 segments, in halves.
pub const BETA: u32 = 3 << SHIFT;
/// Linux's "no sample" RTT, µs.
const NONE_US: u32 = 0x7fff_ffff;

/// TCP Veno.
pub struct Veno {
    doing_veno_now: bool,
    /// RTT samples since the connection started (`cntrtt`, a u16 in Linux).
    cnt_rtt: u16,
    /// Smallest RTT since the last window update, µs + 1.
    min_rtt: u32,
    /// Smallest RTT ever, µs + 1.
    base_rtt: u32,
    /// In the congestive state: whether the next window's worth of ACKs adds a segment.
    inc: bool,
    /// N in halves of a segment, as of the last window update.
    diff: u32,
}

impl Veno {
    /// A fresh Veno.
    pub fn new() -> Self {
        Veno {
            doing_veno_now: true,
            cnt_rtt: 0,
            min_rtt: NONE_US,
            base_rtt: NONE_US,
            inc: true,
            diff: 0,
        }
    }
    /// `veno_enable`.
    fn enable(&mut self) {
        self.doing_veno_now = true;
        self.min_rtt = NONE_US;
    }
    /// `tcp_veno_init` (the connection starts, or restarts after idle).
    fn restart(&mut self) {
        self.base_rtt = NONE_US;
        self.inc = true;
        self.enable();
    }
}

impl Default for Veno {
    fn default() -> Self {
        Self::new()
    }
}

impl CongestionControl for Veno {
    fn name(&self) -> &'static str {
        "veno"
    }

    fn init(&mut self, _tp: &mut CcState) {
        self.restart();
    }

    fn pkts_acked(&mut self, _tp: &mut CcState, s: &AckSample) {
        let Some(rtt) = s.rtt else { return };
        let vrtt = (rtt.0 / 1000).min(u32::MAX as u64 - 1) as u32 + 1;
        self.base_rtt = self.base_rtt.min(vrtt);
        self.min_rtt = self.min_rtt.min(vrtt);
        self.cnt_rtt = self.cnt_rtt.wrapping_add(1);
    }

    fn set_state(&mut self, _tp: &mut CcState, new: CaState) {
        if new == CaState::Open {
            self.enable();
        } else {
            self.doing_veno_now = false;
        }
    }

    fn cwnd_event(&mut self, _tp: &mut CcState, ev: CwndEvent) {
        if matches!(ev, CwndEvent::CwndRestart | CwndEvent::TxStart) {
            self.restart();
        }
    }

    fn cong_avoid(&mut self, tp: &mut CcState, acked: u32) {
        if !self.doing_veno_now {
            reno_cong_avoid(tp, acked);
            return;
        }
        if !tp.is_cwnd_limited {
            return;
        }
        if self.cnt_rtt <= 2 {
            reno_cong_avoid(tp, acked);
        } else {
            // target = cwnd baseRTT / RTT, in halves.
            let target = ((tp.cwnd as u64 * self.base_rtt as u64) << SHIFT) / self.min_rtt as u64;
            self.diff = ((tp.cwnd as u64) << SHIFT).wrapping_sub(target) as u32;
            let mut acked = acked;
            if tp.in_slow_start() {
                acked = slow_start(tp, acked);
            }
            if acked > 0 {
                if self.diff < BETA {
                    // Non-congestive: one segment per window acknowledged.
                    let w = tp.cwnd;
                    cong_avoid_ai(tp, w, acked);
                } else if tp.cwnd_cnt >= tp.cwnd {
                    // Congestive: one segment every other window.
                    if self.inc && tp.cwnd < tp.cwnd_clamp {
                        tp.cwnd += 1;
                        self.inc = false;
                    } else {
                        self.inc = true;
                    }
                    tp.cwnd_cnt = 0;
                } else {
                    tp.cwnd_cnt += acked;
                }
            }
            tp.cwnd = tp.cwnd.clamp(2, tp.cwnd_clamp.max(2));
        }
        self.min_rtt = NONE_US;
    }

    fn ssthresh(&mut self, tp: &CcState) -> u32 {
        if self.diff < BETA {
            // Random loss: cwnd x 4/5.
            (tp.cwnd * 4 / 5).max(2)
        } else {
            // Congestion: cwnd / 2.
            (tp.cwnd >> 1).max(2)
        }
    }
}

fn make(p: &CcParams) -> Result<Box<dyn CongestionControl>, String> {
    no_params("veno", p)?;
    Ok(Box::new(Veno::new()))
}

/// Registry entry.
pub const INFO: CcInfo = CcInfo {
    name: "veno",
    description: "Veno: Vegas's queue estimate N tells random from congestive loss: N < 3, Reno growth and x4/5 on loss; else +1 every other RTT and x1/2",
    source: "Fu & Liew 2003 (IEEE JSAC 21(2)); Linux net/ipv4/tcp_veno.c",
    params: &[],
    make,
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::harness::Harness;
    use tcplab_engine::SimTime;

    fn veno(cwnd: u32, ssthresh: u32) -> Harness {
        Harness::with(Box::new(Veno::new()), cwnd, ssthresh)
    }

    /// An ACK of `n` segments with an RTT sample of `rtt_us` µs.
    fn ack(h: &mut Harness, n: u32, rtt_us: u64) {
        h.ack(n, SimTime::from_micros(rtt_us));
    }

    #[test]
    fn the_first_two_samples_give_reno_growth() {
        // cntrtt 1 and 2 at the first two ACKs: Reno, one segment per
        // window: cwnd 10 in avoidance, 5 + 5 acknowledged -> 11.
        let mut h = veno(10, 5);
        ack(&mut h, 5, 100_000);
        ack(&mut h, 5, 200_000);
        assert_eq!(h.tp.cwnd, 11);
        // No N computed yet: a loss keeps 4/5 (11 * 4 / 5 = 8).
        assert_eq!(h.cc.ssthresh(&h.tp), 8);
    }

    #[test]
    fn a_small_queue_estimate_is_non_congestive() {
        // baseRTT 100,001 µs (100 ms + 1). At RTT 110,001 µs and cwnd 20:
        // target = 20 * 100001 * 2 / 110001 = 36 (36.36), diff = 40 - 36 = 4
        // halves (N = 2 < 3): Reno's growth, and a loss keeps 4/5.
        let mut h = veno(20, 10);
        ack(&mut h, 1, 100_000);
        ack(&mut h, 1, 100_000);
        let before = (h.tp.cwnd, h.tp.cwnd_cnt);
        assert_eq!(before, (20, 2));
        ack(&mut h, 1, 110_000);
        assert_eq!((h.tp.cwnd, h.tp.cwnd_cnt), (20, 3));
        // 20 * 4 / 5 = 16.
        assert_eq!(h.cc.ssthresh(&h.tp), 16);
        // 17 more segments complete the window: cwnd 21.
        for _ in 0..17 {
            ack(&mut h, 1, 110_000);
        }
        assert_eq!((h.tp.cwnd, h.tp.cwnd_cnt), (21, 0));
    }

    #[test]
    fn a_large_queue_estimate_grows_every_other_window_and_halves_on_loss() {
        // RTT 200,001 against baseRTT 100,001 at cwnd 20: target = 20 *
        // 100001 * 2 / 200001 = 19 (19.9998), diff = 40 - 19 = 21 halves
        // (N = 10.5 >= 3): congestive.
        let mut h = veno(20, 10);
        ack(&mut h, 1, 100_000);
        ack(&mut h, 1, 100_000);
        // cwnd_cnt 2 from the Reno ACKs; 18 more reach 20 = cwnd, and the
        // ACK after that acts: +1 (inc was set), cnt 0.
        for _ in 0..18 {
            ack(&mut h, 1, 200_000);
        }
        assert_eq!((h.tp.cwnd, h.tp.cwnd_cnt), (20, 20));
        ack(&mut h, 1, 200_000);
        assert_eq!((h.tp.cwnd, h.tp.cwnd_cnt), (21, 0));
        // The next window (21 ACKs to count, one to act) adds nothing...
        for _ in 0..22 {
            ack(&mut h, 1, 200_000);
        }
        assert_eq!((h.tp.cwnd, h.tp.cwnd_cnt), (21, 0));
        // ... and the one after adds one again.
        for _ in 0..22 {
            ack(&mut h, 1, 200_000);
        }
        assert_eq!(h.tp.cwnd, 22);
        // A loss now halves: 22 >> 1 = 11.
        assert_eq!(h.cc.ssthresh(&h.tp), 11);
    }

    #[test]
    fn an_ack_without_a_sample_counts_as_congestive() {
        // RTT is cleared after every window update: an ACK with no sample
        // compares with 0x7fffffff µs, target 0, diff 2 cwnd.
        let mut h = veno(20, 10);
        for _ in 0..3 {
            ack(&mut h, 1, 100_000);
        }
        h.cc.cong_avoid(&mut h.tp, 1);
        assert_eq!(h.cc.ssthresh(&h.tp), 10); // halved, not 4/5 (16)
    }

    #[test]
    fn slow_start_is_linux_slow_start_and_reno_outside_open() {
        // In slow start Veno grows as tcp_slow_start (one per segment),
        // N or not: cwnd 10, ssthresh 100, 5 acknowledged -> 15.
        let mut h = veno(10, 100);
        for _ in 0..3 {
            ack(&mut h, 1, 100_000);
        }
        assert_eq!(h.tp.cwnd, 13);
        ack(&mut h, 5, 300_000);
        assert_eq!(h.tp.cwnd, 18);
        // In Recovery-then-Disorder (not Open): Reno.
        let mut h = veno(20, 10);
        h.cc.set_state(&mut h.tp, CaState::Disorder);
        for _ in 0..20 {
            ack(&mut h, 1, 300_000);
        }
        assert_eq!(h.tp.cwnd, 21);
    }

    #[test]
    fn a_restart_forgets_the_base_rtt_but_not_the_sample_count() {
        let mut h = veno(20, 10);
        for _ in 0..3 {
            ack(&mut h, 1, 100_000);
        }
        h.cc.cwnd_event(&mut h.tp, CwndEvent::TxStart);
        // baseRTT now comes from the next sample alone: RTT = baseRTT,
        // diff = 0, non-congestive at once (the count is still 3).
        ack(&mut h, 1, 300_000);
        assert_eq!(h.cc.ssthresh(&h.tp), 16);
    }

    #[test]
    fn make_takes_no_parameters() {
        assert!((INFO.make)(&CcParams::new()).is_ok());
        let mut p = CcParams::new();
        p.insert("beta".into(), 3.0);
        assert!((INFO.make)(&p).is_err());
    }
}
