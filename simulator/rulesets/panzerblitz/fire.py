"""Fire (PB-CBT, PB-SEQ-2 S2/S3): who may fire and how (direct, indirect, intensive), the AF a
unit brings on a hex and the DF of the stack there, the odds, the options of each firer, and
the combined attack on a stack (PB-STK-5).
"""

from __future__ import annotations

import numpy as np

from simulator.jit import njit
from simulator.rulesets.panzerblitz.combat import (
    ARMORED,
    DISPERSED_ALL,
    DISPERSED_NEVER,
    NON_ARMORED,
    TIE,
    hill_halves,
    modified_attack,
    odds_column,
)
from simulator.rulesets.panzerblitz.events import EV_ATTACK, EV_FIRER, EV_INTENSIVE, log_event
from simulator.rulesets.panzerblitz.forts import fort_in
from simulator.rulesets.panzerblitz.losses import mark_lost, roll_and_apply, unit_defense
from simulator.rulesets.panzerblitz.presence import is_piece
from simulator.rulesets.panzerblitz.spotting import brown_between, can_see
from simulator.rulesets.panzerblitz.state import MARCH_OVER, ON_MAP
from simulator.rulesets.panzerblitz.units import INDIRECT_BEYOND_HALF, INDIRECT_NEVER

# How a unit may fire at a hex (`fire_mode`): not at all, directly (PB-CBT-4), indirectly (PB-OPT-IF).
NO_FIRE, DIRECT, INDIRECT = 0, 1, 2


@njit(cache=True)
def tally_defender(st, ut, u, df, n_armored, n_soft, n_dispersed):
    """Unit u added to a stack's combined DF, its armored / non-armored count (PB-WEC-6) and
    its dispersed count."""
    armored = ut.armored[st.utype[u]]
    return (df + unit_defense(st, ut, u), n_armored + (1 if armored else 0), n_soft + (0 if armored else 1),
            n_dispersed + (1 if st.dispersed[u] else 0))


@njit(cache=True)
def defender_stack(st, ut, mt, h, defender_side):
    """PB-STK-5 / PB-WEC-6 / PB-TRANS-6..8: the combined DF of the units in h, and whether the
    stack is an armored target: 1 armored, 0 non-armored, 2 a tie (each firer takes the type
    less favourable to itself).  Returns (df, kind, units, dispersed units)."""
    # Each unit's hex and side tested first, from arrays taken out of the state once: every
    # read of a state field inside the loop takes and drops a reference to it (see fort_in).
    hexes = st.hex
    sides = st.side
    f = fort_in(st, ut, h, defender_side)
    df, n_armored, n_soft, n_dispersed = _fort_tally(st, ut, f)
    for u in range(hexes.shape[0]):
        if hexes[u] == h and sides[u] == defender_side and (f < 0 or st.on_top[u]) and is_piece(st, ut, u):
            df, n_armored, n_soft, n_dispersed = tally_defender(st, ut, u, df, n_armored, n_soft, n_dispersed)
    return df, _stack_kind(mt, h, f, n_armored, n_soft), n_armored + n_soft, n_dispersed


@njit(cache=True)
def units_by_hex(st, first, nxt):
    """The units standing in each hex, as lists: first[h] the lowest-numbered unit in hex h (-1:
    none), nxt[u] the next one in u's hex (-1: the last).  For a caller that reads many stacks
    of one position (`defender_stack_listed`): a scan of every unit per stack cost 5 % of a
    pb-12 game (issue 22, round 15)."""
    hexes = st.hex
    first[:] = -1
    for u in range(hexes.shape[0] - 1, -1, -1):
        h = hexes[u]
        nxt[u] = -1
        if h >= 0:
            nxt[u] = first[h]
            first[h] = u


@njit(cache=True)
def defender_stack_listed(st, ut, mt, h, defender_side, first, nxt):
    """`defender_stack` read from `units_by_hex`'s lists (made on the same position): the same
    units, in the same order."""
    sides, status, utype = st.side, st.status, st.utype
    f = -1
    u = first[h]
    while u >= 0:
        if sides[u] == defender_side and status[u] == ON_MAP and ut.fort[utype[u]]:
            f = u  # fort_in: the first fort of the side in the hex
            break
        u = nxt[u]
    df, n_armored, n_soft, n_dispersed = _fort_tally(st, ut, f)
    u = first[h]
    while u >= 0:
        if sides[u] == defender_side and (f < 0 or st.on_top[u]) and is_piece(st, ut, u):
            df, n_armored, n_soft, n_dispersed = tally_defender(st, ut, u, df, n_armored, n_soft, n_dispersed)
        u = nxt[u]
    return df, _stack_kind(mt, h, f, n_armored, n_soft), n_armored + n_soft, n_dispersed


@njit(cache=True, inline="always")
def _fort_tally(st, ut, f):
    """A stack's tally before its units: empty, or with fort f (-1: none).  PB-FORT-3 / PB-STK-7:
    units in a fort are attacked only through it, with the fort's DF alone, as an armored target.
    PB-FORT-10/11: the units on top are outside it; in a combination attack or a CAT their DFs are
    added to the fort's, and (OQ-12 adopted) the fort counts as one armored unit beside them in
    the PB-WEC-6 count (the alternative, the whole stack armored, is applied by `stack_kind_of`)."""
    if f < 0:
        return 0, 0, 0, 0
    return ut.defense[st.utype[f]], 1, 0, (1 if st.dispersed[f] else 0)


@njit(cache=True, inline="always")
def _stack_kind(mt, h, f, n_armored, n_soft):
    """PB-WEC-6: the stack's target type from its armored and non-armored count; PB-WEC-2: every
    unit in a town is an armored target; a fort's stack with no soft unit on top is armored."""
    if mt.town[h] or n_armored > n_soft or (f >= 0 and n_soft == 0):
        return ARMORED
    if n_soft > n_armored:
        return NON_ARMORED
    return TIE


@njit(cache=True)
def dispersed_modifier(ct, n_defenders, n_dispersed):
    """PB-DISP-2.3: -1 when the defender was already dispersed this player-turn; against a
    stack per the OQ-4 reading: any of them (0), all of them (1), or never (2)."""
    if n_dispersed == 0:
        return 0
    if n_defenders > 1 and (ct.dispersed_mode == DISPERSED_NEVER or (ct.dispersed_mode == DISPERSED_ALL and n_dispersed < n_defenders)):
        return 0
    return ct.mod_dispersed


@njit(cache=True)
def firer_af(st, ut, mt, ct, u, h, kind):
    """PB-CBT-5: the modified AF unit u brings against the stack in h (0 = may not fire)."""
    return firer_af_mode(st, ut, mt, ct, u, h, kind, False)


@njit(cache=True)
def firer_af_mode(st, ut, mt, ct, u, h, kind, indirect):
    """firer_af, for direct or indirect fire (PB-OPT-IF-5), with intensive fire (PB-OPT-AMMO-1).

    Indirect fire obeys the WEC and PB-HILL as a non-adjacent attack (halved against slopes and
    hilltops, not hilltop to hilltop); against armored targets it is halved at any range (OQ-15
    adopted: the WEC's beyond-half-range column), or follows the WEC (OQ-15 alternative).
    Intensive fire multiplies the printed AF before WEC and terrain (OQ-14 adopted) or the
    final AF (alternative)."""
    t = st.utype[u]
    a = st.hex[u]
    dist = mt.dist[a, h]
    wec_dist = dist
    if indirect:
        halved = hill_halves(mt.level[a], mt.level[h], False, False)
        if ct.indirect_armor_any_range:
            wec_dist = ut.range[t] + 1  # beyond half range whatever the distance (OQ-15)
    else:
        # PB-FORT-13: fire between a fort's inside and its top (same hex) is as if adjacent.
        halved = hill_halves(mt.level[a], mt.level[h], dist <= 1, brown_between(mt, a, h))
    af = ut.attack[t]
    factor = 1
    if st.intensive[u]:
        if ct.intensive_printed:
            af = af * ct.intensive_factor
        else:
            factor = ct.intensive_factor
    if kind == TIE:
        # PB-WEC-6 tie: the type less favourable to this firer.
        x = modified_attack(af, ut.weapon[t], True, wec_dist, ut.range[t], halved, ct.wec, ct.halving)
        y = modified_attack(af, ut.weapon[t], False, wec_dist, ut.range[t], halved, ct.wec, ct.halving)
        return min(x, y) * factor
    return modified_attack(af, ut.weapon[t], kind == ARMORED, wec_dist, ut.range[t], halved, ct.wec, ct.halving) * factor


@njit(cache=True)
def may_fire_indirect(st, ut, mt, ct, u, a, h):
    """PB-OPT-IF-1/2/4: with the optional rule on, or for the units a situation's own rule lets
    fire indirectly (PB-SIT-8), unit u (in hex a) may fire indirectly at h: it is a unit the
    data lets fire indirectly, h is beyond half its range if it is SPA or a howitzer, and a
    command post observes h this phase (`st.observed`, see `observe`)."""
    if not ct.indirect_fire and not ut.card_indirect[st.utype[u]]:
        return False
    k = ut.indirect[st.utype[u]]
    if k == INDIRECT_NEVER:
        return False
    if k == INDIRECT_BEYOND_HALF and 2 * mt.dist[a, h] <= ut.range[st.utype[u]]:
        return False  # PB-OPT-IF-4: only at targets more than half the RF away
    reach = ut.cp_within[st.utype[u]]
    if reach == 0:
        return st.observed[h] != 0
    # PB-SIT-8: only a command post within `reach` hexes of the firer may spot for it.
    slot = 0
    for c in range(st.utype.shape[0]):
        if st.side[c] != st.side[u] or not ut.observer[st.utype[c]]:
            continue
        if (st.observed[h] >> slot) & 1 and mt.dist[st.hex[c], a] <= reach:
            return True
        slot += 1
    return False


@njit(cache=True)
def fire_mode(st, ut, mt, ct, spotted, u, a, h):
    """How unit u in hex a may fire at h: 1 direct (PB-CBT-4), 2 indirect (PB-OPT-IF), 0 not."""
    if can_see(mt, spotted, a, h):
        return DIRECT
    if may_fire_indirect(st, ut, mt, ct, u, a, h):
        return INDIRECT
    return NO_FIRE


@njit(cache=True)
def attack_af(st, ut, mt, ct, spotted, u, h, kind):
    """`firer_af` of a unit declared against h: direct fire where it sees h, else indirect
    (PB-OPT-IF-5), with intensive fire if declared (PB-OPT-AMMO-1)."""
    return firer_af_mode(st, ut, mt, ct, u, h, kind, fire_mode(st, ut, mt, ct, spotted, u, st.hex[u], h) == INDIRECT)


@njit(cache=True)
def may_fire_intensively(st, ut, ct, u, side):
    """PB-OPT-AMMO-1/2/4: an H or M unit that may fire (and carries no passenger), with the
    optional rule on; it can do so only once, since it leaves the game after."""
    return ct.intensive_fire and ut.intensive[st.utype[u]] and st.carrying[u] < 0 and may_fire(st, ut, u, side)


@njit(cache=True)
def spend_intensive(st, attackers, n_att):
    """PB-OPT-AMMO-2: right after its attack, each unit that fired intensively is removed from
    play and counts as lost (ammunition spent); one whose attack was not made keeps it."""
    for i in range(n_att):
        u = attackers[i]
        if not st.intensive[u]:
            continue
        st.intensive[u] = False
        if st.fired[u] and st.status[u] == ON_MAP:
            h = st.hex[u]
            st.dispersed[u] = False
            mark_lost(st, u, h)
            log_event(st, EV_INTENSIVE, u, h, 0, 0, 0, 0, 0)


@njit(cache=True)
def may_fire(st, ut, u, side):
    """PB-CBT-4 / PB-SEQ-3 / PB-TRANS-4: face-up, undispersed, not aboard, armed, not yet fired."""
    if st.side[u] != side or not is_piece(st, ut, u):  # the commonest refusal first (see may_assault)
        return False
    t = st.utype[u]
    return ((not st.dispersed[u]) and (not st.fired[u]) and ut.attack[t] > 0 and ut.weapon[t] >= 0
            and st.march_state[st.group[u]] == MARCH_OVER)  # PB-SIT-7: a marching column does not fire


@njit(cache=True)
def fire_options(st, ut, mt, ct, side, spotted, occ, u, out_hex, out_af, stack_kind):
    """The enemy hexes unit u may fire at this turn, with its modified AF against each.
    `stack_kind[h]`: the target type of the stack in h if known (else -1, computed here)."""
    targets = np.flatnonzero(occ[:, 1 - side] > 0)
    return fire_options_at(st, ut, mt, ct, side, spotted, targets, u, out_hex, out_af, stack_kind)


@njit(cache=True)
def fire_options_at(st, ut, mt, ct, side, spotted, targets, u, out_hex, out_af, stack_kind):
    """`fire_options` where the hexes holding enemy units are known: `targets`, in increasing
    order (the same options in the same order, without scanning the map)."""
    enemy = 1 - side
    n = 0
    # What does not change from target to target, read once; `fire_mode` is called only where
    # indirect fire is possible (each call passes the structs, whose reference counting cost
    # more than the test: docs/performance.md, round 5).
    t = st.utype[u]
    a = st.hex[u]
    reach = ut.range[t]
    dist_a = mt.dist[a]
    indirect_possible = ct.indirect_fire or ut.card_indirect[t]
    for j in range(targets.shape[0]):
        h = targets[j]
        if dist_a[h] > reach:
            continue
        if can_see(mt, spotted, a, h):
            mode = DIRECT
        elif indirect_possible:
            mode = fire_mode(st, ut, mt, ct, spotted, u, a, h)
        else:
            continue  # NO_FIRE
        if mode == NO_FIRE:
            continue
        kind = stack_kind[h] if stack_kind[h] >= 0 else defender_stack(st, ut, mt, h, enemy)[1]
        af = firer_af_mode(st, ut, mt, ct, u, h, kind, mode == INDIRECT)
        if af < 1:
            continue  # PB-CBT-5 step 4
        out_hex[n] = h
        out_af[n] = af
        n += 1
    return n


@njit(cache=True)
def odds_of(ct, attack, defense):
    return odds_column(attack, defense, ct.col_attack, ct.col_defense)


@njit(cache=True)
def resolve_fire(st, ut, mt, ct, side, h, attackers, n_att, spotted):
    """PB-SEQ-2 S3: one combination attack (PB-STK-5) on the stack in h.  Returns the result
    code, or -1 if the attack cannot be made (odds worse than the table, PB-CBT-9)."""
    enemy = 1 - side
    df, kind, n_def, n_disp = defender_stack(st, ut, mt, h, enemy)
    kind = stack_kind_of(st, ut, mt, ct, h, enemy, kind)  # OQ-20
    if df <= 0:
        return -1
    total = 0
    for i in range(n_att):
        u = attackers[i]
        if may_fire(st, ut, u, side) and st.hex[u] >= 0 and mt.dist[st.hex[u], h] <= ut.range[st.utype[u]]:
            mode = fire_mode(st, ut, mt, ct, spotted, u, st.hex[u], h)
            if mode != NO_FIRE:
                total += firer_af_mode(st, ut, mt, ct, u, h, kind, mode == INDIRECT)
    if total <= 0:
        return -1
    col = odds_of(ct, total, df)
    if col < 0:
        if not ct.below_table_allowed:
            return -1  # PB-CBT-9 / OQ-2
        col = 0
    for i in range(n_att):
        u = attackers[i]
        if may_fire(st, ut, u, side):
            st.fired[u] = True  # PB-SEQ-3.1: a unit that fires may not move this turn
            if mt.concealing[st.hex[u]]:
                st.revealed[u] = True  # used only by the Panzer Leader spotting variant
            mode = fire_mode(st, ut, mt, ct, spotted, u, st.hex[u], h)
            log_event(st, EV_FIRER, u, h, firer_af_mode(st, ut, mt, ct, u, h, kind, mode == INDIRECT),
                      1 if mode == INDIRECT else 0, 0, 0, 0)  # 1: indirect fire (PB-OPT-IF)
    modifier = mt.terrain_mod[h] + dispersed_modifier(ct, n_def, n_disp)
    return roll_and_apply(st, ut, ct, EV_ATTACK, h, total, df, col, modifier, enemy)


@njit(cache=True)
def stack_kind_of(st, ut, mt, ct, h, defender_side, kind):
    """PB-WEC-6 / OQ-20: the target type of the stack in h, given `kind` as defender_stack
    found it (passengers not counted, the adopted reading).  By the alternative reading each
    passenger counts by its own type beside its carrier (towns and forts stay armored)."""
    if ct.fort_whole_armored and kind != ARMORED and fort_in(st, ut, h, defender_side) >= 0:
        return ARMORED  # OQ-12 alternative: a fort with units on top makes the whole stack armored
    if not ct.passengers_counted or mt.town[h] or fort_in(st, ut, h, defender_side) >= 0:
        return kind
    n_arm = 0
    n_soft = 0
    for u in range(st.utype.shape[0]):
        if st.status[u] != ON_MAP or st.hex[u] != h or st.side[u] != defender_side or ut.positional[st.utype[u]]:
            continue
        if ut.armored[st.utype[u]]:
            n_arm += 1
        else:
            n_soft += 1
    return ARMORED if n_arm > n_soft else (NON_ARMORED if n_soft > n_arm else TIE)
