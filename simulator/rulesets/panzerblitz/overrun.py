"""Overrun (PB-OVR): the targets and paths an armored unit may overrun by, across a board edge
and from off the map too (PB-OVR-10), the overrun attack itself, and the overrunners' moves:
others joining one overrun (PB-OVR-4, offered to the players), the move to the entry hexes and
on to the exit hexes (PB-OVR-8/9), entering or leaving the map by overrun (PB-OVR-10).
"""

from __future__ import annotations

import numpy as np

from simulator.jit import njit
from simulator.rulesets.panzerblitz import dispatch as ask
from simulator.rulesets.panzerblitz.combat import ARMORED, CLASS_I, HILLTOP
from simulator.rulesets.panzerblitz.decision_kinds import OVERRUN_JOIN
from simulator.rulesets.panzerblitz.dispatch import ENTRY, EXIT, HEX, TARGET
from simulator.rulesets.panzerblitz.events import (
    EV_ENTER,
    EV_MOVE,
    EV_OVERRUN,
    EV_OVERRUNNER,
    log_event,
)
from simulator.rulesets.panzerblitz.fire import defender_stack, dispersed_modifier, odds_of
from simulator.rulesets.panzerblitz.forts import settle_on_top
from simulator.rulesets.panzerblitz.losses import roll_and_apply
from simulator.rulesets.panzerblitz.move_view import ANY_ENEMY, MINE_OR_BLOCK, view_loads
from simulator.rulesets.panzerblitz.movement import (
    OVERRUN_CLOSED,
    OVERRUN_START_CLOSED,
    OVERRUN_STOP,
    reachable_bits,
)
from simulator.rulesets.panzerblitz.presence import (
    came_back,
    exit_edges_of,
    exit_map,
    is_piece,
    mark_passed,
    occupied_by,
    pass_through,
    place,
)
from simulator.rulesets.panzerblitz.state import EXITED, NO_ASSAULT_STEPS, ON_MAP
from simulator.rulesets.panzerblitz.units import CATEGORY_INDEX

FORT = CATEGORY_INDEX["fortification"]


# The loops below read the structs' arrays once, before the loop: a struct field read inside a
# loop is reference-counted at every pass (docs/performance.md, round 9).

@njit(cache=True)
def _has_fort(st, ut, h, fort_category):
    status, unit_hex, utype, category = st.status, st.hex, st.utype, ut.category
    for v in range(utype.shape[0]):
        if status[v] == ON_MAP and unit_hex[v] == h and category[utype[v]] == fort_category:
            return True
    return False


@njit(cache=True)
def _armored_vehicle_in(st, ut, h, side):
    unit_hex, unit_side, utype, armored, vehicle = st.hex, st.side, st.utype, ut.armored, ut.vehicle
    for v in range(utype.shape[0]):
        if unit_hex[v] == h and unit_side[v] == side and is_piece(st, ut, v) and armored[utype[v]] \
                and vehicle[utype[v]]:
            return True
    return False


@njit(cache=True)
def overrun_target_ok(st, ut, mt, ct, side, u, h, occ, fort_category):
    """PB-OVR-1/2: may unit u overrun the enemy stack in h?"""
    enemy = 1 - side
    if occ[h, enemy] == 0 or st.overrun_hex[h] or not mt.overrun_ok[h]:
        return False
    if st.mine[h] or st.block[h] or st.wrecks[h, 0] + st.wrecks[h, 1] > 0 or _has_fort(st, ut, h, fort_category):
        return False
    # Halftracks (I-class armored vehicles) overrun only non-armored targets (OQ-11: a hex
    # holding any armored vehicle is barred).
    if ut.weapon[st.utype[u]] == CLASS_I:
        if ct.halftrack_majority:
            _, kind, _, _ = defender_stack(st, ut, mt, h, enemy)
            if kind == ARMORED:
                return False  # OQ-11 alternative: majority rule of PB-WEC-6
        elif _armored_vehicle_in(st, ut, h, enemy):
            return False
    return True


@njit(cache=True)
def overrun_options(st, ut, mt, mv, ct, limits, side, u, start, budget, occ, cost, prev, fort_category,
                    out_entry, out_target, out_exit, load):
    """PB-OVR-3: every (entry, target, exit) path unit u can overrun along this turn.

    The approach is searched without the road rate and at 1 MF per town hex (assaulting);
    the mover must afford entry hex + target + the exit hex directly opposite the entry.
    `load` is the movement view's (`move_view.view_loads`, just brought up to date): the
    search's flags are the view's too (its packed `st.view_bits`, and the rows read below), kept
    through the phase rather than made per call."""
    n_hex = mt.neighbours.shape[0]
    flags = st.view_flags
    enemy_flag = flags[ANY_ENEMY]
    stop_here = flags[MINE_OR_BLOCK]
    t = st.utype[u]
    mclass = ut.mclass[t]
    step = mv.assault_cost[mclass]  # PB-OVR-3: no road rate, 1 MF a town hex (PB-TEC-4)
    # An entry hex must leave the MF for two more steps (into the target, then out of it into
    # the exit hex or the off-map clear hex, PB-OVR-10), so the approach is searched only as far
    # as that leaves: the same costs and paths up to there (Dial's order does not depend on the
    # budget), no hex beyond it could be an entry.  Without PB-MOVE-4's one-hex minimum, which
    # gives a start's neighbour the whole budget: such an entry never affords the two steps.
    least = mv.least_assault_step[mclass]
    reach = budget
    if least > 0:
        reach = max(0, min(budget, budget - least - min(least, mv.clear_cost[mclass])))
    reachable_bits(start, reach, mv.assault_step[mclass], False, mv.road_cost, mv.swamp_stack_cost, mt.neighbours,
                   st.view_bits, OVERRUN_START_CLOSED, OVERRUN_CLOSED, OVERRUN_STOP, reach == budget, cost, prev,
                   st.search_scratch, st.search_reached)
    n = 0
    neighbours, mine = mt.neighbours, st.mine
    count, limit = ut.stack_count[t], limits[side]
    for target in range(n_hex):
        if occ[target, 1 - side] == 0:
            continue
        near = False
        for d in range(6):
            e = neighbours[target, d]
            if e >= 0 and cost[e] >= 0:
                near = True
        if not near or not overrun_target_ok(st, ut, mt, ct, side, u, target, occ, fort_category):
            continue
        for d in range(6):
            e = neighbours[target, d]          # entry hex, on side d of the target
            x = neighbours[target, (d + 3) % 6]  # exit hex, directly opposite
            if e < 0 or x < 0 or cost[e] < 0 or mine[e] or enemy_flag[x]:
                continue
            if e != start and stop_here[e]:
                continue  # a mover stopped before the target cannot overrun (QA/Overrun)
            into = step[e, (d + 3) % 6]
            out = step[target, (d + 3) % 6]
            if into < 0 or out < 0 or cost[e] + into + out > budget:
                continue
            if load[x, side] + count > limit:
                continue  # PB-OVR-8: stacking applies in the exit hex
            if e != start and load[e, side] + count > limit:
                continue  # PB-OVR-9: a cancelled overrun ends in the entry hex, so it must fit too
            out_entry[n] = e
            out_target[n] = target
            out_exit[n] = x
            n += 1
    return n


@njit(cache=True)
def resolve_overrun(st, ut, mt, ct, side, movers, n_movers, target):
    """PB-OVR-5/6/9: printed AF against the combined printed DF, one column up, -2 on the die.
    Returns the result, or -1 if the odds are below the table (the overrun is not made)."""
    enemy = 1 - side
    df, _, n_def, n_disp = defender_stack(st, ut, mt, target, enemy)
    af = 0
    for i in range(n_movers):
        x = ut.attack[st.utype[movers[i]]]
        # OQ-10 alternative: halve against a defender on a hilltop (an attacker there is spared).
        if ct.overrun_hill_halving and mt.level[target] == HILLTOP and mt.level[st.hex[movers[i]]] != HILLTOP:
            x = int(np.floor(x * ct.halving))
        af += x
    if df <= 0 or af <= 0:
        return -1
    col = odds_of(ct, af, df)
    if col < 0:
        return -1  # PB-OVR-9 (reading: odds below the table are not shifted onto it)
    col = min(col + 1, ct.crt.shape[1] - 1)  # PB-CBT-8
    modifier = ct.mod_overrun + dispersed_modifier(ct, n_def, n_disp)
    st.overrun_hex[target] = True
    return roll_and_apply(st, ut, ct, EV_OVERRUN, target, af, df, col, modifier, enemy)


@njit(cache=True)
def edge_overrun_options(st, ut, mt, mv, ct, limits, side, u, start, budget, occ, cost, fort_category,
                         out_entry, out_target, out_exit, n, load):
    """PB-OVR-10, leaving: an overrun of an enemy unit on a map edge the side may leave by
    (PB-MOVE-10), the exit hex being the imaginary off-map hex opposite the entry hex, at the
    cost of a clear hex.  Appended to overrun_options' n options (whose search filled `cost`),
    with exit -1: the overrunner leaves the map.  Returns the new count."""
    edges = exit_edges_of(st, u)
    if edges == 0:
        return n
    t = st.utype[u]
    mclass = ut.mclass[t]
    n_hex = mt.neighbours.shape[0]
    step = mv.assault_cost[mclass]  # PB-OVR-3
    neighbours, edge_mask, mine, block = mt.neighbours, mt.edge_mask, st.mine, st.block
    count, limit, clear = ut.stack_count[t], limits[side], mv.clear_cost[mclass]
    for target in range(n_hex):
        if occ[target, 1 - side] == 0 or (edge_mask[target] & edges) == 0:
            continue
        if not overrun_target_ok(st, ut, mt, ct, side, u, target, occ, fort_category):
            continue
        for d in range(6):
            e = neighbours[target, d]
            if e < 0 or neighbours[target, (d + 3) % 6] >= 0 or cost[e] < 0 or mine[e]:
                continue
            if e != start and (block[e] or load[e, side] + count > limit):
                continue
            into = step[e, (d + 3) % 6]
            if into < 0 or cost[e] + into + clear > budget:
                continue
            out_entry[n] = e
            out_target[n] = target
            out_exit[n] = -1
            n += 1
    return n


@njit(cache=True)
def entry_overrun_options(st, ut, mt, mv, ct, limits, side, u, occ, fort_category, out_target, out_exit, load):
    """PB-OVR-10, entering: unit u, not yet on the map (or coming back on, PB-SIT-5), overruns
    an enemy unit in one of its group's entry hexes (in its return hex), the off-map hex being
    the entry hex; the exit hex, opposite it, must be enterable, free of enemy units and within
    the stacking limit, and u must have the MF for the target and the exit hex.  Returns how
    many (target, exit) options."""
    t = st.utype[u]
    mclass = ut.mclass[t]
    step = mv.assault_cost[mclass]  # PB-OVR-3
    g = st.group[u]
    n = 0
    # PB-SIT-5: a unit coming back from a round trip enters by the hex where it left, and only by
    # it (QA/Overrun c: it may overrun an enemy unit there).
    back = st.status[u] == EXITED
    first = 0 if back else st.group_hex_start[g]
    last = 1 if back else st.group_hex_start[g + 1]
    for k in range(first, last):
        target = st.trip_hex[u] if back else st.group_hexes[k]
        if occ[target, 1 - side] == 0 or mv.enter_cost[target, mclass] < 0:
            continue
        if not overrun_target_ok(st, ut, mt, ct, side, u, target, occ, fort_category):
            continue
        for d in range(6):
            if mt.neighbours[target, d] >= 0:
                continue  # the entry side must be off the map
            x = mt.neighbours[target, (d + 3) % 6]
            if x < 0 or occ[x, 1 - side] > 0 or mt.closed[x] or load[x, side] + ut.stack_count[t] > limits[side]:
                continue
            out = step[target, (d + 3) % 6]
            if out < 0 or mv.enter_cost[target, mclass] + out > ut.movement[t]:
                continue
            out_target[n] = target
            out_exit[n] = x
            n += 1
    return n


# The overrun's movement: the overrunners (one, or several together, PB-OVR-4) moved up to
# their entry hexes, the attack, and each to its exit hex; entering or leaving the map by overrun
# (PB-OVR-10).

@njit(cache=True)
def single_overrun(st, ut, mt, ct, side, u, start, entry, target, exit_hex, occ):
    """PB-OVR-3..9: move to the entry hex, attack, end in the exit hex (or the entry hex if
    the odds are below the table)."""
    overrun_movers(st, ut, mt, ct, side, np.array([u], dtype=np.int64), np.array([start], dtype=np.int64),
                    np.array([entry], dtype=np.int64), np.array([exit_hex], dtype=np.int64), 1, target, occ)


@njit(cache=True)
def overrun_movers(st, ut, mt, ct, side, movers, starts, entries, exits, n, target, occ):
    """The n movers, each at its entry hex, overrun `target` in one attack (PB-OVR-4/5), then
    each ends in its exit hex, or its entry hex if the odds are below the table (PB-OVR-8/9)."""
    for q in range(n):
        log_event(st, EV_OVERRUNNER, movers[q], starts[q], entries[q], target, exits[q], 0, 0)
    result = resolve_overrun(st, ut, mt, ct, side, movers, n, target)
    if result >= 0:
        st.engaged[side] = True  # PB-VIC-6
        # PB-VIC-5: an overrun that destroys the occupants counts as passing through.
        if not occupied_by(st, ut, target, 1 - side):
            mark_passed(st, target, side)
    for q in range(n):
        w = movers[q]
        end = exits[q] if result >= 0 else entries[q]
        if end < 0:
            overrun_off_map(st, ut, mt, side, w, starts[q], target, occ)  # PB-OVR-10
            continue
        mark_passed(st, end, side)
        occ[starts[q], side] -= 1
        occ[end, side] += 1
        place(st, w, end)
        settle_on_top(st, ut, w)  # PB-FORT-12: a cancelled overrun from the top of an enemy fort stays there
        st.mine_safe[w] = False
        st.moved[w] = True
        st.assaulted[w] = True  # the overrun is its one attack this turn (PB-OVR-7)
        st.steps[w] = NO_ASSAULT_STEPS
        log_event(st, EV_MOVE, w, starts[q], end, 0, 0, 0, 0)


@njit(cache=True)
def overrun_off_map(st, ut, mt, side, u, start, target, occ):
    """PB-OVR-10: an overrunner leaving the map through the imaginary hex beyond the target."""
    occ[start, side] -= 1
    st.moved[u] = True
    st.assaulted[u] = True
    st.steps[u] = NO_ASSAULT_STEPS
    log_event(st, EV_MOVE, u, start, target, 0, 0, 0, 0)
    st.hex[u] = target
    exit_map(st, u, mt.edge_mask[target] & exit_edges_of(st, u))


@njit(cache=True)
def overrun_entering(st, ut, mt, ct, side, u, target, exit_hex, occ):
    """PB-OVR-10: unit u enters the map by overrunning the enemy in an entry hex from the
    off-map hex; it ends in the exit hex, or, if the odds are below the table, stays off the map
    (it tries again next turn: the entry hex it would be put back in is off the map)."""
    movers = np.array([u], dtype=np.int64)
    log_event(st, EV_OVERRUNNER, u, -1, -1, target, exit_hex, 0, 0)
    result = resolve_overrun(st, ut, mt, ct, side, movers, 1, target)
    if result < 0:
        return
    st.engaged[side] = True  # PB-VIC-6
    if not occupied_by(st, ut, target, 1 - side):
        mark_passed(st, target, side)  # PB-VIC-5
    mark_passed(st, exit_hex, side)
    back = st.status[u] == EXITED
    place(st, u, exit_hex)
    if back:
        came_back(st, u)  # PB-SIT-5, QA/Overrun c: back on by overrunning the enemy in its return hex
    occ[exit_hex, side] += 1
    st.moved[u] = True
    st.assaulted[u] = True  # its one attack this turn (PB-OVR-7)
    st.steps[u] = NO_ASSAULT_STEPS
    log_event(st, EV_ENTER, u, exit_hex, 0, 0, 0, 0, 0)


@njit(cache=True)
def overrun_together(st, ut, mt, mv, ct, limits, side, u, start, entry, target, exit_hex, pl, occ,
                      cost_o, prev_o, ov_entry, ov_target, ov_exit):
    """PB-OVR-4: unit u overruns `target`; other armored units of its side that have not moved
    may join it, each through its own entry and exit hexes (one's entry may be another's exit),
    all moved up to the target before one combined attack.  Each candidate in turn is offered
    its paths onto the target (the random player picks one or none; the heuristic joins when
    its AF raises the odds, `hp.want_join`).  Alone, it is the single overrun of `single_overrun`."""
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
        pass_through(st, mt, side, prev_o, st.hex[v], ov_entry[j])  # PB-VIC-5: the approach
        n += 1
    overrun_movers(st, ut, mt, ct, side, movers, starts, entries, exits, n, target, occ)
