"""Measure what one more row of each results table, trace sample or
captured packet costs a `tcplab run` process at its peak: the constants of
crates/model/src/memory.rs (PY_*_ROW, PCAP_*) come from these slopes, less
the core's own part of each row.

Each experiment runs `tcplab run` in a subprocess on two scenarios that
differ in one count only and reports the peak resident memory (as
/usr/bin/time's %M) of each, and the slope in bytes per unit:

- flows: N flows of 1000 bytes between two hosts;
- star: N hosts on one router (two simplex links each);
- conns: a generator of N one-segment connections;
- cwnd, qtrace: N cwnd or queue trace samples;
- rtt, pcap: one gigabit flow with an RTT trace, or capturing both
  directions, for N seconds;
- phases: 10,000 flows in N phases.

Run: python3 tools/memory_calibration.py [EXPERIMENT ...] (default: all).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Callable

TCPLAB = [sys.executable, "-m", "tcplab"]


def peak(text: str) -> int:
    """Peak resident bytes of `tcplab run` on a scenario text."""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "s.toml")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        r = subprocess.run(
            [
                "/usr/bin/time",
                "-f",
                "%M",
                *TCPLAB,
                "run",
                path,
                "--out",
                os.path.join(d, "o"),
                "-q",
            ],
            capture_output=True,
            text=True,
            env={**os.environ, "TCPLAB_MEMORY_CHECK": "0"},
            check=True,
        )
        return int(r.stderr.strip().splitlines()[-1]) * 1024


def two_hosts(body: str, duration: str = "2s", head: str = "") -> str:
    return (
        f'duration = "{duration}"\n{head}\n[[host]]\nname = "a"\n[[host]]\nname = "b"\n'
        '[[link]]\nbetween = ["a", "b"]\nrate = "1Gbps"\ndelay = "1ms"\n'
        "queue = { packets = 100 }\n" + body
    )


def flows(n: int) -> str:
    flow = '[[flow]]\nfrom = "a"\nto = "b"\nsize = "1000B"\nstart = { uniform = ["0s", "1s"] }\n'
    return two_hosts(flow * n)


def star(n: int) -> str:
    names = ", ".join(f'"h{i}"' for i in range(n))
    return (
        'duration = "1s"\n[[router]]\nname = "R"\n'
        f'[[host]]\nnames = [{names}]\naccess = {{ router = "R", rate = "1Gbps" }}\n'
        '[[flow]]\nfrom = "h0"\nto = "h1"\nsize = "10KB"\n'
    )


def conns(n: int, duration: int = 20) -> str:
    return two_hosts(
        f'[[traffic]]\nfrom = "a"\nto = "b"\nrate = {n / duration}\n'
        'size = { dist = "fixed", value = 1 }\n',
        f"{duration}s",
    )


def cwnd(rows: int, n_flows: int = 10) -> str:
    return two_hosts(
        '[[flow]]\nfrom = "a"\nto = "b"\n' * n_flows,
        f"{rows / n_flows / 1000}s",
        '[trace]\ncwnd = true\ninterval = "1ms"',
    )


def qtrace(rows: int) -> str:
    return two_hosts(
        '[[flow]]\nfrom = "a"\nto = "b"\n',
        f"{rows / 2 / 1000}s",
        '[trace]\nqueue = true\ninterval = "1ms"',
    )


def rtt(seconds: int) -> str:
    return two_hosts('[[flow]]\nfrom = "a"\nto = "b"\n', f"{seconds}s", "[trace]\nrtt = true")


def pcap(seconds: int) -> str:
    return two_hosts(
        '[[flow]]\nfrom = "a"\nto = "b"\n', f"{seconds}s", '[trace]\npcap = ["a->b", "b->a"]'
    )


def phases(k: int, n_flows: int = 10_000) -> str:
    bounds = ", ".join(f'"{(i + 1) / (k + 1):.3f}s"' for i in range(k))
    head = f"[measure]\nphases = [{bounds}]" if k else ""
    return two_hosts('[[flow]]\nfrom = "a"\nto = "b"\nsize = "1000B"\n' * n_flows, head=head)


EXPERIMENTS: dict[str, tuple[Callable[[int], str], tuple[int, int], str]] = {
    "flows": (flows, (20_000, 80_000), "flow"),
    "star": (star, (20_000, 80_000), "host (2 links)"),
    "conns": (conns, (20_000, 80_000), "connection"),
    "cwnd": (cwnd, (400_000, 1_600_000), "cwnd sample"),
    "qtrace": (qtrace, (400_000, 1_600_000), "queue sample"),
    "rtt": (rtt, (5, 20), "second of a 1 Gb/s flow's RTT trace"),
    "pcap": (pcap, (5, 20), "second of a 1 Gb/s flow's captures"),
    "phases": (phases, (0, 4), "phase of 10,000 flows"),
}


def main(names: list[str]) -> None:
    for name in names or EXPERIMENTS:
        make, (a, b), unit = EXPERIMENTS[name]
        pa, pb = peak(make(a)), peak(make(b))
        print(
            f"{name}: {a} -> {pa / 1e6:.1f} MB, {b} -> {pb / 1e6:.1f} MB: "
            f"{(pb - pa) / (b - a):,.0f} bytes per {unit}",
            flush=True,
        )


if __name__ == "__main__":
    main(sys.argv[1:])
