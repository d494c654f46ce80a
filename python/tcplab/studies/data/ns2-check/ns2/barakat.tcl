# barakat.tcl: one barakat1999 run on ns-2.35, the reference of tcplab's `ns2`
# profile in `tcplab reproduce ns2-check` (see README.md beside this file).
#
#   ns barakat.tcl PARAMS.tcl
#
# PARAMS.tcl (written by tools/ns2_reference.py from the ns2-check scenario
# files) sets the global array P:
#   P(duration)        seconds
#   P(phases)          phase boundaries, 0 and the duration included
#   P(chain)           the forward path from the source to the destination, one
#                      {rate delay qlim kind back_rate} per link; kind is
#                      droptail, dropfront or randomdrop; qlim is ns-2's
#                      queue-limit (an arrival is dropped when the queue already
#                      holds qlim - 1 packets: queue/drop-tail.cc enque);
#                      back_rate the rate of the link back (ACKs)
#   P(packet_size)     packetSize_ (payload bytes; useHeaders_ adds 40)
#   P(window)          window_ (packets)
#   P(start)           the flow's start time, s
#   P(seed)            ns-2's default RNG (boot_time_, Random Drop's victim)
#   P(trace)           1 to print the cwnd every P(trace_interval) s
#
# Output, one record per line:
#   P flow phase t0 t1 delivered_pkts sent_pkts retrans_pkts timeouts
#   W flow time cwnd
#   E wall_seconds

source [lindex $argv 0]
set wall0 [clock milliseconds]
global defaultRNG
$defaultRNG seed $P(seed)

set ns [new Simulator]

# ns-2's one-way Agent/TCP (Tahoe, bugfix_) as it was in 1999. Each default
# ns-2.35 changed since is set back explicitly (2.35's value in brackets).
Agent/TCP set syn_ false ;            # [true, 2001/5/17] no packet 0
Agent/TCP set delay_growth_ false ;   # [true, 2001/5/17]
Agent/TCP set windowInit_ 1 ;         # [2, 2001/5/26]
Agent/TCP set tcpTick_ 0.1 ;          # [0.01, 2002/3/7]
Agent/TCP set minrto_ 0 ;             # [0.2, 2001/5/10] only the 2-tick floor
Agent/TCP set rfc2988_ false ;        # [true, 2002/3/7] minrto_ after backoff (moot: 0)
Agent/TCP set timerfix_ false ;       # [true, 2001/5/11] timer rearmed before the RTT update
Agent/TCP set maxrto_ 100000 ;        # [60, 2007/3/28]
Agent/TCP set rtxcur_init_ 6.0 ;      # [3.0, 2006/1/21]
Agent/TCP set updated_rttvar_ false ; # [true, 2006/1/21]
Agent/TCP set singledup_ 0 ;          # [1, 2001/11/28] no limited transmit
Agent/TCP set precisionReduce_ false ;# [true, 2006/1/24]
Agent/TCP set bugfix_ss_ 0 ;          # [1, 2006/6/13]
Agent/TCP set numdupacksFrac_ -1 ;    # [-1] numdupacks_ 3 whatever the window
Agent/TCP set useHeaders_ true ;      # [true, 2001/11/28] the wire adds 40 bytes:
                                      # 1999's packetSize_ 512 was the wire size,
                                      # so packetSize_ 472 gives the same packets
Agent/TCP set exitFastRetrans_ true
Agent/TCP set timestamps_ false
Agent/TCP set maxcwnd_ 0
Agent/TCP set maxburst_ 0
Agent/TCP set overhead_ 0
Agent/TCP set packetSize_ $P(packet_size)
Agent/TCP set window_ $P(window)

# Random Drop: Queue/RED's forced drop with a random victim, thresholds that
# no average reaches (no early drop), limit in packets.
Queue/RED set thresh_ 1000000
Queue/RED set maxthresh_ 2000000
Queue/RED set queue_in_bytes_ false
Queue/RED set bytes_ false
Queue/RED set drop_tail_ false
Queue/RED set drop_rand_ true
Queue/RED set gentle_ false

set nodes [list [$ns node]]
foreach l $P(chain) {
    lappend nodes [$ns node]
}
set i 0
foreach l $P(chain) {
    lassign $l rate delay qlim kind back
    set a [lindex $nodes $i]
    set b [lindex $nodes [expr {$i + 1}]]
    if {$kind eq "randomdrop"} { set q RED } else { set q DropTail }
    $ns simplex-link $a $b $rate $delay $q
    $ns queue-limit $a $b $qlim
    if {$kind eq "dropfront"} {
        [[$ns link $a $b] queue] set drop_front_ true
    }
    $ns simplex-link $b $a $back $delay DropTail
    $ns queue-limit $b $a 1000
    incr i
}

set tcp [new Agent/TCP]
set sink [new Agent/TCPSink]
$ns attach-agent [lindex $nodes 0] $tcp
$ns attach-agent [lindex $nodes end] $sink
$ns connect $tcp $sink
set ftp [new Application/FTP]
$ftp attach-agent $tcp
$ns at $P(start) "$ftp start"

set wire [expr {$P(packet_size) + 40}]
proc counters {} {
    global tcp sink wire
    return [list [expr {[$sink set bytes_] / $wire}] [$tcp set ndatapack_] \
                [$tcp set nrexmitpack_] [$tcp set nrexmit_]]
}
set last [list 0 0 0 0]
proc phase_end {k t0 t1} {
    global last
    set now [counters]
    set d {}
    foreach a $now b $last { lappend d [expr {$a - $b}] }
    puts "P tahoe $k $t0 $t1 [join $d { }]"
    set last $now
}
set phases $P(phases)
for {set k 0} {$k < [llength $phases] - 1} {incr k} {
    set t0 [lindex $phases $k]
    set t1 [lindex $phases [expr {$k + 1}]]
    $ns at $t1 "phase_end $k $t0 $t1"
}

proc trace_cwnd {dt} {
    global ns tcp
    set now [$ns now]
    puts [format "W tahoe %.4f %.3f" $now [$tcp set cwnd_]]
    $ns at [expr {$now + $dt}] "trace_cwnd $dt"
}
if {$P(trace)} {
    $ns at $P(start) "trace_cwnd $P(trace_interval)"
}

proc finish {} {
    global wall0
    puts [format "E %.3f" [expr {([clock milliseconds] - $wall0) / 1000.0}]]
    exit 0
}
$ns at [expr {$P(duration) + 1e-6}] "finish"
$ns run
