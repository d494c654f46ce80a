//! Packets live in a slab and are named by index, so that the steady state
//! allocates nothing per packet: freed slots are reused.

use crate::NodeId;
use tcplab_engine::SimTime;

/// Index of a packet in the [`PacketPool`].
pub type PacketId = u32;

/// A packet: addressing, size on the wire and a transport header.
#[derive(Clone, Copy, Debug)]
pub struct Packet<H> {
    /// Source node.
    pub src: NodeId,
    /// Destination node.
    pub dst: NodeId,
    /// Flow (connection) index, for demultiplexing at the destination.
    pub flow: u32,
    /// Size in bytes at the IP layer (headers included).
    pub size: u32,
    /// When the packet entered its current queue (for sojourn times).
    pub enqueued_at: SimTime,
    /// The transport header.
    pub header: H,
}

/// A slab of packets with a free list.
pub struct PacketPool<H> {
    slots: Vec<Packet<H>>,
    free: Vec<PacketId>,
    live: usize,
}

impl<H: Copy> PacketPool<H> {
    /// An empty pool with room for `cap` packets before it grows.
    pub fn with_capacity(cap: usize) -> Self {
        PacketPool {
            slots: Vec::with_capacity(cap),
            free: Vec::with_capacity(cap),
            live: 0,
        }
    }
    /// Store a packet, reusing a freed slot when there is one.
    #[inline]
    pub fn alloc(&mut self, p: Packet<H>) -> PacketId {
        self.live += 1;
        if let Some(id) = self.free.pop() {
            self.slots[id as usize] = p;
            id
        } else {
            self.slots.push(p);
            (self.slots.len() - 1) as PacketId
        }
    }
    /// Release a packet's slot.
    #[inline]
    pub fn free(&mut self, id: PacketId) {
        debug_assert!(self.live > 0);
        debug_assert!(
            !self.free.contains(&id) || self.free.len() > 4096,
            "double free of {id}"
        );
        self.live -= 1;
        self.free.push(id);
    }
    /// The packet `id`.
    #[inline]
    pub fn get(&self, id: PacketId) -> &Packet<H> {
        &self.slots[id as usize]
    }
    /// The packet `id`, mutably.
    #[inline]
    pub fn get_mut(&mut self, id: PacketId) -> &mut Packet<H> {
        &mut self.slots[id as usize]
    }
    /// Packets currently allocated.
    pub fn live(&self) -> usize {
        self.live
    }
    /// Slots ever created (the high-water mark).
    pub fn capacity_used(&self) -> usize {
        self.slots.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pkt(size: u32) -> Packet<()> {
        Packet {
            src: 0,
            dst: 1,
            flow: 0,
            size,
            enqueued_at: SimTime::ZERO,
            header: (),
        }
    }

    #[test]
    fn freed_slots_are_reused_so_the_pool_stops_growing() {
        let mut pool = PacketPool::with_capacity(4);
        for round in 0..1000u32 {
            let a = pool.alloc(pkt(round));
            let b = pool.alloc(pkt(round + 1));
            assert_eq!(pool.get(a).size, round);
            assert_eq!(pool.get(b).size, round + 1);
            pool.free(a);
            pool.free(b);
        }
        assert_eq!(pool.capacity_used(), 2);
        assert_eq!(pool.live(), 0);
    }
}
