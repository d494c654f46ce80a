//! Traffic generators, finite transfers, stopped flows, phases, host NIC caps and
//! queueing-delay probes, end to end, against values derived by hand or from
//! conservation laws. Debug assertions check the world's invariants on every event
//! (packet conservation included, with connection slots being recycled).

use tcplab_model::{parse_scenario, run, RunResult};

fn sim(text: &str) -> RunResult {
    let sc = parse_scenario(text, "test.toml").unwrap_or_else(|e| panic!("{e}"));
    run(&sc, None)
}

#[test]
fn an_isolated_one_packet_transfer_takes_three_one_way_delays_and_three_serialisations() {
    // Hosts joined by one 10 Mb/s link, 10 ms each way; no SACK, timestamps or
    // window scaling, so the SYN and SYN-ACK carry only the MSS option: 44 bytes,
    // 35.2 us each; the one data packet is 1460 + 40 = 1500 bytes, 1.2 ms. The
    // response time (SYN sent to last byte delivered) is
    //   SYN 35.2 us + 10 ms, SYN-ACK 35.2 us + 10 ms, data 1.2 ms + 10 ms = 31.2704 ms.
    // Arrivals at 0.5/s rarely overlap (a transfer lasts 31 ms), so most transfers
    // take exactly that; an overlapping one can only take longer.
    let r = sim(r#"
duration = "400s"
[[host]]
name = "a"
sack = false
timestamps = false
window_scaling = false
[[host]]
name = "b"
sack = false
timestamps = false
window_scaling = false
[[link]]
between = ["a", "b"]
rate = "10Mbps"
delay = "10ms"
[[traffic]]
from = "a"
to = "b"
rate = 0.5
size = { dist = "fixed", value = 1 }
"#);
    let g = &r.generators[0];
    // Offered load: 0.5/s x 1460 B x 8 = 5840 b/s of 10 Mb/s.
    assert_eq!(g.mean_size_bytes, 1460.0);
    assert!((g.offered_bps - 5840.0).abs() < 1e-9);
    assert!((g.offered_load - 5.84e-4).abs() < 1e-12);
    // Poisson count over 400 s: mean 200, sd 14.1.
    assert!(
        (g.arrivals as f64 - 200.0).abs() < 5.0 * 200f64.sqrt(),
        "{}",
        g.arrivals
    );
    assert_eq!(r.transfers.len() as u64, g.arrivals);
    let exact = 0.0312704;
    let mut at_exact = 0;
    for t in &r.transfers {
        assert_eq!(t.size_bytes, 1460);
        assert!(t.completed, "{t:?}");
        assert!(t.fct_s >= exact - 1e-12, "{t:?}");
        at_exact += ((t.fct_s - exact).abs() < 1e-12) as usize;
    }
    assert!(
        at_exact as f64 >= 0.9 * r.transfers.len() as f64,
        "{at_exact}"
    );
}

fn web(rate: f64, duration: u32, queue: &str) -> String {
    // mascolo2006's web mix over a 10 Mb/s, 20 ms bottleneck; 1 packet = 1448 B
    // (timestamps on): mean 24.3 x 1448 = 35186.4 B.
    format!(
        r#"
duration = "{duration}s"
[[host]]
name = "x"
access = {{ router = "r1", rate = "1Gbps", delay = "1ms" }}
[[host]]
name = "y"
access = {{ router = "r2", rate = "1Gbps", delay = "1ms" }}
[[router]]
name = "r1"
[[router]]
name = "r2"
[[link]]
between = ["r1", "r2"]
rate = "10Mbps"
delay = "20ms"
queue = {queue}
[[traffic]]
name = "web"
from = "x"
to = "y"
rate = {rate}
size = {{ dist = "empirical", values = [1, 6, 18, 190], probs = [0.5, 0.2, 0.2, 0.1] }}
"#
    )
}

#[test]
fn generated_connections_are_all_accounted_for_and_finish() {
    // Offered: 20/s x 35186.4 B x 8 = 5.63 Mb/s, 56 % of the 10 Mb/s bottleneck.
    let r = sim(&web(20.0, 60, "{ packets = 50 }"));
    let g = &r.generators[0];
    assert!((g.mean_size_bytes - 35186.4).abs() < 1e-6);
    assert!((g.offered_load - 20.0 * 35186.4 * 8.0 / 1e7).abs() < 1e-9);
    assert_eq!(g.bottleneck_bps, 1e7);
    // Every arrival has exactly one row, numbered 0..n-1.
    assert_eq!(r.transfers.len() as u64, g.arrivals);
    for (k, t) in r.transfers.iter().enumerate() {
        assert_eq!(t.seq, k as u64);
        // Sizes come from the table, in whole segments.
        assert!([1u64, 6, 18, 190].contains(&(t.size_bytes / 1448)));
        assert_eq!(t.size_bytes % 1448, 0);
        // A finished transfer sent at least one segment per 1448 bytes, plus its FIN.
        assert!(!t.completed || t.segs_sent > t.size_bytes / 1448, "{t:?}");
    }
    // At 56 % load every transfer started 10 s before the end has finished.
    for t in r.transfers.iter().filter(|t| t.start_s < 50.0) {
        assert!(t.completed, "{t:?}");
    }
    assert_eq!(
        g.completed,
        r.transfers.iter().filter(|t| t.completed).count() as u64
    );
    // Poisson count: mean 1200, sd 34.6.
    assert!((g.arrivals as f64 - 1200.0).abs() < 5.0 * 1200f64.sqrt());
    // Bytes are conserved: the bottleneck carried every completed transfer's
    // payload plus at least 40 header bytes per segment.
    let bottleneck = r.links.iter().find(|l| l.name == "r1->r2").unwrap();
    let carried = bottleneck.throughput_bps * r.meta.measure_end_s / 8.0;
    let payload: u64 = r
        .transfers
        .iter()
        .filter(|t| t.completed)
        .map(|t| t.size_bytes)
        .sum();
    assert!(carried >= payload as f64, "{carried} < {payload}");
}

#[test]
fn the_arrival_list_is_the_connections_the_simulator_opens() {
    // Another backend opens the generators' connections from this list, so
    // it must hold exactly the simulator's: one entry per transfer row, the
    // same generator, number, hosts, size and start, for two seeds.
    let text = web(20.0, 30, "{ packets = 50 }");
    let sc = parse_scenario(&text, "test.toml").unwrap();
    for seed in [1, 7] {
        let r = run(&sc, Some(seed));
        let list = tcplab_model::generator_arrivals(&sc, seed);
        let mut rows: Vec<_> = r
            .transfers
            .iter()
            .map(|t| {
                (
                    t.generator,
                    t.seq,
                    t.src.clone(),
                    t.dst.clone(),
                    t.size_bytes,
                    t.start_s,
                )
            })
            .collect();
        rows.sort_by_key(|k| (k.0, k.1));
        let mut want: Vec<_> = list
            .iter()
            .map(|a| {
                (
                    a.generator,
                    a.seq,
                    sc.nodes[a.src as usize].clone(),
                    sc.nodes[a.dst as usize].clone(),
                    a.bytes,
                    a.time.as_secs_f64(),
                )
            })
            .collect();
        want.sort_by_key(|k| (k.0, k.1));
        assert_eq!(rows, want, "seed {seed}");
        // In order of time, and about 20/s x 30 s of them.
        assert!(list.windows(2).all(|w| w[0].time <= w[1].time));
        assert!((list.len() as f64 - 600.0).abs() < 5.0 * 600f64.sqrt());
    }
    // Two generators between several hosts, one stopping after the window
    // ends (the run, and so the list, end with it), one with no arrival.
    let text = r#"
duration = "20s"
[measure]
start = "0s"
end = "12s"
[[host]]
names = ["a", "b", "c", "d"]
access = { router = "r", rate = "100Mbps", delay = "5ms" }
[[router]]
name = "r"
[[traffic]]
name = "late"
from = ["a", "b"]
to = ["c", "d"]
rate = 10
start = "2s"
stop = "19s"
size = { dist = "fixed", value = 3 }
[[traffic]]
name = "never"
from = "d"
to = "a"
rate = 10
start = "13s"
size = { dist = "fixed", value = 1 }
"#;
    let sc = parse_scenario(text, "test.toml").unwrap();
    let r = run(&sc, Some(3));
    let list = tcplab_model::generator_arrivals(&sc, 3);
    assert_eq!(list.len(), r.transfers.len());
    assert!(list
        .iter()
        .all(|a| a.generator == 0 && a.time.as_secs_f64() < 12.0));
    assert!((list.len() as f64 - 100.0).abs() < 5.0 * 10.0);
    for (a, t) in list.iter().zip(&r.transfers) {
        assert_eq!(
            (a.seq, a.time.as_secs_f64(), a.bytes),
            (t.seq, t.start_s, t.size_bytes)
        );
        assert_eq!(sc.nodes[a.src as usize], t.src);
        assert_eq!(sc.nodes[a.dst as usize], t.dst);
    }
    // Both senders and both receivers were drawn.
    assert!(r.transfers.iter().any(|t| t.src == "a") && r.transfers.iter().any(|t| t.src == "b"));
    assert!(r.transfers.iter().any(|t| t.dst == "c") && r.transfers.iter().any(|t| t.dst == "d"));
    assert_eq!(r.generators[1].arrivals, 0);
}

#[test]
fn generated_traffic_is_deterministic() {
    let a = sim(&web(40.0, 20, "{ packets = 30 }"));
    let b = sim(&web(40.0, 20, "{ packets = 30 }"));
    let key = |r: &RunResult| {
        r.transfers
            .iter()
            .map(|t| {
                (
                    t.size_bytes,
                    t.start_s.to_bits(),
                    t.fct_s.to_bits(),
                    t.segs_retrans,
                )
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(key(&a), key(&b));
    assert_eq!(a.meta.events, b.meta.events);
    // Overloaded (113 %) with a short buffer: there were losses to recover from.
    assert!(a.transfers.iter().any(|t| t.segs_retrans > 0));
}

#[test]
fn a_stopped_flow_finishes_what_it_sent_and_phases_add_up() {
    // A bulk flow stops writing at 5 s; it drains within a second or so (a BDP and
    // a buffer at 10 Mb/s), so phase [10, 20) delivers nothing at all, and the
    // phases' bytes add up to the window's.
    let r = sim(r#"
duration = "20s"
[measure]
phases = ["5s", "10s"]
[[host]]
name = "a"
[[host]]
name = "b"
[[link]]
between = ["a", "b"]
rate = "10Mbps"
delay = "25ms"
queue = { packets = 50 }
[[flow]]
from = "a"
to = "b"
stop = "5s"
"#);
    let f = &r.flows[0];
    assert!(f.completed, "{f:?}");
    assert!(f.fct_s > 5.0 && f.fct_s < 10.0, "{}", f.fct_s);
    let p: Vec<_> = r.phases.iter().filter(|p| p.flow_index == 0).collect();
    assert_eq!(p.len(), 3);
    assert_eq!((p[0].start_s, p[0].end_s), (0.0, 5.0));
    assert_eq!((p[2].start_s, p[2].end_s), (10.0, 20.0));
    assert_eq!(p[2].goodput_bps, 0.0);
    assert_eq!(p[2].segs_sent, 0);
    let bytes: f64 = p
        .iter()
        .map(|x| x.goodput_bps * (x.end_s - x.start_s) / 8.0)
        .sum();
    assert!((bytes - f.bytes_delivered_window as f64).abs() < 1e-3);
    assert_eq!(f.bytes_delivered_window, f.bytes_delivered);
    // Phase 0 runs near the link rate: 1448/1500 of 10 Mb/s less slow start.
    assert!(
        p[0].goodput_bps > 0.85 * 1e7 * 1448.0 / 1500.0,
        "{}",
        p[0].goodput_bps
    );
}

#[test]
fn phases_name_their_flow_as_the_flows_table_does() {
    // Regression: the phases table gave the flow's index where every other table
    // gives its name. Two named flows and a default-named one, two phases each:
    // rows flow by flow, phase by phase.
    let r = sim(r#"
duration = "2s"
[measure]
phases = ["1s"]
[[host]]
name = "a"
[[host]]
name = "b"
[[link]]
between = ["a", "b"]
rate = "10Mbps"
delay = "5ms"
[[flow]]
name = "download"
from = "a"
to = "b"
[[flow]]
name = "upload"
from = "b"
to = "a"
[[flow]]
from = "a"
to = "b"
"#);
    let got: Vec<(&str, u32, u32)> = r
        .phases
        .iter()
        .map(|p| (p.flow.as_str(), p.flow_index, p.phase))
        .collect();
    assert_eq!(
        got,
        vec![
            ("download", 0, 0),
            ("download", 0, 1),
            ("upload", 1, 0),
            ("upload", 1, 1),
            ("a->b#2", 2, 0),
            ("a->b#2", 2, 1),
        ]
    );
    assert_eq!(r.flows[2].name, "a->b#2");
}

#[test]
fn a_host_nic_caps_its_throughput_below_the_wire_rate() {
    // 1 Gb/s wire, NIC at 50 Mb/s: the flow gets 50 Mb/s of IP packets, i.e.
    // 50 x 1448/1500 = 48.27 Mb/s of data; the 1000-packet queue in front of the
    // NIC dwarfs the 42-packet BDP (50 Mb/s x 10 ms), so the link stays busy.
    let r = sim(r#"
duration = "30s"
[measure]
start = "10s"
[[host]]
name = "a"
nic_rate = "50Mbps"
rcvbuf = "16MB"
sndbuf = "16MB"
[[host]]
name = "b"
rcvbuf = "16MB"
[[link]]
between = ["a", "b"]
rate = "1Gbps"
delay = "5ms"
[[flow]]
from = "a"
to = "b"
"#);
    let expect = 50e6 * 1448.0 / 1500.0;
    let got = r.flows[0].goodput_bps;
    assert!(got <= expect * 1.0001 && got >= 0.99 * expect, "{got}");
    assert_eq!(r.links[0].rate_bps, 50_000_000);
}

#[test]
fn queueing_delay_and_queue_length_obey_littles_law() {
    // L = lambda W on the bottleneck queue: the time-average number waiting equals
    // the departure rate times the mean wait (boundary effects: at most a
    // buffer's worth over 10^5 packets).
    let r = sim(r#"
duration = "60s"
[measure]
start = "10s"
[[host]]
name = "a"
[[host]]
name = "b"
[[link]]
between = ["a", "b"]
rate = "20Mbps"
delay = "20ms"
queue = { packets = 100 }
[[flow]]
from = "a"
to = "b"
"#);
    let l = &r.links[0];
    let lambda = l.pkts_sent as f64 / 50.0;
    let little = lambda * l.mean_sojourn_s;
    assert!(l.mean_queue_pkts > 10.0);
    assert!(
        (little / l.mean_queue_pkts - 1.0).abs() < 0.01,
        "{little} vs {}",
        l.mean_queue_pkts
    );
    // The longest wait is at most a full buffer: 100 packets x 0.6 ms.
    assert!(l.max_sojourn_s <= 0.06 + 1e-9, "{}", l.max_sojourn_s);
}

#[test]
fn traces_cover_scenario_flows_only() {
    // Regression: generated connections occupy flow slots beyond the scenario's
    // flows; the cwnd and RTT traces index the flows table, so they must not
    // include them.
    let text = web(20.0, 10, "{ packets = 50 }").replace(
        "[[host]]\nname = \"x\"",
        "[trace]\ncwnd = true\nrtt = true\n\n[[flow]]\nfrom = \"x\"\nto = \"y\"\n\n[[host]]\nname = \"x\"",
    );
    let r = sim(&text);
    assert_eq!(r.flows.len(), 1);
    assert!(!r.transfers.is_empty());
    let cwnd = r.traces.cwnd.as_ref().unwrap();
    let rtt = r.traces.rtt.as_ref().unwrap();
    assert!(!cwnd.flow.is_empty() && !rtt.flow.is_empty());
    assert!(cwnd.flow.iter().chain(&rtt.flow).all(|&f| f == 0));
}

/// Three 1 MB transfers from a to b one after another, each slow-starting into
/// a 20-packet queue and losing: the ssthresh each one starts from is what
/// the one before it left in a's host cache (FreeBSD `tcp_discardcb`,
/// `tcp_hc_update`, `cc_conn_init`; crates/tcp/src/hostcache.rs), computed
/// here from the ssthresh the earlier flows ended with.
fn host_cache_run(cache: bool) -> RunResult {
    sim(&format!(
        r#"
duration = "60s"
[trace]
cwnd = true
interval = "10ms"
[defaults.host]
profile = "freebsd"
host_cache = {cache}
[[host]]
name = "a"
[[host]]
name = "b"
[[link]]
between = ["a", "b"]
rate = "10Mbps"
delay = "20ms"
queue = {{ packets = 20 }}
[[flow]]
from = "a"
to = "b"
size = "1MB"
start = "0s"
[[flow]]
from = "a"
to = "b"
size = "1MB"
start = "20s"
[[flow]]
from = "a"
to = "b"
size = "1MB"
start = "40s"
"#
    ))
}

/// Flow `flow`'s ssthresh at the first trace sample at or after `t` seconds.
fn ssthresh_at(r: &RunResult, flow: u32, t: f64) -> u32 {
    let tr = r.traces.cwnd.as_ref().expect("cwnd trace");
    (0..tr.time_s.len())
        .find(|&i| tr.flow[i] == flow && tr.time_s[i] >= t - 1e-9)
        .map(|i| tr.ssthresh[i])
        .expect("a sample")
}

#[test]
fn a_transfer_starts_from_the_ssthresh_the_last_one_left_in_the_host_cache() {
    let r = host_cache_run(true);
    for f in &r.flows {
        assert!(f.completed, "{f:?}");
        assert!(f.fct_s < 15.0, "{f:?}");
    }
    let mss = r.flows[0].mss as u64;
    assert_eq!(mss, 1448);
    // Each flow's ssthresh when it has finished (before the next starts),
    // set by its losses: below half the 4 MiB send buffer.
    let end: Vec<u64> = (0..3)
        .map(|f| ssthresh_at(&r, f, 19.9 + 20.0 * f as f64) as u64)
        .collect();
    assert!(end.iter().all(|&s| s >= 2 && s * mss < 2 << 20), "{end:?}");
    // Saved as packets x (MSS + 40); merged by (old + new) / 2.
    let saved = |s: u64| s.max(2) * (mss + 40);
    let after1 = saved(end[0]);
    let after2 = (after1 + saved(end[1])) / 2;
    // Used as max(2 MSS, cached) bytes, in whole segments: from the first
    // sample after the handshake (one round trip is 40 ms).
    assert_eq!(ssthresh_at(&r, 0, 0.1), u32::MAX);
    assert_eq!(ssthresh_at(&r, 1, 20.1) as u64, after1.max(2 * mss) / mss);
    assert_eq!(ssthresh_at(&r, 2, 40.1) as u64, after2.max(2 * mss) / mss);
    // Without the cache every transfer starts with no ssthresh.
    let r = host_cache_run(false);
    for f in 0..3 {
        assert_eq!(ssthresh_at(&r, f, 0.1 + 20.0 * f as f64), u32::MAX);
    }
}
