//! CUBIC as Linux runs it (`cubic`), and as FreeBSD 9.2 ran it (`cubic-freebsd`).
//!
//! # `cubic`: Linux net/ipv4/tcp_cubic.c (v2.3, Linux 5.7-6.x), RFC 9438
//!
//! RFC 9438's window after a congestion event at `W_max` is
//!
//! ```text
//! W_cubic(t) = C (t - K)^3 + W_max,   K = cbrt(W_max (1 - beta) / C)     (eq. 1, 2)
//! W_est      = W_est + alpha * acked / cwnd,  alpha = 3 (1 - beta) / (1 + beta)   (eq. 4)
//! cwnd grows towards max(W_cubic(t + RTT), W_est)
//! ```
//!
//! Linux computes it in integers, and this file copies that arithmetic:
//! - beta = 717/1024 (`BICTCP_BETA_SCALE`); ssthresh = max(cwnd * 717 / 1024, 2);
//! - fast convergence: a loss below the previous `W_max` sets
//!   `W_max = cwnd * (1024 + 717) / 2048`;
//! - time in jiffies (`HZ`, parameter `hz`, default 1000; a host's profile may
//!   give its kernel's, the `linux` profile 250), converted to 1/1024 s
//!   (`BICTCP_HZ`); C = `bic_scale` / 1024 = 41/1024 via `cube_rtt_scale = 410`
//!   and `delta = 410 * (t - K)^3 >> 40` (so C is 410/1024 = 0.4004);
//! - `K = cubic_root(cube_factor * (W_max - cwnd))`, `cube_factor = 2^40 / 410`,
//!   with Linux's table-lookup cube root and one Newton-Raphson step;
//! - `bictcp_update`: `cnt = cwnd / (target - cwnd)` (or `100 * cwnd` when at or above
//!   the target), at most 20 before the first loss, the TCP-friendly estimate
//!   `tcp_cwnd` growing by one per `cwnd * beta_scale >> 3` acknowledged segments
//!   (`beta_scale = 8 (1024 + 717) / 3 / (1024 - 717) = 15`, i.e. alpha = 8/15), and
//!   `cnt >= 2`; recomputed at most once per jiffy and, with an unchanged window,
//!   once per `HZ / 32`; then `tcp_cong_avoid_ai(cnt, acked)`;
//! - `delay_min` from RTT samples (ignored during the first second of an epoch);
//!   `t` includes `delay_min` (the target is the window one RTT ahead);
//! - `cwnd_event(TX_START)` shifts `epoch_start` by the idle time (`now - lsndtime`);
//! - `set_state(Loss)` resets everything; undo is `tcp_reno_undo_cwnd`;
//! - HyStart (on by default, parameter `hystart`): per round (`end_seq` = `snd_nxt`),
//!   ACK-train detection (ACKs closer than `hystart_ack_delta_us` = 2 ms spanning more
//!   than `delay_min / 2`) and delay detection (after `HYSTART_MIN_SAMPLES` = 8
//!   samples of a round, the round's minimum RTT above
//!   `delay_min + clamp(delay_min / 8, 4 ms, 16 ms)`), only from
//!   `hystart_low_window` = 16 segments, checked after the round's reset so that
//!   rounds are tracked from the first ACK (Linux 5.7's `hystart_update`); both
//!   set ssthresh = cwnd.
//!
//! Deviations from Linux:
//! - `hystart_ack_delay()` reads `sk_pacing_rate`, which Linux sets on every
//!   connection (`tcp_update_pacing_rate`), and `sk_pacing_status`. The simulator
//!   has that rate where the host computes it as Linux does (`linux_pacing`:
//!   `tp.sk_pacing_rate`, the last ACK's); elsewhere, and before the first RTT
//!   sample, none, and the TSO/GRO cushion is 0. The cushion is
//!   `min(1 ms, 4 * sk_gso_max_size / rate)`: 1 ms below 2.1 Gbit/s. A connection
//!   that does not pace (`tp.pacing_rate == 0`, `SK_PACING_NONE`) halves the
//!   ACK-train threshold: `(delay_min + 1 ms) / 2` on a `linux` host.
//! - Products that overflow 32 bits in Linux only beyond a few million segments
//!   (`cwnd * beta`, the fast-convergence product) are computed in 64 bits. The cubic
//!   term keeps Linux's wrapping 64-bit arithmetic (it wraps 347 s into an epoch
//!   without loss, as in Linux). A zero TCP-friendly step (impossible in Linux) is
//!   taken as 1 so the loop ends.
//! - Jiffies and `epoch_start` are 64-bit and `epoch_start` is an `Option` (Linux
//!   uses 0 as "no epoch", which a simulation starting at time 0 would hit).
//! - `initial_ssthresh` (0 by default in Linux) is not offered.
//! - RTT samples are the sender's (timestamps, else Karn); Linux's `rtt_us` for
//!   congestion control is the send-to-ACK time of the newest segment acknowledged.
//!
//! # `cubic-freebsd`: FreeBSD 9.2 sys/netinet/cc/cc_cubic.c and cc_cubic.h
//!
//! FreeBSD 9.2's module (r220592, unchanged from 9.0 to 9.3) follows
//! draft-rhee-tcpm-cubic-02 and differs from Linux in nearly every step, so it is a
//! separate registered controller ([`INFO_FREEBSD`]) rather than a `variant`
//! parameter: the two share no state machine (time since the congestion event and
//! a once-per-window update here, ACK-counted `cnt` there), and Linux's parameters
//! (HyStart, `tcp_friendliness`, `hz`) would mean nothing to it. Where it differs:
//! - beta: `CUBIC_BETA` = 204/256 = 0.797 (the draft's beta 0.2), not 717/1024;
//!   and the *first* congestion event halves: ssthresh = cwnd / 2
//!   (`cubic_ssthresh_update`, `num_cong_events == 0`), later ones cwnd * 204 / 256;
//! - the window after fast recovery (`cubic_post_recovery`) is
//!   `max_cwnd * 204 / 256` (or `flight + 1 MSS` when the flight is below ssthresh),
//!   not ssthresh: after the first loss cwnd = 0.8 W while ssthresh = 0.5 W;
//! - fast convergence is applied when recovery ends, with `CUBIC_FC_FACTOR`
//!   230/256 = 0.9 on `max_cwnd` (and the new window uses the reduced `max_cwnd`);
//! - K by the Apple TR KT-32 polynomial approximation of the cube root
//!   (`cubic_k`), in 1/256 s, from `max_cwnd / MSS` alone (no `W_max - cwnd`);
//! - C = `CUBIC_C_FACTOR` 102/256 = 0.398; `t` = ticks (hz = 1000) since the last
//!   congestion event (no shift after idle), RTT = mean smoothed RTT over the previous
//!   epoch (`mean_rtt_ticks`), not `delay_min`;
//! - the window is set, not increased by a count: once per window of acknowledged
//!   bytes (RFC 3465 ABC, `CCF_ABC_SENTAWND`, `net.inet.tcp.rfc3465=1`) to
//!   `W_cubic(t + RTT)` (`cubic_cwnd`) when above cwnd, or to the TCP-friendly
//!   `W_tf = W_max * 0.8 + 3 * 0.2 / 1.8 * t / RTT * MSS` (`tf_cwnd`, draft eq. 4,
//!   computed from time, not from ACKs as Linux does) when that is larger;
//! - `tf_cwnd` multiplies `153 * ticks * smss << 8` in 32-bit unsigned arithmetic
//!   (`int * uint32_t`), which wraps after 75 ms for a 1448-byte MSS: FreeBSD 9.2's
//!   TCP-friendly window is in effect `W_max * 0.8` plus a sawtooth below
//!   `2^32 / 461 / 256 / RTT` bytes (36393 B / RTT in ms: under one MSS above 25 ms).
//!   This is kept (it is what 9.2 did); FreeBSD later casts to `unsigned long`;
//! - slow start is NewReno's with ABC, `abc_l_var` = 2: cwnd += min(acked, 2) per ACK
//!   while cwnd <= ssthresh (not <), uncapped at ssthresh; before 8 RTT samples
//!   (`CUBIC_MIN_RTT_SAMPLES`) congestion avoidance is NewReno's (1 MSS per window);
//! - no HyStart (current FreeBSD has HyStart++), no epoch shift after idle
//!   (`after_idle` is NewReno's RFC 5681 restart, a stack behaviour);
//! - on a timeout the module only counts a congestion event from the second
//!   consecutive one (`t_rxtshift >= 2`) and restarts `t_last_cong` (a missing brace
//!   makes that unconditional, kept); ssthresh is the stack's
//!   max(2, cwnd / 2) (tcp_input.c `cc_cong_signal(CC_RTO)`), and `max_cwnd`/K keep
//!   their values.
//!
//! Deviations from FreeBSD 9.2: windows are whole segments here, so FreeBSD's byte
//! windows are floored to segments when set (they are computed in bytes);
//! `CCF_CWND_LIMITED` is read as `tp.is_cwnd_limited`; ABC's `abc_l_var` is the
//! host's (`ss_ack_limit`, `ca_ack_limit`, 1 during a timeout's go-back-N with
//! `ss_ack_limit_rto`: the `freebsd` profile), 2 when the host sets none; the
//! post-recovery step runs on `CompleteCwr`, or on the next ACK when the host's
//! recovery ends without it (Reno), and not after an undo (`undo_cwnd`; FreeBSD
//! 9.2 only undoes timeouts); ECN is not modelled;
//! FreeBSD's ssthresh of 2 segments on every further backoff of a timeout is the
//! sender's business (it keeps RFC 5681's value). Current FreeBSD differs again:
//! beta 0.7 (179/256), FC 217/256, the 64-bit fix of `tf_cwnd`, HyStart++.

use super::{
    ca_acked, cong_avoid_ai, int_params, AckSample, CaState, CcInfo, CcParams, CcState,
    CongestionControl, CwndEvent,
};
use tcplab_engine::SimTime;

// ------------------------------------------------------------ Linux constants

/// Scale of beta (Linux `BICTCP_BETA_SCALE`).
const BICTCP_BETA_SCALE: u32 = 1024;
/// 2^10 time units per second in the cubic function (Linux `BICTCP_HZ`).
const BICTCP_HZ: u32 = 10;
/// HyStart detection methods (Linux `HYSTART_ACK_TRAIN`, `HYSTART_DELAY`).
const HYSTART_ACK_TRAIN: u32 = 0x1;
const HYSTART_DELAY: u32 = 0x2;
/// Delay samples per round before the delay test (Linux `HYSTART_MIN_SAMPLES`).
const HYSTART_MIN_SAMPLES: u8 = 8;
/// Bounds of the delay-increase threshold, us (`HYSTART_DELAY_MIN`/`_MAX`).
const HYSTART_DELAY_MIN: u32 = 4000;
const HYSTART_DELAY_MAX: u32 = 16000;

/// Linux `cubic_root`: cube root of `a` by a 64-entry table of cbrt(x << 18) - 1
/// on the leading bits, then one Newton-Raphson step (average error ~0.195%).
pub(crate) fn cubic_root(a: u64) -> u32 {
    // cbrt(x) MSB values for x MSB values in [0..63] (Willy Tarreau's table).
    const V: [u8; 64] = [
        0, 54, 54, 54, 118, 118, 118, 118, 123, 129, 134, 138, 143, 147, 151, 156, 157, 161, 164,
        168, 170, 173, 176, 179, 181, 185, 187, 190, 192, 194, 197, 199, 200, 202, 204, 206, 209,
        211, 213, 215, 217, 219, 221, 222, 224, 225, 227, 229, 231, 232, 234, 236, 237, 239, 240,
        242, 244, 245, 246, 248, 250, 251, 252, 254,
    ];
    let b = 64 - a.leading_zeros(); // fls64
    if b < 7 {
        // a in [0..63]
        return (V[a as usize] as u32 + 35) >> 6;
    }
    let b = ((b * 84) >> 8) - 1;
    let shift = (a >> (b * 3)) as usize;
    let x = ((V[shift] as u32 + 10) << b) >> 6;
    // x_{k+1} = (2 x_k + a / x_k^2) / 3, with x(x - 1) and 341/1024 for 1/3.
    let x = (2 * x).wrapping_add((a / (x as u64 * (x as u64 - 1))) as u32);
    ((x as u64 * 341) >> 10) as u32
}

/// Linux `usecs_to_jiffies` for an `hz` dividing 1 000 000 (rounds up).
fn usecs_to_jiffies(us: u32, hz: u64) -> u64 {
    let per = 1_000_000 / hz;
    (us as u64).div_ceil(per)
}

/// Linux CUBIC's module parameters.
#[derive(Clone, Copy, Debug)]
struct Params {
    fast_convergence: bool,
    tcp_friendliness: bool,
    beta: u32,
    bic_scale: u32,
    hystart: bool,
    hystart_detect: u32,
    hystart_low_window: u32,
    hystart_ack_delta_us: u32,
    hz: u64,
}

/// CUBIC, Linux's tcp_cubic.c.
pub struct Cubic {
    p: Params,
    /// `8 (1024 + beta) / 3 / (1024 - beta)` (15 for beta 717).
    beta_scale: u32,
    /// `bic_scale * 10` (410): 1024 C / RTT with RTT 0.1 s folded in.
    cube_rtt_scale: u32,
    /// `2^40 / (bic_scale * 10)`.
    cube_factor: u64,
    // struct bictcp
    cnt: u32,
    last_max_cwnd: u32,
    last_cwnd: u32,
    last_time: u64,
    bic_origin_point: u32,
    bic_k: u32,
    /// Minimum RTT, us (0 = none yet).
    delay_min: u32,
    /// Start of the epoch, jiffies.
    epoch_start: Option<u64>,
    ack_cnt: u32,
    tcp_cwnd: u32,
    sample_cnt: u8,
    found: bool,
    /// Start of the HyStart round, us.
    round_start: u64,
    end_seq: u64,
    /// Last ACK of the current train, us.
    last_ack: u64,
    /// Minimum RTT of the current round, us.
    curr_rtt: u32,
}

impl Cubic {
    fn new(p: Params) -> Self {
        let beta_scale = 8 * (BICTCP_BETA_SCALE + p.beta) / 3 / (BICTCP_BETA_SCALE - p.beta).max(1);
        let cube_rtt_scale = p.bic_scale * 10;
        let cube_factor = (1u64 << (10 + 3 * BICTCP_HZ)) / (p.bic_scale as u64 * 10);
        Cubic {
            p,
            beta_scale,
            cube_rtt_scale,
            cube_factor,
            cnt: 0,
            last_max_cwnd: 0,
            last_cwnd: 0,
            last_time: 0,
            bic_origin_point: 0,
            bic_k: 0,
            delay_min: 0,
            epoch_start: None,
            ack_cnt: 0,
            tcp_cwnd: 0,
            sample_cnt: 0,
            found: false,
            round_start: 0,
            end_seq: 0,
            last_ack: 0,
            curr_rtt: 0,
        }
    }

    fn jiffies(&self, t: SimTime) -> u64 {
        super::jiffies(t, self.p.hz)
    }

    /// `bictcp_reset`: the fields before `unused` in Linux's struct, and `found`
    /// (not the HyStart round).
    fn reset(&mut self) {
        self.cnt = 0;
        self.last_max_cwnd = 0;
        self.last_cwnd = 0;
        self.last_time = 0;
        self.bic_origin_point = 0;
        self.bic_k = 0;
        self.delay_min = 0;
        self.epoch_start = None;
        self.ack_cnt = 0;
        self.tcp_cwnd = 0;
        self.found = false;
    }

    /// `bictcp_hystart_reset`: a new round starts now and ends with `snd_nxt`.
    fn hystart_reset(&mut self, tp: &CcState) {
        self.round_start = tp.now.as_micros();
        self.last_ack = self.round_start;
        self.end_seq = tp.snd_nxt;
        self.curr_rtt = u32::MAX;
        self.sample_cnt = 0;
    }

    /// The cubic function at `t` (1/1024 s since the epoch start):
    /// `W_cubic(t) = W_max + C (t - K)^3`, with C = `cube_rtt_scale` / 2^40 per
    /// (1/1024 s)^3, i.e. 410/1024 per s^3.
    fn target(&self, t: u64) -> u32 {
        let k = self.bic_k as u64;
        let offs = t.abs_diff(k);
        // c/rtt * (t-K)^3
        let delta = ((self.cube_rtt_scale as u64)
            .wrapping_mul(offs)
            .wrapping_mul(offs)
            .wrapping_mul(offs)
            >> (10 + 3 * BICTCP_HZ)) as u32;
        if t < k {
            self.bic_origin_point.wrapping_sub(delta) // below origin
        } else {
            self.bic_origin_point.wrapping_add(delta) // above origin
        }
    }

    /// Linux `bictcp_update`: the number of acknowledged segments per increment.
    fn update(&mut self, now: u64, cwnd: u32, acked: u32) {
        self.ack_cnt = self.ack_cnt.wrapping_add(acked); // count the number of ACKed packets
        if self.last_cwnd == cwnd && now.saturating_sub(self.last_time) <= self.p.hz / 32 {
            return;
        }
        // The cubic function is evaluated at most once per jiffy; any reduction
        // clears epoch_start and forces it.
        if !(self.epoch_start.is_some() && now == self.last_time) {
            self.last_cwnd = cwnd;
            self.last_time = now;
            let epoch = match self.epoch_start {
                Some(e) => e,
                None => {
                    self.epoch_start = Some(now); // record beginning
                    self.ack_cnt = acked; // start counting
                    self.tcp_cwnd = cwnd; // syn with cubic
                    if self.last_max_cwnd <= cwnd {
                        self.bic_k = 0;
                        self.bic_origin_point = cwnd;
                    } else {
                        // K = cbrt((W_max - cwnd) / C), in 1/1024 s
                        self.bic_k = cubic_root(
                            self.cube_factor
                                .wrapping_mul((self.last_max_cwnd - cwnd) as u64),
                        );
                        self.bic_origin_point = self.last_max_cwnd;
                    }
                    now
                }
            };
            // t = now - epoch_start + delay_min, in 1/1024 s: the target one RTT ahead.
            let mut t = now.saturating_sub(epoch);
            t += usecs_to_jiffies(self.delay_min, self.p.hz);
            t = (t << BICTCP_HZ) / self.p.hz;
            let bic_target = self.target(t);
            self.cnt = if bic_target > cwnd {
                cwnd / (bic_target - cwnd)
            } else {
                100u32.wrapping_mul(cwnd) // very small increment
            };
            // The initial growth may be too conservative while the bandwidth is unknown.
            if self.last_max_cwnd == 0 && self.cnt > 20 {
                self.cnt = 20; // increase cwnd 5% per RTT
            }
        }
        // TCP friendly: W_est grows by one per cwnd * beta_scale / 8 acknowledged
        // segments, i.e. alpha = 8 / beta_scale = 3 (1 - beta) / (1 + beta) per RTT.
        if self.p.tcp_friendliness {
            let delta = ((cwnd as u64 * self.beta_scale as u64) >> 3).clamp(1, u32::MAX as u64);
            let delta = delta as u32;
            while self.ack_cnt > delta {
                self.ack_cnt -= delta;
                self.tcp_cwnd = self.tcp_cwnd.wrapping_add(1);
            }
            if self.tcp_cwnd > cwnd {
                // cubic is slower than Reno: follow W_est
                let max_cnt = cwnd / (self.tcp_cwnd - cwnd);
                if self.cnt > max_cnt {
                    self.cnt = max_cnt;
                }
            }
        }
        // At most one segment per two acknowledged: 1.5x per RTT.
        self.cnt = self.cnt.max(2);
    }

    /// TSO/GRO cushion of the ACK-train test, us (Linux `hystart_ack_delay`).
    fn hystart_ack_delay(tp: &CcState) -> u64 {
        let rate = tp.linux_rate();
        if rate == 0 {
            return 0;
        }
        (super::GSO_MAX_BYTES * 4 * 1_000_000 / rate).min(1000)
    }

    /// Linux `hystart_update` with an RTT sample `delay` (us).
    fn hystart_update(&mut self, tp: &mut CcState, delay: u32) {
        if tp.snd_una > self.end_seq {
            self.hystart_reset(tp);
        }
        // HyStart triggers when cwnd is larger than some threshold (checked
        // after the round's reset, so rounds are tracked from the first ACK).
        if tp.cwnd < self.p.hystart_low_window {
            return;
        }
        if self.p.hystart_detect & HYSTART_ACK_TRAIN != 0 {
            let now = tp.now.as_micros();
            // first detection parameter: ACK-train detection
            if now.saturating_sub(self.last_ack) <= self.p.hystart_ack_delta_us as u64 {
                self.last_ack = now;
                let mut threshold = self.delay_min as u64 + Self::hystart_ack_delay(tp);
                // Pacing may delay packets up to RTT/2 in slow start (SK_PACING_NONE halves).
                if tp.pacing_rate == 0 {
                    threshold >>= 1;
                }
                if now.saturating_sub(self.round_start) > threshold {
                    self.found = true;
                    tp.ssthresh = tp.cwnd;
                }
            }
        }
        if self.p.hystart_detect & HYSTART_DELAY != 0 {
            // the minimum delay of more than HYSTART_MIN_SAMPLES samples
            if self.curr_rtt > delay {
                self.curr_rtt = delay;
            }
            if self.sample_cnt < HYSTART_MIN_SAMPLES {
                self.sample_cnt += 1;
            } else {
                let thresh = (self.delay_min >> 3).clamp(HYSTART_DELAY_MIN, HYSTART_DELAY_MAX);
                if self.curr_rtt as u64 > self.delay_min as u64 + thresh as u64 {
                    self.found = true;
                    tp.ssthresh = tp.cwnd;
                }
            }
        }
    }
}

impl CongestionControl for Cubic {
    fn name(&self) -> &'static str {
        "cubic"
    }

    fn init(&mut self, tp: &mut CcState) {
        self.reset();
        if self.p.hystart {
            self.hystart_reset(tp);
        }
    }

    fn cwnd_event(&mut self, tp: &mut CcState, ev: CwndEvent) {
        if ev == CwndEvent::TxStart {
            let now = self.jiffies(tp.now);
            let delta = now as i64 - self.jiffies(tp.lsndtime) as i64;
            // Idle (application-limited) for a while: shift epoch_start to keep
            // cwnd growth on the cubic curve.
            if let Some(e) = self.epoch_start {
                if delta > 0 {
                    self.epoch_start = Some((e + delta as u64).min(now));
                }
            }
        }
    }

    fn cong_avoid(&mut self, tp: &mut CcState, acked: u32) {
        let Some(acked) = ca_acked(tp, acked) else {
            return;
        };
        let now = self.jiffies(tp.now);
        self.update(now, tp.cwnd, acked);
        cong_avoid_ai(tp, self.cnt, acked);
    }

    fn ssthresh(&mut self, tp: &CcState) -> u32 {
        self.epoch_start = None; // end of epoch
        let cwnd = tp.cwnd as u64;
        // W_max and fast convergence
        self.last_max_cwnd = if tp.cwnd < self.last_max_cwnd && self.p.fast_convergence {
            // W_max = cwnd (1 + beta) / 2
            (cwnd * (BICTCP_BETA_SCALE + self.p.beta) as u64 / (2 * BICTCP_BETA_SCALE) as u64)
                as u32
        } else {
            tp.cwnd
        };
        // ssthresh = cwnd * beta
        ((cwnd * self.p.beta as u64 / BICTCP_BETA_SCALE as u64) as u32).max(2)
    }

    fn set_state(&mut self, tp: &mut CcState, new: CaState) {
        if new == CaState::Loss {
            self.reset();
            self.hystart_reset(tp);
        }
    }

    fn pkts_acked(&mut self, tp: &mut CcState, s: &AckSample) {
        let Some(rtt) = s.rtt else { return };
        // Discard delay samples right after fast recovery.
        if let Some(e) = self.epoch_start {
            if self.jiffies(tp.now).saturating_sub(e) < self.p.hz {
                return;
            }
        }
        let delay = rtt.as_micros().clamp(1, u32::MAX as u64) as u32;
        // first call or link delay decreases
        if self.delay_min == 0 || self.delay_min > delay {
            self.delay_min = delay;
        }
        // HyStart in slow start until it fires (hystart_update checks the
        // window, after tracking the round).
        if !self.found && tp.in_slow_start() && self.p.hystart {
            self.hystart_update(tp, delay);
        }
    }
}

/// Parse and check Linux CUBIC's parameters.
fn parse(p: &CcParams) -> Result<Params, String> {
    let [hystart, hystart_detect, hystart_low_window, hystart_ack_delta_us, fast_convergence, tcp_friendliness, beta, bic_scale, hz] =
        int_params(
            "cubic",
            p,
            [
                ("hystart", 1, 0, 1),
                ("hystart_detect", 3, 1, 3),
                ("hystart_low_window", 16, 0, 1 << 20),
                ("hystart_ack_delta_us", 2000, 0, 1_000_000),
                ("fast_convergence", 1, 0, 1),
                ("tcp_friendliness", 1, 0, 1),
                ("beta", 717, 1, 1023),
                ("bic_scale", 41, 1, 1024),
                ("hz", 1000, 100, 1000),
            ],
        )?;
    let hz = super::check_hz("cubic", hz as f64)?;
    Ok(Params {
        fast_convergence: fast_convergence == 1,
        tcp_friendliness: tcp_friendliness == 1,
        beta,
        bic_scale,
        hystart: hystart == 1,
        hystart_detect,
        hystart_low_window,
        hystart_ack_delta_us,
        hz,
    })
}

fn make(p: &CcParams) -> Result<Box<dyn CongestionControl>, String> {
    Ok(Box::new(Cubic::new(parse(p)?)))
}

/// Registry entry for Linux CUBIC.
pub const INFO: CcInfo = CcInfo {
    name: "cubic",
    description: "CUBIC with HyStart, in Linux's integer arithmetic (beta 717/1024, C 41/1024)",
    source: "RFC 9438; Linux net/ipv4/tcp_cubic.c v2.3 (bictcp_update, cubic_root, HyStart)",
    params: &[
        ("hystart", "1", "hybrid slow start on (1) or off (0)"),
        (
            "hystart_detect",
            "3",
            "HyStart methods: 1 ACK train, 2 delay increase, 3 both",
        ),
        (
            "hystart_low_window",
            "16",
            "HyStart acts from this window (segments)",
        ),
        (
            "hystart_ack_delta_us",
            "2000",
            "ACKs closer than this (us) form a train",
        ),
        (
            "fast_convergence",
            "1",
            "lower W_max to cwnd (1 + beta) / 2 on a loss below it (1) or not (0)",
        ),
        (
            "tcp_friendliness",
            "1",
            "grow at least as fast as the Reno estimate W_est (1) or not (0)",
        ),
        ("beta", "717", "multiplicative decrease, /1024"),
        ("bic_scale", "41", "C = bic_scale / 1024"),
        (
            "hz",
            "1000",
            "kernel tick rate (CONFIG_HZ: 100, 250, 1000): time resolution",
        ),
    ],
    make,
};

// ------------------------------------------------------------------ FreeBSD 9.2

/// Fixed-point shift of cc_cubic.h (`CUBIC_SHIFT`).
const CUBIC_SHIFT: u32 = 8;
/// `CUBIC_SHIFT_4`: three shifts from the cube, one from C.
const CUBIC_SHIFT_4: u32 = 32;
/// ~0.8 << 8: the window kept after a loss (the draft's 1 - beta).
const CUBIC_BETA: u64 = 204;
/// ~0.2 << 8.
const ONE_SUB_CUBIC_BETA: u64 = 51;
/// 3 * ONE_SUB_CUBIC_BETA.
const THREE_X_PT2: u32 = 153;
/// (2 << 8) - ONE_SUB_CUBIC_BETA.
const TWO_SUB_PT2: u32 = 461;
/// C ~0.4 << 8.
const CUBIC_C_FACTOR: i64 = 102;
/// Fast convergence ~0.9 << 8.
const CUBIC_FC_FACTOR: u64 = 230;
/// Smoothed RTT is trusted after this many samples.
const CUBIC_MIN_RTT_SAMPLES: u32 = 8;
/// FreeBSD's `hz` (ticks per second) on i386/amd64 since 5.x.
const FREEBSD_HZ: i64 = 1000;
/// `net.inet.tcp.abc_l_var`: ABC's limit per ACK in slow start, segments.
const ABC_L_VAR: u32 = 2;

/// ABC's limit, a stack setting (`net.inet.tcp.abc_l_var`): the host's
/// (`ss_ack_limit`, `ca_ack_limit`; 1 during a timeout's go-back-N with
/// `ss_ack_limit_rto`), FreeBSD's default when the host sets none.
fn abc_l(host: u32) -> u32 {
    if host > 0 {
        host
    } else {
        ABC_L_VAR
    }
}

/// FreeBSD `cubic_k`: K = cbrt(W_max * 0.2 / C) in 1/256 s, by the Apple TR KT-32
/// polynomial on `s` rebased into [1/8, 1) by powers of 8.
pub(crate) fn freebsd_cubic_k(wmax_pkts: u64) -> i64 {
    // (wmax * beta) / C with CUBIC_SHIFT worth of precision.
    let mut s = (((wmax_pkts.wrapping_mul(ONE_SUB_CUBIC_BETA)) << CUBIC_SHIFT)
        / CUBIC_C_FACTOR as u64) as i64;
    let mut p = 0u32;
    while s >= 256 {
        s >>= 3;
        p += 1;
    }
    // 275 = 1.072302 << 8, 98 = 0.3812513 << 8, 120 = 0.46946116 << 8.
    let k = (((s * 275) >> CUBIC_SHIFT) + 98) - (((s * s * 120) >> CUBIC_SHIFT) >> CUBIC_SHIFT);
    k << p
}

/// FreeBSD `cubic_cwnd`: `W_max + C (t - K)^3` in bytes, `t` in ticks, K in 1/256 s,
/// in 64-bit signed arithmetic that wraps like the compiled C (only after ~155 s).
pub(crate) fn freebsd_cubic_cwnd(ticks: i64, wmax: u64, smss: u32, k: i64) -> u64 {
    // t - K, with CUBIC_SHIFT worth of precision (C division truncates towards 0).
    let mut c = ((ticks << CUBIC_SHIFT) - k * FREEBSD_HZ) / FREEBSD_HZ;
    // (t - K)^3
    c = c.wrapping_mul(c.wrapping_mul(c));
    // C (t - K)^3 + wmax
    c = (c.wrapping_mul(CUBIC_C_FACTOR).wrapping_mul(smss as i64) >> CUBIC_SHIFT_4)
        .wrapping_add(wmax as i64);
    c as u64
}

/// FreeBSD 9.2 `tf_cwnd`: `W_max * 0.8 + 3 * 0.2 / 1.8 * t / RTT * MSS` in bytes
/// (draft eq. 4). The second term is `int * uint32_t`, so 32-bit unsigned: it wraps
/// (as in 9.2) once `153 * t * smss << 8` passes 2^32.
pub(crate) fn freebsd_tf_cwnd(ticks: i64, rtt_ticks: i64, wmax: u64, smss: u32) -> u64 {
    let x = THREE_X_PT2.wrapping_mul(ticks as u32).wrapping_mul(smss) << CUBIC_SHIFT;
    let x = x / TWO_SUB_PT2 / (rtt_ticks.max(1) as u32);
    (wmax.wrapping_mul(CUBIC_BETA).wrapping_add(x as u64)) >> CUBIC_SHIFT
}

/// What a fast-retransmit ssthresh call changed, undone if it was a timeout.
#[derive(Clone, Copy, Debug)]
struct Signal {
    num_cong_events: u32,
    prev_max_cwnd: u64,
    max_cwnd: u64,
    cwnd: u32,
}

/// CUBIC, FreeBSD 9.2's cc_cubic.
pub struct CubicFreeBsd {
    /// K, 1/256 s.
    k: i64,
    sum_rtt_ticks: i64,
    /// cwnd at the most recent congestion event, bytes.
    max_cwnd: u64,
    /// cwnd at the previous congestion event, bytes.
    prev_max_cwnd: u64,
    num_cong_events: u32,
    /// 0 = `TCPTV_SRTTBASE` (no trusted sample yet).
    min_rtt_ticks: i64,
    mean_rtt_ticks: i64,
    epoch_ack_count: i64,
    t_last_cong: i64,
    // State FreeBSD keeps in the tcpcb.
    /// `t_bytes_acked`, in segments.
    bytes_acked: u32,
    /// `CCF_ABC_SENTAWND`.
    sent_a_wnd: bool,
    /// `t_rttupdated`.
    rtt_updated: u32,
    /// `t_rxtshift`: consecutive timeouts.
    rxtshift: u32,
    /// In fast recovery (`IN_FASTRECOVERY`), awaiting `post_recovery`.
    in_recovery: bool,
    /// The last ssthresh call, until we know whether it was fast retransmit or RTO.
    pending: Option<Signal>,
}

impl CubicFreeBsd {
    fn new() -> Self {
        CubicFreeBsd {
            k: 0,
            sum_rtt_ticks: 0,
            max_cwnd: 0,
            prev_max_cwnd: 0,
            num_cong_events: 0,
            min_rtt_ticks: 0,
            mean_rtt_ticks: 1,
            epoch_ack_count: 0,
            t_last_cong: 0,
            bytes_acked: 0,
            sent_a_wnd: false,
            rtt_updated: 0,
            rxtshift: 0,
            in_recovery: false,
            pending: None,
        }
    }

    fn ticks(t: SimTime) -> i64 {
        (t.0 / (1_000_000_000 / FREEBSD_HZ as u64)) as i64
    }

    fn set_cwnd_bytes(tp: &mut CcState, bytes: u64) {
        let segs = (bytes / tp.mss.max(1) as u64).clamp(1, tp.cwnd_clamp.max(1) as u64);
        tp.cwnd = segs as u32;
    }

    /// `cubic_post_recovery`, then the stack's `t_bytes_acked = 0`.
    fn post_recovery(&mut self, tp: &mut CcState) {
        self.in_recovery = false;
        let mss = tp.mss as u64;
        // Fast convergence heuristic.
        if self.max_cwnd < self.prev_max_cwnd {
            self.max_cwnd = (self.max_cwnd * CUBIC_FC_FACTOR) >> CUBIC_SHIFT;
        }
        // Flight below ssthresh: flight + 1 MSS (NewReno's burst avoidance); else
        // cwnd = max_cwnd * beta.
        let flight = tp.snd_nxt.saturating_sub(tp.snd_una);
        let cwnd = if flight < tp.ssthresh as u64 * mss {
            flight + mss
        } else {
            ((CUBIC_BETA * self.max_cwnd) >> CUBIC_SHIFT).max(1)
        };
        Self::set_cwnd_bytes(tp, cwnd);
        tp.cwnd_cnt = 0;
        self.t_last_cong = Self::ticks(tp.now);
        // Average RTT between congestion epochs.
        if self.epoch_ack_count > 0 && self.sum_rtt_ticks >= self.epoch_ack_count {
            self.mean_rtt_ticks = self.sum_rtt_ticks / self.epoch_ack_count;
        }
        self.epoch_ack_count = 0;
        self.sum_rtt_ticks = 0;
        self.k = freebsd_cubic_k(self.max_cwnd / mss.max(1));
        self.bytes_acked = 0;
    }

    /// `cubic_record_rtt`: min and mean of the smoothed RTT, once trusted.
    fn record_rtt(&mut self, tp: &CcState) {
        if self.rtt_updated >= CUBIC_MIN_RTT_SAMPLES {
            let srtt_ticks = Self::ticks(tp.srtt);
            if srtt_ticks < self.min_rtt_ticks || self.min_rtt_ticks == 0 {
                self.min_rtt_ticks = srtt_ticks.max(1);
                // Prime the mean within the first epoch.
                if self.min_rtt_ticks > self.mean_rtt_ticks {
                    self.mean_rtt_ticks = self.min_rtt_ticks;
                }
            }
            self.sum_rtt_ticks += srtt_ticks;
            self.epoch_ack_count += 1;
        }
    }
}

impl CongestionControl for CubicFreeBsd {
    fn name(&self) -> &'static str {
        "cubic-freebsd"
    }

    fn init(&mut self, tp: &mut CcState) {
        // cubic_cb_init and cubic_conn_init
        *self = CubicFreeBsd::new();
        self.t_last_cong = Self::ticks(tp.now);
        self.max_cwnd = tp.cwnd as u64 * tp.mss as u64;
    }

    fn ssthresh(&mut self, tp: &CcState) -> u32 {
        let mss = tp.mss.max(1) as u64;
        let cwnd = tp.cwnd as u64 * mss;
        self.pending = Some(Signal {
            num_cong_events: self.num_cong_events,
            prev_max_cwnd: self.prev_max_cwnd,
            max_cwnd: self.max_cwnd,
            cwnd: tp.cwnd,
        });
        // cubic_ssthresh_update: cwnd / 2 on the first congestion event, then cwnd * beta.
        let ssthresh = if self.num_cong_events == 0 {
            cwnd >> 1
        } else {
            (cwnd * CUBIC_BETA) >> CUBIC_SHIFT
        };
        self.num_cong_events += 1;
        self.prev_max_cwnd = self.max_cwnd;
        self.max_cwnd = cwnd;
        ((ssthresh / mss).min(u32::MAX as u64) as u32).max(2)
    }

    fn set_state(&mut self, _tp: &mut CcState, new: CaState) {
        if self.pending.take().is_some() && new == CaState::Recovery {
            self.in_recovery = true; // ENTER_RECOVERY
        }
    }

    fn cwnd_event(&mut self, tp: &mut CcState, ev: CwndEvent) {
        match ev {
            CwndEvent::CompleteCwr if self.in_recovery => self.post_recovery(tp),
            CwndEvent::Loss => {
                // A timeout: the stack sets ssthresh = max(2, cwnd / 2) and cubic
                // keeps max_cwnd (tcp_input.c cc_cong_signal(CC_RTO)).
                if let Some(s) = self.pending.take() {
                    self.num_cong_events = s.num_cong_events;
                    self.prev_max_cwnd = s.prev_max_cwnd;
                    self.max_cwnd = s.max_cwnd;
                    tp.ssthresh = (s.cwnd / 2).max(2);
                }
                self.rxtshift += 1;
                // cubic_cong_signal(CC_RTO): as compiled, only the count is conditional.
                if self.rxtshift >= 2 {
                    self.num_cong_events += 1;
                }
                self.t_last_cong = Self::ticks(tp.now);
                self.bytes_acked = 0;
                self.in_recovery = false; // EXIT_RECOVERY
            }
            _ => {}
        }
    }

    fn undo_cwnd(&mut self, tp: &CcState) -> u32 {
        // The reduction was spurious: no post-recovery window (FreeBSD's bad
        // retransmit undo, CC_RTO_ERR, leaves cubic's state alone).
        self.in_recovery = false;
        tp.cwnd.max(tp.prior_cwnd)
    }

    fn pkts_acked(&mut self, tp: &mut CcState, s: &AckSample) {
        self.pending = None;
        if s.rtt.is_some() {
            self.rtt_updated += 1; // t_rttupdated
            self.rxtshift = 0; // tcp_xmit_timer
        }
        self.record_rtt(tp);
    }

    fn cong_avoid(&mut self, tp: &mut CcState, acked: u32) {
        if self.in_recovery {
            // Recovery ended without CompleteCwr (Reno): post_recovery now.
            self.post_recovery(tp);
        }
        // cc_ack_received (tcp_input.c): RFC 3465 byte counting in congestion avoidance.
        if tp.cwnd > tp.ssthresh {
            self.bytes_acked += acked.min(abc_l(tp.ca_ack_limit));
            if self.bytes_acked >= tp.cwnd {
                self.bytes_acked -= tp.cwnd;
                self.sent_a_wnd = true;
            }
        } else {
            self.sent_a_wnd = false;
            self.bytes_acked = 0;
        }
        if !tp.is_cwnd_limited || (tp.cwnd > tp.ssthresh && !self.sent_a_wnd) {
            return;
        }
        if tp.cwnd <= tp.ssthresh || self.min_rtt_ticks == 0 {
            // newreno_ack_received with ABC: slow start by min(acked, L) segments,
            // congestion avoidance by one segment per window.
            let incr = if tp.cwnd > tp.ssthresh {
                self.sent_a_wnd = false;
                1
            } else {
                acked.min(abc_l(tp.ss_ack_limit))
            };
            tp.cwnd = tp.cwnd.saturating_add(incr).min(tp.cwnd_clamp);
            return;
        }
        let mss = tp.mss;
        let ticks_since_cong = Self::ticks(tp.now) - self.t_last_cong;
        // The mean RTT of the previous epoch, as the draft's equations use it.
        let w_tf = freebsd_tf_cwnd(ticks_since_cong, self.mean_rtt_ticks, self.max_cwnd, mss);
        let w_cubic_next = freebsd_cubic_cwnd(
            ticks_since_cong + self.mean_rtt_ticks,
            self.max_cwnd,
            mss,
            self.k,
        );
        self.sent_a_wnd = false;
        let cwnd = tp.cwnd as u64 * mss as u64;
        if w_cubic_next < w_tf {
            // TCP-friendly region: follow W_tf.
            Self::set_cwnd_bytes(tp, w_tf);
        } else if cwnd < w_cubic_next {
            // Concave or convex region: follow W_cubic(t + RTT) (ABC on: set it).
            Self::set_cwnd_bytes(tp, w_cubic_next);
        }
        // Probing beyond a max_cwnd that no congestion event set (hostcache start).
        if self.num_cong_events == 0 && self.max_cwnd < tp.cwnd as u64 * mss as u64 {
            self.max_cwnd = tp.cwnd as u64 * mss as u64;
        }
    }
}

fn make_freebsd(p: &CcParams) -> Result<Box<dyn CongestionControl>, String> {
    int_params("cubic-freebsd", p, [])?;
    Ok(Box::new(CubicFreeBsd::new()))
}

/// Registry entry for FreeBSD 9.2's CUBIC.
pub const INFO_FREEBSD: CcInfo = CcInfo {
    name: "cubic-freebsd",
    description: "CUBIC as FreeBSD 9.2 ran it: beta 0.8, first loss halves, once-per-window update, no HyStart",
    source: "draft-rhee-tcpm-cubic-02; FreeBSD 9.2 sys/netinet/cc/cc_cubic.c, cc_cubic.h (r220592)",
    params: &[],
    make: make_freebsd,
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::harness::Harness;

    const MSS: u32 = 1448;

    fn linux(params: &[(&str, f64)]) -> Cubic {
        let p: CcParams = params.iter().map(|(k, v)| (k.to_string(), *v)).collect();
        Cubic::new(parse(&p).unwrap())
    }

    /// A harness around `cc` (built directly: the registry is not ours to edit).
    fn harness(cc: Box<dyn CongestionControl>, cwnd: u32, ssthresh: u32) -> Harness {
        Harness::with(cc, cwnd, ssthresh)
    }

    fn ms(n: u64) -> SimTime {
        SimTime::from_millis(n)
    }

    // ------------------------------------------------------------- cube root

    #[test]
    fn cubic_root_returns_what_linux_computes() {
        // Below 64 Linux reads the table: (v[a] + 35) >> 6.
        //   v[0] = 0 -> 35 >> 6 = 0;  v[1] = 54 -> 89 >> 6 = 1;  v[7] = 118 -> 153 >> 6 = 2
        //   (cbrt 7 = 1.91 rounds to 2);  v[8] = 123 -> 158 >> 6 = 2;  v[27] = 190 -> 3;
        //   v[63] = 254 -> 289 >> 6 = 4 (cbrt 63 = 3.98).
        for (a, r) in [(0, 0), (1, 1), (7, 2), (8, 2), (27, 3), (63, 4)] {
            assert_eq!(cubic_root(a), r, "cubic_root({a})");
        }
        // 64: fls 7, b = (7*84 >> 8) - 1 = 1, v[64 >> 3 = 8] = 123, x = (133 << 1) >> 6 = 4;
        //     Newton: x = 2*4 + 64 / (4*3) = 13, 13*341 >> 10 = 4.
        assert_eq!(cubic_root(64), 4);
        // 1000: fls 10, b = (840 >> 8) - 1 = 2, v[1000 >> 6 = 15] = 156, x = (166 << 2) >> 6 = 10;
        //     x = 20 + 1000 / 90 = 31, 31*341 >> 10 = 10571 >> 10 = 10.
        assert_eq!(cubic_root(1000), 10);
        // 2^30: fls 31, b = (2604 >> 8) - 1 = 9, v[2^30 >> 27 = 8] = 123, x = (133 << 9) >> 6 = 1064;
        //     x = 2128 + 2^30 / (1064*1063 = 1131032) = 2128 + 949 = 3077, 3077*341 >> 10 = 1024.
        assert_eq!(cubic_root(1 << 30), 1024);
        // 27e6: fls 25, b = 7, v[27e6 >> 21 = 12] = 143, x = (153 << 7) >> 6 = 306;
        //     x = 612 + 27e6 / 93330 = 612 + 289 = 901, 901*341 >> 10 = 300.
        assert_eq!(cubic_root(27_000_000), 300);
        // 8e9: fls 33, b = 9, v[8e9 >> 27 = 59] = 248, x = (258 << 9) >> 6 = 2064;
        //     x = 4128 + 8e9 / 4258032 = 4128 + 1878 = 6006, 6006*341 >> 10 = 2000.
        assert_eq!(cubic_root(8_000_000_000), 2000);
        // cube_factor * 30 = 2681735677 * 30 = 80452070310 (K for W_max - cwnd = 30):
        //     fls 37, b = (3108 >> 8) - 1 = 11, v[a >> 33 = 9] = 129, x = (139 << 11) >> 6 = 4448;
        //     x = 8896 + a / (4448*4447 = 19780256) = 8896 + 4067 = 12963,
        //     12963*341 >> 10 = 4420383 >> 10 = 4316 (exact cube root 4316.97: Linux
        //     truncates).
        assert_eq!(cubic_root(2_681_735_677 * 30), 4316);
    }

    // ----------------------------------------------------- RFC 9438 equations

    #[test]
    fn k_and_w_cubic_follow_rfc9438_at_chosen_points() {
        // W_max = 100, loss: cwnd = 100 * 717 / 1024 = 71700 / 1024 = 70 (70.02).
        // RFC 9438 eq. 2 with the epoch's cwnd: K = cbrt((W_max - cwnd) / C)
        //   = cbrt(30 / 0.4) = cbrt(75) = 4.2172 s.
        // Linux: cube_factor = 2^40 / 410 = 2681735677 (1 / C per (1/1024 s)^3),
        //   K = cubic_root(2681735677 * 30) = 4316 (see the cube-root test)
        //   = 4.2148 s in 1/1024 s units (C is 410/1024 = 0.40039, not 0.4).
        let mut h = harness(Box::new(linux(&[])), 100, 100);
        h.loss();
        assert_eq!((h.tp.cwnd, h.tp.ssthresh), (70, 70));
        let mut c = linux(&[]);
        let mut tp = CcState::new(100, MSS);
        tp.ssthresh = 100;
        assert_eq!(c.ssthresh(&tp), 70);
        tp.cwnd = 70;
        tp.ssthresh = 70;
        tp.now = ms(5);
        c.cong_avoid(&mut tp, 1); // the first ACK of the epoch
        assert_eq!((c.bic_k, c.bic_origin_point), (4316, 100));
        assert!((4316.0 / 1024.0 - 75f64.cbrt()).abs() < 0.003);

        // W_cubic(t) = C (t - K)^3 + W_max  (eq. 1); Linux: delta = 410 offs^3 >> 40.
        // t = 0: RFC 0.4 * (-4.2172)^3 + 100 = 70.0;
        //   Linux: offs = 4316, 4316^3 = 80397826496, * 410 >> 40 = 29.98 -> 29, 100 - 29 = 71.
        assert_eq!(c.target(0), 71);
        // t = 2 s (2048): RFC 0.4 * (2 - 4.2172)^3 + 100 = 100 - 0.4 * 10.899 = 95.64;
        //   Linux: offs = 2268, 2268^3 = 11666192832, * 410 >> 40 = 4.35 -> 4, target 96.
        assert_eq!(c.target(2048), 96);
        // t = K: the plateau, W_max.
        assert_eq!(c.target(4316), 100);
        // t = K + 3 s: RFC 0.4 * 27 + 100 = 110.8;
        //   Linux: offs = 3072, 3072^3 = 28991029248, * 410 >> 40 = 10.81 -> 10, target 110.
        assert_eq!(c.target(4316 + 3072), 110);
    }

    #[test]
    fn a_loss_leaves_717_1024_of_the_window() {
        // ssthresh = max(cwnd * 717 / 1024, 2): 1000 -> 717000 / 1024 = 700 (700.2).
        let mut h = harness(Box::new(linux(&[])), 1000, 1000);
        h.loss();
        assert_eq!((h.tp.cwnd, h.tp.ssthresh), (700, 700));
        // 2 -> 1434 / 1024 = 1, floored at 2.
        let mut h = harness(Box::new(linux(&[])), 2, 2);
        h.loss();
        assert_eq!(h.tp.ssthresh, 2);
    }

    #[test]
    fn fast_convergence_lowers_w_max_after_a_loss_below_it() {
        let mut c = linux(&[]);
        let mut tp = CcState::new(100, MSS);
        c.ssthresh(&tp);
        assert_eq!(c.last_max_cwnd, 100);
        // Next loss at 90 < 100: W_max = 90 * (1024 + 717) / 2048 = 156690 / 2048 = 76 (76.5),
        // ssthresh = 90 * 717 / 1024 = 64530 / 1024 = 63.
        tp.cwnd = 90;
        assert_eq!(c.ssthresh(&tp), 63);
        assert_eq!(c.last_max_cwnd, 76);
        // Without fast convergence W_max is the window at the loss.
        let mut c = linux(&[("fast_convergence", 0.0)]);
        tp.cwnd = 100;
        c.ssthresh(&tp);
        tp.cwnd = 90;
        assert_eq!(c.ssthresh(&tp), 63);
        assert_eq!(c.last_max_cwnd, 90);
    }

    #[test]
    fn before_the_first_loss_growth_is_five_percent_per_rtt() {
        // No loss yet (W_max = 0): K = 0, origin = cwnd = 100; t = (0 + 100 ms delay_min)
        // = 102/1024 s, delta = 410 * 102^3 >> 40 = 0, target = 100 <= cwnd, so
        // cnt = 100 * cwnd, capped at 20 while W_max == 0. The Reno estimate needs
        // 100 * 15 >> 3 = 187 segments for one step: it does not bind. One segment per
        // 20 acknowledged: 100 ACKs of one RTT (1 ms apart) -> 100 + 5 = 105.
        let mut h = harness(Box::new(linux(&[])), 100, 100);
        h.round(ms(100));
        assert_eq!(h.tp.cwnd, 105);
    }

    #[test]
    fn reno_friendly_region_follows_w_est() {
        // W_max = 20: a loss at 20 leaves 20 * 717 / 1024 = 14 (14.0), K = cbrt(6 / 0.4)
        // = 2.466 s. At RTT 10 ms, RFC 9438's W_est (eq. 4) grows by
        // alpha = 3 (1 - 0.7) / (1 + 0.7) = 0.5294 segment per RTT, much faster than the
        // cubic curve, which only reaches W_cubic(1 s) = 20 - 0.4 (2.466 - 1)^3 = 18.74.
        // After 100 RTTs (1 s): W_est = 14 + 100 * 0.5294 = 66.9.
        //
        // Linux counts W_est as one segment per cwnd * 15 >> 3 acknowledged (alpha =
        // 8/15 = 0.533), and only re-evaluates when the window changes or 31 ms pass.
        // Working through tcp_cubic.c's arithmetic ACK by ACK (harness steps of
        // 10 ms / cwnd; done with a transliteration of the C, outside this file):
        // the window is 17 after 10 RTTs, 22 after 20, 39 after 50, 65 after 100, with
        // Linux's W_est (tcp_cwnd) at 65: within 2 of the RFC's 66.9.
        let mut h = harness(Box::new(linux(&[])), 20, 20);
        h.loss();
        assert_eq!(h.tp.cwnd, 14);
        let mut at = Vec::new();
        for r in 1..=100 {
            h.round(ms(10));
            if [10, 20, 50, 100].contains(&r) {
                at.push(h.tp.cwnd);
            }
        }
        assert_eq!(at, [17, 22, 39, 65]);
        assert!((h.tp.cwnd as f64 - (14.0 + 100.0 * 0.9 / 1.7)).abs() <= 2.0);

        // Without tcp_friendliness the window follows the cubic curve: Linux's target
        // at t = 1 s + delay_min 10 ms (1034/1024 s) is 20 - (410 * (2523 - 1034)^3 >> 40)
        // = 20 - 1 = 19 (K = cubic_root(2681735677 * 6) = 2523), the RFC's
        // W_cubic(1 s) = 18.74 rounded up by the integer delta.
        let mut h = harness(Box::new(linux(&[("tcp_friendliness", 0.0)])), 20, 20);
        h.loss();
        for _ in 0..100 {
            h.round(ms(10));
        }
        assert_eq!(h.tp.cwnd, 19);
    }

    // ------------------------------------------------------------------ HyStart

    /// One ACK of one segment every `gap`, each with RTT `rtt`.
    fn acks(h: &mut Harness, n: u32, gap: SimTime, rtt: SimTime) {
        for _ in 0..n {
            h.advance(gap);
            h.ack(1, rtt);
        }
    }

    #[test]
    fn hystart_leaves_slow_start_when_the_delay_rises() {
        // cwnd 16 (= hystart_low_window), infinite ssthresh, ACKs 5 ms apart (never
        // a train: more than hystart_ack_delta 2 ms apart). init: round ends at
        // snd_nxt = 1 + 16 MSS.
        // ACKs 1-16 (round 1), RTT 100 ms: delay_min = 100 ms; curr_rtt = 100 ms, not
        //   above 100 + clamp(100/8 = 12.5, 4, 16) = 112.5 ms. cwnd grows to 32.
        // ACK 17: snd_una > end_seq, new round ending at snd_nxt = 1 + (16 + 32) MSS.
        //   RTT 120 ms from here: ACKs 17-24 are the 8 samples of the round, ACK 25
        //   tests curr_rtt = 120 > 112.5 ms: found, ssthresh = cwnd = 16 + 24 = 40.
        //   Its cong_avoid then runs in congestion avoidance: cnt = 20, cwnd stays 40.
        let mut h = harness(Box::new(linux(&[])), 16, u32::MAX);
        acks(&mut h, 16, ms(5), ms(100));
        assert_eq!((h.tp.cwnd, h.tp.ssthresh), (32, u32::MAX));
        acks(&mut h, 8, ms(5), ms(120));
        assert_eq!((h.tp.cwnd, h.tp.ssthresh), (40, u32::MAX));
        acks(&mut h, 1, ms(5), ms(120));
        assert_eq!((h.tp.cwnd, h.tp.ssthresh), (40, 40));

        // hystart = 0: the same samples leave slow start running: 16 + 25 = 41.
        let mut h = harness(Box::new(linux(&[("hystart", 0.0)])), 16, u32::MAX);
        acks(&mut h, 16, ms(5), ms(100));
        acks(&mut h, 9, ms(5), ms(120));
        assert_eq!((h.tp.cwnd, h.tp.ssthresh), (41, u32::MAX));

        // Delay detection only (hystart_detect = 2) gives the same exit.
        let mut h = harness(Box::new(linux(&[("hystart_detect", 2.0)])), 16, u32::MAX);
        acks(&mut h, 16, ms(5), ms(100));
        acks(&mut h, 9, ms(5), ms(120));
        assert_eq!(h.tp.ssthresh, 40);
    }

    #[test]
    fn hystart_leaves_slow_start_on_an_ack_train_of_half_the_min_rtt() {
        // ACKs 1 ms apart (<= 2 ms: a train), RTT 100 ms: threshold = delay_min / 2 =
        // 50 ms (no pacing: no TSO cushion, halved). Rounds: ACKs 1-16 (from t = 0),
        // 17-48 (reset at t = 17 ms), 49-112 (reset at t = 49 ms, end_seq = 1 + 112 MSS).
        // In round 3, t - round_start > 50 ms first at ACK 100 (100 - 49 = 51 ms):
        // ssthresh = cwnd = 16 + 99 = 115. The delay never rises.
        let mut h = harness(Box::new(linux(&[])), 16, u32::MAX);
        acks(&mut h, 99, ms(1), ms(100));
        assert_eq!((h.tp.cwnd, h.tp.ssthresh), (115, u32::MAX));
        acks(&mut h, 1, ms(1), ms(100));
        assert_eq!((h.tp.cwnd, h.tp.ssthresh), (115, 115));

        // ACK-train detection off (hystart_detect = 2): slow start goes on.
        let mut h = harness(Box::new(linux(&[("hystart_detect", 2.0)])), 16, u32::MAX);
        acks(&mut h, 100, ms(1), ms(100));
        assert_eq!((h.tp.cwnd, h.tp.ssthresh), (116, u32::MAX));
    }

    #[test]
    fn the_ack_train_threshold_has_linuxs_tso_cushion_from_the_rate_every_connection_has() {
        // The same train with RTT 101 ms: round 3 starts at ACK 49 (t = 49 ms).
        // hystart_ack_delay = min(1000, 4 x sk_gso_max_size 65215 x 10^6 / rate) us,
        // then halved (a connection that does not pace, SK_PACING_NONE):
        // - no rate (a host that does not compute one): 101000 / 2 = 50500 us,
        //   passed at ACK 100 (51 ms): ssthresh = cwnd = 115;
        // - sk_pacing_rate 10^6 B/s (Linux sets it on every connection):
        //   4 x 65215 x 10^6 / 10^6 = 260860 -> 1000 us, (101000 + 1000) / 2 =
        //   51000 us, not passed at 51 ms, passed at ACK 101 (52 ms): 116;
        // - 10^9 B/s: 260860000 / 10^9 = 260 us, (101000 + 260) / 2 = 50630 us:
        //   ACK 100 again.
        for (rate, exit_ack) in [(0u64, 100u32), (1_000_000, 101), (1_000_000_000, 100)] {
            let mut h = harness(Box::new(linux(&[])), 16, u32::MAX);
            h.tp.sk_pacing_rate = rate;
            acks(&mut h, exit_ack - 1, ms(1), ms(101));
            assert_eq!(h.tp.ssthresh, u32::MAX, "rate {rate}");
            acks(&mut h, 1, ms(1), ms(101));
            assert_eq!(
                (h.tp.cwnd, h.tp.ssthresh),
                (15 + exit_ack, 15 + exit_ack),
                "rate {rate}"
            );
        }
    }

    #[test]
    fn hystart_tracks_rounds_below_hystart_low_window_as_linux_5_7() {
        // Since Linux 5.7 hystart_update resets the round (snd_una past end_seq)
        // before it checks hystart_low_window, so rounds are tracked from the
        // first ACK. IW 3, one ACK per segment 1 ms apart (a train), RTT 100 ms:
        // at ACK k snd_nxt = 2k + 1 segments and cwnd = k + 2. Rounds start at
        // ACKs 4, 10, 22, 46, 94 (end_seq 9, 21, 45, 93, 189). cwnd reaches 16 at
        // ACK 14, 4 ms after the round's last_ack (10 ms): not a train, so that
        // round cannot detect one. Detection needs now - round_start > 50 ms
        // within a round: 22 + 51 = 73 > 45 and 46 + 51 = 97 > 93 fail, 94 + 51 =
        // 145 <= 189 holds: ssthresh = cwnd = 147 at ACK 145. (Checking the window
        // first, as before 5.7, starts a round at ACK 14 and exits at ACK 113.)
        let mut h = harness(Box::new(linux(&[])), 3, u32::MAX);
        acks(&mut h, 144, ms(1), ms(100));
        assert_eq!((h.tp.cwnd, h.tp.ssthresh), (147, u32::MAX));
        acks(&mut h, 1, ms(1), ms(100));
        assert_eq!((h.tp.cwnd, h.tp.ssthresh), (147, 147));
    }

    #[test]
    fn hystart_waits_for_hystart_low_window() {
        // cwnd 8 < 16: no HyStart while growing 8 -> 15 even with a large RTT rise
        // (ACKs 5 ms apart; RTT 100 ms for 4 ACKs, then 200 ms).
        let mut h = harness(Box::new(linux(&[])), 8, u32::MAX);
        acks(&mut h, 4, ms(5), ms(100));
        acks(&mut h, 3, ms(5), ms(200));
        assert_eq!((h.tp.cwnd, h.tp.ssthresh), (15, u32::MAX));
    }

    // --------------------------------------------------------- epoch and state

    #[test]
    fn idle_time_shifts_the_epoch() {
        let mut c = linux(&[]);
        let mut tp = CcState::new(50, MSS);
        tp.ssthresh = 40;
        tp.now = ms(1000);
        c.cong_avoid(&mut tp, 1);
        assert_eq!(c.epoch_start, Some(1000));
        // Last send at 1.2 s, transmission restarts at 3.2 s: epoch_start += 2000 ms.
        tp.lsndtime = ms(1200);
        tp.now = ms(3200);
        c.cwnd_event(&mut tp, CwndEvent::TxStart);
        assert_eq!(c.epoch_start, Some(3000));
        // A shift past now is capped at now: last send 0.5 s, now 4 s:
        // 3000 + 3500 = 6500 > 4000 -> 4000.
        tp.lsndtime = ms(500);
        tp.now = ms(4000);
        c.cwnd_event(&mut tp, CwndEvent::TxStart);
        assert_eq!(c.epoch_start, Some(4000));
        // No epoch (after a loss): nothing to shift.
        c.ssthresh(&tp);
        c.cwnd_event(&mut tp, CwndEvent::TxStart);
        assert_eq!(c.epoch_start, None);
    }

    #[test]
    fn a_timeout_resets_w_max_and_rearms_hystart() {
        let mut c = linux(&[]);
        let mut tp = CcState::new(100, MSS);
        tp.snd_nxt = 7777;
        c.ssthresh(&tp);
        c.found = true;
        c.delay_min = 5000;
        tp.now = ms(300);
        c.set_state(&mut tp, CaState::Loss);
        assert_eq!(c.last_max_cwnd, 0);
        assert_eq!(c.delay_min, 0);
        assert!(!c.found);
        assert_eq!(
            (c.end_seq, c.round_start, c.curr_rtt),
            (7777, 300_000, u32::MAX)
        );
        // Recovery and other states keep W_max.
        c.ssthresh(&tp);
        c.set_state(&mut tp, CaState::Recovery);
        assert_eq!(c.last_max_cwnd, 100);
    }

    #[test]
    fn growth_after_a_loss_is_capped_at_one_segment_per_two_acked() {
        // Loss at 1000 -> cwnd 700, K = cubic_root(2681735677 * 300) = 9294 (9.08 s).
        // With delay_min 5 s and the ACK 9.2 s into the epoch, t = (9200 + 5000) * 1024
        // / 1000 = 14540, offs = 14540 - 9294 = 5246, 5246^3 = 144372626936,
        // * 410 >> 40 = 53: target = 1053 and cnt = 700 / 353 = 1, raised to 2 by
        // max(cnt, 2): 10 segments acknowledged in one ACK -> +5, not +10.
        let mut c = linux(&[]);
        let mut tp = CcState::new(1000, MSS);
        c.ssthresh(&tp);
        tp.cwnd = 700;
        tp.ssthresh = 700;
        c.delay_min = 5_000_000;
        tp.now = ms(0);
        c.cong_avoid(&mut tp, 1);
        assert_eq!((c.epoch_start, c.bic_k), (Some(0), 9294));
        tp.now = ms(9200);
        tp.cwnd_cnt = 0;
        c.cong_avoid(&mut tp, 10);
        assert_eq!(c.cnt, 2);
        assert_eq!(tp.cwnd, 705);
    }

    #[test]
    fn cwnd_stays_put_when_not_cwnd_limited() {
        let mut h = harness(Box::new(linux(&[])), 20, 10);
        h.tp.is_cwnd_limited = false;
        h.ack(5, ms(50));
        assert_eq!(h.tp.cwnd, 20);
    }

    #[test]
    fn make_checks_parameters() {
        let p = |kv: &[(&str, f64)]| -> CcParams {
            kv.iter().map(|(k, v)| (k.to_string(), *v)).collect()
        };
        assert!((INFO.make)(&p(&[])).is_ok());
        assert!((INFO.make)(&p(&[("hystart", 0.0), ("hz", 250.0)])).is_ok());
        let e = (INFO.make)(&p(&[("hystrat", 0.0)])).err().unwrap();
        assert!(e.contains("hystrat"), "{e}");
        assert!((INFO.make)(&p(&[("hystart", 2.0)])).is_err());
        assert!((INFO.make)(&p(&[("beta", 0.5)])).is_err());
        assert!((INFO.make)(&p(&[("hz", 300.0)])).is_err());
        assert!((INFO.make)(&p(&[("hystart_detect", 0.0)])).is_err());
        assert!((INFO_FREEBSD.make)(&p(&[])).is_ok());
        assert!((INFO_FREEBSD.make)(&p(&[("hystart", 1.0)])).is_err());
        for (name, default, _) in INFO.params {
            let v: f64 = default.parse().unwrap();
            assert!((INFO.make)(&p(&[(name, v)])).is_ok(), "{name}");
        }
    }

    // ------------------------------------------------------------ FreeBSD 9.2

    #[test]
    fn freebsd_k_is_the_apple_tr_approximation() {
        // s = (W_max * 51 << 8) / 102, rebased by 8 into [0, 256), then
        // K = (s * 275 >> 8) + 98 - (s^2 * 120 >> 16), << p.
        // W_max 100: s = 1305600 / 102 = 12800 -> 1600 -> 200 (p = 2);
        //   K = 214 + 98 - 73 = 239, << 2 = 956 = 3.734 s (exact cbrt(100 * 0.2 / 0.4)
        //   = cbrt 50 = 3.684 s).
        assert_eq!(freebsd_cubic_k(100), 956);
        // W_max 80: s = 1044480 / 102 = 10240 -> 1280 -> 160 (p = 2);
        //   K = 171 + 98 - 46 = 223, << 2 = 892 = 3.484 s (cbrt 40 = 3.420 s).
        assert_eq!(freebsd_cubic_k(80), 892);
        // W_max 1: s = 13056 / 102 = 128; K = 137 + 98 - 30 = 205 = 0.80 s (cbrt 0.5 = 0.794).
        assert_eq!(freebsd_cubic_k(1), 205);
    }

    #[test]
    fn freebsd_w_cubic_and_the_wrapping_tcp_friendly_window() {
        // cubic_cwnd(199 ticks, 144800 B, 1448, K 956):
        //   t - K = (199 * 256 - 956000) / 1000 = -905056 / 1000 = -905 (truncated),
        //   (-905)^3 = -741217625, * 102 * 1448 = -109474878342000, >> 32 = -25490
        //   (floor of -25489.1), + 144800 = 119310 B = 82.4 segments.
        //   Theory: 100 + 0.398 (0.199 - 3.734)^3 = 82.4 segments.
        assert_eq!(freebsd_cubic_cwnd(199, 144_800, 1448, 956), 119_310);
        // tf_cwnd(50 ticks, RTT 100 ticks, 144800 B, 1448):
        //   153 * 50 * 1448 = 11077200, << 8 = 2835763200 (< 2^32), / 461 / 100 = 61513;
        //   (144800 * 204 + 61513) >> 8 = 29600713 >> 8 = 115627 B (79.85 segments;
        //   theory 0.797 * 100 + 0.333 * 0.5 = 79.86).
        assert_eq!(freebsd_tf_cwnd(50, 100, 144_800, 1448), 115_627);
        // At 1000 ticks 153 * 1000 * 1448 = 221544000 << 8 = 56715264000 wraps in 32 bits
        // to 56715264000 - 13 * 2^32 = 880689152; / 461 / 100 = 19103;
        // (29539200 + 19103) >> 8 = 115462 B (79.7 segments), where the intended value is
        // (29539200 + 1230265) >> 8 = 120193 B (83.0; theory 79.7 + 3.33 = 83.0).
        assert_eq!(freebsd_tf_cwnd(1000, 100, 144_800, 1448), 115_462);
    }

    /// A FreeBSD harness at `cwnd`, ssthresh `cwnd - 1`, with 10 ACKs of RTT 100 ms
    /// 1 ms apart (trusted RTT from the 8th: min = mean = 100 ticks; no growth: in
    /// congestion avoidance ABC waits for a window of bytes).
    fn freebsd_with_rtt(cwnd: u32) -> Harness {
        let mut h = harness(Box::new(CubicFreeBsd::new()), cwnd, cwnd - 1);
        acks(&mut h, 10, ms(1), ms(100));
        assert_eq!(h.tp.cwnd, cwnd);
        h
    }

    #[test]
    fn freebsd_first_loss_halves_ssthresh_but_keeps_0_8_of_the_window() {
        // First congestion event: ssthresh = 144800 >> 1 = 72400 B = 50 segments;
        // post_recovery: flight 100 segments >= ssthresh, so
        // cwnd = 204 * 144800 >> 8 = 115387 B = 79 segments (79.7).
        let mut h = freebsd_with_rtt(100);
        h.loss();
        assert_eq!((h.tp.cwnd, h.tp.ssthresh), (79, 50));
        // The next one at 100 again: ssthresh = 144800 * 204 >> 8 = 115387 B = 79;
        // max_cwnd = prev_max_cwnd = 144800: no fast convergence, cwnd 79.
        h.tp.cwnd = 100;
        h.refill();
        h.loss();
        assert_eq!((h.tp.cwnd, h.tp.ssthresh), (79, 79));
    }

    #[test]
    fn freebsd_fast_convergence_applies_at_the_end_of_recovery() {
        // Loss at 100, then at 90: ssthresh = 130320 * 204 >> 8 = 103848 B = 71;
        // max_cwnd 130320 < prev 144800: max_cwnd = 130320 * 230 >> 8 = 117084 B,
        // cwnd = 204 * 117084 >> 8 = 93301 B = 64 segments; K = cubic_k(117084 / 1448
        // = 80) = 892.
        let mut h = freebsd_with_rtt(100);
        h.loss();
        h.tp.cwnd = 90;
        h.refill();
        h.loss();
        assert_eq!((h.tp.cwnd, h.tp.ssthresh), (64, 71));
    }

    #[test]
    fn freebsd_sets_the_window_once_per_window_to_w_cubic_one_rtt_ahead() {
        // After the first loss (at t = 10 ms): cwnd 79, ssthresh 50, max_cwnd 144800 B,
        // K = 956, mean RTT = 300 / 3 = 100 ticks, t_last_cong = 10.
        // One round of 79 ACKs (100 ms / 79 apart): ABC sets CCF_ABC_SENTAWND only at
        // the 79th, at t = 10 + 99.99994 ms -> tick 109, 99 ticks since the loss:
        //   W_tf = tf_cwnd(99) = (29539200 + (153*99*1448 << 8 mod 2^32 = 1319843840)
        //          / 461 / 100 = 28630) >> 8 = 115499 B,
        //   W_cubic(99 + 100) = 119310 B (see above) > W_tf and > cwnd 114392 B:
        //   cwnd = 119310 / 1448 = 82.
        let mut h = freebsd_with_rtt(100);
        h.loss();
        assert_eq!(h.tp.cwnd, 79);
        let step = SimTime(100_000_000 / 79);
        for _ in 0..78 {
            h.advance(step);
            h.ack(1, ms(100));
        }
        assert_eq!(h.tp.cwnd, 79);
        h.advance(step);
        h.ack(1, ms(100));
        assert_eq!(h.tp.cwnd, 82);
    }

    #[test]
    fn freebsd_recovery_ended_without_completecwr_still_sets_0_8_w_unless_undone() {
        // Reno recovery ends at the first new ACK without CompleteCwr: the next ACK
        // applies post_recovery (cwnd = 204 * 144800 >> 8 B = 79 segments).
        let enter = |h: &mut Harness| {
            h.tp.prior_cwnd = h.tp.cwnd;
            h.tp.ssthresh = h.cc.ssthresh(&h.tp);
            h.cc.set_state(&mut h.tp, CaState::Recovery);
            h.tp.ca_state = CaState::Recovery;
            h.tp.cwnd = h.tp.ssthresh;
        };
        let mut h = freebsd_with_rtt(100);
        enter(&mut h);
        h.cc.set_state(&mut h.tp, CaState::Open);
        h.tp.ca_state = CaState::Open;
        acks(&mut h, 1, ms(1), ms(100));
        assert_eq!((h.tp.cwnd, h.tp.ssthresh), (79, 50));
        // A spurious recovery undone by the sender (undo_cwnd, then Open): the
        // restored window stays.
        let mut h = freebsd_with_rtt(100);
        enter(&mut h);
        h.tp.cwnd = h.cc.undo_cwnd(&h.tp);
        h.tp.ssthresh = 99;
        h.cc.set_state(&mut h.tp, CaState::Open);
        h.tp.ca_state = CaState::Open;
        acks(&mut h, 1, ms(1), ms(100));
        assert_eq!(h.tp.cwnd, 100);
    }

    #[test]
    fn freebsd_timeout_halves_without_moving_w_max() {
        // Loss at 100 (max_cwnd 144800 B, one congestion event), cwnd 79. A timeout:
        // ssthresh = max(2, 79 / 2) = 39 (the stack's rule, not 79 * 0.8 = 63);
        // max_cwnd stays 144800 B; the event is not counted (first timeout).
        let mut h = freebsd_with_rtt(100);
        h.loss();
        h.timeout();
        assert_eq!((h.tp.cwnd, h.tp.ssthresh), (1, 39));
        // The same through the hooks, looking at the module's state.
        let mut c = CubicFreeBsd::new();
        let mut tp = CcState::new(10, MSS);
        c.init(&mut tp);
        tp.cwnd = 100;
        c.ssthresh(&tp);
        c.set_state(&mut tp, CaState::Recovery);
        tp.cwnd = 79;
        c.ssthresh(&tp);
        tp.cwnd = 1;
        c.cwnd_event(&mut tp, CwndEvent::Loss);
        assert_eq!(tp.ssthresh, 39);
        assert_eq!((c.max_cwnd, c.num_cong_events), (144_800, 1));
        // A second consecutive timeout counts one congestion event.
        c.ssthresh(&tp);
        c.cwnd_event(&mut tp, CwndEvent::Loss);
        assert_eq!((c.max_cwnd, c.num_cong_events), (144_800, 2));
    }

    #[test]
    fn freebsd_slow_start_is_newreno_with_abc_l_2() {
        // ABC (RFC 3465) with L = 2: an ACK of 3 segments adds 2; at cwnd == ssthresh
        // it is still slow start (cwnd <= ssthresh), and the step is not capped.
        let mut h = harness(Box::new(CubicFreeBsd::new()), 10, u32::MAX);
        h.ack(3, ms(50));
        assert_eq!(h.tp.cwnd, 12);
        let mut h = harness(Box::new(CubicFreeBsd::new()), 10, 10);
        h.ack(2, ms(50));
        assert_eq!(h.tp.cwnd, 12);
        // No trusted RTT yet (< 8 samples) in congestion avoidance: NewReno's one
        // segment per window (ABC): cwnd 12 > 10 after 12 acknowledged segments.
        h.ack(2, ms(50));
        assert_eq!(h.tp.cwnd, 12);
        for _ in 0..5 {
            h.ack(2, ms(50));
        }
        assert_eq!(h.tp.cwnd, 13);
    }
}
