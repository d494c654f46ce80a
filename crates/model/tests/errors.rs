//! Bad scenarios get one clear error naming the file, the field path, the value
//! and what is allowed.

use tcplab_model::parse_scenario;

const GOOD: &str = r#"
duration = "10s"
[[host]]
name = "a"
[[host]]
name = "b"
[[link]]
between = ["a", "b"]
rate = "10Mbps"
delay = "10ms"
queue = { packets = 50 }
[[flow]]
from = "a"
to = "b"
"#;

fn err(text: &str) -> String {
    match parse_scenario(text, "bad.toml") {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(e) => e.to_string(),
    }
}

fn has_all(msg: &str, parts: &[&str]) {
    for p in parts {
        assert!(msg.contains(p), "message lacks {p:?}: {msg}");
    }
    assert!(
        msg.starts_with("bad.toml"),
        "message must start with the file: {msg}"
    );
}

#[test]
fn the_good_scenario_parses() {
    let sc = parse_scenario(GOOD, "good.toml").unwrap();
    assert_eq!((sc.nodes.len(), sc.links.len(), sc.flows.len()), (2, 2, 1));
    assert_eq!(sc.name, "good");
}

#[test]
fn unknown_field() {
    let m = err(&GOOD.replace("delay = \"10ms\"", "delay = \"10ms\"\ndelya = 3"));
    has_all(
        &m,
        &[
            "link[0]",
            "unknown field `delya`",
            "expected one of",
            "delay",
        ],
    );
}

#[test]
fn wrong_type() {
    let m = err(&GOOD.replace(
        "queue = { packets = 50 }",
        "queue = { packets = \"fifty\" }",
    ));
    has_all(
        &m,
        &[
            "link[0].queue.packets",
            "\"fifty\"",
            "a whole number from 0 to 4294967295",
        ],
    );
}

#[test]
fn negative_rate() {
    let m = err(&GOOD.replace("rate = \"10Mbps\"", "rate = \"-10Mbps\""));
    has_all(
        &m,
        &["link[0].rate", "-10Mbps", "must not be negative", "Mbps"],
    );
    // A bare number has no unit: an error that names the units.
    let m = err(&GOOD.replace("rate = \"10Mbps\"", "rate = -5"));
    has_all(&m, &["link[0].rate", "-5", "without its unit", "Mbps"]);
    let m = err(&GOOD.replace("rate = \"10Mbps\"", "rate = 10"));
    has_all(&m, &["link[0].rate", "10", "without its unit", "Mbps"]);
    // A size is not a rate; an absurd rate is refused, not clamped.
    let m = err(&GOOD.replace("rate = \"10Mbps\"", "rate = \"10Mb\""));
    has_all(&m, &["link[0].rate", "not a rate", "10Mbps"]);
    let m = err(&GOOD.replace("rate = \"10Mbps\"", "rate = \"1e30Gbps\""));
    has_all(&m, &["link[0].rate", "above 1 Pbit/s"]);
}

#[test]
fn bad_unit() {
    let m = err(&GOOD.replace("delay = \"10ms\"", "delay = \"10 fortnights\""));
    has_all(
        &m,
        &["link[0].delay", "10 fortnights", "unknown unit", "ms"],
    );
}

#[test]
fn flow_between_hosts_with_no_route() {
    let text = GOOD
        .replace("[[flow]]", "[[host]]\nname = \"c\"\n[[flow]]")
        .replace("to = \"b\"", "to = \"c\"");
    let m = err(&text);
    has_all(&m, &["flow[0]", "\"a\" -> \"c\"", "no route from a to c"]);
}

#[test]
fn unknown_host_in_a_flow() {
    let m = err(&GOOD.replace("to = \"b\"", "to = \"bb\""));
    has_all(
        &m,
        &["flow[0].to", "\"bb\"", "no host of that name", "a, b"],
    );
}

#[test]
fn unknown_controller_and_profile() {
    let m = err(&GOOD.replace("name = \"a\"", "name = \"a\"\ncc = \"rneo\""));
    has_all(
        &m,
        &["host[0].cc", "\"rneo\"", "available: tahoe, reno, newreno"],
    );
    let m = err(&GOOD.replace("name = \"a\"", "name = \"a\"\nprofile = \"beos\""));
    has_all(
        &m,
        &[
            "host[0].profile",
            "\"beos\"",
            "available: rfc, linux, freebsd, windows",
        ],
    );
}

#[test]
fn profiles_bring_their_default_controllers() {
    // linux defaults to cubic, windows to compound, freebsd and rfc to newreno.
    for (profile, cc) in [
        ("linux", "cubic"),
        ("windows", "compound"),
        ("freebsd", "newreno"),
        ("rfc", "newreno"),
    ] {
        let text = GOOD.replace(
            "name = \"a\"",
            &format!("name = \"a\"\nprofile = \"{profile}\""),
        );
        let sc = parse_scenario(&text, "p.toml").unwrap();
        assert_eq!(sc.hosts[0].cc, cc);
    }
}

#[test]
fn measurement_window_outside_the_run() {
    let m = err(&format!("{GOOD}\n[measure]\nend = \"20s\"\n"));
    has_all(&m, &["measure.end", "20", "must not exceed duration"]);
}

#[test]
fn missing_rate_and_duplicate_names() {
    let m = err(&GOOD.replace("rate = \"10Mbps\"\n", ""));
    has_all(&m, &["link[0].forward.rate", "missing", "needs a rate"]);
    let m = err(&GOOD.replace("name = \"b\"", "name = \"a\""));
    has_all(&m, &["host[1].name", "\"a\"", "already has this name"]);
}

#[test]
fn broken_toml_gives_a_line_number() {
    let m = err("duration = \"10s\"\n[[host]\nname = 3\n");
    has_all(&m, &["line 2"]);
}

#[test]
fn missing_duration() {
    let m = err(&GOOD.replace("duration = \"10s\"\n", ""));
    has_all(&m, &["missing field `duration`"]);
}

#[test]
fn queue_disciplines_by_name() {
    for kind in [
        "droptail",
        "dropfront",
        "randomdrop",
        "red",
        "codel",
        "fq_codel",
    ] {
        let text = GOOD.replace(
            "queue = { packets = 50 }",
            &format!("queue = {{ kind = \"{kind}\", packets = 50 }}"),
        );
        parse_scenario(&text, "q.toml").unwrap();
    }
    let m = err(&GOOD.replace(
        "queue = { packets = 50 }",
        "queue = { kind = \"sfq\", packets = 50 }",
    ));
    has_all(
        &m,
        &[
            "link[0].queue.kind",
            "\"sfq\"",
            "available: droptail, dropfront, randomdrop, red, codel, fq_codel",
        ],
    );
    let m = err(&GOOD.replace(
        "queue = { packets = 50 }",
        "queue = { kind = \"codel\", packets = 50, quantum = 300 }",
    ));
    has_all(&m, &["link[0].queue", "flows and quantum", "fq_codel"]);
    let m = err(&GOOD.replace(
        "queue = { packets = 50 }",
        "queue = { packets = 50, max_p = 0.2 }",
    ));
    has_all(
        &m,
        &["link[0].queue", "RED parameters", "kind = \"red\" only"],
    );
    let m = err(&GOOD.replace(
        "queue = { packets = 50 }",
        "queue = { kind = \"red\", packets = 50, min_th = 20, max_th = 10 }",
    ));
    has_all(&m, &["link[0].queue.max_th", "10", "must exceed min_th"]);
}

const WEB: &str = r#"
duration = "10s"
[[host]]
name = "x"
access = { router = "r", rate = "100Mbps", delay = "1ms" }
[[host]]
name = "y"
access = { router = "r", rate = "100Mbps", delay = "1ms" }
[[router]]
name = "r"
[[traffic]]
name = "web"
from = "x"
to = "y"
rate = 10
size = { dist = "zipf", alpha = 1.7, max = 1000 }
"#;

#[test]
fn the_good_traffic_scenario_parses() {
    let sc = parse_scenario(WEB, "web.toml").unwrap();
    assert_eq!(sc.links.len(), 4);
    assert_eq!(sc.generators.len(), 1);
}

#[test]
fn traffic_generator_errors_name_the_field() {
    let m = err(&WEB.replace("dist = \"zipf\"", "dist = \"lognormal\""));
    has_all(
        &m,
        &[
            "traffic[0].size.dist",
            "\"lognormal\"",
            "zipf (alpha, min, max)",
        ],
    );
    let m = err(&WEB.replace(", max = 1000", ""));
    has_all(&m, &["traffic[0].size.max", "missing", "bounded support"]);
    let m = err(&WEB.replace("alpha = 1.7", "alpha = 1.7, shape = 2"));
    has_all(
        &m,
        &["traffic[0].size.shape", "takes only: alpha, min, max"],
    );
    let m = err(&WEB.replace("rate = 10\n", "rate = 10\ninterarrival = \"50ms\"\n"));
    has_all(&m, &["traffic[0]", "exactly one of `rate`"]);
    let m = err(&WEB.replace("rate = 10\n", "rate = -1\n"));
    has_all(&m, &["traffic[0].rate", "-1", "positive"]);
    let m = err(&WEB.replace("to = \"y\"", "to = [\"y\", \"x\"]"));
    has_all(&m, &["traffic[0].to", "\"x\"", "also a sender"]);
    let m = err(&WEB.replace("to = \"y\"", "to = [\"y\", \"z\"]"));
    has_all(&m, &["traffic[0].to[1]", "\"z\"", "no host"]);
    let m = err(&WEB.replace(
        "size = { dist = \"zipf\", alpha = 1.7, max = 1000 }",
        "size = { dist = \"empirical\", values = [1, 2], probs = [0.5, 0.4] }",
    ));
    has_all(&m, &["traffic[0].size.probs", "sum 0.9", "sum to 1"]);
    let m = err(&WEB.replace(
        "size = { dist = \"zipf\", alpha = 1.7, max = 1000 }",
        "size = { dist = \"pareto\", shape = 0.9, scale = 1 }",
    ));
    has_all(&m, &["traffic[0].size.cap", "infinite mean"]);
    let m = err(&WEB.replace("max = 1000", "max = 1000, unit = \"kB\""));
    has_all(&m, &["traffic[0].size.unit", "\"kB\"", "packets", "bytes"]);
}

#[test]
fn access_links_phases_and_stop_errors() {
    let m = err(&WEB.replace("router = \"r\", rate", "router = \"q\", rate"));
    has_all(&m, &["host[0].access.router", "\"q\"", "no router"]);
    let m = err(&WEB.replace("router = \"r\", rate", "router = \"y\", rate"));
    has_all(&m, &["host[0].access.router", "\"y\"", "is a host"]);
    let m = err(&WEB.replace(
        "rate = \"100Mbps\", delay = \"1ms\" }\n[[host]]\nname = \"y\"",
        "delay = \"1ms\" }\n[[host]]\nname = \"y\"",
    ));
    has_all(&m, &["host[0].access.up.rate", "missing"]);
    let m = err(&GOOD.replace(
        "duration = \"10s\"",
        "duration = \"10s\"\n[measure]\nphases = [\"5s\", \"3s\"]",
    ));
    has_all(&m, &["measure.phases[1]", "3s", "increase strictly"]);
    let m = err(&GOOD.replace("to = \"b\"", "to = \"b\"\nstart = \"5s\"\nstop = \"4s\""));
    has_all(&m, &["flow[0].stop", "4s", "after the flow"]);
}

const ROUTED: &str = r#"
duration = "10s"
[[host]]
name = "a"
[[host]]
name = "b"
[[host]]
name = "c"
[[router]]
name = "r1"
[[router]]
name = "r2"
[[link]]
between = ["a", "r1"]
rate = "10Mbps"
delay = "1ms"
[[link]]
between = ["r1", "r2"]
rate = "10Mbps"
delay = "1ms"
[[link]]
between = ["r2", "b"]
rate = "10Mbps"
delay = "1ms"
[[link]]
between = ["r1", "b"]
rate = "10Mbps"
delay = "1ms"
[[link]]
between = ["c", "r1"]
rate = "10Mbps"
delay = "1ms"
[[flow]]
from = "a"
to = "b"
"#;

fn routed(route: &str) -> String {
    format!("{ROUTED}\n[[route]]\n{route}\n")
}

#[test]
fn a_valid_route_parses_into_entries_both_ways() {
    let sc = parse_scenario(&routed(r#"path = ["a", "r1", "r2", "b"]"#), "r.toml").unwrap();
    // 3 hops forward (a, r1, r2 towards b) and 3 back (b, r2, r1 towards a).
    assert_eq!(sc.routes.len(), 6);
}

#[test]
fn route_errors_name_the_hop() {
    has_all(
        &err(&routed(r#"path = ["a", "r9", "b"]"#)),
        &[
            "route[0].path[1]",
            "\"r9\"",
            "no host or router of that name",
        ],
    );
    has_all(
        &err(&routed(r#"path = ["a", "r1", "c", "r1"]"#)),
        &["route[0].path[2]", "\"c\"", "only routers forward"],
    );
    has_all(
        &err(&routed(r#"path = ["a", "r1", "r2", "r1", "b"]"#)),
        &["route[0].path[3]", "\"r1\"", "must not loop"],
    );
    has_all(
        &err(&routed(r#"path = ["a", "r2", "b"]"#)),
        &["route[0].path[1]", "\"r2\"", "no link from a to r2"],
    );
    has_all(
        &err(&routed(r#"path = ["b"]"#)),
        &["route[0].path", "at least two nodes"],
    );
    has_all(
        &err(&routed(
            "path = [\"a\", \"r1\", \"r2\", \"b\"]\n[[route]]\npath = [\"c\", \"r1\", \"b\"]",
        )),
        &[
            "route[1].path[1]",
            "\"r1\"",
            "route[0] already sends packets for b from r1 another way",
        ],
    );
}

#[test]
fn routes_agreeing_on_a_shared_hop_are_accepted() {
    let text = routed("path = [\"a\", \"r1\", \"r2\", \"b\"]\n[[route]]\npath = [\"c\", \"r1\", \"r2\", \"b\"]\nreverse = false");
    let sc = parse_scenario(&text, "r.toml").unwrap();
    // Route 1 adds only c's entry towards b: r1's and r2's are route 0's.
    assert_eq!(sc.routes.len(), 7);
}

#[test]
fn ecn_settings() {
    // `ecn` is accepted on marking queues and on hosts...
    for kind in ["red", "codel", "fq_codel"] {
        let text = GOOD.replace(
            "queue = { packets = 50 }",
            &format!("queue = {{ kind = \"{kind}\", packets = 50, ecn = true }}"),
        );
        let sc = parse_scenario(&text, "q.toml").unwrap();
        assert!(sc.links.iter().all(|l| l.queue.ecn), "{kind}");
    }
    let sc = parse_scenario(
        &GOOD.replace("name = \"a\"", "name = \"a\"\necn = true"),
        "h.toml",
    )
    .unwrap();
    assert!(sc.hosts[0].tcp.ecn && !sc.hosts[1].tcp.ecn);
    // ...and is an error on a queue that can only drop, naming field and value.
    for kind in ["droptail", "dropfront", "randomdrop"] {
        let m = err(&GOOD.replace(
            "queue = { packets = 50 }",
            &format!("queue = {{ kind = \"{kind}\", packets = 50, ecn = true }}"),
        ));
        has_all(
            &m,
            &[
                "link[0].queue.ecn",
                "value true",
                &format!("kind = \"{kind}\" has no ECN marking"),
                "\"red\", \"codel\" and \"fq_codel\" only",
            ],
        );
    }
    // The default kind is Drop Tail; `ecn = false` there is refused too.
    let m = err(&GOOD.replace(
        "queue = { packets = 50 }",
        "queue = { packets = 50, ecn = false }",
    ));
    has_all(&m, &["link[0].queue.ecn", "value false", "\"droptail\""]);
    let m = err(&GOOD.replace("name = \"a\"", "name = \"a\"\necn = \"yes\""));
    has_all(&m, &["host[0].ecn", "\"yes\"", "true or false"]);
}

/// Hosts written with `[defaults.host]` and `names`; `host[k]` in an error is
/// the k-th `[[host]]` table of the file (line numbers below count from 1).
const ALIKE: &str = r#"duration = "10s"
[defaults.host]
profile = "linux"
access = { rate = "10Mbps", delay = "1ms" }
[[host]]
name = "a"
access = { router = "r" }
[[host]]
names = ["b", "c"]
access = { router = "r" }
[[router]]
name = "r"
[[flow]]
from = "a"
to = "c"
"#;

#[test]
fn the_alike_hosts_scenario_parses() {
    let sc = parse_scenario(ALIKE, "alike.toml").unwrap();
    assert_eq!(sc.nodes, ["a", "b", "c", "r"]);
    assert!(sc.hosts.iter().all(|h| h.profile == "linux"));
}

#[test]
fn a_bad_default_is_reported_in_the_defaults() {
    let m = err(&ALIKE.replace("profile = \"linux\"", "profile = \"beos\""));
    has_all(
        &m,
        &[
            "(line 3, column 11)",
            "field `defaults.host.profile`",
            "\"beos\"",
            "available: rfc, linux",
        ],
    );
    // A type error in the defaults, found while reading the file.
    let m = err(&ALIKE.replace("profile = \"linux\"", "mss = \"big\""));
    has_all(
        &m,
        &[
            "line 3",
            "defaults.host.mss",
            "\"big\"",
            "a whole number from 0 to 4294967295",
        ],
    );
    // An inherited access table: its queue is the defaults'.
    let m = err(&ALIKE.replace(
        "delay = \"1ms\" }",
        "delay = \"1ms\", queue = { packets = 0 } }",
    ));
    has_all(
        &m,
        &[
            "(line 4, column ",
            "field `defaults.host.access.queue.packets`",
            "value 0",
            "at least one packet",
        ],
    );
}

#[test]
fn a_bad_value_in_a_names_entry_is_reported_at_that_entry() {
    // host[1] is the second [[host]] table: hosts b and c.
    let m = err(&ALIKE.replace(
        "names = [\"b\", \"c\"]",
        "names = [\"b\", \"c\"]\ncc = \"rneo\"",
    ));
    has_all(
        &m,
        &[
            "(line 10, column 6)",
            "field `host[1].cc`",
            "\"rneo\"",
            "available:",
        ],
    );
    // A [[host]] after a names entry keeps its table's index (2), not its host number (3).
    let text = ALIKE.replace(
        "[[router]]",
        "[[host]]\nname = \"d\"\nsndbuf = \"1kB\"\naccess = { router = \"r\" }\n[[router]]",
    );
    let m = err(&text);
    has_all(
        &m,
        &[
            "(line 13, column 10)",
            "field `host[2].sndbuf`",
            "value 1000",
            "at least one segment",
        ],
    );
}

#[test]
fn names_must_be_unique_and_not_mixed_with_name() {
    let m = err(&ALIKE.replace("[\"b\", \"c\"]", "[\"b\", \"b\"]"));
    has_all(
        &m,
        &[
            "(line 9, column 15)",
            "field `host[1].names[1]`",
            "\"b\"",
            "already has this name",
        ],
    );
    let m = err(&ALIKE.replace("[\"b\", \"c\"]", "[\"b\", \"a\"]"));
    has_all(
        &m,
        &["field `host[1].names[1]`", "\"a\"", "already has this name"],
    );
    let m = err(&ALIKE.replace(
        "names = [\"b\", \"c\"]",
        "name = \"x\"\nnames = [\"b\", \"c\"]",
    ));
    has_all(
        &m,
        &[
            "(line 8, column 1)",
            "field `host[1]`",
            "both `name` and `names`",
            "not both",
        ],
    );
    let m = err(&ALIKE.replace("name = \"a\"\n", ""));
    has_all(
        &m,
        &[
            "(line 5, column 1)",
            "field `host[0].name`",
            "missing",
            "names = [...]",
        ],
    );
    let m = err(&ALIKE.replace("[\"b\", \"c\"]", "[]"));
    has_all(
        &m,
        &[
            "(line 9, column 9)",
            "field `host[1].names`",
            "at least one name",
        ],
    );
}

#[test]
fn unknown_fields_in_the_defaults() {
    let m = err(&ALIKE.replace("profile = \"linux\"", "profil = \"linux\""));
    has_all(
        &m,
        &[
            "line 3",
            "field `defaults.host.profil`",
            "unknown field `profil`",
            "expected one of",
            "`profile`",
        ],
    );
    // A name is never a default.
    let m = err(&ALIKE.replace("profile = \"linux\"", "name = \"x\""));
    has_all(
        &m,
        &[
            "line 3",
            "field `defaults.host.name`",
            "unknown field `name`",
        ],
    );
    let m = err(&format!("{ALIKE}[defaults.link]\nrate = \"1Mbps\"\n"));
    has_all(
        &m,
        &["field `defaults.link`", "unknown field `link`", "`host`"],
    );
}

#[test]
fn an_access_router_is_asked_of_the_host() {
    // Host a inherits the defaults' access, which names no router.
    let m = err(&ALIKE.replace("name = \"a\"\naccess = { router = \"r\" }", "name = \"a\""));
    has_all(
        &m,
        &[
            "(line 5, column 1)",
            "field `host[0].access.router`",
            "missing",
            "on the host",
        ],
    );
}

#[test]
fn resolve_errors_give_the_line_of_the_value() {
    let m = err(&GOOD.replace("name = \"a\"", "name = \"a\"\ncc = \"rneo\""));
    // GOOD starts with an empty line: cc is on line 5, the flow's `to` on line 14.
    has_all(&m, &["bad.toml (line 5, column 6): field `host[0].cc`"]);
    let m = err(&GOOD.replace("to = \"b\"", "to = \"bb\""));
    has_all(&m, &["(line 14, column 6): field `flow[0].to`"]);
}

#[test]
fn a_bad_loss_table_is_quoted_as_written() {
    for (loss, shown) in [
        ("{ rate = 1.5 }", "{ rate = 1.5 }"),
        ("{ every = 2, rate = 0.1 }", "{ every = 2, rate = 0.1 }"),
        ("{ every = 0 }", "{ every = 0 }"),
        ("{}", "{}"),
    ] {
        let m = err(&GOOD.replace(
            "delay = \"10ms\"",
            &format!("delay = \"10ms\"\nloss = {loss}"),
        ));
        has_all(&m, &["link[0].loss", shown, "every = N", "rate = p"]);
        assert!(!m.contains("Some(") && !m.contains("None"), "{m}");
    }
}

#[test]
fn bad_host_model_fields() {
    let host = |extra: &str| GOOD.replace("name = \"a\"", &format!("name = \"a\"\n{extra}"));
    for (extra, field, says) in [
        ("dupthresh = 0", "host[0].dupthresh", "at least 1"),
        (
            "dupack_wrap = 3",
            "host[0].dupack_wrap",
            "above dupthresh (3)",
        ),
        (
            "freebsd_sack = true\nrack = true",
            "host[0].freebsd_sack",
            "prr and rack",
        ),
        (
            "rtt_sampling = \"sometimes\"",
            "host[0].rtt_sampling",
            "every-ack",
        ),
        ("bus_rate = 1056", "host[0].bus_rate", "unit"),
        ("packet_cost = \"-1us\"", "host[0].packet_cost", "-1us"),
        ("rx_latency = 5", "host[0].rx_latency", "unit"),
        ("read_latency = \"-5us\"", "host[0].read_latency", "-5us"),
        ("read_tail = 1.5", "host[0].read_tail", "from 0 to 1"),
        ("read_tail = -0.01", "host[0].read_tail", "from 0 to 1"),
        (
            "read_tail = 0.01",
            "host[0].read_tail",
            "needs read_tail_span",
        ),
        ("read_tail_span = 5", "host[0].read_tail_span", "unit"),
        ("tx_jitter = \"-1ms\"", "host[0].tx_jitter", "-1ms"),
        (
            "tx_queue = 100",
            "host[0].tx_queue",
            "set packet_cost or bus_rate",
        ),
        ("partial_ack = \"halve\"", "host[0].partial_ack", "deflate"),
        (
            "buffer_accounting = \"bsd\"",
            "host[0].buffer_accounting",
            "linux22",
        ),
        ("mem_limit = \"1KB\"", "host[0].mem_limit", "4 x mss"),
    ] {
        has_all(&err(&host(extra)), &[field, says]);
    }
    // And the good ones parse into the host.
    let sc = parse_scenario(
        &host("dupthresh = 2\nrtt_sampling = \"timed\"\nbus_rate = \"1056Mbps\"\npacket_cost = \"10us\"\nrx_latency = \"20us\"\ntx_jitter = \"1ms\"\nread_latency = \"80us\"\nread_tail = 0.0125\nread_tail_span = \"2ms\""),
        "good.toml",
    )
    .unwrap();
    let h = &sc.hosts[0];
    assert_eq!(h.tcp.dupthresh, 2);
    assert_eq!(h.tcp.rtt_sampling, tcplab_tcp::RttSampling::Timed);
    assert_eq!(h.stage.bus_bps, 1_056_000_000);
    assert_eq!(h.stage.per_packet.0, 10_000);
    assert_eq!(h.stage.rx_latency.0, 20_000);
    assert_eq!(h.stage.tx_jitter.0, 1_000_000);
    assert_eq!(h.tcp.read_latency.0, 80_000);
    assert_eq!(h.tcp.read_tail, 12_500);
    assert_eq!(h.tcp.read_tail_span.0, 2_000_000);
}

#[test]
fn every_profile_setting_tcplab_list_shows_is_a_host_field() {
    // `tcplab list` names each profile setting as a host writes it: a
    // scenario setting it (to a wrong value) must fail on the value, never
    // on an unknown field.
    let cat = tcplab_model::catalog();
    for p in &cat.profiles {
        for (name, _, _) in &p.params {
            let text = GOOD.replace("name = \"a\"", &format!("name = \"a\"\n{name} = [[1]]"));
            let m = err(&text);
            assert!(
                !m.contains("unknown field"),
                "{} lists {name}, which no host field takes: {m}",
                p.name
            );
        }
    }
}

// ---- issue 22: names that reach file names, values that wrapped or were
// ignored, and messages that named no field.

#[test]
fn node_names_that_could_leave_a_directory_are_refused() {
    // A link's capture file is named from its two nodes: every name here
    // would put a path, a hidden file or an option into a file name.
    for bad in [
        "x/../../tmp/f",
        "..",
        ".",
        ".hidden",
        "-rf",
        "a b",
        "a\\b",
        "tab\there",
        "caf\u{e9}",
        "a>b",
        "",
    ] {
        let text = GOOD.replace("name = \"a\"", &format!("name = {bad:?}"));
        let text = text.replace("between = [\"a\"", &format!("between = [{bad:?}"));
        let text = text.replace("from = \"a\"", &format!("from = {bad:?}"));
        let m = err(&text);
        has_all(
            &m,
            &[
                "field `host[0].name`",
                &format!("value {bad:?}"),
                "1 to 64 ASCII letters, digits, `_`, `-` and `.`",
            ],
        );
    }
    let long = "h".repeat(65);
    let m = err(&GOOD.replace("name = \"b\"", &format!("name = {long:?}")));
    has_all(&m, &["field `host[1].name`", "(this one has 65)"]);
    // The same rule for routers and for `names` lists.
    let m = err(&format!("{GOOD}[[router]]\nname = \"r/1\"\n"));
    has_all(&m, &["field `router[0].name`", "\"r/1\""]);
    let m = err(&GOOD.replace("name = \"b\"", "names = [\"b\", \"../c\"]"));
    has_all(&m, &["field `host[1].names[1]`", "\"../c\""]);
}

#[test]
fn node_names_of_the_allowed_set_are_accepted() {
    let text = GOOD
        .replace("\"a\"", "\"Server-1.eu_west\"")
        .replace("\"b\"", &format!("{:?}", "9".repeat(64)));
    let sc = parse_scenario(&text, "good.toml").unwrap();
    assert_eq!(sc.nodes[0], "Server-1.eu_west");
}

#[test]
fn flow_and_generator_names_without_control_characters() {
    let m = err(&GOOD.replace("from = \"a\"", "name = \"x\\ny\"\nfrom = \"a\""));
    has_all(
        &m,
        &[
            "field `flow[0].name`",
            "without control characters",
            "'\\n'",
        ],
    );
    let m = err(&format!("name = \"evil\\u001b[2J\"\n{GOOD}"));
    has_all(&m, &["field `name`", "'\\u{1b}'"]);
    // Any other text is a label: spaces and arrows are fine.
    let sc = parse_scenario(
        &GOOD.replace("from = \"a\"", "name = \"web a->b, 1\"\nfrom = \"a\""),
        "good.toml",
    )
    .unwrap();
    assert_eq!(sc.flows[0].name, "web a->b, 1");
}

#[test]
fn overhead_beyond_a_packet_size_is_refused_not_wrapped() {
    // 4294967295 + a 1500-byte packet wraps a u32 to 1499.
    let m = err(&GOOD.replace(
        "delay = \"10ms\"",
        "delay = \"10ms\"\noverhead = 4294967295",
    ));
    has_all(
        &m,
        &["field `link[0].overhead`", "value 4294967295", "0 to 65535"],
    );
    let m = err(&GOOD.replace(
        "delay = \"10ms\"",
        "delay = \"10ms\"\nreverse = { overhead = 70000 }",
    ));
    has_all(&m, &["field `link[0].reverse.overhead`", "value 70000"]);
    let sc = parse_scenario(
        &GOOD.replace("delay = \"10ms\"", "delay = \"10ms\"\noverhead = 65535"),
        "good.toml",
    )
    .unwrap();
    assert_eq!(sc.links[0].overhead, 65535);
}

#[test]
fn between_names_exactly_two_nodes() {
    for (list, n) in [
        ("[\"a\", \"b\", \"a\", \"b\"]", 4),
        ("[\"a\", \"b\", \"c\"]", 3),
        ("[\"a\"]", 1),
    ] {
        let m = err(&GOOD.replace("between = [\"a\", \"b\"]", &format!("between = {list}")));
        has_all(
            &m,
            &[
                "field `link[0].between`",
                "a link joins exactly two nodes",
                &format!("(this one names {n})"),
            ],
        );
    }
}

#[test]
fn a_start_says_what_a_start_is() {
    let allowed = "a start is a time (start = \"2s\") or a uniform draw";
    let cases = [
        ("\"-3s\"", "must not be negative"),
        (
            "{ uniform = [\"1s\"] }",
            "uniform takes two bounds [low, high], this one has 1",
        ),
        ("{ uniform = [\"1s\", \"2s\", \"3s\"] }", "this one has 3"),
        (
            "{ uniform = [\"1s\", \"-2s\"] }",
            "\"-2s\": must not be negative",
        ),
        ("{ uniform = \"1s\" }", "the bounds go in a list"),
        ("{ unifrom = [\"1s\", \"2s\"] }", "unknown key \"unifrom\""),
        ("true", "boolean `true`"),
    ];
    for (v, what) in cases {
        let m = err(&GOOD.replace("to = \"b\"", &format!("to = \"b\"\nstart = {v}")));
        has_all(&m, &["field `flow[0].start`", what, allowed]);
        assert!(!m.contains("untagged"), "{m}");
    }
}

#[test]
fn a_host_field_given_a_number_says_it_takes_a_host_name() {
    let m = err(&GOOD.replace("from = \"a\"", "from = 5"));
    has_all(
        &m,
        &[
            "field `flow[0].from`",
            "integer `5`",
            "the name of a host, in quotes",
        ],
    );
    let gen = format!(
        "{GOOD}[[traffic]]\nfrom = 5\nto = \"b\"\nrate = 1.0\nsize = {{ dist = \"constant\", value = 1000 }}\n"
    );
    let m = err(&gen);
    has_all(
        &m,
        &[
            "field `traffic[0].from`",
            "integer 5",
            "a host name in quotes",
        ],
    );
    assert!(!m.contains("untagged"), "{m}");
}

#[test]
fn numbers_beyond_toml_integers_name_their_field() {
    // TOML integers are i64: the parser refuses before serde sees a field.
    let m = err(&format!("seed = 99999999999999999999999\n{GOOD}"));
    has_all(
        &m,
        &[
            "(line 1, column 8)",
            "field `seed`",
            "value 99999999999999999999999",
            "64-bit signed",
            "9223372036854775807",
        ],
    );
    let m = err(&format!(
        "{GOOD}[[flow]]\nfrom = \"b\"\nto = \"a\"\nsize = 99999999999999999999\n"
    ));
    has_all(&m, &["field `flow[1].size`", "value 99999999999999999999"]);
    // serde's type names in words.
    let m = err(&format!("seed = -1\n{GOOD}"));
    has_all(
        &m,
        &[
            "field `seed`",
            "`-1`",
            "a whole number from 0 to 9223372036854775807",
        ],
    );
}

#[test]
fn a_bad_cc_parameter_is_blamed_on_the_parameter() {
    // The profile chose the controller, but the parameter is what is wrong.
    let m = err(&GOOD.replace(
        "name = \"a\"",
        "name = \"a\"\nprofile = \"linux\"\ncc_params = { foo = 1 }",
    ));
    has_all(
        &m,
        &[
            "field `host[0].cc_params.foo`",
            "value 1",
            "no parameter \"foo\"",
            "profile linux chose cubic",
        ],
    );
    let m = err(&GOOD.replace(
        "name = \"a\"",
        "name = \"a\"\ncc = \"cubic\"\ncc_params = { beta = 5000 }",
    ));
    has_all(
        &m,
        &["field `host[0].cc_params.beta`", "value 5000", "1..=1023"],
    );
}

#[test]
fn unknown_names_list_only_the_first_twenty_known() {
    let hosts: String = (0..100)
        .map(|i| format!("[[host]]\nname = \"h{i:03}\"\n"))
        .collect();
    let text = format!(
        "duration = \"1s\"\n{hosts}[[link]]\nbetween = [\"h000\", \"nope\"]\nrate = \"1Mbps\"\n"
    );
    let m = err(&text);
    has_all(&m, &["\"nope\"", "h000, h001", "h019 and 80 more"]);
    assert!(!m.contains("h020"), "{m}");
}

#[test]
fn two_captures_cannot_share_a_file() {
    // capture_<from>_<to>.pcap: "a_b->c" and "a->b_c" are both capture_a_b_c.pcap.
    let text = r#"
duration = "1s"
[trace]
pcap = ["a_b->c", "a->b_c"]
[[host]]
names = ["a_b", "c", "a", "b_c"]
[[link]]
between = ["a_b", "c"]
rate = "1Mbps"
[[link]]
between = ["a", "b_c"]
rate = "1Mbps"
"#;
    let m = err(text);
    has_all(
        &m,
        &[
            "field `trace.pcap[1]`",
            "\"a->b_c\"",
            "capture_a_b_c.pcap",
            "trace.pcap[0] (\"a_b->c\")",
        ],
    );
}

#[test]
fn a_profile_s_kernel_tick_reaches_the_controllers_that_count_jiffies() {
    // The linux profile's HZ 250 (this kernel's CONFIG_HZ) becomes Cubic's,
    // BIC's and BBR's `hz`, unless the host sets `hz` or `cc_params.hz`; Reno
    // counts no jiffies and gets none; other profiles leave the default.
    let with = |lines: &str| {
        let text = GOOD.replace("name = \"a\"", &format!("name = \"a\"\n{lines}"));
        parse_scenario(&text, "good.toml").unwrap().hosts[0]
            .cc_params
            .get("hz")
            .copied()
    };
    assert_eq!(with("profile = \"linux\"\ncc = \"cubic\""), Some(250.0));
    assert_eq!(with("profile = \"linux\"\ncc = \"bic\""), Some(250.0));
    assert_eq!(
        with("profile = \"linux\"\ncc = \"cubic\"\nhz = 1000"),
        Some(1000.0)
    );
    assert_eq!(
        with("profile = \"linux\"\ncc = \"cubic\"\ncc_params = { hz = 100 }"),
        Some(100.0)
    );
    assert_eq!(with("profile = \"linux\"\ncc = \"bbr\""), Some(250.0));
    assert_eq!(with("profile = \"linux\"\ncc = \"reno\""), None);
    assert_eq!(with("profile = \"rfc\"\ncc = \"cubic\""), None);
    has_all(
        &err(&GOOD.replace("name = \"a\"", "name = \"a\"\nhz = 300")),
        &["hz", "300", "100, 250 or 1000"],
    );
}
