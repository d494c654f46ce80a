"""``Results``: tables built from the core's columns, and atomic writes."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tcplab import Results

from conftest import fake_raw

EXPECTED_FILES = {
    "flows.parquet",
    "links.parquet",
    "phases.parquet",
    "link_phases.parquet",
    "generators.parquet",
    "transfers.parquet",
    "episodes.parquet",
    "trace_cwnd.parquet",
    "trace_rtt.parquet",
    "trace_queue.parquet",
    "summary.json",
}


def test_tables_have_one_row_per_flow_and_link(raw: dict[str, Any]) -> None:
    res = Results(raw)
    assert res.flows.height == 2
    assert res.flows["name"].to_list() == ["alpha", "beta"]
    assert res.links.height == 2
    assert res.meta["name"] == "fake"


def test_flow_traces_get_the_flow_name(raw: dict[str, Any]) -> None:
    res = Results(raw)
    cwnd = res.traces["cwnd"]
    assert cwnd.columns[:3] == ["time_s", "flow", "flow_name"]
    names = ["alpha", "beta"]
    assert cwnd["flow_name"].to_list() == [names[i] for i in cwnd["flow"].to_list()]
    assert set(res.traces["rtt"]["flow_name"].to_list()) == {"alpha"}


def test_queue_trace_gets_the_link_name(raw: dict[str, Any]) -> None:
    queue = Results(raw).traces["queue"]
    names = ["r1->r2", "r2->r1"]
    assert queue["link_name"].to_list() == [names[i] for i in queue["link"].to_list()]


def test_trace_columns_keep_their_types(raw: dict[str, Any]) -> None:
    cwnd = Results(raw).traces["cwnd"]
    assert cwnd["cwnd"].dtype == pl.UInt32
    assert cwnd["inflight_bytes"].dtype == pl.UInt64
    assert cwnd["ssthresh"].max() == 2**32 - 1


def test_summary_turns_nan_into_none(raw: dict[str, Any]) -> None:
    summary = Results(raw).summary()
    # The transfers table can be long: Parquet only, not the JSON summary.
    assert set(summary) == {"meta", "flows", "links", "phases", "link_phases", "generators"}
    assert summary["flows"][1]["goodput_bps"] is None
    assert summary["flows"][0]["goodput_bps"] == 4.5e6
    json.dumps(summary, allow_nan=False)


@given(st.lists(st.floats(allow_nan=True, allow_infinity=True), min_size=1, max_size=5))
def test_summary_is_always_strict_json(values: list[float]) -> None:
    raw = fake_raw()
    raw["flows"] = {"name": [f"f{i}" for i in range(len(values))], "goodput_bps": values}
    summary = Results(raw).summary()
    text = json.dumps(summary, allow_nan=False)
    for value, record in zip(values, json.loads(text)["flows"]):
        assert record["goodput_bps"] == (value if math.isfinite(value) else None)


def test_write_produces_every_file(raw: dict[str, Any], tmp_path: Path) -> None:
    out = Results(raw).write(tmp_path / "a" / "b")
    assert out == tmp_path / "a" / "b"
    assert {p.name for p in out.iterdir()} == EXPECTED_FILES
    flows = pl.read_parquet(out / "flows.parquet")
    assert flows["name"].to_list() == ["alpha", "beta"]
    assert math.isnan(flows["goodput_bps"][1])
    cwnd = pl.read_parquet(out / "trace_cwnd.parquet")
    assert cwnd.equals(Results(raw).traces["cwnd"])
    transfers = pl.read_parquet(out / "transfers.parquet")
    assert transfers["size_bytes"].to_list() == [1448, 8688, 275120]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["meta"]["seed"] == 7
    assert summary["flows"][1]["rtt_mean_s"] is None


def test_tables_a_run_does_not_have_are_not_written(raw: dict[str, Any], tmp_path: Path) -> None:
    Results(raw).write(tmp_path)
    raw = fake_raw()
    for table in ("generators", "transfers"):
        raw[table] = {k: [] for k in raw[table]}
    Results(raw).write(tmp_path)
    names = {p.name for p in tmp_path.iterdir()}
    assert "transfers.parquet" not in names
    assert "generators.parquet" not in names
    assert "phases.parquet" in names


def test_a_new_directory_appears_whole_by_one_rename(
    raw: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    renames: list[tuple[Path, Path, set[str]]] = []
    real_rename = os.rename

    def spy(src: Any, dst: Any) -> None:
        # What the directory holds at the moment it is renamed into place.
        renames.append((Path(src), Path(dst), {p.name for p in Path(src).iterdir()}))
        real_rename(src, dst)

    monkeypatch.setattr(os, "rename", spy)
    out = Results(raw).write(tmp_path / "a" / "b")
    assert len(renames) == 1
    src, dst, held = renames[0]
    assert dst == out
    assert src.parent == out.parent, "a temporary directory beside the target"
    assert src.name.startswith(".tcplab-tmp-b-")
    assert held == EXPECTED_FILES
    assert {p.name for p in out.parent.iterdir()} == {"b"}, "no temporary left"


def test_an_existing_directory_gets_the_new_files_summary_last_and_keeps_others(
    raw: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    Results(raw).write(tmp_path)
    (tmp_path / "notes.txt").write_text("mine")
    (tmp_path / "sub").mkdir()
    renames: list[tuple[Path, Path, bool]] = []
    real_replace = os.replace

    def spy(src: Any, dst: Any) -> None:
        renames.append((Path(src), Path(dst), (tmp_path / "summary.json").exists()))
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", spy)
    changed = fake_raw()
    changed["flows"]["name"] = ["gamma", "delta"]
    Results(changed).write(tmp_path)
    assert {dst.name for _, dst, _ in renames} == EXPECTED_FILES
    assert renames[-1][1].name == "summary.json", "summary.json is put in place last"
    # While the new files go in, the directory holds no summary: no run.
    assert not any(had_summary for _, _, had_summary in renames)
    tmp = {src.parent for src, _, _ in renames}
    assert len(tmp) == 1
    assert next(iter(tmp)).parent == tmp_path
    assert {dst.parent for _, dst, _ in renames} == {tmp_path}
    assert {p.name for p in tmp_path.iterdir()} == EXPECTED_FILES | {"notes.txt", "sub"}
    assert pl.read_parquet(tmp_path / "flows.parquet")["name"].to_list() == ["gamma", "delta"]


def test_failed_write_leaves_old_files_and_no_temporary(
    raw: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    Results(raw).write(tmp_path)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}

    # Tables are written by the core (their bytes) or by polars: the third
    # table written either way fails half-way.
    real_write = pl.DataFrame.write_parquet
    real_bytes = Path.write_bytes
    calls = 0

    def third_fails(file: Any) -> bool:
        nonlocal calls
        if not str(file).endswith(".parquet"):
            return False
        calls += 1
        if calls == 3:
            real_bytes(Path(file), b"half a parquet file")
            return True
        return False

    def fail_on_third(self: pl.DataFrame, file: Any, *args: Any, **kwargs: Any) -> None:
        if third_fails(file):
            raise OSError("disk full")
        real_write(self, file, *args, **kwargs)

    def fail_bytes_on_third(self: Path, data: bytes) -> int:
        if third_fails(self):
            raise OSError("disk full")
        return real_bytes(self, data)

    monkeypatch.setattr(pl.DataFrame, "write_parquet", fail_on_third)
    monkeypatch.setattr(Path, "write_bytes", fail_bytes_on_third)
    changed = fake_raw()
    changed["flows"]["name"] = ["gamma", "delta"]
    with pytest.raises(OSError, match="disk full"):
        Results(changed).write(tmp_path)
    # Nothing of the new run reached the directory: every file is the old one.
    after = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    assert after == before
    # A new directory: nothing at all.
    calls = 0
    with pytest.raises(OSError, match="disk full"):
        Results(changed).write(tmp_path / "new")
    assert {p.name for p in tmp_path.iterdir()} == set(before)


def test_write_removes_trace_files_of_an_earlier_run(raw: dict[str, Any], tmp_path: Path) -> None:
    Results(raw).write(tmp_path)
    del raw["traces"]["rtt"]
    Results(raw).write(tmp_path)
    assert {p.name for p in tmp_path.iterdir()} == EXPECTED_FILES - {"trace_rtt.parquet"}


def test_results_without_flows_or_traces_still_write(tmp_path: Path) -> None:
    raw = fake_raw()
    raw["flows"] = {"name": []}
    raw["links"] = {}
    raw["traces"] = {}
    for table in ("phases", "link_phases", "generators", "transfers", "episodes"):
        raw[table] = {}
    res = Results(raw)
    assert res.flows.height == 0
    assert res.traces == {}
    res.write(tmp_path)
    assert {p.name for p in tmp_path.iterdir()} == {
        "flows.parquet",
        "links.parquet",
        "summary.json",
    }


PHASED_SCENARIO = """
duration = "2s"
[measure]
phases = ["1s"]
[[host]]
name = "a"
[[host]]
name = "b"
[[link]]
between = ["a", "b"]
rate = "10Mbps"
delay = "5ms"
[[flow]]
name = "download"
from = "a"
to = "b"
[[flow]]
name = "upload"
from = "b"
to = "a"
"""


def test_phases_parquet_names_each_flow_as_the_flows_table_does(tmp_path: Path) -> None:
    """Regression: phases.parquet gave flows by index (0, 1) where the other
    tables give their names."""
    import tcplab

    tcplab.run(PHASED_SCENARIO).write(tmp_path)
    phases = pl.read_parquet(tmp_path / "phases.parquet")
    assert phases.select("flow", "flow_index", "phase").rows() == [
        ("download", 0, 0),
        ("download", 0, 1),
        ("upload", 1, 0),
        ("upload", 1, 1),
    ]
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert [p["flow"] for p in summary["phases"]] == ["download"] * 2 + ["upload"] * 2


def test_link_phases_parquet_has_every_link_and_phase_adding_up_to_the_window(
    tmp_path: Path,
) -> None:
    import tcplab

    res = tcplab.run(PHASED_SCENARIO)
    res.write(tmp_path)
    lp = pl.read_parquet(tmp_path / "link_phases.parquet")
    links = pl.read_parquet(tmp_path / "links.parquet")
    assert lp.select("link", "link_index", "phase").rows() == [
        (name, i, k) for i, name in enumerate(links["name"]) for k in (0, 1)
    ]
    # Counts add up to the window's; phases of 1 s each in a 2 s window.
    sums = lp.group_by("link", maintain_order=True).agg(
        pl.col("pkts_sent", "drops").sum(), (pl.col("utilisation").sum() / 2).alias("u")
    )
    assert sums["pkts_sent"].to_list() == links["pkts_sent"].to_list()
    assert sums["drops"].to_list() == links["drops"].to_list()
    assert sums["u"].to_list() == pytest.approx(links["utilisation"].to_list(), rel=1e-12)
    phases = res.phases
    assert phases["retrans_prob"].to_list() == pytest.approx(
        (phases["segs_retrans"] / phases["segs_sent"]).to_list()
    )
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert len(summary["link_phases"]) == lp.height


def test_write_keeps_the_scenario_text_and_removes_a_stale_one(
    raw: dict[str, Any], tmp_path: Path
) -> None:
    import tcplab

    res = tcplab.run(PHASED_SCENARIO)
    assert res.scenario == PHASED_SCENARIO
    res.write(tmp_path)
    assert (tmp_path / "scenario.toml").read_text(encoding="utf-8") == PHASED_SCENARIO
    # Results built without the text (from the core's dict alone) store none,
    # and leave no scenario of an earlier run beside their tables.
    Results(raw).write(tmp_path)
    assert not (tmp_path / "scenario.toml").exists()


#: One BBR flow alone on a 10 Mb/s link, 25 ms each way, a one-BDP buffer
#: (42 packets), its cwnd trace every 100 ms.
ONE_BBR_FLOW = """
name = "pacing"
duration = "30s"
[trace]
cwnd = true
interval = "100ms"
[[host]]
names = ["a", "b"]
profile = "linux"
cc = "bbr"
[[link]]
between = ["a", "b"]
rate = "10Mbps"
delay = "25ms"
queue = { packets = 42 }
[[flow]]
name = "bbr"
from = "a"
to = "b"
"""


def test_the_cwnd_trace_gives_the_pacing_rate_of_a_pacing_controller() -> None:
    # One BBR flow alone on a 10 Mb/s link with a one-BDP buffer: in steady
    # state BBR paces at its bandwidth estimate times a gain cycling around
    # 1 (5/4, 3/4, then 1: tcp_bbr.c), so over the last 20 s the median
    # pacing rate lies near the link rate.
    import tcplab

    text = ONE_BBR_FLOW
    tr = tcplab.run(text, seed=1).traces["cwnd"]
    assert tr["pacing_rate_bps"].dtype == pl.Float64
    late = tr.filter(pl.col("time_s") >= 10.0)["pacing_rate_bps"]
    assert 0.8e7 < late.median() < 1.3e7  # type: ignore[operator]
    # A Cubic flow does not pace, but Linux computes a rate for every
    # connection and TCP_INFO reports it (tcp_update_pacing_rate): in
    # congestion avoidance 1.2 x cwnd x MSS / SRTT, and with the pipe full
    # cwnd x MSS / SRTT is the sending rate, the link's payload rate
    # 10 Mb/s x 1448/1500: 1.2 x 9.65 = 11.58 Mb/s.
    cubic = tcplab.run(text.replace('"bbr"', '"cubic"'), seed=1).traces["cwnd"]
    late = cubic.filter(pl.col("time_s") >= 10.0)["pacing_rate_bps"]
    assert abs(late.median() / 11.58e6 - 1) < 0.05  # type: ignore[operator]
    # Other profiles report none.
    rfc = text.replace('"bbr"', '"cubic"').replace('profile = "linux"', 'profile = "rfc"')
    assert tcplab.run(rfc, seed=1).traces["cwnd"]["pacing_rate_bps"].is_nan().all()


def test_the_cwnd_trace_gives_bbr_s_model_and_the_congestion_state() -> None:
    # One BBR flow on a 10 Mb/s link with 25 ms each way and a one-BDP
    # buffer. Its min RTT is never below the 50 ms of propagation, and in
    # PROBE_RTT's empty queue it is the path's: 50 ms plus the serialization
    # of the GSO pair the sample's segment left in (2 x 1500 bytes at 10
    # Mb/s: 2.4 ms) and of an ACK (0.05 ms). Its bandwidth estimate, the max
    # of 10 rounds' delivery rates, is at most the link's payload rate 10
    # Mb/s x 1448/1500 = 9.65 Mb/s and, the link kept busy, close to it.
    import tcplab

    from conftest import BBR_CWND_GAINS, BBR_PACING_GAINS

    text = ONE_BBR_FLOW
    tr = tcplab.run(text, seed=1).traces["cwnd"]
    late = tr.filter(pl.col("time_s") >= 10.0)
    rtt = late["cc_min_rtt_s"]
    assert (rtt >= 0.050).all()
    assert 0.050 <= rtt.median() <= 0.0525  # type: ignore[operator]
    bw = late["cc_bw_bps"]
    assert (bw <= 10e6 * 1448 / 1500 * 1.001).all()
    assert bw.median() > 0.95 * 10e6 * 1448 / 1500  # type: ignore[operator]
    # STARTUP first, then only the gains tcp_bbr.c has.
    assert tr["cc_pacing_gain"][0] == pytest.approx(739 / 256)
    assert set(tr["cc_pacing_gain"].to_list()) <= BBR_PACING_GAINS
    assert set(tr["cc_cwnd_gain"].to_list()) <= BBR_CWND_GAINS
    assert {1.25, 0.75, 1.0} <= set(late["cc_pacing_gain"].to_list())
    # Linux's numbers for the state: open at the start, 0-4 throughout.
    assert tr["ca_state"].dtype == pl.UInt32
    assert tr["ca_state"][0] == 0
    assert set(tr["ca_state"].to_list()) <= {0, 1, 2, 3, 4}
    # A controller without a model: NaN.
    cubic = tcplab.run(text.replace('"bbr"', '"cubic"'), seed=1).traces["cwnd"]
    for col in ("cc_bw_bps", "cc_min_rtt_s", "cc_pacing_gain", "cc_cwnd_gain"):
        assert cubic[col].is_nan().all(), col


# ------------------------------------------------ tables written by the core

CORE_WRITTEN = """
name = "every table"
duration = "6s"
[measure]
phases = ["3s"]
[trace]
cwnd = true
rtt = true
queue = true
interval = "100ms"
[[host]]
name = "a"
bus_rate = "100Mbps"
[[host]]
name = "b"
[[link]]
between = ["a", "b"]
rate = "10Mbps"
delay = "10ms"
queue = { packets = 20 }
[[flow]]
name = "bulk"
from = "a"
to = "b"
[[flow]]
name = "late"
from = "b"
to = "a"
start = "5.9s"
[[traffic]]
name = "web"
from = "a"
to = "b"
rate = 5
size = { dist = "pareto", shape = 1.5, scale = 10000 }
"""


def test_tables_the_core_writes_read_back_as_polars_builds_them(tmp_path: Path) -> None:
    """Every table of a run (flows, links, the optional tables, the three
    traces with their name column) is written by the core without
    polars, and polars reads each file back as the DataFrame it builds from
    the same columns, and as polars itself writes it."""
    from tcplab import _core

    raw = _core.run(CORE_WRITTEN, "every.toml")
    fast = Results(raw)
    fast.write(tmp_path / "core")
    slow = Results(raw)
    frames = {
        "flows": slow.flows,
        "links": slow.links,
        **{
            n: slow._optional_frame(n)
            for n in ("phases", "link_phases", "generators", "transfers", "episodes", "hosts")
        },
        **{f"trace_{n}": df for n, df in slow.traces.items()},
    }
    slow.write(tmp_path / "polars")
    names = sorted(p.name for p in (tmp_path / "core").glob("*.parquet"))
    assert len(names) == 11, names
    for name in names:
        data = (tmp_path / "core" / name).read_bytes()
        assert data[-40:].find(b"tcplab") >= 0, f"{name} not written by the core"
        got = pl.read_parquet(tmp_path / "core" / name)
        assert got.equals(pl.read_parquet(tmp_path / "polars" / name)), name
        assert got.schema == frames[name.removesuffix(".parquet")].schema, name
        assert got.equals(frames[name.removesuffix(".parquet")]), name


@pytest.mark.parametrize(
    ("columns", "dtype"),
    [
        ({"a": [True, None, False]}, pl.Boolean),
        ({"a": [1, None, -(2**63)]}, pl.Int64),
        ({"a": [2**63, None, 1]}, pl.UInt64),
        ({"a": [0.5, None, float("nan")]}, pl.Float64),
        ({"a": ["x", None, ""]}, pl.String),
    ],
)
def test_the_core_writes_what_polars_infers(columns: dict[str, Any], dtype: Any) -> None:
    import io

    from tcplab import _core

    data = _core.parquet_table(columns)
    assert data is not None
    got = pl.read_parquet(io.BytesIO(data))
    assert got.schema["a"] == dtype
    assert got.equals(pl.DataFrame(columns))


def test_a_codes_and_names_column_is_the_file_of_its_strings() -> None:
    # Codes 1, 0, 1 into ["up", "down"]: the same bytes as the list of the
    # strings they pick, which polars reads back as that list.
    import io

    from tcplab import _core

    codes = np.array([1, 0, 1], dtype=np.uint32)
    t = np.array([0.5, 1.0, 1.5])
    a = _core.parquet_table({"t": t, "n": (codes, ["up", "down"])})
    b = _core.parquet_table({"t": t, "n": ["down", "up", "down"]})
    assert a is not None
    assert a == b
    assert pl.read_parquet(io.BytesIO(a))["n"].to_list() == ["down", "up", "down"]


@pytest.mark.parametrize(
    "columns",
    [
        {"a": []},  # polars: Null
        {"a": [None, None]},  # Null
        {"a": [1, 2.5]},  # mixed
        {"a": [1, "x"]},
        {"a": [[1], [2]]},  # nested
        {"a": [-1, 2**63]},  # neither Int64 nor UInt64
        {"a": [1, 2], "b": [1]},  # lengths differ
        {"a": np.ma.masked_array([1.0, 2.0], mask=[False, True])},  # polars: a null
        {"a": (np.array([0, 2], dtype=np.uint32), ["x", "y"])},  # a code out of range
        {"a": (np.array([0, 1], dtype=np.int64), ["x", "y"])},  # codes not uint32
    ],
)
def test_columns_the_core_leaves_to_polars(columns: dict[str, Any]) -> None:
    from tcplab import _core

    assert _core.parquet_table(columns) is None


def test_summary_leaves_a_table_longer_than_the_cap_to_parquet(
    raw: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # fake_raw has 2 flows and 2 links: with the cap at 1 both tables are
    # Parquet only and meta.parquet_only names them; the files hold them whole.
    from tcplab import _core

    res = Results(raw)
    assert (res.row_count("flows"), res.row_count("links")) == (2, 2)
    monkeypatch.setattr(_core, "SUMMARY_MAX_ROWS", 1)
    out = res.write(tmp_path)
    summary = json.loads((out / "summary.json").read_text())
    assert "flows" not in summary
    assert "links" not in summary
    assert {"flows", "links"} <= set(summary["meta"]["parquet_only"])
    assert pl.read_parquet(out / "flows.parquet")["name"].to_list() == ["alpha", "beta"]
    assert pl.read_parquet(out / "links.parquet").height == 2


def test_summary_holds_every_table_within_the_cap(raw: dict[str, Any], tmp_path: Path) -> None:
    summary = json.loads((Results(raw).write(tmp_path) / "summary.json").read_text())
    assert "parquet_only" not in summary["meta"]
    assert [r["name"] for r in summary["flows"]] == ["alpha", "beta"]
