"""mascolo2006: Mascolo & Vacirca, PFLDnet 2006, the effect of reverse traffic
on the new high-speed TCP variants.

Parts (files in ``data/mascolo2006/``): scenario A (on-off reverse traffic), B
(A plus web traffic both ways), each for every variant at RTT 40 and 160 ms;
C (unequal RTTs, flows starting and stopping); and one traced run per point of
B and C for the congestion-window figures. Every part sweeps the host profile
too: ``ns2`` (the paper's simulator) and ``linux`` (the same algorithms on the
Linux stack model), so the report shows how much the stack model matters.

The report has the paper's Figures 2-16 and Tables I-II: goodput of A and B
per phase, retransmission probability per phase, timeouts per phase, cwnd
traces, and scenario C's goodputs with their fairness ratios.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tcplab.studies import Citation, Part, Study

if TYPE_CHECKING:
    import polars as pl

    from tcplab.report import Report

__all__ = [
    "STUDY",
    "fairness",
    "phase_means",
    "phases",
    "timeouts_table",
]

#: The sweep axes of the study files, as they appear as table columns.
VARIANT, RTT, PROFILE = "defaults.host", "link[0]", "defaults.host.profile"
#: The paper's variants, in its order (CUBIC last: the paper names it only).
VARIANTS = ("SACK", "HSTCP", "H-TCP", "BIC", "STCP", "Westwood+", "FAST", "CUBIC")
PROFILES = ("ns2", "linux")
RTTS = ("RTT 40 ms", "RTT 160 ms")
#: The phase in which C and D send: scenarios A and B (0-333-666-1000 s), C
#: (0-250-333-666-750-1000 s).
AB_REVERSE, C_REVERSE = 1, 2

PAPER = Citation(
    authors="Saverio Mascolo and Francesco Vacirca",
    title="The effect of reverse traffic on the performance of new TCP congestion "
    "control algorithms",
    venue="4th International Workshop on Protocols for Fast Long-Distance Networks "
    "(PFLDnet 2006), Nara, Japan",
    year=2006,
    note="workshop proceedings, no DOI",
)


def _scaled(times: Mapping[str, float], factor: float) -> dict[str, str]:
    return {k: f"{v * factor:g}s" for k, v in times.items()}


# The quick version keeps every point and phase, at 15 % of the time.
QUICK = 0.15
_AB_TIMES = {"flow[C].start": 333, "flow[C].stop": 666, "flow[D].start": 333, "flow[D].stop": 666}
_AB_QUICK: dict[str, Any] = {
    "duration": f"{1000 * QUICK:g}s",
    "measure.phases": [f"{333 * QUICK:g}s", f"{666 * QUICK:g}s"],
    **_scaled(_AB_TIMES, QUICK),
}
_C_QUICK: dict[str, Any] = {
    "duration": f"{1000 * QUICK:g}s",
    "measure.phases": [f"{t * QUICK:g}s" for t in (250, 333, 666, 750)],
    **_scaled(_AB_TIMES, QUICK),
    **_scaled({"flow[B].stop": 750, "flow[F].stop": 750}, QUICK),
    "flow[E].start": {"uniform": [f"{250 * QUICK:g}s", f"{260 * QUICK:g}s"]},
    "flow[F].start": {"uniform": [f"{250 * QUICK:g}s", f"{260 * QUICK:g}s"]},
}
_TRACE = {"trace.cwnd": True, "trace.interval": "100ms"}


# --------------------------------------------------------------------- tables


def phases(out: Path) -> pl.DataFrame:
    """The phases table of one part: a row per run, flow and phase, with
    ``variant``, ``profile`` and (scenarios A and B) ``rtt`` columns, goodput
    in Mb/s and the retransmission probability (retransmitted / sent
    segments) of the flow in the phase."""
    import polars as pl

    from tcplab.sweep import read_table

    df = read_table(out, "phases")
    ren = {VARIANT: "variant", PROFILE: "profile", RTT: "rtt"}
    df = df.rename({k: v for k, v in ren.items() if k in df.columns})
    if "retrans_prob" not in df.columns:
        df = df.with_columns((pl.col("segs_retrans") / pl.col("segs_sent")).alias("retrans_prob"))
    return df.with_columns((pl.col("goodput_bps") / 1e6).alias("goodput_mbps"))


def phase_names(df: pl.DataFrame, reverse: int) -> list[str]:
    """The phases' names from their bounds in ``df`` ("333-666 s"), the one
    with reverse traffic marked."""
    import polars as pl

    b = df.group_by("phase").agg(pl.col("start_s").first(), pl.col("end_s").first()).sort("phase")
    return [
        f"{s:g}-{e:g} s" + (" (reverse on)" if p == reverse else "")
        for p, s, e in b.select("phase", "start_s", "end_s").iter_rows()
    ]


def phase_means(df: pl.DataFrame, keys: Sequence[str], value: str) -> pl.DataFrame:
    """Mean ± 95 % CI of ``value`` over the repetitions, per ``keys``."""
    from tcplab.analysis import describe

    return describe(df, keys, [value])


def _pooled(df: pl.DataFrame, flows: Sequence[str], keys: Sequence[str]) -> pl.DataFrame:
    """Per run and phase, the flows ``flows`` pooled: segments, retransmissions
    and timeouts summed, retransmission probability of the pool."""
    import polars as pl

    return (
        df.filter(pl.col("flow").is_in(list(flows)))
        .group_by([*keys, "rep", "phase"], maintain_order=True)
        .agg(
            pl.col("segs_sent").sum(),
            pl.col("segs_retrans").sum(),
            pl.col("timeouts").sum(),
        )
        .with_columns((pl.col("segs_retrans") / pl.col("segs_sent")).alias("retrans_prob"))
    )


def timeouts_table(df: pl.DataFrame, phase_names: Sequence[str]) -> pl.DataFrame:
    """Tables I and II: timeouts of A and B together per phase, mean (and
    std) over the repetitions, a row per variant, a column per RTT and phase."""
    import polars as pl

    pooled = _pooled(df, ("A", "B"), ("variant", "rtt", "profile"))
    m = phase_means(pooled, ("variant", "rtt", "profile", "phase"), "timeouts")
    m = m.with_columns(
        pl.format(
            "{} ({})",
            pl.col("timeouts_mean").round(1),
            pl.col("timeouts_std").round(1).fill_null(0.0),
        ).alias("cell"),
        (
            pl.col("rtt")
            + ", "
            + pl.col("phase").map_elements(lambda p: phase_names[p], return_dtype=pl.Utf8)
        ).alias("column"),
    )
    return m.pivot(on="column", index=["profile", "variant"], values="cell")


def fairness(df: pl.DataFrame) -> pl.DataFrame:
    """Scenario C (Figures 14-16): per run, the goodput ratio of A to B in the
    first 250 s, of the 80 ms flows to the 40 ms ones (A+B)/(E+F) and Jain's
    index of A, B, E, F between 333 and 666 s, and of A (80 ms) to E (40 ms)
    in the last 250 s; mean ± 95 % CI over the repetitions."""
    import polars as pl

    from tcplab.analysis import describe, jain

    def g(flow: str, phase: int) -> pl.Expr:
        return (
            pl.col("goodput_mbps").filter((pl.col("flow") == flow) & (pl.col("phase") == phase))
        ).first()

    per_run = df.group_by(["variant", "profile", "rep"], maintain_order=True).agg(
        (g("A", 0) / g("B", 0)).alias("A/B first 250 s"),
        ((g("A", 2) + g("B", 2)) / (g("E", 2) + g("F", 2))).alias("(A+B)/(E+F) 333-666 s"),
        pl.concat_list([g(f, 2) for f in "ABEF"])
        .map_elements(lambda v: jain(list(v)), return_dtype=pl.Float64)
        .alias("Jain A,B,E,F 333-666 s"),
        (g("A", 4) / g("E", 4)).alias("A/E last 250 s"),
    )
    cols = [c for c in per_run.columns if c not in ("variant", "profile", "rep")]
    d = describe(per_run, ["variant", "profile"], cols)
    return d.select(
        "variant", "profile", *[f"{c}{s}" for c in cols for s in ("_mean", "_ci95")], "n"
    )


# -------------------------------------------------------------------- figures


def _ordered(df: pl.DataFrame, col: str, order: Sequence[str]) -> pl.DataFrame:
    import polars as pl

    rank = {v: i for i, v in enumerate(order)}
    return df.sort(
        pl.col(col).map_elements(lambda v: rank.get(v, len(rank)), return_dtype=pl.Int64),
        maintain_order=True,
    )


def _phase_label(names: Sequence[str]) -> pl.Expr:
    import polars as pl

    return (
        pl.col("phase").map_elements(lambda p: names[p], return_dtype=pl.Utf8).alias("phase_name")
    )


def _paper(ref: str, profile: str) -> str:
    """ "The paper's Figure 2", or the same on another profile than the paper's."""
    return f"The paper's {ref}" + (
        "" if profile == "ns2" else f" on the {profile} profile (not in the paper)"
    )


def _variant_bars(
    rep: Report,
    d: pl.DataFrame,
    *,
    series: str,
    value: str,
    ylabel: str,
    title: str,
    caption: str,
    scale: float = 1.0,
) -> None:
    """Bars of ``value``_mean ± ``value``_ci95 per variant and ``series``."""
    from tcplab import figures

    fig = figures.grouped_bars(
        d,
        group="variant",
        series=series,
        value=f"{value}_mean",
        err=f"{value}_ci95",
        scale=scale,
        xlabel="variant",
        ylabel=ylabel,
        title=title,
    )
    rep.add_figure(fig, caption)


def _pm(col: str, digits: int, scale: float = 1.0) -> pl.Expr:
    """ "mean ± ci95" of ``col`` as text."""
    import polars as pl

    return pl.format(
        "{} ± {}",
        (pl.col(f"{col}_mean") * scale).round(digits),
        (pl.col(f"{col}_ci95") * scale).round(digits),
    )


def _ab_section(rep: Report, out: Path, scen: str, figs: tuple[int, int], table: str) -> None:
    """Goodput (Figure figs[0]), retransmission probability (figs[1]) and
    timeouts (Table ``table``) of scenario ``scen`` (A or B)."""
    import polars as pl

    df = phases(out / scen)
    if df.height == 0:
        rep.add_text(f"Scenario {scen}: no finished run.")
        return
    names = phase_names(df, AB_REVERSE)
    g = phase_means(df, ("variant", "rtt", "profile", "flow", "phase"), "goodput_mbps")
    g = _ordered(g.with_columns(_phase_label(names)), "variant", VARIANTS)
    pooled = _pooled(df, ("A", "B"), ("variant", "rtt", "profile"))
    r = phase_means(pooled, ("variant", "rtt", "profile", "phase"), "retrans_prob")
    r = _ordered(r.with_columns(_phase_label(names)), "variant", VARIANTS)
    for profile in PROFILES:
        for rtt in RTTS:
            for flow in ("A", "B"):
                d = g.filter(
                    (pl.col("profile") == profile)
                    & (pl.col("rtt") == rtt)
                    & (pl.col("flow") == flow)
                )
                if d.height > 0:
                    _variant_bars(
                        rep,
                        d,
                        series="phase_name",
                        value="goodput_mbps",
                        ylabel="goodput (Mb/s)",
                        title=f"Scenario {scen}, {rtt}, flow {flow}, {profile} profile",
                        caption=f"{_paper(f'Figure {figs[0]}', profile)}: goodput of {flow} in "
                        f"each phase, scenario {scen}, {rtt}; mean and 95 % CI over "
                        f"{int(d['n'].max())} runs.",  # type: ignore[arg-type]
                    )
        for rtt in RTTS:
            d = r.filter((pl.col("profile") == profile) & (pl.col("rtt") == rtt))
            if d.height > 0:
                _variant_bars(
                    rep,
                    d,
                    series="phase_name",
                    value="retrans_prob",
                    ylabel="retransmitted / sent (%)",
                    title=f"Scenario {scen}, {rtt}, {profile} profile",
                    caption=f"{_paper(f'Figure {figs[1]}', profile)}: retransmission "
                    "probability of A and B together (segments retransmitted / segments "
                    f"sent in the phase), scenario {scen}, {rtt}; mean and 95 % CI over the runs.",
                    scale=100.0,
                )
    rep.add_table(
        _ordered(timeouts_table(df, names), "variant", VARIANTS),
        f"The paper's Table {table}: timeouts of A and B together per phase, scenario "
        f"{scen}; mean (std) over the runs. The linux rows are not in the paper.",
    )
    # Every figure's numbers, ns2 and linux side by side.
    side = g.with_columns(
        _pm("goodput_mbps", 1).alias("cell"),
        (pl.col("flow") + ", " + pl.col("phase_name") + ", " + pl.col("profile")).alias("column"),
    ).pivot(on="column", index=["rtt", "variant"], values="cell")
    rep.add_table(
        side,
        f"Goodput (Mb/s, mean ± 95 % CI) of A and B per phase, scenario {scen}: the "
        "numbers of the goodput figures, ns2 and linux side by side.",
    )
    side_r = r.with_columns(
        _pm("retrans_prob", 3, 100.0).alias("cell"),
        (pl.col("phase_name") + ", " + pl.col("profile")).alias("column"),
    ).pivot(on="column", index=["rtt", "variant"], values="cell")
    rep.add_table(
        side_r,
        f"Retransmission probability (%, mean ± 95 % CI) of A and B per phase, scenario "
        f"{scen}: the numbers of the retransmission figures, ns2 and linux side by side.",
    )


def _cwnd_figures(rep: Report, out: Path, flows: Sequence[str], caption: str, by_rtt: bool) -> None:
    import polars as pl

    from tcplab import figures
    from tcplab.sweep import read_table

    if not (out / "sweep.json").exists():
        return
    tr = read_table(out, "cwnd")
    if tr.height == 0:
        rep.add_text("No cwnd trace was recorded.")
        return
    tr = tr.rename(
        {
            k: v
            for k, v in {VARIANT: "variant", PROFILE: "profile", RTT: "rtt"}.items()
            if k in tr.columns
        }
    )
    # The legend says "flow": the trace's flow_name, not its index.
    tr = (
        tr.filter(pl.col("flow_name").is_in(list(flows)))
        .drop("flow")
        .rename({"flow_name": "flow"})
        .sort(["flow", "time_s"])  # the legend in the flows' order
    )
    for variant in VARIANTS:
        for profile in PROFILES:
            for rtt in RTTS if by_rtt else (None,):
                d = tr.filter((pl.col("variant") == variant) & (pl.col("profile") == profile))
                if rtt is not None:
                    d = d.filter(pl.col("rtt") == rtt)
                if d.height == 0:
                    continue
                where = f"{variant}, {profile} profile" + (f", {rtt}" if rtt else "")
                fig = figures.time_series(
                    d,
                    x="time_s",
                    y="cwnd",
                    by="flow",
                    xlabel="time (s)",
                    ylabel="cwnd (segments)",
                    title=f"cwnd: {where}",
                )
                rep.add_figure(fig, f"{caption}: {where}; one run (repetition 0).", fmt="png")


def _c_section(rep: Report, out: Path) -> None:
    import polars as pl

    df = phases(out / "C")
    if df.height == 0:
        rep.add_text("Scenario C: no finished run.")
        return
    g = phase_means(df, ("variant", "profile", "flow", "phase"), "goodput_mbps")
    g = _ordered(g, "variant", VARIANTS)
    for fig_no, phase, flows, span in (
        (14, 0, ("A", "B"), "the first 250 s"),
        (15, 2, ("A", "B", "E", "F"), "333-666 s (reverse traffic on)"),
        (16, 4, ("A", "E"), "the last 250 s"),
    ):
        for profile in PROFILES:
            d = g.filter(
                (pl.col("profile") == profile)
                & (pl.col("phase") == phase)
                & pl.col("flow").is_in(list(flows))
            )
            if d.height > 0:
                _variant_bars(
                    rep,
                    d,
                    series="flow",
                    value="goodput_mbps",
                    ylabel="goodput (Mb/s)",
                    title=f"Scenario C, {span}, {profile} profile",
                    caption=f"{_paper(f'Figure {fig_no}', profile)}: goodput of "
                    f"{', '.join(flows)} in {span}; A, B (and C, D) have an RTT of 80 ms, "
                    "E and F of 40 ms; mean and 95 % CI over the runs.",
                )
    fair = _ordered(fairness(df), "variant", VARIANTS)
    cols = [c[: -len("_mean")] for c in fair.columns if c.endswith("_mean")]
    cells = fair.select(
        "variant",
        "profile",
        *[_pm(c, 2).alias(c) for c in cols],
        "n",
    )
    rep.add_table(
        cells,
        "Fairness in scenario C (Figures 14-16): goodput ratios and Jain's index, "
        "mean ± 95 % CI over the runs. A/B = 1 is fair between equal RTTs; "
        "A/E < 1 means the 80 ms flow gets less than the 40 ms one.",
    )
    side = (
        g.with_columns(
            _phase_label(phase_names(df, C_REVERSE)),
        )
        .with_columns(
            _pm("goodput_mbps", 1).alias("cell"),
            (pl.col("flow") + ", " + pl.col("profile")).alias("column"),
        )
        .pivot(on="column", index=["phase_name", "variant"], values="cell")
    )
    rep.add_table(
        side,
        "Goodput (Mb/s, mean ± 95 % CI) of every forward flow per phase of scenario C, "
        "ns2 and linux side by side (a flow that has not started or has stopped shows 0).",
    )


def _report(out: Path, quick: bool) -> Path:
    from tcplab.reproduce import finish_report, start_report

    rep = start_report(
        STUDY,
        quick,
        "Two greedy flows A and B share a 250 Mb/s bottleneck whose buffer is one "
        "bandwidth-delay product; from 333 s to 666 s two flows C and D send the other "
        "way, so that A and B's ACKs queue behind data. Scenario B adds web traffic both "
        "ways, scenario C flows with unequal RTTs. Every variant runs on the ns2 "
        "profile (ns-2's TCP agents, as in the paper) and, as a second series that "
        "the paper does not have, on the linux profile.",
    )
    phase_note = (
        "Three phases: before, during and after the reverse traffic (0-333, 333-666, "
        "666-1000 s" + (", scaled by 0.15 in this quick version)." if quick else ").")
    )
    rep.add_section("Scenario A: reverse traffic, no web traffic", phase_note)
    _ab_section(rep, out, "A", (2, 3), "I")
    rep.add_section("Scenario B: reverse traffic and web traffic", phase_note)
    _ab_section(rep, out, "B", (4, 5), "II")
    rep.add_section("Scenario B: congestion windows (Figures 6-12)")
    _cwnd_figures(
        rep,
        out / "B-traces",
        ("A", "B"),
        "The paper's Figures 6-12 (one per variant; CUBIC is not in the paper): cwnd of A "
        "and B in scenario B",
        by_rtt=True,
    )
    rep.add_section("Scenario C: unequal RTTs (Figures 13-16)")
    _cwnd_figures(
        rep,
        out / "C-traces",
        ("A", "B", "E", "F"),
        "The paper's Figure 13: cwnd of A, B (RTT 80 ms), E and F (RTT 40 ms) in scenario C",
        by_rtt=False,
    )
    _c_section(rep, out)
    return finish_report(rep, out)


STUDY = Study(
    name="mascolo2006",
    title="The effect of reverse traffic on the new high-speed TCP variants",
    paper=PAPER,
    parts=(
        Part("A", "a.toml", quick=_AB_QUICK, quick_repetitions=1),
        Part("B", "b.toml", quick=_AB_QUICK, quick_repetitions=1),
        Part("C", "c.toml", quick=_C_QUICK, quick_repetitions=1),
        Part("B-traces", "b.toml", overrides=_TRACE, repetitions=1, quick=_AB_QUICK),
        Part("C-traces", "c.toml", overrides=_TRACE, repetitions=1, quick=_C_QUICK),
    ),
    report=_report,
    quick_note="one run per point, 150 s instead of 1000 s with every time scaled by 0.15",
)
