"""The memory check's refusals name the file, the field that makes a run big,
its value, and a value that fits: checked by writing the scenario again with
the value the error suggests (it must then pass the same check) and with one
a little beyond it (it must not). No run is started."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import TWO_HOSTS, run_cli

LIMIT = {"TCPLAB_MEMORY_LIMIT": "2e9"}


def _trace(interval: str) -> str:
    return (
        f'duration = "1000s"\n[trace]\ncwnd = true\ninterval = "{interval}"\n{TWO_HOSTS}'
        '[[flow]]\nfrom = "a"\nto = "b"\n'
    )


def _generator(rate: float) -> str:
    return (
        f'duration = "1000s"\n{TWO_HOSTS}[[traffic]]\nfrom = "a"\nto = "b"\n'
        f'rate = {rate}\nsize = {{ dist = "fixed", value = 1 }}\n'
    )


def _refusal(tmp_path: Path, text: str, command: str = "validate") -> str:
    p = tmp_path / "big.toml"
    p.write_text(text, encoding="utf-8")
    out = [] if command == "validate" else ["--out", str(tmp_path / "o")]
    r = run_cli(command, str(p), *out, env=LIMIT)
    assert r.returncode == 2, r.stdout + r.stderr
    assert r.stderr.startswith(f"error: {p}: a run needs about "), r.stderr
    assert "Traceback" not in r.stderr
    assert "TCPLAB_MEMORY_CHECK=0" in r.stderr
    return r.stderr


def _fits(tmp_path: Path, text: str) -> bool:
    p = tmp_path / "fits.toml"
    p.write_text(text, encoding="utf-8")
    r = run_cli("validate", str(p), env=LIMIT)
    assert "Traceback" not in r.stderr
    return r.returncode == 0


@pytest.mark.parametrize("command", ["validate", "run"])
def test_a_trace_every_nanosecond_is_refused_naming_its_interval(
    tmp_path: Path, command: str
) -> None:
    err = _refusal(tmp_path, _trace("1ns"), command)
    # 1000 s every 1 ns: 10^12 samples of the one flow.
    assert 'trace.interval = "1ns": cwnd trace: 1.00e12 samples (1 flow every 1ns' in err
    m = re.search(r'trace.interval of at least "([0-9.]+)us" fits in the 2.0 GB available', err)
    assert m, err
    least = float(m.group(1))
    # The suggestion is what fits: at it (rounded up) the scenario passes,
    # at a third of it it does not.
    assert _fits(tmp_path, _trace(f"{least * 1.01:.3f}us"))
    assert not _fits(tmp_path, _trace(f"{least / 3:.3f}us"))


#: Runs its arguments as a command and prints the command's peak resident
#: memory. A launcher of its own because a child's peak (rusage) includes
#: the memory of the process it was forked from (Linux's exec keeps the old
#: image's high-water mark), and this test process may have grown large.
_LAUNCHER = (
    "import resource, subprocess, sys\n"
    "r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL)\n"
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
    "sys.exit(r.returncode)\n"
)


def _peak_kb(args: list[str]) -> tuple[int, str]:
    """Run ``python -m tcplab ARGS`` (with LIMIT) from a small launcher:
    its own peak resident memory in kB, and its stderr."""
    r = subprocess.run(
        [sys.executable, "-c", _LAUNCHER, sys.executable, "-m", "tcplab", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **LIMIT},
        check=False,
    )
    assert r.returncode == 2, r.stderr
    return int(r.stdout), r.stderr


def test_a_generator_at_a_billion_connections_per_second_is_refused_naming_its_rate(
    tmp_path: Path,
) -> None:
    err = _refusal(tmp_path, _generator(1e9), "run")
    # Refused before anything was allocated: the process stayed small.
    peak_kb, again = _peak_kb(["run", str(tmp_path / "big.toml"), "--out", str(tmp_path / "o")])
    assert again == err
    assert peak_kb < 400_000, peak_kb
    # 10^9 per second for 1000 s: 10^12 connections.
    assert "traffic[0].rate = 1e9: 1.00e12 connections (1e9 per second from 0s)" in err
    m = re.search(r"traffic\[0\].rate of at most ([0-9.e+]+) connections/s fits", err)
    assert m, err
    most = float(m.group(1))
    assert _fits(tmp_path, _generator(most * 0.99))
    assert not _fits(tmp_path, _generator(most * 3))


def test_too_many_flows_are_refused_with_how_many_fit(tmp_path: Path) -> None:
    flows = '[[flow]]\nfrom = "a"\nto = "b"\n'
    text = 'duration = "10s"\n' + TWO_HOSTS + flows * 200
    p = tmp_path / "many.toml"
    p.write_text(text, encoding="utf-8")
    # A machine with 42 MB to spare: the process itself takes about 40 MB.
    r = run_cli("validate", str(p), env={"TCPLAB_MEMORY_LIMIT": "4.2e7"})
    assert r.returncode == 2, r.stderr
    assert "flow = 200 [[flow]] tables" in r.stderr, r.stderr
    m = re.search(r"at most ([0-9,]+) flows fit in the 42 MB available", r.stderr)
    assert m, r.stderr
    most = int(m.group(1).replace(",", ""))
    assert 0 < most < 200
    p.write_text('duration = "10s"\n' + TWO_HOSTS + flows * most, encoding="utf-8")
    r = run_cli("validate", str(p), env={"TCPLAB_MEMORY_LIMIT": "4.2e7"})
    assert r.returncode == 0, r.stderr
