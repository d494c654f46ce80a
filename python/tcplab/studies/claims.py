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

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import polars as pl

__all__ = ["VERDICTS", "Claim", "coord", "judge", "verdict_word"]


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
    judge: Callable[[pl.DataFrame], tuple[str, bool | None]]
    #: The paper's figure or table.
    where: str = ""


VERDICTS = {True: "reproduced", False: "not reproduced", None: "not checkable"}


def verdict_word(v: bool | None) -> str:
    return VERDICTS[v]


def coord(coords: str, key: str) -> Any:
    """One coordinate of a run (its ``label`` when the value is a table)."""
    v = json.loads(coords).get(key)
    return v.get("label", v) if isinstance(v, dict) else v


def judge(claims: Sequence[Claim], sides: dict[str, pl.DataFrame]) -> pl.DataFrame:
    """One row per claim: the paper's value and criterion, then per side
    (``{"tcplab": runs, "ns-2.35": runs}``) its value and verdict."""
    import polars as pl

    rows: list[dict[str, Any]] = []
    for c in claims:
        row: dict[str, Any] = {"result": c.ident, "paper": f"{c.text} ({c.paper})"}
        for name, runs in sides.items():
            try:
                value, ok = c.judge(runs) if runs.height else ("no runs", None)
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
