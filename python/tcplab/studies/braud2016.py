"""braud2016: Braud & Heusse, ALGOTEL 2016, TCP variants on antiparallel
connections over an ADSL-like line.

Three parts (files in ``data/braud2016/``): experiment 1, long-lived download
and upload for every variant pair and both uplink buffers (Figures 1 and 2);
experiment 2, Poisson/Zipf downloads against one upload (Figures 3 and 4); the
queue "pendulum" of one NewReno pair. The report holds the utilisation grids,
the RTT table, response time against size and the pendulum.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from tcplab.studies import Citation, Part, Study

if TYPE_CHECKING:
    import polars as pl

__all__ = ["STUDY", "braud_responses", "braud_rtt", "braud_utilisation"]

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
    from tcplab.reproduce import finish_report, start_report

    util = braud_utilisation(out / "exp1")
    rtt = braud_rtt(out / "exp1")
    resp = braud_responses(out / "exp2")
    rep = start_report(
        STUDY,
        quick,
        "A download and an upload on one ADSL-like line (10 Mb/s down, 2 Mb/s up), "
        "every pair of New Reno, Cubic, Vegas and Compound, uplink buffer 40 or 250 packets.",
    )
    import polars as pl

    from tcplab.results import read_parquet

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
        q = read_parquet(trace).filter(pl.col("link_name").is_in([DOWN, UP]))
        fig = figures.time_series(
            q,
            x="time_s",
            y="pkts",
            by="link_name",
            separate=True,
            xlabel="time (s)",
            ylabel="queued packets",
            title="The pendulum: New Reno / New Reno, uplink buffer 250",
        )
        rep.add_figure(
            fig,
            "Queue occupancy of the download buffer (router->client) and the upload buffer "
            "(client->router) over time: data swings from one to the other.",
        )
    return finish_report(rep, out)


PAPER = Citation(
    authors="Tristan Braud and Martin Heusse",
    title="Les variantes de TCP dans le cas de connexions antiparallèles",
    venue="18es Rencontres Francophones sur les Aspects Algorithmiques des "
    "Télécommunications (ALGOTEL 2016), Bayonne, France",
    year=2016,
    note="on HAL, the French open archive, under its title",
)

STUDY = Study(
    name="braud2016",
    title="TCP variants on antiparallel connections over an asymmetric link",
    paper=PAPER,
    parts=(
        Part(
            "exp1",
            "exp1.toml",
            quick={"duration": "150s", "measure.start": "50s", "measure.end": "150s"},
            quick_repetitions=2,
        ),
        Part("exp2", "exp2.toml", quick={"duration": "200s"}, quick_repetitions=1),
        Part(
            "pendulum",
            "pendulum.toml",
            quick={"duration": "200s", "measure.start": "100s", "measure.end": "200s"},
            single=True,
        ),
    ),
    report=_braud_report,
    quick_note="2 runs of 150 s per variant pair in experiment 1, 1 run of 200 s in experiment 2",
)
