"""One complete PanzerBlitz game, compiled: set-up, then the sequence of play (PB-SEQ-2).

Here: set-up (PB-SEQ-1, the legal set-up hexes), the fire phase (S2/S3, declared then resolved,
each target by one technique), the close-assault phase, the player-turn and the game-turn
record.  The movement phases (S4/S5) are movement_phase.py, transport transport.py, the rule
areas they call have a module each (docs/architecture.md).

The kernel enumerates the legal options of each decision through the rules modules, writes
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
    FIRE_TARGET,
    INTENSIVE,
    MINE_CLEAR,
    MULTIPLE,
    PASSENGER,
    SELECT,
    SETUP_HEX,
    TECHNIQUE,
)
from simulator.rulesets.panzerblitz.dispatch import DEFENDERS, TECH, offer_hexes
from simulator.rulesets.panzerblitz.events import EV_SETUP, EV_SETUP_FAILED, EV_TURN, log_event
from simulator.rulesets.panzerblitz.fire import (
    defender_stack_listed,
    fire_options_at,
    may_fire,
    may_fire_intensively,
    resolve_fire,
    spend_intensive,
    stack_kind_of,
    units_by_hex,
)
from simulator.rulesets.panzerblitz.forts import defends, enemy_on_own_fort, fort_in
from simulator.rulesets.panzerblitz.invariants import CHECK
from simulator.rulesets.panzerblitz.mines import (
    attempt_mine_removal,
    mine_removal_targets,
    minefield_attacks,
)
from simulator.rulesets.panzerblitz.movement_phase import MOVE_UNIT, movement_phase
from simulator.rulesets.panzerblitz.presence import (
    is_piece,
    mark_passed,
    occupancy,
    place,
    side_load,
    stack_loads,
)
from simulator.rulesets.panzerblitz.recovery import recover
from simulator.rulesets.panzerblitz.road_march import end_marches
from simulator.rulesets.panzerblitz.spotting import observe, spotted_hexes
from simulator.rulesets.panzerblitz.state import (
    DEBUG,
    ELIMINATED,
    EXITED,
    FIRST_SIDE,
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
def _recount_hex(st, ut, h, side, load, fort, enemy):
    """`_setup_counts`' entries of hex h worked out again (after a counter was placed there):
    the same as counting every hex afresh, since a placement changes only its own hex."""
    load[h, 0] = side_load(st, ut, h, 0)
    load[h, 1] = side_load(st, ut, h, 1)
    fort[h] = False
    enemy[h] = False
    for v in range(st.utype.shape[0]):
        if st.status[v] == ON_MAP and st.hex[v] == h:
            if st.side[v] != side and is_piece(st, ut, v):
                enemy[h] = True
            if ut.category[st.utype[v]] == FORT:
                fort[h] = True


@njit(cache=True)
def _setup_ok_at(st, ut, mt, mv, limits, u, h, side, load, fort, enemy, mine_block_apart=False):
    """`_setup_ok` with the hex counts of `_setup_counts`."""
    one = np.full(1, h, dtype=np.int64)
    return _legal_setup_hexes(st, ut, mt, mv, limits, u, side, load, fort, enemy, mine_block_apart, one, 1, False,
                              np.empty(1, dtype=np.int64)) == 1


@njit(cache=True)
def _legal_setup_hexes(st, ut, mt, mv, limits, u, side, load, fort, enemy, mine_block_apart, hexes, n_hexes,
                       constrained, out):
    """The hexes of `hexes[:n_hexes]` unit u may set up in, in their order, into `out`; returns
    how many.  With `constrained`, also its group's constraints (`_constraints_ok`).

    One call for all of a group's hexes, the checks written out in the loop on arrays read out
    of the structs once: a call per hex (with the structs, or even with the arrays through an
    inlined helper) took and dropped a reference to every argument at every hex, 15-22 % of a
    pb-12 game (docs/performance.md, round 9)."""
    t = st.utype[u]
    mc, cat, count, limit = ut.mclass[t], ut.category[t], ut.stack_count[t], limits[side]
    closed, enter_cost, side_features, road_bit, swamp = mt.closed, mv.enter_cost, mt.side_features, mv.road_bit, \
        mt.swamp
    unit_hex, carried_by, utype, mclass, mine, block = st.hex, st.carried_by, st.utype, ut.mclass, st.mine, st.block
    n = 0
    for k in range(n_hexes):
        h = hexes[k]
        if closed[h]:
            continue
        if mc >= 0 and enter_cost[h, mc] < 0:
            road = False  # invariants.road_hex: only a road lets it stand there
            for d in range(6):
                if side_features[h, d] & road_bit:
                    road = True
            if not road:
                continue
            other = False
            for v in range(utype.shape[0]):
                if v != u and unit_hex[v] == h and carried_by[v] < 0 and mclass[utype[v]] >= 0 \
                        and enter_cost[h, mclass[utype[v]]] < 0:
                    other = True  # PB-ROAD-10.2: never two vehicles on a swamp/road hex
            if other:
                continue
        if enemy[h]:
            continue  # opposing units never share a hex (PB-STACK-7)
        if cat == MINE:
            ok = not mine[h] and not fort[h] and not (mine_block_apart and block[h])  # OQ-25
        elif cat == BLOCK:
            ok = not block[h] and not fort[h] and not (mine_block_apart and mine[h])
        elif cat == FORT:
            ok = not fort[h] and not mine[h] and not block[h] and not swamp[h]
        else:
            ok = load[h, side] + count <= limit
        if ok and (not constrained or _constraints_ok(st, ut, mt, u, h)):
            out[n] = h
            n += 1
    return n


@njit(cache=True)
def _setup_options(st, ut, mt, mv, limits, u, side, load, fort, enemy, mine_block_apart, options):
    """The hexes of unit u's group it may set up in (`_legal_setup_hexes` with the group's
    constraints), in the group's order, into `options`; returns how many."""
    g = st.group[u]
    first, last = st.group_hex_start[g], st.group_hex_start[g + 1]
    constrained = st.group_with_type[g] >= 0 or st.group_far_type[g] >= 0
    return _legal_setup_hexes(st, ut, mt, mv, limits, u, side, load, fort, enemy, mine_block_apart,
                              st.group_hexes[first:last], last - first, constrained, options)


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
    # What the checks read of every hex, counted once for the side's whole set-up and kept up to
    # date placement by placement (only `side` places here), not counted afresh for each unit.
    load, fort, enemy = _setup_counts(st, ut, n_hex, side)
    for stage in range(3):
        for u in range(n_units):
            s = 0 if not group_barriers[st.group[u]] else (1 if barrier[u] else 2)
            if s == stage:
                was = st.hex[u] if st.status[u] == ON_MAP else -1
                h = _setup_unit(st, ut, mt, mv, ct, limits, side, pl, u, options, load, fort, enemy)
                if h >= 0:
                    _recount_hex(st, ut, h, side, load, fort, enemy)
                if was >= 0 and was != h:
                    _recount_hex(st, ut, was, side, load, fort, enemy)  # (a counter already on the map)


@njit(cache=True)
def _setup_unit(st, ut, mt, mv, ct, limits, side, pl, u, options, load, fort, enemy):
    """Set-up of one counter of `side` (if it sets up on the map): the legal hexes of its group
    (by `_setup_counts`' load, fort and enemy, up to date), and the player's choice among them.
    Returns the hex it was placed in, or -1."""
    g = st.group[u]
    if st.side[u] != side or st.group_entering[g] or st.carried_by[u] >= 0:
        return -1
    n = _setup_options(st, ut, mt, mv, limits, u, side, load, fort, enemy, ct.mine_block_apart, options)
    cat = ut.category[st.utype[u]]
    # (`load` stands for the phase's count of units: the heuristic keeps its own at set-up)
    i = ask.choose(SETUP_HEX, offer_hexes(pl.options, options, n), n, u, 0, options, st, ut, mt, ct, side, load, pl)
    if i < 0:
        # Nowhere legal (stacking, terrain, enemy units, the group's constraints): the unit
        # is lost at set-up, logged with the number of hexes of its area, and reported in
        # the tables; it never enters later.  Areas too small for their units whatever the
        # placements are refused when the situation is loaded (setup_capacity.py).
        st.status[u] = NOT_PLACED
        log_event(st, EV_SETUP_FAILED, u, st.group_hex_start[g + 1] - st.group_hex_start[g], 0, 0, 0, 0, 0)
        return -1
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
    return h


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
    # Copies as loops: a slice assignment from an array compiles numba's shape-mismatch error
    # message (`raise_with_shape_context`, seconds of a cold start; docs/performance.md).
    seen = pl.seen
    for h in range(n_hex):
        seen[h] = spotted[h]
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
            i = ask.choose(MINE_CLEAR, offer_hexes(pl.options, mines_near, k), k, u, 0, mines_near, st, ut, mt, ct,
                           side, occ, pl)
            if i >= 0:
                attempt_mine_removal(st, ut, u, mines_near[i], MINE)
                clearing[u] = True
    target_of = np.full(n_units, -1, dtype=np.int64)
    # The target type of every enemy stack, worked out once (it does not change while
    # attacks are being declared).
    stack_kind = np.full(n_hex, -1, dtype=np.int64)
    first = np.empty(n_hex, dtype=np.int64)  # the units by hex, for every enemy stack at once
    nxt = np.empty(n_units, dtype=np.int64)
    units_by_hex(st, first, nxt)
    for h in range(n_hex):
        if occ[h, 1 - side] > 0:
            kind = defender_stack_listed(st, ut, mt, h, 1 - side, first, nxt)[1]
            stack_kind[h] = stack_kind_of(st, ut, mt, ct, h, 1 - side, kind)
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
        for i in range(n):
            rows_hex[start[u] + i] = opt_hex[i]
            rows_af[start[u] + i] = opt_af[i]
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
            if may_intensive[u] and ask.choose(INTENSIVE, offer_hexes(pl.options, unit, 1), 1, u, 0, unit, st, ut,
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
            i = ask.choose(ASSAULT_TARGET, offer_hexes(pl.options, cand[u], n_cand[u]), n_cand[u], u, 0, cand[u], st,
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
    # (loops, not slice assignments: see fire_phase)
    snap_hex, snap_status, hexes, status = st.snap_hex[turn], st.snap_status[turn], st.hex, st.status
    for u in range(hexes.shape[0]):
        snap_hex[u] = hexes[u]
        snap_status[u] = status[u]
    snap_control, snap_visited, control, visited = st.snap_control[turn], st.snap_visited[turn], st.control, st.visited
    for h in range(control.shape[0]):
        snap_control[h] = control[h]
        snap_visited[h] = visited[h]


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
ATTACK_HEX = Indirect("panzerblitz.attack_hex", ask.K_ATTACK_HEX, attack_hex, types.none,
                      ("st", "ut", "mt", "ct", _I64, _I64, _I64S, _I64, _I64S, types.boolean[::1], "pl"))
ENGINE = (SETUP_SIDE, MOVEMENT_PHASE, MOVE_UNIT, ATTACK_HEX, ask.CHOOSE)
