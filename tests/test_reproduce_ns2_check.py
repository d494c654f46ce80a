"""``tcplab reproduce ns2-check``: its files are what their generator writes,
the stored ns-2.35 runs are those of its files (every run present, with the
start times tcplab's seeds draw) and obey the links' capacities, and its
bounds are issue 23's."""

from __future__ import annotations

import json
import math
from pathlib import Path

import polars as pl
import pytest

from tcplab import _core, sweep
from tcplab.results import Results
from tcplab.studies import get, ns2_check, scenario_text

from conftest import assert_study_files_are_generated


def test_the_study_files_are_what_their_generator_writes() -> None:
    assert_study_files_are_generated("ns2-check")


def _sweep(file: str) -> sweep.Sweep:
    text, path = scenario_text("ns2-check", file)
    return sweep.load_sweep(text, path)


def _stored_files() -> set[str]:
    return set(ns2_check.reference()["file"].unique().to_list())


def test_every_run_of_every_full_part_has_its_ns2_counterpart() -> None:
    ref = ns2_check.reference()
    have = set(zip(ref["file"], ref["coords"], ref["rep"], strict=True))
    for part in get("ns2-check").parts:
        if "full" not in part.modes or part.file not in _stored_files():
            continue
        sw = _sweep(part.file)
        for i, coords in enumerate(sw.points):
            for rep in range(sw.spec.repetitions):
                key = (part.file, ns2_check.coords_key(coords), rep)
                assert key in have, f"{part.name} point {i} rep {rep}: no ns-2 run"


def test_the_quick_mascolo_points_are_points_of_scenario_a() -> None:
    # Same coordinates, hence the same seeds and the same runs: the quick part
    # is compared with scenario A's stored runs.
    quick, full = _sweep("mascolo-quick.toml"), _sweep("mascolo-a.toml")
    for coords in quick.points:
        assert coords in full.points
        assert (
            quick.task(quick.points.index(coords), 0).text
            == full.task(full.points.index(coords), 0).text
        )


@pytest.mark.parametrize("file", ["barakat-sec3.toml", "barakat-sec7-randomdrop.toml"])
def test_ns2_ran_with_the_start_times_tcplab_draws(file: str) -> None:
    # The reference gave ns-2 the flows' start times of tcplab's runs: if the
    # seeds or the draws change, the stored runs are of other runs.
    ref = ns2_check.reference().filter(pl.col("file") == file)
    sw = _sweep(file)
    for point in (0, len(sw.points) - 1):
        for rep in (0, sw.spec.repetitions - 1):
            t = sw.task(point, rep)
            res = Results(_core.run(t.text, t.path, t.seed))
            row = ref.filter(
                (pl.col("coords") == ns2_check.coords_key(t.coords)) & (pl.col("rep") == rep)
            )
            assert row.height > 0
            assert row["flow_start_s"][0] == pytest.approx(res.flows["start_s"][0], abs=1e-9)


def test_the_stored_runs_respect_the_bottlenecks() -> None:
    ref = ns2_check.reference()
    assert (ref["segs_retrans"] <= ref["segs_sent"]).all()
    # A phase may deliver what an earlier one sent: by the end of each phase,
    # a flow has delivered at most what it has sent.
    cum = ref.sort("phase").with_columns(
        pl.col("delivered_pkts", "segs_sent").cum_sum().over("file", "coords", "rep", "flow")
    )
    assert (cum["delivered_pkts"] <= cum["segs_sent"]).all()
    # barakat1999: one flow through a 1.5 Mb/s bottleneck of 512-byte packets
    # (472 payload bytes): at most 1.5e6 * 472 / 512 b/s of goodput.
    b = ref.filter(pl.col("file").str.starts_with("barakat"))
    assert b.height > 0
    assert (b["goodput_bps"] <= 1.5e6 * 472 / 512 * 1.0001).all()
    # mascolo2006: A + B (and E, F) share 250 Mb/s of 1500-byte packets (1460
    # payload bytes): their sum per run and phase is at most 250e6 * 1460 / 1500.
    m = ref.filter(
        pl.col("file").str.starts_with("mascolo") & pl.col("flow").is_in(["A", "B", "E", "F"])
    )
    if m.height:
        total = m.group_by("file", "coords", "rep", "phase").agg(pl.col("goodput_bps").sum())
        assert (total["goodput_bps"] <= 250e6 * 1460 / 1500 * 1.0001).all()


def test_the_bounds_are_issue_23s() -> None:
    df = pl.DataFrame(
        {
            "goodput_error": [0.049, -0.051, 0.0, 0.0, 0.0],
            "timeouts_sim": [1.0, 0.0, 20.0, 20.0, 2.5],
            "timeouts_ns2": [0.0, 0.0, 26.0, 27.0, 1.0],
        }
    ).with_columns((pl.col("timeouts_sim") - pl.col("timeouts_ns2")).alias("timeouts_diff"))
    a = ns2_check.agreement(df)
    assert a["goodput_ok"].to_list() == [True, False, True, True, True]
    # Within one, or within 25 %: 6 of 26 (6.5 allowed) yes, 7 of 27 (6.75) no.
    assert a["timeouts_ok"].to_list() == [True, True, True, False, False]
    assert a["ok"].to_list() == [True, False, True, False, False]


def test_cells_are_means_over_the_repetitions_both_sides_have() -> None:
    key = {"file": "f.toml", "coords": "{}", "flow": "A"}
    sim = pl.DataFrame(
        [
            {
                **key,
                "rep": 0,
                "phase": 0,
                "goodput_bps": 90.0e6,
                "segs_sent": 10,
                "segs_retrans": 1,
                "timeouts": 1,
                "flow_start_s": 1.0,
            },
            {
                **key,
                "rep": 1,
                "phase": 0,
                "goodput_bps": 110.0e6,
                "segs_sent": 10,
                "segs_retrans": 1,
                "timeouts": 3,
                "flow_start_s": 2.0,
            },
            # a repetition ns-2 has not: left out
            {
                **key,
                "rep": 2,
                "phase": 0,
                "goodput_bps": 1.0,
                "segs_sent": 10,
                "segs_retrans": 1,
                "timeouts": 9,
                "flow_start_s": 3.0,
            },
            # an idle phase on both sides: no cell
            {
                **key,
                "rep": 0,
                "phase": 1,
                "goodput_bps": 0.0,
                "segs_sent": 0,
                "segs_retrans": 0,
                "timeouts": 0,
                "flow_start_s": 1.0,
            },
        ]
    )
    ref = pl.DataFrame(
        [
            {
                **key,
                "rep": 0,
                "phase": 0,
                "goodput_bps": 80.0e6,
                "segs_sent": 10,
                "segs_retrans": 1,
                "timeouts": 0,
                "flow_start_s": 1.0,
                "agent": "Agent/TCP/Sack1",
                "start_s": 0.0,
                "end_s": 333.0,
            },
            {
                **key,
                "rep": 1,
                "phase": 0,
                "goodput_bps": 80.0e6,
                "segs_sent": 10,
                "segs_retrans": 1,
                "timeouts": 0,
                "flow_start_s": 2.5,
                "agent": "Agent/TCP/Sack1",
                "start_s": 0.0,
                "end_s": 333.0,
            },
            {
                **key,
                "rep": 0,
                "phase": 1,
                "goodput_bps": 0.0,
                "segs_sent": 0,
                "segs_retrans": 0,
                "timeouts": 0,
                "flow_start_s": 1.0,
                "agent": "Agent/TCP/Sack1",
                "start_s": 333.0,
                "end_s": 666.0,
            },
        ]
    )
    c = ns2_check.cells(sim, ref)
    assert c.height == 1
    row = c.row(0, named=True)
    assert row["reps"] == 2
    assert row["goodput_bps_sim"] == pytest.approx(100e6)
    assert row["goodput_error"] == pytest.approx(100 / 80 - 1)
    assert row["timeouts_diff"] == pytest.approx(2.0)
    assert row["starts_differ"] == 1
    assert row["followed"]
    # sample standard deviations (ddof 1): tcplab 90 and 110 -> 14.142 Mb/s
    assert row["goodput_bps_sd_sim"] == pytest.approx(math.sqrt(2) * 10e6)
    assert row["goodput_bps_sd_ns2"] == 0.0
    assert row["timeouts_sd_sim"] == pytest.approx(math.sqrt(2))


def test_the_report_compares_a_run_with_its_stored_counterpart(tmp_path: Path) -> None:
    # One barakat1999 point run by the simulator: the report pairs it with the
    # stored ns-2 run of the same file, point and seed.
    part = next(p for p in get("ns2-check").parts if p.name == "barakat-sec7-droptail")
    text, path = scenario_text("ns2-check", part.file)
    sw = sweep.load_sweep(text, path)
    sw.override({}, repetitions=1)
    sw.points = sw.points[:1]
    sweep.run_sweep(sw, tmp_path / part.name, jobs=1)
    sim = ns2_check.sim_phases(tmp_path, part.name, part.file)
    assert sim.height == 3  # one flow, three phases
    c = ns2_check.cells(sim, ns2_check.reference())
    assert c.height == 3
    assert c["starts_differ"].sum() == 0
    assert json.loads(c["coords"][0]) == sw.points[0]


def test_a_cell_within_ns2s_own_tie_spread_is_told_apart() -> None:
    # ns-2 gives 100 Mb/s and, with its rates scaled by 1 + 1e-9, 130 Mb/s
    # (a tie broken the other way): tcplab's 128 is 28 % off the first and
    # within 5 % of the second.
    key = {"file": "f.toml", "coords": "{}", "flow": "A", "phase": 0}
    cells = pl.DataFrame(
        [
            {
                **key,
                "goodput_bps_sim": 128e6,
                "goodput_bps_ns2": 100e6,
                "goodput_error": 0.28,
                "timeouts_sim": 0.0,
                "timeouts_ns2": 0.0,
                "timeouts_diff": 0.0,
            }
        ]
    )
    ref = pl.DataFrame([{**key, "rep": 0, "goodput_bps": 100e6, "timeouts": 0}])
    pert = pl.DataFrame([{**key, "rep": 0, "goodput_bps": 130e6, "timeouts": 0, "perturb": "1e-9"}])
    a = ns2_check.agreement(ns2_check.tie_spread(cells, ref, pert, ref))
    assert a["goodput_ns2_lo"][0] == 100e6
    assert a["goodput_ns2_hi"][0] == 130e6
    assert not a["ok"][0]
    assert a["ok_ties"][0]
    # Without perturbed runs the spread is ns-2's one value: no excuse.
    a = ns2_check.agreement(ns2_check.tie_spread(cells, ref, pl.DataFrame(), ref))
    assert not a["ok_ties"][0]


def test_welch_half_width_by_hand() -> None:
    def timeouts_ci(sd_sim: float, sd_ns2: float, reps: int) -> float | None:
        cell = {
            "reps": reps,
            "goodput_bps_ns2": 1.0,
            "goodput_error": 0.0,
            "goodput_bps_sd_sim": 0.0,
            "goodput_bps_sd_ns2": 0.0,
            "timeouts_ok": True,
            "timeouts_diff": 0.0,
            "timeouts_sd_sim": sd_sim,
            "timeouts_sd_ns2": sd_ns2,
        }
        return ns2_check.seed_test(pl.DataFrame([cell]))["timeouts_ci"][0]

    # sd 1 and 1 over 5 runs each: variances of the means 0.2 + 0.2; Welch's
    # df = 0.4^2 / ((0.04 + 0.04) / 4) = 8; t(0.975, 8) = 2.306 (A&S 26.10).
    assert timeouts_ci(1.0, 1.0, 5) == pytest.approx(2.306 * math.sqrt(0.4))
    # sd 2 and 0 over 4 runs: df = 1 / (1 / 3) = 3, t = 3.182, sqrt(4 / 4) = 1.
    assert timeouts_ci(2.0, 0.0, 4) == pytest.approx(3.182)
    # Both sides constant: only equal means agree. One run: nothing to say.
    assert timeouts_ci(0.0, 0.0, 6) == 0.0
    assert timeouts_ci(1.0, 1.0, 1) is None


def test_a_miss_within_the_seeds_confidence_interval_is_told_apart() -> None:
    # Both sides 100 Mb/s +- 20 (sd) over 8 seeds: df = 14, t = 2.145,
    # half-width 2.145 * sqrt(2 * 400 / 8) = 21.45 Mb/s. tcplab 12 % above
    # ns-2 is a miss of the 5 % bound but within what the seeds draw; 25 %
    # above is not; with 2 seeds the test is not made.
    base = {
        "goodput_bps_ns2": 100e6,
        "goodput_bps_sd_sim": 20e6,
        "goodput_bps_sd_ns2": 20e6,
        "timeouts_sim": 0.0,
        "timeouts_ns2": 0.0,
        "timeouts_diff": 0.0,
        "timeouts_sd_sim": 0.0,
        "timeouts_sd_ns2": 0.0,
    }
    df = pl.DataFrame(
        [
            {**base, "reps": 8, "goodput_bps_sim": 112e6, "goodput_error": 0.12},
            {**base, "reps": 8, "goodput_bps_sim": 125e6, "goodput_error": 0.25},
            {**base, "reps": 2, "goodput_bps_sim": 112e6, "goodput_error": 0.12},
        ]
    )
    a = ns2_check.agreement(df)
    assert a["ok"].to_list() == [False, False, False]
    assert a["goodput_ci"][0] == pytest.approx(2.145 * math.sqrt(2 * 400 / 8) / 100)
    assert a["goodput_ci"][2] is None
    assert a["timeouts_ci"][0] == 0.0  # both sides constant
    assert a["seed_noise"].to_list() == [True, False, False]


def test_the_perturbations_are_described_from_their_names() -> None:
    text = ns2_check.perturbations_text(["3e-9@1", "1e-9", "-1e-9", "3e-9@2", "1e-9@4"])
    assert text == (
        "every link rate scaled by 1 - 1e-9, 1 + 1e-9; "
        "each rate by its own 1 + 1e-9 U(-1, 1) (1 draw); "
        "each rate by its own 1 + 3e-9 U(-1, 1) (2 draws)"
    )


def test_twins_are_judged_by_their_sum_where_they_start_together() -> None:
    # mascolo-a: C and D start at 333 s in both runs. tcplab gives C 60 and
    # D 40 Mb/s, ns-2 the other way round (40 and 60): each twin is 50 % off,
    # but the pair's sum, 100 against 100, agrees. In mascolo-b, D starts
    # 1 s after C in tcplab's run: not twins there (null). A of mascolo-a is
    # no twin (null).
    def rows(file: str, flows: dict[str, tuple[float, float]]) -> list[dict]:
        out = []
        for rep in (0, 1):
            for flow, (gp, start) in flows.items():
                out.append(
                    {
                        "file": file,
                        "coords": "{}",
                        "rep": rep,
                        "flow": flow,
                        "phase": 1,
                        "goodput_bps": gp * 1e6,
                        "segs_sent": 100,
                        "segs_retrans": 1,
                        "timeouts": 0,
                        "flow_start_s": start,
                        "agent": "Agent/TCP/Sack1",
                        "start_s": 333.0,
                        "end_s": 666.0,
                    }
                )
        return out

    sim = pl.DataFrame(
        rows("mascolo-a.toml", {"A": (90, 3.0), "C": (60, 333.0), "D": (40, 333.0)})
        + rows("mascolo-b.toml", {"C": (60, 333.0), "D": (40, 334.0)})
    )
    ref = pl.DataFrame(
        rows("mascolo-a.toml", {"A": (90, 3.0), "C": (40, 333.0), "D": (60, 333.0)})
        + rows("mascolo-b.toml", {"C": (40, 333.0), "D": (60, 334.0)})
    )
    sim_cells = sim.drop("agent", "start_s", "end_s")
    c = ns2_check.twin_test(ns2_check.agreement(ns2_check.cells(sim_cells, ref)), sim_cells, ref)
    got = {(r["file"][:9], r["flow"]): (r["ok"], r["twins_ok"]) for r in c.iter_rows(named=True)}
    assert got == {
        ("mascolo-a", "A"): (True, None),
        ("mascolo-a", "C"): (False, True),
        ("mascolo-a", "D"): (False, True),
        ("mascolo-b", "C"): (False, None),
        ("mascolo-b", "D"): (False, None),
    }


def test_every_miss_is_tallied_by_what_explains_it() -> None:
    # Six cells by hand: two agree; of the four misses one is within ns-2's
    # tie spread (even if the seeds would also explain it: ties are tested
    # first), one within the seeds' interval, one a twin whose sum agrees,
    # and one nothing explains.
    d = pl.DataFrame(
        {
            "ok": [True, True, False, False, False, False],
            "ok_ties": [True, False, True, False, False, False],
            "seed_noise": [None, None, True, True, False, None],
            "twins_ok": [None, None, None, None, True, None],
        }
    )
    assert ns2_check.miss_tally(d) == {"misses": 4, "ties": 1, "seeds": 1, "twins": 1, "none": 1}
    # Without the seed and twin columns (too few seeds), only ties explain.
    assert ns2_check.miss_tally(d.select("ok", "ok_ties")) == {
        "misses": 4,
        "ties": 1,
        "seeds": 0,
        "twins": 0,
        "none": 3,
    }
