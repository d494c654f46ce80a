# mascolo.tcl: one mascolo2006 run (scenario A, B or C) on ns-2.35, the
# reference of tcplab's `ns2` profile in `tcplab reproduce ns2-check`.
#
#   ns mascolo.tcl PARAMS.tcl
#
# PARAMS.tcl (written by tools/ns2_reference.py) sets the global array P:
#   P(duration)       seconds
#   P(phases)         phase boundaries in seconds, 0 and the duration included
#   P(variant)        SACK HSTCP BIC CUBIC H-TCP STCP Westwood+ FAST (the bulk flows;
#                     also linux:NAME for any TCP-Linux module, e.g. linux:reno,
#                     and STCP-binomial: the paper's STCP law on Agent/TCP/Sack1,
#                     see below; not in the stored runs, a check of M13)
#   P(bneck)          {rate delay qlim}: the R1<->R2 duplex DropTail link; qlim
#                     is ns-2's queue-limit, both directions (an arrival is
#                     dropped when qlim - 1 packets wait: queue/drop-tail.cc)
#   P(hosts)          {{name router rate delay qlim} ...}: one node per host,
#                     a duplex DropTail link to R1 or R2, qlim both directions
#   P(flows)          {{name from to start stop} ...}: greedy FTP bulk flows;
#                     stop -1 = never (see "Stopping a bulk flow" below)
#   P(web)            {{from to start packets} ...}: short transfers, each a new
#                     Agent/TCP/Sack1 -> Agent/TCPSink/Sack1 pair sending
#                     `packets` segments from `start` (optional, default {})
#   P(trace)          1 to print the cwnd of P(trace_flows) every
#   P(trace_interval) seconds while they run (optional, default 0, 0.1, {})
#   P(trace_flows)
#   P(seed)           ns-2's default RNG (boot_time_ of every agent); > 0
# Optional, for checks (defaults in brackets):
#   P(packet_size) [1460]  P(window) [100000]  P(max_ssthresh) [100]
#   P(stop_mode)   [drain] drain: a stopped flow delivers all it has sent;
#                  ftp: ns-2's Application/FTP stop (see below)
#   P(linux_ts_option_size) [0] TCP-Linux's timestamp option bytes on the wire
#   P(linux_max_ssthresh) [P(max_ssthresh)] TCP-Linux's initial ssthresh_
#                  (0: window_, i.e. slow start up to the first loss)
#
# Output on stdout, one record per line (anything else goes to stderr):
#   P flow phase t0 t1 delivered_pkts sent_pkts retrans_pkts timeouts
#       for every bulk flow and phase, printed at t1; counters are differences
#       between snapshots at t0 and t1:
#       delivered_pkts  data segments delivered in order at the sink (the
#                       sink's bytes_, polled every second because it is a
#                       32-bit int that wraps after 2^31 bytes, 69 s at
#                       250 Mb/s; wire bytes / wire size, the 40-byte packet 0
#                       of syn_ left out exactly)
#       sent_pkts       ndatapack_ less packet 0 (the SYN) once sent
#       retrans_pkts    nrexmitpack_ (output() with seqno <= maxseq_)
#       timeouts        nrexmit_ (timeout() with data outstanding; TCP-Linux
#                       counts the same, in LinuxTcpAgent::timeout)
#   W flow time cwnd    every P(trace_interval) from the flow's start to its
#                       stop (cwnd_; for TCP-Linux the agent's copy of
#                       snd_cwnd, or the rate-halving target while larger)
#   E wall_seconds      at the end, then exit 0
# A summary of the web transfers (started, completed) goes to stderr.
#
# The paper (Mascolo & Vacirca, PFLDnet 2006) ran ns-2 2.28 (Feb 2005); every
# Agent/TCP, Agent/TCP/Sack1 and Agent/TCPSink default that differs between
# 2.35 and 2.28 is set back below (values of 2.28 read in ns-2.28's
# tcl/lib/ns-default.tcl and tcp/tcp.cc). Code changes since 2.28 that no
# variable undoes (they stay as in 2.35):
#   - tcp.cc limited_slow_start(): 2.28 divides by int(cwnd/(max_ssthresh/2)),
#     0 below max_ssthresh/2, making cwnd_ infinite (then window_ alone limits)
#     when congestion avoidance starts below 50 packets after a timeout (the
#     RFC 3742 rule runs while last_cwnd_action_ is 0 or TIMEOUT); 2.35 tests
#     round > 0 and keeps the ordinary increase;
#   - tcp.cc rtt_backoff(): 2.28 stops doubling t_backoff_ at 64; 2.35 goes on
#     while the RTO is below maxrto_ (here 100000 s);
#   - tcp-sack1.cc send_much(): 2.28 sends only while t_seqno_ < curseq_, 2.35
#     while last_ack_ + 1 < curseq_ (retransmits holes once all new data is
#     sent: the end of web transfers and of stopped flows);
#   - tcp.cc output(): a lost SYN retransmitted advanced curseq_ again in 2.28.

set wall0 [clock milliseconds]

set err stderr
proc die {msg} {
    global err
    puts $err "mascolo.tcl: $msg"
    flush $err
    exit 2
}
proc warn {msg} {
    global err
    puts $err "mascolo.tcl: $msg"
}

if {$argc < 1} {
    die "usage: ns mascolo.tcl PARAMS.tcl"
}
array set P {
    web {} trace 0 trace_interval 0.1 trace_flows {} seed 1
    packet_size 1460 window 100000 max_ssthresh 100
    stop_mode drain linux_ts_option_size 0
}
source [lindex $argv 0]
if {![info exists P(linux_max_ssthresh)]} {
    set P(linux_max_ssthresh) $P(max_ssthresh)
}
foreach k {duration phases variant bneck hosts flows} {
    if {![info exists P($k)]} {
        die "P($k) is not set in [lindex $argv 0]"
    }
}
if {[lindex $P(phases) 0] != 0 || [lindex $P(phases) end] != $P(duration)} {
    die "P(phases) must run from 0 to P(duration): $P(phases)"
}
if {![string is integer -strict $P(seed)] || $P(seed) <= 0} {
    # ns-2's "seed 0" seeds heuristically (tools/rng.cc): not reproducible.
    die "P(seed) must be a positive integer, not $P(seed)"
}
if {$P(stop_mode) ni {drain ftp}} {
    die "P(stop_mode) must be drain or ftp, not $P(stop_mode)"
}

# ---------------------------------------------------------------------------
# stdout carries the records only. ns-2's C++ code writes to stdout with
# printf: TCP-Linux's "select_ca" echo, its printk notices, the "resizing
# timestamp table" note of bugfix_ts_ (which select_ca turns on). C stdio
# buffers those apart from Tcl's channel, so they could land inside a record.
# On Linux, a second handle on the same stdout (/proc/self/fd/1, opened to
# append) takes the records, and fd 1 itself (C's stdout and Tcl's "puts"
# default) is re-opened on stderr (to append), which also carries this
# script's own messages. Elsewhere (no /proc) the records go to stdout as is.
set out stdout
if {![catch {open /proc/self/fd/1 {WRONLY APPEND}} ch]} {
    flush stdout
    close stdout
    # The lowest free descriptor, 1, is reused by the next open.
    if {[catch {open /proc/self/fd/2 {WRONLY APPEND}} e]} {
        set e [open /dev/null w]
    } else {
        set err $e
    }
    set out $ch
}
fconfigure $out -buffering full -buffersize 65536
fconfigure $err -buffering line

global defaultRNG
$defaultRNG seed $P(seed)

set ns [new Simulator]

# ---------------------------------------------------------------------------
# Agent defaults, for every TCP sender (bulk and web) and sink.
# [2.35 default | 2.28-era value] and the date ns-default.tcl gives.

Agent/TCP set packetSize_ $P(packet_size) ;  # payload; 1460 + 40 = 1500 B packets
Agent/TCP set window_ $P(window) ;           # [20 | 20] never limiting
Agent/TCP set max_ssthresh_ $P(max_ssthresh) ; # [0 | 0] RFC 3742 limited slow start
Agent/TCP set windowInit_ 2 ;        # [2 | 2] changed 2001/5/26
Agent/TCP set windowInitOption_ 1 ;  # [1 | 1]
Agent/TCP set syn_ true ;            # [true | true] changed 2001/5/17: packet 0, 40 B
Agent/TCP set delay_growth_ true ;   # [true | true] changed 2001/5/17: cwnd 1 until
                                     #   packet 0 is ACKed, then windowInit_
Agent/TCP set tcpTick_ 0.01 ;        # [0.01 | 0.01] changed 2002/3/7
Agent/TCP set minrto_ 0.2 ;          # [0.2 | 0.2] changed 2004/10/14
Agent/TCP set rfc2988_ true ;        # [true | true] minrto_ before the backoff
Agent/TCP set rtxcur_init_ 6.0 ;     # [3.0 | 6.0] changed 2006/1/21
Agent/TCP set maxrto_ 100000 ;       # [60 | 100000] changed 2007/3/28
Agent/TCP set updated_rttvar_ false ;# [true | absent] added 2006/1/21; 2.35's C++
                                     #   never reads it (rtt_update is 2.28's)
Agent/TCP set numdupacks_ 3 ;        # [3 | 3]
Agent/TCP set numdupacksFrac_ 100 ;  # [-1 | 100] added 2002/10/18 as 100, -1 from
                                     #   2006/9/27. tcp.cc numdupacks(cwnd) =
                                     #   max(numdupacks_, int(cwnd)/numdupacksFrac_):
                                     #   Sack1 recv() fast-retransmits on dupack
                                     #   number max(3, cwnd/100) (8 at cwnd 834)
Agent/TCP set precisionReduce_ false ;# [true | false] changed 2006/1/24: integer
                                     #   window halving in slowdown()
Agent/TCP set bugfix_ss_ 0 ;         # [1 | absent] added 2006/6/13: with 1, a
                                     #   dupack with highest_ack_ == 0 always takes
                                     #   the fast-retransmit action (dupack_action)
                                     #   and a timeout before any ACK drops
                                     #   windowInit_ to 1 (timeout); 0 = 2.28's code
Agent/TCP set singledup_ 1 ;         # [1 | 1] changed 2001/11/28: limited transmit
Agent/TCP set LimTransmitFix_ false ;# [false | false] added 2003/3/31
Agent/TCP set useHeaders_ true ;     # [true | true] changed 2001/11/28: +40 B
Agent/TCP set timestamps_ false ;    # [false | false]
Agent/TCP set ts_resetRTO_ false ;   # [false | false] added 2003/7/24
Agent/TCP set maxcwnd_ 0 ;           # [0 | 0] no cap
Agent/TCP set maxburst_ 0 ;          # [0 | 0] no burst limit
Agent/TCP set aggressive_maxburst_ 1 ;# [1 | 1] added 2003/6/2
Agent/TCP set overhead_ 0 ;          # [0 | 0]
Agent/TCP set windowOption_ 1 ;      # [1 | 1] Reno AIMD (HSTCP: 8, below)
Agent/TCP set decrease_num_ 0.5 ;    # [0.5 | 0.5]
Agent/TCP set increase_num_ 1.0 ;    # [1.0 | 1.0]
Agent/TCP set low_window_ 38 ;       # [38 | 38] HSTCP (RFC 3649), changed 2002/8/12
Agent/TCP set high_window_ 83000 ;   # [83000 | 83000]
Agent/TCP set high_p_ 0.0000001 ;    # [1e-7 | 1e-7]
Agent/TCP set high_decrease_ 0.1 ;   # [0.1 | 0.1]
Agent/TCP set cwnd_range_ 0 ;        # [0 | 0] changed 2004/6/6
Agent/TCP set exitFastRetrans_ true ;# [true | true] added 2003/7/28
Agent/TCP set bugFix_ true ;         # [true | true]
Agent/TCP set bugFix_ack_ false ;    # [false | false] added 2003/8/13
Agent/TCP set bugFix_ts_ false ;     # [false | false] added 2003/8/13
Agent/TCP set partial_ack_ false ;   # [false | false] added 2002/12/28
Agent/TCP set oldCode_ false ;       # [false | false]
Agent/TCP set slow_start_restart_ true ; # [true | true]
Agent/TCP set restart_bugfix_ true ; # [true | true]
Agent/TCP set timerfix_ true ;       # [true | true] added 2001/5/11
Agent/TCP set ecn_ 0 ;               # [0 | 0]
Agent/TCP set SetCWRonRetransmit_ true ; # [true | absent] added 2005/6/19 (false),
                                     #   true from 2008/6/5 = 2.28's code (CWR on
                                     #   any packet; ECN only, off here)
Agent/TCP set max_connects_ -1 ;     # [-1 | absent] added 2007/9/25: -1 = no
                                     #   limit on SYN retransmissions, as 2.28
Agent/TCP set qs_enabled_ false ;    # [false | false] Quick-Start off
Agent/TCP set frto_enabled_ 0 ;      # [0 | 0] added 2004/10/26
Agent/TCP set sfrto_enabled_ 0 ;     # [0 | 0] added 2004/10/26

Agent/TCPSink set packetSize_ 40 ;        # [40 | 40] ACK size
Agent/TCPSink set maxSackBlocks_ 3 ;      # [3 | 3]
Agent/TCPSink set ts_echo_bugfix_ true ;  # [true | true] changed 2003/8/13
Agent/TCPSink set ts_echo_rfc1323_ false ;# [false | false] (TCP-Linux's sinks: true)
Agent/TCPSink set generateDSacks_ false ; # [false | false]
Agent/TCPSink set RFC2581_immediate_ack_ true ; # [true | true]
Agent/TCPSink set ecn_syn_ false ;        # [false | absent] added 2005/11/21 (ECN)
Agent/TCPSink set SYN_immediate_ack_ false ; # [true | absent] added 2010/2/2; read
                                          #   by DelAck sinks only (none here)
# The sinks are Agent/TCPSink/Sack1: one ACK per segment, as the paper's.

# TCP-Linux (tcp/tcp-linux.cc, ns-2.35 only; May 2006): the sender of BIC,
# CUBIC, H-TCP, STCP and Westwood+ here, because ns-2.35 has no Sack1-style
# agent for them. It is NOT the paper's sender: its own SACK scoreboard
# (ScoreBoard1: a hole is lost once SACKs reach 4 segments above it, a
# fixed threshold, numdupacksFrac_ unused), rate
# halving in recovery, cwnd 1 after a timeout, Linux's congestion modules of
# 2.6.22 (tcp/linux/src), RTT from timestamps on every ACK, a 1 ms timer tick
# (select_ca sets tcp_tick_ = 1/JIFFY_RATIO), Linux's rttvar update, and no
# RFC 3742 (sysctl_tcp_max_ssthresh is 0 and not settable): max_ssthresh_ only
# sets the initial ssthresh_ (reset(): min(window_, max_ssthresh_), 100),
# after which the module's own increase runs (for westwood and reno, one
# segment per RTT from 100: about 25 s to fill 250 Mb/s x 40 ms, where the
# Sack1 agents' limited slow start adds 50 per RTT until their first loss).
# Its documented set-up (tcl/ex/tcp-linux/simple.tcl): timestamps_ true on the
# agent, ts_echo_rfc1323_ true on an Agent/TCPSink/Sack1, "$tcp select_ca"
# at time 0. Agent/TCP/Linux's own class defaults (ns-default.tcl):
# rtxcur_init_ 3, maxrto_ 120, minrto_ 0.2, ts_resetRTO_ true,
# delay_growth_ false; the timer values are set to the Sack1 agents' here.
Agent/TCP/Linux set timestamps_ true ;    # [false] the module needs per-ACK RTTs
Agent/TCP/Linux set ts_option_size_ $P(linux_ts_option_size) ; # [10] 0: the
                                          #   option is not counted, the packets
                                          #   stay 1500 B like the Sack1 flows'
Agent/TCP/Linux set ts_resetRTO_ true ;   # [true] Linux: an RTT sample ends backoff
Agent/TCP/Linux set rtxcur_init_ 6.0 ;    # [3] as the Sack1 agents
Agent/TCP/Linux set maxrto_ 100000 ;      # [120] as the Sack1 agents
Agent/TCP/Linux set minrto_ 0.2 ;         # [0.2]
Agent/TCP/Linux set max_ssthresh_ $P(linux_max_ssthresh) ; # [0] see above
Agent/TCP/Linux set delay_growth_ true ;  # [false] packet 0 alone, then cwnd 2
                                          #   (the module's slow start on its ACK),
                                          #   as the Sack1 agents

# Speed only: a new agent looks each of its ~130 bound variables up class by
# class (tclcl's init-instvar, a caught error per miss), 1.4 ms per
# Agent/TCP/Sack1, most of a scenario B run's time with its 40,000 web
# transfers. Copying the inherited class variables onto the leaf classes
# gives every agent the same values, found at the first try.
proc flatten_class_vars {cl} {
    set chain {}
    for {set c [$cl info superclass]} {$c ni {"" SplitObject TclObject}} {set c [$c info superclass]} {
        lappend chain $c
    }
    foreach c $chain {
        foreach v [$c info vars] {
            if {[catch {$cl set $v}]} { $cl set $v [$c set $v] }
        }
    }
}
flatten_class_vars Agent/TCP/Sack1
flatten_class_vars Agent/TCPSink/Sack1

# FAST: the University of Melbourne CUBIN FAST TCP module (tcp/tcp-fast.cc,
# version 1.1.x), which ns-2.35 does not ship: tools/ns2_fast_module.sh builds
# it into an ns-2.35 tree from the public hbatmit/ns2.35 (the module's files
# and the defaults it adds to ns-default.tcl), with the window updated every
# RTT as before 1.1.3 (mascolo2006 predates it). Agent/TCP/Fast derives from
# Agent/TCP (its own SACK recovery on a scoreboard) and takes the sink of the
# module's test scripts, Agent/TCPSink/Sack1; every Agent/TCP setting above
# applies to it; max_ssthresh_ does not (the module never calls opencwnd():
# below mi_threshold_ of queueing delay it adds a segment per ACK). Kept from
# the module's defaults: cwnd_update_period_ 0.01, mi_threshold_ 0.00075,
# high_accuracy_cwnd_ 2.
if {$P(variant) eq "FAST"} {
    flatten_class_vars Agent/TCP/Fast
    Agent/TCP/Fast set alpha_ 100 ;       # [100] packets queued per flow (mascolo2006)
    Agent/TCP/Fast set beta_ 100 ;        # [100] alpha_ = beta_: one target
    Agent/TCP/Fast set gamma_ 0.5 ;       # [0.5] w <- (1-g) w + g (w baseRTT/avgRTT + alpha)
}

# The variants of the bulk flows.
set linux_ca {BIC bic CUBIC cubic H-TCP htcp STCP scalable Westwood+ westwood}
switch -glob -- $P(variant) {
    SACK { set agent_class Agent/TCP/Sack1; set wopt 1; set ca "" }
    HSTCP {
        # ns-2's RFC 3649 code in tcp.cc (opencwnd, slowdown, decrease_param):
        # low_window_ 38, high_window_ 83000, high_p_ 1e-7, high_decrease_ 0.1
        # (class defaults above), on the Sack1 agent as in 2.28.
        set agent_class Agent/TCP/Sack1; set wopt 8; set ca ""
    }
    STCP-binomial {
        # The paper's STCP (a = 0.01 per ACK, b = 0.125) as ns-2's own
        # binomial controls (tcp.cc opencwnd case 6: cwnd_ += increase_num_ /
        # (cwnd_ * cwnd_^k); slowdown: W - (1 - decrease_num_) W^l) with
        # k = -1, l = 1 on the Sack1 agent. ns-2.35's other STCP is TCP-Linux's
        # tcp_scalable.c of Linux 2.6.22 (AI_CNT 50: a = 0.02 per ACK with
        # ns-2's sink, which acknowledges every segment).
        set agent_class Agent/TCP/Sack1; set wopt 6; set ca ""
    }
    linux:* { set agent_class Agent/TCP/Linux; set wopt 1; set ca [string range $P(variant) 6 end] }
    FAST {
        # windowOption_ 1: the module's growth never reads it, but
        # TcpAgent::slowdown() (its fast retransmit and timeout) does: 1 halves.
        set agent_class Agent/TCP/Fast; set wopt 1; set ca ""
    }
    default {
        if {![dict exists $linux_ca $P(variant)]} {
            die "unknown variant $P(variant) (SACK HSTCP BIC CUBIC H-TCP STCP Westwood+ FAST)"
        }
        # Westwood+: the paper ran ns-2's WestwoodNR agent (NewReno, no SACK);
        # ns-2.35 has no Westwood agent, and TCP-Linux needs SACK (its
        # scoreboard detects losses from SACK blocks only: with a non-SACK
        # sink it would recover by timeouts alone), so Westwood+ runs here as
        # Linux's tcp_westwood.c with SACK, the closest available.
        set agent_class Agent/TCP/Linux; set wopt 1; set ca [dict get $linux_ca $P(variant)]
    }
}

# ---------------------------------------------------------------------------
# Topology.
set node(R1) [$ns node]
set node(R2) [$ns node]
lassign $P(bneck) rate delay qlim
$ns duplex-link $node(R1) $node(R2) $rate $delay DropTail
$ns queue-limit $node(R1) $node(R2) $qlim
$ns queue-limit $node(R2) $node(R1) $qlim
foreach h $P(hosts) {
    lassign $h name router rate delay qlim
    if {$router ni {R1 R2}} {
        die "host $name: router $router is not R1 or R2"
    }
    set node($name) [$ns node]
    $ns duplex-link $node($name) $node($router) $rate $delay DropTail
    $ns queue-limit $node($name) $node($router) $qlim
    $ns queue-limit $node($router) $node($name) $qlim
}

# ---------------------------------------------------------------------------
# Bulk flows.
set duration $P(duration)
set bulk {}
foreach f $P(flows) {
    lassign $f name from to start stop
    foreach h [list $from $to] {
        if {![info exists node($h)]} { die "flow $name: no host $h" }
    }
    set tcp [new $agent_class]
    set sink [new Agent/TCPSink/Sack1]
    if {$ca ne ""} {
        $sink set ts_echo_rfc1323_ true
    } else {
        $tcp set windowOption_ $wopt
        if {$wopt == 6} {
            $tcp set k_parameter_ -1.0
            $tcp set l_parameter_ 1.0
            $tcp set increase_num_ 0.01
            $tcp set decrease_num_ 0.875
        }
    }
    $ns attach-agent $node($from) $tcp
    $ns attach-agent $node($to) $sink
    $ns connect $tcp $sink
    set ftp [new Application/FTP]
    $ftp attach-agent $tcp
    if {$ca ne ""} {
        # Before any start at time 0 (events at equal times run in order).
        $ns at 0.0 "$tcp select_ca $ca"
    }
    if {$stop < 0 || $stop > $duration} { set stop $duration; set stops 0 } else { set stops 1 }
    if {$start < $duration && $start < $stop} {
        $ns at $start "$ftp start"
        if {$stops} {
            $ns at $stop "stop_flow $name"
        }
    }
    set F($name,tcp) $tcp
    set F($name,sink) $sink
    set F($name,ftp) $ftp
    set F($name,start) $start
    set F($name,stop) $stop
    # Wire size of a data packet: payload + tcp.cc headersize().
    set hdr [$tcp set tcpip_base_hdr_size_]
    if {[$tcp set timestamps_]} { incr hdr [$tcp set ts_option_size_] }
    set F($name,wire) [expr {[$tcp set packetSize_] + $hdr}]
    set F($name,syn) [expr {[$tcp set syn_] ? [$tcp set tcpip_base_hdr_size_] : 0}]
    set F($name,bytes_last) 0
    set F($name,bytes_acc) 0
    lappend bulk $name
}

# Stopping a bulk flow: the application stops writing; everything sent so
# far is still delivered (tcplab's `stop`). Application/FTP stop
# (tcl/lib/ns-source.tcl) does "advance 0; close": advance 0 sets curseq_ to
# maxseq_ (tcp.cc command "advance"), and close is a no-op for one-way agents.
# Since packets go out while seqno < curseq_, that leaves the highest segment
# sent (maxseq_) outside the transfer: if it is lost it is never sent again
# (Sack1's send_much loops while last_ack_ + 1 < curseq_), and the sender
# times out, backing off, for the rest of the run. "drain" sets curseq_ to
# maxseq_ + 1 instead: no new data, every segment sent is repaired.
proc stop_flow {name} {
    global F P
    set tcp $F($name,tcp)
    if {$P(stop_mode) eq "ftp"} {
        $F($name,ftp) stop
    } else {
        $tcp advance [expr {[$tcp set maxseq_] + 1}]
    }
}

# Counters. The sink's bytes_ is a C int (wraps past 2^31): accumulate its
# increments modulo 2^32, polled every second (at most 125 MB arrive per
# second on a 1 Gb/s access link).
proc poll_bytes {name} {
    global F
    set b [$F($name,sink) set bytes_]
    set d [expr {($b - $F($name,bytes_last)) & 0xFFFFFFFF}]
    set F($name,bytes_last) $b
    incr F($name,bytes_acc) $d
}
proc counters {name} {
    global F
    poll_bytes $name
    set tcp $F($name,tcp)
    set acc $F($name,bytes_acc)
    # acc = syn + n * wire (packet 0 is delivered first, 40 B with syn_)
    set n [expr {$acc / $F($name,wire)}]
    set r [expr {$acc % $F($name,wire)}]
    if {$r != 0 && $r != $F($name,syn)} {
        warn "flow $name: sink bytes $acc not a whole number of $F($name,wire)-byte packets"
    }
    set sent [$tcp set ndatapack_]
    if {$F($name,syn) && $sent > 0} { incr sent -1 }
    return [list $n $sent [$tcp set nrexmitpack_] [$tcp set nrexmit_]]
}
foreach name $bulk {
    set LAST($name) {0 0 0 0}
}
proc poll_all {} {
    global ns bulk
    foreach name $bulk { poll_bytes $name }
    $ns at [expr {[$ns now] + 1.0}] poll_all
}
$ns at 1.0 poll_all

proc phase_end {k t0 t1} {
    global bulk LAST out
    foreach name $bulk {
        set now [counters $name]
        set d {}
        foreach a $now b $LAST($name) { lappend d [expr {$a - $b}] }
        puts $out "P $name $k $t0 $t1 [join $d { }]"
        set LAST($name) $now
    }
}
set phases $P(phases)
for {set k 0} {$k < [llength $phases] - 1} {incr k} {
    set t0 [lindex $phases $k]
    set t1 [lindex $phases [expr {$k + 1}]]
    $ns at $t1 [list phase_end $k $t0 $t1]
}

# cwnd traces: every trace_interval, at multiples of it, from each traced
# flow's start to its stop.
proc trace_cwnd {i} {
    global ns P F out duration
    set dt $P(trace_interval)
    set t [expr {$i * $dt}]
    foreach name $P(trace_flows) {
        if {$t >= $F($name,start) && $t <= $F($name,stop)} {
            puts $out [format "W %s %.4f %.2f" $name $t [$F($name,tcp) set cwnd_]]
        }
    }
    set t [expr {($i + 1) * $dt}]
    if {$t <= $duration + 1e-9} {
        $ns at $t [list trace_cwnd [expr {$i + 1}]]
    }
}
if {$P(trace) && [llength $P(trace_flows)] > 0} {
    set first $duration
    foreach name $P(trace_flows) {
        if {![info exists F($name,tcp)]} { die "trace_flows: no flow $name" }
        if {$F($name,start) < $first} { set first $F($name,start) }
    }
    set i0 [expr {int(ceil($first / $P(trace_interval) - 1e-9))}]
    $ns at [expr {$i0 * $P(trace_interval)}] [list trace_cwnd $i0]
}

# ---------------------------------------------------------------------------
# Web transfers: created when they start (one pending event at a time), torn
# down 2 s after their last ACK (tcp.cc finish() calls "done"): by then
# nothing of theirs is in flight (RTTs here are below 0.5 s). The sender's
# timers are cancelled (reset) first: an agent deleted with its retransmit
# timer pending (ns-2 re-arms it even when all is ACKed) would crash the
# scheduler; reset also draws a new boot_time_ from the seeded RNG. Detached ports hold the null agent until a new agent reuses them.
set web [lsort -real -index 2 $P(web)]
unset P(web) ;  # ~10 MB for 40,000 transfers; the sorted copy is used
set nweb [llength $web]
set web_i 0
set web_started 0
set web_done_n 0
set web_pending {}
set web_fct 0.0
set web_dropped 0
proc web_next {} {
    global ns web nweb web_i
    set now [$ns now]
    while {$web_i < $nweb} {
        set w [lindex $web $web_i]
        if {[lindex $w 2] > $now + 1e-12} { break }
        web_start {*}$w
        incr web_i
    }
    if {$web_i < $nweb} {
        $ns at [lindex $web $web_i 2] web_next
    }
}
proc web_start {from to start pkts} {
    global ns node W web_started
    if {$pkts < 1} { return }
    set s [new Agent/TCP/Sack1]
    set k [new Agent/TCPSink/Sack1]
    $ns attach-agent $node($from) $s
    $ns attach-agent $node($to) $k
    $ns connect $s $k
    set W($s) [list $k $from $to $start]
    incr web_started
    $s advanceby $pkts
}
Agent/TCP/Sack1 instproc done {} {
    global W ns web_pending web_done_n web_fct
    if {![info exists W($self)]} { return }
    incr web_done_n
    set now [$ns now]
    set web_fct [expr {$web_fct + $now - [lindex $W($self) 3]}]
    lappend W($self) $now
    lappend web_pending [list [expr {$now + 2.0}] $self]
}
proc web_sweep {} {
    global ns W node web_pending
    set now [$ns now]
    set keep {}
    foreach e $web_pending {
        lassign $e t s
        if {$t > $now} { lappend keep $e; continue }
        lassign $W($s) k from to
        $s reset
        $ns detach-agent $node($from) $s
        $ns detach-agent $node($to) $k
        delete $s
        delete $k
        unset W($s)
    }
    set web_pending $keep
    $ns at [expr {$now + 1.0}] web_sweep
}
if {$nweb > 0} {
    foreach w $web {
        lassign $w from to start pkts
        foreach h [list $from $to] {
            if {![info exists node($h)]} { die "web transfer: no host $h" }
        }
    }
    # Transfers starting at or after the end are left out.
    while {$nweb > 0 && [lindex $web end 2] >= $duration} {
        set web [lrange $web 0 end-1]
        incr nweb -1
        incr web_dropped
    }
    if {$nweb > 0} {
        set t [lindex $web 0 2]
        if {$t < 0} { die "web transfer starting at $t" }
        $ns at $t web_next
        $ns at 1.0 web_sweep
    }
}

# ---------------------------------------------------------------------------
proc finish {} {
    global out err wall0 web_started web_done_n web_fct nweb web_dropped
    if {$nweb > 0 || $web_dropped > 0} {
        global W
        set mean [expr {$web_done_n > 0 ? $web_fct / $web_done_n : 0}]
        set oldest ""
        foreach s [array names W] {
            if {[llength $W($s)] == 4 && ($oldest eq "" || [lindex $W($s) 3] < $oldest)} {
                set oldest [lindex $W($s) 3]
            }
        }
        warn [format "web: %d started, %d completed (mean %.3f s), %d unfinished (oldest started at %s), %d after the end" \
                  $web_started $web_done_n $mean [expr {$web_started - $web_done_n}] \
                  [if {$oldest eq ""} {list -} {format %.3f $oldest}] $web_dropped]
    }
    puts $out [format "E %.3f" [expr {([clock milliseconds] - $wall0) / 1000.0}]]
    flush $out
    flush $err
    exit 0
}
$ns at [expr {$duration + 1e-6}] finish
$ns run
