"""Close assault tactics (PB2-9) and the reaction fire that precedes them (PB2-7.9).

Step iv of an Operation (3.1): after movement, active infantry adjacent to an enemy hex that
spent at most one MP (9.1.3, readings.cat_mp_limit), did not use road movement (9.2.2) and did
not fire, may CAT it.  An option names the target hex and the defender type (the non-armored
units together, or the armored ones together, 9.1.5) and takes every such infantry unit adjacent
to it (engine.md: attackers are not split between the two types, 9.1.6); a lone attacker may
split its factors in half over both types, one roll for both (9.1.7, 9.1.12: a row of type 3,
round 8 A).  No CAT across a bridge over an obstacle impassable on foot (9.2.5, 14.7.6).  The defenders' reaction fire comes first (7.9), at the attacking hex holding most
attackers; attackers it disrupts drop out (7.9.1).  Then one roll on the DFT with the CAT
modifiers (9.1.9-9.1.11, 14.2.6) and the defender's; if the hex is emptied, the attackers advance
into it (9.1.13).
"""

from __future__ import annotations

import numpy as np

from simulator.jit import njit
from simulator.rulesets.panzerblitz_v2.combat import (
    ap2,
    ap_column,
    at_column,
    at_value,
    attacker_drm,
    defender_drm,
    df_value,
    expected_steps,
    fort_room,
    ip_room,
    log_event,
    range_drm,
    resolve_attack,
    stack_sp,
    target_df,
)
from simulator.rulesets.panzerblitz_v2.decide import decide
from simulator.rulesets.panzerblitz_v2.players import CAT
from simulator.rulesets.panzerblitz_v2.rng import DICE, furthest
from simulator.rulesets.panzerblitz_v2.state import EV_ADVANCE, EV_CAT_SPLIT
from simulator.rulesets.panzerblitz_v2.tables import (
    CITY,
    K_CAT,
    K_REACTION,
    M_CAT,
    M_CAT_ARMOR_TOWN,
    M_CAT_CITY_VEHICLE,
    M_CAT_ENGINEER,
    TOWN,
)


@njit(cache=True)
def cat_eligible(t, st, u, side):
    """9.1.3, 9.2.2: may unit u take part in a CAT in this Operation?"""
    if t.u_side[u] != side or not st.active[u] or st.hex[u] < 0 or st.disrupted[u] or st.fired[u] or st.fo[u]:
        return False                                    # an FO may not CAT (11.2.2)
    # 9.1.3.1: a unit in an IP spends 1 MP to leave it for the CAT (and may go back in if it does not
    # advance: it stays in it), counted in the 1 MP of 9.1.3
    if not t.t_infantry[t.u_type[u]] or st.road_op[u] or \
            st.mp_op[u] + (t.ip_extra2 if st.in_ip[u] else 0) > t.cat_mp_limit2:
        return False
    if st.in_fort[u] or st.mine_col[st.hex[u]] >= 0:
        return False                                    # 15.5.8, 9.2.3
    if st.carried_op[u] == st.op[0]:
        return False                                    # 9.2.1: a passenger in this Operation (10.0 aside)
    return st.mp_op[u] > 0 or not st.spent[u]


@njit(cache=True)
def _targets(t, st, h, a, enemy, out):
    """The defenders of a CAT of type `a`: 0 the non-armored units, 1 the armored units, 2 the
    units in the hex's fortification (15.5.3: one armored target, the fortification's DF)."""
    n = 0
    for u in range(t.n_units):
        if st.hex[u] != h or t.u_side[u] != enemy or st.cat_target_op[u] == st.op[0]:
            continue
        if (a == 2 and st.in_fort[u]) or (a < 2 and not st.in_fort[u] and t.t_armored[t.u_type[u]] == (a == 1)):
            out[n] = u
            n += 1
    return n


@njit(cache=True)
def across_impassable_bridge(t, a, h):
    """9.2.5, 14.7.6: hexes a and h are joined by a bridge whose bridged obstacle is impassable
    (on foot, without the bridge: `bridge_no_cat`); no CAT across it."""
    for d in range(6):
        if t.neighbours[a, d] == h:
            return t.bridge_no_cat[a, d]
    return False


@njit(cache=True)
def _attackers(t, st, h, armored, side, out):
    n = 0
    for u in range(t.n_units):
        if not cat_eligible(t, st, u, side) or t.dist[st.hex[u], h] != 1 or across_impassable_bridge(t, st.hex[u], h):
            continue
        if (armored and at_value(t, st, u) > 0) or (not armored and ap2(t, st, u) > 0):
            out[n] = u
            n += 1
    return n


@njit(cache=True)
def cat_column(t, st, att, na, tgt, nt, armored):
    """9.1.9: odds or differential as DF; the armored defenders' combined defence by
    readings.cat_armored_defense (PB2-OQ-69)."""
    return cat_column_half(t, st, att, na, tgt, nt, armored, False)


@njit(cache=True)
def cat_column_half(t, st, att, na, tgt, nt, armored, half):
    """cat_column; `half`: a lone attacker's factors split in half over the two defender types,
    fractions dropped (9.1.7)."""
    if armored:
        best = 0
        k = 0
        for i in range(na):
            a = at_value(t, st, att[i])
            if half:
                a = a // 2
            if a > 0:
                best = max(best, a)
                k += 1
        if k == 0:
            return -1
        dbest = 0
        dsum = 0
        for i in range(nt):
            dbest = max(dbest, df_value(t, st, tgt[i]))
            dsum += df_value(t, st, tgt[i])
        defense = dbest + t.at_additional * (nt - 1) if t.cat_def_highest else dsum
        if st.in_fort[tgt[0]]:
            defense = target_df(t, st, tgt[0])          # 15.5.3: the fortification's DF, as one unit
        return at_column(t, best + t.at_additional * (k - 1) - defense)
    attack2 = 0
    for i in range(na):
        a2 = ap2(t, st, att[i])
        attack2 += (a2 // 4) * 2 if half else a2         # (half factors; 9.1.7 drops the fraction)
    if half and attack2 <= 0:
        return -1
    defense = 0
    for i in range(nt):
        defense += df_value(t, st, tgt[i])
    return ap_column(t, attack2, defense)


@njit(cache=True)
def cat_attacker_drm(t, st, att, na, h, tgt, nt, armored):
    """9.1.9 (-1 CAT, range 0), 9.1.10 / 17.4 (an engineer, once), 9.1.11 (armor in a town or
    city), 14.2.6 (from a city at vehicles in a city; readings.cat_city_modifiers_add)."""
    drm = range_drm(t, 0) + t.drm_value[M_CAT]
    eng = False
    from_city = 0
    for i in range(na):
        if t.t_engineer[t.u_type[att[i]]]:
            eng = True
        if t.cover[st.hex[att[i]]] == CITY:
            from_city += 1
    if eng:
        drm += t.drm_value[M_CAT_ENGINEER]
    town = t.cover[h] == TOWN or t.cover[h] == CITY
    if armored and town:
        drm += t.drm_value[M_CAT_ARMOR_TOWN]
    if armored and t.cover[h] == CITY and 2 * from_city >= na and t.cat_city_add:
        drm += t.drm_value[M_CAT_CITY_VEHICLE]
    return drm


@njit(cache=True)
def reaction_fire(t, st, h, att_hex, att, na, def_side):
    """PB2-7.9: every unit in hex h fires once at the attackers in att_hex, whatever its status:
    infantry AT halved (a), Spent or Disrupted firers halved (b), one column left when half the
    firing steps are Disrupted (c), range 1 (d), the attackers' TEM (e)."""
    firers = np.empty(t.n_units, dtype=np.int64)
    nf = 0
    dis_steps = 0
    steps = 0
    for u in range(t.n_units):
        if st.hex[u] == h and t.u_side[u] == def_side and t.t_combat[t.u_type[u]]:
            firers[nf] = u
            nf += 1
            steps += st.steps[u]
            if st.disrupted[u]:
                dis_steps += st.steps[u]
    targets = np.empty(na, dtype=np.int64)
    nt = 0
    armored = False
    for i in range(na):
        if st.hex[att[i]] == att_hex:
            targets[nt] = att[i]
            nt += 1
            armored = armored or t.t_armored[t.u_type[att[i]]]
    if nf == 0 or nt == 0:
        return
    if armored:                       # an armored attacker: one of them, on the AT line (7.3.2)
        for i in range(nt):
            if t.t_armored[t.u_type[targets[i]]]:
                targets[0] = targets[i]
                break
        nt = 1
        best = 0
        k = 0
        for i in range(nf):
            f = firers[i]
            a2 = 2 * at_value(t, st, f)
            if t.t_infantry[t.u_type[f]]:
                a2 = a2 * t.reaction_inf_at2 // 2
            if st.spent[f] or st.disrupted[f]:
                a2 = a2 * t.reaction_sd2 // 2
            if a2 > 0:
                k += 1
                best = max(best, a2 // 2)                 # 1.2.1: AT fractions dropped
        if k == 0:
            return
        col = at_column(t, best + t.at_additional * (k - 1) - df_value(t, st, targets[0]))
    else:
        attack2 = 0
        for i in range(nf):
            f = firers[i]
            a2 = ap2(t, st, f)
            if st.spent[f] or st.disrupted[f]:
                a2 = a2 * t.reaction_sd2 // 2             # 1.2.1: AP fractions kept (in halves)
            attack2 += a2
        defense = 0
        for i in range(nt):
            defense += df_value(t, st, targets[i])
        col = ap_column(t, attack2, defense)
    if col < 0:
        return
    if 2 * dis_steps >= steps:
        col += t.shift_reaction
        if col < 0:
            return                    # shifted past the left edge: no effect (PB2-OQ-15)
    adrm = attacker_drm(t, st, firers[:nf], nf, att_hex, K_REACTION, 1)
    resolve_attack(t, st, firers[:nf], nf, np.ones(nf, dtype=np.int64), att_hex, targets[:nt], nt, armored,
                   K_REACTION, False, False, def_side, col, adrm)


@njit(cache=True)
def busiest_hex(st, att, na):
    """9.1.8, 8.1.5 (PB2-OQ-80): the hex holding the most of the attackers att[:na] (the first on a
    tie), the one reaction fire is aimed at."""
    best_hex = -1
    best_k = 0
    for j in range(na):
        k = 0
        for m in range(na):
            if st.hex[att[m]] == st.hex[att[j]]:
                k += 1
        if k > best_k:
            best_k = k
            best_hex = st.hex[att[j]]
    return best_hex


@njit(cache=True)
def cat_options(t, st, side):
    """CAT options: row 0 = stop; one row a target hex and defender type."""
    st.opts[0, 0] = -1
    for k in range(1, 8):
        st.opts[0, k] = 0
    n = 1
    enemy = 1 - side
    att = np.empty(t.n_units, dtype=np.int64)
    tgt = np.empty(t.n_units, dtype=np.int64)
    occupied = np.zeros(t.n_hexes, dtype=np.bool_)     # (speed only: hexes without an enemy give no option)
    for u in range(t.n_units):
        if t.u_side[u] == enemy and st.hex[u] >= 0:
            occupied[st.hex[u]] = True
    for h in range(t.n_hexes):
        if not t.play[h] or not occupied[h] or st.mine_col[h] >= 0:
            continue                                    # 9.2.4: no CAT against a minefield hex
        for a in range(3):
            armored = a >= 1
            nt = _targets(t, st, h, a, enemy, tgt)
            if nt == 0:
                continue
            na = _attackers(t, st, h, armored, side, att)
            if na > 0:
                n = cat_option(t, st, n, h, a, att, na, tgt, nt)
        n = split_option(t, st, n, h, side, att, tgt)           # 9.1.7 (round 8 A)
    return n


@njit(cache=True)
def lone_attacker(t, st, h, side, att):
    """9.1.7: the one unit that may close-assault hex h (with AP and AT, so that it may split),
    or -1 when none or several may."""
    k = 0
    u = -1
    for v in range(t.n_units):
        if cat_eligible(t, st, v, side) and t.dist[st.hex[v], h] == 1 and not across_impassable_bridge(t, st.hex[v], h) \
                and (ap2(t, st, v) > 0 or at_value(t, st, v) > 0):
            k += 1
            u = v
    if k != 1 or ap2(t, st, u) <= 0 or at_value(t, st, u) <= 0:
        return -1
    att[0] = u
    return u


@njit(cache=True)
def split_columns(t, st, u, soft, ns, arm, na_):
    """9.1.7: the columns of lone attacker u's halves on the non-armored defenders soft[:ns] and
    the armored ones arm[:na_] (-1: no attack of that part)."""
    one = np.empty(1, dtype=np.int64)
    one[0] = u
    return (cat_column_half(t, st, one, 1, soft, ns, False, True),
            cat_column_half(t, st, one, 1, arm, na_, True, True))


@njit(cache=True)
def split_option(t, st, n, h, side, att, tgt):
    """9.1.7: the split row of hex h's lone attacker, if any: (h, 3, 1, the non-armored part's
    column, its DRM, its defenders, their disrupted, 0, the expected step losses of both parts
    x 100); returns n + 1, or n."""
    if n >= st.opts.shape[0] or lone_attacker(t, st, h, side, att) < 0:
        return n
    return split_row(t, st, n, h, side, att, tgt)


@njit(cache=True)
def split_row(t, st, n, h, side, att, tgt):
    """9.1.7: split_option's row for the lone attacker att[0] (in a close assault the one unit that
    may CAT hex h, lone_attacker; in a Panzer Blitz assault the one infantry unit unloaded for it,
    10.1, pbassault.py); returns n + 1, or n when it has no AP or AT, a type is missing from the hex
    or a half gives no column."""
    if n >= st.opts.shape[0] or ap2(t, st, att[0]) <= 0 or at_value(t, st, att[0]) <= 0:
        return n
    enemy = 1 - side
    soft = np.empty(t.n_units, dtype=np.int64)
    ns = _targets(t, st, h, 0, enemy, soft)
    na_ = _targets(t, st, h, 1, enemy, tgt)
    if ns == 0 or na_ == 0:
        return n
    c_soft, c_arm = split_columns(t, st, att[0], soft, ns, tgt, na_)
    if c_soft < 0 or c_arm < 0:
        return n
    d_soft = cat_attacker_drm(t, st, att, 1, h, soft, ns, False) + defender_drm(t, st, soft, ns, False, K_CAT, False, False)
    d_arm = cat_attacker_drm(t, st, att, 1, h, tgt, na_, True) + defender_drm(t, st, tgt, na_, False, K_CAT, False, False)
    dis_s = 0
    for i in range(ns):
        if st.disrupted[soft[i]]:
            dis_s += 1
    dis_a = 0
    for i in range(na_):
        if st.disrupted[tgt[i]]:
            dis_a += 1
    st.opts[n, 0] = h
    st.opts[n, 1] = 3
    st.opts[n, 2] = 1
    st.opts[n, 3] = c_soft
    st.opts[n, 4] = d_soft
    st.opts[n, 5] = ns
    st.opts[n, 6] = dis_s
    st.opts[n, 7] = 0
    st.opts[n, 8] = int(100 * (expected_steps(t, c_soft, d_soft, ns, dis_s / ns)
                               + expected_steps(t, c_arm, d_arm, na_, dis_a / na_)))
    return n + 1


@njit(cache=True)
def cat_option(t, st, n, h, a, att, na, tgt, nt):
    """CAT row n: (target hex, defender type a, attackers, column, DRM, defenders, disrupted
    defenders) for att[:na] on tgt[:nt]; returns n + 1, or n when the odds give no column."""
    armored = a >= 1
    col = cat_column(t, st, att, na, tgt, nt, armored)
    if col < 0:
        return n
    dis = 0
    for i in range(nt):
        if st.disrupted[tgt[i]]:
            dis += 1
    st.opts[n, 0] = h
    st.opts[n, 1] = a
    st.opts[n, 2] = na
    st.opts[n, 3] = col
    st.opts[n, 4] = cat_attacker_drm(t, st, att, na, h, tgt, nt, armored) + \
        defender_drm(t, st, tgt, nt, False, K_CAT, False, False)
    st.opts[n, 5] = nt
    st.opts[n, 6] = dis
    st.opts[n, 7] = 0
    return n + 1


@njit(cache=True)
def cat_step(t, st, side):
    """Step iv of an Operation: CAT attacks until the player stops (9.1)."""
    att = np.empty(t.n_units, dtype=np.int64)
    tgt = np.empty(t.n_units, dtype=np.int64)
    for _ in range(t.n_units + 1):
        n = cat_options(t, st, side)
        if n <= 1:
            return
        i = decide(CAT, n, t, st, side)
        if i == 0:
            return
        h = st.opts[i, 0]
        a = st.opts[i, 1]
        if a == 3:
            na = 1 if lone_attacker(t, st, h, side, att) >= 0 else 0   # 9.1.7: the lone attacker's split
        else:
            na = _attackers(t, st, h, a >= 1, side, att)
        resolve_cat(t, st, att, na, h, a, side, tgt)


@njit(cache=True)
def resolve_cat(t, st, att, na, h, a, side, tgt):
    """One CAT (9.1) by the units att[:na] on the defenders of type `a` in hex h (also the
    Panzer Blitz assault's, 10.1): the defenders' reaction fire at the attacking hex with the most
    attackers (9.1.8, 7.9); those it disrupts drop out (7.9.1); the attack; the advance into an
    emptied hex (9.1.13).  att is rewritten (the attackers left)."""
    armored = a >= 1
    reaction_fire(t, st, h, busiest_hex(st, att, na), att, na, 1 - side)   # 9.1.8
    # 7.9.1: attackers disrupted (or lost) by reaction fire drop out
    m = 0
    for j in range(na):
        u = att[j]
        if st.hex[u] >= 0 and not st.disrupted[u]:
            att[m] = u
            m += 1
    if a == 3:
        resolve_split(t, st, att, m, na, h, side, tgt)
        return
    nt = _targets(t, st, h, a, 1 - side, tgt)
    if m == 0 or nt == 0:
        for j in range(na):
            st.fired[att[j]] = True       # they were committed to the assault
            st.spent[att[j]] = True
        return
    col = cat_column(t, st, att, m, tgt, nt, armored)
    if col < 0:
        return
    adrm = cat_attacker_drm(t, st, att, m, h, tgt, nt, armored)
    resolve_attack(t, st, att[:m].copy(), m, np.ones(m, dtype=np.int64), h, tgt[:nt].copy(), nt, armored, K_CAT,
                   False, False, side, col, adrm)
    advance_if_empty(t, st, att, m, h, side)


@njit(cache=True)
def resolve_split(t, st, att, m, na, h, side, tgt):
    """9.1.7, 9.1.12: the lone attacker att[0] (m = 1 if it is still fit after the reaction fire)
    attacks both defender types of hex h with half its factors each, one roll for both; then the
    advance into an emptied hex (9.1.13)."""
    enemy = 1 - side
    soft = np.empty(t.n_units, dtype=np.int64)
    ns = _targets(t, st, h, 0, enemy, soft)
    nt = _targets(t, st, h, 1, enemy, tgt)
    if m == 0 or ns == 0 or nt == 0:
        for j in range(na):
            st.fired[att[j]] = True
            st.spent[att[j]] = True
        return
    log_event(st, EV_CAT_SPLIT, side, att[0], h, 0, 0, 0)
    c_soft, c_arm = split_columns(t, st, att[0], soft, ns, tgt, nt)
    d_soft = cat_attacker_drm(t, st, att, 1, h, soft, ns, False)
    d_arm = cat_attacker_drm(t, st, att, 1, h, tgt, nt, True)
    s0 = st.streams[DICE]
    word = s0
    draws = np.uint64(0)
    one = np.ones(1, dtype=np.int64)
    for part in range(2):
        col = c_arm if part == 0 else c_soft
        if col < 0:
            continue
        st.streams[DICE] = s0                           # 9.1.12: one roll for both types
        if part == 0:
            resolve_attack(t, st, att[:1].copy(), 1, one, h, tgt[:nt].copy(), nt, True, K_CAT, False, False, side,
                           col, d_arm)
        else:
            resolve_attack(t, st, att[:1].copy(), 1, one, h, soft[:ns].copy(), ns, False, K_CAT, False, False, side,
                           col, d_soft)
        word, draws = furthest(st.streams, s0, word, draws)
    st.streams[DICE] = word
    advance_if_empty(t, st, att, 1, h, side)


@njit(cache=True)
def advance_if_empty(t, st, att, m, h, side):
    """9.1.13 (and 10.1.5): the attackers advance into hex h if no enemy is left in it (no
    movement cost, no opportunity fire), each while the hex has room."""
    for u in range(t.n_units):
        if st.hex[u] == h and t.u_side[u] != side:
            return
    for j in range(m):
        u = att[j]
        if st.hex[u] >= 0 and stack_sp(t, st, h, side, u) <= t.stack_limit:
            log_event(st, EV_ADVANCE, side, u, st.hex[u], h, 0, 0)
            st.in_ip[u] = False
            st.hd_hex[u] = -1                      # 15.6.3: hull-down lost on moving
            st.mine_ok[u] = False                  # (no minefield there, 9.2.4)
            st.hex[u] = h
            st.in_fort[u] = fort_room(t, st, h, u)  # 9.1.13: into its IP or fortification, free
            st.in_ip[u] = (not st.in_fort[u]) and ip_room(t, st, h, u)
