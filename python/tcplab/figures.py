"""Figures of results, ready for a paper: grouped bars with error bars, time
series, CDFs, response time versus size, heat maps.

Each function takes polars DataFrames (or plain sequences) and returns a
``matplotlib.figure.Figure`` built directly (no ``pyplot``, so no global figure
state and no GUI backend), in one style: DejaVu Sans at readable sizes, labelled
axes with units, a light grid, and the Okabe-Ito colour-blind-safe palette
(``viridis`` for heat maps). ``save`` writes a figure as PNG and SVG::

    from tcplab import figures, sweep
    links = sweep.summarize("out/study", "links")
    fig = figures.grouped_bars(links, group="host[client].cc", series="name",
                               value="utilisation_mean", err="utilisation_ci95",
                               scale=100, ylabel="utilisation (%)")
    figures.save(fig, "out/study/utilisation")   # utilisation.png, utilisation.svg

Long lines are downsampled where the eye cannot see it, by M4 (Jugel et
al., "M4: A Visualization-Oriented Time Series Data Aggregation", VLDB
2014): a line of ``time_series`` or ``cdf`` with more than ``M4_MIN_POINTS``
points per pixel column of its axes is drawn through, of the points in each
column, only the first, the last, the lowest and the highest, in x order, so
a 200,000-point trace is drawn as about 3,000 points. In every column the
line still reaches the same lowest and highest point and enters and leaves
it at the same points; what changes is only where inside the column it
passes the heights in between: by less than a pixel sideways, never up or
down. The columns are the image's own: they are chosen as the line is drawn,
from the renderer, once the layout and the axis limits are final, so they
are the PNG's pixel columns at any dpi (150 in a report, 200 with ``save``),
after any later ``set_xlim`` too. (Columns worked out when the figure is made
could not be: constrained layout places the axes up to 3 pixels apart at 100,
150 and 200 dpi.) A vector file (SVG, PDF) has no pixels: its columns are
1/``VECTOR_DPI`` inch wide, 600 dpi, a laser printer's resolution, so at
print size a point moves by at most 42 um along x, a twelfth of the line's
width. The images are not the same bytes: the antialiased edges of the
1.4 pt line (3 to 4 pixels wide) follow its path, so 1-3 % of a dense
trace's pixels change shade at the sides of steep stretches, but no ink
appears or vanishes farther than a pixel sideways (tests/test_figures.py
checks it at 150 and 200 dpi; the M4 paper's exactness holds for lines one
pixel wide and not antialiased). The line keeps all its points
(``get_xdata``); only what reaches the renderer is reduced.
``downsample=False`` draws every point.

matplotlib and polars are imported inside the functions, so that importing this
module costs nothing.
"""

from __future__ import annotations

import contextlib
import functools
import json
import math
import os
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt
    import polars as pl
    from matplotlib.axes import Axes
    from matplotlib.backend_bases import RendererBase
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D

__all__ = [
    "PALETTE",
    "cdf",
    "grouped_bars",
    "heatmap",
    "m4_indices",
    "response_vs_size",
    "save",
    "time_series",
]

PALETTE = (
    "#0072B2",  # blue
    "#E69F00",  # orange
    "#009E73",  # bluish green
    "#D55E00",  # vermillion
    "#CC79A7",  # reddish purple
    "#56B4E9",  # sky blue
    "#F0E442",  # yellow
    "#000000",  # black
)
"""Okabe & Ito's colour-blind-safe palette (Color Universal Design, 2008).
Beyond eight series the line styles change too."""

LINESTYLES = ("-", "--", ":", "-.")

WIDTH = 6.4
"""Default figure width in inches (about a column and a half of a paper)."""
HEIGHT = 3.6
MAX_WIDTH = 16.0

_STYLE: Any = {  # dict[RcKeyType, Any]; typed loosely for matplotlib < 3.9
    "font.family": "sans-serif",
    "font.sans-serif": ["DejaVu Sans"],  # bundled with matplotlib: the same everywhere
    "font.size": 10,
    "axes.titlesize": 11,
    "axes.labelsize": 10,
    "xtick.labelsize": 9,
    "ytick.labelsize": 9,
    "legend.fontsize": 9,
    "legend.title_fontsize": 9,
    "legend.frameon": False,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.color": "#d0d0d0",
    "grid.linewidth": 0.6,
    "axes.axisbelow": True,
    "lines.linewidth": 1.4,
    "image.cmap": "viridis",
}


@contextlib.contextmanager
def _style() -> Iterator[None]:
    """The house style while artists are created (text keeps the font it was
    created with); rcParams are restored on exit."""
    import matplotlib as mpl

    with mpl.rc_context(_STYLE):
        yield


def _figure(nrows: int = 1, width: float = WIDTH, height: float = HEIGHT) -> tuple[Figure, Any]:
    """A figure with an Agg canvas and ``nrows`` axes sharing x (a list)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(min(width, MAX_WIDTH), height), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(nrows, 1, sharex=True, squeeze=False)[:, 0].tolist()
    return fig, axes


def _colour(i: int) -> str:
    return PALETTE[i % len(PALETTE)]


def _linestyle(i: int) -> str:
    return LINESTYLES[(i // len(PALETTE)) % len(LINESTYLES)]


def _label(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _hashable(v: Any) -> Any:
    """A value usable as a dict key: lists and dicts (a swept table) as their JSON."""
    return json.dumps(v, default=str) if isinstance(v, (list, dict)) else v


def _float(v: Any) -> float:
    """A number as a float; None (a missing value) as NaN."""
    return math.nan if v is None else float(v)


def _finite(v: Any) -> bool:
    return v is not None and math.isfinite(float(v))


def _check_columns(df: pl.DataFrame, *cols: str | None) -> None:
    missing = [c for c in cols if c is not None and c not in df.columns]
    if missing:
        raise KeyError(f"no column {missing[0]!r}; have: {', '.join(df.columns)}")


MINOR_LABELS = ((0.4, (2, 3, 4, 5, 6, 7, 8, 9)), (1.0, (2, 3, 5)), (2.0, (2, 5)))
"""Which minor ticks of a log axis get a label: over a view of fewer than 0.4
decade all, of fewer than 1 decade those at 2, 3 and 5 times a power of ten,
of fewer than 2 decades at 2 and 5, over a wider one none (the powers of ten
are always labelled)."""


def log_tick_label(value: float) -> str:
    """A log-axis tick label: plain digits from 0.001 to 999 (``0.02``,
    ``500``), else ``mx10^k`` in mathtext (``10^6``, ``2x10^6``)."""
    if not value > 0 or not math.isfinite(value):
        return ""
    exp = math.floor(math.log10(value) + 1e-9)
    if -3 <= exp <= 2:
        return f"{value:g}"
    mant = round(value / 10.0**exp)
    return f"$10^{{{exp}}}$" if mant == 1 else f"${mant}\\times10^{{{exp}}}$"


def _log_axis(axis: Any) -> None:
    """Tick labels of a log ``axis`` (``ax.xaxis``, ``ax.yaxis``) that do not
    crowd: powers of ten always, minor ticks as ``MINOR_LABELS`` says.
    (matplotlib's default labels the minor ticks at 2, 3, 4 and 6 over a view
    of under a decade: long labels such as 3x10^6 and 4x10^6 run into each
    other.)"""
    import matplotlib as mpl
    from matplotlib.ticker import FuncFormatter

    # Minor ticks are shorter: pad their labels by the difference, so that
    # 2x10^6 sits on the same line as 10^6.
    key = "xtick" if axis.axis_name == "x" else "ytick"
    rc: Any = mpl.rcParams  # keys built from the axis name
    pad = rc[f"{key}.major.pad"] + rc[f"{key}.major.size"] - rc[f"{key}.minor.size"]
    axis.set_tick_params(which="minor", pad=pad)

    def major(value: float, _pos: int | None = None) -> str:
        return log_tick_label(value)

    def minor(value: float, _pos: int | None = None) -> str:
        lo, hi = sorted(axis.get_view_interval())
        if not lo > 0 or not value > 0:
            return ""
        span = math.log10(hi / lo)
        labelled = next((m for decades, m in MINOR_LABELS if span < decades), ())
        mant = value / 10.0 ** math.floor(math.log10(value) + 1e-9)
        return log_tick_label(value) if round(mant) in labelled else ""

    axis.set_major_formatter(FuncFormatter(major))
    axis.set_minor_formatter(FuncFormatter(minor))


def _decorate(ax: Axes, xlabel: str | None, ylabel: str | None, title: str | None) -> None:
    if xlabel:
        ax.set_xlabel(xlabel)
    if ylabel:
        ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title, loc="left")


def _legend(ax: Axes, title: str | None = None) -> None:
    """A legend beside the axes (constrained layout makes room for it)."""
    handles, _ = ax.get_legend_handles_labels()
    if handles:
        ax.legend(title=title, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)


# ------------------------------------------------------------- downsampling

VECTOR_DPI = 600
"""Columns per inch of the M4 downsampling in vector output (SVG, PDF, PS),
which has no pixels: a laser printer's resolution. Drawn at print size a
point moves by at most 1/600 inch (42 um) along the x axis, a twelfth of a
1.4 pt line's width; a screen could show it only past 600 pixels per inch
(a report's SVG, at 120 CSS pixels per inch, zoomed more than 5 times, or 2.5
times on a screen of two device pixels per CSS pixel)."""

M4_MIN_POINTS = 8
"""A line is downsampled when it has more than this many points per column
of its axes (twice the four that M4 keeps): a line of fewer is drawn as it
is, since downsampling it would save little."""

_SNAP_MAX_VERTICES = 1024
"""Agg snaps a path of only horizontal and vertical segments (a step line)
to the pixel grid when it has at most this many vertices ("auto" snapping,
matplotlib's path_converters.h)."""


def m4_indices(columns: npt.ArrayLike, values: npt.ArrayLike) -> np.ndarray[Any, Any]:
    """The indices, in increasing order, of the points that M4 keeps (Jugel
    et al., "M4: A Visualization-Oriented Time Series Data Aggregation",
    VLDB 2014): of each run of equal ``columns`` (the pixel column of each
    point; points sorted along x, so a column's points are contiguous), the
    first, the last, the first of the lowest ``values`` and the first of the
    highest: at most four per column. ``values`` must not hold NaN."""
    import numpy as np

    col = np.asarray(columns)
    val = np.asarray(values, dtype=float)
    n = col.size
    if n == 0:
        return np.zeros(0, dtype=np.intp)
    starts_run = np.empty(n, dtype=bool)
    starts_run[0] = True
    np.not_equal(col[1:], col[:-1], out=starts_run[1:])
    starts = np.flatnonzero(starts_run)
    run = np.cumsum(starts_run) - 1  # each point's run number
    keep = np.zeros(n, dtype=bool)
    keep[starts] = True  # first of each column
    keep[np.append(starts[1:] - 1, n - 1)] = True  # last of each column
    for extreme in (np.minimum, np.maximum):
        at = np.flatnonzero(val == extreme.reduceat(val, starts)[run])
        # the first point reaching its column's extreme (every column has one)
        keep[at[np.append(True, run[at[1:]] != run[at[:-1]])]] = True
    return np.flatnonzero(keep)


@functools.cache
def _m4_line_class() -> type[Line2D]:
    """``M4Line``, made when first needed: defining it imports matplotlib."""
    from matplotlib.artist import allow_rasterization
    from matplotlib.backends.backend_agg import RendererAgg
    from matplotlib.lines import Line2D

    class M4Line(Line2D):
        """A ``Line2D`` drawn through the points M4 keeps for the columns of
        the image being drawn (see the module's docstring); it holds and
        reports all its points. For a line of points sorted along a linear or
        log x axis, with no markers; another is drawn in full."""

        def __reduce__(self) -> tuple[Any, ...]:
            # Pickled by a function of this module, so that unpickling (a
            # report's figure_pool worker) needs no class made beforehand;
            # the state is Artist.__getstate__'s (not in matplotlib's stubs).
            return (_new_m4_line, (), self.__getstate__())  # type: ignore[attr-defined]

        def _m4_keep(self, renderer: RendererBase) -> np.ndarray[Any, Any] | None:
            """The indices of the points to draw, or None to draw them all."""
            import numpy as np

            ax = self.axes
            if (
                ax is None
                or ax.name != "rectilinear"
                or self.get_transform() != ax.transData
                or self.get_marker() not in ("None", None)
            ):
                return None
            x = np.asarray(self.get_xdata(orig=True), dtype=float)
            y = np.asarray(self.get_ydata(orig=True), dtype=float)
            # An image's display units are its pixels; a vector file's are
            # points (its figure.dpi is 72 while it is drawn).
            fig = self.figure
            per_unit = (
                1.0
                if isinstance(renderer, RendererAgg)
                else VECTOR_DPI / (fig.dpi if fig is not None else 72.0)
            )
            columns = math.ceil(ax.bbox.x1 * per_unit) - math.floor(ax.bbox.x0 * per_unit)
            if x.size <= M4_MIN_POINTS * columns:
                return None
            if not (np.isfinite(x).all() and np.isfinite(y).all() and np.all(x[1:] >= x[:-1])):
                return None  # a NaN breaks the line; M4 needs the points in x order
            # The points in view, and of the others only the one on each side
            # that joins the line to the view (what Line2D draws of a long
            # sorted line): the rest is clipped away.
            lo, hi = ax.get_xbound()
            i0, i1 = int(np.searchsorted(x, lo, "left")), int(np.searchsorted(x, hi, "right"))
            if i1 - i0 <= M4_MIN_POINTS * columns:
                return None
            shown = np.column_stack([x[i0:i1], y[i0:i1]])
            dx = self.get_transform().transform(shown)[:, 0] * per_unit
            if not np.isfinite(dx).all():
                return None
            keep = i0 + m4_indices(np.floor(dx).astype(np.int64), y[i0:i1])
            return np.concatenate(
                [np.arange(max(i0 - 1, 0), i0), keep, np.arange(i1, min(i1 + 1, x.size))]
            )

        @allow_rasterization  # type: ignore[untyped-decorator]
        def draw(self, renderer: RendererBase) -> None:
            import numpy as np

            keep = self._m4_keep(renderer) if self.get_visible() else None
            if keep is None:
                super().draw(renderer)
                return
            x = np.asarray(self.get_xdata(orig=True))
            y = np.asarray(self.get_ydata(orig=True))
            snap = self.get_snap()
            full_vertices = x.size * (2 if self.get_drawstyle().startswith("steps") else 1)
            try:
                self.set_data(x[keep], y[keep])
                if snap is None and full_vertices > _SNAP_MAX_VERTICES:
                    self.set_snap(False)  # as the full line, too long to be snapped
                super().draw(renderer)
            finally:
                self.set_data(x, y)
                self.set_snap(snap)
                self.stale = False

    M4Line.__module__ = __name__
    return M4Line


def _new_m4_line() -> Line2D:
    """An empty ``M4Line`` for pickle to fill in."""
    cls = _m4_line_class()
    return cls.__new__(cls)


def _line(ax: Axes, xs: Any, ys: Any, *, downsample: bool, **kwargs: Any) -> Line2D:
    """A line of ``xs`` and ``ys`` on ``ax`` (as ``ax.plot``: the axes
    autoscale to it), an ``M4Line`` if ``downsample``."""
    from matplotlib.lines import Line2D

    cls = _m4_line_class() if downsample else Line2D
    line = cls(xs, ys, **kwargs)
    ax.add_line(line)
    ax.autoscale()
    return line


# --------------------------------------------------------------------- bars


def grouped_bars(
    df: pl.DataFrame,
    group: str | Sequence[str],
    series: str | None,
    value: str,
    err: str | None = None,
    *,
    scale: float = 1.0,
    xlabel: str | None = None,
    ylabel: str | None = None,
    title: str | None = None,
    logy: bool = False,
) -> Figure:
    """Bars of ``value`` (times ``scale``), one group per distinct value of the
    ``group`` column(s) (labels joined with " / "), one bar per ``series``
    value inside each group (one bar per group when ``series`` is None), with
    error bars of half-length ``err`` (times ``scale``) where it is finite.
    ``logy``: a logarithmic value axis (for values spanning decades; zero
    bars are then not drawn).

    Groups and series keep their order of first appearance. A missing
    (group, series) pair leaves a gap; two rows for one pair are an error.
    """
    groups = [group] if isinstance(group, str) else list(group)
    _check_columns(df, *groups, series, value, err)
    group_keys: list[tuple[Any, ...]] = []
    series_keys: list[Any] = []
    cells: dict[tuple[tuple[Any, ...], Any], tuple[float, float]] = {}
    for row in df.iter_rows(named=True):
        gk = tuple(_hashable(row[g]) for g in groups)
        sk = _hashable(row[series]) if series is not None else None
        if gk not in group_keys:
            group_keys.append(gk)
        if sk not in series_keys:
            series_keys.append(sk)
        if (gk, sk) in cells:
            raise ValueError(
                f"grouped_bars: two rows for {' / '.join(map(_label, gk))}"
                + (f", {series} = {sk!r}" if series is not None else "")
            )
        e = _float(row[err]) if err is not None else math.nan
        cells[gk, sk] = (_float(row[value]) * scale, abs(e * scale))
    n_series = max(len(series_keys), 1)
    width = 0.8 / n_series
    labels = [" / ".join(_label(v) for v in gk) for gk in group_keys]
    fig_width = 1.6 + len(group_keys) * (0.3 + 0.28 * n_series) + (1.6 if series else 0.0)
    with _style():
        fig_width = min(max(WIDTH, fig_width), MAX_WIDTH)
        fig, (ax,) = _figure(width=fig_width, height=max(HEIGHT, min(0.3 * fig_width, 5.0)))
        for j, sk in enumerate(series_keys):
            offset = (j - (n_series - 1) / 2) * width
            present = [
                (i + offset, *cells[gk, sk]) for i, gk in enumerate(group_keys) if (gk, sk) in cells
            ]
            xs = [x for x, _, _ in present]
            hs = [h for _, h, _ in present]
            ax.bar(
                xs,
                hs,
                width * 0.92,
                color=_colour(j),
                label=_label(sk) if series is not None else None,
                hatch=None if j < len(PALETTE) else "//",
            )
            bars = [(x, h, e) for x, h, e in present if _finite(e)]
            if bars:
                ax.errorbar(
                    [b[0] for b in bars],
                    [b[1] for b in bars],
                    yerr=[b[2] for b in bars],
                    fmt="none",
                    ecolor="#222222",
                    elinewidth=1.0,
                    capsize=3,
                    capthick=1.0,
                )
        ax.set_xticks(range(len(group_keys)), labels)
        if sum(len(lb) for lb in labels) > 60 or len(labels) > 8:
            ax.tick_params(axis="x", labelrotation=30)
            for t in ax.get_xticklabels():
                t.set_horizontalalignment("right")
        ax.grid(False, axis="x")
        ax.set_xlim(-0.6, len(group_keys) - 0.4)
        if logy:
            ax.set_yscale("log", nonpositive="mask")
        _decorate(ax, xlabel if xlabel is not None else " / ".join(groups), ylabel, title)
        _legend(ax, series)
    return fig


# ------------------------------------------------------------------ curves

#: Dash patterns of overlaid model curves, in order.
OVERLAY_DASHES: list[Any] = ["--", ":", "-.", (0, (5, 1, 1, 1, 1, 1))]


def _overlay(
    axes: Sequence[Axes],
    overlay: Mapping[str, tuple[Sequence[float], Sequence[float]]] | None,
) -> None:
    """Draw each overlay curve, label -> (xs, ys), as a thin black line in its
    own dash pattern on every one of ``axes`` (labelled on the first only)."""
    for k, (label, (mx, my)) in enumerate((overlay or {}).items()):
        for i, ax in enumerate(axes):
            ax.plot(
                [float(v) for v in mx],
                [float(v) for v in my],
                color="#222222",
                linewidth=1.0,
                linestyle=OVERLAY_DASHES[k % len(OVERLAY_DASHES)],
                label=label if i == 0 else None,
            )


def curves(
    df: pl.DataFrame,
    x: str,
    y: str,
    series: str | None = None,
    err: str | None = None,
    *,
    overlay: Mapping[str, tuple[Sequence[float], Sequence[float]]] | None = None,
    scale: float = 1.0,
    lines: bool = True,
    logx: bool = False,
    logy: bool = False,
    xlabel: str | None = None,
    ylabel: str | None = None,
    title: str | None = None,
    gap: float | None = None,
) -> Figure:
    """``y`` (times ``scale``) against a numeric ``x``: one line with markers
    per value of ``series`` (in order of first appearance, sorted by ``x``),
    with error bars of half-length ``err`` (times ``scale``) where finite;
    and each ``overlay`` curve, label -> (xs, ys) in the units of the plot
    (``y`` already scaled), drawn as a thin black line in its own dash
    pattern: a model's prediction beside the simulated points. ``lines``
    False draws the points alone (a scatter: one point per run). ``gap``:
    no line between two neighbouring points whose ``x`` differ by more than
    this factor (an unsampled stretch of a logarithmic axis is not drawn as
    if it had been measured).
    """
    import polars as pl

    _check_columns(df, x, y, series, err)
    keys: list[Any] = (
        df[series].unique(maintain_order=True).to_list() if series is not None else [None]
    )
    with _style():
        fig, (ax,) = _figure()
        for j, key in enumerate(keys):
            part = df if series is None else df.filter(pl.col(series) == key)
            part = part.sort(x, maintain_order=True)
            xs = [_float(v) for v in part[x].to_list()]
            ys = [_float(v) * scale for v in part[y].to_list()]
            lx, ly = xs, ys
            if gap is not None and len(xs) > 1:
                # A NaN between two points breaks the line there.
                lx, ly = [xs[0]], [ys[0]]
                for a, b, yb in zip(xs, xs[1:], ys[1:]):
                    if a > 0 and b / a > gap:
                        lx.append(math.nan)
                        ly.append(math.nan)
                    lx.append(b)
                    ly.append(yb)
            ax.plot(
                lx,
                ly,
                color=_colour(j),
                linestyle=_linestyle(j) if lines else "none",
                marker="o",
                markersize=4,
                label=_label(key) if series is not None else None,
            )
            if err is not None:
                es = [abs(_float(v) * scale) for v in part[err].to_list()]
                pts = [(a, b, e) for a, b, e in zip(xs, ys, es) if _finite(e)]
                if pts:
                    ax.errorbar(
                        [p[0] for p in pts],
                        [p[1] for p in pts],
                        yerr=[p[2] for p in pts],
                        fmt="none",
                        ecolor=_colour(j),
                        elinewidth=1.0,
                        capsize=3,
                        capthick=1.0,
                    )
        _overlay([ax], overlay)
        if logx:
            ax.set_xscale("log")
            _log_axis(ax.xaxis)
        if logy:
            ax.set_yscale("log")
            _log_axis(ax.yaxis)
        _decorate(ax, xlabel if xlabel is not None else x, ylabel, title)
        _legend(ax, series)
    return fig


# --------------------------------------------------------------- time series


def time_series(
    df: pl.DataFrame,
    x: str,
    y: str,
    by: str | None = None,
    *,
    x_end: str | None = None,
    scale: float = 1.0,
    step: bool = True,
    separate: bool = False,
    overlay: Mapping[str, tuple[Sequence[float], Sequence[float]]] | None = None,
    xlabel: str | None = None,
    ylabel: str | None = None,
    title: str | None = None,
    downsample: bool = True,
) -> Figure:
    """``y`` (times ``scale``) against ``x``, one line per value of ``by``
    (in order of first appearance), sorted by ``x``.

    ``step`` draws each sample as holding until the next one (the right shape
    for sampled state: a queue, a window). With ``x_end`` each row is an
    interval ``[x, x_end)`` with a constant value (goodput per phase) and the
    last one is drawn to its end. ``separate`` gives each line its own panel,
    stacked, sharing the x axis (the "pendulum" of two queues reads better so).
    ``overlay`` curves, label -> (xs, ys) in the plot's units, are drawn as
    thin black dashed lines on every panel (a model's value beside a trace).

    A long line is drawn through the points M4 keeps for each pixel column
    of the image (the module's docstring says how, and why it looks the
    same); ``downsample=False`` draws every point.
    """
    import numpy as np
    import polars as pl

    _check_columns(df, x, y, by, x_end)
    # Only the columns drawn are filtered and sorted (a trace has a dozen more).
    df = df.select(list(dict.fromkeys(c for c in (x, y, by, x_end) if c is not None)))
    keys: list[Any] = df[by].unique(maintain_order=True).to_list() if by is not None else [None]
    n_panels = len(keys) if separate and by is not None else 1
    height = HEIGHT if n_panels == 1 else 0.6 + 1.5 * n_panels
    with _style():
        fig, axes = _figure(n_panels, height=height)
        for j, key in enumerate(keys):
            part = df if by is None else df.filter(pl.col(by) == key)
            part = part.sort(x, maintain_order=True)
            # Columns as float arrays (a null is NaN), no Python float per point.
            xs = part[x].cast(pl.Float64).to_numpy()
            ys = part[y].cast(pl.Float64).to_numpy() * scale
            if x_end is not None and xs.size:
                xs = np.append(xs, float(part[x_end][-1]))
                ys = np.append(ys, ys[-1])
            ax = axes[j] if n_panels > 1 else axes[0]
            _line(
                ax,
                xs,
                ys,
                downsample=downsample,
                drawstyle="steps-post" if step or x_end is not None else "default",
                color=_colour(j),
                linestyle=_linestyle(j),
                label=_label(key) if by is not None else None,
            )
            if n_panels > 1:
                ax.set_title(_label(key), loc="left", fontsize=9)
                _decorate(ax, None, ylabel, None)
        _overlay(axes, overlay)
        if n_panels == 1:
            _decorate(axes[0], None, ylabel, title)
            _legend(axes[0], by)
        elif title:
            fig.suptitle(title, x=0.0, horizontalalignment="left", fontsize=11)
        axes[-1].set_xlabel(xlabel if xlabel is not None else x)
    return fig


# ---------------------------------------------------------------------- CDF


def cdf(
    values_by_label: Mapping[str, Sequence[float]],
    *,
    scale: float = 1.0,
    log_x: bool = False,
    xlabel: str | None = None,
    ylabel: str = "fraction at or below",
    title: str | None = None,
    downsample: bool = True,
) -> Figure:
    """Empirical CDFs, one line per label: F(v) = (number of values <= v) / n,
    a step up at each value (times ``scale``), from 0 below the smallest to 1
    at the largest. NaN and missing values are left out; the legend gives n.
    A CDF of very many values is downsampled as ``time_series`` says."""
    import numpy as np

    with _style():
        fig, (ax,) = _figure()
        for j, (label, values) in enumerate(values_by_label.items()):
            a = np.asarray(values, dtype=float) * scale  # None is NaN
            v = np.sort(a[np.isfinite(a)])
            if not v.size:
                continue
            n = v.size
            xs = np.concatenate([v[:1], v])
            ys = np.arange(n + 1) / n
            _line(
                ax,
                xs,
                ys,
                downsample=downsample,
                drawstyle="steps-post",
                color=_colour(j),
                linestyle=_linestyle(j),
                label=f"{label} (n = {n})",
            )
        if log_x:
            ax.set_xscale("log")
            _log_axis(ax.xaxis)
        ax.set_ylim(0.0, 1.02)
        _decorate(ax, xlabel, ylabel, title)
        _legend(ax)
    return fig


# --------------------------------------------------------- response vs size


def response_vs_size(
    binned_by_label: Mapping[str, pl.DataFrame],
    *,
    stat: str = "mean",
    size_scale: float = 1.0,
    xlabel: str = "transfer size (bytes)",
    ylabel: str = "response time (s)",
    title: str | None = None,
) -> Figure:
    """Response time against transfer size on log-log axes, one line per
    label, from ``analysis.response_times_by_size`` tables: each bin is drawn
    at the geometric centre sqrt(lo * hi) of its edges (times ``size_scale``).

    ``stat`` is "mean" (with its 95 % confidence interval as error bars, where
    the bin has two or more transfers), "median" or "p95" (no error bars)."""
    columns = {"mean": "mean_s", "median": "median_s", "p95": "p95_s"}
    if stat not in columns:
        raise ValueError(f"stat: {stat!r}; allowed: {', '.join(columns)}")
    with _style():
        fig, (ax,) = _figure()
        for j, (label, df) in enumerate(binned_by_label.items()):
            _check_columns(df, "size_lo", "size_hi", columns[stat])
            if df.height == 0:
                continue
            xs = [
                math.sqrt(float(lo) * float(hi)) * size_scale
                for lo, hi in zip(df["size_lo"], df["size_hi"])
            ]
            ys = [float(v) for v in df[columns[stat]]]
            ax.plot(
                xs,
                ys,
                marker="o",
                markersize=4,
                color=_colour(j),
                linestyle=_linestyle(j),
                label=str(label),
            )
            if stat == "mean" and "ci95_s" in df.columns:
                bars = [(x, y, e) for x, y, e in zip(xs, ys, df["ci95_s"]) if _finite(e)]
                if bars:
                    ax.errorbar(
                        [b[0] for b in bars],
                        [b[1] for b in bars],
                        yerr=[float(b[2]) for b in bars],
                        fmt="none",
                        ecolor=_colour(j),
                        elinewidth=1.0,
                        capsize=3,
                    )
        ax.set_xscale("log")
        ax.set_yscale("log")
        _log_axis(ax.xaxis)
        _log_axis(ax.yaxis)
        ax.grid(True, which="minor", axis="both", linewidth=0.3)
        label_stat = {"mean": "mean ± 95 % CI", "median": "median", "p95": "95th percentile"}
        _decorate(ax, xlabel, f"{ylabel}, {label_stat[stat]}", title)
        _legend(ax)
    return fig


# ------------------------------------------------------------------ heat map


def heatmap(
    df: pl.DataFrame,
    x: str,
    y: str,
    value: str,
    *,
    scale: float = 1.0,
    fmt: str = ".3g",
    annotate: bool = True,
    cmap: str = "viridis",
    vmin: float | None = None,
    vmax: float | None = None,
    xlabel: str | None = None,
    ylabel: str | None = None,
    clabel: str | None = None,
    title: str | None = None,
) -> Figure:
    """A cell per (``x``, ``y``) pair coloured by ``value`` (times ``scale``),
    its value written in it (``fmt``). x values run left to right, y values
    bottom to top, each in order of first appearance; a missing pair is a grey
    cell, two rows for one pair are an error. ``viridis`` reads in grey too."""
    import numpy as np

    _check_columns(df, x, y, value)
    xs: list[Any] = df[x].unique(maintain_order=True).to_list()
    ys: list[Any] = df[y].unique(maintain_order=True).to_list()
    grid = np.full((len(ys), len(xs)), np.nan)
    seen: set[tuple[int, int]] = set()
    for xv, yv, v in zip(df[x], df[y], df[value]):
        cell = (ys.index(yv), xs.index(xv))
        if cell in seen:
            raise ValueError(f"heatmap: two rows for {x} = {xv!r}, {y} = {yv!r}")
        seen.add(cell)
        grid[cell] = _float(v) * scale
    masked = np.ma.masked_invalid(grid)
    width = max(4.0, 2.4 + 0.9 * len(xs))
    height = max(3.0, 1.4 + 0.6 * len(ys))
    with _style():
        import matplotlib as mpl

        fig, (ax,) = _figure(width=width, height=height)
        cm = mpl.colormaps[cmap].with_extremes(bad="#e0e0e0")
        im = ax.imshow(masked, cmap=cm, vmin=vmin, vmax=vmax, origin="lower", aspect="auto")
        ax.set_xticks(range(len(xs)), [_label(v) for v in xs])
        ax.set_yticks(range(len(ys)), [_label(v) for v in ys])
        ax.grid(False)
        for side in ("top", "right"):
            ax.spines[side].set_visible(True)
        if annotate:
            for (i, k), v in np.ndenumerate(grid):
                if not math.isfinite(v):
                    continue
                r, g, b, _ = cm(im.norm(v))
                dark = 0.299 * r + 0.587 * g + 0.114 * b < 0.5
                ax.text(
                    k,
                    i,
                    format(v, fmt),
                    ha="center",
                    va="center",
                    fontsize=9,
                    color="white" if dark else "black",
                )
        cbar = fig.colorbar(im, ax=ax)
        if clabel:
            cbar.set_label(clabel)
        _decorate(
            ax,
            xlabel if xlabel is not None else x,
            ylabel if ylabel is not None else y,
            title,
        )
    return fig


# ------------------------------------------------------------------- saving


def save(fig: Figure, path_stem: str | os.PathLike[str], *, dpi: int = 200) -> list[Path]:
    """Write ``<path_stem>.png`` (``dpi``) and ``<path_stem>.svg`` (text as
    paths: it looks the same without the font; no date, so the same figure
    gives the same bytes) atomically, creating the directory; returns both paths."""
    from tcplab.results import _write_atomic

    stem = Path(path_stem)
    stem.parent.mkdir(parents=True, exist_ok=True)
    out = []
    for ext in ("png", "svg"):
        path = stem.with_name(f"{stem.name}.{ext}")
        _write_atomic(path, functools.partial(_savefig, fig, fmt=ext, dpi=dpi))
        out.append(path)
    return out


def _savefig(fig: Figure, path: Path | BinaryIO, fmt: str, dpi: int = 200) -> None:
    """``fig.savefig`` with reproducible metadata, to a path or a binary file."""
    import matplotlib as mpl

    meta: dict[str, Any] = {"Date": None} if fmt == "svg" else {"Software": None}
    with mpl.rc_context({"svg.hashsalt": "tcplab", "svg.fonttype": "path"}):
        fig.savefig(path, format=fmt, dpi=dpi, metadata=meta)


def encoded_figure(payload: bytes, fmt: str) -> str:
    """A pickled figure drawn as ``fmt`` at 150 dpi, base64-encoded: what
    ``Report.add_figure`` embeds, computed in a ``report.figure_pool`` worker."""
    import base64
    import io
    import pickle

    fig = pickle.loads(payload)  # this process's parent's own figure
    buf = io.BytesIO()
    _savefig(fig, buf, fmt, dpi=150)
    return base64.b64encode(buf.getvalue()).decode("ascii")
