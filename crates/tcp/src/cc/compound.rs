//! Compound TCP (Tan, Song, Zhang & Sridharan, "A Compound TCP Approach for
//! High-speed and Long Distance Networks", IEEE INFOCOM 2006, and
//! draft-sridharan-tcpm-ctcp-02): a Reno window plus a delay-based window.
//!
//! The sending window is `win = cwnd + dwnd`; this controller keeps the
//! loss-based part (`cwnd` below, `cwnd_l` in the code) and `dwnd` itself and
//! puts their sum in `tp.cwnd` (`dwnd` is real-valued; its whole segments count).
//!
//! ```text
//! per ACK, congestion avoidance:  cwnd += 1 / (cwnd + dwnd) per segment ACKed
//! per round (RTT):   diff = win * (1 - baseRTT/RTT)                [segments queued]
//!                    dwnd += max(alpha * win^k - 1, 0)   if diff <  gamma
//!                    dwnd  = max(dwnd - eta * diff, 0)    if diff >= gamma
//! on loss:           cwnd  = cwnd / 2
//!                    dwnd  = max(win * (1 - beta) - cwnd/2, 0)
//! ```
//! with alpha = 1/8, beta = 1/2, eta = 1 (the paper's zeta), k = 0.75 and
//! gamma = 30 packets. So the whole window grows by about alpha*win^k per RTT
//! while the queue is short, gives back the queue it measures when it is not,
//! and after a loss is `max(win (1 - beta), cwnd/2)`. As the draft says, dwnd is
//! zero while the connection is in slow start (standard slow start of the
//! loss-based part) and the delay-based component only kicks in when cwnd is
//! larger than 38 packets (`low_wnd`, HighSpeed TCP's Low_Window). After a
//! timeout dwnd is zero and the connection slow-starts as Reno does.
//!
//! RTT measurement follows the Linux CTCP patch (Castellani & Hemminger, built on
//! tcp_vegas.c; ns-2.35 tcp/linux/src/tcp_compound.c): baseRTT is the smallest
//! sample seen, RTT the smallest sample of the round (which filters delayed
//! ACKs), rounds end when `snd_una` passes the `snd_nxt` recorded at their start,
//! and a round with fewer than three samples leaves dwnd alone. The delay window
//! is frozen outside the Open state, and restarts (as the patch does: the window
//! is kept, all of it in cwnd, baseRTT forgotten) when sending after idle.
//!
//! Deviations and choices:
//! - `win` in diff and in the increase is the current window; the Linux patch
//!   uses the data sent in the last round.
//! - On loss the loss-based part halves in whole segments (`cwnd/2` rounded
//!   down, at least 1) and dwnd is computed against that halved value, so the
//!   window after recovery is exactly `max(win (1 - beta), cwnd/2)`. ssthresh is
//!   that window (the draft halves cwnd, not FlightSize).
//! - Below `low_wnd` (loss-based part at most 38) dwnd does not grow; the
//!   decrease on diff >= gamma still applies. Neither grows when the sender is
//!   not cwnd-limited.
//! - The draft's later gamma auto-tuning (TUBE) is not implemented: gamma is fixed.
//! - The draft text itself could not be consulted when this was written; the
//!   rules above are the paper's control law, the two draft statements quoted on
//!   the ICCRG list (dwnd zero in slow start; the 38-packet threshold), and the
//!   Linux patch for measurement.
//! - The sample of the ACK that passes the round's edge belongs to the new round
//!   (Linux counts it in the ending one).

use super::{
    reno_cong_avoid, AckSample, CaState, CcInfo, CcParams, CcState, CongestionControl, CwndEvent,
};

/// Compound TCP.
pub struct Compound {
    alpha: f64,
    beta: f64,
    eta: f64,
    k: f64,
    gamma: f64,
    low_wnd: f64,
    /// Loss-based window (Reno), segments.
    cwnd_l: u32,
    /// Delay-based window, segments (real).
    dwnd: f64,
    /// cwnd as this controller last set it: anything else came from the sender.
    set_cwnd: u32,
    /// Smallest RTT seen, ns.
    base_rtt: u64,
    /// Smallest RTT of the current round, ns, and the number of samples.
    min_rtt: u64,
    cnt_rtt: u32,
    /// Right edge of the current round (bytes).
    beg_snd_nxt: u64,
    /// The ended round's RTT, to act on at the next `cong_avoid`.
    pending: Option<u64>,
    /// Whether the delay-based component runs (Open state).
    active: bool,
    /// The split before the last reduction, for undo.
    saved: Option<(u32, f64)>,
}

impl Compound {
    /// Compound TCP with the draft's parameters.
    pub fn new(alpha: f64, beta: f64, eta: f64, k: f64, gamma: f64, low_wnd: f64) -> Self {
        Compound {
            alpha,
            beta,
            eta,
            k,
            gamma,
            low_wnd,
            cwnd_l: 0,
            dwnd: 0.0,
            set_cwnd: 0,
            base_rtt: u64::MAX,
            min_rtt: u64::MAX,
            cnt_rtt: 0,
            beg_snd_nxt: 0,
            pending: None,
            active: false,
            saved: None,
        }
    }

    /// Start a fresh round at the current `snd_nxt`.
    fn enable(&mut self, tp: &CcState) {
        self.active = true;
        self.beg_snd_nxt = tp.snd_nxt;
        self.min_rtt = u64::MAX;
        self.cnt_rtt = 0;
        self.pending = None;
    }

    /// All of the window in the loss-based part.
    fn fold(&mut self, tp: &CcState) {
        self.cwnd_l = tp.cwnd.max(1);
        self.dwnd = 0.0;
        self.set_cwnd = tp.cwnd;
    }

    /// Whole segments of dwnd.
    fn dwnd_segs(&self) -> u32 {
        self.dwnd.min(u32::MAX as f64) as u32
    }

    /// The sender changed cwnd (recovery, timeout, undo): keep dwnd if it fits.
    fn resync(&mut self, tp: &CcState) {
        if tp.cwnd != self.set_cwnd {
            let d = self.dwnd_segs();
            if tp.cwnd > d {
                self.cwnd_l = tp.cwnd - d;
                self.set_cwnd = tp.cwnd;
            } else {
                self.fold(tp);
            }
        }
    }

    /// tp.cwnd = cwnd + dwnd, within the clamp.
    fn apply(&mut self, tp: &mut CcState) {
        let clamp = tp.cwnd_clamp.max(1);
        if self.cwnd_l >= clamp {
            self.cwnd_l = clamp;
            self.dwnd = 0.0;
        } else if self.cwnd_l + self.dwnd_segs().min(clamp) > clamp {
            self.dwnd = (clamp - self.cwnd_l) as f64;
        }
        tp.cwnd = self.cwnd_l + self.dwnd_segs();
        self.set_cwnd = tp.cwnd;
    }

    /// The once-per-round update of dwnd from the round's RTT.
    fn update_dwnd(&mut self, rtt: u64, cwnd_limited: bool) {
        let win = self.cwnd_l as f64 + self.dwnd;
        // diff = (Expected - Actual) * baseRTT = win * (1 - baseRTT/RTT)
        let diff = win * (rtt - self.base_rtt) as f64 / rtt as f64;
        if diff < self.gamma {
            if cwnd_limited && self.cwnd_l as f64 > self.low_wnd {
                // dwnd += (alpha * win^k - 1)^+
                self.dwnd += (self.alpha * win.powf(self.k) - 1.0).max(0.0);
            }
        } else {
            // dwnd = (dwnd - eta * diff)^+
            self.dwnd = (self.dwnd - self.eta * diff).max(0.0);
        }
    }
}

impl CongestionControl for Compound {
    fn name(&self) -> &'static str {
        "compound"
    }

    fn init(&mut self, tp: &mut CcState) {
        self.base_rtt = u64::MAX;
        self.fold(tp);
        self.enable(tp);
    }

    fn ssthresh(&mut self, tp: &CcState) -> u32 {
        self.resync(tp);
        self.saved = Some((self.cwnd_l, self.dwnd));
        let win = self.cwnd_l as f64 + self.dwnd;
        // cwnd = cwnd / 2;  dwnd = (win * (1 - beta) - cwnd/2)^+
        let cwnd_l = (self.cwnd_l / 2).max(1);
        self.dwnd = (win * (1.0 - self.beta) - cwnd_l as f64).max(0.0);
        self.cwnd_l = cwnd_l;
        let total = self.cwnd_l + self.dwnd_segs();
        if total < 2 {
            // The sender keeps ssthresh >= 2: the loss-based part takes the rest.
            self.cwnd_l += 2 - total;
        }
        self.set_cwnd = self.cwnd_l + self.dwnd_segs();
        self.set_cwnd
    }

    fn pkts_acked(&mut self, tp: &mut CcState, s: &AckSample) {
        if self.active && tp.snd_una > self.beg_snd_nxt {
            // The round is over; act on it if it had enough samples (Linux: > 2).
            if self.cnt_rtt > 2 {
                self.pending = Some(self.min_rtt);
            }
            self.beg_snd_nxt = tp.snd_nxt;
            self.min_rtt = u64::MAX;
            self.cnt_rtt = 0;
        }
        if let Some(rtt) = s.rtt {
            let r = rtt.0.max(1);
            self.base_rtt = self.base_rtt.min(r);
            self.min_rtt = self.min_rtt.min(r);
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
        match ev {
            CwndEvent::TxStart | CwndEvent::CwndRestart => {
                // Linux CTCP patch: tcp_compound_init on restart.
                self.base_rtt = u64::MAX;
                self.fold(tp);
                self.enable(tp);
            }
            // Timeout: slow start from the window the sender set, no dwnd.
            CwndEvent::Loss => self.fold(tp),
            CwndEvent::CompleteCwr => {}
        }
    }

    fn undo_cwnd(&mut self, tp: &CcState) -> u32 {
        match self.saved.take() {
            Some((cwnd_l, dwnd)) => {
                self.cwnd_l = cwnd_l;
                self.dwnd = dwnd;
                let total = cwnd_l + self.dwnd_segs();
                if tp.cwnd > total {
                    self.cwnd_l += tp.cwnd - total;
                }
                self.set_cwnd = self.cwnd_l + self.dwnd_segs();
                self.set_cwnd
            }
            None => tp.cwnd.max(tp.prior_cwnd),
        }
    }

    fn cong_avoid(&mut self, tp: &mut CcState, acked: u32) {
        self.resync(tp);
        if tp.in_slow_start() {
            // dwnd is zero in slow start: standard slow start of the whole window.
            if self.dwnd > 0.0 {
                self.fold(tp);
            }
            self.pending = None;
            reno_cong_avoid(tp, acked);
            self.fold(tp);
            return;
        }
        let limited = tp.is_cwnd_limited;
        if limited {
            // cwnd += 1/(cwnd + dwnd) per segment: one segment per win ACKed
            // (Linux tcp_cong_avoid_ai, crediting the loss-based part).
            let w = tp.cwnd.max(1);
            if tp.cwnd_cnt >= w {
                tp.cwnd_cnt = 0;
                self.cwnd_l += 1;
            }
            tp.cwnd_cnt += acked;
            if tp.cwnd_cnt >= w {
                let d = tp.cwnd_cnt / w;
                tp.cwnd_cnt -= d * w;
                self.cwnd_l += d;
            }
        }
        if let Some(rtt) = self.pending.take() {
            self.update_dwnd(rtt, limited);
        }
        self.apply(tp);
    }
}

fn make(p: &CcParams) -> Result<Box<dyn CongestionControl>, String> {
    let mut v = [0.125, 0.5, 1.0, 0.75, 30.0, 38.0];
    const NAMES: [&str; 6] = ["alpha", "beta", "eta", "k", "gamma", "low_wnd"];
    for (key, &x) in p {
        let Some(i) = NAMES.iter().position(|n| n == key) else {
            return Err(format!(
                "controller compound has no parameter {key:?} (it takes {})",
                NAMES.join(", ")
            ));
        };
        let ok = match i {
            0 => x > 0.0 && x.is_finite(),  // alpha
            1 => (0.0..1.0).contains(&x),   // beta
            3 => x > 0.0 && x <= 1.0,       // k
            _ => x >= 0.0 && x.is_finite(), // eta, gamma, low_wnd
        };
        if !ok {
            let range = ["> 0", "in [0, 1)", ">= 0", "in (0, 1]", ">= 0", ">= 0"][i];
            return Err(format!("compound: {key} must be {range}, got {x}"));
        }
        v[i] = x;
    }
    Ok(Box::new(Compound::new(v[0], v[1], v[2], v[3], v[4], v[5])))
}

/// Registry entry.
pub const INFO: CcInfo = CcInfo {
    name: "compound",
    description: "Compound TCP: Reno window plus a delay window that grows by alpha*win^k per RTT while fewer than gamma packets are queued",
    source: "Tan, Song, Zhang & Sridharan, IEEE INFOCOM 2006; draft-sridharan-tcpm-ctcp-02; Linux CTCP patch (RTT sampling)",
    params: &[
        ("alpha", "0.125", "delay window increase factor: dwnd += alpha*win^k - 1 per RTT"),
        ("beta", "0.5", "multiplicative decrease of the whole window on loss"),
        ("eta", "1", "share of the measured queue removed from dwnd per RTT (the paper's zeta)"),
        ("k", "0.75", "exponent of the delay window increase"),
        ("gamma", "30", "queued packets at which dwnd stops growing and starts shrinking"),
        ("low_wnd", "38", "loss-based window (packets) above which dwnd may grow"),
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

    fn draft() -> Compound {
        Compound::new(0.125, 0.5, 1.0, 0.75, 30.0, 38.0)
    }

    /// A connection in congestion avoidance (ssthresh below the window) whose
    /// window is `cwnd_l` loss-based + `dwnd` delay-based segments, all outstanding.
    fn state(cwnd_l: u32, dwnd: f64, ssthresh: u32) -> (CcState, Compound) {
        let total = cwnd_l + dwnd as u32;
        let mut tp = CcState::new(total, 1448);
        tp.ssthresh = ssthresh;
        tp.snd_una = 1;
        tp.snd_nxt = 1 + total as u64 * 1448;
        tp.in_flight = total;
        let mut c = draft();
        c.init(&mut tp);
        c.cwnd_l = cwnd_l;
        c.dwnd = dwnd;
        (tp, c)
    }

    fn harness(tp: CcState, c: Compound) -> Harness {
        Harness {
            tp,
            cc: Box::new(c),
            mss: 1448,
        }
    }

    // How the harness lines up with rounds: `round(rtt)` ACKs the window
    // outstanding at its start, one segment per ACK; the first ACK of the next
    // `round` passes the round's edge and carries the per-round dwnd update (after
    // that ACK's own Reno step). Reno's part adds one segment each time its
    // counter reaches the whole window cwnd + dwnd.

    #[test]
    fn below_gamma_the_window_grows_by_alpha_win_to_the_k_per_rtt() {
        // baseRTT = RTT = 100 ms: diff = 0 < gamma every round.
        let (tp, c) = state(255, 0.0, 100);
        let mut h = harness(tp, c);
        let mut seen = vec![];
        for _ in 0..4 {
            h.round(ms(100));
            seen.push(h.tp.cwnd);
        }
        // Round 1 (255 ACKs): Reno's counter reaches 255 on the last one: cwnd 256.
        // Update on round 1 (first ACK of round 2): win = 256,
        //   dwnd += 0.125 * 256^0.75 - 1 = 0.125 * 64 - 1 = 7 -> win 256 + 7 = 263;
        //   Reno's counter, 1..256 over round 2, stays below 263.
        // Update on round 2: win = 263, 263^0.75 = 65.308,
        //   dwnd += 0.125 * 65.308 - 1 = 7.1635 -> dwnd 14.1635, win 256 + 14 = 270;
        //   Reno's counter (257 then) reaches 270 thirteen ACKs later: cwnd 257,
        //   window 271 at the end of round 3.
        // Update on round 3: win = 257 + 14.1635 = 271.1635, ^0.75 = 66.8226,
        //   dwnd += 7.3528 -> 21.5163, window 257 + 21 = 278; Reno's counter
        //   (250) reaches 278 28 ACKs later: 258 + 21 = 279.
        // Per RTT the window grows by 7, 8, 8 ~ alpha * win^k = 8.0, 8.2, 8.4
        // (Reno's 1 + dwnd's alpha*win^k - 1), less the fractions dwnd keeps.
        assert_eq!(seen, [256, 263, 271, 279]);
    }

    #[test]
    fn at_or_above_gamma_dwnd_gives_back_the_measured_queue() {
        // cwnd 100 + dwnd 80 = 180, baseRTT 100 ms known, RTT 125 ms.
        let (tp, mut c) = state(100, 80.0, 50);
        c.base_rtt = ms(100).0;
        let mut h = harness(tp, c);
        let mut seen = vec![];
        for _ in 0..3 {
            h.round(ms(125));
            seen.push(h.tp.cwnd);
        }
        // Round 1 (180 ACKs): Reno's counter reaches 180 on the last: cwnd 101, win 181.
        // Update on round 1: diff = 181 * (1 - 100/125) = 36.2 >= 30
        //   -> dwnd = 80 - 1 * 36.2 = 43.8, window 101 + 43 = 144; Reno's counter
        //   (1 then) reaches 144 during round 2: cwnd 102, window 145.
        // Update on round 2: win = 102 + 43.8 = 145.8, diff = 29.16 < 30
        //   -> grow: 145.8^0.75 = 41.958, dwnd += 0.125 * 41.958 - 1 = 4.2448
        //   -> 48.0448, window 102 + 48 = 150; Reno's counter (38 then) reaches
        //   150 during round 3: cwnd 103, window 151.
        assert_eq!(seen, [181, 145, 151]);
    }

    #[test]
    fn loss_leaves_win_times_one_minus_beta_split_by_the_drafts_rule() {
        // cwnd 100, dwnd 80: win 180. cwnd -> 50, dwnd = 180 * 0.5 - 50 = 40:
        // ssthresh (and the window after recovery) 90.
        let (tp, mut c) = state(100, 80.0, 50);
        assert_eq!(c.ssthresh(&tp), 90);
        assert_eq!((c.cwnd_l, c.dwnd), (50, 40.0));
        // cwnd 100, dwnd 10: win 110 -> 50 + (55 - 50) = 55.
        let (tp, mut c) = state(100, 10.0, 50);
        assert_eq!(c.ssthresh(&tp), 55);
        assert_eq!((c.cwnd_l, c.dwnd), (50, 5.0));
        // A pure Reno window halves: cwnd 100, dwnd 0 -> 50 + max(50 - 50, 0) = 50.
        let (tp, mut c) = state(100, 0.0, 50);
        assert_eq!(c.ssthresh(&tp), 50);
        // beta 0.25: win 180 -> dwnd = 180 * 0.75 - 50 = 85, window 135; even a
        // pure Reno window of 100 keeps 0.75 of itself: dwnd = 75 - 50 = 25.
        let (tp, mut c) = state(100, 80.0, 50);
        c.beta = 0.25;
        assert_eq!(c.ssthresh(&tp), 135);
        let (tp, mut c) = state(100, 0.0, 50);
        c.beta = 0.25;
        assert_eq!(c.ssthresh(&tp), 75);
        // Undo restores the split from before the loss.
        let (tp, mut c) = state(100, 80.0, 50);
        c.ssthresh(&tp);
        assert_eq!(c.undo_cwnd(&tp), 180);
        assert_eq!((c.cwnd_l, c.dwnd), (100, 80.0));
    }

    #[test]
    fn after_recovery_the_delay_window_keeps_its_share() {
        // Through the harness: loss at win 180 (100 + 80) leaves 50 + 40 = 90.
        // Then a round at 200 ms (baseRTT 100): diff = win * 0.5 >= 30 removes
        // the whole dwnd, leaving the Reno part. Had all 90 been in the Reno
        // part, the window would not have shrunk.
        let (tp, mut c) = state(100, 80.0, 50);
        c.base_rtt = ms(100).0;
        let mut h = harness(tp, c);
        h.loss();
        assert_eq!((h.tp.cwnd, h.tp.ssthresh), (90, 90));
        // Back in Open the round restarts at snd_nxt: the 180 segments outstanding
        // at the loss are ACKed first, with no dwnd update. Reno's part grows one
        // segment per window ACKed: 90 ACKs -> cwnd 51 (window 91), then 90 more
        // leave its counter at 90 < 91.
        h.round(ms(200));
        assert_eq!(h.tp.cwnd, 51 + 40);
        while h.tp.snd_una < 1 + 180 * 1448 {
            h.ack(1, ms(200));
        }
        assert_eq!(h.tp.cwnd, 51 + 40);
        // The first ACK past them: Reno's counter reaches 91 (cwnd 52), and the
        // round's update: diff = (52 + 40) * (1 - 100/200) = 46 >= 30
        // -> dwnd = max(40 - 46, 0) = 0: window 52.
        h.ack(1, ms(200));
        assert_eq!(h.tp.cwnd, 52);
    }

    #[test]
    fn dwnd_stays_zero_in_slow_start_and_below_low_wnd() {
        // cwnd 10, ssthresh 32, RTT = baseRTT (diff 0 < gamma): slow start doubles
        // (10 -> 20 -> 32, capped at ssthresh) with dwnd zero; then, with the
        // loss-based window at most 38, the window is Reno's, one segment per RTT.
        let mut tp = CcState::new(10, 1448);
        tp.ssthresh = 32;
        tp.snd_una = 1;
        tp.snd_nxt = 1 + 10 * 1448;
        tp.in_flight = 10;
        let mut c = draft();
        c.init(&mut tp);
        let mut h = harness(tp, c);
        let mut seen = vec![];
        for _ in 0..8 {
            h.round(ms(100));
            seen.push(h.tp.cwnd);
        }
        assert_eq!(seen, [20, 32, 33, 34, 35, 36, 37, 38]);
    }

    #[test]
    fn timeout_clears_dwnd_and_slow_starts() {
        let (tp, c) = state(100, 80.0, 50);
        let mut h = harness(tp, c);
        h.timeout(); // ssthresh = 50 + 40 = 90 (the loss rule), cwnd = 1, dwnd = 0
        assert_eq!((h.tp.cwnd, h.tp.ssthresh), (1, 90));
        h.round(ms(100));
        assert_eq!(h.tp.cwnd, 2);
        h.round(ms(100));
        assert_eq!(h.tp.cwnd, 4);
    }

    #[test]
    fn parameters_are_parsed_and_checked() {
        let p = |v: &[(&str, f64)]| -> CcParams {
            v.iter().map(|(k, x)| (k.to_string(), *x)).collect()
        };
        let all = [
            ("alpha", 0.25),
            ("beta", 0.3),
            ("eta", 0.5),
            ("k", 0.8),
            ("gamma", 10.0),
            ("low_wnd", 0.0),
        ];
        assert!(make(&p(&all)).is_ok());
        let e = |v: &[(&str, f64)]| make(&p(v)).err().unwrap();
        assert!(e(&[("zeta", 1.0)]).contains("no parameter \"zeta\""));
        assert!(e(&[("beta", 1.0)]).contains("beta must be in [0, 1)"));
        assert!(e(&[("k", 0.0)]).contains("k must be in (0, 1]"));
        assert!(e(&[("alpha", f64::INFINITY)]).contains("alpha must be > 0"));
        assert!(e(&[("gamma", -1.0)]).contains("gamma must be >= 0"));
    }
}
