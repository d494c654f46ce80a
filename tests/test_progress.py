"""Progress of long runs: the core reports its stages and simulated time to a
callback (which can stop the run), and `tcplab run` draws a bar on a
terminal's stderr, and nothing with -q or into a log."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from tcplab import _core

ROOT = Path(__file__).resolve().parent.parent


def braud(duration_s: int) -> str:
    text = (ROOT / "scenarios/braud2016/long-newreno.toml").read_text()
    return (
        text.replace('duration = "800s"', f'duration = "{duration_s}s"')
        .replace('start = "200s"', 'start = "10s"')
        .replace('end = "800s"', f'end = "{duration_s}s"')
    )


def test_the_core_reports_stages_and_simulated_time() -> None:
    seen: list[tuple[str, float, float, int, float]] = []

    def watch(stage: str, now: float, end: float, events: int, wall: float) -> None:
        seen.append((stage, now, end, events, wall))

    raw = _core.run(braud(200), "braud.toml", None, None, watch)
    stages = [s[0] for s in seen]
    assert stages[:2] == ["building", "running"]
    assert stages[-1] == "collecting"
    assert all(s[2] == 200.0 for s in seen)
    assert seen[-1][1] == 200.0
    assert seen[-1][3] == raw["meta"]["events"]
    plain = _core.run(braud(200), "braud.toml")
    assert repr(plain["flows"]) == repr(raw["flows"])  # NaN != NaN: compare their text


def test_an_exception_in_the_callback_stops_the_run_and_is_raised() -> None:
    class Stop(Exception):
        pass

    def stop(stage: str, *_: object) -> None:
        if stage == "running":
            raise Stop(stage)

    with pytest.raises(Stop, match="running"):
        _core.run(braud(200), "braud.toml", None, None, stop)


def _cli_on_a_terminal(args: list[str]) -> str:
    """Run `tcplab ARGS` with stderr on a pseudo-terminal; return what it showed."""
    main, sub = pty.openpty()
    p = subprocess.Popen(
        [sys.executable, "-m", "tcplab", *args],
        stdout=subprocess.DEVNULL,
        stderr=sub,
        env={**os.environ, "COLUMNS": "120", "TERM": "xterm"},
    )
    os.close(sub)
    shown = b""
    while True:
        try:
            chunk = os.read(main, 4096)
        except OSError:
            break
        if not chunk:
            break
        shown += chunk
    assert p.wait(timeout=120) == 0
    os.close(main)
    return shown.decode(errors="replace")


def test_tcplab_run_shows_progress_on_a_terminal_only(tmp_path: Path) -> None:
    # About 2 s of wall time: the bar appears after half a second.
    scenario = tmp_path / "long.toml"
    scenario.write_text(braud(6000))
    shown = _cli_on_a_terminal(["run", str(scenario), "--out", str(tmp_path / "o")])
    assert "running" in shown
    assert "/ 6,000.0 s simulated" in shown
    assert "M events/s" in shown
    quiet = _cli_on_a_terminal(["run", str(scenario), "--out", str(tmp_path / "q"), "-q"])
    assert "simulated" not in quiet
    # stderr to a file (a log): no progress either.
    log = subprocess.run(
        [sys.executable, "-m", "tcplab", "run", str(scenario), "--out", str(tmp_path / "l")],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "simulated" not in log.stderr
