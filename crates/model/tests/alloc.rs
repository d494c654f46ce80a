#![allow(unsafe_code)] // a counting global allocator needs unsafe impl
//! The hot path allocates nothing per packet: a run four times longer (four
//! times the packets) makes essentially the same number of heap allocations.
//! Only amortised growth of result buffers (RTT samples) may add a handful.
//! Checked on the plain scenario and on an ECN variant (RED and CoDel marking,
//! ECN hosts), in one test since the allocation counter is global.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering};

struct Counting;
static ALLOCS: AtomicU64 = AtomicU64::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        System.alloc(l)
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        System.dealloc(p, l)
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        System.realloc(p, l, n)
    }
}

#[global_allocator]
static A: Counting = Counting;

/// (allocations during the run, packets, CE marks).
fn allocations_for(duration: u32, ecn: bool) -> (u64, u64, u64) {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scenarios/braud2016/long-newreno.toml"
    ))
    .unwrap()
    .replace(
        "duration = \"800s\"",
        &format!("duration = \"{duration}s\""),
    )
    .replace("start = \"200s\"", "start = \"20s\"")
    .replace("end = \"800s\"", &format!("end = \"{duration}s\""))
    .replace("queue = true", "queue = false")
    .replace("cwnd = true", "cwnd = false");
    let text = if ecn {
        text.replace("cc = \"newreno\"", "cc = \"newreno\"\necn = true")
            .replace(
                "queue = { packets = 250 }",
                "queue = { kind = \"red\", packets = 250, ecn = true }",
            )
            .replace(
                "queue = { packets = 40 }",
                "queue = { kind = \"codel\", packets = 40, ecn = true }",
            )
    } else {
        text
    };
    let sc = tcplab_model::parse_scenario(&text, "alloc.toml").unwrap();
    let before = ALLOCS.load(Ordering::Relaxed);
    let r = tcplab_model::run(&sc, None);
    // The episodes table, built once at the end, holds two strings per loss
    // episode (flow name, kind): result assembly, not the per-packet path.
    let allocs = ALLOCS.load(Ordering::Relaxed) - before - 2 * r.episodes.len() as u64;
    (
        allocs,
        r.meta.packets,
        r.links.iter().map(|l| l.marks).sum(),
    )
}

#[test]
fn steady_state_allocates_nothing_per_packet() {
    for ecn in [false, true] {
        let (short_allocs, short_pkts, _) = allocations_for(100, ecn);
        let (long_allocs, long_pkts, marks) = allocations_for(400, ecn);
        assert_eq!(marks > 0, ecn, "the ECN variant marks");
        assert!(
            long_pkts > 3 * short_pkts,
            "{long_pkts} vs {short_pkts} packets"
        );
        // Hundreds of thousands more packets; allow a few dozen amortised growths.
        let extra = long_allocs.saturating_sub(short_allocs);
        println!("ecn {ecn}: allocations: {short_allocs} for {short_pkts} packets, {long_allocs} for {long_pkts} packets");
        assert!(
            extra < 50,
            "ecn {ecn}: {extra} more allocations for {} more packets ({short_allocs} vs {long_allocs})",
            long_pkts - short_pkts
        );
    }
}
