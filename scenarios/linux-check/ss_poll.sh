#!/usr/bin/env bash
# Poll `ss -tmi` inside a real-stack run's host namespace: the receive
# buffer (skmem rb), rcv_ssthresh, rcv_space and rcv_rtt of a flow's
# receiving socket over time, what docs/reproduce.md (linux-check, "The
# suite with Linux's receive window") compared with the simulator's
# receive-window model (crates/tcp/src/rcvwnd.rs).
#
#   sudo tcplab run SCENARIO --backend linux --seed S --out OUT &
#   sudo scenarios/linux-check/ss_poll.sh 0 out/ss.log      # flow 0's receiver
#
# FLOW is the flow's index in the scenario (its receiving thread is
# tcplab-rx-FLOW, in the receiving host's network namespace); the receiving
# socket is the one on port 5001 (a host receiving several flows shows one
# line each; the peer port is 10000 + the flow index). Every PERIOD seconds (default 0.1) it
# appends a line "T <unix time>" and ss's output; it stops when the run's
# namespace goes away (or kill it).
set -euo pipefail
flow=${1:?usage: ss_poll.sh FLOW OUT [PERIOD]}
out=${2:?usage: ss_poll.sh FLOW OUT [PERIOD]}
period=${3:-0.1}
task=""
for _ in $(seq 1 600); do
    task=$(ps -eLo pid,tid,comm | awk -v n="tcplab-rx-$flow" '$3 == n { print $1 "/task/" $2; exit }')
    [ -n "$task" ] && break
    sleep 0.1
done
if [ -z "$task" ]; then
    echo "ss_poll.sh: no thread tcplab-rx-$flow appeared within 60 s" >&2
    exit 2
fi
echo "# tcplab-rx-$flow: /proc/$task" > "$out"
exec nsenter --net="/proc/$task/ns/net" bash -c "
    while [ -e /proc/$task ]; do
        echo \"T \$(date +%s.%N)\"
        ss -tmiHn '( sport = :5001 )' 2>/dev/null || true
        sleep $period
    done" >> "$out"
