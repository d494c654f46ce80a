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
import stat
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
    "ScenarioFileError",
    "__version__",
    "read_file",
    "read_scenario",
    "run",
    "validate",
]

Scenario = Union[str, "os.PathLike[str]"]
"""A path to a TOML scenario file, or the TOML text itself."""

STRING_PATH = "<string>"
"""The path given in error messages for a scenario passed as text."""

U64_MAX = 2**64 - 1


MAX_SCENARIO_BYTES = 128 * 2**20
"""The largest scenario file read (128 MiB; ``$TCPLAB_MAX_SCENARIO_BYTES``
overrides it): a million ``[[flow]]`` entries take about 50 MB."""

_BOM = "\ufeff"


class ScenarioFileError(OSError):
    """A scenario path that is not a regular file, or a file too large."""


def _max_scenario_bytes() -> int:
    env = os.environ.get("TCPLAB_MAX_SCENARIO_BYTES")
    if not env:
        return MAX_SCENARIO_BYTES
    try:
        return int(float(env))
    except ValueError:
        raise ScenarioFileError(
            f"$TCPLAB_MAX_SCENARIO_BYTES: value {env!r}: must be a number of bytes, e.g. 2e8"
        ) from None


def _kind(mode: int) -> str:
    for test, name in (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return name
    return "not a regular file"


def read_file(path: str) -> str:
    """The UTF-8 text of the scenario file ``path`` (a leading byte-order
    mark dropped).

    Only regular files are read (a symbolic link is followed to one), of at
    most ``MAX_SCENARIO_BYTES``: a FIFO, a device such as ``/dev/zero`` or a
    directory is refused before anything is read, so that no path can block
    or exhaust memory. Raises ``ScenarioFileError`` (an ``OSError``) naming
    the path and what is allowed, ``OSError`` when the file cannot be
    opened, and ``UnicodeDecodeError`` when it is not UTF-8.
    """
    limit = _max_scenario_bytes()

    def too_big(size: str) -> ScenarioFileError:
        return ScenarioFileError(
            f"{path}: {size} bytes; a scenario file may have at most {limit} bytes "
            "(set $TCPLAB_MAX_SCENARIO_BYTES to allow more)"
        )

    # O_NONBLOCK: opening a FIFO without a writer must not wait for one; the
    # kind is then read off the open descriptor (no race with a swap).
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise ScenarioFileError(
                f"{path}: is {_kind(st.st_mode)}; a scenario must be a regular file"
            )
        if st.st_size > limit:
            raise too_big(str(st.st_size))
        with os.fdopen(fd, "rb", closefd=True) as f:
            fd = -1
            data = f.read(limit + 1)
    finally:
        if fd >= 0:
            os.close(fd)
    if len(data) > limit:  # grew while being read
        raise too_big(f"more than {limit}")
    return data.decode("utf-8").removeprefix(_BOM)


def read_scenario(scenario: Scenario) -> tuple[str, str]:
    """Return ``(text, path)`` for a scenario given as a path or as TOML text.

    A ``str`` that contains a newline or ``=`` is TOML text (its path is
    ``"<string>"``); any other ``str`` or ``os.PathLike`` is a file path,
    read by ``read_file`` (regular files of at most ``MAX_SCENARIO_BYTES``).
    A leading UTF-8 byte-order mark is dropped. Raises ``OSError`` when the
    file cannot be read and ``UnicodeDecodeError`` when it is not UTF-8.
    """
    if isinstance(scenario, str) and ("\n" in scenario or "=" in scenario):
        return scenario.removeprefix(_BOM), STRING_PATH
    path = os.fspath(scenario)
    return read_file(path), path


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
