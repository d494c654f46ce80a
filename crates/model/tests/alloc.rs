#![allow(unsafe_code)] // a counting global allocator needs unsafe impl
//! The hot path allocates nothing per packet: a run four times longer (four
//! times the packets) makes essentially the same number of heap allocations.
//! Only amortised growth of result buffers (RTT samples) may add a handful.

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

fn allocations_for(duration: u32) -> (u64, u64) {
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
    let sc = tcplab_model::parse_scenario(&text, "alloc.toml").unwrap();
    let before = ALLOCS.load(Ordering::Relaxed);
    let r = tcplab_model::run(&sc, None);
    (ALLOCS.load(Ordering::Relaxed) - before, r.meta.packets)
}

#[test]
fn steady_state_allocates_nothing_per_packet() {
    let (short_allocs, short_pkts) = allocations_for(100);
    let (long_allocs, long_pkts) = allocations_for(400);
    assert!(
        long_pkts > 3 * short_pkts,
        "{long_pkts} vs {short_pkts} packets"
    );
    // Hundreds of thousands more packets; allow a few dozen amortised growths.
    let extra = long_allocs.saturating_sub(short_allocs);
    println!("allocations: {short_allocs} for {short_pkts} packets, {long_allocs} for {long_pkts} packets");
    assert!(
        extra < 50,
        "{extra} more allocations for {} more packets ({short_allocs} vs {long_allocs})",
        long_pkts - short_pkts
    );
}
