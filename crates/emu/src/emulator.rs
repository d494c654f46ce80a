//! The link emulator: the scenario's links, routers and queues run against
//! the wall clock between the hosts' TUN devices.
//!
//! Every packet a host sends arrives on its TUN device; the emulator stamps
//! it with the current time, routes it as the simulator does
//! (`tcplab_net::Network::route`), and runs it through each link of its
//! path: the link's queue discipline (the simulator's own code, driven by
//! the same nanosecond clock), its serialisation at the link's rate, its wire
//! losses and its propagation delay. Timing follows an ideal schedule: a
//! transmission ends exactly `size * 8 / rate` after it starts and the next
//! starts at that instant, whenever the loop happens to notice, so lateness
//! never accumulates; only the last step, the write into the destination's
//! TUN device, happens late, and the emulator measures by how much.
//!
//! The loop runs on one thread with real-time priority when it can have it:
//! it sleeps in `ppoll` on the TUN devices until shortly before the next
//! deadline, then spins (reading the devices) until it is due.

use crate::sys;
use std::collections::VecDeque;
use std::os::fd::RawFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;
use tcplab_engine::SimTime;
use tcplab_model::pcap::{ip_node, sender_conn, Capture, RECEIVER_PORT};
use tcplab_model::schema::Scenario;
use tcplab_model::stats::Summary;
use tcplab_model::LinkSnap;
use tcplab_net::qdisc::{QPkt, Qdisc};
use tcplab_net::{Ecn, LinkStats, LossModel};

/// Spin instead of sleeping when the next deadline is this close (ns). A
/// SCHED_FIFO thread's sleep ends within a few microseconds of its deadline
/// (1 ns timer slack), so 50 us is margin enough; it must stay short because
/// the kernel's real-time throttling (`sched_rt_runtime_us`, 950 ms in every
/// 1 s by default) stops a real-time thread that runs more than that for
/// the rest of the second: with 200 us the emulator spun through nearly
/// every gap between packets from 40 Mb/s on, was throttled for 50 ms each
/// second, and delivered late by up to 50 ms (rate error 6-7 %). With 50 us
/// it holds 70 Mb/s in every run, 100-150 Mb/s in most, on the 2-core
/// reference machine (docs/realstack.md).
const SPIN_NS: u64 = 50_000;
/// Consecutive deliveries of a link further apart than this (ideal, ns)
/// belong to different trains and do not count in its spacing error.
const TRAIN_GAP_NS: u64 = 10_000_000;
/// Sleep at most this long, to notice the stop flag (ns).
const MAX_SLEEP_NS: u64 = 2_000_000;
/// Data segments per flow remembered for the receivers' ACK lag.
const ACK_RING: usize = 64;
/// A receiver's ACK later than this after its segment was left to the
/// delayed-ACK timer (Linux's is 40 ms at least): not counted (ns).
const ACK_LAG_MAX_NS: u64 = 5_000_000;
/// A SACK later than this after its segment was held by the receiver's
/// SACK compression (Linux: `tcp_comp_sack_delay_ns`, 1 ms at most, plus
/// the hrtimer's slack); earlier, sent at once (ns).
const SACK_HELD_NS: u64 = 500_000;

/// The emulator's timing on one link.
#[derive(Clone, Debug, Default)]
pub struct LinkTiming {
    /// Packets this link delivered to a host.
    pub delivered: u64,
    /// How late those deliveries were written, seconds.
    pub lateness: Summary,
    /// Spacing of consecutive deliveries less than 10 ms apart: the sum of
    /// their ideal gaps, and the sum of how far each actual gap missed its
    /// ideal one (|change of lateness|), ns. Their ratio is the error of the
    /// rate a receiver sees.
    pub ideal_gaps_ns: u64,
    /// See `ideal_gaps_ns`.
    pub gap_errors_ns: u64,
    /// Packets a TUN device refused.
    pub write_failures: u64,
    /// How long after a data segment was written to its receiver the
    /// receiver's ACK of exactly that segment (its ACK number the segment's
    /// end) was read back, seconds, for segments written in the measurement
    /// window; ACKs later than 5 ms (the delayed-ACK timer's) are left out.
    /// The receiving host's turnaround: its stack, the application's wakeup
    /// and read (Linux ACKs from `tcp_recvmsg` in a bulk transfer), the
    /// emulator's own reading.
    pub ack_lag: Summary,
    /// How long after a receiver's pure ACK was written to its sender the
    /// sender's next data segment of that flow was read back, seconds, for
    /// ACKs written in the measurement window (each ACK at most once; the
    /// last ACK before the segment; gaps over 5 ms left out). The sending
    /// host's turnaround where an ACK releases data at once (its stack from
    /// the ACK in to the segment out, the emulator's own reading); a paced
    /// or window-limited sender answers later, so the low percentiles are
    /// the turnaround.
    pub send_lag: Summary,
    /// How long after an out-of-order data segment was written to its
    /// receiver a SACK whose first block ends at that segment's end was
    /// read back, seconds (segments of the measurement window, each once):
    /// those within 0.5 ms (sent at once: the receiving host's turnaround
    /// without the application) ...
    pub sack_now: Summary,
    /// ... and those from 0.5 to 5 ms (held by Linux's SACK compression
    /// until its timer: `tcp_comp_sack_delay_ns` plus the hrtimer's slack).
    pub sack_held: Summary,
    /// For those held SACKs, how long after the first data segment written
    /// to the receiver since its previous ACK (the segment that armed the
    /// SACK-compression timer) they were read back, seconds: when the
    /// receiver's timer fired.
    pub sack_timer: Summary,
}

/// What the network did to one flow's data segments.
#[derive(Clone, Copy, Debug, Default)]
pub struct FlowDrops {
    /// Data segments dropped or lost.
    pub data: u64,
    /// Of which retransmissions (a sequence number below the highest sent).
    pub retrans: u64,
    /// The first: when (s) and on which link.
    pub first: Option<(f64, u32)>,
}

/// What the emulator reports at the end.
#[derive(Debug, Default)]
pub struct EmuReport {
    /// Per link: counters at each phase boundary of the scenario.
    pub snapshots: Vec<Vec<LinkSnap>>,
    /// Per link: counters at the end of the run.
    pub stats: Vec<LinkStats>,
    /// Per link: its queue discipline's name.
    pub qdiscs: Vec<&'static str>,
    /// Per link: timing.
    pub timing: Vec<LinkTiming>,
    /// Queue trace: (time s, link, packets, bytes).
    pub queue_trace: Vec<(f64, u32, u32, u64)>,
    /// Captures: (link index, pcap bytes).
    pub captures: Vec<(u32, Vec<u8>)>,
    /// Per scenario flow.
    pub flow_drops: Vec<FlowDrops>,
    /// Packets that entered the emulator.
    pub packets: u64,
    /// Packets that were not IPv4 to another host (dropped).
    pub foreign: u64,
    /// Whether the loop ran with real-time priority.
    pub realtime: bool,
}

#[derive(Clone, Copy, Debug, Default)]
struct Meta {
    len: u32,
    dst: u32,
    /// Scenario flow (u32::MAX: none) and whether a retransmitted data segment.
    flow: u32,
    data: bool,
    retrans: bool,
    /// A data segment's end sequence number; a receiver's pure ACK's ACK
    /// number.
    end: u32,
    /// A pure ACK from the flow's receiver.
    rx_ack: bool,
    /// Such an ACK's first SACK block's right edge, if it has one.
    sack: Option<u32>,
    ecn: Ecn,
    /// When it entered its current queue (ideal time, ns).
    enq: u64,
}

struct ELink {
    to: u32,
    rate_bps: u64,
    delay_ns: u64,
    overhead: u32,
    q: Box<dyn Qdisc>,
    loss: LossModel,
    tx: Option<(u32, u64, u64)>,
    wire: VecDeque<(u64, u32)>,
    /// Counters as the simulator's links keep them.
    c: LinkStats,
    qlen: u32,
    qlast: u64,
    /// The last delivery: (ideal time, lateness), ns.
    last_delivery: Option<(u64, u64)>,
    timing: LinkTiming,
    capture: Option<Capture>,
}

impl ELink {
    fn next_time(&self) -> u64 {
        let a = self.tx.map_or(u64::MAX, |t| t.2);
        let b = self.wire.front().map_or(u64::MAX, |w| w.0);
        a.min(b)
    }
    fn tx_ns(&self, len: u32) -> u64 {
        SimTime::transmission((len + self.overhead) as u64, self.rate_bps).0
    }
    fn account_queue(&mut self, t: u64) {
        self.c.queue_pkt_ns += self.qlen as u128 * t.saturating_sub(self.qlast) as u128;
        self.qlast = t;
        self.qlen = self.q.len_packets();
    }
    /// The counters at boundary `t`: the queue integral brought up to it,
    /// the transmission under way cut at it.
    fn snap_at(&self, t: u64) -> LinkSnap {
        let mut busy_ns = self.c.busy_ns;
        if let Some((_, start, end)) = self.tx {
            if start <= t && end > t {
                busy_ns -= end - t;
            }
        }
        LinkSnap {
            stats: self.c,
            busy_ns,
            queue_pkt_ns: self.c.queue_pkt_ns
                + self.qlen as u128 * t.saturating_sub(self.qlast) as u128,
        }
    }
}

/// The emulator's inputs.
pub struct EmuInput<'a> {
    /// The scenario.
    pub sc: &'a Scenario,
    /// Its seed (random drops and losses use the simulator's streams).
    pub seed: u64,
    /// Time zero of the run.
    pub epoch: Instant,
    /// The TUN device of each host, by node index.
    pub tuns: Vec<RawFd>,
    /// Set when the run is over.
    pub stop: Arc<AtomicBool>,
}

struct Emu {
    epoch: Instant,
    links: Vec<ELink>,
    routes: tcplab_net::Routing,
    slot: usize,
    bufs: Vec<u8>,
    meta: Vec<Meta>,
    free: Vec<u32>,
    tuns: Vec<RawFd>,
    n_hosts: u32,
    flow_drops: Vec<FlowDrops>,
    snd_max: Vec<Option<u32>>,
    phases: Vec<u64>,
    next_phase: usize,
    snapshots: Vec<Vec<LinkSnap>>,
    trace_queue: bool,
    interval: u64,
    next_sample: u64,
    measure_start: u64,
    end: u64,
    queue_trace: Vec<(f64, u32, u32, u64)>,
    packets: u64,
    foreign: u64,
    dropped: Vec<QPkt>,
    /// Per flow: the last data segments written to the receiver (end
    /// sequence, when written ns, link), a ring, for the ACK lag.
    written: Vec<[(u32, u64, u32); ACK_RING]>,
    written_next: Vec<usize>,
    /// Per flow: the last receiver's ACK written to the sender and not yet
    /// answered (when written ns, link; u64::MAX: none), for the send lag.
    acked: Vec<(u64, u32)>,
    /// Per flow: the first data segment written to the receiver since the
    /// receiver's last pure ACK was read (when written ns, link; u64::MAX:
    /// none), for the SACK timer.
    since_ack: Vec<(u64, u32)>,
}

impl Emu {
    fn new(inp: &EmuInput<'_>) -> Emu {
        let sc = inp.sc;
        let net = tcplab_model::build_network(sc, inp.seed);
        let routes = net.routing().clone();
        let links: Vec<ELink> = sc
            .links
            .iter()
            .enumerate()
            .map(|(i, l)| ELink {
                to: l.to,
                rate_bps: l.rate_bps,
                delay_ns: l.delay.0,
                overhead: l.overhead,
                q: tcplab_model::make_qdisc(l, i, inp.seed),
                loss: tcplab_model::loss_model(l, i, inp.seed),
                tx: None,
                wire: VecDeque::with_capacity(1024),
                c: LinkStats::default(),
                qlen: 0,
                qlast: 0,
                last_delivery: None,
                timing: LinkTiming::default(),
                capture: sc.trace.pcap.contains(&(i as u32)).then(Capture::new),
            })
            .collect();
        let mtu = sc
            .hosts
            .iter()
            .map(|h| h.tcp.mss + 40)
            .max()
            .unwrap_or(1500);
        let slot = (mtu as usize + 64).max(2048);
        let cap = 4096;
        Emu {
            epoch: inp.epoch,
            routes,
            slot,
            bufs: vec![0; slot * cap],
            meta: vec![Meta::default(); cap],
            free: (0..cap as u32).rev().collect(),
            tuns: inp.tuns.clone(),
            n_hosts: sc.hosts.len() as u32,
            flow_drops: vec![FlowDrops::default(); sc.flows.len()],
            snd_max: vec![None; sc.flows.len()],
            phases: sc.phases.iter().map(|t| t.0).collect(),
            next_phase: 0,
            snapshots: vec![Vec::with_capacity(sc.phases.len()); sc.links.len()],
            trace_queue: sc.trace.queue,
            interval: sc.trace.interval.0.max(1),
            next_sample: 0,
            measure_start: sc.measure_start.0,
            end: sc.measure_end.0,
            queue_trace: Vec::new(),
            packets: 0,
            foreign: 0,
            dropped: Vec::with_capacity(16),
            written: vec![[(0, u64::MAX, 0); ACK_RING]; sc.flows.len()],
            written_next: vec![0; sc.flows.len()],
            acked: vec![(u64::MAX, 0); sc.flows.len()],
            since_ack: vec![(u64::MAX, 0); sc.flows.len()],
            links,
        }
    }

    fn alloc(&mut self) -> u32 {
        if let Some(id) = self.free.pop() {
            return id;
        }
        // Rare: more packets held than ever before; grow by half.
        let old = self.meta.len();
        let grow = old / 2;
        self.bufs.resize((old + grow) * self.slot, 0);
        self.meta.resize(old + grow, Meta::default());
        self.free
            .extend((old as u32 + 1..(old + grow) as u32).rev());
        old as u32
    }

    fn buf(&mut self, id: u32) -> &mut [u8] {
        let s = id as usize * self.slot;
        &mut self.bufs[s..s + self.slot]
    }

    /// Classify a packet read from host `src`: destination node, flow,
    /// whether a data segment and a retransmission. `None`: not ours.
    fn classify(&mut self, id: u32, len: usize) -> Option<Meta> {
        let s = id as usize * self.slot;
        let p = &self.bufs[s..s + len];
        if len < 20 || p[0] >> 4 != 4 {
            return None;
        }
        let ihl = ((p[0] & 0x0f) as usize) * 4;
        let dst = ip_node(&p[16..20]).filter(|&d| d < self.n_hosts)?;
        let ecn = Ecn::from_bits(p[1]);
        let mut m = Meta {
            len: len as u32,
            dst,
            flow: u32::MAX,
            ecn,
            ..Meta::default()
        };
        if p[9] == 6 && len >= ihl + 20 {
            let t = &p[ihl..];
            let sport = u16::from_be_bytes([t[0], t[1]]);
            let dport = u16::from_be_bytes([t[2], t[3]]);
            let (port, to_receiver) = if dport == RECEIVER_PORT {
                (sport, true)
            } else {
                (dport, false)
            };
            if let Some(f) = sender_conn(port, self.flow_drops.len()) {
                let f = f as usize;
                m.flow = f as u32;
                let doff = ((t[12] >> 4) as usize) * 4;
                let payload = len.saturating_sub(ihl + doff) as u32;
                if !to_receiver && payload == 0 {
                    m.rx_ack = true;
                    m.end = u32::from_be_bytes([t[8], t[9], t[10], t[11]]);
                    m.sack = t.get(20..doff).and_then(first_sack_edge);
                }
                if to_receiver && payload > 0 {
                    m.data = true;
                    let seq = u32::from_be_bytes([t[4], t[5], t[6], t[7]]);
                    let end = seq.wrapping_add(payload);
                    m.end = end;
                    match self.snd_max[f] {
                        Some(mx) if (mx.wrapping_sub(end) as i32) >= 0 => m.retrans = true,
                        _ => self.snd_max[f] = Some(end),
                    }
                }
            }
        }
        Some(m)
    }

    fn drop_packet(&mut self, l: usize, id: u32, t: u64, lost: bool) {
        let m = self.meta[id as usize];
        if lost {
            self.links[l].c.lost_pkts += 1;
        } else {
            self.links[l].c.dropped_pkts += 1;
            self.links[l].c.dropped_bytes += m.len as u64;
        }
        if m.data {
            let fd = &mut self.flow_drops[m.flow as usize];
            fd.data += 1;
            fd.retrans += m.retrans as u64;
            if fd.first.is_none() {
                fd.first = Some((t as f64 * 1e-9, l as u32));
            }
        }
        self.free.push(id);
    }

    fn enqueue(&mut self, l: usize, id: u32, t: u64, now: u64) {
        self.meta[id as usize].enq = t;
        let m = self.meta[id as usize];
        let qp = QPkt {
            id,
            size: m.len,
            flow: m.flow,
            ecn: m.ecn,
        };
        let link = &mut self.links[l];
        link.c.arrived_pkts += 1;
        link.c.arrived_bytes += m.len as u64;
        link.account_queue(t);
        let dropped = link.q.enqueue(qp, SimTime(t));
        link.account_queue(t);
        if let Some(d) = dropped {
            self.drop_packet(l, d.id, t, false);
        }
        if self.links[l].tx.is_none() {
            self.start_next(l, t, now);
        }
    }

    fn start_next(&mut self, l: usize, t: u64, now: u64) {
        let mut dropped = std::mem::take(&mut self.dropped);
        let link = &mut self.links[l];
        link.account_queue(t);
        let next = link.q.dequeue(SimTime(t), &mut |d| dropped.push(d));
        link.account_queue(t);
        for d in dropped.drain(..) {
            self.drop_packet(l, d.id, t, false);
        }
        self.dropped = dropped;
        let Some(qp) = next else {
            return;
        };
        let id = qp.id;
        let m = self.meta[id as usize];
        if qp.ecn == Ecn::Ce && m.ecn != Ecn::Ce {
            self.meta[id as usize].ecn = Ecn::Ce;
            self.links[l].c.marked_pkts += 1;
            let b = self.buf(id);
            b[1] |= 3;
            tcplab_tcp::wire::set_ipv4_checksum(b);
        }
        let s = id as usize * self.slot;
        let link = &mut self.links[l];
        let d = link.tx_ns(m.len);
        link.tx = Some((id, t, t + d));
        link.c.sent_pkts += 1;
        link.c.sent_bytes += m.len as u64;
        link.c.busy_ns += d;
        let soj = t - m.enq;
        link.c.sojourn_ns += soj as u128;
        link.c.sojourn_max_ns = link.c.sojourn_max_ns.max(soj);
        if let Some(cap) = link.capture.as_mut() {
            cap.record_ip(SimTime(t), &self.bufs[s..s + m.len as usize]);
        }
        let _ = now;
    }

    fn tx_end(&mut self, l: usize, t: u64, now: u64) {
        let link = &mut self.links[l];
        let (id, _, _) = link.tx.take().expect("a transmission ends");
        if link.loss.lose() {
            self.drop_packet(l, id, t, true);
        } else {
            let at = t + link.delay_ns;
            link.wire.push_back((at, id));
        }
        self.start_next(l, t, now);
    }

    fn arrive(&mut self, l: usize, t: u64, now: u64) {
        let (_, id) = self.links[l].wire.pop_front().expect("a packet arrives");
        self.links[l].c.delivered_pkts += 1;
        let node = self.links[l].to;
        let m = self.meta[id as usize];
        if node == m.dst {
            let s = id as usize * self.slot;
            let fd = self.tuns[node as usize];
            // The packet reaches the host's stack when the write starts.
            let done = (self.epoch.elapsed().as_nanos() as u64).max(now).max(t);
            let ok = sys::write_packet(fd, &self.bufs[s..s + m.len as usize]).unwrap_or(false);
            let link = &mut self.links[l];
            if ok {
                let late = done - t;
                link.timing.delivered += 1;
                link.timing.lateness.add(late as f64 * 1e-9);
                if let Some((t0, late0)) = link.last_delivery {
                    if t - t0 < TRAIN_GAP_NS {
                        link.timing.ideal_gaps_ns += t - t0;
                        link.timing.gap_errors_ns += late.abs_diff(late0);
                    }
                }
                link.last_delivery = Some((t, late));
                if m.data && m.flow != u32::MAX {
                    let f = m.flow as usize;
                    let k = self.written_next[f];
                    self.written[f][k] = (m.end, done, l as u32);
                    self.written_next[f] = (k + 1) % ACK_RING;
                    if self.since_ack[f].0 == u64::MAX {
                        self.since_ack[f] = (done, l as u32);
                    }
                }
                if m.rx_ack && m.flow != u32::MAX {
                    self.acked[m.flow as usize] = (done, l as u32);
                }
            } else {
                link.timing.write_failures += 1;
            }
            self.free.push(id);
            return;
        }
        let Some(next) = self.routes.route(node, m.dst) else {
            self.foreign += 1;
            self.free.push(id);
            return;
        };
        self.enqueue(next as usize, id, t, now);
    }

    /// The earliest pending event: (time, link or u32::MAX for a sample or
    /// a phase boundary).
    fn next_event(&self) -> (u64, usize) {
        let mut best = (u64::MAX, usize::MAX);
        for (i, l) in self.links.iter().enumerate() {
            let t = l.next_time();
            if t < best.0 {
                best = (t, i);
            }
        }
        let tick = self.next_tick();
        if tick <= best.0 {
            best = (tick, usize::MAX);
        }
        best
    }

    fn next_tick(&self) -> u64 {
        let phase = self
            .phases
            .get(self.next_phase)
            .copied()
            .unwrap_or(u64::MAX);
        let sample = if self.trace_queue && self.next_sample <= self.end {
            self.next_sample
        } else {
            u64::MAX
        };
        phase.min(sample)
    }

    fn tick(&mut self, t: u64) {
        if self.phases.get(self.next_phase) == Some(&t) {
            for (i, l) in self.links.iter().enumerate() {
                self.snapshots[i].push(l.snap_at(t));
            }
            self.next_phase += 1;
        }
        if self.trace_queue && self.next_sample == t {
            for (i, l) in self.links.iter().enumerate() {
                self.queue_trace.push((
                    t as f64 * 1e-9,
                    i as u32,
                    l.q.len_packets(),
                    l.q.len_bytes(),
                ));
            }
            self.next_sample += self.interval;
        }
    }

    fn handle(&mut self, t: u64, which: usize, now: u64) {
        if which == usize::MAX {
            self.tick(t);
            return;
        }
        let l = &self.links[which];
        if l.tx.is_some_and(|x| x.2 == t) {
            self.tx_end(which, t, now);
        } else {
            self.arrive(which, t, now);
        }
    }

    /// A receiver's pure ACK `ack` of flow `f`, just read: if it ends
    /// exactly at a data segment written to it (each counted once) in the
    /// measurement window, its lag goes to that segment's link. The read
    /// time is the clock's now, not the loop's: a host may answer within
    /// the write that delivered the segment (the stack runs in the writer's
    /// system call), read back in the same pass of the loop.
    fn time_ack(&mut self, f: usize, ack: u32) {
        if let Some((t, l)) = self.answered(f, ack) {
            if let Some(lag) = self.lag_since(t, 0..=ACK_LAG_MAX_NS) {
                self.links[l as usize].timing.ack_lag.add(lag);
            }
        }
    }

    /// A receiver's SACK of flow `f` whose first block (the one holding the
    /// segment that triggered it, RFC 2018) ends at `edge`, just read: if
    /// `edge` is the end of a data segment written to the receiver in the
    /// measurement window and not yet answered, the lag goes to that
    /// segment's link, as sent at once or held (`SACK_HELD_NS`).
    fn time_sack(&mut self, f: usize, edge: u32) {
        if let Some((t, l)) = self.answered(f, edge) {
            if let Some(lag) = self.lag_since(t, 0..=ACK_LAG_MAX_NS) {
                let timing = &mut self.links[l as usize].timing;
                if lag < SACK_HELD_NS as f64 * 1e-9 {
                    timing.sack_now.add(lag);
                } else {
                    timing.sack_held.add(lag);
                }
            }
        }
    }

    /// The data segment of flow `f` written to its receiver that ends at
    /// `end` and no ACK or SACK has answered yet (when written ns, link),
    /// marked answered; None if the ring holds none.
    fn answered(&mut self, f: usize, end: u32) -> Option<(u64, u32)> {
        let e = self.written[f]
            .iter_mut()
            .find(|e| e.0 == end && e.1 != u64::MAX)?;
        let found = (e.1, e.2);
        e.1 = u64::MAX;
        Some(found)
    }

    /// The clock's time since `t` (ns), in seconds, if `t` lies in the
    /// measurement window and the lag in `range` (ns). The clock's now, not
    /// the loop's: a host may answer within the write that delivered the
    /// packet (the stack runs in the writer's system call), read back in the
    /// same pass of the loop.
    fn lag_since(&self, t: u64, range: std::ops::RangeInclusive<u64>) -> Option<f64> {
        let lag = (self.epoch.elapsed().as_nanos() as u64).saturating_sub(t);
        (range.contains(&lag) && (self.measure_start..=self.end).contains(&t))
            .then_some(lag as f64 * 1e-9)
    }

    /// A receiver's pure ACK of flow `f`, just read (`sack`: it carries SACK
    /// blocks): if a SACK read 0.5 to 5 ms after the first data segment
    /// written to the receiver since its previous ACK (in the measurement
    /// window), that lag goes to the segment's link as the SACK timer's.
    /// Every ACK starts the count again.
    fn time_sack_timer(&mut self, f: usize, sack: bool) {
        let (t, l) = self.since_ack[f];
        self.since_ack[f].0 = u64::MAX;
        if !sack || t == u64::MAX {
            return;
        }
        if let Some(lag) = self.lag_since(t, SACK_HELD_NS..=ACK_LAG_MAX_NS) {
            self.links[l as usize].timing.sack_timer.add(lag);
        }
    }

    /// A sender's data segment of flow `f`, just read: the lag since the
    /// last ACK written to it goes to the link that delivered the ACK (each
    /// ACK once), if the ACK was written in the measurement window and the
    /// lag is at most 5 ms.
    fn time_send(&mut self, f: usize) {
        let (t, l) = self.acked[f];
        if t == u64::MAX {
            return;
        }
        self.acked[f].0 = u64::MAX;
        if let Some(lag) = self.lag_since(t, 0..=ACK_LAG_MAX_NS) {
            self.links[l as usize].timing.send_lag.add(lag);
        }
    }

    fn read_host(&mut self, h: usize, now: u64) -> std::io::Result<()> {
        loop {
            let id = self.alloc();
            let fd = self.tuns[h];
            let s = id as usize * self.slot;
            let slot = self.slot;
            let n = sys::read_packet(fd, &mut self.bufs[s..s + slot])?;
            let Some(n) = n else {
                self.free.push(id);
                return Ok(());
            };
            self.packets += 1;
            let Some(m) = self.classify(id, n) else {
                self.foreign += 1;
                self.free.push(id);
                continue;
            };
            self.meta[id as usize] = m;
            if m.rx_ack && m.flow != u32::MAX {
                self.time_ack(m.flow as usize, m.end);
                if let Some(edge) = m.sack {
                    self.time_sack(m.flow as usize, edge);
                }
                self.time_sack_timer(m.flow as usize, m.sack.is_some());
            }
            if m.data && m.flow != u32::MAX {
                self.time_send(m.flow as usize);
            }
            let first = match self.routes.route(h as u32, m.dst) {
                Some(l) if m.dst as usize != h => l,
                _ => {
                    self.foreign += 1;
                    self.free.push(id);
                    continue;
                }
            };
            self.enqueue(first as usize, id, now, now);
        }
    }
}

/// Run the emulator until `stop` is set. Returns an error only when a TUN
/// device fails.
pub fn run(inp: EmuInput<'_>) -> Result<EmuReport, String> {
    let realtime = sys::realtime_thread(10);
    let mut emu = Emu::new(&inp);
    let mut fds: Vec<libc::pollfd> = inp
        .tuns
        .iter()
        .map(|&fd| libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        })
        .collect();
    let now_ns = || inp.epoch.elapsed().as_nanos() as u64;
    while !inp.stop.load(Ordering::Relaxed) {
        let now = now_ns();
        loop {
            let (t, which) = emu.next_event();
            if t > now {
                break;
            }
            emu.handle(t, which, now);
        }
        for h in 0..emu.tuns.len() {
            emu.read_host(h, now)
                .map_err(|e| format!("the emulator cannot read host {h}'s TUN device: {e}"))?;
        }
        let (next, _) = emu.next_event();
        let after = now_ns();
        if next > after + SPIN_NS {
            let sleep = (next - after - SPIN_NS).min(MAX_SLEEP_NS);
            sys::wait_readable(&mut fds, sleep)
                .map_err(|e| format!("the emulator cannot wait on the TUN devices: {e}"))?;
        }
    }
    let end = now_ns();
    // Boundaries the run reached but no event passed (an idle end).
    while emu.next_phase < emu.phases.len() && emu.phases[emu.next_phase] <= end {
        let t = emu.phases[emu.next_phase];
        emu.tick(t);
    }
    let captures = emu
        .links
        .iter_mut()
        .enumerate()
        .filter_map(|(i, l)| l.capture.take().map(|c| (i as u32, c.bytes)))
        .collect();
    Ok(EmuReport {
        snapshots: emu.snapshots,
        stats: emu.links.iter().map(|l| l.c).collect(),
        qdiscs: emu.links.iter().map(|l| l.q.name()).collect(),
        timing: emu.links.iter().map(|l| l.timing.clone()).collect(),
        queue_trace: emu.queue_trace,
        captures,
        flow_drops: emu.flow_drops,
        packets: emu.packets,
        foreign: emu.foreign,
        realtime,
    })
}

/// The right edge of the first SACK block in TCP options `opts` (RFC 2018:
/// kind 5, length 2 + 8n), if any.
fn first_sack_edge(opts: &[u8]) -> Option<u32> {
    let mut i = 0;
    while i < opts.len() {
        match opts[i] {
            0 => return None,
            1 => i += 1,
            kind => {
                let len = *opts.get(i + 1)? as usize;
                if len < 2 || i + len > opts.len() {
                    return None;
                }
                if kind == 5 && len >= 10 {
                    let r = &opts[i + 6..i + 10];
                    return Some(u32::from_be_bytes([r[0], r[1], r[2], r[3]]));
                }
                i += len;
            }
        }
    }
    None
}

#[cfg(test)]
mod sack_tests {
    use super::first_sack_edge;

    #[test]
    fn the_first_sack_blocks_right_edge_is_found_after_other_options() {
        // NOP, NOP, timestamps (kind 8, length 10), NOP, NOP, SACK of two
        // blocks: [1000, 2448) first, [5000, 6448) second.
        let mut o = vec![1, 1, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2, 1, 1, 5, 18];
        for v in [1000u32, 2448, 5000, 6448] {
            o.extend_from_slice(&v.to_be_bytes());
        }
        assert_eq!(first_sack_edge(&o), Some(2448));
        // No SACK: timestamps only; a truncated option; end of options.
        assert_eq!(first_sack_edge(&o[..12]), None);
        assert_eq!(first_sack_edge(&[1, 1, 5, 18, 0, 0]), None);
        assert_eq!(first_sack_edge(&[0, 5, 10, 0, 0, 0, 1, 0, 0, 0, 2]), None);
    }
}
