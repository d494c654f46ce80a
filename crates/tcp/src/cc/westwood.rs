//! TCP Westwood+ (Mascolo, Casetti, Gerla, Sanadidi, Wang, "TCP Westwood:
//! bandwidth estimation for enhanced transport over wireless links", MobiCom
//! 2001; Grieco & Mascolo, "Performance evaluation and comparison of Westwood+,
//! New Reno, and Vegas TCP congestion control", CCR 34(2), 2004) as Linux
//! net/ipv4/tcp_westwood.c does it: Reno's probing, but after a loss the window
//! is set from an end-to-end bandwidth estimate instead of being halved.
//!
//! ```text
//! once per RTT window (> max(RTT, 50 ms) since the last):
//!     sample    = bk / window              bk: bytes acknowledged in the window
//!     bw_ns_est = (7 bw_ns_est + sample) / 8
//!     bw_est    = (7 bw_est + bw_ns_est) / 8    (westwood_do_filter, twice)
//! (the first sample fills both)
//! end of fast recovery (CA_EVENT_COMPLETE_CWR): cwnd = ssthresh = max(bw_est·RTTmin/mss, 2)
//! timeout (CA_EVENT_LOSS):                      ssthresh = max(bw_est·RTTmin/mss, 2)
//! ```
//!
//! `ssthresh()` itself is Reno's (`tcp_reno_ssthresh`) and holds only during
//! recovery; the window growth is `tcp_reno_cong_avoid`. RTTmin is the smallest
//! per-ACK RTT sample, restarted from the next sample after a timeout
//! (`reset_rtt_min`). The RTT used for the window length starts at 20 s
//! (`TCP_WESTWOOD_INIT_RTT`) until the first sample, and the first ACK only
//! sets the accounting point (`first_ack`).
//!
//! Followed: Linux tcp_westwood.c (v6.x) with `tcp_westwood_ack` run after
//! `pkts_acked` on each ACK, as mainline `tcp_ack` has done since the AccECN
//! preparation (Ilpo Järvinen, "tcp: reorganize tcp_in_ack_event() and
//! tcp_count_delivered()", 2024); before that the ACK event ran first, so the
//! window and RTTmin saw the previous ACK's RTT sample.
//!
//! Deviations:
//! - Units: Linux measures in jiffies (bw_est in bytes per jiffy, RTTmin in
//!   jiffies); here time is in microseconds and bw_est in bytes per second,
//!   with the same integer filter, so results differ from a kernel only by
//!   the kernel's coarser truncation (at HZ = 1000, 144800 B/s is 144 B/ms).
//! - Acknowledged bytes: Linux's fast path (`westwood_fast_bw`) adds the advance
//!   of snd_una; its slow path (`westwood_acked_count`, any ACK with SACK
//!   blocks, a window update or ECE, and every duplicate ACK) counts each
//!   duplicate ACK as one MSS delivered (`accounted`) and takes those back from
//!   the next cumulative ACK that covers more than one MSS, so data delivered
//!   during recovery is credited when its duplicate ACKs arrive. The simulated
//!   sender calls `pkts_acked` only for ACKs that advance snd_una (with the
//!   segments newly SACKed by that ACK included), not for duplicate ACKs. So
//!   bk adds `mss` × the growth of `tp.delivered` since the last ACK seen, which
//!   also holds the segments that duplicate ACKs SACKed in between: with SACK,
//!   everything delivered is counted, at the next ACK that advances snd_una
//!   (up to one window of recovery later than Linux would credit it); without
//!   SACK, duplicate ACKs carry no information and the cumulative ACK that ends
//!   recovery credits the whole window, where Linux credits an MSS per duplicate
//!   ACK at once and the remainder at the end. The sums agree; the sampling
//!   window the bytes fall in can differ by up to one recovery.
//! - cwnd set at the end of recovery is capped at `cwnd_clamp` (Linux does not).
//! - The window is set from the estimate when the sender reports the end of
//!   recovery (`CwndEvent::CompleteCwr`, sent on the full ACK of NewReno and SACK
//!   recovery). The sender's Reno recovery (first new ACK ends it) sends no such
//!   event, so there the window stays at Reno's ssthresh until the next loss.

use super::{
    no_params, reno_cong_avoid, reno_ssthresh, AckSample, CcInfo, CcParams, CcState,
    CongestionControl, CwndEvent,
};
use tcplab_engine::SimTime;

/// Linux `TCP_WESTWOOD_RTT_MIN` (HZ/20): shortest estimation window, µs.
pub const RTT_MIN_US: u64 = 50_000;
/// Linux `TCP_WESTWOOD_INIT_RTT` (20·HZ): RTT assumed before the first sample, µs.
pub const INIT_RTT_US: u64 = 20_000_000;

/// Westwood+.
pub struct Westwood {
    /// First filter stage, bytes per second.
    bw_ns_est: u64,
    /// Bandwidth estimate (BWE), bytes per second.
    bw_est: u64,
    /// Start of the current estimation window.
    rtt_win_sx: SimTime,
    /// Bytes acknowledged in the current window.
    bk: u64,
    /// `tp.delivered` already counted (Linux keeps `snd_una`).
    delivered: u64,
    /// Last RTT sample, µs.
    rtt: u64,
    /// Smallest RTT sample, µs.
    rtt_min: u64,
    first_ack: bool,
    reset_rtt_min: bool,
}

impl Westwood {
    /// A fresh controller; `init` sets the window start and accounting point.
    pub fn new() -> Self {
        Westwood {
            bw_ns_est: 0,
            bw_est: 0,
            rtt_win_sx: SimTime::ZERO,
            bk: 0,
            delivered: 0,
            rtt: INIT_RTT_US,
            rtt_min: INIT_RTT_US,
            first_ack: true,
            reset_rtt_min: true,
        }
    }

    /// Linux `westwood_filter`: one bandwidth sample over `delta_us`.
    fn filter(&mut self, delta_us: u64) {
        let sample = self.bk * 1_000_000 / delta_us;
        if self.bw_ns_est == 0 && self.bw_est == 0 {
            // An empty filter takes the first sample as it is.
            self.bw_ns_est = sample;
            self.bw_est = sample;
        } else {
            self.bw_ns_est = do_filter(self.bw_ns_est, sample);
            self.bw_est = do_filter(self.bw_est, self.bw_ns_est);
        }
    }

    /// Linux `westwood_update_window`: close the window once it is longer than
    /// max(RTT, 50 ms).
    fn update_window(&mut self, tp: &CcState) {
        let delta = tp.now.saturating_sub(self.rtt_win_sx).as_micros();
        if self.first_ack {
            // Count from the first ACK on.
            self.delivered = tp.delivered;
            self.first_ack = false;
        }
        if self.rtt != 0 && delta > self.rtt.max(RTT_MIN_US) {
            self.filter(delta);
            self.bk = 0;
            self.rtt_win_sx = tp.now;
        }
    }

    /// Linux `update_rtt_min`.
    fn update_rtt_min(&mut self) {
        if self.reset_rtt_min {
            self.rtt_min = self.rtt;
            self.reset_rtt_min = false;
        } else {
            self.rtt_min = self.rtt_min.min(self.rtt);
        }
    }

    /// Linux `tcp_westwood_bw_rttmin`: BWE · RTTmin in segments, at least 2.
    fn bw_rttmin(&self, tp: &CcState) -> u32 {
        let bytes = self.bw_est as u128 * self.rtt_min as u128 / 1_000_000;
        let segs = bytes / tp.mss.max(1) as u128;
        segs.clamp(2, u32::MAX as u128) as u32
    }

    /// The bandwidth estimate, bytes per second.
    #[cfg(test)]
    pub fn bandwidth(&self) -> u64 {
        self.bw_est
    }
}

impl Default for Westwood {
    fn default() -> Self {
        Self::new()
    }
}

/// Linux `westwood_do_filter`: 7/8 old + 1/8 new, in integers.
fn do_filter(a: u64, b: u64) -> u64 {
    (7 * a + b) >> 3
}

impl CongestionControl for Westwood {
    fn name(&self) -> &'static str {
        "westwood"
    }

    fn init(&mut self, tp: &mut CcState) {
        *self = Westwood::new();
        self.rtt_win_sx = tp.now;
        self.delivered = tp.delivered;
    }

    // Agent/TCP/WestwoodNR derives from Newreno and keeps its opencwnd.
    fn ns2_opencwnd(&self) -> bool {
        true
    }
    fn ssthresh(&mut self, tp: &CcState) -> u32 {
        reno_ssthresh(tp)
    }

    fn cong_avoid(&mut self, tp: &mut CcState, acked: u32) {
        reno_cong_avoid(tp, acked)
    }

    fn pkts_acked(&mut self, tp: &mut CcState, s: &AckSample) {
        // tcp_westwood_pkts_acked: the ACK's RTT sample.
        if let Some(rtt) = s.rtt {
            if rtt > SimTime::ZERO {
                self.rtt = rtt.as_micros();
            }
        }
        // tcp_westwood_ack (after pkts_acked in mainline tcp_ack): window, bytes, RTTmin.
        self.update_window(tp);
        let newly = tp.delivered.saturating_sub(self.delivered);
        self.delivered = tp.delivered;
        self.bk += newly * tp.mss as u64;
        self.update_rtt_min();
    }

    fn cwnd_event(&mut self, tp: &mut CcState, ev: CwndEvent) {
        match ev {
            CwndEvent::CompleteCwr => {
                let w = self.bw_rttmin(tp);
                tp.ssthresh = w;
                tp.cwnd = w.min(tp.cwnd_clamp);
            }
            CwndEvent::Loss => {
                tp.ssthresh = self.bw_rttmin(tp);
                // RTTmin restarts from the next sample.
                self.reset_rtt_min = true;
            }
            CwndEvent::TxStart | CwndEvent::CwndRestart => {}
        }
    }
}

fn make(p: &CcParams) -> Result<Box<dyn CongestionControl>, String> {
    no_params("westwood", p)?;
    Ok(Box::new(Westwood::new()))
}

/// Registry entry.
pub const INFO: CcInfo = CcInfo {
    name: "westwood",
    description: "Westwood+: Reno probing; after a loss cwnd = ssthresh = filtered bandwidth estimate x RTTmin",
    source: "Mascolo et al. MobiCom 2001; Grieco & Mascolo CCR 2004; Linux net/ipv4/tcp_westwood.c",
    params: &[],
    make,
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::harness::Harness;

    /// A Westwood+ controller and its socket, driven ACK by ACK as the sender does
    /// (`delivered` grows, then `pkts_acked`, then `cong_avoid`), keeping access
    /// to the estimate.
    struct Drive {
        w: Westwood,
        tp: CcState,
    }

    impl Drive {
        fn new() -> Self {
            let mut tp = CcState::new(10, 1448);
            tp.ssthresh = 5;
            let mut w = Westwood::new();
            w.init(&mut tp);
            Drive { w, tp }
        }
        fn ack_at(&mut self, t_ms: u64, n: u32, rtt_ms: Option<u64>) {
            self.tp.now = SimTime::from_millis(t_ms);
            self.tp.delivered += n as u64;
            let s = AckSample {
                pkts_acked: n,
                rtt: rtt_ms.map(SimTime::from_millis),
                in_flight: self.tp.cwnd,
            };
            self.w.pkts_acked(&mut self.tp, &s);
            self.w.cong_avoid(&mut self.tp, n);
        }
    }

    fn harness() -> Harness {
        Harness::with(Box::new(Westwood::new()), 10, 5)
    }

    /// ACKs of `n` segments at `from_ms`, `from_ms + 100`, ... up to `to_ms`, RTT 90 ms.
    fn every_100ms(h: &mut Harness, from_ms: u64, to_ms: u64, n: u32) {
        let mut t = from_ms;
        while t <= to_ms {
            h.tp.now = SimTime::from_millis(t);
            h.ack(n, SimTime::from_millis(90));
            t += 100;
        }
    }

    #[test]
    fn bandwidth_estimate_is_the_twice_filtered_per_rtt_sample() {
        // 10 segments of 1448 B acknowledged every 100 ms, RTT samples 90 ms: each
        // ACK is more than max(90, 50) ms after the last window start, so every ACK
        // closes a window holding the previous ACK's 14480 B: 14480 B / 0.1 s =
        // 144800 B/s.
        let mut d = Drive::new();
        // 100 ms: first ACK, only sets the accounting point; the window [0, 100]
        // closes empty (sample 0, the filter stays empty). RTTmin = 90 ms.
        d.ack_at(100, 10, Some(90));
        assert_eq!((d.w.bw_ns_est, d.w.bw_est, d.w.bk), (0, 0, 0));
        assert_eq!(d.w.rtt_min, 90_000);
        // 200 ms: window [100, 200] closes empty again; then bk = 14480.
        d.ack_at(200, 10, Some(90));
        assert_eq!((d.w.bw_est, d.w.bk), (0, 14480));
        // 300 ms: first sample 144800 fills both stages.
        d.ack_at(300, 10, Some(90));
        assert_eq!((d.w.bw_ns_est, d.w.bw_est), (144800, 144800));
        // 400, 500 ms: (7·144800 + 144800)/8 = 144800 — a steady rate is a fixed point.
        d.ack_at(400, 10, Some(90));
        d.ack_at(500, 20, Some(90));
        assert_eq!((d.w.bw_ns_est, d.w.bw_est), (144800, 144800));
        // The rate doubles (20 segments per 100 ms = 289600 B/s, seen from 600 ms):
        // 600: bw_ns = (7·144800 + 289600)/8 = 1303200/8 = 162900
        //      bw    = (7·144800 + 162900)/8 = 1176500/8 = 147062 (.5 dropped)
        d.ack_at(600, 20, Some(90));
        assert_eq!((d.w.bw_ns_est, d.w.bw_est), (162900, 147062));
        // 700: bw_ns = (7·162900 + 289600)/8 = 1429900/8 = 178737
        //      bw    = (7·147062 + 178737)/8 = 1208171/8 = 151021
        d.ack_at(700, 20, Some(90));
        assert_eq!((d.w.bw_ns_est, d.w.bw_est), (178737, 151021));
        // 800: bw_ns = (7·178737 + 289600)/8 = 1540759/8 = 192594
        //      bw    = (7·151021 + 192594)/8 = 1249741/8 = 156217
        d.ack_at(800, 20, Some(90));
        assert_eq!((d.w.bw_ns_est, d.w.bw_est), (192594, 156217));
        assert_eq!(d.w.bandwidth(), 156217);
    }

    #[test]
    fn window_after_a_loss_is_bwe_times_rttmin_over_mss() {
        // Same delivery through the harness: BWE 144800 B/s from 300 ms on, RTTmin 90 ms.
        let mut h = harness();
        every_100ms(&mut h, 100, 400, 10);
        // Fast retransmit: Reno's ssthresh during recovery, then at its end
        // cwnd = ssthresh = 144800 · 0.09 / 1448 = 13032 / 1448 = 9.
        h.loss();
        assert_eq!((h.tp.ssthresh, h.tp.cwnd), (9, 9));
        // Twice the rate from 500 ms, as in the filter test: BWE 156217 at 800 ms,
        // 156217 · 0.09 = 14059 B = 9.7 -> 9; one more at 900 ms:
        // bw_ns = (7·192594 + 289600)/8 = 1637758/8 = 204719,
        // bw = (7·156217 + 204719)/8 = 1298238/8 = 162279,
        // 162279 · 0.09 = 14605 B = 10.09 -> 10 segments.
        every_100ms(&mut h, 500, 800, 20);
        h.loss();
        assert_eq!(h.tp.cwnd, 9);
        every_100ms(&mut h, 900, 900, 20);
        h.loss();
        assert_eq!((h.tp.ssthresh, h.tp.cwnd), (10, 10));
    }

    #[test]
    fn timeout_sets_ssthresh_to_bwe_times_rttmin_and_restarts_rttmin() {
        let mut h = harness();
        every_100ms(&mut h, 100, 500, 10);
        // CA_EVENT_LOSS: ssthresh = 13032/1448 = 9, cwnd 1.
        h.timeout();
        assert_eq!((h.tp.ssthresh, h.tp.cwnd), (9, 1));
        // RTTmin restarts: the next sample, 150 ms, becomes RTTmin although 90 ms was
        // seen before. The window closing at 600 ms holds the 500 ms ACK's 14480 B:
        // BWE stays 144800; 144800 · 0.15 = 21720 B = 15 segments.
        h.tp.now = SimTime::from_millis(600);
        h.ack(10, SimTime::from_millis(150));
        h.loss();
        assert_eq!((h.tp.ssthresh, h.tp.cwnd), (15, 15));
    }

    #[test]
    fn estimation_window_is_at_least_50_ms() {
        // RTT 10 ms, one segment every 20 ms (72400 B/s): windows close when more
        // than max(10, 50) = 50 ms have passed, i.e. every third ACK.
        let mut d = Drive::new();
        // 20: first ACK (not counted); 40: bk 1448; 60: window [0, 60] closes with
        // 1448 B / 0.06 s = 24133 (the first ACK's segment was not counted).
        for t in [20, 40] {
            d.ack_at(t, 1, Some(10));
        }
        assert_eq!((d.w.bw_est, d.w.bk), (0, 1448));
        d.ack_at(60, 1, Some(10));
        assert_eq!((d.w.bw_ns_est, d.w.bw_est, d.w.bk), (24133, 24133, 1448));
        // 80, 100: bk 4344; 120: 4344 / 0.06 = 72400,
        // bw_ns = (7·24133 + 72400)/8 = 241331/8 = 30166, bw = (7·24133 + 30166)/8 = 24887.
        for t in [80, 100] {
            d.ack_at(t, 1, Some(10));
        }
        assert_eq!(d.w.bw_est, 24133);
        d.ack_at(120, 1, Some(10));
        assert_eq!((d.w.bw_ns_est, d.w.bw_est), (30166, 24887));
    }

    #[test]
    fn before_any_rtt_sample_the_window_is_20_s_long() {
        // ACKs without RTT samples (Karn) every 100 ms: the window waits for the
        // initial 20 s RTT; RTTmin is that 20 s too.
        let mut d = Drive::new();
        for i in 1..=10 {
            d.ack_at(100 * i, 10, None);
        }
        // First ACK skipped, nine counted: 9 · 14480 = 130320 B.
        assert_eq!((d.w.bw_est, d.w.bk, d.w.rtt_min), (0, 130320, INIT_RTT_US));
        // 20.1 s > 20 s: 130320 B / 20.1 s = 6483 B/s. BWE · RTTmin = 6483 · 20 =
        // 129660 B = 89 segments: the estimate is only as good as its RTT.
        d.ack_at(20_100, 10, None);
        assert_eq!(d.w.bw_est, 6483);
        d.w.cwnd_event(&mut d.tp, CwndEvent::CompleteCwr);
        assert_eq!((d.tp.cwnd, d.tp.ssthresh), (89, 89));
    }

    #[test]
    fn segments_sacked_by_duplicate_acks_are_credited_at_the_next_ack() {
        // The sender reports duplicate ACKs only through tp.delivered; the next ACK
        // that advances snd_una credits them. 144800 B/s up to 300 ms as above, then
        // 5 segments SACKed by duplicate ACKs before the 300 ms ACK: they land in
        // the window [300, 400]: (10 + 5) · 1448 / 0.1 = 217200 B/s,
        // bw_ns = (7·144800 + 217200)/8 = 153850, bw = (7·144800 + 153850)/8 = 145931.
        let mut d = Drive::new();
        d.ack_at(100, 10, Some(90));
        d.ack_at(200, 10, Some(90));
        d.tp.delivered += 5;
        d.ack_at(300, 10, Some(90));
        assert_eq!(d.w.bw_est, 144800);
        d.ack_at(400, 10, Some(90));
        assert_eq!((d.w.bw_ns_est, d.w.bw_est), (153850, 145931));
    }

    #[test]
    fn without_an_estimate_a_loss_leaves_two_segments() {
        // A loss before the first window closes: BWE 0 -> max(0, 2) = 2, as Linux.
        let mut h = harness();
        h.loss();
        assert_eq!((h.tp.ssthresh, h.tp.cwnd), (2, 2));
    }

    #[test]
    fn make_rejects_parameters() {
        let mut p = CcParams::new();
        assert!((INFO.make)(&p).is_ok());
        p.insert("beta".into(), 0.5);
        assert!((INFO.make)(&p).err().unwrap().contains("beta"));
    }
}
