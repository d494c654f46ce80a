//! A simplex link: an egress queue, a transmitter of fixed rate and a
//! propagation delay. A duplex link is two of these, one per direction, each
//! with its own rate, delay and buffer.
//!
//! A link whose discipline is Drop Tail runs its FIFO itself: whether a packet
//! is admitted depends only on the packets ahead of it, and once admitted its
//! transmission starts when the previous one ends, so both are fixed when it
//! arrives. It goes on the wire list at once with its start and arrival times,
//! and no event marks the end of each transmission. The counters of
//! transmissions (sent packets and bytes, busy time, queueing delays, the
//! queue-length integral) are brought up to a given time by
//! [`crate::Network::sync`] and [`crate::Network::sync_before`]; read them after
//! one of these. Other disciplines decide at dequeue time (CoDel) or may drop
//! a packet already queued (RED, Drop Front, ...): their links dequeue on a
//! `TxDone` event as each transmission ends.

use crate::qdisc::{Qdisc, QueueLimit};
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
    /// Packets the queue discipline marked CE instead of dropping (counted as
    /// they leave the queue, when the mark changes their ECN field).
    pub marked_pkts: u64,
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

/// A packet held by a link: serialising or propagating, or (on a link that
/// runs its own FIFO) waiting for its transmission to start. 32 bytes, two
/// to a cache line: the start of its serialisation is not kept but
/// recomputed ([`Link::start_of`]), the arrival less the delay and the
/// packet's serialisation time.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Wire {
    /// Arrival at the far end.
    pub at: SimTime,
    /// When the link took it.
    pub enqueued: SimTime,
    /// The packet.
    pub id: PacketId,
    /// Its size in bytes.
    pub size: u32,
    /// Its destination (read at the far end without touching the packet).
    pub dst: NodeId,
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
    /// Packets serialising or propagating, in order of arrival at the far end
    /// (the delay is constant and serialisation is in order); on a link that
    /// runs its own FIFO, followed by the `waiting` packets not yet started.
    pub(crate) wire: VecDeque<Wire>,
    /// Counters.
    pub stats: LinkStats,
    /// Losses on the wire.
    pub loss: LossModel,
    last_q_change: SimTime,
    /// `Some(limit)`: the link runs a Drop Tail FIFO of this limit itself.
    pub(crate) fifo: Option<QueueLimit>,
    /// Packets at the back of `wire` whose transmission had not started at the
    /// last `advance` (FIFO links).
    waiting: u32,
    /// Their bytes.
    waiting_bytes: u64,
    /// The sum of their enqueue times, ns.
    waiting_since: u128,
    /// The start of the first of them (`SimTime::MAX` if none).
    next_start: SimTime,
    /// Nanoseconds per byte when the rate divides 8e9 b/s (250 Mb/s: 32), so
    /// that serialisation times are a product instead of a division; else 0.
    ns_per_byte: u64,
}

impl Link {
    /// A link with an empty queue.
    pub fn new(cfg: LinkConfig, qdisc: Box<dyn Qdisc>) -> Self {
        let fifo = qdisc.drop_tail_limit();
        let cfg_rate = cfg.rate_bps;
        Link {
            cfg,
            qdisc,
            busy_until: SimTime::ZERO,
            tx_event: false,
            // Grown (doubling) to the most packets on the wire and, for a
            // FIFO link, in its queue at once: reserving for a full queue on
            // every link costs gigabytes in topologies of 10^5 links.
            wire: VecDeque::new(),
            stats: LinkStats::default(),
            loss: LossModel::None,
            last_q_change: SimTime::ZERO,
            fifo,
            waiting: 0,
            waiting_bytes: 0,
            waiting_since: 0,
            next_start: SimTime::MAX,
            ns_per_byte: if 8_000_000_000 % cfg_rate == 0 {
                8_000_000_000 / cfg_rate
            } else {
                0
            },
        }
    }
    /// Time to serialise a packet of `size` bytes (framing included).
    #[inline]
    pub fn tx_time(&self, size: u32) -> SimTime {
        let bytes = (size + self.cfg.overhead_bytes) as u64;
        if self.ns_per_byte != 0 {
            // Exact: bytes * 8e9 / rate with rate dividing 8e9.
            if let Some(ns) = bytes.checked_mul(self.ns_per_byte) {
                return SimTime(ns);
            }
        }
        SimTime::transmission(bytes, self.cfg.rate_bps)
    }
    /// Whether the transmitter is busy at `now`.
    pub fn busy(&self, now: SimTime) -> bool {
        now < self.busy_until
    }
    /// Packets waiting in the queue (after [`crate::Network::sync`]: at the current time).
    pub fn queue_packets(&self) -> u32 {
        match self.fifo {
            Some(_) => self.waiting,
            None => self.qdisc.len_packets(),
        }
    }
    /// Bytes waiting in the queue (after [`crate::Network::sync`]: at the current time).
    pub fn queue_bytes(&self) -> u64 {
        match self.fifo {
            Some(_) => self.waiting_bytes,
            None => self.qdisc.len_bytes(),
        }
    }
    /// Whether the link runs its own Drop Tail FIFO (see the module header).
    pub fn runs_own_fifo(&self) -> bool {
        self.fifo.is_some()
    }
    /// Offer packet `id` (to `dst`, `size` bytes) at `now` to a link running
    /// its own FIFO with this `limit`: `None` if the queue is full, else the
    /// time it reaches the far end and whether it is alone on the wire (its
    /// arrival must then be scheduled).
    #[inline]
    pub(crate) fn fifo_offer(
        &mut self,
        limit: QueueLimit,
        id: PacketId,
        dst: NodeId,
        size: u32,
        now: SimTime,
        until: SimTime,
    ) -> Option<(SimTime, bool)> {
        // Transmissions starting before `until` have left the queue: now + 1
        // ns (those starting now too) but in ns-2's order (see crate::Network).
        self.advance(until);
        if !limit.admits(self.waiting + 1, self.waiting_bytes + size as u64) {
            return None;
        }
        let start = now.max(self.busy_until);
        let t = self.tx_time(size);
        self.busy_until = start + t;
        let at = self.busy_until + self.cfg.delay;
        let w = Wire {
            at,
            enqueued: now,
            id,
            size,
            dst,
        };
        self.wire.push_back(w);
        if start == now {
            // The transmitter was free (so nothing waits): it starts now.
            self.count_start(&w, start, t.0);
        } else {
            self.waiting += 1;
            self.waiting_bytes += size as u64;
            self.waiting_since += now.0 as u128;
            if self.waiting == 1 {
                self.next_start = start;
            }
        }
        Some((at, self.wire.len() == 1))
    }
    /// ns-2's order: an event at `now` stamped `stamp` sees the transmission
    /// starting at `now` (if any) as started when the one ending at `now`
    /// started before `stamp` (ns-2 scheduled that departure then): returns
    /// the bound for [`Link::advance`], `now + 1` ns or `now`.
    pub(crate) fn departed_before(&self, now: SimTime, stamp: SimTime) -> SimTime {
        if self.next_start == now {
            let prev = self.wire.len() - self.waiting as usize;
            // The packet sent before the one starting now (it ends now).
            if let Some(i) = prev.checked_sub(1) {
                if self.start_of(&self.wire[i]) > stamp {
                    return now;
                }
            }
        }
        SimTime(now.0 + 1)
    }
    /// On a link running its own FIFO, count the transmissions that start
    /// before `until` as started: sent, busy time, queueing delays.
    #[inline(always)]
    pub(crate) fn advance(&mut self, until: SimTime) {
        if self.next_start < until {
            self.advance_slow(until);
        }
    }
    fn advance_slow(&mut self, until: SimTime) {
        while self.next_start < until {
            let w = self.wire[self.wire.len() - self.waiting as usize];
            // A waiting packet starts as the one before it ends (it was
            // queued behind it): the next start is this one's end.
            let end = w.at - self.cfg.delay;
            let t = self.tx_time(w.size);
            self.count_start(&w, end - t, t.0);
            self.waiting -= 1;
            self.waiting_bytes -= w.size as u64;
            self.waiting_since -= w.enqueued.0 as u128;
            self.next_start = if self.waiting == 0 {
                SimTime::MAX
            } else {
                debug_assert_eq!(
                    self.start_of(&self.wire[self.wire.len() - self.waiting as usize]),
                    end
                );
                end
            };
        }
    }
    /// When the serialisation of `w` starts (or started): its arrival less
    /// the delay and its serialisation time.
    #[inline]
    pub(crate) fn start_of(&self, w: &Wire) -> SimTime {
        self.start_for(w.at, w.size)
    }
    /// When the serialisation of a packet of `size` bytes reaching the far
    /// end at `at` starts (or started).
    #[inline]
    pub(crate) fn start_for(&self, at: SimTime, size: u32) -> SimTime {
        at - self.cfg.delay - self.tx_time(size)
    }
    /// Count the start of `w`'s transmission at `start`, of `t` ns.
    #[inline(always)]
    fn count_start(&mut self, w: &Wire, start: SimTime, t: u64) {
        let waited = (start - w.enqueued).0;
        let s = &mut self.stats;
        s.sent_pkts += 1;
        s.sent_bytes += w.size as u64;
        s.busy_ns += t;
        s.sojourn_ns += waited as u128;
        s.sojourn_max_ns = s.sojourn_max_ns.max(waited);
        s.queue_pkt_ns += waited as u128;
    }
    /// Packets serialising or propagating.
    pub fn in_flight(&self) -> u32 {
        self.wire.len() as u32
    }
    /// Packets held by the link: waiting, serialising and propagating.
    pub fn held_packets(&self) -> u64 {
        // A FIFO link's waiting packets are on `wire`; its discipline stays empty.
        self.qdisc.len_packets() as u64 + self.wire.len() as u64
    }
    /// Account the queue-length integral up to `now`; call before the length changes.
    #[inline]
    pub(crate) fn touch_queue(&mut self, now: SimTime) {
        let dt = (now.0 - self.last_q_change.0) as u128;
        self.stats.queue_pkt_ns += dt * self.qdisc.len_packets() as u128;
        self.last_q_change = now;
    }
    /// Nanoseconds the transmitter was busy before `now`, after
    /// [`crate::Network::sync_before`]`(now)`: [`LinkStats::busy_ns`] counts a
    /// transmission whole when it starts; this leaves out the part of the
    /// current one at or after `now`, so that busy time splits exactly at a
    /// phase boundary.
    pub fn busy_ns_at(&self, now: SimTime) -> u64 {
        let end = if self.fifo.is_some() {
            // The last transmission started sits just before the waiting packets.
            match (self.wire.len() - self.waiting as usize).checked_sub(1) {
                Some(i) => self.wire[i].at - self.cfg.delay,
                None => return self.stats.busy_ns,
            }
        } else {
            self.busy_until
        };
        self.stats.busy_ns - end.0.saturating_sub(now.0)
    }
    /// Queue-length integral brought up to `now` (for time averages), after
    /// [`crate::Network::sync_before`]`(now)`.
    pub fn queue_pkt_ns_at(&self, now: SimTime) -> u128 {
        if self.fifo.is_some() {
            // Each waiting packet has waited since its enqueue time.
            return self.stats.queue_pkt_ns + self.waiting as u128 * now.0 as u128
                - self.waiting_since;
        }
        self.stats.queue_pkt_ns
            + (now.0 - self.last_q_change.0) as u128 * self.qdisc.len_packets() as u128
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::DropTail;

    #[test]
    fn a_wire_entry_is_a_half_cache_line() {
        // Two to a line: the start of serialisation is recomputed, not kept.
        assert_eq!(std::mem::size_of::<Wire>(), 32);
    }

    #[test]
    fn serialisation_times_are_the_exact_rounded_up_division_at_any_rate() {
        // Rates dividing 8e9 b/s take a product, the others a division: the
        // same nanoseconds either way (1500 B at 250 Mb/s: 48 us; at 2.7 Mb/s
        // 4444444.4 ns, rounded up).
        for rate in [
            250_000_000,
            1_000_000_000,
            10_000_000,
            2_700_000,
            3,
            7_999_999_999,
        ] {
            let cfg = LinkConfig {
                from: 0,
                to: 1,
                rate_bps: rate,
                delay: SimTime::ZERO,
                overhead_bytes: 18,
            };
            let link = Link::new(cfg, Box::new(DropTail::new(QueueLimit::Packets(1))));
            for size in [0, 1, 40, 52, 1500, 9000, u32::MAX - 18] {
                let want = SimTime::transmission(size as u64 + 18, rate);
                assert_eq!(link.tx_time(size), want, "{size} B at {rate} b/s");
            }
        }
        let at = |rate| {
            let cfg = LinkConfig {
                from: 0,
                to: 1,
                rate_bps: rate,
                delay: SimTime::ZERO,
                overhead_bytes: 0,
            };
            Link::new(cfg, Box::new(DropTail::new(QueueLimit::Packets(1)))).tx_time(1500)
        };
        assert_eq!(at(250_000_000), SimTime(48_000));
        assert_eq!(at(2_700_000), SimTime(4_444_445));
    }
}
