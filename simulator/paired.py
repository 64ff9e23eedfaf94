"""Statistics for rule-change experiments: paired comparisons, Holm's correction, balance point.

A baseline and a variant are played on the same game seeds, so game i gives a pair
(baseline win?, variant win?) for a side.  The four counts of that 2x2 table are
    a: both won, b: baseline only, c: variant only, d: neither.
- `paired_difference` (in simulator/stats.py, beside the Wilson interval it builds on): the change in win probability (variant minus baseline) with Newcombe's
  method 10 interval (Newcombe 1998, "Improved confidence intervals for the difference between
  binomial proportions based on paired data", Stat Med 17:2635).  Chosen over the Wald interval
  on the mean paired difference because it stays inside [-1, 1] and keeps its coverage when the
  discordant pairs are few, which small experiments and one-sided situations produce.
- `mcnemar_exact`: the two-sided exact McNemar p-value (a binomial test on the discordant pairs).
- `holm`: Holm's step-down adjustment of a family of p-values.
- `balance_point`: where a logistic fit of a win indicator on a swept parameter crosses 50 %,
  with a delta-method interval.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.special import ndtri


def paired_table(baseline: Sequence[bool], variant: Sequence[bool]) -> tuple[int, int, int, int]:
    """The counts (a, b, c, d) of the paired 2x2 table; a ValueError if the lengths differ."""
    base = np.asarray(baseline, dtype=bool)
    var = np.asarray(variant, dtype=bool)
    if base.shape != var.shape or base.ndim != 1:
        raise ValueError(f"paired outcomes need two equal-length vectors, got {base.shape} and {var.shape}")
    return (int(np.sum(base & var)), int(np.sum(base & ~var)),
            int(np.sum(~base & var)), int(np.sum(~base & ~var)))


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar p-value: under no change the b+c discordant pairs split 50:50."""
    if b < 0 or c < 0:
        raise ValueError(f"discordant counts must be non-negative, got {b}, {c}")
    if b + c == 0:
        return 1.0
    from scipy.stats import binom  # here: scipy.stats is slow to import (simulator/stats.py)

    return min(1.0, 2.0 * float(binom.cdf(min(b, c), b + c, 0.5)))


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values, in the order given (reject where adjusted < alpha)."""
    p = np.asarray(p_values, dtype=float)
    m = len(p)
    order = np.argsort(p, kind="stable")
    adjusted = np.empty(m)
    running = 0.0
    for rank, idx in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[idx]))
        adjusted[idx] = running
    return adjusted.tolist()


@dataclass(frozen=True)
class BalancePoint:
    """A logistic fit P(win | x) = 1 / (1 + exp(-(b0 + b1·x))) and where it crosses 50 %."""

    b0: float
    b1: float
    crossing: float | None  # None: the fitted curve does not cross 50 % inside the swept range
    ci95: tuple[float, float] | None
    x_range: tuple[float, float]


def fit_logistic(x: Sequence[float], y: Sequence[bool], iterations: int = 50) -> tuple[np.ndarray, np.ndarray]:
    """Maximum-likelihood (b0, b1) by Newton's method and their covariance (inverse observed information)."""
    xs = np.asarray(x, dtype=float)
    ys = np.asarray(y, dtype=float)
    design = np.column_stack([np.ones_like(xs), xs])
    beta = np.zeros(2)
    info = np.eye(2)
    for _ in range(iterations):
        prob = 1.0 / (1.0 + np.exp(-(design @ beta)))
        weights = prob * (1.0 - prob)
        info = design.T @ (design * weights[:, None])
        step = np.linalg.solve(info, design.T @ (ys - prob))
        beta = beta + step
        if np.max(np.abs(step)) < 1e-10:
            break
    if not np.all(np.isfinite(beta)) or np.linalg.cond(info) > 1e12:
        raise ValueError("the logistic fit does not converge (the outcomes are separated by the parameter)")
    prob = 1.0 / (1.0 + np.exp(-(design @ beta)))
    info = design.T @ (design * (prob * (1.0 - prob))[:, None])
    return beta, np.linalg.inv(info)


def balance_point(x: Sequence[float], y: Sequence[bool], confidence: float = 0.95) -> BalancePoint:
    """The parameter value at which the fitted win probability is 50 %: x* = -b0/b1.

    Its interval is x* ± z·se by the delta method, gradient (-1/b1, b0/b1²).  Reported only when
    x* lies inside the swept range; otherwise `crossing` and `ci95` are None.
    """
    xs = np.asarray(x, dtype=float)
    lo_x, hi_x = float(xs.min()), float(xs.max())
    beta, cov = fit_logistic(xs, y)
    b0, b1 = float(beta[0]), float(beta[1])
    if b1 == 0.0 or not lo_x <= -b0 / b1 <= hi_x:
        return BalancePoint(b0, b1, None, None, (lo_x, hi_x))
    cross = -b0 / b1
    grad = np.array([-1.0 / b1, b0 / b1 ** 2])
    se = math.sqrt(float(grad @ cov @ grad))
    z = float(ndtri(0.5 + confidence / 2))   # norm.ppf
    return BalancePoint(b0, b1, cross, (cross - z * se, cross + z * se), (lo_x, hi_x))
