//! Drop Tail: first in, first out; an arriving packet that would exceed the
//! limit (in packets or bytes) is dropped.

use super::fifo::Fifo;
use super::{QPkt, Qdisc, QueueLimit};
use tcplab_engine::SimTime;

/// A FIFO that drops arrivals beyond its limit.
pub struct DropTail {
    q: Fifo,
    limit: QueueLimit,
}

impl DropTail {
    /// A Drop Tail queue with the given limit.
    pub fn new(limit: QueueLimit) -> Self {
        DropTail {
            q: Fifo::new(limit),
            limit,
        }
    }
}

impl Qdisc for DropTail {
    fn enqueue(&mut self, p: QPkt, now: SimTime) -> Option<QPkt> {
        if !self.q.fits(p.size) {
            return Some(p);
        }
        self.q.push(p, now);
        None
    }
    fn dequeue(&mut self, _now: SimTime, _drop: &mut dyn FnMut(QPkt)) -> Option<QPkt> {
        self.q.pop().map(|(p, _)| p)
    }
    fn len_packets(&self) -> u32 {
        self.q.len() as u32
    }
    fn len_bytes(&self) -> u64 {
        self.q.bytes()
    }
    fn name(&self) -> &'static str {
        "droptail"
    }
    fn drop_tail_limit(&self) -> Option<QueueLimit> {
        Some(self.limit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(id: u32, size: u32) -> QPkt {
        QPkt {
            id,
            size,
            flow: 0,
            ecn: crate::Ecn::NotEct,
        }
    }

    #[test]
    fn packet_limit_drops_exactly_the_packets_beyond_it() {
        let mut q = DropTail::new(QueueLimit::Packets(3));
        let dropped: Vec<u32> = (0..6)
            .filter_map(|i| q.enqueue(p(i, 1500), SimTime::ZERO))
            .map(|d| d.id)
            .collect();
        assert_eq!(dropped, vec![3, 4, 5]);
        let out: Vec<u32> = std::iter::from_fn(|| q.dequeue(SimTime::ZERO, &mut |_| {}))
            .map(|d| d.id)
            .collect();
        assert_eq!(out, vec![0, 1, 2]);
        assert_eq!(q.len_bytes(), 0);
    }

    #[test]
    fn byte_limit_admits_small_packets_a_full_one_would_not_fit() {
        // Limit 3000 B: two 1500 B frames fill it; a 40 B ACK no longer fits,
        // after one dequeue a 1500 B frame fits again.
        let mut q = DropTail::new(QueueLimit::Bytes(3000));
        assert_eq!(q.enqueue(p(0, 1500), SimTime::ZERO), None);
        assert_eq!(q.enqueue(p(1, 1460), SimTime::ZERO), None);
        assert_eq!(q.enqueue(p(2, 40), SimTime::ZERO), None); // 3000 exactly
        assert_eq!(q.enqueue(p(3, 1), SimTime::ZERO), Some(p(3, 1)));
        assert_eq!(q.len_bytes(), 3000);
        q.dequeue(SimTime::ZERO, &mut |_| {});
        assert_eq!(q.enqueue(p(4, 1500), SimTime::ZERO), None);
        assert_eq!(q.len_packets(), 3);
    }
}
