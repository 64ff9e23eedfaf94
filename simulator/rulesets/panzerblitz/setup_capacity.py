"""Set-up areas too small for their units, found when a situation is loaded (PB-STACK-1, PB-TEC-1).

Whatever the players choose, a unit can only set up in a hex of its group's area that its
terrain allows (PB-SEQ-1 reading, docs/rulings.md: not a vehicle in a swamp off the road; no
closed hex) and that has room under the stacking limit, counting the units of every other group
of its side that may use the same hex; minefields, blocks and forts each take a hex of their
own.  This is a transportation problem: each (group, unit type) needs room for its units and each
hex offers the stacking limit.  When the maximum flow from the groups to the hexes is less than
what the groups need, some unit cannot be placed in *any* game: the situation is refused, naming
the group, its unit types that lack room, the area and why.

What it leaves to the game: enemy units already in a hex (PB-STACK-7), set-ups tied to another
unit (`with_unit`, `min_distance_from_unit`: their areas here are the static superset), two
vehicles on one swamp road hex.  A unit those leave without a hex is reported as lost at set-up
(game.setup_side, the games table's `lost_at_setup_<side>`), never dropped without a word.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import maximum_flow

from simulator.errors import DataError
from simulator.rulesets.panzerblitz.movement import compile_movement
from simulator.rulesets.panzerblitz.stacking import stack_count, stacking_limit

if TYPE_CHECKING:
    from simulator.rulesets.panzerblitz.situation_schema import PanzerBlitzSituation as Situation

# Counters that take a hex of their own, in these combinations (_setup_ok_at in game.py:
# no two minefields, no two blocks, no fort with a minefield or a block; OQ-25 keeps minefields
# and blocks apart when readings.mine_block_apart is set).
FORT, MINE, BLOCK = "fortification", "minefield", "roadblock"


def _usable(sit: Situation, unit_type: str, hexes: np.ndarray, enter_cost: np.ndarray, classes: tuple,
            closed: np.ndarray, road: np.ndarray, swamp: np.ndarray) -> np.ndarray:
    """The hexes of `hexes` where a counter of `unit_type` may set up, by terrain alone."""
    u = sit.ruleset.units[unit_type]
    ok = ~closed[hexes]
    mc = u.get("movement_class", "none")
    if mc != "none" and mc in classes:
        ok &= (enter_cost[hexes, classes.index(mc)] >= 0) | road[hexes]
    if u.get("category") == FORT:
        ok &= ~swamp[hexes]
    return hexes[ok]


def _max_flow(demands: list[int], options: list[np.ndarray], capacity: int, n_hex: int) -> np.ndarray:
    """Units of each demand that can be given a hex (each hex holds `capacity`): the flow out of
    each demand node of the source -> demands -> hexes -> sink network."""
    k = len(demands)
    if k == 0:
        return np.zeros(0, dtype=np.int64)
    # Nodes: 0 source, 1..k demands, k+1..k+n_hex hexes, k+n_hex+1 sink.
    sink = k + n_hex + 1
    rows, cols, caps = [], [], []
    for i, (d, hexes) in enumerate(zip(demands, options, strict=True)):
        rows.append(0)
        cols.append(1 + i)
        caps.append(d)
        rows += [1 + i] * len(hexes)
        cols += [int(k + 1 + h) for h in hexes]
        caps += [d] * len(hexes)
    used = sorted({int(h) for hexes in options for h in hexes})
    rows += [k + 1 + h for h in used]
    cols += [sink] * len(used)
    caps += [capacity] * len(used)
    graph = csr_matrix((np.array(caps, dtype=np.int32), (rows, cols)), shape=(sink + 1, sink + 1))
    flow = maximum_flow(graph, 0, sink).flow
    return np.array([int(flow[0, 1 + i]) for i in range(k)], dtype=np.int64)


def check_situation(sit: Situation) -> list[DataError]:
    """What loading a PanzerBlitz situation checks beyond the file's schema: set-up capacity,
    and PB-SIT-7's road-march columns (else found only when the first game is prepared)."""
    from simulator.rulesets.panzerblitz.road_march import check_columns
    from simulator.rulesets.panzerblitz.units import compile_units

    errors = check_setup_capacity(sit)
    try:
        movement = compile_movement(sit.ruleset.data, sit.map, str(sit.ruleset.path / "ruleset.toml"))
        check_columns(sit, compile_units(sit.ruleset.data, sit.ruleset.sides, movement.classes,
                                         str(sit.ruleset.path / "ruleset.toml")))
    except DataError as exc:
        errors.append(exc)
    return errors


def check_setup_capacity(sit: Situation) -> list[DataError]:
    """One error per group whose units cannot all be set up in any game."""
    rs = sit.ruleset
    m = sit.map
    where = str(sit.path)
    movement = compile_movement(rs.data, m, str(rs.path / "ruleset.toml"))
    classes = movement.classes
    closed = np.zeros(m.n_hexes, dtype=bool)
    for f in rs.data["map"].get("closed_hex_features", []):
        closed |= m.has_feature(f)
    road = np.zeros(m.n_hexes, dtype=bool)
    if "road" in m.side_vocab:
        road = ((m.side_features & m.side_bit("road")) != 0).any(axis=1)
    swamp = m.has_feature("swamp") if "swamp" in m.hex_vocab else np.zeros(m.n_hexes, dtype=bool)
    apart = rs.data.get("readings", {}).get("mine_block_apart", False) is True
    exclusive = [{FORT, MINE, BLOCK}] if apart else [{FORT, MINE}, {FORT, BLOCK}]
    errors: list[DataError] = []
    for side in sit.sides:
        limit = stacking_limit(rs, side.name)
        # (group index, group, unit type, counters, hexes it may use by terrain)
        nodes = []
        for gi, g in enumerate(side.groups):
            if g.entering or "with_unit" in g.area:
                continue  # entering groups wait their turn; `with_unit` hexes are known only in play
            for unit_type, count in g.units.items():
                nodes.append((gi, g, unit_type, count, _usable(sit, unit_type, g.hexes, movement.enter_cost, classes,
                                                              closed, road, swamp)))
        short: dict[int, list[tuple[str, int, str]]] = {}
        stacked = [(n, n[3] * stack_count(rs, n[2])) for n in nodes if stack_count(rs, n[2]) > 0]
        placed = _max_flow([d for _, d in stacked], [n[4] for n, _ in stacked], limit, m.n_hexes)
        for (n, need), got in zip(stacked, placed, strict=True):
            if got < need:
                per = stack_count(rs, n[2])
                short.setdefault(n[0], []).append((n[2], -(-(need - got) // per), "stacking"))
        for cats in exclusive:
            own = [n for n in nodes if rs.units[n[2]].get("category") in cats]
            placed = _max_flow([n[3] for n in own], [n[4] for n in own], 1, m.n_hexes)
            for n, got in zip(own, placed, strict=True):
                if got < n[3] and not any(t == n[2] for t, _, _ in short.get(n[0], [])):
                    short.setdefault(n[0], []).append((n[2], n[3] - got, "one to a hex"))
        for gi, lacking in sorted(short.items()):
            errors.append(_error(sit, where, side, gi, lacking, nodes, limit))
    return errors


def _error(sit: Situation, where: str, side, gi: int, lacking, nodes, limit: int) -> DataError:
    g = side.groups[gi]
    area = ", ".join(f"{k}={v!r}" for k, v in g.area.items())
    units = ", ".join(f"{k} x{c} ({why})" for k, c, why in lacking)
    usable = {int(h) for n in nodes if n[0] == gi for h in n[4]}
    by_terrain = len(g.hexes) - len(usable)
    sharing = sorted({n[1].name for n in nodes if n[0] != gi and usable & {int(h) for h in n[4]}})
    why = [f"its area {{{area}}} has {len(g.hexes)} hex{'es' if len(g.hexes) != 1 else ''}"]
    if by_terrain:
        why.append(f"{by_terrain} of them closed to its units by terrain (PB-TEC-1)")
    if any(w == "stacking" for _, _, w in lacking):
        why.append(f"room for {limit} {side.name} units a hex (PB-STACK-1)")
    if any(w != "stacking" for _, _, w in lacking):
        why.append("minefields, blocks and forts one to a hex, and no fort with a minefield or block")
    if sharing:
        why.append("shared with group" + ("s " if len(sharing) > 1 else " ") + ", ".join(repr(s) for s in sharing))
    return DataError(where, f"side[{side.name}].group[{gi}].setup",
                     f"group {g.name!r}: no room to set up {units}: " + "; ".join(why),
                     "an area with room for every unit of the groups that set up there")
