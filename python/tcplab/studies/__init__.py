"""The reference studies, one module each: ``tcplab reproduce NAME``.

A study module (``braud2016.py``, ``mascolo2006.py``) defines a :class:`Study`:
its paper (a :class:`Citation`), its parts (scenario files shipped as package
data under ``studies/data/<name>/``, each a sweep or a single run, with the
overrides of its ``--quick`` version) and the function that writes its report
from the parts' results. This registry finds them by name, like the
controllers' registry in the core; :mod:`tcplab.reproduce` runs them.

The scenario files are read through :mod:`importlib.resources`, so a plain
(non-editable) install finds them; ``$TCPLAB_SCENARIOS`` may point at another
directory laid out as ``<study>/<file>`` (for instance an edited copy made with
``tcplab reproduce NAME --export DIR``).
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

__all__ = [
    "SCENARIOS_ENV",
    "STUDIES",
    "Citation",
    "Part",
    "Study",
    "get",
    "names",
    "scenario_file",
    "scenario_text",
]

#: Environment variable naming a directory of study files (``<study>/<file>``)
#: to use instead of those shipped in the package.
SCENARIOS_ENV = "TCPLAB_SCENARIOS"

#: The study modules, in the order ``tcplab reproduce --list`` shows them.
_MODULES = (
    "braud2016",
    "mascolo2006",
    "barakat1999",
    "highspeed_fiber",
    "linux_check",
    "ns2_check",
)


@dataclass(frozen=True)
class Citation:
    """The paper a study reproduces."""

    authors: str
    title: str
    venue: str
    year: int
    #: A persistent identifier (DOI, HAL id, report number), or "" when none is known.
    ident: str = ""
    #: Where a reader can find it when there is no identifier.
    note: str = ""

    def text(self) -> str:
        """One line, as a reference list gives it."""
        s = f"{self.authors}, “{self.title}”, {self.venue}, {self.year}"
        if self.ident:
            s += f", {self.ident}"
        if self.note:
            s += f" ({self.note})"
        return s + "."


@dataclass(frozen=True)
class Part:
    """One scenario file of a study: a sweep, or a single run (``single``).

    ``overrides`` (dotted field paths, as ``Sweep.override`` takes them) and
    ``repetitions`` apply to the file in this part (so that one file can serve
    two parts, e.g. a traced run beside the untraced repetitions: same points,
    same seeds); ``quick`` and ``quick_repetitions`` are applied on top of them
    in the ``--quick`` version.
    """

    name: str
    file: str
    overrides: Mapping[str, Any] = field(default_factory=dict)
    repetitions: int | None = None
    quick: Mapping[str, Any] = field(default_factory=dict)
    quick_repetitions: int | None = None
    single: bool = False
    #: ``sim``, or ``linux`` for runs on this machine's real Linux stack (root,
    #: real time, one at a time; see :mod:`tcplab.realstack`).
    backend: str = "sim"
    #: Which versions of the study run this part: ``full``, ``quick`` or both
    #: (a quick version may run a subset of the parts instead of shorter runs,
    #: when its results are compared with stored ones of the same runs).
    modes: tuple[str, ...] = ("full", "quick")
    #: Overrides computed from the study's output directory just before the
    #: part runs (after the parts before it): e.g. the simulated side of a
    #: real-stack comparison given the hosts' timing a real-stack part measured.
    derive: Callable[[Path], Mapping[str, Any]] | None = None
    #: Runs (or, with ``--sim-only``, must be stored) whenever any part of the
    #: study runs: a measurement other parts ``derive`` from.
    always: bool = False
    #: Only these points of the file's sweep: coordinate (a column of the
    #: sweep's tables) -> the values kept, by label (``Sweep.select``); the
    #: points keep the seeds they have in the whole sweep.
    select: Mapping[str, tuple[Any, ...]] = field(default_factory=dict)
    #: Fields set in the first repetition of every point only
    #: (``Sweep.override_first``): a cwnd trace of one run per point.
    first_overrides: Mapping[str, Any] = field(default_factory=dict)
    #: The versions (``full``, ``quick``) in which the part runs only when
    #: named with ``--part``: a check the paper mentions beside its figures,
    #: which the study's claims do not need.
    optional: tuple[str, ...] = ()


@dataclass(frozen=True)
class Study:
    """A reproducible study: its paper, its parts and its report."""

    name: str
    title: str
    paper: Citation
    parts: tuple[Part, ...]
    #: ``report(out, quick) -> path of report.html``, from the parts' results in ``out``.
    report: Callable[[Path, bool], Path]
    #: What the ``--quick`` version leaves out, in a sentence (shown in the report).
    quick_note: str = ""


def _load() -> dict[str, Study]:
    studies: dict[str, Study] = {}
    for mod in _MODULES:
        study = importlib.import_module(f"{__name__}.{mod}").STUDY
        # A study's module is its name with "-" written "_" (highspeed-fiber).
        assert study.name.replace("-", "_") == mod, f"studies/{mod}.py defines {study.name!r}"
        studies[study.name] = study
    return studies


#: Every study by name.
STUDIES: dict[str, Study] = _load()


def names() -> list[str]:
    """The studies' names, in registry order."""
    return list(STUDIES)


def get(name: str) -> Study:
    """The study ``name``; ``KeyError`` naming the available ones otherwise."""
    try:
        return STUDIES[name]
    except KeyError:
        raise KeyError(f"no study {name!r}; available: {', '.join(STUDIES)}") from None


@contextmanager
def scenario_file(study: str, file: str) -> Iterator[Path]:
    """The path of a study's scenario file, for as long as the context lasts:
    from ``$TCPLAB_SCENARIOS/<study>/<file>`` when that variable is set, else
    the copy shipped in the package (a real file in any normal install)."""
    env = os.environ.get(SCENARIOS_ENV)
    if env:
        yield Path(env) / study / file
        return
    with resources.as_file(resources.files(__name__) / "data" / study / file) as p:
        yield p


def scenario_text(study: str, file: str) -> tuple[str, str]:
    """A study file's text and the path to name in messages."""
    from tcplab import read_file

    with scenario_file(study, file) as p:
        return read_file(str(p)), str(p)
