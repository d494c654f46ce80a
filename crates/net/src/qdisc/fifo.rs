//! The FIFO every discipline builds on: packets in arrival order with their
//! enqueue times, a byte count, and the limit check in packets or bytes. Each
//! discipline adds only its drop policy.

use super::{QPkt, QueueLimit};
use std::collections::VecDeque;
use tcplab_engine::SimTime;

/// A limited FIFO of packets.
pub struct Fifo {
    q: VecDeque<(QPkt, SimTime)>,
    limit: QueueLimit,
    bytes: u64,
}

impl Fifo {
    /// An empty FIFO. Its storage grows (doubling) to the most packets it
    /// holds at once, not to its limit: a 1 GB limit reserves nothing until
    /// packets fill it, and the steady state no longer grows it.
    pub fn new(limit: QueueLimit) -> Self {
        Fifo {
            q: VecDeque::new(),
            limit,
            bytes: 0,
        }
    }
    /// Whether a packet of `size` bytes fits under the limit.
    #[inline]
    pub fn fits(&self, size: u32) -> bool {
        self.limit
            .admits(self.q.len() as u32 + 1, self.bytes + size as u64)
    }
    /// Append a packet enqueued at `now`.
    #[inline]
    pub fn push(&mut self, p: QPkt, now: SimTime) {
        self.bytes += p.size as u64;
        self.q.push_back((p, now));
    }
    /// Take the head packet with its enqueue time.
    #[inline]
    pub fn pop(&mut self) -> Option<(QPkt, SimTime)> {
        let (p, at) = self.q.pop_front()?;
        self.bytes -= p.size as u64;
        Some((p, at))
    }
    /// Put a packet back at the head (undoing `pop`).
    pub fn push_front(&mut self, p: QPkt, at: SimTime) {
        self.bytes += p.size as u64;
        self.q.push_front((p, at));
    }
    /// Remove the packet at position `i`.
    pub fn remove(&mut self, i: usize) -> Option<(QPkt, SimTime)> {
        let (p, at) = self.q.remove(i)?;
        self.bytes -= p.size as u64;
        Some((p, at))
    }
    /// Put a packet back at position `i` (undoing `remove`).
    pub fn insert(&mut self, i: usize, p: QPkt, at: SimTime) {
        self.bytes += p.size as u64;
        self.q.insert(i, (p, at));
    }
    /// Packets queued.
    #[inline]
    pub fn len(&self) -> usize {
        self.q.len()
    }
    /// No packet queued.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.q.is_empty()
    }
    /// Bytes queued.
    #[inline]
    pub fn bytes(&self) -> u64 {
        self.bytes
    }
    /// Empty the queue (tests).
    #[cfg(test)]
    pub fn clear(&mut self) {
        self.q.clear();
        self.bytes = 0;
    }
}
