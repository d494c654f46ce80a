//! The scenario file schema (TOML) and its validation into a [`Scenario`].
//!
//! Every error names the file, the field path (`flow[1].to`), the value and what
//! is allowed. Unknown fields are errors, so a typo never passes silently.

use crate::units::{Duration, Rate, Size};
use crate::ScenarioError;
use serde::Deserialize;
use std::collections::BTreeMap;
use tcplab_engine::SimTime;
use tcplab_net::PathError;
use tcplab_tcp::cc::{self, CcParams};
use tcplab_tcp::profile::{NewRenoRto, Undo};
use tcplab_tcp::{
    profile, profiles, BufferAccounting, Handshake, Recovery, RtoEstimator, RttSampling, TcpConfig,
};

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct File {
    name: Option<String>,
    description: Option<String>,
    seed: Option<u64>,
    duration: Duration,
    event_order: Option<String>,
    measure: Option<Measure>,
    trace: Option<Trace>,
    defaults: Option<Defaults>,
    #[serde(default)]
    host: Vec<Host>,
    #[serde(default)]
    router: Vec<Router>,
    #[serde(default)]
    link: Vec<Link>,
    #[serde(default)]
    flow: Vec<Flow>,
    #[serde(default)]
    traffic: Vec<Traffic>,
    #[serde(default)]
    route: Vec<Route>,
    // Read by `tcplab sweep` (python/tcplab/sweep.py); a single run ignores them.
    #[allow(dead_code)]
    sweep: Option<toml::Value>,
    #[allow(dead_code)]
    repetitions: Option<toml::Value>,
    #[allow(dead_code)]
    until: Option<toml::Value>,
}

/// An explicit route: packets addressed to the path's last node follow it from
/// its first node (and, unless `reverse = false`, packets addressed to the first
/// node follow it backwards).
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct Route {
    path: Vec<String>,
    reverse: Option<bool>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct Measure {
    start: Option<Duration>,
    end: Option<Duration>,
    phases: Option<Vec<Duration>>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct Trace {
    #[serde(default)]
    cwnd: bool,
    #[serde(default)]
    rtt: bool,
    #[serde(default)]
    queue: bool,
    interval: Option<Duration>,
    #[serde(default)]
    pcap: Vec<String>,
}

/// The settings of a host, written once: a `[[host]]` entry is its name (or
/// names) and these; `[defaults.host]` is these alone.
macro_rules! host_settings {
    ($($field:ident: $ty:ty,)*) => {
        /// One `[[host]]` entry: one host (`name`) or several alike (`names`).
        #[derive(Deserialize, Debug)]
        #[serde(deny_unknown_fields)]
        struct Host {
            name: Option<String>,
            names: Option<Vec<String>>,
            $($field: Option<$ty>,)*
        }

        /// The settings every host inherits (`[defaults.host]`), or a host's
        /// own over them.
        #[derive(Deserialize, Debug, Default, Clone)]
        #[serde(deny_unknown_fields)]
        struct HostSettings {
            $($field: Option<$ty>,)*
        }

        impl Host {
            /// This entry's settings over the defaults, and the fields taken
            /// whole from the defaults.
            fn settings(&self, d: &HostSettings) -> (HostSettings, Vec<&'static str>) {
                let mut inherited = Vec::new();
                let s = HostSettings {
                    $($field: match (&self.$field, &d.$field) {
                        (Some(v), _) => Some(v.clone()),
                        (None, Some(v)) => {
                            inherited.push(stringify!($field));
                            Some(v.clone())
                        }
                        (None, None) => None,
                    },)*
                };
                (s, inherited)
            }
        }
    };
}

host_settings! {
    profile: String,
    cc: String,
    cc_params: BTreeMap<String, f64>,
    initial_window: u32,
    min_rto: Duration,
    delack: Duration,
    delack_segments: u32,
    recovery: String,
    sack: bool,
    timestamps: bool,
    window_scaling: bool,
    ecn: bool,
    mss: u32,
    sndbuf: Size,
    rcvbuf: Size,
    max_ssthresh: u32,
    ns2_lss: bool,
    dupthresh_frac: i64,
    ns2_decrease: bool,
    ns2_sack1: bool,
    newreno_rto: String,
    partial_window_deflation: bool,
    ss_ack_limit: u32,
    ca_ack_limit: u32,
    sack_needs_timestamps: bool,
    undo: String,
    handshake: String,
    rto_estimator: String,
    rtt_sampling: String,
    dupthresh: u32,
    partial_ack: String,
    ssthresh_from_window: bool,
    ssthresh_from_cwnd: bool,
    cc_recovery: bool,
    count_acks: bool,
    buffer_accounting: String,
    rto_clears_sack: bool,
    rcvbuf_auto: bool,
    host_cache: bool,
    answer_timestamps: bool,
    ack_before_data: bool,
    freebsd_sack: bool,
    cum_ack_growth: bool,
    dupack_wrap: u32,
    ss_ack_limit_rto: u32,
    rto_from_head: bool,
    rto_holds_new_data: bool,
    ssthresh_every_rto: bool,
    prr: bool,
    rack: bool,
    tlp: bool,
    dsack: bool,
    adaptive_delack: bool,
    push: bool,
    read_latency: Duration,
    read_jitter: Duration,
    read_tail: f64,
    read_tail_span: Duration,
    sack_timer_latency: Duration,
    sack_timer_jitter: Duration,
    timer_wheel: bool,
    sack_compression: bool,
    frto: bool,
    linux_pacing: bool,
    linux_enter_loss: bool,
    gso_bursts: bool,
    tso_defer: bool,
    hz: u32,
    mem_limit: Size,
    tcp_tick: Duration,
    initial_rto: Duration,
    max_rto: Duration,
    window: u32,
    max_cwnd: u32,
    cwnd_limited_growth: bool,
    nic_rate: Rate,
    bus_rate: Rate,
    packet_cost: Duration,
    rx_latency: Duration,
    tx_queue: u32,
    rx_queue: u32,
    tx_jitter: Duration,
    access: Access,
}

/// `[defaults]`: settings inherited by every entry of a kind.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct Defaults {
    host: Option<HostSettings>,
}

/// A host's access link to a router, written on the host: a duplex link with the
/// same settings both ways unless `up`/`down` override them.
#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
struct Access {
    router: Option<String>,
    rate: Option<Rate>,
    delay: Option<Duration>,
    queue: Option<Queue>,
    overhead: Option<u32>,
    loss: Option<Loss>,
    up: Option<Direction>,
    down: Option<Direction>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct Router {
    name: String,
}

#[derive(Deserialize, Debug, Clone, Default)]
#[serde(deny_unknown_fields)]
struct Direction {
    rate: Option<Rate>,
    delay: Option<Duration>,
    queue: Option<Queue>,
    overhead: Option<u32>,
    loss: Option<Loss>,
}

#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
struct Loss {
    every: Option<u64>,
    rate: Option<f64>,
}

impl Loss {
    /// The table as the user wrote it, in TOML.
    fn as_toml(&self) -> String {
        let mut parts = Vec::new();
        if let Some(n) = self.every {
            parts.push(format!("every = {n}"));
        }
        if let Some(p) = self.rate {
            parts.push(format!("rate = {p}"));
        }
        if parts.is_empty() {
            "{}".to_string()
        } else {
            format!("{{ {} }}", parts.join(", "))
        }
    }
}

#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
struct Queue {
    kind: Option<String>,
    packets: Option<u32>,
    bytes: Option<Size>,
    min_th: Option<f64>,
    max_th: Option<f64>,
    max_p: Option<f64>,
    w_q: Option<f64>,
    gentle: Option<bool>,
    target: Option<Duration>,
    interval: Option<Duration>,
    flows: Option<u32>,
    quantum: Option<u32>,
    ecn: Option<bool>,
    counts_sending: Option<bool>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct Link {
    between: Vec<String>,
    rate: Option<Rate>,
    delay: Option<Duration>,
    queue: Option<Queue>,
    overhead: Option<u32>,
    loss: Option<Loss>,
    forward: Option<Direction>,
    reverse: Option<Direction>,
}

/// A flow's start: a time, or a uniform draw between two times.
#[derive(Debug)]
enum Start {
    At(Duration),
    Uniform { uniform: [Duration; 2] },
}

impl<'de> Deserialize<'de> for Start {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        const ALLOWED: &str =
            "a start is a time (start = \"2s\") or a uniform draw (start = { uniform = [\"0s\", \"10s\"] })";
        let duration = |v: toml::Value| {
            Duration::deserialize(v)
                .map_err(|e| D::Error::custom(format!("{}; {ALLOWED}", e.message())))
        };
        match toml::Value::deserialize(d)? {
            toml::Value::Table(t) => {
                if let Some(k) = t.keys().find(|k| *k != "uniform") {
                    return Err(D::Error::custom(format!("unknown key {k:?}; {ALLOWED}")));
                }
                match t.get("uniform") {
                    Some(toml::Value::Array(a)) if a.len() == 2 => Ok(Start::Uniform {
                        uniform: [duration(a[0].clone())?, duration(a[1].clone())?],
                    }),
                    Some(toml::Value::Array(a)) => Err(D::Error::custom(format!(
                        "uniform takes two bounds [low, high], this one has {}; {ALLOWED}",
                        a.len()
                    ))),
                    Some(v) => Err(D::Error::custom(format!(
                        "uniform = {v}: the bounds go in a list [low, high]; {ALLOWED}"
                    ))),
                    None => Err(D::Error::custom(format!("an empty table; {ALLOWED}"))),
                }
            }
            v => Ok(Start::At(duration(v)?)),
        }
    }
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct Flow {
    name: Option<String>,
    from: String,
    to: String,
    start: Option<Start>,
    size: Option<Size>,
    stop: Option<Duration>,
}

/// A generator's end: one host, or a list of hosts drawn from.
#[derive(Debug)]
enum Hosts {
    One(String),
    Many(Vec<String>),
}

impl<'de> Deserialize<'de> for Hosts {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        const ALLOWED: &str =
            "expected a host name in quotes (\"server\") or a list of them ([\"h1\", \"h2\"])";
        match toml::Value::deserialize(d)? {
            toml::Value::String(s) => Ok(Hosts::One(s)),
            toml::Value::Array(a) => a
                .into_iter()
                .map(|v| match v {
                    toml::Value::String(s) => Ok(s),
                    v => Err(D::Error::custom(format!(
                        "{} {v} in the list; {ALLOWED}",
                        v.type_str()
                    ))),
                })
                .collect::<Result<_, _>>()
                .map(Hosts::Many),
            v => Err(D::Error::custom(format!("{} {v}; {ALLOWED}", v.type_str()))),
        }
    }
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct Traffic {
    name: Option<String>,
    from: Hosts,
    to: Hosts,
    rate: Option<f64>,
    interarrival: Option<Duration>,
    size: SizeTable,
    start: Option<Duration>,
    stop: Option<Duration>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct SizeTable {
    dist: String,
    unit: Option<String>,
    value: Option<f64>,
    mean: Option<f64>,
    alpha: Option<f64>,
    min: Option<u64>,
    max: Option<u64>,
    shape: Option<f64>,
    scale: Option<f64>,
    cap: Option<f64>,
    values: Option<Vec<f64>>,
    probs: Option<Vec<f64>>,
}

/// A queue discipline.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum QueueKind {
    /// Drop Tail.
    DropTail,
    /// Drop-from-Front.
    DropFront,
    /// Random Drop.
    RandomDrop,
    /// RED: (min_th, max_th, max_p, w_q, gentle).
    Red(f64, f64, f64, f64, bool),
    /// CoDel: (target, interval).
    Codel(SimTime, SimTime),
    /// FQ-CoDel: (target, interval, buckets, quantum bytes).
    FqCodel(SimTime, SimTime, u32, u32),
}

/// A queue discipline as configured: its kind, its limit and whether it marks.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QueueSpec {
    /// The discipline.
    pub kind: QueueKind,
    /// The limit, in packets or bytes.
    pub limit: tcplab_net::QueueLimit,
    /// Mark ECN-capable packets CE instead of dropping them (RED, CoDel, FQ-CoDel).
    pub ecn: bool,
}

/// Losses on the wire of a link.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub enum LossSpec {
    /// None.
    #[default]
    None,
    /// Every n-th packet.
    Every(u64),
    /// Each packet with this probability (from the link's own random stream).
    Rate(f64),
}

/// One simplex link, resolved.
#[derive(Clone, Debug)]
pub struct LinkSpec {
    /// Sending node index.
    pub from: u32,
    /// Receiving node index.
    pub to: u32,
    /// Bits per second.
    pub rate_bps: u64,
    /// Propagation delay.
    pub delay: SimTime,
    /// Queue discipline.
    pub queue: QueueSpec,
    /// Framing bytes per packet.
    pub overhead: u32,
    /// Losses on the wire.
    pub loss: LossSpec,
}

/// A host, resolved.
#[derive(Clone, Debug)]
pub struct HostSpec {
    /// Name.
    pub name: String,
    /// Profile name.
    pub profile: String,
    /// TCP settings (profile + overrides).
    pub tcp: TcpConfig,
    /// Congestion controller.
    pub cc: String,
    /// Its parameters.
    pub cc_params: CcParams,
    /// What the host costs the packets it sends and receives.
    pub stage: tcplab_net::HostStageConfig,
}

/// When a flow starts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum StartSpec {
    /// At a fixed time.
    At(SimTime),
    /// Uniformly at random in `[a, b]`, from the flow's own random stream.
    Uniform(SimTime, SimTime),
}

/// A flow, resolved.
#[derive(Clone, Debug)]
pub struct FlowSpec {
    /// Name.
    pub name: String,
    /// Sending node index (a host).
    pub src: u32,
    /// Receiving node index (a host).
    pub dst: u32,
    /// Start time.
    pub start: StartSpec,
    /// Bytes to send (`None`: bulk, never ends).
    pub size: Option<u64>,
    /// When the application stops writing (the flow then finishes what it sent).
    pub stop: Option<SimTime>,
}

/// The unit in which a generator's sizes are drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SizeUnit {
    /// Full segments: the MSS the two hosts negotiate, less the timestamp option when both use it.
    Packets,
    /// Bytes.
    Bytes,
}

/// A traffic generator: connections arriving at random between host pairs.
#[derive(Clone, Debug)]
pub struct GeneratorSpec {
    /// Name.
    pub name: String,
    /// Candidate senders (one drawn uniformly per arrival).
    pub from: Vec<u32>,
    /// Candidate receivers (one drawn uniformly per arrival).
    pub to: Vec<u32>,
    /// The arrival process.
    pub arrivals: crate::traffic::Arrivals,
    /// The size distribution, in `unit`s.
    pub size: crate::traffic::SizeDist,
    /// The size unit.
    pub unit: SizeUnit,
    /// First possible arrival.
    pub start: SimTime,
    /// No arrival at or after this time.
    pub stop: SimTime,
}

impl GeneratorSpec {
    /// Bytes per unit for a connection from host `src` to host `dst`.
    pub fn unit_bytes(&self, hosts: &[HostSpec], src: u32, dst: u32) -> u64 {
        match self.unit {
            SizeUnit::Bytes => 1,
            SizeUnit::Packets => {
                let (a, b) = (&hosts[src as usize].tcp, &hosts[dst as usize].tcp);
                if a.handshake.one_way() {
                    // ns-2: packetSize_ is the payload, timestamps or not.
                    return a.mss as u64;
                }
                let ts = a.timestamps && (b.timestamps || b.answer_timestamps);
                (a.mss.min(b.mss) - if ts { 12 } else { 0 }) as u64
            }
        }
    }
}

/// What to trace.
#[derive(Clone, Debug, Default)]
pub struct TraceSpec {
    /// cwnd/ssthresh/srtt samples.
    pub cwnd: bool,
    /// Every RTT sample.
    pub rtt: bool,
    /// Queue lengths.
    pub queue: bool,
    /// Sampling interval for cwnd and queue.
    pub interval: SimTime,
    /// Links (indexes) whose packets are captured (pcap).
    pub pcap: Vec<u32>,
}

/// A validated scenario.
#[derive(Clone, Debug)]
pub struct Scenario {
    /// Name.
    pub name: String,
    /// Description.
    pub description: String,
    /// Seed (default 1).
    pub seed: u64,
    /// Simulated time.
    pub duration: SimTime,
    /// Measurement window start.
    pub measure_start: SimTime,
    /// Measurement window end.
    pub measure_end: SimTime,
    /// Node names, hosts first then routers.
    pub nodes: Vec<String>,
    /// Host node count (hosts are nodes 0..n_hosts).
    pub hosts: Vec<HostSpec>,
    /// Simplex links.
    pub links: Vec<LinkSpec>,
    /// Flows.
    pub flows: Vec<FlowSpec>,
    /// Traffic generators.
    pub generators: Vec<GeneratorSpec>,
    /// Phase boundaries: measure start, the `measure.phases` split points, measure end.
    pub phases: Vec<SimTime>,
    /// Traces.
    pub trace: TraceSpec,
    /// Explicit routes: at `node`, packets for `dst` leave on `link` (an index
    /// into `links`). Every other route is a shortest path.
    pub routes: Vec<RouteEntry>,
    /// The order of events at one instant on Drop Tail links.
    pub event_order: EventOrder,
}

/// The order of a link's events at one instant (the top-level `event_order`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventOrder {
    /// A transmitter that frees up takes its next packet before anything else
    /// happens at that instant (see `tcplab_net::network`).
    DepartureFirst,
    /// ns-2's: events at one instant in the order ns-2 schedules them, an
    /// arrival when its transmission starts (`tcplab_net::Network::set_ns2_order`).
    Ns2,
}

/// One explicit routing-table entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RouteEntry {
    /// The node holding the entry.
    pub node: u32,
    /// The destination it applies to.
    pub dst: u32,
    /// The simplex link taken (index into [`Scenario::links`]).
    pub link: u32,
}

struct Ctx<'a> {
    path: &'a str,
    text: &'a str,
}

impl Ctx<'_> {
    /// An error at `field`, with the line and column where the file gives it
    /// (or, for a missing field, where it would go).
    fn err(
        &self,
        field: &str,
        value: impl std::fmt::Display,
        allowed: impl std::fmt::Display,
    ) -> ScenarioError {
        let at = locate(self.text, field)
            .map_or(String::new(), |(l, c)| format!(" (line {l}, column {c})"));
        ScenarioError(format!(
            "{}{at}: field `{field}`: value {value}: {allowed}",
            self.path
        ))
    }
}

/// The longest host or router name, in characters.
pub const NODE_NAME_MAX: usize = 64;

/// Host and router names become parts of file names (a link `a->b`'s capture
/// is `capture_a_b.pcap`) and of table cells: 1 to [`NODE_NAME_MAX`] ASCII
/// letters, digits, `_`, `-` and `.`, starting with a letter or a digit (so
/// no name is `.`, `..`, a path, an option or hidden).
pub fn check_node_name(name: &str) -> Result<(), String> {
    const RULE: &str = "a host or router name is 1 to 64 ASCII letters, digits, `_`, `-` and `.`, starting with a letter or a digit";
    let first_ok = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphanumeric());
    let bad = name
        .chars()
        .find(|&c| !(c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.'));
    match bad {
        _ if name.is_empty() => Err(format!("{RULE} (this one is empty)")),
        Some(c) => Err(format!("{RULE} (this one has {c:?})")),
        None if name.len() > NODE_NAME_MAX => Err(format!("{RULE} (this one has {})", name.len())),
        None if !first_ok => Err(format!("{RULE} (this one starts with {:?})", &name[..1])),
        None => Ok(()),
    }
}

/// The longest flow, generator or scenario name, in characters.
pub const LABEL_MAX: usize = 200;

/// Flow, generator and scenario names only label table rows, figures and
/// reports (never file names): any text of 1 to [`LABEL_MAX`] characters
/// without control characters (a newline or an escape would forge lines in
/// CSV files and terminals).
pub fn check_label(name: &str) -> Result<(), String> {
    const RULE: &str = "a flow, generator or scenario name is 1 to 200 characters without control characters (newlines, tabs, escapes)";
    let n = name.chars().count();
    if n == 0 {
        Err(format!("{RULE} (this one is empty)"))
    } else if n > LABEL_MAX {
        Err(format!("{RULE} (this one has {n})"))
    } else if let Some(c) = name.chars().find(|c| c.is_control()) {
        Err(format!("{RULE} (this one has {c:?})"))
    } else {
        Ok(())
    }
}

fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
    (line, col)
}

/// Where a field path (`host[2].access.queue`, `defaults.host.cc`) is written
/// in the file: its value, or the deepest table on the path that the file
/// writes out. `None` when not even the first component is there.
fn locate(text: &str, field: &str) -> Option<(usize, usize)> {
    let doc = toml_edit::ImDocument::parse(text).ok()?;
    let mut item = doc.as_item();
    let mut span = None;
    for part in field.split('.') {
        let mut pieces = part.split('[');
        let key = pieces.next().unwrap_or_default();
        let mut next = if key.is_empty() {
            Some(item)
        } else {
            item.get(key)
        };
        for index in pieces {
            let i = index.trim_end_matches(']').parse::<usize>().ok();
            next = next.zip(i).and_then(|(n, i)| n.get(i));
        }
        let Some(found) = next else { break };
        item = found;
        span = found.span().or(span);
    }
    span.map(|s| line_col(text, s.start))
}

/// serde's words for what a field takes, in a user's words: "expected u32"
/// becomes the range of whole numbers it takes; host fields say they take a
/// host name.
fn plain_message(msg: &str, field: &str) -> String {
    let mut m = msg.to_string();
    for (ty, plain) in [
        ("u8", "a whole number from 0 to 255".to_string()),
        ("u16", "a whole number from 0 to 65535".to_string()),
        ("u32", format!("a whole number from 0 to {}", u32::MAX)),
        (
            "u64",
            format!(
                "a whole number from 0 to {} (TOML integers are 64-bit signed)",
                i64::MAX
            ),
        ),
        ("usize", format!("a whole number from 0 to {}", i64::MAX)),
        ("f64", "a number".to_string()),
        ("a boolean", "a boolean, true or false".to_string()),
    ] {
        if let Some(head) = m.strip_suffix(&format!("expected {ty}")) {
            m = format!("{head}expected {plain}");
        }
    }
    if m.contains("number too large to fit in target type") {
        m = format!(
            "{m}: TOML integers are 64-bit signed, from {} to {}",
            i64::MIN,
            i64::MAX
        );
    }
    let last = field.rsplit('.').next().unwrap_or_default();
    let host_end = (last == "from" || last == "to")
        && (field.starts_with("flow[") || field.starts_with("traffic["));
    if host_end && m.ends_with("expected a string") {
        m = format!("{m}: the name of a host, in quotes ({last} = \"server\")");
    }
    m
}

/// The value written at byte `offset`: the text up to the next space,
/// comma, bracket, comment or line end (at most 80 bytes).
fn token_at(text: &str, offset: usize) -> Option<&str> {
    let rest = text.get(offset..)?;
    let end = rest
        .find(|c: char| c.is_whitespace() || matches!(c, ',' | ']' | '}' | '#'))
        .unwrap_or(rest.len());
    let t = &rest[..end];
    (!t.is_empty() && t.len() <= 80).then_some(t)
}

/// The key path written at byte `offset` of a scenario's text, read off the
/// text itself (for errors the TOML parser reports without a field path):
/// the last table header before it (`[[flow]]` counted, so `flow[1]`) and the
/// key on its line.
fn key_at(text: &str, offset: usize) -> Option<String> {
    let offset = offset.min(text.len());
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let line = &text[line_start..offset];
    let key = line.rsplit_once('=')?.0.rsplit(['{', ',']).next()?.trim();
    let plain = |k: &str| {
        !k.is_empty()
            && k.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '"'))
    };
    if !plain(key) {
        return None;
    }
    let key = key.replace('"', "");
    let mut header = String::new();
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for l in text[..line_start].lines() {
        let l = l.trim();
        if let Some(name) = l.strip_prefix("[[").and_then(|r| r.strip_suffix("]]")) {
            let name = name.trim().to_string();
            let n = counts.entry(name.clone()).or_insert(0);
            header = format!("{name}[{n}]");
            *n += 1;
        } else if let Some(name) = l.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
            header = name.trim().to_string();
        }
    }
    Some(if header.is_empty() {
        key
    } else {
        format!("{header}.{key}")
    })
}

/// Parse and validate a scenario.
pub fn parse(text: &str, path: &str) -> Result<Scenario, ScenarioError> {
    let de = toml::Deserializer::new(text);
    let file: File = match serde_path_to_error::deserialize(de) {
        Ok(f) => f,
        Err(e) => {
            let mut field = e.path().to_string();
            if field == "." {
                field.clear();
            }
            let inner = e.into_inner();
            let loc = inner.span().map(|s| line_col(text, s.start));
            let mut token = None;
            if field.is_empty() {
                // A TOML-level error (a number too large, say) has no serde
                // path: name the key written where it points, and its value.
                if let Some(s) = inner.span() {
                    if let Some(f) = key_at(text, s.start) {
                        field = f;
                        token = token_at(text, s.start);
                    }
                }
            }
            let mut msg = plain_message(inner.message().trim(), &field);
            if let Some(v) = token {
                msg = format!("value {v}: {msg}");
            }
            let at = loc.map_or(String::new(), |(l, c)| format!(" (line {l}, column {c})"));
            let where_ = if field.is_empty() {
                String::new()
            } else {
                format!(" field `{field}`:")
            };
            return Err(ScenarioError(format!("{path}{at}:{where_} {msg}")));
        }
    };
    resolve(file, &Ctx { path, text })
}

fn resolve(f: File, cx: &Ctx) -> Result<Scenario, ScenarioError> {
    if let Some(name) = &f.name {
        check_label(name).map_err(|why| cx.err("name", format!("{name:?}"), why))?;
    }
    let duration = f.duration.0;
    if duration == SimTime::ZERO {
        return Err(cx.err("duration", "0", "must be positive"));
    }
    let (ms, me) = match &f.measure {
        Some(m) => (
            m.start.map_or(SimTime::ZERO, |d| d.0),
            m.end.map_or(duration, |d| d.0),
        ),
        None => (SimTime::ZERO, duration),
    };
    if me > duration {
        return Err(cx.err(
            "measure.end",
            me,
            format!("must not exceed duration ({duration})"),
        ));
    }
    if ms >= me {
        return Err(cx.err(
            "measure.start",
            ms,
            format!("must be before measure.end ({me})"),
        ));
    }
    let mut phases = vec![ms];
    if let Some(ps) = f.measure.as_ref().and_then(|m| m.phases.as_ref()) {
        for (k, p) in ps.iter().enumerate() {
            let last = *phases.last().expect("non-empty");
            if p.0 <= last || p.0 >= me {
                return Err(cx.err(
                    &format!("measure.phases[{k}]"),
                    p.0,
                    format!("phase boundaries must increase strictly and lie inside the measurement window ({ms}, {me})"),
                ));
            }
            phases.push(p.0);
        }
    }
    phases.push(me);
    let trace = match &f.trace {
        Some(t) => {
            let interval = t.interval.map_or(SimTime::from_millis(10), |d| d.0);
            if interval == SimTime::ZERO {
                return Err(cx.err("trace.interval", "0", "must be positive"));
            }
            TraceSpec {
                cwnd: t.cwnd,
                rtt: t.rtt,
                queue: t.queue,
                interval,
                pcap: Vec::new(),
            }
        }
        None => TraceSpec {
            interval: SimTime::from_millis(10),
            ..Default::default()
        },
    };

    // Nodes: hosts then routers, names unique.
    let mut nodes: Vec<String> = Vec::new();
    let mut index: BTreeMap<String, u32> = BTreeMap::new();
    let mut add =
        |name: &str, field: String, nodes: &mut Vec<String>| -> Result<(), ScenarioError> {
            if let Err(why) = check_node_name(name) {
                return Err(cx.err(&field, format!("{name:?}"), why));
            }
            if index.insert(name.to_string(), nodes.len() as u32).is_some() {
                return Err(cx.err(
                    &field,
                    format!("{name:?}"),
                    "another host or router already has this name",
                ));
            }
            nodes.push(name.to_string());
            Ok(())
        };
    // Hosts: each entry's names in file order, `names` expanding in place.
    let defaults = f
        .defaults
        .as_ref()
        .and_then(|d| d.host.clone())
        .unwrap_or_default();
    let mut members: Vec<(usize, HostSettings, Origin)> = Vec::new();
    for (i, h) in f.host.iter().enumerate() {
        let names: Vec<(&str, String)> = match (&h.name, &h.names) {
            (Some(n), None) => vec![(n.as_str(), format!("host[{i}].name"))],
            (None, Some(ns)) if ns.is_empty() => {
                return Err(cx.err(
                    &format!("host[{i}].names"),
                    "[]",
                    "give at least one name",
                ))
            }
            (None, Some(ns)) => ns
                .iter()
                .enumerate()
                .map(|(k, n)| (n.as_str(), format!("host[{i}].names[{k}]")))
                .collect(),
            (Some(_), Some(_)) => {
                return Err(cx.err(
                    &format!("host[{i}]"),
                    "both `name` and `names`",
                    "give `name = \"...\"` for one host or `names = [...]` for several alike hosts, not both",
                ))
            }
            (None, None) => {
                return Err(cx.err(
                    &format!("host[{i}].name"),
                    "missing",
                    "every [[host]] needs `name = \"...\"` (or `names = [...]` for several alike hosts)",
                ))
            }
        };
        let (settings, inherited) = h.settings(&defaults);
        let (settings, origin) = inherit_access(h, settings, inherited, &defaults, i);
        for (name, field) in names {
            add(name, field, &mut nodes)?;
            members.push((i, settings.clone(), origin.clone()));
        }
    }
    for (i, r) in f.router.iter().enumerate() {
        add(&r.name, format!("router[{i}].name"), &mut nodes)?;
    }
    let n_hosts = members.len();
    let known = || -> String {
        let mut v: Vec<&str> = nodes.iter().map(|s| s.as_str()).collect();
        v.sort();
        some_names(v)
    };

    let mut hosts: Vec<HostSpec> = Vec::new();
    for (n, (i, h, origin)) in members.iter().enumerate() {
        // The hosts of one `names` entry differ only by name: resolved once.
        let mut spec = match n.checked_sub(1).map(|p| &members[p]) {
            Some((j, ..)) if j == i => hosts[n - 1].clone(),
            _ => resolve_host(h, &|x| origin.path(x), cx)?,
        };
        spec.name = nodes[n].clone();
        hosts.push(spec);
    }

    // Links.
    let mut links = Vec::new();
    for (i, l) in f.link.iter().enumerate() {
        if l.between.len() != 2 {
            return Err(cx.err(
                &format!("link[{i}].between"),
                format!("{:?}", l.between),
                format!(
                    "a link joins exactly two nodes: between = [\"a\", \"b\"] (this one names {})",
                    l.between.len()
                ),
            ));
        }
        let mut ends = [0u32; 2];
        for (k, end) in ends.iter_mut().enumerate() {
            *end = *index.get(&l.between[k]).ok_or_else(|| {
                cx.err(
                    &format!("link[{i}].between[{k}]"),
                    format!("{:?}", l.between[k]),
                    format!("no host or router of that name; known: {}", known()),
                )
            })?;
        }
        if ends[0] == ends[1] {
            return Err(cx.err(
                &format!("link[{i}].between"),
                format!("{:?}", l.between),
                "a link joins two different nodes",
            ));
        }
        let base = Direction {
            rate: l.rate,
            delay: l.delay,
            queue: l.queue.clone(),
            overhead: l.overhead,
            loss: l.loss.clone(),
        };
        let at = |x: &str| format!("link[{i}].{x}");
        let (a, b) = (ends[0], ends[1]);
        links.push(resolve_direction(
            &base,
            l.forward.as_ref(),
            "forward",
            a,
            b,
            &at,
            cx,
        )?);
        links.push(resolve_direction(
            &base,
            l.reverse.as_ref(),
            "reverse",
            b,
            a,
            &at,
            cx,
        )?);
    }
    // Access links written on hosts: up = host -> router, down = router -> host.
    for (n, (_, h, origin)) in members.iter().enumerate() {
        let Some(a) = &h.access else { continue };
        let at = |x: &str| origin.path(&format!("access.{x}"));
        let Some(router) = &a.router else {
            // Reported at the host even when its access comes from the defaults:
            // the router is what each host says.
            let i = origin.entry;
            return Err(cx.err(
                &format!("host[{i}].access.router"),
                "missing",
                "an access link needs the router it joins: `access = { router = \"...\" }` on the host (its other access settings may come from [defaults.host])",
            ));
        };
        let r = match index.get(router) {
            Some(&r) if (r as usize) >= n_hosts => r,
            Some(_) => {
                return Err(cx.err(
                    &at("router"),
                    format!("{router:?}"),
                    "is a host; an access link joins a host to a router",
                ))
            }
            None => {
                return Err(cx.err(
                    &at("router"),
                    format!("{router:?}"),
                    format!("no router of that name; known: {}", known()),
                ))
            }
        };
        let base = Direction {
            rate: a.rate,
            delay: a.delay,
            queue: a.queue.clone(),
            overhead: a.overhead,
            loss: a.loss.clone(),
        };
        let n = n as u32;
        links.push(resolve_direction(
            &base,
            a.up.as_ref(),
            "up",
            n,
            r,
            &at,
            cx,
        )?);
        links.push(resolve_direction(
            &base,
            a.down.as_ref(),
            "down",
            r,
            n,
            &at,
            cx,
        )?);
    }
    // A host's NIC (or bus) caps every link it sends or receives on.
    // One pass over the links (hosts x links took seconds for 10^5 hosts).
    let nic: Vec<Option<u64>> = members
        .iter()
        .map(|(_, h, _)| h.nic_rate.map(|r| r.0))
        .collect();
    let cap_of = |node: u32| nic.get(node as usize).copied().flatten();
    for l in links.iter_mut() {
        for cap in [cap_of(l.from), cap_of(l.to)].into_iter().flatten() {
            l.rate_bps = l.rate_bps.min(cap);
        }
    }

    // A host by name, for flows and generators.
    let host_of = |name: &str, field: &str| -> Result<u32, ScenarioError> {
        match index.get(name) {
            Some(&n) if (n as usize) < n_hosts => Ok(n),
            Some(_) => Err(cx.err(
                field,
                format!("{name:?}"),
                "is a router; TCP connections run between hosts",
            )),
            None => Err(cx.err(
                field,
                format!("{name:?}"),
                format!(
                    "no host of that name; hosts: {}",
                    some_names(nodes[..n_hosts].iter())
                ),
            )),
        }
    };

    // Explicit routes, checked hop by hop; the rest are shortest paths.
    let mut routes: Vec<RouteEntry> = Vec::new();
    let mut set_by: BTreeMap<(u32, u32), usize> = BTreeMap::new();
    for (i, r) in f.route.iter().enumerate() {
        let field = format!("route[{i}].path");
        if r.path.len() < 2 {
            return Err(cx.err(
                &field,
                format!("{:?}", r.path),
                "a route names at least two nodes: where it starts and its destination",
            ));
        }
        let mut hops = Vec::with_capacity(r.path.len());
        for (k, name) in r.path.iter().enumerate() {
            let n = *index.get(name).ok_or_else(|| {
                cx.err(
                    &format!("{field}[{k}]"),
                    format!("{name:?}"),
                    format!("no host or router of that name; known: {}", known()),
                )
            })?;
            if hops.contains(&n) {
                return Err(cx.err(
                    &format!("{field}[{k}]"),
                    format!("{name:?}"),
                    "appears twice: a route must not loop",
                ));
            }
            if k > 0 && k + 1 < r.path.len() && (n as usize) < n_hosts {
                return Err(cx.err(
                    &format!("{field}[{k}]"),
                    format!("{name:?}"),
                    "is a host in the middle of a route; only routers forward packets",
                ));
            }
            hops.push(n);
        }
        let link_between = |a: u32, b: u32, k: usize| -> Result<u32, ScenarioError> {
            let found: Vec<u32> = (0..links.len() as u32)
                .filter(|&l| links[l as usize].from == a && links[l as usize].to == b)
                .collect();
            match found[..] {
                [l] => Ok(l),
                [] => Err(cx.err(
                    &format!("{field}[{k}]"),
                    format!("{:?}", nodes[b as usize]),
                    format!("no link from {} to {}", nodes[a as usize], nodes[b as usize]),
                )),
                _ => Err(cx.err(
                    &format!("{field}[{k}]"),
                    format!("{:?}", nodes[b as usize]),
                    format!(
                        "{} parallel links from {} to {}: a route names nodes, so it cannot choose between them",
                        found.len(),
                        nodes[a as usize],
                        nodes[b as usize]
                    ),
                )),
            }
        };
        let (first, last) = (hops[0], hops[hops.len() - 1]);
        let mut entries = Vec::new();
        for k in 0..hops.len() - 1 {
            entries.push((hops[k], last, link_between(hops[k], hops[k + 1], k + 1)?, k));
        }
        if r.reverse.unwrap_or(true) {
            for k in (1..hops.len()).rev() {
                entries.push((
                    hops[k],
                    first,
                    link_between(hops[k], hops[k - 1], k - 1)?,
                    k,
                ));
            }
        }
        for (node, dst, link, k) in entries {
            match set_by.get(&(node, dst)) {
                Some(&j)
                    if routes
                        .iter()
                        .any(|e| e.node == node && e.dst == dst && e.link != link) =>
                {
                    return Err(cx.err(
                        &format!("{field}[{k}]"),
                        format!("{:?}", nodes[node as usize]),
                        format!(
                            "route[{j}] already sends packets for {} from {} another way",
                            nodes[dst as usize], nodes[node as usize]
                        ),
                    ));
                }
                Some(_) => {}
                None => {
                    set_by.insert((node, dst), i);
                    routes.push(RouteEntry { node, dst, link });
                }
            }
        }
    }

    // Flows.
    let mut flows = Vec::new();
    let mut names = std::collections::BTreeSet::new();
    for (i, fl) in f.flow.iter().enumerate() {
        let src = host_of(&fl.from, &format!("flow[{i}].from"))?;
        let dst = host_of(&fl.to, &format!("flow[{i}].to"))?;
        if src == dst {
            return Err(cx.err(
                &format!("flow[{i}].to"),
                format!("{:?}", fl.to),
                "a flow needs two different hosts",
            ));
        }
        let name = fl
            .name
            .clone()
            .unwrap_or_else(|| format!("{}->{}#{i}", fl.from, fl.to));
        if let Err(why) = check_label(&name) {
            return Err(cx.err(&format!("flow[{i}].name"), format!("{name:?}"), why));
        }
        if !names.insert(name.clone()) {
            return Err(cx.err(
                &format!("flow[{i}].name"),
                format!("{name:?}"),
                "another flow already has this name",
            ));
        }
        let start = match &fl.start {
            None => StartSpec::At(SimTime::ZERO),
            Some(Start::At(d)) => StartSpec::At(d.0),
            Some(Start::Uniform { uniform: [a, b] }) => {
                if a.0 > b.0 {
                    return Err(cx.err(
                        &format!("flow[{i}].start.uniform"),
                        format!("[{}, {}]", a.0, b.0),
                        "the lower bound must not exceed the upper",
                    ));
                }
                StartSpec::Uniform(a.0, b.0)
            }
        };
        let latest = match start {
            StartSpec::At(t) => t,
            StartSpec::Uniform(_, b) => b,
        };
        if latest >= duration {
            return Err(cx.err(
                &format!("flow[{i}].start"),
                latest,
                format!("must be before the end of the run ({duration})"),
            ));
        }
        if let Some(s) = fl.size {
            if s.0 == 0 {
                return Err(cx.err(
                    &format!("flow[{i}].size"),
                    0,
                    "must be at least one byte (omit it for a bulk transfer)",
                ));
            }
        }
        if let Some(t) = fl.stop {
            if t.0 <= latest {
                return Err(cx.err(
                    &format!("flow[{i}].stop"),
                    t.0,
                    format!("must be after the flow's (latest) start ({latest})"),
                ));
            }
        }
        flows.push(FlowSpec {
            name,
            src,
            dst,
            start,
            size: fl.size.map(|s| s.0),
            stop: fl.stop.map(|t| t.0),
        });
    }

    // Traffic generators.
    let mut generators = Vec::new();
    for (i, g) in f.traffic.iter().enumerate() {
        let hosts_of = |h: &Hosts, field: &str| -> Result<Vec<u32>, ScenarioError> {
            let list: Vec<&String> = match h {
                Hosts::One(n) => vec![n],
                Hosts::Many(v) => v.iter().collect(),
            };
            if list.is_empty() {
                return Err(cx.err(field, "[]", "give at least one host"));
            }
            list.iter()
                .enumerate()
                .map(|(k, name)| {
                    let fk = match h {
                        Hosts::One(_) => field.to_string(),
                        Hosts::Many(_) => format!("{field}[{k}]"),
                    };
                    host_of(name, &fk)
                })
                .collect()
        };
        let from = hosts_of(&g.from, &format!("traffic[{i}].from"))?;
        let to = hosts_of(&g.to, &format!("traffic[{i}].to"))?;
        let receivers: std::collections::HashSet<u32> = to.iter().copied().collect();
        if let Some(h) = from.iter().find(|h| receivers.contains(h)) {
            return Err(cx.err(
                &format!("traffic[{i}].to"),
                format!("{:?}", sc_name(&nodes, *h)),
                "is also a sender of this generator; senders and receivers must be different hosts",
            ));
        }
        let rate = match (g.rate, g.interarrival) {
            (Some(r), None) if r > 0.0 && r.is_finite() => r,
            (None, Some(d)) if d.0 > SimTime::ZERO => 1.0 / d.0.as_secs_f64(),
            (Some(r), None) => {
                return Err(cx.err(&format!("traffic[{i}].rate"), r, "must be a positive number of connections per second"))
            }
            (None, Some(d)) => {
                return Err(cx.err(&format!("traffic[{i}].interarrival"), d.0, "must be positive"))
            }
            _ => {
                return Err(cx.err(
                    &format!("traffic[{i}]"),
                    "rate and interarrival",
                    "give exactly one of `rate` (connections per second) or `interarrival` (mean gap, e.g. \"50ms\")",
                ))
            }
        };
        let (size, unit) = resolve_size(&g.size, &format!("traffic[{i}].size"), cx)?;
        let start = g.start.map_or(SimTime::ZERO, |d| d.0);
        let stop = g.stop.map_or(duration, |d| d.0);
        if start >= stop || start >= duration {
            return Err(cx.err(
                &format!("traffic[{i}].start"),
                start,
                format!("must be before the generator's stop ({stop}) and the end of the run ({duration})"),
            ));
        }
        let name = g.name.clone().unwrap_or_else(|| format!("traffic{i}"));
        if let Err(why) = check_label(&name) {
            return Err(cx.err(&format!("traffic[{i}].name"), format!("{name:?}"), why));
        }
        if generators.iter().any(|x: &GeneratorSpec| x.name == name) {
            return Err(cx.err(
                &format!("traffic[{i}].name"),
                format!("{name:?}"),
                "another generator already has this name",
            ));
        }
        generators.push(GeneratorSpec {
            name,
            from,
            to,
            arrivals: crate::traffic::Arrivals::Poisson(rate),
            size,
            unit,
            start,
            stop,
        });
    }

    // Packet captures name links as the links table does ("from->to").
    let mut trace = trace;
    if let Some(t) = &f.trace {
        for (i, name) in t.pcap.iter().enumerate() {
            let found = links.iter().position(|l| {
                format!("{}->{}", nodes[l.from as usize], nodes[l.to as usize]) == *name
            });
            match found {
                Some(l) if !trace.pcap.contains(&(l as u32)) => {
                    // Its file, capture_<from>_<to>.pcap, must be its own:
                    // "a_b->c" and "a->b_c" would share one.
                    let file = |l: &LinkSpec| {
                        format!("{}_{}", nodes[l.from as usize], nodes[l.to as usize])
                    };
                    let mine = file(&links[l]);
                    if let Some(j) = trace
                        .pcap
                        .iter()
                        .position(|&k| file(&links[k as usize]) == mine)
                    {
                        return Err(cx.err(
                            &format!("trace.pcap[{i}]"),
                            format!("{name:?}"),
                            format!(
                                "its capture file, capture_{mine}.pcap, is also the file of trace.pcap[{j}] ({:?}): rename a node so that the two names differ once `->` is written `_`",
                                t.pcap[j]
                            ),
                        ));
                    }
                    trace.pcap.push(l as u32)
                }
                Some(_) => {
                    return Err(cx.err(
                        &format!("trace.pcap[{i}]"),
                        format!("{name:?}"),
                        "named twice",
                    ))
                }
                None => {
                    let names: Vec<String> = links
                        .iter()
                        .map(|l| format!("{}->{}", nodes[l.from as usize], nodes[l.to as usize]))
                        .collect();
                    return Err(cx.err(
                        &format!("trace.pcap[{i}]"),
                        format!("{name:?}"),
                        format!("no link of that name; the links: {}", some_names(names)),
                    ));
                }
            }
        }
    }
    // ns-2's order by default when every host is an ns-2 agent.
    let event_order = match f.event_order.as_deref() {
        None | Some("auto") => {
            if !hosts.is_empty() && hosts.iter().all(|h| h.profile == "ns2") {
                EventOrder::Ns2
            } else {
                EventOrder::DepartureFirst
            }
        }
        Some("ns2") => EventOrder::Ns2,
        Some("departure-first") => EventOrder::DepartureFirst,
        Some(other) => {
            return Err(cx.err(
                "event_order",
                format!("{other:?}"),
                "one of \"auto\" (ns2 when every host has the ns2 profile, else departure-first), \"ns2\", \"departure-first\"",
            ))
        }
    };
    let sc = Scenario {
        name: f.name.unwrap_or_else(|| {
            cx.path
                .rsplit('/')
                .next()
                .unwrap_or(cx.path)
                .trim_end_matches(".toml")
                .to_string()
        }),
        description: f.description.unwrap_or_default(),
        seed: f.seed.unwrap_or(1),
        duration,
        measure_start: ms,
        measure_end: me,
        nodes,
        hosts,
        links,
        flows,
        generators,
        phases,
        trace,
        routes,
        event_order,
    };
    check_agents(&sc, cx)?;
    check_routes(&sc, cx)?;
    Ok(sc)
}

/// Both ends of a connection must be ns-2 one-way agents or kernel stacks: an
/// ns-2 sink does not answer a SYN with options, a kernel receiver drops data
/// that comes without a handshake.
fn check_agents(sc: &Scenario, cx: &Ctx) -> Result<(), ScenarioError> {
    let one_way = |h: u32| sc.hosts[h as usize].tcp.handshake.one_way();
    let check = |field: &dyn Fn() -> String, src: u32, dst: u32| -> Result<(), ScenarioError> {
        let (a, b) = (&sc.hosts[src as usize], &sc.hosts[dst as usize]);
        let (ha, hb) = (a.tcp.handshake, b.tcp.handshake);
        if ha.one_way() != hb.one_way() {
            let kind = |h: Handshake| {
                if h.one_way() {
                    "an ns-2 one-way agent"
                } else {
                    "a kernel stack"
                }
            };
            return Err(cx.err(
                &field(),
                format!("{:?}", b.name),
                format!(
                    "host {:?} is {} (handshake {}) and host {:?} {} (handshake {}); \
                     both ends of a connection must be ns-2 agents or neither \
                     (set `profile` or `handshake` on both)",
                    a.name,
                    kind(ha),
                    ha.name(),
                    b.name,
                    kind(hb),
                    hb.name()
                ),
            ));
        }
        Ok(())
    };
    for (i, f) in sc.flows.iter().enumerate() {
        check(&|| format!("flow[{i}].to"), f.src, f.dst)?;
    }
    // A generator's pairs in file order, without listing them (10^5 senders
    // by 10^5 receivers): the first sender with a receiver of the other kind,
    // and the first such receiver.
    for (i, g) in sc.generators.iter().enumerate() {
        let first_of_kind = |k: bool| g.to.iter().copied().find(|&b| one_way(b) == k);
        let firsts = [first_of_kind(false), first_of_kind(true)];
        for &a in &g.from {
            if let Some(b) = firsts[usize::from(!one_way(a))] {
                check(&|| format!("traffic[{i}].to"), a, b)?;
            }
        }
    }
    Ok(())
}

/// A list of names for an error message: the first 20, and how many more (a
/// scenario may have 10^5 hosts).
fn some_names<S: std::fmt::Display>(names: impl IntoIterator<Item = S>) -> String {
    const SHOWN: usize = 20;
    let mut it = names.into_iter();
    let shown: Vec<String> = it.by_ref().take(SHOWN).map(|n| n.to_string()).collect();
    let more = it.count();
    if more > 0 {
        format!("{} and {more} more", shown.join(", "))
    } else {
        shown.join(", ")
    }
}

/// The largest per-packet framing overhead a link takes, in bytes (a packet
/// and its overhead must fit the 32-bit sizes the links count in).
pub const OVERHEAD_MAX: u32 = 65_535;

/// One direction of a link: its own settings over the link's shared ones.
fn resolve_direction(
    base: &Direction,
    dir: Option<&Direction>,
    name: &str,
    from: u32,
    to: u32,
    at: &dyn Fn(&str) -> String,
    cx: &Ctx,
) -> Result<LinkSpec, ScenarioError> {
    let d = dir.cloned().unwrap_or_default();
    let field = |x: &str, set: bool| {
        if set {
            at(&format!("{name}.{x}"))
        } else {
            at(x)
        }
    };
    let rate = d.rate.or(base.rate).ok_or_else(|| {
        let prefix = at("");
        let prefix = prefix.trim_end_matches('.');
        cx.err(
            &at(&format!("{name}.rate")),
            "missing",
            format!("every direction needs a rate: set `rate` on {prefix} or in its {name} table"),
        )
    })?;
    let delay = d.delay.or(base.delay).map_or(SimTime::ZERO, |x| x.0);
    let q = d.queue.clone().or(base.queue.clone()).unwrap_or(Queue {
        kind: None,
        packets: Some(1000),
        bytes: None,
        min_th: None,
        max_th: None,
        max_p: None,
        w_q: None,
        gentle: None,
        target: None,
        interval: None,
        flows: None,
        quantum: None,
        ecn: None,
        counts_sending: None,
    });
    let queue = resolve_queue(&q, &field("queue", d.queue.is_some()), cx)?;
    let loss_set = d.loss.is_some();
    let loss = match d.loss.or(base.loss.clone()) {
        None => LossSpec::None,
        Some(Loss { every: Some(n), rate: None }) if n >= 1 => LossSpec::Every(n),
        Some(Loss { every: None, rate: Some(p) }) if (0.0..1.0).contains(&p) => LossSpec::Rate(p),
        Some(x) => {
            return Err(cx.err(
                &field("loss", loss_set),
                x.as_toml(),
                "give either `every = N` (N >= 1: every N-th packet is lost) or `rate = p` (0 <= p < 1)",
            ))
        }
    };
    let overhead = d.overhead.or(base.overhead).unwrap_or(0);
    if overhead > OVERHEAD_MAX {
        return Err(cx.err(
            &field("overhead", d.overhead.is_some()),
            overhead,
            format!("framing bytes added to each packet: 0 to {OVERHEAD_MAX} (Ethernet: 18, 38 with preamble and inter-frame gap)"),
        ));
    }
    Ok(LinkSpec {
        from,
        to,
        rate_bps: rate.0,
        delay,
        queue,
        overhead,
        loss,
    })
}

fn sc_name(nodes: &[String], i: u32) -> &str {
    &nodes[i as usize]
}

/// A generator's size table: `dist` and the fields that distribution takes.
fn resolve_size(
    t: &SizeTable,
    field: &str,
    cx: &Ctx,
) -> Result<(crate::traffic::SizeDist, SizeUnit), ScenarioError> {
    use crate::traffic::SizeDist as D;
    let unit = match t.unit.as_deref().unwrap_or("packets") {
        "packets" => SizeUnit::Packets,
        "bytes" => SizeUnit::Bytes,
        u => {
            return Err(cx.err(
                &format!("{field}.unit"),
                format!("{u:?}"),
                "allowed: packets (full segments), bytes",
            ))
        }
    };
    let given: Vec<(&str, bool)> = vec![
        ("value", t.value.is_some()),
        ("mean", t.mean.is_some()),
        ("alpha", t.alpha.is_some()),
        ("min", t.min.is_some()),
        ("max", t.max.is_some()),
        ("shape", t.shape.is_some()),
        ("scale", t.scale.is_some()),
        ("cap", t.cap.is_some()),
        ("values", t.values.is_some()),
        ("probs", t.probs.is_some()),
    ];
    let takes: &[&str] = match t.dist.as_str() {
        "fixed" => &["value"],
        "exponential" => &["mean"],
        "pareto" => &["shape", "scale", "cap"],
        "zipf" => &["alpha", "min", "max"],
        "empirical" => &["values", "probs"],
        d => {
            return Err(cx.err(
                &format!("{field}.dist"),
                format!("{d:?}"),
                "allowed: fixed (value), exponential (mean), pareto (shape, scale, cap), zipf (alpha, min, max), empirical (values, probs)",
            ))
        }
    };
    if let Some((x, _)) = given.iter().find(|(x, set)| *set && !takes.contains(x)) {
        return Err(cx.err(
            &format!("{field}.{x}"),
            "given",
            format!("dist = {:?} takes only: {}, unit", t.dist, takes.join(", ")),
        ));
    }
    let need = |x: Option<f64>, name: &str| -> Result<f64, ScenarioError> {
        match x {
            Some(v) if v > 0.0 && v.is_finite() => Ok(v),
            Some(v) => Err(cx.err(&format!("{field}.{name}"), v, "must be a positive number")),
            None => Err(cx.err(
                &format!("{field}.{name}"),
                "missing",
                format!("dist = {:?} needs {}", t.dist, takes.join(", ")),
            )),
        }
    };
    let d = match t.dist.as_str() {
        "fixed" => D::Fixed(need(t.value, "value")?),
        "exponential" => D::Exponential(need(t.mean, "mean")?),
        "pareto" => {
            let shape = need(t.shape, "shape")?;
            let scale = need(t.scale, "scale")?;
            let cap = match t.cap {
                None if shape <= 1.0 => {
                    return Err(cx.err(
                        &format!("{field}.cap"),
                        "missing",
                        format!("shape {shape} <= 1 has an infinite mean: give a cap"),
                    ))
                }
                None => f64::INFINITY,
                Some(c) if c >= scale => c,
                Some(c) => {
                    return Err(cx.err(
                        &format!("{field}.cap"),
                        c,
                        format!("must be at least scale ({scale})"),
                    ))
                }
            };
            D::Pareto { shape, scale, cap }
        }
        "zipf" => {
            let alpha = need(t.alpha, "alpha")?;
            let min = t.min.unwrap_or(1);
            if min == 0 {
                return Err(cx.err(&format!("{field}.min"), 0, "must be at least 1"));
            }
            let max = match t.max {
                Some(m) if m >= min => m,
                Some(m) => {
                    return Err(cx.err(
                        &format!("{field}.max"),
                        m,
                        format!("must be at least min ({min})"),
                    ))
                }
                None => {
                    return Err(cx.err(
                        &format!("{field}.max"),
                        "missing",
                        "a Zipf law needs a bounded support: give max",
                    ))
                }
            };
            D::Zipf { alpha, min, max }
        }
        _ => {
            let (Some(v), Some(p)) = (&t.values, &t.probs) else {
                return Err(cx.err(field, "values or probs missing", "dist = \"empirical\" needs values = [...] and probs = [...] of the same length"));
            };
            if v.len() != p.len() || v.is_empty() {
                return Err(cx.err(
                    &format!("{field}.probs"),
                    format!("{} probabilities for {} values", p.len(), v.len()),
                    "give one probability per value",
                ));
            }
            if let Some((k, x)) = v
                .iter()
                .enumerate()
                .find(|(_, x)| !(**x > 0.0 && x.is_finite()))
            {
                return Err(cx.err(&format!("{field}.values[{k}]"), x, "must be positive"));
            }
            if let Some((k, x)) = p
                .iter()
                .enumerate()
                .find(|(_, x)| !(**x >= 0.0 && **x <= 1.0))
            {
                return Err(cx.err(&format!("{field}.probs[{k}]"), x, "must be in [0, 1]"));
            }
            let sum: f64 = p.iter().sum();
            if (sum - 1.0).abs() > 1e-6 {
                return Err(cx.err(
                    &format!("{field}.probs"),
                    format!("sum {sum}"),
                    "probabilities must sum to 1",
                ));
            }
            D::Empirical(v.iter().copied().zip(p.iter().copied()).collect())
        }
    };
    Ok((d, unit))
}

fn resolve_queue(q: &Queue, field: &str, cx: &Ctx) -> Result<QueueSpec, ScenarioError> {
    let name = q.kind.as_deref().unwrap_or("droptail");
    let kind =
        match name {
            "droptail" => QueueKind::DropTail,
            "dropfront" => QueueKind::DropFront,
            "randomdrop" => QueueKind::RandomDrop,
            "red" => {
                // Floyd & Jacobson 1993 / Floyd's recommended settings: w_q 0.002, max_p 0.1.
                let (min_th, max_th) = (q.min_th.unwrap_or(5.0), q.max_th.unwrap_or(15.0));
                let (max_p, w_q) = (q.max_p.unwrap_or(0.1), q.w_q.unwrap_or(0.002));
                if !(min_th >= 0.0 && max_th > min_th) {
                    return Err(cx.err(
                        &format!("{field}.max_th"),
                        max_th,
                        format!("must exceed min_th ({min_th}) >= 0"),
                    ));
                }
                if !(max_p > 0.0 && max_p <= 1.0) {
                    return Err(cx.err(&format!("{field}.max_p"), max_p, "must be in (0, 1]"));
                }
                if !(w_q > 0.0 && w_q <= 1.0) {
                    return Err(cx.err(&format!("{field}.w_q"), w_q, "must be in (0, 1]"));
                }
                QueueKind::Red(min_th, max_th, max_p, w_q, q.gentle.unwrap_or(false))
            }
            "codel" | "fq_codel" => {
                // RFC 8289 defaults: TARGET 5 ms, INTERVAL 100 ms.
                let target = q.target.map_or(SimTime::from_millis(5), |d| d.0);
                let interval = q.interval.map_or(SimTime::from_millis(100), |d| d.0);
                if target == SimTime::ZERO || interval <= target {
                    return Err(cx.err(
                        &format!("{field}.interval"),
                        interval,
                        format!("must exceed target ({target}) > 0"),
                    ));
                }
                if name == "codel" {
                    QueueKind::Codel(target, interval)
                } else {
                    // RFC 8290 / Linux defaults: 1024 buckets, quantum 1514 bytes.
                    let flows = q.flows.unwrap_or(1024);
                    let quantum = q.quantum.unwrap_or(1514);
                    if !(1..=65536).contains(&flows) {
                        return Err(cx.err(&format!("{field}.flows"), flows, "must be between 1 and 65536 buckets"));
                    }
                    if quantum < 64 {
                        return Err(cx.err(&format!("{field}.quantum"), quantum, "must be at least 64 bytes"));
                    }
                    QueueKind::FqCodel(target, interval, flows, quantum)
                }
            }
            _ => return Err(cx.err(
                &format!("{field}.kind"),
                format!("{name:?}"),
                "unknown queue discipline; available: droptail, dropfront, randomdrop, red, codel, fq_codel",
            )),
        };
    if !matches!(kind, QueueKind::Codel(..) | QueueKind::FqCodel(..))
        && (q.target.is_some() || q.interval.is_some())
    {
        return Err(cx.err(
            field,
            format!("{name:?} with CoDel parameters"),
            "target and interval apply to kind = \"codel\" and \"fq_codel\" only",
        ));
    }
    if !matches!(kind, QueueKind::FqCodel(..)) && (q.flows.is_some() || q.quantum.is_some()) {
        return Err(cx.err(
            field,
            format!("{name:?} with FQ-CoDel parameters"),
            "flows and quantum apply to kind = \"fq_codel\" only",
        ));
    }
    if !matches!(kind, QueueKind::Red(..))
        && (q.min_th.is_some()
            || q.max_th.is_some()
            || q.max_p.is_some()
            || q.w_q.is_some()
            || q.gentle.is_some())
    {
        return Err(cx.err(
            field,
            format!("{name:?} with RED parameters"),
            "min_th, max_th, max_p, w_q and gentle apply to kind = \"red\" only",
        ));
    }
    if let Some(ecn) = q.ecn {
        if !matches!(
            kind,
            QueueKind::Red(..) | QueueKind::Codel(..) | QueueKind::FqCodel(..)
        ) {
            return Err(cx.err(
                &format!("{field}.ecn"),
                ecn,
                format!("kind = {name:?} has no ECN marking; ecn applies to kind = \"red\", \"codel\" and \"fq_codel\" only"),
            ));
        }
    }
    let ecn = q.ecn.unwrap_or(false);
    let spec = |limit| QueueSpec { kind, limit, ecn };
    if q.counts_sending == Some(true) {
        // ns-2's Queue/DropTail refuses an arrival when `length + 1 >= qlim`
        // (queue/drop-tail.cc, DropTail::enque; Drop-from-Front is its
        // drop_front_ flag): with queue-limit B the node holds B packets
        // counting the one being sent, i.e. B - 1 wait. Here the limit counts
        // the waiting packets only, so B - 1 of them.
        let f = format!("{field}.counts_sending");
        if !matches!(kind, QueueKind::DropTail | QueueKind::DropFront) {
            return Err(cx.err(
                &f,
                true,
                format!("kind = {name:?} counts only the waiting packets; counts_sending applies to kind = \"droptail\" and \"dropfront\" (ns-2's Queue/DropTail)"),
            ));
        }
        return match (q.packets, q.bytes) {
            (Some(p), None) if p >= 2 => Ok(spec(tcplab_net::QueueLimit::Packets(p - 1))),
            (Some(p), None) => Err(cx.err(
                &format!("{field}.packets"),
                p,
                "with counts_sending the limit counts the packet being sent: at least 2",
            )),
            _ => Err(cx.err(
                &f,
                true,
                "applies to a limit in packets (`packets = N`) only",
            )),
        };
    }
    match (q.packets, q.bytes) {
        (Some(_), Some(_)) => Err(cx.err(
            field,
            "both `packets` and `bytes`",
            "give the limit in packets or in bytes, not both",
        )),
        (Some(0), None) => Err(cx.err(
            &format!("{field}.packets"),
            0,
            "a queue must hold at least one packet",
        )),
        (Some(p), None) => Ok(spec(tcplab_net::QueueLimit::Packets(p))),
        (None, Some(b)) if b.0 < 1500 => Err(cx.err(
            &format!("{field}.bytes"),
            b.0,
            "must hold at least one 1500-byte packet",
        )),
        (None, Some(b)) => Ok(spec(tcplab_net::QueueLimit::Bytes(b.0))),
        (None, None) => Err(cx.err(field, "no limit", "set `packets = N` or `bytes = \"...\"`")),
    }
}

/// Where a host's settings are written: its `[[host]]` entry, but for the
/// fields it inherits from `[defaults.host]`.
#[derive(Clone, Debug)]
struct Origin {
    /// The entry's index among the `[[host]]` tables.
    entry: usize,
    /// Fields taken from the defaults: whole (`cc`, `access`) or, inside an
    /// `access` both give, one by one (`access.rate`).
    inherited: Vec<&'static str>,
}

impl Origin {
    /// The path of a host field (`cc`, `access.up.queue`) where the file sets it.
    fn path(&self, field: &str) -> String {
        let from_defaults = self
            .inherited
            .iter()
            .any(|x| field == *x || field.strip_prefix(x).is_some_and(|r| r.starts_with('.')));
        if from_defaults {
            format!("defaults.host.{field}")
        } else {
            format!("host[{}].{field}", self.entry)
        }
    }
}

/// Field-by-field inheritance of `access` when both the host and the defaults
/// give one: the host's fields over the defaults' (its `queue`, `loss`, `up`
/// and `down` tables replace the defaults' whole).
fn inherit_access(
    h: &Host,
    mut settings: HostSettings,
    mut inherited: Vec<&'static str>,
    defaults: &HostSettings,
    entry: usize,
) -> (HostSettings, Origin) {
    if let (Some(own), Some(d)) = (&h.access, &defaults.access) {
        let mut pick = |name: &'static str, own: bool| {
            if !own {
                inherited.push(name);
            }
        };
        pick("access.router", own.router.is_some());
        pick("access.rate", own.rate.is_some());
        pick("access.delay", own.delay.is_some());
        pick("access.queue", own.queue.is_some());
        pick("access.overhead", own.overhead.is_some());
        pick("access.loss", own.loss.is_some());
        pick("access.up", own.up.is_some());
        pick("access.down", own.down.is_some());
        settings.access = Some(Access {
            router: own.router.clone().or(d.router.clone()),
            rate: own.rate.or(d.rate),
            delay: own.delay.or(d.delay),
            queue: own.queue.clone().or(d.queue.clone()),
            overhead: own.overhead.or(d.overhead),
            loss: own.loss.clone().or(d.loss.clone()),
            up: own.up.clone().or(d.up.clone()),
            down: own.down.clone().or(d.down.clone()),
        });
    }
    (settings, Origin { entry, inherited })
}

/// A host's settings, resolved; `f` gives the path of a field where the file
/// sets it (the host's entry or `defaults.host`). The name is set by the caller.
fn resolve_host(
    h: &HostSettings,
    f: &dyn Fn(&str) -> String,
    cx: &Ctx,
) -> Result<HostSpec, ScenarioError> {
    let pname = h.profile.clone().unwrap_or_else(|| "rfc".into());
    let p = profile(&pname).ok_or_else(|| {
        cx.err(
            &f("profile"),
            format!("{pname:?}"),
            format!(
                "unknown profile; available: {}",
                profiles()
                    .iter()
                    .map(|p| p.name)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )
    })?;
    let mut c = p.config.clone();
    if let Some(v) = h.initial_window {
        if v == 0 {
            return Err(cx.err(&f("initial_window"), 0, "must be at least 1 segment"));
        }
        c.initial_window = v;
    }
    if let Some(v) = h.min_rto {
        c.min_rto = v.0;
    }
    if let Some(v) = h.delack {
        c.delack_timeout = v.0;
    }
    if let Some(v) = h.delack_segments {
        if v == 0 {
            return Err(cx.err(&f("delack_segments"), 0, "must be at least 1"));
        }
        c.delack_segments = v;
    }
    if let Some(r) = &h.recovery {
        c.recovery = Recovery::parse(r).ok_or_else(|| {
            cx.err(
                &f("recovery"),
                format!("{r:?}"),
                "allowed: sack, newreno, reno, tahoe, tahoe-ns2, sack1-ns2",
            )
        })?;
    }
    if let Some(v) = h.sack {
        c.sack = v;
    }
    if let Some(v) = h.timestamps {
        c.timestamps = v;
    }
    if let Some(v) = h.window_scaling {
        c.window_scaling = v;
    }
    if let Some(v) = h.ecn {
        c.ecn = v;
    }
    if let Some(v) = h.mss {
        if !(88..=65495).contains(&v) {
            return Err(cx.err(&f("mss"), v, "must be between 88 and 65495 bytes"));
        }
        c.mss = v;
    }
    if let Some(v) = h.sndbuf {
        if v.0 < c.mss as u64 {
            return Err(cx.err(&f("sndbuf"), v.0, "must hold at least one segment"));
        }
        c.sndbuf = v.0;
    }
    if let Some(v) = h.rcvbuf {
        if v.0 < c.mss as u64 {
            return Err(cx.err(&f("rcvbuf"), v.0, "must hold at least one segment"));
        }
        c.rcvbuf = v.0;
    }
    if let Some(v) = h.max_ssthresh {
        if v == 1 {
            return Err(cx.err(
                &f("max_ssthresh"),
                v,
                "must be 0 (off) or at least 2 segments",
            ));
        }
        c.max_ssthresh = v;
    }
    if let Some(v) = h.ns2_lss {
        c.ns2_lss = v;
    }
    if let Some(v) = h.dupthresh_frac {
        c.dupthresh_frac = u32::try_from(v).map_err(|_| {
            cx.err(
                &f("dupthresh_frac"),
                v,
                "must be 0 (off; ns-2 writes -1 for off) or a positive divisor of cwnd",
            )
        })?;
    }
    if let Some(v) = h.ns2_decrease {
        c.ns2_decrease = v;
    }
    if let Some(v) = h.ns2_sack1 {
        c.ns2_sack1 = v;
    }
    if let Some(v) = &h.newreno_rto {
        c.newreno_rto = NewRenoRto::parse(v).ok_or_else(|| {
            cx.err(
                &f("newreno_rto"),
                format!("{v:?}"),
                "allowed: impatient (timer restarted on the first partial ACK, RFC 6582), \
                 slow-but-steady (on every partial ACK)",
            )
        })?;
    }
    if let Some(v) = h.partial_window_deflation {
        c.partial_deflation = v;
    }
    if let Some(v) = h.ss_ack_limit {
        c.ss_ack_limit = v;
    }
    if let Some(v) = h.ca_ack_limit {
        c.ca_ack_limit = v;
    }
    if let Some(v) = h.sack_needs_timestamps {
        c.sack_needs_timestamps = v;
    }
    if let Some(u) = &h.undo {
        c.undo = Undo::parse(u).ok_or_else(|| {
            cx.err(
                &f("undo"),
                format!("{u:?}"),
                "allowed: none, rto, all, badrxtwin",
            )
        })?;
    }
    if let Some(v) = &h.handshake {
        c.handshake = Handshake::parse(v).ok_or_else(|| {
            cx.err(
                &f("handshake"),
                format!("{v:?}"),
                "allowed: tcp (SYN, SYN-ACK, ACK), ns2-syn (ns-2 agent, syn_ true), \
                 none (ns-2 agent, syn_ false: data at the start time)",
            )
        })?;
    }
    if let Some(v) = &h.rto_estimator {
        c.rto_estimator = RtoEstimator::parse(v).ok_or_else(|| {
            cx.err(
                &f("rto_estimator"),
                format!("{v:?}"),
                "allowed: rfc6298, ns2, linux22, linux",
            )
        })?;
    }
    if let Some(v) = &h.rtt_sampling {
        c.rtt_sampling = RttSampling::parse(v).ok_or_else(|| {
            cx.err(
                &f("rtt_sampling"),
                format!("{v:?}"),
                "allowed: every-ack (a sample from every ACK of new data, as Linux), \
                 timed (one timed segment per round trip, as 4.4BSD and ns-2)",
            )
        })?;
    }
    if let Some(v) = &h.partial_ack {
        (c.partial_deflation, c.partial_keep) = match v.as_str() {
            "deflate" => (true, false),
            "ssthresh" => (false, false),
            "keep" => (c.partial_deflation, true),
            _ => {
                return Err(cx.err(
                    &f("partial_ack"),
                    format!("{v:?}"),
                    "allowed: deflate (by what it acknowledges, RFC 6582), ssthresh (back to \
                     the window set at the loss, ns-2 partial_window_deflation_ 0), keep \
                     (inflation kept, Linux 2.2)",
                ))
            }
        };
    }
    if let Some(v) = h.ssthresh_from_window {
        c.ssthresh_from_window = v;
    }
    if let Some(v) = h.ssthresh_from_cwnd {
        c.ssthresh_from_cwnd = v;
    }
    if let Some(v) = h.cc_recovery {
        c.cc_recovery = v;
    }
    if let Some(v) = h.count_acks {
        c.count_acks = v;
    }
    if let Some(v) = &h.buffer_accounting {
        c.buffer_accounting = BufferAccounting::parse(v).ok_or_else(|| {
            cx.err(
                &f("buffer_accounting"),
                format!("{v:?}"),
                "allowed: plain (the receive buffer is the window), linux22 (half the free \
                 buffer, segments charged their kernel buffers, as Linux 2.2), linux (Linux \
                 6.x: the buffer autotuned up to rcvbuf, the window from the free buffer and \
                 rcv_ssthresh)",
            )
        })?;
    }
    if let Some(v) = h.rto_clears_sack {
        c.rto_clears_sack = v;
    }
    if let Some(v) = h.rcvbuf_auto {
        c.rcvbuf_auto = v;
    }
    if let Some(v) = h.host_cache {
        c.host_cache = v;
    }
    if let Some(v) = h.answer_timestamps {
        c.answer_timestamps = v;
    }
    if let Some(v) = h.ack_before_data {
        c.ack_before_data = v;
    }
    if let Some(v) = h.freebsd_sack {
        c.freebsd_sack = v;
    }
    if let Some(v) = h.cum_ack_growth {
        c.cum_ack_growth = v;
    }
    if let Some(v) = h.dupack_wrap {
        c.dupack_wrap = v;
    }
    if let Some(v) = h.ss_ack_limit_rto {
        c.ss_ack_limit_rto = v;
    }
    if let Some(v) = h.rto_from_head {
        c.rto_from_head = v;
    }
    if let Some(v) = h.rto_holds_new_data {
        c.rto_holds_new_data = v;
    }
    if let Some(v) = h.ssthresh_every_rto {
        c.ssthresh_every_rto = v;
    }
    if let Some(v) = h.prr {
        c.prr = v;
    }
    if let Some(v) = h.rack {
        c.rack = v;
    }
    if let Some(v) = h.tlp {
        c.tlp = v;
    }
    if let Some(v) = h.dsack {
        c.dsack = v;
    }
    if let Some(v) = h.adaptive_delack {
        c.adaptive_delack = v;
    }
    if let Some(v) = h.push {
        c.push = v;
    }
    if let Some(v) = h.read_latency {
        c.read_latency = v.0;
    }
    if let Some(v) = h.read_jitter {
        c.read_jitter = v.0;
    }
    if let Some(v) = h.read_tail {
        if !(0.0..=1.0).contains(&v) {
            return Err(cx.err(
                &f("read_tail"),
                v,
                "must be a fraction of the reads, from 0 to 1",
            ));
        }
        c.read_tail = (v * 1e6).round() as u32;
    }
    if let Some(v) = h.read_tail_span {
        c.read_tail_span = v.0;
    }
    if c.read_tail > 0 && c.read_tail_span == SimTime::ZERO {
        return Err(cx.err(
            &f("read_tail"),
            c.read_tail as f64 / 1e6,
            "needs read_tail_span, the width of the late reads' law (a duration above 0)",
        ));
    }
    if let Some(v) = h.sack_timer_latency {
        c.sack_timer_latency = v.0;
    }
    if let Some(v) = h.sack_timer_jitter {
        c.sack_timer_jitter = v.0;
    }
    if let Some(v) = h.timer_wheel {
        c.timer_wheel = v;
    }
    if let Some(v) = h.sack_compression {
        c.sack_compression = v;
    }
    if let Some(v) = h.frto {
        c.frto = v;
    }
    if let Some(v) = h.linux_pacing {
        c.linux_pacing = v;
    }
    if let Some(v) = h.linux_enter_loss {
        c.linux_enter_loss = v;
    }
    if let Some(v) = h.gso_bursts {
        c.gso_bursts = v;
    }
    if let Some(v) = h.tso_defer {
        c.tso_defer = v;
    }
    if let Some(v) = h.hz {
        if !cc::KERNEL_HZ.contains(&v) {
            return Err(cx.err(
                &f("hz"),
                v,
                "must be 100, 250 or 1000 (CONFIG_HZ; 300 does not divide a second in whole microseconds)",
            ));
        }
        c.hz = v;
    }
    if let Some(v) = h.mem_limit {
        if v.0 > 0 && v.0 < 4 * c.mss as u64 {
            return Err(cx.err(
                &f("mem_limit"),
                v.0,
                "must be 0 (no limit) or hold a few segments (at least 4 x mss)",
            ));
        }
        c.mem_limit = v.0;
    }
    if let Some(v) = h.dupthresh {
        if v == 0 {
            return Err(cx.err(
                &f("dupthresh"),
                v,
                "must be at least 1 duplicate ACK (RFC 5681: 3)",
            ));
        }
        c.dupthresh = v;
    }
    if c.freebsd_sack && (c.prr || c.rack) {
        return Err(cx.err(
            &f("freebsd_sack"),
            true,
            "FreeBSD's SACK recovery replaces RFC 6675's, which prr and rack (Linux's) \
             refine: set freebsd_sack = false, or prr and rack = false",
        ));
    }
    if c.dupack_wrap != 0 && c.dupack_wrap <= c.dupthresh {
        return Err(cx.err(
            &f("dupack_wrap"),
            c.dupack_wrap,
            format!(
                "must be 0 (no wrap) or above dupthresh ({}): a counter that wraps \
                 first never reaches it (Linux 2.2: 256)",
                c.dupthresh
            ),
        ));
    }
    if let Some(v) = h.tcp_tick {
        if v.0 == SimTime::ZERO {
            return Err(cx.err(
                &f("tcp_tick"),
                format!("{:?}", v.0),
                "the clock granularity must be positive",
            ));
        }
        c.clock_granularity = v.0;
    }
    if let Some(v) = h.initial_rto {
        if v.0 == SimTime::ZERO {
            return Err(cx.err(&f("initial_rto"), format!("{:?}", v.0), "must be positive"));
        }
        c.initial_rto = v.0;
    }
    if let Some(v) = h.max_rto {
        c.max_rto = v.0;
    }
    if c.max_rto < c.min_rto {
        let field = if h.max_rto.is_some() {
            f("max_rto")
        } else {
            f("min_rto")
        };
        return Err(cx.err(
            &field,
            format!("max_rto {:?}, min_rto {:?}", c.max_rto, c.min_rto),
            "max_rto must not be below min_rto",
        ));
    }
    if let Some(v) = h.window {
        c.window = v;
    }
    if let Some(v) = h.max_cwnd {
        c.max_cwnd = v;
    }
    if c.max_cwnd > 0 && c.max_cwnd < c.initial_window {
        return Err(cx.err(
            &f("max_cwnd"),
            c.max_cwnd,
            format!(
                "must be 0 (no cap) or at least the initial window ({} segments)",
                c.initial_window
            ),
        ));
    }
    if let Some(v) = h.cwnd_limited_growth {
        c.cwnd_limited_growth = v;
    }
    let ccname = h.cc.clone().unwrap_or_else(|| c.default_cc.to_string());
    let mut params: CcParams = h.cc_params.clone().unwrap_or_default();
    // The profile's kernel tick for a controller that counts jiffies, unless
    // the host sets its own.
    let counts_jiffies = cc::registry()
        .iter()
        .any(|i| i.name == ccname && i.params.iter().any(|p| p.0 == "hz"));
    if c.hz > 0 && counts_jiffies && !params.contains_key("hz") {
        params.insert("hz".to_string(), c.hz as f64);
    }
    let made = cc::make(&ccname, &params);
    if let (Ok(ctl), true) = (&made, c.handshake.one_way()) {
        // An ns-2 agent of the variant's own may default its NewReno settings
        // differently from Agent/TCP/Newreno (WestwoodNR's ns-default.tcl).
        if let Some((rto, deflation)) = ctl.ns2_newreno() {
            if h.newreno_rto.is_none() {
                c.newreno_rto = rto;
            }
            if h.partial_window_deflation.is_none() {
                c.partial_deflation = deflation;
            }
        }
    }
    if let Err(m) = made {
        // A bad parameter is the parameter's fault, whichever field (cc or
        // the profile's default) chose the controller.
        let bad_param = params.iter().find(|(k, _)| {
            m.contains(&format!("parameter {k:?}")) || m.contains(&format!("parameter {k} "))
        });
        if let Some((k, v)) = bad_param {
            let by = if h.cc.is_none() {
                format!(" (profile {pname} chose {ccname})")
            } else {
                String::new()
            };
            return Err(cx.err(&f(&format!("cc_params.{k}")), v, format!("{m}{by}")));
        }
        let field = if h.cc.is_none() {
            f("profile")
        } else {
            f("cc")
        };
        let extra = if cc::PLANNED.contains(&ccname.as_str()) {
            format!(
                "{m} ({ccname} is planned but not implemented yet{})",
                if h.cc.is_none() {
                    format!("; profile {pname} defaults to it, so set `cc` explicitly")
                } else {
                    String::new()
                }
            )
        } else {
            m
        };
        return Err(cx.err(&field, format!("{ccname:?}"), extra));
    }
    let stage = tcplab_net::HostStageConfig {
        per_packet: h.packet_cost.map_or(SimTime::ZERO, |d| d.0),
        bus_bps: h.bus_rate.map_or(0, |r| r.0),
        rx_latency: h.rx_latency.map_or(SimTime::ZERO, |d| d.0),
        tx_limit: h.tx_queue.unwrap_or(0),
        rx_limit: h.rx_queue.unwrap_or(0),
        tx_jitter: h.tx_jitter.map_or(SimTime::ZERO, |d| d.0),
    };
    for (field, v) in [("tx_queue", h.tx_queue), ("rx_queue", h.rx_queue)] {
        if v.is_some() && stage.per_packet == SimTime::ZERO && stage.bus_bps == 0 {
            return Err(cx.err(
                &f(field),
                v.unwrap_or(0),
                "limits the packets waiting for the host's stage, which costs nothing: \
                 set packet_cost or bus_rate too (0 = no limit)",
            ));
        }
    }
    Ok(HostSpec {
        name: String::new(),
        profile: pname,
        tcp: c,
        cc: ccname,
        cc_params: params,
        stage,
    })
}

fn check_routes(sc: &Scenario, cx: &Ctx) -> Result<(), ScenarioError> {
    // Build the routing once (the same code the run uses) and check both
    // directions of every flow and of every host pair of every generator.
    // Hosts of one class (tcplab_net::Routing::source_class, dest_class)
    // route alike, so one pair per pair of classes is walked: the first
    // failing pair in file order is still the one reported, and a generator
    // between two sides of 10^5 hosts behind a few routers costs a few walks,
    // not 10^10.
    let routing = crate::world::build_routing(sc);
    let class = |h: u32| (routing.source_class(h), routing.dest_class(h));
    let check = |field: &dyn Fn() -> String, src: u32, dst: u32| -> Result<(), ScenarioError> {
        for (a, b) in [(src, dst), (dst, src)] {
            let why = match routing.path(a, b) {
                Ok(_) => continue,
                Err(PathError::NoRoute(n)) => format!(
                    "no route from {} to {} (a flow needs links both ways: data one way, ACKs back)",
                    sc.nodes[n as usize], sc.nodes[b as usize]
                ),
                Err(PathError::Loop(n)) => format!(
                    "the routes towards {} loop through {} (explicit routes mixed with shortest paths; give the whole path in a [[route]])",
                    sc.nodes[b as usize], sc.nodes[n as usize]
                ),
                Err(PathError::ThroughHost(n)) => format!(
                    "the routes towards {} pass through host {}, which does not forward",
                    sc.nodes[b as usize], sc.nodes[n as usize]
                ),
            };
            return Err(cx.err(
                &field(),
                format!("{:?} -> {:?}", sc.nodes[a as usize], sc.nodes[b as usize]),
                why,
            ));
        }
        Ok(())
    };
    let mut seen = std::collections::HashSet::new();
    for (i, f) in sc.flows.iter().enumerate() {
        if seen.insert((class(f.src), class(f.dst))) {
            check(&|| format!("flow[{i}]"), f.src, f.dst)?;
        }
    }
    for (i, g) in sc.generators.iter().enumerate() {
        let firsts = |hosts: &[u32]| -> Vec<u32> {
            let mut seen = std::collections::HashSet::new();
            hosts
                .iter()
                .copied()
                .filter(|&h| seen.insert(class(h)))
                .collect()
        };
        let to = firsts(&g.to);
        for a in firsts(&g.from) {
            for &b in &to {
                check(&|| format!("traffic[{i}]"), a, b)?;
            }
        }
    }
    Ok(())
}
