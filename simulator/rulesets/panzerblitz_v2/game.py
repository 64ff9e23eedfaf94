"""One Panzer Blitz v2.0 game (engine.md, "The turn"): set-up, the chit pull, Operations,
administration, control and victory.  Every decision goes through `decide`, which records it (or,
replaying, takes the recorded one) and otherwise asks the side's player through `choose`.
"""

from __future__ import annotations

import numpy as np

from simulator.jit import njit
from simulator.rulesets.panzerblitz_v2 import air, engineers, pbassault
from simulator.rulesets.panzerblitz_v2.artillery import (
    ar_step,
    resolve_requests,
    smoke_administration,
)
from simulator.rulesets.panzerblitz_v2.assault import cat_step
from simulator.rulesets.panzerblitz_v2.bridges import destroy
from simulator.rulesets.panzerblitz_v2.combat import (
    apply_result,
    armored_target,
    attacker_drm,
    can_fire,
    defender_drm,
    dft_result,
    fire_column,
    fort_room,
    ip_room,
    log_event,
    lose_step,
    place_wreck,
    resolve_attack,
    reveal_dummy,
    rider,
    spotted_now,
    stack_sp,
    tem_for,
)
from simulator.rulesets.panzerblitz_v2.decide import decide
from simulator.rulesets.panzerblitz_v2.efficiency import (
    efficiency_chance,
    efficiency_roll,
    may_try_hull_down,
)
from simulator.rulesets.panzerblitz_v2.exits import exit_allowed, may_return, note_exit, ops_hex
from simulator.rulesets.panzerblitz_v2.invariants import check
from simulator.rulesets.panzerblitz_v2.movement import (
    crushes_transports,
    enemy_in,
    enter_cost_now,
    path_to,
    reachable,
)
from simulator.rulesets.panzerblitz_v2.overrun import (
    OVR_MP2,
    any_target,
    join_options,
    may_join,
    overrun_options_from,
    resolve_combined,
)
from simulator.rulesets.panzerblitz_v2.players import (
    ASSAULT_FIRE,
    BRIDGE_BLOW,
    BUILD_IP,
    CHIT_HEX,
    ENTRY_HEX,
    FIRE,
    HULL_DOWN,
    IP_HEX,
    LOAD,
    MARKER_HEX,
    MINE_EXCHANGE,
    MOVE_DEST,
    OPP_FIRE,
    OVERRUN,
    OVR_JOIN,
    RECOVER,
    REMOVE_IP,
    SETUP_HEX,
    UNLOAD,
)
from simulator.rulesets.panzerblitz_v2.rng import DICE, below, two_dice
from simulator.rulesets.panzerblitz_v2.smoke import sees, smoke_between
from simulator.rulesets.panzerblitz_v2.state import (
    EV_ADMIN,
    EV_BRIDGE,
    EV_BUILD_IP,
    EV_CARRY,
    EV_CHIT,
    EV_CRUSH,
    EV_ENTER,
    EV_EXIT,
    EV_HULL_DOWN,
    EV_IP,
    EV_MARKER,
    EV_MINE,
    EV_MINE_TRADE,
    EV_MOVE,
    EV_OVR_JOIN,
    EV_OVR_MOVE,
    EV_RECOVER,
    EV_REMOVE_IP,
    EV_RETURN,
    EV_SETUP,
    EV_UNPLAYED,
    EV_WORK,
    EXITED,
    NOBODY,
    OFF_BOARD,
    OFF_MAP,
    OPT_COLS,
    TS_CHITS,
    TS_DISRUPTED,
    TS_FIRE,
    TS_HELD,
    TS_LOST,
    TS_STEPS,
    TS_UNITS,
    TS_UNPLAYED,
)
from simulator.rulesets.panzerblitz_v2.tables import (
    K_ASSAULT,
    K_DF,
    K_OPP,
    LEG,
    MINE_DUMMY,
    MK_BLOCK,
    MK_MINE,
    PROHIBITED,
    TOWED,
    TR_ALL,
    TR_HALF,
    TR_NONE,
)
from simulator.rulesets.panzerblitz_v2.transport import (
    carried_hex,
    grounded,
    has_passengers,
    load,
    may_load,
    passengers_sp,
    room_to_unload,
    unload,
    unload_cost,
)

REINFORCEMENT = 99          # the radius field of a reinforcement chit in the pool
AIR_CHIT = 98               # the radius field of an Air Support chit (3.1.1, 3.1.2.2; air.py)
OPT_COLS_MOVE = 9           # MOVE_DEST columns copied for an exit row


@njit(cache=True)
def seen_by(t, st, h, side):
    """Enemy combat units (not Disrupted) that see hex h and have it in range: a player's measure."""
    k = 0
    for e in range(t.n_units):
        eh = st.hex[e]
        if t.u_side[e] == side or eh < 0 or st.disrupted[e] or not t.t_combat[t.u_type[e]]:
            continue
        if t.dist[eh, h] <= t.t_range[t.u_type[e]] and sees(t, st, eh, h):
            k += 1
    return k


@njit(cache=True)
def watchers(t, st, side, eh, er):
    """The enemy units seen_by counts (their hexes and ranges in eh, er), for many hexes at once."""
    k = 0
    for e in range(t.n_units):
        h = st.hex[e]
        if t.u_side[e] == side or h < 0 or st.disrupted[e] or not t.t_combat[t.u_type[e]]:
            continue
        eh[k] = h
        er[k] = t.t_range[t.u_type[e]]
        k += 1
    return k


@njit(cache=True)
def seen_from(t, st, hexes, nh, eh, er, k, out):
    """seen_by of each of the nh hexes listed (out[j] for hexes[j]) over the k watchers listed;
    watcher by watcher, so that each reads along its own rows of LoS and distance (speed only)."""
    for j in range(nh):
        out[j] = 0
    if st.n_br_out[0] > 0:
        for i in range(k):                     # a destroyed bridge (17.2.1.3): smoke.sees pair by pair
            for j in range(nh):
                if t.dist[eh[i], hexes[j]] <= er[i] and sees(t, st, eh[i], hexes[j]):
                    out[j] += 1
        return
    for i in range(k):
        los = t.los[eh[i]]
        dist = t.dist[eh[i]]
        r = er[i]
        for j in range(nh):
            h = hexes[j]
            if los[h] and dist[h] <= r and (st.n_smoke[0] == 0 or not smoke_between(t, st, eh[i], h)):
                out[j] += 1                    # (smoke.sees, row by row: 12.2.2)


@njit(cache=True)
def goal_distance(t, st, h, side):
    """Hexes from h to the nearest objective hex `side` does not control (a player's measure;
    the objective's own distance when the side controls all of it): the first objective hex not
    the side's in the hex's nearest-first list (t.obj_order)."""
    for i in range(t.obj_order.shape[1]):
        o = t.obj_order[h, i]
        if st.control[o] != side:
            return t.dist[h, o]
    return t.obj_dist[h]


# ----------------------------------------------------------------------------- set-up

@njit(cache=True)
def setup(t, st):
    """Both sides place their at-start units in their groups' set-up areas, the first side first;
    every unit starts Unspotted (6.1.1).  A side with improved positions on its card places them
    first, in its set-up area (15.4, 15.4.1); a non-vehicular unit set up in an IP hex is in it
    while the IP has room (15.4.2)."""
    for k in range(2):
        side = t.first_setup if k == 0 else 1 - t.first_setup
        place_markers(t, st, side)
        place_ips(t, st, side)
        for u in range(t.n_units):
            if t.u_side[u] != side or t.u_enter_turn[u] != 0:
                continue
            g = t.u_group[u]
            n = 0
            for i in range(t.g_setup_n[g]):
                h = t.g_setup[g, i]
                if enemy_in(t, st, h, side) or stack_sp(t, st, h, side, u) > t.stack_limit:
                    continue
                mode = t.t_mode[t.u_type[u]]
                if mode != TOWED and entry_cost(t, h, mode) == PROHIBITED:
                    continue                               # 14.x: not in terrain its mode may not enter
                st.opts[n, 0] = h
                st.opts[n, 1] = tem_for_type(t, u, h)
                st.opts[n, 2] = t.obj_dist[h]
                st.opts[n, 3] = t.field_of_fire[h]
                st.opts[n, 4] = 1 if (ip_room(t, st, h, u) or fort_room(t, st, h, u)) else 0
                n += 1
            if n == 0:
                continue                                   # no room: the counter stays out
            i = decide(SETUP_HEX, n, t, st, side)
            st.hex[u] = st.opts[i, 0]
            st.in_fort[u] = fort_room(t, st, st.hex[u], u)   # 15.5.2: in it while it has room
            st.in_ip[u] = (not st.in_fort[u]) and ip_room(t, st, st.hex[u], u)
            st.mine_ok[u] = st.mine_col[st.hex[u]] >= 0       # set up under the minefield's counter
            st.unspotted[u] = True
            log_event(st, EV_SETUP, side, u, st.hex[u], 0, 0, 0)
    update_control(t, st)
    check(t, st)


@njit(cache=True)
def place_ips(t, st, side):
    """PB2-15.4: the side's card-allotted improved positions, one a hex (15.4.2), in hexes of its
    at-start groups' set-up areas that allow them (15.4.1): one IP_HEX decision a marker."""
    for _ in range(t.s_ip[side]):
        n = 0
        for g in range(t.g_setup.shape[0]):
            grp = False
            for u in range(t.n_units):
                if t.u_group[u] == g and t.u_side[u] == side and t.u_enter_turn[u] == 0:
                    grp = True
                    break
            if not grp:
                continue
            for j in range(t.g_setup_n[g]):
                h = t.g_setup[g, j]
                if st.ip[h] or not t.ip_ok[h] or artificial(st, h):
                    continue                               # 15.4.1: not with blocks, mines, forts
                dup = False
                for k in range(n):
                    if st.opts[k, 0] == h:
                        dup = True
                if dup or n >= st.opts.shape[0]:
                    continue
                st.opts[n, 0] = h
                st.opts[n, 1] = t.tem_df[h]
                st.opts[n, 2] = t.obj_dist[h]
                st.opts[n, 3] = t.field_of_fire[h]
                st.opts[n, 4] = 0
                n += 1
        if n == 0:
            return
        i = decide(IP_HEX, n, t, st, side)
        st.ip[st.opts[i, 0]] = True
        log_event(st, EV_IP, side, st.opts[i, 0], 0, 0, 0, 0)


@njit(cache=True)
def artificial(st, h):
    """A minefield, block or fortification in hex h (15.2-15.5)."""
    return st.mine_col[h] >= 0 or st.block[h] or st.fort[h] >= 0


@njit(cache=True)
def marker_allowed(t, st, kind, h):
    """PB2-15.2.2, 15.3.1, 15.5.1: may a counter of this kind go in hex h at set-up?  One of a
    kind a hex; no minefield or block with a fortification, no fortification with either."""
    if kind == MK_MINE:
        return t.mine_ok[h] and st.mine_col[h] < 0 and st.fort[h] < 0
    if kind == MK_BLOCK:
        return t.block_ok[h] and not st.block[h] and st.fort[h] < 0
    return t.fort_ok[h] and st.fort[h] < 0 and st.mine_col[h] < 0 and not st.block[h]


@njit(cache=True)
def has_road(t, h):
    for d in range(6):
        if t.road_side[h, d]:
            return True
    return False


@njit(cache=True)
def place_markers(t, st, side):
    """PB2-15.2, 15.3, 15.5: the side's minefields, blocks and fortifications, each in its
    group's set-up area where its kind may go (15.2.2, 15.3.1, 15.5.1): one MARKER_HEX decision
    a counter, before the side's improved positions and units (IPs may not share their hexes).
    A group's minefields are first traded on the exchange chart (15.2.1, round 8: MINE_EXCHANGE),
    then placed together where its first minefield comes; dummies are not traded."""
    traded = np.zeros(max(t.g_setup_n.shape[0], 1), dtype=np.bool_)
    counts = np.zeros(3, dtype=np.int64)
    for k in range(t.n_markers):
        if t.mk_side[k] != side:
            continue
        g = t.mk_group[k]
        if t.mk_kind[k] == MK_MINE and 0 <= t.mk_str[k] < MINE_DUMMY:
            if traded[g]:
                continue
            traded[g] = True
            counts[:] = 0
            for j in range(t.n_markers):
                if t.mk_side[j] == side and t.mk_group[j] == g and t.mk_kind[j] == MK_MINE and 0 <= t.mk_str[j] < MINE_DUMMY:
                    counts[t.mk_str[j]] += 1
            mine_exchange(t, st, side, counts)
            for x in range(3):
                for _ in range(counts[x]):
                    place_marker(t, st, side, g, MK_MINE, t.ms_col[x], False, k)
            continue
        place_marker(t, st, side, g, t.mk_kind[k], t.mk_col[k], t.mk_str[k] == MINE_DUMMY, k)


@njit(cache=True)
def mine_exchange(t, st, side, counts):
    """PB2-15.2.1: MINE_EXCHANGE decisions on a group's minefield counts (by strength) until the player
    keeps them: each row a trade of the chart (either way) the counts allow."""
    for _ in range(4 * (counts.sum() + 1)):
        for c in range(6):
            st.opts[0, c] = 0
        st.opts[0, 0] = -1
        st.opts[0, 5] = counts.sum()
        n = 1
        for e in range(t.ex_give_s.shape[0]):
            if counts[t.ex_give_s[e]] < t.ex_give_n[e] or t.ms_col[t.ex_take_s[e]] < 0:
                continue
            st.opts[n, 0] = e
            st.opts[n, 1] = t.ex_give_s[e]
            st.opts[n, 2] = t.ex_give_n[e]
            st.opts[n, 3] = t.ex_take_s[e]
            st.opts[n, 4] = t.ex_take_n[e]
            st.opts[n, 5] = counts.sum() - t.ex_give_n[e] + t.ex_take_n[e]
            n += 1
        if n == 1:
            return
        i = decide(MINE_EXCHANGE, n, t, st, side)
        if i == 0:
            return
        e = st.opts[i, 0]
        counts[t.ex_give_s[e]] -= t.ex_give_n[e]
        counts[t.ex_take_s[e]] += t.ex_take_n[e]
        log_event(st, EV_MINE_TRADE, side, t.ex_give_s[e], t.ex_give_n[e], t.ex_take_s[e], t.ex_take_n[e], 0)


@njit(cache=True)
def place_marker(t, st, side, g, kind, col, dummy, k):
    """One counter of group g (MARKER_HEX): a minefield on DFT column col (a dummy: 15.2), a block, the
    fortification of marker k."""
    n = 0
    for j in range(t.g_setup_n[g]):
        h = t.g_setup[g, j]
        if not marker_allowed(t, st, kind, h) or n >= st.opts.shape[0]:
            continue
        st.opts[n, 0] = h
        st.opts[n, 1] = kind
        st.opts[n, 2] = t.tem_df[h]
        st.opts[n, 3] = t.obj_dist[h]
        st.opts[n, 4] = t.field_of_fire[h]
        st.opts[n, 5] = 1 if has_road(t, h) else 0
        n += 1
    if n == 0:
        return                                             # nowhere it may go: left out
    i = decide(MARKER_HEX, n, t, st, side)
    h = st.opts[i, 0]
    if kind == MK_MINE:
        st.mine_col[h] = col
        st.mine_dummy[h] = dummy
    elif kind == MK_BLOCK:
        st.block[h] = True
    else:
        st.fort[h] = k
    log_event(st, EV_MARKER, side, h, kind, k, 0, 0)


@njit(cache=True)
def tem_for_type(t, u, h):
    if t.tem_nonveh_only[h] and t.t_vehicle[t.u_type[u]]:
        return 0
    return t.tem_df[h]


@njit(cache=True)
def update_control(t, st):
    """PB2-3.2: a hex is controlled by the last side to have a non-Disrupted unit in it."""
    for u in range(t.n_units):
        h = st.hex[u]
        if h >= 0 and not st.disrupted[u]:
            st.control[h] = t.u_side[u]


# ----------------------------------------------------------------------------- fire (7.0)

@njit(cache=True)
def list_firers(t, st, target_hex, armored, side):
    """Active units of `side` that may fire at a target in target_hex: st.firers (their number),
    st.scratch[i] = 2 for those firing at half strength (7.2.4)."""
    return _firers(t, st, target_hex, side, armored, False)


@njit(cache=True)
def _firers(t, st, h, side, armored, opportunity):
    """The units of `side` that may fire at an (armored or not) target in hex h, into st.firers and
    st.scratch (can_fire's 1 or 2): the active ones, or with `opportunity` those that have not
    opportunity-fired this turn (7.8.6).  Their number."""
    nf = 0
    for f in range(t.n_units):
        if t.u_side[f] != side or (st.opfired[f] if opportunity else not st.active[f]):
            continue
        c = can_fire(t, st, f, h, armored)
        if c > 0:
            st.firers[nf] = f
            st.scratch[nf] = c
            nf += 1
    return nf


@njit(cache=True)
def list_targets(t, st, h, target_unit, side_of_target):
    """The targets of an attack: one armored unit (7.3.2), or every non-armored unit of the hex not
    yet the target of direct fire this Operation (7.1.5; all of them as one target, as 7.3.1's
    exceptions for woods and towns ask, readings: engine.md)."""
    if target_unit >= 0 and not st.in_fort[target_unit]:
        st.targets[0] = target_unit
        return 1
    nt = 0
    fort = target_unit >= 0                # 15.5.3: the units in a fortification, all together
    for u in range(t.n_units):
        if st.hex[u] != h or t.u_side[u] != side_of_target or st.df_target_op[u] == st.op[0]:
            continue
        if (fort and st.in_fort[u]) or (not fort and not armored_target(t, st, u)):
            st.targets[nt] = u
            nt += 1
    return nt


@njit(cache=True)
def fire_options(t, st, side, kind):
    """FIRE options: row 0 = stop; then one row a target (hex, armored unit or -1, firers, column,
    DRM, targets, disrupted targets)."""
    n = 1
    st.opts[0, 0] = -1
    for k in range(7):
        st.opts[0, k + 1] = 0
    enemy = 1 - side
    halves = np.empty(t.n_units, dtype=np.int64)
    occupied = np.zeros(t.n_hexes, dtype=np.bool_)     # (speed only: hexes without an enemy give no option)
    riders = np.zeros(t.n_hexes, dtype=np.bool_)       # (and hexes with an enemy rider, 4.3.7.1)
    for u in range(t.n_units):
        if t.u_side[u] == enemy and st.hex[u] >= 0:
            occupied[st.hex[u]] = True
        elif t.u_side[u] == enemy and rider(t, st, u) and st.hex[st.carried_by[u]] >= 0:
            riders[st.hex[st.carried_by[u]]] = True
    for h in range(t.n_hexes):
        if not t.play[h] or not occupied[h]:
            continue
        has_soft = False
        fort_unit = -1
        for u in range(t.n_units):
            if st.hex[u] != h or t.u_side[u] != enemy:
                continue
            if st.in_fort[u]:
                if st.df_target_op[u] != st.op[0] and fort_unit < 0:
                    fort_unit = u                  # 15.5.3: one armored target, the fortification
            elif t.t_armored[t.u_type[u]]:
                if st.df_target_op[u] == st.op[0]:
                    continue
                n = _add_fire_option(t, st, h, u, side, kind, n, halves)
            elif st.df_target_op[u] != st.op[0]:
                has_soft = True
        if has_soft:
            n = _add_fire_option(t, st, h, -1, side, kind, n, halves)
        for r in range(t.n_units if riders[h] else 0):   # 4.3.7.1: riders, apart from their AFV
            if t.u_side[r] == enemy and st.df_target_op[r] != st.op[0] and rider(t, st, r) \
                    and st.hex[st.carried_by[r]] == h:
                n = _add_fire_option(t, st, h, r, side, kind, n, halves)
        if fort_unit >= 0:
            n = _add_fire_option(t, st, h, fort_unit, side, kind, n, halves)
        if n >= st.opts.shape[0] - 1:
            break
    return n


@njit(cache=True)
def _add_fire_option(t, st, h, target_unit, side, kind, n, halves):
    armored = target_unit >= 0 and armored_target(t, st, target_unit)
    nf = list_firers(t, st, h, armored, side)
    if nf == 0:
        return n
    for i in range(nf):
        halves[i] = st.scratch[i]
    nt = list_targets(t, st, h, target_unit, 1 - side)
    if nt == 0:
        return n
    col = fire_column(t, st, st.firers, nf, halves, st.targets, nt, armored)
    if col < 0:
        return n                     # below the table: not allowed (AP) / no effect (AT), 7.4-7.5 readings
    unsp = 0
    dis = 0
    for i in range(nt):
        if st.unspotted[st.targets[i]] and not spotted_now(t, st, st.targets[i]):   # as 6.1.2 will judge it
            unsp += 1
        if st.disrupted[st.targets[i]]:
            dis += 1
    drm = attacker_drm(t, st, st.firers, nf, h, kind, -1) + defender_drm(t, st, st.targets, nt, 2 * unsp >= nt, kind,
                                                                    False, False)
    st.opts[n, 0] = h
    st.opts[n, 1] = target_unit
    st.opts[n, 2] = nf
    st.opts[n, 3] = col
    st.opts[n, 4] = drm
    st.opts[n, 5] = nt
    st.opts[n, 6] = dis
    st.opts[n, 7] = 0
    return n + 1


@njit(cache=True)
def fire_step(t, st, side):
    """Step ii of an Operation (3.1): direct-fire attacks until the player stops."""
    halves = np.empty(t.n_units, dtype=np.int64)
    for _ in range(4 * t.n_units + 4):
        n = fire_options(t, st, side, K_DF)
        if n <= 1:
            return
        i = decide(FIRE, n, t, st, side)
        if i == 0:
            return
        h = st.opts[i, 0]
        target_unit = st.opts[i, 1]
        armored = target_unit >= 0 and armored_target(t, st, target_unit)   # (a rider: non-armored, 4.3.7.1)
        nf = list_firers(t, st, h, armored, side)
        for k in range(nf):
            halves[k] = st.scratch[k]
        nt = list_targets(t, st, h, target_unit, 1 - side)
        resolve_attack(t, st, st.firers[:nf].copy(), nf, halves[:nf], h, st.targets[:nt].copy(), nt, armored, K_DF,
                       False, False, side, -99, 0)
        st.ts[st.turn[0], side, TS_FIRE] += 1
        check(t, st)


# ----------------------------------------------------------------------------- movement (4.0, 7.8)

@njit(cache=True)
def opportunity_fire(t, st, u, h, road_mover):
    """PB2-7.8: the non-phasing side's opportunity fire at a unit that has just entered hex h: its
    units on the ground, then its aircraft in play (16.1.4, air.py).  Returns True if the mover was
    disrupted or lost."""
    if ground_opportunity_fire(t, st, u, h, road_mover):
        return True
    return air.opportunity(t, st, u, h)


@njit(cache=True)
def ground_opportunity_fire(t, st, u, h, road_mover):
    """PB2-7.8: the non-phasing side may fire at a unit that has just entered hex h (one attack per
    hex entered, 7.8.4), with every eligible unit: at the mover, or (4.3.7.1, 10.1.2; round 8 A) at
    one of the riders of a moving AFV apart from it (an OPP_FIRE row of its own, column 4 = the
    rider).  Returns True if the mover was disrupted or lost."""
    enemy = 1 - t.u_side[u]
    armored = armored_target(t, st, u)
    nf = opp_firers(t, st, h, enemy, armored)
    firers = st.firers[:nf].copy()
    halves = st.scratch[:nf].copy()
    targets = np.empty(1, dtype=np.int64)
    targets[0] = u
    col = fire_column(t, st, firers, nf, halves, targets, 1, armored) if nf > 0 else -1
    n = 1
    if col >= 0:
        unsp = st.unspotted[u] and not spotted_now(t, st, u)
        drm = attacker_drm(t, st, firers, nf, h, K_OPP, -1) + defender_drm(t, st, targets, 1, unsp, K_OPP, road_mover,
                                                                           True)
        st.opts[1, 0] = 1
        st.opts[1, 1] = nf
        st.opts[1, 2] = col
        st.opts[1, 3] = drm
        st.opts[1, 4] = -1
        n = 2
    if t.t_afv[t.u_type[u]]:
        n = rider_opp_rows(t, st, u, h, road_mover, n)         # 4.3.7.1, 10.1.2
    if n <= 1:
        return False
    st.opts[0, 0] = 0
    st.opts[0, 1] = st.opts[1, 1]
    st.opts[0, 2] = st.opts[1, 2]
    st.opts[0, 3] = st.opts[1, 3]
    st.opts[0, 4] = -1
    i = decide(OPP_FIRE, n, t, st, enemy)
    if i == 0:
        return False
    r = st.opts[i, 4]
    if r >= 0:
        nf = opp_firers(t, st, h, enemy, False)
        targets[0] = r
        resolve_attack(t, st, st.firers[:nf].copy(), nf, st.scratch[:nf].copy(), h, targets, 1, False, K_OPP,
                       road_mover, True, enemy, -99, 0)
    else:
        resolve_attack(t, st, firers, nf, halves, h, targets, 1, armored, K_OPP, road_mover, True, enemy, -99, 0)
    st.ts[st.turn[0], enemy, TS_FIRE] += 1
    return st.hex[u] < 0 or st.disrupted[u]


@njit(cache=True)
def opp_firers(t, st, h, enemy, armored):
    """The units of `enemy` that may opportunity-fire at an (armored or not) target that entered
    hex h, not having opportunity-fired this turn (7.8.6): st.firers / st.scratch, their number."""
    return _firers(t, st, h, enemy, armored, True)


@njit(cache=True)
def rider_opp_rows(t, st, u, h, road_mover, n):
    """4.3.7.1, 10.1.2 (round 8 A): an OPP_FIRE row (1, firers, column, DRM, rider) for each rider
    of AFV u that just entered hex h: DF 1, no modifier for infantry in the open (combat.fire_column,
    defender_drm).  Returns the rows' new count."""
    enemy = 1 - t.u_side[u]
    one = np.empty(1, dtype=np.int64)
    for r in range(t.n_units):
        if st.carried_by[r] != u or not rider(t, st, r) or n >= st.opts.shape[0]:
            continue
        nf = opp_firers(t, st, h, enemy, False)              # a rider: non-armored (4.3.7.1)
        if nf == 0:
            continue
        one[0] = r
        col = fire_column(t, st, st.firers[:nf], nf, st.scratch[:nf], one, 1, False)
        if col < 0:
            continue
        unsp = st.unspotted[u] and not spotted_now(t, st, u)        # spotted as its AFV is
        st.opts[n, 0] = 1
        st.opts[n, 1] = nf
        st.opts[n, 2] = col
        st.opts[n, 3] = attacker_drm(t, st, st.firers[:nf], nf, h, K_OPP, -1) + \
            defender_drm(t, st, one, 1, unsp, K_OPP, road_mover, True)
        st.opts[n, 4] = r
        n += 1
    return n


@njit(cache=True)
def move_unit(t, st, u, start, spent0):
    """MOVE_DEST for one unit (row 0 = stay), then the move hex by hex with opportunity fire;
    the unit is Spent when it has moved (4.1.10).  Returns True if it moved."""
    return move_unit_roads(t, st, u, start, spent0, True)


@njit(cache=True)
def move_unit_roads(t, st, u, start, spent0, roads):
    """move_unit, with the road rate only when `roads` (none in a move that includes an overrun, 8.2.1.3).
    15.2.3.1 (round 8): a unit that revealed a dummy minefield where it stopped may move on from there
    with the MP it has left (another MOVE_DEST, its row 0: stay)."""
    if grounded(t, st, u):
        return False                                   # 4.3.5 footnote 6: an empty jeep or motorcycle stays
    st.revealed[0] = -1
    moved = move_leg(t, st, u, start, spent0, roads)
    for _ in range(t.n_hexes):
        if st.revealed[0] != u or st.hex[u] < 0 or st.disrupted[u] or st.rev_mp[0] >= t.t_ma[t.u_type[u]]:
            break
        st.revealed[0] = -1
        before = st.mp_op[u]
        if move_leg(t, st, u, st.hex[u], st.rev_mp[0], roads):
            st.mp_op[u] += before
        else:
            st.mp_op[u] = before
    st.revealed[0] = -1
    return moved


@njit(cache=True)
def move_leg(t, st, u, start, spent0, roads):
    """One MOVE_DEST and the move to it (move_unit_roads)."""
    side = t.u_side[u]
    ma = t.t_ma[t.u_type[u]]
    if st.in_ip[u] and st.hex[u] == start:
        spent0 += t.ip_extra2                          # 15.4.8: 1 MP to leave the IP
    if st.in_fort[u] and st.hex[u] == start:
        spent0 += t.fort_extra2                        # 15.5.9: 1 MP to leave the fortification
    nl = reachable(t, st, u, start, spent0, ma, roads)
    # an empty carrier that cannot fight (a truck, a wagon) is only worth its passengers
    idle = 1 if (t.t_carrier[t.u_type[u]] >= 0 and not t.t_combat[t.u_type[u]] and not has_passengers(t, st, u)) else 0
    n = 0
    eh = np.empty(t.n_units, dtype=np.int64)
    er = np.empty(t.n_units, dtype=np.int64)
    nw = watchers(t, st, side, eh, er)
    seen = np.empty(max(nl, 1), dtype=np.int64)
    seen_from(t, st, st.order, nl, eh, er, nw, seen)
    for i in range(nl):
        h = st.order[i]
        st.opts[n, 0] = h
        st.opts[n, 1] = st.reach[h]
        # a unit back from its round trip heads for the final edge (exits.py)
        st.opts[n, 2] = t.final_dist[side, h] if st.returned[u] else goal_distance(t, st, h, side)
        st.opts[n, 3] = tem_for_type(t, u, h)
        st.opts[n, 4] = seen[i]
        st.opts[n, 5] = t.field_of_fire[h]
        st.opts[n, 6] = t.obj_dist[h]
        st.opts[n, 7] = 1 if ((i == 0 and (st.in_ip[u] or st.in_fort[u]))
                              or (i > 0 and st.reach[h] + t.ip_extra2 <= ma and ip_room(t, st, h, u))
                              or (i > 0 and st.reach[h] + t.fort_extra2 <= ma and fort_room(t, st, h, u))) else 0
        st.opts[n, 8] = idle
        st.opts[n, 9] = 0
        n += 1
        if n >= st.opts.shape[0]:
            break
    mode = t.t_mode[t.u_type[u]]
    for i in range(nl):
        # off the map by an edge the card's victory counts (exited / not_exited): as the hex it
        # leaves from, one step further (goal distance -1, column 9 = 1)
        h = st.order[i]
        if exit_allowed(t, st, u, h) and mode != TOWED and st.reach[h] + t.exit_cost2[mode] <= ma and n < st.opts.shape[0]:
            for k in range(OPT_COLS_MOVE):
                st.opts[n, k] = st.opts[i, k]
            st.opts[n, 2] = -1
            st.opts[n, 7] = 0
            st.opts[n, 9] = 1
            n += 1
    i = decide(MOVE_DEST, n, t, st, side) if n > 1 else 0
    if i == 0:
        return False
    dest = st.opts[i, 0]
    into = st.opts[i, 7] == 1
    if st.hex[u] == start and st.mine_col[start] >= 0 and not st.mine_ok[u]:
        # 15.2.3.2: a unit the minefield disrupted is attacked again as it tries to leave
        if mine_attack(t, st, u, start):
            if st.hex[u] >= 0:
                st.spent[u] = True
            st.acted[u] = True
            return True
    st.in_ip[u] = False
    st.in_fort[u] = False
    if st.opts[i, 9] == 1:
        if walk(t, st, u, dest, spent0):
            exit_map(t, st, u)
        elif st.hex[u] >= 0:
            st.spent[u] = True
        st.acted[u] = True
        return True
    if walk(t, st, u, dest, spent0) and into:
        if st.fort[dest] >= 0:
            st.in_fort[u] = fort_room(t, st, dest, u)  # 15.5.9: 1 MP to enter it, with MP left
        elif ip_room(t, st, dest, u):
            st.in_ip[u] = True                         # 15.4.8: 1 MP to enter it, with MP left
    if st.hex[u] >= 0:
        st.spent[u] = True
    st.acted[u] = True
    return True


@njit(cache=True)
def walk(t, st, u, dest, spent0):
    """Move u along st.prev to `dest`, hex by hex, with opportunity fire at each hex entered (7.8);
    returns True if it got there (not stopped, not disrupted)."""
    side = t.u_side[u]
    path = np.empty(t.n_hexes, dtype=np.int64)
    k = path_to(st, dest, path)
    costs = np.empty(k, dtype=np.int64)
    for j in range(k):
        costs[j] = st.reach[path[j]]
    for j in range(1, k):
        prev = st.hex[u]
        h = path[j]
        if enemy_in(t, st, h, side):
            if not crushes_transports(t, st, u, h):
                return False                           # an enemy unit came (cannot happen in-op)
            for v in range(t.n_units):                 # 4.1.8.2: the empty trucks and wagons there go
                if st.hex[v] == h and t.u_side[v] != side:
                    log_event(st, EV_CRUSH, side, u, h, v, 0, 0)
                    while st.hex[v] >= 0:
                        lose_step(t, st, v)
        st.hex[u] = h
        st.mine_ok[u] = False
        st.hd_hex[u] = -1                              # 15.6.3: hull-down lost on spending MP
        st.mp_op[u] = costs[j] - spent0
        road = False
        for d in range(6):
            if t.neighbours[prev, d] == h and t.road_side[prev, d] and costs[j] - costs[j - 1] == 1:
                road = True
        st.road_op[u] = st.road_op[u] or road
        log_event(st, EV_MOVE, side, u, prev, h, costs[j], 0)
        if st.mine_col[h] >= 0 and mine_attack(t, st, u, h):
            return False                               # 15.2.3.3: the minefield first, then opportunity fire
        if opportunity_fire(t, st, u, h, road):
            return False
    return st.hex[u] == dest and not st.disrupted[u]


@njit(cache=True)
def exit_map(t, st, u):
    """The unit steps off the map from its edge hex (a classic card's exited measure counts it);
    its passengers go with it."""
    h = st.hex[u]
    side = t.u_side[u]
    for p in range(t.n_units):
        if st.carried_by[p] == u:
            st.carried_by[p] = -1
            st.hex[p] = EXITED
            log_event(st, EV_EXIT, side, p, h, note_exit(t, st, p, h), 0, 0)
    st.hex[u] = EXITED
    st.in_ip[u] = False
    st.in_fort[u] = False
    st.mine_ok[u] = False
    st.active[u] = False
    st.hd_hex[u] = -1
    log_event(st, EV_EXIT, side, u, h, note_exit(t, st, u, h), 0, 0)


@njit(cache=True)
def mine_attack(t, st, u, h):
    """PB2-15.2.3.1: the minefield of hex h attacks unit u on the DFT column its strength names,
    without modifiers, armor and infantry alike (a carrier's passengers share its result, 4.3.6).
    A survivor not Disrupted is under the counter and leaves later unattacked (15.2.3.1); a
    Disrupted one is attacked again when it tries to leave (15.2.3.2).  Returns True if u was
    disrupted or lost.  (The event's side is the side of the unit attacked: mines have none, 15.2.2.3.)"""
    if st.mine_dummy[h]:
        reveal_dummy(t, st, h, u)                 # 15.2.3.1 (round 8): removed, the unit may go on
        return False
    one = np.empty(1, dtype=np.int64)
    was = np.empty(1, dtype=np.bool_)
    one[0] = u
    was[0] = st.disrupted[u]
    col = st.mine_col[h]
    natural = two_dice(st.streams)
    res = dft_result(t, col, natural, 0)
    log_event(st, EV_MINE, t.u_side[u], h, col, natural, 0, res * 100 + 1)
    st.mine_busy[0] = True
    apply_result(t, st, one, 1, res, was)
    st.mine_busy[0] = False
    st.mine_ok[u] = st.hex[u] == h and not st.disrupted[u]
    return st.hex[u] < 0 or st.disrupted[u]


@njit(cache=True)
def try_overrun(t, st, u):
    """PB2-8 (overrun.py): the OVERRUN decision of an overrun-capable unit before it moves; if
    taken, the move to the hex adjacent to the target (no road rate, 8.2.1.3) with opportunity
    fire, the other overrunners joining (8.1.3, `join_step`), then the overrun.  Overrunners that
    emptied the hex move on with the MP they have left, the first one possibly overrunning again
    (8.1.9; round 8 A).  Returns True if the unit went for an overrun."""
    side = t.u_side[u]
    if not any_target(t, st, u, st.hex[u]):
        return False                                   # (speed only: no search without a target)
    queue = np.empty(t.n_units + 1, dtype=np.int64)    # the overrunners to move on (8.1.9), u first
    queue_used = np.zeros(t.n_units + 1, dtype=np.int64)
    queue[0] = u
    nq = 1
    att = np.empty(t.n_units + 1, dtype=np.int64)
    asg = np.empty(t.n_units + 1, dtype=np.int64)
    used_j = np.empty(t.n_units + 1, dtype=np.int64)
    entered = np.zeros(t.n_units + 1, dtype=np.bool_)
    riders = np.empty(t.n_units, dtype=np.int64)
    qi = 0
    while qi < nq:
        v = queue[qi]
        spent0 = queue_used[qi]
        first = True
        ma = t.t_ma[t.u_type[v]]
        while True:
            start = st.hex[v]
            n = 1
            if st.hex[v] >= 0 and not st.disrupted[v] and ((qi == 0 and first) or any_target(t, st, v, start)):
                nl = reachable(t, st, v, start, spent0, ma, False)
                n = overrun_options_from(t, st, v, start, nl, qi == 0 and first)   # 8.1.10: at the start only
            i = decide(OVERRUN, n, t, st, side) if n > 1 else 0
            if i == 0:
                if qi == 0 and first:
                    return False
                if st.hex[v] >= 0 and not st.disrupted[v] and spent0 < ma:
                    move_unit_roads(t, st, v, start, spent0, False)   # 8.1.9: on, no road rate (8.2.1.3)
                break
            h = st.opts[i, 0]
            target_unit = st.opts[i, 1]
            frm = st.opts[i, 2]
            missing = st.opts[i, 7]
            split = st.opts[i, 8] == 1
            pb = qi == 0 and first and has_passengers(t, st, v) and \
                pbassault.declare(t, st, v, st.opts[i, 3], st.opts[i, 4], st.opts[i, 5])
            log_event(st, EV_OVR_MOVE, side, v, h, frm, missing, (1 if pb else 0) + (2 if split else 0))
            # 8.1.1: what the overrun costs: the way to the hex it attacks from, 2 MP and the target hex's cost
            used = st.reach[frm] + OVR_MP2
            for d in range(6):
                if t.neighbours[frm, d] == h:
                    used += enter_cost_now(t, st, v, frm, d, h, False)
            if not (frm == start or walk(t, st, v, frm, spent0)):
                break
            k = pbassault.unload_for_assault(t, st, v, riders) if pb else 0   # PB2-10.1, 4.3.7.4
            for j in range(k):
                if st.hex[riders[j]] >= 0 and not st.disrupted[riders[j]]:
                    opportunity_fire(t, st, riders[j], frm, False)              # 4.3.10
            att[0] = v
            asg[0] = target_unit
            used_j[0] = used
            na = 1
            if qi == 0 and first and not split:
                na = join_step(t, st, h, att, asg, used_j, na)                 # 8.1.3
            resolve_combined(t, st, att, asg, na, h, split, missing, entered)
            if k > 0:
                pbassault.assault_after_overrun(t, st, riders, k, h, side)      # 10.1, 10.1.5
            for j in range(1, na):
                w = att[j]
                if entered[j] and not st.disrupted[w] and used_j[j] < t.t_ma[t.u_type[w]]:
                    queue[nq] = w                                               # 8.1.9: it moves on later
                    queue_used[nq] = used_j[j]
                    nq += 1
                elif st.hex[w] >= 0:
                    st.spent[w] = True
            if k > 0 or missing > 0 or not entered[0] or st.disrupted[v] or used >= ma:
                break                                  # not after a PB assault (10.1) nor an 8.1.10 overrun
            spent0 = used                              # 8.1.9: on from the emptied hex, maybe overrunning again
            first = False
        if st.hex[v] >= 0:
            st.spent[v] = True                         # 8.1.1, 8.1.10: the overrunner is Spent
        st.acted[v] = True
        qi += 1
    st.ts[st.turn[0], side, TS_FIRE] += 1
    return True


@njit(cache=True)
def join_step(t, st, h, att, asg, used_j, na):
    """8.1.3, 8.2.1.1, 8.2.1.6 (overrun.py): the other active overrun-capable units of the side may
    join the overrun of hex h by att[:na], one after the other: OVR_JOIN (stay out, or a defender
    type and the hex it attacks from), then its move there at once (no road rate, opportunity
    fire); one stopped or disrupted on the way does not overrun and is Spent (8.1.1).  Returns the
    number of overrunners (att, asg and used_j, the MP each has used, extended)."""
    side = t.u_side[att[0]]
    for v in range(t.n_units):
        if not may_join(t, st, v, side, att, na):
            continue
        start = st.hex[v]
        if not sees(t, st, start, h):
            continue                                   # (speed only: join_options checks 8.2.1.2)
        nl = reachable(t, st, v, start, 0, t.t_ma[t.u_type[v]], False)
        n = join_options(t, st, v, h, att, asg, na, start, nl)
        if n <= 1:
            continue
        i = decide(OVR_JOIN, n, t, st, side)
        if i == 0:
            continue
        frm = st.opts[i, 2]
        kind = st.opts[i, 1]
        used = st.reach[frm] + OVR_MP2
        for d in range(6):
            if t.neighbours[frm, d] == h:
                used += enter_cost_now(t, st, v, frm, d, h, False)
        log_event(st, EV_OVR_JOIN, side, v, h, frm, kind, 0)
        st.acted[v] = True
        if frm == start or walk(t, st, v, frm, 0):
            att[na] = v
            asg[na] = kind
            used_j[na] = used
            na += 1
        elif st.hex[v] >= 0:
            st.spent[v] = True
    return na


@njit(cache=True)
def demolitions(t, st, side):
    """17.2.1.3 (round 9): before the fire step, each active engineer of the side whose bridge
    demolition is ready chooses (BRIDGE_BLOW) to roll now, to wait (it may still fire, but not
    move), or to give the work up (it then fires and moves as any unit)."""
    for u in range(t.n_units):
        if t.u_side[u] == side and st.active[u] and st.work[u] == engineers.W_DEMOLISH \
                and st.work_stage[u] == engineers.READY:
            demolition_step(t, st, u)
            check(t, st)


@njit(cache=True)
def demolition_step(t, st, u):
    """PB2-17.2.1.3, 17.2.2 (round 9): an active engineer whose demolition is ready (READY: its two
    Operations on the bridge done) is asked BRIDGE_BLOW: wait on the bridge (it stays put this
    Operation), give the work up (it then moves as any unit), or move to an adjacent hex (by the
    movement rules, opportunity fire too) and roll 2d6 + the further attempts' DRM: at most
    demolition_roll_max destroys the bridge (bridges.destroy; the Destroyed Bridge marker in the
    bridge hex it worked in).  On a failure it goes back onto the bridge hex if it can, marked No
    Move (17.2.2: the sequence starts again, -1 a further attempt); if it cannot, the work ends.
    True if the engineer's Operation is over."""
    h = st.hex[u]
    if st.work_stage[u] != engineers.READY or h != st.work_hex[u] or st.spent[u] or st.disrupted[u] \
            or st.fired[u] or st.fo[u] or st.mp_op[u] > 0:
        return False
    side = t.u_side[u]
    k = t.hex_br[h]
    ma = t.t_ma[t.u_type[u]]
    need = t.demo_roll_max - st.work_tries[u] * t.demo_retry_drm
    chance = 0
    for a in range(1, 7):
        for b in range(1, 7):
            if a + b <= need:
                chance += 1
    spent0 = (t.ip_extra2 if st.in_ip[u] else 0) + (t.fort_extra2 if st.in_fort[u] else 0)   # 15.4.8, 15.5.9
    nl = reachable(t, st, u, h, spent0, ma, True)
    en, own = engineers.across(t, st, k, h, side, engineers.NEAR, u, True)
    for j in range(2):
        for c in range(OPT_COLS):
            st.opts[j, c] = 0
        st.opts[j, 0] = -1 - j
        st.opts[j, 4] = en
        st.opts[j, 5] = own
    n = 2
    for i in range(1, nl):
        m = st.order[i]
        if st.prev[m] != h:
            continue                                    # "to an adjacent hex": one step
        st.opts[n, 0] = m
        st.opts[n, 1] = st.reach[m]
        st.opts[n, 2] = engineers.seen_by(t, st, m, side)
        st.opts[n, 3] = chance
        st.opts[n, 4] = en
        st.opts[n, 5] = own
        for c in range(6, OPT_COLS):
            st.opts[n, c] = 0
        for d in range(6):
            if t.neighbours[h, d] == m:                 # across the bridge or another water hexside
                st.opts[n, 6] = 1 if (t.side_br[h, d] >= 0 or t.side_cost[h, d, 2] != 0) else 0
        n += 1
    i = decide(BRIDGE_BLOW, n, t, st, side)
    if i == 1:
        st.work[u] = engineers.W_NONE                   # given up: it moves as any unit
        st.work_hex[u] = -1
        st.work_stage[u] = 0
        return False
    if i == 0:
        return True                                     # waits by its charges
    dest = st.opts[i, 0]
    st.in_ip[u] = False
    st.in_fort[u] = False
    arrived = walk(t, st, u, dest, 0)
    st.acted[u] = True
    if st.hex[u] >= 0:
        st.spent[u] = True
    if not arrived:
        return True                                     # stopped or disrupted on the way: no roll (17.2.3)
    natural = two_dice(st.streams)
    if natural + st.work_tries[u] * t.demo_retry_drm <= t.demo_roll_max:
        destroy(t, st, k, h)
        log_event(st, EV_WORK, side, u, h, engineers.W_DEMOLISH, engineers.DONE, natural)
        log_event(st, EV_BRIDGE, side, k, h, u, 0, 0)
        st.work[u] = engineers.W_NONE
        st.work_hex[u] = -1
        st.work_stage[u] = 0
        return True
    log_event(st, EV_WORK, side, u, h, engineers.W_DEMOLISH, engineers.FAILED, natural)
    st.work_tries[u] += 1
    nl = reachable(t, st, u, dest, st.mp_op[u], ma, True)
    back = False
    for j in range(nl):
        if st.order[j] == h and st.prev[h] == dest:
            back = True
    if back and walk(t, st, u, h, 0):
        st.work_stage[u] = engineers.DECLARED           # 17.2.2: No Move again, the sequence advances
        log_event(st, EV_WORK, side, u, h, engineers.W_DEMOLISH, engineers.DECLARED, 0)
    else:
        st.work[u] = engineers.W_NONE                   # it could not go back: the work ends
        st.work_hex[u] = -1
        st.work_stage[u] = 0
    return True


@njit(cache=True)
def move_step(t, st, side):
    """Step iii: each active unit that did not fire may move (one at a time, 4.1.4); an
    overrun-capable one may overrun instead (8.0); an AFV that moved at most half its MA may then
    assault-fire (7.10)."""
    for u in range(t.n_units):
        if t.u_side[u] != side or not st.active[u]:
            continue
        if st.hex[u] == EXITED and may_return(t, st, u):
            return_unit(t, st, u)                       # PB-SIT-5 (exits.py): back on, then on its way
            check(t, st)
            continue
        if st.hex[u] < 0:
            continue
        if st.spent[u] or st.disrupted[u] or st.fired[u] or st.fo[u] or t.t_ma[t.u_type[u]] <= 0:
            continue                                    # an FO may not move (11.2.2, 4.1.2)
        if st.work[u] == engineers.W_DEMOLISH and st.work_stage[u] == engineers.READY:
            continue                                    # 17.2.1.3: it waits on the bridge (demolitions)
        if t.t_engineer[t.u_type[u]] and engineers.try_work(t, st, u):
            check(t, st)                                # 17.1, 17.3: a work instead of the move
            continue
        if t.t_overrun[t.u_type[u]] and try_overrun(t, st, u):
            check(t, st)
            continue
        if t.t_carrier[t.u_type[u]] >= 0:
            carrier_move(t, st, u)
            check(t, st)
            continue
        if move_unit(t, st, u, st.hex[u], 0):
            if t.t_afv[t.u_type[u]] and st.hex[u] >= 0 and not st.disrupted[u] \
                    and 2 * st.mp_op[u] <= t.t_ma[t.u_type[u]]:
                assault_fire(t, st, u)
        elif may_try_hull_down(t, st, u):
            try_hull_down(t, st, u)
        check(t, st)


@njit(cache=True)
def load_step(t, st, c, h):
    """LOAD (4.3, 4.3.1): passengers board carrier c one at a time until the player stops; those in
    hex h, or (h < 0) the units of c's side due to enter with it.  Returns the cost paid
    (TR_NONE, TR_HALF, TR_ALL: loading several at once costs what the dearest costs)."""
    side = t.u_side[c]
    paid = TR_NONE
    while True:
        st.opts[0, 0] = -1
        st.opts[0, 1] = 0
        st.opts[0, 2] = 0
        st.opts[0, 3] = 0
        st.opts[0, 4] = 0
        n = 1
        here = st.hex[c] if h >= 0 else -1
        for p in range(t.n_units):
            if h < 0 and (st.hex[p] != OFF_MAP or t.u_enter_turn[p] <= 0 or t.u_enter_turn[p] > st.turn[0]):
                continue
            cost = may_load(t, st, c, p, h)
            if cost == TR_NONE or n >= st.opts.shape[0]:
                continue
            st.opts[n, 0] = p
            st.opts[n, 1] = max(cost, paid)
            st.opts[n, 2] = goal_distance(t, st, here, side) if here >= 0 else t.obj_dist[t.g_entry[t.u_group[c], 0]]
            st.opts[n, 3] = t.t_ma[t.u_type[p]]
            st.opts[n, 4] = seen_by(t, st, here, side) if here >= 0 else 0
            n += 1
        if n <= 1:
            return paid
        i = decide(LOAD, n, t, st, side)
        if i == 0:
            return paid
        p = st.opts[i, 0]
        paid = max(paid, may_load(t, st, c, p, h))
        load(t, st, c, p, paid)


@njit(cache=True)
def unload_step(t, st, c, used2, moved, loaded_now):
    """UNLOAD (4.3, 4.3.2, 4.3.9): after its move the carrier may set all its passengers down in its
    hex, if it has the MA left (half MA: used + half <= MA; all MA: it neither moved nor loaded)
    and the hex holds them; they are Spent (4.3.4) and may be opportunity-fired at, each of them
    and the carrier alone (4.3.10), by the firers that have not opportunity-fired this turn (7.8.6).
    Returns the cost paid (TR_NONE: they stayed aboard)."""
    if loaded_now or st.hex[c] < 0 or st.disrupted[c] or not has_passengers(t, st, c):
        return TR_NONE
    cost = unload_cost(t, st, c)
    ma = t.t_ma[t.u_type[c]]
    if cost == TR_ALL and moved:
        return TR_NONE
    if cost == TR_HALF and used2 + ma // 2 > ma:
        return TR_NONE
    if not room_to_unload(t, st, c):
        return TR_NONE
    side = t.u_side[c]
    h = st.hex[c]
    st.opts[0, 0] = 0
    st.opts[1, 0] = 1
    for i in range(2):
        st.opts[i, 1] = goal_distance(t, st, h, side)
        st.opts[i, 2] = seen_by(t, st, h, side)
        st.opts[i, 3] = passengers_sp(t, st, c)
    if decide(UNLOAD, 2, t, st, side) == 0:
        return TR_NONE
    out = np.empty(t.n_units, dtype=np.int64)
    k = 0
    for p in range(t.n_units):
        if st.carried_by[p] == c:
            unload(t, st, c, p, h, True)
            out[k] = p
            k += 1
    for j in range(k):                                  # 4.3.10: each may be fired at once set down
        p = out[j]
        if st.hex[p] >= 0 and not st.disrupted[p]:
            opportunity_fire(t, st, p, h, False)
    if st.hex[c] == h and not st.disrupted[c]:
        opportunity_fire(t, st, c, h, False)            # 4.3.10: and the carrier by itself
    return cost


@njit(cache=True)
def carrier_move(t, st, c):
    """A carrier's move with loading and unloading (4.3.1-4.3.3): load in its hex (half MA: then
    move on; all MA: no move), move, unload (if it did not load this Operation)."""
    ma = t.t_ma[t.u_type[c]]
    unloaded = unload_step(t, st, c, 0, False, False)    # 4.3.3: unload, then move on
    cost = unloaded if unloaded != TR_NONE else load_step(t, st, c, st.hex[c])
    spent0 = 0
    if cost == TR_HALF:
        spent0 = ma // 2
    elif cost == TR_ALL:
        spent0 = ma
    moved = False
    if spent0 < ma and st.hex[c] >= 0 and not st.disrupted[c]:
        moved = move_unit(t, st, c, st.hex[c], spent0)
    if cost != TR_NONE and st.hex[c] >= 0:
        st.spent[c] = True
        st.acted[c] = True
    used = spent0 + (st.mp_op[c] if moved else 0)
    if st.hex[c] >= 0 and cost == TR_NONE:
        unload_step(t, st, c, used, moved, False)       # 4.3.3: move, then unload
    if not moved and cost == TR_NONE and may_try_hull_down(t, st, c):
        try_hull_down(t, st, c)


@njit(cache=True)
def try_hull_down(t, st, u):
    """PB2-15.6.1: HULL_DOWN for a vehicle that stayed put; a try costs the fraction of its MA of
    `terrain.rules.hull_down` (Spent, 4.1.10), draws opportunity fire without the hull-down DRM,
    then the Efficiency Roll (13.2).  One try a turn."""
    side = t.u_side[u]
    h = st.hex[u]
    st.opts[0, 0] = 0
    st.opts[1, 0] = 1
    st.opts[0, 1] = st.opts[1, 1] = efficiency_chance(t, side)
    st.opts[0, 2] = st.opts[1, 2] = seen_by(t, st, h, side)
    if decide(HULL_DOWN, 2, t, st, side) == 0:
        return
    st.hd_turn[u] = st.turn[0]
    ma = t.t_ma[t.u_type[u]]
    st.mp_op[u] = (ma * t.hull_cost_num + t.hull_cost_den - 1) // t.hull_cost_den
    st.spent[u] = True
    st.acted[u] = True
    if opportunity_fire(t, st, u, h, False) or st.hex[u] != h or st.disrupted[u]:
        log_event(st, EV_HULL_DOWN, side, u, h, 0, 0, 0)
        return
    passed, natural = efficiency_roll(t, st, side)
    if passed:
        st.hd_hex[u] = h
    log_event(st, EV_HULL_DOWN, side, u, h, natural, 1 if passed else 0, 0)


@njit(cache=True)
def assault_fire(t, st, u):
    """PB2-7.10: the AFV fires alone, two columns left (7.10.2); it is Spent (7.10.3)."""
    side = t.u_side[u]
    enemy = 1 - side
    firers = np.empty(1, dtype=np.int64)
    firers[0] = u
    halves = np.ones(1, dtype=np.int64)
    st.opts[0, 0] = -1
    for k in range(1, 8):
        st.opts[0, k] = 0
    n = 1
    tg = np.empty(t.n_units, dtype=np.int64)
    st.spent[u] = False                                 # it may still fire (its move is not over)
    for e in range(t.n_units):
        h = st.hex[e]
        if t.u_side[e] != enemy or h < 0 or st.df_target_op[e] == st.op[0]:
            continue
        armored = armored_target(t, st, e)
        if can_fire(t, st, u, h, armored) == 0:
            continue
        if armored and st.in_fort[e]:
            dup = False                                 # 15.5.3: the fortification, one target
            for k in range(1, n):
                if st.opts[k, 0] == h and st.opts[k, 1] >= 0 and st.in_fort[st.opts[k, 1]]:
                    dup = True
            if dup:
                continue
            nt = list_targets(t, st, h, e, enemy)
            for k in range(nt):
                tg[k] = st.targets[k]
        elif armored:
            tg[0] = e
            nt = 1
        else:
            dup = False
            for k in range(1, n):
                if st.opts[k, 0] == h and st.opts[k, 1] < 0:
                    dup = True
            if dup:
                continue
            nt = list_targets(t, st, h, -1, enemy)
            for k in range(nt):
                tg[k] = st.targets[k]
        col = fire_column(t, st, firers, 1, halves, tg, nt, armored) + t.shift_assault
        if col < 0 or n >= st.opts.shape[0]:
            continue                                    # past the left edge: no effect (PB2-OQ-15)
        dis = 0
        unsp = 0
        for k in range(nt):
            if st.disrupted[tg[k]]:
                dis += 1
            if st.unspotted[tg[k]] and not spotted_now(t, st, tg[k]):
                unsp += 1
        st.opts[n, 0] = h
        st.opts[n, 1] = e if armored else -1
        st.opts[n, 2] = 1
        st.opts[n, 3] = col
        st.opts[n, 4] = attacker_drm(t, st, firers, 1, h, K_ASSAULT, -1) + \
            defender_drm(t, st, tg, nt, 2 * unsp >= nt, K_ASSAULT, False, False)
        st.opts[n, 5] = nt
        st.opts[n, 6] = dis
        st.opts[n, 7] = 0
        n += 1
    i = decide(ASSAULT_FIRE, n, t, st, side) if n > 1 else 0
    if i > 0:
        h = st.opts[i, 0]
        armored = st.opts[i, 1] >= 0
        nt = list_targets(t, st, h, st.opts[i, 1], enemy)
        col = st.opts[i, 3]
        resolve_attack(t, st, firers, 1, halves, h, st.targets[:nt].copy(), nt, armored, K_ASSAULT, False, False,
                       side, col, attacker_drm(t, st, firers, 1, h, K_ASSAULT, -1))
        st.ts[st.turn[0], side, TS_FIRE] += 1
    st.spent[u] = True


# ----------------------------------------------------------------------------- improved positions built in play (15.4.3)

@njit(cache=True)
def may_build_ip(t, st, u):
    """PB2-15.4.3, 15.4.1-15.4.2: an active non-vehicular unit that moves by itself, not Spent or
    Disrupted, that spent no MP, in a hex that allows an IP and has none, with nobody building there."""
    h = st.hex[u]
    ty = t.u_type[u]
    if h < 0 or not st.active[u] or t.t_vehicle[ty] or t.t_mode[ty] == TOWED or t.t_ma[ty] <= 0:
        return False
    if st.spent[u] or st.disrupted[u] or st.mp_op[u] > 0 or st.fired[u] or not t.ip_ok[h] or st.depr_now[h] or st.ip[h] or artificial(st, h):
        return False
    for v in range(t.n_units):
        if st.build_hex[v] == h:
            return False
    return True


@njit(cache=True)
def may_remove_ip(t, st, u):
    """PB2-15.4.3.2: an active non-vehicular unit, not Spent or Disrupted, that began the turn in
    the hex of an IP nobody occupies and spent no MP, with nobody building or removing there."""
    h = st.hex[u]
    ty = t.u_type[u]
    if h < 0 or not st.ip[h] or st.turn_hex[u] != h or not st.active[u] or t.t_vehicle[ty] or \
            t.t_mode[ty] == TOWED or t.t_ma[ty] <= 0:
        return False
    if st.spent[u] or st.disrupted[u] or st.mp_op[u] > 0 or st.fired[u]:
        return False
    for v in range(t.n_units):
        if (st.hex[v] == h and st.in_ip[v]) or st.build_hex[v] == h or st.remove_hex[v] == h:
            return False
    return True


@njit(cache=True)
def declare_ips(t, st, side):
    """PB2-15.4.3.1, at the start of the Operation (before artillery requests): BUILD_IP for each
    unit that may build; a builder spends its whole MA (Spent) and draws opportunity fire, resolved
    without the IP (15.4.5)."""
    for k in range(2):                                  # k = 1: removal, 15.4.3.2, declared alike
        for u in range(t.n_units):
            if t.u_side[u] != side or not (may_remove_ip(t, st, u) if k else may_build_ip(t, st, u)):
                continue
            h = st.hex[u]
            st.opts[0, 0] = 0
            st.opts[1, 0] = 1
            st.opts[0, 1] = st.opts[1, 1] = efficiency_chance(t, side) if (k == 0 or t.ip_removal_roll) else 36
            st.opts[0, 2] = st.opts[1, 2] = seen_by(t, st, h, side)
            st.opts[0, 3] = st.opts[1, 3] = t.obj_dist[h]
            if decide(REMOVE_IP if k else BUILD_IP, 2, t, st, side) == 0:
                continue
            if k:
                st.remove_hex[u] = h
            else:
                st.build_hex[u] = h
            st.build_steps[u] = st.steps[u]
            st.mp_op[u] = t.t_ma[t.u_type[u]]
            st.spent[u] = True
            st.acted[u] = True
            opportunity_fire(t, st, u, h, False)


@njit(cache=True)
def finish_ips(t, st, side):
    """PB2-15.4.3.1, at the end of the Operation: a builder still in its hex, neither Disrupted nor
    reduced (15.4.5), rolls; on a pass the IP appears with the builder and the non-Spent friendly
    units of the hex inside, up to its capacity (15.4.2)."""
    for u in range(t.n_units):
        h = st.build_hex[u]
        if h < 0 or t.u_side[u] != side:
            continue
        st.build_hex[u] = -1
        if st.hex[u] != h or st.disrupted[u] or st.steps[u] < st.build_steps[u] or st.ip[h] or st.depr_now[h]:
            log_event(st, EV_BUILD_IP, side, u, h, 0, 0, 0)   # (17.2.1.3: a bridge destroyed meanwhile, 15.4.1)
            continue
        passed, natural = efficiency_roll(t, st, side)
        if passed:
            st.ip[h] = True
            st.in_ip[u] = ip_room(t, st, h, u)
            for v in range(t.n_units):
                if v != u and st.hex[v] == h and not st.spent[v] and ip_room(t, st, h, v):
                    st.in_ip[v] = True
        log_event(st, EV_BUILD_IP, side, u, h, natural, 1 if passed else 0, 0)
    for u in range(t.n_units):
        h = st.remove_hex[u]
        if h < 0 or t.u_side[u] != side:
            continue
        st.remove_hex[u] = -1
        occupied = False
        for v in range(t.n_units):
            if st.hex[v] == h and st.in_ip[v]:
                occupied = True                         # 15.4.3.2: nobody in it when it goes
        if st.hex[u] != h or st.disrupted[u] or st.steps[u] < st.build_steps[u] or not st.ip[h] or occupied:
            log_event(st, EV_REMOVE_IP, side, u, h, 0, 0, 0)
            continue
        natural = 0
        passed = True
        if t.ip_removal_roll:                           # readings.ip_removal_efficiency_roll (PB2-OQ-74)
            passed, natural = efficiency_roll(t, st, side)
        if passed:
            st.ip[h] = False
        log_event(st, EV_REMOVE_IP, side, u, h, natural, 1 if passed else 0, 0)


# ----------------------------------------------------------------------------- recovery (13.1)

@njit(cache=True)
def recovery_target(t, st, u):
    """The roll at or under which u recovers, natural 2d6 (13.1): the rating, -3 for S/D (the +3
    on the roll, 13.1.2), +1 in terrain with a positive DF modifier (the -1, 13.1.3)."""
    target = t.s_efficiency[t.u_side[u]]
    if st.spent[u]:
        target -= t.rec_sd
    if tem_for(t, st, u) > 0:
        target -= t.rec_cover
    return target


@njit(cache=True)
def recover_step(t, st, side):
    for u in range(t.n_units):
        if t.u_side[u] != side or not st.active[u] or st.hex[u] < 0 or not st.disrupted[u]:
            continue
        if st.disrupted_op[u] == st.op[0]:
            continue                                    # 13.1.1
        target = recovery_target(t, st, u)
        chance = 0
        for a in range(1, 7):
            for b in range(1, 7):
                if a + b <= target and a + b < t.rec_catastrophe:
                    chance += 1
        st.opts[0, 0] = 0
        st.opts[0, 1] = chance
        st.opts[1, 0] = 1
        st.opts[1, 1] = chance
        if decide(RECOVER, 2, t, st, side) == 0:
            continue
        natural = two_dice(st.streams)
        outcome = 0
        if natural >= t.rec_catastrophe:               # 13.1.4
            h0 = st.hex[u]
            lose_step(t, st, u)
            if st.hex[u] < 0:
                place_wreck(t, st, u, h0, False)       # 15.1: a reduced unit's wreck
            if st.hex[u] >= 0:
                st.spent[u] = True
                st.disrupted[u] = True
            outcome = 2
        elif natural <= target:
            if st.spent[u]:
                st.disrupted[u] = False                # S/D -> Spent
            else:
                st.disrupted[u] = False                # Disrupted -> fresh
            outcome = 1
        else:
            st.spent[u] = True                         # failure: S/D
        st.acted[u] = True
        log_event(st, EV_RECOVER, side, u, natural, outcome, target, 0)


# ----------------------------------------------------------------------------- Operations (3.1.2)

@njit(cache=True)
def may_move(t, st, u):
    """A unit an activation lets do something without a target: it can move by itself, and is not
    an empty carrier that cannot fight (a truck or wagon with nobody to carry)."""
    ty = t.u_type[u]
    if t.t_ma[ty] <= 0 or t.t_mode[ty] == TOWED:
        return False
    return t.t_combat[ty] or t.t_carrier[ty] < 0 or has_passengers(t, st, u)


@njit(cache=True)
def chit_options(t, st, side, radius):
    """CHIT_HEX: row 0 = pass; then every hex of the play area within the radius of an
    activatable unit (a hex that activates nothing is a pass), with what it activates."""
    n = 1
    st.opts[0, 0] = -1
    for k in range(1, 8):
        st.opts[0, k] = 0
    # units that could act, and whether each has a target now; then, unit by unit along its row of
    # distances (speed only: one pass), the hexes within the radius and what they would activate
    # (kind: 0 nothing, 1 disrupted, 2 fresh, 3 fresh with a target)
    cand = st.reach
    for h in range(t.n_hexes):
        cand[h] = 0
    fresh = np.zeros(t.n_hexes, dtype=np.int64)
    dis = np.zeros(t.n_hexes, dtype=np.int64)
    tgt = np.zeros(t.n_hexes, dtype=np.int64)
    blow = np.zeros(t.n_hexes, dtype=np.int64)
    for u in range(t.n_units):
        at = ops_hex(t, st, u)                 # where the radius reaches it (exits.py: a unit waiting to return)
        if t.u_side[u] != side or at < 0 or st.spent[u]:
            continue
        has_target = False
        for e in range(t.n_units):
            if st.hex[u] < 0:
                break                          # waiting off the map to come back: no target
            if t.u_side[e] != side and st.hex[e] >= 0 and can_fire(t, st, u, st.hex[e], t.t_armored[t.u_type[e]]) > 0:
                has_target = True
                break
        kind = 0
        if st.disrupted[u]:
            kind = 1
        elif has_target:
            kind = 3
        elif may_move(t, st, u):
            kind = 2
        ready = 0
        if kind >= 2 and st.work[u] == engineers.W_DEMOLISH and st.work_stage[u] == engineers.READY:
            en, own = engineers.across(t, st, t.hex_br[st.hex[u]], st.hex[u], side, engineers.NEAR, u, True)
            ready = 1 if (en > 0 and own == 0) else 0  # 17.2.1.3: a demolition to roll, enemy across
        row = t.dist[at]
        for h in range(t.n_hexes):
            if row[h] <= radius and t.play[h]:
                cand[h] = 1
                blow[h] += ready
                if kind == 1:
                    dis[h] += 1
                elif kind >= 2:
                    fresh[h] += 1
                    if kind == 3:
                        tgt[h] += 1
    for h in range(t.n_hexes):
        if cand[h] == 0:
            continue
        st.opts[n, 0] = h
        st.opts[n, 1] = fresh[h]
        st.opts[n, 2] = dis[h]
        st.opts[n, 3] = tgt[h]
        st.opts[n, 4] = fresh[h]            # SP activated: one a fresh unit
        st.opts[n, 5] = blow[h]
        n += 1
    return n


@njit(cache=True)
def operation(t, st, side, radius):
    """An Ops chit (3.1.2.1): placed (or passed), then fire, move, recover."""
    st.op[0] += 1
    n = chit_options(t, st, side, radius)
    i = decide(CHIT_HEX, n, t, st, side)
    centre = st.opts[i, 0]
    activated = 0
    if centre >= 0:
        for u in range(t.n_units):
            st.active[u] = False
            st.acted[u] = False
            st.mp_op[u] = 0
            st.road_op[u] = False
            if t.u_side[u] == side and not st.spent[u]:
                hu = ops_hex(t, st, u)
                if hu >= 0 and t.dist[hu, centre] <= radius:
                    st.active[u] = True
                    activated += 1
    log_event(st, EV_CHIT, side, centre, radius, activated, 0, 0)
    if centre < 0:
        return
    st.ts[st.turn[0], side, TS_CHITS] += 1
    declare_ips(t, st, side)
    check(t, st)
    ar_step(t, st, side)
    check(t, st)
    demolitions(t, st, side)
    fire_step(t, st, side)
    move_step(t, st, side)
    cat_step(t, st, side)
    check(t, st)
    recover_step(t, st, side)
    finish_ips(t, st, side)
    check(t, st)
    for u in range(t.n_units):
        if st.active[u] and not t.idle_stay_fresh and st.hex[u] >= 0:
            st.spent[u] = True                          # readings.idle_units_stay_fresh = false
        st.active[u] = False
    update_control(t, st)


@njit(cache=True)
def entry_cost(t, h, mode):
    """Half MP to enter hex h from off the map (3.1.2.3): its terrain's, or the road rate where a
    road runs through it (14.3.1.1) and the terrain would not let the unit in."""
    c = t.move_cost[h, mode]
    if c == PROHIBITED:
        for d in range(6):
            if t.road_side[h, d]:
                return 1
    return c


@njit(cache=True)
def reinforcement(t, st, side):
    """A reinforcement chit (3.1.2.3): the units due enter (ENTRY_HEX), paying the entry hex's
    cost plus 1 MP for every further 6 SP that entered there before them, then move on."""
    st.op[0] += 1
    log_event(st, EV_CHIT, side, -1, 0, 0, 1, 0)
    entered_sp = np.zeros(t.n_hexes, dtype=np.int64)
    for k in range(2 * t.n_units):
        # carriers first, so that due units may enter aboard them (readings.reinforcements_enter_loaded)
        u = k if k < t.n_units else k - t.n_units
        if t.enter_loaded:
            if (k < t.n_units) != (t.t_carrier[t.u_type[u]] >= 0):
                continue
        elif k >= t.n_units:
            break                                        # each enters alone, in counter order
        if t.u_side[u] != side or st.hex[u] != OFF_MAP or t.u_enter_turn[u] == 0 or t.u_enter_turn[u] > st.turn[0]:
            continue
        g = t.u_group[u]
        n = 0
        mode = t.t_mode[t.u_type[u]]
        for j in range(t.g_entry_n[g]):
            h = t.g_entry[g, j]
            if enemy_in(t, st, h, side) or stack_sp(t, st, h, side, u) > t.stack_limit or st.block[h]:
                continue                                 # 15.3.2: a block is entered only from next to it
            if mode != TOWED and entry_cost(t, h, mode) == PROHIBITED:
                continue                                 # 14.x: not into terrain its mode may not enter
            st.opts[n, 0] = h
            st.opts[n, 1] = t.obj_dist[h]
            n += 1
        if n == 0:                                       # 3.1.2.3: a blocked entry hex -> an adjacent one
            for j in range(t.g_entry_n[g]):
                for d in range(6):
                    h = t.neighbours[t.g_entry[g, j], d]
                    if h < 0 or not t.play[h] or enemy_in(t, st, h, side) or st.block[h] or \
                            stack_sp(t, st, h, side, u) > t.stack_limit or t.move_cost[h, t.t_mode[t.u_type[u]]] < 0:
                        continue
                    dup = False
                    for k in range(n):
                        if st.opts[k, 0] == h:
                            dup = True
                    if not dup and n < st.opts.shape[0]:
                        st.opts[n, 0] = h
                        st.opts[n, 1] = t.obj_dist[h]
                        n += 1
        if n == 0:
            continue                                     # no room at all: due again later
        i = decide(ENTRY_HEX, n, t, st, side)
        h = st.opts[i, 0]
        ty = t.u_type[u]
        paid = TR_NONE
        if t.t_carrier[ty] >= 0 and t.enter_loaded:
            paid = load_step(t, st, u, -1)                # 4.3 before entering: it pays from its MA
        cost = entry_cost(t, h, LEG if t.t_mode[ty] == TOWED else t.t_mode[ty])   # a towed gun is set down there
        cost += (entered_sp[h] // t.reinf_sp_step) * t.reinf_mp_step2
        entered_sp[h] += stack_sp(t, st, h, side, u) - stack_sp(t, st, h, side, -1)
        st.hex[u] = h
        st.unspotted[u] = True
        log_event(st, EV_ENTER, side, u, h, cost, 0, 0)      # c: half MP paid to enter
        st.active[u] = True
        if st.mine_col[h] >= 0 and mine_attack(t, st, u, h):
            st.active[u] = False                         # 15.2.3: entered onto a minefield
            continue
        if opportunity_fire(t, st, u, h, False):
            st.active[u] = False
            continue
        if paid == TR_HALF:
            cost += t.t_ma[ty] // 2
        elif paid == TR_ALL:
            cost = t.t_ma[ty]
        moved = False
        if t.t_mode[ty] != TOWED and cost >= 0 and cost < t.t_ma[ty]:
            moved = move_unit(t, st, u, h, cost)
        if st.hex[u] >= 0 and t.t_carrier[ty] >= 0 and paid == TR_NONE:
            unload_step(t, st, u, cost + (st.mp_op[u] if moved else 0), True, False)
        st.spent[u] = True
        st.active[u] = False
        check(t, st)
    update_control(t, st)


@njit(cache=True)
def return_unit(t, st, u):
    """PB-SIT-5 (exits.py): an activated unit off the map after its outward leg comes back on at
    the hex it left from, or an adjacent one when that is blocked (as 3.1.2.3), or stays off
    (ENTRY_HEX, row 0; its column 1 = 99 hexes so that no objective pulls it); it pays the hex's
    entry cost (3.1.2.3), draws minefield and opportunity fire, and moves on with the rest of its MA."""
    side = t.u_side[u]
    ty = t.u_type[u]
    mode = t.t_mode[ty]
    st.opts[0, 0] = -1
    st.opts[0, 1] = 99
    n = 1
    for ring in range(2):
        for d in range(1 if ring == 0 else 6):
            h = st.trip_hex[u] if ring == 0 else t.neighbours[st.trip_hex[u], d]
            if h < 0 or not t.play[h] or enemy_in(t, st, h, side) or st.block[h] or \
                    stack_sp(t, st, h, side, u) > t.stack_limit or entry_cost(t, h, mode) == PROHIBITED:
                continue
            st.opts[n, 0] = h
            st.opts[n, 1] = t.final_dist[side, h]
            n += 1
        if n > 1:
            break
    i = decide(ENTRY_HEX, n, t, st, side)
    if i == 0:
        return
    h = st.opts[i, 0]
    cost = entry_cost(t, h, mode)
    st.hex[u] = h
    st.returned[u] = True
    st.unspotted[u] = True
    log_event(st, EV_RETURN, side, u, h, cost, 0, 0)
    if st.mine_col[h] >= 0 and mine_attack(t, st, u, h):
        pass                                            # 15.2.3: came back onto a minefield
    elif not opportunity_fire(t, st, u, h, False) and cost < t.t_ma[ty]:
        move_unit(t, st, u, h, cost)
    if st.hex[u] >= 0:
        st.spent[u] = True
    st.acted[u] = True


# ----------------------------------------------------------------------------- the turn

@njit(cache=True)
def administration(t, st, last_side):
    """PB2-3.1.3 steps 1, 2 (HE markers; smoke waits for 12), 4, 5, 6; 16.1.1 recalled aircraft leave."""
    air.administration(t, st)
    for h in range(t.n_hexes):
        st.he[h] = False                                # 2, 11.3.3: HE markers go now
    smoke_administration(t, st)                         # 2, 12.2.1: SMOKE 2 go, SMOKE 1 flip
    for u in range(t.n_units):
        if st.spent[u] and st.disrupted[u]:
            st.spent[u] = False                         # 1: S/D -> Disrupted
    resolve_requests(t, st, last_side)                  # 4: artillery requests (readings: PB2-OQ-9)
    for u in range(t.n_units):
        if st.spent[u] and not st.disrupted[u]:
            st.spent[u] = False                         # 5: Spent markers removed
        if st.hex[u] == OFF_BOARD:
            st.spent[u] = False                         # off-board batteries fire again next turn
        st.opfired[u] = False
        st.fired[u] = False
        st.fo[u] = False                                # the No Move markers go at the end of the turn
    for u in range(t.n_units):                          # 6: re-mark Unspotted (6.3)
        h = st.hex[u]
        if h < 0 or st.disrupted[u] or st.unspotted[u] or not t.remark_unspotted[t.cover[h]]:
            continue
        from_combat = False
        for e in range(t.n_units):
            eh = st.hex[e]
            if t.u_side[e] == t.u_side[u] or eh < 0 or st.disrupted[e] or not t.t_combat[t.u_type[e]]:
                continue
            if t.dist[eh, h] <= 1 or (t.dist[eh, h] <= t.spot_range[h] and sees(t, st, eh, h)):
                from_combat = True
                break
        if not from_combat:
            st.unspotted[u] = True
    log_event(st, EV_ADMIN, -1, 0, 0, 0, 0, 0)
    check(t, st)


@njit(cache=True)
def turn_stats(t, st, turn):
    for s in range(2):
        for k in range(5):
            st.ts[turn, s, k] = 0
    for u in range(t.n_units):
        s = t.u_side[u]
        if t.u_air[u]:
            continue                                     # aircraft count for nothing (16.1.1)
        if carried_hex(st, u) >= 0:                      # a passenger is on the map in its carrier
            st.ts[turn, s, TS_UNITS] += 1
            st.ts[turn, s, TS_STEPS] += st.steps[u]
            if st.disrupted[u]:
                st.ts[turn, s, TS_DISRUPTED] += 1
        if st.hex[u] != OFF_MAP or t.u_enter_turn[u] == 0:
            st.ts[turn, s, TS_LOST] += t.t_steps[t.u_type[u]] - st.steps[u]
    for h in range(t.n_hexes):
        if t.s_objective[t.stated_side, h] and st.control[h] != NOBODY:
            st.ts[turn, st.control[h], TS_HELD] += 1
    for u in range(t.n_units):
        st.snap_hex[turn, u] = carried_hex(st, u)
    st.snap_steps[turn, :] = st.steps


@njit(cache=True)
def play_turn(t, st, turn):
    st.turn[0] = turn
    engineers.pre_operations(t, st)                      # 3.1.1: engineers' works advance (17.x)
    air.pre_operations(t, st)                            # 3.1.1: aircraft whose turn has come (16.0)
    for u in range(t.n_units):
        st.turn_hex[u] = st.hex[u]                       # where each began the turn (15.4.3.2)
    pool = np.zeros(64, dtype=np.int64)
    n = 0
    for s in range(2):
        for r in range(t.s_chits.shape[2]):
            for _ in range(t.s_chits[s, turn, r]):
                if n < 64:
                    pool[n] = s * 1000 + r
                    n += 1
        if t.s_reinf[s, turn] and n < 64:
            pool[n] = s * 1000 + REINFORCEMENT
            n += 1
        for _ in range(air.air_chits(t, st, s)):
            if n < 64:
                pool[n] = s * 1000 + AIR_CHIT            # 3.1.1: Air Support chits
                n += 1
    for s in range(2):                                   # a reinforcement chit carried over: first
        if st.carry_reinf[s]:
            st.carry_reinf[s] = 0
            reinforcement(t, st, s)
    last_side = 0
    while n > 0:
        i = below(st.streams, DICE, n)
        chit = pool[i]
        pool[i] = pool[n - 1]
        n -= 1
        side = chit // 1000
        last_side = side
        radius = chit % 1000
        if n == 0 and radius == AIR_CHIT and t.last_air_executed:
            air.air_operation(t, st, side)               # readings.last_air_chit_executed (PB2-OQ-5)
            break
        if n == 0:                                       # 3.1.2: the last chit is not executed
            log_event(st, EV_UNPLAYED, side, radius, 0, 0,
                      1 if radius == REINFORCEMENT else 2 if radius == AIR_CHIT else 0, 0)
            st.ts[turn, side, TS_UNPLAYED] += 1
            if radius == REINFORCEMENT and t.reinf_carry:
                st.carry_reinf[side] = 1                 # 3.1.2.3, readings.last_reinforcement_chit
                log_event(st, EV_CARRY, side, 0, 0, 0, 0, 0)
            break
        if radius == REINFORCEMENT:
            reinforcement(t, st, side)
        elif radius == AIR_CHIT:
            air.air_operation(t, st, side)               # 3.1.2.2
            update_control(t, st)
            check(t, st)
        else:
            operation(t, st, side, radius)
    update_control(t, st)
    administration(t, st, last_side)
    update_control(t, st)
    turn_stats(t, st, turn)


@njit(cache=True)
def winner_now(t, st, turn):
    """PB2-3.2: the stated side wins if it controls enough objective hexes, else the other."""
    held = st.ts[turn, t.stated_side, TS_HELD]
    need = t.s_target[t.stated_side]
    ok = held > need if t.s_target_gt[t.stated_side] else held >= need
    return t.stated_side if ok else 1 - t.stated_side


@njit(cache=True)
def play_game(t, st):
    """The whole game; returns the winning side's index."""
    setup(t, st)
    turn_stats(t, st, 0)
    for turn in range(1, t.turns + 1):
        play_turn(t, st, turn)
    return winner_now(t, st, t.turns)
