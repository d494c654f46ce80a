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
//! On an ns-2 host (`ns2` profile, `CcState::ns2_agent`) the controller follows
//! the ns-2 agent the Westwood+ authors published, `Agent/TCP/WestwoodNR`
//! (tcp-westwood-nr.cc, "tcp-w-nr.cc,v 1.2 2001/09/17 mvalla", UCLA's
//! NewReno-based agent that Mascolo's group extended with the Westwood+
//! filters), where it differs from Linux in what the sender sees:
//! - counting (`bwe_computation`, on every ACK before the agent acts on it):
//!   a duplicate ACK counts one segment and is remembered as `unaccounted_`;
//!   a cumulative ACK of n > 1 segments counts 1 if the duplicates already
//!   covered them (unaccounted_ >= n, which drops by n), else n - unaccounted_
//!   (unaccounted_ back to 0); no ACK counts more than 2 segments, so the
//!   cumulative ACKs of a go-back-N resend after a timeout, which acknowledge
//!   data delivered long before, add nothing to the estimate;
//! - the decrease: on the third duplicate ACK (`dupack_action`) ssthresh =
//!   max(BWE·RTTmin, 2) and cwnd = min(cwnd, ssthresh) (then inflated by the
//!   duplicate ACKs, see the sender), and the recovery ends with that window
//!   (`exit_recovery_fix_` 0), where Linux halves and sets the window at the
//!   end; on a timeout (`slowdown(CLOSE_FASTER)`) ssthresh = max(BWE·RTTmin, 2)
//!   and cwnd = 2; neither goes through ns-2's slowdown halving
//!   (`ns2_slowdown` false). RTTmin is never restarted (`min_rtt_estimate`).
//!
//! The agent's recovery defaults (ns-default.tcl: `newreno_changes1_` 0,
//! `partial_window_deflation_` 0) are host settings (`newreno_rto`,
//! `partial_window_deflation`) that the `ns2` profile sets for this
//! controller. Its bandwidth filters (`filter_type_`) are not followed: the
//! estimate is filtered as Linux does, once per RTT (Westwood+'s sampling).
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
use crate::profile::NewRenoRto;
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
    /// ns-2 `unaccounted_`: segments counted for duplicate ACKs that a later
    /// cumulative ACK covers.
    unaccounted: u32,
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
            unaccounted: 0,
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
    fn ns2_slowdown(&self) -> bool {
        false
    }
    // WestwoodNR's ns-default.tcl: newreno_changes1_ 0 (the timer restarts on
    // every partial ACK), partial_window_deflation_ 0.
    fn ns2_newreno(&self) -> Option<(NewRenoRto, bool)> {
        Some((NewRenoRto::SlowButSteady, false))
    }

    fn ssthresh(&mut self, tp: &CcState) -> u32 {
        if tp.ns2_agent {
            // WestwoodNR dupack_action: ssthresh_ = max(BWE·RTTmin, 2) at once.
            self.bw_rttmin(tp)
        } else {
            reno_ssthresh(tp)
        }
    }

    fn ack_event(&mut self, tp: &mut CcState, advanced: u64) {
        if !tp.ns2_agent {
            return;
        }
        // WestwoodNR bwe_computation: segments this ACK counts for (ns-2
        // counts packets: the bytes advanced over the segment size).
        let segs = advanced.div_ceil(tp.mss.max(1) as u64);
        let mut n = segs.min(u32::MAX as u64) as u32;
        if n > 1 {
            if self.unaccounted >= n {
                self.unaccounted -= n;
                n = 1;
            } else {
                n -= self.unaccounted;
                self.unaccounted = 0;
            }
        }
        if n == 0 {
            self.unaccounted += 1;
            n = 1;
        }
        let n = n.min(2);
        self.update_window(tp);
        self.bk += n as u64 * tp.mss as u64;
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
        if tp.ns2_agent {
            // Counted in ack_event; min_rtt_estimate is a running minimum.
            self.update_rtt_min();
            return;
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
            // WestwoodNR set the window at the third duplicate ACK already.
            CwndEvent::CompleteCwr if tp.ns2_agent => {}
            CwndEvent::CompleteCwr => {
                let w = self.bw_rttmin(tp);
                tp.ssthresh = w;
                tp.cwnd = w.min(tp.cwnd_clamp);
            }
            CwndEvent::Loss if tp.ns2_agent => {
                // WestwoodNR slowdown(CLOSE_FASTER).
                tp.ssthresh = self.bw_rttmin(tp);
                tp.cwnd = 2.min(tp.cwnd_clamp);
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
                ..Default::default()
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
    fn on_ns2_each_ack_counts_as_westwoodnr_bwe_computation_does() {
        // tcp-westwood-nr.cc bwe_computation, ACK by ACK (all within one
        // estimation window, so only bk moves), mss 1448:
        let mut d = Drive::new();
        d.tp.ns2_agent = true;
        d.tp.now = SimTime::from_millis(10);
        let mut step = |adv: u32| {
            d.w.ack_event(&mut d.tp, adv as u64 * 1448);
            (d.w.bk / 1448, d.w.unaccounted)
        };
        // (the first ACK only sets Linux's accounting point; ns-2 counts it)
        assert_eq!(step(1), (1, 0)); // one segment: 1
        assert_eq!(step(0), (2, 1)); // a duplicate ACK: 1, remembered
        assert_eq!(step(0), (3, 2));
        assert_eq!(step(0), (4, 3));
        // 5 segments, 3 already counted by duplicates: 5 - 3 = 2.
        assert_eq!(step(5), (6, 0));
        // 2 segments with nothing unaccounted: 2.
        assert_eq!(step(2), (8, 0));
        // A go-back-N jump of 100 segments: at most 2.
        assert_eq!(step(100), (10, 0));
        // Six duplicates, then 4 segments: covered by them, counts 1, 2 left.
        for k in 1..=6 {
            assert_eq!(step(0), (10 + k, k as u32));
        }
        assert_eq!(step(4), (17, 2));
    }

    #[test]
    fn on_ns2_the_window_is_set_at_the_fast_retransmit_and_kept_at_the_end() {
        // One segment (1448 B) acknowledged every 10 ms, RTT samples 90 ms,
        // each ACK counted (ack_event) before its sample (pkts_acked), as
        // WestwoodNR's recv. The first window closes at 100 ms (> 90 ms) with
        // the 9 ACKs of 10..90 ms: 13032 B / 0.1 s = 130320 (fills both
        // stages); the next ones with 10 ACKs: 144800 B/s:
        //   200: bw_ns = (7·130320 + 144800)/8 = 132130, bw = (7·130320 + 132130)/8 = 130546
        //   300: bw_ns = (7·132130 + 144800)/8 = 133713, bw = (7·130546 + 133713)/8 = 130941
        //   400: bw_ns = (7·133713 + 144800)/8 = 135099, bw = (7·130941 + 135099)/8 = 131460
        // BWE·RTTmin = 131460 · 0.09 = 11831 B = 8 segments.
        let mut d = Drive::new();
        d.tp.ns2_agent = true;
        for t in (10..=400).step_by(10) {
            d.tp.now = SimTime::from_millis(t);
            d.w.ack_event(&mut d.tp, 1448);
            d.ack_at(t, 1, Some(90));
        }
        assert_eq!(d.w.bandwidth(), 131460);
        // ssthresh() itself gives 8 (WestwoodNR dupack_action), where Linux's is
        // Reno's half of the flight (20).
        d.tp.in_flight = 40;
        d.tp.cwnd = 40;
        assert_eq!(d.w.ssthresh(&d.tp), 8);
        // The end of the recovery leaves the window to the sender.
        d.tp.cwnd = 7;
        d.w.cwnd_event(&mut d.tp, CwndEvent::CompleteCwr);
        assert_eq!(d.tp.cwnd, 7);
        // A timeout: ssthresh 8, cwnd 2; RTTmin is not restarted by a later
        // larger sample.
        d.w.cwnd_event(&mut d.tp, CwndEvent::Loss);
        assert_eq!((d.tp.ssthresh, d.tp.cwnd), (8, 2));
        d.ack_at(410, 1, Some(150));
        assert_eq!(d.w.rtt_min, 90_000);
    }

    #[test]
    fn make_rejects_parameters() {
        let mut p = CcParams::new();
        assert!((INFO.make)(&p).is_ok());
        p.insert("beta".into(), 0.5);
        assert!((INFO.make)(&p).err().unwrap().contains("beta"));
    }
}
