//! Queue disciplines: one file each against the [`Qdisc`] trait.

mod codel;
mod dropfront;
mod droptail;
mod fifo;
mod fq_codel;
mod randomdrop;
mod red;

pub use codel::{Codel, CodelParams};
pub use dropfront::DropFront;
pub use droptail::DropTail;
pub use fq_codel::{FqCodel, FqCodelParams};
pub use randomdrop::RandomDrop;
pub use red::{Red, RedParams};

use crate::{Ecn, PacketId};
use tcplab_engine::SimTime;

/// A packet as a queue sees it: its id, size, connection and ECN codepoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QPkt {
    /// The packet.
    pub id: PacketId,
    /// Its size in bytes.
    pub size: u32,
    /// Its connection (what flow-queueing disciplines hash on).
    pub flow: u32,
    /// Its IP ECN field; a discipline marking the packet sets it to CE.
    pub ecn: Ecn,
}

impl QPkt {
    /// Mark the packet Congestion Experienced if it is ECN-capable (RFC 3168
    /// section 5; Linux `INET_ECN_set_ce`); returns whether it was, i.e. whether
    /// the mark replaces a drop.
    #[inline]
    pub fn mark_ce(&mut self) -> bool {
        let capable = self.ecn.is_ecn_capable();
        if capable {
            self.ecn = Ecn::Ce;
        }
        capable
    }
}

/// A queue limit, in packets or in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueLimit {
    /// At most this many packets wait.
    Packets(u32),
    /// At most this many bytes wait.
    Bytes(u64),
}

impl QueueLimit {
    /// Whether `packets` packets of `bytes` bytes in total respect the limit.
    #[inline]
    pub fn admits(self, packets: u32, bytes: u64) -> bool {
        match self {
            QueueLimit::Packets(n) => packets <= n,
            QueueLimit::Bytes(b) => bytes <= b,
        }
    }
    /// The most packets a full queue can hold, plus one arriving (a byte
    /// limit counts 40-byte packets), capped at 2^20. Queues do not reserve
    /// it: their storage grows to what they hold.
    pub fn slots(self) -> usize {
        let n = match self {
            QueueLimit::Packets(n) => n as usize + 1,
            QueueLimit::Bytes(b) => (b / 40) as usize + 1,
        };
        n.min(1 << 20)
    }
}

/// An egress queue discipline. The limit counts packets waiting, not the packet
/// being serialised on the link.
///
/// ECN: a discipline configured to mark signals congestion to an ECN-capable
/// packet with [`QPkt::mark_ce`] where it would otherwise drop it as a
/// congestion signal, and keeps the packet; the network copies the CE mark into
/// the packet when it leaves the queue (see `Network`). Drops because the buffer
/// is full stay drops.
pub trait Qdisc {
    /// Offer a packet. Returns the packet dropped to make the decision, if any
    /// (the arriving packet for Drop Tail, possibly another for other disciplines).
    fn enqueue(&mut self, p: QPkt, now: SimTime) -> Option<QPkt>;
    /// Take the next packet to transmit; `drop` receives packets the discipline
    /// drops at dequeue time (AQMs such as CoDel).
    fn dequeue(&mut self, now: SimTime, drop: &mut dyn FnMut(QPkt)) -> Option<QPkt>;
    /// Packets waiting.
    fn len_packets(&self) -> u32;
    /// Bytes waiting.
    fn len_bytes(&self) -> u64;
    /// The discipline's name.
    fn name(&self) -> &'static str;
    /// `Some(limit)` when the discipline is a plain FIFO that drops arriving
    /// packets beyond `limit` and does nothing else (Drop Tail). The link then
    /// runs the queue itself, fixing each packet's transmission when it arrives
    /// (see [`crate::Link`]), and never calls the discipline.
    fn drop_tail_limit(&self) -> Option<QueueLimit> {
        None
    }
}
