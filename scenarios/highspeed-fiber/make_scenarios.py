"""Write the highspeed-fiber study files (socket buffers, SACK and timestamps
on gigabit paths, Linux 2.2.16 hosts on the French VTHD network) into the
package: python/tcplab/studies/data/highspeed-fiber/.

Hosts (every value from a source or swept; see docs/reproduce.md):
  - profile linux22: Linux 2.2.16 as its sources say (docs/tcp.md);
  - sndbuf = rcvbuf = B, swept: the buffer the paper sets through rmem_max /
    wmem_max, read as the kernel's sk->sndbuf / sk->rcvbuf (what a socket
    gets from the sysctl default): the window is then about B/2 (half the
    free buffer, __tcp_select_window). NTTCP 1.47 makes no setsockopt call
    by default, and its -w (KiB, below 10000: not 512 MB or 1 GB) comes after
    connect()/accept(), when the window scale and clamp are already fixed
    from the default (tcp_make_synack): no reading the 2.2.16 sources allow
    gives NTTCP a window above about B/2;
  - bus_rate 1056 Mb/s: the 32-bit, 33 MHz PCI bus, 132 MB/s (the paper);
  - packet_cost swept over 0, 10 and 20 us: the CPU's work per packet on a
    Pentium III 933 MHz, for which no source gives a figure;
  - tx_queue 100: the Ethernet device queue (tx_queue_len, Linux 2.2
    drivers/net/net_init.c); rx_queue 300: netdev_max_backlog
    (net/core/dev.c);
  - mem_limit 512 MB: the hosts' RAM, an upper bound on what a connection's
    buffers may take.

Files:
  - p2p.toml: two hosts joined by a 1 Gb/s fibre, 125 us each way (RTT about
    250 us); B in 64 KB, 512 KB, 1 MB, 1 GB; SACK and timestamps on, off and
    each alone; packet_cost swept. Bulk transfer, measured 3-10 s.
  - vthd.toml: Sophia Antipolis to Paris: Gigabit Ethernet access (1 Gb/s,
    0.5 ms) to an access router at each end, three 2.5 Gb/s WDM hops between
    four backbone routers, 15 ms round trip (the paper's 15 Mbit bandwidth-
    delay product at 1 Gb/s); B in 64 KB, 128 KB, 512 KB, 1 MB, 512 MB, 1 GB;
    options and packet_cost as above; every router queue 500 packets. Bulk,
    measured 10-30 s.
  - vthd-routers.toml: the same at packet_cost 10 us with every router queue
    swept over 50, 500 and 5000 packets (the paper gives none).
  - vthd-trace.toml: one run per option set at B = 1 GB, packet_cost 10 us,
    with the cwnd trace, for the mechanism sections.
  - vthd-nttcp.toml: VTHD at packet_cost 10 us with NTTCP 1.47's default
    transfer (-l 4096 -n 2048: 8 MiB), timed whole, slow start included, as
    NTTCP times it (the paper gives neither -l nor -n): another reading of
    the measurement, beside the steady state of vthd.toml.

Gigabit Ethernet (the p2p fibre, the VTHD access links) charges each packet
38 bytes of framing on the wire (overhead = 38): the Ethernet header (14)
and FCS (4), the preamble and start delimiter (8) and the inter-frame gap
(12), IEEE 802.3: a 1500-byte packet takes 12.3 us at 1 Gb/s and TCP's
payload is at most 1448/1538 of the rate (941.5 Mb/s with timestamps). The
2.5 Gb/s WDM hops' framing is not given (none charged; they never limit).

Repetitions (2) differ in the seed: the flow starts uniformly in the first
10 ms and the sender's jiffy clock has its own phase.

Run from anywhere: python3 scenarios/highspeed-fiber/make_scenarios.py
"""

from __future__ import annotations

from pathlib import Path

OUT = (
    Path(__file__).resolve().parents[2]
    / "python"
    / "tcplab"
    / "studies"
    / "data"
    / "highspeed-fiber"
)

HOSTS = """
# Linux 2.2.16 on a Pentium III 933 MHz, 33 MHz/32-bit PCI, 512 MB, 3Com
# 3C985 Gigabit Ethernet (docs/reproduce.md: where each value comes from).
[defaults.host]
profile = "linux22"
sndbuf = "1MB"
rcvbuf = "1MB"
bus_rate = "1056Mbps"      # PCI: 33 MHz x 32 bit = 132 MB/s
packet_cost = "10us"       # swept: no source gives the CPU's cost per packet
tx_queue = 100             # tx_queue_len of an Ethernet device
rx_queue = 300             # netdev_max_backlog
mem_limit = "512MB"        # the hosts' RAM
"""

OPTIONS = """
# SACK and timestamps: both on, each alone, both off (on both hosts).
[sweep.options]
"defaults.host.sack" = [true, false, true, false]
"defaults.host.timestamps" = [true, true, false, false]
"""

FLOW = """
[[flow]]
name = "nttcp"
from = "s"
to = "r"
start = {{ uniform = ["0s", "10ms"] }}
{extra}"""


def _buffers(values: list[str]) -> str:
    quoted = ", ".join(f'"{v}"' for v in values)
    return (
        'buffer = { fields = ["defaults.host.sndbuf", "defaults.host.rcvbuf"], '
        f"values = [{quoted}] }}\n"
    )


def _costs(values: list[str]) -> str:
    return '"defaults.host.packet_cost" = [' + ", ".join(f'"{v}"' for v in values) + "]\n"


def p2p() -> str:
    return (
        'name = "highspeed-fiber point to point"\n'
        "seed = 2002\n"
        "repetitions = 2\n"
        'duration = "10s"\n'
        "\n[measure]\n"
        'start = "3s"\n'
        + HOSTS
        + """
[[host]]
name = "s"
[[host]]
name = "r"

# The fibre between the two NICs: Gigabit Ethernet, 1 Gb/s with 38 bytes of
# framing per packet (header, FCS, preamble, inter-frame gap); the paper's RTT
# of about 250 us, 125 us each way (everything the hosts add beyond their
# stage folded in).
[[link]]
between = ["s", "r"]
rate = "1Gbps"
overhead = 38
delay = "125us"
queue = { packets = 100 }
"""
        + FLOW.format(extra="")
        + "\n[sweep]\n"
        + _buffers(["64KB", "512KB", "1MB", "1GB"])
        + _costs(["0us", "10us", "20us"])
        + OPTIONS
    )


VTHD_PATH = """
# Gigabit Ethernet access: 38 bytes of framing per packet, as the p2p fibre.
[[host]]
name = "s"
access = { router = "sophia", rate = "1Gbps", overhead = 38, delay = "0.5ms", queue = { packets = 100 } }
[[host]]
name = "r"
access = { router = "paris", rate = "1Gbps", overhead = 38, delay = "0.5ms", queue = { packets = 500 } }

[[router]]
name = "sophia"
[[router]]
name = "b1"
[[router]]
name = "b2"
[[router]]
name = "paris"

# The VTHD backbone: 2.5 Gb/s WDM channels; 6.5 ms one way, so that with the
# access links the round trip is 15 ms.
[[link]]
between = ["sophia", "b1"]
rate = "2.5Gbps"
delay = "2.1ms"
queue = { packets = 500 }
[[link]]
between = ["b1", "b2"]
rate = "2.5Gbps"
delay = "2.2ms"
queue = { packets = 500 }
[[link]]
between = ["b2", "paris"]
rate = "2.5Gbps"
delay = "2.2ms"
queue = { packets = 500 }
"""

ROUTER_QUEUES = [
    "link[0].queue.packets",
    "link[1].queue.packets",
    "link[2].queue.packets",
    "host[r].access.down.queue.packets",
]


def _vthd_head(name: str, reps: int) -> str:
    return (
        f'name = "{name}"\n'
        "seed = 2002\n"
        f"repetitions = {reps}\n"
        'duration = "30s"\n'
        "\n[measure]\n"
        'start = "10s"\n'
    )


BUFFERS_VTHD = ["64KB", "128KB", "512KB", "1MB", "512MB", "1GB"]


def _vthd_sweep(name: str, flow_extra: str, costs: list[str]) -> str:
    """VTHD swept over the buffers, the costs given and the option sets."""
    return (
        _vthd_head(name, 2)
        + HOSTS
        + VTHD_PATH
        + FLOW.format(extra=flow_extra)
        + "\n[sweep]\n"
        + _buffers(BUFFERS_VTHD)
        + _costs(costs)
        + OPTIONS
    )


def vthd() -> str:
    return _vthd_sweep("highspeed-fiber VTHD", "", ["0us", "10us", "20us"])


def vthd_routers() -> str:
    fields = ", ".join(f'"{f}"' for f in ROUTER_QUEUES)
    return (
        _vthd_head("highspeed-fiber VTHD router buffers", 2)
        + HOSTS
        + VTHD_PATH
        + FLOW.format(extra="")
        + "\n[sweep]\n"
        + _buffers(BUFFERS_VTHD)
        + f"router_buffer = {{ fields = [{fields}], values = [50, 500, 5000] }}\n"
        + OPTIONS
    )


def vthd_trace() -> str:
    return (
        _vthd_head("highspeed-fiber VTHD traces", 1)
        + HOSTS.replace('sndbuf = "1MB"', 'sndbuf = "1GB"').replace(
            'rcvbuf = "1MB"', 'rcvbuf = "1GB"'
        )
        + VTHD_PATH
        + FLOW.format(extra="")
        + '\n[trace]\ncwnd = true\ninterval = "5ms"\n'
        + '\n[sweep]\nmode = "zip"\n'
        + OPTIONS.replace("[sweep.options]\n", "")
    )


def vthd_nttcp() -> str:
    return _vthd_sweep(
        "highspeed-fiber VTHD, NTTCP's default transfer",
        'size = "8MiB"                    # NTTCP 1.47: 2048 writes of 4096 bytes\n',
        ["10us"],
    )


def files() -> dict[str, str]:
    """Every study file by name."""
    return {
        "p2p.toml": p2p(),
        "vthd.toml": vthd(),
        "vthd-routers.toml": vthd_routers(),
        "vthd-trace.toml": vthd_trace(),
        "vthd-nttcp.toml": vthd_nttcp(),
    }


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for name, text in files().items():
        (OUT / name).write_text(text, encoding="utf-8")
        print(OUT / name)


if __name__ == "__main__":
    main()
