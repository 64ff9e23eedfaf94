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
from numba.cpython.unsafe.numbers import trailing_zeros
from numba.extending import overload

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
    # `side_cost` / `assault_cost` and `road_side` in one entry a hex side, as the search reads
    # them (`packed_steps`): fewer arrays in its inner loop.
    side_step: np.ndarray = computed("terrain", "int16[n_classes, n_hexes, 6]: side_cost packed with road_side "
                                     "(packed_steps)", default=None)
    assault_step: np.ndarray = computed("terrain", "int16[n_classes, n_hexes, 6]: assault_cost packed with "
                                        "road_side (packed_steps)", default=None)

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
    side = side_costs(mt, game_map.neighbours, sf, assaulting=False)
    assault = side_costs(mt, game_map.neighbours, sf, assaulting=True)
    road_side = ((sf & mt.road_bit) != 0) & ((sf & mt.pond_bit) == 0)
    return replace(mt, side_cost=side, assault_cost=assault, road_side=road_side,
                   least_assault_step=least_assault_steps(mt),
                   side_step=packed_steps(side, road_side, game_map.neighbours),
                   assault_step=packed_steps(assault, road_side, game_map.neighbours))


def packed_steps(side_cost: np.ndarray, road_side: np.ndarray, neighbours: np.ndarray) -> np.ndarray:
    """int16[n_classes, n_hexes, 6]: a hex side's cost off the road rate (`side_cost`;
    `ILLEGAL_STEP` where -1), with `ROAD_STEP` set where a road crosses it onto the map
    (`road_side`): the search's one read per hex side (`reachable_bits`)."""
    if (side_cost >= ILLEGAL_STEP).any():
        raise ValueError("a hex side's cost does not fit the packed step")
    on_map = neighbours >= 0
    cost = np.where((side_cost < 0) | ~on_map, ILLEGAL_STEP, side_cost).astype(np.int16)
    return (cost | np.where(road_side & on_map, ROAD_STEP, 0)[None]).astype(np.int16)


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


# The search's inputs packed (`reachable_bits`).  A hex side's step (MovementTables.side_step,
# assault_step): its cost off the road rate in the low bits, ILLEGAL_STEP where it may not be
# crossed (so large that no budget affords it), ROAD_STEP where a road crosses it.
ILLEGAL_STEP = 0x3FFF
ROAD_STEP = 0x4000
# A hex's flags, one byte (move_view.py keeps them as `st.view_bits`): the movement search's
# (enemy units, a block, road usable, road clear, a swamp road stack the mover may join, a
# minefield or block or an open enemy fort's top where it stops) and the overrun approach's
# (enemy fighting units, a minefield or block).
HEX_ENEMY, HEX_BLOCK, HEX_ROAD_USABLE, HEX_ROAD_CLEAR, HEX_SWAMP_STACK, HEX_STOP_HERE, HEX_ANY_ENEMY, \
    HEX_MINE_OR_BLOCK = 1, 2, 4, 8, 16, 32, 64, 128
# The masks a search is given: a mover's (move_view.reach_of) and an overrun's approach (overrun.py).
MOVE_START_CLOSED, MOVE_CLOSED, MOVE_STOP = HEX_ENEMY, HEX_ENEMY | HEX_BLOCK, HEX_STOP_HERE | HEX_SWAMP_STACK
OVERRUN_START_CLOSED, OVERRUN_CLOSED, OVERRUN_STOP = HEX_ANY_ENEMY, HEX_ANY_ENEMY | HEX_BLOCK, HEX_MINE_OR_BLOCK


@njit(cache=True, inline="always")
def hex_bits(enemy, block, road_usable, road_clear, swamp_stack, stop_here, any_enemy, mine_or_block):
    """One hex's flags as one byte (see HEX_ENEMY)."""
    return np.uint8((HEX_ENEMY if enemy else 0) | (HEX_BLOCK if block else 0) | (HEX_ROAD_USABLE if road_usable else 0)
                    | (HEX_ROAD_CLEAR if road_clear else 0) | (HEX_SWAMP_STACK if swamp_stack else 0)
                    | (HEX_STOP_HERE if stop_here else 0) | (HEX_ANY_ENEMY if any_enemy else 0)
                    | (HEX_MINE_OR_BLOCK if mine_or_block else 0))


def search_scratch(n_hex: int, max_mf_half: int) -> np.ndarray:
    """The scratch `reachable_bits` works in, for a map of n_hex hexes and budgets up to
    max_mf_half (a larger budget makes its own)."""
    return np.zeros(2 * (6 * n_hex + 1) + 2 * (max_mf_half + 1), dtype=np.int32)


def reached_words(n_hex: int) -> np.ndarray:
    """The search's reached hexes as bits (`reachable_bits`' `reached_out`), for a map of n_hex hexes."""
    return np.zeros((n_hex + 63) // 64, dtype=np.uint64)


def lowest_bit(x) -> int:
    """The index of the lowest set bit of x (not 0).  With the JIT off (`balance bench`'s pure
    Python games) this; in a kernel, numba's `trailing_zeros` (its overload below), which
    plain Python cannot call."""
    x = int(x)
    return (x & -x).bit_length() - 1


@overload(lowest_bit)
def _lowest_bit_in_kernels(x):
    return lambda x: trailing_zeros(x)


@njit(cache=True, inline="always")
def next_reached(reached, h):
    """The first hex after h (h = -1: the first hex) that the last search reached, in hex
    order, or -1: a walk over `reachable_bits`' `reached_out`, `h = next_reached(words, h)`."""
    h += 1
    w = h >> 6
    if w >= reached.shape[0]:
        return -1
    x = reached[w] & (~np.uint64(0) << np.uint64(h & 63))
    while x == 0:
        w += 1
        if w >= reached.shape[0]:
            return -1
        x = reached[w]
    return (w << 6) + np.int64(lowest_bit(x))


def reachable(start, mf_half, side_cost, road_side, road_rate, road_cost, swamp_stack_cost, neighbours,
              road_usable, road_clear, swamp_stack, enemy, stop_here, block, cost_out, prev_out, reached_out=None):
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
    Fills cost_out (-1 = unreachable) and prev_out (and `reached_out`, if given: `reached_words`);
    returns the number of hexes reached.

    The arrays are packed here as the game packs them (`packed_steps`, `hex_bits`) and searched
    by `reachable_bits`, which the game calls on the packed flags the movement view keeps
    (move_view.py): the tests' and tools' entry, called from Python."""
    n_hex = neighbours.shape[0]
    bits = np.array([hex_bits(enemy[i], block[i], road_usable[i], road_clear[i], swamp_stack[i], stop_here[i],
                              False, False) for i in range(n_hex)], dtype=np.uint8)
    step = packed_steps(side_cost[None], road_side, neighbours)[0]
    scratch = search_scratch(n_hex, mf_half)
    return reachable_bits(start, mf_half, step, road_rate, road_cost, swamp_stack_cost, neighbours, bits,
                          MOVE_START_CLOSED, MOVE_CLOSED, MOVE_STOP, True, cost_out, prev_out, scratch,
                          reached_words(n_hex) if reached_out is None else reached_out)


@njit(cache=True)
def reachable_bits(start, mf_half, step, road_rate, road_cost, swamp_stack_cost, neighbours, bits, start_closed,
                   closed, stop, one_hex, cost_out, prev_out, scratch, reached_out):
    """`reachable` on packed inputs: `step[h, d]` a hex side's step (`packed_steps`), `bits[x]`
    hex x's flags (HEX_*), read through three masks: `start_closed`, the hexes never entered
    from the start hex (enemy units: it may enter a block); `closed`, from anywhere else
    (enemy units or a block); `stop`, where a unit that entered stops.  `one_hex`: PB-MOVE-4's
    one-hex minimum applies (not in a search bounded below the unit's MF, overrun.py).
    `scratch`: int32 work space (`search_scratch`), never read before written.  Fills cost_out (-1 =
    unreachable) and prev_out, and `reached_out` (`reached_words`: bit h % 64 of word h // 64 set
    where hex h is reached), so that a caller goes through the hexes reached, in hex order, without
    a pass over the map (`next_reached`); returns the number of hexes reached.

    Dial's algorithm: costs are small integers, so buckets (first in, first out) beat a heap.
    The start hex is looked out from first, on its own (PB-MOVE-4's one-hex minimum, the block
    it may enter, the road it may leave though others stand on it), so the step for every other
    hex tests none of that; the buckets are lists of entries in one array sized for the worst
    case, touched only as far as used.  An unreached hex costs -1, compared unsigned (as the
    largest cost), so a step is taken if it is cheaper than what the hex has, and no pass over
    the map is needed after the search.  A hex side's cost, its road and each hex's flags are
    one read each (a dozen arrays in the inner loop were kept on the stack, not in registers:
    docs/performance.md, round 10).  Same costs, paths and order as the plain search
    (docs/performance.md, issue 22 round 8).
    """
    n_hex = neighbours.shape[0]
    for i in range(n_hex):
        cost_out[i] = -1
        prev_out[i] = -1
    for i in range(reached_out.shape[0]):
        reached_out[i] = 0
    cost_out[start] = 0
    reached_out[start >> 6] |= np.uint64(1) << np.uint64(start & 63)
    # Each bucket a first-in-first-out list of entries (entry hex, next entry; head and tail per
    # cost), in `scratch`.  A hex is looked out from once and steps into at most six others, so
    # 6 * n_hex + 1 entries always suffice: no array is ever replaced during the search (a bucket
    # array that could be widened was a loop-carried variable, reference-counted at every hex
    # looked out from: 14 % of a pb-04 game, docs/performance.md round 9).
    n_slots = 6 * n_hex + 1
    if scratch.shape[0] < 2 * n_slots + 2 * (mf_half + 1):
        scratch = np.empty(2 * n_slots + 2 * (mf_half + 1), dtype=np.int32)
    nxt = n_slots              # entry e's hex is scratch[e], its next entry scratch[nxt + e]
    head = 2 * n_slots         # bucket c's first entry scratch[head + c], its last scratch[tail + c]
    tail = head + mf_half + 1
    for c in range(mf_half + 1):
        scratch[head + c] = -1
        scratch[tail + c] = -1
    n_entries = 0
    reached = 1
    # The start hex (PB-MOVE-4: one hex whatever it costs; PB-BLOCK-2: a block may be entered
    # from here; PB-ROAD-5: the road may be left though others stand here).
    h = start
    usable_h = road_rate and (bits[h] & HEX_ROAD_USABLE) != 0
    for d in range(6):
        nb = neighbours[h, d]
        if nb < 0:
            continue
        b = bits[nb]
        if b & start_closed:
            continue
        s = step[h, d]
        nc = s & ILLEGAL_STEP
        if usable_h and (s & ROAD_STEP) and (b & HEX_ROAD_USABLE):
            if b & HEX_ROAD_CLEAR:
                nc = road_cost
            elif b & HEX_SWAMP_STACK:
                nc = swamp_stack_cost
        if nc == ILLEGAL_STEP:
            continue
        if nc > mf_half:
            if one_hex and mf_half >= 2 and cost_out[nb] < 0:
                nc = mf_half  # PB-MOVE-4 one-hex minimum: all of the MF, whatever the hex costs
            else:
                continue
        elif np.uint32(nc) >= np.uint32(cost_out[nb]):
            continue
        if cost_out[nb] < 0:
            reached += 1
            reached_out[nb >> 6] |= np.uint64(1) << np.uint64(nb & 63)
        cost_out[nb] = nc
        prev_out[nb] = h
        scratch[n_entries] = nb
        scratch[nxt + n_entries] = -1
        if scratch[tail + nc] < 0:
            scratch[head + nc] = n_entries
        else:
            scratch[nxt + scratch[tail + nc]] = n_entries
        scratch[tail + nc] = n_entries
        n_entries += 1
    for c in range(mf_half + 1):
        e = scratch[head + c]
        while e >= 0:
            h = scratch[e]
            bh = bits[h]
            # a stale entry (the hex was reached cheaper since), or a hex the unit stops in
            if cost_out[h] == c and (bh & stop) == 0:
                # step_cost's road rate, with what depends on h alone read once
                road_from = road_rate and (bh & (HEX_ROAD_USABLE | HEX_ROAD_CLEAR)) == (HEX_ROAD_USABLE | HEX_ROAD_CLEAR)
                for d in range(6):
                    # off the map: ILLEGAL_STEP and no road, so the neighbour (-1) is never taken
                    nb = neighbours[h, d]
                    s = step[h, d]
                    b = bits[nb]
                    nc = s & ILLEGAL_STEP
                    if road_from and (s & ROAD_STEP) and (b & HEX_ROAD_USABLE):
                        if b & HEX_ROAD_CLEAR:
                            nc = road_cost
                        elif b & HEX_SWAMP_STACK:
                            nc = swamp_stack_cost
                    nc += c
                    # PB-BLOCK-2: a block only from where the unit began its turn
                    if nc > mf_half or (b & closed) or np.uint32(nc) >= np.uint32(cost_out[nb]):
                        continue
                    # The step into nb at cost nc: noted, and nb put at the end of bucket nc.
                    if cost_out[nb] < 0:
                        reached += 1
                        reached_out[nb >> 6] |= np.uint64(1) << np.uint64(nb & 63)
                    cost_out[nb] = nc
                    prev_out[nb] = h
                    scratch[n_entries] = nb
                    scratch[nxt + n_entries] = -1
                    if scratch[tail + nc] < 0:
                        scratch[head + nc] = n_entries
                    else:
                        scratch[nxt + scratch[tail + nc]] = n_entries
                    scratch[tail + nc] = n_entries
                    n_entries += 1
            # the next entry read only now: a step of cost 0 may have appended to this bucket
            e = scratch[nxt + e]
    return reached


def path_to(prev: np.ndarray, target: int) -> list[int]:
    """The hexes from the start to `target` (inclusive) along the least-cost tree."""
    out = [target]
    while prev[out[-1]] >= 0:
        out.append(int(prev[out[-1]]))
    return out[::-1]
