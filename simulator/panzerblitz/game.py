"""One complete PanzerBlitz game, compiled: set-up, then the sequence of play (PB-SEQ-2).

The kernel enumerates the legal options of each decision through the rules module and asks
the side's policy to choose (policies/random_play.py `choose`).  Everything is arrays; the
Python wrapper `play_game` builds the initial state and evaluates the victory conditions.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from policies import heuristic as hp
from policies.random_play import (
    ASSAULT_TARGET,
    ENTRY_HEX,
    FIRE_TARGET,
    INTENSIVE,
    LOAD,
    MINE_CLEAR,
    MOVE_DEST,
    PBA_DISMOUNT,
    SETUP_HEX,
    TECHNIQUE,
    UNLOAD,
    choose,
)
from simulator.panzerblitz.combat import seed_dice
from simulator.panzerblitz.invariants import check, road_hex
from simulator.panzerblitz.rules import (
    EV_ENTER,
    EV_LOAD,
    EV_MOVE,
    EV_OVERRUNNER,
    EV_SETUP,
    EV_TURN,
    EV_UNLOAD,
    attempt_mine_removal,
    capture_fort,
    defender_stack,
    exit_map,
    fire_options,
    fits,
    is_piece,
    log_event,
    may_assault,
    may_fire,
    may_fire_intensively,
    mine_removal_targets,
    minefield_attacks,
    observe,
    occupancy,
    overrun_options,
    place,
    reach_of,
    recover,
    resolve_assault,
    resolve_fire,
    resolve_overrun,
    resolve_selective,
    selective_allowed,
    side_load,
    spend_intensive,
    spotted_hexes,
    stack_loads,
)
from simulator.panzerblitz.state import (
    DEBUG,
    ELIMINATED,
    EXITED,
    FIRST_SIDE,
    N_TURNS,
    ON_MAP,
    PHASING,
    TS_ATTACK,
    TS_DEFENSE,
    TS_DISPERSED,
    TS_EXITED,
    TS_LOST,
    TS_OBJECTIVES,
    TS_ON_MAP,
    TURN,
    WAITING,
)
from simulator.panzerblitz.units import CATEGORY_INDEX

FORT = CATEGORY_INDEX["fortification"]
BLOCK = CATEGORY_INDEX["roadblock"]
MINE = CATEGORY_INDEX["minefield"]


@njit(cache=True)
def _setup_ok(st, ut, mt, mv, limits, u, h, side):
    """Legal set-up hex for unit u (PB-STACK-1, PB-MINE-1, PB-BLOCK-1, PB-FORT-1, PB-GEN-4).

    Reading (docs/rulings.md): a unit sets up only where it could stand after moving: not a
    vehicle in a swamp off the road."""
    if mt.closed[h]:
        return False
    mc = ut.mclass[st.utype[u]]
    if mc >= 0 and mv.enter_cost[h, mc] < 0 and not road_hex(mt, mv, h):
        return False
    cat = ut.category[st.utype[u]]
    has_fort = False
    for v in range(st.utype.shape[0]):
        if st.status[v] == ON_MAP and st.hex[v] == h:
            if st.side[v] != side and is_piece(st, ut, v):
                return False  # opposing units never share a hex (PB-STACK-7)
            if ut.category[st.utype[v]] == FORT:
                has_fort = True
    if cat == MINE:
        return not st.mine[h] and not has_fort
    if cat == BLOCK:
        return not st.block[h] and not has_fort
    if cat == FORT:
        return not has_fort and not st.mine[h] and not st.block[h] and not mt.swamp[h]
    return fits(st, ut, limits, h, side, u)


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
def setup_side(st, ut, mt, mv, ct, pt, limits, side, policy, params):
    """Place every unit of `side` that sets up on the map, group by group, in file order.
    The side setting up second sees the first side's units (PB-SEQ-1)."""
    n_hex = mt.neighbours.shape[0]
    options = np.empty(n_hex, dtype=np.int64)
    heuristic = policy[side] == hp.HEURISTIC
    fields = np.empty((hp.N_FIELDS, n_hex), dtype=np.int64)
    occ = occupancy(st, ut, n_hex)
    pairing = np.zeros(n_hex, dtype=np.int64)
    if heuristic:
        hp.enemy_fields(st, ut, mt, ct, side, fields)
    for u in range(st.utype.shape[0]):
        g = st.group[u]
        if st.side[u] != side or st.group_entering[g] or st.carried_by[u] >= 0:
            continue
        n = 0
        for k in range(st.group_hex_start[g], st.group_hex_start[g + 1]):
            h = st.group_hexes[k]
            if _setup_ok(st, ut, mt, mv, limits, u, h, side) and _constraints_ok(st, ut, mt, u, h):
                options[n] = h
                n += 1
        if heuristic:
            i = hp.pick_hex(st, ut, mt, ct, pt, params[side], side, u, options, n, occ, fields, pairing)
        else:
            i = choose(policy[side], params[side], SETUP_HEX, n)
        if i < 0:
            continue  # nowhere legal: the unit stays off the map (reported by the invariants)
        h = options[i]
        place(st, u, h)
        occ[h, side] += 1
        if ut.carrier[st.utype[u]]:
            pairing[h] -= 1
        elif hp.is_rider(ut, st.utype[u]):
            pairing[h] += 1
        cat = ut.category[st.utype[u]]
        if cat == MINE:
            st.mine[h] = True
        elif cat == BLOCK:
            st.block[h] = True
        log_event(st, EV_SETUP, u, h, 0, 0, 0, 0, 0)


@njit(cache=True)
def _targets(target_of):
    """The distinct target hexes declared, in increasing order (the resolution order)."""
    return np.unique(target_of[target_of >= 0])


@njit(cache=True)
def _aiming_at(target_of, h, out):
    """The units declared against hex h, written into `out`; returns how many."""
    k = 0
    for u in range(target_of.shape[0]):
        if target_of[u] == h:
            out[k] = u
            k += 1
    return k


@njit(cache=True)
def fire_phase(st, ut, mt, ct, pt, side, policy, params):
    """PB-SEQ-2 S2/S3: every attack is declared, then resolved (PB-SEQ-3.3)."""
    n_hex = mt.neighbours.shape[0]
    n_units = st.utype.shape[0]
    spotted = spotted_hexes(st, ut, mt, ct, side)  # spotters in place at the start of the turn
    occ = occupancy(st, ut, n_hex)
    if ct.indirect_fire:
        observe(st, ut, mt, side, spotted)  # PB-OPT-IF-2/3: what the CPs observe for indirect fire
    # PB-MINE-9 (OQ-13): engineers beside a minefield may try to clear it instead of firing.
    heuristic = policy[side] == hp.HEURISTIC
    mines_near = np.empty(6, dtype=np.int64)
    for u in range(n_units):
        k = mine_removal_targets(st, ut, mt, side, u, mines_near)
        if k > 0:
            i = 0 if heuristic else choose(policy[side], params[side], MINE_CLEAR, k)
            if i >= 0:
                attempt_mine_removal(st, ut, u, mines_near[i], MINE)
    target_of = np.full(n_units, -1, dtype=np.int64)
    opt_hex = np.empty(n_hex, dtype=np.int64)
    opt_af = np.empty(n_hex, dtype=np.int64)
    # The target type of every enemy stack, worked out once (it does not change while
    # attacks are being declared).
    stack_kind = np.full(n_hex, -1, dtype=np.int64)
    for h in range(n_hex):
        if occ[h, 1 - side] > 0:
            stack_kind[h] = defender_stack(st, ut, mt, h, 1 - side)[1]
    if heuristic:
        hp.plan_fire(st, ut, mt, ct, pt, params[side], side, spotted, occ, stack_kind, target_of)
        if ct.intensive_fire:
            hp.plan_intensive(st, ut, mt, ct, pt, side, spotted, stack_kind, target_of)
    else:
        for u in np.random.permutation(n_units):
            if not may_fire(st, ut, u, side):
                continue
            n = fire_options(st, ut, mt, ct, side, spotted, occ, u, opt_hex, opt_af, stack_kind)
            i = choose(policy[side], params[side], FIRE_TARGET, n)
            if i >= 0:
                target_of[u] = opt_hex[i]
                # PB-OPT-AMMO-1: random play fires intensively now and then.
                if may_fire_intensively(st, ut, ct, u, side) and \
                        choose(policy[side], params[side], INTENSIVE, 1) == 0:
                    st.intensive[u] = True
    attackers = np.empty(n_units, dtype=np.int64)
    for h in _targets(target_of):
        k = _aiming_at(target_of, h, attackers)
        if k > 0:
            # PB-STK-2: against a stack, combination (0) or selective (1) attack.
            # (the heuristic player always combines: one strong attack beats several weak ones)
            if selective_allowed(st, ut, mt, h, 1 - side) and not heuristic \
                    and choose(policy[side], params[side], TECHNIQUE, 2) == 1:
                resolve_selective(st, ut, mt, ct, side, h, attackers, k, spotted)
            else:
                resolve_fire(st, ut, mt, ct, side, h, attackers, k, spotted)
            if ct.intensive_fire:
                spend_intensive(st, attackers, k)  # PB-OPT-AMMO-2


@njit(cache=True)
def _passenger_here(st, ut, c, h, side):
    """A unit that may board carrier c in hex h (PB-TRANS-2/3/4)."""
    for p in range(st.utype.shape[0]):
        t = st.utype[p]
        if (p != c and is_piece(st, ut, p) and st.hex[p] == h and st.side[p] == side
                and not ut.vehicle[t] and not st.fired[p] and not st.dispersed[p]
                and not st.moved[p] and st.carrying[p] < 0):
            return p
    return -1


@njit(cache=True)
def move_unit(st, ut, mt, mv, ct, pt, limits, side, u, policy, params, occ, cost, prev, options, cost_o, prev_o,
              ov_entry, ov_target, ov_exit, fields):
    """One unit's move (or entry, load, unload, exit) in S4/S5."""
    heuristic = policy[side] == hp.HEURISTIC
    t = st.utype[u]
    mf = ut.movement[t]
    spent = 0
    if st.status[u] == WAITING:
        if st.entry_turn[u] > st.clock[TURN] or st.carried_by[u] >= 0:
            return
        # PB-MOVE-10/11: enter through one of the group's hexes, paying its cost.
        g = st.group[u]
        n = 0
        for k in range(st.group_hex_start[g], st.group_hex_start[g + 1]):
            h = st.group_hexes[k]
            if mv.enter_cost[h, ut.mclass[t]] >= 0 and occ[h, 1 - side] == 0:
                options[n] = h
                n += 1
        if heuristic:
            i = hp.pick_hex(st, ut, mt, ct, pt, params[side], side, u, options, n, occ, fields, fields[hp.PAIRING])
        else:
            i = choose(policy[side], params[side], ENTRY_HEX, n)
        if i < 0 or mf <= 0:
            return
        start = options[i]
        spent = mv.enter_cost[start, ut.mclass[t]]
        budget = mf - spent if spent <= mf else 0
    else:
        if (st.status[u] != ON_MAP or st.dispersed[u] or st.fired[u] or st.moved[u]
                or st.carried_by[u] >= 0 or ut.mclass[t] < 0 or mf <= 0):
            return
        start = st.hex[u]
        budget = mf
        # PB-TRANS-3 load: carrier and passenger began the turn together; neither moves (OQ-21).
        if ut.carrier[t] and st.carrying[u] < 0:
            p = _passenger_here(st, ut, u, start, side)
            if heuristic:
                load_now = p >= 0 and hp.want_load(st, ut, pt, params[side], side, u, p, fields)
            else:
                load_now = p >= 0 and choose(policy[side], params[side], LOAD, 1) == 0
            if load_now:
                st.carrying[u] = p
                st.carried_by[p] = u
                st.moved[p] = True
                log_event(st, EV_LOAD, u, p, start, 0, 0, 0, 0)
                if not ct.load_and_move:
                    st.moved[u] = True
                    return  # OQ-21: loading is the carrier's whole operation
    reach_of(st, ut, mt, mv, side, u, start, budget, occ, cost, prev)
    load = stack_loads(st, ut, mt.neighbours.shape[0])
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
    edges = st.exit_edges[side]
    if edges != 0:
        for h in range(mt.neighbours.shape[0]):
            if cost[h] >= 0 and (mt.edge_mask[h] & edges) != 0 and \
                    cost[h] + mv.enter_cost[h, ut.mclass[t]] <= budget:
                options[n] = -2 - h
                n += 1
                exits += 1
    # PB-OVR: an armored vehicle already on the map may overrun instead of moving.
    n_over = 0
    if st.status[u] == ON_MAP and ut.can_overrun[t]:
        n_over = overrun_options(st, ut, mt, mv, ct, limits, side, u, start, budget, occ, cost_o, prev_o,
                                 FORT, ov_entry, ov_target, ov_exit, load)
    if heuristic:
        i = hp.pick_move(st, ut, mt, ct, pt, params[side], side, u, options, n, n_over, ov_target, ov_exit, occ,
                         fields)
    else:
        i = choose(policy[side], params[side], MOVE_DEST, n + n_over)
    if i >= n:
        k = i - n
        rider = -1
        if ct.panzerblitz_assault and pba_rider(st, ut, side, u, ov_entry[k]) >= 0 and \
                (heuristic or choose(policy[side], params[side], PBA_DISMOUNT, 1) == 0):
            rider = pba_dismount(st, ut, side, u, ov_entry[k], ov_target[k], occ)
        _overrun(st, ut, mt, ct, side, u, start, ov_entry[k], ov_target[k], ov_exit[k], occ)
        if rider >= 0 and not st.overrun_hex[ov_target[k]]:
            st.pba_target[rider] = -1  # the overrun was not made: nothing was overrun
            st.steps[rider] = 99
        return
    dest = start if i < 0 else options[i]
    if st.status[u] == WAITING:
        if not fits(st, ut, limits, start, side, u):
            return  # no room at the entry hex this turn: it tries again next turn (PB-MOVE-11)
        place(st, u, start)
        occ[start, side] += 1
        log_event(st, EV_ENTER, u, start, spent, 0, 0, 0, 0)
    if dest <= -2:
        h = -2 - dest
        log_event(st, EV_MOVE, u, start, h, cost[h], 0, 0, 0)
        occ[start, side] -= 1
        st.hex[u] = h
        st.moved[u] = True
        exit_map(st, u, mt.edge_mask[h] & edges)
        return
    if dest != start:
        occ[start, side] -= 1
        occ[dest, side] += 1
        place(st, u, dest)
        capture_fort(st, ut, dest, side)
        st.mine_safe[u] = False
        st.steps[u] = _path_length(prev, start, dest)
        log_event(st, EV_MOVE, u, start, dest, cost[dest], 0, 0, 0)
    st.moved[u] = True
    # PB-TRANS-3 transport-and-unload: the passenger is set down and may not move this turn.
    p = st.carrying[u]
    # PB-TRANS-11 / PB-STACK-4: the hex must still be within the limit with the passenger down.
    # (never in the turn it was loaded: PB-TRANS-3, one operation per turn)
    if p >= 0 and not st.moved[p] and fits(st, ut, limits, st.hex[u], side, p) \
            and (hp.want_unload(st, pt, params[side], side, u, fields) if heuristic
                 else choose(policy[side], params[side], UNLOAD, 1) == 0):
        st.carrying[u] = -1
        st.carried_by[p] = -1
        st.hex[p] = st.hex[u]
        st.status[p] = ON_MAP
        st.moved[p] = True
        st.steps[p] = 99  # PB-CAT-9: no close assault in the turn it is unloaded
        occ[st.hex[u], side] += 1
        log_event(st, EV_UNLOAD, u, p, st.hex[u], 0, 0, 0, 0)


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
    st.carrying[u] = -1
    st.carried_by[p] = -1
    st.hex[p] = entry
    st.status[p] = ON_MAP
    st.moved[p] = True
    st.steps[p] = 1  # it got off one hex short of the target: a CAT move (PB-CAT-3)
    st.pba_target[p] = target
    occ[entry, side] += 1
    log_event(st, EV_UNLOAD, u, p, entry, 1, 0, 0, 0)  # 1: a PanzerBlitz Assault dismount
    return p


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
    movers = np.array([u], dtype=np.int64)
    log_event(st, EV_OVERRUNNER, u, start, entry, target, exit_hex, 0, 0)
    result = resolve_overrun(st, ut, mt, ct, side, movers, 1, target)
    end = exit_hex if result >= 0 else entry
    occ[start, side] -= 1
    occ[end, side] += 1
    place(st, u, end)
    st.mine_safe[u] = False
    st.moved[u] = True
    st.assaulted[u] = True  # the overrun is its one attack this turn (PB-OVR-7)
    st.steps[u] = 99
    log_event(st, EV_MOVE, u, start, end, 0, 0, 0, 0)


@njit(cache=True)
def movement_phase(st, ut, mt, mv, ct, pt, limits, side, vehicles, policy, params):
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
    fields = np.empty((hp.N_FIELDS, n_hex), dtype=np.int64)
    if policy[side] == hp.HEURISTIC:
        hp.enemy_fields(st, ut, mt, ct, side, fields)
    for u in np.random.permutation(st.utype.shape[0]):
        if st.side[u] != side or ut.vehicle[st.utype[u]] != vehicles or ut.positional[st.utype[u]]:
            continue
        move_unit(st, ut, mt, mv, ct, pt, limits, side, u, policy, params, occ, cost, prev, options,
                  cost_o, prev_o, ov_entry, ov_target, ov_exit, fields)
        if st.clock[DEBUG]:
            check(st, ut, mt, mv, limits)


@njit(cache=True)
def assault_phase(st, ut, mt, ct, pt, side, policy, params):
    """PB-SEQ-2 S5 end / PB-CAT: each eligible unit may close-assault one adjacent enemy hex."""
    n_hex = mt.neighbours.shape[0]
    n_units = st.utype.shape[0]
    occ = occupancy(st, ut, n_hex)
    target_of = np.full(n_units, -1, dtype=np.int64)
    opts = np.empty(6, dtype=np.int64)
    for u in np.random.permutation(n_units):
        if not may_assault(st, ut, u, side):
            continue
        n = 0
        for d in range(6):
            h = mt.neighbours[st.hex[u], d]
            if h >= 0 and occ[h, 1 - side] > 0 and not st.assaulted_hex[h] and \
                    (st.pba_target[u] < 0 or st.pba_target[u] == h):  # PB-OPT-PBA-1: only the overrun hex
                opts[n] = h
                n += 1
        if policy[side] == hp.HEURISTIC:
            i = hp.pick_assault(st, ut, mt, ct, pt, params[side], side, opts, n, occ)
        else:
            i = choose(policy[side], params[side], ASSAULT_TARGET, n)
        if i >= 0:
            target_of[u] = opts[i]
    group = np.empty(n_units, dtype=np.int64)
    for h in _targets(target_of):
        k = _aiming_at(target_of, h, group)
        if k > 0:
            resolve_assault(st, ut, mt, ct, side, group, k, h)
    if ct.panzerblitz_assault:
        st.pba_target[:] = -1


@njit(cache=True)
def player_turn(st, ut, mt, mv, ct, pt, limits, side, policy, params):
    st.clock[PHASING] = side
    log_event(st, EV_TURN, side, 0, 0, 0, 0, 0, 0)
    minefield_attacks(st, ut, mt, ct, side)            # S1
    fire_phase(st, ut, mt, ct, pt, side, policy, params)    # S2, S3
    if st.clock[DEBUG]:
        check(st, ut, mt, mv, limits)
    movement_phase(st, ut, mt, mv, ct, pt, limits, side, True, policy, params)   # S4 (with overruns)
    movement_phase(st, ut, mt, mv, ct, pt, limits, side, False, policy, params)  # S5
    assault_phase(st, ut, mt, ct, pt, side, policy, params)                      # S5, close assaults
    if st.clock[DEBUG]:
        check(st, ut, mt, mv, limits)
    recover(st, side)                                   # S6


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


@njit(cache=True)
def run_game(st, ut, mt, mv, ct, pt, limits, setup_order, policy, params, seed):
    """Set up, then play every game-turn (PB-SEQ-1). Mutates `st`."""
    seed_dice(seed)
    for k in range(setup_order.shape[0]):
        setup_side(st, ut, mt, mv, ct, pt, limits, setup_order[k], policy, params)
    if st.clock[DEBUG]:
        check(st, ut, mt, mv, limits)
    record_turn(st, ut, 0)
    first = st.clock[FIRST_SIDE]
    for turn in range(1, st.clock[N_TURNS] + 1):
        st.clock[TURN] = turn
        for k in range(2):
            player_turn(st, ut, mt, mv, ct, pt, limits, (first + k) % 2, policy, params)
        record_turn(st, ut, turn)
