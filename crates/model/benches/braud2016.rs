//! The whole simulator on the braud2016 long-lived scenario (800 simulated
//! seconds, NewReno both ways, uplink buffer 40): wall time per run.
//! Events and packets per second are printed once before measuring.
use criterion::{criterion_group, criterion_main, Criterion};

mod common;

fn braud(c: &mut Criterion) {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scenarios/braud2016/long-newreno.toml"
    );
    let text = std::fs::read_to_string(path).expect("scenario file");
    let sc = tcplab_model::parse_scenario(&text, path).expect("valid scenario");
    common::bench_scenario(
        c,
        &sc,
        "braud2016 long-newreno",
        "braud2016",
        "long_newreno_800s",
    );
}

criterion_group!(benches, braud);
criterion_main!(benches);
