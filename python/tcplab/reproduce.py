"""Reproductions of the reference studies: ``tcplab reproduce NAME``.

A study is a list of scenario files shipped under ``scenarios/<name>/study/``
(sweeps and single runs) and a function that turns their results into the
report the paper file (``shared/papers/<name>.md``) asks for. ``quick`` runs a
small version of the same study (fewer repetitions, shorter runs) for a demo;
its numbers are not the study's.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tcplab import _core

if TYPE_CHECKING:
    import polars as pl

    from tcplab.sweep import Progress

__all__ = ["STUDIES", "Study", "reproduce", "scenario_dir"]


def scenario_dir() -> Path:
    """The built-in scenarios: beside the package in a checkout (editable
    install), or ``$TCPLAB_SCENARIOS``."""
    env = os.environ.get("TCPLAB_SCENARIOS")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[2] / "scenarios"


@dataclass(frozen=True)
class Part:
    """One scenario file of a study: a sweep, or a single run (``single``)."""

    name: str
    file: str
    quick: Mapping[str, Any] = field(default_factory=dict)
    quick_repetitions: int | None = None
    single: bool = False


@dataclass(frozen=True)
class Study:
    """A reproducible study."""

    name: str
    title: str
    paper: str
    parts: tuple[Part, ...]
    report: Callable[[Path, bool], Path]


# --- braud2016 -------------------------------------------------------------------------------

DOWN, UP = "router->client", "client->router"
SERVER, CLIENT, BUFFER, LOAD = (
    "host[server]",
    "host[client]",
    "link[1].reverse.queue.packets",
    "traffic[0].size",
)
VARIANTS = ("newreno", "cubic", "vegas", "compound")


def braud_utilisation(out: Path) -> pl.DataFrame:
    """Experiment 1: utilisation of each direction per (download variant,
    upload variant, uplink buffer): mean, std and n over the repetitions."""
    import polars as pl

    from tcplab.sweep import read_table

    links = read_table(out, "links").filter(pl.col("name").is_in([DOWN, UP]))
    return (
        links.with_columns(
            pl.when(pl.col("name") == DOWN)
            .then(pl.lit("download"))
            .otherwise(pl.lit("upload"))
            .alias("direction")
        )
        .group_by([BUFFER, SERVER, CLIENT, "direction"], maintain_order=True)
        .agg(
            (pl.col("utilisation").mean() * 100).alias("utilisation_pct_mean"),
            (pl.col("utilisation").std() * 100).alias("utilisation_pct_std"),
            pl.len().alias("n"),
        )
        .rename({SERVER: "download_variant", CLIENT: "upload_variant", BUFFER: "uplink_buffer"})
    )


def braud_rtt(out: Path) -> pl.DataFrame:
    """Experiment 1: mean RTT of each connection per configuration (ms)."""
    import polars as pl

    from tcplab.sweep import read_table

    flows = read_table(out, "flows")
    return (
        flows.group_by([BUFFER, SERVER, CLIENT], maintain_order=True)
        .agg(
            (pl.col("rtt_mean_s").filter(pl.col("name") == "download").mean() * 1e3).alias(
                "download_rtt_ms"
            ),
            (pl.col("rtt_mean_s").filter(pl.col("name") == "upload").mean() * 1e3).alias(
                "upload_rtt_ms"
            ),
        )
        .rename({SERVER: "download_variant", CLIENT: "upload_variant", BUFFER: "uplink_buffer"})
    )


def braud_responses(out: Path) -> dict[tuple[Any, ...], pl.DataFrame]:
    """Experiment 2: response time by size bin per (uplink buffer, load,
    download variant, upload variant), repetitions pooled."""

    import polars as pl

    from tcplab.analysis import log_edges, response_times_by_size
    from tcplab.sweep import read_table

    tr = read_table(out, "transfers")
    if tr.height == 0:
        return {}
    # One set of bins for every series, so that they line up.
    edges = log_edges(tr["size_bytes"].cast(pl.Float64).to_list())
    res: dict[tuple[Any, ...], pl.DataFrame] = {}
    for key, group in tr.group_by([BUFFER, LOAD, SERVER, CLIENT], maintain_order=True):
        binned = response_times_by_size(group, edges=edges)
        # Downloads still running at the end have no response time: say how many.
        res[tuple(key)] = binned.with_columns(
            pl.lit(group.height).alias("started"),
            pl.lit(int(group["completed"].sum())).alias("completed"),
        )
    return res


def _pivot_util(d: pl.DataFrame) -> pl.DataFrame:
    """One row per variant pair, "mean ± std" per direction."""
    import polars as pl

    cell = pl.format(
        "{} ± {}",
        pl.col("utilisation_pct_mean").round(1),
        pl.col("utilisation_pct_std").round(1),
    )
    wide = d.with_columns(cell.alias("pct")).pivot(
        on="direction", index=["download_variant", "upload_variant"], values="pct"
    )
    return wide.rename({"download": "download link %", "upload": "upload link %"}, strict=False)


def _braud_report(out: Path, quick: bool) -> Path:
    from tcplab import figures
    from tcplab.report import Report

    util = braud_utilisation(out / "exp1")
    rtt = braud_rtt(out / "exp1")
    resp = braud_responses(out / "exp2")
    title = "braud2016: TCP variants on antiparallel connections" + (" (quick)" if quick else "")
    rep = Report(title)
    rep.add_section(
        "About",
        "Braud & Heusse, ALGOTEL 2016: a download and an upload on one ADSL-like line "
        "(10 Mb/s down, 2 Mb/s up), every pair of New Reno, Cubic, Vegas and Compound, "
        "uplink buffer 40 or 250 packets."
        + (
            " This is the --quick version: fewer and shorter runs; its numbers are not the study's."
            if quick
            else ""
        ),
    )
    import polars as pl

    rep.add_section("Experiment 1: long-lived connections")
    for buf, fig_no in ((40, 1), (250, 2)):
        d = util.filter(pl.col("uplink_buffer") == buf).with_columns(
            (pl.col("download_variant") + " / " + pl.col("upload_variant")).alias("pair")
        )
        if d.height == 0:
            continue
        fig = figures.grouped_bars(
            d,
            group="pair",
            series="direction",
            value="utilisation_pct_mean",
            err="utilisation_pct_std",
            xlabel="download variant / upload variant",
            ylabel="link utilisation (%)",
            title=f"Utilisation, uplink buffer {buf} packets (mean ± std)",
        )
        n = int(d["n"].max())  # type: ignore[arg-type]
        rep.add_figure(
            fig,
            f"The paper's Figure {fig_no}: utilisation of the download (10 Mb/s) and upload "
            f"(2 Mb/s) links for every variant pair, uplink buffer {buf} packets; mean and "
            f"standard deviation over {n} runs.",
        )
        rep.add_table(_pivot_util(d), f"Utilisation (%), uplink buffer {buf} packets: mean ± std.")
    rep.add_table(rtt, "Mean RTT of each connection per configuration (ms), mean over the runs.")
    rep.add_section("Experiment 2: response times of downloads")
    for buf, fig_no in ((40, 3), (250, 4)):
        for load in sorted({k[1] for k in resp if k[0] == buf}, key=str):
            for down in VARIANTS:
                series = {
                    f"{k[3]} upload ({v['completed'][0]}/{v['started'][0]} done)": v
                    for k, v in resp.items()
                    if k[0] == buf and k[1] == load and k[2] == down and v.height > 0
                }
                if not series:
                    continue
                fig = figures.response_vs_size(
                    series,
                    title=f"{down} downloads, uplink buffer {buf}, load {load}",
                )
                rep.add_figure(
                    fig,
                    f"The paper's Figure {fig_no}: response time of {down} downloads against "
                    f"their size under each upload variant, uplink buffer {buf} packets, "
                    f"downlink load {load}; mean per size bin with its 95 % CI, runs pooled. "
                    "Only completed downloads have a response time: the legend gives "
                    "completed/started, and a low ratio biases large sizes towards the "
                    "fastest downloads.",
                )
    trace = out / "pendulum" / "trace_queue.parquet"
    if trace.exists():
        q = pl.read_parquet(trace).filter(pl.col("link_name").is_in([DOWN, UP]))
        fig = figures.time_series(
            q,
            x="time_s",
            y="pkts",
            by="link_name",
            ylabel="queued packets",
            title="The pendulum: New Reno / New Reno, uplink buffer 250",
        )
        rep.add_figure(
            fig,
            "Queue occupancy of the download buffer (router->client) and the upload buffer "
            "(client->router) over time: data swings from one to the other.",
        )
    rep.add_section("Provenance")
    rep.add_provenance_from(out)
    return rep.write(out / "report.html")


STUDIES: dict[str, Study] = {
    "braud2016": Study(
        name="braud2016",
        title="TCP variants on antiparallel connections over an asymmetric link "
        "(Braud & Heusse, ALGOTEL 2016)",
        paper="shared/papers/braud2016.md",
        parts=(
            Part(
                "exp1",
                "braud2016/study/exp1.toml",
                quick={"duration": "150s", "measure.start": "50s", "measure.end": "150s"},
                quick_repetitions=2,
            ),
            Part(
                "exp2", "braud2016/study/exp2.toml", quick={"duration": "200s"}, quick_repetitions=1
            ),
            Part(
                "pendulum",
                "braud2016/study/pendulum.toml",
                quick={"duration": "200s", "measure.start": "100s", "measure.end": "200s"},
                single=True,
            ),
        ),
        report=_braud_report,
    ),
}


def reproduce(
    name: str,
    out: str | os.PathLike[str],
    *,
    quick: bool = False,
    jobs: int | None = None,
    scheduler: str | None = None,
    resume: bool = False,
    on_progress: Callable[[str, Progress], None] | None = None,
) -> Path:
    """Run study ``name`` into ``out`` (one sub-directory per part) and write
    ``out/report.html``; returns the report's path."""
    from tcplab.results import Results
    from tcplab.sweep import Progress, load_sweep, run_sweep

    study = STUDIES[name]
    outp = Path(out)
    outp.mkdir(parents=True, exist_ok=True)
    root = scenario_dir()
    for part in study.parts:
        path = root / part.file
        sw = load_sweep(path.read_text(encoding="utf-8"), str(path))
        if quick:
            sw.override(part.quick, part.quick_repetitions)
        if part.single:
            # One run with the file's own seed (a sweep's runs get derived seeds).
            t0 = time.perf_counter()
            res = Results(_core.run(sw.task(0, 0).text, str(path), None))
            res.write(outp / part.name)
            if on_progress is not None:
                on_progress(
                    part.name, Progress(1, 1, 0, res.meta["duration_s"], time.perf_counter() - t0)
                )
            continue

        def prog(p: Progress, part_name: str = part.name) -> None:
            if on_progress is not None:
                on_progress(part_name, p)

        run_sweep(
            sw, outp / part.name, jobs=jobs, scheduler=scheduler, resume=resume, on_progress=prog
        )
    (outp / "study.json").write_text(
        json.dumps({"study": name, "quick": quick, "tcplab_version": _core.__version__}, indent=2)
        + "\n",
        encoding="utf-8",
    )
    return study.report(outp, quick)
