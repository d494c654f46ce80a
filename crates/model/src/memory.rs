//! The memory a run needs, estimated from the scenario before anything is
//! built: what grows with the scenario (nodes, links, routes, flows and what
//! they send, generators' connections, traces, captures, histograms, phases,
//! results tables) as parts, each naming the scenario field that drives it,
//! so that a refusal can say what to change.
//!
//! Sizes of the core's own structures are `size_of` of them; the rest (what a
//! row of a results table costs once handed to Python: lists, a polars frame,
//! summary.json) was measured as the peak resident memory of `tcplab run` in
//! a subprocess over scenarios differing in one count only
//! (tools/memory_calibration.py). Traffic-driven counts (packets in flight,
//! RTT samples, captured packets, loss episodes, concurrent connections) come
//! from a fluid model: each flow gets the smallest of its path's link rates
//! divided by the flows crossing the link, capped by its window over its RTT;
//! a generator's connections in progress follow M/G/1 processor sharing (mean
//! number in the system rho / (1 - rho): Kleinrock, Queueing Systems II,
//! 1976, section 4.4), growing by the excess when overloaded. The estimate
//! aims at a factor of two of the measured peak (docs/scenarios.md, "Memory").

use crate::schema::{QueueKind, Scenario, StartSpec};
use std::collections::HashMap;
use std::mem::size_of;
use tcplab_engine::SimTime;
use tcplab_net::QueueLimit;

/// One component of the estimate.
#[derive(Clone, Debug, PartialEq)]
pub struct MemoryPart {
    /// What it is, with its count: "cwnd trace: 1e12 samples (1 flow every 1ns for 1000s)".
    pub what: String,
    /// The scenario field that drives it (`trace.interval`, `traffic[0].rate`,
    /// `flow`), or empty for what no field changes.
    pub field: String,
    /// That field's value as written ("1ns", "1e9 connections/s", "100000 flows").
    pub value: String,
    /// Bytes.
    pub bytes: u64,
    /// How the part grows with the field: 1 in proportion to it, -1 in
    /// inverse proportion (an interval), 0 not by scaling a number.
    pub scaling: i8,
    /// The field's value as a number, in `unit`.
    pub number: f64,
    /// The unit of `number` ("s", "connections/s", "flows", "packets").
    pub unit: String,
}

/// The estimate of a run: its parts and their peak together.
#[derive(Clone, Debug, PartialEq)]
pub struct MemoryEstimate {
    /// Bytes at the peak: the process's base, plus the larger of reading the
    /// file and running (the file's document is freed before the run).
    pub total: u64,
    /// Of the run's part, what the core's heap holds at its peak (without
    /// the process, the file's reading and the results' Python objects).
    pub core: u64,
    /// The parts, largest first.
    pub parts: Vec<MemoryPart>,
}

/// The process itself: the interpreter, numpy, polars, rich and the core,
/// with a small run's tables (`tcplab run` of braud2016's long-lived
/// scenario peaks at 40 MB resident since it writes its tables without
/// polars; 82 MB before).
const BASE: f64 = 40e6;
/// Reading a scenario file: the TOML document and its deserialisation, per
/// byte of text (80 MB of `[[flow]]` tables peak at 5 GB).
const PARSE_PER_BYTE: f64 = 62.0;
/// A results row handed to Python (lists of Python objects per column, a
/// polars frame, and for the tables summary.json holds, a dict per row and
/// its JSON text, most of it), beyond the core's own: per row of the flows
/// table (47 columns), of the links table (17), of phases and link_phases
/// (11, 14), transfers (12, not in summary.json), episodes (11), and per trace
/// row. Measured: 18.1 kB per flow of 1000 bytes (20,000 and 80,000 flows,
/// before summary.json left tables of more than 10,000 rows out; 6.6 kB since),
/// 17.6 kB per host on a router (two links each), 3.2 kB per flow and phase,
/// 507 B per generated connection, all in total, less the core's part;
/// since the core writes the tables (Parquet from Python's columns, one
/// column converted at a time, a trace's names from their codes): 106, 58
/// and 62 B per cwnd, queue and RTT sample, 3.4 kB per host on a router,
/// 7.1 kB per flow.
const PY_FLOW_ROW: f64 = 1_500.0;
/// What a flows row costs on top while summary.json holds it (its dict and
/// JSON text): only the first `SUMMARY_MAX_ROWS` rows. Measured with the
/// cap (the same experiment, 20,000 and 80,000 flows, both above it):
/// 6.6 kB per flow in all, against 18.1 kB when summary.json held every
/// row, so a row beyond the cap costs 11.5 kB less.
const PY_SUMMARY_FLOW_ROW: f64 = 12_500.0;
/// Tables longer than this are left out of summary.json (Parquet only;
/// `tcplab.results` reads it from here).
pub const SUMMARY_MAX_ROWS: usize = 10_000;
const PY_LINK_ROW: f64 = 500.0;
/// What a links row costs on top while summary.json holds it (the first
/// `SUMMARY_MAX_ROWS` rows; see `PY_SUMMARY_FLOW_ROW`).
const PY_SUMMARY_LINK_ROW: f64 = 3_500.0;
const PY_PHASE_ROW: f64 = 3_000.0;
const PY_TRANSFER_ROW: f64 = 250.0;
const PY_EPISODE_ROW: f64 = 600.0;
const PY_TRACE_CWND_ROW: f64 = 86.0;
const PY_TRACE_QUEUE_ROW: f64 = 34.0;
const PY_TRACE_RTT_ROW: f64 = 32.0;
/// A captured packet's record in the pcap file (16-byte record header, the
/// Ethernet, IP and TCP headers with options: 82 bytes measured for data
/// segments and ACKs with timestamps).
const PCAP_RECORD: f64 = 82.0;
/// Copies of a capture at the peak: the core's buffer, and the Python bytes
/// object it becomes while the core's is still held (1.73 measured).
const PCAP_COPIES: f64 = 1.75;
/// Per packet in the network: its slot in the pool, its place on a link's
/// wire or queue (32 bytes, grown by doubling) and its events.
const PACKET: f64 =
    (size_of::<tcplab_net::Packet<tcplab_tcp::TcpHeader>>() + 4 + 2 * 32 + 2 * 32) as f64;
/// Per segment a sender holds outstanding (its scoreboard entry, grown by doubling).
const SEGMENT: f64 = 2.0 * size_of::<tcplab_tcp::scoreboard::Seg>() as f64;
/// A controller's state (the largest, Cubic's and Compound's, about this).
const CONTROLLER: f64 = 256.0;
/// A connection's state: its sender, receiver, controller, timers and first
/// scoreboard (crate::world::FlowState and its boxes).
const CONNECTION: f64 =
    (size_of::<tcplab_tcp::Sender>() + size_of::<tcplab_tcp::Receiver>() + 200 + 2 * 16 + 4 * 64)
        as f64
        + CONTROLLER;
/// A scenario flow beyond its connection: its spec and name, its results row
/// and strings, RTT summary, events and slots.
const STATIC_FLOW: f64 = (size_of::<crate::schema::FlowSpec>()
    + size_of::<crate::FlowResult>()
    + 8 * 24
    + 32
    + 56
    + 3 * 2 * 32
    + 8) as f64;
/// A generated connection's row of the transfers table in the core (and the
/// sort's scratch), and its id's slot.
const TRANSFER_ROW: f64 = (2 * size_of::<crate::TransferResult>() + 2 * 24 + 2 * 4) as f64;
/// A node: its spec and name, its host stage slot, its routing entries.
const NODE: f64 = (size_of::<crate::schema::HostSpec>() + 48 + 144 + 48) as f64;
/// A simplex link: its spec, its state and queue discipline, its results row
/// and strings (the per-phase parts come on top).
const LINK: f64 = (size_of::<crate::schema::LinkSpec>()
    + size_of::<tcplab_net::Link>()
    + 128
    + size_of::<crate::LinkResult>()
    + 4 * 24) as f64;
/// A link's snapshot and row per phase boundary.
const LINK_PHASE: f64 = (160 + size_of::<crate::LinkPhaseResult>() + 24) as f64;
/// A flow's snapshot and row per phase.
const FLOW_PHASE: f64 =
    (size_of::<(u64, tcplab_tcp::SenderStats)>() + size_of::<crate::PhaseResult>() + 24) as f64;
/// A loss episode: the sender's record and the results row.
const EPISODE: f64 = (48 + size_of::<crate::EpisodeResult>() + 2 * 24) as f64;
/// Trace rows in the core: cwnd (14 columns), queue (4), RTT (3); the RTT
/// trace grows by doubling.
const CWND_ROW: f64 = 92.0;
const QUEUE_ROW: f64 = 24.0;
const RTT_ROW: f64 = 1.5 * 20.0;
/// Buckets of an RTT histogram beyond its range (it grows by a quarter).
const HISTOGRAM_ROOM: f64 = 64.0;

/// Seconds of a time.
fn secs(t: SimTime) -> f64 {
    t.as_secs_f64()
}

/// A count for a message: "12", "1.20e6".
fn count(x: f64) -> String {
    if x < 1e6 {
        format!("{}", x.round() as u64)
    } else {
        format!("{x:.2e}")
    }
}

/// A count of things: "1 flow", "3 flows".
fn things(x: f64, one: &str, many: &str) -> String {
    format!("{} {}", count(x), if x == 1.0 { one } else { many })
}

/// A number as a scenario writes it: "20", "0.5", "1e9".
fn number(x: f64) -> String {
    if x.abs() >= 1e6 {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

/// When a flow starts, a uniform draw taken at its middle.
fn mid_start(start: StartSpec) -> SimTime {
    match start {
        StartSpec::At(t) => t,
        StartSpec::Uniform(a, b) => SimTime(a.0 / 2 + b.0 / 2),
    }
}

/// Flows that behave alike: (source, destination, start, size, stop).
type FlowKey = (u32, u32, u64, Option<u64>, Option<u64>);

/// A generator's traffic: the share of its connections each link carries
/// (data, then ACKs), and the segments it sends.
type Generated = (HashMap<u32, f64>, HashMap<u32, f64>, f64);

/// What one scenario flow (or a group of identical ones) does, in the fluid model.
struct FlowModel {
    /// Identical flows (same hosts, start, size, stop).
    n: f64,
    /// Its forward path (data) and reverse path (ACKs).
    path: Vec<u32>,
    back: Vec<u32>,
    /// Round-trip propagation, seconds.
    rtt: f64,
    /// Bits per second it gets.
    rate: f64,
    /// Seconds it runs in the measurement window.
    active: f64,
    /// Data segments it sends, and their size in bytes.
    segments: f64,
    mss: f64,
    /// Its window, segments, at most.
    window: f64,
    /// Segments per ACK, and per RTT sample.
    per_ack: f64,
    per_sample: f64,
    /// The sender's minimum RTO, seconds.
    min_rto: f64,
    /// RTT histogram buckets.
    buckets: f64,
    /// Loss episodes.
    episodes: f64,
}

/// The estimate of a run of `sc`, read from a file of `text_len` bytes.
pub fn estimate(sc: &Scenario, text_len: usize) -> MemoryEstimate {
    let routing = crate::build_routing(sc);
    let end = secs(sc.measure_end);
    let n_links = sc.links.len() as f64;
    let n_phases = (sc.phases.len() - 1) as f64;
    let mut parts: Vec<MemoryPart> = Vec::new();
    let mut core = 0.0;
    // A part: (core bytes, Python bytes).
    let mut part = |what: String,
                    field: &str,
                    value: String,
                    (in_core, in_python): (f64, f64),
                    scaling: i8,
                    number: f64,
                    unit: &str| {
        core += in_core;
        parts.push(MemoryPart {
            what,
            field: field.to_string(),
            value,
            bytes: (in_core + in_python).clamp(0.0, u64::MAX as f64 / 4.0) as u64,
            scaling,
            number,
            unit: unit.to_string(),
        });
    };

    // Nodes, links, routes.
    let nodes = sc.nodes.len() as f64;
    part(
        "hosts' and routers' settings and state".to_string(),
        "host",
        format!("{} hosts and routers", count(nodes)),
        (nodes * NODE, 0.0),
        1,
        nodes,
        "nodes",
    );
    let fq_buckets: f64 = sc
        .links
        .iter()
        .map(|l| match l.queue.kind {
            QueueKind::FqCodel(_, _, flows, _) => flows as f64 * 80.0,
            _ => 0.0,
        })
        .sum();
    part(
        format!(
            "the links' state, queues and results rows ({} in links, {} in link_phases)",
            count(n_links),
            count(n_links * n_phases)
        ),
        "link",
        format!("{} simplex links", count(n_links)),
        (
            n_links * LINK + n_links * (n_phases + 1.0) * LINK_PHASE + fq_buckets,
            n_links * PY_LINK_ROW
                + n_links.min(SUMMARY_MAX_ROWS as f64) * PY_SUMMARY_LINK_ROW
                + n_links * n_phases * PY_PHASE_ROW,
        ),
        1,
        n_links,
        "links",
    );
    let routes = routing.dimensions().bytes(sc.nodes.len(), sc.routes.len());
    part(
        format!(
            "routing table: {} rows x {} columns",
            count(routing.dimensions().rows as f64),
            count(routing.dimensions().cols as f64 + 1.0)
        ),
        "router",
        format!("{} routers", count(nodes - sc.hosts.len() as f64)),
        (routes as f64, 0.0),
        0,
        0.0,
        "",
    );

    // Scenario flows in the fluid model, grouped by what they share.
    let mut groups: HashMap<FlowKey, f64> = HashMap::new();
    for f in &sc.flows {
        let start = mid_start(f.start).0;
        *groups
            .entry((f.src, f.dst, start, f.size, f.stop.map(|t| t.0)))
            .or_default() += 1.0;
    }
    let mut keys: Vec<_> = groups.keys().copied().collect();
    keys.sort_unstable();
    let mut crossing = vec![0.0f64; sc.links.len()];
    let mut models: Vec<FlowModel> = Vec::with_capacity(keys.len());
    for key in &keys {
        let (src, dst, start, size, stop) = *key;
        let n = groups[key];
        let (Ok(path), Ok(back)) = (routing.path(src, dst), routing.path(dst, src)) else {
            continue; // validation refused it already
        };
        for &l in &path {
            crossing[l as usize] += n;
        }
        let tcp = &sc.hosts[src as usize].tcp;
        let rcv = &sc.hosts[dst as usize].tcp;
        let mss = tcp.mss.min(rcv.mss).max(1) as f64;
        let rtt: f64 = path
            .iter()
            .chain(&back)
            .map(|&l| {
                secs(sc.links[l as usize].delay)
                    + 1500.0 * 8.0 / sc.links[l as usize].rate_bps as f64
            })
            .sum::<f64>()
            .max(1e-6);
        let mut window = (tcp.sndbuf.min(rcv.rcvbuf) as f64 / mss).max(1.0);
        for cap in [tcp.max_cwnd, tcp.window] {
            if cap > 0 {
                window = window.min(cap as f64);
            }
        }
        let active =
            (stop.map_or(end, |s| secs(SimTime(s)).min(end)) - secs(SimTime(start))).max(0.0);
        models.push(FlowModel {
            n,
            path,
            back,
            rtt,
            rate: 0.0,
            active,
            segments: size.map_or(f64::INFINITY, |s| (s as f64 / mss).ceil()),
            mss,
            window,
            per_ack: rcv.delack_segments.max(1) as f64,
            // Without timestamps, "timed" sampling takes one segment per RTT.
            per_sample: if tcp.rtt_sampling == tcplab_tcp::rtt::RttSampling::Timed
                && !(tcp.timestamps && (rcv.timestamps || rcv.answer_timestamps))
            {
                window
            } else {
                rcv.delack_segments.max(1) as f64
            },
            min_rto: secs(tcp.min_rto),
            buckets: 0.0,
            episodes: 0.0,
        });
    }
    // Rates, windows, what is sent, losses.
    let mut packets = 0.0;
    let mut queued = vec![false; sc.links.len()];
    for m in &mut models {
        let mut rate = m.window * m.mss * 8.0 / m.rtt;
        let mut bottleneck = None;
        for &l in &m.path {
            let share = sc.links[l as usize].rate_bps as f64 / crossing[l as usize];
            if share < rate {
                rate = share;
                bottleneck = Some(l);
            }
        }
        m.rate = rate;
        m.segments = m.segments.min(rate * m.active / 8.0 / m.mss);
        let bdp = rate * m.rtt / 8.0 / m.mss;
        // Its share of the queue where it is bottlenecked, as that queue fills.
        let (queue_share, queue_delay) = match bottleneck {
            Some(b) => {
                let l = &sc.links[b as usize];
                let limit = queue_packets(l.queue.limit);
                queued[b as usize] = true;
                (
                    limit / crossing[b as usize],
                    limit * 1500.0 * 8.0 / l.rate_bps as f64,
                )
            }
            None => (0.0, 0.0),
        };
        let window = (bdp + queue_share).min(m.window).min(m.segments).max(1.0);
        packets += m.n * window * (1.0 + 1.0 / m.per_ack);
        if m.segments > 0.0 {
            m.buckets = ((m.rtt + queue_delay) / m.rtt).ln() / 1.001f64.ln() + HISTOGRAM_ROOM;
        }
        // A window-limited flow loses nothing; one the network limits loses
        // about once per sawtooth (half its window in round trips), or per
        // timeout when its window is too small for fast retransmits.
        if bottleneck.is_some() && m.segments > 0.0 {
            let period = if window < 4.0 {
                m.rtt.max(m.min_rto)
            } else {
                m.rtt * window / 2.0
            };
            m.episodes = (m.active / period).min(m.segments / window.max(1.0));
        }
        m.window = window;
    }
    let flows = sc.flows.len() as f64;
    if flows > 0.0 {
        let windows: f64 = models.iter().map(|m| m.n * m.window * SEGMENT).sum();
        let buckets: f64 = models.iter().map(|m| m.n * m.buckets * 4.0).sum();
        part(
            "the flows' state, statistics and results rows (summary.json included)".to_string(),
            "flow",
            format!("{} [[flow]] tables", count(flows)),
            (
                flows * (CONNECTION + STATIC_FLOW) + windows + buckets,
                flows * PY_FLOW_ROW + flows.min(SUMMARY_MAX_ROWS as f64) * PY_SUMMARY_FLOW_ROW,
            ),
            1,
            flows,
            "flows",
        );
        if n_phases > 1.0 {
            part(
                format!("phases: {} rows (flows x phases)", count(flows * n_phases)),
                "measure.phases",
                format!("{} phases", count(n_phases)),
                (
                    flows * n_phases * FLOW_PHASE,
                    flows * n_phases * PY_PHASE_ROW,
                ),
                1,
                n_phases,
                "phases",
            );
        }
        let episodes: f64 = models.iter().map(|m| m.n * m.episodes).sum();
        if episodes > 1000.0 {
            part(
                format!("loss episodes: about {} rows", count(episodes)),
                "duration",
                format!("\"{}\"", sc.duration),
                (episodes * EPISODE, episodes * PY_EPISODE_ROW),
                1,
                secs(sc.duration),
                "s",
            );
        }
    }
    // Packets: in flight and in the queues flows fill, bounded by every queue full.
    let all_full: f64 = sc
        .links
        .iter()
        .map(|l| queue_packets(l.queue.limit) + l.rate_bps as f64 * secs(l.delay) / 8.0 / 1500.0)
        .sum();
    let packets = packets.min(all_full.max(1.0));
    if packets * PACKET > 1e6 {
        let biggest = sc
            .links
            .iter()
            .enumerate()
            .filter(|(i, _)| queued[*i])
            .max_by(|a, b| {
                queue_packets(a.1.queue.limit).total_cmp(&queue_packets(b.1.queue.limit))
            });
        let (field, value) = match biggest {
            Some((_, l)) => (
                format!(
                    "queue of {}->{}",
                    sc.nodes[l.from as usize], sc.nodes[l.to as usize]
                ),
                match l.queue.limit {
                    QueueLimit::Packets(n) => format!("{n} packets"),
                    QueueLimit::Bytes(b) => format!("{b} bytes"),
                },
            ),
            None => ("flow".to_string(), format!("{} flows", count(flows))),
        };
        part(
            format!("packets in flight and queued: about {}", count(packets)),
            &field,
            value,
            (packets * PACKET, 0.0),
            0,
            0.0,
            "",
        );
    }

    // Generators: every connection's row, and those in progress at once.
    // Per generator: the share of its connections each link carries (data,
    // ACKs) and the segments it sends.
    let mut generated: Vec<Generated> = Vec::new();
    for (i, g) in sc.generators.iter().enumerate() {
        let rate = g.arrivals.rate();
        let span = (secs(g.stop.min(sc.measure_end)) - secs(g.start)).max(0.0);
        let total = rate * span;
        let mean_units = g.size.mean();
        let (a, b) = (g.from[0], g.to[0]);
        let unit = g.unit_bytes(&sc.hosts, a, b) as f64;
        let mean_bytes = (mean_units * unit).max(1.0);
        // The share of connections each link carries, from up to 32 x 32
        // host pairs spread over the lists (pairs are drawn uniformly), and
        // the mean round trip: the most loaded link sets the load.
        let spread = |hosts: &[u32]| -> Vec<u32> {
            let k = hosts.len().min(32);
            (0..k).map(|i| hosts[i * hosts.len() / k]).collect()
        };
        let (senders, receivers) = (spread(&g.from), spread(&g.to));
        let weight = 1.0 / (senders.len() * receivers.len()) as f64;
        let mut share: HashMap<u32, f64> = HashMap::new();
        let mut back_share: HashMap<u32, f64> = HashMap::new();
        let mut rtt = 0.0;
        for &a in &senders {
            for &b in &receivers {
                let path = routing.path(a, b).unwrap_or_default();
                let back = routing.path(b, a).unwrap_or_default();
                for &l in &path {
                    *share.entry(l).or_default() += weight;
                }
                for &l in &back {
                    *back_share.entry(l).or_default() += weight;
                }
                rtt += weight
                    * path
                        .iter()
                        .chain(&back)
                        .map(|&l| secs(sc.links[l as usize].delay))
                        .sum::<f64>();
            }
        }
        // The capacity the whole generator sees: its busiest link's rate
        // over the share of connections crossing it.
        let capacity = share
            .iter()
            .map(|(&l, &f)| sc.links[l as usize].rate_bps as f64 / f)
            .fold(f64::INFINITY, f64::min);
        let rho = rate * mean_bytes * 8.0 / capacity;
        let in_progress = if rho < 0.95 {
            rate * 4.0 * rtt + rho / (1.0 - rho)
        } else {
            // Overloaded: the excess piles up over the run.
            rate * 4.0 * rtt + 20.0 + (rate - 0.95 * capacity / (mean_bytes * 8.0)) * span
        }
        .min(total);
        let segments_each = (mean_bytes / unit.max(1.0)).max(1.0);
        generated.push((share, back_share, total * (segments_each + 3.0)));
        let window = segments_each.min(64.0);
        let bytes = (
            total * TRANSFER_ROW + in_progress * (CONNECTION + window * (SEGMENT + PACKET)),
            total * PY_TRANSFER_ROW,
        );
        let stop = if g.stop < sc.duration {
            format!(" until {}", g.stop)
        } else {
            String::new()
        };
        part(
            format!(
                "{} connections ({} per second from {}{stop}), about {} at once",
                count(total),
                number(rate),
                g.start,
                count(in_progress)
            ),
            &format!("traffic[{i}].rate"),
            number(rate),
            bytes,
            1,
            rate,
            "connections/s",
        );
    }

    // Traces.
    let interval = secs(sc.trace.interval).max(1e-9);
    let samples = (end / interval).floor() + 1.0;
    if sc.trace.cwnd && flows > 0.0 {
        let rows: f64 = sc
            .flows
            .iter()
            .map(|f| ((end - secs(mid_start(f.start))) / interval).max(0.0) + 1.0)
            .sum();
        let who = things(flows, "flow", "flows");
        interval_trace(
            &mut part,
            sc,
            "cwnd",
            rows,
            &who,
            (CWND_ROW, PY_TRACE_CWND_ROW),
        );
    }
    if sc.trace.queue {
        let who = things(n_links, "link", "links");
        let rows = samples * n_links;
        interval_trace(
            &mut part,
            sc,
            "queue",
            rows,
            &who,
            (QUEUE_ROW, PY_TRACE_QUEUE_ROW),
        );
    }
    if sc.trace.rtt {
        let rows: f64 = models.iter().map(|m| m.n * m.segments / m.per_sample).sum();
        part(
            format!("RTT trace: about {} samples (one per ACK)", count(rows)),
            "trace.rtt",
            "true".to_string(),
            (rows * RTT_ROW, rows * PY_TRACE_RTT_ROW),
            0,
            0.0,
            "",
        );
    }
    for &l in &sc.trace.pcap {
        let mut records = 0.0;
        for m in &models {
            if m.path.contains(&l) {
                records += m.n * m.segments;
            }
            if m.back.contains(&l) {
                records += m.n * m.segments / m.per_ack;
            }
        }
        let link = &sc.links[l as usize];
        // Generated connections crossing the link: their segments (and the
        // handshake's), their ACKs the other way.
        for (share, back, segments) in &generated {
            records += segments * share.get(&l).copied().unwrap_or(0.0);
            records += segments / 2.0 * back.get(&l).copied().unwrap_or(0.0);
        }
        let records = records.min(link.rate_bps as f64 * end / 8.0 / 40.0);
        let name = format!(
            "{}->{}",
            sc.nodes[link.from as usize], sc.nodes[link.to as usize]
        );
        part(
            format!("capture of {name}: about {} packets", count(records)),
            "trace.pcap",
            format!("{name:?}"),
            (
                records * PCAP_RECORD,
                records * PCAP_RECORD * (PCAP_COPIES - 1.0),
            ),
            0,
            0.0,
            "",
        );
    }

    // The peak: the base, and reading the file or running, whichever is larger.
    let run: u64 = parts.iter().map(|p| p.bytes).sum();
    let core = core as u64;
    let parse = (text_len as f64 * PARSE_PER_BYTE) as u64;
    parts.push(MemoryPart {
        what: format!("reading the file: {:.1} MB of TOML", text_len as f64 / 1e6),
        field: String::new(),
        value: String::new(),
        bytes: parse,
        scaling: 0,
        number: 0.0,
        unit: String::new(),
    });
    parts.push(MemoryPart {
        what: "the process: interpreter and libraries".to_string(),
        field: String::new(),
        value: String::new(),
        bytes: BASE as u64,
        scaling: 0,
        number: 0.0,
        unit: String::new(),
    });
    parts.sort_by_key(|p| std::cmp::Reverse(p.bytes));
    MemoryEstimate {
        total: (BASE as u64).saturating_add(run.max(parse)),
        core,
        parts,
    }
}

/// The part of a trace sampled every `trace.interval` (`rows` samples of
/// `who`, each costing `row` bytes in the core and `py_row` in Python): it
/// shrinks in inverse proportion to the interval.
fn interval_trace(
    part: &mut impl FnMut(String, &str, String, (f64, f64), i8, f64, &str),
    sc: &Scenario,
    name: &str,
    rows: f64,
    who: &str,
    (row, py_row): (f64, f64),
) {
    let interval = sc.trace.interval;
    part(
        format!(
            "{name} trace: {} samples ({who} every {interval} for {})",
            count(rows),
            sc.measure_end
        ),
        "trace.interval",
        format!("\"{interval}\""),
        (rows * row, rows * py_row),
        -1,
        secs(interval).max(1e-9),
        "s",
    );
}

/// Packets a queue of this limit holds when full (bytes in full-sized packets).
fn queue_packets(limit: QueueLimit) -> f64 {
    match limit {
        QueueLimit::Packets(n) => n as f64,
        QueueLimit::Bytes(b) => (b as f64 / 1500.0).ceil(),
    }
}
