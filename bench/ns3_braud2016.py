#!/usr/bin/env python3
"""ns-3 reference run of the Braud & Heusse (ALGOTEL 2016) "long-lived connections" scenario.

One bulk TCP NewReno download and one bulk TCP NewReno upload share an
ADSL-like asymmetric access link.  This script builds the scenario with the
ns-3 Python bindings (``pip install ns3``, cppyy based: ``from ns import ns``),
runs it, and prints each flow's goodput between ``--warmup`` (200 s) and the
end (800 s) as a fraction of its bottleneck rate, plus the wall time.  It is
the ns-3 side of ``bench/compare_ns3.py``.

Topology (all links ns-3 ``PointToPointNetDevice``/``PointToPointChannel``)::

    server 10.1.1.1 ==== router ---- link D (downlink) ---> client 10.1.2.2
                                <--- link U (uplink) ------ client 10.1.3.2

* server <-> router: 1 Gb/s each way, 1 us delay, device queue 1000 packets.
* Downlink router -> client: 10 Mb/s, 42 ms one-way propagation delay,
  Drop Tail queue of 250 packets on the router's device.
* Uplink client -> router: 2 Mb/s, 52 ms one-way propagation delay,
  Drop Tail queue of ``--uplink-buffer`` packets (40 by default, or 250) on
  the client's device.

Asymmetric delays: a ns-3 point-to-point channel has a single delay for both
directions, so each direction of the access link is its own point-to-point
link and only one direction of each carries traffic.  Static routing pins
the directions: the router sends everything for the client (both of its
addresses, 10.1.2.2 and a /32 host route for 10.1.3.2) over link D, and the
client's default route is link U.  ns-3's IPv4 uses the weak host model, so
the client accepts packets for 10.1.3.2 arriving on link D.  The unused
reverse directions of links D and U carry no packet (checked and printed at
the end, "unused reverse directions").

Buffers: the TrafficControl layer is taken out of the way by uninstalling the
queue disc that ``Ipv4AddressHelper::Assign`` installs by default (FqCoDel),
so IP hands packets straight to the device.  The only buffer on each
bottleneck is then the device's ``DropTailQueue<Packet>`` whose ``MaxSize``
is set to 250p (downlink) / 40p or 250p (uplink).  Counting: the packet being
serialised has already left the queue, so up to N packets wait plus one on
the wire.  With no queue disc, ns-3 stops the device queue once it cannot
take one more MTU-sized packet (i.e. when it holds N packets) and the
TrafficControl layer silently discards what IP sends meanwhile, which is a
Drop Tail drop at N packets all the same.  No trace fires for those, so the
drops of each bottleneck buffer are counted as the packets IP sent on that
interface (``Ipv4L3Protocol`` "Tx" trace) minus the packets its device queue
accepted; they and the peak queue length are printed.

Wire format: a point-to-point device adds a 2-byte PPP header, so a 1500-byte
IP packet takes 1502 bytes (1.2016 ms at 10 Mb/s, 6.008 ms at 2 Mb/s).  The
device MTU is 1500 bytes.  TCP segments carry 1448 payload bytes
(20 IP + 20 TCP + 12 timestamp option = 52 header bytes), hence 1500-byte IP
packets and a best possible goodput of 1448/1502 = 96.4 % of the link rate.

TCP (ns-3 ``TcpSocketBase``; ns-3 defaults unless listed):

* congestion control ``ns3::TcpNewReno`` (``TcpL4Protocol::SocketType``;
  ``--cc`` picks another by tcplab's name: ``NS3_CC`` below);
* loss recovery ``ns3::TcpClassicRecovery`` (``TcpL4Protocol::RecoveryType``;
  the ns-3 default is PRR, classic NewReno fast recovery is used here);
* ``TcpSocket::SegmentSize`` 1448, ``InitialCwnd`` 3 segments,
  ``InitialSlowStartThreshold`` default (unbounded);
* ``TcpSocket::SndBufSize`` = ``RcvBufSize`` = 4 MiB, so the congestion
  window, not the buffers, limits the flows (window scaling is on);
* ``TcpSocket::DelAckCount`` 2 (ACK every second segment) and
  ``DelAckTimeout`` 100 ms (ns-3 default is 200 ms);
* SACK, timestamps, window scaling, limited transmit: on (ns-3 defaults);
* ``TcpSocketBase::MinRto`` 1 s, ``ClockGranularity`` 1 ms,
  ``TcpSocket::InitialRtt`` (initial RTO) 1 s, ``DataRetries`` 6,
  Nagle on (``TcpNoDelay`` false), no ECN, no pacing: ns-3 defaults.

Traffic: ``BulkSendApplication`` (unlimited, ``SendSize`` 1448) on the
server to a ``PacketSink`` on the client (download), and from the client to
a ``PacketSink`` on the server (upload).  The download starts at U(0, 1) s
and the upload at 1 s + U(0, 1) s, both drawn from Python's
``random.Random(--seed)`` (seed 1 by default: 0.134 s and 1.847 s); the
ns-3 RNG is seeded with ``--seed`` too but nothing in the scenario draws
from it.

Measurements: ``Simulator::Run`` is stopped at ``--warmup`` and at the end to
read each ``PacketSink``'s byte count; goodput = bytes received in the
window * 8 / window length; "util" is that goodput divided by 10 Mb/s
(download) or 2 Mb/s (upload).  "wall_s" is the wall time of the
``Simulator::Run`` calls only; "setup_s" is the time to import ns-3 (which
JIT-compiles its headers with cppyy) and build the scenario.

Exit status 2, with a message and no traceback, when ns-3 cannot be imported.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from importlib import metadata
from types import SimpleNamespace

DOWN_RATE_BPS = 10_000_000
UP_RATE_BPS = 2_000_000
DOWN_DELAY_MS = 42
UP_DELAY_MS = 52
DOWN_BUFFER_PKTS = 250
LAN_RATE = "1Gbps"
LAN_DELAY = "1us"
LAN_BUFFER_PKTS = 1000
MSS = 1448
SOCKET_BUFFER = 4 * 1024 * 1024
INITIAL_CWND = 3
DELACK_TIMEOUT_MS = 100
DOWN_PORT = 5000
UP_PORT = 5001
NOT_INSTALLED = 2  # exit status when ns-3 cannot be imported

# Per watched device: packets IP handed to its interface, and the peak queue
# length.  Drops = IP sends - packets the device queue accepted (see docstring).
_COUNTERS_CPP = """
#include <algorithm>
#include <cstdint>
namespace tcplab_bench {
struct DevCounters {
  uint32_t iface = 0;
  uint64_t ip_tx = 0;
  uint32_t maxq = 0;
  ns3::Ptr<ns3::Queue<ns3::Packet>> queue;
  void OnIpTx(ns3::Ptr<const ns3::Packet>, ns3::Ptr<ns3::Ipv4>, uint32_t i) {
    if (i == iface) ++ip_tx;
  }
  void OnEnqueue(ns3::Ptr<const ns3::Packet>) {
    maxq = std::max(maxq, queue->GetNPackets());
  }
};
DevCounters* Watch(ns3::Ptr<ns3::PointToPointNetDevice> dev) {
  auto* c = new DevCounters();
  auto ipv4 = dev->GetNode()->GetObject<ns3::Ipv4L3Protocol>();
  c->iface = ipv4->GetInterfaceForDevice(dev);
  c->queue = dev->GetQueue();
  ipv4->TraceConnectWithoutContext("Tx", ns3::MakeCallback(&DevCounters::OnIpTx, c));
  c->queue->TraceConnectWithoutContext(
      "Enqueue", ns3::MakeCallback(&DevCounters::OnEnqueue, c));
  return c;
}
}  // namespace tcplab_bench
"""


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument(
        "--uplink-buffer",
        type=int,
        choices=(40, 250),
        default=40,
        help="uplink Drop Tail buffer in packets (default 40)",
    )
    p.add_argument("--duration", type=float, default=800.0, help="simulated seconds (default 800)")
    p.add_argument(
        "--warmup",
        type=float,
        default=200.0,
        help="goodput is measured from this time to the end (default 200)",
    )
    p.add_argument("--seed", type=int, default=1, help="seed for the start times")
    p.add_argument(
        "--cc",
        choices=sorted(NS3_CC),
        default="newreno",
        help="congestion control of both flows, by tcplab's name (default newreno)",
    )
    p.add_argument("--json", action="store_true", help="print one JSON line only")
    args = p.parse_args(argv)
    if not 0 <= args.warmup < args.duration:
        p.error("need 0 <= --warmup < --duration")
    return args


def import_ns3():
    """Return the ``ns`` namespace, or exit with status 2 if ns-3 is missing."""
    try:
        from ns import ns  # noqa: PLC0415 (lazy, to report a missing ns-3)
    except (ImportError, SystemExit) as exc:  # the ns stub calls exit() itself
        detail = f" ({exc})" if str(exc) not in ("", "-1") else ""
        print(f"ns-3 is not installed: pip install ns3{detail}", file=sys.stderr)
        raise SystemExit(NOT_INSTALLED) from None
    return ns


def ns3_version() -> str:
    try:
        return metadata.version("ns3")
    except metadata.PackageNotFoundError:
        return "unknown"


# tcplab controller name -> ns-3 congestion-control type (`--cc`).
NS3_CC = {
    "newreno": "ns3::TcpNewReno",
    "cubic": "ns3::TcpCubic",
    "vegas": "ns3::TcpVegas",
    "bic": "ns3::TcpBic",
    "highspeed": "ns3::TcpHighSpeed",
    "htcp": "ns3::TcpHtcp",
    "scalable": "ns3::TcpScalable",
    "westwood": "ns3::TcpWestwoodPlus",
    "hybla": "ns3::TcpHybla",
    "veno": "ns3::TcpVeno",
    "illinois": "ns3::TcpIllinois",
    "bbr": "ns3::TcpBbr",
}


def configure_tcp(ns, cc: str = "newreno") -> None:
    sd = ns.Config.SetDefault
    sd("ns3::TcpL4Protocol::SocketType", ns.StringValue(NS3_CC[cc]))
    sd("ns3::TcpL4Protocol::RecoveryType", ns.StringValue("ns3::TcpClassicRecovery"))
    sd("ns3::TcpSocket::SegmentSize", ns.UintegerValue(MSS))
    sd("ns3::TcpSocket::InitialCwnd", ns.UintegerValue(INITIAL_CWND))
    sd("ns3::TcpSocket::SndBufSize", ns.UintegerValue(SOCKET_BUFFER))
    sd("ns3::TcpSocket::RcvBufSize", ns.UintegerValue(SOCKET_BUFFER))
    sd("ns3::TcpSocket::DelAckCount", ns.UintegerValue(2))
    sd(
        "ns3::TcpSocket::DelAckTimeout",
        ns.TimeValue(ns.MilliSeconds(DELACK_TIMEOUT_MS)),
    )
    sd("ns3::TcpSocketBase::Sack", ns.BooleanValue(True))
    sd("ns3::TcpSocketBase::Timestamp", ns.BooleanValue(True))
    sd("ns3::TcpSocketBase::WindowScaling", ns.BooleanValue(True))


def p2p_link(ns, a, b, *, rate: str, delay: str, queue_pkts: int):
    """A point-to-point link a--b; returns its NetDeviceContainer (a's, b's)."""
    h = ns.PointToPointHelper()
    h.SetDeviceAttribute("DataRate", ns.StringValue(rate))
    h.SetDeviceAttribute("Mtu", ns.UintegerValue(1500))
    h.SetChannelAttribute("Delay", ns.StringValue(delay))
    h.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", ns.StringValue(f"{queue_pkts}p"))
    return h.Install(a, b)


def build_network(ns, uplink_buffer: int) -> SimpleNamespace:
    """Nodes, links, addresses and routes; no queue discs anywhere."""
    nodes = ns.NodeContainer()
    nodes.Create(3)
    net = SimpleNamespace(server=nodes.Get(0), router=nodes.Get(1), client=nodes.Get(2))
    ns.InternetStackHelper().Install(nodes)

    net.lan = p2p_link(
        ns, net.server, net.router, rate=LAN_RATE, delay=LAN_DELAY, queue_pkts=LAN_BUFFER_PKTS
    )
    # Link D carries router -> client only; its client -> router direction is
    # unused (the rate/queue given to the client's end of it are irrelevant).
    net.down = p2p_link(
        ns,
        net.router,
        net.client,
        rate=f"{DOWN_RATE_BPS}bps",
        delay=f"{DOWN_DELAY_MS}ms",
        queue_pkts=DOWN_BUFFER_PKTS,
    )
    # Link U carries client -> router only.
    net.up = p2p_link(
        ns,
        net.client,
        net.router,
        rate=f"{UP_RATE_BPS}bps",
        delay=f"{UP_DELAY_MS}ms",
        queue_pkts=uplink_buffer,
    )

    addr = ns.Ipv4AddressHelper()
    mask = ns.Ipv4Mask("255.255.255.0")
    addr.SetBase(ns.Ipv4Address("10.1.1.0"), mask)
    lan_if = addr.Assign(net.lan)  # server 10.1.1.1 (if 1), router 10.1.1.2 (if 1)
    addr.SetBase(ns.Ipv4Address("10.1.2.0"), mask)
    down_if = addr.Assign(net.down)  # router 10.1.2.1 (if 2), client 10.1.2.2 (if 1)
    addr.SetBase(ns.Ipv4Address("10.1.3.0"), mask)
    up_if = addr.Assign(net.up)  # client 10.1.3.1 (if 2), router 10.1.3.2 (if 3)

    # No queue disc: the device's DropTail queue is the only buffer.
    tch = ns.TrafficControlHelper()
    for devs in (net.lan, net.down, net.up):
        tch.Uninstall(devs)

    net.server_addr = lan_if.GetAddress(0)
    net.client_addr = down_if.GetAddress(1)
    srh = ns.Ipv4StaticRoutingHelper()

    def static(node):
        return srh.GetStaticRouting(node.GetObject[ns.Ipv4]())

    static(net.server).SetDefaultRoute(lan_if.GetAddress(1), 1)
    # Everything the client sends leaves on link U.
    static(net.client).SetDefaultRoute(up_if.GetAddress(1), 2)
    # Replies to the client's link-U address go down link D as well.
    static(net.router).AddHostRouteTo(up_if.GetAddress(0), net.client_addr, 2)
    return net


def add_traffic(ns, net: SimpleNamespace, seed: int):
    """The two bulk transfers; returns (download sink, upload sink, starts)."""
    rng = random.Random(seed)
    down_start = rng.uniform(0.0, 1.0)
    up_start = 1.0 + rng.uniform(0.0, 1.0)

    def bulk(src, dst_addr, port, start):
        h = ns.BulkSendHelper(
            "ns3::TcpSocketFactory", ns.InetSocketAddress(dst_addr, port).ConvertTo()
        )
        h.SetAttribute("MaxBytes", ns.UintegerValue(0))
        h.SetAttribute("SendSize", ns.UintegerValue(MSS))
        h.Install(src).Start(ns.Seconds(start))

    def sink(node, port):
        h = ns.PacketSinkHelper(
            "ns3::TcpSocketFactory",
            ns.InetSocketAddress(ns.Ipv4Address.GetAny(), port).ConvertTo(),
        )
        apps = h.Install(node)
        apps.Start(ns.Seconds(0.0))
        return ns.DynamicCast[ns.PacketSink](apps.Get(0))

    down_sink = sink(net.client, DOWN_PORT)
    up_sink = sink(net.server, UP_PORT)
    bulk(net.server, net.client_addr, DOWN_PORT, down_start)
    bulk(net.client, net.server_addr, UP_PORT, up_start)
    return down_sink, up_sink, (down_start, up_start)


def watch_queues(ns, net: SimpleNamespace):
    """Counters on both bottleneck devices, and the queues of the two unused
    reverse directions (which must never carry a packet)."""
    ns.cppyy.cppdef(_COUNTERS_CPP)
    watch = ns.cppyy.gbl.tcplab_bench.Watch

    def p2p(devs, i):
        return ns.DynamicCast[ns.PointToPointNetDevice](devs.Get(i))

    watched = {
        "downlink (router)": watch(p2p(net.down, 0)),
        "uplink (client)": watch(p2p(net.up, 0)),
    }
    unused = (p2p(net.down, 1).GetQueue(), p2p(net.up, 1).GetQueue())
    return watched, unused


def build(ns, uplink_buffer: int, seed: int, cc: str = "newreno"):
    """Build the scenario.

    Returns (download sink, upload sink, watched bottleneck devices, queues of
    the unused reverse directions, (download start, upload start)).
    """
    ns.RngSeedManager.SetSeed(max(1, seed))
    configure_tcp(ns, cc)
    net = build_network(ns, uplink_buffer)
    down_sink, up_sink, starts = add_traffic(ns, net, seed)
    watched, unused = watch_queues(ns, net)
    return down_sink, up_sink, watched, unused, starts


def queue_stats(c) -> dict:
    """Packets sent by IP on a watched device, and where the drops happened."""
    accepted = int(c.queue.GetTotalReceivedPackets())
    in_queue = int(c.queue.GetTotalDroppedPackets())
    sent = int(c.ip_tx)
    return {
        "ip_sent_pkts": sent,
        "dropped_pkts": sent - accepted,
        "dropped_stopped_queue": sent - accepted - in_queue,
        "dropped_in_queue": in_queue,
        "max_queue_pkts": int(c.maxq),
    }


def run(args: argparse.Namespace) -> dict:
    t0 = time.perf_counter()
    ns = import_ns3()
    down_sink, up_sink, watched, unused, starts = build(ns, args.uplink_buffer, args.seed, args.cc)
    setup_s = time.perf_counter() - t0

    t1 = time.perf_counter()
    ns.Simulator.Stop(ns.Seconds(args.warmup))
    ns.Simulator.Run()
    rx0 = (down_sink.GetTotalRx(), up_sink.GetTotalRx())
    ns.Simulator.Stop(ns.Seconds(args.duration - args.warmup))
    ns.Simulator.Run()
    rx1 = (down_sink.GetTotalRx(), up_sink.GetTotalRx())
    wall_s = time.perf_counter() - t1

    window = args.duration - args.warmup
    down_bps = (rx1[0] - rx0[0]) * 8 / window
    up_bps = (rx1[1] - rx0[1]) * 8 / window
    result = {
        "tool": "ns-3",
        "ns3_version": ns3_version(),
        "cc": NS3_CC[args.cc],
        "uplink_buffer": args.uplink_buffer,
        "duration_s": args.duration,
        "window_s": [args.warmup, args.duration],
        "starts_s": [round(s, 6) for s in starts],
        "wall_s": round(wall_s, 3),
        "setup_s": round(setup_s, 3),
        "down_goodput_bps": round(down_bps),
        "up_goodput_bps": round(up_bps),
        "down_util": round(down_bps / DOWN_RATE_BPS, 5),
        "up_util": round(up_bps / UP_RATE_BPS, 5),
        "down_rx_bytes": int(rx1[0]),
        "up_rx_bytes": int(rx1[1]),
        "queues": {name: queue_stats(c) for name, c in watched.items()},
        "unused_reverse_tx_pkts": int(sum(q.GetTotalReceivedPackets() for q in unused)),
    }
    ns.Simulator.Destroy()
    return result


def print_human(r: dict) -> None:
    print(f"ns-3 {r['ns3_version']}: Braud & Heusse 2016, long-lived {r['cc']} flows")
    print(
        f"  uplink buffer {r['uplink_buffer']} pkts, downlink buffer {DOWN_BUFFER_PKTS} pkts,"
        f" {r['duration_s']:g} s simulated, starts {r['starts_s'][0]:.3f} s (down)"
        f" / {r['starts_s'][1]:.3f} s (up)"
    )
    w0, w1 = r["window_s"]
    print(f"  goodput {w0:g}-{w1:g} s:")
    print(
        f"    download {r['down_goodput_bps'] / 1e6:7.3f} Mb/s"
        f" = {100 * r['down_util']:6.2f} % of 10 Mb/s"
    )
    print(
        f"    upload   {r['up_goodput_bps'] / 1e6:7.3f} Mb/s"
        f" = {100 * r['up_util']:6.2f} % of 2 Mb/s"
    )
    print(f"    (best possible with 1448/1502-byte frames: {100 * MSS / 1502:.2f} %)")
    for name, q in r["queues"].items():
        print(
            f"  {name} buffer: {q['dropped_pkts']} of {q['ip_sent_pkts']} pkts dropped"
            f" ({100 * q['dropped_pkts'] / max(1, q['ip_sent_pkts']):.2f} %),"
            f" max queue {q['max_queue_pkts']} pkts"
        )
    print(f"  unused reverse directions: {r['unused_reverse_tx_pkts']} pkts (must be 0)")
    print(f"  wall time: {r['wall_s']:.2f} s simulation, {r['setup_s']:.2f} s import+setup")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    result = run(args)
    if args.json:
        print(json.dumps(result))
    else:
        print_human(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
