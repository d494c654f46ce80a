"""Summaries researchers compute from the result tables: Jain's fairness index,
goodput ratios, response times by size bin with confidence intervals.

These are statistics over the rows the core produced (flows, phases,
transfers); nothing here re-simulates or re-measures. Confidence intervals of
a mean use Student's t at 95 % (two-sided).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import polars as pl

__all__ = [
    "describe",
    "jain",
    "log_edges",
    "mean_ci",
    "nearest_rank",
    "response_times_by_size",
    "t95",
]

# Two-sided 95 % quantiles of Student's t, df = 1..30 (Abramowitz & Stegun,
# table 26.10); beyond 30 the normal 1.96 is within 2 %.
_T95 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)  # fmt: skip


def t95(df: int) -> float:
    """The two-sided 95 % quantile of Student's t with ``df`` degrees of freedom."""
    if df < 1:
        return math.nan
    return _T95[df - 1] if df <= len(_T95) else 1.96


def jain(values: Sequence[float]) -> float:
    """Jain's fairness index (sum x)^2 / (n sum x^2): 1 when all are equal, 1/n
    when one takes everything. NaN for no values or all zero."""
    xs = [float(v) for v in values]
    sq = sum(x * x for x in xs)
    if not xs or sq == 0.0:
        return math.nan
    return sum(xs) ** 2 / (len(xs) * sq)


#: A flow is starved when its goodput is below this fraction of an equal
#: share of its run's total (with four flows on 19 Mb/s: below 1.43 Mb/s).
STARVED_FRACTION = 0.3


def starved(values: Sequence[float], fraction: float = STARVED_FRACTION) -> bool:
    """Whether the smallest value is below ``fraction`` of an equal share of
    their sum (sum / n): one flow left with little of what the others share.
    False for fewer than two values or a zero sum."""
    xs = [float(v) for v in values]
    total = sum(xs)
    if len(xs) < 2 or total <= 0.0:
        return False
    return min(xs) < fraction * total / len(xs)


def mean_ci(values: Sequence[float]) -> tuple[float, float]:
    """(mean, half-width of its 95 % confidence interval); the half-width is NaN
    below two values."""
    xs = [float(v) for v in values if not math.isnan(float(v))]
    n = len(xs)
    if n == 0:
        return math.nan, math.nan
    m = sum(xs) / n
    if n < 2:
        return m, math.nan
    var = sum((x - m) ** 2 for x in xs) / (n - 1)
    return m, t95(n - 1) * math.sqrt(var / n)


def describe(df: pl.DataFrame, keys: Sequence[str], cols: Sequence[str]) -> pl.DataFrame:
    """Per group of ``keys`` (in order of first appearance): ``n`` (rows) and,
    for each of ``cols``, ``<col>_mean``, ``<col>_std``, ``<col>_n`` (rows
    with a value: NaN and nulls are left out) and ``<col>_ci95``, the
    half-width of the mean's 95 % confidence interval (Student t; null below
    two values). The statistics of ``mean_ci``, column-wise."""
    import polars as pl  # noqa: PLC0415  (lazy: ``import tcplab`` stays fast)

    df = df.with_columns([pl.col(c).cast(pl.Float64).fill_nan(None) for c in cols])
    agg = [pl.len().alias("n")]
    for c in cols:
        agg += [
            pl.col(c).mean().alias(f"{c}_mean"),
            pl.col(c).std().alias(f"{c}_std"),
            pl.col(c).count().alias(f"{c}_n"),
        ]
    g = df.group_by(list(keys), maintain_order=True).agg(agg)
    ci = []
    for c in cols:
        n = g[f"{c}_n"].to_list()
        t = pl.Series([t95(k - 1) if k > 1 else None for k in n], dtype=pl.Float64)
        ci.append((t * g[f"{c}_std"] / g[f"{c}_n"].cast(pl.Float64).sqrt()).alias(f"{c}_ci95"))
    return g.with_columns(ci) if ci else g


def nearest_rank(sorted_values: Sequence[float], p: float) -> float:
    """The smallest value with at least p % of the values at or below it."""
    return sorted_values[max(1, math.ceil(p / 100 * len(sorted_values))) - 1]


def log_edges(values: Sequence[float], per_decade: int = 4) -> list[float]:
    """Logarithmic bin edges 10^(k/per_decade) covering ``values`` (all > 0):
    from the edge at or below the smallest to the first edge above the largest."""
    lo = math.floor(math.log10(min(values)) * per_decade)
    hi = math.floor(math.log10(max(values)) * per_decade) + 1
    return [10 ** (k / per_decade) for k in range(lo, hi + 1)]


def response_times_by_size(
    transfers: pl.DataFrame, edges: Sequence[float] | None = None, per_decade: int = 4
) -> pl.DataFrame:
    """Response times of completed transfers binned by size (bytes): one row per
    non-empty bin ``[lo, hi)`` with count, mean and its 95 % CI half-width,
    median and p95 (nearest rank). ``edges`` default to ``per_decade``
    logarithmic bins covering the sizes."""
    import polars as pl  # noqa: PLC0415  (lazy: ``import tcplab`` stays fast)

    done = transfers.filter(pl.col("completed"))
    if done.height == 0:
        return pl.DataFrame(
            schema={
                "size_lo": pl.Float64,
                "size_hi": pl.Float64,
                "count": pl.Int64,
                "mean_s": pl.Float64,
                "ci95_s": pl.Float64,
                "median_s": pl.Float64,
                "p95_s": pl.Float64,
            }
        )
    sizes = done["size_bytes"].cast(pl.Float64).to_list()
    if edges is None:
        edges = log_edges(sizes, per_decade)
    rows = []
    fct = done["fct_s"].to_list()
    for a, b in zip(edges[:-1], edges[1:]):
        v = sorted(t for s, t in zip(sizes, fct) if a <= s < b)
        if not v:
            continue
        m, ci = mean_ci(v)
        rows.append(
            {
                "size_lo": float(a),
                "size_hi": float(b),
                "count": len(v),
                "mean_s": m,
                "ci95_s": ci,
                "median_s": nearest_rank(v, 50),
                "p95_s": nearest_rank(v, 95),
            }
        )
    return pl.DataFrame(rows)
