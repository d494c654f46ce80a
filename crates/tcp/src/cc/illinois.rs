//! TCP Illinois (Liu, Başar & Srikant, "TCP-Illinois: a loss- and delay-based
//! congestion control algorithm for high-speed networks", Performance
//! Evaluation 65(6-7), 2008) as Linux net/ipv4/tcp_illinois.c does it: loss
//! decides when the window falls, queueing delay how fast it grows and how
//! far it falls.
//!
//! Once per RTT (the first ACK beyond the `snd_nxt` of the previous update),
//! from that RTT's mean sample `Ta`, the smallest sample ever `Tmin` and the
//! largest `Tmax` (µs): `da = Ta - Tmin`, `dm = Tmax - Tmin`, and
//!
//! ```text
//! alpha = amax = 10                    da <= d1 = dm/100 (after theta = 5 such RTTs once above)
//!       = k1 / (k2 + da)               above: from 10 at d1 down to amin = 0.3 at dm
//! beta  = bmin = 1/8                   da <= d2 = dm/10
//!       = bmax = 1/2                   da >= d3 = 8 dm/10
//!       = linear between               (bmin d3 - bmax d2 + (bmax - bmin) da) / (d3 - d2)
//! below win_thresh = 15 segments:      alpha = 1, beta = 1/2 (Reno)
//! per ACK in avoidance:                cwnd += alpha / cwnd  (alpha in 1/128)
//! on loss:                             ssthresh = cwnd - beta cwnd  (beta in 1/64)
//! ```
//!
//! Linux's fixed point: alpha in 1/128 (amin = 38/128, 0.297), beta in 1/64
//! (bmin 8, bmax 32), integer divisions throughout, RTT samples capped at
//! U32_MAX / amax = 3.36 s. In avoidance the segment count of the ACK (from
//! `pkts_acked`) joins `snd_cwnd_cnt`, and the window grows by
//! `(cnt * alpha >> 7) / cwnd` once that quotient reaches one. Slow start is
//! Linux's `tcp_slow_start`. A timeout (state Loss) resets alpha and beta to
//! Reno's and forgets the delay history of the round; `Tmax` is never aged
//! (Linux's "TODO: age max_rtt?").
//!
//! Followed: Linux tcp_illinois.c (6.x, the `ack_sample` interface), module
//! parameters `win_thresh` (15) and `theta` (5). tcplab's sequence numbers are
//! 64-bit, so Linux's `after()` is a plain comparison. No deviations.

use super::{
    int_params, slow_start, AckSample, CaState, CcInfo, CcParams, CcState, CongestionControl,
};

const ALPHA_SHIFT: u32 = 7;
const ALPHA_SCALE: u32 = 1 << ALPHA_SHIFT;
/// 0.3 in 1/128 (38: Linux's integer `(3 * 128) / 10`).
pub const ALPHA_MIN: u32 = (3 * ALPHA_SCALE) / 10;
/// 10 in 1/128.
pub const ALPHA_MAX: u32 = 10 * ALPHA_SCALE;
const ALPHA_BASE: u32 = ALPHA_SCALE;
/// RTT samples are capped here (µs) so that `dm * ALPHA_MAX` fits 32 bits.
const RTT_MAX: u32 = u32::MAX / ALPHA_MAX;
const BETA_SHIFT: u32 = 6;
const BETA_SCALE: u32 = 1 << BETA_SHIFT;
/// 1/8 in 1/64.
pub const BETA_MIN: u32 = BETA_SCALE / 8;
/// 1/2 in 1/64.
pub const BETA_MAX: u32 = BETA_SCALE / 2;
const BETA_BASE: u32 = BETA_MAX;

/// TCP Illinois.
pub struct Illinois {
    win_thresh: u32,
    theta: u32,
    /// Sum and count of this RTT's samples (µs).
    sum_rtt: u64,
    cnt_rtt: u16,
    base_rtt: u32,
    max_rtt: u32,
    /// The update comes with the first ACK beyond this.
    end_seq: u64,
    alpha: u32,
    beta: u32,
    /// Segments the current ACK acknowledged (`pkts_acked`), then 1.
    acked: u16,
    rtt_above: bool,
    rtt_low: u8,
}

impl Illinois {
    /// Illinois with Linux's module parameters `win_thresh` and `theta`.
    pub fn new(win_thresh: u32, theta: u32) -> Self {
        Illinois {
            win_thresh,
            theta,
            sum_rtt: 0,
            cnt_rtt: 0,
            base_rtt: 0x7fff_ffff,
            max_rtt: 0,
            end_seq: 0,
            alpha: ALPHA_MAX,
            beta: BETA_BASE,
            acked: 0,
            rtt_above: false,
            rtt_low: 0,
        }
    }

    fn rtt_reset(&mut self, tp: &CcState) {
        self.end_seq = tp.snd_nxt;
        self.cnt_rtt = 0;
        self.sum_rtt = 0;
    }

    /// `alpha(ca, da, dm)`.
    fn alpha_for(&mut self, da: u32, dm: u32) -> u32 {
        let d1 = dm / 100;
        if da <= d1 {
            // Never out of the low-delay zone: the largest increase; after
            // it, theta low RTTs before it comes back.
            if !self.rtt_above {
                return ALPHA_MAX;
            }
            self.rtt_low = self.rtt_low.wrapping_add(1);
            if (self.rtt_low as u32) < self.theta {
                return self.alpha;
            }
            self.rtt_low = 0;
            self.rtt_above = false;
            return ALPHA_MAX;
        }
        self.rtt_above = true;
        // alpha = k1 / (k2 + da): amax at d1, amin at dm.
        let (dm, da) = (dm - d1, da - d1);
        dm.wrapping_mul(ALPHA_MAX) / (dm + da.wrapping_mul(ALPHA_MAX - ALPHA_MIN) / ALPHA_MIN)
    }

    /// `update_params`, once per RTT.
    fn update(&mut self, tp: &CcState) {
        if tp.cwnd < self.win_thresh {
            self.alpha = ALPHA_BASE;
            self.beta = BETA_BASE;
        } else if self.cnt_rtt > 0 {
            let dm = self.max_rtt.wrapping_sub(self.base_rtt);
            let da = ((self.sum_rtt / self.cnt_rtt as u64) as u32).wrapping_sub(self.base_rtt);
            self.alpha = self.alpha_for(da, dm);
            self.beta = beta_for(da, dm);
        }
        self.rtt_reset(tp);
    }
}

/// `beta(da, dm)`: 1/8 below a tenth of the largest queueing delay, 1/2
/// above eight tenths, linear between.
fn beta_for(da: u32, dm: u32) -> u32 {
    let d2 = dm / 10;
    if da <= d2 {
        return BETA_MIN;
    }
    let d3 = (8 * dm) / 10;
    if da >= d3 || d3 <= d2 {
        return BETA_MAX;
    }
    (BETA_MIN * d3)
        .wrapping_sub(BETA_MAX * d2)
        .wrapping_add((BETA_MAX - BETA_MIN) * da)
        / (d3 - d2)
}

impl CongestionControl for Illinois {
    fn name(&self) -> &'static str {
        "illinois"
    }

    fn init(&mut self, tp: &mut CcState) {
        let (w, t) = (self.win_thresh, self.theta);
        *self = Illinois::new(w, t);
        self.rtt_reset(tp);
    }

    fn pkts_acked(&mut self, _tp: &mut CcState, s: &AckSample) {
        self.acked = s.pkts_acked as u16;
        let Some(rtt) = s.rtt else { return };
        let rtt_us = (rtt.0 / 1000).min(RTT_MAX as u64) as u32;
        self.base_rtt = self.base_rtt.min(rtt_us);
        self.max_rtt = self.max_rtt.max(rtt_us);
        self.cnt_rtt = self.cnt_rtt.wrapping_add(1);
        self.sum_rtt += rtt_us as u64;
    }

    fn set_state(&mut self, tp: &mut CcState, new: CaState) {
        if new == CaState::Loss {
            self.alpha = ALPHA_BASE;
            self.beta = BETA_BASE;
            self.rtt_low = 0;
            self.rtt_above = false;
            self.rtt_reset(tp);
        }
    }

    fn cong_avoid(&mut self, tp: &mut CcState, acked: u32) {
        if tp.snd_una > self.end_seq {
            self.update(tp);
        }
        if !tp.is_cwnd_limited {
            return;
        }
        if tp.in_slow_start() {
            slow_start(tp, acked);
        } else {
            // cwnd += alpha / cwnd per segment, in whole segments.
            tp.cwnd_cnt += self.acked as u32;
            self.acked = 1;
            let delta = tp.cwnd_cnt.wrapping_mul(self.alpha) >> ALPHA_SHIFT;
            if delta >= tp.cwnd {
                tp.cwnd = (tp.cwnd + delta / tp.cwnd).min(tp.cwnd_clamp);
                tp.cwnd_cnt = 0;
            }
        }
    }

    fn ssthresh(&mut self, tp: &CcState) -> u32 {
        // cwnd (1 - beta).
        (tp.cwnd - ((tp.cwnd * self.beta) >> BETA_SHIFT)).max(2)
    }
}

fn make(p: &CcParams) -> Result<Box<dyn CongestionControl>, String> {
    let [win_thresh, theta] = int_params(
        "illinois",
        p,
        [("win_thresh", 15, 0, 255), ("theta", 5, 0, 255)],
    )?;
    Ok(Box::new(Illinois::new(win_thresh, theta)))
}

/// Registry entry.
pub const INFO: CcInfo = CcInfo {
    name: "illinois",
    description: "Illinois: per-ACK increase alpha/cwnd with alpha from 10 down to 0.3 and loss decrease beta from 1/8 up to 1/2 as the RTT's mean queueing delay grows",
    source: "Liu, Basar & Srikant 2008 (Performance Evaluation 65(6-7)); Linux net/ipv4/tcp_illinois.c",
    params: &[
        ("win_thresh", "15", "below this window (segments) alpha 1 and beta 1/2, as Reno"),
        ("theta", "5", "low-delay RTTs before alpha returns to its maximum"),
    ],
    make,
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::harness::Harness;
    use tcplab_engine::SimTime;

    fn illinois(cwnd: u32, ssthresh: u32) -> Harness {
        Harness::with(Box::new(Illinois::new(15, 5)), cwnd, ssthresh)
    }

    fn ms(v: u64) -> SimTime {
        SimTime::from_millis(v)
    }

    #[test]
    fn alpha_and_beta_follow_the_delay_curves() {
        // dm = 100 ms, da = 50 ms: d1 = 1000 us; alpha = 99000 * 1280 /
        // (99000 + 49000 * 1242 / 38) = 126,720,000 / (99000 + 1,601,526)
        // = 74 (0.58). beta: d2 = 10 ms, d3 = 80 ms, (8 * 80000 - 32 *
        // 10000 + 24 * 50000) / 70000 = 1,520,000 / 70000 = 21 (0.33).
        let mut c = Illinois::new(15, 5);
        assert_eq!(c.alpha_for(50_000, 100_000), 74);
        assert_eq!(beta_for(50_000, 100_000), 21);
        // At the ends: da = dm gives amin exactly (dm' * 1280 / (dm' +
        // dm' * 1242 / 38) = 1280 / 33.68 = 38); beta 1/2 from 0.8 dm,
        // 1/8 up to 0.1 dm.
        assert_eq!(c.alpha_for(100_000, 100_000), ALPHA_MIN);
        assert_eq!(beta_for(80_000, 100_000), BETA_MAX);
        assert_eq!(beta_for(10_000, 100_000), BETA_MIN);
        // Back in the low zone (da <= d1) after being above: alpha stays
        // until theta = 5 such RTTs, then jumps to amax.
        c.alpha = 74;
        for _ in 0..4 {
            assert_eq!(c.alpha_for(500, 100_000), 74);
        }
        assert_eq!(c.alpha_for(500, 100_000), ALPHA_MAX);
    }

    #[test]
    fn small_windows_are_reno_after_the_first_round() {
        // The first round grows at init's alpha (amax, 10): cwnd 5 -> 7
        // (10 / 5 = 2), then +1 per ACK to 11 after 5 ACKs. The sixth ACK
        // passes the round's end; at cwnd 11 < win_thresh the update sets
        // alpha 1, beta 1/2: one segment per 11 acknowledged (the sixth to
        // the sixteenth ACK), and a loss halves: 12 - 6 = 6.
        let mut h = illinois(5, 2);
        for _ in 0..5 {
            h.ack(1, ms(100));
        }
        assert_eq!((h.tp.cwnd, h.tp.cwnd_cnt), (11, 0));
        for _ in 0..10 {
            h.ack(1, ms(100));
        }
        assert_eq!((h.tp.cwnd, h.tp.cwnd_cnt), (11, 10));
        h.ack(1, ms(100));
        assert_eq!((h.tp.cwnd, h.tp.cwnd_cnt), (12, 0));
        assert_eq!(h.cc.ssthresh(&h.tp), 6);
    }

    #[test]
    fn a_large_window_with_no_queueing_grows_about_ten_per_rtt_and_falls_an_eighth() {
        // cwnd 100, every sample 100 ms. init: alpha = amax (10), and the
        // round ends at the snd_nxt of init, one window ahead: the first
        // 100 ACKs grow at alpha 10, one segment per ceil(cwnd / 10)
        // segments: 10 for 100 -> 101, then 11 each up to 109 (10 + 8 * 11
        // = 98), 2 counted towards the next.
        let mut h = illinois(100, 50);
        for _ in 0..100 {
            h.ack(1, ms(100));
        }
        assert_eq!((h.tp.cwnd, h.tp.cwnd_cnt), (109, 2));
        // ACK 101 passes the round's end: the update finds da = dm = 0, so
        // alpha stays amax and beta is bmin (1/8): a loss keeps 109 - (109 *
        // 8 >> 6) = 109 - 13 = 96.
        h.ack(1, ms(100));
        assert_eq!((h.tp.cwnd, h.tp.cwnd_cnt), (109, 3));
        assert_eq!(h.cc.ssthresh(&h.tp), 96);
    }

    #[test]
    fn growth_per_ack_is_alpha_over_cwnd_in_whole_segments() {
        // alpha 74/128 at cwnd 100: delta = cnt * 74 >> 7 reaches 100 at
        // cnt = 173 (173 * 74 = 12802, >> 7 = 100): +1 after 173 segments.
        let mut tp = CcState::new(100, 1448);
        tp.ssthresh = 50;
        tp.snd_nxt = u64::MAX; // no update
        let mut c = Illinois::new(15, 5);
        c.end_seq = u64::MAX;
        c.alpha = 74;
        for _ in 0..172 {
            c.acked = 1;
            c.cong_avoid(&mut tp, 1);
        }
        assert_eq!((tp.cwnd, tp.cwnd_cnt), (100, 172));
        c.acked = 1;
        c.cong_avoid(&mut tp, 1);
        assert_eq!((tp.cwnd, tp.cwnd_cnt), (101, 0));
        // A stretch ACK counts its segments (pkts_acked), then 1 for a
        // second call without a sample.
        c.acked = 200;
        c.cong_avoid(&mut tp, 200);
        // 200 * 74 >> 7 = 115 >= 101: +115 / 101 = 1.
        assert_eq!((tp.cwnd, tp.cwnd_cnt), (102, 0));
        assert_eq!(c.acked, 1);
    }

    #[test]
    fn a_timeout_resets_to_reno_and_forgets_the_round() {
        let mut h = illinois(100, 50);
        h.cc.set_state(&mut h.tp, CaState::Loss);
        // beta 1/2 again: 100 - 50 = 50.
        assert_eq!(h.cc.ssthresh(&h.tp), 50);
    }

    #[test]
    fn make_takes_the_module_parameters() {
        let mut p = CcParams::new();
        p.insert("win_thresh".into(), 30.0);
        p.insert("theta".into(), 3.0);
        assert!((INFO.make)(&p).is_ok());
        p.insert("theta".into(), 2.5);
        assert!((INFO.make)(&p).err().unwrap().contains("theta"));
        let mut p = CcParams::new();
        p.insert("alpha".into(), 1.0);
        assert!((INFO.make)(&p).err().unwrap().contains("\"alpha\""));
    }
}
