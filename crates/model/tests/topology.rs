//! Routing end to end: explicit `[[route]]` paths against shortest paths, checked
//! by where the packets actually went (per-link packet counts) and by the
//! throughput the chosen bottleneck allows (rate x MSS / packet size).

use tcplab_model::{parse_scenario, run, RunResult};

fn sim(text: &str) -> RunResult {
    let sc = parse_scenario(text, "test.toml").unwrap_or_else(|e| panic!("{e}"));
    run(&sc, None)
}

/// src - r1 = (r2 | r3) = r4 - dst: two equal-length branches, the r2 branch
/// 10 Mb/s and declared first (so shortest-path ties pick it), the r3 branch 2 Mb/s.
fn diamond(routes: &str) -> String {
    format!(
        r#"
duration = "40s"
[measure]
start = "10s"
[[host]]
name = "src"
sndbuf = "4MB"
rcvbuf = "4MB"
[[host]]
name = "dst"
rcvbuf = "4MB"
[[router]]
name = "r1"
[[router]]
name = "r2"
[[router]]
name = "r3"
[[router]]
name = "r4"
[[link]]
between = ["src", "r1"]
rate = "100Mbps"
delay = "1ms"
[[link]]
between = ["r1", "r2"]
rate = "10Mbps"
delay = "10ms"
queue = {{ packets = 1000 }}
[[link]]
between = ["r1", "r3"]
rate = "2Mbps"
delay = "10ms"
queue = {{ packets = 1000 }}
[[link]]
between = ["r2", "r4"]
rate = "100Mbps"
delay = "1ms"
[[link]]
between = ["r3", "r4"]
rate = "100Mbps"
delay = "1ms"
[[link]]
between = ["r4", "dst"]
rate = "100Mbps"
delay = "1ms"
[[flow]]
from = "src"
to = "dst"
{routes}
"#
    )
}

fn sent(r: &RunResult, from: &str, to: &str) -> u64 {
    r.links
        .iter()
        .find(|l| l.from == from && l.to == to)
        .unwrap_or_else(|| panic!("no link {from} -> {to}"))
        .pkts_sent
}

#[test]
fn shortest_path_ties_go_to_the_first_declared_link() {
    let r = sim(&diamond(""));
    assert!(sent(&r, "r1", "r2") > 1000);
    assert_eq!(sent(&r, "r1", "r3"), 0);
    assert!(sent(&r, "r2", "r1") > 1000, "ACKs return the same way");
    // The 10 Mb/s branch is the bottleneck: 10e6 x 1448/1500 of goodput, within
    // 1 % (the 1000-packet queue keeps the link busy after slow start).
    let expect = 10e6 * 1448.0 / 1500.0;
    let got = r.flows[0].goodput_bps;
    assert!(got <= expect * 1.0001 && got > 0.99 * expect, "{got}");
}

#[test]
fn an_explicit_route_moves_data_and_acks_onto_the_chosen_branch() {
    let r = sim(&diamond(
        r#"
[[route]]
path = ["src", "r1", "r3", "r4", "dst"]
"#,
    ));
    assert_eq!(sent(&r, "r1", "r2"), 0);
    assert_eq!(sent(&r, "r2", "r1"), 0, "reverse = true by default");
    assert!(sent(&r, "r3", "r1") > 1000);
    assert!(sent(&r, "r1", "r3") > 1000);
    let expect = 2e6 * 1448.0 / 1500.0;
    let got = r.flows[0].goodput_bps;
    assert!(got <= expect * 1.0001 && got > 0.99 * expect, "{got}");
}

#[test]
fn a_one_way_route_leaves_the_return_path_to_shortest_paths() {
    let r = sim(&diamond(
        r#"
[[route]]
path = ["src", "r1", "r3", "r4", "dst"]
reverse = false
"#,
    ));
    assert_eq!(sent(&r, "r1", "r2"), 0);
    assert_eq!(sent(&r, "r3", "r1"), 0);
    // Every ACK crosses r2 -> r1 (counts are per measurement window: a packet
    // on a wire at either window edge can make them differ by one each).
    let (acks_in, acks_mid) = (sent(&r, "dst", "r4"), sent(&r, "r2", "r1"));
    assert!(
        acks_in > 1000 && acks_in.abs_diff(acks_mid) <= 2,
        "{acks_in} {acks_mid}"
    );
}

#[test]
fn a_partial_route_from_a_router_overrides_only_that_hop() {
    // Only r1's entry towards dst is explicit; src and r3 keep shortest paths.
    let r = sim(&diamond(
        r#"
[[route]]
path = ["r1", "r3", "r4", "dst"]
reverse = false
"#,
    ));
    assert_eq!(sent(&r, "r1", "r2"), 0);
    assert!(sent(&r, "r1", "r3") > 1000);
}

/// Two bulk flows over one 20 Mb/s bottleneck, RTTs 20 ms and 200 ms (access
/// links), the bottleneck queue given by `queue`.
fn two_rtts(queue: &str) -> String {
    format!(
        r#"
duration = "120s"
[measure]
start = "30s"
[[host]]
name = "near"
sndbuf = "8MB"
access = {{ router = "r1", rate = "1Gbps", delay = "5ms" }}
[[host]]
name = "far"
sndbuf = "8MB"
access = {{ router = "r1", rate = "1Gbps", delay = "95ms" }}
[[host]]
name = "sink"
rcvbuf = "8MB"
access = {{ router = "r2", rate = "1Gbps", delay = "1ms" }}
[[router]]
name = "r1"
[[router]]
name = "r2"
[[link]]
between = ["r1", "r2"]
forward = {{ rate = "20Mbps", delay = "4ms", queue = {queue} }}
reverse = {{ rate = "1Gbps", delay = "4ms" }}
[[flow]]
name = "near"
from = "near"
to = "sink"
[[flow]]
name = "far"
from = "far"
to = "sink"
"#
    )
}

fn jain(x: &[f64]) -> f64 {
    let s: f64 = x.iter().sum();
    s * s / (x.len() as f64 * x.iter().map(|v| v * v).sum::<f64>())
}

#[test]
fn fq_codel_shares_a_bottleneck_equally_between_rtts_where_drop_tail_does_not() {
    // DRR serves backlogged flows equal bytes per round (RFC 8290 §4), so both
    // flows should get half of the link whatever their RTT; with one shared Drop
    // Tail FIFO, Reno-style growth of one segment per RTT favours the 20 ms
    // flow (throughput ~ 1/RTT in the classic analysis).
    let fq = sim(&two_rtts(r#"{ kind = "fq_codel", packets = 1000 }"#));
    let dt = sim(&two_rtts(r#"{ packets = 250 }"#));
    let g = |r: &RunResult| [r.flows[0].goodput_bps, r.flows[1].goodput_bps];
    let (gfq, gdt) = (g(&fq), g(&dt));
    let cap = 20e6 * 1448.0 / 1500.0;
    assert!(
        gfq[0] + gfq[1] > 0.9 * cap,
        "fq_codel keeps the link busy: {gfq:?}"
    );
    assert!(jain(&gfq) > 0.95, "fq_codel: {gfq:?} jain {}", jain(&gfq));
    assert!(
        gdt[0] > 2.0 * gdt[1],
        "drop tail favours the short RTT: {gdt:?}"
    );
    assert!(jain(&gdt) < jain(&gfq));
}
