//! Scenarios and runs: the TOML schema, the wiring of a world from it, the
//! probes that measure it, and `run()`.

pub mod results;

pub use results::*;

/// A scenario that failed validation: the message names the file, the field
/// path, the value and what is allowed.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct ScenarioError(pub String);

/// A validated scenario (placeholder until the schema lands).
#[derive(Clone, Debug)]
pub struct Scenario {
    /// Name.
    pub name: String,
}

/// Parse and validate a scenario given its text and the path it came from.
pub fn parse_scenario(text: &str, path: &str) -> Result<Scenario, ScenarioError> {
    let _ = text;
    Err(ScenarioError(format!("{path}: scenario support is not built yet")))
}

/// Run a scenario; `seed` overrides the scenario's own seed.
pub fn run(sc: &Scenario, seed: Option<u64>) -> RunResult {
    let _ = (sc, seed);
    RunResult::default()
}

/// Everything a scenario can name.
pub fn catalog() -> Catalog {
    Catalog::default()
}

/// The crate version.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
