"""Confidence intervals (simulator/stats.py) against published values and their formulas."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import chi2, norm

from simulator.stats import goodman, wilson, wilson_half_width, win_difference


def wilson_by_hand(k: int, n: int, z: float) -> tuple[float, float]:
    # The score interval written out the other way round: roots of (p̂ - p)² = z² p(1-p)/n.
    a = 1 + z * z / n
    b = -(2 * k / n + z * z / n)
    c = (k / n) ** 2
    disc = math.sqrt(b * b - 4 * a * c)
    return (-b - disc) / (2 * a), (-b + disc) / (2 * a)


@pytest.mark.parametrize(("k", "n", "lo", "hi"), [
    # Newcombe (1998), "Two-sided confidence intervals for the single proportion", Table I, method 3.
    (81, 263, 0.2553, 0.3662),
    (15, 148, 0.0624, 0.1605),
    (0, 20, 0.0, 0.1611),
    (1, 29, 0.0061, 0.1718),
])
def test_wilson_matches_published_values(k, n, lo, hi):
    got = wilson(k, n)
    assert got == pytest.approx((lo, hi), abs=5e-5)


@pytest.mark.parametrize("confidence", [0.5, 0.9, 0.95, 0.99, 0.999])
@pytest.mark.parametrize(("k", "n"), [(0, 1), (1, 1), (3, 7), (50, 100), (999, 1000), (12345, 20000)])
def test_wilson_equals_the_quadratic_roots(k, n, confidence):
    z = norm.ppf(0.5 + confidence / 2)
    assert wilson(k, n, confidence) == pytest.approx(wilson_by_hand(k, n, z), abs=1e-12)


def test_wilson_edges():
    n = 40
    z2 = norm.ppf(0.975) ** 2
    lo, hi = wilson(0, n)
    assert lo == 0.0 and hi == pytest.approx(z2 / (n + z2))   # k = 0: upper bound z²/(n+z²)
    lo, hi = wilson(n, n)
    assert hi == 1.0 and lo == pytest.approx(n / (n + z2))
    assert wilson_half_width(0, n) == pytest.approx(z2 / (n + z2) / 2)
    # Symmetric in successes and failures.
    lo, hi = wilson(7, 30)
    assert wilson(23, 30) == pytest.approx((1 - hi, 1 - lo))
    # Wider at higher confidence, narrower with more games.
    assert wilson_half_width(10, 40, 0.99) > wilson_half_width(10, 40, 0.95)
    assert wilson_half_width(100, 400) < wilson_half_width(10, 40)


@pytest.mark.parametrize(("k", "n", "confidence"), [(0, 0, 0.95), (1, 0, 0.95), (-1, 5, 0.95), (6, 5, 0.95),
                                                    (1, 5, 0.0), (1, 5, 1.0)])
def test_wilson_rejects_bad_input(k, n, confidence):
    with pytest.raises(ValueError):
        wilson(k, n, confidence)


def test_goodman_matches_published_values():
    # Sison & Glaz (1995), JASA 90:366-369, example 1: Goodman's intervals to three decimals.
    counts = [56, 72, 73, 59, 62, 87, 58]
    expected = [(.085, .166), (.115, .204), (.116, .207), (.091, .173), (.096, .181), (.143, .239), (.089, .171)]
    assert goodman(counts) == pytest.approx(np.array(expected), abs=6e-4)
    # ... and example 2: fifty cells of five.
    assert goodman([5] * 50) == pytest.approx(np.tile([0.005, 0.075], (50, 1)), abs=6e-4)


def test_goodman_is_the_bonferroni_score_interval():
    counts = [120, 0, 33, 7, 40]
    n, k = sum(counts), len(counts)
    a = chi2.ppf(1 - 0.05 / k, 1)
    got = goodman(counts)
    for i, c in enumerate(counts):
        root = math.sqrt(a * (a + 4 * c * (n - c) / n))
        assert got[i] == pytest.approx([(a + 2 * c - root) / (2 * (n + a)), (a + 2 * c + root) / (2 * (n + a))])
        # The same as a Wilson interval at confidence 1 - alpha/K (chi-square(1) quantile = z²).
        assert got[i] == pytest.approx(wilson(c, n, 1 - 0.05 / k), abs=1e-12)
    # Simultaneous intervals are wider than one-at-a-time ones.
    assert got[2, 1] - got[2, 0] > np.diff(wilson(33, n))[0]


@pytest.mark.parametrize("counts", [[0, 0, 0], [5], [3, -1, 2]])
def test_goodman_rejects_bad_input(counts):
    with pytest.raises(ValueError):
        goodman(counts)


def test_win_difference_matches_hand_computed_newcombe_interval():
    # 40 first-side wins, 30 second-side wins, 30 draws in 100 games.  By hand: Wilson intervals
    # [0.3094, 0.4980] and [0.2189, 0.3958]; phi = (0*30 - 40*30) / sqrt(40*60*30*70) = -0.5345;
    # lower = 0.1 - sqrt(0.0906² + 2*0.5345*0.0906*0.0958 + 0.0958²) = -0.0633,
    # upper = 0.1 + sqrt(0.0980² + 2*0.5345*0.0980*0.0811 + 0.0811²) = 0.2570.
    d, lo, hi = win_difference(40, 30, 100)
    assert d == pytest.approx(0.1)
    assert lo == pytest.approx(-0.0633, abs=2e-4)
    assert hi == pytest.approx(0.2570, abs=2e-4)


def test_win_difference_is_symmetric_and_rejects_two_winners():
    d, lo, hi = win_difference(30, 40, 100)
    assert (d, lo, hi) == pytest.approx((-0.1, -0.2570, 0.0633), abs=2e-4)
    with pytest.raises(ValueError):
        win_difference(60, 50, 100)


def test_seat_score_is_level_difference():
    import pandas as pd

    from simulator import registry
    from simulator.stats import seat_score

    ranks = registry.ruleset("panzerblitz").levels.ranks
    assert ranks == {"none": 0, "marginal": 1, "tactical": 2, "decisive": 3}
    g = pd.DataFrame({"level_german": ["decisive", "none", "marginal"], "level_russian": ["none", "tactical", "marginal"]})
    assert seat_score(g, "german", "russian", ranks).tolist() == [3, -2, 0]
    assert seat_score(g, "russian", "german", ranks).tolist() == [-3, 2, 0]
    with pytest.raises(ValueError, match="unknown victory level"):
        seat_score(pd.DataFrame({"level_german": ["huge"], "level_russian": ["none"]}), "german", "russian", ranks)


def test_paired_score_gain_mostly_zero_differences_stay_at_or_above_zero():
    # pb-03 Russian, 1,000 paired games (README): the heuristic wins all, the random Russian
    # draws 3.  The normal interval of these differences reaches below 0 ([-0.001, +0.019]);
    # no game is worse, so the bootstrap does not, and the sign test counts 3 better, 0 worse.
    from simulator.stats import paired_score_gain
    heuristic = np.full(1000, 3)
    random_seat = np.r_[np.full(997, 3), 0, 0, 0]
    d = heuristic - random_seat
    assert d.mean() - 1.96 * d.std(ddof=1) / np.sqrt(1000) < 0  # what the old interval did
    g = paired_score_gain(heuristic, random_seat)
    assert g["mean"] == pytest.approx(0.009)
    assert g["lo"] == 0.0 and 0.009 < g["hi"] < 0.03
    assert (g["better"], g["worse"]) == (3, 0)
    assert g["p_sign"] == pytest.approx(0.25)  # 2 * 0.5**3
    assert g["p_worse"] == 1.0
    assert paired_score_gain(heuristic, random_seat) == g  # fixed resampling seed


def test_paired_score_gain_agrees_with_the_normal_interval_on_spread_differences():
    from simulator.stats import paired_score_gain
    rng = np.random.default_rng(7)
    a, b = rng.integers(-3, 4, 2000), rng.integers(-3, 4, 2000) - 1
    d = a - b
    se = d.std(ddof=1) / np.sqrt(len(d))
    g = paired_score_gain(a, b)
    assert g["lo"] == pytest.approx(d.mean() - 1.96 * se, abs=0.03)
    assert g["hi"] == pytest.approx(d.mean() + 1.96 * se, abs=0.03)
    assert g["better"] + g["worse"] == int((d != 0).sum())
    assert g["p_sign"] < 1e-6


def test_paired_score_gain_no_difference_and_bad_input():
    from simulator.stats import paired_score_gain
    g = paired_score_gain(np.zeros(10), np.zeros(10))
    assert (g["mean"], g["lo"], g["hi"], g["better"], g["worse"], g["p_sign"]) == (0.0, 0.0, 0.0, 0, 0, 1.0)
    with pytest.raises(ValueError):
        paired_score_gain(np.zeros(0), np.zeros(0))
    with pytest.raises(ValueError):
        paired_score_gain(np.zeros(3), np.zeros(3), confidence=1.0)


def test_gain_verdict_reads_interval_and_sign_test():
    from simulator.stats import gain_verdict, paired_score_gain
    pb03 = paired_score_gain(np.full(1000, 3), np.r_[np.full(997, 3), 0, 0, 0])
    assert gain_verdict(pb03) == "cannot tell"  # 3 better, 0 worse: too few to tell
    many = paired_score_gain(np.r_[np.full(980, 3), np.full(20, 0)], np.r_[np.full(960, 3), np.full(40, 0)])
    assert gain_verdict(many) == "better"
    assert gain_verdict(paired_score_gain(np.full(50, -1), np.zeros(50))) == "worse"
    assert gain_verdict(paired_score_gain(np.zeros(50), np.zeros(50))) == "cannot tell"


@pytest.mark.parametrize("confidence", [0.5, 0.8, 0.9, 0.95, 0.99, 0.999, 0.123, 0.6789])
def test_the_quantiles_are_scipy_stats_own(confidence):
    # stats.py takes them from scipy.special (scipy.stats is slow to import): the same floats as
    # norm.ppf and chi2.ppf, so every interval is as before to the last bit.
    z = float(norm.ppf(0.5 + confidence / 2.0))
    k, n = 7, 20
    p, z2 = k / n, z * z
    denom = 1.0 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = math.sqrt(z2) / denom * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    assert wilson(k, n, confidence) == (max(0.0, centre - half), min(1.0, centre + half))
    for cells in range(2, 12):
        counts = list(range(1, cells + 1))
        a = float(chi2.ppf(1.0 - (1.0 - confidence) / cells, 1))
        c = np.asarray(counts, dtype=np.float64)
        root = np.sqrt(a * (a + 4.0 * c * (c.sum() - c) / c.sum()))
        expected = np.clip(np.column_stack([(a + 2 * c - root) / (2 * (c.sum() + a)),
                                            (a + 2 * c + root) / (2 * (c.sum() + a))]), 0.0, 1.0)
        assert np.array_equal(goodman(counts, confidence), expected)
