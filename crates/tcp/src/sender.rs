//! The data sender of one connection: handshake, transmission under cwnd, rwnd
//! and the send buffer, fast retransmit and recovery (Tahoe, Reno, NewReno per
//! RFC 6582, SACK per RFC 6675), retransmission timeout (RFC 6298 with Karn's
//! rule and backoff), timestamps (RFC 7323), ECN (RFC 3168 section 6.1), pacing,
//! and the congestion-control hooks.
//!
//! Linux 6.x's machinery, each behind a host field (all on in the `linux`
//! profile): RACK loss detection (`rack`, recovery/rack.rs) with its
//! reordering timer, and the tail loss probe (`tlp`), sharing one timer slot
//! with the RTO as Linux's `icsk_pending` (`XTimer`); PRR (`prr`,
//! recovery/prr.rs); F-RTO (`frto`, `process_frto`) and D-SACK undo
//! (`dsack`, `count_dsack`, `try_undo_dsack`).
//!
//! ECN, as RFC 3168 and Linux (net/ipv4/tcp_input.c, tcp_output.c): the SYN
//! carries ECE and CWR when the host enables ECN (a retransmitted SYN does not,
//! as Linux with `tcp_ecn_fallback`); ECN is on when the SYN-ACK answers with
//! ECE and without CWR. New data segments then go out ECT(0); retransmissions,
//! pure ACKs, FIN-only segments and SYNs are Not-ECT (6.1.1, 6.1.4, 6.1.5;
//! `tcp_ecn_send`). An ACK with ECE in the Open or Disorder state, once snd_una
//! has passed the point of the last window reduction, is treated as a loss
//! without a retransmission (6.1.2, `tcp_enter_cwr`): ssthresh from the
//! controller's `ssthresh` hook and the CWR state until snd_una passes snd_max
//! of that moment (Linux `high_seq`), during which the window does not grow and
//! further ECEs are ignored; at its end cwnd = ssthresh and `CompleteCwr`
//! (`tcp_end_cwnd_reduction`). ECE in Recovery or Loss is ignored. After any
//! reduction (ECE, fast retransmit, timeout) the next new data segment carries
//! CWR (`tcp_ecn_queue_cwr`). A loss found while in CWR is repaired by fast
//! recovery without a second reduction (`tcp_enter_recovery` inside a cwnd
//! reduction), and an ECN reduction is never undone.
//!
//! ECN simplifications: Linux reduces cwnd to ssthresh over the CWR round trip
//! by proportional rate reduction; here cwnd drops to ssthresh at once (as
//! RFC 3168's "halve the congestion window"). A timeout during CWR recomputes
//! ssthresh as any first timeout does here (Linux keeps the ongoing reduction's).
//! RFC 3168's rule for a window of one segment (wait for the retransmission timer
//! before sending) never applies: ssthresh is at least 2.
//!
//! ns-2 one-way agents (`handshake` "ns2-syn" or "none", as ns-2 2.28's
//! `Agent/TCP` in tcp/tcp.cc): no option negotiation (SACK and timestamps as
//! configured), payload `mss` bytes (`packetSize_`), ns-2's packet sizes, no
//! FIN, the ACK's window ignored; with "ns2-syn" a 40-byte first packet whose
//! ACK sets cwnd to the initial window (`set_initial_window`, `recv` with
//! `delay_growth_`), with "none" data at the start time. ssthresh starts at
//! `window_` (`reset`), the window is min(cwnd, window_) (`window()`), and
//! ssthresh halves that window (`slowdown`), so a second timeout in a row sets
//! ssthresh to 2 (cwnd is 1 then) where RFC 5681 keeps it.
//!
//! ns-2 2.28 rules behind switches of the `ns2` profile (off elsewhere):
//! `dupthresh_frac` (Sack1's numdupacks(cwnd_), see `dupthresh`), `ns2_lss`
//! (opencwnd's limited slow start, see `ns2_lss_ack` and `ns2_opencwnd`) and `ns2_decrease`
//! (slowdown's halving, see `loss_ssthresh`); they read ns-2's
//! `first_decrease_` and `last_cwnd_action_`, kept here for every connection.
//! `ns2_sack1` turns `recovery = "sack"` into ns-2's Sack1 recovery
//! (`sack1-ns2`, recovery/sack1.rs: `sack1_dupack`, `sack1_send`, and its
//! branches in `on_ack`, `enter_recovery` and `on_rto`).
//!
//! No I/O: time is passed in and segments are appended to an output vector.
//! Sequence numbers start at 0 (the SYN); data starts at 1.

use crate::cc::{
    ns2_limited_slow_start, ns2_lss_increment, rfc3742_k, AckSample, CaState, CcState,
    CongestionControl, CwndEvent, RateSample,
};
use crate::header::{TcpHeader, ACK, CWR, ECE, FIN, MAX_SACK_BLOCKS, PSH, SYN};
use crate::profile::{Handshake, Recovery, TcpConfig, Undo};
use crate::rtt::{RtoEstimator, RttEstimator, RttSampling};
use crate::scoreboard::{
    RateAcc, Scoreboard, Seg, TxSnap, EVER_RETRANS, LOST, PUSH, RETRANS, SACKED, SKB_HEAD,
};

use tcplab_engine::SimTime;
use tcplab_net::Ecn;

/// Connection state of the sender.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SenderState {
    /// Not started.
    Closed,
    /// SYN sent, waiting for the SYN-ACK.
    SynSent,
    /// Sending data.
    Established,
    /// All data and the FIN acknowledged.
    Done,
}

/// ns-2's `last_cwnd_action_` (tcp.cc), as far as the `ns2` rules read it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ns2Action {
    /// 0: no window reduction yet.
    None,
    /// `CWND_ACTION_DUPACK`: the last reduction was a fast retransmit.
    Dupack,
    /// `CWND_ACTION_TIMEOUT`: the last reduction was a timeout.
    Timeout,
}

/// What holds the timer slot RACK, the loss probe and the RTO share (Linux
/// `icsk_pending`: arming one replaces the other, and the RTO waits).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum XTimer {
    /// RACK's reordering timer (`ICSK_TIME_REO_TIMEOUT`).
    Reo,
    /// The tail loss probe (`ICSK_TIME_LOSS_PROBE`).
    Probe,
}

/// Counters of one sender.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SenderStats {
    /// Data segments transmitted (first transmissions and retransmissions; FIN included).
    pub segs_sent: u64,
    /// Retransmitted segments.
    pub segs_retrans: u64,
    /// Fast retransmits (entries into fast recovery, Tahoe's included).
    pub fast_retransmits: u64,
    /// Retransmission timeouts (SYN timeouts included).
    pub timeouts: u64,
    /// Reductions undone as spurious (Eifel detection).
    pub undos: u64,
    /// Window reductions in response to ECN-Echo (entries into CWR).
    pub ecn_reductions: u64,
    /// Timeouts F-RTO found spurious and undid (Linux `TCPSpuriousRTOs`).
    pub spurious_rtos: u64,
    /// Tail loss probes sent (Linux `TCPLossProbes`).
    pub loss_probes: u64,
    /// Losses a probe repaired, each with a window reduction (Linux
    /// `TCPLossProbeRecovery`).
    pub tlp_recoveries: u64,
    /// Payload bytes transmitted for the first time.
    pub bytes_sent: u64,
    /// The first window reduction for a loss (fast retransmit or timeout).
    pub first_reduction: Option<FirstReduction>,
    /// The first reduction happened in slow start, and slow start then took
    /// the window up to the ssthresh that reduction set, with no timeout in
    /// between: the "double slow start" of Barakat & Altman (1999).
    pub double_slow_start: bool,
}

/// Where the sender is in finding a second slow start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ss2Watch {
    /// No reduction yet, or nothing to watch.
    Idle,
    /// The first reduction happened in slow start and set this ssthresh.
    Armed(u32),
    /// cwnd has been below that ssthresh since: slow start is climbing to it.
    Climbing(u32),
}

/// A loss episode: from the first fast retransmit or timeout while the
/// sender was in the Open (or Disorder, or CWR) state to its return there.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LossEpisode {
    /// When it began.
    pub start: SimTime,
    /// When the sender was back in the Open state (`None`: still in it at
    /// the end of the run).
    pub end: Option<SimTime>,
    /// It began with a timeout (else a fast retransmit, or a loss probe).
    pub timeout: bool,
    /// A loss the tail loss probe repaired (Linux `tcp_process_tlp_ack`): it
    /// begins and ends at the ACK showing it, with the one reduction.
    pub tlp: bool,
    /// cwnd just before it, segments.
    pub cwnd: u32,
    /// The ssthresh its first reduction set.
    pub ssthresh: u32,
    /// Timeouts during it (the first included when it began with one).
    pub timeouts: u32,
    /// Segments retransmitted during it.
    pub retrans: u64,
    /// cwnd when it ended (or at the end of the run).
    pub cwnd_after: u32,
}

/// The first loss reaction of a connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FirstReduction {
    /// When.
    pub at: SimTime,
    /// A timeout (else a fast retransmit).
    pub timeout: bool,
    /// cwnd just before it, segments.
    pub cwnd: u32,
    /// Whether the sender was in slow start just before it.
    pub in_slow_start: bool,
    /// The ssthresh it set.
    pub ssthresh: u32,
}

/// The sender.
pub struct Sender {
    cfg: TcpConfig,
    /// Window state shared with the controller.
    pub tp: CcState,
    cc: Box<dyn CongestionControl>,
    state: SenderState,
    recovery_kind: Recovery,
    /// Oldest unacknowledged sequence number.
    pub snd_una: u64,
    /// Next sequence number to send (rewinds on a timeout without SACK).
    pub snd_nxt: u64,
    /// One past the highest sequence number ever sent (RFC 6675 HighData + 1).
    pub snd_max: u64,
    /// One past the last data byte (1 + application bytes); `u64::MAX` for bulk.
    data_end: u64,
    /// With `push`: the new-data segments left in the GSO skb being sent,
    /// and those sent of it (its latest is the last header in `out`, whose
    /// PSH `__tcp_transmit_skb` sets when the skb has more than one).
    unit_left: u32,
    unit_sent: u32,
    sb: Scoreboard,
    rtt: RttEstimator,
    recover: u64,
    dupacks: u32,
    partial_acks: u32,
    /// The window a NewReno recovery returns to without inflation (ns-2 `cwnd_`
    /// while `dupwnd_` counts the duplicate ACKs).
    recovery_base: u32,
    /// Watching for a second slow start after the first reduction (see
    /// `SenderStats::double_slow_start`).
    ss2: Ss2Watch,
    rwnd: u64,
    /// Unacknowledged payload bytes the send buffer holds (see `set_snd_limit`).
    snd_limit: u64,
    snd_wscale: u8,
    mss: u32,
    ts_ok: bool,
    sack_ok: bool,
    ts_recent: u64,
    peer_fin: Option<u64>,
    rto_deadline: Option<SimTime>,
    pace_next: SimTime,
    pace_deadline: Option<SimTime>,
    /// Segments still to leave in the current TSO/GSO burst (`gso_bursts`)
    /// and what is left of its lateness credit.
    gso_left: u32,
    gso_credit: SimTime,
    /// While a burst of retransmissions is open (`gso_left > 0`): where the
    /// next segment of its skb starts (only that segment may join it).
    gso_retx_next: Option<u64>,
    syn_sent_at: SimTime,
    syn_retransmitted: bool,
    /// RTT samples taken (FreeBSD `t_rttupdated`, which the host cache needs).
    rtt_updates: u32,
    /// FreeBSD's `sack_newdata`: snd_max when the SACK recovery started
    /// (`freebsd_sack`).
    fb_newdata: u64,
    /// The host cache's entry for the peer, loaded at establishment
    /// (`host_cache`).
    cached: Option<crate::hostcache::HostCacheEntry>,
    delivered_time: SimTime,
    first_tx_time: SimTime,
    undo_marker: bool,
    sack_cache: [(u64, u64); MAX_SACK_BLOCKS],
    rule3_from: u64,
    prior_ssthresh: u32,
    retrans_stamp: Option<SimTime>,
    /// `undo = "badrxtwin"`: until when the first new ACK after a first
    /// timeout undoes it (FreeBSD `t_badrxtwin`).
    badrxt_until: Option<SimTime>,
    last_rtt: Option<SimTime>,
    /// ECN negotiated (Linux `TCP_ECN_OK`).
    ecn_ok: bool,
    /// The next new data segment carries CWR (Linux `TCP_ECN_QUEUE_CWR`).
    cwr_pending: bool,
    /// snd_max at the last window reduction (Linux `high_seq`): CWR lasts, and
    /// ECE is not acted on, until snd_una passes it.
    high_seq: u64,
    /// ns-2 `first_decrease_`: no window reduction yet (`ns2_decrease`).
    first_decrease: bool,
    /// ns-2 `last_cwnd_action_` (`ns2_lss`, `ns2_decrease`).
    ns2_action: Ns2Action,
    /// ns-2's `cwnd_`, a double, for controllers whose agent grows it by
    /// `increase_num_ / cwnd_` (`CongestionControl::ns2_fractional_cwnd`):
    /// `tp.cwnd` is its integer part (`window()`); 0 when not in use. Taken
    /// afresh from `tp.cwnd` whenever something else set that.
    ns2_cwnd: f64,
    /// Counters.
    pub stats: SenderStats,
    /// Loss episodes so far (the last may still be open).
    pub episodes: Vec<LossEpisode>,
    /// Retransmissions counted when the open episode began.
    episode_retrans0: u64,
    /// When the FIN was acknowledged.
    pub done_at: Option<SimTime>,
    /// The window reduction under way (`prr`).
    prr: crate::recovery::Prr,
    /// RACK state (`rack`).
    rack: crate::recovery::Rack,
    /// RACK's reordering timer or the loss probe, when one holds the timer
    /// slot (the RTO deadline then waits).
    xtimer: Option<(SimTime, XTimer)>,
    /// The tail loss probe's episode (`tlp`).
    tlp: crate::recovery::Tlp,
    /// The episode's retransmissions not yet reported needless by D-SACKs
    /// (`dsack`, Linux `undo_retrans`).
    undo_retrans: crate::recovery::UndoRetrans,
    /// F-RTO is watching this timeout (Linux `tp->frto`).
    frto: bool,
    /// Timeouts since snd_una last advanced (Linux `icsk_retransmits`, for
    /// `linux_enter_loss`).
    rto_retransmits: u32,
    /// Duplicate segments D-SACKs reported (Linux `dsack_dups`).
    dsack_dups: u64,
    /// The largest window the peer offered (Linux `max_window`).
    max_window: u64,
    /// F-RTO's step 2b: this ACK sends new data, not retransmissions.
    rexmit_new: bool,
    /// ns-2 Sack1's `pipe_`, scoreboard pointer and `timeout_` (`sack1-ns2`).
    sack1: crate::recovery::sack1::Sack1,
}

impl Sender {
    /// A sender of `bytes` application bytes (`None`: unlimited) with `cfg` and `cc`.
    pub fn new(mut cfg: TcpConfig, cc: Box<dyn CongestionControl>, bytes: Option<u64>) -> Self {
        if cfg.ns2_sack1 && cfg.recovery == Recovery::Sack {
            // ns-2's Sack1 stands for SACK recovery on this host.
            cfg.recovery = Recovery::Sack1Ns2;
        }
        let mss = cfg.mss;
        let cfg_dupthresh = cfg.dupthresh;
        // The scoreboard holds at most a send buffer's (or a short transfer's,
        // or ns-2's window_) segments; it starts small and doubles as the
        // window grows (a few times per connection, never per packet), so
        // that memory follows the packets in flight, not the buffer sizes.
        let mut segs = bytes.map_or(cfg.sndbuf, |b| b.min(cfg.sndbuf)) / mss as u64;
        if cfg.window > 0 {
            segs = segs.min(cfg.window as u64);
        }
        let cap = (segs + 16).min(64) as usize;
        let rtt = RttEstimator::new(
            cfg.initial_rto,
            cfg.min_rto,
            cfg.max_rto,
            cfg.clock_granularity,
        )
        .with_var_floor(cfg.rto_var_floor)
        .with_slop(cfg.rto_slop)
        .with_estimator(cfg.rto_estimator)
        .with_sampling(cfg.rtt_sampling);
        Sender {
            tp: {
                let mut tp = CcState::new(cfg.initial_window, mss);
                tp.max_ssthresh = cfg.max_ssthresh;
                tp.ss_ack_limit = cfg.ss_ack_limit;
                tp.ca_ack_limit = cfg.ca_ack_limit;
                if cfg.window > 0 {
                    // ns-2 reset(): ssthresh_ = window_.
                    tp.ssthresh = cfg.window;
                }
                tp.ns2_agent = cfg.handshake.one_way();
                if cfg.max_cwnd > 0 {
                    // ns-2 opencwnd(): cwnd never above maxcwnd_.
                    tp.cwnd_clamp = cfg.max_cwnd;
                }
                if cfg.ns2_lss && cfg.max_ssthresh > 0 {
                    // ns-2 2.28 tcp.cc reset(): ssthresh_ = min(window_,
                    // max_ssthresh_); opencwnd()'s slow start is unlimited (its
                    // limit is in congestion avoidance, see on_ack).
                    tp.ssthresh = tp.ssthresh.min(cfg.max_ssthresh);
                    tp.max_ssthresh = 0;
                }
                tp
            },
            // A controller may impose its recovery (Tahoe's); a host asking for
            // ns-2's Tahoe keeps that variant of it.
            recovery_kind: match (cc.recovery(), cfg.recovery) {
                (Some(Recovery::Tahoe), Recovery::TahoeNs2) => Recovery::TahoeNs2,
                (Some(Recovery::Reno), r) if !cfg.cc_recovery => r,
                (Some(r), _) => r,
                (None, r) => r,
            },
            cfg,
            cc,
            state: SenderState::Closed,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            data_end: bytes.map_or(u64::MAX, |b| 1 + b),
            unit_left: 0,
            unit_sent: 0,
            sb: Scoreboard::new(mss, cap),
            rtt,
            recover: 0,
            dupacks: 0,
            partial_acks: 0,
            recovery_base: 0,
            ss2: Ss2Watch::Idle,
            rwnd: 65535,
            snd_limit: 0,
            snd_wscale: 0,
            mss,
            ts_ok: false,
            sack_ok: false,
            ts_recent: 0,
            peer_fin: None,
            rto_deadline: None,
            pace_next: SimTime::ZERO,
            pace_deadline: None,
            gso_left: 0,
            gso_retx_next: None,
            gso_credit: SimTime::ZERO,
            syn_sent_at: SimTime::ZERO,
            syn_retransmitted: false,
            rtt_updates: 0,
            fb_newdata: 0,
            cached: None,
            delivered_time: SimTime::ZERO,
            first_tx_time: SimTime::ZERO,
            undo_marker: false,
            sack_cache: [(0, 0); MAX_SACK_BLOCKS],
            rule3_from: 0,
            prior_ssthresh: 0,
            retrans_stamp: None,
            badrxt_until: None,
            last_rtt: None,
            ecn_ok: false,
            cwr_pending: false,
            high_seq: 0,
            first_decrease: true,
            ns2_action: Ns2Action::None,
            ns2_cwnd: 0.0,
            stats: SenderStats::default(),
            episodes: Vec::new(),
            episode_retrans0: 0,
            prr: crate::recovery::Prr::default(),
            rack: crate::recovery::Rack::new(cfg_dupthresh),
            xtimer: None,
            tlp: crate::recovery::Tlp::default(),
            undo_retrans: crate::recovery::UndoRetrans::default(),
            frto: false,
            rto_retransmits: 0,
            dsack_dups: 0,
            max_window: 0,
            rexmit_new: false,
            sack1: crate::recovery::sack1::Sack1::default(),
            done_at: None,
        }
    }

    /// Connection state.
    pub fn state(&self) -> SenderState {
        self.state
    }
    /// Congestion-avoidance state.
    pub fn ca_state(&self) -> CaState {
        self.tp.ca_state
    }
    /// The controller's name.
    pub fn cc_name(&self) -> &'static str {
        self.cc.name()
    }
    /// Loss recovery in use (after negotiation).
    pub fn recovery(&self) -> Recovery {
        self.recovery_kind
    }
    /// Negotiated payload bytes per segment.
    pub fn mss(&self) -> u32 {
        self.mss
    }
    /// IP size of a full data segment as this sender sends it (headers and
    /// the options it uses, or ns-2's sizes).
    pub fn full_segment_bytes(&self) -> u32 {
        TcpHeader {
            flags: ACK,
            payload: self.mss,
            has_ts: self.ts_ok,
            ns2_sizes: self.one_way(),
            ..Default::default()
        }
        .wire_size()
    }
    /// Whether SACK was negotiated.
    pub fn sack_ok(&self) -> bool {
        self.sack_ok
    }
    /// Whether timestamps were negotiated.
    pub fn ts_ok(&self) -> bool {
        self.ts_ok
    }
    /// Whether ECN was negotiated.
    pub fn ecn_ok(&self) -> bool {
        self.ecn_ok
    }
    /// Receive window of the peer, bytes.
    pub fn rwnd(&self) -> u64 {
        self.rwnd
    }
    /// The RTT estimator.
    pub fn rtt(&self) -> &RttEstimator {
        &self.rtt
    }
    /// The scoreboard.
    pub fn scoreboard(&self) -> &Scoreboard {
        &self.sb
    }
    /// Bytes sent and not cumulatively acknowledged.
    pub fn outstanding_bytes(&self) -> u64 {
        self.snd_max - self.snd_una
    }
    /// Bytes in flight as Linux counts them for TCP_INFO: segments in flight
    /// (outstanding - SACKed - lost + retransmitted: `tcp_packets_in_flight`,
    /// RFC 6675 pipe) times the MSS, not outstanding bytes (which during a
    /// recovery include everything SACKed above the holes).
    pub fn in_flight_bytes(&self) -> u64 {
        self.sb.in_flight() as u64 * self.mss as u64
    }
    /// The controller's model of the path (BBR's bandwidth, min RTT and
    /// gains, as Linux's `TCP_CC_INFO` reports them), `None` for others.
    pub fn cc_model(&self) -> Option<crate::cc::CcModel> {
        self.cc.model(&self.tp)
    }
    /// The pacing rate a trace reports, bytes/s (0: none): the controller's
    /// when it paces (BBR); otherwise, on a host pacing as Linux does, the
    /// rate Linux computes for every connection whether it paces or not
    /// (`tcp_update_pacing_rate`: mss x max(cwnd, packets out) / SRTT, times
    /// 2 below half ssthresh, else 1.2; `tcp_pacing_ss_ratio`,
    /// `tcp_pacing_ca_ratio`), which `TCP_INFO` reports: as computed at the
    /// last ACK, as Linux updates it (a timeout changes it only at the next).
    pub fn reported_pacing_rate(&self) -> u64 {
        self.tp.linux_rate()
    }

    /// Linux `tcp_tso_segs` (`tcp_tso_autosize`): the segments of one
    /// TSO/GSO burst, the pacing rate's 2^-10 s of data (`sk_pacing_shift`
    /// 10) plus `sk_gso_max_size >> (min_rtt_us >> 9)` (`tcp_tso_rtt_log` 9,
    /// since v5.18; nothing from about 8 ms of min RTT up), at most
    /// `sk_gso_max_size`, at least the controller's `min_tso_segs`.
    fn tso_segs(&self) -> u32 {
        use crate::cc::GSO_MAX_BYTES;
        // sk_pacing_rate: the enforced rate, or the one Linux keeps for a
        // connection that does not pace (`push` sizes its GSO skbs so).
        let mut bytes = self.tp.linux_rate() >> 10;
        // Before any sample tcp_min_rtt is ~0U: no addition.
        let r = self.tp.min_rtt.as_micros() >> 9;
        if self.tp.min_rtt > SimTime::ZERO && r < 32 {
            bytes += GSO_MAX_BYTES >> r;
        }
        let bytes = bytes.min(GSO_MAX_BYTES);
        ((bytes / self.mss.max(1) as u64) as u32).max(self.cc.min_tso_segs(&self.tp))
    }

    /// `tcp_update_pacing_rate` for a connection that does not pace: the
    /// rate Linux keeps in `sk_pacing_rate` (0 before an RTT sample), which
    /// `TCP_INFO` reports and Cubic's HyStart reads.
    fn note_linux_rate(&mut self) {
        let srtt_us = self.rtt.srtt().map_or(0, |s| s.0 / 1000);
        if srtt_us == 0 {
            self.tp.sk_pacing_rate = 0;
            return;
        }
        let ratio: u64 = if self.tp.cwnd < self.tp.ssthresh / 2 {
            200
        } else {
            120
        };
        let cnt = self.tp.cwnd.max(self.sb.len() as u32) as u64;
        self.tp.sk_pacing_rate = (self.mss as u64 * 1_000_000 / 100 * ratio * cnt / srtt_us).max(1);
    }
    /// Take the RTT sample produced by the last ACK, if any.
    pub fn take_rtt_sample(&mut self) -> Option<SimTime> {
        self.last_rtt.take()
    }
    /// Earliest pending timer.
    pub fn next_deadline(&self) -> Option<SimTime> {
        let slot = self.xtimer.map(|(t, _)| t).or(self.rto_deadline);
        match (slot, self.pace_deadline) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
    /// When the retransmission timer fires, if it runs.
    pub fn rto_deadline(&self) -> Option<SimTime> {
        self.rto_deadline
    }
    /// Offset of ns-2's tick clock (`boot_time_`, drawn per agent); no effect
    /// on the RFC 6298 estimator.
    pub fn set_tick_phase(&mut self, phase: SimTime) {
        self.rtt.set_tick_phase(phase);
    }
    fn one_way(&self) -> bool {
        self.cfg.handshake.one_way()
    }
    /// Segments the windows allow outstanding: cwnd, and ns-2's `window_`
    /// (tcp.cc `window()` = min(cwnd_, wnd_)).
    fn send_window(&self) -> u32 {
        match self.cfg.window {
            0 => self.tp.cwnd,
            w => self.tp.cwnd.min(w),
        }
    }

    /// Duplicate ACKs (and, with SACK, segments SACKed above a hole) that
    /// start a recovery: `dupthresh`, or with `dupthresh_frac` and SACK
    /// recovery ns-2 2.28's numdupacks(cwnd_) = max(numdupacks_,
    /// int(cwnd_)/numdupacksFrac_) (tcp.cc `numdupacks`, called by
    /// tcp-sack1.cc `recv` only; Agent/TCP, Reno and Newreno use numdupacks_).
    fn dupthresh(&self) -> u32 {
        match self.cfg.dupthresh_frac {
            f if f > 0 && (self.uses_sack() || self.sack1_on()) => {
                self.cfg.dupthresh.max(self.tp.cwnd / f)
            }
            _ => self.cfg.dupthresh,
        }
    }

    /// The recovery that runs: SACK recovery falls back to NewReno when
    /// SACK (or the timestamps it needs) was not negotiated.
    #[inline]
    fn effective_recovery(&self) -> Recovery {
        match self.recovery_kind {
            Recovery::Sack | Recovery::Sack1Ns2
                if !self.sack_ok || self.cfg.sack_needs_timestamps && !self.ts_ok =>
            {
                Recovery::NewReno
            }
            r => r,
        }
    }
    fn uses_sack(&self) -> bool {
        self.effective_recovery() == Recovery::Sack
    }
    /// ns-2's Sack1 recovery runs (`sack1-ns2` with SACK on).
    fn sack1_on(&self) -> bool {
        self.effective_recovery() == Recovery::Sack1Ns2
    }
    /// FreeBSD 9.2's SACK recovery runs (`freebsd_sack`, on SACK recovery).
    fn freebsd_sack_on(&self) -> bool {
        self.cfg.freebsd_sack && self.uses_sack()
    }
    /// RACK loss detection runs (`rack`, on SACK recovery).
    fn rack_on(&self) -> bool {
        self.cfg.rack && self.uses_sack() && !self.one_way()
    }
    /// Tail loss probes are sent (`tlp`, SACK connections only, as Linux's
    /// `tcp_schedule_loss_probe`).
    fn tlp_on(&self) -> bool {
        self.cfg.tlp && self.uses_sack() && !self.one_way()
    }

    // ---------------------------------------------------------------- handshake

    /// Open the connection: send the SYN (an ns-2 agent with `handshake`
    /// "none" sends data at once).
    pub fn start(&mut self, now: SimTime, out: &mut Vec<TcpHeader>) {
        debug_assert_eq!(self.state, SenderState::Closed);
        self.syn_sent_at = now;
        self.snd_nxt = 1;
        self.snd_max = 1;
        match self.cfg.handshake {
            Handshake::None => {
                self.tp.now = now;
                self.establish_one_way();
                self.transmit(now, out);
            }
            Handshake::Ns2Syn => {
                self.state = SenderState::SynSent;
                // ns-2 output(): packet 0 is timed like any first transmission.
                self.rtt.on_send_new(1, now);
                self.send_syn(now, out);
            }
            Handshake::Tcp => {
                self.state = SenderState::SynSent;
                self.send_syn(now, out);
            }
        }
    }

    /// An ns-2 one-way agent is established without negotiation: SACK and
    /// timestamps as configured, `mss` bytes of payload (ns-2 `packetSize_`;
    /// timestamps add to the header, not take from the payload), no window
    /// from the peer (ns-2 ACKs carry none; `window` limits instead), no ECN.
    fn establish_one_way(&mut self) {
        self.state = SenderState::Established;
        self.ts_ok = self.cfg.timestamps;
        self.sack_ok = self.cfg.sack;
        self.ecn_ok = false;
        self.snd_wscale = 0;
        self.mss = self.cfg.mss;
        self.set_snd_limit();
        self.sb.set_mss(self.mss);
        self.tp.mss = self.mss;
        self.rwnd = u64::MAX;
        self.snd_una = 1;
        // ns-2 reset(): recover_ = 0 and a fast retransmit needs highest_ack_ >
        // recover_ (tcp.cc dupack_action, bugfix_): duplicate ACKs of packet 0
        // start none. Packet 0 is the syn_ packet, or with syn_ false the first
        // data packet. The same for Sack1's dupack_action (2.28 has no
        // bugfix_ss_ exception for packet 1).
        if matches!(self.recovery_kind, Recovery::TahoeNs2 | Recovery::Sack1Ns2) {
            self.recover = match self.cfg.handshake {
                Handshake::None => 1 + self.mss as u64,
                _ => 1,
            };
        }
        self.load_host_cache();
        self.cc.init(&mut self.tp);
        self.rto_deadline = None;
    }

    /// FreeBSD `cc_conn_init`: ssthresh from the host cache's entry for the
    /// peer, at least two segments (see [`crate::hostcache`]).
    fn load_host_cache(&mut self) {
        if let Some(s) = self.cached.and_then(|e| e.initial_ssthresh(self.mss)) {
            self.tp.ssthresh = s;
        }
    }

    /// Linux 2.2 `tcp_ack_packets_out`: the oldest outstanding segment's
    /// send time plus the RTO, at least one clock tick from now.
    fn head_rto_deadline(&self, now: SimTime) -> SimTime {
        let tick = self.cfg.clock_granularity.max(SimTime(1));
        let from_head = if self.sb.is_empty() {
            now + self.rtt.rto()
        } else {
            self.sb.get(0).sent + self.rtt.rto()
        };
        // (With `timer_wheel` as well, the timer goes on the wheel.)
        self.timer_after(now, from_head.max(now + tick) - now)
    }

    /// Before [`Sender::start`]: the host cache's entry for the peer, which
    /// the connection's ssthresh starts from once established (ignored
    /// unless the host keeps a cache, `host_cache`).
    pub fn use_host_cache(&mut self, entry: crate::hostcache::HostCacheEntry) {
        if self.cfg.host_cache {
            self.cached = Some(entry);
        }
    }

    /// What the connection leaves in its host's cache when it closes
    /// (FreeBSD `tcp_discardcb`): `None` when the host keeps no cache or
    /// nothing is saved (fewer than 4 RTT samples), else the ssthresh in
    /// bytes on the wire, 0 when no loss set one.
    pub fn host_cache_metrics(&self) -> Option<u64> {
        if !self.cfg.host_cache {
            return None;
        }
        let sndbuf = if self.cfg.sndbuf == 0 {
            u64::MAX
        } else {
            self.cfg.sndbuf
        };
        crate::hostcache::saved_ssthresh(self.tp.ssthresh, self.mss, sndbuf, self.rtt_updates)
    }

    /// The application stops writing: the data already handed to TCP (everything
    /// sent so far) is the whole transfer, and the FIN follows it. A bulk flow with
    /// a stop time ends this way; a finite transfer that has not finished keeps its
    /// size.
    pub fn stop(&mut self, now: SimTime, out: &mut Vec<TcpHeader>) {
        if self.data_end != u64::MAX {
            return;
        }
        // Sequence 0 is the SYN: data (if any was sent) is 1..snd_max.
        self.data_end = self.snd_max.max(1);
        if self.state == SenderState::Established {
            if self.one_way() && self.snd_una >= self.data_end {
                // No FIN in ns-2: everything sent is acknowledged already.
                self.state = SenderState::Done;
                self.done_at = Some(now);
                self.rto_deadline = None;
                return;
            }
            self.transmit(now, out);
        } else if self.state == SenderState::Closed {
            self.state = SenderState::Done;
            self.done_at = Some(now);
        }
    }

    /// The application bytes of the transfer, once known (a finite transfer, or a
    /// flow whose application stopped); `None` while the application still writes.
    pub fn app_bytes(&self) -> Option<u64> {
        (self.data_end != u64::MAX).then(|| self.data_end - 1)
    }

    fn send_syn(&mut self, now: SimTime, out: &mut Vec<TcpHeader>) {
        if self.one_way() {
            // ns-2 output() with syn_: packet 0 is tcpip_base_hdr_size_ bytes, no data.
            out.push(TcpHeader {
                flags: SYN,
                seq: 0,
                ns2_sizes: true,
                ..Default::default()
            });
            self.restart_rto(now);
            return;
        }
        let c = &self.cfg;
        // RFC 3168 6.1.1: an ECN-setup SYN has ECE and CWR; a retransmitted SYN
        // is sent without them (Linux tcp_ecn_clear_syn, tcp_ecn_fallback = 1).
        let ecn_setup = c.ecn && !self.syn_retransmitted;
        out.push(TcpHeader {
            flags: SYN | if ecn_setup { ECE | CWR } else { 0 },
            seq: 0,
            wnd: c.rcvbuf.min(65535) as u32,
            mss: c.mss as u16,
            wscale: c.window_scaling.then_some(wscale_for(c.rcvbuf)),
            sack_perm: c.sack,
            has_ts: c.timestamps,
            tsval: now.0,
            ..Default::default()
        });
        self.restart_rto(now);
    }

    /// ns-2 (tcp.cc `recv`, `delay_growth_`): the ACK of packet 0 gives the
    /// timed sample (none if it was retransmitted) and cwnd = the initial window.
    fn on_ns2_syn_ack(&mut self, now: SimTime, out: &mut Vec<TcpHeader>) {
        self.tp.now = now;
        if let Some(r) = self.rtt.on_ack(1, None, None, now) {
            self.note_rtt(r);
        }
        self.establish_one_way();
        self.tp.cwnd = self.cfg.initial_window.min(self.tp.cwnd_clamp);
        self.transmit(now, out);
    }

    fn on_syn_ack(&mut self, now: SimTime, h: &TcpHeader, out: &mut Vec<TcpHeader>) {
        if h.ack != 1 {
            return;
        }
        self.state = SenderState::Established;
        self.ts_ok = self.cfg.timestamps && h.has_ts;
        self.sack_ok = self.cfg.sack && h.sack_perm;
        // RFC 3168 6.1.1: an ECN-setup SYN-ACK has ECE and not CWR (Linux tcp_ecn_rcv_synack).
        self.ecn_ok = self.cfg.ecn && h.has(ECE) && !h.has(CWR);
        self.snd_wscale = if self.cfg.window_scaling {
            h.wscale.unwrap_or(0)
        } else {
            0
        };
        if self.cfg.window_scaling && h.wscale.is_none() {
            self.snd_wscale = 0;
        }
        let peer_mss = if h.mss == 0 { 536 } else { h.mss as u32 };
        self.mss = self.cfg.mss.min(peer_mss) - if self.ts_ok { 12 } else { 0 };
        self.set_snd_limit();
        self.sb.set_mss(self.mss);
        self.tp.mss = self.mss;
        self.rwnd = h.wnd as u64; // unscaled on the SYN-ACK
        self.max_window = self.rwnd;
        self.ts_recent = h.tsval;
        self.snd_una = 1;
        if self.syn_retransmitted {
            // RFC 6298 (5.7) and RFC 5681 3.1: a lost SYN means RTO 3 s and IW of one segment.
            self.rtt.reset_after_syn_timeout();
            self.tp.cwnd = 1;
        } else {
            self.sample_rtt(now - self.syn_sent_at);
        }
        self.tp.now = now;
        self.load_host_cache();
        self.cc.init(&mut self.tp);
        self.rto_deadline = None;
        if self.cfg.linux_pacing {
            // tcp_ack of the SYN-ACK ends with tcp_update_pacing_rate.
            self.note_linux_rate();
        }
        if self.cfg.ack_before_data {
            out.push(self.ack_header(now, 1));
            self.transmit(now, out);
            return;
        }
        let before = out.len();
        self.transmit(now, out);
        if out.len() == before {
            out.push(self.ack_header(now, 1));
        }
    }

    // ---------------------------------------------------------------- output

    fn ack_header(&self, now: SimTime, seq: u64) -> TcpHeader {
        TcpHeader {
            flags: ACK,
            seq,
            ack: self.peer_fin.map_or(1, |f| f + 1),
            wnd: 65535,
            has_ts: self.ts_ok,
            tsval: now.0,
            tsecr: self.ts_recent,
            ns2_sizes: self.one_way(),
            ..Default::default()
        }
    }

    /// Send segment `seg`; `new` when it is sent for the first time.
    fn emit(&mut self, now: SimTime, seg: Seg, new: bool, out: &mut Vec<TcpHeader>) {
        // Built where it goes: the header is not copied into `out` after.
        out.push(self.ack_header(now, seg.start));
        let h = out.last_mut().expect("just pushed");
        h.payload = seg.payload;
        h.retrans = !new;
        h.tx_cwnd = self.tp.cwnd;
        h.tx_in_ss = self.tp.in_slow_start();
        if seg.fin {
            h.flags |= FIN;
        }
        if seg.flags & PUSH != 0 {
            h.flags |= PSH;
        }
        // Linux tcp_ecn_send: new data goes out ECT(0), the first after a
        // reduction with CWR; retransmissions and FIN-only segments Not-ECT.
        if self.ecn_ok && new && seg.payload > 0 {
            h.ip_ecn = Ecn::Ect0;
            if self.cwr_pending {
                self.cwr_pending = false;
                h.flags |= CWR;
            }
        }
        self.stats.segs_sent += 1;
        if seg.payload > 0 {
            self.cc.on_transmit(&self.tp, now, seg.start, seg.payload);
        }
        if self.prr.active() {
            self.prr.on_sent(1);
        }
        self.tp.lsndtime = now;
        if self.tp.pacing_rate > 0 {
            let rate = self.tp.pacing_rate as u128;
            if self.cfg.linux_pacing {
                // Linux tcp_update_skb_after_send (internal pacing): the
                // burst's data length at the rate, from its slot or now if
                // later, less up to half of it for the time it went late;
                // none for the first 10 data segments. A burst is one
                // segment, or with `gso_bursts` one TSO/GSO skb.
                if self.stats.segs_sent >= 10 {
                    let len = SimTime((h.payload.max(1) as u128 * 1_000_000_000 / rate) as u64);
                    if self.gso_left == 0 {
                        let start = now.max(self.pace_next);
                        self.gso_credit = start - self.pace_next;
                        self.pace_next = start;
                        self.gso_left = match (self.cfg.gso_bursts, new) {
                            (false, _) => 1,
                            // tcp_write_xmit: at most tcp_cwnd_test's half
                            // window of new data per skb.
                            (true, true) => self.tso_segs().min((self.tp.cwnd / 2).max(1)),
                            // tcp_xmit_retransmit_queue: at most max_segs of
                            // one skb (`gso_retx_next`).
                            (true, false) => self.tso_segs(),
                        };
                        if new {
                            // The skb's first segment (the last one pushed).
                            self.sb.set_skb_head(self.sb.len() - 1);
                        }
                    }
                    self.gso_left -= 1;
                    self.gso_retx_next =
                        (!new && self.gso_left > 0).then_some(seg.start + seg.len as u64);
                    // min(total / 2, credit) over the burst, segment by segment.
                    let d = SimTime(len.0 / 2).min(self.gso_credit);
                    self.gso_credit = self.gso_credit - d;
                    self.pace_next = self.pace_next + len - d;
                }
            } else {
                let bytes = h.wire_size() as u128;
                self.pace_next =
                    now.max(self.pace_next) + SimTime((bytes * 1_000_000_000 / rate) as u64);
            }
            self.tp.wstamp = self.pace_next;
        }
        if self.rto_deadline.is_none() {
            // RFC 6298 (5.1): start the timer if it is not running.
            self.restart_rto(now);
        }
    }

    fn retransmit(&mut self, now: SimTime, i: usize, out: &mut Vec<TcpHeader>) {
        if self.unit_sent > 0 {
            self.unit_close(out);
        }
        if self.undo_marker && self.retrans_stamp.is_none() {
            self.retrans_stamp = Some(now);
        }
        if self.undo_marker {
            self.undo_retrans.retransmitted();
        }
        let snap = self.tx_snap(now);
        self.sb.retransmitted(i, now, snap);
        let seg = *self.sb.get(i);
        self.stats.segs_retrans += 1;
        self.emit(now, seg, false, out);
        if i == 0 && self.rack_on() && !matches!(self.xtimer, Some((_, XTimer::Reo))) {
            // Linux tcp_xmit_retransmit_queue: resending the oldest segment
            // restarts the RTO (unless RACK's timer holds the slot).
            self.xtimer = None;
            self.restart_rto(now);
        }
    }

    /// Next new segment (start, seq length, payload, fin), if the application has any.
    fn next_new_segment(&self) -> Option<(u64, u32, u32, bool)> {
        let s = self.snd_max;
        if s < self.data_end {
            let payload = (self.data_end - s).min(self.mss as u64) as u32;
            Some((s, payload, payload, false))
        } else if s == self.data_end && self.data_end != u64::MAX && !self.one_way() {
            Some((s, 1, 0, true))
        } else {
            None
        }
    }

    /// The next new segment, if the receive window and the send buffer let
    /// it go now (cwnd aside: a loss probe's or F-RTO's new data).
    fn new_segment_fits(&self) -> Option<(u64, u32, u32, bool)> {
        self.next_new_segment()
            .filter(|&(start, len, payload, fin)| {
                let out_after = start + len as u64 - self.snd_una;
                (out_after <= self.rwnd.max(1) || fin && payload == 0)
                    && out_after <= self.snd_limit
            })
    }

    fn send_new(
        &mut self,
        now: SimTime,
        start: u64,
        len: u32,
        payload: u32,
        fin: bool,
        out: &mut Vec<TcpHeader>,
    ) {
        if self.sb.is_empty() {
            self.cc.cwnd_event(&mut self.tp, CwndEvent::TxStart);
        }
        let tx = self.tx_snap(now);
        // `push`: the last write's tcp_push marks the transfer's last
        // segment (tcp_mark_push, kept in the skb for its retransmissions).
        let flags = if self.cfg.push && payload > 0 && start + payload as u64 == self.data_end {
            PUSH
        } else {
            0
        };
        let seg = Seg {
            start,
            len,
            payload,
            fin,
            sent: now,
            flags,
            tx,
        };
        self.sb.push(seg);
        self.rtt.on_send_new(start + len as u64, now);
        self.snd_max = start + len as u64;
        self.snd_nxt = self.snd_max;
        self.stats.bytes_sent += payload as u64;
        self.emit(now, seg, true, out);
    }

    /// `push`, `tso_defer`: no GSO skb is open and a new-data segment is
    /// about to go as the `wnd`-window allows: open one. `tcp_write_xmit`
    /// builds it of min(`tso_segs`, `tcp_cwnd_test`'s quota: the window's room but
    /// at most half of cwnd) segments, within the receive window and the
    /// data there is.
    fn unit_open(&mut self, wnd: u32, start: u64, tso_segs: u32) {
        let mss = self.mss.max(1) as u64;
        let quota = wnd
            .saturating_sub(self.sb.in_flight())
            .min((self.tp.cwnd / 2).max(1));
        let rwnd_room = (self.rwnd.max(1).saturating_sub(start - self.snd_una) / mss) as u32;
        let data = (self.data_end.saturating_sub(start).div_ceil(mss)).min(u32::MAX as u64) as u32;
        self.unit_left = tso_segs.min(quota).min(rwnd_room).min(data).max(1);
        self.unit_sent = 0;
    }

    /// `tso_defer`: Linux's `tcp_tso_should_defer` (tcp_output.c, 6.x) for
    /// the skb that would start at `start`: hold new data for the next ACK
    /// rather than send less than a full skb of `tso_segs`.
    fn tso_should_defer(&self, now: SimTime, wnd: u32, start: u64, tso_segs: u32) -> bool {
        const MS1: SimTime = SimTime(1_000_000);
        if !self.cfg.tso_defer || matches!(self.tp.ca_state, CaState::Recovery | CaState::Loss) {
            return false;
        }
        // Only if the last write was recent (1 ms): tcp_wstamp_ns is the
        // last send, or with pacing the next slot (may be ahead of now).
        let wstamp = if self.tp.pacing_rate > 0 {
            self.tp.lsndtime.max(self.pace_next)
        } else {
            self.tp.lsndtime
        };
        if now > wstamp + MS1 {
            return false;
        }
        let mss = self.mss.max(1) as u64;
        let in_flight = self.sb.in_flight();
        if wnd <= in_flight {
            return false;
        }
        let cong_win = (wnd - in_flight) as u64 * mss;
        let send_win = (self.snd_una + self.rwnd.max(1)).saturating_sub(start);
        let limit = cong_win.min(send_win);
        // A full-sized skb can go.
        if limit >= tso_segs as u64 * mss {
            return false;
        }
        // At least a third (tcp_tso_win_divisor) of the window is free.
        let chunk = self.rwnd.max(1).min(self.tp.cwnd as u64 * mss) / 3;
        if limit >= chunk {
            return false;
        }
        // The ACK of the oldest outstanding segment is due later than
        // min(SRTT / 2, 1 ms): do not wait for it.
        if self.sb.is_empty() {
            return false;
        }
        let srtt = self.rtt.srtt().unwrap_or(SimTime::ZERO);
        let expected_ack = self.sb.get(0).sent + srtt;
        let threshold = SimTime(srtt.0 / 2).min(MS1);
        if expected_ack > now + threshold {
            return false;
        }
        // "If this packet won't get more data, do not wait": the skb with
        // the FIN. A finite transfer's application has written it all and
        // shut down (the real stack's senders do), so the FIN rides on the
        // write queue's last skb, which is the one at `start` once the rest
        // fits in one skb of the send size goal (`tcp_xmit_size_goal`:
        // sk_gso_max_size, at most half the peer's largest window).
        let size_goal = crate::cc::GSO_MAX_BYTES.min((self.rwnd / 2).max(mss));
        !(self.data_end != u64::MAX && self.data_end.saturating_sub(start) <= size_goal)
    }

    /// `push`: a segment of the open GSO skb went out, last in `out`.
    fn unit_sent_one(&mut self, out: &mut [TcpHeader]) {
        self.unit_left = self.unit_left.saturating_sub(1);
        self.unit_sent += 1;
        if self.unit_left == 0 {
            self.unit_close(out);
        }
    }

    /// `push`: the GSO skb ends (whole, or cut short by the loop, before
    /// anything else is sent): with more than one segment, its last (the
    /// last header in `out`) carries PSH (`__tcp_transmit_skb` forces it on
    /// every GSO packet; GSO keeps it on the last segment only).
    fn unit_close(&mut self, out: &mut [TcpHeader]) {
        if self.unit_sent > 1 && self.cfg.push {
            if let Some(h) = out.last_mut() {
                debug_assert!(h.payload > 0 && !h.retrans, "the skb's last segment");
                h.flags |= PSH;
            }
        }
        self.unit_left = 0;
        self.unit_sent = 0;
    }

    /// Whether the open burst of retransmissions takes the next segment the
    /// transmit loop would send: the lost segment right after the last one
    /// resent, of the same skb (Linux resends an skb's lost segments
    /// together, up to `max_segs`, and checks pacing before the next skb).
    fn retx_burst_goes_on(&self, sack: bool) -> bool {
        let Some(next) = self.gso_retx_next else {
            return false;
        };
        sack && !self.rexmit_new
            && self.sb.first_lost(0).is_some_and(|i| {
                let s = self.sb.get(i);
                s.start == next && s.flags & SKB_HEAD == 0
            })
    }

    /// Close the open burst (`gso_left = 0`). For a burst of
    /// retransmissions, the next segment of its skb, if it was cut off (by
    /// cwnd, or by the loop ending), heads an skb of its own from now on
    /// (`tcp_retransmit_skb` fragments the skb at the segments it sends).
    fn end_retx_burst(&mut self) {
        if let Some(next) = self.gso_retx_next.take() {
            if let Some(i) = self
                .sb
                .index_of(next)
                .filter(|&i| self.sb.get(i).start == next)
            {
                self.sb.set_skb_head(i);
            }
        }
        self.gso_left = 0;
    }

    /// Send whatever the windows allow.
    fn transmit(&mut self, now: SimTime, out: &mut Vec<TcpHeader>) {
        if self.state != SenderState::Established {
            return;
        }
        self.pace_deadline = None;
        // A TSO/GSO burst never spans two calls (tcp_write_xmit sends whole skbs).
        self.gso_left = 0;
        self.gso_retx_next = None;
        self.unit_left = 0;
        self.unit_sent = 0;
        let sack = self.uses_sack();
        let sack1_rec = self.sack1_on() && self.tp.ca_state == CaState::Recovery;
        let fb_rec = self.freebsd_sack_on() && self.tp.ca_state == CaState::Recovery;
        let fb_open = self.freebsd_sack_on()
            && matches!(
                self.tp.ca_state,
                CaState::Open | CaState::Disorder | CaState::Cwr
            );
        let mut cwnd_limited = false;
        let mut sent_new = false;
        loop {
            if self.gso_left > 0 && self.gso_retx_next.is_some() && !self.retx_burst_goes_on(sack) {
                // Linux tcp_xmit_retransmit_queue checks pacing before each
                // skb: what is not the next lost segment of the skb just
                // resent waits for its own pacing slot.
                self.end_retx_burst();
            }
            if self.tp.pacing_rate > 0 && self.pace_next > now && self.gso_left == 0 {
                self.pace_deadline = Some(self.pace_next);
                break;
            }
            let wnd = self.send_window();
            let cwnd_bytes = wnd as u64 * self.mss as u64;
            if sack1_rec {
                // ns-2 Sack1 send_much in fast recovery: while pipe_ <
                // int(cwnd_), the next hole, then new data, within wnd_.
                if !self.sack1.may_send(self.tp.cwnd) {
                    cwnd_limited = true;
                    break;
                }
                let wcap = match self.cfg.window {
                    0 => usize::MAX,
                    w => w as usize,
                };
                let wnd_room = |n: usize| n < wcap;
                if let Some(i) = self.sack1.next_retran(&self.sb, self.snd_una) {
                    if !wnd_room(i) {
                        break;
                    }
                    self.tp.lost += self.sb.mark_seg_lost(i) as u64;
                    self.retransmit(now, i, out);
                    self.sack1.mark_retran(self.sb.get(i).end());
                    self.sack1.sent();
                    continue;
                }
                if !wnd_room(self.sb.len()) {
                    break;
                }
            } else if fb_rec {
                // FreeBSD tcp_output in SACK recovery: a hole (below snd_recover)
                // while the retransmissions outstanding are below min(rwnd,
                // cwnd); then new data while the recovery's new data plus those
                // retransmissions are below cwnd (or, none outstanding, while
                // everything outstanding is).
                let mss = self.mss as u64;
                let rexmit = self.sb.retrans as u64;
                let rwnd_segs = (self.rwnd / mss).max(1);
                let hole = self
                    .sb
                    .first_lost(0)
                    .filter(|&i| self.sb.get(i).start < self.recover);
                if let Some(i) = hole {
                    if rexmit < rwnd_segs.min(wnd as u64) {
                        self.retransmit(now, i, out);
                        continue;
                    }
                    cwnd_limited = true;
                    break;
                }
                let room = if rexmit == 0 {
                    self.snd_max - self.snd_una + mss <= cwnd_bytes.min(self.rwnd)
                } else {
                    self.snd_max.saturating_sub(self.fb_newdata) + (rexmit + 1) * mss <= cwnd_bytes
                };
                if !room {
                    cwnd_limited = true;
                    break;
                }
            } else if fb_open {
                // FreeBSD tcp_output outside fast recovery: everything
                // outstanding, SACKed or not, counts against cwnd (off =
                // snd_nxt - snd_una); RFC 3042 lets one more segment go per
                // duplicate ACK, two at most (tcp_input.c, snd_limited).
                let extra = if self.tp.ca_state == CaState::Disorder {
                    self.dupacks.min(2)
                } else {
                    0
                };
                if self.sb.len() as u32 >= wnd + extra {
                    cwnd_limited = true;
                    break;
                }
            } else if sack {
                // RFC 6675 / Linux: pipe below cwnd, lost segments first, then new data.
                if self.sb.in_flight() >= wnd {
                    cwnd_limited = true;
                    break;
                }
                if let Some(i) = self.sb.first_lost(0).filter(|_| !self.rexmit_new) {
                    self.retransmit(now, i, out);
                    continue;
                }
                // NextSeg rule 3: an unSACKed hole below the highest SACK, not yet resent.
                if self.tp.ca_state == CaState::Recovery && !self.rack_on() && self.rule3(now, out)
                {
                    continue;
                }
            } else {
                // Go-back-N after a timeout: resend from snd_nxt up to snd_max.
                let flight = self.snd_nxt - self.snd_una;
                if self.snd_nxt < self.snd_max {
                    let i = self.sb.index_of(self.snd_nxt).expect("snd_nxt outstanding");
                    let len = self.sb.get(i).len as u64;
                    if flight + len > cwnd_bytes.max(self.mss as u64) {
                        cwnd_limited = true;
                        break;
                    }
                    self.snd_nxt += len;
                    self.retransmit(now, i, out);
                    continue;
                }
                if flight + self.mss as u64 > cwnd_bytes && flight > 0 {
                    cwnd_limited = true;
                    break;
                }
            }
            if self.cfg.rto_holds_new_data && self.tp.ca_state == CaState::Loss {
                // Linux 2.2 tcp_snd_test: nothing new while retransmits != 0.
                break;
            }
            // New data: receiver window and send buffer.
            let Some((start, len, payload, fin)) = self.next_new_segment() else {
                // Linux tcp_rate_check_app_limited: room in cwnd, nothing lost to
                // resend, no data: samples from now on are application-limited.
                let in_flight = self.sb.in_flight();
                if in_flight < self.tp.cwnd && self.sb.first_lost(0).is_none() {
                    self.tp.app_limited = (self.tp.delivered + in_flight as u64).max(1);
                }
                break;
            };
            let out_after = start + len as u64 - self.snd_una;
            if out_after > self.rwnd.max(1) && !(fin && payload == 0) {
                break;
            }
            if out_after > self.snd_limit {
                break;
            }
            if (self.cfg.push || self.cfg.tso_defer) && payload > 0 {
                if self.unit_left == 0 {
                    let tso_segs = self.tso_segs();
                    if self.tso_should_defer(now, wnd, start, tso_segs) {
                        cwnd_limited = true;
                        break;
                    }
                    self.unit_open(wnd, start, tso_segs);
                }
                self.send_new(now, start, len, payload, fin, out);
                self.unit_sent_one(out);
            } else {
                self.send_new(now, start, len, payload, fin, out);
            }
            sent_new = true;
            if sack1_rec {
                self.sack1.sent();
            }
        }
        if sent_new && self.tlp_on() {
            // Linux tcp_event_new_data_sent (a pending probe gives the slot
            // back to the RTO), then tcp_write_xmit's tcp_schedule_loss_probe.
            if matches!(self.xtimer, Some((_, XTimer::Probe))) {
                self.rearm_rto(now);
            }
            self.schedule_loss_probe(now, false);
        }
        self.end_retx_burst();
        if self.unit_sent > 0 {
            self.unit_close(out);
        }
        // Held back by ns-2's window_ rather than cwnd is not cwnd-limited.
        let cwnd_limited =
            cwnd_limited && (self.cfg.window == 0 || self.tp.cwnd <= self.cfg.window);
        self.tp.is_cwnd_limited = !self.cfg.cwnd_limited_growth
            || cwnd_limited
            || self.tp.in_slow_start() && self.sb.in_flight() * 2 > self.tp.cwnd;
    }

    /// RFC 6675 NextSeg (3): retransmit the first unSACKed, unretransmitted segment
    /// below the highest SACKed one even if not yet deemed lost.
    fn rule3(&mut self, now: SimTime, out: &mut Vec<TcpHeader>) -> bool {
        let (i, next) = crate::recovery::sack::next_seg_rule3(
            &self.sb,
            self.rule3_from,
            self.snd_una,
            self.snd_max,
        );
        self.rule3_from = next;
        match i {
            Some(i) => {
                self.retransmit(now, i, out);
                true
            }
            None => false,
        }
    }

    // ---------------------------------------------------------------- input

    /// Process a segment from the receiver.
    pub fn on_segment(&mut self, now: SimTime, h: &TcpHeader, out: &mut Vec<TcpHeader>) {
        self.tp.now = now;
        // A TSO/GSO burst is one skb: it never spans two events.
        self.gso_left = 0;
        self.gso_retx_next = None;
        match self.state {
            SenderState::Closed => {}
            SenderState::SynSent => {
                if self.one_way() {
                    if h.has(ACK) && h.ack == 1 {
                        self.on_ns2_syn_ack(now, out);
                    }
                } else if h.has(SYN) && h.has(ACK) {
                    self.on_syn_ack(now, h, out);
                }
            }
            SenderState::Established | SenderState::Done => {
                if h.has(SYN) {
                    // Our ACK of the SYN-ACK was lost: ACK again.
                    out.push(self.ack_header(now, self.snd_nxt));
                    return;
                }
                if h.has(FIN) && self.peer_fin.is_none() {
                    self.peer_fin = Some(h.seq);
                }
                if self.state == SenderState::Established {
                    self.on_ack(now, h, out);
                }
                if self.cfg.linux_pacing {
                    // tcp_cong_control ends with tcp_update_pacing_rate.
                    self.note_linux_rate();
                }
                if h.has(FIN) {
                    out.push(self.ack_header(now, self.snd_max));
                }
            }
        }
    }

    fn sample_rtt(&mut self, r: SimTime) {
        self.rtt.sample(r);
        // The handshake's sample is also ca_rtt_us (tcp_synack_rtt_meas).
        self.note_min_rtt(r);
        self.note_rtt(r);
    }

    /// Linux `tcp_update_rtt_min` with an ACK's `ca_rtt_us` (the newest
    /// segment it delivers that was never resent), when the ACK gave the
    /// estimator a sample; other estimators keep every sample's minimum.
    fn note_min_rtt(&mut self, ca_rtt: SimTime) {
        self.rtt.linux_min_rtt(self.tp.now, ca_rtt);
        self.tp.min_rtt = self.rtt.min_rtt().unwrap_or(SimTime::ZERO);
    }

    /// A sample was taken: report it and copy the estimates into `tp`.
    /// Linux `tcp_rtt_tsopt_us`: the timestamp echo's age on the
    /// millisecond timestamp clock, at least 1 ms (a fallback when Karn's
    /// rule and SACK give no sample).
    fn linux_ts_rtt(&self, h: &TcpHeader, now: SimTime) -> Option<SimTime> {
        (self.ts_ok && h.has_ts && h.tsecr > 0).then(|| {
            let ms = (now.0 / 1_000_000).saturating_sub(h.tsecr / 1_000_000);
            SimTime::from_millis(ms.max(1))
        })
    }

    fn note_rtt(&mut self, r: SimTime) {
        self.rtt_updates += 1;
        self.last_rtt = Some(r);
        self.tp.srtt = self.rtt.srtt().unwrap_or(SimTime::ZERO);
        self.tp.min_rtt = self.rtt.min_rtt().unwrap_or(SimTime::ZERO);
    }

    /// RFC 6675 IsLost over the scoreboard with DupThresh `thresh`; counts the
    /// segments newly marked.
    fn mark_lost(&mut self, thresh: u32) -> u32 {
        let n = self.sb.mark_lost(thresh);
        self.tp.lost += n as u64;
        n
    }

    /// Copy the sequence pointers the controllers may read into `tp`.
    #[inline]
    fn sync_tp(&mut self) {
        self.tp.snd_una = self.snd_una;
        self.tp.snd_nxt = self.snd_max;
    }

    fn set_ca_state(&mut self, s: CaState) {
        if !matches!(s, CaState::Recovery | CaState::Cwr) {
            // tcp_end_cwnd_reduction, a timeout or an undo: PRR is over.
            self.prr = crate::recovery::Prr::default();
        }
        if s == CaState::Open {
            // With D-SACK the episode stays undoable after it ends (Linux
            // keeps undo_marker; a late D-SACK may still undo it).
            self.undo_marker &= self.cfg.dsack;
            self.retrans_stamp = None;
            if let Some(e) = self.episodes.last_mut().filter(|e| e.end.is_none()) {
                e.end = Some(self.tp.now);
                e.retrans = self.stats.segs_retrans - self.episode_retrans0;
                e.cwnd_after = self.tp.cwnd;
            }
        }
        // tcp_set_ca_state calls set_state even for the same state; only a
        // timeout repeats a state there (tcp_enter_loss).
        if self.tp.ca_state != s || s == CaState::Loss && self.cfg.linux_enter_loss {
            self.cc.set_state(&mut self.tp, s);
            self.tp.ca_state = s;
        }
    }

    fn on_ack(&mut self, now: SimTime, h: &TcpHeader, out: &mut Vec<TcpHeader>) {
        if !h.has(ACK) || h.ack > self.snd_max {
            return;
        }
        // RFC 7323: remember the peer's TSval to echo.
        if h.has_ts && h.tsval >= self.ts_recent {
            self.ts_recent = h.tsval;
        }
        let prior_rwnd = self.rwnd;
        // FreeBSD tests snd_nxt == snd_max before the ACK is applied
        // (cc_ack_received runs before snd_una moves).
        let resending_before = self.snd_nxt < self.snd_max
            || self.tp.ca_state == CaState::Loss && self.sb.lost_pending > 0;
        if !self.one_way() {
            self.rwnd = (h.wnd as u64) << self.snd_wscale;
            self.max_window = self.max_window.max(self.rwnd);
        }
        // Linux tcp_ecn_rcv_ecn_echo: ECE counts once ECN is negotiated. The
        // reduction is from the flight this ACK found (the window the marks
        // came from), as a loss's is from the flight when it is detected.
        if h.ack >= self.snd_una {
            self.cc.ack_event(&mut self.tp, h.ack - self.snd_una);
        }
        let ece = self.ecn_ok && h.has(ECE);
        let ece_flight = if ece { self.flight_size() } else { 0 };
        let prior_in_flight = self.sb.in_flight();
        let prior_snd_una = self.snd_una;
        self.tp.in_flight = prior_in_flight;
        let sack = self.uses_sack();
        let rack = self.rack_on();
        // ns-2 Sack1: every ACK in fast recovery takes one off pipe_; blocks
        // are read in recovery and from duplicate ACKs outside it, unless a
        // timeout came since the last new ACK (`timeout_`).
        let sack1 = self.sack1_on();
        let sack1_rec = sack1 && self.tp.ca_state == CaState::Recovery;
        if sack1_rec {
            self.sack1.on_ack();
        }
        let sack1_blocks = sack1 && (sack1_rec || h.ack == self.snd_una && !self.sack1.timeout);
        // Delivery-rate sampling over every segment this ACK delivers (tcp_rate.c).
        let mut rate = RateAcc::default();
        if rack {
            rate.rack = crate::recovery::rack::RackAcc {
                on: true,
                now,
                min_rtt: self.rtt.min_rtt(),
                tsecr_ms: (self.ts_ok && h.has_ts && h.tsecr > 0).then_some(h.tsecr / 1_000_000),
                ..Default::default()
            };
        }
        // A DSACK of exactly the loss probe (Linux tcp_dsack_seen's
        // FLAG_DSACK_TLP): the original arrived, the probe was not needed.
        let dsack_block = is_dsack(h);
        let (l0, r0) = h.sack_block(0);
        let dsack_tlp = self.tlp.dsack_of_probe(dsack_block, l0, r0, self.mss);

        // SACK blocks (Linux tcp_sacktag_write_queue, before the cumulative part);
        // a recovery that ignores SACK (Tahoe, Reno, NewReno) ignores them entirely.
        let mut newly_sacked = 0;
        // tcp_check_dsack: a block tcp_dsack_seen finds dubious is no D-SACK.
        let dsack_delivered = if self.cfg.dsack && sack && dsack_block {
            self.dsack_seen(h)
        } else {
            0
        };
        let dsack = dsack_delivered > 0;
        if dsack {
            self.count_dsack(h);
        }
        if sack || sack1_blocks {
            let n = (h.nsack as usize).min(MAX_SACK_BLOCKS);
            let mut blocks = [(0, 0); MAX_SACK_BLOCKS];
            for (i, b) in blocks[..n].iter_mut().enumerate() {
                *b = h.sack_block(i);
            }
            // Linux tcp_sacktag_write_queue (and FreeBSD tcp_sack_doack)
            // walk the blocks in sequence order, not in the receiver's
            // (most recent first): RACK's RTT is the last walked segment's
            // (tcp_rack_advance), so the highest block's, not the oldest.
            blocks[..n].sort_unstable_by_key(|&(l, _)| l);
            let blocks = &blocks[..n];
            for &(l, r) in blocks {
                if r <= self.snd_una.max(h.ack) {
                    continue;
                }
                // Linux's recv_sack_cache: the part of a block the previous ACK
                // already reported is SACKed already; walk only what is new.
                let mut start = l.max(h.ack);
                while let Some(&(_, cr)) = self
                    .sack_cache
                    .iter()
                    .find(|&&(cl, cr)| cl <= start && start < cr)
                {
                    start = cr;
                }
                if start < r {
                    newly_sacked += self.sb.sack(start, r, &mut rate);
                }
            }
            self.sack_cache = [(0, 0); MAX_SACK_BLOCKS];
            self.sack_cache[..blocks.len()].copy_from_slice(blocks);
        }

        // In recovery, newly SACKed data may reveal more losses (RFC 6675 IsLost),
        // marked before the controller sees this ACK (as Linux's tcp_ack does).
        let mut newly_lost = 0;
        let fb = self.freebsd_sack_on();
        if fb && self.tp.ca_state == CaState::Recovery {
            // FreeBSD's scoreboard: every hole below the highest SACK.
            newly_lost += self.mark_lost(1);
        } else if sack && !rack && matches!(self.tp.ca_state, CaState::Recovery | CaState::Loss) {
            newly_lost += self.mark_lost(self.cfg.dupthresh);
        }
        let mut reo_armed = false;
        let rate_based = self.cc.has_cong_control();
        // tcp_ack's tcp_count_delivered(sack_delivered): D-SACKed segments too.
        let mut delivered = newly_sacked + dsack_delivered;
        // The rate sample's RTT when the ACK advances on a linux host (Linux
        // `ca_rtt_us`); else that of the newest segment delivered never
        // retransmitted.
        let mut ca_rtt = None;
        if h.ack > self.snd_una {
            let acked = self.sb.ack_to(h.ack, &mut rate);
            self.snd_una = h.ack;
            self.rto_retransmits = 0; // tcp_ack: FLAG_SND_UNA_ADVANCED
            if sack1 && !sack1_rec {
                // Sack1 recv: a new ACK outside recovery clears timeout_
                // and the scoreboard (its blocks were not read).
                self.sack1.timeout = false;
                self.sack1_clear();
            }
            if self.snd_nxt < self.snd_una {
                self.snd_nxt = self.snd_una;
            }
            // RTT: timestamps (RFC 7323 RTTM) when negotiated, else Karn's
            // rule, or ns-2's one timed segment: the estimator chooses.
            let ts_rtt = (self.ts_ok && h.has_ts && h.tsecr > 0)
                .then(|| now.saturating_sub(SimTime(h.tsecr)));
            let linux22 = self.cfg.rto_estimator == RtoEstimator::Linux22;
            let linux = self.cfg.rto_estimator == RtoEstimator::Linux;
            let karn = if linux22 {
                // Linux 2.2 tcp_ack: the newest freed segment, and no sample
                // while a timeout's retransmissions are outstanding.
                acked
                    .newest_sent()
                    .filter(|_| self.tp.ca_state != CaState::Loss)
            } else {
                acked.karn_sent
            };
            self.rtt.set_cwnd(self.tp.cwnd);
            let sample = if linux {
                // tcp_ack_update_rtt: the oldest newly acknowledged segment
                // never retransmitted (none if any was), else the SACK
                // sample, else the timestamp echo.
                let r = acked
                    .first_unsacked_sent
                    .or(rate.oldest_clean_sacked)
                    .map(|t| now - t)
                    .or_else(|| self.linux_ts_rtt(h, now));
                if let Some(r) = r {
                    self.rtt.linux_sample(r, h.ack, self.snd_max);
                }
                r
            } else {
                self.rtt.on_ack(h.ack, karn, ts_rtt, now)
            };
            if linux22 && self.snd_una >= self.snd_max {
                self.rtt.all_acked();
            }
            if let Some(r) = sample {
                self.note_rtt(r);
            }
            self.sync_tp();
            delivered += acked.newly_delivered;
            self.tp.delivered += delivered as u64;
            // Linux 2.2 clears its counter on a new ACK outside a recovery and
            // at the ACK that ends one (clear_fast_retransmit, which first
            // tests it), not on a partial ACK.
            let dupacks_before = self.dupacks;
            if !(self.cfg.dupack_wrap > 0
                && self.tp.ca_state == CaState::Recovery
                && h.ack < self.recover)
            {
                self.dupacks = 0;
            }
            // A controller sees the RTT of every ACK (Linux ca_rtt_us, FreeBSD's
            // ERTT module for Vegas) even when the RTO is fed one timed
            // segment per round trip (rtt_sampling "timed" on RFC 6298).
            let cc_rtt = if self.cfg.rtt_sampling == RttSampling::Timed
                && self.cfg.rto_estimator == RtoEstimator::Rfc6298
            {
                ts_rtt.or(acked.karn_sent.map(|t| now - t))
            } else if linux {
                // tcp_clean_rtx_queue's ca_rtt_us: the newest segment newly
                // SACKed never retransmitted (last_sackt), else the newest
                // newly acknowledged one (last_ackt) unless the ACK covers a
                // retransmission (FLAG_RETRANS_DATA_ACKED); else
                // tcp_ack_update_rtt's timestamp echo.
                rate.newest_clean_sacked
                    .or(rate.newest_clean.filter(|_| !acked.any_retrans))
                    .map(|t| now - t)
                    .or_else(|| self.linux_ts_rtt(h, now))
            } else {
                sample
            };
            if linux {
                if let Some(c) = cc_rtt {
                    self.note_min_rtt(c);
                }
                // tcp_ack_update_rtt: rs->rtt_us = ca_rtt_us.
                ca_rtt = Some(cc_rtt);
            }
            let s = AckSample {
                pkts_acked: delivered - dsack_delivered,
                rtt: cc_rtt,
                in_flight: prior_in_flight,
                newest: acked.last,
            };
            self.cc.pkts_acked(&mut self.tp, &s);
            let mut lost_retrans = false;
            // tcp_ack_is_dubious, in the state the ACK found.
            let dubious = newly_sacked > 0 || ece || self.tp.ca_state != CaState::Open;
            if rack {
                self.process_tlp_ack(h, true, newly_sacked > 0, dsack_tlp);
                self.rack.absorb(&rate.rack);
            }

            let mut grow = true;
            let undone = self.try_undo(h) || self.process_frto(h, true, newly_sacked > 0, &rate);
            match self.tp.ca_state {
                _ if undone => {}
                CaState::Recovery => {
                    grow = false;
                    if h.ack >= self.recover {
                        // Full ACK: RFC 6582 (3) option 2 / RFC 6675: cwnd = ssthresh
                        // (rate-based controllers set the window themselves); an
                        // ns-2 NewReno agent drops dupwnd_ and keeps cwnd_
                        // (exit_recovery_fix_ 0).
                        if sack1 {
                            // Sack1: cwnd_ stays as the fast retransmit set
                            // it; recover_ = 0, the scoreboard cleared.
                            self.sack1_clear();
                            self.recover = 0;
                        } else if fb && !rate_based {
                            // FreeBSD newreno_post_recovery: what is in flight
                            // plus one segment when that is below ssthresh
                            // (cubic-freebsd's post_recovery follows on CompleteCwr).
                            let mss = self.mss as u64;
                            let flight = self.snd_max - h.ack;
                            self.tp.cwnd =
                                if h.ack + self.tp.ssthresh as u64 * mss > self.snd_max {
                                    ((flight + mss) / mss) as u32
                                } else {
                                    self.tp.ssthresh
                                }
                                .max(1);
                            self.tp.cwnd_cnt = 0;
                            // FreeBSD resends holes only in fast recovery: the
                            // ones above the recovery point wait for the next one.
                            self.sb.unmark_lost();
                        } else if self.cfg.dupack_wrap > 0
                            && self.effective_recovery() == Recovery::NewReno
                            && dupacks_before <= 3
                        {
                            // Linux 2.2 clear_fast_retransmit: cwnd = ssthresh only
                            // if dup_acks > 3; a wrapped counter keeps the inflated
                            // window.
                        } else if !rate_based {
                            self.tp.cwnd = if self.one_way()
                                && self.effective_recovery() == Recovery::NewReno
                            {
                                self.recovery_base.max(1)
                            } else {
                                self.tp.ssthresh.max(1)
                            };
                            self.tp.cwnd_cnt = 0;
                        }
                        self.set_ca_state(CaState::Open);
                        self.cc.cwnd_event(&mut self.tp, CwndEvent::CompleteCwr);
                    } else {
                        match self.effective_recovery() {
                            Recovery::Reno => {
                                // RFC 5681: the first new ACK ends fast recovery.
                                self.tp.cwnd = self.tp.ssthresh.max(1);
                                self.set_ca_state(CaState::Open);
                                self.cc.cwnd_event(&mut self.tp, CwndEvent::CompleteCwr);
                            }
                            Recovery::NewReno if self.cfg.dupack_wrap > 0 && self.dupacks < 3 => {
                                // Linux 2.2's Hoe branch needs dup_acks >= 3: after a
                                // wrap the next hole is not resent, and the timer runs
                                // from the head's (old) transmission
                                // (tcp_ack_packets_out).
                                self.partial_acks += 1;
                                self.rto_deadline = Some(self.head_rto_deadline(now));
                            }
                            Recovery::NewReno => {
                                // RFC 6582 (4): retransmit the first unacknowledged segment,
                                // deflate by the amount acknowledged, add back one segment.
                                self.tp.lost += self.sb.mark_head_lost() as u64;
                                if let Some(i) = self.sb.first_lost(0) {
                                    self.retransmit(now, i, out);
                                }
                                if !rate_based {
                                    use crate::recovery::newreno::{partial_ack_cwnd, Partial};
                                    let rule = if self.cfg.partial_keep {
                                        Partial::Keep
                                    } else if self.cfg.partial_deflation {
                                        Partial::Deflate
                                    } else {
                                        Partial::Base
                                    };
                                    let base = self.recovery_base;
                                    self.tp.cwnd =
                                        partial_ack_cwnd(self.tp.cwnd, acked.segs, base, rule);
                                }
                                self.partial_acks += 1;
                                let n = self.partial_acks;
                                if crate::recovery::newreno::restarts_timer(n, self.cfg.newreno_rto)
                                {
                                    self.restart_rto(now);
                                }
                            }
                            Recovery::Sack if fb && !rate_based => {
                                // FreeBSD tcp_sack_partialack: the retransmissions
                                // and new data of the recovery, plus one segment
                                // (two if this ACK covers two), at most ssthresh;
                                // the timer restarts.
                                let mss = self.mss as u64;
                                let new_data =
                                    self.snd_max.saturating_sub(self.fb_newdata).div_ceil(mss);
                                let more = if acked.segs >= 2 { 2 } else { 1 };
                                let w = self.sb.retrans as u64 + new_data + more;
                                self.tp.cwnd = w.min(self.tp.ssthresh as u64).max(1) as u32;
                                self.tp.cwnd_cnt = 0;
                                self.restart_rto(now);
                            }
                            Recovery::Sack1Ns2 => {
                                // partial_ack_ false: --pipe_ once more, the
                                // timer restarts (below), t_backoff_ = 1.
                                self.sack1.on_partial_ack();
                                self.rtt.ns2_end_backoff();
                            }
                            _ => {}
                        }
                    }
                }
                CaState::Loss => {
                    if h.ack >= self.recover {
                        if fb {
                            // FreeBSD resends holes only in fast recovery.
                            self.sb.unmark_lost();
                        }
                        self.set_ca_state(CaState::Open);
                    }
                }
                CaState::Cwr => {
                    if self.snd_una > self.high_seq {
                        // Linux tcp_end_cwnd_reduction (held until something
                        // above high_seq is acknowledged, as Linux's CWR exit).
                        if !rate_based {
                            self.tp.cwnd = self.tp.ssthresh.max(1);
                            self.tp.cwnd_cnt = 0;
                        }
                        self.set_ca_state(CaState::Open);
                        self.cc.cwnd_event(&mut self.tp, CwndEvent::CompleteCwr);
                    } else {
                        grow = false; // Linux tcp_in_cwnd_reduction: no growth
                    }
                }
                CaState::Disorder | CaState::Open => {
                    if self.sb.sacked == 0 {
                        self.set_ca_state(CaState::Open);
                    }
                }
            }
            if rack && dubious && dsack {
                // tcp_fastretrans_alert: tcp_try_undo_dsack after the state's
                // exit and the partial undo, before the loss marking.
                self.try_undo_dsack();
            }
            if rack && dubious {
                // tcp_fastretrans_alert: the state's exit and the undo first
                // (a full ACK ends Recovery or Loss; an undo clears the LOST
                // marks and sets rack.advanced), then tcp_identify_packet_loss
                // with the reordering window of the state they left.
                let prior_retrans = self.sb.retrans;
                let (n, armed) = self.rack_scan(now);
                newly_lost += n;
                reo_armed = armed;
                lost_retrans = self.sb.retrans < prior_retrans;
            }
            if rack
                && self.sb.lost > 0
                && matches!(
                    self.tp.ca_state,
                    CaState::Open | CaState::Disorder | CaState::Cwr
                )
            {
                // Linux tcp_time_to_recover: RACK proved a loss.
                self.enter_recovery(now, out);
                grow = false;
            } else if lost_retrans && self.loss_to_recovery(now, out) {
                grow = false;
            } else if rack
                && dubious
                && matches!(self.tp.ca_state, CaState::Open | CaState::Disorder)
            {
                // tcp_fastretrans_alert's tcp_try_to_open -> tcp_try_keep_open:
                // Disorder while anything is SACKed, lost or retransmitted.
                let left = self.sb.sacked + self.sb.lost + self.sb.retrans > 0;
                self.set_ca_state(if left {
                    CaState::Disorder
                } else {
                    CaState::Open
                });
            }
            // RFC 3168 6.1.2: the window does not grow on the ECE that reduces it.
            if ece && self.enter_cwr(ece_flight) {
                grow = false;
            }
            if grow && !rate_based && !self.ns2_lss_ack() {
                // ns-2's opencwnd runs once per new ACK, however many segments
                // it acknowledges (tcp.cc recv_newack_helper): +1 in slow start,
                // increase_num_/cwnd_ above it.
                if self.one_way() && self.cc.ns2_fractional_cwnd() {
                    // recv_newack_helper calls opencwnd() unless control_increase_
                    // and not network_limited(): cwnd_limited_growth's gate, which
                    // the segment-counting path has in ca_acked.
                    if self.tp.is_cwnd_limited {
                        self.ns2_opencwnd();
                    }
                } else {
                    if self.cfg.ss_ack_limit_rto > 0 {
                        // FreeBSD: one segment per ACK while the timeout's
                        // go-back-N resends (snd_nxt != snd_max).
                        self.tp.ss_ack_limit = if resending_before {
                            self.cfg.ss_ack_limit_rto
                        } else {
                            self.cfg.ss_ack_limit
                        };
                    }
                    let acked = if self.one_way() && self.cc.ns2_opencwnd() || self.cfg.count_acks {
                        delivered.min(1)
                    } else if self.cfg.cum_ack_growth {
                        // FreeBSD cc_ack_received: BYTES_THIS_ACK, what the
                        // cumulative ACK advances over, SACKed before or not.
                        acked.segs
                    } else {
                        delivered
                    };
                    self.cc.cong_avoid(&mut self.tp, acked);
                }
            }
            self.watch_second_slow_start();
            // RFC 6298 (5.2)/(5.3); RFC 6582's first partial ACK handled above.
            if self.snd_una >= self.snd_max {
                self.rto_deadline = None;
                self.xtimer = None;
            } else if rack {
                // Linux tcp_set_xmit_timer, unless RACK's timer was armed:
                // the probe if it may go, else the RTO.
                if !reo_armed && !self.schedule_loss_probe(now, true) {
                    self.rearm_rto(now);
                }
            } else if self.cfg.rto_from_head
                && !matches!(self.tp.ca_state, CaState::Recovery | CaState::Loss)
            {
                // Linux 2.2 tcp_ack_packets_out: the timer runs from the
                // oldest outstanding segment's transmission.
                self.rto_deadline = Some(self.head_rto_deadline(now));
            } else if !(self.tp.ca_state == CaState::Recovery
                && self.effective_recovery() == Recovery::NewReno)
            {
                self.restart_rto(now);
            }
            // The FIN takes the sequence number after the data (none for ns-2).
            let last = self.data_end.saturating_add(!self.one_way() as u64);
            if self.data_end != u64::MAX && self.snd_una >= last {
                self.state = SenderState::Done;
                self.done_at = Some(now);
                self.rto_deadline = None;
                return;
            }
        } else if h.ack == self.snd_una
            && self.snd_max > self.snd_una
            && h.payload == 0
            && !h.has(FIN)
        {
            // A duplicate ACK (RFC 5681); with SACK it must SACK new data (RFC 6675).
            self.process_frto(h, false, newly_sacked > 0, &rate);
            // Linux tcp_clean_rtx_queue on an ACK that acknowledges nothing
            // new: a SACK RTT sample longer than the head's age (what it
            // SACKs was sent before the head's last transmission) sets
            // FLAG_SET_XMIT_TIMER, so that the RTO (or probe) restarts at the
            // end of tcp_ack unless RACK armed its timer. Sampled before the
            // loss handling below may resend the head.
            let set_xmit_timer = rack
                && self.cfg.rto_estimator == RtoEstimator::Linux
                && rate
                    .oldest_clean_sacked
                    .is_some_and(|t| !self.sb.is_empty() && t < self.sb.get(0).sent);
            let mut lost_retrans = false;
            let mut reo_armed = false;
            if rack {
                self.process_tlp_ack(h, false, newly_sacked > 0, dsack_tlp);
                if dsack {
                    // tcp_fastretrans_alert: tcp_try_undo_dsack (Recovery,
                    // Open, Disorder) before tcp_identify_packet_loss.
                    self.try_undo_dsack();
                }
                let (n, armed, again) = self.rack_on_ack(now, &rate);
                newly_lost += n;
                lost_retrans = again;
                reo_armed = armed;
            }
            if self.cfg.rto_estimator == RtoEstimator::Linux {
                // Linux samples the RTT on SACK-only ACKs too.
                if let Some(t) = rate.oldest_clean_sacked {
                    self.rtt.linux_sample(now - t, self.snd_una, self.snd_max);
                    // ca_rtt_us: the newest segment SACKed (last_sackt).
                    let newest = rate.newest_clean.unwrap_or(t);
                    self.note_min_rtt(now - newest);
                    self.note_rtt(now - t);
                }
            }
            self.tp.delivered += delivered as u64;
            if newly_sacked > 0 {
                // Linux calls pkts_acked on every ACK, with the SACK RTT sample.
                let s = AckSample {
                    pkts_acked: newly_sacked,
                    rtt: rate.newest_clean.map(|t| now - t),
                    in_flight: prior_in_flight,
                    newest: None,
                };
                self.cc.pkts_acked(&mut self.tp, &s);
            }
            if sack1 {
                self.sack1_dupack(now, newly_sacked, out);
            } else if !sack || newly_sacked > 0 || fb && self.rwnd == prior_rwnd {
                // FreeBSD counts every duplicate ACK, SACKing new data or not,
                // that leaves the window as it was (tcp_input: tiwin == snd_wnd).
                self.dupacks += 1;
                if self.cfg.dupack_wrap > 0 {
                    // Linux 2.2's __u8 dup_acks.
                    self.dupacks %= self.cfg.dupack_wrap;
                }
                match self.tp.ca_state {
                    CaState::Open | CaState::Disorder | CaState::Cwr if rack => {
                        if self.sb.lost > 0 {
                            self.enter_recovery(now, out);
                        } else if self.tp.ca_state != CaState::Cwr {
                            self.set_ca_state(CaState::Disorder);
                        }
                    }
                    CaState::Open | CaState::Disorder | CaState::Cwr => {
                        let thresh = self.dupthresh();
                        let head_lost = sack && !fb && {
                            newly_lost += self.mark_lost(thresh);
                            self.sb.get(0).has(LOST)
                        };
                        if self.dupacks == thresh || head_lost {
                            self.enter_recovery(now, out);
                        } else if self.tp.ca_state != CaState::Cwr {
                            self.set_ca_state(CaState::Disorder);
                        }
                    }
                    CaState::Recovery => {
                        if fb && !rate_based {
                            // FreeBSD tcp_input: one more segment while what is
                            // in flight, (snd_nxt - snd_fack) + sack_bytes_rexmit,
                            // is below ssthresh, up to ssthresh.
                            let mss = self.mss as u64;
                            let fack = self.sb.high_sacked.max(self.snd_una);
                            let awnd =
                                self.snd_max.saturating_sub(fack) + self.sb.retrans as u64 * mss;
                            if awnd < self.tp.ssthresh as u64 * mss {
                                self.tp.cwnd = (self.tp.cwnd + 1).min(self.tp.ssthresh);
                            }
                        } else if !sack
                            && !rate_based
                            && (self.cfg.dupack_wrap == 0 || self.dupacks > 3)
                        {
                            // RFC 6582 (2): inflate by one segment per duplicate ACK
                            // (Linux 2.2: `++dup_acks > 3`, false past a wrap).
                            self.tp.cwnd += 1;
                        }
                    }
                    CaState::Loss if fb && self.dupacks == self.dupthresh() => {
                        // FreeBSD: after a timeout the third duplicate ACK (the
                        // go-back-N resending what the receiver holds) starts a
                        // fast recovery too; its SACK branch tests no snd_recover.
                        self.enter_recovery(now, out);
                    }
                    CaState::Loss => {
                        if lost_retrans {
                            self.loss_to_recovery(now, out);
                        }
                    }
                }
            }
            if ece {
                self.enter_cwr(ece_flight);
            }
            // tcp_ack: "If needed, reset TLP/RTO timer when RACK doesn't set."
            if set_xmit_timer && !reo_armed && !self.schedule_loss_probe(now, true) {
                self.rearm_rto(now);
            }
        }
        if dsack {
            // Without RACK (and for an ACK that was not dubious): here. With
            // RACK it ran before the loss marking, and is a no-op now.
            self.try_undo_dsack();
        }
        if self.prr.active() && !rate_based {
            // tcp_cong_control in CWR or Recovery: tcp_cwnd_reduction, with
            // what is in flight before anything is sent in response.
            if let Some(c) = self.prr.on_ack(
                self.tp.ssthresh,
                self.sb.in_flight(),
                delivered,
                newly_lost,
                self.snd_una > prior_snd_una,
            ) {
                self.tp.cwnd = c.max(1);
                self.tp.cwnd_cnt = 0;
            }
        }
        let rtt = ca_rtt.unwrap_or_else(|| rate.newest_clean.map(|t| now - t));
        let rs = self.rate_gen(now, &rate, delivered, newly_lost, prior_in_flight, rtt);
        if rate_based {
            self.sync_tp();
            self.tp.in_flight = self.sb.in_flight();
            self.cc.cong_control(&mut self.tp, &rs);
        }
        // ns-2 Sack1 calls send_much outside fast recovery only while
        // dupacks_ is 0.
        if !sack1 || sack1_rec || self.dupacks == 0 {
            self.transmit(now, out);
        }
        if self.rexmit_new {
            // F-RTO step 2b sent new data; if none went, resend lost ones.
            self.rexmit_new = false;
            if self.snd_max <= self.recover {
                self.frto = false;
                self.transmit(now, out);
            }
        }
    }

    /// ns-2 Sack1 `ClearScoreBoard`: every SACK mark forgotten (nothing to
    /// do, and no scan, when there is none).
    fn sack1_clear(&mut self) {
        if self.sb.sacked > 0 || self.sb.high_sacked > 0 {
            self.sb.clear_sacks();
        }
        self.sack_cache = [(0, 0); MAX_SACK_BLOCKS];
        self.sack1.clear();
    }

    /// ns-2 Sack1 `recv` on a duplicate ACK (its blocks already read):
    /// outside fast recovery and after a new ACK since any timeout, one that
    /// SACKs new data (`CheckUpdate`) counts; the numdupacks(cwnd_)-th starts
    /// a recovery once `highest_ack_ > recover_`, each earlier one may send
    /// one packet (`send_one`). In recovery nothing more happens here.
    fn sack1_dupack(&mut self, now: SimTime, newly_sacked: u32, out: &mut Vec<TcpHeader>) {
        if self.tp.ca_state == CaState::Recovery || self.sack1.timeout || newly_sacked == 0 {
            return;
        }
        self.dupacks += 1;
        let thresh = self.dupthresh();
        if self.dupacks == thresh {
            if self.snd_una > self.recover {
                self.enter_recovery(now, out);
                return;
            }
        } else if self.dupacks < thresh {
            self.sack1_send_one(now, out);
        }
        if matches!(self.tp.ca_state, CaState::Open) {
            self.set_ca_state(CaState::Disorder);
        }
    }

    /// ns-2 `send_one`: the packet at `t_seqno_` (`snd_nxt`: new data, or
    /// the next of a go-back-N) if `t_seqno_ <= highest_ack_ + cwnd_ +
    /// dupacks_` and `<= highest_ack_ + wnd_`; cwnd_ is not changed.
    fn sack1_send_one(&mut self, now: SimTime, out: &mut Vec<TcpHeader>) {
        let before = self.sb.index_of(self.snd_nxt).unwrap_or(self.sb.len()) as u32;
        let wnd_ok = self.cfg.window == 0 || before < self.cfg.window;
        if !(wnd_ok
            && crate::recovery::sack1::limited_transmit_ok(before, self.tp.cwnd, self.dupacks))
        {
            return;
        }
        if self.snd_nxt < self.snd_max {
            let i = before as usize;
            let len = self.sb.get(i).len as u64;
            self.snd_nxt += len;
            if self.sb.get(i).has(SACKED) {
                // Going back N over data the receiver holds: sent again,
                // not counted as a retransmission in flight.
                let snap = self.tx_snap(now);
                self.sb.probe_resent(i, now, snap);
                let seg = *self.sb.get(i);
                self.stats.segs_retrans += 1;
                self.emit(now, seg, false, out);
            } else {
                self.retransmit(now, i, out);
            }
        } else if let Some((start, len, payload, fin)) = self.new_segment_fits() {
            self.send_new(now, start, len, payload, fin, out);
        }
    }

    /// Start an episode whose reduction may later prove spurious.
    fn mark_undo(&mut self) {
        self.undo_marker = self.cfg.undo != Undo::None;
        self.prior_ssthresh = self.tp.ssthresh;
        self.tp.prior_cwnd = self.tp.cwnd;
        // Linux tcp_retrans_stamp_cleanup: kept while a retransmission is
        // out or the head was resent (a recovery entered from Loss keeps
        // the timeout's first retransmission time).
        if self.cfg.rto_estimator != RtoEstimator::Linux
            || self.sb.retrans == 0 && (self.sb.is_empty() || !self.sb.get(0).has(EVER_RETRANS))
        {
            self.retrans_stamp = None;
        }
        // Linux tcp_init_undo: retransmissions in flight, and a resent loss
        // probe, count as made in this episode.
        self.undo_retrans = crate::recovery::UndoRetrans::start(
            self.snd_una,
            self.sb.retrans,
            self.tlp.resent_outstanding(),
        );
    }

    /// Linux `tcp_dsack_seen`: the segments an ACK's D-SACK block reports
    /// received twice (its length in MSS, rounded up), counted
    /// as delivered ("a spurious retransmission is delivered"); 0 for a
    /// dubious block, longer than the largest window the peer offered or
    /// reporting more duplicates than were ever retransmitted (TLP probes
    /// included, `total_retrans`).
    fn dsack_seen(&mut self, h: &TcpHeader) -> u32 {
        let (l, r) = h.sack_block(0);
        if l >= r || r - l > self.max_window {
            return 0;
        }
        let dup = (r - l).div_ceil(self.mss as u64);
        self.dsack_dups += dup;
        if self.dsack_dups > self.stats.segs_retrans {
            return 0;
        }
        dup as u32
    }

    /// An ACK's D-SACK block (Linux `tcp_check_dsack`, `tcp_sacktag_one`):
    /// each retransmission of this episode it covers was needless.
    fn count_dsack(&mut self, h: &TcpHeader) {
        let (l, r) = h.sack_block(0);
        if self.undo_marker {
            let covered = self.sb.ever_retrans_in(l, r, self.undo_retrans.point());
            self.undo_retrans
                .dsack(l, r, self.snd_una, self.mss, covered);
        }
    }

    /// Linux `tcp_try_undo_dsack`: every retransmission of the episode was
    /// reported needless: undo its reduction (late, after the episode, too).
    fn try_undo_dsack(&mut self) -> bool {
        let undoable = self.cfg.dsack && self.undo_marker && self.undo_retrans.all_needless();
        let state_ok = matches!(
            self.tp.ca_state,
            CaState::Open | CaState::Disorder | CaState::Recovery
        );
        if !(undoable && state_ok) {
            return false;
        }
        self.undo_window();
        if self.tp.ca_state == CaState::Recovery {
            let open = self.sb.sacked + self.sb.lost == 0;
            self.set_ca_state(if open {
                CaState::Open
            } else {
                CaState::Disorder
            });
        }
        true
    }

    /// Linux `tcp_undo_cwnd_reduction`: the window (through the controller's
    /// `undo_cwnd`) and ssthresh as before the episode.
    fn undo_window(&mut self) {
        self.tp.cwnd = self.cc.undo_cwnd(&self.tp).max(1).min(self.tp.cwnd_clamp);
        if self.prior_ssthresh > self.tp.ssthresh {
            self.tp.ssthresh = self.prior_ssthresh;
        }
        self.undo_marker = false;
        self.stats.undos += 1;
        // tcp_undo_cwnd_reduction: "Force RACK to re-exam losses".
        self.rack.set_advanced();
    }

    /// F-RTO (RFC 5682 with SACK, Linux `tcp_process_loss`) on an ACK in the
    /// Loss state; returns whether it undid the timeout.
    fn process_frto(
        &mut self,
        h: &TcpHeader,
        advanced: bool,
        sacked: bool,
        rate: &RateAcc,
    ) -> bool {
        if !self.frto || self.tp.ca_state != CaState::Loss {
            return false;
        }
        use crate::recovery::frto::{self, Frto, LossAck};
        let decision = frto::on_ack(LossAck {
            orig_delivered: rate.clean_end_min.is_some_and(|e| e <= self.recover),
            new_data_sent: self.snd_max > self.recover,
            sacked,
            advanced,
            recovered: h.ack >= self.recover,
            room: self.new_segment_fits().is_some(),
        });
        match decision {
            Frto::Spurious => {
                self.frto = false;
                self.stats.spurious_rtos += 1;
                self.undo_loss();
                return true;
            }
            Frto::SendNew => {
                // high_seq moves to snd_nxt; this ACK sends new data.
                self.recover = self.snd_max;
                self.rexmit_new = true;
            }
            Frto::Real => self.frto = false,
            Frto::Wait => {}
        }
        false
    }

    /// Eifel detection (RFC 3522): the ACK echoes a timestamp older than the
    /// episode's first retransmission, so the original segment arrived and the
    /// reduction was spurious. Undo it as Linux's tcp_undo_cwnd_reduction does:
    /// restore the window through the controller's `undo_cwnd`, and ssthresh.
    fn try_undo(&mut self, h: &TcpHeader) -> bool {
        let allowed = match self.tp.ca_state {
            CaState::Loss => self.cfg.undo != Undo::None,
            CaState::Recovery => self.cfg.undo == Undo::All && h.ack >= self.recover,
            _ => false,
        };
        // FreeBSD: the first ACK of new data after a first timeout, within
        // srtt/2 of it (tested once: its RTT sample then ends the backoff).
        if self.cfg.undo == Undo::BadRxtWin {
            let early = self.badrxt_until.take().is_some_and(|t| self.tp.now < t);
            if !(allowed && self.undo_marker && early) {
                return false;
            }
            self.undo_loss();
            return true;
        }
        // Linux tcp_may_undo: the timestamp echo, or D-SACKs for every
        // retransmission.
        let delayed = self.ts_ok
            && h.has_ts
            && h.tsecr != 0
            && self.retrans_stamp.is_some_and(|t| h.tsecr < t.0)
            || self.cfg.dsack && self.undo_retrans.all_needless();
        if !(allowed && self.undo_marker && delayed) {
            return false;
        }
        self.undo_loss();
        true
    }

    /// Linux `tcp_undo_cwnd_reduction` and the return to Open of
    /// `tcp_try_undo_loss` / `tcp_try_undo_recovery`: the window and
    /// ssthresh back, no go-back-N resend. Undoing a timeout clears the LOST
    /// marks (`unmark_loss` true); undoing a RACK recovery keeps them
    /// (`tcp_try_undo_recovery` passes false), so a loss above the recovery
    /// point starts the next recovery at once (`tcp_time_to_recover`).
    fn undo_loss(&mut self) {
        let unmark = self.tp.ca_state == CaState::Loss || !self.rack_on();
        self.undo_window();
        if unmark {
            self.sb.unmark_lost();
        }
        self.snd_nxt = self.snd_max;
        self.set_ca_state(CaState::Open);
    }

    /// Linux `tcp_fastretrans_alert` in the Loss state: when RACK finds a
    /// retransmission lost again (`FLAG_LOST_RETRANS`: `retrans_out` fell),
    /// the sender falls through to the default arm and `tcp_enter_recovery`
    /// moves it from Loss to Recovery. Loss is not a cwnd reduction
    /// (`tcp_in_cwnd_reduction`), so this is a new one: ssthresh from the
    /// window now, PRR from it. Returns whether it happened.
    fn loss_to_recovery(&mut self, now: SimTime, out: &mut Vec<TcpHeader>) -> bool {
        if self.tp.ca_state != CaState::Loss || self.sb.lost == 0 {
            return false;
        }
        self.enter_recovery(now, out);
        self.tp.ca_state == CaState::Recovery
    }

    fn enter_recovery(&mut self, now: SimTime, out: &mut Vec<TcpHeader>) {
        self.sync_tp();
        let kind = self.effective_recovery();
        // RFC 6582 (1) / RFC 6675: no new recovery for losses of the window already recovered.
        // Without SACK, duplicate ACKs for the recovery's own spurious retransmissions
        // arrive with the cumulative ACK at `recover`: Linux (tcp_try_undo_recovery,
        // "hold old state until something *above* high_seq is ACKed ... to prevent
        // false fast retransmits") and ns-2 (bugfix_: highest_ack_ > recover_) start
        // a new recovery only once data above `recover` is acknowledged.
        let held = self.snd_una < self.recover
            || (!self.uses_sack() && self.recover != 0 && self.snd_una == self.recover);
        // FreeBSD's SACK recovery tests no recovery point (tcp_input.c): a
        // timeout's go-back-N may start one.
        // Linux's RACK path tests no recovery point: the states keep a
        // reduction from repeating (Recovery and CWR do not re-enter), and
        // from Loss (a retransmission lost again, or RACK's timer) or after
        // an undo a new recovery starts.
        if matches!(kind, Recovery::NewReno | Recovery::Sack)
            && held
            && !self.freebsd_sack_on()
            && !self.rack_on()
        {
            return;
        }
        // ns-2 (bugfix_): a new fast retransmit only once highest_ack_ > recover_,
        // i.e. data beyond what was outstanding at the last loss is acknowledged.
        if kind == Recovery::TahoeNs2 && self.snd_una <= self.recover {
            return;
        }
        self.stats.fast_retransmits += 1;
        let (cwnd_before, ss_before) = (self.tp.cwnd, self.tp.in_slow_start());
        // ns-2 reset_rtx_timer in dupack_action: the timed segment is forgotten.
        self.rtt.cancel_timing();
        self.tp.in_flight = self.loss_basis();
        if self.tp.ca_state == CaState::Cwr {
            // RFC 3168 6.1.2, Linux tcp_enter_recovery within a cwnd reduction:
            // the window of this loss was already reduced for its ECN marks;
            // repair it without a second reduction (and nothing to undo).
            self.undo_marker = false;
        } else {
            self.mark_undo();
            self.tp.ssthresh = self.loss_ssthresh(false);
            self.note_reduction();
        }
        // Linux tcp_init_cwnd_reduction: a recovery ends any probe episode.
        self.tlp.end();
        self.note_first_reduction(now, false, cwnd_before, ss_before);
        // ns-2 dupack_action: last_cwnd_action_ = CWND_ACTION_DUPACK, and
        // slowdown() clears first_decrease_.
        self.ns2_action = Ns2Action::Dupack;
        self.first_decrease = false;
        self.ns2_cwnd = 0.0;
        self.recover = self.snd_max;
        self.partial_acks = 0;
        self.rule3_from = self.snd_una;
        if !self.rack_on() {
            // RFC 6675 / NewReno; with RACK the losses are already marked.
            self.tp.lost += self.sb.mark_head_lost() as u64;
        }
        if self.cc.has_cong_control() {
            // Rate-based controllers keep the window themselves (Linux skips PRR
            // and cwnd reduction for `cong_control`).
            self.set_ca_state(CaState::Recovery);
            if self.rack_on() {
                // Linux tcp_enter_recovery sends nothing: tcp_ack calls the
                // controller (bbr_main sets cwnd) and then
                // tcp_xmit_recovery -> tcp_xmit_retransmit_queue, which
                // resends within that cwnd and the pacing (the transmit
                // that follows this ACK); resending the head restarts the RTO.
                return;
            }
            if let Some(i) = self.sb.first_lost(0) {
                self.retransmit(now, i, out);
            }
            self.restart_rto(now);
            return;
        }
        match kind {
            Recovery::Tahoe => {
                // 4.3BSD-Tahoe: retransmit one segment, cwnd = 1, slow start; snd_nxt
                // unchanged. The retransmission timer is cleared and tcp_output
                // starts it again (tcp_input: t_timer[TCPT_REXMT] = 0).
                self.tp.cwnd = 1;
                self.tp.cwnd_cnt = 0;
                self.rto_deadline = None;
                if let Some(i) = self.sb.first_lost(0) {
                    self.retransmit(now, i, out);
                }
                self.set_ca_state(CaState::Open);
                self.recover = 0;
                return;
            }
            Recovery::TahoeNs2 => {
                // ns-2 tcp.cc dupack_action: slowdown(CLOSE_SSTHRESH_HALF |
                // CLOSE_CWND_ONE), recover_ = maxseq_, then reset_rtx_timer(0,0):
                // t_seqno_ = highest_ack_ + 1 (the transmit loop resends from
                // snd_una as the window opens) and the timer restarts now,
                // without backoff.
                self.tp.cwnd = 1;
                self.tp.cwnd_cnt = 0;
                self.snd_nxt = self.snd_una;
                self.set_ca_state(CaState::Open);
                self.restart_rto(now);
                self.transmit(now, out);
                return;
            }
            Recovery::Reno | Recovery::NewReno => {
                // RFC 6582 (1): retransmit, cwnd = ssthresh + 3 segments. An ns-2
                // agent keeps cwnd_ if below (WestwoodNR's dupack_action:
                // cwnd_ = min(cwnd_, ssthresh_); slowdown's halving never is) and
                // inflates it by dupwnd_ = numdupacks_.
                (self.recovery_base, self.tp.cwnd) = crate::recovery::newreno::entry(
                    self.tp.ssthresh,
                    self.tp.cwnd,
                    self.cfg.dupthresh,
                    self.one_way(),
                );
            }
            Recovery::Sack if self.cfg.prr => {
                // Linux tcp_enter_recovery: PRR starts from the window now
                // (none when already reducing for ECN); this ACK's
                // tcp_cwnd_reduction sets cwnd and the transmit that follows
                // sends the fast retransmit, lost segments first.
                if !self.prr.active() {
                    self.prr = crate::recovery::Prr::start(cwnd_before);
                }
                self.tp.cwnd_cnt = 0;
                self.set_ca_state(CaState::Recovery);
                self.restart_rto(now);
                return;
            }
            Recovery::Sack if self.cfg.freebsd_sack => {
                // FreeBSD tcp_input at the third duplicate ACK: sack_newdata =
                // snd_nxt, cwnd = one segment; every hole below the highest
                // SACK may be resent.
                self.fb_newdata = self.snd_max;
                self.tp.cwnd = 1;
                self.mark_lost(1);
            }
            Recovery::Sack => {
                // RFC 6675 (4.2): cwnd = ssthresh, retransmit the first segment.
                self.tp.cwnd = self.tp.ssthresh;
            }
            Recovery::Sack1Ns2 => {
                // ns-2 Sack1 dupack_action: pipe_ from what is outstanding
                // and numdupacks(cwnd_) (cwnd_ before the halving),
                // MarkRetran of the first packet, cwnd_ = int(window()/2).
                let numdupacks = self.dupthresh();
                let window = self.send_window();
                self.sack1
                    .enter(self.sb.len() as u32, numdupacks, self.sb.get(0).end());
                self.tp.cwnd = crate::recovery::sack1::entry_cwnd(self.tp.ssthresh, window);
            }
        }
        self.tp.cwnd_cnt = 0;
        self.set_ca_state(CaState::Recovery);
        if let Some(i) = self.sb.first_lost(0) {
            self.retransmit(now, i, out);
        }
        self.restart_rto(now);
    }

    /// ssthresh after a loss: the controller's (`ssthresh` hook), or with
    /// `ns2_decrease` ns-2 2.28's slowdown(CLOSE_SSTHRESH_HALF) (tcp.cc): half
    /// of window(), integer, at least 2, on the first decrease of the
    /// connection (`first_decrease_`), in slow start (cwnd_ < ssthresh_) and on
    /// a timeout (timeout() sets last_cwnd_action_ = CWND_ACTION_TIMEOUT before
    /// calling slowdown); the variant's decrease otherwise. The controller's
    /// hook runs in every case, for its own bookkeeping (BIC's W_max, ...).
    fn loss_ssthresh(&mut self, timeout: bool) -> u32 {
        let mut own = self.cc.ssthresh(&self.tp).max(2);
        if self.cfg.ns2_decrease && self.one_way() {
            // slowdown()'s decreasewin from the double cwnd_ and windowd()
            // (HSTCP, windowOption_ 8; tcp.cc slowdown, decrease_param).
            let cwnd = self.ns2_cwnd_f64();
            let windowd = match self.cfg.window {
                0 => cwnd,
                w => cwnd.min(w as f64),
            };
            if let Some(d) = self.cc.ns2_decreasewin(cwnd, windowd) {
                own = d.max(2);
            }
        }
        if self.cfg.ns2_decrease
            && self.cc.ns2_slowdown()
            && (timeout || self.first_decrease || self.tp.in_slow_start())
        {
            (self.send_window() / 2).max(2)
        } else {
            own
        }
    }

    /// Whether ns-2's limited slow start applies to the next increase: on
    /// (`ns2_lss`, max_ssthresh_ > 0) and last_cwnd_action_ 0 or
    /// CWND_ACTION_TIMEOUT, i.e. not since a fast retransmit (tcp.cc
    /// opencwnd).
    fn ns2_lss_armed(&self) -> bool {
        self.cfg.ns2_lss && self.cfg.max_ssthresh > 0 && self.ns2_action != Ns2Action::Dupack
    }

    /// ns-2 2.28's limited slow start (tcp.cc `opencwnd`, windowOption_ 1 and
    /// 8): in congestion avoidance, while last_cwnd_action_ is 0 or
    /// CWND_ACTION_TIMEOUT and max_ssthresh_ > 0, a new ACK adds
    /// max(increment, 1/int(cwnd_/(max_ssthresh_/2))). The second term is the
    /// larger for Reno's 1/cwnd (and HSTCP's a(w)/w below 31000 segments), so it
    /// replaces the controller's increase. Returns whether it applied.
    ///
    /// This is the integer version, for variants whose cwnd counts segments;
    /// a variant on ns-2's double `cwnd_` (`ns2_fractional_cwnd`: Tahoe,
    /// NewReno, HSTCP) gets it in `ns2_opencwnd`, on `cwnd_` itself.
    fn ns2_lss_ack(&mut self) -> bool {
        let on_double = self.one_way() && self.cc.ns2_fractional_cwnd();
        !on_double
            && self.ns2_lss_armed()
            // opencwnd() itself has no such test, but recv_newack_helper
            // calls it only if !control_increase_ || network_limited():
            // cwnd_limited_growth, off on ns2 (control_increase_ 0), where
            // is_cwnd_limited is always true.
            && self.tp.is_cwnd_limited
            && !self.tp.in_slow_start()
            && self.cc.ns2_opencwnd()
            && ns2_limited_slow_start(&mut self.tp, self.cfg.max_ssthresh)
    }

    /// ns-2 tcp.cc `opencwnd()` with `windowOption_` 1 (`increase_num_` 1),
    /// once per new ACK (`recv_newack_helper`): `cwnd_` is a double, +1 while
    /// below `ssthresh_`, else + 1/`cwnd_`, then at most `maxcwnd_`; the
    /// window is its integer part (`window()`). So the window grows by one
    /// after the first ACK that takes the sum of 1/`cwnd_` past the next
    /// integer, about W + 1/2 ACKs at W (not W, as a segment count), and the
    /// fraction left over carries into the next increase.
    ///
    /// For a variant with its own increase (`ns2_increase`: HSTCP's
    /// `increase_param()`, windowOption_ 8) the increment is that. Either
    /// increment is raised by limited slow start (`ns2_lss`) while
    /// last_cwnd_action_ is 0 or CWND_ACTION_TIMEOUT and max_ssthresh_ > 0
    /// (tcp.cc opencwnd, cases 1 and 8: `limited_slow_start` of 2.35), added
    /// to the double `cwnd_` as ns-2 adds it: a sum of 1/5s from 275 falls
    /// short of 276 after five ACKs, and the window reaches it one ACK later
    /// than a count of five would.
    fn ns2_opencwnd(&mut self) {
        let mut w = self.ns2_cwnd_f64();
        if w < self.tp.ssthresh as f64 {
            // +1; above the host's RFC 3742 max_ssthresh (set only with
            // ns2_lss off: not an ns-2 rule) 1/K, K = int(cwnd)/(max_ssthresh/2),
            // as `slow_start` adds it to a count.
            let m = self.tp.max_ssthresh;
            w += if m > 0 && w as u32 > m {
                1.0 / f64::from(rfc3742_k(w as u32, m))
            } else {
                1.0
            };
        } else {
            let mut inc = self.cc.ns2_increase(w).unwrap_or(1.0 / w);
            if self.ns2_lss_armed() {
                inc = ns2_lss_increment(w, self.cfg.max_ssthresh, inc);
            }
            w += inc;
        }
        if w as u32 > self.tp.cwnd_clamp {
            w = self.tp.cwnd_clamp as f64;
        }
        self.ns2_cwnd = w;
        self.tp.cwnd = w as u32;
        self.tp.cwnd_cnt = 0;
    }

    /// ns-2's double `cwnd_`: the fractional window `ns2_opencwnd` keeps while
    /// it matches the integer one (a reduction sets an integer cwnd_: 1,
    /// int(window()/2), decreasewin, ...).
    fn ns2_cwnd_f64(&self) -> f64 {
        let c = self.tp.cwnd;
        if self.ns2_cwnd >= 1.0 && self.ns2_cwnd as u32 == c {
            self.ns2_cwnd
        } else {
            c as f64
        }
    }

    /// Record the connection's first loss reaction (cwnd and slow start as
    /// they were just before it) and, if it came in slow start, start
    /// watching for the second slow start.
    fn note_first_reduction(&mut self, now: SimTime, timeout: bool, cwnd: u32, in_ss: bool) {
        match self.episodes.last_mut().filter(|e| e.end.is_none()) {
            Some(e) => e.timeouts += timeout as u32,
            None => {
                // Episodes are few (one per loss event): this push is not per packet.
                self.episode_retrans0 = self.stats.segs_retrans;
                self.episodes.push(LossEpisode {
                    start: now,
                    end: None,
                    timeout,
                    tlp: false,
                    cwnd,
                    ssthresh: self.tp.ssthresh,
                    timeouts: timeout as u32,
                    retrans: 0,
                    cwnd_after: 0,
                });
            }
        }
        if self.stats.first_reduction.is_some() {
            return;
        }
        self.stats.first_reduction = Some(FirstReduction {
            at: now,
            timeout,
            cwnd,
            in_slow_start: in_ss,
            ssthresh: self.tp.ssthresh,
        });
        if in_ss {
            self.ss2 = Ss2Watch::Armed(self.tp.ssthresh);
        }
    }

    /// After an ACK's window growth: a second slow start is seen once cwnd,
    /// having been below the first reduction's ssthresh, reaches it.
    #[inline]
    fn watch_second_slow_start(&mut self) {
        match self.ss2 {
            Ss2Watch::Idle => {}
            Ss2Watch::Armed(t) if self.tp.cwnd < t => self.ss2 = Ss2Watch::Climbing(t),
            Ss2Watch::Armed(_) => {}
            Ss2Watch::Climbing(t) if self.tp.cwnd >= t && self.tp.ca_state == CaState::Open => {
                self.stats.double_slow_start = true;
                self.ss2 = Ss2Watch::Idle;
            }
            Ss2Watch::Climbing(_) => {}
        }
    }

    /// FlightSize for the `ssthresh` hook: the pipe (or the outstanding
    /// segments, if more) with SACK, everything outstanding without (RFC 5681).
    /// The payload the send buffer holds once the MSS is known: `sndbuf`
    /// bytes (at most `mem_limit`), each segment charged as the host's
    /// accounting says (Linux 2.2: sock_wmalloc succeeds while the charge is
    /// below sndbuf, so ceil(sndbuf / truesize) segments).
    fn set_snd_limit(&mut self) {
        let mut buf = self.cfg.sndbuf;
        if self.cfg.mem_limit > 0 {
            buf = buf.min(self.cfg.mem_limit);
        }
        let ts = self.cfg.buffer_accounting.snd_truesize(self.mss);
        self.snd_limit = if ts == self.mss as u64 {
            buf
        } else {
            buf.div_ceil(ts) * self.mss as u64
        };
    }

    /// What a loss's ssthresh halves: the flight, or with
    /// `ssthresh_from_window` min(cwnd, receive window in segments) (Linux
    /// 2.2 `tcp_recalc_ssthresh`), or with `ssthresh_from_cwnd` cwnd (Linux
    /// 3.x-6.x `tcp_reno_ssthresh`).
    fn loss_basis(&self) -> u32 {
        if self.cfg.ssthresh_from_cwnd {
            self.tp.cwnd
        } else if self.cfg.ssthresh_from_window {
            let rwnd = (self.rwnd / self.mss.max(1) as u64).min(u32::MAX as u64) as u32;
            self.tp.cwnd.min(rwnd)
        } else {
            self.flight_size()
        }
    }

    fn flight_size(&self) -> u32 {
        if self.one_way() {
            // ns-2 slowdown(): ssthresh from window() = min(cwnd_, window_).
            return self.send_window();
        }
        if self.uses_sack() {
            self.sb
                .in_flight()
                .max(((self.snd_max - self.snd_una) / self.mss as u64) as u32)
        } else {
            self.sb.len() as u32
        }
    }

    /// A window reduction happened now: the next new data segment carries CWR
    /// (RFC 3168 6.1.2, Linux `tcp_ecn_queue_cwr`), and ECE is not acted on
    /// again until snd_una passes what is outstanding now.
    fn note_reduction(&mut self) {
        self.cwr_pending = self.ecn_ok;
        self.high_seq = self.snd_max;
    }

    /// React to an ECN-Echo (RFC 3168 6.1.2, Linux `tcp_enter_cwr`): in Open or
    /// Disorder, past the last reduction's window, ssthresh from the controller
    /// as for a loss (FlightSize `flight`), cwnd down to it, and the CWR state.
    /// Returns whether it did.
    fn enter_cwr(&mut self, flight: u32) -> bool {
        if !matches!(self.tp.ca_state, CaState::Open | CaState::Disorder)
            || self.snd_una <= self.high_seq
        {
            return false;
        }
        self.sync_tp();
        self.tlp.end(); // tcp_init_cwnd_reduction
        self.tp.in_flight = flight;
        self.undo_marker = false; // an ECN reduction is never undone
        self.tp.ssthresh = self.cc.ssthresh(&self.tp).max(2);
        if self.cfg.prr && self.uses_sack() && !self.cc.has_cong_control() {
            // tcp_enter_cwr -> tcp_init_cwnd_reduction: PRR brings cwnd down.
            self.prr = crate::recovery::Prr::start(self.tp.cwnd);
        } else if !self.cc.has_cong_control() {
            self.tp.cwnd = self.tp.cwnd.min(self.tp.ssthresh).max(1);
            self.tp.cwnd_cnt = 0;
        }
        self.note_reduction();
        self.stats.ecn_reductions += 1;
        self.set_ca_state(CaState::Cwr);
        true
    }

    /// Linux `tcp_rate_gen`: the delivery-rate sample of this ACK.
    fn rate_gen(
        &mut self,
        now: SimTime,
        acc: &RateAcc,
        delivered: u32,
        losses: u32,
        prior_in_flight: u32,
        rtt: Option<SimTime>,
    ) -> RateSample {
        // Clear the application-limited mark once its data is delivered.
        if self.tp.app_limited != 0 && self.tp.delivered > self.tp.app_limited {
            self.tp.app_limited = 0;
        }
        if delivered > 0 {
            self.delivered_time = now;
        }
        let mut rs = RateSample {
            acked_sacked: delivered,
            losses,
            prior_in_flight,
            rtt,
            ..Default::default()
        };
        let Some(seg) = acc.best else { return rs };
        // The packet with the most recent `tx.delivered` defines the interval.
        self.first_tx_time = seg.sent;
        rs.prior_delivered = seg.tx.delivered;
        rs.prior_mstamp = seg.tx.delivered_time;
        rs.is_app_limited = seg.tx.app_limited;
        rs.is_retrans = seg.has(RETRANS);
        rs.delivered = Some(self.tp.delivered - seg.tx.delivered);
        rs.snd_interval = seg.sent.saturating_sub(seg.tx.first_time);
        rs.rcv_interval = now.saturating_sub(seg.tx.delivered_time);
        let interval = rs.snd_interval.max(rs.rcv_interval);
        // Intervals shorter than the minimum RTT are not trusted (ACK compression).
        rs.interval = (interval >= self.tp.min_rtt && interval > SimTime::ZERO).then_some(interval);
        if rs.interval.is_none() {
            rs.delivered = None;
        }
        rs
    }

    /// Linux `tcp_rate_skb_sent`: the snapshot a segment carries when sent.
    fn tx_snap(&mut self, now: SimTime) -> TxSnap {
        if self.sb.is_empty() {
            self.first_tx_time = now;
            self.delivered_time = now;
        }
        TxSnap {
            delivered: self.tp.delivered,
            delivered_time: self.delivered_time,
            first_time: self.first_tx_time,
            app_limited: self.tp.app_limited != 0,
            cc_mark: self.tp.tx_mark,
        }
    }

    // ---------------------------------------------------------------- timers

    /// Fire every timer due at `now`.
    pub fn on_timer(&mut self, now: SimTime, out: &mut Vec<TcpHeader>) {
        self.tp.now = now;
        self.gso_left = 0;
        self.gso_retx_next = None;
        if self.pace_deadline.is_some_and(|d| d <= now) {
            self.pace_deadline = None;
            self.transmit(now, out);
        }
        match self.xtimer {
            Some((t, XTimer::Reo)) if t <= now => self.on_reo_timeout(now, out),
            Some((t, XTimer::Probe)) if t <= now => self.on_probe_timer(now, out),
            Some(_) => {}
            None => {
                if self.rto_deadline.is_some_and(|d| d <= now) {
                    self.rto_deadline = None;
                    self.on_rto(now, out);
                }
            }
        }
    }

    /// Linux `tcp_rearm_rto`: the RTO takes the timer slot again, a full RTO
    /// from now, or, when RACK's timer or the probe held the slot, what is
    /// left of the RTO counted from the oldest segment's last transmission.
    fn rearm_rto(&mut self, now: SimTime) {
        if self.sb.is_empty() {
            self.rto_deadline = None;
            self.xtimer = None;
            return;
        }
        let rto = self.rtt.rto();
        self.rto_deadline = Some(match self.xtimer.take() {
            // tcp_rto_delta_us, at least a nanosecond (on the wheel, rounded
            // up to a jiffy: usecs_to_jiffies(max(delta_us, 1))).
            Some(_) => {
                let left = (self.sb.get(0).sent + rto)
                    .saturating_sub(now)
                    .max(SimTime(1));
                self.timer_after(now, left)
            }
            None => self.timer_after(now, rto),
        });
    }

    /// The RTO restarts now: a full RTO from now (on the wheel with
    /// `timer_wheel`).
    fn restart_rto(&mut self, now: SimTime) {
        self.rto_deadline = Some(self.timer_after(now, self.rtt.rto()));
    }

    /// When a retransmission-timer event armed now for `timeout` happens:
    /// `timeout` later, or with `timer_wheel` at the end of the Linux
    /// timer-wheel bucket of `jiffies + timeout` jiffies (crate::wheel).
    fn timer_after(&self, now: SimTime, timeout: SimTime) -> SimTime {
        if self.cfg.timer_wheel {
            crate::wheel::arm(now, timeout, self.cfg.clock_granularity).1
        } else {
            now + timeout
        }
    }

    /// A duration rounded up to the timer clock (Linux `usecs_to_jiffies`).
    fn ceil_tick(&self, d: SimTime) -> SimTime {
        crate::recovery::ceil_tick(d, self.cfg.clock_granularity)
    }

    /// Linux `tcp_schedule_loss_probe`: in Open or CWR with data out, the
    /// probe takes the timer slot, 2 SRTT (+2 ms, or + the minimum RTO for
    /// a lone segment, room for a delayed ACK) from now, but not after the
    /// RTO would fire (`advancing`: the RTO restarts now). Returns whether
    /// it did.
    fn schedule_loss_probe(&mut self, now: SimTime, advancing: bool) -> bool {
        if !self.tlp_on()
            || self.sb.is_empty()
            || !matches!(self.tp.ca_state, CaState::Open | CaState::Cwr)
        {
            return false;
        }
        let rto = self.rtt.rto();
        let rto_left = if advancing {
            Some(rto)
        } else {
            let fire = self.sb.get(0).sent + rto;
            (fire > now).then(|| fire - now)
        };
        let pto = crate::recovery::tlp::pto(
            self.rtt.srtt(),
            self.sb.len() == 1,
            self.cfg.min_rto,
            self.cfg.initial_rto,
            rto_left,
            self.cfg.clock_granularity,
        );
        self.xtimer = Some((self.timer_after(now, pto), XTimer::Probe));
        true
    }

    /// Linux `tcp_rack_reo_timeout`: scan again; when something is now
    /// lost, recover (entering recovery if not in it, PRR as for one
    /// delivered segment) and retransmit; then the RTO takes the slot back.
    fn on_reo_timeout(&mut self, now: SimTime, out: &mut Vec<TcpHeader>) {
        self.sync_tp();
        let prior = self.sb.in_flight();
        let reo = self.rack_reo_wnd();
        let (lost, _) = self.rack.detect_loss(&mut self.sb, now, reo);
        self.tp.lost += lost as u64;
        if self.sb.in_flight() != prior && self.state == SenderState::Established {
            if self.tp.ca_state != CaState::Recovery {
                self.enter_recovery(now, out);
                if self.prr.active() && !self.cc.has_cong_control() {
                    let (ssthresh, in_flight) = (self.tp.ssthresh, self.sb.in_flight());
                    if let Some(c) = self.prr.on_ack(ssthresh, in_flight, 1, lost, false) {
                        self.tp.cwnd = c.max(1);
                        self.tp.cwnd_cnt = 0;
                    }
                }
            }
            self.transmit(now, out);
        }
        if matches!(self.xtimer, Some((_, XTimer::Reo))) {
            self.rearm_rto(now);
        }
    }

    /// Linux `tcp_send_loss_probe`: one probe per episode: a new segment if
    /// the receive window and the send buffer allow (cwnd does not count),
    /// else the last segment again; then a full RTO from now.
    fn on_probe_timer(&mut self, now: SimTime, out: &mut Vec<TcpHeader>) {
        if self.tlp.outstanding() || self.state != SenderState::Established || self.sb.is_empty() {
            self.rearm_rto(now);
            return;
        }
        let resent = if let Some((start, len, payload, fin)) = self.new_segment_fits() {
            self.send_new(now, start, len, payload, fin, out);
            false
        } else {
            let i = self.sb.len() - 1;
            let snap = self.tx_snap(now);
            self.sb.probe_resent(i, now, snap);
            let seg = *self.sb.get(i);
            self.stats.segs_retrans += 1;
            self.emit(now, seg, false, out);
            true
        };
        self.stats.loss_probes += 1;
        self.tlp.sent(self.snd_max, resent);
        self.xtimer = None;
        self.restart_rto(now);
    }

    /// The reordering window now (`tcp_rack_reo_wnd`).
    fn rack_reo_wnd(&self) -> SimTime {
        self.rack.reo_wnd(
            self.tp.ca_state,
            self.sb.sacked,
            self.rtt.min_rtt(),
            self.rtt.srtt(),
        )
    }

    /// RACK on a duplicate ACK (`tcp_rack_advance` for what it delivered,
    /// then `tcp_rack_mark_lost`). Segments not old enough yet arm the
    /// reordering timer, 2 ms after the latest of them, at most one RTO
    /// away. Returns the segments newly marked lost, whether the timer was
    /// armed, and whether a retransmission was found lost again
    /// (`FLAG_LOST_RETRANS`: `retrans_out` fell).
    fn rack_on_ack(&mut self, now: SimTime, rate: &RateAcc) -> (u32, bool, bool) {
        self.rack.absorb(&rate.rack);
        let prior_retrans = self.sb.retrans;
        let (lost, armed) = self.rack_scan(now);
        (lost, armed, self.sb.retrans < prior_retrans)
    }

    /// `tcp_rack_mark_lost` with the reordering window of the current
    /// state; returns the segments newly marked lost and whether the
    /// reordering timer was armed.
    fn rack_scan(&mut self, now: SimTime) -> (u32, bool) {
        let reo = self.rack_reo_wnd();
        let (lost, wait) = self.rack.mark_lost(&mut self.sb, now, reo);
        self.tp.lost += lost as u64;
        if let Some(w) = wait {
            let d = self
                .ceil_tick(w + SimTime::from_micros(2000))
                .min(self.rtt.rto());
            self.xtimer = Some((self.timer_after(now, d), XTimer::Reo));
        }
        (lost, wait.is_some())
    }

    /// Linux `tcp_process_tlp_ack`: an ACK at or past the probe ends its
    /// episode; past it, after a resent probe, the probe repaired a loss:
    /// the window comes down once (CWR, at once to ssthresh).
    fn process_tlp_ack(&mut self, h: &TcpHeader, advanced: bool, sacked: bool, dsack_tlp: bool) {
        let ack = self.tlp.on_ack(h.ack, advanced, sacked, dsack_tlp);
        if ack == crate::recovery::tlp::TlpAck::Repaired {
            self.stats.tlp_recoveries += 1;
            let cwnd_before = self.tp.cwnd;
            self.tlp_episode(cwnd_before);
            if self.cc.has_cong_control() {
                return;
            }
            self.sync_tp();
            self.tp.in_flight = self.loss_basis();
            self.tp.prior_cwnd = self.tp.cwnd;
            self.tp.ssthresh = self.loss_ssthresh(false);
            self.note_reduction();
            self.set_ca_state(CaState::Cwr);
            self.tp.cwnd = self.tp.ssthresh.max(1);
            self.tp.cwnd_cnt = 0;
            self.cc.cwnd_event(&mut self.tp, CwndEvent::CompleteCwr);
            let open = self.sb.sacked + self.sb.lost + self.sb.retrans == 0;
            self.set_ca_state(if open {
                CaState::Open
            } else {
                CaState::Disorder
            });
            if let Some(e) = self.episodes.last_mut().filter(|e| e.tlp) {
                e.ssthresh = self.tp.ssthresh;
                e.cwnd_after = self.tp.cwnd;
            }
        }
    }

    /// A loss the probe repaired is an episode of its own, begun and ended
    /// by this ACK: the probe (a retransmission: a probe of new data repairs
    /// nothing) was its one retransmission, no timeout. Within an episode
    /// still open it adds nothing.
    fn tlp_episode(&mut self, cwnd_before: u32) {
        if self.episodes.last().is_some_and(|e| e.end.is_none()) {
            return;
        }
        let now = self.tp.now;
        self.episodes.push(LossEpisode {
            start: now,
            end: Some(now),
            timeout: false,
            tlp: true,
            cwnd: cwnd_before,
            ssthresh: self.tp.ssthresh,
            timeouts: 0,
            retrans: 1,
            cwnd_after: self.tp.cwnd,
        });
    }

    fn on_rto(&mut self, now: SimTime, out: &mut Vec<TcpHeader>) {
        self.sync_tp();
        self.stats.timeouts += 1;
        // ns-2 reset_rtx_timer: the timed segment is forgotten (Karn).
        self.rtt.cancel_timing();
        if self.state == SenderState::SynSent {
            if self.one_way() {
                // ns-2 timeout(): slowdown(CLOSE_SSTHRESH_HALF) halves window() = 1
                // to 0, floored at 2.
                self.tp.ssthresh = 2;
            }
            self.ns2_action = Ns2Action::Timeout;
            self.first_decrease = false;
            self.rtt.back_off();
            self.syn_retransmitted = true;
            self.send_syn(now, out);
            return;
        }
        if self.state != SenderState::Established || self.sb.is_empty() {
            return;
        }
        self.xtimer = None;
        let new_recovery = matches!(
            self.tp.ca_state,
            CaState::Open | CaState::Disorder | CaState::Cwr
        );
        let (cwnd_before, ss_before) = (self.tp.cwnd, self.tp.in_slow_start());
        let reduces = if self.cfg.linux_enter_loss {
            self.enter_loss_reduces()
        } else {
            self.rtt.backoffs() == 0
        };
        // FreeBSD tcp_timer_rexmt: t_badrxtwin = ticks + (t_srtt >> (TCP_RTT_SHIFT
        // + 1)) on the first timeout (t_rxtshift 1), in whole ms ticks; none on a
        // later one (TF_PREVVALID cleared).
        self.badrxt_until = (self.cfg.undo == Undo::BadRxtWin && self.rtt.backoffs() == 0)
            .then(|| now + SimTime::from_millis(self.tp.srtt.0 / 2 / 1_000_000));
        // RFC 5681 (4) on the first timeout of a segment; held on later backoffs
        // (Linux: held while the reduction under way lasts, enter_loss_reduces).
        // ns-2 halves window() on every timeout (cwnd is 1 on the second: ssthresh 2).
        if self.one_way() {
            self.tp.in_flight = self.flight_size();
            self.mark_undo();
            self.tp.ssthresh = self.loss_ssthresh(true);
        } else if reduces {
            self.tp.in_flight = if self.cfg.ssthresh_from_window || self.cfg.ssthresh_from_cwnd {
                self.loss_basis()
            } else if self.uses_sack() {
                self.sb.in_flight()
            } else {
                self.sb.len() as u32
            };
            self.mark_undo();
            self.tp.ssthresh = self.loss_ssthresh(true);
        } else if self.cfg.ssthresh_every_rto {
            // FreeBSD CC_RTO on a later backoff: max(2, min(snd_wnd, cwnd)/2)
            // segments from the window the timeout found (1 after the first).
            self.tp.ssthresh = (self.loss_basis() / 2).max(2);
        }
        // ns-2 timeout(): last_cwnd_action_ = CWND_ACTION_TIMEOUT (set before
        // slowdown, which clears first_decrease_).
        self.ns2_action = Ns2Action::Timeout;
        self.first_decrease = false;
        self.ns2_cwnd = 0.0;
        self.tp.cwnd = 1;
        self.tp.cwnd_cnt = 0;
        // Linux tcp_enter_loss: mark the losses, then enter the Loss state.
        if self.uses_sack() {
            // SACKed data the receiver dropped (reneging: the cumulative ACK
            // reached a SACKed segment, Linux tcp_check_sack_reneging) or a
            // stack that forgets SACKs on every timeout (Linux 2.2
            // tcp_retransmit_timer): resend everything outstanding.
            let reneged = self.cfg.rto_clears_sack || self.sb.get(0).has(SACKED);
            if reneged {
                self.sb.clear_sacks();
                self.sack_cache = [(0, 0); MAX_SACK_BLOCKS];
            }
            if self.rack_on() && !reneged {
                // Linux tcp_timeout_mark_lost with RACK: the oldest segment
                // and those sent more than RACK's RTT ago; newer ones may
                // still arrive.
                let rtt = self.rack.rtt();
                for i in 0..self.sb.len() {
                    let s = *self.sb.get(i);
                    if i == 0 || now.saturating_sub(s.sent) >= rtt {
                        self.tp.lost += self.sb.mark_seg_lost(i) as u64;
                    }
                }
            } else {
                self.tp.lost += self.sb.mark_all_lost() as u64;
            }
        } else {
            self.sb.clear_sacks();
            self.sack_cache = [(0, 0); MAX_SACK_BLOCKS];
            self.snd_nxt = self.snd_una;
            // ns-2 Sack1 timeout: ClearScoreBoard, and duplicate ACKs
            // ignored until a new ACK (timeout_); go-back-N as above.
            self.sack1.clear();
            self.sack1.timeout = self.sack1_on();
        }
        if self.rack_on() {
            // Linux tcp_enter_loss: cwnd = in flight + 1.
            self.tp.cwnd = self.sb.in_flight() + 1;
        }
        if !self.cfg.linux_enter_loss || reduces {
            self.cc.cwnd_event(&mut self.tp, CwndEvent::Loss);
        }
        if self.stats.first_reduction.is_some() {
            // A later timeout ends any second slow start still climbing.
            self.ss2 = Ss2Watch::Idle;
        }
        self.note_first_reduction(now, true, cwnd_before, ss_before);
        // Linux tcp_enter_loss: the timeout ends any probe episode; F-RTO
        // watches a first timeout, or one more without progress.
        self.tlp.end();
        self.frto = self.cfg.frto && self.uses_sack() && (new_recovery || self.rtt.backoffs() > 0);
        self.set_ca_state(CaState::Loss);
        self.rto_retransmits += 1; // tcp_update_rto_stats
        self.recover = self.snd_max;
        self.note_reduction();
        self.dupacks = 0;
        self.rtt.back_off();
        // (5.4) retransmit the earliest unacknowledged segment.
        let first = out.len();
        if self.uses_sack() {
            if let Some(i) = self.sb.first_lost(0) {
                self.retransmit(now, i, out);
            }
        } else {
            let len = self.sb.get(0).len as u64;
            self.snd_nxt += len;
            self.retransmit(now, 0, out);
        }
        if let Some(h) = out.get_mut(first) {
            h.rto_retx = true;
        }
        if self.tp.cwnd > 1 {
            // A controller restarting from more than one segment (WestwoodNR's
            // cwnd_ = 2): ns-2's timeout() send_much fills it at once.
            self.transmit(now, out);
        }
        // (5.6) restart the timer with the backed-off RTO.
        self.restart_rto(now);
    }

    /// Linux `tcp_enter_loss`: whether a timeout takes a new ssthresh and
    /// undo state: not while a reduction is under way (Recovery, CWR, or
    /// Loss with no progress since the last timeout) and its `high_seq` is
    /// still ahead of snd_una.
    fn enter_loss_reduces(&self) -> bool {
        let high_seq = if self.tp.ca_state == CaState::Cwr {
            self.high_seq
        } else {
            self.recover
        };
        matches!(self.tp.ca_state, CaState::Open | CaState::Disorder)
            || high_seq <= self.snd_una
            || self.tp.ca_state == CaState::Loss && self.rto_retransmits == 0
    }

    /// Close the accounts of a still-open episode (at the end of a run).
    pub fn finish_episodes(&mut self) {
        if let Some(e) = self.episodes.last_mut().filter(|e| e.end.is_none()) {
            e.retrans = self.stats.segs_retrans - self.episode_retrans0;
            e.cwnd_after = self.tp.cwnd;
        }
    }

    /// Debug invariant: counters match the scoreboard, sequence pointers are ordered.
    pub fn check_invariants(&self) {
        self.sb.check();
        assert!(
            self.snd_una <= self.snd_nxt && self.snd_nxt <= self.snd_max,
            "sequence pointers out of order"
        );
        if self.state == SenderState::Established {
            let covered: u64 = (0..self.sb.len()).map(|i| self.sb.get(i).len as u64).sum();
            assert_eq!(
                covered,
                self.snd_max - self.snd_una,
                "bytes in flight differ from the scoreboard"
            );
        }
        assert!(self.tp.cwnd >= 1, "cwnd fell to zero");
    }

    /// Flags of the segment at index i (for tests).
    #[cfg(test)]
    pub(crate) fn seg_flags(&self, i: usize) -> u8 {
        self.sb.get(i).flags
    }
    #[cfg(test)]
    pub(crate) fn dupacks(&self) -> u32 {
        self.dupacks
    }
}

/// Linux `tcp_check_dsack`: the ACK's first SACK block is a D-SACK (below
/// the cumulative ACK, or inside the second block).
fn is_dsack(h: &TcpHeader) -> bool {
    if h.nsack == 0 {
        return false;
    }
    let (l, r) = h.sack_block(0);
    l < h.ack
        || (h.nsack > 1 && {
            let (l1, r1) = h.sack_block(1);
            l1 <= l && r <= r1
        })
}

/// Smallest window-scale shift that lets `buf` bytes fit in 16 bits (at most 14).
pub fn wscale_for(buf: u64) -> u8 {
    let mut s = 0;
    while s < 14 && (buf >> s) > 65535 {
        s += 1;
    }
    s
}
