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

Round 8 A: several overrunners combine into one overrun (8.1.3, 8.2.1.1, 8.2.1.6; `join_options`,
game.join_step): once the first has picked its overrun and moved, each other active overrun-capable
unit of the side that has not acted, carries nobody (8.2.1.5) and sees the hex (8.2.1.2) may join
it (OVR_JOIN: a defender type and the hex it attacks from), moving there at once; one reaction fire
at the overrunning hex with the most overrunners (8.1.5), then one attack a defender type by the
units given to it, one roll for all of them (8.1.6, `rng.furthest`).  A lone overrunner may split its
factors equally over the non-armored units and one armored unit (8.1.4, OVERRUN column 8 = 1; half
its AP and half its AT, fractions dropped).  Those that empty the hex enter it free and move on
with the MP they have left; the first overrunner may overrun again from there (8.1.9).  No overrun
right after crossing a bridge hexside (8.2.1.7, 14.7.4).  Readings (engine.md, "Overrun",
PB2-OQ-80..82): for each target the adjacent hex reached for the fewest MP (ties: the better
cover), whose cheapest way in does not end across a bridge; 8.1.10 (MP missing) only for the
first overrunner at the start of its move; a split overrun is joined by nobody.
"""

from __future__ import annotations

import numpy as np

from simulator.jit import njit
from simulator.rulesets.panzerblitz_v2.assault import busiest_hex, reaction_fire
from simulator.rulesets.panzerblitz_v2.bridges import overrun_ok as bridge_overrun_ok
from simulator.rulesets.panzerblitz_v2.bridges import tem_df as bridge_tem_df
from simulator.rulesets.panzerblitz_v2.combat import (
    ap2,
    ap_column,
    at_column,
    at_value,
    defender_drm,
    df_value,
    expected_steps,
    fire_column,
    log_event,
    range_drm,
    resolve_attack,
    spotted_now,
    stack_sp,
    target_df,
)
from simulator.rulesets.panzerblitz_v2.movement import UNREACHED, enemy_in, enter_cost_now
from simulator.rulesets.panzerblitz_v2.rng import DICE, furthest
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
def split_columns(t, st, u, soft, ns, e):
    """8.1.4: a lone overrunner's factors split equally over the two defender types, fractions
    dropped: half its AP against the non-armored units soft[:ns], half its AT against armored unit
    e.  Returns the two DFT columns (-1: no attack of that part)."""
    half_ap2 = (ap2(t, st, u) // 4) * 2                # half the AP, in half factors, fractions dropped
    defense = 0
    for i in range(ns):
        defense += df_value(t, st, soft[i])
    c_soft = ap_column(t, half_ap2, defense) if half_ap2 > 0 else -1
    half_at = at_value(t, st, u) // 2
    c_arm = at_column(t, half_at - target_df(t, st, e)) if (half_at > 0 or t.at_zero_counts) else -1
    return c_soft, c_arm


@njit(cache=True)
def _unspotted_majority(t, st, tg, nt):
    unsp = 0
    for i in range(nt):
        if st.unspotted[tg[i]] and not spotted_now(t, st, tg[i]):
            unsp += 1
    return 2 * unsp >= nt


@njit(cache=True)
def _disrupted(st, tg, nt):
    dis = 0
    for i in range(nt):
        if st.disrupted[tg[i]]:
            dis += 1
    return dis


@njit(cache=True)
def _expect(t, col, drm, nt, dis):
    """A player's measure: the expected step losses of an attack (0 without a column)."""
    if col < 0 or nt == 0:
        return 0.0
    return expected_steps(t, col, drm, nt, dis / nt)


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
    dis = _disrupted(st, tg, nt)
    drm = overrun_attacker_drm(t, missing) + defender_drm(t, st, tg[:nt], nt, _unspotted_majority(t, st, tg, nt),
                                                          K_OVERRUN, False, False)
    st.opts[n, 0] = h
    st.opts[n, 1] = target_unit
    st.opts[n, 2] = frm
    st.opts[n, 3] = col
    st.opts[n, 4] = drm
    st.opts[n, 5] = nt
    st.opts[n, 6] = dis
    st.opts[n, 7] = missing
    st.opts[n, 8] = 0
    st.opts[n, 9] = int(100 * _expect(t, col, drm, nt, dis))
    return n + 1


@njit(cache=True)
def _add_split(t, st, u, h, e, frm, missing, n, tg):
    """8.1.4: the split row of a lone overrunner (columns 3-6 the non-armored part, column 1 the
    armored unit, column 8 = 1, column 9 the expected step losses of both parts x 100)."""
    enemy = 1 - t.u_side[u]
    ns = overrun_targets(t, st, h, -1, enemy, tg)
    if ns == 0 or n >= st.opts.shape[0]:
        return n
    c_soft, c_arm = split_columns(t, st, u, tg, ns, e)
    if c_soft < 0 or c_arm < 0:
        return n                                       # a part without a column: no gain in splitting
    adrm = overrun_attacker_drm(t, missing)
    dis = _disrupted(st, tg, ns)
    d_soft = adrm + defender_drm(t, st, tg[:ns], ns, _unspotted_majority(t, st, tg, ns), K_OVERRUN, False, False)
    one = np.empty(1, dtype=np.int64)
    one[0] = e
    d_arm = adrm + defender_drm(t, st, one, 1, _unspotted_majority(t, st, one, 1), K_OVERRUN, False, False)
    st.opts[n, 0] = h
    st.opts[n, 1] = e
    st.opts[n, 2] = frm
    st.opts[n, 3] = c_soft
    st.opts[n, 4] = d_soft
    st.opts[n, 5] = ns
    st.opts[n, 6] = dis
    st.opts[n, 7] = missing
    st.opts[n, 8] = 1
    st.opts[n, 9] = int(100 * (_expect(t, c_soft, d_soft, ns, dis) + _expect(t, c_arm, d_arm, 1, _disrupted(st, one, 1))))
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
    if not occupied[h] or not t.play[h] or not bridge_overrun_ok(t, st, h) or st.ovr_op[h] == st.op[0] or \
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
def across_bridge(t, st, a, start):
    """8.2.1.7, 14.7.4: the cheapest way into hex a (st.prev, from a search started at `start`)
    ends across a bridge hexside."""
    if a == start:
        return False
    b = st.prev[a]
    for d in range(6):
        if b >= 0 and t.neighbours[b, d] == a:
            return t.bridge_side[b, d]
    return False


@njit(cache=True)
def attack_from(t, st, u, h, start, reached, ma, allow_missing):
    """The hex adjacent to h that unit u overruns h from, among the hexes its search reached
    (st.reach: half MP spent): the fewest MP (ties: the better cover) with 2 MP and h's cost left
    (8.1.1), or, `allow_missing`, its start hex at +1 a missing MP (8.1.10); neither entered across
    a bridge hexside nor facing h across one (8.2.1.7, 14.7.4).  Returns (hex or -1, MP missing)."""
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
        if back < 0 or t.bridge_side[a, back]:
            continue                                   # 8.2.1.7: not across a bridge hexside
        c = enter_cost_now(t, st, u, a, back, h, False)
        if c == PROHIBITED or c == ALL_MA:
            continue
        need = st.reach[a] + OVR_MP2 + c
        miss = 0
        if need > ma:
            if a != start or c > ma or not allow_missing:
                continue
            miss = (need - ma + 1) // 2                # 8.1.10: whole MP missing, in MP
        if across_bridge(t, st, a, start):
            continue                                   # 8.2.1.7: not right after crossing a bridge
        tem = bridge_tem_df(t, st, a)
        if st.reach[a] < best_cost or (st.reach[a] == best_cost and tem > best_tem):
            best = a
            best_cost = st.reach[a]
            best_tem = tem
            missing = miss
    return best, missing


@njit(cache=True)
def overrun_options(t, st, u, start, nl):
    """OVERRUN options for unit u at the start of its move (8.1.10 allowed)."""
    return overrun_options_from(t, st, u, start, nl, True)


@njit(cache=True)
def overrun_options_from(t, st, u, start, nl, allow_missing):
    """OVERRUN options for unit u at `start`, st.reach / st.order[:nl] holding its moves without
    the road rate: row 0 = no overrun; then (target hex, armored target unit or -1, hex attacked
    from, column, DRM, defenders, disrupted defenders, MP missing, split 0/1 (8.1.4), expected
    step losses x 100)."""
    for k in range(st.opts.shape[1]):
        st.opts[0, k] = 0
    st.opts[0, 0] = -1
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
        best, missing = attack_from(t, st, u, h, start, reached, ma, allow_missing)
        if best < 0:
            continue
        armored_done = False
        soft = False
        for e in range(t.n_units):
            if st.hex[e] == h and t.u_side[e] == enemy and t.t_armored[t.u_type[e]]:
                n = _add(t, st, u, h, e, best, missing, n, tg)
            elif st.hex[e] == h and t.u_side[e] == enemy and not armored_done:
                armored_done = True                    # the non-armored defenders: one option
                soft = True
                n = _add(t, st, u, h, -1, best, missing, n, tg)
        for e in range(t.n_units if soft else 0):      # 8.1.4: a lone overrunner's split
            if st.hex[e] == h and t.u_side[e] == enemy and t.t_armored[t.u_type[e]]:
                n = _add_split(t, st, u, h, e, best, missing, n, tg)
    return n


# ----------------------------------------------------------------------------- 8.1.3: several overrunners

@njit(cache=True)
def may_join(t, st, v, side, att, na):
    """8.1.3, 8.2.1.4, 8.2.1.5: may unit v join the overrun of the units att[:na]: an active
    overrun-capable unit of the side that has not acted in this Operation (8.2.1.1), fresh, carrying
    nobody, not an FO?"""
    if t.u_side[v] != side or not st.active[v] or st.hex[v] < 0 or not t.t_overrun[t.u_type[v]]:
        return False
    if st.acted[v] or st.spent[v] or st.disrupted[v] or st.fired[v] or st.fo[v] or t.t_ma[t.u_type[v]] <= 0:
        return False
    for j in range(na):
        if att[j] == v:
            return False
    for p in range(t.n_units):
        if st.carried_by[p] == v:
            return False                               # 8.2.1.5: no passengers into an overrun
    return True


@njit(cache=True)
def _group(t, st, att, asg, na, kind, extra, out):
    """The overrunners of att[:na] given to defender type `kind` (an armored unit, -1 the
    non-armored units), and `extra` (>= 0) besides."""
    m = 0
    for j in range(na):
        if asg[j] == kind:
            out[m] = att[j]
            m += 1
    if extra >= 0:
        out[m] = extra
        m += 1
    return m


@njit(cache=True)
def join_options(t, st, v, h, att, asg, na, start, nl):
    """OVR_JOIN options for unit v (st.reach / st.order[:nl] its moves without the road rate) to
    join the overrun of hex h by att[:na] (their defender types asg[:na]): row 0 = stay out; one
    row a defender type: (h, armored unit or -1, hex it attacks from, the column of that type's
    attack with it, DRM, defenders, disrupted defenders, overrunners already on that type,
    expected step losses x 100 with it, without it)."""
    for k in range(st.opts.shape[1]):
        st.opts[0, k] = 0
    st.opts[0, 0] = -1
    n = 1
    enemy = 1 - t.u_side[v]
    occupied = enemy_hexes(t, st, enemy)
    if not target_hex(t, st, h, start, enemy, occupied):
        return n                                       # 8.2.1.2: LoS and a spotted defender
    reached = np.zeros(t.n_hexes, dtype=np.bool_)
    for i in range(nl):
        reached[st.order[i]] = True
    frm, missing = attack_from(t, st, v, h, start, reached, t.t_ma[t.u_type[v]], False)
    if frm < 0:
        return n
    tg = np.empty(t.n_units, dtype=np.int64)
    grp = np.empty(na + 1, dtype=np.int64)
    adrm = overrun_attacker_drm(t, 0)
    soft_done = False
    for e in range(t.n_units):
        if st.hex[e] != h or t.u_side[e] != enemy or n >= st.opts.shape[0]:
            continue
        armored = t.t_armored[t.u_type[e]]
        if not armored and soft_done:
            continue
        kind = e if armored else -1
        soft_done = soft_done or not armored
        nt = overrun_targets(t, st, h, kind, enemy, tg)
        m = _group(t, st, att, asg, na, kind, v, grp)
        col = fire_column(t, st, grp, m, np.ones(m, dtype=np.int64), tg, nt, armored)
        if col < 0:
            continue
        col0 = fire_column(t, st, grp, m - 1, np.ones(m, dtype=np.int64), tg, nt, armored) if m > 1 else -1
        dis = _disrupted(st, tg, nt)
        drm = adrm + defender_drm(t, st, tg[:nt], nt, _unspotted_majority(t, st, tg, nt), K_OVERRUN, False, False)
        st.opts[n, 0] = h
        st.opts[n, 1] = kind
        st.opts[n, 2] = frm
        st.opts[n, 3] = col
        st.opts[n, 4] = drm
        st.opts[n, 5] = nt
        st.opts[n, 6] = dis
        st.opts[n, 7] = m - 1
        st.opts[n, 8] = int(100 * _expect(t, col, drm, nt, dis))
        st.opts[n, 9] = int(100 * _expect(t, col0, drm, nt, dis))
        n += 1
    return n


@njit(cache=True)
def resolve_combined(t, st, att, asg, na, h, split, missing, entered):
    """8.1.2-8.1.9 once the overrunners att[:na] (att[0] the first, `missing` its MP missing,
    8.1.10) stand adjacent to hex h, each given a defender type asg[j] (an armored unit, -1 the
    non-armored units; `split`: att[0] alone on both, 8.1.4): the defenders' reaction fire at the
    overrunning hex with the most overrunners (7.9, 8.1.5), those it disrupts dropping out (7.9.1);
    one attack a defender type by the units given to it, by the DF methods with one roll for all
    (8.1.6), with range 1 and the overrun modifier (8.1.7); if every defender is gone, the
    overrunners enter the hex free, each while stacking allows (8.1.9: entered[j]).  All are Spent.
    Returns how many entered."""
    side = t.u_side[att[0]]
    enemy = 1 - side
    st.ovr_op[h] = st.op[0]                            # 8.2.5: the OVR marker
    for j in range(na):
        entered[j] = False
    reaction_fire(t, st, h, busiest_hex(st, att, na), att, na, enemy)  # 7.9, 8.1.5
    live = np.zeros(na, dtype=np.bool_)
    for j in range(na):
        u = att[j]
        st.spent[u] = True
        st.acted[u] = True
        live[j] = st.hex[u] >= 0 and not st.disrupted[u]      # 7.9.1
    # the attacks, their targets and columns fixed before any result (8.1.6: one roll)
    na_max = na + 1
    kinds = np.empty(na_max, dtype=np.int64)
    cols = np.empty(na_max, dtype=np.int64)
    drms = np.empty(na_max, dtype=np.int64)
    firers = np.zeros((na_max, na), dtype=np.int64)
    nfs = np.zeros(na_max, dtype=np.int64)
    tgs = np.zeros((na_max, t.n_units), dtype=np.int64)
    nts = np.zeros(na_max, dtype=np.int64)
    k = 0
    tg = np.empty(t.n_units, dtype=np.int64)
    if split and live[0]:
        ns = overrun_targets(t, st, h, -1, enemy, tg)
        e = asg[0]
        if ns > 0 and st.hex[e] == h:
            c_soft, c_arm = split_columns(t, st, att[0], tg, ns, e)
            for part in range(2):
                kinds[k] = e if part == 1 else -1
                cols[k] = c_arm if part == 1 else c_soft
                nfs[k] = 1
                firers[k, 0] = att[0]
                drms[k] = overrun_attacker_drm(t, missing)
                k += 1
    else:
        for j in range(na):
            if not live[j]:
                continue
            dup = False
            for i in range(k):
                if kinds[i] == asg[j]:
                    dup = True
            if dup:
                continue
            kinds[k] = asg[j]
            drms[k] = overrun_attacker_drm(t, 0)
            for m in range(j, na):
                if live[m] and asg[m] == asg[j]:
                    firers[k, nfs[k]] = att[m]
                    nfs[k] += 1
                    if m == 0:
                        drms[k] = overrun_attacker_drm(t, missing)
            cols[k] = -2
            k += 1
    for i in range(k):
        nts[i] = overrun_targets(t, st, h, kinds[i], enemy, tgs[i])
        if cols[i] == -2 and nts[i] > 0:
            cols[i] = fire_column(t, st, firers[i], nfs[i], np.ones(nfs[i], dtype=np.int64), tgs[i], nts[i],
                                  kinds[i] >= 0)
    s0 = st.streams[DICE]
    word = s0
    fd = np.uint64(0)
    for i in range(k):
        if nts[i] == 0 or cols[i] < 0:
            continue
        st.streams[DICE] = s0                          # 8.1.6: the same roll for every attack on the hex
        resolve_attack(t, st, firers[i, :nfs[i]].copy(), nfs[i], np.ones(nfs[i], dtype=np.int64), h,
                       tgs[i, :nts[i]].copy(), nts[i], kinds[i] >= 0, K_OVERRUN, False, False, side, cols[i], drms[i])
        word, fd = furthest(st.streams, s0, word, fd)
    st.streams[DICE] = word
    n_in = 0
    if enemy_in(t, st, h, side):
        return 0
    for j in range(na):
        u = att[j]
        if live[j] and st.hex[u] >= 0 and not st.disrupted[u] and stack_sp(t, st, h, side, u) <= t.stack_limit:
            log_event(st, EV_ADVANCE, side, u, st.hex[u], h, 0, 0)     # 8.1.9
            st.hd_hex[u] = -1                                            # 15.6.3
            st.mine_ok[u] = False                                        # (no minefield there, 8.2.4)
            st.hex[u] = h
            entered[j] = True
            n_in += 1
    return n_in


@njit(cache=True)
def resolve_overrun(t, st, u, h, target_unit, missing):
    """8.1.2-8.1.9 for a lone overrunner u on defender type target_unit (no split): reaction fire,
    the attack, the free entry of an emptied hex.  Returns 1 if it entered the hex."""
    att = np.empty(1, dtype=np.int64)
    att[0] = u
    asg = np.empty(1, dtype=np.int64)
    asg[0] = target_unit
    entered = np.zeros(1, dtype=np.bool_)
    return resolve_combined(t, st, att, asg, 1, h, False, missing, entered)
