"""End-to-end tests of the shipped scenarios through the CLI and the Python API:
every scenario validates, runs are deterministic across processes, traces are
sampled as asked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import tcplab

from conftest import assert_study_files_are_generated, run_cli

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = sorted((ROOT / "scenarios").rglob("*.toml")) + sorted(
    (ROOT / "python" / "tcplab" / "studies" / "data").rglob("*.toml")
)


def shortened(path: Path, duration: int = 60, start: int = 20) -> str:
    """A shipped scenario cut to `duration` seconds, measured from `start`."""
    text = path.read_text()
    text = text.replace('duration = "800s"', f'duration = "{duration}s"')
    text = text.replace('start = "200s"', f'start = "{start}s"')
    return text.replace('end = "800s"', f'end = "{duration}s"')


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.name)
def test_every_shipped_scenario_validates(path: Path) -> None:
    r = run_cli("validate", str(path))
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("ok")


def test_same_seed_gives_identical_results_in_separate_processes(tmp_path: Path) -> None:
    scenario = tmp_path / "braud.toml"
    scenario.write_text(shortened(ROOT / "scenarios/braud2016/long-newreno.toml"))
    outs = []
    for i in range(2):
        out = tmp_path / f"run{i}"
        r = run_cli("run", str(scenario), "--seed", "11", "--out", str(out), "--quiet")
        assert r.returncode == 0, r.stderr
        summary = json.loads((out / "summary.json").read_text())
        summary["meta"].pop("wall_s")
        outs.append((summary, (out / "trace_queue.parquet").read_bytes()))
    assert outs[0][0] == outs[1][0]
    import polars as pl

    a = pl.read_parquet(tmp_path / "run0/trace_queue.parquet")
    b = pl.read_parquet(tmp_path / "run1/trace_queue.parquet")
    assert a.equals(b)


def test_another_seed_draws_other_start_times() -> None:
    text = shortened(ROOT / "scenarios/braud2016/long-newreno.toml", duration=30, start=15)
    a = tcplab.run(text, seed=1).flows["start_s"].to_list()
    b = tcplab.run(text, seed=2).flows["start_s"].to_list()
    assert a != b
    # Starts are drawn uniformly in [0 s, 10 s] as the scenario says.
    assert all(0.0 <= s <= 10.0 for s in a + b)


def test_queue_trace_is_sampled_at_the_interval_for_every_link() -> None:
    text = shortened(ROOT / "scenarios/braud2016/long-newreno.toml", duration=30, start=15)
    r = tcplab.run(text)
    q = r.traces["queue"]
    links = r.links.height
    assert links == 4
    # 100 ms sampling from t = 0 up to (not including) 30 s: 300 instants per link.
    assert q.height == 300 * links
    times = sorted(set(q["time_s"].to_list()))
    assert times[1] - times[0] == pytest.approx(0.1)
    # A Drop Tail queue never holds more than its limit: 250 down, 40 up.
    down = q.filter(q["link_name"] == "router->client")["pkts"].max()
    up = q.filter(q["link_name"] == "client->router")["pkts"].max()
    assert isinstance(down, int)
    assert isinstance(up, int)
    assert down <= 250
    assert up <= 40
    assert up == 40  # the uplink buffer fills: ACKs and upload data share it


def test_run_summary_names_directions_and_rtt(tmp_path: Path) -> None:
    scenario = tmp_path / "braud.toml"
    scenario.write_text(
        shortened(ROOT / "scenarios/braud2016/long-newreno.toml", duration=30, start=15)
    )
    r = run_cli("run", str(scenario), "--out", str(tmp_path / "o"))
    assert r.returncode == 0, r.stderr
    for word in ("download", "upload", "router->client", "client->router", "RTT"):
        assert word in r.stdout


def test_the_barakat1999_files_are_what_their_generator_writes() -> None:
    assert_study_files_are_generated("barakat1999")
