//! Round-trip time estimation and the retransmission timeout, RFC 6298:
//! SRTT/RTTVAR with alpha 1/8 and beta 1/4, RTO = SRTT + max(G, 4 RTTVAR)
//! bounded by a minimum and a maximum, exponential backoff on expiry. Karn's
//! rule (no samples from retransmitted segments without timestamps) is applied
//! by the caller, which alone knows how a sample was obtained.
//!
//! A second estimator, [`RtoEstimator::Ns2`], follows ns-2's one-way
//! `Agent/TCP` (ns-2 2.28/2.29 tcp/tcp.cc: `rtt_init`, `rtt_update`,
//! `rtt_timeout`, `rtt_backoff`, the timed segment of `output` and `newack`):
//! integer ticks of `tcpTick_`, srtt and rttvar kept scaled by 2^T_SRTT_BITS = 8
//! and 2^T_RTTVAR_BITS = 4, RTO = (srtt + 2^rttvar_exp_ rttvar) ticks, floored at
//! `minrto_` before the backoff multiplies it, capped at `maxrto_`, at least two
//! ticks; one timed segment at a time (`rtt_active_`, `rtt_seq_`) unless
//! timestamps give a sample per ACK; the backoff multiplier doubles up to 64 and
//! past 8 folds srtt into rttvar. Only the arithmetic is followed; the code is ours.
//!
//! A fourth, [`RtoEstimator::Linux`], follows Linux 6.12 (net/ipv4/tcp_input.c
//! `tcp_rtt_estimator`, `tcp_set_rto`; include/net/tcp.h `__tcp_set_rto`,
//! `tcp_bound_rto`, `tcp_rto_min_us`): microseconds, srtt kept times 8 and
//! mdev times 4; `rttvar` jumps at once to a new maximum of mdev within a
//! round trip but decays only once per round trip (when snd_una passes
//! `rtt_seq`), by a quarter of its excess over that maximum, whose floor is
//! the minimum RTO: RTO = SRTT + rttvar >= SRTT + rto_min, rounded up to
//! jiffies (the clock granularity), at most the maximum. Which samples it
//! gets (the oldest newly acknowledged segment never retransmitted, else the
//! oldest newly SACKed one, else the timestamp echo in milliseconds) is the
//! sender's part (`tcp_clean_rtx_queue`, `tcp_ack_update_rtt`).

use tcplab_engine::SimTime;

/// Which RTT estimator and RTO computation a host uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RtoEstimator {
    /// RFC 6298 (with the profile's variance floor and slop).
    Rfc6298,
    /// ns-2's `Agent/TCP` timer in ticks of the clock granularity.
    Ns2,
    /// Linux 2.2's (tcp_input.c `tcp_rtt_estimator`, `tcp_set_rto`,
    /// `tcp_bound_rto`): in jiffies of the clock granularity, srtt kept times
    /// 8 and mdev times 4, RTO = base + base/4 + base >> (cwnd - 1) with
    /// base = srtt + 4 mdev.
    Linux22,
    /// Linux 6.x's (`tcp_rtt_estimator` with `rttvar`/`mdev_max`, `tcp_set_rto`).
    Linux,
}

impl RtoEstimator {
    /// Name as written in scenario files.
    pub fn name(self) -> &'static str {
        match self {
            RtoEstimator::Rfc6298 => "rfc6298",
            RtoEstimator::Ns2 => "ns2",
            RtoEstimator::Linux22 => "linux22",
            RtoEstimator::Linux => "linux",
        }
    }
    /// Parse a scenario name.
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "rfc6298" => RtoEstimator::Rfc6298,
            "ns2" => RtoEstimator::Ns2,
            "linux22" => RtoEstimator::Linux22,
            "linux" => RtoEstimator::Linux,
            _ => return None,
        })
    }
}

/// Which segments give RTT samples when timestamps are not in use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RttSampling {
    /// Every ACK of new data: the newest segment it acknowledges that was
    /// never retransmitted (Linux's `tcp_ack_no_tstamp` / `tcp_clean_rtx_queue`).
    EveryAck,
    /// One timed segment at a time, as 4.4BSD (`t_rtt`/`t_rtseq`, ns-2's
    /// `rtt_active_`): a new one is timed when the last was acknowledged;
    /// a timeout or fast retransmit stops the timing (Karn).
    Timed,
}

impl RttSampling {
    /// Name as written in scenario files.
    pub fn name(self) -> &'static str {
        match self {
            RttSampling::EveryAck => "every-ack",
            RttSampling::Timed => "timed",
        }
    }
    /// Parse a scenario name.
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "every-ack" => RttSampling::EveryAck,
            "timed" => RttSampling::Timed,
            _ => return None,
        })
    }
}

/// ns-2 tcp.h/ns-default.tcl `T_SRTT_BITS` = 3: srtt is kept times 8.
const NS2_SRTT_BITS: u32 = 3;
/// ns-2 `T_RTTVAR_BITS` = 2: rttvar is kept times 4.
const NS2_RTTVAR_BITS: u32 = 2;
/// ns-2 `rttvar_exp_` = 2: RTO = srtt + 4 rttvar.
const NS2_RTTVAR_EXP: u32 = 2;
/// ns-2 `rtt_backoff`: the multiplier `t_backoff_` stops doubling at 64.
const NS2_MAX_BACKOFF: u64 = 64;

/// The state of ns-2's timer (tcp.h `t_srtt_`, `t_rttvar_`, `t_rtxcur_`,
/// `t_backoff_`, `rtt_active_`/`rtt_seq_`/`rtt_ts_`).
#[derive(Clone, Debug)]
struct Ns2Timer {
    /// Smoothed RTT in ticks times 8 (0: no sample yet).
    t_srtt: i64,
    /// RTT variation in ticks times 4.
    t_rttvar: i64,
    /// RTO before backoff and bounds.
    rtxcur: SimTime,
    /// Backoff multiplier, 1 to 64.
    backoff: u64,
    /// The timed segment: (sequence number its ACK must reach, send time).
    timed: Option<(u64, SimTime)>,
    /// Offset of the tick clock (ns-2's `boot_time_`).
    phase: SimTime,
}

/// Linux 2.2's timer state (tcp_opt `srtt`, `mdev`, `rto` in jiffies).
#[derive(Clone, Debug)]
struct L22Timer {
    /// 8 x smoothed RTT, jiffies (0: no sample yet).
    srtt: i64,
    /// 4 x mean deviation, jiffies.
    mdev: i64,
    /// RTO before backoff, jiffies.
    rto_j: u64,
    /// The sender's cwnd, for `tcp_set_rto`'s last term.
    cwnd: u32,
    /// Offset of the jiffy clock.
    phase: u64,
}

/// Linux 6.x's estimator state (struct tcp_sock `srtt_us`, `mdev_us`,
/// `mdev_max_us`, `rttvar_us`, `rtt_seq`), microseconds.
#[derive(Clone, Debug)]
struct LinuxTimer {
    /// 8 x smoothed RTT (0: no sample yet).
    srtt_us: i64,
    /// 4 x mean deviation.
    mdev_us: i64,
    /// Largest mdev_us of the current round trip (at least rto_min).
    mdev_max_us: i64,
    /// The smoothed maximum the RTO uses.
    rttvar_us: i64,
    /// The round trip ends when snd_una passes this.
    rtt_seq: u64,
    /// `tcp_rto_min_us`: the minimum RTO rounded up to jiffies.
    rto_min_us: i64,
    /// One jiffy, microseconds.
    jiffy_us: u64,
    /// `tp->rtt_min`: the windowed minimum RTT (`tcp_update_rtt_min`).
    min_rtt: Minmax,
}

/// Linux's windowed minimum (lib/win_minmax.c, Kathleen Nichols'
/// algorithm): the best, second-best and third-best samples of the last
/// `win`, as (time, value); the minimum is the first. `tcp_update_rtt_min`
/// runs it over `net.ipv4.tcp_min_rtt_wlen` = 300 s, so a path whose RTT has
/// risen forgets its old minimum once that minimum is 300 s old.
#[derive(Clone, Copy, Debug)]
pub struct Minmax {
    s: [(u64, u64); 3],
}

/// `net.ipv4.tcp_min_rtt_wlen`'s default, 300 s (in ns).
pub const MIN_RTT_WLEN: u64 = 300_000_000_000;

impl Minmax {
    /// Before any sample (`minmax_reset(..., ~0U)` in `tcp_init_sock`).
    pub fn new() -> Self {
        Minmax {
            s: [(0, u64::MAX); 3],
        }
    }
    /// The current minimum (`minmax_get`).
    pub fn get(&self) -> u64 {
        self.s[0].1
    }
    fn reset(&mut self, t: u64, v: u64) -> u64 {
        self.s = [(t, v); 3];
        v
    }
    /// `minmax_running_min`: take sample `v` at time `t` (ns).
    pub fn running_min(&mut self, win: u64, t: u64, v: u64) -> u64 {
        let val = (t, v);
        if v <= self.s[0].1 || t.saturating_sub(self.s[2].0) > win {
            return self.reset(t, v);
        }
        if v <= self.s[1].1 {
            self.s[2] = val;
            self.s[1] = val;
        } else if v <= self.s[2].1 {
            self.s[2] = val;
        }
        // minmax_subwin_update.
        let dt = t.saturating_sub(self.s[0].0);
        if dt > win {
            // A whole window without a new minimum: the second choice
            // becomes the minimum (twice if it is out of the window too).
            self.s[0] = self.s[1];
            self.s[1] = self.s[2];
            self.s[2] = val;
            if t.saturating_sub(self.s[0].0) > win {
                self.s[0] = self.s[1];
                self.s[1] = self.s[2];
                self.s[2] = val;
            }
        } else if self.s[1].0 == self.s[0].0 && dt > win / 4 {
            // A quarter of the window without one: a second choice from
            // the second quarter.
            self.s[2] = val;
            self.s[1] = val;
        } else if self.s[2].0 == self.s[1].0 && dt > win / 2 {
            // Half of it: a third choice from the second half.
            self.s[2] = val;
        }
        self.s[0].1
    }
}

impl Default for Minmax {
    fn default() -> Self {
        Self::new()
    }
}

/// RTT estimator and RTO of one sender.
#[derive(Clone, Debug)]
pub struct RttEstimator {
    ns2: Option<Ns2Timer>,
    l22: Option<L22Timer>,
    linux: Option<LinuxTimer>,
    srtt: Option<SimTime>,
    rttvar: SimTime,
    rto: SimTime,
    backoff: u32,
    min_rto: SimTime,
    max_rto: SimTime,
    granularity: SimTime,
    min_rtt: Option<SimTime>,
    latest: Option<SimTime>,
    var_floor: SimTime,
    slop: SimTime,
    /// `RttSampling::Timed` with the RFC 6298 estimator.
    one_timed: bool,
    /// The timed segment: (sequence number its ACK must reach, send time).
    timed: Option<(u64, SimTime)>,
}

impl RttEstimator {
    /// Before any sample: RTO = `initial` (RFC 6298 (2.1): 1 s).
    pub fn new(initial: SimTime, min_rto: SimTime, max_rto: SimTime, granularity: SimTime) -> Self {
        RttEstimator {
            ns2: None,
            l22: None,
            linux: None,
            srtt: None,
            rttvar: SimTime::ZERO,
            rto: initial.min(max_rto),
            backoff: 0,
            min_rto,
            max_rto,
            granularity,
            min_rtt: None,
            latest: None,
            var_floor: SimTime::ZERO,
            slop: SimTime::ZERO,
            one_timed: false,
            timed: None,
        }
    }
    /// Which segments give samples without timestamps (ns-2's estimator
    /// always times one segment).
    pub fn with_sampling(mut self, s: RttSampling) -> Self {
        self.one_timed = s == RttSampling::Timed;
        self
    }
    /// Linux's variant: the variance term is at least `floor` (tcp_rtt_estimator
    /// keeps mdev_max >= tcp_rto_min), so RTO = SRTT + max(4 RTTVAR, floor).
    pub fn with_var_floor(mut self, floor: SimTime) -> Self {
        self.var_floor = floor;
        self
    }
    /// FreeBSD's variant: `slop` added to every RTO (TCPT_RANGESET adds
    /// tcp_rexmit_slop, 200 ms by default) before the minimum applies.
    pub fn with_slop(mut self, slop: SimTime) -> Self {
        self.slop = slop;
        self
    }
    /// Choose the estimator: [`RtoEstimator::Ns2`] starts from `initial`
    /// (ns-2's `rtxcur_init_`) and counts in ticks of the granularity.
    pub fn with_estimator(mut self, kind: RtoEstimator) -> Self {
        self.ns2 = (kind == RtoEstimator::Ns2).then_some(Ns2Timer {
            t_srtt: 0,
            t_rttvar: 0,
            rtxcur: self.rto,
            backoff: 1,
            timed: None,
            phase: SimTime::ZERO,
        });
        if self.ns2.is_some() {
            self.rto = self.ns2_rto();
        }
        let tick = self.granularity.0.max(1);
        self.l22 = (kind == RtoEstimator::Linux22).then_some(L22Timer {
            srtt: 0,
            mdev: 0,
            // Before any sample: TCP_TIMEOUT_INIT, doubled on each backoff.
            rto_j: self.rto.0.div_ceil(tick),
            cwnd: 2,
            phase: 0,
        });
        let jiffy_us = (tick / 1000).max(1);
        let rto_min_us = (self.min_rto.0 / 1000).div_ceil(jiffy_us) * jiffy_us;
        self.linux = (kind == RtoEstimator::Linux).then_some(LinuxTimer {
            srtt_us: 0,
            mdev_us: 0,
            mdev_max_us: 0,
            rttvar_us: 0,
            rtt_seq: 0,
            rto_min_us: rto_min_us as i64,
            jiffy_us,
            min_rtt: Minmax::new(),
        });
        self
    }
    /// Linux 6.x: one RTT sample `r` taken on an ACK that moved snd_una to
    /// `snd_una` while `snd_nxt` was the highest sequence sent
    /// (`tcp_rtt_estimator` then `tcp_set_rto`); clears the backoff
    /// (`tcp_ack_update_rtt`: "only reset backoff on valid RTT").
    pub fn linux_sample(&mut self, r: SimTime, snd_una: u64, snd_nxt: u64) {
        let l = self.linux.as_mut().expect("linux estimator");
        let m_us = (r.0 / 1000) as i64;
        if l.srtt_us != 0 {
            let mut m = m_us - (l.srtt_us >> 3); // the error
            l.srtt_us += m; // srtt = 7/8 srtt + 1/8 R
            if m < 0 {
                m = -m - (l.mdev_us >> 2);
                // A falling RTT raises mdev with gain 1/32, not 1/4.
                if m > 0 {
                    m >>= 3;
                }
            } else {
                m -= l.mdev_us >> 2;
            }
            l.mdev_us += m; // mdev = 3/4 mdev + |error|, times 4
            if l.mdev_us > l.mdev_max_us {
                l.mdev_max_us = l.mdev_us;
                if l.mdev_max_us > l.rttvar_us {
                    l.rttvar_us = l.mdev_max_us;
                }
            }
            if snd_una > l.rtt_seq {
                // The round trip is over: rttvar decays towards its maximum.
                if l.mdev_max_us < l.rttvar_us {
                    l.rttvar_us -= (l.rttvar_us - l.mdev_max_us) >> 2;
                }
                l.rtt_seq = snd_nxt;
                l.mdev_max_us = l.rto_min_us;
            }
        } else {
            l.srtt_us = m_us << 3;
            l.mdev_us = m_us << 1; // "make sure rto = 3*rtt"
            l.rttvar_us = l.mdev_us.max(l.rto_min_us);
            l.mdev_max_us = l.rttvar_us;
            l.rtt_seq = snd_nxt;
        }
        l.srtt_us = l.srtt_us.max(1);
        self.srtt = Some(SimTime((l.srtt_us as u64 >> 3) * 1000));
        self.rttvar = SimTime((l.mdev_us.max(0) as u64 >> 2) * 1000);
        self.latest = Some(r);
        self.backoff = 0;
        self.rto = self.linux_rto();
    }
    /// `__tcp_set_rto` and `tcp_bound_rto`: (srtt + rttvar) rounded up to
    /// jiffies, at most the maximum; then doubled per backoff.
    fn linux_rto(&self) -> SimTime {
        let l = self.linux.as_ref().expect("linux estimator");
        let us = ((l.srtt_us >> 3) + l.rttvar_us).max(0) as u64;
        let base = SimTime(us.div_ceil(l.jiffy_us) * l.jiffy_us * 1000).min(self.max_rto);
        SimTime(base.0.saturating_mul(1 << self.backoff.min(40))).min(self.max_rto)
    }
    /// Linux 2.2: the sender's cwnd, which the next RTO computation uses.
    #[inline]
    pub fn set_cwnd(&mut self, cwnd: u32) {
        if let Some(l) = self.l22.as_mut() {
            l.cwnd = cwnd;
        }
    }
    /// Linux 2.2 with timestamps clears the backoff only when every segment
    /// is acknowledged (tcp_ack_saw_tstamp); the sender says so.
    pub fn all_acked(&mut self) {
        if self.l22.is_some() && self.backoff > 0 {
            self.backoff = 0;
            self.rto = self.l22_rto();
        }
    }
    /// Linux 2.2 `tcp_rtt_estimator` on a sample of `m` jiffies, then
    /// `tcp_set_rto` and `tcp_bound_rto`.
    fn l22_update(&mut self, m: i64, r: SimTime) {
        let l = self.l22.as_mut().expect("linux22 timer");
        let mut m = m.max(1); // if (m == 0) m = 1
        if l.srtt != 0 {
            m -= l.srtt >> 3; // error
            l.srtt += m; // srtt = 7/8 srtt + 1/8 m
            m = m.abs();
            m -= l.mdev >> 2;
            l.mdev += m; // mdev = 3/4 mdev + 1/4 |error|, times 4
        } else {
            l.srtt = m << 3;
            l.mdev = m << 2;
        }
        let base = ((l.srtt >> 3) + l.mdev).max(0) as u64;
        // (base >> (snd_cwnd - 1)): i386 shifts by the count modulo 32.
        let shift = l.cwnd.wrapping_sub(1) % 32;
        l.rto_j = base + (base >> 2) + (base >> shift);
        let tick = self.granularity.0.max(1);
        self.srtt = Some(SimTime((l.srtt as u64 * tick) >> 3));
        self.rttvar = SimTime((l.mdev as u64 * tick) >> 2);
        self.min_rtt = Some(self.min_rtt.map_or(r, |x| x.min(r)));
        self.latest = Some(r);
    }
    /// The Linux 2.2 RTO: bounded (`tcp_bound_rto`), then doubled per backoff.
    fn l22_rto(&self) -> SimTime {
        let l = self.l22.as_ref().expect("linux22 timer");
        let tick = self.granularity.0.max(1);
        let base = SimTime(l.rto_j.saturating_mul(tick))
            .max(self.min_rto)
            .min(self.max_rto);
        SimTime(base.0.saturating_mul(1 << self.backoff.min(40))).min(self.max_rto)
    }
    /// The estimator in use.
    pub fn estimator(&self) -> RtoEstimator {
        if self.linux.is_some() {
            RtoEstimator::Linux
        } else if self.l22.is_some() {
            RtoEstimator::Linux22
        } else if self.ns2.is_some() {
            RtoEstimator::Ns2
        } else {
            RtoEstimator::Rfc6298
        }
    }
    /// ns-2: the tick clock runs `phase` ahead of simulated time (ns-2 draws
    /// `boot_time_` uniformly in one tick per agent). No effect on RFC 6298.
    pub fn set_tick_phase(&mut self, phase: SimTime) {
        if let Some(n) = self.ns2.as_mut() {
            n.phase = SimTime(phase.0 % self.granularity.0.max(1));
        }
        if let Some(l) = self.l22.as_mut() {
            l.phase = phase.0 % self.granularity.0.max(1);
        }
    }
    /// A segment ending at `end` is sent for the first time at `now`. ns-2
    /// (`output`) times it when no other segment is being timed; RFC 6298
    /// senders take samples from any segment, so nothing is kept.
    pub fn on_send_new(&mut self, end: u64, now: SimTime) {
        if let Some(n) = self.ns2.as_mut() {
            if n.timed.is_none() {
                n.timed = Some((end, now));
            }
        } else if self.one_timed && self.timed.is_none() {
            self.timed = Some((end, now));
        }
    }
    /// A timeout or fast retransmit: ns-2 stops timing (`reset_rtx_timer`
    /// clears `rtt_active_`), Karn's rule for a one-timed-segment sender.
    pub fn cancel_timing(&mut self) {
        if let Some(n) = self.ns2.as_mut() {
            n.timed = None;
        }
        self.timed = None;
    }
    /// An ACK of new data up to `ack` at `now`. `karn_sent` is when the newest
    /// acknowledged segment never retransmitted was sent, `ts_rtt` the
    /// timestamp sample. Applies the sample the estimator takes and returns it.
    pub fn on_ack(
        &mut self,
        ack: u64,
        karn_sent: Option<SimTime>,
        ts_rtt: Option<SimTime>,
        now: SimTime,
    ) -> Option<SimTime> {
        if self.l22.is_some() {
            // Jiffies between the send and now (the tick clock's phase as ns-2's).
            let tick = self.granularity.0.max(1);
            let phase = self.l22.as_ref().map_or(0, |l| l.phase);
            let r = ts_rtt.or(karn_sent.map(|t| now - t))?;
            let sent = now.saturating_sub(r);
            let m = ((now.0 + phase) / tick - (sent.0 + phase) / tick) as i64;
            self.l22_update(m, r);
            if ts_rtt.is_none() {
                // tcp_ack: a Karn sample clears the backoff (in:872); with
                // timestamps the backoff stays until all is acknowledged.
                self.backoff = 0;
            }
            self.rto = self.l22_rto();
            return Some(r);
        }
        if self.ns2.is_none() {
            let r = if self.one_timed && ts_rtt.is_none() {
                match self.timed {
                    Some((end, sent)) if ack >= end => {
                        self.timed = None;
                        now - sent
                    }
                    _ => return None,
                }
            } else {
                ts_rtt.or(karn_sent.map(|t| now - t))?
            };
            self.sample(r);
            return Some(r);
        }
        let tick = self.granularity.0.max(1);
        let mut taken = None;
        if let Some(r) = ts_rtt {
            // rtt_update with ts_option_: t_rtt_ = int(tao / tick + 0.5).
            self.ns2_update(((r.0 + tick / 2) / tick) as i64, r);
            taken = Some(r);
        }
        let n = self.ns2.as_mut().expect("ns2 timer");
        if let Some((end, sent)) = n.timed {
            if ack >= end {
                // newack: the timed segment is acknowledged; the backoff ends.
                n.timed = None;
                n.backoff = 1;
                self.backoff = 0;
                if ts_rtt.is_none() {
                    // rtt_update without timestamps: the ticks of the clock
                    // (offset by boot_time_) that passed since the send.
                    let phase = self.ns2.as_ref().expect("ns2 timer").phase.0;
                    let ticks = (now.0 + phase) / tick - (sent.0 + phase) / tick;
                    let r = now - sent;
                    self.ns2_update(ticks as i64, r);
                    taken = Some(r);
                }
                self.rto = self.ns2_rto();
            }
        }
        taken
    }
    /// ns-2 `t_backoff_ = 1` without a sample (Sack1's partial ACK in fast
    /// recovery); nothing for the other estimators.
    pub fn ns2_end_backoff(&mut self) {
        if let Some(n) = self.ns2.as_mut() {
            n.backoff = 1;
            self.backoff = 0;
            self.rto = self.ns2_rto();
        }
    }
    /// ns-2 `rtt_update` on a sample of `ticks` ticks (`r` the exact RTT, kept
    /// for min/latest).
    fn ns2_update(&mut self, ticks: i64, r: SimTime) {
        let tick = self.granularity.0.max(1);
        let n = self.ns2.as_mut().expect("ns2 timer");
        let m = ticks.max(1);
        if n.t_srtt != 0 {
            // delta = m - srtt; srtt += delta/8 (scaled: t_srtt += delta)
            let mut delta = m - (n.t_srtt >> NS2_SRTT_BITS);
            n.t_srtt += delta;
            if n.t_srtt <= 0 {
                n.t_srtt = 1;
            }
            // rttvar += (|delta| - rttvar)/4 (scaled: t_rttvar += |delta| - t_rttvar/4)
            delta = delta.abs() - (n.t_rttvar >> NS2_RTTVAR_BITS);
            n.t_rttvar += delta;
            if n.t_rttvar <= 0 {
                n.t_rttvar = 1;
            }
        } else {
            // First sample: srtt = m, rttvar = m/2.
            n.t_srtt = m << NS2_SRTT_BITS;
            n.t_rttvar = m << (NS2_RTTVAR_BITS - 1);
        }
        // t_rtxcur_ = ((t_rttvar << (rttvar_exp + 1)) + t_srtt) >> 3 ticks.
        let ticks = ((n.t_rttvar << (NS2_RTTVAR_EXP + NS2_SRTT_BITS - NS2_RTTVAR_BITS)) + n.t_srtt)
            >> NS2_SRTT_BITS;
        n.rtxcur = SimTime(ticks as u64 * tick);
        self.srtt = Some(SimTime((n.t_srtt as u64 * tick) >> NS2_SRTT_BITS));
        self.rttvar = SimTime((n.t_rttvar as u64 * tick) >> NS2_RTTVAR_BITS);
        self.min_rtt = Some(self.min_rtt.map_or(r, |x| x.min(r)));
        self.latest = Some(r);
        self.rto = self.ns2_rto();
    }
    /// ns-2 `rtt_timeout` (`rfc2988_` true): max(t_rtxcur_, minrto_) times the
    /// backoff, at most maxrto_, at least two ticks.
    fn ns2_rto(&self) -> SimTime {
        let n = self.ns2.as_ref().expect("ns2 timer");
        let t = SimTime(n.rtxcur.max(self.min_rto).0.saturating_mul(n.backoff));
        t.min(self.max_rto).max(SimTime(2 * self.granularity.0))
    }
    /// Take one RTT measurement R (RFC 6298 (2.2) and (2.3)); clears the backoff.
    pub fn sample(&mut self, r: SimTime) {
        if self.linux.is_some() {
            // Outside a data ACK (the handshake's): the next ACK of data ends
            // the round trip.
            self.linux_sample(r, 0, 0);
            return;
        }
        if self.l22.is_some() {
            let tick = self.granularity.0.max(1);
            self.l22_update((r.0 / tick) as i64, r);
            self.backoff = 0;
            self.rto = self.l22_rto();
            return;
        }
        if self.ns2.is_some() {
            // A sample outside the timed segment (the SYN's, for instance) is
            // taken as ns-2 takes the timed one.
            let tick = self.granularity.0.max(1);
            self.ns2_update((r.0 / tick) as i64, r);
            if let Some(n) = self.ns2.as_mut() {
                n.backoff = 1;
            }
            self.backoff = 0;
            self.rto = self.ns2_rto();
            return;
        }
        match self.srtt {
            None => {
                // (2.2) SRTT <- R, RTTVAR <- R/2
                self.srtt = Some(r);
                self.rttvar = SimTime(r.0 / 2);
            }
            Some(srtt) => {
                // (2.3) RTTVAR <- 3/4 RTTVAR + 1/4 |SRTT - R'| ; SRTT <- 7/8 SRTT + 1/8 R'
                let diff = srtt.0.abs_diff(r.0);
                self.rttvar = SimTime((3 * self.rttvar.0 + diff) / 4);
                self.srtt = Some(SimTime((7 * srtt.0 + r.0) / 8));
            }
        }
        self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
        self.latest = Some(r);
        self.backoff = 0;
        self.rto = self.base_rto();
    }
    fn base_rto(&self) -> SimTime {
        let srtt = self.srtt.unwrap_or(SimTime::ZERO);
        // RTO <- SRTT + max(G, K*RTTVAR), K = 4, then (2.4) at least min, (2.5) at most max.
        let var = self
            .granularity
            .max(SimTime(4 * self.rttvar.0))
            .max(self.var_floor);
        (srtt + var + self.slop).max(self.min_rto).min(self.max_rto)
    }
    /// (5.5) The timer expired: double the RTO, up to the maximum. ns-2
    /// (`rtt_backoff`): double the multiplier up to 64; past 8, fold srtt into
    /// rttvar so that the next sample starts the estimate afresh.
    pub fn back_off(&mut self) {
        self.backoff += 1;
        if let Some(n) = self.ns2.as_mut() {
            if n.backoff < NS2_MAX_BACKOFF {
                n.backoff <<= 1;
            }
            if n.backoff > 8 {
                n.t_rttvar += n.t_srtt >> NS2_SRTT_BITS;
                n.t_srtt = 0;
            }
            self.rto = self.ns2_rto();
            return;
        }
        if self.l22.is_some() {
            // tcp_retransmit_timer: rto = min(rto << 1, 120 s).
            self.rto = self.l22_rto();
            return;
        }
        self.rto = SimTime(self.rto.0.saturating_mul(2)).min(self.max_rto);
    }
    /// RFC 6298 (5.7): after a SYN timed out, the RTO for data starts at 3 s if no sample came.
    pub fn reset_after_syn_timeout(&mut self) {
        if self.srtt.is_none() {
            self.rto = SimTime::from_secs(3).max(self.min_rto).min(self.max_rto);
            self.backoff = 0;
        }
    }
    /// The current RTO (backoff included).
    pub fn rto(&self) -> SimTime {
        self.rto
    }
    /// Smoothed RTT, if any sample was taken.
    pub fn srtt(&self) -> Option<SimTime> {
        self.srtt
    }
    /// RTT variation.
    pub fn rttvar(&self) -> SimTime {
        self.rttvar
    }
    /// Smallest sample so far; with the Linux estimator, the smallest of
    /// the last 300 s ([`RttEstimator::linux_min_rtt`]).
    pub fn min_rtt(&self) -> Option<SimTime> {
        match &self.linux {
            Some(l) => (l.min_rtt.get() != u64::MAX).then(|| SimTime(l.min_rtt.get())),
            None => self.min_rtt,
        }
    }
    /// Linux `tcp_update_rtt_min`: sample `r` taken at `now` enters the
    /// windowed minimum (a zero sample counts one jiffy, as Linux's). No
    /// effect with the other estimators, whose minimum is every sample's.
    pub fn linux_min_rtt(&mut self, now: SimTime, r: SimTime) {
        if let Some(l) = self.linux.as_mut() {
            // `rtt_us ? : jiffies_to_usecs(1)`.
            let us = match r.0 / 1000 {
                0 => l.jiffy_us,
                us => us,
            };
            l.min_rtt.running_min(MIN_RTT_WLEN, now.0, us * 1000);
        }
    }
    /// Latest sample.
    pub fn latest(&self) -> Option<SimTime> {
        self.latest
    }
    /// Number of consecutive backoffs.
    pub fn backoffs(&self) -> u32 {
        self.backoff
    }
    /// ns-2's backoff multiplier `t_backoff_` (1 with RFC 6298).
    pub fn ns2_backoff(&self) -> u64 {
        self.ns2.as_ref().map_or(1, |n| n.backoff)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> SimTime {
        SimTime::from_millis(x)
    }

    #[test]
    fn the_windowed_minimum_forgets_a_minimum_older_than_its_window() {
        // lib/win_minmax.c by hand, window 100: the minimum 10 at t = 0 holds
        // while younger, larger samples fill the second (after a quarter of
        // the window) and third (after half) choices; past the window the
        // choices move up, twice when the second is out of it too; a sample
        // with nothing left in the window starts afresh.
        let mut m = Minmax::new();
        assert_eq!(m.get(), u64::MAX);
        assert_eq!(m.running_min(100, 0, 10), 10);
        assert_eq!(m.running_min(100, 30, 20), 10); // s1 = s2 = (30, 20)
        assert_eq!(m.running_min(100, 60, 30), 10); // s2 = (60, 30)
        assert_eq!(m.running_min(100, 110, 40), 20); // (0, 10) is 110 old
        assert_eq!(m.running_min(100, 170, 50), 40); // (30, 20) and (60, 30) too
        assert_eq!(m.running_min(100, 300, 60), 60); // nothing within 100
        assert_eq!(m.running_min(100, 301, 5), 5); // a new minimum resets

        // Linux's window is 300 s: within it the minimum is every sample's.
        let mut e = RttEstimator::new(ms(1000), ms(200), ms(120_000), ms(4))
            .with_estimator(RtoEstimator::Linux);
        e.linux_min_rtt(ms(0), ms(100));
        e.linux_min_rtt(ms(299_000), ms(150));
        assert_eq!(e.min_rtt(), Some(ms(100)));
        e.linux_min_rtt(ms(301_000), ms(150));
        assert_eq!(e.min_rtt(), Some(ms(150)));
    }
    fn est() -> RttEstimator {
        RttEstimator::new(ms(1000), ms(1000), ms(60_000), ms(1))
    }

    fn l22() -> RttEstimator {
        // Linux 2.2 on i386: HZ 100, TCP_TIMEOUT_INIT 3 s, HZ/5, 120*HZ.
        RttEstimator::new(ms(3000), ms(200), ms(120_000), ms(10))
            .with_estimator(RtoEstimator::Linux22)
    }

    fn linux(jiffy_ms: u64) -> RttEstimator {
        // Linux 6.x: TCP_TIMEOUT_INIT 1 s, TCP_RTO_MIN 200 ms, TCP_RTO_MAX 120 s.
        RttEstimator::new(ms(1000), ms(200), ms(120_000), ms(jiffy_ms))
            .with_estimator(RtoEstimator::Linux)
    }

    #[test]
    fn linux_rto_follows_tcp_rtt_estimator_one_sample_per_round_trip() {
        // Worked by hand from tcp_rtt_estimator (us, srtt x8, mdev x4):
        // 100 ms: srtt 800000, mdev 200000, rttvar = max(200000, rto_min) =
        //   200000: RTO = 100000 + 200000 = 300 ms.
        // 100 ms (next round): error 0; mdev = 200000 - 50000 = 150000;
        //   rttvar stays 200000 (not above the window max): 300 ms.
        // 300 ms: error 200000, srtt 1000000; mdev = 150000 + 200000 -
        //   37500 = 312500, a new maximum: rttvar 312500: 125000 + 312500 =
        //   437500 us, 438 ms in 1 ms jiffies.
        // 100 ms: error -25000, srtt 975000; -(25000 - 78125) < 0 so mdev =
        //   312500 - 53125 = 259375; the round ends: rttvar -= (312500 -
        //   259375) >> 2 = 13281 -> 299219: 121875 + 299219 = 421094 us: 422 ms.
        let mut e = linux(1);
        assert_eq!(e.rto(), ms(1000));
        let mut una = 0;
        for (r, rto) in [(100, 300), (100, 300), (300, 438), (100, 422)] {
            // One sample per round trip: each ACK passes the last rtt_seq.
            una += 10;
            e.linux_sample(ms(r), una, una + 9);
            assert_eq!(e.rto(), ms(rto), "after a sample of {r} ms");
        }
        assert_eq!(e.srtt(), Some(SimTime::from_micros(121_875)));
    }

    #[test]
    fn linux_rttvar_jumps_up_at_once_and_decays_once_per_round_trip() {
        // By hand: 100 ms first (rtt_seq 10); 200 ms within the round raises
        // mdev to 250000 and rttvar with it (RTO 112500 + 250000); two 100 ms
        // samples let mdev fall but rttvar stays until snd_una passes 10, and
        // at that point it decays by (250000 - mdev_max 250000) >> 2 = 0; the
        // next round's end decays it by (250000 - 200000) >> 2 = 12500.
        let mut e = linux(1);
        e.linux_sample(ms(100), 0, 10);
        e.linux_sample(ms(200), 5, 10);
        assert_eq!(e.rto(), ms(363)); // 362500 us
        e.linux_sample(ms(100), 10, 10); // snd_una = rtt_seq: same round
        assert_eq!(e.rto(), ms(361)); // 110937 + 250000
        e.linux_sample(ms(100), 11, 20); // the round ends, rtt_seq 20
        assert_eq!(e.rto(), ms(360)); // 109570 + 250000
        e.linux_sample(ms(100), 21, 30);
        assert_eq!(e.rto(), ms(346)); // 108374 + 237500 = 345874
    }

    #[test]
    fn linux_rto_is_at_least_srtt_plus_rto_min_in_whole_jiffies() {
        // A steady 10 ms path: rttvar never falls below rto_min (200 ms), so
        // RTO = 10 + 200 = 210 ms; with 4 ms jiffies (HZ 250) 212 ms.
        for (jiffy, rto) in [(1, 210), (4, 212)] {
            let mut e = linux(jiffy);
            for k in 0..50u64 {
                e.linux_sample(ms(10), 10 * k + 1, 10 * k + 10);
            }
            assert_eq!(e.rto(), ms(rto), "jiffy {jiffy} ms");
        }
        // Backoff doubles it; the next sample clears the backoff.
        let mut e = linux(1);
        e.linux_sample(ms(10), 1, 10);
        e.back_off();
        e.back_off();
        assert_eq!(e.rto(), ms(4 * 210));
        e.linux_sample(ms(10), 11, 20);
        assert_eq!(e.rto(), ms(210));
    }

    #[test]
    fn linux22_rto_follows_tcp_set_rto_in_jiffies() {
        let mut e = l22();
        assert_eq!(e.rto(), ms(3000));
        // First sample: sent at 0, ACKed at 105 ms: 10 jiffies. srtt = 80,
        // mdev = 40 (scaled), base = 10 + 40 = 50; cwnd 2: 50 + 50/4 + 50/2
        // = 50 + 12 + 25 = 87 jiffies.
        e.set_cwnd(2);
        assert_eq!(e.on_ack(1000, Some(ms(0)), None, ms(105)), Some(ms(105)));
        assert_eq!(e.rto(), ms(870));
        // Second: sent at 200, ACKed at 330 ms: 33 - 20 = 13 jiffies.
        // err = 13 - 10 = 3, srtt = 83; |3| - 40/4 = -7, mdev = 33;
        // base = 83/8 + 33 = 43; cwnd 10: 43 + 10 + 43 >> 9 = 53 jiffies.
        e.set_cwnd(10);
        assert_eq!(e.on_ack(2000, Some(ms(200)), None, ms(330)), Some(ms(130)));
        assert_eq!(e.rto(), ms(530));
        // Each timeout doubles it; a Karn sample clears the backoff.
        e.back_off();
        e.back_off();
        assert_eq!(e.rto(), ms(2120));
        // cwnd 33: the shift count 32 wraps to 0 on i386, the term is base.
        // Sample 10 jiffies: err = 0, srtt 83; 0 - 33/4 = -8, mdev = 25;
        // base = 10 + 25 = 35: 35 + 8 + 35 = 78.
        e.set_cwnd(33);
        e.on_ack(3000, Some(ms(400)), None, ms(500));
        assert_eq!(e.rto(), ms(780));
        // Before any sample, the backoff doubles TCP_TIMEOUT_INIT.
        let mut f = l22();
        f.back_off();
        assert_eq!(f.rto(), ms(6000));
    }

    #[test]
    fn linux22_on_a_lan_sits_on_the_200ms_floor() {
        // 250 us round trips within one jiffy: m = 0 is taken as 1; mdev
        // decays to 3 and stays (3/4 truncates to 0): base = 1 + 3 = 4,
        // RTO <= 4 + 1 + 4 = 9 jiffies, below HZ/5: 200 ms.
        let mut e = l22();
        for k in 0..50u64 {
            let t = SimTime(k * 1_000_000 + 100_000);
            e.on_ack(k, Some(t), None, t + SimTime(250_000));
        }
        assert_eq!(e.rto(), ms(200));
        assert_eq!(e.srtt(), Some(ms(10)));
        // With timestamps the backoff stays until everything is acknowledged.
        e.back_off();
        e.on_ack(100, None, Some(SimTime(250_000)), ms(1000));
        assert_eq!(e.rto(), ms(400));
        e.all_acked();
        assert_eq!(e.rto(), ms(200));
    }

    #[test]
    fn a_timed_sender_samples_one_segment_per_round_trip() {
        // BSD timing: segments ending at 1000, 2000, 3000 sent at 0, 1, 2 ms;
        // only the first is timed. ACKs at 100 ms (to 1000) and 101 ms (to
        // 2000): one sample, 100 ms. The next new segment (sent at 101 ms,
        // acked at 250 ms) is timed: 149 ms. Every-ACK sampling takes all.
        let mut e = est().with_sampling(RttSampling::Timed);
        for (end, t) in [(1000, 0), (2000, 1), (3000, 2)] {
            e.on_send_new(end, ms(t));
        }
        assert_eq!(e.on_ack(1000, Some(ms(0)), None, ms(100)), Some(ms(100)));
        assert_eq!(e.on_ack(2000, Some(ms(1)), None, ms(101)), None);
        e.on_send_new(4000, ms(101));
        assert_eq!(e.on_ack(3000, Some(ms(2)), None, ms(102)), None);
        assert_eq!(e.on_ack(4000, Some(ms(101)), None, ms(250)), Some(ms(149)));
        // A timeout stops the timing (Karn): the ACK of the timed segment
        // after it gives no sample.
        e.on_send_new(5000, ms(250));
        e.cancel_timing();
        assert_eq!(e.on_ack(5000, None, None, ms(400)), None);
        // Timestamps give a sample on every ACK whatever the rule.
        assert_eq!(e.on_ack(6000, None, Some(ms(90)), ms(500)), Some(ms(90)));
        let mut every = est();
        every.on_send_new(1000, ms(0));
        assert_eq!(
            every.on_ack(1000, Some(ms(0)), None, ms(100)),
            Some(ms(100))
        );
        assert_eq!(
            every.on_ack(2000, Some(ms(1)), None, ms(101)),
            Some(ms(100))
        );
    }

    #[test]
    fn initial_rto_is_one_second() {
        assert_eq!(est().rto(), ms(1000));
    }

    #[test]
    fn first_and_second_samples_follow_rfc6298() {
        let mut e = RttEstimator::new(ms(1000), ms(200), ms(60_000), ms(1));
        // R = 100 ms: SRTT = 100, RTTVAR = 50, RTO = 100 + 4*50 = 300 ms.
        e.sample(ms(100));
        assert_eq!(e.srtt(), Some(ms(100)));
        assert_eq!(e.rttvar(), ms(50));
        assert_eq!(e.rto(), ms(300));
        // R' = 200 ms: RTTVAR = 3/4*50 + 1/4*100 = 62.5; SRTT = 7/8*100 + 1/8*200 = 112.5;
        // RTO = 112.5 + 250 = 362.5 ms.
        e.sample(ms(200));
        assert_eq!(e.rttvar(), SimTime(62_500_000));
        assert_eq!(e.srtt(), Some(SimTime(112_500_000)));
        assert_eq!(e.rto(), SimTime(362_500_000));
    }

    #[test]
    fn rto_is_floored_at_the_minimum_and_granularity_counts() {
        let mut e = est();
        e.sample(ms(10)); // 10 + 4*5 = 30 ms < 1 s minimum
        assert_eq!(e.rto(), ms(1000));
        let mut e = RttEstimator::new(ms(1000), SimTime::ZERO, ms(60_000), ms(100));
        e.sample(ms(8)); // RTTVAR 4 ms: 4*4 = 16 < G = 100 -> RTO = 8 + 100
        assert_eq!(e.rto(), ms(108));
    }

    #[test]
    fn backoff_doubles_up_to_the_cap_and_a_sample_clears_it() {
        let mut e = est();
        let seq: Vec<u64> = (0..8)
            .map(|_| {
                e.back_off();
                e.rto().0 / 1_000_000
            })
            .collect();
        assert_eq!(
            seq,
            vec![2000, 4000, 8000, 16000, 32000, 60000, 60000, 60000]
        );
        assert_eq!(e.backoffs(), 8);
        e.sample(ms(100));
        assert_eq!(e.backoffs(), 0);
        assert_eq!(e.rto(), ms(1000));
    }

    #[test]
    fn linux_floors_the_variance_term_at_the_minimum_rto() {
        // RTO = SRTT + max(4 RTTVAR, 200 ms). R = 100 ms: 100 + max(200, 200) = 300 ms.
        // Twenty more samples of 100 ms: RTTVAR -> 50 * (3/4)^20 = 0.16 ms, so
        // RTO = 100 + 200 = 300 ms (RFC 6298 would give max(200, 100.6) = 200 ms).
        let mut e =
            RttEstimator::new(ms(1000), ms(200), ms(120_000), ms(1)).with_var_floor(ms(200));
        e.sample(ms(100));
        assert_eq!(e.rto(), ms(300));
        for _ in 0..20 {
            e.sample(ms(100));
        }
        assert_eq!(e.rto(), ms(300));
    }

    #[test]
    fn freebsd_adds_the_retransmit_slop() {
        // RTO = SRTT + 4 RTTVAR + 200 ms slop, at least 30 ms. R = 100 ms:
        // 100 + 200 + 200 = 500 ms; after a steady 100 ms: 100 + ~0 + 200 = 300 ms
        // (the 1 ms granularity G stands in for a zero variance: 301 ms).
        let mut e = RttEstimator::new(ms(1000), ms(30), ms(64_000), ms(1)).with_slop(ms(200));
        e.sample(ms(100));
        assert_eq!(e.rto(), ms(500));
        for _ in 0..40 {
            e.sample(ms(100));
        }
        assert_eq!(e.rto(), ms(301));
    }

    #[test]
    fn syn_timeout_sets_three_seconds_until_a_sample() {
        let mut e = est();
        e.back_off();
        e.reset_after_syn_timeout();
        assert_eq!(e.rto(), ms(3000));
    }

    /// ns-2 2.28's timer: tcpTick_ 10 ms, minrto_ 200 ms, maxrto_ 100000 s,
    /// rtxcur_init_ 6 s.
    fn ns2() -> RttEstimator {
        RttEstimator::new(ms(6000), ms(200), ms(100_000_000), ms(10))
            .with_estimator(RtoEstimator::Ns2)
    }

    #[test]
    fn ns2_minrto_applies_before_the_backoff() {
        // A 5 ms RTT is under one tick: t_rtt_ = 1 (floored); t_srtt_ = 8,
        // t_rttvar_ = 2; t_rtxcur_ = ((2 << 3) + 8) >> 3 = 3 ticks = 30 ms.
        // rtt_timeout (rfc2988_): max(30, minrto_ 200) = 200 ms, times t_backoff_:
        // 400, 800 ms (ns-2 without rfc2988_ would give max(60, 200) = 200 first).
        let mut e = ns2();
        assert_eq!(e.rto(), ms(6000));
        e.on_send_new(100, ms(0));
        assert_eq!(e.on_ack(100, None, None, ms(5)), Some(ms(5)));
        assert_eq!(e.rto(), ms(200));
        e.back_off();
        assert_eq!(e.rto(), ms(400));
        e.back_off();
        assert_eq!(e.rto(), ms(800));
    }

    #[test]
    fn ns2_backoff_stops_at_64_and_past_8_folds_srtt_into_rttvar() {
        // One sample of 100 ms = 10 ticks: t_srtt_ 80, t_rttvar_ 20, RTO 30 ticks
        // = 300 ms. Backoffs: 600, 1200, 2400 ms; the fourth makes t_backoff_ 16
        // > 8: t_rttvar_ += 80 >> 3 = 30, t_srtt_ = 0; t_rtxcur_ stays 300 ms:
        // 4800, 9600, 19200 ms, then 64 * 300 = 19200 ms for ever.
        let mut e = ns2();
        e.on_send_new(100, ms(0));
        e.on_ack(100, None, None, ms(100));
        assert_eq!(e.rto(), ms(300));
        let seq: Vec<u64> = (0..8)
            .map(|_| {
                e.back_off();
                e.rto().0 / 1_000_000
            })
            .collect();
        assert_eq!(seq, vec![600, 1200, 2400, 4800, 9600, 19200, 19200, 19200]);
        assert_eq!(e.ns2_backoff(), 64);
        // The next timed ACK is a first sample again (t_srtt_ was zeroed): 50 ms =
        // 5 ticks: t_srtt_ 40, t_rttvar_ 10, RTO 15 ticks = 150 ms -> minrto_ 200;
        // the backoff ends.
        e.on_send_new(200, ms(1000));
        assert_eq!(e.on_ack(200, None, None, ms(1050)), Some(ms(50)));
        assert_eq!((e.rto(), e.ns2_backoff()), (ms(200), 1));
    }

    #[test]
    fn ns2_counts_the_ticks_of_a_clock_offset_by_boot_time() {
        // rtt_update: t_rtt_ = int((tao + fmod(sendtime + boot_time_, tick)) / tick).
        // Sent at 3 ms, ACKed at 98 ms (95 ms): boot_time_ 0: 9 - 0 = 9 ticks
        // (RTO ((9 << 1 << 3) + 72) >> 3 = 27 ticks); boot_time_ 5 ms: floor(103/10)
        // - floor(8/10) = 10 ticks (RTO 30 ticks).
        for (phase, rto) in [(0, 270), (5, 300)] {
            let mut e = ns2();
            e.set_tick_phase(ms(phase));
            e.on_send_new(10, ms(3));
            e.on_ack(10, None, None, ms(98));
            assert_eq!(e.rto(), ms(rto), "boot_time_ {phase} ms");
        }
    }

    #[test]
    fn ns2_samples_only_the_timed_segment_and_not_after_cancel() {
        let mut e = ns2();
        e.on_send_new(10, ms(0)); // timed
        e.on_send_new(20, ms(1)); // not timed: one at a time
        assert_eq!(e.on_ack(10, Some(ms(0)), None, ms(100)), Some(ms(100)));
        assert_eq!(e.on_ack(20, Some(ms(1)), None, ms(101)), None);
        e.on_send_new(30, ms(200));
        e.cancel_timing(); // a timeout: reset_rtx_timer clears rtt_active_
        assert_eq!(e.on_ack(30, Some(ms(200)), None, ms(300)), None);
    }
}
