//! TCP: a sender and a receiver exchanging real segments, loss recovery,
//! RTT/RTO estimation, the SACK scoreboard, host profiles, and the
//! congestion-control trait with its controllers (`cc/`).
//!
//! Protocol code does no I/O: time is passed in, segments come out in a vector.

pub mod cc;
pub mod delack;
pub mod header;
pub mod hostcache;
pub mod profile;
pub mod rcvwnd;
pub mod receiver;
pub mod recovery;
pub mod rtt;
pub mod scoreboard;
pub mod sender;
pub mod wheel;
pub mod wire;

pub use header::TcpHeader;
pub use profile::{profile, profiles, BufferAccounting, Handshake, Profile, Recovery, TcpConfig};
pub use receiver::Receiver;
pub use rtt::{RtoEstimator, RttSampling};
pub use sender::{FirstReduction, LossEpisode, Sender, SenderState, SenderStats};

#[cfg(test)]
mod tests;
