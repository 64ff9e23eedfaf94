"""Victory levels in the situation files' words, for every ruleset that uses them.

A side's victory table names levels ("marginal", "tactical", "decisive"; "victory" for a card
with one level) with a threshold each, compared with the side's measure by the table's
`compare` (or the level's own).  The side with the higher level reached wins; equal levels,
none included, are a draw (docs/rulings.md).  What a measure counts is the ruleset's business;
this module only knows the words and the comparison.
"""

from __future__ import annotations

import operator

import numpy as np

LEVEL_RANK = {"marginal": 1, "tactical": 2, "decisive": 3, "victory": 3}
RANK_NAMES = {0: "none", 1: "marginal", 2: "tactical", 3: "decisive"}
COMPARE = {">=": operator.ge, "<=": operator.le, ">": operator.gt, "<": operator.lt, "==": operator.eq}


def level_reached(v: dict, value: float, levels=tuple(LEVEL_RANK)) -> int:
    """The highest rank of the levels of victory table `v` (among `levels`) that `value` reaches:
    a level is a threshold, or { threshold, compare } with its own comparison."""
    default = v.get("compare", ">=")
    rank = 0
    for name in levels:
        if name not in v:
            continue
        spec = v[name]
        threshold, cmp = (spec["threshold"], spec.get("compare", default)) if isinstance(spec, dict) else (spec, default)
        if COMPARE[cmp](value, threshold):
            rank = max(rank, LEVEL_RANK[name])
    return rank


def result_of(ranks: dict[str, int]) -> tuple[str | None, int, int]:
    """(winner, its level read "higher", its level read "difference") from each side's rank.  The
    side with the higher level wins: at that level, or at the difference of the two (tactical
    against marginal: marginal).  Equal levels, none included, are a draw (None, 0, 0)."""
    best = max(ranks.values())
    top = [s for s, r in ranks.items() if r == best]
    if best == 0 or len(top) != 1:
        return None, 0, 0
    second = max([r for s, r in ranks.items() if s != top[0]], default=0)
    return top[0], best, best - second


def alternatives_reached(v: dict, value_of) -> int:
    """The highest rank among the `also` alternatives of victory table `v` (a card's special
    victory rule) whose conditions all hold; `value_of(condition)` is the ruleset's measure."""
    rank = 0
    for alt in v.get("also", []):
        if all(COMPARE[c.get("compare", ">=")](value_of(c), c["threshold"]) for c in alt["all"]):
            rank = max(rank, LEVEL_RANK[alt["level"]])
    return rank


# The same words over arrays: one value (or rank) a game-turn, for a ruleset that scores every
# game-turn's provisional result at once (simulator/rulesets/panzerblitz/victory.standings).

def levels_reached(v: dict, values: np.ndarray, levels=tuple(LEVEL_RANK)) -> np.ndarray:
    """`level_reached` of every entry of `values`: int64 ranks of the same shape."""
    default = v.get("compare", ">=")
    rank = np.zeros(np.shape(values), dtype=np.int64)
    for name in levels:
        if name not in v:
            continue
        spec = v[name]
        threshold, cmp = (spec["threshold"], spec.get("compare", default)) if isinstance(spec, dict) else (spec, default)
        rank = np.where(COMPARE[cmp](values, threshold), np.maximum(rank, LEVEL_RANK[name]), rank)
    return rank


def alternatives_reached_all(v: dict, values_of, shape: tuple[int, ...]) -> np.ndarray:
    """`alternatives_reached` of every game-turn: `values_of(condition)` gives the condition's
    measure as an array of `shape`."""
    rank = np.zeros(shape, dtype=np.int64)
    for alt in v.get("also", []):
        holds = np.ones(shape, dtype=bool)
        for c in alt["all"]:
            holds &= COMPARE[c.get("compare", ">=")](values_of(c), c["threshold"])
        rank = np.where(holds, np.maximum(rank, LEVEL_RANK[alt["level"]]), rank)
    return rank


def results_of(ranks: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`result_of` of every row of `ranks` (int[rows, sides], sides in a fixed order): the
    winner's column (-1: a draw), its level read "higher" and read "difference"."""
    best = ranks.max(axis=1)
    alone = (ranks == best[:, None]).sum(axis=1) == 1
    won = alone & (best > 0)
    second = np.sort(ranks, axis=1)[:, -2] if ranks.shape[1] > 1 else np.zeros(len(ranks), dtype=ranks.dtype)
    winner = np.where(won, ranks.argmax(axis=1), -1)
    higher = np.where(won, best, 0)
    return winner, higher, np.where(won, best - second, 0)
