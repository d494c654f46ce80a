//! The world: a scenario built into a network with TCP endpoints, the event
//! loop that runs it, and the probes that measure it.

use crate::results::*;
use crate::schema::{GeneratorSpec, HostSpec, LinkSpec, LossSpec, QueueKind, Scenario, StartSpec};
use tcplab_engine::{RngStream, Scheduler, SimTime};
use tcplab_net::qdisc::{
    Codel, CodelParams, DropFront, DropTail, FqCodel, FqCodelParams, Qdisc, RandomDrop, Red,
    RedParams,
};
use tcplab_net::{LinkConfig, LossModel, NetEvent, Network, NodeKind};
use tcplab_tcp::hostcache::HostCacheEntry;
use tcplab_tcp::{cc, Receiver, Sender, TcpHeader};

/// Events of the world.
#[derive(Clone, Copy, Debug)]
enum Ev {
    Net(NetEvent),
    /// Timers of endpoint `2 * flow + side` (side 0 sender, 1 receiver).
    Timer(u32),
    FlowStart(u32),
    /// The application of static flow `i` stops writing.
    FlowStop(u32),
    /// The next connection of generator `g`.
    Arrival(u32),
    Sample,
    /// Phase boundary `k` (0: the start of the measurement window).
    Phase(u32),
}

impl From<NetEvent> for Ev {
    fn from(e: NetEvent) -> Self {
        Ev::Net(e)
    }
}

/// Random stream ids: flows draw start times from stream `FLOW_STREAM + index`,
/// links their losses from `LINK_STREAM + index`, Random Drop queues their
/// victims from `QUEUE_STREAM + index`.
const FLOW_STREAM: u64 = 1 << 32;
const LINK_STREAM: u64 = 2 << 32;
const QUEUE_STREAM: u64 = 3 << 32;
/// Generators draw arrivals, host pairs and sizes from `GEN_STREAM + index`.
const GEN_STREAM: u64 = 4 << 32;
/// ns-2 senders draw the phase of their tick clock (ns-2's `boot_time_`,
/// uniform in one `tcpTick_`) from `TICK_STREAM + connection id`.
const TICK_STREAM: u64 = 5 << 32;
/// Hosts draw their `tx_jitter` from `JITTER_STREAM + index`.
const JITTER_STREAM: u64 = 6 << 32;
/// Receivers draw their `read_jitter` from `READ_STREAM + flow index` (a
/// scenario flow) or `READ_STREAM + 2^24 (generator + 1) + arrival` (a
/// generated connection).
const READ_STREAM: u64 = 7 << 32;
/// Receivers draw their `sack_timer_jitter` from `SACK_STREAM` plus the
/// same index as `READ_STREAM`'s: the read streams with the top bit set, so
/// that no other stream meets them however many generators a scenario has
/// (`READ_STREAM + 2^24 (generator + 1)` passes `8 << 32` at the 256th).
const SACK_STREAM: u64 = READ_STREAM | 1 << 63;
/// A retired connection: packets still in the network for it are discarded on arrival.
const RETIRED: u32 = u32::MAX;

/// The queue discipline of link `i` of a scenario, its random choices drawn
/// from stream `QUEUE_STREAM + i` of `seed` (shared by the simulator and the
/// real-stack emulator, so both run the same queue code).
pub fn make_qdisc(l: &LinkSpec, i: usize, seed: u64) -> Box<dyn Qdisc> {
    match l.queue.kind {
        QueueKind::DropTail => Box::new(DropTail::new(l.queue.limit)),
        QueueKind::DropFront => Box::new(DropFront::new(l.queue.limit)),
        QueueKind::RandomDrop => Box::new(RandomDrop::new(
            l.queue.limit,
            RngStream::new(seed, QUEUE_STREAM + i as u64),
        )),
        QueueKind::Codel(target, interval) => {
            let p = CodelParams {
                target,
                interval,
                ecn: l.queue.ecn,
                ..CodelParams::default()
            };
            Box::new(Codel::new(l.queue.limit, p))
        }
        QueueKind::FqCodel(target, interval, flows, quantum) => {
            let p = FqCodelParams {
                flows,
                quantum,
                target,
                interval,
                perturbation: RngStream::new(seed, QUEUE_STREAM + i as u64).below(u64::MAX),
                ecn: l.queue.ecn,
                ..FqCodelParams::default()
            };
            Box::new(FqCodel::new(l.queue.limit, p))
        }
        QueueKind::Red(min_th, max_th, max_p, w_q, gentle) => {
            // Idle decay counts typical transmission times of 1500-byte packets.
            let tx_time_ns = 1500.0 * 8.0 * 1e9 / l.rate_bps as f64;
            let p = RedParams {
                min_th,
                max_th,
                max_p,
                w_q,
                gentle,
                tx_time_ns,
                ecn: l.queue.ecn,
            };
            Box::new(Red::new(
                l.queue.limit,
                p,
                RngStream::new(seed, QUEUE_STREAM + i as u64),
            ))
        }
    }
}

/// The wire-loss model of link `i`, drawn from stream `LINK_STREAM + i` of `seed`.
pub fn loss_model(l: &LinkSpec, i: usize, seed: u64) -> LossModel {
    match l.loss {
        LossSpec::None => LossModel::None,
        LossSpec::Every(n) => LossModel::Every { n, seen: 0 },
        LossSpec::Rate(p) => LossModel::Random {
            p,
            rng: RngStream::new(seed, LINK_STREAM + i as u64),
        },
    }
}

/// When each scenario flow starts (its SYN), a uniform start drawn from the
/// flow's own stream `FLOW_STREAM + index` of `seed`.
pub fn flow_starts(sc: &Scenario, seed: u64) -> Vec<SimTime> {
    sc.flows
        .iter()
        .enumerate()
        .map(|(i, f)| match f.start {
            StartSpec::At(t) => t,
            StartSpec::Uniform(a, b) => {
                let mut rng = RngStream::new(seed, FLOW_STREAM + i as u64);
                SimTime(a.0 + ((b.0 - a.0) as f64 * rng.uniform()).round() as u64)
            }
        })
        .collect()
}

/// Each node's kind: hosts first, then routers.
fn node_kinds(sc: &Scenario) -> Vec<NodeKind> {
    (0..sc.nodes.len())
        .map(|i| {
            if i < sc.hosts.len() {
                NodeKind::Host
            } else {
                NodeKind::Router
            }
        })
        .collect()
}

/// The routes of a scenario: its explicit routes over the shortest paths
/// towards every host (what [`build_network`] gives its network, and what
/// validation and estimates use without building links and queues).
pub fn build_routing(sc: &Scenario) -> tcplab_net::Routing {
    let kinds = node_kinds(sc);
    let mut routing = tcplab_net::Routing::new(&kinds);
    for r in &sc.routes {
        routing.set_explicit(r.node, r.dst, r.link);
    }
    let ends: Vec<(u32, u32)> = sc.links.iter().map(|l| (l.from, l.to)).collect();
    let mut dsts: Vec<u32> = (0..sc.hosts.len() as u32).collect();
    dsts.extend(sc.routes.iter().map(|r| r.dst));
    routing.compute(&ends, &dsts);
    routing
}

/// Build the network of a scenario (nodes, links, routes), random losses drawn
/// from streams of `seed`.
pub fn build_network(sc: &Scenario, seed: u64) -> Network<TcpHeader> {
    let mut net = Network::new(node_kinds(sc));
    for (i, l) in sc.links.iter().enumerate() {
        let q = make_qdisc(l, i, seed);
        net.add_link(
            LinkConfig {
                from: l.from,
                to: l.to,
                rate_bps: l.rate_bps,
                delay: l.delay,
                overhead_bytes: l.overhead,
            },
            q,
        );
    }
    for (i, l) in sc.links.iter().enumerate() {
        net.set_loss(i as u32, loss_model(l, i, seed));
    }
    for (n, h) in sc.hosts.iter().enumerate() {
        net.set_host_stage(n as u32, h.stage);
        if h.stage.tx_jitter > SimTime::ZERO {
            net.seed_host_stage(n as u32, RngStream::new(seed, JITTER_STREAM + n as u64));
        }
    }
    for &l in &sc.trace.pcap {
        net.set_capture(l, true);
    }
    net.set_routing(build_routing(sc));
    net.set_ns2_order(sc.event_order == crate::schema::EventOrder::Ns2);
    net
}

/// Where a flow slot's connection came from.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Origin {
    /// `flow[i]` of the scenario.
    Static,
    /// Arrival `seq` of generator `g`.
    Gen { g: u32, seq: u64 },
}

struct FlowState {
    sender: Sender,
    receiver: Receiver,
    src: u32,
    dst: u32,
    start: SimTime,
    started: bool,
    /// The connection id its packets carry.
    conn: u32,
    origin: Origin,
    /// RTT samples in the window (static flows).
    rtts: Option<Box<crate::stats::Summary>>,
    /// RTT sum and count (generated connections).
    rtt_sum: f64,
    rtt_n: u64,
    /// (bytes delivered, sender counters) at each phase boundary passed (static flows).
    snaps: Vec<(u64, tcplab_tcp::SenderStats)>,
    /// Drops of its data segments (static flows).
    drops: DropFacts,
    /// Its metrics went to the host cache (when it finished).
    cached: bool,
}

/// What the network dropped of a flow's data segments (whole run).
#[derive(Clone, Copy, Debug, Default)]
struct DropFacts {
    /// The first data segment dropped or lost.
    first: Option<DropFact>,
    /// The first retransmission of the first drop's window dropped or lost.
    first_retrans: Option<DropFact>,
    /// The sender's snd_max at the first drop: segments below it were in
    /// that window.
    first_window_end: u64,
    /// Data segments dropped or lost.
    data: u64,
    /// Of which retransmissions.
    retrans: u64,
}

/// One dropped data segment.
#[derive(Clone, Copy, Debug)]
struct DropFact {
    at: SimTime,
    link: u32,
    /// The sender's cwnd when it sent the segment, and whether in slow start.
    tx_cwnd: u32,
    tx_in_ss: bool,
}

impl FlowState {
    /// Before the sender starts: its host's cache entry for the peer, if any.
    fn load_host_cache(&mut self, cache: &std::collections::HashMap<(u32, u32), HostCacheEntry>) {
        if let Some(&e) = cache.get(&(self.src, self.dst)) {
            self.sender.use_host_cache(e);
        }
    }

    /// Start to last byte delivered, seconds, once every byte of a finite
    /// transfer (or of a flow whose application stopped) is delivered; NaN before.
    fn completion_time(&self) -> f64 {
        match (self.receiver.last_delivery, self.sender.app_bytes()) {
            (Some(t), Some(total)) if self.receiver.stats.delivered >= total => {
                (t - self.start).as_secs_f64()
            }
            _ => f64::NAN,
        }
    }
}

/// A link's counters at a phase boundary (the simulator's and the real-stack
/// emulator's alike).
#[derive(Clone, Copy, Debug, Default)]
pub struct LinkSnap {
    /// The link's counters.
    pub stats: tcplab_net::LinkStats,
    /// Busy time before the boundary (the current transmission cut at it).
    pub busy_ns: u64,
    /// Queue-length integral up to the boundary.
    pub queue_pkt_ns: u128,
}

/// A flow's counters at a phase boundary.
#[derive(Clone, Copy, Debug, Default)]
pub struct FlowSnap {
    /// Application bytes delivered in order to the receiver.
    pub delivered: u64,
    /// Data segments sent, retransmissions included.
    pub segs_sent: u64,
    /// Data segments retransmitted.
    pub segs_retrans: u64,
    /// Retransmission timeouts.
    pub timeouts: u64,
}

/// Flow `index`'s row of the phases table for phase `phase`, from its
/// counters `a` and `b` at the phase's boundaries `t0` and `t1`.
pub fn flow_phase(
    name: &str,
    index: usize,
    phase: usize,
    (t0, t1): (SimTime, SimTime),
    a: &FlowSnap,
    b: &FlowSnap,
) -> PhaseResult {
    let (sent, retrans) = (b.segs_sent - a.segs_sent, b.segs_retrans - a.segs_retrans);
    PhaseResult {
        flow: name.to_string(),
        flow_index: index as u32,
        phase: phase as u32,
        start_s: t0.as_secs_f64(),
        end_s: t1.as_secs_f64(),
        goodput_bps: (b.delivered - a.delivered) as f64 * 8.0 / (t1 - t0).as_secs_f64(),
        bytes_delivered: b.delivered - a.delivered,
        segs_sent: sent,
        segs_retrans: retrans,
        retrans_prob: if sent == 0 {
            f64::NAN
        } else {
            retrans as f64 / sent as f64
        },
        timeouts: b.timeouts - a.timeouts,
    }
}

/// A traffic generator (its index `g`): its own random stream and count of
/// arrivals so far.
struct GenState {
    g: u32,
    rng: RngStream,
    arrivals: u64,
}

impl GenState {
    fn new(seed: u64, g: usize) -> Self {
        GenState {
            g: g as u32,
            rng: RngStream::new(seed, GEN_STREAM + g as u64),
            arrivals: 0,
        }
    }
    /// The first arrival: one gap after the generator's start, if before its stop.
    fn first(&mut self, spec: &GeneratorSpec) -> Option<SimTime> {
        let t = spec.start + SimTime::from_secs_f64(spec.arrivals.gap(&mut self.rng));
        (t < spec.stop).then_some(t)
    }
    /// The arrival due `now`: its hosts, size and number, and when the next one
    /// comes (if before the stop). The draws, in this order, are the whole of
    /// what a generator takes from its stream.
    fn draw(
        &mut self,
        hosts: &[HostSpec],
        spec: &GeneratorSpec,
        now: SimTime,
    ) -> (Arrival, Option<SimTime>) {
        let src = spec.from[self.rng.below(spec.from.len() as u64) as usize];
        let dst = spec.to[self.rng.below(spec.to.len() as u64) as usize];
        let units = spec.size.sample(&mut self.rng);
        let bytes = ((units * spec.unit_bytes(hosts, src, dst) as f64).round() as u64).max(1);
        let seq = self.arrivals;
        self.arrivals += 1;
        let next = now + SimTime::from_secs_f64(spec.arrivals.gap(&mut self.rng));
        let a = Arrival {
            generator: self.g,
            seq,
            time: now,
            src,
            dst,
            bytes,
        };
        (a, (next < spec.stop).then_some(next))
    }
}

/// One connection a traffic generator opens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arrival {
    /// The generator (its index in the scenario).
    pub generator: u32,
    /// Its number within the generator (0, 1, ...).
    pub seq: u64,
    /// When it starts (its SYN).
    pub time: SimTime,
    /// Sending host.
    pub src: u32,
    /// Receiving host.
    pub dst: u32,
    /// Application bytes.
    pub bytes: u64,
}

/// Every connection the scenario's traffic generators open for `seed`, in
/// order of time (ties by generator): the same arrivals, hosts and sizes as
/// the simulator's run, from the same streams, so that another backend can
/// open the same connections. Like the run, it ends at the end of the
/// measurement window (a generator's `stop` may lie beyond it).
pub fn generator_arrivals(sc: &Scenario, seed: u64) -> Vec<Arrival> {
    let mut out = Vec::new();
    for (g, spec) in sc.generators.iter().enumerate() {
        let mut st = GenState::new(seed, g);
        let mut t = st.first(spec);
        // The simulator runs events strictly before the end of the window.
        while let Some(now) = t.filter(|&t| t < sc.measure_end) {
            let (a, next) = st.draw(&sc.hosts, spec, now);
            out.push(a);
            t = next;
        }
    }
    out.sort_by_key(|a| (a.time, a.generator, a.seq));
    out
}

struct World {
    net: Network<TcpHeader>,
    sched: Scheduler<Ev>,
    flows: Vec<FlowState>,
    timer_at: Vec<Option<SimTime>>,
    out: Vec<TcpHeader>,
    packets: u64,
    window: (SimTime, SimTime),
    in_window: bool,
    /// Every link's counters at each phase boundary passed, boundary by boundary.
    link_snaps: Vec<LinkSnap>,
    traces: Traces,
    trace_interval: SimTime,
    /// Connection id -> flow slot (or RETIRED).
    conn_slot: Vec<u32>,
    /// Slots of retired generated connections, reused by new ones.
    free_slots: Vec<u32>,
    gens: Vec<GenState>,
    transfers: Vec<TransferResult>,
    seed: u64,
    /// Packet captures of the links `[trace] pcap` names: (link, capture).
    captures: Vec<(u32, crate::pcap::Capture)>,
    /// Each host's TCP host cache, by (host, peer), for hosts with
    /// `host_cache` (an entry per pair that closed a connection).
    host_cache: std::collections::HashMap<(u32, u32), HostCacheEntry>,
}

impl World {
    /// Attribute the packets the network discarded to the static flows whose
    /// data they carried, then forget them.
    fn note_drops(&mut self) {
        for r in self.net.drops() {
            if r.header.payload == 0 {
                continue; // ACKs, SYNs, bare FINs
            }
            let slot = self.conn_slot[r.flow as usize];
            if slot == RETIRED {
                continue;
            }
            let fl = &mut self.flows[slot as usize];
            if fl.origin != Origin::Static {
                continue;
            }
            let fact = DropFact {
                at: r.at,
                link: r.link,
                tx_cwnd: r.header.tx_cwnd,
                tx_in_ss: r.header.tx_in_ss,
            };
            let d = &mut fl.drops;
            d.data += 1;
            if d.first.is_none() {
                d.first = Some(fact);
                d.first_window_end = fl.sender.snd_max;
            }
            if r.header.retrans {
                d.retrans += 1;
                if r.header.seq < d.first_window_end {
                    d.first_retrans.get_or_insert(fact);
                }
            }
        }
        self.net.clear_drops();
    }

    /// Write the packets captured links started to transmit into their captures.
    fn note_captures(&mut self) {
        for r in self.net.captures() {
            let Some((_, cap)) = self.captures.iter_mut().find(|(l, _)| *l == r.link) else {
                continue;
            };
            let p = &r.packet;
            let slot = self
                .conn_slot
                .get(p.flow as usize)
                .copied()
                .unwrap_or(RETIRED);
            let from_sender = if slot == RETIRED {
                p.header.payload > 0
                    || p.header.has(tcplab_tcp::header::SYN)
                        && !p.header.has(tcplab_tcp::header::ACK)
            } else {
                self.flows[slot as usize].src == p.src
            };
            cap.record(r.at, p.src, p.dst, p.flow, from_sender, p.size, &p.header);
        }
        self.net.clear_captures();
    }

    /// Hand the segments in `out` to the network, from endpoint `ep`.
    #[inline]
    fn flush(&mut self, ep: u32) {
        let f = (ep / 2) as usize;
        let (from, to) = if ep.is_multiple_of(2) {
            (self.flows[f].src, self.flows[f].dst)
        } else {
            (self.flows[f].dst, self.flows[f].src)
        };
        // Indexed, then cleared: cheaper than a draining iterator here.
        let conn = self.flows[f].conn;
        for i in 0..self.out.len() {
            let h = &self.out[i];
            let id = self
                .net
                .pool
                .alloc_parts(from, to, conn, h.wire_size(), h.ip_ecn, h);
            self.packets += 1;
            self.net.send(from, id, &mut self.sched);
        }
        self.out.clear();
        self.arm(ep);
    }

    /// Make sure a wake-up is scheduled no later than the endpoint's next deadline.
    #[inline]
    fn arm(&mut self, ep: u32) {
        let f = &self.flows[(ep / 2) as usize];
        let d = if ep.is_multiple_of(2) {
            f.sender.next_deadline()
        } else {
            f.receiver.next_deadline()
        };
        if let Some(d) = d {
            let slot = &mut self.timer_at[ep as usize];
            if slot.is_none_or(|s| d < s) {
                *slot = Some(d);
                self.sched.schedule(d.max(self.sched.now()), Ev::Timer(ep));
            }
        }
    }

    /// Deliver packet `id` at `node`; returns the flow slot it reached, if live.
    fn deliver(&mut self, node: u32, id: u32) -> Option<usize> {
        // The packet is read in place and freed after (no copy of its header);
        // the transport reads the IP ECN field as the network left it.
        let p = self.net.pool.get_mut(id);
        p.header.ip_ecn = p.ecn;
        let p = &*p;
        let slot = self.conn_slot[p.flow as usize];
        if slot == RETIRED {
            self.net.pool.free(id);
            return None; // a late packet of a closed connection
        }
        let f = slot as usize;
        let now = self.sched.now();
        let fl = &mut self.flows[f];
        let ep = if node == fl.src {
            fl.sender.on_segment(now, &p.header, &mut self.out);
            if let Some(r) = fl.sender.take_rtt_sample() {
                if fl.origin != Origin::Static {
                    fl.rtt_sum += r.as_secs_f64();
                    fl.rtt_n += 1;
                } else if self.in_window {
                    if let Some(s) = fl.rtts.as_mut() {
                        s.add_time(r);
                    }
                }
                if let (Some(t), Origin::Static) = (self.traces.rtt.as_mut(), fl.origin) {
                    t.time_s.push(now.as_secs_f64());
                    t.flow.push(f as u32);
                    t.rtt_s.push(r.as_secs_f64());
                }
            }
            2 * f as u32
        } else {
            fl.receiver.on_segment(now, &p.header, &mut self.out);
            2 * f as u32 + 1
        };
        self.net.pool.free(id);
        self.flush(ep);
        Some(f)
    }

    /// Start the next connection of generator `g` now and schedule the one after.
    fn arrival(&mut self, sc: &Scenario, g: u32) {
        let now = self.sched.now();
        let spec = &sc.generators[g as usize];
        let (a, next) = self.gens[g as usize].draw(&sc.hosts, spec, now);
        if let Some(next) = next {
            self.sched.schedule(next, Ev::Arrival(g));
        }
        let mut flow = new_flow(
            sc,
            a.src,
            a.dst,
            Some(a.bytes),
            now,
            Origin::Gen { g, seq: a.seq },
        );
        let index = ((g as u64 + 1) << 24) + a.seq;
        flow.receiver.seed_timing(
            RngStream::new(self.seed, READ_STREAM + index),
            RngStream::new(self.seed, SACK_STREAM + index),
        );
        let slot = match self.free_slots.pop() {
            Some(s) => {
                self.flows[s as usize] = flow;
                s
            }
            None => {
                self.flows.push(flow);
                self.timer_at.push(None);
                self.timer_at.push(None);
                (self.flows.len() - 1) as u32
            }
        };
        let conn = self.conn_slot.len() as u32;
        self.conn_slot.push(slot);
        // A recycled slot's timers were cleared when it retired.
        let f = &mut self.flows[slot as usize];
        f.conn = conn;
        set_tick_phase(sc, f, self.seed);
        f.started = true;
        f.load_host_cache(&self.host_cache);
        f.sender.start(now, &mut self.out);
        self.flush(2 * slot);
    }

    /// Retire a generated connection whose FIN has been acknowledged: record it and
    /// free its slot.
    fn maybe_retire(&mut self, sc: &Scenario, slot: usize) {
        let f = &mut self.flows[slot];
        if f.sender.state() != tcplab_tcp::SenderState::Done {
            return;
        }
        if !f.cached {
            // FreeBSD tcp_discardcb: the closing connection's metrics.
            f.cached = true;
            if let Some(ssthresh) = f.sender.host_cache_metrics() {
                self.host_cache
                    .entry((f.src, f.dst))
                    .or_default()
                    .update(ssthresh);
            }
        }
        let f = &self.flows[slot];
        if f.origin == Origin::Static {
            return;
        }
        self.transfers.push(transfer_row(sc, f));
        self.conn_slot[f.conn as usize] = RETIRED;
        self.free_slots.push(slot as u32);
        self.timer_at[2 * slot] = None;
        self.timer_at[2 * slot + 1] = None;
    }

    fn sample(&mut self) {
        let now = self.sched.now();
        let t = now.as_secs_f64();
        if let Some(tr) = self.traces.cwnd.as_mut() {
            // Scenario flows only (generated connections come and go).
            for (i, f) in self.flows.iter().enumerate() {
                if !f.started || f.origin != Origin::Static {
                    continue;
                }
                tr.time_s.push(t);
                tr.flow.push(i as u32);
                tr.cwnd.push(f.sender.tp.cwnd);
                tr.ssthresh.push(f.sender.tp.ssthresh);
                tr.srtt_s
                    .push(f.sender.rtt().srtt().map_or(f64::NAN, |s| s.as_secs_f64()));
                tr.inflight_bytes.push(f.sender.in_flight_bytes());
                tr.rto_s.push(f.sender.rtt().rto().as_secs_f64());
                tr.backoff.push(f.sender.rtt().backoffs());
                tr.pacing_rate_bps
                    .push(match f.sender.reported_pacing_rate() {
                        0 => f64::NAN,
                        r => r as f64 * 8.0,
                    });
                tr.ca_state.push(f.sender.tp.ca_state.linux() as u32);
                tr.push_model(f.sender.cc_model());
            }
        }
        if let Some(tr) = self.traces.queue.as_mut() {
            self.net.sync(&mut self.sched);
            for (i, l) in self.net.links().iter().enumerate() {
                tr.time_s.push(t);
                tr.link.push(i as u32);
                tr.pkts.push(l.queue_packets());
                tr.bytes.push(l.queue_bytes());
            }
        }
        self.sched.schedule(now + self.trace_interval, Ev::Sample);
    }

    /// Phase boundary `k`: snapshot every static flow; the first opens the window.
    fn phase(&mut self, k: u32) {
        let now = self.sched.now();
        // Transmissions started before now; nothing else has run at now yet.
        self.net.sync_before(now);
        for f in self.flows.iter_mut().filter(|f| f.origin == Origin::Static) {
            f.snaps.push((f.receiver.stats.delivered, f.sender.stats));
        }
        self.link_snaps
            .extend(self.net.links().iter().map(|l| LinkSnap {
                stats: l.stats,
                busy_ns: l.busy_ns_at(now),
                queue_pkt_ns: l.queue_pkt_ns_at(now),
            }));
        if k == 0 {
            self.in_window = true;
        }
    }

    #[cfg(debug_assertions)]
    fn check(&self, touched: Option<usize>) {
        // Packets are conserved: every live packet is in some link (endpoints hold none).
        assert_eq!(
            self.net.pool.live() as u64,
            self.net.packets_in_links(),
            "packet conservation violated"
        );
        for l in self.net.links() {
            let s = l.stats;
            assert_eq!(
                s.arrived_pkts,
                s.dropped_pkts + s.delivered_pkts + s.lost_pkts + l.held_packets(),
                "link conservation violated"
            );
        }
        if let Some(f) = touched {
            // The scoreboard recount is O(window): on every event up to 256
            // outstanding segments, on every 64th beyond (high-speed runs).
            let s = &self.flows[f].sender;
            if s.scoreboard().len() <= 256 || self.sched.processed().is_multiple_of(64) {
                s.check_invariants();
            }
        }
    }
}

/// What a long run is doing, for a progress display (see [`run_with_progress`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Progress {
    /// The stage: `"building"` (network, routes, flows), `"running"` or
    /// `"collecting"` (the results tables).
    pub stage: &'static str,
    /// Simulated time reached.
    pub now: SimTime,
    /// Where the run stops (the end of the measurement window).
    pub end: SimTime,
    /// Events processed so far.
    pub events: u64,
    /// Wall-clock seconds since the run started.
    pub wall_s: f64,
}

/// Events between two looks at the wall clock: a look costs tens of
/// nanoseconds, 2^16 events a few milliseconds.
const PROGRESS_EVENTS: u64 = 1 << 16;
/// Seconds between two reports while running.
const PROGRESS_EVERY_S: f64 = 0.25;

/// Calls a progress callback when a stage starts and, while running, at most
/// every [`PROGRESS_EVERY_S`], looking at the clock only every
/// [`PROGRESS_EVENTS`] events.
struct Reporter<'a> {
    f: Option<&'a mut dyn FnMut(&Progress) -> bool>,
    wall: std::time::Instant,
    next_s: f64,
    stopped: bool,
}

impl Reporter<'_> {
    /// Report `stage` (now if `force`, else if it is time to); false once the
    /// callback asked to stop.
    fn report(
        &mut self,
        stage: &'static str,
        now: SimTime,
        end: SimTime,
        events: u64,
        force: bool,
    ) -> bool {
        let Some(f) = self.f.as_mut() else {
            return true;
        };
        let wall_s = self.wall.elapsed().as_secs_f64();
        if force || wall_s >= self.next_s {
            self.next_s = wall_s + PROGRESS_EVERY_S;
            let p = Progress {
                stage,
                now,
                end,
                events,
                wall_s,
            };
            self.stopped |= !f(&p);
        }
        !self.stopped
    }
}

/// Run a scenario.
pub fn run(sc: &Scenario, seed: Option<u64>) -> RunResult {
    run_with_progress(sc, seed, None).expect("a run without a callback is never stopped")
}

/// [`run`], calling `progress` (when given) with what the run is doing: as
/// each stage starts (building, running, collecting) and while running at
/// most every quarter of a second of wall time, the clock read every 2^16
/// events, so that the loop pays one test per event (none without a
/// callback). The callback returns false to stop the run (`None` then).
/// Results do not depend on it.
pub fn run_with_progress(
    sc: &Scenario,
    seed: Option<u64>,
    progress: Option<&mut dyn FnMut(&Progress) -> bool>,
) -> Option<RunResult> {
    let wall = std::time::Instant::now();
    let mut reporter = Reporter {
        f: progress,
        wall,
        next_s: 0.0,
        stopped: false,
    };
    if !reporter.report("building", SimTime::ZERO, sc.measure_end, 0, true) {
        return None;
    }
    let seed = seed.unwrap_or(sc.seed);
    let net = build_network(sc, seed);
    let mut flows = Vec::with_capacity(sc.flows.len());
    let starts = flow_starts(sc, seed);
    for (i, f) in sc.flows.iter().enumerate() {
        let start = starts[i];
        let mut fl = new_flow(sc, f.src, f.dst, f.size, start, Origin::Static);
        fl.receiver.seed_timing(
            RngStream::new(seed, READ_STREAM + i as u64),
            RngStream::new(seed, SACK_STREAM + i as u64),
        );
        fl.conn = i as u32;
        set_tick_phase(sc, &mut fl, seed);
        fl.rtts = Some(Box::default());
        fl.snaps = Vec::with_capacity(sc.phases.len());
        flows.push(fl);
    }
    let gens = (0..sc.generators.len())
        .map(|g| GenState::new(seed, g))
        .collect();
    let n_samples = (sc.duration.0 / sc.trace.interval.0 + 2) as usize;
    let traces = Traces {
        cwnd: sc.trace.cwnd.then(|| {
            let n = n_samples * flows.len();
            CwndTrace {
                time_s: Vec::with_capacity(n),
                flow: Vec::with_capacity(n),
                cwnd: Vec::with_capacity(n),
                ssthresh: Vec::with_capacity(n),
                srtt_s: Vec::with_capacity(n),
                inflight_bytes: Vec::with_capacity(n),
                rto_s: Vec::with_capacity(n),
                backoff: Vec::with_capacity(n),
                pacing_rate_bps: Vec::with_capacity(n),
                ca_state: Vec::with_capacity(n),
                cc_bw_bps: Vec::with_capacity(n),
                cc_min_rtt_s: Vec::with_capacity(n),
                cc_pacing_gain: Vec::with_capacity(n),
                cc_cwnd_gain: Vec::with_capacity(n),
            }
        }),
        rtt: sc.trace.rtt.then(RttTrace::default),
        queue: sc.trace.queue.then(|| {
            let n = n_samples * net.links().len();
            QueueTrace {
                time_s: Vec::with_capacity(n),
                link: Vec::with_capacity(n),
                pkts: Vec::with_capacity(n),
                bytes: Vec::with_capacity(n),
            }
        }),
    };
    let link_snaps = Vec::with_capacity(sc.phases.len() * net.links().len());
    let mut w = World {
        sched: Scheduler::with_capacity(1 << 14),
        timer_at: vec![None; 2 * flows.len()],
        flows,
        net,
        out: Vec::with_capacity(64),
        packets: 0,
        window: (sc.measure_start, sc.measure_end),
        in_window: false,
        link_snaps,
        traces,
        trace_interval: sc.trace.interval,
        conn_slot: (0..sc.flows.len() as u32).collect(),
        free_slots: Vec::new(),
        gens,
        transfers: Vec::new(),
        captures: sc
            .trace
            .pcap
            .iter()
            .map(|&l| (l, crate::pcap::Capture::new()))
            .collect(),
        host_cache: std::collections::HashMap::new(),
        seed,
    };
    // Phase boundaries first: at an instant shared with other events (a flow
    // starting at the window's start), the boundary runs before them, so its
    // counters leave out what happens at that instant (scheduling order breaks ties).
    // The last boundary (the end of the window) is taken after the loop.
    for (k, &t) in sc.phases[..sc.phases.len() - 1].iter().enumerate() {
        w.sched.schedule(t, Ev::Phase(k as u32));
    }
    for (i, f) in w.flows.iter().enumerate() {
        w.sched.schedule(f.start, Ev::FlowStart(i as u32));
    }
    for (i, f) in sc.flows.iter().enumerate() {
        if let Some(t) = f.stop {
            w.sched.schedule(t, Ev::FlowStop(i as u32));
        }
    }
    for (g, spec) in sc.generators.iter().enumerate() {
        if let Some(t) = w.gens[g].first(spec) {
            w.sched.schedule(t, Ev::Arrival(g as u32));
        }
    }
    if sc.trace.cwnd || sc.trace.queue {
        w.sched.schedule(SimTime::ZERO, Ev::Sample);
    }

    // The loop: everything strictly before the end of the measurement window.
    let end = sc.measure_end;
    if !reporter.report("running", SimTime::ZERO, end, 0, true) {
        return None;
    }
    let reporting = reporter.f.is_some();
    while let Some((now, ev)) = w.sched.step_before(end) {
        if reporting
            && w.sched.processed().is_multiple_of(PROGRESS_EVENTS)
            && !reporter.report("running", now, end, w.sched.processed(), false)
        {
            return None;
        }
        #[cfg(debug_assertions)]
        let mut touched = None;
        match ev {
            Ev::Net(ne) => {
                if let Some((node, id)) = w.net.handle(ne, &mut w.sched) {
                    if let Some(f) = w.deliver(node, id) {
                        w.maybe_retire(sc, f);
                        #[cfg(debug_assertions)]
                        {
                            touched = Some(f);
                        }
                    }
                }
            }
            Ev::Timer(ep) => {
                let slot = &mut w.timer_at[ep as usize];
                if *slot != Some(now) {
                    continue; // stale wake-up: a later one is scheduled
                }
                *slot = None;
                let f = &mut w.flows[(ep / 2) as usize];
                if ep.is_multiple_of(2) {
                    f.sender.on_timer(now, &mut w.out);
                } else {
                    f.receiver.on_timer(now, &mut w.out);
                }
                w.flush(ep);
                w.maybe_retire(sc, (ep / 2) as usize);
                #[cfg(debug_assertions)]
                {
                    touched = Some((ep / 2) as usize);
                }
            }
            Ev::FlowStart(i) => {
                let f = &mut w.flows[i as usize];
                f.started = true;
                f.load_host_cache(&w.host_cache);
                f.sender.start(now, &mut w.out);
                w.flush(2 * i);
            }
            Ev::FlowStop(i) => {
                let f = &mut w.flows[i as usize];
                f.sender.stop(now, &mut w.out);
                w.flush(2 * i);
            }
            Ev::Arrival(g) => w.arrival(sc, g),
            Ev::Sample => w.sample(),
            Ev::Phase(k) => w.phase(k),
        }
        if !w.net.drops().is_empty() {
            w.note_drops();
        }
        if !w.net.captures().is_empty() {
            w.note_captures();
        }
        #[cfg(debug_assertions)]
        w.check(touched);
    }
    let _ = w.window;
    if !reporter.report("collecting", end, end, w.sched.processed(), true) {
        return None;
    }
    let result = collect(sc, seed, w, wall);
    crate::release_free_memory();
    Some(result)
}

fn collect(sc: &Scenario, seed: u64, mut w: World, wall: std::time::Instant) -> RunResult {
    let end = sc.measure_end;
    let win = (sc.measure_end - sc.measure_start).as_secs_f64();
    if !w.in_window {
        w.phase(0);
    }
    // The final boundary: the end of the window (the clock is at the last event).
    w.net.sync_before(end);
    w.phase(u32::MAX);
    let mut phases = Vec::new();
    let snap = |&(delivered, s): &(u64, tcplab_tcp::SenderStats)| FlowSnap {
        delivered,
        segs_sent: s.segs_sent,
        segs_retrans: s.segs_retrans,
        timeouts: s.timeouts,
    };
    for (i, (spec, f)) in sc.flows.iter().zip(&w.flows).enumerate() {
        for (k, pair) in f.snaps.windows(2).enumerate() {
            let t = (sc.phases[k], sc.phases[k + 1]);
            phases.push(flow_phase(
                &spec.name,
                i,
                k,
                t,
                &snap(&pair[0]),
                &snap(&pair[1]),
            ));
        }
    }
    let n_links = w.net.links().len();
    let snaps_of = |l: usize| w.link_snaps.iter().skip(l).step_by(n_links.max(1));
    let mut link_phases = Vec::with_capacity(n_links * (sc.phases.len() - 1));
    for (l, link) in w.net.links().iter().enumerate() {
        let name = link_name(sc, link);
        let snaps: Vec<&LinkSnap> = snaps_of(l).collect();
        for (k, pair) in snaps.windows(2).enumerate() {
            let (t0, t1) = (sc.phases[k], sc.phases[k + 1]);
            link_phases.push(link_delta(pair[0], pair[1], t0, t1).into_phase(&name, l, k));
        }
    }
    // Generated connections still open at the end.
    for (slot, f) in w.flows.iter().enumerate() {
        if f.origin != Origin::Static && w.conn_slot[f.conn as usize] == slot as u32 {
            w.transfers.push(transfer_row(sc, f));
        }
    }
    w.transfers.sort_by_key(|t| (t.generator, t.seq));
    let generators = count_transfers(offered_loads_on(sc, w.net.routing()), &w.transfers);
    debug_assert!(generators
        .iter()
        .zip(&w.gens)
        .all(|(r, st)| r.arrivals == st.arrivals));
    let mut flows = Vec::new();
    let mut episodes = Vec::new();
    for (i, (spec, f)) in sc.flows.iter().zip(w.flows.iter_mut()).enumerate() {
        f.sender.finish_episodes();
        episodes.extend(f.sender.episodes.iter().map(|e| {
            EpisodeResult {
                flow: spec.name.clone(),
                flow_index: i as u32,
                start_s: e.start.as_secs_f64(),
                end_s: e.end.map_or(f64::NAN, |t| t.as_secs_f64()),
                kind: if e.timeout {
                    "timeout"
                } else if e.tlp {
                    "tlp"
                } else {
                    "fast_retransmit"
                }
                .to_string(),
                cwnd_before: e.cwnd,
                ssthresh: e.ssthresh,
                timeouts: e.timeouts,
                retrans: e.retrans,
                cwnd_after: e.cwnd_after,
            }
        }));
        let sh = &sc.hosts[f.src as usize];
        let rtts = f.rtts.as_deref().expect("static flows keep RTT statistics");
        let n = rtts.count();
        let delivered_w = f.receiver.stats.delivered - f.snaps[0].0;
        let s = f.sender.stats;
        let s0 = f.snaps[0].1;
        let fct = f.completion_time();
        flows.push(FlowResult {
            name: spec.name.clone(),
            src: sc.nodes[f.src as usize].clone(),
            dst: sc.nodes[f.dst as usize].clone(),
            cc: sh.cc.clone(),
            profile: sh.profile.clone(),
            start_s: f.start.as_secs_f64(),
            goodput_bps: delivered_w as f64 * 8.0 / win,
            bytes_delivered_window: delivered_w,
            bytes_delivered: f.receiver.stats.delivered,
            rtt_mean_s: rtts.mean(),
            rtt_p50_s: rtts.percentile(50.0),
            rtt_p95_s: rtts.percentile(95.0),
            rtt_p99_s: rtts.percentile(99.0),
            rtt_samples: n,
            segs_sent: s.segs_sent,
            segs_retrans: s.segs_retrans,
            fast_retransmits: s.fast_retransmits,
            timeouts: s.timeouts,
            undos: s.undos,
            spurious_timeouts: f.receiver.stats.spurious_rto,
            loss_probes: f.sender.stats.loss_probes,
            tlp_recoveries: f.sender.stats.tlp_recoveries,
            ooo_prunes: f.receiver.stats.ooo_prunes,
            pruned_bytes: f.receiver.stats.pruned_bytes,
            ecn: f.sender.ecn_ok(),
            ecn_reductions: s.ecn_reductions,
            segs_sent_window: s.segs_sent - s0.segs_sent,
            segs_retrans_window: s.segs_retrans - s0.segs_retrans,
            timeouts_window: s.timeouts - s0.timeouts,
            completed: !fct.is_nan(),
            fct_s: fct,
            transfer_bps: if fct.is_nan() || fct <= 0.0 {
                f64::NAN
            } else {
                f.receiver.stats.delivered as f64 * 8.0 / fct
            },
            mss: f.sender.mss(),
            packet_bytes: f.sender.full_segment_bytes(),
            data_drops: f.drops.data,
            retrans_drops: f.drops.retrans,
            first_drop_s: f.drops.first.map_or(f64::NAN, |d| d.at.as_secs_f64()),
            first_drop_link: f
                .drops
                .first
                .map_or(String::new(), |d| link_name(sc, w.net.link(d.link))),
            first_drop_cwnd: f.drops.first.map_or(0, |d| d.tx_cwnd),
            first_drop_in_ss: f.drops.first.is_some_and(|d| d.tx_in_ss),
            retrans_drop_s: f
                .drops
                .first_retrans
                .map_or(f64::NAN, |d| d.at.as_secs_f64()),
            retrans_drop_link: f
                .drops
                .first_retrans
                .map_or(String::new(), |d| link_name(sc, w.net.link(d.link))),
            first_reduction_s: s.first_reduction.map_or(f64::NAN, |r| r.at.as_secs_f64()),
            first_reduction: s.first_reduction.map_or(String::new(), |r| {
                if r.timeout {
                    "timeout"
                } else {
                    "fast_retransmit"
                }
                .to_string()
            }),
            first_reduction_cwnd: s.first_reduction.map_or(0, |r| r.cwnd),
            first_reduction_in_ss: s.first_reduction.is_some_and(|r| r.in_slow_start),
            double_slow_start: s.double_slow_start,
        });
    }
    let links = w
        .net
        .links()
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let first = &w.link_snaps[i];
            let last = &w.link_snaps[w.link_snaps.len() - n_links + i];
            let d = link_delta(first, last, sc.measure_start, end);
            d.into_link(sc, i, l.stats.sojourn_max_ns, l.qdisc.name())
        })
        .collect();
    RunResult {
        meta: Meta {
            name: sc.name.clone(),
            seed,
            duration_s: sc.duration.as_secs_f64(),
            measure_start_s: sc.measure_start.as_secs_f64(),
            measure_end_s: sc.measure_end.as_secs_f64(),
            events: w.sched.processed(),
            packets: w.packets,
            wall_s: wall.elapsed().as_secs_f64(),
            version: crate::VERSION.to_string(),
            backend: "sim".to_string(),
            notes: Vec::new(),
            timing_flagged: false,
        },
        flows,
        links,
        phases,
        link_phases,
        generators,
        transfers: w.transfers,
        episodes,
        hosts: (0..sc.hosts.len() as u32)
            .filter_map(|n| {
                let st = w.net.host_stage(n)?;
                Some(HostResult {
                    name: sc.nodes[n as usize].clone(),
                    packets: st.served_pkts,
                    // Service booked past the end of the run is not counted.
                    utilisation: (st.busy_ns as f64
                        - st.busy_until.0.saturating_sub(sc.duration.0) as f64)
                        .max(0.0)
                        / sc.duration.0.max(1) as f64,
                    tx_drops: st.tx_drops,
                    rx_drops: st.rx_drops,
                })
            })
            .collect(),
        timing: Vec::new(),
        pcap: w
            .captures
            .into_iter()
            .map(|(l, c)| (link_name(sc, w.net.link(l)), c.bytes))
            .collect(),
        traces: w.traces,
    }
}

/// ns-2's `boot_time_` (or the jiffy phase of a Linux 2.2 sender) for a
/// sender whose RTO estimator counts ticks: the phase of its tick clock,
/// uniform in one tick, from the connection's own stream.
fn set_tick_phase(sc: &Scenario, f: &mut FlowState, seed: u64) {
    let cfg = &sc.hosts[f.src as usize].tcp;
    if matches!(
        cfg.rto_estimator,
        tcplab_tcp::RtoEstimator::Ns2 | tcplab_tcp::RtoEstimator::Linux22
    ) {
        let tick = cfg.clock_granularity.0.max(1);
        let mut rng = RngStream::new(seed, TICK_STREAM + f.conn as u64);
        f.sender.set_tick_phase(SimTime(rng.below(tick)));
    }
}

/// `from->to`: a simplex link's name in the tables.
fn link_name(sc: &Scenario, l: &tcplab_net::Link) -> String {
    name_of_link(sc, l.cfg.from, l.cfg.to)
}

fn name_of_link(sc: &Scenario, from: u32, to: u32) -> String {
    format!("{}->{}", sc.nodes[from as usize], sc.nodes[to as usize])
}

/// The names the results give the scenario's flows and simplex links, in
/// table order (for checking a metric's name before anything runs).
pub fn result_names(sc: &Scenario) -> (Vec<String>, Vec<String>) {
    (
        sc.flows.iter().map(|f| f.name.clone()).collect(),
        sc.links
            .iter()
            .map(|l| name_of_link(sc, l.from, l.to))
            .collect(),
    )
}

/// A link's window or phase columns: its counters between two boundaries.
pub struct LinkDelta {
    start_s: f64,
    end_s: f64,
    utilisation: f64,
    throughput_bps: f64,
    bytes_sent: u64,
    pkts_sent: u64,
    drops: u64,
    marks: u64,
    lost: u64,
    mean_queue_pkts: f64,
    mean_sojourn_s: f64,
}

/// A link's columns between its counters `a` at `t0` and `b` at `t1`.
pub fn link_delta(a: &LinkSnap, b: &LinkSnap, t0: SimTime, t1: SimTime) -> LinkDelta {
    let (s0, s1) = (&a.stats, &b.stats);
    let ns = (t1 - t0).0 as f64;
    let pkts_sent = s1.sent_pkts - s0.sent_pkts;
    let bytes_sent = s1.sent_bytes - s0.sent_bytes;
    LinkDelta {
        start_s: t0.as_secs_f64(),
        end_s: t1.as_secs_f64(),
        utilisation: (b.busy_ns - a.busy_ns) as f64 / ns,
        throughput_bps: bytes_sent as f64 * 8.0 / (ns / 1e9),
        bytes_sent,
        pkts_sent,
        drops: s1.dropped_pkts - s0.dropped_pkts,
        marks: s1.marked_pkts - s0.marked_pkts,
        lost: s1.lost_pkts - s0.lost_pkts,
        mean_queue_pkts: (b.queue_pkt_ns - a.queue_pkt_ns) as f64 / ns,
        mean_sojourn_s: if pkts_sent > 0 {
            (s1.sojourn_ns - s0.sojourn_ns) as f64 / 1e9 / pkts_sent as f64
        } else {
            f64::NAN
        },
    }
}

impl LinkDelta {
    /// Link `i`'s row of the links table over the window these columns
    /// cover; `max_sojourn_ns` over the whole run, `qdisc` its discipline.
    pub fn into_link(
        self,
        sc: &Scenario,
        i: usize,
        max_sojourn_ns: u64,
        qdisc: &str,
    ) -> LinkResult {
        let l = &sc.links[i];
        LinkResult {
            name: name_of_link(sc, l.from, l.to),
            from: sc.nodes[l.from as usize].clone(),
            to: sc.nodes[l.to as usize].clone(),
            rate_bps: l.rate_bps,
            delay_s: l.delay.as_secs_f64(),
            utilisation: self.utilisation,
            throughput_bps: self.throughput_bps,
            pkts_sent: self.pkts_sent,
            drops: self.drops,
            marks: self.marks,
            lost: self.lost,
            mean_queue_pkts: self.mean_queue_pkts,
            mean_sojourn_s: self.mean_sojourn_s,
            max_sojourn_s: max_sojourn_ns as f64 / 1e9,
            qdisc: qdisc.to_string(),
            queue_limit_pkts: match l.queue.limit {
                tcplab_net::QueueLimit::Packets(n) => n as u64,
                tcplab_net::QueueLimit::Bytes(_) => 0,
            },
            queue_limit_bytes: match l.queue.limit {
                tcplab_net::QueueLimit::Bytes(n) => n,
                tcplab_net::QueueLimit::Packets(_) => 0,
            },
        }
    }
    /// Link `link`'s row of the link_phases table for phase `phase`.
    pub fn into_phase(self, name: &str, link: usize, phase: usize) -> LinkPhaseResult {
        LinkPhaseResult {
            link: name.to_string(),
            link_index: link as u32,
            phase: phase as u32,
            start_s: self.start_s,
            end_s: self.end_s,
            utilisation: self.utilisation,
            throughput_bps: self.throughput_bps,
            bytes_sent: self.bytes_sent,
            pkts_sent: self.pkts_sent,
            drops: self.drops,
            marks: self.marks,
            lost: self.lost,
            mean_queue_pkts: self.mean_queue_pkts,
            mean_sojourn_s: self.mean_sojourn_s,
        }
    }
}

/// A connection from host `src` to host `dst` (not started).
fn new_flow(
    sc: &Scenario,
    src: u32,
    dst: u32,
    size: Option<u64>,
    start: SimTime,
    origin: Origin,
) -> FlowState {
    let sh = &sc.hosts[src as usize];
    let rh = &sc.hosts[dst as usize];
    let ctl = cc::make(&sh.cc, &sh.cc_params).expect("validated controller");
    FlowState {
        sender: Sender::new(sh.tcp.clone(), ctl, size),
        receiver: Receiver::new(rh.tcp.clone()),
        src,
        dst,
        start,
        started: false,
        conn: 0,
        origin,
        rtts: None,
        rtt_sum: 0.0,
        rtt_n: 0,
        snaps: Vec::new(),
        drops: DropFacts::default(),
        cached: false,
    }
}

/// The transfers-table row of a generated connection.
fn transfer_row(sc: &Scenario, f: &FlowState) -> TransferResult {
    let Origin::Gen { g, seq } = f.origin else {
        unreachable!("static flows have no transfer row")
    };
    let size = f
        .sender
        .app_bytes()
        .expect("generated transfers have a size");
    let fct = f.completion_time();
    let s = f.sender.stats;
    TransferResult {
        generator: g,
        seq,
        src: sc.nodes[f.src as usize].clone(),
        dst: sc.nodes[f.dst as usize].clone(),
        size_bytes: size,
        start_s: f.start.as_secs_f64(),
        fct_s: fct,
        completed: !fct.is_nan(),
        segs_sent: s.segs_sent,
        segs_retrans: s.segs_retrans,
        timeouts: s.timeouts,
        rtt_mean_s: if f.rtt_n == 0 {
            f64::NAN
        } else {
            f.rtt_sum / f.rtt_n as f64
        },
    }
}

/// The generators table of a run whose connections are `transfers` (one row
/// per arrival): what each offers, how many arrived and finished.
pub fn generator_results(sc: &Scenario, transfers: &[TransferResult]) -> Vec<GeneratorResult> {
    count_transfers(offered_loads(sc), transfers)
}

fn count_transfers(
    mut gens: Vec<GeneratorResult>,
    transfers: &[TransferResult],
) -> Vec<GeneratorResult> {
    for t in transfers {
        let r = &mut gens[t.generator as usize];
        r.arrivals += 1;
        r.completed += u64::from(t.completed);
    }
    gens
}

/// What each generator offers: rate x exact mean size, against the slowest link of
/// its routes (the smallest over its host pairs).
pub fn offered_loads(sc: &Scenario) -> Vec<GeneratorResult> {
    if sc.generators.is_empty() {
        return Vec::new();
    }
    offered_loads_on(sc, &build_routing(sc))
}

/// [`offered_loads`] on a network already built for the scenario.
///
/// The mean unit and the bottleneck are over every (sender, receiver) pair,
/// computed without walking each pair: hosts are grouped by what the unit
/// depends on (their MSS, timestamps and agent kind), and by routing class
/// (`tcplab_net::Routing::source_class`, `dest_class`: hosts of a class share
/// their routes but for their first or last link), so a generator between
/// 10^5 and 10^5 hosts costs one walk per pair of classes. The unit sum is of
/// integers, exact in f64 as the pair by pair sum was.
fn offered_loads_on(sc: &Scenario, routing: &tcplab_net::Routing) -> Vec<GeneratorResult> {
    use std::collections::BTreeMap;
    sc.generators
        .iter()
        .map(|g| {
            // Hosts by what their unit depends on: (count, a representative).
            let group = |hosts: &[u32], sender: bool| -> Vec<(u64, u32)> {
                let mut m: BTreeMap<(bool, u32, bool, bool), (u64, u32)> = BTreeMap::new();
                for &h in hosts {
                    let t = &sc.hosts[h as usize].tcp;
                    let key = (
                        sender && t.handshake.one_way(),
                        t.mss,
                        t.timestamps,
                        t.answer_timestamps,
                    );
                    m.entry(key).or_insert((0, h)).0 += 1;
                }
                m.into_values().collect()
            };
            let (senders, receivers) = (group(&g.from, true), group(&g.to, false));
            let mut unit_sum: u128 = 0;
            for &(na, a) in &senders {
                for &(nb, b) in &receivers {
                    unit_sum += (na * nb) as u128 * g.unit_bytes(&sc.hosts, a, b) as u128;
                }
            }
            let pairs = g.from.len() as f64 * g.to.len() as f64;
            // Routing classes: the slowest first link of each sender class,
            // last link of each receiver class, and the links between.
            let classes = |hosts: &[u32], key: &dyn Fn(u32) -> u32| -> BTreeMap<u32, Vec<u32>> {
                let mut m: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
                for &h in hosts {
                    m.entry(key(h)).or_default().push(h);
                }
                m
            };
            let from = classes(&g.from, &|h| routing.source_class(h));
            let to = classes(&g.to, &|h| routing.dest_class(h));
            let rate = |l: u32| sc.links[l as usize].rate_bps;
            let route = |a: u32, b: u32| routing.route(a, b).expect("routes checked at validation");
            let b0 = g.to[0];
            let mut bottleneck = u64::MAX;
            // A class other than the host itself shares all but its first
            // link (a sender's one link out) or its last (the link from the
            // router a receiver hangs from): those are taken host by host.
            for (&ca, senders) in &from {
                if ca != senders[0] {
                    for &a in senders {
                        bottleneck = bottleneck.min(rate(route(a, b0)));
                    }
                }
            }
            for (&cb, receivers) in &to {
                if cb != receivers[0] {
                    for &b in receivers {
                        bottleneck = bottleneck.min(rate(route(cb, b)));
                    }
                }
            }
            for (&ca, senders) in &from {
                for (&cb, receivers) in &to {
                    let (a, b) = (senders[0], receivers[0]);
                    let path = routing.path(a, b).expect("routes checked at validation");
                    let first = usize::from(ca != a);
                    let last = path.len() - usize::from(cb != b);
                    for &l in &path[first.min(last)..last] {
                        bottleneck = bottleneck.min(rate(l));
                    }
                }
            }
            let mean_size_bytes = g.size.mean() * unit_sum as f64 / pairs;
            let offered_bps = g.arrivals.rate() * mean_size_bytes * 8.0;
            GeneratorResult {
                name: g.name.clone(),
                rate: g.arrivals.rate(),
                mean_size_bytes,
                offered_bps,
                bottleneck_bps: bottleneck as f64,
                offered_load: offered_bps / bottleneck as f64,
                arrivals: 0,
                completed: 0,
            }
        })
        .collect()
}
