"""Write the barakat1999 study files (Barakat & Altman, INRIA RR-3620, 1999)
into the package: python/tcplab/studies/data/barakat1999/.

Section 3 (congestion avoidance through two nodes): sec3.toml, mu_1 swept
over 1.5 and 1.6 Mb/s. Section 5 (the equivalent node): sec5-chain-n<n>.toml
for n = 1..10 preceding nodes (the full chain), sec5-equivalent.toml (the
two-node reduction of each chain, zipped over n) and sec5-alone.toml (the main
bottleneck alone). Section 6 (figure 7): sec6.toml, mu' and B' swept. Section 7 (retransmission losses and the queue policy):
sec7-<policy>.toml for Drop Tail, Random Drop and Drop-from-Front, B swept from
10 to 20 packets.

Common to all, as the paper's ns simulations of 1999: one TCP Tahoe connection
on ns-2's one-way agents as they were then (the `ns2` profile with
`handshake = "none"` and windowInit_ 1, tcpTick_ 0.1 s, no minrto_, no
numdupacksFrac_; see docs/tcp.md), 512-byte packets on the wire (472 bytes of
payload + ns-2's 40-byte header; ns-2's packetSize_ 512 of 1999, before
useHeaders_, was the wire size too: see docs/reproduce.md), an ACK
per segment (TCPSink), and `window_` 2000, above W_max = B + mu T, so that the
first threshold never binds (the paper's first threshold is the receiver
window). The round-trip propagation delay T = 560 ms (a GEO satellite path)
sits on the forward hops; ACKs return on uncongested 100 Mb/s links.

Section 7 does not restate T; the section-3 value (560 ms) is assumed. Its
queue policy applies to both router queues (B' and B).

Every run lasts 600 s and is measured over all of it, in three phases: the
first 60 s (slow start and the first losses), 60-300 s and 300-600 s, so that
the goodput of runs of 60, 300 and 600 s can be read off one run (the paper
does not give its run length). Repetitions differ in the seed, which draws the
flow's start in the first second, places the ns-2 timer ticks (boot_time_) and
draws Random Drop.

Run from anywhere: python3 scenarios/barakat1999/make_scenarios.py
"""

from __future__ import annotations

from pathlib import Path

OUT = Path(__file__).resolve().parents[2] / "python" / "tcplab" / "studies" / "data" / "barakat1999"

HOSTS = """
# ns-2's one-way agents of 1999: no packet 0 (syn_ false), windowInit_ 1,
# tcpTick_ 0.1 s, no minrto_ (only the 2-tick floor), numdupacks_ 3 whatever
# the window; 512-byte packets; no SACK, no timestamps; one ACK per packet.
[defaults.host]
profile = "ns2"
handshake = "none"
initial_window = 1
tcp_tick = "100ms"
min_rto = "0s"
dupthresh_frac = 0
mss = 472
sack = false
window = 2000

# ns-2's Agent/TCP: Tahoe with bugfix_.
[[host]]
name = "src"
cc = "tahoe"
recovery = "tahoe-ns2"

[[host]]
name = "dst"
"""

MU = 1_500_000  # bit/s: the main bottleneck of sections 3, 5 and 7
ONE_WAY_MS = 280.0


def chain(access: str, nodes: list[tuple[str, int]], kind: str = "droptail") -> str:
    """src -(access)-> n1 -(mu_1, B_1)-> ... -> n_k -(mu, B)-> dst.

    `nodes` lists (rate, buffer) of every node in path order, the main bottleneck
    last; node i's queue sits on the link leaving router n_i, named
    "n<i>->n<i+1>" (the bottleneck's "n<k>->dst"). The one-way propagation
    delay is split evenly over the router links; ACKs return on uncongested
    100 Mb/s links with the same delays.

    A buffer of B packets is ns-2's queue-limit B: Drop Tail and
    Drop-from-Front (ns-2's Queue/DropTail) hold B packets counting the one
    being sent (`counts_sending`), Random Drop (ns-2's Queue/RED with
    drop_rand_) B waiting plus the one being sent."""
    q = {
        "droptail": "counts_sending = true, ",
        "dropfront": 'kind = "dropfront", counts_sending = true, ',
        "randomdrop": 'kind = "randomdrop", ',
    }[kind]
    delay = f"{ONE_WAY_MS / len(nodes):g}ms"
    out = "".join(f'\n[[router]]\nname = "n{i + 1}"\n' for i in range(len(nodes)))
    out += f"""
# The source's access link.
[[link]]
between = ["src", "n1"]
forward = {{ rate = "{access}", delay = "0ms", queue = {{ packets = 1000 }} }}
reverse = {{ rate = "100Mbps", delay = "0ms" }}
"""
    for i, (rate, buf) in enumerate(nodes):
        last = i == len(nodes) - 1
        title = (
            "The main bottleneck: rate mu, buffer B."
            if last
            else f"Node {i + 1}: rate mu_{i + 1}, buffer B_{i + 1}."
        )
        far = "dst" if last else f"n{i + 2}"
        note = (
            "\n# The buffer counts the packet being sent, as ns-2's queue-limit."
            if "counts_sending" in q
            else "\n# The buffer counts the waiting packets, as ns-2's Queue/RED."
        )
        out += f"""
# {title}{note}
[[link]]
between = ["n{i + 1}", "{far}"]
forward = {{ rate = "{rate}", delay = "{delay}", queue = {{ {q}packets = {buf} }} }}
reverse = {{ rate = "100Mbps", delay = "{delay}" }}
"""
    return (
        out
        + """
# Each repetition starts at its own time in the first second (and the seed
# also places ns-2's timer ticks): the paper gives neither.
[[flow]]
name = "tahoe"
from = "src"
to = "dst"
start = { uniform = ["0s", "1s"] }
"""
    )


def header(comment: str, name: str, traces: bool) -> str:
    """What the file is, and the run settings common to all."""
    trace = '\n[trace]\ncwnd = true\nqueue = true\ninterval = "50ms"\n' if traces else ""
    return f"""# GENERATED by scenarios/barakat1999/make_scenarios.py: {comment}

name = "{name}"
seed = 1999
duration = "600s"
repetitions = 5

[measure]
phases = ["60s", "300s"]
{trace}"""


def sec3() -> str:
    return (
        header(
            """barakat1999 section 3.
# One Tahoe connection through two nodes: mu_1 (B_1 = 100 packets), then
# mu = 1.5 Mb/s (T1, B = 50 packets); T = 560 ms. mu_1 = 1.5 Mb/s queues
# nothing at node 1; 1.6 Mb/s (between mu and 2 mu) queues slow-start bursts.""",
            "barakat1999 section 3",
            True,
        )
        + HOSTS
        + chain("100Mbps", [("1.5Mbps", 100), ("1.5Mbps", 50)])
        + """
[sweep]
"link[1].forward.rate" = ["1.5Mbps", "1.6Mbps"]
"""
    )


def sec6() -> str:
    rates = ", ".join(f'"{r / 10:g}Mbps"' for r in range(16, 31))
    return (
        header(
            """barakat1999 section 6 (figure 7).
# Throughput against mu' (the node before the bottleneck, buffer B') for
# B' = 80, 45 and 10 packets; bottleneck mu = 1.5 Mb/s, B = 20, T = 560 ms.
# B = 20 makes the slow start double at mu' = 2 mu (the bottleneck alone:
# S = 2B = 40, W_B = 52 < W_th = (mu T + B)/2 = 112), as the paper requires;
# the paper's own B and B' other than 80 and 45 are not recorded.""",
            "barakat1999 section 6",
            False,
        )
        + HOSTS
        + chain("100Mbps", [("2Mbps", 45), ("1.5Mbps", 20)])
        + f"""
[sweep]
"link[1].forward.rate" = [{rates}]
"link[1].forward.queue.packets" = [80, 45, 10]
"""
    )


def sec7(kind: str) -> str:
    return (
        header(
            f"""barakat1999 section 7, {kind}.
# mu = 1.5 Mb/s (buffer B), mu' = 2.2 Mb/s (buffer B' = 15), source access
# link 2.7 Mb/s; queue policy {kind} at both nodes; T = 560 ms (assumed);
# B from 10 to 20 packets.""",
            f"barakat1999 section 7: {kind}",
            True,
        )
        + HOSTS
        + chain("2.7Mbps", [("2.2Mbps", 15), ("1.5Mbps", 18)], kind)
        + """
[sweep]
"link[2].forward.queue.packets" = [10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20]
"""
    )


def sec5_nodes(n: int) -> list[tuple[int, int]]:
    """The n preceding nodes of section 5, then the main bottleneck:
    mu_i = 2 mu - i mu / (n + 1) (rounded to whole bit/s), B_i = 17, B = 20."""
    return [(round(2 * MU - i * MU / (n + 1)), 17) for i in range(1, n + 1)] + [(MU, 20)]


def two_node_equivalent(nodes: list[tuple[int, int]]) -> tuple[int, int]:
    """Section 5's reduction of the preceding nodes to one node (mu', B'):
    mu' = mu_n and B' such that S' = 2 mu / (2 mu - mu') B' = min_i S_i, where
    S_i = mu_{i-1} / (mu_{i-1} - mu_i) B_i and mu_0 = 2 mu. B' is rounded to the
    nearest whole packet."""
    prev = 2 * MU
    s_min = float("inf")
    for rate, buf in nodes[:-1]:
        s_min = min(s_min, prev / (prev - rate) * buf)
        prev = rate
    mu_p = nodes[-2][0]
    return mu_p, round(s_min * (2 * MU - mu_p) / (2 * MU))


def sec5_chain(n: int) -> str:
    return (
        header(
            f"""barakat1999 section 5, the full chain, n = {n}.
# {n} preceding node(s), mu_i = 2 mu - i mu/(n+1), B_i = 17; main bottleneck
# mu = 1.5 Mb/s, B = 20 packets; propagation delays sum to T = 560 ms.""",
            f"barakat1999 section 5: chain, n = {n}",
            False,
        )
        + HOSTS
        + chain("100Mbps", [(f"{r}bps", b) for r, b in sec5_nodes(n)])
    )


def sec5_equivalent() -> str:
    rows = []
    for n in range(1, 11):
        mu_p, b_p = two_node_equivalent(sec5_nodes(n))
        half = f"{ONE_WAY_MS / 2:g}ms"
        rows.append(
            f'    {{ label = "n = {n}", rate = "{mu_p}bps", delay = "{half}", '
            f"queue = {{ counts_sending = true, packets = {b_p} }} }},"
        )
    return (
        header(
            """barakat1999 section 5, the two-node equivalents.
# For each chain of n = 1..10 preceding nodes, the node (mu' = mu_n, B') that
# the paper reduces it to, then the main bottleneck (1.5 Mb/s, B = 20).""",
            "barakat1999 section 5: equivalent",
            False,
        )
        + HOSTS
        + chain("100Mbps", [("1.75Mbps", 26), ("1.5Mbps", 20)])
        + '\n[sweep]\n"link[1].forward" = [\n'
        + "\n".join(rows)
        + "\n]\n"
    )


def sec5_alone() -> str:
    return (
        header(
            """barakat1999 section 5, the main bottleneck alone.
# mu = 1.5 Mb/s, B = 20 packets, fed directly by the source; T = 560 ms.""",
            "barakat1999 section 5: alone",
            False,
        )
        + HOSTS
        + chain("100Mbps", [("1.5Mbps", 20)])
    )


def files() -> dict[str, str]:
    """Every study file by name."""
    out = {"sec3.toml": sec3(), "sec5-alone.toml": sec5_alone(), "sec6.toml": sec6()}
    for n in range(1, 11):
        out[f"sec5-chain-n{n}.toml"] = sec5_chain(n)
    out["sec5-equivalent.toml"] = sec5_equivalent()
    for kind in ("droptail", "randomdrop", "dropfront"):
        out[f"sec7-{kind}.toml"] = sec7(kind)
    return out


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for name, text in files().items():
        (OUT / name).write_text(text)


if __name__ == "__main__":
    main()
