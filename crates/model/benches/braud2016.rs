//! The whole simulator on the braud2016 long-lived scenario (800 simulated
//! seconds, NewReno both ways, uplink buffer 40): wall time per run.
//! Events and packets per second are printed once before measuring.
use criterion::{criterion_group, criterion_main, Criterion};

fn braud(c: &mut Criterion) {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scenarios/braud2016/long-newreno.toml"
    );
    let text = std::fs::read_to_string(path).expect("scenario file");
    let sc = tcplab_model::parse_scenario(&text, path).expect("valid scenario");
    let r = tcplab_model::run(&sc, None);
    println!(
        "braud2016 long-newreno: {} events, {} packets in {:.3} s: {:.1} M events/s, {:.2} M packets/s",
        r.meta.events,
        r.meta.packets,
        r.meta.wall_s,
        r.meta.events as f64 / r.meta.wall_s / 1e6,
        r.meta.packets as f64 / r.meta.wall_s / 1e6
    );
    let mut g = c.benchmark_group("braud2016");
    g.sample_size(10);
    g.bench_function("long_newreno_800s", |b| {
        b.iter(|| tcplab_model::run(&sc, None).meta.events)
    });
    g.finish();
}

criterion_group!(benches, braud);
criterion_main!(benches);
