"""``tcplab reproduce barakat1999 --quick`` end to end, and the study's model
of a run checked against Barakat & Altman's formulas worked by hand on the
paper's section-7 and section-3 paths."""

from __future__ import annotations

import math
from pathlib import Path

import polars as pl
import pytest

from tcplab import models, reproduce
from tcplab.studies import barakat1999 as b


@pytest.fixture(scope="module")
def quick(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("barakat1999")
    reproduce.reproduce("barakat1999", out, quick=True, jobs=2)
    return out


def links(rows: list[tuple[str, str, float, float, int]]) -> pl.DataFrame:
    """A links table: (from, to, rate bit/s, delay s, queue limit)."""
    return pl.DataFrame(
        {
            "name": [f"{a}->{z}" for a, z, *_ in rows],
            "from": [a for a, *_ in rows],
            "to": [z for _, z, *_ in rows],
            "rate_bps": [r for *_, r, _, _ in rows],
            "delay_s": [d for *_, d, _ in rows],
            "queue_limit_pkts": [q for *_, q in rows],
        }
    )


# Section 7 at B = 18: access 2.7 Mb/s, node 1 2.2 Mb/s (B' = 15) with 140 ms,
# the bottleneck 1.5 Mb/s (B = 18) with 140 ms; ACKs back on 100 Mb/s links
# with the same delays.
SEC7 = links(
    [
        ("src", "n1", 2.7e6, 0.0, 1000),
        ("n1", "n2", 2.2e6, 0.14, 15),
        ("n2", "dst", 1.5e6, 0.14, 18),
        ("n1", "src", 100e6, 0.0, 1000),
        ("n2", "n1", 100e6, 0.14, 1000),
        ("dst", "n2", 100e6, 0.14, 1000),
    ]
)


def test_the_model_of_a_run_follows_the_paper_on_section_7s_path() -> None:
    # 512-byte packets: mu = 1.5e6 / 4096 = 366.2 packets/s. The access link
    # (2.7 Mb/s < 2 mu = 3 Mb/s) is a node fed at 2 mu: S_0 = 3/(3 - 2.7) * 1000
    # = 10000; node 1 fed at 2.7: S_1 = 2.7/(2.7 - 2.2) * 15 = 81; the
    # bottleneck fed at 2.2: S = 2.2/(2.2 - 1.5) * 18 = 56.571. S_B = S at the
    # bottleneck; 32 < 56.571 <= 64: n_B = 6, W_B = 32 + 28.286 = 60.286.
    # T = 2 * (0 + 0.14 + 0.14) = 0.56 s.
    m = b.model_of_run(SEC7, 512)
    assert m.mu == pytest.approx(1.5e6 / 4096)
    assert m.t == pytest.approx(0.56)
    assert m.s == pytest.approx((10000.0, 81.0))
    assert m.s_bottleneck == pytest.approx(2.2 / 0.7 * 18)
    assert (m.node_name(m.loss_node), m.n_b) == ("bottleneck", 6)
    assert m.w_b == pytest.approx(32 + 2.2 / 0.7 * 9)
    # The first slow start's threshold is window_ 2000 > W_B: double slow start.
    assert m.double_slow_start
    # Counting the packet in transmission: B = 19, S = 59.714, W_B = 61.857.
    m1 = b.model_of_run(SEC7, 512, extra_packet=True)
    assert m1.w_b == pytest.approx(32 + 2.2 / 0.7 * 19 / 2)


def test_the_bottleneck_is_the_first_slowest_link() -> None:
    # Section 3 with mu_1 = mu: node 1 (B_1 = 100) and the last link run at
    # 1.5 Mb/s; node 1 is the bottleneck, fed at 2 mu by the 100 Mb/s access
    # link (at or above 2 mu: no node): S = 2 B_1 = 200, 128 < 200 <= 256,
    # W_B = 128 + 100 = 228.
    sec3 = links(
        [
            ("src", "n1", 100e6, 0.0, 1000),
            ("n1", "n2", 1.5e6, 0.14, 100),
            ("n2", "dst", 1.5e6, 0.14, 50),
            ("n1", "src", 100e6, 0.0, 1000),
            ("n2", "n1", 100e6, 0.14, 1000),
            ("dst", "n2", 100e6, 0.14, 1000),
        ]
    )
    m = b.model_of_run(sec3, 512)
    assert (m.chain, m.b, m.s_b, m.w_b) == ((), 100.0, 200.0, 228.0)


def test_the_quick_report_has_every_section_and_figure(quick: Path) -> None:
    html = (quick / "report.html").read_text(encoding="utf-8")
    for title in ("Section 3", "Section 5", "Section 6", "Section 7"):
        assert title in html
    # Section 3: 2 window figures; sections 5 and 6: 1 curve each; section 7: 2
    # curves and the traces.
    assert html.count("<figure") == 7
    assert "Figure 7" in html
    assert "Figure 11" in html
    assert "Figures 9 and 10" in html
    assert "Barakat and Eitan Altman" in html


def test_the_quick_report_opens_with_the_paper_table(quick: Path) -> None:
    # One row per published result K1-K9 (../shared/papers/barakat1999.md),
    # computed from the runs; the report's first section, the CSV beside it.
    html = (quick / "report.html").read_text(encoding="utf-8")
    first = html.index("<h2")
    assert html[first:].startswith("<h2>The paper&#39;s published results</h2>")
    table = pl.read_csv(quick / "paper_results.csv")
    assert table["result"].to_list() == [f"K{k}" for k in range(1, 10)]
    assert set(table["tcplab verdict"]) <= {"reproduced", "not reproduced", "not checkable"}
    assert table["criterion"].str.len_chars().min() > 0


def test_each_runs_facts_agree_with_the_model_and_the_flows_table(quick: Path) -> None:
    facts = b.run_facts(quick / "sec7-droptail")
    assert facts.height == 11  # B = 10..20, one quick repetition
    for r in facts.iter_rows(named=True):
        # The model's window at the loss is W_B = 2^(n_B - 1) + S_B / 2.
        assert r["W_B (model)"] == pytest.approx(models.window_at_loss(r["S_B"]))
        # Named by link: the access link and node 1 queue bursts (slower than
        # 2 mu = 3 Mb/s), the bottleneck is marked.
        nodes = {"src->n1", "n1->n2", "n2->dst (bottleneck)"}
        assert r["first drop at"] in nodes
        assert r["loss node (model)"] in nodes
        assert r["retransmission lost at"] in {"none", *nodes}
        # A second slow start needs the retransmission through.
        if r["retransmission lost at"] != "none":
            assert not r["second slow start done"]
        assert 0 < r["goodput Mb/s"] < 1.5 * 472 / 512
        assert math.isfinite(r["throughput (model) Mb/s"])


def test_the_quick_reports_single_runs_claim_no_confidence_interval(quick: Path) -> None:
    # --quick runs each point once: the captions say so instead of "95 % CI".
    html = (quick / "report.html").read_text(encoding="utf-8")
    assert "one run (no interval)" in html
    assert "95 % CI over" not in html


def test_the_quick_report_says_what_goodput_counts(quick: Path) -> None:
    # The payload (472 of 512 bytes), with ns-2's whole-packet count beside it.
    html = (quick / "report.html").read_text(encoding="utf-8")
    assert "472 bytes" in html
    assert "after 60 s in 512-byte packets Mb/s" in html
    # Repetitions that differ only by the timer phase: said, not hidden.
    assert "near zero by construction" in html
