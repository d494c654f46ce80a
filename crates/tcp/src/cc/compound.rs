//! Compound TCP (Tan, Song, Zhang & Sridharan, "A Compound TCP Approach for
//! High-speed and Long Distance Networks", IEEE INFOCOM 2006, and
//! draft-sridharan-tcpm-ctcp-02): a Reno window plus a delay-based window.
//!
//! The sending window is `win = cwnd + dwnd` (draft eq. 1); this controller keeps
//! the loss-based part (`cwnd` below, `cwnd_l` in the code) and `dwnd` itself and
//! puts their sum in `tp.cwnd` (`dwnd` is real-valued; its whole segments count).
//!
//! ```text
//! per ACK, congestion avoidance:  cwnd += 1 / (cwnd + dwnd) per segment ACKed   (eq. 2)
//! per round (RTT):   diff = win * (1 - baseRTT/RTT)                [segments queued]
//!                    dwnd += max(alpha * win^k - 1, 0)   if diff <  gamma
//!                    dwnd  = max(dwnd - eta * diff, 0)    if diff >= gamma        (eq. 4)
//! on loss:           cwnd  = cwnd / 2
//!                    dwnd  = max(win * (1 - beta) - cwnd/2, 0)
//! ```
//! with alpha = 1/8, beta = 1/2, eta = 1 (the paper's zeta), k = 0.75 and an
//! initial gamma of 30 packets. So the whole window grows by about alpha*win^k
//! per RTT while the queue is short, gives back the queue it measures when it is
//! not, and after a loss is `max(win (1 - beta), cwnd/2)`.
//!
//! Slow start (draft sections 2 and 3): standard slow start of the loss-based
//! part with dwnd zero, from the start of the connection or a timeout until the
//! window reaches ssthresh or a loss; once in congestion avoidance the connection
//! stays there until the next timeout, even when the delay component takes the
//! window below ssthresh (the Linux patch, comparing the whole window with
//! ssthresh, slow-starts back up in that case). The delay component only grows
//! dwnd when cwnd is larger than 38 packets (`low_wnd`, the draft's Low_Window;
//! "at most Low_Window" the response is standard TCP's, so a loss there with no
//! dwnd halves the window whatever beta). After a timeout dwnd is zero, baseRTT
//! is forgotten and re-measured ("MUST", draft section 3), and the connection
//! slow-starts.
//!
//! gamma is tuned by emulation (draft section 5): at the end of each round
//! `diff_reno = cwnd * (1 - baseRTT/RTT)`; on each loss, if diff_reno is valid,
//! `gamma = (1 - lambda) gamma + lambda * 3/4 diff_reno`, clipped to
//! [gamma_low, gamma_high] = [5, 30], and diff_reno becomes invalid. The draft
//! gives no lambda: 1/4 is the Linux patch's (`lambda = 0` keeps gamma fixed).
//!
//! RTT measurement follows the Linux CTCP patch (Castellani & Hemminger, built on
//! tcp_vegas.c; Andrew's release 1.3 in ns-2.35 tcp/linux/src/tcp_compound.c):
//! baseRTT is the smallest sample seen, RTT the smallest sample of the round
//! (which filters delayed ACKs), rounds end when `snd_una` passes the `snd_nxt`
//! recorded at their start, and a round with fewer than three samples leaves dwnd
//! alone. No sample is taken in Recovery or Loss (draft section 6) and the delay
//! window is frozen outside the Open state. When sending after idle the delay
//! component restarts as in the patch: the window is kept, all of it in cwnd,
//! and baseRTT is kept (release 1.3: "CTCP spec keeps baseRTT").
//!
//! Deviations and choices:
//! - The increase uses win^k, as the paper and the Linux patch (its
//!   INFOCOM_VERSION) do. The draft's eq. (3) reads `dwnd + alpha*dwnd^k - 1`,
//!   which never leaves dwnd = 0 (ICCRG list, "Initial value of dwnd", Nov 2008).
//! - The loss rule is the paper's and the draft's prose ("dwnd is set to the
//!   difference between the desired reduced window size and that can be provided
//!   by cwnd"); the draft's eq. (5), `dwnd (1 - beta)`, gives the same window
//!   when beta = 1/2. ssthresh is that window (the draft halves cwnd, not
//!   FlightSize). The loss-based part halves in whole segments (`cwnd/2` rounded
//!   down, at least 1) and dwnd is computed against that halved value.
//! - RTT in diff is the round's smallest sample (Linux), not the draft's srtt;
//!   `win` in diff and in the increase is the current window (the Linux patch
//!   uses the data sent in the last round).
//! - Below `low_wnd` (loss-based part at most 38) dwnd does not grow; the
//!   decrease on diff >= gamma still applies. Neither grows when the sender is
//!   not cwnd-limited.
//! - The sample of the ACK that passes the round's edge belongs to the new round
//!   (Linux counts it in the ending one).
//! - The draft (-00 and -02) was checked line by line; the paper's own text was
//!   not available offline: its win^k and loss rules are as the Linux patch
//!   ("INFOCOM VERSION used (wnd)^0.75") and the draft's prose give them.

use super::{
    reno_cong_avoid, AckSample, CaState, CcInfo, CcParams, CcState, CongestionControl, CwndEvent,
};

/// Compound TCP.
pub struct Compound {
    alpha: f64,
    beta: f64,
    eta: f64,
    k: f64,
    /// gamma at the start of the connection (the draft's 30 packets).
    gamma0: f64,
    /// gamma now (tuned on each loss, draft section 5).
    gamma: f64,
    gamma_low: f64,
    gamma_high: f64,
    /// Weight of a new sample in gamma's moving average; 0 = gamma fixed.
    lambda: f64,
    /// diff_reno of the last round, `None` while invalid.
    diff_reno: Option<f64>,
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
    /// In slow start: from the start of the connection or a timeout until the
    /// window reaches ssthresh or a loss; not re-entered when the delay component
    /// shrinks the window below ssthresh.
    slow_start: bool,
    /// The split (and slow-start flag) before the last reduction, for undo.
    saved: Option<(u32, f64, bool)>,
}

impl Compound {
    /// Compound TCP with the given control law and the draft's gamma tuning
    /// (gamma_low 5, gamma_high 30, lambda 1/4).
    pub fn new(alpha: f64, beta: f64, eta: f64, k: f64, gamma: f64, low_wnd: f64) -> Self {
        Compound {
            alpha,
            beta,
            eta,
            k,
            gamma0: gamma,
            gamma,
            gamma_low: 5.0,
            gamma_high: 30.0,
            lambda: 0.25,
            diff_reno: None,
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
            slow_start: true,
            saved: None,
        }
    }

    /// Set gamma's tuning: bounds and the weight lambda (0 = fixed gamma).
    pub fn tuning(mut self, gamma_low: f64, gamma_high: f64, lambda: f64) -> Self {
        self.gamma_low = gamma_low;
        self.gamma_high = gamma_high;
        self.lambda = lambda;
        self
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

    /// The once-per-round update of dwnd (and diff_reno) from the round's RTT.
    fn update_dwnd(&mut self, rtt: u64, cwnd_limited: bool) {
        let queued = (rtt - self.base_rtt) as f64 / rtt as f64;
        // diff_reno = (cwnd/baseRTT - cwnd/RTT) * baseRTT, for gamma's tuning.
        self.diff_reno = Some(self.cwnd_l as f64 * queued);
        let win = self.cwnd_l as f64 + self.dwnd;
        // diff = (Expected - Actual) * baseRTT = win * (1 - baseRTT/RTT)
        let diff = win * queued;
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
        self.gamma = self.gamma0;
        self.diff_reno = None;
        self.slow_start = true;
        self.fold(tp);
        self.enable(tp);
    }

    fn ssthresh(&mut self, tp: &CcState) -> u32 {
        self.resync(tp);
        self.saved = Some((self.cwnd_l, self.dwnd, self.slow_start));
        // A loss ends slow start.
        self.slow_start = false;
        // Draft section 5, On-Packet-Loss: gamma moves towards 3/4 of diff_reno.
        if self.lambda > 0.0 {
            if let Some(d) = self.diff_reno.take() {
                let g = 0.75 * d;
                self.gamma = (self.gamma * (1.0 - self.lambda) + self.lambda * g)
                    .max(self.gamma_low)
                    .min(self.gamma_high);
            }
        }
        let win = self.cwnd_l as f64 + self.dwnd;
        // cwnd = cwnd / 2;  dwnd = (win * (1 - beta) - cwnd/2)^+
        let cwnd_l = (self.cwnd_l / 2).max(1);
        if self.dwnd > 0.0 || self.cwnd_l as f64 > self.low_wnd {
            self.dwnd = (win * (1.0 - self.beta) - cwnd_l as f64).max(0.0);
        }
        // (At most low_wnd with no dwnd the window is standard TCP's: it halves.)
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
        // Draft section 6: no RTT sampling during loss recovery.
        if matches!(tp.ca_state, CaState::Recovery | CaState::Loss) {
            return;
        }
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
                // Linux CTCP patch 1.3: tcp_compound_init on restart, baseRTT kept.
                self.fold(tp);
                self.enable(tp);
                if ev == CwndEvent::CwndRestart {
                    // The sender cut the window after idle: standard TCP slow-starts back.
                    self.slow_start = true;
                }
            }
            CwndEvent::Loss => {
                // Draft section 3: after a timeout dwnd is zero and the connection
                // slow-starts; baseRTT MUST be re-measured.
                self.fold(tp);
                self.slow_start = true;
                self.base_rtt = u64::MAX;
                self.min_rtt = u64::MAX;
                self.cnt_rtt = 0;
                self.pending = None;
            }
            CwndEvent::CompleteCwr => {}
        }
    }

    fn undo_cwnd(&mut self, tp: &CcState) -> u32 {
        match self.saved.take() {
            Some((cwnd_l, dwnd, slow_start)) => {
                self.cwnd_l = cwnd_l;
                self.dwnd = dwnd;
                self.slow_start = slow_start;
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
        if self.slow_start && tp.in_slow_start() {
            // dwnd is zero in slow start: standard slow start of the whole window.
            if self.dwnd > 0.0 {
                self.fold(tp);
            }
            self.pending = None;
            reno_cong_avoid(tp, acked);
            self.fold(tp);
            return;
        }
        // Congestion avoidance until the next timeout, even when the delay
        // component takes the window below ssthresh.
        self.slow_start = false;
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

const NAMES: [&str; 9] = [
    "alpha",
    "beta",
    "eta",
    "k",
    "gamma",
    "low_wnd",
    "gamma_low",
    "gamma_high",
    "lambda",
];

fn make(p: &CcParams) -> Result<Box<dyn CongestionControl>, String> {
    let mut v = [0.125, 0.5, 1.0, 0.75, 30.0, 38.0, 5.0, 30.0, 0.25];
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
            8 => (0.0..=1.0).contains(&x),  // lambda
            _ => x >= 0.0 && x.is_finite(), // eta, gamma, low_wnd, gamma_low, gamma_high
        };
        if !ok {
            let range = [
                "> 0",
                "in [0, 1)",
                ">= 0",
                "in (0, 1]",
                ">= 0",
                ">= 0",
                ">= 0",
                ">= 0",
                "in [0, 1]",
            ][i];
            return Err(format!("compound: {key} must be {range}, got {x}"));
        }
        v[i] = x;
    }
    if v[6] > v[7] {
        return Err(format!(
            "compound: gamma_low ({}) must not exceed gamma_high ({})",
            v[6], v[7]
        ));
    }
    Ok(Box::new(
        Compound::new(v[0], v[1], v[2], v[3], v[4], v[5]).tuning(v[6], v[7], v[8]),
    ))
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
        ("gamma", "30", "initial queued packets at which dwnd stops growing and starts shrinking"),
        ("low_wnd", "38", "loss-based window (packets) above which dwnd may grow"),
        ("gamma_low", "5", "lower bound of the tuned gamma"),
        ("gamma_high", "30", "upper bound of the tuned gamma"),
        ("lambda", "0.25", "weight of 3/4 diff_reno in gamma's average at each loss (0 = fixed gamma)"),
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
    fn a_delay_decrease_below_ssthresh_does_not_restart_slow_start() {
        // After a loss: cwnd 60 + dwnd 40 = 100 = ssthresh, baseRTT 100 ms, RTT 200 ms.
        let (tp, mut c) = state(60, 40.0, 100);
        c.base_rtt = ms(100).0;
        let mut h = harness(tp, c);
        // Round 1 (100 ACKs): eq. (2) adds one segment when 100 are ACKed: 61 + 40.
        h.round(ms(200));
        assert_eq!(h.tp.cwnd, 101);
        // First ACK of round 2: Reno's counter 1 (of 101); the round's update,
        // diff = 101 * (1 - 100/200) = 50.5 >= 30 -> dwnd = max(40 - 50.5, 0) = 0
        // (eq. 4): window 61, below ssthresh 100.
        h.ack(1, ms(200));
        assert_eq!((h.tp.cwnd, h.tp.ssthresh), (61, 100));
        // Still congestion avoidance (draft sections 2-3: slow start only at the
        // start and after a timeout): 60 more ACKs bring the counter to 61 -> 62;
        // 40 after that leave it at 40 < 62. Slow start would have been at 100.
        for _ in 0..100 {
            h.ack(1, ms(200));
        }
        assert_eq!(h.tp.cwnd, 62);
    }

    #[test]
    fn a_timeout_forgets_base_rtt_and_idle_keeps_it() {
        let (mut tp, mut c) = state(100, 80.0, 50);
        c.base_rtt = ms(100).0;
        // Sending after idle: the window stays, all of it in cwnd; baseRTT kept.
        c.cwnd_event(&mut tp, CwndEvent::TxStart);
        assert_eq!((c.cwnd_l, c.dwnd, c.base_rtt), (180, 0.0, ms(100).0));
        // A timeout: baseRTT MUST be re-measured (draft section 3).
        tp.ssthresh = c.ssthresh(&tp);
        tp.cwnd = 1;
        c.cwnd_event(&mut tp, CwndEvent::Loss);
        assert_eq!((c.cwnd_l, c.dwnd, c.base_rtt), (1, 0.0, u64::MAX));
        // The path now takes 150 ms: the first sample back in Open is the new baseRTT.
        let s = AckSample {
            pkts_acked: 1,
            rtt: Some(ms(150)),
            in_flight: 1,
            ..Default::default()
        };
        c.pkts_acked(&mut tp, &s);
        assert_eq!(c.base_rtt, ms(150).0);
    }

    #[test]
    fn no_rtt_sampling_during_loss_recovery() {
        let (mut tp, mut c) = state(100, 0.0, 50);
        c.base_rtt = ms(100).0;
        let s = AckSample {
            pkts_acked: 1,
            rtt: Some(ms(60)),
            in_flight: 100,
            ..Default::default()
        };
        for st in [CaState::Recovery, CaState::Loss] {
            tp.ca_state = st;
            c.pkts_acked(&mut tp, &s);
            assert_eq!((c.base_rtt, c.cnt_rtt), (ms(100).0, 0));
        }
        tp.ca_state = CaState::Open;
        c.pkts_acked(&mut tp, &s);
        assert_eq!((c.base_rtt, c.cnt_rtt), (ms(60).0, 1));
    }

    #[test]
    fn at_or_below_low_wnd_a_loss_halves_a_reno_window_whatever_beta() {
        // beta 0.25, cwnd 30, dwnd 0 (at most Low_Window = 38): standard TCP, 15.
        let (tp, mut c) = state(30, 0.0, 10);
        c.beta = 0.25;
        assert_eq!(c.ssthresh(&tp), 15);
        // 38 is still "at most Low_Window": 19.
        let (tp, mut c) = state(38, 0.0, 10);
        c.beta = 0.25;
        assert_eq!(c.ssthresh(&tp), 19);
        // 39 is above: cwnd 19, dwnd = 39 * 0.75 - 19 = 10.25: window 29.
        let (tp, mut c) = state(39, 0.0, 10);
        c.beta = 0.25;
        assert_eq!(c.ssthresh(&tp), 29);
        // With a delay window the loss rule applies: win 40 -> 15 + (30 - 15) = 30.
        let (tp, mut c) = state(30, 10.0, 10);
        c.beta = 0.25;
        assert_eq!(c.ssthresh(&tp), 30);
    }

    #[test]
    fn gamma_is_tuned_by_emulation_on_each_loss() {
        let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
        // cwnd 100, dwnd 80, baseRTT 100 ms, a round at 125 ms:
        // diff_reno = 100 * (1 - 100/125) = 20; diff = 180 * 0.2 = 36 >= 30 -> dwnd 44.
        let (tp, mut c) = state(100, 80.0, 50);
        c.base_rtt = ms(100).0;
        c.update_dwnd(ms(125).0, true);
        assert!(close(c.diff_reno.unwrap(), 20.0) && close(c.dwnd, 44.0));
        // Loss: g_sample = 3/4 * 20 = 15; gamma = 30 * 3/4 + 15 * 1/4 = 26.25;
        // diff_reno invalid. cwnd 100 -> 50, dwnd = 144 * 0.5 - 50 = 22.
        assert_eq!(c.ssthresh(&tp), 72);
        assert!(close(c.gamma, 26.25) && c.diff_reno.is_none());
        // A round at 160 ms: diff = 72 * (1 - 100/160) = 27 >= 26.25 -> dwnd
        // = max(22 - 27, 0) = 0. With gamma fixed at 30 (lambda 0) the same round
        // grows it: 72^0.75 = sqrt(72) * 72^(1/4) = 8.48528 * 2.91295 = 24.7172,
        // dwnd = 22 + 0.125 * 24.7172 - 1 = 24.0897.
        c.update_dwnd(ms(160).0, true);
        assert_eq!(c.dwnd, 0.0);
        let (tp, c0) = state(100, 80.0, 50);
        let mut c0 = c0.tuning(5.0, 30.0, 0.0);
        c0.base_rtt = ms(100).0;
        c0.update_dwnd(ms(125).0, true);
        assert_eq!(c0.ssthresh(&tp), 72);
        assert_eq!(c0.gamma, 30.0);
        c0.update_dwnd(ms(160).0, true);
        assert!((c0.dwnd - 24.0897).abs() < 1e-4, "{}", c0.dwnd);
        // A second loss with no round in between leaves gamma alone.
        let (tp, mut c) = state(100, 0.0, 50);
        c.gamma = 26.25;
        c.ssthresh(&tp);
        assert_eq!(c.gamma, 26.25);
        // Clipping: 6 * 3/4 + 0 = 4.5 -> gamma_low 5; 30 * 3/4 + 3/4 * 100 / 4 = 41.25 -> 30.
        c.gamma = 6.0;
        c.diff_reno = Some(0.0);
        c.ssthresh(&tp);
        assert_eq!(c.gamma, 5.0);
        c.gamma = 30.0;
        c.diff_reno = Some(100.0);
        c.ssthresh(&tp);
        assert_eq!(c.gamma, 30.0);
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
            ("gamma_low", 2.0),
            ("gamma_high", 20.0),
            ("lambda", 0.5),
        ];
        assert!(make(&p(&all)).is_ok());
        let e = |v: &[(&str, f64)]| make(&p(v)).err().unwrap();
        assert!(e(&[("zeta", 1.0)]).contains("no parameter \"zeta\""));
        assert!(e(&[("beta", 1.0)]).contains("beta must be in [0, 1)"));
        assert!(e(&[("k", 0.0)]).contains("k must be in (0, 1]"));
        assert!(e(&[("alpha", f64::INFINITY)]).contains("alpha must be > 0"));
        assert!(e(&[("gamma", -1.0)]).contains("gamma must be >= 0"));
        assert!(e(&[("lambda", 1.5)]).contains("lambda must be in [0, 1]"));
        assert!(e(&[("gamma_low", 40.0)]).contains("must not exceed gamma_high"));
    }
}
