//! TCP Hybla (Caini & Firrincieli, "TCP Hybla: a TCP enhancement for
//! heterogeneous networks", International Journal of Satellite Communications
//! and Networking 22(5), 2004) as Linux net/ipv4/tcp_hybla.c does it: a
//! connection whose RTT is `rho` times a reference `rtt0` (25 ms) grows its
//! window as a connection of RTT `rtt0` would, so that long (satellite) paths
//! are not penalised:
//!
//! ```text
//! rho = max(srtt / rtt0, 1)                      (in 1/8: rho_3ls = max(8 srtt / rtt0, 8))
//! slow start, per ACK:            cwnd += 2^rho - 1
//! congestion avoidance, per ACK:  cwnd += rho^2 / cwnd
//! on loss:                        ssthresh as Reno
//! ```
//!
//! In Linux's fixed point, every increment is in 1/128 of a segment: slow
//! start adds `(1 << rho) * F[frac] - 128`, with `F` = 128 * 2^(k/8) for
//! k = 0..7 (the table 128, 139, 152, 165, 181, 197, 215, 234) and `frac` the
//! eighths of rho; avoidance adds `rho2_7ls / cwnd`, rho^2 in 1/128
//! (truncated: at rho = 1 and cwnd 100 that is 1/128 per ACK, one segment per
//! 128 ACKs, not per 100). Whole segments go to cwnd at once, the rest
//! accumulates in `snd_cwnd_cents`. Each ACK counts once, whatever it
//! acknowledges (Linux ignores `acked`). Slow start stops at ssthresh; the
//! window never exceeds `snd_cwnd_clamp`, which Hybla sets to 65535.
//!
//! `rho` is computed when the connection starts (`init`, which also sets
//! cwnd to the integer part of rho, replacing the initial window) and again
//! whenever the smoothed RTT falls below the lowest seen. Outside the Open
//! state (`set_state`) growth is Reno's.
//!
//! Followed: Linux tcp_hybla.c as of 6.x (srtt in microseconds `<< 3`, the
//! `min(rho, 16)` shift bound and the branch that adds a segment after
//! `cwnd` ACKs of zero increment, both from 2014). tcplab's `srtt` is in
//! nanoseconds: `srtt_us` is `srtt / 125` (eight times the microseconds).
//! Linux's u32 arithmetic is kept (rho^2 wraps beyond an srtt of about
//! 145 s). A connection whose first srtt is zero (no handshake sample, as
//! ns-2's one-way agents) keeps rho = 1, as Linux would. No deviations.

use super::{
    int_params, reno_cong_avoid, reno_ssthresh, CaState, CcInfo, CcParams, CcState,
    CongestionControl,
};

/// Linux module parameter `rtt0`: the reference RTT, milliseconds.
pub const RTT0_MS: u32 = 25;

/// 2^(k/8) in 1/128, k = 0..7 (Linux `hybla_fraction`).
const FRACTIONS: [u32; 8] = [128, 139, 152, 165, 181, 197, 215, 234];

/// TCP Hybla.
pub struct Hybla {
    rtt0_ms: u32,
    enabled: bool,
    /// Fractions of a segment not yet added, in 1/128 (`snd_cwnd_cents`).
    cents: u32,
    /// rho in eighths (`rho_3ls`); Linux also keeps rho and rho^2 in 1/128,
    /// which follow from it.
    rho_3ls: u32,
    /// Lowest srtt seen, in 1/8 µs (`minrtt_us`).
    min_srtt_us: u32,
}

impl Hybla {
    /// Hybla with reference RTT `rtt0_ms`.
    pub fn new(rtt0_ms: u32) -> Self {
        Hybla {
            rtt0_ms,
            enabled: true,
            cents: 0,
            rho_3ls: 0,
            min_srtt_us: 0,
        }
    }

    /// Linux's `srtt_us`: the smoothed RTT in 1/8 µs.
    fn srtt_us(tp: &CcState) -> u32 {
        (tp.srtt.0 / 125).min(u32::MAX as u64) as u32
    }

    /// `hybla_recalc_param`.
    fn recalc(&mut self, tp: &CcState) {
        self.rho_3ls = (Self::srtt_us(tp) / (self.rtt0_ms * 1000)).max(8);
    }

    /// The integer part of rho (`ca->rho`).
    fn rho(&self) -> u32 {
        self.rho_3ls >> 3
    }
}

impl CongestionControl for Hybla {
    fn name(&self) -> &'static str {
        "hybla"
    }

    fn init(&mut self, tp: &mut CcState) {
        self.cents = 0;
        self.enabled = true;
        tp.cwnd_clamp = 65535;
        self.recalc(tp);
        self.min_srtt_us = Self::srtt_us(tp);
        tp.cwnd = self.rho();
    }

    fn set_state(&mut self, _tp: &mut CcState, new: CaState) {
        self.enabled = new == CaState::Open;
    }

    fn ssthresh(&mut self, tp: &CcState) -> u32 {
        reno_ssthresh(tp)
    }

    fn cong_avoid(&mut self, tp: &mut CcState, acked: u32) {
        let srtt_us = Self::srtt_us(tp);
        if srtt_us < self.min_srtt_us {
            self.recalc(tp);
            self.min_srtt_us = srtt_us;
        }
        if !tp.is_cwnd_limited {
            return;
        }
        if !self.enabled {
            reno_cong_avoid(tp, acked);
            return;
        }
        // (Linux recomputes here when rho is 0; rho_3ls >= 8 makes rho >= 1
        // from init on.)
        let rho = self.rho();
        let frac = self.rho_3ls - (rho << 3);
        let slow_start = tp.in_slow_start();
        let increment = if slow_start {
            // 2^rho - 1 = 2^int(rho) * 2^frac(rho) - 1, in 1/128.
            (1u32 << rho.min(16)) * FRACTIONS[frac as usize] - 128
        } else {
            // rho^2 / cwnd, in 1/128 (`rho2_7ls`: rho^2 in 1/128 is
            // rho_3ls^2 * 2, in Linux's u32).
            let rho2_7ls = self.rho_3ls.wrapping_mul(self.rho_3ls) << 1;
            let inc = rho2_7ls / tp.cwnd.max(1);
            if inc < 128 {
                tp.cwnd_cnt += 1;
            }
            inc
        };
        let odd = increment % 128;
        tp.cwnd += increment >> 7;
        self.cents += odd;
        while self.cents >= 128 {
            tp.cwnd += 1;
            self.cents -= 128;
            tp.cwnd_cnt = 0;
        }
        // No increment at all for a window's worth of ACKs: one segment.
        if increment == 0 && odd == 0 && tp.cwnd_cnt >= tp.cwnd {
            tp.cwnd += 1;
            tp.cwnd_cnt = 0;
        }
        if slow_start {
            tp.cwnd = tp.cwnd.min(tp.ssthresh);
        }
        tp.cwnd = tp.cwnd.min(tp.cwnd_clamp);
    }
}

fn make(p: &CcParams) -> Result<Box<dyn CongestionControl>, String> {
    // Linux's rtt0_set: 1 to U32_MAX / USEC_PER_MSEC.
    let [rtt0] = int_params("hybla", p, [("rtt0", RTT0_MS, 1, u32::MAX / 1000)])?;
    Ok(Box::new(Hybla::new(rtt0)))
}

/// Registry entry.
pub const INFO: CcInfo = CcInfo {
    name: "hybla",
    description: "Hybla: grows as a connection of RTT rtt0 would (2^rho - 1 per ACK in slow start, rho^2/cwnd after), rho = srtt/rtt0",
    source: "Caini & Firrincieli 2004 (Int. J. Satellite Commun. Netw. 22(5)); Linux net/ipv4/tcp_hybla.c",
    params: &[("rtt0", "25", "reference RTT, milliseconds (Linux module parameter)")],
    make,
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::harness::Harness;
    use tcplab_engine::SimTime;

    /// A Hybla connection whose srtt was `srtt_ms` at its start, then at
    /// `cwnd` and `ssthresh` (init replaces the window: set it after).
    fn hybla(srtt_ms: u64, cwnd: u32, ssthresh: u32) -> Harness {
        let mut h = Harness::with(Box::new(Hybla::new(RTT0_MS)), 2, ssthresh);
        h.tp.srtt = SimTime::from_millis(srtt_ms);
        h.cc.init(&mut h.tp);
        h.tp.cwnd = cwnd;
        h
    }

    fn one_ack(h: &mut Harness) {
        h.cc.cong_avoid(&mut h.tp, 1);
    }

    #[test]
    fn init_sets_rho_from_srtt_and_the_window_to_rho() {
        // 600 ms (a GEO satellite): 8 * 600 / 25 = 192 eighths, rho = 24.
        // 100 ms: 32 eighths, rho 4. 30 ms: 9 eighths, rho 1. Below 25 ms,
        // and with no sample yet, rho is 1 (8 eighths at least).
        for (srtt, rho) in [(600, 24), (100, 4), (30, 1), (10, 1), (0, 1)] {
            let mut h = Harness::with(Box::new(Hybla::new(RTT0_MS)), 10, u32::MAX);
            h.tp.srtt = SimTime::from_millis(srtt);
            h.cc.init(&mut h.tp);
            assert_eq!(h.tp.cwnd, rho, "srtt {srtt} ms");
            assert_eq!(h.tp.cwnd_clamp, 65535);
        }
    }

    #[test]
    fn slow_start_adds_two_to_the_rho_minus_one_per_ack() {
        // rho = 4 exactly (100 ms): 2^4 - 1 = 15 segments per ACK, whatever
        // the ACK acknowledges: 4 -> 19 -> 34, then ssthresh 40 stops it.
        let mut h = hybla(100, 4, 40);
        one_ack(&mut h);
        assert_eq!(h.tp.cwnd, 19);
        h.cc.cong_avoid(&mut h.tp, 5);
        assert_eq!(h.tp.cwnd, 34);
        one_ack(&mut h);
        assert_eq!(h.tp.cwnd, 40);
        // 30 ms: rho = 9/8, 2^(9/8) - 1 = 1.1810 segments, in Linux's table
        // 2 * 139 - 128 = 150/128: +1 and 22/128 carried, so the fifth ACK
        // of the carry (5 * 22 = 110, 6 * 22 = 132) adds a second segment.
        let mut h = hybla(30, 10, 1000);
        for _ in 0..5 {
            one_ack(&mut h);
        }
        assert_eq!(h.tp.cwnd, 15);
        one_ack(&mut h);
        assert_eq!(h.tp.cwnd, 17);
    }

    #[test]
    fn avoidance_adds_rho_squared_per_window_as_linux_truncates_it() {
        // rho = 4: rho2_7ls = 32 * 32 * 2 = 2048 (16 in 1/128). At cwnd 100
        // each ACK adds 2048 / 100 = 20/128: 7 ACKs make 140 -> +1, 12 left.
        let mut h = hybla(100, 100, 50);
        for _ in 0..6 {
            one_ack(&mut h);
        }
        assert_eq!((h.tp.cwnd, h.tp.cwnd_cnt), (100, 6));
        one_ack(&mut h);
        assert_eq!((h.tp.cwnd, h.tp.cwnd_cnt), (101, 0));
        // At cwnd 1000 a window of ACKs adds 1000 * int(2048 / 1000) = 2000
        // /128 = 15 segments (not rho^2 = 16: the quotient is truncated).
        let mut h = hybla(100, 1000, 50);
        for _ in 0..1000 {
            one_ack(&mut h);
        }
        assert_eq!(h.tp.cwnd, 1015);
    }

    #[test]
    fn at_rho_one_the_truncation_slows_it_below_reno() {
        // rho = 1: rho2_7ls = 128. cwnd 100: 1/128 per ACK, +1 after 128
        // ACKs (Reno: after 100).
        let mut h = hybla(20, 100, 50);
        for _ in 0..127 {
            one_ack(&mut h);
        }
        assert_eq!(h.tp.cwnd, 100);
        one_ack(&mut h);
        assert_eq!(h.tp.cwnd, 101);
        // cwnd 200: 128 / 200 = 0 per ACK; the zero-increment branch adds
        // one segment once cwnd ACKs have counted.
        let mut h = hybla(20, 200, 50);
        for _ in 0..199 {
            one_ack(&mut h);
        }
        assert_eq!(h.tp.cwnd, 200);
        one_ack(&mut h);
        assert_eq!((h.tp.cwnd, h.tp.cwnd_cnt), (201, 0));
    }

    #[test]
    fn rho_follows_a_lower_srtt_and_growth_is_reno_outside_open() {
        // Start at 100 ms (rho 4), then the srtt falls to 50 ms: 16 eighths,
        // rho 2, rho2_7ls 512; at cwnd 100: 5/128 per ACK.
        let mut h = hybla(100, 100, 50);
        h.tp.srtt = SimTime::from_millis(50);
        for _ in 0..25 {
            one_ack(&mut h);
        }
        assert_eq!(h.tp.cwnd, 100); // 25 * 5 = 125 < 128
        one_ack(&mut h);
        assert_eq!(h.tp.cwnd, 101);
        // A higher srtt does not raise rho again.
        h.tp.srtt = SimTime::from_millis(400);
        let before = h.tp.cwnd;
        for _ in 0..26 {
            one_ack(&mut h);
        }
        assert_eq!(h.tp.cwnd, before + 1);
        // In Disorder, Reno: one segment per cwnd acknowledged.
        let mut h = hybla(100, 100, 50);
        h.cc.set_state(&mut h.tp, CaState::Disorder);
        h.cc.cong_avoid(&mut h.tp, 100);
        assert_eq!(h.tp.cwnd, 101);
        h.cc.set_state(&mut h.tp, CaState::Open);
        one_ack(&mut h);
        assert_eq!(h.tp.cwnd, 101); // back to Hybla's 20/128
    }

    #[test]
    fn nothing_grows_when_not_cwnd_limited_and_the_clamp_holds() {
        let mut h = hybla(600, 100, u32::MAX);
        h.tp.is_cwnd_limited = false;
        one_ack(&mut h);
        assert_eq!(h.tp.cwnd, 100);
        // rho 24 in slow start: 2^16 * 128 - 128 per ACK (the shift is
        // bounded at 16): +65535 segments, clamped at 65535.
        h.tp.is_cwnd_limited = true;
        one_ack(&mut h);
        assert_eq!(h.tp.cwnd, 65535);
    }

    #[test]
    fn make_takes_rtt0_and_rejects_others() {
        let mut p = CcParams::new();
        p.insert("rtt0".into(), 50.0);
        assert!((INFO.make)(&p).is_ok());
        for bad in [0.0, 2.5, -1.0, 5e6] {
            p.insert("rtt0".into(), bad);
            let e = (INFO.make)(&p).err().unwrap();
            assert!(e.contains("rtt0") && e.contains("1..=4294967"), "{e}");
        }
        let mut p = CcParams::new();
        p.insert("rho".into(), 1.0);
        assert!((INFO.make)(&p).err().unwrap().contains("\"rho\""));
    }
}
