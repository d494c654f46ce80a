"""Where each sender's packets reach the fair part's Drop Tail bottleneck in
its 600 us packet cycle, and how often they are dropped there, by kind:
new data or retransmission, sent on an ACK's arrival or later (the pacing
timer). Reads the captures of fair-bbr-capture.toml (the senders' access
links both ways and r1->r2), from the simulator or the real stack (both
stamp a packet with the ideal time its link starts to send it).

    python3 scenarios/linux-check/phase.py DIR [DIR...]

A packet from host aN reaches r1 its serialisation at 1 Gb/s and aN's
access delay after its capture time; it was dropped at r1 unless r1->r2
sent a packet with its flow, sequence number and length within 80 ms
after (the queue holds 100 packets of 600 us). "On an ACK": sent within
15 us of an ACK's arrival at aN. The phase is the time from the last
r1->r2 transmission start to the arrival, in 100 us bins (the last bin:
1 ms or more, an idle bottleneck). Measured from 30 to 90 s. (docs/reproduce.md,
linux-check, "Fair BBR".)
"""

from __future__ import annotations

import bisect
import collections
import sys

import dpkt

DELAY = {"a1": 2e-3, "a2": 7e-3, "a3": 17e-3, "a4": 37e-3}
WINDOW = (30.0, 90.0)
ON_ACK = 15e-6


def read(d: str, link: str) -> list[tuple[float, bytes, int, int, int, int]]:
    """(time, source address, source port, sequence, payload, IP length)."""
    out = []
    with open(f"{d}/capture_{link}.pcap", "rb") as f:
        for ts, buf in dpkt.pcap.Reader(f):
            eth = dpkt.ethernet.Ethernet(buf)
            ip = eth.data if isinstance(eth.data, dpkt.ip.IP) else dpkt.ip.IP(buf)
            tcp = ip.data
            payload = ip.len - 4 * ip.hl - 4 * tcp.off
            out.append((float(ts), ip.src, tcp.sport, tcp.seq, payload, ip.len))
    return out


def main() -> None:
    for d in sys.argv[1:]:
        print(d)
        bn = read(d, "r1_r2")
        starts = [p[0] for p in bn]
        sent: dict[tuple[bytes, int, int, int], list[float]] = collections.defaultdict(list)
        for p in bn:
            if p[4] > 0:
                sent[p[1:5]].append(p[0])
        for host, delay in DELAY.items():
            acks = sorted(p[0] + p[5] * 8 / 1e9 + delay for p in read(d, f"r1_{host}") if p[4] == 0)
            counts: dict[tuple[str, str], list[int]] = collections.defaultdict(lambda: [0, 0])
            phases: dict[tuple[str, str], collections.Counter[int]] = collections.defaultdict(
                collections.Counter
            )
            highest = None
            for ts, src, sport, seq, payload, length in read(d, f"{host}_r1"):
                if payload == 0:
                    continue
                end = (seq + payload) % 2**32
                retrans = highest is not None and (highest - end) % 2**32 < 2**31
                if not retrans:
                    highest = end
                if not WINDOW[0] <= ts <= WINDOW[1]:
                    continue
                arrival = ts + length * 8 / 1e9 + delay
                i = bisect.bisect_right(acks, ts + 1e-9) - 1
                trigger = "on an ACK" if i >= 0 and ts - acks[i] < ON_ACK else "later"
                kind = ("retrans" if retrans else "new", trigger)
                kept = any(
                    arrival - 1e-9 <= t <= arrival + 0.08
                    for t in sent.get((src, sport, seq, payload), ())
                )
                j = bisect.bisect_right(starts, arrival) - 1
                phase = (arrival - starts[j]) * 1e6 if j >= 0 else 1e9
                counts[kind][0] += 1
                counts[kind][1] += not kept
                phases[kind][min(int(phase // 100), 10)] += 1
            print(f"  {host}")
            for kind in sorted(counts):
                n, dropped = counts[kind]
                hist = " ".join(f"{100 * phases[kind][b] / max(n, 1):3.0f}" for b in range(11))
                print(
                    f"    {kind[0]:7} {kind[1]:9} {n:6d} sent, {100 * dropped / max(n, 1):5.1f} % "
                    f"dropped; phase (% per 100 us): {hist}"
                )


if __name__ == "__main__":
    main()
