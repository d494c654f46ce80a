//! The discrete-event engine: integer nanosecond time, an event heap with FIFO
//! ties, SimPy-style `now`/`peek`/`step`/`run_until`, and seeded RNG streams.
//!
//! The engine knows nothing of networks: events are any small `Copy` type chosen
//! by the world that drives it.

mod rng;
mod sched;
mod time;

pub use rng::{splitmix64, stream_seed, RngStream};
pub use sched::Scheduler;
pub use time::SimTime;
