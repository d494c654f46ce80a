"""Burst structure of the two opposite flows on the braud2016 link, from packet
captures of a simulated and a real-stack run of the same cell: what showed
that the simulated Cubic download against a Cubic upload (250-packet uplink)
runs in a more clustered regime of the two-way interaction than the kernel's
(docs/reproduce.md, linux-check).

    tcplab run scenarios/linux-check/cubic-250-capture.toml --seed S --out /tmp/sim
    sudo tcplab run scenarios/linux-check/cubic-250-capture.toml --backend linux \
        --seed S --out /tmp/linux
    python3 scenarios/linux-check/bursts.py /tmp/sim /tmp/linux

Per run directory (captures of server->router, router->client and
client->router, or router->modem and modem->router where a modem stands in
front of the client), over the measurement window (20-100 s):

- on the uplink (client->router, departures in FIFO order = arrival order):
  runs of consecutive download ACKs and of consecutive upload data segments;
- the gaps between the upload's ACKs reaching the client (router->client);
- the share of the window the server spends in silences over 20 ms between
  download data segments (the download sends in bursts);
- the seconds of the whole run in the whole-window cycle (two or more of the
  server's download silences over 100 ms in the second: the upload's window
  leaves in one burst per round trip and its data holds the download's ACKs
  that long), and the last of them;
- download data segments dropped (sent by the server, never delivered to
  the client), grouped into loss events (drops less than 0.5 s apart);
- the server's delay from an upload segment's arrival to the ACK that
  acknowledges it (processing time on the real stack, 0 in the simulator).

Needs dpkt (installed with the dev tools: make install-dev).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import dpkt
import numpy as np

WINDOW = (20.0, 100.0)
UP_RATE, UP_DELAY = 2e6, 0.052  # the uplink, as cells.toml
DOWN_RATE, DOWN_DELAY = 10e6, 0.042  # the downlink


Pkt = tuple[float, bytes, bytes, int, int, int, int, int, int, int]


def packets(path: Path) -> list[Pkt]:
    """(time, src, dst, sport, dport, seq, ack, flags, payload, ip length) of
    each TCP/IPv4 packet of an Ethernet pcap."""
    out = []
    with path.open("rb") as f:
        for stamp, buf in dpkt.pcap.Reader(f):
            ts = float(stamp)
            ip = dpkt.ethernet.Ethernet(buf).data
            if not isinstance(ip, dpkt.ip.IP) or not isinstance(ip.data, dpkt.tcp.TCP):
                continue
            t = ip.data
            payload = ip.len - ip.hl * 4 - t.off * 4
            row = (ts, ip.src, ip.dst, t.sport, t.dport, t.seq, t.ack, t.flags, payload, ip.len)
            out.append(row)
    return out


def in_window(t: float) -> bool:
    return WINDOW[0] < t < WINDOW[1]


def analyse(d: Path) -> dict[str, float]:
    s2r = packets(d / "capture_server_router.pcap")
    # The access link: router<->client, or router<->modem when a LAN hop
    # stands in front of the client (reno-cubic-40-modem-capture.toml).
    hop = "client" if (d / "capture_router_client.pcap").exists() else "modem"
    r2c = packets(d / f"capture_router_{hop}.pcap")
    c2r = packets(d / f"capture_{hop}_router.pcap")
    data = [p for p in s2r if p[8] > 0]
    server = data[0][1]
    res: dict[str, float] = {}

    # Uplink runs: A = a download ACK (to the server, no payload), D = upload data.
    kinds = "".join(
        "A" if p[8] == 0 and p[2] == server else "D" if p[8] > 0 else "o"
        for p in c2r
        if in_window(p[0])
    )
    res["download ACK run, mean"] = float(np.mean([len(m) for m in re.findall("A+", kinds)]))
    res["upload data run, mean"] = float(np.mean([len(m) for m in re.findall("D+", kinds)]))

    # The upload's ACKs reaching the client, and the server's download silences.
    up_acks = [p[0] for p in r2c if in_window(p[0]) and p[8] == 0]
    res["upload ACK gap at client, median ms"] = float(np.median(np.diff(up_acks)) * 1e3)
    dl = np.array([p[0] for p in data if in_window(p[0])])
    gaps = np.diff(dl)
    silent = gaps[gaps > 0.02].sum()
    res["download silences > 20 ms, share"] = float(silent / (WINDOW[1] - WINDOW[0]))

    # The whole-window cycle: the upload's window leaves in one burst per
    # round trip, its data holds the download's ACKs for 100 ms or more, and
    # the server's download falls silent that long two or more times a
    # second. Seconds of the run (from its start) in that cycle, and the last.
    alld = np.array([p[0] for p in data])
    ends = alld[1:][np.diff(alld) > 0.1]
    per_s = np.bincount(ends.astype(int)) if len(ends) else np.zeros(1, dtype=int)
    cycle = np.flatnonzero(per_s >= 2)
    res["whole-window cycle, seconds"] = float(len(cycle))
    res["whole-window cycle, last second"] = float(cycle[-1]) if len(cycle) else float("nan")

    # Drops of download data: transmissions of a sequence number never delivered.
    delivered: dict[int, int] = {}
    for p in r2c:
        if p[8] > 0 and p[1] == server:
            delivered[p[5]] = delivered.get(p[5], 0) + 1
    sent: dict[int, list[float]] = {}
    for p in data:
        sent.setdefault(p[5], []).append(p[0])
    drops = sorted(
        t for seq, ts in sent.items() for t in sorted(ts)[: max(len(ts) - delivered.get(seq, 0), 0)]
    )
    dt = np.array([t for t in drops if in_window(t)])
    events = np.split(dt, np.where(np.diff(dt) > 0.5)[0] + 1) if len(dt) else []
    res["download drops"] = float(len(dt))
    res["download loss events"] = float(len(events))
    res["drops per loss event, mean"] = float(np.mean([len(e) for e in events])) if events else 0.0

    # Server processing: upload segment arrival (uplink start + serialisation +
    # delay, then the 1 Gb/s hop) to the first ACK that covers it.
    arrive = {
        (p[5] + p[8]) & 0xFFFFFFFF: p[0] + p[9] * 8 / UP_RATE + UP_DELAY + p[9] * 8 / 1e9
        for p in c2r
        if p[8] > 0
    }
    last: dict[tuple[int, int], int] = {}
    delays = []
    for p in s2r:
        if p[8] != 0 or p[7] & dpkt.tcp.TH_SYN:
            continue
        key, a = (p[3], p[4]), p[6]
        prev = last.get(key)
        if prev is None or (a != prev and (a - prev) & 0xFFFFFFFF < 0x7FFFFFFF):
            last[key] = a
            if in_window(p[0]) and a in arrive:
                delays.append(p[0] - arrive[a])
    res["server ACK delay, median us"] = float(np.median(delays) * 1e6) if delays else float("nan")
    return res


def main() -> None:
    dirs = [Path(a) for a in sys.argv[1:]]
    if not dirs:
        sys.exit(__doc__)
    rows = {d: analyse(d) for d in dirs}
    names = list(next(iter(rows.values())))
    width = max(len(n) for n in names)
    print(" " * width + "".join(f"  {d.name[-14:]:>14}" for d in dirs))
    for n in names:
        print(f"{n:<{width}}" + "".join(f"  {rows[d][n]:>14.2f}" for d in dirs))


if __name__ == "__main__":
    main()
