"""Everything a PanzerBlitz game kernel reads but never changes, as tuples of arrays.

Built once per situation (and per override set) from the ruleset data, the assembled map and
its line-of-sight table; shared by every game of a run.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simulator.errors import DataError
from simulator.hexgrid import distance_matrix
from simulator.los import LineOfSight, compile_rules
from simulator.rulesets.panzerblitz.combat import CombatTables, compile_tables
from simulator.rulesets.panzerblitz.movement import MovementTables, compile_movement
from simulator.rulesets.panzerblitz.situation_schema import PanzerBlitzSituation as Situation
from simulator.rulesets.panzerblitz.stacking import stacking_limit
from simulator.rulesets.panzerblitz.units import INDIRECT_NEVER, UnitTypes, compile_units
from simulator.soa import struct_of_arrays
from simulator.tablespec import kernel_struct, to_kernel

MapT = struct_of_arrays("MapT", module=__name__, fields=[
    "neighbours", "side_features", "level", "dist", "los", "concealing", "terrain_mod",
    "town", "closed", "brown_bit", "edge_mask", "swamp", "overrun_ok", "swamp_hexes",
    "by_dist", "within", "sight", "sight_start",
])
# The kernels' structs of the movement and combat tables and unit types: made from their
# declarations (movement.py, combat.py, units.py; simulator/tablespec.py) and filled by field name.
MoveT = kernel_struct("MoveT", __name__, MovementTables)
CombatT = kernel_struct("CombatT", __name__, CombatTables)
UnitT = kernel_struct("UnitT", __name__, UnitTypes, extra=("cp_within", "card_indirect"))

# Map edges as bits of edge_mask (north, south, east, west).
EDGE_BITS = {"north": 1, "south": 2, "east": 4, "west": 8}


@dataclass(frozen=True)
class Tables:
    situation: Situation
    units: UnitTypes
    combat: CombatTables
    movement: MovementTables
    map_t: MapT
    move_t: MoveT
    combat_t: CombatT
    unit_t: UnitT
    stack_limit: np.ndarray   # int32[2] per side index
    objective: np.ndarray     # bool[n_hex]: hexes any side's victory conditions name


def build_tables(sit: Situation, los_table: np.ndarray | None = None) -> Tables:
    rs = sit.ruleset
    where = str(rs.path / "ruleset.toml")
    m = sit.map
    combat = compile_tables(rs.data, where)
    movement = compile_movement(rs.data, m, where)
    units = compile_units(rs.data, rs.sides, movement.classes, where)
    if los_table is None:
        # PB-OPT-RSLOS-1: the real-space reading is part of the rules, hence of the cache key.
        los_table = LineOfSight(m, compile_rules(rs.data["los"], m, where, combat.real_space_los,
                                                 combat.band_chains)).table()
    if not np.array_equal(los_table, los_table.T):
        # Kernels read a firer's row for its targets and a target's row for its firers.
        raise DataError(sit.path, "line of sight",
                        "the table is not reciprocal", "LOS from a to b exactly when from b to a (PB-LOS)")
    concealing = m.has_feature("woods") | m.has_feature("town")  # PB-SPOT-1
    terrain_mod = np.zeros(m.n_hexes, dtype=np.int64)
    for f in combat.terrain_mod_features:
        terrain_mod[m.has_feature(f)] = combat.mod_terrain
    closed = np.zeros(m.n_hexes, dtype=np.bool_)
    for f in rs.data["map"].get("closed_hex_features", []):
        closed |= m.has_feature(f)
    # PB-OVR-2: an overrun target hex must be clear terrain (a road, a clear hilltop, a ford or
    # a road crossing a gully count as clear).
    overrun_ok = ~closed.copy()
    for f in ("town", "woods", "swamp", "slope"):
        overrun_ok &= ~m.has_feature(f)
    overrun_ok &= ~movement.depressed
    edge_mask = np.zeros(m.n_hexes, dtype=np.int64)
    for name, bit in EDGE_BITS.items():
        edge_mask[m.edge_hexes(name)] |= bit
    dist = distance_matrix(m.q, m.r)
    map_t = MapT(
        neighbours=m.neighbours.astype(np.int64), side_features=m.side_features.astype(np.int64),
        level=m.elevation.astype(np.int64), dist=dist, los=los_table,
        concealing=concealing, terrain_mod=terrain_mod, town=m.has_feature("town").copy(),
        closed=closed, brown_bit=m.side_bit("brown"), edge_mask=edge_mask,
        swamp=m.has_feature("swamp").copy(), overrun_ok=overrun_ok,
        swamp_hexes=np.flatnonzero(m.has_feature("swamp")).astype(np.int64),
        **_rings(dist), **_sight(dist, los_table),
    )
    move_t = to_kernel(MoveT, movement)
    combat_t = to_kernel(CombatT, combat)
    cp_within, card_indirect = _cp_within(sit, units)
    unit_t = to_kernel(UnitT, units, cp_within=cp_within, card_indirect=card_indirect)
    # Imported here: road_march needs the state module, which needs this one.
    from simulator.rulesets.panzerblitz.road_march import check_columns
    check_columns(sit, units)  # PB-SIT-7
    limits = np.array([stacking_limit(rs, s) for s in rs.sides], dtype=np.int64)
    return Tables(sit, units, combat, movement, map_t, move_t, combat_t, unit_t, limits, _objective_mask(sit))


def _rings(dist: np.ndarray) -> dict:
    """Every hex's hexes by distance: by_dist[h] lists the map's hexes nearest h first (ties in hex
    order), within[h, d] how many of them lie within d hexes of h, so by_dist[h, :within[h, r]] is
    the disc of radius r.  A kernel that spreads something over a weapon's range or a support
    radius walks that disc instead of testing the whole map's distances (docs/performance.md)."""
    n = dist.shape[0]
    by_dist = np.argsort(dist, axis=1, kind="stable").astype(np.int32)
    top = int(dist.max()) if n else 0
    within = np.zeros((n, top + 1), dtype=np.int32)
    for h in range(n):
        within[h] = np.cumsum(np.bincount(dist[h], minlength=top + 1))
    return {"by_dist": by_dist, "within": within}


def _sight(dist: np.ndarray, los: np.ndarray) -> dict:
    """Every hex's hexes in sight: sight[sight_start[h]:sight_start[h + 1]] lists, in hex order,
    h itself, its neighbours and every hex in line of sight of it (PB-LOS; the adjacent hexes
    are always seen, PB-SPOT-1).  About an eighth of the map on the classic boards: a kernel
    spreading fire from a hex walks this instead of testing the whole map's LOS row."""
    seen = (dist <= 1) | (los != 0)
    return {"sight": np.nonzero(seen)[1].astype(np.int32),
            "sight_start": np.concatenate([[0], np.cumsum(seen.sum(axis=1))]).astype(np.int64)}


def _objective_mask(sit: Situation) -> np.ndarray:
    """The hexes any side's victory conditions name: the "objectives held" of the statistics
    count the ones a side occupies.  Made once here, not per game (areas take ~1 ms to resolve)."""
    mask = np.zeros(sit.map.n_hexes, dtype=np.bool_)
    for hexes in sit.objective_hexes().values():
        mask[hexes] = True
    return mask


def _cp_within(sit: Situation, units: UnitTypes) -> tuple[np.ndarray, np.ndarray]:
    """Per unit type, how near its command post must be for it to fire indirectly (0: anywhere),
    and whether the situation itself lets it fire indirectly.  A situation special rule sets
    both: `params = { indirect_fire = true, cp_within = 4, units = [...] }` (PB-SIT-8: a card
    rule, on whatever `readings.indirect_fire` says; without `indirect_fire = true` the limit
    applies only when the optional rule is on)."""
    out = np.zeros(len(units.names), dtype=np.int64)
    card = np.zeros(len(units.names), dtype=np.bool_)
    for i, sr in enumerate(sit.special):
        params = sr.get("params", {})
        if "cp_within" not in params:
            continue
        fld = f"special[{i}].params"
        reach = params["cp_within"]
        if not isinstance(reach, int) or isinstance(reach, bool) or reach < 1:
            raise DataError(sit.path, f"{fld}.cp_within", f"got {reach!r}", "a whole number of hexes >= 1")
        names = params.get("units")
        if not isinstance(names, list) or not names:
            raise DataError(sit.path, f"{fld}.units", f"got {names!r}", "the unit types the limit applies to")
        own_rule = params.get("indirect_fire", False)
        if not isinstance(own_rule, bool):
            raise DataError(sit.path, f"{fld}.indirect_fire", f"got {own_rule!r}", "true or false")
        for name in names:
            if name not in units.names:
                raise DataError(sit.path, f"{fld}.units", f"unknown unit type {name!r}", "a unit type of the ruleset")
            if own_rule and units.indirect[units.index(name)] == INDIRECT_NEVER:
                raise DataError(sit.path, f"{fld}.units", f"{name!r} cannot fire indirectly",
                                "unit types with `optional_indirect_fire` in units.toml")
            out[units.index(name)] = reach
            card[units.index(name)] = own_rule
    return out, card
