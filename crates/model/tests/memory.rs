#![allow(unsafe_code)] // a measuring global allocator needs unsafe impl
//! The up-front memory estimate against the heap a run really takes: a
//! global allocator tracks the bytes live and their peak, and the estimate's
//! core part (without the process, the file's reading and the results'
//! Python objects, which tests/test_memory_scale.py measures in a
//! subprocess) must be within a factor of two of the peak, for few flows
//! with a big buffer and for many flows. (One test: the counters are global.)

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicI64, Ordering};

struct Measuring;
static LIVE: AtomicI64 = AtomicI64::new(0);
static PEAK: AtomicI64 = AtomicI64::new(0);

unsafe impl GlobalAlloc for Measuring {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let now = LIVE.fetch_add(l.size() as i64, Ordering::Relaxed) + l.size() as i64;
        PEAK.fetch_max(now, Ordering::Relaxed);
        System.alloc(l)
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        LIVE.fetch_sub(l.size() as i64, Ordering::Relaxed);
        System.dealloc(p, l)
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        let d = n as i64 - l.size() as i64;
        let now = LIVE.fetch_add(d, Ordering::Relaxed) + d;
        PEAK.fetch_max(now, Ordering::Relaxed);
        System.realloc(p, l, n)
    }
}

#[global_allocator]
static A: Measuring = Measuring;

fn many_flows(n: usize) -> String {
    let mut s = String::from(
        r#"
duration = "2s"
[[host]]
name = "a"
[[host]]
name = "b"
[[link]]
between = ["a", "b"]
rate = "1Gbps"
delay = "10ms"
queue = { packets = 1000 }
"#,
    );
    for i in 0..n {
        s += &format!("[[flow]]\nname = \"f{i}\"\nfrom = \"a\"\nto = \"b\"\n");
    }
    s
}

/// (estimate, peak heap bytes during parse and run).
fn measure(text: &str) -> (u64, u64) {
    let sc = tcplab_model::parse_scenario(text, "m.toml").unwrap();
    let est = tcplab_model::memory::estimate(&sc, text.len()).core;
    let base = LIVE.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let r = tcplab_model::run(&sc, None);
    assert!(!r.flows.is_empty());
    let peak = (PEAK.load(Ordering::Relaxed) - base).max(1) as u64;
    (est, peak)
}

#[test]
fn the_memory_estimate_is_within_a_factor_of_two_of_the_peak() {
    // A gigabit path with a 1 GB buffer: memory follows the packets in flight.
    let gig = r#"
duration = "5s"
[defaults.host]
profile = "linux"
sndbuf = "1GB"
rcvbuf = "1GB"
[[host]]
name = "s"
[[host]]
name = "r"
[[link]]
between = ["s", "r"]
rate = "1Gbps"
delay = "5ms"
queue = { packets = 2000 }
[[flow]]
from = "s"
to = "r"
"#;
    for (what, text) in [
        ("one gigabit flow", gig.to_string()),
        ("2,000 flows", many_flows(2000)),
        ("20,000 flows", many_flows(20_000)),
    ] {
        let (est, peak) = measure(&text);
        let ratio = est as f64 / peak as f64;
        println!("{what}: estimate {est} B, peak {peak} B (ratio {ratio:.2})");
        assert!(
            (0.5..=2.0).contains(&ratio),
            "{what}: estimate {est} B, peak {peak} B (ratio {ratio:.2})"
        );
    }
}
