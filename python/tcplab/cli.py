"""The ``tcplab`` command: run, validate and benchmark scenarios, list what a
scenario can name.

Errors a user can fix (a bad scenario, a missing file, a bad option) print
``error: <message>`` on stderr and exit 2; anything else is a bug in tcplab
and prints ``internal error: ...`` and exits 1. Neither prints a traceback
unless ``TCPLAB_TRACEBACK=1``.

rich, polars and numpy are imported inside the commands that use them, so
that the command starts fast.
"""

from __future__ import annotations

import contextlib
import importlib
import math
import os
import re
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import click

import tcplab
from tcplab import _core
from tcplab.analysis import nearest_rank
from tcplab.results import TABLES, column_rows

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

    from tcplab._core import CatalogEntry, Meta

U64_MAX = 2**64 - 1
DEFAULT_BENCH_SCENARIO = Path("scenarios/braud2016/long-newreno.toml")
REPO_ROOT = Path(__file__).resolve().parents[2]
"""The checkout this package was installed from (editable installs)."""

NON_TERMINAL_WIDTH = 160
TRACEBACK_ENV = "TCPLAB_TRACEBACK"
EXIT_USER_ERROR = 2
EXIT_INTERNAL_ERROR = 1


class UserError(click.ClickException):
    """An error the user can fix; printed as ``error: <message>``, exit 2."""

    exit_code = EXIT_USER_ERROR


def _load(scenario: str) -> tuple[str, str]:
    """Read a scenario file, turning I/O errors into user errors."""
    try:
        return tcplab.read_scenario(Path(scenario))
    except tcplab.ScenarioFileError as e:
        raise UserError(str(e)) from e
    except OSError as e:
        raise UserError(f"{scenario}: {e.strerror or e}") from e
    except UnicodeDecodeError as e:
        raise UserError(f"{scenario}: not UTF-8 text ({e.reason} at byte {e.start})") from e


def _default_out(*names: str) -> Path:
    """``out/<names>``, the default output directory, named after the
    scenario file or study; refused when a name would lead elsewhere (a
    file named ``...toml`` has the stem ``..``)."""
    from tcplab.results import inside

    try:
        return inside("out", *names)
    except OSError as e:
        raise UserError(f"{e.strerror}: give --out DIR") from e


def _has_sweep(text: str) -> bool:
    """Whether a scenario's text has sweep settings ([sweep], repetitions, until)."""
    return re.search(r"(?m)^\s*(\[sweep\]|repetitions\s*=|until\s*=|\[until\])", text) is not None


def _run(
    scenario: str,
    seed: int | None,
    backend: str = "sim",
    quiet: bool = True,
    progress: Callable[[str, float, float, int, float], object] | None = None,
) -> tcplab.Results:
    text, path = _load(scenario)
    if _has_sweep(text):
        click.echo(
            f"note: {scenario} has sweep settings ([sweep], repetitions or until); "
            f"`tcplab run` runs its base scenario once: use `tcplab sweep {scenario}` "
            "to run them",
            err=True,
        )
    if backend == "linux":
        from tcplab import realstack

        try:
            _core.check_linux(text, path)
            if not quiet:
                click.echo(f"running {scenario} on the real Linux stack (real time)...", err=True)
            return realstack.run(text, path, seed)
        except (_core.ScenarioError, _core.BackendError) as e:
            raise UserError(str(e)) from e
    from tcplab import memory

    try:
        raw = _core.run(text, path, seed, memory.guard(path), progress, arrays=False)
        return tcplab.Results(raw, scenario=text)
    except (_core.ScenarioError, memory.MemoryCheckError) as e:
        raise UserError(str(e)) from e


class _RunProgress:
    """`tcplab run`'s progress on stderr, for runs longer than half a second:
    what it is doing (reading the file, building, running, collecting,
    writing), simulated time against the run's length, events per second,
    elapsed time and ETA. A rich bar drawn once the run has lasted
    `DELAY` seconds (so quick runs print nothing) and erased when done; the
    core calls `update` a few times a second at most."""

    DELAY = 0.5
    STAGES = {  # noqa: RUF012
        "building": "building the network",
        "running": "running",
        "collecting": "collecting results",
    }

    def __init__(self, label: str) -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        self.bar = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            TextColumn("{task.fields[sim]}"),
            TextColumn("{task.fields[rate]}"),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=Console(stderr=True),
            transient=True,
        )
        self.task = self.bar.add_task(f"reading {label}", total=None, sim="", rate="")
        self.lock = threading.Lock()
        self.closed = False
        self.timer = threading.Timer(self.DELAY, self._start)
        self.timer.daemon = True
        self.timer.start()

    def _start(self) -> None:
        with self.lock:
            if not self.closed:
                self.bar.start()

    def update(self, stage: str, now_s: float, end_s: float, events: int, wall_s: float) -> None:
        rate = f"{events / wall_s / 1e6:.1f} M events/s" if wall_s > 0 and events else ""
        self.bar.update(
            self.task,
            description=self.STAGES.get(stage, stage),
            completed=now_s,
            total=end_s if stage == "running" else None,
            sim=f"{now_s:,.1f} / {end_s:,.1f} s simulated",
            rate=rate,
        )

    def stage(self, description: str) -> None:
        self.bar.update(self.task, description=description, total=None, rate="")

    def close(self) -> None:
        with self.lock:
            self.closed = True
            self.timer.cancel()
            self.bar.stop()


@contextlib.contextmanager
def _run_progress(label: str, quiet: bool) -> Iterator[_RunProgress | None]:
    """A `_RunProgress` on a terminal's stderr, None with -q or when stderr
    is not a terminal (a log gets no progress lines)."""
    if quiet or not sys.stderr.isatty():
        yield None
        return
    progress = _RunProgress(label)
    try:
        yield progress
    finally:
        progress.close()


def _console() -> Console:
    """A console on stdout; when stdout is not a terminal (a log, a pipe) and
    COLUMNS is unset, wide enough that tables are not squeezed."""
    from rich.console import Console

    console = Console(highlight=False)
    if not console.is_terminal and "COLUMNS" not in os.environ:
        console.width = NON_TERMINAL_WIDTH
    return console


def _restore_sigint_default() -> None:
    """Importing polars installs its own SIGINT handler at the C level, over the
    SIG_DFL that `main` set, and Ctrl-C then no longer stops a simulation. Put
    SIG_DFL back (from any thread: through libc, as `signal.signal` is for the
    main thread only) when that is what Python's table says it should be."""
    if os.name != "posix" or signal.getsignal(signal.SIGINT) != signal.SIG_DFL:
        return
    import ctypes

    with contextlib.suppress(OSError, AttributeError):  # no libc to call: leave it
        ctypes.CDLL(None).signal(int(signal.SIGINT), 0)  # 0 = SIG_DFL


def _keyboard_interrupts() -> None:
    """For commands that wait on worker processes: Ctrl-C raises
    KeyboardInterrupt in the parent, which stops the workers and keeps what
    finished. polars is imported first, as its import replaces the handler."""
    import polars  # noqa: F401

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.default_int_handler)


def _preload(modules: Sequence[str]) -> threading.Thread:
    """Import ``modules`` in a background thread and return it.

    The core releases the GIL while it simulates, so the libraries needed
    after the run (numpy, polars, rich: about 0.2 s of imports) load on the
    other core meanwhile. Measured on the 2-core reference machine, idle,
    for scenarios/braud2016/long-newreno.toml (0.25 s of simulation):
    `tcplab run` takes 0.36-0.39 s in all with preloading, 0.51-0.53 s
    without. Any import error is left for the main thread's own import to
    report. The thread is not a daemon: the interpreter never exits half-way
    through an import.
    """

    def work() -> None:
        for name in modules:
            try:
                importlib.import_module(name)
            except Exception:  # the main thread's own import reports it
                return
            if name == "polars":
                _restore_sigint_default()

    thread = threading.Thread(target=work, name="tcplab-preload")
    thread.start()
    return thread


# ---------------------------------------------------------------- formatting


def _num(value: Any, fmt: str, scale: float | None = None) -> str:
    """Format a number, times ``scale`` if given; "-" for a missing one (None, NaN)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    return format(value if scale is None else value * scale, fmt)


def _rate(bps: float) -> str:
    """A bit rate with an SI prefix: ``10 Mb/s``, ``1.5 Gb/s``."""
    for factor, unit in ((1e9, "Gb/s"), (1e6, "Mb/s"), (1e3, "kb/s")):
        if bps >= factor:
            return f"{bps / factor:g} {unit}"
    return f"{bps:g} b/s"


def _per_second(count: float, seconds: float) -> str:
    return _num(count / seconds, ",.0f") if seconds > 0 else "-"


def _table(title: str, columns: Iterable[tuple[str, str]]) -> Table:
    """A rich table with (header, justify) columns."""
    from rich import box
    from rich.table import Table

    table = Table(
        title=title,
        title_justify="left",
        title_style="bold",
        box=box.SIMPLE_HEAVY,
        pad_edge=False,
        collapse_padding=True,
    )
    for header, justify in columns:
        table.add_column(header, justify=justify)  # type: ignore[arg-type]
    return table


SUMMARY_ROWS = 40
"""Rows of the flows and links tables `tcplab run` prints; the files hold all."""


def _more_rows(table: Table, res: tcplab.Results, name: str) -> None:
    """Say under ``table`` how many of ``name``'s rows it leaves out."""
    rows = res.row_count(name)
    if rows > SUMMARY_ROWS:
        table.caption = f"the first {SUMMARY_ROWS} {name} of {rows}: all in {name}.parquet"


def _summary_tables(res: tcplab.Results) -> list[Table]:
    records = res.flow_records(SUMMARY_ROWS)
    # Finite transfers are judged by their own throughput (bytes over the
    # completion time), not by goodput over the measurement window.
    transfers = any(f.get("completed") for f in records)
    columns = [
        ("flow", "left"),
        ("path", "left"),
        ("cc", "left"),
        ("goodput Mb/s", "right"),
        *([("transfer Mb/s", "right"), ("FCT s", "right")] if transfers else []),
        ("RTT ms", "right"),
        ("RTT p95", "right"),
        ("sent", "right"),
        ("retx", "right"),
        ("FR", "right"),
        ("RTOs", "right"),
    ]
    flows = _table("flows", columns)
    for f in records:
        row = [str(f["name"]), f"{f['src']}->{f['dst']}", str(f["cc"])]
        row.append(_num(f["goodput_bps"], ".3f", 1e-6))
        if transfers:
            row += [_num(f.get("transfer_bps"), ".3f", 1e-6), _num(f.get("fct_s"), ",.3f")]
        row += [
            _num(f["rtt_mean_s"], ",.1f", 1e3),
            _num(f["rtt_p95_s"], ",.1f", 1e3),
            _num(f["segs_sent"], ","),
            _num(f["segs_retrans"], ","),
            _num(f["fast_retransmits"], ","),
            _num(f["timeouts"], ","),
        ]
        flows.add_row(*row)
    _more_rows(flows, res, "flows")
    links = _table(
        "links",
        [
            ("link", "left"),
            ("rate", "right"),
            ("util %", "right"),
            ("mean queue pkts", "right"),
            ("drops", "right"),
            ("marks", "right"),
            ("lost", "right"),
        ],
    )
    _more_rows(links, res, "links")
    for lk in res.link_records(SUMMARY_ROWS):
        links.add_row(
            str(lk["name"]),
            _rate(lk["rate_bps"]),
            _num(lk["utilisation"], ".1f", 100.0),
            _num(lk["mean_queue_pkts"], ".1f"),
            _num(lk["drops"], ","),
            _num(lk["marks"], ","),
            _num(lk["lost"], ","),
        )
    tables = [flows, links]
    timing = res.records("timing")
    if timing:
        tables.append(_timing_table(timing))
    gens = res.records("generators")
    if gens:
        tables.append(_generators_table(gens, res))
    for table in tables:
        _never_cut_cells(table)
    return tables


def _timing_table(rows: Sequence[dict[str, Any]]) -> Table:
    """The link emulator's timing per link (linux backend)."""
    table = _table(
        "link emulator timing",
        [
            ("link", "left"),
            ("delivered", "right"),
            ("late p50 us", "right"),
            ("late p99 us", "right"),
            ("late p99.9 us", "right"),
            ("rate err %", "right"),
            ("delay err %", "right"),
            ("rx ACK lag p50 us", "right"),
            ("tx lag p10 us", "right"),
            ("", "left"),
        ],
    )
    for t in rows:
        table.add_row(
            str(t["link"]),
            _num(t["delivered"], ","),
            _num(t["lateness_p50_s"], ".1f", 1e6),
            _num(t["lateness_p99_s"], ".1f", 1e6),
            _num(t["lateness_p999_s"], ".1f", 1e6),
            _num(t["rate_error"], ".3f", 100.0),
            _num(t["delay_error"], ".3f", 100.0),
            _num(t.get("ack_lag_p50_s", math.nan), ".1f", 1e6),
            _num(t.get("send_lag_p10_s", math.nan), ".1f", 1e6),
            "OVER 1 %" if t["flagged"] else "ok",
        )
    return table


def _generators_table(gens: Sequence[dict[str, Any]], res: tcplab.Results | None) -> Table:
    """Offered load of each generator and, after a run, what it started."""
    cols = [
        ("generator", "left"),
        ("conn/s", "right"),
        ("mean size", "right"),
        ("offered", "right"),
        ("bottleneck", "right"),
        ("load %", "right"),
    ]
    if res is not None:
        cols += [("started", "right"), ("completed", "right"), ("median resp. s", "right")]
    table = _table("traffic generators", cols)
    medians: dict[int, float] = {}
    if res is not None:
        by_gen: dict[int, list[float]] = {}
        for t in res.records("transfers"):
            if t["completed"]:
                by_gen.setdefault(int(t["generator"]), []).append(float(t["fct_s"]))
        for gi, v in by_gen.items():
            medians[gi] = nearest_rank(sorted(v), 50)
    for i, g in enumerate(gens):
        row = [
            str(g["name"]),
            _num(g["rate"], ",.3g"),
            f"{g['mean_size_bytes'] / 1e3:,.1f} kB",
            _rate(g["offered_bps"]),
            _rate(g["bottleneck_bps"]),
            _num(g["offered_load"], ".1f", 100.0),
        ]
        if res is not None:
            row += [
                _num(g["arrivals"], ","),
                _num(g["completed"], ","),
                _num(medians.get(i, math.nan), ".3f"),
            ]
        table.add_row(*row)
    return table


def _never_cut_cells(table: Table) -> None:
    """Names and numbers are never cut on narrow terminals: each column is at
    least as wide as its widest cell; only the headers wrap."""
    for column in table.columns:
        column.min_width = max((len(str(c)) for c in column.cells), default=0)


def _run_line(meta: Meta) -> str:
    events, wall = meta["events"], meta["wall_s"]
    if meta.get("backend") == "linux":
        return (
            f"{meta['packets']:,} packets through the link emulator, "
            f"{meta['measure_end_s']:g} s on the real Linux stack, {wall:.1f} s wall"
        )
    return (
        f"{events:,} events, {meta['duration_s']:g} simulated s, "
        f"{wall:.3f} s wall, {_per_second(events, wall)} events/s"
    )


def _params(params: Sequence[tuple[str, str, str]]) -> str:
    return "\n".join(
        f"{name} = {value}" + (f"  ({meaning})" if meaning else "")
        for name, value, meaning in params
    )


def _catalog_table(title: str, entries: Sequence[CatalogEntry]) -> Table:
    table = _table(
        title,
        [("name", "left"), ("description", "left"), ("source", "left"), ("params", "left")],
    )
    for e in entries:
        table.add_row(e["name"], e["description"], e["source"], _params(e["params"]))
    return table


# ------------------------------------------------------------------ commands

SEED = click.IntRange(0, U64_MAX)


@click.group(context_settings={"help_option_names": ["-h", "--help"]}, invoke_without_command=True)
@click.version_option(tcplab.__version__, "-V", "--version", prog_name="tcplab")
@click.pass_context
def cli(ctx: click.Context) -> None:
    """tcplab: packet-level TCP congestion-control simulation."""
    if ctx.invoked_subcommand is None:
        click.echo(ctx.get_help())


@cli.command()
@click.argument("scenario", metavar="SCENARIO")
@click.option("--seed", type=SEED, default=None, help="Override the scenario's seed.")
@click.option(
    "--out",
    "out",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Directory for the result tables [default: out/<scenario stem>].",
)
@click.option("-q", "--quiet", is_flag=True, help="Print nothing but errors.")
@click.option(
    "--backend",
    type=click.Choice(["sim", "linux"]),
    default="sim",
    show_default=True,
    help="sim: the simulator; linux: the real Linux TCP stack in network namespaces "
    "joined by tcplab's link emulator (root; runs in real time).",
)
def run(scenario: str, seed: int | None, out: Path | None, quiet: bool, backend: str) -> None:
    """Run SCENARIO (a TOML file), print a summary and write the results."""
    # Rich to print, loaded during the run. The core hands the traces over
    # as its own columns, not numpy arrays (`_run`), and writes the tables
    # (polars only for a kind of column it leaves to polars: none of the
    # tables a run has today): neither numpy nor polars is imported.
    if not quiet:
        _preload(["rich.console", "rich.table"])
    # The default --out is checked before the run, not after it.
    out = out if out is not None else _default_out(Path(scenario).stem)
    with _run_progress(scenario, quiet or backend != "sim") as progress:
        res = _run(scenario, seed, backend, quiet, progress.update if progress else None)
        if progress:
            progress.stage(f"writing {out}")
        try:
            res.write(out)
        except OSError as e:
            raise UserError(f"cannot write results to {out}: {e.strerror or e}") from e
    if quiet:
        return
    console = _console()
    for table in _summary_tables(res):
        # Wider than the terminal: let the line wrap rather than drop columns.
        console.print(table, crop=False)
    for note in res.meta.get("notes", []):
        console.print(f"note: {note}")
    console.print(_run_line(res.meta))
    console.print(f"results in {out}")


@cli.command()
@click.argument("scenario", metavar="SCENARIO")
def validate(scenario: str) -> None:
    """Check SCENARIO without running it; with a [sweep], every point too."""
    text, path = _load(scenario)
    from tcplab import memory

    try:
        info = _core.validate(text, path)
        memory.check(path, int(info["memory_bytes"]), parts=info["memory"]["parts"])
    except (_core.ScenarioError, memory.MemoryCheckError) as e:
        raise UserError(str(e)) from e
    swept = ""
    if _has_sweep(text):
        from tcplab.sweep import SweepError, load_sweep

        try:
            sw = load_sweep(text, path)
        except (SweepError, _core.ScenarioError) as e:
            raise UserError(str(e)) from e
        n = len(sw.points)
        swept = f" (sweep: {n} point{'s' if n != 1 else ''} x {sw.spec.repetitions} repetition(s))"
    click.echo(f"ok: {info['name']}{swept}")
    gens = column_rows(info["generators"])
    if gens:
        table = _generators_table(gens, None)
        _never_cut_cells(table)
        _console().print(table, crop=False)


@cli.command()
@click.option("-n", "--dry-run", is_flag=True, help="List what would be removed; remove nothing.")
def cleanup(dry_run: bool) -> None:
    """Remove what real-stack runs hold or left behind.

    A run's namespaces, TUN devices and sockets belong to its process and
    vanish with it, however it ends; this finds processes still holding tcplab
    namespaces (other than this one), and devices or named namespaces with
    tcplab's prefix in the root namespace, and removes them.
    """
    from tcplab import realstack

    found = realstack.leftovers() if dry_run else realstack.cleanup()
    if not found:
        click.echo("nothing to clean up")
        return
    verb = "would remove" if dry_run else "removed"
    for f in found:
        click.echo(f"{verb} {f.kind} {f.name}")


@cli.command(name="list")
def list_() -> None:
    """List congestion controllers, queue disciplines and host profiles."""
    cat = _core.catalog()
    console = _console()
    console.print(_catalog_table("congestion controllers", cat["controllers"]))
    console.print(_catalog_table("queue disciplines", cat["queues"]))
    console.print(_catalog_table("host profiles", cat["profiles"]))


def _default_bench_scenario() -> str:
    for base in (Path.cwd(), REPO_ROOT):
        candidate = base / DEFAULT_BENCH_SCENARIO
        if candidate.is_file():
            return str(candidate)
    raise UserError(
        f"no SCENARIO given and {DEFAULT_BENCH_SCENARIO} is not under the current "
        f"directory nor under {REPO_ROOT}"
    )


@cli.command()
@click.argument("scenario", metavar="[SCENARIO]", required=False)
@click.option("--repeat", type=click.IntRange(min=1), default=3, show_default=True)
@click.option("--seed", type=SEED, default=None, help="Override the scenario's seed.")
def bench(scenario: str | None, repeat: int, seed: int | None) -> None:
    """Time SCENARIO [default: scenarios/braud2016/long-newreno.toml] in-process.

    Wall time is the simulation proper as the core measures it; "call" adds
    parsing and the conversion of results to Python (and, in the first run,
    the import of numpy).
    """
    scenario = scenario if scenario is not None else _default_bench_scenario()
    table = _table(
        f"bench {scenario}",
        [
            ("run", "right"),
            ("wall s", "right"),
            ("call s", "right"),
            ("events/s", "right"),
            ("packets/s", "right"),
            ("sim s / wall s", "right"),
        ],
    )
    walls: list[float] = []
    meta = None
    for i in range(repeat):
        t0 = time.perf_counter()
        meta = _run(scenario, seed).meta
        call = time.perf_counter() - t0
        wall = meta["wall_s"] if meta["wall_s"] > 0 else call
        walls.append(wall)
        table.add_row(
            str(i + 1),
            f"{wall:.3f}",
            f"{call:.3f}",
            _per_second(meta["events"], wall),
            _per_second(meta["packets"], wall),
            _num(meta["duration_s"] / wall if wall > 0 else math.nan, ",.1f"),
        )
    assert meta is not None  # repeat >= 1
    import statistics

    console = _console()
    console.print(table)
    best, median = min(walls), statistics.median(walls)
    console.print(
        f"{meta['events']:,} events, {meta['packets']:,} packets, "
        f"{meta['duration_s']:g} simulated s; best {best:.3f} s, median {median:.3f} s "
        f"({_per_second(meta['events'], median)} events/s at the median)"
    )


# --------------------------------------------------------------- sweeps


def _load_sweep(scenario: str) -> Any:
    from tcplab.sweep import SweepError, load_sweep

    text, path = _load(scenario)
    try:
        return load_sweep(text, path)
    except (SweepError, _core.ScenarioError) as e:
        raise UserError(str(e)) from e


@cli.command()
@click.argument("scenario", metavar="SCENARIO")
@click.option(
    "--out",
    "out",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Directory for the runs and tables [default: out/<scenario stem>].",
)
@click.option(
    "-j",
    "--jobs",
    type=click.IntRange(min=1),
    default=None,
    help="Worker processes [default: all cores].",
)
@click.option(
    "--scheduler",
    default=None,
    metavar="ADDRESS",
    help="Run on a Dask distributed cluster (e.g. tcp://host:8786) instead of local processes.",
)
@click.option("--resume", is_flag=True, help="Keep finished runs in --out and run only the rest.")
@click.option("--csv", is_flag=True, help="Also write the tables as CSV.")
@click.option("-q", "--quiet", is_flag=True, help="No progress bar.")
@click.option(
    "--backend",
    type=click.Choice(["sim", "linux"]),
    default="sim",
    show_default=True,
    help="linux: every run on the real Linux stack, in real time, one at a time (root).",
)
def sweep(
    scenario: str,
    *,
    out: Path | None,
    jobs: int | None,
    scheduler: str | None,
    resume: bool,
    csv: bool,
    quiet: bool,
    backend: str,
) -> None:
    """Run every point and repetition of SCENARIO's [sweep] in parallel."""
    from tcplab.sweep import Progress, collect, failures, run_sweep

    _keyboard_interrupts()
    sw = _load_sweep(scenario)
    sw.backend = backend
    out = out if out is not None else _default_out(Path(scenario).stem)
    n = len(sw.points) * sw.spec.repetitions
    console = _console()
    if not quiet:
        until = (
            f", until the 95 % CI of {sw.spec.until.metric} is within "
            f"{sw.spec.until.ci_halfwidth:.0%}"
            if sw.spec.until
            else ""
        )
        console.print(
            f"{sw.path}: {len(sw.points)} point(s) x {sw.spec.repetitions} repetition(s)"
            f" = {n} runs{until}"
        )
    bar = _runs_bar(console, "runs", disable=quiet)

    def progress(p: Progress) -> None:
        bar.update(job, completed=p.done, total=p.total, **_progress_fields(p))

    with _run_errors(out, scenario, scheduler):
        with bar:
            job = bar.add_task("sweep", total=n, rate="", failed="")
            run_sweep(sw, out, jobs=jobs, scheduler=scheduler, resume=resume, on_progress=progress)
        if csv:
            collect(out, csv=True)
    if not quiet:
        console.print(f"results in {out}")
    _fail_on_failures(failures(out), f"their errors are in {out}/failed/")


@cli.command()
@click.argument("scenario", metavar="SCENARIO")
@click.option(
    "--seeds",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Seeds per point, the same on both backends.",
)
@click.option(
    "--out",
    "out",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Directory for both backends' runs and the report [default: out/compare/<scenario stem>].",
)
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=None, help="Simulator workers.")
@click.option("--resume", is_flag=True, help="Keep finished runs in --out and run only the rest.")
@click.option("-q", "--quiet", is_flag=True, help="No progress bars.")
def compare(
    scenario: str,
    *,
    seeds: int,
    out: Path | None,
    jobs: int | None,
    resume: bool,
    quiet: bool,
) -> None:
    """Run SCENARIO on the simulator and on the real Linux stack, and compare.

    Every point of its [sweep] (if any) runs --seeds times on each backend
    with the same seeds. Prints, per flow, goodput, RTT, retransmissions and
    timeouts side by side with the relative error, and writes
    OUT/comparison.parquet and OUT/report.html (the table, the emulator's
    timing and the cwnd and queue traces overlaid). Needs root; the real-stack
    runs take real time.
    """
    from tcplab import compare as cmp

    _keyboard_interrupts()
    sw = _load_sweep(scenario)
    try:
        _core.check_linux(sw.task(0, 0).text, sw.path)
    except _core.BackendError as e:
        raise UserError(str(e)) from e
    out = out if out is not None else _default_out("compare", Path(scenario).stem)
    n = len(sw.points) * seeds
    console = _console()
    if not quiet:
        real = n * _core.validate(sw.task(0, 0).text, sw.path)["measure_end_s"]
        console.print(
            f"{sw.path}: {len(sw.points)} point(s) x {seeds} seed(s) on each backend"
            + (f"; about {real:,.0f} s of real time" if real else "")
        )
    bar = _runs_bar(console, "{task.description}", disable=quiet)
    progress = _bar_per_label(bar)

    with _run_errors(out, scenario, None), bar:
        report, df = cmp.compare(
            sw, out, seeds=seeds, jobs=jobs, resume=resume, on_progress=progress
        )
    if df.height:
        table = _table(
            "simulator against Linux (sim / linux, mean over seeds; err = sim / linux - 1; "
            "z = the goodputs' difference over its standard error from the seeds)",
            [
                ("flow", "left"),
                ("goodput Mb/s", "right"),
                ("err %", "right"),
                ("z", "right"),
                ("RTT ms", "right"),
                ("err %", "right"),
                ("retx", "right"),
                ("RTOs", "right"),
            ],
        )

        def pair(a: Any, b: Any, fmt: str, scale: float | None = None) -> str:
            return f"{_num(a, fmt, scale)} / {_num(b, fmt, scale)}"

        for r in df.iter_rows(named=True):
            name = f"{r['coords']}: {r['flow']}" if r["coords"] else str(r["flow"])
            table.add_row(
                name,
                pair(r["goodput_sim_bps"], r["goodput_linux_bps"], ".3f", 1e-6),
                _num(r["goodput_error"], "+.1f", 100.0),
                _num(r["goodput_z"], "+.1f"),
                pair(r["rtt_sim_s"], r["rtt_linux_s"], ".1f", 1e3),
                _num(r["rtt_error"], "+.1f", 100.0),
                pair(r["retrans_sim"], r["retrans_linux"], ",.1f"),
                pair(r["timeouts_sim"], r["timeouts_linux"], ".1f"),
            )
        _never_cut_cells(table)
        console.print(table, crop=False)
    console.print(f"report: {report}")


def _runs_bar(console: Console, label: str, *, disable: bool = False) -> Any:
    """A progress bar for runs: done/total, simulated seconds per second,
    failures, elapsed time and ETA."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )
    from rich.progress import Progress as Bar

    return Bar(
        TextColumn(label),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]}"),
        TextColumn("{task.fields[failed]}"),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        console=console,
        disable=disable,
    )


def _bar_per_label(bar: Any) -> Callable[[str, Any], None]:
    """A progress callback ``(label, Progress)`` that keeps one line of
    ``bar`` per label (a study's part, a backend)."""
    lines: dict[str, Any] = {}

    def progress(label: str, p: Any) -> None:
        if label not in lines:
            lines[label] = bar.add_task(label, total=p.total, rate="", failed="")
        bar.update(lines[label], completed=p.done, total=p.total, **_progress_fields(p))

    return progress


def _progress_fields(p: Any) -> dict[str, str]:
    """The bar's text fields for a `tcplab.sweep.Progress`."""
    return {
        "rate": f"{p.sim_s / p.wall_s:,.0f} sim-s/s" if p.wall_s > 0 else "",
        "failed": f"[red]{p.failed} failed[/]" if p.failed else "",
    }


@contextlib.contextmanager
def _run_errors(out: Path, what: str, scheduler: str | None) -> Iterator[None]:
    """Turn what a sweep or a study can raise into user errors; on Ctrl-C, say
    how to resume."""
    from tcplab.memory import MemoryCheckError
    from tcplab.results import ResultFileError
    from tcplab.sweep import SweepError

    try:
        yield
    except KeyboardInterrupt:
        _interrupted(out, what)
        raise
    except (SweepError, _core.ScenarioError, MemoryCheckError, ResultFileError) as e:
        raise UserError(str(e)) from e
    except ImportError as e:
        if scheduler is None:
            raise
        raise UserError(f"--scheduler needs Dask: pip install 'tcplab[cluster]' ({e})") from e
    except ValueError as e:  # a malformed --scheduler address
        if scheduler is None:
            raise
        raise UserError(f"--scheduler {scheduler}: {e}") from e
    except OSError as e:
        reading = e.filename is not None and out.resolve() not in Path(e.filename).resolve().parents
        where = f"{e.filename}" if reading else f"cannot write results to {out}"
        raise UserError(f"{where}: {e.strerror or e}") from e


def _fail_on_failures(bad: Sequence[dict[str, Any]], hint: str) -> None:
    """Print the first failed runs' errors and fail the command when any failed."""
    if bad:
        for f in bad[:5]:
            click.echo(f"run {f['run']} failed: {f['error']}", err=True)
        raise UserError(f"{len(bad)} run(s) failed; {hint}")


def _interrupted(out: Path, what: str) -> None:
    from tcplab.sweep import RUNS, done_runs

    n = sum(len(done_runs(d.parent)) for d in out.rglob(RUNS) if d.is_dir())
    click.echo(
        f"interrupted: {n} finished run(s) kept in {out}; "
        f"rerun the same command with --resume to finish {what}",
        err=True,
    )


@cli.command()
@click.argument("directory", type=click.Path(file_okay=False, exists=True, path_type=Path))
@click.option(
    "--table",
    type=click.Choice(list(TABLES)),
    default="flows",
    show_default=True,
)
@click.option("--columns", default=None, help="Comma-separated columns to show [default: a few].")
@click.option(
    "--csv",
    "csv_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write the whole summary to this CSV file.",
)
def summarize(directory: Path, table: str, columns: str | None, csv_path: Path | None) -> None:
    """Mean, std and 95 % CI per sweep point of a sweep's results."""
    from tcplab.results import ResultFileError
    from tcplab.sweep import MANIFEST, SweepError
    from tcplab.sweep import summarize as summarize_

    if not (directory / MANIFEST).exists():
        raise UserError(f"{directory}: no {MANIFEST}: not a sweep's output directory")
    try:
        df = summarize_(directory, table)
    except (SweepError, ResultFileError) as e:  # a damaged file, named
        raise UserError(str(e)) from e
    if df.height == 0:
        raise UserError(f"{directory}: no finished runs with a {table} table")
    if csv_path is not None:
        try:
            df.write_csv(csv_path)
        except OSError as e:
            raise UserError(f"--csv {csv_path}: {e.strerror or e}") from e
    default = {
        "flows": ["goodput_bps", "rtt_mean_s", "segs_retrans", "timeouts"],
        "links": ["utilisation", "mean_queue_pkts", "drops"],
        "phases": ["goodput_bps", "retrans_prob"],
        "link_phases": ["utilisation", "throughput_bps", "drops"],
        "generators": ["offered_load", "completed"],
        "transfers": ["fct_s"],
        "episodes": ["retrans", "timeouts"],
        "hosts": ["utilisation", "tx_drops", "rx_drops"],
        "timing": ["lateness_p99_s", "rate_error", "delay_error"],
    }[table]
    wanted = [c.strip() for c in columns.split(",")] if columns else default
    missing = [c for c in wanted if f"{c}_mean" not in df.columns]
    if missing:
        have = sorted(c[: -len("_mean")] for c in df.columns if c.endswith("_mean"))
        raise UserError(f"--columns: no numeric column {missing[0]!r}; have: {', '.join(have)}")
    from rich.markup import escape

    stats = ("_mean", "_std", "_ci95", "_n")
    keys = [c for c in df.columns if not c.endswith(stats) and c != "point"]
    # Axis names hold brackets (host[client].cc), which rich would read as markup.
    headers = [(escape(k), "left") for k in keys] + [(c, "right") for c in wanted]
    t = _table(f"{table}: mean ± 95 % CI", headers)
    for row in df.iter_rows(named=True):
        cells = [escape(str(row[k])) for k in keys]
        for c in wanted:
            m, ci = row[f"{c}_mean"], row[f"{c}_ci95"]
            cells.append(_num(m, ".4g") + ("" if ci is None or math.isnan(ci) else f" ± {ci:.2g}"))
        t.add_row(*cells)
    _console().print(t, crop=False)


# --------------------------------------------------------------- reproductions


@cli.command()
@click.argument("name", required=False, metavar="NAME")
@click.option("--list", "list_studies", is_flag=True, help="List the available studies.")
@click.option("--quick", is_flag=True, help="A small version (fewer, shorter runs) for a demo.")
@click.option(
    "--out",
    "out",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Directory for the runs and the report [default: out/<name>[-quick]].",
)
@click.option(
    "-j",
    "--jobs",
    type=click.IntRange(min=1),
    default=None,
    help="Worker processes [default: all cores].",
)
@click.option(
    "--scheduler",
    default=None,
    metavar="ADDRESS",
    help="Run on a Dask distributed cluster instead of local processes.",
)
@click.option("--resume", is_flag=True, help="Keep finished runs in --out and run only the rest.")
@click.option(
    "--part",
    "only",
    multiple=True,
    metavar="NAME",
    help="Run only this part of the study (repeatable; --list-parts names them); the "
    "report covers every part found in --out.",
)
@click.option("--list-parts", is_flag=True, help="List the study's parts and stop.")
@click.option(
    "--sim-only",
    is_flag=True,
    help="Rerun only the simulator's side and compare it with the real-stack runs "
    "already in --out (linux-check; no root needed).",
)
@click.option(
    "--export",
    "export_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    metavar="DIR",
    help="Copy the study's scenario files into DIR/<name>/ and stop (edit them, then "
    "run with TCPLAB_SCENARIOS=DIR).",
)
def reproduce(
    name: str | None,
    *,
    list_studies: bool,
    quick: bool,
    out: Path | None,
    jobs: int | None,
    scheduler: str | None,
    resume: bool,
    only: tuple[str, ...],
    list_parts: bool,
    sim_only: bool,
    export_dir: Path | None,
) -> None:
    """Run a reference study and write its report (out/<name>/report.html)."""
    from tcplab.reproduce import export, part_groups
    from tcplab.reproduce import reproduce as reproduce_
    from tcplab.studies import STUDIES

    if list_studies or name is None:
        t = _table("studies", [("name", "left"), ("study", "left"), ("paper", "left")])
        for s in STUDIES.values():
            t.add_row(s.name, s.title, s.paper.text())
        _console().print(t, crop=False)
        if name is None and not list_studies:
            raise UserError("name a study (tcplab reproduce --list shows them)")
        return
    if name not in STUDIES:
        raise UserError(f"no study {name!r}; available: {', '.join(STUDIES)}")
    if list_parts:
        mode = "quick" if quick else "full"
        for g in part_groups(STUDIES[name], quick):
            parts = [
                p for p in STUDIES[name].parts if mode in p.modes and p.name.split("/")[0] == g
            ]
            waiting = [p.name for p in parts if mode in p.optional]
            note = ""
            if len(waiting) == len(parts):
                note = "  (runs only when named with --part)"
            elif waiting:
                note = f"  ({', '.join(waiting)} only when named with --part)"
            click.echo(g + note)
        return
    if export_dir is not None:
        try:
            files = export(name, export_dir)
        except OSError as e:
            raise UserError(f"cannot export {name} to {export_dir}: {e}") from e
        for f in files:
            click.echo(str(f))
        return
    _keyboard_interrupts()
    out = out if out is not None else _default_out(name + ("-quick" if quick else ""))
    console = _console()
    bar = _runs_bar(console, "{task.description:<11}")
    progress = _bar_per_label(bar)

    with _run_errors(out, name, scheduler), bar:
        report = reproduce_(
            name,
            out,
            quick=quick,
            jobs=jobs,
            scheduler=scheduler,
            resume=resume,
            on_progress=progress,
            only=only,
            sim_only=sim_only,
        )
    _print_paper_table(console, out)
    _print_stored(console, out)
    console.print(f"report: {report}")
    from tcplab.sweep import MANIFEST, failures

    # Every sweep directory of the study, parts nested (cells/linux) or not.
    sweeps = sorted({m.parent for m in out.rglob(MANIFEST)})
    bad = [f for d in sweeps for f in failures(d)]
    _fail_on_failures(bad, f"the report lacks them (see the failed/ directories under {out})")


def _print_stored(console: Console, out: Path) -> None:
    """Say which real-stack parts ``--sim-only`` restored from the package."""
    import json

    try:
        facts = json.loads((out / "study.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return
    parts = facts.get("stored_runs") or []
    if parts:
        console.print(
            "compared with the kernel runs stored in the package (restored into "
            f"{out}): {', '.join(parts)}"
        )


def _print_paper_table(console: Console, out: Path) -> None:
    """The study's paper table (written by its report), one row per
    published result, and the count of verdicts."""
    import polars as pl
    from rich.markup import escape

    from tcplab.studies.claims import PAPER_TABLE_FILE, SIDE, verdict_counts

    f = out / PAPER_TABLE_FILE
    if not f.is_file():
        return
    table = pl.read_csv(f, infer_schema=False)
    t = _table(
        "the paper's published results",
        [("", "left"), ("paper", "left"), ("tcplab", "left"), ("verdict", "left")],
    )
    style = {"reproduced": "green", "not reproduced": "red"}
    for r in table.iter_rows(named=True):
        v = r[f"{SIDE} verdict"]
        t.add_row(
            escape(r["result"]),
            escape(r["paper"]),
            escape(r[SIDE] or ""),
            f"[{style.get(v, 'dim')}]{escape(v)}[/]",
        )
    console.print(t)
    console.print(f"tcplab: {verdict_counts(table)}")


# --------------------------------------------------------------- reports


@cli.command()
@click.argument("directory", type=click.Path(path_type=Path))
@click.option(
    "--out",
    "out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="The HTML file to write [default: DIRECTORY/report.html].",
)
@click.option(
    "--model",
    "models",
    multiple=True,
    type=click.Choice(["mathis", "pftk"]),
    help="Add goodput against loss rate, with this model's curve (repeatable; sweeps only).",
)
@click.option(
    "-j",
    "--jobs",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Draw the figures in this many worker processes (worth it for sweeps of many points).",
)
def report(directory: Path, out: Path | None, models: tuple[str, ...], jobs: int) -> None:
    """Write a self-contained HTML report of a sweep's (or a run's) results.

    DIRECTORY is the --out of `tcplab sweep` or of `tcplab run`. The report
    embeds its figures and tables: open it in a browser, no server needed.
    """
    from tcplab.report import ReportError, figure_pool, report_dir

    try:
        with figure_pool(jobs):
            path = report_dir(directory, out, models=models)
    except ReportError as e:
        raise UserError(str(e)) from e
    except OSError as e:
        where = out if out is not None else directory
        raise UserError(f"cannot write the report to {where}: {e.strerror or e}") from e
    click.echo(f"report in {path}")


# --------------------------------------------------------------- entry point


def main(argv: Sequence[str] | None = None) -> NoReturn:
    """Run the command line; never lets a traceback reach the user."""
    # The core holds no GIL while it simulates, so Python's SIGINT handler
    # would only run once the simulation is over: let Ctrl-C end the process
    # at once instead (result files are written atomically).
    in_main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, signal.SIG_DFL) if in_main_thread else None
    try:
        code = _main(argv)
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
    sys.exit(code)


def _main(argv: Sequence[str] | None) -> int:
    try:
        rc = cli.main(args=argv, prog_name="tcplab", standalone_mode=False)
    except click.UsageError as e:
        hint = f"\n(see '{e.ctx.command_path} --help')" if e.ctx is not None else ""
        return _error(f"error: {e.format_message()}{hint}", e.exit_code)
    except click.ClickException as e:
        return _error(f"error: {e.format_message()}", e.exit_code)
    except (click.Abort, KeyboardInterrupt):
        return _error("aborted", 130)
    except SystemExit:
        raise
    except BaseException as e:  # also pyo3's PanicException, a BaseException
        if os.environ.get(TRACEBACK_ENV):
            raise
        return _error(
            f"internal error: {type(e).__name__}: {e}\n"
            "This is a bug in tcplab. Please report it with the command and scenario "
            f"that triggered it (set {TRACEBACK_ENV}=1 to print the traceback).",
            EXIT_INTERNAL_ERROR,
        )
    return rc if isinstance(rc, int) else 0


def _error(message: str, code: int) -> int:
    print(message, file=sys.stderr)
    return code
