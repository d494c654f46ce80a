//! FAST TCP (Jin, Wei & Low, "FAST TCP: Motivation, Architecture, Algorithms,
//! Performance", IEEE INFOCOM 2004) in two forms: on ns-2 agents (the `ns2`
//! profile) the ns-2 FAST module itself (Cui & Andrew, University of
//! Melbourne, version 1.1.3, tcp/tcp-fast.cc, as in hbatmit/ns2.35), on every
//! other host the paper's round-based law below.
//!
//! # The paper's law (every host but ns-2's)
//!
//! Once per update period FAST moves the window toward the point where alpha of
//! its packets sit in queues:
//!
//! ```text
//! w <- min( 2w, (1 - gamma) w + gamma (baseRTT / avgRTT * w_meas + alpha) )
//! ```
//! baseRTT is the smallest RTT seen; avgRTT is the arithmetic mean of the RTT
//! samples of the last round (ACKs between two passes of `snd_una` over the
//! `snd_nxt` recorded at the start of the round, as Linux Vegas delimits rounds);
//! `w_meas` is the window those samples measured: the segments sent in that
//! round (ns-2's `old_cwnd`, the window when the acknowledged packet was sent).
//! The equilibrium is `w = alpha / (1 - baseRTT/RTT)`: alpha packets queued.
//!
//! As in the paper ("congestion window changes over two RTTs: it is updated in
//! one RTT and frozen in the next; the update is spread out over the first RTT
//! in a way such that the congestion window is no more than doubled") and in
//! ns-2 1.1.3 ("make updating every other RTT the default, as in Linux"), the
//! window is updated after one round and frozen during the next, so that every
//! update reads a round sent at a constant window; `every_other = 0` updates
//! after every round. An increase is spread over the ACKs of the following round
//! (one segment per `w_old / increase` segments ACKed, never more than one
//! segment per segment ACKed); a decrease is immediate. The window is kept as
//! a real number; cwnd is it rounded to the nearest segment, at least 2.
//!
//! On loss FAST halves like Reno (ssthresh = max(FlightSize/2, 2) and the
//! sender's recovery sets cwnd from it), then carries on from the window it is
//! given. Updates stop outside the Open state and start over, waiting a full
//! round, when the state returns to Open and when sending after idle.
//!
//! Deviations of this form from the paper and the module:
//! - avgRTT is the plain mean of the last round's samples; the paper's
//!   estimator is an exponential moving average updated on every ACK with weight
//!   min(3/w, 1/4) (unchecked, see below; the module's: min(3/w, 1/256)),
//!   which forgets all but about e^-3 = 5% of what came before the last round.
//! - The module's multiplicative-increase start and `beta_` dead band are left
//!   out: the window follows the equation from the first round, and its 2w
//!   bound is the paper's slow start.
//! - The sample of the ACK that passes the round's edge belongs to the new round.
//! - Like ns-2 and Linux Vegas, the window grows whether or not the sender is
//!   cwnd-limited.
//!
//! # The ns-2 module (ns-2 agents)
//!
//! On every new ACK outside fast recovery (`FastTcpAgent::recv`), in this order:
//! - the RTT: now minus the send time of the packet the ACK names
//!   (`tcph->seqno()`: the newest acknowledged), if it was sent once; else
//!   avgRTT. The first ACK sets baseRTT = avgRTT = the time since the first
//!   send (`firstrecv_`: the `syn_` packet's RTT).
//! - `fast_est`: baseRTT = min; `avg_cwnd_last_RTT_` = packets sent and not
//!   acknowledged, plus one (`t_seqno_ - seqno`); avgRTT an EWMA of weight
//!   1/256, or 3/`avg_cwnd_last_RTT_` above 768 packets. Each packet sent
//!   carries `avg_cwnd_last_RTT_` (`cwnd_array_`; here `CcState::tx_mark`,
//!   returned in `AckSample::newest`): `old_cwnd` when it is acknowledged.
//! - `fast_cc`: while avgRTT - baseRTT < `mi_threshold_` the window grows by a
//!   segment per ACK (multiplicative increase: the module's slow start).
//!   Otherwise, on the first ACK at least `cwnd_update_period_` after the last
//!   update (and, with `every_other`, in every other "RTT", toggled when an
//!   RTT's worth of time has passed since the last toggle),
//!   `w <- max(2, (1 - gamma) w + gamma (old_cwnd baseRTT/avgRTT + alpha))`
//!   unless alpha <= old_cwnd (avgRTT - baseRTT)/avgRTT < beta (empty when
//!   beta = alpha). No 2w bound. A decrease is at once; an increase of k
//!   segments is paced (`fast_pace`): one segment every (ACKs of the last RTT
//!   per update period)/k ACKs, at once (at most doubling) up to 4 segments;
//!   what is not added by the next update is dropped. Below a baseRTT of
//!   4 ms an increase is at once too, and nothing is paced.
//! - cwnd is a double (`high_accuracy_cwnd_` 2); the window is its integer part.
//! - Loss: the sender's Sack1 recovery (`slowdown(CLOSE_SSTHRESH_HALF |
//!   CLOSE_CWND_HALF)`; the module's `dupack_action` is Sack1's); every ACK in
//!   fast recovery postpones the next update (`cwnd_update_time` = now), and
//!   the window the recovery leaves is the module's. A timeout restarts at
//!   `slowstart_` = 2 segments.
//!
//! Deviations from the module: its `send_much` also retransmits the oldest
//! unacknowledged packet once it was sent more than 2 avgRTT ago, and after a
//! timeout an ACK above the resent data gives its RTT from avgRTT (`t_seqno_
//! <= seqno`) and `avg_cwnd_last_RTT_` from the highest sequence sent
//! (tcplab's `snd_nxt` here is the highest sent, not ns-2's go-back-N
//! `t_seqno_`); neither happens without losses. The module's "inflated cwnd"
//! reset (`dupacks_ > numdupacks_` outside recovery after a timeout) is left
//! out. Held against the module itself by `tcplab reproduce ns2-check`
//! (mascolo2006 scenario A, every cell within 0.2 %).
//!
//! # Parameters and their sources
//!
//! `alpha` (packets queued at equilibrium, default 200), `gamma` (default 0.5,
//! as ns-2's `gamma_`), `every_other` (default 1); on ns-2 agents also `beta`
//! (default alpha), `period` (`cwnd_update_period_`, 0.01 s) and
//! `mi_threshold` (0.00075 s), the module's installed defaults.
//!
//! No source consulted gives alpha a default, so 200 is a convention, not a
//! sourced value: set alpha per path (each flow keeps alpha packets queued, so
//! the bottleneck buffer must hold the sum).
//! - ns-2 module 1.1.3 (hbatmit/ns2.35, tcp/tcp-fast.cc): the constructor sets
//!   `alpha_(0)`, `beta_(0)`, `gamma_(0.5)`, but the defaults the module's
//!   installation adds to tcl/lib/ns-default.tcl (hbatmit/ns2.35 commit f4d41e2,
//!   "installed from cubinlab.ee.unimelb.edu.au/ns2fasttcp") override them:
//!   `alpha_ 100`, `beta_ 100`, `gamma_ 0.5`, `cwnd_update_period_ 0.01`,
//!   `mi_threshold_ 0.00075`, `high_accuracy_cwnd_ 2`. Its test scripts
//!   (tcl/test/fast-test*.tcl) set `alpha_` 10, 100, 200, 800, 1000 or 10000;
//!   Caltech's example scripts (Choe & Wydrowski, 2003-04) 800, 1000 or 10000
//!   with `window_` 1e5 to 1e6. tcplab's default (200) predates this reading;
//!   mascolo2006 sets 100.
//! - UDT's FAST example (notpeter/udt, app/cc.h, class CFAST, citing the
//!   INFOCOM paper and draft-jwl-tcp-fast-01) hard-codes alpha = 200, with
//!   gamma 1/2, an update every 2 RTTs and the 2w bound.
//! - The papers themselves (INFOCOM 2004; Wei, Jin, Low & Hegde, IEEE/ACM ToN
//!   2006) could not be read offline: the quotation above and the estimator
//!   weight are as first recorded here, not rechecked, and whether their
//!   experiments used alpha = 200 is unverified. The reference study
//!   (mascolo2006) states the update rule but no alpha.

use super::{
    reno_ssthresh, AckSample, CaState, CcInfo, CcParams, CcState, CongestionControl, CwndEvent,
};

/// The ns-2 module's settings (its Tcl variables, with the defaults the
/// module's installation adds to ns-default.tcl).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ModuleParams {
    /// `beta_`: no update while alpha <= queued < beta (100, = alpha_: none).
    pub beta: f64,
    /// `cwnd_update_period_`, s (0.01).
    pub period: f64,
    /// `mi_threshold_`, s (0.00075): below this queueing delay, +1 per ACK.
    pub mi_threshold: f64,
}

/// ns-2 FAST module 1.1.x (tcp-fast.cc: `fast_est`, `fast_cc`,
/// `fast_calc_cwnd`, `fast_pace`, `fast_est_update_avgrtt`), on the ns-2
/// agent's new ACKs outside fast recovery. Times in seconds, as the module's.
#[derive(Clone, Debug)]
struct Module {
    p: ModuleParams,
    /// `cwnd_`, a double (`high_accuracy_cwnd_` 2); the window is its integer part.
    cwnd: f64,
    /// `avgRTT_` (0: none yet).
    avg_rtt: f64,
    /// `baseRTT_` (`None`: the module's invalid value, before the first ACK).
    base_rtt: Option<f64>,
    /// `avg_cwnd_last_RTT_`: packets sent and not acknowledged, plus one, at
    /// the last new ACK (`t_seqno_ - seqno`).
    avg_cwnd: f64,
    /// Time of the agent's first transmission (`firstsent_`).
    t0: f64,
    /// Whether an ACK came (`firstrecv_` set).
    first_recv: bool,
    /// `fast_calc_cwnd_end`, `cwnd_update_time`.
    calc_end: f64,
    update_time: f64,
    /// `acks_per_rtt`, `acks_last_rtt`, `on_first_rtt_`.
    acks_per_rtt: u32,
    acks_last_rtt: u32,
    on_first_rtt: bool,
    /// `cwnd_increments`, `bc_ack`, `bc_spacing` (fast_pace).
    increments: f64,
    bc_ack: u16,
    bc_spacing: u16,
}

/// C's conversion of a double to `unsigned short` as gcc emits it on x86-64
/// (through a 32-bit int: the low 16 bits; 0 for infinities and NaN).
fn c_ushort(x: f64) -> u16 {
    if x.is_finite() && x.abs() < 2_147_483_648.0 {
        (x as i64) as u16
    } else {
        0
    }
}

impl Module {
    /// At the connection's first ACK (the ns-2 `syn_` packet's, when the
    /// handshake gave an RTT): `firstrecv_` is that RTT, and the module's
    /// `recv` of packet 0 runs `fast_est` (`avg_cwnd_last_RTT_` = 1).
    fn new(p: ModuleParams, tp: &CcState) -> Self {
        let now = tp.now.as_secs_f64();
        let syn_rtt = (tp.min_rtt.0 > 0).then(|| tp.min_rtt.as_secs_f64());
        let t0 = now - syn_rtt.unwrap_or(0.0);
        Module {
            p,
            cwnd: tp.cwnd as f64,
            avg_rtt: syn_rtt.unwrap_or(0.0),
            base_rtt: syn_rtt,
            avg_cwnd: if syn_rtt.is_some() { 1.0 } else { 0.0 },
            t0,
            first_recv: syn_rtt.is_some(),
            calc_end: t0,
            update_time: t0,
            acks_per_rtt: syn_rtt.is_some() as u32,
            acks_last_rtt: 0,
            on_first_rtt: true,
            increments: 0.0,
            bc_ack: 0,
            bc_spacing: 0,
        }
    }

    /// `fast_est_update_avgrtt`: an EWMA of weight 1/256, or 3/w above 768
    /// packets in flight.
    fn update_avg_rtt(&mut self, rtt: f64) {
        let scale = self.avg_cwnd / 3.0;
        self.avg_rtt = if self.avg_rtt == 0.0 {
            rtt
        } else if scale > 256.0 {
            ((scale - 1.0) * self.avg_rtt + rtt) / scale
        } else {
            (self.avg_rtt * 255.0 + rtt) / 256.0
        };
    }

    /// `fast_calc_cwnd` (`high_accuracy_cwnd_` 2: a double).
    fn calc_cwnd(&self, alpha: f64, gamma: f64, old_cwnd: f64) -> f64 {
        let Some(base) = self.base_rtt else {
            return self.cwnd;
        };
        let avg = self.avg_rtt;
        if avg == 0.0 {
            return self.cwnd;
        }
        let queued = old_cwnd * (avg - base);
        if queued < alpha * avg || queued >= self.p.beta * avg {
            let t = (1.0 - gamma) * self.cwnd + (old_cwnd * (base / avg) + alpha) * gamma;
            t.max(2.0)
        } else {
            self.cwnd
        }
    }

    /// `fast_pace`: an increase of `incre` segments, one per `bc_spacing`
    /// ACKs (the ACKs of one update period over the increments); at once
    /// while cwnd <= 4, at most doubling.
    fn pace(&mut self, incre: i64) {
        if self.avg_rtt == 0.0 {
            return;
        }
        let acks_per_period = self.acks_last_rtt as f64 * self.p.period / self.avg_rtt;
        if incre >= 1 {
            self.increments += incre as f64;
            self.bc_spacing = c_ushort(acks_per_period / self.increments);
            self.bc_ack = 1;
        } else {
            self.bc_ack = self.bc_ack.wrapping_add(1);
        }
        if self.increments != 0.0 {
            if self.cwnd <= 4.0 {
                if self.cwnd < self.increments {
                    self.increments -= (self.cwnd as u32) as f64;
                    self.cwnd += self.cwnd;
                } else {
                    self.cwnd += self.increments;
                    self.increments = 0.0;
                    self.bc_spacing = 0;
                }
                self.bc_ack = 0;
            } else if self.bc_ack >= self.bc_spacing {
                self.cwnd += 1.0;
                self.increments -= 1.0;
                self.bc_ack = 0;
            }
        }
    }

    /// The module's `recv` of a new ACK outside fast recovery: the RTT of the
    /// acknowledged packet (`rtt_`), `fast_est`, then `fast_cc` with
    /// `old_cwnd` = `avg_cwnd_last_RTT_` when that packet was sent.
    fn on_new_ack(&mut self, f: &FastLaw, tp: &mut CcState, s: &AckSample) {
        let Some(seg) = s.newest else { return };
        let now = tp.now.as_secs_f64();
        if !self.first_recv {
            // firstrecv_: baseRTT_ = avgRTT_ = the time since the first send.
            self.first_recv = true;
            self.base_rtt = Some(now - self.t0);
            self.avg_rtt = now - self.t0;
        }
        let since = now - seg.sent.as_secs_f64();
        let rtt = if !seg.retransmitted && since > 0.0 {
            since
        } else {
            self.avg_rtt
        };
        // fast_est
        if self.base_rtt.is_none_or(|b| rtt < b) {
            self.base_rtt = Some(rtt);
        }
        let unacked = tp
            .snd_nxt
            .saturating_sub(tp.snd_una)
            .div_ceil(tp.mss.max(1) as u64);
        self.avg_cwnd = (unacked + 1) as f64;
        self.update_avg_rtt(rtt);
        tp.tx_mark = self.avg_cwnd as u32;
        // fast_cc
        if self.calc_end + rtt < now {
            self.calc_end = now;
            self.acks_last_rtt = self.acks_per_rtt;
            self.acks_per_rtt = 0;
            self.on_first_rtt = !self.on_first_rtt;
        }
        self.acks_per_rtt += 1;
        let base = self.base_rtt.unwrap_or(f64::INFINITY);
        if self.avg_rtt - base < self.p.mi_threshold {
            // Little queueing: multiplicative increase, a segment per ACK.
            self.cwnd += 1.0;
            self.update_time = now;
        } else if now >= self.update_time + self.p.period && (!f.every_other || self.on_first_rtt) {
            self.increments = 0.0;
            let updated = self.calc_cwnd(f.alpha, f.gamma, seg.mark as f64);
            if updated >= self.cwnd && base >= 0.004 {
                self.pace((updated - self.cwnd) as i64);
            } else {
                self.cwnd = updated;
            }
            self.update_time = now;
        } else if base >= 0.004 {
            self.pace(0);
        }
    }
}

/// The law's parameters, shared by both modes.
#[derive(Clone, Copy, Debug)]
struct FastLaw {
    alpha: f64,
    gamma: f64,
    every_other: bool,
}

/// FAST TCP.
pub struct Fast {
    law: FastLaw,
    /// Settings of the ns-2 module, and its state on an ns-2 agent.
    module_params: ModuleParams,
    module: Option<Module>,
    /// FAST's window (segments, real).
    w: f64,
    /// Smallest RTT ever seen, ns.
    base_rtt: u64,
    /// Samples of the current round: sum (ns) and count.
    sum_rtt: u128,
    cnt_rtt: u64,
    /// Left and right edges of the current round (bytes).
    beg_snd_una: u64,
    beg_snd_nxt: u64,
    /// Mean RTT (ns) and window (segments) of the round just ended, to act on.
    pending: Option<(f64, f64)>,
    /// Whether FAST updates (Open state).
    active: bool,
    /// Freeze at the next round end (every-other-RTT updates).
    skip_next: bool,
    /// Increase still to spread: target window and credit (in units of 1/`step_den`).
    target: u32,
    credit: u64,
    step_num: u64,
    step_den: u64,
    /// cwnd as FAST last set it: anything else was set by loss recovery or undo.
    set_cwnd: u32,
}

impl Fast {
    /// FAST with `alpha` packets queued at equilibrium, gain `gamma`, and updates
    /// every other round when `every_other`.
    #[cfg(test)]
    pub fn new(alpha: f64, gamma: f64, every_other: bool) -> Self {
        Self::with_module(
            alpha,
            gamma,
            every_other,
            ModuleParams {
                beta: alpha,
                period: 0.01,
                mi_threshold: 0.00075,
            },
        )
    }

    /// As `new`, with the ns-2 module's settings for ns-2 agents.
    pub fn with_module(alpha: f64, gamma: f64, every_other: bool, module: ModuleParams) -> Self {
        Fast {
            law: FastLaw {
                alpha,
                gamma,
                every_other,
            },
            module_params: module,
            module: None,
            w: 0.0,
            base_rtt: u64::MAX,
            sum_rtt: 0,
            cnt_rtt: 0,
            beg_snd_una: 0,
            beg_snd_nxt: 0,
            pending: None,
            active: false,
            skip_next: false,
            target: 0,
            credit: 0,
            step_num: 0,
            step_den: 1,
            set_cwnd: 0,
        }
    }

    /// Start a fresh round at the current `snd_nxt` and forget what was pending.
    fn enable(&mut self, tp: &CcState) {
        self.active = true;
        self.beg_snd_una = tp.snd_una;
        self.beg_snd_nxt = tp.snd_nxt;
        self.sum_rtt = 0;
        self.cnt_rtt = 0;
        self.pending = None;
        self.skip_next = false;
    }

    /// Take the window the sender set (loss recovery, timeout, undo) as FAST's own.
    fn resync(&mut self, tp: &CcState) {
        if tp.cwnd != self.set_cwnd {
            self.w = tp.cwnd as f64;
            self.target = tp.cwnd;
            self.step_num = 0;
            self.credit = 0;
            self.set_cwnd = tp.cwnd;
        }
    }

    /// The once-per-period window update from the last round's mean RTT.
    fn update(&mut self, tp: &mut CcState, avg_rtt: f64, w_meas: f64) {
        // Finish the previous increase if its round ended early.
        if tp.cwnd < self.target {
            tp.cwnd = self.target;
        }
        let w = self.w;
        // baseRTT/avgRTT * w_meas: the window the path carries without queueing.
        let unqueued = self.base_rtt as f64 * w_meas / avg_rtt;
        // w <- min(2w, (1 - gamma) w + gamma (baseRTT/avgRTT * w_meas + alpha))
        let next = (2.0 * w)
            .min((1.0 - self.law.gamma) * w + self.law.gamma * (unqueued + self.law.alpha));
        let clamp = tp.cwnd_clamp.max(2);
        self.w = next.max(2.0).min(clamp as f64);
        let target = ((self.w + 0.5).floor() as u32).clamp(2, clamp);
        self.target = target;
        self.credit = 0;
        if target <= tp.cwnd {
            tp.cwnd = target;
            self.step_num = 0;
        } else {
            // Spread the increase over the coming round's ACKs (about cwnd of them).
            self.step_num = (target - tp.cwnd) as u64;
            self.step_den = tp.cwnd.max(1) as u64;
        }
    }
}

impl CongestionControl for Fast {
    fn name(&self) -> &'static str {
        "fast"
    }

    fn init(&mut self, tp: &mut CcState) {
        if tp.ns2_agent {
            let m = Module::new(self.module_params, tp);
            tp.tx_mark = m.avg_cwnd as u32;
            self.module = Some(m);
            self.set_cwnd = tp.cwnd;
            return;
        }
        self.w = tp.cwnd as f64;
        self.target = tp.cwnd;
        self.set_cwnd = tp.cwnd;
        self.enable(tp);
    }

    fn ssthresh(&mut self, tp: &CcState) -> u32 {
        reno_ssthresh(tp)
    }

    fn ack_event(&mut self, tp: &mut CcState, _advanced: u64) {
        if let Some(m) = &mut self.module {
            // Every ACK in fast recovery: cwnd_update_time = now.
            if tp.ca_state == CaState::Recovery {
                m.update_time = tp.now.as_secs_f64();
            }
        }
    }

    fn pkts_acked(&mut self, tp: &mut CcState, s: &AckSample) {
        if let Some(m) = &mut self.module {
            // fast_est and fast_cc run on new ACKs outside fast recovery.
            if tp.ca_state == CaState::Recovery || s.newest.is_none() {
                return;
            }
            if tp.cwnd != self.set_cwnd {
                m.cwnd = tp.cwnd as f64; // set by slowdown (the sender)
            }
            m.on_new_ack(&self.law, tp, s);
            let clamp = tp.cwnd_clamp.max(1);
            tp.cwnd = (m.cwnd.floor().max(1.0).min(clamp as f64)) as u32;
            self.set_cwnd = tp.cwnd;
            return;
        }
        if self.active && tp.snd_una > self.beg_snd_nxt {
            // The round is over: its mean RTT and the window it carried.
            if self.cnt_rtt > 0 {
                let avg = self.sum_rtt as f64 / self.cnt_rtt as f64;
                let segs = (self.beg_snd_nxt - self.beg_snd_una) as f64 / tp.mss.max(1) as f64;
                self.pending = Some((avg, segs));
            }
            self.beg_snd_una = self.beg_snd_nxt;
            self.beg_snd_nxt = tp.snd_nxt;
            self.sum_rtt = 0;
            self.cnt_rtt = 0;
        }
        if let Some(rtt) = s.rtt {
            let r = rtt.0.max(1);
            self.base_rtt = self.base_rtt.min(r);
            self.sum_rtt += r as u128;
            self.cnt_rtt += 1;
        }
    }

    fn set_state(&mut self, tp: &mut CcState, new: CaState) {
        if self.module.is_some() {
            return;
        }
        if new == CaState::Open {
            self.enable(tp);
        } else {
            self.active = false;
            self.pending = None;
        }
    }

    fn cwnd_event(&mut self, tp: &mut CcState, ev: CwndEvent) {
        if let Some(m) = &mut self.module {
            if ev == CwndEvent::Loss {
                // timeout(): slowdown(CLOSE_CWND_RESTART|CLOSE_SSTHRESH_HALF),
                // then cwnd_ = slowstart_ (2).
                tp.cwnd = 2.min(tp.cwnd_clamp.max(1));
                m.cwnd = 2.0;
                self.set_cwnd = tp.cwnd;
            }
            return;
        }
        if matches!(ev, CwndEvent::TxStart | CwndEvent::CwndRestart) {
            self.enable(tp);
        }
    }

    fn cong_avoid(&mut self, tp: &mut CcState, acked: u32) {
        if self.module.is_some() {
            return; // the module's window moves in pkts_acked
        }
        self.resync(tp);
        if let Some((avg, w_meas)) = self.pending.take() {
            if self.skip_next {
                self.skip_next = false; // the frozen round
            } else {
                self.update(tp, avg, w_meas);
                self.skip_next = self.law.every_other;
            }
        }
        if self.step_num > 0 && tp.cwnd < self.target {
            // One segment per step_den / step_num segments ACKed (<= 1 per segment).
            self.credit += self.step_num * acked as u64;
            let inc = (self.credit / self.step_den).min((self.target - tp.cwnd) as u64);
            self.credit -= inc * self.step_den;
            tp.cwnd += inc as u32;
        }
        self.set_cwnd = tp.cwnd;
    }
}

fn make(p: &CcParams) -> Result<Box<dyn CongestionControl>, String> {
    let (mut alpha, mut gamma, mut every_other) = (200.0, 0.5, 1.0);
    let (mut beta, mut period, mut mi_threshold) = (None, 0.01, 0.00075);
    for (k, &v) in p {
        match k.as_str() {
            "alpha" if v.is_finite() && v > 0.0 => alpha = v,
            "alpha" => {
                return Err(format!(
                    "fast: alpha must be a positive number of packets, got {v}"
                ))
            }
            "gamma" if v > 0.0 && v <= 1.0 => gamma = v,
            "gamma" => return Err(format!("fast: gamma must be in (0, 1], got {v}")),
            "every_other" if v == 0.0 || v == 1.0 => every_other = v,
            "every_other" => return Err(format!("fast: every_other must be 0 or 1, got {v}")),
            "beta" if v.is_finite() && v >= 0.0 => beta = Some(v),
            "beta" => {
                return Err(format!(
                    "fast: beta must be a number of packets >= 0, got {v}"
                ))
            }
            "period" if v.is_finite() && v >= 0.0 => period = v,
            "period" => return Err(format!("fast: period must be seconds >= 0, got {v}")),
            "mi_threshold" if v.is_finite() && v >= 0.0 => mi_threshold = v,
            "mi_threshold" => {
                return Err(format!(
                    "fast: mi_threshold must be seconds >= 0, got {v}"
                ))
            }
            _ => {
                return Err(format!(
                    "controller fast has no parameter {k:?} (it takes alpha, gamma, every_other, beta, period, mi_threshold)"
                ))
            }
        }
    }
    Ok(Box::new(Fast::with_module(
        alpha,
        gamma,
        every_other == 1.0,
        ModuleParams {
            beta: beta.unwrap_or(alpha),
            period,
            mi_threshold,
        },
    )))
}

/// Registry entry.
pub const INFO: CcInfo = CcInfo {
    name: "fast",
    description: "FAST TCP: w <- min(2w, (1-gamma) w + gamma (baseRTT/avgRTT w + alpha)), alpha packets queued at equilibrium",
    source: "Jin, Wei & Low, IEEE INFOCOM 2004; ns-2 FAST module 1.1.3 (Cui & Andrew, tcp-fast.cc)",
    params: &[
        ("alpha", "200", "packets the flow keeps queued at equilibrium (a convention, no source default: set it per path)"),
        ("gamma", "0.5", "gain of each update, in (0, 1]"),
        ("every_other", "1", "1: update after one round, freeze during the next (paper, ns-2, Linux); 0: every round"),
        ("beta", "alpha", "ns-2 agents only: no update while alpha <= packets queued < beta (the module's beta_)"),
        ("period", "0.01", "ns-2 agents only: seconds between updates (the module's cwnd_update_period_)"),
        ("mi_threshold", "0.00075", "ns-2 agents only: below this queueing delay (s), one segment more per ACK (the module's mi_threshold_)"),
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

    /// A FAST sender with a full window of `cwnd` segments outstanding.
    fn fast(cwnd: u32, alpha: f64, every_other: bool) -> Harness {
        Harness::with(Box::new(Fast::new(alpha, 0.5, every_other)), cwnd, u32::MAX)
    }

    // How the harness lines up with FAST rounds: `round(rtt)` ACKs the window
    // outstanding at its start, one segment per ACK. The first ACK of round k+1
    // passes the edge of round k: the update from round k's samples (mean RTT,
    // and the cwnd that round carried) is taken on it, and an increase is spread
    // over round k+1, whose end finds cwnd at the new value. So `cwnd` after
    // `round(k)` returns is the window decided after round k-1.

    #[test]
    fn empty_path_grows_by_gamma_alpha_per_update_within_doubling() {
        // baseRTT = RTT = 100 ms throughout, alpha 40, gamma 0.5, every other round.
        // With no queue the update is w <- min(2w, w/2 + (w + 40)/2) = min(2w, w + 20).
        let mut h = fast(10, 40.0, true);
        let mut seen = vec![];
        for _ in 0..9 {
            h.round(ms(100));
            seen.push(h.tp.cwnd);
        }
        // after round 1: no update yet (10)
        // after round 2: update on round 1: min(20, 10 + 20) = 20 (the 2w bound)
        // after round 3: round 2 frozen (20)
        // after round 4: update on round 3: min(40, 20 + 20) = 40
        // after round 5: frozen; round 6: min(80, 40 + 20) = 60; 7 frozen;
        // round 8: min(120, 60 + 20) = 80; 9 frozen.
        assert_eq!(seen, [10, 20, 20, 40, 40, 60, 60, 80, 80]);
    }

    #[test]
    fn every_round_updates_when_every_other_is_off() {
        // Same path, every_other = 0. The update after round k reads round k,
        // which carried the window decided one round earlier (w_meas lags w):
        // after round 2: update on round 1 (w 10, w_meas 10): min(20, 5 + 25) = 20
        // after round 3: on round 2 (w 20, w_meas 10): min(40, 10 + (10 + 40)/2) = 35
        // after round 4: on round 3 (w 35, w_meas 20): 17.5 + 30 = 47.5 -> 48
        // after round 5: on round 4 (w 47.5, w_meas 35): 23.75 + 37.5 = 61.25 -> 61
        // after round 6: on round 5 (w 61.25, w_meas 48): 30.625 + 44 = 74.625 -> 75
        let mut h = fast(10, 40.0, false);
        let mut seen = vec![];
        for _ in 0..6 {
            h.round(ms(100));
            seen.push(h.tp.cwnd);
        }
        assert_eq!(seen, [10, 20, 35, 48, 61, 75]);
    }

    #[test]
    fn an_increase_is_spread_over_the_next_round() {
        // The update from 20 to 40 (after round 3 above) is paced over round 4's
        // 20 ACKs: one segment per ACK, never a burst.
        let mut h = fast(10, 40.0, true);
        for _ in 0..3 {
            h.round(ms(100));
        }
        assert_eq!(h.tp.cwnd, 20);
        let mut last = h.tp.cwnd;
        for _ in 0..20 {
            h.advance(ms(5));
            h.ack(1, ms(100));
            assert_eq!(h.tp.cwnd, last + 1);
            last = h.tp.cwnd;
        }
        assert_eq!(h.tp.cwnd, 40);
    }

    #[test]
    fn equilibrium_is_reached_from_below_with_alpha_packets_queued() {
        // A bottleneck of 1 packet/ms behind 100 ms of propagation delay: a round
        // that carries W packets sees RTT = max(100, W) ms (W - 100 queued).
        // alpha 20, gamma 0.5, every other round. Below the BDP the path is
        // empty and each update adds gamma*alpha = 10; above it
        // baseRTT/RTT * W = 100 * W / W = 100, so w <- w/2 + (100 + 20)/2
        // = w/2 + 60, which halves the distance to 120 each time and never
        // passes it. Equilibrium: w = alpha / (1 - baseRTT/RTT) = 20 / (1 - 100/120)
        // = 120, 20 packets queued.
        //   updates: 10 -> 20 -> 30 -> ... -> 100 -> 110 (RTT 100, still empty)
        //            -> 115 (RTT 110) -> 117.5 (118) -> 118.75 (119) -> 119.375 (119)
        //            -> 119.6875 (120) -> 119.84 (120) -> ...
        // cwnd after each round (each update shows two rounds after the one it
        // reads, then holds for the frozen round):
        let mut expect = vec![10];
        for w in [
            20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 115, 118, 119, 119, 120,
        ] {
            expect.extend([w, w]);
        }
        let mut h = fast(10, 20.0, true);
        let mut seen = vec![];
        for _ in 0..expect.len() + 10 {
            let rtt = ms(100.max(h.tp.cwnd as u64));
            h.round(rtt);
            seen.push(h.tp.cwnd);
            assert!(h.tp.cwnd <= 120, "overshoot: {seen:?}");
        }
        assert_eq!(seen[..expect.len()], expect[..]);
        assert!(seen[expect.len()..].iter().all(|&w| w == 120));
    }

    #[test]
    fn loss_halves_and_updates_resume_from_the_halved_window() {
        let mut h = fast(40, 20.0, true);
        h.round(ms(100)); // no update yet
        h.loss(); // ssthresh = max(40/2, 2) = 20, cwnd = 20
        assert_eq!((h.tp.cwnd, h.tp.ssthresh), (20, 20));
        // Back in Open, FAST waits for a full round: the 40 segments outstanding at
        // the loss (the harness's recovery is instantaneous) are ACKed over two
        // `round` calls of 20 ACKs at 200 ms without an update.
        h.round(ms(200));
        h.round(ms(200));
        assert_eq!(h.tp.cwnd, 20);
        // The first ACK past them updates from w = 20 (not the 40 before the loss):
        // w_meas = 40, avgRTT 200: min(40, 10 + (100/200 * 40 + 20)/2) = 30,
        // spread over this round of 20 ACKs.
        h.round(ms(200));
        assert_eq!(h.tp.cwnd, 30);
    }

    #[test]
    fn defaults_are_alpha_200_gamma_half_every_other_round() {
        // make() with no parameters: alpha 200, gamma 0.5, every other round.
        // Empty path (baseRTT = RTT = 100 ms), 400 segments: the round read by
        // each update carried w, so baseRTT/RTT * w_meas = w and the update is
        // w <- min(2w, (1 - 0.5) w + 0.5 (w + 200)) = min(2w, w + 100).
        //   after round 1: no update (400)
        //   after round 2: on round 1: min(800, 200 + 300) = 500
        //   after round 3: frozen (500)
        //   after round 4: on round 3: min(1000, 250 + 350) = 600
        // (gamma 1 would give w + 200, alpha 100 would give w + 50.)
        let cc = make(&CcParams::new()).unwrap();
        let mut h = Harness::with(cc, 400, u32::MAX);
        let mut seen = vec![];
        for _ in 0..4 {
            h.round(ms(100));
            seen.push(h.tp.cwnd);
        }
        assert_eq!(seen, [400, 500, 500, 600]);
    }

    #[test]
    fn parameters_are_parsed_and_checked() {
        let p = |v: &[(&str, f64)]| -> CcParams {
            v.iter().map(|(k, x)| (k.to_string(), *x)).collect()
        };
        assert!(make(&p(&[("alpha", 50.0), ("gamma", 1.0), ("every_other", 0.0)])).is_ok());
        let e = |v: &[(&str, f64)]| make(&p(v)).err().unwrap();
        assert!(e(&[("delta", 1.0)]).contains("no parameter \"delta\""));
        assert!(make(&p(&[
            ("beta", 0.0),
            ("period", 0.02),
            ("mi_threshold", 0.0)
        ]))
        .is_ok());
        assert!(e(&[("beta", -1.0)]).contains("beta must be"));
        assert!(e(&[("period", f64::INFINITY)]).contains("period must be"));
        assert!(e(&[("mi_threshold", -0.001)]).contains("mi_threshold must be"));
        assert!(e(&[("alpha", 0.0)]).contains("positive"));
        assert!(e(&[("gamma", 1.5)]).contains("(0, 1]"));
        assert!(e(&[("gamma", f64::NAN)]).contains("(0, 1]"));
        assert!(e(&[("every_other", 2.0)]).contains("0 or 1"));
    }

    // ---- The ns-2 module (tcp-fast.cc), on ns-2 agents ----------------------

    use crate::cc::SentSeg;
    use std::collections::VecDeque;

    fn module(alpha: f64, base: f64, avg: f64, cwnd: f64, acks_last_rtt: u32) -> Module {
        let mut tp = CcState::new(cwnd as u32, 1000);
        tp.ns2_agent = true;
        let mut m = Module::new(
            ModuleParams {
                beta: alpha,
                period: 0.01,
                mi_threshold: 0.00075,
            },
            &tp,
        );
        m.first_recv = true;
        m.base_rtt = Some(base);
        m.avg_rtt = avg;
        m.cwnd = cwnd;
        m.acks_last_rtt = acks_last_rtt;
        m
    }

    #[test]
    fn module_rtt_average_weighs_1_in_256_or_3_over_w_above_768_packets() {
        // fast_est_update_avgrtt: scale = avg_cwnd / 3; weight 1/256 while
        // scale <= 256, else 1/scale.
        let mut m = module(100.0, 0.1, 0.1, 30.0, 0);
        m.avg_cwnd = 30.0;
        m.update_avg_rtt(0.356); // (255 * 0.1 + 0.356) / 256 = 25.856 / 256
        assert!((m.avg_rtt - 0.101).abs() < 1e-12);
        m.avg_rtt = 0.1;
        m.avg_cwnd = 768.0; // scale 256: still 1/256
        m.update_avg_rtt(0.356);
        assert!((m.avg_rtt - 0.101).abs() < 1e-12);
        m.avg_rtt = 0.1;
        m.avg_cwnd = 1536.0; // scale 512: (511 * 0.1 + 0.612) / 512 = 51.712 / 512
        m.update_avg_rtt(0.612);
        assert!((m.avg_rtt - 0.101).abs() < 1e-12);
        m.avg_rtt = 0.0; // none yet: the sample itself
        m.update_avg_rtt(0.2);
        assert_eq!(m.avg_rtt, 0.2);
    }

    #[test]
    fn module_window_equation_with_and_without_the_beta_dead_band() {
        // fast_calc_cwnd, cwnd 100, old_cwnd 100, baseRTT 100 ms, avgRTT 125 ms:
        // old * (avg - base) = 2.5, alpha * avg = 12.5 (alpha 100): update to
        // 0.5 * 100 + (100 * 0.8 + 100) * 0.5 = 140.
        let m = module(100.0, 0.1, 0.125, 100.0, 0);
        assert!((m.calc_cwnd(100.0, 0.5, 100.0) - 140.0).abs() < 1e-9);
        // alpha 10, beta 30: 1.25 <= 2.5 < 3.75, inside the band: no change.
        let mut m = module(10.0, 0.1, 0.125, 100.0, 0);
        m.p.beta = 30.0;
        assert_eq!(m.calc_cwnd(10.0, 0.5, 100.0), 100.0);
        // Never below 2: cwnd 2, old 2, avg 4 * base: 1 + (0.5 + 0.1) * 0.5 < 2.
        let m = module(0.1, 0.1, 0.4, 2.0, 0);
        assert_eq!(m.calc_cwnd(0.1, 0.5, 2.0), 2.0);
    }

    #[test]
    fn module_pace_spreads_an_increase_over_the_acks_of_one_period() {
        // acks_last_rtt 200, period 10 ms, avgRTT 100 ms: 20 ACKs per period;
        // an increase of 5 is one segment every 20 / 5 = 4 ACKs, the first on
        // the 4th ACK (bc_ack starts at 1 on the ACK that sets it).
        let mut m = module(100.0, 0.09, 0.1, 10.0, 200);
        m.pace(5);
        assert_eq!((m.bc_spacing, m.cwnd), (4, 10.0));
        let mut seen = vec![];
        for _ in 0..19 {
            m.pace(0);
            seen.push(m.cwnd as u32);
        }
        assert_eq!(seen[..4], [10, 10, 11, 11]);
        assert_eq!(seen[18], 15);
        assert_eq!(m.increments, 0.0);
        // At most 4 segments: at once, at most doubling. cwnd 3 + 5: 3 -> 6
        // (2 left), then at the spacing.
        let mut m = module(100.0, 0.09, 0.1, 3.0, 200);
        m.pace(5);
        assert_eq!((m.cwnd, m.increments), (6.0, 2.0));
    }

    /// Feed the module one new ACK at `at` (s) for a packet sent `rtt` earlier
    /// when `mark` was in force.
    fn module_ack(m: &mut Module, law: &FastLaw, at: f64, rtt: f64, mark: u32) {
        let mut tp = CcState::new(m.cwnd as u32, 1000);
        tp.now = SimTime::from_secs_f64(at);
        tp.snd_una = 1;
        tp.snd_nxt = 1 + 10 * 1000;
        let s = AckSample {
            pkts_acked: 1,
            newest: Some(SentSeg {
                sent: SimTime::from_secs_f64(at - rtt),
                retransmitted: false,
                mark,
            }),
            ..Default::default()
        };
        m.on_new_ack(law, &mut tp, &s);
    }

    #[test]
    fn module_updates_once_per_period_from_the_window_the_packet_was_sent_with() {
        // baseRTT 80 ms, every sample 100 ms (avgRTT stays 100 ms, queueing
        // 20 ms: no MI), alpha 6, gamma 0.5, every RTT; one ACK per period's
        // worth of pacing (acks_last_rtt 10: 1 ACK per 10 ms, spacing 0).
        let law = FastLaw {
            alpha: 6.0,
            gamma: 0.5,
            every_other: false,
        };
        // Times from 1 s (the last update then).
        let mut m = module(6.0, 0.08, 0.1, 10.0, 10);
        m.update_time = 1.0;
        m.calc_end = 1.0;
        // 5 ms: within the period, nothing to pace: 10.
        module_ack(&mut m, &law, 1.005, 0.1, 10);
        assert_eq!(m.cwnd, 10.0);
        // 10 ms: 0.5 * 10 + (10 * 0.8 + 6) * 0.5 = 12, paced: +2 over the
        // period at spacing (u16)(1 / 2) = 0: +1 now, +1 on the next ACK.
        module_ack(&mut m, &law, 1.010, 0.1, 10);
        assert_eq!(m.cwnd, 11.0);
        module_ack(&mut m, &law, 1.011, 0.1, 10);
        assert_eq!(m.cwnd, 12.0);
        module_ack(&mut m, &law, 1.012, 0.1, 10);
        assert_eq!(m.cwnd, 12.0);
        // 20 ms: from cwnd 12 and the old window 10: 6 + (8 + 6) / 2 = 13.
        module_ack(&mut m, &law, 1.020, 0.1, 10);
        assert_eq!(m.cwnd, 13.0);
        // A decrease is at once and fractional: old window 12, alpha 1:
        // 6.5 + (9.6 + 1) / 2 = 11.8.
        let law1 = FastLaw { alpha: 1.0, ..law };
        m.p.beta = 1.0;
        module_ack(&mut m, &law1, 1.030, 0.1, 12);
        assert!((m.cwnd - 11.8).abs() < 1e-9);
    }

    /// An ns-2 agent running FAST through the controller's hooks as the
    /// sender calls them; each segment remembers its send time and the mark.
    struct Ns2Agent {
        tp: CcState,
        cc: Fast,
        out: VecDeque<(SimTime, u32)>,
    }

    impl Ns2Agent {
        /// Connected at `now` after a SYN of RTT `syn_rtt`, window `iw` sent.
        fn new(law: FastLaw, p: ModuleParams, iw: u32, syn_rtt: SimTime, now: SimTime) -> Self {
            let mut tp = CcState::new(iw, 1000);
            tp.ns2_agent = true;
            tp.min_rtt = syn_rtt;
            tp.now = now;
            tp.snd_una = 1;
            tp.snd_nxt = 1;
            let mut cc = Fast::with_module(law.alpha, law.gamma, law.every_other, p);
            cc.init(&mut tp);
            let mut a = Ns2Agent {
                tp,
                cc,
                out: VecDeque::new(),
            };
            a.send();
            a
        }
        fn send(&mut self) {
            while (self.out.len() as u32) < self.tp.cwnd {
                self.out.push_back((self.tp.now, self.tp.tx_mark));
                self.tp.snd_nxt += 1000;
            }
        }
        /// The oldest packet is acknowledged at `at`.
        fn ack(&mut self, at: SimTime) {
            self.tp.now = at;
            let (sent, mark) = self.out.pop_front().expect("a packet in flight");
            self.cc.ack_event(&mut self.tp, 1000);
            self.tp.snd_una += 1000;
            let s = AckSample {
                pkts_acked: 1,
                rtt: Some(at - sent),
                in_flight: self.out.len() as u32 + 1,
                newest: Some(SentSeg {
                    sent,
                    retransmitted: false,
                    mark,
                }),
            };
            self.cc.pkts_acked(&mut self.tp, &s);
            if self.tp.ca_state != CaState::Recovery {
                self.cc.cong_avoid(&mut self.tp, 1);
            }
            self.send();
        }
    }

    fn module_defaults(alpha: f64) -> (FastLaw, ModuleParams) {
        (
            FastLaw {
                alpha,
                gamma: 0.5,
                every_other: false,
            },
            ModuleParams {
                beta: alpha,
                period: 0.01,
                mi_threshold: 0.00075,
            },
        )
    }

    #[test]
    fn module_starts_with_a_segment_per_ack_and_marks_the_packets_in_flight() {
        // The SYN's RTT (100 ms) is baseRTT and avgRTT; with every RTT equal
        // to it there is no queueing delay (< mi_threshold_), so every ACK adds
        // a segment: 2, then 4, 8, 16 after each round. Each packet is marked
        // with avg_cwnd_last_RTT_ when sent: t_seqno_ - seqno at the ACK
        // before, i.e. packets unacknowledged after that ACK plus one; the
        // first two with 1 (the SYN's ACK: t_seqno_ 1, seqno 0).
        let (law, p) = module_defaults(100.0);
        let mut a = Ns2Agent::new(law, p, 2, ms(100), ms(100));
        assert_eq!(a.out.iter().map(|x| x.1).collect::<Vec<_>>(), [1, 1]);
        let mut t = ms(100);
        let mut windows = vec![];
        for _ in 0..3 {
            t += ms(100);
            let n = a.out.len();
            for _ in 0..n {
                a.ack(t);
            }
            windows.push(a.tp.cwnd);
        }
        assert_eq!(windows, [4, 8, 16]);
        let base = a.cc.module.as_ref().unwrap().base_rtt.unwrap();
        assert!((base - 0.1).abs() < 1e-12);
    }

    #[test]
    fn module_marks_each_packet_with_the_packets_in_flight_at_the_ack_before() {
        // Round 1 (two packets, mark 1): its first ACK leaves 1 packet
        // unacknowledged, mark 1 + 1 = 2, cwnd 3: two packets sent with 2; the
        // second leaves those 2 (+1 = 3), cwnd 4: two more with 3.
        let (law, p) = module_defaults(100.0);
        let mut a = Ns2Agent::new(law, p, 2, ms(100), ms(100));
        a.ack(ms(200));
        a.ack(ms(200));
        assert_eq!(a.out.iter().map(|x| x.1).collect::<Vec<_>>(), [2, 2, 3, 3]);
    }

    #[test]
    fn module_timeout_restarts_at_two_and_recovery_acks_hold_the_update() {
        let (law, p) = module_defaults(100.0);
        let mut a = Ns2Agent::new(law, p, 10, ms(100), ms(100));
        // timeout(): cwnd_ = slowstart_ = 2 whatever the sender set (1).
        a.tp.cwnd = 1;
        a.cc.cwnd_event(&mut a.tp, CwndEvent::Loss);
        assert_eq!(a.tp.cwnd, 2);
        assert_eq!(a.cc.module.as_ref().unwrap().cwnd, 2.0);
        // In fast recovery every ACK sets cwnd_update_time; new ACKs there
        // leave the estimator and the window alone.
        a.tp.cwnd = 5;
        a.tp.ca_state = CaState::Recovery;
        a.ack(ms(250));
        let m = a.cc.module.as_ref().unwrap();
        assert_eq!(m.update_time, 0.25);
        assert_eq!(a.tp.cwnd, 5);
        // Back in Open, the window the sender set (5) is the module's.
        a.tp.ca_state = CaState::Open;
        a.ack(ms(251));
        assert!(a.cc.module.as_ref().unwrap().cwnd >= 5.0);
    }

    #[test]
    fn module_equilibrium_keeps_alpha_packets_queued() {
        // A bottleneck of one packet per ms, 100 ms of propagation: a packet
        // sent at t leaves the queue at max(t, previous) + 1 ms and is ACKed
        // 100 ms later. baseRTT = 101 ms; with W in flight the RTT is W ms
        // once a queue stands, so FAST's fixed point W = W base/avg + alpha
        // is W = 101 + alpha: alpha packets queued (alpha 20: W = 121).
        let (law, p) = module_defaults(20.0);
        let mut a = Ns2Agent::new(law, p, 2, ms(101), ms(101));
        let mut acks: VecDeque<SimTime> = VecDeque::new();
        let mut dep = SimTime::ZERO;
        let mut queued = vec![];
        let schedule = |a: &Ns2Agent, acks: &mut VecDeque<SimTime>, dep: &mut SimTime| {
            while acks.len() < a.out.len() {
                let sent = a.out[acks.len()].0;
                *dep = (*dep).max(sent) + ms(1);
                acks.push_back(*dep + ms(100));
            }
        };
        schedule(&a, &mut acks, &mut dep);
        while let Some(at) = acks.pop_front() {
            if at > SimTime::from_secs(60) {
                break;
            }
            a.ack(at);
            schedule(&a, &mut acks, &mut dep);
            if at > SimTime::from_secs(50) {
                // Packets waiting at the bottleneck: those not yet served.
                queued.push(acks.iter().filter(|&&t| t - ms(100) > at).count());
            }
        }
        let mean = queued.iter().sum::<usize>() as f64 / queued.len() as f64;
        assert!((mean - 20.0).abs() <= 1.5, "mean queue {mean}");
        assert!((119..=123).contains(&a.tp.cwnd), "cwnd {}", a.tp.cwnd);
    }
}
