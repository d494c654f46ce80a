//! The whole simulator on the linux-check study's base cell (the braud2016
//! link, Reno both ways, uplink buffer 40, 100 simulated seconds) with the
//! `linux` profile: RACK, TLP, PRR, Linux's RTO, D-SACK and its delayed ACKs
//! all on. Wall time per run; events and packets per second printed once.
use criterion::{criterion_group, criterion_main, Criterion};

fn linux_check(c: &mut Criterion) {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../python/tcplab/studies/data/linux-check/cells.toml"
    );
    let text = std::fs::read_to_string(path).expect("scenario file");
    let sc = tcplab_model::parse_scenario(&text, path).expect("valid scenario");
    let r = tcplab_model::run(&sc, None);
    println!(
        "linux-check cell: {} events, {} packets in {:.3} s: {:.1} M events/s, {:.2} M packets/s",
        r.meta.events,
        r.meta.packets,
        r.meta.wall_s,
        r.meta.events as f64 / r.meta.wall_s / 1e6,
        r.meta.packets as f64 / r.meta.wall_s / 1e6
    );
    let mut g = c.benchmark_group("linux_check");
    g.sample_size(10);
    g.bench_function("reno_reno_uplink40_100s", |b| {
        b.iter(|| tcplab_model::run(&sc, None).meta.events)
    });
    g.finish();
}

criterion_group!(benches, linux_check);
criterion_main!(benches);
