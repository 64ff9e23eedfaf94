"""Confidence intervals for the outcomes of a batch of games.

- `wilson`: the Wilson score interval for one proportion (a side's chance of winning, of a
  draw).  Unlike the textbook p ± z·sqrt(p(1-p)/n) it stays inside [0, 1] and does not
  collapse to a zero-width interval at 0 or n successes, which one-sided situations produce.
- `goodman`: simultaneous intervals for all the probabilities of a multinomial (the
  distribution of results over "german decisive", "russian marginal", ..., "draw").
- `wilson_half_width`: the precision `balance run --until-ci` waits for.
- `paired_score_gain`: a player's gain over another on the same seeds, per game a small whole
  number (a seat's score, -3..3) that is mostly 0: a paired bootstrap interval of the mean and
  an exact sign test on the games that differ (bench/strength.py).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

# The quantiles through scipy.special, which scipy.stats' norm.ppf and chi2.ppf call (the same
# values, tests/core/test_stats.py): importing scipy.stats took about a quarter of a warm
# `balance run` (docs/performance.md, round 9); binomtest is imported where it is used.
from scipy.special import gammaincinv, ndtri

from simulator.paired import mcnemar_exact


def _check_level(confidence: float) -> None:
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence level must be strictly between 0 and 1, got {confidence!r}")


def _check_count(k: int, n: int) -> None:
    if n <= 0:
        raise ValueError(f"need at least one trial for an interval, got n={n}")
    if not 0 <= k <= n:
        raise ValueError(f"successes must be between 0 and n={n}, got {k}")


def wilson(k: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for a proportion: `k` successes in `n` trials.

    With z the two-sided normal quantile and p = k/n:
        centre = (p + z²/2n) / (1 + z²/n)
        half   = z / (1 + z²/n) · sqrt(p(1-p)/n + z²/4n²)
    (Wilson 1927; Newcombe 1998, method 3).  Raises ValueError for n <= 0 or k outside [0, n].
    """
    _check_level(confidence)
    _check_count(k, n)
    z = float(ndtri(0.5 + confidence / 2.0))   # norm.ppf
    return _score_interval(k, n, z * z)


def wilson_half_width(k: int, n: int, confidence: float = 0.95) -> float:
    """Half the width of the Wilson interval: the "± h" that `--until-ci h` compares with h."""
    lo, hi = wilson(k, n, confidence)
    return (hi - lo) / 2.0


def goodman(counts: Sequence[int], confidence: float = 0.95) -> np.ndarray:
    """Simultaneous confidence intervals for every cell of a multinomial (Goodman 1965).

    `counts[i]` is how often outcome i happened in N = sum(counts) trials.  Goodman's intervals
    hold together: with probability at least `confidence` (asymptotically) every true
    probability lies in its interval at once.  Each interval is a score interval with the
    chi-square quantile A = χ²₁(1 - α/K) in place of z², K the number of cells and
    α = 1 - confidence (a Bonferroni adjustment over the K cells):

        [A + 2nᵢ ∓ sqrt(A · (A + 4 nᵢ (N - nᵢ) / N))] / (2 (N + A))

    This is the "goodman" method of statsmodels' multinomial_proportions_confint.  Cells that
    cannot happen still count in K, which only makes the intervals a little wider.  Returns an
    array of shape (K, 2): lower and upper bounds.  Raises ValueError if N = 0, a count is
    negative, or there are fewer than two cells.
    """
    _check_level(confidence)
    c = np.asarray(counts, dtype=np.float64)
    if c.ndim != 1 or c.size < 2:
        raise ValueError(f"need a list of at least two cell counts, got {counts!r}")
    if (c < 0).any():
        raise ValueError(f"cell counts must be >= 0, got {counts!r}")
    n = float(c.sum())
    if n <= 0:
        raise ValueError("need at least one trial for an interval, got N=0")
    a = float(2.0 * gammaincinv(0.5, 1.0 - (1.0 - confidence) / c.size))   # chi2.ppf(q, 1)
    root = np.sqrt(a * (a + 4.0 * c * (n - c) / n))
    lo = (a + 2.0 * c - root) / (2.0 * (n + a))
    hi = (a + 2.0 * c + root) / (2.0 * (n + a))
    return np.clip(np.column_stack([lo, hi]), 0.0, 1.0)


def _score_interval(k: int, n: int, z2: float) -> tuple[float, float]:
    p = k / n
    denom = 1.0 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = math.sqrt(z2) / denom * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    # Rounding can put the bound a hair outside [0, 1] at k = 0 or k = n.
    return max(0.0, centre - half), min(1.0, centre + half)


def win_difference(wins_first: int, wins_second: int, n: int,
                   confidence: float = 0.95) -> tuple[float, float, float]:
    """First side's minus second side's chance of winning, with its interval, from the same games.

    The two win counts come from the same `n` games and exclude each other (a game has at most
    one winner), so they are not independent: this is Newcombe's hybrid score interval for paired
    proportions (Newcombe 1998, "Improved confidence intervals for the difference between
    binomial proportions based on paired data", method 10) on the 2x2 table "first side won" x
    "second side won", whose both-won cell is 0 (`paired_difference`).

    Returns (D, lower, upper).  Raises ValueError for n <= 0 or wins_first + wins_second > n.
    """
    _check_level(confidence)
    _check_count(wins_first, n)
    _check_count(wins_second, n)
    if wins_first + wins_second > n:
        raise ValueError(f"at most one winner a game: {wins_first} + {wins_second} wins in {n} games")
    # Cells: a (both won) = 0, b = second side only, c = first side only, d = neither.
    return paired_difference(0, wins_second, wins_first, n - wins_first - wins_second, confidence)


def paired_difference(a: int, b: int, c: int, d: int,
                      confidence: float = 0.95) -> tuple[float, float, float]:
    """Variant minus baseline win probability, with Newcombe's method 10 interval.

    With p1 = (a+c)/n (variant), p2 = (a+b)/n (baseline), their Wilson limits (l1, u1), (l2, u2)
    and phi the correlation of the pair (0 when a margin is empty):
        lower = (p1-p2) - sqrt((p1-l1)² - 2·phi·(p1-l1)(u2-p2) + (u2-p2)²)
        upper = (p1-p2) + sqrt((u1-p1)² - 2·phi·(u1-p1)(p2-l2) + (p2-l2)²)
    """
    n = a + b + c + d
    if n <= 0 or min(a, b, c, d) < 0:
        raise ValueError(f"a paired table needs non-negative counts and at least one pair, got {(a, b, c, d)}")
    p1, p2 = (a + c) / n, (a + b) / n
    l1, u1 = wilson(a + c, n, confidence)
    l2, u2 = wilson(a + b, n, confidence)
    denom = (a + b) * (c + d) * (a + c) * (b + d)
    phi = (a * d - b * c) / math.sqrt(denom) if denom > 0 else 0.0
    delta = math.sqrt(max((p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2, 0.0))
    eps = math.sqrt(max((u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2, 0.0))
    diff = p1 - p2
    return diff, max(diff - delta, -1.0), min(diff + eps, 1.0)


def seat_score(games, side: str, opponent: str, ranks: dict[str, int], column: str = "level_{side}") -> np.ndarray:
    """Per game, the rank of the victory level `side` reached minus its opponent's (`ranks`: a
    ruleset's `VictoryLevels.ranks`, none = 0; PanzerBlitz's give -3..3).  `column`: the games
    table's per-side level column (`ResultsSchema.side_level`).

    Finer than win/lose: it tells a decisive defeat from a marginal one, which is what separates
    a good player from a poor one on a card that one seat cannot win (bench/strength.py).
    """
    mine_col, theirs_col = column.replace("{side}", side), column.replace("{side}", opponent)
    mine = games[mine_col].map(ranks)
    theirs = games[theirs_col].map(ranks)
    if mine.isna().any() or theirs.isna().any():
        raise ValueError(f"unknown victory level in {mine_col}/{theirs_col}; expected one of {list(ranks)}")
    return (mine - theirs).to_numpy(dtype=np.int64)


def paired_score_gain(better: np.ndarray, base: np.ndarray, confidence: float = 0.95,
                      resamples: int = 10_000, seed: int = 0) -> dict:
    """Mean of the paired differences `better - base` (same seeds, one pair a game), with an
    interval fit for small whole-number scores that are mostly equal.

    The normal interval mean ± z·s/sqrt(n) is wrong there: 997 zeros and three 3s give
    +0.009 [-0.001, +0.019], reaching below 0 although no game came out worse.  Instead:

    - `lo`, `hi`: the **paired percentile bootstrap** of the mean (`resamples` resamples of the
      games with replacement, each game keeping its pair; fixed `seed`, so reproducible).  It
      never leaves the range of the differences seen, so with no game worse it does not go below 0.
    - `better`, `worse`: the games where the difference is above / below 0; `p_sign`: the exact
      two-sided **sign test** of better against worse (binomial, p = 1/2 on the games that
      differ; 1.0 when none differ).  `p_worse`: its one-sided p-value for "worse more often
      than better", the test of a claim that a player is below the other.

    Returns a dict with mean, lo, hi, better, worse, p_sign, p_worse.
    """
    _check_level(confidence)
    d = np.asarray(better, dtype=np.float64) - np.asarray(base, dtype=np.float64)
    if d.ndim != 1 or len(d) == 0:
        raise ValueError(f"need one or more paired games, got differences of shape {d.shape}")
    if resamples < 1:
        raise ValueError(f"resamples must be >= 1, got {resamples}")
    n = len(d)
    mean = float(d.mean())
    values, counts = np.unique(d, return_counts=True)
    if len(values) == 1:
        lo = hi = mean
    else:
        # Resampling games is resampling the counts of each distinct difference (multinomial):
        # the same distribution as drawing indices, at a fraction of the cost for many games.
        rng = np.random.default_rng(seed)
        draws = rng.multinomial(n, counts / n, size=resamples)
        means = draws @ values / n
        alpha = (1.0 - confidence) / 2.0
        lo, hi = (float(x) for x in np.quantile(means, [alpha, 1.0 - alpha]))
    up, down = int((d > 0).sum()), int((d < 0).sum())
    p_sign = mcnemar_exact(up, down)  # the sign test is McNemar's exact test on the games that differ
    from scipy.stats import binomtest

    p_worse = float(binomtest(down, up + down, 0.5, alternative="greater").pvalue) if up + down else 1.0
    return {"mean": mean, "lo": lo, "hi": hi, "better": up, "worse": down, "p_sign": p_sign, "p_worse": p_worse}


def gain_verdict(gain: dict, alpha: float = 0.05) -> str:
    """Read a `paired_score_gain`: 'better' when the bootstrap interval is above 0 and the sign
    test says better more often than worse (one-sided, at `alpha`); 'worse' when the interval is
    below 0 or the sign test says worse more often (one-sided); else 'cannot tell'."""
    if gain["lo"] > 0 and gain["better"] > gain["worse"] and gain["p_sign"] / 2 < alpha:
        return "better"
    if gain["hi"] < 0 or gain["p_worse"] < alpha:
        return "worse"
    return "cannot tell"
