"""The papers' published results as criteria (tcplab.studies.claims): each
judge, fed runs built by hand to sit just inside or just outside its
criterion, gives the verdict the criterion's text says."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from tcplab.studies import barakat1999, claims, mascolo2006
from tcplab.studies.claims import judge


def _rows(
    part: str,
    coords: Mapping[str, Any],
    flows: Mapping[str, Sequence[float]],
    timeouts: Sequence[float] = (0, 0, 0),
    bounds: Sequence[float] = (0, 333, 666, 1000),
) -> list[dict[str, Any]]:
    """One run of ``part``: per flow, its goodput in each phase (b/s)."""
    out = []
    for flow, gs in flows.items():
        for k, g in enumerate(gs):
            out.append(
                {
                    "part": part,
                    "coords": json.dumps(dict(coords), sort_keys=True),
                    "rep": 0,
                    "flow": flow,
                    "phase": k,
                    "start_s": float(bounds[k]),
                    "end_s": float(bounds[k + 1]),
                    "goodput_bps": float(g),
                    "timeouts": float(timeouts[k]) if flow == "A" else 0.0,
                    "segs_sent": 1000,
                    "segs_retrans": 0,
                }
            )
    return out


def _claim(claims: Sequence[Any], ident: str) -> Any:
    return next(c for c in claims if c.ident == ident)


def _sec7(values: Mapping[str, Mapping[int, float]]) -> pl.DataFrame:
    """Section 7 runs whose whole-run wire throughput is ``values[policy][B]``
    kb/s: one phase of 600 s at that rate, scaled to the payload."""
    rows = []
    for policy, by_b in values.items():
        for b, kbps in by_b.items():
            payload = kbps * 1e3 * barakat1999.PAYLOAD_BYTES / barakat1999.WIRE_BYTES
            rows += _rows(
                f"sec7-{policy}", {barakat1999.B_AXIS: b}, {"tahoe": [payload]}, bounds=(0, 600)
            )
    return pl.DataFrame(rows)


def test_k7_wants_both_policies_above_drop_tail_at_exactly_13_16_18() -> None:
    bs = range(10, 21)
    dt = {b: 800.0 for b in bs}
    better = {b: (900.0 if b in (13, 16, 18) else 700.0) for b in bs}
    runs = _sec7({"droptail": dt, "randomdrop": better, "dropfront": better})
    value, ok = _claim(barakat1999.CLAIMS, "K7").judge(runs)
    assert ok
    assert value == "B = 13, 16, 18"
    # One more value of B where both win: not the paper's pattern.
    more = {**better, 20: 900.0}
    value, ok = _claim(barakat1999.CLAIMS, "K7").judge(
        _sec7({"droptail": dt, "randomdrop": more, "dropfront": more})
    )
    assert not ok
    assert value == "B = 13, 16, 18, 20"


def test_k5_is_717_kbps_within_15_percent_on_the_wire() -> None:
    k5 = _claim(barakat1999.CLAIMS, "K5")
    assert k5.judge(_sec7({"droptail": {18: 717 * 1.149}}))[1]
    assert not k5.judge(_sec7({"droptail": {18: 717 * 1.151}}))[1]
    assert k5.judge(_sec7({"droptail": {18: 717.0}}))[0] == "717 kb/s"


def test_k4_finds_the_largest_rise_between_consecutive_chains() -> None:
    def chains(ys: Sequence[float]) -> pl.DataFrame:
        rows = []
        for n, y in zip(barakat1999.CHAIN_NS, ys, strict=True):
            rows += _rows(f"sec5-chain-n{n}", {}, {"tahoe": [y * 1e3 * 472 / 512]}, bounds=(0, 600))
        return pl.DataFrame(rows)

    k4 = _claim(barakat1999.CLAIMS, "K4")
    value, ok = k4.judge(chains([880, 875, 885, 914, 1070, 1064, 1052, 1126, 1122, 1041]))
    assert ok
    assert value.startswith("largest rise from n = 4 to 5")
    value, ok = k4.judge(chains([880, 764, 913, 914, 1000, 1064, 1052, 1080, 1100, 1041]))
    assert not ok
    assert value.startswith("largest rise from n = 2 to 3")


def test_table_i_timeouts_are_within_a_factor_of_two_or_one() -> None:
    m6 = _claim(mascolo2006.CLAIMS, "M6")
    var = {"label": "HSTCP"}
    rtt = {"label": "RTT 40 ms"}

    def run(timeouts: Sequence[float]) -> pl.DataFrame:
        return pl.DataFrame(
            _rows(
                "a",
                {"defaults.host": var, "link[0]": rtt},
                {"A": [1e8] * 3, "B": [1e8] * 3},
                timeouts=timeouts,
            )
        )

    # The paper's HSTCP at 40 ms: 0/15/0.
    assert m6.judge(run((1, 30, 0)))[1]
    assert m6.judge(run((0, 7.5, 1)))[1]
    assert not m6.judge(run((2, 15, 0)))[1]
    assert not m6.judge(run((0, 31, 0)))[1]
    assert m6.judge(run((0, 15, 0)))[0] == "HSTCP 0/15/0"


def test_utilisation_counts_a_and_b_on_the_wire_and_leaves_the_linux_profile_out() -> None:
    var, rtt = {"label": "SACK"}, {"label": "RTT 40 ms"}
    payload = 250e6 * 1460 / 1500 / 2  # A and B each half the link, payload
    rows = _rows(
        "a",
        {"defaults.host": var, "link[0]": rtt, "defaults.host.profile": "ns2"},
        {"A": [payload] * 3, "B": [payload] * 3, "C": [5e7] * 3},
    )
    rows += _rows(
        "a",
        {"defaults.host": var, "link[0]": rtt, "defaults.host.profile": "linux"},
        {"A": [1.0] * 3, "B": [1.0] * 3},
    )
    u = mascolo2006.utilisation(pl.DataFrame(rows), "a", "RTT 40 ms")
    assert u == {("SACK", p): pytest.approx(1.0) for p in range(3)}


def test_a_claim_whose_runs_are_missing_is_not_checkable() -> None:
    t = judge(barakat1999.CLAIMS[:1], {"x": _sec7({"droptail": {18: 700.0}})})
    assert t["x verdict"].to_list() == ["not checkable"]
    assert "not in these runs" in t["x"][0]


def test_verdicts_are_counted_in_a_fixed_order() -> None:
    table = pl.DataFrame(
        {"tcplab verdict": ["not reproduced", "reproduced", "not checkable", "reproduced"]}
    )
    assert claims.verdict_counts(table) == (
        "2 reproduced, 1 not reproduced, 1 not checkable (of 4)"
    )
    assert claims.verdict_counts(table[:2]) == "1 reproduced, 1 not reproduced (of 2)"


def test_a_study_without_published_results_has_no_paper_table(tmp_path: Path) -> None:
    from tcplab.studies import get

    assert claims.claims_of(get("ns2-check")) == ()
    assert claims.paper_table(get("ns2-check"), tmp_path, False) is None
    assert len(claims.claims_of(get("barakat1999"))) == 9


def _braud(util: Mapping[tuple[int, str, str, str], float]) -> Any:
    """braud2016's tables with the given utilisations (buffer, down, up,
    direction) -> %, and no RTT, queue or response rows."""
    from tcplab.studies import braud2016

    rows = [
        {
            "uplink_buffer": b,
            "download_variant": d,
            "upload_variant": u,
            "direction": di,
            "utilisation_pct_mean": v,
        }
        for (b, d, u, di), v in util.items()
    ]
    return braud2016.BraudTables(pl.DataFrame(rows), pl.DataFrame(), {})


def test_b3_is_the_uploads_mean_loss_opposite_cubic_against_new_reno() -> None:
    from tcplab.studies import braud2016

    # Uploads New Reno, Cubic, Compound get 90, 80, 60 % opposite a New Reno
    # download and 54, 56, 45 % opposite Cubic: losses 40, 30, 25 %, mean
    # 31.7 %, inside 25.5-46 %. With 80 % for Compound opposite Cubic
    # (loss -33 %), the mean is 12.2 %: not reproduced.
    util = {}
    for u, nr, cu in (("newreno", 90, 54), ("cubic", 80, 56), ("compound", 60, 45)):
        util[(40, "newreno", u, "upload")] = nr
        util[(40, "cubic", u, "upload")] = cu
    b3 = next(c for c in braud2016.CLAIMS if c.ident == "B3")
    value, ok = b3.judge(_braud(util))
    assert ok is True
    assert "32%" in value
    util[(40, "cubic", "compound", "upload")] = 80
    value, ok = b3.judge(_braud(util))
    assert ok is False
    assert "12%" in value


def test_braud_claims_without_their_runs_are_not_checkable() -> None:
    from tcplab.studies import braud2016

    table = judge(braud2016.CLAIMS, {"tcplab": _braud({})})
    assert table.height == 14
    assert set(table["tcplab verdict"]) == {"not checkable"}


def test_highspeed_fibers_cost_is_fitted_on_f4_only_and_the_rest_judged_there() -> None:
    from tcplab.studies import highspeed_fiber as h

    # Point to point at 1 GB with SACK and timestamps: 480, 440, 380 Mb/s at
    # 0, 10, 20 us; 440 is nearest F4's 447, so 10 us. At 10 us, VTHD 1 GB
    # gives 300 Mb/s (F12: 320 +- 15 %: reproduced); at 0 us it would be 200.
    # Without timestamps VTHD peaks at 420 Mb/s at 512 KB and falls to 5 and
    # 3 Mb/s at 512 MB and 1 GB (F13: reproduced).
    rows = [
        ("p2p", h.BOTH, h.GB, 0.0, 480.0),
        ("p2p", h.BOTH, h.GB, 10.0, 440.0),
        ("p2p", h.BOTH, h.GB, 20.0, 380.0),
        ("vthd", h.BOTH, h.GB, 0.0, 200.0),
        ("vthd", h.BOTH, h.GB, 10.0, 300.0),
        ("vthd", h.NO_TS, 64 * h.KB, 10.0, 20.0),
        ("vthd", h.NO_TS, 512 * h.KB, 10.0, 420.0),
        ("vthd", h.NO_TS, 512 * h.MB, 10.0, 5.0),
        ("vthd", h.NO_TS, h.GB, 10.0, 3.0),
    ]
    t = pl.DataFrame(
        rows, schema=["path", "options", "B bytes", "cost us", "goodput Mb/s"], orient="row"
    )
    assert h.fitted_cost(t) == 10.0
    got = {c.ident: c.judge(t) for c in h.CLAIMS if c.ident in {"F4", "F12", "F13"}}
    assert got["F4"][1] is None
    assert got["F12"] == ("300.0 Mb/s (at 10 us)", True)
    assert got["F13"][1] is True
    assert "peak 420 Mb/s at 512 KB" in got["F13"][0]
    assert "10 us" in h.claims_note(t)
