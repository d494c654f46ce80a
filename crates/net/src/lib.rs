//! The network: packets from a slab, simplex links with a rate, a propagation
//! delay and an egress queue discipline, nodes with static routes.
//!
//! The network is generic over the transport header `H` it carries and knows
//! nothing of TCP. The one IP field it models beyond addressing is the ECN
//! codepoint ([`Ecn`]), which queue disciplines may mark. It turns [`NetEvent`]s into link activity and hands packets
//! that reach their destination back to the caller.

mod link;
mod network;
mod packet;
pub mod qdisc;
pub mod routing;

pub use link::{Link, LinkConfig, LinkStats, LossModel};
pub use network::{
    CaptureRecord, DropRecord, HostStage, HostStageConfig, NetEvent, Network, NodeKind,
};
pub use packet::{Ecn, Packet, PacketId, PacketPool};
pub use qdisc::{QPkt, Qdisc, QueueLimit};
pub use routing::{PathError, Routing, RoutingSize};

/// Index of a node (host or router).
pub type NodeId = u32;
/// Index of a simplex link.
pub type LinkId = u32;
