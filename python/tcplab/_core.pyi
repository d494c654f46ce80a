"""Typed stubs for the compiled core (crates/py): conversions only.

Summaries come back one list per column; traces come back as NumPy arrays
(or as the core's own `TraceColumn`s with ``run(..., arrays=False)``).
"""

from collections.abc import Callable, Mapping
from typing import Any, TypedDict, final

import numpy as np
import numpy.typing as npt

__all__ = [
    "SUMMARY_MAX_ROWS",
    "BackendError",
    "ScenarioError",
    "TraceColumn",
    "__git_revision__",
    "__version__",
    "catalog",
    "check_linux",
    "parquet_table",
    "parse_duration",
    "parse_size",
    "run",
    "run_linux",
    "validate",
]

__version__: str
#: The source tree's git revision when the extension was built ("" if not a checkout).
__git_revision__: str
#: Tables longer than this are left out of summary.json (Parquet only).
SUMMARY_MAX_ROWS: int

# The TypedDicts below describe the dicts the functions return; they exist
# only for type checkers (see stubtest-allowlist.txt).

class ScenarioError(ValueError):
    """A scenario that failed validation; the message names the file, the
    field, the value and what is allowed."""

class BackendError(RuntimeError):
    """The real-stack backend cannot run a scenario here (not root, a
    controller the kernel lacks...) or its run failed; the message says why."""

class MemoryPart(TypedDict):
    what: str
    """What it is, with its count."""
    field: str
    """The scenario field that drives it ("trace.interval", "traffic[0].rate",
    "flow"...), or "" for what no field changes (the process, the file)."""
    value: str
    """That field's value as written."""
    bytes: int
    scaling: int
    """1: the part grows in proportion to the field's number, -1: in inverse
    proportion (an interval), 0: not by scaling a number."""
    number: float
    """The field's value as a number, in ``unit``."""
    unit: str

class MemoryEstimate(TypedDict):
    bytes: int
    """The run's peak, within a factor of two (docs/scenarios.md, "Memory")."""
    core_bytes: int
    """Of it, the core's heap during the run."""
    parts: list[MemoryPart]
    """Largest first."""

class ScenarioInfo(TypedDict):
    name: str
    generators: dict[str, list[Any]]
    """Column name -> one value per traffic generator (offered load; counts are 0)."""
    flows: list[str]
    """The names of the flows, as the flows table gives them."""
    links: list[str]
    """The names of the simplex links ("from->to"), as the links table gives them."""
    columns: dict[str, list[str]]
    """Every column of the "flows" and "links" tables."""
    memory_bytes: int
    """The memory one run needs at its peak (within a factor of two): ``memory["bytes"]``."""
    memory: MemoryEstimate
    """That estimate's parts, each naming the field that drives it."""
    measure_end_s: float
    """When a run ends (the end of the measurement window): a real-stack run's length."""

class Meta(TypedDict):
    name: str
    seed: int
    duration_s: float
    measure_start_s: float
    measure_end_s: float
    events: int
    packets: int
    wall_s: float
    version: str
    backend: str
    """``sim`` or ``linux``."""
    notes: list[str]
    """For the linux backend: the kernel and the settings it did not apply."""
    timing_flagged: bool
    """The link emulator missed its schedule by more than 1 % on some link."""

class CwndTrace(TypedDict):
    time_s: npt.NDArray[np.float64]
    flow: npt.NDArray[np.uint32]
    cwnd: npt.NDArray[np.uint32]
    ssthresh: npt.NDArray[np.uint32]
    srtt_s: npt.NDArray[np.float64]
    inflight_bytes: npt.NDArray[np.uint64]
    rto_s: npt.NDArray[np.float64]
    backoff: npt.NDArray[np.uint32]
    pacing_rate_bps: npt.NDArray[np.float64]
    ca_state: npt.NDArray[np.uint32]
    cc_bw_bps: npt.NDArray[np.float64]
    cc_min_rtt_s: npt.NDArray[np.float64]
    cc_pacing_gain: npt.NDArray[np.float64]
    cc_cwnd_gain: npt.NDArray[np.float64]

class RttTrace(TypedDict):
    time_s: npt.NDArray[np.float64]
    flow: npt.NDArray[np.uint32]
    rtt_s: npt.NDArray[np.float64]

class QueueTrace(TypedDict):
    time_s: npt.NDArray[np.float64]
    link: npt.NDArray[np.uint32]
    pkts: npt.NDArray[np.uint32]
    bytes: npt.NDArray[np.uint64]

class Traces(TypedDict, total=False):
    cwnd: CwndTrace
    rtt: RttTrace
    queue: QueueTrace

class RunDict(TypedDict):
    meta: Meta
    flows: dict[str, list[Any]]
    """Column name -> one value per flow (the fields of FlowResult)."""
    links: dict[str, list[Any]]
    """Column name -> one value per simplex link (the fields of LinkResult)."""
    phases: dict[str, list[Any]]
    """Column name -> one value per (flow, phase) (the fields of PhaseResult)."""
    link_phases: dict[str, list[Any]]
    """Column name -> one value per (simplex link, phase) (LinkPhaseResult)."""
    generators: dict[str, list[Any]]
    """Column name -> one value per traffic generator (GeneratorResult)."""
    transfers: dict[str, list[Any]]
    """Column name -> one value per generated connection (TransferResult)."""
    episodes: dict[str, list[Any]]
    """Column name -> one value per loss episode of a scenario flow (EpisodeResult)."""
    hosts: dict[str, list[Any]]
    """Column name -> one value per host with a stage (HostResult)."""
    timing: dict[str, list[Any]]
    """Column name -> one value per simplex link: the emulator's timing (linux backend)."""
    pcap: dict[str, bytes]
    """Link name -> the pcap file of its captured packets (``[trace] pcap``)."""
    traces: Traces

class CatalogEntry(TypedDict):
    name: str
    description: str
    source: str
    params: list[tuple[str, str, str]]
    """(name, value or default, meaning)."""

class Catalog(TypedDict):
    controllers: list[CatalogEntry]
    queues: list[CatalogEntry]
    profiles: list[CatalogEntry]

def validate(text: str, path: str) -> ScenarioInfo:
    """Parse and validate a scenario; raises ScenarioError."""

def parse_size(text: str) -> int:
    """Bytes of a size as scenario files write it ("64KB", "1GiB"); ValueError otherwise."""

def parse_duration(text: str) -> float:
    """Seconds of a duration as scenario files write it ("10us"); ValueError otherwise."""

def run(
    text: str,
    path: str,
    seed: int | None = None,
    before_run: Callable[[MemoryEstimate], object] | None = None,
    progress: Callable[[str, float, float, int, float], object] | None = None,
    arrays: bool = True,
) -> RunDict:
    """Parse, validate and run a scenario with the GIL released; `seed`
    overrides the scenario's own seed; `before_run`, when given, is called
    with the run's memory estimate before it runs, and an exception it raises
    stops the run. `progress`, when given, is called with (stage, simulated
    seconds, seconds to simulate, events, wall seconds) as each stage starts
    ("building", "running", "collecting") and a few times a second while
    running; an exception it raises (or a pending KeyboardInterrupt) stops the
    run and is raised. With `arrays` false the traces' columns are
    `TraceColumn`s instead of numpy arrays (numpy is not imported). Raises
    ScenarioError."""

@final
class TraceColumn:
    """A trace's column as the core made it (`run(..., arrays=False)`):
    `parquet_table` writes it without numpy; `to_numpy()` gives the array."""

    def __len__(self) -> int: ...
    @property
    def dtype(self) -> str:
        """The numpy dtype's name: "float64", "uint32" or "uint64"."""
    def to_numpy(self) -> npt.NDArray[Any]:
        """The values as a new numpy array of that dtype."""

def parquet_table(columns: Mapping[str, Any]) -> bytes | None:
    """A result table (column name -> list of values, 1-D numpy array, or a
    ``(codes, names)`` tuple: a uint32 array indexing a list of str, written
    as the strings it picks) as the bytes of a Parquet file polars reads back
    as the DataFrame it builds from the same dict (the tuple as its list of
    strings); None when a column is of a kind left to polars (mixed, empty,
    all None, other types, a code out of range) or the lengths differ. Each
    column is converted when its page is written."""

def check_linux(text: str, path: str) -> list[str]:
    """Check that a scenario can run on this machine's real Linux stack,
    without running it; returns the notes the run would carry. Raises
    ScenarioError or BackendError."""

def run_linux(text: str, path: str, seed: int | None = None) -> RunDict:
    """Run a scenario on the real Linux stack (namespaces, TUN devices, the
    link emulator) in real time, with the GIL released; the result has the
    simulator's form. A pending KeyboardInterrupt stops it. Raises
    ScenarioError or BackendError."""

def catalog() -> Catalog:
    """Everything a scenario can name: controllers, queues and profiles."""
