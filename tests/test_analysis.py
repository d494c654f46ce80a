"""Summaries over result tables, against hand-computed values."""

from __future__ import annotations

import math
from pathlib import Path

import polars as pl
import pytest

import tcplab
from tcplab.analysis import jain, mean_ci, response_times_by_size, starved, t95


def test_jain_index_by_hand() -> None:
    assert jain([5.0, 5.0, 5.0, 5.0]) == 1.0
    # One flow takes everything: 1/n.
    assert jain([10.0, 0.0, 0.0, 0.0]) == 0.25
    # (1 + 3)^2 / (2 (1 + 9)) = 16 / 20.
    assert jain([1.0, 3.0]) == pytest.approx(0.8)
    assert math.isnan(jain([]))


def test_starved_is_the_smallest_share_below_30_percent_of_an_equal_one() -> None:
    # 1 + 5 + 6 + 7 = 19: an equal share 4.75, 30 % of it 1.425 > 1.0.
    assert starved([1.0, 5.0, 6.0, 7.0])
    # 1.5 + 4.5 + 6 + 7 = 19: 1.5 >= 1.425.
    assert not starved([1.5, 4.5, 6.0, 7.0])
    # Two flows, 1 and 9: an equal share 5, half of it 2.5 > 1.
    assert starved([1.0, 9.0], fraction=0.5)
    assert not starved([3.0, 7.0], fraction=0.5)
    assert not starved([5.0])
    assert not starved([0.0, 0.0])


def test_mean_ci_by_hand() -> None:
    # 1, 2, 3, 4, 5: mean 3, s = sqrt(2.5), half-width t(4) s / sqrt 5 = 2.776 * 0.7071.
    m, h = mean_ci([1, 2, 3, 4, 5])
    assert m == 3.0
    assert h == pytest.approx(2.776 * math.sqrt(2.5 / 5))
    assert math.isnan(mean_ci([7.0])[1])
    assert t95(1) == 12.706
    assert t95(1000) == 1.96


def test_response_times_by_size_bins_by_hand() -> None:
    df = pl.DataFrame(
        {
            "size_bytes": [1000, 2000, 5000, 20000, 30000, 40000],
            "fct_s": [0.1, 0.3, 0.2, 1.0, 2.0, math.nan],
            "completed": [True, True, True, True, True, False],
        }
    )
    out = response_times_by_size(df, edges=[1e3, 1e4, 1e5])
    assert out["count"].to_list() == [3, 2]
    assert out["mean_s"].to_list() == pytest.approx([0.2, 1.5])
    # Nearest rank: median of (0.1, 0.2, 0.3) is 0.2, of (1, 2) is 1; p95 the largest.
    assert out["median_s"].to_list() == [0.2, 1.0]
    assert out["p95_s"].to_list() == [0.3, 2.0]
    assert out["ci95_s"][1] == pytest.approx(12.706 * math.sqrt(0.5 / 2))


def test_generators_table_from_a_run(tmp_path: Path) -> None:
    text = """
duration = "30s"
[[host]]
name = "a"
[[host]]
name = "b"
[[link]]
between = ["a", "b"]
rate = "10Mbps"
delay = "10ms"
[[traffic]]
from = "a"
to = "b"
rate = 5
size = { dist = "fixed", value = 10 }
"""
    res = tcplab.run(text)
    g = res.generators
    # 5/s x 10 x 1448 B x 8 = 579.2 kb/s of 10 Mb/s.
    assert g["offered_bps"][0] == pytest.approx(579_200.0)
    assert g["offered_load"][0] == pytest.approx(0.05792)
    assert res.transfers.height == g["arrivals"][0]
    table = response_times_by_size(res.transfers)
    assert table["count"].sum() == g["completed"][0]
    res.write(tmp_path)
    assert (tmp_path / "transfers.parquet").exists()
