//! The whole simulator on the linux-check study's base cell (the braud2016
//! link, Reno both ways, uplink buffer 40, 100 simulated seconds) with the
//! `linux` profile: RACK, TLP, PRR, Linux's RTO, D-SACK and its delayed ACKs
//! all on. Wall time per run; events and packets per second printed once.
use criterion::{criterion_group, criterion_main, Criterion};

mod common;

fn linux_check(c: &mut Criterion) {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../python/tcplab/studies/data/linux-check/cells.toml"
    );
    let text = std::fs::read_to_string(path).expect("scenario file");
    let sc = tcplab_model::parse_scenario(&text, path).expect("valid scenario");
    common::bench_scenario(
        c,
        &sc,
        "linux-check cell",
        "linux_check",
        "reno_reno_uplink40_100s",
    );
}

criterion_group!(benches, linux_check);
criterion_main!(benches);
