//! Drop-from-Front: a FIFO that, when full, drops the packet at its head (the
//! oldest) to admit the arrival. Studied by Lakshman, Neidhardt & Ott (1996) and
//! by Barakat & Altman (RR-3620, section 7) as a cure for lost retransmissions:
//! the loss is signalled one queue-drain earlier than with Drop Tail.

use super::fifo::Fifo;
use super::{QPkt, Qdisc, QueueLimit};
use tcplab_engine::SimTime;

/// A FIFO dropping from the front when full.
pub struct DropFront {
    q: Fifo,
}

impl DropFront {
    /// A Drop-from-Front queue with the given limit.
    pub fn new(limit: QueueLimit) -> Self {
        DropFront {
            q: Fifo::new(limit),
        }
    }
}

impl Qdisc for DropFront {
    fn enqueue(&mut self, p: QPkt, now: SimTime) -> Option<QPkt> {
        if self.q.fits(p.size) {
            self.q.push(p, now);
            return None;
        }
        // One drop per arrival (the trait reports one): a packet larger than the
        // head may still not fit, and then the arrival itself is dropped.
        let Some((head, at)) = self.q.pop() else {
            return Some(p);
        };
        if !self.q.fits(p.size) {
            // Put the head back and refuse the arrival instead.
            self.q.push_front(head, at);
            return Some(p);
        }
        self.q.push(p, now);
        Some(head)
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
        "dropfront"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(id: u32) -> QPkt {
        QPkt {
            id,
            size: 1500,
            flow: 0,
            ecn: crate::Ecn::NotEct,
        }
    }

    #[test]
    fn a_full_queue_drops_its_head_and_admits_the_arrival() {
        // Limit 3: packets 0, 1, 2 fill it; 3 pushes out 0, 4 pushes out 1.
        let mut q = DropFront::new(QueueLimit::Packets(3));
        let dropped: Vec<u32> = (0..5)
            .filter_map(|i| q.enqueue(p(i), SimTime::ZERO))
            .map(|d| d.id)
            .collect();
        assert_eq!(dropped, vec![0, 1]);
        let out: Vec<u32> = std::iter::from_fn(|| q.dequeue(SimTime::ZERO, &mut |_| {}))
            .map(|d| d.id)
            .collect();
        assert_eq!(out, vec![2, 3, 4]);
        assert_eq!(q.len_bytes(), 0);
    }
}
