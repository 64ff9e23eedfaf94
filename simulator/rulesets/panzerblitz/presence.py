"""Who stands where: pieces and their stacking load (PB-STACK), placing a counter and settling it
on a fort, passing through hexes and moving toward the enemy (PB-VIC-5/6: `pass_through`,
`note_advance`), leaving the map and coming back (PB-MOVE-10, PB-SIT-5), the nearest enemy, and
what a moving unit meets in each hex.
"""

from __future__ import annotations

import numpy as np

from simulator.jit import njit
from simulator.rulesets.panzerblitz.events import EV_EXIT, log_event
from simulator.rulesets.panzerblitz.state import EXITED, ON_MAP, TURN
from simulator.rulesets.panzerblitz.units import CATEGORY_INDEX

ROADBLOCK = CATEGORY_INDEX["roadblock"]


@njit(cache=True, inline="always")
def is_piece(st, ut, u):
    """A unit on the map that is a fighting unit (not a fort, block or minefield) and not aboard."""
    return st.status[u] == ON_MAP and not ut.positional[st.utype[u]] and st.carried_by[u] < 0


@njit(cache=True)
def block_count(ut):
    """What a block counts against the stacking limit (PB-STACK-3; the roadblock type's count)."""
    for t in range(ut.category.shape[0]):
        if ut.category[t] == ROADBLOCK:
            return ut.stack_count[t]
    return 1


@njit(cache=True)
def side_load(st, ut, h, side):
    """Units of `side` in hex h against the stacking limit, wrecks included (PB-STACK-2/3/5)."""
    load = st.wrecks[h, 0] + st.wrecks[h, 1]
    counter = False
    # the arrays read out of the structs once, not at every unit (docs/performance.md, round 9)
    status, unit_hex, utype, carried_by, unit_side = st.status, st.hex, st.utype, st.carried_by, st.side
    category, positional, stack_count = ut.category, ut.positional, ut.stack_count
    for u in range(utype.shape[0]):
        if status[u] == ON_MAP and unit_hex[u] == h:
            if category[utype[u]] == ROADBLOCK:
                counter = True
            if carried_by[u] < 0 and (unit_side[u] == side or positional[utype[u]]):
                load += stack_count[utype[u]]  # a block counts against either side, like a wreck
    if st.block[h] and not counter:
        load += block_count(ut)  # PB-BLOCK-4/6: the block a destroyed fort left has no counter
    return load


@njit(cache=True)
def mark_passed(st, h, side):
    """A unit of `side` occupied or passed through hex h: it controls it until another side's
    unit does (PB-VIC-5), and the side has entered it (the `entered` measure, PB-SIT-10)."""
    st.control[h] = side
    st.visited[h] |= 1 << side


@njit(cache=True)
def nearest_enemy(st, ut, mt, side, h):
    """Hexes from h to the nearest enemy fighting unit on the map (a huge number if none)."""
    d = 1 << 30
    hexes, sides, dist = st.hex, st.side, mt.dist  # taken once (see fort_in)
    status, utype, carried_by, positional = st.status, st.utype, st.carried_by, ut.positional
    for v in range(hexes.shape[0]):
        # is_piece, on the arrays taken once
        if sides[v] != side and status[v] == ON_MAP and not positional[utype[v]] and carried_by[v] < 0 \
                and dist[h, hexes[v]] < d:
            d = dist[h, hexes[v]]
    return d


@njit(cache=True)
def occupancy(st, ut, n_hex):
    """Per hex and side: fighting units present (positional counters and passengers excluded)."""
    occ = np.zeros((n_hex, 2), dtype=np.int64)
    # is_piece from arrays taken out of the state once (see fort_in).
    status, utype, carried_by, positional, hexes, sides = st.status, st.utype, st.carried_by, ut.positional, st.hex, st.side
    for u in range(utype.shape[0]):
        if status[u] == ON_MAP and not positional[utype[u]] and carried_by[u] < 0:
            occ[hexes[u], sides[u]] += 1
    return occ


@njit(cache=True, inline="always")
def hex_move_flags(enemy_units, other_own_units, wrecked, block, mine, enemy_fort_open):
    """The movement search's flags of one hex (PB-MOVE-6, PB-ROAD-5/11, PB-MINE-3, PB-BLOCK-2,
    PB-FORT-12): (enemy: never entered, road_usable, road_clear, stop_here).  `enemy_units`: the
    enemy's fighting units there; `other_own_units`: the mover's side's, the mover left out;
    `enemy_fort_open`: an enemy fort with nobody of its side on top."""
    enemy = enemy_units > 0
    road_usable = not (wrecked or block)
    road_clear = other_own_units == 0 and not wrecked
    stop_here = mine or block
    if enemy and enemy_fort_open:
        # PB-FORT-12 / PB-MOVE-6: onto the top of an occupied enemy fort, and stop there
        # (it cannot be passed through).
        return False, road_usable, False, True
    return enemy, road_usable, road_clear, stop_here


@njit(cache=True)
def move_flags(st, ut, mt, side, mover, occ):
    """Per-hex inputs of the movement search for one mover (`hex_move_flags` of every hex),
    worked out from the units.  The movement phase keeps them up to date instead
    (move_view.py); this is the reference the debug mode checks that against."""
    n_hex = mt.neighbours.shape[0]
    enemy = np.zeros(n_hex, dtype=np.bool_)
    road_usable = np.ones(n_hex, dtype=np.bool_)
    road_clear = np.ones(n_hex, dtype=np.bool_)
    stop_here = np.zeros(n_hex, dtype=np.bool_)
    # PB-FORT-12: an enemy fort holding enemy units, none on top: its top may be entered.
    top_open = np.zeros(n_hex, dtype=np.bool_)
    for v in range(st.utype.shape[0]):
        if st.status[v] == ON_MAP and st.side[v] != side and ut.fort[st.utype[v]]:
            top_open[st.hex[v]] = True
    for v in range(st.utype.shape[0]):
        if st.side[v] != side and st.on_top[v] and is_piece(st, ut, v):
            top_open[st.hex[v]] = False  # the other side holds the top: nobody may enter
    for h in range(n_hex):
        others = occ[h, side] - (1 if (st.hex[mover] == h and is_piece(st, ut, mover)) else 0)
        enemy[h], road_usable[h], road_clear[h], stop_here[h] = hex_move_flags(
            occ[h, 1 - side], others, st.wrecks[h, 0] + st.wrecks[h, 1] > 0, st.block[h], st.mine[h], top_open[h])
    return enemy, road_usable, road_clear, stop_here


@njit(cache=True)
def swamp_road_stacks(st, ut, mt, mv, side, u):
    """PB-ROAD-10.2-4: the swamp/road hexes a mover that may be there only by road (a vehicle)
    may move onto because they hold its side's non-vehicular units and no vehicle or wreck;
    it pays `mv.swamp_stack_cost` and stops there.  None for other movers.  (The reference of
    move_view.reach_of's.)"""
    mclass = ut.mclass[st.utype[u]]
    n_hex = mt.neighbours.shape[0]
    out = np.zeros(n_hex, dtype=np.bool_)
    if mclass < 0:
        return out
    foot = np.zeros(n_hex, dtype=np.bool_)
    wheels = np.zeros(n_hex, dtype=np.bool_)
    for v in range(st.utype.shape[0]):
        if v == u or not is_piece(st, ut, v) or st.side[v] != side:
            continue
        h = st.hex[v]
        if not mt.swamp[h]:
            continue
        if ut.vehicle[st.utype[v]]:
            wheels[h] = True  # PB-ROAD-10.2: never two vehicles on a swamp road, not even passing
        else:
            foot[h] = True
    for h in range(n_hex):
        if foot[h] and not wheels[h] and mv.enter_cost[h, mclass] < 0 and st.wrecks[h, 0] + st.wrecks[h, 1] == 0:
            out[h] = True
    return out


@njit(cache=True)
def stack_loads(st, ut, n_hex):
    """side_load for every hex and both sides at once (for filtering many candidate hexes).  The
    movement phase keeps them up to date instead (move_view.py); this is the reference."""
    load = np.zeros((n_hex, 2), dtype=np.int64)
    # the arrays read out of the structs once, not at every hex and unit (docs/performance.md, round 9)
    wrecks, block = st.wrecks, st.block
    status, unit_hex, utype, carried_by, unit_side = st.status, st.hex, st.utype, st.carried_by, st.side
    category, positional, stack_count = ut.category, ut.positional, ut.stack_count
    for h in range(n_hex):
        w = wrecks[h, 0] + wrecks[h, 1]
        load[h, 0] = w
        load[h, 1] = w
    counter = np.zeros(n_hex, dtype=np.bool_)
    for u in range(utype.shape[0]):
        if status[u] == ON_MAP and category[utype[u]] == ROADBLOCK:
            counter[unit_hex[u]] = True
        if status[u] == ON_MAP and carried_by[u] < 0:
            c = stack_count[utype[u]]
            if positional[utype[u]]:
                load[unit_hex[u], 0] += c
                load[unit_hex[u], 1] += c
            else:
                load[unit_hex[u], unit_side[u]] += c
    bc = block_count(ut)
    for h in range(n_hex):
        if block[h] and not counter[h]:
            load[h, 0] += bc  # PB-BLOCK-4/6: the block a destroyed fort left has no counter
            load[h, 1] += bc
    return load


@njit(cache=True)
def fits(st, ut, limits, h, side, u):
    """PB-STACK-1/4: may unit u (with its passenger, counted once) end its move in h?"""
    return side_load(st, ut, h, side) + ut.stack_count[st.utype[u]] <= limits[side]


@njit(cache=True)
def place(st, u, h):
    """Put u (and its passenger) in hex h (inside a fort of its side there, PB-FORT-10's
    default placement; `settle_on_top` puts a unit on top of an enemy fort)."""
    st.hex[u] = h
    st.status[u] = ON_MAP
    st.on_top[u] = False
    p = st.carrying[u]
    if p >= 0:
        st.hex[p] = h
        st.status[p] = ON_MAP
        st.on_top[p] = False


@njit(cache=True)
def exit_map(st, u, edge_bit):
    """PB-MOVE-10: u (and its passenger) leaves the map from its hex by `edge_bit`.  Leaving by
    the outward edge of a round trip (PB-SIT-5) records the hex, where it may come back on."""
    h = st.hex[u]
    outward = (edge_bit & st.trip_out[st.side[u]]) != 0
    p = st.carrying[u]
    for w in (u, p):
        if w < 0:
            continue
        st.status[w] = EXITED
        st.exit_turn[w] = st.clock[TURN]
        st.exit_edge[w] = edge_bit
        st.hex[w] = -1
        if outward:
            st.trip_hex[w] = h
            st.returned[w] = False
    log_event(st, EV_EXIT, u, h, edge_bit, 0, 0, 0, 0)


@njit(cache=True)
def exit_edges_of(st, u):
    """PB-MOVE-10: the edges unit u may leave the map by (bits): those its side's victory
    conditions count exits on.  On a round trip (PB-SIT-5) the outward edge only until the unit
    has been out, the final edge only after (a unit coming back on is already past its way out)."""
    side = st.side[u]
    edges = st.exit_edges[side]
    out = st.trip_out[side]
    if out == 0:
        return edges
    final = st.trip_final[side]
    edges &= ~(out | final)
    return edges | (out if st.trip_hex[u] < 0 else final)


@njit(cache=True)
def may_return(st, u):
    """PB-SIT-5: unit u, off the map after leaving by its side's outward edge, may come back on
    at the hex where it left in this game-turn: it has stayed off the whole game-turns the card
    asks (left in turn T, off through T + stay, back from T + stay + 1).  A passenger comes back
    with its carrier."""
    side = st.side[u]
    return (st.status[u] == EXITED and st.trip_out[side] != 0 and st.trip_hex[u] >= 0 and not st.returned[u]
            and st.carried_by[u] < 0 and (st.exit_edge[u] & st.trip_out[side]) != 0
            and st.clock[TURN] - st.exit_turn[u] > st.trip_stay_off[side])


@njit(cache=True)
def pass_through(st, mt, side, prev, start, dest):
    """PB-VIC-5: every hex of the path start..dest (from `prev`) was last passed through by `side`."""
    h = dest
    n = 0
    while h >= 0 and n < 1000:
        mark_passed(st, h, side)
        if h == start:
            break
        h = prev[h]
        n += 1


@njit(cache=True)
def occupied_by(st, ut, h, side):
    hexes = st.hex  # taken once (see forts.fort_in)
    for v in range(hexes.shape[0]):
        if hexes[v] == h and st.side[v] == side and is_piece(st, ut, v):
            return True
    return False


@njit(cache=True)
def note_advance(st, ut, mt, side, start, dest):
    """PB-VIC-6: a unit that ends its move nearer the nearest enemy unit than it began has
    moved toward the enemy."""
    if not st.engaged[side] and nearest_enemy(st, ut, mt, side, dest) < nearest_enemy(st, ut, mt, side, start):
        st.engaged[side] = True


@njit(cache=True)
def came_back(st, u):
    """PB-SIT-5: u (and its passenger) is back on the map from its round trip."""
    st.returned[u] = True
    if st.carrying[u] >= 0:
        st.returned[st.carrying[u]] = True
