"""Victory levels in the situation files' words, for every ruleset that uses them.

A side's victory table names levels ("marginal", "tactical", "decisive"; "victory" for a card
with one level) with a threshold each, compared with the side's measure by the table's
`compare` (or the level's own).  The side with the higher level reached wins; equal levels,
none included, are a draw (docs/rulings.md).  What a measure counts is the ruleset's business;
this module only knows the words and the comparison.
"""

from __future__ import annotations

import operator

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
