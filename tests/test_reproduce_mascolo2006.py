"""``tcplab reproduce mascolo2006 --quick`` end to end: every part runs, the
report holds every figure and table the paper lists, and the numbers obey
conservation and the scenario's schedule (checked against hand-derived bounds,
not against earlier output); and a part run on a Dask scheduler and workers
started on their own gives the local processes' results."""

from __future__ import annotations

import json
import math
import re
from dataclasses import replace
from pathlib import Path

import polars as pl
import pytest

from tcplab import reproduce, sweep
from tcplab.studies import mascolo2006 as m

from conftest import free_port, one_machine_dask_cluster, run_cli, started

# 250 Mb/s carries at most 250e6 * 1460 / 1500 b/s of payload (1500-byte
# packets, 40-byte headers; with timestamps the payload is 12 bytes less).
PAYLOAD_BPS = 250e6 * 1460 / 1500


@pytest.fixture(scope="module")
def quick(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("mascolo2006")
    reproduce.reproduce("mascolo2006", out, quick=True, jobs=2)
    # The paper ran ns-2 only, and names CUBIC without results: the linux
    # profile's points and CUBIC's ns2 points run when named, and the report
    # then draws them too.
    assert not (out / "linux").exists()
    assert not (out / "cubic").exists()
    reproduce.reproduce("mascolo2006", out, quick=True, jobs=2, only=["linux", "cubic"])
    return out


@pytest.mark.parametrize("quick", [False, True])
def test_the_linux_profile_and_cubic_run_only_when_named(quick: bool) -> None:
    study = reproduce.get("mascolo2006")
    default = reproduce._select_parts(study, quick, (), False)
    linux = reproduce._select_parts(study, quick, ["linux"], False)
    cubic = reproduce._select_parts(study, quick, ["cubic"], False)
    names = ["A", "B", "C"]
    assert [p.name for p in default] == names
    assert [p.name for p in linux] == [f"linux/{n}" for n in names]
    assert [p.name for p in cubic] == [f"cubic/{n}" for n in names]
    variants: dict[str, set[str]] = {}
    for part in default + linux + cubic:
        sw = reproduce._part_sweep(study, part, quick)
        want = "linux" if part.name.startswith("linux/") else "ns2"
        assert {p[m.PROFILE] for p in sw.points} == {want}
        rtts = 1 if part.file == "c.toml" else 2
        # The paper's seven variants by default, CUBIC when named, all eight
        # on the linux profile (x 2 RTTs in A and B).
        n = {"": 7, "cubic": 1, "linux": 8}[part.name.rpartition("/")[0]]
        assert len(sw.points) == n * rtts
        variants[part.name] = {sweep.coord_label(p[m.VARIANT]) for p in sw.points}
    paper = set(m.VARIANTS) - {"CUBIC"}
    for n in names:
        assert variants[n] == paper
        assert variants[f"cubic/{n}"] == {"CUBIC"}
        assert variants[f"linux/{n}"] == set(m.VARIANTS)
    # Split or not, every ns2 run is the run it was when one part per file
    # held all eight variants: same id, same seed, same scenario text.
    for part in default:
        whole = reproduce._part_sweep(study, replace(part, select={m.PROFILE: ("ns2",)}), quick)
        split = [
            reproduce._part_sweep(study, p, quick)
            for p in (part, next(c for c in cubic if c.file == part.file))
        ]

        def tasks(sw: sweep.Sweep) -> dict[str, tuple[int, str]]:
            return {t.run_id: (t.seed, t.text) for t in sw.tasks()}

        paper, extra = tasks(split[0]), tasks(split[1])
        assert not paper.keys() & extra.keys()
        assert paper | extra == tasks(whole)


def test_the_report_has_every_figure_and_table_the_paper_lists(quick: Path) -> None:
    html = (quick / "report.html").read_text(encoding="utf-8")
    profiles, rtts, variants = 2, 2, 8
    # utilisation by A and B, goodput of A and of B, retransmissions
    per_ab = profiles * rtts + profiles * rtts * 2 + profiles * rtts
    assert "utilisation of the 250 Mb/s link by A and B" in html
    assert "logarithmic axis" in html
    cwnd_b = variants * profiles * rtts  # Figures 6-12 (and CUBIC)
    cwnd_c = variants * profiles  # Figure 13
    fairness = 3 * profiles  # Figures 14-16
    assert html.count("<figure") == 2 * per_ab + cwnd_b + cwnd_c + fairness
    for n in range(2, 17):
        assert f"Figure {n}" in html or (6 <= n <= 12 and "Figures 6-12" in html), n
    assert "Table I:" in html
    assert "Table II:" in html
    assert "Mascolo" in html
    assert "PFLDnet 2006" in html
    assert not re.search(r"""(src|href)=["']https?://""", html), "self-contained"


@pytest.mark.parametrize("part", ["A", "B", "C"])
def test_forward_goodput_never_exceeds_the_bottleneck(quick: Path, part: str) -> None:
    ph = sweep.read_table(quick / part, "phases")
    fwd = ph.filter(pl.col("flow").is_in(["A", "B", "E", "F"]))
    total = fwd.group_by(["run", "phase"]).agg(
        pl.col("goodput_bps").sum(), (pl.col("end_s") - pl.col("start_s")).first().alias("len")
    )
    # One packet of slack for a delivery straddling a phase boundary.
    bound = PAYLOAD_BPS + 1500 * 8 / total["len"]
    assert (total["goodput_bps"] <= bound).all()
    assert (fwd["segs_retrans"] <= fwd["segs_sent"]).all()


def test_every_point_ran_and_retransmission_probability_is_a_probability(quick: Path) -> None:
    a = m.study_phases(quick, "A")
    assert set(a["variant"]) == set(m.VARIANTS)
    assert set(a["profile"]) == set(m.PROFILES)
    assert set(a["rtt"]) == set(m.RTTS)
    p = a["retrans_prob"].drop_nans()
    assert p.min() >= 0.0
    assert p.max() <= 1.0


def test_scenario_c_follows_its_schedule(quick: Path) -> None:
    c = m.study_phases(quick, "C")
    # E and F start within 250-260 s (scaled): nothing of theirs arrives in phase 0.
    early = c.filter(pl.col("flow").is_in(["E", "F"]) & (pl.col("phase") == 0))
    assert early.height > 0
    assert (early["goodput_bps"] == 0).all()
    # C and D send only in the reverse phase (333-666 s scaled, phase 2).
    rev = c.filter(pl.col("flow").is_in(["C", "D"]))
    assert (rev.filter(pl.col("phase").is_in([0, 1]))["goodput_bps"] == 0).all()
    assert (rev.filter(pl.col("phase") == 2)["goodput_bps"] > 0).all()
    fair = m.fairness(c)
    assert fair.height == len(m.VARIANTS) * len(m.PROFILES)
    assert all(math.isfinite(v) for v in fair["A/E last 250 s_mean"])


def test_timeouts_table_is_shaped_like_tables_one_and_two(quick: Path) -> None:
    a = m.study_phases(quick, "A")
    names = m.phase_names(a, m.AB_REVERSE)
    assert names == ["0-49.95 s", "49.95-99.9 s (reverse on)", "99.9-150 s"]
    t = m.timeouts_table(a, names)
    assert t.height == len(m.VARIANTS) * len(m.PROFILES)
    assert t.width == 2 + len(m.RTTS) * len(names)


def test_the_first_repetition_of_b_and_c_is_traced(quick: Path) -> None:
    # The cwnd figures' runs: repetition 0 of every point of B and C (the
    # quick version's only one), on each profile that ran; A is not traced.
    for part in ("B", "C", "linux/B", "linux/C"):
        cwnd = sweep.read_table(quick / part, "cwnd")
        points = sweep.read_table(quick / part, "flows")["point"].n_unique()
        assert cwnd.height > 0, part
        assert cwnd["point"].n_unique() == points, part
        assert set(cwnd["rep"]) == {0}
    assert sweep.read_table(quick / "A", "cwnd").height == 0


def test_flows_stop_where_the_scenario_stops_them(tmp_path: Path) -> None:
    # The cwnd figures end each flow's trace at its stop: read from the
    # scenario the sweep ran (C and D stop at 666 s, B at 750 s; A never).
    text = """
duration = "1000s"
[[flow]]
name = "A"
from = "a"
to = "b"
[[flow]]
name = "B"
from = "a"
to = "b"
stop = "750s"
[[flow]]
name = "C"
from = "b"
to = "a"
start = "333s"
stop = "666000ms"
"""
    (tmp_path / "sweep.json").write_text(json.dumps({"scenario_text": text}))
    assert m.flow_stops(tmp_path) == {"B": 750.0, "C": 666.0}


def _results(out: Path) -> dict[str, pl.DataFrame | str]:
    """What the runs of a reproduction in ``out`` computed, by file: every
    Parquet table (each part's and each run's), each run's summary.json, the
    paper's table. Without ``wall_s`` (in summary.json's ``meta``): how long
    a run took on its machine. No table has a wall-clock column; run.json and
    sweep.json (provenance: the git revision) are left out."""
    found: dict[str, pl.DataFrame | str] = {}
    for f in sorted(out.rglob("*")):
        name = f.relative_to(out).as_posix()
        if f.suffix == ".parquet":
            table = pl.read_parquet(f)
            assert not [c for c in table.columns if "wall" in c], name
            found[name] = table
        elif f.name == "summary.json":
            summary = json.loads(f.read_text(encoding="utf-8"))
            del summary["meta"]["wall_s"]
            found[name] = json.dumps(summary, sort_keys=True)  # NaN == NaN as text
        elif f.name == "paper_results.csv":
            found[name] = f.read_text(encoding="utf-8")
    return found


@pytest.mark.skipif(not Path("/proc/net/tcp").exists(), reason="needs Linux /proc")
def test_a_part_on_a_separately_started_dask_cluster_gives_the_local_pool_results(
    tmp_path: Path,
) -> None:
    # docs/sweeps.md's `dask scheduler` and `dask worker` (two worker
    # processes of one thread), each started on its own, not a LocalCluster.
    # Part C of the quick version: one run per variant on the ns2 profile,
    # 150 s each, cwnd traced: the cheapest part (A and B have two RTTs).
    distributed = pytest.importorskip("distributed")
    scheduler_port, dashboard_port = free_port(), free_port()
    lines = one_machine_dask_cluster(scheduler_port, dashboard_port)
    assert [ln.split()[:2] for ln in lines[:2]] == [["dask", "scheduler"], ["dask", "worker"]]
    address = f"tcp://127.0.0.1:{scheduler_port}"
    study = reproduce.get("mascolo2006")
    (part,) = reproduce._select_parts(study, True, ["C"], False)
    runs = len(reproduce._part_sweep(study, part, True).tasks())
    assert runs >= 7
    args = ("reproduce", "mascolo2006", "--quick", "--part", "C")
    # About 10 s each on two idle cores; a loaded machine takes several times that.
    with started(lines[:2], scheduler_port, tmp_path / "dask"):
        remote = run_cli(
            *args, "--scheduler", address, "--out", str(tmp_path / "remote"), timeout=600
        )
        assert remote.returncode == 0, remote.stderr
        with distributed.Client(address) as client:
            executed = client.run(lambda dask_worker: dask_worker.state.executed_count)
    assert sum(executed.values()) == runs, executed  # every run, on the cluster's workers
    local = run_cli(*args, "--jobs", "2", "--out", str(tmp_path / "local"), timeout=600)
    assert local.returncode == 0, local.stderr
    want, got = _results(tmp_path / "local"), _results(tmp_path / "remote")
    assert sorted(got) == sorted(want)
    flows = want["C/flows.parquet"]
    assert isinstance(flows, pl.DataFrame)
    assert flows["run"].n_unique() == runs
    assert sum(name.endswith("summary.json") for name in want) == runs
    for name, value in want.items():
        if isinstance(value, pl.DataFrame):
            other = got[name]
            assert isinstance(other, pl.DataFrame)
            assert value.equals(other), name
        else:
            assert value == got[name], name


def test_cubic_runs_are_read_once_in_an_output_made_before_cubic_had_its_own_part(
    tmp_path: Path,
) -> None:
    def part(d: Path, overrides: dict[str, list[str]]) -> None:
        d.mkdir(parents=True)
        (d / "sweep.json").write_text(json.dumps({"overrides": overrides}))

    profile = {f"select:{m.PROFILE}": ["ns2"]}
    # Before: A held all eight variants, CUBIC's runs among them.
    old = tmp_path / "old"
    part(old / "A", profile)
    part(old / "cubic" / "A", {**profile, f"select:{m.VARIANT}": ["CUBIC"]})
    assert m.part_dirs(old, "A") == [old / "A"]
    # Now: A holds the paper's seven, cubic/A CUBIC's.
    new = tmp_path / "new"
    part(new / "A", {**profile, f"select:{m.VARIANT}": list(m.VARIANTS[:-1])})
    part(new / "cubic" / "A", {**profile, f"select:{m.VARIANT}": ["CUBIC"]})
    part(new / "linux" / "A", {f"select:{m.PROFILE}": ["linux"]})
    assert m.part_dirs(new, "A") == [new / "A", new / "cubic" / "A", new / "linux" / "A"]
