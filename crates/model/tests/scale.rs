//! Large topologies: routing that grows with the links and the destinations
//! used (not with the square of the nodes), and validation that walks one
//! host pair per pair of routing classes instead of every pair, checked
//! against values derived by hand.

use tcplab_model::{build_network, offered_loads, parse_scenario};

/// Hosts a1..a5 send to b1..b4 (a generator of 5 connections per second of
/// 10 packets). a1..a3 hang from R1 (a2's uplink at `a2_up`), a4 is
/// multi-homed (links to R1 and R2), a5 hangs from R2 with a 1000-byte MSS and
/// no timestamps; b1..b3 hang from R3 (b2's downlink at `b2_down`), b4 from
/// R2 with a 536-byte MSS. R1 - R2 100 Mb/s, R2 - R3 at `core`.
fn mixed(a2_up: &str, b2_down: &str, core: &str) -> String {
    format!(
        r#"
duration = "10s"
[defaults.host]
mss = 1460
timestamps = true
[[router]]
name = "R1"
[[router]]
name = "R2"
[[router]]
name = "R3"
[[host]]
names = ["a1"]
access = {{ router = "R1", rate = "1Gbps" }}
[[host]]
name = "a2"
access = {{ router = "R1", rate = "1Gbps", up = {{ rate = "{a2_up}" }} }}
[[host]]
names = ["a3"]
access = {{ router = "R1", rate = "1Gbps" }}
[[host]]
name = "a5"
mss = 1000
timestamps = false
access = {{ router = "R2", rate = "1Gbps" }}
[[host]]
names = ["b1"]
access = {{ router = "R3", rate = "1Gbps" }}
[[host]]
name = "b2"
access = {{ router = "R3", rate = "1Gbps", down = {{ rate = "{b2_down}" }} }}
[[host]]
name = "b3"
access = {{ router = "R3", rate = "1Gbps" }}
[[host]]
name = "b4"
mss = 536
access = {{ router = "R2", rate = "1Gbps" }}
[[host]]
name = "a4"
[[link]]
between = ["a4", "R1"]
rate = "1Gbps"
[[link]]
between = ["a4", "R2"]
rate = "1Gbps"
[[link]]
between = ["R1", "R2"]
rate = "100Mbps"
[[link]]
between = ["R2", "R3"]
rate = "{core}"
[[traffic]]
from = ["a1", "a2", "a3", "a4", "a5"]
to = ["b1", "b2", "b3", "b4"]
rate = 5
size = {{ dist = "fixed", value = 10 }}
"#
    )
}

#[test]
fn offered_load_of_many_hosts_counts_every_pair_once() {
    // Units per pair (segments): a1..a4 to b1..b3 both with timestamps,
    // 1460 - 12 = 1448 (12 pairs); a1..a4 to b4: 536 - 12 = 524 (4 pairs);
    // a5 (no timestamps) to b1..b3: min(1000, 1460) = 1000 (3 pairs); a5 to
    // b4: 536. Sum 17376 + 2096 + 3000 + 536 = 23008 over 20 pairs: a mean of
    // 1150.4 bytes per segment, 11504 per connection, 5 x 11504 x 8 =
    // 460160 b/s offered. The bottleneck is the slowest link on any pair's
    // path: b2's downlink (15 Mb/s, the last link of pairs towards b2), a2's
    // uplink (20 Mb/s, the first link of a2's pairs), or R2 -> R3 (5 Mb/s).
    for (a2_up, b2_down, core, bottleneck) in [
        ("20Mbps", "15Mbps", "1Gbps", 15e6),
        ("20Mbps", "1Gbps", "1Gbps", 20e6),
        ("1Gbps", "1Gbps", "5Mbps", 5e6),
        ("1Gbps", "1Gbps", "1Gbps", 100e6),
    ] {
        let sc = parse_scenario(&mixed(a2_up, b2_down, core), "mixed.toml").unwrap();
        let g = &offered_loads(&sc)[0];
        assert_eq!(g.mean_size_bytes, 11504.0);
        assert_eq!(g.offered_bps, 460160.0);
        assert_eq!(g.bottleneck_bps, bottleneck, "{a2_up} {b2_down} {core}");
    }
}

#[test]
fn a_generator_pair_without_a_route_is_the_first_in_file_order() {
    // b5 hangs from host b6 (b5 - b6 - R3): hosts do not forward, so no
    // sender reaches b5. Every sender fails with b5 and b5 comes after b1 and
    // b2 in the receivers: the first failing pair in file order is a1 -> b5,
    // though hosts of a class are walked once (a2, a3 are a1's class, b2 is
    // b1's).
    let text = mixed("1Gbps", "1Gbps", "1Gbps")
        .replace(
            "[[host]]\nname = \"a4\"",
            "[[host]]\nnames = [\"b5\", \"b6\"]\n[[link]]\nbetween = [\"b6\", \"b5\"]\nrate = \"1Gbps\"\n[[link]]\nbetween = [\"R3\", \"b6\"]\nrate = \"1Gbps\"\n[[host]]\nname = \"a4\"",
        )
        .replace(
            "to = [\"b1\", \"b2\", \"b3\", \"b4\"]",
            "to = [\"b1\", \"b2\", \"b5\", \"b3\", \"b4\"]",
        );
    let err = parse_scenario(&text, "mixed.toml").unwrap_err().to_string();
    for part in [
        "mixed.toml",
        "traffic[0]",
        "\"a1\" -> \"b5\"",
        "no route from a1 to b5",
    ] {
        assert!(err.contains(part), "{part:?} not in {err}");
    }
}

/// A dumbbell of `pairs` host pairs (l<i> on R1, r<i> on R2) and a generator
/// from every left host to every right host.
fn dumbbell(pairs: usize) -> String {
    let names = |p: &str| {
        (0..pairs)
            .map(|i| format!("\"{p}{i}\""))
            .collect::<Vec<_>>()
            .join(", ")
    };
    format!(
        r#"
duration = "10s"
[defaults.host]
access = {{ rate = "100Mbps", delay = "1ms", queue = {{ packets = 100 }} }}
[[router]]
name = "R1"
[[router]]
name = "R2"
[[link]]
between = ["R1", "R2"]
rate = "1Gbps"
[[host]]
names = [{l}]
access = {{ router = "R1", rate = "1Gbps" }}
[[host]]
names = [{r}]
access = {{ router = "R2", down = {{ rate = "10Mbps" }} }}
[[flow]]
from = "l0"
to = "r{last}"
[[traffic]]
from = [{l}]
to = [{r}]
rate = 10
size = {{ dist = "fixed", value = 1, unit = "bytes" }}
"#,
        l = names("l"),
        r = names("r"),
        last = pairs - 1
    )
}

#[test]
fn a_dumbbell_of_100000_hosts_routes_in_two_columns() {
    // 50,000 pairs: 100,002 nodes, whose n^2 table took 40 GB. The hosts
    // hang from R1 or R2: two columns (one per router), two rows (the
    // routers). The generator's 2.5e9 host pairs fall in one pair of classes.
    let pairs = 50_000;
    let sc = parse_scenario(&dumbbell(pairs), "dumbbell.toml").unwrap();
    let net = build_network(&sc, 1);
    let r = net.routing();
    assert_eq!((r.dimensions().rows, r.dimensions().cols), (2, 2));
    assert!(r.bytes() < 10_000_000, "{} bytes", r.bytes());
    // l0 -> R1 -> R2 -> r49999: its uplink (link 2 of the 2 + 2 x 100,000
    // links: hosts' access links follow the [[link]]), the bottleneck (0),
    // r49999's downlink (2 + 2 x 99,999 + 1).
    let (l0, r_last) = (0, 2 * pairs as u32 - 1);
    assert_eq!(net.path(l0, r_last), Ok(vec![2, 0, 2 + 2 * 99_999 + 1]));
    let g = &offered_loads(&sc)[0];
    // Sizes of one byte; the slowest link of every pair: the right hosts'
    // 10 Mb/s downlinks.
    assert_eq!((g.mean_size_bytes, g.bottleneck_bps), (1.0, 10e6));
}

#[test]
fn a_generator_mixing_agents_names_its_first_mismatched_pair() {
    // Senders k1 (kernel), n1 (ns-2 agent); receivers k2, n2. In file order
    // the first pair of different kinds is k1 -> n2 (k1 -> k2 matches).
    let text = r#"
duration = "10s"
[[router]]
name = "R"
[[host]]
names = ["k1", "k2"]
access = { router = "R", rate = "1Gbps" }
[[host]]
names = ["n1", "n2"]
profile = "ns2"
access = { router = "R", rate = "1Gbps" }
[[traffic]]
from = ["k1", "n1"]
to = ["k2", "n2"]
rate = 1
size = { dist = "fixed", value = 1 }
"#;
    let err = parse_scenario(text, "agents.toml").unwrap_err().to_string();
    for part in ["traffic[0].to", "\"n2\"", "host \"k1\" is a kernel stack"] {
        assert!(err.contains(part), "{part:?} not in {err}");
    }
}
