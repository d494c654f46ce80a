//! Host profiles: the stack defaults that differ between operating systems, so
//! that a scenario can say "a FreeBSD 9.2 server and a Windows 7 client".
//!
//! Every value names its source. Where a real stack's mechanism is richer than
//! what is modelled (Windows' and FreeBSD's delayed-ACK timers, Linux's receive
//! buffer autotuning), the profile keeps the constant that governs steady
//! state and the deviation is listed in `notes`.

use crate::rtt::{RtoEstimator, RttSampling};
use tcplab_engine::SimTime;

/// How a connection opens, and with it what kind of agent the host runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Handshake {
    /// A kernel stack: SYN, SYN-ACK, ACK negotiating MSS, SACK, timestamps and
    /// window scale; FIN at the end; header sizes from the option layout.
    Tcp,
    /// ns-2's one-way `Agent/TCP` with `syn_` and `delay_growth_` true (the
    /// default since 2001): a 40-byte packet with no data first, cwnd 1; its ACK
    /// sets cwnd to the initial window (tcp.cc `output`, `set_initial_window`, `recv`).
    Ns2Syn,
    /// ns-2's one-way agent with `syn_` false (ns-2 before 2001/05/17): data
    /// leaves at the start time with the initial window.
    None,
}

impl Handshake {
    /// Name as written in scenario files.
    pub fn name(self) -> &'static str {
        match self {
            Handshake::Tcp => "tcp",
            Handshake::Ns2Syn => "ns2-syn",
            Handshake::None => "none",
        }
    }
    /// Parse a scenario name.
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "tcp" => Handshake::Tcp,
            "ns2-syn" => Handshake::Ns2Syn,
            "none" => Handshake::None,
            _ => return None,
        })
    }
    /// Whether the host is an ns-2 one-way agent (or sink): nothing negotiated
    /// (SACK and timestamps as configured), no FIN, ACKs carry no window, and
    /// packets have ns-2's sizes (payload `mss` + 40 bytes, +10 with
    /// timestamps; ACKs 40 bytes + 8 per SACK block).
    pub fn one_way(self) -> bool {
        self != Handshake::Tcp
    }
}

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
    /// ns-2's one-way `Agent/TCP/Sack1` (tcp-sack1.cc, recovery/sack1.rs):
    /// its `pipe_`, which never counts a lost packet as gone, its
    /// scoreboard, forgotten on timeouts and new ACKs, and go-back-N after
    /// a timeout; NewReno when SACK is off.
    Sack1Ns2,
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
            Recovery::Sack1Ns2 => "sack1-ns2",
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
            "sack1-ns2" => Recovery::Sack1Ns2,
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
    /// ns-2's `numdupacksFrac_` (tcp.cc `numdupacks`, used by tcp-sack1.cc
    /// `recv`): with SACK recovery the threshold is max(`dupthresh`,
    /// floor(cwnd) / this); 0 = off.
    pub dupthresh_frac: u32,
    /// NewReno recovery (without SACK): when a partial ACK restarts the
    /// retransmission timer.
    pub newreno_rto: NewRenoRto,
    /// NewReno recovery (without SACK): a partial ACK deflates the window by
    /// the amount it acknowledges and adds one segment (RFC 6582 (5); ns-2
    /// `partial_window_deflation_` 1); false: it drops all the inflation, back
    /// to ssthresh (ns-2 `partial_window_deflation_` 0: `dupwnd_` = 0).
    pub partial_deflation: bool,
    /// NewReno recovery (without SACK): a partial ACK leaves cwnd as it is,
    /// inflation included (Linux 2.2 tcp_fast_retrans, "Hoe style": the
    /// window keeps growing with the duplicate ACKs); overrides
    /// `partial_deflation`.
    pub partial_keep: bool,
    /// ssthresh at a loss is half of min(cwnd, receive window in segments)
    /// (Linux 2.2 `tcp_recalc_ssthresh`) instead of half the flight.
    pub ssthresh_from_window: bool,
    /// ssthresh at a loss is half of cwnd, whatever is in flight (Linux
    /// 3.x-6.x: `tcp_reno_ssthresh` and Cubic's `bictcp_recalc_ssthresh`
    /// read `tp->snd_cwnd`); overrides `ssthresh_from_window`.
    pub ssthresh_from_cwnd: bool,
    /// The `reno` controller brings RFC 5681 Reno recovery (fast recovery
    /// ends at the first new ACK, SACK ignored). Off: `reno` is only a
    /// window rule and the host's `recovery` applies (Linux, where
    /// `tcp_reno` is `tcp_congestion_ops` and loss recovery is the stack's).
    /// Tahoe brings its recovery either way.
    pub cc_recovery: bool,
    /// Window growth counts ACKs, not acknowledged segments: one step per
    /// ACK in slow start, one segment per cwnd+1 ACKs after (Linux 2.2
    /// `tcp_cong_avoid`).
    pub count_acks: bool,
    /// How socket buffers turn into windows and send limits.
    pub buffer_accounting: BufferAccounting,
    /// A timeout forgets every SACK (Linux 2.2 tcp_retransmit_timer, RFC
    /// 2018's reneging caution) instead of only when reneging shows.
    pub rto_clears_sack: bool,
    /// FreeBSD's receive-buffer autosizing (tcp_input.c, `tcp_do_autorcvbuf`):
    /// `rcvbuf` is the starting size, grown by 16 KiB
    /// (`tcp_autorcvbuf_inc`) up to 2 MiB (`tcp_autorcvbuf_max`) when the
    /// in-order data received over one round trip, timed by the timestamp
    /// echo, passes 7/8 of it; without timestamps it never grows.
    pub rcvbuf_auto: bool,
    /// FreeBSD's host cache (`tcp_hostcache`, see [`crate::hostcache`]): a
    /// connection that closes after a loss leaves its ssthresh for the
    /// next connection from this host to the same peer, which starts from it.
    pub host_cache: bool,
    /// With `timestamps` off: still answer a SYN that offers timestamps, so
    /// that the connection uses them (Windows 7, whose SYN+ACKs carry the
    /// option when the peer's SYN does: p0f 3's fingerprints). tcplab's
    /// connections are opened by the data sender, so this is the receiving
    /// host's answer.
    pub answer_timestamps: bool,
    /// The opener answers the SYN-ACK with a pure ACK and sends its data
    /// after it, as an application that writes once `connect()` has returned
    /// sees it (Linux: `tcp_rcv_synsent_state_process` calls `tcp_send_ack`
    /// unless a writer was already waiting). Off: the first data segment
    /// carries the ACK.
    pub ack_before_data: bool,
    /// FreeBSD 9.2's SACK loss recovery in place of RFC 6675 (tcp_input.c,
    /// tcp_output.c, tcp_sack.c): every duplicate ACK counts, the third
    /// starts it; cwnd = one segment, +1 per duplicate ACK while what is in
    /// flight is below ssthresh; every hole below the highest SACK is resent
    /// (below the recovery point); new data and retransmissions of the
    /// recovery together stay within cwnd; a partial ACK sets cwnd to them
    /// plus one or two segments; the full ACK to the flight plus one when
    /// below ssthresh.
    pub freebsd_sack: bool,
    /// Window growth counts the segments the cumulative ACK advances over
    /// (SACKed before or not: FreeBSD's `BYTES_THIS_ACK` in
    /// `cc_ack_received`), not the segments newly delivered, SACKed or
    /// acknowledged (Linux's `acked_sacked`).
    pub cum_ack_growth: bool,
    /// The duplicate-ACK counter wraps at this value (0: never). Linux 2.2's
    /// `__u8 dup_acks` (256), with its rules: never cleared by a partial
    /// ACK; a partial ACK resends the next hole only if it is at least 3,
    /// a duplicate ACK inflates cwnd only if it passes 3, the ACK ending
    /// the recovery deflates to ssthresh only if it is above 3
    /// (tcp_input.c `tcp_fast_retrans`, `clear_fast_retransmit`).
    pub dupack_wrap: u32,
    /// Slow start's per-ACK limit while a timeout's go-back-N is still
    /// resending (FreeBSD `newreno_ack_received`: one segment while
    /// `snd_nxt != snd_max`, "must not use abc_l_var > 1 if slow starting
    /// after an RTO"); 0: `ss_ack_limit` throughout.
    pub ss_ack_limit_rto: u32,
    /// The retransmission timer, rearmed by an ACK of new data, runs from
    /// the oldest outstanding segment's transmission, not from now (Linux
    /// 2.2 `tcp_ack_packets_out`: rto - its age, at least one tick).
    pub rto_from_head: bool,
    /// After a timeout no new data leaves until everything outstanding at
    /// the timeout is acknowledged (Linux 2.2 `tcp_snd_test`:
    /// `tp->retransmits == 0`).
    pub rto_holds_new_data: bool,
    /// Every timeout, not only the first of a backoff series, sets ssthresh
    /// = max(cwnd/2, 2) segments (FreeBSD tcp_input.c `cc_cong_signal`,
    /// `CC_RTO`: 2 after the second timeout, cwnd being 1); off: held on
    /// later backoffs (RFC 5681 (4)).
    pub ssthresh_every_rto: bool,
    /// Timeouts as Linux's `tcp_enter_loss` (tcp_input.c): ssthresh, the
    /// undo state and `CA_EVENT_LOSS` are taken only when the timeout does
    /// not interrupt a reduction still under way (state Open or Disorder;
    /// snd_una at or past `high_seq`; or Loss after snd_una advanced since
    /// the last timeout, `icsk_retransmits` 0), so a timeout in a fast
    /// recovery keeps the recovery's ssthresh; and the controller's
    /// `set_state(Loss)` runs at every timeout (`tcp_set_ca_state` calls it
    /// unconditionally: BBR's `bbr_set_state`, Cubic's `bictcp_reset`).
    /// Off: the first timeout of a backoff series reduces (RFC 5681 (4)),
    /// and `set_state` runs on a change of state only.
    pub linux_enter_loss: bool,
    /// Proportional Rate Reduction (RFC 6937, Linux `tcp_cwnd_reduction`) in
    /// SACK recovery and ECN's CWR: cwnd comes down to ssthresh over the
    /// recovery round trip instead of at once.
    pub prr: bool,
    /// RACK loss detection (RFC 8985, Linux tcp_recovery.c) instead of RFC
    /// 6675's duplicate-ACK count on SACK connections: a segment is lost one
    /// RTT (plus a reordering window) after a later-sent one was delivered,
    /// lost retransmissions included; the reordering timer; the RTO as
    /// Linux arms it (resending the oldest segment restarts it; after a
    /// timeout, segments sent within the last RTT are not presumed lost).
    pub rack: bool,
    /// Tail loss probes (RFC 8985 TLP, Linux `tcp_schedule_loss_probe`,
    /// `tcp_send_loss_probe`) on SACK connections: with no ACK for about
    /// two SRTT, send one new segment, or the last one again, so that a
    /// tail loss is found by SACK instead of a timeout.
    pub tlp: bool,
    /// D-SACK (RFC 2883): the receiver reports duplicate segments in D-SACK
    /// blocks (Linux `tcp_dsack_set`, net.ipv4.tcp_dsack); the sender counts
    /// the retransmissions they show needless and undoes a reduction when
    /// all were (`tcp_try_undo_dsack`, `tcp_may_undo`).
    pub dsack: bool,
    /// Linux's delayed-ACK policy (delack.rs): quick ACKs for the first
    /// segments, after an idle gap and after duplicates, and an adaptive
    /// delayed-ACK timeout starting at `delack_timeout`; off: every
    /// `delack_segments` segments or `delack_timeout`.
    pub adaptive_delack: bool,
    /// PSH as Linux sets and reads it. Sender: new data leaves in GSO skbs
    /// of min(`tcp_tso_segs`, `tcp_cwnd_test`'s quota) segments, and
    /// `__tcp_transmit_skb` forces PSH on every skb of more than one (GSO
    /// keeps it on the last segment; the flag is the sent clone's, so a
    /// retransmission does not inherit it); the application's last write
    /// marks the transfer's last segment (`tcp_push`, kept for its
    /// retransmissions). Receiver: a segment carrying PSH is ACKed at once
    /// when the application has read it (`tcp_measure_rcv_mss` sets
    /// ICSK_ACK_PUSHED for a full-sized one since Linux 6.6, commit
    /// 4720852ed9af; `tcp_cleanup_rbuf` then ACKs). Both are the kernel's
    /// (captured on the real stack: docs/reproduce.md, linux-check, "PSH
    /// and the receiver's ACKs"); on in the `linux` profile since
    /// `tso_defer` made the skbs the kernel's (alone, they moved the
    /// braud2016 cells away from the kernel: same section).
    pub push: bool,
    /// The receiving application's wakeup latency (0: it reads at once).
    /// In-order data is read this long after the first unread segment
    /// arrived, and the ACK owed for a second full segment goes when it is
    /// read: Linux's `__tcp_ack_snd_check` sends it from the softirq only if
    /// the window it would advertise is not below the last one, which fails
    /// once the autotuned window (`window_clamp` following `sk_rcvbuf`,
    /// `tcp_rcv_space_adjust`) is bounded by the free space and any data is
    /// unread ("tcp_recvmsg() will send ACK otherwise"); `tcp_recvmsg` ->
    /// `tcp_cleanup_rbuf` then ACKs when more than one segment is unACKed
    /// (or, with `push`, a segment with PSH was read). The delayed-ACK timer
    /// is armed at the arrival as before; out-of-order data, duplicates,
    /// quick ACKs and a FIN are ACKed at once from the softirq. A property of
    /// the machine (its scheduler), not of the kernel: 0 in every profile;
    /// docs/reproduce.md (linux-check, "The receivers' read latency") has
    /// how it was measured on the real stack.
    pub read_latency: SimTime,
    /// Each wakeup of the receiving application is later than
    /// `read_latency` by a random time, uniform in [0, `read_jitter`), from
    /// the run's seed (the connection's own stream): the real scheduler's
    /// spread. 0 in every profile.
    pub read_jitter: SimTime,
    /// The scheduler's tail: this many reads in a million are later than
    /// the body (`read_latency` + [0, `read_jitter`)), uniform in
    /// [`read_latency` + `read_jitter`, that + `read_tail_span`), drawn from
    /// the same stream. A late read leaves the next segment to arrive with
    /// the last one unread (the window test then holds its ACK too): the
    /// real receivers' ACK lag has such a tail (docs/reproduce.md,
    /// linux-check, "Fair BBR: the receivers' ACK regime"). 0 in every
    /// profile.
    pub read_tail: u32,
    /// The width of the tail's uniform law (see `read_tail`).
    pub read_tail_span: SimTime,
    /// How late the SACK-compression timer fires after its hard expiry
    /// (`sack_compression`: min(1 ms, RTT / 20) plus the hrtimer's 100 us
    /// slack): the machine's lateness of a soft hrtimer (the softirq that
    /// runs it), not the kernel's algorithm: 0 in every profile;
    /// docs/reproduce.md (linux-check, "Fair BBR") has how it was measured
    /// on the real stack.
    pub sack_timer_latency: SimTime,
    /// Each firing of the SACK-compression timer is later than
    /// `sack_timer_latency` by a random time, uniform in [0,
    /// `sack_timer_jitter`), from the run's seed (the connection's own
    /// stream): the spread of the machine's softirq lateness. 0 in every
    /// profile.
    pub sack_timer_jitter: SimTime,
    /// Timers fire as Linux's timer wheel lets them (crate::wheel): the
    /// retransmission timer (RTO, loss probe, RACK's reordering timer) and
    /// the delayed-ACK timer, armed for a whole number of jiffies of
    /// `clock_granularity`, fire at the end of their wheel bucket: one
    /// jiffy after the expiry tick below 63 jiffies, at the next multiple
    /// of 8 jiffies below 504 (kernel/time/timer.c `calc_index`). Off: a
    /// timer fires exactly `timeout` after it was armed.
    pub timer_wheel: bool,
    /// Linux's SACK compression (net/ipv4/tcp_input.c `__tcp_ack_snd_check`,
    /// `tcp_sack_new_ofo_skb`; tcp_timer.c `tcp_compressed_ack_kick`): out of
    /// order data is ACKed at once for the first three duplicates at a given
    /// `rcv_nxt`; later ones are held on a high-resolution timer of
    /// min(`tcp_comp_sack_delay_ns` 1 ms, RTT / 20) plus its 100 us slack
    /// (the RTT: the smaller of the receiver's SRTT and its timestamp
    /// estimate `rcv_rtt_est`, 0 before a sample)
    /// (`tcp_comp_sack_slack_ns`, the hrtimer's hard expiry), which any ACK
    /// sent cancels, at most `tcp_comp_sack_nr` = 44 of them, and one held
    /// is sent first when a segment lands in a third or later SACK block.
    /// Off: every out-of-order segment is ACKed at once (RFC 5681 4.2).
    pub sack_compression: bool,
    /// F-RTO (RFC 5682, Linux `tcp_process_loss`) on SACK connections: after
    /// a timeout, the first new ACK sends new data instead of more
    /// retransmissions; an ACK or SACK of a segment sent before the timeout
    /// and never retransmitted then shows it was spurious and undoes it.
    pub frto: bool,
    /// Pacing as Linux's internal pacing (`tcp_update_skb_after_send`): a
    /// segment's data length at the pacing rate (BBR's rate counts data
    /// bytes), a segment sent later than its slot shortens the next gap by
    /// up to half, and the first 10 data segments are not paced; off: each
    /// packet's wire size at the rate from its slot.
    pub linux_pacing: bool,
    /// With pacing, segments leave in TSO/GSO bursts as Linux builds them
    /// (`tcp_write_xmit` splits at `tcp_tso_segs`: the pacing rate's
    /// 2^-10 s of data, at least the controller's `min_tso_segs`): the
    /// pacing check is made once per burst, whose segments leave together,
    /// and the next burst waits for all of their data at the rate.
    pub gso_bursts: bool,
    /// Linux's TSO/GSO deferral (net/ipv4/tcp_output.c `tcp_tso_should_defer`,
    /// Linux 6.x, tcp_tso_win_divisor 3): when the windows leave room for
    /// less than a full skb of `tcp_tso_segs`, new data waits for the next
    /// ACK instead of leaving in a smaller skb, if the last send was within
    /// 1 ms, the room is below a third of min(cwnd, the peer's window), the
    /// oldest outstanding segment's ACK is due within min(SRTT / 2, 1 ms),
    /// outside Recovery and Loss, and not in a finite transfer's last skb
    /// (the one with the FIN: the rest fits in 64 KiB, or half the peer's
    /// window).
    pub tso_defer: bool,
    /// Memory the host gives a connection's received out-of-order data,
    /// bytes of buffer (0 = no limit): beyond it the whole out-of-order queue
    /// is dropped (Linux 2.2 `prune_queue`).
    pub mem_limit: u64,
    /// The kernel's tick rate (CONFIG_HZ) that controllers counting jiffies
    /// take unless the host's `cc_params` sets `hz` (Cubic's, BIC's and
    /// BBR's `tcp_jiffies32`); 0: each controller's own default (1000).
    pub hz: u32,
    /// Limited slow start above this window, segments (0 = off): RFC 3742 in
    /// slow start, or ns-2's rule with `ns2_lss`.
    pub max_ssthresh: u32,
    /// Limited slow start as ns-2's `opencwnd` (tcp.cc, `max_ssthresh_`)
    /// instead of RFC 3742: ssthresh starts at min(window, max_ssthresh),
    /// slow start is unlimited, and in congestion avoidance, before the first
    /// fast retransmit and after every timeout until the next, each new ACK
    /// adds 1/floor(cwnd / (max_ssthresh/2)) segment (controllers whose ns-2
    /// agent grows cwnd in `opencwnd`, see `CongestionControl::ns2_opencwnd`).
    pub ns2_lss: bool,
    /// ns-2's `slowdown` (tcp.cc): the first decrease of a connection, a
    /// decrease in slow start and every timeout set ssthresh to half the
    /// window, whatever the controller's own decrease.
    pub ns2_decrease: bool,
    /// `recovery = "sack"` runs ns-2's Sack1 recovery (`sack1-ns2`) instead
    /// of RFC 6675's.
    pub ns2_sack1: bool,
    /// Slow start adds at most this many segments per ACK, however many it
    /// acknowledges (RFC 5681 §3.1: 1; RFC 3465 ABC: L = 2; 0 = no limit, as
    /// Linux's `tcp_slow_start`).
    pub ss_ack_limit: u32,
    /// Congestion avoidance credits at most this many segments per ACK
    /// towards the window's worth that adds one segment (RFC 3465 ABC as
    /// FreeBSD's `cc_ack_received`: `t_bytes_acked += min(bytes_this_ack,
    /// abc_l_var * maxseg)`); 0 = every acknowledged segment, as Linux.
    pub ca_ack_limit: u32,
    /// The sender reads SACK blocks only on connections with timestamps:
    /// Linux 2.2.16's `tcp_fast_parse_options` returns before parsing any
    /// option when `tcp_header_len` is the bare 20 bytes (timestamps off), so
    /// `tcp_sacktag_write_queue` never runs and recovery is NewReno's
    /// (removed in 2.2.17pre9). SACK is still negotiated and the receiver
    /// still sends its blocks.
    pub sack_needs_timestamps: bool,
    /// Which spurious reductions are undone (Eifel detection with timestamps).
    pub undo: Undo,
    /// Congestion controller used when the scenario names none.
    pub default_cc: &'static str,
    /// How connections open (and whether the host is an ns-2 one-way agent).
    pub handshake: Handshake,
    /// RTT estimator and RTO computation.
    pub rto_estimator: RtoEstimator,
    /// Which segments give RTT samples without timestamps.
    pub rtt_sampling: RttSampling,
    /// ns-2's `window_`: the sender keeps at most min(cwnd, window) segments
    /// outstanding, and ssthresh starts at it; 0 = no such limit.
    pub window: u32,
    /// ns-2's `maxcwnd_`: cwnd never grows past it; 0 = no cap.
    pub max_cwnd: u32,
    /// The window grows only while cwnd limits sending (Linux
    /// `tcp_is_cwnd_limited`); ns-2 grows it on every new ACK (`control_increase_` 0).
    pub cwnd_limited_growth: bool,
}

/// How a host turns its socket buffers into an advertised window and a send limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BufferAccounting {
    /// The receive buffer is the window, byte for byte; the send buffer
    /// bounds unacknowledged payload bytes.
    Plain,
    /// Linux 2.2 (`__tcp_select_window`, `sock_wmalloc`): the window is half
    /// the free receive buffer, (rcvbuf - buffers held)/2, rounded down to
    /// whole segments and never shrinking its right edge, each held segment
    /// charged its driver buffer (1536 bytes for a 1500-byte packet, the
    /// acenic Gigabit driver's); the send buffer bounds segments charged
    /// payload + 160 header bytes rounded up to 16 (1616 for 1448); the
    /// window scale comes from rcvbuf/2.
    Linux22,
    /// Linux 6.x (crate::rcvwnd): `rcvbuf` is `tcp_rmem[2]`, the most the
    /// autotuned buffer reaches from `tcp_rmem[1]` (131072); the window is
    /// min(free buffer, `rcv_ssthresh`) times the measured scaling ratio,
    /// rounded up to the window scale's unit, never shrinking; each held
    /// segment costs an skb (`rcvwnd::truesize`); a second full segment
    /// is ACKed at once only if the window would not shrink, else when read;
    /// the send buffer bounds payload bytes, as `Plain`.
    Linux,
}

impl BufferAccounting {
    /// Name as written in scenario files.
    pub fn name(self) -> &'static str {
        match self {
            BufferAccounting::Plain => "plain",
            BufferAccounting::Linux22 => "linux22",
            BufferAccounting::Linux => "linux",
        }
    }
    /// Parse a scenario name.
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "plain" => BufferAccounting::Plain,
            "linux22" => BufferAccounting::Linux22,
            "linux" => BufferAccounting::Linux,
            _ => return None,
        })
    }
    /// Bytes a held received segment of `ip_size` bytes costs the receive buffer.
    pub fn rcv_truesize(self, ip_size: u32, payload: u32) -> u64 {
        match self {
            BufferAccounting::Plain => payload as u64,
            // acenic: ACE_STD_BUFSIZE = 1500 + 14 + 2 + 4 + 16 = 1536 per
            // standard-ring buffer, whatever the packet's size; truesize is
            // the data buffer alone in 2.2 (skbuff.c alloc_skb).
            BufferAccounting::Linux22 => (ip_size.max(1500) as u64 + 36).div_ceil(16) * 16,
            BufferAccounting::Linux => crate::rcvwnd::truesize(payload as u64),
        }
    }
    /// Bytes a queued segment of `payload` bytes costs the send buffer.
    pub fn snd_truesize(self, payload: u32) -> u64 {
        match self {
            BufferAccounting::Plain | BufferAccounting::Linux => payload as u64,
            // tcp_sendmsg: MAX_HEADER 32 + max_header 128 + the data, rounded to 16.
            BufferAccounting::Linux22 => (payload as u64 + 160).div_ceil(16) * 16,
        }
    }
}

/// When NewReno's retransmission timer restarts during a recovery (RFC 6582
/// section 4; ns-2's `newreno_changes1_`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NewRenoRto {
    /// Only on the first partial ACK, so that a window with many losses times
    /// out instead of taking one round trip per loss (RFC 6582's recommended
    /// "Impatient" variant; ns-2 `newreno_changes1_` 1, Agent/TCP/Newreno's
    /// default since 5/5/03).
    Impatient,
    /// On every partial ACK, so the recovery repairs one loss per round trip
    /// however many there are (RFC 6582's "Slow-but-Steady" variant; ns-2
    /// `newreno_changes1_` 0).
    SlowButSteady,
}

impl NewRenoRto {
    /// Name as written in scenario files.
    pub fn name(self) -> &'static str {
        match self {
            NewRenoRto::Impatient => "impatient",
            NewRenoRto::SlowButSteady => "slow-but-steady",
        }
    }
    /// Parse a scenario name.
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "impatient" => NewRenoRto::Impatient,
            "slow-but-steady" => NewRenoRto::SlowButSteady,
            _ => return None,
        })
    }
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
    /// Undo a first timeout when the first ACK of new data after it comes
    /// within half a smoothed RTT (FreeBSD's bad-retransmit window:
    /// `t_badrxtwin` = ticks + srtt/2, set by `tcp_timer_rexmt` when
    /// `t_rxtshift` is 1, tested by `tcp_input` before the ACK's RTT sample:
    /// `CC_RTO_ERR`), with no timestamp test.
    BadRxtWin,
}

impl Undo {
    /// Name as written in scenario files.
    pub fn name(self) -> &'static str {
        match self {
            Undo::None => "none",
            Undo::Rto => "rto",
            Undo::All => "all",
            Undo::BadRxtWin => "badrxtwin",
        }
    }
    /// Parse a scenario name.
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "none" => Undo::None,
            "rto" => Undo::Rto,
            "all" => Undo::All,
            "badrxtwin" => Undo::BadRxtWin,
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
        dupthresh_frac: 0,
        newreno_rto: NewRenoRto::Impatient,
        partial_deflation: true,
        partial_keep: false,
        ssthresh_from_window: false,
        ssthresh_from_cwnd: false,
        cc_recovery: true,
        count_acks: false,
        buffer_accounting: BufferAccounting::Plain,
        rto_clears_sack: false,
        rcvbuf_auto: false,
        host_cache: false,
        answer_timestamps: false,
        ack_before_data: false,
        freebsd_sack: false,
        cum_ack_growth: false,
        dupack_wrap: 0,
        ss_ack_limit_rto: 0,
        rto_from_head: false,
        rto_holds_new_data: false,
        ssthresh_every_rto: false,
        linux_enter_loss: false,
        prr: false,
        rack: false,
        tlp: false,
        dsack: false,
        adaptive_delack: false,
        push: false,
        read_latency: SimTime::ZERO,
        read_jitter: SimTime::ZERO,
        read_tail: 0,
        read_tail_span: SimTime::ZERO,
        sack_timer_latency: SimTime::ZERO,
        sack_timer_jitter: SimTime::ZERO,
        timer_wheel: false,
        sack_compression: false,
        frto: false,
        linux_pacing: false,
        gso_bursts: false,
        tso_defer: false,
        mem_limit: 0,
        hz: 0,
        max_ssthresh: 0,
        ns2_lss: false,
        ns2_decrease: false,
        ns2_sack1: false,
        ss_ack_limit: 1,
        ca_ack_limit: 0,
        sack_needs_timestamps: false,
        undo: Undo::None,
        default_cc: "newreno",
        handshake: Handshake::Tcp,
        rto_estimator: RtoEstimator::Rfc6298,
        rtt_sampling: RttSampling::EveryAck,
        window: 0,
        max_cwnd: 0,
        cwnd_limited_growth: true,
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
                ssthresh_from_cwnd: true,
                cc_recovery: false,
                rto_estimator: RtoEstimator::Linux,
                clock_granularity: SimTime(4 * MS),
                prr: true,
                rack: true,
                tlp: true,
                dsack: true,
                adaptive_delack: true,
                frto: true,
                linux_pacing: true,
                linux_enter_loss: true,
                gso_bursts: true,
                tso_defer: true,
                push: true,
                ack_before_data: true,
                timer_wheel: true,
                sack_compression: true,
                buffer_accounting: BufferAccounting::Linux,
                rcvbuf: crate::rcvwnd::RMEM_MAX,
                hz: 250,
                default_cc: "cubic",
                newreno_rto: NewRenoRto::SlowButSteady,
                ..base()
            },
            sources: "IW 10: RFC 6928, include/net/tcp.h TCP_INIT_CWND; TCP_RTO_MIN 200 ms, \
                      TCP_RTO_MAX 120 s, TCP_DELACK_MIN 40 ms (include/net/tcp.h); RTO = SRTT + \
                      max(4 RTTVAR, TCP_RTO_MIN) (tcp_rtt_estimator's mdev_max floor); SACK, \
                      timestamps, window scaling on (net.ipv4.tcp_sack, tcp_timestamps, \
                      tcp_window_scaling = 1); default controller cubic since 2.6.19; RTT samples \
                      and RTO as tcp_rtt_estimator/tcp_set_rto in jiffies of HZ 250 (Kconfig.hz \
                      default); PRR (tcp_cwnd_reduction); RACK-TLP (tcp_recovery.c, \
                      tcp_schedule_loss_probe, tcp_send_loss_probe; net.ipv4.tcp_recovery = 1, \
                      tcp_early_retrans = 3); D-SACK and its undo (net.ipv4.tcp_dsack = 1, \
                      tcp_try_undo_dsack; a D-SACKed duplicate counts as delivered, tcp_dsack_seen); \
                      timeouts as tcp_enter_loss (no new ssthresh or undo state while a \
                      reduction is under way; set_state(Loss) at every timeout: \
                      linux_enter_loss); F-RTO (tcp_frto = 2, tcp_process_loss); quick ACKs and \
                      adaptive ATO (tcp_event_data_recv, tcp_send_delayed_ack); internal pacing of \
                      data bytes with lateness credit (tcp_update_skb_after_send); `reno` is \
                      only tcp_reno_ssthresh/tcp_reno_cong_avoid, recovery is the stack's SACK \
                      recovery (cc_recovery false); ssthresh = max(cwnd/2, 2) from cwnd, not the \
                      flight (tcp_reno_ssthresh, bictcp_recalc_ssthresh); slow start \
                      adds every acknowledged segment (tcp_slow_start); undo of spurious recoveries and \
                      timeouts (tcp_try_undo_recovery, tcp_try_undo_loss); the RTO timer \
                      restarts on every ACK of new data, partial ACKs in a recovery included \
                      (tcp_clean_rtx_queue sets FLAG_SET_XMIT_TIMER, tcp_ack calls \
                      tcp_set_xmit_timer -> tcp_rearm_rto: newreno_rto slow-but-steady), and on \
                      an ACK that SACKs data sent before the head's last transmission (the same \
                      flag, from a SACK RTT longer than the head's age); SACK blocks walked in \
                      sequence order (tcp_sacktag_write_queue sorts them: RACK's RTT is the last \
                      walked segment's, tcp_rack_advance); paced retransmissions one skb per \
                      pacing slot (tcp_xmit_retransmit_queue calls tcp_pacing_check before each \
                      skb and resends up to max_segs of one; a cong_control recovery's first \
                      retransmission after the controller, as tcp_xmit_recovery sends it: \
                      tcp_enter_recovery sends nothing); the \
                      SYN-ACK answered by a pure ACK before the data \
                      (tcp_rcv_synsent_state_process -> tcp_send_ack: ack_before_data); the \
                      retransmission and delayed-ACK timers fire at the end of their timer-wheel \
                      bucket (kernel/time/timer.c calc_index: timer_wheel); SACK compression \
                      after three duplicates (__tcp_ack_snd_check, tcp_compressed_ack_kick; \
                      net.ipv4.tcp_comp_sack_delay_ns 1 ms, tcp_comp_sack_slack_ns 100 us, \
                      tcp_comp_sack_nr 44: sack_compression); new data in skbs of \
                      min(tcp_tso_segs, tcp_cwnd_test's quota) with PSH forced on a skb of more \
                      than one (__tcp_transmit_skb) and a full-sized PSH segment ACKed when \
                      read (tcp_measure_rcv_mss, Linux 6.6+: push); less than a full skb of \
                      room held for the next ACK (tcp_tso_should_defer, tcp_tso_win_divisor 3: \
                      tso_defer); the receive buffer autotuned from tcp_rmem[1] 131072 to \
                      tcp_rmem[2] 6 MiB (rcvbuf) and the window from the free buffer and \
                      rcv_ssthresh, with its quick ACKs, and a second segment ACKed at once only \
                      when the window would not shrink (tcp_rcv_space_adjust, tcp_rcvbuf_grow, \
                      tcp_grow_window, __tcp_select_window, __tcp_ack_snd_check: \
                      buffer_accounting linux)",
            notes: "each received segment costs one skb of 2304 bytes (the reference \
                    machine's, measured; no coalescing, no memory pressure); TSO/GSO bursts only where \
                    pacing is enforced (BBR), the others' ACK-clocked sends being back to back \
                    anyway; the receiving application reads at once (read_latency 0: the \
                    machine's own wakeup latency is a host setting); RACK's reordering window \
                    never grows (no reordering is detected); ECN \
                    off unless the host sets it (Linux's \
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
                ca_ack_limit: 2,
                undo: Undo::BadRxtWin,
                rto_clears_sack: true,
                ssthresh_from_cwnd: true,
                ssthresh_every_rto: true,
                host_cache: true,
                freebsd_sack: true,
                cum_ack_growth: true,
                ss_ack_limit_rto: 1,
                default_cc: "newreno",
                newreno_rto: NewRenoRto::SlowButSteady,
                rtt_sampling: RttSampling::Timed,
                ..base()
            },
            sources: "IW: net.inet.tcp.rfc3390=1 (RFC 3390, 3 segments), initcwnd10 off in 9.x; \
                      net.inet.tcp.rexmit_min 30 ms and rexmit_slop 200 ms added to every RTO \
                      (TCPT_RANGESET, TCPTV_CPU_VAR); TCPTV_REXMTMAX 64 s (sys/netinet/tcp_timer.h); \
                      net.inet.tcp.delacktime 100 ms; net.inet.tcp.sack.enable=1, rfc1323=1; \
                      net.inet.tcp.cc.algorithm newreno; ABC with net.inet.tcp.abc_l_var = 2 \
                      (newreno_ack_received); bad-retransmit undo of a \
                      first timeout whose first new ACK comes within srtt/2 (tcp_timer.c \
                      t_badrxtwin, tcp_input.c CC_RTO_ERR: undo badrxtwin); ssthresh on a loss = \
                      max(cwnd/2, 2) segments (cc_newreno.c newreno_cong_signal; \
                      tcp_input.c CC_RTO: min(snd_wnd, cwnd)/2: ssthresh_from_cwnd), at every \
                      timeout (ssthresh_every_rto); a \
                      timeout forgets \
                      the SACK scoreboard (tcp_timer_rexmt: tcp_free_sackholes: \
                      rto_clears_sack); tcp_newreno_partial_ack stops the \
                      retransmission timer and tcp_output restarts it on every partial ACK \
                      (newreno_rto slow-but-steady), with partial window deflation; without \
                      timestamps the RTO is fed one timed segment per round trip (tcp_input.c \
                      t_rtttime/t_rtseq: rtt_sampling timed); the host cache: a connection \
                      closing after a loss leaves ssthresh (in packets x (MSS + 40), averaged \
                      with the entry) for the next one to the same peer (tcp_subr.c \
                      tcp_discardcb, tcp_hostcache.c tcp_hc_update, tcp_input.c cc_conn_init: \
                      host_cache); SACK recovery from one segment, every hole below snd_fack \
                      resent within a cumulative budget, tcp_sack_partialack and \
                      newreno_post_recovery (tcp_input.c, tcp_output.c, tcp_sack.c: \
                      freebsd_sack)",
            notes: "RTO by RFC 6298 plus FreeBSD's slop rather than its fixed-point srtt/rttvar; \
                    controllers see the RTT of every ACK (FreeBSD's ERTT module, which \
                    cc_vegas reads) even while the RTO times one segment per round trip; \
                    receive-buffer autosizing (64 KiB grown only with timestamps: host field \
                    rcvbuf_auto) is off: with it a FreeBSD host receiving from Windows 7 (no \
                    timestamps) stays at 64 KiB, which braud2016's B1 contradicts; the host cache's \
                    srtt and rttvar (loaded before the SYN's RTT sample and smoothed with \
                    it) are not kept, and its save test reads sndbuf, not FreeBSD's auto-sized \
                    send buffer; in SACK recovery entered from a timeout's go-back-N, \
                    sack_newdata is snd_max here (FreeBSD: the go-back-N point) and earlier \
                    go-back-N retransmissions count as sack_bytes_rexmit",
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
                answer_timestamps: true,
                ss_ack_limit: 0,
                undo: Undo::Rto,
                frto: true,
                default_cc: "compound",
                ..base()
            },
            sources: "IW 2 segments (Windows 7 / 2008 R2; InitialCongestionWindowMss came with \
                      later releases); MinRto 300 ms and initial RTO 3 s (netsh int tcp show \
                      global/supplemental); TcpDelAckTicks 2 = 200 ms; SACK on, timestamps off \
                      by default (Tcp1323Opts = 0 for timestamps), receive-window auto-tuning \
                      with scaling; congestionprovider=ctcp as the study configured it; \
                      F-RTO (RFC 4138, listed among the loss-recovery features of the \
                      Windows Vista / Server 2008 stack that Windows 7 kept) detects and \
                      undoes spurious timeouts without timestamps; a SYN offering timestamps \
                      is answered with them though Windows never offers them (p0f 3's \
                      fingerprints, p0f.fp: Windows 7/8 SYN+ACKs with the timestamp option, \
                      SYNs without: answer_timestamps)",
            notes: "Windows 7 clients ship with congestionprovider=none (NewReno); Compound is \
                    its default on servers and what braud2016 enabled; F-RTO runs as tcplab's \
                    SACK-enhanced F-RTO (RFC 5682, Linux tcp_process_loss), with Linux's \
                    undo as the response (Windows' response is not documented); the Eifel \
                    undo (undo = rto) stays but needs timestamps, which a Windows sender \
                    never has (tcplab's connections are opened by the data sender); no source found for a slow-start limit per ACK, so \
                    every acknowledged segment counts, as in Linux",
        },
        Profile {
            name: "linux22",
            description: "Linux 2.2.16 (the highspeed-fiber hosts)",
            config: TcpConfig {
                initial_window: 2,
                initial_rto: SimTime(3000 * MS),
                min_rto: SimTime(200 * MS),
                max_rto: SimTime(120_000 * MS),
                clock_granularity: SimTime(10 * MS),
                rto_estimator: RtoEstimator::Linux22,
                rtt_sampling: RttSampling::EveryAck,
                delack_timeout: SimTime(10 * MS),
                delack_segments: 2,
                recovery: Recovery::Sack,
                sack: true,
                timestamps: true,
                window_scaling: true,
                newreno_rto: NewRenoRto::SlowButSteady,
                partial_keep: true,
                ssthresh_from_window: true,
                count_acks: true,
                ss_ack_limit: 1,
                cwnd_limited_growth: false,
                undo: Undo::None,
                default_cc: "newreno",
                buffer_accounting: BufferAccounting::Linux22,
                rto_clears_sack: true,
                sack_needs_timestamps: true,
                dupack_wrap: 256,
                rto_from_head: true,
                rto_holds_new_data: true,
                sndbuf: 65535,
                rcvbuf: 65535,
                ..base()
            },
            sources: "Linux 2.2.16 (tag 2.2.16 of schwabe/davej-history; tcp_input.c 1.164.2.15), \
                      i386: HZ 100, so RTT samples, srtt and the RTO count 10 ms jiffies (tcp_tick \
                      10ms; tcp_time_stamp = jiffies); snd_cwnd = 2 at open (tcp_v4_init_sock, \
                      tcp_create_openreq_child; 1 in 2.2.1), ssthresh 0x7fffffff; \
                      TCP_TIMEOUT_INIT 3 s, RTO within [HZ/5, 120 HZ] (tcp_bound_rto), doubled per \
                      timeout; tcp_rtt_estimator (srtt x8, mdev x4, m = 0 taken as 1) and \
                      tcp_set_rto: RTO = base + base/4 + base >> (cwnd - 1), base = srtt + 4 mdev \
                      (rto_estimator linux22); without timestamps a sample from every ACK of new \
                      data (the newest skb tcp_clean_rtx_queue frees), none when it frees a \
                      retransmission (Karn) or during a timeout's recovery; timestamps, SACK and \
                      window scaling on (sysctl_tcp_timestamps/sack/window_scaling = 1); delayed \
                      ACK every 2 full segments (MAX_DELAY_ACK), at once on out-of-order data; \
                      fast retransmit at 3 duplicate ACKs, ssthresh = max(min(cwnd, snd_wnd/mss)/2, \
                      2) (tcp_recalc_ssthresh: ssthresh_from_window), cwnd = ssthresh + 3, +1 per \
                      further duplicate ACK with no bound; without SACK a partial ACK retransmits \
                      the next hole and restarts the timer, cwnd unchanged (partial_ack keep, \
                      newreno_rto slow-but-steady), cwnd = ssthresh at the end; no undo; a \
                      timeout forgets every SACK mark (tcp_retransmit_timer), cwnd 1, go-back-N; \
                      growth per ACK, not per segment (tcp_cong_avoid: count_acks), also when \
                      the receive window limits (no cwnd validation: cwnd_limited_growth false); \
                      buffers (buffer_accounting linux22): window = (rcvbuf - rmem_alloc)/2 in \
                      whole segments, never shrinking (__tcp_select_window, tcp_select_window), \
                      window scale from rcvbuf/2 (tcp_select_initial_window), receive truesize \
                      1536 per standard packet (acenic ACE_STD_BUFSIZE), send truesize payload + \
                      160 rounded to 16 (tcp_sendmsg, sock_wmalloc), out-of-order queue dropped \
                      whole past rcvbuf (prune_queue); sysctl rmem_default = wmem_default = 65535 \
                      (SK_RMEM_MAX with CONFIG_SKB_LARGE): sndbuf and rcvbuf here are the \
                      kernel's sk->sndbuf/sk->rcvbuf (SO_SNDBUF/SO_RCVBUF = B gives 2B, sock_setsockopt, but the \
                      window scale and clamp are fixed at the SYN from the listener's buffer: \
                      tcp_make_synack); SACK blocks read only with timestamps \
                      (tcp_fast_parse_options returns before any option when tcp_header_len is \
                      20 bytes: sack_needs_timestamps; removed in 2.2.17pre9); an ACK of new \
                      data rearms the timer at rto - the head's age, at least a jiffy \
                      (tcp_ack_packets_out: rto_from_head); after a timeout nothing new leaves \
                      while tp->retransmits (tcp_snd_test: rto_holds_new_data); the 8-bit \
                      dup_acks counter, never cleared by a partial ACK, wrapping at 256, with \
                      tcp_fast_retrans's >= 3 and > 3 tests and clear_fast_retransmit's \
                      (dupack_wrap 256)",
            notes: "With SACK 2.2 runs FACK (recovery at 3 dupacks or fackets_out > 3, holes \
                    retransmitted up to the forward-most SACK, pipe = packets_out - fackets_out + \
                    retrans_out, no inflation); RFC 6675 recovery stands in. Not modelled: the \
                    adaptive delayed-ACK timeout (ato from inter-arrival times, capped at 500 ms; \
                    here a fixed 10 ms, one jiffy, which a bulk flow's ACK-every-2 rule \
                    dominates); cwnd staying at ssthresh + 3 after a recovery of exactly 3 \
                    dupacks; congestion avoidance \
                    adds one segment per cwnd ACKs (2.2: cwnd + 1); local drops in the 100-packet device queue \
                    and the 300-packet input backlog (set a host stage and queues for those); \
                    the SYN window <= 32767. 2.2 has one controller, Reno's AIMD with the \
                    recovery above: cc newreno (whose own rules are the AIMD; cc reno would \
                    impose RFC 5681's recovery instead).",
        },
        Profile {
            name: "ns2",
            description: "ns-2 2.28's one-way Agent/TCP/Sack1 and TCPSink/Sack1 defaults (mascolo2006)",
            config: TcpConfig {
                initial_window: 2,
                min_rto: SimTime(200 * MS),
                max_rto: SimTime(100_000_000 * MS),
                initial_rto: SimTime(6000 * MS),
                clock_granularity: SimTime(10 * MS),
                delack_timeout: SimTime::ZERO,
                delack_segments: 2,
                recovery: Recovery::Sack,
                sack: true,
                timestamps: false,
                window_scaling: false,
                mss: 1000,
                sndbuf: 1 << 40,
                rcvbuf: 1 << 40,
                ss_ack_limit: 1,
                undo: Undo::None,
                default_cc: "newreno",
                handshake: Handshake::Ns2Syn,
                rto_estimator: RtoEstimator::Ns2,
                window: 20,
                max_cwnd: 0,
                cwnd_limited_growth: false,
                dupthresh_frac: 100,
                ns2_lss: true,
                ns2_decrease: true,
                ns2_sack1: true,
                ..base()
            },
            sources: "ns-2 2.28 (Feb 2005; values read in ns-2.29's tcl/lib/ns-default.tcl, whose \
                      dated comments show them unchanged since 2.28, and tcp/tcp.cc): \
                      windowInit_ 2 (IW 2 segments); syn_ true with delay_growth_ true \
                      (handshake ns2-syn: a 40-byte packet 0, cwnd 1, then windowInit_ on its \
                      ACK; tcp.cc set_initial_window, output, recv); window_ 20 (window = \
                      min(cwnd, window_), tcp.cc window(); ssthresh starts at window_, reset()); \
                      maxcwnd_ 0 (no cap, opencwnd); packetSize_ 1000 (mss = payload bytes), \
                      tcpip_base_hdr_size_ 40, ts_option_size_ 10 (tcp.cc headersize); \
                      TCPSink packetSize_ 40 and 8 bytes per SACK block, maxSackBlocks_ 3 \
                      (tcp-sink.cc); TCPSink: one ACK per packet (delack 0; DelAckSink \
                      interval_ 100 ms = delack \"100ms\"); timestamps_ false; Sack1 \
                      (SACK on, no negotiation); RTO: tcpTick_ 0.01 s, T_SRTT_BITS 3, \
                      T_RTTVAR_BITS 2, rttvar_exp_ 2 (RTO = srtt + 4 rttvar in whole ticks, \
                      rtt_update), rtxcur_init_ 6 s, minrto_ 0.2 s applied before the backoff \
                      (rfc2988_ true, rtt_timeout), maxrto_ 100000 s, RTO at least 2 ticks, \
                      backoff doubling to 64 and past 8 srtt folded into rttvar (rtt_backoff); \
                      one timed segment per window (rtt_active_, rtt_seq_), none after a \
                      timeout or fast retransmit (reset_rtx_timer); opencwnd: +1 per ACK in \
                      slow start, increase_num_/cwnd per ACK after (wnd_option_ 1), on every \
                      new ACK whether cwnd-limited or not (control_increase_ 0); slowdown \
                      halves window() (decrease_num_ 0.5, precisionReduce_ false: integer \
                      halving, at least 2); numdupacks_ 3; numdupacksFrac_ 100 (added \
                      2002/10/18, -1 from 2006/09/27): Sack1 recv() fast-retransmits on \
                      the duplicate ACK number numdupacks(cwnd_) = max(numdupacks_, \
                      int(cwnd_)/numdupacksFrac_) (tcp.cc numdupacks, tcp-sack1.cc recv; \
                      Agent/TCP, Reno and Newreno count to numdupacks_ only); limited slow \
                      start with max_ssthresh_ (ns2_lss): reset() starts ssthresh_ at \
                      min(window_, max_ssthresh_), opencwnd() adds 1 per ACK below \
                      ssthresh_ and, above it with windowOption_ 1 or 8, max(increment, \
                      1/int(cwnd_/(max_ssthresh_/2))) while last_cwnd_action_ is 0 or \
                      CWND_ACTION_TIMEOUT (limited_slow_start; dupack_action sets \
                      CWND_ACTION_DUPACK, timeout() CWND_ACTION_TIMEOUT); slowdown() \
                      (ns2_decrease): ssthresh_ = int(window()/2) on the first decrease \
                      (first_decrease_), in slow start (cwnd_ < ssthresh_) and after a \
                      timeout (last_cwnd_action_ set before slowdown), the variant's \
                      decrease (decrease_num_, HSTCP's decrease_param with windowOption_ 8) \
                      otherwise; Sack1's recovery (ns2_sack1: recovery sack runs sack1-ns2; \
                      tcp-sack1.cc recv, dupack_action, send_much, timeout, ScoreBoardRQ in \
                      scoreboard-rq.cc; ns-2.35's differs only for the last packets of a \
                      finite transfer): fast retransmit on the numdupacks(cwnd_)-th duplicate \
                      ACK that SACKs new data (CheckUpdate) once highest_ack_ > recover_ \
                      (bugFix_ true), pipe_ = maxseq_ - highest_ack_ - numdupacks(cwnd_) \
                      (LimTransmitFix_ false, oldCode_ false), cwnd_ = int(window()/2) \
                      (slowdown CLOSE_CWND_HALF, not floored at 2), only the first packet \
                      resent; in recovery --pipe_ per ACK and once more per partial ACK \
                      (partial_ack_ false), which also restarts the timer and ends the \
                      backoff (newtimer, t_backoff_ = 1); send_much while pipe_ < \
                      int(cwnd_): GetNextRetran's next hole below the highest SACK block, \
                      each once (MarkRetran), then new data, within wnd_ of highest_ack_; \
                      ACK of recover_: recovery over, cwnd_ kept, recover_ = 0; \
                      ClearScoreBoard at timeouts, on new ACKs outside recovery and at the \
                      end of a recovery; timeout_: duplicate ACKs ignored after a timeout \
                      until a new ACK, go-back-N from highest_ack_ + 1 over SACKed data \
                      (reset_rtx_timer(0,1)); outside recovery send_much only while \
                      dupacks_ is 0; singledup_ 1: each duplicate ACK below numdupacks \
                      sends the packet at t_seqno_ if t_seqno_ <= highest_ack_ + cwnd_ + \
                      dupacks_ (send_one; maxburst_ 0, overhead_ 0)",
            notes: "Older ns-2 differs (set per host to reproduce it): ns-2 2.1b8a (2001) and \
                    earlier have tcpTick_ 0.1 (tcp_tick = \"100ms\"), minrto_ 1 s (added \
                    2001/05/10; before it only the 2-tick floor: min_rto = \"0s\"); \
                    ns-2 before 2001/05 has windowInit_ 1 (initial_window = 1) and syn_ false \
                    (handshake = \"none\": data at the start time), as barakat1999's ns-2 of \
                    1999 must have; ns-2 2.30-2.35 have rtxcur_init_ 3 s (initial_rto), \
                    maxrto_ 60 s (max_rto), numdupacksFrac_ -1 (dupthresh_frac = 0; so \
                    has ns-2 before 2002/10/18) and precisionReduce_ true. \
                    ns-2's limited slow start applies to controllers whose ns-2 agent \
                    grows cwnd in opencwnd (reno, newreno, tahoe, highspeed, westwood); \
                    there the increase replaces the controller's (ns-2 takes the larger: \
                    the same for Reno's 1/cwnd, and for HSTCP below 31000 segments, where \
                    its a(w) < 50); in ns-2 2.28 int(cwnd_/(max_ssthresh_/2)) is 0 below \
                    max_ssthresh_/2 and the increment 1/0 makes cwnd_ infinite (window_ \
                    alone limits; ns-2 2.35 tests round > 0): here, as in 2.35, the \
                    ordinary increase applies there. The decrease rule applies to every \
                    controller; of the variants only Reno's and HSTCP's agents are in \
                    ns-2 2.28 (FAST's module also calls slowdown); Westwood+'s agent \
                    WestwoodNR (tcp-westwood-nr.cc) sets ssthresh_ and cwnd_ itself at the \
                    third duplicate ACK and on timeouts (cwnd_ 2) without slowdown, and its \
                    ns-default.tcl sets newreno_changes1_ 0 and partial_window_deflation_ 0: \
                    on this profile westwood follows it (newreno_rto slow-but-steady, \
                    partial_window_deflation false unless the host sets them). \
                    ns2_sack1 false gives RFC 6675 recovery instead of Sack1's (IsLost with \
                    dupthresh_frac, the pipe from the scoreboard: a window with many losses \
                    is repaired without Sack1's stall until the timeout). Not modelled: \
                    TCPSink/Sack1's SACK blocks below the cumulative ACK (Sacker::append_ack \
                    reports old blocks until pushed out; the receiver here drops them: \
                    with lost ACKs such a block can lower ScoreBoardRQ's sack_min in ns-2), \
                    singledup_ off (ns-2 of 1999), the float cwnd (cwnd_ += \
                    1/cwnd_ per ACK; here an integer counter adds one segment per cwnd ACKs, \
                    which agrees to first order), ns-2's ECN; boot_time_ is drawn per flow \
                    from the run's seed. srtt_init_ 0 and rttvar_init_ 12 change nothing \
                    (the first sample overwrites both), maxburst_ 0 is no limit, as here.",
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
