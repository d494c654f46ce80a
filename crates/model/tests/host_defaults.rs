//! `[defaults.host]` and `names = [...]` are shorthand: a file written with them
//! resolves to exactly the scenario of the same file written out in full, hosts
//! in the same order (so the same links, random streams and results).

use tcplab_model::parse_scenario;

/// The written-out form: every host in full, in file order.
const FULL: &str = r#"
duration = "10s"

[[host]]
name = "A"
profile = "linux"
cc = "vegas"
cc_params = { alpha = 1, beta = 3 }
sndbuf = "32MB"
access = { router = "R1", rate = "1Gbps", delay = "2.5ms", queue = { packets = 5000 } }

[[host]]
name = "B"
profile = "linux"
cc = "cubic"
cc_params = { beta = 800 }
sndbuf = "32MB"
access = { router = "R1", rate = "1Gbps", delay = "2.5ms", queue = { packets = 5000 } }

[[host]]
name = "C"
profile = "linux"
cc = "cubic"
cc_params = { beta = 800 }
sndbuf = "32MB"
access = { router = "R1", rate = "1Gbps", delay = "2.5ms", queue = { packets = 5000 } }

[[host]]
name = "Adst"
profile = "linux"
cc = "vegas"
cc_params = { alpha = 1, beta = 3 }
sndbuf = "32MB"
access = { router = "R2", rate = "1Gbps", delay = "2.5ms", queue = { packets = 5000 } }

[[host]]
name = "Bdst"
profile = "linux"
cc = "vegas"
cc_params = { alpha = 1, beta = 3 }
sndbuf = "32MB"
access = { router = "R2", rate = "1Gbps", delay = "2.5ms", queue = { kind = "red", packets = 100 } }

[[host]]
name = "Cdst"
profile = "linux"
cc = "vegas"
cc_params = { alpha = 1, beta = 3 }
sndbuf = "32MB"
access = { router = "R2", rate = "1Gbps", delay = "2.5ms", queue = { kind = "red", packets = 100 } }

[[host]]
name = "Z"
profile = "rfc"
cc = "newreno"
sndbuf = "32MB"
access = { router = "R2", rate = "100Mbps", delay = "2.5ms", up = { rate = "10Mbps" }, queue = { packets = 5000 } }

[[router]]
name = "R1"

[[router]]
name = "R2"

[[link]]
between = ["R1", "R2"]
rate = "250Mbps"
delay = "15ms"
queue = { packets = 833 }

[[flow]]
from = "A"
to = "Adst"
start = { uniform = ["0s", "1s"] }

[[flow]]
from = "C"
to = "Cdst"
start = { uniform = ["0s", "1s"] }

[[traffic]]
from = ["A", "B", "C"]
to = ["Adst", "Cdst", "Z"]
rate = 5
size = { dist = "fixed", value = 3 }
"#;

/// The same, said once: the hosts B and C through `names`, the common settings
/// in `[defaults.host]` (a host's own `cc_params` and `queue` replace the
/// defaults' whole; `access` merges field by field).
const SHORT: &str = r#"
duration = "10s"

[defaults.host]
profile = "linux"
cc = "vegas"
cc_params = { alpha = 1, beta = 3 }
sndbuf = "32MB"
access = { rate = "1Gbps", delay = "2.5ms", queue = { packets = 5000 } }

[[host]]
name = "A"
access = { router = "R1" }

[[host]]
names = ["B", "C"]
cc = "cubic"
cc_params = { beta = 800 }
access = { router = "R1" }

[[host]]
names = ["Adst"]
access = { router = "R2" }

[[host]]
names = ["Bdst", "Cdst"]
access = { router = "R2", queue = { kind = "red", packets = 100 } }

[[host]]
name = "Z"
profile = "rfc"
cc = "newreno"
cc_params = {}
access = { router = "R2", rate = "100Mbps", up = { rate = "10Mbps" } }

[[router]]
name = "R1"

[[router]]
name = "R2"

[[link]]
between = ["R1", "R2"]
rate = "250Mbps"
delay = "15ms"
queue = { packets = 833 }

[[flow]]
from = "A"
to = "Adst"
start = { uniform = ["0s", "1s"] }

[[flow]]
from = "C"
to = "Cdst"
start = { uniform = ["0s", "1s"] }

[[traffic]]
from = ["A", "B", "C"]
to = ["Adst", "Cdst", "Z"]
rate = 5
size = { dist = "fixed", value = 3 }
"#;

#[test]
fn defaults_and_names_resolve_to_the_written_out_scenario() {
    let full = parse_scenario(FULL, "s.toml").unwrap();
    let short = parse_scenario(SHORT, "s.toml").unwrap();
    assert_eq!(
        full.nodes,
        ["A", "B", "C", "Adst", "Bdst", "Cdst", "Z", "R1", "R2"]
    );
    assert_eq!(format!("{short:#?}"), format!("{full:#?}"));
}

#[test]
fn the_same_file_runs_bit_identically_both_ways() {
    let full = parse_scenario(FULL, "s.toml").unwrap();
    let short = parse_scenario(SHORT, "s.toml").unwrap();
    let (mut a, mut b) = (
        tcplab_model::run(&full, None),
        tcplab_model::run(&short, None),
    );
    a.meta.wall_s = 0.0;
    b.meta.wall_s = 0.0;
    assert_eq!(format!("{a:?}"), format!("{b:?}"));
}

#[test]
fn a_host_value_wins_over_the_default() {
    let sc = parse_scenario(SHORT, "s.toml").unwrap();
    let cc: Vec<&str> = sc.hosts.iter().map(|h| h.cc.as_str()).collect();
    assert_eq!(
        cc,
        ["vegas", "cubic", "cubic", "vegas", "vegas", "vegas", "newreno"]
    );
    // Z's access: its own rate (100 Mb/s) down, its `up` table's 10 Mb/s up.
    let z_links: Vec<u64> = sc
        .links
        .iter()
        .filter(|l| l.from == 6 || l.to == 6)
        .map(|l| l.rate_bps)
        .collect();
    assert_eq!(z_links, [10_000_000, 100_000_000]);
}

#[test]
fn defaults_alone_make_no_host() {
    let text = "duration = \"1s\"\n[defaults.host]\ncc = \"cubic\"\n";
    let sc = parse_scenario(text, "d.toml").unwrap();
    assert!(sc.hosts.is_empty() && sc.nodes.is_empty());
}

/// The example of docs/scenarios.md ("Many alike hosts"), as the page says it
/// reads written out.
const DOC_FULL: &str = r#"
[[host]]
name = "A"
profile = "rfc"
cc = "newreno"
recovery = "sack"
sndbuf = "32MB"
access = { router = "R1", rate = "1Gbps", delay = "2.5ms", queue = { packets = 5000 } }

[[host]]
name = "B"
profile = "rfc"
cc = "newreno"
recovery = "sack"
sndbuf = "32MB"
access = { router = "R1", rate = "1Gbps", delay = "2.5ms", queue = { packets = 5000 } }

[[host]]
name = "X"
profile = "rfc"
cc = "newreno"
recovery = "sack"
sndbuf = "32MB"
access = { router = "R1", rate = "1Gbps", delay = "2.5ms", queue = { packets = 5000 } }

[[host]]
name = "Y"
profile = "rfc"
cc = "cubic"
recovery = "sack"
sndbuf = "32MB"
access = { router = "R2", rate = "1Gbps", delay = "10ms", queue = { kind = "red", packets = 500 } }
"#;

#[test]
fn the_documented_example_is_the_written_out_scenario() {
    let page = include_str!("../../../docs/scenarios.md");
    let marker = "<!-- example: alike hosts";
    let block = page[page.find(marker).expect("example marker")..]
        .split("```toml\n")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .expect("toml block");
    let rest = "[[router]]\nname = \"R1\"\n[[router]]\nname = \"R2\"\n[[link]]\nbetween = [\"R1\", \"R2\"]\nrate = \"250Mbps\"\n";
    let doc = format!("duration = \"1s\"\n{block}\n{rest}");
    let full = format!("duration = \"1s\"\n{DOC_FULL}\n{rest}");
    let (a, b) = (
        parse_scenario(&doc, "doc.toml").unwrap(),
        parse_scenario(&full, "doc.toml").unwrap(),
    );
    assert_eq!(a.nodes, ["A", "B", "X", "Y", "R1", "R2"]);
    assert_eq!(format!("{a:#?}"), format!("{b:#?}"));
}

#[test]
fn a_queue_or_cc_params_of_the_host_replaces_the_defaults_whole() {
    let text = r#"
duration = "1s"
[defaults.host]
cc = "vegas"
cc_params = { alpha = 1, beta = 3 }
access = { router = "r", rate = "10Mbps", queue = { kind = "red", packets = 5000, max_p = 0.2 } }
[[host]]
name = "a"
cc_params = { gamma = 2 }
access = { queue = { packets = 100 } }
[[host]]
name = "b"
[[router]]
name = "r"
"#;
    let sc = parse_scenario(text, "q.toml").unwrap();
    // a: Drop Tail of 100 packets both ways (no RED fields from the defaults).
    let q: Vec<String> = sc.links.iter().map(|l| format!("{:?}", l.queue)).collect();
    let droptail = "QueueSpec { kind: DropTail, limit: Packets(100), ecn: false }";
    let red =
        "QueueSpec { kind: Red(5.0, 15.0, 0.2, 0.002, false), limit: Packets(5000), ecn: false }";
    assert_eq!(q, [droptail, droptail, red, red]);
    assert_eq!(sc.hosts[0].cc_params.len(), 1);
    assert_eq!(sc.hosts[0].cc_params["gamma"], 2.0);
    assert_eq!(sc.hosts[1].cc_params.len(), 2);
}
