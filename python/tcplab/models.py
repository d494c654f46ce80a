"""Closed-form TCP models to set beside simulations: Barakat & Altman (1999)
for TCP Tahoe's slow start through a chain of bottleneck nodes, and the
throughput-versus-loss formulas of Mathis et al. (1997) and Padhye et al.
(1998).

Units, unless a function says otherwise: rates in packets per second, times in
seconds, buffers and windows in packets. ``packets_per_second`` converts a
link rate in bit/s. Every function is pure; the Barakat & Altman ones take
floats, the Mathis and Padhye ones also take NumPy arrays (element-wise, with
broadcasting) so that they can be drawn over goodput-versus-loss curves.

References (the docstrings cite their sections and equations):

- [BA99] C. Barakat and E. Altman, "Analysis of TCP with several bottleneck
  nodes", INRIA research report RR-3620, February 1999 (HAL inria-00073057).
- [MSMO97] M. Mathis, J. Semke, J. Mahdavi and T. Ott, "The macroscopic
  behavior of the TCP congestion avoidance algorithm", ACM Computer
  Communication Review 27(3), July 1997.
- [PFTK98] J. Padhye, V. Firoiu, D. Towsley and J. Kurose, "Modeling TCP
  throughput: a simple model and its empirical validation", ACM SIGCOMM 1998.

See docs/models.md for the formulas, their assumptions and an example.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Union, overload

import numpy as np
import numpy.typing as npt

__all__ = [
    "BarakatAltman",
    "BufferRules",
    "barakat_altman",
    "barakat_throughput",
    "buffer_rules",
    "burst_sizes",
    "double_slow_start",
    "equivalent_node",
    "loss_cycle",
    "mathis_throughput",
    "max_window",
    "packets_per_second",
    "pftk_approx_throughput",
    "pftk_throughput",
    "retransmission_losses",
    "retransmission_timing",
    "slow_start_loss",
    "steady_threshold",
    "window_at_loss",
]

Node = tuple[float, float]
"""A node before the main bottleneck: (rate mu_i in packets/s, buffer B_i in packets)."""

FloatArray = npt.NDArray[np.float64]
ArrayOrFloat = Union[float, FloatArray]


def packets_per_second(bits_per_second: float, packet_bytes: float) -> float:
    """A link rate in bit/s as packets of ``packet_bytes`` bytes per second:
    1.5 Mb/s with the paper's 512-byte packets is 366.2 packets/s."""
    return bits_per_second / (8.0 * packet_bytes)


def _positive(name: str, value: float) -> None:
    if not value > 0.0:  # also catches NaN
        raise ValueError(f"{name} must be positive; got {value!r}")


# ---------------------------------------------------- Barakat & Altman 1999


def _feed_rates(mu: float, chain: Sequence[Node]) -> list[float | None]:
    """Check the chain against [BA99]'s assumption mu < mu_n < ... < mu_1 < 2 mu
    and give, for each node, the rate mu_{i-1} at which slow-start bursts reach
    it: 2 mu for the first node that queues, then the rate of the queueing node
    before it. ``None`` for a node at or above 2 mu: bursts arrive no faster
    than it serves them, it never queues, and the paper drops such nodes from
    the chain."""
    _positive("mu (the bottleneck's rate)", mu)
    feed = 2.0 * mu
    out: list[float | None] = []
    for i, (rate, buf) in enumerate(chain):
        where = f"chain[{i}] (node {i + 1})"
        _positive(f"the rate of {where}", rate)
        _positive(f"the buffer of {where}", buf)
        if rate <= mu:
            raise ValueError(
                f"{where} has rate {rate:g}, not faster than the bottleneck (mu = {mu:g}):"
                " every node before the bottleneck must be faster than it (mu < mu_i);"
                " give the slowest node as the bottleneck"
            )
        if rate >= 2.0 * mu:
            out.append(None)
            continue
        if rate >= feed:
            raise ValueError(
                f"{where} has rate {rate:g}, not slower than the node before it ({feed:g}):"
                " the model needs mu < mu_n < ... < mu_1 < 2 mu, in path order (node 1"
                " first); nodes at or above 2 mu never queue and may be left in"
            )
        out.append(feed)
        feed = rate
    return out


def burst_sizes(mu: float, b: float, chain: Sequence[Node] = ()) -> list[float]:
    """The slow-start burst sizes that overflow each node ([BA99] section 4):
    ``[S_1, ..., S_n, S]``, one per node of ``chain`` (in path order, node 1
    first), then the main bottleneck (rate ``mu``, buffer ``b``) last.

    A Tahoe source in slow start sends two packets per ACK, bursts at
    mu_0 = 2 mu; node i receives them at mu_{i-1} and serves them at mu_i, so
    its queue grows by (mu_{i-1} - mu_i)/mu_{i-1} per packet and overflows
    after S_i = mu_{i-1}/(mu_{i-1} - mu_i) B_i packets; the bottleneck after
    S = mu_n/(mu_n - mu) B (S = 2 B with no node before it).

    Nodes at or above 2 mu never queue (the paper drops them from the chain):
    their S_i is ``math.inf`` and the next node is fed as if they were absent.
    A source whose access link is slower than 2 mu must list that link (with
    its buffer) as node 1. Raises ``ValueError`` for a node at or below mu,
    for rates that do not decrease along the path below 2 mu, and for
    non-positive rates or buffers.
    """
    feeds = _feed_rates(mu, chain)
    _positive("b (the bottleneck's buffer)", b)
    sizes = [
        math.inf if feed is None else feed / (feed - rate) * buf
        for (rate, buf), feed in zip(chain, feeds)
    ]
    mu_n = _last_rate(mu, chain, feeds)
    sizes.append(mu_n / (mu_n - mu) * b)
    return sizes


def _last_rate(mu: float, chain: Sequence[Node], feeds: Sequence[float | None]) -> float:
    """mu_n, the rate at which bursts reach the bottleneck: that of the last
    node that queues, 2 mu if none does."""
    queueing = [rate for (rate, _), f in zip(chain, feeds) if f is not None]
    return queueing[-1] if queueing else 2.0 * mu


def slow_start_loss(sizes: Sequence[float]) -> tuple[float, int]:
    """(S_B, index) with S_B = min(S, S_i), the burst size at which slow start
    first loses a packet, and the index in ``sizes`` (as from ``burst_sizes``:
    the bottleneck is the last) of the node that drops it ([BA99] section 4).
    On a tie the node nearer the source wins: the packet it drops never
    reaches the others."""
    best = min(range(len(sizes)), key=lambda i: (sizes[i], i))
    return sizes[best], best


def _ceil_log2(x: float) -> int:
    """The smallest n with 2^n >= x, taking x within 1e-9 (relative) of a
    power of two as equal to it, so that rounding in S_B does not shift n."""
    n = max(0, math.ceil(math.log2(x)))
    if n > 0 and x <= 2.0 ** (n - 1) * (1.0 + 1e-9):
        n -= 1
    return n


def loss_cycle(s_b: float) -> int:
    """n_B, the slow-start mini-cycle (round trip) of the first loss:
    2^(n_B - 1) < S_B <= 2^n_B ([BA99] section 4). In mini-cycle n the window
    grows from 2^(n-1) to 2^n and the source sends a burst of 2^n packets."""
    _positive("S_B", s_b)
    return _ceil_log2(s_b)


def window_at_loss(s_b: float) -> float:
    """W_B = 2^(n_B - 1) + S_B/2, the window when slow start first loses a
    packet ([BA99] section 4): the window at the start of mini-cycle n_B plus
    one per ACK of the S_B/2 ACKs that clocked out the burst so far."""
    return 2.0 ** (loss_cycle(s_b) - 1) + s_b / 2.0


def max_window(mu: float, t: float, b: float) -> float:
    """W_max = B + mu T, the window at which the bottleneck's buffer overflows
    in congestion avoidance ([BA99] section 4): the packets in flight on the
    path (mu T, T the minimum RTT) plus a full buffer."""
    return b + mu * t


def steady_threshold(mu: float, t: float, b: float) -> float:
    """W_th = (mu T + B)/2, the slow-start threshold in steady state: half the
    window at the congestion-avoidance loss ([BA99] section 6)."""
    return max_window(mu, t, b) / 2.0


def double_slow_start(w_th: float, w_b: float) -> bool:
    """True when slow start loses a packet before it reaches its threshold,
    W_th > W_B, so that Tahoe starts a second slow start ([BA99] section 4)."""
    return w_th > w_b


def equivalent_node(mu: float, chain: Sequence[Node]) -> tuple[float, float]:
    """(mu', B'), the one node that stands for the whole chain before the
    bottleneck ([BA99] section 5): mu' = mu_n, the rate of the last node that
    queues, and B' such that S' = 2 mu/(2 mu - mu') B' = min_i S_i, that is
    B' = (2 mu - mu')/(2 mu) min_i S_i. The reduction keeps the burst at which
    the chain first overflows and the rate at which it feeds the bottleneck.
    Raises ``ValueError`` when no node of the chain queues (none below 2 mu)."""
    feeds = _feed_rates(mu, chain)
    queueing = [(rate, buf, f) for (rate, buf), f in zip(chain, feeds) if f is not None]
    if not queueing:
        raise ValueError(
            "the chain has no node below 2 mu: there is nothing to reduce, the"
            " bottleneck is fed by the source directly"
        )
    s_min = min(f / (f - rate) * buf for rate, buf, f in queueing)
    mu_eq = queueing[-1][0]
    return mu_eq, (2.0 * mu - mu_eq) / (2.0 * mu) * s_min


def barakat_throughput(mu: float, t: float, b: float, w_b: float) -> float:
    """The long-run throughput of Tahoe, in packets/s ([BA99] section 6), with
    W_max = mu T + B and the steady-state threshold W_th = W_max/2:

    - no double slow start (W_B >= W_th: slow start reaches W_th without a
      loss): the congestion-avoidance sawtooth from W_max/2 to W_max,
      3 (mu T + B)/(4 T);
    - double slow start (W_B < W_th): min((W_B + mu T + B)/(2 T),
      5 (mu T + B)/(8 T)). Read as: the loss at W_B is detected when the
      window has about doubled (but slow start stops at W_th), so the second
      slow start stops at min(W_B, W_th/2) and congestion avoidance climbs
      from there to W_max.

    Both neglect the time spent in slow start; the boundary W_B = W_th goes
    with the first case, as ``double_slow_start`` (the summary's two formulas
    disagree there).
    """
    w_max = max_window(mu, t, b)
    if not double_slow_start(w_max / 2.0, w_b):
        return 3.0 * w_max / (4.0 * t)
    return min((w_b + w_max) / (2.0 * t), 5.0 * w_max / (8.0 * t))


@dataclass(frozen=True)
class BufferRules:
    """[BA99]'s buffer-sizing rules (section 6): no loss in slow start, for any
    mu' in [mu, 2 mu], when both hold."""

    bottleneck: bool
    """B > mu T/3: the bottleneck's buffer absorbs the bursts (S >= 2 B > W_th)."""
    preceding: bool
    """B' > (mu T + B)/4: the node before it does too (S' >= 2 B' > W_th)."""

    @property
    def ok(self) -> bool:
        """Both rules hold."""
        return self.bottleneck and self.preceding


def buffer_rules(mu: float, t: float, b: float, b_eq: float) -> BufferRules:
    """Check [BA99]'s buffer rules (section 6) for a bottleneck (mu, ``b``) fed
    by one node (or a chain's equivalent node) with buffer ``b_eq`` = B':
    B > mu T/3 and B' > (mu T + B)/4, both strict.

    They follow from W_B > W_th = (mu T + B)/2 with W_B taken as S_B
    (2^(n_B - 1) ~ S_B/2; the true W_B lies in [S_B, 1.5 S_B), so the rules are
    sufficient) and the worst mu': S = mu'/(mu' - mu) B is smallest, 2 B, at
    mu' = 2 mu, and S' = 2 mu/(2 mu - mu') B' smallest, 2 B', at mu' = mu.
    """
    return BufferRules(bottleneck=b > mu * t / 3.0, preceding=b_eq > (mu * t + b) / 4.0)


def retransmission_timing(mu: float, s_b: float, w_b: float, w_th: float) -> tuple[float, float]:
    """(D, Q) of [BA99] section 7, for the retransmission of the first
    slow-start loss: D = (S_B + 3)/mu seconds and
    Q = 2 S_B + min(0, W_th - 2 W_B) packets. D is S_B + 3 service times at
    the bottleneck. The condition S_i < D mu_{i-1} < Q of
    ``retransmission_losses`` reads: the retransmission reaches node i after
    D mu_{i-1} packets of the burst, once its buffer has filled (S_i) and
    before the burst (Q packets) has ended."""
    return (s_b + 3.0) / mu, 2.0 * s_b + min(0.0, w_th - 2.0 * w_b)


def retransmission_losses(mu: float, b: float, chain: Sequence[Node], w_th: float) -> list[bool]:
    """For each node (``chain`` in path order, then the bottleneck last):
    can the retransmission of the first slow-start loss be lost there
    ([BA99] section 7)? True when S_i < D mu_{i-1} < Q (``retransmission_timing``;
    for the bottleneck S and mu_n), which forces a timeout.

    The paper excepts a node fed directly by a source whose access link is
    faster than 2 mu; the condition already excludes it, since for
    mu_{i-1} = 2 mu, D 2 mu = 2 S_B + 6 > Q (Tahoe's source sends nothing new
    on duplicate ACKs, so the burst has ended there). Nodes at or above 2 mu
    never queue (False). Without a double slow start (W_th <= W_B),
    Q <= 2 S_B - W_B <= S_B and no node qualifies.
    """
    sizes = burst_sizes(mu, b, chain)
    s_b, _ = slow_start_loss(sizes)
    d, q = retransmission_timing(mu, s_b, window_at_loss(s_b), w_th)
    feeds = _feed_rates(mu, chain)
    feeds.append(_last_rate(mu, chain, feeds))
    return [f is not None and s < d * f < q for s, f in zip(sizes, feeds)]


@dataclass(frozen=True)
class BarakatAltman:
    """Everything [BA99]'s model says of one chain, for a report table
    (``row()``). Node indices count from 0 in ``chain`` order; the
    bottleneck's index is ``len(chain)``. Rates in packets/s, times in
    seconds, buffers, windows and bursts in packets."""

    mu: float
    t: float
    b: float
    chain: tuple[Node, ...]
    s: tuple[float, ...]
    """S_i for each node of the chain (``math.inf`` for a node at or above 2 mu)."""
    s_bottleneck: float
    """S, the burst that overflows the bottleneck."""
    s_b: float
    """S_B = min(S, S_i)."""
    loss_node: int
    """The node of the first slow-start loss (``len(chain)``: the bottleneck)."""
    n_b: int
    w_b: float
    w_max: float
    w_th: float
    double_slow_start: bool
    mu_eq: float | None
    """mu' of the two-node reduction (None when no node of the chain queues)."""
    b_eq: float | None
    """B' of the two-node reduction (None when no node of the chain queues)."""
    throughput: float
    """Section 6's prediction, packets/s (for W_th = (mu T + B)/2)."""
    retx_delay: float
    """D = (S_B + 3)/mu, seconds."""
    retx_burst: float
    """Q = 2 S_B + min(0, W_th - 2 W_B), packets."""
    retx_loss: tuple[bool, ...]
    """Per node, the bottleneck last: can the retransmission be lost there."""

    @property
    def loss_at_bottleneck(self) -> bool:
        """The first slow-start loss is at the main bottleneck."""
        return self.loss_node == len(self.chain)

    def node_name(self, index: int) -> str:
        """The paper's name of a node: ``"node 1"``, ... or ``"bottleneck"``."""
        return "bottleneck" if index == len(self.chain) else f"node {index + 1}"

    def row(self) -> dict[str, object]:
        """One flat row for a table: inputs, S_1..S_n, S, S_B and where, n_B,
        W_B, W_max, W_th, double slow start, mu', B', throughput, D, Q and
        where the retransmission can be lost (``"none"`` if nowhere)."""
        out: dict[str, object] = {"mu": self.mu, "T": self.t, "B": self.b}
        out.update({f"S_{i + 1}": s for i, s in enumerate(self.s)})
        lost = [self.node_name(i) for i, x in enumerate(self.retx_loss) if x]
        out.update(
            {
                "S": self.s_bottleneck,
                "S_B": self.s_b,
                "loss_at": self.node_name(self.loss_node),
                "n_B": self.n_b,
                "W_B": self.w_b,
                "W_max": self.w_max,
                "W_th": self.w_th,
                "double_slow_start": self.double_slow_start,
                "mu_eq": self.mu_eq,
                "B_eq": self.b_eq,
                "throughput": self.throughput,
                "D": self.retx_delay,
                "Q": self.retx_burst,
                "retx_lost_at": ", ".join(lost) if lost else "none",
            }
        )
        return out


def barakat_altman(
    mu: float,
    t: float,
    b: float,
    chain: Sequence[Node] = (),
    *,
    w_th: float | None = None,
) -> BarakatAltman:
    """[BA99]'s model of a Tahoe connection through ``chain`` (nodes (mu_i, B_i)
    before the bottleneck, in path order) and the bottleneck (``mu``, ``b``),
    minimum RTT ``t``: burst sizes and the first slow-start loss (section 4),
    the two-node reduction (section 5), the throughput (section 6) and where
    the retransmission can be lost (section 7). ``w_th`` is the threshold of
    the slow start considered, by default the steady state's (mu T + B)/2; the
    throughput always uses the steady state's. Validation as ``burst_sizes``;
    ``t`` must be positive."""
    _positive("t (the minimum RTT)", t)
    sizes = burst_sizes(mu, b, chain)
    s_b, where = slow_start_loss(sizes)
    w_b = window_at_loss(s_b)
    threshold = steady_threshold(mu, t, b) if w_th is None else w_th
    d, q = retransmission_timing(mu, s_b, w_b, threshold)
    mu_eq: float | None = None
    b_eq: float | None = None
    if any(math.isfinite(s) for s in sizes[:-1]):  # some node of the chain queues
        mu_eq, b_eq = equivalent_node(mu, chain)
    return BarakatAltman(
        mu=float(mu),
        t=float(t),
        b=float(b),
        chain=tuple((float(r), float(x)) for r, x in chain),
        s=tuple(sizes[:-1]),
        s_bottleneck=sizes[-1],
        s_b=s_b,
        loss_node=where,
        n_b=loss_cycle(s_b),
        w_b=w_b,
        w_max=max_window(mu, t, b),
        w_th=threshold,
        double_slow_start=double_slow_start(threshold, w_b),
        mu_eq=mu_eq,
        b_eq=b_eq,
        throughput=barakat_throughput(mu, t, b, w_b),
        retx_delay=d,
        retx_burst=q,
        retx_loss=tuple(retransmission_losses(mu, b, chain, threshold)),
    )


# ------------------------------------------ Mathis 1997 and Padhye 1998


def _array(name: str, value: ArrayOrFloat, low: float, high: float) -> FloatArray:
    """``value`` as a float array, checked to lie in the open interval (low, high)."""
    a = np.asarray(value, dtype=np.float64)
    bad = ~((a > low) & (a < high))  # NaN is bad too
    if bad.any():
        example = a[bad].flat[0]
        interval = f"in ({low:g}, {high:g})" if high < math.inf else f"> {low:g}"
        raise ValueError(f"{name} must be {interval}; got {float(example)!r}")
    return a


def _result(a: FloatArray) -> ArrayOrFloat:
    return float(a) if a.ndim == 0 else a


@overload
def mathis_throughput(p: float, rtt: float, mss: float = 1.0, b: float = 1.0) -> float: ...
@overload
def mathis_throughput(
    p: FloatArray, rtt: ArrayOrFloat, mss: float = 1.0, b: float = 1.0
) -> FloatArray: ...
@overload
def mathis_throughput(
    p: float, rtt: FloatArray, mss: float = 1.0, b: float = 1.0
) -> FloatArray: ...
def mathis_throughput(
    p: ArrayOrFloat, rtt: ArrayOrFloat, mss: float = 1.0, b: float = 1.0
) -> ArrayOrFloat:
    """The macroscopic model of [MSMO97]: throughput = (MSS/RTT) C/sqrt(p) with
    C = sqrt(3/(2 b)), for loss probability ``p`` in (0, 1) and round-trip time
    ``rtt`` (s); ``b`` packets acknowledged per ACK (1: C = sqrt(3/2) ~ 1.22;
    2, delayed ACKs: C = sqrt(3/4) ~ 0.87). In packets/s for ``mss`` = 1 (the
    default), in bytes/s with ``mss`` in bytes.

    [MSMO97] section 2, the periodic-loss sawtooth: the window grows by 1/b
    per round trip from W/2 to W, b W/2 round trips carrying 3 b W^2/8
    packets, one of them lost, so W = sqrt(8/(3 b p)) and the mean window is
    3 W/4. Congestion avoidance only: no timeouts, no receiver-window limit,
    light loss. Arrays broadcast; a float comes back for float arguments.
    """
    pa = _array("p (loss probability)", p, 0.0, 1.0)
    ra = _array("rtt", rtt, 0.0, math.inf)
    _positive("mss", mss)
    _positive("b (packets per ACK)", b)
    c = math.sqrt(3.0 / (2.0 * b))
    return _result(np.asarray(mss / ra * c / np.sqrt(pa), dtype=np.float64))


def _pftk_args(
    p: ArrayOrFloat, rtt: ArrayOrFloat, t0: ArrayOrFloat, *, b: float, w_max: float, mss: float
) -> tuple[FloatArray, FloatArray, FloatArray]:
    pa = _array("p (loss probability)", p, 0.0, 1.0)
    ra = _array("rtt", rtt, 0.0, math.inf)
    ta = np.asarray(t0, dtype=np.float64)
    if not (ta >= 0.0).all():
        raise ValueError(f"t0 must be >= 0; got {float(ta[~(ta >= 0.0)].flat[0])!r}")
    _positive("b (packets per ACK)", b)
    _positive("w_max", w_max)
    _positive("mss", mss)
    return pa, ra, ta


@overload
def pftk_throughput(
    p: float, rtt: float, t0: float, *, b: float = ..., w_max: float = ..., mss: float = ...
) -> float: ...
@overload
def pftk_throughput(
    p: FloatArray,
    rtt: ArrayOrFloat,
    t0: ArrayOrFloat,
    *,
    b: float = ...,
    w_max: float = ...,
    mss: float = ...,
) -> FloatArray: ...
@overload
def pftk_throughput(
    p: float,
    rtt: FloatArray,
    t0: ArrayOrFloat,
    *,
    b: float = ...,
    w_max: float = ...,
    mss: float = ...,
) -> FloatArray: ...
@overload
def pftk_throughput(
    p: float, rtt: float, t0: FloatArray, *, b: float = ..., w_max: float = ..., mss: float = ...
) -> FloatArray: ...
def pftk_throughput(
    p: ArrayOrFloat,
    rtt: ArrayOrFloat,
    t0: ArrayOrFloat,
    *,
    b: float = 1.0,
    w_max: float = math.inf,
    mss: float = 1.0,
) -> ArrayOrFloat:
    """The full model of [PFTK98] (eq. (31)): the send rate of a bulk TCP Reno
    flow with triple-duplicate losses, timeouts (first timeout ``t0`` s,
    doubling up to 64 t0) and a receiver window ``w_max`` (packets; infinite by
    default). With E[W] = (2 + b)/(3 b) + sqrt(8 (1 - p)/(3 b p) + ((2 + b)/(3 b))^2)
    (eq. (13)), Q(w) = min(1, (1 - (1-p)^3)(1 + (1-p)^3 (1 - (1-p)^(w-3)))
    / (1 - (1-p)^w)), 1 for w <= 3 (the chance that a loss in a window of w is
    a timeout), and f(p) = 1 + p + 2p^2 + 4p^3 + 8p^4 + 16p^5 + 32p^6:

    - E[W] < W_max: [(1-p)/p + E[W] + Q(E[W])/(1-p)]
      / [RTT (b E[W]/2 + 1) + Q(E[W]) f(p) T0/(1-p)];
    - otherwise: [(1-p)/p + W_max + Q(W_max)/(1-p)]
      / [RTT (b W_max/8 + (1-p)/(p W_max) + 2) + Q(W_max) f(p) T0/(1-p)].

    Packets/s for ``mss`` = 1, bytes/s with ``mss`` in bytes. ``p`` in (0, 1);
    ``t0`` >= 0 (0: timeouts cost nothing). For small p and no timeouts it
    tends to ``mathis_throughput``. Arrays broadcast.
    """
    pa, ra, ta = _pftk_args(p, rtt, t0, b=b, w_max=w_max, mss=mss)
    one = 1.0 - pa
    k = (2.0 + b) / (3.0 * b)
    ew = k + np.sqrt(8.0 * one / (3.0 * b * pa) + k * k)
    w = np.minimum(ew, w_max)
    log1 = np.log1p(-pa)  # (1-p)^x = exp(x log(1-p)), accurate for small p
    q = (
        -np.expm1(3.0 * log1)
        * (1.0 + np.exp(3.0 * log1) * -np.expm1((w - 3.0) * log1))
        / -np.expm1(w * log1)
    )
    q = np.where(w <= 3.0, 1.0, np.minimum(1.0, q))
    f = 1.0 + pa * (1.0 + pa * (2.0 + pa * (4.0 + pa * (8.0 + pa * (16.0 + pa * 32.0)))))
    rounds = np.where(ew < w_max, b * ew / 2.0 + 1.0, b * w / 8.0 + one / (pa * w) + 2.0)
    rate = (one / pa + w + q / one) / (ra * rounds + q * f * ta / one)
    return _result(np.asarray(mss * rate, dtype=np.float64))


@overload
def pftk_approx_throughput(
    p: float, rtt: float, t0: float, *, b: float = ..., w_max: float = ..., mss: float = ...
) -> float: ...
@overload
def pftk_approx_throughput(
    p: FloatArray,
    rtt: ArrayOrFloat,
    t0: ArrayOrFloat,
    *,
    b: float = ...,
    w_max: float = ...,
    mss: float = ...,
) -> FloatArray: ...
@overload
def pftk_approx_throughput(
    p: float,
    rtt: FloatArray,
    t0: ArrayOrFloat,
    *,
    b: float = ...,
    w_max: float = ...,
    mss: float = ...,
) -> FloatArray: ...
@overload
def pftk_approx_throughput(
    p: float, rtt: float, t0: FloatArray, *, b: float = ..., w_max: float = ..., mss: float = ...
) -> FloatArray: ...
def pftk_approx_throughput(
    p: ArrayOrFloat,
    rtt: ArrayOrFloat,
    t0: ArrayOrFloat,
    *,
    b: float = 1.0,
    w_max: float = math.inf,
    mss: float = 1.0,
) -> ArrayOrFloat:
    """The approximate model of [PFTK98] (eq. (32), the formula TFRC uses,
    RFC 5348 section 3.1):

    B(p) = min(W_max/RTT,
               1/(RTT sqrt(2 b p/3) + T0 min(1, 3 sqrt(3 b p/8)) p (1 + 32 p^2))).

    It takes E[W] ~ sqrt(8/(3 b p)), Q ~ min(1, 3/E[W]) and f(p) ~ 1 + 32 p^2
    in the full model (``pftk_throughput``). Units and arguments as there.
    With ``t0`` = 0 and no window limit it is ``mathis_throughput`` exactly.
    """
    pa, ra, ta = _pftk_args(p, rtt, t0, b=b, w_max=w_max, mss=mss)
    timeout = ta * np.minimum(1.0, 3.0 * np.sqrt(3.0 * b * pa / 8.0)) * pa * (1.0 + 32.0 * pa**2)
    rate = np.minimum(w_max / ra, 1.0 / (ra * np.sqrt(2.0 * b * pa / 3.0) + timeout))
    return _result(np.asarray(mss * rate, dtype=np.float64))
