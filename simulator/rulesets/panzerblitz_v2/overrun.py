"""Overrun (PB2-8): an armored, overrun-capable unit attacks an enemy hex as part of its move.

Step iii of an Operation (3.1, 3.b): before an active overrun-capable unit moves, its player may
pick an overrun (OVERRUN decision) instead of a plain move.  An option names the target hex, the
defender type (the non-armored units together, 8.1.2.1, or one armored unit, 8.1.2.2), the hex
adjacent to it the overrunner attacks from, the DFT column and the modifiers.  It is legal when:

- the unit has LoS to the target hex before moving and at least one unit there is Spotted (or
  would be now, 6.1.2) (8.2.1.2);
- the target hex allows overrun (8.2.3 no woods, town, city, swamp; 8.2.4 no gully; the terrain
  chart's `overrun_allowed`) and was not overrun in this Operation (8.2.5, the OVR marker);
- the unit reaches the adjacent hex without the road rate (8.2.1.3) with 2 MP plus the cost of
  entering the target hex left (8.1.1); or it starts adjacent and could enter the target hex
  normally, at +1 per MP missing (8.1.10, `overrun_per_missing_mp`).

The engine (game.py) moves the unit to the adjacent hex with opportunity fire on the way; one
stopped or disrupted on the way does not overrun (8.1.1).  Then `resolve_overrun`: the defenders'
reaction fire at the overrunner's hex (7.9, 8.1.5); disrupted by it, it drops out (7.9.1); else
one roll on the DFT by the DF methods (8.1.6) with range 1 and the overrun modifier (8.1.7, net
-2), -1 more against infantry in the open (8.1.7), the defenders' TEM and modifiers (7.6.2);
results apply normally (8.1.8); if every defender is gone the overrunner enters the hex free,
without opportunity fire (8.1.9).  The overrunner is Spent.

Readings (engine.md, "Overrun"): one overrunner an overrun (several overrunners combining, 8.1.3,
and a lone overrunner splitting its factors over both defender types, 8.1.4, are not offered);
for each target the adjacent hex reached for the fewest MP (ties: the better cover); an
overrunner that empties the hex ends its move there (8.1.9 lets it move on).
"""

from __future__ import annotations

import numpy as np

from simulator.jit import njit
from simulator.rulesets.panzerblitz_v2.assault import reaction_fire
from simulator.rulesets.panzerblitz_v2.combat import (
    defender_drm,
    fire_column,
    log_event,
    range_drm,
    resolve_attack,
    spotted_now,
    stack_sp,
)
from simulator.rulesets.panzerblitz_v2.movement import UNREACHED, enemy_in, enter_cost
from simulator.rulesets.panzerblitz_v2.smoke import sees
from simulator.rulesets.panzerblitz_v2.state import EV_ADVANCE
from simulator.rulesets.panzerblitz_v2.tables import (
    ALL_MA,
    K_OVERRUN,
    M_OVR,
    M_OVR_MISSING_MP,
    PROHIBITED,
)

OVR_MP2 = 4        # 8.1.1: 2 MP (in half MP) on top of the cost of entering the target hex


@njit(cache=True)
def overrun_attacker_drm(t, missing_mp):
    """8.1.7: range 1 and the overrun modifier (net -2); 8.1.10: +1 per MP missing."""
    return range_drm(t, 1) + t.drm_value[M_OVR] + missing_mp * t.drm_value[M_OVR_MISSING_MP]


@njit(cache=True)
def overrun_targets(t, st, h, target_unit, enemy, out):
    """The defenders of an overrun: one armored unit, or every non-armored unit of the hex."""
    if target_unit >= 0:
        if st.hex[target_unit] != h:
            return 0
        out[0] = target_unit
        return 1
    n = 0
    for e in range(t.n_units):
        if st.hex[e] == h and t.u_side[e] == enemy and not t.t_armored[t.u_type[e]]:
            out[n] = e
            n += 1
    return n


@njit(cache=True)
def _add(t, st, u, h, target_unit, frm, missing, n, tg):
    enemy = 1 - t.u_side[u]
    nt = overrun_targets(t, st, h, target_unit, enemy, tg)
    if nt == 0 or n >= st.opts.shape[0]:
        return n
    firers = np.empty(1, dtype=np.int64)
    firers[0] = u
    col = fire_column(t, st, firers, 1, np.ones(1, dtype=np.int64), tg, nt, target_unit >= 0)
    if col < 0:
        return n
    unsp = 0
    dis = 0
    for i in range(nt):
        if st.unspotted[tg[i]] and not spotted_now(t, st, tg[i]):
            unsp += 1
        if st.disrupted[tg[i]]:
            dis += 1
    st.opts[n, 0] = h
    st.opts[n, 1] = target_unit
    st.opts[n, 2] = frm
    st.opts[n, 3] = col
    st.opts[n, 4] = overrun_attacker_drm(t, missing) + defender_drm(t, st, tg[:nt], nt, 2 * unsp >= nt, K_OVERRUN,
                                                                     False, False)
    st.opts[n, 5] = nt
    st.opts[n, 6] = dis
    st.opts[n, 7] = missing
    return n + 1


@njit(cache=True)
def enemy_hexes(t, st, enemy):
    """The hexes holding a unit of `enemy` (speed only: the others are never a target)."""
    occupied = np.zeros(t.n_hexes, dtype=np.bool_)
    for e in range(t.n_units):
        if st.hex[e] >= 0 and t.u_side[e] == enemy:
            occupied[st.hex[e]] = True
    return occupied


@njit(cache=True)
def target_hex(t, st, h, start, enemy, occupied):
    """May hex h be overrun from a move starting at `start`: in LoS, no OVR marker yet (8.2.5),
    no artificial terrain (8.2.4, 15.5.7), a spotted enemy unit in it (8.2.1.2)?"""
    if not occupied[h] or not t.play[h] or not t.overrun_ok[h] or st.ovr_op[h] == st.op[0] or \
            not sees(t, st, start, h):
        return False
    if st.mine_col[h] >= 0 or st.block[h] or st.fort[h] >= 0:
        return False                                   # 8.2.4, 15.5.7: no overrun into artificial terrain
    for e in range(t.n_units):
        if st.hex[e] == h and t.u_side[e] == enemy and (not st.unspotted[e] or spotted_now(t, st, e)):
            return True
    return False                                       # 8.2.1.2


@njit(cache=True)
def any_target(t, st, u, start):
    """Is there a hex unit u could overrun from `start` (before its moves are searched)?"""
    enemy = 1 - t.u_side[u]
    occupied = enemy_hexes(t, st, enemy)
    for h in range(t.n_hexes):
        if target_hex(t, st, h, start, enemy, occupied):
            return True
    return False


@njit(cache=True)
def overrun_options(t, st, u, start, nl):
    """OVERRUN options for unit u at `start`, st.reach / st.order[:nl] holding its moves without
    the road rate: row 0 = no overrun; then (target hex, armored unit or -1, hex attacked from,
    column, DRM, defenders, disrupted defenders, MP missing)."""
    st.opts[0, 0] = -1
    for k in range(1, 8):
        st.opts[0, k] = 0
    n = 1
    side = t.u_side[u]
    enemy = 1 - side
    ma = t.t_ma[t.u_type[u]]
    tg = np.empty(t.n_units, dtype=np.int64)
    reached = np.zeros(t.n_hexes, dtype=np.bool_)
    for i in range(nl):
        reached[st.order[i]] = True
    occupied = enemy_hexes(t, st, enemy)
    for h in range(t.n_hexes):
        if not target_hex(t, st, h, start, enemy, occupied):
            continue
        best = -1
        best_cost = UNREACHED
        best_tem = -99
        missing = 0
        for d in range(6):
            a = t.neighbours[h, d]
            if a < 0 or not reached[a]:
                continue
            back = -1
            for dd in range(6):
                if t.neighbours[a, dd] == h:
                    back = dd
            if back < 0:
                continue
            c = enter_cost(t, u, a, back, h, False)
            if c == PROHIBITED or c == ALL_MA:
                continue
            need = st.reach[a] + OVR_MP2 + c
            miss = 0
            if need > ma:
                if a != start or c > ma:
                    continue
                miss = (need - ma + 1) // 2            # 8.1.10: whole MP missing, in MP
            tem = t.tem_df[a]
            if st.reach[a] < best_cost or (st.reach[a] == best_cost and tem > best_tem):
                best = a
                best_cost = st.reach[a]
                best_tem = tem
                missing = miss
        if best < 0:
            continue
        armored_done = False
        for e in range(t.n_units):
            if st.hex[e] == h and t.u_side[e] == enemy and t.t_armored[t.u_type[e]]:
                n = _add(t, st, u, h, e, best, missing, n, tg)
            elif st.hex[e] == h and t.u_side[e] == enemy and not armored_done:
                armored_done = True                    # the non-armored defenders: one option
                n = _add(t, st, u, h, -1, best, missing, n, tg)
    return n


@njit(cache=True)
def resolve_overrun(t, st, u, h, target_unit, missing):
    """8.1.2-8.1.9 once the overrunner stands adjacent to hex h: reaction fire, the attack, the
    free entry of an emptied hex.  Returns the DFT result (-1: no attack)."""
    side = t.u_side[u]
    enemy = 1 - side
    st.ovr_op[h] = st.op[0]                            # 8.2.5: the OVR marker
    att = np.empty(1, dtype=np.int64)
    att[0] = u
    reaction_fire(t, st, h, st.hex[u], att, 1, enemy)  # 7.9, 8.1.5
    st.spent[u] = True
    st.acted[u] = True
    if st.hex[u] < 0 or st.disrupted[u]:
        return -1                                      # 7.9.1
    tg = np.empty(t.n_units, dtype=np.int64)
    nt = overrun_targets(t, st, h, target_unit, enemy, tg)
    if nt == 0:
        return -1
    armored = target_unit >= 0
    col = fire_column(t, st, att, 1, np.ones(1, dtype=np.int64), tg, nt, armored)
    if col < 0:
        return -1
    res = resolve_attack(t, st, att, 1, np.ones(1, dtype=np.int64), h, tg[:nt].copy(), nt, armored, K_OVERRUN,
                         False, False, side, col, overrun_attacker_drm(t, missing))
    if not enemy_in(t, st, h, side) and stack_sp(t, st, h, side, u) <= t.stack_limit:
        log_event(st, EV_ADVANCE, side, u, st.hex[u], h, 0, 0)     # 8.1.9
        st.hd_hex[u] = -1                                            # 15.6.3
        st.mine_ok[u] = False                                        # (no minefield there, 8.2.4)
        st.hex[u] = h
    return res
