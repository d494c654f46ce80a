//! The real-stack backend: a scenario run on the real Linux TCP stack.
//!
//! Each host is a network namespace of this process ([`netns`]) with one TUN
//! device; the emulator ([`emulator`]) joins the devices with the scenario's
//! links, routers and queues, running the simulator's own queue code against
//! the wall clock. Flows are real sockets in the hosts' namespaces ([`flows`]):
//! the controller set per socket (`TCP_CONGESTION`), socket buffers and
//! start times from the scenario, `TCP_INFO` sampled for the traces. The run
//! returns a [`tcplab_model::RunResult`], the simulator's own result type, so
//! everything downstream (tables, sweeps, reports) works unchanged.
//!
//! Nothing outlives the process: namespaces are not bind-mounted, TUN
//! devices are not persistent, and both vanish when the process ends, however
//! it ends. Needs root (CAP_SYS_ADMIN, CAP_NET_ADMIN), `/dev/net/tun` and
//! iproute2's `ip`.

pub mod emulator;
pub mod flows;
pub mod netns;
pub mod settings;
pub mod sys;
pub mod tcpinfo;

use tcplab_model::schema::Scenario;
use tcplab_model::RunResult;

/// Why a scenario cannot run on the real stack, or why the run failed: the
/// message names the host, flow or link, the value and what is possible.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct BackendError(pub String);

/// Check that `sc` can run on this machine's kernel, without running it.
/// Returns the notes the run's metadata will carry (settings not applied).
pub fn check(sc: &Scenario) -> Result<Vec<String>, BackendError> {
    settings::check(sc).map(|plan| plan.notes)
}

/// Run `sc` on the real Linux stack; `seed` overrides the scenario's seed
/// (it draws the random start times and the queues' and links' random
/// choices, as in the simulator). `interrupted` is polled a few times a
/// second: when it returns true the run stops and the call returns an error.
pub fn run(
    sc: &Scenario,
    seed: Option<u64>,
    interrupted: &mut dyn FnMut() -> bool,
) -> Result<RunResult, BackendError> {
    let plan = settings::check(sc)?;
    flows::run(sc, seed.unwrap_or(sc.seed), plan, interrupted)
}
