//! TCP Vegas as FreeBSD 9.2 runs it: the `cc_vegas` module (sys/netinet/cc/
//! cc_vegas.c, `vegas_ack_received`, `vegas_cong_signal`) on the RTT of the
//! `h_ertt` helper (sys/netinet/khelp/h_ertt.c, `ertt_add_tx_segment_info_hook`,
//! `ertt_packet_measurement_hook`, `marked_packet_rtt`), read at their 9.2
//! revisions (unchanged from 9.1 to 9.3). A separate controller from `vegas`
//! (Linux's and Brakmo's), as `cubic-freebsd` is from `cubic`: they share
//! neither the measurement nor the rules.
//!
//! **The measurement (h_ertt).** Every segment sent with data is recorded
//! (sequence, length, send time in ms ticks), retransmissions too, at the tail.
//! When no measurement is in progress, the segment sent is *marked* and
//! `bytes_tx_in_rtt` restarts from its length; until the measurement ends, every
//! segment sent adds its length. On an ACK of new data the records it passes
//! are taken from the head: one the ACK covers beyond its end was acknowledged
//! with a later one (`MULTI_ACK`), so if it was marked the next record is
//! measured in its place (its length taken off the bytes); the record the ACK
//! ends in gives an RTT sample (now - sent + 1 tick) when the receiver seems not
//! to delay its ACKs or the ACK covers more than that record (the delayed-ACK
//! guess `dlyack_rx`, counted up to 5 on ACKs of more than a segment, down on
//! ACKs of exactly one), the smallest of which is `minrtt`; and if it is marked
//! (or one before it was) the measurement ends: the marked RTT, the bytes sent
//! in it, and cwnd then. If a record before was marked the measurement is then
//! redone from that one (`FORCED_MEASUREMENT`: its send time, the bytes with its
//! length), as h_ertt does after its loop.
//!
//! **The rules (cc_vegas), once per measurement:**
//! ```text
//! expected = marked cwnd / minrtt          (bytes per tick, integer)
//! actual   = bytes sent in the marked RTT / marked RTT
//! ndiff    = (expected - actual) * minrtt / MSS   (integer segments)
//! ndiff < alpha:  slow start (cwnd <= ssthresh): toggle slow_start_toggle
//!                 otherwise: cwnd += 1 segment, toggle off
//! ndiff > beta:   outside recovery cwnd = max(2, cwnd - 1), ssthresh = cwnd
//!                 if that is below it (leave slow start); toggle off
//! ```
//! alpha = 1 and beta = 3 segments (the sysctls' defaults; no gamma). While the
//! toggle is on, NewReno grows the window on the ACK (slow start, or one
//! segment per window); it starts on, so slow start grows every other
//! measurement and only leaves when more than beta segments queue, by one
//! segment. Entering a recovery sets the toggle to cwnd < ssthresh. Loss
//! response, recovery and the growth are the host's NewReno ones (as in
//! tcplab's `newreno`: ssthresh = max(FlightSize/2, 2)).
//!
//! Deviations:
//! - With timestamps h_ertt also matches records by the echoed timestamp
//!   (dropping records older than it, `OLD_TXSI`, and stopping at one sent
//!   after it); here records are matched by sequence alone, as it does without
//!   timestamps.
//! - SACK-only ACKs make no measurement here (h_ertt measures on the highest
//!   newly SACKed sequence, `sackhint.last_sack_ack`).
//! - Times are the simulator's, cut to whole ms as `tcp_ts_getticks`.

use super::{
    reno_cong_avoid, reno_ssthresh, AckSample, CaState, CcInfo, CcParams, CcState,
    CongestionControl,
};
use std::collections::VecDeque;
use tcplab_engine::SimTime;

/// h_ertt's `DLYACK_SMOOTH`: the delayed-ACK guess counts up to this.
const DLYACK_SMOOTH: u32 = 5;

/// One recorded transmission (`struct txseginfo`).
#[derive(Clone, Copy, Debug)]
struct TxSeg {
    seq: u64,
    len: u64,
    /// Send time, ms ticks.
    tx_ts: u64,
    /// `TXSI_RTT_MEASURE_START`.
    marked: bool,
}

/// How `marked_packet_rtt` is called.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mark {
    /// The ACK covers more than this record (`MULTI_ACK`).
    Multi,
    /// The ACK ends in this record (`CORRECT_ACK`).
    Correct,
    /// After the loop, from a record measured in another's place.
    Forced,
}

/// FreeBSD 9.2's Vegas.
pub struct VegasFreebsd {
    alpha: i64,
    beta: i64,
    /// h_ertt's records, oldest first.
    txsegs: VecDeque<TxSeg>,
    measuring: bool,
    new_measurement: bool,
    bytes_tx_in_rtt: u64,
    bytes_tx_in_marked_rtt: u64,
    markedpkt_rtt: u64,
    marked_snd_cwnd: u64,
    minrtt: u64,
    dlyack_rx: u32,
    /// `snd_una` before the ACK being processed.
    snd_una: u64,
    slow_start_toggle: bool,
}

/// `tcp_ts_getticks()`: ms.
fn ticks(t: SimTime) -> u64 {
    t.0 / 1_000_000
}

impl VegasFreebsd {
    /// Vegas with `alpha` and `beta` segments.
    pub fn new(alpha: u32, beta: u32) -> Self {
        VegasFreebsd {
            alpha: alpha as i64,
            beta: beta as i64,
            txsegs: VecDeque::new(),
            measuring: false,
            new_measurement: false,
            bytes_tx_in_rtt: 0,
            bytes_tx_in_marked_rtt: 0,
            markedpkt_rtt: 0,
            marked_snd_cwnd: 0,
            minrtt: 0,
            dlyack_rx: 0,
            snd_una: 0,
            slow_start_toggle: true,
        }
    }

    /// `marked_packet_rtt`.
    fn marked(
        &mut self,
        tp: &CcState,
        now: u64,
        seg: Option<TxSeg>,
        how: Mark,
        next: &mut Option<(u64, u64)>,
        adjust: &mut u64,
    ) {
        match (how, seg) {
            (Mark::Multi, Some(s)) => {
                *next = Some((s.tx_ts, s.len));
                *adjust += s.len;
                return;
            }
            (Mark::Forced, _) => {
                let (ts, len) = next.expect("a forced measurement has a record");
                self.markedpkt_rtt = now.saturating_sub(ts) + 1;
                self.bytes_tx_in_marked_rtt = (self.bytes_tx_in_rtt + len).saturating_sub(*adjust);
            }
            (_, Some(s)) => {
                self.markedpkt_rtt = now.saturating_sub(s.tx_ts) + 1;
                self.bytes_tx_in_marked_rtt = self.bytes_tx_in_rtt.saturating_sub(*adjust);
            }
            (_, None) => return,
        }
        self.marked_snd_cwnd = tp.cwnd as u64 * tp.mss as u64;
        self.measuring = false;
        self.new_measurement = true;
    }

    /// `ertt_packet_measurement_hook` on an ACK that moved `snd_una` to `ack`.
    fn measure(&mut self, tp: &CcState, ack: u64) {
        let acked = ack.saturating_sub(self.snd_una);
        if acked == 0 {
            return;
        }
        let now = ticks(tp.now);
        let mss = tp.mss as u64;
        let mut next: Option<(u64, u64)> = None;
        let mut adjust = 0u64;
        let mut multiack = false;
        while let Some(&t) = self.txsegs.front() {
            if ack > t.seq + t.len {
                if t.marked || next.is_some() {
                    self.marked(tp, now, Some(t), Mark::Multi, &mut next, &mut adjust);
                }
                self.txsegs.pop_front();
                continue;
            }
            // The delayed-ACK guess (no SACK information on this path).
            if acked > mss || acked > t.len {
                self.dlyack_rx = (self.dlyack_rx + 1).min(DLYACK_SMOOTH);
                multiack = true;
            } else if acked == mss || acked == t.len {
                self.dlyack_rx = self.dlyack_rx.saturating_sub(1);
            }
            if ack <= t.seq {
                break;
            }
            if self.dlyack_rx == 0 || multiack {
                let rtt = now.saturating_sub(t.tx_ts) + 1;
                if self.minrtt == 0 || rtt < self.minrtt {
                    self.minrtt = rtt;
                }
            }
            if t.marked || next.is_some() {
                self.marked(tp, now, Some(t), Mark::Correct, &mut next, &mut adjust);
            }
            self.txsegs.pop_front();
            break;
        }
        if next.is_some() {
            self.marked(tp, now, None, Mark::Forced, &mut next, &mut adjust);
        }
    }

    /// `vegas_ack_received`'s once-per-measurement decision.
    fn decide(&mut self, tp: &mut CcState) {
        if !self.new_measurement {
            return;
        }
        self.new_measurement = false;
        if self.minrtt == 0 || self.markedpkt_rtt == 0 {
            return;
        }
        let expected = (self.marked_snd_cwnd / self.minrtt) as i64;
        let actual = (self.bytes_tx_in_marked_rtt / self.markedpkt_rtt) as i64;
        let ndiff = (expected - actual) * self.minrtt as i64 / tp.mss.max(1) as i64;
        if ndiff < self.alpha {
            if tp.cwnd <= tp.ssthresh {
                self.slow_start_toggle = !self.slow_start_toggle;
            } else {
                self.slow_start_toggle = false;
                tp.cwnd = (tp.cwnd + 1).min(tp.cwnd_clamp);
            }
        } else if ndiff > self.beta {
            // vegas_cong_signal(CC_VEGAS_RATE)
            if tp.ca_state != CaState::Recovery {
                tp.cwnd = tp.cwnd.saturating_sub(1).max(2);
                if tp.cwnd < tp.ssthresh {
                    tp.ssthresh = tp.cwnd;
                }
            }
            self.slow_start_toggle = false;
        }
    }
}

impl CongestionControl for VegasFreebsd {
    fn name(&self) -> &'static str {
        "vegas-freebsd"
    }

    fn init(&mut self, tp: &mut CcState) {
        self.snd_una = tp.snd_una;
        self.slow_start_toggle = true; // vegas_conn_init
    }

    fn ssthresh(&mut self, tp: &CcState) -> u32 {
        reno_ssthresh(tp)
    }

    fn on_transmit(&mut self, _tp: &CcState, now: SimTime, seq: u64, len: u32) {
        // ertt_add_tx_segment_info_hook
        let marked = !self.measuring;
        if self.measuring {
            self.bytes_tx_in_rtt += len as u64;
        } else {
            self.measuring = true;
            self.bytes_tx_in_rtt = len as u64;
        }
        self.txsegs.push_back(TxSeg {
            seq,
            len: len as u64,
            tx_ts: ticks(now),
            marked,
        });
    }

    fn pkts_acked(&mut self, tp: &mut CcState, s: &AckSample) {
        if s.newest.is_none() || tp.snd_una <= self.snd_una {
            return; // SACK only: no measurement here
        }
        self.measure(tp, tp.snd_una);
        self.snd_una = tp.snd_una;
        self.decide(tp);
    }

    fn set_state(&mut self, tp: &mut CcState, new: CaState) {
        if new == CaState::Recovery && tp.ca_state != CaState::Recovery {
            self.slow_start_toggle = tp.cwnd < tp.ssthresh;
        }
    }

    fn cong_avoid(&mut self, tp: &mut CcState, acked: u32) {
        if self.slow_start_toggle {
            reno_cong_avoid(tp, acked); // newreno_cc_algo.ack_received
        }
    }
}

fn make(p: &CcParams) -> Result<Box<dyn CongestionControl>, String> {
    let (mut alpha, mut beta) = (1.0, 3.0);
    for (k, &v) in p {
        match k.as_str() {
            "alpha" => alpha = v,
            "beta" => beta = v,
            _ => {
                return Err(format!(
                    "controller vegas-freebsd has no parameter {k:?} (it takes alpha, beta)"
                ))
            }
        }
    }
    // cc_vegas.c's sysctl handlers: 1 <= alpha <= beta, whole segments.
    let whole = |v: f64| v.fract() == 0.0 && (1.0..=1e6).contains(&v);
    if !whole(alpha) || !whole(beta) || alpha > beta {
        return Err(format!(
            "vegas-freebsd: alpha and beta must be whole numbers of segments with 1 <= alpha <= beta, got alpha {alpha}, beta {beta}"
        ));
    }
    Ok(Box::new(VegasFreebsd::new(alpha as u32, beta as u32)))
}

/// Registry entry.
pub const INFO: CcInfo = CcInfo {
    name: "vegas-freebsd",
    description: "Vegas as FreeBSD 9.2 ran it: one marked packet's RTT per measurement (h_ertt), alpha 1, beta 3, slow start every other measurement",
    source: "FreeBSD 9.2 sys/netinet/cc/cc_vegas.c, sys/netinet/khelp/h_ertt.c (r239474)",
    params: &[
        ("alpha", "1", "grow by a segment while fewer than alpha segments queue (whole, >= 1)"),
        ("beta", "3", "shrink by a segment when more than beta segments queue (whole, >= alpha)"),
    ],
    make,
};

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    /// A sender at `cwnd` segments with MSS 1000, sequence from 1.
    fn state(cwnd: u32) -> CcState {
        let mut tp = CcState::new(cwnd, MSS as u32);
        tp.snd_una = 1;
        tp.snd_nxt = 1;
        tp
    }

    fn ms(v: u64) -> SimTime {
        SimTime::from_millis(v)
    }

    fn send(v: &mut VegasFreebsd, tp: &mut CcState, at: u64, n: u64) {
        for _ in 0..n {
            v.on_transmit(tp, ms(at), tp.snd_nxt, MSS as u32);
            tp.snd_nxt += MSS;
        }
    }

    fn ack(v: &mut VegasFreebsd, tp: &mut CcState, at: u64, segs: u64) {
        tp.now = ms(at);
        tp.snd_una += segs * MSS;
        let s = AckSample {
            pkts_acked: segs as u32,
            newest: Some(Default::default()),
            ..Default::default()
        };
        v.pkts_acked(tp, &s);
    }

    #[test]
    fn one_marked_packet_per_measurement_and_the_bytes_sent_meanwhile() {
        // 4 segments at t = 0 (the first marked), ACKed one by one at 100-103
        // ms; 2 more sent at 50 ms count in the measurement. The first ACK
        // (exactly one segment: no delayed-ACK guess) ends it: RTT 100 - 0 + 1
        // = 101 ticks, 6000 bytes, cwnd 10 segments = 10000 bytes; minrtt 101.
        let mut v = VegasFreebsd::new(1, 3);
        let mut tp = state(10);
        v.init(&mut tp);
        send(&mut v, &mut tp, 0, 4);
        send(&mut v, &mut tp, 50, 2);
        ack(&mut v, &mut tp, 100, 1);
        assert_eq!(
            (
                v.markedpkt_rtt,
                v.bytes_tx_in_marked_rtt,
                v.marked_snd_cwnd,
                v.minrtt
            ),
            (101, 6000, 10_000, 101)
        );
        // The next segment sent is marked and restarts the count.
        assert!(!v.measuring);
        send(&mut v, &mut tp, 101, 1);
        assert!(v.txsegs.back().unwrap().marked);
        assert_eq!(v.bytes_tx_in_rtt, 1000);
    }

    #[test]
    fn a_delayed_ack_over_the_marked_packet_measures_from_it() {
        // Two segments at 0 and 1 ms, the first marked; one ACK of both at 101
        // ms: the first is passed (MULTI_ACK: measure the next in its place,
        // its 1000 bytes taken off), the second ends the ACK (sample 101 - 1 +
        // 1 = 101, the ACK covers more than it: kept), then the forced
        // measurement from the first: RTT 101 - 0 + 1 = 102 ticks, bytes 2000
        // + 1000 - 1000 = 2000. The guess of delayed ACKs counts 1.
        let mut v = VegasFreebsd::new(1, 3);
        let mut tp = state(10);
        v.init(&mut tp);
        send(&mut v, &mut tp, 0, 1);
        send(&mut v, &mut tp, 1, 1);
        ack(&mut v, &mut tp, 101, 2);
        assert_eq!((v.markedpkt_rtt, v.bytes_tx_in_marked_rtt), (102, 2000));
        assert_eq!((v.minrtt, v.dlyack_rx), (101, 1));
        assert!(v.txsegs.is_empty());
    }

    #[test]
    fn the_rules_on_ndiff_in_whole_segments() {
        // minrtt 100 ticks, cwnd 20 segments (20000 B): expected 200 B/tick.
        // ndiff = (200 - actual) * 100 / 1000.
        let decide = |cwnd: u32, ssthresh: u32, bytes: u64, rtt: u64, toggle: bool| {
            let mut v = VegasFreebsd::new(1, 3);
            let mut tp = state(cwnd);
            tp.ssthresh = ssthresh;
            v.slow_start_toggle = toggle;
            v.minrtt = 100;
            v.marked_snd_cwnd = 20_000;
            v.bytes_tx_in_marked_rtt = bytes;
            v.markedpkt_rtt = rtt;
            v.new_measurement = true;
            v.decide(&mut tp);
            (tp.cwnd, tp.ssthresh, v.slow_start_toggle)
        };
        // Actual 20000/100 = 200: ndiff 0 < 1. Congestion avoidance (cwnd >
        // ssthresh): +1, toggle off. Slow start (cwnd <= ssthresh): the toggle
        // flips, cwnd unchanged.
        assert_eq!(decide(20, 10, 20_000, 100, true), (21, 10, false));
        assert_eq!(decide(20, 20, 20_000, 100, true), (20, 20, false));
        assert_eq!(decide(20, 20, 20_000, 100, false), (20, 20, true));
        // Actual 20000/125 = 160: ndiff 4 > 3: one segment less, and as it is
        // below ssthresh it becomes ssthresh (slow start left).
        assert_eq!(decide(20, 100, 20_000, 125, true), (19, 19, false));
        // Actual 20000/115 = 173 (integer): ndiff (200 - 173) * 100 / 1000 = 2:
        // between alpha and beta, nothing changes.
        assert_eq!(decide(20, 10, 20_000, 115, true), (20, 10, true));
        // Never below 2 segments.
        assert_eq!(decide(2, 100, 20_000, 125, false), (2, 2, false));
    }

    #[test]
    fn slow_start_grows_on_the_acks_only_while_the_toggle_is_on() {
        let mut v = VegasFreebsd::new(1, 3);
        let mut tp = state(4);
        v.init(&mut tp);
        v.cong_avoid(&mut tp, 1);
        assert_eq!(tp.cwnd, 5);
        v.slow_start_toggle = false;
        v.cong_avoid(&mut tp, 1);
        assert_eq!(tp.cwnd, 5);
        // Entering a recovery: the toggle is cwnd < ssthresh.
        tp.ssthresh = 8;
        v.set_state(&mut tp, CaState::Recovery);
        assert!(v.slow_start_toggle);
    }

    #[test]
    fn parameters_are_checked() {
        let p = |v: &[(&str, f64)]| -> CcParams {
            v.iter().map(|(k, x)| (k.to_string(), *x)).collect()
        };
        assert!(make(&p(&[("alpha", 2.0), ("beta", 4.0)])).is_ok());
        let e = |v: &[(&str, f64)]| make(&p(v)).err().unwrap();
        assert!(e(&[("alpha", 4.0), ("beta", 3.0)]).contains("1 <= alpha <= beta"));
        assert!(e(&[("alpha", 0.0)]).contains("1 <= alpha"));
        assert!(e(&[("alpha", 1.5)]).contains("whole"));
        assert!(e(&[("gamma", 1.0)]).contains("no parameter \"gamma\""));
    }
}
