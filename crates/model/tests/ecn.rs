//! ECN end to end (RFC 3168): TCP hosts that negotiate ECN behind queues that
//! mark instead of dropping. The expectations follow from the rules, not from
//! a previous run: a marking queue that can neither overflow nor force a drop
//! drops nothing; every window reduction needs an ECN-Echo, which needs a CE
//! mark; hosts without ECN send Not-ECT packets, which the same queue drops.
//! Debug assertions check the world's invariants on every event.

use tcplab_model::{parse_scenario, run, LinkResult, RunResult};

fn sim(text: &str) -> RunResult {
    let sc = parse_scenario(text, "test.toml").unwrap_or_else(|e| panic!("{e}"));
    run(&sc, None)
}

/// One bulk NewReno flow a -> b through router r: 10 Mb/s and 50 ms on the
/// bottleneck r -> b (RTT 100 ms, 1500-byte packets take 1.2 ms), `queue` there,
/// hosts with `ecn`. No measurement window: counters cover the whole run.
fn path(ecn: bool, queue: &str) -> String {
    format!(
        r#"
duration = "300s"
[[host]]
name = "a"
profile = "rfc"
cc = "newreno"
ecn = {ecn}
[[host]]
name = "b"
profile = "rfc"
ecn = {ecn}
[[router]]
name = "r"
[[link]]
between = ["a", "r"]
rate = "10Gbps"
delay = "0ms"
queue = {{ packets = 10000 }}
[[link]]
between = ["r", "b"]
rate = "10Mbps"
delay = "50ms"
queue = {queue}
[[flow]]
name = "f"
from = "a"
to = "b"
"#
    )
}

fn bottleneck(r: &RunResult) -> &LinkResult {
    r.links.iter().find(|l| l.name == "r->b").unwrap()
}

/// The longest wait a packet can have had if the queue never held `limit`
/// packets: a full queue makes its last packet wait behind `limit - 1` others,
/// 1.2 ms each at 10 Mb/s.
fn never_full(l: &LinkResult, limit: f64) -> bool {
    l.max_sojourn_s < (limit - 1.0) * 1.2e-3
}

#[test]
fn red_with_ecn_marks_instead_of_dropping_and_newreno_halves_per_marked_window() {
    // RED in gentle mode with max_th 150 and a 300-packet limit: its forced
    // region (average >= 2 max_th = 300) is out of reach of an average of queue
    // lengths of at most 300, so RED drops only arrivals that find the queue
    // full; every early decision on an ECT packet is a mark. With ECN on both
    // hosts every data packet is ECT(0) unless retransmitted, so as long as the
    // queue never fills (checked from the largest sojourn) nothing is dropped,
    // nothing is retransmitted, and the only congestion signals are marks. Each
    // window reduction answers an ECN-Echo, which the receiver sends only after
    // a CE segment, and a lossless path delivers every CWR, so reductions <=
    // marks.
    let queue =
        r#"{ kind = "red", packets = 300, min_th = 5, max_th = 150, gentle = true, ecn = true }"#;
    let with = sim(&path(true, queue));
    let (l, f) = (bottleneck(&with), &with.flows[0]);
    eprintln!(
        "ECN: marks {}, drops {}, reductions {}, utilisation {:.3}, mean queue {:.2}, max sojourn {:.1} ms",
        l.marks,
        l.drops,
        f.ecn_reductions,
        l.utilisation,
        l.mean_queue_pkts,
        l.max_sojourn_s * 1e3
    );
    assert!(f.ecn, "both hosts enable ECN");
    assert!(never_full(l, 300.0), "max sojourn {}", l.max_sojourn_s);
    assert_eq!(l.drops, 0);
    assert_eq!((f.segs_retrans, f.fast_retransmits, f.timeouts), (0, 0, 0));
    assert!(l.marks > 0);
    assert!(
        (1..=l.marks).contains(&f.ecn_reductions),
        "{} reductions for {} marks",
        f.ecn_reductions,
        l.marks
    );
    // The same queue with hosts that do not use ECN: Not-ECT packets are dropped
    // where the ECT ones were marked, and recovered by retransmission.
    let without = sim(&path(false, queue));
    let (l, f) = (bottleneck(&without), &without.flows[0]);
    eprintln!(
        "no ECN: marks {}, drops {}, fast retransmits {}, utilisation {:.3}, mean queue {:.2}",
        l.marks, l.drops, f.fast_retransmits, l.utilisation, l.mean_queue_pkts
    );
    assert!(!f.ecn);
    assert_eq!((l.marks, f.ecn_reductions), (0, 0));
    assert!(l.drops > 0 && f.segs_retrans > 0);
}

#[test]
fn codel_and_fq_codel_with_ecn_mark_where_they_would_drop() {
    // CoDel drops only at dequeue (when its control law says so) and at its hard
    // limit. With a 1000-packet limit that is never reached and ECT data, every
    // control-law decision is a mark: no drop. A single flow in FQ-CoDel is one
    // CoDel queue, so it gives the same run.
    let mut runs = vec![];
    for kind in ["codel", "fq_codel"] {
        let r = sim(&path(
            true,
            &format!(r#"{{ kind = "{kind}", packets = 1000, ecn = true }}"#),
        ));
        let (l, f) = (bottleneck(&r), &r.flows[0]);
        assert!(never_full(l, 1000.0), "{kind}");
        assert_eq!((l.drops, f.segs_retrans), (0, 0), "{kind}");
        assert!(l.marks > 0, "{kind}");
        assert!((1..=l.marks).contains(&f.ecn_reductions), "{kind}");
        runs.push((l.marks, f.ecn_reductions, f.bytes_delivered));
    }
    assert_eq!(runs[0], runs[1]);
}

#[test]
fn ecn_hosts_behind_a_drop_tail_queue_only_see_losses() {
    // ECN is negotiated end to end, but a queue that does not mark can only
    // drop: no marks, so no ECN-Echo and no ECN reduction.
    let r = sim(&path(true, "{ packets = 50 }"));
    let (l, f) = (bottleneck(&r), &r.flows[0]);
    assert!(f.ecn);
    assert_eq!((l.marks, f.ecn_reductions), (0, 0));
    assert!(l.drops > 0 && f.fast_retransmits > 0);
}
