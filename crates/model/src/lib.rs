//! Scenarios and runs: the TOML schema, the wiring of a world from it, the
//! probes that measure it, and `run()`.

pub mod memory;
pub mod parquet;
pub mod pcap;
pub mod results;
pub mod schema;
pub mod stats;
pub mod traffic;
pub mod units;
mod world;

pub use memory::{MemoryEstimate, MemoryPart};
pub use results::*;
pub use schema::Scenario;
pub use world::{
    build_network, build_routing, flow_phase, flow_starts, generator_arrivals, generator_results,
    link_delta, loss_model, make_qdisc, offered_loads, result_names, run_with_progress, Arrival,
    FlowSnap, LinkDelta, LinkSnap, Progress,
};

/// A scenario that failed validation: the message names the file, the field
/// path, the value and what is allowed.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct ScenarioError(pub String);

/// Parse and validate a scenario given its text and the path it came from.
pub fn parse_scenario(text: &str, path: &str) -> Result<Scenario, ScenarioError> {
    schema::parse(text, path)
}

/// Run a scenario; `seed` overrides the scenario's own seed. The run simulates
/// until the end of the measurement window.
pub fn run(sc: &Scenario, seed: Option<u64>) -> RunResult {
    world::run(sc, seed)
}

/// Give the memory the allocator holds free back to the system (glibc's
/// `malloc_trim`; nothing elsewhere). A run frees the world it built, and
/// parsing a large file frees its document; glibc keeps those pages, so the
/// Python objects that hold the results (in pymalloc's own arenas) would come
/// on top of them in the process's peak. Called at the end of each run.
pub fn release_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    #[allow(unsafe_code)]
    {
        extern "C" {
            fn malloc_trim(pad: usize) -> i32;
        }
        // SAFETY: malloc_trim takes no pointer and only returns free pages
        // of glibc's heaps to the kernel; it is thread-safe.
        unsafe {
            malloc_trim(0);
        }
    }
}

/// Everything a scenario can name.
pub fn catalog() -> Catalog {
    let s = |x: &str| x.to_string();
    let controllers = tcplab_tcp::cc::registry()
        .iter()
        .map(|c| CatalogEntry {
            name: s(c.name),
            description: s(c.description),
            source: s(c.source),
            params: c
                .params
                .iter()
                .map(|(a, b, d)| (s(a), s(b), s(d)))
                .collect(),
        })
        .collect();
    let queue = |name: &str, description: &str, source: &str| CatalogEntry {
        name: s(name),
        description: s(description),
        source: s(source),
        params: vec![
            (s("packets"), s("1000"), s("limit in packets")),
            (s("bytes"), s("-"), s("limit in bytes (instead of packets)")),
        ],
    };
    let queues = vec![
        queue(
            "droptail",
            "FIFO; arrivals beyond the limit (packets or bytes) are dropped",
            "the classic router queue",
        ),
        queue(
            "dropfront",
            "FIFO; when full, the packet at the head is dropped to admit the arrival",
            "Lakshman, Neidhardt & Ott 1996; Barakat & Altman RR-3620 section 7",
        ),
        CatalogEntry {
            params: vec![
                (s("packets"), s("1000"), s("hard limit in packets (or bytes)")),
                (s("min_th"), s("5"), s("average queue (packets) where early drops start")),
                (s("max_th"), s("15"), s("average queue where the drop probability reaches max_p")),
                (s("max_p"), s("0.1"), s("drop probability at max_th")),
                (s("w_q"), s("0.002"), s("EWMA weight of the average queue")),
                (s("gentle"), s("false"), s("p rises from max_p to 1 between max_th and 2 max_th")),
                (s("ecn"), s("false"), s("mark ECN-capable packets CE instead of early drops (forced drops stay drops)")),
            ],
            ..queue(
                "red",
                "Random Early Detection: early drops with a probability growing with the average queue, spaced by count",
                "Floyd & Jacobson, IEEE/ACM ToN 1993 (figure 2); gentle mode: Floyd 2000; ECN marking as ns-2 queue/red.cc (RFC 3168 section 5)",
            )
        },
        CatalogEntry {
            params: vec![
                (s("packets"), s("1000"), s("hard limit in packets (or bytes)")),
                (s("target"), s("5ms"), s("acceptable standing queue delay")),
                (s("interval"), s("100ms"), s("window over which the delay must stay above target")),
                (s("ecn"), s("false"), s("mark ECN-capable packets CE where the control law drops")),
            ],
            ..queue(
                "codel",
                "Controlled Delay: drops at dequeue once sojourn stays above target for an interval, then at interval/sqrt(count)",
                "RFC 8289 (section 5 pseudocode); ECN marking as Linux include/net/codel_impl.h",
            )
        },
        CatalogEntry {
            params: vec![
                (s("packets"), s("1000"), s("hard limit over all buckets, packets (or bytes); Linux uses 10240")),
                (s("flows"), s("1024"), s("hash buckets")),
                (s("quantum"), s("1514"), s("bytes a bucket sends per deficit round-robin turn")),
                (s("target"), s("5ms"), s("CoDel target, per bucket")),
                (s("interval"), s("100ms"), s("CoDel interval, per bucket")),
                (s("ecn"), s("false"), s("CoDel marks ECN-capable packets CE instead of dropping (Linux default: on)")),
            ],
            ..queue(
                "fq_codel",
                "FlowQueue-CoDel: flows hashed into buckets served by deficit round robin, new flows first, CoDel in each; on overflow the fattest bucket loses its head",
                "RFC 8290 section 4; Linux net/sched/sch_fq_codel.c (one packet dropped per overflow, not up to 64)",
            )
        },
        queue(
            "randomdrop",
            "FIFO; when full, a uniformly chosen queued packet (or the arrival) is dropped",
            "Hashem, MIT LCS TR-465, 1989; Barakat & Altman RR-3620 section 7",
        ),
    ];
    let profiles = tcplab_tcp::profiles()
        .into_iter()
        .map(|p| CatalogEntry {
            name: s(p.name),
            description: s(p.description),
            source: format!(
                "{}{}",
                p.sources,
                if p.notes.is_empty() {
                    String::new()
                } else {
                    format!(". Simplified: {}", p.notes)
                }
            ),
            params: tcp_settings(&p.config),
        })
        .collect();
    Catalog {
        controllers,
        queues,
        profiles,
    }
}

/// Every setting of a host's TCP as `tcplab list` shows it: (name, value,
/// meaning).
pub fn tcp_settings(c: &tcplab_tcp::TcpConfig) -> Vec<(String, String, String)> {
    let s = |x: &str| x.to_string();
    let ms = |t: tcplab_engine::SimTime| format!("{} ms", t.0 / 1_000_000);
    vec![
            (
                s("initial_window"),
                c.initial_window.to_string(),
                s("segments"),
            ),
            (
                s("min_rto"),
                ms(c.min_rto),
                s("minimum retransmission timeout"),
            ),
            (
                s("initial_rto"),
                ms(c.initial_rto),
                s("RTO before the first sample"),
            ),
            (
                s("max_rto"),
                ms(c.max_rto),
                s("maximum retransmission timeout"),
            ),
            (s("delack"), ms(c.delack_timeout), s("delayed-ACK timer")),
            (
                s("delack_segments"),
                c.delack_segments.to_string(),
                s("ACK every N full segments"),
            ),
            (s("recovery"), s(c.recovery.name()), s("loss recovery")),
            (s("sack"), c.sack.to_string(), s("offer SACK")),
            (
                s("timestamps"),
                c.timestamps.to_string(),
                s("offer timestamps"),
            ),
            (
                s("window_scaling"),
                c.window_scaling.to_string(),
                s("offer window scaling"),
            ),
            (s("ecn"), c.ecn.to_string(), s("ECN (RFC 3168)")),
            (s("mss"), c.mss.to_string(), s("MSS option (MTU - 40)")),
            (s("sndbuf"), c.sndbuf.to_string(), s("send buffer, bytes")),
            (
                s("rcvbuf"),
                c.rcvbuf.to_string(),
                s("receive buffer, bytes"),
            ),
            (
                s("ss_ack_limit"),
                c.ss_ack_limit.to_string(),
                s("slow start adds at most this many segments per ACK (0 = no limit)"),
            ),
            (
                s("ca_ack_limit"),
                c.ca_ack_limit.to_string(),
                s("congestion avoidance credits at most this many segments per ACK (0 = no limit)"),
            ),
            (
                s("sack_needs_timestamps"),
                c.sack_needs_timestamps.to_string(),
                s("the sender reads SACK blocks only with timestamps (Linux 2.2.16)"),
            ),
            (
                s("max_ssthresh"),
                c.max_ssthresh.to_string(),
                s("RFC 3742 limited slow start above this window (0 = off)"),
            ),
            (
                s("ns2_lss"),
                c.ns2_lss.to_string(),
                s("limited slow start as ns-2's opencwnd (in congestion avoidance until the first fast retransmit and after timeouts) instead of RFC 3742"),
            ),
            (
                s("dupthresh_frac"),
                c.dupthresh_frac.to_string(),
                s("ns-2 numdupacksFrac_: with SACK, max(3, cwnd / this) duplicate ACKs start a recovery (0 = off)"),
            ),
            (
                s("newreno_rto"),
                s(c.newreno_rto.name()),
                s("NewReno recovery without SACK: the timer restarts on the first partial ACK (impatient, RFC 6582) or on each (slow-but-steady; ns-2 newreno_changes1_ 0, WestwoodNR's default on ns2)"),
            ),
            (
                s("partial_window_deflation"),
                c.partial_deflation.to_string(),
                s("NewReno: a partial ACK deflates the window by what it acknowledges (RFC 6582); false: back to the reduced window (ns-2 partial_window_deflation_ 0, WestwoodNR's default on ns2)"),
            ),
            (
                s("ns2_decrease"),
                c.ns2_decrease.to_string(),
                s("ns-2 slowdown: ssthresh = window/2 on the first decrease, in slow start and on timeouts, whatever the controller"),
            ),
            (
                s("ns2_sack1"),
                c.ns2_sack1.to_string(),
                s("recovery sack runs ns-2's Sack1 recovery (sack1-ns2: its pipe_, scoreboard and timeout rules) instead of RFC 6675's"),
            ),
            (
                s("undo"),
                s(c.undo.name()),
                s("undo spurious reductions: none, rto, all, badrxtwin"),
            ),
            (
                s("handshake"),
                s(c.handshake.name()),
                s("tcp (SYN/SYN-ACK), ns2-syn or none (ns-2 one-way agents)"),
            ),
            (
                s("rto_estimator"),
                s(c.rto_estimator.name()),
                s("RTO computation: rfc6298, ns2 (integer ticks), linux22 (jiffies) or linux (Linux 6.x: rttvar decaying once per round trip, RTO >= SRTT + min_rto)"),
            ),
            (
                s("tcp_tick"),
                ms(c.clock_granularity),
                s("clock granularity (ns-2 tcpTick_, Linux's jiffy)"),
            ),
            (
                s("hz"),
                if c.hz > 0 { c.hz.to_string() } else { s("controller's own") },
                s("kernel tick rate the jiffy-counting controllers take (Cubic, BIC, BBR; CONFIG_HZ)"),
            ),
            (
                s("rtt_sampling"),
                s(c.rtt_sampling.name()),
                s("without timestamps: every-ack (Linux) or timed (one segment per RTT, BSD)"),
            ),
            (
                s("dupthresh"),
                c.dupthresh.to_string(),
                s("duplicate ACKs that start a fast retransmit"),
            ),
            (
                s("partial_ack"),
                s(if c.partial_keep {
                    "keep"
                } else if c.partial_deflation {
                    "deflate"
                } else {
                    "ssthresh"
                }),
                s("NewReno partial ACK: deflate (RFC 6582), ssthresh, or keep (Linux 2.2)"),
            ),
            (
                s("ssthresh_from_window"),
                c.ssthresh_from_window.to_string(),
                s("ssthresh = half of min(cwnd, receive window) (Linux 2.2), not of the flight"),
            ),
            (
                s("ssthresh_from_cwnd"),
                c.ssthresh_from_cwnd.to_string(),
                s("ssthresh = half of cwnd (Linux 3.x-6.x tcp_reno_ssthresh), not of the flight"),
            ),
            (
                s("cc_recovery"),
                c.cc_recovery.to_string(),
                s("the reno controller brings RFC 5681 Reno recovery; false: the host's recovery (Linux)"),
            ),
            (
                s("count_acks"),
                c.count_acks.to_string(),
                s("window growth counts ACKs, not acknowledged segments"),
            ),
            (
                s("buffer_accounting"),
                s(c.buffer_accounting.name()),
                s("plain (rcvbuf is the window), linux22 (half the free buffer, kernel buffers) or linux (Linux 6.x: autotuned up to rcvbuf)"),
            ),
            (
                s("rto_clears_sack"),
                c.rto_clears_sack.to_string(),
                s("every timeout forgets the SACK marks (else only on reneging)"),
            ),
            (
                s("rcvbuf_auto"),
                c.rcvbuf_auto.to_string(),
                s("FreeBSD receive-buffer autosizing from rcvbuf: +16 KiB per bulk round trip up to 2 MiB, with timestamps"),
            ),
            (
                s("host_cache"),
                c.host_cache.to_string(),
                s("FreeBSD host cache: a connection closing after a loss leaves ssthresh for the next one to the same peer"),
            ),
            (
                s("answer_timestamps"),
                c.answer_timestamps.to_string(),
                s("timestamps off, but answered when the opener's SYN offers them (Windows 7)"),
            ),
            (
                s("ack_before_data"),
                c.ack_before_data.to_string(),
                s("the SYN-ACK answered by a pure ACK, the data after it (Linux)"),
            ),
            (
                s("freebsd_sack"),
                c.freebsd_sack.to_string(),
                s("FreeBSD 9.2's SACK recovery: cwnd from one segment, every hole below the highest SACK resent"),
            ),
            (
                s("cum_ack_growth"),
                c.cum_ack_growth.to_string(),
                s("growth counts what the cumulative ACK advances over (FreeBSD), not segments newly SACKed or acknowledged (Linux)"),
            ),
            (
                s("dupack_wrap"),
                c.dupack_wrap.to_string(),
                s("the duplicate-ACK counter wraps here, with Linux 2.2's rules around it (0: never)"),
            ),
            (
                s("ss_ack_limit_rto"),
                c.ss_ack_limit_rto.to_string(),
                s("slow start's per-ACK limit while a timeout's go-back-N resends (FreeBSD: 1); 0: ss_ack_limit"),
            ),
            (
                s("rto_from_head"),
                c.rto_from_head.to_string(),
                s("an ACK rearms the timer from the oldest outstanding segment's send time (Linux 2.2)"),
            ),
            (
                s("rto_holds_new_data"),
                c.rto_holds_new_data.to_string(),
                s("no new data after a timeout until its data is acknowledged (Linux 2.2)"),
            ),
            (
                s("ssthresh_every_rto"),
                c.ssthresh_every_rto.to_string(),
                s("every timeout halves ssthresh from cwnd (FreeBSD), not only the first"),
            ),
            (
                s("prr"),
                c.prr.to_string(),
                s("Proportional Rate Reduction (RFC 6937, Linux tcp_cwnd_reduction) in SACK recovery and CWR"),
            ),
            (
                s("rack"),
                c.rack.to_string(),
                s("RACK time-based loss detection and Linux's RTO arming (RFC 8985)"),
            ),
            (
                s("tlp"),
                c.tlp.to_string(),
                s("tail loss probes (RFC 8985 TLP, Linux tcp_send_loss_probe)"),
            ),
            (
                s("dsack"),
                c.dsack.to_string(),
                s("the receiver reports duplicate segments in D-SACK blocks (RFC 2883)"),
            ),
            (
                s("adaptive_delack"),
                c.adaptive_delack.to_string(),
                s("Linux's delayed ACKs: quick-ACK mode, adaptive timeout (tcp_event_data_recv)"),
            ),
            (
                s("push"),
                c.push.to_string(),
                s("PSH at the end of each application write; a segment with PSH is ACKed at once (Linux 6.6+)"),
            ),
            (
                s("read_latency"),
                format!("{} us", c.read_latency.0 / 1_000),
                s("the receiving application reads in-order data this long after it arrives; the ACK of a second full segment waits for the read (tcp_cleanup_rbuf)"),
            ),
            (
                s("read_jitter"),
                format!("{} us", c.read_jitter.0 / 1_000),
                s("each read is later than read_latency by a random time below this (the scheduler's spread)"),
            ),
            (
                s("read_tail"),
                format!("{}", c.read_tail as f64 / 1e6),
                s("this fraction of the reads comes after read_latency + read_jitter, uniform over read_tail_span (the scheduler's tail)"),
            ),
            (
                s("read_tail_span"),
                format!("{} us", c.read_tail_span.0 / 1_000),
                s("the width of the late reads' law (read_tail)"),
            ),
            (
                s("sack_timer_latency"),
                format!("{} us", c.sack_timer_latency.0 / 1_000),
                s("the SACK-compression timer fires this long after its hard expiry (the machine's softirq lateness)"),
            ),
            (
                s("sack_timer_jitter"),
                format!("{} us", c.sack_timer_jitter.0 / 1_000),
                s("each firing is later than sack_timer_latency by a random time below this (the softirq's spread)"),
            ),
            (
                s("timer_wheel"),
                c.timer_wheel.to_string(),
                s("the retransmission and delayed-ACK timers fire at the end of their Linux timer-wheel bucket"),
            ),
            (
                s("sack_compression"),
                c.sack_compression.to_string(),
                s("after three duplicate ACKs, out-of-order data is ACKed on a timer of min(1 ms, RTT/20) + 100 us (Linux SACK compression)"),
            ),
            (
                s("frto"),
                c.frto.to_string(),
                s("F-RTO: new data after a timeout tells a spurious one, which is undone (RFC 5682)"),
            ),
            (
                s("linux_pacing"),
                c.linux_pacing.to_string(),
                s("pacing as Linux's internal pacing: data bytes, lateness credit (tcp_update_skb_after_send)"),
            ),
            (
                s("linux_enter_loss"),
                c.linux_enter_loss.to_string(),
                s("a timeout in a recovery keeps its ssthresh and undo state; set_state(Loss) at every timeout (tcp_enter_loss)"),
            ),
            (
                s("gso_bursts"),
                c.gso_bursts.to_string(),
                s("paced segments leave in TSO/GSO bursts of tcp_tso_segs (tcp_write_xmit)"),
            ),
            (
                s("tso_defer"),
                c.tso_defer.to_string(),
                s("less than a full TSO/GSO skb of room waits for the next ACK (tcp_tso_should_defer)"),
            ),
            (
                s("mem_limit"),
                c.mem_limit.to_string(),
                s("bytes held out of order before the queue is dropped (0 = no limit)"),
            ),
            (
                s("window"),
                c.window.to_string(),
                s("ns-2 window_: at most min(cwnd, window) outstanding (0 = off)"),
            ),
            (
                s("max_cwnd"),
                c.max_cwnd.to_string(),
                s("ns-2 maxcwnd_: cap on cwnd (0 = none)"),
            ),
            (
                s("cwnd_limited_growth"),
                c.cwnd_limited_growth.to_string(),
                s("cwnd grows only while it limits sending (Linux); false: on every ACK (ns-2)"),
            ),
            (s("cc"), s(c.default_cc), s("default congestion controller")),
    ]
}

/// The crate version.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
