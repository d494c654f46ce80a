//! BIC-TCP: Xu, Harfoush & Rhee, "Binary Increase Congestion Control for Fast,
//! Long Distance Networks", INFOCOM 2004, as Linux implements it in
//! net/ipv4/tcp_bic.c (Linux 4.x-6.x: `tcp_cong_avoid_ai(tp, cnt, acked)` after
//! `tcp_slow_start`, `tcp_reno_undo_cwnd`, no `loss_cwnd`).
//!
//! The paper searches for the window between `W_min` (after a loss) and `W_max`
//! (at the loss) by jumping to the midpoint each RTT, at most `S_max` per RTT
//! ("additive increase"), then probes beyond `W_max` slowly, then faster ("max
//! probing"). Linux turns each regime into `cnt`, the acknowledged segments per
//! one-segment increase (`bictcp_update`), recomputed on each window change (or
//! after `HZ / 32` at the same window):
//!
//! ```text
//! cwnd <= low_window (14)              cnt = cwnd                       (Reno)
//! cwnd <  W_max:  dist = (W_max - cwnd) / B,  B = BICTCP_B = 4
//!     dist > max_increment (16)        cnt = cwnd / 16                  (+16 per RTT)
//!     dist <= 1                        cnt = cwnd * smooth_part / B     (+1/5 per RTT)
//!     otherwise                        cnt = cwnd / dist                (+dist per RTT)
//! cwnd >= W_max:
//!     cwnd < W_max + B                 cnt = cwnd * smooth_part / B     (slow start of probing)
//!     cwnd < W_max + 16 (B - 1)        cnt = cwnd (B - 1) / (cwnd - W_max)
//!     otherwise                        cnt = cwnd / 16                  (+16 per RTT)
//! W_max == 0 (no loss yet)             cnt <= 20                         (>= 5% per RTT)
//! cnt = max(1, cnt * 16 / delayed_ack)   delayed_ack = 16 * segments per ACK (EWMA 1/16)
//! ```
//!
//! On a loss (`bictcp_recalc_ssthresh`): fast convergence (a loss below the previous
//! `W_max` sets `W_max = cwnd (1 + beta) / 2`, else `W_max = cwnd`), and ssthresh =
//! `max(cwnd * 819 / 1024, 2)` (beta 0.8), or Reno's `max(cwnd / 2, 2)` at or below
//! `low_window`. A timeout (`set_state(Loss)`) resets everything.
//!
//! Linux quirk kept: `delayed_ack` (the segments-per-ACK ratio, 2 at start) divides
//! `cnt`, a compensation from when Linux counted ACKs, not segments; since
//! `tcp_cong_avoid_ai` counts acknowledged segments it roughly doubles every rate
//! above (with one-segment ACKs the ratio settles at 31/16, with two-segment ACKs at
//! 32/16). So the binary search moves about `(W_max - cwnd) / 2` per RTT, the paper's
//! midpoint rule, and the additive cap is about 32 per RTT, the paper's S_max of 32.
//!
//! Deviations: `epoch_start` (written but never read by tcp_bic.c) is omitted; time
//! in jiffies with `HZ` = 1000 (parameter `hz`); products that would overflow 32
//! bits in Linux beyond millions of segments are computed in 64 bits. The ratio is
//! fed by the sender's `pkts_acked`, called on ACKs of new data only: Linux also
//! calls it (with 0 segments) on a duplicate ACK that arrives in the Open state,
//! which decays the ratio by 1/16.

use super::{
    ca_acked, cong_avoid_ai, AckSample, CaState, CcInfo, CcParams, CcState, CongestionControl,
};

/// Scale of beta (Linux `BICTCP_BETA_SCALE`).
const BICTCP_BETA_SCALE: u32 = 1024;
/// Binary search divides the distance to `W_max` by this (Linux `BICTCP_B`).
const BICTCP_B: u32 = 4;
/// `delayed_ack` is the segments-per-ACK ratio shifted by this.
const ACK_RATIO_SHIFT: u32 = 4;

/// Linux BIC's module parameters.
#[derive(Clone, Copy, Debug)]
struct Params {
    fast_convergence: bool,
    max_increment: u32,
    low_window: u32,
    beta: u32,
    smooth_part: u32,
    initial_ssthresh: u32,
    hz: u64,
}

/// BIC, Linux's tcp_bic.c.
pub struct Bic {
    p: Params,
    /// Acknowledged segments per one-segment increase.
    cnt: u32,
    /// Window at the last loss (after fast convergence).
    last_max_cwnd: u32,
    /// Window when `cnt` was last computed.
    last_cwnd: u32,
    /// Jiffies when `cnt` was last computed.
    last_time: u64,
    /// Segments per ACK << ACK_RATIO_SHIFT, moving average.
    delayed_ack: u32,
}

impl Bic {
    fn new(p: Params) -> Self {
        let mut b = Bic {
            p,
            cnt: 0,
            last_max_cwnd: 0,
            last_cwnd: 0,
            last_time: 0,
            delayed_ack: 0,
        };
        b.reset();
        b
    }

    /// `bictcp_reset`.
    fn reset(&mut self) {
        self.cnt = 0;
        self.last_max_cwnd = 0;
        self.last_cwnd = 0;
        self.last_time = 0;
        self.delayed_ack = 2 << ACK_RATIO_SHIFT;
    }

    /// Linux `bictcp_update`: compute `cnt` for window `cwnd` at `now` (jiffies).
    fn update(&mut self, now: u64, cwnd: u32) {
        if self.last_cwnd == cwnd && now.saturating_sub(self.last_time) <= self.p.hz / 32 {
            return;
        }
        self.last_cwnd = cwnd;
        self.last_time = now;

        let (max_inc, smooth) = (self.p.max_increment, self.p.smooth_part);
        // start off normal
        if cwnd <= self.p.low_window {
            self.cnt = cwnd;
            return;
        }
        let w_max = self.last_max_cwnd;
        self.cnt = if cwnd < w_max {
            // binary increase
            let dist = (w_max - cwnd) / BICTCP_B;
            if dist > max_inc {
                cwnd / max_inc // linear increase
            } else if dist <= 1 {
                (cwnd as u64 * smooth as u64 / BICTCP_B as u64) as u32 // binary search increase
            } else {
                cwnd / dist // binary search increase
            }
        } else if cwnd < w_max.saturating_add(BICTCP_B) {
            // slow start of max probing
            (cwnd as u64 * smooth as u64 / BICTCP_B as u64) as u32
        } else if cwnd < w_max.saturating_add(max_inc * (BICTCP_B - 1)) {
            // slow start of max probing
            (cwnd as u64 * (BICTCP_B - 1) as u64 / (cwnd - w_max) as u64) as u32
        } else {
            cwnd / max_inc // linear increase
        };
        // in slow start or link utilization very low
        if self.last_max_cwnd == 0 && self.cnt > 20 {
            self.cnt = 20; // increase cwnd 5% per RTT
        }
        self.cnt = (((self.cnt as u64) << ACK_RATIO_SHIFT) / self.delayed_ack.max(1) as u64) as u32;
        if self.cnt == 0 {
            self.cnt = 1; // cannot be zero
        }
    }
}

impl CongestionControl for Bic {
    fn name(&self) -> &'static str {
        "bic"
    }

    fn init(&mut self, tp: &mut CcState) {
        self.reset();
        if self.p.initial_ssthresh > 0 {
            tp.ssthresh = self.p.initial_ssthresh;
        }
    }

    fn cong_avoid(&mut self, tp: &mut CcState, acked: u32) {
        let Some(acked) = ca_acked(tp, acked) else {
            return;
        };
        let now = super::jiffies(tp.now, self.p.hz);
        self.update(now, tp.cwnd);
        cong_avoid_ai(tp, self.cnt, acked);
    }

    fn ssthresh(&mut self, tp: &CcState) -> u32 {
        let cwnd = tp.cwnd as u64;
        let beta = self.p.beta as u64;
        // W_max and fast convergence
        self.last_max_cwnd = if tp.cwnd < self.last_max_cwnd && self.p.fast_convergence {
            (cwnd * (BICTCP_BETA_SCALE as u64 + beta) / (2 * BICTCP_BETA_SCALE as u64)) as u32
        } else {
            tp.cwnd
        };
        if tp.cwnd <= self.p.low_window {
            (tp.cwnd >> 1).max(2)
        } else {
            ((cwnd * beta / BICTCP_BETA_SCALE as u64) as u32).max(2)
        }
    }

    fn set_state(&mut self, _tp: &mut CcState, new: CaState) {
        if new == CaState::Loss {
            self.reset();
        }
    }

    /// Track the delayed-ACK ratio: ratio = (15 ratio + sample) / 16.
    fn pkts_acked(&mut self, tp: &mut CcState, s: &AckSample) {
        if tp.ca_state == CaState::Open {
            self.delayed_ack =
                self.delayed_ack - (self.delayed_ack >> ACK_RATIO_SHIFT) + s.pkts_acked;
        }
    }
}

fn make(p: &CcParams) -> Result<Box<dyn CongestionControl>, String> {
    let spec = [
        ("fast_convergence", 1, 0, 1),
        ("max_increment", 16, 1, 1 << 20),
        ("low_window", 14, 0, 1 << 20),
        ("beta", 819, 1, 1023),
        ("smooth_part", 20, 1, 1 << 20),
        ("initial_ssthresh", 0, 0, 1 << 30),
        ("hz", 1000, 100, 1000),
    ];
    let v = super::int_params("bic", p, spec)?;
    let [fast_convergence, max_increment, low_window, beta, smooth_part, initial_ssthresh, hz] = v;
    let hz = super::check_hz("bic", hz as f64)?;
    Ok(Box::new(Bic::new(Params {
        fast_convergence: fast_convergence == 1,
        max_increment,
        low_window,
        beta,
        smooth_part,
        initial_ssthresh,
        hz,
    })))
}

/// Registry entry.
pub const INFO: CcInfo = CcInfo {
    name: "bic",
    description: "BIC-TCP: binary search towards the last maximum, then max probing (beta 0.8)",
    source: "Xu, Harfoush & Rhee, INFOCOM 2004; Linux net/ipv4/tcp_bic.c",
    params: &[
        (
            "fast_convergence",
            "1",
            "lower W_max to cwnd (1 + beta) / 2 on a loss below it (1) or not (0)",
        ),
        (
            "max_increment",
            "16",
            "S_max: largest increase per RTT before the delayed-ACK scaling, segments",
        ),
        (
            "low_window",
            "14",
            "at or below this window BIC behaves as Reno (segments)",
        ),
        ("beta", "819", "multiplicative decrease, /1024"),
        (
            "smooth_part",
            "20",
            "RTTs from W_max - B to W_max (slows the search near W_max)",
        ),
        (
            "initial_ssthresh",
            "0",
            "initial slow-start threshold, segments (0 = the host's)",
        ),
        ("hz", "1000", "kernel tick rate (CONFIG_HZ: 100, 250, 1000)"),
    ],
    make,
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::harness::Harness;
    use tcplab_engine::SimTime;

    const MSS: u32 = 1448;

    fn bic(params: &[(&str, f64)]) -> Box<dyn CongestionControl> {
        let p: CcParams = params.iter().map(|(k, v)| (k.to_string(), *v)).collect();
        (INFO.make)(&p).unwrap()
    }

    fn default_bic() -> Bic {
        Bic::new(Params {
            fast_convergence: true,
            max_increment: 16,
            low_window: 14,
            beta: 819,
            smooth_part: 20,
            initial_ssthresh: 0,
            hz: 1000,
        })
    }

    /// A harness around `cc` (built directly: the registry is not ours to edit).
    fn harness(cc: Box<dyn CongestionControl>, cwnd: u32, ssthresh: u32) -> Harness {
        Harness::with(cc, cwnd, ssthresh)
    }

    fn ms(n: u64) -> SimTime {
        SimTime::from_millis(n)
    }

    /// `n` ACKs of one segment, 1 ms apart, RTT 100 ms.
    fn acks(h: &mut Harness, n: u32) {
        for _ in 0..n {
            h.advance(ms(1));
            h.ack(1, ms(100));
        }
    }

    #[test]
    fn at_or_below_low_window_it_is_reno() {
        // cwnd <= 14: cnt = cwnd, returned before the delayed-ACK scaling: one segment
        // per window. 10 ACKs -> 11, then 11 ACKs -> 12.
        let mut h = harness(bic(&[]), 10, 5);
        h.round(ms(100));
        assert_eq!(h.tp.cwnd, 11);
        h.round(ms(100));
        assert_eq!(h.tp.cwnd, 12);
        // A loss at 12 <= 14 halves (Reno): max(12 >> 1, 2) = 6, not 12 * 0.8.
        h.loss();
        assert_eq!((h.tp.cwnd, h.tp.ssthresh), (6, 6));
    }

    #[test]
    fn a_loss_leaves_819_1024_of_the_window() {
        // 100 * 819 / 1024 = 81900 / 1024 = 79 (79.98); 1000 -> 819000 / 1024 = 799 (799.8).
        let mut h = harness(bic(&[]), 100, 99);
        h.loss();
        assert_eq!((h.tp.cwnd, h.tp.ssthresh), (79, 79));
        let mut h = harness(bic(&[]), 1000, 999);
        h.loss();
        assert_eq!((h.tp.cwnd, h.tp.ssthresh), (799, 799));
    }

    #[test]
    fn binary_search_closes_on_w_max() {
        // Loss at W_max = 100 -> cwnd 79. One-segment ACKs: delayed_ack goes
        // 32 - 2 + 1 = 31 at the first ACK and stays (31 - 1 + 1). At window c the
        // next increase takes cnt(c) = ((c / dist) << 4) / 31 ACKs, dist = (100 - c) / 4:
        //   c   dist  c/dist  cnt   ACKs so far
        //   79   5     15      7      7
        //   80   5     16      8     15
        //   81   4     20     10     25
        //   82   4     20     10     35
        //   83   4     20     10     45
        //   84   4     21     10     55
        //   85   3     28     14     69
        //   86   3     28     14     (10 of 14 at the end of the 79-ACK round)
        // The paper's step is to the midpoint (79 + 100) / 2 = 89.5; Linux re-aims at
        // every increase, so it gets 86. Round 2 (86 ACKs): 4 more at 86 -> 87 (4),
        //   87: 13/4 = 3, 29 -> 14 (18);  88: 3, 29 -> 14 (32);  89: 11/4 = 2, 44 -> 22 (54);
        //   90: 2, 45 -> 23 (77);  91: 9 of 23 -> 91 (midpoint of 86 and 100: 93).
        let mut h = harness(bic(&[]), 100, 99);
        h.loss();
        assert_eq!(h.tp.cwnd, 79);
        h.round(ms(100));
        assert_eq!(h.tp.cwnd, 86);
        h.round(ms(100));
        assert_eq!(h.tp.cwnd, 91);
    }

    #[test]
    fn far_below_w_max_growth_is_capped_by_max_increment() {
        // Loss at 1000 -> 799: dist = 201 / 4 = 50 > 16, so cnt = c / 16, then
        // ((c / 16) << 4) / 31: 799 -> 49 -> 25; 800..815 -> 50 -> 25; 816..831 -> 51 -> 26.
        // 799 ACKs: 25 (799 -> 800) + 16 * 25 (-> 816) = 425, then 14 * 26 = 364
        // (-> 830) = 789, 10 left over: cwnd 830. +31 per RTT: S_max = 16 times the
        // delayed-ACK factor 31/16 (the paper's S_max is 32).
        let mut h = harness(bic(&[]), 1000, 999);
        h.loss();
        h.round(ms(100));
        assert_eq!(h.tp.cwnd, 830);
    }

    #[test]
    fn max_probing_starts_slowly_beyond_w_max_then_accelerates() {
        // W_max = 100 (a loss at 100), window back at 100. delayed_ack 31.
        // 100 <= c < 104: cnt = c * 20 / 4 = 5c, then << 4 / 31:
        //   100: 500 -> 258;  101: 505 -> 260;  102: 510 -> 263;  103: 515 -> 265
        //   (1046 ACKs to reach 104: about a fifth of a segment per RTT);
        // 104 <= c < 100 + 48: cnt = 3c / (c - 100), then << 4 / 31:
        //   104: 78 -> 40;  105: 63 -> 32;  106: 53 -> 27;  107: 45 -> 23
        //   (122 more ACKs to reach 108).
        let mut h = harness(bic(&[]), 100, 99);
        h.loss();
        h.tp.cwnd = 100;
        h.refill();
        acks(&mut h, 1045);
        assert_eq!(h.tp.cwnd, 103);
        acks(&mut h, 1);
        assert_eq!(h.tp.cwnd, 104);
        acks(&mut h, 121);
        assert_eq!(h.tp.cwnd, 107);
        acks(&mut h, 1);
        assert_eq!(h.tp.cwnd, 108);
        // Beyond W_max + 48 = 148: linear, cnt = 148 / 16 = 9 -> 144 / 31 = 4.
        let mut c = default_bic();
        let tp = CcState::new(100, MSS);
        c.ssthresh(&tp);
        c.delayed_ack = 31;
        c.update(0, 148);
        assert_eq!(c.cnt, 4);
    }

    #[test]
    fn fast_convergence_when_a_loss_comes_below_the_previous_w_max() {
        // W_max = 100; next loss at 90: W_max = 90 * (1024 + 819) / 2048 = 165870 / 2048
        // = 80 (80.99); ssthresh = 90 * 819 / 1024 = 73710 / 1024 = 71.
        let mut c = default_bic();
        let mut tp = CcState::new(100, MSS);
        c.ssthresh(&tp);
        assert_eq!(c.last_max_cwnd, 100);
        tp.cwnd = 90;
        assert_eq!(c.ssthresh(&tp), 71);
        assert_eq!(c.last_max_cwnd, 80);
        // Off: W_max = 90.
        let mut c = default_bic();
        c.p.fast_convergence = false;
        tp.cwnd = 100;
        c.ssthresh(&tp);
        tp.cwnd = 90;
        c.ssthresh(&tp);
        assert_eq!(c.last_max_cwnd, 90);
    }

    #[test]
    fn delayed_ack_ratio_tracks_segments_per_ack_in_open_state() {
        // ratio << 4 = 32 at start; with 3-segment ACKs d += 3 - (d >> 4):
        // 32 -> 33 -> ... -> 47 (d >> 4 = 2: +1 each), 47 - 2 + 3 = 48, then
        // 48 - 3 + 3 = 48: 16 ACKs to settle at 48 = 3 << 4.
        let mut c = default_bic();
        let mut tp = CcState::new(100, MSS);
        let s = AckSample {
            pkts_acked: 3,
            ..Default::default()
        };
        for _ in 0..15 {
            c.pkts_acked(&mut tp, &s);
        }
        assert_eq!(c.delayed_ack, 47);
        c.pkts_acked(&mut tp, &s);
        c.pkts_acked(&mut tp, &s);
        assert_eq!(c.delayed_ack, 48);
        // Not outside the Open state.
        tp.ca_state = CaState::Recovery;
        let one = AckSample {
            pkts_acked: 1,
            ..Default::default()
        };
        c.pkts_acked(&mut tp, &one);
        assert_eq!(c.delayed_ack, 48);
        // It divides cnt: at W_max 100, cwnd 79, cnt = 15 -> 15 * 16 / 48 = 5.
        c.ssthresh(&tp);
        c.update(0, 79);
        assert_eq!(c.cnt, 5);
    }

    #[test]
    fn without_a_previous_maximum_cnt_is_capped_at_20() {
        // W_max = 0, delayed_ack 32: c = 20 -> 20 < 0 + 48: cnt = 60 / 20 = 3 -> 48 / 32 = 1.
        // c = 400 -> 400 / 16 = 25, capped at 20 -> 320 / 32 = 10.
        let mut c = default_bic();
        c.update(0, 20);
        assert_eq!(c.cnt, 1);
        c.update(100, 400);
        assert_eq!(c.cnt, 10);
    }

    #[test]
    fn a_timeout_resets_the_state() {
        let mut c = default_bic();
        let mut tp = CcState::new(100, MSS);
        c.ssthresh(&tp);
        c.delayed_ack = 48;
        c.set_state(&mut tp, CaState::Loss);
        assert_eq!((c.last_max_cwnd, c.delayed_ack), (0, 32));
    }

    #[test]
    fn initial_ssthresh_is_applied_at_init() {
        let h = harness(bic(&[("initial_ssthresh", 100.0)]), 10, u32::MAX);
        assert_eq!(h.tp.ssthresh, 100);
        let h = harness(bic(&[]), 10, u32::MAX);
        assert_eq!(h.tp.ssthresh, u32::MAX);
    }

    #[test]
    fn make_checks_parameters() {
        let p = |kv: &[(&str, f64)]| -> CcParams {
            kv.iter().map(|(k, v)| (k.to_string(), *v)).collect()
        };
        assert!((INFO.make)(&p(&[])).is_ok());
        let e = (INFO.make)(&p(&[("smax", 32.0)])).err().unwrap();
        assert!(e.contains("smax"), "{e}");
        assert!((INFO.make)(&p(&[("max_increment", 0.0)])).is_err());
        assert!((INFO.make)(&p(&[("beta", 1024.0)])).is_err());
        assert!((INFO.make)(&p(&[("low_window", 1.5)])).is_err());
        assert!((INFO.make)(&p(&[("hz", 300.0)])).is_err());
        for (name, default, _) in INFO.params {
            let v: f64 = default.parse().unwrap();
            assert!((INFO.make)(&p(&[(name, v)])).is_ok(), "{name}");
        }
    }
}
