//! Progress of a run: the stages in order, simulated time and events that
//! only grow, a callback that can stop the run, and results that do not
//! depend on whether anyone watches.

use tcplab_engine::SimTime;
use tcplab_model::{parse_scenario, run, run_with_progress, Progress};

fn braud(duration_s: u32) -> tcplab_model::Scenario {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scenarios/braud2016/long-newreno.toml"
    ))
    .unwrap()
    .replace(
        "duration = \"800s\"",
        &format!("duration = \"{duration_s}s\""),
    )
    .replace("start = \"200s\"", "start = \"10s\"")
    .replace("end = \"800s\"", &format!("end = \"{duration_s}s\""));
    parse_scenario(&text, "braud.toml").unwrap()
}

#[test]
fn a_watched_run_reports_its_stages_in_order_and_gives_the_same_results() {
    let sc = braud(200);
    let mut seen: Vec<Progress> = Vec::new();
    let mut watch = |p: &Progress| {
        seen.push(*p);
        true
    };
    let watched = run_with_progress(&sc, Some(3), Some(&mut watch)).expect("not stopped");
    // Building and running are announced at time 0, collecting at the end of
    // the window; reports in between (wall-clock driven) are "running" ones.
    let stages: Vec<&str> = seen.iter().map(|p| p.stage).collect();
    assert_eq!(stages.first(), Some(&"building"));
    assert_eq!(stages.get(1), Some(&"running"));
    assert_eq!(stages.last(), Some(&"collecting"));
    assert!(stages[2..stages.len() - 1].iter().all(|s| *s == "running"));
    let end = SimTime::from_secs(200);
    assert!(seen.iter().all(|p| p.end == end && p.now <= end));
    assert!(seen
        .windows(2)
        .all(|w| w[0].now <= w[1].now && w[0].events <= w[1].events && w[0].wall_s <= w[1].wall_s));
    assert_eq!(seen.last().unwrap().now, end);
    assert_eq!(seen.last().unwrap().events, watched.meta.events);
    let mut plain = run(&sc, Some(3));
    let mut watched = watched;
    plain.meta.wall_s = 0.0;
    watched.meta.wall_s = 0.0;
    assert_eq!(format!("{plain:?}"), format!("{watched:?}"));
}

#[test]
fn a_callback_returning_false_stops_the_run() {
    let sc = braud(100);
    for stop_at in ["building", "running", "collecting"] {
        let mut calls = Vec::new();
        let mut stop = |p: &Progress| {
            calls.push(p.stage);
            p.stage != stop_at
        };
        assert!(run_with_progress(&sc, None, Some(&mut stop)).is_none());
        assert_eq!(calls.last(), Some(&stop_at));
    }
}
