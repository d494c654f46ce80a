"""Sweeps: one scenario file, many runs.

A scenario file may declare axes over any of its own fields and a number of
repetitions::

    repetitions = 10
    until = { metric = "links.r->b.utilisation", ci_halfwidth = 0.02, max = 50 }

    [sweep]
    mode = "grid"                                  # or "zip"
    "host[client].cc" = ["newreno", "cubic"]       # by name in brackets
    "link[1].forward.queue.packets" = [40, 250]    # or by index
    "defaults.host.sndbuf" = ["1MB", "4MB"]        # what every host inherits

A path addresses the file as written: ``host[0]`` is its first ``[[host]]``
table, which may be a ``names = [...]`` list of several hosts (the field then
changes all of them); ``host[b]`` finds ``name = "b"`` or ``names = ["b"]``,
and a name among several of a ``names`` list is an error.

Each run's seed is derived from (base seed, the point's coordinates,
repetition), never from positions or scheduling, so adding a point or a
repetition leaves every other run bit-identical, and any number of worker
processes (or a Dask cluster) gives the same results.

Every finished run is written atomically to ``OUT/runs/<run id>/`` as it
completes (the directory appears whole or not at all); a run that fails writes
``OUT/failed/<run id>.json`` and the sweep goes on. ``resume`` skips runs whose
directory exists. The sweep's tables (``OUT/flows.parquet``...) concatenate
the runs with the coordinates as columns.
"""

from __future__ import annotations

import copy
import hashlib
import itertools
import json
import math
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from tcplab import _core
from tcplab.results import TABLES as results_tables
from tcplab.results import ResultFileError, inside, read_parquet

if TYPE_CHECKING:
    import polars as pl

    from tcplab._core import MemoryPart

__all__ = [
    "RunTask",
    "Sweep",
    "SweepError",
    "derive_seed",
    "load_sweep",
    "read_table",
    "run_task",
]

MANIFEST = "sweep.json"
RUNS = "runs"
FAILED = "failed"
RUN_FILE = "run.json"
TABLES = results_tables
U64 = 2**64


class SweepError(ValueError):
    """A bad ``[sweep]``, ``repetitions`` or ``until``: the message names the
    file, the field, the value and what is allowed, as scenario errors do."""


def _err(path: str, fld: str, value: Any, allowed: str) -> SweepError:
    return SweepError(f"{path}: field `{fld}`: value {value!r}: {allowed}")


@dataclass(frozen=True)
class Until:
    """Add repetitions until the 95 % CI half-width of ``metric`` (relative to
    its mean) is at most ``ci_halfwidth``, or ``max`` repetitions ran."""

    table: str
    row: str
    column: str
    ci_halfwidth: float
    max: int

    @property
    def metric(self) -> str:
        return f"{self.table}.{self.row}.{self.column}"


@dataclass
class Axis:
    """One dimension of a sweep: the ``[sweep]`` key that declares it, and the
    coordinates it moves together, each as (name, fields it sets, values).

    A plain axis (``"host[a].cc" = [...]``) is one coordinate setting one field;
    a shared axis (``buffer = { fields = [...], values = [...] }``) one
    coordinate setting several fields; a zipped group (``pair = { "f1" = [...],
    "f2" = [...] }``) several coordinates whose values go in step."""

    key: str
    coords: list[tuple[str, list[str], list[Any]]]

    def __len__(self) -> int:
        return len(self.coords[0][2])


@dataclass
class SweepSpec:
    """What a scenario file asks to sweep."""

    dims: list[Axis]
    mode: str = "grid"
    repetitions: int = 1
    until: Until | None = None

    @property
    def axes(self) -> list[tuple[str, list[Any]]]:
        """Every coordinate with its values, in file order (the tables' columns)."""
        return [(name, values) for d in self.dims for name, _, values in d.coords]

    @property
    def targets(self) -> dict[str, list[str]]:
        """The fields each coordinate sets."""
        return {name: fields for d in self.dims for name, fields, _ in d.coords}

    @property
    def keys(self) -> dict[str, str]:
        """The ``[sweep]`` key that declares each coordinate."""
        return {name: d.key for d in self.dims for name, _, _ in d.coords}

    def points(self) -> list[dict[str, Any]]:
        """The sweep points: coordinate -> value, in file order."""
        if not self.dims:
            return [{}]
        steps: Iterable[tuple[int, ...]] = (
            zip(*(range(len(d)) for d in self.dims))
            if self.mode == "zip"
            else itertools.product(*(range(len(d)) for d in self.dims))
        )
        return [
            {name: values[i] for d, i in zip(self.dims, step) for name, _, values in d.coords}
            for step in steps
        ]


@dataclass(frozen=True)
class RunTask:
    """One run of a sweep: everything a worker needs, picklable."""

    run_id: str
    point: int
    coords: dict[str, Any]
    rep: int
    seed: int
    text: str
    path: str
    #: ``sim`` or ``linux`` (the real stack, see :mod:`tcplab.realstack`).
    backend: str = "sim"


def derive_seed(base: int, coords: Mapping[str, Any], rep: int) -> int:
    """A 64-bit seed from the base seed, the point's coordinates (by value) and
    the repetition: BLAKE2b of their canonical JSON."""
    key = json.dumps([base, sorted(coords.items()), rep], sort_keys=True, default=str)
    return int.from_bytes(hashlib.blake2b(key.encode(), digest_size=8).digest(), "little")


def point_key(coords: Mapping[str, Any]) -> str:
    """A short stable name for a point (its coordinates' hash)."""
    key = json.dumps(sorted(coords.items()), sort_keys=True, default=str)
    return hashlib.blake2b(key.encode(), digest_size=5).hexdigest()


_INDEX = re.compile(r"-?[0-9]+")


def _parse_path(p: str) -> list[str | int]:
    """``host[client].access.rate`` -> ["host", "client"?, ...]; brackets hold an
    index or a name (marked by a leading NUL so it cannot clash with keys).
    Indexes count from 0; a negative one (Python's "from the end") is refused,
    as it would silently pick another entry when the list grows."""
    out: list[str | int] = []
    for part in p.split("."):
        if not part:
            raise ValueError("empty component")
        name, _, rest = part.partition("[")
        if name:
            out.append(name)
        while rest:
            inner, close, rest = rest.partition("]")
            if not close or not inner:
                raise ValueError(f"unbalanced brackets in {part!r}")
            if _INDEX.fullmatch(inner) and int(inner) < 0:
                first = f"{name}[0] is the first [[{name}]] table" if name else "[0] is the first"
                raise ValueError(
                    f"negative index [{inner}]: indexes count from 0 in file order "
                    f"({first}); counting from the end is not allowed"
                )
            out.append(int(inner) if _INDEX.fullmatch(inner) else "\0" + inner)
            if rest:
                if not rest.startswith("["):
                    raise ValueError(f"unexpected {rest!r} after ']'")
                rest = rest[1:]
    return out


LABEL = "label"
"""In a table-valued axis value, the key naming the value in tables and figures."""


def coord_label(value: Any) -> Any:
    """How a coordinate appears in tables: a table value by its ``label`` (or
    its fields as ``k=v`` pairs), anything else as itself."""
    if isinstance(value, dict):
        if LABEL in value:
            return value[LABEL]
        return ", ".join(f"{k}={v}" for k, v in value.items())
    return value


def _format_path(parts: Sequence[str | int]) -> str:
    """The parts of a field path written back: ``host[client].access``."""
    out = ""
    for p in parts:
        if isinstance(p, int) or p.startswith("\0"):
            out += f"[{str(p).lstrip(chr(0))}]"
        else:
            out += f".{p}" if out else p
    return out


def _entry_named(entries: list[Any], name: str, where: str, table: str) -> int:
    """The index of the entry named ``name``: its ``name``, or ``names = [name]``.
    A name among several of a ``names`` list is an error: a field set on that
    entry would change all of its hosts."""
    for j, e in enumerate(entries):
        if isinstance(e, dict) and (e.get("name") == name or e.get("names") == [name]):
            return j
    for j, e in enumerate(entries):
        names = e.get("names") if isinstance(e, dict) else None
        if isinstance(names, list) and name in names:
            raise KeyError(
                f"`{where}`: {name!r} is one of the names of {table}[{j}] "
                f"(names = {names!r}), which share every field: write {name!r} as its "
                f"own [[{table}]] to sweep it alone, or sweep `{table}[{j}]...` to change "
                f"all of them"
            )
    known: list[str] = []
    for e in entries:
        if isinstance(e, dict):
            names = e.get("names")
            known += [str(n) for n in names] if isinstance(names, list) else [str(e.get("name"))]
    raise KeyError(f"`{where}`: no entry named {name!r} (names: {', '.join(known)})")


def set_field(doc: dict[str, Any], fpath: str, value: Any) -> None:  # noqa: PLR0912
    """Set ``fpath`` in the TOML document ``doc``, creating missing tables.

    A table value (``{ label = "compound", profile = "windows", cc = "compound" }``)
    is merged into the table at ``fpath``, so that one axis can move several
    fields together; its ``label`` key only names it. Raises ``KeyError`` with a
    message saying which component is wrong."""
    parts = _parse_path(fpath)
    node: Any = doc
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        where = _format_path(parts[: i + 1])
        if isinstance(part, int) or part.startswith("\0"):
            if not isinstance(node, list):
                raise KeyError(f"`{where}`: indexes something that is not a list")
            if isinstance(part, int):
                if not 0 <= part < len(node):
                    raise KeyError(f"`{where}`: index {part} out of range ({len(node)} entries)")
                key: Any = part
            else:
                key = _entry_named(node, part[1:], where, _format_path(parts[:i]))
        else:
            if not isinstance(node, dict):
                raise KeyError(f"`{where}`: {type(node).__name__} has no fields")
            key = part
            if not last and part not in node:
                node[part] = [] if isinstance(parts[i + 1], int) else {}
        if not last:
            node = node[key]
            continue
        if isinstance(value, dict):
            fields = {k: v for k, v in value.items() if k != LABEL}
            current = node[key] if isinstance(node, list) or key in node else None
            if isinstance(current, dict):
                current.update(fields)
            else:
                node[key] = fields
        else:
            node[key] = value


def _index_form(doc: Mapping[str, Any], fpath: str) -> str:
    """``fpath`` with entries named in brackets replaced by their indexes
    (``host[b].cc`` -> ``host[1].cc``), as the core's errors write them; the
    path itself when it does not resolve."""
    try:
        parts = _parse_path(fpath)
        node: Any = doc
        out: list[str | int] = []
        for i, part in enumerate(parts):
            key = (
                _entry_named(node, part[1:], fpath, _format_path(parts[:i]))
                if isinstance(part, str) and part.startswith("\0")
                else part
            )
            out.append(key)
            node = node[key] if i + 1 < len(parts) else None
        return _format_path(out)
    except (KeyError, IndexError, TypeError):
        return fpath


MAX_NESTING = 64
"""Arrays and tables nested deeper than this are refused (the core's TOML
parser stops earlier; Python's recursion would fail a few hundred deep)."""


def _load_toml(text: str, path: str) -> dict[str, Any]:
    """Parse a scenario's TOML. Errors are the ones ``tcplab validate`` and
    ``tcplab run`` give for the same text (the core's parser, with line and
    column), a duplicate key naming its field: not tomllib's words."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on 3.9/3.10 only
        import tomli as tomllib  # type: ignore[import-not-found,unused-ignore]
    try:
        doc: dict[str, Any] = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise SweepError(_toml_error(text, path, str(e))) from None
    except RecursionError:
        raise SweepError(_toml_error(text, path, "recursion limit exceeded")) from None
    if _depth(doc) > MAX_NESTING:
        msg = f"arrays or tables nested more than {MAX_NESTING} deep: recursion limit exceeded"
        raise SweepError(_toml_error(text, path, msg))
    return doc


def _depth(doc: Any) -> int:
    """How deep arrays and tables nest in ``doc`` (without recursion)."""
    deepest = 0
    stack = [(doc, 1)]
    while stack:
        node, d = stack.pop()
        deepest = max(deepest, d)
        children = node.values() if isinstance(node, dict) else node
        stack += [(c, d + 1) for c in children if isinstance(c, (dict, list))]
    return deepest


_LOCATED = re.compile(r"^( \(line \d+, column \d+\))?: ")
_LINE_COL = re.compile(r"\s*\(at line (\d+), column (\d+)\)$")
_DUPLICATE = re.compile(
    r"^(?P<where>.*?\(line \d+, column \d+\)): duplicate key `(?P<key>[^`]*)` "
    r"in (?:table `(?P<table>[^`]*)`|document root)$"
)


def _toml_error(text: str, path: str, fallback: str) -> str:
    """The message for text Python's TOML parser refused: the core parser's
    own (what validate and run say, with the line and column where the
    trouble starts), a duplicate key rewritten to name its field; when the
    core parses the text after all, ``fallback`` (tomllib's words) with its
    line and column moved to the front."""
    try:
        _core.validate(text, path)
    except _core.ScenarioError as e:
        msg = str(e)
        what = _LOCATED.sub("", msg[len(path) :]) if msg.startswith(path) else ""
        # A parse error, not a field's (the core names the key a too deep
        # value is written under).
        if what and (not what.startswith("field `") or "recursion limit exceeded" in what):
            m = _DUPLICATE.match(msg)
            if m is None:
                return msg
            table, key = m.group("table"), m.group("key")
            fld = f"{table}.{key}" if table else key
            hint = "give all of an axis's values in one list" if table == "sweep" else ""
            return (
                f"{m.group('where')}: field `{fld}`: set a second time; a key may appear "
                f"only once in a table{f' ({hint})' if hint else ''}"
            )
    m = _LINE_COL.search(fallback)
    if m is not None:
        return f"{path} (line {m.group(1)}, column {m.group(2)}): {fallback[: m.start()]}"
    return f"{path}: {fallback}"


def _check_path(path: str, where: str, fp: Any) -> str:
    if not isinstance(fp, str):
        raise _err(path, where, fp, 'must be a field path such as "host[a].sndbuf"')
    try:
        _parse_path(fp)
    except ValueError as e:
        raise _err(path, where, fp, f"not a field path ({e})") from None
    if fp in ("name", "description"):
        raise _err(path, where, fp, "names the scenario, not a parameter; it cannot be swept")
    if fp in ("seed", "sweep", "repetitions", "until"):
        raise _err(path, where, fp, "cannot be swept (seeds come from repetitions)")
    return fp


def _values(path: str, where: str, v: Any) -> list[Any]:
    if not isinstance(v, list) or not v:
        raise _err(path, where, v, "must be a non-empty list of values")
    _unique_labels(path, where, v)
    return v


def _unique_labels(path: str, where: str, values: list[Any]) -> None:
    """Two different values of one axis must not be named alike in the
    tables (``coord_label``): two ``{ label = "x", ... }`` tables with the
    same label would make their points indistinguishable. (Equal values are
    the "two points are identical" error.)"""
    seen: dict[str, int] = {}
    for i, v in enumerate(values):
        key = json.dumps(coord_label(v), sort_keys=True, default=str)
        j = seen.setdefault(key, i)
        if j != i and values[j] != v:
            raise _err(
                path,
                where,
                coord_label(v),
                f"is the label of two different values, #{j + 1} and #{i + 1} of the list "
                f"({_show(values[j])} and {_show(v)}); each value needs a `{LABEL}` of "
                "its own, which names it in the tables",
            )


def _show(v: Any) -> str:
    """A value as TOML-like text, for messages."""
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{k} = {_show(x)}" for k, x in v.items()) + " }"
    return json.dumps(v, default=str)


def _axis(path: str, k: str, v: Any) -> Axis:
    """One ``[sweep]`` entry: a list (one field), ``{ fields, values }`` (one
    value set on several fields) or a table of field lists (zipped)."""
    if not isinstance(v, dict):
        return Axis(k, [(_check_path(path, f"sweep.{k}", k), [k], _values(path, f"sweep.{k}", v))])
    if "fields" in v or "values" in v:
        extra = sorted(set(v) - {"fields", "values"})
        if extra:
            raise _err(
                path,
                f"sweep.{k}",
                extra[0],
                "unknown key; an axis on several fields has `fields = [...]` and `values = [...]`",
            )
        fields = v.get("fields")
        if not isinstance(fields, list) or not fields:
            raise _err(
                path,
                f"sweep.{k}.fields",
                fields,
                "must be a non-empty list of field paths, "
                'e.g. ["host[s].sndbuf", "host[r].rcvbuf"]',
            )
        paths = [_check_path(path, f"sweep.{k}.fields", f) for f in fields]
        if len(set(paths)) < len(paths):
            raise _err(path, f"sweep.{k}.fields", fields, "names a field twice")
        return Axis(k, [(k, paths, _values(path, f"sweep.{k}.values", v.get("values")))])
    if not v:
        raise _err(
            path,
            f"sweep.{k}",
            v,
            "an empty table; write `fields = [...]` and `values = [...]`, "
            'or zipped axes as "field.path" = [values]',
        )
    coords = [
        (_check_path(path, f"sweep.{k}.{fp}", fp), [fp], _values(path, f"sweep.{k}.{fp}", vals))
        for fp, vals in v.items()
    ]
    if len({len(c[2]) for c in coords}) > 1:
        lens = ", ".join(f"{c[0]}: {len(c[2])}" for c in coords)
        raise _err(
            path, f"sweep.{k}", k, f"the axes of a zipped group must have equal lengths ({lens})"
        )
    return Axis(k, coords)


def _spec(doc: dict[str, Any], path: str) -> SweepSpec:  # noqa: PLR0912 - one check per field
    raw = doc.get("sweep", {})
    if not isinstance(raw, dict):
        raise _err(path, "sweep", raw, 'must be a table of axes: "field.path" = [values]')
    mode = raw.get("mode", "grid")
    if mode not in ("grid", "zip"):
        raise _err(path, "sweep.mode", mode, 'allowed: "grid" (every combination), "zip"')
    dims: list[Axis] = []
    for k, v in raw.items():
        if k == "mode":
            continue
        dims.append(_axis(path, k, v))
    seen: dict[str, str] = {}
    for d in dims:
        for name, _fields, _ in d.coords:
            if name in seen:
                raise _err(
                    path, f"sweep.{d.key}", name, f"names the same column as sweep.{seen[name]}"
                )
            seen[name] = d.key
    set_by: dict[str, str] = {}
    for d in dims:
        for _, fields, _ in d.coords:
            for fp in fields:
                if fp in set_by:
                    raise _err(path, f"sweep.{d.key}", fp, f"is set by sweep.{set_by[fp]} already")
                set_by[fp] = d.key
    if mode == "zip" and len({len(d) for d in dims}) > 1:
        lens = ", ".join(f"{d.key}: {len(d)}" for d in dims)
        raise _err(path, "sweep.mode", mode, f"zipped axes must have equal lengths ({lens})")
    reps = doc.get("repetitions", 1)
    if not isinstance(reps, int) or isinstance(reps, bool) or reps < 1:
        raise _err(path, "repetitions", reps, "must be a whole number >= 1")
    until = None
    if "until" in doc:
        u = doc["until"]
        if not isinstance(u, dict):
            raise _err(path, "until", u, "must be { metric = ..., ci_halfwidth = ..., max = ... }")
        unknown = set(u) - {"metric", "ci_halfwidth", "max"}
        if unknown:
            raise _err(
                path,
                "until",
                sorted(unknown)[0],
                "unknown field; allowed: metric, ci_halfwidth, max",
            )
        metric = u.get("metric")
        parts = metric.split(".", 1) if isinstance(metric, str) else []
        if len(parts) != 2 or parts[0] not in ("flows", "links") or "." not in parts[1]:
            raise _err(
                path,
                "until.metric",
                metric,
                'must be "flows.<flow name>.<column>" or "links.<link name>.<column>"',
            )
        row, col = parts[1].rsplit(".", 1)
        hw = u.get("ci_halfwidth")
        if not isinstance(hw, (int, float)) or isinstance(hw, bool) or not 0 < hw < 1:
            raise _err(path, "until.ci_halfwidth", hw, "must be a fraction of the mean, in (0, 1)")
        mx = u.get("max", 50)
        if not isinstance(mx, int) or isinstance(mx, bool) or mx < max(reps, 2):
            raise _err(
                path,
                "until.max",
                mx,
                f"must be a whole number >= max(repetitions, 2) = {max(reps, 2)}",
            )
        until = Until(parts[0], row, col, float(hw), mx)
        reps = max(reps, 2)
    return SweepSpec(dims=dims, mode=mode, repetitions=reps, until=until)


def _dump_toml(doc: Mapping[str, Any]) -> str:
    import tomli_w

    return tomli_w.dumps(doc)


@dataclass
class Sweep:
    """A scenario file's sweep, ready to run."""

    text: str
    path: str
    doc: dict[str, Any]
    spec: SweepSpec
    base_seed: int
    points: list[dict[str, Any]] = field(default_factory=list)
    overrides: dict[str, Any] = field(default_factory=dict)
    #: The largest memory estimate of one run over the points (set by ``validate``).
    memory_bytes: int = 0
    #: The parts of that estimate (for a refusal naming the fields to change).
    memory_parts: list[MemoryPart] | None = None
    #: What runs it: ``sim`` or ``linux`` (real time, one run at a time).
    backend: str = "sim"
    #: Fields set in the first repetition of every point only (``override_first``).
    first_rep: dict[str, Any] = field(default_factory=dict)

    @property
    def scenario_hash(self) -> str:
        """SHA-256 of the scenario text (and of the overrides, when any)."""
        h = hashlib.sha256(self.text.encode())
        if self.overrides:
            h.update(json.dumps(self.overrides, sort_keys=True, default=str).encode())
        return h.hexdigest()

    def override(self, fields: Mapping[str, Any], repetitions: int | None = None) -> None:
        """Set fields of the base scenario (a shorter ``duration``...) and the
        repetitions, e.g. for a quick version of a study; validates every point."""
        for fpath, value in fields.items():
            set_field(self.doc, fpath, value)
            self.overrides[fpath] = value
        if repetitions is not None:
            self.spec.repetitions = repetitions
            self.overrides["repetitions"] = repetitions
        self.validate()

    def override_first(self, fields: Mapping[str, Any]) -> None:
        """Set fields of the first repetition of every point only: a cwnd
        trace of one run per point, say, beside its untraced repetitions
        (tracing changes no result, so that run is the one it would be
        untraced). Counts in :attr:`scenario_hash`; validates every point. A
        field the sweep sets (or one inside or around it) is refused: the first
        repetition would silently run another point than its coordinates say."""
        swept = {
            f: name
            for name, fs in self.spec.targets.items()
            for g in fs
            for f in (g, _index_form(self.doc, g))
        }
        for fpath in fields:
            for f, name in swept.items():
                if (
                    fpath == f
                    or fpath.startswith((f + ".", f + "["))
                    or f.startswith((fpath + ".", fpath + "["))
                ):
                    raise SweepError(
                        f"{self.path}: {fpath!r} cannot be set in the first repetition only: "
                        f"the sweep's coordinate {name!r} sets {f!r}"
                    )
        for fpath, value in fields.items():
            self.first_rep[fpath] = value
            self.overrides[f"first:{fpath}"] = value
        self.validate()

    def select(self, coords: Mapping[str, Sequence[Any]]) -> None:
        """Keep only the points whose value of each coordinate in ``coords``
        (a column of the sweep's tables, ``"traffic[0].size"``) is one of the
        given labels (as the tables show them: a table value by its
        ``label``). The points kept keep their coordinates, so their run ids
        and seeds are those of the whole sweep; the selection counts in
        :attr:`scenario_hash`."""
        axes = dict(self.spec.axes)
        for name, labels in coords.items():
            if name not in axes:
                raise SweepError(
                    f"{self.path}: no sweep coordinate {name!r} to select from; its "
                    f"coordinates are: {', '.join(axes) or 'none'}"
                )
            known = [coord_label(v) for v in axes[name]]
            bad = [x for x in labels if x not in known]
            if bad:
                raise SweepError(
                    f"{self.path}: sweep coordinate {name!r} has no value {bad[0]!r}; "
                    f"its values are: {', '.join(map(str, known))}"
                )
            self.points = [c for c in self.points if coord_label(c[name]) in labels]
            self.overrides[f"select:{name}"] = list(labels)
        # The memory estimate is of the points kept.
        self.validate()

    def task(self, point: int, rep: int) -> RunTask:
        coords = self.points[point]
        seed = derive_seed(self.base_seed, coords, rep)
        doc = copy.deepcopy(self.doc)
        for k in ("sweep", "repetitions", "until"):
            doc.pop(k, None)
        targets = self.spec.targets
        for name, value in coords.items():
            for fpath in targets[name]:
                set_field(doc, fpath, value)
        if rep == 0:
            for fpath, value in self.first_rep.items():
                set_field(doc, fpath, value)
        label = ", ".join(f"{k} = {coord_label(v)!r}" for k, v in coords.items())
        where = f"{self.path} (sweep point {label})" if label else self.path
        return RunTask(
            run_id=f"{point_key(coords)}-r{rep:03d}",
            point=point,
            coords=coords,
            rep=rep,
            seed=seed,
            text=_dump_toml(doc),
            path=where,
            backend=self.backend,
        )

    def validate(self) -> None:
        """Build and validate every point (repetition 0) with the core, so that a
        bad axis value fails before anything runs; sets :attr:`memory_bytes`
        to the largest point's estimate."""
        self.memory_bytes, self.memory_parts = 0, None
        for i in range(len(self.points)):
            t = self.task(i, 0)
            try:
                info = _core.validate(t.text, t.path)
                self._check_until(info, t.path)
                if int(info["memory_bytes"]) > self.memory_bytes:
                    self.memory_bytes = int(info["memory_bytes"])
                    self.memory_parts = info["memory"]["parts"]
            except _core.ScenarioError as e:
                # The core's line and column count in the point's regenerated
                # text, not in the file: point at the line of the user's file
                # where the axis that gave the bad value is written.
                msg = re.sub(rf"^{re.escape(t.path)} \(line \d+, column \d+\)", t.path, str(e))
                targets = {
                    name: [*fields, *(_index_form(self.doc, f) for f in fields)]
                    for name, fields in self.spec.targets.items()
                }
                axis = _culprit_axis(str(e), targets)
                line = _axis_line(self.text, self.spec.keys[axis]) if axis is not None else None
                if line is not None:
                    msg = msg.replace(
                        t.path, t.path.replace(self.path, f"{self.path}, line {line}", 1), 1
                    )
                raise _core.ScenarioError(msg) from None

    def _check_until(self, info: Mapping[str, Any], where: str) -> None:
        """The ``until`` metric must name a flow or link of the point and a
        column of its table: found before anything runs, not after a run."""
        u = self.spec.until
        if u is None:
            return
        names = info[u.table]
        if u.row not in names:
            what = "flow" if u.table == "flows" else "link"
            raise _err(
                where,
                "until.metric",
                u.metric,
                f"no {what} {u.row!r}; the {u.table}: {', '.join(names) or '(none)'}",
            )
        columns = info["columns"][u.table]
        if u.column not in columns:
            raise _err(
                where,
                "until.metric",
                u.metric,
                f"the {u.table} table has no column {u.column!r}; it has {', '.join(columns)}",
            )

    def tasks(self, reps: int | None = None) -> list[RunTask]:
        """Every (point, repetition) task, ``reps`` repetitions per point."""
        n = self.spec.repetitions if reps is None else reps
        return [self.task(p, r) for p in range(len(self.points)) for r in range(n)]


def _culprit_axis(message: str, targets: Mapping[str, Sequence[str]]) -> str | None:
    """The coordinate whose value a point's error is about: the one setting a
    field the error's field path starts with (the longest such), else the
    only coordinate."""
    m = re.search(r"field `([^`]+)`", message)
    field_path = m.group(1) if m else ""
    hits = [
        (len(f), name)
        for name, fields in targets.items()
        for f in fields
        if field_path == f or field_path.startswith((f + ".", f + "["))
    ]
    if hits:
        return max(hits)[1]
    return next(iter(targets)) if len(targets) == 1 else None


def _axis_line(text: str, axis: str) -> int | None:
    """The 1-based line of ``text`` where the [sweep] table sets ``axis``
    (``axis = ...`` in ``[sweep]``, or a ``[sweep.axis]`` table)."""
    in_sweep = False
    q = re.escape(axis)
    name = rf"(\"{q}\"|'{q}'|{q})"
    key = re.compile(rf"^\s*{name}\s*=")
    table = re.compile(rf"^\s*\[\s*sweep\s*\.\s*{name}\s*\]")
    for i, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if table.match(line):
            return i
        if stripped.startswith("["):
            in_sweep = stripped.startswith("[sweep]")
            continue
        if in_sweep and key.match(line):
            return i
    return None


def load_sweep(text: str, path: str) -> Sweep:
    """Parse a scenario's sweep; raises ``SweepError`` or ``ScenarioError``."""
    doc = _load_toml(text, path)
    spec = _spec(doc, path)
    seed = doc.get("seed", 1)
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise _err(path, "seed", seed, "must be a whole number >= 0")
    sw = Sweep(text=text, path=path, doc=doc, spec=spec, base_seed=int(seed), points=spec.points())
    targets, keys = spec.targets, spec.keys
    for i, coords in enumerate(sw.points):
        for name, value in coords.items():
            for fpath in targets[name]:
                try:
                    set_field(copy.deepcopy(doc), fpath, value)
                except KeyError as e:
                    where = keys[name] if keys[name] == fpath else f"{keys[name]}: {fpath}"
                    raise _err(path, f"sweep.{where}", value, str(e.args[0])) from None
        if i > 0 and coords in sw.points[:i]:
            raise _err(path, "sweep", coords, "two points are identical")
    sw.validate()
    return sw


# --- running ---------------------------------------------------------------------------------


def _worker_init() -> None:
    """Workers leave Ctrl-C to the parent, which stops them (no tracebacks),
    and exit when the parent dies (killed with SIGKILL it cannot stop them):
    a thread watches for the worker being handed to another parent."""
    import signal
    import threading

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    parent = os.getppid()

    def watch() -> None:
        while True:
            time.sleep(0.5)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, name="tcplab-parent-watch", daemon=True).start()


FAULT_ENV = "TCPLAB_FAULT_KILL_RUN"
"""Fault injection for tests: a worker given this run id exits at once, as if killed."""
FAULT_DELAY_ENV = "TCPLAB_FAULT_DELAY_S"
"""For tests: every run first sleeps this many seconds (so that it can be interrupted)."""


def run_task(task: RunTask) -> dict[str, Any]:
    """Run one task (in a worker); never raises: failures come back as data."""
    if os.environ.get(FAULT_ENV) == task.run_id:
        os._exit(70)
    delay = os.environ.get(FAULT_DELAY_ENV)
    if delay:
        time.sleep(float(delay))
    t0 = time.perf_counter()
    try:
        if task.backend == "linux":
            raw = _core.run_linux(task.text, task.path, task.seed)
        else:
            raw = _core.run(task.text, task.path, task.seed)
    except Exception as e:  # a failing run is recorded, the sweep goes on
        return {
            "ok": False,
            "error": f"{type(e).__name__}: {e}",
            "wall_s": time.perf_counter() - t0,
        }
    return {"ok": True, "raw": raw, "wall_s": time.perf_counter() - t0}


_GIT: str | None = None


def git_revision() -> str:
    """The source tree's git revision (with ``-dirty``); outside a checkout
    (an installed wheel) the one the extension was built from, marked
    "(built)"; "" if neither is known."""
    global _GIT  # noqa: PLW0603 - computed once per process
    if _GIT is None:
        here = Path(__file__).resolve().parent
        try:
            rev = subprocess.run(
                ["git", "-C", str(here), "describe", "--always", "--dirty", "--abbrev=12"],
                capture_output=True,
                text=True,
                timeout=5,
                check=True,
            ).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            rev = ""
        if not rev and _core.__git_revision__:
            rev = f"{_core.__git_revision__} (built)"
        _GIT = rev
    return _GIT


def shown_path(path: str) -> str:
    """A scenario's path as provenance records it: a file shipped in the
    package (a study's) as ``tcplab/...``, so that no install directory is
    recorded; any other as given."""
    pkg = Path(__file__).resolve().parent
    try:
        return "tcplab/" + Path(path).resolve().relative_to(pkg).as_posix()
    except (ValueError, OSError):
        return path


def _provenance(sw: Sweep, task: RunTask, wall_s: float) -> dict[str, Any]:
    return {
        "run": task.run_id,
        "point": task.point,
        "coords": task.coords,
        "rep": task.rep,
        "seed": task.seed,
        "scenario": shown_path(sw.path),
        "scenario_sha256": sw.scenario_hash,
        "tcplab_version": _core.__version__,
        "git_revision": git_revision(),
        "wall_s": wall_s,
    }


def _write_run(out: Path, sw: Sweep, task: RunTask, result: Mapping[str, Any]) -> None:
    """Write one finished run whole: a temporary directory renamed into
    place as ``runs/<run id>`` (see ``results.write_dir``), or a failed
    run's ``failed/<run id>.json``."""
    from tcplab.results import Results, _write_atomic

    prov = _provenance(sw, task, float(result["wall_s"]))
    if not result["ok"]:
        inside(out, FAILED).mkdir(parents=True, exist_ok=True)
        prov["error"] = result["error"]
        text = json.dumps(prov, indent=2, default=str) + "\n"
        path = inside(out, FAILED, f"{task.run_id}.json")
        _write_atomic(path, lambda p: p.write_text(text, encoding="utf-8"))
        return
    inside(out, RUNS).mkdir(parents=True, exist_ok=True)
    final = inside(out, RUNS, task.run_id)
    if final.exists():  # an earlier attempt's, found damaged: replaced whole
        shutil.rmtree(final)
    run_json = json.dumps(prov, indent=2, default=str) + "\n"
    Results(result["raw"], scenario=task.text).write(final, extra_files={RUN_FILE: run_json})
    inside(out, FAILED, f"{task.run_id}.json").unlink(missing_ok=True)


def done_runs(out: Path) -> set[str]:
    """The ids of the finished runs in ``out/runs`` (directories with a
    ``run.json``; temporary ones, being written, start with a dot)."""
    d = Path(out) / RUNS
    if not d.is_dir():
        return set()
    return {
        p.name
        for p in d.iterdir()
        if p.is_dir() and not p.name.startswith(".") and (p / RUN_FILE).exists()
    }


def run_damage(run_dir: Path) -> str | None:
    """Why a finished run's directory cannot be trusted (a file truncated by
    a full disk or a crash, damaged, missing), or None. Cheap: JSON files are
    parsed, Parquet files checked by their magic bytes and footer."""
    from tcplab.results import FLOWS_FILE, LINKS_FILE, SUMMARY_FILE, parquet_damage

    for name in (RUN_FILE, SUMMARY_FILE):
        try:
            json.loads((run_dir / name).read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:
            return f"{name} cannot be read ({getattr(e, 'strerror', None) or e})"
    for name in (FLOWS_FILE, LINKS_FILE):
        if not (run_dir / name).is_file():
            return f"{name} is missing"
    for f in sorted(run_dir.glob("*.parquet")):
        why = parquet_damage(f)
        if why is not None:
            return f"{f.name} {why}"
    return None


class _Executor:
    """A local process pool or a Dask client behind one small interface."""

    def __init__(self, jobs: int, scheduler: str | None) -> None:
        self.scheduler = scheduler
        self.jobs = jobs
        self._old_pools: list[Any] = []
        if scheduler is not None:
            self.client = _connect(scheduler)
        else:
            self._new_pool()

    def _new_pool(self) -> None:
        import concurrent.futures as cf
        import multiprocessing as mp

        self.pool = cf.ProcessPoolExecutor(
            max_workers=self.jobs, mp_context=mp.get_context("spawn"), initializer=_worker_init
        )

    def slots(self) -> int:
        """How many runs can execute at once."""
        if self.scheduler is not None:
            return max(1, int(sum(self.client.nthreads().values())))
        return self.jobs

    def abort(self) -> None:
        """Stop at once (an interruption): kill the workers, drop what is
        queued, and wait for the pool's manager thread to finish.

        Waiting matters: a manager thread still tearing the pool down when
        the interpreter exits closes the pool's wake-up pipe while
        ``concurrent.futures``' exit hook writes to it (unlocked), which
        prints a traceback at exit. With the workers dead, the manager
        thread finds them gone and ends at once."""
        if self.scheduler is not None:
            self.client.close()
            return
        import multiprocessing.connection as mpc

        for pool in [*self._old_pools, self.pool]:
            procs = list((getattr(pool, "_processes", None) or {}).values())
            for proc in procs:
                proc.kill()
            for proc in procs:
                mpc.wait([proc.sentinel], timeout=5)
            # A worker killed while it was sending a result leaves part of a
            # message in the result pipe, and the pool's manager thread waits
            # for the rest for ever (seen: a sweep aborted on a full disk hung
            # in shutdown). With the workers gone, the parent's write end is
            # the pipe's last: closing it ends that read (EOF), the manager
            # thread finds the pool broken and stops. Nothing else writes to it.
            queue = getattr(pool, "_result_queue", None)
            writer = getattr(queue, "_writer", None)
            if writer is not None:
                writer.close()
        self._join_pools(cancel=True)

    def _join_pools(self, cancel: bool) -> None:
        """Shut every pool down and wait for its threads (see ``abort``)."""
        for pool in [*self._old_pools, self.pool]:
            pool.shutdown(wait=True, cancel_futures=cancel)
        self._old_pools.clear()

    def _replace_pool(self) -> None:
        """A worker died: the pool is broken; start a new one. The old one
        is shut down now and joined at the end (``close``, ``abort``)."""
        self.pool.shutdown(wait=False, cancel_futures=True)
        self._old_pools.append(self.pool)
        self._new_pool()

    def worker_died(self, fut: Any) -> bool:
        """Whether ``fut`` failed because its worker process died (local pool);
        the pool is then replaced so that the sweep can go on."""
        if self.scheduler is not None:
            return False
        from concurrent.futures.process import BrokenProcessPool

        if isinstance(fut.exception(), BrokenProcessPool):
            if getattr(self.pool, "_broken", False):
                self._replace_pool()
            return True
        return False

    def submit(self, task: RunTask) -> Any:
        if self.scheduler is not None:
            return self.client.submit(
                run_task, task, pure=False, key=f"tcplab-{task.run_id}-{os.urandom(3).hex()}"
            )
        from concurrent.futures.process import BrokenProcessPool

        try:
            return self.pool.submit(run_task, task)
        except BrokenProcessPool:  # a worker died since the last look: a fresh pool
            self._replace_pool()
            return self.pool.submit(run_task, task)

    def wait_any(self, futures: set[Any]) -> tuple[set[Any], set[Any]]:
        if self.scheduler is not None:
            from distributed import wait

            r = wait(list(futures), return_when="FIRST_COMPLETED")  # type: ignore[no-untyped-call]
            return set(r.done), set(r.not_done)
        import concurrent.futures as cf

        d, nd = cf.wait(futures, return_when=cf.FIRST_COMPLETED)
        return set(d), set(nd)

    @staticmethod
    def result(fut: Any) -> dict[str, Any]:
        try:
            res: dict[str, Any] = fut.result()
        except Exception as e:  # a killed worker: record it, go on
            return {"ok": False, "error": f"worker failed: {type(e).__name__}: {e}", "wall_s": 0.0}
        return res

    def close(self) -> None:
        if self.scheduler is not None:
            self.client.close()
        else:
            self._join_pools(cancel=True)


def _connect(scheduler: str) -> Any:
    """A Dask client of the scheduler at ``scheduler``; ``SweepError`` when
    the address is empty or the scheduler cannot be reached.

    Only ever with an address: ``distributed.Client()`` without one would
    start a ``LocalCluster`` of its own, whose dashboard listens on every
    interface (0.0.0.0:8787). The connection times out after Dask's
    ``distributed.comm.timeouts.connect`` (30 s by default)."""
    if not isinstance(scheduler, str) or not scheduler.strip():
        raise SweepError(
            f"--scheduler: {scheduler!r} is not an address; give the Dask scheduler's, "
            "e.g. tcp://head:8786"
        )
    from distributed import Client

    try:
        return Client(scheduler)  # type: ignore[no-untyped-call]
    except (OSError, TimeoutError) as e:
        raise SweepError(
            f"cannot reach the Dask scheduler at {scheduler}: {e} "
            "(is `dask scheduler` running there, and reachable from this machine?)"
        ) from None


@dataclass
class Progress:
    """What the progress callback is told after every finished run."""

    done: int
    total: int
    failed: int
    sim_s: float
    wall_s: float


def _metric(raw: Mapping[str, Any], until: Until) -> float | None:
    """The run's value of the `until` metric; None when it has none (NaN);
    KeyError when the table has no such row or numeric column."""
    table = raw[until.table]
    names = list(table.get("name", []))
    if until.row not in names or until.column not in table:
        raise KeyError(until.metric)
    v = table[until.column][names.index(until.row)]
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise KeyError(until.metric)
    return float(v) if math.isfinite(float(v)) else None


def _ci_ok(values: Sequence[float], until: Until) -> bool:
    from tcplab.analysis import mean_ci

    if len(values) < 2:
        return False
    m, hw = mean_ci(values)
    if hw == 0:
        return True  # identical values: nothing more to learn
    return m != 0 and abs(hw / m) <= until.ci_halfwidth


def _read_manifest(outp: Path) -> dict[str, Any]:
    try:
        info: dict[str, Any] = json.loads((outp / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise SweepError(f"{outp / MANIFEST}: unreadable sweep manifest ({e})") from None
    return info


def run_sweep(  # noqa: PLR0912, PLR0915 - one loop: submit, collect, repeat until
    sw: Sweep,
    out: str | os.PathLike[str],
    *,
    jobs: int | None = None,
    scheduler: str | None = None,
    resume: bool = False,
    on_progress: Callable[[Progress], None] | None = None,
    on_note: Callable[[str], None] | None = None,
) -> Path:
    """Run every point and repetition; write each run as it finishes, then the
    sweep's tables. Returns the output directory.

    Without ``resume`` the runs of an earlier sweep in ``out`` are removed
    first. With it, a finished run whose files are damaged (``run_damage``:
    truncated by a full disk, say) is run again, and ``on_note`` (default:
    print to stderr) is told so. On KeyboardInterrupt the workers are
    stopped and the exception propagates: every run finished until then is
    on disk for ``resume``. A run that cannot be written (a full disk)
    raises ``OSError``; the runs written before it stay.

    With ``sw.backend == "linux"`` the runs are real-time runs on this
    machine's kernel: one at a time, whatever ``jobs`` says, and never on a
    cluster."""
    outp = Path(out)
    if sw.backend == "linux":
        if scheduler:
            raise SweepError(
                f"{sw.path}: the linux backend runs on this machine in real time, "
                "one run at a time: it cannot use --scheduler"
            )
        jobs = 1
        try:
            _core.check_linux(sw.task(0, 0).text, sw.path)
        except _core.BackendError as e:
            raise SweepError(str(e)) from e
    outp.mkdir(parents=True, exist_ok=True)
    manifest = outp / MANIFEST
    if manifest.exists() and resume:
        old = _read_manifest(outp)
        if old.get("backend", "sim") != sw.backend:
            raise SweepError(
                f"{outp}: holds runs of the {old.get('backend', 'sim')} backend; "
                f"resume with the same backend, or use a new --out"
            )
        if old.get("scenario_sha256") != sw.scenario_hash:
            raise SweepError(
                f"{outp}: holds a sweep of another version of the scenario "
                f"({old.get('scenario')}); resume only the same file, or use a new --out"
            )
    if not resume:
        for sub in (RUNS, FAILED):
            _remove_tree(inside(outp, sub))
    elif inside(outp, RUNS).is_dir():
        for stale in (outp / RUNS).glob(".*"):  # runs cut short by an interruption
            if stale.is_dir() and not stale.is_symlink():
                shutil.rmtree(stale, ignore_errors=True)
    from tcplab.results import _write_atomic

    info = {
        "scenario": shown_path(sw.path),
        "scenario_sha256": sw.scenario_hash,
        "scenario_text": sw.text,
        "overrides": sw.overrides,
        "axes": [[k, v] for k, v in sw.spec.axes],
        "fields": sw.spec.targets,
        "mode": sw.spec.mode,
        "repetitions": sw.spec.repetitions,
        "until": None
        if sw.spec.until is None
        else sw.spec.until.__dict__ | {"metric": sw.spec.until.metric},
        "base_seed": sw.base_seed,
        "backend": sw.backend,
        "tcplab_version": _core.__version__,
        "git_revision": git_revision(),
    }
    text = json.dumps(info, indent=2, default=str) + "\n"
    _write_atomic(inside(outp, MANIFEST), lambda p: p.write_text(text, encoding="utf-8"))

    done = done_runs(outp) if resume else set()
    for rid in sorted(done):
        why = run_damage(outp / RUNS / rid)
        if why is not None:
            _note(on_note, f"{outp / RUNS / rid}: {why}: running it again")
            shutil.rmtree(inside(outp, RUNS, rid))
            done.discard(rid)
    u = sw.spec.until
    reps = [sw.spec.repetitions] * len(sw.points)
    metrics: list[dict[int, float]] = [{} for _ in sw.points]
    if resume:
        # Repetitions an earlier `until` added, finished or failed, are part of the sweep.
        recorded = [
            (d, json.loads((outp / RUNS / d / RUN_FILE).read_text(encoding="utf-8"))) for d in done
        ]
        recorded += [("", f) for f in failures(outp)]
        for rid, prov in recorded:
            p, r = int(prov["point"]), int(prov["rep"])
            if p < len(reps) and sw.task(p, r).run_id == prov["run"]:
                reps[p] = max(reps[p], r + 1)
                if u is not None and rid:
                    m = _metric_from_dir(outp / RUNS / rid, u)
                    if m is not None:
                        metrics[p][r] = m
    pending = [
        t
        for p in range(len(sw.points))
        for t in (sw.task(p, r) for r in range(reps[p]))
        if t.run_id not in done
    ]
    total = sum(reps)
    n_done = total - len(pending)
    failed = 0
    sim_s = 0.0
    t0 = time.perf_counter()
    if jobs is None:
        affinity = getattr(os, "sched_getaffinity", None)
        jobs = len(affinity(0)) if affinity is not None else (os.cpu_count() or 1)
    if scheduler is None and pending and sw.backend == "sim":
        from tcplab import memory

        memory.check(sw.path, sw.memory_bytes, min(jobs, len(pending)), parts=sw.memory_parts)
    ex = _Executor(jobs, scheduler)
    futures: dict[Any, RunTask] = {}
    suspects: list[RunTask] = []  # in flight when a worker died
    alone: set[str] = set()  # suspects rerun with nothing else in flight
    queue = list(pending)
    in_flight_max = max(2 * ex.slots(), 4)

    def more(p: int) -> None:
        """Add a repetition to point ``p`` when `until` asks for one."""
        nonlocal total
        if u is None or reps[p] >= u.max:
            return
        if any(t.point == p for t in futures.values()) or any(t.point == p for t in queue):
            return
        if any(t.point == p for t in suspects) or _ci_ok(list(metrics[p].values()), u):
            return
        queue.append(sw.task(p, reps[p]))
        reps[p] += 1
        total += 1

    def fill() -> None:
        if suspects or any(t.run_id in alone for t in futures.values()):
            if not futures and suspects:
                t = suspects.pop(0)
                alone.add(t.run_id)
                futures[ex.submit(t)] = t
            return
        while queue and len(futures) < in_flight_max:
            t = queue.pop(0)
            futures[ex.submit(t)] = t

    try:
        for p in range(len(sw.points)):
            more(p)  # a resumed point whose repetitions all finished
        fill()
        while futures:
            finished, _ = ex.wait_any(set(futures))
            for fut in finished:
                task = futures.pop(fut)
                if ex.worker_died(fut) and task.run_id not in alone:
                    # Every run in flight when a worker died fails with it: run
                    # each again alone, so that a death is the dying run's own.
                    suspects.append(task)
                    continue
                res = ex.result(fut)
                _write_run(outp, sw, task, res)
                n_done += 1
                if res["ok"]:
                    sim_s += float(res["raw"]["meta"]["duration_s"])
                    if u is not None:
                        try:
                            m = _metric(res["raw"], u)
                        except KeyError:
                            raise SweepError(_bad_metric(sw, u, res["raw"])) from None
                        if m is not None:
                            metrics[task.point][task.rep] = m
                else:
                    failed += 1
                more(task.point)
                if on_progress is not None:
                    on_progress(Progress(n_done, total, failed, sim_s, time.perf_counter() - t0))
            fill()
        ex.close()
    except BaseException:
        ex.abort()
        raise
    collect(outp)
    return outp


def _note(on_note: Callable[[str], None] | None, message: str) -> None:
    if on_note is None:
        print(f"note: {message}", file=sys.stderr)
    else:
        on_note(message)


def _remove_tree(path: Path) -> None:
    """Remove a directory of an earlier sweep's results (refused by
    ``inside`` when it leads out of the output directory)."""
    if path.is_dir():
        shutil.rmtree(path)


def _bad_metric(sw: Sweep, u: Until, raw: Mapping[str, Any]) -> str:
    table = raw[u.table]
    names = ", ".join(str(n) for n in table.get("name", []))
    cols = ", ".join(c for c in table if c != "name")
    return (
        f"{sw.path}: field `until.metric`: value {u.metric!r}: no {u.table} row "
        f"{u.row!r} with a numeric column {u.column!r}; {u.table}: {names}; columns: {cols}"
    )


def _metric_from_dir(run_dir: Path, until: Until) -> float | None:
    """`_metric` of a run already on disk (its table as written); None also
    when the table lacks the row or column."""
    columns = read_parquet(run_dir / f"{until.table}.parquet").to_dict(as_series=False)
    try:
        return _metric({until.table: columns}, until)
    except KeyError:
        return None


# --- results ---------------------------------------------------------------------------------


_RESUME_HINT = "run the sweep again with --resume to redo that run"


def _read_json(path: Path, hint: str = _RESUME_HINT) -> Any:
    """A JSON file of a sweep's output; ``ResultFileError`` naming it when it
    cannot be read."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        why = getattr(e, "strerror", None) or e
        raise ResultFileError(f"{path}: cannot be read ({why}); {hint}") from None


def _runs(out: Path) -> Iterator[tuple[Path, dict[str, Any]]]:
    for rid in sorted(done_runs(out)):
        d = out / RUNS / rid
        yield d, _read_json(d / RUN_FILE)


def _prov_exprs(prov: Mapping[str, Any], axes: Sequence[str]) -> list[pl.Expr]:
    """A run's provenance columns as literals: run, point, each axis's
    coordinate, rep, seed."""
    import polars as pl

    cols = [pl.lit(prov["run"]).alias("run"), pl.lit(prov["point"]).alias("point")]
    for a in axes:
        v = coord_label(prov["coords"].get(a))
        cols.append(pl.lit(v).alias(a))
    cols += [pl.lit(prov["rep"]).alias("rep"), pl.lit(prov["seed"], dtype=pl.UInt64).alias("seed")]
    return cols


def _table_base(table: str) -> str:
    """The file name, less ``.parquet``, of a table named as in ``TABLES``, as
    a trace (``cwnd``) or as its file (``trace_cwnd``); ValueError for others."""
    from tcplab.results import TRACE_PREFIX, TRACES

    if table in TABLES:
        return table
    trace = table[len(TRACE_PREFIX) :] if table.startswith(TRACE_PREFIX) else table
    if trace in TRACES:
        return f"{TRACE_PREFIX}{trace}"
    allowed = [*TABLES, *TRACES, *(f"{TRACE_PREFIX}{t}" for t in TRACES)]
    raise ValueError(f"no table {table!r}; allowed: {', '.join(allowed)}")


def read_table(out: str | os.PathLike[str], table: str) -> pl.DataFrame:
    """One table of a sweep (flows, links, phases, link_phases, generators,
    transfers, or a trace: cwnd, rtt, queue, also named as its file,
    trace_cwnd...) over every finished run, tidy: one row per run and flow (or
    link...), with the run, point, coordinates, rep and seed first. A table no
    run has is empty (no columns); a name that is no table is a ValueError."""
    import polars as pl

    fname = f"{_table_base(table)}.parquet"
    outp = Path(out)
    axes = [a for a, _ in _read_manifest(outp)["axes"]]
    runs = _table_runs(outp, fname)
    if not runs:
        return pl.DataFrame()
    current = _collected_table(outp / fname, runs, axes)
    if current is not None:
        return current
    return _concat_runs(runs, axes)


def _concat_runs(
    runs: Sequence[tuple[Path, Mapping[str, Any]]], axes: Sequence[str]
) -> pl.DataFrame:
    """``read_table``'s table of ``runs`` (each run's table file and
    provenance, in point/rep order), read from the runs' files."""
    from concurrent.futures import ThreadPoolExecutor

    import numpy as np
    import polars as pl

    # polars reads outside the GIL: a few threads read the runs' files at
    # once (in order; the first damaged file in run order is the one named).
    with ThreadPoolExecutor(max_workers=min(8, os.cpu_count() or 1)) as pool:
        frames = list(pool.map(_read_run_table, [f for f, _ in runs]))
    # Each run's provenance as a one-row frame of literals, concatenated and
    # repeated over the run's rows: the same table as selecting the
    # provenance beside each run's frame and concatenating, in one pass.
    prov = pl.concat([pl.select(_prov_exprs(p, axes)) for _, p in runs], how="diagonal_relaxed")
    rows = np.repeat(np.arange(len(frames)), [f.height for f in frames])
    repeated = prov.select(pl.all().gather(pl.Series(rows)))
    data = pl.concat(frames, how="diagonal_relaxed")
    return repeated.hstack(data).sort(["point", "rep"], maintain_order=True)


def _table_runs(
    outp: Path, fname: str, done: Sequence[tuple[Path, dict[str, Any]]] | None = None
) -> list[tuple[Path, dict[str, Any]]]:
    """The finished runs that have the table file ``fname``: (its path, the
    run's provenance), in the tables' row order, point then rep (so that the
    columns of runs that differ come in one order, whoever reads them)."""
    runs = [(d / fname, prov) for d, prov in (_runs(outp) if done is None else done)]
    return sorted(
        ((f, p) for f, p in runs if f.exists()), key=lambda r: (r[1]["point"], r[1]["rep"])
    )


def scan_table(out: str | os.PathLike[str], table: str) -> pl.LazyFrame:
    """``read_table`` as a LazyFrame: a scan of the table ``collect`` wrote
    when it is current (so that a report reads only the columns and rows it
    needs: traces can be millions of rows), else ``read_table``'s frame."""
    import polars as pl

    fname = f"{_table_base(table)}.parquet"
    outp = Path(out)
    axes = [a for a, _ in _read_manifest(outp)["axes"]]
    runs = _table_runs(outp, fname)
    if not runs:
        return pl.LazyFrame()
    if _collected_is_current(outp / fname, runs, axes):
        return pl.scan_parquet(outp / fname)
    return _concat_runs(runs, axes).lazy()


def _collected_is_current(
    path: Path, runs: Sequence[tuple[Path, Mapping[str, Any]]], axes: Sequence[str]
) -> bool:
    """Whether the table ``collect`` wrote at ``path`` is that of exactly
    these runs' files (``runs``: each run's table file and provenance) on
    these ``axes``: written strictly after every one of them was written or
    put in place (their modification and change times: a run copied in with
    its old times has a new change time), with the same runs and the
    provenance columns of these axes. Not when a run was added, removed or
    redone since (file times are coarse, a few ms: a run written in the same
    tick as the table counts as newer), nor when it cannot be read."""
    import polars as pl

    try:
        written = path.stat().st_mtime_ns
        for f, _ in runs:
            st = f.stat()
            if max(st.st_mtime_ns, st.st_ctime_ns) >= written:
                return False
        lf = pl.scan_parquet(path)
        prov = ["run", "point", *axes, "rep", "seed"]
        if lf.collect_schema().names()[: len(prov)] != prov:
            return False
        have = lf.select("run").collect()["run"]
    except Exception:  # absent, unreadable: not current
        return False
    return set(have.unique().to_list()) == {p["run"] for _, p in runs}


def _collected_table(
    path: Path, runs: Sequence[tuple[Path, Mapping[str, Any]]], axes: Sequence[str]
) -> pl.DataFrame | None:
    """The table ``collect`` wrote at ``path`` when it is current for
    ``runs`` and ``axes`` (``_collected_is_current``), else None."""
    if not _collected_is_current(path, runs, axes):
        return None
    try:
        return read_parquet(path)
    except ResultFileError:
        return None


def _read_run_table(path: Path) -> pl.DataFrame:
    """A run's table; a damaged file raises ``ResultFileError`` naming it
    and saying how to redo the run."""
    try:
        return read_parquet(path)
    except ResultFileError as e:
        raise ResultFileError(f"{e}; {_RESUME_HINT}") from None


def collect(out: str | os.PathLike[str], csv: bool = False) -> list[Path]:
    """Write the sweep's tidy tables, every table and trace any finished run
    has, and return them. With ``csv`` each gets a CSV copy; without, CSV
    copies are removed, so that none is older than its table. A table no run
    has (left by an earlier sweep in the directory) is removed."""
    import polars as pl

    from tcplab.results import TRACE_PREFIX, TRACES, _write_atomic, polars_io

    outp = Path(out)
    axes = [a for a, _ in _read_manifest(outp)["axes"]]
    done = list(_runs(outp))
    written = []
    for base in [*TABLES, *(f"{TRACE_PREFIX}{t}" for t in TRACES)]:
        fname = f"{base}.parquet"
        parquet, copy_ = inside(outp, fname), inside(outp, f"{base}.csv")
        runs = _table_runs(outp, fname, done)
        if runs and not _collected_is_current(parquet, runs, axes):
            if base.startswith(TRACE_PREFIX):
                # Traces can be millions of rows: streamed, never held whole.
                _sink_table(parquet, runs, axes)
            else:
                # The per-run tables are small: at once (many small scans
                # cost more than they save).
                _write_atomic(parquet, polars_io(_concat_runs(runs, axes).write_parquet))
        if not runs or _rows(parquet) == 0:
            parquet.unlink(missing_ok=True)
            copy_.unlink(missing_ok=True)
            continue
        written.append(parquet)
        if csv:
            lf = pl.scan_parquet(parquet)
            nested = [c for c, t in lf.collect_schema().items() if t.is_nested()]
            _write_atomic(copy_, polars_io(lf.drop(nested).sink_csv))
            written.append(copy_)
        else:
            copy_.unlink(missing_ok=True)
    return written


def _sink_table(
    parquet: Path, runs: Sequence[tuple[Path, Mapping[str, Any]]], axes: Sequence[str]
) -> None:
    """Write read_table's table of ``runs`` to ``parquet`` streaming (the
    runs' files are scanned batch by batch, never held whole). A damaged
    run file is named as read_table names it."""
    import polars as pl

    from tcplab.results import _write_atomic, parquet_damage, polars_io, unreadable_parquet

    lf = pl.concat(
        [pl.scan_parquet(f).select([*_prov_exprs(p, axes), pl.all()]) for f, p in runs],
        how="diagonal_relaxed",
    )
    try:
        _write_atomic(parquet, polars_io(lf.sink_parquet))
    except Exception:
        # Name a damaged run file as read_table would (its footer checked,
        # not its data: the traces are not read whole here either).
        for f, _ in runs:
            why = parquet_damage(f)
            if why is not None:
                raise ResultFileError(f"{unreadable_parquet(f, why)}; {_RESUME_HINT}") from None
        raise


def _rows(parquet: Path) -> int:
    """Rows of a Parquet file (from its footer); 0 when there is none."""
    import polars as pl

    if not parquet.exists():
        return 0
    return int(pl.scan_parquet(parquet).select(pl.len()).collect().item())


def failures(out: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """The runs that failed, with their error."""
    d = Path(out) / FAILED
    if not d.is_dir():
        return []
    hint = "remove it, or run the sweep again (with --resume to keep the finished runs)"
    return [_read_json(p, hint) for p in sorted(d.glob("*.json"))]


# The columns that identify a row within one run, per table.
_ROW_KEYS = {
    "flows": ["name"],
    "links": ["name"],
    "generators": ["name"],
    "phases": ["flow", "phase"],
    "link_phases": ["link", "phase"],
    "transfers": ["generator"],
    "episodes": ["flow"],
    "hosts": ["name"],
    "timing": ["link"],
}


def summarize(out: str | os.PathLike[str], table: str = "flows") -> pl.DataFrame:
    """Mean, std and 95 % CI half-width (Student t) of every numeric column of
    ``table`` over the repetitions of each sweep point, per row (flow, link,
    generator, or flow and phase; episodes per flow): columns ``<col>_mean``, ``<col>_std``,
    ``<col>_ci95`` and ``<col>_n`` (the runs with a value: NaN and nulls are
    left out), and ``n`` (the runs). Transfers (and loss episodes) are first
    averaged per run and generator (flow), so that a run, not a transfer, is
    one replicate."""
    import polars as pl

    from tcplab.analysis import describe

    df = read_table(out, table)
    if df.height == 0:
        return df
    axes = [a for a, _ in _read_manifest(Path(out))["axes"]]
    ids = [c for c in _ROW_KEYS.get(table, []) if c in df.columns]
    skip = {"run", "point", "rep", "seed", *axes, *ids}
    numeric = [c for c, t in df.schema.items() if c not in skip and t.is_numeric()]
    if table in ("transfers", "episodes"):
        df = df.with_columns([pl.col(c).cast(pl.Float64).fill_nan(None) for c in numeric])
        df = df.group_by(["run", "point", *axes, *ids], maintain_order=True).agg(
            [pl.col(c).mean() for c in numeric]
        )
    return describe(df, ["point", *axes, *ids], numeric)
