"""Figures: each function draws exactly its input (bar heights, error bars,
lines, CDF steps, log axes, heat map cells), ``save`` writes PNG and SVG, and
long lines are drawn through the points M4 keeps, less than a pixel away."""

from __future__ import annotations

import io
import math
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from matplotlib.container import BarContainer, ErrorbarContainer
from matplotlib.figure import Figure

from tcplab import analysis, figures

NAN = math.nan


def bar_containers(fig: Figure) -> list[BarContainer]:
    return [c for c in fig.axes[0].containers if isinstance(c, BarContainer)]


def error_segments(fig: Figure, ax_index: int = 0) -> list[tuple[float, float, float]]:
    """(x, low, high) of every vertical error bar drawn."""
    out = []
    for c in fig.axes[ax_index].containers:
        if isinstance(c, ErrorbarContainer):
            for coll in c.lines[2]:
                for seg in coll.get_segments():
                    (x0, y0), (x1, y1) = seg
                    assert x0 == x1
                    out.append((float(x0), float(min(y0, y1)), float(max(y0, y1))))
    return out


# ------------------------------------------------------------------- bars

BARS = pl.DataFrame(
    {
        "down": ["newreno", "newreno", "cubic", "cubic", "newreno", "newreno", "cubic"],
        "up": ["newreno", "cubic", "newreno", "cubic", "newreno", "cubic", "newreno"],
        "name": ["r->c", "r->c", "r->c", "r->c", "c->r", "c->r", "c->r"],
        "util": [0.9, 0.8, 0.85, 0.7, 0.3, 0.5, 0.4],
        "ci": [0.02, 0.03, None, 0.01, 0.05, NAN, 0.01],
    }
)


def test_grouped_bars_heights_and_error_bars_are_the_input() -> None:
    fig = figures.grouped_bars(
        BARS, ["down", "up"], "name", "util", "ci", scale=100, ylabel="utilisation (%)"
    )
    ax = fig.axes[0]
    # Groups in order of first appearance, labelled "down / up".
    labels = [t.get_text() for t in ax.get_xticklabels()]
    assert labels == ["newreno / newreno", "newreno / cubic", "cubic / newreno", "cubic / cubic"]
    assert ax.get_xlabel() == "down / up"
    assert ax.get_ylabel() == "utilisation (%)"
    bars = bar_containers(fig)
    assert [b.get_label() for b in bars] == ["r->c", "c->r"]
    # Heights are the values times the scale; c->r has no bar for cubic / cubic.
    down = [p.get_height() for p in bars[0].patches]
    up = [p.get_height() for p in bars[1].patches]
    assert down == pytest.approx([90, 80, 85, 70])
    assert up == pytest.approx([30, 50, 40])
    # Within each group the series sit side by side, centred on the group's tick.
    for i, (a, b) in enumerate(zip(bars[0].patches, bars[1].patches)):
        ca, cb = a.get_x() + a.get_width() / 2, b.get_x() + b.get_width() / 2
        assert ca < cb
        assert (ca + cb) / 2 == pytest.approx(i)
    # Error bars: half-length ci * scale, only where the ci is finite.
    centre = {
        (round(p.get_height(), 6)): p.get_x() + p.get_width() / 2 for b in bars for p in b.patches
    }
    expected = {90: 2.0, 80: 3.0, 70: 1.0, 30: 5.0, 40: 1.0}
    segs = sorted(error_segments(fig))
    assert len(segs) == len(expected)
    for h, e in expected.items():
        x = centre[h]
        assert any(
            sx == pytest.approx(x) and lo == pytest.approx(h - e) and hi == pytest.approx(h + e)
            for sx, lo, hi in segs
        ), (h, e, segs)
    # A legend names the series.
    legend = ax.get_legend()
    assert legend is not None
    assert [t.get_text() for t in legend.get_texts()] == ["r->c", "c->r"]


def test_grouped_bars_without_series_or_errors() -> None:
    df = pl.DataFrame({"flow": ["download", "upload"], "goodput_bps": [9.3e6, 1.1e6]})
    fig = figures.grouped_bars(df, "flow", None, "goodput_bps", scale=1e-6)
    (bars,) = bar_containers(fig)
    assert [p.get_height() for p in bars.patches] == pytest.approx([9.3, 1.1])
    assert error_segments(fig) == []
    assert fig.axes[0].get_legend() is None


def test_grouped_bars_refuses_two_rows_for_one_bar_and_names_missing_columns() -> None:
    twice = pl.concat([BARS.head(1), BARS.head(1)])
    with pytest.raises(ValueError, match="two rows for newreno / newreno, name = 'r->c'"):
        figures.grouped_bars(twice, ["down", "up"], "name", "util")
    with pytest.raises(KeyError, match="no column 'utilisation'"):
        figures.grouped_bars(BARS, "down", "name", "utilisation")


# ------------------------------------------------------------ time series


def test_curves_draw_each_series_sorted_with_its_errors_and_the_overlays() -> None:
    df = pl.DataFrame(
        {
            "B": [12, 10, 11, 10, 11, 12],
            "policy": ["tail", "tail", "tail", "front", "front", "front"],
            "tput": [0.7, 0.5, 0.6, 0.8, 0.9, 1.0],
            "ci": [0.1, 0.05, NAN, 0.0, 0.2, None],
        }
    )
    fig = figures.curves(
        df,
        "B",
        "tput",
        "policy",
        "ci",
        scale=2.0,
        overlay={"model": ([10, 12], [1.0, 1.5]), "other": ([10, 11], [0.2, 0.3])},
    )
    ax = fig.axes[0]
    lines = {ln.get_label(): ln for ln in ax.get_lines() if not ln.get_label().startswith("_")}
    # Each series sorted by x, scaled; the overlays as given, dashed.
    assert list(lines["tail"].get_xdata()) == [10, 11, 12]
    assert list(lines["tail"].get_ydata()) == [1.0, 1.2, 1.4]
    assert list(lines["front"].get_ydata()) == [1.6, 1.8, 2.0]
    assert list(lines["model"].get_ydata()) == [1.0, 1.5]
    assert lines["model"].get_linestyle() == "--"
    assert lines["other"].get_linestyle() == ":"
    # Error bars where finite (NaN and null draw none; 0 draws a flat one).
    segs = sorted(error_segments(fig))
    want = sorted([(10.0, 0.9, 1.1), (12.0, 1.2, 1.6), (10.0, 1.6, 1.6), (11.0, 1.4, 2.2)])
    assert len(segs) == len(want)
    for got, exp in zip(segs, want):
        assert got == pytest.approx(exp)


def test_time_series_draws_one_sorted_step_line_per_group() -> None:
    df = pl.DataFrame(
        {
            "t": [2.0, 0.0, 1.0, 0.0, 1.0, 2.0],
            "pkts": [10, 0, 5, 8, 2, 0],
            "link": ["a", "a", "a", "b", "b", "b"],
        }
    )
    fig = figures.time_series(df, "t", "pkts", "link", xlabel="time (s)", ylabel="queue (packets)")
    (ax,) = fig.axes
    lines = ax.get_lines()
    assert [ln.get_label() for ln in lines] == ["a", "b"]
    assert list(lines[0].get_xdata()) == [0.0, 1.0, 2.0]  # sorted by time
    assert list(lines[0].get_ydata()) == [0.0, 5.0, 10.0]
    assert list(lines[1].get_ydata()) == [8.0, 2.0, 0.0]
    assert all(ln.get_drawstyle() == "steps-post" for ln in lines)
    assert ax.get_xlabel() == "time (s)"
    assert ax.get_ylabel() == "queue (packets)"
    assert lines[0].get_color() != lines[1].get_color()


def test_time_series_overlays_go_on_every_panel() -> None:
    df = pl.DataFrame({"t": [0.0, 1.0, 0.0, 1.0], "w": [1, 2, 3, 4], "k": ["a", "a", "b", "b"]})
    fig = figures.time_series(
        df, "t", "w", "k", separate=True, overlay={"W_B": ([0, 1], [2.5, 2.5])}
    )
    for ax in fig.axes:
        dashed = [ln for ln in ax.get_lines() if ln.get_linestyle() == "--"]
        assert len(dashed) == 1
        assert list(dashed[0].get_ydata()) == [2.5, 2.5]
    assert [ln.get_label() for ln in fig.axes[0].get_lines()][-1] == "W_B"


def test_time_series_separate_panels_share_the_time_axis() -> None:
    df = pl.DataFrame({"t": [0.0, 1.0, 0.0, 1.0], "q": [1, 2, 3, 4], "l": ["a", "a", "b", "b"]})
    fig = figures.time_series(df, "t", "q", "l", separate=True, xlabel="time (s)")
    assert len(fig.axes) == 2
    assert [ax.get_title(loc="left") for ax in fig.axes] == ["a", "b"]
    assert fig.axes[0].get_shared_x_axes().joined(fig.axes[0], fig.axes[1])
    assert list(fig.axes[1].get_lines()[0].get_ydata()) == [3.0, 4.0]
    assert fig.axes[1].get_xlabel() == "time (s)"


def test_time_series_of_intervals_holds_the_last_value_to_its_end() -> None:
    phases = pl.DataFrame(
        {"start_s": [2.0, 6.0], "end_s": [6.0, 10.0], "goodput_bps": [4e6, 5e6], "f": ["x", "x"]}
    )
    fig = figures.time_series(phases, "start_s", "goodput_bps", "f", x_end="end_s", scale=1e-6)
    (line,) = fig.axes[0].get_lines()
    assert list(line.get_xdata()) == [2.0, 6.0, 10.0]
    assert list(line.get_ydata()) == pytest.approx([4.0, 5.0, 5.0])
    assert line.get_drawstyle() == "steps-post"


# -------------------------------------------------------------------- CDF


def step_value(xs: list[float], ys: list[float], at: float) -> float:
    """The value of a steps-post line at ``at``: the y of the last point at or before it."""
    return max((y for x, y in zip(xs, ys) if x <= at), default=0.0)


def test_cdf_steps_at_each_data_point_and_reaches_one() -> None:
    data = {"a": [3.0, 1.0, 2.0, 2.0, NAN], "b": [0.5, 4.0]}
    fig = figures.cdf(data, xlabel="response time (s)")
    ax = fig.axes[0]
    lines = ax.get_lines()
    assert [ln.get_label() for ln in lines] == ["a (n = 4)", "b (n = 2)"]
    for ln, values in zip(lines, data.values()):
        xs = [float(v) for v in ln.get_xdata()]
        ys = [float(v) for v in ln.get_ydata()]
        finite = [v for v in values if not math.isnan(v)]
        n = len(finite)
        assert ln.get_drawstyle() == "steps-post"
        assert ys[0] == 0.0
        assert ys[-1] == 1.0
        # Below the smallest value nothing; at each value, the fraction at or below it.
        assert step_value(xs, ys, min(finite) - 1e-9) == 0.0
        for v in finite:
            assert step_value(xs, ys, v) == pytest.approx(sum(u <= v for u in finite) / n)
            assert step_value(xs, ys, v - 1e-9) == pytest.approx(sum(u < v for u in finite) / n)
        # Every step is at a data point.
        assert set(xs) == set(finite)
    assert ax.get_xlabel() == "response time (s)"


# ------------------------------------------------------ response vs size


def test_response_vs_size_is_log_log_with_the_binned_means_and_cis() -> None:
    transfers = pl.DataFrame(
        {
            "size_bytes": [1500, 2000, 15000, 16000, 150000, 170000],
            "fct_s": [0.10, 0.11, 0.50, 0.70, 2.0, NAN],
            "completed": [True, True, True, True, True, False],
        }
    )
    edges = [1e3, 1e4, 1e5, 1e6]
    binned = analysis.response_times_by_size(transfers, edges)
    fig = figures.response_vs_size({"newreno": binned})
    ax = fig.axes[0]
    assert ax.get_xscale() == "log"
    assert ax.get_yscale() == "log"
    # The error bars' caps are lines too, unlabelled ("_child...").
    (line,) = [ln for ln in ax.get_lines() if not str(ln.get_label()).startswith("_")]
    assert line.get_label() == "newreno"
    # Each bin at the geometric centre of its edges, at the mean of its transfers.
    assert list(line.get_xdata()) == pytest.approx(
        [math.sqrt(1e7), math.sqrt(1e9), math.sqrt(1e11)]
    )
    assert list(line.get_ydata()) == pytest.approx([0.105, 0.6, 2.0])
    # 95 % CI of two values: t(1) = 12.706 times std / sqrt(2) = 12.706 * |a - b| / 2.
    cis = [12.706 * 0.01 / 2, 12.706 * 0.2 / 2]
    segs = error_segments(fig)
    assert len(segs) == 2  # the third bin holds one transfer: no interval
    for (x, lo, hi), m, ci, cx in zip(segs, [0.105, 0.6], cis, [math.sqrt(1e7), math.sqrt(1e9)]):
        assert x == pytest.approx(cx)
        assert (lo, hi) == (pytest.approx(m - ci), pytest.approx(m + ci))


def test_response_vs_size_median_has_no_error_bars_and_a_bad_stat_is_refused() -> None:
    binned = pl.DataFrame(
        {"size_lo": [1e3], "size_hi": [1e4], "mean_s": [0.2], "ci95_s": [0.01], "median_s": [0.15]}
    )
    fig = figures.response_vs_size({"x": binned}, stat="median")
    assert list(fig.axes[0].get_lines()[0].get_ydata()) == [0.15]
    assert error_segments(fig) == []
    assert "median" in fig.axes[0].get_ylabel()
    with pytest.raises(ValueError, match="stat: 'max'"):
        figures.response_vs_size({"x": binned}, stat="max")


# --------------------------------------------------------------- heat map


def visible_tick_labels(fig: Figure, axis: str) -> list[tuple[str, Any]]:
    """(text, window extent) of the major and minor tick labels drawn on an axis."""
    fig.canvas.draw()
    ax = fig.axes[0]
    a = ax.xaxis if axis == "x" else ax.yaxis
    lo, hi = sorted(a.get_view_interval())
    out = []
    for tick in [*a.get_major_ticks(), *a.get_minor_ticks()]:
        label = tick.label1
        if label.get_visible() and label.get_text() and lo <= tick.get_loc() <= hi:
            out.append((label.get_text(), label.get_window_extent()))
    return out


@pytest.mark.parametrize("decades", [0.2, 0.39, 0.55, 0.95, 1.5, 2.5, 5.0])
def test_log_axis_tick_labels_never_overlap(decades: float) -> None:
    """Regression: over a view of under a decade the size axis labelled the
    minor ticks 2, 3, 4 (and 6) x 10^6, which printed on top of each other.
    Labels drawn at the default size must be pairwise disjoint, and there must
    be at least two on each axis to read a scale from."""
    n = 6
    lo = 1.2e6
    sizes = [lo * 10 ** (decades * k / n) for k in range(n + 1)]
    binned = pl.DataFrame(
        {
            "size_lo": sizes[:-1],
            "size_hi": sizes[1:],
            "mean_s": [0.4 * 10 ** (decades * k / n) for k in range(n)],
            "ci95_s": [NAN] * n,
        }
    )
    fig = figures.response_vs_size({"a": binned})
    cdf = figures.cdf({"a": [0.4 * 10 ** (decades * k / n) for k in range(n + 1)]}, log_x=True)
    for f, axis in ((fig, "x"), (fig, "y"), (cdf, "x")):
        labels = visible_tick_labels(f, axis)
        assert len(labels) >= 2, (axis, decades, [t for t, _ in labels])
        for i, (t1, b1) in enumerate(labels):
            for t2, b2 in labels[i + 1 :]:
                assert not b1.overlaps(b2), (axis, decades, t1, t2)


def test_log_tick_labels_are_plain_digits_or_powers_of_ten() -> None:
    assert figures.log_tick_label(0.001) == "0.001"
    assert figures.log_tick_label(0.05) == "0.05"
    assert figures.log_tick_label(500.0) == "500"
    assert figures.log_tick_label(1000.0) == "$10^{3}$"
    assert figures.log_tick_label(2e6) == "$2\\times10^{6}$"
    assert figures.log_tick_label(5e-4) == "$5\\times10^{-4}$"


def test_heatmap_cells_hold_the_values() -> None:
    df = pl.DataFrame(
        {
            "down": ["newreno", "newreno", "cubic", "cubic", "vegas"],
            "buffer": [40, 250, 40, 250, 40],
            "goodput": [9.1e6, 8.0e6, 7.5e6, 2.0e6, 5.0e6],
        }
    )
    fig = figures.heatmap(df, "down", "buffer", "goodput", scale=1e-6, clabel="goodput (Mb/s)")
    ax = fig.axes[0]
    (im,) = ax.images
    cells = im.get_array()
    assert cells is not None
    # Rows are the y values (bottom to top), columns the x values.
    assert cells.shape == (2, 3)
    expected: list[list[Any]] = [[9.1, 7.5, 5.0], [8.0, 2.0, None]]
    for i, row in enumerate(expected):
        for k, v in enumerate(row):
            if v is None:
                assert cells.mask[i, k]
            else:
                assert float(cells[i, k]) == pytest.approx(v)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["newreno", "cubic", "vegas"]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["40", "250"]
    assert im.origin == "lower"
    # Each cell is written at its place.
    texts = {(t.get_position(), t.get_text()) for t in ax.texts}
    assert texts == {
        ((0, 0), "9.1"),
        ((1, 0), "7.5"),
        ((2, 0), "5"),
        ((0, 1), "8"),
        ((1, 1), "2"),
    }
    assert fig.axes[1].get_ylabel() == "goodput (Mb/s)"  # the colour bar
    with pytest.raises(ValueError, match="two rows for down = 'newreno', buffer = 40"):
        figures.heatmap(pl.concat([df, df.head(1)]), "down", "buffer", "goodput")


# ---------------------------------------------------------------- saving


def test_save_writes_png_and_svg_reproducibly(tmp_path: Path) -> None:
    import matplotlib.image as mpimg

    fig = figures.cdf({"a": [1.0, 2.0, 3.0]}, xlabel="x")
    paths = figures.save(fig, tmp_path / "sub" / "cdf", dpi=100)
    png, svg = tmp_path / "sub" / "cdf.png", tmp_path / "sub" / "cdf.svg"
    assert paths == [png, svg]
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    img = mpimg.imread(png)
    w, h = fig.get_size_inches()
    assert img.shape[:2] == (round(h * 100), round(w * 100))
    root = ET.fromstring(svg.read_bytes())
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert sorted(p.name for p in (tmp_path / "sub").iterdir()) == ["cdf.png", "cdf.svg"]
    # The same data gives the same bytes (no date, fixed SVG ids).
    first = png.read_bytes(), svg.read_bytes()
    figures.save(figures.cdf({"a": [1.0, 2.0, 3.0]}, xlabel="x"), tmp_path / "sub" / "cdf", dpi=100)
    assert (png.read_bytes(), svg.read_bytes()) == first


def test_figures_touch_no_global_state(tmp_path: Path) -> None:
    """No pyplot (no global figure list, no GUI backend), and the style's
    rcParams are restored. In a fresh interpreter: other tests may import pyplot."""
    code = """
import sys
import matplotlib
before = dict(dict.items(matplotlib.rcParams))
import polars as pl
from tcplab import figures
df = pl.DataFrame({"g": ["a", "b"], "v": [1.0, 2.0]})
figures.save(figures.grouped_bars(df, "g", None, "v"), sys.argv[1])
figures.save(figures.heatmap(df.with_columns(y=pl.lit(1)), "g", "y", "v"), sys.argv[1])
assert "matplotlib.pyplot" not in sys.modules, "pyplot was imported"
assert dict(dict.items(matplotlib.rcParams)) == before, "rcParams changed"
"""
    proc = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "fig")],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr


def test_log_axis_minor_and_major_labels_share_a_line() -> None:
    """Minor ticks are shorter than major ones: their labels (2x10^6) are
    padded so that they line up with the powers of ten (10^6)."""
    sizes = [1.2e6 * 10 ** (1.5 * k / 6) for k in range(7)]
    binned = pl.DataFrame(
        {"size_lo": sizes[:-1], "size_hi": sizes[1:], "mean_s": [1.0] * 6, "ci95_s": [NAN] * 6}
    )
    fig = figures.response_vs_size({"a": binned})
    labels = visible_tick_labels(fig, "x")
    tops = {round(box.y1, 1) for _, box in labels if "10" in _}
    texts = [t for t, _ in labels]
    assert any("times" in t for t in texts), texts
    assert any("times" not in t for t in texts), texts
    assert len(tops) == 1, labels


def test_curves_break_the_line_across_an_unsampled_stretch() -> None:
    # Buffers 1, 2 and 1000: with gap 20 the line stops between 2 and 1000
    # (a factor of 500), but every point keeps its marker.
    df = pl.DataFrame({"B": [1.0, 2.0, 1000.0], "y": [1.0, 2.0, 3.0]})
    fig = figures.curves(df, "B", "y", logx=True, gap=20.0)
    (line,) = fig.axes[0].get_lines()
    xs = list(line.get_xdata())
    assert xs[:2] == [1.0, 2.0]
    assert math.isnan(xs[2])
    assert xs[3] == 1000.0
    fig = figures.curves(df, "B", "y", logx=True)
    (line,) = fig.axes[0].get_lines()
    assert list(line.get_xdata()) == [1.0, 2.0, 1000.0]


# ------------------------------------------------------- downsampling (M4)

REPORT_DPI = 150  # Report.add_figure's PNG
SAVE_DPI = 200  # figures.save's PNG


def random_walk(n: int, seed: int) -> np.ndarray[Any, Any]:
    return np.cumsum(np.random.default_rng(seed).normal(0.0, 1.0, n))


def cwnd_sawtooth(n: int, seed: int) -> np.ndarray[Any, Any]:
    """A congestion window's shape: whole segments, one more every 40
    samples, back to 20 at a loss every 1,000 to 5,000 samples."""
    lengths = np.random.default_rng(seed).integers(1_000, 5_000, size=n // 1_000 + 1)
    tooth = np.repeat(np.arange(lengths.size), lengths)[:n]
    since_loss = np.arange(n) - np.concatenate([[0], np.cumsum(lengths)])[tooth]
    return np.floor(20.0 + since_loss / 40.0)


LONG = pl.DataFrame(
    {
        "time_s": np.tile(np.arange(200_000) * 0.004, 2),  # 800 s
        "v": np.concatenate([random_walk(200_000, 1), cwnd_sawtooth(200_000, 2)]),
        "flow": ["walk"] * 200_000 + ["cwnd"] * 200_000,
    }
)


def rgb(fig: Figure, dpi: int) -> np.ndarray[Any, Any]:
    """The figure as a report or ``save`` writes it, as a PNG decoded."""
    import matplotlib.image as mpimg

    buf = io.BytesIO()
    figures._savefig(fig, buf, "png", dpi=dpi)
    return mpimg.imread(io.BytesIO(buf.getvalue()))[..., :3]


def ink(img: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """How much of each pixel a line covers: 0 on white, 1 in a line's
    colour (every palette colour has a channel at or near 0; the grid's grey
    is 0.18)."""
    return 1.0 - img.min(axis=2)


def sideways(mask: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """``mask`` widened by one pixel to the left and to the right."""
    out = mask.copy()
    out[:, 1:] |= mask[:, :-1]
    out[:, :-1] |= mask[:, 1:]
    return out


@pytest.mark.parametrize("step", [True, False], ids=["steps", "lines"])
def test_a_downsampled_trace_differs_only_by_less_than_a_pixel_sideways(step: bool) -> None:
    # M4 keeps in each pixel column the first, last, lowest and highest
    # point: the line reaches the same highest and lowest point in every
    # column and enters and leaves it at the same points; what changes is
    # where, inside the column, it passes each height in between. A path
    # through all the points and the path through these four are therefore
    # within one pixel of each other sideways, and at the same heights. The
    # line drawn around the path (1.4 pt: 2.9 px at 150 dpi, 3.9 at 200) is
    # antialiased, so its edges, not only its middle, shift by a fraction of
    # a pixel: the images are not the same bytes (1-3 % of these pixels
    # differ, all at the sides of steep stretches), but no ink appears or
    # vanishes: wherever one image is at least half covered by a line, the
    # other is at least a quarter covered there or one pixel to the left or
    # right, and never only above or below.
    for dpi in (REPORT_DPI, SAVE_DPI):
        images = [
            rgb(figures.time_series(LONG, "time_s", "v", "flow", step=step, downsample=ds), dpi)
            for ds in (True, False)
        ]
        assert images[0].shape == images[1].shape
        for a, b in (images, images[::-1]):
            moved = (ink(a) >= 0.5) & ~sideways(ink(b) >= 0.25)
            assert not moved.any(), f"{dpi} dpi: ink at {np.argwhere(moved)[:5].tolist()}"


def drawn_lines(fig: Figure, dpi: int, monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The vertices, in pixels, of each long path Agg draws for ``fig`` at
    ``dpi`` (the data lines: grid lines, ticks and text are short)."""
    from matplotlib.backends.backend_agg import RendererAgg

    drawn = []
    draw_path = RendererAgg.draw_path

    def spy(self: Any, gc: Any, path: Any, transform: Any, rgb_face: Any = None) -> None:
        if len(path.vertices) > 64:
            drawn.append(transform.transform(path.vertices))
        draw_path(self, gc, path, transform, rgb_face)

    with monkeypatch.context() as m:
        m.setattr(RendererAgg, "draw_path", spy)
        rgb(fig, dpi)
    return drawn


def by_column(px: np.ndarray[Any, Any]) -> dict[int, tuple[Any, ...]]:
    """Per pixel column of a drawn path (its xs in order): its first and last
    vertex, its lowest and highest y (M4's four numbers), and how many
    distinct xs it has (points; a step's two vertices share one)."""
    cols = np.floor(px[:, 0]).astype(int)
    starts = np.flatnonzero(np.append(True, cols[1:] != cols[:-1]))
    assert np.unique(cols[starts]).size == starts.size  # each column in one run
    ends = np.append(starts[1:], cols.size) - 1
    low = np.minimum.reduceat(px[:, 1], starts)
    high = np.maximum.reduceat(px[:, 1], starts)
    xs = np.add.reduceat(np.append(True, px[1:, 0] != px[:-1, 0]).astype(int), starts)
    return {
        int(cols[s]): (*px[s], *px[e], lo, hi, n)
        for s, e, lo, hi, n in zip(starts, ends, low, high, xs)
    }


@pytest.mark.parametrize("zoom", [False, True], ids=["whole", "zoomed"])
def test_m4_draws_at_most_four_points_per_pixel_column_of_the_image(
    zoom: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The columns are the image's own: the same dpi, layout and x limits
    # as the full line's, even after a set_xlim once the figure is made.
    df = LONG.filter(pl.col("flow") == "walk")
    for dpi in (REPORT_DPI, SAVE_DPI):
        paths = []
        for ds in (True, False):
            fig = figures.time_series(df, "time_s", "v", step=False, downsample=ds)
            if zoom:
                fig.axes[0].set_xlim(100.0, 300.0)
            (path,) = drawn_lines(fig, dpi, monkeypatch)
            paths.append(path)
        m4, full = (by_column(p) for p in paths)
        assert m4.keys() == full.keys()
        # Zoomed, the line goes on out of view: as Line2D, only the point on
        # each side that joins it to the view is drawn, a fifth in its column.
        ends = {int(paths[0][0, 0]), int(paths[0][-1, 0])} if zoom else set()
        for c in full:
            assert m4[c][:6] == full[c][:6], c  # first, last, lowest, highest
            assert m4[c][6] <= (5 if c in ends else 4), c
        assert len(paths[0]) <= 4 * len(m4) + len(ends) < len(paths[1]) / 10


def test_a_downsampled_step_line_has_the_same_steps_at_every_column_edge(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    df = LONG.filter(pl.col("flow") == "cwnd")
    paths = [
        drawn_lines(figures.time_series(df, "time_s", "v", downsample=ds), SAVE_DPI, monkeypatch)[0]
        for ds in (True, False)
    ]
    m4, full = (by_column(p) for p in paths)
    assert m4.keys() == full.keys()
    for c in full:
        assert m4[c][:6] == full[c][:6], c
        assert m4[c][6] <= 4, c


def test_a_short_series_is_drawn_point_for_point(monkeypatch: pytest.MonkeyPatch) -> None:
    # 3,000 points on about 800 (150 dpi) or 1,050 (200 dpi) columns: fewer
    # than M4_MIN_POINTS per column, so the same image byte for byte.
    df = LONG.filter(pl.col("flow") == "walk").head(3_000)
    for dpi in (REPORT_DPI, SAVE_DPI):
        figs = [figures.time_series(df, "time_s", "v", downsample=ds) for ds in (True, False)]
        (m4,) = drawn_lines(figs[0], dpi, monkeypatch)
        assert len(m4) == 2 * 3_000 - 1  # every step
        bufs = []
        for fig in figs:
            buf = io.BytesIO()
            figures._savefig(fig, buf, "png", dpi=dpi)
            bufs.append(buf.getvalue())
        assert bufs[0] == bufs[1]


def test_a_downsampled_line_keeps_its_points_and_pickles() -> None:
    import pickle

    fig = figures.time_series(LONG, "time_s", "v", "flow")
    lines = fig.axes[0].get_lines()
    assert [len(ln.get_xdata()) for ln in lines] == [200_000, 200_000]
    assert list(lines[1].get_ydata()[:3]) == [20.0, 20.0, 20.0]
    # A report's figure_pool worker draws the figure from its pickle.
    again = pickle.loads(pickle.dumps(fig))
    assert type(again.axes[0].get_lines()[0]).__name__ == "M4Line"
    assert np.array_equal(rgb(again, REPORT_DPI), rgb(fig, REPORT_DPI))


def test_a_vector_file_keeps_four_points_per_six_hundredth_of_an_inch() -> None:
    df = LONG.filter(pl.col("flow") == "walk")
    fig = figures.time_series(df, "time_s", "v", step=False)
    buf = io.BytesIO()
    figures._savefig(fig, buf, "svg")
    paths = ET.fromstring(buf.getvalue()).iter("{http://www.w3.org/2000/svg}path")
    vertices = max(len(re.findall(r"[ML] ", p.get("d", ""))) for p in paths)
    width_in = fig.axes[0].get_position().width * fig.get_figwidth()
    # the axes' columns, and the lumps out of view on each side
    assert 1_000 < vertices <= 4 * (math.ceil(width_in * figures.VECTOR_DPI) + 4)


def test_m4_indices_keep_each_columns_first_last_lowest_and_highest() -> None:
    columns = [0, 0, 0, 0, 0, 1, 1, 2, 5, 5, 5]
    values = [3, 1, 5, 2, 4, 7, 7, 0, 2, 9, 2]
    # column 0: first 3, lowest 1, highest 5, last 4 (2 is dropped);
    # column 1: first and last (its lowest and highest are the first);
    # column 2: its one point; column 5: first, highest, last
    assert figures.m4_indices(columns, values).tolist() == [0, 1, 2, 4, 5, 6, 7, 8, 9, 10]
    # an inverted x axis gives decreasing columns: the same runs
    assert figures.m4_indices([3, 3, 3, 1, 1], [1, 0, 1, 5, 5]).tolist() == [0, 1, 2, 3, 4]
    assert figures.m4_indices([], []).tolist() == []
