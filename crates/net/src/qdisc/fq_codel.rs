//! FQ-CoDel, FlowQueue-CoDel (RFC 8290 section 4; Linux net/sched/sch_fq_codel.c).
//!
//! Packets are hashed on their flow id (perturbed by a seed) into `flows`
//! buckets, each a FIFO with its own CoDel state ([`CodelState`], the same state
//! machine as [`super::Codel`]). Buckets with packets sit on one of two lists:
//! a bucket becoming active joins the tail of the new list with a deficit of one
//! quantum (section 4.1). Dequeue (section 4.2) serves the head of the new list,
//! else of the old list, by deficit round robin: a bucket whose deficit is
//! spent (<= 0, as Linux) gets one more quantum and moves to the tail of the
//! old list; otherwise CoDel dequeues from it and its deficit drops by the
//! packet's size. A bucket found empty moves from the new list to the tail of
//! the old list, or leaves the old list (section 4.2, the anti-starvation step).
//!
//! Choices and deviations:
//! - Overflow (section 4.1, Linux fq_codel_enqueue/fq_codel_drop): when the
//!   arrival does not fit, ONE packet is dropped from the head of the bucket with
//!   the most bytes, counting the arrival in its bucket (ties: lowest index, as
//!   Linux's scan). Linux drops up to half that backlog, at most 64 packets, and
//!   adds the number dropped to the flow's CoDel count; here the trait reports a
//!   single dropped packet, so a single head drop (which RFC 8290 4.1 allows) and
//!   no count change. If the fattest bucket is the arrival's and holds nothing
//!   else, the arrival is the dropped head.
//! - Byte limits: if dropping that one head would still leave the arrival over
//!   the byte limit (a small head, a large arrival), the arrival is refused
//!   instead, so the limit always holds. Never happens with packet limits.
//! - An empty bucket taken from the new list always moves to the old list, as
//!   RFC 8290 says; Linux deletes it instead when the old list is empty.
//! - CoDel's "queue below one MTU" test (`max_packet`) looks at the total
//!   backlog of all buckets, as Linux does, so thin flows can still be dropped.
//! - ECN (`ecn`, RFC 8290 section 4.2 and Linux's `ecn` flag, on by default
//!   there, off here): each bucket's CoDel marks ECN-capable packets instead of
//!   dropping them, as [`super::Codel`] does; the overflow head drop stays a drop.
//! - No external classifier, no memory accounting beyond the [`QueueLimit`].
//!
//! Packets live in one pool threaded into per-bucket singly linked lists by
//! index; the bucket lists are intrusive too. Freed slots are reused, so the
//! pool grows (rarely, doubling) to the most packets queued at once and then
//! nothing allocates; it reserves nothing for a limit never reached.

use super::codel::{CodelParams, CodelState};
use super::{QPkt, Qdisc, QueueLimit};
use tcplab_engine::SimTime;

/// FQ-CoDel parameters. The limit (packets or bytes) is passed to [`FqCodel::new`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FqCodelParams {
    /// Number of hash buckets (Linux default 1024).
    pub flows: u32,
    /// Bytes a bucket may send per round (Linux: the MTU, 1514 on Ethernet).
    pub quantum: u32,
    /// CoDel TARGET per bucket (5 ms).
    pub target: SimTime,
    /// CoDel INTERVAL per bucket (100 ms).
    pub interval: SimTime,
    /// Below this many bytes queued in total CoDel never drops (Linux: the MTU).
    pub max_packet: u64,
    /// Hash perturbation seed.
    pub perturbation: u64,
    /// CoDel marks ECN-capable packets CE instead of dropping them.
    pub ecn: bool,
}

impl Default for FqCodelParams {
    fn default() -> Self {
        FqCodelParams {
            flows: 1024,
            quantum: 1514,
            target: SimTime::from_millis(5),
            interval: SimTime::from_millis(100),
            max_packet: 1500,
            perturbation: 0,
            ecn: false,
        }
    }
}

/// End of a list of slots or of buckets.
const NIL: u32 = u32::MAX;

/// A pooled packet and the next packet of its bucket (or the next free slot).
#[derive(Clone, Copy, Debug)]
struct Slot {
    pkt: QPkt,
    at: SimTime,
    next: u32,
}

/// A hash bucket: its FIFO of slots, byte count, DRR deficit and list link.
#[derive(Clone, Copy, Debug)]
struct Bucket {
    head: u32,
    tail: u32,
    bytes: u64,
    deficit: i64,
    /// Next bucket on the new or old list.
    next: u32,
    /// On the new or the old list.
    active: bool,
}

/// An intrusive FIFO of bucket indexes linked through `Bucket::next`.
#[derive(Clone, Copy, Debug)]
struct List {
    head: u32,
    tail: u32,
}

impl List {
    const EMPTY: List = List {
        head: NIL,
        tail: NIL,
    };
    fn front(&self) -> Option<u32> {
        (self.head != NIL).then_some(self.head)
    }
    fn push_back(&mut self, buckets: &mut [Bucket], b: u32) {
        buckets[b as usize].next = NIL;
        if self.tail == NIL {
            self.head = b;
        } else {
            buckets[self.tail as usize].next = b;
        }
        self.tail = b;
    }
    fn pop_front(&mut self, buckets: &mut [Bucket]) {
        let b = self.head;
        debug_assert_ne!(b, NIL);
        self.head = buckets[b as usize].next;
        if self.head == NIL {
            self.tail = NIL;
        }
        buckets[b as usize].next = NIL;
    }
}

/// The packets: one slot pool, per-bucket FIFOs through it, and the totals.
struct Store {
    slots: Vec<Slot>,
    free: u32,
    buckets: Vec<Bucket>,
    packets: u32,
    bytes: u64,
}

impl Store {
    /// Append `pkt` to bucket `b`.
    fn push(&mut self, b: usize, pkt: QPkt, at: SimTime) {
        let slot = Slot { pkt, at, next: NIL };
        let i = if self.free != NIL {
            let i = self.free;
            self.free = self.slots[i as usize].next;
            self.slots[i as usize] = slot;
            i
        } else {
            // More packets queued than ever before: the pool grows.
            self.slots.push(slot);
            (self.slots.len() - 1) as u32
        };
        let bk = &mut self.buckets[b];
        if bk.tail == NIL {
            bk.head = i;
        } else {
            self.slots[bk.tail as usize].next = i;
        }
        bk.tail = i;
        bk.bytes += pkt.size as u64;
        self.packets += 1;
        self.bytes += pkt.size as u64;
    }

    /// Take the head of bucket `b` with its enqueue time.
    fn pop(&mut self, b: usize) -> Option<(QPkt, SimTime)> {
        let bk = &mut self.buckets[b];
        let i = bk.head;
        if i == NIL {
            return None;
        }
        let Slot { pkt, at, next } = self.slots[i as usize];
        bk.head = next;
        if next == NIL {
            bk.tail = NIL;
        }
        bk.bytes -= pkt.size as u64;
        self.slots[i as usize].next = self.free;
        self.free = i;
        self.packets -= 1;
        self.bytes -= pkt.size as u64;
        Some((pkt, at))
    }
}

/// An FQ-CoDel queue.
pub struct FqCodel {
    limit: QueueLimit,
    quantum: u32,
    perturbation: u64,
    codel: CodelParams,
    store: Store,
    /// Per-bucket CoDel state (apart from `store` so CoDel can pop from it).
    vars: Vec<CodelState>,
    new_flows: List,
    old_flows: List,
}

impl FqCodel {
    /// An FQ-CoDel queue with total limit `limit` (all buckets together).
    pub fn new(limit: QueueLimit, p: FqCodelParams) -> Self {
        assert!(p.flows > 0, "fq_codel needs at least one flow bucket");
        assert!(p.quantum > 0, "fq_codel needs a positive quantum");
        let empty = Bucket {
            head: NIL,
            tail: NIL,
            bytes: 0,
            deficit: 0,
            next: NIL,
            active: false,
        };
        FqCodel {
            limit,
            quantum: p.quantum,
            perturbation: p.perturbation,
            codel: CodelParams {
                target: p.target,
                interval: p.interval,
                max_packet: p.max_packet,
                ecn: p.ecn,
            },
            store: Store {
                // Grown as packets arrive (freed slots are reused): as
                // many slots as packets queued at once, never the limit's.
                slots: Vec::new(),
                free: NIL,
                buckets: vec![empty; p.flows as usize],
                packets: 0,
                bytes: 0,
            },
            vars: vec![CodelState::default(); p.flows as usize],
            new_flows: List::EMPTY,
            old_flows: List::EMPTY,
        }
    }

    /// The bucket of connection `flow`: SplitMix64 over the flow id xor the
    /// perturbation, its high 32 bits scaled onto the buckets by multiply-shift
    /// (Linux reciprocal_scale).
    fn bucket_of(&self, flow: u32) -> usize {
        let z = tcplab_engine::splitmix64(&mut (flow as u64 ^ self.perturbation));
        (((z >> 32) * self.store.buckets.len() as u64) >> 32) as usize
    }

    /// Take the head bucket off the new list or the old list.
    fn pop_front(&mut self, from_new: bool) {
        let list = if from_new {
            &mut self.new_flows
        } else {
            &mut self.old_flows
        };
        list.pop_front(&mut self.store.buckets);
    }

    /// The bucket with the most bytes once `size` bytes are added to bucket
    /// `arrival` (Linux fq_codel_drop's scan: first strict maximum).
    fn fattest(&self, arrival: usize, size: u32) -> usize {
        let mut best = (0, 0u64);
        for (i, bk) in self.store.buckets.iter().enumerate() {
            let bytes = bk.bytes + if i == arrival { size as u64 } else { 0 };
            if bytes > best.1 {
                best = (i, bytes);
            }
        }
        best.0
    }
}

impl Qdisc for FqCodel {
    fn enqueue(&mut self, p: QPkt, now: SimTime) -> Option<QPkt> {
        let b = self.bucket_of(p.flow);
        let (packets, bytes) = (self.store.packets + 1, self.store.bytes + p.size as u64);
        let mut dropped = None;
        if !self.limit.admits(packets, bytes) {
            // RFC 8290 4.1: drop from the head of the fattest queue.
            let fat = self.fattest(b, p.size);
            let head = self.store.buckets[fat].head;
            if head == NIL {
                // Only the arrival is in the fattest bucket: it is that head.
                return Some(p);
            }
            let head_size = self.store.slots[head as usize].pkt.size as u64;
            if !self.limit.admits(packets - 1, bytes - head_size) {
                return Some(p);
            }
            dropped = self.store.pop(fat).map(|(d, _)| d);
        }
        self.store.push(b, p, now);
        let bk = &mut self.store.buckets[b];
        if !bk.active {
            bk.active = true;
            bk.deficit = self.quantum as i64;
            self.new_flows.push_back(&mut self.store.buckets, b as u32);
        }
        dropped
    }

    fn dequeue(&mut self, now: SimTime, drop: &mut dyn FnMut(QPkt)) -> Option<QPkt> {
        loop {
            let (b, from_new) = match self.new_flows.front() {
                Some(b) => (b, true),
                None => (self.old_flows.front()?, false),
            };
            let bi = b as usize;
            if self.store.buckets[bi].deficit <= 0 {
                self.store.buckets[bi].deficit += self.quantum as i64;
                self.pop_front(from_new);
                self.old_flows.push_back(&mut self.store.buckets, b);
                continue;
            }
            let store = &mut self.store;
            let pop = || store.pop(bi).map(|(p, at)| (p, at, store.bytes));
            match self.vars[bi].dequeue(&self.codel, now, pop, drop) {
                Some(p) => {
                    self.store.buckets[bi].deficit -= p.size as i64;
                    return Some(p);
                }
                None => {
                    self.pop_front(from_new);
                    if from_new {
                        self.old_flows.push_back(&mut self.store.buckets, b);
                    } else {
                        self.store.buckets[bi].active = false;
                    }
                }
            }
        }
    }

    fn len_packets(&self) -> u32 {
        self.store.packets
    }
    fn len_bytes(&self) -> u64 {
        self.store.bytes
    }
    fn name(&self) -> &'static str {
        "fq_codel"
    }
}

#[cfg(test)]
mod tests {
    use super::super::Codel;
    use super::*;
    use std::collections::BTreeMap;
    use tcplab_engine::RngStream;

    fn pkt(id: u32, flow: u32, size: u32) -> QPkt {
        QPkt {
            id,
            size,
            flow,
            ecn: crate::Ecn::NotEct,
        }
    }

    fn fq(limit: QueueLimit) -> FqCodel {
        let q = FqCodel::new(limit, FqCodelParams::default());
        // The derivations below assume flows 1, 2 and 3 have buckets of their own.
        let b = [q.bucket_of(1), q.bucket_of(2), q.bucket_of(3)];
        assert!(b[0] != b[1] && b[1] != b[2] && b[0] != b[2], "{b:?}");
        q
    }

    fn no_drop(_: QPkt) {
        panic!("unexpected CoDel drop");
    }

    #[test]
    fn two_backlogged_flows_share_bytes_by_deficit_round_robin() {
        // Flow A (1) sends 3 packets for each of flow B (2): 450 and 150 packets of
        // 1500 B, all at time 0, dequeued at time 0 (sojourn 0: CoDel never drops).
        // Quantum Q = 1514. A arrives first, so new list = [A, B], deficits Q.
        //   A: 1514 -> serve (14) -> serve (-1486) -> +Q = 28, to old list.
        //   B: the same: two packets, then 28 on the old list. Order so far AABB.
        // Round r on the old list: A starts with 14 (r + 1); one packet leaves it
        // <= 0 unless 14 (r + 1) > 1500, i.e. r >= 107. So rounds 1..=106 serve
        // A B, and round 107 (deficit 1512 -> 12 -> -1488) serves A A B B.
        // 220 dequeues = 4 + 2 x 106 + 4, each flow 110 packets = 165000 B; both
        // stay backlogged (A 340, B 40 left). DRR bound on any prefix: the gap is
        // at most Q + one packet = 3014 B.
        let mut q = fq(QueueLimit::Packets(10_000));
        let (a, b) = (1, 2);
        let mut id = 0;
        for _ in 0..150 {
            for flow in [a, a, a, b] {
                assert_eq!(q.enqueue(pkt(id, flow, 1500), SimTime::ZERO), None);
                id += 1;
            }
        }
        let mut expected = vec![a, a, b, b];
        for _ in 0..106 {
            expected.extend([a, b]);
        }
        expected.extend([a, a, b, b]);
        let mut order = vec![];
        let mut served = [0i64; 3];
        for _ in 0..220 {
            let p = q.dequeue(SimTime::ZERO, &mut no_drop).unwrap();
            order.push(p.flow);
            served[p.flow as usize] += p.size as i64;
            assert!((served[1] - served[2]).abs() <= 1514 + 1500);
        }
        assert_eq!(order, expected);
        assert_eq!(served[1], 165_000);
        assert_eq!(served[2], 165_000);
        assert_eq!(q.len_packets(), 600 - 220);
    }

    #[test]
    fn a_sparse_flow_is_served_before_the_backlogged_flow() {
        // Flow A: 10 packets (ids 0..10) at 0. Three dequeues: A0 (deficit 14),
        // A1 (-1486), then A's deficit is spent: +1514 = 28, A to the old list,
        // A2 (-1472). Now sparse flow S sends one 100 B packet (id 100): S is idle,
        // so it joins the new list with deficit 1514 and the next dequeue is S's
        // packet, though A has been waiting longer. Then S is empty: it moves
        // from the new list to the old list behind A ([A, S]); A's deficit -1472
        // gets +1514 = 42, A goes behind S ([S, A]); S (1414) is empty and leaves;
        // A3. From then on A alone: A4, A5, ...
        let mut q = fq(QueueLimit::Packets(100));
        for id in 0..10 {
            q.enqueue(pkt(id, 1, 1500), SimTime::ZERO);
        }
        let mut ids = vec![];
        for _ in 0..3 {
            ids.push(q.dequeue(SimTime::ZERO, &mut no_drop).unwrap().id);
        }
        assert_eq!(q.enqueue(pkt(100, 3, 100), SimTime::ZERO), None);
        while let Some(p) = q.dequeue(SimTime::ZERO, &mut no_drop) {
            ids.push(p.id);
        }
        assert_eq!(ids, vec![0, 1, 2, 100, 3, 4, 5, 6, 7, 8, 9]);
        assert_eq!((q.len_packets(), q.len_bytes()), (0, 0));
    }

    #[test]
    fn overflow_drops_the_head_of_the_fattest_flow() {
        // Limit 4 packets. Flow A queues ids 0..4 (6000 B). Thin flow B's packet
        // 100 arrives: 5 > 4. Bytes with the arrival: A 6000, B 1500, so A is the
        // fattest and loses its head, id 0; B's packet is queued.
        // Then A's id 4 arrives: A 4500 (with it), B 1500: A loses id 1.
        // Queue: A [2, 3, 4], B [100]; new list [A, B], deficits 1514.
        // Dequeue: A2 (14), A3 (-1486), A spent -> 28, old [A]; B100 (14);
        // B empty -> old [A, B]; A4 (-1472); A spent -> 42, old [B, A];
        // B empty on the old list -> removed; A empty -> removed; nothing.
        let mut q = fq(QueueLimit::Packets(4));
        for id in 0..4 {
            assert_eq!(q.enqueue(pkt(id, 1, 1500), SimTime::ZERO), None);
        }
        assert_eq!(
            q.enqueue(pkt(100, 2, 1500), SimTime::ZERO).map(|p| p.id),
            Some(0)
        );
        assert_eq!(
            q.enqueue(pkt(4, 1, 1500), SimTime::ZERO).map(|p| p.id),
            Some(1)
        );
        assert_eq!((q.len_packets(), q.len_bytes()), (4, 6000));
        let mut ids = vec![];
        while let Some(p) = q.dequeue(SimTime::ZERO, &mut no_drop) {
            ids.push(p.id);
        }
        assert_eq!(ids, vec![2, 3, 100, 4]);
        assert_eq!(q.new_flows.front(), None);
        assert_eq!(q.old_flows.front(), None);
    }

    #[test]
    fn byte_limit_refuses_the_arrival_when_one_head_drop_cannot_make_room() {
        // Flow A queues 40 B (id 0) and 1500 B (id 1): 1540 B. Flow B's 1500 B
        // packet (id 2) arrives: 3040 B in all. A (1540) is fatter than B (1500).
        // Limit 3000: dropping A's 40 B head leaves 3000 <= 3000: A0 is dropped.
        // Limit 2999: 3000 > 2999 even after that drop: the arrival is refused.
        for (limit, dropped, left) in [(3000, 0, 3000), (2999, 2, 1540)] {
            let mut q = fq(QueueLimit::Bytes(limit));
            q.enqueue(pkt(0, 1, 40), SimTime::ZERO);
            q.enqueue(pkt(1, 1, 1500), SimTime::ZERO);
            let d = q.enqueue(pkt(2, 2, 1500), SimTime::ZERO);
            assert_eq!(d.map(|p| p.id), Some(dropped));
            assert_eq!(q.len_bytes(), left);
        }
    }

    #[test]
    fn a_single_flow_drops_like_plain_codel() {
        // One backlogged flow is one CoDel queue: the total backlog used for the
        // MTU test is that flow's, and DRR only refills its deficit. So the drops
        // are those of codel.rs's drops_follow_the_control_law: 1000 packets at 0,
        // one dequeue per ms, first_above_time = 105 ms; drops at 105, 205
        // (105 + 100), 276 (205 + 100/sqrt 2 = 275.71), 334 (+ 100/sqrt 3 =
        // 333.45) and 384 ms (+ 50 = 383.45).
        let mut fq = FqCodel::new(QueueLimit::Packets(10_000), FqCodelParams::default());
        let mut codel = Codel::new(QueueLimit::Packets(10_000), CodelParams::default());
        for id in 0..1000 {
            fq.enqueue(pkt(id, 7, 1500), SimTime::ZERO);
            codel.enqueue(pkt(id, 7, 1500), SimTime::ZERO);
        }
        let (mut fq_drops, mut codel_drops) = (vec![], vec![]);
        for t in 1..=400u64 {
            let now = SimTime::from_millis(t);
            let a = fq.dequeue(now, &mut |_| fq_drops.push(t));
            let b = codel.dequeue(now, &mut |_| codel_drops.push(t));
            assert_eq!(a, b);
        }
        assert_eq!(fq_drops, vec![105, 205, 276, 334, 384]);
        assert_eq!(fq_drops, codel_drops);
    }

    #[test]
    fn counters_stay_consistent_through_random_operations() {
        // A seeded mix of arrivals (6 flows, 40..1500 B, few buckets so flows
        // collide) and dequeues, time advancing 0..2 ms a step so CoDel drops
        // too. A model of the queued packets checks after every operation: the
        // packet and byte counts, the limit, the per-bucket bytes summing to the
        // total, every packet leaving once and in FIFO order within its flow
        // (arrivals refused outright excepted), and that the pool never holds
        // more slots than the limit needs.
        let cases = [
            (QueueLimit::Packets(40), 8),
            (QueueLimit::Bytes(30_000), 4),
            (QueueLimit::Packets(3), 1024),
        ];
        for (case, (limit, flows)) in cases.into_iter().enumerate() {
            let p = FqCodelParams {
                flows,
                perturbation: 0x5EED + case as u64,
                ..FqCodelParams::default()
            };
            let mut q = FqCodel::new(limit, p);
            let mut rng = RngStream::new(42, case as u64);
            let mut queued: BTreeMap<u32, QPkt> = BTreeMap::new();
            let mut last = [None::<u32>; 6];
            let (mut now, mut overflow, mut aqm) = (SimTime::ZERO, 0, 0);
            let mut leave = |p: QPkt, queued: &mut BTreeMap<u32, QPkt>| {
                assert_eq!(queued.remove(&p.id), Some(p));
                let l = &mut last[p.flow as usize];
                assert!(*l < Some(p.id), "flow {} out of order", p.flow);
                *l = Some(p.id);
            };
            for id in 0..20_000u32 {
                now += SimTime::from_micros(rng.below(2001));
                if rng.below(10) < 6 {
                    let p = pkt(id, rng.below(6) as u32, 40 + rng.below(1461) as u32);
                    queued.insert(id, p);
                    if let Some(d) = q.enqueue(p, now) {
                        overflow += 1;
                        if d.id == id {
                            queued.remove(&id);
                        } else {
                            leave(d, &mut queued);
                        }
                    }
                } else {
                    let mut dropped = vec![];
                    let out = q.dequeue(now, &mut |d| dropped.push(d));
                    aqm += dropped.len();
                    for d in dropped.into_iter().chain(out) {
                        leave(d, &mut queued);
                    }
                    if out.is_none() {
                        assert!(queued.is_empty());
                    }
                }
                let bytes: u64 = queued.values().map(|p| p.size as u64).sum();
                assert_eq!(q.len_packets() as usize, queued.len());
                assert_eq!(q.len_bytes(), bytes);
                let per_bucket: u64 = q.store.buckets.iter().map(|b| b.bytes).sum();
                assert_eq!(per_bucket, bytes);
                assert!(q.limit.admits(q.len_packets(), q.len_bytes()));
            }
            loop {
                let mut dropped = vec![];
                let out = q.dequeue(now, &mut |d| dropped.push(d));
                for d in dropped.into_iter().chain(out) {
                    leave(d, &mut queued);
                }
                if out.is_none() {
                    break;
                }
                now += SimTime::from_millis(1);
            }
            assert!(queued.is_empty());
            assert_eq!((q.len_packets(), q.len_bytes()), (0, 0));
            assert!(q.store.buckets.iter().all(|b| !b.active && b.head == NIL));
            // Freed slots are reused: never more slots than the queue can
            // hold at once (its limit, plus the arrival that overflows it).
            assert!(q.store.slots.len() <= limit.slots(), "case {case}");
            // Both drop paths were exercised (CoDel's except in the 3-packet
            // queue, whose backlog never stands above one MTU for an interval).
            assert!(overflow > 0, "case {case}");
            assert!(aqm > 0 || case == 2, "case {case}");
        }
    }

    #[test]
    fn with_ecn_a_single_flow_is_marked_at_the_codel_drop_times_and_overflow_still_drops() {
        // As a_single_flow_drops_like_plain_codel with ECT(0) packets and `ecn`:
        // the same control law marks at 105, 205, 276, 334 and 384 ms (see
        // codel.rs ecn_marks_follow_the_control_law_at_the_drop_times) and
        // nothing is dropped.
        let p = FqCodelParams {
            ecn: true,
            ..FqCodelParams::default()
        };
        let mut q = FqCodel::new(QueueLimit::Packets(10_000), p);
        let ect = |id| QPkt {
            ecn: crate::Ecn::Ect0,
            ..pkt(id, 7, 1500)
        };
        for id in 0..1000 {
            assert_eq!(q.enqueue(ect(id), SimTime::ZERO), None);
        }
        let mut marks = vec![];
        for t in 1..=400u64 {
            let p = q.dequeue(SimTime::from_millis(t), &mut no_drop).unwrap();
            if p.ecn == crate::Ecn::Ce {
                marks.push(t);
            }
        }
        assert_eq!(marks, vec![105, 205, 276, 334, 384]);
        // Overflow (RFC 8290 4.1): a full queue drops the fattest flow's head,
        // ECN-capable or not. Limit 2: flow 1 queues ids 0 and 1; id 2 arrives.
        let mut q = FqCodel::new(QueueLimit::Packets(2), p);
        q.enqueue(ect(0), SimTime::ZERO);
        q.enqueue(ect(1), SimTime::ZERO);
        let d = q.enqueue(ect(2), SimTime::ZERO);
        assert_eq!(d.map(|p| (p.id, p.ecn)), Some((0, crate::Ecn::Ect0)));
    }
}
