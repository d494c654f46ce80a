"""``tcplab reproduce linux-check``: its files are what their generator writes,
its agreement bounds are issue 14's, and its report, fed the simulator on
both sides (no root, no real time), finds every cell in agreement with zero
error, as a comparison of a thing with itself must."""

from __future__ import annotations

import math
from pathlib import Path

import polars as pl
import pytest

from tcplab import sweep
from tcplab.studies import get, linux_check, scenario_text

from conftest import assert_study_files_are_generated


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
    assert backends == {
        "cells/linux": "linux",
        "cells/sim": "sim",
        "bdp/linux": "linux",
        "bdp/sim": "sim",
    }


def test_agreement_applies_the_bounds_of_issue_14() -> None:
    df = pl.DataFrame(
        {
            "goodput_error": [0.049, -0.051, 0.0],
            "rtt_error": [0.099, 0.0, -0.101],
            "timeouts_diff": [1.0, -1.0, 1.5],
            "seeds": [3, 3, 3],
            "goodput_sim_bps": [1.0, 2.0, 3.0],
            "goodput_linux_min_bps": [0.5, 2.1, 3.0],
            "goodput_linux_max_bps": [1.5, 2.5, 3.0],
        }
    )
    a = linux_check.agreement(df)
    assert a["in_kernel_range"].to_list() == [True, False, True]
    assert a["goodput_ok"].to_list() == [True, False, True]
    assert a["rtt_ok"].to_list() == [True, True, False]
    assert a["timeouts_ok"].to_list() == [True, True, False]


@pytest.mark.parametrize("part", ["cells", "bdp"])
def test_the_report_of_the_simulator_against_itself_agrees_everywhere(
    tmp_path: Path, part: str
) -> None:
    short = {"duration": "4s", "measure.start": "1s", "measure.end": "4s"}
    text, path = scenario_text("linux-check", f"{part}.toml")
    for side in ("sim", "linux"):
        sw = sweep.load_sweep(text, path)
        sw.override(short, 1)
        sweep.run_sweep(sw, tmp_path / part / side, jobs=2)
    linux_check._report(tmp_path, True)
    html = (tmp_path / "report.html").read_text()
    n = 20 if part == "cells" else 3
    assert f"Over {n} flow cells: goodput within 5% in {n} of {n}" in html
    assert "Cells outside a bound" not in html
    from tcplab.compare import comparison

    df = comparison(tmp_path / part)
    assert df.height == n
    assert all(e == 0.0 or math.isnan(e) for e in df["goodput_error"].to_list())
    # One seed: the kernel's range is its one value, no spread: no verdict.
    assert df["goodput_linux_min_bps"].to_list() == df["goodput_linux_max_bps"].to_list()
    assert linux_check.agreement(df)["in_kernel_range"].null_count() == n
