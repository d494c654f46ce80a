//! H-TCP (Leith & Shorten, "H-TCP: TCP for high-speed and long-distance
//! networks", PFLDnet 2004) as Linux net/ipv4/tcp_htcp.c does it. The increase
//! grows with the time Δ since the last congestion event, the decrease adapts to
//! the queueing delay:
//!
//! ```text
//! α(Δ) = 1                                  Δ <= Δ_L = 1 s
//!      = 1 + 10 (Δ - Δ_L) + ((Δ - Δ_L)/2)²   Δ >  Δ_L
//! α   ← α · RTT_min / 0.1 s                  (RTT scaling, bounded to [0.1, 2])
//! β   = RTT_min / RTT_max                    bounded to [0.5, 0.8]
//! α   ← 2 (1 - β) α                          (keeps the mean throughput of Reno)
//! cwnd += α / cwnd per ACK; on loss ssthresh = β · cwnd
//! ```
//!
//! Followed: Linux tcp_htcp.c (v6.x), with its fixed point and its clock:
//! α and β are in 1/128 (`ALPHA_BASE` = 128, `BETA_MIN` = 64, `BETA_MAX` = 102);
//! times are jiffies of `HZ` = 1000 (milliseconds; RTT samples rounded up as
//! `usecs_to_jiffies` does). `htcp_alpha_update` computes the integer
//! `factor = 1 + (10 d + (d/2)²/HZ)/HZ`, d = Δ - 1 s in jiffies (so α(2 s) is
//! 11, not the paper's 11.25), multiplies it by 8/scale with
//! `scale = (HZ<<3)/(10 minRTT)` clamped to [4, 80] (the RTT_min/0.1 s factor
//! bounded to [0.1, 2], in integers), and sets `alpha = 2 · factor · (128 - beta)`.
//! `htcp_beta_update` sets β = minRTT/maxRTT clamped, but only from the second
//! congestion event on (`modeswitch`), only when minRTT > 10 ms, and — with
//! `use_bandwidth_switch` — falls back to 0.5 when the achieved throughput
//! `maxB` moved by more than 20 % between two congestion events
//! (`between(5 maxB, 4 old_maxB, 6 old_maxB)`). `measure_rtt` tracks minRTT and
//! a maxRTT that only grows in the Open state and by at most 20 ms per sample;
//! each congestion event fades maxRTT 5 % toward minRTT.
//! `measure_achieved_throughput` samples packets per second about once per RTT;
//! within 3 minRTTs after a congestion event the sample replaces minB/maxB,
//! later it is averaged 3:1 into Bi and maxB keeps the largest. Δ counts from
//! the end of the last congestion event (`htcp_state` stamps `last_cong` when
//! the state returns to Open) and is undone with the reduction
//! (`htcp_cwnd_undo`).
//!
//! As in Linux, α is recomputed only when the window grows (and at a loss), so
//! the first increment after a long quiet period still uses the old α. An ACK
//! adds the segments it acknowledges to `cwnd_cnt` (Open state; 1 otherwise)
//! until `(cnt·α)>>7 >= cwnd`; the ACK that then adds the segment is not
//! counted, so with one segment per ACK an increment costs ceil(cwnd·128/α) + 1
//! ACKs and the growth per RTT is below α (the tests work it out).
//!
//! Deviations from Linux:
//! - `undo_last_cong` is an `Option` where Linux uses 0 as "none" (a jiffies
//!   value of exactly 0 would be lost in Linux);
//! - `pkts_acked` is a u32 (Linux u16); the CWR state does not exist here.
//!
//! Kept from Linux on purpose: u32 wrap-around. With HZ = 1000, (d/2)² wraps
//! after Δ ≈ 132 s without a loss, which makes α fall back to a smaller value,
//! and `cwnd_cnt · alpha` can wrap at very large α; the first throughput
//! sample is measured from time 0 (Linux's `lasttime` starts at 0 after
//! `memset`).
//!
//! Parameters (Linux module parameters): `use_rtt_scaling` (default 1),
//! `use_bandwidth_switch` (default 1).

use super::{slow_start, AckSample, CaState, CcInfo, CcParams, CcState, CongestionControl};
use tcplab_engine::SimTime;

/// Jiffies per second (Linux `CONFIG_HZ`): H-TCP's clock and its integer
/// arithmetic are in jiffies.
const HZ: u32 = 1000;
/// α = 1.0 in 1/128.
const ALPHA_BASE: u32 = 1 << 7;
/// β = 0.5 in 1/128.
const BETA_MIN: u32 = 1 << 6;
/// β = 0.8 in 1/128 (102/128 = 0.797).
const BETA_MAX: u32 = 102;

/// Linux `jiffies` (u32, wrapping) at simulated time `t`.
fn jiffies(t: SimTime) -> u32 {
    (t.0 / (1_000_000_000 / HZ as u64)) as u32
}

/// Linux `usecs_to_jiffies`: rounded up.
fn usecs_to_jiffies(us: u64) -> u32 {
    us.div_ceil(1_000_000 / HZ as u64) as u32
}

/// Linux `msecs_to_jiffies`.
const fn msecs_to_jiffies(ms: u32) -> u32 {
    ms * HZ / 1000
}

/// Linux `between(seq1, seq2, seq3)`: seq2 <= seq1 <= seq3 in u32 sequence space.
fn between(seq1: u32, seq2: u32, seq3: u32) -> bool {
    seq3.wrapping_sub(seq2) >= seq1.wrapping_sub(seq2)
}

/// H-TCP.
pub struct Htcp {
    use_rtt_scaling: bool,
    use_bandwidth_switch: bool,
    /// Increase per RTT, fixed point << 7.
    alpha: u32,
    /// Decrease factor, fixed point << 7 (u8 in Linux).
    beta: u32,
    /// Adaptive β only after a first congestion event.
    modeswitch: bool,
    /// Segments credited to `cwnd_cnt` by the next congestion-avoidance ACK.
    pkts_acked: u32,
    packetcount: u32,
    /// Jiffies.
    min_rtt: u32,
    /// Jiffies.
    max_rtt: u32,
    /// Jiffies at the end of the last congestion event.
    last_cong: u32,
    undo_last_cong: Option<u32>,
    undo_max_rtt: u32,
    undo_old_max_b: u32,
    /// Achieved throughput, packets per second.
    min_b: u32,
    max_b: u32,
    old_max_b: u32,
    bi: u32,
    /// Jiffies of the last throughput sample.
    lasttime: u32,
}

impl Htcp {
    /// A fresh controller with Linux's module parameters.
    pub fn new(use_rtt_scaling: bool, use_bandwidth_switch: bool) -> Self {
        Htcp {
            use_rtt_scaling,
            use_bandwidth_switch,
            alpha: ALPHA_BASE,
            beta: BETA_MIN,
            modeswitch: false,
            pkts_acked: 1,
            packetcount: 0,
            min_rtt: 0,
            max_rtt: 0,
            last_cong: 0,
            undo_last_cong: None,
            undo_max_rtt: 0,
            undo_old_max_b: 0,
            min_b: 0,
            max_b: 0,
            old_max_b: 0,
            bi: 0,
            lasttime: 0,
        }
    }

    /// Linux `htcp_cong_time`: jiffies since the last congestion event.
    fn cong_time(&self, now: u32) -> u32 {
        now.wrapping_sub(self.last_cong)
    }

    /// Linux `htcp_ccount`: minimum RTTs since the last congestion event.
    fn ccount(&self, now: u32) -> u32 {
        self.cong_time(now) / self.min_rtt
    }

    /// Linux `htcp_reset`: a congestion event starts.
    fn reset(&mut self, now: u32) {
        self.undo_last_cong = Some(self.last_cong);
        self.undo_max_rtt = self.max_rtt;
        self.undo_old_max_b = self.old_max_b;
        self.last_cong = now;
    }

    /// Linux `measure_rtt` (its argument is the ACK's RTT sample, in jiffies).
    fn measure_rtt(&mut self, tp: &CcState, srtt: u32) {
        if self.min_rtt > srtt || self.min_rtt == 0 {
            self.min_rtt = srtt;
        }
        if tp.ca_state == CaState::Open {
            if self.max_rtt < self.min_rtt {
                self.max_rtt = self.min_rtt;
            }
            // Grow maxRTT by at most 20 ms per sample: ignores isolated spikes.
            if self.max_rtt < srtt && srtt <= self.max_rtt.wrapping_add(msecs_to_jiffies(20)) {
                self.max_rtt = srtt;
            }
        }
    }

    /// Linux `measure_achieved_throughput` (the `pkts_acked` hook).
    fn measure_achieved_throughput(&mut self, tp: &CcState, s: &AckSample) {
        let now = jiffies(tp.now);
        if tp.ca_state == CaState::Open {
            self.pkts_acked = s.pkts_acked;
        }
        if let Some(rtt) = s.rtt {
            let us = rtt.as_micros();
            if us > 0 {
                self.measure_rtt(tp, usecs_to_jiffies(us));
            }
        }
        if !self.use_bandwidth_switch {
            return;
        }
        // Achieved throughput, in Open and Disorder only.
        if !matches!(tp.ca_state, CaState::Open | CaState::Disorder) {
            self.packetcount = 0;
            self.lasttime = now;
            return;
        }
        self.packetcount = self.packetcount.wrapping_add(s.pkts_acked);
        let a = match self.alpha >> 7 {
            0 => 1,
            a => a,
        };
        let elapsed = now.wrapping_sub(self.lasttime);
        if self.packetcount >= tp.cwnd.wrapping_sub(a)
            && elapsed >= self.min_rtt
            && self.min_rtt > 0
        {
            let cur_bi = self.packetcount.wrapping_mul(HZ) / elapsed;
            if self.ccount(now) <= 3 {
                // Just after a backoff.
                self.min_b = cur_bi;
                self.max_b = cur_bi;
                self.bi = cur_bi;
            } else {
                self.bi = self.bi.wrapping_mul(3).wrapping_add(cur_bi) / 4;
                if self.bi > self.max_b {
                    self.max_b = self.bi;
                }
                if self.min_b > self.max_b {
                    self.min_b = self.max_b;
                }
            }
            self.packetcount = 0;
            self.lasttime = now;
        }
    }

    /// Linux `htcp_beta_update`: β = minRTT/maxRTT in [0.5, 0.8], or 0.5.
    fn beta_update(&mut self, min_rtt: u32, max_rtt: u32) {
        if self.use_bandwidth_switch {
            let max_b = self.max_b;
            let old_max_b = self.old_max_b;
            self.old_max_b = self.max_b;
            // Throughput moved by more than 20 %: 0.8 old <= maxB <= 1.2 old fails.
            if !between(
                max_b.wrapping_mul(5),
                old_max_b.wrapping_mul(4),
                old_max_b.wrapping_mul(6),
            ) {
                self.beta = BETA_MIN;
                self.modeswitch = false;
                return;
            }
        }
        if self.modeswitch && min_rtt > msecs_to_jiffies(10) && max_rtt != 0 {
            // β = RTT_min / RTT_max (u8 in Linux).
            let beta = ((min_rtt << 7) / max_rtt) as u8 as u32;
            self.beta = beta.clamp(BETA_MIN, BETA_MAX);
        } else {
            self.beta = BETA_MIN;
            self.modeswitch = true;
        }
    }

    /// Linux `htcp_alpha_update` at jiffies `now`.
    fn alpha_update(&mut self, now: u32) {
        let min_rtt = self.min_rtt;
        let mut factor: u32 = 1;
        let mut diff = self.cong_time(now);
        if diff > HZ {
            // α(Δ) = 1 + 10 (Δ - Δ_L) + ((Δ - Δ_L)/2)², Δ_L = 1 s, in integer jiffies.
            diff -= HZ;
            let half = diff / 2;
            factor = 1 + diff
                .wrapping_mul(10)
                .wrapping_add(half.wrapping_mul(half) / HZ)
                / HZ;
        }
        if self.use_rtt_scaling && min_rtt != 0 {
            // α · RTT_min / 0.1 s, the ratio clamped to [0.5, 10] << 3, i.e. the
            // multiplier 8/scale to [0.1, 2].
            let scale = ((HZ << 3) / min_rtt.wrapping_mul(10).max(1)).clamp(1 << 2, 10 << 3);
            factor = (factor << 3) / scale;
            if factor == 0 {
                factor = 1;
            }
        }
        // α ← 2 (1 - β) α.
        self.alpha = factor.wrapping_mul(2).wrapping_mul((1 << 7) - self.beta);
        if self.alpha == 0 {
            self.alpha = ALPHA_BASE;
        }
    }

    /// Linux `htcp_param_update`, at a congestion event.
    fn param_update(&mut self, now: u32) {
        let min_rtt = self.min_rtt;
        let max_rtt = self.max_rtt;
        self.beta_update(min_rtt, max_rtt);
        self.alpha_update(now);
        // Slowly fading memory of maxRTT, for route changes.
        if min_rtt > 0 && max_rtt > min_rtt {
            self.max_rtt = min_rtt + (max_rtt - min_rtt).wrapping_mul(95) / 100;
        }
    }
}

impl CongestionControl for Htcp {
    fn name(&self) -> &'static str {
        "htcp"
    }

    fn init(&mut self, tp: &mut CcState) {
        *self = Htcp::new(self.use_rtt_scaling, self.use_bandwidth_switch);
        self.last_cong = jiffies(tp.now);
    }

    fn ssthresh(&mut self, tp: &CcState) -> u32 {
        // Linux `htcp_recalc_ssthresh`: ssthresh = β · cwnd.
        self.param_update(jiffies(tp.now));
        ((tp.cwnd.wrapping_mul(self.beta)) >> 7).max(2)
    }

    fn cong_avoid(&mut self, tp: &mut CcState, acked: u32) {
        if !tp.is_cwnd_limited {
            return;
        }
        if tp.in_slow_start() {
            // Linux ignores what slow start leaves over.
            slow_start(tp, acked);
            return;
        }
        // cwnd += α/cwnd per segment: one segment once cnt·α/128 >= cwnd.
        if (tp.cwnd_cnt.wrapping_mul(self.alpha)) >> 7 >= tp.cwnd {
            if tp.cwnd < tp.cwnd_clamp {
                tp.cwnd += 1;
            }
            tp.cwnd_cnt = 0;
            self.alpha_update(jiffies(tp.now));
        } else {
            tp.cwnd_cnt = tp.cwnd_cnt.wrapping_add(self.pkts_acked);
        }
        self.pkts_acked = 1;
    }

    fn pkts_acked(&mut self, tp: &mut CcState, s: &AckSample) {
        self.measure_achieved_throughput(tp, s);
    }

    fn set_state(&mut self, tp: &mut CcState, new: CaState) {
        let now = jiffies(tp.now);
        match new {
            CaState::Open => {
                // The congestion event ends: Δ counts from here.
                if self.undo_last_cong.take().is_some() {
                    self.last_cong = now;
                }
            }
            CaState::Cwr | CaState::Recovery | CaState::Loss => self.reset(now),
            CaState::Disorder => {}
        }
    }

    fn undo_cwnd(&mut self, tp: &CcState) -> u32 {
        if let Some(last_cong) = self.undo_last_cong.take() {
            self.last_cong = last_cong;
            self.max_rtt = self.undo_max_rtt;
            self.old_max_b = self.undo_old_max_b;
        }
        tp.cwnd.max(tp.prior_cwnd)
    }
}

fn flag(name: &str, v: f64) -> Result<bool, String> {
    if v == 0.0 {
        Ok(false)
    } else if v == 1.0 {
        Ok(true)
    } else {
        Err(format!("htcp: parameter {name} must be 0 or 1, got {v}"))
    }
}

fn make(p: &CcParams) -> Result<Box<dyn CongestionControl>, String> {
    let mut use_rtt_scaling = true;
    let mut use_bandwidth_switch = true;
    for (k, &v) in p {
        match k.as_str() {
            "use_rtt_scaling" => use_rtt_scaling = flag(k, v)?,
            "use_bandwidth_switch" => use_bandwidth_switch = flag(k, v)?,
            _ => {
                return Err(format!(
                    "controller htcp has no parameter {k:?} (it takes use_rtt_scaling, use_bandwidth_switch)"
                ))
            }
        }
    }
    Ok(Box::new(Htcp::new(use_rtt_scaling, use_bandwidth_switch)))
}

/// Registry entry.
pub const INFO: CcInfo = CcInfo {
    name: "htcp",
    description: "H-TCP: increase growing with the time since the last loss, backoff RTTmin/RTTmax in [0.5, 0.8]",
    source: "Leith & Shorten, PFLDnet 2004; Linux net/ipv4/tcp_htcp.c (HZ = 1000)",
    params: &[
        (
            "use_rtt_scaling",
            "1",
            "scale alpha by RTTmin/100 ms, bounded to [0.1, 2] (0 or 1)",
        ),
        (
            "use_bandwidth_switch",
            "1",
            "beta = 0.5 when throughput moved more than 20 % between losses (0 or 1)",
        ),
    ],
    make,
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::harness::Harness;

    const RTT: SimTime = SimTime::from_millis(100);
    const MS: SimTime = SimTime::from_millis(1);

    fn harness(cwnd: u32, ssthresh: u32, rtt_scaling: bool, bw_switch: bool) -> Harness {
        Harness::with(Box::new(Htcp::new(rtt_scaling, bw_switch)), cwnd, ssthresh)
    }

    /// `n` ACKs of one segment each, RTT sample 100 ms, without time passing.
    fn acks(h: &mut Harness, n: u32) {
        for _ in 0..n {
            h.ack(1, RTT);
        }
    }

    /// α (1/128) computed at Δ = `delta_ms` with minRTT `min_rtt_ms` and β = `beta`/128.
    /// HZ = 1000, so jiffies are milliseconds.
    fn alpha_at(delta_ms: u32, min_rtt_ms: u32, rtt_scaling: bool, beta: u32) -> u32 {
        let mut c = Htcp::new(rtt_scaling, true);
        c.last_cong = 10_000;
        c.min_rtt = min_rtt_ms;
        c.beta = beta;
        c.alpha_update(10_000 + delta_ms);
        c.alpha
    }

    #[test]
    fn alpha_of_delta_without_rtt_scaling() {
        // β = 0.5 (64): α = 2·factor·(128 - 64) = 128·factor, factor segments per RTT.
        // Δ = 0.5 s <= Δ_L = 1 s: 1.
        assert_eq!(alpha_at(500, 100, false, 64), 128);
        // Δ = 1 s: d = 1000 jiffies is not > HZ: 1.
        assert_eq!(alpha_at(1000, 100, false, 64), 128);
        // Δ = 2 s: d = 1000 past Δ_L: 1 + (10·1000 + (500·500)/1000)/1000
        // = 1 + 10250/1000 = 11.
        // Paper: 1 + 10·1 + (1/2)² = 11.25; Linux's integer factor drops the 0.25.
        assert_eq!(alpha_at(2000, 100, false, 64), 11 * 128);
        // Δ = 3 s: 1 + (20000 + 1000·1000/1000)/1000 = 22 (paper 1 + 20 + 1 = 22).
        assert_eq!(alpha_at(3000, 100, false, 64), 22 * 128);
        // Δ = 5 s: 1 + (40000 + 2000·2000/1000)/1000 = 45 (paper 1 + 40 + 4 = 45).
        assert_eq!(alpha_at(5000, 100, false, 64), 45 * 128);
    }

    #[test]
    fn alpha_of_delta_with_rtt_scaling() {
        // factor ← (factor·8)/scale, scale = (1000·8)/(10·minRTT) clamped to [4, 80].
        // minRTT 100 ms: scale 8, ×1.
        assert_eq!(alpha_at(500, 100, true, 64), 128);
        assert_eq!(alpha_at(2000, 100, true, 64), 11 * 128);
        assert_eq!(alpha_at(5000, 100, true, 64), 45 * 128);
        // minRTT 200 ms: scale 4, ×2: 1 -> 2, 11 -> 22, 45 -> 90.
        assert_eq!(alpha_at(500, 200, true, 64), 2 * 128);
        assert_eq!(alpha_at(2000, 200, true, 64), 22 * 128);
        assert_eq!(alpha_at(5000, 200, true, 64), 90 * 128);
        // minRTT 20 ms: scale 40, ×0.2: 8/40 = 0 -> 1 (never 0); 88/40 = 2 (paper
        // 11.25·0.2 = 2.25); 360/40 = 9 (paper 45·0.2 = 9).
        assert_eq!(alpha_at(500, 20, true, 64), 128);
        assert_eq!(alpha_at(2000, 20, true, 64), 2 * 128);
        assert_eq!(alpha_at(5000, 20, true, 64), 9 * 128);
        // minRTT 5 ms: scale 160 bounded to 80, ×0.1 (not 0.05): 360/80 = 4.
        assert_eq!(alpha_at(5000, 5, true, 64), 4 * 128);
        // minRTT 1 s: scale 8000/10000 = 0 bounded to 4, ×2 (not 10): 90.
        assert_eq!(alpha_at(5000, 1000, true, 64), 90 * 128);
        // No RTT sample yet (minRTT 0): no scaling.
        assert_eq!(alpha_at(5000, 0, true, 64), 45 * 128);
    }

    #[test]
    fn alpha_is_multiplied_by_two_times_one_minus_beta() {
        // β = 102/128 = 0.797, Δ = 5 s: 2·45·(128 - 102) = 2340 = 18.28 per RTT
        // (paper, β = 0.8: 2·0.2·45 = 18).
        assert_eq!(alpha_at(5000, 100, false, 102), 2340);
        // β = 91/128 = 0.711, Δ = 2 s: 2·11·37 = 814 = 6.36 per RTT.
        assert_eq!(alpha_at(2000, 100, false, 91), 814);
    }

    #[test]
    fn window_growth_per_rtt_follows_alpha_of_delta() {
        // cwnd 110 in congestion avoidance, RTT samples of 100 ms (RTT scaling ×1).
        let mut h = harness(110, 50, true, true);
        // Δ = 0.5 s, α = 1: a segment once cnt·128 >> 7 >= cwnd. 110 ACKs bring cnt to
        // 110, the 111th applies the increment (it is not counted itself): one per RTT.
        h.advance(SimTime::from_millis(500));
        acks(&mut h, 110);
        assert_eq!((h.tp.cwnd, h.tp.cwnd_cnt), (110, 110));
        acks(&mut h, 1);
        assert_eq!((h.tp.cwnd, h.tp.cwnd_cnt), (111, 0));
        // Δ = 2 s. α is recomputed only when the window grows, so it is still 1 for
        // 111 counted ACKs; the 112th adds a segment and sets α = 11 (1408).
        h.advance(SimTime::from_millis(1500));
        acks(&mut h, 112);
        assert_eq!((h.tp.cwnd, h.tp.cwnd_cnt), (112, 0));
        // cnt·1408 >> 7 = 11·cnt >= cwnd: cnt 11 for cwnd 112..121, i.e. 12 ACKs per
        // segment. One RTT of 112 ACKs: 9 segments in 108 ACKs, 4 counted: 121, cnt 4.
        // Paper: 2(1-β)α(2 s) = 11.25 per RTT; Linux's integer α is 11, and waiting
        // for ceil(cwnd/11) counted ACKs plus the applying one leaves 9.
        acks(&mut h, 112);
        assert_eq!((h.tp.cwnd, h.tp.cwnd_cnt), (121, 4));
        // Δ = 5 s: cnt 4 -> 11 takes 7 ACKs, the 8th adds a segment and sets α = 45.
        h.advance(SimTime::from_millis(3000));
        acks(&mut h, 8);
        assert_eq!((h.tp.cwnd, h.tp.cwnd_cnt), (122, 0));
        // 45·cnt >= cwnd: cnt 3 for cwnd 122..135 (4 ACKs each), 4 for 136..180
        // (5 each). 122 ACKs: 14 segments in 56, 13 in the next 65, 1 counted:
        // 149, cnt 1 — +27 in this RTT where the paper's α(5 s) is 45.
        acks(&mut h, 122);
        assert_eq!((h.tp.cwnd, h.tp.cwnd_cnt), (149, 1));
    }

    #[test]
    fn beta_is_min_over_max_rtt_from_the_second_loss() {
        // RTT samples 100, 120, 140 ms: minRTT 100, maxRTT climbs in steps of at most
        // 20 ms to 140; the 170 ms sample is a spike (> 140 + 20) and is ignored.
        let mut h = harness(100, 50, true, false);
        for ms in [100, 120, 140, 170] {
            h.advance(MS);
            h.ack(1, SimTime::from_millis(ms));
        }
        // First congestion event: β = 0.5 and adaptive mode armed.
        // ssthresh = 100·64 >> 7 = 50.
        h.loss();
        assert_eq!((h.tp.ssthresh, h.tp.cwnd), (50, 50));
        // maxRTT faded 5 % toward minRTT (100 + 40·95/100 = 138); a 140 ms sample
        // brings it back to 140.
        h.advance(MS);
        h.ack(1, SimTime::from_millis(140));
        // β = (100 << 7)/140 = 12800/140 = 91 (0.711; paper 100/140 = 0.714).
        // ssthresh = 50·91 >> 7 = 4550/128 = 35 (paper 50·0.714 = 35.7).
        h.loss();
        assert_eq!((h.tp.ssthresh, h.tp.cwnd), (35, 35));
    }

    #[test]
    fn beta_is_bounded_to_one_half_and_four_fifths() {
        // maxRTT 300 ms over minRTT 100 ms: 12800/300 = 42 -> 64 (0.5): 50·64 >> 7 = 25.
        let mut h = harness(100, 50, true, false);
        h.ack(1, RTT);
        h.loss();
        for ms in (120..=300).step_by(20) {
            h.ack(1, SimTime::from_millis(ms));
        }
        h.loss();
        assert_eq!(h.tp.cwnd, 25);
        // maxRTT 110 over 100: 12800/110 = 116 -> 102 (0.797): 50·102 >> 7 = 5100/128
        // = 39 (paper 0.8·50 = 40).
        let mut h = harness(100, 50, true, false);
        h.ack(1, RTT);
        h.loss();
        h.ack(1, SimTime::from_millis(110));
        h.loss();
        assert_eq!(h.tp.cwnd, 39);
        // minRTT 10 ms is not > 10 ms: β stays 0.5 (maxRTT 30 ms would give 0.33).
        let mut h = harness(100, 50, true, false);
        h.ack(1, SimTime::from_millis(10));
        h.loss();
        h.ack(1, SimTime::from_millis(30));
        h.loss();
        assert_eq!(h.tp.cwnd, 25);
    }

    /// cwnd 100 held (not cwnd-limited), minRTT = maxRTT = 100 ms. 1000 segments/s
    /// for 400 ms, loss, 1000/s for 100 ms, loss, then `per_10ms` segments every
    /// 10 ms for 100 ms and a third loss; the window after it.
    fn window_after_third_loss(per_10ms: u32) -> u32 {
        let mut h = harness(100, 50, true, true);
        h.tp.is_cwnd_limited = false;
        let deliver = |h: &mut Harness, n: u32, ms: u64| {
            for _ in 0..ms / 10 {
                h.advance(SimTime::from_millis(10));
                h.ack(n, RTT);
            }
        };
        // Samples when ≥ cwnd - 1 segments and ≥ minRTT elapsed: at 100, 200, 300,
        // 400 ms, 100 segments / 100 ms = 1000/s each; maxB = 1000.
        deliver(&mut h, 10, 400);
        // old maxB 0 -> 1000: more than 20 %: β 0.5, adaptive mode off. 100 -> 50.
        h.loss();
        // One sample at 500 ms (within 3 minRTTs of the loss: replaces maxB): 1000.
        deliver(&mut h, 10, 100);
        // 5·1000 within [4·1000, 6·1000]: adaptive mode armed, β still 0.5. 50 -> 25.
        h.loss();
        deliver(&mut h, per_10ms, 100);
        h.loss();
        h.tp.cwnd
    }

    #[test]
    fn bandwidth_switch_resets_beta_when_throughput_moves_more_than_20_percent() {
        // Stable (1000/s): β = min(12800/100, 102) = 102: 25·102 >> 7 = 2550/128 = 19.
        assert_eq!(window_after_third_loss(10), 19);
        // +10 % (1100/s: 5500 within [4000, 6000]) and the ±20 % edges (1200: 6000,
        // 800: 4000, inclusive): still adaptive, 19.
        assert_eq!(window_after_third_loss(11), 19);
        assert_eq!(window_after_third_loss(12), 19);
        assert_eq!(window_after_third_loss(8), 19);
        // +30 % (6500 > 6000) or -30 % (3500 < 4000): β = 0.5: 25·64 >> 7 = 12.
        assert_eq!(window_after_third_loss(13), 12);
        assert_eq!(window_after_third_loss(7), 12);
    }

    #[test]
    fn delta_counts_from_the_end_of_the_congestion_event_and_undo_restores_it() {
        let mut c = Htcp::new(false, false);
        let mut tp = CcState::new(100, 1448);
        c.init(&mut tp);
        // Recovery at 5 s, Open again at 6 s: Δ counts from 6 s (2 s later: α 11).
        tp.now = SimTime::from_secs(5);
        c.set_state(&mut tp, CaState::Recovery);
        tp.now = SimTime::from_secs(6);
        c.set_state(&mut tp, CaState::Open);
        c.alpha_update(8000);
        assert_eq!(c.alpha, 11 * 128);
        // Recovery at 9 s proves spurious: undo puts last_cong back at 6 s, so at 11 s
        // Δ = 5 s (α 45); the window is max(cwnd, prior_cwnd) (tcp_reno_undo_cwnd).
        tp.now = SimTime::from_secs(9);
        c.set_state(&mut tp, CaState::Recovery);
        tp.prior_cwnd = 100;
        tp.cwnd = 50;
        assert_eq!(c.undo_cwnd(&tp), 100);
        c.alpha_update(11_000);
        assert_eq!(c.alpha, 45 * 128);
    }

    #[test]
    fn make_takes_linux_module_parameters_and_rejects_others() {
        let mut p = CcParams::new();
        assert!((INFO.make)(&p).is_ok());
        p.insert("use_rtt_scaling".into(), 0.0);
        p.insert("use_bandwidth_switch".into(), 1.0);
        assert!((INFO.make)(&p).is_ok());
        p.insert("use_rtt_scaling".into(), 2.0);
        assert!((INFO.make)(&p).err().unwrap().contains("0 or 1"));
        let mut p = CcParams::new();
        p.insert("alpha".into(), 1.0);
        assert!((INFO.make)(&p).err().unwrap().contains("alpha"));
    }
}
