//! What a run produces: per-flow and per-link summaries over the measurement
//! window, and optional traces as columns.

/// Facts about the run itself.
#[derive(Clone, Debug, Default)]
pub struct Meta {
    /// The scenario's name.
    pub name: String,
    /// The seed used.
    pub seed: u64,
    /// Simulated duration, seconds.
    pub duration_s: f64,
    /// Measurement window start, seconds.
    pub measure_start_s: f64,
    /// Measurement window end, seconds.
    pub measure_end_s: f64,
    /// Events processed.
    pub events: u64,
    /// Packets created (data segments, ACKs, SYNs...).
    pub packets: u64,
    /// Wall-clock time of the simulation proper, seconds.
    pub wall_s: f64,
    /// tcplab version.
    pub version: String,
    /// What ran it: `sim` (the simulator) or `linux` (real Linux TCP through
    /// the link emulator).
    pub backend: String,
    /// Facts a reader of the results needs: for the linux backend, the
    /// kernel, and each scenario setting the real stack did not apply.
    pub notes: Vec<String>,
    /// The linux backend's emulator missed its timing by more than 1 % on
    /// some link (see the timing table); always false for the simulator.
    pub timing_flagged: bool,
}

/// One flow's results. Rates and RTT statistics are over the measurement window.
#[derive(Clone, Debug, Default)]
pub struct FlowResult {
    /// Flow name.
    pub name: String,
    /// Sending host name.
    pub src: String,
    /// Receiving host name.
    pub dst: String,
    /// Congestion controller of the sender.
    pub cc: String,
    /// Host profile of the sender.
    pub profile: String,
    /// When the flow started (SYN sent), seconds.
    pub start_s: f64,
    /// Application bytes delivered in order to the receiver in the window, * 8 / window.
    pub goodput_bps: f64,
    /// Application bytes delivered in the window.
    pub bytes_delivered_window: u64,
    /// Application bytes delivered over the whole run.
    pub bytes_delivered: u64,
    /// Mean RTT sample, seconds (NaN when there is none).
    pub rtt_mean_s: f64,
    /// Median RTT sample, seconds.
    pub rtt_p50_s: f64,
    /// 95th percentile RTT, seconds.
    pub rtt_p95_s: f64,
    /// 99th percentile RTT, seconds.
    pub rtt_p99_s: f64,
    /// RTT samples taken in the window.
    pub rtt_samples: u64,
    /// Data segments sent (first transmissions and retransmissions), whole run.
    pub segs_sent: u64,
    /// Data segments retransmitted, whole run.
    pub segs_retrans: u64,
    /// Fast retransmits (entries into fast recovery), whole run.
    pub fast_retransmits: u64,
    /// Retransmission timeouts, whole run.
    pub timeouts: u64,
    /// Window reductions undone as spurious, whole run.
    pub undos: u64,
    /// Timeouts whose first retransmission brought the receiver data it
    /// already had (spurious, whether or not undo is on), whole run.
    pub spurious_timeouts: u64,
    /// Tail loss probes sent (`tlp`), whole run.
    pub loss_probes: u64,
    /// Losses a probe repaired, each with one window reduction, whole run.
    pub tlp_recoveries: u64,
    /// Times the receiver dropped its whole out-of-order queue for want of
    /// buffer (`mem_limit`, Linux 2.2's prune), whole run.
    pub ooo_prunes: u64,
    /// Bytes of out-of-order data so dropped.
    pub pruned_bytes: u64,
    /// Whether ECN was negotiated (both hosts enable it).
    pub ecn: bool,
    /// Window reductions in response to ECN-Echo, whole run.
    pub ecn_reductions: u64,
    /// Segments sent in the window.
    pub segs_sent_window: u64,
    /// Segments retransmitted in the window.
    pub segs_retrans_window: u64,
    /// Timeouts in the window.
    pub timeouts_window: u64,
    /// Whether a finite flow delivered all its bytes.
    pub completed: bool,
    /// Completion time of a finite flow (SYN sent to last byte delivered), seconds; NaN otherwise.
    pub fct_s: f64,
    /// Throughput of a completed transfer: its bytes * 8 / `fct_s`, bit/s; NaN otherwise.
    pub transfer_bps: f64,
    /// Payload bytes of a full segment (the MSS the sender uses).
    pub mss: u32,
    /// IP size of a full data segment, headers and options included, bytes.
    pub packet_bytes: u32,
    /// Data segments of the flow dropped by a queue or lost on a wire, whole run.
    pub data_drops: u64,
    /// Of which retransmissions.
    pub retrans_drops: u64,
    /// When the flow's first data segment was dropped, seconds (NaN: never).
    pub first_drop_s: f64,
    /// The link that dropped it (`from->to`; empty: none).
    pub first_drop_link: String,
    /// The sender's cwnd when it sent that segment, segments (0: none).
    pub first_drop_cwnd: u32,
    /// Whether the sender was in slow start when it sent that segment.
    pub first_drop_in_ss: bool,
    /// When a retransmission of a segment of the first drop's window (sent
    /// before that drop) was first dropped, seconds (NaN: never).
    pub retrans_drop_s: f64,
    /// The link that dropped it (empty: none).
    pub retrans_drop_link: String,
    /// When the sender first reduced its window for a loss, seconds (NaN: never).
    pub first_reduction_s: f64,
    /// What that first reduction was: `fast_retransmit`, `timeout` or empty.
    pub first_reduction: String,
    /// cwnd just before it, segments.
    pub first_reduction_cwnd: u32,
    /// Whether the sender was in slow start just before it.
    pub first_reduction_in_ss: bool,
    /// The first reduction came in slow start and a second slow start then
    /// took cwnd back up to the ssthresh it set, before any later timeout
    /// (Barakat & Altman's double slow start).
    pub double_slow_start: bool,
}

/// One simplex link's results over the measurement window.
#[derive(Clone, Debug, Default)]
pub struct LinkResult {
    /// `from->to`.
    pub name: String,
    /// Sending node.
    pub from: String,
    /// Receiving node.
    pub to: String,
    /// Rate, bits per second.
    pub rate_bps: u64,
    /// Propagation delay, seconds.
    pub delay_s: f64,
    /// Fraction of the window the transmitter was busy (framing included).
    pub utilisation: f64,
    /// IP bytes serialised in the window * 8 / window.
    pub throughput_bps: f64,
    /// Packets serialised in the window.
    pub pkts_sent: u64,
    /// Packets dropped by the queue in the window.
    pub drops: u64,
    /// Packets the queue marked CE (ECN) instead of dropping, in the window.
    pub marks: u64,
    /// Packets lost on the wire (the link's loss model) in the window.
    pub lost: u64,
    /// Time-averaged queue length in the window, packets.
    pub mean_queue_pkts: f64,
    /// Mean queueing delay (enqueue to start of serialisation) of packets sent in the window, seconds.
    pub mean_sojourn_s: f64,
    /// Largest queueing delay of a packet over the whole run, seconds.
    pub max_sojourn_s: f64,
    /// The queue discipline.
    pub qdisc: String,
    /// The queue's limit in packets (0 when it is in bytes).
    pub queue_limit_pkts: u64,
    /// The queue's limit in bytes (0 when it is in packets).
    pub queue_limit_bytes: u64,
}

/// One loss episode of a scenario flow: from its first fast retransmit or
/// timeout to its return to the Open state.
#[derive(Clone, Debug, Default)]
pub struct EpisodeResult {
    /// Flow name.
    pub flow: String,
    /// Its row in the flows table.
    pub flow_index: u32,
    /// When it began, seconds.
    pub start_s: f64,
    /// When it ended, seconds (NaN: still going at the end of the run).
    pub end_s: f64,
    /// How it began: `fast_retransmit` or `timeout`.
    pub kind: String,
    /// cwnd just before it, segments.
    pub cwnd_before: u32,
    /// The ssthresh it set, segments.
    pub ssthresh: u32,
    /// Timeouts in it.
    pub timeouts: u32,
    /// Segments retransmitted in it.
    pub retrans: u64,
    /// cwnd when it ended, segments.
    pub cwnd_after: u32,
}

/// One finite connection started by a traffic generator.
#[derive(Clone, Debug, Default)]
pub struct TransferResult {
    /// Index of the generator (row of the generators table).
    pub generator: u32,
    /// Arrival number within its generator (0, 1, ...).
    pub seq: u64,
    /// Sending host.
    pub src: String,
    /// Receiving host.
    pub dst: String,
    /// Application bytes.
    pub size_bytes: u64,
    /// SYN sent, seconds.
    pub start_s: f64,
    /// Response time: SYN sent to last byte delivered, seconds (NaN if unfinished).
    pub fct_s: f64,
    /// Whether every byte was delivered before the end of the run.
    pub completed: bool,
    /// Data segments sent (retransmissions included).
    pub segs_sent: u64,
    /// Data segments retransmitted.
    pub segs_retrans: u64,
    /// Retransmission timeouts (SYN timeouts included).
    pub timeouts: u64,
    /// Mean RTT sample, seconds (NaN when there is none).
    pub rtt_mean_s: f64,
}

/// A host's stage (`bus_rate`, `packet_cost`...) over the whole run; hosts
/// without one have no row.
#[derive(Clone, Debug, Default)]
pub struct HostResult {
    /// Host name.
    pub name: String,
    /// Packets it served, sent and received.
    pub packets: u64,
    /// Fraction of the run the stage was busy.
    pub utilisation: f64,
    /// Packets to send dropped by its full device queue (`tx_queue`).
    pub tx_drops: u64,
    /// Received packets dropped by its full backlog (`rx_queue`).
    pub rx_drops: u64,
}

/// The link emulator's timing on one simplex link (linux backend only).
#[derive(Clone, Debug, Default)]
pub struct TimingResult {
    /// `from->to`.
    pub link: String,
    /// Packets the link delivered to a host (written to its TUN device).
    pub delivered: u64,
    /// Lateness of those writes behind the ideal schedule: mean, seconds.
    pub lateness_mean_s: f64,
    /// Median lateness, seconds.
    pub lateness_p50_s: f64,
    /// 99th percentile, seconds.
    pub lateness_p99_s: f64,
    /// 99.9th percentile, seconds.
    pub lateness_p999_s: f64,
    /// The rate a receiver sees against the configured one: over consecutive
    /// deliveries less than 10 ms apart, the sum of |actual gap - ideal gap|
    /// over the sum of ideal gaps (0 when there were none).
    pub rate_error: f64,
    /// Mean lateness over the shortest one-way delay of a path ending on the
    /// link (propagation and serialisation of a full packet on each hop).
    pub delay_error: f64,
    /// rate_error or delay_error above 1 %.
    pub flagged: bool,
    /// Packets the destination's TUN device refused.
    pub write_failures: u64,
    /// Data segments this link delivered in the measurement window whose
    /// receiver's ACK (ending exactly at the segment, read back within 5 ms)
    /// was timed.
    pub acks_timed: u64,
    /// Lag from writing such a segment to reading its ACK: 10th, 50th and
    /// 90th percentiles, seconds (NaN when none was timed). The receiving
    /// host's turnaround: stack, application wakeup and read, the
    /// emulator's own reading.
    pub ack_lag_p10_s: f64,
    /// See `ack_lag_p10_s`.
    pub ack_lag_p50_s: f64,
    /// See `ack_lag_p10_s`.
    pub ack_lag_p90_s: f64,
    /// The ACK lag's 99th percentile: the scheduler's tail (`read_tail`).
    pub ack_lag_p99_s: f64,
    /// The ACK lag's 99.9th percentile (see `ack_lag_p99_s`).
    pub ack_lag_p999_s: f64,
    /// Receivers' pure ACKs this link delivered to their senders in the
    /// measurement window that were followed, within 5 ms, by a data
    /// segment of the same flow from the sender (each ACK once).
    pub sends_timed: u64,
    /// Lag from writing such an ACK to reading the sender's next data
    /// segment: 10th, 50th and 90th percentiles, seconds (NaN when none).
    /// Its low percentiles are the sending host's turnaround (its stack
    /// from the ACK in to the segment out, the emulator's own reading);
    /// pacing and a full window make the rest.
    pub send_lag_p10_s: f64,
    /// See `send_lag_p10_s`.
    pub send_lag_p50_s: f64,
    /// See `send_lag_p10_s`.
    pub send_lag_p90_s: f64,
    /// Out-of-order data segments this link delivered in the measurement
    /// window that a SACK of the receiver answered at once (its first
    /// block ending at the segment's end, read back within 0.5 ms).
    pub sacks_now: u64,
    /// Lag from writing such a segment to reading that SACK: 10th, 50th
    /// and 90th percentiles, seconds: the receiving host's turnaround
    /// without its application.
    pub sack_now_p10_s: f64,
    /// See `sack_now_p10_s`.
    pub sack_now_p50_s: f64,
    /// See `sack_now_p10_s`.
    pub sack_now_p90_s: f64,
    /// The same for SACKs read back 0.5 to 5 ms after the segment: held
    /// by Linux's SACK compression (`tcp_comp_sack_delay_ns`, 1 ms at
    /// most, on an hrtimer with `tcp_comp_sack_slack_ns` of slack).
    pub sacks_held: u64,
    /// See `sacks_held`: 10th percentile of their lag, seconds.
    pub sack_held_p10_s: f64,
    /// See `sacks_held`: median, seconds.
    pub sack_held_p50_s: f64,
    /// See `sacks_held`: 90th percentile, seconds.
    pub sack_held_p90_s: f64,
    /// Held SACKs timed from the segment that armed the receiver's
    /// SACK-compression timer (the first data segment written to it since
    /// its previous ACK): when the timer fired.
    pub sack_timers: u64,
    /// Their lag: 10th, 50th and 90th percentiles, seconds. Linux's timer
    /// is due at its hard expiry, min(1 ms, RTT / 20) + 100 us; what is
    /// beyond is the machine's lateness in running it.
    pub sack_timer_p10_s: f64,
    /// See `sack_timer_p10_s`.
    pub sack_timer_p50_s: f64,
    /// See `sack_timer_p10_s`.
    pub sack_timer_p90_s: f64,
}

/// A traffic generator: what it offers and what it started.
#[derive(Clone, Debug, Default)]
pub struct GeneratorResult {
    /// Name.
    pub name: String,
    /// Arrivals per second.
    pub rate: f64,
    /// Mean transfer size, bytes (exact, from the distribution).
    pub mean_size_bytes: f64,
    /// Offered load: rate x mean size x 8, bits per second.
    pub offered_bps: f64,
    /// Slowest link on the route of its host pairs (the smallest over pairs), bits per second.
    pub bottleneck_bps: f64,
    /// offered_bps / bottleneck_bps.
    pub offered_load: f64,
    /// Connections started.
    pub arrivals: u64,
    /// Connections that delivered every byte.
    pub completed: u64,
}

/// One flow over one phase of the measurement window.
#[derive(Clone, Debug, Default)]
pub struct PhaseResult {
    /// Flow name (as in the flows table).
    pub flow: String,
    /// Flow index (row of the flows table, from 0).
    pub flow_index: u32,
    /// Phase index, 0 from the start of the measurement window.
    pub phase: u32,
    /// Phase start, seconds.
    pub start_s: f64,
    /// Phase end, seconds.
    pub end_s: f64,
    /// Application bytes delivered in the phase * 8 / its length.
    pub goodput_bps: f64,
    /// Application bytes delivered in order to the receiver in the phase.
    pub bytes_delivered: u64,
    /// Data segments sent in the phase (first transmissions and retransmissions).
    pub segs_sent: u64,
    /// Data segments retransmitted in the phase.
    pub segs_retrans: u64,
    /// Retransmission probability: `segs_retrans / segs_sent` of the phase, the
    /// fraction of the data segments the sender put on the wire in the phase that
    /// were retransmissions; NaN when it sent none.
    pub retrans_prob: f64,
    /// Retransmission timeouts in the phase.
    pub timeouts: u64,
}

/// One simplex link over one phase of the measurement window: the links
/// table's window columns, restricted to the phase.
#[derive(Clone, Debug, Default)]
pub struct LinkPhaseResult {
    /// Link name, `from->to` (as in the links table): one direction.
    pub link: String,
    /// Link index (row of the links table, from 0).
    pub link_index: u32,
    /// Phase index, 0 from the start of the measurement window.
    pub phase: u32,
    /// Phase start, seconds.
    pub start_s: f64,
    /// Phase end, seconds.
    pub end_s: f64,
    /// Fraction of the phase the transmitter was busy (framing included); a
    /// transmission across a boundary counts in each phase for its part in it.
    pub utilisation: f64,
    /// IP bytes whose serialisation started in the phase * 8 / its length.
    pub throughput_bps: f64,
    /// IP bytes whose serialisation started in the phase.
    pub bytes_sent: u64,
    /// Packets whose serialisation started in the phase.
    pub pkts_sent: u64,
    /// Packets dropped by the queue in the phase.
    pub drops: u64,
    /// Packets the queue marked CE instead of dropping, in the phase.
    pub marks: u64,
    /// Packets lost on the wire in the phase.
    pub lost: u64,
    /// Time-averaged queue length over the phase, packets.
    pub mean_queue_pkts: f64,
    /// Mean queueing delay of the packets sent in the phase, seconds (NaN if none).
    pub mean_sojourn_s: f64,
}

/// Sampled congestion state of every flow.
#[derive(Clone, Debug, Default)]
pub struct CwndTrace {
    /// Sample time, seconds.
    pub time_s: Vec<f64>,
    /// Flow index (row of the flows table).
    pub flow: Vec<u32>,
    /// Congestion window, segments.
    pub cwnd: Vec<u32>,
    /// Slow-start threshold, segments (u32::MAX when unset).
    pub ssthresh: Vec<u32>,
    /// Smoothed RTT, seconds (NaN before the first sample).
    pub srtt_s: Vec<f64>,
    /// Bytes in flight.
    pub inflight_bytes: Vec<u64>,
    /// Retransmission timeout, backoff included, seconds.
    pub rto_s: Vec<f64>,
    /// Consecutive backoffs of the RTO.
    pub backoff: Vec<u32>,
    /// Pacing rate, bits per second (NaN when the sender does not pace).
    pub pacing_rate_bps: Vec<f64>,
    /// Congestion-avoidance state, Linux's numbers: 0 open, 1 disorder,
    /// 2 CWR, 3 recovery, 4 loss.
    pub ca_state: Vec<u32>,
    /// The controller's bandwidth estimate, bits per second (BBR; NaN for
    /// controllers without one).
    pub cc_bw_bps: Vec<f64>,
    /// The controller's min-RTT estimate, seconds (BBR; NaN otherwise or
    /// before a sample).
    pub cc_min_rtt_s: Vec<f64>,
    /// The controller's pacing gain (BBR; NaN otherwise).
    pub cc_pacing_gain: Vec<f64>,
    /// The controller's congestion-window gain (BBR; NaN otherwise).
    pub cc_cwnd_gain: Vec<f64>,
}

impl CwndTrace {
    /// Append a controller's model (`None`: NaN in each column), in the
    /// units of Linux's `struct tcp_bbr_info`: bytes per second, µs
    /// (`u32::MAX`: no sample yet) and gains in 1/256.
    pub fn push_model(&mut self, m: Option<tcplab_tcp::cc::CcModel>) {
        let (bw, rtt, pg, cg) = match m {
            Some(m) => (
                m.bw as f64 * 8.0,
                if m.min_rtt_us == u32::MAX {
                    f64::NAN
                } else {
                    m.min_rtt_us as f64 * 1e-6
                },
                m.pacing_gain as f64 / 256.0,
                m.cwnd_gain as f64 / 256.0,
            ),
            None => (f64::NAN, f64::NAN, f64::NAN, f64::NAN),
        };
        self.cc_bw_bps.push(bw);
        self.cc_min_rtt_s.push(rtt);
        self.cc_pacing_gain.push(pg);
        self.cc_cwnd_gain.push(cg);
    }
}

/// Every RTT sample taken by every sender.
#[derive(Clone, Debug, Default)]
pub struct RttTrace {
    /// Sample time, seconds.
    pub time_s: Vec<f64>,
    /// Flow index.
    pub flow: Vec<u32>,
    /// The RTT sample, seconds.
    pub rtt_s: Vec<f64>,
}

/// Sampled queue occupancy of every link.
#[derive(Clone, Debug, Default)]
pub struct QueueTrace {
    /// Sample time, seconds.
    pub time_s: Vec<f64>,
    /// Link index (row of the links table).
    pub link: Vec<u32>,
    /// Packets waiting.
    pub pkts: Vec<u32>,
    /// Bytes waiting.
    pub bytes: Vec<u64>,
}

/// The optional traces.
#[derive(Clone, Debug, Default)]
pub struct Traces {
    /// Present when the scenario asks for `trace.cwnd`.
    pub cwnd: Option<CwndTrace>,
    /// Present when the scenario asks for `trace.rtt`.
    pub rtt: Option<RttTrace>,
    /// Present when the scenario asks for `trace.queue`.
    pub queue: Option<QueueTrace>,
}

/// Everything one run produces.
#[derive(Clone, Debug, Default)]
pub struct RunResult {
    /// Facts about the run.
    pub meta: Meta,
    /// One row per flow, in scenario order.
    pub flows: Vec<FlowResult>,
    /// One row per simplex link, in scenario order (a duplex link gives two rows).
    pub links: Vec<LinkResult>,
    /// One row per flow and phase of the measurement window.
    pub phases: Vec<PhaseResult>,
    /// One row per simplex link and phase of the measurement window.
    pub link_phases: Vec<LinkPhaseResult>,
    /// One row per traffic generator.
    pub generators: Vec<GeneratorResult>,
    /// One row per connection started by a generator.
    pub transfers: Vec<TransferResult>,
    /// One row per loss episode of a scenario flow.
    pub episodes: Vec<EpisodeResult>,
    /// One row per host with a stage.
    pub hosts: Vec<HostResult>,
    /// One row per simplex link: the emulator's timing (linux backend only).
    pub timing: Vec<TimingResult>,
    /// Packet captures: (link name, pcap file bytes), for the links
    /// `[trace] pcap` names.
    pub pcap: Vec<(String, Vec<u8>)>,
    /// Optional traces.
    pub traces: Traces,
}

/// A controller, queue discipline or profile as `tcplab list` shows it.
#[derive(Clone, Debug, Default)]
pub struct CatalogEntry {
    /// Name used in scenario files.
    pub name: String,
    /// One-line description.
    pub description: String,
    /// Where the algorithm or defaults come from.
    pub source: String,
    /// Parameters or settings as (name, value or default, meaning).
    pub params: Vec<(String, String, String)>,
}

/// Everything a scenario can name.
#[derive(Clone, Debug, Default)]
pub struct Catalog {
    /// Congestion controllers.
    pub controllers: Vec<CatalogEntry>,
    /// Queue disciplines.
    pub queues: Vec<CatalogEntry>,
    /// Host profiles.
    pub profiles: Vec<CatalogEntry>,
}
