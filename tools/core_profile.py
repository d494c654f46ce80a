"""Where the core spends its time, by component, from a `perf record` of runscen.

The release build inlines nearly everything into `run_with_progress`, so a
plain `perf report` shows one function. This script maps every sample's
address to its chain of inlined frames (`addr2line -i`) and charges the sample
to the innermost frame in tcplab's own source: the scheduler, the links,
queues and routing, the TCP sender (with its controller, scoreboard and RTT
estimator), the receiver, the packet pool, the RTT statistics, or the world's
glue (delivery, flush, timers, the loop).

    perf record -e cpu-clock -F 10000 -o perf.data runscen SCENARIO.toml
    python tools/core_profile.py perf.data path/to/runscen

Build runscen as the package is built (see bench/README.md) to profile what
ships. Needs perf and binutils' addr2line; debug line tables are on in the
release profile.
"""

from __future__ import annotations

import collections
import re
import subprocess
import sys
from pathlib import Path

# The core's sources, as the debug line tables name them.
CRATES = str(Path(__file__).resolve().parents[1] / "crates") + "/"

# (prefix of the source path under crates/, component), first match wins.
COMPONENTS = [
    ("engine/src/sched", "scheduler"),
    ("tcp/src/receiver", "TCP receiver"),
    ("tcp/src/delack", "TCP receiver"),
    ("tcp/src/rcvwnd", "TCP receiver"),
    ("tcp/", "TCP sender (controller, scoreboard, RTT)"),
    ("net/src/packet", "packet pool"),
    ("net/", "links, queues, routing"),
    ("model/src/stats", "RTT statistics"),
    ("model/", "world: delivery, flush, timers, loop"),
    ("engine/", "engine: time, random streams"),
]


def component(path: str) -> str:
    rel = path.split(CRATES, 1)[-1]
    for prefix, name in COMPONENTS:
        if rel.startswith(prefix):
            return name
    return "other: " + rel


def main(data: str, binary: str) -> None:
    script = subprocess.run(
        ["perf", "script", "-i", data, "-F", "ip,sym,symoff,dso"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    nm = subprocess.run(["nm", "-C", binary], capture_output=True, text=True, check=True).stdout
    symbols: dict[str, int] = {}
    for line in nm.splitlines():
        parts = line.split(None, 2)
        if len(parts) == 3:
            symbols.setdefault(re.sub(r"::h[0-9a-f]{16}$", "", parts[2]), int(parts[0], 16))
    name = binary.rsplit("/", 1)[-1]
    samples: collections.Counter[int] = collections.Counter()
    shares: collections.Counter[str] = collections.Counter()
    total = 0
    for raw in script.splitlines():
        line = raw.strip()
        if not line:
            continue
        total += 1
        body, _, dso = line.rpartition(" (")
        if name not in dso:
            shares["outside: " + dso.rstrip(")").rsplit("/", 1)[-1]] += 1
            continue
        sym = body.split(None, 1)[1] if " " in body else ""
        fn, _, off = sym.rpartition("+0x")
        if fn not in symbols:
            shares["outside: unknown symbol"] += 1
            continue
        samples[symbols[fn] + int(off, 16)] += 1
    addrs = sorted(samples)
    out = subprocess.run(
        ["addr2line", "-a", "-i", "-f", "-C", "-e", binary],
        input="\n".join(hex(a) for a in addrs) + "\n",
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    blocks = re.split(r"(?m)^0x[0-9a-f]+\n", out)[1:]
    for addr, block in zip(addrs, blocks):
        lines = block.strip().splitlines()
        own = [loc for loc in lines[1::2] if loc.startswith(CRATES)]
        shares[component(own[0]) if own else "library code (unattributed)"] += samples[addr]
    print(f"{total} samples")
    for what, n in shares.most_common():
        print(f"{100 * n / max(total, 1):6.2f} %  {what}")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: core_profile.py PERF_DATA RUNSCEN_BINARY")
    main(sys.argv[1], sys.argv[2])
