"""The results of one run, as tables, and the rules for result files.

``Results`` wraps the dict that ``tcplab._core.run`` returns. Tables are
built on first use, so that code that only reads the summary (the ``tcplab``
command printing its table) never imports polars.

Every file tcplab writes under an output directory gets its path from
``inside`` (which refuses a name that would land elsewhere); a run's
directory is written whole into a temporary directory first
(``write_dir``); result tables are read back through ``read_parquet``, whose
errors name the damaged file.
"""

from __future__ import annotations

import errno
import json
import math
import os
import re
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, cast

if TYPE_CHECKING:
    import polars as pl

    from tcplab._core import Meta, RunDict

__all__ = [
    "ResultFileError",
    "Results",
    "UnsafePathError",
    "column_rows",
    "inside",
    "parquet_damage",
    "pcap_file",
    "read_parquet",
    "write_dir",
]

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

        from tcplab import _core

        # Columns from `_core.run(..., arrays=False)` become numpy arrays here.
        df = pl.DataFrame(
            {k: v.to_numpy() if isinstance(v, _core.TraceColumn) else v for k, v in columns.items()}
        )
        key = self._trace_name_source(name, columns)
        if key is None:
            return df
        index_col, name_col, source = key
        names = pl.Series(name_col, source, dtype=pl.String)
        return df.insert_column(df.columns.index(index_col) + 1, names.gather(df[index_col]))

    def _trace_name_source(
        self, name: str, columns: Mapping[str, Any]
    ) -> tuple[str, str, list[Any]] | None:
        """For a trace with an index column (``flow``, ``link``): that
        column, the name column inserted after it and the names it indexes."""
        key = _TRACE_KEYS.get(name)
        if key is None or key[0] not in columns:
            return None
        index_col, table, name_col = key
        source = self._flow_columns if table == "flows" else self._link_columns
        return index_col, name_col, source.get("name", [])

    def _trace_columns_named(self, name: str) -> dict[str, Any]:
        """A trace's columns with the name column ``_trace_frame`` inserts
        (``flow_name`` after ``flow``...), without polars."""
        columns = dict(self._trace_columns[name])
        key = self._trace_name_source(name, columns)
        if key is None:
            return columns
        index_col, name_col, names = key
        out: dict[str, Any] = {}
        for col, values in columns.items():
            out[col] = values
            if col == index_col:
                # (codes, names): the core writes the strings without a
                # Python string per row (a list where it is not an array).
                out[name_col] = (
                    (values, names) if hasattr(values, "dtype") else [names[i] for i in values]
                )
        return out

    def _table_writer(
        self,
        columns: Mapping[str, Any],
        frame: pl.DataFrame | None,
        build: Callable[[], pl.DataFrame],
    ) -> Callable[[Path], object]:
        """A writer of one table: by the core (``parquet_table``: no polars
        import, the same file contents as polars reads them) while the table's
        DataFrame has not been built; else, or for columns the core leaves to
        polars, by polars."""
        if frame is None:
            from tcplab import _core

            data = _core.parquet_table(dict(columns))
            if data is not None:
                return _bytes_writer(data)
            return _frame_writer(build)
        return _parquet_writer(frame)

    def flow_records(self, limit: int | None = None) -> list[dict[str, Any]]:
        """The flows table as a list of dicts (no polars needed); its first
        ``limit`` rows when given."""
        return column_rows(self._flow_columns, limit)

    def link_records(self, limit: int | None = None) -> list[dict[str, Any]]:
        """The links table as a list of dicts (no polars needed); its first
        ``limit`` rows when given."""
        return column_rows(self._link_columns, limit)

    def row_count(self, table: str) -> int:
        """How many rows ``flows``, ``links`` or an optional table has."""
        if table == "flows":
            columns = self._flow_columns
        elif table == "links":
            columns = self._link_columns
        else:
            columns = self._optional[table]
        return len(next(iter(columns.values()), ()))

    def summary(self) -> dict[str, Any]:
        """``{"meta": ..., "flows": [...], "links": [...]}`` ready for JSON:
        non-finite floats (NaN for "no sample") become ``None``. A table of
        more than ``_core.SUMMARY_MAX_ROWS`` (10,000) rows is left to its
        Parquet file (a row as a dict and its JSON costs about 12 kB in
        Python): ``meta["parquet_only"]`` names those tables."""
        from tcplab import _core

        meta = _finite(dict(self.meta))
        out: dict[str, Any] = {"meta": meta}
        big: list[str] = []
        # Transfers can be tens of thousands of rows: Parquet only.
        for name in ("flows", "links", "phases", "link_phases", "generators", "timing"):
            n = self.row_count(name)
            if n > _core.SUMMARY_MAX_ROWS:
                big.append(name)
                continue
            if n or name in ("flows", "links"):
                out[name] = [_finite(r) for r in self.records(name)]
        if big:
            meta["parquet_only"] = big
        return out

    def write(
        self,
        directory: str | os.PathLike[str],
        *,
        extra_files: Mapping[str, str] | None = None,
    ) -> Path:
        """Write ``flows.parquet``, ``links.parquet``, the other tables the
        run has rows for, one ``trace_<name>.parquet`` per trace, one
        ``capture_<from>_<to>.pcap`` per captured link, the
        scenario text as ``scenario.toml`` (when known), ``extra_files``
        (name -> text) and ``summary.json`` into ``directory`` (created if
        needed) and return its path.

        The run is written whole into a temporary directory first and put in
        place only when complete (see ``write_dir``): a write that fails part
        way (a full disk) leaves ``directory`` as it was. Files left by an
        earlier run that this run did not produce (tables, traces, captures, a
        scenario) are removed, so that the directory describes one run; other
        files are left alone. A file name that would land outside
        ``directory`` (a capture of a link named ``../x->r``) raises
        ``UnsafePathError`` before anything is written.
        """
        out = Path(directory)
        return write_dir(out, lambda tmp: self._write_files(tmp, out, extra_files or {}))

    def _write_files(self, d: Path, out: Path, extra: Mapping[str, str]) -> None:
        """Write every file of the run into the new, empty directory ``d``
        (names checked against ``out``, where they will end up)."""
        files: list[tuple[str, Callable[[Path], object]]] = [
            (FLOWS_FILE, self._table_writer(self._flow_columns, self._flows, lambda: self.flows)),
            (LINKS_FILE, self._table_writer(self._link_columns, self._links, lambda: self.links)),
        ]
        files += [
            (
                f"{name}.parquet",
                self._table_writer(
                    self._optional[name],
                    self._optional_frames.get(name),
                    lambda name=name: self._optional_frame(name),  # type: ignore[misc]
                ),
            )
            for name in OPTIONAL_TABLES
            if self._has_rows(name)
        ]
        files += [
            (
                f"{TRACE_PREFIX}{name}{TRACE_SUFFIX}",
                self._table_writer(
                    self._trace_columns_named(name),
                    None if self._traces is None else self._traces[name],
                    lambda name=name: self.traces[name],  # type: ignore[misc]
                ),
            )
            for name in self._trace_columns
        ]
        files += [(pcap_file(link), _bytes_writer(data)) for link, data in self.pcap.items()]
        scenario = self.scenario
        if scenario is not None:
            files.append((SCENARIO_FILE, _text_writer(scenario)))
        files += [(name, _text_writer(text)) for name, text in extra.items()]
        summary = json.dumps(self.summary(), indent=2, allow_nan=False) + "\n"
        files.append((SUMMARY_FILE, _text_writer(summary)))
        names = [name for name, _ in files]
        for name in names:
            inside(out, name)  # before anything is written
        for name, write in files:
            write(inside(d, name))


def _frame_writer(frame: Callable[[], pl.DataFrame]) -> Callable[[Path], None]:
    """A writer of the DataFrame ``frame()`` gives, built when written."""

    def write(path: Path) -> None:
        _parquet_writer(frame())(path)

    return write


def is_run_file(name: str) -> bool:
    """Whether ``name`` is a file that ``Results.write`` writes (so that a
    new run in the same directory replaces or removes it)."""
    return (
        name in (SUMMARY_FILE, SCENARIO_FILE)
        or (name.endswith(".parquet") and name[: -len(".parquet")] in TABLES)
        or (name.startswith(TRACE_PREFIX) and name.endswith(TRACE_SUFFIX))
        or (name.startswith(PCAP_PREFIX) and name.endswith(PCAP_SUFFIX))
    )


def _bytes_writer(data: bytes) -> Callable[[Path], object]:
    """A writer of ``data`` to a path, for ``_write_atomic``."""
    return lambda p: p.write_bytes(data)


def _text_writer(text: str) -> Callable[[Path], object]:
    """A writer of ``text`` (UTF-8) to a path."""
    return lambda p: p.write_text(text, encoding="utf-8")


def _parquet_writer(df: pl.DataFrame) -> Callable[[Path], None]:
    """A writer of ``df`` as Parquet whose I/O failures are ``OSError``s (a
    full disk: errno ENOSPC), naming the file."""
    return polars_io(df.write_parquet)


def polars_io(write: Callable[[Path], object]) -> Callable[[Path], None]:
    """``write`` (a polars writer: ``df.write_parquet``, ``df.write_csv``)
    with the I/O errors polars reports as its own exceptions ("... (os error
    28)") raised as ``OSError`` with that errno and the file's name."""

    def run(path: Path) -> None:
        try:
            write(path)
        except OSError:
            raise
        except Exception as e:
            m = re.search(r"\(os error (\d+)\)", str(e))
            if m is None:
                raise
            code = int(m.group(1))
            raise OSError(code, os.strerror(code), str(path)) from e

    return run


def pcap_file(link: str) -> str:
    """The capture file of a link named ``from->to``: ``capture_from_to.pcap``."""
    return f"{PCAP_PREFIX}{link.replace('->', '_')}{PCAP_SUFFIX}"


def column_rows(
    columns: Mapping[str, Sequence[Any]], limit: int | None = None
) -> list[dict[str, Any]]:
    """``{column: [values]}`` as one dict per row (the first ``limit`` rows
    when given)."""
    names = list(columns)
    values = columns.values() if limit is None else [v[:limit] for v in columns.values()]
    return [dict(zip(names, row)) for row in zip(*values)]


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


# ------------------------------------------------------- where files may go


class UnsafePathError(OSError):
    """A file name that would put a file outside the output directory
    (``..``, a separator, an absolute path, a NUL byte, or a symbolic link
    on the way that leads out). An ``OSError``, so that whatever reports a
    failed write reports it; the message names the file and the directory."""

    def __init__(self, message: str) -> None:
        super().__init__(errno.EINVAL, message)

    def __str__(self) -> str:
        return str(self.strerror)


def _bad_component(name: object) -> str | None:  # noqa: PLR0911 - one return per rule
    """Why ``name`` cannot be one component of a path under a directory."""
    if not isinstance(name, str):
        return f"not a string but {type(name).__name__}"
    if not name:
        return "an empty name"
    if "\0" in name:
        return "it holds a NUL byte"
    if name in (".", ".."):
        return f"{name!r} names a directory, not a file in it"
    seps = {"/", "\\", os.sep, *([os.altsep] if os.altsep else [])}
    if any(sep in name for sep in seps):
        return "it holds a path separator (a file name is one component: no '/' or '\\')"
    if Path(name).is_absolute() or Path(name).drive:
        return "it is an absolute path"
    return None


def inside(out: str | os.PathLike[str], *names: str) -> Path:
    """The path of ``out/name1/name2...``, refused (``UnsafePathError``)
    unless it stays under ``out``: every name must be one plain component
    (no separator, no ``..``, not absolute, no NUL byte), and the path, with
    every symbolic link already there resolved, must still lie under
    ``out`` (resolved too). ``out`` itself is the user's choice and may be
    anywhere. Every file tcplab writes under an output directory gets its
    path here."""
    base = Path(out)
    for name in names:
        why = _bad_component(name)
        if why is not None:
            raise UnsafePathError(
                f"refusing to write {name!r} under {base}: {why}; "
                "tcplab writes only inside its output directory"
            )
    path = base.joinpath(*names)
    real_base = os.path.realpath(base)
    real = os.path.realpath(path)
    if real != real_base and os.path.commonpath([real_base, real]) != real_base:
        raise UnsafePathError(
            f"refusing to write {'/'.join(names)!r} under {base}: {path} leads to {real} "
            "through a symbolic link, outside the output directory"
        )
    return path


# ------------------------------------------------ writing a directory whole

TMP_PREFIX = ".tcplab-tmp-"
"""Temporary directories of runs being written: ``.tcplab-tmp-<name>-<pid>-<hex>``."""


def _tmp_name(name: str) -> str:
    return f"{TMP_PREFIX}{name}-{os.getpid()}-{os.urandom(4).hex()}"


def _remove_stale_tmp(parent: Path, name: str) -> None:
    """Remove temporary directories of ``name`` in ``parent`` left by
    processes that died while writing (killed, Ctrl-C on ``tcplab run``)."""
    if os.name != "posix" or not parent.is_dir():
        return
    for p in parent.glob(f"{TMP_PREFIX}*"):
        stem, _, rest = p.name.rpartition("-")  # rest: the random hex
        stem, _, pid = stem.rpartition("-")
        if stem != f"{TMP_PREFIX}{name}" or not pid.isdigit() or not rest:
            continue
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            shutil.rmtree(p, ignore_errors=True)
        except OSError:  # alive, another user's
            continue


def write_dir(directory: Path, fill: Callable[[Path], object]) -> Path:
    """Write a run's directory whole: ``fill`` writes every file into a new
    temporary directory, which then becomes ``directory``; if ``fill``
    fails (or is interrupted), the temporary directory is removed and
    ``directory`` is left as it was.

    A ``directory`` that does not exist is the temporary directory renamed
    (it appears whole or not at all). An existing one (an earlier run's, or
    one the user made) is not replaced as a whole, since it may hold the
    user's other files: the new files are renamed into it one by one,
    ``summary.json`` removed first and put back last, and the files of the
    earlier run that this one did not produce are removed (``is_run_file``);
    if that is cut short, the directory has no ``summary.json`` (it reads as
    no run) and the new run is whole in its temporary directory."""
    directory = Path(directory)
    fresh = not directory.exists()
    if fresh:
        parent = directory.parent
        parent.mkdir(parents=True, exist_ok=True)
        name = directory.resolve().name
        _remove_stale_tmp(parent, name)
        tmp = parent / _tmp_name(name)
    else:
        if not directory.is_dir():
            raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), str(directory))
        _remove_stale_tmp(directory, "")
        tmp = directory / _tmp_name("")
    tmp.mkdir()
    try:
        fill(tmp)
        if fresh:
            os.rename(tmp, directory)
        else:
            _commit(tmp, directory)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return directory


def _commit(tmp: Path, directory: Path) -> None:
    """Move the files of ``tmp`` into the existing ``directory``,
    ``summary.json`` last, removing the earlier run's files not replaced."""
    new = sorted(p.name for p in tmp.iterdir())
    stale = [
        p.name
        for p in directory.iterdir()
        if p.name not in new and is_run_file(p.name) and not p.is_dir()
    ]
    # Every name checked before anything changes.
    targets = {name: inside(directory, name) for name in [*new, *stale, SUMMARY_FILE]}
    targets[SUMMARY_FILE].unlink(missing_ok=True)  # from here on, no run until the last rename
    for name in stale:
        targets[name].unlink(missing_ok=True)
    for name in new:
        if name != SUMMARY_FILE:
            os.replace(tmp / name, targets[name])
    if SUMMARY_FILE in new:
        os.replace(tmp / SUMMARY_FILE, targets[SUMMARY_FILE])


# ------------------------------------------------------- reading them back


class ResultFileError(ValueError):
    """A result file that cannot be read (truncated by a full disk or a
    crash, damaged, not what its name says): the message names the file."""


PARQUET_MAGIC = b"PAR1"


def parquet_damage(path: str | os.PathLike[str]) -> str | None:
    """Why ``path`` is not a readable Parquet file, or None when it looks
    whole: it must start and end with the magic bytes ``PAR1``, its footer
    length must fit in the file, and its footer (the schema) must parse.
    Cheap: reads the first and last bytes and the footer, not the data."""
    import polars as pl

    why = _parquet_frame_damage(path)
    if why is not None:
        return why
    try:
        pl.read_parquet_schema(Path(path))
    except Exception as e:  # polars' own error types, whatever the damage
        return f"its footer does not parse ({_first_line(e)})"
    return None


def _parquet_frame_damage(path: str | os.PathLike[str]) -> str | None:
    """``parquet_damage``'s checks of the file's frame (size, magic bytes,
    footer length), without parsing the footer: one small read."""
    p = Path(path)
    try:
        size = p.stat().st_size
        with p.open("rb") as f:
            head = f.read(4)
            f.seek(max(size - 8, 0))
            tail = f.read(8)
    except OSError as e:
        return f"cannot be read ({e.strerror or e})"
    if size < 12:
        return f"{size} bytes, too short for a Parquet file (truncated?)"
    if head != PARQUET_MAGIC:
        return "does not start with the Parquet magic bytes PAR1 (not a Parquet file)"
    if tail[4:] != PARQUET_MAGIC:
        return "does not end with the Parquet magic bytes PAR1 (truncated?)"
    footer = int.from_bytes(tail[:4], "little")
    if footer > size - 12:
        return f"its footer claims {footer} bytes, more than the file holds (damaged)"
    return None


def read_parquet(path: str | os.PathLike[str]) -> pl.DataFrame:
    """Read a result table; a file that is not a whole Parquet file raises
    ``ResultFileError`` naming it and saying what is wrong (as
    ``parquet_damage`` words it; the footer is parsed once, by the read)."""
    import polars as pl

    why = _parquet_frame_damage(path)
    if why is None:
        try:
            return pl.read_parquet(Path(path))
        except MemoryError:
            raise
        except Exception as e:  # polars' own error types, whatever the damage
            why = parquet_damage(path) or _first_line(e)
    raise ResultFileError(unreadable_parquet(path, why))


def unreadable_parquet(path: str | os.PathLike[str], why: str) -> str:
    """How ``read_parquet`` words a file that is not a readable Parquet file."""
    return f"{path}: not a readable Parquet file: {why}"


def _first_line(e: BaseException) -> str:
    text = str(e).strip()
    return text.splitlines()[0] if text else type(e).__name__
