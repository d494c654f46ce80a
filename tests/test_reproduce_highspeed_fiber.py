"""``tcplab reproduce highspeed-fiber --quick`` end to end; the study files are
what their generator writes; the limits the report draws are checked against
Linux 2.2's window worked by hand and the hosts' bound computed by hand, and
the simulated curves against those limits where they bind."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from tcplab import reproduce
from tcplab.studies import highspeed_fiber as h

from conftest import assert_study_files_are_generated


@pytest.fixture(scope="module")
def quick(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("highspeed")
    reproduce.reproduce("highspeed-fiber", out, quick=True, jobs=2)
    return out


def test_the_study_files_are_what_their_generator_writes() -> None:
    assert_study_files_are_generated("highspeed-fiber")


def test_linux22_window_is_half_the_buffer_in_whole_segments() -> None:
    # sk->rcvbuf 65535 (the sysctl default): free/2 = 32767 -> 22 x 1448 = 31856.
    assert h.linux22_window(65535, 1448) == 31856
    # SO_RCVBUF 65535 doubled to 131070: 65535 -> 45 x 1448 = 65160.
    assert h.linux22_window(131070, 1448) == 65160
    # 1 GB: 5e8 bytes fit a scale of 13 (65535 << 13 = 536862720): 345303 x 1448.
    assert h.linux22_window(10**9, 1448) == 500_000_000 // 1448 * 1448
    assert h.parse_size("64KB") == 64_000
    assert h.parse_size("1GiB") == 2**30


def test_the_host_bound_is_a_segment_and_half_an_ack_per_stage_time() -> None:
    # 10 us per packet; a 1500-byte packet on a 1.056 Gb/s bus 11.364 us, a
    # 52-byte ACK 0.394 us: 10 + 11.364 + (10 + 0.394)/2 = 26.561 us per
    # 1448-byte segment: 436.1 Mb/s.
    assert h.host_bound_bps(10e-6, True) == pytest.approx(436.13e6, rel=1e-4)
    # No per-packet cost: the bus (11.56 us per segment) is faster than the
    # wire (1500 bytes and 38 of Ethernet framing: 12.304 us per packet):
    # 1448 B per 12.304 us = 941.5 Mb/s, what Gigabit Ethernet carries of TCP
    # payload with timestamps (1460 B without: 949.3 Mb/s).
    assert h.host_bound_bps(0.0, True) == pytest.approx(941.48e6, rel=1e-4)
    assert h.wire_payload_bps(False) == pytest.approx(949.28e6, rel=1e-4)


def test_quick_report_and_the_limits_that_bind(quick: Path) -> None:
    html = (quick / "report.html").read_text(encoding="utf-8")
    for section in (
        "Path 1: point to point",
        "Path 2: VTHD (15 ms)",
        "VTHD: router buffers",
        "Traces: the window",
        "Mechanisms",
        "Window limit.",
        "Host bound",
        "SACK off, timestamps off",
        "Router buffer overflow.",
        "NTTCP&#39;s default transfer, timed whole",
    ):
        assert section in html, section
    p2p = h._flows(quick / "p2p")
    # Point to point at 10 us per packet and a buffer of 512 KB or more the
    # hosts, not the window, limit: the goodput is their bound.
    bound = h.host_bound_bps(10e-6, True) / 1e6
    hosts = p2p.filter(
        (pl.col("cost us") == 10.0) & (pl.col("B bytes") >= 512_000) & pl.col(h.TS) & pl.col(h.SACK)
    )
    assert hosts.height == 3
    for g in hosts["goodput Mb/s"].to_list():
        assert g == pytest.approx(bound, rel=0.01)
    # VTHD with 64 KB: the window (31856 B) over the 15 ms round trip, less
    # the few tens of microseconds the stages and serialisation add.
    vthd = h._flows(quick / "vthd")
    small = vthd.filter((pl.col("B bytes") == 64_000) & pl.col(h.TS))
    limit = h.linux22_window(64_000, 1448) * 8 / 0.015 / 1e6
    for g in small["goodput Mb/s"].to_list():
        assert 0.97 * limit < g <= limit
    # The traced runs' loss episodes are in the report's tables.
    from tcplab.sweep import read_table

    ep = read_table(quick / "vthd-trace", "episodes")
    assert set(ep["kind"].to_list()) <= {"fast_retransmit", "timeout"}
    assert "Loss episodes of the traced runs" in html
    assert "Host stages of the traced runs" in html


def test_the_repetition_spread_is_the_largest_over_the_points() -> None:
    # Point 1: 100 and 101 Mb/s (1 %); point 2: 200 and 203 (1.5 %); point 3
    # has one run and says nothing.
    flows = pl.DataFrame(
        {"point": [1, 1, 2, 2, 3], "goodput_bps": [100e6, 101e6, 203e6, 200e6, 50e6]}
    )
    spread = h.repetition_spread(flows)
    assert spread is not None
    assert abs(spread - 0.015) < 1e-12
    assert h.repetition_spread(flows.filter(pl.col("point") == 3)) is None


def test_a_transfer_is_timed_whole_as_nttcp_reports_it() -> None:
    # 8 MiB (8,388,608 B = 67,108,864 bits) in 0.5 s: 134.2 Mb/s; in 4 s:
    # 16.8 Mb/s; an unfinished transfer is left out.
    flows = pl.DataFrame(
        {
            "completed": [True, True, False],
            "fct_s": [0.5, 4.0, None],
            "bytes_delivered": [8_388_608, 8_388_608, 1_000_000],
        }
    )
    got = h.transfer_throughput(flows)["transfer Mb/s"].to_list()
    assert got == pytest.approx([134.217728, 16.777216])
