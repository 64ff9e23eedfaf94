"""The other attack techniques on a stack (PB-STK-2): selective (PB-STK-3), multiple (PB-STK-4),
an armored carrier's passenger alone (PB-TRANS-8), and fire at one's own fort (PB-FORT-9,
PB-FORT-13).
"""

from __future__ import annotations

import numpy as np

from simulator.jit import njit
from simulator.rulesets.panzerblitz.combat import (
    ARMORED,
    DOUBLE_DISPERSED,
    ELIMINATED,
    NO_EFFECT,
    NON_ARMORED,
    TIE,
    crt_result,
    roll_die,
)
from simulator.rulesets.panzerblitz.events import (
    EV_ATTACK,
    EV_FIRER,
    EV_HIT,
    EV_OWN_FORT_ATTACK,
    log_event,
)
from simulator.rulesets.panzerblitz.fire import (
    INDIRECT,
    NO_FIRE,
    attack_af,
    dispersed_modifier,
    fire_mode,
    firer_af,
    firer_af_mode,
    may_fire,
    odds_of,
    tally_defender,
)
from simulator.rulesets.panzerblitz.forts import defends, fort_in
from simulator.rulesets.panzerblitz.losses import (
    NOW_DISPERSED,
    NOW_ELIMINATED,
    apply_one,
    hit_fort,
    mark_lost,
    roll_and_apply,
    unit_defense,
)
from simulator.rulesets.panzerblitz.presence import is_piece
from simulator.rulesets.panzerblitz.state import ON_MAP, OWN_FIRE_RECOVERS, OWN_FIRE_STAYS


@njit(cache=True)
def selective_allowed(st, ut, mt, h, defender_side):
    """PB-STK-2/6/7: a stack of two or more, not in a town; in a fort only with units on top,
    the fort and each unit on top being the defenders (PB-FORT-11)."""
    if mt.town[h]:
        return False
    f = fort_in(st, ut, h, defender_side)
    n = 0
    for u in range(st.utype.shape[0]):
        if defends(st, ut, u, h, defender_side, f):
            n += 1
    return n >= 2


@njit(cache=True)
def resolve_selective(st, ut, mt, ct, side, h, attackers, n_att, spotted):
    """PB-STK-3 / PB-WEC-7: only the weakest unit of the stack is attacked, the weakest being
    the one against which these attackers get the best odds (each defender its own type); the
    others are left alone for the rest of normal combat.  Returns the result or -1."""
    enemy = 1 - side
    best_unit = -1
    best_col = -1
    best_af = 0
    f = fort_in(st, ut, h, enemy)
    for d in range(st.utype.shape[0]):
        if not defends(st, ut, d, h, enemy, f):
            continue
        kind = ARMORED if ut.armored[st.utype[d]] else NON_ARMORED
        af = 0
        for i in range(n_att):
            u = attackers[i]
            if may_fire(st, ut, u, side) and mt.dist[st.hex[u], h] <= ut.range[st.utype[u]]:
                mode = fire_mode(st, ut, mt, ct, spotted, u, st.hex[u], h)
                if mode != NO_FIRE:
                    af += firer_af_mode(st, ut, mt, ct, u, h, kind, mode == INDIRECT)
        if af <= 0:
            continue
        col = odds_of(ct, af, unit_defense(st, ut, d))
        if col > best_col:
            best_col, best_unit, best_af = col, d, af
    if best_unit < 0 or best_col < 0:
        return -1  # PB-STK-3: as low as 1-4, not below
    kind = ARMORED if ut.armored[st.utype[best_unit]] else NON_ARMORED
    for i in range(n_att):
        u = attackers[i]
        if may_fire(st, ut, u, side):
            st.fired[u] = True
            if mt.concealing[st.hex[u]]:
                st.revealed[u] = True
            mode = fire_mode(st, ut, mt, ct, spotted, u, st.hex[u], h)
            log_event(st, EV_FIRER, u, h, firer_af_mode(st, ut, mt, ct, u, h, kind, mode == INDIRECT),
                      1 if mode == INDIRECT else 0, 0, 0, 0)  # 1: indirect fire (PB-OPT-IF)
    modifier = mt.terrain_mod[h] + dispersed_modifier(ct, 1, 1 if st.dispersed[best_unit] else 0)
    roll = roll_die()
    result = crt_result(ct.crt, ct.lowest_roll, best_col, roll + modifier)
    log_event(st, EV_ATTACK, h, best_af, unit_defense(st, ut, best_unit), best_col, roll, modifier, result)
    if result != NO_EFFECT:
        if ut.fort[st.utype[best_unit]]:
            hit_fort(st, ut, best_unit, result, ct.fort_excess_eliminated)  # logs its hits
        else:
            outcome = apply_one(st, ut, best_unit, result)
            log_event(st, EV_HIT, best_unit, outcome, result, 0, 0, 0, 0)
    return result


# `assign[i]` of a multiple attack: the defending unit attacker i fires at, or one of these.
NOT_FIRING, AT_LEFTOVERS = -1, -2


@njit(cache=True)
def fire_reaches(st, ut, mt, ct, spotted, side, u, h):
    """Attacker u may fire at hex h this turn (face-up, range, LOS and spotting, or indirect
    fire where the optional rule allows it: PB-OPT-IF)."""
    return may_fire(st, ut, u, side) and st.hex[u] >= 0 and mt.dist[st.hex[u], h] <= ut.range[st.utype[u]] \
        and fire_mode(st, ut, mt, ct, spotted, u, st.hex[u], h) != NO_FIRE


@njit(cache=True)
def multiple_order(st, ut, mt, ct, side, h, attackers, n_att, spotted, out_units, out_key):
    """PB-STK-4 / OQ-5: the defending units in h, weakest first, and the key that orders them
    (lower = weaker; equal keys are ties, settled by the attacker).  By the adopted reading the
    key is the unit's DF as a defender (PB-TRANS-6 included); by the alternative it is minus
    the odds column all the attackers together achieve against the unit (PB-STK-3's "weakest",
    each defender its own type, PB-WEC-7).  Returns how many defenders."""
    enemy = 1 - side
    n = 0
    f = fort_in(st, ut, h, enemy)
    for d in range(st.utype.shape[0]):
        if not defends(st, ut, d, h, enemy, f):
            continue
        if ct.multiple_weakest_by_odds:
            kind = ARMORED if ut.armored[st.utype[d]] else NON_ARMORED
            af = 0
            for i in range(n_att):
                if fire_reaches(st, ut, mt, ct, spotted, side, attackers[i], h):
                    af += attack_af(st, ut, mt, ct, spotted, attackers[i], h, kind)
            key = -odds_of(ct, af, unit_defense(st, ut, d)) if af > 0 else 1
        else:
            key = unit_defense(st, ut, d)
        # insertion, stable by unit index
        j = n
        while j > 0 and out_key[j - 1] > key:
            out_units[j] = out_units[j - 1]
            out_key[j] = out_key[j - 1]
            j -= 1
        out_units[j] = d
        out_key[j] = key
        n += 1
    return n


@njit(cache=True)
def _leftover_stack(st, ut, h, enemy, attacked):
    """PB-STK-5 / PB-WEC-6 over the units of h not attacked: combined DF, target type (1 armored,
    0 not, 2 a tie), count and dispersed count."""
    df = 0
    n_arm = 0
    n_soft = 0
    n_disp = 0
    f = fort_in(st, ut, h, enemy)
    for u in range(st.utype.shape[0]):
        if not defends(st, ut, u, h, enemy, f) or attacked[u]:
            continue
        df, n_arm, n_soft, n_disp = tally_defender(st, ut, u, df, n_arm, n_soft, n_disp)
    kind = ARMORED if n_arm > n_soft else (NON_ARMORED if n_soft > n_arm else TIE)
    return df, kind, n_arm + n_soft, n_disp


@njit(cache=True)
def multiple_attack_ok(st, ut, mt, ct, side, h, attackers, n_att, assign, spotted):
    """PB-STK-4: is this multiple attack legal?  `assign[i]`: the defending unit attacker i fires
    at, NOT_FIRING, or AT_LEFTOVERS (another attack on the units left out, only by OQ-23's
    alternative reading).  At least two defenders, each with an attacker of its own, each battle
    at no less than 1-1 (`odds.multiple_attack_minimum`), the weakest attacked first (OQ-5); not
    in a town or a fort (PB-STK-6/7)."""
    enemy = 1 - side
    if not selective_allowed(st, ut, mt, h, enemy):
        return False
    n_units = st.utype.shape[0]
    attacked = np.zeros(n_units, dtype=np.bool_)
    af = np.zeros(n_units, dtype=np.int64)
    n_left = 0
    for i in range(n_att):
        d = assign[i]
        if d == NOT_FIRING:
            continue
        u = attackers[i]
        if not fire_reaches(st, ut, mt, ct, spotted, side, u, h):
            return False
        for j in range(i):
            if attackers[j] == u and assign[j] != NOT_FIRING:
                return False  # an attacking unit fires only once
        if d == AT_LEFTOVERS:
            n_left += 1
            continue
        if d < 0 or d >= n_units or not defends(st, ut, d, h, enemy, fort_in(st, ut, h, enemy)):
            return False
        attacked[d] = True
        af[d] += attack_af(st, ut, mt, ct, spotted, u, h, 1 if ut.armored[st.utype[d]] else 0)
    n_hit = 0
    for d in range(n_units):
        if attacked[d]:
            n_hit += 1
            if af[d] <= 0 or odds_of(ct, af[d], unit_defense(st, ut, d)) < ct.multiple_minimum:
                return False
    if n_hit < 2:
        return False
    # The weakest first (OQ-5): no unit left out may be weaker than one attacked.
    units = np.empty(n_units, dtype=np.int64)
    keys = np.empty(n_units, dtype=np.int64)
    n_d = multiple_order(st, ut, mt, ct, side, h, attackers, n_att, spotted, units, keys)
    for a in range(n_d):
        for b in range(n_d):
            if attacked[units[a]] and not attacked[units[b]] and keys[b] < keys[a]:
                return False
    if n_left > 0:
        # OQ-23: by the adopted reading the units left out may not be fired on this turn.
        if not ct.leftovers_open or n_hit == n_d:
            return False
        df, kind, _, _ = _leftover_stack(st, ut, h, enemy, attacked)
        total = 0
        for i in range(n_att):
            if assign[i] == AT_LEFTOVERS:
                total += attack_af(st, ut, mt, ct, spotted, attackers[i], h, kind)
        col = odds_of(ct, total, df) if total > 0 else -1
        if col < 0 and not ct.below_table_allowed:
            return False
    return True


@njit(cache=True)
def resolve_multiple(st, ut, mt, ct, side, h, attackers, n_att, assign, spotted):
    """PB-STK-4 / PB-WEC-7: each defender attacked in a battle of its own (its own type, DF and
    die roll); then, by OQ-23's alternative only, one combination attack by the AT_LEFTOVERS
    attackers on the units left out.  Returns the number of battles fought, or -1 if the
    attack is not legal (nothing happens)."""
    if not multiple_attack_ok(st, ut, mt, ct, side, h, attackers, n_att, assign, spotted):
        return -1
    enemy = 1 - side
    n_units = st.utype.shape[0]
    attacked = np.zeros(n_units, dtype=np.bool_)
    for i in range(n_att):
        if assign[i] >= 0:
            attacked[assign[i]] = True
    # The leftovers' stack is judged as it stood before the battles.
    ldf, lkind, ln, ldisp = _leftover_stack(st, ut, h, enemy, attacked)
    for i in range(n_att):
        d = assign[i]
        if d == NOT_FIRING:
            continue
        u = attackers[i]
        kind = lkind if d == AT_LEFTOVERS else (1 if ut.armored[st.utype[d]] else 0)
        st.fired[u] = True
        if mt.concealing[st.hex[u]]:
            st.revealed[u] = True
        log_event(st, EV_FIRER, u, h, attack_af(st, ut, mt, ct, spotted, u, h, kind), 0, 0, 0, 0)
    battles = 0
    for d in range(n_units):
        if not attacked[d]:
            continue
        kind = ARMORED if ut.armored[st.utype[d]] else NON_ARMORED
        af = 0
        for i in range(n_att):
            if assign[i] == d:
                af += attack_af(st, ut, mt, ct, spotted, attackers[i], h, kind)
        df = unit_defense(st, ut, d)
        col = odds_of(ct, af, df)
        modifier = mt.terrain_mod[h] + dispersed_modifier(ct, 1, 1 if st.dispersed[d] else 0)
        roll = roll_die()
        result = crt_result(ct.crt, ct.lowest_roll, col, roll + modifier)
        log_event(st, EV_ATTACK, h, af, df, col, roll, modifier, result)
        if result != NO_EFFECT:
            if ut.fort[st.utype[d]]:
                hit_fort(st, ut, d, result, ct.fort_excess_eliminated)  # PB-STK-7: with the units inside
            else:
                outcome = apply_one(st, ut, d, result)
                log_event(st, EV_HIT, d, outcome, result, 0, 0, 0, 0)
        battles += 1
    af = 0
    for i in range(n_att):
        if assign[i] == AT_LEFTOVERS:
            af += attack_af(st, ut, mt, ct, spotted, attackers[i], h, lkind)
    if af > 0:
        col = max(odds_of(ct, af, ldf), 0)  # below the table only when OQ-2 allows it (checked)
        modifier = mt.terrain_mod[h] + dispersed_modifier(ct, ln, ldisp)
        roll = roll_die()
        result = crt_result(ct.crt, ct.lowest_roll, col, roll + modifier)
        log_event(st, EV_ATTACK, h, af, ldf, col, roll, modifier, result)
        if result != NO_EFFECT:
            f = fort_in(st, ut, h, enemy)
            for u in range(n_units):
                if u != f and defends(st, ut, u, h, enemy, f) and not attacked[u]:
                    outcome = apply_one(st, ut, u, result)
                    log_event(st, EV_HIT, u, outcome, result, 0, 0, 0, 0)
            if f >= 0 and not attacked[f]:
                hit_fort(st, ut, f, result, ct.fort_excess_eliminated)  # PB-STK-7: the fort last, with the units inside
        battles += 1
    return battles


@njit(cache=True)
def plan_multiple(st, ut, mt, ct, side, h, attackers, n_att, spotted, n_hit, assign):
    """A legal multiple attack on the `n_hit` weakest defenders of h (OQ-5 order; ties taken as
    they come) with these attackers, or False.  Cheap greedy: each defender, strongest first,
    takes the smallest attacker that reaches 1-1 alone, else the strongest ones until it does;
    the attackers left over then each join the battle whose odds they raise most.  Fills
    `assign` (NOT_FIRING for attackers that cannot reach h)."""
    n_units = st.utype.shape[0]
    units = np.empty(n_units, dtype=np.int64)
    keys = np.empty(n_units, dtype=np.int64)
    n_d = multiple_order(st, ut, mt, ct, side, h, attackers, n_att, spotted, units, keys)
    if n_hit < 2 or n_hit > n_d or not selective_allowed(st, ut, mt, h, 1 - side):
        return False
    af = np.zeros((n_att, n_hit), dtype=np.int64)
    for i in range(n_att):
        assign[i] = NOT_FIRING
        if not fire_reaches(st, ut, mt, ct, spotted, side, attackers[i], h):
            continue
        dup = False
        for j in range(i):
            if attackers[j] == attackers[i]:
                dup = True
        if dup:
            continue
        for j in range(n_hit):
            af[i, j] = attack_af(st, ut, mt, ct, spotted, attackers[i], h, 1 if ut.armored[st.utype[units[j]]] else 0)
    total = np.zeros(n_hit, dtype=np.int64)
    free = np.ones(n_att, dtype=np.bool_)
    for j in range(n_hit - 1, -1, -1):
        df = unit_defense(st, ut, units[j])
        while odds_of(ct, total[j], df) < ct.multiple_minimum or total[j] <= 0:
            need = -1
            strongest = -1
            for i in range(n_att):
                if not free[i] or af[i, j] <= 0:
                    continue
                if odds_of(ct, total[j] + af[i, j], df) >= ct.multiple_minimum and \
                        (need < 0 or af[i, j] < af[need, j]):
                    need = i
                if strongest < 0 or af[i, j] > af[strongest, j]:
                    strongest = i
            pick = need if need >= 0 else strongest
            if pick < 0:
                return False
            free[pick] = False
            assign[pick] = units[j]
            total[j] += af[pick, j]
    for i in range(n_att):
        if not free[i]:
            continue
        best = -1
        best_gain = -1
        for j in range(n_hit):
            if af[i, j] <= 0:
                continue
            df = unit_defense(st, ut, units[j])
            g = odds_of(ct, total[j] + af[i, j], df) - odds_of(ct, total[j], df)
            if g > best_gain:
                best_gain = g
                best = j
        if best >= 0:
            free[i] = False
            assign[i] = units[best]
            total[best] += af[i, best]
    return multiple_attack_ok(st, ut, mt, ct, side, h, attackers, n_att, assign, spotted)


@njit(cache=True)
def exposed_passenger(st, ut, mt, h, defender_side):
    """PB-TRANS-8 / PB-STK-8: the passenger of an armored carrier in h that may be attacked
    alone (not in a town, PB-STK-6; not inside a fort, PB-STK-7), or -1.  The first such
    passenger: in these situations a hex holds at most a few carriers."""
    if mt.town[h] or fort_in(st, ut, h, defender_side) >= 0:
        return -1
    for c in range(st.utype.shape[0]):
        if is_piece(st, ut, c) and st.hex[c] == h and st.side[c] == defender_side and st.carrying[c] >= 0 \
                and ut.armored[st.utype[c]]:
            return st.carrying[c]
    return -1


@njit(cache=True)
def resolve_passenger(st, ut, mt, ct, side, h, attackers, n_att, spotted):
    """PB-TRANS-8: the attackers fire at an armored carrier's passenger alone: DF 1, its own
    target type (PB-WEC-7), the result touching only the passenger (eliminated, it leaves its
    carrier; dispersed, it stays aboard, and may not be unloaded while dispersed, PB-TRANS-5).
    The other units of the hex are left alone this turn (PB-STK-2 reading).  Returns the
    result, or -1 if the attack cannot be made."""
    p = exposed_passenger(st, ut, mt, h, 1 - side)
    if p < 0:
        return -1
    kind = ARMORED if ut.armored[st.utype[p]] else NON_ARMORED
    af = 0
    for i in range(n_att):
        if fire_reaches(st, ut, mt, ct, spotted, side, attackers[i], h):
            af += attack_af(st, ut, mt, ct, spotted, attackers[i], h, kind)
    if af <= 0:
        return -1
    col = odds_of(ct, af, 1)
    if col < 0:
        if not ct.below_table_allowed:
            return -1
        col = 0
    for i in range(n_att):
        u = attackers[i]
        if fire_reaches(st, ut, mt, ct, spotted, side, u, h):
            st.fired[u] = True
            if mt.concealing[st.hex[u]]:
                st.revealed[u] = True
            log_event(st, EV_FIRER, u, h, attack_af(st, ut, mt, ct, spotted, u, h, kind), 0, 0, 0, 0)
    modifier = mt.terrain_mod[h] + dispersed_modifier(ct, 1, 1 if st.dispersed[p] else 0)
    roll = roll_die()
    result = crt_result(ct.crt, ct.lowest_roll, col, roll + modifier)
    log_event(st, EV_ATTACK, h, af, 1, col, roll, modifier, result)
    if result == ELIMINATED or (result == DOUBLE_DISPERSED and st.dispersed[p]):
        c = st.carried_by[p]
        st.carrying[c] = -1
        st.carried_by[p] = -1
        st.dispersed[p] = False
        mark_lost(st, p, h)
        log_event(st, EV_HIT, p, NOW_ELIMINATED, result, 0, 0, 0, 0)
    elif result != NO_EFFECT:
        st.dispersed[p] = True
        st.dispersed_this_turn[p] = True
        log_event(st, EV_HIT, p, NOW_DISPERSED, result, 0, 0, 0, 0)
    return result


@njit(cache=True)
def resolve_own_fort_attack(st, ut, mt, ct, side, h, attackers, n_att):
    """PB-FORT-9: a player destroys an unwanted fort of his own only by attacking it with his
    own units: a normal attack on the fort in h (its DF, an armored target, WEC and terrain as
    for any attack on a fort, PB-FORT-3), the result applied to the fort and the units inside
    (PB-FORT-5/14/16).  The firers need range and line of sight to the hex; their own side's
    units are never hidden from them.  Like voluntary destruction (PB-SELF), the rules engine
    checks and carries it out but the game loop does not offer it (docs/rulings.md).  Returns
    the result, or -1 if the attack cannot be made."""
    f = fort_in(st, ut, h, side)
    if f < 0:
        return -1
    total = 0
    for i in range(n_att):
        u = attackers[i]
        if may_fire(st, ut, u, side) and mt.dist[st.hex[u], h] <= ut.range[st.utype[u]] \
                and (mt.dist[st.hex[u], h] <= 1 or mt.los[st.hex[u], h] != 0):
            total += firer_af(st, ut, mt, ct, u, h, 1)
    if total <= 0:
        return -1
    df = ut.defense[st.utype[f]]
    col = odds_of(ct, total, df)
    if col < 0:
        if not ct.below_table_allowed:
            return -1
        col = 0
    for i in range(n_att):
        u = attackers[i]
        if may_fire(st, ut, u, side) and mt.dist[st.hex[u], h] <= ut.range[st.utype[u]] \
                and (mt.dist[st.hex[u], h] <= 1 or mt.los[st.hex[u], h] != 0):
            st.fired[u] = True
            log_event(st, EV_FIRER, u, h, firer_af(st, ut, mt, ct, u, h, 1), 0, 0, 0, 0)
    modifier = mt.terrain_mod[h] + dispersed_modifier(ct, 1, 1 if st.dispersed[f] else 0)
    return roll_and_apply(st, ut, ct, EV_ATTACK, h, total, df, col, modifier, side)


@njit(cache=True)
def own_fort_roll(st, ut, mt, ct, side, h, attackers, n_att, spotted):
    """PB-FORT-13: a player who fires at enemy units on top of his own fort rolls twice: once
    for them (the attack just made), once for his own fort and the units inside it.  The second
    battle: the same firers (those of `attackers` that fired), the fort's DF, an armored target
    (PB-FORT-3), terrain and dispersal modifiers as for any attack on the hex; odds below the
    table: no effect.  Made whatever the first roll did to the units on top (the caller checks
    `enemy_on_own_fort` before the attack).  OQ-22: units so dispersed turn face-up in this player-turn's S6 (adopted,
    `own_fire_hit` 1), or stay dispersed through their side's next player-turn (alternative, 2).
    Returns the result, or -1 if no battle."""
    f = fort_in(st, ut, h, side)
    if f < 0:
        return -1
    total = 0
    for i in range(n_att):
        u = attackers[i]
        if st.fired[u] and st.status[u] == ON_MAP and st.side[u] == side:
            a = st.hex[u]
            if mt.dist[a, h] <= ut.range[st.utype[u]]:
                mode = fire_mode(st, ut, mt, ct, spotted, u, a, h)
                if mode != NO_FIRE:
                    total += firer_af_mode(st, ut, mt, ct, u, h, ARMORED, mode == INDIRECT)
    df = ut.defense[st.utype[f]]
    if total <= 0 or df <= 0:
        return -1
    col = odds_of(ct, total, df)
    if col < 0:
        if not ct.below_table_allowed:
            return -1
        col = 0
    modifier = mt.terrain_mod[h] + dispersed_modifier(ct, 1, 1 if st.dispersed[f] else 0)
    roll = roll_die()
    result = crt_result(ct.crt, ct.lowest_roll, col, roll + modifier)
    log_event(st, EV_OWN_FORT_ATTACK, h, total, df, col, roll, modifier, result)
    if result == NO_EFFECT:
        return result
    outcome = hit_fort(st, ut, f, result, ct.fort_excess_eliminated)
    if outcome == NOW_DISPERSED:
        mark = OWN_FIRE_STAYS if ct.own_fire_next_turn else OWN_FIRE_RECOVERS
        for u in range(st.utype.shape[0]):
            if st.status[u] == ON_MAP and st.hex[u] == h and st.side[u] == side and st.dispersed[u] \
                    and (u == f or not st.on_top[u]):
                st.own_fire_hit[u] = mark
    return result
