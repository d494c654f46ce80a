"""How the senders of fair-bbr-capture.toml send, from the captures of a
simulated and a real-stack run (docs/reproduce.md, linux-check, fair BBR).

    python3 scenarios/linux-check/senders.py /tmp/sim /tmp/linux

Per sender a1-a4, over 30-90 s, from the capture of aN->r1 (its data, taken
as it leaves the host) and of r1->aN (the ACKs it gets):

- data segments, and the share that are retransmissions (a sequence number
  sent before);
- bursts: segments sent back to back (less than 50 us apart on the 1 Gb/s
  link), their sizes (share of segments in bursts of 1, 2, 3 or more);
- the gap from a burst to the next, median and 90th percentile, in ms;
- ACKs received, and the share that arrive within 50 us of the one before
  (compressed on the way back).

Needs dpkt (installed with the dev tools: make install-dev).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from receivers import WINDOW, packets, print_tables  # type: ignore[import-not-found]

BACK_TO_BACK = 50e-6


def sender(d: Path, n: int) -> dict[str, float]:
    out = [p for p in packets(d / f"capture_a{n}_r1.pcap") if p[3] > 0]
    acks = [p for p in packets(d / f"capture_r1_a{n}.pcap") if p[3] == 0]
    seen: set[int] = set()
    t, rtx = [], []
    for p in out:
        if WINDOW[0] < p[0] < WINDOW[1]:
            t.append(p[0])
            rtx.append(p[1] in seen)
        seen.add(p[1])
    ts = np.array(t)
    gaps = np.diff(ts)
    starts = np.concatenate(([0], np.nonzero(gaps >= BACK_TO_BACK)[0] + 1))
    sizes = np.diff(np.concatenate((starts, [len(ts)])))
    between = gaps[gaps >= BACK_TO_BACK]
    at = np.array([p[0] for p in acks if WINDOW[0] < p[0] < WINDOW[1]])
    segs = max(len(ts), 1)
    return {
        "data segments": float(len(ts)),
        "retransmitted, share": float(np.mean(rtx)) if rtx else 0.0,
        "in bursts of 1, share": float(sizes[sizes == 1].sum() / segs),
        "in bursts of 2, share": float(sizes[sizes == 2].sum() / segs),
        "in bursts of 3+, share": float(sizes[sizes >= 3].sum() / segs),
        "gap between bursts p50 ms": float(np.median(between) * 1e3) if len(between) else 0.0,
        "gap between bursts p90 ms": float(np.percentile(between, 90) * 1e3)
        if len(between)
        else 0.0,
        "ACKs": float(len(at)),
        "ACKs within 50 us, share": float(np.mean(np.diff(at) < BACK_TO_BACK))
        if len(at) > 1
        else 0.0,
    }


def main() -> None:
    print_tables(__doc__, "a", sender)


if __name__ == "__main__":
    main()
