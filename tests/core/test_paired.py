"""Paired comparison statistics (simulator/paired.py) against hand-computed values."""

from __future__ import annotations

import math

import numpy as np
import pytest

from simulator.paired import balance_point, holm, mcnemar_exact, paired_table
from simulator.stats import paired_difference


def test_paired_table_counts_each_cell():
    base = [True, True, False, False, True]
    var = [True, False, True, False, True]
    assert paired_table(base, var) == (2, 1, 1, 1)
    with pytest.raises(ValueError):
        paired_table([True], [True, False])


def test_mcnemar_exact_on_a_known_table():
    # b=2, c=10: 2 * P(X <= 2), X ~ Bin(12, 1/2) = 2 * (1 + 12 + 66) / 4096.
    assert mcnemar_exact(2, 10) == pytest.approx(158 / 4096)
    assert mcnemar_exact(10, 2) == pytest.approx(158 / 4096)
    assert mcnemar_exact(0, 0) == 1.0
    assert mcnemar_exact(5, 5) == 1.0


def test_holm_on_known_p_values():
    # sorted: 0.005*4 = 0.02, 0.01*3 = 0.03, 0.03*2 = 0.06, 0.04*1 = 0.04 -> held at 0.06.
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm([0.5]) == [0.5]


def test_paired_interval_hand_computed():
    # a=30, b=5, c=15, d=50 (n=100): variant 45 %, baseline 35 %, difference +10 points.
    # Wilson(45, 100) = (0.35615, 0.54755), Wilson(35, 100) = (0.26364, 0.44746);
    # phi = (1500 - 75) / sqrt(35*65*45*55) = 0.60053; interval (0.01444, 0.18280).
    diff, lo, hi = paired_difference(30, 5, 15, 50)
    z = 1.959964
    def wil(k, n):
        p = k / n
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
        return centre - half, centre + half
    l1, u1 = wil(45, 100)
    l2, u2 = wil(35, 100)
    assert (l1, u1) == pytest.approx((0.35615, 0.54755), abs=1e-5)
    assert (l2, u2) == pytest.approx((0.26364, 0.44746), abs=1e-5)
    phi = 1425 / math.sqrt(35 * 65 * 45 * 55)
    assert phi == pytest.approx(0.60053, abs=1e-5)
    exp_lo = 0.10 - math.sqrt((0.45 - l1) ** 2 - 2 * phi * (0.45 - l1) * (u2 - 0.35) + (u2 - 0.35) ** 2)
    exp_hi = 0.10 + math.sqrt((u1 - 0.45) ** 2 - 2 * phi * (u1 - 0.45) * (0.35 - l2) + (0.35 - l2) ** 2)
    assert diff == pytest.approx(0.10)
    assert (lo, hi) == pytest.approx((exp_lo, exp_hi), abs=1e-6)
    assert (lo, hi) == pytest.approx((0.01444, 0.18280), abs=1e-5)
    # Close to the Wald interval on the mean paired difference at this size.
    sd = math.sqrt((5 + 15) / 100 - 0.10 ** 2) / math.sqrt(100)
    assert lo == pytest.approx(0.10 - z * sd, abs=0.02)
    assert hi == pytest.approx(0.10 + z * sd, abs=0.02)


def test_identical_outcomes_give_no_change():
    diff, lo, hi = paired_difference(12, 0, 0, 28)
    assert diff == 0.0 and lo < 0.0 < hi


def test_balance_point_recovers_a_known_crossing():
    rng = np.random.default_rng(3)
    x = np.repeat(np.arange(0, 11), 200).astype(float)
    y = rng.random(x.size) < 1 / (1 + np.exp(-(x - 5.0)))
    point = balance_point(x, y)
    assert point.crossing is not None
    assert point.ci95[0] < 5.0 < point.ci95[1]
    assert abs(point.crossing - 5.0) < 0.3
    assert point.ci95[1] - point.ci95[0] < 1.0


def test_balance_point_none_in_range():
    rng = np.random.default_rng(4)
    x = np.repeat(np.arange(0, 4), 200).astype(float)
    y = rng.random(x.size) < 1 / (1 + np.exp(-(x - 8.0)))
    point = balance_point(x, y)
    assert point.crossing is None and point.ci95 is None
    assert point.x_range == (0.0, 3.0)
