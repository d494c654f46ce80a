"""mascolo2006: Mascolo & Vacirca, PFLDnet 2006, the effect of reverse traffic
on the new high-speed TCP variants.

Parts (files in ``data/mascolo2006/``): scenario A (on-off reverse traffic), B
(A plus web traffic both ways), each for every variant at RTT 40 and 160 ms;
C (unequal RTTs, flows starting and stopping); the first repetition of every
point of B and C traces cwnd for the congestion-window figures. Every file
sweeps the host profile too: ``ns2`` (the paper's simulator) and ``linux``
(the same algorithms on the Linux stack model). The parts run the ``ns2``
points of the paper's seven variants, what the paper has results for; CUBIC's
``ns2`` points (the paper names CUBIC only) are the optional parts ``cubic/A``,
``cubic/B`` and ``cubic/C`` (``--part cubic``), and the ``linux`` points the
optional parts ``linux/A``, ``linux/B`` and ``linux/C`` (``--part linux``);
the report then shows them too, so that it says how much the stack model matters.

The report has the paper's Figures 2-16 and Tables I-II: goodput of A and B
per phase, retransmission probability per phase, timeouts per phase, cwnd
traces, and scenario C's goodputs with their fairness ratios.
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tcplab.studies import Citation, Part, Study
from tcplab.studies.claims import Claim

if TYPE_CHECKING:
    import polars as pl

    from tcplab.report import Report

__all__ = [
    "CLAIMS",
    "STUDY",
    "fairness",
    "part_dirs",
    "phase_means",
    "phases",
    "study_phases",
    "timeouts_table",
    "utilisation",
]

#: The sweep axes of the study files, as they appear as table columns.
VARIANT, RTT, PROFILE = "defaults.host", "link[0]", "defaults.host.profile"
#: The paper's variants, in its order (CUBIC last: the paper names it only).
VARIANTS = ("SACK", "HSTCP", "H-TCP", "BIC", "STCP", "Westwood+", "FAST", "CUBIC")
PROFILES = ("ns2", "linux")
#: The group of the optional parts that run the linux profile's points.
LINUX_GROUP = "linux"
#: The variant the paper only names: its ns2 points run when named (--part cubic).
EXTRA_VARIANTS = ("CUBIC",)
#: The group of the optional parts that run those points on the ns2 profile.
CUBIC_GROUP = "cubic"
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


def part_dirs(out: Path, part: str) -> list[Path]:
    """The directories holding ``part``'s runs under the study's output
    ``out``, of those that ran: the ns2 points' (``out/part``, and CUBIC's
    in ``out/cubic/part``) and the linux points' (``out/linux/part``)."""
    from tcplab.sweep import MANIFEST

    dirs = [out / part, out / LINUX_GROUP / part]
    if not _holds_every_variant(out / part):
        dirs.insert(1, out / CUBIC_GROUP / part)
    return [d for d in dirs if (d / MANIFEST).exists()]


def _holds_every_variant(part_dir: Path) -> bool:
    """Whether a part's ns2 runs were made before CUBIC became its own part
    (no selection of variants in its sweep manifest): CUBIC's runs are then
    among them, and a ``cubic/`` directory beside them would count them twice."""
    from tcplab.sweep import MANIFEST

    try:
        overrides = json.loads((part_dir / MANIFEST).read_text(encoding="utf-8"))["overrides"]
    except (OSError, ValueError, KeyError, TypeError):
        return False
    return isinstance(overrides, dict) and f"select:{VARIANT}" not in overrides


def study_phases(out: Path, part: str) -> pl.DataFrame:
    """:func:`phases` of ``part`` over both profiles' runs (:func:`part_dirs`)."""
    import polars as pl

    frames = [f for f in (phases(d) for d in part_dirs(out, part)) if f.height]
    return pl.concat(frames, how="diagonal_relaxed") if frames else pl.DataFrame()


def _both(df: pl.DataFrame) -> bool:
    """Whether ``df`` holds runs of both profiles (the linux ones ran)."""
    return df["profile"].n_unique() > 1


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
    logy: bool = False,
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
        logy=logy,
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

    df = study_phases(out, scen)
    if df.height == 0:
        rep.add_text(f"Scenario {scen}: no finished run.")
        return
    names = phase_names(df, AB_REVERSE)
    g = phase_means(df, ("variant", "rtt", "profile", "flow", "phase"), "goodput_mbps")
    g = _ordered(g.with_columns(_phase_label(names)), "variant", VARIANTS)
    pooled = _pooled(df, ("A", "B"), ("variant", "rtt", "profile"))
    r = phase_means(pooled, ("variant", "rtt", "profile", "phase"), "retrans_prob")
    r = _ordered(r.with_columns(_phase_label(names)), "variant", VARIANTS)
    # The paper's headline: the link's use by A and B on the wire.
    wire = (
        df.filter(pl.col("flow").is_in(["A", "B"]))
        .group_by("variant", "rtt", "profile", "rep", "phase", maintain_order=True)
        .agg((pl.col("goodput_mbps").sum() * 1e6 * WIRE_FACTOR / LINK_BPS * 100).alias("util_pct"))
    )
    u = phase_means(wire, ("variant", "rtt", "profile", "phase"), "util_pct")
    u = _ordered(u.with_columns(_phase_label(names)), "variant", VARIANTS)
    rep.add_text(
        "Phase 1 holds A and B's start (slow start, then the first losses) as well as "
        "their steady state, as the paper's first phase does."
    )
    for profile in PROFILES:
        for rtt in RTTS:
            d = u.filter((pl.col("profile") == profile) & (pl.col("rtt") == rtt))
            if d.height > 0:
                _variant_bars(
                    rep,
                    d,
                    series="phase_name",
                    value="util_pct",
                    ylabel="utilisation by A and B (%)",
                    title=f"Scenario {scen}, {rtt}, {profile} profile",
                    caption=f"{_paper(f'Figure {figs[0]}', profile)}: utilisation of the "
                    "250 Mb/s link by A and B together on the wire (1500-byte packets for "
                    f"1460 bytes of payload), per phase, scenario {scen}, {rtt}; "
                    f"{_over(d)}. The paper's headline metric.",
                )
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
                        f"each phase, scenario {scen}, {rtt}; "
                        f"{_over(d)}.",
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
                    f"sent in the phase), scenario {scen}, {rtt}; {_over(d)}; "
                    "logarithmic axis: the variants differ by decades.",
                    scale=100.0,
                    logy=True,
                )
    rep.add_table(
        _ordered(timeouts_table(df, names), "variant", VARIANTS),
        f"The paper's Table {table}: timeouts of A and B together per phase, scenario "
        f"{scen}; mean (std) over the runs."
        + (" The linux rows are not in the paper." if _both(df) else ""),
    )
    # Every figure's numbers, ns2 and linux side by side.
    side = g.with_columns(
        _pm("goodput_mbps", 1).alias("cell"),
        (pl.col("flow") + ", " + pl.col("phase_name") + ", " + pl.col("profile")).alias("column"),
    ).pivot(on="column", index=["rtt", "variant"], values="cell")
    rep.add_table(
        side,
        f"Goodput (Mb/s, mean ± 95 % CI) of A and B per phase, scenario {scen}: the "
        "numbers of the goodput figures" + (", ns2 and linux side by side." if _both(df) else "."),
    )
    side_r = r.with_columns(
        _pm("retrans_prob", 3, 100.0).alias("cell"),
        (pl.col("phase_name") + ", " + pl.col("profile")).alias("column"),
    ).pivot(on="column", index=["rtt", "variant"], values="cell")
    rep.add_table(
        side_r,
        f"Retransmission probability (%, mean ± 95 % CI) of A and B per phase, scenario "
        f"{scen}: the numbers of the retransmission figures"
        + (", ns2 and linux side by side." if _both(df) else "."),
    )


def flow_stops(out: Path) -> dict[str, float]:
    """Each ``[[flow]]``'s stop time (s) in the scenario a sweep ran
    (``out/sweep.json``), for the flows that stop."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on 3.9/3.10 only
        import tomli as tomllib  # type: ignore[import-not-found,unused-ignore]

    from tcplab import _core

    text = json.loads((out / "sweep.json").read_text(encoding="utf-8"))["scenario_text"]
    return {
        f["name"]: _core.parse_duration(f["stop"])
        for f in tomllib.loads(text).get("flow", [])
        if "name" in f and "stop" in f
    }


def _cwnd_figures(
    rep: Report, dirs: Sequence[Path], flows: Sequence[str], caption: str, by_rtt: bool
) -> None:
    """cwnd figures from the traces in ``dirs``, the part directories that
    ran (:func:`part_dirs`)."""
    import polars as pl

    from tcplab import figures
    from tcplab.sweep import scan_table

    if not dirs:
        return
    out = dirs[0]
    # Only the columns and flows drawn are read (the traces of every
    # variant can be millions of rows).
    scans = [lf for lf in (scan_table(d, "cwnd") for d in dirs) if lf.collect_schema().names()]
    if not scans:
        rep.add_text("No cwnd trace was recorded.")
        return
    lf = pl.concat(scans, how="diagonal_relaxed")
    names = lf.collect_schema().names()
    axes = {
        k: v for k, v in {VARIANT: "variant", PROFILE: "profile", RTT: "rtt"}.items() if k in names
    }
    # A flow's trace ends at its stop: the sender's state afterwards is no
    # window in use, and drawing it flat to the end would look like one.
    stops = flow_stops(out)
    # The legend says "flow": the trace's flow_name, not its index.
    tr = (
        lf.select([*axes, "time_s", "cwnd", "flow_name"])
        .rename(axes)
        .filter(pl.col("flow_name").is_in(list(flows)))
        .filter(
            pl.col("time_s")
            <= pl.col("flow_name").replace_strict(stops, default=math.inf, return_dtype=pl.Float64)
        )
        .rename({"flow_name": "flow"})
        .sort(["flow", "time_s"])  # the legend in the flows' order
        .collect()
    )
    if tr.height == 0:
        rep.add_text(f"No cwnd trace of {', '.join(flows)} was recorded.")
        return
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

    df = study_phases(out, "C")
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
                    f"E and F of 40 ms; {_over(d)}.",
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
        "Goodput (Mb/s, mean ± 95 % CI) of every forward flow per phase of scenario C"
        + (", ns2 and linux side by side" if _both(df) else "")
        + " (a flow that has not started or has stopped shows 0).",
    )


def _over(d: pl.DataFrame) -> str:
    """ "mean and 95 % CI over the 5 runs" (or "one run"), from a frame of
    per-point statistics with their count ``n``."""
    from tcplab.reproduce import over_runs

    return over_runs(int(d["n"].max()) if "n" in d.columns else 1, "runs")  # type: ignore[arg-type]


def _report(out: Path, quick: bool) -> Path:
    from tcplab.reproduce import finish_report, start_report

    rep = start_report(
        STUDY,
        quick,
        "Two greedy flows A and B share a 250 Mb/s bottleneck whose buffer is one "
        "bandwidth-delay product; from 333 s to 666 s two flows C and D send the other "
        "way, so that A and B's ACKs queue behind data. Scenario B adds web traffic both "
        "ways, scenario C flows with unequal RTTs. The paper's seven variants run on "
        "the ns2 profile (ns-2's TCP agents, as in the paper); CUBIC, which the paper "
        "names without results, runs there when the study runs with --part cubic; and "
        "with --part linux every variant runs again on the linux profile, as a second "
        "series that the paper does not have.",
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
        part_dirs(out, "B"),
        ("A", "B"),
        "The paper's Figures 6-12 (one per variant; CUBIC is not in the paper): cwnd of A "
        "and B in scenario B",
        by_rtt=True,
    )
    rep.add_section("Scenario C: unequal RTTs (Figures 13-16)")
    _cwnd_figures(
        rep,
        part_dirs(out, "C"),
        ("A", "B", "E", "F"),
        "The paper's Figure 13: cwnd of A, B (RTT 80 ms), E and F (RTT 40 ms) in scenario C",
        by_rtt=False,
    )
    _c_section(rep, out)
    return finish_report(rep, out)


def _parts(
    profile: str, prefix: str, variants: tuple[str, ...] = VARIANTS, optional: bool = True
) -> tuple[Part, ...]:
    """The three parts on one profile's points of the files (of those
    ``variants``), B and C with the first repetition of every point traced
    (the cwnd figures). Optional parts run only when named; every point
    keeps the seed it has in the whole sweep."""
    sel: dict[str, tuple[str, ...]] = {PROFILE: (profile,)}
    if variants != VARIANTS:
        sel[VARIANT] = variants
    opt: tuple[str, ...] = ("full", "quick") if optional else ()
    return tuple(
        Part(
            f"{prefix}{name}",
            file,
            select=sel,
            optional=opt,
            first_overrides=_TRACE if traced else {},
            quick=quick,
            quick_repetitions=1,
        )
        for name, file, quick, traced in (
            ("A", "a.toml", _AB_QUICK, False),
            ("B", "b.toml", _AB_QUICK, True),
            ("C", "c.toml", _C_QUICK, True),
        )
    )


STUDY = Study(
    name="mascolo2006",
    title="The effect of reverse traffic on the new high-speed TCP variants",
    paper=PAPER,
    # The paper ran ns-2 only, and its results (M1-M14) name seven variants:
    # those points run by default. CUBIC (named by the paper, in none of its
    # figures or tables: an eighth of the runs) and the linux profile's points
    # run when named (--part cubic, --part linux).
    parts=(
        *_parts("ns2", "", tuple(v for v in VARIANTS if v not in EXTRA_VARIANTS), False),
        *_parts("ns2", f"{CUBIC_GROUP}/", EXTRA_VARIANTS),
        *_parts("linux", f"{LINUX_GROUP}/"),
    ),
    report=_report,
    quick_note="one run per point, 150 s instead of 1000 s with every time scaled by 0.15",
)


# ------------------------------------------------- the paper's published results
#
# ../shared/papers/mascolo2006.md, M1-M14, each with the criterion that judges a
# set of runs (a frame of phase rows, see tcplab.studies.claims) on the `ns2`
# profile. Utilisation is that of the 250 Mb/s link by A and B counted on the
# wire (1500-byte packets for 1460 bytes of payload: the paper's "above 98 %"
# exceeds the payload's ceiling of 97.3 %).

LINK_BPS = 250e6
WIRE_FACTOR = 1500 / 1460
#: Table I (scenario A) and Table II (scenario B): timeouts of A and B in
#: phases 1/2/3, at RTT 40 ms and 160 ms, as published.
TABLE_I = {
    "SACK": ((0, 1, 0), (0, 0, 0)),
    "HSTCP": ((0, 15, 0), (0, 4, 0)),
    "H-TCP": ((0, 26, 0), (0, 7, 0)),
    "BIC": ((1, 19, 0), (0, 3, 0)),
    "STCP": ((0, 45, 0), (0, 10, 0)),
    "Westwood+": ((0, 5, 0), (0, 1, 0)),
    "FAST": ((0, 0, 0), (0, 0, 0)),
}
TABLE_II = {
    "SACK": ((0, 0, 0), (1, 0, 0)),
    "HSTCP": ((11, 12, 15), (3, 2, 2)),
    "H-TCP": ((13, 9, 15), (0, 9, 1)),
    "BIC": ((10, 19, 8), (0, 1, 0)),
    "STCP": ((32, 51, 24), (4, 14, 3)),
    "Westwood+": ((0, 4, 1), (1, 0, 0)),
    "FAST": ((0, 1, 0), (0, 0, 0)),
}


def _ns2_runs(runs: pl.DataFrame, part: str) -> pl.DataFrame:
    """The runs of ``part`` on the ns2 profile, with ``variant`` and ``rtt``."""
    import polars as pl

    from tcplab.studies.claims import coord

    d = runs.filter(pl.col("part") == part)
    if d.height == 0:
        raise KeyError(part)
    d = d.with_columns(
        pl.col("coords")
        .map_elements(lambda c: coord(c, VARIANT), return_dtype=pl.String)
        .alias("variant"),
        pl.col("coords")
        .map_elements(lambda c: str(coord(c, RTT) or ""), return_dtype=pl.String)
        .alias("rtt"),
        pl.col("coords")
        .map_elements(lambda c: str(coord(c, PROFILE) or "ns2"), return_dtype=pl.String)
        .alias("profile"),
    )
    return d.filter(pl.col("profile") == "ns2")


def utilisation(runs: pl.DataFrame, part: str, rtt: str) -> dict[tuple[str, int], float]:
    """(variant, phase) -> utilisation of the link by A and B on the wire,
    mean over the repetitions."""
    import polars as pl

    d = _ns2_runs(runs, part).filter((pl.col("rtt") == rtt) & pl.col("flow").is_in(["A", "B"]))
    m = (
        d.group_by("variant", "phase", "rep")
        .agg(pl.col("goodput_bps").sum() * WIRE_FACTOR / LINK_BPS)
        .group_by("variant", "phase")
        .agg(pl.col("goodput_bps").mean())
    )
    return {(v, p): u for v, p, u in m.iter_rows()}


def _present(u: dict[tuple[str, int], float]) -> list[str]:
    return [v for v in VARIANTS if (v, 0) in u]


def _floor(rtt: str, floor: float) -> Any:
    def judge(runs: pl.DataFrame) -> tuple[str, bool | None]:
        u = utilisation(runs, "a", rtt)
        cells = [(u[v, p], v, p) for v in _present(u) for p in (0, 2)]
        low, v, p = min(cells)
        return f"lowest {low:.1%} ({v}, phase {p + 1})", low >= floor

    return judge


def _m2(runs: pl.DataFrame) -> tuple[str, bool | None]:
    u = utilisation(runs, "a", "RTT 40 ms")
    vals = {v: u[v, 1] for v in _present(u)}
    text = ", ".join(f"{v} {x:.0%}" for v, x in vals.items())
    return text, all(0.78 - 0.02 <= x <= 0.90 + 0.02 for x in vals.values())


def _m4(runs: pl.DataFrame) -> tuple[str, bool | None]:
    u = utilisation(runs, "a", "RTT 160 ms")
    vals = {v: u[v, 1] for v in _present(u)}
    order = ["SACK", "BIC", "STCP", "Westwood+", "HSTCP", "H-TCP"]
    have = [v for v in order if v in vals]
    ranked = sorted(have, key=lambda v: -vals[v])
    text = " > ".join(f"{v} {vals[v]:.0%}" for v in ranked)
    ok = ranked == have and ("BIC" not in vals or abs(vals["BIC"] / 0.92 - 1) <= 0.15)
    return text, ok


def _m5(runs: pl.DataFrame) -> tuple[str, bool | None]:
    import polars as pl

    d = _ns2_runs(runs, "a").filter(
        (pl.col("rtt") == "RTT 40 ms") & pl.col("flow").is_in(["A", "B"])
    )
    p = d.group_by("variant").agg(pl.col("segs_retrans").sum() / pl.col("segs_sent").sum())
    prob = dict(p.iter_rows())
    low = [v for v in ("SACK", "Westwood+") if v in prob]
    high = [v for v in prob if v not in low]
    if not low or not high:
        return "variants missing", None
    ratio = min(prob[h] for h in high) / max(prob[v] for v in low)
    text = ", ".join(f"{v} {prob[v]:.1e}" for v in VARIANTS if v in prob)
    return f"{text}; others / (SACK, Westwood+) >= {ratio:.1f}x", ratio >= 10


def _timeouts(part: str, table: Mapping[str, tuple[tuple[int, ...], ...]], rtt: int) -> Any:
    def judge(runs: pl.DataFrame) -> tuple[str, bool | None]:
        import polars as pl

        d = _ns2_runs(runs, part).filter(
            (pl.col("rtt") == RTTS[rtt]) & pl.col("flow").is_in(["A", "B"])
        )
        m = (
            d.group_by("variant", "phase", "rep")
            .agg(pl.col("timeouts").sum())
            .group_by("variant", "phase")
            .agg(pl.col("timeouts").mean())
        )
        got = {(v, p): t for v, p, t in m.iter_rows()}
        cells, ok = [], True
        for v in VARIANTS:
            if (v, 0) not in got or v not in table:
                continue
            xs = [got[v, p] for p in range(3)]
            ps = table[v][rtt]
            ok &= all(abs(x - q) <= 1 or q / 2 <= x <= 2 * q for x, q in zip(xs, ps, strict=True))
            cells.append(f"{v} {'/'.join(f'{x:g}' for x in xs)}")
        if not cells:
            return "variants missing", None
        return "; ".join(cells), ok

    return judge


def _c_ratio(variants: Sequence[str], lo: float, hi: float) -> Any:
    def judge(runs: pl.DataFrame) -> tuple[str, bool | None]:
        import polars as pl

        d = _ns2_runs(runs, "c").filter(pl.col("phase") == 4)
        g = d.group_by("variant", "flow").agg(pl.col("goodput_bps").mean())
        gp = {(v, f): x for v, f, x in g.iter_rows()}
        have = [v for v in variants if (v, "A") in gp and (v, "E") in gp]
        if not have:
            return "variants missing", None
        r = {v: gp[v, "A"] / gp[v, "E"] for v in have}
        return ", ".join(f"{v} A/E {x:.2f}" for v, x in r.items()), all(
            lo <= x <= hi for x in r.values()
        )

    return judge


def _m14(runs: pl.DataFrame) -> tuple[str, bool | None]:
    got = []
    for part, paper in (("a", 150e6), ("b", 175e6)):
        u = utilisation(runs, part, "RTT 160 ms")
        phases = [u[v, p] for v, p in u if v == "FAST"]
        if not phases:
            return "FAST not in these runs", None
        # A + B goodput over the whole run (payload), from the utilisation.
        got.append((sum(phases) / len(phases) * LINK_BPS / WIRE_FACTOR, paper))
    text = ", ".join(f"{g / 1e6:.0f} Mb/s" for g, _ in got)
    return text, all(abs(g / p - 1) <= 0.15 for g, p in got)


def _table_text(table: Mapping[str, tuple[tuple[int, ...], ...]], rtt: int) -> str:
    return "; ".join(f"{v} {'/'.join(map(str, t[rtt]))}" for v, t in table.items())


def _not_checkable(why: str) -> Any:
    def judge(runs: pl.DataFrame) -> tuple[str, bool | None]:
        return why, None

    return judge


CLAIMS = (
    Claim(
        "M1",
        "Scenario A, 40 ms: phases 1 and 3, every variant",
        "above 98 %",
        "every variant at least 98 % in phases 1 and 3",
        _floor("RTT 40 ms", 0.98),
        "Fig. 2",
    ),
    Claim(
        "M2",
        "Scenario A, 40 ms, phase 2 (reverse traffic)",
        "78 % (H-TCP) to 90 % (FAST)",
        "every variant between 76 % and 92 %",
        _m2,
        "Fig. 2",
    ),
    Claim(
        "M3",
        "Scenario A, 160 ms: phases 1 and 3",
        "above 96 %",
        "every variant at least 96 % in phases 1 and 3",
        _floor("RTT 160 ms", 0.96),
        "Fig. 2",
    ),
    Claim(
        "M4",
        "Scenario A, 160 ms, phase 2: SACK highest, BIC 92 %, then STCP, Westwood+, "
        "HSTCP, H-TCP; FAST lowest",
        "SACK > BIC 92 % > STCP > Westwood+ > HSTCP > H-TCP",
        "the variants present in this order, BIC within 15 % of 92 %",
        _m4,
        "Fig. 2",
    ),
    Claim(
        "M5",
        "SACK and Westwood+ retransmit one to two orders of magnitude less",
        "10-100x below the others",
        "scenario A, 40 ms: every other variant's retransmission "
        "probability at least 10x SACK's and Westwood+'s",
        _m5,
        "Fig. 3",
    ),
    Claim(
        "M6",
        "Table I, 40 ms: timeouts of A and B per phase",
        _table_text(TABLE_I, 0),
        "each phase within a factor of two, or within one",
        _timeouts("a", TABLE_I, 0),
        "Table I",
    ),
    Claim(
        "M7",
        "Table I, 160 ms: timeouts of A and B per phase",
        _table_text(TABLE_I, 1),
        "each phase within a factor of two, or within one",
        _timeouts("a", TABLE_I, 1),
        "Table I",
    ),
    Claim(
        "M8",
        "Table II, 40 ms: timeouts of A and B per phase",
        _table_text(TABLE_II, 0),
        "each phase within a factor of two, or within one",
        _timeouts("b", TABLE_II, 0),
        "Table II",
    ),
    Claim(
        "M9",
        "Table II, 160 ms: timeouts of A and B per phase",
        _table_text(TABLE_II, 1),
        "each phase within a factor of two, or within one",
        _timeouts("b", TABLE_II, 1),
        "Table II",
    ),
    Claim(
        "M10",
        "FAST at 40 ms, phase 1: the two cwnds settle near 950 and 550",
        "unfair",
        "needs FAST's cwnd traces",
        _not_checkable("FAST's cwnd traces not judged here"),
        "Figs. 6-12",
    ),
    Claim(
        "M11",
        "Scenario C: H-TCP (and FAST) fair across unequal RTTs",
        "fair",
        "H-TCP's A/E in the last 250 s between 0.8 and 1.25",
        _c_ratio(["H-TCP"], 0.8, 1.25),
        "Fig. 16",
    ),
    Claim(
        "M12",
        "Scenario C: with SACK and Westwood+ the 80 ms flows get about half",
        "about 1/2",
        "A/E in the last 250 s between 1/3 and 2/3 for both",
        _c_ratio(["SACK", "Westwood+"], 1 / 3, 2 / 3),
        "Fig. 16",
    ),
    Claim(
        "M13",
        "Scenario C: STCP's A:E",
        "about 1:17",
        "A/E in the last 250 s below 1/8",
        _c_ratio(["STCP"], 0.0, 1 / 8),
        "Fig. 16",
    ),
    Claim(
        "M14",
        "FAST at 160 ms: A + B goodput, scenario A and B",
        "150 and 175 Mb/s",
        "each within 15 %",
        _m14,
        "Figs. 2, 4",
    ),
)
