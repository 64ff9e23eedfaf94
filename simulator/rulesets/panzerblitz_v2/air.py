"""Air support and anti-aircraft fire (PB2-16, 3.1.2.2).

Aircraft are counters of the situation's air groups (`air = { turn, chits }`, units-air.toml) but no
units on the map (16.1): `hex[u]` is AIR_WAIT until their group's turn, then AIRBORNE, GONE when
destroyed, recalled or spent as bombers; the hex their marker is over is `air_hex[u]` (-1: not
placed yet).  So nothing on the ground sees, blocks, stacks with, controls through or fires at them
except AA fire.
- 3.1.1, 3.1.2.2: each turn an air group with an aircraft in play puts its Air Support chits in the
  pool; drawn (not last, readings.last_air_chit_executed PB2-OQ-5), its owner places each of its
  aircraft that is not Spent: AIR_STRIKE, a target and the hex it attacks from, or no attack (it
  stays where it is).  The target is declared on placing (16.3.5).  Reading PB2-OQ-78
  (`aircraft_attack_from = "adjacent"`): an aircraft attacks from a hex next to its target (range 1;
  a dive bomber also from the target hex, range 0 with its -2, 16.1.7, 16.3.2), so no hex lies
  between them and 16.1.8's LoS holds; the player picks which of the adjacent hexes (the flak that
  can reach it differs).
- 16.4: then the other side's AA units, each not Spent, may engage one attacking aircraft within half
  their range (16.4.3.1, rounded down PB2-OQ-55) that they see (16.1.8: the aircraft two levels above
  the highest level of the play area, `air_sees`), AA_FIRE; 2d6 + the range modifier only (16.4.3.2;
  and +2 from a smoke hex, modifiers.toml's scope) on the AA table (aa.toml) in the column of the
  unit's AA equivalency; natural 2 / 12 as on the DFT.  X destroys the aircraft (no attack), DD puts
  +3 on its attack and recalls it afterwards, D# adds #.  Several results on one aircraft add their
  penalties (PB2-OQ-75 `aa_results_add`).  The AA unit is Spent (16.4.4).
- 16.1.3, 16.3: the attacks, in the order placed.  Direct fire (7.0) for a fighter (F, an FB on its F
  side, no range modifiers 16.1.7) and an FB with rockets on its first attack (16.3.4 SN, range
  modifiers as the DF it is); a bomb attack for B, BD and an FB's first attack: every unit of the hex
  attacked separately as IF (11.3.2, 16.3.1: IF terrain modifiers) with the range modifier.  Kind
  `air` for modifiers.toml's scopes: no height advantage (16.1.6).  16.1.9: units in the open
  (not in air.rules.hidden_in terrain, not in a fortification) are spotted by the aircraft; reading
  PB2-OQ-76 `aircraft_spotting_marks = true`: their Unspotted marker goes (6.0, spotted by all).
- After its attack an aircraft is Spent (16.1.3); a B or BD is removed (16.3.1, 16.3.2); an FB flips
  to its F side (the counter's reduced face, 16.3.4); an F (or an FB's first attack) rolling 10 or
  more is recalled (16.3.3, 16.3.4; readings.fighter_recall_roll PB2-OQ-66: the natural roll).
  Recalled aircraft leave in the next administration (16.1.1), Spent markers come off there (16.1.5).
- 16.1.4: an aircraft in play, placed and not Spent, may opportunity-fire at an enemy unit entering a
  hex within its printed range that it sees (OPP_FIRE, one firer); then it is Spent for the turn.
  Firing as DF at an AFV it may take one of the AFV's riders apart instead (4.3.7.1, 10.1.2; round 9),
  as a DF strike of an air operation may (16.1.3, an AIR_STRIKE row whose target unit is the rider).  AA
  fires in the enemy's air operation (16.4), so not before an opportunity attack (PB2-OQ-77
  `aa_vs_opportunity_fire = false`; true: the AA of the moving side may engage it first).
- 16.2 (round 8): an observation aircraft (`air = "O"`, units-air.toml: a reconstructed Auster AOP)
  makes no attack.  In its side's air operation it is placed or moved (AIR_OBSERVE: over an enemy-held
  hex, or where it is), not Spent for it (16.1); the other side's AA may engage it as a spotting
  aircraft (16.4.2: X destroys it, DD recalls it).  Over the map it spots enemy units within 30 hexes
  of its marker, 5 into town, city, woods, orchard or swamp (air.toml [air.observation];
  `smoke.obs_sees`, read by combat.spotted_now) and is an FO for its side's artillery requests
  (artillery.observer_for; one AR a turn, 11.2.5; the scatter roll +1, scatter.toml).
"""

from __future__ import annotations

import numpy as np

from simulator.jit import njit
from simulator.rulesets.panzerblitz_v2.artillery import if_attack_unit, if_column, if_drm
from simulator.rulesets.panzerblitz_v2.combat import (
    armored_target,
    defender_drm,
    expected_steps,
    fire_column,
    log_event,
    range_drm,
    resolve_attack,
    rider,
    update_spotting,
)
from simulator.rulesets.panzerblitz_v2.decide import decide
from simulator.rulesets.panzerblitz_v2.players import AA_FIRE, AIR_OBSERVE, AIR_STRIKE, OPP_FIRE
from simulator.rulesets.panzerblitz_v2.rng import two_dice
from simulator.rulesets.panzerblitz_v2.smoke import air_sees, obs_sees
from simulator.rulesets.panzerblitz_v2.state import (
    AIR_WAIT,
    AIRBORNE,
    CARRIED,
    EV_AA,
    EV_AIR,
    EV_AIR_FIRE,
    EV_AIR_OPP,
    EV_AIR_OUT,
    EV_CHIT,
    EV_OBSERVE,
    EV_SPOTTED,
    GONE,
    TS_FIRE,
)
from simulator.rulesets.panzerblitz_v2.tables import (
    AA_DD,
    AA_NONE,
    AA_X,
    AIR_B,
    AIR_BD,
    AIR_F,
    AIR_FB,
    AIR_O,
    K_AA,
    K_AIR,
    M_SMOKE_FROM,
)

OUT_DESTROYED, OUT_RECALLED, OUT_BOMBED = 0, 1, 2


# ----------------------------------------------------------------------------- what an aircraft is now

@njit(cache=True)
def bomb_attack(t, st, a):
    """16.3.1, 16.3.2, 16.3.4: does aircraft a attack as a bomber now (every unit of the hex, as IF)?"""
    k = t.t_air[t.u_type[a]]
    if k == AIR_B or k == AIR_BD:
        return True
    return k == AIR_FB and st.steps[a] == 2 and not t.t_rockets[t.u_type[a]]


@njit(cache=True)
def fighter_mode(t, st, a):
    """16.1.7: an F, or an FB flipped to its F side (no range modifiers)."""
    k = t.t_air[t.u_type[a]]
    return k == AIR_F or (k == AIR_FB and st.steps[a] == 1)


@njit(cache=True)
def in_play(t, st, a):
    return t.u_air[a] and st.hex[a] == AIRBORNE


@njit(cache=True)
def air_spots(t, st, u):
    """16.1.9: an aircraft in range spots unit u unless it is in a hiding terrain or a fortification
    (a rider, 4.3.7.1: where its AFV is)."""
    h = st.hex[u] if st.hex[u] != CARRIED else st.hex[st.carried_by[u]]
    return not t.air_hidden[t.cover[h]] and not st.in_fort[u]


@njit(cache=True)
def aa_range(t, f):
    """16.4.3.1: half the printed range (PB2-OQ-55: rounded down)."""
    return t.t_range[t.u_type[f]] * t.aa_range_num // t.aa_range_den


@njit(cache=True)
def aa_result(t, col, natural, drm):
    """16.4.5: the AA table (aa.toml) in column col (the AA equivalency); natural 2 / 12 as on the DFT."""
    if natural >= t.aa_miss:
        return AA_NONE
    row = natural + drm
    if natural <= t.aa_best:
        return AA_X
    for r in range(4):
        if row <= t.aa_thr[col, r]:
            return r
    return AA_NONE


@njit(cache=True)
def aa_chances(t, col, drm, out2):
    """For players: the chance in 36ths of X, and of X or DD."""
    x = 0
    xdd = 0
    for a in range(1, 7):
        for b in range(1, 7):
            r = aa_result(t, col, a + b, drm)
            if r == AA_X:
                x += 1
            if r == AA_X or r == AA_DD:
                xdd += 1
    out2[0] = x
    out2[1] = xdd


@njit(cache=True)
def flak_at(t, st, side, h):
    """Enemy AA units (of `side`'s enemy) able to engage an aircraft over hex h now (16.4.2, 16.4.3.1)."""
    k = 0
    for f in range(t.n_units):
        if t.u_side[f] == side or t.t_aa[t.u_type[f]] == 0 or st.hex[f] < 0 or st.spent[f] or st.disrupted[f]:
            continue
        if t.dist[st.hex[f], h] <= aa_range(t, f) and air_sees(t, st, h, st.hex[f]):
            k += 1
    return k


# ----------------------------------------------------------------------------- the attack

@njit(cache=True)
def df_targets(t, st, a, h, target_unit, out):
    """7.3: the targets of aircraft a's direct fire at hex h: one unit (an armored one; in opportunity
    fire the mover), or every non-armored enemy unit of the hex; a bomb attack: every enemy unit of
    the hex (16.3.1)."""
    if target_unit >= 0:
        out[0] = target_unit
        return 1
    bomb = bomb_attack(t, st, a)
    n = 0
    for u in range(t.n_units):
        if st.hex[u] == h and t.u_side[u] != t.u_side[a] and (bomb or not armored_target(t, st, u)):
            out[n] = u
            n += 1
    return n


@njit(cache=True)
def strike_drm(t, st, a, d):
    """The attacker's modifiers of aircraft a striking at range d: the range modifier except in
    fighter mode (16.1.7), no height modifier (16.1.6), and its AA penalty (16.4.5)."""
    drm = st.air_pen[a]
    if not fighter_mode(t, st, a):
        drm += range_drm(t, d)
    return drm


@njit(cache=True)
def unspotted_for_air(t, st, u):
    """Is u unspotted for an aircraft's attack (16.1.9 over its marker; else as 6.1.2 judges it)?"""
    return st.unspotted[u] and not air_spots(t, st, u)


@njit(cache=True)
def row_value(t, st, a, h, target_unit, d, targets, out):
    """(column, DRM, disrupted targets, expected step losses x 100) of aircraft a's attack at range d
    on these targets."""
    nt = df_targets(t, st, a, h, target_unit, targets)
    adrm = strike_drm(t, st, a, d)
    dis = 0
    for i in range(nt):
        if st.disrupted[targets[i]]:
            dis += 1
    if bomb_attack(t, st, a):
        e = 0.0
        best = -1
        for i in range(nt):
            u = targets[i]
            col = if_column(t, st, a, u)
            best = max(best, col)
            unsp = st.unspotted[u]
            if not unspotted_for_air(t, st, u):
                st.unspotted[u] = False       # (read only: put back below)
            d = if_drm(t, st, u, h, K_AIR)
            st.unspotted[u] = unsp
            if col >= 0:
                e += expected_steps(t, col, adrm + d, 1, 1.0 if st.disrupted[u] else 0.0)
        out[0] = best
        out[1] = adrm
        out[2] = dis
        out[3] = int(100 * e)
        return nt
    one = np.ones(1, dtype=np.int64)
    firer = np.empty(1, dtype=np.int64)
    firer[0] = a
    col = fire_column(t, st, firer, 1, one, targets, nt, target_unit >= 0 and armored_target(t, st, target_unit))
    unsp = 0
    for i in range(nt):
        if unspotted_for_air(t, st, targets[i]):
            unsp += 1
    drm = adrm + defender_drm(t, st, targets, nt, 2 * unsp >= nt, K_AIR, False, False)
    out[0] = col
    out[1] = drm
    out[2] = dis
    out[3] = int(100 * expected_steps(t, col, drm, max(nt, 1), dis / max(nt, 1))) if col >= 0 else 0
    return nt


@njit(cache=True)
def air_spot(t, st, targets, nt):
    """16.1.9 with PB2-OQ-76: the targets the aircraft spots lose their Unspotted marker; else the
    marker is judged as 6.1.2 judges it (update_spotting)."""
    for i in range(nt):
        u = targets[i]
        if st.unspotted[u] and air_spots(t, st, u):
            if t.air_spot_marks:
                st.unspotted[u] = False
                log_event(st, EV_SPOTTED, t.u_side[u], u, 0, 0, 0, 0)
        else:
            update_spotting(t, st, u)


@njit(cache=True)
def resolve_strike(t, st, a, h, target_unit, frm, opp):
    """One aircraft's attack (16.1.3 / 16.1.4) on hex h from hex frm; then Spent, removed, flipped or
    recalled (16.3).  Returns True if a target was disrupted or lost."""
    side = t.u_side[a]
    targets = np.empty(t.n_units, dtype=np.int64)
    nt = df_targets(t, st, a, h, target_unit, targets)
    first = st.steps[a] == 2 and t.t_air[t.u_type[a]] == AIR_FB
    adrm = strike_drm(t, st, a, t.dist[frm, h])
    armored = target_unit >= 0 and armored_target(t, st, target_unit)
    hit = False
    top = 0                                     # the highest roll of the attack (16.3.3 recall)
    if nt > 0:
        restore = np.zeros(nt, dtype=np.bool_)
        for i in range(nt):
            restore[i] = (not t.air_spot_marks) and st.unspotted[targets[i]] and air_spots(t, st, targets[i])
        air_spot(t, st, targets, nt)
        if not t.air_spot_marks:
            for i in range(nt):
                if restore[i]:
                    st.unspotted[targets[i]] = False   # spotted for this attack only
        if bomb_attack(t, st, a):
            rolled = np.empty(2, dtype=np.int64)
            for i in range(nt):
                u = targets[i]
                if st.hex[u] != h:
                    continue
                if_attack_unit(t, st, a, u, h, adrm, K_AIR, EV_AIR_OPP if opp else EV_AIR_FIRE, side, rolled)
                top = max(top, rolled[0] + (rolled[1] if t.air_recall_modified else 0))
                hit = hit or st.steps[u] <= 0 or st.disrupted[u]
        else:
            n0 = st.n_ev[0]
            firer = np.empty(1, dtype=np.int64)
            firer[0] = a
            halves = np.ones(1, dtype=np.int64)
            col = fire_column(t, st, firer, 1, halves, targets, nt, armored)
            resolve_attack(t, st, firer, 1, halves, h, targets[:nt].copy(), nt, armored, K_AIR, False, False,
                           side, col, adrm)
            for k in range(n0, min(st.n_ev[0], st.ev.shape[0])):
                if st.ev[k, 2] == EV_AIR_FIRE:
                    if opp:
                        st.ev[k, 2] = EV_AIR_OPP
                    top = max(top, st.ev[k, 6] + (st.ev[k, 7] if t.air_recall_modified else 0))
            for i in range(nt):
                u = targets[i]
                hit = hit or st.steps[u] <= 0 or st.disrupted[u]     # (a rider aboard: hex CARRIED)
        for i in range(nt):
            if restore[i] and st.steps[targets[i]] > 0:
                st.unspotted[targets[i]] = True
        st.ts[st.turn[0], side, TS_FIRE] += 1
    st.spent[a] = True                           # 16.1.3, 16.1.4
    st.fired[a] = True
    k = t.t_air[t.u_type[a]]
    if k == AIR_B or k == AIR_BD:
        leave(t, st, a, OUT_BOMBED)              # 16.3.1, 16.3.2: removed once they have attacked
    elif first:
        st.steps[a] = 1                          # 16.3.4: flipped to its F side
        if top >= t.air_recall_roll:
            st.air_recall[a] = True              # 16.3.4: 10+ on the first attack roll
    elif top >= t.air_recall_roll:
        st.air_recall[a] = True                  # 16.3.3: 10+ on any attack
    return hit


@njit(cache=True)
def leave(t, st, a, why):
    """An aircraft leaves play: destroyed (16.4.5 X), recalled (16.1.1) or spent as a bomber (16.3.1)."""
    log_event(st, EV_AIR_OUT, t.u_side[a], a, why, st.air_hex[a], 0, 0)
    st.hex[a] = GONE
    st.steps[a] = 0
    st.air_hex[a] = -1
    st.air_tgt[a] = -1
    st.air_unit[a] = -1
    st.spent[a] = False
    st.air_recall[a] = False


# ----------------------------------------------------------------------------- the air operation

@njit(cache=True)
def strike_options(t, st, a):
    """AIR_STRIKE: row 0 = no attack; then a row a target (an armored unit, the non-armored units of a
    hex, a rider of an AFV apart from it, 4.3.7.1; a bomb attack: the hex) and hex it attacks from
    (adjacent; a dive bomber also the target hex)."""
    side = t.u_side[a]
    n = 1
    for k in range(10):
        st.opts[0, k] = 0
    st.opts[0, 0] = -1
    targets = np.empty(t.n_units, dtype=np.int64)
    val = np.zeros(4, dtype=np.int64)
    bomb = bomb_attack(t, st, a)
    occupied = np.zeros(t.n_hexes, dtype=np.bool_)
    for u in range(t.n_units):
        if t.u_side[u] != side and st.hex[u] >= 0:
            occupied[st.hex[u]] = True
    for h in range(t.n_hexes):
        if not occupied[h] or not t.play[h]:
            continue
        for pick in range(t.n_units + 1):
            # pick = 0: the non-armored units (a bomb attack: all); then each armored unit, and each
            # rider of an AFV there, attacked apart from it (4.3.7.1; round 9: as direct fire does)
            target_unit = -1
            if pick > 0:
                u = pick - 1
                if bomb or t.u_side[u] == side:
                    continue
                if not ((st.hex[u] == h and armored_target(t, st, u))
                        or (rider(t, st, u) and st.hex[st.carried_by[u]] == h)):
                    continue
                target_unit = u
            nt = row_value(t, st, a, h, target_unit, 1, targets, val)
            if nt == 0 or val[0] < 0:
                continue
            for j in range(7):
                frm = h if j == 6 else t.neighbours[h, j]
                if j == 6:
                    if t.t_air[t.u_type[a]] != AIR_BD:
                        continue                # 16.1.7: only dive bombers at range 0
                    row_value(t, st, a, h, target_unit, 0, targets, val)
                if frm < 0 or not t.play[frm] or n >= st.opts.shape[0] - 1:
                    continue
                st.opts[n, 0] = h
                st.opts[n, 1] = target_unit
                st.opts[n, 2] = frm
                st.opts[n, 3] = val[0]
                st.opts[n, 4] = val[1]
                st.opts[n, 5] = nt
                st.opts[n, 6] = val[2]
                st.opts[n, 7] = flak_at(t, st, side, frm)
                st.opts[n, 8] = 1 if bomb else 0
                st.opts[n, 9] = val[3]
                n += 1
    return n


@njit(cache=True)
def engage(t, st, f, a):
    """16.4.5: AA unit f fires at aircraft a; X destroys it, DD and D# penalise its attack."""
    drm = range_drm(t, t.dist[st.hex[f], st.air_hex[a]])
    if st.smoke[st.hex[f]] > 0 and t.drm_applies[M_SMOKE_FROM, K_AA]:
        drm += t.drm_value[M_SMOKE_FROM]           # 12.2.6: all fire from a smoke hex
    natural = two_dice(st.streams)
    res = aa_result(t, t.t_aa[t.u_type[f]], natural, drm)
    log_event(st, EV_AA, t.u_side[f], f, a, natural, drm, res)
    st.spent[f] = True                             # 16.4.4
    st.fired[f] = True
    if res == AA_X:
        leave(t, st, a, OUT_DESTROYED)
        return
    if res == AA_NONE:
        return
    pen = t.aa_pen[res]
    st.air_pen[a] = st.air_pen[a] + pen if t.aa_results_add else max(st.air_pen[a], pen)
    if res == AA_DD:
        st.air_recall[a] = True                    # 16.4.5: recalled after its attack


@njit(cache=True)
def aa_step(t, st, aa_side, only):
    """16.4.2: each AA unit of aa_side, not Spent, may engage one attacking aircraft (`only` >= 0: that
    one alone) within its AA range and sight; AA_FIRE decisions, resolved one by one."""
    out2 = np.zeros(2, dtype=np.int64)
    for f in range(t.n_units):
        if t.u_side[f] != aa_side or t.t_aa[t.u_type[f]] == 0 or st.hex[f] < 0 or st.spent[f] or st.disrupted[f] \
                or st.fired[f]:
            continue
        n = 1
        for k in range(6):
            st.opts[0, k] = 0
        st.opts[0, 0] = -1
        for a in range(t.n_units):
            if not in_play(t, st, a) or t.u_side[a] == aa_side or st.air_tgt[a] < 0 or (only >= 0 and a != only):
                continue
            ah = st.air_hex[a]
            if t.dist[st.hex[f], ah] > aa_range(t, f) or not air_sees(t, st, ah, st.hex[f]):
                continue
            drm = range_drm(t, t.dist[st.hex[f], ah])
            aa_chances(t, t.t_aa[t.u_type[f]], drm, out2)
            own = 0
            for u in range(t.n_units):
                if st.hex[u] == st.air_tgt[a] and t.u_side[u] == aa_side:
                    own += st.steps[u]
            st.opts[n, 0] = a
            st.opts[n, 1] = t.t_aa[t.u_type[f]]
            st.opts[n, 2] = drm
            st.opts[n, 3] = out2[0]
            st.opts[n, 4] = out2[1]
            st.opts[n, 5] = own
            n += 1
        if n <= 1:
            continue
        i = decide(AA_FIRE, n, t, st, aa_side)
        if i > 0:
            engage(t, st, f, st.opts[i, 0])


@njit(cache=True)
def pre_operations(t, st):
    """3.1.1: the aircraft of groups whose turn has come are in play (air.enabled: none at all)."""
    if t.n_air == 0 or not t.air_enabled:
        return
    for a in range(t.n_units):
        if t.u_air[a] and st.hex[a] == AIR_WAIT and t.u_enter_turn[a] <= st.turn[0]:
            st.hex[a] = AIRBORNE


@njit(cache=True)
def air_chits(t, st, side):
    """3.1.1: the Air Support chits `side` puts in the pool this turn: each air group's, while one of
    its aircraft is in play."""
    if t.n_air == 0 or not t.air_enabled:
        return 0
    k = 0
    for g in range(t.g_air_chits.shape[0]):
        if t.g_air_chits[g] == 0:
            continue
        for a in range(t.n_units):
            if t.u_group[a] == g and t.u_side[a] == side and in_play(t, st, a):
                k += t.g_air_chits[g]
                break
    return k


@njit(cache=True)
def air_operation(t, st, side):
    """3.1.2.2: the side's aircraft placed (each declares its target, 16.3.5), the other side's AA fire
    (16.4), the attacks."""
    st.op[0] += 1
    ready = 0
    for a in range(t.n_units):
        if t.u_side[a] == side and in_play(t, st, a) and not st.spent[a]:
            ready += 1
    log_event(st, EV_CHIT, side, -1, 0, ready, 2, 0)        # d = 2: an Air Support chit
    placed = 0
    order = np.empty(t.n_units, dtype=np.int64)
    observers = 0
    for a in range(t.n_units):
        if t.u_side[a] != side or not in_play(t, st, a) or st.spent[a]:
            continue
        if t.t_air[t.u_type[a]] == AIR_O:
            continue                             # placed after the strikes are declared (below)
        n = strike_options(t, st, a)
        i = decide(AIR_STRIKE, n, t, st, side)
        if i == 0:
            continue
        st.air_tgt[a] = st.opts[i, 0]
        st.air_unit[a] = st.opts[i, 1]
        st.air_from[a] = st.opts[i, 2]
        st.air_hex[a] = st.opts[i, 2]
        st.air_pen[a] = 0
        log_event(st, EV_AIR, side, a, st.opts[i, 0], st.opts[i, 2], st.opts[i, 1], st.opts[i, 8])
        order[placed] = a
        placed += 1
    for a in range(t.n_units if t.n_obs > 0 else 0):
        if t.u_side[a] == side and in_play(t, st, a) and t.t_air[t.u_type[a]] == AIR_O:
            observers += observe(t, st, a)       # 16.2
    if placed == 0 and observers == 0:
        return
    aa_step(t, st, 1 - side, -1)
    for a in range(t.n_units):
        if observers > 0 and t.u_side[a] == side and t.t_air[t.u_type[a]] == AIR_O:
            st.air_tgt[a] = -1                   # (engaged as a spotting aircraft, 16.4.2: done)
    for k in range(placed):
        a = order[k]
        if in_play(t, st, a) and st.air_tgt[a] >= 0:
            resolve_strike(t, st, a, st.air_tgt[a], st.air_unit[a], st.air_from[a], False)
        st.air_tgt[a] = -1
        st.air_unit[a] = -1


@njit(cache=True)
def seen_from_air(t, st, o, h, out2):
    """For players: the enemy units and steps observation aircraft o would spot from over hex h."""
    x = st.air_hex[o]
    st.air_hex[o] = h
    k = 0
    steps = 0
    for u in range(t.n_units):
        if t.u_side[u] != t.u_side[o] and st.hex[u] >= 0 and obs_sees(t, st, o, st.hex[u]):
            k += 1
            steps += st.steps[u]
    st.air_hex[o] = x
    out2[0] = k
    out2[1] = steps


@njit(cache=True)
def observe(t, st, o):
    """PB2-16.2: AIR_OBSERVE, where observation aircraft o goes: row 0 stays where it is (not placed
    yet: off the map), then each enemy-held hex of the play area.  Returns 1 if it is over the map
    (the AA of the other side may then engage it as a spotting aircraft, 16.4.2)."""
    side = t.u_side[o]
    out2 = np.zeros(2, dtype=np.int64)
    for k in range(10):
        st.opts[0, k] = 0
    st.opts[0, 0] = -1
    if st.air_hex[o] >= 0:
        seen_from_air(t, st, o, st.air_hex[o], out2)
        st.opts[0, 1] = out2[0]
        st.opts[0, 2] = out2[1]
        st.opts[0, 3] = flak_at(t, st, side, st.air_hex[o])
    listed = np.zeros(t.n_hexes, dtype=np.bool_)
    n = 1
    for u in range(t.n_units):
        h = st.hex[u]
        if t.u_side[u] == side or h < 0 or listed[h] or not t.play[h] or n >= st.opts.shape[0]:
            continue
        listed[h] = True
        seen_from_air(t, st, o, h, out2)
        st.opts[n, 0] = h
        st.opts[n, 1] = out2[0]
        st.opts[n, 2] = out2[1]
        st.opts[n, 3] = flak_at(t, st, side, h)
        n += 1
    i = decide(AIR_OBSERVE, n, t, st, side)
    if i > 0:
        st.air_hex[o] = st.opts[i, 0]            # 16.1: placed or moved, not Spent for it
    if st.air_hex[o] < 0:
        return 0
    st.air_tgt[o] = st.air_hex[o]                # AA may engage it (16.4.2: a spotting aircraft)
    st.air_pen[o] = 0
    log_event(st, EV_OBSERVE, side, o, st.air_hex[o], st.opts[i, 1], 0, 0)
    return 1


@njit(cache=True)
def opportunity(t, st, u, h):
    """16.1.4: the enemy's aircraft in play, placed and not Spent, within their printed range of hex h
    and seeing it, may each attack the unit u that just entered it (OPP_FIRE: row 0 holds, row 1 fires
    at the mover; a bomb attack at the hex, 16.3.1).  4.3.7.1 with 10.1.2 (round 9): an aircraft firing
    as DF at an AFV may fire at one of its riders apart instead, a row each (column 4 = the rider), as
    ground opportunity fire does (game.rider_opp_rows): DF 1, no modifier for infantry in the open,
    its result leaving the AFV alone (combat.fire_column, defender_drm, rider_result); a bomb attack
    hits the hex's units, the riders sharing their AFV's result (4.3.7.2).  Returns True if u was
    disrupted or lost."""
    if t.n_air == 0 or not t.air_enabled:
        return False
    side = t.u_side[u]
    targets = np.empty(t.n_units, dtype=np.int64)
    val = np.zeros(4, dtype=np.int64)
    for a in range(t.n_units):
        if st.hex[u] != h or st.disrupted[u]:
            break
        if t.u_side[a] == side or not in_play(t, st, a) or st.spent[a] or st.air_hex[a] < 0 \
                or t.t_air[t.u_type[a]] == AIR_O:
            continue                                # (16.2: an observation aircraft makes no attack)
        ah = st.air_hex[a]
        if t.dist[ah, h] > t.t_range[t.u_type[a]] or not air_sees(t, st, ah, h):
            continue
        bomb = bomb_attack(t, st, a)
        target_unit = -1 if bomb else u             # the mover alone, or the hex (16.3.1)
        n = 1
        nt = row_value(t, st, a, h, target_unit, t.dist[ah, h], targets, val)
        if nt > 0 and val[0] >= 0:
            st.opts[1, 0] = 1
            st.opts[1, 1] = 1
            st.opts[1, 2] = val[0]
            st.opts[1, 3] = val[1]
            st.opts[1, 4] = -1
            n = 2
        if not bomb and t.t_afv[t.u_type[u]]:
            n = rider_rows(t, st, a, u, h, n, targets, val)     # 4.3.7.1, 10.1.2
        if n <= 1:
            continue
        st.opts[0, 0] = 0
        for k in range(1, 4):
            st.opts[0, k] = st.opts[1, k]
        st.opts[0, 4] = -1
        i = decide(OPP_FIRE, n, t, st, 1 - side)
        if i == 0:
            continue
        if st.opts[i, 4] >= 0:
            target_unit = st.opts[i, 4]             # a rider, apart from its AFV
        if t.aa_vs_opportunity:
            st.air_tgt[a] = h                       # PB2-OQ-77: the moving side's AA may engage it first
            st.air_pen[a] = 0
            aa_step(t, st, side, a)
            if not in_play(t, st, a):
                continue
        st.air_tgt[a] = -1
        resolve_strike(t, st, a, h, target_unit, ah, True)
        st.air_pen[a] = 0
    return st.hex[u] != h or st.disrupted[u]


@njit(cache=True)
def rider_rows(t, st, a, u, h, n, targets, val):
    """4.3.7.1, 10.1.2 (round 9): an OPP_FIRE row (1, 1, column, DRM, rider) for each rider of AFV u,
    which just entered hex h, that aircraft a may attack apart by direct fire.  Returns the rows'
    new count."""
    d = t.dist[st.air_hex[a], h]
    for r in range(t.n_units):
        if st.carried_by[r] != u or not rider(t, st, r) or n >= st.opts.shape[0]:
            continue
        nt = row_value(t, st, a, h, r, d, targets, val)
        if nt == 0 or val[0] < 0:
            continue
        st.opts[n, 0] = 1
        st.opts[n, 1] = 1
        st.opts[n, 2] = val[0]
        st.opts[n, 3] = val[1]
        st.opts[n, 4] = r
        n += 1
    return n


@njit(cache=True)
def administration(t, st):
    """16.1.1: recalled aircraft leave play; 16.1.5: their Spent markers go with everyone's (game.py)."""
    if t.n_air == 0:
        return
    for a in range(t.n_units):
        if t.u_air[a] and st.air_recall[a] and st.hex[a] == AIRBORNE:
            leave(t, st, a, OUT_RECALLED)
