//! The world: a scenario built into a network with TCP endpoints, the event
//! loop that runs it, and the probes that measure it.

use crate::results::*;
use crate::schema::{LossSpec, QueueKind, Scenario, StartSpec};
use tcplab_engine::{RngStream, Scheduler, SimTime};
use tcplab_net::qdisc::{
    Codel, CodelParams, DropFront, DropTail, Qdisc, RandomDrop, Red, RedParams,
};
use tcplab_net::{LinkConfig, LossModel, NetEvent, Network, NodeKind, Packet};
use tcplab_tcp::{cc, Receiver, Sender, TcpHeader};

/// Events of the world.
#[derive(Clone, Copy, Debug)]
enum Ev {
    Net(NetEvent),
    /// Timers of endpoint `2 * flow + side` (side 0 sender, 1 receiver).
    Timer(u32),
    FlowStart(u32),
    Sample,
    WindowStart,
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

/// Build the network of a scenario (nodes, links, routes), random losses drawn
/// from streams of `seed`.
pub fn build_network(sc: &Scenario, seed: u64) -> Network<TcpHeader> {
    let kinds = (0..sc.nodes.len())
        .map(|i| {
            if i < sc.hosts.len() {
                NodeKind::Host
            } else {
                NodeKind::Router
            }
        })
        .collect();
    let mut net = Network::new(kinds);
    for (i, l) in sc.links.iter().enumerate() {
        let q: Box<dyn Qdisc> = match l.queue.kind {
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
                    ..CodelParams::default()
                };
                Box::new(Codel::new(l.queue.limit, p))
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
                };
                Box::new(Red::new(
                    l.queue.limit,
                    p,
                    RngStream::new(seed, QUEUE_STREAM + i as u64),
                ))
            }
        };
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
        let loss = match l.loss {
            LossSpec::None => LossModel::None,
            LossSpec::Every(n) => LossModel::Every { n, seen: 0 },
            LossSpec::Rate(p) => LossModel::Random {
                p,
                rng: RngStream::new(seed, LINK_STREAM + i as u64),
            },
        };
        net.set_loss(i as u32, loss);
    }
    net.compute_routes();
    net
}

struct FlowState {
    sender: Sender,
    receiver: Receiver,
    src: u32,
    dst: u32,
    start: SimTime,
    started: bool,
    rtts: Vec<f64>,
    at_window: (u64, tcplab_tcp::SenderStats),
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
    link_at_window: Vec<(tcplab_net::LinkStats, u128)>,
    traces: Traces,
    trace_interval: SimTime,
}

impl World {
    /// Hand the segments in `out` to the network, from endpoint `ep`.
    #[inline]
    fn flush(&mut self, ep: u32) {
        let f = (ep / 2) as usize;
        let (from, to) = if ep.is_multiple_of(2) {
            (self.flows[f].src, self.flows[f].dst)
        } else {
            (self.flows[f].dst, self.flows[f].src)
        };
        for h in self.out.drain(..) {
            let id = self.net.alloc(Packet {
                src: from,
                dst: to,
                flow: f as u32,
                size: h.wire_size(),
                enqueued_at: SimTime::ZERO,
                header: h,
            });
            self.packets += 1;
            self.net.send(from, id, &mut self.sched);
        }
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

    fn deliver(&mut self, node: u32, id: u32) {
        let p = *self.net.pool.get(id);
        self.net.pool.free(id);
        let f = p.flow as usize;
        let now = self.sched.now();
        let fl = &mut self.flows[f];
        let ep = if node == fl.src {
            fl.sender.on_segment(now, &p.header, &mut self.out);
            if let Some(r) = fl.sender.take_rtt_sample() {
                if self.in_window {
                    fl.rtts.push(r.as_secs_f64());
                }
                if let Some(t) = self.traces.rtt.as_mut() {
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
        self.flush(ep);
    }

    fn sample(&mut self) {
        let now = self.sched.now();
        let t = now.as_secs_f64();
        if let Some(tr) = self.traces.cwnd.as_mut() {
            for (i, f) in self.flows.iter().enumerate() {
                if !f.started {
                    continue;
                }
                tr.time_s.push(t);
                tr.flow.push(i as u32);
                tr.cwnd.push(f.sender.tp.cwnd);
                tr.ssthresh.push(f.sender.tp.ssthresh);
                tr.srtt_s
                    .push(f.sender.rtt().srtt().map_or(f64::NAN, |s| s.as_secs_f64()));
                tr.inflight_bytes.push(f.sender.outstanding_bytes());
            }
        }
        if let Some(tr) = self.traces.queue.as_mut() {
            for (i, l) in self.net.links().iter().enumerate() {
                tr.time_s.push(t);
                tr.link.push(i as u32);
                tr.pkts.push(l.qdisc.len_packets());
                tr.bytes.push(l.qdisc.len_bytes());
            }
        }
        self.sched.schedule(now + self.trace_interval, Ev::Sample);
    }

    fn window_start(&mut self) {
        self.in_window = true;
        let now = self.sched.now();
        for f in &mut self.flows {
            f.at_window = (f.receiver.stats.delivered, f.sender.stats);
        }
        self.link_at_window = self
            .net
            .links()
            .iter()
            .map(|l| (l.stats, l.queue_pkt_ns_at(now)))
            .collect();
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

/// Run a scenario.
pub fn run(sc: &Scenario, seed: Option<u64>) -> RunResult {
    let wall = std::time::Instant::now();
    let seed = seed.unwrap_or(sc.seed);
    let mut net = build_network(sc, seed);
    let _ = &mut net;
    let mut flows = Vec::with_capacity(sc.flows.len());
    for (i, f) in sc.flows.iter().enumerate() {
        let sh = &sc.hosts[f.src as usize];
        let rh = &sc.hosts[f.dst as usize];
        let ctl = cc::make(&sh.cc, &sh.cc_params).expect("validated controller");
        let start = match f.start {
            StartSpec::At(t) => t,
            StartSpec::Uniform(a, b) => {
                let mut rng = RngStream::new(seed, FLOW_STREAM + i as u64);
                SimTime(a.0 + ((b.0 - a.0) as f64 * rng.uniform()).round() as u64)
            }
        };
        flows.push(FlowState {
            sender: Sender::new(sh.tcp.clone(), ctl, f.size),
            receiver: Receiver::new(rh.tcp.clone()),
            src: f.src,
            dst: f.dst,
            start,
            started: false,
            rtts: Vec::with_capacity(1 << 16),
            at_window: (0, Default::default()),
        });
    }
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
    let mut w = World {
        sched: Scheduler::with_capacity(1 << 14),
        timer_at: vec![None; 2 * flows.len()],
        flows,
        net,
        out: Vec::with_capacity(64),
        packets: 0,
        window: (sc.measure_start, sc.measure_end),
        in_window: false,
        link_at_window: Vec::new(),
        traces,
        trace_interval: sc.trace.interval,
    };
    for (i, f) in w.flows.iter().enumerate() {
        w.sched.schedule(f.start, Ev::FlowStart(i as u32));
    }
    w.sched.schedule(sc.measure_start, Ev::WindowStart);
    if sc.trace.cwnd || sc.trace.queue {
        w.sched.schedule(SimTime::ZERO, Ev::Sample);
    }

    // The loop: everything strictly before the end of the measurement window.
    let end = sc.measure_end;
    while let Some((now, ev)) = w.sched.step_before(end) {
        #[cfg(debug_assertions)]
        let mut touched = None;
        match ev {
            Ev::Net(ne) => {
                if let Some((node, id)) = w.net.handle(ne, &mut w.sched) {
                    #[cfg(debug_assertions)]
                    {
                        touched = Some(w.net.pool.get(id).flow as usize);
                    }
                    w.deliver(node, id);
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
                #[cfg(debug_assertions)]
                {
                    touched = Some((ep / 2) as usize);
                }
            }
            Ev::FlowStart(i) => {
                let f = &mut w.flows[i as usize];
                f.started = true;
                f.sender.start(now, &mut w.out);
                w.flush(2 * i);
            }
            Ev::Sample => w.sample(),
            Ev::WindowStart => w.window_start(),
        }
        #[cfg(debug_assertions)]
        w.check(touched);
    }
    let _ = w.window;
    collect(sc, seed, w, wall)
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    // Nearest rank: the smallest value with at least p% of samples at or below it.
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil().max(1.0) as usize;
    sorted[rank - 1]
}

fn collect(sc: &Scenario, seed: u64, mut w: World, wall: std::time::Instant) -> RunResult {
    let end = sc.measure_end;
    let win = (sc.measure_end - sc.measure_start).as_secs_f64();
    if !w.in_window {
        w.window_start();
    }
    let mut flows = Vec::new();
    for (i, (spec, f)) in sc.flows.iter().zip(w.flows.iter_mut()).enumerate() {
        let _ = i;
        let sh = &sc.hosts[f.src as usize];
        f.rtts.sort_by(|a, b| a.total_cmp(b));
        let n = f.rtts.len();
        let delivered_w = f.receiver.stats.delivered - f.at_window.0;
        let s = f.sender.stats;
        let s0 = f.at_window.1;
        let fct = match (f.receiver.last_delivery, spec.size) {
            (Some(t), Some(sz)) if f.receiver.stats.delivered >= sz => (t - f.start).as_secs_f64(),
            _ => f64::NAN,
        };
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
            rtt_mean_s: if n == 0 {
                f64::NAN
            } else {
                f.rtts.iter().sum::<f64>() / n as f64
            },
            rtt_p50_s: percentile(&f.rtts, 50.0),
            rtt_p95_s: percentile(&f.rtts, 95.0),
            rtt_p99_s: percentile(&f.rtts, 99.0),
            rtt_samples: n as u64,
            segs_sent: s.segs_sent,
            segs_retrans: s.segs_retrans,
            fast_retransmits: s.fast_retransmits,
            timeouts: s.timeouts,
            undos: s.undos,
            segs_sent_window: s.segs_sent - s0.segs_sent,
            segs_retrans_window: s.segs_retrans - s0.segs_retrans,
            timeouts_window: s.timeouts - s0.timeouts,
            completed: !fct.is_nan(),
            fct_s: fct,
        });
    }
    let win_ns = (sc.measure_end - sc.measure_start).0 as f64;
    let links = w
        .net
        .links()
        .iter()
        .zip(&w.link_at_window)
        .map(|(l, (s0, q0))| {
            let s = l.stats;
            LinkResult {
                name: format!(
                    "{}->{}",
                    sc.nodes[l.cfg.from as usize], sc.nodes[l.cfg.to as usize]
                ),
                from: sc.nodes[l.cfg.from as usize].clone(),
                to: sc.nodes[l.cfg.to as usize].clone(),
                rate_bps: l.cfg.rate_bps,
                delay_s: l.cfg.delay.as_secs_f64(),
                utilisation: ((s.busy_ns - s0.busy_ns) as f64 / win_ns).min(1.0),
                throughput_bps: (s.sent_bytes - s0.sent_bytes) as f64 * 8.0 / win,
                pkts_sent: s.sent_pkts - s0.sent_pkts,
                drops: s.dropped_pkts - s0.dropped_pkts,
                lost: s.lost_pkts - s0.lost_pkts,
                mean_queue_pkts: (l.queue_pkt_ns_at(end) - q0) as f64 / win_ns,
                qdisc: l.qdisc.name().to_string(),
            }
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
        },
        flows,
        links,
        traces: w.traces,
    }
}
