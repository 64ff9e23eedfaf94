"""Victory of a converted classic card under the v2.0 rules (docs/panzerblitz-v2/conversion.md#victory).

A Hill of Death card is won by PB2 3.2 (one side's hexes_controlled against prevent_enemy), which
the kernel decides.  A classic card keeps its own measures — units destroyed (with weights), units
in an area, a ratio of two measures, the furthest advance toward an edge — and its marginal /
tactical / decisive levels; they are computed here on the final state.  The side with the higher
level wins at that level; equal levels, none included, are a draw (the classic reading,
simulator/rulesets/panzerblitz/victory.py, docs/rulings.md; the level words and their comparison
are the core's, simulator/victory_levels.py).  A v2 counter is "destroyed" when its last step is lost
(PB2 2.3.1): a reduced counter is not a destroyed unit.  A card's special alternatives (`also`, e.g.
PB-SIT-10) count when all their conditions hold; `entered` counts the units that ever stood in an area.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simulator.corridors import edges_joined, widened
from simulator.rulesets.panzerblitz_v2.schema import LEVEL_KEYS, PBV2Situation
from simulator.rulesets.panzerblitz_v2.state import EXITED
from simulator.victory_levels import (
    LEVEL_RANK,
    RANK_NAMES,
    alternatives_reached,
    level_reached,
    result_of,
)


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
    # The units that ever stood in each hex up to this turn (bool[n_units, n_hexes]; passengers
    # where their carrier went), for the `entered` measure; None when the card has none.
    visited: np.ndarray | None = None
    # The situation's line-of-sight table (int8[n_hexes, n_hexes], read only) for the corridor and
    # line-of-fire measures (pb-03, pb-11).
    los: np.ndarray | None = None
    # PB-SIT-5 (`round_trip`, exits.py): the units whose trip was done by this turn (out, off, back
    # and out by the final edge), and the turn each last left the map (0: never), for return_leg = false.
    trip_done: np.ndarray | None = None
    exit_turn: np.ndarray | None = None
    turn: int = 0


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
    if kind in ("exited", "not_exited"):
        # units that left the map (the engine lets them leave only by the edge the card counts)
        out = fs.hex == EXITED
        return _weighted(m, fs, mask & (out if kind == "exited" else ~out))
    if kind == "round_trip":
        if m.get("return_leg", True):
            return _weighted(m, fs, mask & fs.trip_done)
        # the reading without the return leg: out by the edge and off the turns the card asks
        out = (fs.hex == EXITED) & (fs.exit_turn > 0) & (fs.turn - fs.exit_turn >= m.get("stay_off_turns", 0))
        return _weighted(m, fs, mask & out)
    if kind == "entered":
        area = sit.areas[repr(sorted(m["area"].items()))]
        return _weighted(m, fs, mask & fs.visited[:, area].any(axis=1))
    on = mask & (fs.hex >= 0) & (fs.steps > 0)
    if kind == "in_area":
        area = sit.areas[repr(sorted(m["area"].items()))]
        return _weighted(m, fs, on & np.isin(fs.hex, area))
    if kind in ("open_corridor", "line_of_fire"):
        # As the classic measures (simulator/rulesets/panzerblitz/victory.py): hexes the side's
        # units occupy or see (v2 line of sight, PB2 5.x) block a corridor / make a line of fire.
        covered = np.zeros(sit.map.n_hexes, dtype=bool)
        covered[fs.hex[on]] = True
        if on.any():
            covered |= fs.los[np.unique(fs.hex[on])].any(axis=0).astype(bool)
        if kind == "line_of_fire":
            return float(edges_joined(sit.map, sit.map.neighbours, covered, m["between"]))
        wide = widened(~covered, sit.map.neighbours, m["width"])
        return float(edges_joined(sit.map, sit.map.neighbours, wide, m["between"]))
    if kind == "furthest_advance":
        if not on.any():
            return 0.0
        gm = sit.map
        col, row = gm.col[fs.hex[on]], gm.row[fs.hex[on]]
        far = {"east": col + 1, "west": gm.width - col, "south": row + 1, "north": gm.height - row}[m["toward"]]
        return float(far.max())
    raise ValueError(f"unknown measure {kind!r}")


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
            me = names.index(s.name)
            value = measure_value(v, sit, fs, me)
            rank = max(level_reached(v, value, LEVEL_KEYS),
                       alternatives_reached(v, lambda c, me=me: measure_value(c, sit, fs, me)))
        values[s.name], ranks[s.name] = value, rank
    winner, best, _ = result_of(ranks)
    if winner is None:
        return Outcome({s: RANK_NAMES[r] for s, r in ranks.items()}, values, "draw", "none")
    return Outcome({s: RANK_NAMES[r] for s, r in ranks.items()}, values, winner, RANK_NAMES[best])
