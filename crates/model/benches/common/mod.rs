//! What every whole-simulator benchmark does: run the scenario once and print
//! its event and packet rates, then time runs of it.
use criterion::Criterion;

/// Benchmark `sc` as `group`/`name`, after printing `label`'s rates once.
pub fn bench_scenario(
    c: &mut Criterion,
    sc: &tcplab_model::Scenario,
    label: &str,
    group: &str,
    name: &str,
) {
    let r = tcplab_model::run(sc, None);
    println!(
        "{label}: {} events, {} packets in {:.3} s: {:.1} M events/s, {:.2} M packets/s",
        r.meta.events,
        r.meta.packets,
        r.meta.wall_s,
        r.meta.events as f64 / r.meta.wall_s / 1e6,
        r.meta.packets as f64 / r.meta.wall_s / 1e6
    );
    let mut g = c.benchmark_group(group);
    g.sample_size(10);
    g.bench_function(name, |b| b.iter(|| tcplab_model::run(sc, None).meta.events));
    g.finish();
}
