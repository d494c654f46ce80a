//! The memory estimate's parts name what makes a run big: the field, its
//! value, the count it drives (derived by hand below), and they stay small
//! for what does not grow (routes of a 10^5-host dumbbell).

use tcplab_model::memory::{estimate, MemoryEstimate};
use tcplab_model::parse_scenario;

fn parts_of(text: &str) -> MemoryEstimate {
    let sc = parse_scenario(text, "m.toml").unwrap_or_else(|e| panic!("{e}"));
    estimate(&sc, text.len())
}

const TWO_HOSTS: &str = r#"
[[host]]
name = "a"
[[host]]
name = "b"
[[link]]
between = ["a", "b"]
rate = "10Mbps"
delay = "10ms"
"#;

#[test]
fn a_trace_every_nanosecond_is_the_part_that_names_its_interval() {
    // 1000 s sampled every 1 ns: 10^12 + 1 samples of one flow, 56 bytes
    // each in the core alone: over 5.6e13 bytes.
    let text = format!(
        "duration = \"1000s\"\n[trace]\ncwnd = true\ninterval = \"1ns\"\n{TWO_HOSTS}[[flow]]\nfrom = \"a\"\nto = \"b\"\n"
    );
    let m = parts_of(&text);
    let top = &m.parts[0];
    assert_eq!(
        (top.field.as_str(), top.value.as_str(), top.scaling),
        ("trace.interval", "\"1ns\"", -1)
    );
    assert_eq!(top.number, 1e-9);
    assert!(
        top.what.contains("1.00e12 samples (1 flow every 1ns"),
        "{}",
        top.what
    );
    assert!(top.bytes as f64 > 5.6e13, "{}", top.bytes);
    assert!(m.total >= top.bytes);
}

#[test]
fn a_generator_at_a_billion_connections_per_second_names_its_rate() {
    // 10^9 connections/s for 1000 s: 10^12 connections, each a row of the
    // transfers table (over 120 bytes in the core).
    let text = format!(
        "duration = \"1000s\"\n{TWO_HOSTS}[[traffic]]\nfrom = \"a\"\nto = \"b\"\nrate = 1e9\nsize = {{ dist = \"fixed\", value = 1 }}\n"
    );
    let m = parts_of(&text);
    let top = &m.parts[0];
    assert_eq!(
        (top.field.as_str(), top.value.as_str(), top.scaling),
        ("traffic[0].rate", "1e9", 1)
    );
    assert_eq!(top.number, 1e9);
    assert!(top.what.starts_with("1.00e12 connections"), "{}", top.what);
    assert!(top.bytes as f64 > 1.2e14, "{}", top.bytes);
}

#[test]
fn many_flows_name_the_flow_tables() {
    let mut text = format!("duration = \"10s\"\n{TWO_HOSTS}");
    for _ in 0..3000 {
        text += "[[flow]]\nfrom = \"a\"\nto = \"b\"\n";
    }
    let m = parts_of(&text);
    let flows = m
        .parts
        .iter()
        .find(|p| p.field == "flow")
        .expect("a flow part");
    assert_eq!(
        (flows.value.as_str(), flows.number),
        ("3000 [[flow]] tables", 3000.0)
    );
    assert_eq!(flows.scaling, 1);
}

#[test]
fn the_routes_of_a_100000_host_dumbbell_cost_little() {
    // 50,000 hosts on each of two routers: two rows (the routers) by three
    // columns (one per router, one empty) of 4 bytes, and 33 bytes per
    // node; the n^2 table counted 4 x 100,002^2 = 40 GB.
    let pairs = 50_000;
    let names = |p: &str| {
        (0..pairs)
            .map(|i| format!("\"{p}{i}\""))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let text = format!(
        "duration = \"1s\"\n[defaults.host]\naccess = {{ rate = \"1Gbps\" }}\n[[router]]\nname = \"R1\"\n[[router]]\nname = \"R2\"\n[[link]]\nbetween = [\"R1\", \"R2\"]\nrate = \"1Gbps\"\n[[host]]\nnames = [{}]\naccess = {{ router = \"R1\" }}\n[[host]]\nnames = [{}]\naccess = {{ router = \"R2\" }}\n[[flow]]\nfrom = \"l0\"\nto = \"r0\"\n",
        names("l"),
        names("r")
    );
    let m = parts_of(&text);
    let routes = m
        .parts
        .iter()
        .find(|p| p.what.starts_with("routing table"))
        .expect("a routing part");
    assert_eq!(routes.what, "routing table: 2 rows x 3 columns");
    assert_eq!(routes.bytes, 2 * 3 * 4 + 100_002 * 33);
    assert!(m.total < 2_000_000_000, "{}", m.total);
}
