"""Real-stack runs stored in the package (tcplab.stored) and restored by
``reproduce --sim-only``: what comes back is what was stored, and a stored
set made from another version of a scenario is refused by name."""

from __future__ import annotations

import json
from html import unescape
from pathlib import Path

import polars as pl
import pytest
from test_reproduce_linux_check import _self_runs, _timing_stand_in

from tcplab import stored
from tcplab.compare import _flow_metrics, comparison, window_srtt
from tcplab.studies import get
from tcplab.sweep import RUNS, done_runs


def _stand_in(src: Path) -> None:
    """Stand-in kernel runs of the quick bdp part and the timing part: the
    simulator's own (so that a comparison with the simulator is exact), the
    timing part's ACK lag 0."""
    _timing_stand_in(src, 0.0, 0.0, 0.0)
    _self_runs(src, "bdp", ("linux",), quick=True)


def test_a_stored_sweep_comes_back_table_for_table(tmp_path: Path) -> None:
    src = tmp_path / "src"
    _self_runs(src, "bdp", ("linux",), quick=True)
    d = src / "bdp" / "linux"
    data = stored.pack(d, {"kernel": "test"})
    f1 = stored.write(data, tmp_path / "a.json.gz")
    f2 = stored.write(stored.pack(d, {"kernel": "test"}), tmp_path / "b.json.gz")
    assert f1.read_bytes() == f2.read_bytes()  # the same runs, the same bytes
    back = tmp_path / "back" / "bdp" / "linux"
    assert stored.restore(stored.read(f1), back) == 3  # the quick bdp part: 3 runs
    assert done_runs(back) == done_runs(d)
    assert stored.origin(back) == {"kernel": "test"}
    assert stored.origin(d) is None
    for rid in done_runs(d):
        a, b = d / RUNS / rid, back / RUNS / rid
        # Every table, its types, its NaNs and nulls; the summary as written.
        tables = sorted(p.name for p in a.glob("*.parquet") if not p.name.startswith("trace_"))
        assert tables == sorted(p.name for p in b.glob("*.parquet"))
        assert "flows.parquet" in tables
        assert "links.parquet" in tables
        for t in tables:
            x, y = pl.read_parquet(a / t), pl.read_parquet(b / t)
            assert x.schema == y.schema, t
            assert x.equals(y, null_equal=True), t
        sa = json.loads((a / "summary.json").read_text())
        sb = json.loads((b / "summary.json").read_text())
        srtt = [f.pop("srtt_window_mean_s") for f in sb["flows"]]
        assert sa == sb
        # The comparison's RTT is the trace's window average, which the
        # stored run keeps (the traces stay behind).
        assert not list(b.glob("trace_*"))
        expect = window_srtt(a, sa)
        assert expect
        assert srtt == [expect.get(i) for i in range(len(srtt))]
        assert _flow_metrics(a) == _flow_metrics(b)
    # Stored again from the restored runs (a part finished later with
    # --resume is stored whole): the same file.
    assert stored.write(
        stored.pack(back, {"kernel": "test"}), tmp_path / "c.json.gz"
    ).read_bytes() == (f1.read_bytes())


def test_sim_only_restores_the_package_s_runs_where_out_holds_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tcplab.reproduce import reproduce

    src, pkg = tmp_path / "src", tmp_path / "pkg"
    _stand_in(src)
    origin = {"kernel": "6.18.44-test", "hz": 250, "cores": 2, "runs": 3}
    origin |= {"first_day": "2026-12-06", "last_day": "2026-12-07"}
    for group in ("timing", "bdp"):
        stored.write(stored.pack(src / group / "linux", origin), pkg / f"{group}.json.gz")
    monkeypatch.setattr(
        "tcplab.reproduce.stored_file", lambda study, group: pkg / f"{group}.json.gz"
    )
    out = tmp_path / "lc"
    report = reproduce("linux-check", out, quick=True, only=["bdp"], sim_only=True)
    facts = json.loads((out / "study.json").read_text())
    assert facts["stored_runs"] == ["timing/linux", "bdp/linux"]
    assert stored.origin(out / "bdp" / "linux") == origin
    # The simulator against its own runs, through the package: exact.
    df = comparison(out / "bdp")
    assert df.height == 3
    assert df["goodput_error"].to_list() == [0.0, 0.0, 0.0]
    assert df["rtt_from"].to_list() == ["srtt trace"] * 3
    assert df["rtt_error"].to_list() == [0.0, 0.0, 0.0]
    html = unescape(report.read_text())
    assert "Over 3 flow cells: goodput within 5% in 3 (100%" in html
    assert (
        "the kernel runs stored in the package (3 runs on Linux 6.18.44-test, HZ 250, "
        "2 cores, 2026-12-06 to 2026-12-07" in html
    )
    # A second --sim-only keeps the restored runs (nothing restored again).
    reproduce("linux-check", out, quick=True, only=["bdp"], sim_only=True)
    assert "stored_runs" not in json.loads((out / "study.json").read_text())


def test_stored_runs_of_another_version_of_the_file_are_refused_by_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tcplab.reproduce import reproduce
    from tcplab.sweep import SweepError

    src, pkg = tmp_path / "src", tmp_path / "pkg"
    _stand_in(src)
    for group in ("timing", "bdp"):
        data = stored.pack(src / group / "linux", {})
        if group == "bdp":
            data["manifest"]["scenario_sha256"] = "0" * 64  # an edited bdp.toml
        stored.write(data, pkg / f"{group}.json.gz")
    monkeypatch.setattr(
        "tcplab.reproduce.stored_file", lambda study, group: pkg / f"{group}.json.gz"
    )
    with pytest.raises(SweepError, match=r"bdp/linux holds none \(the package's stored runs"):
        reproduce("linux-check", tmp_path / "lc", quick=True, only=["bdp"], sim_only=True)
    # A part the package has no runs of: the error names those it has.
    with pytest.raises(
        SweepError,
        match=r"fast/linux holds none \(the package stores none of fast; it stores those of "
        r"bdp: name them with --part\)",
    ):
        reproduce("linux-check", tmp_path / "lc2", quick=True, only=["fast"], sim_only=True)


def test_a_damaged_stored_file_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "x.json.gz"
    bad.write_bytes(b"not gzip")
    with pytest.raises(stored.StoredRunsError, match=r"x.json.gz: not a stored-runs file"):
        stored.read(bad)
    stored.write({"format": 99}, bad)
    with pytest.raises(stored.StoredRunsError, match=r"stored-runs format 99, this tcplab reads 1"):
        stored.read(bad)


def test_the_package_s_stored_kernel_runs_are_of_the_study_s_current_files() -> None:
    """Each stored part was made from the scenario the full study runs now
    (an edited file needs its kernel runs made again), and says where."""
    from tcplab.reproduce import _group, _part_sweep, stored_file

    study = get("linux-check")
    found = 0
    for part in study.parts:
        if part.backend != "linux" or "full" not in part.modes:
            continue
        f = stored_file(study.name, _group(part))
        if not f.is_file():
            continue
        found += 1
        data = stored.read(f)
        assert data["manifest"]["scenario_sha256"] == _part_sweep(study, part, False).scenario_hash
        assert {"kernel", "hz", "cores", "runs", "first_day", "last_day"} <= set(data["origin"])
        assert data["origin"]["runs"] == len(data["runs"])
        for run in data["runs"]:
            assert run["meta"]["backend"] == "linux"
    if found == 0:
        pytest.skip("no stored kernel runs in the package")
