//! A simplex link: an egress queue, a transmitter of fixed rate and a
//! propagation delay. A duplex link is two of these, one per direction, each
//! with its own rate, delay and buffer.

use crate::qdisc::Qdisc;
use crate::{NodeId, PacketId};
use std::collections::VecDeque;
use tcplab_engine::SimTime;

/// How to build a simplex link.
#[derive(Clone, Debug)]
pub struct LinkConfig {
    /// Sending node.
    pub from: NodeId,
    /// Receiving node.
    pub to: NodeId,
    /// Rate in bits per second.
    pub rate_bps: u64,
    /// One-way propagation delay.
    pub delay: SimTime,
    /// Bytes of framing added to every packet on this link (e.g. 0, or 14+4
    /// for Ethernet); they take serialisation time but are not part of the packet.
    pub overhead_bytes: u32,
}

/// Counters of one simplex link. All are cumulative since time zero.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinkStats {
    /// Packets offered to the link's queue.
    pub arrived_pkts: u64,
    /// Bytes offered to the link's queue.
    pub arrived_bytes: u64,
    /// Packets that left the queue for the wire (serialisation started).
    pub sent_pkts: u64,
    /// Bytes that left the queue for the wire (IP bytes, framing excluded).
    pub sent_bytes: u64,
    /// Packets dropped by the queue discipline.
    pub dropped_pkts: u64,
    /// Bytes dropped by the queue discipline.
    pub dropped_bytes: u64,
    /// Packets that reached the far end.
    pub delivered_pkts: u64,
    /// Packets lost on the wire by the link's loss model (after serialisation).
    pub lost_pkts: u64,
    /// Nanoseconds the transmitter was busy (serialising, framing included).
    pub busy_ns: u64,
    /// Integral of the queue length in packets over time (packet-nanoseconds).
    pub queue_pkt_ns: u128,
    /// Sum of the queueing delays (enqueue to start of serialisation) of sent packets, ns.
    pub sojourn_ns: u128,
    /// Largest queueing delay of a sent packet, ns.
    pub sojourn_max_ns: u64,
}

/// Losses on the wire, independent of the queue: every n-th packet, or each
/// packet with probability p from the link's own random stream.
#[derive(Clone, Debug, Default)]
pub enum LossModel {
    /// No loss.
    #[default]
    None,
    /// The n-th, 2n-th, ... packets to cross the link are lost.
    Every {
        /// Period.
        n: u64,
        /// Packets seen so far.
        seen: u64,
    },
    /// Each packet is lost with probability `p`.
    Random {
        /// Probability.
        p: f64,
        /// The link's random stream.
        rng: tcplab_engine::RngStream,
    },
}

impl LossModel {
    /// Whether the next packet is lost.
    #[inline]
    pub fn lose(&mut self) -> bool {
        match self {
            LossModel::None => false,
            LossModel::Every { n, seen } => {
                *seen += 1;
                *seen % *n == 0
            }
            LossModel::Random { p, rng } => rng.uniform() < *p,
        }
    }
}

/// A simplex link and its state.
pub struct Link {
    /// Static configuration.
    pub cfg: LinkConfig,
    /// The egress queue discipline.
    pub qdisc: Box<dyn Qdisc>,
    /// End of the current serialisation (the transmitter is busy before it).
    pub(crate) busy_until: SimTime,
    /// A `TxDone` event is pending at `busy_until`.
    pub(crate) tx_event: bool,
    /// Packets serialising or propagating, with their arrival times at the far
    /// end: FIFO, since the delay is constant and serialisation is in order.
    pub(crate) wire: VecDeque<(SimTime, PacketId)>,
    /// Counters.
    pub stats: LinkStats,
    /// Losses on the wire.
    pub loss: LossModel,
    last_q_change: SimTime,
}

impl Link {
    /// A link with an empty queue.
    pub fn new(cfg: LinkConfig, qdisc: Box<dyn Qdisc>) -> Self {
        Link {
            cfg,
            qdisc,
            busy_until: SimTime::ZERO,
            tx_event: false,
            wire: VecDeque::with_capacity(256),
            stats: LinkStats::default(),
            loss: LossModel::None,
            last_q_change: SimTime::ZERO,
        }
    }
    /// Time to serialise a packet of `size` bytes (framing included).
    #[inline]
    pub fn tx_time(&self, size: u32) -> SimTime {
        SimTime::transmission((size + self.cfg.overhead_bytes) as u64, self.cfg.rate_bps)
    }
    /// Whether the transmitter is busy at `now`.
    pub fn busy(&self, now: SimTime) -> bool {
        now < self.busy_until
    }
    /// Packets waiting in the queue (after [`crate::Network::sync`]: at the current time).
    pub fn queue_packets(&self) -> u32 {
        self.qdisc.len_packets()
    }
    /// Bytes waiting in the queue (after [`crate::Network::sync`]: at the current time).
    pub fn queue_bytes(&self) -> u64 {
        self.qdisc.len_bytes()
    }
    /// Packets serialising or propagating.
    pub fn in_flight(&self) -> u32 {
        self.wire.len() as u32
    }
    /// Packets held by the link: waiting, serialising and propagating.
    pub fn held_packets(&self) -> u64 {
        self.qdisc.len_packets() as u64 + self.wire.len() as u64
    }
    /// Account the queue-length integral up to `now`; call before the length changes.
    #[inline]
    pub(crate) fn touch_queue(&mut self, now: SimTime) {
        let dt = (now.0 - self.last_q_change.0) as u128;
        self.stats.queue_pkt_ns += dt * self.qdisc.len_packets() as u128;
        self.last_q_change = now;
    }
    /// Queue-length integral brought up to `now` (for time averages).
    pub fn queue_pkt_ns_at(&self, now: SimTime) -> u128 {
        self.stats.queue_pkt_ns
            + (now.0 - self.last_q_change.0) as u128 * self.qdisc.len_packets() as u128
    }
}
