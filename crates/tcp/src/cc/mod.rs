//! Congestion control: one trait, like Linux's `tcp_congestion_ops`, and one
//! small file per algorithm. The window lives in [`CcState`] (the socket's
//! view); the sender owns loss recovery and calls the hooks.
//!
//! Hook order on an ACK that acknowledges new data (as `tcp_ack` does):
//! `pkts_acked` with the RTT sample, then either `cong_control` (rate-based
//! controllers that return `true` from [`CongestionControl::has_cong_control`])
//! or `cong_avoid` when the connection is not in fast recovery.

mod bbr;
mod bic;
mod compound;
mod cubic;
mod fast;
#[cfg(test)]
pub(crate) mod harness;
mod helpers;
mod highspeed;
mod htcp;
mod hybla;
mod illinois;
mod newreno;
mod reno;
mod scalable;
mod tahoe;
mod vegas;
mod vegas_freebsd;
mod veno;
mod westwood;

pub use helpers::{
    ca_acked, cong_avoid_ai, ns2_limited_slow_start, ns2_lss_increment, reno_cong_avoid,
    reno_ssthresh, rfc3742_k, slow_start,
};

use crate::profile::{NewRenoRto, Recovery};
use std::collections::BTreeMap;
use tcplab_engine::SimTime;

/// Congestion-avoidance state of the sender (Linux `tcp_ca_state`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaState {
    /// Nothing wrong.
    Open,
    /// Duplicate ACKs or SACKs seen, below the threshold.
    Disorder,
    /// The window was reduced for an ECN-Echo and holds until the data then
    /// outstanding is acknowledged (RFC 3168 6.1.2).
    Cwr,
    /// Fast recovery.
    Recovery,
    /// After a retransmission timeout.
    Loss,
}

impl CaState {
    /// Linux's number for the state (`enum tcp_ca_state`, `tcpi_ca_state`).
    pub fn linux(self) -> u8 {
        match self {
            CaState::Open => 0,
            CaState::Disorder => 1,
            CaState::Cwr => 2,
            CaState::Recovery => 3,
            CaState::Loss => 4,
        }
    }
}

/// A controller's model of the path as Linux's `get_info` reports it
/// (`getsockopt(TCP_CC_INFO)`, `struct tcp_bbr_info`): BBR's estimates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CcModel {
    /// Bandwidth estimate, bytes per second (`bbr_bw` times the MSS).
    pub bw: u64,
    /// Min-RTT estimate, µs (`min_rtt_us`; `u32::MAX` before a sample).
    pub min_rtt_us: u32,
    /// Pacing gain, in 1/256.
    pub pacing_gain: u32,
    /// Congestion-window gain, in 1/256.
    pub cwnd_gain: u32,
}

/// Events a controller may react to (Linux `tcp_ca_event`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CwndEvent {
    /// First transmission when no packet is in flight.
    TxStart,
    /// Congestion window restart after idle.
    CwndRestart,
    /// A window reduction (fast recovery or ECN's CWR) finished.
    CompleteCwr,
    /// A retransmission timeout.
    Loss,
}

/// The socket state a controller reads and writes. Windows are in segments.
#[derive(Clone, Debug)]
pub struct CcState {
    /// Congestion window, segments.
    pub cwnd: u32,
    /// Slow-start threshold, segments (`u32::MAX` = infinite).
    pub ssthresh: u32,
    /// Linear-increase counter (Linux `snd_cwnd_cnt`).
    pub cwnd_cnt: u32,
    /// Upper bound of the window (Linux `snd_cwnd_clamp`).
    pub cwnd_clamp: u32,
    /// Window before the last reduction (for undo).
    pub prior_cwnd: u32,
    /// Sender maximum segment size, bytes of payload.
    pub mss: u32,
    /// Current time.
    pub now: SimTime,
    /// Smoothed RTT (zero before the first sample).
    pub srtt: SimTime,
    /// Smallest RTT seen (zero before the first sample).
    pub min_rtt: SimTime,
    /// Segments in flight (RFC 6675 pipe, Linux `tcp_packets_in_flight`).
    pub in_flight: u32,
    /// Whether the last transmissions were limited by cwnd (not rwnd or the application).
    pub is_cwnd_limited: bool,
    /// Congestion-avoidance state.
    pub ca_state: CaState,
    /// Total segments delivered (cumulatively or selectively acknowledged).
    pub delivered: u64,
    /// Pacing rate, bytes per second; 0 = no pacing.
    pub pacing_rate: u64,
    /// The rate Linux's `tcp_update_pacing_rate` gives every connection,
    /// pacing or not (`sk_pacing_rate`), bytes per second, as of the last
    /// ACK: set on hosts that compute it (`linux_pacing`), else 0. A
    /// controller that paces sets `pacing_rate` instead.
    pub sk_pacing_rate: u64,
    /// The earliest departure time of the next paced send (Linux
    /// `tcp_wstamp_ns`): the sender's pacing slot, `now` or earlier when it
    /// may send at once.
    pub wstamp: SimTime,
    /// Oldest unacknowledged sequence number (bytes).
    pub snd_una: u64,
    /// Next sequence number to send (bytes).
    pub snd_nxt: u64,
    /// Total segments marked lost.
    pub lost: u64,
    /// Non-zero while the application limits sending: the `delivered` count at
    /// which the limitation ends (Linux `tp->app_limited`).
    pub app_limited: u64,
    /// Time of the last transmission (Linux `lsndtime`).
    pub lsndtime: SimTime,
    /// RFC 3742 limited slow start above this window (segments); 0 = off.
    pub max_ssthresh: u32,
    /// Slow start adds at most this many segments per ACK (RFC 5681: 1,
    /// RFC 3465: 2); 0 = every acknowledged segment, as Linux.
    pub ss_ack_limit: u32,
    /// Congestion avoidance credits at most this many segments per ACK
    /// (RFC 3465 ABC as FreeBSD); 0 = every acknowledged segment.
    pub ca_ack_limit: u32,
    /// The host runs ns-2's one-way agents (the `ns2` profile): a controller
    /// with an ns-2 agent of its own may follow that agent instead of Linux.
    pub ns2_agent: bool,
    /// A value the controller stamps on every segment as it is (re)sent,
    /// returned with the ACK that acknowledges it (`AckSample::newest`): ns-2
    /// FAST's `cwnd_array_`.
    pub tx_mark: u32,
}

impl CcState {
    /// A fresh state with `iw` segments and infinite ssthresh.
    pub fn new(iw: u32, mss: u32) -> Self {
        CcState {
            cwnd: iw,
            ssthresh: u32::MAX,
            cwnd_cnt: 0,
            cwnd_clamp: u32::MAX / 2,
            prior_cwnd: iw,
            mss,
            now: SimTime::ZERO,
            srtt: SimTime::ZERO,
            min_rtt: SimTime::ZERO,
            in_flight: 0,
            is_cwnd_limited: true,
            ca_state: CaState::Open,
            delivered: 0,
            pacing_rate: 0,
            sk_pacing_rate: 0,
            wstamp: SimTime::ZERO,
            snd_una: 0,
            snd_nxt: 0,
            lost: 0,
            app_limited: 0,
            lsndtime: SimTime::ZERO,
            max_ssthresh: 0,
            ss_ack_limit: 0,
            ca_ack_limit: 0,
            ns2_agent: false,
            tx_mark: 0,
        }
    }
    /// What Linux's `sk_pacing_rate` holds, bytes per second: the
    /// controller's rate when it paces, else the one `tcp_update_pacing_rate`
    /// computed (`sk_pacing_rate`; 0 where the host computes none).
    #[inline]
    pub fn linux_rate(&self) -> u64 {
        if self.pacing_rate > 0 {
            self.pacing_rate
        } else {
            self.sk_pacing_rate
        }
    }
    /// Linux `tcp_in_slow_start`.
    #[inline]
    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }
}

/// What an ACK acknowledged (Linux `ack_sample`).
#[derive(Clone, Copy, Debug, Default)]
pub struct AckSample {
    /// Segments newly acknowledged (cumulatively or by SACK).
    pub pkts_acked: u32,
    /// RTT sample from this ACK, if Karn's rule allows one.
    pub rtt: Option<SimTime>,
    /// Segments in flight before this ACK.
    pub in_flight: u32,
    /// The newest segment this ACK acknowledged cumulatively (ns-2's
    /// `tcph->seqno()` packet); `None` when it acknowledged none (SACK only).
    pub newest: Option<SentSeg>,
}

/// A segment as its latest transmission left it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SentSeg {
    /// Time of its latest (re)transmission.
    pub sent: SimTime,
    /// Whether it was ever retransmitted.
    pub retransmitted: bool,
    /// `CcState::tx_mark` at its latest transmission.
    pub mark: u32,
}

/// A delivery-rate sample (Linux `struct rate_sample`, net/ipv4/tcp_rate.c),
/// generated by the sender on every ACK. Fields Linux marks invalid with -1 are
/// `None` here.
#[derive(Clone, Copy, Debug, Default)]
pub struct RateSample {
    /// Send time of the packet whose `tx.delivered` was used (Linux `prior_mstamp`'s
    /// counterpart: the delivered-time snapshot taken when that packet was sent).
    pub prior_mstamp: SimTime,
    /// `tp.delivered` when that packet was sent.
    pub prior_delivered: u64,
    /// Segments delivered over the interval; `None` when no valid sample (Linux -1).
    pub delivered: Option<u64>,
    /// max(send interval, ACK interval); `None` when invalid or shorter than min RTT.
    pub interval: Option<SimTime>,
    /// Send-side interval (Linux `snd_interval_us`).
    pub snd_interval: SimTime,
    /// ACK-side interval (Linux `rcv_interval_us`).
    pub rcv_interval: SimTime,
    /// RTT of the most recently sent segment newly acknowledged (Linux `rtt_us`).
    pub rtt: Option<SimTime>,
    /// Segments newly marked lost by this ACK.
    pub losses: u32,
    /// Segments newly acknowledged or SACKed by this ACK.
    pub acked_sacked: u32,
    /// Segments in flight before this ACK.
    pub prior_in_flight: u32,
    /// Whether the sample's packet was sent while application-limited.
    pub is_app_limited: bool,
    /// Whether the sample's packet was a retransmission.
    pub is_retrans: bool,
}

/// A congestion-control algorithm (Linux `tcp_congestion_ops`).
pub trait CongestionControl {
    /// Name as registered.
    fn name(&self) -> &'static str;
    /// Called once when the connection is established.
    fn init(&mut self, _tp: &mut CcState) {}
    /// The slow-start threshold after a loss (required).
    fn ssthresh(&mut self, tp: &CcState) -> u32;
    /// Window growth on an ACK outside recovery (required unless `cong_control`).
    fn cong_avoid(&mut self, tp: &mut CcState, acked: u32);
    /// Every ACK that is not older than snd_una, duplicate ACKs included,
    /// before the sender acts on it (Linux `in_ack_event`, which runs on every
    /// ACK; ns-2 agents that count ACKs do it first in `recv`). `advanced`:
    /// bytes by which the ACK moves snd_una (0 for a duplicate ACK).
    fn ack_event(&mut self, _tp: &mut CcState, _advanced: u64) {}
    /// Every ACK that acknowledges data, with its RTT sample.
    fn pkts_acked(&mut self, _tp: &mut CcState, _s: &AckSample) {}
    /// A segment with `len` bytes of data from `seq` leaves at `now`, new or
    /// retransmitted (FreeBSD's `HHOOK_TCP_EST_OUT`, where h_ertt records it).
    fn on_transmit(&mut self, _tp: &CcState, _now: SimTime, _seq: u64, _len: u32) {}
    /// The congestion-avoidance state changes.
    fn set_state(&mut self, _tp: &mut CcState, _new: CaState) {}
    /// Events of the window.
    fn cwnd_event(&mut self, _tp: &mut CcState, _ev: CwndEvent) {}
    /// The window to restore when a reduction proves spurious.
    fn undo_cwnd(&mut self, tp: &CcState) -> u32 {
        tp.cwnd.max(tp.prior_cwnd)
    }
    /// Whether this controller sets the window itself from rate samples.
    fn has_cong_control(&self) -> bool {
        false
    }
    /// Rate-based control on every ACK (BBR); only called when `has_cong_control`.
    fn cong_control(&mut self, _tp: &mut CcState, _rs: &RateSample) {}
    /// The controller's model, for the traces (Linux `get_info` of BBR);
    /// `None` for controllers without one.
    fn model(&self, _tp: &CcState) -> Option<CcModel> {
        None
    }
    /// The fewest segments a TSO/GSO burst carries (Linux `min_tso_segs` of
    /// `tcp_congestion_ops`, else `net.ipv4.tcp_min_tso_segs`, 2).
    fn min_tso_segs(&self, _tp: &CcState) -> u32 {
        2
    }
    /// A loss recovery the algorithm requires regardless of the host (Tahoe, Reno).
    fn recovery(&self) -> Option<Recovery> {
        None
    }
    /// Whether the variant's ns-2 agent grows its window in ns-2's
    /// `TcpAgent::opencwnd` (tcp.cc, `windowOption_` 1 or 8), so that ns-2's
    /// limited slow start applies to it on hosts with `ns2_lss`.
    fn ns2_opencwnd(&self) -> bool {
        false
    }
    /// Whether, on an ns-2 agent, cwnd grows as ns-2's `opencwnd()` with
    /// `windowOption_` 1 grows its double `cwnd_` (+1 in slow start, +
    /// 1/`cwnd_` above), the window being its integer part (the sender's
    /// `ns2_opencwnd`, which also adds ns-2's limited slow start to the
    /// double), rather than through `cong_avoid` counting segments.
    fn ns2_fractional_cwnd(&self) -> bool {
        false
    }
    /// With `ns2_fractional_cwnd`: the congestion-avoidance increment of ns-2's
    /// `opencwnd()` on the double `cwnd_` when the variant's `windowOption_` is
    /// not 1 (HSTCP's 8: `increase_param()`), before limited slow start; `None`
    /// for `windowOption_` 1 (`increase_num_ / cwnd_`).
    fn ns2_increase(&self, _cwnd: f64) -> Option<f64> {
        None
    }
    /// ns-2 `slowdown()`'s `decreasewin` (`precisionReduce_` false) when the
    /// variant's `windowOption_` has its own decrease (HSTCP's 8), from the
    /// double `cwnd_` and `windowd()` = min(`cwnd_`, `window_`); called at every
    /// slowdown (fast retransmit and timeout), for the variant's bookkeeping
    /// (`decrease_num_`). `None`: the `ssthresh` hook's value.
    fn ns2_decreasewin(&mut self, _cwnd: f64, _windowd: f64) -> Option<u32> {
        None
    }
    /// Whether the variant's ns-2 agent reduces its window through ns-2's
    /// `TcpAgent::slowdown` (whose halving on the first decrease, in slow start
    /// and after timeouts hosts with `ns2_decrease` follow). WestwoodNR sets
    /// ssthresh_ and cwnd_ itself in `dupack_action` and `timeout`.
    fn ns2_slowdown(&self) -> bool {
        true
    }
    /// The variant's ns-2 agent's NewReno settings (`newreno_changes1_`,
    /// `partial_window_deflation_`) where its ns-default.tcl sets them
    /// differently from Agent/TCP/Newreno's; the `ns2` profile uses them
    /// unless the host sets `newreno_rto` or `partial_window_deflation`.
    fn ns2_newreno(&self) -> Option<(NewRenoRto, bool)> {
        None
    }
}

/// The kernel tick rates (CONFIG_HZ) a controller's jiffies may count:
/// Kconfig.hz's choices whose tick is a whole number of microseconds (not 300).
pub const KERNEL_HZ: [u32; 3] = [100, 250, 1000];

/// A controller's `hz` parameter, one of [`KERNEL_HZ`].
pub(crate) fn check_hz(ctl: &str, v: f64) -> Result<u64, String> {
    if KERNEL_HZ.iter().any(|&h| h as f64 == v) {
        Ok(v as u64)
    } else {
        Err(format!(
            "{ctl}: parameter hz = {v} must be 100, 250 or 1000"
        ))
    }
}

/// `tcp_jiffies32` at `t` on a kernel of `hz` ticks per second.
pub(crate) fn jiffies(t: SimTime, hz: u64) -> u64 {
    (t.0 as u128 * hz as u128 / 1_000_000_000) as u64
}

/// A socket's `sk_gso_max_size` on a Linux host: the device's 64 KiB
/// (GSO_LEGACY_MAX_SIZE) less `MAX_TCP_HEADER + 1` (`sk_setup_caps`;
/// MAX_TCP_HEADER 320 on x86-64 distribution kernels).
pub const GSO_MAX_BYTES: u64 = 65536 - 1 - 320;

/// Parameters given to a controller in a scenario: name -> value.
pub type CcParams = BTreeMap<String, f64>;

/// A registered controller.
pub struct CcInfo {
    /// Name used in scenario files.
    pub name: &'static str,
    /// One line.
    pub description: &'static str,
    /// What it follows.
    pub source: &'static str,
    /// Parameters: (name, default, meaning).
    pub params: &'static [(&'static str, &'static str, &'static str)],
    /// Build one with the given parameters (checked: unknown names are errors).
    pub make: fn(&CcParams) -> Result<Box<dyn CongestionControl>, String>,
}

/// Every controller, by name.
pub fn registry() -> &'static [CcInfo] {
    &[
        tahoe::INFO,
        reno::INFO,
        newreno::INFO,
        vegas::INFO,
        vegas_freebsd::INFO,
        veno::INFO,
        cubic::INFO,
        cubic::INFO_FREEBSD,
        compound::INFO,
        bic::INFO,
        highspeed::INFO,
        htcp::INFO,
        hybla::INFO,
        illinois::INFO,
        scalable::INFO,
        westwood::INFO,
        fast::INFO,
        bbr::INFO,
    ]
}

/// Names that later issues add; a scenario naming one gets a clear message.
pub const PLANNED: &[&str] = &[];

/// Build a controller by name.
pub fn make(name: &str, params: &CcParams) -> Result<Box<dyn CongestionControl>, String> {
    match registry().iter().find(|i| i.name == name) {
        Some(i) => (i.make)(params),
        None => Err(format!(
            "unknown congestion controller {name:?}; available: {}",
            registry()
                .iter()
                .map(|i| i.name)
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

/// Parse integer parameters: every key of `p` must be named in `spec`
/// (name, default, min, max); values must be whole numbers in range.
pub(crate) fn int_params<const N: usize>(
    ctrl: &str,
    p: &CcParams,
    spec: [(&str, u32, u32, u32); N],
) -> Result<[u32; N], String> {
    if let Some(k) = p.keys().find(|k| !spec.iter().any(|s| s.0 == k.as_str())) {
        let names: Vec<&str> = spec.iter().map(|s| s.0).collect();
        return Err(format!(
            "controller {ctrl} has no parameter {k:?} (it takes: {})",
            if names.is_empty() {
                "none".to_string()
            } else {
                names.join(", ")
            }
        ));
    }
    let mut out = [0u32; N];
    for (o, (name, default, lo, hi)) in out.iter_mut().zip(spec) {
        *o = match p.get(name) {
            None => default,
            Some(&v) => {
                if !(v.is_finite() && v.fract() == 0.0 && v >= lo as f64 && v <= hi as f64) {
                    return Err(format!(
                        "{ctrl}: parameter {name} = {v} must be a whole number in {lo}..={hi}"
                    ));
                }
                v as u32
            }
        };
    }
    Ok(out)
}

/// Reject parameters a controller does not have.
pub(crate) fn no_params(name: &str, params: &CcParams) -> Result<(), String> {
    match params.keys().next() {
        Some(k) => Err(format!(
            "controller {name} has no parameter {k:?} (it takes none)"
        )),
        None => Ok(()),
    }
}
