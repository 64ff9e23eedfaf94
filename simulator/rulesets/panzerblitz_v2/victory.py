"""Victory of a converted classic card under the v2.0 rules (docs/panzerblitz-v2/conversion.md#victory).

A Hill of Death card is won by PB2 3.2 (one side's hexes_controlled against prevent_enemy), which
the kernel decides.  A classic card keeps its own measures — units destroyed (with weights), units
in an area, a ratio of two measures, the furthest advance toward an edge — and its marginal /
tactical / decisive levels; they are computed here on the final state.  The side with the higher
level wins at that level; equal levels, none included, are a draw (the classic reading,
simulator/rulesets/panzerblitz/victory.py, docs/rulings.md).  A v2 counter is "destroyed" when its
last step is lost (PB2 2.3.1): a reduced counter is not a destroyed unit.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass

import numpy as np

from simulator.rulesets.panzerblitz_v2.schema import LEVEL_KEYS, PBV2Situation

LEVEL_RANK = {"marginal": 1, "tactical": 2, "decisive": 3, "victory": 3}
RANK_NAMES = {0: "none", 1: "marginal", 2: "tactical", 3: "decisive"}
COMPARE = {">=": operator.ge, "<=": operator.le, ">": operator.gt, "<": operator.lt, "==": operator.eq}


@dataclass(frozen=True)
class Outcome:
    levels: dict[str, str]     # side -> level reached ("none", "marginal", ...)
    values: dict[str, float]   # side -> its measure's value
    winner: str                # a side, or "draw"
    level: str                 # the winner's level, or "none"


@dataclass(frozen=True)
class FinalState:
    """What the measures read of a finished game: each counter's hex (-1 not entered, -2 eliminated,
    -3 off board), steps, side index, type id and group name."""

    hex: np.ndarray
    steps: np.ndarray
    side: np.ndarray
    type_id: list[str]
    group: list[str]


def _mask(m: dict, fs: FinalState, side: int) -> np.ndarray:
    mask = fs.side == side
    if m.get("units"):
        mask &= np.isin(np.array(fs.type_id), m["units"])
    if m.get("group"):
        mask &= np.array([g == m["group"] for g in fs.group], dtype=bool)
    return mask


def _weighted(m: dict, fs: FinalState, mask: np.ndarray) -> float:
    w = np.array([float(m.get("weights", {}).get(t, 1.0)) for t in fs.type_id])
    return float(w[mask].sum())


def measure_value(m: dict, sit: PBV2Situation, fs: FinalState, me: int) -> float:
    kind = m["measure"]
    if kind == "ratio":
        num = measure_value(m["numerator"], sit, fs, me)
        den = measure_value(m["denominator"], sit, fs, me)
        if den == 0:
            return float("inf") if num > 0 else 1.0   # 0 to 0 is "as many" (docs/rulings.md)
        return num / den
    whose = me if m.get("whose", "own") == "own" else 1 - me
    mask = _mask(m, fs, whose)
    if kind == "destroyed":
        return _weighted(m, fs, mask & (fs.steps == 0))
    on = mask & (fs.hex >= 0) & (fs.steps > 0)
    if kind == "in_area":
        area = sit.areas[repr(sorted(m["area"].items()))]
        return _weighted(m, fs, on & np.isin(fs.hex, area))
    if kind == "furthest_advance":
        if not on.any():
            return 0.0
        gm = sit.map
        col, row = gm.col[fs.hex[on]], gm.row[fs.hex[on]]
        far = {"east": col + 1, "west": gm.width - col, "south": row + 1, "north": gm.height - row}[m["toward"]]
        return float(far.max())
    raise ValueError(f"unknown measure {kind!r}")


def level_reached(v: dict, value: float) -> int:
    default = v.get("compare", ">=")
    rank = 0
    for name in LEVEL_KEYS:
        if name not in v:
            continue
        spec = v[name]
        threshold, cmp = (spec["threshold"], spec.get("compare", default)) if isinstance(spec, dict) else (spec, default)
        if COMPARE[cmp](value, threshold):
            rank = max(rank, LEVEL_RANK[name])
    return rank


def evaluate(sit: PBV2Situation, fs: FinalState) -> Outcome:
    names = sit.side_names
    ranks: dict[str, int] = {}
    values: dict[str, float] = {}
    # prevent_enemy depends on the other side's level: the others first.
    for s in sorted(sit.sides, key=lambda s: s.victory.get("measure") == "prevent_enemy"):
        v = s.victory
        if v.get("measure") == "prevent_enemy":
            value = float(all(r == 0 for x, r in ranks.items() if x != s.name))
            rank = LEVEL_RANK["victory"] if value >= float(v.get("victory", 1)) else 0
        else:
            value = measure_value(v, sit, fs, names.index(s.name))
            rank = level_reached(v, value)
        values[s.name], ranks[s.name] = value, rank
    best = max(ranks.values())
    top = [s for s, r in ranks.items() if r == best]
    if best == 0 or len(top) != 1:
        return Outcome({s: RANK_NAMES[r] for s, r in ranks.items()}, values, "draw", "none")
    return Outcome({s: RANK_NAMES[r] for s, r in ranks.items()}, values, top[0], RANK_NAMES[best])
