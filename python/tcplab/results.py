"""The results of one run, as tables.

``Results`` wraps the dict that ``tcplab._core.run`` returns. Tables are
built on first use, so that code that only reads the summary (the ``tcplab``
command printing its table) never imports polars.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, cast

if TYPE_CHECKING:
    import polars as pl

    from tcplab._core import Meta, RunDict

__all__ = ["Results", "column_rows", "pcap_file"]

SUMMARY_FILE = "summary.json"
SCENARIO_FILE = "scenario.toml"
FLOWS_FILE = "flows.parquet"
LINKS_FILE = "links.parquet"
# Tables written only when the run has rows for them.
OPTIONAL_TABLES = (
    "phases",
    "link_phases",
    "generators",
    "transfers",
    "episodes",
    "hosts",
    "timing",
)
#: Every table a run can have, in the order the docs give them.
TABLES = ("flows", "links", *OPTIONAL_TABLES)
PCAP_PREFIX = "capture_"
PCAP_SUFFIX = ".pcap"
TRACE_PREFIX = "trace_"
TRACE_SUFFIX = ".parquet"
# The traces a scenario can ask for (`[trace]`).
TRACES = ("cwnd", "rtt", "queue")

# The column of each trace that indexes a summary table, and the name column
# joined from it: (index column, summary table, new column).
_TRACE_KEYS = {
    "cwnd": ("flow", "flows", "flow_name"),
    "rtt": ("flow", "flows", "flow_name"),
    "queue": ("link", "links", "link_name"),
}


class Results:
    """Everything one run produced.

    Attributes and properties:

    - ``meta``: facts about the run (scenario name, seed, events, wall time...).
    - ``flows``, ``links``: polars DataFrames, one row per flow / simplex link.
    - ``phases``: one row per (flow, phase) of the measurement window.
    - ``link_phases``: one row per (simplex link, phase) of the measurement window.
    - ``generators``: one row per traffic generator (offered load, arrivals).
    - ``transfers``: one row per connection a generator started (size,
      response time, retransmissions). Empty tables when the scenario has none.
    - ``episodes``: one row per loss episode of a scenario flow (from its
      first fast retransmit or timeout to its return to the Open state: how
      it began, cwnd before and after, ssthresh, timeouts, retransmissions).
    - ``hosts``: one row per host with a stage (``bus_rate``, ``packet_cost``...):
      packets served, utilisation over the run, queue drops.
    - ``timing``: one row per simplex link of a run on the real stack
      (``--backend linux``): the link emulator's lateness and its rate and
      delay errors; empty for the simulator.
    - ``traces``: trace name (``cwnd``, ``rtt``, ``queue``) -> polars
      DataFrame, for the traces the scenario asked for. Flow traces carry a
      ``flow_name`` column and the queue trace a ``link_name`` column.
    - ``scenario``: the scenario text that ran, when known (``tcplab.run``
      and sweeps give it); ``write`` stores it as ``scenario.toml``.
    """

    def __init__(self, raw: RunDict | Mapping[str, Any], scenario: str | None = None) -> None:
        raw = cast("RunDict", raw)
        self.meta: Meta = raw["meta"]
        self.scenario = scenario
        self._flow_columns: dict[str, list[Any]] = dict(raw["flows"])
        self._link_columns: dict[str, list[Any]] = dict(raw["links"])
        self._optional: dict[str, dict[str, list[Any]]] = {
            name: dict(cast("Mapping[str, list[Any]]", raw.get(name, {})))
            for name in OPTIONAL_TABLES
        }
        self._optional_frames: dict[str, pl.DataFrame] = {}
        self._trace_columns: dict[str, Mapping[str, Any]] = dict(
            cast("Mapping[str, Mapping[str, Any]]", raw["traces"])
        )
        #: Packet captures (``[trace] pcap``): link name -> pcap file bytes.
        self.pcap: dict[str, bytes] = dict(cast("Mapping[str, bytes]", raw.get("pcap", {})))
        self._flows: pl.DataFrame | None = None
        self._links: pl.DataFrame | None = None
        self._traces: dict[str, pl.DataFrame] | None = None

    def __repr__(self) -> str:
        return (
            f"<Results {self.meta.get('name', '?')!r} seed={self.meta.get('seed')}: "
            f"{len(self.flow_records())} flows, {len(self.link_records())} links, "
            f"traces {sorted(self._trace_columns)}>"
        )

    @property
    def flows(self) -> pl.DataFrame:
        """One row per flow, in scenario order."""
        if self._flows is None:
            import polars as pl

            self._flows = pl.DataFrame(self._flow_columns)
        return self._flows

    @property
    def links(self) -> pl.DataFrame:
        """One row per simplex link, in scenario order."""
        if self._links is None:
            import polars as pl

            self._links = pl.DataFrame(self._link_columns)
        return self._links

    def _optional_frame(self, name: str) -> pl.DataFrame:
        if name not in self._optional_frames:
            import polars as pl

            self._optional_frames[name] = pl.DataFrame(self._optional[name])
        return self._optional_frames[name]

    @property
    def phases(self) -> pl.DataFrame:
        """One row per (flow, phase): ``flow`` is the flow's name, ``flow_index``
        its row in the flows table."""
        return self._optional_frame("phases")

    @property
    def link_phases(self) -> pl.DataFrame:
        """One row per (simplex link, phase): ``link`` is the link's name,
        ``link_index`` its row in the links table."""
        return self._optional_frame("link_phases")

    @property
    def generators(self) -> pl.DataFrame:
        """One row per traffic generator: offered load, arrivals, completions."""
        return self._optional_frame("generators")

    @property
    def transfers(self) -> pl.DataFrame:
        """One row per generated connection; ``generator`` indexes the generators table."""
        return self._optional_frame("transfers")

    @property
    def hosts(self) -> pl.DataFrame:
        """One row per host with a stage: packets served, utilisation over
        the run, drops of its device queue and backlog."""
        return self._optional_frame("hosts")

    @property
    def timing(self) -> pl.DataFrame:
        """The link emulator's timing per simplex link (linux backend only)."""
        return self._optional_frame("timing")

    @property
    def episodes(self) -> pl.DataFrame:
        """One row per loss episode; ``flow_index`` indexes the flows table."""
        return self._optional_frame("episodes")

    def _has_rows(self, name: str) -> bool:
        return any(len(col) > 0 for col in self._optional[name].values())

    def records(self, table: str) -> list[dict[str, Any]]:
        """Any table (flows, links, phases, link_phases, generators, transfers,
        episodes, hosts)
        as a list of dicts."""
        if table == "flows":
            return self.flow_records()
        if table == "links":
            return self.link_records()
        return column_rows(self._optional[table])

    @property
    def traces(self) -> dict[str, pl.DataFrame]:
        """The traces the scenario asked for, by name."""
        if self._traces is None:
            self._traces = {
                name: self._trace_frame(name, columns)
                for name, columns in self._trace_columns.items()
            }
        return self._traces

    def _trace_frame(self, name: str, columns: Mapping[str, Any]) -> pl.DataFrame:
        import polars as pl

        df = pl.DataFrame(dict(columns))
        key = _TRACE_KEYS.get(name)
        if key is None or key[0] not in df.columns:
            return df
        index_col, table, name_col = key
        source = self._flow_columns if table == "flows" else self._link_columns
        names = pl.Series(name_col, source.get("name", []), dtype=pl.String)
        return df.insert_column(df.columns.index(index_col) + 1, names.gather(df[index_col]))

    def flow_records(self) -> list[dict[str, Any]]:
        """The flows table as a list of dicts (no polars needed)."""
        return column_rows(self._flow_columns)

    def link_records(self) -> list[dict[str, Any]]:
        """The links table as a list of dicts (no polars needed)."""
        return column_rows(self._link_columns)

    def summary(self) -> dict[str, Any]:
        """``{"meta": ..., "flows": [...], "links": [...]}`` ready for JSON:
        non-finite floats (NaN for "no sample") become ``None``."""
        out: dict[str, Any] = {
            "meta": _finite(dict(self.meta)),
            "flows": [_finite(r) for r in self.flow_records()],
            "links": [_finite(r) for r in self.link_records()],
        }
        # Transfers can be tens of thousands of rows: Parquet only.
        for name in ("phases", "link_phases", "generators", "timing"):
            rows = self.records(name)
            if rows:
                out[name] = [_finite(r) for r in rows]
        return out

    def write(self, directory: str | os.PathLike[str]) -> Path:
        """Write ``flows.parquet``, ``links.parquet``, the other tables the
        run has rows for, one ``trace_<name>.parquet`` per trace, one
        ``capture_<from>_<to>.pcap`` per captured link, the
        scenario text as ``scenario.toml`` (when known) and ``summary.json``
        into ``directory`` (created if needed) and return its path.

        Each file is written under a temporary name in the same directory and
        then renamed over the old one, so a reader never sees a half-written
        file. ``summary.json`` is written last. Files left by an earlier run
        that this run did not produce (tables, traces, a scenario) are
        removed, so that the directory describes one run.
        """
        out = Path(directory)
        out.mkdir(parents=True, exist_ok=True)
        _write_atomic(out / FLOWS_FILE, self.flows.write_parquet)
        _write_atomic(out / LINKS_FILE, self.links.write_parquet)
        for name in OPTIONAL_TABLES:
            path = out / f"{name}.parquet"
            if self._has_rows(name):
                _write_atomic(path, self._optional_frame(name).write_parquet)
            else:
                path.unlink(missing_ok=True)
        written = set()
        for name, df in self.traces.items():
            path = out / f"{TRACE_PREFIX}{name}{TRACE_SUFFIX}"
            _write_atomic(path, df.write_parquet)
            written.add(path.name)
        for link, data in self.pcap.items():
            path = out / pcap_file(link)
            _write_atomic(path, _bytes_writer(data))
            written.add(path.name)
        for pattern in (f"{TRACE_PREFIX}*{TRACE_SUFFIX}", f"{PCAP_PREFIX}*{PCAP_SUFFIX}"):
            for stale in out.glob(pattern):
                if stale.name not in written:
                    stale.unlink()
        scenario = self.scenario
        if scenario is not None:
            _write_atomic(out / SCENARIO_FILE, lambda p: p.write_text(scenario, encoding="utf-8"))
        else:
            (out / SCENARIO_FILE).unlink(missing_ok=True)
        text = json.dumps(self.summary(), indent=2, allow_nan=False) + "\n"
        _write_atomic(out / SUMMARY_FILE, lambda p: p.write_text(text, encoding="utf-8"))
        return out


def _bytes_writer(data: bytes) -> Callable[[Path], object]:
    """A writer of ``data`` to a path, for ``_write_atomic``."""
    return lambda p: p.write_bytes(data)


def pcap_file(link: str) -> str:
    """The capture file of a link named ``from->to``: ``capture_from_to.pcap``."""
    return f"{PCAP_PREFIX}{link.replace('->', '_')}{PCAP_SUFFIX}"


def column_rows(columns: Mapping[str, Sequence[Any]]) -> list[dict[str, Any]]:
    """``{column: [values]}`` as one dict per row."""
    names = list(columns)
    return [dict(zip(names, row)) for row in zip(*columns.values())]


def _finite(record: Mapping[str, Any]) -> dict[str, Any]:
    return {
        k: None if isinstance(v, float) and not math.isfinite(v) else v for k, v in record.items()
    }


def _write_atomic(path: Path, write: Callable[[Path], object]) -> None:
    """Call ``write`` on a temporary path beside ``path``, then rename it over
    ``path``; on failure remove the temporary file and leave ``path`` as it was."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
    try:
        write(tmp)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
