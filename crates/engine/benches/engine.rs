//! Scheduler throughput: a steady population of pending events, each handled
//! event scheduling one more (the pattern of a running simulation).
use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use tcplab_engine::{RngStream, Scheduler, SimTime};

fn hold(c: &mut Criterion) {
    let mut g = c.benchmark_group("scheduler_hold");
    for pending in [16usize, 1024] {
        let n = 1_000_000u64;
        g.throughput(Throughput::Elements(n));
        g.bench_function(format!("{pending}_pending"), |b| {
            b.iter(|| {
                let mut s: Scheduler<u32> = Scheduler::with_capacity(pending);
                let mut rng = RngStream::new(1, 0);
                for i in 0..pending {
                    s.schedule(SimTime(rng.below(1_000_000)), i as u32);
                }
                for _ in 0..n {
                    let (t, e) = s.step().unwrap();
                    s.schedule(t + SimTime(1 + rng.below(1_000_000)), black_box(e));
                }
                s.processed()
            })
        });
    }
    g.finish();
}

criterion_group!(benches, hold);
criterion_main!(benches);
