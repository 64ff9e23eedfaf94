"""Combat (FPA 13.0-13.10): who may attack, odds and columns (13.8, 13.8.1), column shifts for
terrain, rivers, towns and FLs (13.8.3, 13.8.4), concentric attacks (13.8.2), Korpsgruppen
(13.4), Tigers (13.5), the 18th Artillery Division (13.1), Soviet artillery (13.2), supply
(8.3), combat air support (13.3), the CRT and its results (13.9), retreats chosen by the German
player for both sides, advance after combat (13.10) and probes (13.6)."""

from __future__ import annotations

import numpy as np

from simulator.jit import njit
from simulator.rulesets.first_panzer_army.consts import (
    ADVANCE,
    ANY_SUPPORT,
    ARTILLERY,
    CAS,
    CLEAR,
    EV_ADVANCE,
    EV_COMBAT,
    EV_ELIMINATED,
    EV_PROBE,
    EV_RETREAT,
    EV_RETURN_ROLL,
    EV_STEP_LOST,
    F_ARMY_SUPPORT,
    F_DIVISION,
    F_GARRISON,
    F_RIFLE,
    F_ROCKET,
    F_SUPPORT,
    F_TIGER,
    FL,
    GERMAN,
    JOIN,
    K_AD_RANGE,
    K_ART_CAP_AFTER_OOS,
    K_BLOCKED_EXTRA,
    K_BONUS_CUMULATIVE,
    K_CAS_PER_MARKER,
    K_CONC_GER,
    K_CONC_MIN_HEXES,
    K_CONC_SOV,
    K_FL_GER_SHIFT,
    K_FL_SOV_SHIFT,
    K_GARRISON_LAST,
    K_HALF_FROM_PM,
    K_KG_ATT_SHIFT,
    K_KG_DEF_SHIFT,
    K_KG_RANGE,
    K_ODDS_MODE,
    K_OOS_AF_PM,
    K_PROBE_IN_STORM,
    K_RIVER_SHIFT,
    K_ROCKET_FACTOR,
    K_SOV_OOS_ART_ATTACK,
    K_SOV_RETREAT_RESTRICTED,
    K_STAND_FAST_COL,
    K_STAND_FAST_RETREAT,
    K_STAND_FAST_TURN,
    K_STORM_CAS,
    K_TIGER_ATT,
    K_TIGER_DEF,
    K_TIGER_IN_COMBAT,
    LOSS,
    MECH,
    ODDS_CLAMP,
    ODDS_FINAL,
    PROBE_WITH,
    RETREAT,
    SEG_MECH,
    SOVIET,
    STATIC,
    STORM,
    SUPPORT,
    SUPPORT_AD,
    SUPPORT_KG,
    TOWN,
)
from simulator.rulesets.first_panzer_army.movement import stack_ok
from simulator.rulesets.first_panzer_army.players import decide, put_option
from simulator.rulesets.first_panzer_army.rng import die
from simulator.rulesets.first_panzer_army.state import (
    G_AD_SEL,
    G_AD_USED,
    G_ELIM_VP,
    G_JOINING,
    G_KG_SEL,
    G_TURN,
    G_WEATHER,
)
from simulator.rulesets.first_panzer_army.zoc import (
    enemy_in,
    ezoc,
    log,
    place,
    refresh_lines,
    zoc_active,
)

# What `evaluate` returns in its int64[12] vector.
E_COL, E_RAW, E_ATT, E_DEF, E_SHIFT, E_N_ATT, E_KG, E_AD_ATT, E_AD_DEF, E_TERRAIN, E_DIRS, E_N = range(12)


@njit(cache=True)
def attack_factor(S, T, u: int) -> int:
    return T.u_att[u, T.u_max[u] - S.u_steps[u]]


@njit(cache=True)
def defense_factor(S, T, u: int) -> int:
    return T.u_def[u, T.u_max[u] - S.u_steps[u]]


@njit(cache=True)
def combat_terrain(S, T, h: int) -> int:
    """The hex's terrain for combat: an FL the Soviets took is a town (13.8.4)."""
    t = T.terrain[h]
    if t == FL and S.fl_taken[h] == 1:
        return TOWN
    return t


@njit(cache=True)
def may_attack(S, T, u: int, seg: int) -> bool:
    """13.0, 2.7, 5.5, 8.3, 13.2: a unit on the map that has not attacked in this segment;
    garrisons never; in a mechanized segment German mechanized units only; Soviet artillery only
    stacked with a Soviet non-artillery unit, and neither it nor army support units when out of
    supply."""
    h = S.u_hex[u]
    if h < 0 or S.u_attacked[u] != 0 or T.u_class[u] == STATIC or attack_factor(S, T, u) <= 0:
        return False
    side = T.u_side[u]
    if seg == SEG_MECH and (side != GERMAN or T.u_class[u] != MECH):
        return False
    if side == SOVIET:
        oos = S.supply[h] == 0
        if T.u_class[u] == ARTILLERY:
            if oos and T.k[K_SOV_OOS_ART_ATTACK] == 0:
                return False
            partner = False
            for v in range(T.u_side.shape[0]):
                if v != u and S.u_hex[v] == h and T.u_side[v] == SOVIET and T.u_class[v] != ARTILLERY:
                    partner = True
            if not partner:
                return False
        if oos and (T.u_flags[u] & F_ARMY_SUPPORT) != 0:
            return False
    return True


@njit(cache=True)
def support_unit(S, T, side: int, target: int) -> int:
    """13.1: the 18th Artillery Division, if it can support a combat on `target` now: on the
    map, not in an EZOC nor adjacent to a Soviet unit, within 2 hexes (its own not counted),
    not yet used in this segment.  -1 if not."""
    if S.g[G_AD_USED] != 0:
        return -1
    for u in range(T.u_side.shape[0]):
        if (T.u_flags[u] & F_SUPPORT) == 0 or T.u_side[u] != GERMAN:
            continue
        h = S.u_hex[u]
        if h < 0 or h == target or T.dist[h, target] > T.k[K_AD_RANGE]:
            continue
        if ezoc(S, T, GERMAN, h):
            continue
        adjacent = False
        for d in range(6):
            nb = T.neighbours[h, d]
            if nb >= 0 and S.occ[SOVIET, nb] > 0:
                adjacent = True
        if not adjacent and S.occ[SOVIET, h] == 0:
            return u
    return -1


@njit(cache=True)
def kg_in_range(S, T, h: int, attack: bool) -> int:
    """13.4: a Korpsgruppe within 2 hexes of `h` not yet used for this kind of combat in the
    segment (one attack a German segment, one defence a Soviet segment); -1 if none."""
    for i in range(S.kg_hex.shape[0]):
        kh = S.kg_hex[i]
        if kh < 0 or T.dist[kh, h] > T.k[K_KG_RANGE]:
            continue
        if attack and S.kg_att[i] == 0:
            return i
        if not attack and S.kg_def[i] == 0:
            return i
    return -1


@njit(cache=True)
def kg_usable(S, T, i: int, h: int, attack: bool) -> bool:
    kh = S.kg_hex[i]
    if kh < 0 or T.dist[kh, h] > T.k[K_KG_RANGE]:
        return False
    return (S.kg_att[i] if attack else S.kg_def[i]) == 0


@njit(cache=True)
def selected_kg(S, T, h: int, attack: bool) -> int:
    """The KG that serves this combat: the German player's choice during a combat (S.g[G_KG_SEL],
    -1 none), any available one in the previews (ANY_SUPPORT)."""
    sel = S.g[G_KG_SEL]
    if sel == ANY_SUPPORT:
        return kg_in_range(S, T, h, attack)
    if sel >= 0 and kg_usable(S, T, sel, h, attack):
        return sel
    return -1


@njit(cache=True)
def selected_ad(S, T, target: int) -> int:
    """The 18th AD if it supports this combat: the German player's choice during a combat
    (S.g[G_AD_SEL], -1 not), whenever it can in the previews (ANY_SUPPORT)."""
    sel = S.g[G_AD_SEL]
    if sel == -1:
        return -1
    u = support_unit(S, T, GERMAN, target)
    if sel == ANY_SUPPORT or sel == u:
        return u
    return -1


@njit(cache=True)
def column(T, att: int, dfn: int, shift: int) -> tuple:
    """13.8, 13.8.1: the raw column of att:dfn (0 = below 1:2, 1 = 1:2, 2 = 1:1 ... 8 = 7:1,
    9 = above 7:1) and the final one after `shift` by readings.odds_beyond_table (OQ-FPA-2)."""
    if dfn <= 0:
        raw = 9
    elif att * 1000 < dfn * T.k[K_HALF_FROM_PM]:
        raw = 0
    elif att < dfn:
        raw = 1
    else:
        ratio = att // dfn
        raw = 9 if ratio > 7 else ratio + 1
    mode = T.k[K_ODDS_MODE]
    if mode == ODDS_FINAL:
        col = raw + shift
    elif mode == ODDS_CLAMP:
        if (raw == 0 and shift <= 0) or (raw == 9 and shift >= 0):
            col = raw
        else:
            col = min(max(raw + shift, 1), 8)
    else:  # raw_automatic
        col = raw if (raw == 0 or raw == 9) else min(max(raw + shift, 1), 8)
    return raw, min(max(col, 0), 9)


@njit(cache=True)
def concentric(dirs: int, min_hexes: int) -> bool:
    """13.8.2: through two opposite hexsides; or from three hexes with an uninvolved hex between
    each; or from more than three hexes.  `dirs`: bit d = an attacker in direction d."""
    count = 0
    for d in range(6):
        if dirs & (1 << d):
            count += 1
            if dirs & (1 << ((d + 3) % 6)):
                return True
    if count >= min_hexes:
        return True
    return dirs == 0b010101 or dirs == 0b101010


@njit(cache=True)
def gather(S, T, side: int, target: int, seg: int, out: np.ndarray) -> int:
    """The attackers of a combat on `target`: the units of `side` adjacent to it that may attack
    in this segment; while a combat's attackers are being chosen (13.0: "units in the same hex
    need not all take part"), only those that joined it (S.u_join)."""
    n = 0
    joining = S.g[G_JOINING] == 1
    for u in range(T.u_side.shape[0]):
        if T.u_side[u] != side or (joining and S.u_join[u] == 0):
            continue
        h = S.u_hex[u]
        if h < 0 or T.dist[h, target] != 1:
            continue
        if may_attack(S, T, u, seg):
            out[n] = u
            n += 1
    return n


@njit(cache=True)
def evaluate(S, T, side: int, target: int, seg: int, cas_att: int, cas_def: int, ev: np.ndarray) -> None:
    """Odds and shifts of `side`'s attack on `target` with CAS markers committed, into `ev`.
    Uses no dice and changes nothing: the engine offers its columns to the players."""
    att_units = S.buf[0]
    n_att = gather(S, T, side, target, seg, att_units)
    enemy = 1 - side
    terr = combat_terrain(S, T, target)
    nonart = 0
    art = 0
    dirs = 0
    across = 0
    tiger = False
    for i in range(n_att):
        u = att_units[i]
        af = attack_factor(S, T, u)
        h = S.u_hex[u]
        if side == SOVIET and S.supply[h] == 0 and T.u_class[u] != ARTILLERY:
            af = (af * T.k[K_OOS_AF_PM] + 999) // 1000      # 8.3: halved, rounded up
        if (T.u_flags[u] & F_ROCKET) != 0 and terr == CLEAR:
            af *= T.k[K_ROCKET_FACTOR]                       # 13.2: 3GM against clear hexes
        if side == SOVIET and T.u_class[u] == ARTILLERY:
            art += af
        else:
            nonart += af
        for d in range(6):
            if T.neighbours[target, d] == h:
                if (dirs & (1 << d)) == 0:
                    dirs |= 1 << d
                    if T.river[target, d] == 0:
                        across += 1000     # an attacking hex not across a river
        if (T.u_flags[u] & F_TIGER) != 0:
            for v in range(T.u_side.shape[0]):
                if S.u_hex[v] == h and (T.u_flags[v] & F_DIVISION) != 0 and T.u_side[v] == GERMAN:
                    if T.k[K_TIGER_IN_COMBAT] == 0 or S.u_attacked[v] == 0 and may_attack(S, T, v, seg):
                        tiger = True
    if side == SOVIET:
        cap = nonart
        if T.k[K_ART_CAP_AFTER_OOS] == 0:
            cap = 0
            for i in range(n_att):
                u = att_units[i]
                if T.u_class[u] != ARTILLERY:
                    cap += attack_factor(S, T, u)
        if art > cap:
            art = cap                                        # 13.2: no more artillery CF than non-artillery
    att = nonart + art + cas_att * T.k[K_CAS_PER_MARKER]
    ad_att = -1
    if side == GERMAN and n_att > 0:
        ad_att = selected_ad(S, T, target)
        if ad_att >= 0:
            att += attack_factor(S, T, ad_att)              # 13.1
    dfn = cas_def * T.k[K_CAS_PER_MARKER]
    def_tiger = False
    def_division = False
    for v in range(T.u_side.shape[0]):
        if S.u_hex[v] == target:
            dfn += defense_factor(S, T, v)
            if (T.u_flags[v] & F_TIGER) != 0:
                def_tiger = True
            if (T.u_flags[v] & F_DIVISION) != 0:
                def_division = True
    ad_def = -1
    if side == SOVIET:
        ad_def = selected_ad(S, T, target)
        if ad_def >= 0:
            dfn += attack_factor(S, T, ad_def)              # 13.1: its current AF in defence
    # shifts (13.8.2-13.8.4, 13.4, 13.5), each side's bonuses added up (OQ-FPA-27)
    def_shift = 0
    if terr == FL:
        def_shift = T.k[K_FL_GER_SHIFT] if enemy == GERMAN else T.k[K_FL_SOV_SHIFT]
    else:
        def_shift = T.tshift[terr]
    river = 0
    if n_att > 0 and across == 0:
        river = T.k[K_RIVER_SHIFT]                           # every attacker across a river
    att_bonus = 0
    kg = -1
    conc = 0
    if T.no_conc[terr] == 0 and concentric(dirs, T.k[K_CONC_MIN_HEXES]):
        conc = T.k[K_CONC_GER] if side == GERMAN else T.k[K_CONC_SOV]
    kg_shift = 0
    tiger_shift = 0
    if side == GERMAN:
        kg = selected_kg(S, T, target, True)
        if kg >= 0:
            kg_shift = T.k[K_KG_ATT_SHIFT]
        if tiger:
            tiger_shift = T.k[K_TIGER_ATT]
    else:
        kg = selected_kg(S, T, target, False)
        if kg >= 0:
            kg_shift = -T.k[K_KG_DEF_SHIFT]
        if def_tiger and def_division:
            tiger_shift = -T.k[K_TIGER_DEF]
    if T.k[K_BONUS_CUMULATIVE] == 1:
        att_bonus = conc + kg_shift + tiger_shift + def_shift + river
    else:
        # Only the strongest shift for each side counts.
        best_att = 0
        best_def = 0
        for s in (conc, kg_shift, tiger_shift, def_shift, river):
            if s > best_att:
                best_att = s
            if s < best_def:
                best_def = s
        att_bonus = best_att + best_def
    raw, col = column(T, att, dfn, att_bonus)
    ev[E_COL] = col
    ev[E_RAW] = raw
    ev[E_ATT] = att
    ev[E_DEF] = dfn
    ev[E_SHIFT] = att_bonus
    ev[E_N_ATT] = n_att
    ev[E_KG] = kg
    ev[E_AD_ATT] = ad_att
    ev[E_AD_DEF] = ad_def
    ev[E_TERRAIN] = terr
    ev[E_DIRS] = dirs


@njit(cache=True)
def cas_usable(S, T) -> bool:
    return not (S.g[G_WEATHER] == STORM and T.k[K_STORM_CAS] == 0)


@njit(cache=True)
def eliminate_step(S, T, u: int) -> None:
    """One step lost (2.6); the last one eliminates the unit.  4.2: a German division
    eliminated out of C&C scores its maximum steps; 11.1: an eliminated Soviet rifle corps
    comes back reduced ceil(d6 / 2) turns later."""
    h = S.u_hex[u]
    S.u_steps[u] -= 1
    log(S, EV_STEP_LOST, T.u_side[u], u, h, S.u_steps[u], 0, 0)
    if S.u_steps[u] > 0:
        return
    ooc = T.u_side[u] == GERMAN and S.cc[h] == 0
    place(S, T, u, -2)
    vp = 0
    if ooc and T.u_vp[u] > 0:
        vp = T.u_vp[u]
        S.g[G_ELIM_VP] += vp
    log(S, EV_ELIMINATED, T.u_side[u], u, h, vp, 1 if ooc else 0, 0)
    if T.u_side[u] == SOVIET and (T.u_flags[u] & F_RIFLE) != 0:
        delay = (die(S.rng) + 1) // 2
        S.u_return[u] = S.g[G_TURN] + delay
        log(S, EV_RETURN_ROLL, SOVIET, u, h, S.u_return[u], delay, 0)


@njit(cache=True)
def take_loss(S, T, owner: int, units: np.ndarray, n: int) -> None:
    """The owner picks the unit that loses a step among `units` (13.9 AL1, DL1, EX); German
    mobile units before a garrison in the same hex."""
    k = 0
    for pass_ in range(2):
        for i in range(n):
            u = units[i]
            if S.u_hex[u] < 0 or S.u_steps[u] <= 0:
                continue
            garrison = (T.u_flags[u] & F_GARRISON) != 0
            if pass_ == 0 and garrison and T.k[K_GARRISON_LAST] == 1:
                continue
            k = put_option(S.opts, k, u, S.u_steps[u], attack_factor(S, T, u) + defense_factor(S, T, u),
                           T.u_flags[u])
        if k > 0:
            break
    if k == 0:
        return
    i = decide(S, T, LOSS, k, owner)
    eliminate_step(S, T, S.opts[i, 0])


@njit(cache=True)
def retreat_ok(S, T, u: int, h: int) -> bool:
    """13.9: one hex, not into an enemy unit, not overstacked, not where it could not move
    (12.5 for Soviets, readings.soviet_retreat_into_restricted; the stand-fast order only if
    readings.stand_fast_binds_retreat); EZOC does not block (7.3)."""
    side = T.u_side[u]
    if enemy_in(S, side, h):
        return False
    if side == SOVIET and T.restricted[h] == 1 and T.k[K_SOV_RETREAT_RESTRICTED] == 0:
        return False
    if side == GERMAN and T.k[K_STAND_FAST_RETREAT] == 1 and S.g[G_TURN] == T.k[K_STAND_FAST_TURN] \
            and S.u_start[u] >= 0 and T.fpa_col[S.u_start[u]] >= T.k[K_STAND_FAST_COL] \
            and T.fpa_col[h] < T.k[K_STAND_FAST_COL]:
        return False
    return stack_ok(S, T, u, h)


@njit(cache=True)
def retreat(S, T, u: int) -> None:
    """13.9 DR: the German player chooses where every retreating unit goes, whichever side it
    is on; a unit that cannot retreat (a garrison, or nowhere to go) stays and loses a step."""
    h = S.u_hex[u]
    k = 0
    if T.u_class[u] != STATIC:
        for d in range(6):
            nb = T.neighbours[h, d]
            if nb >= 0 and retreat_ok(S, T, u, nb):
                k = put_option(S.opts, k, nb, u, 1 if ezoc(S, T, T.u_side[u], nb) else 0, T.u_side[u])
    if k == 0:
        for _ in range(T.k[K_BLOCKED_EXTRA]):
            if S.u_hex[u] >= 0:
                eliminate_step(S, T, u)
        return
    i = decide(S, T, RETREAT, k, GERMAN)
    to = S.opts[i, 0]
    place(S, T, u, to)
    log(S, EV_RETREAT, T.u_side[u], u, to, h, 0, 0)


@njit(cache=True)
def choose_cas(S, T, side: int, target: int, seg: int, cas_att: int, attacking: bool) -> int:
    """13.3: markers committed to one combat before the roll (Soviet on attack only, German on
    attack and defence); options carry the column each number of markers gives."""
    held = S.cas[side]
    if held <= 0 or not cas_usable(S, T):
        return 0
    ev = np.zeros(E_N, dtype=np.int64)
    for m in range(held + 1):
        if attacking:
            evaluate(S, T, side, target, seg, m, 0, ev)
        else:
            evaluate(S, T, 1 - side, target, seg, cas_att, m, ev)
        put_option(S.opts, m, m, ev[E_COL], held, 1 if attacking else 0)
    i = decide(S, T, CAS, held + 1, side)
    m = S.opts[i, 0]
    S.cas[side] -= m
    return m


@njit(cache=True)
def choose_attackers(S, T, side: int, target: int, seg: int, out: np.ndarray) -> int:
    """13.0: the attacker picks, one at a time, the units adjacent to `target` that join the
    combat (at least one; "units in the same hex need not all take part").  Rows: unit, the
    column with it, the columns it adds, the other enemy hexes it could attack instead; the last
    row (-1) ends the choice once a unit has joined.  Leaves S.g[G_JOINING] set: the combat's
    attackers are the joined units until `attack` clears it.  Returns their number, in `out`."""
    cand = S.buf[3]
    S.g[G_JOINING] = 0
    nc = gather(S, T, side, target, seg, cand)
    for i in range(nc):
        S.u_join[cand[i]] = 0
    S.g[G_JOINING] = 1
    ev = np.zeros(E_N, dtype=np.int64)
    joined = 0
    now = 0
    while joined < nc:
        k = 0
        for i in range(nc):
            u = cand[i]
            if S.u_join[u] == 1:
                continue
            S.u_join[u] = 1
            evaluate(S, T, side, target, seg, 0, 0, ev)
            S.u_join[u] = 0
            others = 0
            h = S.u_hex[u]
            for d in range(6):
                x = T.neighbours[h, d]
                if x >= 0 and x != target and S.occ[1 - side, x] > 0:
                    others += 1
            k = put_option(S.opts, k, u, ev[E_COL], ev[E_COL] - now, others)
        if joined > 0:
            k = put_option(S.opts, k, -1, now, 0, 0)
        i = decide(S, T, JOIN, k, side)
        u = S.opts[i, 0]
        if u < 0:
            break
        S.u_join[u] = 1
        now = S.opts[i, 1]
        joined += 1
    return gather(S, T, side, target, seg, out)


@njit(cache=True)
def choose_support(S, T, side: int, target: int, seg: int) -> None:
    """13.4 and 13.1, decided by the German player for each combat (one KG and one use of the
    18th AD a segment, so each is a choice): which KG in range serves it, or none; whether the
    18th AD supports it.  Rows: the KG index or the AD's unit (-1 none), the column it gives,
    SUPPORT_KG or SUPPORT_AD, 1 if the German attacks."""
    ev = np.zeros(E_N, dtype=np.int64)
    attacking = 1 if side == GERMAN else 0
    S.g[G_KG_SEL] = -1
    S.g[G_AD_SEL] = -1
    k = 0
    for i in range(S.kg_hex.shape[0]):
        if kg_usable(S, T, i, target, side == GERMAN):
            S.g[G_KG_SEL] = i
            evaluate(S, T, side, target, seg, 0, 0, ev)
            k = put_option(S.opts, k, i, ev[E_COL], SUPPORT_KG, attacking)
    if k > 0:
        S.g[G_KG_SEL] = -1
        evaluate(S, T, side, target, seg, 0, 0, ev)
        put_option(S.opts, k, -1, ev[E_COL], SUPPORT_KG, attacking)
        i = decide(S, T, SUPPORT, k + 1, GERMAN)
        S.g[G_KG_SEL] = S.opts[i, 0]
    if S.g[G_AD_USED] != 0:
        return
    ad = support_unit(S, T, GERMAN, target)
    if ad < 0:
        return
    S.g[G_AD_SEL] = ad
    evaluate(S, T, side, target, seg, 0, 0, ev)
    put_option(S.opts, 0, ad, ev[E_COL], SUPPORT_AD, attacking)
    S.g[G_AD_SEL] = -1
    evaluate(S, T, side, target, seg, 0, 0, ev)
    put_option(S.opts, 1, -1, ev[E_COL], SUPPORT_AD, attacking)
    i = decide(S, T, SUPPORT, 2, GERMAN)
    S.g[G_AD_SEL] = S.opts[i, 0]


@njit(cache=True)
def attack(S, T, side: int, target: int, seg: int) -> int:
    """One combat of `side` on the enemy stack in `target`; returns the CRT result code."""
    refresh_lines(S, T)      # 8.1: Soviet supply for combat at the start of each attack
    enemy = 1 - side
    # 13.2: Soviet artillery attacked with no non-artillery unit in its hex is eliminated.
    if side == GERMAN:
        partner = False
        for v in range(T.u_side.shape[0]):
            if S.u_hex[v] == target and T.u_class[v] != ARTILLERY:
                partner = True
        if not partner:
            for v in range(T.u_side.shape[0]):
                if S.u_hex[v] == target:
                    while S.u_hex[v] >= 0:
                        eliminate_step(S, T, v)
    ev = np.zeros(E_N, dtype=np.int64)
    att_units = S.buf[1]
    n_att = choose_attackers(S, T, side, target, seg, att_units)
    cas_att = 0
    cas_def = 0
    if S.occ[enemy, target] > 0:
        choose_support(S, T, side, target, seg)
        cas_att = choose_cas(S, T, side, target, seg, 0, True)
        if side == SOVIET:
            cas_def = choose_cas(S, T, GERMAN, target, seg, cas_att, False)
    evaluate(S, T, side, target, seg, cas_att, cas_def, ev)
    for i in range(n_att):
        S.u_attacked[att_units[i]] = 1
        S.u_join[att_units[i]] = 0
    S.g[G_JOINING] = 0
    S.g[G_KG_SEL] = ANY_SUPPORT
    S.g[G_AD_SEL] = ANY_SUPPORT
    if ev[E_KG] >= 0:
        if side == GERMAN:
            S.kg_att[ev[E_KG]] = 1
        else:
            S.kg_def[ev[E_KG]] = 1
    if ev[E_AD_ATT] >= 0 or ev[E_AD_DEF] >= 0:
        S.g[G_AD_USED] = 1
    result = -1
    roll = 0
    if S.occ[enemy, target] > 0:
        roll = die(S.rng)
        result = T.crt[roll - 1, ev[E_COL]]
    log(S, EV_COMBAT, side, n_att, target, ev[E_COL], result, roll * 1000000 + ev[E_ATT] * 1000 + ev[E_DEF])
    if result < 0:
        vacated = True
    else:
        for _ in range(T.res_att[result]):
            take_loss(S, T, side, att_units, n_att)
        defenders = S.buf[2]
        nd = 0
        for v in range(T.u_side.shape[0]):
            if S.u_hex[v] == target:
                defenders[nd] = v
                nd += 1
        for _ in range(T.res_def[result]):
            take_loss(S, T, enemy, defenders, nd)
        if T.res_ret[result] > 0 and T.ign_ret[ev[E_TERRAIN]] == 0:
            for i in range(nd):
                v = defenders[i]
                if S.u_hex[v] == target:
                    retreat(S, T, v)
        vacated = S.occ[enemy, target] == 0 and T.res_def[result] + T.res_ret[result] > 0
    if vacated:
        advance(S, T, side, target, att_units, n_att)
    return result


@njit(cache=True)
def advance(S, T, side: int, target: int, units: np.ndarray, n: int) -> None:
    """13.10: the victor may move attackers into the vacated hex, one at a time, before the next
    combat; EZOC do not matter (7.3); not past stacking, not against the stand-fast order."""
    while True:
        k = 0
        for i in range(n):
            u = units[i]
            h = S.u_hex[u]
            if h < 0 or h == target or T.u_class[u] == STATIC:
                continue
            if (T.u_flags[u] & F_SUPPORT) != 0 and T.dist[h, target] != 1:
                continue
            if not stack_ok(S, T, u, target):
                continue
            if side == GERMAN and S.g[G_TURN] == T.k[K_STAND_FAST_TURN] and S.u_start[u] >= 0 \
                    and T.fpa_col[S.u_start[u]] >= T.k[K_STAND_FAST_COL] and T.fpa_col[target] < T.k[K_STAND_FAST_COL]:
                continue
            k = put_option(S.opts, k, u, target, h, attack_factor(S, T, u) + defense_factor(S, T, u))
        if k == 0:
            return
        put_option(S.opts, k, -1, target, -1, 0)
        i = decide(S, T, ADVANCE, k + 1, side)
        u = S.opts[i, 0]
        if u < 0:
            return
        frm = S.u_hex[u]
        place(S, T, u, target)
        log(S, EV_ADVANCE, side, u, target, frm, 0, 0)


@njit(cache=True)
def probe_ok(S, T, target: int) -> bool:
    """13.6: a hex with no Soviet unit but in a Soviet ZOC (none in storm, OQ-FPA-11); not one
    the Germans already hold (entering it would be a move in the combat phase, not an attack)."""
    if S.occ[SOVIET, target] > 0 or S.occ[GERMAN, target] > 0 or S.zoc[SOVIET, target] == 0:
        return False
    if not zoc_active(S, T) and T.k[K_PROBE_IN_STORM] == 0:
        return False
    return True


@njit(cache=True)
def stand_fast_blocks(S, T, u: int, h: int) -> bool:
    """3.2(6): on turn 1 a German unit set up in or east of column 23 may not go west of it."""
    return T.u_side[u] == GERMAN and S.g[G_TURN] == T.k[K_STAND_FAST_TURN] and S.u_start[u] >= 0 \
        and T.fpa_col[S.u_start[u]] >= T.k[K_STAND_FAST_COL] and T.fpa_col[h] < T.k[K_STAND_FAST_COL]


@njit(cache=True)
def probe(S, T, u: int, target: int, seg: int) -> None:
    """13.6: "the probing German unit or stack" advances into the empty hex; that is the
    attack of each unit that goes.  The German player then chooses, one at a time, which other
    units of the stack that may still attack in this segment go with it (PROBE_WITH rows: unit,
    hex probed, hex left, its AF + DF; the last row, -1, ends the choice)."""
    frm = S.u_hex[u]
    S.u_attacked[u] = 1
    place(S, T, u, target)
    log(S, EV_PROBE, GERMAN, u, target, frm, 0, 0)
    while True:
        k = 0
        for v in range(T.u_side.shape[0]):
            if S.u_hex[v] != frm or T.u_side[v] != GERMAN or not may_attack(S, T, v, seg):
                continue
            if stand_fast_blocks(S, T, v, target) or not stack_ok(S, T, v, target):
                continue
            k = put_option(S.opts, k, v, target, frm, attack_factor(S, T, v) + defense_factor(S, T, v))
        if k == 0:
            return
        put_option(S.opts, k, -1, target, frm, 0)
        i = decide(S, T, PROBE_WITH, k + 1, GERMAN)
        v = S.opts[i, 0]
        if v < 0:
            return
        S.u_attacked[v] = 1
        place(S, T, v, target)
        log(S, EV_PROBE, GERMAN, v, target, frm, 0, 0)
