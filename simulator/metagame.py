"""The zero-sum meta-game of a policy population: its mixed equilibrium by linear programming.

The cross-table `A[i, j]` is the mean seat score of the first side's policy i against the second
side's policy j (the first side's victory level minus the second's, so the second side's score is
`-A`).  The first side picks a mixture x over its rows to maximise its guaranteed score,

    max v  subject to  A^T x >= v,  sum x = 1,  x >= 0,

and the second side a mixture y over the columns to minimise it (the dual); by the minimax theorem
both give the game's value.  scipy's `linprog` (HiGHS) solves each; a game with several equilibria
gets one of them (the value is the same for all).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import linprog


@dataclass(frozen=True)
class Equilibrium:
    row: np.ndarray      # the first side's mixture over the rows
    col: np.ndarray      # the second side's mixture over the columns
    value: float         # the first side's mean score when both play their mixtures

    def row_gain(self, table: np.ndarray) -> np.ndarray:
        """What each row scores against the column mixture, minus the value (<= 0 at equilibrium)."""
        return np.asarray(table, dtype=float) @ self.col - self.value

    def col_gain(self, table: np.ndarray) -> np.ndarray:
        """What each column saves the second side against the row mixture (<= 0 at equilibrium)."""
        return self.value - self.row @ np.asarray(table, dtype=float)


def _max_min(a: np.ndarray) -> tuple[np.ndarray, float]:
    """The mixture over the rows of `a` that maximises the worst column, and that worst value."""
    m, n = a.shape
    # Variables (x_1..x_m, v); minimise -v.
    c = np.zeros(m + 1)
    c[-1] = -1.0
    # v - sum_i a_ij x_i <= 0 for every column j
    a_ub = np.hstack([-a.T, np.ones((n, 1))])
    b_ub = np.zeros(n)
    a_eq = np.hstack([np.ones((1, m)), np.zeros((1, 1))])
    bounds = [(0.0, None)] * m + [(None, None)]
    res = linprog(c, A_ub=a_ub, b_ub=b_ub, A_eq=a_eq, b_eq=[1.0], bounds=bounds, method="highs")
    if not res.success:
        raise RuntimeError(f"the meta-game's linear programme failed: {res.message}")
    x = np.clip(res.x[:m], 0.0, None)
    return x / x.sum(), float(res.x[-1])


def solve(table) -> Equilibrium:
    """The mixed equilibrium of the zero-sum game whose first side's payoffs are `table` (rows:
    the first side's policies, columns: the second side's)."""
    a = np.asarray(table, dtype=float)
    if a.ndim != 2 or 0 in a.shape or not np.all(np.isfinite(a)):
        raise ValueError(f"the meta-game needs a finite, non-empty matrix, got shape {a.shape}")
    x, v_row = _max_min(a)
    y, v_col = _max_min(-a.T)   # the second side maximises -A^T
    # Both programmes give the value (minimax theorem); the average hides solver rounding.
    return Equilibrium(x, y, 0.5 * (v_row - v_col))
