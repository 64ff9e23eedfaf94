"""Direct fire (PB2-7): spotting, the DFT, odds and differential, the majority rule, results.

Every value comes from `Tables` (tables.py): the DFT thresholds, the range and DF modifiers and
their scopes, TEM, the readings.  The functions marked *for players* are the read-only helpers the
heuristic may call (players.py); nothing here calls a player.
"""

from __future__ import annotations

import numpy as np

from simulator.jit import njit
from simulator.rulesets.panzerblitz_v2.bridges import tem_df as bridge_tem_df
from simulator.rulesets.panzerblitz_v2.efficiency import hull_down
from simulator.rulesets.panzerblitz_v2.rng import two_dice
from simulator.rulesets.panzerblitz_v2.smoke import obs_spots, sees
from simulator.rulesets.panzerblitz_v2.state import (
    CARRIED,
    EV_AIR_FIRE,
    EV_ASSAULT,
    EV_CAT,
    EV_DISRUPT,
    EV_DUMMY,
    EV_FIRE,
    EV_FORT_GONE,
    EV_LOSS,
    EV_MINE,
    EV_OPP_FIRE,
    EV_OVERRUN,
    EV_REACTION,
    EV_SPOTTED,
    EV_UNLOAD,
    EV_WRECK,
    GONE,
)
from simulator.rulesets.panzerblitz_v2.tables import (
    CITY,
    K_AIR,
    K_ASSAULT,
    K_CAT,
    K_OPP,
    K_OVERRUN,
    K_REACTION,
    LEG,
    M_DEF_DISRUPTED,
    M_FORT,
    M_FROM_HE,
    M_HEIGHT_ADV,
    M_HEIGHT_DIS,
    M_HULL,
    M_IP,
    M_OPP_INF_OPEN,
    M_OPP_ROAD,
    M_OPP_VEHICLE,
    M_OVR_INF_OPEN,
    M_SMOKE_FROM,
    M_SMOKE_IN,
    M_UNSPOTTED,
    M_WRECK,
    PROHIBITED,
    R_1X,
    R_2X,
    R_3X,
    R_D,
    R_DD,
    R_NONE,
    TOWED,
    TOWN,
)

# ----------------------------------------------------------------------------- counters

@njit(cache=True)
def face(t, st, u):
    """0 = full-strength side, 1 = reduced side (PB2-2.3.1)."""
    return 0 if st.steps[u] >= t.t_steps[t.u_type[u]] else 1


@njit(cache=True)
def ap2(t, st, u):
    """AP attack in half points (1.2.1 keeps AP fractions)."""
    return t.t_ap[t.u_type[u], face(t, st, u)]


@njit(cache=True)
def at_value(t, st, u):
    return t.t_at[t.u_type[u], face(t, st, u)]


@njit(cache=True)
def df_value(t, st, u):
    return t.t_df[t.u_type[u], face(t, st, u)]


@njit(cache=True)
def sp_value(t, st, u):
    return t.t_sp[t.u_type[u], face(t, st, u)]


@njit(cache=True)
def armored_target(t, st, u):
    """PB2-15.5.3: units in a fortification are an armored target, whatever they are."""
    return t.t_armored[t.u_type[u]] or st.in_fort[u]


@njit(cache=True)
def target_df(t, st, u):
    """The DF a target defends with: a fortification's in place of its own (15.5.3)."""
    if st.in_fort[u] and st.hex[u] >= 0 and st.fort[st.hex[u]] >= 0:
        return t.mk_df[st.fort[st.hex[u]]]
    return df_value(t, st, u)


@njit(cache=True)
def on_map(st, u):
    return st.hex[u] >= 0


# ----------------------------------------------------------------------------- the DFT (for players too)

@njit(cache=True)
def ap_column(t, attack2, defense):
    """PB2-7.4: the column of attack : defense (attack in half points), rounded in the defender's
    favour; -1 below the leftmost column (readings.ap_below_table = not_allowed)."""
    if defense <= 0:
        return t.dft_num.shape[0] - 1
    col = -1
    for i in range(t.dft_num.shape[0]):
        if attack2 * t.dft_den[i] >= 2 * defense * t.dft_num[i]:
            col = i
    return col


@njit(cache=True)
def at_column(t, differential):
    """PB2-7.5: the column of an AT differential; -1 below the table (readings.at_below_table =
    no_effect), the rightmost above it."""
    col = -1
    for i in range(t.dft_at_diff.shape[0]):
        if t.dft_at_diff[i] <= differential:
            col = i
    return col


@njit(cache=True)
def dft_result(t, col, natural, drm):
    """PB2-7.1.8, 7.1.9: a natural 12 always misses; a natural 2 gives the column's best result
    (its lowest printed row, readings.natural_two); else the modified roll's row."""
    if col < 0 or natural >= t.dft_miss:
        return R_NONE
    row = natural + drm
    if natural <= t.dft_best or row < t.dft_lowest:
        row = t.dft_lowest
    for r in range(5):
        thr = t.dft_threshold[col, r]
        if thr != -99 and row <= thr:
            return r
    return R_NONE


@njit(cache=True)
def expected_steps(t, col, drm, n_targets, disrupted_share):
    """For players: the expected steps an attack strips (X results; a DD strips the disrupted)."""
    e = 0.0
    for a in range(1, 7):
        for b in range(1, 7):
            r = dft_result(t, col, a + b, drm)
            if r == R_3X:
                e += 3.0 + max(n_targets - 3, 0) * disrupted_share
            elif r == R_2X:
                e += 2.0 + max(n_targets - 2, 0) * disrupted_share
            elif r == R_1X:
                e += 1.0 + max(n_targets - 1, 0) * disrupted_share
            elif r == R_DD:
                e += n_targets * disrupted_share + 0.25
            elif r == R_D:
                e += 0.15
    return e / 36.0


@njit(cache=True)
def range_drm(t, hexes):
    if hexes >= t.range_mod.shape[0]:
        return t.range_mod[t.range_mod.shape[0] - 1]
    return t.range_mod[hexes]


@njit(cache=True)
def majority(count, n):
    """PB2-7.6.1 / 7.6.2: a modifier applies to a group if at least half its units qualify."""
    return n > 0 and 2 * count >= n


@njit(cache=True)
def graded_majority(values, n, median):
    """PB2-7.6.1 for a graded modifier (range) over a group (readings.majority_rule): stepwise,
    each step (+1, +2, ...; -1, -2, ...) applies if at least half the group reaches it; or the
    largest value at least half the group reaches (median)."""
    if n == 0:
        return 0
    hi = 0
    lo = 0
    for i in range(n):
        hi = max(hi, values[i])
        lo = min(lo, values[i])
    if median:
        best = lo
        for v in range(lo, hi + 1):
            k = 0
            for i in range(n):
                if values[i] >= v:
                    k += 1
            if 2 * k >= n:
                best = v
        return best
    total = 0
    for level in range(1, hi + 1):
        k = 0
        for i in range(n):
            if values[i] >= level:
                k += 1
        if 2 * k >= n:
            total += 1
    for level in range(-1, lo - 1, -1):
        k = 0
        for i in range(n):
            if values[i] <= level:
                k += 1
        if 2 * k >= n:
            total -= 1
    return total


# ----------------------------------------------------------------------------- spotting (PB2-6)

@njit(cache=True)
def rider(t, st, u):
    """4.3.7.1: u is infantry riding an AFV (it may be attacked apart from it)."""
    return st.hex[u] == CARRIED and st.carried_by[u] >= 0 and t.t_afv[t.u_type[st.carried_by[u]]]


@njit(cache=True)
def spotted_now(t, st, u):
    """PB2-6.1.3: does any non-Disrupted enemy combat unit spot unit u now (a rider: where its AFV is)?"""
    h = st.hex[u] if st.hex[u] != CARRIED else st.hex[st.carried_by[u]]
    me = t.u_side[u]
    need = t.spot_range[h]
    if st.in_fort[u]:
        need = t.fort_spot                # 15.5.4: as in a town
    if st.smoke[h] > 0:
        need = min(need, t.smoke_spot)    # 12.2.4: in smoke, as in a non-clear hex
    if st.spent[u] or st.disrupted[u]:
        need = 1 << 30                    # 6.1.3 c: Spent or Disrupted targets, any range with LoS
    for e in range(t.n_units):
        if t.u_side[e] == me or st.hex[e] < 0 or st.disrupted[e] or not t.t_combat[t.u_type[e]]:
            continue
        if st.spent[e] and not t.spent_units_spot:
            continue
        d = t.dist[st.hex[e], h]
        if d <= 1:
            return True                   # adjacent, whatever the terrain
        if d <= need and sees(t, st, st.hex[e], h):
            return True
    if t.n_obs > 0 and obs_spots(t, st, 1 - me, h):
        return True                       # 16.2 (round 8): an enemy observation aircraft spots it
    return False


@njit(cache=True)
def update_spotting(t, st, u):
    """PB2-6.1.2: status is judged when an action is taken against the unit; once spotted, it is
    spotted by all (6.0)."""
    if st.unspotted[u] and spotted_now(t, st, u):
        st.unspotted[u] = False
        log = st.n_ev[0]
        if log < st.ev.shape[0]:
            st.ev[log, 0] = st.turn[0]
            st.ev[log, 1] = st.op[0]
            st.ev[log, 2] = EV_SPOTTED
            st.ev[log, 3] = t.u_side[u]
            st.ev[log, 4] = u
            st.n_ev[0] = log + 1


# ----------------------------------------------------------------------------- who may fire

@njit(cache=True)
def can_fire(t, st, f, target_hex, armored):
    """PB2-7.1.4, 7.2: may unit f direct-fire at a target in target_hex (armored or not)?  Returns
    0 (no), 1 (yes) or 2 (yes, at half strength: long-range fire of infantry, 7.2.4)."""
    h = st.hex[f]
    if h < 0 or st.spent[f] or st.disrupted[f] or st.fired[f]:
        return 0
    ty = t.u_type[f]
    if t.art_self_observed and t.t_indirect[ty] and not t.t_mortar[ty]:
        return 0                          # 11.3.8 (PB2-OQ-90): a red-range unit fires IF, self-observed at most
    if armored:
        if t.t_infantry[ty] or at_value(t, st, f) <= 0:
            return 0                      # 7.2.3: infantry attack armor only by CAT / reaction
    elif ap2(t, st, f) <= 0:
        return 0
    if not sees(t, st, h, target_hex):
        return 0
    d = t.dist[h, target_hex]
    if d <= t.t_range[ty]:
        return 1
    if t.t_long_range[ty] and d <= t.t_range[ty] + t.long_range_extra:
        return 2
    return 0


# ----------------------------------------------------------------------------- the attack

@njit(cache=True)
def attacker_drm(t, st, firers, nf, target_hex, kind, force_range):
    """Range (graded) and height modifiers of a firing group, by the majority rule (7.6.1);
    `force_range` >= 0: the range the rule says it is (reaction fire 7.9d: 1)."""
    vals = np.empty(nf, dtype=np.int64)
    adv = 0
    dis = 0
    he = 0
    smoked = 0
    for i in range(nf):
        h = st.hex[firers[i]]
        if st.he[h]:
            he += 1
        if st.smoke[h] > 0:
            smoked += 1
        vals[i] = range_drm(t, t.dist[h, target_hex] if force_range < 0 else force_range)
        if t.level[h] > t.level[target_hex]:
            adv += 1
        elif t.level[h] < t.level[target_hex]:
            dis += 1
    drm = graded_majority(vals, nf, t.majority_median)
    if majority(adv, nf) and t.drm_applies[M_HEIGHT_ADV, kind]:
        drm += t.drm_value[M_HEIGHT_ADV]           # 14.9.5.1
    if majority(dis, nf) and t.drm_applies[M_HEIGHT_DIS, kind]:
        drm += t.drm_value[M_HEIGHT_DIS]           # 14.9.5.2
    if majority(he, nf) and t.drm_applies[M_FROM_HE, kind]:
        drm += t.drm_value[M_FROM_HE]              # 11.3.3: firing from an HE hex
    if majority(smoked, nf) and t.drm_applies[M_SMOKE_FROM, kind]:
        drm += t.drm_value[M_SMOKE_FROM]           # 12.2.6: fire from a smoke hex
    return drm


@njit(cache=True)
def defender_drm(t, st, targets, nt, unspotted, kind, road_mover, moving):
    """TEM and the defender's modifiers of a target group (7.6.2), one spotting category."""
    if nt == 0:
        return 0
    h = st.hex[targets[0]]
    if h == CARRIED:
        h = st.hex[st.carried_by[targets[0]]]     # 4.3.7.1: a rider, in its AFV's hex
    drm = 0
    tem_units = 0
    dis = 0
    veh = 0
    inf_open = 0
    in_ip = 0
    in_fort = 0
    hull = 0
    for i in range(nt):
        u = targets[i]
        ty = t.u_type[u]
        if st.in_ip[u]:
            in_ip += 1
        if st.in_fort[u]:
            in_fort += 1
        if hull_down(st, u):
            hull += 1
        if not (t.tem_nonveh_only[h] and t.t_vehicle[ty]):
            tem_units += 1
        if st.disrupted[u]:
            dis += 1
        if t.t_vehicle[ty]:
            veh += 1
        if t.t_infantry[ty] and t.open_ground[t.cover[h]] and st.hex[u] != CARRIED:
            inf_open += 1                          # (4.3.7.1: not a rider)
    if majority(tem_units, nt):
        drm += bridge_tem_df(t, st, h)             # 14.x TEM (14.7.5: a destroyed bridge)
    if majority(dis, nt) and t.drm_applies[M_DEF_DISRUPTED, kind]:
        drm += t.drm_value[M_DEF_DISRUPTED]        # 7.7 example
    if unspotted and t.drm_applies[M_UNSPOTTED, kind]:
        drm += t.drm_value[M_UNSPOTTED]            # 6.2.3
    if kind == K_OPP:                              # 7.8.2
        if road_mover and t.drm_applies[M_OPP_ROAD, kind]:
            drm += t.drm_value[M_OPP_ROAD]
        if moving and majority(veh, nt) and t.drm_applies[M_OPP_VEHICLE, kind]:
            drm += t.drm_value[M_OPP_VEHICLE]
        if majority(inf_open, nt) and t.drm_applies[M_OPP_INF_OPEN, kind]:
            drm += t.drm_value[M_OPP_INF_OPEN]
    if majority(inf_open, nt) and t.drm_applies[M_OVR_INF_OPEN, kind]:
        drm += t.drm_value[M_OVR_INF_OPEN]         # 8.1.7: infantry overrun in the open
    if st.wreck_sp[h] > 0 and t.drm_applies[M_WRECK, kind]:
        drm += t.drm_value[M_WRECK]                # 15.1.2: a wreck hex
    if majority(in_ip, nt) and t.drm_applies[M_IP, kind]:
        drm += t.drm_value[M_IP]                   # 15.4.4: in an improved position
    if majority(in_fort, nt) and t.drm_applies[M_FORT, kind]:
        drm += t.drm_value[M_FORT]                 # 15.5.3: in a fortification
    if majority(hull, nt) and t.drm_applies[M_HULL, kind]:
        drm += t.drm_value[M_HULL]                 # 15.6.2: hull-down (not against IF, minefields)
    if st.smoke[h] > 0 and t.drm_applies[M_SMOKE_IN, kind]:
        drm += t.drm_value[M_SMOKE_IN]             # 12.2.6: direct fire into a smoke hex
    return drm


@njit(cache=True)
def ip_room(t, st, h, u):
    """PB2-15.4.2-15.4.3: may non-vehicular unit u go into the improved position of hex h?"""
    if not st.ip[h] or t.t_vehicle[t.u_type[u]]:
        return False
    used = 0
    for v in range(t.n_units):
        if v != u and st.hex[v] == h and st.in_ip[v]:
            used += sp_value(t, st, v)
    return used + sp_value(t, st, u) <= t.ip_capacity


@njit(cache=True)
def fire_column(t, st, firers, nf, halves, targets, nt, armored):
    """PB2-7.4 (AP odds, fractions kept) or 7.5 (AT: highest + 1 a further firer, minus the
    target's defence); `halves[i]` = 2 where firer i fires at half strength (7.2.4)."""
    if armored:
        best = 0
        count = 0
        for i in range(nf):
            a = at_value(t, st, firers[i])
            if halves[i] == 2:
                a = a // 2                                # 1.2.1: AT fractions dropped
            if a > 0 or t.at_zero_counts:
                count += 1
                best = max(best, a)
        if count == 0:
            return -1
        strength = best + t.at_additional * (count - 1)
        return at_column(t, strength - target_df(t, st, targets[0]))
    attack2 = 0
    for i in range(nf):
        a = ap2(t, st, firers[i])
        if halves[i] == 2:
            a = a // 2 if t.ap_keeps_fraction else (a // 4) * 2
        attack2 += a
    defense = 0
    for i in range(nt):
        # 4.3.7.1: a rider attacked apart from its AFV defends with DF 1
        defense += t.rider_df if st.hex[targets[i]] == CARRIED else df_value(t, st, targets[i])
    return ap_column(t, attack2, defense)


@njit(cache=True)
def reveal_dummy(t, st, h, u):
    """PB2-15.2.3.1 (round 8): unit u entered the dummy minefield of hex h: it is revealed and removed
    (no attack; the units of the hex are under no minefield any more) and u may continue to move
    (game.move_unit_roads: st.revealed, with the MP spent so far in st.rev_mp)."""
    st.mine_col[h] = -1
    st.mine_dummy[h] = False
    for v in range(t.n_units):
        if st.hex[v] == h:
            st.mine_ok[v] = False
    st.revealed[0] = u
    st.rev_mp[0] = st.reach[h]
    log_event(st, EV_DUMMY, t.u_side[u], h, u, 0, 0, 0)


@njit(cache=True)
def log_event(st, kind, side, a, b, c, d, e):
    i = st.n_ev[0]
    if i < st.ev.shape[0]:
        st.ev[i, 0] = st.turn[0]
        st.ev[i, 1] = st.op[0]
        st.ev[i, 2] = kind
        st.ev[i, 3] = side
        st.ev[i, 4] = a
        st.ev[i, 5] = b
        st.ev[i, 6] = c
        st.ev[i, 7] = d
        st.ev[i, 8] = e
        st.n_ev[0] = i + 1


@njit(cache=True)
def lose_step(t, st, u):
    """A step loss (7.7): flip a full-strength counter, remove a reduced one."""
    h = st.hex[u]
    st.steps[u] -= 1
    if st.steps[u] <= 0:
        st.steps[u] = 0
        st.in_ip[u] = False
        st.in_fort[u] = False
        st.mine_ok[u] = False
        st.hex[u] = GONE
        st.active[u] = False
    log_event(st, EV_LOSS, t.u_side[u], u, h, st.steps[u], 0, 0)


@njit(cache=True)
def place_wreck(t, st, u, h, full):
    """PB2-15.1: an armored unit destroyed in a road, bridge, town or city hex leaves a wreck, full
    (eliminated outright from full strength, readings PB2-OQ-45) or reduced; at most
    `wreck_max_per_hex` SP of wrecks a hex (15.1.6: further ones are not placed)."""
    if h < 0 or not t.t_armored[t.u_type[u]] or not t.wreck_ok[h]:
        return
    v = t.wreck_full if full else t.wreck_reduced
    if st.wreck_sp[h] + v > t.wreck_max:
        return
    st.wreck_sp[h] += v
    log_event(st, EV_WRECK, t.u_side[u], h, v, u, 0, 0)


@njit(cache=True)
def destroy_fort(t, st, h, side):
    """PB2-15.5.5: an unmodified 3 or lower on a positive AT attack (readings.fort_destroy,
    PB2-OQ-41) destroys the fortification; its occupants stay in the hex, out of it; in a road or
    bridge hex it leaves a wreck (15.1, full value)."""
    if st.fort[h] < 0:
        return
    st.fort[h] = -1
    for u in range(t.n_units):
        if st.hex[u] == h:
            st.in_fort[u] = False
    log_event(st, EV_FORT_GONE, side, h, 0, 0, 0, 0)
    if t.wreck_ok[h] and st.wreck_sp[h] + t.wreck_full <= t.wreck_max:
        st.wreck_sp[h] += t.wreck_full
        log_event(st, EV_WRECK, side, h, t.wreck_full, -1, 0, 0)


@njit(cache=True)
def disrupt(t, st, u):
    """Marked Spent/Disrupted (7.7 D, DD, X)."""
    if st.hex[u] < 0:
        return
    st.spent[u] = True
    if not st.disrupted[u]:
        log_event(st, EV_DISRUPT, t.u_side[u], u, st.hex[u], 0, 0, 0)
    st.disrupted[u] = True
    st.disrupted_op[u] = st.op[0]


@njit(cache=True)
def place_forced(t, st, c, p, h):
    """4.3.6: a passenger forced out in hex h (its carrier Disrupted or eliminated) is Disrupted;
    if the hex cannot hold it, the opponent places it in an adjacent enterable hex free of enemy
    units with room (here the first such hex by direction, N clockwise), and with none it loses
    steps until it fits or is eliminated."""
    side = t.u_side[p]
    mode = t.t_mode[t.u_type[p]]
    if mode == TOWED:
        mode = LEG
    dest = -1
    if stack_sp(t, st, h, side, p) <= t.stack_limit:
        dest = h
    else:
        for d in range(6):
            n = t.neighbours[h, d]
            if n >= 0 and t.play[n] and t.move_cost[n, mode] != PROHIBITED and stack_sp(t, st, n, side, p) <= t.stack_limit:
                free = True
                for v in range(t.n_units):
                    if st.hex[v] == n and t.u_side[v] != side:
                        free = False
                if free:
                    dest = n
                    break
    st.carried_by[p] = -1
    st.mine_ok[p] = False
    if dest < 0:
        st.hex[p] = h
        while st.steps[p] > 0 and stack_sp(t, st, h, side, -1) > t.stack_limit:
            lose_step(t, st, p)
        if st.steps[p] <= 0:
            return
        dest = h
    st.hex[p] = dest
    st.unspotted[p] = st.unspotted[c]
    log_event(st, EV_UNLOAD, side, c, p, dest, 0, 0)
    if st.mine_col[dest] >= 0 and st.mine_dummy[dest]:
        reveal_dummy(t, st, dest, p)               # 15.2.3.1 (round 8): a dummy, removed, no attack
    elif st.mine_col[dest] >= 0 and (not st.mine_busy[0] or t.forced_unload_mine_always):
        # 15.2.3.4: unloading onto a minefield, forced by fire, is movement: the minefield attacks it
        # (on its column, no modifiers, 15.2.3.1; a passenger carries nobody, so no result is shared
        # further); not when the minefield's own attack forced it out (it was attacked with its carrier)
        one = np.empty(1, dtype=np.int64)
        one[0] = p
        natural = two_dice(st.streams)
        res = dft_result(t, st.mine_col[dest], natural, 0)
        log_event(st, EV_MINE, side, dest, st.mine_col[dest], natural, 0, res * 100 + 1)
        _apply_result(t, st, one, 1, res, np.zeros(1, dtype=np.bool_))
        st.mine_ok[p] = False                      # Disrupted below: attacked again when it leaves
        if st.steps[p] <= 0:
            return
    disrupt(t, st, p)


@njit(cache=True)
def share_result(t, st, targets, nt, steps0, h0):
    """4.3.6, 7.3.3, 4.3.7.2: a carrier's passengers suffer its result: each step it lost is a step
    lost by each of them; if it is Disrupted or eliminated they are forced out in its hex, Disrupted."""
    for i in range(nt):
        c = targets[i]
        if t.t_carrier[t.u_type[c]] < 0 or h0[i] < 0:
            continue
        lost = steps0[i] - st.steps[c]
        for p in range(t.n_units):
            if st.carried_by[p] != c:
                continue
            for _ in range(lost):
                if st.steps[p] > 0:
                    st.hex[p] = h0[i]                  # lost where its carrier was (the losses table, maps)
                    lose_step(t, st, p)
                    if st.steps[p] > 0:
                        st.hex[p] = CARRIED
            if st.steps[p] <= 0:
                st.carried_by[p] = -1
            elif st.steps[c] <= 0 or st.disrupted[c]:
                place_forced(t, st, c, p, h0[i])


@njit(cache=True)
def apply_result(t, st, targets, nt, result, was_disrupted):
    """PB2-7.7: D, DD, #X on a target group (`was_disrupted`: their status before the attack);
    passengers share their carrier's (4.3.6)."""
    if result == R_NONE:
        return
    if nt == 1 and st.hex[targets[0]] == CARRIED:
        rider_result(t, st, targets[0], result, was_disrupted)
        return
    steps0 = np.empty(nt, dtype=np.int64)
    h0 = np.empty(nt, dtype=np.int64)
    for i in range(nt):
        steps0[i] = st.steps[targets[i]]
        h0[i] = st.hex[targets[i]]
    _apply_result(t, st, targets, nt, result, was_disrupted)
    share_result(t, st, targets, nt, steps0, h0)


@njit(cache=True)
def rider_result(t, st, r, result, was_disrupted):
    """4.3.7.1-4.3.7.3: a result on a rider attacked apart from its AFV: the AFV is not affected by
    its step losses; Disrupted (and alive) the rider is forced out, Disrupted, and the AFV is
    Disrupted too, its other passengers forced out with it (4.3.6)."""
    c = st.carried_by[r]
    h = st.hex[c]
    st.hex[r] = h                                   # on the map for the result (steps, the losses table)
    _apply_result(t, st, np.array([r], dtype=np.int64), 1, result, was_disrupted)
    if st.steps[r] <= 0:
        st.carried_by[r] = -1                       # eliminated aboard
        return
    st.hex[r] = CARRIED
    if not st.disrupted[r]:
        return
    disrupt(t, st, c)                               # 4.3.7.3, 4.3.6: both Disrupted
    for p in range(t.n_units):
        if st.carried_by[p] == c:
            place_forced(t, st, c, p, h)


@njit(cache=True)
def _apply_result(t, st, targets, nt, result, was_disrupted):
    if result == R_D:
        for i in range(nt):
            disrupt(t, st, targets[i])
        return
    losses = 0
    if result == R_1X:
        losses = 1
    elif result == R_2X:
        losses = 2
    elif result == R_3X:
        losses = 3
    taken = np.zeros(nt, dtype=np.int64)
    full0 = np.empty(nt, dtype=np.bool_)
    h0 = np.empty(nt, dtype=np.int64)
    for i in range(nt):
        full0[i] = st.steps[targets[i]] >= t.t_steps[t.u_type[targets[i]]] and t.t_steps[t.u_type[targets[i]]] >= 2
        h0[i] = st.hex[targets[i]]
    for _ in range(losses):
        # spread equally: the target with the fewest losses so far, full-strength first
        pick = -1
        for i in range(nt):
            u = targets[i]
            if st.steps[u] <= 0:
                continue
            if pick < 0 or taken[i] < taken[pick] or (taken[i] == taken[pick] and st.steps[u] > st.steps[targets[pick]]):
                pick = i
        if pick < 0:
            break
        taken[pick] += 1
        lose_step(t, st, targets[pick])
    for i in range(nt):
        u = targets[i]
        if st.steps[u] <= 0:
            continue
        if taken[i] == 0 and was_disrupted[i]:
            lose_step(t, st, u)           # DD (and the "other remaining" targets of an X)
        disrupt(t, st, u)
    for i in range(nt):                   # 15.1: wrecks of the armored units destroyed
        u = targets[i]
        if st.steps[u] <= 0 and h0[i] >= 0:
            place_wreck(t, st, u, h0[i], full0[i])
        elif t.wreck_on_step_loss and h0[i] >= 0 and st.steps[u] < t.t_steps[t.u_type[u]] and full0[i]:
            place_wreck(t, st, u, h0[i], False)     # readings.wreck_on_step_loss (PB2-OQ-40)


@njit(cache=True)
def resolve_attack(t, st, firers, nf, halves, target_hex, targets, nt, armored, kind, road_mover, moving, side,
                   col, adrm):
    """One attack on the DFT (7.1-7.7): direct, opportunity, reaction fire or CAT.  Spotting is
    judged now (6.1.2); one roll per spotting category with the odds of the whole target (7.1.7,
    readings.mixed_spotting_odds = combined); results applied; firers Spent (7.1.6, 7.1.9).
    `col` < -1: the column of these firers and targets (fire_column); `adrm` the attacker's
    modifiers when `col` is given (reaction fire, CAT), else computed here.  Returns the result of
    the last roll."""
    for i in range(nt):
        update_spotting(t, st, targets[i])
        if kind == K_CAT:
            st.cat_target_op[targets[i]] = st.op[0]
        elif kind != K_OVERRUN:                   # an overrun is counted by its hex (8.2.5)
            st.df_target_op[targets[i]] = st.op[0]
    if col < -1:
        col = fire_column(t, st, firers, nf, halves, targets, nt, armored)
        adrm = attacker_drm(t, st, firers, nf, target_hex, kind, -1)
    last = R_NONE
    cat = np.empty(nt, dtype=np.int64)
    was = np.empty(nt, dtype=np.bool_)
    for spotted_pass in range(2):
        k = 0
        for i in range(nt):
            u = targets[i]
            if (not st.unspotted[u]) == (spotted_pass == 0):
                cat[k] = u
                was[k] = st.disrupted[u]
                k += 1
        if k == 0:
            continue
        drm = adrm + defender_drm(t, st, cat, k, spotted_pass == 1, kind, road_mover, moving)
        natural = two_dice(st.streams)
        res = dft_result(t, col, natural, drm)
        ev = EV_FIRE
        if kind == K_OPP:
            ev = EV_OPP_FIRE
        elif kind == K_REACTION:
            ev = EV_REACTION
        elif kind == K_CAT:
            ev = EV_CAT
        elif kind == K_ASSAULT:
            ev = EV_ASSAULT
        elif kind == K_OVERRUN:
            ev = EV_OVERRUN
        elif kind == K_AIR:
            ev = EV_AIR_FIRE                      # an aircraft's direct fire (16.1.3, air.py)
        log_event(st, ev, side, target_hex, col, natural, drm, res * 100 + nf)
        fortified = armored and st.in_fort[cat[0]]
        apply_result(t, st, cat[:k], k, res, was[:k])
        if fortified and natural <= t.fort_destroy_max and (t.fort_destroy_any_at or t.dft_at_diff[col] > 0):
            destroy_fort(t, st, target_hex, side)
        last = res
    for i in range(nf):
        f = firers[i]
        if kind == K_REACTION:
            st.spent[f] = True            # 7.9.2 (it may fire again: reaction fire is the exception of 7.1.5)
            continue
        st.spent[f] = True
        st.fired[f] = True
        st.acted[f] = True
        if kind == K_OPP:
            st.opfired[f] = True
    return last


@njit(cache=True)
def tem_for(t, st, u):
    """The DF terrain modifier a unit gets in its hex (for recovery, 13.1.3, and players)."""
    h = st.hex[u]
    if h < 0:
        return 0
    if t.tem_nonveh_only[h] and t.t_vehicle[t.u_type[u]]:
        return 0
    return bridge_tem_df(t, st, h)


@njit(cache=True)
def stack_sp(t, st, h, side, extra):
    """Friendly stacking points in hex h (2.3.5; vehicles double in towns and cities, 14.2.2),
    with unit `extra` (-1: none) counted as if there."""
    total = 0
    town = t.cover[h] == TOWN or t.cover[h] == CITY
    eng = 0
    for u in range(t.n_units):
        if (st.hex[u] == h and t.u_side[u] == side) or u == extra:
            sp = sp_value(t, st, u)
            if town and t.t_vehicle[t.u_type[u]]:
                sp *= t.vehicle_town_factor
            total += sp
            if t.t_engineer[t.u_type[u]]:
                eng = max(eng, sp)
    # 15.1.4: a wreck takes its value from the hex's capacity (a vehicle for stacking, 15.1)
    total += st.wreck_sp[h] * (t.vehicle_town_factor if town else 1)
    if st.block[h]:
        total += t.block_sp                        # 15.3.2.2: a block counts 4 SP
        if t.block_engineer_exempt:
            total -= eng                           # 17.3.3: one engineer there never overstacks it
    return total


@njit(cache=True)
def fort_room(t, st, h, u):
    """PB2-15.5.2: may unit u go into the fortification of hex h (its printed capacity in SP;
    non-vehicular units only unless readings.fortification_vehicles, PB2-OQ-72)?"""
    if st.fort[h] < 0 or (t.t_vehicle[t.u_type[u]] and not t.fort_vehicles):
        return False
    used = 0
    for v in range(t.n_units):
        if v != u and st.hex[v] == h and st.in_fort[v]:
            used += sp_value(t, st, v)
    return used + sp_value(t, st, u) <= t.mk_cap[st.fort[h]]
