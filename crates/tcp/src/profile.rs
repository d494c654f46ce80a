//! Host profiles: the stack defaults that differ between operating systems, so
//! that a scenario can say "a FreeBSD 9.2 server and a Windows 7 client".
//!
//! Every value names its source. Where a real stack's mechanism is richer than
//! what is modelled (Linux's adaptive delayed-ACK timeout and quick-ACK mode,
//! Linux's RTO variance estimator), the profile keeps the constant that governs
//! steady state and the deviation is listed in `notes`.

use tcplab_engine::SimTime;

/// Loss-recovery algorithm of the stack.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recovery {
    /// RFC 6675 SACK-based recovery when SACK is negotiated, else NewReno.
    Sack,
    /// RFC 6582 NewReno, ignoring SACK information.
    NewReno,
    /// RFC 5681 Reno: fast recovery ends at the first new ACK.
    Reno,
    /// 4.3BSD Tahoe: fast retransmit, then slow start from one segment.
    Tahoe,
    /// Tahoe as ns-2's `Agent/TCP` (tcp.cc, `bugfix_` on): after a fast
    /// retransmit, slow start from one segment going back N from the lost one;
    /// no new fast retransmit until the data outstanding at the loss is acknowledged.
    TahoeNs2,
}

impl Recovery {
    /// Name as written in scenario files.
    pub fn name(self) -> &'static str {
        match self {
            Recovery::Sack => "sack",
            Recovery::NewReno => "newreno",
            Recovery::Reno => "reno",
            Recovery::Tahoe => "tahoe",
            Recovery::TahoeNs2 => "tahoe-ns2",
        }
    }
    /// Parse a scenario name.
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "sack" => Recovery::Sack,
            "newreno" => Recovery::NewReno,
            "reno" => Recovery::Reno,
            "tahoe" => Recovery::Tahoe,
            "tahoe-ns2" => Recovery::TahoeNs2,
            _ => return None,
        })
    }
}

/// The TCP settings of one host. A profile provides defaults; a scenario may
/// override any field per host.
#[derive(Clone, Debug, PartialEq)]
pub struct TcpConfig {
    /// Initial congestion window, segments.
    pub initial_window: u32,
    /// Minimum retransmission timeout.
    pub min_rto: SimTime,
    /// Maximum retransmission timeout.
    pub max_rto: SimTime,
    /// RTO before any RTT sample (RFC 6298: 1 s).
    pub initial_rto: SimTime,
    /// Clock granularity G of RFC 6298.
    pub clock_granularity: SimTime,
    /// Floor of the RTO's variance term (Linux: RTO = SRTT + max(4 RTTVAR, 200 ms)).
    pub rto_var_floor: SimTime,
    /// Added to every RTO (FreeBSD's tcp_rexmit_slop).
    pub rto_slop: SimTime,
    /// Delayed-ACK timeout; zero disables delayed ACKs (ACK every segment).
    pub delack_timeout: SimTime,
    /// ACK at least every this many full-sized segments.
    pub delack_segments: u32,
    /// Loss recovery of the stack.
    pub recovery: Recovery,
    /// Offer SACK (RFC 2018).
    pub sack: bool,
    /// Offer timestamps (RFC 7323).
    pub timestamps: bool,
    /// Offer window scaling (RFC 7323).
    pub window_scaling: bool,
    /// Use ECN (RFC 3168): ask for it on SYNs, accept it on SYN-ACKs.
    pub ecn: bool,
    /// MSS announced on SYNs (MTU - 40).
    pub mss: u32,
    /// Send socket buffer, bytes: limits unacknowledged data.
    pub sndbuf: u64,
    /// Receive socket buffer, bytes: the advertised window.
    pub rcvbuf: u64,
    /// Duplicate ACK threshold.
    pub dupthresh: u32,
    /// RFC 3742 limited slow start above this window, segments (0 = off).
    pub max_ssthresh: u32,
    /// Slow start adds at most this many segments per ACK, however many it
    /// acknowledges (RFC 5681 §3.1: 1; RFC 3465 ABC: L = 2; 0 = no limit, as
    /// Linux's `tcp_slow_start`).
    pub ss_ack_limit: u32,
    /// Which spurious reductions are undone (Eifel detection with timestamps).
    pub undo: Undo,
    /// Congestion controller used when the scenario names none.
    pub default_cc: &'static str,
}

/// Undo of window reductions found spurious (RFC 3522 Eifel detection: the ACK
/// echoes a timestamp older than the first retransmission, so the original got
/// through), as Linux's `tcp_try_undo_recovery` / `tcp_try_undo_loss`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Undo {
    /// Never undo.
    None,
    /// Undo spurious timeouts only.
    Rto,
    /// Undo spurious timeouts and fast recoveries.
    All,
}

impl Undo {
    /// Name as written in scenario files.
    pub fn name(self) -> &'static str {
        match self {
            Undo::None => "none",
            Undo::Rto => "rto",
            Undo::All => "all",
        }
    }
    /// Parse a scenario name.
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "none" => Undo::None,
            "rto" => Undo::Rto,
            "all" => Undo::All,
            _ => return None,
        })
    }
}

/// A named profile with its documentation.
#[derive(Clone, Debug)]
pub struct Profile {
    /// Name used in scenario files.
    pub name: &'static str,
    /// What system it models.
    pub description: &'static str,
    /// The defaults.
    pub config: TcpConfig,
    /// Where each value comes from.
    pub sources: &'static str,
    /// What is simplified.
    pub notes: &'static str,
}

const MS: u64 = 1_000_000;

fn base() -> TcpConfig {
    TcpConfig {
        initial_window: 3,
        min_rto: SimTime(1000 * MS),
        max_rto: SimTime(60_000 * MS),
        initial_rto: SimTime(1000 * MS),
        clock_granularity: SimTime(MS),
        rto_var_floor: SimTime::ZERO,
        rto_slop: SimTime::ZERO,
        delack_timeout: SimTime(200 * MS),
        delack_segments: 2,
        recovery: Recovery::Sack,
        sack: true,
        timestamps: true,
        window_scaling: true,
        ecn: false,
        mss: 1460,
        sndbuf: 4 << 20,
        rcvbuf: 4 << 20,
        dupthresh: 3,
        max_ssthresh: 0,
        ss_ack_limit: 1,
        undo: Undo::None,
        default_cc: "newreno",
    }
}

/// All profiles.
pub fn profiles() -> Vec<Profile> {
    vec![
        Profile {
            name: "rfc",
            description: "The IETF standards track, nothing more",
            config: base(),
            sources: "IW: RFC 3390 min(4*MSS, max(2*MSS, 4380 B)) = 3 segments of 1448 B; \
                      RTO: RFC 6298 (initial 1 s, minimum 1 s, maximum 60 s); delayed ACK: \
                      RFC 1122/5681 (every 2nd segment, 200 ms, below the 500 ms limit); \
                      recovery: RFC 6675 with SACK, RFC 6582 otherwise; controller: RFC 5681 NewReno; \
                      slow start adds at most one segment per ACK (RFC 5681 §3.1, as ns-2)",
            notes: "",
        },
        Profile {
            name: "linux",
            description: "Linux 3.x-6.x defaults",
            config: TcpConfig {
                initial_window: 10,
                min_rto: SimTime(200 * MS),
                rto_var_floor: SimTime(200 * MS),
                max_rto: SimTime(120_000 * MS),
                delack_timeout: SimTime(40 * MS),
                ss_ack_limit: 0,
                undo: Undo::All,
                default_cc: "cubic",
                ..base()
            },
            sources: "IW 10: RFC 6928, include/net/tcp.h TCP_INIT_CWND; TCP_RTO_MIN 200 ms, \
                      TCP_RTO_MAX 120 s, TCP_DELACK_MIN 40 ms (include/net/tcp.h); RTO = SRTT + \
                      max(4 RTTVAR, TCP_RTO_MIN) (tcp_rtt_estimator's mdev_max floor); SACK, \
                      timestamps, window scaling on (net.ipv4.tcp_sack, tcp_timestamps, \
                      tcp_window_scaling = 1); default controller cubic since 2.6.19; slow start \
                      adds every acknowledged segment (tcp_slow_start); undo of spurious recoveries and \
                      timeouts (tcp_try_undo_recovery, tcp_try_undo_loss)",
            notes: "delayed-ACK timeout fixed at TCP_DELACK_MIN (Linux adapts ATO and starts \
                    in quick-ACK mode); RTO by RFC 6298 with Linux's 200 ms variance floor; \
                    no PRR yet (RFC 6675 recovery); undo detects spurious retransmissions \
                    with timestamps only (no DSACK); ECN off unless the host sets it (Linux's \
                    default net.ipv4.tcp_ecn = 2 accepts ECN on incoming connections without \
                    asking for it on outgoing ones)",
        },
        Profile {
            name: "freebsd",
            description: "FreeBSD 9.2 defaults (the braud2016 testbed)",
            config: TcpConfig {
                initial_window: 3,
                min_rto: SimTime(30 * MS),
                rto_slop: SimTime(200 * MS),
                max_rto: SimTime(64_000 * MS),
                delack_timeout: SimTime(100 * MS),
                ss_ack_limit: 2,
                undo: Undo::Rto,
                default_cc: "newreno",
                ..base()
            },
            sources: "IW: net.inet.tcp.rfc3390=1 (RFC 3390, 3 segments), initcwnd10 off in 9.x; \
                      net.inet.tcp.rexmit_min 30 ms and rexmit_slop 200 ms added to every RTO \
                      (TCPT_RANGESET, TCPTV_CPU_VAR); TCPTV_REXMTMAX 64 s (sys/netinet/tcp_timer.h); \
                      net.inet.tcp.delacktime 100 ms; net.inet.tcp.sack.enable=1, rfc1323=1; \
                      net.inet.tcp.cc.algorithm newreno; ABC with net.inet.tcp.abc_l_var = 2 \
                      (newreno_ack_received); bad-retransmit undo of \
                      timeouts (tcp_input.c CC_RTO_ERR)",
            notes: "RTO by RFC 6298 plus FreeBSD's slop rather than its fixed-point srtt/rttvar; \
                    bad-retransmit detection by timestamps (Eifel) rather than FreeBSD's \
                    time window",
        },
        Profile {
            name: "windows",
            description: "Windows 7 / Server 2008 R2 defaults with Compound TCP",
            config: TcpConfig {
                initial_window: 2,
                min_rto: SimTime(300 * MS),
                max_rto: SimTime(60_000 * MS),
                initial_rto: SimTime(3000 * MS),
                delack_timeout: SimTime(200 * MS),
                timestamps: false,
                ss_ack_limit: 0,
                undo: Undo::Rto,
                default_cc: "compound",
                ..base()
            },
            sources: "IW 2 segments (Windows 7 / 2008 R2; InitialCongestionWindowMss came with \
                      later releases); MinRto 300 ms and initial RTO 3 s (netsh int tcp show \
                      global/supplemental); TcpDelAckTicks 2 = 200 ms; SACK on, timestamps off \
                      by default (Tcp1323Opts = 0 for timestamps), receive-window auto-tuning \
                      with scaling; congestionprovider=ctcp as the study configured it; \
                      F-RTO (RFC 5682) undoes spurious timeouts",
            notes: "Windows 7 clients ship with congestionprovider=none (NewReno); Compound is \
                    its default on servers and what braud2016 enabled; F-RTO modelled as \
                    Eifel undo of timeouts (Windows sends no timestamps by default, so it \
                    rarely applies); no source found for a slow-start limit per ACK, so \
                    every acknowledged segment counts, as in Linux",
        },
    ]
}

/// Look a profile up by name.
pub fn profile(name: &str) -> Option<Profile> {
    profiles().into_iter().find(|p| p.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc_initial_window_is_rfc3390_for_a_1448_byte_mss() {
        // RFC 3390: min(4*MSS, max(2*MSS, 4380)); MSS 1448: min(5792, 4380) = 4380 B = 3 segments.
        let mss = 1448u32;
        let iw_bytes = (4 * mss).min((2 * mss).max(4380));
        assert_eq!(
            iw_bytes / mss,
            profile("rfc").unwrap().config.initial_window
        );
    }

    #[test]
    fn every_profile_is_found_by_name() {
        for p in profiles() {
            assert_eq!(profile(p.name).unwrap().name, p.name);
            assert!(!p.sources.is_empty());
        }
        assert!(profile("beos").is_none());
    }
}
