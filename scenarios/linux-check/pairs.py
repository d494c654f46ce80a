"""How the receivers of fair-bbr-capture.toml ACK in-order pairs: at once
(from the softirq, the arriving segment held) or at the read (nothing
held), from the captures of simulated and real-stack runs
(docs/reproduce.md, linux-check, "Fair BBR: the receivers' ACK regime").

    tcplab run scenarios/linux-check/fair-bbr-capture.toml --seed 4 --out /tmp/sim
    sudo tcplab run scenarios/linux-check/fair-bbr-capture.toml --backend linux \\
        --seed 4 --out /tmp/linux
    python3 scenarios/linux-check/pairs.py /tmp/sim /tmp/linux

Per receiver b1-b4 over 30-90 s, an ACK without SACK blocks that
acknowledges exactly two full segments more than the ACK before it (also
without SACK blocks) is a pair's ACK. It is classed by the window it
offers: once `rcv_ssthresh` has reached the full space, the ACK sent at
the read offers one or two window-scale units more than the one sent at
once with the segment still held (crate::rcvwnd). Where the pair ACKs
within a second either way offer a single window, they are in one
regime, the one the median of their delays from the segments' arrivals
says (under 8 us: at once; the real stack's softirq ACKs are sometimes
tens of microseconds late, so one pair's delay is not enough). A
run's regimes then switch; each switch is counted by what came between
the two pairs' ACKs: a SACK-bearing ACK ("sack"), another ACK without
SACK blocks ("other", such as a lone PSH segment ACKed at its read), or
nothing ("none"). Also printed: the mean length of the periods in each
regime.

Needs dpkt (installed with the dev tools: make install-dev); reads the
captures with receivers.py's `packets`.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import numpy as np
from receivers import (  # type: ignore[import-not-found]
    ACCESS_DELAY,
    ACCESS_RATE,
    WINDOW,
    packets,
)

AT_ONCE = 8e-6
FULL = 1448


def receiver(run: Path, i: int) -> dict[str, float]:
    data = packets(run / f"capture_r2_b{i}.pcap")
    acks = [p for p in packets(run / f"capture_b{i}_r2.pcap") if p[3] == 0]
    # A segment reaches bN its serialisation and the link's delay after
    # the capture (taken when r2 starts to send it).
    arrival: dict[int, float] = {}
    for t, seq, _, n, _, _ in data:
        if n > 0:
            arrival.setdefault(seq + n, t + (n + 52) * 8 / ACCESS_RATE + ACCESS_DELAY)
    pairs = []  # (time, window, delay, index in acks)
    for k in range(1, len(acks)):
        t, _, ack, _, blocks, win = acks[k]
        if not WINDOW[0] <= t < WINDOW[1] or blocks or acks[k - 1][4]:
            continue
        if ack - acks[k - 1][2] != 2 * FULL or ack not in arrival:
            continue
        pairs.append((t, win, t - arrival[ack], k))
    if not pairs:
        return {}
    times = np.array([p[0] for p in pairs])
    wins = np.array([p[1] for p in pairs])
    at_once = []
    switches: Counter[str] = Counter()
    periods: dict[bool, list[float]] = {True: [], False: []}
    last: tuple[bool, int] | None = None
    start = None
    for t, win, _, k in pairs:
        lo, hi = np.searchsorted(times, [t - 1, t + 1])
        near = wins[lo:hi]
        if near.max() - near.min() in (1, 2):
            now = bool(win < near.max())
        else:
            # One window: one regime (the window would differ otherwise),
            # the one most of these pairs' delays say (a softirq ACK can
            # leave tens of microseconds late on the real stack).
            near_delays = [pairs[x][2] for x in range(lo, hi)]
            now = bool(np.median(near_delays) < AT_ONCE)
        at_once.append(now)
        if last is not None and last[0] != now:
            between = range(last[1] + 1, k)
            kind = "sack" if any(acks[x][4] for x in between) else ("other" if between else "none")
            switches[kind] += 1
            if start is not None:
                periods[last[0]].append(t - start)
            start = t
        last = (now, k)
    return {
        "pairs": len(pairs),
        "at_once": float(np.mean(at_once)),
        "switches": sum(switches.values()),
        **{f"switch_{k}": float(switches[k]) for k in ("other", "sack", "none")},
        "period_at_once_s": float(np.mean(periods[True])) if periods[True] else float("nan"),
        "period_at_read_s": float(np.mean(periods[False])) if periods[False] else float("nan"),
    }


def main() -> None:
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for arg in sys.argv[1:]:
        run = Path(arg)
        print(run)
        for i in range(1, 5):
            r = receiver(run, i)
            if not r:
                print(f"  b{i}: no pair ACKs in {WINDOW[0]:.0f}-{WINDOW[1]:.0f} s")
                continue
            print(
                f"  b{i}: {r['pairs']:5.0f} pairs, {r['at_once']:.2f} at once; "
                f"switches {r['switches']:.0f} (after SACK {r['switch_sack']:.0f}, "
                f"other ACK {r['switch_other']:.0f}, none {r['switch_none']:.0f}); "
                f"periods at once {r['period_at_once_s']:.2f} s, "
                f"at the read {r['period_at_read_s']:.2f} s"
            )


if __name__ == "__main__":
    main()
