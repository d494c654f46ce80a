"""Self-contained HTML reports of results: one file, figures embedded, that
opens in any browser with no server and no network.

``Report`` is a small builder (sections of text, figures, tables, code and
provenance) rendered by a jinja2 template kept in this module.
``sweep_report`` builds a generic report for any sweep directory
(``tcplab sweep --out``) and ``run_report`` one for a single run's directory
(``tcplab run --out``); ``report_dir`` picks the right one, as
``tcplab report DIR`` does.
"""

from __future__ import annotations

import base64
import contextlib
import io
import json
import math
import os
import pickle
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tcplab.results import ResultFileError, inside, read_parquet

if TYPE_CHECKING:
    import polars as pl
    from matplotlib.figure import Figure

__all__ = [
    "LOSS_MODELS",
    "Report",
    "ReportError",
    "loss_figure",
    "report_dir",
    "run_report",
    "sweep_report",
]

REPORT_FILE = "report.html"

MAX_ROWS = 500
"""Tables longer than this show their first rows and say how many are left out."""
SVG_MAX_POINTS = 20_000
"""Figures of more data points than this are embedded as PNG (an SVG would be large)."""
MAX_HEATMAPS = 6
FIGURE_SCALE = 1.25
"""Figures are shown this much larger than their print size (CSS pixels at
96 per inch), so that their 9-10 pt text reads like the page's."""


class ReportError(ValueError):
    """A directory that cannot be reported on: the message says why."""


#: The worker processes rendering figures while ``figure_pool`` is active.
_POOL: list[Any] = []


@contextlib.contextmanager
def figure_pool(jobs: int | None = None) -> Iterator[None]:
    """Render the figures of the reports built inside in ``jobs`` worker
    processes (default: one per core; 1: here, one after another). A figure
    is drawn and written as SVG or PNG in a worker from its pickle, with the
    same matplotlib and settings, so the report is the same byte for byte;
    one that cannot be pickled is drawn here."""
    n = (os.cpu_count() or 1) if jobs is None else jobs
    if n <= 1 or _POOL:
        yield
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    pool = ProcessPoolExecutor(max_workers=n, mp_context=multiprocessing.get_context("spawn"))
    _POOL.append(pool)
    try:
        yield
    finally:
        _POOL.clear()
        pool.shutdown(wait=True, cancel_futures=True)


# ------------------------------------------------------------------- template

_TEMPLATE = """\
<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="tcplab {{ version }}">
<title>{{ title }}</title>
<style>
:root { --fg: #1a1a1a; --muted: #5a5a5a; --rule: #d8d8d8; --band: #f5f5f5; --accent: #0072B2; }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 1180px; padding: 1.5rem 2rem 4rem; color: var(--fg);
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; }
h1 { font-size: 1.7rem; margin: 0 0 .2rem; }
h3 { font-size: 1.05rem; margin: 1.4rem 0 .4rem; }
h2 { font-size: 1.3rem; margin: 2.2rem 0 .6rem; padding-bottom: .2rem;
  border-bottom: 2px solid var(--rule); }
.subtitle { color: var(--muted); margin: 0 0 1rem; }
nav ol { columns: 2; margin: .3rem 0 0; padding-left: 1.4rem; }
a { color: var(--accent); }
p { max-width: 75ch; }
figure { margin: 1.2rem 0 1.8rem; }
figure img { display: block; max-width: 100%; height: auto; }
figcaption { color: var(--muted); font-size: .9rem; max-width: 75ch; margin-top: .3rem; }
.table-wrap { overflow-x: auto; margin: .6rem 0 1.4rem; }
table { border-collapse: collapse; font-size: .85rem; font-variant-numeric: tabular-nums; }
caption { caption-side: top; text-align: left; color: var(--muted); padding-bottom: .3rem; }
th, td { padding: .25rem .6rem; border-bottom: 1px solid var(--rule); text-align: left;
  vertical-align: top; }
th { background: var(--band); font-weight: 600; }
td.num { text-align: right; white-space: nowrap; }
tbody tr:nth-child(even) { background: #fafafa; }
.more { color: var(--muted); font-size: .85rem; }
pre { background: var(--band); border: 1px solid var(--rule); padding: .7rem .9rem;
  overflow-x: auto; font: 12.5px/1.45 ui-monospace, "DejaVu Sans Mono", monospace; }
td pre { margin: 0; padding: .2rem .4rem; white-space: pre-wrap; }
dl.prov { display: grid; grid-template-columns: max-content auto; gap: .15rem 1.2rem; }
dl.prov dt { font-weight: 600; }
dl.prov dd { margin: 0; font-family: ui-monospace, "DejaVu Sans Mono", monospace;
  font-size: .85rem; overflow-wrap: anywhere; }
footer { margin-top: 3rem; color: var(--muted); font-size: .8rem; }
@media print { nav { display: none; } figure, table { break-inside: avoid; } }
</style>
</head>
<body>
<header>
<h1>{{ title }}</h1>
{% if subtitle %}<p class="subtitle">{{ subtitle }}</p>{% endif %}
</header>
{% set titled = sections|selectattr("title")|list %}
{% if titled|length > 1 %}
<nav><strong>Contents</strong>
<ol>{% for s in titled %}<li><a href="#{{ s.anchor }}">{{ s.title }}</a></li>{% endfor %}</ol>
</nav>
{% endif %}
<main>
{% for s in sections %}
<section id="{{ s.anchor }}">
{% if s.title %}<h2>{{ s.title }}</h2>{% endif %}
{% for b in s.blocks %}
{% if b.kind == "text" %}
{% for para in b.paragraphs %}<p>{{ para }}</p>
{% endfor %}
{% elif b.kind == "figure" %}
<figure id="{{ b.anchor }}">
<img src="data:{{ b.mime }};base64,{{ b.data }}" alt="{{ b.caption or 'figure' }}" \
style="width: {{ b.width }}px">
<figcaption>Figure {{ b.number }}.{% if b.caption %} {{ b.caption }}{% endif %}</figcaption>
</figure>
{% elif b.kind == "table" %}
<div class="table-wrap">
<table>
{% if b.caption %}<caption>{{ b.caption }}</caption>{% endif %}
<thead><tr>{% for h in b.header %}<th>{{ h }}</th>{% endfor %}</tr></thead>
<tbody>
{% for row in b.rows %}<tr>{% for cell, num in row %}\
<td{% if num %} class="num"{% endif %}>{{ cell }}</td>{% endfor %}</tr>
{% endfor %}
</tbody>
</table>
{% if b.more %}<p class="more">{{ b.more }} more rows not shown.</p>{% endif %}
</div>
{% elif b.kind == "code" %}
{% if b.caption %}<p class="more">{{ b.caption }}</p>{% endif %}
<pre><code>{{ b.text }}</code></pre>
{% elif b.kind == "heading" %}
<h3>{{ b.text }}</h3>
{% elif b.kind == "provenance" %}
<dl class="prov">
{% for k, v in b.facts %}<dt>{{ k }}</dt><dd>{{ v }}</dd>
{% endfor %}
</dl>
{% endif %}
{% endfor %}
</section>
{% endfor %}
</main>
<footer>Written by tcplab {{ version }}{% if revision %} ({{ revision }}){% endif %}.
Self-contained: figures are embedded, nothing is loaded from the network.</footer>
</body>
</html>
"""


# -------------------------------------------------------------------- builder


@dataclass
class _Section:
    title: str
    anchor: str
    blocks: list[dict[str, Any]] = field(default_factory=list)


def _cell(value: Any, float_format: str) -> tuple[str, bool]:
    """A table cell's text and whether it is a number (right-aligned)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "\N{EN DASH}", True
    if isinstance(value, bool):
        return ("yes" if value else "no"), False
    if isinstance(value, float):
        return format(value, float_format), True
    if isinstance(value, int):
        return str(value), True
    if isinstance(value, (list, tuple, dict)):
        return json.dumps(value, default=str), False
    return str(value), _is_pm(value)


def _is_pm(value: Any) -> bool:
    """Whether a string cell is a number with its interval (``_pm``'s
    ``1741.55 ± 180``): right-aligned and kept on one line like a number."""
    if not isinstance(value, str) or " ± " not in value:
        return False
    mean, _, ci = value.partition(" ± ")
    try:
        float(mean)
        float(ci)
    except ValueError:
        return False
    return True


class Report:
    """An HTML report under construction. Blocks go into the last section
    added (an untitled one if none was)::

        r = Report("My study")
        r.add_section("Goodput", "Mean of 10 runs per point.")
        r.add_figure(fig, "Goodput per point, 95 % CI.")
        r.add_table(df, "Per point.")
        r.write("out/study/report.html")

    Text is escaped (it may hold ``<`` or ``&``); figures are embedded as
    base64 data URIs, so that the file needs nothing else.
    """

    def __init__(self, title: str, subtitle: str = "") -> None:
        self.title = title
        self.subtitle = subtitle
        self.sections: list[_Section] = []
        self._figures = 0

    def _current(self) -> _Section:
        if not self.sections:
            self.sections.append(_Section("", "top"))
        return self.sections[-1]

    def add_section(self, title: str, text: str = "") -> None:
        """Start a section; ``text`` (optional) is its first paragraphs,
        separated by blank lines."""
        self.sections.append(_Section(title, f"s{len(self.sections) + 1}"))
        if text:
            self.add_text(text)

    def add_text(self, text: str) -> None:
        """Paragraphs of plain text, separated by blank lines."""
        paragraphs = [" ".join(p.split()) for p in text.split("\n\n") if p.strip()]
        self._current().blocks.append({"kind": "text", "paragraphs": paragraphs})

    def add_figure(self, fig: Figure, caption: str = "", *, fmt: str = "svg") -> None:
        """Embed a matplotlib figure as SVG (``fmt="svg"``, sharp at any size)
        or PNG (``fmt="png"``, 150 dpi, for figures of very many points)."""
        from tcplab.figures import _savefig

        if fmt not in ("svg", "png"):
            raise ValueError(f"fmt: {fmt!r}; allowed: svg, png")
        data: Any = None
        if _POOL:
            try:
                payload = pickle.dumps(fig)
            except Exception:  # a figure pickle cannot hold (a lambda): drawn here
                payload = None
            if payload is not None:
                from tcplab.figures import encoded_figure

                data = _POOL[0].submit(encoded_figure, payload, fmt)
        if data is None:
            buf = io.BytesIO()
            _savefig(fig, buf, fmt, dpi=150)
            data = base64.b64encode(buf.getvalue()).decode("ascii")
        self._figures += 1
        self._current().blocks.append(
            {
                "kind": "figure",
                "mime": "image/svg+xml" if fmt == "svg" else "image/png",
                "data": data,
                "caption": caption,
                "width": round(fig.get_figwidth() * 96 * FIGURE_SCALE),
                "number": self._figures,
                "anchor": f"fig{self._figures}",
            }
        )

    def add_table(
        self,
        df: pl.DataFrame,
        caption: str = "",
        *,
        float_format: str = ".4g",
        max_rows: int = MAX_ROWS,
    ) -> None:
        """A DataFrame as an HTML table: floats with ``float_format``, missing
        values (None, NaN) as an en dash, at most ``max_rows`` rows."""
        rows = [[_cell(v, float_format) for v in row] for row in df.head(max_rows).iter_rows()]
        self._current().blocks.append(
            {
                "kind": "table",
                "caption": caption,
                "header": list(df.columns),
                "rows": rows,
                "more": max(df.height - max_rows, 0),
            }
        )

    def add_code(self, text: str, caption: str = "") -> None:
        """Preformatted text (a scenario, a command), escaped, in ``<pre>``."""
        self._current().blocks.append({"kind": "code", "text": text, "caption": caption})

    def add_provenance(
        self,
        info: Mapping[str, Any],
        runs: pl.DataFrame | None = None,
        failed: Sequence[Mapping[str, Any]] = (),
    ) -> None:
        """Where the results come from: ``info`` (version, git revision,
        scenario hash...) as a list of facts, then ``runs`` (one row per run:
        seed, wall time...) as a table and the ``failed`` runs with their
        errors (dicts with ``run`` and ``error``, as ``sweep.failures``)."""
        items = [(k, _cell(v, ".6g")[0]) for k, v in info.items()]
        self._current().blocks.append({"kind": "provenance", "facts": items})
        if runs is not None and runs.height:
            self.add_table(runs, f"{runs.height} finished run(s).", max_rows=10_000)
        if failed:
            self.add_text(f"{len(failed)} run(s) failed:")
            for f in failed:
                where = ", ".join(
                    f"{k} {f[k]}" for k in ("point", "rep", "seed") if f.get(k) is not None
                )
                self.add_code(str(f.get("error", "?")), f"run {f.get('run', '?')} ({where})")

    def add_provenance_from(self, directory: str | os.PathLike[str]) -> None:
        """The provenance of every sweep directory (``sweep.json``) and run
        directory (``summary.json``) at or under ``directory``: as
        ``add_provenance`` with what each one recorded."""
        d = Path(directory)
        found = _result_dirs(d) if d.is_dir() else []
        if not found:
            self.add_text(f"No sweep or run directory under {d}: no provenance recorded.")
        for kind, sub in found:
            if sub != d:
                self._current().blocks.append({"kind": "heading", "text": str(sub.relative_to(d))})
            if kind == "sweep":
                self.add_provenance(*_sweep_provenance(sub))
            else:
                self.add_provenance(_run_provenance(sub))

    def render(self) -> str:
        """The whole HTML document."""
        import jinja2

        from tcplab import _core
        from tcplab.sweep import git_revision

        for s in self.sections:
            for b in s.blocks:
                if b["kind"] == "figure" and not isinstance(b["data"], str):
                    b["data"] = b["data"].result()  # drawn by a figure_pool worker
        env = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined)
        template = env.from_string(_TEMPLATE)
        return template.render(
            title=self.title,
            subtitle=self.subtitle,
            sections=[s for s in self.sections if s.blocks or s.title],
            version=_core.__version__,
            revision=git_revision(),
        )

    def write(self, path: str | os.PathLike[str]) -> Path:
        """Write the report to ``path`` atomically (a temporary file renamed
        into place) and return the path."""
        from tcplab.results import _write_atomic

        out = Path(path)
        out.parent.mkdir(parents=True, exist_ok=True)
        text = self.render()
        _write_atomic(out, lambda p: p.write_text(text, encoding="utf-8"))
        return out


# --------------------------------------------------------- shared sections

# (column, heading, scale, format) of the summary tables.
FLOW_METRICS = (
    ("goodput_bps", "goodput (Mb/s)", 1e-6, ".4g"),
    ("rtt_mean_s", "mean RTT (ms)", 1e3, ".4g"),
    ("rtt_p95_s", "RTT p95 (ms)", 1e3, ".4g"),
    ("segs_retrans", "retransmitted segs", 1.0, ".6g"),
    ("timeouts", "RTOs", 1.0, ".6g"),
)
LINK_METRICS = (
    ("rate_bps", "rate (Mb/s)", 1e-6, ".6g"),
    ("utilisation", "utilisation (%)", 100.0, ".4g"),
    ("throughput_bps", "throughput (Mb/s)", 1e-6, ".4g"),
    ("mean_queue_pkts", "mean queue (pkts)", 1.0, ".4g"),
    ("drops", "drops", 1.0, ".6g"),
    ("marks", "ECN marks", 1.0, ".6g"),
)
GENERATOR_METRICS = (
    ("offered_load", "offered load (%)", 100.0, ".4g"),
    ("arrivals", "arrivals", 1.0, ".6g"),
    ("completed", "completed", 1.0, ".6g"),
)


def _sig(x: float, fmt: str) -> str:
    """``x`` formatted as ``fmt``; a ``.Ng`` format (N significant digits)
    written out positionally where ``g`` would switch to an exponent for a
    large number (184 as ``180``, not ``1.8e+02``; 12345.6 as ``12350``)."""
    text = format(x, fmt)
    if not (fmt.endswith("g") and "e+" in text):
        return text
    out = repr(float(text))
    return out[:-2] if out.endswith(".0") else out


def _pm(mean: Any, ci: Any, scale: float, fmt: str) -> str:
    """``mean ± ci`` (scaled); the mean alone when the CI is unknown."""
    if mean is None or (isinstance(mean, float) and math.isnan(mean)):
        return "\N{EN DASH}"
    text = _sig(float(mean) * scale, fmt)
    if ci is None or (isinstance(ci, float) and math.isnan(ci)):
        return text
    return f"{text} ± {_sig(abs(float(ci)) * scale, '.2g')}"


def _summary_display(
    summary: pl.DataFrame, keys: Sequence[str], metrics: Sequence[tuple[str, str, float, str]]
) -> pl.DataFrame:
    """The summary of ``sweep.summarize`` as text: the key columns, n, and one
    "mean ± 95 % CI" column per metric it has."""
    import polars as pl

    present = [m for m in metrics if f"{m[0]}_mean" in summary.columns]
    if any(m[0] == "marks" for m in present) and not (summary["marks_mean"] > 0).any():
        present = [m for m in present if m[0] != "marks"]
    cols: dict[str, list[Any]] = {k: summary[k].to_list() for k in keys if k in summary.columns}
    cols["n"] = summary["n"].to_list()
    for col, heading, scale, fmt in present:
        ci = summary[f"{col}_ci95"] if f"{col}_ci95" in summary.columns else None
        cols[heading] = [
            _pm(m, ci[i] if ci is not None else None, scale, fmt)
            for i, m in enumerate(summary[f"{col}_mean"])
        ]
    return pl.DataFrame(cols, strict=False)


def _values_display(
    df: pl.DataFrame, keys: Sequence[str], metrics: Sequence[tuple[str, str, float, str]]
) -> pl.DataFrame:
    """A single run's table as text: the key columns and each metric scaled."""
    import polars as pl

    cols: dict[str, list[Any]] = {k: df[k].to_list() for k in keys if k in df.columns}
    for col, heading, scale, fmt in metrics:
        if col in df.columns and (col != "marks" or (df[col] > 0).any()):
            cols[heading] = [_pm(v, None, scale, fmt) for v in df[col]]
    return pl.DataFrame(cols, strict=False)


def _points(fig: Figure) -> int:
    """How many data points a figure draws (to choose SVG or PNG)."""
    import numpy as np

    return sum(int(np.size(line.get_xdata())) for ax in fig.axes for line in ax.get_lines())


def _add_figure(report: Report, fig: Figure, caption: str) -> None:
    report.add_figure(fig, caption, fmt="png" if _points(fig) > SVG_MAX_POINTS else "svg")


def _trace_figures(report: Report, run_dir: Path, what: str) -> int:
    """The traces and phases of one run (``what`` names it in captions);
    returns how many figures were added."""
    import polars as pl

    from tcplab import figures

    added = 0
    queue = run_dir / "trace_queue.parquet"
    if queue.exists():
        df = read_parquet(queue)
        name = "link_name" if "link_name" in df.columns else "link"
        busy = df.group_by(name, maintain_order=True).agg(pl.col("pkts").max())
        used = busy.filter(pl.col("pkts") > 0)[name].to_list()
        idle = busy.filter(pl.col("pkts") == 0)[name].to_list()
        if used:
            fig = figures.time_series(
                df.filter(pl.col(name).is_in(used)),
                "time_s",
                "pkts",
                name,
                separate=True,
                xlabel="time (s)",
                ylabel="queue (packets)",
            )
            note = f" Links whose queue stayed empty: {', '.join(map(str, idle))}." if idle else ""
            _add_figure(report, fig, f"Queue occupancy over time, {what}.{note}")
            added += 1
    for trace, column, label, scale in (
        ("cwnd", "cwnd", "congestion window (segments)", 1.0),
        ("rtt", "rtt_s", "RTT (ms)", 1e3),
    ):
        path = run_dir / f"trace_{trace}.parquet"
        if not path.exists():
            continue
        df = read_parquet(path)
        if df.height == 0 or column not in df.columns:
            continue
        name = "flow_name" if "flow_name" in df.columns else "flow"
        fig = figures.time_series(
            df,
            "time_s",
            column,
            name,
            scale=scale,
            step=trace != "rtt",
            xlabel="time (s)",
            ylabel=label,
        )
        what_trace = "Congestion window" if trace == "cwnd" else "RTT samples"
        _add_figure(report, fig, f"{what_trace} of each flow over time, {what}.")
        added += 1
    phases = run_dir / "phases.parquet"
    if phases.exists():
        ph = read_parquet(phases)
        if ph.height and ph["phase"].n_unique() > 1:
            fig = figures.time_series(
                ph,
                "start_s",
                "goodput_bps",
                "flow",
                x_end="end_s",
                scale=1e-6,
                xlabel="time (s)",
                ylabel="goodput (Mb/s)",
            )
            _add_figure(report, fig, f"Goodput of each flow per measurement phase, {what}.")
            added += 1
    link_phases = run_dir / "link_phases.parquet"
    if link_phases.exists():
        lp = read_parquet(link_phases)
        if lp.height and lp["phase"].n_unique() > 1:
            peak = lp.group_by("link", maintain_order=True).agg(pl.col("utilisation").max())
            used = peak.filter(pl.col("utilisation") > 0)["link"].to_list()
            idle = peak.filter(pl.col("utilisation") == 0)["link"].to_list()
            if used:
                fig = figures.time_series(
                    lp.filter(pl.col("link").is_in(used)),
                    "start_s",
                    "utilisation",
                    "link",
                    x_end="end_s",
                    scale=100.0,
                    xlabel="time (s)",
                    ylabel="utilisation (%)",
                )
                note = f" Links idle throughout: {', '.join(idle)}." if idle else ""
                _add_figure(
                    report, fig, f"Utilisation of each link per measurement phase, {what}.{note}"
                )
                added += 1
    return added


def _transfer_figures(report: Report, transfers: Mapping[str, pl.DataFrame]) -> None:
    """Response time versus size and the CDF of response times, one line per
    label (a sweep point, or the run), with common size bins."""
    import polars as pl

    from tcplab import analysis, figures

    done = {k: df.filter(pl.col("completed")) for k, df in transfers.items()}
    sizes = [s for df in done.values() for s in df["size_bytes"].cast(pl.Float64)]
    total = sum(df.height for df in transfers.values())
    n_done = sum(df.height for df in done.values())
    report.add_text(
        f"{total} transfers started, {n_done} completed; response times are "
        "those of completed transfers (from the first SYN to the last byte delivered). "
        "Transfers still running at the end of a run are left out, which biases "
        "the largest sizes downwards."
    )
    if not sizes:
        return
    per_decade = 4
    lo = math.floor(math.log10(min(sizes)) * per_decade)
    hi = math.floor(math.log10(max(sizes)) * per_decade) + 1
    edges = [10 ** (k / per_decade) for k in range(lo, hi + 1)]
    binned = {k: analysis.response_times_by_size(df, edges) for k, df in done.items()}
    fig = figures.response_vs_size(binned, title="Response time by transfer size")
    report.add_figure(
        fig,
        f"Mean response time of completed transfers by size ({per_decade} logarithmic "
        "bins per decade, each drawn at its geometric centre), with 95 % confidence "
        "intervals (Student's t) where a bin holds two or more transfers.",
    )
    fig = figures.cdf(
        {k: df["fct_s"].to_list() for k, df in done.items()},
        log_x=True,
        xlabel="response time (s)",
    )
    report.add_figure(fig, "Distribution of the response times of completed transfers.")


def _scenario_name(text: str, default: str) -> str:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on 3.9/3.10 only
        import tomli as tomllib  # type: ignore[import-not-found,unused-ignore]
    try:
        name = tomllib.loads(text).get("name")
    except tomllib.TOMLDecodeError:
        return default
    return str(name) if name else default


# ----------------------------------------------------------- sweep report


def _point_label(coords: Mapping[str, Any], axes: Sequence[str]) -> str:
    from tcplab.sweep import coord_label

    return " / ".join(str(coord_label(coords.get(a))) for a in axes) if axes else "all"


#: Throughput-against-loss models a sweep report can overlay (``models=``).
LOSS_MODELS = ("mathis", "pftk")


def loss_figure(flows: pl.DataFrame, models: Sequence[str]) -> tuple[Figure, str] | None:
    """Goodput of every flow of every run (rows of a sweep's flows table)
    against its loss rate (segments retransmitted over segments sent, in the
    window), each a point, with the ``models``' predictions (Mathis et al.
    1997; Padhye et al. 1998, full model) for the runs' median RTT and MSS;
    and its caption. None when no flow retransmitted anything."""
    import numpy as np
    import polars as pl

    from tcplab import figures
    from tcplab import models as m

    d = flows.filter(pl.col("segs_sent_window") > 0).with_columns(
        (pl.col("segs_retrans_window") / pl.col("segs_sent_window")).alias("loss rate"),
        (pl.col("goodput_bps") / 1e6).alias("goodput Mb/s"),
    )
    d = d.filter((pl.col("loss rate") > 0) & pl.col("rtt_mean_s").is_finite())
    if d.height == 0:
        return None
    rtt = float(d["rtt_mean_s"].median())  # type: ignore[arg-type]
    mss = float(d["mss"].median()) if "mss" in d.columns else 1460.0  # type: ignore[arg-type]
    lo, hi = float(d["loss rate"].min()), float(d["loss rate"].max())  # type: ignore[arg-type]
    ps = np.geomspace(lo / 2, min(1.0, hi * 2) * 0.999, 60) if hi > lo else np.array([lo])
    t0 = max(1.0, 2 * rtt)
    overlay: dict[str, tuple[list[float], list[float]]] = {}
    for name in models:
        if name == "mathis":
            y = m.mathis_throughput(ps, rtt, mss)
            label = "Mathis et al. 1997"
        elif name == "pftk":
            y = m.pftk_throughput(ps, rtt, t0, mss=mss)
            label = f"Padhye et al. 1998 (T0 {t0:g} s)"
        else:
            raise ReportError(f"unknown loss model {name!r}; available: {', '.join(LOSS_MODELS)}")
        overlay[label] = ([float(p) for p in ps], [float(v) * 8 / 1e6 for v in np.atleast_1d(y)])
    fig = figures.curves(
        d,
        "loss rate",
        "goodput Mb/s",
        "name",
        overlay=overlay,
        lines=False,
        logx=True,
        logy=True,
        xlabel="loss rate (retransmitted / sent segments)",
        ylabel="goodput (Mb/s)",
        title="Goodput against loss",
    )
    caption = "One point per flow and run. " + (
        f"Lines: the models for the runs' median RTT ({rtt * 1e3:.4g} ms) and MSS "
        f"({mss:.0f} bytes), one ACK per segment (b = 1), no window limit"
        + (f"; PFTK's timeout T0 = max(1 s, 2 RTT) = {t0:g} s" if "pftk" in models else "")
        + ". The models take the rate of loss events; a retransmission fraction counts "
        "every retransmitted segment, so runs with bursts of losses sit to their right."
        if models
        else ""
    )
    return fig, caption


def sweep_report(  # noqa: PLR0912, PLR0915 - one section after another
    out_dir: str | os.PathLike[str],
    path: str | os.PathLike[str] | None = None,
    *,
    models: Sequence[str] = (),
) -> Path:
    """Write a report of the sweep in ``out_dir`` to ``path`` (default
    ``out_dir/report.html``) and return its path.

    It holds: an overview (axes, points, runs finished and failed); for flows
    and links, bars of mean goodput and utilisation per point with 95 % CIs,
    heat maps of each flow's goodput when the sweep is a grid of exactly two
    axes, and tables of mean ± CI per point; the traces (queue, cwnd, RTT) and phases of
    the first run; response times against size and their CDF per point when
    the scenario generates transfers; the scenario text; provenance (versions,
    git revision, scenario SHA-256, every run's seed and wall time) and the
    failed runs with their errors. With ``models`` (names in ``LOSS_MODELS``)
    it adds every flow's goodput against its loss rate, each run a point, with
    those models' predictions drawn over it. Raises ``ReportError`` for a
    directory that is not a sweep's or has no finished runs, or an unknown model.
    """
    import polars as pl

    from tcplab import figures
    from tcplab.sweep import (
        FAILED,
        MANIFEST,
        RUNS,
        _runs,
        coord_label,
        failures,
        read_table,
        summarize,
    )

    out = Path(out_dir)
    if not (out / MANIFEST).is_file():
        raise ReportError(f"{out}: no {MANIFEST}: not a sweep's output directory")
    try:
        manifest = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise ReportError(f"{out / MANIFEST}: cannot be read: {e}") from e
    axes: list[str] = [a for a, _ in manifest.get("axes", [])]
    runs = [prov for _, prov in _runs(out)]
    failed = failures(out)
    if not runs:
        why = f" ({len(failed)} failed; their errors are in {out / FAILED})" if failed else ""
        raise ReportError(f"{out}: no finished runs in {out / RUNS}{why}")
    runs.sort(key=lambda p: (p["point"], p["rep"]))
    text = str(manifest.get("scenario_text", ""))
    scenario = str(manifest.get("scenario", "?"))
    name = _scenario_name(text, Path(scenario).stem)
    n_points = len({p["point"] for p in runs} | {f.get("point") for f in failed})
    report = Report(
        f"Sweep: {name}",
        f"{scenario}: {len(runs)} finished run(s)"
        + (f", {len(failed)} failed" if failed else "")
        + f"; {n_points} point(s), {manifest.get('repetitions', '?')} repetition(s) each"
        + (" (more where `until` asked)" if manifest.get("until") else ""),
    )

    # Overview: axes and points.
    report.add_section(
        "Overview",
        f"Scenario {scenario} (SHA-256 {manifest.get('scenario_sha256', '?')}). "
        + (
            f"{len(axes)} {'axis' if len(axes) == 1 else 'axes'}, "
            f"mode {manifest.get('mode', 'grid')}."
            if axes
            else "No axes: repetitions of one point."
        )
        + (
            f" Repetitions continue until the 95 % CI of {manifest['until']['metric']} is "
            f"within {manifest['until']['ci_halfwidth']:.0%} of its mean "
            f"(at most {manifest['until']['max']})."
            if manifest.get("until")
            else ""
        ),
    )
    if axes:
        report.add_table(
            pl.DataFrame(
                {
                    "axis": axes,
                    # A table value by its label, as in the other tables.
                    "values": [
                        ", ".join(str(coord_label(x)) for x in v) for _, v in manifest["axes"]
                    ],
                }
            ),
            "Axes: scenario fields and the values swept.",
        )
    coords_of: dict[int, dict[str, Any]] = {}
    for p in runs:
        coords_of.setdefault(p["point"], p["coords"])
    for f in failed:
        coords_of.setdefault(f["point"], f.get("coords", {}))
    point_rows = []
    for pt in sorted(coords_of):
        mine = [p for p in runs if p["point"] == pt]
        row: dict[str, Any] = {"point": pt}
        row.update({a: str(coord_label(coords_of[pt].get(a))) for a in axes})
        row["finished runs"] = len(mine)
        row["failed runs"] = sum(1 for f in failed if f.get("point") == pt)
        row["wall s (sum)"] = sum(float(p.get("wall_s", 0.0)) for p in mine)
        point_rows.append(row)
    report.add_table(pl.DataFrame(point_rows), "Points.")

    group: list[str] = axes if axes else ["point"]
    xlabel = " / ".join(axes) if axes else "sweep point"
    keys = ["point", *axes, "name"]

    # Flows.
    flows = summarize(out, "flows")
    if flows.height:
        report.add_section(
            "Flows",
            "Means over the repetitions of each point, with 95 % confidence intervals "
            "(Student's t; none with a single repetition). Goodput and RTT cover the "
            "measurement window.",
        )
        if "goodput_bps_mean" in flows.columns:
            fig = figures.grouped_bars(
                flows,
                group,
                "name",
                "goodput_bps_mean",
                "goodput_bps_ci95",
                scale=1e-6,
                xlabel=xlabel,
                ylabel="goodput (Mb/s)",
                title="Goodput per flow",
            )
            report.add_figure(fig, "Mean goodput of each flow per point, 95 % CI.")
            if len(axes) == 2 and manifest.get("mode", "grid") == "grid":
                for fname in flows["name"].unique(maintain_order=True)[:MAX_HEATMAPS]:
                    part = flows.filter(pl.col("name") == fname)
                    fig = figures.heatmap(
                        part,
                        axes[0],
                        axes[1],
                        "goodput_bps_mean",
                        scale=1e-6,
                        clabel="goodput (Mb/s)",
                        title=f"Goodput of flow {fname}",
                    )
                    report.add_figure(fig, f"Mean goodput (Mb/s) of flow {fname} per point.")
        report.add_table(
            _summary_display(flows, keys, FLOW_METRICS), "Flows per point: mean ± 95 % CI."
        )

    if models:
        report.add_section(
            "Goodput against loss",
            "Every flow of every run: goodput in the window against its loss rate, the "
            "fraction of its segments sent in the window that were retransmissions (runs "
            "without any are left out: no model applies at p = 0).",
        )
        got = loss_figure(read_table(out, "flows"), models)
        if got is None:
            report.add_text("No flow retransmitted anything in the window: nothing to plot.")
        else:
            report.add_figure(*got)

    # Links.
    links = summarize(out, "links")
    if links.height:
        report.add_section("Links", "Every simplex link, both directions of each [[link]].")
        if "utilisation_mean" in links.columns:
            fig = figures.grouped_bars(
                links,
                group,
                "name",
                "utilisation_mean",
                "utilisation_ci95",
                scale=100.0,
                xlabel=xlabel,
                ylabel="utilisation (%)",
                title="Link utilisation",
            )
            report.add_figure(fig, "Mean utilisation of each simplex link per point, 95 % CI.")
        report.add_table(
            _summary_display(links, keys, LINK_METRICS), "Links per point: mean ± 95 % CI."
        )

    # Traces of the first run.
    first = runs[0]
    what = (
        f"run {first['run']} (point {first['point']}: "
        f"{_point_label(first['coords'], axes)}, repetition {first['rep']}, "
        f"seed {first['seed']})"
    )
    first_dir = out / RUNS / str(first["run"])
    if any(first_dir.glob("trace_*.parquet")) or (first_dir / "phases.parquet").exists():
        report.add_section("Traces", f"One run: {what}.")
        if not _trace_figures(report, first_dir, what):
            report.add_text("The traces of this run are empty.")

    # Traffic generators and transfers.
    gens = summarize(out, "generators")
    transfers = read_table(out, "transfers")
    if gens.height or transfers.height:
        report.add_section("Response times", "Connections started by the [[traffic]] generators.")
        if gens.height:
            report.add_table(
                _summary_display(gens, keys, GENERATOR_METRICS),
                "Traffic generators per point: mean ± 95 % CI.",
            )
        if transfers.height:
            with_transfers = set(transfers["point"].to_list())
            by_point = {
                _point_label(coords_of[pt], axes): transfers.filter(pl.col("point") == pt)
                for pt in sorted(coords_of)
                if pt in with_transfers
            }
            _transfer_figures(report, by_point)

    # Scenario, provenance.
    report.add_section("Scenario", f"The scenario file as the sweep read it: {scenario}.")
    report.add_code(text)
    report.add_section("Provenance")
    report.add_provenance(*_sweep_provenance(out))
    if not failed:
        report.add_text("No run failed.")
    return report.write(path if path is not None else inside(out, REPORT_FILE))


def _sweep_provenance(
    out: Path,
) -> tuple[dict[str, Any], pl.DataFrame, list[dict[str, Any]]]:
    """A sweep's facts, its runs (seed, wall time...) and its failed runs."""
    import polars as pl

    from tcplab.sweep import MANIFEST, _runs, failures

    manifest = _read_json(out / MANIFEST)
    runs = sorted((prov for _, prov in _runs(out)), key=lambda p: (p["point"], p["rep"]))
    until = manifest.get("until")
    info = {
        "scenario": manifest.get("scenario"),
        "scenario SHA-256": manifest.get("scenario_sha256"),
        "base seed": manifest.get("base_seed"),
        "mode": manifest.get("mode"),
        "repetitions": manifest.get("repetitions"),
        "until": f"{until['metric']} within {until['ci_halfwidth']:.0%}" if until else None,
        "tcplab version (sweep)": manifest.get("tcplab_version"),
        "git revision (sweep)": manifest.get("git_revision") or "(not a git checkout)",
        "finished runs": len(runs),
        "total wall time of the runs (s)": sum(float(p.get("wall_s", 0.0)) for p in runs),
    }
    run_df = pl.DataFrame(
        [
            {
                "run": p["run"],
                "point": p["point"],
                "rep": p["rep"],
                "seed": str(p["seed"]),  # a u64: as text, exactly
                "wall s": float(p.get("wall_s", math.nan)),
                "tcplab version": p.get("tcplab_version"),
                "git revision": p.get("git_revision"),
            }
            for p in runs
        ],
        strict=False,
    )
    for col, key in (("tcplab version", "tcplab_version"), ("git revision", "git_revision")):
        if run_df.height and set(run_df[col].to_list()) <= {manifest.get(key)}:
            run_df = run_df.drop(col)  # every run as the sweep: said once above
    return info, run_df, failures(out)


def _run_provenance(d: Path) -> dict[str, Any]:
    """A run directory's facts: its summary's meta and, in a sweep, its run.json."""
    from tcplab.results import SUMMARY_FILE
    from tcplab.sweep import RUN_FILE

    meta = _read_json(d / SUMMARY_FILE).get("meta", {})
    prov = _read_json(d / RUN_FILE) if (d / RUN_FILE).exists() else {}
    info: dict[str, Any] = {
        "scenario name": meta.get("name"),
        "seed": str(meta.get("seed")),
        "tcplab version": meta.get("version"),
        "wall time (s)": meta.get("wall_s"),
    }
    for key in ("run", "point", "coords", "rep", "scenario", "scenario_sha256", "git_revision"):
        if key in prov:
            info[key.replace("_", " ").replace("sha256", "SHA-256")] = prov[key]
    return info


def _read_json(path: Path) -> Any:
    """A JSON file of a run or sweep; ``ResultFileError`` naming it when it
    cannot be read."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        why = getattr(e, "strerror", None) or e
        raise ResultFileError(f"{path}: cannot be read ({why})") from None


def _result_dirs(d: Path) -> list[tuple[str, Path]]:
    """The sweep ("sweep") and run ("run") directories at or under ``d``, in
    name order; a sweep's own run directories are not listed apart."""
    from tcplab.results import SUMMARY_FILE
    from tcplab.sweep import MANIFEST

    if (d / MANIFEST).is_file():
        return [("sweep", d)]
    if (d / SUMMARY_FILE).is_file():
        return [("run", d)]
    found: list[tuple[str, Path]] = []
    for sub in sorted(p for p in d.iterdir() if p.is_dir() and not p.name.startswith(".")):
        found += _result_dirs(sub)
    return found


# ------------------------------------------------------------- run report


def run_report(run_dir: str | os.PathLike[str], path: str | os.PathLike[str] | None = None) -> Path:
    """Write a report of one run's directory (``tcplab run --out``, or a
    sweep's ``runs/<id>/``) to ``path`` (default ``run_dir/report.html``).

    It holds the run's facts, bars and tables of its flows and links, its
    traces and phases, response times if it generated transfers, its scenario
    text (``scenario.toml``; directories written before it was stored have
    none) and its provenance; a sweep's run directory adds its coordinates and
    scenario hash.
    """

    from tcplab import figures
    from tcplab.results import SCENARIO_FILE, SUMMARY_FILE

    d = Path(run_dir)
    if not (d / SUMMARY_FILE).is_file():
        raise ReportError(f"{d}: no {SUMMARY_FILE}: not a run's output directory")
    try:
        summary = json.loads((d / SUMMARY_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise ReportError(f"{d / SUMMARY_FILE}: cannot be read: {e}") from e
    meta: dict[str, Any] = summary.get("meta", {})
    report = Report(
        f"Run: {meta.get('name', d.name)}",
        f"{d}: seed {meta.get('seed')}, {meta.get('duration_s')} simulated s",
    )
    scenario_file = d / SCENARIO_FILE
    try:
        scenario = scenario_file.read_text(encoding="utf-8") if scenario_file.is_file() else None
    except (OSError, ValueError) as e:
        raise ReportError(f"{scenario_file}: cannot be read: {e}") from e
    report.add_section(
        "Overview",
        "The facts below identify the run; its scenario text is in the Scenario section."
        if scenario is not None
        else "This run's directory holds no scenario text (it was written before "
        f"tcplab stored {SCENARIO_FILE}); the facts below identify the run.",
    )
    facts = {
        "scenario name": meta.get("name"),
        "seed": str(meta.get("seed")),
        "simulated time (s)": meta.get("duration_s"),
        "measurement window (s)": f"{meta.get('measure_start_s')} to {meta.get('measure_end_s')}",
        "events": meta.get("events"),
        "packets": meta.get("packets"),
    }
    report.add_provenance(facts)
    tables = {
        name: read_parquet(d / f"{name}.parquet")
        for name in ("flows", "links", "generators", "transfers")
        if (d / f"{name}.parquet").exists()
    }
    flows = tables.get("flows")
    if flows is not None and flows.height:
        report.add_section("Flows", "Goodput and RTT cover the measurement window.")
        fig = figures.grouped_bars(
            flows,
            "name",
            None,
            "goodput_bps",
            scale=1e-6,
            xlabel="flow",
            ylabel="goodput (Mb/s)",
            title="Goodput per flow",
        )
        report.add_figure(fig, "Goodput of each flow.")
        report.add_table(_values_display(flows, ["name", "src", "dst", "cc"], FLOW_METRICS))
    links = tables.get("links")
    if links is not None and links.height:
        report.add_section("Links", "Every simplex link, both directions of each [[link]].")
        fig = figures.grouped_bars(
            links,
            "name",
            None,
            "utilisation",
            scale=100.0,
            xlabel="link",
            ylabel="utilisation (%)",
            title="Link utilisation",
        )
        report.add_figure(fig, "Utilisation of each simplex link.")
        report.add_table(_values_display(links, ["name", "qdisc"], LINK_METRICS))
    if any(d.glob("trace_*.parquet")) or (d / "phases.parquet").exists():
        report.add_section("Traces")
        if not _trace_figures(report, d, "this run"):
            report.add_text("The traces of this run are empty.")
    gens, transfers = tables.get("generators"), tables.get("transfers")
    if gens is not None or transfers is not None:
        report.add_section("Response times", "Connections started by the [[traffic]] generators.")
        if gens is not None:
            report.add_table(_values_display(gens, ["name"], GENERATOR_METRICS))
        if transfers is not None and transfers.height:
            _transfer_figures(report, {str(meta.get("name", "run")): transfers})
    if scenario is not None:
        report.add_section(
            "Scenario",
            f"The scenario text as run ({SCENARIO_FILE}); the seed used is "
            f"{meta.get('seed')} (a --seed given to tcplab run overrides the file's).",
        )
        report.add_code(scenario)
    report.add_section("Provenance")
    report.add_provenance(_run_provenance(d))
    return report.write(path if path is not None else inside(d, REPORT_FILE))


def report_dir(
    directory: str | os.PathLike[str],
    path: str | os.PathLike[str] | None = None,
    *,
    models: Sequence[str] = (),
) -> Path:
    """Report on a sweep's directory (it has ``sweep.json``) or a run's (it has
    ``summary.json``); raises ``ReportError`` for anything else, and for a
    damaged result file (naming it). ``models`` (sweeps only): loss models
    to overlay on goodput against loss."""
    from tcplab.results import SUMMARY_FILE
    from tcplab.sweep import MANIFEST

    d = Path(directory)
    if not d.is_dir():
        raise ReportError(f"{d}: no such directory")
    bad = [x for x in models if x not in LOSS_MODELS]
    if bad:
        raise ReportError(f"unknown loss model {bad[0]!r}; available: {', '.join(LOSS_MODELS)}")
    from tcplab.sweep import SweepError

    try:
        if (d / MANIFEST).is_file():
            return sweep_report(d, path, models=models)
        if (d / SUMMARY_FILE).is_file():
            if models:
                raise ReportError(f"{d}: --model needs a sweep's directory (one run has one point)")
            return run_report(d, path)
    except (ResultFileError, SweepError) as e:  # a damaged file, named
        raise ReportError(str(e)) from e
    raise ReportError(
        f"{d}: neither a sweep's output directory (no {MANIFEST}) nor a run's (no {SUMMARY_FILE})"
    )
