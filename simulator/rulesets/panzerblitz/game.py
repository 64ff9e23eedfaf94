"""One complete PanzerBlitz game, compiled: set-up, then the sequence of play (PB-SEQ-2).

The kernel enumerates the legal options of each decision through the rules module, writes
them into the options buffer and asks PanzerBlitz's one dispatcher (dispatch.py `choose`),
which alone knows the players; it never asks which player plays a side.  Everything is arrays;
the Python wrapper (replay.play) builds the initial state and evaluates the victory conditions.
"""

from __future__ import annotations

import numpy as np
from numba import types

from simulator.jit import Indirect, call, njit
from simulator.rulesets.panzerblitz import dispatch as ask
from simulator.rulesets.panzerblitz.close_assault import may_assault, resolve_assault
from simulator.rulesets.panzerblitz.combat import seed_dice
from simulator.rulesets.panzerblitz.decision_kinds import (
    ASSAULT_TARGET,
    COMBINE,
    ENTRY_BOARD,
    ENTRY_HEX,
    FIRE_TARGET,
    FORT_SWITCH,
    INTENSIVE,
    LOAD,
    MINE_CLEAR,
    MOVE_DEST,
    MOVE_ON,
    MULTIPLE,
    OVERRUN_JOIN,
    PASSENGER,
    PBA_DISMOUNT,
    RETURN,
    SELECT,
    SETUP_HEX,
    TECHNIQUE,
    UNLOAD,
)
from simulator.rulesets.panzerblitz.dispatch import DEFENDERS, ENTRY, EXIT, HEX, TARGET, TECH
from simulator.rulesets.panzerblitz.events import (
    EV_ENTER,
    EV_FORT_SWITCH,
    EV_LOAD,
    EV_MOVE,
    EV_OVERRUNNER,
    EV_SETUP,
    EV_SETUP_FAILED,
    EV_TURN,
    EV_UNLOAD,
    log_event,
)
from simulator.rulesets.panzerblitz.fire import (
    defender_stack,
    fire_options_at,
    may_fire,
    may_fire_intensively,
    resolve_fire,
    spend_intensive,
    stack_kind_of,
)
from simulator.rulesets.panzerblitz.forts import (
    capture_fort,
    defends,
    enemy_in_hex,
    enemy_on_own_fort,
    fort_in,
    settle_on_top,
)
from simulator.rulesets.panzerblitz.invariants import check, check_view, road_hex
from simulator.rulesets.panzerblitz.mines import (
    attempt_mine_removal,
    mine_removal_targets,
    minefield_attacks,
)
from simulator.rulesets.panzerblitz.move_view import close_view, open_view, reach_of, view_loads
from simulator.rulesets.panzerblitz.overrun import (
    edge_overrun_options,
    entry_overrun_options,
    overrun_options,
    resolve_overrun,
)
from simulator.rulesets.panzerblitz.presence import (
    exit_edges_of,
    exit_map,
    fits,
    is_piece,
    mark_passed,
    may_return,
    nearest_enemy,
    occupancy,
    place,
    side_load,
    stack_loads,
)
from simulator.rulesets.panzerblitz.recovery import recover
from simulator.rulesets.panzerblitz.road_march import end_marches, march_columns, marching
from simulator.rulesets.panzerblitz.spotting import observe, spotted_hexes
from simulator.rulesets.panzerblitz.state import (
    DEBUG,
    ELIMINATED,
    EXITED,
    FIRST_SIDE,
    MARCH_OVER,
    N_TURNS,
    NOT_PLACED,
    ON_MAP,
    PHASING,
    TS_ATTACK,
    TS_DEFENSE,
    TS_DISPERSED,
    TS_EXITED,
    TS_LOST,
    TS_NOT_PLACED,
    TS_OBJECTIVES,
    TS_ON_MAP,
    TURN,
    WAITING,
)
from simulator.rulesets.panzerblitz.techniques import (
    exposed_passenger,
    own_fort_roll,
    plan_multiple,
    resolve_multiple,
    resolve_passenger,
    resolve_selective,
    selective_allowed,
)
from simulator.rulesets.panzerblitz.units import CATEGORY_INDEX

FORT = CATEGORY_INDEX["fortification"]
BLOCK = CATEGORY_INDEX["roadblock"]
MINE = CATEGORY_INDEX["minefield"]

# The debug mode's checks (invariants.py) are called through their address: compiled only for a
# game played with debug checks (replay.play_into binds them), and never part of the game's own
# compiled code (simulator/jit.py, `Indirect`).
CHECK = Indirect("panzerblitz.check", ask.K_CHECK, check, types.none, ("st", "ut", "mt", "mv", "limits"))
CHECK_VIEW = Indirect("panzerblitz.check_view", ask.K_CHECK_VIEW, check_view, types.none,
                      ("st", "ut", "mt", "mv", types.int64, types.int64, types.int64[:, ::1]))


@njit(cache=True)
def _setup_ok(st, ut, mt, mv, limits, u, h, side, mine_block_apart=False):
    """Legal set-up hex for unit u (PB-STACK-1, PB-MINE-1, PB-BLOCK-1, PB-FORT-1, PB-GEN-4).

    Reading (docs/rulings.md): a unit sets up only where it could stand after moving: not a
    vehicle in a swamp off the road."""
    load, fort, enemy = _setup_counts(st, ut, mt.neighbours.shape[0], side)
    return _setup_ok_at(st, ut, mt, mv, limits, u, h, side, load, fort, enemy, mine_block_apart)


@njit(cache=True)
def _setup_counts(st, ut, n_hex, side):
    """What the set-up checks read of every hex, counted once for all the candidate hexes of a
    unit: `side`'s stacking load (PB-STACK-1, as `fits`), a fort there, an enemy unit there."""
    load = stack_loads(st, ut, n_hex)
    fort = np.zeros(n_hex, dtype=np.bool_)
    enemy = np.zeros(n_hex, dtype=np.bool_)
    for v in range(st.utype.shape[0]):
        if st.status[v] == ON_MAP:
            if st.side[v] != side and is_piece(st, ut, v):
                enemy[st.hex[v]] = True
            if ut.category[st.utype[v]] == FORT:
                fort[st.hex[v]] = True
    return load, fort, enemy


@njit(cache=True)
def _setup_ok_at(st, ut, mt, mv, limits, u, h, side, load, fort, enemy, mine_block_apart=False):
    """`_setup_ok` with the hex counts of `_setup_counts`."""
    if mt.closed[h]:
        return False
    mc = ut.mclass[st.utype[u]]
    if mc >= 0 and mv.enter_cost[h, mc] < 0:
        if not road_hex(mt, mv, h):
            return False
        for v in range(st.utype.shape[0]):
            if v != u and st.hex[v] == h and st.carried_by[v] < 0 and ut.mclass[st.utype[v]] >= 0 \
                    and mv.enter_cost[h, ut.mclass[st.utype[v]]] < 0:
                return False  # PB-ROAD-10.2: never two vehicles on a swamp/road hex
    if enemy[h]:
        return False  # opposing units never share a hex (PB-STACK-7)
    cat = ut.category[st.utype[u]]
    if cat == MINE:
        return not st.mine[h] and not fort[h] and not (mine_block_apart and st.block[h])  # OQ-25
    if cat == BLOCK:
        return not st.block[h] and not fort[h] and not (mine_block_apart and st.mine[h])
    if cat == FORT:
        return not fort[h] and not st.mine[h] and not st.block[h] and not mt.swamp[h]
    return load[h, side] + ut.stack_count[st.utype[u]] <= limits[side]


@njit(cache=True)
def _constraints_ok(st, ut, mt, u, h):
    g = st.group[u]
    side = st.side[u]
    wt = st.group_with_type[g]
    if wt >= 0:
        found = False
        for v in range(st.utype.shape[0]):
            if st.status[v] == ON_MAP and st.hex[v] == h and st.side[v] == side and st.utype[v] == wt:
                found = True
        if not found:
            return False
    ft = st.group_far_type[g]
    if ft >= 0:
        for v in range(st.utype.shape[0]):
            if v != u and st.status[v] == ON_MAP and st.side[v] == side and st.utype[v] == ft:
                if mt.dist[st.hex[v], h] < st.group_far_min[g]:
                    return False
    return True


@njit(cache=True)
def setup_side(st, ut, mt, mv, ct, limits, side, pl):
    """Place every unit of `side` that sets up on the map, group by group, in file order: first
    the groups without minefields or blocks (the card's fixed positions, forts with their
    command posts), then the minefields and blocks, then the units of the groups that have them.
    The order in which a side places its own counters is the owner's (PB-MINE-1, PB-BLOCK-1:
    where the owner likes); laying its barriers before its troops lets it keep them off its own
    minefields (docs/rulings.md).  The side setting up second sees the first side's units
    (PB-SEQ-1)."""
    n_hex = mt.neighbours.shape[0]
    options = np.empty(n_hex, dtype=np.int64)
    ask.begin_setup(st, ut, mt, ct, side, pl)
    n_units = st.utype.shape[0]
    barrier = np.zeros(n_units, dtype=np.bool_)
    group_barriers = np.zeros(st.group_entering.shape[0], dtype=np.bool_)
    for u in range(n_units):
        cat = ut.category[st.utype[u]]
        barrier[u] = cat == MINE or cat == BLOCK
        if barrier[u]:
            group_barriers[st.group[u]] = True
    for stage in range(3):
        for u in range(n_units):
            s = 0 if not group_barriers[st.group[u]] else (1 if barrier[u] else 2)
            if s == stage:
                _setup_unit(st, ut, mt, mv, ct, limits, side, pl, u, options)


@njit(cache=True)
def _setup_unit(st, ut, mt, mv, ct, limits, side, pl, u, options):
    """Set-up of one counter of `side` (if it sets up on the map): the legal hexes of its group,
    and the player's choice among them."""
    n_hex = mt.neighbours.shape[0]
    g = st.group[u]
    if st.side[u] != side or st.group_entering[g] or st.carried_by[u] >= 0:
        return
    n = 0
    load, fort, enemy = _setup_counts(st, ut, n_hex, side)
    for k in range(st.group_hex_start[g], st.group_hex_start[g + 1]):
        h = st.group_hexes[k]
        if _setup_ok_at(st, ut, mt, mv, limits, u, h, side, load, fort, enemy, ct.mine_block_apart) and \
                _constraints_ok(st, ut, mt, u, h):
            options[n] = h
            n += 1
    cat = ut.category[st.utype[u]]
    # (`load` stands for the phase's count of units: the heuristic keeps its own at set-up)
    i = ask.choose(SETUP_HEX, _offer_hexes(pl.options, options, n), n, u, 0, options, st, ut, mt, ct, side, load, pl)
    if i < 0:
        # Nowhere legal (stacking, terrain, enemy units, the group's constraints): the unit
        # is lost at set-up, logged with the number of hexes of its area, and reported in
        # the tables; it never enters later.  Areas too small for their units whatever the
        # placements are refused when the situation is loaded (setup_capacity.py).
        st.status[u] = NOT_PLACED
        log_event(st, EV_SETUP_FAILED, u, st.group_hex_start[g + 1] - st.group_hex_start[g], 0, 0, 0, 0, 0)
        return
    h = options[i]
    place(st, u, h)
    if not ut.positional[st.utype[u]]:
        mark_passed(st, h, side)  # PB-VIC-5
    ask.placed(st, ut, mt, ct, side, u, h, pl)
    if cat == MINE:
        st.mine[h] = True
        st.mine_side[h] = side  # the owner knows its minefields (PB-MINE-2: they still attack both sides)
    elif cat == BLOCK:
        st.block[h] = True
    log_event(st, EV_SETUP, u, h, 0, 0, 0, 0, 0)


@njit(cache=True)
def _offer_hexes(rows, hexes, n):
    """Write n options, one hex each, as rows of the options buffer; returns the buffer."""
    for i in range(n):
        rows[i, HEX] = hexes[i]
    return rows


@njit(cache=True)
def _offer_overruns(rows, at, entries, targets, exits, n):
    """Write n overrun options (entry, target, exit hexes) as rows at..at+n-1; returns the buffer."""
    for j in range(n):
        rows[at + j, HEX] = -1
        rows[at + j, ENTRY] = entries[j]
        rows[at + j, TARGET] = targets[j]
        rows[at + j, EXIT] = exits[j]
    return rows


@njit(cache=True)
def _targets(target_of, n_hex):
    """The distinct target hexes declared, in increasing order (the resolution order).  (Not
    np.unique: its sort was compiled for this alone, ~5 s of a cold start.)"""
    declared = np.zeros(n_hex, dtype=np.bool_)
    for u in range(target_of.shape[0]):
        if target_of[u] >= 0:
            declared[target_of[u]] = True
    return np.flatnonzero(declared)


@njit(cache=True)
def _aiming_at(target_of, h, out):
    """The units declared against hex h, written into `out`; returns how many."""
    k = 0
    for u in range(target_of.shape[0]):
        if target_of[u] == h:
            out[k] = u
            k += 1
    return k


# Inlined into its one caller: one module less for LLVM to optimise (docs/performance.md, cold start).
@njit(cache=True, inline="always")
def fire_phase(st, ut, mt, ct, side, pl):
    """PB-SEQ-2 S2/S3: every attack is declared, then resolved (PB-SEQ-3.3)."""
    n_hex = mt.neighbours.shape[0]
    n_units = st.utype.shape[0]
    spotted = spotted_hexes(st, ut, mt, ct, side)  # spotters in place at the start of the turn
    pl.seen[:] = spotted
    occ = occupancy(st, ut, n_hex)
    if ct.indirect_fire or ut.card_indirect.any():
        # PB-OPT-IF-2/3 (PB-SIT-8: the card's own rule): what the CPs observe for indirect fire
        observe(st, ut, mt, side, spotted)
    # PB-MINE-9 (OQ-13): engineers beside a minefield may try to clear it instead of firing.
    mines_near = np.empty(6, dtype=np.int64)
    clearing = np.zeros(n_units, dtype=np.bool_)
    for u in range(n_units):
        k = mine_removal_targets(st, ut, mt, side, u, mines_near)
        if k > 0:
            i = ask.choose(MINE_CLEAR, _offer_hexes(pl.options, mines_near, k), k, u, 0, mines_near, st, ut, mt, ct,
                           side, occ, pl)
            if i >= 0:
                attempt_mine_removal(st, ut, u, mines_near[i], MINE)
                clearing[u] = True
    target_of = np.full(n_units, -1, dtype=np.int64)
    # The target type of every enemy stack, worked out once (it does not change while
    # attacks are being declared).
    stack_kind = np.full(n_hex, -1, dtype=np.int64)
    for h in range(n_hex):
        if occ[h, 1 - side] > 0:
            stack_kind[h] = stack_kind_of(st, ut, mt, ct, h, 1 - side, defender_stack(st, ut, mt, h, 1 - side)[1])
    # Every unit's options (target hex, AF), offered to the player at once to plan the phase,
    # then unit by unit: attacks are declared all together (PB-SEQ-3.3).
    start = np.zeros(n_units + 1, dtype=np.int64)
    may_intensive = np.zeros(n_units, dtype=np.bool_)
    targets = np.flatnonzero(occ[:, 1 - side] > 0)
    rows_hex = np.empty(n_units * targets.shape[0], dtype=np.int64)
    rows_af = np.empty(n_units * targets.shape[0], dtype=np.int64)
    opt_hex = np.empty(n_hex, dtype=np.int64)
    opt_af = np.empty(n_hex, dtype=np.int64)
    for u in range(n_units):
        start[u + 1] = start[u]
        if not may_fire(st, ut, u, side):
            continue
        n = fire_options_at(st, ut, mt, ct, side, spotted, targets, u, opt_hex, opt_af, stack_kind)
        rows_hex[start[u]:start[u] + n] = opt_hex[:n]
        rows_af[start[u]:start[u] + n] = opt_af[:n]
        start[u + 1] = start[u] + n
        may_intensive[u] = may_fire_intensively(st, ut, ct, u, side)
    ask.begin_fire(st, ut, mt, ct, side, spotted, occ, stack_kind, rows_hex, rows_af, start, may_intensive, pl)
    unit = np.empty(1, dtype=np.int64)
    for u in range(n_units):
        n = start[u + 1] - start[u]
        if n == 0:
            continue
        rows = pl.options
        for j in range(n):
            rows[j, 0] = rows_hex[start[u] + j]
            rows[j, 1] = rows_af[start[u] + j]
        i = ask.choose(FIRE_TARGET, rows, n, u, 0, unit, st, ut, mt, ct, side, occ, pl)
        if i >= 0:
            target_of[u] = rows_hex[start[u] + i]
            # PB-OPT-AMMO-1: intensive fire, where the unit may
            unit[0] = u
            if may_intensive[u] and ask.choose(INTENSIVE, _offer_hexes(pl.options, unit, 1), 1, u, 0, unit, st, ut,
                                               mt, ct, side, occ, pl) == 0:
                st.intensive[u] = True
    attackers = np.empty(n_units, dtype=np.int64)
    assign = np.empty(n_units, dtype=np.int64)
    for h in _targets(target_of, n_hex):
        k = _aiming_at(target_of, h, attackers)
        if k > 0:
            call(pl.kernels, ATTACK_HEX, st, ut, mt, ct, side, h, attackers, k, assign, spotted, pl)
            if ct.intensive_fire:
                spend_intensive(st, attackers, k)  # PB-OPT-AMMO-2
    if ct.removal_then_move:
        # OQ-13 alternative: the attempt was the engineer's attack (it fired at nothing else:
        # `fired` kept it out of the fire plan), but it may still move; no close assault.
        for u in range(n_units):
            if clearing[u]:
                st.fired[u] = False
                st.assaulted[u] = True


@njit(cache=True)
def attack_hex(st, ut, mt, ct, side, h, attackers, k, assign, spotted, pl):
    """PB-STK-2: one technique against the stack in h, by the k units declared against it:
    combination (PB-STK-5), selective (PB-STK-3), multiple (PB-STK-4) or an armored carrier's
    passenger alone (PB-TRANS-8).  Each is offered only where the rules allow it (a multiple
    attack on each number of defenders these attackers can take on, the most first); the
    player chooses among them (a row: technique, defenders hit)."""
    enemy = 1 - side
    sel = selective_allowed(st, ut, mt, h, enemy)
    n_multi = 0
    if sel:
        n_def = 0
        f = fort_in(st, ut, h, enemy)
        for u in range(st.utype.shape[0]):
            if defends(st, ut, u, h, enemy, f):  # PB-FORT-11: the fort and each unit on top
                n_def += 1
        for n_hit in range(n_def, 1, -1):
            if plan_multiple(st, ut, mt, ct, side, h, attackers, k, spotted, n_hit, assign):
                n_multi = n_hit
                break
    passenger = exposed_passenger(st, ut, mt, h, enemy) >= 0
    own_fort = enemy_on_own_fort(st, ut, h, side)  # PB-FORT-13, judged before the attack
    rows = pl.options
    n = 0
    rows[n, TECH], rows[n, DEFENDERS] = COMBINE, 0
    n += 1
    if sel:
        rows[n, TECH], rows[n, DEFENDERS] = SELECT, 1
        n += 1
    if n_multi > 0:
        rows[n, TECH], rows[n, DEFENDERS] = MULTIPLE, n_multi
        n += 1
        trial = np.empty(k, dtype=np.int64)
        for n_hit in range(n_multi - 1, 1, -1):
            if plan_multiple(st, ut, mt, ct, side, h, attackers, k, spotted, n_hit, trial):
                rows[n, TECH], rows[n, DEFENDERS] = MULTIPLE, n_hit
                n += 1
    if passenger:
        rows[n, TECH], rows[n, DEFENDERS] = PASSENGER, 1
        n += 1
    tech = COMBINE
    if n > 1:
        no_occ = np.zeros((0, 2), dtype=np.int64)  # (not read for a technique)
        i = ask.choose(TECHNIQUE, rows, n, h, k, attackers, st, ut, mt, ct, side, no_occ, pl)
        tech = np.int64(rows[i, TECH])
        n_hit = np.int64(rows[i, DEFENDERS])
        if tech == MULTIPLE and n_hit != n_multi:
            plan_multiple(st, ut, mt, ct, side, h, attackers, k, spotted, n_hit, assign)
    if tech == SELECT:
        r = resolve_selective(st, ut, mt, ct, side, h, attackers, k, spotted)
    elif tech == MULTIPLE:
        # `assign` holds the plan on the chosen number of defenders
        r = resolve_multiple(st, ut, mt, ct, side, h, attackers, k, assign, spotted)
    elif tech == PASSENGER:
        r = resolve_passenger(st, ut, mt, ct, side, h, attackers, k, spotted)
    else:
        r = resolve_fire(st, ut, mt, ct, side, h, attackers, k, spotted)
    if r >= 0:
        st.engaged[side] = True  # PB-VIC-6: the side has fired
        if own_fort:
            # PB-FORT-13: the target was enemy units on top of the side's own fort: a second
            # roll, for the fort and the units inside.
            own_fort_roll(st, ut, mt, ct, side, h, attackers, k, spotted)


@njit(cache=True)
def _pass_through(st, mt, side, prev, start, dest):
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
def _occupied_by(st, ut, h, side):
    hexes = st.hex  # taken once (see forts.fort_in)
    for v in range(hexes.shape[0]):
        if hexes[v] == h and st.side[v] == side and is_piece(st, ut, v):
            return True
    return False


@njit(cache=True)
def _note_advance(st, ut, mt, side, start, dest):
    """PB-VIC-6: a unit that ends its move nearer the nearest enemy unit than it began has
    moved toward the enemy."""
    if not st.engaged[side] and nearest_enemy(st, ut, mt, side, dest) < nearest_enemy(st, ut, mt, side, start):
        st.engaged[side] = True


@njit(cache=True)
def _passenger_here(st, ut, c, h, side):
    """A unit that may board carrier c in hex h (PB-TRANS-2/3/4)."""
    hexes = st.hex  # taken once (see forts.fort_in)
    for p in range(hexes.shape[0]):
        if hexes[p] != h:
            continue
        t = st.utype[p]
        if (p != c and is_piece(st, ut, p) and st.side[p] == side
                and not ut.vehicle[t] and not st.fired[p] and not st.dispersed[p]
                and not st.moved[p] and st.carrying[p] < 0):
            return p
    return -1


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
        if ask.choose(RETURN, _offer_hexes(pl.options, options, 1), 1, u, 0, options, st, ut, mt, ct, side, occ,
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
        rows = _offer_overruns(_offer_hexes(pl.options, options, n), n, ov_target, ov_target, ov_exit, n_eo)
        rows[n:n + n_eo, ENTRY] = -1  # from the off-map hex
        i = ask.choose(ENTRY_HEX, rows, n + n_eo, u, n, options, st, ut, mt, ct, side, occ, pl)
        if i >= n and mf > 0:
            _overrun_entering(st, ut, mt, ct, side, u, ov_target[i - n], ov_exit[i - n], occ)
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
        if ut.carrier[t] and st.carrying[u] < 0:
            p = _passenger_here(st, ut, u, start, side)
            if p >= 0:
                options[0] = p
            if p >= 0 and ask.choose(LOAD, _offer_hexes(pl.options, options, 1), 1, u, 0, options, st, ut, mt, ct,
                                     side, occ, pl) == 0:
                st.carrying[u] = p
                st.carried_by[p] = u
                st.moved[p] = True
                log_event(st, EV_LOAD, u, p, start, 0, 0, 0, 0)
                if not ct.load_and_move:
                    st.moved[u] = True
                    return  # OQ-21: loading is the carrier's whole operation
    reach_of(st, ut, mt, mv, side, u, start, budget, occ, cost, prev)
    load = view_loads(st, ut, mt, side, occ)
    mine_count = ut.stack_count[t]
    n = 0
    exits = 0
    for h in range(mt.neighbours.shape[0]):
        # PB-STACK-1/4 at the end of the move (the unit's own count is not yet in its new hex)
        here = mine_count if (st.status[u] == ON_MAP and h == start) else 0
        if cost[h] >= 0 and load[h, side] - here + mine_count <= limits[side] and not mt.closed[h]:
            options[n] = h
            n += 1
    # PB-MOVE-10: leave the map by an edge the side may leave by, paying the last hex's cost again.
    edges = exit_edges_of(st, u)
    if edges != 0:
        for h in range(mt.neighbours.shape[0]):
            if cost[h] >= 0 and (mt.edge_mask[h] & edges) != 0 and \
                    cost[h] + mv.enter_cost[h, ut.mclass[t]] <= budget:
                options[n] = -2 - h
                n += 1
                exits += 1
    # PB-OVR: an armored vehicle already on the map may overrun instead of moving.
    n_over = 0
    if st.status[u] == ON_MAP and ut.can_overrun[t] and _enemy_in_overrun_reach(mt, mv, occ, side, ut.mclass[t],
                                                                                  start, budget):
        n_over = overrun_options(st, ut, mt, mv, ct, limits, side, u, start, budget, occ, cost_o, prev_o,
                                 FORT, ov_entry, ov_target, ov_exit, load)
        n_over = edge_overrun_options(st, ut, mt, mv, ct, limits, side, u, start, budget, occ, cost_o, FORT,
                                      ov_entry, ov_target, ov_exit, n_over, load)  # PB-OVR-10
    rows = _offer_overruns(_offer_hexes(pl.options, options, n), n, ov_entry, ov_target, ov_exit, n_over)
    i = ask.choose(MOVE_DEST, rows, n + n_over, u, n, options, st, ut, mt, ct, side, occ, pl)
    if i >= n:
        k = i - n
        _pass_through(st, mt, side, prev_o, start, ov_entry[k])  # PB-VIC-5: the approach
        rider = -1
        if ct.panzerblitz_assault:
            options[0] = pba_rider(st, ut, side, u, ov_entry[k])
            if options[0] >= 0 and ask.choose(PBA_DISMOUNT, _offer_hexes(pl.options, options, 1), 1, u, 0, options,
                                              st, ut, mt, ct, side, occ, pl) == 0:
                rider = pba_dismount(st, ut, side, u, ov_entry[k], ov_target[k], occ)
        _overrun_together(st, ut, mt, mv, ct, limits, side, u, start, ov_entry[k], ov_target[k], ov_exit[k],
                          pl, occ, cost_o, prev_o, ov_entry, ov_target, ov_exit)
        if rider >= 0 and not st.overrun_hex[ov_target[k]]:
            st.pba_target[rider] = -1  # the overrun was not made: nothing was overrun
            st.steps[rider] = 99
        return
    dest = start if i < 0 else options[i]
    if entering:
        if not fits(st, ut, limits, start, side, u):
            return  # no room at the entry hex this turn: it tries again next turn (PB-MOVE-11)
        place(st, u, start)
        occ[start, side] += 1
        st.engaged[side] = True  # PB-VIC-6 reading: entering the map is moving toward the enemy
        if back:
            _came_back(st, u)
        log_event(st, EV_ENTER, u, start, spent, 1 if back else 0, 0, 0, 0)
    if st.status[u] == ON_MAP and dest != -1:
        _note_advance(st, ut, mt, side, start, -2 - dest if dest <= -2 else dest)  # PB-VIC-6
    if dest <= -2:
        h = -2 - dest
        _pass_through(st, mt, side, prev, start, h)  # PB-VIC-5
        log_event(st, EV_MOVE, u, start, h, cost[h], 0, 0, 0)
        occ[start, side] -= 1
        st.hex[u] = h
        st.moved[u] = True
        exit_map(st, u, mt.edge_mask[h] & edges)
        return
    if dest != start or st.control[start] != side:
        _pass_through(st, mt, side, prev, start, dest)  # PB-VIC-5 (an entry hex too)
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
        _unload(st, ut, mt, mv, ct, limits, side, u, p, left, pl, occ, cost, prev, options)


@njit(cache=True)
def _unload(st, ut, mt, mv, ct, limits, side, u, p, left, pl, occ, cost, prev, options):
    """PB-TRANS-3 / PB-TRANS-11 / PB-STACK-4: carrier u may set its passenger p down in its hex
    if the hex ends within the limit: with the carrier still in it, or with the carrier moving
    on empty with the MF it has `left` (so several carriers may drop passengers in one hex and
    drive away).  Then, with MF left, the carrier may move on; it must if the hex is full."""
    here = st.hex[u]
    c_count = ut.stack_count[st.utype[u]]
    load_here = side_load(st, ut, here, side)  # the carrier and its passenger count once
    stay_ok = load_here + ut.stack_count[st.utype[p]] <= limits[side]
    alone_ok = load_here - c_count + ut.stack_count[st.utype[p]] <= limits[side]
    n = 0
    if left > 0 and (stay_ok or alone_ok):
        # Where the empty carrier could go on to (not back into a block: PB-BLOCK-2 counts
        # from the start of the turn; not off the map).
        reach_of(st, ut, mt, mv, side, u, here, left, occ, cost, prev)
        load = view_loads(st, ut, mt, side, occ)
        for h in range(mt.neighbours.shape[0]):
            if h == here:
                if stay_ok:
                    options[n] = h
                    n += 1
            elif 0 <= cost[h] <= left and not mt.closed[h] and not st.block[h] \
                    and load[h, side] + c_count <= limits[side]:
                options[n] = h
                n += 1
    if not stay_ok and (n == 0 or not alone_ok):
        return
    rows = pl.options
    rows[0, 0] = p
    if ask.choose(UNLOAD, rows, 1, u, 0, options, st, ut, mt, ct, side, occ, pl) != 0:
        return
    _set_down(st, u, p, here, side, occ, 99, 0)  # PB-CAT-9: no close assault in the turn it is unloaded
    if n == 0 or (n == 1 and options[0] == here):
        return
    i = ask.choose(MOVE_ON, _offer_hexes(pl.options, options, n), n, u, 0, options, st, ut, mt, ct, side, occ, pl)
    dest = options[i]
    if dest == here:
        return
    occ[here, side] -= 1
    occ[dest, side] += 1
    _note_advance(st, ut, mt, side, here, dest)  # PB-VIC-6
    _pass_through(st, mt, side, prev, here, dest)  # PB-VIC-5
    place(st, u, dest)
    capture_fort(st, ut, dest, side)
    settle_on_top(st, ut, u)  # PB-FORT-12
    st.mine_safe[u] = False
    log_event(st, EV_MOVE, u, here, dest, cost[dest], 0, 0, 0)


@njit(cache=True)
def _enemy_in_overrun_reach(mt, mv, occ, side, mclass, start, budget):
    """False when no enemy stands near enough to overrun this turn, so the overrun search
    (a second movement search for every vehicle) can be skipped: each step of the approach
    costs at least the cheapest hex entry of the class (no road rate when overrunning,
    PB-OVR-3; 1 MF per town hex, PB-TEC-4), and the target is next to the entry hex."""
    step = mv.town_cost_assaulting
    for h in range(mv.enter_cost.shape[0]):
        c = mv.enter_cost[h, mclass]
        if 0 <= c < step:
            step = c
    if step <= 0:
        return True
    reach = budget // step + 1
    for h in range(mt.dist.shape[0]):
        if occ[h, 1 - side] > 0 and mt.dist[start, h] <= reach:
            return True
    return False


@njit(cache=True)
def pba_rider(st, ut, side, u, entry):
    """PB-OPT-PBA-1: the infantry riding armored vehicle u that may dismount in the overrun's
    entry hex (room there, PB-STACK-1), or -1."""
    p = st.carrying[u]
    if p < 0 or not ut.armored[st.utype[u]] or not ut.can_assault[st.utype[p]] or st.dispersed[p]:
        return -1
    # PB-STACK-1 in the entry hex, with the carrier counted too: a cancelled overrun ends there (PB-OVR-9).
    load = side_load(st, ut, entry, side) + ut.stack_count[st.utype[p]]
    if st.hex[u] != entry:
        load += ut.stack_count[st.utype[u]]
    if load > st.limits[side]:
        return -1
    return p


@njit(cache=True)
def pba_dismount(st, ut, side, u, entry, target, occ):
    """PB-OPT-PBA-1: the rider of u gets off in the entry hex before the overrun; in S5 it may
    close-assault the overrun hex, and only it (the exception to PB-CAT-9)."""
    p = pba_rider(st, ut, side, u, entry)
    if p < 0:
        return -1
    # it got off one hex short of the target: a CAT move (PB-CAT-3); logged as a PBA dismount (1)
    _set_down(st, u, p, entry, side, occ, 1, 1)
    st.pba_target[p] = target
    return p


@njit(cache=True)
def _set_down(st, u, p, h, side, occ, steps, how):
    """PB-TRANS-3: carrier u sets its passenger p down in hex h; the passenger may not move
    this turn, and `steps` is what counts as its move for close assault (PB-CAT-9)."""
    st.carrying[u] = -1
    st.carried_by[p] = -1
    st.hex[p] = h
    st.status[p] = ON_MAP
    # PB-FORT-10/12: set down where its carrier stands: on top if the carrier is on top of a
    # fort there, else inside a fort of its side (the default placement).
    st.on_top[p] = st.on_top[u] and st.hex[u] == h
    st.moved[p] = True
    st.steps[p] = steps
    occ[h, side] += 1
    log_event(st, EV_UNLOAD, u, p, h, how, 0, 0, 0)


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
    if ask.choose(FORT_SWITCH, _offer_hexes(pl.options, options, 1), 1, u, 0, options, st, ut, mt, ct, side, occ,
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


@njit(cache=True)
def _overrun(st, ut, mt, ct, side, u, start, entry, target, exit_hex, occ):
    """PB-OVR-3..9: move to the entry hex, attack, end in the exit hex (or the entry hex if
    the odds are below the table)."""
    _overrun_movers(st, ut, mt, ct, side, np.array([u], dtype=np.int64), np.array([start], dtype=np.int64),
                    np.array([entry], dtype=np.int64), np.array([exit_hex], dtype=np.int64), 1, target, occ)


@njit(cache=True)
def _overrun_movers(st, ut, mt, ct, side, movers, starts, entries, exits, n, target, occ):
    """The n movers, each at its entry hex, overrun `target` in one attack (PB-OVR-4/5), then
    each ends in its exit hex, or its entry hex if the odds are below the table (PB-OVR-8/9)."""
    for q in range(n):
        log_event(st, EV_OVERRUNNER, movers[q], starts[q], entries[q], target, exits[q], 0, 0)
    result = resolve_overrun(st, ut, mt, ct, side, movers, n, target)
    if result >= 0:
        st.engaged[side] = True  # PB-VIC-6
        # PB-VIC-5: an overrun that destroys the occupants counts as passing through.
        if not _occupied_by(st, ut, target, 1 - side):
            mark_passed(st, target, side)
    for q in range(n):
        w = movers[q]
        end = exits[q] if result >= 0 else entries[q]
        if end < 0:
            _overrun_off_map(st, ut, mt, side, w, starts[q], target, occ)  # PB-OVR-10
            continue
        mark_passed(st, end, side)
        occ[starts[q], side] -= 1
        occ[end, side] += 1
        place(st, w, end)
        settle_on_top(st, ut, w)  # PB-FORT-12: a cancelled overrun from the top of an enemy fort stays there
        st.mine_safe[w] = False
        st.moved[w] = True
        st.assaulted[w] = True  # the overrun is its one attack this turn (PB-OVR-7)
        st.steps[w] = 99
        log_event(st, EV_MOVE, w, starts[q], end, 0, 0, 0, 0)


@njit(cache=True)
def _overrun_off_map(st, ut, mt, side, u, start, target, occ):
    """PB-OVR-10: an overrunner leaving the map through the imaginary hex beyond the target."""
    occ[start, side] -= 1
    st.moved[u] = True
    st.assaulted[u] = True
    st.steps[u] = 99
    log_event(st, EV_MOVE, u, start, target, 0, 0, 0, 0)
    st.hex[u] = target
    exit_map(st, u, mt.edge_mask[target] & exit_edges_of(st, u))


@njit(cache=True)
def _overrun_entering(st, ut, mt, ct, side, u, target, exit_hex, occ):
    """PB-OVR-10: unit u enters the map by overrunning the enemy in an entry hex from the
    off-map hex; it ends in the exit hex, or, if the odds are below the table, stays off the map
    (it tries again next turn: the entry hex it would be put back in is off the map)."""
    movers = np.array([u], dtype=np.int64)
    log_event(st, EV_OVERRUNNER, u, -1, -1, target, exit_hex, 0, 0)
    result = resolve_overrun(st, ut, mt, ct, side, movers, 1, target)
    if result < 0:
        return
    st.engaged[side] = True  # PB-VIC-6
    if not _occupied_by(st, ut, target, 1 - side):
        mark_passed(st, target, side)  # PB-VIC-5
    mark_passed(st, exit_hex, side)
    back = st.status[u] == EXITED
    place(st, u, exit_hex)
    if back:
        _came_back(st, u)  # PB-SIT-5, QA/Overrun c: back on by overrunning the enemy in its return hex
    occ[exit_hex, side] += 1
    st.moved[u] = True
    st.assaulted[u] = True  # its one attack this turn (PB-OVR-7)
    st.steps[u] = 99
    log_event(st, EV_ENTER, u, exit_hex, 0, 0, 0, 0, 0)


@njit(cache=True)
def _came_back(st, u):
    """PB-SIT-5: u (and its passenger) is back on the map from its round trip."""
    st.returned[u] = True
    if st.carrying[u] >= 0:
        st.returned[st.carrying[u]] = True


@njit(cache=True)
def _overrun_together(st, ut, mt, mv, ct, limits, side, u, start, entry, target, exit_hex, pl, occ,
                      cost_o, prev_o, ov_entry, ov_target, ov_exit):
    """PB-OVR-4: unit u overruns `target`; other armored units of its side that have not moved
    may join it, each through its own entry and exit hexes (one's entry may be another's exit),
    all moved up to the target before one combined attack.  Each candidate in turn is offered
    its paths onto the target (the random player picks one or none; the heuristic joins when
    its AF raises the odds, `hp.want_join`).  Alone, it is the single overrun of `_overrun`."""
    n_units = st.utype.shape[0]
    movers = np.empty(n_units, dtype=np.int64)
    starts = np.empty(n_units, dtype=np.int64)
    entries = np.empty(n_units, dtype=np.int64)
    exits = np.empty(n_units, dtype=np.int64)
    movers[0] = u
    starts[0] = start
    entries[0] = entry
    exits[0] = exit_hex
    n = 1
    paths = np.empty(6, dtype=np.int64)
    load = view_loads(st, ut, mt, side, occ)  # nobody moves until all have been asked
    for v in range(n_units):
        t = st.utype[v]
        if v == u or st.side[v] != side or st.status[v] != ON_MAP or not ut.can_overrun[t] or st.moved[v] \
                or st.fired[v] or st.dispersed[v] or st.carried_by[v] >= 0 or ut.mclass[t] < 0:
            continue
        if mt.dist[st.hex[v], target] > ut.movement[t]:
            continue  # too far to reach it (a cheap bound before the search)
        k = overrun_options(st, ut, mt, mv, ct, limits, side, v, st.hex[v], ut.movement[t], occ, cost_o, prev_o,
                            FORT, ov_entry, ov_target, ov_exit, load)
        m = 0
        for j in range(k):
            if ov_target[j] != target:
                continue
            free = True
            for q in range(n):
                if ov_entry[j] == entries[q] or ov_exit[j] == exits[q]:
                    free = False  # each through its own entry and exit hexes
            if free and m < 6:
                paths[m] = j
                m += 1
        if m == 0:
            continue
        rows = pl.options
        for q in range(m):
            rows[q, HEX] = -1
            rows[q, ENTRY] = ov_entry[paths[q]]
            rows[q, TARGET] = target
            rows[q, EXIT] = ov_exit[paths[q]]
        pick = ask.choose(OVERRUN_JOIN, rows, m, v, n, movers, st, ut, mt, ct, side, occ, pl)
        if pick < 0:
            continue
        j = paths[pick]
        movers[n] = v
        starts[n] = st.hex[v]
        entries[n] = ov_entry[j]
        exits[n] = ov_exit[j]
        _pass_through(st, mt, side, prev_o, st.hex[v], ov_entry[j])  # PB-VIC-5: the approach
        n += 1
    _overrun_movers(st, ut, mt, ct, side, movers, starts, entries, exits, n, target, occ)


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
def board_entering(st, ut, mt, ct, side, pl, occ):
    """Riders of a group entering by the map edge this turn may enter aboard the group's carriers.

    Reading (docs/rulings.md): off the map, a group's counters are stacked as their owner
    likes before they enter, so a carrier may enter with one of the group's infantry or guns
    aboard (PB-TRANS-1/2; the Situation 7 card's "infantry and guns in trucks and HT"; the guns
    of every entering group already start aboard, state.new_state).  The engine offers each
    empty carrier of the group the riders still off the map and not aboard; the player chooses
    one or none.  Road-march columns board everything beforehand (PB-SIT-7)."""
    n_units = st.utype.shape[0]
    riders = np.empty(n_units, dtype=np.int64)
    turn = st.clock[TURN]
    for c in range(n_units):
        tc = st.utype[c]
        g = st.group[c]
        if st.side[c] != side or st.status[c] != WAITING or not st.group_entering[g] or st.entry_turn[c] > turn \
                or not ut.carrier[tc] or st.carrying[c] >= 0 or st.carried_by[c] >= 0 \
                or st.march_state[g] != MARCH_OVER:
            continue
        n = 0
        for p in range(n_units):
            tp = st.utype[p]
            if p != c and st.group[p] == g and st.status[p] == WAITING and st.entry_turn[p] <= turn \
                    and st.carried_by[p] < 0 and st.carrying[p] < 0 and not ut.vehicle[tp] \
                    and not ut.positional[tp] and ut.mclass[tp] >= 0:
                riders[n] = p
                n += 1
        if n == 0:
            continue
        i = ask.choose(ENTRY_BOARD, _offer_hexes(pl.options, riders, n), n, c, 0, riders, st, ut, mt, ct, side, occ,
                       pl)
        if i < 0:
            continue
        p = riders[i]
        st.carrying[c] = p
        st.carried_by[p] = c
        log_event(st, EV_LOAD, c, p, -1, 1, 0, 0, 0)  # d = 1: aboard before entering


# Inlined into its one caller: one module less for LLVM to optimise (docs/performance.md, cold start).
@njit(cache=True, inline="always")
def assault_phase(st, ut, mt, ct, side, pl):
    """PB-SEQ-2 S5 end / PB-CAT: each eligible unit may close-assault one adjacent enemy hex."""
    n_hex = mt.neighbours.shape[0]
    n_units = st.utype.shape[0]
    occ = occupancy(st, ut, n_hex)
    target_of = np.full(n_units, -1, dtype=np.int64)
    # The hexes each unit may assault (at most its six neighbours and the fort under it).
    cand = np.full((n_units, 7), -1, dtype=np.int64)
    n_cand = np.zeros(n_units, dtype=np.int64)
    for u in range(n_units):
        if not may_assault(st, ut, u, side):
            continue
        n = 0
        for d in range(6):
            h = mt.neighbours[st.hex[u], d]
            if h >= 0 and occ[h, 1 - side] > 0 and not st.assaulted_hex[h] and \
                    (st.pba_target[u] < 0 or st.pba_target[u] == h):  # PB-OPT-PBA-1: only the overrun hex
                cand[u, n] = h
                n += 1
        # PB-CAT-8 / PB-FORT-13: units on top of an enemy fort may close-assault the fort under
        # them (the units inside may not assault them: they are not adjacent).
        a = st.hex[u]
        if st.on_top[u] and occ[a, 1 - side] > 0 and not st.assaulted_hex[a] and \
                (st.pba_target[u] < 0 or st.pba_target[u] == a):
            cand[u, n] = a
            n += 1
        n_cand[u] = n
    # Every unit's options at once (the player plans the phase), then unit by unit: assaults
    # are declared all together (PB-CAT).
    ask.begin_assault(st, ut, mt, ct, side, cand, n_cand, pl)
    for u in range(n_units):
        if n_cand[u] > 0:
            i = ask.choose(ASSAULT_TARGET, _offer_hexes(pl.options, cand[u], n_cand[u]), n_cand[u], u, 0, cand[u], st,
                           ut, mt, ct, side, occ, pl)
            if i >= 0:
                target_of[u] = cand[u, i]
    group = np.empty(n_units, dtype=np.int64)
    for h in _targets(target_of, n_hex):
        k = _aiming_at(target_of, h, group)
        if k > 0:
            if resolve_assault(st, ut, mt, ct, side, group, k, h) >= 0:
                st.engaged[side] = True  # PB-VIC-6 (a CAT gives no control: PB-VIC-5)
    if ct.panzerblitz_assault:
        st.pba_target[:] = -1


# Inlined into its one caller: one module less for LLVM to optimise (docs/performance.md, cold start).
@njit(cache=True, inline="always")
def player_turn(st, ut, mt, mv, ct, limits, side, pl):
    st.clock[PHASING] = side
    log_event(st, EV_TURN, side, 0, 0, 0, 0, 0, 0)
    minefield_attacks(st, ut, mt, ct, side)            # S1
    fire_phase(st, ut, mt, ct, side, pl)               # S2, S3
    if st.clock[DEBUG]:
        call(pl.kernels, CHECK, st, ut, mt, mv, limits)
    call(pl.kernels, MOVEMENT_PHASE, st, ut, mt, mv, ct, limits, side, True, pl)   # S4 (with overruns)
    call(pl.kernels, MOVEMENT_PHASE, st, ut, mt, mv, ct, limits, side, False, pl)  # S5
    assault_phase(st, ut, mt, ct, side, pl)                      # S5, close assaults
    if st.clock[DEBUG]:
        call(pl.kernels, CHECK, st, ut, mt, mv, limits)
    recover(st, side)                                   # S6
    end_marches(st)                                     # PB-SIT-7


@njit(cache=True)
def record_turn(st, ut, turn):
    """The statistics row of each side at the end of a game-turn (units counted for victory
    only: not forts, blocks or minefields, PB-VIC-4).  Strength is the printed factors of the
    units still in the game (on the map or still to enter)."""
    row = st.turn_stats[turn]
    row[:, :] = 0
    held = np.zeros((st.objective.shape[0], 2), dtype=np.bool_)
    for u in range(st.utype.shape[0]):
        t = st.utype[u]
        if not ut.victory_count[t]:
            continue
        s = st.side[u]
        if st.status[u] == ELIMINATED:
            row[s, TS_LOST] += 1
            continue
        if st.status[u] == EXITED:
            row[s, TS_EXITED] += 1
            continue
        if st.status[u] == NOT_PLACED:
            row[s, TS_NOT_PLACED] += 1
            continue
        row[s, TS_ATTACK] += ut.attack[t]
        row[s, TS_DEFENSE] += ut.defense[t]
        if st.status[u] == ON_MAP:
            row[s, TS_ON_MAP] += 1
            if st.dispersed[u]:
                row[s, TS_DISPERSED] += 1
            if st.objective[st.hex[u]]:
                held[st.hex[u], s] = True
    for s in range(2):
        row[s, TS_OBJECTIVES] = held[:, s].sum()
    st.snap_hex[turn, :] = st.hex
    st.snap_status[turn, :] = st.status
    st.snap_control[turn, :] = st.control
    st.snap_visited[turn, :] = st.visited


@njit(cache=True)
def run_game(st, ut, mt, mv, ct, limits, setup_order, pl, seed):
    """Set up, then play every game-turn (PB-SEQ-1). Mutates `st`; `pl` (dispatch.Players) answers
    every decision and records them when the game is recorded."""
    seed_dice(seed)
    for k in range(setup_order.shape[0]):
        call(pl.kernels, SETUP_SIDE, st, ut, mt, mv, ct, limits, setup_order[k], pl)
    if st.clock[DEBUG]:
        call(pl.kernels, CHECK, st, ut, mt, mv, limits)
    record_turn(st, ut, 0)
    first = st.clock[FIRST_SIDE]
    for turn in range(1, st.clock[N_TURNS] + 1):
        st.clock[TURN] = turn
        for k in range(2):
            player_turn(st, ut, mt, mv, ct, limits, (first + k) % 2, pl)
        record_turn(st, ut, turn)


# The game's large phases, called through their address (simulator/jit.py, `Indirect`; bound by
# replay.bind_engine): each is compiled once, not again inside every kernel above it.
_I64, _I32S, _I64S, _OCC = types.int64, types.int32[::1], types.int64[::1], types.int64[:, ::1]
SETUP_SIDE = Indirect("panzerblitz.setup_side", ask.K_SETUP_SIDE, setup_side, types.none,
                      ("st", "ut", "mt", "mv", "ct", "limits", _I64, "pl"))
MOVEMENT_PHASE = Indirect("panzerblitz.movement_phase", ask.K_MOVEMENT_PHASE, movement_phase, types.none,
                          ("st", "ut", "mt", "mv", "ct", "limits", _I64, types.boolean, "pl"))
MOVE_UNIT = Indirect("panzerblitz.move_unit", ask.K_MOVE_UNIT, move_unit, types.none,
                     ("st", "ut", "mt", "mv", "ct", "limits", _I64, _I64, "pl", _OCC, _I32S, _I32S, _I64S, _I32S,
                      _I32S, _I64S, _I64S, _I64S))
ATTACK_HEX = Indirect("panzerblitz.attack_hex", ask.K_ATTACK_HEX, attack_hex, types.none,
                      ("st", "ut", "mt", "ct", _I64, _I64, _I64S, _I64, _I64S, types.boolean[::1], "pl"))
# PB-SIT-7 road-march columns (Situation 7 only): compiled and bound only for a situation that has one.
MARCH_COLUMNS = Indirect("panzerblitz.march_columns", ask.K_MARCH_COLUMNS, march_columns, types.none,
                         ("st", "ut", "mt", "mv", "ct", _I64, "pl"))
ENGINE = (SETUP_SIDE, MOVEMENT_PHASE, MOVE_UNIT, ATTACK_HEX)
