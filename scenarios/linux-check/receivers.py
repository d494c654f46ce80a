"""How the receivers of fair-bbr-capture.toml ACK out-of-order data, from
the captures of a simulated and a real-stack run: what showed that the
kernel counts a repair of several segments as the first duplicate of its
SACK compression (docs/reproduce.md, linux-check, fair BBR).

    tcplab run scenarios/linux-check/fair-bbr-capture.toml --seed 4 --out /tmp/sim
    sudo tcplab run scenarios/linux-check/fair-bbr-capture.toml --backend linux \
        --seed 4 --out /tmp/linux
    python3 scenarios/linux-check/receivers.py /tmp/sim /tmp/linux

Per receiver b1-b4, over 30-90 s, from the captures of r2->bN (the data it
gets; a capture is taken when the link starts to send, so a segment reaches
bN its serialisation and the link's 1 ms later) and of bN->r2 (its ACKs):

- its SACK-bearing ACKs, and those sent at once (within 0.3 ms of the
  segment that called for them): in all, and at the fourth or a later
  place at one cumulative ACK (which Linux's SACK compression holds unless
  quick ACKs or the third-SACK-block rule send them);
- after each repair that moves the cumulative ACK over more than one
  segment with holes remaining, how many SACK ACKs at that cumulative ACK
  leave at once before the first held one (Linux: 2 when the repair counts
  as the first duplicate, 3 when it does not).

Needs dpkt (installed with the dev tools: make install-dev).
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import dpkt
import numpy as np

WINDOW = (30.0, 90.0)
ACCESS_RATE, ACCESS_DELAY = 1e9, 0.001  # the receivers' links, as fair.toml
AT_ONCE = 0.3e-3


def packets(path: Path) -> list[tuple[float, int, int, int, int, int]]:
    """(time, seq, ack, payload, SACK blocks, window) of each TCP/IPv4 packet
    of an Ethernet pcap (payload from the IP length: a capture may be
    truncated)."""
    out = []
    with path.open("rb") as f:
        for stamp, buf in dpkt.pcap.Reader(f):
            ip = dpkt.ethernet.Ethernet(buf).data
            if not isinstance(ip, dpkt.ip.IP) or not isinstance(ip.data, dpkt.tcp.TCP):
                continue
            t = ip.data
            payload = ip.len - ip.hl * 4 - t.off * 4
            blocks = sum(len(d) // 8 for k, d in dpkt.tcp.parse_opts(t.opts) if k == 5)
            out.append((float(stamp), t.seq, t.ack, payload, blocks, t.win))
    return out


def receiver(d: Path, n: int) -> dict[str, float]:
    data = [p for p in packets(d / f"capture_r2_b{n}.pcap") if p[3] > 0]
    acks = [p for p in packets(d / f"capture_b{n}_r2.pcap") if p[3] == 0]
    # Arrival at bN: the capture (start of sending) plus serialisation and delay.
    arrive = np.sort([p[0] + (p[3] + 52) * 8 / ACCESS_RATE + ACCESS_DELAY for p in data])
    t = np.array([p[0] for p in acks])
    ackno = [p[2] for p in acks]
    blocks = [p[4] for p in acks]
    i = np.searchsorted(arrive, t + 1e-9, side="right") - 1
    at_once = (i >= 0) & (t - arrive[np.maximum(i, 0)] < AT_ONCE)
    inside = (t > WINDOW[0]) & (t < WINDOW[1])
    sack = np.array(blocks) > 0
    place = np.zeros(len(acks), int)
    for k in range(len(acks)):
        same = k > 0 and ackno[k] == ackno[k - 1]
        place[k] = (place[k - 1] if same else 0) + int(sack[k])
    res = {
        "SACK-bearing ACKs": float((sack & inside).sum()),
        "at once, share": float((sack & inside & at_once).sum() / max((sack & inside).sum(), 1)),
        "at once at the 4th+ place, share": float(
            (sack & inside & at_once & (place >= 4)).sum() / max((sack & inside).sum(), 1)
        ),
    }
    # After a repair of several segments with holes remaining: ACKs at once
    # at its cumulative ACK before the first held one.
    after: Counter[int] = Counter()
    for k in range(1, len(acks)):
        moved = (ackno[k] - ackno[k - 1]) & 0xFFFFFFFF
        if not (inside[k] and sack[k] and at_once[k] and 1448 < moved < 1 << 31):
            continue
        j = k + 1
        while j < len(acks) and ackno[j] == ackno[k] and sack[j] and at_once[j]:
            j += 1
        if j < len(acks) and ackno[j] == ackno[k] and sack[j]:
            after[min(j - k - 1, 4)] += 1
    total = max(sum(after.values()), 1)
    res["repairs of several segments"] = float(sum(after.values()))
    res["then 2 at once, share"] = after[2] / total
    res["then 3 at once, share"] = after[3] / total
    return res


def print_tables(
    doc: str | None, host: str, measure: Callable[[Path, int], dict[str, float]]
) -> None:
    """For hosts ``host``1-4, a table of ``measure`` of each run directory
    on the command line (the usage ``doc`` without one)."""
    dirs = [Path(a) for a in sys.argv[1:]]
    if not dirs:
        sys.exit(doc)
    for n in range(1, 5):
        rows = [measure(d, n) for d in dirs]
        print(f"{host}{n}" + "".join(f"  {d}" for d in dirs))
        for key in rows[0]:
            print(f"  {key:<36}" + "".join(f"{r[key]:>12.3f}" for r in rows))


def main() -> None:
    print_tables(__doc__, "b", receiver)


if __name__ == "__main__":
    main()
