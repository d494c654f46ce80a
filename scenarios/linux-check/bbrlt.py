"""BBR's long-term ("policer") mode on both sides of a linux-check point:
how often each flow enters it, what brings it there and what rate it keeps
in it, from a trace of `struct bbr` (docs/reproduce.md, linux-check, fair
BBR, session 35).

The kernel's side (root; clang, bpftool, libbpf-dev and a BTF kernel):

    make -C scenarios/linux-check/bbrtrace
    mkdir -p /tmp/k && scenarios/linux-check/bbrtrace/bbrtrace /tmp/k/bbrlt.txt &
    sudo tcplab run scenarios/linux-check/fair-bbr-capture.toml --backend linux \\
        --seed 4 --out /tmp/k; kill -INT %1

The simulator's side, from a diagnostic build of the extension (never the
wheel's) whose BBR prints the same state to stderr:

    cargo build --release -p tcplab-py --features bbr-lt-trace   # then install
    mkdir -p /tmp/s && tcplab run fair-bbr.toml --seed 4 --out /tmp/s 2> /tmp/s/bbrlt.txt

and then

    python3 scenarios/linux-check/bbrlt.py /tmp/k /tmp/s/ ...   # per run and mean
    python3 scenarios/linux-check/bbrlt.py --events f1 /tmp/k

Each RUN directory holds the run's tables and `bbrlt.txt`. Kernel flows are
named by their sender port (10000 + the flow's place in the scenario), the
simulator's by matching each traced instance's last `delivered` to the
flows table. Per flow, over the window: the seconds in `lt_use_bw` and the
rate delivered in and out of it, the entries into it, the lossy intervals
that did not enter (`bbr_lt_bw_interval_done` with no match), the resets
(more than 16 rounds without a lossy end, app-limited, or an undo), and
of the PROBE_RTT episodes (a sampling reset while in PROBE_RTT, from its
app-limited rounds; from that reset) how many are followed by an entry
within 3 s (most entries in fair BBR come so: the flows' bursts after
PROBE_RTT are the "policer"). A lossy interval's and a reset's "rounds"
are the count before the ACK that ended it: one less than the kernel's
when that ACK starts a round. Kernel traces start at their first record,
the simulator's at 0.
"""

from __future__ import annotations

import argparse
import statistics
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import polars as pl

SEG = 1448  # bytes of payload a segment
SEG_BITS = SEG * 8
LT_MBPS = SEG_BITS / 2**24  # lt_bw (segments per us << 24) to Mb/s
PROBE_RTT = 3
COUNTS = (
    "lt_s",
    "lt_dl",
    "else_s",
    "else_dl",
    "entries",
    "lossy",
    "resets",
    "probe_rtt",
    "then_lt",
)
State = dict[str, float]


# The fields read, and where each side's line has them.
FIELDS = (
    "t",
    "mode",
    "lts",
    "ltc",
    "ltu",
    "al",
    "ltbw",
    "lld",
    "lll",
    "dl",
    "lost",
    "cwnd",
    "rtt_cnt",
    "pg",
    "bw",
    "bw_t",
)
# t sport dport mode rs lts ltc ltu al lt_bw lld lll lls delivered lost cwnd rtt_cnt pg bw bw_t
KERNEL_AT = (0, 3, 5, 6, 7, 8, 9, 10, 11, 13, 14, 15, 16, 17, 18, 19)
# BBRLT t id mode rs lts ltc ltu al lt_bw lld lll delivered lost cwnd rtt_cnt pg bw bw_t
SIM_AT = (1, 3, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18)


def _state(words: list[str], at: tuple[int, ...]) -> State:
    s = {k: float(words[i]) for k, i in zip(FIELDS, at)}
    s["t"] /= 1e9
    return s


def _kernel(lines: list[str], names: list[str]) -> dict[str, list[State]]:
    out: dict[str, list[State]] = defaultdict(list)
    for line in lines:
        w = line.split()
        port = int(w[1]) - 10000
        if w[2] != "5001" or not 0 <= port < len(names):
            continue  # a receiver's socket, or not a flow of the run
        out[names[port]].append(_state(w, KERNEL_AT))
    return _from_zero(out)


def _sim(lines: list[str], flows: pl.DataFrame) -> dict[str, list[State]]:
    by_id: dict[str, list[State]] = defaultdict(list)
    for line in lines:
        if line.startswith("BBRLT "):
            w = line.split()
            by_id[w[2]].append(_state(w, SIM_AT))
    out = {}
    for name, b in zip(flows["name"], flows["bytes_delivered"]):
        i = min(by_id, key=lambda k: abs(by_id[k][-1]["dl"] * SEG - b))
        out[str(name)] = by_id[i]
    return out


def _from_zero(out: dict[str, list[State]]) -> dict[str, list[State]]:
    t0 = min(s[0]["t"] for s in out.values())
    for states in out.values():
        for s in states:
            s["t"] -= t0
    return dict(out)


def load(run: Path) -> dict[str, list[State]]:
    flows = pl.read_parquet(run / "flows.parquet")
    lines = (run / "bbrlt.txt").read_text().splitlines()
    if any(line.startswith("BBRLT ") for line in lines):
        return _sim(lines, flows)
    return _kernel(lines, [str(n) for n in flows["name"]])


def events(states: list[State]) -> Iterator[tuple[float, str, str]]:
    """(time, kind, detail) for each change of the long-term state."""
    prev = None
    for s in states:
        if prev is not None:
            if s["ltu"] and not prev["ltu"]:
                first = prev["ltbw"] * LT_MBPS
                yield (
                    s["t"],
                    "enter",
                    f"{s['ltbw'] * LT_MBPS:.2f} Mb/s (first interval {first:.2f})",
                )
            elif prev["ltu"] and not s["ltu"]:
                yield s["t"], "exit", ""
            elif prev["lts"] and not s["lts"]:
                why = "app-limited" if s["al"] else f"after {prev['ltc']:.0f} rounds"
                rtt = " (PROBE_RTT)" if s["mode"] == PROBE_RTT else ""
                yield s["t"], "reset", f"{why}, mode {s['mode']:.0f}{rtt}"
            elif s["lts"] and not prev["lts"]:
                yield s["t"], "start", ""
            elif s["lts"] and s["ltbw"] != prev["ltbw"]:
                d, lost = s["lld"] - prev["lld"], s["lll"] - prev["lll"]
                bw, n = s["ltbw"] * LT_MBPS, prev["ltc"]
                ratio = f"lost {lost:.0f}/{d:.0f} = {lost / max(d, 1):.2f}"
                yield s["t"], "lossy", f"{bw:.2f} Mb/s, {n:.0f} rounds, {ratio}"
        prev = s


def summary(states: list[State], lo: float, hi: float) -> dict[str, float]:
    ev = list(events(states))
    r = dict.fromkeys(COUNTS, 0.0)
    prev = None
    for s in states:
        if prev is not None and lo <= s["t"] <= hi:
            k = "lt" if prev["ltu"] else "else"
            r[k + "_s"] += s["t"] - prev["t"]
            r[k + "_dl"] += s["dl"] - prev["dl"]
        prev = s
    for j, (t, kind, detail) in enumerate(ev):
        if not lo <= t <= hi:
            continue
        r["entries"] += kind == "enter"
        r["lossy"] += kind == "lossy"
        r["resets"] += kind == "reset"
        if kind == "reset" and "PROBE_RTT" in detail and t <= hi - 3:
            r["probe_rtt"] += 1
            after = [k for t2, k, _ in ev[j + 1 : j + 6] if t2 - t < 3]
            r["then_lt"] += "enter" in after
    return r


def _rate(dl: float, s: float) -> str:
    return f"{dl * SEG_BITS / s / 1e6:.2f}" if s else "-"


def _row(name: str, m: dict[str, float], tot: dict[str, float], fmt: str) -> str:
    """One flow: means from ``m``, rates and the PROBE_RTT count from ``tot``."""
    rates = f"{_rate(tot['lt_dl'], tot['lt_s']):>5}/{_rate(tot['else_dl'], tot['else_s']):<5}"
    counts = " ".join(format(m[k], fmt) for k in ("entries", "lossy", "resets"))
    then = f"{tot['then_lt']:.0f} of {tot['probe_rtt']:.0f}"
    return f"  {name:5} {m['lt_s']:5.1f}  {rates}  {counts}  {then}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("runs", type=Path, nargs="+")
    ap.add_argument("--window", nargs=2, type=float, default=(30.0, 90.0), metavar=("FROM", "TO"))
    ap.add_argument("--events", metavar="FLOW", help="list one flow's changes instead")
    a = ap.parse_args()
    if a.events:
        for run in a.runs:
            print(run)
            for t, kind, detail in events(load(run)[a.events]):
                print(f"  {t:8.3f} {kind:6} {detail}")
        return
    lo, hi = a.window
    per: dict[str, list[dict[str, float]]] = defaultdict(list)
    cols = "flow   lt s  Mb/s in/out  entries lossy resets  PROBE_RTT -> lt"
    for run in a.runs:
        print(run, "\n  " + cols)
        for name, states in sorted(load(run).items()):
            r = summary(states, lo, hi)
            per[name].append(r)
            print(_row(name, r, r, "5.0f"))
    if len(a.runs) > 1:
        print(f"mean of {len(a.runs)} runs\n  {cols}")
        for name, rs in sorted(per.items()):
            tot = {k: sum(r[k] for r in rs) for k in rs[0]}
            m = {k: statistics.fmean(r[k] for r in rs) for k in rs[0]}
            share = tot["then_lt"] / max(tot["probe_rtt"], 1)
            print(_row(name, m, tot, "5.2f") + f" = {share:.2f}")


if __name__ == "__main__":
    main()
