"""linux-check: the `linux` profile against the Linux kernel it claims to follow.

The same scenarios run on the simulator and on this machine's Linux TCP
stack (``--backend linux``: network namespaces joined by tcplab's link
emulator), with the same seeds: the braud2016 access link with two opposite
bulk flows, five controller pairs and two uplink buffers (20 flow cells), and
one bulk flow on a one-BDP link with reno, cubic and bbr. The report is the
evidence for the profile: per flow, goodput, RTT, retransmissions and
timeouts side by side, the traces overlaid, and how many cells agree within
the bounds issue 14 sets (goodput within 5 %, timeouts within one, RTT within
10 %). Needs root; the real-stack runs take real time (about 95 minutes,
6 with ``--quick``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tcplab.studies import Citation, Part, Study

if TYPE_CHECKING:
    import polars as pl

    from tcplab.report import Report

PAPER = Citation(
    authors="tcplab",
    title="The linux profile against the Linux kernel",
    venue="built-in comparison study, on the access link of Braud & Heusse, "
    "“Les variantes de TCP dans le cas de connexions antiparallèles”, ALGOTEL 2016",
    year=2026,
)

#: The bounds a cell must meet (issue 14's target).
GOODPUT_TOL = 0.05
RTT_TOL = 0.10
TIMEOUT_TOL = 1.0


def agreement(df: pl.DataFrame) -> pl.DataFrame:
    """The comparison table with, per cell, whether it meets each bound, and
    whether the simulator's mean goodput lies within the range of the
    kernel's own seeds (``in_kernel_range``: a miss the kernel's run-to-run
    spread covers)."""
    import polars as pl

    return df.with_columns(
        (pl.col("goodput_error").abs() <= GOODPUT_TOL).alias("goodput_ok"),
        (pl.col("rtt_error").abs() <= RTT_TOL).alias("rtt_ok"),
        (pl.col("timeouts_diff").abs() <= TIMEOUT_TOL).alias("timeouts_ok"),
        # With one seed the kernel has no spread to speak of: null.
        pl.when(pl.col("seeds") >= 2)
        .then(
            pl.col("goodput_sim_bps").is_between(
                pl.col("goodput_linux_min_bps"), pl.col("goodput_linux_max_bps")
            )
        )
        .alias("in_kernel_range"),
    )


def _count(df: pl.DataFrame, col: str) -> str:
    return f"{int(df[col].sum())} of {df.height}"


def label(coords: Mapping[str, Any]) -> str:
    """A point's name: "reno/reno, uplink 40" (download/upload controllers)
    on the braud2016 link, the controller on the one-BDP link."""
    cc = [str(v) for k, v in coords.items() if k.endswith(".cc")]
    up = [f"uplink {v}" for k, v in coords.items() if "queue" in k]
    return ", ".join(["/".join(cc), *up])


def _part(rep: Report, out: Path, name: str, title: str, text: str) -> pl.DataFrame | None:
    from tcplab.compare import report_sections

    d = out / name
    if not (d / "sim").is_dir() or not (d / "linux").is_dir():
        rep.add_section(title, f"No results in {d}.")
        return None
    rep.add_section(title, text)
    df = report_sections(rep, d, label)
    if df.height == 0:
        return None
    return agreement(df)


def _report(out: Path, quick: bool) -> Path:
    import polars as pl

    from tcplab.reproduce import finish_report, start_report

    rep = start_report(
        STUDY,
        quick,
        "Each scenario runs on the simulator (the `linux` profile on every host) and on "
        "this machine's Linux kernel through tcplab's link emulator, with the same seeds, "
        "so that start times are the same. Goodput is measured after the start-up; RTT is "
        "the time average of the smoothed RTT sampled every 100 ms on both sides (the "
        "kernel reports only its smoothed RTT). A cell agrees when its goodput is within "
        f"{GOODPUT_TOL:.0%} of the kernel's, its timeouts within {TIMEOUT_TOL:g} of the "
        f"kernel's and its RTT within {RTT_TOL:.0%}. Where they disagree, what the profile "
        "still simplifies (docs/tcp.md, 'Linux 6.x mechanisms': no receive-buffer "
        "autotuning nor its quick ACKs, no TSO/GSO bursts, RACK's reordering window never "
        "grows) is the first suspect, and with 5 seeds the spread between seeds (several "
        "per cent on the 250-packet uplink) is the second; the traces show where the runs "
        "part. scenarios/linux-check/ablate.py reruns the simulator side against stored "
        "kernel runs with any Linux mechanism turned off.",
    )
    frames = []
    for name, title, text in (
        (
            "cells",
            "The braud2016 link: two opposite bulk flows",
            "10 Mb/s down (42 ms, 250 packets), 2 Mb/s up (52 ms, 40 or 250 packets), "
            "the server behind a 1 Gb/s LAN link. Download/upload controllers: reno/reno, "
            "cubic/cubic, reno/cubic, cubic/reno, bbr/bbr. The download's ACKs queue "
            "behind the upload's data in the uplink buffer.",
        ),
        (
            "bdp",
            "One flow, one-BDP buffer",
            "10 Mb/s, 50 ms round trip, a 42-packet buffer (one bandwidth-delay "
            "product): the textbook case where Reno just keeps its link busy.",
        ),
    ):
        df = _part(rep, out, name, title, text)
        if df is not None:
            frames.append(df.with_columns(pl.lit(name).alias("part")))
    rep.add_section("Agreement")
    if not frames:
        rep.add_text("No cell finished on both backends.")
        return finish_report(rep, out)
    allc = pl.concat(frames, how="diagonal_relaxed")
    rep.add_text(
        f"Over {allc.height} flow cells: goodput within {GOODPUT_TOL:.0%} in "
        f"{_count(allc, 'goodput_ok')}, timeouts within {TIMEOUT_TOL:g} in "
        f"{_count(allc, 'timeouts_ok')}, RTT within {RTT_TOL:.0%} in {_count(allc, 'rtt_ok')}."
    )
    misses = allc.filter(~(pl.col("goodput_ok") & pl.col("rtt_ok") & pl.col("timeouts_ok")))
    if misses.height:
        rep.add_table(
            misses.select(
                "part",
                pl.col("coords").alias("point"),
                "flow",
                (pl.col("goodput_error") * 100).alias("goodput err %"),
                (pl.col("goodput_sim_bps") / 1e6).alias("goodput sim Mb/s"),
                (pl.col("goodput_linux_min_bps") / 1e6).alias("linux min Mb/s"),
                (pl.col("goodput_linux_max_bps") / 1e6).alias("linux max Mb/s"),
                pl.col("in_kernel_range").alias("sim within linux seeds"),
                (pl.col("rtt_error") * 100).alias("RTT err %"),
                pl.col("timeouts_sim").alias("RTOs sim"),
                pl.col("timeouts_linux").alias("RTOs linux"),
                pl.col("retrans_sim").alias("retrans sim"),
                pl.col("retrans_linux").alias("retrans linux"),
            ),
            "Cells outside a bound. Linux min/max: the kernel's goodput over its seeds; "
            "a goodput miss whose simulated mean lies between them is within the kernel's "
            "own run-to-run spread.",
            float_format=".2f",
        )
    worst = allc["goodput_error"].abs().max()
    if isinstance(worst, float) and not math.isnan(worst):
        rep.add_text(f"Largest goodput error: {worst:.1%}.")
    rep.add_text(
        "What is known of the misses on Linux 6.18 (which lie within the kernel's own "
        "seed spread, which are systematic, and what each mechanism contributes): "
        "docs/reproduce.md, linux-check, 'Results'."
    )
    return finish_report(rep, out)


_QUICK_CELLS = {"duration": "30s", "measure.start": "10s", "measure.end": "30s"}
_QUICK_BDP = {"duration": "15s", "measure.start": "5s", "measure.end": "15s"}

STUDY = Study(
    name="linux-check",
    title="The linux profile against the Linux kernel",
    paper=PAPER,
    parts=(
        Part("cells/linux", "cells.toml", backend="linux", quick=_QUICK_CELLS, quick_repetitions=1),
        Part("cells/sim", "cells.toml", quick=_QUICK_CELLS, quick_repetitions=1),
        Part("bdp/linux", "bdp.toml", backend="linux", quick=_QUICK_BDP, quick_repetitions=1),
        Part("bdp/sim", "bdp.toml", quick=_QUICK_BDP, quick_repetitions=1),
    ),
    report=_report,
    quick_note="1 seed, 30 s runs measured from 10 s (15 s from 5 s on the one-BDP link) "
    "instead of 5 seeds of 100 s from 20 s (40 s from 10 s); one short run of two opposite "
    "flows on the 250-packet uplink varies by 10 to 30 % from seed to seed, so the bounds "
    "are meant for the full study",
)
