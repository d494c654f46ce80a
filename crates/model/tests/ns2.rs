//! The `ns2` profile end to end: scenarios whose hosts are ns-2 one-way agents
//! (ns-2 2.28 `Agent/TCP` + `TCPSink`). Expected values are worked by hand from
//! the link rates and ns-2's packet sizes (packetSize_ 1460 + 40 = 1500-byte
//! data packets, 40-byte ACKs and `syn_` packet), not from a previous run.

use tcplab_model::{parse_scenario, run, RunResult};

fn sim(text: &str) -> RunResult {
    let sc = parse_scenario(text, "ns2.toml").unwrap_or_else(|e| panic!("{e}"));
    run(&sc, None)
}

/// a -> b over one 8 Mb/s, 10 ms link each way (1500 bytes take 1.5 ms, 40 bytes
/// 0.04 ms); both hosts on the ns2 profile with 1460-byte packets; the flow
/// starts at 1 s; `extra` goes into host a.
fn one_link(extra: &str, duration: &str, window: u32) -> String {
    format!(
        r#"
duration = "{duration}"
[[host]]
name = "a"
profile = "ns2"
mss = 1460
window = {window}
{extra}
[[host]]
name = "b"
profile = "ns2"
mss = 1460
[[link]]
between = ["a", "b"]
rate = "8Mbps"
delay = "10ms"
queue = {{ packets = 1000 }}
[[flow]]
name = "f"
from = "a"
to = "b"
start = "1s"
"#
    )
}

#[test]
fn without_syn_the_first_data_packet_leaves_at_the_flow_start() {
    // handshake none, windowInit_ 1: packet 1 leaves at 1 s; it arrives at
    // 1 + 1.5 + 10 ms, its 40-byte ACK is back at 1.0115 + 0.04 + 10 ms =
    // 1.02154 s: one RTT sample of 21.54 ms, measured from the start time. The
    // two packets cwnd 2 then sends arrive after 1.03 s.
    let r = sim(&one_link(
        "handshake = \"none\"\ninitial_window = 1",
        "1.03s",
        20,
    ));
    let f = &r.flows[0];
    assert_eq!(f.rtt_samples, 1);
    assert!((f.rtt_mean_s - 0.02154).abs() < 1e-9, "{}", f.rtt_mean_s);
    assert_eq!(f.bytes_delivered, 1460);
    assert_eq!(f.profile, "ns2");
}

#[test]
fn with_syn_a_40_byte_packet_goes_first_and_data_follows_its_ack() {
    // ns-2 2.28 defaults (syn_, delay_growth_): the 40-byte packet 0 leaves at
    // 1 s and is ACKed at 1 + 2 * (0.04 + 10) ms = 1.02008 s (the one sample:
    // 20.08 ms); windowInit_ 2 packets leave then and arrive from 1.03158 s:
    // nothing is delivered by 1.03 s, 2 * 1460 bytes by 1.034 s.
    let r = sim(&one_link("", "1.03s", 20));
    let f = &r.flows[0];
    assert_eq!(f.rtt_samples, 1);
    assert!((f.rtt_mean_s - 0.02008).abs() < 1e-9, "{}", f.rtt_mean_s);
    assert_eq!(f.bytes_delivered, 0);
    let r = sim(&one_link("", "1.034s", 20));
    assert_eq!(r.flows[0].bytes_delivered, 2 * 1460);
}

#[test]
fn packets_are_1500_bytes_and_acks_40_on_the_wire() {
    // window_ 40 packets over a 8 Mb/s, 20 ms RTT path (BDP 13.3 packets): no
    // loss in a 1000-packet queue, the link busy from the first seconds. Every
    // data packet is 1460 + 40 bytes and every packet gets one 40-byte ACK, so
    // forward wire bytes / goodput = 1500 / 1460 and reverse / forward = 40 / 1500
    // (up to the packets in flight at the window's edges).
    let text = one_link("", "30s", 40).replace(
        "duration = \"30s\"",
        "duration = \"30s\"\n[measure]\nstart = \"5s\"",
    );
    let r = sim(&text);
    let f = &r.flows[0];
    assert_eq!(f.segs_retrans, 0);
    assert_eq!(f.timeouts, 0);
    let fwd = r.links.iter().find(|l| l.from == "a").unwrap();
    let rev = r.links.iter().find(|l| l.from == "b").unwrap();
    let ratio = fwd.throughput_bps / f.goodput_bps;
    assert!((ratio - 1500.0 / 1460.0).abs() < 1e-3, "{ratio}");
    let acks = rev.throughput_bps / fwd.throughput_bps;
    assert!((acks - 40.0 / 1500.0).abs() < 1e-4, "{acks}");
    // The sender fills the link: goodput = 8 Mb/s * 1460 / 1500.
    assert!((f.goodput_bps / (8e6 * 1460.0 / 1500.0) - 1.0).abs() < 1e-3);
}

#[test]
fn an_ns2_sender_needs_an_ns2_receiver() {
    let text = one_link("", "10s", 20).replace(
        "name = \"b\"\nprofile = \"ns2\"",
        "name = \"b\"\nprofile = \"rfc\"",
    );
    let e = parse_scenario(&text, "bad.toml").unwrap_err().to_string();
    for part in [
        "bad.toml",
        "flow[0].to",
        "\"b\"",
        "an ns-2 one-way agent (handshake ns2-syn)",
        "a kernel stack (handshake tcp)",
    ] {
        assert!(e.contains(part), "{part:?} not in {e}");
    }
}

#[test]
fn bad_ns2_settings_are_clear_errors() {
    for (extra, field, says) in [
        ("handshake = \"syn\"", "host[0].handshake", "allowed: tcp"),
        (
            "rto_estimator = \"bsd\"",
            "host[0].rto_estimator",
            "allowed: rfc6298, ns2",
        ),
        ("tcp_tick = \"0s\"", "host[0].tcp_tick", "must be positive"),
        (
            "initial_rto = \"0s\"",
            "host[0].initial_rto",
            "must be positive",
        ),
        (
            "max_rto = \"100ms\"",
            "host[0].max_rto",
            "not be below min_rto",
        ),
        (
            "max_cwnd = 1",
            "host[0].max_cwnd",
            "initial window (2 segments)",
        ),
        (
            "dupthresh_frac = -1",
            "host[0].dupthresh_frac",
            "must be 0 (off; ns-2 writes -1 for off)",
        ),
        ("ns2_lss = 1", "host[0].ns2_lss", "boolean"),
        (
            "newreno_rto = \"patient\"",
            "host[0].newreno_rto",
            "allowed: impatient",
        ),
        (
            "partial_window_deflation = 0",
            "host[0].partial_window_deflation",
            "boolean",
        ),
    ] {
        let e = parse_scenario(&one_link(extra, "10s", 20), "bad.toml")
            .unwrap_err()
            .to_string();
        assert!(e.contains(field) && e.contains(says), "{extra}: {e}");
    }
}

#[test]
fn the_ns2_rules_are_host_settings() {
    // The ns2 profile turns the three ns-2 2.28 rules on; a host may turn each
    // off (and another profile's host on), and `tcplab list` shows them.
    let sc = parse_scenario(&one_link("", "10s", 20), "ns2.toml").unwrap();
    let c = &sc.hosts[0].tcp;
    assert_eq!(
        (c.dupthresh_frac, c.ns2_lss, c.ns2_decrease),
        (100, true, true)
    );
    let extra = "dupthresh_frac = 0\nns2_lss = false\nns2_decrease = false";
    let sc = parse_scenario(&one_link(extra, "10s", 20), "ns2.toml").unwrap();
    let c = &sc.hosts[0].tcp;
    assert_eq!(
        (c.dupthresh_frac, c.ns2_lss, c.ns2_decrease),
        (0, false, false)
    );
    let c = &sc.hosts[1].tcp;
    assert_eq!(
        (c.dupthresh_frac, c.ns2_lss, c.ns2_decrease),
        (100, true, true)
    );
}

#[test]
fn westwood_on_ns2_takes_the_westwoodnr_agents_newreno_defaults() {
    // WestwoodNR's ns-default.tcl: newreno_changes1_ 0 (slow-but-steady timer)
    // and partial_window_deflation_ 0; Agent/TCP/Newreno's (2.28): 1 and 1.
    use tcplab_tcp::profile::NewRenoRto;
    let get = |extra: &str| {
        let sc = parse_scenario(&one_link(extra, "10s", 20), "ns2.toml").unwrap();
        let c = &sc.hosts[0].tcp;
        (c.newreno_rto, c.partial_deflation)
    };
    assert_eq!(get(""), (NewRenoRto::Impatient, true));
    assert_eq!(get("cc = \"westwood\""), (NewRenoRto::SlowButSteady, false));
    // A host's own setting wins.
    assert_eq!(
        get("cc = \"westwood\"\nnewreno_rto = \"impatient\"\npartial_window_deflation = true"),
        (NewRenoRto::Impatient, true)
    );
    // Not on a kernel profile: Linux's Westwood+ has Linux's recovery (the timer
    // rearmed on every ACK of new data, partial deflation as RFC 6582).
    let sc = parse_scenario(
        &one_link("", "10s", 20)
            .replace("profile = \"ns2\"", "profile = \"linux\"")
            .replace("window = 20\n", "cc = \"westwood\"\n"),
        "linux.toml",
    )
    .unwrap();
    let c = &sc.hosts[0].tcp;
    assert_eq!(
        (c.newreno_rto, c.partial_deflation),
        (NewRenoRto::SlowButSteady, true)
    );
}

/// a -> r at 100 Mb/s, r -> b at 1 Mb/s with `queue`; a sends a burst of 10
/// packets at once (initial window 10, no handshake); the run ends before the
/// first ACK can come back, so only the burst is seen at r.
fn burst(queue: &str) -> RunResult {
    sim(&format!(
        r#"
duration = "0.05s"
[[host]]
name = "a"
profile = "ns2"
mss = 1460
window = 10
initial_window = 10
handshake = "none"
[[host]]
name = "b"
profile = "ns2"
mss = 1460
[[router]]
name = "r"
[[link]]
between = ["a", "r"]
rate = "100Mbps"
delay = "1ms"
[[link]]
between = ["r", "b"]
rate = "1Mbps"
delay = "1ms"
queue = {queue}
[[flow]]
name = "f"
from = "a"
to = "b"
start = "0s"
"#
    ))
}

/// The burst's 1 Mb/s link r -> b in a run of `burst`.
fn bottleneck(r: &RunResult) -> &tcplab_model::LinkResult {
    r.links
        .iter()
        .find(|l| l.from == "r" && l.to == "b")
        .unwrap()
}

#[test]
fn a_queue_that_counts_the_packet_being_sent_holds_one_fewer() {
    // The burst reaches r 0.12 ms apart; each packet takes 12 ms on the 1 Mb/s
    // link, so the first is being sent while the other nine arrive. tcplab's
    // limit of 5 counts the waiting packets: 1 sent + 5 wait, 4 dropped.
    // ns-2's DropTail with queue-limit 5 drops an arrival when 4 already wait
    // (queue/drop-tail.cc: length + 1 >= qlim): 1 sent + 4 wait, 5 dropped.
    let r = burst("{ packets = 5 }");
    let l = bottleneck(&r);
    assert_eq!(l.drops, 4);
    assert_eq!(l.queue_limit_pkts, 5);
    let r = burst("{ packets = 5, counts_sending = true }");
    let l = bottleneck(&r);
    assert_eq!(l.drops, 5);
    assert_eq!(l.queue_limit_pkts, 4);
    // Drop-from-Front keeps the newest, and the same number.
    let r = burst("{ kind = \"dropfront\", packets = 5, counts_sending = true }");
    let l = bottleneck(&r);
    assert_eq!(l.drops, 5);
}

#[test]
fn counts_sending_is_refused_where_ns2_does_not_count_that_way() {
    for (queue, field, says) in [
        (
            "{ kind = \"randomdrop\", packets = 5, counts_sending = true }",
            "counts_sending",
            "droptail",
        ),
        (
            "{ bytes = \"15000B\", counts_sending = true }",
            "counts_sending",
            "packets",
        ),
        (
            "{ packets = 1, counts_sending = true }",
            "packets",
            "at least 2",
        ),
    ] {
        let text = one_link("", "1s", 20)
            .replace("queue = { packets = 1000 }", &format!("queue = {queue}"));
        let e = match parse_scenario(&text, "ns2.toml") {
            Ok(_) => panic!("accepted {queue}"),
            Err(e) => e.to_string(),
        };
        assert!(
            e.contains(&format!("queue.{field}")) && e.contains(says),
            "{queue}: {e}"
        );
    }
}

#[test]
fn event_order_is_ns2_where_every_host_is_an_ns2_agent_unless_the_file_says() {
    use tcplab_model::schema::EventOrder;
    let order = |text: &str| {
        parse_scenario(text, "ns2.toml")
            .unwrap_or_else(|e| panic!("{e}"))
            .event_order
    };
    let ns2 = one_link("", "10s", 20);
    assert_eq!(order(&ns2), EventOrder::Ns2);
    let linux = ns2.replace("profile = \"ns2\"", "profile = \"linux\"");
    assert_eq!(order(&linux), EventOrder::DepartureFirst);
    for (given, want) in [
        ("auto", EventOrder::Ns2),
        ("ns2", EventOrder::Ns2),
        ("departure-first", EventOrder::DepartureFirst),
    ] {
        let text = format!("event_order = \"{given}\"\n{ns2}");
        assert_eq!(order(&text), want, "{given}");
    }
    let text = format!("event_order = \"departure-first\"\n{linux}");
    assert_eq!(order(&text), EventOrder::DepartureFirst);
    let text = format!("event_order = \"ns2\"\n{linux}");
    assert_eq!(order(&text), EventOrder::Ns2);
    let e = parse_scenario(&format!("event_order = \"fifo\"\n{ns2}"), "ns2.toml")
        .map(|s| s.event_order)
        .expect_err("refused")
        .to_string();
    for part in ["ns2.toml", "event_order", "\"fifo\"", "\"departure-first\""] {
        assert!(e.contains(part), "{part:?} not in {e}");
    }
}
