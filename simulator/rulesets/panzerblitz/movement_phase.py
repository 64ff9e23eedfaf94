"""PanzerBlitz movement phases (PB-SEQ-2 S4/S5): moving each unit, one after another.

`movement_phase` moves `side`'s vehicles (S4, with overruns; road-march columns first,
PB-SIT-7) or its other units (S5), in a random order the dice draw.  `move_unit` is one unit's
move: coming back from a round trip (PB-SIT-5), entering the map (PB-MOVE-10/11, or by overrun,
PB-OVR-10), switching between inside and on top of its fort (PB-FORT-2), loading (PB-TRANS-3),
the legal destinations (the search, `move_view.reach_of`, then stacking at the end of the move,
PB-STACK-1/4), leaving the map (PB-MOVE-10), an overrun instead of moving (PB-OVR, with the
others that join it), and setting its passenger down (PB-TRANS-3); control and "moved toward
the enemy" as it goes (PB-VIC-5/6).

Where the rest of movement lives, and why apart (docs/architecture.md):
- movement.py: what a step costs (the movement tables made from terrain.toml, PB-TEC,
  PB-ROAD) and where a unit can go (`reachable`, PB-MOVE-4/6, PB-BLOCK-2, PB-MINE-3).  No game
  state: the loader (tables.py), overrun's approach search and the floor estimate read it, and
  this module sits above overrun, so the two cannot be one module without an import cycle.
- move_view.py: what the search reads of the board (per-hex flags and stacking loads), kept
  up to date move by move instead of worked out afresh (a cache with no rule of its own), and
  `reach_of`, the search for one mover on it.
- road_march.py: Situation 7's columns (PB-SIT-7), a special rule of one situation that moves
  a whole group as one, bound only where a situation has one.
- transport.py: loading, unloading, boarding before entering, riders.
"""

from __future__ import annotations

import numpy as np
from numba import types

from simulator.jit import Indirect, call, njit
from simulator.rulesets.panzerblitz import dispatch as ask
from simulator.rulesets.panzerblitz.decision_kinds import (
    ENTRY_HEX,
    FORT_SWITCH,
    MOVE_DEST,
    PBA_DISMOUNT,
    RETURN,
)
from simulator.rulesets.panzerblitz.dispatch import ENTRY, offer_hexes, offer_overruns
from simulator.rulesets.panzerblitz.events import EV_ENTER, EV_FORT_SWITCH, EV_MOVE, log_event
from simulator.rulesets.panzerblitz.forts import capture_fort, enemy_in_hex, fort_in, settle_on_top
from simulator.rulesets.panzerblitz.invariants import CHECK, CHECK_VIEW
from simulator.rulesets.panzerblitz.move_view import close_view, open_view, reach_of, view_loads
from simulator.rulesets.panzerblitz.movement import next_reached
from simulator.rulesets.panzerblitz.overrun import (
    edge_overrun_options,
    entry_overrun_options,
    overrun_entering,
    overrun_options,
    overrun_together,
)
from simulator.rulesets.panzerblitz.presence import (
    came_back,
    exit_edges_of,
    exit_map,
    fits,
    is_piece,
    may_return,
    note_advance,
    occupancy,
    pass_through,
    place,
    side_load,
)
from simulator.rulesets.panzerblitz.road_march import MARCH_COLUMNS, marching
from simulator.rulesets.panzerblitz.state import (
    DEBUG,
    MARCH_OVER,
    NO_ASSAULT_STEPS,
    ON_MAP,
    TURN,
    WAITING,
)
from simulator.rulesets.panzerblitz.transport import (
    board_entering,
    load_passenger,
    pba_dismount,
    pba_rider,
    unload,
)
from simulator.rulesets.panzerblitz.units import CATEGORY_INDEX

FORT = CATEGORY_INDEX["fortification"]


@njit(cache=True)
def movement_phase(st, ut, mt, mv, ct, limits, side, vehicles, pl):
    """PB-SEQ-2 S4 (vehicles, cavalry included) or S5 (everything else)."""
    n_hex = mt.neighbours.shape[0]
    occ = occupancy(st, ut, n_hex)
    cost = np.empty(n_hex, dtype=np.int32)
    prev = np.empty(n_hex, dtype=np.int32)
    cost_o = np.empty(n_hex, dtype=np.int32)
    prev_o = np.empty(n_hex, dtype=np.int32)
    options = np.empty(2 * n_hex + 2, dtype=np.int64)
    ov_entry = np.empty(6 * n_hex, dtype=np.int64)
    ov_target = np.empty(6 * n_hex, dtype=np.int64)
    ov_exit = np.empty(6 * n_hex, dtype=np.int64)
    if vehicles:
        if marching(st):
            call(pl.kernels, MARCH_COLUMNS, st, ut, mt, mv, ct, side, pl)  # PB-SIT-7
    ask.begin_move(st, ut, mt, ct, side, pl)
    if vehicles:
        board_entering(st, ut, mt, ct, side, pl, occ)
    open_view(st, ut, mt, side, occ)
    for u in np.random.permutation(st.utype.shape[0]):
        if st.side[u] != side or ut.vehicle[st.utype[u]] != vehicles or ut.positional[st.utype[u]]:
            continue
        before = st.hex[u]
        was_piece = is_piece(st, ut, u)
        call(pl.kernels, MOVE_UNIT, st, ut, mt, mv, ct, limits, side, u, pl, occ, cost, prev, options,
             cost_o, prev_o, ov_entry, ov_target, ov_exit)
        ask.moved(st, ut, mt, ct, side, u, before, was_piece, pl)
        if st.clock[DEBUG]:
            call(pl.kernels, CHECK, st, ut, mt, mv, limits)
            call(pl.kernels, CHECK_VIEW, st, ut, mt, mv, side, u, occ)
    close_view(st)


@njit(cache=True)
def move_unit(st, ut, mt, mv, ct, limits, side, u, pl, occ, cost, prev, options, cost_o, prev_o,
              ov_entry, ov_target, ov_exit):
    """One unit's move (or entry, load, unload, exit) in S4/S5."""
    t = st.utype[u]
    mf = ut.movement[t]
    spent = 0
    if st.march_state[st.group[u]] != MARCH_OVER:
        return  # PB-SIT-7: the column moves as one (road_march.py)
    back = may_return(st, u)  # PB-SIT-5: off on a round trip, and it may come back on now
    if back:
        options[0] = st.trip_hex[u]
        if ask.choose(RETURN, offer_hexes(pl.options, options, 1), 1, u, 0, options, st, ut, mt, ct, side, occ,
                      pl) != 0:
            return  # it stays off this turn: the player's choice
    entering = back or st.status[u] == WAITING
    if entering:
        if not back and (st.entry_turn[u] > st.clock[TURN] or st.carried_by[u] >= 0):
            return
        # PB-MOVE-10/11: enter through one of the group's hexes, paying its cost; a unit back
        # from a round trip through the hex where it left (PB-SIT-5), if no enemy holds it.
        g = st.group[u]
        n = 0
        if back:
            h = st.trip_hex[u]
            if mv.enter_cost[h, ut.mclass[t]] >= 0 and occ[h, 1 - side] == 0:
                options[0] = h
                n = 1
        else:
            for k in range(st.group_hex_start[g], st.group_hex_start[g + 1]):
                h = st.group_hexes[k]
                if mv.enter_cost[h, ut.mclass[t]] >= 0 and occ[h, 1 - side] == 0:
                    options[n] = h
                    n += 1
        # PB-OVR-10: or overrun an enemy unit in an entry hex, from the off-map hex.
        n_eo = 0
        if ut.can_overrun[t] and mf > 0:
            n_eo = entry_overrun_options(st, ut, mt, mv, ct, limits, side, u, occ, FORT, ov_target, ov_exit,
                                         view_loads(st, ut, mt, side, occ))
        rows = offer_overruns(offer_hexes(pl.options, options, n), n, ov_target, ov_target, ov_exit, n_eo)
        rows[n:n + n_eo, ENTRY] = -1  # from the off-map hex
        i = ask.choose(ENTRY_HEX, rows, n + n_eo, u, n, options, st, ut, mt, ct, side, occ, pl)
        if i >= n and mf > 0:
            overrun_entering(st, ut, mt, ct, side, u, ov_target[i - n], ov_exit[i - n], occ)
            return
        if i < 0 or mf <= 0:
            return
        start = options[i]
        spent = mv.enter_cost[start, ut.mclass[t]]
        budget = mf - spent if spent <= mf else 0
    else:
        if st.status[u] != ON_MAP or st.dispersed[u] or st.fired[u] or st.moved[u] or st.carried_by[u] >= 0:
            return
        if fort_in(st, ut, st.hex[u], side) >= 0:
            if enemy_in_hex(st, ut, st.hex[u], side):
                return  # PB-FORT-12: while enemy units sit on top, the units inside may not leave
            if _fort_switch(st, ut, mt, ct, limits, side, u, pl, occ, options):
                return  # PB-FORT-2: it moved between inside and on top; that is its move
        if ut.mclass[t] < 0 or mf <= 0:
            return
        start = st.hex[u]
        budget = mf
        # PB-TRANS-3 load: carrier and passenger began the turn together; neither moves (OQ-21).
        if load_passenger(st, ut, mt, ct, side, u, start, pl, occ, options):
            return  # OQ-21: loading is the carrier's whole operation
    reach_of(st, ut, mt, mv, side, u, start, budget, occ, cost, prev)
    load = view_loads(st, ut, mt, side, occ)
    mine_count = ut.stack_count[t]
    n = 0
    exits = 0
    closed = mt.closed
    limit = limits[side]
    # PB-STACK-1/4 at the end of the move (the unit's own count is not yet in its new hex)
    here = start if st.status[u] == ON_MAP else -1
    # The hexes reached, in hex order, from the search's bits (not a pass over the map).
    reached = st.search_reached
    h = next_reached(reached, -1)
    while h >= 0:
        if load[h, side] - (mine_count if h == here else 0) + mine_count <= limit and not closed[h]:
            options[n] = h
            n += 1
        h = next_reached(reached, h)
    # PB-MOVE-10: leave the map by an edge the side may leave by, paying the last hex's cost again.
    edges = exit_edges_of(st, u)
    if edges != 0:
        edge_mask = mt.edge_mask
        enter = mv.enter_cost
        mclass = ut.mclass[t]
        h = next_reached(reached, -1)
        while h >= 0:
            if (edge_mask[h] & edges) != 0 and cost[h] + enter[h, mclass] <= budget:
                options[n] = -2 - h
                n += 1
                exits += 1
            h = next_reached(reached, h)
    # PB-OVR: an armored vehicle already on the map may overrun instead of moving.
    n_over = 0
    if st.status[u] == ON_MAP and ut.can_overrun[t] and _enemy_in_overrun_reach(st, mt, mv, occ, side, ut.mclass[t],
                                                                                  start, budget):
        n_over = overrun_options(st, ut, mt, mv, ct, limits, side, u, start, budget, occ, cost_o, prev_o,
                                 FORT, ov_entry, ov_target, ov_exit, load)
        n_over = edge_overrun_options(st, ut, mt, mv, ct, limits, side, u, start, budget, occ, cost_o, FORT,
                                      ov_entry, ov_target, ov_exit, n_over, load)  # PB-OVR-10
    rows = offer_overruns(offer_hexes(pl.options, options, n), n, ov_entry, ov_target, ov_exit, n_over)
    i = ask.choose(MOVE_DEST, rows, n + n_over, u, n, options, st, ut, mt, ct, side, occ, pl)
    if i >= n:
        k = i - n
        pass_through(st, mt, side, prev_o, start, ov_entry[k])  # PB-VIC-5: the approach
        rider = -1
        if ct.panzerblitz_assault:
            options[0] = pba_rider(st, ut, side, u, ov_entry[k])
            if options[0] >= 0 and ask.choose(PBA_DISMOUNT, offer_hexes(pl.options, options, 1), 1, u, 0, options,
                                              st, ut, mt, ct, side, occ, pl) == 0:
                rider = pba_dismount(st, ut, side, u, ov_entry[k], ov_target[k], occ)
        overrun_together(st, ut, mt, mv, ct, limits, side, u, start, ov_entry[k], ov_target[k], ov_exit[k],
                          pl, occ, cost_o, prev_o, ov_entry, ov_target, ov_exit)
        if rider >= 0 and not st.overrun_hex[ov_target[k]]:
            st.pba_target[rider] = -1  # the overrun was not made: nothing was overrun
            st.steps[rider] = NO_ASSAULT_STEPS
        return
    dest = start if i < 0 else options[i]
    if entering:
        if not fits(st, ut, limits, start, side, u):
            return  # no room at the entry hex this turn: it tries again next turn (PB-MOVE-11)
        place(st, u, start)
        occ[start, side] += 1
        st.engaged[side] = True  # PB-VIC-6 reading: entering the map is moving toward the enemy
        if back:
            came_back(st, u)
        log_event(st, EV_ENTER, u, start, spent, 1 if back else 0, 0, 0, 0)
    if st.status[u] == ON_MAP and dest != -1:
        note_advance(st, ut, mt, side, start, -2 - dest if dest <= -2 else dest)  # PB-VIC-6
    if dest <= -2:
        h = -2 - dest
        pass_through(st, mt, side, prev, start, h)  # PB-VIC-5
        log_event(st, EV_MOVE, u, start, h, cost[h], 0, 0, 0)
        occ[start, side] -= 1
        st.hex[u] = h
        st.moved[u] = True
        exit_map(st, u, mt.edge_mask[h] & edges)
        return
    if dest != start or st.control[start] != side:
        pass_through(st, mt, side, prev, start, dest)  # PB-VIC-5 (an entry hex too)
    if dest != start:
        occ[start, side] -= 1
        occ[dest, side] += 1
        place(st, u, dest)
        capture_fort(st, ut, dest, side)
        settle_on_top(st, ut, u)  # PB-FORT-12: onto the top of an occupied enemy fort
        st.mine_safe[u] = False
        st.steps[u] = _path_length(prev, start, dest)
        log_event(st, EV_MOVE, u, start, dest, cost[dest], 0, 0, 0)
    st.moved[u] = True
    # PB-TRANS-3 transport-and-unload: the passenger is set down and may not move this turn
    # (never in the turn it was loaded: PB-TRANS-3, one operation per turn; not dispersed:
    # PB-TRANS-5); with MF left the carrier may go on moving empty (QA/Transport).
    p = st.carrying[u]
    if p >= 0 and not st.moved[p] and not st.dispersed[p]:
        left = budget - cost[dest]
        if dest != start and (st.mine[dest] or st.block[dest] or (st.on_top[u] and fort_in(st, ut, dest, 1 - side) >= 0)):
            left = 0  # it stopped there (PB-MINE-3, PB-BLOCK-2; PB-FORT-12: it may not move off an enemy fort)
        unload(st, ut, mt, mv, ct, limits, side, u, p, left, pl, occ, cost, prev, options)


@njit(cache=True)
def _enemy_in_overrun_reach(st, mt, mv, occ, side, mclass, start, budget):
    """False when no enemy stands where it could be overrun this turn, so the overrun search (a
    second movement search for every vehicle) can be skipped.  An overrun of the stack in hex
    h from entry hex e (next to h) costs the approach to e, at least `mv.least_assault_step`
    a hex (no road rate when overrunning, PB-OVR-3; 1 MF per town hex, PB-TEC-4) over at least
    dist(start, h) - 1 hexes, then the step into h (at least the same) and the step out (at
    least that or, off the map, a clear hex's cost, PB-OVR-10): more than `budget` if
    least * dist + min(least, clear) is.  And h must be a hex an overrun may target at all
    (PB-OVR-2: clear terrain, no minefield, block, wreck, not overrun already this phase:
    overrun.overrun_target_ok's first tests).  The enemy's units are looked at, not the map: a
    hex with enemy fighting units in `occ` has one of them on the map."""
    least = mv.least_assault_step[mclass]
    if least <= 0:
        return True
    out = min(least, mv.clear_cost[mclass])
    enemy = 1 - side
    unit_hex, unit_side, status = st.hex, st.side, st.status
    dist, target_ok = mt.dist, mt.overrun_ok
    mine, block, wrecks, overrun = st.mine, st.block, st.wrecks, st.overrun_hex
    for v in range(unit_hex.shape[0]):
        h = unit_hex[v]
        if unit_side[v] == enemy and status[v] == ON_MAP and occ[h, enemy] > 0 and \
                least * dist[start, h] + out <= budget and target_ok[h] and not overrun[h] and not mine[h] \
                and not block[h] and wrecks[h, 0] + wrecks[h, 1] == 0:
            return True
    return False


@njit(cache=True)
def _fort_switch(st, ut, mt, ct, limits, side, u, pl, occ, options):
    """PB-FORT-2: unit u, in a fort of its side with no enemy on top, not yet moved or fired this
    turn, may move between inside and on top (even with MF 0); that is its whole move, and it
    must respect stacking (the side's units in the hex, inside and on top, within the limit).
    Random play takes it half the time; the heuristic never does (docs/rulings.md).  Returns
    whether it did."""
    h = st.hex[u]
    if side_load(st, ut, h, side) > limits[side]:
        return False
    options[0] = h
    if ask.choose(FORT_SWITCH, offer_hexes(pl.options, options, 1), 1, u, 0, options, st, ut, mt, ct, side, occ,
                  pl) != 0:
        return False
    st.on_top[u] = not st.on_top[u]
    st.moved[u] = True
    log_event(st, EV_FORT_SWITCH, u, h, 1 if st.on_top[u] else 0, 0, 0, 0, 0)
    return True


@njit(cache=True)
def _path_length(prev, start, dest):
    n = 0
    h = dest
    while h != start and h >= 0 and n < 1000:
        h = prev[h]
        n += 1
    return n


# One unit's move, called through its address (simulator/jit.py, `Indirect`; bound by
# replay.bind_engine): compiled once, not again inside the movement phase.
_I64, _I32S, _I64S, _OCC = types.int64, types.int32[::1], types.int64[::1], types.int64[:, ::1]
MOVE_UNIT = Indirect("panzerblitz.move_unit", ask.K_MOVE_UNIT, move_unit, types.none,
                     ("st", "ut", "mt", "mv", "ct", "limits", _I64, _I64, "pl", _OCC, _I32S, _I32S, _I64S, _I32S,
                      _I32S, _I64S, _I64S, _I64S))
