"""PanzerBlitz movement: where one unit can go this turn, and at what cost (PB-MOVE, PB-TEC, PB-ROAD).

Costs are kept in half movement factors (road and town cost 1/2).  The static part (what each
hex side costs each movement class to cross, off the road rate) is compiled once per map from
`terrain.toml`; the dynamic part (enemy units, wrecks and blocks, minefields, other units on the
road) comes in as per-hex flags from the game state, so the search itself is one compiled
function whose step reads one table entry and a few flags.

This module is the bottom of the movement rules: no game state, no players.  The loader
(tables.py, set-up capacity), overrun's approach search (overrun.py) and the floor estimate
read it, so it imports none of them.  Moving a unit in S4/S5 (entering, leaving, stacking at the
end of the move, overrunning instead, setting a passenger down) is `movement_phase.py`, which
sits above overrun.py and transport.py and so cannot be this module without an import cycle;
what the search reads of the live board, kept move by move, is `move_view.py` (with `reach_of`,
the search for one mover); Situation 7's road-march columns are `road_march.py`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from simulator.errors import DataError
from simulator.jit import njit
from simulator.mapdata import GameMap
from simulator.tablespec import computed, read_entries, switch

PROHIBITED = -1
UNREACHABLE = -1


@dataclass(frozen=True)
class MovementTables:
    """The movement tables, checked: every field declared once with its source in the ruleset data
    (simulator/tablespec.py); the kernels' MoveT (tables.py) is made from the declarations and
    filled by name.  Costs in half MF; `PROHIBITED` (-1) where a class may not enter or cross."""

    classes: tuple[str, ...] = computed("terrain.movement_classes", "the movement classes, in cost-column order",
                                        kernel=False)
    enter_cost: np.ndarray = computed("terrain.enter_cost", "PB-TEC-12: int16[n_hexes, n_classes], entering the "
                                      "hex, the highest of its features' costs", kernel_dtype=np.int64)
    town_hex: np.ndarray = computed("map", "bool[n_hexes]: a town hex (PB-TEC-4)")
    depressed: np.ndarray = computed("map", "bool[n_hexes]: a gully hex one pays to leave (not a ford or road "
                                     "crossing, PB-TEC-9)")
    leave_surcharge: np.ndarray = computed("terrain.rules.gully_leave_surcharge", "PB-TEC-9: int16[n_classes], "
                                           "leaving a gully other than along it", kernel_dtype=np.int64)
    green_closed: np.ndarray = computed("terrain.rules.green_closed_to", "PB-TEC-5: bool[n_classes], crosses "
                                        "green hexsides only along a road")
    road_cost: int = computed("terrain.rules.road_cost", "PB-ROAD-1: a hex at the road rate")
    town_cost_assaulting: int = computed("terrain.rules.town_cost_when_assaulting",
                                         "PB-TEC-4: a town hex in a turn of overrun or close assault")
    road_bit: int = computed("map", "the hexside feature bit of a road")
    green_bit: int = computed("map", "the hexside feature bit of a green hexside")
    pond_bit: int = computed("map", "the hexside feature bit of a pond (PB-TEC-11)")
    along_gully_bits: int = computed("map", "hexside feature bits along which a gully continues (stream, ford)")
    gully_whole: bool = switch("readings.gully_leave", ("added", "whole"), "added",
                               "OQ-9: the gully surcharge is the whole cost of leaving, not added to it", on="whole")
    clear_cost: np.ndarray = computed("terrain.enter_cost.clear", "int64[n_classes]: a clear hex (PB-OVR-10's "
                                      "off-map hex)", default=None)
    swamp_stack_cost: int = computed("terrain.rules.swamp_road_stack_cost", "PB-ROAD-10.3: joining foot units "
                                     "on a swamp/road hex", default=2)
    # What crossing each hex side costs each class off the road rate (`side_costs`), in an
    # ordinary turn and in a turn of overrun or close assault; and the hex sides a road crosses
    # (no pond), along which the road rate may apply.
    side_cost: np.ndarray = computed("terrain", "int16[n_classes, n_hexes, 6]: crossing a hexside, -1 illegal",
                                     default=None)
    assault_cost: np.ndarray = computed("terrain", "int16[n_classes, n_hexes, 6]: the same in a turn of overrun "
                                        "or close assault", default=None)
    road_side: np.ndarray = computed("map", "bool[n_hexes, 6]: a road crosses the hexside (PB-ROAD-1)",
                                     default=None)
    # PB-OVR-3: an overrun's approach pays no road rate and 1 MF a town hex, so no step of it
    # costs a class less than this: `movement_phase` skips the overrun search of a mover with no
    # enemy within budget // least + 1 hexes.
    least_assault_step: np.ndarray = computed("terrain", "int64[n_classes]: the least a step costs a class in a "
                                              "turn of overrun (its cheapest hex entry, a town hex's cost when "
                                              "assaulting)", default=None)

    def class_index(self, name: str) -> int:
        return self.classes.index(name)


def _half(value, where: str, fld: str) -> int:
    if value == "prohibited":
        return PROHIBITED
    if not isinstance(value, int | float) or isinstance(value, bool) or value < 0 or (value * 2) != int(value * 2):
        raise DataError(where, fld, f"got {value!r}", "a cost in whole or half movement factors, or \"prohibited\"")
    return int(value * 2)


def compile_movement(data: dict, game_map: GameMap, where: str) -> MovementTables:
    t = data.get("terrain")
    if not isinstance(t, dict):
        raise DataError(where, "terrain", "missing", "a [terrain] table (terrain.toml)")
    classes = tuple(t["movement_classes"])
    costs = t["enter_cost"]
    rules = t["rules"]
    n = game_map.n_hexes
    for feat in costs:
        if feat != "clear" and feat not in game_map.hex_vocab:
            raise DataError(where, f"terrain.enter_cost.{feat}", "unknown hex feature", f"clear or one of {list(game_map.hex_vocab)}")

    def class_costs(feat: str) -> np.ndarray:
        row = costs[feat]
        out = np.empty(len(classes), dtype=np.int16)
        for i, c in enumerate(classes):
            if c not in row:
                raise DataError(where, f"terrain.enter_cost.{feat}.{c}", "missing", "a cost for every movement class")
            out[i] = _half(row[c], where, f"terrain.enter_cost.{feat}.{c}")
        return out

    clear = class_costs("clear")
    enter = np.tile(clear, (n, 1))
    precedence = rules.get("precedence", [])
    for feat in costs:
        if feat == "clear" or feat in precedence:
            continue
        has = game_map.has_feature(feat)
        fc = class_costs(feat)
        for ci in range(len(classes)):
            col = enter[has, ci]
            # PB-TEC-12: the highest cost applies and every prohibition applies.
            col = np.where((col == PROHIBITED) | (fc[ci] == PROHIBITED), PROHIBITED, np.maximum(col, fc[ci]))
            enter[has, ci] = col
    for feat in precedence:
        has = game_map.has_feature(feat)
        enter[has] = class_costs(feat)
    gully = game_map.has_feature("gully") & ~game_map.has_feature("ford") & ~game_map.has_feature("road")
    surcharge = rules["gully_leave_surcharge"]
    leave = np.array([_half(surcharge[c], where, f"terrain.rules.gully_leave_surcharge.{c}") for c in classes], dtype=np.int16)
    for c in rules.get("green_closed_to", []):
        if c not in classes:
            raise DataError(where, "terrain.rules.green_closed_to", f"unknown class {c!r}", f"one of {list(classes)}")
    green_closed = np.array([c in rules.get("green_closed_to", []) for c in classes], dtype=np.bool_)
    mt = MovementTables(
        classes=classes, enter_cost=enter, town_hex=game_map.has_feature("town").copy(), depressed=gully,
        leave_surcharge=leave, green_closed=green_closed,
        road_cost=_half(rules["road_cost"], where, "terrain.rules.road_cost"),
        town_cost_assaulting=_half(rules["town_cost_when_assaulting"], where, "terrain.rules.town_cost_when_assaulting"),
        road_bit=game_map.side_bit("road"), green_bit=game_map.side_bit("green"),
        pond_bit=game_map.side_bit("pond"),
        along_gully_bits=game_map.side_bit("stream") | game_map.side_bit("ford"),
        **read_entries(MovementTables, data, where),
        clear_cost=clear.astype(np.int64),
        swamp_stack_cost=_half(_required(rules, "swamp_road_stack_cost", where), where,
                               "terrain.rules.swamp_road_stack_cost"),
    )
    sf = game_map.side_features
    return replace(mt, side_cost=side_costs(mt, game_map.neighbours, sf, assaulting=False),
                   assault_cost=side_costs(mt, game_map.neighbours, sf, assaulting=True),
                   road_side=((sf & mt.road_bit) != 0) & ((sf & mt.pond_bit) == 0),
                   least_assault_step=least_assault_steps(mt))


def least_assault_steps(mt: MovementTables) -> np.ndarray:
    """int64[n_classes]: the least an overrun's approach step can cost each class (PB-OVR-3: no
    road rate; PB-TEC-4: a town hex at its assaulting cost): the cheapest hex it may enter, or
    the town cost if that is less.  A lower bound (gully surcharges only add), for skipping the
    overrun search when no enemy is near."""
    out = np.empty(len(mt.classes), dtype=np.int64)
    for c in range(len(mt.classes)):
        col = mt.enter_cost[:, c]
        allowed = col[col >= 0]
        out[c] = min(int(mt.town_cost_assaulting), int(allowed.min())) if allowed.size else mt.town_cost_assaulting
    return out


def side_costs(mt: MovementTables, neighbours: np.ndarray, side_features: np.ndarray, assaulting: bool) -> np.ndarray:
    """int16[n_classes, n_hexes, 6]: what stepping from hex h across its side d into the
    neighbour there costs each movement class (half MF; -1: illegal or off the map), at
    anything but the road rate.  `assaulting`: in a turn the unit overruns or close-assaults."""
    n = np.where(neighbours >= 0, neighbours, 0)
    on_map = neighbours >= 0
    pond = (side_features & mt.pond_bit) != 0
    green = (side_features & mt.green_bit) != 0
    along_gully = (side_features & mt.along_gully_bits) != 0
    out = np.empty((len(mt.classes), *neighbours.shape), dtype=np.int16)
    for c in range(len(mt.classes)):
        leave = int(mt.leave_surcharge[c])
        cost = mt.enter_cost[n, c].astype(np.int64)
        illegal = ~on_map | pond | (cost < 0)                     # PB-TEC-11: no unit crosses a pond hexside
        # PB-MAP-1/2 (QA/Mapboard A-B): a unit standing where it could go only by road (a
        # vehicle on a swamp road) leaves only along the road.
        illegal |= (mt.enter_cost[:, c] < 0)[:, None]
        if mt.green_closed[c]:
            illegal |= green                                      # PB-TEC-5: vehicles cross green hexsides only along a road
        if assaulting:
            cost = np.where(mt.town_hex[n], mt.town_cost_assaulting, cost)  # PB-TEC-4: 1 MF a town hex
        # PB-TEC-9: leaving a gully other than along it costs a surcharge on top.
        if leave > 0:
            gully = mt.depressed[:, None] & ~along_gully
            cost = np.where(gully, np.maximum(cost, leave) if mt.gully_whole else cost + leave, cost)  # OQ-9
        out[c] = np.where(illegal, -1, cost)
    return out


def _required(rules: dict, key: str, where: str):
    if key not in rules:
        raise DataError(where, f"terrain.rules.{key}", "missing", "a cost in movement factors")
    return rules[key]


@njit(cache=True, inline="always")
def step_cost(along_road, usable_from, usable_into, clear_from, clear_into, swamp_into, road_cost, swamp_stack_cost,
              terrain):
    """Cost in half MF of one step, from what the search knows of it: `terrain`, the side's
    cost off the road rate (`side_cost`, -1 if illegal), and the road it may follow instead.

    PB-ROAD-1: along the road (`along_road`: a road hexside, and the road rate is allowed this
    turn: not in a turn the unit overruns or assaults, PB-OVR-3), road hex to road hex, at the
    road rate.  PB-ROAD-5/6/7/11: both hexes' roads usable (no wreck or block), the hex entered
    free of other units and wrecks (`clear_into`), and so the hex left unless it is where the
    unit began its turn (`clear_from`).  PB-ROAD-10.3/4: onto the foot units on a swamp road
    (`swamp_into`: see `reachable`), 1 MF, along the road but not at the road rate.

    Scalars only, and inlined: the search calls it for every hex side it looks across, where a
    call that took the map's arrays cost ten times the arithmetic (reference counting of every
    array argument; docs/performance.md)."""
    if along_road and usable_from and usable_into and clear_from:
        if clear_into:
            return road_cost
        if swamp_into:
            return swamp_stack_cost
    return terrain


@njit(cache=True)
def reachable(start, mf_half, side_cost, road_side, road_rate, road_cost, swamp_stack_cost, neighbours,
              road_usable, road_clear, swamp_stack, enemy, stop_here, block, cost_out, prev_out):
    """Every hex one unit can reach this turn, with the least cost (half MF) and the path.

    `side_cost[h, d]`: what crossing side d of hex h costs the unit's class off the road rate
    (`MovementTables.side_cost`, or `assault_cost` in a turn it overruns or assaults); the road
    rate applies along `road_side` when `road_rate` (see `step_cost`).  `road_usable[x]`: hex
    x's road is not negated (no wreck or block, PB-ROAD-11).  `road_clear[x]`: no other unit or
    wreck in hex x, so the road rate may pass it (PB-ROAD-5).  `swamp_stack[x]`: x is a
    swamp/road hex this mover (a vehicle) may join its side's foot units on, along the road,
    for `swamp_stack_cost`, and stop there (PB-ROAD-10.3/4).  `enemy[x]`: enemy units in x:
    never entered (PB-MOVE-6).  `stop_here[x]`: a minefield (PB-MINE-3) or a block
    (PB-BLOCK-2): the unit stops on entering.  `block[x]`: a block: it may be entered only by
    a unit that began its turn adjacent to it.  PB-MOVE-4: a unit may always move exactly one
    hex, whatever it costs, unless that hex or hexside is forbidden.
    Fills cost_out (-1 = unreachable) and prev_out; returns the number of hexes reached.

    Dial's algorithm: costs are small integers, so buckets (first in, first out) beat a heap.
    The start hex is looked out from first, on its own (PB-MOVE-4's one-hex minimum, the block
    it may enter, the road it may leave though others stand on it), so the step for every other
    hex tests none of that; the buckets are lists of entries in one array sized for the worst
    case, touched only as far as used (a bucket as wide as the map touched 100 KB a search).
    While searching, an unreached hex costs `_FAR`, so a
    step is taken if it is cheaper than what the hex has.  Same costs, paths and order as the
    plain search (docs/performance.md, issue 22 round 8).
    """
    n_hex = neighbours.shape[0]
    far = _FAR
    for i in range(n_hex):
        cost_out[i] = far
        prev_out[i] = -1
    cost_out[start] = 0
    # Each bucket a first-in-first-out list of entries (entry_hex, entry_next; head and tail per
    # cost).  A hex is looked out from once and steps into at most six others, so 6 * n_hex + 1
    # entries always suffice: no array is ever replaced during the search (a bucket array that
    # could be widened was a loop-carried variable, reference-counted at every hex looked out
    # from: 14 % of a pb-04 game, docs/performance.md round 9).
    entry_hex = np.empty(6 * n_hex + 1, dtype=np.int32)
    entry_next = np.empty(6 * n_hex + 1, dtype=np.int32)
    head = np.full(mf_half + 1, -1, dtype=np.int32)
    tail = np.full(mf_half + 1, -1, dtype=np.int32)
    entry_hex[0] = start
    entry_next[0] = -1
    head[0] = 0
    tail[0] = 0
    n_entries = 1
    for c in range(mf_half + 1):
        e = -1
        while True:
            # the next entry read only now: a step of cost 0 may have appended to this bucket
            e = head[c] if e < 0 else entry_next[e]
            if e < 0:
                break
            h = entry_hex[e]
            if cost_out[h] != c:
                continue  # stale entry
            if h == start:
                usable_h = road_usable[h]
                for d in range(6):
                    nb = neighbours[h, d]
                    if nb < 0 or enemy[nb]:
                        continue  # PB-BLOCK-2: a block may be entered from here
                    step = step_cost(road_rate and road_side[h, d], usable_h, road_usable[nb], True,
                                     road_clear[nb], swamp_stack[nb], road_cost, swamp_stack_cost, side_cost[h, d])
                    if step < 0:
                        continue
                    nc = c + step
                    if nc > mf_half:
                        if mf_half >= 2 and cost_out[nb] == far:
                            nc = mf_half  # PB-MOVE-4 one-hex minimum: all of the MF, whatever the hex costs
                        else:
                            continue
                    elif nc >= cost_out[nb]:
                        continue
                    # (the step into nb, as below)
                    cost_out[nb] = nc
                    prev_out[nb] = h
                    entry_hex[n_entries] = nb
                    entry_next[n_entries] = -1
                    if tail[nc] < 0:
                        head[nc] = n_entries
                    else:
                        entry_next[tail[nc]] = n_entries
                    tail[nc] = n_entries
                    n_entries += 1
                continue
            if stop_here[h] or swamp_stack[h]:
                continue  # a unit that entered a minefield, a block or a swamp road stack stops there
            # step_cost's road rate, with what depends on h alone read once
            road_from = road_rate and road_usable[h] and road_clear[h]
            for d in range(6):
                nb = neighbours[h, d]
                if nb < 0:
                    continue
                step = side_cost[h, d]
                if road_from and road_side[h, d] and road_usable[nb]:
                    if road_clear[nb]:
                        step = road_cost
                    elif swamp_stack[nb]:
                        step = swamp_stack_cost
                if step < 0 or enemy[nb] or block[nb]:
                    continue  # PB-BLOCK-2: a block only from where the unit began its turn
                nc = c + step
                if nc > mf_half or nc >= cost_out[nb]:
                    continue
                # The step into nb at cost nc: noted, and nb put at the end of bucket nc.
                cost_out[nb] = nc
                prev_out[nb] = h
                entry_hex[n_entries] = nb
                entry_next[n_entries] = -1
                if tail[nc] < 0:
                    head[nc] = n_entries
                else:
                    entry_next[tail[nc]] = n_entries
                tail[nc] = n_entries
                n_entries += 1
    reached = 0
    for i in range(n_hex):
        if cost_out[i] == far:
            cost_out[i] = -1
        else:
            reached += 1
    return reached


_FAR = np.int32(0x7FFFFFFF)  # an unreached hex's cost during the search (`reachable`)


def path_to(prev: np.ndarray, target: int) -> list[int]:
    """The hexes from the start to `target` (inclusive) along the least-cost tree."""
    out = [target]
    while prev[out[-1]] >= 0:
        out.append(int(prev[out[-1]]))
    return out[::-1]
