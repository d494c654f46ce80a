//! Per-flow loss facts (flows table): which data segments the network dropped,
//! where and at which window, the sender's first reduction, and the double
//! slow start of Barakat & Altman (1999). Expected values are traced by hand
//! below from the link's rate and delay and ns-2 Tahoe's rules.

use tcplab_model::{parse_scenario, run};

/// a -> b over 8 Mb/s, 10 ms each way; on the forward direction every 6th
/// packet is lost on the wire. ns-2 agents as in 1999 (no packet 0, windowInit_
/// 1), 1460-byte payloads (1500-byte packets: 1.5 ms; 40-byte ACKs: 0.04 ms),
/// Tahoe as ns-2's Agent/TCP, no SACK, window_ 20. The flow starts at 1 s.
const SCENARIO: &str = r#"
duration = "1.2s"
[defaults.host]
profile = "ns2"
mss = 1460
handshake = "none"
initial_window = 1
window = 20
sack = false
[[host]]
name = "a"
cc = "tahoe"
recovery = "tahoe-ns2"
[[host]]
name = "b"
[[link]]
between = ["a", "b"]
rate = "8Mbps"
delay = "10ms"
queue = { packets = 1000 }
forward = { loss = { every = 6 } }
[[flow]]
name = "f"
from = "a"
to = "b"
start = "1s"
"#;

#[test]
fn the_first_drop_its_retransmission_and_the_first_reduction_are_where_traced() {
    // Times in ms after 1 s. A segment sent at t arrives at t + 1.5 + 10 (alone
    // on the link) and its ACK is back 10.04 ms later.
    //   0      seg0 (cwnd 1)                 ACK at 21.54 -> cwnd 2
    //   21.54  seg1, seg2                    ACKs at 43.08, 44.58
    //   43.08  cwnd 3: seg3, seg4 (on the wire until 44.58, 46.08)
    //   44.58  cwnd 4: seg5 (wire 46.08-47.58), seg6 (until 49.08)
    // seg5 is the 6th packet on the link: lost when it reaches b, at 57.58,
    // sent with cwnd 4 in slow start (ssthresh_ starts at window_ 20).
    //   64.62  ACK of seg3 (54.58 + 10.04): cwnd 5, seg7, seg8 (until 67.62)
    //   66.12  ACK of seg4: cwnd 6, seg9, seg10
    // seg6, seg7, seg8 arrive at 59.08, 76.12, 77.62: duplicate ACKs at 69.12,
    // 86.16, 87.66. The third fast-retransmits at 87.66 with cwnd 6 in slow
    // start; the first decrease halves window() = 6: ssthresh 3, cwnd 1, and
    // ns-2 goes back to seg5, the 12th packet on the link: lost at
    // 87.66 + 1.5 + 10 = 99.16. The timer (at least minrto_ 200 ms after
    // 87.66) has not fired by 1.2 s: two data drops, one a retransmission, no
    // second slow start.
    let sc = parse_scenario(SCENARIO, "drops.toml").unwrap_or_else(|e| panic!("{e}"));
    let r = run(&sc, None);
    let f = &r.flows[0];
    assert_eq!((f.data_drops, f.retrans_drops), (2, 1));
    assert!(
        (f.first_drop_s - 1.05758).abs() < 1e-9,
        "{}",
        f.first_drop_s
    );
    assert_eq!(f.first_drop_link, "a->b");
    assert_eq!((f.first_drop_cwnd, f.first_drop_in_ss), (4, true));
    assert!(
        (f.retrans_drop_s - 1.09916).abs() < 1e-9,
        "{}",
        f.retrans_drop_s
    );
    assert_eq!(f.retrans_drop_link, "a->b");
    assert_eq!(f.first_reduction, "fast_retransmit");
    assert!(
        (f.first_reduction_s - 1.08766).abs() < 1e-9,
        "{}",
        f.first_reduction_s
    );
    assert_eq!((f.first_reduction_cwnd, f.first_reduction_in_ss), (6, true));
    assert!(!f.double_slow_start);
    assert_eq!(f.timeouts, 0);
    // The segment and packet sizes (ns-2: payload + 40), the queue limits.
    assert_eq!((f.mss, f.packet_bytes), (1460, 1500));
    let l = &r.links[0];
    assert_eq!((l.queue_limit_pkts, l.queue_limit_bytes), (1000, 0));
}

#[test]
fn a_flow_without_drops_reports_none() {
    // No loss at all: no drop, no reduction.
    let text = SCENARIO.replace("forward = { loss = { every = 6 } }\n", "");
    let r = run(&parse_scenario(&text, "nodrops.toml").unwrap(), None);
    let f = &r.flows[0];
    assert_eq!(
        (f.data_drops, f.retrans_drops, f.first_drop_cwnd),
        (0, 0, 0)
    );
    assert!(f.first_drop_s.is_nan() && f.retrans_drop_s.is_nan() && f.first_reduction_s.is_nan());
    assert_eq!(
        (f.first_drop_link.as_str(), f.first_reduction.as_str()),
        ("", "")
    );
    assert!(!f.double_slow_start);
    // A bulk flow has no transfer throughput.
    assert!(f.transfer_bps.is_nan());
}

#[test]
fn a_finished_transfer_reports_its_bytes_over_its_completion_time() {
    // 100 segments of 1460 bytes, no loss: completed, and its throughput is
    // the definition's bytes * 8 / fct, below the 8 Mb/s of the link.
    let text = SCENARIO
        .replace("forward = { loss = { every = 6 } }\n", "")
        .replace("start = \"1s\"", "start = \"1s\"\nsize = \"146000B\"")
        .replace("duration = \"1.2s\"", "duration = \"10s\"");
    let r = run(&parse_scenario(&text, "transfer.toml").unwrap(), None);
    let f = &r.flows[0];
    assert!(f.completed);
    assert_eq!(f.bytes_delivered, 146_000);
    assert_eq!(f.transfer_bps, 146_000.0 * 8.0 / f.fct_s);
    assert!(f.transfer_bps > 0.0 && f.transfer_bps < 8e6);
}
