"""Simulator against the real Linux stack: ``tcplab compare SCENARIO``.

The scenario (every point of its ``[sweep]``, if it has one) runs on both
backends with the same seeds, so that random start times and random drops are
the same: ``OUT/sim`` and ``OUT/linux`` are ordinary sweep directories. The
comparison pairs them per point and flow, mean over the seeds:

- goodput over the measurement window, and its relative error
  ``sim / linux - 1``;
- RTT: when both runs trace cwnd, the time average of the smoothed RTT
  sampled on the trace interval, the same statistic on both sides (the real
  stack reports only its smoothed RTT); otherwise each side's ``rtt_mean_s``
  (every ACK's sample in the simulator, the smoothed RTT every 10 ms on the
  real stack), and the ``rtt_from`` column says which;
- segments retransmitted and retransmission timeouts in the window, side by
  side with their difference;
- with several flows, Jain's fairness index of their goodputs, per seed and
  then its mean (:func:`fairness_comparison`);
- with traffic generators, the median flow-completion time of the finished
  transfers of each size, over every seed's transfers pooled
  (:func:`fct_comparison`).

The report overlays the cwnd and queue traces of the first seed of every
point and gives the emulator's timing.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import polars as pl

    from tcplab.report import Report
    from tcplab.sweep import Progress, Sweep

__all__ = [
    "BACKENDS",
    "compare",
    "comparison",
    "fairness_comparison",
    "fct_comparison",
    "report_sections",
]

BACKENDS = ("sim", "linux")
COMPARISON_FILE = "comparison.parquet"


def _run_dirs(out: Path) -> dict[str, Path]:
    from tcplab.sweep import RUNS, done_runs

    return {rid: out / RUNS / rid for rid in done_runs(out)}


def _trace_srtt(run_dir: Path, meta: Mapping[str, Any]) -> dict[int, float]:
    """Per flow index: the time average of the smoothed RTT sampled on the
    cwnd trace's interval over the measurement window; empty without a cwnd
    trace."""
    trace = run_dir / "trace_cwnd.parquet"
    if not trace.exists():
        return {}
    import polars as pl

    from tcplab.results import read_parquet

    df = read_parquet(trace).filter(
        (pl.col("time_s") >= meta["measure_start_s"])
        & (pl.col("time_s") < meta["measure_end_s"])
        & pl.col("srtt_s").is_not_nan()
    )
    # In the trace's row order, one flow at a time: the same sum, to the
    # last bit, on every reading (a parallel group_by's is not).
    flows, srtt = df["flow"].to_numpy(), df["srtt_s"].to_numpy()
    return {int(f): float(srtt[flows == f].mean()) for f in sorted(set(flows.tolist()))}


#: A flow's ``window_srtt`` kept in its summary record by a run stored
#: without its traces (:mod:`tcplab.stored`).
WINDOW_SRTT = "srtt_window_mean_s"


def window_srtt(run_dir: Path, summary: Mapping[str, Any]) -> dict[int, float]:
    """Per flow index: the comparison's RTT when both sides trace cwnd, the
    time average of the smoothed RTT over the measurement window, from the
    run's cwnd trace or, for a run stored without its traces, from the
    average its summary's flow record keeps (``WINDOW_SRTT``); empty when
    the run has neither. ``summary`` is the run's ``summary.json``."""
    srtt = _trace_srtt(run_dir, summary["meta"])
    # A stored run keeps the trace's average, not the trace.
    srtt |= {
        i: float(f[WINDOW_SRTT])
        for i, f in enumerate(summary.get("flows", []))
        if f.get(WINDOW_SRTT) is not None
    }
    return srtt


def _flow_metrics(run_dir: Path) -> list[dict[str, Any]]:
    """Per flow of one run: goodput, RTT (and where it comes from),
    retransmissions and timeouts in the window."""
    summary = json.loads((run_dir / "summary.json").read_text(encoding="utf-8"))
    flows = summary["flows"]
    srtt = window_srtt(run_dir, summary)
    rows = []
    for i, f in enumerate(flows):

        def num(v: Any) -> float:
            return math.nan if v is None else float(v)

        rows.append(
            {
                "flow": f["name"],
                "goodput_bps": num(f["goodput_bps"]),
                "rtt_s": srtt.get(i, num(f["rtt_mean_s"])),
                "rtt_trace": i in srtt,
                "retrans": num(f["segs_retrans_window"]),
                "timeouts": num(f["timeouts_window"]),
            }
        )
    return rows


def _mean(xs: Sequence[float]) -> float:
    ys = [x for x in xs if not math.isnan(x)]
    return sum(ys) / len(ys) if ys else math.nan


def _stderr(xs: Sequence[float]) -> float:
    """The standard error of the mean of ``xs`` (sample standard deviation
    over the square root of their number); NaN below two values."""
    ys = [x for x in xs if not math.isnan(x)]
    if len(ys) < 2:
        return math.nan
    m = _mean(ys)
    return math.sqrt(sum((y - m) ** 2 for y in ys) / (len(ys) - 1) / len(ys))


def mean_difference_z(sim: Sequence[float], linux: Sequence[float]) -> float:
    """How many standard errors apart two sides' means are: (mean of
    ``sim`` - mean of ``linux``) / sqrt(se_sim^2 + se_linux^2), Welch's
    statistic. Below 2 in magnitude, the difference is within what the
    seeds alone give; NaN with fewer than two values on a side; 0 or
    +-inf when neither side varies."""
    d = _mean(sim) - _mean(linux)
    se = math.hypot(_stderr(sim), _stderr(linux))
    if math.isnan(d) or math.isnan(se):
        return math.nan
    if se == 0.0:
        return 0.0 if d == 0.0 else math.copysign(math.inf, d)
    return d / se


def _rel(sim: float, linux: float) -> float:
    """The simulator's relative difference from the kernel; 0 where both are
    0 (a flow that delivered nothing in the window on either side agrees),
    NaN where only the kernel's is 0 or either is missing."""
    if math.isnan(sim) or math.isnan(linux):
        return math.nan
    if linux == 0:
        return 0.0 if sim == 0 else math.nan
    return sim / linux - 1.0


Label = Callable[[Mapping[str, Any]], str]


def _label(coords: Mapping[str, Any], label: Label | None) -> str:
    if label is not None:
        return label(coords)
    return ", ".join(f"{k}={v}" for k, v in coords.items())


def comparison(out: str | os.PathLike[str], label: Label | None = None) -> pl.DataFrame:
    """The comparison table of ``out`` (holding ``sim/`` and ``linux/``): one
    row per point and flow, over the seeds both backends finished. ``label``
    names a point from its coordinates (default ``axis=value, ...``)."""
    import polars as pl

    cells: dict[tuple[int, str], dict[str, Any]] = {}
    for _, sim_dir, linux_dir, prov in _paired(Path(out)):
        name = _label(prov["coords"], label)
        ms, ml = _flow_metrics(sim_dir), _flow_metrics(linux_dir)
        for a, b in zip(ms, ml):
            c = cells.setdefault(
                (int(prov["point"]), a["flow"]),
                {"point": int(prov["point"]), "coords": name, "flow": a["flow"], "s": [], "l": []},
            )
            c["s"].append(a)
            c["l"].append(b)
    rows = []
    for (_, _), c in sorted(cells.items(), key=lambda kv: kv[0]):
        s, lx = c["s"], c["l"]

        def m(side: list[dict[str, Any]], key: str) -> float:
            return _mean([float(r[key]) for r in side])

        both_traced = all(r["rtt_trace"] for r in s + lx)
        row = {
            "point": c["point"],
            "coords": c["coords"],
            "flow": c["flow"],
            "seeds": len(s),
            "goodput_sim_bps": m(s, "goodput_bps"),
            "goodput_linux_bps": m(lx, "goodput_bps"),
            # The kernel's spread over the seeds: how far apart its own runs are.
            "goodput_linux_min_bps": min(float(r["goodput_bps"]) for r in lx),
            "goodput_linux_max_bps": max(float(r["goodput_bps"]) for r in lx),
            # Welch's statistic of the two sides' seeds.
            "goodput_z": mean_difference_z(
                [float(r["goodput_bps"]) for r in s], [float(r["goodput_bps"]) for r in lx]
            ),
            "rtt_sim_s": m(s, "rtt_s"),
            "rtt_linux_s": m(lx, "rtt_s"),
            "rtt_from": "srtt trace" if both_traced else "rtt_mean_s",
            "retrans_sim": m(s, "retrans"),
            "retrans_linux": m(lx, "retrans"),
            "timeouts_sim": m(s, "timeouts"),
            "timeouts_linux": m(lx, "timeouts"),
        }
        row["goodput_error"] = _rel(row["goodput_sim_bps"], row["goodput_linux_bps"])
        row["rtt_error"] = _rel(row["rtt_sim_s"], row["rtt_linux_s"])
        row["timeouts_diff"] = row["timeouts_sim"] - row["timeouts_linux"]
        rows.append(row)
    if not rows:
        return pl.DataFrame()
    return pl.DataFrame(rows)


def _paired(outp: Path) -> list[tuple[str, Path, Path, dict[str, Any]]]:
    """(run id, sim run dir, linux run dir, the run's provenance) for every run
    both backends finished."""
    from tcplab.sweep import RUN_FILE

    sim, linux = _run_dirs(outp / "sim"), _run_dirs(outp / "linux")
    return [
        (rid, sim[rid], linux[rid], json.loads((sim[rid] / RUN_FILE).read_text(encoding="utf-8")))
        for rid in sorted(set(sim) & set(linux))
    ]


def fairness_comparison(out: str | os.PathLike[str], label: Label | None = None) -> pl.DataFrame:
    """Per point: Jain's index of the flows' goodputs in each seed's run,
    mean over the seeds both backends finished, on each side, and the
    difference ``jain_diff = sim - linux``; and on each side the number of
    those runs in which a flow starved (``starved_sim``, ``starved_linux``:
    its goodput below 30 % of an equal share of the run's total,
    :func:`tcplab.analysis.starved`). Empty when no point has two flows."""
    import polars as pl

    from tcplab.analysis import jain, starved

    cells: dict[int, dict[str, Any]] = {}
    for _, s, lx, prov in _paired(Path(out)):
        gs = [r["goodput_bps"] for r in _flow_metrics(s)]
        gl = [r["goodput_bps"] for r in _flow_metrics(lx)]
        if len(gs) < 2:
            continue
        c = cells.setdefault(
            int(prov["point"]),
            {
                "point": int(prov["point"]),
                "coords": _label(prov["coords"], label),
                "s": [],
                "l": [],
                "starved_s": 0,
                "starved_l": 0,
            },
        )
        c["s"].append(jain(gs))
        c["l"].append(jain(gl))
        c["starved_s"] += starved(gs)
        c["starved_l"] += starved(gl)
    rows = [
        {
            "point": c["point"],
            "coords": c["coords"],
            "seeds": len(c["s"]),
            "jain_sim": _mean(c["s"]),
            "jain_linux": _mean(c["l"]),
            "jain_linux_min": min((x for x in c["l"] if not math.isnan(x)), default=math.nan),
            "jain_linux_max": max((x for x in c["l"] if not math.isnan(x)), default=math.nan),
            "starved_sim": c["starved_s"],
            "starved_linux": c["starved_l"],
        }
        for _, c in sorted(cells.items())
    ]
    if not rows:
        return pl.DataFrame()
    return pl.DataFrame(rows).with_columns(
        (pl.col("jain_sim") - pl.col("jain_linux")).alias("jain_diff")
    )


def fct_comparison(out: str | os.PathLike[str], label: Label | None = None) -> pl.DataFrame:
    """Per point and transfer size (bytes): the median flow-completion time of
    the finished transfers over every seed both backends finished (pooled),
    on each side, their counts, the share finished, and the relative error
    ``fct_error = sim / linux - 1``. Empty without traffic generators."""
    import polars as pl

    from tcplab.results import read_parquet

    frames = []
    for _, s, lx, prov in _paired(Path(out)):
        for side, d in (("sim", s), ("linux", lx)):
            f = d / "transfers.parquet"
            if not f.exists():
                continue
            t = read_parquet(f)
            if t.height == 0:
                continue
            frames.append(
                t.select("size_bytes", "fct_s", "completed").with_columns(
                    pl.lit(int(prov["point"])).alias("point"),
                    pl.lit(_label(prov["coords"], label)).alias("coords"),
                    pl.lit(side).alias("side"),
                )
            )
    if not frames:
        return pl.DataFrame()
    t = pl.concat(frames)
    agg = t.group_by("point", "coords", "size_bytes", "side").agg(
        pl.col("fct_s").filter(pl.col("completed")).median().alias("fct_median_s"),
        pl.len().alias("transfers"),
        pl.col("completed").mean().alias("finished"),
    )
    sim = agg.filter(pl.col("side") == "sim").drop("side")
    lin = agg.filter(pl.col("side") == "linux").drop("side", "coords")
    return (
        sim.join(lin, on=["point", "size_bytes"], suffix="_linux")
        .rename(
            {
                "fct_median_s": "fct_median_sim_s",
                "transfers": "transfers_sim",
                "finished": "finished_sim",
                "fct_median_s_linux": "fct_median_linux_s",
            }
        )
        .with_columns(
            (pl.col("fct_median_sim_s") / pl.col("fct_median_linux_s") - 1).alias("fct_error")
        )
        .sort("point", "size_bytes")
    )


def compare(
    sw: Sweep,
    out: str | os.PathLike[str],
    *,
    seeds: int = 1,
    jobs: int | None = None,
    resume: bool = False,
    on_progress: Callable[[str, Progress], None] | None = None,
) -> tuple[Path, pl.DataFrame]:
    """Run ``sw`` (``seeds`` repetitions of every point) on both backends
    into ``out/sim`` and ``out/linux``, write ``out/comparison.parquet`` and
    ``out/report.html``; returns the report's path and the comparison table.
    The linux runs are real time, one at a time."""
    from tcplab.results import _write_atomic, inside, polars_io
    from tcplab.sweep import run_sweep

    outp = Path(out)
    outp.mkdir(parents=True, exist_ok=True)
    sw.override({}, seeds)
    for backend in BACKENDS:
        sw.backend = backend

        def prog(p: Progress, b: str = backend) -> None:
            if on_progress is not None:
                on_progress(b, p)

        run_sweep(sw, inside(outp, backend), jobs=jobs, resume=resume, on_progress=prog)
    from tcplab.report import Report

    rep = Report(f"Simulator against Linux: {Path(sw.path).name}", sw.path)
    rep.add_section(
        "About",
        "Every point of the scenario ran on the simulator and on this machine's Linux "
        f"TCP stack (network namespaces joined by tcplab's link emulator), {seeds} seed(s) "
        "each, with the same seeds on both sides. Relative errors are sim / linux - 1.",
    )
    df = report_sections(rep, outp, title="Simulator against the real stack")
    if df.height:
        _write_atomic(inside(outp, COMPARISON_FILE), polars_io(df.write_parquet))
    rep.add_section("Provenance")
    rep.add_provenance_from(outp)
    return rep.write(inside(outp, "report.html")), df


def _display(df: pl.DataFrame) -> pl.DataFrame:
    import polars as pl

    return df.select(
        [
            *([pl.col("coords").alias("point")] if df["coords"].str.len_chars().max() else []),
            "flow",
            "seeds",
            (pl.col("goodput_sim_bps") / 1e6).alias("goodput sim Mb/s"),
            (pl.col("goodput_linux_bps") / 1e6).alias("goodput linux Mb/s"),
            (pl.col("goodput_error") * 100).alias("goodput err %"),
            (pl.col("rtt_sim_s") * 1e3).alias("RTT sim ms"),
            (pl.col("rtt_linux_s") * 1e3).alias("RTT linux ms"),
            (pl.col("rtt_error") * 100).alias("RTT err %"),
            pl.col("retrans_sim").alias("retrans sim"),
            pl.col("retrans_linux").alias("retrans linux"),
            pl.col("timeouts_sim").alias("RTOs sim"),
            pl.col("timeouts_linux").alias("RTOs linux"),
        ]
    )


def _first_runs(out: Path, label: Label | None) -> list[tuple[str, Path, Path]]:
    """(point label, sim run, linux run) of the first seed of every point."""
    from tcplab.sweep import RUN_FILE

    sim, linux = _run_dirs(out / "sim"), _run_dirs(out / "linux")
    firsts: dict[int, tuple[str, Path, Path]] = {}
    for rid in sorted(set(sim) & set(linux)):
        prov = json.loads((sim[rid] / RUN_FILE).read_text(encoding="utf-8"))
        p = int(prov["point"])
        if p not in firsts or prov["rep"] == 0:
            firsts[p] = (_label(prov["coords"], label), sim[rid], linux[rid])
    return [firsts[p] for p in sorted(firsts)]


def _overlay_figures(rep: Report, label: str, sim: Path, linux: Path) -> None:
    import polars as pl

    from tcplab.figures import time_series
    from tcplab.results import read_parquet

    where = f" ({label})" if label else ""
    for trace, key, names_file, y, ylabel, what in (
        ("cwnd", "flow", "flows", "cwnd", "cwnd (segments)", "Congestion window"),
        ("queue", "link", "links", "pkts", "queue (packets)", "Queue length"),
    ):
        frames = []
        for backend, d in (("sim", sim), ("linux", linux)):
            f = d / f"trace_{trace}.parquet"
            if not f.exists():
                break
            names = json.loads((d / "summary.json").read_text(encoding="utf-8"))[names_file]
            by_index = {i: str(r["name"]) for i, r in enumerate(names)}
            df = read_parquet(f).with_columns(
                pl.col(key).replace_strict(by_index, return_dtype=pl.String).alias("name"),
                pl.lit(backend).alias("backend"),
            )
            frames.append(df)
        if len(frames) != 2:
            continue
        both = pl.concat(frames, how="diagonal_relaxed")
        for name in both["name"].unique(maintain_order=True).to_list():
            part = both.filter(pl.col("name") == name)
            if trace == "queue" and part[y].max() == 0:
                continue
            fig = time_series(part, "time_s", y, "backend", ylabel=ylabel, xlabel="time (s)")
            rep.add_figure(fig, f"{what} of {name}{where}: simulator and real stack, first seed.")


def report_sections(
    rep: Report, out: Path, label: Label | None = None, title: str | None = None
) -> pl.DataFrame:
    """Add the comparison (table, timing, notes, overlays) to a report, in a
    new section ``title`` if given, else in the current one; returns the
    comparison table. ``label`` names the points."""
    import polars as pl

    from tcplab.sweep import read_table

    df = comparison(out, label)
    if title is not None:
        rep.add_section(title)
    if df.height == 0:
        rep.add_text("No point finished on both backends (runs pair by point and repetition).")
        return df
    rtt_from = set(df["rtt_from"].to_list())
    rep.add_table(
        _display(df),
        "Per flow, mean over the seeds. RTT: "
        + (
            "time average of the smoothed RTT on the trace interval, on both sides."
            if rtt_from == {"srtt trace"}
            else "rtt_mean_s of each side where a run has no cwnd trace (see the rtt_from column "
            "of comparison.parquet)."
        ),
        float_format=".2f",
    )
    timing = read_table(out / "linux", "timing")
    if timing.height:
        agg = timing.group_by("link", maintain_order=True).agg(
            pl.col("delivered").sum(),
            (pl.col("lateness_p50_s").max() * 1e6).alias("lateness p50 us (worst run)"),
            (pl.col("lateness_p99_s").max() * 1e6).alias("lateness p99 us (worst run)"),
            (pl.col("rate_error").max() * 100).alias("rate error % (worst run)"),
            (pl.col("delay_error").max() * 100).alias("delay error % (worst run)"),
            pl.col("flagged").sum().alias("runs over 1 %"),
        )
        rep.add_text(
            "The link emulator's timing on the real-stack runs: how late it wrote packets "
            "into the destination's TUN device behind its ideal schedule, and its achieved "
            "rate and delay against the configuration (a run is flagged above 1 %)."
        )
        rep.add_table(agg, "Emulator timing per link.", float_format=".3f")
    notes: list[str] = []
    for d in _run_dirs(out / "linux").values():
        meta = json.loads((d / "summary.json").read_text(encoding="utf-8"))["meta"]
        notes = list(meta.get("notes", []))
        break
    if notes:
        rep.add_text("What the real-stack runs did not apply or measure:\n\n" + "\n\n".join(notes))
    for name, sim, linux in _first_runs(out, label):
        _overlay_figures(rep, name, sim, linux)
    return df
