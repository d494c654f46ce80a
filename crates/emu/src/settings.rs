//! What of a scenario the real stack can do, and how: each host's settings
//! mapped to sysctls of its namespace, route attributes and socket options,
//! the controllers mapped to kernel modules, and a note for every setting
//! that has no Linux knob (the kernel then does what Linux does).

use crate::netns::HostSetup;
use crate::BackendError;
use tcplab_engine::SimTime;
use tcplab_model::schema::Scenario;

/// A host as the backend will set it up.
#[derive(Clone, Debug)]
pub struct HostPlan {
    /// Namespace set-up.
    pub setup: HostSetup,
    /// The kernel's name of its controller.
    pub cc: String,
    /// `SO_SNDBUF` / `SO_RCVBUF` when the scenario sets them (else the
    /// kernel's autotuning, as a Linux host has by default).
    pub sndbuf: Option<u64>,
    /// See `sndbuf`.
    pub rcvbuf: Option<u64>,
}

/// The plan of a run.
#[derive(Clone, Debug)]
pub struct Plan {
    /// Per host, in node order.
    pub hosts: Vec<HostPlan>,
    /// Settings not applied, and other facts for the run's metadata.
    pub notes: Vec<String>,
}

/// The kernel module of a simulated controller, if Linux has one.
pub fn kernel_cc(name: &str) -> Option<&'static str> {
    Some(match name {
        // Linux's reno is New Reno loss recovery (RFC 6582, RFC 6675 with
        // SACK) with the Reno window rules, whatever the controller.
        "reno" | "newreno" => "reno",
        "cubic" => "cubic",
        "bic" => "bic",
        "bbr" => "bbr",
        "vegas" => "vegas",
        "westwood" => "westwood",
        "htcp" => "htcp",
        "highspeed" => "highspeed",
        "scalable" => "scalable",
        "hybla" => "hybla",
        "veno" => "veno",
        "illinois" => "illinois",
        _ => return None,
    })
}

/// The controllers this kernel offers (`tcp_available_congestion_control`).
pub fn available_ccs() -> Vec<String> {
    std::fs::read_to_string("/proc/sys/net/ipv4/tcp_available_congestion_control")
        .map(|s| s.split_whitespace().map(str::to_string).collect())
        .unwrap_or_default()
}

/// The running kernel's release.
pub fn kernel_release() -> String {
    std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|_| "unknown".into())
}

fn sysctl_exists(key: &str) -> bool {
    std::path::Path::new(&format!("/proc/sys/{}", key.replace('.', "/"))).exists()
}

/// Settings the backend applies itself (the others are compared with the
/// `linux` profile and noted when they differ).
const APPLIED: &[&str] = &[
    "gso_bursts",
    "initial_window",
    "min_rto",
    "max_rto",
    "sack",
    "timestamps",
    "window_scaling",
    "ecn",
    "mss",
    "sndbuf",
    "rcvbuf",
    "cc",
    "delack_segments",
    "sack_compression",
];

/// Check the scenario against the backend and this machine, and plan it.
pub fn check(sc: &Scenario) -> Result<Plan, BackendError> {
    let err = |m: String| Err(BackendError(m));
    if crate::sys::geteuid() != 0 {
        return err(
            "the linux backend needs root: it creates a network namespace per host and TUN \
             devices (run as root, or use the simulator: --backend sim)"
                .into(),
        );
    }
    if !std::path::Path::new("/dev/net/tun").exists() {
        return err("the linux backend needs /dev/net/tun (the tun kernel module)".into());
    }
    let linux = tcplab_tcp::profile("linux").expect("the linux profile exists");
    let linux_settings = tcplab_model::tcp_settings(&linux.config);
    let available = available_ccs();
    let mut notes = vec![format!(
        "real stack: Linux {} through tcplab's link emulator",
        kernel_release()
    )];
    let mut hosts = Vec::with_capacity(sc.hosts.len());
    for (n, h) in sc.hosts.iter().enumerate() {
        let c = &h.tcp;
        if !h.stage.is_free() {
            return err(format!(
                "host {}: bus_rate, packet_cost, rx_latency, tx_queue, rx_queue and tx_jitter \
                 model a host's own hardware and timing; the linux backend cannot impose them \
                 on real sockets (remove them or use the simulator)",
                h.name
            ));
        }
        if c.read_latency > SimTime::ZERO || c.read_jitter > SimTime::ZERO || c.read_tail > 0 {
            return err(format!(
                "host {}: read_latency = {} us, read_jitter = {} us, read_tail = {} model how \
                 late the receiving application wakes on a simulated host; on the linux backend \
                 the real application and scheduler decide (remove them or use the simulator)",
                h.name,
                c.read_latency.0 / 1_000,
                c.read_jitter.0 / 1_000,
                c.read_tail as f64 / 1e6
            ));
        }
        if c.sack_timer_latency > SimTime::ZERO || c.sack_timer_jitter > SimTime::ZERO {
            return err(format!(
                "host {}: sack_timer_latency = {} us, sack_timer_jitter = {} us model how late \
                 a simulated host's SACK-compression timer fires; on the linux backend the real \
                 kernel's timer fires (remove them or use the simulator)",
                h.name,
                c.sack_timer_latency.0 / 1_000,
                c.sack_timer_jitter.0 / 1_000
            ));
        }
        if c.handshake.one_way() {
            return err(format!(
                "host {}: handshake = \"{}\" is ns-2's one-way agent, which has no real \
                 counterpart; the linux backend needs handshake = \"tcp\"",
                h.name,
                c.handshake.name()
            ));
        }
        let Some(kcc) = kernel_cc(&h.cc) else {
            return err(format!(
                "host {}: controller {} has no Linux module; this kernel offers: {}",
                h.name,
                h.cc,
                available.join(", ")
            ));
        };
        if !available.iter().any(|a| a == kcc) {
            // A module may be loadable; ask modprobe once, quietly.
            let _ = std::process::Command::new("modprobe")
                .arg(format!("tcp_{kcc}"))
                .output();
            if !available_ccs().iter().any(|a| a == kcc) {
                return err(format!(
                    "host {}: controller {} (Linux module tcp_{kcc}) is not in this kernel; \
                     it offers: {}",
                    h.name,
                    h.cc,
                    available.join(", ")
                ));
            }
        }
        let b = |v: bool| if v { "1" } else { "0" }.to_string();
        let mut sysctls = vec![
            ("net.ipv4.tcp_sack".to_string(), b(c.sack)),
            ("net.ipv4.tcp_timestamps".to_string(), b(c.timestamps)),
            (
                "net.ipv4.tcp_window_scaling".to_string(),
                b(c.window_scaling),
            ),
            ("net.ipv4.tcp_ecn".to_string(), b(c.ecn)),
            // Each connection starts afresh, as in the simulator.
            ("net.ipv4.tcp_no_metrics_save".to_string(), "1".to_string()),
        ];
        // tcp_comp_sack_nr = 0 turns SACK compression off (Linux 4.19+);
        // the timer is pinned to the model's, min(1 ms, RTT / 20) + 100 us
        // (Linux 6.18's defaults; later kernels add tcp_comp_sack_rtt_percent,
        // whose 5 gives RTT / 20, and lower the slack to 10 us).
        if sysctl_exists("net.ipv4.tcp_comp_sack_nr") {
            let nr = if c.sack_compression { "44" } else { "0" };
            sysctls.push(("net.ipv4.tcp_comp_sack_nr".into(), nr.into()));
            for (k, v) in [
                ("net.ipv4.tcp_comp_sack_delay_ns", "1000000"),
                ("net.ipv4.tcp_comp_sack_slack_ns", "100000"),
                ("net.ipv4.tcp_comp_sack_rtt_percent", "5"),
            ] {
                if sysctl_exists(k) {
                    sysctls.push((k.into(), v.into()));
                }
            }
        } else if c.sack_compression {
            notes.push(format!(
                "host {}: sack_compression not applied (this kernel has no tcp_comp_sack_nr, \
                 so no SACK compression)",
                h.name
            ));
        }
        let mut route = vec!["initcwnd".to_string(), c.initial_window.to_string()];
        let min_rto_us = c.min_rto.0 / 1000;
        if sysctl_exists("net.ipv4.tcp_rto_min_us") {
            sysctls.push(("net.ipv4.tcp_rto_min_us".into(), min_rto_us.to_string()));
        } else {
            route.extend([
                "rto_min".to_string(),
                format!("{}ms", c.min_rto.0 / 1_000_000),
            ]);
        }
        if sysctl_exists("net.ipv4.tcp_rto_max_ms") {
            sysctls.push((
                "net.ipv4.tcp_rto_max_ms".into(),
                (c.max_rto.0 / 1_000_000).clamp(1000, 120_000).to_string(),
            ));
        } else if c.max_rto != linux.config.max_rto {
            notes.push(format!(
                "host {}: max_rto = {} ms not applied (this kernel has no tcp_rto_max_ms; it uses 120 s)",
                h.name,
                c.max_rto.0 / 1_000_000
            ));
        }
        if c.delack_segments == 1 {
            route.extend(["quickack".to_string(), "1".to_string()]);
        }
        let explicit = |v: u64, d: u64| (v != d).then_some(v);
        let plan = HostPlan {
            setup: HostSetup {
                name: h.name.clone(),
                node: n as u32,
                mtu: c.mss + 40,
                sysctls,
                route,
                // gso_bursts = false: one segment per skb, as the simulator
                // then paces (tcp_tso_segs is capped by sk_gso_max_segs).
                gso_max_segs: (!c.gso_bursts).then_some(1),
            },
            cc: kcc.to_string(),
            sndbuf: explicit(c.sndbuf, linux.config.sndbuf),
            rcvbuf: explicit(c.rcvbuf, linux.config.rcvbuf),
        };
        // Every other setting: the kernel does what Linux does.
        let mine = tcplab_model::tcp_settings(c);
        let mut differ = Vec::new();
        for ((name, value, _), (_, lvalue, _)) in mine.iter().zip(&linux_settings) {
            if !APPLIED.contains(&name.as_str()) && value != lvalue {
                differ.push(format!("{name} = {value} (Linux: {lvalue})"));
            }
        }
        if c.delack_segments > 2 {
            differ.push(format!(
                "delack_segments = {} (Linux ACKs every 2 full segments)",
                c.delack_segments
            ));
        }
        if !differ.is_empty() {
            notes.push(format!(
                "host {} (profile {}): not applied, the real stack behaves as Linux: {}",
                h.name,
                h.profile,
                differ.join(", ")
            ));
        }
        if !c.gso_bursts {
            notes.push(format!(
                "host {}: one segment per GSO skb (gso_max_segs 1 on its device), as gso_bursts = false",
                h.name
            ));
        }
        // The tick the profile gave the controller is the kernel's own.
        let given = h
            .cc_params
            .iter()
            .filter(|(k, v)| !(k.as_str() == "hz" && **v == c.hz as f64))
            .count();
        if given > 0 {
            notes.push(format!(
                "host {}: controller parameters not applied (the kernel module's defaults)",
                h.name
            ));
        }
        if h.cc == "newreno" {
            notes.push(format!(
                "host {}: newreno runs as Linux's reno (New Reno recovery is the stack's, not the controller's)",
                h.name
            ));
        }
        hosts.push(plan);
    }
    notes.push(
        "rtt columns: the smoothed RTT (tcpi_rtt) sampled every 10 ms, not every ACK's sample"
            .into(),
    );
    Ok(Plan { hosts, notes })
}
