//! The whole simulator on the heaviest shipped scenario, mascolo2006 B
//! (250 Mb/s dumbbell, two bulk NewReno/SACK flows, reverse flows, web traffic
//! both ways), shortened from 1000 to 30 simulated seconds with its phases and
//! reverse flows scaled alike: Drop Tail links at high packet rates, where the
//! event queue and the links' own FIFOs dominate. Events and packets per second
//! are printed once before measuring.
use criterion::{criterion_group, criterion_main, Criterion};

mod common;

fn mascolo(c: &mut Criterion) {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scenarios/mascolo2006/b-newreno-rtt40.toml"
    );
    let text = std::fs::read_to_string(path)
        .expect("scenario file")
        .replace("duration = \"1000s\"", "duration = \"30s\"")
        .replace(
            "phases = [\"333s\", \"666s\"]",
            "phases = [\"10s\", \"20s\"]",
        )
        .replace("start = \"333s\"", "start = \"10s\"")
        .replace("stop = \"666s\"", "stop = \"20s\"");
    let sc = tcplab_model::parse_scenario(&text, path).expect("valid scenario");
    assert_eq!(sc.duration, tcplab_engine::SimTime::from_secs(30));
    common::bench_scenario(
        c,
        &sc,
        "mascolo2006 B, 30 s",
        "mascolo2006",
        "b_newreno_rtt40_30s",
    );
}

criterion_group!(benches, mascolo);
criterion_main!(benches);
