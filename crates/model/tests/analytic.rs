//! End-to-end runs checked against values derived outside the simulator:
//! closed-form throughput of simple paths, conservation, determinism. These run
//! with debug assertions, so every event also checks the world's invariants.

use tcplab_model::{parse_scenario, run, RunResult};

fn sim(text: &str) -> RunResult {
    let sc = parse_scenario(text, "test.toml").unwrap_or_else(|e| panic!("{e}"));
    run(&sc, None)
}

/// A two-host path through one router: each direction `rate`, one-way delay
/// `delay_ms` split over the two hops, bottleneck buffer `buf` packets.
fn path(
    rate: &str,
    delay_ms: f64,
    buf: u32,
    host_extra: &str,
    duration: u32,
    start: u32,
) -> String {
    format!(
        r#"
duration = "{duration}s"
[measure]
start = "{start}s"
[[host]]
name = "a"
profile = "rfc"
{host_extra}
[[host]]
name = "b"
profile = "rfc"
{host_extra}
[[router]]
name = "r"
[[link]]
between = ["a", "r"]
rate = "10Gbps"
delay = "0ms"
queue = {{ packets = 10000 }}
[[link]]
between = ["r", "b"]
rate = "{rate}"
delay = "{delay_ms}ms"
queue = {{ packets = {buf} }}
[[flow]]
name = "f"
from = "a"
to = "b"
"#
    )
}

#[test]
fn a_flow_limited_by_the_receive_window_gets_rwnd_over_rtt() {
    // rcvbuf 40 segments of 1448 B = 57920 B (no window scaling needed: < 65535).
    // 100 Mb/s, RTT 100 ms: rwnd/RTT = 57920 * 8 / 0.1 = 4.6336 Mb/s, far below
    // the link rate, so the window, not the link, limits. Serialisation adds
    // 0.12 ms to the RTT (0.12 %).
    let r = sim(&path("100Mbps", 50.0, 1000, "rcvbuf = \"57920B\"", 60, 10));
    let expected = 57920.0 * 8.0 / 0.1;
    let got = r.flows[0].goodput_bps;
    assert!(
        (got / expected - 1.0).abs() < 0.01,
        "goodput {got} vs rwnd/RTT {expected}"
    );
    assert_eq!(r.flows[0].segs_retrans, 0);
}

#[test]
fn a_single_flow_with_a_bdp_of_buffer_fills_the_link() {
    // 10 Mb/s, RTT 100 ms: BDP = 125000 B = 83.3 packets of 1500 B; buffer 84.
    // After each halving the window stays >= BDP, so the link never idles.
    let r = sim(&path("10Mbps", 50.0, 84, "", 200, 40));
    let down = r.links.iter().find(|l| l.name == "r->b").unwrap();
    assert!(down.utilisation >= 0.99, "utilisation {}", down.utilisation);
    // Goodput: the link rate times the payload share of a packet, 1448/1500.
    let cap = 10e6 * 1448.0 / 1500.0;
    assert!(
        r.flows[0].goodput_bps >= 0.99 * cap,
        "goodput {} vs {}",
        r.flows[0].goodput_bps,
        cap
    );
    assert!(
        r.flows[0].fast_retransmits > 0,
        "the buffer must overflow: the test is about a lossy sawtooth"
    );
}

#[test]
fn newreno_sawtooth_averages_three_quarters_of_bdp_plus_buffer_per_rtt() {
    // Barakat & Altman (RR-3620, section 6): in congestion avoidance the window
    // oscillates between (muT + B)/2 and muT + B, and throughput is
    // 3 (mu T + B) / (4 T). mu = 12 Mb/s = 1000 packets/s of 1500 B, T = 100 ms:
    // muT = 100 packets; B = 10 packets: 3/4 * 110 = 82.5 packets per RTT.
    // (The cycle's exact average, counting the RTT growth while the queue
    // fills, is 81.7: within 1 %.) Tolerance 5 %.
    let r = sim(&path("12Mbps", 50.0, 10, "", 600, 100));
    let pkts_per_s = r.flows[0].goodput_bps / (1448.0 * 8.0);
    let per_rtt = pkts_per_s * 0.1;
    assert!(
        (per_rtt / 82.5 - 1.0).abs() < 0.05,
        "{per_rtt} packets per RTT, expected about 82.5"
    );
    assert_eq!(
        r.flows[0].timeouts, 0,
        "steady state must be loss recovery, not timeouts"
    );
}

#[test]
fn link_counters_conserve_bytes_between_directions_and_flows() {
    // The download's goodput can be no more than the IP bytes its link carried,
    // and every link's IP throughput is below its rate.
    let r = sim(&path("10Mbps", 20.0, 30, "", 60, 10));
    for l in &r.links {
        assert!(
            l.throughput_bps <= l.rate_bps as f64 * 1.0001,
            "{} carries more than its rate",
            l.name
        );
        assert!(l.utilisation <= 1.0);
    }
    let down = r.links.iter().find(|l| l.name == "r->b").unwrap();
    assert!(r.flows[0].goodput_bps < down.throughput_bps);
    // The data: 1448 of every 1500 bytes on the link are payload, less retransmissions.
    assert!(r.flows[0].goodput_bps > down.throughput_bps * 1448.0 / 1500.0 * 0.97);
}

fn braud(buf: u32, duration: u32) -> String {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scenarios/braud2016/long-newreno.toml"
    ))
    .unwrap();
    text.replace(
        "queue = { packets = 40 }",
        &format!("queue = {{ packets = {buf} }}"),
    )
    .replace(
        "duration = \"800s\"",
        &format!("duration = \"{duration}s\""),
    )
    .replace("start = \"200s\"", "start = \"20s\"")
    .replace("end = \"800s\"", &format!("end = \"{duration}s\""))
}

#[test]
fn same_scenario_and_seed_give_bit_identical_results() {
    let sc = parse_scenario(&braud(40, 60), "b.toml").unwrap();
    let a = run(&sc, Some(7));
    let b = run(&sc, Some(7));
    let key = |r: &RunResult| {
        format!(
            "{:?}{:?}{:?}{}{}",
            r.flows, r.links, r.traces, r.meta.events, r.meta.packets
        )
    };
    assert_eq!(key(&a), key(&b));
    let c = run(&sc, Some(8));
    assert_ne!(
        a.flows[0].start_s, c.flows[0].start_s,
        "another seed draws other start times"
    );
}

#[test]
fn tx_jitter_is_drawn_from_the_run_seed() {
    // Jittered hosts: the same seed gives the same run, bit for bit (the
    // jitter comes from the run's random streams, not from a global one).
    let text = braud(40, 60).replace("[[host]]\n", "[[host]]\ntx_jitter = \"1ms\"\n");
    let sc = parse_scenario(&text, "j.toml").unwrap();
    assert!(sc.hosts.iter().all(|h| h.stage.tx_jitter.0 == 1_000_000));
    let key = |r: &RunResult| format!("{:?}{:?}{}", r.flows, r.links, r.meta.events);
    let (a, b) = (run(&sc, Some(7)), run(&sc, Some(7)));
    assert_eq!(key(&a), key(&b));
    // Without jitter the same seed gives another run: the jitter acts.
    let plain = parse_scenario(&braud(40, 60), "b.toml").unwrap();
    assert_ne!(key(&a), key(&run(&plain, Some(7))));
}

#[test]
fn antiparallel_flows_share_the_asymmetric_link() {
    // Both directions carry data and ACKs; a well-sized uplink buffer (40) lets the
    // download keep most of the downlink. Loose bounds: this is a sanity check of
    // the wiring (both flows make progress, the downlink is busy), not a paper figure.
    let r = sim(&braud(40, 120));
    let down = r.flows.iter().find(|f| f.name == "download").unwrap();
    let up = r.flows.iter().find(|f| f.name == "upload").unwrap();
    assert!(down.goodput_bps > 5e6, "download {}", down.goodput_bps);
    assert!(up.goodput_bps > 0.5e6, "upload {}", up.goodput_bps);
    // RTT can never be below the 94 ms of propagation plus a packet's serialisation.
    assert!(down.rtt_p50_s > 0.094 && up.rtt_p50_s > 0.094);
}

#[test]
fn a_flow_limited_by_the_send_buffer_gets_sndbuf_over_rtt() {
    // sndbuf 40 segments of 1448 B: at most 57920 B unacknowledged, so at most
    // 57920 B per RTT of 100 ms = 4.6336 Mb/s on a 100 Mb/s path.
    let r = sim(&path("100Mbps", 50.0, 1000, "sndbuf = \"57920B\"", 60, 10));
    let expected = 57920.0 * 8.0 / 0.1;
    let got = r.flows[0].goodput_bps;
    assert!(
        (got / expected - 1.0).abs() < 0.01,
        "goodput {got} vs sndbuf/RTT {expected}"
    );
}

#[test]
fn without_window_scaling_the_window_stops_at_65535_bytes() {
    // A 4 MiB receive buffer is useless without RFC 7323 window scaling: the
    // 16-bit field caps the window at 65535 B, i.e. 45 whole segments of 1448 B
    // per RTT of 100 ms. ACKing every segment: 45 * 1448 * 8 / 0.1 = 5.2128 Mb/s.
    let every = sim(&path(
        "100Mbps",
        50.0,
        1000,
        "window_scaling = false\ndelack = \"0ms\"",
        60,
        10,
    ));
    let expected = 45.0 * 1448.0 * 8.0 / 0.1;
    let got = every.flows[0].goodput_bps;
    assert!(
        (got / expected - 1.0).abs() < 0.01,
        "goodput {got} vs 45 segments per RTT {expected}"
    );
    // With delayed ACKs (every second segment, 200 ms timer > RTT) the odd 45th
    // segment of each window waits for the next train's first segment, so 44
    // segments are acknowledged per RTT: 44 * 1448 * 8 / 0.1 = 5.0970 Mb/s.
    let delayed = sim(&path(
        "100Mbps",
        50.0,
        1000,
        "window_scaling = false",
        60,
        10,
    ));
    let expected = 44.0 * 1448.0 * 8.0 / 0.1;
    let got = delayed.flows[0].goodput_bps;
    assert!(
        (got / expected - 1.0).abs() < 0.01,
        "goodput {got} vs 44 segments per RTT {expected}"
    );
    // With scaling the same flow fills far more of the 100 Mb/s link.
    let scaled = sim(&path("100Mbps", 50.0, 1000, "", 60, 10));
    assert!(scaled.flows[0].goodput_bps > 5.0 * got);
}

/// Average congestion window (segments) of one flow over the window, from its
/// goodput and the base RTT (the path is uncongested: the link is far faster).
fn avg_window(r: &RunResult, rtt: f64) -> f64 {
    r.flows[0].goodput_bps * rtt / (1448.0 * 8.0)
}

fn lossy_path(cc: &str, every: u64, duration: u32) -> String {
    // 1 Gb/s, RTT 100 ms, a buffer far above any window reached here: the only
    // losses are the periodic ones on the data direction.
    path(
        "1Gbps",
        50.0,
        100_000,
        &format!("cc = \"{cc}\""),
        duration,
        100,
    )
    .replace(
        "queue = { packets = 100000 }",
        &format!("queue = {{ packets = 100000 }}\n[link.forward]\nloss = {{ every = {every} }}"),
    )
}

#[test]
fn reno_average_window_under_periodic_loss_follows_the_response_function() {
    // RFC 9438 Table 1: Reno's average window is 1.2 / sqrt(p) segments. With one
    // loss every 1/p packets the sawtooth between W/2 and W carries 3W^2/8 = 1/p
    // packets per cycle, average 3W/4 = sqrt(3/(2p)) = 1.22/sqrt(p): 2 % apart.
    for every in [400u64, 1000, 4000] {
        let p = 1.0 / every as f64;
        let r = sim(&lossy_path("newreno", every, 1100));
        let w = avg_window(&r, 0.1);
        let expected = 1.2 / p.sqrt();
        eprintln!("reno p = 1/{every}: average window {w:.2}, 1.2/sqrt(p) = {expected:.2}");
        assert!(
            (w / expected - 1.0).abs() < 0.10,
            "p = 1/{every}: average window {w:.1}, expected {expected:.1}"
        );
        assert_eq!(r.flows[0].timeouts, 0);
    }
}

#[test]
fn the_three_drop_policies_run_and_random_drop_is_deterministic() {
    // The same lossy-by-buffer path under each policy: all keep the link busy and
    // lose packets at the bottleneck; Random Drop draws from its own stream, so
    // the same seed gives the same run.
    let base = path("10Mbps", 50.0, 20, "", 60, 20);
    for kind in ["droptail", "dropfront", "randomdrop", "red", "codel"] {
        let text = base.replace(
            "queue = { packets = 20 }",
            &format!("queue = {{ kind = \"{kind}\", packets = 20 }}"),
        );
        let a = sim(&text);
        let down = a.links.iter().find(|l| l.name == "r->b").unwrap();
        // RED and CoDel drop early, at an average of 5..15 packets or 5 ms of
        // delay, far below the BDP (83 packets, 100 ms):
        // a single flow then leaves the link idle after each halving (0.71 here);
        // the queue-control test above checks RED itself.
        let floor = if matches!(kind, "red" | "codel") {
            0.5
        } else {
            0.8
        };
        assert!(
            down.drops > 0 && down.utilisation > floor,
            "{kind}: {} drops, utilisation {}",
            down.drops,
            down.utilisation
        );
        let b = sim(&text);
        assert_eq!(
            format!("{:?}", a.flows),
            format!("{:?}", b.flows),
            "{kind} not deterministic"
        );
    }
}

#[test]
fn red_keeps_the_average_queue_near_its_thresholds_where_drop_tail_fills_the_buffer() {
    // One NewReno flow, 10 Mb/s, RTT 100 ms (BDP 83 packets), hard limit 100.
    // Drop Tail lets the sawtooth fill the buffer (queue from 0 to 100, mean
    // about half of it); RED (min_th 5, max_th 15) drops early as the average
    // passes min_th, so the queue stays around its thresholds and rarely reaches
    // the limit.
    let base = path("10Mbps", 50.0, 100, "", 300, 60);
    let tail = sim(&base);
    let red = sim(&base.replace(
        "queue = { packets = 100 }",
        "queue = { kind = \"red\", packets = 100 }",
    ));
    let q = |r: &RunResult| {
        r.links
            .iter()
            .find(|l| l.name == "r->b")
            .unwrap()
            .mean_queue_pkts
    };
    eprintln!("mean queue: drop tail {:.1}, red {:.1}", q(&tail), q(&red));
    assert!(q(&tail) > 30.0, "drop tail mean queue {}", q(&tail));
    assert!(q(&red) < 15.0, "red mean queue {}", q(&red));
}

#[test]
fn codel_keeps_the_standing_queue_near_its_target_delay() {
    // Same path as the RED test: CoDel's target of 5 ms is 4.2 packets of 1500 B
    // at 10 Mb/s; it drops once the sojourn has stayed above that for 100 ms, so
    // the time-averaged queue stays a few packets, where Drop Tail averages ~60.
    let base = path("10Mbps", 50.0, 100, "", 300, 60);
    let codel = sim(&base.replace(
        "queue = { packets = 100 }",
        "queue = { kind = \"codel\", packets = 100 }",
    ));
    let down = codel.links.iter().find(|l| l.name == "r->b").unwrap();
    eprintln!(
        "codel: mean queue {:.1} packets, utilisation {:.3}, drops {}",
        down.mean_queue_pkts, down.utilisation, down.drops
    );
    assert!(
        down.mean_queue_pkts < 15.0,
        "codel mean queue {}",
        down.mean_queue_pkts
    );
    assert!(down.drops > 0);
}

#[test]
fn a_host_costing_more_per_packet_than_the_link_bounds_the_throughput() {
    // Both hosts spend 100 us on every packet they send or receive; the link
    // (1 Gb/s) needs 12 us per 1500-byte packet. The receiver ACKs every
    // second segment, so each host's stage serves 1.5 packets per data
    // segment: 150 us, and the flow gets 1448 B / 150 us = 77.23 Mb/s.
    // The window (rcvbuf 4 MB) is far above what the path holds, so the
    // stage, not the window, limits; the stage has no loss.
    let r = sim(&path(
        "1Gbps",
        0.1,
        1000,
        "packet_cost = \"100us\"\ndelack_segments = 2",
        20,
        5,
    ));
    let expected = 1448.0 * 8.0 / 150e-6;
    let got = r.flows[0].goodput_bps;
    assert!(
        (got / expected - 1.0).abs() < 0.01,
        "goodput {got} vs one segment per 150 us {expected}"
    );
    assert_eq!(r.flows[0].segs_retrans, 0);
    // The stages set the pace: both are busy all the run but its first
    // round trips (the hosts table); their queues have no limit, so no drops.
    assert_eq!(r.hosts.len(), 2);
    for h in &r.hosts {
        assert!(h.utilisation > 0.99, "{} busy {}", h.name, h.utilisation);
        assert_eq!((h.tx_drops, h.rx_drops), (0, 0));
    }
}

#[test]
fn a_bus_rate_and_a_receive_latency_add_to_the_round_trip() {
    // A window-limited flow (rcvbuf 20 segments) on a 10 Mb/s path with RTT
    // 100 ms: without a stage, rwnd/RTT. A 1 Gb/s bus adds, per data packet,
    // 12 us at each end; the receive latency 5 ms at each end, once for the
    // data and once for its ACK: the RTT grows by 10 ms (the bus and the ACK's
    // bus time add 0.05 ms). Goodput: 20 * 1448 * 8 / 0.11012 s.
    let base = path("10Mbps", 50.0, 1000, "rcvbuf = \"28960B\"", 60, 10);
    let slow = path(
        "10Mbps",
        50.0,
        1000,
        "rcvbuf = \"28960B\"\nbus_rate = \"1Gbps\"\nrx_latency = \"5ms\"",
        60,
        10,
    );
    let (a, b) = (sim(&base), sim(&slow));
    let ratio = a.flows[0].goodput_bps / b.flows[0].goodput_bps;
    let rtt0 = a.flows[0].rtt_mean_s;
    let expected = (rtt0 + 0.010 + 2.0 * 12e-6 + 2.0 * 0.32e-6) / rtt0;
    assert!(
        (ratio / expected - 1.0).abs() < 0.01,
        "goodput ratio {ratio} vs RTT ratio {expected} (rtt {rtt0})"
    );
}
