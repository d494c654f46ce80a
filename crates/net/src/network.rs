//! Nodes, links and static routing, and the handling of link events.
//!
//! A transmitter that frees up at `t` takes its next packet before anything
//! else happens on its link at `t`: a packet arriving at `t` finds the queue
//! without the packet that starts then, and so does a probe reading the queue at
//! `t`. The link does at the first of these what its `TxDone` event would do, so
//! no result depends on the order in which events at the same instant were
//! scheduled. Counters read at a phase boundary `t` (which runs before anything
//! else at `t`) cover the transmissions started strictly before `t`.
//!
//! ns-2 orders these events otherwise ([`Network::set_ns2_order`], a
//! scenario's `event_order`): it schedules a packet's arrival when the
//! packet's transmission starts (ns-2.35 link/delay.cc `LinkDelay::recv`,
//! which schedules the next transmission then too) and runs events at one
//! instant in the order it scheduled them (common/scheduler.cc
//! `CalendarScheduler::insert` puts an event after those of its time), so the arrival of a packet whose transmission started
//! first is handled first, and an arrival at the instant a transmission ends
//! comes before that link's next departure when the arrival's transmission
//! started before the ending one.

use crate::link::{Link, LinkConfig, Wire};
use crate::packet::{Packet, PacketId, PacketPool};
use crate::qdisc::{QPkt, Qdisc};
use crate::routing::{PathError, Routing};
use crate::{Ecn, LinkId, NodeId};
use tcplab_engine::{RngStream, Scheduler, SimTime};

/// The network's own events, wrapped by the world's event type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NetEvent {
    /// Link `0` finished serialising and has packets waiting.
    TxDone(LinkId),
    /// The oldest packet on link `0`'s wire reaches the far end.
    Arrive(LinkId),
    /// Packet `0` has crossed its source host's stage and goes to its link.
    HostOut(PacketId),
    /// Packet `0` has crossed its destination host's stage (and the receive
    /// latency) and reaches the transport.
    HostIn(PacketId),
}

/// What a host costs the packets it sends and receives, beyond its links: a
/// single FIFO server for both directions (the I/O bus a NIC's DMA crosses,
/// and the CPU's per-packet work) holding each packet `per_packet` plus its
/// bytes at `bus_bps`, then, for a received packet, `rx_latency` before the
/// transport sees it (interrupt and protocol processing delay). Packets
/// waiting to be sent may be limited (`tx_limit`, a device queue such as
/// Linux's `txqueuelen`) and so may packets waiting to be received
/// (`rx_limit`, an input backlog such as Linux's `netdev_max_backlog`): a
/// packet finding that many of its direction waiting is dropped.
///
/// `tx_jitter` delays each packet to send by a random time, uniform in
/// [0, tx_jitter), after its service, never past the packet sent before it
/// (order is kept): the random overhead ns-2 adds before each send
/// (`overhead_` of its TCP agents) so that a deterministic simulation does
/// not lock into phase effects (Floyd & Jacobson, "On traffic phase effects
/// in packet-switched gateways", 1992). It costs the stage no busy time.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HostStageConfig {
    /// Fixed cost of every packet, sent or received.
    pub per_packet: SimTime,
    /// Bus rate, bits per second (0: no per-byte cost).
    pub bus_bps: u64,
    /// Delay between the end of a received packet's service and its delivery.
    pub rx_latency: SimTime,
    /// Packets to send that may wait (0: no limit).
    pub tx_limit: u32,
    /// Received packets that may wait (0: no limit).
    pub rx_limit: u32,
    /// Bound of the random delay of each packet sent (zero: none).
    pub tx_jitter: SimTime,
}

impl HostStageConfig {
    /// Whether the stage costs nothing (no stage is then installed).
    pub fn is_free(&self) -> bool {
        self.per_packet == SimTime::ZERO
            && self.bus_bps == 0
            && self.rx_latency == SimTime::ZERO
            && self.tx_jitter == SimTime::ZERO
    }
    /// Service time of a packet of `size` bytes: `per_packet` plus the
    /// rounded-up time of its bits on the bus.
    pub fn service(&self, size: u32) -> SimTime {
        let bytes = if self.bus_bps == 0 {
            0
        } else {
            (size as u128 * 8 * 1_000_000_000).div_ceil(self.bus_bps as u128) as u64
        };
        SimTime(self.per_packet.0 + bytes)
    }
}

/// A host's stage and what it did.
#[derive(Clone, Debug, Default)]
pub struct HostStage {
    /// Its costs.
    pub cfg: HostStageConfig,
    /// When the server finishes the packets it holds.
    pub busy_until: SimTime,
    /// Packets in service or waiting (sent and received).
    pub held: u64,
    /// Of which to send.
    pub tx_held: u32,
    /// Sent packets dropped because `tx_limit` were waiting.
    pub tx_drops: u64,
    /// Received packets dropped because `rx_limit` were waiting.
    pub rx_drops: u64,
    /// Packets served, sent and received.
    pub served_pkts: u64,
    /// Time spent serving, nanoseconds.
    pub busy_ns: u64,
    /// The random stream of `tx_jitter`.
    pub rng: Option<RngStream>,
    /// When the last packet sent leaves the stage (jitter keeps the order).
    pub tx_last_out: SimTime,
}

/// What a node is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKind {
    /// An end host: packets addressed to it are delivered to its transport.
    Host,
    /// A router: forwards packets along its routes.
    Router,
}

/// A packet the network discarded: dropped by a queue or lost on a wire.
/// The network keeps them until the caller clears them (see
/// [`Network::drops`]), so that the caller can attribute them to whatever it
/// knows of the packet's header.
#[derive(Clone, Copy, Debug)]
pub struct DropRecord<H> {
    /// When.
    pub at: SimTime,
    /// The link whose queue dropped it, or on whose wire it was lost.
    pub link: LinkId,
    /// Lost on the wire (the link's loss model) rather than dropped by the queue.
    pub on_wire: bool,
    /// The packet's flow index.
    pub flow: u32,
    /// The packet's transport header.
    pub header: H,
}

/// A packet a captured link started to transmit (see [`Network::set_capture`]).
#[derive(Clone, Copy, Debug)]
pub struct CaptureRecord<H> {
    /// When its transmission started.
    pub at: SimTime,
    /// The link.
    pub link: LinkId,
    /// The packet as it left (its ECN field as the queue left it).
    pub packet: Packet<H>,
}

/// The network: nodes, links, routes and the packet pool.
pub struct Network<H> {
    /// All packets in existence.
    pub pool: PacketPool<H>,
    links: Vec<Link>,
    kinds: Vec<NodeKind>,
    /// The routes (see [`crate::routing`]).
    routing: Routing,
    /// Packets that had no route (should stay zero after validation).
    pub unroutable: u64,
    /// Packets discarded since the caller last cleared them.
    drops: Vec<DropRecord<H>>,
    /// Each node's host stage, if it has one.
    stages: Vec<Option<HostStage>>,
    /// Whether any node has a stage.
    any_stage: bool,
    /// Nodes with a stage.
    staged: usize,
    /// Links whose transmissions are logged.
    capture: Vec<bool>,
    /// Whether any link is captured.
    any_capture: bool,
    /// Transmissions of captured links since the caller last cleared them.
    captures: Vec<CaptureRecord<H>>,
    /// ns-2's order of events at one instant (see [`Network::set_ns2_order`]).
    ns2_order: bool,
}

impl<H: Copy> Network<H> {
    /// A network of the given nodes and no links.
    pub fn new(kinds: Vec<NodeKind>) -> Self {
        let n = kinds.len();
        Network {
            pool: PacketPool::with_capacity(4096),
            links: Vec::new(),
            routing: Routing::new(&kinds),
            kinds,
            unroutable: 0,
            drops: Vec::with_capacity(64),
            stages: vec![None; n],
            any_stage: false,
            staged: 0,
            capture: Vec::new(),
            any_capture: false,
            captures: Vec::new(),
            ns2_order: false,
        }
    }
    /// Order events at one instant as ns-2 does: ns-2 schedules a packet's
    /// arrival at the far end when its transmission starts
    /// (`LinkDelay::recv`) and the next transmission when this one starts,
    /// and runs events at one instant in the order they were scheduled. So
    /// of two packets reaching a node at the same instant the one whose
    /// transmission started first is handled first, and an arrival at the
    /// instant a transmission ends finds the next packet still queued if its
    /// own transmission started before the ending one. Off (the default):
    /// the departure goes first (see the module header). Drop Tail links
    /// (which run their own FIFO) only.
    pub fn set_ns2_order(&mut self, on: bool) {
        self.ns2_order = on;
    }
    /// Log every packet link `l` starts to transmit (a packet capture on the
    /// link's sending interface: queue drops are not seen, wire losses are).
    pub fn set_capture(&mut self, l: LinkId, on: bool) {
        if self.capture.len() < self.links.len() {
            self.capture.resize(self.links.len(), false);
        }
        self.capture[l as usize] = on;
        self.any_capture = self.capture.iter().any(|&c| c);
    }
    /// Transmissions of captured links since the last [`Network::clear_captures`],
    /// in order of event (per link, in order of time).
    #[inline]
    pub fn captures(&self) -> &[CaptureRecord<H>] {
        &self.captures
    }
    /// Forget the logged transmissions (the buffer keeps its capacity).
    #[inline]
    pub fn clear_captures(&mut self) {
        self.captures.clear();
    }
    #[inline]
    fn captured(&self, l: LinkId) -> bool {
        self.capture.get(l as usize).copied().unwrap_or(false)
    }
    /// Give host `node` a stage (a free one removes it).
    pub fn set_host_stage(&mut self, node: NodeId, cfg: HostStageConfig) {
        assert_eq!(
            self.kinds[node as usize],
            NodeKind::Host,
            "only hosts have a stage"
        );
        let slot = &mut self.stages[node as usize];
        self.staged -= usize::from(slot.is_some());
        *slot = (!cfg.is_free()).then(|| HostStage {
            cfg,
            rng: (cfg.tx_jitter > SimTime::ZERO).then(|| RngStream::new(0, node as u64)),
            ..HostStage::default()
        });
        self.staged += usize::from(slot.is_some());
        // Counted, not searched: a scenario sets every host's stage.
        self.any_stage = self.staged > 0;
    }
    /// The random stream host `node`'s `tx_jitter` draws from (a run's seed).
    pub fn seed_host_stage(&mut self, node: NodeId, rng: RngStream) {
        if let Some(st) = self.stages[node as usize].as_mut() {
            if st.cfg.tx_jitter > SimTime::ZERO {
                st.rng = Some(rng);
            }
        }
    }
    /// Host `node`'s stage, if any.
    pub fn host_stage(&self, node: NodeId) -> Option<&HostStage> {
        self.stages[node as usize].as_ref()
    }
    /// Put a packet of `size` bytes through `node`'s stage (`tx`: to send):
    /// `Some(Some(t))` when it comes out at `t`, `Some(None)` when the stage
    /// drops it (full), `None` when the node has no stage.
    #[inline]
    fn through_stage(
        &mut self,
        node: NodeId,
        size: u32,
        tx: bool,
        now: SimTime,
    ) -> Option<Option<SimTime>> {
        if !self.any_stage {
            return None;
        }
        let st = self.stages[node as usize].as_mut()?;
        let rx_held = st.held as u32 - st.tx_held;
        if tx && st.cfg.tx_limit > 0 && st.tx_held >= st.cfg.tx_limit {
            st.tx_drops += 1;
            return Some(None);
        }
        if !tx && st.cfg.rx_limit > 0 && rx_held >= st.cfg.rx_limit {
            st.rx_drops += 1;
            return Some(None);
        }
        if tx {
            st.tx_held += 1;
        }
        let t = st.cfg.service(size);
        st.busy_until = st.busy_until.max(now) + t;
        st.held += 1;
        st.served_pkts += 1;
        st.busy_ns += t.0;
        let mut out = st.busy_until;
        if let (true, Some(rng)) = (tx, st.rng.as_mut()) {
            out = (out + SimTime(rng.below(st.cfg.tx_jitter.0))).max(st.tx_last_out);
            st.tx_last_out = out;
        }
        Some(Some(out))
    }
    /// Add a simplex link; returns its id.
    pub fn add_link(&mut self, cfg: LinkConfig, qdisc: Box<dyn Qdisc>) -> LinkId {
        assert!((cfg.from as usize) < self.kinds.len() && (cfg.to as usize) < self.kinds.len());
        assert!(cfg.rate_bps > 0);
        self.links.push(Link::new(cfg, qdisc));
        (self.links.len() - 1) as LinkId
    }
    /// Packets dropped or lost since the last [`Network::clear_drops`], in order.
    #[inline]
    pub fn drops(&self) -> &[DropRecord<H>] {
        &self.drops
    }
    /// Forget the recorded drops (the buffer keeps its capacity). A caller
    /// that never reads them should still clear them now and then.
    #[inline]
    pub fn clear_drops(&mut self) {
        self.drops.clear();
    }
    /// Record packet `id` as discarded at link `l`, then free it.
    #[inline]
    fn discard(
        pool: &mut PacketPool<H>,
        drops: &mut Vec<DropRecord<H>>,
        at: SimTime,
        link: LinkId,
        on_wire: bool,
        id: PacketId,
    ) {
        let p = pool.get(id);
        drops.push(DropRecord {
            at,
            link,
            on_wire,
            flow: p.flow,
            header: p.header,
        });
        pool.free(id);
    }
    /// Number of nodes.
    pub fn node_count(&self) -> usize {
        self.kinds.len()
    }
    /// The kind of a node.
    pub fn kind(&self, n: NodeId) -> NodeKind {
        self.kinds[n as usize]
    }
    /// All links.
    pub fn links(&self) -> &[Link] {
        &self.links
    }
    /// One link.
    pub fn link(&self, l: LinkId) -> &Link {
        &self.links[l as usize]
    }
    /// Set the route from `node` towards `dst` explicitly (it wins over the
    /// shortest path, before or after [`Network::compute_routes`]).
    pub fn set_route(&mut self, node: NodeId, dst: NodeId, link: LinkId) {
        assert_eq!(
            self.links[link as usize].cfg.from, node,
            "route must leave from the node"
        );
        self.routing.set_explicit(node, dst, link);
    }
    /// The link `node` uses towards `dst`, if any.
    #[inline]
    pub fn route(&self, node: NodeId, dst: NodeId) -> Option<LinkId> {
        self.routing.route(node, dst)
    }
    /// The routes.
    pub fn routing(&self) -> &Routing {
        &self.routing
    }
    /// The links from `from` to `to` along the routes.
    pub fn path(&self, from: NodeId, to: NodeId) -> Result<Vec<LinkId>, PathError> {
        self.routing
            .walk(from, to, |l| self.links[l as usize].cfg.to)
    }
    /// Compute the shortest paths in hops (ties broken by the lowest link
    /// id, so routes are deterministic) towards every host and every
    /// destination of an explicit route; explicit routes win over them.
    /// Packets never transit through hosts other than their source. Routes
    /// towards other nodes (routers no packet is addressed to) are `None`.
    pub fn compute_routes(&mut self) {
        let mut dsts: Vec<NodeId> = (0..self.kinds.len() as NodeId)
            .filter(|&n| self.kinds[n as usize] == NodeKind::Host)
            .collect();
        dsts.extend(self.routing.explicit_destinations());
        let ends: Vec<(NodeId, NodeId)> =
            self.links.iter().map(|l| (l.cfg.from, l.cfg.to)).collect();
        self.routing.compute(&ends, &dsts);
    }
    /// Take routes computed apart (as [`Network::compute_routes`] would, over
    /// this network's links in id order and its node kinds), in place of
    /// [`Network::set_route`] and [`Network::compute_routes`].
    pub fn set_routing(&mut self, routing: Routing) {
        assert_eq!(
            routing.link_count(),
            self.links.len(),
            "routes computed for other links"
        );
        self.routing = routing;
    }

    /// Send packet `id` from `node` along its route (used by hosts and routers).
    #[inline]
    pub fn send<E: Copy + From<NetEvent>>(
        &mut self,
        node: NodeId,
        id: PacketId,
        sched: &mut Scheduler<E>,
    ) {
        let p = self.pool.get(id);
        let (dst, size) = (p.dst, p.size);
        match self.through_stage(node, size, true, sched.now()) {
            Some(Some(at)) => {
                debug_assert_eq!(self.pool.get(id).src, node, "a host sends its own packets");
                sched.schedule(at, NetEvent::HostOut(id).into());
                return;
            }
            Some(None) => {
                // Dropped in the device queue in front of the link it would
                // take: counted there, as that link's queue would.
                let now = sched.now();
                match self.route(node, dst) {
                    Some(l) => {
                        let st = &mut self.links[l as usize].stats;
                        st.arrived_pkts += 1;
                        st.arrived_bytes += size as u64;
                        st.dropped_pkts += 1;
                        st.dropped_bytes += size as u64;
                        Self::discard(&mut self.pool, &mut self.drops, now, l, false, id);
                    }
                    None => {
                        self.unroutable += 1;
                        self.pool.free(id);
                    }
                }
                return;
            }
            None => {}
        }
        self.forward(node, id, dst, size, sched);
    }

    /// Send packet `id`, addressed to `dst` and of `size` bytes, from `node`
    /// along its route. Routers call it with the destination and size kept on
    /// the wire, so that a packet's slot is not touched at every hop.
    #[inline]
    fn forward<E: Copy + From<NetEvent>>(
        &mut self,
        node: NodeId,
        id: PacketId,
        dst: NodeId,
        size: u32,
        sched: &mut Scheduler<E>,
    ) {
        match self.route(node, dst) {
            Some(l) => self.offer(l, id, dst, size, sched),
            None => {
                self.unroutable += 1;
                self.pool.free(id);
            }
        }
    }

    /// Offer packet `id` to link `l`'s queue, starting transmission if idle.
    pub fn enqueue<E: Copy + From<NetEvent>>(
        &mut self,
        l: LinkId,
        id: PacketId,
        sched: &mut Scheduler<E>,
    ) {
        let p = self.pool.get(id);
        let (dst, size) = (p.dst, p.size);
        self.offer(l, id, dst, size, sched);
    }

    /// [`Network::enqueue`] with the packet's destination and size at hand.
    #[inline]
    fn offer<E: Copy + From<NetEvent>>(
        &mut self,
        l: LinkId,
        id: PacketId,
        dst: NodeId,
        size: u32,
        sched: &mut Scheduler<E>,
    ) {
        let now = sched.now();
        let link = &mut self.links[l as usize];
        let Some(limit) = link.fifo else {
            self.offer_qdisc(l, id, size, sched);
            return;
        };
        // Drop Tail run by the link: the packet's transmission is fixed now.
        link.stats.arrived_pkts += 1;
        link.stats.arrived_bytes += size as u64;
        let until = if self.ns2_order {
            link.departed_before(now, sched.stamp())
        } else {
            SimTime(now.0 + 1)
        };
        match link.fifo_offer(limit, id, dst, size, now, until) {
            Some((at, alone)) => {
                if alone {
                    sched.schedule(at, NetEvent::Arrive(l).into());
                }
                if self.any_capture {
                    self.capture_fifo(l, id, at, size);
                }
            }
            None => {
                link.stats.dropped_pkts += 1;
                link.stats.dropped_bytes += size as u64;
                Self::discard(&mut self.pool, &mut self.drops, now, l, false, id);
            }
        }
    }

    /// Log packet `id`'s transmission on FIFO link `l`, if the link is captured.
    #[inline(never)]
    fn capture_fifo(&mut self, l: LinkId, id: PacketId, at: SimTime, size: u32) {
        if self.captured(l) {
            let start = self.links[l as usize].start_for(at, size);
            let packet = *self.pool.get(id);
            self.captures.push(CaptureRecord {
                at: start,
                link: l,
                packet,
            });
        }
    }

    /// [`Network::offer`] to a link whose discipline decides at dequeue time
    /// (kept out of line: the Drop Tail path above is the hot one).
    #[inline(never)]
    fn offer_qdisc<E: Copy + From<NetEvent>>(
        &mut self,
        l: LinkId,
        id: PacketId,
        size: u32,
        sched: &mut Scheduler<E>,
    ) {
        let now = sched.now();
        self.settle(l, sched);
        let p = self.pool.get_mut(id);
        p.enqueued_at = now;
        let (flow, ecn) = (p.flow, p.ecn);
        let link = &mut self.links[l as usize];
        link.stats.arrived_pkts += 1;
        link.stats.arrived_bytes += size as u64;
        link.touch_queue(now);
        if let Some(d) = link.qdisc.enqueue(
            QPkt {
                id,
                size,
                flow,
                ecn,
            },
            now,
        ) {
            link.stats.dropped_pkts += 1;
            link.stats.dropped_bytes += d.size as u64;
            Self::discard(&mut self.pool, &mut self.drops, now, l, false, d.id);
        }
        if !link.busy(now) {
            self.start_tx(l, sched);
        } else {
            Self::wake_at_end(link, l, sched);
        }
    }

    /// If link `l`'s transmitter frees up now and its `TxDone` has not run yet,
    /// start the next packet now (the `TxDone` then finds the link busy).
    #[inline]
    fn settle<E: Copy + From<NetEvent>>(&mut self, l: LinkId, sched: &mut Scheduler<E>) {
        let link = &self.links[l as usize];
        if link.tx_event && !link.busy(sched.now()) {
            self.start_tx(l, sched);
        }
    }

    /// Bring every link up to now: transmitters that free up now take their
    /// next packet (see the module header). Call before reading queue lengths.
    pub fn sync<E: Copy + From<NetEvent>>(&mut self, sched: &mut Scheduler<E>) {
        let now = sched.now();
        for l in 0..self.links.len() as LinkId {
            if self.links[l as usize].fifo.is_some() {
                self.links[l as usize].advance(SimTime(now.0 + 1));
            } else {
                self.settle(l, sched);
            }
        }
    }

    /// Bring the counters of links running their own FIFO up to the
    /// transmissions started before `t` (the others are always up to date for
    /// the past). Call before reading link counters at a boundary `t` that runs
    /// before anything else at `t`.
    pub fn sync_before(&mut self, t: SimTime) {
        for link in self.links.iter_mut().filter(|l| l.fifo.is_some()) {
            link.advance(t);
        }
    }

    /// Make sure a `TxDone` is pending at the end of the current serialisation
    /// (at most one per link). Links idle when a packet arrives need none.
    #[inline]
    fn wake_at_end<E: Copy + From<NetEvent>>(link: &mut Link, l: LinkId, sched: &mut Scheduler<E>) {
        if !link.tx_event && link.qdisc.len_packets() > 0 {
            link.tx_event = true;
            sched.schedule(link.busy_until, NetEvent::TxDone(l).into());
        }
    }

    fn start_tx<E: Copy + From<NetEvent>>(&mut self, l: LinkId, sched: &mut Scheduler<E>) {
        let now = sched.now();
        let link = &mut self.links[l as usize];
        link.touch_queue(now);
        let pool = &mut self.pool;
        let drops = &mut self.drops;
        let stats = &mut link.stats;
        let next = link.qdisc.dequeue(now, &mut |d: QPkt| {
            stats.dropped_pkts += 1;
            stats.dropped_bytes += d.size as u64;
            Self::discard(pool, drops, now, l, false, d.id);
        });
        if let Some(p) = next {
            // The queue's view carries its CE mark: apply it to the packet. A
            // mark counts when it changes the field (a packet marked upstream
            // stays one mark).
            let pkt = pool.get_mut(p.id);
            debug_assert!(
                p.ecn == pkt.ecn || p.ecn == Ecn::Ce,
                "a queue may only mark CE"
            );
            if p.ecn == Ecn::Ce && pkt.ecn != Ecn::Ce {
                pkt.ecn = Ecn::Ce;
                link.stats.marked_pkts += 1;
            }
            if self.capture.get(l as usize).copied().unwrap_or(false) {
                self.captures.push(CaptureRecord {
                    at: now,
                    link: l,
                    packet: *pkt,
                });
            }
            let (enqueued, dst) = (pkt.enqueued_at, pkt.dst);
            let waited = (now - enqueued).0;
            link.stats.sojourn_ns += waited as u128;
            link.stats.sojourn_max_ns = link.stats.sojourn_max_ns.max(waited);
            let t = link.tx_time(p.size);
            link.busy_until = now + t;
            link.stats.busy_ns += t.0;
            link.stats.sent_pkts += 1;
            link.stats.sent_bytes += p.size as u64;
            let at = link.busy_until + link.cfg.delay;
            link.wire.push_back(Wire {
                at,
                enqueued,
                id: p.id,
                size: p.size,
                dst,
            });
            debug_assert_eq!(link.wire.back().map(|w| link.start_of(w)), Some(now));
            if link.wire.len() == 1 {
                sched.schedule(at, NetEvent::Arrive(l).into());
            }
            Self::wake_at_end(link, l, sched);
        }
    }

    /// Handle a network event. Returns `(node, packet)` when a packet reaches the
    /// host it is addressed to; the caller then owns it and must free it.
    #[inline]
    pub fn handle<E: Copy + From<NetEvent>>(
        &mut self,
        ev: NetEvent,
        sched: &mut Scheduler<E>,
    ) -> Option<(NodeId, PacketId)> {
        match ev {
            NetEvent::TxDone(l) => {
                let link = &mut self.links[l as usize];
                link.tx_event = false;
                if link.busy(sched.now()) {
                    // An arrival at this very instant already started the next packet.
                    Self::wake_at_end(link, l, sched);
                } else {
                    self.start_tx(l, sched);
                }
                None
            }
            NetEvent::Arrive(l) => {
                // With no propagation delay the next packet starts at this instant:
                // put it on the wire first, as any order of the two events would.
                let link = &mut self.links[l as usize];
                if link.fifo.is_some() {
                    link.advance(SimTime(sched.now().0 + 1));
                } else {
                    self.settle(l, sched);
                }
                let link = &mut self.links[l as usize];
                let w = link.wire.pop_front().expect("Arrive with an empty wire");
                if let Some(next) = link.wire.front() {
                    if self.ns2_order {
                        let stamp = link.start_of(next).min(sched.now());
                        sched.schedule_stamped(next.at, stamp, NetEvent::Arrive(l).into());
                    } else {
                        sched.schedule(next.at, NetEvent::Arrive(l).into());
                    }
                }
                if link.loss.lose() {
                    link.stats.lost_pkts += 1;
                    let now = sched.now();
                    Self::discard(&mut self.pool, &mut self.drops, now, l, true, w.id);
                    return None;
                }
                link.stats.delivered_pkts += 1;
                let node = link.cfg.to;
                if w.dst == node {
                    match self.through_stage(node, w.size, false, sched.now()) {
                        Some(Some(at)) => {
                            let lat = self.stages[node as usize]
                                .as_ref()
                                .map_or(SimTime::ZERO, |s| s.cfg.rx_latency);
                            sched.schedule(at + lat, NetEvent::HostIn(w.id).into());
                            return None;
                        }
                        Some(None) => {
                            // The input backlog is full: the host drops it
                            // (recorded against the link it came on, which
                            // delivered it).
                            let now = sched.now();
                            Self::discard(&mut self.pool, &mut self.drops, now, l, false, w.id);
                            return None;
                        }
                        None => {}
                    }
                    Some((node, w.id))
                } else {
                    self.forward(node, w.id, w.dst, w.size, sched);
                    None
                }
            }
            NetEvent::HostOut(id) => {
                let p = self.pool.get(id);
                let (src, dst, size) = (p.src, p.dst, p.size);
                self.leave_stage(src);
                if let Some(st) = self.stages[src as usize].as_mut() {
                    st.tx_held -= 1;
                }
                self.forward(src, id, dst, size, sched);
                None
            }
            NetEvent::HostIn(id) => {
                let dst = self.pool.get(id).dst;
                self.leave_stage(dst);
                Some((dst, id))
            }
        }
    }

    fn leave_stage(&mut self, node: NodeId) {
        if let Some(st) = self.stages[node as usize].as_mut() {
            st.held -= 1;
        }
    }

    /// Set the loss model of link `l`.
    pub fn set_loss(&mut self, l: LinkId, loss: crate::link::LossModel) {
        self.links[l as usize].loss = loss;
    }

    /// Packets held by links (queued, serialising, propagating) and host stages.
    pub fn packets_in_links(&self) -> u64 {
        self.links.iter().map(|l| l.held_packets()).sum::<u64>()
            + self.stages.iter().flatten().map(|s| s.held).sum::<u64>()
    }

    /// Build a packet and allocate it.
    #[inline]
    pub fn alloc(&mut self, p: Packet<H>) -> PacketId {
        self.pool.alloc(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::{DropTail, QueueLimit};
    use tcplab_engine::SimTime;

    #[derive(Clone, Copy, Debug, PartialEq)]
    enum Ev {
        Net(NetEvent),
    }
    impl From<NetEvent> for Ev {
        fn from(e: NetEvent) -> Self {
            Ev::Net(e)
        }
    }

    fn two_hosts(rate: u64, delay_ms: u64, limit: u32) -> Network<u32> {
        let mut net = Network::new(vec![NodeKind::Host, NodeKind::Host]);
        net.add_link(
            LinkConfig {
                from: 0,
                to: 1,
                rate_bps: rate,
                delay: SimTime::from_millis(delay_ms),
                overhead_bytes: 0,
            },
            Box::new(DropTail::new(QueueLimit::Packets(limit))),
        );
        net.compute_routes();
        net
    }

    fn pkt(seq: u32, size: u32) -> Packet<u32> {
        Packet {
            src: 0,
            dst: 1,
            flow: 0,
            size,
            enqueued_at: SimTime::ZERO,
            ecn: Ecn::NotEct,
            header: seq,
        }
    }

    /// Run to completion; returns (arrival time, header) of delivered packets.
    fn drain(net: &mut Network<u32>, s: &mut Scheduler<Ev>) -> Vec<(u64, u32)> {
        let mut out = vec![];
        while let Some((t, Ev::Net(e))) = s.step() {
            if let Some((_, id)) = net.handle(e, s) {
                out.push((t.0, net.pool.get(id).header));
                net.pool.free(id);
            }
        }
        out
    }

    #[test]
    fn serialisation_and_propagation_are_exact_to_the_nanosecond() {
        // 10 Mb/s, 42 ms: a 1500 B packet sent at 0 arrives at 1.2 ms + 42 ms.
        // Three back-to-back packets arrive 1.2 ms apart.
        let mut net = two_hosts(10_000_000, 42, 100);
        let mut s = Scheduler::new();
        for i in 0..3 {
            let id = net.alloc(pkt(i, 1500));
            net.send(0, id, &mut s);
        }
        let got = drain(&mut net, &mut s);
        assert_eq!(got, vec![(43_200_000, 0), (44_400_000, 1), (45_600_000, 2)]);
    }

    /// Host 0 of `net` with a stage of only `tx_jitter` j, seeded.
    fn jittered(mut net: Network<u32>, j: SimTime, seed: u64) -> Network<u32> {
        let cfg = HostStageConfig {
            tx_jitter: j,
            ..HostStageConfig::default()
        };
        net.set_host_stage(0, cfg);
        net.seed_host_stage(0, RngStream::new(seed, 0));
        net
    }

    #[test]
    fn tx_jitter_delays_isolated_packets_uniformly_below_its_bound() {
        // 10 Mb/s, 42 ms: an isolated 1500 B packet takes 43.2 ms plus its
        // jitter, uniform in [0, 1 ms): over n packets the mean delay is
        // 0.5 ms with a standard error of 1 ms / sqrt(12 n).
        let j = SimTime::from_millis(1);
        let mut net = jittered(two_hosts(10_000_000, 42, 100), j, 7);
        let mut s = Scheduler::new();
        let n = 2000u32;
        let mut sum = 0.0;
        for i in 0..n {
            let sent = s.now();
            let id = net.alloc(pkt(i, 1500));
            net.send(0, id, &mut s);
            let got = drain(&mut net, &mut s);
            assert_eq!(got.len(), 1);
            let d = got[0].0 - sent.0 - 43_200_000;
            assert!(d < j.0, "packet {i}: jitter {d} ns");
            sum += d as f64;
        }
        let mean = sum / n as f64;
        let se = j.0 as f64 / (12.0 * n as f64).sqrt();
        assert!(
            (mean - 0.5e6).abs() < 4.0 * se,
            "mean jitter {mean} ns, se {se}"
        );
        // The stage costs no busy time.
        assert_eq!(net.host_stage(0).map(|st| st.busy_ns), Some(0));
    }

    #[test]
    fn tx_jitter_keeps_the_order_of_a_burst() {
        // 2000 packets sent at once: each leaves at the largest jitter drawn
        // so far (never before the one sent before it), so they arrive in
        // order, all within 1 ms of the ideal schedule, and the last one
        // after 0.995 ms but for a chance of 0.995^2000 < 1e-4.
        let j = SimTime::from_millis(1);
        let mut net = jittered(two_hosts(100_000_000_000, 0, 10_000), j, 11);
        let mut s = Scheduler::new();
        for i in 0..2000 {
            let id = net.alloc(pkt(i, 1500));
            net.send(0, id, &mut s);
        }
        let got = drain(&mut net, &mut s);
        let order: Vec<u32> = got.iter().map(|g| g.1).collect();
        assert_eq!(order, (0..2000).collect::<Vec<_>>());
        // 1500 B at 100 Gb/s: 120 ns each, at most 2000 of them queued.
        assert!(got.iter().all(|g| g.0 < j.0 + 2000 * 120));
        assert!(got[1999].0 > 995_000);
    }

    #[test]
    fn host_stages_serve_each_packet_once_at_each_end_in_fifo_order() {
        // Both hosts: 10 us per packet plus a 1 Gb/s bus (1500 B: 12 us), so
        // 22 us per packet; the receiver adds 5 us of latency. Link 10 Mb/s
        // (1.2 ms per packet), 42 ms.
        // Packet k leaves the sender's stage at 22(k+1) us; the link is idle
        // for packet 0 (starts 22 us), then busy: packet k starts at
        // 22 + 1200k us and reaches the far end 1200 us + 42 ms later. There
        // the stage is idle (packets 1.2 ms apart), so each is delivered 22 + 5 us after.
        let mut net = two_hosts(10_000_000, 42, 100);
        let stage = HostStageConfig {
            per_packet: SimTime::from_micros(10),
            bus_bps: 1_000_000_000,
            ..HostStageConfig::default()
        };
        assert_eq!(stage.service(1500), SimTime::from_micros(22));
        net.set_host_stage(0, stage);
        net.set_host_stage(
            1,
            HostStageConfig {
                rx_latency: SimTime::from_micros(5),
                ..stage
            },
        );
        let mut s = Scheduler::new();
        for i in 0..3 {
            let id = net.alloc(pkt(i, 1500));
            net.send(0, id, &mut s);
        }
        assert_eq!(net.packets_in_links(), 3, "the stage holds them");
        let got = drain(&mut net, &mut s);
        let us = 1_000u64;
        let want: Vec<(u64, u32)> = (0..3u64)
            .map(|k| ((22 + 1200 * k + 1200 + 42_000 + 22 + 5) * us, k as u32))
            .collect();
        assert_eq!(got, want);
        assert_eq!(net.packets_in_links(), 0);
        let st = net.host_stage(0).unwrap();
        assert_eq!((st.served_pkts, st.busy_ns), (3, 66 * us));
        // A free stage installs nothing.
        net.set_host_stage(0, HostStageConfig::default());
        assert!(net.host_stage(0).is_none());
    }

    #[test]
    fn full_host_queues_drop_what_finds_them_full() {
        // tx_limit 3: of 5 packets sent at once, 3 wait in (or are served by)
        // the stage, 2 are dropped and counted on the link they would take.
        let mut net = two_hosts(1_000_000_000, 0, 100);
        net.set_host_stage(
            0,
            HostStageConfig {
                per_packet: SimTime::from_micros(100),
                tx_limit: 3,
                ..HostStageConfig::default()
            },
        );
        // The receiver serves a packet in 50 us; rx_limit 2. Here packets
        // leave the sender 100 us apart, so no backlog forms.
        net.set_host_stage(
            1,
            HostStageConfig {
                per_packet: SimTime::from_micros(50),
                rx_limit: 2,
                ..HostStageConfig::default()
            },
        );
        let mut s = Scheduler::new();
        for i in 0..5 {
            let id = net.alloc(pkt(i, 1500));
            net.send(0, id, &mut s);
        }
        assert_eq!(net.host_stage(0).unwrap().tx_drops, 2);
        let l = net.link(0).stats;
        assert_eq!((l.arrived_pkts, l.dropped_pkts), (2, 2));
        assert_eq!(net.drops().len(), 2);
        let got = drain(&mut net, &mut s);
        assert_eq!(got.len(), 3);
        assert_eq!(net.packets_in_links(), 0);
        assert_eq!(
            net.host_stage(1).unwrap().rx_drops,
            0,
            "100 us apart: no backlog"
        );
        // A burst straight on the wire: packets arrive 12 us apart (1 Gb/s,
        // 1500 B) at 12, 24, ... 84 us. Packet 0 is served 12..62, 1 waits
        // (held 2); 2 (36) and 3 (48) find 2 held: dropped; 4 (60) too;
        // at 62 packet 0 leaves, so 5 (72) waits; 6 (84) finds 1 and 5: dropped.
        let mut net = two_hosts(1_000_000_000, 0, 100);
        net.set_host_stage(
            1,
            HostStageConfig {
                per_packet: SimTime::from_micros(50),
                rx_limit: 2,
                ..HostStageConfig::default()
            },
        );
        let mut s = Scheduler::new();
        for i in 0..7 {
            let id = net.alloc(pkt(i, 1500));
            net.send(0, id, &mut s);
        }
        let got = drain(&mut net, &mut s);
        let kept: Vec<u32> = got.iter().map(|&(_, h)| h).collect();
        assert_eq!(kept, vec![0, 1, 5]);
        assert_eq!(net.host_stage(1).unwrap().rx_drops, 4);
        assert_eq!(net.drops().len(), 4);
    }

    #[test]
    fn a_host_stage_slower_than_the_link_paces_the_sender() {
        // 100 us per packet in front of a 1 Gb/s link (12 us per 1500 B):
        // packets leave the host 100 us apart and arrive 100 us apart.
        let mut net = two_hosts(1_000_000_000, 0, 100);
        net.set_host_stage(
            0,
            HostStageConfig {
                per_packet: SimTime::from_micros(100),
                ..HostStageConfig::default()
            },
        );
        let mut s = Scheduler::new();
        for i in 0..4 {
            let id = net.alloc(pkt(i, 1500));
            net.send(0, id, &mut s);
        }
        let got = drain(&mut net, &mut s);
        let t: Vec<u64> = got.iter().map(|&(t, _)| t / 1000).collect();
        assert_eq!(t, vec![112, 212, 312, 412]);
    }

    #[test]
    fn queueing_delay_is_the_wait_before_serialisation() {
        // Three 1500-byte packets at once on 10 Mb/s (1.2 ms each): they wait 0, 1.2
        // and 2.4 ms before their serialisation starts: sum 3.6 ms, max 2.4 ms.
        let mut net = two_hosts(10_000_000, 42, 100);
        let mut s = Scheduler::new();
        for i in 0..3 {
            let id = net.alloc(pkt(i, 1500));
            net.send(0, id, &mut s);
        }
        drain(&mut net, &mut s);
        let st = net.link(0).stats;
        assert_eq!(st.sojourn_ns, 3_600_000);
        assert_eq!(st.sojourn_max_ns, 2_400_000);
    }

    #[test]
    fn drop_tail_drops_exactly_the_packets_beyond_the_limit() {
        // One packet serialising + 5 waiting fit; of 10 sent at once, 6..9 are dropped.
        let mut net = two_hosts(1_000_000, 1, 5);
        let mut s = Scheduler::new();
        for i in 0..10 {
            let id = net.alloc(pkt(i, 1000));
            net.send(0, id, &mut s);
        }
        let got: Vec<u32> = drain(&mut net, &mut s).into_iter().map(|x| x.1).collect();
        assert_eq!(got, vec![0, 1, 2, 3, 4, 5]);
        let st = net.link(0).stats;
        assert_eq!((st.dropped_pkts, st.dropped_bytes), (4, 4000));
        // Each drop is recorded with its link, time and header, in order.
        let d: Vec<(u32, bool, u32, SimTime)> = net
            .drops()
            .iter()
            .map(|r| (r.link, r.on_wire, r.header, r.at))
            .collect();
        assert_eq!(
            d,
            (6..10)
                .map(|h| (0, false, h, SimTime::ZERO))
                .collect::<Vec<_>>()
        );
        net.clear_drops();
        assert!(net.drops().is_empty());
    }

    #[test]
    fn packets_and_bytes_are_conserved_on_every_link() {
        // Random sizes and send times; at every step arrived = dropped + held + delivered.
        let mut net = two_hosts(2_000_000, 5, 7);
        let mut s: Scheduler<Ev> = Scheduler::new();
        let mut rng = tcplab_engine::RngStream::new(3, 0);
        let mut sent = 0u64;
        for round in 0..200 {
            for _ in 0..rng.below(4) {
                let size = 40 + rng.below(1461) as u32;
                let id = net.alloc(pkt(round, size));
                net.send(0, id, &mut s);
                sent += 1;
            }
            let until = s.now() + SimTime::from_millis(3);
            while let Some((_, Ev::Net(e))) = s.step_before(until) {
                if let Some((_, id)) = net.handle(e, &mut s) {
                    net.pool.free(id);
                }
                let l = net.link(0);
                let st = l.stats;
                assert_eq!(
                    st.arrived_pkts,
                    st.dropped_pkts + l.held_packets() + st.delivered_pkts + st.lost_pkts
                );
                assert_eq!(
                    // every packet that arrived was dropped, is waiting, or left for the wire
                    st.arrived_pkts,
                    st.sent_pkts + st.dropped_pkts + l.queue_packets() as u64
                );
                assert_eq!(net.pool.live() as u64, net.packets_in_links());
            }
        }
        drain(&mut net, &mut s);
        let st = net.link(0).stats;
        assert_eq!(st.arrived_pkts, sent);
        assert_eq!(st.delivered_pkts + st.dropped_pkts, sent);
        assert_eq!(st.arrived_bytes, st.sent_bytes + st.dropped_bytes);
        assert_eq!(net.pool.live(), 0);
    }

    #[test]
    fn arrival_at_the_instant_a_serialisation_ends_does_not_overlap_transmissions() {
        // Regression: a packet offered exactly when the link frees up, while a
        // TxDone for a waiting packet is pending at that instant, must not start a
        // second serialisation on top of the first. 1000 B at 8 Mb/s = 1 ms each.
        let mut net = two_hosts(8_000_000, 0, 10);
        let mut s = Scheduler::new();
        for i in 0..2 {
            let id = net.alloc(pkt(i, 1000));
            net.send(0, id, &mut s);
        }
        // Run to t = 1 ms exclusive, then offer a third packet at exactly 1 ms,
        // before the pending TxDone at 1 ms is processed.
        let mut got = vec![];
        while let Some((t, Ev::Net(e))) = s.step_before(SimTime::from_millis(1)) {
            if let Some((_, id)) = net.handle(e, &mut s) {
                got.push((t.0, net.pool.get(id).header));
                net.pool.free(id);
            }
        }
        s.run_until(SimTime::from_millis(1), |_, _, _| unreachable!());
        let id = net.alloc(pkt(2, 1000));
        net.send(0, id, &mut s);
        got.extend(drain(&mut net, &mut s));
        assert_eq!(got, vec![(1_000_000, 0), (2_000_000, 1), (3_000_000, 2)]);
    }

    #[test]
    fn an_arrival_as_a_transmission_ends_finds_the_next_packet_gone_whatever_the_event_order() {
        // Limit 1, 1000 B at 8 Mb/s = 1 ms. Packet 0 serialises from 0, packet 1
        // waits; at 1 ms packet 1 starts and frees the one waiting place, so a
        // packet offered at exactly 1 ms is admitted, whether it is offered before
        // the link's TxDone at 1 ms runs or after it.
        // Drop Tail links run their FIFO themselves and have no TxDone; the rule
        // is checked on the event-driven queue, both orders.
        for (event_driven, txdone_first) in [(false, false), (true, false), (true, true)] {
            let mut net = two_hosts(8_000_000, 5, 1);
            if event_driven {
                net.links[0].fifo = None;
            }
            let mut s = Scheduler::new();
            for i in 0..2 {
                let id = net.alloc(pkt(i, 1000));
                net.send(0, id, &mut s);
            }
            s.run_until(SimTime::from_millis(1), |_, _, _| unreachable!());
            if txdone_first {
                let (t, Ev::Net(e)) = s.step().unwrap();
                assert_eq!((t, e), (SimTime::from_millis(1), NetEvent::TxDone(0)));
                assert_eq!(net.handle(e, &mut s), None);
            }
            // A probe reading the queue at 1 ms sees it after the departure too.
            net.sync(&mut s);
            assert_eq!(
                net.link(0).queue_packets(),
                0,
                "txdone_first {txdone_first}"
            );
            let id = net.alloc(pkt(2, 1000));
            net.send(0, id, &mut s);
            assert_eq!(
                drain(&mut net, &mut s),
                vec![(6_000_000, 0), (7_000_000, 1), (8_000_000, 2)],
                "txdone_first {txdone_first}"
            );
            assert_eq!(net.link(0).stats.dropped_pkts, 0);
        }
    }

    /// The counters, with the queue-length integral read at `t` (its stored
    /// part is kept differently by the two kinds of queue).
    fn counters(net: &Network<u32>, t: SimTime) -> Vec<(crate::LinkStats, u128, u64, u64)> {
        net.links()
            .iter()
            .map(|l| {
                let st = crate::LinkStats {
                    queue_pkt_ns: 0,
                    ..l.stats
                };
                (st, l.queue_pkt_ns_at(t), l.held_packets(), l.busy_ns_at(t))
            })
            .collect()
    }

    #[test]
    fn busy_time_before_an_instant_leaves_out_the_rest_of_the_current_transmission() {
        // Three 1500 B packets at once on 10 Mb/s: serialisations 0-1.2, 1.2-2.4
        // and 2.4-3.6 ms. Before 1.8 ms the transmitter was busy 1.8 ms; before
        // 2.4 ms, 2.4 ms; before 5 ms, all 3.6 ms. Both kinds of queue.
        for event_driven in [false, true] {
            let mut net = two_hosts(10_000_000, 42, 100);
            if event_driven {
                net.links[0].fifo = None;
            }
            let mut s: Scheduler<Ev> = Scheduler::new();
            for i in 0..3 {
                let id = net.alloc(pkt(i, 1500));
                net.send(0, id, &mut s);
            }
            for (t_us, busy_us) in [(0, 0), (1800, 1800), (2400, 2400), (5000, 3600)] {
                let t = SimTime(t_us * 1000);
                s.run_until(t, |s, _, Ev::Net(e)| {
                    if let Some((_, id)) = net.handle(e, s) {
                        net.pool.free(id);
                    }
                });
                net.sync_before(t);
                assert_eq!(
                    net.link(0).busy_ns_at(t),
                    busy_us * 1000,
                    "at {t_us} us, event_driven {event_driven}"
                );
            }
        }
    }

    #[test]
    fn links_running_their_own_fifo_match_drop_tail_run_by_events() {
        // Two hosts send to a third through a router, at times on a 250 us grid
        // and with sizes and rates whose serialisations fall on it too, so that
        // arrivals often meet departures. Limits of 0 to 4 packets or a few kB,
        // delays of 0 to 1 ms, losses on the wire. The same network with its
        // Drop Tail queues run by TxDone events delivers the same packets at the
        // same times in the same order, and at every instant reads the same
        // counters (phase boundaries: before anything at that instant) and the
        // same queues (probes: after the departures at that instant).
        let (mut drops, mut delivered) = (0, 0);
        for seed in 0..60 {
            let mut rng = tcplab_engine::RngStream::new(seed, 7);
            let mut build = || -> (LinkConfig, QueueLimit, crate::link::LossModel) {
                let (from, to) = (0, 0); // set below
                let cfg = LinkConfig {
                    from,
                    to,
                    rate_bps: [8_000_000, 12_000_000, 16_000_000][rng.below(3) as usize],
                    delay: SimTime(500_000 * rng.below(3)),
                    overhead_bytes: 0,
                };
                let limit = match rng.below(3) {
                    0 => QueueLimit::Bytes([1000, 2500, 4000][rng.below(3) as usize]),
                    _ => QueueLimit::Packets(rng.below(5) as u32),
                };
                let loss = match rng.below(4) {
                    0 => crate::link::LossModel::Every {
                        n: 2 + rng.below(4),
                        seen: 0,
                    },
                    1 => crate::link::LossModel::Random {
                        p: 0.2,
                        rng: tcplab_engine::RngStream::new(seed, 8),
                    },
                    _ => crate::link::LossModel::None,
                };
                (cfg, limit, loss)
            };
            let specs: Vec<_> = [(0, 2), (1, 2), (2, 3)]
                .into_iter()
                .map(|(from, to)| {
                    let (cfg, limit, loss) = build();
                    (LinkConfig { from, to, ..cfg }, limit, loss)
                })
                .collect();
            let net_of = |event_driven: bool| {
                let kinds = vec![
                    NodeKind::Host,
                    NodeKind::Host,
                    NodeKind::Router,
                    NodeKind::Host,
                ];
                let mut net: Network<u32> = Network::new(kinds);
                for (i, (cfg, limit, loss)) in specs.iter().enumerate() {
                    net.add_link(cfg.clone(), Box::new(DropTail::new(*limit)));
                    net.set_loss(i as LinkId, loss.clone());
                    if event_driven {
                        net.links[i].fifo = None;
                    }
                }
                net.compute_routes();
                net
            };
            let mut nets = [net_of(false), net_of(true)];
            assert!(nets[0].links().iter().all(|l| l.runs_own_fifo()));
            assert!(nets[1].links().iter().all(|l| !l.runs_own_fifo()));
            let mut scheds = [Scheduler::new(), Scheduler::new()];
            let mut got: [Vec<(u64, u32)>; 2] = [vec![], vec![]];
            let mut t = SimTime::ZERO;
            for round in 0..400u32 {
                let sends: Vec<(u32, u32)> = (0..rng.below(4))
                    .map(|_| {
                        (
                            rng.below(2) as u32,
                            [40, 500, 1000, 1500][rng.below(4) as usize],
                        )
                    })
                    .collect();
                let (phase, probe) = (rng.below(3) == 0, rng.below(3) == 0);
                for k in 0..2 {
                    let (net, s, out) = (&mut nets[k], &mut scheds[k], &mut got[k]);
                    s.run_until(t, |s, at, Ev::Net(e)| {
                        if let Some((_, id)) = net.handle(e, s) {
                            out.push((at.0, net.pool.get(id).header));
                            net.pool.free(id);
                        }
                    });
                    if phase {
                        net.sync_before(t);
                    }
                    for (i, &(src, size)) in sends.iter().enumerate() {
                        let id = net.alloc(Packet {
                            src,
                            dst: 3,
                            ..pkt(round * 4 + i as u32, size)
                        });
                        net.send(src, id, s);
                    }
                }
                if phase {
                    assert_eq!(
                        counters(&nets[0], t),
                        counters(&nets[1], t),
                        "seed {seed} at {t}"
                    );
                }
                if probe {
                    for k in 0..2 {
                        nets[k].sync(&mut scheds[k]);
                    }
                    let queues = |n: &Network<u32>| -> Vec<(u32, u64)> {
                        n.links()
                            .iter()
                            .map(|l| (l.queue_packets(), l.queue_bytes()))
                            .collect()
                    };
                    assert_eq!(queues(&nets[0]), queues(&nets[1]), "seed {seed} at {t}");
                }
                assert_eq!(got[0], got[1], "seed {seed} at {t}");
                t += SimTime(250_000 * rng.below(4));
            }
            for k in 0..2 {
                let d = drain(&mut nets[k], &mut scheds[k]);
                got[k].extend(d);
                assert_eq!(nets[k].pool.live(), 0);
            }
            assert_eq!(got[0], got[1], "seed {seed} at the end");
            let end = scheds[0].now().max(scheds[1].now());
            assert_eq!(
                counters(&nets[0], end),
                counters(&nets[1], end),
                "seed {seed} at the end"
            );
            drops += nets[0]
                .links()
                .iter()
                .map(|l| l.stats.dropped_pkts)
                .sum::<u64>();
            delivered += got[0].len();
        }
        assert!(
            drops > 1000 && delivered > 5000,
            "{drops} drops, {delivered} delivered"
        );
    }

    #[test]
    fn periodic_loss_drops_every_nth_packet_and_conservation_counts_it() {
        let mut net = two_hosts(100_000_000, 1, 100);
        net.set_loss(0, crate::link::LossModel::Every { n: 4, seen: 0 });
        let mut s = Scheduler::new();
        for i in 0..12 {
            let id = net.alloc(pkt(i, 100));
            net.send(0, id, &mut s);
        }
        let got: Vec<u32> = drain(&mut net, &mut s).into_iter().map(|x| x.1).collect();
        // The 4th, 8th and 12th packets (headers 3, 7, 11) are lost on the wire.
        assert_eq!(got, vec![0, 1, 2, 4, 5, 6, 8, 9, 10]);
        let st = net.link(0).stats;
        assert_eq!((st.lost_pkts, st.delivered_pkts, st.sent_pkts), (3, 9, 12));
        assert_eq!(net.pool.live(), 0);
        let lost: Vec<(bool, u32)> = net.drops().iter().map(|r| (r.on_wire, r.header)).collect();
        assert_eq!(lost, vec![(true, 3), (true, 7), (true, 11)]);
    }

    #[test]
    fn random_loss_rate_matches_its_probability() {
        // 20000 packets at p = 0.1: the count is Binomial(20000, 0.1), sd = 42.4;
        // 2000 +- 5 sd.
        let mut net = two_hosts(1_000_000_000, 0, 30_000);
        net.set_loss(
            0,
            crate::link::LossModel::Random {
                p: 0.1,
                rng: tcplab_engine::RngStream::new(5, 9),
            },
        );
        let mut s = Scheduler::new();
        for i in 0..20_000 {
            let id = net.alloc(pkt(i, 100));
            net.send(0, id, &mut s);
        }
        drain(&mut net, &mut s);
        let lost = net.link(0).stats.lost_pkts as f64;
        assert!((lost - 2000.0).abs() < 5.0 * 42.4, "{lost} lost");
    }

    #[test]
    fn routers_forward_along_shortest_paths() {
        // h0 -- r1 -- h2, plus a longer detour r1 -> r3 -> h2 that must not be used.
        let mut net: Network<u32> = Network::new(vec![
            NodeKind::Host,
            NodeKind::Router,
            NodeKind::Host,
            NodeKind::Router,
        ]);
        let cfg = |from, to| LinkConfig {
            from,
            to,
            rate_bps: 8_000_000,
            delay: SimTime::from_millis(1),
            overhead_bytes: 0,
        };
        let dt = || Box::new(DropTail::new(QueueLimit::Packets(10)));
        net.add_link(cfg(0, 1), dt());
        net.add_link(cfg(1, 3), dt());
        net.add_link(cfg(3, 2), dt());
        net.add_link(cfg(1, 2), dt());
        net.compute_routes();
        assert_eq!(net.route(0, 2), Some(0));
        assert_eq!(net.route(1, 2), Some(3));
        assert_eq!(net.route(2, 0), None); // no reverse links
                                           // The path 0 -> 1 -> 2 takes links 0 and 3 (one hop shorter than via 3);
                                           // from 2 back to 0 there is no route out of 2.
        assert_eq!(net.path(0, 2), Ok(vec![0, 3]));
        assert_eq!(net.path(2, 0), Err(PathError::NoRoute(2)));
        // Explicit entries r1 -> r3 and r3 -> r1 towards h2 loop.
        let back = net.add_link(cfg(3, 1), dt());
        net.set_route(1, 2, 1);
        net.set_route(3, 2, back);
        assert!(matches!(net.path(0, 2), Err(PathError::Loop(_))));
        net.set_route(1, 2, 3);
        let mut s = Scheduler::new();
        let id = net.alloc(Packet {
            src: 0,
            dst: 2,
            flow: 0,
            size: 1000,
            enqueued_at: SimTime::ZERO,
            ecn: Ecn::NotEct,
            header: 9,
        });
        net.send(0, id, &mut s);
        // Two hops of 1 ms serialisation (1000 B at 8 Mb/s) + 1 ms propagation.
        assert_eq!(drain(&mut net, &mut s), vec![(4_000_000, 9)]);
    }

    #[test]
    fn stages_are_counted_as_they_are_set_and_removed() {
        // Setting every host's stage (free ones included) counts, not
        // searches: the network knows whether any host has a stage after
        // each call, also when one is removed again.
        let mut net: Network<u32> = Network::new(vec![NodeKind::Host; 3]);
        let busy = HostStageConfig {
            per_packet: SimTime::from_micros(10),
            ..HostStageConfig::default()
        };
        net.set_host_stage(0, busy);
        net.set_host_stage(1, busy);
        net.set_host_stage(1, busy);
        net.set_host_stage(2, HostStageConfig::default());
        assert_eq!((net.staged, net.any_stage), (2, true));
        net.set_host_stage(0, HostStageConfig::default());
        assert_eq!((net.staged, net.any_stage), (1, true));
        net.set_host_stage(1, HostStageConfig::default());
        assert_eq!((net.staged, net.any_stage), (0, false));
    }

    #[test]
    fn hosts_do_not_forward_transit_traffic() {
        // h0 -> h1 -> h2 with h1 a host: no route from h0 to h2.
        let mut net: Network<u32> = Network::new(vec![NodeKind::Host; 3]);
        let cfg = |from, to| LinkConfig {
            from,
            to,
            rate_bps: 8_000_000,
            delay: SimTime::ZERO,
            overhead_bytes: 0,
        };
        net.add_link(cfg(0, 1), Box::new(DropTail::new(QueueLimit::Packets(1))));
        net.add_link(cfg(1, 2), Box::new(DropTail::new(QueueLimit::Packets(1))));
        net.compute_routes();
        assert_eq!(net.route(0, 2), None);
        assert_eq!(net.route(0, 1), Some(0));
    }

    /// A Drop Tail queue that marks every ECN-capable packet it sends.
    struct MarkAll(DropTail);
    impl Qdisc for MarkAll {
        fn enqueue(&mut self, p: QPkt, now: SimTime) -> Option<QPkt> {
            self.0.enqueue(p, now)
        }
        fn dequeue(&mut self, now: SimTime, drop: &mut dyn FnMut(QPkt)) -> Option<QPkt> {
            let mut p = self.0.dequeue(now, drop)?;
            p.mark_ce();
            Some(p)
        }
        fn len_packets(&self) -> u32 {
            self.0.len_packets()
        }
        fn len_bytes(&self) -> u64 {
            self.0.len_bytes()
        }
        fn name(&self) -> &'static str {
            "markall"
        }
    }

    #[test]
    fn a_queue_mark_reaches_the_packet_and_counts_once() {
        // Packets 0..4 sent ECT(0), Not-ECT, CE (marked upstream) and ECT(1)
        // through a queue that marks whatever it can: they arrive CE, Not-ECT,
        // CE, CE; the link counts the two marks that changed a packet.
        let mut net: Network<u32> = Network::new(vec![NodeKind::Host, NodeKind::Host]);
        net.add_link(
            LinkConfig {
                from: 0,
                to: 1,
                rate_bps: 8_000_000,
                delay: SimTime::from_millis(1),
                overhead_bytes: 0,
            },
            Box::new(MarkAll(DropTail::new(QueueLimit::Packets(10)))),
        );
        net.compute_routes();
        let mut s = Scheduler::new();
        let sent = [Ecn::Ect0, Ecn::NotEct, Ecn::Ce, Ecn::Ect1];
        for (i, &ecn) in sent.iter().enumerate() {
            let id = net.alloc(Packet {
                ecn,
                ..pkt(i as u32, 1000)
            });
            net.send(0, id, &mut s);
        }
        let mut got = vec![];
        while let Some((_, Ev::Net(e))) = s.step() {
            if let Some((_, id)) = net.handle(e, &mut s) {
                got.push(net.pool.get(id).ecn);
                net.pool.free(id);
            }
        }
        assert_eq!(got, vec![Ecn::Ce, Ecn::NotEct, Ecn::Ce, Ecn::Ce]);
        let st = net.link(0).stats;
        assert_eq!(
            (st.marked_pkts, st.dropped_pkts, st.delivered_pkts),
            (2, 0, 4)
        );
    }

    /// Two senders (nodes 0 and 1) joined to a router (2) whose link to
    /// host 3 runs at `out_rate` with `limit` waiting packets; the access
    /// links run at 1 Gb/s with delays `d0` and `d1`. `sends` are (time ns,
    /// sender, size, header). Returns the headers delivered and dropped.
    fn merge(
        ns2: bool,
        d0: SimTime,
        d1: SimTime,
        out_rate: u64,
        limit: u32,
        sends: &[(u64, u32, u32, u32)],
    ) -> (Vec<u32>, Vec<u32>) {
        #[derive(Clone, Copy)]
        enum Ev {
            Net(NetEvent),
            Send(u32, u32, u32),
        }
        impl From<NetEvent> for Ev {
            fn from(e: NetEvent) -> Self {
                Ev::Net(e)
            }
        }
        let mut net: Network<u32> = Network::new(vec![
            NodeKind::Host,
            NodeKind::Host,
            NodeKind::Router,
            NodeKind::Host,
        ]);
        let link = |from, to, rate, delay| LinkConfig {
            from,
            to,
            rate_bps: rate,
            delay,
            overhead_bytes: 0,
        };
        net.add_link(
            link(0, 2, 1_000_000_000, d0),
            Box::new(DropTail::new(QueueLimit::Packets(100))),
        );
        net.add_link(
            link(1, 2, 1_000_000_000, d1),
            Box::new(DropTail::new(QueueLimit::Packets(100))),
        );
        net.add_link(
            link(2, 3, out_rate, SimTime::ZERO),
            Box::new(DropTail::new(QueueLimit::Packets(limit))),
        );
        net.set_route(0, 3, 0);
        net.set_route(1, 3, 1);
        net.set_route(2, 3, 2);
        net.set_ns2_order(ns2);
        let mut s: Scheduler<Ev> = Scheduler::new();
        for &(t, from, size, h) in sends {
            s.schedule(SimTime(t), Ev::Send(from, size, h));
        }
        let mut got = vec![];
        while let Some((_, e)) = s.step() {
            match e {
                Ev::Send(from, size, h) => {
                    let id = net.alloc(Packet {
                        src: from,
                        dst: 3,
                        ..pkt(h, size)
                    });
                    net.send(from, id, &mut s);
                }
                Ev::Net(e) => {
                    if let Some((_, id)) = net.handle(e, &mut s) {
                        got.push(net.pool.get(id).header);
                        net.pool.free(id);
                    }
                }
            }
        }
        (got, net.drops().iter().map(|d| d.header).collect())
    }

    #[test]
    fn in_ns2_order_of_two_arrivals_at_one_instant_the_earlier_started_goes_first() {
        // Node 0 sends a 40 B packet (1) at 0, serialised 0-320 ns, then a
        // 1500 B one (2), 320-12320 ns; node 1 sends a 40 B packet (3) at
        // 12000 ns, serialised 12000-12320 ns. With equal 1 ms delays, 2 and 3
        // reach the router at 1.01232 ms, while packet 1 (arrived at 1.00032
        // ms) is still being sent on the 1 Mb/s link (320 us), whose queue
        // lets 1 wait: the first of them is kept, the other dropped.
        // ns-2 scheduled 2's arrival when its transmission started (320 ns),
        // 3's at 12000 ns: 2 goes first and 3 is dropped. Departure-first
        // schedules a link's next arrival when the one before lands: 2's at
        // 1.00032 ms, after 3's (12000 ns), so 2 is the one dropped.
        let ms = SimTime::from_millis(1);
        let sends = [(0, 0, 40, 1), (0, 0, 1500, 2), (12_000, 1, 40, 3)];
        assert_eq!(
            merge(true, ms, ms, 1_000_000, 1, &sends),
            (vec![1, 2], vec![3])
        );
        assert_eq!(
            merge(false, ms, ms, 1_000_000, 1, &sends),
            (vec![1, 3], vec![2])
        );
    }

    #[test]
    fn in_ns2_order_an_arrival_as_a_transmission_ends_may_find_the_queue_full() {
        // Node 0 sends two 1500 B packets at 0; the first reaches the router
        // at 1.012 ms and is sent on at 1 Mb/s (12 ms) until 13.012 ms, the
        // second waits (the queue lets 1 wait). Node 1's packet, sent at 1 ms
        // over a 12 ms link, reaches the router at 1 ms + 12 us + 12 ms =
        // 13.012 ms, the instant the first ends. ns-2 scheduled that arrival
        // at 1 ms, before the link's next departure (scheduled when the first
        // started, 1.012 ms): the arrival finds the second packet still
        // waiting and is dropped. Departure-first: the second has left and
        // the arrival waits in its place.
        let (ms, d1) = (SimTime::from_millis(1), SimTime::from_millis(12));
        let sends = [(0, 0, 1500, 1), (0, 0, 1500, 2), (1_000_000, 1, 1500, 3)];
        assert_eq!(
            merge(true, ms, d1, 1_000_000, 1, &sends),
            (vec![1, 2], vec![3])
        );
        assert_eq!(
            merge(false, ms, d1, 1_000_000, 1, &sends),
            (vec![1, 2, 3], vec![])
        );
    }
}
