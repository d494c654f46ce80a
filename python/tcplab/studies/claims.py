"""A paper's published results, each with the criterion that judges a set of
runs against it (issue 24's paper-vs-tcplab table; written before looking at
any result and kept in the study's module beside the result it judges).

A :class:`Claim`'s ``judge`` takes the runs as one frame of phase rows, the
same schema for tcplab's runs and for stored runs of another simulator (ns-2):

==============  =====================================================
``part``        the study's file stem (``sec7-droptail``, ``a``)
``coords``      the run's sweep coordinates, as JSON (sorted keys)
``rep``         the repetition
``flow``        the flow's name
``phase``       the phase index; ``start_s``, ``end_s`` its bounds
``goodput_bps`` payload delivered in order over the phase, bit/s
``timeouts``    retransmission timeouts in the phase
==============  =====================================================

and returns ``(value, verdict)``: what the runs give, as text, and whether it
meets the criterion (``None``: the runs cannot tell, e.g. a variant missing).
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import polars as pl

    from tcplab.report import Report
    from tcplab.studies import Study

__all__ = [
    "PAPER_TABLE_FILE",
    "SIDE",
    "VERDICTS",
    "Claim",
    "add_paper_table",
    "claims_of",
    "coord",
    "coords_key",
    "judge",
    "paper_table",
    "phase_rows",
    "study_runs",
    "verdict_counts",
    "verdict_word",
]


@dataclass(frozen=True)
class Claim:
    """One published result."""

    #: Its number in ../shared/papers/<study>.md (K1, M6...).
    ident: str
    #: What the paper states, in a line.
    text: str
    #: The paper's value, as published.
    paper: str
    #: How a set of runs is judged against it.
    criterion: str
    #: ``judge(runs) -> (value, verdict)``.
    judge: Callable[[Any], tuple[str, bool | None]]
    #: The paper's figure or table.
    where: str = ""


VERDICTS = {True: "reproduced", False: "not reproduced", None: "not checkable"}


def verdict_word(v: bool | None) -> str:
    return VERDICTS[v]


def coord(coords: str, key: str) -> Any:
    """One coordinate of a run (its ``label`` when the value is a table)."""
    v = json.loads(coords).get(key)
    return v.get("label", v) if isinstance(v, dict) else v


def judge(claims: Sequence[Claim], sides: Mapping[str, Any]) -> pl.DataFrame:
    """One row per claim: the paper's value and criterion, then per side
    (``{"tcplab": runs, "ns-2.35": runs}``) its value and verdict."""
    import polars as pl

    rows: list[dict[str, Any]] = []
    for c in claims:
        row: dict[str, Any] = {"result": c.ident, "paper": f"{c.text} ({c.paper})"}
        for name, runs in sides.items():
            empty = isinstance(runs, pl.DataFrame) and runs.height == 0
            try:
                value, ok = ("no runs", None) if empty else c.judge(runs)
            except KeyError as e:  # a part or point these runs do not have
                value, ok = f"not in these runs ({e})", None
            except (ValueError, ZeroDivisionError) as e:
                value, ok = f"n/a ({e})", None
            row[name] = value
            row[f"{name} verdict"] = verdict_word(ok)
        row["criterion"] = c.criterion
        row["from"] = c.where
        rows.append(row)
    return pl.DataFrame(rows)


def coords_key(coords: Mapping[str, Any]) -> str:
    """A run's sweep coordinates as the runs frames key them: JSON, sorted keys."""
    return json.dumps(dict(coords), sort_keys=True)


def phase_rows(d: Path) -> pl.DataFrame:
    """Every finished run of one sweep directory ``d`` as phase rows: its
    phases table with ``coords`` (:func:`coords_key`), ``rep``, ``run`` and
    each flow's start time (``flow_start_s``); empty if none finished."""
    import polars as pl

    from tcplab.results import read_parquet
    from tcplab.sweep import RUN_FILE, RUNS, done_runs

    frames = []
    for rid in sorted(done_runs(d)) if d.is_dir() else []:
        run = d / RUNS / rid
        prov = json.loads((run / RUN_FILE).read_text(encoding="utf-8"))
        ph = read_parquet(run / "phases.parquet")
        starts = read_parquet(run / "flows.parquet").select(
            pl.col("name").alias("flow"), pl.col("start_s").alias("flow_start_s")
        )
        frames.append(
            ph.join(starts, on="flow", how="left").with_columns(
                pl.lit(coords_key(prov["coords"])).alias("coords"),
                pl.lit(int(prov["rep"])).alias("rep"),
                pl.lit(rid).alias("run"),
            )
        )
    if not frames:
        return pl.DataFrame()
    return pl.concat(frames, how="diagonal_relaxed")


def _module(study: Study) -> Any:
    """The study's module (highspeed-fiber: ``highspeed_fiber``)."""
    return importlib.import_module(f"tcplab.studies.{study.name.replace('-', '_')}")


def claims_of(study: Study) -> tuple[Claim, ...]:
    """The published results a study judges itself by: its module's
    ``CLAIMS`` (none for a study that reproduces no paper)."""
    return tuple(getattr(_module(study), "CLAIMS", ()))


def study_runs(study: Study, out: Path, quick: bool) -> pl.DataFrame:
    """A study's finished runs under ``out`` as the frame its claims judge:
    ``part`` is the scenario file's stem (``a.toml`` -> ``a``); of several
    parts running one file (a traced repetition beside the others) the first
    is taken."""
    import polars as pl

    frames, seen = [], set()
    for part in study.parts:
        if ("quick" if quick else "full") not in part.modes or part.file in seen:
            continue
        seen.add(part.file)
        rows = phase_rows(out / part.name)
        if rows.height:
            frames.append(rows.with_columns(pl.lit(Path(part.file).stem).alias("part")))
    if not frames:
        return pl.DataFrame()
    return pl.concat(frames, how="diagonal_relaxed")


#: The paper table's file in a study's output directory (read by
#: ``tcplab reproduce`` to print it).
PAPER_TABLE_FILE = "paper_results.csv"

#: The column of tcplab's values and verdicts.
SIDE = "tcplab"


def paper_table(study: Study, out: Path, quick: bool) -> pl.DataFrame | None:
    """One row per published result of ``study``, judged on its runs under
    ``out`` (:func:`judge`, one side: tcplab); ``None`` if it has none. The
    judges take the study's phase rows (:func:`study_runs`), or what its
    module's ``claim_input(out, quick)`` returns when it has one (the tables
    a study's results are read from, e.g. braud2016's utilisation grid)."""
    judged = _judged(study, out, quick)
    return judged[0] if judged is not None else None


def _judged(study: Study, out: Path, quick: bool) -> tuple[pl.DataFrame, str] | None:
    """The paper table and the study's note on it (its module's
    ``claims_note(input)``: e.g. which parameter the paper leaves open was
    calibrated, on which result, to which value; "" if none or if the runs
    cannot give it), from one reading of the runs."""
    claims = claims_of(study)
    if not claims:
        return None
    mod = _module(study)
    make = getattr(mod, "claim_input", None)
    inp = make(out, quick) if make is not None else study_runs(study, out, quick)
    note_of = getattr(mod, "claims_note", None)
    note = ""
    if note_of is not None:
        try:
            note = str(note_of(inp))
        except (KeyError, ValueError):
            note = ""
    return judge(claims, {SIDE: inp}), note


def verdict_counts(table: pl.DataFrame, side: str = SIDE) -> str:
    """ "8 reproduced, 13 not reproduced, 2 not checkable (of 23)"."""
    counts = dict(table[f"{side} verdict"].value_counts().iter_rows())
    return (
        ", ".join(f"{counts[v]} {v}" for v in VERDICTS.values() if counts.get(v))
        + f" (of {table.height})"
    )


def add_paper_table(rep: Report, study: Study, out: Path, quick: bool) -> pl.DataFrame | None:
    """Add the paper table to ``rep`` (a section: the count of verdicts, then
    the table) and write it to ``out``/:data:`PAPER_TABLE_FILE`; nothing for a
    study with no published results."""
    judged = _judged(study, out, quick)
    if judged is None:
        return None
    table, note = judged
    from tcplab.results import _write_atomic

    rep.add_section(
        "The paper's published results",
        "Each result the paper publishes (numbered as in tcplab's notes on the paper), "
        "its value, what these runs give (computed from the study's tables) and the "
        "verdict, by a criterion written down beside the result in the study's module "
        "before the runs were looked at."
        + (
            " This is the --quick version: fewer and shorter runs than the paper's, so "
            "its verdicts are not the study's."
            if quick
            else ""
        ),
    )
    rep.add_text(f"tcplab: {verdict_counts(table)}.")
    if note:
        rep.add_text(note)
    rep.add_table(table, "Published results and tcplab's.", max_rows=200)
    _write_atomic(out / PAPER_TABLE_FILE, table.write_csv)
    return table
