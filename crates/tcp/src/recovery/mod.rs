//! Loss detection and recovery, one module per mechanism, driven by the
//! sender (quiche's `recovery/` is the model): the sender keeps the
//! connection and the windows, these modules decide what is lost and how
//! far the window comes down.
//!
//! - [`prr`]: Proportional Rate Reduction (RFC 6937, Linux
//!   `tcp_cwnd_reduction`): how cwnd comes down over the recovery round trip.
//! - [`rack`]: RACK time-based loss detection (RFC 8985, Linux
//!   tcp_recovery.c); the tail loss probe and the timer slot RACK, TLP and
//!   the RTO share are driven from the sender (`Sender::on_timer`).
//!
//! NewReno, RFC 6675 SACK recovery and RACK-TLP move here next (issue 14);
//! until then they live in `sender.rs`.

pub mod prr;
pub mod rack;

pub use prr::Prr;
pub use rack::Rack;
