"""Overrun (PB-OVR): the targets and paths an armored unit may overrun by, across a board edge
and from off the map too (PB-OVR-10), and the overrun attack itself.
"""

from __future__ import annotations

import numpy as np

from simulator.jit import njit
from simulator.rulesets.panzerblitz.combat import ARMORED, CLASS_I, HILLTOP
from simulator.rulesets.panzerblitz.events import EV_OVERRUN
from simulator.rulesets.panzerblitz.fire import defender_stack, dispersed_modifier, odds_of
from simulator.rulesets.panzerblitz.losses import roll_and_apply
from simulator.rulesets.panzerblitz.movement import reachable
from simulator.rulesets.panzerblitz.presence import exit_edges_of, is_piece
from simulator.rulesets.panzerblitz.state import EXITED, ON_MAP


@njit(cache=True)
def _has_fort(st, ut, h, fort_category):
    for v in range(st.utype.shape[0]):
        if st.status[v] == ON_MAP and st.hex[v] == h and ut.category[st.utype[v]] == fort_category:
            return True
    return False


@njit(cache=True)
def _armored_vehicle_in(st, ut, h, side):
    for v in range(st.utype.shape[0]):
        if is_piece(st, ut, v) and st.hex[v] == h and st.side[v] == side and ut.armored[st.utype[v]] \
                and ut.vehicle[st.utype[v]]:
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
    the mover must afford entry hex + target + the exit hex directly opposite the entry."""
    n_hex = mt.neighbours.shape[0]
    enemy_flag = np.zeros(n_hex, dtype=np.bool_)
    for h in range(n_hex):
        enemy_flag[h] = occ[h, 1 - side] > 0
    stop_here = np.zeros(n_hex, dtype=np.bool_)
    for h in range(n_hex):
        stop_here[h] = st.mine[h] or st.block[h]
    no_road = np.zeros(n_hex, dtype=np.bool_)
    t = st.utype[u]
    mclass = ut.mclass[t]
    step = mv.assault_cost[mclass]  # PB-OVR-3: no road rate, 1 MF a town hex (PB-TEC-4)
    reachable(start, budget, step, mv.road_side, False, mv.road_cost, mv.swamp_stack_cost, mt.neighbours,
              no_road, no_road, no_road, enemy_flag, stop_here, st.block, cost, prev)
    n = 0
    for target in range(n_hex):
        if occ[target, 1 - side] == 0:
            continue
        near = False
        for d in range(6):
            e = mt.neighbours[target, d]
            if e >= 0 and cost[e] >= 0:
                near = True
        if not near or not overrun_target_ok(st, ut, mt, ct, side, u, target, occ, fort_category):
            continue
        for d in range(6):
            e = mt.neighbours[target, d]          # entry hex, on side d of the target
            x = mt.neighbours[target, (d + 3) % 6]  # exit hex, directly opposite
            if e < 0 or x < 0 or cost[e] < 0 or st.mine[e] or enemy_flag[x]:
                continue
            if e != start and stop_here[e]:
                continue  # a mover stopped before the target cannot overrun (QA/Overrun)
            into = step[e, (d + 3) % 6]
            out = step[target, (d + 3) % 6]
            if into < 0 or out < 0 or cost[e] + into + out > budget:
                continue
            if load[x, side] + ut.stack_count[t] > limits[side]:
                continue  # PB-OVR-8: stacking applies in the exit hex
            if e != start and load[e, side] + ut.stack_count[t] > limits[side]:
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
    for target in range(n_hex):
        if occ[target, 1 - side] == 0 or (mt.edge_mask[target] & edges) == 0:
            continue
        if not overrun_target_ok(st, ut, mt, ct, side, u, target, occ, fort_category):
            continue
        for d in range(6):
            e = mt.neighbours[target, d]
            if e < 0 or mt.neighbours[target, (d + 3) % 6] >= 0 or cost[e] < 0 or st.mine[e]:
                continue
            if e != start and (st.block[e] or load[e, side] + ut.stack_count[t] > limits[side]):
                continue
            into = step[e, (d + 3) % 6]
            if into < 0 or cost[e] + into + mv.clear_cost[mclass] > budget:
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
