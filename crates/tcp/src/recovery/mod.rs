//! Loss detection and recovery, one module per mechanism, driven by the
//! sender (quiche's `recovery/` is the model): the sender keeps the
//! connection and the windows, these modules decide what is lost and how
//! far the window comes down.
//!
//! - [`prr`]: Proportional Rate Reduction (RFC 6937, Linux
//!   `tcp_cwnd_reduction`): how cwnd comes down over the recovery round trip.
//! - [`newreno`]: RFC 6582's windows at entry and after partial ACKs, and
//!   its timer variants.
//! - [`sack`]: RFC 6675's NextSeg rule 3 (IsLost and the pipe are the
//!   scoreboard's).
//! - [`sack1`]: ns-2's `Agent/TCP/Sack1` (`sack1-ns2`): its `pipe_`, its
//!   scoreboard's next hole, limited transmit and window at entry.
//! - [`rack`]: RACK time-based loss detection (RFC 8985, Linux
//!   tcp_recovery.c).
//! - [`tlp`]: the tail loss probe's episode and timeout (RFC 8985 TLP).
//!
//! The timer slot RACK, TLP and the RTO share (Linux `icsk_pending`) is the
//! sender's (`Sender::on_timer`), as is the undo of spurious reductions
//! (`try_undo`, `try_undo_dsack`).
//! - [`frto`]: F-RTO's decisions after a timeout (RFC 5682).
//! - [`undo`]: the D-SACK accounting that shows a reduction spurious.
//!
//! NewReno, RFC 6675 SACK recovery and RACK-TLP move here next (issue 14);
//! until then they live in `sender.rs`.

pub mod frto;
pub mod newreno;
pub mod prr;
pub mod rack;
pub mod sack;
pub mod sack1;
pub mod tlp;
pub mod undo;

pub use prr::Prr;
pub use rack::Rack;
pub use tlp::Tlp;
pub use undo::UndoRetrans;

use tcplab_engine::SimTime;

/// A duration rounded up to the timer clock `tick` (Linux
/// `usecs_to_jiffies`); a zero tick leaves it as it is.
pub fn ceil_tick(d: SimTime, tick: SimTime) -> SimTime {
    match tick.0 {
        0 => d,
        g => SimTime(d.0.div_ceil(g) * g),
    }
}
