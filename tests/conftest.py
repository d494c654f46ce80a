"""Shared helpers: running the command line, and a fake core result."""

from __future__ import annotations

import contextlib
import math
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

NAN = math.nan

TWO_HOSTS = """
[[host]]
name = "a"
[[host]]
name = "b"
[[link]]
between = ["a", "b"]
rate = "10Mbps"
delay = "10ms"
"""
"""Two hosts and the link between them, ending inside the ``[[link]]`` table
(so that a test may add the link's fields): a scenario's body without its
duration and flows."""


def run_cli(
    *args: str, cwd: Path | None = None, env: dict[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """Run ``python -m tcplab ARGS`` (with ``env`` added to the environment)
    and capture its output; ``timeout`` in seconds."""
    return subprocess.run(
        [sys.executable, "-m", "tcplab", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, **env} if env else None,
        timeout=timeout,
        check=False,
    )


def fake_raw(trace_rows: int = 6) -> dict[str, Any]:
    """A dict shaped like ``tcplab._core.run``'s (every column of
    tcplab-model's results.rs): two flows, two links and the three traces,
    with made-up values."""
    import numpy as np

    n = trace_rows
    return {
        "meta": {
            "name": "fake",
            "seed": 7,
            "duration_s": 10.0,
            "measure_start_s": 2.0,
            "measure_end_s": 10.0,
            "events": 1000,
            "packets": 400,
            "wall_s": 0.01,
            "version": "0.0.0",
            "backend": "sim",
            "notes": [],
            "timing_flagged": False,
        },
        "flows": {
            "name": ["alpha", "beta"],
            "src": ["a", "b"],
            "dst": ["c", "c"],
            "cc": ["newreno", "newreno"],
            "profile": ["linux", "rfc"],
            "start_s": [0.0, 1.0],
            "goodput_bps": [4.5e6, NAN],
            "bytes_delivered_window": [4_500_000, 0],
            "bytes_delivered": [5_000_000, 0],
            "rtt_mean_s": [0.1, NAN],
            "rtt_p50_s": [0.1, NAN],
            "rtt_p95_s": [0.15, NAN],
            "rtt_p99_s": [0.2, NAN],
            "rtt_samples": [900, 0],
            "segs_sent": [3500, 0],
            "segs_retrans": [12, 0],
            "fast_retransmits": [3, 0],
            "timeouts": [1, 0],
            "undos": [0, 0],
            "spurious_timeouts": [0, 0],
            "loss_probes": [0, 0],
            "tlp_recoveries": [0, 0],
            "ooo_prunes": [0, 0],
            "pruned_bytes": [0, 0],
            "ecn": [False, False],
            "ecn_reductions": [0, 0],
            "segs_sent_window": [3000, 0],
            "segs_retrans_window": [10, 0],
            "timeouts_window": [0, 0],
            "completed": [False, True],
            "fct_s": [NAN, 1.5],
            "transfer_bps": [NAN, 0.0],
            "mss": [1448, 1460],
            "packet_bytes": [1500, 1500],
            "data_drops": [12, 0],
            "retrans_drops": [1, 0],
            "first_drop_s": [2.5, NAN],
            "first_drop_link": ["r1->r2", ""],
            "first_drop_cwnd": [40, 0],
            "first_drop_in_ss": [True, False],
            "retrans_drop_s": [2.9, NAN],
            "retrans_drop_link": ["r1->r2", ""],
            "first_reduction_s": [2.6, NAN],
            "first_reduction": ["fast_retransmit", ""],
            "first_reduction_cwnd": [44, 0],
            "first_reduction_in_ss": [True, False],
            "double_slow_start": [False, False],
        },
        "links": {
            "name": ["r1->r2", "r2->r1"],
            "from": ["r1", "r2"],
            "to": ["r2", "r1"],
            "rate_bps": [10_000_000, 2_000_000],
            "delay_s": [0.042, 0.052],
            "utilisation": [0.9, 0.01],
            "throughput_bps": [9.0e6, 2.0e4],
            "pkts_sent": [7000, 3000],
            "drops": [3, 0],
            "marks": [0, 0],
            "lost": [0, 0],
            "mean_queue_pkts": [12.5, 0.0],
            "mean_sojourn_s": [0.015, NAN],
            "max_sojourn_s": [0.3, 0.0],
            "qdisc": ["droptail", "droptail"],
            "queue_limit_pkts": [250, 40],
            "queue_limit_bytes": [0, 0],
        },
        "phases": {
            "flow": ["alpha", "alpha", "beta", "beta"],
            "flow_index": [0, 0, 1, 1],
            "phase": [0, 1, 0, 1],
            "start_s": [2.0, 6.0, 2.0, 6.0],
            "end_s": [6.0, 10.0, 6.0, 10.0],
            "goodput_bps": [4.0e6, 5.0e6, 0.0, 0.0],
            "bytes_delivered": [2_000_000, 2_500_000, 0, 0],
            "segs_sent": [1400, 1600, 0, 0],
            "segs_retrans": [4, 6, 0, 0],
            "retrans_prob": [4 / 1400, 6 / 1600, NAN, NAN],
            "timeouts": [0, 0, 0, 0],
        },
        "link_phases": {
            "link": ["r1->r2", "r1->r2", "r2->r1", "r2->r1"],
            "link_index": [0, 0, 1, 1],
            "phase": [0, 1, 0, 1],
            "start_s": [2.0, 6.0, 2.0, 6.0],
            "end_s": [6.0, 10.0, 6.0, 10.0],
            "utilisation": [0.85, 0.95, 0.01, 0.01],
            "throughput_bps": [8.5e6, 9.5e6, 2.0e4, 2.0e4],
            "bytes_sent": [4_250_000, 4_750_000, 10_000, 10_000],
            "pkts_sent": [3400, 3600, 1500, 1500],
            "drops": [1, 2, 0, 0],
            "marks": [0, 0, 0, 0],
            "lost": [0, 0, 0, 0],
            "mean_queue_pkts": [10.0, 15.0, 0.0, 0.0],
            "mean_sojourn_s": [0.012, 0.018, NAN, NAN],
        },
        "generators": {
            "name": ["web"],
            "rate": [2.0],
            "mean_size_bytes": [35186.4],
            "offered_bps": [562982.4],
            "bottleneck_bps": [1.0e7],
            "offered_load": [0.05629824],
            "arrivals": [3],
            "completed": [2],
        },
        "pcap": {},
        "hosts": {},
        "timing": {},
        "episodes": {
            "flow": ["a"],
            "flow_index": [0],
            "start_s": [2.5],
            "end_s": [2.7],
            "kind": ["fast_retransmit"],
            "cwnd_before": [40],
            "ssthresh": [20],
            "timeouts": [0],
            "retrans": [3],
            "cwnd_after": [20],
        },
        "transfers": {
            "generator": [0, 0, 0],
            "seq": [0, 1, 2],
            "src": ["x", "x", "x"],
            "dst": ["y", "y", "y"],
            "size_bytes": [1448, 8688, 275120],
            "start_s": [0.3, 1.1, 9.5],
            "fct_s": [0.09, 0.2, NAN],
            "completed": [True, True, False],
            "segs_sent": [2, 7, 30],
            "segs_retrans": [0, 0, 1],
            "timeouts": [0, 0, 0],
            "rtt_mean_s": [0.045, 0.05, 0.06],
        },
        "traces": {
            "cwnd": {
                "time_s": np.linspace(0.0, 1.0, n),
                "flow": (np.arange(n) % 2).astype(np.uint32),
                "cwnd": np.arange(n, dtype=np.uint32),
                "ssthresh": np.full(n, 2**32 - 1, dtype=np.uint32),
                "srtt_s": np.full(n, NAN),
                "inflight_bytes": np.zeros(n, dtype=np.uint64),
                "rto_s": np.full(n, 0.2),
                "backoff": np.zeros(n, dtype=np.uint32),
                "pacing_rate_bps": np.full(n, NAN),
                "ca_state": np.zeros(n, dtype=np.uint32),
                "cc_bw_bps": np.full(n, NAN),
                "cc_min_rtt_s": np.full(n, NAN),
                "cc_pacing_gain": np.full(n, NAN),
                "cc_cwnd_gain": np.full(n, NAN),
            },
            "rtt": {
                "time_s": np.linspace(0.0, 1.0, n),
                "flow": np.zeros(n, dtype=np.uint32),
                "rtt_s": np.full(n, 0.1),
            },
            "queue": {
                "time_s": np.linspace(0.0, 1.0, n),
                "link": (np.arange(n) % 2).astype(np.uint32)[::-1].copy(),
                "pkts": np.arange(n, dtype=np.uint32),
                "bytes": np.arange(n, dtype=np.uint64) * 1500,
            },
        },
    }


@pytest.fixture
def raw() -> dict[str, Any]:
    return fake_raw()


def assert_study_files_are_generated(study: str) -> None:
    """The files shipped in ``studies/data/<study>/`` are exactly what
    ``scenarios/<study>/make_scenarios.py`` writes (its ``files()``)."""
    import importlib.util

    root = Path(__file__).resolve().parents[1]
    spec = importlib.util.spec_from_file_location(
        f"make_{study}", root / "scenarios" / study / "make_scenarios.py"
    )
    assert spec is not None
    assert spec.loader is not None
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    data = root / "python" / "tcplab" / "studies" / "data" / study
    files = gen.files()
    assert sorted(files) == sorted(p.name for p in data.glob("*.toml"))
    for name, text in files.items():
        assert (data / name).read_text(encoding="utf-8") == text, name


# Where the tests' Dask cluster listens: this machine only, and no fixed port.
LOCAL_CLUSTER_OPTIONS = {
    "host": "127.0.0.1",
    "dashboard_address": "127.0.0.1:0",
    "worker_dashboard_address": None,
    "processes": True,
}


@contextlib.contextmanager
def local_cluster(n_workers: int = 2) -> Iterator[Any]:
    """A Dask ``LocalCluster`` reachable from this machine only: scheduler,
    workers and dashboard on 127.0.0.1, the dashboard on a free port.

    ``LocalCluster``'s default dashboard (":8787") listens on every
    interface, and turning it off (``dashboard_address=None``) still serves
    HTTP on port 8787 of the scheduler's host, so a second test run on the
    same machine failed to start its cluster ("Port 8787 is already in use",
    a warning, hence an error here)."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(
        n_workers=n_workers, threads_per_worker=1, **LOCAL_CLUSTER_OPTIONS
    ) as cluster:
        yield cluster


def free_port() -> int:
    """A TCP port of 127.0.0.1 that nothing listens on (as of now)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def docs_block(marker: str) -> list[str]:
    """The lines of the fenced block after ``<!-- example: marker`` in docs/sweeps.md."""
    text = (Path(__file__).resolve().parents[1] / "docs" / "sweeps.md").read_text()
    after = text[text.index(f"<!-- example: {marker}") :]
    body = after.split("```", 2)[1]
    return [ln.strip() for ln in body.splitlines()[1:] if ln.strip()]


def one_machine_dask_cluster(scheduler_port: int, dashboard_port: int) -> list[str]:
    """docs/sweeps.md's commands for a Dask cluster on one machine (``dask
    scheduler``, ``dask worker``, then the ``tcplab`` command that uses it),
    moved to the given ports and without their trailing ``&``."""
    return [
        ln.removesuffix("&")
        .strip()
        .replace("8786", str(scheduler_port))
        .replace("8787", str(dashboard_port))
        for ln in docs_block("a Dask cluster on one machine")
    ]


@contextlib.contextmanager
def started(commands: list[str], port: int, logs: Path) -> Iterator[list[subprocess.Popen[bytes]]]:
    """Start each of ``commands`` (``dask ...`` lines, run with this
    environment's ``dask``) as a process of its own session, with its output
    in ``logs/<n>.log`` and Dask's scratch space in ``logs``; wait (at most
    60 s) until something listens on 127.0.0.1:``port``; on exit, stop their
    process groups (SIGTERM, then SIGKILL after 30 s) and wait for them."""
    import shlex
    import signal
    import time

    dask_cli = str(Path(sys.executable).parent / "dask")
    logs.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "DASK_TEMPORARY_DIRECTORY": str(logs)}
    procs: list[subprocess.Popen[bytes]] = []
    try:
        for n, line in enumerate(commands):
            argv = shlex.split(line)
            assert argv[0] == "dask", line
            with open(logs / f"{n}.log", "wb") as log:
                procs.append(
                    subprocess.Popen(
                        [dask_cli, *argv[1:]],
                        start_new_session=True,
                        stdin=subprocess.DEVNULL,
                        stdout=log,
                        stderr=subprocess.STDOUT,
                        env=env,
                    )
                )
        deadline = time.monotonic() + 60
        while True:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            if time.monotonic() > deadline or any(p.poll() is not None for p in procs):
                pytest.fail(f"nothing listens on 127.0.0.1:{port}; see {logs}/*.log")
            time.sleep(0.1)
        yield procs
    finally:
        for p in procs:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(p.pid, signal.SIGTERM)
        for p in procs:
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait(timeout=30)


def descendants(pid: int) -> list[int]:
    """``pid`` and every process below it (Linux /proc)."""
    parents: dict[int, int] = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                stat = (d / "stat").read_text()
            except OSError:
                continue
            # pid (comm) state ppid ...: comm may hold spaces, split after it.
            parents[int(d.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    found = [pid]
    for p in found:
        found += [c for c, parent in parents.items() if parent == p]
    return found


def listening_addresses(pids: list[int]) -> list[tuple[str, int]]:
    """(address, port) of every TCP socket listening in the processes
    ``pids`` (Linux: their fds' socket inodes matched in /proc/net/tcp{,6})."""
    inodes = set()
    for pid in pids:
        fds = Path(f"/proc/{pid}/fd")
        try:
            links = [os.readlink(f) for f in fds.iterdir()]
        except OSError:
            continue
        inodes |= {ln[len("socket:[") : -1] for ln in links if ln.startswith("socket:[")}
    found = []
    for table, family in (("tcp", socket.AF_INET), ("tcp6", socket.AF_INET6)):
        path = Path(f"/proc/net/{table}")
        if not path.exists():
            continue
        for line in path.read_text().splitlines()[1:]:
            cols = line.split()
            local, state, inode = cols[1], cols[3], cols[9]
            if state != "0A" or inode not in inodes:  # 0A: LISTEN
                continue
            addr_hex, port_hex = local.split(":")
            raw = bytes.fromhex(addr_hex)
            if sys.byteorder == "little":  # the kernel prints 32-bit words in host order
                raw = b"".join(raw[i : i + 4][::-1] for i in range(0, len(raw), 4))
            found.append((socket.inet_ntop(family, raw), int(port_hex, 16)))
    return found


#: tcp_bbr.c's gains in 1/256, as the cwnd trace gives them: STARTUP's 2/ln 2
#: (739), DRAIN's 1/2.885 (88), PROBE_BW's cycle 5/4, 3/4 and 1, PROBE_RTT's
#: and a policed rate's 1; the cwnd gain 2 outside STARTUP, 1 in PROBE_RTT.
BBR_PACING_GAINS = {739 / 256, 88 / 256, 1.25, 0.75, 1.0}
BBR_CWND_GAINS = {739 / 256, 2.0, 1.0}
