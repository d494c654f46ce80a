"""``tcplab reproduce braud2016 --quick`` end to end: every part runs, the report
holds every figure the paper file asks for, and the numbers obey what the study
and the physics say (checked against the paper's claims and conservation, not
against earlier output)."""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl
import pytest

from tcplab import reproduce, sweep
from tcplab.cli import main
from tcplab.studies import braud2016


@pytest.fixture(scope="module")
def quick(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("braud2016")
    reproduce.reproduce("braud2016", out, quick=True, jobs=2)
    # The 80 % load runs only when named; the report then covers both loads.
    reproduce.reproduce("braud2016", out, quick=True, jobs=2, only=["exp2-80"])
    return out


@pytest.mark.parametrize("quick", [False, True])
def test_the_80_percent_load_runs_only_when_named(
    quick: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    study = reproduce.get("braud2016")
    names = [p.name for p in reproduce._select_parts(study, quick, (), False)]
    assert names == ["exp1", "exp2", "pendulum"]
    named = reproduce._select_parts(study, quick, ["exp2-80"], False)
    assert [p.name for p in named] == ["exp2-80"]
    # --list-parts says which part waits to be named.
    with pytest.raises(SystemExit) as e:
        main(["reproduce", "braud2016", "--list-parts"] + (["--quick"] if quick else []))
    assert e.value.code == 0
    assert capsys.readouterr().out.splitlines() == [
        "exp1",
        "exp2",
        "exp2-80  (runs only when named with --part)",
        "pendulum",
    ]
    # Each half of the file's sweep: 16 pairs x 2 buffers, at its own load.
    for part, load in ((study.parts[1], "50 %"), (named[0], "80 %")):
        sw = reproduce._part_sweep(study, part, quick)
        assert len(sw.points) == 32
        assert {p[braud2016.LOAD]["label"] for p in sw.points} == {load}


def test_sim_only_asks_only_for_the_real_stack_parts_that_would_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # A study whose real-stack part "extra" is optional: --sim-only needs its
    # stored runs only when it is named; --list-parts marks a group whose
    # parts are not all optional by the parts that are.
    from dataclasses import replace

    from tcplab.studies import Part, Study
    from tcplab.sweep import SweepError

    base = reproduce.get("braud2016")
    study = Study(
        name="toy",
        title="toy",
        paper=base.paper,
        parts=(
            Part("main/sim", "exp1.toml"),
            Part("main/linux", "exp1.toml", backend="linux"),
            Part("extra/linux", "exp1.toml", backend="linux", optional=("full", "quick")),
            Part("mixed/a", "exp1.toml"),
            Part("mixed/b", "exp1.toml", optional=("full", "quick")),
        ),
        report=base.report,
    )
    with pytest.raises(SweepError, match=r"main/linux holds none"):
        reproduce._check_stored(study, tmp_path, False, ())
    reproduce._check_stored(study, tmp_path, False, ("mixed",))  # main, mixed: no linux runs
    with pytest.raises(SweepError, match=r"extra/linux holds none"):
        reproduce._check_stored(replace(study, parts=study.parts[2:]), tmp_path, False, ("extra",))
    reproduce._check_stored(replace(study, parts=study.parts[2:]), tmp_path, False, ())
    monkeypatch.setitem(reproduce.STUDIES, "toy", study)
    with pytest.raises(SystemExit):
        main(["reproduce", "toy", "--list-parts"])
    assert capsys.readouterr().out.splitlines() == [
        "main",
        "extra  (runs only when named with --part)",
        "mixed  (mixed/b only when named with --part)",
    ]


def test_the_report_has_every_figure_the_paper_file_lists(quick: Path) -> None:
    html = (quick / "report.html").read_text(encoding="utf-8")
    # Two utilisation grids, response times per download variant for 2 buffers x
    # 2 loads, the pendulum.
    assert html.count("<figure") == 2 + 2 * 2 * 4 + 1
    for words in ("uplink buffer 40", "uplink buffer 250", "pendulum", "Mean RTT"):
        assert words in html
    assert not re.search(r"""(src|href)=["']https?://""", html), "self-contained"


def test_a_report_without_experiment_one_says_so(quick: Path, tmp_path: Path) -> None:
    # --part exp2 into a fresh directory: the report is written from what ran;
    # experiment 1's figures and claims are absent (not checkable), and only
    # the 50 % load's figures are the paper's.
    import shutil

    for part in ("exp2", "exp2-80"):
        shutil.copytree(quick / part, tmp_path / part)
    shutil.copy(quick / "study.json", tmp_path / "study.json")
    html = reproduce.get("braud2016").report(tmp_path, True).read_text(encoding="utf-8")
    assert "Experiment 1 did not run" in html
    assert html.count("<figure") == 2 * 2 * 4  # no utilisation grid, no pendulum
    # Captions are numbered by the report: "Figure 5. The paper's Figure 3: ...".
    captions = re.findall(r"<figcaption>Figure \d+\. ([^<]*)</figcaption>", html)
    assert len(captions) == 16
    assert sum(c.startswith("The paper&#39;s Figure 3: response") for c in captions) == 4
    assert sum(c.startswith("The paper&#39;s Figure 4: response") for c in captions) == 4
    assert all("load 80 %" in c for c in captions if c.startswith("Not in the paper: response"))
    assert sum(c.startswith("Not in the paper: response") for c in captions) == 8
    table = pl.read_csv(tmp_path / "paper_results.csv")
    verdicts = dict(zip(table["result"], table["tcplab verdict"]))
    # B1-B10 judge experiment 1's tables, B11-B14 experiment 2's.
    assert [verdicts[f"B{i}"] for i in range(1, 11)] == ["not checkable"] * 10
    assert all(verdicts[f"B{i}"] != "not checkable" for i in range(11, 15))


def test_utilisation_is_a_fraction_and_the_grid_is_complete(quick: Path) -> None:
    util = braud2016.braud_utilisation(quick / "exp1")
    assert util.height == 4 * 4 * 2 * 2  # pairs x buffers x directions
    assert util["n"].unique().to_list() == [2]
    assert util["utilisation_pct_mean"].max() <= 100.0 + 1e-9
    assert util["utilisation_pct_mean"].min() >= 0.0


def test_an_oversized_uplink_buffer_crushes_a_newreno_download(quick: Path) -> None:
    # The study's headline (and the earlier NewReno literature it cites): with a
    # 250-packet uplink buffer the upload's standing queue delays the download's
    # ACKs and the download loses much of its link, while the upload fills its own.
    util = braud2016.braud_utilisation(quick / "exp1")

    def cell(buf: int, direction: str) -> float:
        row = util.filter(
            (pl.col("uplink_buffer") == buf)
            & (pl.col("download_variant") == "newreno")
            & (pl.col("upload_variant") == "newreno")
            & (pl.col("direction") == direction)
        )
        return float(row["utilisation_pct_mean"][0])

    assert cell(250, "download") < cell(40, "download") - 20
    assert cell(250, "upload") > 90


def test_experiment_two_offers_the_loads_the_study_states(quick: Path) -> None:
    # Sizes are in full segments, and the Zipf support was chosen for 1448-byte
    # segments (timestamps on, FreeBSD). The sender opens the connection:
    # Windows 7 offers no timestamps (but answers a FreeBSD SYN's), so when the
    # Windows host sends segments carry 1460 B and the load is 1460/1448 of the
    # nominal one.
    gens = sweep.read_table(quick / "exp2", "generators")
    for row in gens.iter_rows(named=True):
        nominal = {"50 %": 0.50, "80 %": 0.80}[row["traffic[0].size"]]
        windows = row["host[server]"] == "compound"
        payload = 1460 if windows else 1448
        assert row["offered_load"] == pytest.approx(nominal * payload / 1448, abs=1e-3)
    tr = sweep.read_table(quick / "exp2", "transfers")
    # No download of >= 700 packets beats SYN (42 ms), SYN-ACK (52 ms) and the data
    # (42 ms) plus 700 packets of 1500 B serialised at 10 Mb/s: 0.136 + 0.84 s.
    assert tr["size_bytes"].min() >= 700 * 1448
    assert tr.filter(pl.col("completed"))["fct_s"].min() > 0.136 + 700 * 1500 * 8 / 10e6


def test_cli_lists_the_studies_and_rejects_unknown_ones(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        main(["reproduce", "--list"])
    assert e.value.code == 0
    assert "braud2016" in capsys.readouterr().out
    with pytest.raises(SystemExit) as e:
        main(["reproduce", "nosuch"])
    assert e.value.code == 2
    assert "no study 'nosuch'" in capsys.readouterr().err


def test_a_statistic_over_one_run_is_not_called_a_confidence_interval() -> None:
    from tcplab.reproduce import over_runs

    assert over_runs(1) == "one run (no interval)"
    assert over_runs(5) == "mean and 95 % CI over the 5 repetitions"
    assert over_runs(2, "runs") == "mean and 95 % CI over the 2 runs"
