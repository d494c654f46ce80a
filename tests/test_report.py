"""HTML reports: one self-contained file (every figure embedded, nothing
external), the scenario escaped, the tables and provenance of the sweep, the
``tcplab report`` command and its errors, rendering in headless Chromium, and
the examples of docs/report.md."""

from __future__ import annotations

import base64
import hashlib
import json
import math
import re
import shlex
import shutil
import subprocess
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

import polars as pl
import pytest

from tcplab import analysis, figures, sweep
from tcplab.cli import main
from tcplab.report import Report, ReportError, loss_figure, report_dir, sweep_report

REPO = Path(__file__).resolve().parents[1]
DOC = REPO / "docs" / "report.md"

# Two axes x two values, two repetitions; queue and cwnd traces; one [[flow]]
# and a traffic generator (transfers). The first line checks escaping.
SCENARIO = """\
# A <tiny> study & "its" report
repetitions = 2
name = "tiny"
seed = 7
duration = "4s"

[trace]
queue = true
cwnd = true

[[host]]
name = "a"

[[host]]
name = "b"

[[link]]
between = ["a", "b"]
rate = "10Mbps"
delay = "10ms"
queue = { packets = 50 }
loss = { rate = 0.002 }

[[flow]]
name = "f"
from = "a"
to = "b"

[[traffic]]
name = "web"
from = "a"
to = "b"
rate = 5
size = { dist = "zipf", alpha = 1.7, min = 1, max = 200, unit = "packets" }
"""
SWEEP = """
[sweep]
"link[0].queue.packets" = [20, 50]
"host[a].cc" = ["newreno", "cubic"]
"""
AXES = ["link[0].queue.packets", "host[a].cc"]

# What the report of this sweep must hold, from what the scenario asks for.
SECTIONS = ["Overview", "Flows", "Links", "Traces", "Response times", "Scenario", "Provenance"]
FIGURES = [
    "Mean goodput of each flow per point",  # bars
    "Mean goodput (Mb/s) of flow f per point",  # two axes: a heat map per flow
    "Mean utilisation of each simplex link per point",  # bars
    "Queue occupancy over time",  # [trace] queue
    "Congestion window of each flow over time",  # [trace] cwnd
    "Mean response time of completed transfers by size",  # [[traffic]]
    "Distribution of the response times",  # [[traffic]]
]


# ------------------------------------------------------------ HTML reading


@dataclass
class Table:
    caption: str = ""
    rows: list[list[str]] = field(default_factory=list)

    def records(self) -> list[dict[str, str]]:
        return [dict(zip(self.rows[0], r)) for r in self.rows[1:]]


class Page(HTMLParser):
    """The parts of a report a test looks at, text unescaped."""

    CAPTURE = ("title", "h1", "h2", "h3", "figcaption", "pre", "caption", "td", "th", "p", "dt")

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.attrs: list[tuple[str, dict[str, str | None]]] = []
        self.text: dict[str, list[str]] = {t: [] for t in self.CAPTURE}
        self.tables: list[Table] = []
        self._open: list[tuple[str, list[str]]] = []
        self.feed(html)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.attrs.append((tag, dict(attrs)))
        if tag == "table":
            self.tables.append(Table())
        elif tag == "tr":
            self.tables[-1].rows.append([])
        if tag in self.CAPTURE:
            self._open.append((tag, []))

    def handle_endtag(self, tag: str) -> None:
        if self._open and self._open[-1][0] == tag:
            _, parts = self._open.pop()
            text = "".join(parts)
            self.text[tag].append(text)
            if tag in ("td", "th"):
                self.tables[-1].rows[-1].append(text)
            elif tag == "caption":
                self.tables[-1].caption = text
            if self._open:  # nested (a <pre> in a <td>): the outer one sees it too
                self._open[-1][1].append(text)

    def handle_data(self, data: str) -> None:
        if self._open:
            self._open[-1][1].append(data)

    def tags(self, name: str) -> list[dict[str, str | None]]:
        return [a for t, a in self.attrs if t == name]

    def table(self, caption: str) -> Table:
        found = [t for t in self.tables if t.caption.startswith(caption)]
        assert len(found) == 1, [t.caption for t in self.tables]
        return found[0]


def decode_image(src: str) -> tuple[str, bytes]:
    m = re.fullmatch(r"data:(image/(?:svg\+xml|png));base64,([A-Za-z0-9+/=]+)", src)
    assert m, src[:80]
    return m.group(1), base64.b64decode(m.group(2), validate=True)


def assert_self_contained(html: str, page: Page) -> None:
    """No reference to anything outside the file: every src and href is a
    data: URI or an anchor in the page; no scripts, stylesheets or fonts to
    fetch, no URL at all."""
    for tag, attrs in page.attrs:
        for k, v in attrs.items():
            if k in ("src", "href"):
                assert v is not None
                assert v.startswith(("data:", "#")), (tag, k, v[:80])
        assert tag not in ("script", "link", "iframe", "object", "embed", "base"), tag
    assert "http://" not in html
    assert "https://" not in html
    assert "@import" not in html
    assert not re.search(r"url\((?!\s*['\"]?data:)", html)


def assert_svg_is_self_contained(data: bytes) -> None:
    root = ET.fromstring(data)
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    for el in root.iter():
        for k, v in el.attrib.items():
            if k.endswith("href"):  # glyphs and markers by #id, raster images inline
                assert v.startswith(("#", "data:")), (el.tag, v[:80])


# ---------------------------------------------------------------- fixture


@dataclass
class Study:
    scenario: Path
    out: Path
    html: str
    page: Page


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory) -> Study:
    d = tmp_path_factory.mktemp("study")
    p = d / "tiny.toml"
    p.write_text(SCENARIO + SWEEP, encoding="utf-8")
    sw = sweep.load_sweep(p.read_text(encoding="utf-8"), str(p))
    out = sweep.run_sweep(sw, d / "out", jobs=2)
    path = sweep_report(out)
    assert path == out / "report.html"
    html = path.read_text(encoding="utf-8")
    return Study(p, out, html, Page(html))


# ------------------------------------------------------------------ tests


def test_the_report_embeds_every_figure_and_needs_nothing_else(study: Study) -> None:
    page = study.page
    captions = page.text["figcaption"]
    assert len(captions) == len(FIGURES)
    for i, (caption, expected) in enumerate(zip(captions, FIGURES), start=1):
        assert caption.startswith(f"Figure {i}. {expected}"), caption
    imgs = page.tags("img")
    assert len(imgs) == len(page.tags("figure")) == len(FIGURES)
    for img in imgs:
        assert img["src"] is not None
        mime, data = decode_image(img["src"])
        if mime == "image/svg+xml":
            assert_svg_is_self_contained(data)
        else:
            assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert_self_contained(study.html, page)
    assert page.text["h2"] == SECTIONS
    # The contents link to every section.
    anchors = {a["id"] for t, a in page.attrs if t == "section"}
    links = {a["href"] for a in page.tags("a")}
    assert links == {f"#{x}" for x in anchors}


def test_the_scenario_is_shown_exactly_and_escaped(study: Study) -> None:
    text = study.scenario.read_text(encoding="utf-8")
    assert text in page_text(study.page.text["pre"])
    assert "# A &lt;tiny&gt; study &amp; &#34;its&#34; report" in study.html
    assert "<tiny>" not in study.html


def page_text(parts: list[str]) -> str:
    return "\n".join(parts)


def test_a_mean_and_its_ci_are_written_without_an_exponent() -> None:
    from tcplab.report import _pm

    # Two significant digits of the CI, the mean as its metric's format;
    # 184.3 with .2g is 1.8e+02, written 180.
    assert _pm(1741.55, 184.3, 1.0, ".6g") == "1741.55 ± 180"
    assert _pm(12345.6, 1234.5, 1.0, ".4g") == "12350 ± 1200"
    assert _pm(9.619e6, 4000.0, 1e-6, ".4g") == "9.619 ± 0.004"
    assert _pm(0.15, float("nan"), 1.0, ".4g") == "0.15"
    assert _pm(float("nan"), 1.0, 1.0, ".4g") == "\N{EN DASH}"


def test_a_mean_and_its_ci_sit_on_one_line_like_a_number() -> None:
    import polars as pl

    from tcplab.report import Report

    # A narrow column of "mean ± CI" strings wrapped onto three lines: they
    # are cells of class num (right-aligned, white-space: nowrap), as
    # numbers are; other strings are not.
    r = Report("t")
    r.add_table(pl.DataFrame({"rtos": ["0.15 ± 0.17", "2 ± 1e-05"], "cc": ["reno", "a ± b"]}))
    html = r.render()
    assert '<td class="num">0.15 ± 0.17</td>' in html
    assert '<td class="num">2 ± 1e-05</td>' in html
    assert "<td>reno</td>" in html
    assert "<td>a ± b</td>" in html


def test_the_tables_hold_mean_and_ci_per_point(study: Study) -> None:
    tidy = sweep.read_table(study.out, "flows")
    flows = study.page.table("Flows per point").records()
    assert len(flows) == tidy["point"].n_unique() == 4
    for row in flows:
        part = tidy.filter(pl.col("point") == int(row["point"]))
        m, ci = analysis.mean_ci(part["goodput_bps"].to_list())
        assert row["goodput (Mb/s)"] == f"{m * 1e-6:.4g} ± {ci * 1e-6:.2g}"
        assert row["n"] == str(part.height) == "2"
        for axis in AXES:
            assert row[axis] == str(part[axis][0])
    links = study.page.table("Links per point").records()
    tidy_links = sweep.read_table(study.out, "links")
    assert len(links) == tidy_links.select("point", "name").n_unique()
    row = links[0]
    part = tidy_links.filter((pl.col("point") == 0) & (pl.col("name") == row["name"]))
    m, ci = analysis.mean_ci(part["utilisation"].to_list())
    assert row["utilisation (%)"] == f"{m * 100:.4g} ± {ci * 100:.2g}"
    axes = study.page.table("Axes").records()
    assert [(r["axis"], r["values"]) for r in axes] == [
        (AXES[0], "20, 50"),
        (AXES[1], "newreno, cubic"),
    ]


def test_the_provenance_names_every_run_seed_and_the_scenario_hash(study: Study) -> None:
    facts = dict(zip(study.page.text["dt"], study.html.split("<dt>")[1:]))
    assert "scenario SHA-256" in facts
    digest = hashlib.sha256(study.scenario.read_bytes()).hexdigest()
    assert f"<dd>{digest}</dd>" in facts["scenario SHA-256"]
    runs = study.page.table("8 finished run(s)").records()
    expected = {
        (prov["run"], str(prov["seed"]))
        for prov in (
            json.loads(p.read_text(encoding="utf-8"))
            for p in (study.out / "runs").glob("*/run.json")
        )
    }
    assert len(expected) == 8
    assert {(r["run"], r["seed"]) for r in runs} == expected
    assert "No run failed." in study.page.text["p"]


def test_failed_runs_are_reported_with_their_error(study: Study, tmp_path: Path) -> None:
    out = tmp_path / "out"
    shutil.copytree(study.out, out)
    sw = sweep.load_sweep(study.scenario.read_text(encoding="utf-8"), str(study.scenario))
    task = sw.task(1, 0)
    shutil.rmtree(out / "runs" / task.run_id)  # as if this run had failed
    sweep._write_run(out, sw, task, {"ok": False, "error": "boom <x> & y", "wall_s": 0.1})
    page = Page(sweep_report(out).read_text(encoding="utf-8"))
    assert "1 run(s) failed:" in page.text["p"]
    assert "boom <x> & y" in page.text["pre"]
    assert any(f"run {task.run_id}" in p and f"seed {task.seed}" in p for p in page.text["p"])
    points = {r["point"]: r for r in page.table("Points").records()}
    assert (points["1"]["finished runs"], points["1"]["failed runs"]) == ("1", "1")
    assert (points["0"]["finished runs"], points["0"]["failed runs"]) == ("2", "0")


def test_a_sweep_without_finished_runs_or_a_stray_directory_is_an_error(
    study: Study, tmp_path: Path
) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    shutil.copy(study.out / "sweep.json", empty)
    with pytest.raises(ReportError, match=r"no finished runs in .*runs$"):
        report_dir(empty)
    with pytest.raises(ReportError, match="neither a sweep's output directory"):
        report_dir(tmp_path)
    with pytest.raises(ReportError, match="no such directory"):
        report_dir(tmp_path / "nope")


def cli(args: list[str]) -> int:
    with pytest.raises(SystemExit) as e:
        main(args)
    code = e.value.code
    assert isinstance(code, int)
    return code


def test_cli_report(study: Study, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "sub" / "r.html"
    assert cli(["report", str(study.out), "--out", str(target)]) == 0
    assert capsys.readouterr().out == f"report in {target}\n"
    assert target.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert sorted(p.name for p in target.parent.iterdir()) == ["r.html"]  # no temporary left
    # -j 2: the figures drawn by two worker processes, the same file.
    pooled = tmp_path / "sub" / "pooled.html"
    assert cli(["report", str(study.out), "--out", str(pooled), "-j", "2"]) == 0
    capsys.readouterr()
    assert pooled.read_bytes() == target.read_bytes()
    assert cli(["report", str(study.out), "-j", "0"]) == 2
    assert "-j" in capsys.readouterr().err
    assert cli(["report", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {tmp_path}: neither a sweep's output directory")
    (tmp_path / "e").mkdir()
    shutil.copy(study.out / "sweep.json", tmp_path / "e")
    assert cli(["report", str(tmp_path / "e")]) == 2
    assert "no finished runs" in capsys.readouterr().err


def test_goodput_against_loss_draws_each_run_and_the_models_as_their_formulas() -> None:
    # Two runs of one flow: 1 % and 4 % of its segments retransmitted, RTT 100
    # ms, MSS 1460 bytes. Mathis et al.: (MSS / RTT) sqrt(3 / (2 p)) bytes/s,
    # i.e. 1460 * 8 / 0.1 * sqrt(1.5 / p) / 1e6 Mb/s (1.4306 at p = 0.01).
    flows = pl.DataFrame(
        {
            "name": ["f", "f", "g"],
            "segs_sent_window": [10_000, 10_000, 10_000],
            "segs_retrans_window": [100, 400, 0],
            "goodput_bps": [1.2e6, 0.6e6, 3.0e6],
            "rtt_mean_s": [0.1, 0.1, 0.1],
            "mss": [1460, 1460, 1460],
        }
    )
    got = loss_figure(flows, ["mathis", "pftk"])
    assert got is not None
    fig, caption = got
    ax = fig.axes[0]
    lines = {ln.get_label(): ln for ln in ax.get_lines() if not ln.get_label().startswith("_")}
    # The points: g retransmitted nothing and is left out.
    assert list(lines["f"].get_xdata()) == [0.01, 0.04]
    assert list(lines["f"].get_ydata()) == [1.2, 0.6]
    assert "g" not in lines
    mathis = lines["Mathis et al. 1997"]
    for p, y in zip(mathis.get_xdata(), mathis.get_ydata()):
        assert y == pytest.approx(1460 * 8 / 0.1 * math.sqrt(1.5 / p) / 1e6)
    # The span covers the points, half the smallest to twice the largest.
    assert min(mathis.get_xdata()) == pytest.approx(0.005)
    assert max(mathis.get_xdata()) == pytest.approx(0.08 * 0.999)
    # PFTK lies below Mathis (timeouts add to every cycle) and T0 = max(1 s, 2 RTT).
    pftk = lines["Padhye et al. 1998 (T0 1 s)"]
    assert all(a < b for a, b in zip(pftk.get_ydata(), mathis.get_ydata()))
    assert "median RTT (100 ms)" in caption
    assert loss_figure(flows.filter(pl.col("name") == "g"), ["mathis"]) is None
    with pytest.raises(ReportError, match="unknown loss model 'cubic'"):
        loss_figure(flows, ["cubic"])


def test_cli_report_with_loss_models(
    study: Study, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "r.html"
    assert cli(["report", str(study.out), "--out", str(target), "--model", "mathis"]) == 0
    html = target.read_text(encoding="utf-8")
    assert "Goodput against loss" in html
    extra = html.count("<figure") - study.html.count("<figure")
    assert extra == (0 if "No flow retransmitted anything" in html else 1)
    capsys.readouterr()
    assert cli(["report", str(study.out), "--model", "reno"]) == 2
    assert "'reno' is not one of 'mathis', 'pftk'" in capsys.readouterr().err


def test_a_table_valued_axis_is_shown_by_its_label(tmp_path: Path) -> None:
    """Regression: the Axes and Points tables showed a swept table value as a
    raw dict ({'label': '64KiB', 'sndbuf': '64KiB'})."""
    p = tmp_path / "t.toml"
    p.write_text(
        SCENARIO.replace("repetitions = 2", "repetitions = 1")
        + """
[sweep]
"host[a]" = [
    { label = "64KiB", sndbuf = "64KiB" },
    { label = "1MiB", sndbuf = "1MiB" },
]
""",
        encoding="utf-8",
    )
    sw = sweep.load_sweep(p.read_text(encoding="utf-8"), str(p))
    html = sweep_report(sweep.run_sweep(sw, tmp_path / "out", jobs=1)).read_text(encoding="utf-8")
    page = Page(html)
    assert page.table("Axes").records() == [{"axis": "host[a]", "values": "64KiB, 1MiB"}]
    assert [r["host[a]"] for r in page.table("Points").records()] == ["64KiB", "1MiB"]
    assert not re.search(r"\{(&#39;|&#x27;|')label", html), "no raw dict anywhere"
    assert "(point 0: 64KiB, repetition 0" in html


def test_cli_report_of_a_single_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    p = tmp_path / "one.toml"
    p.write_text(SCENARIO, encoding="utf-8")
    assert cli(["run", str(p), "--out", str(tmp_path / "one"), "-q"]) == 0
    assert cli(["report", str(tmp_path / "one")]) == 0
    html = (tmp_path / "one" / "report.html").read_text(encoding="utf-8")
    page = Page(html)
    assert_self_contained(html, page)
    assert page.text["h2"] == [
        "Overview",
        "Flows",
        "Links",
        "Traces",
        "Response times",
        "Scenario",
        "Provenance",
    ]
    assert len(page.tags("img")) == 6  # goodput, utilisation, queue, cwnd, response, CDF
    # The scenario text as run, exactly (the page's text is unescaped).
    assert (tmp_path / "one" / "scenario.toml").read_text(encoding="utf-8") == SCENARIO
    assert SCENARIO in page_text(page.text["pre"])
    assert "# A &lt;tiny&gt; study &amp; &#34;its&#34; report" in html
    # A directory written before scenario.toml was stored: the report says so.
    (tmp_path / "one" / "scenario.toml").unlink()
    assert cli(["report", str(tmp_path / "one")]) == 0
    old = Page((tmp_path / "one" / "report.html").read_text(encoding="utf-8"))
    assert "Scenario" not in old.text["h2"]
    assert any("holds no scenario text" in p for p in old.text["p"])
    flows = pl.read_parquet(tmp_path / "one" / "flows.parquet")
    table = next(t for t in page.tables if t.rows and "goodput (Mb/s)" in t.rows[0]).records()
    assert [r["name"] for r in table] == flows["name"].to_list()
    assert table[0]["goodput (Mb/s)"] == f"{flows['goodput_bps'][0] * 1e-6:.4g}"


def test_the_report_builder(tmp_path: Path) -> None:
    r = Report("T <1>", "sub & co")
    fig = figures.cdf({"a": [1.0, 2.0]}, xlabel="x")
    r.add_figure(fig, "before <any> section", fmt="png")
    r.add_section("Numbers", "first\nparagraph\n\nsecond <para>")
    df = pl.DataFrame(
        {
            "a": [1, 2, 3],
            "x": [0.123456, None, math.nan],
            "s": ["<b>", "c", "d"],
            "flag": [True, False, True],
        }
    )
    r.add_table(df, "cap", max_rows=2)
    r.add_code("x < y && z", "a command")
    r.add_section("Provenance")
    r.add_provenance({"seed": 2**64 - 1, "note": "<n>"})
    with pytest.raises(ValueError, match="fmt: 'jpg'"):
        r.add_figure(fig, fmt="jpg")
    path = r.write(tmp_path / "r.html")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.html"]
    html = path.read_text(encoding="utf-8")
    page = Page(html)
    assert_self_contained(html, page)
    assert page.text["title"] == ["T <1>"]
    assert page.text["h1"] == ["T <1>"]
    assert "sub & co" in page.text["p"]
    assert page.text["h2"] == ["Numbers", "Provenance"]
    assert page.text["figcaption"] == ["Figure 1. before <any> section"]
    (img,) = page.tags("img")
    assert img["src"] is not None
    mime, data = decode_image(img["src"])
    assert mime == "image/png"
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    paragraphs = [p for p in page.text["p"] if p.startswith(("first", "second"))]
    assert paragraphs == ["first paragraph", "second <para>"]
    (table,) = page.tables
    assert table.caption == "cap"
    assert table.rows == [
        ["a", "x", "s", "flag"],
        ["1", "0.1235", "<b>", "yes"],
        ["2", "\N{EN DASH}", "c", "no"],
    ]
    assert "1 more rows not shown." in page.text["p"]
    assert page.text["pre"] == ["x < y && z"]
    assert page.text["dt"] == ["seed", "note"]
    assert "<dd>18446744073709551615</dd>" in html
    assert "<dd>&lt;n&gt;</dd>" in html


def test_provenance_from_a_tree_of_result_directories(study: Study, tmp_path: Path) -> None:
    shutil.copytree(study.out, tmp_path / "exp1")
    run = next(p for p in sorted((study.out / "runs").iterdir()))
    shutil.copytree(run, tmp_path / "single")
    r = Report("t")
    r.add_provenance_from(tmp_path)
    page = Page(r.render())
    assert page.text["h3"] == ["exp1", "single"]
    prov = json.loads((run / "run.json").read_text(encoding="utf-8"))
    assert page.table("8 finished run(s)")
    assert f"<dd>{prov['run']}</dd>" in r.render()  # the run directory's own run.json
    empty = Report("t")
    empty.add_provenance_from(tmp_path / "nothing")
    assert any("no provenance recorded" in p for p in Page(empty.render()).text["p"])


# --------------------------------------------------------- headless Chromium

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
OKABE_ORANGE = (0xE6, 0x9F, 0x00)  # the second series: the b->a bars, a response line
VIRIDIS_TOP = (253, 231, 37)  # the heat map's largest cell


@pytest.mark.skipif(
    CHROMIUM is None,
    reason="no chromium or chromium-browser on PATH (`make test` installs it with apt-get "
    "when run as root; or: apt-get install chromium)",
)
def test_the_report_renders_in_headless_chromium(study: Study, tmp_path: Path) -> None:
    import matplotlib.image as mpimg
    import numpy as np

    assert CHROMIUM is not None
    url = (study.out / "report.html").as_uri()
    base = [
        CHROMIUM,
        "--headless",
        "--disable-gpu",
        "--no-sandbox",
        "--hide-scrollbars",
        "--no-first-run",
        f"--user-data-dir={tmp_path / 'profile'}",
    ]
    shot = tmp_path / "shot.png"
    width, height = 1200, 10000
    proc = subprocess.run(
        [*base, f"--screenshot={shot}", f"--window-size={width},{height}", url],
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    img = mpimg.imread(shot)
    assert img.shape[:2] == (height, width)
    rgb = np.round(img[:, :, :3] * 255).astype(np.int16)
    # Not one colour: text, tables and figures; and the whole page fits (white below).
    packed = (rgb[..., 0].astype(np.int32) << 16) | (rgb[..., 1] << 8) | rgb[..., 2]
    assert len(np.unique(packed)) > 100
    inked = np.nonzero((rgb < 250).any(axis=(1, 2)))[0]
    assert 3000 < inked.max() < height - 100
    # The figures were drawn: colours only they use are on screen.
    for colour in (OKABE_ORANGE, VIRIDIS_TOP):
        close = (np.abs(rgb - np.array(colour)) <= 2).all(axis=2)
        assert close.sum() > 30, colour

    proc = subprocess.run(
        [*base, "--dump-dom", url], capture_output=True, text=True, timeout=180, check=False
    )
    assert proc.returncode == 0, proc.stderr
    dom = Page(proc.stdout)
    assert dom.text["h2"] == SECTIONS
    assert len(dom.tags("img")) == len(FIGURES)


# ----------------------------------------------------- docs/report.md examples


def blocks(markdown: str) -> list[tuple[str, str]]:
    """The fenced code blocks of a Markdown text: (language, body)."""
    return re.findall(r"^```(\w*)\n(.*?)^```", markdown, flags=re.M | re.S)


def test_the_examples_in_the_docs_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "scenarios").symlink_to(REPO / "scenarios")
    ran: dict[str, int] = {"toml": 0, "console": 0, "python": 0}
    for lang, body in blocks(DOC.read_text(encoding="utf-8")):
        if lang == "toml":
            name = body.split(":", 1)[0].lstrip("# ").strip()
            (tmp_path / name).write_text(body, encoding="utf-8")
        elif lang == "console":
            lines = body.splitlines()
            for i, line in enumerate(lines):
                if not line.startswith("$ "):
                    continue
                args = shlex.split(line[2:])
                assert args[0] == "tcplab"
                capsys.readouterr()
                assert cli(args[1:]) == 0, line
                expected = []
                for nxt in lines[i + 1 :]:
                    if nxt.startswith("$ "):
                        break
                    expected.append(nxt)
                assert capsys.readouterr().out.splitlines() == expected, line
        elif lang == "python":
            exec(compile(body, f"{DOC}:python", "exec"), {})
        else:
            continue
        ran[lang] += 1
    assert ran == {"toml": 1, "console": 3, "python": 3}
    for produced in (
        "out/study/report.html",
        "study.html",
        "loss.html",
        "out/long-newreno/report.html",
        "out/study/figures/utilisation.svg",
        "out/study/figures/goodput.png",
        "out/study/figures/response.svg",
        "out/study/custom.html",
    ):
        assert (tmp_path / produced).is_file(), produced
    custom = Page((tmp_path / "out/study/custom.html").read_text(encoding="utf-8"))
    assert custom.text["h2"] == ["Utilisation", "Scenario", "Provenance"]


def test_figures_drawn_by_worker_processes_give_the_same_report_byte_for_byte() -> None:
    # figure_pool draws each figure from its pickle in another process: the
    # same matplotlib, the same settings, so the same SVG and PNG bytes.
    from tcplab.report import figure_pool

    def build() -> str:
        rep = Report("pool")
        rep.add_section("cdfs")
        for k in range(3):
            fig = figures.cdf({"a": [1.0, 2.0, 4.0 + k], "b": [0.5, 3.0]}, title=f"cdf {k}")
            rep.add_figure(fig, f"figure {k}", fmt="svg" if k < 2 else "png")
        return rep.render()

    here = build()
    with figure_pool(2):
        pooled = build()
    assert pooled == here
    assert here.count("data:image/svg+xml;base64,") == 2
    assert here.count("data:image/png;base64,") == 1
