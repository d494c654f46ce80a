"""Real-stack runs stored in the package, for ``reproduce --sim-only``.

A study's real-stack parts take real time and root (linux-check's: about 7.5
hours on the kernel); its simulator's side takes minutes. So the kernel's side
of a finished study is stored in the package, one file per part group,
``data/<study>/kernel/<group>.json.gz``, and ``tcplab reproduce <study>
--sim-only`` compares a fresh simulator's side with it when ``--out`` holds
no real-stack runs of its own: no root, no kernel, from a plain install.

What is kept of a run (:func:`pack`): its ``run.json`` (point, coordinates,
seed, the scenario's hash), its summary's ``meta``, every table it wrote
(flows, links, phases, the emulator's timing and the receivers' ACK lag, the
generated transfers: their columns and types, NaN and null kept apart), and
per flow the time average of the smoothed RTT over the measurement window
read from its cwnd trace (``srtt_window_mean_s``: the statistic the
comparison uses). The traces themselves are not kept (about 60 kB a run),
so a report made against stored runs has no overlays. Beside the runs: the
sweep's manifest and where the runs were made (kernel release, HZ, cores,
the days of the runs).

:func:`restore` writes them back as an ordinary sweep directory (the tables a
reader needs, as Parquet) that :mod:`tcplab.compare` reads as it reads runs
made here. ``tools/store_kernel_runs.py`` writes the files from a study's
output directory.
"""

from __future__ import annotations

import gzip
import io
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

FORMAT = 1
#: Written beside a restored sweep's manifest: where its runs were made.
ORIGIN_FILE = "stored.json"
#: The tables a summary holds, in its order (``Results.summary``).
_SUMMARY_TABLES = ("flows", "links", "phases", "link_phases", "generators", "timing")


class StoredRunsError(ValueError):
    """A stored file that cannot be read or restored, named."""


def pack(sweep_dir: str | os.PathLike[str], origin: Mapping[str, Any]) -> dict[str, Any]:
    """The stored form of the finished sweep ``sweep_dir`` (its runs in run
    id order); ``origin`` says where they were made."""
    from tcplab.compare import window_srtt
    from tcplab.results import SUMMARY_FILE, TRACE_PREFIX, read_parquet
    from tcplab.sweep import MANIFEST, RUN_FILE, RUNS, done_runs

    d = Path(sweep_dir)
    runs = []
    for rid in sorted(done_runs(d)):
        rd = d / RUNS / rid
        summary = json.loads((rd / SUMMARY_FILE).read_text(encoding="utf-8"))
        srtt = window_srtt(rd, summary)  # a restored run's from its summary
        tables: dict[str, dict[str, Any]] = {}
        for f in sorted(rd.glob("*.parquet")):
            if f.name.startswith(TRACE_PREFIX):
                continue
            df = read_parquet(f)
            tables[f.stem] = {
                "schema": {c: str(t) for c, t in df.schema.items()},
                "columns": df.to_dict(as_series=False),
            }
        n = len(_flow_names(tables))
        runs.append(
            {
                "run": json.loads((rd / RUN_FILE).read_text(encoding="utf-8")),
                "meta": summary["meta"],
                "srtt_window_mean_s": [srtt.get(i) for i in range(n)],
                "tables": tables,
            }
        )
    return {
        "format": FORMAT,
        "origin": dict(origin),
        "manifest": json.loads((d / MANIFEST).read_text(encoding="utf-8")),
        "runs": runs,
    }


def _flow_names(tables: Mapping[str, Any]) -> list[Any]:
    """The flows' names of a stored run's tables (none without a flows table)."""
    flows = tables.get("flows")
    return list(flows["columns"].get("name", [])) if flows else []


def write(data: Mapping[str, Any], path: str | os.PathLike[str]) -> Path:
    """``data`` (:func:`pack`'s) as gzipped JSON at ``path``: the same bytes
    for the same runs (no time stamp in the gzip header). A NaN (a table's
    "no sample") is written as JSON's extension ``NaN``, so that it comes
    back NaN and a null comes back null."""
    text = json.dumps(data, separators=(",", ":"))
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb", mtime=0, compresslevel=9) as gz:
        gz.write(text.encode("utf-8"))
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_bytes(buf.getvalue())
    return p


def read(path: str | os.PathLike[str] | Any) -> dict[str, Any]:
    """A stored file (a path or an ``importlib.resources`` traversable)."""
    f = Path(path) if isinstance(path, (str, os.PathLike)) else path
    try:
        with f.open("rb") as fh, gzip.GzipFile(fileobj=fh) as gz:
            data: Any = json.loads(gz.read().decode("utf-8"))
    except (OSError, ValueError, EOFError) as e:
        raise StoredRunsError(f"{path}: not a stored-runs file ({e})") from e
    got = data.get("format") if isinstance(data, dict) else None
    if got != FORMAT:
        raise StoredRunsError(f"{path}: stored-runs format {got!r}, this tcplab reads {FORMAT}")
    return dict(data)


def restore(data: Mapping[str, Any], dest: str | os.PathLike[str]) -> int:
    """Write the stored runs ``data`` as the sweep directory ``dest`` (which
    must not hold a sweep yet): per run its ``run.json``, its tables as
    Parquet and a ``summary.json`` made of them as ``Results.summary`` makes
    it, each flow's record with its ``srtt_window_mean_s``. Returns how many
    runs."""
    from tcplab import _core
    from tcplab.compare import WINDOW_SRTT
    from tcplab.results import SUMMARY_FILE, _finite, write_dir
    from tcplab.sweep import MANIFEST, RUN_FILE, RUNS

    out = Path(dest)
    if (out / MANIFEST).exists():
        raise StoredRunsError(f"{out} already holds a sweep: not overwritten")

    def fill(tmp: Path) -> None:
        for run in data["runs"]:
            rd = tmp / RUNS / str(run["run"]["run"])
            rd.mkdir(parents=True)
            summary: dict[str, Any] = {"meta": run["meta"]}
            frames = {name: _frame(t) for name, t in run["tables"].items()}
            for name, df in frames.items():
                df.write_parquet(rd / f"{name}.parquet")
            for name in _SUMMARY_TABLES:
                df = frames.get(name)
                if df is None or df.height > _core.SUMMARY_MAX_ROWS:
                    continue
                if df.height or name in ("flows", "links"):
                    summary[name] = [_finite(r) for r in df.iter_rows(named=True)]
            for rec, v in zip(summary.get("flows", []), run["srtt_window_mean_s"]):
                rec[WINDOW_SRTT] = v
            (rd / SUMMARY_FILE).write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
            (rd / RUN_FILE).write_text(json.dumps(run["run"], indent=2) + "\n", encoding="utf-8")
        (tmp / ORIGIN_FILE).write_text(
            json.dumps(data["origin"], indent=2) + "\n", encoding="utf-8"
        )
        (tmp / MANIFEST).write_text(json.dumps(data["manifest"], indent=2) + "\n", encoding="utf-8")

    write_dir(out, fill)
    return len(data["runs"])


def _frame(table: Mapping[str, Any]) -> Any:
    """A stored table as the run's Parquet table had it: its columns in its
    order, each of its type (by polars' name; a type with parameters, such as
    a list, as inferred)."""
    import polars as pl

    schema = table["schema"]
    df = pl.DataFrame(table["columns"], infer_schema_length=None, strict=False)
    types = {c: getattr(pl, t) for c, t in schema.items() if t.isidentifier() and hasattr(pl, t)}
    return df.cast(types).select(list(schema))


def origin(sweep_dir: str | os.PathLike[str]) -> dict[str, Any] | None:
    """Where the runs of a restored sweep were made; None for runs made here."""
    p = Path(sweep_dir) / ORIGIN_FILE
    if not p.is_file():
        return None
    try:
        return dict(json.loads(p.read_text(encoding="utf-8")))
    except (OSError, ValueError):
        return None
