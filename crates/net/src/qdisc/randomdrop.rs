//! Random Drop (Hashem, MIT LCS TR-465, 1989): when the queue is full, an
//! arrival displaces a packet chosen uniformly at random among those queued and
//! the arrival itself; Barakat & Altman (RR-3620, section 7) compare it with Drop
//! Tail and Drop-from-Front. The choice comes from the queue's own random stream.

use super::fifo::Fifo;
use super::{QPkt, Qdisc, QueueLimit};
use tcplab_engine::{RngStream, SimTime};

/// A FIFO that, when full, drops a uniformly chosen packet (the arrival included).
pub struct RandomDrop {
    q: Fifo,
    rng: RngStream,
}

impl RandomDrop {
    /// A Random Drop queue with the given limit drawing from `rng`.
    pub fn new(limit: QueueLimit, rng: RngStream) -> Self {
        RandomDrop {
            q: Fifo::new(limit),
            rng,
        }
    }
}

impl Qdisc for RandomDrop {
    fn enqueue(&mut self, p: QPkt, now: SimTime) -> Option<QPkt> {
        if self.q.fits(p.size) {
            self.q.push(p, now);
            return None;
        }
        // Victim uniform among the queued packets and the arrival.
        let k = self.rng.below(self.q.len() as u64 + 1) as usize;
        if k == self.q.len() {
            return Some(p);
        }
        let (victim, at) = self.q.remove(k).expect("index in range");
        if !self.q.fits(p.size) {
            // Byte limits: the arrival still does not fit; keep the queue as it was.
            self.q.insert(k, victim, at);
            return Some(p);
        }
        self.q.push(p, now);
        Some(victim)
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
        "randomdrop"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn victims_are_uniform_over_the_queue_and_the_arrival() {
        // Queue of 4 full packets, then an arrival: each of the 5 is the victim
        // with probability 1/5. Over 50000 trials each count is Binomial(50000,
        // 0.2): mean 10000, sd 89; accept +- 5 sd.
        let mut counts = [0u32; 5];
        let mut rng = RngStream::new(11, 3);
        for _ in 0..50_000 {
            let mut q = RandomDrop::new(QueueLimit::Packets(4), rng.clone());
            for id in 0..5 {
                if let Some(d) = q.enqueue(
                    QPkt {
                        id,
                        size: 1500,
                        flow: 0,
                        ecn: crate::Ecn::NotEct,
                    },
                    SimTime::ZERO,
                ) {
                    counts[d.id as usize] += 1;
                }
            }
            rng.below(2); // move the stream on between trials
        }
        for (id, &c) in counts.iter().enumerate() {
            assert!(
                (c as f64 - 10_000.0).abs() < 5.0 * 89.4,
                "packet {id} dropped {c} times"
            );
        }
    }

    #[test]
    fn the_queue_keeps_fifo_order_and_its_limit() {
        let mut q = RandomDrop::new(QueueLimit::Packets(3), RngStream::new(1, 1));
        let mut dropped = vec![];
        for id in 0..10 {
            if let Some(d) = q.enqueue(
                QPkt {
                    id,
                    size: 100,
                    flow: 0,
                    ecn: crate::Ecn::NotEct,
                },
                SimTime::ZERO,
            ) {
                dropped.push(d.id);
            }
            assert!(q.len_packets() <= 3);
        }
        assert_eq!(dropped.len(), 7);
        let out: Vec<u32> = std::iter::from_fn(|| q.dequeue(SimTime::ZERO, &mut |_| {}))
            .map(|d| d.id)
            .collect();
        assert!(out.windows(2).all(|w| w[0] < w[1]), "FIFO order: {out:?}");
    }
}
