"""``tcplab reproduce linux-check``: its files are what their generator writes,
its agreement bounds are issue 14's and 25's, and its report, fed the
simulator on both sides (no root, no real time), finds every cell in
agreement with zero error, as a comparison of a thing with itself must;
``--part`` and ``--sim-only`` run what they say."""

from __future__ import annotations

import math
from html import unescape
from pathlib import Path

import polars as pl
import pytest

from tcplab import sweep
from tcplab.studies import get, linux_check, scenario_text

from conftest import assert_study_files_are_generated


@pytest.fixture(autouse=True)
def _no_stored_runs(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """These tests make their own stand-in kernel runs: --sim-only must not
    find the package's stored ones (tests/test_stored.py tests those)."""
    none = tmp_path_factory.mktemp("no-stored-runs")
    monkeypatch.setattr(
        "tcplab.reproduce.stored_file", lambda study, group: none / f"{group}.json.gz"
    )


def test_the_study_files_are_what_their_generator_writes() -> None:
    assert_study_files_are_generated("linux-check")


def test_the_study_has_twenty_flow_cells_and_a_one_bdp_link() -> None:
    text, path = scenario_text("linux-check", "cells.toml")
    sw = sweep.load_sweep(text, path)
    assert len(sw.points) == 10  # 5 controller pairs x 2 uplink buffers
    pairs = {(p["host[server].cc"], p["host[client].cc"]) for p in sw.points}
    assert pairs == {
        ("reno", "reno"),
        ("cubic", "cubic"),
        ("reno", "cubic"),
        ("cubic", "reno"),
        ("bbr", "bbr"),
    }
    text, path = scenario_text("linux-check", "bdp.toml")
    bdp = sweep.load_sweep(text, path)
    # 10 Mb/s x 50 ms / 8 = 62,500 B: 41.7 packets of 1500 B, rounded up.
    assert "queue = { packets = 42 }" in text
    assert len(bdp.points) == 3
    backends = {p.name: p.backend for p in get("linux-check").parts}
    groups = ["cells", "long", "bdp", "fair", "fqcodel", "short", "fast"]
    pairs = {f"{g}/{b}": b for g in groups for b in ("linux", "sim")}
    # And the timing part: the real stack only, run with any other part.
    assert backends == {"timing/linux": "linux", **pairs}
    parts = {p.name: p for p in get("linux-check").parts}
    assert parts["timing/linux"].always
    assert all(parts[f"{g}/sim"].derive is not None for g in groups)


def test_the_wider_parts_are_the_scenarios_issue_25_names() -> None:
    # fair: four flows, round trips 2 x (access + 10 + 1) ms = 26, 36, 56, 96 ms.
    text, path = scenario_text("linux-check", "fair.toml")
    sw = sweep.load_sweep(text, path)
    assert [p["defaults.host.cc"] for p in sw.points] == ["reno", "cubic", "bbr"]
    assert text.count("[[flow]]") == 4
    assert 'rate = "20Mbps"' in text
    for d in (2, 7, 17, 37):
        assert f'delay = "{d}ms"' in text
    # short: Poisson arrivals of the web mix, 10/s x 24.3 x 1448 B x 8 = 2.81 Mb/s.
    text, path = scenario_text("linux-check", "short.toml")
    assert "[[traffic]]" in text
    assert "rate = 10" in text
    # fast: 70 Mb/s x 20 ms / 8 = 175,000 B = 116.7 packets of 1500 B, rounded up.
    text, path = scenario_text("linux-check", "fast.toml")
    assert 'rate = "70Mbps"' in text
    assert "queue = { packets = 117 }" in text
    parts = {p.name: p for p in get("linux-check").parts}
    assert parts["fqcodel/sim"].overrides == {"link[0].queue.kind": "fq_codel"}
    assert parts["long/sim"].overrides["duration"] == "240s"
    assert parts["long/sim"].overrides["measure.start"] == "60s"
    assert parts["long/linux"].modes == ("full",)
    # fair: 20 seeds on both sides (runs pair by repetition), the file's 5 elsewhere,
    # and 1 in the quick version.
    from tcplab.reproduce import _part_sweep

    study = get("linux-check")
    for side in ("linux", "sim"):
        assert _part_sweep(study, parts[f"fair/{side}"], False).spec.repetitions == 20
        assert _part_sweep(study, parts[f"fair/{side}"], True).spec.repetitions == 1
        assert _part_sweep(study, parts[f"fqcodel/{side}"], False).spec.repetitions == 5


def test_a_flow_that_delivered_nothing_on_both_sides_agrees() -> None:
    from tcplab.compare import _rel

    # 0 against 0 is no difference (a flow starved through the whole window
    # on both sides); anything against a kernel's 0 has no relative error.
    assert _rel(0.0, 0.0) == 0.0
    assert math.isnan(_rel(1.0, 0.0))
    assert math.isnan(_rel(math.nan, 0.0))
    assert _rel(1.05e6, 1.0e6) == pytest.approx(0.05)


def test_the_goodput_z_is_welch_s_statistic_worked_by_hand() -> None:
    from tcplab.compare import mean_difference_z

    # sim 1, 2, 3: mean 2, sample variance 1, standard error sqrt(1/3);
    # linux 4, 4, 4, 4: mean 4, standard error 0. z = (2 - 4) / sqrt(1/3)
    # = -2 sqrt(3) = -3.4641.
    assert mean_difference_z([1.0, 2.0, 3.0], [4.0] * 4) == pytest.approx(-2 * math.sqrt(3))
    # Both 1, 3 (standard error 1 each): z = (2 - 2) / sqrt(2) = 0.
    assert mean_difference_z([1.0, 3.0], [3.0, 1.0]) == 0.0
    # One seed: no spread to measure.
    assert math.isnan(mean_difference_z([1.0], [2.0, 3.0]))
    # Neither side varies: 0 when equal, an infinite z when not.
    assert mean_difference_z([5.0, 5.0], [5.0, 5.0]) == 0.0
    assert mean_difference_z([5.0, 5.0], [4.0, 4.0]) == math.inf


def test_agreement_applies_the_bounds_of_issue_14() -> None:
    nan = math.nan
    df = pl.DataFrame(
        {
            "goodput_error": [0.049, -0.051, 0.0, 0.0, 0.0],
            "rtt_error": [0.099, 0.0, -0.101, nan, nan],
            # The last two: no RTT sample on either side (a flow starved on
            # both: agrees), none on the simulator's only (does not).
            "rtt_sim_s": [0.11, 0.1, 0.09, nan, nan],
            "rtt_linux_s": [0.1, 0.1, 0.1, nan, 0.1],
            "timeouts_diff": [1.0, -1.0, 1.5, 0.0, 0.0],
            "seeds": [3, 3, 3, 3, 3],
            "goodput_sim_bps": [1.0, 2.0, 3.0, 0.0, 0.0],
            "goodput_linux_min_bps": [0.5, 2.1, 3.0, 0.0, 0.0],
            "goodput_linux_max_bps": [1.5, 2.5, 3.0, 0.0, 0.0],
        }
    )
    a = linux_check.agreement(df)
    assert a["in_kernel_range"].to_list() == [True, False, True, True, True]
    assert a["goodput_ok"].to_list() == [True, False, True, True, True]
    assert a["rtt_ok"].to_list() == [True, True, False, True, False]
    assert a["timeouts_ok"].to_list() == [True, True, False, True, True]


SHORT = {"duration": "4s", "measure.start": "1s", "measure.end": "4s"}
#: Flow cells per part: cells 10 points x 2 flows, fair 3 x 4, short 2 x 1, ...
FLOW_CELLS = {"cells": 20, "bdp": 3, "fair": 12, "fqcodel": 12, "short": 2, "fast": 3}


def _self_runs(
    out: Path, part: str, sides: tuple[str, ...] = ("sim", "linux"), quick: bool = False
) -> None:
    """Run a part's simulator half, short (or as its --quick version), into
    ``out/part/<side>`` for each side."""
    p = {x.name: x for x in get("linux-check").parts}[f"{part}/sim"]
    text, path = scenario_text("linux-check", p.file)
    over = dict(p.quick) if quick else dict(SHORT)
    if part == "short" and not quick:
        over = {"duration": "12s", "measure.start": "1s", "measure.end": "12s"}
        over["traffic[0].stop"] = "10s"
    for side in sides:
        sw = sweep.load_sweep(text, path)
        if p.overrides:
            sw.override(p.overrides, None)
        sw.override(over, 1)
        sweep.run_sweep(sw, out / part / side, jobs=2)


def _timing_stand_in(
    out: Path,
    p10_us: float,
    p50_us: float,
    p90_us: float,
    *,
    send_us: tuple[float, float, float] | None = None,
    sack_timer_us: tuple[float, float, float] | None = None,
    tail_us: tuple[float, float] | None = None,
) -> None:
    """A stand-in for the timing part's real-stack run: the simulator runs its
    file into ``out/timing/linux`` and each run gets the timing table a
    real run would have, one link of 1000 ACKs timed at these percentiles
    and, with ``send_us``, another of 500 sends timed at those, with
    ``sack_timer_us`` 200 held SACKs timed from their timer's arming at
    those (a run made before the emulator timed them has no such
    columns), with ``tail_us`` the ACK lag's 99th and 99.9th percentiles
    (runs made before the emulator kept them have no such columns)."""
    p = {x.name: x for x in get("linux-check").parts}["timing/linux"]
    text, path = scenario_text("linux-check", p.file)
    sw = sweep.load_sweep(text, path)
    d = out / "timing" / "linux"
    sweep.run_sweep(sw, d, jobs=1)
    row = {
        "link": "r2->b1",
        "delivered": 2000,
        "acks_timed": 1000,
        "ack_lag_p10_s": p10_us * 1e-6,
        "ack_lag_p50_s": p50_us * 1e-6,
        "ack_lag_p90_s": p90_us * 1e-6,
    }
    if tail_us is not None:
        row["ack_lag_p99_s"], row["ack_lag_p999_s"] = (v * 1e-6 for v in tail_us)
    rows = [row]
    if send_us is not None:
        row["sends_timed"] = 0
        for q in (10, 50, 90):
            row[f"send_lag_p{q}_s"] = float("nan")
        rows.append(
            {
                "link": "r1->a1",
                "delivered": 1000,
                "acks_timed": 0,
                "ack_lag_p10_s": float("nan"),
                "ack_lag_p50_s": float("nan"),
                "ack_lag_p90_s": float("nan"),
                "sends_timed": 500,
                **{f"send_lag_p{q}_s": v * 1e-6 for q, v in zip((10, 50, 90), send_us)},
            }
        )
    if sack_timer_us is not None:
        row["sack_timers"] = 200
        for q, v in zip((10, 50, 90), sack_timer_us):
            row[f"sack_timer_p{q}_s"] = v * 1e-6
    for run in (d / "runs").iterdir():
        pl.DataFrame(rows).write_parquet(run / "timing.parquet")
    for collected in d.glob("timing.parquet"):
        collected.unlink()


def test_a_part_s_own_real_stack_runs_give_its_timing_before_the_timing_part_s(
    tmp_path: Path,
) -> None:
    out = tmp_path / "lc"
    _timing_stand_in(out, 70.0, 90.0, 118.0)
    _self_runs(out, "bdp", ("linux",), quick=True)
    # bdp's stand-in runs timed no ACK: the timing part's lag.
    lag, source = linux_check.part_timing(out, "bdp") or ({}, "")
    assert source == "the timing part"
    assert lag["p50_s"] == pytest.approx(90e-6)
    # Once they have (two links, 300 and 100 ACKs), theirs, pooled with
    # the ACKs as weights: p10 (40 x 300 + 80 x 100) / 400 = 50 us.
    rows = [
        {
            "link": "a->b",
            "acks_timed": 300,
            "ack_lag_p10_s": 40e-6,
            "ack_lag_p50_s": 50e-6,
            "ack_lag_p90_s": 60e-6,
        },
        {
            "link": "b->a",
            "acks_timed": 100,
            "ack_lag_p10_s": 80e-6,
            "ack_lag_p50_s": 90e-6,
            "ack_lag_p90_s": 100e-6,
        },
    ]
    d = out / "bdp" / "linux"
    for run in (d / "runs").iterdir():
        pl.DataFrame(rows).write_parquet(run / "timing.parquet")
    for collected in d.glob("timing.parquet"):
        collected.unlink()
    lag, source = linux_check.part_timing(out, "bdp") or ({}, "")
    assert source == "its own real-stack runs"
    assert lag["p10_s"] == pytest.approx(50e-6)
    assert lag["p50_s"] == pytest.approx(60e-6)
    assert lag["p90_s"] == pytest.approx(70e-6)
    assert lag["acks"] == 400 * 3  # the quick bdp part: three runs


def test_host_timing_is_the_uniform_law_through_the_lags_10th_and_90th_percentiles() -> None:
    # Uniform on [a, a + w): p10 = a + w / 10, p90 = a + 9 w / 10. Measured
    # 70 and 118 us: w = 48 / 0.8 = 60 us, a = 70 - 6 = 64 us.
    a, w = linux_check.host_timing({"p10_s": 70e-6, "p50_s": 90e-6, "p90_s": 118e-6})
    assert a == pytest.approx(64e-6)
    assert w == pytest.approx(60e-6)
    # A lag concentrated at one value: no jitter; never a negative latency.
    assert linux_check.host_timing({"p10_s": 5e-6, "p50_s": 5e-6, "p90_s": 5e-6}) == (5e-6, 0.0)
    a, w = linux_check.host_timing({"p10_s": 1e-6, "p50_s": 20e-6, "p90_s": 81e-6})
    assert (a, w) == (0.0, pytest.approx(100e-6))


def test_read_tail_is_the_uniform_tail_through_the_lags_99th_and_99_9th_percentiles() -> None:
    # The body through p10 70 us and p90 118 us is 64 + U[0, 60 us) (the
    # test above): its top b = 124 us. A share q = 0.02 of the reads
    # uniform on [b, b + 1000 us) puts the 99th percentile where the tail
    # has 0.01 of all reads above it, 1 - 0.01 / 0.02 = 1/2 of the span
    # up: 624 us; the 99.9th 1 - 0.001 / 0.02 = 0.95 of it up: 1074 us.
    lag = {"p10_s": 70e-6, "p50_s": 90e-6, "p90_s": 118e-6, "p99_s": 624e-6, "p999_s": 1074e-6}
    q, span = linux_check.tail_timing(lag) or (0.0, 0.0)
    assert q == pytest.approx(0.02)
    assert span == pytest.approx(1000e-6)
    # No 99th percentile above the body's top, no percentiles kept: no tail.
    assert linux_check.tail_timing({**lag, "p99_s": 120e-6}) is None
    assert linux_check.tail_timing({"p10_s": 70e-6, "p50_s": 90e-6, "p90_s": 118e-6}) is None


def test_the_simulated_hosts_get_the_read_tail_the_real_stack_measured(tmp_path: Path) -> None:
    from tcplab.reproduce import reproduce

    out = tmp_path / "lc"
    _self_runs(out, "bdp", ("linux",), quick=True)
    # The timing part's run kept the tail (the test above: 2 % over 1 ms).
    _timing_stand_in(out, 70.0, 90.0, 118.0, tail_us=(624.0, 1074.0))
    lag = linux_check.receive_timing(out / "timing" / "linux") or {}
    assert lag["p99_s"] == pytest.approx(624e-6)
    assert lag["p999_s"] == pytest.approx(1074e-6)
    assert linux_check.read_tail(out, "bdp") == (
        pytest.approx(0.02),
        pytest.approx(1000e-6),
        "the timing part",
    )
    assert linux_check.hosts_timing(out, "bdp") == {
        "defaults.host.read_latency": "64us",
        "defaults.host.read_jitter": "60us",
        "defaults.host.read_tail": 0.02,
        "defaults.host.read_tail_span": "1000us",
    }
    report = reproduce("linux-check", out, quick=True, only=["bdp"], sim_only=True)
    scenario = (next((out / "bdp" / "sim" / "runs").iterdir()) / "scenario.toml").read_text()
    assert "read_tail = 0.02" in scenario
    assert 'read_tail_span = "1000us"' in scenario
    html = unescape(report.read_text())
    assert "2.00 % of reads after that + U[0, 1000us), from the timing part" in html
    assert "624.0 / 1074.0" in html


def test_the_simulated_side_gets_the_timing_part_s_measurement(tmp_path: Path) -> None:
    from tcplab.reproduce import reproduce
    from tcplab.sweep import SweepError

    out = tmp_path / "lc"
    _self_runs(out, "bdp", ("linux",), quick=True)
    # No timing part stored: a clear error saying what to run.
    with pytest.raises(SweepError, match=r"timing/linux holds none.*run the study"):
        reproduce("linux-check", out, quick=True, only=["bdp"], sim_only=True)
    _timing_stand_in(out, 70.0, 90.0, 118.0)
    lag = linux_check.receive_timing(out / "timing" / "linux")
    assert lag == pytest.approx({"p10_s": 70e-6, "p50_s": 90e-6, "p90_s": 118e-6, "acks": 1000})
    report = reproduce("linux-check", out, quick=True, only=["bdp"], sim_only=True)
    # The simulated runs were given read_latency 64 us, read_jitter 60 us.
    run = next((out / "bdp" / "sim" / "runs").iterdir())
    scenario = (run / "scenario.toml").read_text()
    assert 'read_latency = "64us"' in scenario
    assert 'read_jitter = "60us"' in scenario
    html = unescape(report.read_text())
    assert "The hosts' timing" in html
    # The stand-in bdp runs timed no ACK: the timing part's lag serves.
    assert "read 64us + U[0, 60us), from the timing part" in html


def test_the_report_shows_the_senders_lag_and_the_sacks_but_gives_them_to_no_host(
    tmp_path: Path,
) -> None:
    from tcplab.reproduce import reproduce

    out = tmp_path / "lc"
    _self_runs(out, "bdp", ("linux",), quick=True)
    # Senders timed at 20/30/55 us (one link, 500 sends a run).
    _timing_stand_in(out, 70.0, 90.0, 118.0, send_us=(20.0, 30.0, 55.0))
    send = linux_check.send_timing(out / "timing" / "linux")
    assert send == pytest.approx({"p10_s": 20e-6, "p50_s": 30e-6, "p90_s": 55e-6, "acks": 500})
    # The stand-in timed no SACK; the simulated hosts get the read timing
    # only (a = 64 us, w = 60 us: the test above), no rx_latency.
    assert linux_check.hosts_timing(out, "bdp") == {
        "defaults.host.read_latency": "64us",
        "defaults.host.read_jitter": "60us",
    }
    report = reproduce("linux-check", out, quick=True, only=["bdp"], sim_only=True)
    scenario = (next((out / "bdp" / "sim" / "runs").iterdir()) / "scenario.toml").read_text()
    assert "rx_latency" not in scenario
    html = unescape(report.read_text())
    assert "20.0 / 30.0 / 55.0" in html
    assert "read 64us + U[0, 60us), from the timing part" in html


def test_the_simulated_sack_timer_fires_as_late_as_the_real_one(tmp_path: Path) -> None:
    from tcplab.reproduce import reproduce

    out = tmp_path / "lc"
    _self_runs(out, "bdp", ("linux",), quick=True)
    # Held SACKs read back 1130/1142/1170 us after the segment that armed
    # the timer: 30/42/70 us past the 1.1 ms hard expiry, whose uniform
    # law through the 10th and 90th percentiles is 25 us + U[0, 50 us)
    # (w = 40 / 0.8, a = 30 - w / 10).
    _timing_stand_in(out, 70.0, 90.0, 118.0, sack_timer_us=(1130.0, 1142.0, 1170.0))
    assert linux_check.sack_timer_lateness(out, "bdp") == (
        pytest.approx(25e-6),
        pytest.approx(50e-6),
        "the timing part",
    )
    assert linux_check.hosts_timing(out, "bdp") == {
        "defaults.host.read_latency": "64us",
        "defaults.host.read_jitter": "60us",
        "defaults.host.sack_timer_latency": "25us",
        "defaults.host.sack_timer_jitter": "50us",
    }
    report = reproduce("linux-check", out, quick=True, only=["bdp"], sim_only=True)
    scenario = (next((out / "bdp" / "sim" / "runs").iterdir()) / "scenario.toml").read_text()
    assert 'sack_timer_latency = "25us"' in scenario
    assert 'sack_timer_jitter = "50us"' in scenario
    html = unescape(report.read_text())
    assert "1130.0 / 1142.0 / 1170.0" in html
    assert "SACK timer 25us + U[0, 50us) late, from the timing part" in html
    # A timer that fired before its hard expiry (a coalesced hrtimer, in
    # its slack range): never a negative lateness.
    _timing_stand_in(out, 70.0, 90.0, 118.0, sack_timer_us=(1010.0, 1050.0, 1100.0))
    assert linux_check.sack_timer_lateness(out, "bdp") == (0.0, 0.0, "the timing part")


@pytest.mark.parametrize("part", ["cells", "bdp", "fair", "fqcodel", "short", "fast"])
def test_the_report_of_the_simulator_against_itself_agrees_everywhere(
    tmp_path: Path, part: str
) -> None:
    _self_runs(tmp_path, part)
    linux_check._report(tmp_path, True)
    html = unescape((tmp_path / "report.html").read_text())
    n = FLOW_CELLS[part]
    assert f"Over {n} flow cells: goodput within 5% in {n} (100%" in html
    assert f"within 10% in {n} (the target: all)" in html
    assert "Flow cells outside a bound" not in html
    from tcplab.compare import comparison, fairness_comparison, fct_comparison

    df = comparison(tmp_path / part)
    assert df.height == n
    assert all(e == 0.0 or math.isnan(e) for e in df["goodput_error"].to_list())
    # One seed: the kernel's range is its one value, no spread: no verdict.
    assert df["goodput_linux_min_bps"].to_list() == df["goodput_linux_max_bps"].to_list()
    assert linux_check.agreement(df)["in_kernel_range"].null_count() == n
    j = fairness_comparison(tmp_path / part)
    if part in ("fair", "fqcodel"):
        # Jain's index of four values lies between 1/4 and 1; equal sides differ by 0.
        assert j.height == 3
        assert all(0.25 <= x <= 1.0 for x in j["jain_sim"].to_list())
        assert j["jain_diff"].to_list() == [0.0, 0.0, 0.0]
        # The same runs on both sides: the same count of starved runs.
        assert j["starved_sim"].to_list() == j["starved_linux"].to_list()
        assert "Jain's index within 0.05 in 3 of 3 points" in html
    else:
        assert j.height == 0 if part in ("bdp", "fast", "short") else j.height > 0
    f = fct_comparison(tmp_path / part)
    if part == "short":
        # Sizes of the web mix, in segments of 1448 bytes.
        assert set(f["size_bytes"].to_list()) <= {1448, 6 * 1448, 18 * 1448, 190 * 1448}
        assert f.filter(pl.col("size_bytes") == 1448).height == 2
        assert all(e == 0.0 for e in f["fct_error"].drop_nans().to_list())
        assert f"Completion-time medians within 10% in {f.height} of {f.height}" in html
    else:
        assert f.height == 0


def test_jain_and_fct_bounds_are_issue_25s() -> None:
    assert linux_check.JAIN_TOL == 0.05
    assert linux_check.FCT_TOL == 0.10
    assert linux_check.GOODPUT_SHARE == 0.90
    assert linux_check.GOODPUT_MAX == 0.10


def test_sim_only_reruns_the_simulator_against_the_stored_kernel_runs(tmp_path: Path) -> None:
    from tcplab.reproduce import reproduce
    from tcplab.sweep import SweepError

    out = tmp_path / "lc"
    # No stored kernel runs: a clear error naming the directory (the timing
    # part's first, which runs with any part).
    with pytest.raises(SweepError, match=r"timing/linux holds none.*run the study"):
        reproduce("linux-check", out, quick=True, only=["bdp"], sim_only=True)
    _timing_stand_in(out, 0.0, 0.0, 0.0)
    with pytest.raises(SweepError, match=r"bdp/linux holds none.*run the study"):
        reproduce("linux-check", out, quick=True, only=["bdp"], sim_only=True)
    # Stand-in kernel runs (the simulator's, so that the comparison is exact
    # but for the hosts' timing, 0 here: the stand-in measured none).
    _self_runs(out, "bdp", ("linux",), quick=True)
    stamp = (out / "bdp" / "linux" / "sweep.json").stat().st_mtime_ns
    report = reproduce("linux-check", out, quick=True, only=["bdp"], sim_only=True)
    assert report.is_file()
    assert (out / "bdp" / "linux" / "sweep.json").stat().st_mtime_ns == stamp
    assert (out / "bdp" / "sim" / "sweep.json").is_file()
    assert not (out / "cells").exists()
    html = unescape(report.read_text())
    assert "Over 3 flow cells: goodput within 5% in 3 (100%" in html
    assert "One flow, one-BDP buffer" in html
    assert "No results in" in html  # the parts not run say so
    import json

    facts = json.loads((out / "study.json").read_text())
    assert facts["parts"] == ["bdp"]
    assert facts["sim_only"] is True


def test_an_unknown_part_is_a_clear_error(tmp_path: Path) -> None:
    from conftest import run_cli

    r = run_cli("reproduce", "linux-check", "--part", "nope", "--out", str(tmp_path / "o"))
    assert r.returncode == 2, r.stderr
    assert "linux-check has no part 'nope'; its parts are: timing, cells, long, bdp" in r.stderr
    assert "Traceback" not in r.stderr
    r = run_cli("reproduce", "barakat1999", "--sim-only", "--out", str(tmp_path / "b"))
    assert r.returncode == 2, r.stderr
    assert "barakat1999 has no real-stack parts" in r.stderr
    r = run_cli("reproduce", "linux-check", "--list-parts")
    assert r.returncode == 0
    assert r.stdout.split() == [
        "timing",
        "cells",
        "long",
        "bdp",
        "fair",
        "fqcodel",
        "short",
        "fast",
    ]


def test_sim_only_refuses_kernel_runs_of_another_version(tmp_path: Path) -> None:
    from tcplab.reproduce import reproduce
    from tcplab.sweep import SweepError

    out = tmp_path / "lc"
    # Stand-ins for kernel runs made by the quick study...
    _self_runs(out, "bdp", ("linux",), quick=True)
    _timing_stand_in(out, 70.0, 90.0, 118.0)
    # ...would pair run by run with the full study's (same points, same
    # repetition numbers): refused, naming the directory and the way out.
    with pytest.raises(SweepError, match=r"bdp/linux were made from another version of bdp.toml"):
        reproduce("linux-check", out, quick=False, only=["bdp"], sim_only=True)


def test_a_failed_run_of_a_nested_part_fails_the_command(tmp_path: Path) -> None:
    from tcplab import sweep as sweep_mod
    from tcplab.reproduce import _part_sweep

    from conftest import run_cli

    out = tmp_path / "lc"
    _self_runs(out, "bdp", ("linux",), quick=True)
    _timing_stand_in(out, 70.0, 90.0, 118.0)
    study = get("linux-check")
    part = {p.name: p for p in study.parts}["bdp/sim"]
    victim = _part_sweep(study, part, True).task(1, 0).run_id
    r = run_cli(
        "reproduce",
        "linux-check",
        "--quick",
        "--part",
        "bdp",
        "--sim-only",
        "--out",
        str(out),
        env={sweep_mod.FAULT_ENV: victim},
    )
    assert r.returncode != 0, r.stdout
    assert f"run {victim} failed" in r.stderr
    assert "1 run(s) failed" in r.stderr


def test_part_names_in_errors_say_what_is_wrong(tmp_path: Path) -> None:
    from conftest import run_cli

    r = run_cli("reproduce", "linux-check", "--quick", "--part", "long", "--out", str(tmp_path))
    assert r.returncode == 2, r.stderr
    assert "part 'long' runs in the full version only (not --quick)" in r.stderr
    r = run_cli("reproduce", "linux-check", "--part", "cells/linux", "--out", str(tmp_path))
    assert r.returncode == 2, r.stderr
    assert "(--part names a group: the part's name up to its first '/'" in r.stderr


def test_a_resumed_part_whose_host_timing_moved_reruns_its_simulated_side(tmp_path: Path) -> None:
    # The simulated side's read timing is derived from the real-stack runs; a
    # part resumed after more real-stack runs measured another ACK lag makes
    # its simulated runs again (resuming would mix two timings) instead of
    # refusing the changed scenario.
    from tcplab.reproduce import reproduce

    out = tmp_path / "lc"
    _timing_stand_in(out, 0.0, 0.0, 0.0)
    _self_runs(out, "bdp", ("linux",), quick=True)
    reproduce("linux-check", out, quick=True, only=["bdp"], sim_only=True, resume=True)
    run = next((out / "bdp" / "sim" / "runs").iterdir())
    assert 'read_latency = "0us"' in (run / "scenario.toml").read_text()
    _timing_stand_in(out, 70.0, 90.0, 118.0)  # the lag measured again: 64 + U[0, 60) us
    reproduce("linux-check", out, quick=True, only=["bdp"], sim_only=True, resume=True)
    runs = list((out / "bdp" / "sim" / "runs").iterdir())
    assert len(runs) == 3  # the quick bdp part's three runs, made again
    for run in runs:
        assert 'read_latency = "64us"' in (run / "scenario.toml").read_text()
    # Nothing moved: resumed as it is (the runs are kept, not made again).
    stamp = runs[0].stat().st_mtime_ns
    reproduce("linux-check", out, quick=True, only=["bdp"], sim_only=True, resume=True)
    assert runs[0].stat().st_mtime_ns == stamp


def test_the_simulated_hosts_buffer_is_the_kernels_tcp_rmem_max(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The simulated side's `rcvbuf` (tcp_rmem[2] under the linux profile's
    buffer accounting) is the real stack's: from the stored runs' origin,
    or this machine's for runs made here; none when neither says."""
    import json

    from tcplab import stored

    d = tmp_path / "lc" / "cells" / "linux"
    d.mkdir(parents=True)
    proc = tmp_path / "tcp_rmem"
    proc.write_text("4096\t131072\t16777216\n")
    monkeypatch.setattr(linux_check, "TCP_RMEM", proc)
    # Runs made here (no origin): this machine's third value.
    assert linux_check.kernel_rmem_max(tmp_path / "lc", "cells") == 16_777_216
    # Stored runs: their origin's, whatever this machine has.
    origin = {"kernel": "6.18", "tcp_rmem": [4096, 131072, 33554432]}
    (d / stored.ORIGIN_FILE).write_text(json.dumps(origin))
    assert linux_check.kernel_rmem_max(tmp_path / "lc", "cells") == 33_554_432
    # Stored before the origin carried it: not known (the profile's 6 MiB).
    (d / stored.ORIGIN_FILE).write_text(json.dumps({"kernel": "6.18"}))
    assert linux_check.kernel_rmem_max(tmp_path / "lc", "cells") is None
    # No /proc value either.
    (d / stored.ORIGIN_FILE).unlink()
    monkeypatch.setattr(linux_check, "TCP_RMEM", tmp_path / "missing")
    assert linux_check.kernel_rmem_max(tmp_path / "lc", "cells") is None


def test_the_stored_kernel_runs_say_their_tcp_rmem() -> None:
    """Every part's stored kernel runs carry the machine's tcp_rmem, which
    the simulated side's buffer follows (the suite's receivers switch ACK
    regimes by where their window stops growing: docs/tcp.md)."""
    import tcplab
    from tcplab import stored

    kernel = Path(tcplab.__file__).parent / "studies" / "data" / "linux-check" / "kernel"
    for group in ("timing", "cells", "long", "bdp", "fair", "fqcodel", "short", "fast"):
        rmem = stored.read(kernel / f"{group}.json.gz")["origin"].get("tcp_rmem")
        assert isinstance(rmem, list), group
        assert len(rmem) == 3, group
        assert rmem[0] <= rmem[1] <= rmem[2], group
