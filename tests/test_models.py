"""Closed-form models (tcplab.models) against values derived by hand: the
worked cases of Barakat & Altman (INRIA RR-3620, 1999), the equations of
Mathis et al. (1997) and Padhye et al. (1998) evaluated step by step in the
comments, their limits, and the example of docs/models.md."""

from __future__ import annotations

import doctest
import math
import re
from pathlib import Path

import numpy as np
import pytest

from tcplab import models
from tcplab.models import (
    BufferRules,
    barakat_altman,
    barakat_throughput,
    buffer_rules,
    burst_sizes,
    equivalent_node,
    loss_cycle,
    mathis_throughput,
    packets_per_second,
    pftk_approx_throughput,
    pftk_throughput,
    retransmission_losses,
    slow_start_loss,
    window_at_loss,
)

REPO = Path(__file__).resolve().parents[1]

# The paper's ns setup: 512-byte packets, T = 560 ms, mu = 1.5 Mb/s (T1).
# 1.5e6 / (8 * 512) = 1.5e6 / 4096 = 366.2109375 packets/s (exact in binary).
MU = 366.2109375
T = 0.56
# mu T = 366.2109375 * 0.56 = 205.078125 packets.
MU_T = 205.078125
MB_2_2 = 537.109375  # 2.2e6 / 4096
MB_2_7 = 659.1796875  # 2.7e6 / 4096


def test_packets_per_second() -> None:
    assert packets_per_second(1.5e6, 512) == MU
    assert packets_per_second(2.2e6, 512) == MB_2_2
    assert packets_per_second(12e6, 1500) == 1000.0


# ------------------------------------------- Barakat & Altman, section 5


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 10])
def test_section5_uniform_chain(n: int) -> None:
    # mu_i = 2 mu - i mu/(n+1), B_i = 17, B = 20. mu_{i-1} - mu_i = mu/(n+1) and
    # mu_{i-1} = mu (2(n+1) - (i-1))/(n+1) (also for i = 1: mu_0 = 2 mu), so
    # S_i = mu_{i-1}/(mu_{i-1} - mu_i) B_i = (2(n+1) - (i-1)) B_i.
    # mu_n = mu (n+2)/(n+1) and mu_n - mu = mu/(n+1): S = (n+2) B.
    mu = 100.0
    chain = [(2 * mu - i * mu / (n + 1), 17.0) for i in range(1, n + 1)]
    sizes = burst_sizes(mu, 20.0, chain)
    expected = [17.0 * (2 * (n + 1) - (i - 1)) for i in range(1, n + 1)] + [20.0 * (n + 2)]
    assert sizes == pytest.approx(expected, rel=1e-12)
    # The chain's smallest S_i is the last, S_n = 17 (n+3); S = 20 (n+2) is
    # smaller when 20n + 40 < 17n + 51, i.e. n < 11/3: the bottleneck loses
    # first for n <= 3, node n for n >= 4 (n = 3: 100 < 102; n = 4: 119 < 120).
    s_b, where = slow_start_loss(sizes)
    if n <= 3:
        assert (s_b, where) == pytest.approx((20.0 * (n + 2), n))
    else:
        assert (s_b, where) == pytest.approx((17.0 * (n + 3), n - 1))
    # Two-node reduction: mu' = mu_n = mu (n+2)/(n+1) and
    # B' = (2 mu - mu')/(2 mu) * 17 (n+3) = n/(2(n+1)) * 17 (n+3) = 8.5 n (n+3)/(n+1).
    mu_eq, b_eq = equivalent_node(mu, chain)
    assert mu_eq == pytest.approx(mu * (n + 2) / (n + 1), rel=1e-12)
    assert b_eq == pytest.approx(8.5 * n * (n + 3) / (n + 1), rel=1e-12)
    r = barakat_altman(mu, 1.0, 20.0, chain)
    assert (r.mu_eq, r.b_eq) == pytest.approx((mu_eq, b_eq))


def test_section5_chain_at_the_papers_rates() -> None:
    # n = 1 at mu = 366.2 packets/s: mu_1 = 1.5 mu, S_1 = 4 * 17 = 68, S = 3 * 20 = 60:
    # the bottleneck loses first at S_B = 60; 32 < 60 <= 64, n_B = 6,
    # W_B = 32 + 30 = 62 < W_th = (205.078125 + 20)/2 = 112.5390625: double slow start.
    r = barakat_altman(MU, T, 20.0, [(1.5 * MU, 17.0)])
    assert r.s == pytest.approx((68.0,))
    assert (r.s_b, r.loss_node, r.n_b, r.w_b) == pytest.approx((60.0, 1, 6, 62.0))
    assert r.loss_at_bottleneck
    assert r.w_th == pytest.approx(112.5390625)
    assert r.double_slow_start


# ------------------------------------------ Barakat & Altman, a whole case


def test_one_node_before_the_bottleneck_by_hand() -> None:
    # mu = 1.5 Mb/s = 366.2109375 packets/s (512 B), T = 0.56 s, B = 20; node 1
    # at mu_1 = 2.2 Mb/s = 537.109375 packets/s with B_1 = 15.
    r = barakat_altman(MU, T, 20.0, [(MB_2_2, 15.0)])
    # S_1 = 2 mu/(2 mu - mu_1) B_1 = 3.0/(3.0 - 2.2) * 15 = 3.75 * 15 = 56.25.
    assert r.s == pytest.approx((56.25,))
    # S = mu_1/(mu_1 - mu) B = 2.2/0.7 * 20 = 62.857142...
    assert r.s_bottleneck == pytest.approx(2.2 / 0.7 * 20)
    # S_B = min(56.25, 62.86) = 56.25 at node 1 (index 0).
    assert (r.s_b, r.loss_node) == pytest.approx((56.25, 0))
    assert not r.loss_at_bottleneck
    # 2^5 = 32 < 56.25 <= 64 = 2^6: n_B = 6; W_B = 32 + 56.25/2 = 60.125.
    assert r.n_b == 6
    assert r.w_b == pytest.approx(60.125)
    # W_max = B + mu T = 20 + 205.078125 = 225.078125; W_th = 112.5390625 > W_B.
    assert r.w_max == pytest.approx(225.078125)
    assert r.w_th == pytest.approx(112.5390625)
    assert r.double_slow_start
    # Double slow start: min((W_B + W_max)/(2T), 5 W_max/(8T))
    # = min(285.203125/1.12, 1125.390625/4.48) = min(254.6456, 251.2033) = 251.2033 packets/s
    # (W_B = 60.125 > W_th/2 = 56.27: the second slow start stops at W_th/2).
    assert r.throughput == pytest.approx(1125.390625 / 4.48)
    # One node: mu' = mu_1 and B' = (2 mu - mu_1)/(2 mu) S_1 = 0.8/3 * 56.25 = 15 = B_1.
    assert (r.mu_eq, r.b_eq) == pytest.approx((MB_2_2, 15.0))
    # Section 7: D = (S_B + 3)/mu = 59.25 * 4096/1.5e6 = 0.161792 s;
    # Q = 2 * 56.25 + min(0, 112.5390625 - 2 * 60.125) = 112.5 - 7.7109375 = 104.7890625.
    assert r.retx_delay == pytest.approx(0.161792)
    assert r.retx_burst == pytest.approx(104.7890625)
    # Node 1: D * 2 mu = 2 * 59.25 = 118.5 > Q: not there (fed by the source).
    # Bottleneck: D mu_1 = 59.25 * 2.2/1.5 = 86.9, and 62.857 < 86.9 < 104.79: lost there.
    assert r.retx_loss == (False, True)
    # The buffer rules fail: B = 20 < mu T/3 = 68.36 and B' = 15 < (mu T + B)/4 = 56.27.
    assert buffer_rules(MU, T, 20.0, 15.0) == BufferRules(bottleneck=False, preceding=False)
    row = r.row()
    assert (row["loss_at"], row["retx_lost_at"], row["n_B"]) == ("node 1", "bottleneck", 6)
    assert list(row)[:5] == ["mu", "T", "B", "S_1", "S"]


def test_section7_retransmission_lost_at_the_bottleneck() -> None:
    # Section 7's path: access link 2.7 Mb/s (659.1796875 packets/s, buffer 1000)
    # as node 1, mu' = 2.2 Mb/s with B' = 15 as node 2, mu = 1.5 Mb/s with B = 18.
    chain = [(MB_2_7, 1000.0), (MB_2_2, 15.0)]
    # S_1 = 3.0/(3.0 - 2.7) * 1000 = 10000; S_2 = 2.7/(2.7 - 2.2) * 15 = 81;
    # S = 2.2/0.7 * 18 = 56.5714: S_B = 56.5714 at the bottleneck, n_B = 6,
    # W_B = 32 + 28.2857 = 60.2857; W_th = (205.078125 + 18)/2 = 111.5390625.
    r = barakat_altman(MU, T, 18.0, chain)
    assert r.s == pytest.approx((10000.0, 81.0))
    assert (r.s_b, r.loss_node, r.n_b) == pytest.approx((2.2 / 0.7 * 18, 2, 6))
    # D = (56.5714 + 3)/366.2109375 = 0.1626697 s; Q = 113.1429 + (111.5391 - 120.5714)
    # = 104.1105. Node 1: D 2 mu = 119.14 > Q. Node 2: D mu_1 = 59.5714 * 2.7/1.5 = 107.23
    # > Q. Bottleneck: D mu_2 = 59.5714 * 2.2/1.5 = 87.37, 56.57 < 87.37 < 104.11: lost.
    assert r.retx_delay == pytest.approx(0.1626697, rel=1e-6)
    assert r.retx_burst == pytest.approx(104.1104911, rel=1e-8)
    assert r.retx_loss == (False, False, True)
    assert r.row()["retx_lost_at"] == "bottleneck"


def test_section7_retransmission_lost_at_the_node_before() -> None:
    # As above with B' = 6 and B = 20. S_2 = 5.4 * 6 = 32.4 < S = 62.857: node 2
    # loses first; 32 < 32.4 <= 64, n_B = 6, W_B = 32 + 16.2 = 48.2;
    # W_th = 112.5390625 > 2 W_B = 96.4, so Q = 2 * 32.4 = 64.8; D = 35.4/mu.
    # Node 2: D mu_1 = 35.4 * 1.8 = 63.72 and 32.4 < 63.72 < 64.8: lost there.
    # Bottleneck: D mu_2 = 35.4 * 2.2/1.5 = 51.92 < S = 62.857: not there.
    # Node 1: D 2 mu = 70.8 > Q.
    chain = [(MB_2_7, 1000.0), (MB_2_2, 6.0)]
    w_th = (MU_T + 20.0) / 2
    assert retransmission_losses(MU, 20.0, chain, w_th) == [False, True, False]
    r = barakat_altman(MU, T, 20.0, chain)
    assert (r.loss_node, r.w_b, r.retx_burst) == pytest.approx((1, 48.2, 64.8))
    assert r.row()["retx_lost_at"] == "node 2"
    # Without a double slow start (threshold below W_B) nothing is retransmitted
    # in slow start: Q = 64.8 + (40 - 96.4) = 8.4 < S_i everywhere.
    assert retransmission_losses(MU, 20.0, chain, 40.0) == [False, False, False]


def test_loss_cycle_and_window_at_loss_by_hand() -> None:
    # 2^(n_B - 1) < S_B <= 2^n_B; W_B = 2^(n_B - 1) + S_B/2.
    assert (loss_cycle(64.0), window_at_loss(64.0)) == (6, 64.0)  # 32 + 32
    assert (loss_cycle(64.5), window_at_loss(64.5)) == (7, 96.25)  # 64 + 32.25
    assert (loss_cycle(3.0), window_at_loss(3.0)) == (2, 3.5)  # 2 + 1.5
    assert (loss_cycle(1.0), window_at_loss(1.0)) == (0, 1.0)  # 0.5 + 0.5
    # Rounding in S_B does not move n_B across a power of two.
    assert loss_cycle(64.0 * (1 + 1e-12)) == 6


def test_throughput_cases_by_hand() -> None:
    # mu = 100 packets/s, T = 1 s, no node before: S = 2 B.
    # B = 50: W_max = 150, W_th = 75; S = 100, n_B = 7, W_B = 64 + 50 = 114 > 75:
    # no double slow start, 3 * 150/4 = 112.5 packets/s.
    r = barakat_altman(100.0, 1.0, 50.0)
    assert (r.w_b, r.double_slow_start, r.throughput) == (114.0, False, 112.5)
    assert (r.mu_eq, r.b_eq) == (None, None)
    # B = 10: W_max = 110, W_th = 55; S = 20, n_B = 5, W_B = 16 + 10 = 26 < W_th/2 = 27.5:
    # (26 + 110)/2 = 68 packets/s (below 5 * 110/8 = 68.75).
    r = barakat_altman(100.0, 1.0, 10.0)
    assert (r.w_b, r.double_slow_start, r.throughput) == (26.0, True, 68.0)
    assert r.loss_at_bottleneck
    # W_B = W_th exactly is not a double slow start: 3 * 110/4 = 82.5.
    assert barakat_throughput(100.0, 1.0, 10.0, 55.0) == 82.5
    # Just below: min((54.9 + 110)/2, 68.75) = 68.75.
    assert barakat_throughput(100.0, 1.0, 10.0, 54.9) == 68.75


def test_buffer_rules_at_the_boundary() -> None:
    # mu = 120 packets/s, T = 0.25 s: mu T = 30 (exact). B > mu T/3 = 10, strictly.
    assert not buffer_rules(120.0, 0.25, 10.0, 100.0).bottleneck
    assert buffer_rules(120.0, 0.25, 10.5, 100.0).bottleneck
    # B = 14: B' > (30 + 14)/4 = 11, strictly.
    assert buffer_rules(120.0, 0.25, 14.0, 11.0) == BufferRules(bottleneck=True, preceding=False)
    rules = buffer_rules(120.0, 0.25, 14.0, 11.25)
    assert rules == BufferRules(bottleneck=True, preceding=True)
    assert rules.ok
    # And they hold what they promise: for mu' anywhere in (mu, 2 mu),
    # S >= 2 B = 28 and S' >= 2 B' = 22.5, so W_B >= S_B >= 22.5 > W_th = 22.
    for ratio in (1.01, 1.2, 1.5, 1.8, 1.99):
        r = barakat_altman(120.0, 0.25, 14.0, [(ratio * 120.0, 11.25)])
        assert r.w_th == 22.0
        assert not r.double_slow_start, ratio


def test_nodes_at_or_above_2mu_are_left_out() -> None:
    # A node at 2 mu or faster never queues: S = inf, and the next node is fed
    # at 2 mu as if it were absent. Node 2 at 1.5 mu: S_2 = 2/(2 - 1.5) * 10 = 40;
    # bottleneck S = 1.5/0.5 * 20 = 60.
    sizes = burst_sizes(100.0, 20.0, [(300.0, 5.0), (150.0, 10.0), (200.0, 3.0)])
    assert sizes == [math.inf, pytest.approx(40.0), math.inf, pytest.approx(60.0)]
    mu_eq, b_eq = equivalent_node(100.0, [(300.0, 5.0), (150.0, 10.0), (200.0, 3.0)])
    assert (mu_eq, b_eq) == pytest.approx((150.0, 10.0))
    # Only fast nodes: as the bottleneck alone, S = 2 B.
    assert burst_sizes(100.0, 20.0, [(1e6, 1.0)]) == [math.inf, 40.0]
    r = barakat_altman(100.0, 1.0, 20.0, [(1e6, 1.0)])
    assert (r.mu_eq, r.b_eq, r.retx_loss) == (None, None, (False, False))
    # A tie goes to the node nearer the source.
    assert slow_start_loss([40.0, 40.0]) == (40.0, 0)


@pytest.mark.parametrize(
    ("chain", "message"),
    [
        ([(100.0, 10.0)], r"chain\[0\] \(node 1\) has rate 100, not faster than the bottleneck"),
        ([(150.0, 10.0), (90.0, 10.0)], r"chain\[1\] \(node 2\) has rate 90, not faster"),
        ([(150.0, 10.0), (160.0, 10.0)], r"node 2\) has rate 160, not slower than the node"),
        ([(150.0, 0.0)], r"the buffer of chain\[0\] \(node 1\) must be positive; got 0\.0"),
        ([(-5.0, 3.0)], r"the rate of chain\[0\] \(node 1\) must be positive"),
    ],
)
def test_invalid_chains_are_refused(chain: list[tuple[float, float]], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        burst_sizes(100.0, 20.0, chain)
    with pytest.raises(ValueError, match=message):
        barakat_altman(100.0, 1.0, 20.0, chain)


def test_invalid_barakat_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match=r"mu \(the bottleneck's rate\) must be positive"):
        burst_sizes(0.0, 20.0)
    with pytest.raises(ValueError, match=r"b \(the bottleneck's buffer\) must be positive"):
        burst_sizes(100.0, -1.0)
    with pytest.raises(ValueError, match=r"t \(the minimum RTT\) must be positive"):
        barakat_altman(100.0, 0.0, 20.0)
    with pytest.raises(ValueError, match="no node below 2 mu"):
        equivalent_node(100.0, [])


# ------------------------------------------------------------ Mathis 1997


def test_mathis_by_hand() -> None:
    # MSS = 1460 B, RTT = 0.1 s, p = 0.01, b = 1: C = sqrt(3/2) = 1.2247449;
    # 1460/0.1 = 14600 B/s, / sqrt(0.01) = 146000, * C = 178812.75 B/s (1.43 Mb/s).
    assert mathis_throughput(0.01, 0.1, 1460) == pytest.approx(178812.75, abs=0.01)
    # Delayed ACKs, b = 2: C = sqrt(3/4) = 0.8660254: 146000 * C = 126439.71 B/s.
    assert mathis_throughput(0.01, 0.1, 1460, b=2) == pytest.approx(126439.71, abs=0.01)
    # Packets/s by default: sqrt(1.5)/(0.1 * 0.1) = 122.47449.
    assert mathis_throughput(0.01, 0.1) == pytest.approx(122.474487, rel=1e-8)


# ------------------------------------------------------------- PFTK 1998


def test_pftk_full_model_by_hand() -> None:
    # p = 0.01, RTT = 0.1 s, T0 = 1 s, b = 1, no window limit.
    # (2 + b)/(3 b) = 1; E[W] = 1 + sqrt(8 * 0.99/0.03 + 1) = 1 + sqrt(265) = 17.278821.
    # Q(E[W]): 1 - 0.99^3 = 0.029701; 0.99^3 = 0.970299; 0.99^14.278821 = 0.866315;
    # 0.99^17.278821 = 0.840584; Q = 0.029701 (1 + 0.970299 * 0.133685)/0.159416 = 0.210479.
    # f(p) = 1 + .01 + .0002 + 4e-6 + 8e-8 + ... = 1.010204.
    # Numerator 99 + 17.278821 + 0.210479/0.99 = 116.491426;
    # denominator 0.1 (17.278821/2 + 1) + 0.210479 * 1.010204/0.99 = 0.963941 + 0.214775
    # = 1.178716; B = 98.8291 packets/s.
    assert pftk_throughput(0.01, 0.1, 1.0) == pytest.approx(98.8291, abs=1e-4)
    # W_max = 10 < E[W]: Q(10) with 0.99^7 = 0.932065, 0.99^10 = 0.904382:
    # 0.029701 (1 + 0.970299 * 0.067935)/0.095618 = 0.331097.
    # Numerator 99 + 10 + 0.331097/0.99 = 109.334441; denominator
    # 0.1 (10/8 + 0.99/0.1 + 2) + 0.331097 * 1.010204/0.99 = 1.315 + 0.337854 = 1.652854;
    # B = 66.1489 packets/s (below W_max/RTT = 100).
    assert pftk_throughput(0.01, 0.1, 1.0, w_max=10) == pytest.approx(66.1489, abs=1e-4)
    # Bytes/s with the MSS in bytes.
    assert pftk_throughput(0.01, 0.1, 1.0, mss=1460) == pytest.approx(98.8291 * 1460, abs=0.2)


def test_pftk_approximate_model_by_hand() -> None:
    # 0.1 sqrt(2 * 0.01/3) = 0.1 * 0.0816497 = 0.00816497;
    # 3 sqrt(3 * 0.01/8) = 3 * 0.0612372 = 0.1837117 (< 1); p (1 + 32 p^2) = 0.010032;
    # 1/(0.00816497 + 1.0 * 0.1837117 * 0.010032) = 1/0.01000797 = 99.9204 packets/s.
    assert pftk_approx_throughput(0.01, 0.1, 1.0) == pytest.approx(99.9204, abs=1e-4)
    # The window limit: min(W_max/RTT, ...) = 5/0.1 = 50.
    assert pftk_approx_throughput(0.01, 0.1, 1.0, w_max=5) == 50.0
    # 3 sqrt(3 b p/8) >= 1 from p = 8/27 on: at p = 0.5, b = 1, T0 = 1, RTT = 0.1:
    # 0.1 sqrt(1/3) + 1 * 1 * 0.5 * (1 + 8) = 0.057735 + 4.5 = 4.557735 -> 0.219407.
    assert pftk_approx_throughput(0.5, 0.1, 1.0) == pytest.approx(0.219407, abs=1e-6)


def test_pftk_tends_to_mathis_without_timeouts() -> None:
    # T0 = 0, no window limit: the approximation is 1/(RTT sqrt(2bp/3))
    # = sqrt(3/(2bp))/RTT, Mathis exactly.
    for b in (1.0, 2.0):
        for p in (1e-6, 1e-3, 0.05):
            assert pftk_approx_throughput(p, 0.2, 0.0, b=b) == pytest.approx(
                mathis_throughput(p, 0.2, b=b), rel=1e-12
            )
    # The full model: (1/p + O(p^-1/2)) / (RTT (b/2) sqrt(8/(3bp)) + O(1)) -> Mathis,
    # with a relative gap of order sqrt(p).
    gaps = [
        abs(pftk_throughput(p, 0.2, 0.0) / mathis_throughput(p, 0.2) - 1)
        for p in (1e-2, 1e-4, 1e-6)
    ]
    assert gaps[0] > gaps[1] > gaps[2]
    assert gaps[1] < 1e-2
    assert gaps[2] < 1e-3
    # With a window limit and p -> 0: [1/p] / [RTT/(p W_max)] -> W_max/RTT = 100.
    assert pftk_throughput(1e-9, 0.1, 1.0, w_max=10) == pytest.approx(100.0, rel=1e-3)


def test_vectorised_calls_equal_scalar_calls() -> None:
    p = np.array([1e-5, 1e-3, 0.01, 0.05, 0.2, 0.5])
    rtt = np.array([0.01, 0.05, 0.1, 0.2, 0.3, 0.6])
    for b in (1.0, 2.0):
        got = mathis_throughput(p, 0.1, 1460, b)
        assert isinstance(got, np.ndarray)
        assert got.shape == p.shape
        assert got.tolist() == [mathis_throughput(float(x), 0.1, 1460, b) for x in p]
        for f in (pftk_throughput, pftk_approx_throughput):
            got = f(p, rtt, 1.5, b=b, w_max=40)
            assert isinstance(got, np.ndarray)
            want = [f(float(x), float(r), 1.5, b=b, w_max=40) for x, r in zip(p, rtt)]
            assert got == pytest.approx(want, rel=1e-12)
            # An array of T0 broadcast against a scalar p.
            t0 = np.array([0.0, 1.0, 3.0])
            assert f(0.02, 0.1, t0).tolist() == pytest.approx([f(0.02, 0.1, x) for x in t0])
    # Scalars give floats, 2-D arrays keep their shape.
    assert isinstance(pftk_throughput(0.01, 0.1, 1.0), float)
    assert pftk_throughput(p.reshape(2, 3), 0.1, 1.0).shape == (2, 3)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda: mathis_throughput(-0.1, 0.1),
            r"p \(loss probability\) must be in \(0, 1\); got -0\.1",
        ),
        (lambda: mathis_throughput(0.0, 0.1), r"must be in \(0, 1\); got 0\.0"),
        (lambda: mathis_throughput(np.array([0.1, 1.5]), 0.1), r"must be in \(0, 1\); got 1\.5"),
        (lambda: mathis_throughput(0.01, 0.0), r"rtt must be > 0; got 0\.0"),
        (lambda: mathis_throughput(0.01, 0.1, b=0), r"b \(packets per ACK\) must be positive"),
        (lambda: pftk_throughput(float("nan"), 0.1, 1.0), r"p \(loss probability\) must be in"),
        (lambda: pftk_throughput(0.01, 0.1, -1.0), r"t0 must be >= 0; got -1\.0"),
        (lambda: pftk_approx_throughput(0.01, 0.1, 1.0, w_max=0), r"w_max must be positive"),
        (lambda: pftk_approx_throughput(0.01, -0.1, 1.0), r"rtt must be > 0; got -0\.1"),
    ],
)
def test_invalid_loss_model_arguments_are_refused(call: object, message: str) -> None:
    assert callable(call)
    with pytest.raises(ValueError, match=message):
        call()


# ------------------------------------------------------- docs/models.md


def test_the_example_in_the_docs_runs() -> None:
    text = (REPO / "docs" / "models.md").read_text(encoding="utf-8")
    blocks = re.findall(r"^```python\n(.*?)^```", text, flags=re.M | re.S)
    assert blocks
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    for i, body in enumerate(blocks):
        test = parser.get_doctest(body, {"models": models}, f"models.md[{i}]", None, 0)
        assert test.examples, "the docs example should be written as a session (>>>)"
        runner.run(test)
    assert runner.failures == 0
