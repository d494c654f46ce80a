"""Packet captures (``[trace] pcap``): a simulated run's links as pcap files
that a well-kept parser (dpkt) reads back, checked against the run's own
counters: packets and bytes the link sent, data segments, retransmissions."""

from __future__ import annotations

import io
from pathlib import Path

import dpkt
import pytest

import tcplab

from conftest import run_cli

SCENARIO = """
name = "pcap"
duration = "5s"
[trace]
pcap = ["a->r", "b->r"]
[[host]]
name = "a"
[[host]]
name = "b"
[[router]]
name = "r"
[[link]]
between = ["a", "r"]
rate = "100Mbps"
delay = "1ms"
queue = { packets = 1000 }
[[link]]
between = ["r", "b"]
rate = "10Mbps"
delay = "20ms"
queue = { packets = 20 }
[[flow]]
name = "f"
from = "a"
to = "b"
"""


def test_a_capture_reads_back_as_the_run_counted_it(tmp_path: Path) -> None:
    p = tmp_path / "pcap.toml"
    p.write_text(SCENARIO, encoding="utf-8")
    res = tcplab.run(p)
    flow = res.flow_records()[0]
    links = {r["name"]: r for r in res.link_records()}
    assert set(res.pcap) == {"a->r", "b->r"}
    # a->r: the sender's access link, which drops nothing, so every segment
    # the sender sent crossed it.
    data = res.pcap["a->r"]
    reader = dpkt.pcap.Reader(io.BytesIO(data))
    assert reader.datalink() == dpkt.pcap.DLT_EN10MB
    segs = retrans = ip_bytes = packets = 0
    highest = 0
    last_ts = 0.0
    for ts, buf in reader:
        assert ts >= last_ts, "records in time order"
        last_ts = ts
        ip = dpkt.ethernet.Ethernet(buf).data
        assert isinstance(ip, dpkt.ip.IP)
        if ts < 5.0:
            # The link's counters: transmissions started in the window
            # [0, 5 s), the SYN at 0 included.
            packets += 1
            ip_bytes += ip.len
        tcp = ip.data
        assert isinstance(tcp, dpkt.tcp.TCP)
        assert (tcp.sport, tcp.dport) == (10_000, 5001)
        payload = ip.len - 4 * ip.hl - 4 * tcp.off
        if payload > 0:
            segs += 1
            end = tcp.seq + payload
            if end <= highest:
                retrans += 1
            highest = max(highest, end)
    assert packets == links["a->r"]["pkts_sent"]
    assert ip_bytes * 8 / 5.0 == pytest.approx(links["a->r"]["throughput_bps"], rel=1e-9)
    # Every data segment the flow sent in the run, and every retransmission.
    assert segs == flow["segs_sent"]
    assert retrans == flow["segs_retrans"]
    assert retrans > 0, "the 20-packet bottleneck makes the flow lose some"
    # The ACK direction: the receiver's port first, its options parsed by dpkt.
    acks = dpkt.pcap.Reader(io.BytesIO(res.pcap["b->r"]))
    opts_seen = set()
    for _, buf in acks:
        tcp = dpkt.ethernet.Ethernet(buf).data.data
        assert (tcp.sport, tcp.dport) == (5001, 10_000)
        for kind, _ in dpkt.tcp.parse_opts(tcp.opts):
            opts_seen.add(kind)
    assert dpkt.tcp.TCP_OPT_TIMESTAMP in opts_seen
    assert dpkt.tcp.TCP_OPT_SACK in opts_seen
    # Written beside the tables.
    out = res.write(tmp_path / "o")
    assert (out / "capture_a_r.pcap").read_bytes() == data


def test_a_capture_of_an_unknown_link_names_the_links(tmp_path: Path) -> None:
    p = tmp_path / "bad.toml"
    p.write_text(SCENARIO.replace('"b->r"', '"b->a"'), encoding="utf-8")
    r = run_cli("validate", str(p))
    assert r.returncode == 2
    assert "trace.pcap[1]" in r.stderr
    assert "a->r, r->a, r->b, b->r" in r.stderr
