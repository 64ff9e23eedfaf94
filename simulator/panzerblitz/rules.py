"""PanzerBlitz rules as compiled functions over the game state: the action interface.

Policies ask these functions what is legal (who may fire at which hex and at what odds, where
a unit can move) and the game applies what they choose through them, so an illegal action
cannot be carried out.  Rule IDs refer to the rules digest.
"""

from __future__ import annotations

import numpy as np

from simulator.jit import njit
from simulator.panzerblitz.combat import (
    crt_result,
    hill_halves,
    modified_attack,
    odds_column,
    roll_die,
)
from simulator.panzerblitz.movement import reachable
from simulator.panzerblitz.state import (
    ELIMINATED,
    EXITED,
    MARCH_OVER,
    N_EVENTS,
    ON_MAP,
    PHASING,
    TURN,
)
from simulator.panzerblitz.units import CATEGORY_INDEX

# Log event kinds (see simulator/panzerblitz/replay.py for their fields).
EV_TURN, EV_SETUP, EV_ENTER, EV_MOVE, EV_ATTACK, EV_FIRER, EV_HIT, EV_MINE, EV_EXIT = 1, 2, 3, 4, 5, 6, 7, 8, 9
EV_RECOVER, EV_LOAD, EV_UNLOAD, EV_ELIMINATED_PASSENGER = 10, 11, 12, 13
# Forts with units on top (PB-FORT-2, PB-FORT-13, OQ-26): a unit moves between inside and on
# top of its fort; the fort owner's second roll, on his own fort; a unit eliminated as excess.
EV_FORT_SWITCH, EV_OWN_FORT_ATTACK, EV_EXCESS = 31, 32, 33
EV_SETUP_FAILED = 34  # a unit found no legal set-up hex (game.setup_side)
# The heuristic player's note of the best odds it had in reach at the start of its fire phase
# (a: the odds column, -1 none), read by the blunder audit (simulator/panzerblitz/audit.py).
EV_FIRE_CHANCE = 35

ROADBLOCK = CATEGORY_INDEX["roadblock"]

# Attack outcome on one unit.
UNHARMED, NOW_DISPERSED, NOW_ELIMINATED = 0, 1, 2


@njit(cache=True)
def log_event(st, kind, a, b, c, d, e, f, g):
    k = st.clock[N_EVENTS]
    if k >= st.log.shape[0]:
        return
    row = st.log[k]
    row[0] = st.clock[TURN]
    row[1] = st.clock[PHASING]
    row[2] = kind
    row[3] = a
    row[4] = b
    row[5] = c
    row[6] = d
    row[7] = e
    row[8] = f
    row[9] = g
    st.clock[N_EVENTS] = k + 1


@njit(cache=True, inline="always")
def is_piece(st, ut, u):
    """A unit on the map that is a fighting unit (not a fort, block or minefield) and not aboard."""
    return st.status[u] == ON_MAP and not ut.positional[st.utype[u]] and st.carried_by[u] < 0


@njit(cache=True)
def block_count(ut):
    """What a block counts against the stacking limit (PB-STACK-3; the roadblock type's count)."""
    for t in range(ut.category.shape[0]):
        if ut.category[t] == ROADBLOCK:
            return ut.stack_count[t]
    return 1


@njit(cache=True)
def side_load(st, ut, h, side):
    """Units of `side` in hex h against the stacking limit, wrecks included (PB-STACK-2/3/5)."""
    load = st.wrecks[h, 0] + st.wrecks[h, 1]
    counter = False
    for u in range(st.utype.shape[0]):
        if st.status[u] == ON_MAP and st.hex[u] == h:
            if ut.category[st.utype[u]] == ROADBLOCK:
                counter = True
            if st.carried_by[u] < 0 and (st.side[u] == side or ut.positional[st.utype[u]]):
                load += ut.stack_count[st.utype[u]]  # a block counts against either side, like a wreck
    if st.block[h] and not counter:
        load += block_count(ut)  # PB-BLOCK-4/6: the block a destroyed fort left has no counter
    return load


@njit(cache=True)
def mark_passed(st, h, side):
    """A unit of `side` occupied or passed through hex h: it controls it until another side's
    unit does (PB-VIC-5), and the side has entered it (the `entered` measure, PB-SIT-10)."""
    st.control[h] = side
    st.visited[h] |= 1 << side


@njit(cache=True)
def nearest_enemy(st, ut, mt, side, h):
    """Hexes from h to the nearest enemy fighting unit on the map (a huge number if none)."""
    d = 1 << 30
    hexes, sides, dist = st.hex, st.side, mt.dist  # taken once (see fort_in)
    for v in range(hexes.shape[0]):
        if sides[v] != side and is_piece(st, ut, v) and dist[h, hexes[v]] < d:
            d = dist[h, hexes[v]]
    return d


@njit(cache=True)
def occupancy(st, ut, n_hex):
    """Per hex and side: fighting units present (positional counters and passengers excluded)."""
    occ = np.zeros((n_hex, 2), dtype=np.int64)
    # is_piece from arrays taken out of the state once (see fort_in).
    status, utype, carried_by, positional, hexes, sides = st.status, st.utype, st.carried_by, ut.positional, st.hex, st.side
    for u in range(utype.shape[0]):
        if status[u] == ON_MAP and not positional[utype[u]] and carried_by[u] < 0:
            occ[hexes[u], sides[u]] += 1
    return occ


@njit(cache=True)
def spotted_hexes(st, ut, mt, ct, side):
    """PB-SPOT-2/3: hexes adjacent to (or holding) an undispersed unit of `side` (at the start of its turn).
    With the Panzer Leader variant, also the hexes of enemy units that fired from woods or a
    town in their last player-turn."""
    n_hex = mt.neighbours.shape[0]
    out = np.zeros(n_hex, dtype=np.bool_)
    if ct.fired_units_stay_spotted:
        for u in range(st.utype.shape[0]):
            if st.side[u] != side and st.revealed[u] and is_piece(st, ut, u):
                out[st.hex[u]] = True
    for u in range(st.utype.shape[0]):
        if is_piece(st, ut, u) and st.side[u] == side and not st.dispersed[u]:
            h = st.hex[u]
            # its own hex too: only a fort's inside and top hold enemies there (PB-FORT-13),
            # and they see each other
            out[h] = True
            for d in range(6):
                nb = mt.neighbours[h, d]
                if nb >= 0:
                    out[nb] = True
    return out


@njit(cache=True)
def brown_between(mt, a, b):
    for d in range(6):
        if mt.neighbours[a, d] == b:
            return (mt.side_features[a, d] & mt.brown_bit) != 0
    return False


@njit(cache=True, inline="always")
def can_see(mt, spotted, a, b):
    """PB-CBT-4 / PB-LOS / PB-SPOT: may a unit in a fire at a unit in b (LOS and spotting)?"""
    dist = mt.dist[a, b]
    if dist <= 1:
        return True  # PB-LOS-5, and adjacent units are spotted by the firer itself
    if mt.los[a, b] == 0:
        return False
    if mt.concealing[b] and not spotted[b]:
        return False  # PB-SPOT-1: woods and towns hide units not spotted
    return True


@njit(cache=True)
def _tally(st, ut, u, df, n_armored, n_soft, n_dispersed):
    """Unit u added to a stack's combined DF, its armored / non-armored count (PB-WEC-6) and
    its dispersed count."""
    armored = ut.armored[st.utype[u]]
    return (df + unit_defense(st, ut, u), n_armored + (1 if armored else 0), n_soft + (0 if armored else 1),
            n_dispersed + (1 if st.dispersed[u] else 0))


@njit(cache=True)
def defender_stack(st, ut, mt, h, defender_side):
    """PB-STK-5 / PB-WEC-6 / PB-TRANS-6..8: the combined DF of the units in h, and whether the
    stack is an armored target: 1 armored, 0 non-armored, 2 a tie (each firer takes the type
    less favourable to itself)."""
    # Each unit's hex and side tested first, from arrays taken out of the state once: every
    # read of a state field inside the loop takes and drops a reference to it (see fort_in).
    hexes = st.hex
    sides = st.side
    f = fort_in(st, ut, h, defender_side)
    if f >= 0:
        # PB-FORT-3 / PB-STK-7: units in a fort are attacked only through it, with the fort's
        # DF alone, as an armored target.  PB-FORT-10/11: the units on top are outside it; in
        # a combination attack or a CAT their DFs are added to the fort's, and (OQ-12 adopted)
        # the fort counts as one armored unit beside them in the PB-WEC-6 count (the
        # alternative, the whole stack armored, is applied by `stack_kind_of`).
        df = ut.defense[st.utype[f]]
        n_armored = 1
        n_soft = 0
        n_dispersed = 1 if st.dispersed[f] else 0
        for u in range(st.utype.shape[0]):
            if hexes[u] != h or sides[u] != defender_side or not st.on_top[u] or not is_piece(st, ut, u):
                continue
            df, n_armored, n_soft, n_dispersed = _tally(st, ut, u, df, n_armored, n_soft, n_dispersed)
        if n_soft == 0 or mt.town[h] or n_armored > n_soft:
            kind = 1
        elif n_soft > n_armored:
            kind = 0
        else:
            kind = 2
        return df, kind, n_armored + n_soft, n_dispersed
    df = 0
    n_armored = 0
    n_soft = 0
    n_dispersed = 0
    for u in range(hexes.shape[0]):
        if hexes[u] != h or sides[u] != defender_side or not is_piece(st, ut, u):
            continue
        t = st.utype[u]
        p = st.carrying[u]
        if p >= 0 and not ut.armored[t]:
            df += 1  # PB-TRANS-6: a truck or wagon with its passenger defends with 1
        else:
            df += ut.defense[t]
        if ut.armored[t]:
            n_armored += 1
        else:
            n_soft += 1
        if st.dispersed[u]:
            n_dispersed += 1
    if mt.town[h]:
        kind = 1  # PB-WEC-2: every unit in a town is an armored target
    elif n_armored > n_soft:
        kind = 1
    elif n_soft > n_armored:
        kind = 0
    else:
        kind = 2
    return df, kind, n_armored + n_soft, n_dispersed


@njit(cache=True)
def fort_in(st, ut, h, side):
    """The fort of `side` in hex h, or -1."""
    hexes = st.hex  # taken once: a state field read in the loop takes and drops a reference each time
    for v in range(hexes.shape[0]):
        if hexes[v] == h and st.side[v] == side and st.status[v] == ON_MAP and ut.fort[st.utype[v]]:
            return v
    return -1


@njit(cache=True)
def inside_fort(st, ut, u):
    """PB-FORT-10: unit u is inside a fort: a fort of its side in its hex, and not on top."""
    return is_piece(st, ut, u) and not st.on_top[u] and fort_in(st, ut, st.hex[u], st.side[u]) >= 0


@njit(cache=True)
def enemy_in_hex(st, ut, h, side):
    """A fighting unit of the side opposed to `side` in hex h (on top of `side`'s fort)."""
    hexes = st.hex  # taken once (see fort_in)
    for v in range(hexes.shape[0]):
        if hexes[v] == h and st.side[v] != side and is_piece(st, ut, v):
            return True
    return False


@njit(cache=True)
def defends(st, ut, d, h, side, f):
    """PB-STK-2..4 / PB-STK-7 / PB-FORT-11: d is one of the defenders of hex h that a selective
    or multiple attack may pick: a unit of `side` there outside any fort (on top of one
    included), or `side`'s fort there (`f`, fort_in's answer), which stands for itself and the
    units inside it (never attacked separately)."""
    if st.status[d] != ON_MAP or st.hex[d] != h or st.side[d] != side:
        return False
    if f >= 0:
        return d == f or (st.on_top[d] and is_piece(st, ut, d))
    return is_piece(st, ut, d)


@njit(cache=True)
def capture_fort(st, ut, h, side):
    """PB-FORT-8: a unit moving into an empty enemy fort takes it over."""
    f = fort_in(st, ut, h, 1 - side)
    if f >= 0:
        hexes = st.hex  # taken once (see fort_in)
        for v in range(hexes.shape[0]):
            if hexes[v] == h and st.side[v] != side and is_piece(st, ut, v):
                return
        st.side[f] = side
        st.dispersed[f] = False


@njit(cache=True)
def dispersed_modifier(ct, n_defenders, n_dispersed):
    """PB-DISP-2.3: -1 when the defender was already dispersed this player-turn; against a
    stack per the OQ-4 reading: any of them (0), all of them (1), or never (2)."""
    if n_dispersed == 0:
        return 0
    if n_defenders > 1 and (ct.dispersed_mode == 2 or (ct.dispersed_mode == 1 and n_dispersed < n_defenders)):
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
    if kind == 2:
        # PB-WEC-6 tie: the type less favourable to this firer.
        x = modified_attack(af, ut.weapon[t], True, wec_dist, ut.range[t], halved, ct.wec, ct.halving)
        y = modified_attack(af, ut.weapon[t], False, wec_dist, ut.range[t], halved, ct.wec, ct.halving)
        return min(x, y) * factor
    return modified_attack(af, ut.weapon[t], kind == 1, wec_dist, ut.range[t], halved, ct.wec, ct.halving) * factor


@njit(cache=True)
def may_fire_indirect(st, ut, mt, ct, u, a, h):
    """PB-OPT-IF-1/2/4: with the optional rule on, or for the units a situation's own rule lets
    fire indirectly (PB-SIT-8), unit u (in hex a) may fire indirectly at h: it is a unit the
    data lets fire indirectly, h is beyond half its range if it is SPA or a howitzer, and a
    command post observes h this phase (`st.observed`, see `observe`)."""
    if not ct.indirect_fire and not ut.card_indirect[st.utype[u]]:
        return False
    k = ut.indirect[st.utype[u]]
    if k == 0:
        return False
    if k == 2 and 2 * mt.dist[a, h] <= ut.range[st.utype[u]]:
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
        return 1
    if may_fire_indirect(st, ut, mt, ct, u, a, h):
        return 2
    return 0


@njit(cache=True)
def attack_af(st, ut, mt, ct, spotted, u, h, kind):
    """`firer_af` of a unit declared against h: direct fire where it sees h, else indirect
    (PB-OPT-IF-5), with intensive fire if declared (PB-OPT-AMMO-1)."""
    return firer_af_mode(st, ut, mt, ct, u, h, kind, fire_mode(st, ut, mt, ct, spotted, u, st.hex[u], h) == 2)


@njit(cache=True)
def observe(st, ut, mt, side, spotted):
    """PB-OPT-IF-2/3, PB-CP-2: mark the hexes `side` may fire on indirectly this phase: an
    unloaded command post of the side (undispersed: a dispersed unit does not spot, PB-SPOT-2)
    has a clear LOS to the hex; a hex in woods or a town must also be spotted by a unit
    adjacent to it that the CP can see.  `st.observed[h]` has one bit per command post of the
    side (in unit order) that observes h, for PB-SIT-8's distance limit."""
    n_hex = mt.neighbours.shape[0]
    st.observed[:] = 0
    slot = -1
    for c in range(st.utype.shape[0]):
        if st.side[c] != side or not ut.observer[st.utype[c]]:
            continue
        slot += 1
        if not is_piece(st, ut, c) or st.dispersed[c] or slot > 62:
            continue
        bit = np.int64(1) << slot
        hc = st.hex[c]
        for h in range(n_hex):
            if st.observed[h] & bit or (mt.dist[hc, h] > 1 and mt.los[hc, h] == 0):
                continue
            if not mt.concealing[h]:
                st.observed[h] |= bit
                continue
            if not spotted[h]:
                continue
            for s in range(st.utype.shape[0]):
                if is_piece(st, ut, s) and st.side[s] == side and not st.dispersed[s] \
                        and mt.dist[st.hex[s], h] == 1 \
                        and (mt.dist[hc, st.hex[s]] <= 1 or mt.los[hc, st.hex[s]] != 0):
                    st.observed[h] |= bit  # PB-OPT-IF-3: the CP sees the spotter
                    break


@njit(cache=True)
def may_fire_intensively(st, ut, ct, u, side):
    """PB-OPT-AMMO-1/2/4: an H or M unit that may fire (and carries no passenger), with the
    optional rule on; it can do so only once, since it leaves the game after."""
    return ct.intensive_fire and ut.intensive[st.utype[u]] and st.carrying[u] < 0 and may_fire(st, ut, u, side)


EV_INTENSIVE = 30


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
    if not is_piece(st, ut, u) or st.side[u] != side:
        return False
    t = st.utype[u]
    return ((not st.dispersed[u]) and (not st.fired[u]) and ut.attack[t] > 0 and ut.weapon[t] >= 0
            and st.march_state[st.group[u]] == MARCH_OVER)  # PB-SIT-7: a marching column does not fire


@njit(cache=True)
def fire_options(st, ut, mt, ct, side, spotted, occ, u, out_hex, out_af, stack_kind):
    """The enemy hexes unit u may fire at this turn, with its modified AF against each.
    `stack_kind[h]`: the target type of the stack in h if known (else -1, computed here)."""
    t = st.utype[u]
    a = st.hex[u]
    enemy = 1 - side
    n = 0
    for h in range(mt.neighbours.shape[0]):
        if occ[h, enemy] == 0:
            continue
        if mt.dist[a, h] > ut.range[t]:
            continue
        mode = fire_mode(st, ut, mt, ct, spotted, u, a, h)
        if mode == 0:
            continue
        kind = stack_kind[h] if stack_kind[h] >= 0 else defender_stack(st, ut, mt, h, enemy)[1]
        af = firer_af_mode(st, ut, mt, ct, u, h, kind, mode == 2)
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
def mark_lost(st, u, h):
    """Take a counter out of the game, noting where and in which game-turn (for the loss map)."""
    st.status[u] = ELIMINATED
    st.lost_hex[u] = h
    st.lost_turn[u] = st.clock[TURN]
    st.hex[u] = -1


@njit(cache=True)
def eliminate(st, ut, u):
    """PB-CRT-2 X: remove the unit; an armored vehicle leaves a wreck (PB-WRECK-1); a passenger
    shares its carrier's fate (PB-TRANS-10)."""
    h = st.hex[u]
    t = st.utype[u]
    st.dispersed[u] = False
    if ut.leaves_wreck[t] and h >= 0:
        st.wrecks[h, st.side[u]] += 1
    p = st.carrying[u]
    if p >= 0:
        mark_lost(st, p, h)
        st.carried_by[p] = -1
        st.carrying[u] = -1
        log_event(st, EV_ELIMINATED_PASSENGER, p, h, u, 0, 0, 0, 0)
    mark_lost(st, u, h)


@njit(cache=True)
def disperse(st, ut, u):
    st.dispersed[u] = True
    st.dispersed_this_turn[u] = True
    p = st.carrying[u]
    if p >= 0:
        st.dispersed[p] = True  # PB-DISP-6: carrier and passenger share the result
        if ut.armored[st.utype[u]]:
            # PB-TRANS-9: an armored carrier dispersed sets its passenger down at once,
            # dispersed; if that breaks the stacking limit the passenger is eliminated.
            st.carrying[u] = -1
            st.carried_by[p] = -1
            st.on_top[p] = st.on_top[u]  # PB-FORT-12: set down on top of the enemy fort its carrier is on
            h = st.hex[u]
            if side_load(st, ut, h, st.side[p]) > st.limits[st.side[p]]:
                mark_lost(st, p, h)
                st.dispersed[p] = False
                log_event(st, EV_ELIMINATED_PASSENGER, p, h, u, 0, 0, 0, 0)


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
            if mode != 0:
                total += firer_af_mode(st, ut, mt, ct, u, h, kind, mode == 2)
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
            log_event(st, EV_FIRER, u, h, firer_af_mode(st, ut, mt, ct, u, h, kind, mode == 2),
                      1 if mode == 2 else 0, 0, 0, 0)  # 1: indirect fire (PB-OPT-IF)
    modifier = mt.terrain_mod[h] + dispersed_modifier(ct, n_def, n_disp)
    return roll_and_apply(st, ut, ct, EV_ATTACK, h, total, df, col, modifier, enemy)


@njit(cache=True)
def roll_and_apply(st, ut, ct, event, h, af, df, col, modifier, defender_side):
    """PB-CBT-11 / PB-CRT-5: roll one die, read the CRT, log the battle, apply the result to the
    whole defending stack; returns the result."""
    roll = roll_die()
    result = crt_result(ct.crt, ct.lowest_roll, col, roll + modifier)
    log_event(st, event, h, af, df, col, roll, modifier, result)
    apply_to_stack(st, ut, h, defender_side, result, ct.fort_excess_eliminated)
    return result


@njit(cache=True)
def apply_to_stack(st, ut, h, defender_side, result, excess_eliminated=False):
    """PB-CRT-5: the result applies to every defending unit, DD judged unit by unit.
    `excess_eliminated`: the OQ-26 switch (see `hit_fort`)."""
    if result == 0:
        return
    f = fort_in(st, ut, h, defender_side)
    if f >= 0:
        # PB-STK-7 / PB-FORT-10/11: the units on top of the fort are outside it: each takes
        # the result for itself; then the fort, for itself and the units inside.
        for u in range(st.utype.shape[0]):
            if st.on_top[u] and is_piece(st, ut, u) and st.hex[u] == h and st.side[u] == defender_side:
                outcome = apply_one(st, ut, u, result)
                log_event(st, EV_HIT, u, outcome, result, 0, 0, 0, 0)
        hit_fort(st, ut, f, result, excess_eliminated)
        return
    for u in range(st.utype.shape[0]):
        if not is_piece(st, ut, u) or st.hex[u] != h or st.side[u] != defender_side:
            continue
        outcome = apply_one(st, ut, u, result)
        log_event(st, EV_HIT, u, outcome, result, 0, 0, 0, 0)


@njit(cache=True)
def hit_fort(st, ut, f, result, excess_eliminated):
    """PB-FORT-5/14/16: fort f takes the result; destroyed, it takes every unit inside with it
    (not those on top, PB-FORT-5) and becomes a block; dispersed, it disperses the units inside.
    OQ-26: the block counts against stacking at once; by the adopted reading units on top over
    the limit stay until they move, by the alternative (`excess_eliminated`) the weakest of
    them are eliminated until the hex is within the limit.  Returns the fort's outcome."""
    h = st.hex[f]
    side = st.side[f]
    outcome = apply_one(st, ut, f, result)
    log_event(st, EV_HIT, f, outcome, result, 0, 0, 0, 0)
    if outcome == UNHARMED:
        return outcome
    for u in range(st.utype.shape[0]):
        if is_piece(st, ut, u) and st.hex[u] == h and st.side[u] == side and not st.on_top[u]:
            if outcome == NOW_ELIMINATED:
                eliminate(st, ut, u)
            else:
                disperse(st, ut, u)
            log_event(st, EV_HIT, u, outcome, result, 0, 0, 0, 0)
    if outcome == NOW_ELIMINATED:
        st.block[h] = True
        for u in range(st.utype.shape[0]):
            if st.hex[u] == h:
                st.on_top[u] = False  # no fort to be on top of any more
        if excess_eliminated:
            for s in range(2):
                # the excess, weakest (lowest DF) first; the wrecks these losses may leave
                # are not excess of their own
                excess = side_load(st, ut, h, s) - st.limits[s]
                while excess > 0:
                    weakest = -1
                    for u in range(st.utype.shape[0]):
                        if is_piece(st, ut, u) and st.hex[u] == h and st.side[u] == s and \
                                (weakest < 0 or unit_defense(st, ut, u) < unit_defense(st, ut, weakest)):
                            weakest = u
                    if weakest < 0:
                        break
                    excess -= max(ut.stack_count[st.utype[weakest]], 1)
                    eliminate(st, ut, weakest)
                    log_event(st, EV_EXCESS, weakest, h, 0, 0, 0, 0, 0)
    return outcome


@njit(cache=True)
def apply_one(st, ut, u, result):
    if result == 3 or (result == 2 and st.dispersed[u]):
        eliminate(st, ut, u)
        return NOW_ELIMINATED
    if result >= 1:
        disperse(st, ut, u)
        return NOW_DISPERSED
    return UNHARMED


@njit(cache=True)
def minefield_attacks(st, ut, mt, ct, side):
    """PB-SEQ-2 S1 / PB-MINE-5..7: every enemy unit on a minefield is attacked alone at 2-1,
    with no terrain modifier.  One that comes through undispersed may stay without being
    attacked again (`mine_safe`); one dispersed is attacked again at the next S1 (pinned: it
    is dispersed through its own turn, so it cannot move off)."""
    enemy = 1 - side
    for u in range(st.utype.shape[0]):
        if not is_piece(st, ut, u) or st.side[u] != enemy:
            continue
        h = st.hex[u]
        if not st.mine[h] or st.mine_safe[u]:
            continue
        roll = roll_die()
        result = crt_result(ct.crt, ct.lowest_roll, ct.minefield_column, roll)
        outcome = apply_one(st, ut, u, result)
        if outcome == UNHARMED:
            st.mine_safe[u] = True  # PB-MINE-6
        log_event(st, EV_MINE, u, h, roll, result, outcome, 0, 0)


@njit(cache=True, inline="always")
def hex_move_flags(enemy_units, other_own_units, wrecked, block, mine, enemy_fort_open):
    """The movement search's flags of one hex (PB-MOVE-6, PB-ROAD-5/11, PB-MINE-3, PB-BLOCK-2,
    PB-FORT-12): (enemy: never entered, road_usable, road_clear, stop_here).  `enemy_units`: the
    enemy's fighting units there; `other_own_units`: the mover's side's, the mover left out;
    `enemy_fort_open`: an enemy fort with nobody of its side on top."""
    enemy = enemy_units > 0
    road_usable = not (wrecked or block)
    road_clear = other_own_units == 0 and not wrecked
    stop_here = mine or block
    if enemy and enemy_fort_open:
        # PB-FORT-12 / PB-MOVE-6: onto the top of an occupied enemy fort, and stop there
        # (it cannot be passed through).
        return False, road_usable, False, True
    return enemy, road_usable, road_clear, stop_here


@njit(cache=True)
def move_flags(st, ut, mt, side, mover, occ):
    """Per-hex inputs of the movement search for one mover (`hex_move_flags` of every hex),
    worked out from the units.  The movement phase keeps them up to date instead
    (move_view.py); this is the reference the debug mode checks that against."""
    n_hex = mt.neighbours.shape[0]
    enemy = np.zeros(n_hex, dtype=np.bool_)
    road_usable = np.ones(n_hex, dtype=np.bool_)
    road_clear = np.ones(n_hex, dtype=np.bool_)
    stop_here = np.zeros(n_hex, dtype=np.bool_)
    # PB-FORT-12: an enemy fort holding enemy units, none on top: its top may be entered.
    top_open = np.zeros(n_hex, dtype=np.bool_)
    for v in range(st.utype.shape[0]):
        if st.status[v] == ON_MAP and st.side[v] != side and ut.fort[st.utype[v]]:
            top_open[st.hex[v]] = True
    for v in range(st.utype.shape[0]):
        if st.side[v] != side and st.on_top[v] and is_piece(st, ut, v):
            top_open[st.hex[v]] = False  # the other side holds the top: nobody may enter
    for h in range(n_hex):
        others = occ[h, side] - (1 if (st.hex[mover] == h and is_piece(st, ut, mover)) else 0)
        enemy[h], road_usable[h], road_clear[h], stop_here[h] = hex_move_flags(
            occ[h, 1 - side], others, st.wrecks[h, 0] + st.wrecks[h, 1] > 0, st.block[h], st.mine[h], top_open[h])
    return enemy, road_usable, road_clear, stop_here


@njit(cache=True)
def swamp_road_stacks(st, ut, mt, mv, side, u):
    """PB-ROAD-10.2-4: the swamp/road hexes a mover that may be there only by road (a vehicle)
    may move onto because they hold its side's non-vehicular units and no vehicle or wreck;
    it pays `mv.swamp_stack_cost` and stops there.  None for other movers.  (The reference of
    move_view.reach_of's.)"""
    mclass = ut.mclass[st.utype[u]]
    n_hex = mt.neighbours.shape[0]
    out = np.zeros(n_hex, dtype=np.bool_)
    if mclass < 0:
        return out
    foot = np.zeros(n_hex, dtype=np.bool_)
    wheels = np.zeros(n_hex, dtype=np.bool_)
    for v in range(st.utype.shape[0]):
        if v == u or not is_piece(st, ut, v) or st.side[v] != side:
            continue
        h = st.hex[v]
        if not mt.swamp[h]:
            continue
        if ut.vehicle[st.utype[v]]:
            wheels[h] = True  # PB-ROAD-10.2: never two vehicles on a swamp road, not even passing
        else:
            foot[h] = True
    for h in range(n_hex):
        if foot[h] and not wheels[h] and mv.enter_cost[h, mclass] < 0 and st.wrecks[h, 0] + st.wrecks[h, 1] == 0:
            out[h] = True
    return out


@njit(cache=True)
def stack_loads(st, ut, n_hex):
    """side_load for every hex and both sides at once (for filtering many candidate hexes).  The
    movement phase keeps them up to date instead (move_view.py); this is the reference."""
    load = np.zeros((n_hex, 2), dtype=np.int64)
    for h in range(n_hex):
        w = st.wrecks[h, 0] + st.wrecks[h, 1]
        load[h, 0] = w
        load[h, 1] = w
    counter = np.zeros(n_hex, dtype=np.bool_)
    for u in range(st.utype.shape[0]):
        if st.status[u] == ON_MAP and ut.category[st.utype[u]] == ROADBLOCK:
            counter[st.hex[u]] = True
        if st.status[u] == ON_MAP and st.carried_by[u] < 0:
            c = ut.stack_count[st.utype[u]]
            if ut.positional[st.utype[u]]:
                load[st.hex[u], 0] += c
                load[st.hex[u], 1] += c
            else:
                load[st.hex[u], st.side[u]] += c
    bc = block_count(ut)
    for h in range(n_hex):
        if st.block[h] and not counter[h]:
            load[h, 0] += bc  # PB-BLOCK-4/6: the block a destroyed fort left has no counter
            load[h, 1] += bc
    return load


@njit(cache=True)
def fits(st, ut, limits, h, side, u):
    """PB-STACK-1/4: may unit u (with its passenger, counted once) end its move in h?"""
    return side_load(st, ut, h, side) + ut.stack_count[st.utype[u]] <= limits[side]


@njit(cache=True)
def place(st, u, h):
    """Put u (and its passenger) in hex h (inside a fort of its side there, PB-FORT-10's
    default placement; `settle_on_top` puts a unit on top of an enemy fort)."""
    st.hex[u] = h
    st.status[u] = ON_MAP
    st.on_top[u] = False
    p = st.carrying[u]
    if p >= 0:
        st.hex[p] = h
        st.status[p] = ON_MAP
        st.on_top[p] = False


@njit(cache=True)
def settle_on_top(st, ut, u):
    """PB-FORT-12: a unit that ends its move in a hex with an enemy fort (holding enemy units:
    it could not have entered otherwise) is on top of it."""
    if fort_in(st, ut, st.hex[u], 1 - st.side[u]) >= 0:
        st.on_top[u] = True


@njit(cache=True)
def exit_map(st, u, edge_bit):
    """PB-MOVE-10: u (and its passenger) leaves the map from its hex by `edge_bit`.  Leaving by
    the outward edge of a round trip (PB-SIT-5) records the hex, where it may come back on."""
    h = st.hex[u]
    outward = (edge_bit & st.trip_out[st.side[u]]) != 0
    p = st.carrying[u]
    for w in (u, p):
        if w < 0:
            continue
        st.status[w] = EXITED
        st.exit_turn[w] = st.clock[TURN]
        st.exit_edge[w] = edge_bit
        st.hex[w] = -1
        if outward:
            st.trip_hex[w] = h
            st.returned[w] = False
    log_event(st, EV_EXIT, u, h, edge_bit, 0, 0, 0, 0)


@njit(cache=True)
def exit_edges_of(st, u):
    """PB-MOVE-10: the edges unit u may leave the map by (bits): those its side's victory
    conditions count exits on.  On a round trip (PB-SIT-5) the outward edge only until the unit
    has been out, the final edge only after (a unit coming back on is already past its way out)."""
    side = st.side[u]
    edges = st.exit_edges[side]
    out = st.trip_out[side]
    if out == 0:
        return edges
    final = st.trip_final[side]
    edges &= ~(out | final)
    return edges | (out if st.trip_hex[u] < 0 else final)


@njit(cache=True)
def may_return(st, u):
    """PB-SIT-5: unit u, off the map after leaving by its side's outward edge, may come back on
    at the hex where it left in this game-turn: it has stayed off the whole game-turns the card
    asks (left in turn T, off through T + stay, back from T + stay + 1).  A passenger comes back
    with its carrier."""
    side = st.side[u]
    return (st.status[u] == EXITED and st.trip_out[side] != 0 and st.trip_hex[u] >= 0 and not st.returned[u]
            and st.carried_by[u] < 0 and (st.exit_edge[u] & st.trip_out[side]) != 0
            and st.clock[TURN] - st.exit_turn[u] > st.trip_stay_off[side])


@njit(cache=True)
def recover(st, side):
    """PB-SEQ-2 S6 / PB-DISP-3: the phasing player's units turn face-up."""
    for u in range(st.utype.shape[0]):
        if st.side[u] != side:
            continue
        if st.dispersed[u] and st.status[u] == ON_MAP:
            if st.own_fire_hit[u] == 2:
                # OQ-22 alternative: dispersed by its own side's fire this player-turn, it stays
                # dispersed through its next player-turn (PB-FORT-13).
                st.own_fire_hit[u] = 0
            else:
                st.own_fire_hit[u] = 0
                st.dispersed[u] = False
                log_event(st, EV_RECOVER, u, st.hex[u], 0, 0, 0, 0, 0)
        st.fired[u] = False
        st.moved[u] = False
        st.steps[u] = 0
        st.assaulted[u] = False
    for u in range(st.utype.shape[0]):
        st.dispersed_this_turn[u] = False
        if st.side[u] != side:
            st.revealed[u] = False  # seen through this player-turn only (Panzer Leader variant)
    for h in range(st.overrun_hex.shape[0]):
        st.overrun_hex[h] = False
        st.assaulted_hex[h] = False


# ---------------------------------------------------------------- overrun (PB-OVR)

EV_OVERRUN, EV_OVERRUNNER, EV_ASSAULT, EV_ASSAULTER = 14, 15, 16, 17


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
    if ut.weapon[st.utype[u]] == 3:
        if ct.halftrack_majority:
            _, kind, _, _ = defender_stack(st, ut, mt, h, enemy)
            if kind == 1:
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
        if ct.overrun_hill_halving and mt.level[target] == 2 and mt.level[st.hex[movers[i]]] != 2:
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


# ---------------------------------------------------------------- close assault (PB-CAT)

@njit(cache=True)
def may_assault(st, ut, u, side):
    """PB-CAT-1/3/9: infantry or cavalry, face-up, not fired, moved at most one hex, not just unloaded."""
    if not is_piece(st, ut, u) or st.side[u] != side:
        return False
    t = st.utype[u]
    return (ut.can_assault[t] and not st.dispersed[u] and not st.fired[u] and not st.assaulted[u]
            and st.steps[u] <= 1 and ut.attack[t] > 0 and st.march_state[st.group[u]] == MARCH_OVER)  # PB-SIT-7


@njit(cache=True)
def resolve_assault(st, ut, mt, ct, side, assaulters, n_ass, target):
    """PB-CAT-4..7: adjacent assaulters' AF (no WEC, PB-WEC-8; halved per PB-HILL) against the
    target hex's combined DF; terrain modifiers apply; -2 on the die; one column up when an
    engineer assaults from a hex together with an infantry or cavalry unit."""
    enemy = 1 - side
    df, kind, n_def, n_disp = defender_stack(st, ut, mt, target, enemy)
    if df <= 0 or st.assaulted_hex[target]:
        return -1
    if ct.cat_rf1_armor_barred and stack_kind_of(st, ut, mt, ct, target, enemy, kind) != 0:
        # OQ-18 alternative: the WEC's "within half range" literally: an I-class unit of
        # range 1 (half of it 0) may not close-assault an armored target (a tie: armored for it).
        n_ok = 0
        for i in range(n_ass):
            t = st.utype[assaulters[i]]
            if not (ut.weapon[t] == 3 and ut.range[t] <= 1):
                assaulters[n_ok] = assaulters[i]
                n_ok += 1
        n_ass = n_ok
    af = 0
    for i in range(n_ass):
        u = assaulters[i]
        a = st.hex[u]
        halved = hill_halves(mt.level[a], mt.level[target], True, brown_between(mt, a, target))
        x = ut.attack[st.utype[u]]
        if halved:
            x = int(np.floor(x * ct.halving))
        af += x
    if af <= 0:
        return -1
    col = odds_of(ct, af, df)
    if col < 0:
        return -1  # PB-CAT-7
    engineer_bonus = False
    for i in range(n_ass):
        for j in range(n_ass):
            ui = assaulters[i]
            uj = assaulters[j]
            if st.hex[ui] == st.hex[uj] and ut.engineer[st.utype[ui]] and not ut.engineer[st.utype[uj]]:
                engineer_bonus = True
    if engineer_bonus:
        col = min(col + 1, ct.crt.shape[1] - 1)  # PB-CAT-6, one column however many engineers
    modifier = mt.terrain_mod[target] + ct.mod_close_assault + dispersed_modifier(ct, n_def, n_disp)
    for i in range(n_ass):
        st.assaulted[assaulters[i]] = True  # its one attack this turn (PB-CBT-3)
        log_event(st, EV_ASSAULTER, assaulters[i], target, ut.attack[st.utype[assaulters[i]]], 0, 0, 0, 0)
    st.assaulted_hex[target] = True
    return roll_and_apply(st, ut, ct, EV_ASSAULT, target, af, df, col, modifier, enemy)


# ---------------------------------------------------------------- selective attack (PB-STK-3)

@njit(cache=True)
def unit_defense(st, ut, u):
    """One unit's DF as a defender (PB-TRANS-6: a truck or wagon carrying a passenger has 1)."""
    t = st.utype[u]
    if st.carrying[u] >= 0 and not ut.armored[t]:
        return 1
    return ut.defense[t]


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
        kind = 1 if ut.armored[st.utype[d]] else 0
        af = 0
        for i in range(n_att):
            u = attackers[i]
            if may_fire(st, ut, u, side) and mt.dist[st.hex[u], h] <= ut.range[st.utype[u]]:
                mode = fire_mode(st, ut, mt, ct, spotted, u, st.hex[u], h)
                if mode != 0:
                    af += firer_af_mode(st, ut, mt, ct, u, h, kind, mode == 2)
        if af <= 0:
            continue
        col = odds_of(ct, af, unit_defense(st, ut, d))
        if col > best_col:
            best_col, best_unit, best_af = col, d, af
    if best_unit < 0 or best_col < 0:
        return -1  # PB-STK-3: as low as 1-4, not below
    kind = 1 if ut.armored[st.utype[best_unit]] else 0
    for i in range(n_att):
        u = attackers[i]
        if may_fire(st, ut, u, side):
            st.fired[u] = True
            if mt.concealing[st.hex[u]]:
                st.revealed[u] = True
            mode = fire_mode(st, ut, mt, ct, spotted, u, st.hex[u], h)
            log_event(st, EV_FIRER, u, h, firer_af_mode(st, ut, mt, ct, u, h, kind, mode == 2),
                      1 if mode == 2 else 0, 0, 0, 0)  # 1: indirect fire (PB-OPT-IF)
    modifier = mt.terrain_mod[h] + dispersed_modifier(ct, 1, 1 if st.dispersed[best_unit] else 0)
    roll = roll_die()
    result = crt_result(ct.crt, ct.lowest_roll, best_col, roll + modifier)
    log_event(st, EV_ATTACK, h, best_af, unit_defense(st, ut, best_unit), best_col, roll, modifier, result)
    if result != 0:
        if ut.fort[st.utype[best_unit]]:
            hit_fort(st, ut, best_unit, result, ct.fort_excess_eliminated)  # logs its hits
        else:
            outcome = apply_one(st, ut, best_unit, result)
            log_event(st, EV_HIT, best_unit, outcome, result, 0, 0, 0, 0)
    return result


# ---------------------------------------------------------------- voluntary destruction, mine removal

EV_SELF_DESTROYED, EV_MINE_REMOVAL = 18, 19


@njit(cache=True)
def may_self_destroy(st, ut, u, side):
    """PB-SELF-1/2: a player may destroy his own units (not mines, blocks or forts)."""
    return st.side[u] == side and st.status[u] == ON_MAP and not ut.positional[st.utype[u]] \
        and st.carried_by[u] < 0


@njit(cache=True)
def self_destroy(st, ut, u):
    """PB-SELF-1: remove the unit (an armored vehicle leaves a wreck, PB-WRECK-1); it counts for
    the enemy's victory conditions like any loss (PB-SELF-2)."""
    h = st.hex[u]
    eliminate(st, ut, u)
    log_event(st, EV_SELF_DESTROYED, u, h, 0, 0, 0, 0, 0)


@njit(cache=True)
def mine_removal_targets(st, ut, mt, side, u, out):
    """PB-MINE-9: the minefields adjacent to an undispersed engineer that has not fired."""
    if not is_piece(st, ut, u) or st.side[u] != side or not ut.engineer[st.utype[u]]:
        return 0
    if st.dispersed[u] or st.fired[u]:
        return 0
    n = 0
    for d in range(6):
        h = mt.neighbours[st.hex[u], d]
        if h >= 0 and st.mine[h]:
            out[n] = h
            n += 1
    return n


@njit(cache=True)
def attempt_mine_removal(st, ut, u, h, mine_category):
    """PB-MINE-9: roll one die; a 1 removes the minefield.  The attempt is the engineer's
    attack for the turn and, like firing, keeps it from moving (OQ-13; with the alternative
    reading the fire phase lets it move afterwards, game.fire_phase)."""
    st.fired[u] = True
    roll = roll_die()
    removed = roll == 1
    if removed:
        st.mine[h] = False
        st.mine_side[h] = -1
        for v in range(st.utype.shape[0]):
            if st.status[v] == ON_MAP and st.hex[v] == h and ut.category[st.utype[v]] == mine_category:
                mark_lost(st, v, h)
    log_event(st, EV_MINE_REMOVAL, u, h, roll, 1 if removed else 0, 0, 0, 0)
    return removed


# ---------------------------------------------------------------- multiple attack (PB-STK-4)

# `assign[i]` of a multiple attack: the defending unit attacker i fires at, or one of these.
NOT_FIRING, AT_LEFTOVERS = -1, -2


@njit(cache=True)
def fire_reaches(st, ut, mt, ct, spotted, side, u, h):
    """Attacker u may fire at hex h this turn (face-up, range, LOS and spotting, or indirect
    fire where the optional rule allows it: PB-OPT-IF)."""
    return may_fire(st, ut, u, side) and st.hex[u] >= 0 and mt.dist[st.hex[u], h] <= ut.range[st.utype[u]] \
        and fire_mode(st, ut, mt, ct, spotted, u, st.hex[u], h) != 0


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
            kind = 1 if ut.armored[st.utype[d]] else 0
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
        df, n_arm, n_soft, n_disp = _tally(st, ut, u, df, n_arm, n_soft, n_disp)
    kind = 1 if n_arm > n_soft else (0 if n_soft > n_arm else 2)
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
        kind = 1 if ut.armored[st.utype[d]] else 0
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
        if result != 0:
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
        if result != 0:
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


# ---------------------------------------------------------------- passenger alone (PB-TRANS-8)

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
    kind = 1 if ut.armored[st.utype[p]] else 0
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
    if result == 3 or (result == 2 and st.dispersed[p]):
        c = st.carried_by[p]
        st.carrying[c] = -1
        st.carried_by[p] = -1
        st.dispersed[p] = False
        mark_lost(st, p, h)
        log_event(st, EV_HIT, p, NOW_ELIMINATED, result, 0, 0, 0, 0)
    elif result != 0:
        st.dispersed[p] = True
        st.dispersed_this_turn[p] = True
        log_event(st, EV_HIT, p, NOW_DISPERSED, result, 0, 0, 0, 0)
    return result


# ---------------------------------------------------------------- passengers in the type count (OQ-20)

@njit(cache=True)
def stack_kind_of(st, ut, mt, ct, h, defender_side, kind):
    """PB-WEC-6 / OQ-20: the target type of the stack in h, given `kind` as defender_stack
    found it (passengers not counted, the adopted reading).  By the alternative reading each
    passenger counts by its own type beside its carrier (towns and forts stay armored)."""
    if ct.fort_whole_armored and kind != 1 and fort_in(st, ut, h, defender_side) >= 0:
        return 1  # OQ-12 alternative: a fort with units on top makes the whole stack armored
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
    return 1 if n_arm > n_soft else (0 if n_soft > n_arm else 2)


# ---------------------------------------------------------------- overruns across a board edge (PB-OVR-10)

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


# ---------------------------------------------------------------- destroying one's own fort (PB-FORT-9)

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


# ---------------------------------------------------------------- fire at enemy units on top of one's own fort (PB-FORT-13)

@njit(cache=True)
def enemy_on_own_fort(st, ut, h, side):
    """PB-FORT-13: hex h holds a fort of `side` with enemy units on top of it."""
    if fort_in(st, ut, h, side) < 0:
        return False
    for v in range(st.utype.shape[0]):
        if st.side[v] != side and st.on_top[v] and is_piece(st, ut, v) and st.hex[v] == h:
            return True
    return False


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
                if mode != 0:
                    total += firer_af_mode(st, ut, mt, ct, u, h, 1, mode == 2)
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
    if result == 0:
        return result
    outcome = hit_fort(st, ut, f, result, ct.fort_excess_eliminated)
    if outcome == NOW_DISPERSED:
        mark = 2 if ct.own_fire_next_turn else 1
        for u in range(st.utype.shape[0]):
            if st.status[u] == ON_MAP and st.hex[u] == h and st.side[u] == side and st.dispersed[u] \
                    and (u == f or not st.on_top[u]):
                st.own_fire_hit[u] = mark
    return result
