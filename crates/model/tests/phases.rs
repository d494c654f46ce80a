//! Per-phase results (`[measure] phases`): the flows' and links' phase rows add
//! up to the window's, a link's utilisation per phase matches a transfer counted
//! by hand, and the retransmission probability follows a deterministic loss
//! pattern on the wire.

use tcplab_model::{parse_scenario, run, LinkPhaseResult, PhaseResult, RunResult};

fn sim(text: &str) -> RunResult {
    let sc = parse_scenario(text, "test.toml").unwrap_or_else(|e| panic!("{e}"));
    run(&sc, None)
}

/// Hosts a and b through router r: a->r 10 Gb/s without delay, r->b `rate`,
/// `delay_ms` one way, a `buf`-packet queue; `extra` is appended (its
/// `[link.forward]` or `[link.reverse]` amends the r-b link; flows).
fn path(rate: &str, delay_ms: u32, buf: u32, measure: &str, extra: &str) -> String {
    format!(
        r#"
{measure}
[[host]]
name = "a"
profile = "rfc"
[[host]]
name = "b"
profile = "rfc"
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
{extra}
"#
    )
}

fn link_phases<'a>(r: &'a RunResult, name: &str) -> Vec<&'a LinkPhaseResult> {
    r.link_phases.iter().filter(|p| p.link == name).collect()
}

fn flow_phases<'a>(r: &'a RunResult, name: &str) -> Vec<&'a PhaseResult> {
    r.phases.iter().filter(|p| p.flow == name).collect()
}

#[test]
fn phases_add_up_to_the_window_for_every_flow_and_link() {
    // Two flows share a 10 Mb/s link with a 15-packet buffer (drops), the
    // reverse link loses 1 % of the ACKs at random (wire losses), and the phase
    // boundaries fall at odd instants, mid-transmission. Counts per phase add up
    // exactly to the window's; busy time and queue integrals add up to the
    // window's to rounding.
    let text = path(
        "10Mbps",
        20,
        15,
        "duration = \"30s\"\n[measure]\nstart = \"2.0001s\"\nphases = [\"3.3333333s\", \"7.1s\", \"19.99999s\"]",
        r#"
[link.reverse]
loss = { rate = 0.01 }
[[flow]]
name = "one"
from = "a"
to = "b"
[[flow]]
name = "two"
from = "a"
to = "b"
start = "1s"
"#,
    );
    let r = sim(&text);
    let (t0, t1) = (r.meta.measure_start_s, r.meta.measure_end_s);
    let win = t1 - t0;
    assert_eq!(r.link_phases.len(), r.links.len() * 4);
    for (i, l) in r.links.iter().enumerate() {
        let p = link_phases(&r, &l.name);
        assert_eq!(p.len(), 4, "{}", l.name);
        assert!(p.iter().all(|x| x.link_index == i as u32));
        assert_eq!(p.iter().map(|x| x.phase).collect::<Vec<_>>(), [0, 1, 2, 3]);
        assert_eq!((p[0].start_s, p[3].end_s), (t0, t1));
        let sum = |f: &dyn Fn(&LinkPhaseResult) -> u64| p.iter().map(|x| f(x)).sum::<u64>();
        assert_eq!(sum(&|x| x.pkts_sent), l.pkts_sent, "{}", l.name);
        assert_eq!(sum(&|x| x.drops), l.drops, "{}", l.name);
        assert_eq!(sum(&|x| x.lost), l.lost, "{}", l.name);
        assert_eq!(sum(&|x| x.marks), l.marks, "{}", l.name);
        let bytes = sum(&|x| x.bytes_sent) as f64;
        assert!((bytes * 8.0 / win / l.throughput_bps - 1.0).abs() < 1e-12);
        let weighted = |f: &dyn Fn(&LinkPhaseResult) -> f64| {
            p.iter().map(|x| f(x) * (x.end_s - x.start_s)).sum::<f64>() / win
        };
        assert!((weighted(&|x| x.utilisation) - l.utilisation).abs() < 1e-9);
        assert!((weighted(&|x| x.mean_queue_pkts) - l.mean_queue_pkts).abs() < 1e-9);
        assert!(p.iter().all(|x| (0.0..=1.0).contains(&x.utilisation)));
    }
    let down = r.links.iter().find(|l| l.name == "r->b").unwrap();
    let up = r.links.iter().find(|l| l.name == "b->r").unwrap();
    assert!(
        down.drops > 0 && up.lost > 0,
        "the test needs drops and losses"
    );
    for f in &r.flows {
        let p = flow_phases(&r, &f.name);
        assert_eq!(p.len(), 4);
        let sum = |g: &dyn Fn(&PhaseResult) -> u64| p.iter().map(|x| g(x)).sum::<u64>();
        assert_eq!(sum(&|x| x.bytes_delivered), f.bytes_delivered_window);
        assert_eq!(sum(&|x| x.segs_sent), f.segs_sent_window);
        assert_eq!(sum(&|x| x.segs_retrans), f.segs_retrans_window);
        assert_eq!(sum(&|x| x.timeouts), f.timeouts_window);
        for x in &p {
            let len = x.end_s - x.start_s;
            assert!((x.goodput_bps * len / 8.0 - x.bytes_delivered as f64).abs() < 1e-6);
        }
    }
}

#[test]
fn a_link_is_busy_exactly_for_the_transfer_it_carried_and_idle_after() {
    // 1000 full segments (1448 B of data in 1500 B packets) cross r->b at
    // 10 Mb/s: 1000 x 1500 x 8 / 1e7 = 1.2 s of serialisation, plus the
    // handshake's SYN and ACK and the FIN, three packets of at most 80 B:
    // 0.19 ms. The transfer ends well before 2 s (RTT 10 ms, no loss in a
    // 1000-packet buffer), so over phase [0, 2 s) the link is busy
    // 1.2 s / 2 s = 0.6 (plus < 1e-4) and over [2 s, 4 s) not at all.
    let r = sim(&path(
        "10Mbps",
        5,
        1000,
        "duration = \"4s\"\n[measure]\nphases = [\"2s\"]",
        "[[flow]]\nname = \"f\"\nfrom = \"a\"\nto = \"b\"\nsize = \"1448000B\"\n",
    ));
    let f = &r.flows[0];
    assert!(f.completed && f.fct_s < 2.0, "{f:?}");
    assert_eq!(f.segs_retrans, 0);
    let p = link_phases(&r, "r->b");
    assert_eq!(p.len(), 2);
    assert!(
        p[0].utilisation >= 0.6 && p[0].utilisation < 0.6 + 1e-4,
        "phase 0 utilisation {}",
        p[0].utilisation
    );
    assert!(p[0].pkts_sent >= 1000 && p[0].pkts_sent <= 1003);
    assert_eq!(p[0].drops, 0);
    assert_eq!(
        (p[1].utilisation, p[1].pkts_sent, p[1].bytes_sent),
        (0.0, 0, 0)
    );
    assert_eq!(p[1].throughput_bps, 0.0);
    assert!(p[1].mean_sojourn_s.is_nan(), "no packet sent in phase 1");
    // The flow's phases: every byte in phase 0, nothing in phase 1.
    let fp = flow_phases(&r, "f");
    assert_eq!(fp[0].bytes_delivered, 1_448_000);
    assert_eq!((fp[1].bytes_delivered, fp[1].segs_sent), (0, 0));
    assert_eq!(fp[0].retrans_prob, 0.0);
    assert!(fp[1].retrans_prob.is_nan(), "nothing sent: no probability");
}

#[test]
fn retransmission_probability_is_one_over_the_loss_period() {
    // Every 100th packet crossing r->b is lost; the data segments cross it one
    // for one, so 1 % of the transmissions are lost and each loss costs one
    // retransmission (no queue drops in a 10000-packet buffer, no timeouts):
    // retransmitted / sent = 1/100 in every phase, to the one or two losses
    // whose retransmission falls across a boundary (~300 losses per phase).
    let r = sim(&path(
        "100Mbps",
        5,
        10000,
        "duration = \"70s\"\n[measure]\nstart = \"10s\"\nphases = [\"40s\"]",
        "[link.forward]\nloss = { every = 100 }\n[[flow]]\nname = \"f\"\nfrom = \"a\"\nto = \"b\"\n",
    ));
    let f = &r.flows[0];
    assert_eq!(f.timeouts, 0, "{f:?}");
    let down = link_phases(&r, "r->b");
    assert_eq!(down.iter().map(|x| x.drops).sum::<u64>(), 0);
    for (p, l) in flow_phases(&r, "f").iter().zip(&down) {
        eprintln!(
            "phase {}: {} sent, {} retransmitted, p = {}, link lost {}",
            p.phase, p.segs_sent, p.segs_retrans, p.retrans_prob, l.lost
        );
        assert!(p.segs_retrans >= 200, "{p:?}");
        assert!(
            (p.retrans_prob * 100.0 - 1.0).abs() < 0.01,
            "phase {}: retransmission probability {}",
            p.phase,
            p.retrans_prob
        );
        assert!(p.segs_retrans.abs_diff(l.lost) <= 2, "{p:?} vs {l:?}");
    }
}
