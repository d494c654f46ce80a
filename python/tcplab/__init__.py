"""tcplab: a packet-level TCP congestion-control simulator.

The simulation runs in Rust (``tcplab._core``); this package reads scenarios,
runs them and turns the columns that come back into tables::

    import tcplab
    res = tcplab.run("scenarios/braud2016/long-newreno.toml", seed=1)
    res.flows            # polars DataFrame, one row per flow
    res.write("out/x")   # parquet tables + summary.json

Heavy libraries (polars, numpy, rich) are imported only where they are used,
so that ``import tcplab`` and the ``tcplab`` command start fast.
"""

from __future__ import annotations

import operator
import os
from typing import TYPE_CHECKING, Union

from tcplab import _core, memory
from tcplab._core import BackendError, ScenarioError, __version__
from tcplab.results import Results

# Before numpy's and polars' thread pools start (see memory.limit_malloc_arenas).
memory.limit_malloc_arenas()

if TYPE_CHECKING:
    from tcplab._core import ScenarioInfo

__all__ = [
    "BackendError",
    "Results",
    "ScenarioError",
    "__version__",
    "read_scenario",
    "run",
    "validate",
]

Scenario = Union[str, "os.PathLike[str]"]
"""A path to a TOML scenario file, or the TOML text itself."""

STRING_PATH = "<string>"
"""The path given in error messages for a scenario passed as text."""

U64_MAX = 2**64 - 1


def read_scenario(scenario: Scenario) -> tuple[str, str]:
    """Return ``(text, path)`` for a scenario given as a path or as TOML text.

    A ``str`` that contains a newline or ``=`` is TOML text (its path is
    ``"<string>"``); any other ``str`` or ``os.PathLike`` is a file path.
    Raises ``OSError`` when the file cannot be read and ``UnicodeDecodeError``
    when it is not UTF-8.
    """
    if isinstance(scenario, str) and ("\n" in scenario or "=" in scenario):
        return scenario, STRING_PATH
    path = os.fspath(scenario)
    with open(path, encoding="utf-8") as f:
        return f.read(), path


def _check_seed(seed: int | None) -> int | None:
    if seed is None:
        return None
    seed = operator.index(seed)
    if not 0 <= seed <= U64_MAX:
        raise ValueError(f"seed must be between 0 and 2**64 - 1, got {seed}")
    return seed


def run(scenario: Scenario, seed: int | None = None, backend: str = "sim") -> Results:
    """Run a scenario and return its results.

    ``seed``, when given, overrides the scenario's own seed. ``backend`` is
    ``"sim"`` (the simulator) or ``"linux"`` (the real Linux stack in network
    namespaces joined by tcplab's link emulator: root, real time). Raises
    ``ScenarioError`` for an invalid scenario,
    ``tcplab.memory.MemoryCheckError`` when a run would need more memory than
    the machine has available, and ``BackendError`` when the linux backend
    cannot run it here.
    """
    seed = _check_seed(seed)
    text, path = read_scenario(scenario)
    if backend == "linux":
        return Results(_core.run_linux(text, path, seed), scenario=text)
    if backend != "sim":
        raise ValueError(f"backend must be 'sim' or 'linux', got {backend!r}")
    return Results(_core.run(text, path, seed, memory.guard(path)), scenario=text)


def validate(scenario: Scenario) -> ScenarioInfo:
    """Parse and validate a scenario without running it; returns facts about
    it (``{"name": ...}``). Raises ``ScenarioError`` when it is invalid."""
    text, path = read_scenario(scenario)
    return _core.validate(text, path)
