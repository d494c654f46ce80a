"""Write the scale scenarios: large topologies and many flows, the set the
memory estimate is checked against (docs/scenarios.md, "Memory") and the
scenarios that must validate in seconds.

- dumbbell-<P>: P host pairs on two routers joined by a 1 Gb/s, 10 ms
  bottleneck (100 Mb/s, 1 ms access links with 100-packet queues), one bulk
  NewReno flow per pair starting uniformly in the first second.
- fattree-k<K>: a k-ary fat tree (Al-Fares, Loukissas & Vahdat, "A scalable,
  commodity data center network architecture", SIGCOMM 2008: k pods of k/2
  edge and k/2 aggregation switches, (k/2)^2 core switches, k^3/4 hosts),
  1 Gb/s links, one flow from each of the first F hosts to the host half the
  tree away.
- flows-<N>: N flows over a dumbbell of 1,000 pairs (N / 1,000 per pair),
  each sending `size` bytes.
- web-<R>: a dumbbell of 100 pairs and a generator of R connections per second
  (Pareto sizes) from the left hosts to the right ones.
- trace-1ms: braud2016's long-lived scenario with cwnd and queue traces every
  millisecond (800 s: 800,000 samples per flow and per link).
- pcap: braud2016's long-lived scenario capturing both directions of its
  access link (about 1.1 million packets).

The generated files are large (a 10^6-flow file is about 40 MB), so they are
written where asked, not kept in the repository.

Run from anywhere: python3 scenarios/scale/make_scale.py OUTDIR [NAME ...]
(NAME: dumbbell-10000, fattree-k74, flows-1000000, ...; default: the
documented set).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
BRAUD = HERE.parent / "braud2016" / "long-newreno.toml"

#: The documented set (docs/scenarios.md, "Memory").
DEFAULT = [
    "dumbbell-10000",
    "dumbbell-50000",
    "fattree-k74",
    "flows-100000",
    "flows-1000000",
    "web-2000",
    "trace-1ms",
    "pcap",
]


def _names(names: list[str]) -> str:
    return "[" + ", ".join(f'"{n}"' for n in names) + "]"


def _header(name: str, duration: str, description: str) -> list[str]:
    return [
        f"# {description}",
        "# Written by scenarios/scale/make_scale.py.",
        f'name = "{name}"',
        "seed = 1",
        f'duration = "{duration}"',
        "",
        "[defaults.host]",
        'cc = "newreno"',
        'access = { rate = "100Mbps", delay = "1ms", queue = { packets = 100 } }',
        "",
    ]


def _dumbbell_topology(pairs: int) -> list[str]:
    return [
        "[[router]]",
        'name = "R1"',
        "[[router]]",
        'name = "R2"',
        "[[link]]",
        'between = ["R1", "R2"]',
        'rate = "1Gbps"',
        'delay = "10ms"',
        "queue = { packets = 1000 }",
        "[[host]]",
        f"names = {_names([f'l{i}' for i in range(pairs)])}",
        'access = { router = "R1" }',
        "[[host]]",
        f"names = {_names([f'r{i}' for i in range(pairs)])}",
        'access = { router = "R2" }',
        "",
    ]


def dumbbell(pairs: int, duration: str = "5s") -> str:
    """`pairs` host pairs, one bulk flow per pair."""
    lines = _header(
        f"dumbbell-{pairs}", duration, f"A dumbbell of {pairs} host pairs, one flow per pair."
    )
    lines += _dumbbell_topology(pairs)
    for i in range(pairs):
        lines += [
            "[[flow]]",
            f'from = "l{i}"',
            f'to = "r{i}"',
            'start = { uniform = ["0s", "1s"] }',
        ]
    return "\n".join(lines) + "\n"


def many_flows(n: int, size: str = "20KB", duration: str = "3s") -> str:
    """`n` flows of `size` bytes over a dumbbell of 1,000 pairs."""
    pairs = min(n, 1000)
    lines = _header(
        f"flows-{n}", duration, f"{n} flows of {size} over a dumbbell of {pairs} pairs."
    )
    lines += _dumbbell_topology(pairs)
    for i in range(n):
        lines += [
            "[[flow]]",
            f'from = "l{i % pairs}"',
            f'to = "r{i % pairs}"',
            f'size = "{size}"',
            'start = { uniform = ["0s", "2s"] }',
        ]
    return "\n".join(lines) + "\n"


def fat_tree(k: int, flows: int | None = None, duration: str = "2s") -> str:
    """A k-ary fat tree; one flow from each of the first `flows` hosts (all
    by default) to the host half the tree away."""
    assert k % 2 == 0, "k is even"
    half = k // 2
    hosts = k**3 // 4
    flows = hosts // 2 if flows is None else flows
    lines = _header(
        f"fattree-k{k}",
        duration,
        f"A {k}-ary fat tree: {hosts} hosts, {5 * k * k // 4} switches, {flows} flows.",
    )
    lines[lines.index('access = { rate = "100Mbps", delay = "1ms", queue = { packets = 100 } }')] = (
        'access = { rate = "1Gbps", delay = "10us", queue = { packets = 100 } }'
    )
    edge = [f"e{p}_{i}" for p in range(k) for i in range(half)]
    agg = [f"a{p}_{i}" for p in range(k) for i in range(half)]
    core = [f"c{i}" for i in range(half * half)]
    for r in edge + agg + core:
        lines += ["[[router]]", f'name = "{r}"']
    for e, name in enumerate(edge):
        lines += [
            "[[host]]",
            f"names = {_names([f'h{e * half + i}' for i in range(half)])}",
            f'access = {{ router = "{name}" }}',
        ]
    link = 'rate = "1Gbps"\ndelay = "10us"\nqueue = { packets = 100 }'
    for p in range(k):
        for e in range(half):
            for a in range(half):
                lines += ["[[link]]", f'between = ["e{p}_{e}", "a{p}_{a}"]', link]
        for a in range(half):
            for c in range(half):
                lines += ["[[link]]", f'between = ["a{p}_{a}", "c{a * half + c}"]', link]
    for i in range(flows):
        lines += [
            "[[flow]]",
            f'from = "h{i}"',
            f'to = "h{(i + hosts // 2) % hosts}"',
            'start = { uniform = ["0s", "0.5s"] }',
        ]
    return "\n".join(lines) + "\n"


def web(rate: int, duration: str = "30s") -> str:
    """A generator of `rate` connections per second over a dumbbell of 100 pairs."""
    pairs = 100
    lines = _header(
        f"web-{rate}",
        duration,
        f"{rate} connections per second (Pareto sizes) over a dumbbell of {pairs} pairs.",
    )
    lines += _dumbbell_topology(pairs)
    lines += [
        "[[traffic]]",
        'name = "web"',
        f"from = {_names([f'l{i}' for i in range(pairs)])}",
        f"to = {_names([f'r{i}' for i in range(pairs)])}",
        f"rate = {rate}",
        'size = { dist = "pareto", shape = 1.2, scale = 4, cap = 1000 }',
    ]
    return "\n".join(lines) + "\n"


def braud_variant(trace: str, name: str) -> str:
    """braud2016's long-lived scenario with its `[trace]` table replaced."""
    text = BRAUD.read_text()
    text = re.sub(r'(?m)^name = ".*"$', f'name = "{name}"', text, count=1)
    return re.sub(r"(?ms)^\[trace\]\n.*?\n\n", trace + "\n\n", text, count=1)


def scenario(name: str) -> str:
    """The text of scale scenario `name`."""
    if m := re.fullmatch(r"dumbbell-(\d+)", name):
        return dumbbell(int(m[1]))
    if m := re.fullmatch(r"fattree-k(\d+)", name):
        return fat_tree(int(m[1]))
    if m := re.fullmatch(r"flows-(\d+)", name):
        return many_flows(int(m[1]))
    if m := re.fullmatch(r"web-(\d+)", name):
        return web(int(m[1]))
    if name == "trace-1ms":
        return braud_variant(
            '[trace]\ncwnd = true\nqueue = true\ninterval = "1ms"', "braud2016 traced every 1 ms"
        )
    if name == "pcap":
        return braud_variant(
            '[trace]\npcap = ["router->client", "client->router"]', "braud2016 captured"
        )
    raise SystemExit(f"unknown scale scenario {name!r}; known: {', '.join(DEFAULT)}")


def main(argv: list[str]) -> None:
    if not argv:
        raise SystemExit(__doc__)
    out = Path(argv[0])
    out.mkdir(parents=True, exist_ok=True)
    for name in argv[1:] or DEFAULT:
        path = out / f"{name}.toml"
        path.write_text(scenario(name))
        print(path)


if __name__ == "__main__":
    main(sys.argv[1:])
